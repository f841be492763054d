/* me_fmi2.c — the FMI 2.0 skin of the Model Exchange test FMUs: every function of
 * runtime/fmi2/fmi2Functions.h over the version-free core (me_core.h).  Each function first
 * checks that its mode allows it (the masks below, after the standard's state machine and
 * the Reference FMUs'), then calls the core.  Co-Simulation is offered when the model has a
 * cs_step; otherwise fmi2Instantiate refuses fmi2CoSimulation, and the Co-Simulation
 * functions refuse an instance (there can be none). */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "me_core.h"

/* The importer's side, kept per instance. */
typedef struct Skin2 {
	fmi2CallbackLogger logger;
	fmi2ComponentEnvironment env;
	MeInstance *m;
	double start_time;
} Skin2;

enum {
	M_ANY_LIVE = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP | ME_TERMINATED,
	M_SETUP = ME_INSTANTIATED,
	M_TERMINATE = ME_EVENT | ME_CONTINUOUS | ME_STEP,
	M_GET = ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP | ME_TERMINATED,
	M_SET_REAL = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP,
	M_SET_DISCRETE = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_STEP,
	M_DIRECTIONAL = ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP | ME_TERMINATED,
	M_ENTER_EVENT = ME_EVENT | ME_CONTINUOUS,
	M_TIME = ME_EVENT | ME_CONTINUOUS,
	M_STATES_GET = ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_TERMINATED,
	M_DERIVATIVES = ME_EVENT | ME_CONTINUOUS | ME_TERMINATED,
	M_NOMINALS = ME_INSTANTIATED | ME_EVENT | ME_CONTINUOUS | ME_TERMINATED
};

static void skin2_log(void *skin_env, MeStatus status, const char *category, const char *msg)
{
	Skin2 *s = skin_env;
	/* msg goes through "%s": the logger takes a format. */
	s->logger(s->env, s->m ? s->m->name : "", (fmi2Status)status, category, "%s", msg);
}

static MeInstance *inst(fmi2Component c)
{
	return ((Skin2 *)c)->m;
}

/* The call is allowed in the instance's mode; with a null instance nothing is. */
#define CHECK(c, mask)                                                                        \
	do {                                                                                  \
		if (!(c))                                                                     \
			return fmi2Error;                                                     \
		if (!me_allowed(inst(c), __func__, (mask)))                                   \
			return fmi2Error;                                                     \
	} while (0)

#define CHECK_ME(c, mask)                                                                     \
	do {                                                                                  \
		CHECK(c, mask);                                                               \
		if (me_wrong_interface(inst(c), __func__, 0))                                 \
			return fmi2Error;                                                     \
	} while (0)

#define CHECK_CS(c, mask)                                                                     \
	do {                                                                                  \
		CHECK(c, mask);                                                               \
		if (me_wrong_interface(inst(c), __func__, 1))                                 \
			return fmi2Error;                                                     \
	} while (0)

/* ---- common ------------------------------------------------------------------------------ */

const char *fmi2GetTypesPlatform(void)
{
	return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
	return fmi2Version;
}

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
	(void)nCategories, (void)categories;
	CHECK(c, M_ANY_LIVE);
	inst(c)->logging_on = loggingOn != fmi2False;
	return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
	Skin2 *s;
	const char *why = NULL;
	(void)fmuResourceLocation, (void)visible;
	if (!functions || !functions->logger)
		return NULL;
	if (!instanceName || !*instanceName)
		why = "fmi2Instantiate: no instance name";
	else if (!fmuGUID || strcmp(fmuGUID, me_model.token) != 0)
		why = "fmi2Instantiate: the GUID is not this FMU's";
	else if (fmuType == fmi2CoSimulation && !(me_model.cs_step > 0.0))
		why = "fmi2Instantiate: this FMU offers Model Exchange only";
	else if (fmuType != fmi2CoSimulation && fmuType != fmi2ModelExchange)
		why = "fmi2Instantiate: unknown FMU type";
	if (why) {
		functions->logger(functions->componentEnvironment, instanceName ? instanceName : "",
		                  fmi2Error, "logStatusError", "%s", why);
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->logger = functions->logger;
	s->env = functions->componentEnvironment;
	s->m = me_new(instanceName, fmuType == fmi2CoSimulation, skin2_log, s);
	if (!s->m) {
		free(s);
		return NULL;
	}
	s->m->logging_on = loggingOn != fmi2False;
	return s;
}

void fmi2FreeInstance(fmi2Component c)
{
	if (!c)
		return;
	me_free(inst(c));
	free(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	(void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
	CHECK(c, M_SETUP);
	((Skin2 *)c)->start_time = startTime;
	return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	CHECK(c, ME_INSTANTIATED);
	return (fmi2Status)me_enter_init(inst(c), __func__, ((Skin2 *)c)->start_time);
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	CHECK(c, ME_INIT);
	return (fmi2Status)me_exit_init(inst(c), __func__);
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	CHECK(c, M_TERMINATE);
	return (fmi2Status)me_terminate(inst(c), __func__);
}

fmi2Status fmi2Reset(fmi2Component c)
{
	CHECK(c, M_ANY_LIVE);
	me_reset(inst(c));
	((Skin2 *)c)->start_time = 0.0;
	return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
	CHECK(c, M_GET);
	return (fmi2Status)me_get_real(inst(c), __func__, vr, nvr, value);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
	CHECK(c, M_GET);
	return (fmi2Status)me_get_int(inst(c), __func__, vr, nvr, value);
}

/* No Boolean or String variables: any value reference is unknown. */
static fmi2Status no_such_type(fmi2Component c, const char *fn, size_t nvr,
                               const fmi2ValueReference vr[])
{
	return (fmi2Status)me_no_such_type(inst(c), fn, nvr, vr);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
	(void)value;
	CHECK(c, M_GET);
	return no_such_type(c, __func__, nvr, vr);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
	(void)value;
	CHECK(c, M_GET);
	return no_such_type(c, __func__, nvr, vr);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
	CHECK(c, M_SET_REAL);
	return (fmi2Status)me_set_real(inst(c), __func__, vr, nvr, value);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
	CHECK(c, M_SET_DISCRETE);
	return (fmi2Status)me_set_int(inst(c), __func__, vr, nvr, value);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
	(void)value;
	CHECK(c, M_SET_DISCRETE);
	return no_such_type(c, __func__, nvr, vr);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
	(void)value;
	CHECK(c, M_SET_DISCRETE);
	return no_such_type(c, __func__, nvr, vr);
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	CHECK(c, M_ANY_LIVE);
	return (fmi2Status)me_get_state(inst(c), __func__, FMUstate);
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
	CHECK(c, M_ANY_LIVE);
	return (fmi2Status)me_set_state(inst(c), __func__, FMUstate);
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	CHECK(c, M_ANY_LIVE);
	return (fmi2Status)me_free_state(inst(c), __func__, FMUstate);
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
	(void)FMUstate;
	CHECK(c, M_ANY_LIVE);
	*size = me_serialized_size();
	return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                 size_t size)
{
	CHECK(c, M_ANY_LIVE);
	return (fmi2Status)me_serialize(inst(c), __func__, FMUstate, (unsigned char *)serializedState,
	                                size);
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate)
{
	CHECK(c, M_ANY_LIVE);
	return (fmi2Status)me_deserialize(inst(c), __func__, (const unsigned char *)serializedState,
	                                  size, FMUstate);
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
	CHECK(c, M_DIRECTIONAL);
	return (fmi2Status)me_directional(inst(c), __func__, vUnknown_ref, nUnknown, vKnown_ref,
	                                  nKnown, dvKnown, dvUnknown);
}

/* ---- Model Exchange ---------------------------------------------------------------------- */

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
	CHECK_ME(c, M_ENTER_EVENT);
	return (fmi2Status)me_enter_event_mode(inst(c), __func__);
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info)
{
	MeEventInfo e;
	fmi2Status s;
	CHECK_ME(c, ME_EVENT);
	s = (fmi2Status)me_update_discrete(inst(c), __func__, &e);
	if (s > fmi2Warning)
		return s;
	info->newDiscreteStatesNeeded = e.discrete_states_need_update ? fmi2True : fmi2False;
	info->terminateSimulation = e.terminate_simulation ? fmi2True : fmi2False;
	info->nominalsOfContinuousStatesChanged = e.nominals_changed ? fmi2True : fmi2False;
	info->valuesOfContinuousStatesChanged = e.values_changed ? fmi2True : fmi2False;
	info->nextEventTimeDefined = e.next_event_time_defined ? fmi2True : fmi2False;
	info->nextEventTime = e.next_event_time_defined ? e.next_event_time : 0.0;
	return s;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
	CHECK_ME(c, ME_EVENT);
	return (fmi2Status)me_enter_continuous(inst(c), __func__);
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
	int ev, term;
	fmi2Status s;
	(void)noSetFMUStatePriorToCurrentPoint;
	CHECK_ME(c, ME_CONTINUOUS);
	s = (fmi2Status)me_completed_step(inst(c), __func__, &ev, &term);
	*enterEventMode = ev ? fmi2True : fmi2False;
	*terminateSimulation = term ? fmi2True : fmi2False;
	return s;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
	CHECK_ME(c, M_TIME);
	return (fmi2Status)me_set_time(inst(c), __func__, time);
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
	CHECK_ME(c, ME_CONTINUOUS);
	return (fmi2Status)me_set_states(inst(c), __func__, x, nx);
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
	CHECK_ME(c, M_DERIVATIVES);
	return (fmi2Status)me_get_derivatives(inst(c), __func__, derivatives, nx);
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
	CHECK_ME(c, M_STATES_GET);
	return (fmi2Status)me_get_indicators(inst(c), __func__, eventIndicators, ni);
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
	CHECK_ME(c, M_STATES_GET);
	return (fmi2Status)me_get_states(inst(c), __func__, x, nx);
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
	CHECK_ME(c, M_NOMINALS);
	return (fmi2Status)me_get_nominals(inst(c), __func__, x_nominal, nx);
}

/* ---- Co-Simulation ----------------------------------------------------------------------- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
	(void)vr, (void)order, (void)value;
	CHECK_CS(c, ME_INSTANTIATED | ME_INIT | ME_STEP);
	if (nvr == 0)
		return fmi2OK;
	me_logf(inst(c), ME_ERROR, "%s: input derivatives are not supported", __func__);
	return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[], fmi2Real value[])
{
	(void)vr, (void)order, (void)value;
	CHECK_CS(c, ME_STEP | ME_TERMINATED);
	if (nvr == 0)
		return fmi2OK;
	me_logf(inst(c), ME_ERROR, "%s: output derivatives are not supported", __func__);
	return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	int ev, term;
	(void)noSetFMUStatePriorToCurrentPoint;
	CHECK_CS(c, ME_STEP);
	return (fmi2Status)me_do_step(inst(c), __func__, currentCommunicationPoint,
	                              communicationStepSize, &ev, &term);
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
	CHECK_CS(c, ME_STEP);
	me_logf(inst(c), ME_ERROR, "%s: steps finish before fmi2DoStep returns", __func__);
	return fmi2Error;
}

/* The steps are synchronous: there is never a status to ask for. */
static fmi2Status no_status(fmi2Component c, const char *fn)
{
	if (!c || !me_allowed(inst(c), fn, ME_STEP | ME_TERMINATED) ||
	    me_wrong_interface(inst(c), fn, 1))
		return fmi2Error;
	me_logf(inst(c), ME_DISCARD, "%s: no asynchronous step has run", fn);
	return fmi2Discard;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
	(void)s, (void)value;
	return no_status(c, __func__);
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	if (c && s == fmi2LastSuccessfulTime && inst(c)->d.is_cs) {
		*value = inst(c)->d.time;
		return fmi2OK;
	}
	(void)value;
	return no_status(c, __func__);
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
	(void)s, (void)value;
	return no_status(c, __func__);
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
	(void)s, (void)value;
	return no_status(c, __func__);
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
	(void)s, (void)value;
	return no_status(c, __func__);
}
