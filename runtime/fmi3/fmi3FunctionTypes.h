/* fmi3FunctionTypes.h — FMI 3.0 enumerations, callbacks and the types of the API functions,
 * so an importer can hold dlsym'd pointers (fmi3DoStepTYPE *doStep).  Written for this project
 * from the signatures the FMI 3.0 standard documents: every function of every interface
 * (Model Exchange, Co-Simulation, Scheduled Execution), since an FMU exports them all
 * (fmi3Functions.h) even where sacc implements Co-Simulation only. */
#ifndef FMI3_FUNCTION_TYPES_H
#define FMI3_FUNCTION_TYPES_H

#include <stddef.h>

#include "fmi3PlatformTypes.h"

typedef enum {
	fmi3OK,
	fmi3Warning,
	fmi3Discard,
	fmi3Error,
	fmi3Fatal
} fmi3Status;

typedef enum {
	fmi3Independent,
	fmi3Constant,
	fmi3Fixed,
	fmi3Tunable,
	fmi3Discrete,
	fmi3Dependent
} fmi3DependencyKind;

typedef enum {
	fmi3IntervalNotYetKnown,
	fmi3IntervalUnchanged,
	fmi3IntervalChanged
} fmi3IntervalQualifier;

typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                       fmi3Status status, fmi3String category,
                                       fmi3String message);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment);
typedef void (*fmi3IntermediateUpdateCallback)(
	fmi3InstanceEnvironment instanceEnvironment, fmi3Float64 intermediateUpdateTime,
	fmi3Boolean intermediateVariableSetRequested, fmi3Boolean intermediateVariableGetAllowed,
	fmi3Boolean intermediateStepFinished, fmi3Boolean canReturnEarly,
	fmi3Boolean *earlyReturnRequested, fmi3Float64 *earlyReturnTime);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

/* ---- common functions ---------------------------------------------------------------- */
typedef const char *fmi3GetVersionTYPE(void);
typedef fmi3Status fmi3SetDebugLoggingTYPE(fmi3Instance instance, fmi3Boolean loggingOn,
                                           size_t nCategories, const fmi3String categories[]);

typedef fmi3Instance fmi3InstantiateModelExchangeTYPE(
	fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
	fmi3LogMessageCallback logMessage);
typedef fmi3Instance fmi3InstantiateCoSimulationTYPE(
	fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
	fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
	size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
	fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate);
typedef fmi3Instance fmi3InstantiateScheduledExecutionTYPE(
	fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
	fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
	fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption);
typedef void fmi3FreeInstanceTYPE(fmi3Instance instance);

typedef fmi3Status fmi3EnterInitializationModeTYPE(fmi3Instance instance,
                                                   fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime);
typedef fmi3Status fmi3ExitInitializationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3EnterEventModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3TerminateTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ResetTYPE(fmi3Instance instance);

/* Getters and setters: one pair per type.  nValues counts array elements, so it can exceed
 * nValueReferences. */
#define FMI3_ACCESSOR_TYPES(Name, T)                                                         \
	typedef fmi3Status fmi3Get##Name##TYPE(fmi3Instance instance,                        \
	                                       const fmi3ValueReference valueReferences[],   \
	                                       size_t nValueReferences, T values[],          \
	                                       size_t nValues);                              \
	typedef fmi3Status fmi3Set##Name##TYPE(fmi3Instance instance,                        \
	                                       const fmi3ValueReference valueReferences[],   \
	                                       size_t nValueReferences, const T values[],    \
	                                       size_t nValues);
FMI3_ACCESSOR_TYPES(Float32, fmi3Float32)
FMI3_ACCESSOR_TYPES(Float64, fmi3Float64)
FMI3_ACCESSOR_TYPES(Int8, fmi3Int8)
FMI3_ACCESSOR_TYPES(UInt8, fmi3UInt8)
FMI3_ACCESSOR_TYPES(Int16, fmi3Int16)
FMI3_ACCESSOR_TYPES(UInt16, fmi3UInt16)
FMI3_ACCESSOR_TYPES(Int32, fmi3Int32)
FMI3_ACCESSOR_TYPES(UInt32, fmi3UInt32)
FMI3_ACCESSOR_TYPES(Int64, fmi3Int64)
FMI3_ACCESSOR_TYPES(UInt64, fmi3UInt64)
FMI3_ACCESSOR_TYPES(Boolean, fmi3Boolean)
FMI3_ACCESSOR_TYPES(String, fmi3String)
#undef FMI3_ACCESSOR_TYPES

typedef fmi3Status fmi3GetBinaryTYPE(fmi3Instance instance,
                                     const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, size_t valueSizes[],
                                     fmi3Binary values[], size_t nValues);
typedef fmi3Status fmi3SetBinaryTYPE(fmi3Instance instance,
                                     const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const size_t valueSizes[],
                                     const fmi3Binary values[], size_t nValues);
typedef fmi3Status fmi3GetClockTYPE(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Clock values[]);
typedef fmi3Status fmi3SetClockTYPE(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Clock values[]);

typedef fmi3Status fmi3GetNumberOfVariableDependenciesTYPE(fmi3Instance instance,
                                                           fmi3ValueReference valueReference,
                                                           size_t *nDependencies);
typedef fmi3Status fmi3GetVariableDependenciesTYPE(
	fmi3Instance instance, fmi3ValueReference dependent, size_t elementIndicesOfDependent[],
	fmi3ValueReference independents[], size_t elementIndicesOfIndependents[],
	fmi3DependencyKind dependencyKinds[], size_t nDependencies);

/* ---- FMU states ------------------------------------------------------------------------ */
typedef fmi3Status fmi3GetFMUStateTYPE(fmi3Instance instance, fmi3FMUState *FMUState);
typedef fmi3Status fmi3SetFMUStateTYPE(fmi3Instance instance, fmi3FMUState FMUState);
typedef fmi3Status fmi3FreeFMUStateTYPE(fmi3Instance instance, fmi3FMUState *FMUState);
typedef fmi3Status fmi3SerializedFMUStateSizeTYPE(fmi3Instance instance,
                                                  fmi3FMUState FMUState, size_t *size);
typedef fmi3Status fmi3SerializeFMUStateTYPE(fmi3Instance instance, fmi3FMUState FMUState,
                                             fmi3Byte serializedState[], size_t size);
typedef fmi3Status fmi3DeserializeFMUStateTYPE(fmi3Instance instance,
                                               const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState);

/* ---- derivatives, configuration, clocks ---------------------------------------------- */
typedef fmi3Status fmi3GetDirectionalDerivativeTYPE(
	fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
	const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
	fmi3Float64 sensitivity[], size_t nSensitivity);
typedef fmi3GetDirectionalDerivativeTYPE fmi3GetAdjointDerivativeTYPE;
typedef fmi3Status fmi3EnterConfigurationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ExitConfigurationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3GetIntervalDecimalTYPE(fmi3Instance instance,
                                              const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetIntervalFractionTYPE(fmi3Instance instance,
                                               const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetShiftDecimalTYPE(fmi3Instance instance,
                                           const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, fmi3Float64 shifts[]);
typedef fmi3Status fmi3GetShiftFractionTYPE(fmi3Instance instance,
                                            const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, fmi3UInt64 counters[],
                                            fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3SetIntervalDecimalTYPE(fmi3Instance instance,
                                              const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences,
                                              const fmi3Float64 intervals[]);
typedef fmi3Status fmi3SetIntervalFractionTYPE(fmi3Instance instance,
                                               const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences,
                                               const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3SetShiftDecimalTYPE(fmi3Instance instance,
                                           const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, const fmi3Float64 shifts[]);
typedef fmi3Status fmi3SetShiftFractionTYPE(fmi3Instance instance,
                                            const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences,
                                            const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3EvaluateDiscreteStatesTYPE(fmi3Instance instance);
typedef fmi3Status fmi3UpdateDiscreteStatesTYPE(fmi3Instance instance,
                                                fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined,
                                                fmi3Float64 *nextEventTime);

/* ---- Model Exchange (exported, refused by sacc's wrappers and test FMUs) ----------------- */
typedef fmi3Status fmi3EnterContinuousTimeModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3CompletedIntegratorStepTYPE(fmi3Instance instance,
                                                   fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode,
                                                   fmi3Boolean *terminateSimulation);
typedef fmi3Status fmi3SetTimeTYPE(fmi3Instance instance, fmi3Float64 time);
typedef fmi3Status fmi3SetContinuousStatesTYPE(fmi3Instance instance,
                                               const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetContinuousStateDerivativesTYPE(fmi3Instance instance,
                                                         fmi3Float64 derivatives[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetEventIndicatorsTYPE(fmi3Instance instance,
                                              fmi3Float64 eventIndicators[],
                                              size_t nEventIndicators);
typedef fmi3Status fmi3GetContinuousStatesTYPE(fmi3Instance instance,
                                               fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetNominalsOfContinuousStatesTYPE(fmi3Instance instance,
                                                         fmi3Float64 nominals[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetNumberOfEventIndicatorsTYPE(fmi3Instance instance,
                                                      size_t *nEventIndicators);
typedef fmi3Status fmi3GetNumberOfContinuousStatesTYPE(fmi3Instance instance,
                                                       size_t *nContinuousStates);

/* ---- Co-Simulation -------------------------------------------------------------------- */
typedef fmi3Status fmi3EnterStepModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3GetOutputDerivativesTYPE(fmi3Instance instance,
                                                const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences,
                                                const fmi3Int32 orders[], fmi3Float64 values[],
                                                size_t nValues);
typedef fmi3Status fmi3DoStepTYPE(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize,
                                  fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded,
                                  fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
                                  fmi3Float64 *lastSuccessfulTime);

/* ---- Scheduled Execution (exported, refused by sacc's wrappers and test FMUs) ---------- */
typedef fmi3Status fmi3ActivateModelPartitionTYPE(fmi3Instance instance,
                                                  fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime);

#endif
