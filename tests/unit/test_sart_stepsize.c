/* test_sart_stepsize.c — step-size control in the orchestrator core (sart_master.h):
 * the controller against a published worked example (10 ms, tolerance 1e-3, error
 * 4e-3: rejected, retried at 4.5 ms; error 2e-4 then: 9 ms), and runs of benchmark 1's two
 * masses (tests/fmus/mass1, mass2) whose error estimates must shrink the first step, with
 * accepted and rejected steps counted and the positions checked against the exact
 * monolithic solution (bench/two_mass/twomass_ref.h, GSL).
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"
#include "sart_master.h"
#include "../../bench/two_mass/twomass_ref.h"

#include "assert_contains.h"

/* ---- the controller ----------------------------------------------------------------------- */

static void controller__worked_example__rejects_then_recovers(void **state)
{
	(void)state;
	/* hold: p = 1.  ratio 0.25, square root 0.5, times 0.9: 0.45 */
	double h = sart_step_propose(0.010, 4e-3, 1e-3, 1, 0.9, 0.2, 2);
	/* err > tol: the master rejects the step (the runs below count rejections) and
	 * retries it at 4.5 ms */
	assert_close(h, 0.0045, 1e-15);
	/* ratio 5, square root 2.236, times 0.9: 2.012, clamped to grow = 2: 9 ms */
	assert_close(sart_step_propose(h, 2e-4, 1e-3, 1, 0.9, 0.2, 2), 0.009, 1e-15);
	/* without the clamp (the seed's grow 5), about 9 ms */
	assert_close(sart_step_propose(h, 2e-4, 1e-3, 1, 0.9, 0.2, 5), 0.0045 * 0.9 * sqrt(5),
	             1e-15);
	/* the bounds: a huge or NaN error shrinks by 0.2, no error grows by 2 */
	assert_close(sart_step_propose(0.01, 1e9, 1e-3, 1, 0.9, 0.2, 2), 0.002, 1e-15);
	assert_close(sart_step_propose(0.01, NAN, 1e-3, 1, 0.9, 0.2, 2), 0.002, 1e-15);
	assert_close(sart_step_propose(0.01, 0, 1e-3, 1, 0.9, 0.2, 2), 0.02, 1e-15);
	/* linear: p = 2, the cube root */
	assert_close(sart_step_propose(0.01, 8e-3, 1e-3, 2, 1, 0.2, 2), 0.005, 1e-15);
}

/* ---- the two masses ------------------------------------------------------------------------ */

static const SartVar mass_vars[] = {
	{"xo", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"vo", 1, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 2, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"v", 3, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
};

typedef struct Run {
	int n;
	double err; /* the largest position error at the accepted points */
	double last_t;
} Run;

static int check_point(void *env, double t, const double values[], int n)
{
	Run *r = env;
	double z[4];
	(void)n;
	if (tm_exact(&TWO_MASS_BENCH, t, z) != 0)
		return 1;
	double e = fmax(fabs(values[0] - z[0]), fabs(values[1] - z[2]));
	r->err = fmax(r->err, e);
	r->last_t = t;
	r->n++;
	return 0;
}

static int run_masses(SartAlgorithm alg, SartApprox approx, SartStepControl ctl, double h,
                      double tol, double max_step, Run *run, SartMasterResult *r)
{
	char d1[512], d2[512];
	snprintf(d1, sizeof d1, "%s/fmus/mass1", test_build_dir());
	snprintf(d2, sizeof d2, "%s/fmus/mass2", test_build_dir());
	unsigned caps = SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES;
	SartFmu fmus[] = {
		{"m1", d1, "mass1", "{e0345f51-8164-4c51-a398-8b4062348517}", SART_FMI2, caps,
		 mass_vars, 4},
		{"m2", d2, "mass2", "{27396174-c505-491d-8d8a-2f2a054615a7}", SART_FMI2, caps,
		 mass_vars, 4},
	};
	SartConnection conns[] = {
		{{0, 2}, {1, 0}, 1, 0, NULL, NULL, 0},
		{{0, 3}, {1, 1}, 1, 0, NULL, NULL, 0},
		{{1, 2}, {0, 0}, 1, 0, NULL, NULL, 0},
		{{1, 3}, {0, 1}, 1, 0, NULL, NULL, 0},
	};
	SartRef recs[] = {{0, 2}, {1, 2}};
	SartScenario sc = {fmus, 2, conns, 4, NULL, 0, recs, 2};
	SartMasterOptions o = {.start = 0, .stop = 2, .step = h, .algorithm = alg,
	                       .approx = approx, .on_point = check_point, .point_env = run,
	                       .step_control = ctl, .tolerance = tol, .max_step = max_step};
	memset(run, 0, sizeof *run);
	return sart_master_run(&sc, &o, r);
}

static void masses__prediction__shrinks_and_is_accurate(void **state)
{
	(void)state;
	Run run, tight;
	SartMasterResult r, rt;
	/* Jacobi, linear extrapolation (held on the first step), first step 0.1: the masses
	 * move 0.3 m in it, far above the tolerance, so it is rejected and the step shrinks */
	assert_int_equal(run_masses(SART_JACOBI, SART_LINEAR, SART_STEP_PREDICTION, 0.1, 1e-3, 0,
	                            &run, &r), 0);
	assert_true(run.last_t == 2.0); /* landed on the stop time */
	assert_int_equal(run.n, r.accepted + 1);
	assert_in_range(r.rejected, 10, 14);  /* measured: 12 */
	assert_in_range(r.accepted, 690, 740); /* measured: 715 */
	assert_true(r.h_min < 1e-3 && r.h_max > 4e-3);
	assert_true(run.err < 1e-3); /* measured: 5.9e-4 */
	assert_int_equal(r.forced, 0);
	/* a tighter tolerance: more steps, a smaller error */
	assert_int_equal(run_masses(SART_JACOBI, SART_LINEAR, SART_STEP_PREDICTION, 0.1, 1e-4, 0,
	                            &tight, &rt), 0);
	assert_true(rt.accepted > r.accepted);
	assert_true(tight.err < run.err / 3);
}

static void masses__doubling__shrinks_and_is_accurate(void **state)
{
	(void)state;
	Run run, capped;
	SartMasterResult r, rc;
	/* Gauss-Seidel, linear, first step 0.1 (within max step 0.05: 0.05) */
	assert_int_equal(run_masses(SART_GAUSS_SEIDEL, SART_LINEAR, SART_STEP_DOUBLING, 0.1, 1e-4,
	                            0.05, &run, &r), 0);
	assert_true(run.last_t == 2.0);
	assert_in_range(r.rejected, 18, 24);   /* measured: 21 */
	assert_in_range(r.accepted, 160, 180); /* measured: 169 */
	assert_true(r.h_max <= 0.05 && r.h_min < 0.01);
	assert_true(run.err < 1e-3); /* measured: 7.4e-4 */
	/* the maximum step is never exceeded */
	assert_int_equal(run_masses(SART_GAUSS_SEIDEL, SART_LINEAR, SART_STEP_DOUBLING, 0.1, 1e-4,
	                            0.004, &capped, &rc), 0);
	assert_true(rc.h_max <= 0.004 * (1 + 1e-12));
	assert_true(rc.accepted >= 500);
	assert_true(capped.err < run.err);
}

/* Fixed steps, Jacobi: the coupling error against the exact solution at H and H/2, with
 * linear and quadratic extrapolation.  The masses take first input derivatives only, so
 * quadratic gives them the chord to the parabola's end value (and the start-up holds one
 * step, extrapolates linearly on the next): both are second order, quadratic with the
 * smaller error constant. */
static void masses__quadratic__second_order_and_below_linear(void **state)
{
	(void)state;
	double err[2][2];
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < 2; k++) {
			Run run;
			SartMasterResult r;
			double h = 0.0125 / (1 << k);
			assert_int_equal(run_masses(SART_JACOBI, a ? SART_QUADRATIC : SART_LINEAR,
			                            SART_STEP_FIXED, h, 0, 0, &run, &r), 0);
			err[a][k] = run.err;
			print_message("%s H = %g: error %.6e\n", a ? "quadratic" : "linear", h, run.err);
		}
	double order_lin = log2(err[0][0] / err[0][1]), order_quad = log2(err[1][0] / err[1][1]);
	print_message("observed order: linear %.3f, quadratic %.3f\n", order_lin, order_quad);
	/* measured: linear 9.62e-3, 2.40e-3 (order 2.00); quadratic 1.89e-3, 4.51e-4 (2.07) */
	assert_true(order_lin > 1.8 && order_lin < 2.2);
	assert_true(order_quad > 1.8 && order_quad < 2.4);
	assert_true(err[1][0] < err[0][0] / 3);
	assert_true(err[1][1] < err[0][1] / 3);
}

static void masses__no_rollback__refused(void **state)
{
	(void)state;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .step_control = SART_STEP_DOUBLING};
	SartVar v[] = {{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0}};
	SartFmu f[] = {{"nostate", "/nonexistent", "x", "{}", SART_FMI2, 0, v, 1}};
	SartScenario sc = {f, 1, NULL, 0, NULL, 0, NULL, 0};
	SartMasterResult r;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "step-size control rejects steps by rolling every FMU back, "
	                           "and nostate cannot get and set its state");
	o.step_control = SART_STEP_PREDICTION;
	o.min_step = 0.5;
	o.max_step = 0.1;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "minimum step 0.5 exceeds the maximum step 0.1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(controller__worked_example__rejects_then_recovers),
		cmocka_unit_test(masses__prediction__shrinks_and_is_accurate),
		cmocka_unit_test(masses__doubling__shrinks_and_is_accurate),
		cmocka_unit_test(masses__quadratic__second_order_and_below_linear),
		cmocka_unit_test(masses__no_rollback__refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
