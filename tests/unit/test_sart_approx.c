/* test_sart_approx.c — the orchestrator's higher-order input approximations
 * (SART_QUADRATIC, SART_HERMITE) against values known exactly.
 *
 * Two `poly` FMUs (tests/fmus/poly): src's output s = c0 + c1 t + c2 t^2 + c3 t^3 feeds
 * dst's input u; dst's output y is u as dst saw it at the end of its last step (what the
 * master's extrapolation made of s there), and x integrates u exactly for inputs quadratic
 * over a step.  With communication points t_n = n H (Jacobi, H = 0.1):
 *   - quadratic, dst taking second derivatives: after three points, y(t_n+1) is the parabola
 *     through s(t_n-2), s(t_n-1), s(t_n) at t_n+1, whose error for a cubic is exactly
 *     -6 c3 H^3 (the interpolation error -c3 (t - t_n)(t - t_n-1)(t - t_n-2)): exact for a
 *     quadratic s, third order for a cubic; x's increment is the parabola's integral;
 *   - quadratic, dst taking first derivatives only: the chord to the parabola's end value,
 *     so y the same and x's increment the trapezoid H (s(t_n) + y(t_n+1)) / 2;
 *   - before three points: held on the first step, linear on the second;
 *   - Hermite: y(t_n+1) = s(t_n) + s'(t_n) H from src's fmi2GetRealOutputDerivatives; a
 *     source without SART_CAP_OUTPUT_DERIVATIVES falls back to linear extrapolation;
 *   - a chain src (s = t^3) -> a -> b, exact a.x = t^4 / 4, b.x = t^5 / 20: the observed
 *     global order of the coupling error, 2 for linear, 3 for quadratic.
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

#define POLY_GUID "{2c8e4a61-7b3d-4f09-a5e2-9d1c6b0f8e37}"
#define H 0.1

static const SartVar poly_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"y", 2, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"s", 3, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"x0", 4, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"c0", 5, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"c1", 6, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"c2", 7, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"c3", 8, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
};
enum { P_U, P_X, P_Y, P_S, P_X0, P_C0, P_C1, P_C2, P_C3 };

#define BASE_CAPS (SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES)

/* the source's coefficients */
static const double C0 = 0.5, C1 = -1.0, C2 = 3.0;

static double src(double c3, double t)
{
	return C0 + t * (C1 + t * (C2 + t * c3));
}

static double dsrc(double c3, double t)
{
	return C1 + t * (2 * C2 + 3 * c3 * t);
}

/* src.s -> dst.u over [0, 1], Jacobi with H; records dst.y, dst.x, src.s. */
static int run_pair(SartApprox approx, unsigned src_caps, unsigned dst_caps, double c3,
                    Points *p, SartMasterResult *r)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus/poly", test_build_dir());
	SartFmu fmus[] = {
		{"src", dir, "poly", POLY_GUID, SART_FMI2, src_caps, poly_vars, 9},
		{"dst", dir, "poly", POLY_GUID, SART_FMI2, dst_caps, poly_vars, 9},
	};
	SartConnection conns[] = {{{0, P_S}, {1, P_U}, 1, 0, NULL, NULL, 0}};
	SartStart starts[] = {{{0, P_C0}, C0}, {{0, P_C1}, C1}, {{0, P_C2}, C2}, {{0, P_C3}, c3}};
	SartRef recs[] = {{1, P_Y}, {1, P_X}, {0, P_S}};
	SartScenario sc = {fmus, 2, conns, 1, starts, 4, recs, 3};
	SartMasterOptions o = {.start = 0, .stop = 1, .step = H, .algorithm = SART_JACOBI,
	                       .approx = approx, .logger = logger, .logger_env = p,
	                       .on_point = collect, .point_env = p};
	memset(p, 0, sizeof *p);
	return sart_master_run(&sc, &o, r);
}

static void quadratic__quadratic_signal__extrapolated_exactly(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_pair(SART_QUADRATIC, BASE_CAPS,
	                          BASE_CAPS | SART_CAP_INPUT_ORDER2, 0, &p, &r), 0);
	assert_int_equal(p.n, 11);
	/* start-up: held, then linear */
	assert_close(p.v[1][0], src(0, 0), 1e-14);
	assert_close(p.v[2][0], 2 * src(0, H) - src(0, 0), 1e-14);
	assert_true(fabs(p.v[2][0] - src(0, 2 * H)) > 1e-3); /* linear is not exact here */
	for (int n = 3; n <= 10; n++) {
		double t1 = n * H, t0 = t1 - H;
		assert_close(p.t[n], t1, 1e-12);
		assert_close(p.v[n][0], src(0, t1), 1e-12);
		assert_close(p.v[n][2], src(0, t1), 1e-12);
		/* x integrates the parabola exactly: S(t) = C0 t + C1 t^2 / 2 + C2 t^3 / 3 */
		double dS = C0 * (t1 - t0) + C1 * (t1 * t1 - t0 * t0) / 2 +
		            C2 * (t1 * t1 * t1 - t0 * t0 * t0) / 3;
		assert_close(p.v[n][1] - p.v[n - 1][1], dS, 1e-12);
	}
}

static void quadratic__cubic_signal__third_order_error(void **state)
{
	(void)state;
	const double c3 = 2.0;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_pair(SART_QUADRATIC, BASE_CAPS,
	                          BASE_CAPS | SART_CAP_INPUT_ORDER2, c3, &p, &r), 0);
	for (int n = 3; n <= 10; n++)
		assert_close(p.v[n][0] - src(c3, n * H), -6 * c3 * H * H * H, 1e-12);
}

static void quadratic__first_order_receiver__chord_to_the_parabola(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_pair(SART_QUADRATIC, BASE_CAPS, BASE_CAPS, 0, &p, &r), 0);
	for (int n = 3; n <= 10; n++) {
		double t1 = n * H, t0 = t1 - H;
		assert_close(p.v[n][0], src(0, t1), 1e-12);
		assert_close(p.v[n][1] - p.v[n - 1][1], H * (src(0, t0) + src(0, t1)) / 2, 1e-12);
	}
}

static void hermite__source_derivatives__tangent_from_the_first_step(void **state)
{
	(void)state;
	const double c3 = 2.0;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_pair(SART_HERMITE, BASE_CAPS | SART_CAP_OUTPUT_DERIVATIVES,
	                          BASE_CAPS, c3, &p, &r), 0);
	assert_int_equal(p.n, 11);
	for (int n = 1; n <= 10; n++) {
		double t0 = (n - 1) * H;
		assert_close(p.v[n][0], src(c3, t0) + dsrc(c3, t0) * H, 1e-12);
	}
	/* without output derivatives: linear extrapolation (held on the first step) */
	assert_int_equal(run_pair(SART_HERMITE, BASE_CAPS, BASE_CAPS, c3, &p, &r), 0);
	assert_close(p.v[1][0], src(c3, 0), 1e-14);
	for (int n = 2; n <= 10; n++) {
		double t0 = (n - 1) * H;
		assert_close(p.v[n][0], 2 * src(c3, t0) - src(c3, t0 - H), 1e-12);
	}
}

/* Observed order on a coupled scenario with an exact reference: src (s = t^3) feeds a
 * (x' = u), whose x feeds b, both taking second derivatives, under Jacobi: a.x = t^4 / 4,
 * b.x = t^5 / 20.  The signals start with zero first and second derivatives, so the
 * start-up (held, then linear) costs O(H^4) and the global error shows each scheme's own
 * order: 2 for linear extrapolation, 3 for quadratic.  (On a system whose signals start
 * moving, such as an oscillator, the held first step's O(H^2) dominates both.) */
static double chain_error(SartApprox approx, double h)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus/poly", test_build_dir());
	unsigned caps = BASE_CAPS | SART_CAP_INPUT_ORDER2;
	SartFmu fmus[] = {
		{"src", dir, "poly", POLY_GUID, SART_FMI2, caps, poly_vars, 9},
		{"a", dir, "poly", POLY_GUID, SART_FMI2, caps, poly_vars, 9},
		{"b", dir, "poly", POLY_GUID, SART_FMI2, caps, poly_vars, 9},
	};
	SartConnection conns[] = {{{0, P_S}, {1, P_U}, 1, 0, NULL, NULL, 0}, {{1, P_X}, {2, P_U}, 1, 0, NULL, NULL, 0}};
	SartStart starts[] = {{{0, P_C3}, 1.0}};
	SartRef recs[] = {{1, P_X}, {2, P_X}};
	SartScenario sc = {fmus, 3, conns, 2, starts, 1, recs, 2};
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = h, .algorithm = SART_JACOBI,
	                       .approx = approx, .logger = logger, .logger_env = &p,
	                       .on_point = collect, .point_env = &p};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_true(p.n <= POINTS_MAX);
	double err = 0;
	for (int i = 0; i < p.n; i++) {
		double t = p.t[i];
		err = fmax(err, fmax(fabs(p.v[i][0] - t * t * t * t / 4),
		                     fabs(p.v[i][1] - t * t * t * t * t / 20)));
	}
	return err;
}

static void chain__observed_order__two_linear_three_quadratic(void **state)
{
	(void)state;
	double lin[3], quad[3];
	for (int k = 0; k < 3; k++) {
		double h = 0.1 / (1 << k);
		lin[k] = chain_error(SART_LINEAR, h);
		quad[k] = chain_error(SART_QUADRATIC, h);
		print_message("H = %g: linear %.4e, quadratic %.4e\n", h, lin[k], quad[k]);
	}
	double ol = log2(lin[1] / lin[2]), oq = log2(quad[1] / quad[2]);
	print_message("observed order: linear %.3f, quadratic %.3f\n", ol, oq);
	assert_true(ol > 1.8 && ol < 2.3);
	assert_true(oq > 2.7 && oq < 3.3);
}

static void refused__doubling_and_unknown(void **state)
{
	(void)state;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus/poly", test_build_dir());
	SartFmu fmus[] = {{"src", dir, "poly", POLY_GUID, SART_FMI2, BASE_CAPS, poly_vars, 9}};
	SartScenario sc = {fmus, 1, NULL, 0, NULL, 0, NULL, 0};
	SartMasterOptions o = {.start = 0, .stop = 1, .step = H, .approx = SART_QUADRATIC,
	                       .step_control = SART_STEP_DOUBLING};
	SartMasterResult r;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "step doubling works with hold and linear extrapolation only, "
	                "not with quadratic");
	o.step_control = SART_STEP_FIXED;
	o.approx = (SartApprox)7;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "unknown input approximation 7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quadratic__quadratic_signal__extrapolated_exactly),
		cmocka_unit_test(quadratic__cubic_signal__third_order_error),
		cmocka_unit_test(quadratic__first_order_receiver__chord_to_the_parabola),
		cmocka_unit_test(hermite__source_derivatives__tangent_from_the_first_step),
		cmocka_unit_test(chain__observed_order__two_linear_three_quadratic),
		cmocka_unit_test(refused__doubling_and_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
