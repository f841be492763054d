/* fmi3ModelExchangeRefused.h — the Model Exchange functions of an FMU that does not offer
 * Model Exchange: FMI 3.0 requires every function of fmi3Functions.h exported, and each of
 * these refuses.  Included once, by the file that exports the FMU's functions (the
 * wrapper's FMI 3.0 skin, the test FMUs' kit), after it has defined
 *
 *     static fmi3Status co_simulation_only(fmi3Instance instance, const char *function);
 *
 * which logs why on the instance and returns fmi3Error. */
#ifndef FMI3_MODEL_EXCHANGE_REFUSED_H
#define FMI3_MODEL_EXCHANGE_REFUSED_H

#include "fmi3Functions.h"

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
	return co_simulation_only(instance, "fmi3EnterContinuousTimeMode");
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
	(void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
	return co_simulation_only(instance, "fmi3CompletedIntegratorStep");
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
	(void)time;
	return co_simulation_only(instance, "fmi3SetTime");
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
	(void)continuousStates, (void)nContinuousStates;
	return co_simulation_only(instance, "fmi3SetContinuousStates");
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
	(void)derivatives, (void)nContinuousStates;
	return co_simulation_only(instance, "fmi3GetContinuousStateDerivatives");
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
	(void)eventIndicators, (void)nEventIndicators;
	return co_simulation_only(instance, "fmi3GetEventIndicators");
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
	(void)continuousStates, (void)nContinuousStates;
	return co_simulation_only(instance, "fmi3GetContinuousStates");
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
	(void)nominals, (void)nContinuousStates;
	return co_simulation_only(instance, "fmi3GetNominalsOfContinuousStates");
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
	(void)nEventIndicators;
	return co_simulation_only(instance, "fmi3GetNumberOfEventIndicators");
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
	(void)nContinuousStates;
	return co_simulation_only(instance, "fmi3GetNumberOfContinuousStates");
}

#endif
