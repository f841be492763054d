/* test_simulate_fmi3.c — `sacc simulate` over the FMI 3.0 test FMUs (build/fmus3/), alone and
 * mixed with FMI 2.0 ones: early returns honoured (the macro step shortened to where the
 * FMU stopped), events handled in Event Mode landing on the exact bounce times, sized
 * types range-checked at the boundary, Binary refused by name (arrays:
 * test_simulate_arrays.c).  Runs the SACC_BUILD
 * binary as a user would (simulate_test.h). */
#define _GNU_SOURCE /* realpath(path, NULL) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

#define G 9.81
#define E 0.7

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_fmi3");
}

/* The bouncing ball's exact solution from x = 1 at rest: the impact times and the
 * integral of x from 0 to T (T after the second impact, before the third). */
static double impact(int k)
{
	double t1 = sqrt(2 / G), v1 = E * G * t1;
	return k == 1 ? t1 : t1 + 2 * v1 / G;
}

static double integral_of_x(double T)
{
	double t1 = impact(1), v1 = E * G * t1, t2 = impact(2), v2 = E * v1;
	double arc = t2 - t1, tail = T - t2;
	return t1 - G * t1 * t1 * t1 / 6 + v1 * arc * arc / 2 - G * arc * arc * arc / 6 +
	       v2 * tail * tail / 2 - G * tail * tail * tail / 6;
}

/* Whether the CSV has a row at time t (within 1e-9) whose column col (1 = the first after
 * time) is within 1e-9 of 0. */
static int row_at_zero(const char *csv, double t, int col)
{
	for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		double v[6] = {0};
		int n = sscanf(p + 1, "%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4]);
		if (n > col && fabs(v[0] - t) < 1e-9 && fabs(v[col]) < 1e-9)
			return 1;
	}
	return 0;
}

/* The value in column col of the last row. */
static double last_value(const char *csv, int col)
{
	const char *last = csv;
	for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		last = p + 1;
	double v[6] = {0};
	assert_true(sscanf(last, "%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4]) > col);
	return v[col];
}

static void simulate_fmi3__events3__lands_on_the_exact_bounces(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/events3.fmu' --stop 1.2 --step 0.01",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	assert_true(strncmp(csv, "time,events3.x,events3.v,events3.bounces\n0,1,0,0\n", 49) == 0);
	/* each impact is a communication point: the early return shortened the step there */
	assert_true(row_at_zero(csv, impact(1), 1));
	assert_true(row_at_zero(csv, impact(2), 1));
	assert_true(last_value(csv, 3) == 2);
	free(csv);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: done at t = 1.2: ");
	free(err);
	assert_tmp_empty(c);
}

static void simulate_fmi3__early3__a_point_at_every_tick(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/early3.fmu' --stop 1 --step 0.3", test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	assert_string_equal(csv, "time,early3.count,early3.last_tick\n"
	                         "0,0,0\n"
	                         "0.1,1,0.1\n"
	                         "0.3,1,0.1\n"
	                         "0.35,2,0.35\n"
	                         "0.6,3,0.6\n"
	                         "0.85,4,0.85\n"
	                         "0.8999999999999999,4,0.85\n"
	                         "1,4,0.85\n");
	free(csv);
	/* without rollback the FMU may not return early: it steps through its ticks */
	snprintf(args, sizeof args, "'%s/fmus3/early3.fmu' --stop 1 --step 0.5 --no-rollback",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	csv = file_in(c, "out.txt");
	assert_string_equal(csv, "time,early3.count,early3.last_tick\n"
	                         "0,0,0\n"
	                         "0.5,2,0.35\n"
	                         "1,4,0.85\n");
	free(csv);
}

static const char mix_sa[] =
	"module mix\n"
	"fmu Ball ball at \"%s/fmus3/events3.fmu\"\n"
	"fmu Integrator area at \"integrator.fmu\"\n"
	"\n"
	"ball.x -> area.u\n";

static void simulate_fmi3__mixed_with_fmi2__both_masters(void **state)
{
	Ctx *c = *state;
	char script[1024], args[1024];
	char *build = realpath(test_build_dir(), NULL); /* the script lies elsewhere */
	assert_non_null(build);
	snprintf(script, sizeof script, mix_sa, build);
	free(build);
	write_text(c, "mix.sa", script);
	const char *masters[] = {"jacobi", "gauss-seidel"};
	const double tol[] = {1e-2, 1e-3}; /* held input vs. the ball's new value */
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof args, "'%s/mix.sa' --stop 1.2 --step 0.01 --master %s", c->dir,
		         masters[i]);
		assert_int_equal(simulate(c, args), 0);
		char *csv = file_in(c, "out.txt");
		assert_true(strncmp(csv, "time,ball.x,ball.v,ball.bounces,area.x\n", 39) == 0);
		assert_true(row_at_zero(csv, impact(1), 1));
		assert_true(row_at_zero(csv, impact(2), 1));
		double area = last_value(csv, 4);
		if (!(fabs(area - integral_of_x(1.2)) < tol[i]))
			print_error("%s: area %.17g, exact %.17g\n", masters[i], area, integral_of_x(1.2));
		assert_true(fabs(area - integral_of_x(1.2)) < tol[i]);
		free(csv);
	}
	assert_tmp_empty(c);
}

static void simulate_fmi3__sized_types__checked_at_the_boundary(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/alltypes3.fmu' --stop 0.1 --step 0.1 "
	         "--set alltypes3.i8_in=-5 --set alltypes3.u64_in=7 --set alltypes3.f32_in=0.1 "
	         "--record alltypes3.i8_out,alltypes3.u64_out,alltypes3.f32_out",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	/* Float32 0.1 widened exactly */
	assert_string_equal(csv, "time,alltypes3.i8_out,alltypes3.u64_out,alltypes3.f32_out\n"
	                         "0,-5,7,0.10000000149011612\n"
	                         "0.1,-5,7,0.10000000149011612\n");
	free(csv);
	snprintf(args, sizeof args, "'%s/fmus3/alltypes3.fmu' --stop 0.1 "
	         "--set alltypes3.i8_in=300", test_build_dir());
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "[alltypes3] fmi3SetInt8: the value 300 for 'i8_in' "
	                     "(valueReference 3) does not fit Int8");
	free(err);
	/* beyond sacc's 32-bit Integer: said so, not taken for a malformed number */
	snprintf(args, sizeof args, "'%s/fmus3/alltypes3.fmu' --stop 0.1 "
	         "--set alltypes3.u64_in=4294967296", test_build_dir());
	assert_int_equal(simulate(c, args), 2);
	err = file_in(c, "err.txt");
	assert_contains(err, "--set alltypes3.u64_in=4294967296: 4294967296 does not fit a "
	                     "32-bit Integer, which sacc exchanges integers as");
	free(err);
	/* a structural parameter keeps its start value, and the refusal says why */
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --stop 0.1 --set array3.n=2",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 2);
	err = file_in(c, "err.txt");
	assert_contains(err, "--set: array3.n=2 cannot be set: a structural parameter, which "
	                     "sacc keeps at its start value");
	free(err);
	/* a Binary is recorded as its bytes in hex, quoted: bin_in's start value, cafe */
	snprintf(args, sizeof args, "'%s/fmus3/alltypes3.fmu' --stop 0.1 --record "
	         "alltypes3.bin_out -o '%s'", test_build_dir(), path_in(c, "bin.csv"));
	assert_int_equal(simulate(c, args), 0);
	csv = file_in(c, "bin.csv");
	assert_string_equal(csv, "time,alltypes3.bin_out\n0,\"cafe\"\n0.1,\"cafe\"\n");
	free(csv);
}

static const char ballw_sa[] =
	"semantic adaptation reactive moore ballw\n"
	"at \"./ballw.fmu\"\n"
	"\n"
	"\tfor inner fmu Ball ball\n"
	"\tat \"%s/fmus3/events3.fmu\"\n"
	"\n"
	"output ports Real x <- ball.x, Integer bounces <- ball.bounces\n";

/* The CSV without its header and first row. */
static const char *after_first_row(const char *csv)
{
	const char *p = strchr(csv, '\n');
	p = p ? strchr(p + 1, '\n') : NULL;
	return p ? p + 1 : "";
}

static void simulate_fmi3__wrapper_over_fmi3_inner__same_as_the_bare_fmu(void **state)
{
	Ctx *c = *state;
	char script[1024], args[1024];
	char *build = realpath(test_build_dir(), NULL);
	assert_non_null(build);
	snprintf(script, sizeof script, ballw_sa, build);
	write_text(c, "ballw.sa", script);
	snprintf(c->cmd, sizeof c->cmd, "TMPDIR='%s' '%s/sacc' build -o '%s' '%s/ballw.sa' "
	         ">'%s/build.txt' 2>&1", c->tmp, build, c->dir, c->dir, c->dir);
	free(build);
	assert_int_equal(system(c->cmd), 0);
	snprintf(args, sizeof args, "'%s/ballw.fmu' --stop 1.2 --step 0.01 -o '%s/w.csv'",
	         c->dir, c->dir);
	assert_int_equal(simulate(c, args), 0);
	/* the bare FMU without early returns steps as the wrapper's inner does */
	snprintf(args, sizeof args, "'%s/fmus3/events3.fmu' --stop 1.2 --step 0.01 "
	         "--no-rollback --record events3.x,events3.bounces -o '%s/b.csv'",
	         test_build_dir(), c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *w = file_in(c, "w.csv"), *b = file_in(c, "b.csv");
	assert_true(strlen(after_first_row(w)) > 1000);
	assert_string_equal(after_first_row(w), after_first_row(b));
	assert_true(last_value(w, 2) == 2);
	free(w);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(simulate_fmi3__events3__lands_on_the_exact_bounces,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_fmi3__early3__a_point_at_every_tick, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_fmi3__mixed_with_fmi2__both_masters, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_fmi3__sized_types__checked_at_the_boundary,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
			simulate_fmi3__wrapper_over_fmi3_inner__same_as_the_bare_fmu, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
