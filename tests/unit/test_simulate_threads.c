/* test_simulate_threads.c — `sacc simulate --threads N` as a user runs it: the result of
 * two threads is the one of one thread byte for byte, warnings come in the same order, the
 * summary counts the FMU steps taken in parallel only when threads are asked for, and a
 * thread count out of range is a usage error.
 *
 * The scenario is bench/parallel/four.sa (four burn FMUs in a ring, Jacobi), with enough
 * work per step (20000 iterations, tens of microseconds) for parallel passes to be tried;
 * whether they are kept depends on the machine's load, which the results must not.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "assert_contains.h"
#include "sacc_test.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "sacc-threads");
}

#define FOUR "bench/parallel/four.sa --master jacobi --stop 0.05 --step 0.001 " \
             "--set a.work=20000 --set b.work=20000 --set c.work=20000 --set d.work=20000 " \
             "--set a.x0=1 --set b.warn_every=3 --set d.warn_every=2 --set a.warn_every=5"

static void threads__two__same_result_and_messages(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, FOUR " -o '%s'", path_in(c, "one.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *err_one = file_in(c, "err.txt");
	snprintf(args, sizeof args, FOUR " --threads 2 -o '%s'", path_in(c, "two.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *err_two = file_in(c, "err.txt");
	char *one = file_in(c, "one.csv"), *two = file_in(c, "two.csv");
	assert_true(strlen(one) > 100);
	assert_string_equal(one, two);
	/* the warnings, everything before the summary line, in the same order */
	char *sum_one = strstr(err_one, "sacc simulate: done"), *sum_two = strstr(err_two,
	                                                                          "sacc simulate: done");
	assert_non_null(sum_one);
	assert_non_null(sum_two);
	assert_int_equal(sum_one - err_one, sum_two - err_two);
	assert_memory_equal(err_one, err_two, (size_t)(sum_one - err_one));
	assert_contains(err_one, "[d] fmi2DoStep(t = 0.001, h = 0.001) returned fmi2Warning");
	assert_true(strstr(err_one, "FMU steps in parallel") == NULL);
	assert_true(strstr(err_one, "parallel stepping") == NULL);
	/* what ran: some steps on two threads, or none, said as such (the load decides) */
	if (!strstr(err_two, "parallel stepping did not pay: every FMU step ran on one thread"))
		assert_contains(err_two, "FMU steps in parallel on 2 threads");
	assert_true(strstr(err_two, " 0 FMU steps in parallel") == NULL);
	free(err_one);
	free(err_two);
	free(one);
	free(two);
}

/* One FMU has nothing to step beside: the summary says no step ran in parallel, not "0 FMU
 * steps in parallel on 1 thread". */
static void threads__nothing_to_share__summary_says_so(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus/integrator.fmu' --stop 0.1 --step 0.01 --threads 2",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "10 steps accepted");
	assert_contains(err, ", parallel stepping did not pay: every FMU step ran on one thread, ");
	assert_true(strstr(err, "FMU steps in parallel") == NULL);
	free(err);
}

static void threads__out_of_range__usage_error(void **state)
{
	Ctx *c = *state;
	assert_usage_error(c, FOUR " --threads 0", "--threads 0",
	                   "--threads: '0' is not a count from 1 to 256");
	assert_usage_error(c, FOUR " --threads two", "--threads two",
	                   "--threads: 'two' is not a count from 1 to 256");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(threads__two__same_result_and_messages, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(threads__nothing_to_share__summary_says_so, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(threads__out_of_range__usage_error, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
