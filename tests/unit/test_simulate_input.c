/* test_simulate_input.c — `sacc simulate --input FILE.csv` and the start, stop and step
 * taken from the DefaultExperiment, run as users run them (the SACC_BUILD binary on the
 * test FMUs).  The values are worked out by hand: an input is set at the start t_n of each
 * step, so passthrough's y at t_n+1 is u(t_n), and the integrator, which interpolates
 * inputs, integrates the row segment's line exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "csv.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_input");
}

/* `sacc simulate FMU.fmu --input in.csv MORE` with the result in out.txt; its exit status. */
static int run_input(Ctx *c, const char *fmu, const char *csv, const char *more)
{
	char args[2048];
	write_text(c, "in.csv", csv);
	snprintf(args, sizeof args, "'%s/fmus/%s' --input '%s' %s", test_build_dir(), fmu,
	         path_in(c, "in.csv"), more);
	return simulate(c, args);
}

static void assert_out(Ctx *c, const char *want)
{
	char *out = file_in(c, "out.txt");
	assert_string_equal(out, want);
	free(out);
}

static void assert_err(Ctx *c, const char *want)
{
	char *err = file_in(c, "err.txt");
	assert_contains(err, want);
	free(err);
}

/* u = 10 t between the rows; held at the step's start for passthrough, a line over the
 * step for the integrator (x = 5 t^2 at every point). */
static void input__real__linear_between_rows(void **state)
{
	Ctx *c = *state;
	const char *csv = "time [s],u\n0,0\n1,10\n";
	assert_int_equal(run_input(c, "passthrough.fmu", csv, "--step 0.25"), 0);
	assert_out(c, "time,passthrough.y\n0,0\n0.25,0\n0.5,2.5\n0.75,5\n1,7.5\n");
	assert_int_equal(run_input(c, "integrator.fmu", csv, "--step 0.25"), 0);
	assert_out(c, "time,integrator.x\n0,0\n0.25,0.3125\n0.5,1.25\n0.75,2.8125\n1,5\n");
	/* INST.VAR names the input of a single FMU too (a result file's columns) */
	assert_int_equal(run_input(c, "passthrough.fmu", "time,passthrough.u\n0,0\n1,10\n",
	                           "--step 0.5"), 0);
	assert_out(c, "time,passthrough.y\n0,0\n0.5,0\n1,5\n");
	assert_tmp_empty(c);
}

/* Before the first row the first value, after the last the last; where a time repeats
 * (a jump) the later row from that time on. */
static void input__ends_and_jumps__first_last_later(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_input(c, "passthrough.fmu", "time,u\n0.5,2\n1,4\n",
	                           "--stop 1.5 --step 0.25"), 0);
	assert_out(c, "time,passthrough.y\n0,2\n0.25,2\n0.5,2\n0.75,2\n1,3\n1.25,4\n1.5,4\n");
	assert_int_equal(run_input(c, "passthrough.fmu", "time,u\n0,0\n0.5,0\n\n0.5,1\n1,1\n",
	                           "--step 0.25"), 0);
	assert_out(c, "time,passthrough.y\n0,0\n0.25,0\n0.5,0\n0.75,1\n1,1\n");
}

/* A Boolean input holds the last row's value: driver_up is false until t = 1 (linear it
 * would be 0.5, true, at 0.5), so the controller commands up from the step after 1. */
static void input__discrete__held_from_the_last_row(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_input(c, "controller.fmu", "time,driver_up\n0,0\n1,1\n",
	                           "--stop 1.5 --step 0.25 --record controller.up"), 0);
	assert_out(c, "time,controller.up\n0,0\n0.25,0\n0.5,0\n0.75,0\n1,0\n1.25,1\n1.5,1\n");
}

static const char two_sa[] =
	"module two\n"
	"fmu Integrator a at \"integrator.fmu\"\n"
	"fmu Passthrough p at \"passthrough.fmu\"\n"
	"\n"
	"a.x -> p.u\n";

/* Every error names the file, the line and, for a cell, its column; the run does not
 * start (exit 1). */
static void input__errors__file_and_line(void **state)
{
	Ctx *c = *state;
	char args[2048];
	struct {
		const char *csv, *want;
	} cases[] = {
		{"time,uu\n0,1\n", "in.csv:1: column 2 'uu': fmu 'passthrough' has no variable "
		                   "'uu'; did you mean 'u'?"},
		{"time,y\n0,1\n", "in.csv:1: column 2 'y' is an output, not an input"},
		{"u,time\n0,1\n", "in.csv:1:1: the first column is 'u', not 'time'"},
		{"time,u\n0,1\n0.5,2\n0.25,3\n", "in.csv:4:1: time 0.25 is before the previous "
		                                 "row's 0.5"},
		{"time,u\n0,1\n0.5,x\n", "in.csv:3:5: column 2 (u): 'x' is not a finite number"},
		{"time,u\n", "in.csv: no rows after the header"},
		{"time,u,passthrough.u\n0,1,1\n", "in.csv:1: columns 2 and 3 both feed "
		                                  "passthrough.u"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = run_input(c, "passthrough.fmu", cases[i].csv, "");
		char *err = file_in(c, "err.txt");
		if (rc != 1 || !strstr(err, cases[i].want))
			print_error("case %zu: exit %d\n%s", i, rc, err);
		free(err);
		assert_int_equal(rc, 1);
		assert_err(c, cases[i].want);
	}
	/* an Integer input takes integers only, with the line and column of the cell (blank
	 * lines counted) */
	assert_int_equal(run_input(c, "faulty.fmu", "time,fault\n0,0\n\n1,1.5\n", ""), 1);
	assert_err(c, "sacc simulate: --input ");
	assert_err(c, "in.csv:4:3: column 2 (fault): '1.5' is not an Integer");
	/* the ends of the 32-bit range are taken; beyond them the message says so */
	assert_int_equal(run_input(c, "faulty.fmu", "time,fault\n0,-2147483648\n"
	                                            "1,2147483648\n", ""), 1);
	assert_err(c, "in.csv:3:3: column 2 (fault): '2147483648' does not fit a 32-bit Integer");
	/* a scenario's columns are INST.VAR; an input connected already cannot be fed */
	write_text(c, "two.sa", two_sa);
	struct {
		const char *csv, *want;
	} scen[] = {
		{"time,u\n0,1\n", "in.csv:1: column 2 'u' is not INSTANCE.VARIABLE"},
		{"time,pp.u\n0,1\n", "in.csv:1: column 2 'pp.u': no fmu instance 'pp'; did you "
		                     "mean 'p'?"},
		{"time,p.u\n0,1\n", "in.csv:1: column 2 'p.u' is an input the scenario connects "
		                    "already"},
	};
	for (size_t i = 0; i < sizeof scen / sizeof scen[0]; i++) {
		write_text(c, "in.csv", scen[i].csv);
		snprintf(args, sizeof args, "'%s' --input '%s'", path_in(c, "two.sa"),
		         path_in(c, "in.csv"));
		assert_int_equal(simulate(c, args), 1);
		assert_err(c, scen[i].want);
	}
	/* and a.u, unconnected, is fed */
	write_text(c, "in.csv", "time,a.u\n0,2\n");
	snprintf(args, sizeof args, "'%s' --input '%s' --stop 0.5 --step 0.25 --record a.x",
	         path_in(c, "two.sa"), path_in(c, "in.csv"));
	assert_int_equal(simulate(c, args), 0);
	assert_out(c, "time,a.x\n0,0\n0.25,0.5\n0.5,1\n");
	assert_tmp_empty(c);
}

/* No --start, --stop or --step: the DefaultExperiment's (affine: 0, 1, 0.1), said in the
 * summary; each option given overrides its own. */
static void defaults__default_experiment__taken_and_overridden(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus/affine.fmu'", test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	assert_err(c, "sacc simulate: done at t = 1: 10 steps accepted");
	assert_err(c, "; start 0, stop 1 and step 0.1 (the DefaultExperiment)\n");
	snprintf(args, sizeof args, "'%s/fmus/affine.fmu' --stop 0.5 --step 0.25",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	assert_err(c, "done at t = 0.5: 2 steps accepted");
	assert_err(c, "wall time; start 0 (the DefaultExperiment)\n");
	snprintf(args, sizeof args, "'%s/fmus/affine.fmu' --start 0 --stop 0.5 --step 0.25",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	assert_err(c, " s wall time\n");
	/* a start after the default stop: the usage error says where the stop came from */
	snprintf(args, sizeof args, "'%s/fmus/affine.fmu' --start 5", test_build_dir());
	assert_int_equal(simulate(c, args), 2);
	assert_err(c, "the stop time 1 is before the start time 5 (stop 1 (the "
	              "DefaultExperiment)): give --start and --stop");
	/* a scenario: the largest start, the smallest stop, the smallest step declared
	 * (integrator 0, 1, 0.01; controller 0, 10, 0.001) */
	write_text(c, "pair.sa", "module pair\n"
	                         "fmu Integrator i at \"integrator.fmu\"\n"
	                         "fmu Controller k at \"controller.fmu\"\n");
	snprintf(args, sizeof args, "'%s' --record i.x", path_in(c, "pair.sa"));
	assert_int_equal(simulate(c, args), 0);
	assert_err(c, "done at t = 1: 1000 steps accepted");
	assert_err(c, "; start 0 and stop 1 (the DefaultExperiment of i), step 0.001 (the "
	              "DefaultExperiment of k)\n");
	assert_tmp_empty(c);
}

/* CsvOptions.kind: every column as text, to compare cells as written. */
static CsvKind all_text(void *env, int c, const char *name)
{
	(void)env, (void)c, (void)name;
	return CSV_TEXT;
}

static CsvTable *read_text(Ctx *c, const char *name)
{
	char err[1024];
	CsvOptions o = {all_text, NULL};
	CsvTable *t = csv_read_with(path_in(c, name), &o, err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	return t;
}

/* A result with Strings (commas, quotes, a line break), Booleans, Binaries (hex), Integers
 * and Enumerations, written by sacc simulate, fed back through --input as it is (only its
 * header renamed from alltypes3's outputs to its inputs): each value arrives exactly.
 * alltypes3 passes each input to its output, read at the next point, so the second run's
 * row k is the first run's row k - 1, cell for cell as written. */
static void input__result_fed_back__every_type_exact(void **state)
{
	Ctx *c = *state;
	const char *rec = "--stop 1 --step 0.25 --record alltypes3.str_out,alltypes3.bool_out,"
	                  "alltypes3.bin_out,alltypes3.i32_out,alltypes3.enum_out";
	const char *first = "time,str_in,bool_in,bin_in,i32_in,enum_in\n"
	                    "0,\"hello, \"\"world\"\"\",true,CAFE,-7,2\n"
	                    "0.5,\"two\nlines\",false,,2147483647,1\n"
	                    "0.75,plain,1,00ff,-2147483648,3\n";
	char more[1024];
	snprintf(more, sizeof more, "%s -o '%s'", rec, path_in(c, "r1.csv"));
	assert_int_equal(run_input(c, "../fmus3/alltypes3.fmu", first, more), 0);
	char *r1 = file_in(c, "r1.csv");
	/* what pandas' df['time'] and FMPy's reader look for: the plain name first */
	assert_true(strncmp(r1, "time,", 5) == 0);
	const char *nl = strchr(r1, '\n');
	assert_non_null(nl);
	/* the header's _out become _in; the rows stay as written */
	char *fed = malloc(strlen(r1) + 1), *w = fed;
	assert_non_null(fed);
	for (const char *p = r1; p < nl;)
		if (strncmp(p, "_out", 4) == 0)
			w += sprintf(w, "_in"), p += 4;
		else
			*w++ = *p++;
	strcpy(w, nl);
	snprintf(more, sizeof more, "%s -o '%s'", rec, path_in(c, "r2.csv"));
	assert_int_equal(run_input(c, "../fmus3/alltypes3.fmu", fed, more), 0);
	free(fed);
	free(r1);
	CsvTable *a = read_text(c, "r1.csv"), *b = read_text(c, "r2.csv");
	assert_int_equal(a->nrows, 5);
	assert_int_equal(b->nrows, 5);
	/* the first run against its own input, by hand: rows 0 to 2 (t = 0 to 0.5) hold the
	 * first input row's values, row 3 (t = 0.75) the line break's, row 4 the last one's */
	const char *names[5] = {"alltypes3.str_out", "alltypes3.bool_out", "alltypes3.bin_out",
	                        "alltypes3.i32_out", "alltypes3.enum_out"};
	const char *want[5][5] = {
		{"hello, \"world\"", "1", "cafe", "-7", "2"},
		{"hello, \"world\"", "1", "cafe", "-7", "2"},
		{"hello, \"world\"", "1", "cafe", "-7", "2"},
		{"two\nlines", "0", "", "2147483647", "1"},
		{"plain", "1", "00ff", "-2147483648", "3"},
	};
	for (int k = 0; k < 5; k++) {
		int ca = csv_column(a, names[k]), cb = csv_column(b, names[k]);
		assert_true(ca > 0 && cb > 0);
		for (size_t r = 0; r < 5; r++) {
			assert_string_equal(csv_text(a, r, ca), want[r][k]);
			assert_string_equal(csv_text(b, r, cb), csv_text(a, r ? r - 1 : 0, ca));
		}
	}
	csv_free(a);
	csv_free(b);
	/* bad cells: the place and the column named */
	assert_int_equal(run_input(c, "../fmus3/alltypes3.fmu",
	                           "time,bool_in\n0,true\n1,yes\n", ""), 1);
	assert_err(c, "in.csv:3:3: column 2 (bool_in): 'yes' is not a Boolean (true, false, 1 or "
	              "0)");
	assert_int_equal(run_input(c, "../fmus3/alltypes3.fmu", "time,bin_in\n0,abc\n", ""), 1);
	assert_err(c, "in.csv:2:3: column 2 (bin_in): 'abc' is not a Binary in hex digits");
	assert_int_equal(run_input(c, "../fmus3/alltypes3.fmu", "time,str_in\n0,\"open\n", ""), 1);
	assert_err(c, "in.csv:2:3: this quoted field is not closed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(input__real__linear_between_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(input__ends_and_jumps__first_last_later, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(input__discrete__held_from_the_last_row, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(input__errors__file_and_line, setup, teardown),
		cmocka_unit_test_setup_teardown(input__result_fed_back__every_type_exact, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(defaults__default_experiment__taken_and_overridden,
		                                setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
