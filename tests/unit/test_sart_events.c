/* test_sart_events.c — event location in the orchestrator (SartMasterOptions.locate_events):
 * sign changes of a chosen output located against crossing times known exactly.
 *
 * The FMUs are `integrator`s (tests/fmus/integrator: x' = u, exact for inputs linear over a
 * step), so every value is exact whatever the step and the crossing time is known:
 *   - one integrator with u = 1 and x0 = -0.37: x = t - 0.37 crosses 0 at t = 0.37
 *     (u = -1, x0 = 0.37: downwards at the same time);
 *   - a (u = 1) feeding b under Gauss-Seidel (b's input linear from a's old value to its
 *     new one, exact): b.x = x0 + t^2 / 2, with x0 = -0.5 crossing at t = 1 inside the step
 *     0.9 -> 1.2 of H = 0.3.
 * The accepted communication point after the crossing must lie in [t_cross, t_cross + tol],
 * and stepping must go back to the grid after it.
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

#include "assert_contains.h"
#include "master_points.h"

#define INTEGRATOR_GUID "{3f6c1d2e-8a47-4b95-9e0d-7c2a5b1f4e83}"
#define ALL_CAPS (SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES)

static const SartVar integrator_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"x0", 2, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"fail_at", 3, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"nan_at", 4, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
};
enum { I_U, I_X, I_X0 };

static char dir[512];

static SartFmu integrator(const char *name, unsigned caps)
{
	snprintf(dir, sizeof dir, "%s/fmus/integrator", test_build_dir());
	return (SartFmu){name, dir, "integrator", INTEGRATOR_GUID, SART_FMI2, caps,
	                 integrator_vars, 5};
}

/* One integrator, x = x0 + u t, its x the indicator; steps of h up to 1. */
static int run_ramp(double u, double x0, double h, double tol, Points *p,
                    SartMasterResult *r)
{
	SartFmu fmus[] = {integrator("a", ALL_CAPS)};
	SartStart starts[] = {{{0, I_U}, u}, {{0, I_X0}, x0}};
	SartRef recs[] = {{0, I_X}};
	SartScenario sc = {fmus, 1, NULL, 0, starts, 2, recs, 1};
	SartMasterOptions o = {.start = 0, .stop = 1, .step = h, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .logger = logger, .logger_env = p,
	                       .on_point = collect, .point_env = p, .locate_events = 1,
	                       .event_indicator = {0, I_X}, .event_tolerance = tol};
	memset(p, 0, sizeof *p);
	return sart_master_run(&sc, &o, r);
}

/* The index of the first point after t. */
static int first_after(const Points *p, double t)
{
	for (int i = 0; i < p->n; i++)
		if (p->t[i] > t)
			return i;
	return -1;
}

static void ramp__crossing__located_within_tolerance_then_grid(void **state)
{
	(void)state;
	const double tc = 0.37;
	for (int dir_sign = -1; dir_sign <= 1; dir_sign += 2) {
		for (int k = 0; k < 3; k++) {
			double tol = k == 0 ? 1e-6 : k == 1 ? 1e-9 : 0.05;
			Points p;
			SartMasterResult r;
			/* x = dir_sign (t - 0.37): upwards for +1, downwards for -1 */
			assert_int_equal(run_ramp(dir_sign, -dir_sign * tc, 0.1, tol, &p, &r), 0);
			assert_int_equal(r.events, 1);
			assert_true(r.event_trials >= 1);
			int e = first_after(&p, 0.3 + 1e-12);
			assert_int_equal(e, 4);
			assert_true(p.t[e] >= tc);
			assert_true(p.t[e] <= tc + tol);
			assert_close(p.v[e][0], dir_sign * (p.t[e] - tc), 1e-12);
			/* with tol = 0.05, 0.4 itself is within tol after the crossing: the regula
			 * falsi's first trial lands on it, showing there is no crossing before,
			 * and the whole step is accepted */
			int on_grid = fabs(p.t[e] - 0.4) < 1e-12;
			assert_int_equal(on_grid, tol > 0.03);
			/* 0, ..., 0.3, the event, 0.4, ..., 1 */
			assert_int_equal(p.n, on_grid ? 11 : 12);
			/* back on the grid, and the values exact there */
			assert_close(p.t[e + !on_grid], 0.4, 1e-12);
			assert_close(p.v[e + !on_grid][0], dir_sign * (0.4 - tc), 1e-12);
			assert_true(p.t[p.n - 1] == 1.0);
			assert_int_equal(r.accepted, p.n - 1);
			assert_int_equal(r.rejected, 0);
		}
	}
}

static void ramp__no_crossing__no_event_no_trial(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_ramp(1, 0.01, 0.1, 1e-6, &p, &r), 0); /* x = t + 0.01 > 0 */
	assert_int_equal(r.events, 0);
	assert_int_equal(r.event_trials, 0);
	assert_int_equal(r.rollbacks, 0);
	assert_int_equal(p.n, 11);
	/* a crossing on a grid point is stepped on, not searched: x = t - 0.5 exactly on the
	 * binary grid of H = 1/8 */
	assert_int_equal(run_ramp(1, -0.5, 0.125, 1e-6, &p, &r), 0);
	assert_int_equal(r.events, 1);
	assert_int_equal(r.event_trials, 0);
	assert_int_equal(p.n, 9);
	assert_true(p.t[4] == 0.5 && p.v[4][0] == 0);
}

/* b.x = t^2 / 2 - 0.5 (Gauss-Seidel, b fed by a.x = t): a crossing at t = 1 inside the
 * step 0.9 -> 1.2; regula falsi on a curved indicator. */
static void parabola__crossing__located_within_tolerance(void **state)
{
	SartFmu fmus[] = {integrator("a", ALL_CAPS), integrator("b", ALL_CAPS)};
	SartConnection conns[] = {{{0, I_X}, {1, I_U}, 1, 0, NULL, NULL, 0}};
	SartStart starts[] = {{{0, I_U}, 1}, {{1, I_X0}, -0.5}};
	SartRef recs[] = {{1, I_X}, {0, I_X}};
	SartScenario sc = {fmus, 2, conns, 1, starts, 2, recs, 2};
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 2.1, .step = 0.3,
	                       .algorithm = SART_GAUSS_SEIDEL, .approx = SART_HOLD,
	                       .logger = logger, .logger_env = &p, .on_point = collect,
	                       .point_env = &p, .locate_events = 1, .event_indicator = {1, I_X},
	                       .event_tolerance = 1e-9};
	/* Jacobi with one iteration is exact too (the second pass sees a's end value): each
	 * trial step then rolls back inside itself as well */
	if (*(int *)*state) {
		o.algorithm = SART_JACOBI;
		o.iterations = 1;
	}
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_int_equal(r.events, 1);
	int e = first_after(&p, 0.9 + 1e-12);
	assert_int_equal(e, 4);
	assert_true(p.t[e] >= 1.0);
	assert_true(p.t[e] <= 1.0 + 1e-9);
	assert_close(p.v[e][0], p.t[e] * p.t[e] / 2 - 0.5, 1e-12);
	assert_close(p.v[e][1], p.t[e], 1e-12);
	assert_close(p.t[e + 1], 1.2, 1e-12);
	assert_close(p.v[e + 1][0], 1.2 * 1.2 / 2 - 0.5, 1e-12);
	assert_int_equal(p.n, 9); /* 0 .. 0.9, the event, 1.2 .. 2.1 */
	/* regula falsi with Illinois needs few trials for a smooth crossing */
	assert_true(r.event_trials <= 12);
}

/* Under prediction step control: a alone (u = 1, x0 = -0.37) has no connection, so every
 * error estimate is 0 and the step doubles up to max_step 0.2; the crossing at 0.37 is
 * located all the same, and the controller goes on from there. */
static void ramp__prediction_control__located(void **state)
{
	(void)state;
	SartFmu fmus[] = {integrator("a", ALL_CAPS)};
	SartStart starts[] = {{{0, I_U}, 1}, {{0, I_X0}, -0.37}};
	SartRef recs[] = {{0, I_X}};
	SartScenario sc = {fmus, 1, NULL, 0, starts, 2, recs, 1};
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.05, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .logger = logger, .logger_env = &p,
	                       .on_point = collect, .point_env = &p, .locate_events = 1,
	                       .event_indicator = {0, I_X}, .event_tolerance = 1e-8,
	                       .step_control = SART_STEP_PREDICTION, .max_step = 0.2};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_int_equal(r.events, 1);
	int e = first_after(&p, 0.35 + 1e-12); /* 0, 0.05, 0.15, 0.35, then the event */
	assert_close(p.t[e - 1], 0.35, 1e-12);
	assert_true(p.t[e] >= 0.37 && p.t[e] <= 0.37 + 1e-8);
	assert_close(p.v[e][0], p.t[e] - 0.37, 1e-12);
	assert_true(p.t[p.n - 1] == 1.0);
	for (int i = 0; i < p.n; i++)
		assert_close(p.v[i][0], p.t[i] - 0.37, 1e-12);
}

static void refused__without_state_or_output_or_with_step_control(void **state)
{
	(void)state;
	SartFmu fmus[] = {integrator("a", ALL_CAPS), integrator("b", SART_CAP_INPUT_DERIVATIVES)};
	SartConnection conns[] = {{{0, I_X}, {1, I_U}, 1, 0, NULL, NULL, 0}};
	SartStart starts[] = {{{0, I_U}, 1}, {{0, I_X0}, -0.37}};
	SartRef recs[] = {{0, I_X}};
	SartScenario sc = {fmus, 2, conns, 1, starts, 2, recs, 1};
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .logger = logger, .logger_env = &p,
	                       .on_point = collect, .point_env = &p, .locate_events = 1,
	                       .event_indicator = {0, I_X}, .event_tolerance = 1e-6};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "event location on a.x redoes the step across the crossing "
	                "shorter from every FMU's state at its start, and b cannot get and set "
	                "its state");
	assert_int_equal(p.n, 0);
	fmus[1].caps = ALL_CAPS;
	o.event_indicator = (SartRef){1, I_U};
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "the event indicator b.u must be a Real or Integer output");
	o.event_indicator = (SartRef){1, 9};
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "the event indicator (FMU 2, variable 10) does not exist");
	o.event_indicator = (SartRef){0, I_X};
	o.step_control = SART_STEP_DOUBLING;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "event location needs the states saved and does not work "
	                "with step doubling");
	o.step_control = SART_STEP_FIXED;
	o.no_rollback = 1;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "does not work with no rollback");
	o.no_rollback = 0;
	o.event_tolerance = -1;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "the event tolerance -1 is not a positive number");
	/* and with everything right, the run locates the crossing */
	o.event_tolerance = 0; /* the default, 1e-6 H */
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_int_equal(r.events, 1);
	int e = first_after(&p, 0.3 + 1e-12);
	assert_true(p.t[e] >= 0.37 && p.t[e] <= 0.37 + 1e-7);
}

int main(void)
{
	static int gauss_seidel = 0, jacobi_iterated = 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ramp__crossing__located_within_tolerance_then_grid),
		cmocka_unit_test(ramp__no_crossing__no_event_no_trial),
		cmocka_unit_test_prestate(parabola__crossing__located_within_tolerance, &gauss_seidel),
		cmocka_unit_test_prestate(parabola__crossing__located_within_tolerance,
		                          &jacobi_iterated),
		cmocka_unit_test(ramp__prediction_control__located),
		cmocka_unit_test(refused__without_state_or_output_or_with_step_control),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
