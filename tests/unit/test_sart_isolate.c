/* test_sart_isolate.c — inner FMUs out of process (runtime/sart_isolate.h): the same calls
 * give the same values, statuses, messages and state bytes as in process; a child that
 * crashes (SIGSEGV, abort, exit) or hangs becomes a fatal call naming the FMU, the call
 * and the cause, and leaves no process and no shared memory behind; a host that answers
 * garbage, dies half way or never answers, a malformed request and shared memory too small
 * are clear errors.
 *
 * The misbehaving hosts are this program itself: started with "sart-host" it serves as
 * the real host does, unless SART_TEST_BAD_HOST names a misbehaviour.  Run from the
 * repository root with SACC_BUILD naming the build directory (default "build"). */
#define _GNU_SOURCE /* memfd_create */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sacc_test.h"
#include "sart_channel.h"
#include "sart_isolate.h"

#define POWER_GUID "{c41a7e93-2f6d-4b58-8d0c-5e9a3b7f1d26}"
#define CONTROLLER_GUID "{8e2b5f17-4d09-4c6a-a3f8-1b7e9d0c2a64}"
#define FAULTY_GUID "{9b1f0c4e-2d7a-4e55-8c3b-6a0f2e9d71c5}"
#define WINDOW_GUID "{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}"

enum { P_U, P_D, P_TAU, P_CURRENT, P_SPEED, P_DISPLACEMENT };
enum { C_OBJ_DETECTED, C_DRIVER_UP, C_PASSENGER_UP = 4, C_STOP = 9, C_CHART_STATE = 0 };
enum { F_U, F_X, F_FAULT, F_AT, F_HANG };
enum { W_DISPLACEMENT, W_SPEED, W_REACTION_FORCE, W_HEIGHT, W_REACTION_TORQUE, W_R, W_B };

typedef struct Log {
	int count;
	char all[16384];
} Log;

static void capture(void *env, SartStatus st, const char *category, const char *message)
{
	Log *l = env;
	size_t used = strlen(l->all);
	(void)st, (void)category;
	l->count++;
	snprintf(l->all + used, sizeof l->all - used, "%s\n", message);
}

#include "assert_contains.h"

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

static char self_path[4096];

static const char *host_path(void)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/sacc-fmu-host", test_build_dir());
	return path;
}

static SartInner *open_fmu(const char *model, const char *name, unsigned caps, int isolated,
                           const SartIsolation *iso, Log *log, SartStatus want)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus/%s", test_build_dir(), model);
	SartInnerConfig cfg = {name, dir, model, SART_FMI2, caps, capture, log, NULL, 0, NULL, 0, {0}, {NULL, 0}};
	SartIsolation def = {host_path(), 0, 0, 0, -1, 0, NULL, NULL};
	SartInner *in = NULL;
	SartStatus st = isolated ? sart_inner_load_isolated(&cfg, iso ? iso : &def, &in)
	                         : sart_inner_load(&cfg, &in);
	if (st != want)
		print_error("load %s: %s\n", model, log->all);
	assert_int_equal(st, want);
	return in;
}

static const SartExperiment from_zero = {0, 0.0, 0.0, 0, 0.0};

static void start(SartInner *in, const char *guid)
{
	assert_int_equal(sart_inner_instantiate(in, guid, 1), SART_OK);
	assert_int_equal(sart_inner_enter_init(in, &from_zero), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
}

static void set_real(SartInner *in, SartVr vr, double v)
{
	assert_int_equal(sart_inner_set_real(in, &vr, 1, &v), SART_OK);
}

static double step(SartInner *in, double t, double h)
{
	double reached = NAN;
	assert_int_equal(sart_inner_do_step(in, t, h, 0, &reached), SART_OK);
	assert_true(reached == t + h);
	return reached;
}

/* No child process left (this program starts no other), no memfd of ours open. */
static void assert_nothing_left(void)
{
	int ws;
	errno = 0;
	assert_int_equal(waitpid(-1, &ws, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[300], target[256];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			assert_null(strstr(target, "sacc-fmu-host"));
		}
	}
	closedir(d);
}

/* ---- the same as in process ------------------------------------------------------------- */

typedef struct PowerRun {
	double v[4][3];
	unsigned char *bytes;
	size_t nbytes;
	char log[16384];
} PowerRun;

/* Steps power, saves and serializes its state, runs on, restores, runs again. */
static void power_session(int isolated, PowerRun *out)
{
	Log log = {0};
	unsigned caps = SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE;
	SartInner *p = open_fmu("power", "power", caps, isolated, NULL, &log, SART_OK);
	start(p, POWER_GUID);
	set_real(p, P_U, 1.0);
	double t = 0.0;
	for (int i = 0; i < 5; i++)
		t = step(p, t, 0.01);
	void *s = NULL;
	assert_int_equal(sart_inner_get_state(p, &s), SART_OK);
	assert_int_equal(sart_inner_serialized_size(p, s, &out->nbytes), SART_OK);
	out->bytes = malloc(out->nbytes);
	assert_int_equal(sart_inner_serialize(p, s, out->bytes, out->nbytes), SART_OK);
	SartVr vr[3] = {P_CURRENT, P_SPEED, P_DISPLACEMENT};
	double again[3];
	for (int i = 0; i < 4; i++) {
		set_real(p, P_TAU, 0.1 * i);
		step(p, t + 0.01 * i, 0.01);
		assert_int_equal(sart_inner_get_real(p, vr, 3, out->v[i]), SART_OK);
	}
	/* restored from the bytes into a new state: the first step again, bit for bit */
	void *s2 = NULL;
	assert_int_equal(sart_inner_deserialize(p, out->bytes, out->nbytes, &s2), SART_OK);
	assert_int_equal(sart_inner_set_state(p, s2), SART_OK);
	set_real(p, P_TAU, 0.0);
	step(p, t, 0.01);
	assert_int_equal(sart_inner_get_real(p, vr, 3, again), SART_OK);
	assert_memory_equal(again, out->v[0], sizeof again);
	/* a state overwritten in place keeps its handle */
	void *same = s;
	assert_int_equal(sart_inner_get_state(p, &s), SART_OK);
	assert_ptr_equal(s, same);
	/* foreign bytes are the FMU's own error, with its message */
	out->bytes[0] ^= 0x5a;
	void *s3 = NULL;
	assert_int_equal(sart_inner_deserialize(p, out->bytes, out->nbytes, &s3), SART_ERROR);
	assert_null(s3);
	out->bytes[0] ^= 0x5a;
	assert_string_equal(sart_inner_message(p), "[power] fmi2DeSerializeFMUstate returned fmi2Error");
	assert_int_equal(sart_inner_free_state(p, &s), SART_OK);
	assert_null(s);
	/* out of process, a state left is freed with the instance (in process it would leak) */
	if (!isolated)
		assert_int_equal(sart_inner_free_state(p, &s2), SART_OK);
	assert_int_equal(sart_inner_terminate(p), SART_OK);
	sart_inner_free(p);
	snprintf(out->log, sizeof out->log, "%s", log.all);
}

static void isolate__power_states__bit_identical_to_in_process(void **state)
{
	(void)state;
	PowerRun a = {0}, b = {0};
	power_session(0, &a);
	power_session(1, &b);
	assert_int_equal(a.nbytes, b.nbytes);
	assert_memory_equal(a.bytes, b.bytes, a.nbytes);
	assert_memory_equal(a.v, b.v, sizeof a.v);
	assert_string_equal(a.log, b.log);
	free(a.bytes);
	free(b.bytes);
	assert_nothing_left();
}

static void isolate__controller_discard__reached_time_and_message(void **state)
{
	(void)state;
	for (int isolated = 0; isolated < 2; isolated++) {
		Log log = {0};
		SartInner *c = open_fmu("controller", "controller", SART_CAP_GET_SET_STATE, isolated,
		                        NULL, &log, SART_OK);
		start(c, CONTROLLER_GUID);
		int on = 1, off = 0, chart = -1;
		SartVr vr = C_PASSENGER_UP;
		assert_int_equal(sart_inner_set_boolean(c, &vr, 1, &on), SART_OK);
		double t = step(c, 0.0, 0.013);
		assert_int_equal(sart_inner_set_boolean(c, &vr, 1, &off), SART_OK);
		vr = C_OBJ_DETECTED;
		assert_int_equal(sart_inner_set_boolean(c, &vr, 1, &on), SART_OK);
		t = step(c, t, 0.2);
		assert_int_equal(sart_inner_set_boolean(c, &vr, 1, &off), SART_OK);
		double reached = NAN;
		assert_int_equal(sart_inner_do_step(c, t, 2.0, 0, &reached), SART_DISCARD);
		assert_close(reached, t + 1.0, 1e-12);
		assert_contains(sart_inner_message(c), "[controller] fmi2DoStep(t = 0.21300000000000002, "
		                                       "h = 2) returned fmi2Discard; last successful time 1.2");
		assert_contains(log.all, "[controller] t = 0.21300000000000002: Passenger up -> Emergency");
		vr = C_CHART_STATE;
		assert_int_equal(sart_inner_get_integer(c, &vr, 1, &chart), SART_OK);
		assert_int_equal(chart, 0);
		sart_inner_free(c);
	}
	assert_nothing_left();
}

static void isolate__wrong_guid_and_missing_fmu__messages_as_in_process(void **state)
{
	(void)state;
	Log a = {0}, b = {0};
	SartInner *w = open_fmu("window", "window", 0, 1, NULL, &a, SART_OK);
	assert_int_equal(sart_inner_instantiate(w, "{not-the-guid}", 0), SART_ERROR);
	assert_contains(a.all, "[window] fmi2Instantiate: GUID {not-the-guid} does not match");
	assert_string_equal(sart_inner_message(w), "[window] fmi2Instantiate returned NULL");
	assert_int_equal(a.count, 2);
	sart_inner_free(w);
	assert_null(open_fmu("nosuch", "nosuch", 0, 1, NULL, &b, SART_ERROR));
	assert_contains(b.all, "[nosuch] cannot load FMU directory ");
	assert_nothing_left();
}

static void isolate__window_strings_and_derivatives__carried(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *w = open_fmu("window", "window", SART_CAP_INPUT_DERIVATIVES, 1, NULL, &log,
	                        SART_OK);
	start(w, WINDOW_GUID);
	SartVr vr[3] = {W_DISPLACEMENT, W_SPEED, W_REACTION_FORCE};
	double v[3] = {1.0, 0.0, 0.0};
	assert_int_equal(sart_inner_set_real(w, vr, 3, v), SART_OK);
	int order = 1;
	double slope = 2.0;
	assert_int_equal(sart_inner_set_real_input_derivatives(w, vr, 1, &order, &slope), SART_OK);
	step(w, 0.0, 0.25);
	double height = NAN;
	SartVr h = W_HEIGHT;
	assert_int_equal(sart_inner_get_real(w, &h, 1, &height), SART_OK);
	assert_close(height, 100.0 * 0.11 * (1.0 + 2.0 * 0.25), 1e-12);
	order = 2;
	assert_int_equal(sart_inner_set_real_input_derivatives(w, vr, 1, &order, &slope),
	                 SART_ERROR);
	assert_contains(log.all, "derivative order 2 of 'displacement' is not supported");
	sart_inner_free(w);
	assert_nothing_left();
}

/* ---- crashes and hangs ------------------------------------------------------------------ */

/* Runs faulty isolated with the fault at t = 0.3 in steps of 0.1: three steps pass, the
 * fourth fails fatally with a message holding want; then nothing is left. */
static void crash_case(int fault, double step_timeout, const char *want)
{
	Log log = {0};
	SartIsolation iso = {host_path(), step_timeout, 0, 0, -1, 0, NULL, NULL};
	SartInner *f = open_fmu("faulty", "faulty", SART_CAP_GET_SET_STATE, 1, &iso, &log, SART_OK);
	start(f, FAULTY_GUID);
	SartVr vr = F_FAULT;
	assert_int_equal(sart_inner_set_integer(f, &vr, 1, &fault), SART_OK);
	set_real(f, F_AT, 0.3);
	void *s = NULL;
	assert_int_equal(sart_inner_get_state(f, &s), SART_OK);
	double t = 0.0, reached = 0;
	for (int i = 0; i < 3; i++)
		t = step(f, t, 0.1);
	long pid = sart_inner_isolated_pid(f);
	assert_true(pid > 0);
	assert_int_equal(sart_inner_do_step(f, t, 0.1, 0, &reached), SART_FATAL);
	assert_true(isnan(reached));
	assert_contains(sart_inner_message(f), "[faulty] doStep(t = 0.30000000000000004, "
	                                       "h = 0.1): ");
	assert_contains(sart_inner_message(f), want);
	assert_contains(log.all, want);
	assert_int_equal(sart_inner_isolated_pid(f), 0);
	assert_true(kill((pid_t)pid, 0) != 0 && errno == ESRCH);
	/* no further call reaches anything */
	double x;
	vr = F_X;
	assert_int_equal(sart_inner_get_real(f, &vr, 1, &x), SART_FATAL);
	assert_int_equal(sart_inner_free_state(f, &s), SART_FATAL);
	sart_inner_free(f);
	assert_nothing_left();
}

static void isolate__segv_in_do_step__fatal_naming_the_signal(void **state)
{
	(void)state;
	crash_case(8, 0, "the FMU's process died of signal 11 (SIGSEGV: Segmentation fault)");
}

static void isolate__abort_in_do_step__fatal_naming_the_signal(void **state)
{
	(void)state;
	crash_case(9, 0, "the FMU's process died of signal 6 (SIGABRT: Aborted)");
}

static void isolate__exit_in_do_step__fatal_naming_the_status(void **state)
{
	(void)state;
	crash_case(10, 0, "the FMU's process exited with status 3");
}

static void isolate__endless_loop__killed_after_the_step_timeout(void **state)
{
	(void)state;
	crash_case(11, 0.3, "no answer within 0.3 s; the FMU's process was killed");
}

/* An importer that ignores SIGCHLD: the dead child is reaped by the kernel, and the call
 * still fails instead of waiting for ever. */
static void isolate__sigchld_ignored__crash_still_noticed(void **state)
{
	(void)state;
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &ign, &old);
	crash_case(8, 0, "the FMU's process ended (reaped elsewhere: how is unknown)");
	sigaction(SIGCHLD, &old, NULL);
}

static void isolate__shared_memory_too_small__error_not_crash(void **state)
{
	(void)state;
	Log log = {0};
	SartIsolation iso = {host_path(), 0, 0, SART_CHAN_DATA_OFFSET + SART_CHAN_MIN_SIZE, -1, 0, NULL, NULL};
	SartInner *w = open_fmu("window", "window", 0, 1, &iso, &log, SART_OK);
	start(w, WINDOW_GUID);
	size_t n = SART_CHAN_MIN_SIZE / 4;
	SartVr *vr = calloc(n, sizeof *vr);
	double *v = calloc(n, sizeof *v);
	assert_int_equal(sart_inner_get_real(w, vr, n, v), SART_ERROR);
	assert_contains(sart_inner_message(w), "[window] getReal: 16384 values or bytes do not fit "
	                                       "in the shared memory (65536 bytes of data)");
	/* the instance goes on */
	SartVr h = W_HEIGHT;
	assert_int_equal(sart_inner_get_real(w, &h, 1, v), SART_OK);
	free(vr);
	free(v);
	sart_inner_free(w);
	assert_nothing_left();
}

/* ---- a misbehaving host, and malformed requests ----------------------------------------- */

static void bad_host_case(const char *mode, double timeout, const char *want)
{
	Log log = {0};
	SartIsolation iso = {self_path, 0, timeout, 0, -1, 0, NULL, NULL};
	setenv("SART_TEST_BAD_HOST", mode, 1);
	SartInner *in = open_fmu("window", "window", 0, 1, &iso, &log, SART_ERROR);
	unsetenv("SART_TEST_BAD_HOST");
	assert_null(in);
	assert_contains(log.all, want);
	assert_nothing_left();
}

static void isolate__host_answers_garbage__fatal_not_crash(void **state)
{
	(void)state;
	bad_host_case("garbage", 0, "[window] load: the FMU's process answered garbage (sequence 77");
	bad_host_case("badlog", 0, "[window] load: the FMU's process answered garbage (a malformed "
	                           "message)");
}

static void isolate__host_dies_mid_answer_or_never_answers__fatal(void **state)
{
	(void)state;
	bad_host_case("die", 0, "[window] load: the FMU's process exited with status 9");
	bad_host_case("silent", 0.2, "[window] load: no answer within 0.2 s; the FMU's process was "
	                             "killed");
#ifndef SART_PORTABLE_POSIX
	/* (only Linux seals the slot; make check-portable runs this file without the seal) */
	bad_host_case("shrink", 0, "[window] load: the FMU's process exited with status 4");
#endif
}

/* The window FMU behind this program as a host that forges one answer (forging_host), the
 * instance started. */
static SartInner *open_forged_caps(const char *mode, unsigned caps, Log *log)
{
	SartIsolation iso = {self_path, 0, 0, 0, -1, 0, NULL, NULL};
	setenv("SART_TEST_BAD_HOST", mode, 1);
	SartInner *in = open_fmu("window", "window", caps, 1, &iso, log, SART_OK);
	unsetenv("SART_TEST_BAD_HOST");
	start(in, WINDOW_GUID);
	return in;
}

static SartInner *open_forged(const char *mode, Log *log)
{
	return open_forged_caps(mode, 0, log);
}

/* The next clock tick rides on every answer of an inner with clocks (sart_channel.h): what
 * the host says after a step is what sart_inner_next_clock_time gives, with no call of its
 * own; a NaN is no time, and fatal; an inner without clocks ignores the field. */
static void isolate__next_tick_answered__taken_or_nan_fatal(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = open_forged_caps("ticks", SART_CAP_EVENT_MODE | SART_CAP_CLOCKS, &log);
	double reached = 0, x = 0;
	const SartVr vr = 0;
	assert_true(sart_inner_next_clock_time(in) == INFINITY);
	assert_int_equal(sart_inner_do_step(in, 1, 0.5, 0, &reached), SART_OK);
	assert_true(sart_inner_next_clock_time(in) == 1.625);
	assert_int_equal(sart_inner_get_real(in, &vr, 1, &x), SART_FATAL);
	assert_contains(sart_inner_message(in), "[window] getReal: the FMU's process answered "
	                                        "garbage (no next clock tick)");
	sart_inner_free(in);
	in = open_forged("ticks", &log);
	assert_int_equal(sart_inner_do_step(in, 1, 0.5, 0, &reached), SART_OK);
	assert_true(sart_inner_next_clock_time(in) == INFINITY);
	assert_int_equal(sart_inner_get_real(in, &vr, 1, &x), SART_OK);
	sart_inner_free(in);
	assert_nothing_left();
}

/* Found by tests/fuzz/fuzz_channel: a host whose answer to doStep claims a time outside the
 * step.  The call is fatal (the host lies), and *reached is NaN as on every error, not
 * left as the caller had it. */
static void isolate__step_answered_outside_itself__fatal_reached_nan(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = open_forged("farstep", &log);
	double reached = 42;
	assert_int_equal(sart_inner_do_step(in, 1, 0.5, 0, &reached), SART_FATAL);
	assert_true(isnan(reached));
	assert_contains(sart_inner_message(in), "[window] doStep(t = 1, h = 0.5): the FMU's "
	                                        "process answered garbage (a step reaching t = 2)");
	sart_inner_free(in);
	assert_nothing_left();
}

/* Found by tests/fuzz/fuzz_channel: a host that answers a state's serialized size with more
 * bytes than the shared memory could ever carry.  Handed on, the importer would allocate
 * that much (here 2^62 bytes) for a serialization bound to fail; it is an error of the
 * call instead, and the instance goes on. */
static void isolate__serialized_size_beyond_the_slot__error_not_allocated(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = open_forged("hugestate", &log);
	void *st = NULL;
	size_t size = 7;
	assert_int_equal(sart_inner_get_state(in, &st), SART_OK);
	assert_int_equal(sart_inner_serialized_size(in, st, &size), SART_ERROR);
	assert_int_equal(size, 7);
	assert_contains(sart_inner_message(in), "[window] serializedFMUstateSize: 4611686018427387904 "
	                                        "values or bytes do not fit in the shared memory");
	assert_int_equal(sart_inner_free_state(in, &st), SART_OK);
	assert_null(st);
	sart_inner_free(in);
	assert_nothing_left();
}

/* Found by tests/fuzz/fuzz_channel: a host that answers Fatal while its report of the call
 * says OK.  The call is fatal all the same, and no further call reaches the child. */
static void isolate__fatal_with_a_milder_report__still_fatal(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = open_forged("fatalmild", &log);
	SartVr vr = W_HEIGHT;
	double v;
	assert_int_equal(sart_inner_get_real(in, &vr, 1, &v), SART_FATAL);
	assert_contains(sart_inner_message(in), "[window] getReal returned Fatal");
	assert_int_equal(sart_inner_get_real(in, &vr, 1, &v), SART_FATAL);
	assert_contains(sart_inner_message(in), "[window] sart_inner_get_real: an earlier call was "
	                                        "fatal");
	sart_inner_free(in);
	assert_nothing_left();
}

static void isolate__missing_host__clear_error(void **state)
{
	(void)state;
	Log log = {0};
	SartIsolation iso = {"/nonexistent/sacc-fmu-host", 0, 0, 0, -1, 0, NULL, NULL};
	assert_null(open_fmu("window", "window", 0, 1, &iso, &log, SART_ERROR));
	assert_contains(log.all, "[window] cannot run the FMU host '/nonexistent/sacc-fmu-host': "
	                         "No such file or directory");
	assert_nothing_left();
}

/* The message of the host's answer: the first log record's text, after its category. */
static const char *answer_text(SartChan *ch)
{
	const SartLogRecord *r = (const SartLogRecord *)sart_chan_log(ch);
	return (const char *)sart_chan_log(ch) + sizeof(SartLogRecord) + r->cat_len;
}

/* A load request already in the slot (version, caps, length) sent to the host: refused,
 * its answer holding want; one that reaches_library is no malformed request. */
static void assert_load_answer(SartChan *ch, pid_t pid, uint64_t version, uint64_t caps,
                               uint64_t len, const char *want, int reaches_library)
{
	uint32_t seq;
	int ws;
	ch->h->op = SART_OP_LOAD;
	ch->h->n = version;
	ch->h->id = caps;
	ch->h->req_len = len;
	assert_int_equal(sart_chan_call(ch, pid, 5.0, &seq, &ws), SART_WAIT_ANSWERED);
	assert_int_equal(ch->h->status, SART_ERROR);
	const char *text = answer_text(ch);
	assert_contains(text, want);
	if (reaches_library)
		assert_null(strstr(text, "malformed"));
}

/* Requests no parent of ours writes, straight into a real host's slot. */
static void isolate__malformed_requests__answered_as_errors(void **state)
{
	(void)state;
	SartChan ch;
	assert_int_equal(sart_chan_create(&ch, 0, 50), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char ppid[32];
		snprintf(ppid, sizeof ppid, "%ld", (long)getppid());
		if (ch.fd == 3)
			fcntl(3, F_SETFD, 0);
		else
			dup2(ch.fd, 3);
		execl(host_path(), host_path(), "sart-host", "3", ppid, (char *)NULL);
		_exit(127);
	}
	static const struct {
		uint32_t op;
		uint64_t n, len;
		const char *want;
	} cases[] = {
		{SART_OP_GET_REAL, 1, 4, "malformed request: operation 5 before load"},
		{SART_OP_LOAD, 0, 3, "malformed request: load without name"},
		{999, 0, 0, "malformed request: unknown operation 999"},
	};
	uint32_t seq;
	int ws;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(sart_chan_data(&ch), 'x', 16);
		ch.h->op = cases[i].op;
		ch.h->n = cases[i].n;
		ch.h->req_len = cases[i].len;
		assert_int_equal(sart_chan_call(&ch, pid, 5.0, &seq, &ws), SART_WAIT_ANSWERED);
		assert_int_equal(ch.h->status, SART_ERROR);
		const char *text = answer_text(&ch);
		assert_contains(text, cases[i].want);
	}
	/* a load whose table of FMI 3.0 types runs past the request, or names no type */
	static const struct {
		uint64_t count;
		uint32_t type;
	} tables[] = {{1000000, 0}, {1, 99}};
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		unsigned char *d = sart_chan_data(&ch);
		uint32_t pair[2] = {7, tables[i].type};
		memcpy(d, "a\0b\0c\0\0", 8);
		memcpy(d + 8, &tables[i].count, 8);
		memcpy(d + 16, pair, 8);
		memcpy(d + 24, "v\0", 2);
		ch.h->op = SART_OP_LOAD;
		ch.h->n = 3;
		ch.h->req_len = 26;
		assert_int_equal(sart_chan_call(&ch, pid, 5.0, &seq, &ws), SART_WAIT_ANSWERED);
		assert_int_equal(ch.h->status, SART_ERROR);
		const char *text = answer_text(&ch);
		assert_contains(text, "malformed request: load with a bad table of FMI 3.0 types");
	}
	/* a Model Exchange load (sart_channel.h: after no types and no elements, at 24, the
	 * 64-byte block, then the value references) cut short, with counts beyond the request
	 * or states and their references disagreeing; the last, well formed, gets as far as
	 * the library */
	static const struct {
		uint64_t u[4]; /* nstates, nevent_indicators, nvrs, nevent_vrs */
		uint64_t len;
		const char *want;
	} mes[] = {
		{{2, 1, 2, 1}, 24 + 40, "malformed request: load with bad Model Exchange settings"},
		{{2, 1, 2, 1}, 24 + 64 + 16, "malformed request: load with bad Model Exchange settings"},
		{{2, 1, 2, (uint64_t)1 << 62}, 24 + 64 + 20, "malformed request: load with bad Model "
		                                            "Exchange settings"},
		{{2, 1, (uint64_t)1 << 61, 1}, 24 + 64 + 20, "malformed request: load with bad Model "
		                                             "Exchange settings"},
		{{3, 1, 2, 1}, 24 + 64 + 20, "malformed request: load with bad Model Exchange settings"},
		{{2, 1, 2, 1}, 24 + 64 + 20, "[a] cannot load FMU directory b"},
	};
	for (size_t i = 0; i < sizeof mes / sizeof mes[0]; i++) {
		unsigned char *d = sart_chan_data(&ch);
		const uint64_t zero = 0;
		const int64_t method = 0;
		const double dv[3] = {1e-6, 0, 0};
		const uint32_t vrs[5] = {1, 3, 2, 4, 6};
		memset(d, 0, 24 + 64 + 20);
		memcpy(d, "a\0b\0c\0", 6);
		memcpy(d + 8, &zero, 8);  /* no FMI 3.0 types */
		memcpy(d + 16, &zero, 8); /* no array elements */
		memcpy(d + 24, &method, 8);
		memcpy(d + 32, dv, sizeof dv);
		memcpy(d + 56, mes[i].u, sizeof mes[i].u);
		memcpy(d + 88, vrs, sizeof vrs);
		assert_load_answer(&ch, pid, 2, SART_CAP_MODEL_EXCHANGE, mes[i].len, mes[i].want,
		                   i + 1 == sizeof mes / sizeof mes[0]);
	}
	/* a load with clocks (after no types and no elements, at 24, a count and records of 32
	 * bytes): a count beyond the request, a kind that is none; the last, well formed, gets
	 * as far as the library */
	static const struct {
		uint64_t count;
		uint32_t kind;
		const char *want;
	} ses[] = {
		{(uint64_t)1 << 60, SART_CLOCK_PERIODIC, "malformed request: load with a bad table of "
		                                         "clocks"},
		{2, SART_CLOCK_PERIODIC, "malformed request: load with a bad table of clocks"},
		{1, 7, "malformed request: load with a bad table of clocks"},
		{1, SART_CLOCK_OUTPUT, "[a] cannot load FMU directory b"},
	};
	for (size_t i = 0; i < sizeof ses / sizeof ses[0]; i++) {
		unsigned char *d = sart_chan_data(&ch);
		const uint64_t zero = 0;
		const uint32_t w[4] = {9, ses[i].kind, 0, 0};
		const double iv[2] = {0.5, 0};
		memset(d, 0, 64);
		memcpy(d, "a\0b\0c\0", 6);
		memcpy(d + 8, &zero, 8);
		memcpy(d + 16, &zero, 8);
		memcpy(d + 24, &ses[i].count, 8);
		memcpy(d + 32, w, sizeof w);
		memcpy(d + 48, iv, sizeof iv);
		assert_load_answer(&ch, pid, 3, SART_CAP_SCHEDULED_EXECUTION, 64, ses[i].want,
		                   i + 1 == sizeof ses / sizeof ses[0]);
	}
	ch.h->id = 0;
	ch.h->op = SART_OP_QUIT;
	assert_int_equal(sart_chan_call(&ch, pid, 5.0, &seq, &ws), SART_WAIT_ANSWERED);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	sart_chan_close(&ch);
	assert_nothing_left();
}

/* Binary values on the channel: a present byte, a uint64 length and the bytes, zero bytes
 * kept; a record that does not fit, or runs past what was received, is refused. */
static void isolate__binary_records__bounded_both_ways(void **state)
{
	(void)state;
	unsigned char buf[64];
	size_t off = 0;
	static const unsigned char bytes[] = {0x00, 0x0a, 0x00};
	assert_int_equal(sart_chan_put_bytes(buf, sizeof buf, &off, bytes, 3), 0);
	assert_int_equal(off, 1 + 8 + 3);
	assert_int_equal(sart_chan_put_bytes(buf, sizeof buf, &off, NULL, 5), 0); /* absent */
	assert_int_equal(off, 2 * (1 + 8) + 3);
	assert_int_equal(sart_chan_put_bytes(buf, sizeof buf, &off, bytes, 0), 0); /* empty */
	size_t full = off;
	size_t big = full;
	assert_int_equal(sart_chan_put_bytes(buf, sizeof buf, &big, bytes, sizeof buf), -1);
	const unsigned char *p = NULL;
	size_t size = 99;
	off = 0;
	assert_int_equal(sart_chan_take_bytes(buf, full, &off, &p, &size), 0);
	assert_int_equal(size, 3);
	assert_memory_equal(p, bytes, 3);
	assert_int_equal(sart_chan_take_bytes(buf, full, &off, &p, &size), 0);
	assert_null(p);
	assert_int_equal(size, 0);
	assert_int_equal(sart_chan_take_bytes(buf, full, &off, &p, &size), 0);
	assert_non_null(p);
	assert_int_equal(size, 0);
	assert_int_equal(off, full);
	/* cut short: in the length, then in the bytes */
	off = 0;
	assert_int_equal(sart_chan_take_bytes(buf, 5, &off, &p, &size), -1);
	off = 0;
	assert_int_equal(sart_chan_take_bytes(buf, 1 + 8 + 2, &off, &p, &size), -1);
	/* a length beyond the buffer, as a child could write */
	uint64_t huge = UINT64_MAX;
	memcpy(buf + 1, &huge, sizeof huge);
	off = 0;
	assert_int_equal(sart_chan_take_bytes(buf, full, &off, &p, &size), -1);
}

/* A mapping whose header does not announce its size is refused by the host's side. */
static void isolate__shared_memory_cut_short__refused(void **state)
{
	(void)state;
	SartChan ch, child;
	const char *why = NULL;
	assert_int_equal(sart_chan_create(&ch, 0, 0), 0);
	ch.h->size += 4096;
	assert_int_equal(sart_chan_attach(&child, ch.fd, 0, &why), -1);
	assert_string_equal(why, "the shared memory is cut short (its size is not the one announced)");
	ch.h->magic = 0;
	assert_int_equal(sart_chan_attach(&child, ch.fd, 0, &why), -1);
	assert_string_equal(why, "the shared memory is not a channel of this version");
	sart_chan_close(&ch);
}

/* The doorbell host of the Wine case (sart_chan_set_bells), played by a child of this
 * program that speaks its protocol on two pipes: it sleeps on a byte of its stdin pipe and
 * rings the parent only when the parent said it sleeps.  n requests are answered, each with
 * its sequence number as ans_n; then the child marks itself asleep and exits without
 * reading, so that the parent's next ring meets a pipe with no reader. */
static void doorbell_host(SartChan *ch, int bell_in, int bell_out, int n)
{
	SartChanHeader *h = ch->h;
	uint32_t last = 0;
	for (int i = 0; i < n; i++) {
		for (;;) {
			__atomic_store_n(&h->child_sleeping, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&h->req_seq, __ATOMIC_SEQ_CST) != last)
				break;
			char b;
			if (read(bell_in, &b, 1) != 1)
				_exit(5);
		}
		__atomic_store_n(&h->child_sleeping, 0, __ATOMIC_SEQ_CST);
		last = __atomic_load_n(&h->req_seq, __ATOMIC_SEQ_CST);
		h->ans_n = last;
		__atomic_store_n(&h->ans_seq, last, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&h->parent_sleeping, __ATOMIC_SEQ_CST)) {
			char b = 1;
			if (write(bell_out, &b, 1) != 1)
				_exit(6);
		}
	}
	__atomic_store_n(&h->child_sleeping, 1, __ATOMIC_SEQ_CST);
	_exit(0);
}

/* Whether process pid is a zombie (it has exited, its descriptors closed, not yet reaped). */
static int is_zombie(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/* The parent's side of the doorbells: with no spin every call sleeps on the pipe and is
 * woken by the child's byte; a host that died leaves the ring without a reader, whose
 * SIGPIPE must neither end this process nor stay pending, and the call sees the death. */
static void isolate__doorbells__woken_and_a_dead_host_raises_no_sigpipe(void **state)
{
	(void)state;
	enum { CALLS = 200 };
	SartChan ch;
	int to_host[2], from_host[2];
	signal(SIGPIPE, SIG_DFL); /* a SIGPIPE delivered would end the test */
	assert_int_equal(sart_chan_create(&ch, 0, 0), 0);
	assert_int_equal(pipe(to_host), 0);
	assert_int_equal(pipe(from_host), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(to_host[1]);
		close(from_host[0]);
		doorbell_host(&ch, to_host[0], from_host[1], CALLS);
	}
	close(to_host[0]);
	close(from_host[1]);
	sart_chan_set_bells(&ch, to_host[1], from_host[0]);
	int ws = 0;
	for (int i = 0; i < CALLS; i++) {
		uint32_t seq;
		ch.h->ans_n = 0;
		assert_int_equal(sart_chan_call(&ch, pid, 5.0, &seq, &ws), SART_WAIT_ANSWERED);
		assert_int_equal(ch.h->ans_seq, seq);
		assert_int_equal(ch.h->ans_n, seq);
	}
	for (int i = 0; i < 2000 && !is_zombie(pid); i++) {
		struct timespec ms = {0, 1000000L};
		nanosleep(&ms, NULL);
	}
	assert_true(is_zombie(pid));
	uint32_t seq;
	assert_int_equal(sart_chan_call(&ch, pid, 5.0, &seq, &ws), SART_WAIT_DIED);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	sigset_t pending;
	assert_int_equal(sigpending(&pending), 0);
	assert_false(sigismember(&pending, SIGPIPE));
	sart_chan_close(&ch);
}

/* ---- this program as a misbehaving host ------------------------------------------------- */

/* Answers every request OK with nothing to say, as a host of an FMU that does nothing
 * would, except the one answer its mode forges; quits when told to. */
static int forging_host(SartChan *ch, uint32_t seq, const char *mode)
{
	for (;;) {
		SartChanHeader *h = ch->h;
		h->ans_op = h->op;
		h->status = SART_OK;
		h->log_len = 0;
		h->log_dropped = 0;
		h->ans_len = 0;
		h->ans_n = 0;
		h->ans_id = 1;
		h->reached = h->d[0] + h->d[1];
		h->next_tick = INFINITY;
		if (h->op == SART_OP_DO_STEP && !strcmp(mode, "ticks"))
			h->next_tick = h->d[0] + h->d[1] + 0.125;
		if (h->op == SART_OP_GET_REAL && !strcmp(mode, "ticks"))
			h->next_tick = NAN;
		if (h->op == SART_OP_DO_STEP && !strcmp(mode, "farstep"))
			h->reached = h->d[0] + 2 * h->d[1];
		if (h->op == SART_OP_SERIALIZED_SIZE && !strcmp(mode, "hugestate"))
			h->ans_n = (uint64_t)1 << 62;
		if (h->op == SART_OP_GET_REAL && !strcmp(mode, "fatalmild")) {
			/* Fatal, with the seam's report of the call at status OK */
			static const char cat[] = "logStatusOK", text[] = "[window] all is well";
			SartLogRecord r = {SART_OK, 1, sizeof cat, sizeof text};
			unsigned char *log = sart_chan_log(ch);
			memcpy(log, &r, sizeof r);
			memcpy(log + sizeof r, cat, sizeof cat);
			memcpy(log + sizeof r + sizeof cat, text, sizeof text);
			h->log_len = sizeof r + sizeof cat + sizeof text;
			h->status = SART_FATAL;
		}
		int quit = h->op == SART_OP_QUIT;
		sart_chan_answer(ch, seq);
		if (quit)
			return 0;
		seq = sart_chan_next(ch, seq);
	}
}

static int bad_host(int argc, char **argv, const char *mode)
{
	SartChan ch;
	const char *why;
	(void)argc;
	if (sart_chan_attach(&ch, atoi(argv[2]), 0, &why) != 0)
		return 2;
	uint32_t seq = sart_chan_next(&ch, 0);
	SartChanHeader *h = ch.h;
	if (!strcmp(mode, "farstep") || !strcmp(mode, "hugestate") || !strcmp(mode, "fatalmild") ||
	    !strcmp(mode, "ticks"))
		return forging_host(&ch, seq, mode);
	if (!strcmp(mode, "garbage")) {
		h->ans_op = 1234;
		h->status = 99;
		__atomic_store_n(&h->ans_seq, 77, __ATOMIC_SEQ_CST);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "badlog")) {
		h->ans_op = h->op;
		h->status = 0;
		h->log_len = 40;
		memset(sart_chan_log(&ch), 0xff, 40);
		sart_chan_answer(&ch, seq);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "die")) {
		h->ans_op = h->op;
		h->status = 0;
		_exit(9);
	}
	if (!strcmp(mode, "shrink"))
		return ftruncate(ch.fd, 4096) == 0 ? 3 : 4; /* the seal forbids it */
	for (;;) /* silent */
		pause();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sart-host")) {
		const char *mode = getenv("SART_TEST_BAD_HOST");
		return mode ? bad_host(argc, argv, mode) : sart_host_main(argc, argv);
	}
	sanitizer_lets_signals_kill();
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
	if (n > 0)
		self_path[n] = '\0';
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(isolate__power_states__bit_identical_to_in_process),
		cmocka_unit_test(isolate__controller_discard__reached_time_and_message),
		cmocka_unit_test(isolate__wrong_guid_and_missing_fmu__messages_as_in_process),
		cmocka_unit_test(isolate__window_strings_and_derivatives__carried),
		cmocka_unit_test(isolate__segv_in_do_step__fatal_naming_the_signal),
		cmocka_unit_test(isolate__abort_in_do_step__fatal_naming_the_signal),
		cmocka_unit_test(isolate__exit_in_do_step__fatal_naming_the_status),
		cmocka_unit_test(isolate__endless_loop__killed_after_the_step_timeout),
		cmocka_unit_test(isolate__sigchld_ignored__crash_still_noticed),
		cmocka_unit_test(isolate__shared_memory_too_small__error_not_crash),
		cmocka_unit_test(isolate__host_answers_garbage__fatal_not_crash),
		cmocka_unit_test(isolate__host_dies_mid_answer_or_never_answers__fatal),
		cmocka_unit_test(isolate__step_answered_outside_itself__fatal_reached_nan),
		cmocka_unit_test(isolate__serialized_size_beyond_the_slot__error_not_allocated),
		cmocka_unit_test(isolate__next_tick_answered__taken_or_nan_fatal),
		cmocka_unit_test(isolate__fatal_with_a_milder_report__still_fatal),
		cmocka_unit_test(isolate__missing_host__clear_error),
		cmocka_unit_test(isolate__malformed_requests__answered_as_errors),
		cmocka_unit_test(isolate__binary_records__bounded_both_ways),
		cmocka_unit_test(isolate__shared_memory_cut_short__refused),
		cmocka_unit_test(isolate__doorbells__woken_and_a_dead_host_raises_no_sigpipe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
