/* test_sart_fastpath.c — the master's fast path (orchestrator/sart_master_fast.c) against
 * its general path: each scenario runs twice, once as it comes (fast where it qualifies:
 * Jacobi, held Real inputs, no loop) and once with SartMasterOptions.no_fast_path, and the
 * two runs must agree on everything a caller sees: the status, the result (counters,
 * steps, message), every accepted point bit for bit and the log text.
 *
 * Each runs under Jacobi and under Gauss-Seidel (the first pass of each step from tables
 * in execution order, plain_gs_pass).  The scenarios are chains of the test FMUs integrator (a, with u = 1) and faulty (f: x'
 * = u, and a fault at a given time), with a unit conversion or not, on the grid or with a
 * last step cut short, with the states saved before each step or not (no_rollback: the
 * whole run on the fast path), watched around each doStep or not; and every fault the
 * faulty FMU has that the fast path meets: a discard (redone shorter from the saved
 * states, or an error without them), an error, a fatal error, NaN and infinity.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"
#include "sart_master.h"

#include "master_points.h"

#define INTEGRATOR_GUID "{3f6c1d2e-8a47-4b95-9e0d-7c2a5b1f4e83}"
#define FAULTY_GUID "{9b1f0c4e-2d7a-4e55-8c3b-6a0f2e9d71c5}"

#define ALL_CAPS (SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES)

static const SartVar integrator_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"x0", 2, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"fail_at", 3, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"nan_at", 4, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
};
static const SartVar faulty_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"fault", 2, SART_INTEGER, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"at", 3, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"hang_seconds", 4, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
};
enum { FAULT_NONE, FAULT_DISCARD, FAULT_ERROR, FAULT_FATAL, FAULT_NAN, FAULT_INF };

/* One scenario: a -> f -> b, the connection into f converted (scale, offset), f's fault
 * striking at 0.35, steps of h to stop. */
typedef struct Scenario {
	int fault;
	double scale, offset;
	double h, stop;
	int no_rollback;
	int watched;
	int gs;               /* Gauss-Seidel (set by same_both_ways), else Jacobi */
} Scenario;

typedef struct Run {
	int rc;
	SartMasterResult res;
	Points p;
} Run;

static int steps_watched;

static void count_step(void *env, int fmu, double t, double h, int done)
{
	(void)env, (void)fmu, (void)t, (void)h;
	steps_watched += done;
}

static void run_scenario(const Scenario *s, int no_fast_path, Run *out)
{
	char dir_i[512], dir_f[512];
	snprintf(dir_i, sizeof dir_i, "%s/fmus/integrator", test_build_dir());
	snprintf(dir_f, sizeof dir_f, "%s/fmus/faulty", test_build_dir());
	/* Gauss-Seidel's fast path takes FMUs that interpolate no inputs (it would give them
	 * derivatives) */
	unsigned caps = s->gs ? SART_CAP_GET_SET_STATE : ALL_CAPS;
	SartFmu fmus[] = {
		{"a", dir_i, "integrator", INTEGRATOR_GUID, SART_FMI2, caps, integrator_vars, 5},
		{"f", dir_f, "faulty", FAULTY_GUID, SART_FMI2, caps, faulty_vars, 5},
		{"b", dir_i, "integrator", INTEGRATOR_GUID, SART_FMI2, caps, integrator_vars, 5},
	};
	SartConnection conns[] = {
		{{0, 1}, {1, 0}, s->scale, s->offset, NULL, NULL, 0},
		{{1, 1}, {2, 0}, 1, 0, NULL, NULL, 0},
	};
	SartStart starts[] = {{{0, 0}, 1.0}, {{1, 2}, s->fault}, {{1, 3}, 0.35}};
	SartRef recs[] = {{0, 1}, {1, 1}, {2, 1}};
	SartScenario sc = {fmus, 3, conns, 2, starts, 3, recs, 3};
	memset(out, 0, sizeof *out);
	SartMasterOptions o = {.start = 0, .stop = s->stop, .step = s->h,
	                       .algorithm = s->gs ? SART_GAUSS_SEIDEL : SART_JACOBI,
	                       .approx = SART_HOLD,
	                       .logger = logger, .logger_env = &out->p, .on_point = collect,
	                       .point_env = &out->p, .no_rollback = s->no_rollback,
	                       .no_fast_path = no_fast_path};
	if (s->watched)
		o.on_step = count_step;
	out->rc = sart_master_run(&sc, &o, &out->res);
}

/* Both runs of s under one algorithm; they must agree on everything.  Returns the fast
 * run's status. */
static int same_both_ways_with(const Scenario *s)
{
	static Run fast, general;
	run_scenario(s, 0, &fast);
	int watched_fast = steps_watched;
	steps_watched = 0;
	run_scenario(s, 1, &general);
	assert_int_equal(fast.rc, general.rc);
	assert_string_equal(fast.res.message, general.res.message);
	assert_int_equal(fast.res.accepted, general.res.accepted);
	assert_int_equal(fast.res.rejected, general.res.rejected);
	assert_int_equal(fast.res.iterations, general.res.iterations);
	assert_int_equal(fast.res.rollbacks, general.res.rollbacks);
	assert_memory_equal(&fast.res.t, &general.res.t, sizeof fast.res.t);
	assert_memory_equal(&fast.res.h_min, &general.res.h_min, sizeof fast.res.h_min);
	assert_memory_equal(&fast.res.h_max, &general.res.h_max, sizeof fast.res.h_max);
	assert_int_equal(fast.p.n, general.p.n);
	assert_memory_equal(fast.p.t, general.p.t, sizeof fast.p.t);
	assert_memory_equal(fast.p.v, general.p.v, sizeof fast.p.v);
	assert_string_equal(fast.p.log, general.p.log);
	assert_int_equal(watched_fast, steps_watched);
	steps_watched = 0;
	return fast.rc;
}

/* Both runs of s, under Jacobi and under Gauss-Seidel (whose first pass has a fast path
 * too, plain_gs_pass); returns Jacobi's fast run's status, Gauss-Seidel's being the same. */
static int same_both_ways(const Scenario *s)
{
	Scenario g = *s;
	g.gs = 1;
	int rc = same_both_ways_with(s);
	assert_int_equal(same_both_ways_with(&g), rc);
	return rc;
}

static void fastpath__no_fault__same_as_general(void **state)
{
	(void)state;
	for (int no_rollback = 0; no_rollback <= 1; no_rollback++)
		for (int watched = 0; watched <= 1; watched++) {
			/* on the grid, unconverted (set straight from the signals) */
			Scenario s = {FAULT_NONE, 1, 0, 0.1, 1, no_rollback, watched, 0};
			assert_int_equal(same_both_ways(&s), 0);
			/* converted (the flat table), and a last step cut short */
			s = (Scenario){FAULT_NONE, 2, 1, 0.3, 1, no_rollback, watched, 0};
			assert_int_equal(same_both_ways(&s), 0);
		}
}

static void fastpath__faults__same_as_general(void **state)
{
	(void)state;
	int faults[] = {FAULT_DISCARD, FAULT_ERROR, FAULT_FATAL, FAULT_NAN, FAULT_INF};
	for (int i = 0; i < 5; i++)
		for (int no_rollback = 0; no_rollback <= 1; no_rollback++)
			for (int watched = 0; watched <= 1; watched++) {
				Scenario s = {faults[i], 2, 1, 0.1, 1, no_rollback, watched, 0};
				/* only a discard with the states saved is redone; the others fail */
				int redone = faults[i] == FAULT_DISCARD && !no_rollback;
				assert_int_equal(same_both_ways(&s), redone ? 0 : 1);
			}
}

/* A converted value that is not finite: refused before any FMU steps, both ways. */
static void fastpath__nonfinite_input__same_as_general(void **state)
{
	(void)state;
	Scenario s = {FAULT_NONE, 1e308, 1e308, 0.1, 1, 1, 0, 0};
	assert_int_equal(same_both_ways(&s), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fastpath__no_fault__same_as_general),
		cmocka_unit_test(fastpath__faults__same_as_general),
		cmocka_unit_test(fastpath__nonfinite_input__same_as_general),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
