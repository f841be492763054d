/* sart_core_impl.h — what the files of the wrapper core share, private to them (sart_core.c,
 * sart_rules.c, sart_values.c, sart_step.c, sart_fast_step.c, sart_state.c): the instance
 * itself, failure handling, and the parts of the step that both the general and the fast
 * step inline.  Skins include sart_core.h only.
 *
 * Failures inside rule parts.  A runtime call that fails (sart_fail) logs and records the
 * status in the SartWrapper; from then on every rule-level call (sart_do_step,
 * sart_save_state, ...) returns at once without touching an inner FMU, and the core's own
 * sequences (Init, G, a step) stop at their next check, so nothing after the failure reaches
 * an inner FMU or the log.  The rest of the rule part runs on (it is plain arithmetic on the
 * Storage, whose loops are all bounded `for` loops, and the emitted code leaves them at the
 * next iteration), and the skin's call that ran it returns the status.  No setjmp on the
 * per-step path, and no call to check in the emitted code.
 *
 * Decisions the contract leaves open, taken here:
 * - Reads in initialization mode run the Init sequence on the scratch copy (initial values
 *   from the params as set so far, In, the inners in order, Out) whenever something was
 *   set since the last such read, so an outer wrapper's Init sees its inner wrappers'
 *   calculated initial outputs.
 * - G runs on any get (of any type) between steps after a set since the last step, Init,
 *   state restore or previous G, and every read then comes from the scratch copy.  Any
 *   successful set (input or tunable parameter) invalidates G.
 * - A rejected step's snapshot is taken before the input derivatives are applied, and they
 *   stay pending after the rejection, so the retry with the shorter step extrapolates by it.
 * - `e` in MapIn and MapOut of one do_step is ti minus the inner's last time before the step.
 * - Messages of status Warning and worse always reach the importer's logger (logging on or
 *   off); logFmiCalls and the inner FMUs' OK messages (logInner) only when logging is on and
 *   the category is enabled.
 * - A set call that fails on its k-th value keeps the k-1 values before it. */
#ifndef SART_CORE_IMPL_H
#define SART_CORE_IMPL_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "sart_core.h"

/* For the few functions of the per-step path that must be inlined into their callers to be
 * specialised (a type that is a constant there) or to keep their locals in registers. */
#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE inline __attribute__((always_inline))
#define SART_COLD __attribute__((noinline, cold))
#define SART_NOINLINE __attribute__((noinline))
#define SART_PRINTF(f, a) __attribute__((format(SART_PRINTF_ARCHETYPE, f, a)))
#else
#define HOT_INLINE inline
#define SART_COLD
#define SART_NOINLINE
#define SART_PRINTF(f, a)
#endif

#define WRAPPER_MAGIC SART_INSTANCE_MAGIC

/* Log categories: compiler/emit/emit.c (emit_log_categories) declares the same names in the
 * wrapper's model description. */
enum {
	CAT_WARNING = 1,
	CAT_DISCARD = 2,
	CAT_ERROR = 4,
	CAT_FATAL = 8,
	CAT_CALLS = 16,
	CAT_INNER = 32,
	CAT_ALL = 63
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

/* Which of an inner's port groups are non-empty, worked out once at instantiation, so
 * that a step visits only those: most inners have Real ports and nothing else. */
typedef struct Plan {
	unsigned char in[SART_NTYPES], nin;
	unsigned char out[SART_NTYPES], nout;
	/* Real ports only (the usual case): sart_do_step goes straight to these (NULL when
	 * there are no Real inputs, or outputs). */
	int only_real;
	const SartPorts *rin, *rout;
} Plan;

/* What an inner's log messages are sent with: the wrapper and which inner, so that a batch
 * stepping inners at once can hold each inner's messages apart (sart_batch.c). */
typedef struct InnerEnv {
	SartWrapper *w;
	unsigned f;
} InnerEnv;

typedef struct SartBatches SartBatches;

struct SartWrapper {
	/* SartView's members (sart_wrapper.h), first and in its order, which the emitted entry
	 * points read and write through it (sart_core.c checks that they lie where it has them) */
	unsigned magic;
	unsigned char direct_reals; /* quiet, and the model has real_offset: the Real value
	                             * calls' fast paths (sart_values.c and the emitted ones) */
	unsigned char fast_ok;    /* plain and fast: the emitted do_step takes the fast step */
	unsigned char g_dirty;    /* a set since the last step/Init/G: the next get runs G */
	unsigned char g_valid;    /* reads come from scratch */
	double time;              /* the current communication point */
	double last_ok;           /* the last successful time */
	unsigned char *scratch;   /* G's copy */
	SartFastRoute route;      /* what the fast step reaches: direct, last, its t and H */

	unsigned char *storage;   /* the Storage, right before the instance (sart_storage_of) */
	unsigned char *is_set;    /* per external vr of each type, at is_set_off[type], right
	                           * before the Storage; this and snap_is_set are allocated in
	                           * whole MARK_BLOCKs */
	char *name;
	SartHost host;
	int logging;
	unsigned log_mask;
	SartPhase phase;
	SartExperiment ex;
	int stop_early;           /* a rejected step may end early (sart_core_do_step_early) */
	bool *cut_early;          /* where sart_core_do_step_early's call wants its outcome */
	double *cut_last;         /* when the step does not end whole: set by each such call
	                           * and read only by sart_step_other within it (an instance
	                           * stepped by sart_core_do_step never has them; they are
	                           * left set after the call, for the usual step not to pay
	                           * for clearing them) */

	double early_t;           /* the start of the step in which the one inner returned
	                           * early (SART_CAP_EARLY_RETURN), NAN when none did: the
	                           * step is then kept, shortened (sart_step_other) */
	double early_at;          /* and where it stopped, the wrapper's time after that step */

	SartInner **inner;
	const SartInnerDirect **direct; /* per inner: the seam's direct route (the fast step) */
	Plan *plan;               /* per inner */
	double *last;             /* per inner: the time it last stepped to */
	unsigned is_set_off[SART_NTYPES + 1];
	double *du;               /* per sart_model.real_inputs: pending derivative */
	unsigned char *du_set;
	int du_pending;           /* some du_set may be 1: the step has derivatives to apply */

	/* The external step in progress and the do_step running its MapIn/MapOut. */
	double step_t, step_H;
	int in_map;
	double map_e;

	/* Failure handling: see the top of this file.  fail_status is SART_OK until a
	 * rule-level call fails, and then the worst status (SART_ERROR or SART_FATAL): every
	 * such call tests it. */
	SartStatus fail_status;
	int warned;

	/* A rejected step's snapshot, reused every step. */
	int can_snapshot;
	int snap_g_dirty, snap_g_valid; /* G's flags at the snapshot */
	int plain;                /* quiet, and a step needs no snapshot and no input
	                           * derivatives: the plain step (sart_fast_step.c;
	                           * sart_refresh_plain) */
	int quiet;                /* between steps (SART_PHASE_STEP) with no call log */
	int fast;                 /* plain steps take sart_model.fast_step (sart_fast_step.c) */
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
	const char **sbuf;        /* also where an inner's String outputs are got */
	InnerEnv *inner_env;      /* per inner: its logger's env */
	SartBatches *batches;     /* sacc build --threads: the batched do_steps' pool and
	                           * measurements (sart_batch.c); NULL without */
#ifdef SART_STEP_STATS
	unsigned long steps_fast, steps_general; /* the test-only counts (sart_fast_step.c) */
#endif
};

/* ---- logging and failures (sart_core.c) ----------------------------------------------------- */

void sart_wlog(SartWrapper *w, SartStatus st, const char *fmt, ...) SART_PRINTF(3, 4);
/* Logs and records st (at least SART_ERROR): the guarded rule part fails.  Callers return a
 * harmless value, and the rule-level calls that follow return at once. */
void sart_fail(SartWrapper *w, SartStatus st, const char *fmt, ...) SART_PRINTF(3, 4);
void sart_inner_failed(SartWrapper *w, SartStatus st, unsigned f, const char *what);
/* A message of the wrapper (f < 0) or of inner f to the importer's logger, or held while a
 * batch steps inners at once (sart_batch_hold). */
void sart_deliver(SartWrapper *w, int f, SartStatus st, const char *category, const char *msg);
/* Opens an isolated inner (SartInnerModel.isolated) out of process, with the host program
 * beside the wrapper's library, its fatal outcomes contained (sart_wrapper_isolate.c). */
SartStatus sart_load_isolated_inner(const SartInnerConfig *cfg, SartInner **out);
/* Whether the inner in cfg->dir ships a Windows library but none for this platform (on
 * Linux): it then runs isolated, under Wine (sart_wrapper_isolate.c). */
int sart_inner_windows_only(const SartInnerConfig *cfg);
/* A failing status moves the instance to the error or fatal phase; returns st. */
SartStatus sart_settle(SartWrapper *w, SartStatus st);
/* Runs body(w), which stops at its first failure; what it came to. */
SartStatus sart_guarded(SartWrapper *w, void (*body)(SartWrapper *w));
/* G (or, in initialization mode, the Init sequence) before a get that needs it: a failure
 * is the get's (sart_core.c). */
SartStatus sart_run_g(SartWrapper *w, const SartCall *call);
/* Whether plain steps take the emitted fast step: when there is one, unless the wrapper was
 * compiled with -DSART_NO_FAST_STEP (sart_fast_step.c). */
int sart_fast_step_enabled(void);
/* The inners' parameters (SartModel.inner_params) set on the inners from the Storage, the
 * bound ones computed first; a guarded body: stops at the first failure (sart_rules.c). */
void sart_push_inner_params(SartWrapper *w);
/* An exposed tunable inner parameter the importer set between steps, set on its inner at
 * once; SART_OK when value reference vr of type t is no inner parameter. */
SartStatus sart_tune_inner_param(SartWrapper *w, SartType t, SartVr vr);
/* Init's and G's pass over the inners in topological order (sart_rules.c). */
void sart_visit_inners(SartWrapper *w, unsigned char *s);
/* The String inputs of inner f that rules assigned, set on it (flags cleared), and its
 * String outputs read into the Storage, each checked to fit (sart_strings.c).  Return 0
 * when that failed. */
int sart_flush_strings(SartWrapper *w, unsigned char *s, unsigned f);
int sart_read_strings(SartWrapper *w, unsigned char *s, unsigned f);
/* The same for an inner's Binary ports (sart_binary.c): every Binary input is set before
 * each step, as it holds whatever the importer set last. */
int sart_flush_binaries(SartWrapper *w, unsigned char *s, unsigned f);
int sart_read_binaries(SartWrapper *w, unsigned char *s, unsigned f);
/* The Storage's String k of a port group at offset off. */
static inline char *sart_string_at(unsigned char *s, size_t off, unsigned k)
{
	return (char *)(s + off) + (size_t)k * SART_STRING_CAP;
}

/* The is_set marks are cleared after every step.  They are allocated in whole blocks, at
 * least one, so that this is a store or two of constant size, which the compiler inlines,
 * instead of a call to memset for a handful of bytes: the first block unconditionally (most
 * wrappers have fewer than MARK_BLOCK external variables), then the rest. */
#define MARK_BLOCK SART_MARK_BLOCK

static inline void sart_clear_marks(SartWrapper *w)
{
	sart_clear_is_set(w->is_set, w->is_set_off[SART_NTYPES]);
}

/* The save_state stacks are emptied when an external step ends. */
static inline void sart_clear_stacks(SartWrapper *w)
{
	if (!w->stacked)
		return;
	for (unsigned f = 0; f < sart_model.ninners; f++)
		w->stacks[f].n = 0;
	w->stacked = 0;
}

/* Whether a rule-level call failed in the guarded run in progress. */
static inline int sart_has_failed(const SartWrapper *w)
{
	return w->fail_status != SART_OK;
}

/* An inner call's status: Warning is remembered, Error and Fatal fail.  Inline, so that the
 * usual SART_OK costs one comparison. */
static inline void sart_check_inner(SartWrapper *w, SartStatus st, unsigned f,
                                    const char *what)
{
	if (st == SART_OK)
		return;
	if (st == SART_WARNING)
		w->warned = 1;
	else if (st >= SART_ERROR)
		sart_inner_failed(w, st, f, what);
}

/* What a sequence of rule parts comes to: its failure, else a warning if one was logged. */
static inline SartStatus sart_run_outcome(const SartWrapper *w)
{
	return w->fail_status != SART_OK ? w->fail_status : w->warned ? SART_WARNING : SART_OK;
}

/* Whether the value calls' fast paths and the plain step may be taken, each one flag for
 * its every-step test: to be called whenever one of these changes (the phase through
 * sart_set_phase). */
static inline void sart_refresh_plain(SartWrapper *w)
{
	w->quiet = w->phase == SART_PHASE_STEP && !(w->logging && (w->log_mask & CAT_CALLS));
	w->plain = w->quiet && !w->can_snapshot && !w->du_pending;
	w->direct_reals = w->quiet && sart_model.real_offset != NULL;
	w->fast_ok = w->plain && w->fast;
}

static inline void sart_set_phase(SartWrapper *w, SartPhase phase)
{
	w->phase = phase;
	sart_refresh_plain(w);
}

static inline double *sart_reals(unsigned char *s, size_t off)
{
	return (double *)(void *)(s + off);
}

static inline int *sart_ints(unsigned char *s, size_t off)
{
	return (int *)(void *)(s + off);
}

/* ---- batched do_steps (sart_batch.c) ---------------------------------------------------------- */

/* The batches' state, made when the instance loads its inners when the model has batches and
 * threads (0 when memory ran out); freed with the instance. */
int sart_batches_new(SartWrapper *w);
void sart_batches_free(SartWrapper *w);
/* Once the fast step's use is known (w->fast): it waits until every batch site has chosen to
 * step its inners in turn (the fast step steps them so, with less to do per step). */
void sart_batches_start(SartWrapper *w);
/* Whether a message is being held (a batch in progress): it is then taken. */
int sart_batch_hold(SartWrapper *w, int f, SartStatus st, const char *category, const char *msg);
/* do_step(f, ti, hi) up to the inner's step: MapIn, f's inputs set.  0 when that failed
 * (or an earlier call did, or f does not exist) (sart_rules.c). */
int sart_do_step_begin(SartWrapper *w, unsigned char *s, unsigned f, double ti, double hi);

/* ---- do_step's pieces the fast step shares (sart_rules.c) ---------------------------------- */

void sart_bad_input(SartWrapper *w, unsigned f, const SartPorts *p, const double *v);
void sart_bad_output(SartWrapper *w, unsigned f, const SartPorts *p, const double *v);
/* The part of do_step after inner f stepped (status st, standing at reached): its outputs
 * read, MapOut.  Returns the step f took. */
double sart_after_inner_step(SartWrapper *w, unsigned char *s, unsigned f, double ti,
                             double hi, SartStatus st, double reached);

/* do_step(f, ti, hi)'s end once f's outputs are read: f stands at reached; MapOut. */
static HOT_INLINE void sart_step_map_out(SartWrapper *w, unsigned char *s, unsigned f,
                                         double ti, double hi, double reached)
{
	w->last[f] = reached;
	w->in_map = 1;
	sart_model.map_out(w, s, w->step_t, w->step_H, hi, ti - w->step_t);
	w->in_map = 0;
}

/* ---- the step (sart_step.c), inlined into the plain and the fast step ------------------------ */

/* A step that did not end as accepted with status OK or Warning: failed, an invalid H~, or
 * a rejection (restored to the snapshot, or left in SART_PHASE_STEP_FAILED). */
SartStatus sart_step_other(SartWrapper *w, double t, double H, SartStatus st, double Ht,
                           int snap, const SartCall *call);
/* Every step the plain one does not take: the checks of t and H in full, the call log, the
 * snapshot, input derivatives. */
SartStatus sart_do_step_full(void *instance, double t, double H, int no_set_prior);

/* Whether H~ accepts the step of size H: anything shorter by more than rounding of H is a
 * rejection, meant by the rules (a crossing's or a period's proposal can lie a few ulps of
 * t below H, and the inners were then not stepped: taking it as the whole step would leave
 * them behind). */
static inline int sart_accepted(double Ht, double H)
{
	return Ht >= H * (1.0 - 1e-12);
}

/* Whether H~ is a step at all: in (0, H], where H~ beyond H by the rounding of absolute
 * times is H.  Control rules compute H~ from them (`t_inner + done - t`), whose rounding is
 * some ulps of t + H, not of H: at t = 8.5 that is 1e-15 s, a relative 1e-9 of a 1 us
 * step.  None can mean a step longer than H, so this side can be generous. */
static inline int sart_valid_step(double Ht, double t, double H)
{
	return isfinite(Ht) && Ht > 0.0 && Ht <= H * (1.0 + 1e-12) + 8 * DBL_EPSILON * fabs(t + H);
}

/* A step from t by H begins: what its rule parts see of it, no failure or warning yet. */
static HOT_INLINE void sart_begin_step(SartWrapper *w, double t, double H)
{
	w->step_t = t;
	w->step_H = H;
	w->fail_status = SART_OK;
	w->warned = 0;
}

/* An accepted step from t by H: saved states dropped, the new time, the importer's is_set
 * marks cleared, G's result no longer current. */
static HOT_INLINE void sart_commit_step(SartWrapper *w, double t, double H)
{
	sart_clear_stacks(w);
	w->time = t + H;
	w->last_ok = w->time;
	sart_clear_marks(w);
	w->g_dirty = 0;
	w->g_valid = 0;
}

/* The step after Ctrl returned Ht (a failure already recorded): Out when it accepted the
 * whole step, the outcome, the new time.  snap: a snapshot was taken, restored on a
 * rejection. */
static HOT_INLINE SartStatus sart_end_step(SartWrapper *w, double t, double H, double Ht,
                                           int snap, const SartCall *call)
{
	if (!sart_has_failed(w) && (Ht == H || (sart_valid_step(Ht, t, H) && sart_accepted(Ht, H))))
		sart_model.out(w, w->storage, t, H);
	w->in_map = 0;
	SartStatus st = sart_run_outcome(w);
	if (st >= SART_ERROR || !(Ht == H || (sart_valid_step(Ht, t, H) && sart_accepted(Ht, H))))
		return sart_step_other(w, t, H, st, Ht, snap, call);
	sart_commit_step(w, t, H);
	if (w->du_pending) {
		memset(w->du, 0, sart_model.nreal_inputs * sizeof *w->du);
		memset(w->du_set, 0, sart_model.nreal_inputs);
		w->du_pending = 0;
		sart_refresh_plain(w);
	}
	return st;
}

/* The step from t by H, after every check: In; Ctrl; and Out when Ctrl accepted the whole
 * step (as sart_guarded would run them, written out so that the usual step makes no further
 * call), then the new time. */
static HOT_INLINE SartStatus sart_run_step(SartWrapper *w, double t, double H, int snap,
                                           const SartCall *call)
{
	unsigned char *s = w->storage;
	double Ht = NAN;
	sart_begin_step(w, t, H);
	sart_model.in(w, s, t, H);
	if (!sart_has_failed(w))
		Ht = sart_model.ctrl(w, s, t, H);
	return sart_end_step(w, t, H, Ht, snap, call);
}

#endif
