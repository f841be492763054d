/* badstatus — a broken inner FMU for the runtime's tests: it instantiates and initializes,
 * but its answers are the ones a master must not take at face value.
 *
 *   fmi2ExitInitializationMode  logs a message longer than any log buffer, returns
 *                               fmi2Warning
 *   fmi2DoStep(t, h)            h < 1: fmi2Discard, and fmi2GetRealStatus then fails
 *                               1 <= h < 2: fmi2Discard, last successful time t + 2 h
 *                               2 <= h < 3: fmi2Pending (never asked for)
 *                               h >= 3: the status 42, which FMI does not define
 *   fmi2Terminate               releases the instance and returns fmi2Fatal: after that
 *                               the master may call nothing, not even fmi2FreeInstance,
 *                               and a call would touch freed memory
 *
 * It exports no state functions.  The instance remembers the step it was given and
 * nothing else; the library holds no globals. */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

typedef struct Bad {
	const fmi2CallbackFunctions *cb;
	char name[64];
	double t, h;
} Bad;

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
	(void)fmuType, (void)fmuGUID, (void)fmuResourceLocation, (void)visible, (void)loggingOn;
	Bad *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->cb = functions;
	strncpy(b->name, instanceName ? instanceName : "?", sizeof b->name - 1);
	return b;
}

void fmi2FreeInstance(fmi2Component c)
{
	free(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	(void)c, (void)toleranceDefined, (void)tolerance, (void)startTime;
	(void)stopTimeDefined, (void)stopTime;
	return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	(void)c;
	return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	Bad *b = c;
	char *long_text = malloc(5001);
	if (!long_text)
		return fmi2Error;
	memset(long_text, 'x', 5000);
	long_text[5000] = '\0';
	b->cb->logger(b->cb->componentEnvironment, b->name, fmi2Warning, "logStatusWarning",
	              "a long message: %s (end)", long_text);
	free(long_text);
	return fmi2Warning;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	free(c);
	return fmi2Fatal;
}

fmi2Status fmi2Reset(fmi2Component c)
{
	(void)c;
	return fmi2OK;
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

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	Bad *b = c;
	(void)noSetFMUStatePriorToCurrentPoint;
	b->t = t;
	b->h = h;
	if (h < 2)
		return fmi2Discard;
	if (h < 3)
		return fmi2Pending;
	return (fmi2Status)42;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	Bad *b = c;
	if (s != fmi2LastSuccessfulTime || b->h < 1)
		return fmi2Error;
	*value = b->t + 2 * b->h;
	return fmi2OK;
}
