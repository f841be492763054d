/* test_simulate.c — `sacc simulate` as users run it: the sacc binary of the build
 * directory (SACC_BUILD, default build) started with system(), on the test FMUs and on
 * small scenario modules written here.  Checks the CSV byte for byte, the exit statuses
 * (0 success, 1 simulation or script error, 2 usage), the result left by a failing run,
 * the messages, and that the private temporary directory is gone afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "csv.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate");
}

static void simulate__one_fmu__exact_csv(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus/integrator.fmu' --stop 0.2 --step 0.1 "
	         "--set integrator.u=2 --set integrator.x0=1 -o '%s/r.csv'", test_build_dir(),
	         c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, "time,integrator.x\n"
	                         "0,1\n"
	                         "0.1,1.2\n"
	                         "0.2,1.4\n");
	free(csv);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: done at t = 0.2: 2 steps accepted, "
	                     "0 rejected, 0 iterations, 0 rollbacks");
	free(err);
	char *out = file_in(c, "out.txt");
	assert_string_equal(out, "");
	free(out);
	assert_tmp_empty(c);
}

/* --set reaches an inner's parameter through two wrapper levels (tests/e2e/inner_params.sa):
 * z = sub.aff.gain v + 2 (10 S) = 3 * 1 + 4. */
static void simulate__wrapper__set_reaches_inner_params_two_levels(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/e2e/params_outer_sa.fmu' --stop 0.1 --step 0.1 "
	         "--set params_outer_sa.S=0.2 --set params_outer_sa.sub.aff.gain=3 "
	         "--set params_outer_sa.v=1 -o '%s/r.csv'", test_build_dir(), c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, "time,params_outer_sa.z\n"
	                         "0,7\n"
	                         "0.1,7\n");
	free(csv);
	assert_tmp_empty(c);
}

static const char chain_sa[] =
	"module chain\n"
	"fmu Integrator a at \"integrator.fmu\"\n"
	"fmu Integrator b at \"integrator.fmu\"\n"
	"\n"
	"a.x -> b.u\n";

static void simulate__scenario__masters_by_hand(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "chain.sa", chain_sa);
	const char *opts[] = {"--master jacobi", "", "--master jacobi --approx linear",
	                      "--master=jacobi --iterations 1"};
	const char *last[] = {"1,1,0.44999999999999996\n", "1,1,0.5\n", "1,1,0.495\n",
	                      "1,1,0.5\n"};
	for (int i = 0; i < 4; i++) {
		snprintf(args, sizeof args, "'%s/chain.sa' --stop 1 --step 0.1 --set a.u=1 %s",
		         c->dir, opts[i]);
		assert_int_equal(simulate(c, args), 0);
		char *out = file_in(c, "out.txt");
		assert_true(strncmp(out, "time,a.x,b.x\n0,0,0\n", 19) == 0);
		size_t n = strlen(out), m = strlen(last[i]);
		assert_true(n > m);
		assert_string_equal(out + n - m, last[i]);
		free(out);
	}
	/* --record picks and orders the columns */
	snprintf(args, sizeof args, "'%s/chain.sa' --stop 0.1 --step 0.1 --set a.u=1 "
	         "--record b.x,a.u --record a.x", c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *out = file_in(c, "out.txt");
	assert_string_equal(out, "time,b.x,a.u,a.x\n0,0,1,0\n0.1,0.005000000000000001,"
	                         "1,0.1\n");
	free(out);
	assert_tmp_empty(c);
}

static void simulate__explain__graph_and_order(void **state)
{
	Ctx *c = *state;
	char args[512];
	write_text(c, "chain.sa", chain_sa);
	snprintf(args, sizeof args, "'%s/chain.sa' --explain", c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *out = file_in(c, "out.txt");
	assert_contains(out, "a.x -> b.u  (connection)");
	assert_contains(out, "initialization order: a.u, a.x, b.u, b.x");
	assert_contains(out, "execution order (Gauss-Seidel): a, b");
	assert_contains(out, "algebraic loops: none");
	free(out);
	assert_tmp_empty(c);
}

/* One library per FMU file: census counts, in its library, the instances initialized, so
 * a and b (one census.fmu) say 1 and 2; once (the same model declaring
 * canBeInstantiatedOnlyOncePerProcess) gets a copy each, so c and d both say 1.  Every
 * FMU out of process (SACC_TEST_ISOLATE): each its own library, all say 1.  --explain
 * says which is which. */
static void simulate__instances__share_a_library_unless_once_per_process(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "census.sa", "module census\n"
	                           "fmu Census a at \"census.fmu\"\n"
	                           "fmu Census b at \"census.fmu\"\n"
	                           "fmu Once c at \"once.fmu\"\n"
	                           "fmu Once d at \"once.fmu\"\n");
	snprintf(args, sizeof args, "'%s/census.sa' --stop 0.5 --step 0.5 -o '%s/r.csv'", c->dir,
	         c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	const char *rows = strchr(csv, '\n'); /* after the header, whatever its form */
	assert_non_null(rows);
	assert_string_equal(rows + 1, sim_isolated() ? "0,1,1,1,1\n0.5,1,1,1,1\n"
	                                             : "0,1,2,1,1\n0.5,1,2,1,1\n");
	free(csv);
	snprintf(args, sizeof args, "'%s/census.sa' --explain", c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *out = file_in(c, "out.txt");
	assert_contains(out, "fmu files: 2, extracted 3 times\n");
	if (sim_isolated()) {
		assert_contains(out, "  census.fmu:\n    a process of its own each (--isolate): a, b\n");
	} else {
		assert_contains(out, "  census.fmu:\n    one library in this process for: a, b\n");
		assert_contains(out, "  once.fmu:\n    a copy of its own each "
		                     "(canBeInstantiatedOnlyOncePerProcess): c, d\n");
	}
	free(out);
	assert_tmp_empty(c);
}

/* One copy and one library per FMU file in a wrapper too: census_sa wraps a and b (one
 * census.fmu) and c and d (once.fmu, canBeInstantiatedOnlyOncePerProcess).  The archive
 * holds census.fmu once, under a's name, and once.fmu once per instance; run, b counts 2
 * (a's library) and c and d 1 each (a copy each).  Under --isolate the wrapper runs in a
 * host process of its own, its inners in it as they are here: the same counts. */
static void simulate__wrapper_inners__share_a_copy_unless_once_per_process(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "census_sa.sa",
	           "module census_sa\n"
	           "semantic adaptation reactive mealy census_sa\n"
	           "at \"census_sa.fmu\"\n"
	           "\tfor inner fmu Census a at \"census.fmu\" with output ports Real n\n"
	           "\tfor inner fmu Census b at \"census.fmu\" with output ports Real n\n"
	           "\tfor inner fmu Once c at \"once.fmu\" with output ports Real n\n"
	           "\tfor inner fmu Once d at \"once.fmu\" with output ports Real n\n"
	           "output ports Real na <- a.n, Real nb <- b.n, Real nc <- c.n, "
	           "Real nd <- d.n\n");
	const char *b = test_build_dir();
	snprintf(c->cmd, sizeof c->cmd, "'%s/sacc' build -L '%s/fmus' -o '%s' '%s/census_sa.sa' "
	         "2>'%s/err.txt' && '%s/sacc' unpack '%s/census_sa.fmu' '%s/x' 2>>'%s/err.txt'",
	         b, b, c->dir, c->dir, c->dir, b, c->dir, c->dir, c->dir);
	if (system(c->cmd) != 0) {
		char *err = file_in(c, "err.txt");
		fail_msg("sacc build or unpack failed:\n%s", err);
	}
	const char *const present[] = {"x/resources/a/binaries/linux64/census.so",
	                               "x/resources/c/binaries/linux64/once.so",
	                               "x/resources/d/binaries/linux64/once.so"};
	for (size_t i = 0; i < sizeof present / sizeof *present; i++)
		if (access(path_in(c, present[i]), F_OK) != 0)
			fail_msg("the archive lacks %s", present[i] + 2);
	assert_int_not_equal(access(path_in(c, "x/resources/b"), F_OK), 0);
	snprintf(args, sizeof args, "'%s/census_sa.fmu' --stop 0.5 --step 0.5 -o '%s/r.csv'",
	         c->dir, c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, "time,census_sa.na,census_sa.nb,census_sa.nc,census_sa.nd\n"
	                         "0,1,2,1,1\n0.5,1,2,1,1\n");
	free(csv);
	assert_tmp_empty(c);
}

/* Two pass-through wrappers of the feedthrough FMU coupled both ways
 * (tests/e2e/feedthrough_pass.sa): each wrapper output depends on its own input only, so
 * there is no algebraic loop, as between the bare FMUs; and the delayed pair's results
 * are the bare FMUs' under the same input table, value for value. */
static void simulate__pass_through_wrappers__no_false_loop_same_results(void **state)
{
	Ctx *c = *state;
	char args[1024];
	const char *kinds[] = {"bare", "pass", "held"};
	for (int k = 0; k < 3; k++) {
		char text[512], name[32];
		bool bare = k == 0;
		snprintf(text, sizeof text,
		         "module coupled_%s\n"
		         "fmu %s a at \"%s%s\"\n"
		         "fmu %s b at \"%s%s\"\n"
		         "a.Int32_output -> b.Int32_input\n"
		         "b.Float64_continuous_output -> a.Float64_continuous_input\n",
		         kinds[k], bare ? "Feedthrough" : "Wrapper", bare ? "feedthrough" : "ft_",
		         bare ? ".fmu" : k == 1 ? "pass_a.fmu" : "held_a.fmu",
		         bare ? "Feedthrough" : "Wrapper", bare ? "feedthrough" : "ft_",
		         bare ? ".fmu" : k == 1 ? "pass_b.fmu" : "held_b.fmu");
		snprintf(name, sizeof name, "%s.sa", kinds[k]);
		write_text(c, name, text);
		snprintf(args, sizeof args, "-L '%s/e2e' '%s' --explain", test_build_dir(),
		         path_in(c, name));
		assert_int_equal(simulate(c, args), 0);
		char *out = file_in(c, "out.txt");
		assert_contains(out, "algebraic loops: none");
		free(out);
	}
	write_text(c, "in.csv", "time,a.Int32_input,b.Float64_continuous_input,"
	                        "a.Float64_discrete_input,b.Boolean_input\n"
	                        "0,1,0.5,2,0\n0.3,4,1.5,-1,1\n0.7,-2,3,5,0\n1,7,2,1,1\n");
	char *csv[2];
	for (int k = 0; k < 2; k++) {
		snprintf(args, sizeof args, "-L '%s/e2e' '%s' --stop 1 --step 0.1 --input '%s' "
		         "-o '%s'", test_build_dir(), path_in(c, k ? "held.sa" : "bare.sa"),
		         path_in(c, "in.csv"), path_in(c, "r.csv"));
		assert_int_equal(simulate(c, args), 0);
		csv[k] = file_in(c, "r.csv");
	}
	/* the bare FMUs hold their inputs over a step: at 0.4, the table's values of 0.3
	 * (b's Real 1.5, a's Integer 4, which b passes on); a's Real is b's of 0.3, the
	 * table's 1.5 - (1.5 - 0.5) / 3 */
	assert_contains(csv[0], "\n0.4,1.1666666666666667,-1,4,0,1.5000000000000002,0,4,1\n");
	assert_string_equal(csv[1], csv[0]);
	free(csv[0]);
	free(csv[1]);
	assert_tmp_empty(c);
}

/* A discrete output feeding an FMU that interpolates its inputs: with linear extrapolation
 * the master still holds that input over each step (no slope), so the integrator `sum`
 * adds exactly h times the value it was given: sum(t + h) = sum(t) + h y(t), where y is
 * the feedthrough's discrete output as the same file records it.  (Given the staircase's
 * slope it would add h y + h^2 y' / 2 instead.) */
static void simulate__discrete_connection__held_not_extrapolated(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "held.sa", "module held_master\n"
	                         "fmu Integrator ramp at \"integrator.fmu\"\n"
	                         "fmu Feedthrough ft at \"feedthrough.fmu\"\n"
	                         "fmu Integrator sum at \"integrator.fmu\"\n"
	                         "ramp.x -> ft.Float64_discrete_input\n"
	                         "ft.Float64_discrete_output -> sum.u\n");
	snprintf(args, sizeof args, "-L '%s/fmus' '%s' --set ramp.u=1 --master jacobi "
	         "--approx linear --stop 0.5 --step 0.1 -o '%s'", test_build_dir(),
	         path_in(c, "held.sa"), path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	char err[256];
	CsvTable *t = csv_read(path_in(c, "r.csv"), err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	int y = csv_column(t, "ft.Float64_discrete_output"), sum = csv_column(t, "sum.x");
	assert_true(y > 0 && sum > 0);
	assert_int_equal(t->nrows, 6);
	int moved = 0;
	for (size_t r = 1; r < t->nrows; r++) {
		const double *prev = t->data + (r - 1) * t->ncols, *row = t->data + r * t->ncols;
		double want = prev[sum] + (row[0] - prev[0]) * prev[y];
		if (fabs(row[sum] - want) > 1e-12)
			fail_msg("sum.x at t = %g is %.17g, not %.17g", row[0], row[sum], want);
		moved |= prev[y] != row[y];
	}
	assert_true(moved); /* the staircase did climb: a slope was there to be refused */
	csv_free(t);
	assert_tmp_empty(c);
}

static void simulate__fmu_fails__csv_kept_exit_1(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "chain.sa", chain_sa);
	snprintf(args, sizeof args, "'%s/chain.sa' --stop 1 --step 0.1 --set a.u=1 "
	         "--set b.fail_at=0.35 -o '%s/r.csv'", c->dir, c->dir);
	assert_int_equal(simulate(c, args), 1);
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, "time,a.x,b.x\n"
	                         "0,0,0\n"
	                         "0.1,0.1,0.005000000000000001\n"
	                         "0.2,0.2,0.020000000000000004\n"
	                         "0.30000000000000004,0.30000000000000004,0.04500000000000001\n");
	free(csv);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "[b] fmi2DoStep(t = 0.30000000000000004");
	assert_contains(err, "returned fmi2Error");
	assert_contains(err, "stopped at t = 0.30000000000000004: 3 steps accepted");
	free(err);
	assert_tmp_empty(c);

	/* a NaN on a connection */
	snprintf(args, sizeof args, "'%s/chain.sa' --stop 1 --step 0.1 --set a.u=1 "
	         "--set a.nan_at=0.25", c->dir);
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "a.x is nan");
	free(err);
}

static void simulate__discard__lands_on_expiry(void **state)
{
	Ctx *c = *state;
	char args[512];
	snprintf(args, sizeof args, "'%s/fmus/controller.fmu' --stop 1.5 --step 0.3 "
	         "--set controller.obj_detected=true --record controller.down", test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *out = file_in(c, "out.txt");
	assert_contains(out, "\n1.2,1\n1.3,1\n1.5,1\n");
	free(out);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "6 steps accepted, 1 rejected, 0 iterations, 1 rollbacks");
	free(err);
}

static void simulate__usage_errors__exit_2(void **state)
{
	Ctx *c = *state;
	char fmu[512], args[1024];
	snprintf(fmu, sizeof fmu, "'%s/fmus/integrator.fmu'", test_build_dir());
	struct {
		const char *opts, *msg;
	} cases[] = {
		{"--approx cubic", "'cubic' is not hold, linear, quadratic or hermite"},
		{"--event", "option '--event' needs an argument (INST.VAR)"},
		{"--event integrator", "--event: 'integrator' is not INSTANCE.VARIABLE"},
		{"--event nobody.x", "--event: no fmu instance 'nobody'"},
		{"--event-tolerance 0", "--event-tolerance: '0' is not a positive number"},
		{"--explain=1", "option '--explain' takes no argument"},
		{"--sweep 0.1,0.05 -o r.csv", "--sweep writes no result file"},
		{"--master newton", "'newton' is neither jacobi nor gauss-seidel"},
		{"--loop-solver picard", "'picard' is not fixed-point, anderson or newton"},
		{"--anderson-memory 0", "'0' is not a count from 1 to 100"},
		{"--loop-max-iterations x", "'x' is not a count from 1"},
		{"--loop-tolerance 0", "'0' is not a positive number"},
		{"--step-control euler", "'euler' is neither doubling nor prediction"},
		{"--tolerance -1", "--tolerance: '-1' is not a positive number"},
		{"--max-step 0", "--max-step: '0' is not a positive number"},
		{"--bogus", "unknown option '--bogus'"},
		{"--stop", "option '--stop' needs an argument (T1)"},
		{"--step abc", "'abc' is not a finite number"},
		{"--iterations -1", "is not a count"},
		{"--realtime=0", "--realtime: '0' is not a positive number of wall seconds"},
		{"--realtime=fast", "'fast' is not a positive number of wall seconds"},
		{"--profile=yes", "option '--profile' takes no argument"},
		{"--max-overruns 2", "--max-overruns belongs to --realtime"},
		{"--realtime --max-overruns x", "--max-overruns: 'x' is not a count from 0"},
		{"--set nobody.x=1", "no fmu instance 'nobody'; the instances are: integrator"},
		{"--set integrator.nope=1", "fmu 'integrator' has no variable 'nope'"},
		{"--set integrator.x=1", "cannot be set"},
		{"--record integrator", "is not INSTANCE.VARIABLE"},
		{"--stop 1 --start 2", "the stop time is before the start time"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(args, sizeof args, "%s %s", fmu, cases[i].opts);
		assert_usage_error(c, args, cases[i].opts, cases[i].msg);
	}
	assert_int_equal(simulate(c, ""), 2);
	assert_tmp_empty(c);
}

/* A textbook loop (A: y = 2u + 1, B: u = 0.6 y; y = -5, u = -3) as a scenario. */
static const char seed_loop_sa[] =
	"module seed_loop\n"
	"fmu Affine A at \"affine.fmu\"\n"
	"fmu Affine B at \"affine.fmu\"\n"
	"A.y -> B.u\n"
	"B.y -> A.u\n";

static void simulate__algebraic_loop__solved_or_named(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "seed_loop.sa", seed_loop_sa);
	const char *solvers[] = {"newton", "anderson --anderson-memory 2", "anderson"};
	for (int i = 0; i < 3; i++) {
		snprintf(args, sizeof args, "'%s/seed_loop.sa' --set A.gain=2 --set A.offset=1 "
		         "--set B.gain=0.6 --stop 0.2 --step 0.1 --loop-solver %s "
		         "--loop-tolerance 1e-14 -o '%s/r.csv'", c->dir, solvers[i], c->dir);
		assert_int_equal(simulate(c, args), 0);
		char *csv = file_in(c, "r.csv");
		double t, y, u;
		char *line = strchr(csv, '\n') + 1;
		for (int k = 0; k < 3; k++) {
			assert_int_equal(sscanf(line, "%lf,%lf,%lf", &t, &y, &u), 3);
			assert_close(t, 0.1 * k, 1e-15);
			assert_close(y, -5, 1e-12);
			assert_close(u, -3, 1e-12);
			line = strchr(line, '\n') + 1;
		}
		free(csv);
		char *err = file_in(c, "err.txt");
		assert_contains(err, "2 steps accepted");
		assert_contains(err, "3 loop solves");
		free(err);
	}
	/* fixed-point iteration diverges (gain 1.2): exit 1, the loop named */
	snprintf(args, sizeof args, "'%s/seed_loop.sa' --set A.gain=2 --set A.offset=1 "
	         "--set B.gain=0.6 --stop 0.2 --step 0.1 --loop-solver fixed-point "
	         "-o '%s/r.csv'", c->dir, c->dir);
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: at t = 0 (initialization): algebraic loop 1 (A.u, A.y, "
	                     "B.u, B.y) diverged under fixed-point iteration");
	assert_contains(err, "tear variables: A.u = ");
	free(err);
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, "time,A.y,B.y\n");
	free(csv);
	assert_tmp_empty(c);
}

/* Step doubling on the two masses (bench/two_mass/two_mass.sa): the first step of 0.1 is
 * rejected, the steps stay under --max-step, the run lands on the stop time. */
static void simulate__step_control__adapts_and_lands(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 2 --step 0.1 --approx linear "
	         "--step-control doubling --tolerance 1e-4 --max-step 0.05 --record m1.x "
	         "-o '%s/r.csv'", c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: done at t = 2: ");
	assert_contains(err, "(H from ");
	assert_null(strstr(err, " 0 rejected"));
	free(err);
	char *csv = file_in(c, "r.csv");
	assert_contains(csv, "\n2,");
	free(csv);
	assert_tmp_empty(c);
}

static void simulate__script_error__diagnostic_shape(void **state)
{
	Ctx *c = *state;
	char args[512];
	write_text(c, "bad.sa", "module bad\n"
	                        "fmu Integrator a at \"integrator.fmu\"\n"
	                        "fmu Integrator b at \"integrator.fmu\"\n"
	                        "a.x -> b.v\n");
	snprintf(args, sizeof args, "'%s/bad.sa'", c->dir);
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "bad.sa:4:");
	assert_contains(err, "error: fmu 'b' has no port 'v'");
	free(err);
	snprintf(args, sizeof args, "'%s/nonexistent.fmu'", c->dir);
	assert_int_equal(simulate(c, args), 1);

	/* an fmu no connection uses, not found: the error at it, and where sacc looked (the
	 * script's directory and simulate()'s -L directory) */
	write_text(c, "lost.sa", "module lost\n"
	                         "fmu Integrator a at \"nowhere.fmu\"\n");
	snprintf(args, sizeof args, "'%s/lost.sa'", c->dir);
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	char want[1024];
	snprintf(want, sizeof want, "lost.sa:2:16: error: cannot find fmu 'a' at \"nowhere.fmu\"");
	assert_contains(err, want);
	snprintf(want, sizeof want, "lost.sa:2:16: note: looked in '%s' (the script's directory) "
	         "and in the -L directory '%s/fmus'\n", c->dir, test_build_dir());
	assert_contains(err, want);
	free(err);
	assert_tmp_empty(c);
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The N of "overruns N" in the summary, or -1. */
static long overruns_in(const char *err)
{
	const char *p = strstr(err, "overruns ");
	return p ? strtol(p + 9, NULL, 10) : -1;
}

/* --realtime: a run never ends before its simulated duration times SCALE (a lower bound
 * only: a loaded machine may take longer); at an absurdly fast SCALE every point after the
 * first is late, and the summary counts them.  Standard error is a file here: no
 * progress line, however long the run. */
static void simulate__realtime__paced_and_overruns_counted(void **state)
{
	Ctx *c = *state;
	char args[1024];
	const char *fmu = "integrator.fmu' --set integrator.u=1";
	snprintf(args, sizeof args, "--realtime '%s/fmus/%s --stop 1.2 --step 0.1 -o '%s/r.csv'",
	         test_build_dir(), fmu, c->dir);
	double t0 = wall_now();
	assert_int_equal(simulate(c, args), 0);
	double took = wall_now() - t0;
	print_message("--realtime, 1.2 s simulated: %.3f s\n", took);
	assert_true(took >= 1.2);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: done at t = 1.2: 12 steps accepted");
	assert_true(overruns_in(err) >= 0);
	assert_contains(err, "(largest lateness ");
	assert_null(strchr(err, '\r'));
	assert_null(strstr(err, "\033["));
	free(err);
	char *csv = file_in(c, "r.csv");
	assert_true(strncmp(csv, "time,integrator.x\n0,0\n", 22) == 0);
	assert_contains(csv, "\n1.2,1.2");
	free(csv);

	/* SCALE 0.25: a quarter of a wall second per simulated second */
	snprintf(args, sizeof args, "'%s/fmus/%s --stop 1 --step 0.05 --realtime 0.25",
	         test_build_dir(), fmu);
	t0 = wall_now();
	assert_int_equal(simulate(c, args), 0);
	took = wall_now() - t0;
	assert_true(took >= 0.25);

	/* every point due a nanosecond per simulated second after the first: all late */
	snprintf(args, sizeof args, "'%s/fmus/%s --stop 1 --step 0.01 --realtime=1e-9",
	         test_build_dir(), fmu);
	assert_int_equal(simulate(c, args), 0);
	err = file_in(c, "err.txt");
	long n = overruns_in(err);
	print_message("--realtime=1e-9: %ld overruns of 100 points\n", n);
	assert_true(n > 0);
	assert_true(n <= 100);
	free(err);
	/* --max-overruns 3: the fourth overrun stops the run, its row written */
	snprintf(args, sizeof args, "'%s/fmus/%s --stop 1 --step 0.01 --realtime=1e-9 "
	         "--max-overruns 3 -o '%s/r.csv'", test_build_dir(), fmu, c->dir);
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: at t = 0.04: ");
	assert_contains(err, " s late, overrun 4 of at most 3 (--max-overruns)\n");
	assert_contains(err, "sacc simulate: stopped at t = 0.04: 4 steps "
	                     "accepted");
	assert_contains(err, "overruns 4 (largest lateness ");
	free(err);
	csv = file_in(c, "r.csv");
	size_t lines = 0;
	for (const char *p = csv; *p; p++)
		lines += *p == '\n';
	assert_int_equal((int)lines, 1 + 5);
	assert_contains(csv, "\n0.04,0.04\n");
	free(csv);
	/* no --realtime, no overrun count */
	snprintf(args, sizeof args, "'%s/fmus/%s --stop 1 --step 0.01", test_build_dir(), fmu);
	assert_int_equal(simulate(c, args), 0);
	err = file_in(c, "err.txt");
	assert_int_equal(overruns_in(err), -1);
	free(err);
	assert_tmp_empty(c);
}

/* The profile line of FMU name: its calls (-1 when there is none); its seconds and share
 * checked to be plausible. */
static long profile_calls(const char *err, const char *name)
{
	char want[64];
	snprintf(want, sizeof want, "sacc simulate: profile: %s: ", name);
	const char *p = strstr(err, want);
	if (!p)
		return -1;
	double secs, share;
	long calls;
	assert_int_equal(sscanf(p + strlen(want), "%lf s in doStep (%lf%% of the wall time), "
	                        "%ld calls", &secs, &share, &calls), 3);
	assert_true(secs >= 0);
	assert_true(share >= 0 && share <= 100);
	return calls;
}

/* --profile: one line per FMU with its doStep calls, which are the steps it took (the
 * state probe's three included when the scheme rolls back). */
static void simulate__profile__calls_per_fmu(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 1 --step 0.1 --profile "
	         "-o '%s/r.csv'", c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "done at t = 1: 10 steps accepted");
	assert_int_equal(profile_calls(err, "m1"), 10);
	assert_int_equal(profile_calls(err, "m2"), 10);
	assert_contains(err, "sacc simulate: profile: outside doStep: ");
	free(err);
	/* one iteration: two passes per step, and the probe's three steps per FMU */
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 1 --step 0.1 --profile "
	         "--master jacobi --iterations 1 -o '%s/r.csv'", c->dir);
	assert_int_equal(simulate(c, args), 0);
	err = file_in(c, "err.txt");
	assert_contains(err, "10 steps accepted, 0 rejected, 10 iterations");
	assert_int_equal(profile_calls(err, "m1"), 23);
	assert_int_equal(profile_calls(err, "m2"), 23);
	free(err);
	/* a discard: the rejected attempt's call counts too (controller: 6 accepted, 1 redone;
	 * the probe at the first discard steps a second instance three times) */
	snprintf(args, sizeof args, "'%s/fmus/controller.fmu' --stop 1.5 --step 0.3 --profile "
	         "--set controller.obj_detected=true --record controller.down", test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	err = file_in(c, "err.txt");
	assert_contains(err, "6 steps accepted, 1 rejected");
	assert_int_equal(profile_calls(err, "controller"), 6 + 1 + 3);
	free(err);
	/* without --profile, no profile */
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 1 --step 0.1");
	assert_int_equal(simulate(c, args), 0);
	err = file_in(c, "err.txt");
	assert_int_equal(profile_calls(err, "m1"), -1);
	assert_null(strstr(err, "profile"));
	free(err);
	assert_tmp_empty(c);
}

/* The last row of a CSV with three columns: time and two values. */
static void last_row(Ctx *c, const char *name, double v[3])
{
	char *csv = file_in(c, name);
	char *end = csv + strlen(csv);
	while (end > csv && end[-1] == '\n')
		end--;
	*end = '\0';
	char *line = strrchr(csv, '\n');
	assert_non_null(line);
	assert_int_equal(sscanf(line + 1, "%lf,%lf,%lf", &v[0], &v[1], &v[2]), 3);
	free(csv);
}

static const char poly_pair_sa[] =
	"module poly_pair\n"
	"fmu Poly a at \"poly.fmu\"\n"
	"fmu Poly b at \"poly.fmu\"\n"
	"\n"
	"a.s -> b.u\n";

/* --approx reaches the master: a.s = t^2 feeds b under Jacobi with H = 0.1, and b.y is
 * the value b's input was given for the end of each step.  At t = 1 (s = 1), from the
 * points up to 0.9: held 0.81; linear 1 - 2 H^2 = 0.98; Hermite from ds/dt = 2t,
 * 1 - H^2 = 0.99; quadratic exact. */
static void simulate__approx__extrapolation_orders_on_a_parabola(void **state)
{
	Ctx *c = *state;
	write_text(c, "poly_pair.sa", poly_pair_sa);
	struct {
		const char *approx;
		double y;
	} cases[] = {{"hold", 0.81}, {"linear", 0.98}, {"hermite", 0.99}, {"quadratic", 1.0}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[1024];
		snprintf(args, sizeof args, "'%s/poly_pair.sa' --master jacobi --approx %s "
		         "--set a.c2=1 --stop 1 --step 0.1 --record a.s,b.y -o '%s/r.csv'", c->dir,
		         cases[i].approx, c->dir);
		assert_int_equal(simulate(c, args), 0);
		double v[3];
		last_row(c, "r.csv", v);
		assert_true(fabs(v[0] - 1) < 1e-12);
		assert_true(fabs(v[1] - 1) < 1e-12);
		if (fabs(v[2] - cases[i].y) > 1e-9)
			print_error("--approx %s: b.y = %.17g, not %g\n", cases[i].approx, v[2],
			            cases[i].y);
		assert_true(fabs(v[2] - cases[i].y) <= 1e-9);
	}
	assert_tmp_empty(c);
}

/* --event: x = t - 0.37 crosses 0 inside the step from 0.3 to 0.4; the step is cut so that
 * a point lies within the tolerance after 0.37, then the run is back on the 0.1 grid. */
static void simulate__event__crossing_located_to_tolerance(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus/integrator.fmu' --stop 0.6 --step 0.1 "
	         "--set integrator.u=1 --set integrator.x0=-0.37 --event integrator.x "
	         "--event-tolerance 1e-9 -o '%s/r.csv'", test_build_dir(), c->dir);
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	double t[16], x[16];
	int n = 0;
	for (char *line = strchr(csv, '\n'); line && line[1] && n < 16; line = strchr(line + 1, '\n'))
		if (sscanf(line + 1, "%lf,%lf", &t[n], &x[n]) == 2)
			n++;
	free(csv);
	/* 0, 0.1, 0.2, 0.3, the event, 0.4, 0.5, 0.6 */
	assert_int_equal(n, 8);
	assert_true(t[4] >= 0.37 && t[4] - 0.37 <= 1e-9);
	assert_true(x[4] >= 0 && x[4] <= 1e-9);
	assert_true(fabs(t[5] - 0.4) < 1e-12 && fabs(t[7] - 0.6) < 1e-12);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "1 events located");
	free(err);
	assert_tmp_empty(c);
}

/* --no-rollback: no state saved per step, so the controller's discard at its timer stops
 * the run (exit 1, the rows before it kept), and iterations are refused. */
static void simulate__no_rollback__discard_stops_the_run(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus/controller.fmu' --stop 1.5 --step 0.3 --no-rollback "
	         "--set controller.obj_detected=true --record controller.down -o '%s/r.csv'",
	         test_build_dir(), c->dir);
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "controller discarded the step from t = 1.2 at t = 1.3");
	assert_contains(err, "save none (no rollback)");
	free(err);
	char *csv = file_in(c, "r.csv");
	assert_contains(csv, "\n0.8999999999999999,1\n1.2,1\n");
	assert_null(strstr(csv, "\n1.3"));
	assert_null(strstr(csv, "\n1.5"));
	free(csv);
	snprintf(args, sizeof args, "'%s/fmus/integrator.fmu' --stop 1 --no-rollback --iterations 1",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "with no rollback there is no state to go back to, and iterations");
	free(err);
	assert_tmp_empty(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(simulate__one_fmu__exact_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__wrapper__set_reaches_inner_params_two_levels,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__scenario__masters_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__pass_through_wrappers__no_false_loop_same_results,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__explain__graph_and_order, setup, teardown),
		cmocka_unit_test_setup_teardown(
			simulate__instances__share_a_library_unless_once_per_process, setup, teardown),
		cmocka_unit_test_setup_teardown(
			simulate__wrapper_inners__share_a_copy_unless_once_per_process, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__discrete_connection__held_not_extrapolated,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__fmu_fails__csv_kept_exit_1, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__discard__lands_on_expiry, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__usage_errors__exit_2, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__algebraic_loop__solved_or_named, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate__step_control__adapts_and_lands, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate__script_error__diagnostic_shape, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate__realtime__paced_and_overruns_counted, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate__profile__calls_per_fmu, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__approx__extrapolation_orders_on_a_parabola,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate__event__crossing_located_to_tolerance, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate__no_rollback__discard_stops_the_run, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
