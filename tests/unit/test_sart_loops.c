/* test_sart_loops.c — algebraic loops in the orchestrator core (sart_master.h) on
 * the loops of benchmark 2 (bench/loops/loop_scenarios.h): fixed-point
 * iteration converges on contractive loops and is reported as diverging (or not
 * converging within its bound) otherwise; Anderson (m = 1, 2) and Newton solve all three
 * loops to tolerance; loops are solved at initialization and at every communication
 * point, in Jacobi and Gauss-Seidel; a failure names the loop, its variables and the
 * tear variables.
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
#include "../../bench/loops/loop_scenarios.h"

#include "assert_contains.h"
#include "master_points.h"

/* Initialization only (stop = start): the solve at t = 0. */
static int solve_at_init(LoopScenario *ls, SartLoopSolver solver, int memory, int maxit,
                         Points *p, SartMasterResult *r)
{
	SartMasterOptions o = {.start = 0, .stop = 0, .step = 0.1,
	                       .algorithm = SART_GAUSS_SEIDEL, .approx = SART_HOLD,
	                       .on_point = collect, .point_env = p, .loop_solver = solver,
	                       .anderson_memory = memory, .loop_tolerance = 1e-10,
	                       .loop_max_iterations = maxit};
	memset(p, 0, sizeof *p);
	return sart_master_run(&ls->sc, &o, r);
}

static const double gains[][2] = {{1, 0.5}, {1.5, 0.6}, {1.5, -1}, {2, 1}}; /* ab = .5 .9 -1.5 2 */

static void loops__fixed_point_contractive__converges(void **state)
{
	(void)state;
	LoopScenario ls;
	Points p;
	SartMasterResult r;
	for (int i = 0; i < 2; i++) {
		double a = gains[i][0], b = gains[i][1];
		double y1 = (1 - 2 * a) / (1 - a * b), y2 = b * y1 - 2;
		ls_affine(&ls, test_build_dir(), a, b);
		assert_int_equal(solve_at_init(&ls, SART_LOOP_FIXED_POINT, 0, 1000, &p, &r), 0);
		assert_int_equal(p.n, 1);
		/* converged: the last change |G(x) - x| = (1 - ab) |x - x*| <= 1e-10 max(1, |x|),
		 * and the FMUs hold x */
		double bound = 1e-10 * fabs(y2) / (1 - a * b) * 1.01;
		assert_close(p.v[0][0], y1, bound * fabs(a) + 1e-12);
		assert_close(p.v[0][1], y2, bound + 1e-12);
		assert_int_equal(r.loop_solves, 1);
		/* one tear variable, unit1.u = y2, from 0: the change starts at (1 - ab) |y2| and
		 * shrinks by ab per pass */
		double want = ceil(log(1e-10 / (1 - a * b)) / log(a * b));
		assert_true(fabs((double)r.loop_iterations - want) <= 1);
		assert_int_equal(r.loop_evaluations, r.loop_iterations + 1);
	}
}

static void loops__fixed_point_expansive__diverges(void **state)
{
	(void)state;
	LoopScenario ls;
	Points p;
	SartMasterResult r;
	/* ab = 0.9 contracts, but too slowly for 100 iterations (it needs 197) */
	ls_affine(&ls, test_build_dir(), 1.5, 0.6);
	assert_int_equal(solve_at_init(&ls, SART_LOOP_FIXED_POINT, 0, 100, &p, &r), 1);
	assert_int_equal(r.loop_outcome, SART_LOOP_NOT_CONVERGED);
	assert_contains(r.message, "at t = 0 (initialization): algebraic loop 1 (");
	assert_contains(r.message, "unit1.u");
	assert_contains(r.message, "unit2.y");
	assert_contains(r.message, "did not converge in 100 iterations of fixed-point iteration");
	assert_contains(r.message, "tear variables: unit1.u = ");
	assert_int_equal(p.n, 0);
	for (int i = 2; i < 4; i++) {
		ls_affine(&ls, test_build_dir(), gains[i][0], gains[i][1]);
		assert_int_equal(solve_at_init(&ls, SART_LOOP_FIXED_POINT, 0, 200, &p, &r), 1);
		assert_int_equal(r.loop_outcome, SART_LOOP_DIVERGED);
		assert_contains(r.message, "diverged under fixed-point iteration");
		assert_true(r.loop_iterations < 200);
	}
	/* the seed's loop: gain 1.2, iterates 1, 2.2, 3.64, 5.37, ... */
	ls_seed(&ls, test_build_dir());
	assert_int_equal(solve_at_init(&ls, SART_LOOP_FIXED_POINT, 0, 200, &p, &r), 1);
	assert_int_equal(r.loop_outcome, SART_LOOP_DIVERGED);
	assert_contains(r.message, "algebraic loop 1 (A.u, A.y, B.u, B.y) diverged");
	/* the nonlinear loop: the solution a = 0.635 repels (|G'| = c / a = 1.83), and the
	 * iterates leave the sphere, where B.a is NaN */
	ls_nonlinear(&ls, test_build_dir());
	assert_int_equal(solve_at_init(&ls, SART_LOOP_FIXED_POINT, 0, 200, &p, &r), 1);
	assert_int_equal(r.loop_outcome, SART_LOOP_DIVERGED);
	assert_contains(r.message, "B.a became nan");
	assert_contains(r.message, "tear variables: A.a = ");
}

static void check_nonlinear(const Points *p, int k)
{
	assert_close(p->v[k][0], 0.9 - sqrt(0.07), 1e-9);
	assert_close(p->v[k][1], -1.8, 1e-12);
	assert_close(p->v[k][2], 0.9 + sqrt(0.07), 1e-9);
	double a = p->v[k][0], b = p->v[k][1], c = p->v[k][2];
	assert_close(a + b + c, 0, 1e-9);
	assert_close(2 * a - 3 * b + 2 * c, 9, 1e-9);
	assert_close(a * a + b * b + c * c, 5, 1e-9);
}

static void loops__anderson_and_newton__solve_all_three(void **state)
{
	(void)state;
	LoopScenario ls;
	Points p;
	SartMasterResult r;
	const SartLoopSolver solvers[] = {SART_LOOP_ANDERSON, SART_LOOP_ANDERSON, SART_LOOP_NEWTON};
	const int memory[] = {1, 2, 0};
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < 4; i++) {
			double a = gains[i][0], b = gains[i][1];
			double y1 = (1 - 2 * a) / (1 - a * b);
			ls_affine(&ls, test_build_dir(), a, b);
			assert_int_equal(solve_at_init(&ls, solvers[s], memory[s], 200, &p, &r), 0);
			assert_close(p.v[0][0], y1, 1e-9);
			assert_close(p.v[0][1], b * y1 - 2, 1e-9);
			/* linear and scalar: the secant step is exact, Newton's nearly */
			assert_true(r.loop_iterations <= 3);
		}
		ls_seed(&ls, test_build_dir());
		assert_int_equal(solve_at_init(&ls, solvers[s], memory[s], 200, &p, &r), 0);
		assert_close(p.v[0][0], -5, 1e-9);
		assert_close(p.v[0][1], -3, 1e-9);
		ls_nonlinear(&ls, test_build_dir());
		assert_int_equal(solve_at_init(&ls, solvers[s], memory[s], 200, &p, &r), 0);
		check_nonlinear(&p, 0);
		assert_true(r.loop_iterations <= 12);
	}
}

/* An integrator (x = t) drives the affine loop through unit1.w:
 * y1 = a y2 + 1 + w, y2 = b y1 - 2, so y1 = (1 + w - 2a) / (1 - ab). */
static const SartVar integrator_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
};

static int run_driven(SartAlgorithm alg, Points *p, SartMasterResult *r)
{
	LoopScenario ls;
	char dir[600];
	ls_affine(&ls, test_build_dir(), 2, 1);
	snprintf(dir, sizeof dir, "%s/fmus/integrator", test_build_dir());
	ls.fmus[2] = (SartFmu){"clock", dir, "integrator", "{3f6c1d2e-8a47-4b95-9e0d-7c2a5b1f4e83}",
	                       SART_FMI2, SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES,
	                       integrator_vars, 2};
	ls.conns[2] = (SartConnection){{2, 1}, {0, LS_W}, 1, 0, NULL, NULL, 0};
	ls.starts[4] = (SartStart){{2, 0}, 1.0};
	ls.sc.nfmus = 3;
	ls.sc.nconns = 3;
	ls.sc.nstarts = 5;
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .algorithm = alg,
	                       .approx = SART_HOLD, .on_point = collect, .point_env = p,
	                       .loop_solver = SART_LOOP_NEWTON, .loop_tolerance = 1e-12,
	                       .loop_max_iterations = 50};
	memset(p, 0, sizeof *p);
	return sart_master_run(&ls.sc, &o, r);
}

static void loops__driven_loop__solved_at_every_point(void **state)
{
	(void)state;
	Points p;
	SartMasterResult r;
	/* Gauss-Seidel: the clock steps first, the loop sees w = t_n+1 */
	assert_int_equal(run_driven(SART_GAUSS_SEIDEL, &p, &r), 0);
	assert_int_equal(p.n, 11);
	for (int k = 0; k <= 10; k++) {
		double t = 0.1 * k, y1 = (1 + t - 4) / (1 - 2.0);
		assert_close(p.v[k][0], y1, 1e-9);
		assert_close(p.v[k][1], y1 - 2, 1e-9);
	}
	assert_int_equal(r.loop_solves, 11);
	/* Jacobi: the loop is solved at t_n+1 with w held at its value at t_n */
	assert_int_equal(run_driven(SART_JACOBI, &p, &r), 0);
	assert_int_equal(p.n, 11);
	assert_close(p.v[0][0], 3, 1e-9);
	for (int k = 1; k <= 10; k++) {
		double w = 0.1 * (k - 1), y1 = (1 + w - 4) / (1 - 2.0);
		assert_close(p.v[k][0], y1, 1e-9);
	}
	assert_int_equal(r.loop_solves, 11);
}

static void loops__stepping__warm_start_needs_no_iteration(void **state)
{
	(void)state;
	LoopScenario ls;
	Points p;
	SartMasterResult r;
	ls_nonlinear(&ls, test_build_dir());
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.25, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .iterations = 1, .on_point = collect,
	                       .point_env = &p, .loop_solver = SART_LOOP_ANDERSON,
	                       .anderson_memory = 1, .loop_tolerance = 1e-10,
	                       .loop_max_iterations = 100};
	memset(&p, 0, sizeof p);
	assert_int_equal(sart_master_run(&ls.sc, &o, &r), 0);
	assert_int_equal(p.n, 5);
	for (int k = 0; k < 5; k++)
		check_nonlinear(&p, k);
	/* init, then two passes per step (one iteration with rollback) */
	assert_int_equal(r.loop_solves, 1 + 4 * 2);
	long at_init = r.loop_iterations;
	o.stop = 0;
	assert_int_equal(sart_master_run(&ls.sc, &o, &r), 0);
	assert_int_equal(r.loop_iterations, at_init);
}

static void loops__bad_options__refused(void **state)
{
	(void)state;
	LoopScenario ls;
	Points p;
	SartMasterResult r;
	ls_seed(&ls, test_build_dir());
	SartMasterOptions o = {.start = 0, .stop = 1, .step = 0.1, .algorithm = SART_JACOBI,
	                       .approx = SART_HOLD, .on_point = collect, .point_env = &p,
	                       .loop_solver = SART_LOOP_ANDERSON, .anderson_memory = -1};
	assert_int_equal(sart_master_run(&ls.sc, &o, &r), 1);
	assert_contains(r.message, "Anderson memory -1");
	o.anderson_memory = 1;
	o.loop_tolerance = -1;
	assert_int_equal(sart_master_run(&ls.sc, &o, &r), 1);
	assert_contains(r.message, "loop tolerance -1");
	o.loop_tolerance = 0;
	o.loop_max_iterations = -3;
	assert_int_equal(sart_master_run(&ls.sc, &o, &r), 1);
	assert_contains(r.message, "iteration bound -3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loops__fixed_point_contractive__converges),
		cmocka_unit_test(loops__fixed_point_expansive__diverges),
		cmocka_unit_test(loops__anderson_and_newton__solve_all_three),
		cmocka_unit_test(loops__driven_loop__solved_at_every_point),
		cmocka_unit_test(loops__stepping__warm_start_needs_no_iteration),
		cmocka_unit_test(loops__bad_options__refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
