/* test_simulate_faults.c — each fault of the fault-injection FMU (tests/fmus/faulty) run
 * by `sacc simulate` (the binary of SACC_BUILD), chosen with --set faulty.fault=N
 * --set faulty.at=T: the exact message (the FMU, the call, the time), the exit status, and
 * the CSV: every accepted step, no row past the failure.  Also the wall-clock limit per
 * step (--step-timeout) on the hanging fault, and the state probe on the FMU whose
 * fmi2SetFMUstate restores nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_faults");
}

/* Runs the faulty FMU alone: --stop 0.5 --step 0.1, fault N at T, plus more options. */
static int run_faulty(Ctx *c, int fault, const char *at, const char *more)
{
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus/faulty.fmu' --stop 0.5 --step 0.1 "
	         "--set faulty.fault=%d --set faulty.at=%s %s -o '%s/r.csv'", test_build_dir(),
	         fault, at, more, c->dir);
	return simulate(c, args);
}

static const char rows_to_02[] = "time,faulty.x\n"
                                 "0,0\n"
                                 "0.1,0.1\n"
                                 "0.2,0.2\n";

static void assert_csv(Ctx *c, const char *want)
{
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, want);
	free(csv);
}

static void assert_err(Ctx *c, const char *want)
{
	char *err = file_in(c, "err.txt");
	assert_contains(err, want);
	free(err);
}

/* A discard at 0.25: every FMU rolled back, the step redone to 0.25, the run goes on, and
 * the next step aims back at the grid 0.1 k (0.3, not 0.35). */
static void faults__discard__redone_shorter(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_faulty(c, 1, "0.25", ""), 0);
	assert_csv(c, "time,faulty.x\n"
	              "0,0\n"
	              "0.1,0.1\n"
	              "0.2,0.2\n"
	              "0.25,0.25\n"
	              "0.30000000000000004,0.30000000000000004\n"
	              "0.4,0.4\n"
	              "0.5,0.5\n");
	assert_err(c, "sacc simulate: done at t = 0.5: 6 steps accepted, 1 rejected, "
	              "0 iterations, 1 rollbacks");
	assert_tmp_empty(c);
}

static void faults__error__stops_with_rows(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_faulty(c, 2, "0.25", ""), 1);
	assert_csv(c, rows_to_02);
	assert_err(c, "sacc simulate: [faulty] fault error: the step from t = 0.2 to 0.3 fails\n");
	assert_err(c, "sacc simulate: [faulty] fmi2DoStep(t = 0.2, "
	              "h = 0.10000000000000003) returned fmi2Error\n");
	assert_err(c, "sacc simulate: stopped at t = 0.2: 2 steps accepted, "
	              "0 rejected");
	assert_tmp_empty(c);
}

static void faults__fatal__stops_with_rows(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_faulty(c, 3, "0.25", ""), 1);
	assert_csv(c, rows_to_02);
	assert_err(c, "sacc simulate: [faulty] fmi2DoStep(t = 0.2, "
	              "h = 0.10000000000000003) returned fmi2Fatal\n");
	assert_err(c, "sacc simulate: stopped at t = 0.2: 2 steps accepted");
	assert_tmp_empty(c);
}

/* A NaN or infinity in a recorded output stops the run at the step that produced it (that
 * step is not accepted), as one on a connection does. */
static void faults__nan_inf__stop_at_the_step(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_faulty(c, 4, "0.25", ""), 1);
	assert_csv(c, rows_to_02);
	assert_err(c, "sacc simulate: at t = 0.30000000000000004: faulty.x is nan, and it is "
	              "recorded\n");
	assert_err(c, "sacc simulate: stopped at t = 0.2: 2 steps accepted");
	assert_int_equal(run_faulty(c, 5, "0.25", ""), 1);
	assert_csv(c, rows_to_02);
	assert_err(c, "sacc simulate: at t = 0.30000000000000004: faulty.x is inf, and it is "
	              "recorded\n");
	assert_tmp_empty(c);
}

/* ignore_set_state alone, without rollback: nothing is restored, nothing is noticed. */
static void faults__ignore_set_state__harmless_without_rollback(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_faulty(c, 6, "0", ""), 0);
	assert_err(c, "sacc simulate: done at t = 0.5: 5 steps accepted, 0 rejected");
	assert_tmp_empty(c);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A step that hangs 3 s against a limit of 0.3 s: stopped by the watchdog well before the
 * hang ends, the FMU, the call and the time named, every accepted row kept, exit 1, the
 * temporary directory removed.  Under the limit, the same option changes nothing. */
static void faults__hang__stopped_by_step_timeout(void **state)
{
	Ctx *c = *state;
	double t0 = now_s();
	assert_int_equal(run_faulty(c, 7, "0.25", "--set faulty.hang_seconds=3 "
	                                          "--step-timeout 0.3"), 1);
	double wall = now_s() - t0;
	assert_true(wall < 2.5);
	assert_csv(c, rows_to_02);
	if (sim_isolated()) /* out of process, the hung step is a failed call */
		assert_err(c, "sacc simulate: at t = 0.2: [faulty] doStep(t = "
		              "0.2, h = 0.10000000000000003): no answer within 0.3 s; "
		              "the FMU's process was killed\n"
		              "sacc simulate: stopped at t = 0.2: 2 steps accepted");
	else
		assert_err(c, "sacc simulate: [faulty] fmi2DoStep(t = 0.2, "
		              "h = 0.10000000000000003) did not return within --step-timeout 0.3 s; a "
		              "call cannot be abandoned safely, so the run stops\n"
		              "sacc simulate: stopped at t = 0.2: 2 steps accepted");
	assert_tmp_empty(c);

	assert_int_equal(run_faulty(c, 7, "0.25", "--set faulty.hang_seconds=0.05 "
	                                          "--step-timeout=2"), 0);
	assert_err(c, "sacc simulate: done at t = 0.5: 5 steps accepted");
	assert_tmp_empty(c);

	assert_int_equal(run_faulty(c, 0, "0", "--step-timeout 0"), 2);
	assert_err(c, "--step-timeout: '0' is not a positive number of seconds");
}

/* Runs `sacc inspect ARGS` like simulate(); returns the exit status. */
static int inspect(Ctx *c, const char *args)
{
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' '%s/sacc' inspect %s >'%s/out.txt' 2>'%s/err.txt'", c->tmp,
	         test_build_dir(), args, c->dir, c->dir);
	int st = system(c->cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The state probe: works on the honest FMU; on ignore_set_state it names the variable and
 * both values and exits 1; sacc simulate runs it before iterations and step-size control
 * and refuses the FMU that lies (no row written), and passes the honest one. */
static void faults__ignore_set_state__caught_by_probe(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "--probe-state '%s/fmus/faulty.fmu' --step 0.1",
	         test_build_dir());
	assert_int_equal(inspect(c, args), 0);
	char *out = file_in(c, "out.txt");
	assert_string_equal(out, "faulty: state restore works: faulty's outputs at "
	                         "t = 0.2 are the same bit for bit after its "
	                         "state at t = 0.1 was set and the step redone\n");
	free(out);
	assert_tmp_empty(c);

	snprintf(args, sizeof args, "'%s/fmus/faulty.fmu' --probe-state --set faulty.fault=6 "
	         "--step 0.1", test_build_dir());
	assert_int_equal(inspect(c, args), 1);
	assert_err(c, "sacc inspect: state restore does not work: faulty.x is "
	              "0.1 at t = 0.1 when its state is got, but "
	              "0.2 once that state is set again (at "
	              "t = 0.2): fmi2SetFMUstate did not restore it\n");
	assert_tmp_empty(c);

	snprintf(args, sizeof args, "--probe-state '%s/fmus/faulty.fmu' --set faulty.fault=2",
	         test_build_dir());
	assert_int_equal(inspect(c, args), 1);
	/* no --step: the DefaultExperiment's stepSize, 0.1 */
	assert_err(c, "sacc inspect: cannot tell whether restoring the state works: [faulty] "
	              "fmi2DoStep(t = 0, h = 0.1");

	const char *schemes[] = {"--iterations 1", "--step-control doubling"};
	const char *why[] = {"iterations roll every FMU back to the step's start\n",
	                     "step-size control rejects steps by rolling every FMU back\n"};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(run_faulty(c, 6, "0", schemes[i]), 1);
		assert_csv(c, "time,faulty.x\n");
		assert_err(c, "sacc simulate: faulty claims canGetAndSetFMUstate, but its state "
		              "cannot be restored (state probe: faulty.x is 0.1 at "
		              "t = 0.1 when its state is got, but "
		              "0.2 once that state is set again (at "
		              "t = 0.2): fmi2SetFMUstate did not restore it); ");
		assert_err(c, why[i]);
		assert_tmp_empty(c);
		assert_int_equal(run_faulty(c, 0, "0", schemes[i]), 0);
		assert_err(c, "sacc simulate: done at t = 0.5: ");
	}
	assert_tmp_empty(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(faults__discard__redone_shorter, setup, teardown),
		cmocka_unit_test_setup_teardown(faults__error__stops_with_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(faults__fatal__stops_with_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(faults__nan_inf__stop_at_the_step, setup, teardown),
		cmocka_unit_test_setup_teardown(faults__ignore_set_state__harmless_without_rollback,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(faults__hang__stopped_by_step_timeout, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(faults__ignore_set_state__caught_by_probe, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
