/* odebench.c — `make bench-me`: the runtime's ODE solvers (runtime/sart_ode.h, what
 * integrates a Model Exchange FMU) against GSL's odeiv2 steppers at equal accuracy.
 *
 *   odebench [CSV]      (CSV: every sweep point, one line each; BENCH_QUICK=1: fewer points)
 *   odebench point PROBLEM SOLVER RTOL    one point, CPU time: beside an FMU run (run.sh)
 *   odebench error PROBLEM X1 .. XN       the error of an end state from elsewhere
 *
 * For each problem of problems.h and each solver, a sweep of relative tolerances; for each
 * run: the error at the end point against the reference, right-hand side evaluations
 * counted in the callback, Jacobian evaluations likewise, steps, rejected steps, and the
 * wall time per simulated second (best of three runs).  Both sides weigh state i's error by
 * rtol (nominal_i + |x_i|): ours by SartOdeSettings.nominal, GSL's by its scaled control
 * (eps_abs = eps_rel = rtol, scale_abs = nominal).  The error is measured the same way:
 * max_i |x_i - ref_i| / (nominal_i + |ref_i|), a relative error floored at the state's
 * nominal (an end state may be 0).
 *
 * Then at equal accuracy: for each decade of error that the sweeps bracket, the
 * evaluations each solver needs, interpolated log-log between the two sweep points around
 * it, and ours against GSL's best there.  Evaluations are f evaluations plus n per
 * Jacobian ("f + nJ": what a finite-difference Jacobian would have cost), so that a solver
 * given the analytic Jacobian and one differencing f are charged alike.
 *
 * It prints and never asserts a timing.  A run of ours that does not reach the end is
 * printed and makes it end with status 1 after the tables; a reference that cannot be
 * computed, or a solver of ours whose sweep brackets no error level, ends it at once with
 * status 1 (bench/README.md). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"
#include "problems.h"
#include "sart_ode.h"

/* ---- the solvers ------------------------------------------------------------------- */

enum { FOR_NONSTIFF = 1, FOR_STIFF = 2, FOR_BOTH = 3 };

typedef struct Solver {
	const char *name;
	int ours;
	SartOdeMethod method;                     /* ours */
	const gsl_odeiv2_step_type *const *type;  /* GSL's */
	int use_jac;                              /* given the problem's Jacobian */
	int for_problems;                         /* FOR_* */
	int order5;   /* GSL's: of order 5 or less, the class of DOPRI5 and Rodas4 */
} Solver;

static const Solver solvers[] = {
	{"dopri5", 1, SART_ODE_DOPRI5, 0, 0, FOR_NONSTIFF, 0},
	{"dop853", 1, SART_ODE_DOP853, 0, 0, FOR_NONSTIFF, 0},
	{"auto", 1, SART_ODE_AUTO, 0, 0, FOR_BOTH, 0},
	{"rodas", 1, SART_ODE_RODAS, 0, 1, FOR_STIFF, 0},
	{"rodas-fd", 1, SART_ODE_RODAS, 0, 0, FOR_STIFF, 0},
	{"rk8pd", 0, 0, &gsl_odeiv2_step_rk8pd, 0, FOR_NONSTIFF, 0},   /* 8(7) */
	{"rkf45", 0, 0, &gsl_odeiv2_step_rkf45, 0, FOR_NONSTIFF, 1},   /* 4(5) */
	{"rkck", 0, 0, &gsl_odeiv2_step_rkck, 0, FOR_NONSTIFF, 1},     /* 4(5) */
	{"msadams", 0, 0, &gsl_odeiv2_step_msadams, 0, FOR_NONSTIFF, 0}, /* 1 .. 12 */
	{"msbdf", 0, 0, &gsl_odeiv2_step_msbdf, 1, FOR_STIFF, 1},      /* 1 .. 5 */
	{"bsimp", 0, 0, &gsl_odeiv2_step_bsimp, 1, FOR_STIFF, 0},      /* extrapolation */
	{"rk4imp", 0, 0, &gsl_odeiv2_step_rk4imp, 1, FOR_STIFF, 1},    /* 4 */
};
enum { NSOLVERS = sizeof solvers / sizeof solvers[0] };

/* One integration from t0 to t1: the end state and what it cost. */
typedef struct Run {
	int reached;
	char why[160];    /* when not reached */
	double x[ME_MAX_N];
	long f, jac;      /* counted in the callbacks */
	long steps, rejected, lu;
	double wall, cpu; /* seconds: wall-clock time, and this process's CPU time */
	/* SART_ODE_AUTO: where it switched to RODAS (t, steps before), t NAN when it did not */
	double switch_t;
	long switch_steps;
} Run;

typedef struct Env {
	const MeProblem *p;
	long f, jac;
	const SartOde *o;  /* ours, for the accepted callback */
	double switch_t;
	long switch_steps;
} Env;

static double clock_s(clockid_t which)
{
	struct timespec ts;
	clock_gettime(which, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int ours_f(void *env, double t, const double x[], double dx[])
{
	Env *e = env;
	(void)t;
	e->f++;
	e->p->f(x, dx);
	return 0;
}

/* sart_ode.h wants J column-major. */
static int ours_jac(void *env, double t, const double x[], const double fx[], double J[])
{
	Env *e = env;
	double rows[ME_MAX_N * ME_MAX_N];
	size_t n = e->p->n;
	(void)t;
	(void)fx;
	e->jac++;
	e->p->jac(x, rows);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			J[i + n * j] = rows[i * n + j];
	return 0;
}

/* AUTO's switch, seen after the step on which it happened. */
static int ours_accepted(void *env, double t, const double x[], int *stop)
{
	Env *e = env;
	const SartOdeStats *st = sart_ode_stats(e->o);
	(void)x;
	*stop = 0;
	if (st->switched && isnan(e->switch_t)) {
		e->switch_t = t;
		e->switch_steps = st->steps;
	}
	return 0;
}

static void run_ours(const MeProblem *p, const Solver *s, double rtol, Run *r)
{
	Env e = {p, 0, 0, NULL, NAN, 0};
	SartOdeProblem op = {.n = p->n, .nz = 0, .env = &e, .f = ours_f,
	                     .jac = s->use_jac ? ours_jac : NULL,
	                     .accepted = s->method == SART_ODE_AUTO ? ours_accepted : NULL};
	SartOdeSettings set = {.method = s->method, .rtol = rtol, .nominal = p->nominal,
	                       .max_steps = 10000000};
	SartOdeOutcome out;
	double t0 = now(), c0 = cpu_now();
	SartOde *o = sart_ode_new(&op, &set);
	if (!o) {
		snprintf(r->why, sizeof r->why, "sart_ode_new refused the settings");
		return;
	}
	e.o = o;
	sart_ode_restart(o, p->t0, p->x0, 1);
	sart_ode_advance(o, p->t1, &out);
	r->wall = now() - t0;
	r->cpu = cpu_now() - c0;
	r->reached = out.result == SART_ODE_REACHED && out.t == p->t1;
	if (!r->reached)
		snprintf(r->why, sizeof r->why, "stopped at t = %.17g: %s", out.t,
		         sart_ode_result_text(out.result));
	memcpy(r->x, sart_ode_state(o), p->n * sizeof r->x[0]);
	const SartOdeStats *st = sart_ode_stats(o);
	r->f = e.f;
	r->jac = e.jac;
	r->steps = st->steps;
	r->rejected = st->rejected;
	r->lu = st->lu_decomps;
	r->switch_t = e.switch_t;
	r->switch_steps = e.switch_steps;
	sart_ode_free(o);
}

static int gsl_f(double t, const double y[], double dydt[], void *params)
{
	Env *e = params;
	(void)t;
	e->f++;
	e->p->f(y, dydt);
	return GSL_SUCCESS;
}

static int gsl_jac(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
	Env *e = params;
	(void)t;
	e->jac++;
	e->p->jac(y, dfdy);
	for (size_t i = 0; i < e->p->n; i++)
		dfdt[i] = 0;
	return GSL_SUCCESS;
}

/* GSL's first step: small enough for every problem here (its control grows it). */
static const double gsl_h0 = 1e-6;
/* GSL's steps per run: rk4imp on Robertson needs 10^5 steps and more at some tolerances
 * (seconds each); such a point is left out of its sweep, saying so. */
static const unsigned long gsl_max_steps = 100000;

static void run_gsl(const MeProblem *p, const gsl_odeiv2_step_type *type, double rtol, Run *r)
{
	Env e = {p, 0, 0, NULL, NAN, 0};
	gsl_odeiv2_system sys = {gsl_f, p->jac ? gsl_jac : NULL, p->n, &e};
	double t = p->t0, t0 = now(), c0 = cpu_now();
	memcpy(r->x, p->x0, p->n * sizeof r->x[0]);
	gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_scaled_new(&sys, type, gsl_h0, rtol, rtol,
	                                                          1, 0, p->nominal);
	if (!d) {
		snprintf(r->why, sizeof r->why, "GSL could not allocate its driver");
		return;
	}
	gsl_odeiv2_driver_set_nmax(d, gsl_max_steps);
	int status = gsl_odeiv2_driver_apply(d, &t, p->t1, r->x);
	r->wall = now() - t0;
	r->cpu = cpu_now() - c0;
	r->reached = status == GSL_SUCCESS && t == p->t1;
	if (!r->reached)
		snprintf(r->why, sizeof r->why, "stopped at t = %.6g: %s", t,
		         status == GSL_EMAXITER ? "more than 100000 steps" : gsl_strerror(status));
	r->f = e.f;
	r->jac = e.jac;
	r->steps = (long)d->e->count;
	r->rejected = (long)d->e->failed_steps;
	r->lu = -1;
	r->switch_t = NAN;
	gsl_odeiv2_driver_free(d);
}

/* Best of reps runs: the counts are the same each time (checked), the wall and CPU times
 * the least of each. */
static void run(const MeProblem *p, const Solver *s, double rtol, int reps, Run *r)
{
	for (int k = 0; k < reps; k++) {
		Run one;
		memset(&one, 0, sizeof one);
		if (s->ours)
			run_ours(p, s, rtol, &one);
		else
			run_gsl(p, *s->type, rtol, &one);
		if (k > 0 && (one.f != r->f || one.jac != r->jac || one.steps != r->steps)) {
			fprintf(stderr, "bench-me: %s on %s at rtol %g counted differently on a "
			        "second run: not deterministic\n", s->name, p->name, rtol);
			exit(1);
		}
		double cpu = k == 0 ? one.cpu : fmin(one.cpu, r->cpu);
		if (k == 0 || one.wall < r->wall)
			*r = one;
		r->cpu = cpu;
		if (!one.reached)
			break;
	}
}

/* ---- reference and error ----------------------------------------------------------- */

static double error_of(const MeProblem *p, const double x[], const double ref[])
{
	double e = 0;
	for (size_t i = 0; i < p->n; i++)
		e = fmax(e, fabs(x[i] - ref[i]) / (p->nominal[i] + fabs(ref[i])));
	return e;
}

/* The reference end state: the published one, else GSL's best at a tight tolerance
 * (rk8pd at 1e-14 for a non-stiff problem, bsimp at 1e-14 for a stiff one).  *spread is
 * how far other methods at tight tolerances land from it (the nearer of two; the
 * published state: the farther of GSL's two best): below that an error is not
 * measurable, so no accuracy level is compared there.  check 0: the reference alone,
 * *spread and how left as they were. */
static void me_reference(const MeProblem *p, double ref[], double *spread, char *how,
                         size_t size, int check)
{
	static const struct {
		const char *name[3];
		const gsl_odeiv2_step_type *const *type[3];
		double rtol[3];
	} use[2] = {
		{{"rk8pd", "rkck", "rkf45"},
		 {&gsl_odeiv2_step_rk8pd, &gsl_odeiv2_step_rkck, &gsl_odeiv2_step_rkf45},
		 {1e-14, 1e-13, 1e-13}},
		{{"bsimp", "msbdf", "rk4imp"},
		 {&gsl_odeiv2_step_bsimp, &gsl_odeiv2_step_msbdf, &gsl_odeiv2_step_rk4imp},
		 {1e-14, 1e-13, 1e-13}},
	};
	Run r[3];
	int u = p->stiff ? 1 : 0;
	if (!check && p->published) {
		memcpy(ref, p->published, p->n * sizeof ref[0]);
		return;
	}
	for (int k = 0; k < (check ? 3 : 1); k++) {
		memset(&r[k], 0, sizeof r[k]);
		run_gsl(p, *use[u].type[k], use[u].rtol[k], &r[k]);
		if (!r[k].reached) {
			fprintf(stderr, "bench-me: no reference for %s: GSL %s at %g %s\n", p->name,
			        use[u].name[k], use[u].rtol[k], r[k].why);
			exit(1);
		}
	}
	if (p->published) {
		memcpy(ref, p->published, p->n * sizeof ref[0]);
		*spread = fmax(error_of(p, r[0].x, ref), error_of(p, r[1].x, ref));
		snprintf(how, size, "published: %s;\n  GSL %s at %g and %s at %g end within %.1e "
		         "of it", p->published_source, use[u].name[0], use[u].rtol[0],
		         use[u].name[1], use[u].rtol[1], *spread);
		return;
	}
	memcpy(ref, r[0].x, p->n * sizeof ref[0]);
	if (!check)
		return;
	double e1 = error_of(p, r[1].x, ref), e2 = error_of(p, r[2].x, ref);
	*spread = fmin(e1, e2);
	snprintf(how, size, "GSL's best: %s at %g;\n  %s at %g lands within %.1e of it, %s at "
	         "%g within %.1e", use[u].name[0], use[u].rtol[0], use[u].name[1],
	         use[u].rtol[1], e1, use[u].name[2], use[u].rtol[2], e2);
}

/* ---- equal accuracy ------------------------------------------------------------------ */

typedef struct Point {
	double rtol, err, cost;
} Point;

/* The cost at error level E: sweep points go from loose to tight; between the last point
 * worse than E and the first one at E or better, log(cost) is interpolated linearly in
 * log(error).  NAN when the sweep does not bracket E. */
static double cost_at(const Point *pt, int np, double level)
{
	for (int k = 1; k < np; k++) {
		if (pt[k].err > level)
			continue;
		if (pt[k - 1].err <= level)
			return NAN; /* already there at the looser tolerance: not bracketed */
		if (pt[k].err <= 0)
			return pt[k].cost;
		double u = (log(level) - log(pt[k - 1].err)) / (log(pt[k].err) - log(pt[k - 1].err));
		return exp(log(pt[k - 1].cost) + u * (log(pt[k].cost) - log(pt[k - 1].cost)));
	}
	return NAN;
}

/* ---- the tables -------------------------------------------------------------------- */

enum { MAX_TOLS = 32 };

typedef struct Sweep {
	int np;
	Point pt[MAX_TOLS];
} Sweep;

/* How one of ours fared against a GSL best over the error levels. */
typedef struct Tally {
	int compared, within, worst_level;
	double worst;
	const char *worst_against;
} Tally;

static int runs_on(const Solver *s, const MeProblem *p)
{
	return s->for_problems & (p->stiff ? FOR_STIFF : FOR_NONSTIFF);
}

/* Whether rtol is a whole decade between 1e-4 and 1e-10: the rows printed (the others
 * go to the CSV and into the interpolation). */
static int printed(double rtol)
{
	double k = -log10(rtol);
	return fabs(k - floor(k + 0.5)) < 1e-9 && k > 3.5 && k < 10.5;
}

/* Runs of ours that did not reach the end: each is printed, and the benchmark then ends
 * with status 1 after its tables (a solver of ours that fails is what it must show). */
static int our_failures;

/* One solver's sweep: a row per printed tolerance, a CSV line per point.  A run that does
 * not reach the end is left out of the interpolation, saying so (ours at every
 * tolerance, GSL's at the printed ones). */
static void sweep(const MeProblem *p, const Solver *so, const double *ref, const double *tols,
                  int ntols, int reps, FILE *csv, Sweep *sw)
{
	sw->np = 0;
	for (int k = 0; k < ntols; k++) {
		Run r;
		run(p, so, tols[k], reps, &r);
		if (!r.reached) {
			if (so->ours)
				our_failures++;
			if (printed(tols[k]) || so->ours)
				printf("%-9s %6.0e  did not reach the end (%s): left out\n", so->name,
				       tols[k], r.why);
			continue;
		}
		double err = error_of(p, r.x, ref);
		double cost = (double)r.f + (double)p->n * (double)r.jac;
		double us = 1e6 * r.wall / (p->t1 - p->t0);
		sw->pt[sw->np++] = (Point){tols[k], err, cost};
		if (csv)
			fprintf(csv, "%s,%s,%g,%.6e,%ld,%ld,%ld,%ld,%ld,%.6e\n", p->name, so->name,
			        tols[k], err, r.f, r.jac, r.steps, r.rejected, r.lu, us);
		if (!printed(tols[k]))
			continue;
		char lu[24] = "-";
		if (r.lu >= 0)
			snprintf(lu, sizeof lu, "%ld", r.lu);
		printf("%-9s %6.0e %9.2e %9ld %7ld %9.0f %8ld %6ld %6s %11.3g", so->name,
		       tols[k], err, r.f, r.jac, cost, r.steps, r.rejected, lu, us);
		if (so->ours && so->method == SART_ODE_AUTO && !isnan(r.switch_t))
			printf("  RODAS from t = %.3g, step %ld", r.switch_t, r.switch_steps);
		printf("\n");
	}
}

/* The cheapest GSL solver at an error level among those its sweep brackets (order5: only
 * those of order 5 or less); -1 when none. */
static int best_gsl(const MeProblem *p, const Sweep *sw, double level, int order5,
                    double *cost)
{
	int bs = -1;
	for (int s = 0; s < NSOLVERS; s++) {
		if (!runs_on(&solvers[s], p) || solvers[s].ours || (order5 && !solvers[s].order5))
			continue;
		double c = cost_at(sw[s].pt, sw[s].np, level);
		if (!isnan(c) && (bs < 0 || c < *cost)) {
			*cost = c;
			bs = s;
		}
	}
	return bs;
}

static void tally(Tally *t, double ratio, int level, const char *against)
{
	t->compared++;
	t->within += ratio <= 1.5;
	if (ratio > t->worst) {
		t->worst = ratio;
		t->worst_level = level;
		t->worst_against = against;
	}
}

/* The equal-accuracy table: a row per decade of error from 1e-2 down to ten times the
 * reference's spread, where GSL's sweeps bracket it. */
static void equal_accuracy(const MeProblem *p, const Sweep *sw, double spread, Tally *all,
                           Tally *low)
{
	printf("\nat equal accuracy: f + nJ interpolated (log-log) at each error level; ratio: "
	       "ours / GSL's best\n%-8s", "error");
	for (int s = 0; s < NSOLVERS; s++)
		if (runs_on(&solvers[s], p) && solvers[s].ours)
			printf(" %9s %6s", solvers[s].name, "ratio");
	printf(" %9s %-10s %9s %s\n", "GSL best", "(solver)", "order<=5", "(solver)");
	for (int lv = 2; lv <= 12; lv++) {
		double level = pow(10, -lv), best = NAN, best5 = NAN;
		if (level < 10 * spread)
			break;
		int bs = best_gsl(p, sw, level, 0, &best), bs5 = best_gsl(p, sw, level, 1, &best5);
		if (bs < 0)
			continue;
		printf("%-8.0e", level);
		for (int s = 0; s < NSOLVERS; s++) {
			if (!runs_on(&solvers[s], p) || !solvers[s].ours)
				continue;
			double c = cost_at(sw[s].pt, sw[s].np, level);
			if (isnan(c)) {
				printf(" %9s %6s", "-", "");
				continue;
			}
			tally(&all[s], c / best, lv, solvers[bs].name);
			if (bs5 >= 0)
				tally(&low[s], c / best5, lv, solvers[bs5].name);
			printf(" %9.0f %5.2fx", c, c / best);
		}
		char b5[40] = "        -";
		if (bs5 >= 0)
			snprintf(b5, sizeof b5, "%9.0f (%s)", best5, solvers[bs5].name);
		char bn[24];
		snprintf(bn, sizeof bn, "(%s)", solvers[bs].name);
		printf(" %9.0f %-10s %s\n", best, bn, b5);
	}
	printf("smallest error in the sweep:");
	for (int s = 0; s < NSOLVERS; s++) {
		double least = INFINITY;
		if (!runs_on(&solvers[s], p))
			continue;
		for (int k = 0; k < sw[s].np; k++)
			least = fmin(least, sw[s].pt[k].err);
		printf(" %s %.1e", solvers[s].name, least);
	}
	printf(" (a level past a solver's is compared without it)\n\n");
}

/* "within 1.5x of GSL's best at all 6 error levels (worst ...)", or "NOT within ...: over
 * it at 2 of 9 error levels (worst ...)". */
static void print_tally(const Tally *t, const char *what)
{
	if (t->within == t->compared)
		printf("within %s at all %d error levels", what, t->compared);
	else
		printf("NOT within %s: over it at %d of %d error levels", what,
		       t->compared - t->within, t->compared);
	printf(" (worst %.2fx at 1e-%d, %s)", t->worst, t->worst_level, t->worst_against);
}

static void verdict(const MeProblem *p, const Solver *so, const Tally *all, const Tally *low)
{
	if (all->compared == 0) {
		fflush(stdout);
		fprintf(stderr, "bench-me: %s on %s: its sweep brackets no error level that GSL's "
		        "does: nothing to compare\n", so->name, p->name);
		exit(1);
	}
	printf("verdict %s, %s: ", p->name, so->name);
	print_tally(all, "1.5x of GSL's best");
	if (low->compared > 0) {
		printf("; ");
		print_tally(low, "1.5x of GSL's best of order <= 5");
	}
	printf("\n");
}

static void bench_problem(const MeProblem *p, const double *tols, int ntols, int reps,
                          FILE *csv)
{
	double ref[ME_MAX_N], spread;
	char how[400];
	Sweep sw[NSOLVERS];
	Tally all[NSOLVERS], low[NSOLVERS];
	me_reference(p, ref, &spread, how, sizeof how, 1);
	printf("== %s\nreference: %s\n\n", p->label, how);
	printf("%-9s %6s %9s %9s %7s %9s %8s %6s %6s %11s\n", "solver", "rtol", "error",
	       "f evals", "J evals", "f + nJ", "steps", "rej.", "LU", "us/sim s");
	memset(all, 0, sizeof all);
	memset(low, 0, sizeof low);
	for (int s = 0; s < NSOLVERS; s++) {
		sw[s].np = 0;
		if (runs_on(&solvers[s], p))
			sweep(p, &solvers[s], ref, tols, ntols, reps, csv, &sw[s]);
	}
	equal_accuracy(p, sw, spread, all, low);
	for (int s = 0; s < NSOLVERS; s++)
		if (runs_on(&solvers[s], p) && solvers[s].ours)
			verdict(p, &solvers[s], &all[s], &low[s]);
	printf("\n");
}

static const MeProblem *const problems[] = {&me_arenstorf, &me_vdp1, &me_robertson,
                                            &me_vdp1000};
enum { NPROBLEMS = sizeof problems / sizeof problems[0] };

/* The sweep of every problem: `odebench [CSV]`. */
static int sweep_all(const char *csv_path)
{
	double tols[MAX_TOLS];
	int ntols = 0, reps = bench_quick() ? 1 : 3;
	FILE *csv = NULL;
	/* rtol 1e-2 .. 1e-13 in half decades (quick: whole decades 1e-3 .. 1e-11) */
	if (bench_quick())
		for (int k = 3; k <= 11; k++)
			tols[ntols++] = pow(10, -k);
	else
		for (int k = 4; k <= 26; k++)
			tols[ntols++] = pow(10, -k / 2.0);
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (!csv) {
			fprintf(stderr, "bench-me: cannot write %s\n", csv_path);
			return 1;
		}
		fprintf(csv, "problem,solver,rtol,error,f_evals,jac_evals,steps,rejected,lu,"
		        "us_per_sim_s\n");
	}
	printf("bench-me: the runtime's ODE solvers (sart_ode.h) against GSL %s odeiv2\n"
	       "error: max_i |x_i - ref_i| / (nominal_i + |ref_i|) at the end point; f + nJ: "
	       "f evaluations plus n per Jacobian;\nus/sim s: wall time per simulated second, "
	       "best of %d; rows at rtol 1e-4 .. 1e-10 (%s)\n\n", GSL_VERSION, reps,
	       csv ? "every point in the CSV" : "");
	for (int i = 0; i < NPROBLEMS; i++)
		bench_problem(problems[i], tols, ntols, reps, csv);
	if (csv && fclose(csv) != 0) {
		fprintf(stderr, "bench-me: cannot write %s\n", csv_path);
		return 1;
	}
	if (our_failures > 0) {
		fflush(stdout);
		fprintf(stderr, "bench-me: %d run%s of ours did not reach the end (rows \"did not "
		        "reach\" above)\n", our_failures, our_failures == 1 ? "" : "s");
		return 1;
	}
	return 0;
}

static const MeProblem *problem_named(const char *name)
{
	for (int i = 0; i < NPROBLEMS; i++)
		if (strcmp(problems[i]->name, name) == 0)
			return problems[i];
	fprintf(stderr, "bench-me: no problem '%s'\n", name);
	exit(2);
}

/* `odebench point PROBLEM SOLVER RTOL`: one point of a sweep, for run.sh to set beside
 * the same problem through an FMU: "error E", "f_evals N", "cpu_us_per_sim_s T" (the
 * least CPU time of five runs). */
static int point(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: odebench point PROBLEM SOLVER RTOL\n");
		return 2;
	}
	const MeProblem *p = problem_named(argv[0]);
	const Solver *so = NULL;
	double ref[ME_MAX_N], spread;
	char how[400];
	for (int s = 0; s < NSOLVERS; s++)
		if (strcmp(solvers[s].name, argv[1]) == 0)
			so = &solvers[s];
	if (!so) {
		fprintf(stderr, "bench-me: no solver '%s'\n", argv[1]);
		return 2;
	}
	Run r;
	me_reference(p, ref, &spread, how, sizeof how, 0);
	run(p, so, strtod(argv[2], NULL), 5, &r);
	if (!r.reached) {
		fprintf(stderr, "bench-me: %s on %s at rtol %s: %s\n", so->name, p->name, argv[2],
		        r.why);
		return 1;
	}
	printf("error %.3e\nf_evals %ld\ncpu_us_per_sim_s %.6g\n", error_of(p, r.x, ref), r.f,
	       1e6 * r.cpu / (p->t1 - p->t0));
	return 0;
}

/* `odebench error PROBLEM X1 .. XN`: the error of an end state computed elsewhere (a
 * result file's last row), measured as the sweep measures its own: "error E". */
static int end_error(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "usage: odebench error PROBLEM X1 .. XN\n");
		return 2;
	}
	const MeProblem *p = problem_named(argv[0]);
	double ref[ME_MAX_N], x[ME_MAX_N], spread;
	char how[400], *end;
	if ((size_t)argc - 1 != p->n) {
		fprintf(stderr, "bench-me: %s has %zu states, not %d\n", p->name, p->n, argc - 1);
		return 2;
	}
	for (size_t i = 0; i < p->n; i++) {
		x[i] = strtod(argv[1 + i], &end);
		if (end == argv[1 + i] || *end != '\0' || !isfinite(x[i])) {
			fprintf(stderr, "bench-me: '%s' is not a finite number\n", argv[1 + i]);
			return 1;
		}
	}
	me_reference(p, ref, &spread, how, sizeof how, 0);
	printf("error %.3e\n", error_of(p, x, ref));
	return 0;
}

int main(int argc, char **argv)
{
	gsl_set_error_handler_off();
	if (argc > 1 && strcmp(argv[1], "point") == 0)
		return point(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "error") == 0)
		return end_error(argc - 2, argv + 2);
	return sweep_all(argc > 1 ? argv[1] : NULL);
}
