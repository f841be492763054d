/* sart_ode.h — the runtime's ODE solvers: what integrates a Model Exchange FMU between two
 * events (sart_inner_me.c), in `sacc simulate` and inside a wrapper alike.
 *
 * Two methods, both adaptive with error control per state and dense output:
 *   SART_ODE_DOPRI5  explicit Runge-Kutta, Dormand-Prince 5(4), for non-stiff models;
 *   SART_ODE_RODAS   linearly implicit Rosenbrock, Rodas4 class, for stiff models: the
 *                    Jacobian from the problem's jac when given, else by finite
 *                    differences of f;
 *   SART_ODE_AUTO    starts with DOPRI5 and switches to RODAS for the rest of the run
 *                    (until the next sart_ode_restart with a new method) when DOPRI5's
 *                    stiffness test fires.
 * The error of state i is weighted by w_i = rtol * (nominal_i + |x_i|): a state of nominal
 * 1e5 is held to the same relative accuracy as one of nominal 1.
 *
 * State events: the problem's nz event indicators g(t, x) are checked after each accepted
 * step; a sign change (from nonzero to zero or to the opposite sign) is located on the dense
 * output to within the time tolerance, and sart_ode_advance stops just after it: at the
 * right end of a bracket no wider than the tolerance, where the indicator has changed sign.
 *
 * C99, libc and libm only, no global state, no allocation after sart_ode_new (the work
 * space is sized there), so a wrapper carries it to any importer. */
#ifndef SART_ODE_H
#define SART_ODE_H

#include <stddef.h>

typedef enum SartOdeMethod {
	SART_ODE_AUTO = 0,
	SART_ODE_DOPRI5 = 1,
	SART_ODE_RODAS = 2
} SartOdeMethod;

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
	/* Called after every accepted step at its end (t, x): *stop = 1 makes sart_ode_advance
	 * return SART_ODE_STEP_EVENT there (the FMU asked for an event, or to terminate).
	 * NULL: never. */
	int (*accepted)(void *env, double t, const double x[], int *stop);
} SartOdeProblem;

typedef struct SartOdeSettings {
	SartOdeMethod method;
	double rtol;     /* relative tolerance, > 0 */
	const double *nominal; /* n positive state nominals, copied; NULL: all 1 */
	double h_max;    /* largest step, 0: none */
	double h_min;    /* smallest step before SART_ODE_STEP_TOO_SMALL, 0: 1e-14 * max(1,|t|) */
	double t_tol;    /* width of a located event's bracket, 0: 1e-12 * max(1, |t|) */
	long max_steps;  /* steps per sart_ode_advance call, 0: 500000 */
} SartOdeSettings;

typedef enum SartOdeResult {
	SART_ODE_REACHED = 0,      /* at t_end */
	SART_ODE_STATE_EVENT,      /* stopped just after an indicator changed sign */
	SART_ODE_STEP_EVENT,       /* accepted() asked to stop */
	SART_ODE_MODEL_FAILED,     /* f, g, jac or accepted returned nonzero: code */
	SART_ODE_NOT_FINITE,       /* f gave NaN or an infinity: which state */
	SART_ODE_STEP_TOO_SMALL,   /* the tolerance cannot be met at the smallest step */
	SART_ODE_TOO_MANY_STEPS,   /* max_steps steps without reaching t_end */
	SART_ODE_SINGULAR          /* RODAS: the iteration matrix stays singular */
} SartOdeResult;

typedef struct SartOdeOutcome {
	SartOdeResult result;
	double t;          /* where the solver stands now (its state is sart_ode_state) */
	int code;          /* SART_ODE_MODEL_FAILED: the callback's return value */
	size_t which;      /* SART_ODE_NOT_FINITE: the state; SART_ODE_STATE_EVENT: the first
	                      indicator (lowest index) that changed sign */
	double h;          /* SART_ODE_STEP_TOO_SMALL: the step size tried last */
} SartOdeOutcome;

/* Counters since sart_ode_new, for benchmarks and the run's summary. */
typedef struct SartOdeStats {
	long steps, rejected, f_evals, g_evals, jac_evals, lu_decomps;
	int switched; /* SART_ODE_AUTO: 1 once it runs RODAS */
} SartOdeStats;

typedef struct SartOde SartOde;

/* NULL when out of memory or the settings are invalid (n == 0, rtol <= 0 or not finite). */
SartOde *sart_ode_new(const SartOdeProblem *p, const SartOdeSettings *s);
void sart_ode_free(SartOde *o);

/* Starts (again) at (t, x): after an event, after inputs changed, or after a state was
 * restored.  Derivatives and indicators at the start are evaluated by the next advance.
 * The step size guess and the method AUTO chose are kept unless reset is nonzero. */
void sart_ode_restart(SartOde *o, double t, const double x[], int reset);

/* Integrates from where the solver stands towards t_end (> its t) and fills *out.  The
 * solver's state (sart_ode_state, sart_ode_time) is then at out->t: t_end, the event, or
 * the last accepted step before a failure.  Returns out->result. */
SartOdeResult sart_ode_advance(SartOde *o, double t_end, SartOdeOutcome *out);

const double *sart_ode_state(const SartOde *o);
double sart_ode_time(const SartOde *o);
const SartOdeStats *sart_ode_stats(const SartOde *o);

/* What survives from one advance to the next and is needed to continue bit for bit (the
 * step size guess, AUTO's choice, the stiffness counter): saved with an FMU state and
 * restored before sart_ode_restart(..., 0). */
typedef struct SartOdeMemo {
	double h;
	int method; /* the method in use: SART_ODE_DOPRI5 or SART_ODE_RODAS */
	int stiff_count, nonstiff_count;
} SartOdeMemo;

void sart_ode_get_memo(const SartOde *o, SartOdeMemo *m);
void sart_ode_set_memo(SartOde *o, const SartOdeMemo *m);

/* A short description of a result for messages: "the step size fell below 1e-14". */
const char *sart_ode_result_text(SartOdeResult r);

#endif
