/* sart_inner_fmi3.c — the FMI 3.0 back end of the inner-FMU seam: Co-Simulation, and the
 * Model Exchange calls that sart_inner_me.c integrates between events.
 *
 * Resolves the fmi3* functions of an inner FMU's library (binaries/x86_64-linux/) into a
 * per-instance table and translates each seam call into FMI 3.0:
 *   - fmi3InstantiateCoSimulation with the resource directory as a path, event mode used
 *     when the FMU has it (SART_CAP_EVENT_MODE) and accepts it (tried again without it when
 *     it returns NULL), early return allowed when the caller goes
 *     on from where a step stopped (SART_CAP_EARLY_RETURN), an intermediate-update
 *     callback that never asks to return early and, for an FMU that asks for its
 *     intermediate inputs there (sart_inner_set_intermediate_inputs), sets them
 *     extrapolated from the last two steps' starts;
 *   - the experiment given to fmi3EnterInitializationMode;
 *   - the seam's double Reals and int Integers converted to each variable's sized type
 *     (in->vr_types; Float64 and Int32 when not listed), with range checks that name the
 *     variable and the value; bool Booleans;
 *   - elements of arrays addressed one by one (SartVrElement) read and written through
 *     their whole arrays;
 *   - Strings and Binaries, and the elements of their arrays, in sart_inner_fmi3_bytes.c;
 *   - fmi3DoStep's early return reported as success with the time reached, and the events
 *     it asks for handled here (Event Mode, discrete states updated until they settle,
 *     Step Mode), so the callers see one step either way; an FMU that stops at an event
 *     when early return was not allowed is stepped on to the step's end.
 * The inner FMU's log messages are plain text in FMI 3.0 and are forwarded as they are. */
#include "sart_inner_fmi3_impl.h"
#include "sart_numfmt.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALWAYS 0u           /* required of every FMU */
#define OPTIONAL (1u << 31) /* used when present, never required */
#define CS_ONLY (1u << 30)  /* required unless the FMU is driven for Model Exchange */
#define ME_ONLY (1u << 29)  /* required when it is (with a capability bit: or with that) */
#define SE_ONLY (1u << 28)  /* required when it is driven for Scheduled Execution */
#define CLOCKED (1u << 27)  /* required with Scheduled Execution or clocks (SART_CAP_CLOCKS) */
#define SYM(name, field, need, cap) {name, offsetof(Fmi3Api, field), need, cap}

static const struct {
	const char *name;
	size_t offset;
	unsigned needed_with; /* ALWAYS, OPTIONAL or a SART_CAP_* bit */
	const char *capability;
} symbols[] = {
	SYM("fmi3GetVersion", get_version, OPTIONAL, NULL),
	SYM("fmi3InstantiateCoSimulation", instantiate, CS_ONLY, NULL),
	SYM("fmi3FreeInstance", free_instance, ALWAYS, NULL),
	SYM("fmi3EnterInitializationMode", enter_init, ALWAYS, NULL),
	SYM("fmi3ExitInitializationMode", exit_init, ALWAYS, NULL),
	SYM("fmi3EnterEventMode", enter_event_mode, SART_CAP_EVENT_MODE | ME_ONLY,
	    "hasEventMode or Model Exchange"),
	SYM("fmi3UpdateDiscreteStates", update_discrete_states, SART_CAP_EVENT_MODE | ME_ONLY,
	    "hasEventMode or Model Exchange"),
	SYM("fmi3EnterStepMode", enter_step_mode, SART_CAP_EVENT_MODE, "hasEventMode"),
	SYM("fmi3Terminate", terminate, ALWAYS, NULL),
	SYM("fmi3Reset", reset, ALWAYS, NULL),
	SYM("fmi3GetFloat32", get_float32, ALWAYS, NULL),
	SYM("fmi3GetFloat64", get_float64, ALWAYS, NULL),
	SYM("fmi3GetInt8", get_int8, ALWAYS, NULL),
	SYM("fmi3GetUInt8", get_uint8, ALWAYS, NULL),
	SYM("fmi3GetInt16", get_int16, ALWAYS, NULL),
	SYM("fmi3GetUInt16", get_uint16, ALWAYS, NULL),
	SYM("fmi3GetInt32", get_int32, ALWAYS, NULL),
	SYM("fmi3GetUInt32", get_uint32, ALWAYS, NULL),
	SYM("fmi3GetInt64", get_int64, ALWAYS, NULL),
	SYM("fmi3GetUInt64", get_uint64, ALWAYS, NULL),
	SYM("fmi3GetBoolean", get_boolean, ALWAYS, NULL),
	SYM("fmi3GetString", get_string, ALWAYS, NULL),
	SYM("fmi3SetFloat32", set_float32, ALWAYS, NULL),
	SYM("fmi3SetFloat64", set_float64, ALWAYS, NULL),
	SYM("fmi3SetInt8", set_int8, ALWAYS, NULL),
	SYM("fmi3SetUInt8", set_uint8, ALWAYS, NULL),
	SYM("fmi3SetInt16", set_int16, ALWAYS, NULL),
	SYM("fmi3SetUInt16", set_uint16, ALWAYS, NULL),
	SYM("fmi3SetInt32", set_int32, ALWAYS, NULL),
	SYM("fmi3SetUInt32", set_uint32, ALWAYS, NULL),
	SYM("fmi3SetInt64", set_int64, ALWAYS, NULL),
	SYM("fmi3SetUInt64", set_uint64, ALWAYS, NULL),
	SYM("fmi3SetBoolean", set_boolean, ALWAYS, NULL),
	SYM("fmi3SetString", set_string, ALWAYS, NULL),
	/* optional: older builds of the project's own FMUs lack them, and only an FMU with
	 * Binary variables is asked for them */
	SYM("fmi3GetBinary", get_binary, OPTIONAL, NULL),
	SYM("fmi3SetBinary", set_binary, OPTIONAL, NULL),
	SYM("fmi3GetOutputDerivatives", get_output_derivatives, OPTIONAL, NULL),
	SYM("fmi3DoStep", do_step, CS_ONLY, NULL),
	SYM("fmi3GetFMUState", get_state, SART_CAP_GET_SET_STATE, "canGetAndSetFMUState"),
	SYM("fmi3SetFMUState", set_state, SART_CAP_GET_SET_STATE, "canGetAndSetFMUState"),
	SYM("fmi3FreeFMUState", free_state, SART_CAP_GET_SET_STATE, "canGetAndSetFMUState"),
	SYM("fmi3SerializedFMUStateSize", serialized_size, SART_CAP_SERIALIZE,
	    "canSerializeFMUState"),
	SYM("fmi3SerializeFMUState", serialize, SART_CAP_SERIALIZE, "canSerializeFMUState"),
	SYM("fmi3DeserializeFMUState", deserialize, SART_CAP_SERIALIZE, "canSerializeFMUState"),
	SYM("fmi3InstantiateModelExchange", instantiate_me, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetNumberOfContinuousStates", get_number_of_states, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetNumberOfEventIndicators", get_number_of_event_indicators, ME_ONLY,
	    "Model Exchange"),
	SYM("fmi3SetTime", set_time, ME_ONLY, "Model Exchange"),
	SYM("fmi3SetContinuousStates", set_states, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetContinuousStates", get_states, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetContinuousStateDerivatives", get_derivatives, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetEventIndicators", get_event_indicators, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetNominalsOfContinuousStates", get_nominals, ME_ONLY, "Model Exchange"),
	SYM("fmi3CompletedIntegratorStep", completed_integrator_step, ME_ONLY, "Model Exchange"),
	SYM("fmi3EnterContinuousTimeMode", enter_ct_mode, ME_ONLY, "Model Exchange"),
	SYM("fmi3GetDirectionalDerivative", directional_derivative, OPTIONAL, NULL),
	SYM("fmi3InstantiateScheduledExecution", instantiate_se, SE_ONLY, "Scheduled Execution"),
	SYM("fmi3ActivateModelPartition", activate_model_partition, SE_ONLY,
	    "Scheduled Execution"),
	SYM("fmi3GetClock", get_clock, CLOCKED, "clocks"),
	SYM("fmi3GetIntervalDecimal", get_interval_decimal, CLOCKED, "clocks"),
	SYM("fmi3SetClock", set_clock, CLOCKED, "clocks"),
};

/* Whether the library must export a function needed as need says, for an inner of caps.
 * Driven for Model Exchange, the capabilities of steps (Event Mode in Co-Simulation, early
 * return, input derivatives) ask for nothing. */
static int required(unsigned need, unsigned caps)
{
	int me = (caps & SART_CAP_MODEL_EXCHANGE) != 0;
	int se = (caps & SART_CAP_SCHEDULED_EXECUTION) != 0;
	if (need == ALWAYS)
		return 1;
	if (need == OPTIONAL)
		return 0;
	if (need == SE_ONLY)
		return se;
	if (need == CLOCKED)
		return se || (caps & SART_CAP_CLOCKS) != 0;
	if (need == CS_ONLY)
		return !me && !se;
	if (se) /* partitions, not steps: only the state's abilities apply */
		return (caps & need & (SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE)) != 0;
	if ((need & ME_ONLY) && me)
		return 1;
	if (me)
		caps &= SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE;
	return (caps & need & ~ME_ONLY) != 0;
}

/* Event iterations per event before the seam gives up on discrete states that never
 * settle. */
#define MAX_EVENT_ITERATIONS 1000

static const char *const type_names[] = {
	[SART_VT_FLOAT64] = "Float64", [SART_VT_FLOAT32] = "Float32", [SART_VT_INT8] = "Int8",
	[SART_VT_UINT8] = "UInt8",     [SART_VT_INT16] = "Int16",     [SART_VT_UINT16] = "UInt16",
	[SART_VT_INT32] = "Int32",     [SART_VT_UINT32] = "UInt32",   [SART_VT_INT64] = "Int64",
	[SART_VT_UINT64] = "UInt64",
};

static const char *type_name(SartValueType t)
{
	return (unsigned)t < sizeof type_names / sizeof *type_names ? type_names[t] : "?";
}

/* ---- statuses and messages -------------------------------------------------------------- */

static const char *fmi3_status_name(fmi3Status st)
{
	switch (st) {
	case fmi3OK: return "fmi3OK";
	case fmi3Warning: return "fmi3Warning";
	case fmi3Discard: return "fmi3Discard";
	case fmi3Error: return "fmi3Error";
	case fmi3Fatal: return "fmi3Fatal";
	}
	return "an unknown status";
}

static SartStatus to_sart(fmi3Status st)
{
	switch (st) {
	case fmi3OK: return SART_OK;
	case fmi3Warning: return SART_WARNING;
	case fmi3Discard: return SART_DISCARD;
	case fmi3Fatal: return SART_FATAL;
	case fmi3Error: break;
	}
	return SART_ERROR;
}

SART_COLD SartStatus sart_inner_fmi3_not_ok(SartInner *in, const char *fn, fmi3Status st)
{
	SartStatus s = to_sart(st);
	if ((int)st < (int)fmi3OK || (int)st > (int)fmi3Fatal)
		return sart_inner_report(in, s, "%s returned an unknown status %d", fn, (int)st);
	return sart_inner_report(in, s, "%s returned %s", fn, fmi3_status_name(st));
}

/* FMI 3.0's logger gives plain text: forwarded as it is. */
static void forward_log(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                        fmi3String message)
{
	SartInner *in = env;
	if (!in)
		return;
	Fmi3Inner *f = impl(in);
	if (f && f->holding_log) {
		size_t used = strlen(f->held_log);
		if (!used)
			snprintf(f->held_category, sizeof f->held_category, "%s",
			         category ? category : "");
		if (to_sart(status) > f->held_status)
			f->held_status = to_sart(status);
		snprintf(f->held_log + used, sizeof f->held_log - used, "%s%s", used ? "; " : "",
		         message ? message : "(no message)");
		return;
	}
	sart_inner_forward(in, to_sart(status), category, message ? message : "(no message)");
}

/* ---- intermediate update ---------------------------------------------------------------- */

/* The intermediate inputs of one instance (sart_inner_set_intermediate_inputs's, sorted as
 * in->intermediate_inputs): what the caller set for the coming step, the values at the
 * starts of the last two steps, and how the callback went. */
typedef struct Fmi3Interm {
	size_t n;
	double *next;           /* the caller's last set of each (NaN: none yet) */
	double *last, *prev;    /* at the start of the last step, and of the one before */
	double t_last, t_prev;
	int npoints;            /* how many of last and prev hold values: 0, 1 or 2 */
	double *at;             /* the values given at an intermediate point */
	int moved;              /* the FMU holds values set inside the last step */
	fmi3Status failed;      /* the worst status of the sets inside the step */
	double failed_at;
} Fmi3Interm;

static void interm_free(Fmi3Interm *m)
{
	if (m) {
		free(m->next);
		free(m);
	}
}

/* The history of an instance with intermediate inputs: one block of 4 n doubles. */
static Fmi3Interm *interm_new(size_t n)
{
	Fmi3Interm *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->n = n;
	m->next = malloc(4 * n * sizeof *m->next);
	if (!m->next) {
		free(m);
		return NULL;
	}
	m->last = m->next + n;
	m->prev = m->last + n;
	m->at = m->prev + n;
	for (size_t i = 0; i < n; i++)
		m->next[i] = NAN;
	return m;
}

/* The position of vr among the intermediate inputs, or -1. */
static long interm_index(const SartInner *in, SartVr vr)
{
	size_t lo = 0, hi = in->nintermediate_inputs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->intermediate_inputs[mid] < vr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nintermediate_inputs && in->intermediate_inputs[lo] == vr ? (long)lo : -1;
}

/* A set by the caller: the values of intermediate inputs are remembered for the next step. */
static void interm_note_set(SartInner *in, const SartVr vr[], size_t n, const double v[])
{
	Fmi3Interm *m = impl(in)->interm;
	for (size_t i = 0; i < n; i++) {
		long k = interm_index(in, vr[i]);
		if (k >= 0)
			m->next[k] = v[i];
	}
}

/* Before a step from t: its start values join the history (replacing the last ones when
 * the step starts again from the same time; the history restarts when it starts earlier,
 * after a state was restored), and the FMU is given them back if a previous step left
 * extrapolated values in it.  Inputs the caller never set are read from the FMU. */
static SartStatus interm_begin_step(SartInner *in, double t)
{
	Fmi3Inner *f = impl(in);
	Fmi3Interm *m = f->interm;
	for (size_t i = 0; i < m->n; i++)
		if (isnan(m->next[i])) {
			fmi3Status st = f->api.get_float64(f->c, &in->intermediate_inputs[i], 1,
			                                   &m->next[i], 1);
			if (st != fmi3OK)
				return outcome(in, "fmi3GetFloat64", st);
		}
	if (m->npoints > 0 && t < m->t_last)
		m->npoints = 0;
	if (m->npoints == 0 || t > m->t_last) {
		memcpy(m->prev, m->last, m->n * sizeof *m->prev);
		m->t_prev = m->t_last;
		m->npoints = m->npoints < 2 ? m->npoints + 1 : 2;
	}
	memcpy(m->last, m->next, m->n * sizeof *m->last);
	m->t_last = t;
	m->failed = fmi3OK;
	if (m->moved) {
		m->moved = 0;
		return outcome(in, "fmi3SetFloat64", f->api.set_float64(f->c, in->intermediate_inputs,
		                                                          m->n, m->last, m->n));
	}
	return SART_OK;
}

/* After the step: a set the FMU refused inside it is the step's error. */
static SART_COLD SartStatus interm_end_step(SartInner *in, SartStatus st)
{
	Fmi3Interm *m = impl(in)->interm;
	if (m->failed == fmi3OK || st > SART_WARNING)
		return st;
	return worse(st, sart_inner_report(in, to_sart(m->failed), "fmi3SetFloat64 of the "
	                                   "intermediate inputs at t = %s (inside the step) "
	                                   "returned %s", SART_NUM(m->failed_at),
	                                   fmi3_status_name(m->failed)));
}

/* The FMU's intermediate update callback.  Asked for inputs, the seam gives each its linear
 * extrapolation from the last two step starts.  It never asks to return early: its callers
 * end their steps at their own event times, and the FMU's events end steps by themselves
 * (an early return, when allowed). */
static void intermediate_update(fmi3InstanceEnvironment env, fmi3Float64 time,
                                fmi3Boolean set_requested, fmi3Boolean get_allowed,
                                fmi3Boolean step_finished, fmi3Boolean can_return_early,
                                fmi3Boolean *early_return_requested,
                                fmi3Float64 *early_return_time)
{
	SartInner *in = env;
	Fmi3Inner *f = impl(in);
	Fmi3Interm *m = f->interm;
	(void)get_allowed, (void)step_finished, (void)can_return_early;
	if (early_return_requested)
		*early_return_requested = false;
	if (early_return_time)
		*early_return_time = time;
	if (!set_requested || !m || m->npoints == 0 || !isfinite(time))
		return;
	for (size_t i = 0; i < m->n; i++) {
		double slope = m->npoints == 2 && m->t_last > m->t_prev
		                       ? (m->last[i] - m->prev[i]) / (m->t_last - m->t_prev)
		                       : 0.0;
		m->at[i] = m->last[i] + slope * (time - m->t_last);
	}
	fmi3Status st = f->api.set_float64(f->c, in->intermediate_inputs, m->n, m->at, m->n);
	m->moved = 1;
	if (st != fmi3OK && st > m->failed) {
		m->failed = st;
		m->failed_at = time;
	}
}

/* ---- loading ---------------------------------------------------------------------------- */

static SartStatus fmi3_bind(SartInner *in)
{
	char missing[SART_MESSAGE_MAX / 2];
	size_t used = 0;
	SartStatus st = SART_ERROR;
	Fmi3Inner *f = calloc(1, sizeof *f);
	if (!f)
		return sart_inner_report(in, SART_ERROR, "cannot load %s: out of memory",
		                         in->lib_path);
	missing[0] = '\0';
	for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
		void *sym = sart_lib_sym(in->lib, symbols[i].name);
		unsigned need = symbols[i].needed_with;
		if (sym) {
			memcpy((char *)&f->api + symbols[i].offset, &sym, sizeof sym);
			continue;
		}
		if (!required(need, in->caps))
			continue;
		int n = snprintf(missing + used, sizeof missing - used, "%s%s%s%s%s",
		                 used ? ", " : "", symbols[i].name,
		                 symbols[i].capability ? " (needed for " : "",
		                 symbols[i].capability ? symbols[i].capability : "",
		                 symbols[i].capability ? ")" : "");
		if (n > 0)
			used = used + (size_t)n < sizeof missing ? used + (size_t)n : sizeof missing - 1;
	}
	if (used) {
		sart_inner_report(in, SART_ERROR, "cannot load %s: it does not export %s",
		                  in->lib_path, missing);
		goto done;
	}
	if (f->api.get_version) {
		const char *v = f->api.get_version();
		if (!v || strncmp(v, "3.", 2) != 0) {
			sart_inner_report(in, SART_ERROR, "cannot load %s: fmi3GetVersion says '%s', "
			                  "not 3.x", in->lib_path, v ? v : "(null)");
			goto done;
		}
	}
	in->impl = f;
	f = NULL;
	st = SART_OK;
done:
	free(f);
	return st;
}

static void fmi3_unbind(SartInner *in)
{
	Fmi3Inner *f = impl(in);
	for (size_t i = 0; f && i < f->nshadows; i++) {
		free(f->shadows[i].v);
		free(f->shadows[i].known);
	}
	if (f) {
		free(f->shadows);
		sart_inner_fmi3_free_bytes(f);
		interm_free(f->interm);
	}
	free(in->impl);
	in->impl = NULL;
}

/* ---- the life cycle --------------------------------------------------------------------- */

static SartStatus fmi3_instantiate(SartInner *in, const char *token, int logging_on)
{
	Fmi3Inner *f = impl(in);
	f->next_event = INFINITY;
	/* FMI 3.0 passes the resources as a directory path ending in a separator */
	size_t len = strlen(in->resource_dir);
	char *path = malloc(len + 2);
	if (!path)
		return sart_inner_report(in, SART_ERROR, "fmi3InstantiateCoSimulation: out of memory");
	memcpy(path, in->resource_dir, len);
	memcpy(path + len, "/", 2);
	if (in->caps & SART_CAP_SCHEDULED_EXECUTION) {
		f->event_mode_used = 0;
		f->early_return_allowed = 0;
		SartStatus st = sart_inner_fmi3_instantiate_se(in, token, path, logging_on, forward_log);
		free(path);
		return st;
	}
	if (in->caps & SART_CAP_MODEL_EXCHANGE) {
		/* Event Mode is the ME layer's (sart_inner_me.c): exit_init settles nothing */
		f->event_mode_used = 0;
		f->early_return_allowed = 0;
		f->c = f->api.instantiate_me(in->name, token, path, false, logging_on ? true : false,
		                             in, forward_log);
		free(path);
		if (!f->c)
			return sart_inner_report(in, SART_ERROR, "fmi3InstantiateModelExchange returned "
			                         "NULL");
		return SART_OK;
	}
	f->event_mode_used = (in->caps & SART_CAP_EVENT_MODE) != 0;
	f->early_return_allowed = (in->caps & SART_CAP_EARLY_RETURN) != 0;
	if (in->nintermediate_inputs && !f->interm &&
	    !(f->interm = interm_new(in->nintermediate_inputs))) {
		free(path);
		return sart_inner_report(in, SART_ERROR, "fmi3InstantiateCoSimulation: out of memory");
	}
	f->held_log[0] = '\0';
	f->held_status = SART_OK;
	f->holding_log = f->event_mode_used;
	f->c = f->api.instantiate(in->name, token, path, false, logging_on ? true : false,
	                          f->event_mode_used ? true : false,
	                          f->early_return_allowed ? true : false, in->intermediate_inputs,
	                          in->nintermediate_inputs, in, forward_log, intermediate_update);
	f->holding_log = 0;
	SartStatus st = SART_OK;
	if (!f->c && f->event_mode_used) {
		/* hasEventMode says the FMU can have Event Mode, not that every model built with
		 * its exporter's framework accepts it (Reference-FMUs' models without events refuse
		 * it): without it the FMU handles its events inside its steps, which is just as
		 * good for the seam's callers, so the refusal costs nothing but this warning. */
		f->event_mode_used = 0;
		f->c = f->api.instantiate(in->name, token, path, false, logging_on ? true : false,
		                          false, f->early_return_allowed ? true : false,
		                          in->intermediate_inputs, in->nintermediate_inputs, in,
		                          forward_log, intermediate_update);
		if (f->c)
			st = sart_inner_report(in, SART_WARNING, "fmi3InstantiateCoSimulation refused "
			                       "Event Mode (%s); instantiated without it, the FMU handles "
			                       "its events inside its steps",
			                       f->held_log[0] ? f->held_log : "no message");
		else if (f->held_log[0])
			sart_inner_forward(in, f->held_status, f->held_category, f->held_log);
	} else if (f->held_log[0]) {
		sart_inner_forward(in, f->held_status, f->held_category, f->held_log);
	}
	free(path);
	if (!f->c)
		return sart_inner_report(in, SART_ERROR, "fmi3InstantiateCoSimulation returned NULL");
	return st;
}

static void fmi3_free_instance(SartInner *in)
{
	Fmi3Inner *f = impl(in);
	f->api.free_instance(f->c);
	f->c = NULL;
}

static SartStatus fmi3_enter_init(SartInner *in, const SartExperiment *ex)
{
	Fmi3Inner *f = impl(in);
	fmi3Status st = f->api.enter_init(f->c, ex->tolerance_defined ? true : false, ex->tolerance,
	                                  ex->start_time, ex->stop_time_defined ? true : false,
	                                  ex->stop_time);
	return outcome(in, "fmi3EnterInitializationMode", st);
}

/* In Event Mode at time t (NaN: at the end of initialization): the discrete states updated until they settle, then Step Mode.
 * A request to terminate is an error: the seam's callers cannot end a run early. */
static SartStatus settle_events(SartInner *in, double t)
{
	Fmi3Inner *f = impl(in);
	SartStatus worst = SART_OK;
	char when[48] = "after initialization";
	if (!isnan(t))
		snprintf(when, sizeof when, "at t = %s", SART_NUM(t));
	for (int i = 0;; i++) {
		fmi3Boolean again = false, terminate = false, nominals = false, values = false;
		fmi3Boolean next_defined = false;
		fmi3Float64 next = 0;
		if (i == MAX_EVENT_ITERATIONS)
			return sart_inner_report(in, SART_ERROR, "fmi3UpdateDiscreteStates %s: the "
			                         "discrete states did not settle in %d iterations", when,
			                         MAX_EVENT_ITERATIONS);
		worst = worse(worst, outcome(in, "fmi3UpdateDiscreteStates",
		                             f->api.update_discrete_states(f->c, &again, &terminate,
		                                                           &nominals, &values,
		                                                           &next_defined, &next)));
		if (worst > SART_WARNING)
			return worst;
		if (terminate)
			return sart_inner_report(in, SART_ERROR, "fmi3UpdateDiscreteStates %s asked to "
			                         "terminate the simulation", when);
		f->next_event = next_defined ? next : INFINITY;
		if (!again)
			break;
	}
	/* the clocks' layer reads what ticked while the FMU is still in Event Mode */
	if (f->event_hook) {
		worst = worse(worst, f->event_hook(in, t));
		if (worst > SART_WARNING)
			return worst;
	}
	return worse(worst, outcome(in, "fmi3EnterStepMode", f->api.enter_step_mode(f->c)));
}

SartStatus sart_inner_fmi3_settle(SartInner *in, double t)
{
	return settle_events(in, t);
}

static SartStatus fmi3_exit_init(SartInner *in)
{
	Fmi3Inner *f = impl(in);
	SartStatus s = outcome(in, "fmi3ExitInitializationMode", f->api.exit_init(f->c));
	/* with event mode used, initialization ends in Event Mode */
	if (s <= SART_WARNING && f->event_mode_used)
		s = worse(s, settle_events(in, NAN));
	return s;
}

static SartStatus fmi3_terminate(SartInner *in)
{
	Fmi3Inner *f = impl(in);
	return outcome(in, "fmi3Terminate", f->api.terminate(f->c));
}

static SartStatus fmi3_reset(SartInner *in)
{
	Fmi3Inner *f = impl(in);
	return outcome(in, "fmi3Reset", f->api.reset(f->c));
}

/* ---- values: Reals ---------------------------------------------------------------------- */

/* Whether every value reference is of type t (the usual case, one call for all). */
static int all_of_type(const SartInner *in, const SartVr vr[], size_t n, SartValueType t)
{
	if (in->nvr_types == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (sart_inner_vr_type(in, vr[i], t, NULL) != t)
			return 0;
	return 1;
}

static SART_COLD SartStatus wrong_kind(SartInner *in, const char *fn, SartVr vr,
                                       SartValueType t, const char *name, const char *want)
{
	return sart_inner_report(in, SART_ERROR, "%s: '%s' (valueReference %u) is %s, not %s", fn,
	                         name ? name : "?", vr, type_name(t), want);
}

/* ---- values: elements of arrays ---------------------------------------------------------- */

/* What a call exchanges, for the elements' arrays: the seam's three value kinds. */
typedef enum ValueKind { KIND_REAL, KIND_INTEGER, KIND_BOOLEAN } ValueKind;

static SartStatus fmi3_get_real(SartInner *in, const SartVr vr[], size_t n, double v[]);
static SartStatus fmi3_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[]);
static SartStatus fmi3_get_boolean(SartInner *in, const SartVr vr[], size_t n, int v[]);
static SartStatus fmi3_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[]);
static SartStatus fmi3_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[]);
static SartStatus fmi3_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[]);
static void int_range(SartValueType t, long long *lo, long long *hi);

/* The sized type of e's array for a call of kind k, and its name; an array of the other
 * kind (a Float array asked for Integers) is reported. */
static SartStatus array_type(SartInner *in, const SartVrElement *e, ValueKind k,
                             SartValueType *t, const char **name)
{
	*t = sart_inner_vr_type(in, e->array, k == KIND_INTEGER ? SART_VT_INT32 : SART_VT_FLOAT64,
	                        name);
	int is_float = *t == SART_VT_FLOAT64 || *t == SART_VT_FLOAT32;
	if (k == KIND_BOOLEAN || (k == KIND_REAL) == is_float)
		return SART_OK;
	return wrong_kind(in, "an array element", e->array, *t, *name,
	                  k == KIND_REAL ? "a Float" : "an integer");
}

/* The whole array behind e, as doubles. */
static SartStatus array_get(SartInner *in, const SartVrElement *e, ValueKind k, double *out)
{
	Fmi3Inner *f = impl(in);
	SartValueType t;
	const char *name, *fn = "fmi3GetBoolean";
	SartStatus s = array_type(in, e, k, &t, &name);
	if (s != SART_OK)
		return s;
	size_t n = e->size;
	void *buf = malloc(n * sizeof(fmi3Float64) + 1);
	if (!buf)
		return sart_inner_report(in, SART_ERROR, "getting the array '%s': out of memory",
		                         name ? name : "?");
	fmi3Status st = fmi3Error;
	if (k == KIND_BOOLEAN) {
		st = f->api.get_boolean(f->c, &e->array, 1, buf, n);
		for (size_t i = 0; i < n; i++)
			out[i] = ((fmi3Boolean *)buf)[i] ? 1 : 0;
	} else {
		switch (t) {
#define ARRAY_GET(TAG, FN, TYPE, field)                                                        \
	case TAG:                                                                             \
		fn = FN;                                                                      \
		st = f->api.field(f->c, &e->array, 1, (TYPE *)buf, n);                        \
		for (size_t i = 0; i < n; i++)                                                \
			out[i] = (double)((TYPE *)buf)[i];                                    \
		break;
		ARRAY_GET(SART_VT_FLOAT64, "fmi3GetFloat64", fmi3Float64, get_float64)
		ARRAY_GET(SART_VT_FLOAT32, "fmi3GetFloat32", fmi3Float32, get_float32)
		ARRAY_GET(SART_VT_INT8, "fmi3GetInt8", fmi3Int8, get_int8)
		ARRAY_GET(SART_VT_UINT8, "fmi3GetUInt8", fmi3UInt8, get_uint8)
		ARRAY_GET(SART_VT_INT16, "fmi3GetInt16", fmi3Int16, get_int16)
		ARRAY_GET(SART_VT_UINT16, "fmi3GetUInt16", fmi3UInt16, get_uint16)
		ARRAY_GET(SART_VT_INT32, "fmi3GetInt32", fmi3Int32, get_int32)
		ARRAY_GET(SART_VT_UINT32, "fmi3GetUInt32", fmi3UInt32, get_uint32)
		ARRAY_GET(SART_VT_INT64, "fmi3GetInt64", fmi3Int64, get_int64)
		ARRAY_GET(SART_VT_UINT64, "fmi3GetUInt64", fmi3UInt64, get_uint64)
#undef ARRAY_GET
		}
	}
	free(buf);
	return outcome(in, fn, st);
}

/* The whole array behind e set to v, each value checked against the array's type. */
static SartStatus array_set(SartInner *in, const SartVrElement *e, ValueKind k,
                            const double *v)
{
	Fmi3Inner *f = impl(in);
	SartValueType t;
	const char *name, *fn = "fmi3SetBoolean";
	SartStatus s = array_type(in, e, k, &t, &name);
	if (s != SART_OK)
		return s;
	size_t n = e->size;
	long long lo, hi;
	int_range(t, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		if (k == KIND_INTEGER && (v[i] < (double)lo || v[i] > (double)hi))
			return sart_inner_report(in, SART_ERROR, "fmi3Set%s: the value %s for '%s[%zu]' "
			                         "(valueReference %u) does not fit %s", type_name(t),
			                         SART_NUM(v[i]), name ? name : "?", i + 1, e->array,
			                         type_name(t));
		if (k == KIND_REAL && t == SART_VT_FLOAT32 && isfinite(v[i]) && fabs(v[i]) > FLT_MAX)
			return sart_inner_report(in, SART_ERROR, "fmi3SetFloat32: the value %s for "
			                         "'%s[%zu]' (valueReference %u) does not fit Float32",
			                         SART_NUM(v[i]), name ? name : "?", i + 1, e->array);
	}
	void *buf = malloc(n * sizeof(fmi3Float64) + 1);
	if (!buf)
		return sart_inner_report(in, SART_ERROR, "setting the array '%s': out of memory",
		                         name ? name : "?");
	fmi3Status st = fmi3Error;
	if (k == KIND_BOOLEAN) {
		for (size_t i = 0; i < n; i++)
			((fmi3Boolean *)buf)[i] = v[i] != 0;
		st = f->api.set_boolean(f->c, &e->array, 1, buf, n);
	} else {
		switch (t) {
#define ARRAY_SET(TAG, FN, TYPE, field)                                                        \
	case TAG:                                                                             \
		fn = FN;                                                                      \
		for (size_t i = 0; i < n; i++)                                                \
			((TYPE *)buf)[i] = (TYPE)v[i];                                        \
		st = f->api.field(f->c, &e->array, 1, (TYPE *)buf, n);                        \
		break;
		ARRAY_SET(SART_VT_FLOAT64, "fmi3SetFloat64", fmi3Float64, set_float64)
		ARRAY_SET(SART_VT_FLOAT32, "fmi3SetFloat32", fmi3Float32, set_float32)
		ARRAY_SET(SART_VT_INT8, "fmi3SetInt8", fmi3Int8, set_int8)
		ARRAY_SET(SART_VT_UINT8, "fmi3SetUInt8", fmi3UInt8, set_uint8)
		ARRAY_SET(SART_VT_INT16, "fmi3SetInt16", fmi3Int16, set_int16)
		ARRAY_SET(SART_VT_UINT16, "fmi3SetUInt16", fmi3UInt16, set_uint16)
		ARRAY_SET(SART_VT_INT32, "fmi3SetInt32", fmi3Int32, set_int32)
		ARRAY_SET(SART_VT_UINT32, "fmi3SetUInt32", fmi3UInt32, set_uint32)
		ARRAY_SET(SART_VT_INT64, "fmi3SetInt64", fmi3Int64, set_int64)
		ARRAY_SET(SART_VT_UINT64, "fmi3SetUInt64", fmi3UInt64, set_uint64)
#undef ARRAY_SET
		}
	}
	free(buf);
	return outcome(in, fn, st);
}

/* A get naming array elements: each array read once for a run of its elements, the
 * scalars one by one. */
static SART_COLD SartStatus elements_get(SartInner *in, ValueKind k, const SartVr vr[],
                                         size_t n, double rv[], int iv[])
{
	SartStatus worst = SART_OK;
	double *arr = NULL;
	const SartVrElement *held = NULL; /* whose array arr holds */
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const SartVrElement *e = sart_inner_element(in, vr[i]);
		if (!e) {
			worst = worse(worst, k == KIND_REAL ? fmi3_get_real(in, &vr[i], 1, &rv[i])
			                     : k == KIND_INTEGER ? fmi3_get_integer(in, &vr[i], 1, &iv[i])
			                                         : fmi3_get_boolean(in, &vr[i], 1, &iv[i]));
			continue;
		}
		if (!held || held->array != e->array || held->size != e->size) {
			double *grown = realloc(arr, e->size * sizeof *arr + 1);
			if (!grown) {
				worst = sart_inner_report(in, SART_ERROR, "getting an array: out of memory");
				break;
			}
			arr = grown;
			held = e;
			worst = worse(worst, array_get(in, e, k, arr));
			if (worst > SART_WARNING)
				break;
		}
		double x = arr[e->index];
		if (k == KIND_REAL) {
			rv[i] = x;
		} else if (x < INT_MIN || x > INT_MAX) {
			const char *name;
			sart_inner_vr_type(in, e->array, SART_VT_INT32, &name);
			worst = sart_inner_report(in, SART_ERROR, "the value %s of '%s[%u]' "
			                          "(valueReference %u) does not fit an Integer",
			                          SART_NUM(x), name ? name : "?", e->index + 1, e->array);
		} else {
			iv[i] = (int)x;
		}
	}
	free(arr);
	return worst;
}

/* The shadow of e's array, made from its elements' start values on first use; NULL when
 * out of memory. */
static ArrayShadow *shadow_of(SartInner *in, const SartVrElement *e)
{
	Fmi3Inner *f = impl(in);
	for (size_t i = 0; i < f->nshadows; i++)
		if (f->shadows[i].array == e->array && f->shadows[i].size == e->size)
			return &f->shadows[i];
	ArrayShadow *grown = realloc(f->shadows, (f->nshadows + 1) * sizeof *grown);
	if (!grown)
		return NULL;
	f->shadows = grown;
	ArrayShadow *sh = &f->shadows[f->nshadows];
	*sh = (ArrayShadow){e->array, e->size, calloc(e->size + 1, sizeof *sh->v),
	                    calloc(e->size + 1, 1)};
	if (!sh->v || !sh->known) {
		free(sh->v);
		free(sh->known);
		return NULL;
	}
	f->nshadows++;
	for (size_t i = 0; i < in->nelements; i++) {
		const SartVrElement *x = &in->elements[i];
		if (x->array == e->array && x->index < e->size && !isnan(x->start)) {
			sh->v[x->index] = x->start;
			sh->known[x->index] = 1;
		}
	}
	return sh;
}

/* A set naming array elements: each array written once, with the values the call gives its
 * elements and, when it does not give them all, the FMU's own for the others. */
static SART_COLD SartStatus elements_set(SartInner *in, ValueKind k, const SartVr vr[],
                                         size_t n, const double rv[], const int iv[])
{
	SartStatus worst = SART_OK;
	SartVr *done = malloc(n * sizeof *done + 1); /* the arrays written */
	size_t ndone = 0;
	if (!done)
		return sart_inner_report(in, SART_ERROR, "setting an array: out of memory");
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const SartVrElement *e = sart_inner_element(in, vr[i]);
		if (!e) {
			worst = worse(worst, k == KIND_REAL ? fmi3_set_real(in, &vr[i], 1, &rv[i])
			                     : k == KIND_INTEGER ? fmi3_set_integer(in, &vr[i], 1, &iv[i])
			                                         : fmi3_set_boolean(in, &vr[i], 1, &iv[i]));
			continue;
		}
		size_t d = 0;
		while (d < ndone && done[d] != e->array)
			d++;
		if (d < ndone)
			continue;
		done[ndone++] = e->array;
		double *vals = malloc(e->size * sizeof *vals + 1);
		unsigned char *given = calloc(e->size + 1, 1);
		size_t ngiven = 0;
		if (!vals || !given) {
			worst = sart_inner_report(in, SART_ERROR, "setting an array: out of memory");
		} else {
			for (size_t j = i; j < n; j++) {
				const SartVrElement *ej = sart_inner_element(in, vr[j]);
				if (!ej || ej->array != e->array || ej->index >= e->size)
					continue;
				vals[ej->index] = k == KIND_REAL ? rv[j] : (double)iv[j];
				ngiven += !given[ej->index];
				given[ej->index] = 1;
			}
			ArrayShadow *sh = shadow_of(in, e);
			for (size_t x = 0; sh && ngiven < e->size && x < e->size; x++)
				if (!given[x] && sh->known[x]) {
					vals[x] = sh->v[x];
					given[x] = 1;
					ngiven++;
				}
			if (ngiven < e->size) {
				double *now = malloc(e->size * sizeof *now + 1);
				worst = now ? worse(worst, array_get(in, e, k, now))
				            : sart_inner_report(in, SART_ERROR, "setting an array: out of "
				                                "memory");
				for (size_t x = 0; now && x < e->size; x++)
					if (!given[x])
						vals[x] = now[x];
				free(now);
			}
			if (worst <= SART_WARNING)
				worst = worse(worst, array_set(in, e, k, vals));
			if (worst <= SART_WARNING && sh) {
				memcpy(sh->v, vals, e->size * sizeof *vals);
				memset(sh->known, 1, e->size);
			}
		}
		free(vals);
		free(given);
	}
	free(done);
	return worst;
}

static SART_COLD SartStatus get_real_mixed(SartInner *in, const SartVr vr[], size_t n,
                                           double v[])
{
	Fmi3Inner *f = impl(in);
	SartStatus worst = SART_OK;
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const char *name;
		SartValueType t = sart_inner_vr_type(in, vr[i], SART_VT_FLOAT64, &name);
		if (t == SART_VT_FLOAT64) {
			worst = worse(worst, outcome(in, "fmi3GetFloat64",
			                             f->api.get_float64(f->c, &vr[i], 1, &v[i], 1)));
		} else if (t == SART_VT_FLOAT32) {
			fmi3Float32 x = 0;
			worst = worse(worst, outcome(in, "fmi3GetFloat32",
			                             f->api.get_float32(f->c, &vr[i], 1, &x, 1)));
			v[i] = x;
		} else {
			worst = wrong_kind(in, "sart_inner_get_real", vr[i], t, name, "a Float");
		}
	}
	return worst;
}

static SartStatus fmi3_get_real(SartInner *in, const SartVr vr[], size_t n, double v[])
{
	Fmi3Inner *f = impl(in);
	if (any_element(in, vr, n))
		return elements_get(in, KIND_REAL, vr, n, v, NULL);
	if (all_of_type(in, vr, n, SART_VT_FLOAT64))
		return outcome(in, "fmi3GetFloat64", f->api.get_float64(f->c, vr, n, v, n));
	return get_real_mixed(in, vr, n, v);
}

static SART_COLD SartStatus set_real_mixed(SartInner *in, const SartVr vr[], size_t n,
                                           const double v[])
{
	Fmi3Inner *f = impl(in);
	SartStatus worst = SART_OK;
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const char *name;
		SartValueType t = sart_inner_vr_type(in, vr[i], SART_VT_FLOAT64, &name);
		if (t == SART_VT_FLOAT64) {
			worst = worse(worst, outcome(in, "fmi3SetFloat64",
			                             f->api.set_float64(f->c, &vr[i], 1, &v[i], 1)));
		} else if (t == SART_VT_FLOAT32) {
			if (isfinite(v[i]) && fabs(v[i]) > FLT_MAX)
				return sart_inner_report(in, SART_ERROR, "fmi3SetFloat32: the value %s "
				                         "for '%s' (valueReference %u) does not fit Float32",
				                         SART_NUM(v[i]), name ? name : "?", vr[i]);
			fmi3Float32 x = (fmi3Float32)v[i];
			worst = worse(worst, outcome(in, "fmi3SetFloat32",
			                             f->api.set_float32(f->c, &vr[i], 1, &x, 1)));
		} else {
			worst = wrong_kind(in, "sart_inner_set_real", vr[i], t, name, "a Float");
		}
	}
	return worst;
}

static SartStatus fmi3_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[])
{
	Fmi3Inner *f = impl(in);
	if (f->interm)
		interm_note_set(in, vr, n, v);
	if (any_element(in, vr, n))
		return elements_set(in, KIND_REAL, vr, n, v, NULL);
	if (all_of_type(in, vr, n, SART_VT_FLOAT64))
		return outcome(in, "fmi3SetFloat64", f->api.set_float64(f->c, vr, n, v, n));
	return set_real_mixed(in, vr, n, v);
}

/* ---- values: Integers ------------------------------------------------------------------- */

/* One integer of any sized type, widened to long long (UInt64 beyond it is reported). */
static SartStatus get_one_integer(SartInner *in, SartVr vr, SartValueType t, const char *name,
                                  long long *out)
{
	Fmi3Inner *f = impl(in);
	const char *fn = "fmi3GetInt32";
	fmi3Status st = fmi3Error;
	switch (t) {
#define GET_CASE(TAG, FN, TYPE, field)                                                         \
	case TAG: {                                                                           \
		TYPE x = 0;                                                                   \
		fn = FN;                                                                      \
		st = f->api.field(f->c, &vr, 1, &x, 1);                                       \
		*out = (long long)x;                                                          \
		break;                                                                        \
	}
	GET_CASE(SART_VT_INT8, "fmi3GetInt8", fmi3Int8, get_int8)
	GET_CASE(SART_VT_UINT8, "fmi3GetUInt8", fmi3UInt8, get_uint8)
	GET_CASE(SART_VT_INT16, "fmi3GetInt16", fmi3Int16, get_int16)
	GET_CASE(SART_VT_UINT16, "fmi3GetUInt16", fmi3UInt16, get_uint16)
	GET_CASE(SART_VT_INT32, "fmi3GetInt32", fmi3Int32, get_int32)
	GET_CASE(SART_VT_UINT32, "fmi3GetUInt32", fmi3UInt32, get_uint32)
	GET_CASE(SART_VT_INT64, "fmi3GetInt64", fmi3Int64, get_int64)
#undef GET_CASE
	case SART_VT_UINT64: {
		fmi3UInt64 x = 0;
		fn = "fmi3GetUInt64";
		st = f->api.get_uint64(f->c, &vr, 1, &x, 1);
		*out = x > (fmi3UInt64)LLONG_MAX ? LLONG_MAX : (long long)x;
		if (st == fmi3OK && x > (fmi3UInt64)INT_MAX)
			return sart_inner_report(in, SART_ERROR, "%s: the value %llu of '%s' "
			                         "(valueReference %u) does not fit an Integer", fn,
			                         (unsigned long long)x, name ? name : "?", vr);
		break;
	}
	default:
		return wrong_kind(in, "sart_inner_get_integer", vr, t, name, "an integer");
	}
	return outcome(in, fn, st);
}

static SART_COLD SartStatus get_integer_mixed(SartInner *in, const SartVr vr[], size_t n,
                                              int v[])
{
	SartStatus worst = SART_OK;
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const char *name;
		SartValueType t = sart_inner_vr_type(in, vr[i], SART_VT_INT32, &name);
		long long x = 0;
		worst = worse(worst, get_one_integer(in, vr[i], t, name, &x));
		if (worst > SART_WARNING)
			break;
		if (x < INT_MIN || x > INT_MAX)
			return sart_inner_report(in, SART_ERROR, "fmi3Get%s: the value %lld of '%s' "
			                         "(valueReference %u) does not fit an Integer",
			                         type_name(t), x, name ? name : "?", vr[i]);
		v[i] = (int)x;
	}
	return worst;
}

static SartStatus fmi3_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	Fmi3Inner *f = impl(in);
	if (any_element(in, vr, n))
		return elements_get(in, KIND_INTEGER, vr, n, NULL, v);
	if (all_of_type(in, vr, n, SART_VT_INT32))
		return outcome(in, "fmi3GetInt32", f->api.get_int32(f->c, vr, n, v, n));
	return get_integer_mixed(in, vr, n, v);
}

/* The range of each integer type that an int can reach. */
static void int_range(SartValueType t, long long *lo, long long *hi)
{
	switch (t) {
	case SART_VT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return;
	case SART_VT_UINT8: *lo = 0, *hi = UINT8_MAX; return;
	case SART_VT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return;
	case SART_VT_UINT16: *lo = 0, *hi = UINT16_MAX; return;
	case SART_VT_UINT32:
	case SART_VT_UINT64: *lo = 0, *hi = INT_MAX; return;
	default: *lo = INT_MIN, *hi = INT_MAX; return;
	}
}

static SartStatus set_one_integer(SartInner *in, SartVr vr, SartValueType t, const char *name,
                                  int value)
{
	Fmi3Inner *f = impl(in);
	long long lo, hi;
	int_range(t, &lo, &hi);
	if (value < lo || value > hi)
		return sart_inner_report(in, SART_ERROR, "fmi3Set%s: the value %d for '%s' "
		                         "(valueReference %u) does not fit %s", type_name(t), value,
		                         name ? name : "?", vr, type_name(t));
	switch (t) {
#define SET_CASE(TAG, FN, TYPE, field)                                                         \
	case TAG: {                                                                           \
		TYPE x = (TYPE)value;                                                         \
		return outcome(in, FN, f->api.field(f->c, &vr, 1, &x, 1));                    \
	}
	SET_CASE(SART_VT_INT8, "fmi3SetInt8", fmi3Int8, set_int8)
	SET_CASE(SART_VT_UINT8, "fmi3SetUInt8", fmi3UInt8, set_uint8)
	SET_CASE(SART_VT_INT16, "fmi3SetInt16", fmi3Int16, set_int16)
	SET_CASE(SART_VT_UINT16, "fmi3SetUInt16", fmi3UInt16, set_uint16)
	SET_CASE(SART_VT_INT32, "fmi3SetInt32", fmi3Int32, set_int32)
	SET_CASE(SART_VT_UINT32, "fmi3SetUInt32", fmi3UInt32, set_uint32)
	SET_CASE(SART_VT_INT64, "fmi3SetInt64", fmi3Int64, set_int64)
	SET_CASE(SART_VT_UINT64, "fmi3SetUInt64", fmi3UInt64, set_uint64)
#undef SET_CASE
	default:
		return wrong_kind(in, "sart_inner_set_integer", vr, t, name, "an integer");
	}
}

static SART_COLD SartStatus set_integer_mixed(SartInner *in, const SartVr vr[], size_t n,
                                              const int v[])
{
	SartStatus worst = SART_OK;
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const char *name;
		SartValueType t = sart_inner_vr_type(in, vr[i], SART_VT_INT32, &name);
		worst = worse(worst, set_one_integer(in, vr[i], t, name, v[i]));
	}
	return worst;
}

static SartStatus fmi3_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	Fmi3Inner *f = impl(in);
	if (any_element(in, vr, n))
		return elements_set(in, KIND_INTEGER, vr, n, NULL, v);
	if (all_of_type(in, vr, n, SART_VT_INT32))
		return outcome(in, "fmi3SetInt32", f->api.set_int32(f->c, vr, n, v, n));
	return set_integer_mixed(in, vr, n, v);
}

/* ---- values: Booleans ------------------------------------------------------------------- */

#define BOOL_CHUNK 64 /* bool <-> int conversions go through a buffer of this many */

static SartStatus fmi3_get_boolean(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	Fmi3Inner *f = impl(in);
	if (any_element(in, vr, n))
		return elements_get(in, KIND_BOOLEAN, vr, n, NULL, v);
	fmi3Boolean buf[BOOL_CHUNK];
	SartStatus worst = SART_OK;
	for (size_t at = 0; at < n && worst <= SART_WARNING; at += BOOL_CHUNK) {
		size_t k = n - at < BOOL_CHUNK ? n - at : BOOL_CHUNK;
		worst = worse(worst, outcome(in, "fmi3GetBoolean",
		                             f->api.get_boolean(f->c, vr + at, k, buf, k)));
		for (size_t i = 0; i < k; i++)
			v[at + i] = buf[i] ? 1 : 0;
	}
	return worst;
}

static SartStatus fmi3_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	Fmi3Inner *f = impl(in);
	if (any_element(in, vr, n))
		return elements_set(in, KIND_BOOLEAN, vr, n, NULL, v);
	fmi3Boolean buf[BOOL_CHUNK];
	SartStatus worst = SART_OK;
	for (size_t at = 0; at < n && worst <= SART_WARNING; at += BOOL_CHUNK) {
		size_t k = n - at < BOOL_CHUNK ? n - at : BOOL_CHUNK;
		for (size_t i = 0; i < k; i++)
			buf[i] = v[at + i] != 0;
		worst = worse(worst, outcome(in, "fmi3SetBoolean",
		                             f->api.set_boolean(f->c, vr + at, k, buf, k)));
	}
	return worst;
}

/* ---- derivatives ------------------------------------------------------------------------ */

static SartStatus fmi3_set_real_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                  const int order[], const double value[])
{
	(void)vr, (void)n, (void)order, (void)value;
	return unavailable(in, "setting input derivatives", "FMI 3.0 has no such function");
}

static SartStatus fmi3_get_real_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                   const int order[], double value[])
{
	Fmi3Inner *f = impl(in);
	if (!f->api.get_output_derivatives)
		return unavailable(in, "fmi3GetOutputDerivatives", "the library does not export it");
	return outcome(in, "fmi3GetOutputDerivatives",
	               f->api.get_output_derivatives(f->c, vr, n, order, value, n));
}

/* ---- stepping --------------------------------------------------------------------------- */

static SART_COLD SartStatus step_other(SartInner *in, double t, double h, fmi3Status st,
                                       fmi3Boolean event, fmi3Boolean terminate,
                                       fmi3Boolean early, double last, double *reached);

static SartStatus fmi3_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                               double *reached)
{
	Fmi3Inner *f = impl(in);
	fmi3Boolean event = false, terminate = false, early = false;
	fmi3Float64 last = t + h;
	if (f->interm) {
		SartStatus b = interm_begin_step(in, t);
		if (b > SART_WARNING) {
			*reached = NAN;
			return b;
		}
	}
	fmi3Status st = f->api.do_step(f->c, t, h, no_set_state_prior ? true : false, &event,
	                               &terminate, &early, &last);
	if (st == fmi3OK && !event && !terminate && !early && !(f->interm && f->interm->failed)) {
		*reached = t + h;
		return SART_OK;
	}
	SartStatus r = step_other(in, t, h, st, event, terminate, early, last, reached);
	return f->interm ? interm_end_step(in, r) : r;
}

/* What one fmi3DoStep from t by h towards end returned, other than a plain fmi3OK:
 * failures and discards reported, an early return checked; *at is where the FMU stands,
 * and *go_on says that it stopped early at an event without early return allowed, which
 * some exporters do once Event Mode is used: the event is handled there and the step taken
 * on to its end. */
static SART_COLD SartStatus step_outcome(SartInner *in, double t, double h, double end,
                                         fmi3Status st, fmi3Boolean event,
                                         fmi3Boolean terminate, fmi3Boolean early,
                                         double last, double *at, int *go_on)
{
	Fmi3Inner *f = impl(in);
	*at = early ? last : end;
	*go_on = 0;
	if (st != fmi3OK && st != fmi3Warning && st != fmi3Discard) {
		if ((int)st < (int)fmi3OK || (int)st > (int)fmi3Fatal)
			return sart_inner_report(in, to_sart(st), "fmi3DoStep(t = %s, h = %s) "
			                         "returned an unknown status %d", SART_NUM(t),
			                         SART_NUM(h), (int)st);
		return sart_inner_report(in, to_sart(st), "fmi3DoStep(t = %s, h = %s) returned "
		                         "%s", SART_NUM(t), SART_NUM(h), fmi3_status_name(st));
	}
	int short_step = st == fmi3Discard || early;
	if (short_step && !(last >= t && last <= end))
		return sart_inner_report(in, SART_ERROR, "fmi3DoStep(t = %s, h = %s) returned "
		                         "%s with last successful time %s, outside the step",
		                         SART_NUM(t), SART_NUM(h),
		                         st == fmi3Discard ? "fmi3Discard" : "early",
		                         SART_NUM(last));
	if (st == fmi3Discard) {
		*at = last;
		return sart_inner_report(in, SART_DISCARD, "fmi3DoStep(t = %s, h = %s) returned "
		                         "fmi3Discard; last successful time %s", SART_NUM(t),
		                         SART_NUM(h), SART_NUM(last));
	}
	if (early && !f->early_return_allowed && !(event && f->event_mode_used))
		return sart_inner_report(in, SART_ERROR, "fmi3DoStep(t = %s, h = %s) returned "
		                         "early at %s, but early return was not allowed",
		                         SART_NUM(t), SART_NUM(h), SART_NUM(last));
	if (terminate)
		return sart_inner_report(in, SART_ERROR, "fmi3DoStep(t = %s, h = %s) asked to "
		                         "terminate the simulation at t = %s", SART_NUM(t),
		                         SART_NUM(h), SART_NUM(*at));
	*go_on = early && !f->early_return_allowed;
	return st == fmi3Warning ? sart_inner_fmi3_not_ok(in, "fmi3DoStep", st) : SART_OK;
}

/* A step that returned anything but a plain fmi3OK: its outcome, the events it asks for
 * handled (Event Mode, discrete states settled, Step Mode), and, after an early stop the
 * caller did not allow, the step taken on from there to t + h, event after event. */
static SART_COLD SartStatus step_other(SartInner *in, double t, double h, fmi3Status st,
                                       fmi3Boolean event, fmi3Boolean terminate,
                                       fmi3Boolean early, double last, double *reached)
{
	Fmi3Inner *f = impl(in);
	const double t0 = t, h0 = h, end = t + h;
	SartStatus s = SART_OK;
	*reached = NAN;
	for (int stops = 0;; stops++) {
		double at;
		int go_on;
		s = worse(s, step_outcome(in, t, h, end, st, event, terminate, early, last, &at,
		                          &go_on));
		if (s == SART_DISCARD)
			*reached = at;
		if (s > SART_WARNING)
			return s;
		if (event && f->event_mode_used) {
			s = worse(s, outcome(in, "fmi3EnterEventMode", f->api.enter_event_mode(f->c)));
			if (s <= SART_WARNING)
				s = worse(s, settle_events(in, at));
			if (s > SART_WARNING)
				return s;
		}
		if (!go_on) {
			*reached = at;
			return s;
		}
		if (stops == MAX_EVENT_ITERATIONS)
			return sart_inner_report(in, SART_ERROR, "fmi3DoStep(t = %s, h = %s): more "
			                         "than %d events inside one step", SART_NUM(t0),
			                         SART_NUM(h0), MAX_EVENT_ITERATIONS);
		t = at;
		h = end - at;
		event = terminate = early = false;
		last = end;
		st = f->api.do_step(f->c, t, h, false, &event, &terminate, &early, &last);
	}
}

/* ---- FMU states ------------------------------------------------------------------------- */

static SartStatus fmi3_get_state(SartInner *in, void **state)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.get_state)
		return unavailable(in, "fmi3GetFMUState", "the FMU does not declare "
		                   "canGetAndSetFMUState");
	return outcome(in, "fmi3GetFMUState", f->api.get_state(f->c, state));
}

static SartStatus fmi3_set_state(SartInner *in, void *state)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.set_state)
		return unavailable(in, "fmi3SetFMUState", "the FMU does not declare "
		                   "canGetAndSetFMUState");
	return outcome(in, "fmi3SetFMUState", f->api.set_state(f->c, state));
}

static SartStatus fmi3_free_state(SartInner *in, void **state)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.free_state)
		return unavailable(in, "fmi3FreeFMUState", "the FMU does not declare "
		                   "canGetAndSetFMUState");
	return outcome(in, "fmi3FreeFMUState", f->api.free_state(f->c, state));
}

static SartStatus fmi3_serialized_size(SartInner *in, void *state, size_t *size)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.serialized_size)
		return unavailable(in, "fmi3SerializedFMUStateSize", "the FMU does not declare "
		                   "canSerializeFMUState");
	return outcome(in, "fmi3SerializedFMUStateSize", f->api.serialized_size(f->c, state, size));
}

static SartStatus fmi3_serialize(SartInner *in, void *state, unsigned char *buf, size_t size)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.serialize)
		return unavailable(in, "fmi3SerializeFMUState", "the FMU does not declare "
		                   "canSerializeFMUState");
	return outcome(in, "fmi3SerializeFMUState", f->api.serialize(f->c, state, buf, size));
}

static SartStatus fmi3_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                   void **state)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.deserialize)
		return unavailable(in, "fmi3DeserializeFMUState", "the FMU does not declare "
		                   "canSerializeFMUState");
	return outcome(in, "fmi3DeserializeFMUState", f->api.deserialize(f->c, buf, size, state));
}


/* ---- Model Exchange (driven by sart_inner_me.c) ----------------------------------------- */

/* A Model Exchange call's status other than fmi3OK, reported with the FMU's time. */
SART_COLD SartStatus sart_inner_fmi3_not_ok_at(SartInner *in, const char *fn, double t,
                                               fmi3Status st)
{
	char call[96];
	snprintf(call, sizeof call, "%s at t = %s", fn, SART_NUM(t));
	return sart_inner_fmi3_not_ok(in, call, st);
}

static inline SartStatus me_outcome(SartInner *in, const char *fn, double t, fmi3Status st)
{
	return st == fmi3OK ? SART_OK : sart_inner_fmi3_not_ok_at(in, fn, t, st);
}

static SartStatus fmi3_get_sizes(SartInner *in, size_t *nx, size_t *nz, double t)
{
	Fmi3Inner *f = impl(in);
	SartStatus s = me_outcome(in, "fmi3GetNumberOfContinuousStates", t,
	                          f->api.get_number_of_states(f->c, nx));
	if (s > SART_WARNING)
		return s;
	return worse(s, me_outcome(in, "fmi3GetNumberOfEventIndicators", t,
	                           f->api.get_number_of_event_indicators(f->c, nz)));
}

static SartStatus fmi3_set_time(SartInner *in, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3SetTime", t, f->api.set_time(f->c, t));
}

static SartStatus fmi3_set_states(SartInner *in, const double x[], size_t nx, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3SetContinuousStates", t, f->api.set_states(f->c, x, nx));
}

static SartStatus fmi3_get_states(SartInner *in, double x[], size_t nx, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3GetContinuousStates", t, f->api.get_states(f->c, x, nx));
}

static SartStatus fmi3_get_derivatives(SartInner *in, double dx[], size_t nx, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3GetContinuousStateDerivatives", t,
	                  f->api.get_derivatives(f->c, dx, nx));
}

static SartStatus fmi3_get_event_indicators(SartInner *in, double z[], size_t nz, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3GetEventIndicators", t,
	                  f->api.get_event_indicators(f->c, z, nz));
}

static SartStatus fmi3_get_nominals(SartInner *in, double nominal[], size_t nx, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3GetNominalsOfContinuousStates", t,
	                  f->api.get_nominals(f->c, nominal, nx));
}

static SartStatus fmi3_completed_integrator_step(SartInner *in, int no_set_state_prior,
                                                 int *enter_event_mode, int *terminate,
                                                 double t)
{
	Fmi3Inner *f = impl(in);
	fmi3Boolean event = false, stop = false;
	SartStatus s = me_outcome(in, "fmi3CompletedIntegratorStep", t,
	                          f->api.completed_integrator_step(f->c, no_set_state_prior ?
	                                                           true : false, &event, &stop));
	*enter_event_mode = event ? 1 : 0;
	*terminate = stop ? 1 : 0;
	return s;
}

static SartStatus fmi3_enter_event_mode_me(SartInner *in, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3EnterEventMode", t, f->api.enter_event_mode(f->c));
}

static SartStatus fmi3_update_discrete_states(SartInner *in, SartMeEventInfo *info, double t)
{
	Fmi3Inner *f = impl(in);
	fmi3Boolean again = false, terminate = false, nominals = false, values = false;
	fmi3Boolean next_defined = false;
	fmi3Float64 next = 0;
	SartStatus s = me_outcome(in, "fmi3UpdateDiscreteStates", t,
	                          f->api.update_discrete_states(f->c, &again, &terminate,
	                                                        &nominals, &values,
	                                                        &next_defined, &next));
	info->new_discrete_states_needed = again ? 1 : 0;
	info->terminate_simulation = terminate ? 1 : 0;
	info->nominals_changed = nominals ? 1 : 0;
	info->values_changed = values ? 1 : 0;
	info->next_event_time_defined = next_defined ? 1 : 0;
	info->next_event_time = next;
	return s;
}

static SartStatus fmi3_enter_ct_mode(SartInner *in, double t)
{
	Fmi3Inner *f = impl(in);
	return me_outcome(in, "fmi3EnterContinuousTimeMode", t, f->api.enter_ct_mode(f->c));
}

static int fmi3_has_directional_derivative(SartInner *in)
{
	return impl(in)->api.directional_derivative != NULL;
}

static SartStatus fmi3_directional_derivative(SartInner *in, const SartVr unknown[], size_t nu,
                                              const SartVr known[], size_t nk,
                                              const double seed[], double sensitivity[],
                                              double t)
{
	Fmi3Inner *f = impl(in);
	if (!f->api.directional_derivative)
		return unavailable(in, "fmi3GetDirectionalDerivative", "the library does not "
		                   "export it");
	return me_outcome(in, "fmi3GetDirectionalDerivative", t,
	                  f->api.directional_derivative(f->c, unknown, nu, known, nk, seed, nk,
	                                                sensitivity, nu));
}

static const SartInnerMeOps fmi3_me_ops = {
	fmi3_get_sizes,
	fmi3_set_time,
	fmi3_set_states,
	fmi3_get_states,
	fmi3_get_derivatives,
	fmi3_get_event_indicators,
	fmi3_get_nominals,
	fmi3_completed_integrator_step,
	fmi3_enter_event_mode_me,
	fmi3_update_discrete_states,
	fmi3_enter_ct_mode,
	fmi3_has_directional_derivative,
	fmi3_directional_derivative,
};

/* No direct route yet: a wrapper's fast step is emitted over FMI 2.0 inners only. */
const SartInnerOps sart_inner_fmi3_ops = {
	"3.0",
	SART_PLATFORM_FMI3,
	fmi3_bind,
	fmi3_unbind,
	fmi3_instantiate,
	fmi3_free_instance,
	fmi3_enter_init,
	fmi3_exit_init,
	fmi3_get_real,
	fmi3_get_integer,
	fmi3_get_boolean,
	sart_inner_fmi3_get_string,
	fmi3_set_real,
	fmi3_set_integer,
	fmi3_set_boolean,
	sart_inner_fmi3_set_string,
	fmi3_set_real_input_derivatives,
	fmi3_get_real_output_derivatives,
	fmi3_do_step,
	fmi3_get_state,
	fmi3_set_state,
	fmi3_free_state,
	fmi3_serialized_size,
	fmi3_serialize,
	fmi3_deserialize,
	fmi3_terminate,
	fmi3_reset,
	NULL,
	NULL,
	"fmi3GetFloat64",
	sart_inner_fmi3_get_binary,
	sart_inner_fmi3_set_binary,
	&fmi3_me_ops,
	&sart_inner_fmi3_se_ops,
	NULL, /* the clocks layer (sart_inner_se.c) keeps the schedule */
};
