/* sart_wrapper.c — the generic FMI 2.0 Co-Simulation layer of every wrapper FMU sacc emits.
 *
 * The emitted C (see sart_wrapper.h) describes one adaptation in `sart_model`: its Storage,
 * variable tables, rule parts and inner FMUs.  This file turns that into an FMU: every exported
 * fmi2* function, the FMI state machine (bit masks per state, as tests/fmus/kit/fmu_kit.c),
 * logging through the importer's logger, the inner FMUs' life cycle through sart_inner.h,
 * the Init sequence, the Mealy output function G, rejected steps with their snapshots, the
 * save_state stacks and FMU states with their serialized form.
 *
 * Failures inside rule parts.  A runtime call that fails (fail()) logs and records the
 * status in the SartWrapper; from then on every rule-level call (sart_do_step,
 * sart_save_state, ...) returns at once without touching an inner FMU, and the runtime's own
 * sequences (Init, G, a step) stop at their next check, so nothing after the failure reaches
 * an inner FMU or the log.  The rest of the rule part runs on (it is plain arithmetic on the
 * Storage, whose loops are all bounded `for` loops, and the emitted code leaves them at the
 * next iteration), and the fmi2 function that ran it returns the status.  No setjmp on the
 * per-step path, and no call to check in the emitted code.
 *
 * Decisions the contract leaves open, taken here:
 * - Reads in initializationMode run the Init sequence on the scratch copy (initial values
 *   from the params as set so far, In, the inners in order, Out) whenever something was
 *   set since the last such read, so an outer wrapper's Init sees its inner wrappers'
 *   calculated initial outputs.
 * - G runs on any get (of any type) in stepComplete after a set since the last step, Init,
 *   state restore or previous G, and every read then comes from the scratch copy.  Any
 *   successful set (input or tunable parameter) invalidates G.
 * - A rejected step's snapshot is taken before the input derivatives are applied, and they
 *   stay pending after the rejection, so the retry with the shorter step extrapolates by it.
 * - `e` in MapIn and MapOut of one do_step is ti minus the inner's last time before the step.
 * - Messages of status Warning and worse always reach the importer's logger (logging on or
 *   off); logFmiCalls and the inner FMUs' OK messages (logInner) only when logging is on and
 *   the category is enabled.  Messages go to the logger as the format, every '%' doubled.
 * - A set call that fails on its k-th value keeps the k-1 values before it. */
#include "sart_wrapper.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2/fmi2Functions.h"

/* For the few functions of the per-step path that must be inlined into their callers to be
 * specialised (a type that is a constant there) or to keep their locals in registers. */
#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE inline __attribute__((always_inline))
#else
#define HOT_INLINE inline
#endif

/* The out-of-line handling of failures and rare cases, kept off the per-step path. */
#if defined(__GNUC__) || defined(__clang__)
#define SART_COLD __attribute__((noinline, cold))
#else
#define SART_COLD
#endif

#define WRAPPER_MAGIC 0x53415757u /* guards against stale or foreign instance pointers */
#define STATE_MAGIC 0x5341575354415445ull

/* The FMI 2.0 Co-Simulation states, as bits so a call can list where it is allowed. */
typedef enum Phase {
	PH_INSTANTIATED = 1 << 0,
	PH_INIT = 1 << 1,
	PH_STEP_COMPLETE = 1 << 2,
	PH_STEP_FAILED = 1 << 3,
	PH_TERMINATED = 1 << 4,
	PH_ERROR = 1 << 5,
	PH_FATAL = 1 << 6
} Phase;

#define PH_ALIVE (PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE | PH_STEP_FAILED | \
                  PH_TERMINATED | PH_ERROR)
#define PH_GET (PH_INIT | PH_STEP_COMPLETE | PH_STEP_FAILED | PH_TERMINATED | PH_ERROR)
#define PH_SET (PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE)
#define PH_STATUS (PH_STEP_COMPLETE | PH_STEP_FAILED | PH_TERMINATED)

/* Log categories: compiler/emit.c (emit_log_categories) declares the same names in the
 * wrapper's modelDescription.xml. */
enum {
	CAT_WARNING = 1,
	CAT_DISCARD = 2,
	CAT_ERROR = 4,
	CAT_FATAL = 8,
	CAT_CALLS = 16,
	CAT_INNER = 32,
	CAT_ALL = 63
};
static const struct {
	const char *name;
	unsigned bit;
} categories[] = {
	{"logStatusWarning", CAT_WARNING}, {"logStatusDiscard", CAT_DISCARD},
	{"logStatusError", CAT_ERROR},     {"logStatusFatal", CAT_FATAL},
	{"logFmiCalls", CAT_CALLS},        {"logInner", CAT_INNER},
};

/* One entry of an inner's save_state stack.  Entries are kept when popped, so that their
 * inner state is overwritten, not reallocated, the next time. */
typedef struct Saved {
	void *state;
	double last;
} Saved;

typedef struct Stack {
	Saved *items;
	unsigned n, cap;
} Stack;

/* Which of an inner's port groups are non-empty, worked out once at fmi2Instantiate, so
 * that a step visits only those: most inners have Real ports and nothing else. */
typedef struct Plan {
	unsigned char in[SART_NTYPES], nin;
	unsigned char out[SART_NTYPES], nout;
	/* Real ports only (the usual case): sart_do_step goes straight to these (NULL when
	 * there are no Real inputs, or outputs). */
	int only_real;
	const SartPorts *rin, *rout;
} Plan;

struct SartWrapper {
	unsigned magic;
	char *name;
	fmi2CallbackLogger logger;
	fmi2ComponentEnvironment env;
	int logging;
	unsigned log_mask;
	Phase phase;
	char *resources;          /* the resource directory, a path */
	SartExperiment ex;
	double time;              /* the current communication point */
	double last_ok;           /* fmi2LastSuccessfulTime */

	unsigned char *storage;   /* the Storage */
	unsigned char *scratch;   /* G's copy */
	int g_dirty;              /* a set since the last step/Init/G: the next get runs G */
	int g_valid;              /* reads come from scratch */

	SartInner **inner;
	const SartInnerDirect **direct; /* per inner: the seam's direct route (the fast step) */
	SartFastRoute route;      /* what the fast step reaches: direct and last */
	Plan *plan;               /* per inner */
	double *last;             /* per inner: the time it last stepped to */
	unsigned char *is_set;    /* per external vr of each type, at is_set_off[type]; this
	                           * and snap_is_set are allocated in whole MARK_BLOCKs */
	unsigned is_set_off[SART_NTYPES + 1];
	double *du;               /* per sart_model.real_inputs: pending derivative */
	unsigned char *du_set;
	int du_pending;           /* some du_set may be 1: the step has derivatives to apply */

	/* The external step in progress and the do_step running its MapIn/MapOut. */
	double step_t, step_H;
	int in_map;
	double map_e;

	/* Failure handling: see fail().  fail_status is SART_OK until a rule-level call fails,
	 * and then the worst status (SART_ERROR or SART_FATAL): every such call tests it. */
	SartStatus fail_status;
	int warned;

	/* A rejected step's snapshot, reused every step. */
	int can_snapshot;
	int snap_g_dirty, snap_g_valid; /* G's flags at the snapshot */
	int plain;                /* a step needs no snapshot, no input derivatives and no call
	                           * log: fmi2DoStep's fast path (refresh_plain) */
	int quiet;                /* no call log: fmi2GetReal's and fmi2SetReal's fast paths */
	int fast;                 /* plain steps take sart_model.fast_step (set at instantiate;
	                           * SART_NO_FAST_STEP in the environment turns it off, for
	                           * comparing the two paths) */
	unsigned char *snap_storage;
	double *snap_last;
	unsigned char *snap_is_set;
	void **snap_inner;
	void **slot;              /* per inner: partial-step acceptance and probes */
	Stack *stacks;            /* per inner: save_state */
	int stacked;              /* some stack may be non-empty: emptied when the step ends */

	/* Gather buffers for setting an inner's inputs (the largest port group). */
	SartVr *vrbuf;
	double *rbuf;
	int *ibuf;
};

/* ---- logging ---------------------------------------------------------------------------- */

static const char *status_category(SartStatus st)
{
	switch (st) {
	case SART_WARNING: return "logStatusWarning";
	case SART_DISCARD: return "logStatusDiscard";
	case SART_ERROR: return "logStatusError";
	case SART_FATAL: return "logStatusFatal";
	default: return "logFmiCalls";
	}
}

/* Sends msg to the logger as a format with every '%' doubled: an FMI logger is printf-like,
 * and a message may contain '%' from a port name or an inner FMU's text. */
static void emit(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                 SartStatus st, const char *category, const char *msg)
{
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
	logger(env, name ? name : "?", (fmi2Status)st, category, esc);
}

static void vlog_to(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                    SartStatus st, const char *category, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	emit(logger, env, name, st, category, msg);
}

static void log_to(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                   SartStatus st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

static void log_to(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                   SartStatus st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_to(logger, env, name, st, status_category(st), fmt, ap);
	va_end(ap);
}

/* A message of status st (Warning and worse are always logged). */
static void wlog(SartWrapper *w, SartStatus st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void wlog(SartWrapper *w, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_to(w->logger, w->env, w->name, st, status_category(st), fmt, ap);
	va_end(ap);
}

static int calls_logged(const SartWrapper *w)
{
	return w->logging && (w->log_mask & CAT_CALLS);
}

/* Whether fmi2DoStep may take its fast path: to be called whenever one of these changes. */
static void refresh_plain(SartWrapper *w)
{
	w->quiet = !calls_logged(w);
	w->plain = w->quiet && !w->can_snapshot && !w->du_pending;
}

/* logFmiCalls: one line per call, with its arguments. */
static void log_call(SartWrapper *w, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void log_call(SartWrapper *w, const char *fmt, ...)
{
	va_list ap;
	if (!calls_logged(w))
		return;
	va_start(ap, fmt);
	vlog_to(w->logger, w->env, w->name, SART_OK, "logFmiCalls", fmt, ap);
	va_end(ap);
}

/* The inner FMUs' messages and the seam's own, under logInner. */
static void inner_logger(void *env, SartStatus st, const char *category, const char *message)
{
	SartWrapper *w = env;
	(void)category;
	if (st == SART_OK && !(w->logging && (w->log_mask & CAT_INNER)))
		return;
	emit(w->logger, w->env, w->name, st, "logInner", message);
}

/* ---- failures inside rule parts --------------------------------------------------------- */

/* Logs and records st: the guarded rule part fails (see the top of this file).  Callers
 * return a harmless value, and the rule-level calls that follow return at once. */
static void fail(SartWrapper *w, SartStatus st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void fail(SartWrapper *w, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	if (st < SART_ERROR)
		st = SART_ERROR;
	va_start(ap, fmt);
	vlog_to(w->logger, w->env, w->name, st, status_category(st), fmt, ap);
	va_end(ap);
	if (st > w->fail_status)
		w->fail_status = st;
}

/* Whether a rule-level call failed in the guarded run in progress. */
static inline int failed(const SartWrapper *w)
{
	return w->fail_status != SART_OK;
}

static void inner_failed(SartWrapper *w, SartStatus st, unsigned f, const char *what)
{
	fail(w, st, "[wrapper] %s of '%s' failed: %s", what, sart_model.inners[f].name,
	     sart_inner_message(w->inner[f]));
}

/* An inner call's status: Warning is remembered, Error and Fatal fail.  Inline, so that the
 * usual SART_OK costs one comparison. */
static inline void check_inner(SartWrapper *w, SartStatus st, unsigned f, const char *what)
{
	if (st == SART_OK)
		return;
	if (st == SART_WARNING)
		w->warned = 1;
	else if (st >= SART_ERROR)
		inner_failed(w, st, f, what);
}

/* Runs body(w), which stops at its first failure; the worst status seen. */
/* What a sequence of rule parts comes to: its failure, else a warning if one was logged. */
static inline SartStatus run_outcome(const SartWrapper *w)
{
	return w->fail_status != SART_OK ? w->fail_status : w->warned ? SART_WARNING : SART_OK;
}

static SartStatus guarded(SartWrapper *w, void (*body)(SartWrapper *w))
{
	w->fail_status = SART_OK;
	w->warned = 0;
	body(w);
	w->in_map = 0;
	return run_outcome(w);
}

/* ---- instance checks -------------------------------------------------------------------- */

static const char *phase_name(Phase p)
{
	switch (p) {
	case PH_INSTANTIATED: return "instantiated";
	case PH_INIT: return "initializationMode";
	case PH_STEP_COMPLETE: return "stepComplete";
	case PH_STEP_FAILED: return "stepFailed";
	case PH_TERMINATED: return "terminated";
	case PH_ERROR: return "error";
	case PH_FATAL: return "fatal";
	}
	return "?";
}

/* Why enter() refused c: logs when the instance is valid but in the wrong state. */
static SartWrapper *refuse(SartWrapper *w, const char *fn)
{
	if (w && w->magic == WRAPPER_MAGIC)
		wlog(w, SART_ERROR, "%s is not allowed in state %s", fn, phase_name(w->phase));
	return NULL;
}

/* The instance behind c when fn may be called in its state; NULL (after logging) if not.
 * Inline, so that an allowed call costs three comparisons. */
static inline SartWrapper *enter(fmi2Component c, const char *fn, unsigned allowed)
{
	SartWrapper *w = c;
	if (w && w->magic == WRAPPER_MAGIC && (w->phase & allowed))
		return w;
	return refuse(w, fn);
}

/* A failing status moves the instance to the error or fatal state. */
static fmi2Status settle(SartWrapper *w, SartStatus st)
{
	if (st == SART_ERROR)
		w->phase = PH_ERROR;
	else if (st == SART_FATAL)
		w->phase = PH_FATAL;
	return (fmi2Status)st;
}

static SartStatus worst(SartStatus a, SartStatus b)
{
	return a > b ? a : b;
}

/* ---- Storage access --------------------------------------------------------------------- */

static double *reals(unsigned char *s, size_t off)
{
	return (double *)(void *)(s + off);
}

static int *ints(unsigned char *s, size_t off)
{
	return (int *)(void *)(s + off);
}

/* The is_set marks are cleared after every step.  They are allocated in whole blocks so that
 * this is a store or two of constant size, which the compiler inlines, instead of a call to
 * memset for a handful of bytes. */
#define MARK_BLOCK 16

static size_t mark_blocks(size_t n)
{
	return n / MARK_BLOCK + 1;
}

static void clear_marks(SartWrapper *w)
{
	for (unsigned i = 0; i < w->is_set_off[SART_NTYPES]; i += MARK_BLOCK)
		memset(w->is_set + i, 0, MARK_BLOCK);
}

static SART_COLD void bad_input(SartWrapper *w, unsigned f, const SartPorts *p, const double *v)
{
	unsigned k = 0;
	while (k + 1 < p->n && isfinite(v[k]))
		k++;
	fail(w, SART_ERROR, "[wrapper] rule sets %s.%s to %s", sart_model.inners[f].name,
	     p->names[k], isnan(v[k]) ? "nan" : v[k] > 0 ? "inf" : "-inf");
}

/* flush_real when some Real input was not assigned: the assigned ones are gathered into
 * the wrapper's buffers (k0 of them, before the first gap, already taken by the caller). */
static SART_COLD void flush_real_some(SartWrapper *w, unsigned char *s, unsigned f,
                                      unsigned k0)
{
	const SartPorts *p = &sart_model.inners[f].in[SART_REAL];
	unsigned char *assigned = s + p->assigned;
	const double *v = reals(s, p->values);
	unsigned n = 0;
	for (unsigned k = 0; k < p->n; k++) {
		if (k >= k0 && !assigned[k])
			continue;
		assigned[k] = 0;
		if (!isfinite(v[k])) {
			bad_input(w, f, p, v);
			return;
		}
		w->vrbuf[n] = p->vr[k];
		w->rbuf[n] = v[k];
		n++;
	}
	if (n)
		check_inner(w, sart_inner_set_real(w->inner[f], w->vrbuf, n, w->rbuf), f,
		            "setting the inputs");
}

/* Sets the Real inputs of inner f that rules assigned, clearing their flags as it takes them
 * (a failure from here on fails the whole call, so no flag has to survive it).  Every input
 * assigned is the usual case, and then the Storage's own array goes as it is, checked to be
 * finite in one pass of multiplications by zero (0 * x is 0 exactly for every finite x, NaN
 * for NaN and the infinities): a single branch for the whole group. */
static HOT_INLINE int flush_real(SartWrapper *w, unsigned char *s, unsigned f,
                                 const SartPorts *p)
{
	const unsigned np = p->n;
	unsigned char *assigned = s + p->assigned;
	const double *v = reals(s, p->values);
	double zero = 0.0;
	unsigned k;
	for (k = 0; k < np && assigned[k]; k++) {
		assigned[k] = 0;
		zero += 0.0 * v[k];
	}
	if (k < np) {
		flush_real_some(w, s, f, k);
		return !failed(w);
	}
	if (zero != 0.0) {
		bad_input(w, f, p, v);
		return 0;
	}
	SartStatus st = sart_inner_set_real(w->inner[f], p->vr, np, v);
	if (st != SART_OK) {
		check_inner(w, st, f, "setting the inputs");
		return !failed(w);
	}
	return 1;
}

/* The same for Integer and Boolean inputs (Booleans normalised to 0 or 1), always gathered:
 * they are rare. */
static SART_COLD void flush_ints(SartWrapper *w, unsigned char *s, unsigned f, int t)
{
	const SartPorts *p = &sart_model.inners[f].in[t];
	unsigned char *assigned = s + p->assigned;
	const int *v = ints(s, p->values);
	unsigned n = 0;
	SartStatus st;
	for (unsigned k = 0; k < p->n; k++) {
		if (!assigned[k])
			continue;
		assigned[k] = 0;
		w->vrbuf[n] = p->vr[k];
		w->ibuf[n] = t == SART_BOOLEAN ? v[k] != 0 : v[k];
		n++;
	}
	if (!n)
		return;
	if (t == SART_INTEGER)
		st = sart_inner_set_integer(w->inner[f], w->vrbuf, n, w->ibuf);
	else
		st = sart_inner_set_boolean(w->inner[f], w->vrbuf, n, w->ibuf);
	check_inner(w, st, f, "setting the inputs");
}

/* Sets the inputs of inner f that rules assigned, then clears their flags: one set call per
 * type.  Returns 0 when that failed. */
static int flush_inputs(SartWrapper *w, unsigned char *s, unsigned f)
{
	const Plan *pl = &w->plan[f];
	for (unsigned i = 0; i < pl->nin; i++) {
		if (pl->in[i] == SART_REAL)
			flush_real(w, s, f, &sart_model.inners[f].in[SART_REAL]);
		else
			flush_ints(w, s, f, pl->in[i]);
	}
	return !failed(w);
}

/* An inner FMU gave a NaN or an infinity as an output: an error at this step, naming the
 * port (MASTER.md, "Status handling": where it first appears).  Out of line. */
static SART_COLD void bad_output(SartWrapper *w, unsigned f, const SartPorts *p,
                                 const double *v)
{
	unsigned k = 0;
	while (k + 1 < p->n && isfinite(v[k]))
		k++;
	fail(w, SART_ERROR, "[wrapper] reading the outputs of '%s': fmi2GetReal gave %s for %s.%s",
	     sart_model.inners[f].name, isnan(v[k]) ? "nan" : v[k] > 0 ? "inf" : "-inf",
	     sart_model.inners[f].name, p->names[k]);
}

/* Whether every v[k] is finite, in one branch: flush_real's sum of multiplications by zero. */
static HOT_INLINE int all_finite(const double *v, unsigned n)
{
	double zero = 0.0;
	for (unsigned k = 0; k < n; k++)
		zero += 0.0 * v[k];
	return zero == 0.0;
}

/* Reads the Real outputs p of inner f into the Storage with one get call, each checked to be
 * finite as flush_real checks inputs.  Returns 0 when that failed. */
static HOT_INLINE int read_real(SartWrapper *w, unsigned char *s, unsigned f,
                                const SartPorts *p)
{
	double *v = reals(s, p->values);
	const unsigned n = p->n;
	SartStatus st = sart_inner_get_real(w->inner[f], p->vr, n, v);
	if (st != SART_OK) {
		check_inner(w, st, f, "reading the outputs");
		if (failed(w))
			return 0;
	}
	if (!all_finite(v, n)) {
		bad_output(w, f, p, v);
		return 0;
	}
	return 1;
}

/* Reads every output of inner f into the Storage, one get call per type.  Returns 0 when
 * that failed. */
static int read_outputs(SartWrapper *w, unsigned char *s, unsigned f)
{
	const Plan *pl = &w->plan[f];
	for (unsigned i = 0; i < pl->nout; i++) {
		int t = pl->out[i];
		const SartPorts *p = &sart_model.inners[f].out[t];
		SartStatus st;
		if (t == SART_REAL) {
			if (!read_real(w, s, f, p))
				return 0;
			continue;
		} else if (t == SART_INTEGER)
			st = sart_inner_get_integer(w->inner[f], p->vr, p->n, ints(s, p->values));
		else
			st = sart_inner_get_boolean(w->inner[f], p->vr, p->n, ints(s, p->values));
		check_inner(w, st, f, "reading the outputs");
		if (failed(w))
			return 0;
	}
	return 1;
}

/* Init's and G's pass over the inners in topological order (outside a step: H, h, dt 0). */
static void visit_inners(SartWrapper *w, unsigned char *s)
{
	for (unsigned i = 0; i < sart_model.norder && !failed(w); i++) {
		unsigned f = sart_model.order[i];
		sart_model.map_in(w, s, w->time, 0.0, 0.0, 0.0);
		sart_model.couple(w, s, f);
		if (failed(w) || !flush_inputs(w, s, f) || !read_outputs(w, s, f))
			return;
		sart_model.map_out(w, s, w->time, 0.0, 0.0, 0.0);
	}
}

/* ---- rule-level API (sart_wrapper.h) ---------------------------------------------------- */

/* Whether a rule-level call on inner f may go ahead: no earlier failure, and f exists. */
static inline int may_call(SartWrapper *w, unsigned f, const char *fn)
{
	if (failed(w))
		return 0;
	if (f < sart_model.ninners)
		return 1;
	fail(w, SART_ERROR, "[wrapper] %s: no inner FMU %u", fn, f);
	return 0;
}

/* do_step(f, ti, hi)'s MapIn, with e as f's time since its last step. */
static HOT_INLINE void step_map_in(SartWrapper *w, unsigned char *s, unsigned f, double ti,
                                   double hi)
{
	w->map_e = ti - w->last[f];
	w->in_map = 1;
	sart_model.map_in(w, s, w->step_t, w->step_H, hi, ti - w->step_t);
	w->in_map = 0;
}

/* do_step(f, ti, hi)'s end once f's outputs are read: f stands at reached; MapOut. */
static HOT_INLINE void step_map_out(SartWrapper *w, unsigned char *s, unsigned f, double ti,
                                    double hi, double reached)
{
	w->last[f] = reached;
	w->in_map = 1;
	sart_model.map_out(w, s, w->step_t, w->step_H, hi, ti - w->step_t);
	w->in_map = 0;
}

/* do_step's outcomes other than SART_OK.  A discard is not a failure: f stands at
 * `*reached`; its partial step is accepted when it can get and set its state (setting it
 * takes f from stepFailed back to stepComplete).  Returns 0 on a failure. */
static SART_COLD int step_not_ok(SartWrapper *w, unsigned f, SartStatus st, double ti,
                                 double hi, double *reached)
{
	if (st == SART_DISCARD) {
		if (sart_model.inners[f].caps & SART_CAP_GET_SET_STATE) {
			check_inner(w, sart_inner_get_state(w->inner[f], &w->slot[f]), f,
			            "getting the state after a discard");
			if (!failed(w))
				check_inner(w, sart_inner_set_state(w->inner[f], w->slot[f]), f,
				            "accepting the partial step");
		}
	} else {
		check_inner(w, st, f, "do_step");
		*reached = ti + hi;
	}
	return !failed(w);
}

/* The part of do_step after inner f stepped (status st, standing at reached): its outputs
 * read, MapOut.  Returns the step f took. */
static double after_inner_step(SartWrapper *w, unsigned char *s, unsigned f, double ti,
                               double hi, SartStatus st, double reached)
{
	double taken = hi;
	if (st != SART_OK) {
		if (!step_not_ok(w, f, st, ti, hi, &reached))
			return 0.0;
		if (st == SART_DISCARD)
			taken = reached - ti;
	}
	if (!read_outputs(w, s, f))
		return 0.0;
	step_map_out(w, s, f, ti, hi, reached);
	return taken;
}

/* do_step of an inner with Integer or Boolean ports. */
static SART_COLD double do_step_general(SartWrapper *w, unsigned char *s, unsigned f,
                                        double ti, double hi)
{
	double reached;
	step_map_in(w, s, f, ti, hi);
	if (!flush_inputs(w, s, f))
		return 0.0;
	SartStatus st = sart_inner_do_step(w->inner[f], ti, hi, 0, &reached);
	return after_inner_step(w, s, f, ti, hi, st, reached);
}

/* The usual do_step: Real ports only, and the inner steps with fmi2OK; anything else is
 * handed on at the point where it appears. */
double sart_do_step(SartWrapper *w, void *s, unsigned f, double ti, double hi)
{
	unsigned char *st_ = s;
	double reached;
	if (!may_call(w, f, "do_step"))
		return 0.0;
	const Plan *pl = &w->plan[f];
	if (!pl->only_real)
		return do_step_general(w, st_, f, ti, hi);
	step_map_in(w, st_, f, ti, hi);
	if (pl->rin && !flush_real(w, st_, f, pl->rin))
		return 0.0;
	SartStatus st = sart_inner_do_step(w->inner[f], ti, hi, 0, &reached);
	if (st != SART_OK)
		return after_inner_step(w, st_, f, ti, hi, st, reached);
	if (pl->rout && !read_real(w, st_, f, pl->rout))
		return 0.0;
	step_map_out(w, st_, f, ti, hi, reached);
	return hi;
}

/* A fast step's do_step from the point where something other than SART_OK appeared: the rest
 * of do_step(f, t, H) as sart_do_step would run it, MapIn having run and f's Real input
 * flags cleared (flush_real clears them all before it checks the values).  stage 0: nothing
 * called yet (a non-finite input, or no direct route); 1: the set gave status; 2: the step
 * gave status; 3: the step was OK and the get gave status (0: an output not finite).
 * Returns the step f took, as sart_do_step does. */
static SART_COLD double fast_rest(SartWrapper *w, unsigned char *s, unsigned f, double t,
                                  double H, int stage, int status)
{
	const SartPorts *pi = &sart_model.inners[f].in[SART_REAL];
	const SartPorts *po = &sart_model.inners[f].out[SART_REAL];
	SartInner *in = w->inner[f];
	double reached = t + H;
	SartStatus st = SART_OK;
	w->map_e = t - w->last[f];
	switch (stage) {
	case 0: {
		const double *u = reals(s, pi->values);
		if (!all_finite(u, pi->n)) {
			bad_input(w, f, pi, u);
			return 0.0;
		}
		if (pi->n)
			check_inner(w, sart_inner_set_real(in, pi->vr, pi->n, u), f,
			            "setting the inputs");
		if (failed(w))
			return 0.0;
		st = sart_inner_do_step(in, t, H, 0, &reached);
		break;
	}
	case 1:
		check_inner(w, sart_inner_direct_status(in, SART_DIRECT_SET_REAL, status, t, H, NULL),
		            f, "setting the inputs");
		if (failed(w))
			return 0.0;
		st = sart_inner_do_step(in, t, H, 0, &reached);
		break;
	case 2:
		st = sart_inner_direct_status(in, SART_DIRECT_DO_STEP, status, t, H, &reached);
		break;
	default: {
		const double *y = reals(s, po->values);
		if (status) {
			check_inner(w, sart_inner_direct_status(in, SART_DIRECT_GET_REAL, status, t, H,
			                                        NULL), f, "reading the outputs");
			if (failed(w))
				return 0.0;
		}
		if (!all_finite(y, po->n)) {
			bad_output(w, f, po, y);
			return 0.0;
		}
		step_map_out(w, s, f, t, H, reached);
		return H;
	}
	}
	return after_inner_step(w, s, f, t, H, st, reached);
}

int sart_fast_rest(SartWrapper *w, void *s, unsigned f, double t, double H, int stage,
                   int status, double *taken)
{
	*taken = fast_rest(w, s, f, t, H, stage, status);
	return 0;
}

static void stack_push(SartWrapper *w, unsigned f)
{
	Stack *k = &w->stacks[f];
	if (k->n == k->cap) {
		unsigned cap = k->cap ? 2 * k->cap : 4;
		Saved *items = realloc(k->items, cap * sizeof *items);
		if (!items) {
			fail(w, SART_ERROR, "[wrapper] save_state(%s): out of memory",
			     sart_model.inners[f].name);
			return;
		}
		memset(items + k->cap, 0, (cap - k->cap) * sizeof *items);
		k->items = items;
		k->cap = cap;
	}
	check_inner(w, sart_inner_get_state(w->inner[f], &k->items[k->n].state), f, "save_state");
	if (failed(w))
		return;
	k->items[k->n].last = w->last[f];
	k->n++;
	w->stacked = 1;
}

void sart_save_state(SartWrapper *w, unsigned f)
{
	if (!may_call(w, f, "save_state"))
		return;
	if (!(sart_model.inners[f].caps & SART_CAP_GET_SET_STATE)) {
		fail(w, SART_ERROR, "[wrapper] save_state(%s): the FMU cannot get and set its state",
		     sart_model.inners[f].name);
		return;
	}
	stack_push(w, f);
}

void sart_rollback(SartWrapper *w, unsigned f)
{
	if (!may_call(w, f, "rollback"))
		return;
	Stack *k = &w->stacks[f];
	if (!k->n) {
		fail(w, SART_ERROR, "[wrapper] rollback(%s): no state was saved in this step",
		     sart_model.inners[f].name);
		return;
	}
	check_inner(w, sart_inner_set_state(w->inner[f], k->items[k->n - 1].state), f, "rollback");
	if (failed(w))
		return;
	w->last[f] = k->items[k->n - 1].last;
	k->n--;
}

double sart_get_next_time_step(SartWrapper *w, unsigned f)
{
	double reached = NAN, from;
	if (!may_call(w, f, "get_next_time_step"))
		return 0.0;
	if (!(sart_model.inners[f].caps & SART_CAP_GET_SET_STATE)) {
		fail(w, SART_ERROR, "[wrapper] get_next_time_step(%s): the FMU cannot get and set its "
		     "state", sart_model.inners[f].name);
		return 0.0;
	}
	from = w->last[f];
	check_inner(w, sart_inner_get_state(w->inner[f], &w->slot[f]), f, "get_next_time_step");
	if (failed(w))
		return 0.0;
	SartStatus st = sart_inner_do_step(w->inner[f], from, SART_MAX, 0, &reached);
	if (st != SART_DISCARD)
		check_inner(w, st, f, "get_next_time_step's probe step");
	if (failed(w))
		return 0.0;
	check_inner(w, sart_inner_set_state(w->inner[f], w->slot[f]), f,
	            "get_next_time_step's restore");
	if (failed(w))
		return 0.0;
	return st == SART_DISCARD ? reached - from : SART_MAX;
}

double sart_elapsed(SartWrapper *w, unsigned f, double t)
{
	if (!may_call(w, f, "elapsed"))
		return 0.0;
	return t - w->last[f];
}

double sart_last_execution_time(SartWrapper *w, unsigned f)
{
	if (!may_call(w, f, "last_execution_time"))
		return 0.0;
	return w->last[f];
}

double sart_e(SartWrapper *w)
{
	return w->in_map ? w->map_e : 0.0;
}

static unsigned char *is_set_mark(SartWrapper *w, SartType type, SartVr vr)
{
	if ((unsigned)type >= SART_NTYPES || vr >= sart_model.nvr[type])
		return NULL;
	return &w->is_set[w->is_set_off[type] + vr];
}

int sart_is_set(SartWrapper *w, SartType type, SartVr vr)
{
	unsigned char *m = is_set_mark(w, type, vr);
	return m ? *m : 0;
}

void sart_discard(SartWrapper *w, SartType type, SartVr vr)
{
	unsigned char *m = is_set_mark(w, type, vr);
	if (m)
		*m = 0;
}

int sart_failed(const SartWrapper *w)
{
	return failed(w);
}

int sart_is_close(double a, double b, double rtol, double atol)
{
	double d = fabs(a - b);
	if (!(d < atol))
		return 0;
	return a == 0.0 || d / fabs(a) < rtol;
}

int sart_imin(int a, int b)
{
	return a < b ? a : b;
}

int sart_imax(int a, int b)
{
	return a > b ? a : b;
}

int sart_to_int(SartWrapper *w, double x, const char *where)
{
	if (failed(w))
		return 0;
	if (!(x >= (double)INT_MIN && x <= (double)INT_MAX)) {
		fail(w, SART_ERROR, "%s: %g does not fit an Integer", where ? where : "?", x);
		return 0;
	}
	return (int)x;
}

/* ---- creation and the life cycle -------------------------------------------------------- */

const char *fmi2GetTypesPlatform(void)
{
	return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
	return fmi2Version;
}

static void free_states(SartWrapper *w)
{
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartInner *in = w->inner ? w->inner[f] : NULL;
		if (w->stacks) {
			for (unsigned k = 0; k < w->stacks[f].cap; k++)
				if (w->stacks[f].items[k].state)
					sart_inner_free_state(in, &w->stacks[f].items[k].state);
			free(w->stacks[f].items);
		}
		if (w->snap_inner && w->snap_inner[f])
			sart_inner_free_state(in, &w->snap_inner[f]);
		if (w->slot && w->slot[f])
			sart_inner_free_state(in, &w->slot[f]);
	}
}

static void wrapper_free(SartWrapper *w)
{
	if (!w)
		return;
	free_states(w);
	if (w->inner)
		for (unsigned f = 0; f < sart_model.ninners; f++)
			sart_inner_free(w->inner[f]);
	w->magic = 0;
	free(w->inner);
	free(w->plan);
	free(w->direct);
	free(w->stacks);
	free(w->snap_inner);
	free(w->slot);
	free(w->name);
	free(w->resources);
	free(w->storage);
	free(w->scratch);
	free(w->snap_storage);
	free(w->last);
	free(w->snap_last);
	free(w->is_set);
	free(w->snap_is_set);
	free(w->du);
	free(w->du_set);
	free(w->vrbuf);
	free(w->rbuf);
	free(w->ibuf);
	free(w);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* The Storage as after fmi2Instantiate. */
static void storage_defaults(SartWrapper *w)
{
	memset(w->storage, 0, sart_model.storage_size);
	sart_model.defaults(w->storage);
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
	const SartModel *m = &sart_model;
	SartWrapper *w = NULL, *result = NULL;
	char *inner_dir = NULL;
	char err[512];
	(void)visible;
	if (!functions || !functions->logger)
		return NULL;
	fmi2CallbackLogger logger = functions->logger;
	fmi2ComponentEnvironment env = functions->componentEnvironment;
	if (!instanceName || !instanceName[0]) {
		log_to(logger, env, "?", SART_ERROR, "fmi2Instantiate: the instance name is missing");
		return NULL;
	}
	if (fmuType != fmi2CoSimulation) {
		log_to(logger, env, instanceName, SART_ERROR,
		       "fmi2Instantiate: %s supports Co-Simulation only", m->identifier);
		return NULL;
	}
	if (!fmuGUID || strcmp(fmuGUID, m->guid) != 0) {
		log_to(logger, env, instanceName, SART_ERROR,
		       "fmi2Instantiate: GUID %s does not match %s's %s", fmuGUID ? fmuGUID : "(null)",
		       m->identifier, m->guid);
		return NULL;
	}
	w = calloc(1, sizeof *w);
	if (!w) {
		log_to(logger, env, instanceName, SART_ERROR, "fmi2Instantiate: out of memory");
		return NULL;
	}
	w->logger = logger;
	w->env = env;
	w->logging = loggingOn != fmi2False;
	w->log_mask = CAT_ALL;
	w->phase = PH_INSTANTIATED;
	w->name = dup_str(instanceName);
	if (!w->name) {
		log_to(logger, env, instanceName, SART_ERROR, "fmi2Instantiate: out of memory");
		goto done;
	}
	w->resources = sart_uri_to_path(fmuResourceLocation, err, sizeof err);
	if (!w->resources) {
		wlog(w, SART_ERROR, "fmi2Instantiate: bad resource location: %s", err);
		goto done;
	}
	log_call(w, "fmi2Instantiate(%s, fmi2CoSimulation, %s, %s, visible = %d, loggingOn = %d)",
	         instanceName, fmuGUID, fmuResourceLocation, (int)visible, (int)loggingOn);

	unsigned nvr_total = 0, maxports = 1;
	for (int t = 0; t < SART_NTYPES; t++) {
		w->is_set_off[t] = nvr_total;
		nvr_total += m->nvr[t];
	}
	w->is_set_off[SART_NTYPES] = nvr_total;
	for (unsigned f = 0; f < m->ninners; f++)
		for (int t = 0; t < SART_NTYPES; t++)
			if (m->inners[f].in[t].n > maxports)
				maxports = m->inners[f].in[t].n;
	size_t ssize = m->storage_size ? m->storage_size : 1;
	size_t ni = m->ninners ? m->ninners : 1;
	w->storage = calloc(1, ssize);
	w->scratch = calloc(1, ssize);
	w->snap_storage = calloc(1, ssize);
	w->inner = calloc(ni, sizeof *w->inner);
	w->last = calloc(ni, sizeof *w->last);
	w->snap_last = calloc(ni, sizeof *w->snap_last);
	w->snap_inner = calloc(ni, sizeof *w->snap_inner);
	w->slot = calloc(ni, sizeof *w->slot);
	w->stacks = calloc(ni, sizeof *w->stacks);
	w->plan = calloc(ni, sizeof *w->plan);
	w->direct = calloc(ni, sizeof *w->direct);
	w->is_set = calloc(mark_blocks(nvr_total), MARK_BLOCK);
	w->snap_is_set = calloc(mark_blocks(nvr_total), MARK_BLOCK);
	w->du = calloc(m->nreal_inputs + 1, sizeof *w->du);
	w->du_set = calloc(m->nreal_inputs + 1, 1);
	w->vrbuf = calloc(maxports, sizeof *w->vrbuf);
	w->rbuf = calloc(maxports, sizeof *w->rbuf);
	w->ibuf = calloc(maxports, sizeof *w->ibuf);
	if (!w->storage || !w->scratch || !w->snap_storage || !w->inner || !w->plan ||
	    !w->direct || !w->last ||
	    !w->snap_last || !w->snap_inner || !w->slot || !w->stacks || !w->is_set ||
	    !w->snap_is_set || !w->du || !w->du_set || !w->vrbuf || !w->rbuf || !w->ibuf) {
		wlog(w, SART_ERROR, "fmi2Instantiate: out of memory");
		goto done;
	}

	w->can_snapshot = m->may_reject != 0;
	for (unsigned f = 0; f < m->ninners; f++) {
		const SartInnerModel *im = &m->inners[f];
		size_t len = strlen(w->resources) + 1 + strlen(im->name) + 1;
		if (!(im->caps & SART_CAP_GET_SET_STATE))
			w->can_snapshot = 0;
		Plan *pl = &w->plan[f];
		for (int t = 0; t < SART_NTYPES; t++) {
			if (im->in[t].n)
				pl->in[pl->nin++] = (unsigned char)t;
			if (im->out[t].n)
				pl->out[pl->nout++] = (unsigned char)t;
		}
		pl->only_real = !im->in[SART_INTEGER].n && !im->in[SART_BOOLEAN].n &&
		                !im->out[SART_INTEGER].n && !im->out[SART_BOOLEAN].n;
		pl->rin = im->in[SART_REAL].n ? &im->in[SART_REAL] : NULL;
		pl->rout = im->out[SART_REAL].n ? &im->out[SART_REAL] : NULL;
		inner_dir = malloc(len);
		if (!inner_dir) {
			wlog(w, SART_ERROR, "fmi2Instantiate: out of memory");
			goto done;
		}
		snprintf(inner_dir, len, "%s/%s", w->resources, im->name);
		SartInnerConfig cfg = {im->name, inner_dir, im->model_identifier, im->version,
		                       im->caps, inner_logger, w};
		SartStatus st = sart_inner_load(&cfg, &w->inner[f]);
		free(inner_dir);
		inner_dir = NULL;
		if (st != SART_OK && st != SART_WARNING) {
			wlog(w, SART_ERROR, "fmi2Instantiate: cannot load inner FMU '%s'", im->name);
			goto done;
		}
		st = sart_inner_instantiate(w->inner[f], im->guid, w->logging);
		if (st != SART_OK && st != SART_WARNING) {
			wlog(w, SART_ERROR, "fmi2Instantiate: cannot instantiate inner FMU '%s'", im->name);
			goto done;
		}
		w->direct[f] = sart_inner_direct(w->inner[f]);
	}
	storage_defaults(w);
	refresh_plain(w);
	w->fast = sart_model.fast_step != NULL && !getenv("SART_NO_FAST_STEP");
	w->route.direct = w->direct;
	w->route.last = w->last;
	w->magic = WRAPPER_MAGIC;
	result = w;
	w = NULL;
done:
	free(inner_dir);
	wrapper_free(w);
	return result;
}

void fmi2FreeInstance(fmi2Component c)
{
	SartWrapper *w = c;
	if (!w || w->magic != WRAPPER_MAGIC)
		return;
	log_call(w, "fmi2FreeInstance()");
	wrapper_free(w);
}

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String cats[])
{
	SartWrapper *w = enter(c, "fmi2SetDebugLogging", PH_ALIVE);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2SetDebugLogging(loggingOn = %d, nCategories = %lu)", (int)loggingOn,
	         (unsigned long)nCategories);
	unsigned mask = nCategories ? 0 : CAT_ALL;
	if (nCategories && !cats) {
		wlog(w, SART_ERROR, "fmi2SetDebugLogging: categories is NULL");
		return fmi2Error;
	}
	for (size_t i = 0; i < nCategories; i++) {
		size_t j = 0;
		while (j < sizeof categories / sizeof categories[0] &&
		       !(cats[i] && strcmp(cats[i], categories[j].name) == 0))
			j++;
		if (j == sizeof categories / sizeof categories[0]) {
			wlog(w, SART_ERROR, "fmi2SetDebugLogging: unknown log category '%s'",
			     cats[i] ? cats[i] : "(null)");
			return fmi2Error;
		}
		mask |= categories[j].bit;
	}
	w->logging = loggingOn != fmi2False;
	w->log_mask = mask;
	refresh_plain(w);
	return fmi2OK;
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	SartWrapper *w = enter(c, "fmi2SetupExperiment", PH_INSTANTIATED);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2SetupExperiment(toleranceDefined = %d, tolerance = %.17g, startTime = "
	         "%.17g, stopTimeDefined = %d, stopTime = %.17g)", (int)toleranceDefined, tolerance,
	         startTime, (int)stopTimeDefined, stopTime);
	if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime))) {
		wlog(w, SART_ERROR, "fmi2SetupExperiment: invalid start time %g or stop time %g",
		     startTime, stopTime);
		return fmi2Error;
	}
	w->ex.tolerance_defined = toleranceDefined != fmi2False;
	w->ex.tolerance = tolerance;
	w->ex.start_time = startTime;
	w->ex.stop_time_defined = stopTimeDefined != fmi2False;
	w->ex.stop_time = stopTime;
	w->time = startTime;
	w->last_ok = startTime;
	return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	SartWrapper *w = enter(c, "fmi2EnterInitializationMode", PH_INSTANTIATED);
	SartStatus st = SART_OK;
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2EnterInitializationMode()");
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus s = sart_inner_enter_init(w->inner[f], &w->ex);
		if (s >= SART_ERROR)
			wlog(w, s, "fmi2EnterInitializationMode: inner FMU '%s' failed: %s",
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
		st = worst(st, s);
	}
	if (st >= SART_ERROR)
		return settle(w, st);
	for (unsigned f = 0; f < sart_model.ninners; f++)
		w->last[f] = w->time;
	w->g_dirty = 0;
	w->g_valid = 0;
	w->phase = PH_INIT;
	return (fmi2Status)st;
}

/* The Init sequence (sart_wrapper.h), then the inners leave initialization mode, then Out. */
static void init_body(SartWrapper *w)
{
	unsigned char *s = w->storage;
	w->step_t = w->time;
	w->step_H = 0.0;
	sart_model.initial(w, s, w->time, 0.0);
	if (!failed(w))
		sart_model.in(w, s, w->time, 0.0);
	visit_inners(w, s);
	for (unsigned f = 0; f < sart_model.ninners && !failed(w); f++)
		check_inner(w, sart_inner_exit_init(w->inner[f]), f, "leaving initialization mode");
	if (!failed(w))
		sart_model.out(w, s, w->time, 0.0);
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	SartWrapper *w = enter(c, "fmi2ExitInitializationMode", PH_INIT);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2ExitInitializationMode()");
	SartStatus st = guarded(w, init_body);
	if (st >= SART_ERROR)
		return settle(w, st);
	clear_marks(w);
	w->g_dirty = 0;
	w->g_valid = 0;
	w->phase = PH_STEP_COMPLETE;
	return (fmi2Status)st;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	SartWrapper *w = enter(c, "fmi2Terminate", PH_STEP_COMPLETE | PH_STEP_FAILED);
	SartStatus st = SART_OK;
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2Terminate()");
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus s = sart_inner_terminate(w->inner[f]);
		if (s >= SART_ERROR)
			wlog(w, s, "fmi2Terminate: inner FMU '%s' failed: %s", sart_model.inners[f].name,
			     sart_inner_message(w->inner[f]));
		st = worst(st, s);
	}
	if (st >= SART_ERROR)
		return settle(w, st);
	w->phase = PH_TERMINATED;
	return (fmi2Status)st;
}

fmi2Status fmi2Reset(fmi2Component c)
{
	SartWrapper *w = enter(c, "fmi2Reset", PH_ALIVE);
	SartStatus st = SART_OK;
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2Reset()");
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus s = sart_inner_reset(w->inner[f]);
		if (s >= SART_ERROR)
			wlog(w, s, "fmi2Reset: inner FMU '%s' failed: %s", sart_model.inners[f].name,
			     sart_inner_message(w->inner[f]));
		st = worst(st, s);
		w->stacks[f].n = 0;
		w->last[f] = 0.0;
	}
	if (st >= SART_ERROR)
		return settle(w, st);
	storage_defaults(w);
	memset(&w->ex, 0, sizeof w->ex);
	clear_marks(w);
	memset(w->du, 0, sart_model.nreal_inputs * sizeof *w->du);
	memset(w->du_set, 0, sart_model.nreal_inputs);
	w->time = 0.0;
	w->last_ok = 0.0;
	w->g_dirty = 0;
	w->g_valid = 0;
	w->phase = PH_INSTANTIATED;
	return (fmi2Status)st;
}

/* ---- getting and setting values --------------------------------------------------------- */

/* G (Mealy only): In, the inners in order, Out, on the scratch copy. */
static void g_body(SartWrapper *w)
{
	memcpy(w->scratch, w->storage, sart_model.storage_size);
	w->step_t = w->time;
	w->step_H = 0.0;
	sart_model.in(w, w->scratch, w->time, 0.0);
	visit_inners(w, w->scratch);
	if (!failed(w))
		sart_model.out(w, w->scratch, w->time, 0.0);
}

/* Logs a get or set call with its value references and values (logFmiCalls). */
static void log_values(SartWrapper *w, const char *fn, SartType t, const fmi2ValueReference vr[],
                       size_t nvr, const void *values)
{
	char buf[768];
	size_t used = 0;
	if (!calls_logged(w))
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < nvr && vr && values && used + 64 < sizeof buf; i++) {
		int n;
		if (t == SART_REAL)
			n = snprintf(buf + used, sizeof buf - used, "%s#%u = %.17g", i ? ", " : "", vr[i],
			             ((const double *)values)[i]);
		else
			n = snprintf(buf + used, sizeof buf - used, "%s#%u = %d", i ? ", " : "", vr[i],
			             ((const int *)values)[i]);
		if (n < 0)
			break;
		used += (size_t)n;
		if (used >= sizeof buf)
			used = sizeof buf - 1;
	}
	log_call(w, "%s(nvr = %lu: %s%s)", fn, (unsigned long)nvr, buf,
	         used + 64 >= sizeof buf ? ", ..." : "");
}

/* In initializationMode the outputs are the Init sequence's, run on the scratch copy with
 * the initial values computed from the params as they are now: an importer (or an outer
 * wrapper running its own Init) reads calculated initial outputs, not defaults. */
static void init_g_body(SartWrapper *w)
{
	memcpy(w->scratch, w->storage, sart_model.storage_size);
	w->step_t = w->time;
	w->step_H = 0.0;
	sart_model.initial(w, w->scratch, w->time, 0.0);
	if (!failed(w))
		sart_model.in(w, w->scratch, w->time, 0.0);
	visit_inners(w, w->scratch);
	if (!failed(w))
		sart_model.out(w, w->scratch, w->time, 0.0);
}

/* G (or, in initializationMode, the Init sequence) before a get that needs it: a failure
 * is the get's. */
static SartStatus run_g(SartWrapper *w, const char *fn)
{
	SartStatus st = guarded(w, w->phase == PH_INIT ? init_g_body : g_body);
	if (st >= SART_ERROR) {
		w->g_valid = 0;
		wlog(w, st, "%s: computing the outputs from the new inputs failed", fn);
		return (SartStatus)settle(w, st);
	}
	w->g_dirty = 0;
	w->g_valid = 1;
	return st;
}

static const char *const type_fmi_name[SART_NTYPES] = {"Real", "Integer", "Boolean"};

/* A value reference outside the type's table, named in the message. */
static SART_COLD fmi2Status unknown_vr(SartWrapper *w, const char *fn, SartType t, SartVr vr)
{
	if (!sart_model.nvr[t])
		wlog(w, SART_ERROR, "%s: unknown value reference %u: %s has no %s variable", fn, vr,
		     sart_model.identifier, type_fmi_name[t]);
	else
		wlog(w, SART_ERROR, "%s: unknown value reference %u", fn, vr);
	return fmi2Error;
}

/* Why a set of value reference vr is refused (unknown, an output, a fixed parameter after
 * initialization). */
static SART_COLD SartStatus not_settable(SartWrapper *w, const char *fn, SartType t, SartVr vr)
{
	if (vr >= sart_model.nvr[t])
		return (SartStatus)unknown_vr(w, fn, t, vr);
	const SartVar *v = &sart_model.vars[t][vr];
	if (v->kind == SART_VAR_OUTPUT)
		wlog(w, SART_ERROR, "%s: '%s' is an output", fn, v->name);
	else
		wlog(w, SART_ERROR, "%s: '%s' is a fixed parameter: it cannot be set after "
		     "initialization", fn, v->name);
	return SART_ERROR;
}

/* The external gets and sets are the importer's every step, so they are inline in their
 * fmi2GetX and fmi2SetX (t is a constant there): one loop over the model's table of the
 * type, each value read or written at its offset in the Storage. */
static HOT_INLINE fmi2Status get_values(fmi2Component c, const char *fn, SartType t,
                                        const fmi2ValueReference vr[], size_t nvr, void *values)
{
	SartWrapper *w = enter(c, fn, PH_GET);
	SartStatus st = SART_OK;
	if (!w)
		return fmi2Error;
	if (nvr && (!vr || !values)) {
		wlog(w, SART_ERROR, "%s: NULL value reference or value array", fn);
		return fmi2Error;
	}
	if ((sart_model.mealy && w->g_dirty && w->phase == PH_STEP_COMPLETE) ||
	    (w->phase == PH_INIT && !w->g_valid)) {
		st = run_g(w, fn);
		if (st >= SART_ERROR)
			return (fmi2Status)st;
	}
	const unsigned char *s = w->g_valid ? w->scratch : w->storage;
	const SartVar *vars = sart_model.vars[t];
	const unsigned n = sart_model.nvr[t];
	for (size_t i = 0; i < nvr; i++) {
		SartVr r = vr[i];
		if (r >= n)
			return unknown_vr(w, fn, t, r);
		const void *p = s + vars[r].offset;
		if (t == SART_REAL)
			((double *)values)[i] = *(const double *)p;
		else
			((int *)values)[i] = *(const int *)p;
	}
	if (calls_logged(w))
		log_values(w, fn, t, vr, nvr, values);
	return (fmi2Status)st;
}

static HOT_INLINE fmi2Status set_values(fmi2Component c, const char *fn, SartType t,
                                        const fmi2ValueReference vr[], size_t nvr,
                                        const void *values)
{
	SartWrapper *w = enter(c, fn, PH_SET);
	if (!w)
		return fmi2Error;
	if (nvr && (!vr || !values)) {
		wlog(w, SART_ERROR, "%s: NULL value reference or value array", fn);
		return fmi2Error;
	}
	if (calls_logged(w))
		log_values(w, fn, t, vr, nvr, values);
	const SartVarKind least = w->phase & (PH_INSTANTIATED | PH_INIT) ? SART_VAR_FIXED
	                                                                   : SART_VAR_TUNABLE;
	unsigned char *s = w->storage;
	unsigned char *marks = w->is_set + w->is_set_off[t];
	const SartVar *vars = sart_model.vars[t];
	const unsigned n = sart_model.nvr[t];
	size_t i;
	SartStatus r = SART_OK;
	for (i = 0; i < nvr; i++) {
		SartVr k = vr[i];
		if (k >= n || vars[k].kind < least) {
			r = not_settable(w, fn, t, k);
			break;
		}
		void *p = s + vars[k].offset;
		if (t == SART_REAL)
			*(double *)p = ((const double *)values)[i];
		else if (t == SART_INTEGER)
			*(int *)p = ((const int *)values)[i];
		else
			*(int *)p = ((const int *)values)[i] != 0;
		marks[k] = 1;
	}
	if (i) {
		/* Some value was set: the next get runs G. */
		w->g_dirty = 1;
		w->g_valid = 0;
	}
	return (fmi2Status)r;
}

static SART_COLD fmi2Status get_real_full(fmi2Component c, const fmi2ValueReference vr[],
                                          size_t nvr, fmi2Real value[])
{
	return get_values(c, "fmi2GetReal", SART_REAL, vr, nvr, value);
}

/* The importer's every step: a valid instance in stepComplete with G not due and no call
 * log reads straight from the table; anything else goes through get_values. */
fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
	const SartWrapper *w = c;
	if (w && w->magic == WRAPPER_MAGIC && w->phase == PH_STEP_COMPLETE && !w->g_dirty &&
	    w->quiet && vr && value) {
		const unsigned char *s = w->g_valid ? w->scratch : w->storage;
		const SartVar *vars = sart_model.vars[SART_REAL];
		const unsigned n = sart_model.nvr[SART_REAL];
		size_t i;
		for (i = 0; i < nvr && vr[i] < n; i++)
			value[i] = *(const double *)(const void *)(s + vars[vr[i]].offset);
		if (i == nvr)
			return fmi2OK;
	}
	return get_real_full(c, vr, nvr, value);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
	return get_values(c, "fmi2GetInteger", SART_INTEGER, vr, nvr, value);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
	return get_values(c, "fmi2GetBoolean", SART_BOOLEAN, vr, nvr, value);
}

static SART_COLD fmi2Status set_real_full(fmi2Component c, const fmi2ValueReference vr[],
                                          size_t nvr, const fmi2Real value[])
{
	return set_values(c, "fmi2SetReal", SART_REAL, vr, nvr, value);
}

/* The importer's every step: a valid instance in stepComplete with no call log writes
 * straight through the table while each variable is an input or a tunable parameter;
 * set_values does the rest from the first value that is not (reporting it), so that the
 * values before it stay set. */
fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
	SartWrapper *w = c;
	if (w && w->magic == WRAPPER_MAGIC && w->phase == PH_STEP_COMPLETE && w->quiet && vr &&
	    value) {
		unsigned char *s = w->storage;
		unsigned char *marks = w->is_set; /* Reals first */
		const SartVar *vars = sart_model.vars[SART_REAL];
		const unsigned n = sart_model.nvr[SART_REAL];
		size_t i;
		for (i = 0; i < nvr; i++) {
			SartVr k = vr[i];
			if (k >= n || vars[k].kind < SART_VAR_TUNABLE)
				break;
			*(double *)(void *)(s + vars[k].offset) = value[i];
			marks[k] = 1;
		}
		if (i) {
			w->g_dirty = 1;
			w->g_valid = 0;
		}
		if (i == nvr)
			return fmi2OK;
		return set_real_full(c, vr + i, nvr - i, value + i);
	}
	return set_real_full(c, vr, nvr, value);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
	return set_values(c, "fmi2SetInteger", SART_INTEGER, vr, nvr, value);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
	return set_values(c, "fmi2SetBoolean", SART_BOOLEAN, vr, nvr, value);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
	(void)vr, (void)value;
	SartWrapper *w = enter(c, "fmi2GetString", PH_GET);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2GetString(nvr = %lu)", (unsigned long)nvr);
	wlog(w, SART_ERROR, "fmi2GetString: %s has no String variables", sart_model.identifier);
	return fmi2Error;
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
	(void)vr, (void)value;
	SartWrapper *w = enter(c, "fmi2SetString", PH_SET);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2SetString(nvr = %lu)", (unsigned long)nvr);
	wlog(w, SART_ERROR, "fmi2SetString: %s has no String variables", sart_model.identifier);
	return fmi2Error;
}

/* ---- stepping --------------------------------------------------------------------------- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
	const char *fn = "fmi2SetRealInputDerivatives";
	SartWrapper *w = enter(c, fn, PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE);
	if (!w)
		return fmi2Error;
	if (nvr && (!vr || !order || !value)) {
		wlog(w, SART_ERROR, "%s: NULL argument", fn);
		return fmi2Error;
	}
	log_values(w, fn, SART_REAL, vr, nvr, value);
	/* Checked first, stored after: a rejected call changes nothing. */
	for (size_t i = 0; i < nvr; i++) {
		unsigned k = 0;
		while (k < sart_model.nreal_inputs && sart_model.real_inputs[k] != vr[i])
			k++;
		if (k == sart_model.nreal_inputs) {
			wlog(w, SART_ERROR, "%s: value reference %u is not a Real input", fn, vr[i]);
			return fmi2Error;
		}
		if (order[i] != 1) {
			wlog(w, SART_ERROR, "%s: derivative order %d of value reference %u is not "
			     "supported (only 1)", fn, order[i], vr[i]);
			return fmi2Error;
		}
		if (!isfinite(value[i])) {
			wlog(w, SART_ERROR, "%s: the derivative of value reference %u is not finite", fn,
			     vr[i]);
			return fmi2Error;
		}
	}
	for (size_t i = 0; i < nvr; i++) {
		unsigned k = 0;
		while (sart_model.real_inputs[k] != vr[i])
			k++;
		w->du[k] = value[i];
		w->du_set[k] = 1;
		w->du_pending = 1;
		refresh_plain(w);
	}
	return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
	(void)vr, (void)nvr, (void)order, (void)value;
	SartWrapper *w = enter(c, "fmi2GetRealOutputDerivatives", PH_GET);
	if (w) {
		log_call(w, "fmi2GetRealOutputDerivatives(nvr = %lu)", (unsigned long)nvr);
		wlog(w, SART_ERROR, "fmi2GetRealOutputDerivatives is not supported by %s "
		     "(maxOutputDerivativeOrder is 0)", sart_model.identifier);
	}
	return fmi2Error;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
	(void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown;
	(void)dvUnknown;
	SartWrapper *w = enter(c, "fmi2GetDirectionalDerivative", PH_ALIVE);
	if (w) {
		log_call(w, "fmi2GetDirectionalDerivative(nUnknown = %lu, nKnown = %lu)",
		         (unsigned long)nUnknown, (unsigned long)nKnown);
		wlog(w, SART_ERROR, "fmi2GetDirectionalDerivative is not supported by %s",
		     sart_model.identifier);
	}
	return fmi2Error;
}

/* The pending input derivatives: u + du H, for a reactive wrapper reads its inputs at the
 * end of the step. */
static SartStatus apply_derivatives(SartWrapper *w, double H)
{
	if (!w->du_pending)
		return SART_OK;
	for (unsigned k = 0; k < sart_model.nreal_inputs; k++) {
		SartVr vr = sart_model.real_inputs[k];
		if (!w->du_set[k])
			continue;
		if (vr >= sart_model.nvr[SART_REAL]) {
			wlog(w, SART_ERROR, "fmi2DoStep: Real input %u is not a Real variable", vr);
			return SART_ERROR;
		}
		*reals(w->storage, sart_model.vars[SART_REAL][vr].offset) += w->du[k] * H;
	}
	return SART_OK;
}

/* The snapshot a rejected step returns to: Storage, runtime data and the inner states. */
static SartStatus snapshot(SartWrapper *w)
{
	memcpy(w->snap_storage, w->storage, sart_model.storage_size);
	memcpy(w->snap_last, w->last, sart_model.ninners * sizeof *w->last);
	memcpy(w->snap_is_set, w->is_set, w->is_set_off[SART_NTYPES]);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_get_state(w->inner[f], &w->snap_inner[f]);
		if (st >= SART_ERROR) {
			wlog(w, st, "fmi2DoStep: cannot save the state of inner FMU '%s': %s",
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return st;
		}
	}
	return SART_OK;
}

static SartStatus restore(SartWrapper *w)
{
	memcpy(w->storage, w->snap_storage, sart_model.storage_size);
	memcpy(w->last, w->snap_last, sart_model.ninners * sizeof *w->last);
	memcpy(w->is_set, w->snap_is_set, w->is_set_off[SART_NTYPES]);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_set_state(w->inner[f], w->snap_inner[f]);
		if (st >= SART_ERROR) {
			wlog(w, st, "fmi2DoStep: cannot restore the state of inner FMU '%s': %s",
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return st;
		}
	}
	return SART_OK;
}

/* Whether H~ accepts the step of size H: anything shorter by more than rounding of H is a
 * rejection, meant by the rules (a crossing's or a period's proposal can lie a few ulps of
 * t below H, and the inners were then not stepped: taking it as the whole step would leave
 * them behind). */
static int accepted(double Ht, double H)
{
	return Ht >= H * (1.0 - 1e-12);
}

/* Whether H~ is a step at all: in (0, H], where H~ beyond H by the rounding of absolute
 * times is H.  Control rules compute H~ from them (`t_inner + done - t`), whose rounding is
 * some ulps of t + H, not of H: at t = 8.5 that is 1e-15 s, a relative 1e-9 of a 1 us
 * step.  None can mean a step longer than H, so this side can be generous. */
static int valid_step(double Ht, double t, double H)
{
	return isfinite(Ht) && Ht > 0.0 && Ht <= H * (1.0 + 1e-12) + 8 * DBL_EPSILON * fabs(t + H);
}

static void clear_stacks(SartWrapper *w)
{
	if (!w->stacked)
		return;
	for (unsigned f = 0; f < sart_model.ninners; f++)
		w->stacks[f].n = 0;
	w->stacked = 0;
}

/* A step that did not end as accepted with status OK or Warning: failed, an invalid H~, or
 * a rejection (restored to the snapshot, or left in stepFailed). */
static SART_COLD fmi2Status step_other(SartWrapper *w, double t, double H, SartStatus st,
                                       double Ht, int snap)
{
	clear_stacks(w);
	if (st >= SART_ERROR) {
		wlog(w, st, "fmi2DoStep: the step from t = %.17g failed", t);
		return settle(w, st);
	}
	if (!valid_step(Ht, t, H)) {
		wlog(w, SART_ERROR, "fmi2DoStep: the control rules returned the step %.17g, not in "
		     "(0, H = %.17g]", Ht, H);
		return settle(w, SART_ERROR);
	}
	w->last_ok = t + Ht;
	if (snap) {
		SartStatus rs = restore(w);
		if (rs >= SART_ERROR)
			return settle(w, rs);
		w->g_dirty = w->snap_g_dirty;
		w->g_valid = w->snap_g_valid;
		wlog(w, SART_DISCARD, "fmi2DoStep: the control rules took %.17g of the step %.17g "
		     "from t = %.17g; the state at t is kept", Ht, H, t);
	} else {
		w->phase = PH_STEP_FAILED;
		wlog(w, SART_DISCARD, "fmi2DoStep: the control rules took %.17g of the step %.17g "
		     "from t = %.17g; the inner FMUs cannot return to t", Ht, H, t);
	}
	return fmi2Discard;
}

/* A step from t by H begins: what its rule parts see of it, no failure or warning yet. */
static HOT_INLINE void begin_step(SartWrapper *w, double t, double H)
{
	w->step_t = t;
	w->step_H = H;
	w->fail_status = SART_OK;
	w->warned = 0;
}

/* An accepted step from t by H: saved states dropped, the new time, the importer's is_set
 * marks cleared, G's result no longer current. */
static HOT_INLINE void commit_step(SartWrapper *w, double t, double H)
{
	clear_stacks(w);
	w->time = t + H;
	w->last_ok = w->time;
	clear_marks(w);
	w->g_dirty = 0;
	w->g_valid = 0;
}

/* The step from t by H, after every check: In; Ctrl; and Out when Ctrl accepted the whole
 * step (as guarded(step_body), written out so that the usual step makes no further call),
 * then the new time.  snap: a snapshot was taken, restored on a rejection. */
static HOT_INLINE fmi2Status end_step(SartWrapper *w, double t, double H, double Ht,
                                     int snap);

static HOT_INLINE fmi2Status run_step(SartWrapper *w, double t, double H, int snap)
{
	unsigned char *s = w->storage;
	double Ht = NAN;
	begin_step(w, t, H);
	sart_model.in(w, s, t, H);
	if (!failed(w))
		Ht = sart_model.ctrl(w, s, t, H);
	return end_step(w, t, H, Ht, snap);
}

/* The step after Ctrl returned Ht (a failure already recorded): Out when it accepted the
 * whole step, the outcome, the new time. */
static HOT_INLINE fmi2Status end_step(SartWrapper *w, double t, double H, double Ht, int snap)
{
	if (!failed(w) && (Ht == H || (valid_step(Ht, t, H) && accepted(Ht, H))))
		sart_model.out(w, w->storage, t, H);
	w->in_map = 0;
	SartStatus st = run_outcome(w);
	if (st >= SART_ERROR || !(Ht == H || (valid_step(Ht, t, H) && accepted(Ht, H))))
		return step_other(w, t, H, st, Ht, snap);
	commit_step(w, t, H);
	if (w->du_pending) {
		memset(w->du, 0, sart_model.nreal_inputs * sizeof *w->du);
		memset(w->du_set, 0, sart_model.nreal_inputs);
		w->du_pending = 0;
		refresh_plain(w);
	}
	return (fmi2Status)st;
}

/* The fast step is not usable for this step or this wrapper: the table-driven one. */
static SART_COLD fmi2Status fast_fallback(SartWrapper *w, double t, double H, double Ht)
{
	return end_step(w, t, H, Ht, 0);
}

/* The usual step of a wrapper whose emitter wrote a fast step (sart_model.fast_step): it
 * runs In, Ctrl and Out in straight-line code.  When everything in it went with SART_OK
 * (Ht = H, nothing to report), what is left is the new time; otherwise the fast step has
 * already handed over to the general handling at that point and returned Ctrl's result,
 * and the step ends as run_step ends it. */
static HOT_INLINE fmi2Status run_fast_step(SartWrapper *w, double t, double H)
{
	double Ht = NAN;
	begin_step(w, t, H);
	if (!sart_model.fast_step(w, w->storage, &w->route, t, H, &Ht))
		return fast_fallback(w, t, H, Ht);
	commit_step(w, t, H);
	return fmi2OK;
}

/* fmi2DoStep with everything the usual step does not need: logging the call, the checks of
 * t and H in full, the snapshot, input derivatives. */
static SART_COLD fmi2Status do_step_full(fmi2Component c, fmi2Real t, fmi2Real H,
                                         fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	SartWrapper *w = enter(c, "fmi2DoStep", PH_STEP_COMPLETE);
	if (!w)
		return fmi2Error;
	if (calls_logged(w))
		log_call(w, "fmi2DoStep(t = %.17g, H = %.17g, noSetFMUStatePriorToCurrentPoint = %d)",
		         t, H, (int)noSetFMUStatePriorToCurrentPoint);
	if (!isfinite(t) || !isfinite(H) || !(H > 0.0)) {
		wlog(w, SART_ERROR, "fmi2DoStep: invalid communication point %g or step size %g", t, H);
		return fmi2Error;
	}
	double tol = 1e-9 * (fabs(w->time) > 1 ? fabs(w->time) : 1);
	if (fabs(t - w->time) > tol) {
		wlog(w, SART_ERROR, "fmi2DoStep: communication point %.17g is not the instance's "
		     "time %.17g", t, w->time);
		return fmi2Error;
	}
	/* The importer's t is the time from now on: kept as the sum of its own steps, the
	 * instance's could drift from it by rounding (after retries that land on proposed
	 * times), and a rejection's last successful time t + H~ would then lie past the
	 * importer's t + H. */
	w->time = t;
	int snap = w->can_snapshot;
	if (snap) {
		w->snap_g_dirty = w->g_dirty;
		w->snap_g_valid = w->g_valid;
		SartStatus st = snapshot(w);
		if (st >= SART_ERROR)
			return settle(w, st);
	}
	if (apply_derivatives(w, H) >= SART_ERROR)
		return settle(w, SART_ERROR);
	return run_step(w, t, H, snap);
}

/* The usual step, checked with a few comparisons: a valid instance in stepComplete with
 * nothing extra to do (w->plain), t exactly the instance's time, 0 < H <= DBL_MAX (false for
 * NaN).  Anything else takes do_step_full, which checks and reports it all. */
fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real H,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	SartWrapper *w = c;
	if (w && w->magic == WRAPPER_MAGIC && w->plain && w->phase == PH_STEP_COMPLETE &&
	    t == w->time && H > 0.0 && H <= DBL_MAX) {
		if (w->fast)
			return run_fast_step(w, t, H);
		return run_step(w, t, H, 0);
	}
	return do_step_full(c, t, H, noSetFMUStatePriorToCurrentPoint);
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
	SartWrapper *w = enter(c, "fmi2CancelStep", PH_ALIVE);
	if (w) {
		log_call(w, "fmi2CancelStep()");
		wlog(w, SART_ERROR, "fmi2CancelStep: %s never runs steps asynchronously",
		     sart_model.identifier);
	}
	return fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
	(void)value;
	SartWrapper *w = enter(c, "fmi2GetStatus", PH_STATUS);
	if (w) {
		log_call(w, "fmi2GetStatus(%d)", (int)s);
		wlog(w, SART_ERROR, "fmi2GetStatus(%d): no asynchronous step is pending", (int)s);
	}
	return fmi2Error;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	SartWrapper *w = enter(c, "fmi2GetRealStatus", PH_STATUS);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2GetRealStatus(%d)", (int)s);
	if (s != fmi2LastSuccessfulTime || !value) {
		wlog(w, SART_ERROR, "fmi2GetRealStatus: only fmi2LastSuccessfulTime is defined");
		return fmi2Error;
	}
	*value = w->last_ok;
	return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
	(void)value;
	SartWrapper *w = enter(c, "fmi2GetIntegerStatus", PH_STATUS);
	if (w) {
		log_call(w, "fmi2GetIntegerStatus(%d)", (int)s);
		wlog(w, SART_ERROR, "fmi2GetIntegerStatus(%d) is not defined", (int)s);
	}
	return fmi2Error;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
	SartWrapper *w = enter(c, "fmi2GetBooleanStatus", PH_STATUS);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2GetBooleanStatus(%d)", (int)s);
	if (s != fmi2Terminated || !value) {
		wlog(w, SART_ERROR, "fmi2GetBooleanStatus: only fmi2Terminated is defined");
		return fmi2Error;
	}
	*value = fmi2False;
	return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
	(void)value;
	SartWrapper *w = enter(c, "fmi2GetStringStatus", PH_STATUS);
	if (w) {
		log_call(w, "fmi2GetStringStatus(%d)", (int)s);
		wlog(w, SART_ERROR, "fmi2GetStringStatus(%d): no asynchronous step is pending", (int)s);
	}
	return fmi2Error;
}

/* ---- FMU states ------------------------------------------------------------------------- */

/* A wrapper state is the wrapper's own data (the "body", one fixed layout per model) and one
 * state per inner FMU, owned by it.  The save_state stacks are not part of it: they are
 * empty between external steps, the only time an importer can get a state.
 *
 * Body, in this order, native byte order: time, last successful time (double); phase, G
 * pending (uint32 each); per inner its last time (double); per Real input its derivative
 * (double); per Real input whether it is set (byte); the is_set marks (one byte per external
 * value reference of each type); the Storage's bytes.
 *
 * Serialized: a 48-byte header, the body, then per inner its serialized size (uint64) and
 * bytes.  Header: "SACCWRAP", format version (uint32), number of inners (uint32), hash of
 * the GUID (uint64), Storage size (uint64), body size (uint64), FNV-1a checksum of
 * everything after the header (uint64).  Native byte order: a serialized state is read back
 * by the same FMU binary, on the same platform. */
#define SER_MAGIC "SACCWRAP"
#define SER_VERSION 1u
#define SER_HEADER 48

typedef struct WrapState {
	uint64_t magic;
	const SartWrapper *owner; /* inner states belong to the instance that made them */
	unsigned char *body;
	void **inner;
} WrapState;

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

#define FNV_BASIS 14695981039346656037u

static uint64_t guid_hash(void)
{
	return fnv(FNV_BASIS, (const unsigned char *)sart_model.guid, strlen(sart_model.guid));
}

static size_t body_size(const SartWrapper *w)
{
	return 2 * sizeof(double) + 2 * sizeof(uint32_t) + sart_model.ninners * sizeof(double) +
	       sart_model.nreal_inputs * (sizeof(double) + 1) + w->is_set_off[SART_NTYPES] +
	       sart_model.storage_size;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	if (n)
		memcpy(p, v, n);
	return p + n;
}

static const unsigned char *take(const unsigned char *p, void *v, size_t n)
{
	if (n)
		memcpy(v, p, n);
	return p + n;
}

static void body_write(const SartWrapper *w, unsigned char *p)
{
	uint32_t phase = (uint32_t)w->phase, g = (uint32_t)(w->g_dirty || w->g_valid);
	p = put(p, &w->time, sizeof w->time);
	p = put(p, &w->last_ok, sizeof w->last_ok);
	p = put(p, &phase, sizeof phase);
	p = put(p, &g, sizeof g);
	p = put(p, w->last, sart_model.ninners * sizeof *w->last);
	p = put(p, w->du, sart_model.nreal_inputs * sizeof *w->du);
	p = put(p, w->du_set, sart_model.nreal_inputs);
	p = put(p, w->is_set, w->is_set_off[SART_NTYPES]);
	put(p, w->storage, sart_model.storage_size);
}

static uint32_t body_phase(const unsigned char *body)
{
	uint32_t phase;
	memcpy(&phase, body + 2 * sizeof(double), sizeof phase);
	return phase;
}

/* States are grouped by what the inner FMUs' own state machines allow after a set. */
static unsigned phase_class(uint32_t p)
{
	switch (p) {
	case PH_INSTANTIATED: return 1;
	case PH_INIT: return 2;
	case PH_STEP_COMPLETE:
	case PH_STEP_FAILED: return 3;
	case PH_TERMINATED: return 4;
	case PH_ERROR: return 5;
	default: return 0;
	}
}

static void body_read(SartWrapper *w, const unsigned char *p)
{
	uint32_t phase, g;
	p = take(p, &w->time, sizeof w->time);
	p = take(p, &w->last_ok, sizeof w->last_ok);
	p = take(p, &phase, sizeof phase);
	p = take(p, &g, sizeof g);
	p = take(p, w->last, sart_model.ninners * sizeof *w->last);
	p = take(p, w->du, sart_model.nreal_inputs * sizeof *w->du);
	p = take(p, w->du_set, sart_model.nreal_inputs);
	w->du_pending = 1; /* as restored: apply_derivatives looks at each flag */
	refresh_plain(w);
	p = take(p, w->is_set, w->is_set_off[SART_NTYPES]);
	take(p, w->storage, sart_model.storage_size);
	w->g_dirty = sart_model.mealy && g;
	w->g_valid = 0;
	if (phase == PH_STEP_FAILED)
		phase = PH_STEP_COMPLETE;
	w->phase = (Phase)phase;
}

static void state_free(SartWrapper *w, WrapState *ws)
{
	if (!ws)
		return;
	if (ws->inner)
		for (unsigned f = 0; f < sart_model.ninners; f++)
			if (ws->inner[f])
				sart_inner_free_state(w->inner[f], &ws->inner[f]);
	ws->magic = 0;
	free(ws->inner);
	free(ws->body);
	free(ws);
}

static WrapState *state_new(SartWrapper *w)
{
	WrapState *ws = calloc(1, sizeof *ws);
	if (!ws)
		return NULL;
	ws->magic = STATE_MAGIC;
	ws->owner = w;
	ws->body = malloc(body_size(w));
	ws->inner = calloc(sart_model.ninners ? sart_model.ninners : 1, sizeof *ws->inner);
	if (!ws->body || !ws->inner) {
		state_free(w, ws);
		return NULL;
	}
	return ws;
}

/* Whether p is a state this instance made; logs why not. */
static WrapState *own_state(SartWrapper *w, const char *fn, void *p)
{
	WrapState *ws = p;
	if (!ws || ws->magic != STATE_MAGIC) {
		wlog(w, SART_ERROR, "%s: not a state of %s", fn, sart_model.identifier);
		return NULL;
	}
	if (ws->owner != w) {
		wlog(w, SART_ERROR, "%s: the state belongs to another instance", fn);
		return NULL;
	}
	return ws;
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	const char *fn = "fmi2GetFMUstate";
	SartWrapper *w = enter(c, fn, PH_ALIVE);
	WrapState *ws = NULL, *made = NULL;
	fmi2Status result = fmi2Error;
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2GetFMUstate()");
	if (!FMUstate) {
		wlog(w, SART_ERROR, "%s: FMUstate is NULL", fn);
		return fmi2Error;
	}
	if (*FMUstate) {
		ws = own_state(w, fn, *FMUstate);
		if (!ws)
			return fmi2Error;
	} else {
		ws = made = state_new(w);
		if (!ws) {
			wlog(w, SART_ERROR, "%s: out of memory", fn);
			return fmi2Error;
		}
	}
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_get_state(w->inner[f], &ws->inner[f]);
		if (st >= SART_ERROR) {
			wlog(w, st, "%s: cannot get the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			goto done;
		}
	}
	body_write(w, ws->body);
	*FMUstate = ws;
	made = NULL;
	result = fmi2OK;
done:
	state_free(w, made);
	return result;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
	const char *fn = "fmi2SetFMUstate";
	SartWrapper *w = enter(c, fn, PH_ALIVE);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2SetFMUstate()");
	WrapState *ws = own_state(w, fn, FMUstate);
	if (!ws)
		return fmi2Error;
	uint32_t phase = body_phase(ws->body);
	if (phase_class(phase) != phase_class(w->phase)) {
		wlog(w, SART_ERROR, "%s: the state was taken in state %s and cannot be set in state %s",
		     fn, phase_name((Phase)phase), phase_name(w->phase));
		return fmi2Error;
	}
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_set_state(w->inner[f], ws->inner[f]);
		if (st >= SART_ERROR) {
			wlog(w, st, "%s: cannot set the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return settle(w, st);
		}
	}
	body_read(w, ws->body);
	clear_stacks(w);
	return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	SartWrapper *w = enter(c, "fmi2FreeFMUstate", PH_ALIVE);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2FreeFMUstate()");
	if (!FMUstate || !*FMUstate)
		return fmi2OK;
	WrapState *ws = own_state(w, "fmi2FreeFMUstate", *FMUstate);
	if (!ws)
		return fmi2Error;
	state_free(w, ws);
	*FMUstate = NULL;
	return fmi2OK;
}

/* The serialized size of ws, asking each inner for its part. */
static SartStatus serialized_size(SartWrapper *w, const char *fn, WrapState *ws, size_t *size)
{
	size_t total = SER_HEADER + body_size(w);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		size_t n = 0;
		SartStatus st = sart_inner_serialized_size(w->inner[f], ws->inner[f], &n);
		if (st >= SART_ERROR) {
			wlog(w, st, "%s: cannot size the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return st;
		}
		total += sizeof(uint64_t) + n;
	}
	*size = total;
	return SART_OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
	const char *fn = "fmi2SerializedFMUstateSize";
	SartWrapper *w = enter(c, fn, PH_ALIVE);
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2SerializedFMUstateSize()");
	WrapState *ws = own_state(w, fn, FMUstate);
	if (!ws)
		return fmi2Error;
	if (!size) {
		wlog(w, SART_ERROR, "%s: size is NULL", fn);
		return fmi2Error;
	}
	return (fmi2Status)serialized_size(w, fn, ws, size);
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
	const char *fn = "fmi2SerializeFMUstate";
	SartWrapper *w = enter(c, fn, PH_ALIVE);
	size_t need = 0;
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2SerializeFMUstate(size = %lu)", (unsigned long)size);
	WrapState *ws = own_state(w, fn, FMUstate);
	if (!ws)
		return fmi2Error;
	SartStatus st = serialized_size(w, fn, ws, &need);
	if (st >= SART_ERROR)
		return (fmi2Status)st;
	if (!serializedState || size < need) {
		wlog(w, SART_ERROR, "%s: the buffer holds %lu bytes, %lu needed", fn,
		     (unsigned long)size, (unsigned long)need);
		return fmi2Error;
	}
	unsigned char *b = (unsigned char *)serializedState;
	unsigned char *p = b + SER_HEADER;
	size_t bsize = body_size(w);
	memcpy(p, ws->body, bsize);
	p += bsize;
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		size_t n = 0;
		st = sart_inner_serialized_size(w->inner[f], ws->inner[f], &n);
		if (st < SART_ERROR && (size_t)(b + need - p) < sizeof(uint64_t) + n)
			st = SART_ERROR; /* the inner changed its mind about its size */
		if (st < SART_ERROR) {
			uint64_t n64 = n;
			p = put(p, &n64, sizeof n64);
			st = sart_inner_serialize(w->inner[f], ws->inner[f], p, n);
			p += n;
		}
		if (st >= SART_ERROR) {
			wlog(w, st, "%s: cannot serialize the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return (fmi2Status)st;
		}
	}
	uint32_t version = SER_VERSION, ninners = sart_model.ninners;
	uint64_t hash = guid_hash(), ssize = sart_model.storage_size, bs = bsize;
	uint64_t sum = fnv(FNV_BASIS, b + SER_HEADER, need - SER_HEADER);
	p = put(b, SER_MAGIC, 8);
	p = put(p, &version, sizeof version);
	p = put(p, &ninners, sizeof ninners);
	p = put(p, &hash, sizeof hash);
	p = put(p, &ssize, sizeof ssize);
	p = put(p, &bs, sizeof bs);
	put(p, &sum, sizeof sum);
	return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
	const char *fn = "fmi2DeSerializeFMUstate";
	SartWrapper *w = enter(c, fn, PH_ALIVE);
	WrapState *ws = NULL, *old = NULL;
	fmi2Status result = fmi2Error;
	if (!w)
		return fmi2Error;
	log_call(w, "fmi2DeSerializeFMUstate(size = %lu)", (unsigned long)size);
	if (!FMUstate) {
		wlog(w, SART_ERROR, "%s: FMUstate is NULL", fn);
		return fmi2Error;
	}
	if (*FMUstate) {
		old = own_state(w, fn, *FMUstate);
		if (!old)
			return fmi2Error;
	}
	const unsigned char *b = (const unsigned char *)serializedState;
	if (!b || size < SER_HEADER || memcmp(b, SER_MAGIC, 8) != 0) {
		wlog(w, SART_ERROR, "%s: the %lu bytes given are not a serialized state of a sacc "
		     "wrapper", fn, (unsigned long)size);
		return fmi2Error;
	}
	uint32_t version, ninners;
	uint64_t hash, ssize, bs, sum;
	const unsigned char *p = b + 8;
	p = take(p, &version, sizeof version);
	p = take(p, &ninners, sizeof ninners);
	p = take(p, &hash, sizeof hash);
	p = take(p, &ssize, sizeof ssize);
	p = take(p, &bs, sizeof bs);
	p = take(p, &sum, sizeof sum);
	if (version != SER_VERSION) {
		wlog(w, SART_ERROR, "%s: format version %u, this FMU reads version %u", fn,
		     (unsigned)version, SER_VERSION);
		return fmi2Error;
	}
	if (hash != guid_hash() || ninners != sart_model.ninners ||
	    ssize != sart_model.storage_size || bs != body_size(w)) {
		wlog(w, SART_ERROR, "%s: the state belongs to another FMU (GUID, inner FMUs or "
		     "storage differ from %s's)", fn, sart_model.identifier);
		return fmi2Error;
	}
	if (size - SER_HEADER < bs) {
		wlog(w, SART_ERROR, "%s: the state is truncated (%lu bytes)", fn, (unsigned long)size);
		return fmi2Error;
	}
	if (fnv(FNV_BASIS, b + SER_HEADER, size - SER_HEADER) != sum) {
		wlog(w, SART_ERROR, "%s: the state's checksum does not match: corrupted, truncated "
		     "or extended", fn);
		return fmi2Error;
	}
	if (!phase_class(body_phase(p))) {
		wlog(w, SART_ERROR, "%s: the state records no valid FMI state", fn);
		return fmi2Error;
	}
	ws = state_new(w);
	if (!ws) {
		wlog(w, SART_ERROR, "%s: out of memory", fn);
		return fmi2Error;
	}
	memcpy(ws->body, p, bs);
	p += bs;
	const unsigned char *end = b + size;
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		uint64_t n64;
		if ((size_t)(end - p) < sizeof n64) {
			wlog(w, SART_ERROR, "%s: the state is truncated before inner FMU '%s'", fn,
			     sart_model.inners[f].name);
			goto done;
		}
		p = take(p, &n64, sizeof n64);
		if (n64 > (uint64_t)(end - p)) {
			wlog(w, SART_ERROR, "%s: the state of inner FMU '%s' is truncated", fn,
			     sart_model.inners[f].name);
			goto done;
		}
		SartStatus st = sart_inner_deserialize(w->inner[f], p, (size_t)n64, &ws->inner[f]);
		if (st >= SART_ERROR) {
			wlog(w, st, "%s: inner FMU '%s' rejects its part of the state: %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			goto done;
		}
		p += n64;
	}
	if (p != end) {
		wlog(w, SART_ERROR, "%s: %lu bytes of trailing data", fn, (unsigned long)(end - p));
		goto done;
	}
	state_free(w, old);
	*FMUstate = ws;
	ws = NULL;
	result = fmi2OK;
done:
	state_free(w, ws);
	return result;
}
