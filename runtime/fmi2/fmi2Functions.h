/* fmi2Functions.h — the FMI 2.0 functions an FMU exports, declared with default visibility so
 * that an FMU built with -fvisibility=hidden exports exactly these.  sacc's wrappers and test
 * FMUs implement Co-Simulation and export the Model Exchange functions too, which then
 * return fmi2Error and log why: importers look up the common functions and those of the
 * interface they use when they load the library, and the strict ones refuse a library that
 * lacks one.
 *
 * The lists below, one per group, are the one place the names are written: the declarations
 * are made from them, and so are the suite's strict importer (tests/unit/fmi_strict.h) and
 * the test that compares a wrapper's exports with them.  X(Name) stands for fmi2<Name>, of
 * type fmi2<Name>TYPE (fmi2FunctionTypes.h). */
#ifndef FMI2_FUNCTIONS_H
#define FMI2_FUNCTIONS_H

#include "fmi2FunctionTypes.h"

#define fmi2Version "2.0"

#if defined(_WIN32)
#define FMI2_Export __declspec(dllexport) /* a DLL exports what is marked so, only */
#elif defined(__GNUC__) || defined(__clang__)
#define FMI2_Export __attribute__((visibility("default")))
#else
#define FMI2_Export
#endif

/* Common to both interfaces. */
#define FMI2_COMMON_FUNCTIONS(X)                                                            \
	X(GetTypesPlatform)                                                                 \
	X(GetVersion)                                                                       \
	X(SetDebugLogging)                                                                  \
	X(Instantiate)                                                                      \
	X(FreeInstance)                                                                     \
	X(SetupExperiment)                                                                  \
	X(EnterInitializationMode)                                                          \
	X(ExitInitializationMode)                                                           \
	X(Terminate)                                                                        \
	X(Reset)                                                                            \
	X(GetReal)                                                                          \
	X(GetInteger)                                                                       \
	X(GetBoolean)                                                                       \
	X(GetString)                                                                        \
	X(SetReal)                                                                          \
	X(SetInteger)                                                                       \
	X(SetBoolean)                                                                       \
	X(SetString)                                                                        \
	X(GetFMUstate)                                                                      \
	X(SetFMUstate)                                                                      \
	X(FreeFMUstate)                                                                     \
	X(SerializedFMUstateSize)                                                           \
	X(SerializeFMUstate)                                                                \
	X(DeSerializeFMUstate)                                                              \
	X(GetDirectionalDerivative)

/* Model Exchange. */
#define FMI2_MODEL_EXCHANGE_FUNCTIONS(X)                                                    \
	X(EnterEventMode)                                                                   \
	X(NewDiscreteStates)                                                                \
	X(EnterContinuousTimeMode)                                                          \
	X(CompletedIntegratorStep)                                                          \
	X(SetTime)                                                                          \
	X(SetContinuousStates)                                                              \
	X(GetDerivatives)                                                                   \
	X(GetEventIndicators)                                                               \
	X(GetContinuousStates)                                                              \
	X(GetNominalsOfContinuousStates)

/* Co-Simulation. */
#define FMI2_CO_SIMULATION_FUNCTIONS(X)                                                     \
	X(SetRealInputDerivatives)                                                          \
	X(GetRealOutputDerivatives)                                                         \
	X(DoStep)                                                                           \
	X(CancelStep)                                                                       \
	X(GetStatus)                                                                        \
	X(GetRealStatus)                                                                    \
	X(GetIntegerStatus)                                                                 \
	X(GetBooleanStatus)                                                                 \
	X(GetStringStatus)

/* All of them, in the order above. */
#define FMI2_FUNCTIONS(X)                                                                   \
	FMI2_COMMON_FUNCTIONS(X)                                                            \
	FMI2_MODEL_EXCHANGE_FUNCTIONS(X)                                                    \
	FMI2_CO_SIMULATION_FUNCTIONS(X)

#define FMI2_DECLARE_FUNCTION(Name) FMI2_Export fmi2##Name##TYPE fmi2##Name;
FMI2_FUNCTIONS(FMI2_DECLARE_FUNCTION)
#undef FMI2_DECLARE_FUNCTION

#endif
