/* fmi3Functions.h — the functions every FMI 3.0 FMU exports, declared with default visibility
 * so that an FMU built with -fvisibility=hidden exports exactly these.  An FMU exports them
 * all, whichever interfaces it implements: importers (fmusim, FMPy) look every one up when
 * they load the library and refuse it when one is missing.  A function of an interface the
 * model does not implement returns fmi3Error (an instantiation, NULL) and logs why.
 *
 * The lists below, one per interface, are the one place the names are written: the
 * declarations are made from them, and so are the suite's strict importer
 * (tests/unit/fmi_strict.h) and the test that compares a wrapper's exports with them.
 * X(Name) stands for fmi3<Name>, of type fmi3<Name>TYPE (fmi3FunctionTypes.h). */
#ifndef FMI3_FUNCTIONS_H
#define FMI3_FUNCTIONS_H

#include "fmi3FunctionTypes.h"

#define fmi3Version "3.0"

#if defined(_WIN32)
#define FMI3_Export __declspec(dllexport) /* a DLL exports what is marked so, only */
#elif defined(__GNUC__) || defined(__clang__)
#define FMI3_Export __attribute__((visibility("default")))
#else
#define FMI3_Export
#endif

/* Common to all interfaces. */
#define FMI3_COMMON_FUNCTIONS(X)                                                            \
	X(GetVersion)                                                                       \
	X(SetDebugLogging)                                                                  \
	X(InstantiateModelExchange)                                                         \
	X(InstantiateCoSimulation)                                                          \
	X(InstantiateScheduledExecution)                                                    \
	X(FreeInstance)                                                                     \
	X(EnterInitializationMode)                                                          \
	X(ExitInitializationMode)                                                           \
	X(EnterEventMode)                                                                   \
	X(Terminate)                                                                        \
	X(Reset)                                                                            \
	X(GetFloat32)                                                                       \
	X(GetFloat64)                                                                       \
	X(GetInt8)                                                                          \
	X(GetUInt8)                                                                         \
	X(GetInt16)                                                                         \
	X(GetUInt16)                                                                        \
	X(GetInt32)                                                                         \
	X(GetUInt32)                                                                        \
	X(GetInt64)                                                                         \
	X(GetUInt64)                                                                        \
	X(GetBoolean)                                                                       \
	X(GetString)                                                                        \
	X(GetBinary)                                                                        \
	X(GetClock)                                                                         \
	X(SetFloat32)                                                                       \
	X(SetFloat64)                                                                       \
	X(SetInt8)                                                                          \
	X(SetUInt8)                                                                         \
	X(SetInt16)                                                                         \
	X(SetUInt16)                                                                        \
	X(SetInt32)                                                                         \
	X(SetUInt32)                                                                        \
	X(SetInt64)                                                                         \
	X(SetUInt64)                                                                        \
	X(SetBoolean)                                                                       \
	X(SetString)                                                                        \
	X(SetBinary)                                                                        \
	X(SetClock)                                                                         \
	X(GetNumberOfVariableDependencies)                                                  \
	X(GetVariableDependencies)                                                          \
	X(GetFMUState)                                                                      \
	X(SetFMUState)                                                                      \
	X(FreeFMUState)                                                                     \
	X(SerializedFMUStateSize)                                                           \
	X(SerializeFMUState)                                                                \
	X(DeserializeFMUState)                                                              \
	X(GetDirectionalDerivative)                                                         \
	X(GetAdjointDerivative)                                                             \
	X(EnterConfigurationMode)                                                           \
	X(ExitConfigurationMode)                                                            \
	X(GetIntervalDecimal)                                                               \
	X(GetIntervalFraction)                                                              \
	X(GetShiftDecimal)                                                                  \
	X(GetShiftFraction)                                                                 \
	X(SetIntervalDecimal)                                                               \
	X(SetIntervalFraction)                                                              \
	X(SetShiftDecimal)                                                                  \
	X(SetShiftFraction)                                                                 \
	X(EvaluateDiscreteStates)                                                           \
	X(UpdateDiscreteStates)

/* Model Exchange. */
#define FMI3_MODEL_EXCHANGE_FUNCTIONS(X)                                                    \
	X(EnterContinuousTimeMode)                                                          \
	X(CompletedIntegratorStep)                                                          \
	X(SetTime)                                                                          \
	X(SetContinuousStates)                                                              \
	X(GetContinuousStateDerivatives)                                                    \
	X(GetEventIndicators)                                                               \
	X(GetContinuousStates)                                                              \
	X(GetNominalsOfContinuousStates)                                                    \
	X(GetNumberOfEventIndicators)                                                       \
	X(GetNumberOfContinuousStates)

/* Co-Simulation. */
#define FMI3_CO_SIMULATION_FUNCTIONS(X)                                                     \
	X(EnterStepMode)                                                                    \
	X(GetOutputDerivatives)                                                             \
	X(DoStep)

/* Scheduled Execution. */
#define FMI3_SCHEDULED_EXECUTION_FUNCTIONS(X)                                               \
	X(ActivateModelPartition)

/* All of them, in the order above. */
#define FMI3_FUNCTIONS(X)                                                                   \
	FMI3_COMMON_FUNCTIONS(X)                                                            \
	FMI3_MODEL_EXCHANGE_FUNCTIONS(X)                                                    \
	FMI3_CO_SIMULATION_FUNCTIONS(X)                                                     \
	FMI3_SCHEDULED_EXECUTION_FUNCTIONS(X)

#define FMI3_DECLARE_FUNCTION(Name) FMI3_Export fmi3##Name##TYPE fmi3##Name;
FMI3_FUNCTIONS(FMI3_DECLARE_FUNCTION)
#undef FMI3_DECLARE_FUNCTION

#endif
