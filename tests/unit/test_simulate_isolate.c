/* test_simulate_isolate.c — an FMU that crashes (SIGSEGV, abort, exit) or never returns
 * from a step, run by `sacc simulate` (the binary of SACC_BUILD) in process and with
 * --isolate: the message naming the FMU, the call and the time or cause, the exit status,
 * a result holding every accepted step, and nothing left behind (no host process, no
 * temporary directory, nothing new in /dev/shm), also when sacc itself is killed.
 *
 * The host program is reached through a link in the scratch directory (SACC_FMU_HOST), so
 * that any process left over is found by its command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
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
	if (sim_setup(state, "test_simulate_isolate"))
		return -1;
	Ctx *c = *state;
	snprintf(c->cmd, sizeof c->cmd, "ln -s \"$(realpath '%s/sacc-fmu-host')\" '%s/host'",
	         test_build_dir(), c->dir);
	return system(c->cmd) == 0 ? 0 : -1;
}

/* Runs the faulty FMU: --stop 0.5 --step 0.1, fault N at 0.25, plus more.  Returns the
 * exit status, 128 + N for a death by signal N (as a shell reports it). */
static int run_faulty(Ctx *c, int fault, const char *more)
{
	const char *b = test_build_dir();
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' SACC_FMU_HOST='%s/host' exec '%s/sacc' simulate '%s/fmus/faulty.fmu' "
	         "--stop 0.5 --step 0.1 --set faulty.fault=%d --set faulty.at=0.25 %s "
	         "-o '%s/r.csv' >'%s/out.txt' 2>'%s/err.txt'",
	         c->tmp, c->dir, b, b, fault, more, c->dir, c->dir, c->dir);
	int st = system(c->cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

/* A sanitized build's host (and sacc) would catch SIGSEGV itself and exit 1: the
 * processes this test starts die of their signals as unsanitized ones do. */
static void sanitizer_lets_signals_kill(void)
{
	char opts[1024];
	const char *old = getenv("ASAN_OPTIONS");
	snprintf(opts, sizeof opts, "%s%shandle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
	         "handle_sigill=0", old ? old : "", old && *old ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
}

static const char rows_to_02[] = "time,faulty.x\n"
                                 "0,0\n"
                                 "0.1,0.1\n"
                                 "0.2,0.2\n";

/* The number of processes whose command line mentions the scratch directory's host. */
static int hosts_alive(Ctx *c)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	char want[300];
	snprintf(want, sizeof want, "%s/host", c->dir);
	while ((e = readdir(d))) {
		char path[300], cmd[4096];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(cmd, 1, sizeof cmd - 1, f);
		fclose(f);
		cmd[len] = '\0';
		n += strcmp(cmd, want) == 0; /* argv[0], NUL-ended */
	}
	closedir(d);
	return n;
}

/* The names in /dev/shm, one a line. */
static char *shm_names(void)
{
	char *all = calloc(1, 1 << 16);
	size_t used = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d)))
		used += (size_t)snprintf(all + used, (1 << 16) - used - 1, "%s\n", e->d_name);
	if (d)
		closedir(d);
	return all;
}

static void assert_left_nothing(Ctx *c, const char *shm_before)
{
	assert_int_equal(hosts_alive(c), 0);
	assert_tmp_empty(c);
	char *now = shm_names();
	assert_string_equal(now, shm_before);
	free(now);
}

static void assert_outcome(Ctx *c, int rc, int want_rc, const char *want_err)
{
	char *err = file_in(c, "err.txt"), *csv = file_in(c, "r.csv");
	if (rc != want_rc)
		print_error("exit %d, not %d:\n%s", rc, want_rc, err);
	assert_int_equal(rc, want_rc);
	assert_contains(err, want_err);
	assert_string_equal(csv, rows_to_02);
	free(err);
	free(csv);
}

static const char *const isolated_cause[] = {
	"died of signal 11 (SIGSEGV: Segmentation fault)",
	"died of signal 6 (SIGABRT: Aborted)",
	"exited with status 3",
};

static void isolate__crashes__failed_call_every_step_kept(void **state)
{
	Ctx *c = *state;
	char *shm = shm_names();
	for (int k = 0; k < 3; k++) {
		char want[512];
		snprintf(want, sizeof want, "sacc simulate: at t = 0.2: [faulty] "
		         "doStep(t = 0.2, h = 0.10000000000000003): the FMU's process "
		         "%s\nsacc simulate: stopped at t = 0.2: 2 steps accepted",
		         isolated_cause[k]);
		assert_outcome(c, run_faulty(c, 8 + k, "--isolate all"), 1, want);
		assert_left_nothing(c, shm);
		/* named by instance, the same */
		assert_outcome(c, run_faulty(c, 8 + k, "--isolate faulty"), 1, want);
		assert_left_nothing(c, shm);
	}
	free(shm);
}

static void isolate__endless_loop__ended_by_step_timeout(void **state)
{
	Ctx *c = *state;
	char *shm = shm_names();
	assert_outcome(c, run_faulty(c, 11, "--isolate all --step-timeout 0.3"), 1,
	               "sacc simulate: at t = 0.2: [faulty] doStep(t = "
	               "0.2, h = 0.10000000000000003): no answer within 0.3 s; the "
	               "FMU's process was killed\n");
	assert_left_nothing(c, shm);
	free(shm);
}

static void in_process__crashes__rows_written_and_status_tells(void **state)
{
	Ctx *c = *state;
	char *shm = shm_names();
	static const struct {
		int fault, rc;
		const char *what;
	} cases[] = {
		{8, 128 + SIGSEGV, "the process got signal 11 (SIGSEGV) inside the FMU"},
		{9, 128 + SIGABRT, "the process got signal 6 (SIGABRT) inside the FMU"},
		{10, 3, "the FMU called exit(3)"},
	};
	for (int k = 0; k < 3; k++) {
		char want[512];
		snprintf(want, sizeof want, "sacc simulate: [faulty] doStep(t = 0.2, h = 0.10000000000000003): %s\n"
		         "sacc simulate: stopped at t = 0.2: 2 steps accepted (the result holds each)\n",
		         cases[k].what);
		assert_outcome(c, run_faulty(c, cases[k].fault, ""), cases[k].rc, want);
		assert_left_nothing(c, shm);
	}
	free(shm);
}

static void isolate__bad_list_or_missing_host__clear_errors(void **state)
{
	Ctx *c = *state;
	assert_int_equal(run_faulty(c, 0, "--isolate nosuch"), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc simulate: --isolate: no inner FMU instance 'nosuch' in the "
	                     "scenario\n");
	free(err);
	snprintf(c->cmd, sizeof c->cmd, "rm '%s/host'", c->dir);
	assert_int_equal(system(c->cmd), 0);
	assert_int_equal(run_faulty(c, 0, "--isolate all"), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "/host: No such file or directory (it is installed beside sacc; "
	                     "SACC_FMU_HOST names another)\n");
	free(err);
	assert_tmp_empty(c);
}

/* The state probe before a run that rolls back (here: step doubling) loads the FMU as the
 * run does: out of process, so its crash in the probe's second step (t = 0.1 to 0.2, the
 * fault striking after 0.15) is a failed call that leaves the probe inconclusive, and the
 * run goes on to its own crash at the step from 0.1.  In process the probe's crash ends
 * sacc before any step is accepted. */
static void isolate__state_probe__out_of_process_too(void **state)
{
	Ctx *c = *state;
	const char *b = test_build_dir();
	char *shm = shm_names();
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' SACC_FMU_HOST='%s/host' exec '%s/sacc' simulate '%s/fmus/faulty.fmu' "
	         "--stop 0.5 --step 0.1 --set faulty.fault=8 --set faulty.at=0.15 --step-control "
	         "doubling --isolate all -o '%s/r.csv' >'%s/out.txt' 2>'%s/err.txt'",
	         c->tmp, c->dir, b, b, c->dir, c->dir, c->dir);
	int st = system(c->cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	char *err = file_in(c, "err.txt"), *csv = file_in(c, "r.csv");
	assert_contains(err, "sacc simulate: at t = 0.1: [faulty] doStep(t = 0.1, "
	                "h = 0.20000000000000004): the FMU's process died of "
	                "signal 11 (SIGSEGV");
	assert_string_equal(csv, "time,faulty.x\n0,0\n0.1,0.1\n");
	free(err);
	free(csv);
	assert_left_nothing(c, shm);
	free(shm);
}

/* A host that never answers the first call (load): --call-timeout ends the wait, the run
 * fails with the call and the limit named, and the host is killed. */
static void isolate__call_timeout__hung_load_ends(void **state)
{
	Ctx *c = *state;
	const char *b = test_build_dir();
	char *shm = shm_names();
	/* the scratch host is a link to the real one: replaced, not written through */
	snprintf(c->cmd, sizeof c->cmd, "rm -f '%s/host' && printf '#!/bin/sh\nexec sleep 60\n' "
	         ">'%s/host' && chmod 755 '%s/host'", c->dir, c->dir, c->dir);
	assert_int_equal(system(c->cmd), 0);
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' SACC_FMU_HOST='%s/host' exec '%s/sacc' simulate '%s/fmus/faulty.fmu' "
	         "--stop 0.5 --step 0.1 --isolate all --call-timeout 0.3 -o '%s/r.csv' "
	         ">'%s/out.txt' 2>'%s/err.txt'", c->tmp, c->dir, b, b, c->dir, c->dir, c->dir);
	int st = system(c->cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "[faulty] load: no answer within 0.3 s; the FMU's process was killed");
	free(err);
	char *now = shm_names();
	assert_string_equal(now, shm);
	free(now);
	free(shm);
	assert_tmp_empty(c);
}

/* sacc killed outright: its host child dies with it (PR_SET_PDEATHSIG). */
static void isolate__orchestrator_killed__no_orphan(void **state)
{
	Ctx *c = *state;
	const char *b = test_build_dir();
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' SACC_FMU_HOST='%s/host' '%s/sacc' simulate '%s/fmus/faulty.fmu' "
	         "--stop 0.5 --step 0.1 --set faulty.fault=7 --set faulty.at=0.25 "
	         "--set faulty.hang_seconds=60 --isolate all -o '%s/r.csv' 2>/dev/null & "
	         "pid=$!; sleep 1; kill -9 $pid; { wait $pid; } 2>/dev/null; exit 0",
	         c->tmp, c->dir, b, b, c->dir);
	assert_int_equal(system(c->cmd), 0);
	int alive = 1;
	for (int i = 0; i < 100 && (alive = hosts_alive(c)) > 0; i++) {
		struct timespec ms = {0, 10000000L};
		nanosleep(&ms, NULL);
	}
	assert_int_equal(alive, 0);
	/* the extracted FMU is the killed process's to remove; this test's own */
	snprintf(c->cmd, sizeof c->cmd, "rm -rf '%s'/*", c->tmp);
	assert_int_equal(system(c->cmd), 0);
}

int main(void)
{
	sanitizer_lets_signals_kill();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(isolate__crashes__failed_call_every_step_kept, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(isolate__endless_loop__ended_by_step_timeout, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(in_process__crashes__rows_written_and_status_tells,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(isolate__bad_list_or_missing_host__clear_errors, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(isolate__orchestrator_killed__no_orphan, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(isolate__state_probe__out_of_process_too, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(isolate__call_timeout__hung_load_ends, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
