/* test_simulate_strarr.c — FMI 3.0 String arrays and Binaries in `sacc simulate`, over the
 * test FMU strarr3 (tests/fmus3/strarr3: s_out = s_in reversed, joined = s_in joined with
 * commas, b_out = b_in, b1_out = b1_in's bytes reversed, y = 2 x): String and Binary
 * columns (quoted, Binaries in lowercase hex), --set of one String element and of a
 * Binary in hex, connections String to String and Binary to Binary element by element,
 * the errors, and --isolate giving the same bytes.  The expected rows are written out by
 * hand from the model's equations.  Runs the SACC_BUILD binary as a user would
 * (simulate_test.h). */
#define _GNU_SOURCE /* realpath(path, NULL) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_strarr");
}

/* The build directory as an absolute path (scripts are read from elsewhere). */
static const char *build_abs(void)
{
	static char abs[PATH_MAX];
	if (!abs[0] && !realpath(test_build_dir(), abs))
		snprintf(abs, sizeof abs, "%s", test_build_dir());
	return abs;
}

/* Runs args in process and with --isolate all; both results (out) must be the same bytes,
 * and equal want. */
static void assert_run_both_ways(Ctx *c, const char *args, const char *want)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s -o '%s'", args, path_in(c, "in.csv"));
	int rc = simulate(c, cmd);
	char *err = file_in(c, "err.txt");
	if (rc != 0)
		print_error("exit %d\n%s", rc, err);
	free(err);
	assert_int_equal(rc, 0);
	snprintf(cmd, sizeof cmd, "%s --isolate all -o '%s'", args, path_in(c, "iso.csv"));
	assert_int_equal(simulate(c, cmd), 0);
	char *a = file_in(c, "in.csv"), *b = file_in(c, "iso.csv");
	assert_string_equal(a, want);
	assert_string_equal(b, a);
	free(a);
	free(b);
}

static void simulate_strarr__start_values__quoted_columns_binary_in_hex(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --stop 0.5 --step 0.5 --record "
	         "'strarr3.y,strarr3.s_out,strarr3.joined,strarr3.b_out,strarr3.b1_out'",
	         build_abs());
	/* s_in = {a, b, c}; b_in = {00ff, (empty)}; b1_in = 0a1b reversed */
	assert_run_both_ways(c, args,
	                     "time [s],strarr3.y [m],strarr3.s_out[1],strarr3.s_out[2],"
	                     "strarr3.s_out[3],strarr3.joined,strarr3.b_out[1],strarr3.b_out[2],"
	                     "strarr3.b1_out\n"
	                     "0,0,\"c\",\"b\",\"a\",\"a,b,c\",\"00ff\",\"\",\"1b0a\"\n"
	                     "0.5,0,\"c\",\"b\",\"a\",\"a,b,c\",\"00ff\",\"\",\"1b0a\"\n");
	/* by default only the numeric outputs: Strings and Binaries when named */
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --stop 0.5 --step 0.5 --set "
	         "strarr3.x=1.25", build_abs());
	assert_run_both_ways(c, args, "time [s],strarr3.y [m]\n0,2.5\n0.5,2.5\n");
}

/* One element of a String array set: the others keep their start values, as the seam
 * writes the array whole; a Binary from hex (either case), zero bytes kept. */
static void simulate_strarr__set_one_element_and_binaries(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --stop 0.5 --step 0.5 "
	         "--set 'strarr3.s_in[2]=x \"y\", z' --set strarr3.b1_in=00AA01 "
	         "--set 'strarr3.b_in[2]=ff00' "
	         "--record 'strarr3.s_out,strarr3.joined,strarr3.b_out,strarr3.b1_out'",
	         build_abs());
	assert_run_both_ways(c, args,
	                     "time [s],strarr3.s_out[1],strarr3.s_out[2],strarr3.s_out[3],"
	                     "strarr3.joined,strarr3.b_out[1],strarr3.b_out[2],strarr3.b1_out\n"
	                     "0,\"c\",\"x \"\"y\"\", z\",\"a\",\"a,x \"\"y\"\", z,c\",\"00ff\","
	                     "\"ff00\",\"01aa00\"\n"
	                     "0.5,\"c\",\"x \"\"y\"\", z\",\"a\",\"a,x \"\"y\"\", z,c\",\"00ff\","
	                     "\"ff00\",\"01aa00\"\n");
	/* the empty Binary */
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --stop 0.5 --step 0.5 "
	         "--set strarr3.b1_in= --record strarr3.b1_out", build_abs());
	assert_run_both_ways(c, args, "time [s],strarr3.b1_out\n0,\"\"\n0.5,\"\"\n");
}

static const char pair_sa[] = "fmu StrArr3 a at \"%s/fmus3/strarr3.fmu\"\n"
                              "fmu StrArr3 b at \"%s/fmus3/strarr3.fmu\"\n"
                              "a.s_out -> b.s_in\n"
                              "a.b_out -> b.b_in\n"
                              "a.b1_out -> b.b1_in\n";

/* String array to String array and Binary to Binary, element by element, under both
 * masters: b.s_in = a.s_out = {c, b, a}, so b.s_out = {a, b, c} and b.joined = "c,b,a";
 * b.b1_in = a.b1_out = 1b0a, so b.b1_out = 0a1b; b.b_out = a.b_out with a's b_in[2] set. */
static void simulate_strarr__connections_element_by_element(void **state)
{
	Ctx *c = *state;
	char text[1024], args[1024];
	snprintf(text, sizeof text, pair_sa, build_abs(), build_abs());
	write_text(c, "pair.sa", text);
	const char *masters[] = {"jacobi", "gauss-seidel"};
	for (int m = 0; m < 2; m++) {
		snprintf(args, sizeof args, "'%s' --stop 0.5 --step 0.5 --master %s "
		         "--set 'a.b_in[2]=00' --record 'b.s_out,b.joined,b.b_out,b.b1_out'",
		         path_in(c, "pair.sa"), masters[m]);
		assert_run_both_ways(c, args,
		                     "time [s],b.s_out[1],b.s_out[2],b.s_out[3],b.joined,b.b_out[1],"
		                     "b.b_out[2],b.b1_out\n"
		                     "0,\"a\",\"b\",\"c\",\"c,b,a\",\"00ff\",\"00\",\"0a1b\"\n"
		                     "0.5,\"a\",\"b\",\"c\",\"c,b,a\",\"00ff\",\"00\",\"0a1b\"\n");
	}
}

static void simulate_strarr__errors_name_the_option_and_both_ends(void **state)
{
	Ctx *c = *state;
	char text[1024], args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --set strarr3.b1_in=0a1", build_abs());
	assert_usage_error(c, args, "odd hex", "--set strarr3.b1_in=0a1: a Binary is given as hex "
	                                       "digits, two per byte (0a1b)");
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --set strarr3.b1_in=0g", build_abs());
	assert_usage_error(c, args, "not hex", "--set strarr3.b1_in=0g: a Binary is given as hex");
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --set 'strarr3.s_in=[a,b,c]'",
	         build_abs());
	assert_usage_error(c, args, "whole String array",
	                   "--set strarr3.s_in=[a,b,c]: s_in is an array of 3 Strings: set its "
	                   "elements one by one, s_in[i]=TEXT");
	snprintf(text, sizeof text, "fmu StrArr3 a at \"%s/fmus3/strarr3.fmu\"\n"
	         "fmu StrArr3 b at \"%s/fmus3/strarr3.fmu\"\n"
	         "a.y -> b.b1_in\n"
	         "a.b_out -> b.s_in\n", build_abs(), build_abs());
	write_text(c, "bad.sa", text);
	snprintf(args, sizeof args, "'%s' --stop 0.5", path_in(c, "bad.sa"));
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "bad.sa:3:1: error: connection 'a.y -> b.b1_in': a Binary connects "
	                     "to a Binary only, and the output is Float64, the input Binary");
	assert_contains(err, "bad.sa:4:1: error: connection 'a.b_out -> b.s_in': a Binary "
	                     "connects to a Binary only, and the output is Binary, the input "
	                     "String");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			simulate_strarr__start_values__quoted_columns_binary_in_hex, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_strarr__set_one_element_and_binaries, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_strarr__connections_element_by_element,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
			simulate_strarr__errors_name_the_option_and_both_ends, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
