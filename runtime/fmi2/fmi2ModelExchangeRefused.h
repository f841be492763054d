/* fmi2ModelExchangeRefused.h — the Model Exchange functions of a Co-Simulation-only FMU:
 * an FMU exports them all (strict importers resolve every function before instantiating),
 * and each one refuses.  Included once, by the file that exports the FMU's functions (the
 * wrapper's FMI 2.0 skin, the test FMUs' kit), after it has defined
 *
 *     static fmi2Status co_simulation_only(fmi2Component c, const char *function);
 *
 * which logs why on the instance and returns fmi2Error. */
#ifndef FMI2_MODEL_EXCHANGE_REFUSED_H
#define FMI2_MODEL_EXCHANGE_REFUSED_H

#include "fmi2Functions.h"

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
	return co_simulation_only(c, "fmi2EnterEventMode");
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *fmi2eventInfo)
{
	(void)fmi2eventInfo;
	return co_simulation_only(c, "fmi2NewDiscreteStates");
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
	return co_simulation_only(c, "fmi2EnterContinuousTimeMode");
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
	(void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
	return co_simulation_only(c, "fmi2CompletedIntegratorStep");
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
	(void)time;
	return co_simulation_only(c, "fmi2SetTime");
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
	(void)x, (void)nx;
	return co_simulation_only(c, "fmi2SetContinuousStates");
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
	(void)derivatives, (void)nx;
	return co_simulation_only(c, "fmi2GetDerivatives");
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
	(void)eventIndicators, (void)ni;
	return co_simulation_only(c, "fmi2GetEventIndicators");
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
	(void)x, (void)nx;
	return co_simulation_only(c, "fmi2GetContinuousStates");
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
	(void)x_nominal, (void)nx;
	return co_simulation_only(c, "fmi2GetNominalsOfContinuousStates");
}

#endif
