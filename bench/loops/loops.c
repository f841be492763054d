/* loops.c — benchmark 2, algebraic loops: each loop of loop_scenarios.h solved at
 * initialization (sart_master_run with stop = start) by fixed-point iteration, Anderson
 * with m = 1 and m = 2, and Newton (finite-difference Jacobian), tolerance 1e-10 on
 * |G(x) - x| relative to max(1, |x|), at most 200 iterations.  Prints, per loop and
 * solver, the outcome, the solver's iterations and the loop passes (every FMU of the loop
 * set and read once: the cost; Newton's Jacobian takes one pass per tear variable).
 *
 *   make bench-loops              (BUILD names the build directory with the test FMUs)
 *   loops BUILD
 *
 * It takes a fraction of a second, so BENCH_QUICK changes nothing.  A run that fails other
 * than by the solver's outcome (an FMU that does not load, say), or a loop that no solver
 * solves (no max error), ends it with status 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_scenarios.h"

typedef struct Solver {
	const char *name;
	SartLoopSolver solver;
	int memory;
} Solver;

static const Solver solvers[] = {
	{"fixed-point", SART_LOOP_FIXED_POINT, 0},
	{"anderson m=1", SART_LOOP_ANDERSON, 1},
	{"anderson m=2", SART_LOOP_ANDERSON, 2},
	{"newton", SART_LOOP_NEWTON, 0},
};
enum { NSOLVERS = sizeof solvers / sizeof solvers[0] };

static double first[4];

static int keep(void *env, double t, const double values[], int n)
{
	(void)env;
	(void)t;
	for (int i = 0; i < n && i < 4; i++)
		first[i] = values[i];
	return 0;
}

/* One cell: "converged 34 (35)", "not conv. 200", "diverged 76" ...; *err is NaN unless it
 * converged. */
static void cell(LoopScenario *ls, const Solver *s, char *out, size_t size, double *err,
                 const double *want, int nwant)
{
	SartMasterOptions o = {.start = 0, .stop = 0, .step = 1, .algorithm = SART_GAUSS_SEIDEL,
	                       .approx = SART_HOLD, .on_point = keep, .loop_solver = s->solver,
	                       .anderson_memory = s->memory, .loop_tolerance = 1e-10,
	                       .loop_max_iterations = 200};
	SartMasterResult r;
	int rc = sart_master_run(&ls->sc, &o, &r);
	*err = NAN;
	if (rc == 0) {
		*err = 0;
		for (int i = 0; i < nwant; i++)
			*err = fmax(*err, fabs(first[i] - want[i]));
		snprintf(out, size, "converged %3ld (%3ld)", r.loop_iterations, r.loop_evaluations);
	} else if (r.loop_outcome == SART_LOOP_NOT_CONVERGED) {
		snprintf(out, size, "not converged in %ld", r.loop_iterations);
	} else if (r.loop_outcome == SART_LOOP_DIVERGED) {
		snprintf(out, size, "diverged at %3ld", r.loop_iterations);
	} else if (r.loop_outcome == SART_LOOP_SINGULAR) {
		snprintf(out, size, "singular at %ld", r.loop_iterations);
	} else {
		fflush(stdout);
		fprintf(stderr, "\nloops: %s failed: %s\n", s->name, r.message);
		exit(1);
	}
}

static void row(const char *label, LoopScenario *ls, const double *want, int nwant)
{
	double worst = NAN;
	printf("%-24s", label);
	for (int k = 0; k < NSOLVERS; k++) {
		char buf[96];
		double e;
		cell(ls, &solvers[k], buf, sizeof buf, &e, want, nwant);
		if (e > worst || (isnan(worst) && !isnan(e)))
			worst = e;
		printf("  %-22s", buf);
	}
	if (!isfinite(worst)) {
		fflush(stdout);
		fprintf(stderr, "\nloops: no solver converged on %s: no max error\n", label);
		exit(1);
	}
	printf("  %.1e\n", worst);
}

int main(int argc, char **argv)
{
	const char *build = argc > 1 ? argv[1] : "build";
	LoopScenario ls;
	static const double gains[][2] = {{1, 0.5}, {1.5, 0.6}, {1.5, -1}, {2, 1}};
	printf("benchmark 2: algebraic loops solved at initialization\n"
	       "tolerance 1e-10 on |G(x) - x| / max(1, |x|), at most 200 iterations; cells: "
	       "outcome, iterations (loop passes)\n\n");
	printf("%-24s", "loop");
	for (int k = 0; k < NSOLVERS; k++)
		printf("  %-22s", solvers[k].name);
	printf("  max error\n");
	for (int i = 0; i < 4; i++) {
		double a = gains[i][0], b = gains[i][1], y1 = (1 - 2 * a) / (1 - a * b);
		double want[] = {y1, b * y1 - 2};
		char label[64];
		snprintf(label, sizeof label, "affine ab = %g", a * b);
		ls_affine(&ls, build, a, b);
		row(label, &ls, want, 2);
	}
	double seed[] = {-5, -3};
	ls_seed(&ls, build);
	row("seed y = 2u+1, u = 0.6y", &ls, seed, 2);
	double nl[] = {0.9 - sqrt(0.07), -1.8, 0.9 + sqrt(0.07)};
	ls_nonlinear(&ls, build);
	row("nonlinear (a0 = 0.6)", &ls, nl, 3);
	printf("\nmax error: the largest |value - exact| over the converged cells; "
	       "loop passes include Newton's Jacobian passes\n");
	return 0;
}
