/* sart_fmi2.c — the FMI 2.0 Co-Simulation skin of a wrapper FMU: every exported fmi2*
 * function, translated into the version-free core (sart_core.h).  What is FMI 2.0's lives
 * here: its types and status values, the callbacks and their printf-like logger, the
 * resource location as a file: URI, which call is allowed in which state (the masks below,
 * as tests/fmus/kit/fmu_kit.c has them), the states' names in messages, and the calls FMI
 * 2.0 has that the core does not need (types platform, version, status queries, the
 * unsupported ones, and the Model Exchange functions, exported because importers look them
 * up and refused with a logged reason).  The importer's every-step calls (fmi2SetReal, fmi2DoStep, fmi2GetReal)
 * are one jump each to the model's (SartModel.set_real, do_step, get_real: the adaptation's
 * emitted ones, or the core's), which check the instance and its phase themselves.
 *
 * The FMI 3.0 skin, sart_fmi3.c, is a file like this one against the same core. */
#include <stdio.h>
#include <stdlib.h>

#include "fmi2/fmi2Functions.h"
#include "sart_core.h"
#include "sart_numfmt.h"

/* The FMI 2.0 Co-Simulation states in which each call is allowed. */
#define ALIVE SART_PHASE_ALIVE
#define INSTANTIATED SART_PHASE_INSTANTIATED
#define INIT SART_PHASE_INIT
#define STEP_COMPLETE SART_PHASE_STEP
#define GET (INIT | SART_PHASE_STEP | SART_PHASE_STEP_FAILED | SART_PHASE_TERMINATED | \
             SART_PHASE_ERROR)
#define SET (INSTANTIATED | INIT | SART_PHASE_STEP)
#define STATUS (SART_PHASE_STEP | SART_PHASE_STEP_FAILED | SART_PHASE_TERMINATED)

static const SartCall INSTANTIATE = {"fmi2Instantiate", 0};
static const SartCall FREE_INSTANCE = {"fmi2FreeInstance", ~0u};
static const SartCall SET_DEBUG_LOGGING = {"fmi2SetDebugLogging", ALIVE};
static const SartCall SETUP_EXPERIMENT = {"fmi2SetupExperiment", INSTANTIATED};
static const SartCall ENTER_INIT = {"fmi2EnterInitializationMode", INSTANTIATED};
static const SartCall EXIT_INIT = {"fmi2ExitInitializationMode", INIT};
static const SartCall TERMINATE = {"fmi2Terminate", STEP_COMPLETE | SART_PHASE_STEP_FAILED};
static const SartCall RESET = {"fmi2Reset", ALIVE};
static const SartCall GET_REAL = {"fmi2GetReal", GET};
static const SartCall GET_INTEGER = {"fmi2GetInteger", GET};
static const SartCall GET_BOOLEAN = {"fmi2GetBoolean", GET};
static const SartCall GET_STRING = {"fmi2GetString", GET};
static const SartCall SET_REAL = {"fmi2SetReal", SET};
static const SartCall SET_INTEGER = {"fmi2SetInteger", SET};
static const SartCall SET_BOOLEAN = {"fmi2SetBoolean", SET};
static const SartCall SET_STRING = {"fmi2SetString", SET};
static const SartCall SET_INPUT_DERIVATIVES = {"fmi2SetRealInputDerivatives",
                                               INSTANTIATED | INIT | STEP_COMPLETE};
static const SartCall GET_OUTPUT_DERIVATIVES = {"fmi2GetRealOutputDerivatives", GET};
static const SartCall GET_DIRECTIONAL = {"fmi2GetDirectionalDerivative", ALIVE};
static const SartCall DO_STEP = {"fmi2DoStep", STEP_COMPLETE};
static const SartCall CANCEL_STEP = {"fmi2CancelStep", ALIVE};
static const SartCall GET_STATUS = {"fmi2GetStatus", STATUS};
static const SartCall GET_REAL_STATUS = {"fmi2GetRealStatus", STATUS};
static const SartCall GET_INTEGER_STATUS = {"fmi2GetIntegerStatus", STATUS};
static const SartCall GET_BOOLEAN_STATUS = {"fmi2GetBooleanStatus", STATUS};
static const SartCall GET_STRING_STATUS = {"fmi2GetStringStatus", STATUS};
static const SartCall GET_STATE = {"fmi2GetFMUstate", ALIVE};
static const SartCall SET_STATE = {"fmi2SetFMUstate", ALIVE};
static const SartCall FREE_STATE = {"fmi2FreeFMUstate", ALIVE};
static const SartCall STATE_SIZE = {"fmi2SerializedFMUstateSize", ALIVE};
static const SartCall SERIALIZE = {"fmi2SerializeFMUstate", ALIVE};
static const SartCall DESERIALIZE = {"fmi2DeSerializeFMUstate", ALIVE};

static const char *phase_name(SartPhase p)
{
	switch (p) {
	case SART_PHASE_INSTANTIATED: return "instantiated";
	case SART_PHASE_INIT: return "initializationMode";
	case SART_PHASE_STEP: return "stepComplete";
	case SART_PHASE_STEP_FAILED: return "stepFailed";
	case SART_PHASE_TERMINATED: return "terminated";
	case SART_PHASE_ERROR: return "error";
	case SART_PHASE_FATAL: return "fatal";
	}
	return "?";
}

static const SartSkin skin = {phase_name, &GET_REAL, &SET_REAL, &DO_STEP, 0};

/* Sends msg to the importer's logger as a format with every '%' doubled: an FMI 2.0 logger
 * is printf-like, and a message may contain '%' from a port name or an inner FMU's text. */
static void log_message(const SartHost *host, const char *instance, SartStatus st,
                        const char *category, const char *msg)
{
	fmi2CallbackLogger logger = (fmi2CallbackLogger)host->logger;
	char esc[2048];
	size_t j = 0;
	if (!logger)
		return;
	for (const char *p = msg; *p && j + 2 < sizeof esc; p++) {
		if (*p == '%')
			esc[j++] = '%';
		esc[j++] = *p;
	}
	esc[j] = '\0';
	logger(host->env, instance, (fmi2Status)st, category, esc);
}

/* ---- creation and the life cycle ---------------------------------------------------------- */

const char *fmi2GetTypesPlatform(void)
{
	return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
	return fmi2Version;
}

/* Before an instance exists: through the importer's logger alone. */
static void refuse_instantiate(const SartHost *host, const char *instance, const char *why)
{
	log_message(host, instance, SART_ERROR, "logStatusError", why);
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
	char err[512], why[600];
	(void)visible;
	if (!functions || !functions->logger)
		return NULL;
	const SartHost host = {&skin, log_message, (void (*)(void))functions->logger,
	                       functions->componentEnvironment};
	if (!instanceName || !instanceName[0]) {
		refuse_instantiate(&host, "?", "fmi2Instantiate: the instance name is missing");
		return NULL;
	}
	if (fmuType != fmi2CoSimulation) {
		snprintf(why, sizeof why, "fmi2Instantiate: %s supports Co-Simulation only",
		         sart_model.identifier);
		refuse_instantiate(&host, instanceName, why);
		return NULL;
	}
	SartWrapper *w = sart_core_new(instanceName, fmuGUID, &host, loggingOn != fmi2False,
	                               &INSTANTIATE);
	if (!w)
		return NULL;
	char *resources = sart_uri_to_path(fmuResourceLocation, err, sizeof err);
	if (!resources) {
		sart_core_log(w, SART_ERROR, "fmi2Instantiate: bad resource location: %s", err);
		sart_core_free(w);
		return NULL;
	}
	sart_core_log_call(w, "fmi2Instantiate(%s, fmi2CoSimulation, %s, %s, visible = %d, "
	                   "loggingOn = %d)", instanceName, fmuGUID, fmuResourceLocation,
	                   (int)visible, (int)loggingOn);
	SartStatus st = sart_core_load_inners(w, resources, &INSTANTIATE);
	free(resources);
	if (st != SART_OK) {
		sart_core_free(w);
		return NULL;
	}
	return w;
}

void fmi2FreeInstance(fmi2Component c)
{
	SartWrapper *w = sart_core_enter(c, &FREE_INSTANCE);
	if (!w)
		return;
	sart_core_log_call(w, "fmi2FreeInstance()");
	sart_core_free(w);
}

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String cats[])
{
	SartWrapper *w = sart_core_enter(c, &SET_DEBUG_LOGGING);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2SetDebugLogging(loggingOn = %d, nCategories = %lu)",
	                   (int)loggingOn, (unsigned long)nCategories);
	return (fmi2Status)sart_core_set_logging(w, loggingOn != fmi2False, nCategories, cats,
	                                         &SET_DEBUG_LOGGING);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	SartWrapper *w = sart_core_enter(c, &SETUP_EXPERIMENT);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2SetupExperiment(toleranceDefined = %d, tolerance = %s, "
	                   "startTime = %s, stopTimeDefined = %d, stopTime = %s)",
	                   (int)toleranceDefined, SART_NUM(tolerance), SART_NUM(startTime),
	                   (int)stopTimeDefined,
	                   SART_NUM(stopTime));
	SartExperiment ex = {toleranceDefined != fmi2False, tolerance, startTime,
	                     stopTimeDefined != fmi2False, stopTime};
	return (fmi2Status)sart_core_setup_experiment(w, &ex, &SETUP_EXPERIMENT);
}

/* The calls that take no argument but the instance: entered, logged, handed on. */
static fmi2Status plain_call(fmi2Component c, const SartCall *call,
                             SartStatus (*op)(SartWrapper *w, const SartCall *call))
{
	SartWrapper *w = sart_core_enter(c, call);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "%s()", call->name);
	return (fmi2Status)op(w, call);
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	return plain_call(c, &ENTER_INIT, sart_core_enter_init);
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	return plain_call(c, &EXIT_INIT, sart_core_exit_init);
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	return plain_call(c, &TERMINATE, sart_core_terminate);
}

fmi2Status fmi2Reset(fmi2Component c)
{
	return plain_call(c, &RESET, sart_core_reset);
}

/* ---- getting and setting values ----------------------------------------------------------- */

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
	return (fmi2Status)sart_model.get_real(c, vr, nvr, value);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
	return (fmi2Status)sart_core_get(c, SART_INTEGER, vr, nvr, value, &GET_INTEGER);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
	return (fmi2Status)sart_core_get(c, SART_BOOLEAN, vr, nvr, value, &GET_BOOLEAN);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
	return (fmi2Status)sart_model.set_real(c, vr, nvr, value);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
	return (fmi2Status)sart_core_set(c, SART_INTEGER, vr, nvr, value, &SET_INTEGER);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
	return (fmi2Status)sart_core_set(c, SART_BOOLEAN, vr, nvr, value, &SET_BOOLEAN);
}

/* A call the wrapper refuses whenever it is allowed at all: logged, then the error why. */
static fmi2Status unsupported(fmi2Component c, const SartCall *call, const char *logged,
                              const char *why)
{
	SartWrapper *w = sart_core_enter(c, call);
	if (w) {
		sart_core_log_call(w, "%s", logged);
		sart_core_log(w, SART_ERROR, "%s", why);
	}
	return fmi2Error;
}

/* The strings got point into the wrapper's own copies, valid until the next call on the
 * instance, as FMI 2.0 asks; the strings set are copied. */
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
	return (fmi2Status)sart_core_get_strings(c, vr, nvr, value, &GET_STRING);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
	return (fmi2Status)sart_core_set_strings(c, vr, nvr, value, &SET_STRING);
}

/* ---- Model Exchange: exported because importers look it up, refused --------------------- */

/* A Model Exchange function called on the wrapper's instance: logged, then refused in every
 * state but fatal (where the core's refusal says the call is not allowed). */
static fmi2Status co_simulation_only(fmi2Component c, const char *name)
{
	char logged[96], why[256];
	const SartCall call = {name, ALIVE};
	snprintf(logged, sizeof logged, "%s()", name);
	snprintf(why, sizeof why, "%s: %s supports Co-Simulation only", name,
	         sart_model.identifier);
	return unsupported(c, &call, logged, why);
}

#include "fmi2/fmi2ModelExchangeRefused.h"

/* ---- stepping ----------------------------------------------------------------------------- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
	SartWrapper *w = sart_core_enter(c, &SET_INPUT_DERIVATIVES);
	if (!w)
		return fmi2Error;
	return (fmi2Status)sart_core_set_input_derivatives(w, vr, nvr, order, value,
	                                                   &SET_INPUT_DERIVATIVES);
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
	char logged[128], why[256];
	(void)vr, (void)order, (void)value;
	snprintf(logged, sizeof logged, "fmi2GetRealOutputDerivatives(nvr = %lu)",
	         (unsigned long)nvr);
	snprintf(why, sizeof why, "fmi2GetRealOutputDerivatives is not supported by %s "
	         "(maxOutputDerivativeOrder is 0)", sart_model.identifier);
	return unsupported(c, &GET_OUTPUT_DERIVATIVES, logged, why);
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
	char logged[128], why[256];
	(void)vUnknown_ref, (void)vKnown_ref, (void)dvKnown, (void)dvUnknown;
	snprintf(logged, sizeof logged, "fmi2GetDirectionalDerivative(nUnknown = %lu, nKnown = "
	         "%lu)", (unsigned long)nUnknown, (unsigned long)nKnown);
	snprintf(why, sizeof why, "fmi2GetDirectionalDerivative is not supported by %s",
	         sart_model.identifier);
	return unsupported(c, &GET_DIRECTIONAL, logged, why);
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real H,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	return (fmi2Status)sart_model.do_step(c, t, H, noSetFMUStatePriorToCurrentPoint);
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
	char why[256];
	snprintf(why, sizeof why, "fmi2CancelStep: %s never runs steps asynchronously",
	         sart_model.identifier);
	return unsupported(c, &CANCEL_STEP, "fmi2CancelStep()", why);
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
	char logged[64], why[128];
	(void)value;
	snprintf(logged, sizeof logged, "fmi2GetStatus(%d)", (int)s);
	snprintf(why, sizeof why, "fmi2GetStatus(%d): no asynchronous step is pending", (int)s);
	return unsupported(c, &GET_STATUS, logged, why);
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	SartWrapper *w = sart_core_enter(c, &GET_REAL_STATUS);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2GetRealStatus(%d)", (int)s);
	if (s != fmi2LastSuccessfulTime || !value) {
		sart_core_log(w, SART_ERROR, "fmi2GetRealStatus: only fmi2LastSuccessfulTime is "
		              "defined");
		return fmi2Error;
	}
	*value = sart_core_last_successful_time(w);
	return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
	char logged[64], why[128];
	(void)value;
	snprintf(logged, sizeof logged, "fmi2GetIntegerStatus(%d)", (int)s);
	snprintf(why, sizeof why, "fmi2GetIntegerStatus(%d) is not defined", (int)s);
	return unsupported(c, &GET_INTEGER_STATUS, logged, why);
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
	SartWrapper *w = sart_core_enter(c, &GET_BOOLEAN_STATUS);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2GetBooleanStatus(%d)", (int)s);
	if (s != fmi2Terminated || !value) {
		sart_core_log(w, SART_ERROR, "fmi2GetBooleanStatus: only fmi2Terminated is defined");
		return fmi2Error;
	}
	*value = fmi2False;
	return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
	char logged[64], why[128];
	(void)value;
	snprintf(logged, sizeof logged, "fmi2GetStringStatus(%d)", (int)s);
	snprintf(why, sizeof why, "fmi2GetStringStatus(%d): no asynchronous step is pending",
	         (int)s);
	return unsupported(c, &GET_STRING_STATUS, logged, why);
}

/* ---- FMU states --------------------------------------------------------------------------- */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	SartWrapper *w = sart_core_enter(c, &GET_STATE);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2GetFMUstate()");
	return (fmi2Status)sart_core_get_state(w, FMUstate, &GET_STATE);
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
	SartWrapper *w = sart_core_enter(c, &SET_STATE);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2SetFMUstate()");
	return (fmi2Status)sart_core_set_state(w, FMUstate, &SET_STATE);
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	SartWrapper *w = sart_core_enter(c, &FREE_STATE);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2FreeFMUstate()");
	return (fmi2Status)sart_core_free_state(w, FMUstate, &FREE_STATE);
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
	SartWrapper *w = sart_core_enter(c, &STATE_SIZE);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2SerializedFMUstateSize()");
	return (fmi2Status)sart_core_serialized_size(w, FMUstate, size, &STATE_SIZE);
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
	SartWrapper *w = sart_core_enter(c, &SERIALIZE);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2SerializeFMUstate(size = %lu)", (unsigned long)size);
	return (fmi2Status)sart_core_serialize(w, FMUstate, (unsigned char *)serializedState, size,
	                                       &SERIALIZE);
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
	SartWrapper *w = sart_core_enter(c, &DESERIALIZE);
	if (!w)
		return fmi2Error;
	sart_core_log_call(w, "fmi2DeSerializeFMUstate(size = %lu)", (unsigned long)size);
	return (fmi2Status)sart_core_deserialize(w, (const unsigned char *)serializedState, size,
	                                         FMUstate, &DESERIALIZE);
}
