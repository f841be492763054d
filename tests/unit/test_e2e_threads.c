/* test_e2e_threads.c — wrappers built with `sacc build --threads N`: tests/e2e/threads_sa.sa
 * (three burn FMUs stepped by one batch of independent do_steps) built with one thread, with
 * two threads and every batch forced parallel (CC="cc -DSART_BATCH_ALWAYS", so that the
 * parallel path runs whatever the inners cost), and with two threads and the inners out of
 * process; each unpacked by `sacc unpack` and driven through the suite's dlopen importer.
 * What an importer sees (every output after every step, every status, every message in
 * order, the last successful time of a discard) must be the same text for all three, with
 * warnings, a discard and an error of one inner among it; the values are also checked
 * against x' = u by hand.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (and CC the
 * compiler the wrappers are built with, cc by default). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_importer.h"

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static char work[PATH_MAX], one_dir[PATH_MAX], two_dir[PATH_MAX], iso_dir[PATH_MAX];

/* What the importer saw, in order. */
static char seen[1 << 16];

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	size_t used = strlen(seen);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(seen + used, sizeof seen - used, fmt, ap);
	va_end(ap);
}

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
	char text[4096];
	va_list ap;
	(void)env, (void)name;
	va_start(ap, message);
	vsnprintf(text, sizeof text, message, ap);
	va_end(ap);
	note("log %d %s: %s\n", (int)status, category, text);
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static int build_and_unpack(const char *env, const char *opts, const char *sub, char *out)
{
	char cmd[8 * PATH_MAX], rel[2 * PATH_MAX];
	snprintf(rel, sizeof rel, "%s/%s", work, sub);
	snprintf(cmd, sizeof cmd, "%s '%s/sacc' build -L '%s/fmus' -o '%s/%s.fmus' %s "
	         "tests/e2e/threads_sa.sa && '%s/sacc' unpack '%s/%s.fmus/threads_sa.fmu' '%s'",
	         env, build_dir(), build_dir(), work, sub, opts, build_dir(), work, sub, rel);
	if (system(cmd) != 0)
		return -1;
	return realpath(rel, out) ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	char cmd[3 * PATH_MAX];
	/* $CC builds every wrapper (the TSan run gives one with -fsanitize=thread) */
	const char *cc = getenv("CC");
	char plain[PATH_MAX], always[PATH_MAX];
	snprintf(plain, sizeof plain, "CC='%s'", cc && *cc ? cc : "cc");
	snprintf(always, sizeof always, "CC='%s -DSART_BATCH_ALWAYS'", cc && *cc ? cc : "cc");
	snprintf(work, sizeof work, "%s/e2e-threads", build_dir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", work, work);
	if (system(cmd) != 0 || build_and_unpack(plain, "--threads 1", "one", one_dir) ||
	    build_and_unpack(always, "--threads 2", "two", two_dir) ||
	    build_and_unpack(always, "--threads 2 --isolate all", "iso", iso_dir))
		return -1;
	return 0;
}

/* threads_sa's value references (its model description; read back in the test below). */
enum { VR_XA = 0, VR_XB = 1, VR_XC = 2, VR_YA = 3, VR_YC = 4 };
enum { VR_A_WARN_EVERY = 1, VR_B_WARN_EVERY = 3, VR_C_WARN_EVERY = 5, VR_B_DISCARD_AT = 15,
       VR_C_FAIL_AT = 19, VR_A_WORK = 0 };

/* A run of the wrapper in dir: up to 120 steps of 0.01 from 0, until a discard or an
 * error, b warning every 7th step and discarding once at
 * 0.555, a every 7th and c every 3rd too (so that several inners of one batch log in one
 * step), c failing after fail_at (< 0: never); everything the importer sees, into seen. */
static void run(const char *dir, double fail_at)
{
	Fmi2Api api;
	char uri[PATH_MAX + 16], guid[128] = "";
	FILE *md;
	char path[PATH_MAX + 32], line[1024];
	snprintf(path, sizeof path, "%s/binaries/linux64/threads_sa.so", dir);
	fmi2_import(&api, path);
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	md = fopen(path, "r");
	assert_non_null(md);
	while (fgets(line, sizeof line, md)) {
		char *g = strstr(line, "guid=\"");
		if (g) {
			g += 6;
			size_t n = strcspn(g, "\"");
			memcpy(guid, g, n);
			guid[n] = '\0';
		}
	}
	fclose(md);
	snprintf(uri, sizeof uri, "file://%s/resources", dir);
	seen[0] = '\0';
	fmi2Component c = api.instantiate("w", fmi2CoSimulation, guid, uri, &callbacks, fmi2False,
	                                  fmi2False);
	assert_non_null(c);
	const fmi2ValueReference ivr[] = {VR_A_WARN_EVERY, VR_B_WARN_EVERY, VR_C_WARN_EVERY,
	                                  VR_A_WORK};
	const fmi2Integer iv[] = {7, 7, 3, 2000};
	const fmi2ValueReference rvr[] = {VR_B_DISCARD_AT, VR_C_FAIL_AT};
	const fmi2Real rv[] = {0.555, fail_at};
	assert_int_equal(api.set_integer(c, ivr, 4, iv), fmi2OK);
	assert_int_equal(api.set_real(c, rvr, 2, rv), fmi2OK);
	assert_int_equal(api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(api.enter_init(c), fmi2OK);
	assert_int_equal(api.exit_init(c), fmi2OK);
	double t = 0;
	const double h = 0.01;
	for (int i = 0; i < 120; i++) {
		fmi2Status st = api.do_step(c, t, h, fmi2True);
		note("step %d t=%a status %d\n", i, t, (int)st);
		if (st == fmi2Discard) {
			/* the control rules pass the inner's discard up: the wrapper stays where b
			 * stopped (stepFailed), and the importer can only ask where that is */
			fmi2Real lst = 0;
			assert_int_equal(api.get_real_status(c, fmi2LastSuccessfulTime, &lst), fmi2OK);
			note("last successful %a\n", lst);
			break;
		}
		if (st > fmi2Discard)
			break;
		t += h;
		const fmi2ValueReference ovr[] = {VR_XA, VR_XB, VR_XC, VR_YA, VR_YC};
		fmi2Real o[5];
		assert_int_equal(api.get_real(c, ovr, 5, o), fmi2OK);
		note("out t=%a %a %a %a %a %a\n", t, o[0], o[1], o[2], o[3], o[4]);
	}
	api.free_instance(c);
	fmi2_unimport(&api);
}

static char expect[sizeof seen];

/* The same text from one thread, two, and two with the inners out of process. */
static void same_on_every_build(double fail_at)
{
	run(one_dir, fail_at);
	memcpy(expect, seen, sizeof seen);
	run(two_dir, fail_at);
	assert_string_equal(seen, expect);
	run(iso_dir, fail_at);
	assert_string_equal(seen, expect);
	memcpy(seen, expect, sizeof seen);
}

static void threads__warnings_and_discard__same_as_one_thread(void **state)
{
	(void)state;
	same_on_every_build(-1);
	/* the run did meet b's warnings and its discard */
	assert_non_null(strstr(seen, "log 1 logInner: [a] fmi2DoStep(t = 0.060000000000000005, h = 0.01) "
	                              "returned fmi2Warning\nlog 1 logInner: [b]"));
	assert_non_null(strstr(seen, "status 2"));
	assert_non_null(strstr(seen, "last successful"));
	/* x' = u by hand: a.u = GAIN = 0.5 and c.u = 0.5 from 0, so xa = xc = 0.5 t after the
	 * last step that went whole */
	const char *last = strstr(seen, "last successful");
	assert_non_null(last);
	while (last > seen && strncmp(last, "out t=", 6) != 0)
		last--;
	double t_end, xa, xb, xc;
	assert_int_equal(sscanf(last, "out t=%la %la %la %la", &t_end, &xa, &xb, &xc), 4);
	assert_true(fabs(t_end - 0.55) < 1e-9); /* b stopped in the step from 0.55 */
	assert_true(fabs(xa - 0.5 * t_end) < 1e-12);
	assert_true(fabs(xc - 0.5 * t_end) < 1e-12);
	assert_true(xb > 0 && xb < xa); /* b integrates c's x of the step before */
}

static void threads__inner_error__same_as_one_thread(void **state)
{
	(void)state;
	same_on_every_build(0.305);
	assert_non_null(strstr(seen, "status 3"));
	assert_non_null(strstr(seen, "[c]"));
}

/* Whether the C of the wrapper unpacked in dir (its sources/NAME.c) holds needle. */
static bool source_has(const char *dir, const char *name, const char *needle)
{
	char path[PATH_MAX + 64], line[4096];
	snprintf(path, sizeof path, "%s/sources/%s.c", dir, name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	bool found = false;
	while (!found && fgets(line, sizeof line, fp))
		found = strstr(line, needle) != NULL;
	fclose(fp);
	return found;
}

/* The compiler's analysis: threads_sa's three do_steps are one batch with --threads 2 and
 * none with --threads 1; threads_dep_sa's depend on each other and stay alone. */
static void threads__independent_runs_only__are_batched(void **state)
{
	(void)state;
	assert_true(source_has(two_dir, "threads_sa", "sart_do_step_batch(w, s, 0, 3, "));
	assert_true(source_has(two_dir, "threads_sa", ".nbatches = 1,"));
	assert_false(source_has(one_dir, "threads_sa", "sart_do_step_batch"));
	char dep[PATH_MAX + 64], cmd[4 * PATH_MAX];
	snprintf(dep, sizeof dep, "%s/dep", work);
	snprintf(cmd, sizeof cmd, "'%s/sacc' unpack '%s/two.fmus/threads_dep_sa.fmu' '%s'",
	         build_dir(), work, dep);
	assert_int_equal(system(cmd), 0);
	assert_false(source_has(dep, "threads_dep_sa", "sart_do_step_batch"));
	assert_true(source_has(dep, "threads_dep_sa", "sart_do_step(w, s, inner_b, t, H_a)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(threads__independent_runs_only__are_batched),
		cmocka_unit_test(threads__warnings_and_discard__same_as_one_thread),
		cmocka_unit_test(threads__inner_error__same_as_one_thread),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
