/* me_fmi3.c — the FMI 3.0 skin of the Model Exchange test FMUs: every function of
 * runtime/fmi3/fmi3Functions.h over the version-free core (me_core.h).  Each function first
 * checks that its mode allows it (masks after the standard's state machine and the
 * Reference FMUs'), then calls the core.  Float64 and Int32 are the only variable types;
 * Co-Simulation (without Event Mode) is offered when the model has a cs_step; a model with
 * clocks (MeModel.clocks) has fmi3GetClock and fmi3SetClock in Event Mode and the intervals
 * and shifts of its periodic clocks; Scheduled Execution, the clocks' fractions and setters
 * and configuration mode are refused with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "me_core.h"

typedef struct Skin3 {
	fmi3LogMessageCallback logger;
	fmi3InstanceEnvironment env;
	MeInstance *m;
} Skin3;

enum {
	M_ANY = ME_ANY_MODE,
	M_TERMINATE = ME_EVENT | ME_CONTINUOUS | ME_STEP,
	M_GET = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP | ME_TERMINATED,
	M_SET_FLOAT = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP | ME_TERMINATED,
	M_SET_DISCRETE = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_STEP | ME_TERMINATED,
	M_DIRECTIONAL = ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP | ME_TERMINATED,
	M_TIME = ME_EVENT | ME_CONTINUOUS,
	M_CONTINUOUS_GET = ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_TERMINATED
};

static void skin3_log(void *skin_env, MeStatus status, const char *category, const char *msg)
{
	Skin3 *s = skin_env;
	if (s->logger)
		s->logger(s->env, (fmi3Status)status, category, msg);
}

static MeInstance *inst(fmi3Instance c)
{
	return ((Skin3 *)c)->m;
}

#define CHECK(c, mask)                                                                        \
	do {                                                                                  \
		if (!(c))                                                                     \
			return fmi3Error;                                                     \
		if (!me_allowed(inst(c), __func__, (mask)))                                   \
			return fmi3Error;                                                     \
	} while (0)

#define CHECK_ME(c, mask)                                                                     \
	do {                                                                                  \
		CHECK(c, mask);                                                               \
		if (me_wrong_interface(inst(c), __func__, 0))                                 \
			return fmi3Error;                                                     \
	} while (0)

#define CHECK_CS(c, mask)                                                                     \
	do {                                                                                  \
		CHECK(c, mask);                                                               \
		if (me_wrong_interface(inst(c), __func__, 1))                                 \
			return fmi3Error;                                                     \
	} while (0)

/* A function this FMU does not offer: an error with the reason. */
static fmi3Status refuse(fmi3Instance c, const char *fn, const char *why)
{
	if (!c)
		return fmi3Error;
	me_logf(inst(c), ME_ERROR, "%s: %s", fn, why);
	return fmi3Error;
}

/* ---- instances --------------------------------------------------------------------------- */

const char *fmi3GetVersion(void)
{
	return fmi3Version;
}

fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
	(void)nCategories, (void)categories;
	CHECK(c, M_ANY);
	inst(c)->logging_on = loggingOn != fmi3False;
	return fmi3OK;
}

static fmi3Instance instantiate(const char *fn, fmi3String instanceName, fmi3String token,
                                fmi3Boolean loggingOn, int is_cs,
                                fmi3InstanceEnvironment env, fmi3LogMessageCallback logger)
{
	Skin3 *s;
	const char *why = NULL;
	if (!instanceName || !*instanceName)
		why = "no instance name";
	else if (!token || strcmp(token, me_model.token) != 0)
		why = "the instantiation token is not this FMU's";
	else if (is_cs && !(me_model.cs_step > 0.0))
		why = "this FMU offers Model Exchange only";
	if (why) {
		if (logger) {
			char msg[256];
			snprintf(msg, sizeof msg, "%s: %s", fn, why);
			logger(env, fmi3Error, "logStatusError", msg);
		}
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->logger = logger;
	s->env = env;
	s->m = me_new(instanceName, is_cs, skin3_log, s);
	if (!s->m) {
		free(s);
		return NULL;
	}
	s->m->logging_on = loggingOn != fmi3False;
	return s;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
	(void)resourcePath, (void)visible;
	return instantiate(__func__, instanceName, instantiationToken, loggingOn, 0,
	                   instanceEnvironment, logMessage);
}

/* Co-Simulation without Event Mode (hasEventMode is not declared), no early return: both
 * requests are ignored, as the standard lets an FMU that does not declare them. */
fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
	(void)resourcePath, (void)visible, (void)eventModeUsed, (void)earlyReturnAllowed;
	(void)requiredIntermediateVariables, (void)nRequiredIntermediateVariables;
	(void)intermediateUpdate;
	return instantiate(__func__, instanceName, instantiationToken, loggingOn, 1,
	                   instanceEnvironment, logMessage);
}

fmi3Instance fmi3InstantiateScheduledExecution(
	fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
	fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
	fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption)
{
	(void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
	(void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
	if (logMessage)
		logMessage(instanceEnvironment, fmi3Error, "logStatusError",
		           "fmi3InstantiateScheduledExecution: this FMU offers no Scheduled Execution");
	(void)instanceName;
	return NULL;
}

void fmi3FreeInstance(fmi3Instance c)
{
	if (!c)
		return;
	me_free(inst(c));
	free(c);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
	(void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
	CHECK(c, ME_INSTANTIATED);
	return (fmi3Status)me_enter_init(inst(c), __func__, startTime);
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c)
{
	CHECK(c, ME_INIT);
	return (fmi3Status)me_exit_init(inst(c), __func__);
}

fmi3Status fmi3EnterEventMode(fmi3Instance c)
{
	CHECK_ME(c, ME_CONTINUOUS);
	return (fmi3Status)me_enter_event_mode(inst(c), __func__);
}

fmi3Status fmi3Terminate(fmi3Instance c)
{
	CHECK(c, M_TERMINATE);
	return (fmi3Status)me_terminate(inst(c), __func__);
}

fmi3Status fmi3Reset(fmi3Instance c)
{
	CHECK(c, M_ANY);
	me_reset(inst(c));
	return fmi3OK;
}

/* ---- variables --------------------------------------------------------------------------- */

/* Int32: each value reference names a scalar (no model has an Int32 array), so nValues
 * must equal their number. */
static int scalar_count(fmi3Instance c, const char *fn, size_t nvr, size_t nValues)
{
	if (nvr == nValues)
		return 1;
	me_logf(inst(c), ME_ERROR, "%s: %zu values for %zu scalar variables", fn, nValues, nvr);
	return 0;
}

/* At most this many scalars in one Get or Set of Float64 on a model with arrays. */
#define ME_MAX_SCALARS (4 * ME_MAX_REALS)

/* The scalars behind FMI 3.0 value references: an array's reference stands for its
 * elements, one value each in order (me_core.h's MeArray).  A model without arrays passes
 * vr through (*out = vr).  -1 when the values do not number nValues (logged). */
static long real_scalars(fmi3Instance c, const char *fn, const fmi3ValueReference vr[],
                         size_t nvr, size_t nValues, unsigned buf[ME_MAX_SCALARS],
                         const unsigned **out)
{
	const MeModel *md = inst(c)->model;
	*out = vr;
	size_t n = nvr;
	if (md->n_arrays > 0) {
		*out = buf;
		n = 0;
		for (size_t k = 0; k < nvr; k++) {
			unsigned size = 1;
			for (size_t a = 0; a < md->n_arrays; a++) {
				const MeArray *ar = &md->arrays[a];
				if (ar->vr == vr[k])
					size = ar->size;
				else if (vr[k] > ar->vr && vr[k] - ar->vr < ar->size) {
					/* an element has no reference of its own in FMI 3.0 */
					me_logf(inst(c), ME_ERROR, "%s: no Float64 variable has value "
					        "reference %u", fn, vr[k]);
					return -1;
				}
			}
			for (unsigned j = 0; j < size && n <= ME_MAX_SCALARS; j++, n++)
				if (n < ME_MAX_SCALARS)
					buf[n] = vr[k] + j;
		}
	}
	if (n == nValues && n <= ME_MAX_SCALARS)
		return (long)n;
	if (n > ME_MAX_SCALARS)
		me_logf(inst(c), ME_ERROR, "%s: more than %d values at once", fn, ME_MAX_SCALARS);
	else
		me_logf(inst(c), ME_ERROR, "%s: %zu values for %zu scalars", fn, nValues, n);
	return -1;
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 values[], size_t nValues)
{
	CHECK(c, M_GET);
	unsigned buf[ME_MAX_SCALARS];
	const unsigned *s;
	long n = real_scalars(c, __func__, vr, nvr, nValues, buf, &s);
	if (n < 0)
		return fmi3Error;
	return (fmi3Status)me_get_real(inst(c), __func__, s, (size_t)n, values);
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues)
{
	CHECK(c, M_SET_FLOAT);
	unsigned buf[ME_MAX_SCALARS];
	const unsigned *s;
	long n = real_scalars(c, __func__, vr, nvr, nValues, buf, &s);
	if (n < 0)
		return fmi3Error;
	return (fmi3Status)me_set_real(inst(c), __func__, s, (size_t)n, values);
}

fmi3Status fmi3GetInt32(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Int32 values[], size_t nValues)
{
	CHECK(c, M_GET);
	if (!scalar_count(c, __func__, nvr, nValues))
		return fmi3Error;
	return (fmi3Status)me_get_int(inst(c), __func__, vr, nvr, values);
}

fmi3Status fmi3SetInt32(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int32 values[], size_t nValues)
{
	CHECK(c, M_SET_DISCRETE);
	if (!scalar_count(c, __func__, nvr, nValues))
		return fmi3Error;
	return (fmi3Status)me_set_int(inst(c), __func__, vr, nvr, values);
}

/* The types the models have no variable of: any value reference is unknown. */
static fmi3Status no_such_type(fmi3Instance c, const char *fn, size_t nvr,
                               const fmi3ValueReference vr[])
{
	return (fmi3Status)me_no_such_type(inst(c), fn, nvr, vr);
}

#define ME_ABSENT_TYPE(Name, T)                                                               \
	fmi3Status fmi3Get##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,   \
	                         T values[], size_t nValues)                                  \
	{                                                                                     \
		(void)values, (void)nValues;                                                  \
		CHECK(c, M_GET);                                                              \
		return no_such_type(c, __func__, nvr, vr);                                    \
	}                                                                                     \
	fmi3Status fmi3Set##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,   \
	                         const T values[], size_t nValues)                            \
	{                                                                                     \
		(void)values, (void)nValues;                                                  \
		CHECK(c, M_SET_DISCRETE);                                                     \
		return no_such_type(c, __func__, nvr, vr);                                    \
	}
ME_ABSENT_TYPE(Float32, fmi3Float32)
ME_ABSENT_TYPE(Int8, fmi3Int8)
ME_ABSENT_TYPE(UInt8, fmi3UInt8)
ME_ABSENT_TYPE(Int16, fmi3Int16)
ME_ABSENT_TYPE(UInt16, fmi3UInt16)
ME_ABSENT_TYPE(UInt32, fmi3UInt32)
ME_ABSENT_TYPE(Int64, fmi3Int64)
ME_ABSENT_TYPE(UInt64, fmi3UInt64)
ME_ABSENT_TYPE(Boolean, fmi3Boolean)
ME_ABSENT_TYPE(String, fmi3String)
#undef ME_ABSENT_TYPE

fmi3Status fmi3GetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         size_t valueSizes[], fmi3Binary values[], size_t nValues)
{
	(void)valueSizes, (void)values, (void)nValues;
	CHECK(c, M_GET);
	return no_such_type(c, __func__, nvr, vr);
}

fmi3Status fmi3SetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         const size_t valueSizes[], const fmi3Binary values[], size_t nValues)
{
	(void)valueSizes, (void)values, (void)nValues;
	CHECK(c, M_SET_DISCRETE);
	return no_such_type(c, __func__, nvr, vr);
}

/* A clock call on a model without clocks: what it always answered (no such variable). */
static int no_clocks(fmi3Instance c)
{
	return inst(c)->model->n_clocks == 0;
}

fmi3Status fmi3GetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Clock values[])
{
	int v[ME_MAX_CLOCKS];
	if (!c)
		return fmi3Error;
	CHECK(c, no_clocks(c) ? M_GET : ME_EVENT);
	if (no_clocks(c))
		return no_such_type(c, __func__, nvr, vr);
	if (nvr > ME_MAX_CLOCKS)
		return refuse(c, __func__, "more clocks than the FMU has");
	MeStatus st = me_get_clock(inst(c), __func__, vr, nvr, v);
	for (size_t i = 0; st == ME_OK && i < nvr; i++)
		values[i] = v[i] ? fmi3ClockActive : fmi3ClockInactive;
	return (fmi3Status)st;
}

fmi3Status fmi3SetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Clock values[])
{
	int v[ME_MAX_CLOCKS];
	if (!c)
		return fmi3Error;
	CHECK(c, no_clocks(c) ? M_ANY : ME_EVENT);
	if (no_clocks(c))
		return no_such_type(c, __func__, nvr, vr);
	if (nvr > ME_MAX_CLOCKS)
		return refuse(c, __func__, "more clocks than the FMU has");
	for (size_t i = 0; i < nvr; i++)
		v[i] = values[i] ? 1 : 0;
	return (fmi3Status)me_set_clock(inst(c), __func__, vr, nvr, v);
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance c, fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
	(void)valueReference, (void)nDependencies;
	return refuse(c, __func__, "dependencies are given in the model description only");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance c, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[], size_t nDependencies)
{
	(void)dependent, (void)elementIndicesOfDependent, (void)independents;
	(void)elementIndicesOfIndependents, (void)dependencyKinds, (void)nDependencies;
	return refuse(c, __func__, "dependencies are given in the model description only");
}

/* ---- FMU states -------------------------------------------------------------------------- */

fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
	CHECK(c, M_ANY);
	return (fmi3Status)me_get_state(inst(c), __func__, FMUState);
}

fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState FMUState)
{
	CHECK(c, M_ANY);
	return (fmi3Status)me_set_state(inst(c), __func__, FMUState);
}

fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
	CHECK(c, M_ANY);
	return (fmi3Status)me_free_state(inst(c), __func__, FMUState);
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState FMUState, size_t *size)
{
	(void)FMUState;
	CHECK(c, M_ANY);
	*size = me_serialized_size();
	return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size)
{
	CHECK(c, M_ANY);
	return (fmi3Status)me_serialize(inst(c), __func__, FMUState, serializedState, size);
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState)
{
	CHECK(c, M_ANY);
	return (fmi3Status)me_deserialize(inst(c), __func__, serializedState, size, FMUState);
}

/* ---- derivatives, configuration, clocks -------------------------------------------------- */

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance c, const fmi3ValueReference unknowns[],
                                        size_t nUnknowns, const fmi3ValueReference knowns[],
                                        size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
	CHECK(c, M_DIRECTIONAL);
	if (nSeed != nKnowns || nSensitivity != nUnknowns)
		return refuse(c, __func__, "seed and sensitivity must hold one value per variable");
	return (fmi3Status)me_directional(inst(c), __func__, unknowns, nUnknowns, knowns, nKnowns,
	                                  seed, sensitivity);
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance c, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
	(void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
	(void)sensitivity, (void)nSensitivity;
	return refuse(c, __func__, "this FMU provides no adjoint derivatives");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance c)
{
	return refuse(c, __func__, "this FMU has no structural parameters");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance c)
{
	return refuse(c, __func__, "this FMU has no structural parameters");
}

#define ME_NO_CLOCKS(c) refuse(c, __func__, "this FMU has no clocks")

fmi3Status fmi3GetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                  fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[])
{
	if (!c || no_clocks(c))
		return c ? ME_NO_CLOCKS(c) : fmi3Error;
	CHECK(c, ME_INIT | ME_EVENT);
	MeStatus st = me_clock_timing(inst(c), __func__, vr, nvr, intervals, 1);
	for (size_t i = 0; st == ME_OK && i < nvr; i++)
		qualifiers[i] = fmi3IntervalUnchanged; /* constant: known from the description */
	return (fmi3Status)st;
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                   fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions, (void)qualifiers;
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                               fmi3Float64 shifts[])
{
	if (!c || no_clocks(c))
		return c ? ME_NO_CLOCKS(c) : fmi3Error;
	CHECK(c, ME_INIT | ME_EVENT);
	return (fmi3Status)me_clock_timing(inst(c), __func__, vr, nvr, shifts, 0);
}

fmi3Status fmi3GetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                fmi3UInt64 counters[], fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                  const fmi3Float64 intervals[])
{
	(void)vr, (void)nvr, (void)intervals;
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                   const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                               const fmi3Float64 shifts[])
{
	(void)vr, (void)nvr, (void)shifts;
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3SetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance c)
{
	return ME_NO_CLOCKS(c);
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime)
{
	MeEventInfo e;
	fmi3Status s;
	CHECK(c, ME_EVENT);
	s = (fmi3Status)me_update_discrete(inst(c), __func__, &e);
	if (s > fmi3Warning)
		return s;
	/* Each output may be NULL: the importer does not want it. */
	if (discreteStatesNeedUpdate)
		*discreteStatesNeedUpdate = e.discrete_states_need_update != 0;
	if (terminateSimulation)
		*terminateSimulation = e.terminate_simulation != 0;
	if (nominalsOfContinuousStatesChanged)
		*nominalsOfContinuousStatesChanged = e.nominals_changed != 0;
	if (valuesOfContinuousStatesChanged)
		*valuesOfContinuousStatesChanged = e.values_changed != 0;
	if (nextEventTimeDefined)
		*nextEventTimeDefined = e.next_event_time_defined != 0;
	if (nextEventTime)
		*nextEventTime = e.next_event_time_defined ? e.next_event_time : 0.0;
	return s;
}

/* ---- Model Exchange ---------------------------------------------------------------------- */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c)
{
	CHECK_ME(c, ME_EVENT);
	return (fmi3Status)me_enter_continuous(inst(c), __func__);
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
	int ev, term;
	fmi3Status s;
	(void)noSetFMUStatePriorToCurrentPoint;
	CHECK_ME(c, ME_CONTINUOUS);
	s = (fmi3Status)me_completed_step(inst(c), __func__, &ev, &term);
	*enterEventMode = ev != 0;
	*terminateSimulation = term != 0;
	return s;
}

fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time)
{
	CHECK_ME(c, M_TIME);
	return (fmi3Status)me_set_time(inst(c), __func__, time);
}

fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 x[], size_t nx)
{
	CHECK_ME(c, ME_CONTINUOUS);
	return (fmi3Status)me_set_states(inst(c), __func__, x, nx);
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 derivatives[], size_t nx)
{
	CHECK_ME(c, M_CONTINUOUS_GET);
	return (fmi3Status)me_get_derivatives(inst(c), __func__, derivatives, nx);
}

fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 eventIndicators[], size_t ni)
{
	CHECK_ME(c, M_CONTINUOUS_GET);
	return (fmi3Status)me_get_indicators(inst(c), __func__, eventIndicators, ni);
}

fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t nx)
{
	CHECK_ME(c, M_CONTINUOUS_GET);
	return (fmi3Status)me_get_states(inst(c), __func__, x, nx);
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 nominals[], size_t nx)
{
	CHECK_ME(c, M_CONTINUOUS_GET);
	return (fmi3Status)me_get_nominals(inst(c), __func__, nominals, nx);
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *n)
{
	CHECK(c, M_ANY);
	*n = me_model.n_indicators;
	return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *n)
{
	CHECK(c, M_ANY);
	*n = me_model.n_states;
	return fmi3OK;
}

/* ---- Co-Simulation ----------------------------------------------------------------------- */

fmi3Status fmi3EnterStepMode(fmi3Instance c)
{
	/* Without Event Mode in Co-Simulation the instance is never where this is allowed. */
	CHECK_CS(c, ME_EVENT);
	inst(c)->d.mode = ME_STEP;
	return fmi3OK;
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues)
{
	(void)vr, (void)orders, (void)values, (void)nValues;
	CHECK_CS(c, ME_STEP | ME_TERMINATED);
	if (nvr == 0)
		return fmi3OK;
	return refuse(c, __func__, "output derivatives are not provided");
}

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
	int ev, term;
	fmi3Status s;
	(void)noSetFMUStatePriorToCurrentPoint;
	CHECK_CS(c, ME_STEP);
	s = (fmi3Status)me_do_step(inst(c), __func__, currentCommunicationPoint,
	                           communicationStepSize, &ev, &term);
	*eventHandlingNeeded = ev != 0;
	*terminateSimulation = term != 0;
	*earlyReturn = fmi3False;
	*lastSuccessfulTime = inst(c)->d.time;
	return s;
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance c, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
	(void)clockReference, (void)activationTime;
	return refuse(c, __func__, "this FMU offers no Scheduled Execution");
}
