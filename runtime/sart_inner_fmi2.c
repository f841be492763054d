/* sart_inner_fmi2.c — the FMI 2.0 back end of the inner-FMU seam: Co-Simulation, and the
 * Model Exchange calls that sart_inner_me.c integrates between events.
 *
 * Resolves the fmi2* functions of an inner FMU's library into a per-instance table (never
 * by name at link time: the wrapper exports fmi2* functions of its own), translates each
 * seam call into its fmi2 call, and turns every status other than fmi2OK into a message
 * naming the call.  The inner FMU's variadic logger calls are formatted here and forwarded
 * through the front. */
#include "sart_inner_backend.h"
#include "sart_numfmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2/fmi2FunctionTypes.h"
#include "sart_inner_fmi2_direct.h"

/* The functions the runtime calls.  Types are the standard's, so a mismatch between the
 * seam's scalar types and fmi2's (SartVr vs fmi2ValueReference, int vs fmi2Boolean) is a
 * compile error where they meet, not a silent conversion. */
typedef struct Fmi2Api {
	/* What every step calls first (with Fmi2Inner.c before them, in one cache line: with
	 * ten thousand instances each line is a miss per step) */
	fmi2GetRealTYPE *get_real;
	fmi2SetRealTYPE *set_real;
	fmi2DoStepTYPE *do_step;
	fmi2GetVersionTYPE *get_version;
	fmi2InstantiateTYPE *instantiate;
	fmi2FreeInstanceTYPE *free_instance;
	fmi2SetupExperimentTYPE *setup_experiment;
	fmi2EnterInitializationModeTYPE *enter_init;
	fmi2ExitInitializationModeTYPE *exit_init;
	fmi2TerminateTYPE *terminate;
	fmi2ResetTYPE *reset;
	fmi2GetIntegerTYPE *get_integer;
	fmi2GetBooleanTYPE *get_boolean;
	fmi2GetStringTYPE *get_string;
	fmi2SetIntegerTYPE *set_integer;
	fmi2SetBooleanTYPE *set_boolean;
	fmi2SetStringTYPE *set_string;
	fmi2SetRealInputDerivativesTYPE *set_real_input_derivatives;
	fmi2GetRealOutputDerivativesTYPE *get_real_output_derivatives;
	fmi2GetRealStatusTYPE *get_real_status;
	fmi2GetFMUstateTYPE *get_state;
	fmi2SetFMUstateTYPE *set_state;
	fmi2FreeFMUstateTYPE *free_state;
	fmi2SerializedFMUstateSizeTYPE *serialized_size;
	fmi2SerializeFMUstateTYPE *serialize;
	fmi2DeSerializeFMUstateTYPE *deserialize;
	/* Model Exchange */
	fmi2SetTimeTYPE *set_time;
	fmi2SetContinuousStatesTYPE *set_states;
	fmi2GetContinuousStatesTYPE *get_states;
	fmi2GetDerivativesTYPE *get_derivatives;
	fmi2GetEventIndicatorsTYPE *get_event_indicators;
	fmi2GetNominalsOfContinuousStatesTYPE *get_nominals;
	fmi2CompletedIntegratorStepTYPE *completed_integrator_step;
	fmi2EnterEventModeTYPE *enter_event_mode;
	fmi2NewDiscreteStatesTYPE *new_discrete_states;
	fmi2EnterContinuousTimeModeTYPE *enter_ct_mode;
	fmi2GetDirectionalDerivativeTYPE *directional_derivative;
} Fmi2Api;

#define ALWAYS 0u             /* required of every FMU */
#define OPTIONAL (1u << 31)   /* used when present, never required */
#define CS_ONLY (1u << 30)    /* required unless the FMU is driven for Model Exchange */
#define ME_ONLY (1u << 29)    /* required when it is */

/* Which symbol fills which slot, and when the library must export it. */
static const struct {
	const char *name;
	size_t offset;
	unsigned needed_with; /* ALWAYS, OPTIONAL or a SART_CAP_* bit */
	const char *capability;
} symbols[] = {
	{"fmi2GetVersion", offsetof(Fmi2Api, get_version), OPTIONAL, NULL},
	{"fmi2Instantiate", offsetof(Fmi2Api, instantiate), ALWAYS, NULL},
	{"fmi2FreeInstance", offsetof(Fmi2Api, free_instance), ALWAYS, NULL},
	{"fmi2SetupExperiment", offsetof(Fmi2Api, setup_experiment), ALWAYS, NULL},
	{"fmi2EnterInitializationMode", offsetof(Fmi2Api, enter_init), ALWAYS, NULL},
	{"fmi2ExitInitializationMode", offsetof(Fmi2Api, exit_init), ALWAYS, NULL},
	{"fmi2Terminate", offsetof(Fmi2Api, terminate), ALWAYS, NULL},
	{"fmi2Reset", offsetof(Fmi2Api, reset), ALWAYS, NULL},
	{"fmi2GetReal", offsetof(Fmi2Api, get_real), ALWAYS, NULL},
	{"fmi2GetInteger", offsetof(Fmi2Api, get_integer), ALWAYS, NULL},
	{"fmi2GetBoolean", offsetof(Fmi2Api, get_boolean), ALWAYS, NULL},
	{"fmi2GetString", offsetof(Fmi2Api, get_string), ALWAYS, NULL},
	{"fmi2SetReal", offsetof(Fmi2Api, set_real), ALWAYS, NULL},
	{"fmi2SetInteger", offsetof(Fmi2Api, set_integer), ALWAYS, NULL},
	{"fmi2SetBoolean", offsetof(Fmi2Api, set_boolean), ALWAYS, NULL},
	{"fmi2SetString", offsetof(Fmi2Api, set_string), ALWAYS, NULL},
	{"fmi2DoStep", offsetof(Fmi2Api, do_step), CS_ONLY, NULL},
	{"fmi2GetRealStatus", offsetof(Fmi2Api, get_real_status), CS_ONLY, NULL},
	{"fmi2SetRealInputDerivatives", offsetof(Fmi2Api, set_real_input_derivatives),
	 SART_CAP_INPUT_DERIVATIVES, "canInterpolateInputs"},
	{"fmi2GetRealOutputDerivatives", offsetof(Fmi2Api, get_real_output_derivatives),
	 OPTIONAL, NULL},
	{"fmi2GetFMUstate", offsetof(Fmi2Api, get_state), SART_CAP_GET_SET_STATE,
	 "canGetAndSetFMUstate"},
	{"fmi2SetFMUstate", offsetof(Fmi2Api, set_state), SART_CAP_GET_SET_STATE,
	 "canGetAndSetFMUstate"},
	{"fmi2FreeFMUstate", offsetof(Fmi2Api, free_state), SART_CAP_GET_SET_STATE,
	 "canGetAndSetFMUstate"},
	{"fmi2SerializedFMUstateSize", offsetof(Fmi2Api, serialized_size), SART_CAP_SERIALIZE,
	 "canSerializeFMUstate"},
	{"fmi2SerializeFMUstate", offsetof(Fmi2Api, serialize), SART_CAP_SERIALIZE,
	 "canSerializeFMUstate"},
	{"fmi2DeSerializeFMUstate", offsetof(Fmi2Api, deserialize), SART_CAP_SERIALIZE,
	 "canSerializeFMUstate"},
	{"fmi2SetTime", offsetof(Fmi2Api, set_time), ME_ONLY, "Model Exchange"},
	{"fmi2SetContinuousStates", offsetof(Fmi2Api, set_states), ME_ONLY, "Model Exchange"},
	{"fmi2GetContinuousStates", offsetof(Fmi2Api, get_states), ME_ONLY, "Model Exchange"},
	{"fmi2GetDerivatives", offsetof(Fmi2Api, get_derivatives), ME_ONLY, "Model Exchange"},
	{"fmi2GetEventIndicators", offsetof(Fmi2Api, get_event_indicators), ME_ONLY, "Model Exchange"},
	{"fmi2GetNominalsOfContinuousStates", offsetof(Fmi2Api, get_nominals), ME_ONLY, "Model Exchange"},
	{"fmi2CompletedIntegratorStep", offsetof(Fmi2Api, completed_integrator_step), ME_ONLY,
	 "Model Exchange"},
	{"fmi2EnterEventMode", offsetof(Fmi2Api, enter_event_mode), ME_ONLY, "Model Exchange"},
	{"fmi2NewDiscreteStates", offsetof(Fmi2Api, new_discrete_states), ME_ONLY, "Model Exchange"},
	{"fmi2EnterContinuousTimeMode", offsetof(Fmi2Api, enter_ct_mode), ME_ONLY, "Model Exchange"},
	{"fmi2GetDirectionalDerivative", offsetof(Fmi2Api, directional_derivative), OPTIONAL,
	 NULL},
};

/* Whether the library must export a function needed as need says, for an inner of caps. */
static int required(unsigned need, unsigned caps)
{
	int me = (caps & SART_CAP_MODEL_EXCHANGE) != 0;
	if (need == ALWAYS)
		return 1;
	if (need == OPTIONAL)
		return 0;
	if (need == CS_ONLY)
		return !me;
	if (need == ME_ONLY)
		return me;
	/* the FMU-state functions serve both interfaces; input derivatives only steps */
	return (caps & need) && !(me && need == SART_CAP_INPUT_DERIVATIVES);
}

typedef struct Fmi2Inner {
	fmi2Component c;
	Fmi2Api api;
	/* Handed to fmi2Instantiate, which may keep the pointer: lives as long as the
	 * instance.  Its members are const, so it is filled once, by copy. */
	fmi2CallbackFunctions cb;
	SartInnerDirect direct; /* the direct route (sart_inner_fmi2_direct.h) */
} Fmi2Inner;

static Fmi2Inner *impl(SartInner *in)
{
	return in->impl;
}

/* ---- statuses and messages -------------------------------------------------------------- */

static const char *fmi2_status_name(fmi2Status st)
{
	switch (st) {
	case fmi2OK: return "fmi2OK";
	case fmi2Warning: return "fmi2Warning";
	case fmi2Discard: return "fmi2Discard";
	case fmi2Error: return "fmi2Error";
	case fmi2Fatal: return "fmi2Fatal";
	case fmi2Pending: return "fmi2Pending";
	}
	return "an unknown status";
}

/* fmi2Pending and values outside the enumeration are errors: the runtime never runs steps
 * asynchronously, and a status it cannot read is not a success. */
static SartStatus to_sart(fmi2Status st)
{
	switch (st) {
	case fmi2OK: return SART_OK;
	case fmi2Warning: return SART_WARNING;
	case fmi2Discard: return SART_DISCARD;
	case fmi2Fatal: return SART_FATAL;
	case fmi2Error:
	case fmi2Pending: break;
	}
	return SART_ERROR;
}

/* A status other than fmi2OK from the call fn, reported with its message. */
static SART_COLD SartStatus not_ok(SartInner *in, const char *fn, fmi2Status st)
{
	SartStatus s = to_sart(st);
	if (s == SART_OK)
		return s;
	if (st == fmi2Pending)
		return sart_inner_report(in, s, "%s returned fmi2Pending, but no asynchronous step "
		                         "was asked for", fn);
	if ((int)st < (int)fmi2OK || (int)st > (int)fmi2Pending)
		return sart_inner_report(in, s, "%s returned an unknown status %d", fn, (int)st);
	return sart_inner_report(in, s, "%s returned %s", fn, fmi2_status_name(st));
}

/* The outcome of the call fn: SART_OK silently, anything else with its message.  Inline, so
 * that the usual fmi2OK costs one comparison on every get, set and step. */
static inline SartStatus outcome(SartInner *in, const char *fn, fmi2Status st)
{
	return st == fmi2OK ? SART_OK : not_ok(in, fn, st);
}

/* The inner FMU's logger: message is a printf format for the arguments that follow. */
static void forward_log(fmi2ComponentEnvironment env, fmi2String instanceName,
                        fmi2Status status, fmi2String category, fmi2String message, ...)
{
	SartInner *in = env;
	char text[SART_MESSAGE_MAX];
	va_list ap;
	(void)instanceName; /* the seam's own name prefixes the message */
	if (!in)
		return;
	if (!message) {
		sart_inner_forward(in, to_sart(status), category, "(no message)");
		return;
	}
	va_start(ap, message);
	if (vsnprintf(text, sizeof text, message, ap) < 0)
		snprintf(text, sizeof text, "(unprintable message: %s)", message);
	va_end(ap);
	sart_inner_forward(in, to_sart(status), category, text);
}

/* ---- loading ---------------------------------------------------------------------------- */

static SartStatus fmi2_bind(SartInner *in)
{
	char missing[SART_MESSAGE_MAX / 2];
	size_t used = 0;
	SartStatus st = SART_ERROR;
	Fmi2Inner *f = calloc(1, sizeof *f);
	if (!f)
		return sart_inner_report(in, SART_ERROR, "cannot load %s: out of memory",
		                         in->lib_path);
	missing[0] = '\0';
	for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
		void *sym = sart_lib_sym(in->lib, symbols[i].name);
		unsigned need = symbols[i].needed_with;
		if (sym) {
			/* dlsym gives an object pointer; POSIX guarantees the bytes are the
			 * function's address, and copying them keeps ISO C's rule. */
			memcpy((char *)&f->api + symbols[i].offset, &sym, sizeof sym);
			continue;
		}
		if (!required(need, in->caps))
			continue;
		int n;
		if (symbols[i].capability)
			n = snprintf(missing + used, sizeof missing - used, "%s%s (needed for %s)",
			             used ? ", " : "", symbols[i].name, symbols[i].capability);
		else
			n = snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
			             symbols[i].name);
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
		if (!v || strcmp(v, "2.0") != 0) {
			sart_inner_report(in, SART_ERROR, "cannot load %s: fmi2GetVersion says '%s', "
			                  "not 2.0", in->lib_path, v ? v : "(null)");
			goto done;
		}
	}
	in->impl = f;
	in->direct = &f->direct;
	f = NULL;
	st = SART_OK;
done:
	free(f);
	return st;
}

static void fmi2_unbind(SartInner *in)
{
	in->direct = NULL;
	free(in->impl);
	in->impl = NULL;
}

/* ---- the life cycle --------------------------------------------------------------------- */

static SartStatus fmi2_instantiate(SartInner *in, const char *guid, int logging_on)
{
	Fmi2Inner *f = impl(in);
	char err[256];
	char *uri = sart_path_to_uri(in->resource_dir, err, sizeof err);
	if (!uri)
		return sart_inner_report(in, SART_ERROR, "fmi2Instantiate: no resource location: %s",
		                         err);
	const fmi2CallbackFunctions cb = {forward_log, calloc, free, NULL, in};
	memcpy(&f->cb, &cb, sizeof cb);
	fmi2Type type = in->caps & SART_CAP_MODEL_EXCHANGE ? fmi2ModelExchange : fmi2CoSimulation;
	f->c = f->api.instantiate(in->name, type, guid, uri, &f->cb, fmi2False,
	                          logging_on ? fmi2True : fmi2False);
	free(uri);
	if (!f->c)
		return sart_inner_report(in, SART_ERROR, "fmi2Instantiate returned NULL");
	/* The direct route: closed (fmi2_close_direct) when the instance may no longer be
	 * called. */
	f->direct.c = f->c;
	f->direct.set_real = f->api.set_real;
	f->direct.get_real = f->api.get_real;
	f->direct.do_step = f->api.do_step;
	return SART_OK;
}

static void fmi2_free_instance(SartInner *in)
{
	Fmi2Inner *f = impl(in);
	f->direct.c = NULL;
	f->api.free_instance(f->c);
	f->c = NULL;
}

static SartStatus fmi2_enter_init(SartInner *in, const SartExperiment *ex)
{
	Fmi2Inner *f = impl(in);
	fmi2Status st = f->api.setup_experiment(f->c, ex->tolerance_defined ? fmi2True : fmi2False,
	                                        ex->tolerance, ex->start_time,
	                                        ex->stop_time_defined ? fmi2True : fmi2False,
	                                        ex->stop_time);
	SartStatus s = outcome(in, "fmi2SetupExperiment", st);
	if (s != SART_OK && s != SART_WARNING)
		return s;
	SartStatus e = outcome(in, "fmi2EnterInitializationMode", f->api.enter_init(f->c));
	return e > s ? e : s;
}

static SartStatus fmi2_exit_init(SartInner *in)
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2ExitInitializationMode", f->api.exit_init(f->c));
}

static SartStatus fmi2_terminate(SartInner *in)
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2Terminate", f->api.terminate(f->c));
}

static SartStatus fmi2_reset(SartInner *in)
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2Reset", f->api.reset(f->c));
}

/* ---- values ----------------------------------------------------------------------------- */

static SartStatus fmi2_get_real(SartInner *in, const SartVr vr[], size_t n, double v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2GetReal", f->api.get_real(f->c, vr, n, v));
}

static SartStatus fmi2_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2GetInteger", f->api.get_integer(f->c, vr, n, v));
}

static SartStatus fmi2_get_boolean(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2GetBoolean", f->api.get_boolean(f->c, vr, n, v));
}

static SartStatus fmi2_get_string(SartInner *in, const SartVr vr[], size_t n, const char *v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2GetString", f->api.get_string(f->c, vr, n, v));
}

static SartStatus fmi2_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2SetReal", f->api.set_real(f->c, vr, n, v));
}

static SartStatus fmi2_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2SetInteger", f->api.set_integer(f->c, vr, n, v));
}

static SartStatus fmi2_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	Fmi2Inner *f = impl(in);
	return outcome(in, "fmi2SetBoolean", f->api.set_boolean(f->c, vr, n, v));
}

static SartStatus fmi2_set_string(SartInner *in, const SartVr vr[], size_t n,
                                  const char *const v[])
{
	Fmi2Inner *f = impl(in);
	/* fmi2SetString takes const fmi2String[], i.e. const char *const[] */
	return outcome(in, "fmi2SetString", f->api.set_string(f->c, vr, n, v));
}

/* A function the FMU need not export, and does not: an error, never a call through NULL. */
static SartStatus unavailable(SartInner *in, const char *fn, const char *capability)
{
	return sart_inner_report(in, SART_ERROR, "%s is not available: %s does not export it "
	                         "(the FMU does not declare %s)", fn, in->lib_path, capability);
}

static SartStatus fmi2_set_real_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                  const int order[], const double value[])
{
	Fmi2Inner *f = impl(in);
	const char *fn = "fmi2SetRealInputDerivatives";
	if (!f->api.set_real_input_derivatives)
		return unavailable(in, fn, "canInterpolateInputs");
	return outcome(in, fn, f->api.set_real_input_derivatives(f->c, vr, n, order, value));
}

static SartStatus fmi2_get_real_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                   const int order[], double value[])
{
	Fmi2Inner *f = impl(in);
	const char *fn = "fmi2GetRealOutputDerivatives";
	if (!f->api.get_real_output_derivatives)
		return unavailable(in, fn, "maxOutputDerivativeOrder >= 1");
	return outcome(in, fn, f->api.get_real_output_derivatives(f->c, vr, n, order, value));
}

/* ---- stepping --------------------------------------------------------------------------- */

static SART_COLD SartStatus do_step_not_ok(SartInner *in, double t, double h, fmi2Status st,
                                           double *reached);

static SartStatus fmi2_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                               double *reached)
{
	Fmi2Inner *f = impl(in);
	fmi2Status st = f->api.do_step(f->c, t, h, no_set_state_prior ? fmi2True : fmi2False);
	if (st == fmi2OK) {
		*reached = t + h;
		return SART_OK;
	}
	return do_step_not_ok(in, t, h, st, reached);
}

/* Every outcome of fmi2DoStep but fmi2OK, out of line: each is reported. */
static SART_COLD SartStatus do_step_not_ok(SartInner *in, double t, double h, fmi2Status st,
                                           double *reached)
{
	Fmi2Inner *f = impl(in);
	*reached = NAN;
	if (st == fmi2Warning)
		*reached = t + h;
	if (st != fmi2Discard) {
		SartStatus s = to_sart(st);
		if (st == fmi2Pending)
			return sart_inner_report(in, s, "fmi2DoStep(t = %s, h = %s) returned "
			                         "fmi2Pending, but no asynchronous step was asked for",
			                         SART_NUM(t), SART_NUM(h));
		if ((int)st < (int)fmi2OK || (int)st > (int)fmi2Pending)
			return sart_inner_report(in, s, "fmi2DoStep(t = %s, h = %s) returned an "
			                         "unknown status %d", SART_NUM(t), SART_NUM(h),
			                         (int)st);
		return sart_inner_report(in, s, "fmi2DoStep(t = %s, h = %s) returned %s",
		                         SART_NUM(t), SART_NUM(h),
		                         fmi2_status_name(st));
	}
	/* A discard is only usable with the time the FMU reached. */
	fmi2Real last = NAN;
	fmi2Status ls = f->api.get_real_status(f->c, fmi2LastSuccessfulTime, &last);
	if (ls != fmi2OK && ls != fmi2Warning)
		return sart_inner_report(in, ls == fmi2Fatal ? SART_FATAL : SART_ERROR,
		                         "fmi2DoStep(t = %s, h = %s) returned fmi2Discard, and "
		                         "fmi2GetRealStatus(fmi2LastSuccessfulTime) then returned %s: "
		                         "the time the FMU stands at is unknown", SART_NUM(t),
		                         SART_NUM(h),
		                         fmi2_status_name(ls));
	if (!(last >= t && last <= t + h))
		return sart_inner_report(in, SART_ERROR, "fmi2DoStep(t = %s, h = %s) returned "
		                         "fmi2Discard with last successful time %s, outside the step",
		                         SART_NUM(t), SART_NUM(h), SART_NUM(last));
	*reached = last;
	return sart_inner_report(in, SART_DISCARD, "fmi2DoStep(t = %s, h = %s) returned "
	                         "fmi2Discard; last successful time %s", SART_NUM(t), SART_NUM(h),
	                         SART_NUM(last));
}

/* ---- FMU states ------------------------------------------------------------------------- */

static SartStatus fmi2_get_state(SartInner *in, void **state)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.get_state)
		return unavailable(in, "fmi2GetFMUstate", "canGetAndSetFMUstate");
	return outcome(in, "fmi2GetFMUstate", f->api.get_state(f->c, state));
}

static SartStatus fmi2_set_state(SartInner *in, void *state)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.set_state)
		return unavailable(in, "fmi2SetFMUstate", "canGetAndSetFMUstate");
	return outcome(in, "fmi2SetFMUstate", f->api.set_state(f->c, state));
}

static SartStatus fmi2_free_state(SartInner *in, void **state)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.free_state)
		return unavailable(in, "fmi2FreeFMUstate", "canGetAndSetFMUstate");
	return outcome(in, "fmi2FreeFMUstate", f->api.free_state(f->c, state));
}

static SartStatus fmi2_serialized_size(SartInner *in, void *state, size_t *size)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.serialized_size)
		return unavailable(in, "fmi2SerializedFMUstateSize", "canSerializeFMUstate");
	return outcome(in, "fmi2SerializedFMUstateSize", f->api.serialized_size(f->c, state, size));
}

static SartStatus fmi2_serialize(SartInner *in, void *state, unsigned char *buf, size_t size)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.serialize)
		return unavailable(in, "fmi2SerializeFMUstate", "canSerializeFMUstate");
	return outcome(in, "fmi2SerializeFMUstate",
	               f->api.serialize(f->c, state, (fmi2Byte *)buf, size));
}

static SartStatus fmi2_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                   void **state)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.deserialize)
		return unavailable(in, "fmi2DeSerializeFMUstate", "canSerializeFMUstate");
	return outcome(in, "fmi2DeSerializeFMUstate",
	               f->api.deserialize(f->c, (const fmi2Byte *)buf, size, state));
}

static void fmi2_close_direct(SartInner *in)
{
	impl(in)->direct.c = NULL;
}

/* A direct call's status other than fmi2OK, reported as the call through the seam would. */
static SART_COLD SartStatus fmi2_direct_status(SartInner *in, SartDirectCall call, int status,
                                               double t, double h, double *reached)
{
	fmi2Status st = (fmi2Status)status;
	if (call == SART_DIRECT_DO_STEP)
		return do_step_not_ok(in, t, h, st, reached);
	return not_ok(in, call == SART_DIRECT_SET_REAL ? "fmi2SetReal" : "fmi2GetReal", st);
}

/* ---- Model Exchange (driven by sart_inner_me.c) ----------------------------------------- */

/* A Model Exchange call's status other than fmi2OK, reported with the FMU's time. */
static SART_COLD SartStatus me_not_ok(SartInner *in, const char *fn, double t, fmi2Status st)
{
	char call[96];
	snprintf(call, sizeof call, "%s at t = %s", fn, SART_NUM(t));
	return not_ok(in, call, st);
}

static inline SartStatus me_outcome(SartInner *in, const char *fn, double t, fmi2Status st)
{
	return st == fmi2OK ? SART_OK : me_not_ok(in, fn, t, st);
}

static SartStatus fmi2_set_time(SartInner *in, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2SetTime", t, f->api.set_time(f->c, t));
}

static SartStatus fmi2_set_states(SartInner *in, const double x[], size_t nx, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2SetContinuousStates", t, f->api.set_states(f->c, x, nx));
}

static SartStatus fmi2_get_states(SartInner *in, double x[], size_t nx, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2GetContinuousStates", t, f->api.get_states(f->c, x, nx));
}

static SartStatus fmi2_get_derivatives(SartInner *in, double dx[], size_t nx, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2GetDerivatives", t, f->api.get_derivatives(f->c, dx, nx));
}

static SartStatus fmi2_get_event_indicators(SartInner *in, double z[], size_t nz, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2GetEventIndicators", t,
	                  f->api.get_event_indicators(f->c, z, nz));
}

static SartStatus fmi2_get_nominals(SartInner *in, double nominal[], size_t nx, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2GetNominalsOfContinuousStates", t,
	                  f->api.get_nominals(f->c, nominal, nx));
}

static SartStatus fmi2_completed_integrator_step(SartInner *in, int no_set_state_prior,
                                                 int *enter_event_mode, int *terminate,
                                                 double t)
{
	Fmi2Inner *f = impl(in);
	fmi2Boolean event = fmi2False, stop = fmi2False;
	SartStatus s = me_outcome(in, "fmi2CompletedIntegratorStep", t,
	                          f->api.completed_integrator_step(f->c, no_set_state_prior ?
	                                                           fmi2True : fmi2False,
	                                                           &event, &stop));
	*enter_event_mode = event != fmi2False;
	*terminate = stop != fmi2False;
	return s;
}

static SartStatus fmi2_enter_event_mode(SartInner *in, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2EnterEventMode", t, f->api.enter_event_mode(f->c));
}

static SartStatus fmi2_update_discrete_states(SartInner *in, SartMeEventInfo *info, double t)
{
	Fmi2Inner *f = impl(in);
	fmi2EventInfo ei = {fmi2False, fmi2False, fmi2False, fmi2False, fmi2False, 0.0};
	SartStatus s = me_outcome(in, "fmi2NewDiscreteStates", t,
	                          f->api.new_discrete_states(f->c, &ei));
	info->new_discrete_states_needed = ei.newDiscreteStatesNeeded != fmi2False;
	info->terminate_simulation = ei.terminateSimulation != fmi2False;
	info->nominals_changed = ei.nominalsOfContinuousStatesChanged != fmi2False;
	info->values_changed = ei.valuesOfContinuousStatesChanged != fmi2False;
	info->next_event_time_defined = ei.nextEventTimeDefined != fmi2False;
	info->next_event_time = ei.nextEventTime;
	return s;
}

static SartStatus fmi2_enter_ct_mode(SartInner *in, double t)
{
	Fmi2Inner *f = impl(in);
	return me_outcome(in, "fmi2EnterContinuousTimeMode", t, f->api.enter_ct_mode(f->c));
}

static int fmi2_has_directional_derivative(SartInner *in)
{
	return impl(in)->api.directional_derivative != NULL;
}

static SartStatus fmi2_directional_derivative(SartInner *in, const SartVr unknown[], size_t nu,
                                              const SartVr known[], size_t nk,
                                              const double seed[], double sensitivity[],
                                              double t)
{
	Fmi2Inner *f = impl(in);
	if (!f->api.directional_derivative)
		return sart_inner_report(in, SART_ERROR, "fmi2GetDirectionalDerivative is not "
		                         "available: %s does not export it", in->lib_path);
	return me_outcome(in, "fmi2GetDirectionalDerivative", t,
	                  f->api.directional_derivative(f->c, unknown, nu, known, nk, seed,
	                                                sensitivity));
}

static const SartInnerMeOps fmi2_me_ops = {
	NULL, /* the sizes are the model description's (SartMeConfig) */
	fmi2_set_time,
	fmi2_set_states,
	fmi2_get_states,
	fmi2_get_derivatives,
	fmi2_get_event_indicators,
	fmi2_get_nominals,
	fmi2_completed_integrator_step,
	fmi2_enter_event_mode,
	fmi2_update_discrete_states,
	fmi2_enter_ct_mode,
	fmi2_has_directional_derivative,
	fmi2_directional_derivative,
};

const SartInnerOps sart_inner_fmi2_ops = {
	"2.0",
	SART_PLATFORM_FMI2,
	fmi2_bind,
	fmi2_unbind,
	fmi2_instantiate,
	fmi2_free_instance,
	fmi2_enter_init,
	fmi2_exit_init,
	fmi2_get_real,
	fmi2_get_integer,
	fmi2_get_boolean,
	fmi2_get_string,
	fmi2_set_real,
	fmi2_set_integer,
	fmi2_set_boolean,
	fmi2_set_string,
	fmi2_set_real_input_derivatives,
	fmi2_get_real_output_derivatives,
	fmi2_do_step,
	fmi2_get_state,
	fmi2_set_state,
	fmi2_free_state,
	fmi2_serialized_size,
	fmi2_serialize,
	fmi2_deserialize,
	fmi2_terminate,
	fmi2_reset,
	fmi2_close_direct,
	fmi2_direct_status,
	"fmi2GetReal",
	NULL, /* FMI 2.0 has no Binary */
	NULL,
	&fmi2_me_ops,
	NULL, /* FMI 2.0 has no Scheduled Execution */
	NULL, /* the clocks layer (sart_inner_se.c) keeps the schedule */
};
