/* sart_fmi3.c — the FMI 3.0 Co-Simulation skin of a wrapper FMU: every exported fmi3*
 * function, translated into the version-free core (sart_core.h).  What is FMI 3.0's lives
 * here: its types and status values, the logger (plain text), the resource path (a
 * directory, no URI), which call is allowed in which state (the masks below), the states'
 * names in messages, and the calls FMI 3.0 has that the wrapper does not support.
 *
 * Types and value references.  FMI 3.0 wants one value reference per variable across all
 * types, where the core numbers each type from 0.  The model description (compiler's
 * emit_md3.c) gives the Reals their own numbers 0..R-1, the independent variable `time` R,
 * the Integers (as Int32) R+1.., the Booleans after them, the Strings last; the getters and setters here
 * take those offsets off.  fmi3GetFloat64 and fmi3SetFloat64, the importer's every-step
 * calls, are one jump each to the model's (SartModel.get_real, set_real), as FMI 2.0's.
 * Integers are Int32 because the core keeps them as int, as FMI 2.0 does: no value is
 * narrowed on the way.  An Enumeration the wrapper carries from an inner is one of those
 * Integers, declared Enumeration and so reached through fmi3GetInt64 and fmi3SetInt64 (a
 * value beyond an int is an error, never cut short).  Booleans convert between bool
 * and int at the boundary.  The Strings got point into the wrapper's own copies, valid
 * until the next call on the instance; the Strings set are copied.
 *
 * Other interfaces.  An FMU exports every fmi3* function, whatever it implements (importers
 * look them all up when they load it): the Model Exchange and Scheduled Execution ones are
 * here, their instantiation returning NULL and the others fmi3Error, each after logging why.
 *
 * The step.  The wrapper has no Event Mode (hasEventMode false): eventHandlingNeeded is
 * always false.  A step the control rules cut short (a crossing located, a periodic instant,
 * an inner discard) ends early at the instant they found when the importer allowed early
 * return and the core could return to t (sart_core_do_step_early); otherwise it is
 * fmi3Discard with lastSuccessfulTime where the rules got to. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmi3/fmi3Functions.h"
#include "sart_core.h"
#include "sart_numfmt.h"

/* The FMI 3.0 Co-Simulation states in which each call is allowed.  SART_PHASE_STEP_FAILED
 * is Step Mode after a discarded step. */
#define ALIVE SART_PHASE_ALIVE
#define INSTANTIATED SART_PHASE_INSTANTIATED
#define INIT SART_PHASE_INIT
#define STEP SART_PHASE_STEP
#define GET (INIT | STEP | SART_PHASE_STEP_FAILED | SART_PHASE_TERMINATED | SART_PHASE_ERROR)
#define SET (INSTANTIATED | INIT | STEP)
#define NEVER 0u /* the states of Event Mode and Configuration Mode, never entered */

static const SartCall INSTANTIATE = {"fmi3InstantiateCoSimulation", 0};
static const SartCall FREE_INSTANCE = {"fmi3FreeInstance", ~0u};
static const SartCall SET_DEBUG_LOGGING = {"fmi3SetDebugLogging", ALIVE};
static const SartCall ENTER_INIT = {"fmi3EnterInitializationMode", INSTANTIATED};
static const SartCall EXIT_INIT = {"fmi3ExitInitializationMode", INIT};
static const SartCall ENTER_EVENT_MODE = {"fmi3EnterEventMode", STEP};
static const SartCall TERMINATE = {"fmi3Terminate", STEP | SART_PHASE_STEP_FAILED};
static const SartCall RESET = {"fmi3Reset", ALIVE};
static const SartCall GET_FLOAT64 = {"fmi3GetFloat64", GET};
static const SartCall SET_FLOAT64 = {"fmi3SetFloat64", SET};
static const SartCall GET_INT32 = {"fmi3GetInt32", GET};
static const SartCall SET_INT32 = {"fmi3SetInt32", SET};
/* Enumerations are Int64 in FMI 3.0: the wrapper's (Integers that carry an inner's
 * Enumeration) are read and set through these, and so may any other Integer be. */
static const SartCall GET_INT64 = {"fmi3GetInt64", GET};
static const SartCall SET_INT64 = {"fmi3SetInt64", SET};
static const SartCall GET_BOOLEAN = {"fmi3GetBoolean", GET};
static const SartCall GET_STRING = {"fmi3GetString", GET};
static const SartCall SET_STRING = {"fmi3SetString", SET};
static const SartCall GET_BINARY = {"fmi3GetBinary", GET};
static const SartCall SET_BINARY = {"fmi3SetBinary", SET};
static const SartCall SET_BOOLEAN = {"fmi3SetBoolean", SET};
static const SartCall GET_OTHER = {"fmi3Get", GET}; /* the types the wrapper has none of */
static const SartCall SET_OTHER = {"fmi3Set", SET};
static const SartCall CLOCKS = {"clocks", ALIVE};
static const SartCall DEPENDENCIES = {"dependencies", ALIVE};
static const SartCall GET_STATE = {"fmi3GetFMUState", ALIVE};
static const SartCall SET_STATE = {"fmi3SetFMUState", ALIVE};
static const SartCall FREE_STATE = {"fmi3FreeFMUState", ALIVE};
static const SartCall STATE_SIZE = {"fmi3SerializedFMUStateSize", ALIVE};
static const SartCall SERIALIZE = {"fmi3SerializeFMUState", ALIVE};
static const SartCall DESERIALIZE = {"fmi3DeserializeFMUState", ALIVE};
static const SartCall DERIVATIVES = {"derivatives", ALIVE};
static const SartCall ENTER_CONFIGURATION = {"fmi3EnterConfigurationMode", INSTANTIATED | STEP};
static const SartCall EXIT_CONFIGURATION = {"fmi3ExitConfigurationMode", NEVER};
static const SartCall EVALUATE_DISCRETE = {"fmi3EvaluateDiscreteStates", NEVER};
static const SartCall UPDATE_DISCRETE = {"fmi3UpdateDiscreteStates", NEVER};
static const SartCall ENTER_STEP_MODE = {"fmi3EnterStepMode", NEVER};
static const SartCall GET_OUTPUT_DERIVATIVES = {"fmi3GetOutputDerivatives", GET};
static const SartCall DO_STEP = {"fmi3DoStep", STEP};
/* The functions of Model Exchange and Scheduled Execution: refused with the reason in every
 * state but Fatal. */
static const SartCall OTHER_INTERFACE = {"other interfaces", ALIVE};

static const char *phase_name(SartPhase p)
{
	switch (p) {
	case SART_PHASE_INSTANTIATED: return "Instantiated";
	case SART_PHASE_INIT: return "Initialization Mode";
	case SART_PHASE_STEP: return "Step Mode";
	case SART_PHASE_STEP_FAILED: return "Step Mode after a discarded step";
	case SART_PHASE_TERMINATED: return "Terminated";
	case SART_PHASE_ERROR: return "Error";
	case SART_PHASE_FATAL: return "Fatal";
	}
	return "?";
}

static const SartSkin skin = {phase_name, &GET_FLOAT64, &SET_FLOAT64, &DO_STEP, 1};

/* FMI 3.0's logger takes the message as it is: no format, no instance name. */
static void log_message(const SartHost *host, const char *instance, SartStatus st,
                        const char *category, const char *msg)
{
	fmi3LogMessageCallback logger = (fmi3LogMessageCallback)host->logger;
	(void)instance;
	if (logger)
		logger(host->env, (fmi3Status)st, category, msg);
}

/* ---- creation and the life cycle ---------------------------------------------------------- */

const char *fmi3GetVersion(void)
{
	return fmi3Version;
}

static void refuse_instantiate(const SartHost *host, const char *why)
{
	log_message(host, NULL, SART_ERROR, "logStatusError", why);
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String token,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn, fmi3InstanceEnvironment env,
                                          fmi3LogMessageCallback logMessage)
{
	char why[256];
	const SartHost host = {&skin, log_message, (void (*)(void))logMessage, env};
	(void)instanceName, (void)token, (void)resourcePath, (void)visible, (void)loggingOn;
	snprintf(why, sizeof why, "fmi3InstantiateModelExchange: %s supports Co-Simulation only",
	         sart_model.identifier);
	refuse_instantiate(&host, why);
	return NULL;
}

fmi3Instance fmi3InstantiateScheduledExecution(
	fmi3String instanceName, fmi3String token, fmi3String resourcePath, fmi3Boolean visible,
	fmi3Boolean loggingOn, fmi3InstanceEnvironment env, fmi3LogMessageCallback logMessage,
	fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
	fmi3UnlockPreemptionCallback unlockPreemption)
{
	char why[256];
	const SartHost host = {&skin, log_message, (void (*)(void))logMessage, env};
	(void)instanceName, (void)token, (void)resourcePath, (void)visible, (void)loggingOn;
	(void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
	snprintf(why, sizeof why, "fmi3InstantiateScheduledExecution: %s supports Co-Simulation "
	         "only", sart_model.identifier);
	refuse_instantiate(&host, why);
	return NULL;
}

/* What the importer asked for that the wrapper cannot give: NULL when it can. */
static const char *refusal(fmi3String instanceName, size_t nRequired)
{
	if (!instanceName || !instanceName[0])
		return "fmi3InstantiateCoSimulation: the instance name is missing";
	if (nRequired)
		return "fmi3InstantiateCoSimulation: the wrapper provides no intermediate update, so "
		       "no variable can be required for it";
	return NULL;
}

fmi3Instance fmi3InstantiateCoSimulation(
	fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
	fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
	size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
	fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate)
{
	(void)visible, (void)requiredIntermediateVariables, (void)intermediateUpdate;
	const SartHost host = {&skin, log_message, (void (*)(void))logMessage,
	                       instanceEnvironment};
	const char *why = refusal(instanceName, nRequiredIntermediateVariables);
	if (why) {
		refuse_instantiate(&host, why);
		return NULL;
	}
	SartWrapper *w = sart_core_new(instanceName, instantiationToken, &host, loggingOn,
	                               &INSTANTIATE);
	if (!w)
		return NULL;
	sart_core_log_call(w, "fmi3InstantiateCoSimulation(%s, %s, %s, visible = %d, loggingOn = "
	                   "%d, eventModeUsed = %d, earlyReturnAllowed = %d)", instanceName,
	                   instantiationToken, resourcePath ? resourcePath : "NULL", (int)visible,
	                   (int)loggingOn, (int)eventModeUsed, (int)earlyReturnAllowed);
	if (eventModeUsed)
		sart_core_log(w, SART_WARNING, "fmi3InstantiateCoSimulation: %s has no Event Mode "
		              "(hasEventMode is false): eventModeUsed is ignored",
		              sart_model.identifier);
	if (!resourcePath && sart_model.ninners) {
		sart_core_log(w, SART_ERROR, "fmi3InstantiateCoSimulation: no resource path: the "
		              "inner FMUs are under resources/");
		sart_core_free(w);
		return NULL;
	}
	sart_core_set_stop_early(w, earlyReturnAllowed);
	if (sart_core_load_inners(w, resourcePath ? resourcePath : "", &INSTANTIATE) != SART_OK) {
		sart_core_free(w);
		return NULL;
	}
	return w;
}

void fmi3FreeInstance(fmi3Instance instance)
{
	SartWrapper *w = sart_core_enter(instance, &FREE_INSTANCE);
	if (!w)
		return;
	sart_core_log_call(w, "fmi3FreeInstance()");
	sart_core_free(w);
}

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn,
                               size_t nCategories, const fmi3String categories[])
{
	SartWrapper *w = sart_core_enter(instance, &SET_DEBUG_LOGGING);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3SetDebugLogging(loggingOn = %d, nCategories = %lu)",
	                   (int)loggingOn, (unsigned long)nCategories);
	return (fmi3Status)sart_core_set_logging(w, loggingOn, nCategories, categories,
	                                         &SET_DEBUG_LOGGING);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
	SartWrapper *w = sart_core_enter(instance, &ENTER_INIT);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3EnterInitializationMode(toleranceDefined = %d, tolerance = "
	                   "%s, startTime = %s, stopTimeDefined = %d, stopTime = %s)",
	                   (int)toleranceDefined, SART_NUM(tolerance), SART_NUM(startTime),
	                   (int)stopTimeDefined,
	                   SART_NUM(stopTime));
	SartExperiment ex = {toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime};
	SartStatus st = sart_core_setup_experiment(w, &ex, &ENTER_INIT);
	if (st >= SART_ERROR)
		return (fmi3Status)st;
	SartStatus st2 = sart_core_enter_init(w, &ENTER_INIT);
	return (fmi3Status)(st2 > st ? st2 : st);
}

/* The calls that take no argument but the instance: entered, logged, handed on. */
static fmi3Status plain_call(fmi3Instance instance, const SartCall *call,
                             SartStatus (*op)(SartWrapper *w, const SartCall *call))
{
	SartWrapper *w = sart_core_enter(instance, call);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "%s()", call->name);
	return (fmi3Status)op(w, call);
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
	return plain_call(instance, &EXIT_INIT, sart_core_exit_init);
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
	return plain_call(instance, &TERMINATE, sart_core_terminate);
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
	return plain_call(instance, &RESET, sart_core_reset);
}

/* A call the wrapper refuses whenever it is allowed at all: logged, then the error why.
 * name is the FMI function (call->name may be a group's). */
static fmi3Status unsupported(fmi3Instance instance, const SartCall *call, const char *name,
                              const char *why)
{
	SartCall named = {name, call->allowed};
	SartWrapper *w = sart_core_enter(instance, &named);
	if (w) {
		sart_core_log_call(w, "%s()", name);
		sart_core_log(w, SART_ERROR, "%s: %s", name, why);
	}
	return fmi3Error;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
	return unsupported(instance, &ENTER_EVENT_MODE, ENTER_EVENT_MODE.name,
	                   "the wrapper has no Event Mode (hasEventMode is false)");
}

/* ---- getting and setting values ----------------------------------------------------------- */

#ifdef SART_ARRAYS
#include "sart_fmi3_arrays.h"

static fmi3Status get_reals(fmi3Instance instance, const SartCall *call, SartType t,
                            const fmi3ValueReference vr[], size_t nvr, void *values,
                            size_t nValues)
{
	(void)call, (void)t, (void)nValues;
	return (fmi3Status)sart_model.get_real(instance, vr, nvr, values);
}

static fmi3Status set_reals(fmi3Instance instance, const SartCall *call, SartType t,
                            const fmi3ValueReference vr[], size_t nvr, void *values,
                            size_t nValues)
{
	(void)call, (void)t, (void)nValues;
	return (fmi3Status)sart_model.set_real(instance, vr, nvr, values);
}
#endif

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 values[], size_t nValues)
{
#ifdef SART_ARRAYS
	return sart_fmi3_arrays(instance, &GET_FLOAT64, SART_REAL, 0, vr, nvr, values, nValues,
	                        get_reals);
#else
	(void)nValues; /* no arrays: nValues is nvr */
	return (fmi3Status)sart_model.get_real(instance, vr, nvr, values);
#endif
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues)
{
#ifdef SART_ARRAYS
	return sart_fmi3_arrays(instance, &SET_FLOAT64, SART_REAL, 0, vr, nvr, (void *)values,
	                        nValues, set_reals);
#else
	(void)nValues;
	return (fmi3Status)sart_model.set_real(instance, vr, nvr, values);
#endif
}

/* The first value reference of type t in the model description (see the top). */
static unsigned first_vr(SartType t)
{
	unsigned base = sart_model.nvr[SART_REAL] + 1;
	if (t == SART_BOOLEAN || t == SART_STRING || t == SART_BINARY)
		base += sart_model.nvr[SART_INTEGER];
	if (t == SART_STRING || t == SART_BINARY)
		base += sart_model.nvr[SART_BOOLEAN];
	if (t == SART_BINARY)
		base += sart_model.nvr[SART_STRING];
	return base;
}

/* Values go to the core in chunks, their value references translated to the core's. */
#define CHUNK 64

/* The core's value references of vr[0..n-1] into out; SART_ERROR (logged) for one that is
 * not of type t. */
static SartStatus translate(fmi3Instance instance, const SartCall *call, SartType t,
                            const fmi3ValueReference vr[], size_t n, SartVr out[])
{
	const unsigned base = first_vr(t);
	for (size_t i = 0; i < n; i++) {
		if (vr[i] < base || vr[i] - base >= sart_model.nvr[t]) {
			SartWrapper *w = sart_core_enter(instance, call);
			if (w)
				sart_core_log(w, SART_ERROR, "%s: unknown value reference %u", call->name,
				              (unsigned)vr[i]);
			return SART_ERROR;
		}
		out[i] = vr[i] - base;
	}
	return SART_OK;
}

/* The checks every non-Real get or set makes before its chunks. */
static int bad_arguments(fmi3Instance instance, const SartCall *call, const void *vr,
                         size_t nvr, const void *values, size_t nValues)
{
	SartWrapper *w = sart_core_enter(instance, call);
	if (!w)
		return 1;
	if (nvr && (!vr || !values)) {
		sart_core_log(w, SART_ERROR, "%s: NULL value reference or value array", call->name);
		return 1;
	}
	if (nValues != nvr) {
		sart_core_log(w, SART_ERROR, "%s: %lu values for %lu value references (the wrapper "
		              "has no arrays)", call->name, (unsigned long)nValues,
		              (unsigned long)nvr);
		return 1;
	}
	return 0;
}

static SartStatus worse(SartStatus a, SartStatus b)
{
	return a > b ? a : b;
}

/* Whether an Int64 set fits the core's int; an error naming it otherwise, never a value
 * cut short. */
static int int64_fits(fmi3Instance instance, fmi3ValueReference vr, fmi3Int64 value)
{
	if (value >= INT_MIN && value <= INT_MAX)
		return 1;
	SartWrapper *w = sart_core_enter(instance, &SET_INT64);
	if (w)
		sart_core_log(w, SART_ERROR, "fmi3SetInt64: the value %lld for value reference %u "
		              "does not fit an Integer (32 bits)", (long long)value, (unsigned)vr);
	return 0;
}

/* Integers and Booleans through the core's int values, Strings as the core's text (the
 * wrapper's own copies), CHUNK value references at a time. */
static fmi3Status get_discrete_values(fmi3Instance instance, const SartCall *call, SartType t,
                           const fmi3ValueReference vr[], size_t nvr, void *values,
                           size_t nValues)
{
	SartVr cvr[CHUNK];
	int v[CHUNK];
	SartStatus st = SART_OK;
	if (bad_arguments(instance, call, vr, nvr, values, nValues))
		return fmi3Error;
	for (size_t at = 0; at < nvr; at += CHUNK) {
		size_t n = nvr - at < CHUNK ? nvr - at : CHUNK;
		if (translate(instance, call, t, vr + at, n, cvr) != SART_OK)
			return fmi3Error;
		if (t == SART_STRING) {
			st = worse(st, sart_core_get_strings(instance, cvr, n,
			                                     (fmi3String *)values + at, call));
			if (st >= SART_ERROR)
				break;
			continue;
		}
		st = worse(st, sart_core_get(instance, t, cvr, n, v, call));
		if (st >= SART_ERROR)
			return (fmi3Status)st;
		for (size_t i = 0; i < n; i++) {
			if (t == SART_BOOLEAN)
				((fmi3Boolean *)values)[at + i] = v[i] != 0;
			else if (call == &GET_INT64)
				((fmi3Int64 *)values)[at + i] = v[i];
			else
				((fmi3Int32 *)values)[at + i] = v[i];
		}
	}
	return (fmi3Status)st;
}

static fmi3Status set_discrete_values(fmi3Instance instance, const SartCall *call, SartType t,
                           const fmi3ValueReference vr[], size_t nvr, void *values,
                           size_t nValues)
{
	SartVr cvr[CHUNK];
	int v[CHUNK];
	SartStatus st = SART_OK;
	if (bad_arguments(instance, call, vr, nvr, values, nValues))
		return fmi3Error;
	for (size_t at = 0; at < nvr; at += CHUNK) {
		size_t n = nvr - at < CHUNK ? nvr - at : CHUNK;
		if (translate(instance, call, t, vr + at, n, cvr) != SART_OK)
			return fmi3Error;
		if (t == SART_STRING) {
			st = worse(st, sart_core_set_strings(instance, cvr, n,
			                                     (const fmi3String *)values + at, call));
			if (st >= SART_ERROR)
				break;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (t == SART_BOOLEAN)
				v[i] = ((const fmi3Boolean *)values)[at + i] ? 1 : 0;
			else if (call == &SET_INT64 && !int64_fits(instance, vr[at + i],
			                                          ((const fmi3Int64 *)values)[at + i]))
				return fmi3Error;
			else if (call == &SET_INT64)
				v[i] = (int)((const fmi3Int64 *)values)[at + i];
			else
				v[i] = ((const fmi3Int32 *)values)[at + i];
		}
		st = worse(st, sart_core_set(instance, t, cvr, n, v, call));
		if (st >= SART_ERROR)
			break;
	}
	return (fmi3Status)st;
}

/* The value calls of the types but Float64, arrays expanded when the wrapper has any. */
static fmi3Status get_discrete(fmi3Instance instance, const SartCall *call, SartType t,
                               const fmi3ValueReference vr[], size_t nvr, void *values,
                               size_t nValues)
{
#ifdef SART_ARRAYS
	return sart_fmi3_arrays(instance, call, t, first_vr(t), vr, nvr, values, nValues,
	                        get_discrete_values);
#else
	return get_discrete_values(instance, call, t, vr, nvr, values, nValues);
#endif
}

static fmi3Status set_discrete(fmi3Instance instance, const SartCall *call, SartType t,
                               const fmi3ValueReference vr[], size_t nvr, const void *values,
                               size_t nValues)
{
#ifdef SART_ARRAYS
	return sart_fmi3_arrays(instance, call, t, first_vr(t), vr, nvr, (void *)values, nValues,
	                        set_discrete_values);
#else
	return set_discrete_values(instance, call, t, vr, nvr, (void *)values, nValues);
#endif
}

fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Int32 values[], size_t nValues)
{
	return get_discrete(instance, &GET_INT32, SART_INTEGER, vr, nvr, values, nValues);
}

fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int32 values[], size_t nValues)
{
	return set_discrete(instance, &SET_INT32, SART_INTEGER, vr, nvr, values, nValues);
}

fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Int64 values[], size_t nValues)
{
	return get_discrete(instance, &GET_INT64, SART_INTEGER, vr, nvr, values, nValues);
}

fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int64 values[], size_t nValues)
{
	return set_discrete(instance, &SET_INT64, SART_INTEGER, vr, nvr, values, nValues);
}

fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Boolean values[], size_t nValues)
{
	return get_discrete(instance, &GET_BOOLEAN, SART_BOOLEAN, vr, nvr, values, nValues);
}

fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Boolean values[], size_t nValues)
{
	return set_discrete(instance, &SET_BOOLEAN, SART_BOOLEAN, vr, nvr, values, nValues);
}

fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                         fmi3String values[], size_t nValues)
{
	return get_discrete(instance, &GET_STRING, SART_STRING, vr, nvr, values, nValues);
}

fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                         const fmi3String values[], size_t nValues)
{
	return set_discrete(instance, &SET_STRING, SART_STRING, vr, nvr, values, nValues);
}

/* The types the wrapper has no variable of: any value reference is unknown. */
static fmi3Status no_such_type(fmi3Instance instance, const SartCall *call, const char *name,
                               const char *type, size_t nvr)
{
	char why[256];
	snprintf(why, sizeof why, "%s has no %s variables (nValueReferences = %lu)",
	         sart_model.identifier, type, (unsigned long)nvr);
	return unsupported(instance, call, name, why);
}

#define NO_SUCH_TYPE(Name, T)                                                               \
	fmi3Status fmi3Get##Name(fmi3Instance instance, const fmi3ValueReference vr[],          \
	                         size_t nvr, T values[], size_t nValues)                        \
	{                                                                                       \
		(void)vr, (void)values, (void)nValues;                                          \
		return no_such_type(instance, &GET_OTHER, "fmi3Get" #Name, #Name, nvr);         \
	}                                                                                       \
	fmi3Status fmi3Set##Name(fmi3Instance instance, const fmi3ValueReference vr[],          \
	                         size_t nvr, const T values[], size_t nValues)                  \
	{                                                                                       \
		(void)vr, (void)values, (void)nValues;                                          \
		return no_such_type(instance, &SET_OTHER, "fmi3Set" #Name, #Name, nvr);         \
	}
NO_SUCH_TYPE(Float32, fmi3Float32)
NO_SUCH_TYPE(Int8, fmi3Int8)
NO_SUCH_TYPE(UInt8, fmi3UInt8)
NO_SUCH_TYPE(Int16, fmi3Int16)
NO_SUCH_TYPE(UInt16, fmi3UInt16)
NO_SUCH_TYPE(UInt32, fmi3UInt32)
NO_SUCH_TYPE(UInt64, fmi3UInt64)
#undef NO_SUCH_TYPE

/* Binaries (the inners' passed through): sizes and pointers into the wrapper's own copies,
 * valid until the next call on the instance. */
static fmi3Status get_binaries(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                               size_t valueSizes[], fmi3Binary values[], size_t nValues)
{
	SartVr cvr[CHUNK];
	SartStatus st = SART_OK;
	if (bad_arguments(instance, &GET_BINARY, vr, nvr, values, nValues) ||
	    bad_arguments(instance, &GET_BINARY, vr, nvr, valueSizes, nValues))
		return fmi3Error;
	for (size_t at = 0; at < nvr && st < SART_ERROR; at += CHUNK) {
		size_t n = nvr - at < CHUNK ? nvr - at : CHUNK;
		if (translate(instance, &GET_BINARY, SART_BINARY, vr + at, n, cvr) != SART_OK)
			return fmi3Error;
		st = worse(st, sart_core_get_binaries(instance, cvr, n, valueSizes + at,
		                                      values + at, &GET_BINARY));
	}
	return (fmi3Status)st;
}

static fmi3Status set_binaries(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                               const size_t valueSizes[], const fmi3Binary values[],
                               size_t nValues)
{
	SartVr cvr[CHUNK];
	SartStatus st = SART_OK;
	if (bad_arguments(instance, &SET_BINARY, vr, nvr, values, nValues) ||
	    bad_arguments(instance, &SET_BINARY, vr, nvr, valueSizes, nValues))
		return fmi3Error;
	for (size_t at = 0; at < nvr && st < SART_ERROR; at += CHUNK) {
		size_t n = nvr - at < CHUNK ? nvr - at : CHUNK;
		if (translate(instance, &SET_BINARY, SART_BINARY, vr + at, n, cvr) != SART_OK)
			return fmi3Error;
		st = worse(st, sart_core_set_binaries(instance, cvr, n, valueSizes + at,
		                                      values + at, &SET_BINARY));
	}
	return (fmi3Status)st;
}

#ifdef SART_ARRAYS
/* A Binary array is gotten and set whole, as the other types' (sart_fmi3_arrays.h): the
 * call's value references expanded into its elements', one value each. */
#define BINARY_CALL(call, fn, ...)                                                          \
	do {                                                                                \
		fmi3ValueReference buf[64], *all;                                           \
		buf[0] = 0;                                                                 \
		if (sart_fmi3_expand(instance, call, SART_BINARY, first_vr(SART_BINARY), vr,  \
		                     nvr, nValues, buf, 64, &all) != SART_OK)               \
			return fmi3Error;                                                   \
		const fmi3ValueReference *use = nvr && !vr ? vr : all;                      \
		fmi3Status st_ = fn(instance, use, nvr && !vr ? nvr : nValues, __VA_ARGS__);   \
		if (all != buf)                                                             \
			free(all);                                                          \
		return st_;                                                                 \
	} while (0)
#endif

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                         size_t valueSizes[], fmi3Binary values[], size_t nValues)
{
	if (!sart_model.nvr[SART_BINARY])
		return no_such_type(instance, &GET_OTHER, "fmi3GetBinary", "Binary", nvr);
#ifdef SART_ARRAYS
	BINARY_CALL(&GET_BINARY, get_binaries, valueSizes, values, nValues);
#else
	return get_binaries(instance, vr, nvr, valueSizes, values, nValues);
#endif
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                         const size_t valueSizes[], const fmi3Binary values[], size_t nValues)
{
	if (!sart_model.nvr[SART_BINARY])
		return no_such_type(instance, &SET_OTHER, "fmi3SetBinary", "Binary", nvr);
#ifdef SART_ARRAYS
	BINARY_CALL(&SET_BINARY, set_binaries, valueSizes, values, nValues);
#else
	return set_binaries(instance, vr, nvr, valueSizes, values, nValues);
#endif
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Clock values[])
{
	(void)vr, (void)values;
	return no_such_type(instance, &GET_OTHER, "fmi3GetClock", "Clock", nvr);
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Clock values[])
{
	(void)vr, (void)values;
	return no_such_type(instance, &SET_OTHER, "fmi3SetClock", "Clock", nvr);
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
	(void)valueReference, (void)nDependencies;
	return unsupported(instance, &DEPENDENCIES, "fmi3GetNumberOfVariableDependencies",
	                   "the dependencies are those of the model description's "
	                   "ModelStructure");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
	(void)dependent, (void)elementIndicesOfDependent, (void)independents;
	(void)elementIndicesOfIndependents, (void)dependencyKinds, (void)nDependencies;
	return unsupported(instance, &DEPENDENCIES, "fmi3GetVariableDependencies",
	                   "the dependencies are those of the model description's "
	                   "ModelStructure");
}

/* ---- FMU states --------------------------------------------------------------------------- */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
	SartWrapper *w = sart_core_enter(instance, &GET_STATE);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3GetFMUState()");
	return (fmi3Status)sart_core_get_state(w, FMUState, &GET_STATE);
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
	SartWrapper *w = sart_core_enter(instance, &SET_STATE);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3SetFMUState()");
	return (fmi3Status)sart_core_set_state(w, FMUState, &SET_STATE);
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
	SartWrapper *w = sart_core_enter(instance, &FREE_STATE);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3FreeFMUState()");
	return (fmi3Status)sart_core_free_state(w, FMUState, &FREE_STATE);
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size)
{
	SartWrapper *w = sart_core_enter(instance, &STATE_SIZE);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3SerializedFMUStateSize()");
	return (fmi3Status)sart_core_serialized_size(w, FMUState, size, &STATE_SIZE);
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
	SartWrapper *w = sart_core_enter(instance, &SERIALIZE);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3SerializeFMUState(size = %lu)", (unsigned long)size);
	return (fmi3Status)sart_core_serialize(w, FMUState, serializedState, size, &SERIALIZE);
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
	SartWrapper *w = sart_core_enter(instance, &DESERIALIZE);
	if (!w)
		return fmi3Error;
	sart_core_log_call(w, "fmi3DeserializeFMUState(size = %lu)", (unsigned long)size);
	return (fmi3Status)sart_core_deserialize(w, serializedState, size, FMUState,
	                                         &DESERIALIZE);
}

/* ---- derivatives, configuration, clocks, events ------------------------------------------- */

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns,
                                        const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
	(void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
	(void)sensitivity, (void)nSensitivity;
	return unsupported(instance, &DERIVATIVES, "fmi3GetDirectionalDerivative",
	                   "the wrapper provides no directional derivatives");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
	(void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
	(void)sensitivity, (void)nSensitivity;
	return unsupported(instance, &DERIVATIVES, "fmi3GetAdjointDerivative",
	                   "the wrapper provides no adjoint derivatives");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
	return unsupported(instance, &ENTER_CONFIGURATION, ENTER_CONFIGURATION.name,
	                   "the wrapper has no structural parameters");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
	return unsupported(instance, &EXIT_CONFIGURATION, EXIT_CONFIGURATION.name, "");
}

/* The clock calls: the wrapper has no Clock variables. */
static fmi3Status no_clocks(fmi3Instance instance, const char *name)
{
	return unsupported(instance, &CLOCKS, name, "the wrapper has no Clock variables");
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                                  size_t nvr, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[])
{
	(void)vr, (void)nvr, (void)intervals, (void)qualifiers;
	return no_clocks(instance, "fmi3GetIntervalDecimal");
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                   size_t nvr, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions, (void)qualifiers;
	return no_clocks(instance, "fmi3GetIntervalFraction");
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                               size_t nvr, fmi3Float64 shifts[])
{
	(void)vr, (void)nvr, (void)shifts;
	return no_clocks(instance, "fmi3GetShiftDecimal");
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                size_t nvr, fmi3UInt64 counters[], fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return no_clocks(instance, "fmi3GetShiftFraction");
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                                  size_t nvr, const fmi3Float64 intervals[])
{
	(void)vr, (void)nvr, (void)intervals;
	return no_clocks(instance, "fmi3SetIntervalDecimal");
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                   size_t nvr, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return no_clocks(instance, "fmi3SetIntervalFraction");
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                               size_t nvr, const fmi3Float64 shifts[])
{
	(void)vr, (void)nvr, (void)shifts;
	return no_clocks(instance, "fmi3SetShiftDecimal");
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                size_t nvr, const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return no_clocks(instance, "fmi3SetShiftFraction");
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
	return unsupported(instance, &EVALUATE_DISCRETE, EVALUATE_DISCRETE.name, "");
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
	(void)discreteStatesNeedUpdate, (void)terminateSimulation;
	(void)nominalsOfContinuousStatesChanged, (void)valuesOfContinuousStatesChanged;
	(void)nextEventTimeDefined, (void)nextEventTime;
	return unsupported(instance, &UPDATE_DISCRETE, UPDATE_DISCRETE.name, "");
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
	return unsupported(instance, &ENTER_STEP_MODE, ENTER_STEP_MODE.name, "");
}

/* ---- Model Exchange and Scheduled Execution: exported as every FMU exports them, refused - */

/* A function of Model Exchange or Scheduled Execution called on the wrapper's instance:
 * logged, then refused. */
static fmi3Status co_simulation_only(fmi3Instance instance, const char *name)
{
	char why[256];
	snprintf(why, sizeof why, "%s supports Co-Simulation only", sart_model.identifier);
	return unsupported(instance, &OTHER_INTERFACE, name, why);
}

#include "fmi3/fmi3ModelExchangeRefused.h"

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
	(void)clockReference, (void)activationTime;
	return co_simulation_only(instance, "fmi3ActivateModelPartition");
}

/* ---- stepping ----------------------------------------------------------------------------- */

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[],
                                    size_t nvr, const fmi3Int32 orders[], fmi3Float64 values[],
                                    size_t nValues)
{
	(void)vr, (void)nvr, (void)orders, (void)values, (void)nValues;
	return unsupported(instance, &GET_OUTPUT_DERIVATIVES, GET_OUTPUT_DERIVATIVES.name,
	                   "maxOutputDerivativeOrder is 0");
}

/* The core's step takes fmi3DoStep's arguments as they come (fmi3Boolean is bool), so this
 * is one jump.  FMI 3.0 requires the four out-arguments. */
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
	return (fmi3Status)sart_core_do_step_early(instance, currentCommunicationPoint,
	                                           communicationStepSize,
	                                           noSetFMUStatePriorToCurrentPoint,
	                                           eventHandlingNeeded, terminateSimulation,
	                                           earlyReturn, lastSuccessfulTime);
}
