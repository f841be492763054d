/* nodostep — a broken inner FMU for the runtime's tests: a library that exports every
 * FMI 2.0 function the runtime requires except fmi2DoStep (and none of the optional state
 * functions), so loading it must fail naming what is missing.  Nothing here is ever
 * called; each function only refuses. */
#include <stddef.h>

#include "fmi2Functions.h"

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
	(void)instanceName, (void)fmuType, (void)fmuGUID, (void)fmuResourceLocation;
	(void)functions, (void)visible, (void)loggingOn;
	return NULL;
}

void fmi2FreeInstance(fmi2Component c)
{
	(void)c;
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	(void)c, (void)toleranceDefined, (void)tolerance, (void)startTime;
	(void)stopTimeDefined, (void)stopTime;
	return fmi2Error;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	(void)c;
	return fmi2Error;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	(void)c;
	return fmi2Error;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	(void)c;
	return fmi2Error;
}

fmi2Status fmi2Reset(fmi2Component c)
{
	(void)c;
	return fmi2Error;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
	(void)c, (void)vr, (void)nvr, (void)value;
	return fmi2Error;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	(void)c, (void)s, (void)value;
	return fmi2Error;
}
