/* sart_master_internal.h — what the files of the master share (not installed, not for
 * callers: they use sart_master.h).
 *
 * One run's state is a Master (struct SartRun): the scenario and options, the per-FMU
 * tables of FmuRun, the signal arrays, the algebraic loops (Loop) and the step-size
 * controller's state.  The files split it by concern:
 *
 *   sart_master.c             set-up, initialization, values in and out of the FMUs, the
 *                             macro-step loop (sart_master_run)
 *   sart_master_algorithms.c  the master algorithms' table and their passes
 *   sart_master_fast.c        the fast path: plain passes on the grid
 *   sart_master_stepping.c    passes with rollback, step rejection, step-size control,
 *                             event location
 *   sart_master_loops.c       algebraic loops: tearing, fixed point, Anderson, Newton, LU
 *   sart_master_structure.c   the structural analysis (graphs, components, orders)
 *   sart_master_probe.c       the state probe
 *   sart_master_parallel.c    FMUs stepped at once on a worker pool (--threads)
 *   sart_master_fmi2.c        the FMI 2.0 names the messages quote
 *
 * Values.  Every variable the master reads after a step (a connection's source, a recorded
 * variable) is a "signal"; three arrays hold the signals at t_n-1 (prev), t_n (now) and at
 * the end of the current pass (next).  An accepted step rotates them.  Inputs are computed
 * from the signals per connection, converted (scale, offset) and set per FMU with one call
 * per type.
 *
 * The functions named master_* below are shared between these files only. */
#ifndef SART_MASTER_INTERNAL_H
#define SART_MASTER_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "sart_master.h"

enum { NTYPES = 3 }; /* SART_REAL, SART_INTEGER, SART_BOOLEAN */

/* The capabilities the seam knows (the master's own are not its business). */
#define SEAM_CAPS (SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE | SART_CAP_INPUT_DERIVATIVES | \
                   SART_CAP_EVENT_MODE | SART_CAP_MODEL_EXCHANGE | SART_CAP_SCHEDULED_EXECUTION | \
                   SART_CAP_CLOCKS)

/* What the master keeps per FMU. */
typedef struct FmuRun {
	/* What a step of it touches comes first, so that it takes few cache lines: with ten
	 * thousand FMUs their data outgrow the cache, and each line is a miss per FMU step. */
	SartInner *in;
	int interpolates;     /* canInterpolateInputs */
	int stepped;          /* in the current pass (Gauss-Seidel) */
	int has_other;        /* Integer or Boolean signals or inputs */
	int derivs;           /* Hermite: its Real signals' derivatives are got after reads */
	double *rbuf;         /* Real values to set or read */
	double *dval;         /* input derivatives */
	double *d2val;        /* second input derivatives (quadratic) */
	double *plain_v;      /* its Real inputs in Master.plain_buf */
	int plain_off;        /* >= 0: its Real inputs are the signals plain_off, plain_off + 1,
	                         ... unconverted, so they are set straight from the signals */
	/* signals read after a step, per type: the signals read_base[ty] .. + nread[ty] - 1
	 * (prepare numbers each FMU's signals of one type consecutively, so Reals are got
	 * straight into the signal array) */
	int nread[NTYPES];
	int read_base[NTYPES];
	/* connections into it, per type of the input: value references, the connection, its
	 * source signal and conversion, as parallel arrays for the hot loop */
	int nset[NTYPES];
	SartVr *read_vr[NTYPES];
	SartVr *set_vr[NTYPES];
	int *set_conn[NTYPES];
	int *set_sig[NTYPES];
	double *set_scale[NTYPES], *set_offset[NTYPES];
	void *snap;           /* its state at t_n, when every FMU can roll back */
	int *order1;          /* derivative orders (all 1), nset[SART_REAL] of them */
	int *order2;          /* all 2 */
	int takes_order2;     /* SART_CAP_INPUT_ORDER2 */
	int *ibuf;            /* Integer and Boolean values */
} FmuRun;

/* An algebraic loop being solved (see solve_loop). */
typedef struct Loop {
	int index;            /* in the analysis' loop_comp */
	int comp;
	int nseq, *seq;       /* its ports in evaluation order */
	int ntear, *tear;     /* the torn connections */
	int nfmus, *fmus;     /* its FMUs, in execution order */
	int last_pos;         /* Gauss-Seidel: solved after the FMU at this position stepped */
	int all_real;         /* every tear variable is Real */
	int have_solution;
	double *x, *xs, *g, *fv, *fprev, *gprev, *xt, *gt, *dx, *jac;
	double *dF, *dG, *q, *r, *gamma; /* Anderson: histories, QR, coefficients */
	int *keep;
} Loop;

/* One message an FMU logged while it stepped on the worker pool, held until the master
 * replays it in FMU order (sart_master_parallel.c). */
typedef struct LogEntry {
	SartStatus status;
	char *category, *message;
} LogEntry;

/* Each FMU's logger environment: its messages go to the run's logger at once, or, while
 * buffering (during a parallel phase), to its own list. */
typedef struct FmuLog {
	struct SartRun *m;
	int f;
	int buffering;
	int n, cap;
	LogEntry *e;
	int lost;             /* messages not kept for want of memory */
} FmuLog;

struct MasterPar; /* sart_master_parallel.c */

typedef struct SartRun {
	const SartAlgorithmInfo *alg; /* the row of sart_algorithms[] o->algorithm names */
	const SartScenario *sc;
	const SartMasterOptions *o;
	SartMasterResult *res;
	SartAnalysis *an;
	FmuRun *f;
	int nsig;
	SartRef *sig;
	int *sig_exchanged;   /* feeds a connection: NaN there is an error */
	double *prev, *now, *next;
	double t_prev_span;  /* t_n - t_n-1 */
	int have_prev;
	/* quadratic extrapolation: the signals at t_n-2 */
	double *prev2;
	double t_prev2_span; /* t_n-1 - t_n-2 */
	int have_prev2;
	/* Hermite: the derivatives of the signals at t_n, and at the end of the pass (of the
	 * FMUs that give them: FmuRun.derivs) */
	double *dnow, *dnext;
	int *conn_sig;
	int *rec_sig;
	double *row;
	char **srow;              /* the recorded Strings of a point, copies (an FMU's own are
	                           * valid only until its next call) */
	int can_rollback;     /* every FMU can get and set its state */
	int snapshots;        /* fixed steps: save every state before each (not no_rollback) */
	int discard_fmu;      /* of the last attempt's discards, the FMU that stood earliest */
	double discard_at;    /* (-1: none), and where it stood */
	int probed;           /* the state probe ran on every FMU (probe_all) */
	int derivatives;      /* this run gives input derivatives to FMUs that take them */
	int plain;            /* plain_pass can do a first Jacobi pass */
	int clocked;          /* some FMU has clocks, or a clock is fed from outside: steps end at
	                       * their ticks (next_clock_time) */
	int early_returns;    /* some FMU may return early from a step (SART_CAP_EARLY_RETURN
	                         given: only when states are saved, so the step can be redone
	                         shorter) */
	int ind_sig;          /* the event indicator's signal, or -1 */
	double event_tol;
	/* plain_pass's flat tables: every FMU's Real inputs in FMU order (FmuRun.plain_v is
	 * its share of plain_buf): the source signal, conversion, connection */
	int plain_nin, plain_identity;
	int plain_direct;     /* every FMU's inputs are set straight from the signals */
	int *plain_src, *plain_conn;
	double *plain_scale, *plain_offset, *plain_buf;
	/* plain_gs_pass (a first Gauss-Seidel pass with nothing else to do): the FMUs in
	 * execution order, each with what its step touches in one record, and their Real
	 * inputs in that order, each with where its value comes from; gs_buf the values */
	int plain_gs, gs_bound;
	struct GsFmu *gs_fmus;
	struct GsInput *gs_inputs;
	double *gs_buf;
	/* every FMU's tables and buffers (FmuRun's read_vr ... d2val), FMU after FMU */
	SartVr *pool_vr;
	int *pool_int;
	double *pool_dbl;
	int failed;
	/* algebraic loops */
	int nloops;
	Loop *loops;
	int *port_conn;       /* input port -> the connection feeding it, or -1 */
	int *conn_src_port;   /* connection -> its source port */
	int *conn_dst_port;   /* connection -> its destination port */
	int *conn_tear;       /* connection -> its index among its loop's tears, or -1 */
	double *pval;         /* port values during a loop pass */
	int *adj_first, *adj_edge; /* the port graph's edges by source */
	int anderson_m, loop_maxit;
	double loop_tol;
	/* step-size control */
	double *pred;         /* connection -> the value its input was given for the step's end */
	int want_pred;        /* pred is kept on every path (prediction step control) */
	double *yfull, *save_now, *save_prev; /* doubling: the full step's signals, t_n's arrays */
	double h_next;        /* the controller's proposal */
	double last_span;     /* t_n+1 - t_n as the linear extrapolation sees it */
	double tol, min_step, max_step, safety, shrink, grow;
	/* the seam's failure message, held until the master knows whether it reports it */
	char pending[1024];
	SartStatus pending_status;
	char pending_category[64];
	int has_pending;
	/* the FMUs' loggers; parallel stepping (NULL with one thread) */
	FmuLog *log;
	struct MasterPar *par;
} Master;

static inline void put(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static inline void put(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	if (!buf || size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static inline int valid_ref(const SartScenario *sc, SartRef r)
{
	return r.fmu >= 0 && r.fmu < sc->nfmus && r.var >= 0 && r.var < sc->fmus[r.fmu].nvars;
}

static inline const SartVar *var_of(const SartScenario *sc, SartRef r)
{
	return &sc->fmus[r.fmu].vars[r.var];
}

/* An FMU may stop early at an event without getting anywhere (the event lay at t): it has
 * handled the event and stands at t, so it is simply stepped again, at most this often
 * (master_step_raw, plain_gs_pass). */
#define MASTER_EARLY_AT_START 100

static inline int ok(SartStatus st)
{
	return st == SART_OK || st == SART_WARNING;
}

static inline SartStatus get_values(SartInner *in, SartType ty, const SartVr *vr, size_t n,
                                    double *rv, int *iv)
{
	if (ty == SART_REAL)
		return sart_inner_get_real(in, vr, n, rv);
	if (ty == SART_INTEGER)
		return sart_inner_get_integer(in, vr, n, iv);
	return sart_inner_get_boolean(in, vr, n, iv);
}

static inline SartStatus set_values(SartInner *in, SartType ty, const SartVr *vr, size_t n,
                                    const double *rv, const int *iv)
{
	if (ty == SART_REAL)
		return sart_inner_set_real(in, vr, n, rv);
	if (ty == SART_INTEGER)
		return sart_inner_set_integer(in, vr, n, iv);
	return sart_inner_set_boolean(in, vr, n, iv);
}

static inline int to_int(SartType ty, double v)
{
	if (ty == SART_BOOLEAN)
		return v != 0;
	return v >= 2147483647.0 ? 2147483647 : v <= -2147483648.0 ? (-2147483647 - 1)
	                                                           : (int)lround(v);
}

/* ---- sart_master.c: failures, values, steps ----------------------------------------------- */

/* The run's failure: the first one only is kept (in res->message), and logged.  Returns 1. */
int master_fail(Master *m, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* A failed call of FMU f: the seam's message, with t when it does not carry a time. */
int master_fail_call(Master *m, int f, double t);
int master_nonfinite_signal(Master *m, int f, double t, const double *vals, int s0, int n);
int master_bad_input(Master *m, int f, int c, double t, double v, double d);
int master_read_signals(Master *m, int f, double t, double *vals);
int master_set_inputs(Master *m, int f, int pass, double t, double h);
int master_step_outcome(Master *m, int f, double t, SartStatus st, double r, double *reached);
int master_step_one(Master *m, int f, double t, double h, double *reached);
/* master_step_one in two halves: the calls (thread-safe for distinct FMUs: only FMU f and
 * on_step are touched), and what their outcome means (the calling thread only). */
SartStatus master_step_raw(Master *m, int f, double t, double h, double *r);
int master_step_finish(Master *m, int f, double t, double h, SartStatus st, double r,
                       double *reached);
/* One message of FMU f's logger as if it had come now (the hold-back of error messages). */
void master_log_now(Master *m, SartStatus st, const char *category, const char *message);
int master_emit_point(Master *m, double t);

/* ---- sart_master_fast.c ------------------------------------------------------------------- */

int master_prepare_fast(Master *m);
int master_plain_pass(Master *m, double t, double h, double *short_end);
/* The first pass of a Gauss-Seidel step when m->plain_gs (sart_master_fast.c). */
int master_plain_gs_pass(Master *m, double t, double h, double *short_end);
/* Whether plain_gs_pass can do the first Gauss-Seidel passes of this run (after prepare,
 * m->clocked set, with m->plain's conditions but the algorithm's). */
int master_plain_gs(const Master *m);
int master_fast_run(Master *m, double *t);

/* ---- sart_master_parallel.c --------------------------------------------------------------- */

/* The worker pool and the groups of FMUs that may step at once, when o->threads > 1
 * (m->par stays NULL otherwise); 1 on failure (reported). */
int master_par_prepare(Master *m);
void master_par_free(Master *m);
/* Every FMU stepped from t by h, as Jacobi steps them: -1 (failed, reported), 1 (some
 * discarded: *short_end the earliest reached) or 0. */
int master_par_all(Master *m, double t, double h, double *short_end);
/* Gauss-Seidel: how many FMUs from position k of the execution order step together (1
 * when not in parallel). */
int master_par_generation(Master *m, int k);
/* The FMUs fmus[0 .. n-1] stepped from t by h (in parallel once that is known to pay);
 * then, in order, master_par_outcome for each (its messages replayed, then what
 * master_step_one returns), and master_par_drop for those whose outcome is not wanted. */
void master_par_step(Master *m, const int *fmus, int n, double t, double h);
int master_par_outcome(Master *m, int f, double t, double h, double *reached);
void master_par_drop(Master *m, const int *fmus, int n);

/* ---- sart_master_stepping.c --------------------------------------------------------------- */

int master_probe_all(Master *m, const char *why);
int master_macro_step(Master *m, double t, double *end);
int master_controlled_step(Master *m, double t, double *end);

/* ---- sart_master_loops.c ------------------------------------------------------------------ */

int master_prepare_loops(Master *m);
void master_free_loop(Loop *L);
int master_solve_loop(Master *m, Loop *L, double t, int init);
int master_solve_and_read(Master *m, Loop *L, double t, double *vals);

/* ---- sart_master_fmi2.c ------------------------------------------------------------------- */

/* The name, in the FMU's FMI version, of the call that sets an FMU's state: the state
 * probe's messages quote it. */
const char *master_set_state_call(SartFmiVersion version);

#endif
