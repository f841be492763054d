/* test_simulate_strarr.c — FMI 3.0 String arrays and Binaries in `sacc simulate`, and
 * scenario links naming single array elements, over the test FMUs strarr3
 * (tests/fmus3/strarr3: s_out = s_in reversed, joined = s_in joined with commas,
 * b_out = b_in, b1_out = b1_in's bytes reversed, y = 2 x), array3 (y = x + gain .* u,
 * der(x) = u) and matrix3 (rowsum in m, w in cm, w2 = w): String and Binary columns
 * (quoted, Binaries in lowercase hex), --set of one String element and of a Binary in hex,
 * connections String to String and Binary to Binary element by element, links element to
 * scalar, scalar to element and element to element with units converted, the errors, and
 * --isolate giving the same bytes.  The expected values are worked out by hand from the
 * models' equations.  Runs the SACC_BUILD binary as a user would (simulate_test.h). */
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
#include "csv.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_strarr");
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
	                     "time,strarr3.y,strarr3.s_out[1],strarr3.s_out[2],"
	                     "strarr3.s_out[3],strarr3.joined,strarr3.b_out[1],strarr3.b_out[2],"
	                     "strarr3.b1_out\n"
	                     "0,0,\"c\",\"b\",\"a\",\"a,b,c\",\"00ff\",\"\",\"1b0a\"\n"
	                     "0.5,0,\"c\",\"b\",\"a\",\"a,b,c\",\"00ff\",\"\",\"1b0a\"\n");
	/* by default every output, Strings and Binaries after the numbers */
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --stop 0.5 --step 0.5 --set "
	         "strarr3.x=1.25", build_abs());
	assert_run_both_ways(c, args,
	                     "time,strarr3.y,strarr3.s_out[1],strarr3.s_out[2],"
	                     "strarr3.s_out[3],strarr3.joined,strarr3.b_out[1],strarr3.b_out[2],"
	                     "strarr3.b1_out\n"
	                     "0,2.5,\"c\",\"b\",\"a\",\"a,b,c\",\"00ff\",\"\",\"1b0a\"\n"
	                     "0.5,2.5,\"c\",\"b\",\"a\",\"a,b,c\",\"00ff\",\"\",\"1b0a\"\n");
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
	                     "time,strarr3.s_out[1],strarr3.s_out[2],strarr3.s_out[3],"
	                     "strarr3.joined,strarr3.b_out[1],strarr3.b_out[2],strarr3.b1_out\n"
	                     "0,\"c\",\"x \"\"y\"\", z\",\"a\",\"a,x \"\"y\"\", z,c\",\"00ff\","
	                     "\"ff00\",\"01aa00\"\n"
	                     "0.5,\"c\",\"x \"\"y\"\", z\",\"a\",\"a,x \"\"y\"\", z,c\",\"00ff\","
	                     "\"ff00\",\"01aa00\"\n");
	/* the empty Binary */
	snprintf(args, sizeof args, "'%s/fmus3/strarr3.fmu' --stop 0.5 --step 0.5 "
	         "--set strarr3.b1_in= --record strarr3.b1_out", build_abs());
	assert_run_both_ways(c, args, "time,strarr3.b1_out\n0,\"\"\n0.5,\"\"\n");
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
		                     "time,b.s_out[1],b.s_out[2],b.s_out[3],b.joined,b.b_out[1],"
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

static const char elements_sa[] = "fmu Array3 a at \"%s/fmus3/array3.fmu\"\n"
                                  "fmu Array3 b at \"%s/fmus3/array3.fmu\"\n"
                                  "fmu StrArr3 s at \"%s/fmus3/strarr3.fmu\"\n"
                                  "fmu Matrix3 m at \"%s/fmus3/matrix3.fmu\"\n"
                                  "a.y[2] -> s.x\n"
                                  "s.y -> b.u[3]\n"
                                  "a.y[1] -> b.u[2]\n"
                                  "m.rowsum[2] -> m.w[1]\n";

/* Links naming single elements: a.y[2] feeds the scalar s.x, the scalar s.y feeds b.u[3],
 * a.y[1] feeds b.u[2], and b.u[1] comes from --set (or --input): one array fed three ways.
 * With a.u = {1, 2, 3} and gains {1, 2, 3}: at 0, a.y = {1, 4, 9}, s.y = 2 a.y[2] = 8,
 * b.u = {5, 1, 8}, b.y = {5, 2, 24}.  A step of 0.1 later a.y = {1.1, 4.2, 9.3}; under
 * Gauss-Seidel b steps with b.u = {5, 1.1, 8.4}, so b.y = 0.1 b.u + gain .* b.u =
 * {5.5, 2.31, 26.04}; under Jacobi with the inputs of 0, {5, 1, 8}: b.y = {5.5, 2.1, 24.8}.
 * m.rowsum[2] = 0.01 (4 + 5 + 6) m feeds m.w[1] in cm: 15, so m.w2[1] = 15. */
static void simulate_elements__links_to_and_from_single_elements(void **state)
{
	Ctx *c = *state;
	char text[1024], args[1024];
	const char *b = build_abs();
	snprintf(text, sizeof text, elements_sa, b, b, b, b);
	write_text(c, "el.sa", text);
	write_text(c, "u1.csv", "time,b.u[1]\n0,5\n1,5\n");
	const char *masters[] = {"jacobi", "gauss-seidel"};
	const double y[2][3] = {{5.5, 2.1, 24.8}, {5.5, 2.31, 26.04}};
	char input[600];
	snprintf(input, sizeof input, "--input '%s'", path_in(c, "u1.csv"));
	for (int k = 0; k < 4; k++) {
		int m = k % 2;
		snprintf(args, sizeof args, "'%s' --stop 0.1 --step 0.1 --master %s "
		         "--set 'a.u=[1,2,3]' %s --record 'b.y,s.y,m.w2' -o '%s'",
		         path_in(c, "el.sa"), masters[m], k < 2 ? "--set 'b.u[1]=5'" : input,
		         path_in(c, "r.csv"));
		int rc = simulate(c, args);
		char *err = file_in(c, "err.txt");
		if (rc != 0)
			print_error("%s: exit %d\n%s", masters[m], rc, err);
		free(err);
		assert_int_equal(rc, 0);
		const char *r = path_in(c, "r.csv");
		assert_cell(r, "b.y[1]", 0, 5);
		assert_cell(r, "b.y[2]", 0, 2);
		assert_cell(r, "b.y[3]", 0, 24);
		assert_cell(r, "s.y", 0, 8);
		assert_cell(r, "m.w2[1]", 0, 15);
		assert_cell(r, "m.w2[2]", 0, 0);
		for (int i = 0; i < 3; i++) {
			char name[32];
			snprintf(name, sizeof name, "b.y[%d]", i + 1);
			assert_cell(r, name, 1, y[m][i]);
		}
		assert_cell(r, "s.y", 1, m ? 8.4 : 8);
		assert_cell(r, "m.w2[1]", 1, 15);
	}
	/* out of process, the same bytes */
	snprintf(args, sizeof args, "'%s' --stop 0.3 --step 0.1 --set 'a.u=[1,2,3]' "
	         "--set 'b.u[1]=5' --record 'b.y,s.y,m.w2'", path_in(c, "el.sa"));
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s -o '%s'", args, path_in(c, "ref.csv"));
	assert_int_equal(simulate(c, cmd), 0);
	char *ref = file_in(c, "ref.csv");
	assert_true(strlen(ref) > 50);
	assert_run_both_ways(c, args, ref);
	free(ref);
}

static void simulate_elements__errors_at_the_connection_naming_both_ends(void **state)
{
	Ctx *c = *state;
	char text[2048], args[1024];
	const char *b = build_abs();
	snprintf(text, sizeof text,
	         "fmu Array3 a at \"%s/fmus3/array3.fmu\"\n"
	         "fmu StrArr3 s at \"%s/fmus3/strarr3.fmu\"\n"
	         "fmu Matrix3 m at \"%s/fmus3/matrix3.fmu\"\n"
	         "a.y[4] -> s.x\n"
	         "s.y -> a.u[0]\n"
	         "m.T[1] -> s.x\n"
	         "s.y[1] -> a.u[1]\n"
	         "s.s_out[2] -> a.u[2]\n"
	         "m.T[3,2] -> s.x\n", b, b, b);
	write_text(c, "bad.sa", text);
	snprintf(args, sizeof args, "'%s' --stop 0.1", path_in(c, "bad.sa"));
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "bad.sa:4:1: error: connection 'a.y[4] -> s.x': index 4 of 'a.y' is "
	                     "out of range: it is an array of 3 Float64, indexed from 1");
	assert_contains(err, "bad.sa:5:8: error: connection 's.y -> a.u[0]': index 0 of 'a.u' is "
	                     "out of range");
	assert_contains(err, "bad.sa:6:1: error: connection 'm.T[1] -> s.x': 'm.T' is an array "
	                     "of 3x2: an element has 2 indices");
	assert_contains(err, "bad.sa:7:1: error: connection 's.y[1] -> a.u[1]': 's.y' is a "
	                     "scalar: it has no elements");
	assert_contains(err, "bad.sa:8:1: error: connection 's.s_out[2] -> a.u[2]' connects a "
	                     "String output to a Real input");
	assert_true(strstr(err, "bad.sa:9:") == NULL); /* T[3,2] exists */
	free(err);
	/* a whole array into one element */
	snprintf(text, sizeof text,
	         "fmu Array3 a at \"%s/fmus3/array3.fmu\"\n"
	         "fmu Array3 b at \"%s/fmus3/array3.fmu\"\n"
	         "a.y -> b.u[1]\n", b, b);
	write_text(c, "whole.sa", text);
	snprintf(args, sizeof args, "'%s' --stop 0.1", path_in(c, "whole.sa"));
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "whole.sa:3:1: error: connection a.y -> b.u[1]: y is an array of 3 "
	                     "Float64 and u[1] is a scalar");
	free(err);
	/* an SSP connection joins whole connectors: sacc ssp export refuses an element */
	snprintf(c->cmd, sizeof c->cmd, "'%s/sacc' ssp export '%s' -o '%s' 2>'%s'",
	         test_build_dir(), path_in(c, "whole.sa"), path_in(c, "w.ssp"),
	         path_in(c, "err.txt"));
	int st = system(c->cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "whole.sa:3:8: error: 'b.u[1]' is one element of an array: an SSP "
	                     "system connects whole arrays only");
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
		cmocka_unit_test_setup_teardown(simulate_elements__links_to_and_from_single_elements,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
			simulate_elements__errors_at_the_connection_naming_both_ends, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
