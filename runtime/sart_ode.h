/* sart_ode.h — the runtime's ODE solvers: what integrates a Model Exchange FMU between two
 * events (sart_inner_me.c), in `sacc simulate` and inside a wrapper alike.
 *
 * Three methods, all adaptive with error control per state and dense output:
 *   SART_ODE_DOPRI5  explicit Runge-Kutta, Dormand-Prince 5(4) (FSAL: 6 evaluations of f
 *                    per step), dense output of order 4, for non-stiff models;
 *   SART_ODE_DOP853  explicit Runge-Kutta, Dormand-Prince 8(5,3) (12 evaluations per
 *                    accepted step, 11 per rejected one), its error estimated by the 5th-
 *                    and 3rd-order embedded solutions combined as in Hairer's DOP853, dense
 *                    output of order 7 whose 3 extra evaluations are spent only on a step
 *                    with an event inside; for non-stiff models at tight tolerances;
 *   SART_ODE_RODAS   linearly implicit Rosenbrock, Rodas4P2 (Steinebach's RODAS4-class
 *                    method that keeps its order on stiff components driven by a
 *                    time-dependent input), dense output of order 3, for stiff models: the
 *                    Jacobian from the problem's jac when given, else by forward
 *                    differences of f (n evaluations), evaluated anew at each accepted
 *                    point; df/dt by one forward difference in t; 6 evaluations per step
 *                    besides;
 *   SART_ODE_AUTO    starts with the explicit method for its tolerance
 *                    (sart_ode_explicit_method: DOP853 at rtol <= SART_ODE_DOP853_RTOL,
 *                    else DOPRI5) and switches to RODAS for the rest of the run (until
 *                    the next sart_ode_restart with reset) when its stiffness test fires:
 *                    h times the largest eigenvalue, as estimated from the last two stages,
 *                    above a threshold (DOPRI5: 2.5, its stability border is at 3.3;
 *                    DOP853: 4.5, its border is at 6.4) after 15 steps, with no 6 answers "not stiff" in
 *                    a row in between (Hairer's test, run after every step).
 * The error of state i over a step from x to x_new is weighted by
 *   w_i = rtol * (nominal_i + max(|x_i|, |x_new_i|)),
 * that is atol_i = rtol * nominal_i: a state of nominal 1e5 is held to the same relative
 * accuracy as one of nominal 1; a step is accepted when the RMS over the states of
 * err_i / w_i is at most 1.
 *
 * State events: the problem's nz event indicators g(t, x) are evaluated at the start (by
 * the first advance after a restart) and after each accepted step.  As FMI defines a state
 * event, indicator i changes over a step when its domain, z > 0 or z <= 0, differs between
 * the step's ends, either way: 0 -> 0.1 is a change (an indicator starting at exactly 0
 * counts as <= 0), -1 -> 0 is none.  The earliest change among all indicators is located on
 * the dense output (secant, Illinois variant, bisection when it converges slowly) to a
 * bracket no wider than t_tol, and sart_ode_advance stops at the bracket's right end, the
 * earliest point found whose domain differs from the step's start, with the state there from
 * the dense output; `which` is the lowest index among the indicators that change in that
 * bracket.  Only changes between the ends of a step are seen: an indicator crossing twice
 * within one step goes unnoticed (bound h_max if it matters), and an indicator that is NaN
 * at either end never changes.
 *
 * The end time is reached exactly: the last step is shortened (or stretched by at most 1%)
 * to end at t_end bit for bit, and f is never evaluated past t_end.
 *
 * C99, libc and libm only, no global state, no allocation after sart_ode_new (the work
 * space is sized there), so a wrapper carries it to any importer. */
#ifndef SART_ODE_H
#define SART_ODE_H

#include <stddef.h>

typedef enum SartOdeMethod {
	SART_ODE_AUTO = 0,
	SART_ODE_DOPRI5 = 1,
	SART_ODE_RODAS = 2,
	SART_ODE_DOP853 = 3,
	/* A front end's "explicit": DOPRI5 or DOP853 by the tolerance, resolved by
	 * sart_ode_new (sart_ode_explicit_method); never in a memo. */
	SART_ODE_EXPLICIT = 4
} SartOdeMethod;

/* The tolerance at and below which the explicit method of choice is DOP853, above which
 * it is DOPRI5: where DOP853 starts reaching the accuracy DOPRI5 reaches at that rtol with
 * fewer evaluations of f, on the non-stiff problems of `make bench-me`.  The evaluations
 * DOP853 needs for DOPRI5's end-point error at the same rtol, as a share of DOPRI5's:
 *                  rtol 1e-4   1e-5   1e-6
 *   Van der Pol       0.88x  0.80x  0.78x
 *   Arenstorf         1.27x  0.87x  0.74x
 * At 1e-3 and above DOPRI5 is cheaper still, and a communication step shorter than the
 * solver's step costs DOP853 twice DOPRI5's evaluations per step. */
#define SART_ODE_DOP853_RTOL 1e-5

/* The explicit method AUTO starts with at tolerance rtol (SART_ODE_DOPRI5 or
 * SART_ODE_DOP853); what a front end's "explicit" choice should ask for. */
SartOdeMethod sart_ode_explicit_method(double rtol);

/* The problem: callbacks return 0 on success, nonzero when the model failed (the solver
 * then stops with SART_ODE_MODEL_FAILED and passes that value on in SartOdeOutcome.code). */
typedef struct SartOdeProblem {
	size_t n;  /* continuous states, >= 1 */
	size_t nz; /* event indicators, may be 0 */
	void *env;
	/* dx = f(t, x) */
	int (*f)(void *env, double t, const double x[], double dx[]);
	/* z = g(t, x); NULL when nz == 0 */
	int (*g)(void *env, double t, const double x[], double z[]);
	/* J = df/dx at (t, x), fx = f(t, x) given; J column-major, J[i + n*j] = dfi/dxj.
	 * NULL: finite differences of f. */
	int (*jac)(void *env, double t, const double x[], const double fx[], double J[]);
	/* Called after every accepted step at its end (t, x), unless a state event was located
	 * inside it (the step is then cut at the event and ends there; the FMU's completed-
	 * integrator-step call is irrelevant, an event follows anyway).  *stop = 1 makes
	 * sart_ode_advance return SART_ODE_STEP_EVENT there (the FMU asked for an event, or to
	 * terminate), also at t_end.  NULL: never. */
	int (*accepted)(void *env, double t, const double x[], int *stop);
} SartOdeProblem;

typedef struct SartOdeSettings {
	SartOdeMethod method;
	double rtol;     /* relative tolerance, > 0 */
	const double *nominal; /* n positive state nominals, copied; NULL: all 1 */
	double h_max;    /* largest step, 0: none */
	double h_min;    /* smallest step before SART_ODE_STEP_TOO_SMALL, 0: 1e-14 * max(1,|t|)
	                    (a last step shortened to reach t_end may be smaller) */
	double t_tol;    /* width of a located event's bracket, 0: 1e-12 * max(1, |t|) */
	long max_steps;  /* step attempts (accepted or rejected) per sart_ode_advance call,
	                    0: 500000 */
} SartOdeSettings;

typedef enum SartOdeResult {
	SART_ODE_REACHED = 0,      /* at t_end */
	SART_ODE_STATE_EVENT,      /* stopped just after an indicator crossed from z > 0 to z <= 0 or back */
	SART_ODE_STEP_EVENT,       /* accepted() asked to stop */
	SART_ODE_MODEL_FAILED,     /* f, g, jac or accepted returned nonzero: code */
	SART_ODE_NOT_FINITE,       /* f (or jac) gave NaN or an infinity: which state.  At an
	                              accepted point at once; at a trial stage of a step the
	                              step is rejected and tried 4 times shorter, and the
	                              result is final once that would go below h_min */
	SART_ODE_STEP_TOO_SMALL,   /* the tolerance cannot be met at the smallest step */
	SART_ODE_TOO_MANY_STEPS,   /* max_steps steps without reaching t_end */
	SART_ODE_SINGULAR          /* RODAS: the iteration matrix stays singular */
} SartOdeResult;

typedef struct SartOdeOutcome {
	SartOdeResult result;
	double t;          /* where the solver stands now (its state is sart_ode_state) */
	int code;          /* SART_ODE_MODEL_FAILED: the callback's return value */
	size_t which;      /* SART_ODE_NOT_FINITE: the state; SART_ODE_STATE_EVENT: the first
	                      indicator (lowest index) that crossed */
	double h;          /* SART_ODE_STEP_TOO_SMALL: the step size tried last */
} SartOdeOutcome;

/* Counters since sart_ode_new, for benchmarks and the run's summary.  f_evals counts every
 * call of f: stages, the start of each step or restart, the initial step's probe, DOP853's
 * three dense-output stages of a step with an event inside, and RODAS's difference
 * quotients (n per Jacobian by differences, one per df/dt); g_evals
 * every call of g, the event search's included; jac_evals the Jacobians, from jac or by
 * differences; steps the accepted steps, rejected the others (error too large, a
 * non-finite trial stage, a singular matrix). */
typedef struct SartOdeStats {
	long steps, rejected, f_evals, g_evals, jac_evals, lu_decomps;
	int switched; /* SART_ODE_AUTO: 1 once it runs RODAS */
} SartOdeStats;

typedef struct SartOde SartOde;

/* NULL when out of memory or the problem or settings are invalid (n == 0, no f, nz > 0
 * without g, rtol <= 0 or not finite, a nominal <= 0, a negative h_max, h_min, t_tol or
 * max_steps, an unknown method).  The solver stands at t = 0, x = 0 until the first
 * sart_ode_restart. */
SartOde *sart_ode_new(const SartOdeProblem *p, const SartOdeSettings *s);
void sart_ode_free(SartOde *o);

/* Starts (again) at (t, x): after an event, after inputs changed, or after a state was
 * restored.  Derivatives and indicators at the start are evaluated by the next advance
 * (one f, one g), and RODAS's Jacobian anew.  The memo (step size guess, the method AUTO
 * chose, the stiffness counters) is kept unless reset is nonzero; everything else the step
 * size controller remembers is reset, so that a restart from a restored memo continues
 * exactly as the first restart from that memo did.  With no step size guess (the first
 * start, or reset) the next advance estimates one from f at the start and one more f
 * (Hairer's initial step). */
void sart_ode_restart(SartOde *o, double t, const double x[], int reset);

/* Integrates from where the solver stands towards t_end (> its t) and fills *out.  The
 * solver's state (sart_ode_state, sart_ode_time) is then at out->t: t_end, the event, or
 * the last accepted step before a failure (never part of a step).  A t_end not beyond the
 * solver's t returns SART_ODE_REACHED at once, nothing evaluated.  After a state event the
 * caller restarts (the indicators there have already crossed); advancing again without
 * a restart goes on from the event as from any point.  Returns out->result. */
SartOdeResult sart_ode_advance(SartOde *o, double t_end, SartOdeOutcome *out);

const double *sart_ode_state(const SartOde *o);
double sart_ode_time(const SartOde *o);
const SartOdeStats *sart_ode_stats(const SartOde *o);

/* What survives from one advance to the next and is needed to continue bit for bit (the
 * step size guess, AUTO's choice, the stiffness counter): saved with an FMU state and
 * restored before sart_ode_restart(..., 0). */
typedef struct SartOdeMemo {
	double h;
	int method; /* the method in use: SART_ODE_DOPRI5, SART_ODE_DOP853 or SART_ODE_RODAS */
	int stiff_count, nonstiff_count;
} SartOdeMemo;

void sart_ode_get_memo(const SartOde *o, SartOdeMemo *m);
void sart_ode_set_memo(SartOde *o, const SartOdeMemo *m);

/* A short description of a result for messages: "the step size fell below 1e-14". */
const char *sart_ode_result_text(SartOdeResult r);

#endif
