/* test_e2e_faulty.c — a generated wrapper over a faulty inner FMU: each fault of the
 * fault-injection FMU (tests/fmus/faulty/) met by the wrapper tests/e2e/faulty_sa.sa, built
 * by `sacc build` (the Makefile's e2e target), unpacked by `sacc unpack` and stepped through
 * the suite's plain dlopen importer.  For each: the status the wrapper returns, the message
 * it logs (naming the inner FMU and the call), and what it allows afterwards (docs/fmu.md,
 * "Behaviour"; docs/simulate.md, "Status handling").
 *
 * faulty_sa's inputs u, fault, at and hang_seconds go to the inner FMU at each step; its
 * output x is the inner's x (x' = u, u = 1: x = t).
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi2_importer.h"
#include "assert_close.h"

enum { FAULT_DISCARD = 1, FAULT_ERROR, FAULT_FATAL, FAULT_NAN, FAULT_INF,
       FAULT_IGNORE_SET_STATE, FAULT_HANG };

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* ---- the wrapper, loaded once ------------------------------------------------------------ */

static Fmi2Api api;
static char guid[64], uri[PATH_MAX + 32], dir[PATH_MAX];
static fmi2ValueReference vr_u, vr_fault, vr_at, vr_hang, vr_x;

static char log_all[16384]; /* every message, "status category: message" a line */

static const char *status_name(fmi2Status s)
{
	switch (s) {
	case fmi2OK: return "OK";
	case fmi2Warning: return "Warning";
	case fmi2Discard: return "Discard";
	case fmi2Error: return "Error";
	case fmi2Fatal: return "Fatal";
	default: return "Pending";
	}
}

static void test_logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                        fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name;
	size_t used = strlen(log_all);
	if (used + 2 >= sizeof log_all)
		return;
	used += (size_t)snprintf(log_all + used, sizeof log_all - used, "%s %s: ",
	                         status_name(status), category);
	if (used + 2 >= sizeof log_all)
		return;
	va_list ap;
	va_start(ap, message);
	vsnprintf(log_all + used, sizeof log_all - used, message, ap);
	va_end(ap);
	used = strlen(log_all);
	if (used + 1 < sizeof log_all)
		strcat(log_all, "\n");
}

static const fmi2CallbackFunctions callbacks = {test_logger, calloc, free, NULL, NULL};

#define assert_logged(needle) assert_logged_at((needle), __FILE__, __LINE__)

static void assert_logged_at(const char *needle, const char *file, int line)
{
	if (strstr(log_all, needle))
		return;
	print_error("'%s' not logged; the log:\n%s\n", needle, log_all);
	_fail(file, line);
}

static fmi2ValueReference vr_of(const char *name)
{
	char path[PATH_MAX + 32], line[1024], key[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	snprintf(key, sizeof key, "name=\"%s\"", name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	long vr = -1;
	while (fgets(line, sizeof line, fp)) {
		char *k = strstr(line, key), *v;
		if (k && (v = strstr(line, "valueReference=\""))) {
			vr = strtol(v + 16, NULL, 10);
			break;
		}
		if ((v = strstr(line, "guid=\""))) {
			size_t n = strcspn(v + 6, "\"");
			assert_true(n < sizeof guid);
			memcpy(guid, v + 6, n);
			guid[n] = '\0';
		}
	}
	fclose(fp);
	if (vr < 0)
		fail_msg("faulty_sa has no variable %s", name);
	return (fmi2ValueReference)vr;
}

static int setup(void **state)
{
	(void)state;
	char cmd[3 * PATH_MAX], rel[PATH_MAX];
	snprintf(rel, sizeof rel, "%s/e2e-unpacked/faulty_sa", build_dir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/e2e-unpacked' && "
	         "'%s/sacc' unpack '%s/e2e/faulty_sa.fmu' '%s'", rel, build_dir(), build_dir(),
	         build_dir(), rel);
	if (system(cmd) != 0 || !realpath(rel, dir))
		return -1;
	snprintf(uri, sizeof uri, "file://%s/resources", dir);
	char lib[PATH_MAX + 64];
	snprintf(lib, sizeof lib, "%s/binaries/linux64/faulty_sa.so", dir);
	fmi2_import(&api, lib);
	vr_u = vr_of("u");
	vr_fault = vr_of("fault");
	vr_at = vr_of("at");
	vr_hang = vr_of("hang_seconds");
	vr_x = vr_of("x");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fmi2_unimport(&api);
	return 0;
}

/* An instance with the fault set, initialized at t = 0, the log emptied. */
static fmi2Component start(int fault, double at, double hang)
{
	fmi2Component c = api.instantiate("fs", fmi2CoSimulation, guid, uri, &callbacks, fmi2False,
	                                  fmi2False);
	assert_non_null(c);
	fmi2Integer f = fault;
	fmi2Real a = at, hs = hang;
	assert_int_equal(api.set_integer(c, &vr_fault, 1, &f), fmi2OK);
	assert_int_equal(api.set_real(c, &vr_at, 1, &a), fmi2OK);
	assert_int_equal(api.set_real(c, &vr_hang, 1, &hs), fmi2OK);
	assert_int_equal(api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(api.enter_init(c), fmi2OK);
	assert_int_equal(api.exit_init(c), fmi2OK);
	log_all[0] = '\0';
	return c;
}

static double get_x(fmi2Component c)
{
	double v = -1;
	assert_int_equal(api.get_real(c, &vr_x, 1, &v), fmi2OK);
	return v;
}

/* Steps of 0.1 from t = 0 up to (not including) `until`, each fmi2OK, x = t after each. */
static double steps_ok(fmi2Component c, double until)
{
	double t = 0;
	while (t + 0.1 < until + 1e-9) {
		assert_int_equal(api.do_step(c, t, 0.1, fmi2True), fmi2OK);
		t += 0.1;
		assert_close(get_x(c), t, 1e-12);
	}
	return t;
}

/* ---- the faults ------------------------------------------------------------------------- */

static void faulty_sa__no_fault__x_is_t(void **state)
{
	(void)state;
	fmi2Component c = start(0, 0, 0);
	steps_ok(c, 1.0);
	assert_string_equal(log_all, "");
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
}

static void faulty_sa__discard__passed_up_with_last_successful_time(void **state)
{
	(void)state;
	fmi2Component c = start(FAULT_DISCARD, 0.25, 0);
	double t = steps_ok(c, 0.2);
	fmi2FMUstate s = NULL;
	assert_int_equal(api.get_state(c, &s), fmi2OK);
	assert_int_equal(api.do_step(c, t, 0.1, fmi2True), fmi2Discard);
	double last = -1;
	assert_int_equal(api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_close(last, 0.25, 1e-12);
	assert_logged("Discard logInner: [faulty] fmi2DoStep(t = 0.2, h = "
	              "0.1) returned fmi2Discard; last successful time 0.25\n"
	              "Discard logStatusDiscard: fmi2DoStep: the control rules took "
	              "0.04999999999999999 of the step 0.1 from t = "
	              "0.2; the inner FMUs cannot return to t\n");
	assert_logged("Discard logInner: [faulty] fault discard: the step from t = "
	              "0.2 to 0.3 stops at t = 0.25\n");
	/* stepFailed: no step until a state is restored */
	log_all[0] = '\0';
	assert_int_equal(api.do_step(c, last, 0.05, fmi2True), fmi2Error);
	assert_logged("fmi2DoStep is not allowed in state stepFailed");
	assert_int_equal(api.set_state(c, s), fmi2OK);
	assert_int_equal(api.do_step(c, t, 0.05, fmi2True), fmi2OK);
	assert_close(get_x(c), 0.25, 1e-12);
	assert_int_equal(api.do_step(c, 0.25, 0.1, fmi2True), fmi2OK);
	assert_close(get_x(c), 0.35, 1e-12);
	api.free_state(c, &s);
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
}

static void faulty_sa__error__fmi2Error_naming_inner_and_call(void **state)
{
	(void)state;
	fmi2Component c = start(FAULT_ERROR, 0.15, 0);
	steps_ok(c, 0.1);
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2Error);
	assert_logged("\nError logStatusError: [wrapper] do_step of 'faulty' failed: [faulty] "
	              "fmi2DoStep(t = 0.1, h = 0.1) returned "
	              "fmi2Error\nError logStatusError: fmi2DoStep: the step from t = "
	              "0.1 failed\n");
	assert_logged("Error logInner: [faulty] fault error: the step from t = 0.1 to 0.2 fails\n");
	/* afterwards: only reset or free */
	log_all[0] = '\0';
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2Error);
	assert_logged("fmi2DoStep is not allowed in state error");
	api.free_instance(c);
}

static fmi2Component volatile fatal_instance; /* volatile: the store must stay */

static void faulty_sa__fatal__fmi2Fatal_naming_inner_and_call(void **state)
{
	(void)state;
	fmi2Component c = start(FAULT_FATAL, 0.15, 0);
	steps_ok(c, 0.1);
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2Fatal);
	assert_logged("\nFatal logStatusFatal: [wrapper] do_step of 'faulty' failed: [faulty] "
	              "fmi2DoStep(t = 0.1, h = 0.1) returned "
	              "fmi2Fatal\nFatal logStatusFatal: fmi2DoStep: the step from t = "
	              "0.1 failed\n");
	assert_logged("Fatal logInner: [faulty] fault fatal: the step from t = 0.1 to 0.2 fails\n");
	log_all[0] = '\0';
	fmi2Real x;
	assert_true(api.get_real(c, &vr_x, 1, &x) >= fmi2Error);
	assert_true(api.do_step(c, 0.1, 0.1, fmi2True) >= fmi2Error);
	/* FMI 2.0: after fmi2Fatal no function may be called, fmi2FreeInstance included (the
	 * runtime itself never frees a fatal inner instance); the instance is kept, reachable */
	fatal_instance = c;
}

static void nonfinite(int fault, const char *shown)
{
	fmi2Component c = start(fault, 0.15, 0);
	steps_ok(c, 0.1);
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2Error);
	char want[256];
	snprintf(want, sizeof want, "Error logStatusError: [wrapper] reading the outputs of "
	         "'faulty': fmi2GetReal gave %s for faulty.x\nError logStatusError: fmi2DoStep: "
	         "the step from t = 0.1 failed\n", shown);
	assert_logged(want);
	/* the wrapper never hands the value on: its output is still the last finite one */
	log_all[0] = '\0';
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2Error);
	assert_logged("fmi2DoStep is not allowed in state error");
	api.free_instance(c);
}

static void faulty_sa__nan__error_naming_inner_port(void **state)
{
	(void)state;
	nonfinite(FAULT_NAN, "nan");
}

static void faulty_sa__inf__error_naming_inner_port(void **state)
{
	(void)state;
	nonfinite(FAULT_INF, "inf");
}

static void faulty_sa__ignored_set_state__next_step_refused_by_inner(void **state)
{
	(void)state;
	/* The inner claims canGetAndSetFMUstate but restores nothing: the wrapper restores its
	 * own part, the inner stays at 0.2, and its next step at 0.1 is refused.  (Detecting
	 * the lie up front is `sacc inspect --probe-state`'s job.) */
	fmi2Component c = start(FAULT_IGNORE_SET_STATE, 0, 0);
	steps_ok(c, 0.1);
	fmi2FMUstate s = NULL;
	assert_int_equal(api.get_state(c, &s), fmi2OK);
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2OK);
	assert_int_equal(api.set_state(c, s), fmi2OK);
	assert_close(get_x(c), 0.1, 1e-12); /* the wrapper's own storage was restored */
	assert_int_equal(api.do_step(c, 0.1, 0.1, fmi2True), fmi2Error);
	assert_logged("\nError logStatusError: [wrapper] do_step of 'faulty' failed: [faulty] "
	              "fmi2DoStep(t = 0.1, h = 0.1) returned "
	              "fmi2Error\n");
	assert_logged("Error logInner: [faulty] fmi2DoStep: communication point 0.10000000000000001 "
	              "is not the instance's time 0.20000000000000001\n");
	api.free_state(c, &s);
	api.free_instance(c);
}

static void faulty_sa__hang__step_waits_for_the_inner(void **state)
{
	(void)state;
	/* No wall-clock limit in the wrapper (a call cannot be preempted from inside the
	 * process that makes it): the step returns when the inner does, fmi2OK.  The limit
	 * belongs to the orchestrator. */
	fmi2Component c = start(FAULT_HANG, 0.05, 0.3);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(api.do_step(c, 0, 0.1, fmi2True), fmi2OK);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double took = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
	assert_true(took >= 0.3);
	assert_close(get_x(c), 0.1, 1e-12);
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(faulty_sa__no_fault__x_is_t),
		cmocka_unit_test(faulty_sa__discard__passed_up_with_last_successful_time),
		cmocka_unit_test(faulty_sa__error__fmi2Error_naming_inner_and_call),
		cmocka_unit_test(faulty_sa__fatal__fmi2Fatal_naming_inner_and_call),
		cmocka_unit_test(faulty_sa__nan__error_naming_inner_port),
		cmocka_unit_test(faulty_sa__inf__error_naming_inner_port),
		cmocka_unit_test(faulty_sa__ignored_set_state__next_step_refused_by_inner),
		cmocka_unit_test(faulty_sa__hang__step_waits_for_the_inner),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
