/* test_sart_master.c — the orchestrator core (sart_master.h): strongly connected
 * components and the structural analysis on hand-made graphs, then runs over the real test
 * FMUs with values worked out by hand.
 *
 * The runs couple two `integrator` FMUs (tests/fmus/integrator: x' = u, exact for inputs
 * linear over a step): a with u = 1, so a.x = t, feeding b.u.  With H = 0.1 up to t = 1,
 * b.x(1) is
 *   Jacobi, hold                    H^2 n (n - 1) / 2 = 0.45   (b sees a.x(t_n) over the step)
 *   Gauss-Seidel                    t^2 / 2 = 0.5              (linear from a.x(t_n) to a.x(t_n+1))
 *   Jacobi, linear extrapolation    H^2 (n^2 - 1) / 2 = 0.495  (exact but for the held first step)
 *   Jacobi, one iteration           0.5                        (the second pass sees the first's end)
 * The controller's 1 s emergency timer makes it discard a step that crosses the expiry.
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

#define INTEGRATOR_GUID "{3f6c1d2e-8a47-4b95-9e0d-7c2a5b1f4e83}"
#define CONTROLLER_GUID "{8e2b5f17-4d09-4c6a-a3f8-1b7e9d0c2a64}"
#define OBSTACLE_GUID "{5d21a8f0-6c3b-4e97-b2d4-8f1e0a9c7b02}"
#define AFFINE_GUID "{a7f1e0c4-2b39-4d5e-8c61-0f9b3e7d2a15}"

#include "assert_contains.h"
#include "master_points.h"

/* ---- sart_scc ------------------------------------------------------------------------------- */

static void scc__chain__one_component_per_node_in_order(void **state)
{
	(void)state;
	int from[] = {2, 0}, to[] = {1, 2};
	int comp[3], order[3];
	assert_int_equal(sart_scc(3, 2, from, to, comp, order), 3);
	/* 0 -> 2 -> 1 */
	assert_int_equal(comp[0], 0);
	assert_int_equal(comp[2], 1);
	assert_int_equal(comp[1], 2);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
}

static void scc__cycle_with_tail__cycle_is_one_component(void **state)
{
	(void)state;
	/* 3 -> 1 -> 2 -> 1, 2 -> 0 */
	int from[] = {3, 1, 2, 2}, to[] = {1, 2, 1, 0};
	int comp[4], order[4];
	assert_int_equal(sart_scc(4, 4, from, to, comp, order), 3);
	assert_int_equal(comp[3], 0);
	assert_int_equal(comp[1], 1);
	assert_int_equal(comp[2], 1);
	assert_int_equal(comp[0], 2);
	int want[] = {3, 1, 2, 0};
	for (int i = 0; i < 4; i++)
		assert_int_equal(order[i], want[i]);
}

static void scc__no_edges__index_order(void **state)
{
	(void)state;
	int comp[5], order[5];
	assert_int_equal(sart_scc(5, 0, NULL, NULL, comp, order), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(comp[i], i);
		assert_int_equal(order[i], i);
	}
	/* two cycles and a self-loop: {0, 4}, {1}, {2, 3}; 4 -> 2 */
	int from[] = {0, 4, 1, 2, 3, 4}, to[] = {4, 0, 1, 3, 2, 2};
	assert_int_equal(sart_scc(5, 6, from, to, comp, order), 3);
	assert_int_equal(comp[0], comp[4]);
	assert_int_equal(comp[2], comp[3]);
	assert_true(comp[0] < comp[2]);
	assert_int_not_equal(comp[1], comp[0]);
	assert_int_not_equal(comp[1], comp[2]);
}

/* ---- analysis ---------------------------------------------------------------------------- */

/* A hand-made FMU with input u (0) and output y (1) that depends on u when mealy. */
static const int dep_u[] = {0};
static const SartVar mealy_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"y", 1, SART_REAL, SART_CAUS_OUTPUT, dep_u, 1, 0, 0},
};
static const SartVar moore_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"y", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
};
static const SartVar unknown_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"y", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, -1, 0, 0}, /* dependencies not given */
};

static SartFmu fake(const char *name, const SartVar *vars)
{
	return (SartFmu){name, "/nonexistent", name, "{}", SART_FMI2, 0, vars, 2};
}

static void analyse__mealy_feedback__loop_named(void **state)
{
	(void)state;
	SartFmu fmus[] = {fake("A", mealy_vars), fake("B", unknown_vars), fake("C", moore_vars)};
	fmus[2].caps = SART_CAP_INPUT_DERIVATIVES; /* reactive: not delayed, so ordered */
	SartConnection conns[] = {
		{{0, 1}, {1, 0}, 1, 0, NULL, NULL, 0}, /* A.y -> B.u */
		{{1, 1}, {0, 0}, 1, 0, NULL, NULL, 0}, /* B.y -> A.u */
		{{1, 1}, {2, 0}, 1, 0, NULL, NULL, 0}, /* B.y -> C.u */
	};
	SartScenario sc = {fmus, 3, conns, 3, NULL, 0, NULL, 0};
	SartAnalysis *a;
	char err[256];
	assert_int_equal(sart_analyse(&sc, &a, err, sizeof err), 0);
	assert_int_equal(a->nports, 6);
	assert_int_equal(a->nedges, 5);
	assert_int_equal(a->nloops, 1);
	char text[256];
	sart_loop_text(&sc, a, 0, text, sizeof text);
	assert_contains(text, "A.u");
	assert_contains(text, "A.y");
	assert_contains(text, "B.u");
	assert_contains(text, "B.y");
	assert_null(strstr(text, "C."));
	/* the loop comes before C, which it feeds */
	assert_int_equal(a->fmu_order[2], 2);

	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD};
	SartMasterResult r;
	/* a loop is no longer refused (test_sart_loops.c solves them): these FMUs do not load */
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "A: cannot load the FMU");
	sart_analysis_free(a);
}

static void analyse__moore_feedback__no_loop_and_order(void **state)
{
	(void)state;
	/* C feeds A, A and B feed each other (Moore): the order is C, then A, B */
	SartFmu fmus[] = {fake("A", moore_vars), fake("B", moore_vars), fake("C", moore_vars)};
	SartConnection conns[] = {
		{{0, 1}, {1, 0}, 1, 0, NULL, NULL, 0},
		{{1, 1}, {0, 0}, 1, 0, NULL, NULL, 0},
		{{2, 1}, {2, 0}, 1, 0, NULL, NULL, 0}, /* C feeds itself: no loop without feedthrough */
	};
	SartScenario sc = {fmus, 3, conns, 3, NULL, 0, NULL, 0};
	SartAnalysis *a;
	char err[256];
	assert_int_equal(sart_analyse(&sc, &a, err, sizeof err), 0);
	assert_int_equal(a->nloops, 0);
	assert_int_equal(a->ncomps, 6);
	assert_int_equal(a->fmu_order[0], 0);
	assert_int_equal(a->fmu_order[1], 1);
	assert_int_equal(a->fmu_order[2], 2);
	assert_int_equal(a->fmu_comp[0], a->fmu_comp[1]);
	/* initialization: every output before the input it feeds */
	for (int e = 0; e < a->nedges; e++)
		assert_true(a->comp[a->edge_from[e]] < a->comp[a->edge_to[e]]);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	sart_analysis_print(f, &sc, a);
	fclose(f);
	assert_contains(text, "A.y -> B.u  (connection)");
	assert_contains(text, "execution order (Gauss-Seidel): A, B, C");
	assert_contains(text, "algebraic loops: none");
	assert_contains(text, "delayed (stepped first, with their inputs at t_n): A, B, C");
	free(text);
	sart_analysis_free(a);
}

static void analyse__input_to_input__refused(void **state)
{
	(void)state;
	SartFmu fmus[] = {fake("A", moore_vars), fake("B", moore_vars)};
	SartConnection bad[] = {{{0, 0}, {1, 0}, 1, 0, NULL, NULL, 0}};
	SartScenario sc = {fmus, 2, bad, 1, NULL, 0, NULL, 0};
	SartAnalysis *a = NULL;
	char err[256];
	assert_int_equal(sart_analyse(&sc, &a, err, sizeof err), -1);
	assert_null(a);
	assert_contains(err, "A.u -> B.u does not go from an output to an input");
	SartConnection twice[] = {{{0, 1}, {1, 0}, 1, 0, NULL, NULL, 0}, {{1, 1}, {1, 0}, 1, 0, NULL, NULL, 0}};
	sc.conns = twice;
	sc.nconns = 2;
	assert_int_equal(sart_analyse(&sc, &a, err, sizeof err), -1);
	assert_contains(err, "B.u is fed by more than one connection");
}

/* ---- runs over the test FMUs ------------------------------------------------------------- */

static const SartVar integrator_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"x0", 2, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"fail_at", 3, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"nan_at", 4, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
};
enum { I_U, I_X, I_X0, I_FAIL_AT, I_NAN_AT };

static char *dir_of(const char *model)
{
	char *d = malloc(512);
	snprintf(d, 512, "%s/fmus/%s", test_build_dir(), model);
	return d;
}

/* Every accepted point, and the log. */
/* a (u = 1) -> b, recording a.x and b.x; extra start values appended. */
static int run_chain(SartAlgorithm alg, SartApprox approx, int iterations, double stop,
                     double h, const SartStart *extra, int nextra, unsigned caps_b,
                     Points *p, SartMasterResult *r)
{
	char *dir = dir_of("integrator");
	SartFmu fmus[] = {
		{"a", dir, "integrator", INTEGRATOR_GUID, SART_FMI2,
		 SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES, integrator_vars, 5},
		{"b", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, caps_b, integrator_vars, 5},
	};
	SartConnection conns[] = {{{0, I_X}, {1, I_U}, 1, 0, NULL, NULL, 0}};
	SartStart starts[8] = {{{0, I_U}, 1.0}};
	for (int i = 0; i < nextra; i++)
		starts[1 + i] = extra[i];
	SartRef recs[] = {{0, I_X}, {1, I_X}};
	SartScenario sc = {fmus, 2, conns, 1, starts, 1 + nextra, recs, 2};
	SartMasterOptions o = {.start = 0, .stop = stop, .step = h, .algorithm = alg,
	                       .approx = approx, .iterations = iterations, .logger = logger,
	                       .logger_env = p, .on_point = collect, .point_env = p};
	memset(p, 0, sizeof *p);
	int rc = sart_master_run(&sc, &o, r);
	free(dir);
	return rc;
}

#define ALL_CAPS (SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES)

static void run__jacobi_hold__lags_one_step(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_chain(SART_JACOBI, SART_HOLD, 0, 1, 0.1, NULL, 0, ALL_CAPS, &p, &r), 0);
	assert_int_equal(p.n, 11);
	assert_int_equal(r.accepted, 10);
	assert_int_equal(r.rejected, 0);
	assert_true(p.t[10] == 1.0); /* exactly on the stop time */
	for (int n = 0; n <= 10; n++) {
		assert_close(p.t[n], 0.1 * n, 1e-12);
		assert_close(p.v[n][0], 0.1 * n, 1e-12);
		assert_close(p.v[n][1], 0.01 * n * (n - 1) / 2, 1e-12);
	}
}

static void run__gauss_seidel__linear_old_to_new_is_exact(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_chain(SART_GAUSS_SEIDEL, SART_HOLD, 0, 1, 0.1, NULL, 0, ALL_CAPS, &p,
	                           &r), 0);
	assert_int_equal(p.n, 11);
	for (int n = 0; n <= 10; n++)
		assert_close(p.v[n][1], 0.01 * n * n / 2, 1e-12);
	/* b without canInterpolateInputs is delayed (x does not depend on u): stepped first,
	 * it holds a.x(t_n) as in Jacobi: H^2 n (n - 1) / 2 */
	assert_int_equal(run_chain(SART_GAUSS_SEIDEL, SART_HOLD, 0, 1, 0.1, NULL, 0,
	                           SART_CAP_GET_SET_STATE, &p, &r), 0);
	assert_close(p.v[10][1], 0.45, 1e-12);
}

static void run__jacobi_linear__extrapolates_after_first_step(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_chain(SART_JACOBI, SART_LINEAR, 0, 1, 0.1, NULL, 0, ALL_CAPS, &p, &r),
	                 0);
	assert_close(p.v[1][1], 0.0, 1e-12); /* held on the first step */
	for (int n = 1; n <= 10; n++)
		assert_close(p.v[n][1], 0.01 * (n * n - 1) / 2, 1e-12);
}

static void run__jacobi_iteration__second_pass_exact(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_chain(SART_JACOBI, SART_HOLD, 1, 1, 0.1, NULL, 0, ALL_CAPS, &p, &r), 0);
	for (int n = 0; n <= 10; n++)
		assert_close(p.v[n][1], 0.01 * n * n / 2, 1e-12);
	assert_int_equal(r.iterations, 10);
	assert_int_equal(r.rollbacks, 10);
	/* iterations need every FMU to roll back */
	assert_int_equal(run_chain(SART_JACOBI, SART_HOLD, 1, 1, 0.1, NULL, 0,
	                           SART_CAP_INPUT_DERIVATIVES, &p, &r), 1);
	assert_contains(r.message, "b cannot get and set its state");
	assert_int_equal(p.n, 0);
}

static void run__stop_not_on_grid__last_step_shortened(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	assert_int_equal(run_chain(SART_GAUSS_SEIDEL, SART_HOLD, 0, 1, 0.3, NULL, 0, ALL_CAPS, &p,
	                           &r), 0);
	assert_int_equal(p.n, 5);
	assert_close(p.t[3], 0.9, 1e-12);
	assert_true(p.t[4] == 1.0);
	assert_close(p.v[4][0], 1.0, 1e-12);
	assert_close(p.v[4][1], 0.5, 1e-12);
}

static void run__fmu_fails__accepted_points_kept(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	SartStart fail_b[] = {{{1, I_FAIL_AT}, 0.35}};
	assert_int_equal(run_chain(SART_GAUSS_SEIDEL, SART_HOLD, 0, 1, 0.1, fail_b, 1, ALL_CAPS, &p,
	                           &r), 1);
	assert_int_equal(p.n, 4); /* 0, 0.1, 0.2, 0.3 */
	assert_close(p.t[3], 0.3, 1e-12);
	assert_int_equal(r.accepted, 3);
	assert_close(r.t, 0.3, 1e-12);
	assert_contains(r.message, "[b] fmi2DoStep(t = 0.3");
	assert_contains(r.message, "returned fmi2Error");
	/* the FMU's own words were passed on, the seam's failure message only once */
	assert_contains(p.log, "fail_at = 0.35 reached");
	assert_null(strstr(strstr(p.log, "returned fmi2Error") + 1, "returned fmi2Error"));
}

static void run__nan_on_connection__error_at_that_step(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	SartStart nan_a[] = {{{0, I_NAN_AT}, 0.25}};
	assert_int_equal(run_chain(SART_JACOBI, SART_HOLD, 0, 1, 0.1, nan_a, 1, ALL_CAPS, &p, &r),
	                 1);
	assert_int_equal(p.n, 3); /* 0, 0.1, 0.2: the step to 0.3 produced the NaN */
	assert_contains(r.message, "at t = 0.3");
	assert_contains(r.message, "a.x is nan");
}

/* Jacobi with held inputs takes the master's fast first pass (plain_pass): a converted
 * connection b.u = 2 a.x + 1, a failing step and a NaN must come out as on the general
 * path.  a.x = t, so b.x_n = sum_{j<n} H (2 j H + 1) = H (H n (n - 1) + n). */
static void run__jacobi_fast_path__converts_and_reports(void **state)
{
	(void)state;
	char *dir = dir_of("integrator");
	SartFmu fmus[] = {
		{"a", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, ALL_CAPS, integrator_vars, 5},
		{"b", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, ALL_CAPS, integrator_vars, 5},
	};
	SartConnection conns[] = {{{0, I_X}, {1, I_U}, 2, 1, NULL, NULL, 0}};
	SartStart starts[] = {{{0, I_U}, 1.0}, {{1, I_FAIL_AT}, -1}};
	SartRef recs[] = {{1, I_X}, {0, I_X}};
	SartScenario sc = {fmus, 2, conns, 1, starts, 2, recs, 2};
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .logger = logger, .logger_env = &p,
	                       .on_point = collect, .point_env = &p};
	for (int no_rollback = 0; no_rollback <= 1; no_rollback++) {
		o.no_rollback = no_rollback;
		memset(&p, 0, sizeof p);
		assert_int_equal(sart_master_run(&sc, &o, &r), 0);
		assert_int_equal(p.n, 11);
		assert_int_equal(r.rollbacks, 0);
		for (int n = 0; n <= 10; n++) {
			assert_close(p.v[n][1], 0.1 * n, 1e-12);
			assert_close(p.v[n][0], 0.1 * (0.1 * n * (n - 1) + n), 1e-12);
		}
	}
	assert_close(r.h_min, 0.1, 1e-12);
	assert_close(r.h_max, 0.1, 1e-12);
	assert_true(r.t == 1.0);
	starts[1].value = 0.35;
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_int_equal(p.n, 4);
	assert_contains(r.message, "[b] fmi2DoStep(t = 0.3");
	assert_contains(r.message, "returned fmi2Error");
	assert_int_equal(r.accepted, 3);
	assert_close(r.t, 0.3, 1e-12);
	/* a NaN read on the fast path: that step is not accepted */
	starts[1] = (SartStart){{0, I_NAN_AT}, 0.25};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_int_equal(p.n, 3);
	assert_contains(r.message, "at t = 0.30000000000000004: a.x is nan, and it feeds a "
	                "connection");
	assert_close(r.t, 0.2, 1e-12);
	/* no_rollback contradicts what rolls back */
	o.iterations = 1;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "with no rollback there is no state to go back to, and iterations");
	free(dir);
}

static const int affine_deps[] = {0, 4};
static const SartVar affine_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"y", 1, SART_REAL, SART_CAUS_OUTPUT, affine_deps, 2, 0, 0},
	{"gain", 2, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"offset", 3, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"w", 4, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
};

/* The fast pass sets an FMU's inputs straight from the signals when they are a range of
 * them in its input order; here they are not (aff.w <- b.x is connected first, aff.u <- a.x
 * second), so they go through the flat table.  a.x = t, b.x = 2 t, held:
 * aff.y(t_n+1) = 3 a.x(t_n) + 0.5 + b.x(t_n) = 5 t_n + 0.5. */
static void run__jacobi_fast_path__inputs_out_of_signal_order(void **state)
{
	(void)state;
	char *dir = dir_of("integrator"), *adir = dir_of("affine");
	SartFmu fmus[] = {
		{"a", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, ALL_CAPS, integrator_vars, 5},
		{"b", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, ALL_CAPS, integrator_vars, 5},
		{"aff", adir, "affine", AFFINE_GUID, SART_FMI2, ALL_CAPS, affine_vars, 5},
	};
	SartConnection conns[] = {{{1, I_X}, {2, 4}, 1, 0, NULL, NULL, 0}, {{0, I_X}, {2, 0}, 1, 0, NULL, NULL, 0}};
	SartStart starts[] = {{{0, I_U}, 1.0}, {{1, I_U}, 2.0}, {{2, 2}, 3.0}, {{2, 3}, 0.5}};
	SartRef recs[] = {{2, 1}};
	SartScenario sc = {fmus, 3, conns, 2, starts, 4, recs, 1};
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .logger = logger, .logger_env = &p,
	                       .on_point = collect, .point_env = &p, .no_rollback = 1};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_int_equal(p.n, 11);
	assert_close(p.v[0][0], 0.5, 1e-12);
	for (int n = 1; n <= 10; n++)
		assert_close(p.v[n][0], 5 * 0.1 * (n - 1) + 0.5, 1e-12);
	free(dir);
	free(adir);
}

/* A cycle of two integrators, b (reactive, declared first) and a (delayed: no
 * canInterpolateInputs, x independent of u): a.x -> b.u, b.x -> a.u, a.x0 = 1, so
 * a' = b, b' = a.  Gauss-Seidel steps a first with b(t_n) held, then b with its input
 * linear from a(t_n) to a(t_n+1):
 *     a_n+1 = a_n + H b_n,   b_n+1 = b_n + H (a_n + a_n+1) / 2.
 * (Declaration order, as before, stepped b first with a(t_n) held, then a with b(t_n+1).) */
static void run__delayed_fmu__stepped_first_with_old_inputs(void **state)
{
	(void)state;
	char *dir = dir_of("integrator");
	SartFmu fmus[] = {
		{"b", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, ALL_CAPS, integrator_vars, 5},
		{"a", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, SART_CAP_GET_SET_STATE,
		 integrator_vars, 5},
	};
	SartConnection conns[] = {{{1, I_X}, {0, I_U}, 1, 0, NULL, NULL, 0}, {{0, I_X}, {1, I_U}, 1, 0, NULL, NULL, 0}};
	SartStart starts[] = {{{1, I_X0}, 1.0}};
	SartRef recs[] = {{1, I_X}, {0, I_X}};
	SartScenario sc = {fmus, 2, conns, 2, starts, 1, recs, 2};
	SartAnalysis *an;
	char err[256];
	assert_int_equal(sart_analyse(&sc, &an, err, sizeof err), 0);
	assert_int_equal(an->delayed[0], 0);
	assert_int_equal(an->delayed[1], 1);
	assert_int_equal(an->fmu_order[0], 1); /* a, then b */
	assert_int_equal(an->fmu_order[1], 0);
	sart_analysis_free(an);
	Points p;
	SartMasterResult r;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1,
	                       .algorithm = SART_GAUSS_SEIDEL, .approx = SART_HOLD,
	                       .logger = logger, .logger_env = &p, .on_point = collect,
	                       .point_env = &p};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_int_equal(p.n, 11);
	double a = 1, b = 0;
	for (int n = 0; n <= 10; n++) {
		assert_close(p.v[n][0], a, 1e-12);
		assert_close(p.v[n][1], b, 1e-12);
		double a1 = a + 0.1 * b;
		b += 0.1 * (a + a1) / 2;
		a = a1;
	}
	assert_close(p.v[1][0], 1.0, 1e-15);  /* a_1 = 1 + H 0 */
	assert_close(p.v[1][1], 0.1, 1e-15);  /* b_1 = H (1 + 1) / 2 */
	assert_close(p.v[2][0], 1.01, 1e-15); /* a_2 = 1 + H 0.1 */
	assert_close(p.v[2][1], 0.2005, 1e-15); /* b_2 = 0.1 + H (1 + 1.01) / 2 */
	/* with iterations, a still sees b(t_n) only: the same values */
	o.iterations = 2;
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_close(p.v[2][1], 0.2005, 1e-15);
	free(dir);
}

static const SartVar controller_vars[] = {
	{"obj_detected", 0, SART_BOOLEAN, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"down", 8, SART_BOOLEAN, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"chart_state", 0, SART_INTEGER, SART_CAUS_OTHER, NULL, 0, 0, 0},
};

static int run_controller_opts(unsigned caps, int no_rollback, Points *p, SartMasterResult *r)
{
	char *dir = dir_of("controller");
	SartFmu fmus[] = {{"ctl", dir, "controller", CONTROLLER_GUID, SART_FMI2, caps,
	                   controller_vars, 3}};
	SartStart starts[] = {{{0, 0}, 1.0}};
	SartRef recs[] = {{0, 1}, {0, 2}};
	SartScenario sc = {fmus, 1, NULL, 0, starts, 1, recs, 2};
	SartMasterOptions o = {.start = 0, .stop = 2, .step = 0.3,
	                       .algorithm = SART_GAUSS_SEIDEL, .approx = SART_HOLD,
	                       .logger = logger, .logger_env = p, .on_point = collect,
	                       .point_env = p, .no_rollback = no_rollback};
	memset(p, 0, sizeof *p);
	int rc = sart_master_run(&sc, &o, r);
	free(dir);
	return rc;
}

static int run_controller(unsigned caps, Points *p, SartMasterResult *r)
{
	return run_controller_opts(caps, 0, p, r);
}

static void run__discard__redone_to_land_on_expiry(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	/* Emergency from 0.3 to 1.3: the step 1.2 -> 1.5 is discarded at 1.3 and redone; the
	 * next step aims back at the grid 0.3 k (1.5, not 1.6) */
	assert_int_equal(run_controller(SART_CAP_GET_SET_STATE, &p, &r), 0);
	double want[] = {0, 0.3, 0.6, 0.9, 1.2, 1.3, 1.5, 1.8, 2.0};
	assert_int_equal(p.n, 9);
	for (int i = 0; i < 9; i++)
		assert_close(p.t[i], want[i], 1e-12);
	assert_true(p.t[8] == 2.0);
	assert_int_equal(r.accepted, 8);
	assert_int_equal(r.rejected, 1);
	assert_int_equal(r.rollbacks, 1);
	assert_close(p.v[1][0], 1, 0);  /* down in Emergency */
	assert_close(p.v[1][1], 5, 0);  /* chart_state Emergency */

	/* told to save no state, the discard cannot be redone either */
	assert_int_equal(run_controller_opts(SART_CAP_GET_SET_STATE, 1, &p, &r), 1);
	assert_contains(r.message, "ctl discarded the step from t = 1.2");
	assert_contains(r.message, "save none (no rollback)");
	assert_int_equal(r.rollbacks, 0);
	assert_int_equal(p.n, 5);

	/* without get/set state the discard cannot be redone: a clear error */
	assert_int_equal(run_controller(0, &p, &r), 1);
	assert_contains(r.message, "ctl discarded the step from t = 1.2");
	assert_contains(r.message, "ctl cannot");
	assert_int_equal(p.n, 5);
}

static const SartVar obstacle_vars[] = {
	{"disp", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"reaction_force", 1, SART_REAL, SART_CAUS_OUTPUT, dep_u, 1, 0, 0},
};

static void run__bad_options_and_load__reported(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	char *dir = dir_of("obstacle");
	SartFmu fmus[] = {{"obs", dir, "obstacle", "{wrong}", SART_FMI2, 0, obstacle_vars, 2}};
	SartRef recs[] = {{0, 1}};
	SartScenario sc = {fmus, 1, NULL, 0, NULL, 0, recs, 1};
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .logger = logger, .logger_env = &p,
	                       .on_point = collect, .point_env = &p};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "step size 0 is not positive");
	o.step = 0.1;
	assert_int_equal(sart_master_run(&sc, &o, &r), 1);
	assert_contains(r.message, "[obs]");
	assert_int_equal(p.n, 0);
	/* the right GUID: a Mealy FMU alone runs, its output following the held input */
	fmus[0].guid = OBSTACLE_GUID;
	assert_int_equal(sart_master_run(&sc, &o, &r), 0);
	assert_int_equal(p.n, 11);
	assert_close(p.v[10][0], 0.0, 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scc__chain__one_component_per_node_in_order),
		cmocka_unit_test(scc__cycle_with_tail__cycle_is_one_component),
		cmocka_unit_test(scc__no_edges__index_order),
		cmocka_unit_test(analyse__mealy_feedback__loop_named),
		cmocka_unit_test(analyse__moore_feedback__no_loop_and_order),
		cmocka_unit_test(analyse__input_to_input__refused),
		cmocka_unit_test(run__jacobi_hold__lags_one_step),
		cmocka_unit_test(run__gauss_seidel__linear_old_to_new_is_exact),
		cmocka_unit_test(run__jacobi_linear__extrapolates_after_first_step),
		cmocka_unit_test(run__jacobi_iteration__second_pass_exact),
		cmocka_unit_test(run__stop_not_on_grid__last_step_shortened),
		cmocka_unit_test(run__fmu_fails__accepted_points_kept),
		cmocka_unit_test(run__nan_on_connection__error_at_that_step),
		cmocka_unit_test(run__jacobi_fast_path__converts_and_reports),
		cmocka_unit_test(run__jacobi_fast_path__inputs_out_of_signal_order),
		cmocka_unit_test(run__delayed_fmu__stepped_first_with_old_inputs),
		cmocka_unit_test(run__discard__redone_to_land_on_expiry),
		cmocka_unit_test(run__bad_options_and_load__reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
