/* test_e2e_isolated.c — wrappers whose inner runs out of process (`sacc build --isolate`):
 * tests/e2e/faulty_sa.sa built with --isolate all (FMI 2.0) and with --fmi 3 --isolate all,
 * unpacked by `sacc unpack` and driven by the suite's plain dlopen importers.  An inner
 * that crashes (SIGSEGV, abort, exit inside its doStep) gives the importer an error status
 * and a logged message naming the inner, the call and the signal; the importer lives on,
 * frees the instance, and nothing is left: no child process, nothing new in /dev/shm or in
 * the temporary directory.  FMU states serialized through the isolated wrapper are the
 * in-process wrapper's bytes, and a rollback to them redoes a step bit for bit.
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath, setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmi2_importer.h"
#include "fmi3_importer.h"

enum { FAULT_SEGV = 8, FAULT_ABORT = 9, FAULT_EXIT = 10 };
/* faulty_sa's value references (its model description lists u, fault, at, hang_seconds, x
 * in this order in both versions; checked against the files in setup) */
static unsigned vr_u, vr_fault, vr_at, vr_x;

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static char work[PATH_MAX], iso_dir[PATH_MAX], inproc_dir[PATH_MAX], iso3_dir[PATH_MAX];
static char tmp_dir[PATH_MAX];
static char log_all[16384];

static void append_log(const char *category, const char *text)
{
	size_t used = strlen(log_all);
	snprintf(log_all + used, sizeof log_all - used, "%s: %s\n", category, text);
}

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	char text[4096];
	va_list ap;
	(void)env, (void)name, (void)status;
	va_start(ap, message);
	vsnprintf(text, sizeof text, message, ap);
	va_end(ap);
	append_log(category, text);
}

static const fmi2CallbackFunctions callbacks = {logger2, calloc, free, NULL, NULL};

#define assert_logged(needle) assert_logged_at((needle), __FILE__, __LINE__)

static void assert_logged_at(const char *needle, const char *file, int line)
{
	if (strstr(log_all, needle))
		return;
	print_error("'%s' not logged; the log:\n%s\n", needle, log_all);
	_fail(file, line);
}

/* The value reference of variable name in dir's model description (-1 if none), and the
 * guid (or instantiationToken) into guid. */
static long md_lookup(const char *dir, const char *name, char *guid, size_t gsize)
{
	char path[PATH_MAX + 32], line[1024], key[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	snprintf(key, sizeof key, "name=\"%s\"", name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	long vr = -1;
	while (fgets(line, sizeof line, fp)) {
		char *v;
		if (strstr(line, key) && (v = strstr(line, "valueReference=\"")) && vr < 0)
			vr = strtol(v + 16, NULL, 10);
		if ((v = strstr(line, "guid=\"")) || (v = strstr(line, "instantiationToken=\""))) {
			v = strchr(v, '"') + 1;
			size_t n = strcspn(v, "\"");
			assert_true(n < gsize);
			memcpy(guid, v, n);
			guid[n] = '\0';
		}
	}
	fclose(fp);
	return vr;
}

static int sh(const char *cmd)
{
	return system(cmd);
}

static int build_and_unpack(const char *opts, const char *sub, char *out)
{
	char cmd[8 * PATH_MAX], rel[2 * PATH_MAX];
	snprintf(rel, sizeof rel, "%s/%s", work, sub);
	snprintf(cmd, sizeof cmd, "'%s/sacc' build -L '%s/fmus' -o '%s/%s.fmus' %s "
	         "tests/e2e/faulty_sa.sa && '%s/sacc' unpack '%s/%s.fmus/faulty_sa.fmu' '%s'",
	         build_dir(), build_dir(), work, sub, opts, build_dir(), work, sub, rel);
	if (sh(cmd) != 0)
		return -1;
	return realpath(rel, out) ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	char cmd[3 * PATH_MAX];
	snprintf(work, sizeof work, "%s/e2e-isolated", build_dir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/tmp'", work, work);
	if (sh(cmd) != 0 || build_and_unpack("--isolate all", "iso", iso_dir) ||
	    build_and_unpack("", "inproc", inproc_dir) ||
	    build_and_unpack("--fmi 3 --isolate faulty", "iso3", iso3_dir))
		return -1;
	snprintf(cmd, sizeof cmd, "%s/tmp", work);
	if (!realpath(cmd, tmp_dir))
		return -1;
	/* anything that made a temporary file or directory would make it here */
	setenv("TMPDIR", tmp_dir, 1);
	return 0;
}

/* ---- what must be left behind: nothing -------------------------------------------------- */

/* The number of processes whose parent is this one. */
static int children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[512];
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		FILE *fp = fopen(path, "r");
		if (!fp)
			continue;
		size_t len = fread(buf, 1, sizeof buf - 1, fp);
		fclose(fp);
		buf[len] = '\0';
		char *paren = strrchr(buf, ')');
		char st;
		long ppid;
		if (paren && sscanf(paren + 1, " %c %ld", &st, &ppid) == 2 && ppid == (long)getpid())
			n++;
	}
	closedir(d);
	return n;
}

/* The entries of dir, newline-separated, sorted by readdir order (compared as sets below). */
static int entries(const char *dir, char *out, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	out[0] = '\0';
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		size_t used = strlen(out);
		snprintf(out + used, size - used, "%s\n", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

typedef struct Left {
	char shm[8192];
	int nshm;
} Left;

static void snapshot(Left *l)
{
	l->nshm = entries("/dev/shm", l->shm, sizeof l->shm);
}

static void assert_nothing_left(const Left *before)
{
	char now[8192], tmp[1024];
	assert_int_equal(children(), 0);
	int n = entries("/dev/shm", now, sizeof now);
	assert_int_equal(n, before->nshm);
	for (char *p = now, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		char key[8200];
		snprintf(key, sizeof key, "%s\n", p);
		if (!strstr(before->shm, key))
			fail_msg("/dev/shm/%s was left behind", p);
	}
	assert_int_equal(entries(tmp_dir, tmp, sizeof tmp), 0);
}

/* ---- FMI 2.0 ------------------------------------------------------------------------------ */

typedef struct W2 {
	Fmi2Api api;
	char guid[64], uri[PATH_MAX + 32];
} W2;

static void open2(W2 *w, const char *dir)
{
	char lib[PATH_MAX + 64];
	snprintf(lib, sizeof lib, "%s/binaries/linux64/faulty_sa.so", dir);
	fmi2_import(&w->api, lib);
	snprintf(w->uri, sizeof w->uri, "file://%s/resources", dir);
	vr_u = (unsigned)md_lookup(dir, "u", w->guid, sizeof w->guid);
	vr_fault = (unsigned)md_lookup(dir, "fault", w->guid, sizeof w->guid);
	vr_at = (unsigned)md_lookup(dir, "at", w->guid, sizeof w->guid);
	vr_x = (unsigned)md_lookup(dir, "x", w->guid, sizeof w->guid);
}

static fmi2Component start2(W2 *w, int fault, double at)
{
	fmi2Component c = w->api.instantiate("fs", fmi2CoSimulation, w->guid, w->uri, &callbacks,
	                                     fmi2False, fmi2False);
	assert_non_null(c);
	fmi2Integer f = fault;
	fmi2Real a = at;
	assert_int_equal(w->api.set_integer(c, &vr_fault, 1, &f), fmi2OK);
	assert_int_equal(w->api.set_real(c, &vr_at, 1, &a), fmi2OK);
	assert_int_equal(w->api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(w->api.enter_init(c), fmi2OK);
	assert_int_equal(w->api.exit_init(c), fmi2OK);
	return c;
}

static double x2(W2 *w, fmi2Component c)
{
	double v = -1;
	assert_int_equal(w->api.get_real(c, &vr_x, 1, &v), fmi2OK);
	return v;
}

/* Steps of 0.125 (exact in binary) from 0; returns x after n of them (x = t). */
static double steps2(W2 *w, fmi2Component c, int from, int n)
{
	for (int i = from; i < from + n; i++) {
		assert_int_equal(w->api.do_step(c, i * 0.125, 0.125, fmi2True), fmi2OK);
		assert_true(x2(w, c) == (i + 1) * 0.125);
	}
	return x2(w, c);
}

static void crash2(int fault, const char *cause)
{
	W2 w;
	Left before;
	snapshot(&before);
	log_all[0] = '\0';
	open2(&w, iso_dir);
	fmi2Component c = start2(&w, fault, 0.5);
	assert_int_equal(children(), 1); /* the inner's host */
	steps2(&w, c, 0, 4);
	assert_int_equal(w.api.do_step(c, 0.5, 0.125, fmi2True), fmi2Error);
	assert_logged("[faulty] doStep(t = 0.5, h = 0.125): the FMU's process ");
	assert_logged(cause);
	/* the wrapper stays an instance the importer may ask and free */
	double v = -1;
	assert_int_equal(w.api.get_real(c, &vr_x, 1, &v), fmi2OK);
	assert_true(v == 0.5);
	assert_int_equal(w.api.do_step(c, 0.5, 0.125, fmi2True), fmi2Error);
	w.api.free_instance(c);
	fmi2_unimport(&w.api);
	assert_nothing_left(&before);
}

static void isolated_inner__segv__error_naming_inner_call_signal(void **state)
{
	(void)state;
	crash2(FAULT_SEGV, "died of signal 11 (SIGSEGV");
}

static void isolated_inner__abort__error_naming_inner_call_signal(void **state)
{
	(void)state;
	crash2(FAULT_ABORT, "died of signal 6 (SIGABRT");
}

static void isolated_inner__exit__error_naming_inner_call_status(void **state)
{
	(void)state;
	crash2(FAULT_EXIT, "exited with status 3");
}

/* A run without a fault frees everything it made too, through terminate and free. */
static void isolated_inner__normal_run__nothing_left(void **state)
{
	(void)state;
	W2 w;
	Left before;
	snapshot(&before);
	log_all[0] = '\0';
	open2(&w, iso_dir);
	fmi2Component c = start2(&w, 0, 0);
	assert_true(steps2(&w, c, 0, 8) == 1.0);
	assert_int_equal(w.api.terminate(c), fmi2OK);
	w.api.free_instance(c);
	fmi2_unimport(&w.api);
	assert_string_equal(log_all, "");
	assert_nothing_left(&before);
}

/* The serialized state after three steps, in a malloc'd buffer of *size bytes. */
static unsigned char *serialized_after_three(W2 *w, fmi2Component c, size_t *size)
{
	fmi2FMUstate s = NULL;
	steps2(w, c, 0, 3);
	assert_int_equal(w->api.get_state(c, &s), fmi2OK);
	assert_int_equal(w->api.serialized_size(c, s, size), fmi2OK);
	unsigned char *bytes = malloc(*size);
	assert_non_null(bytes);
	assert_int_equal(w->api.serialize(c, s, (fmi2Byte *)bytes, *size), fmi2OK);
	assert_int_equal(w->api.free_state(c, &s), fmi2OK);
	return bytes;
}

static void isolated_inner__serialized_state__bit_identical_and_rolls_back(void **state)
{
	(void)state;
	W2 in, iso;
	size_t n_in = 0, n_iso = 0;
	Left before;
	snapshot(&before);
	open2(&in, inproc_dir);
	fmi2Component ci = start2(&in, 0, 0);
	unsigned char *b_in = serialized_after_three(&in, ci, &n_in);
	in.api.free_instance(ci);
	fmi2_unimport(&in.api);

	open2(&iso, iso_dir);
	fmi2Component c = start2(&iso, 0, 0);
	unsigned char *b_iso = serialized_after_three(&iso, c, &n_iso);
	assert_true(n_in > 0);
	assert_int_equal(n_iso, n_in);
	assert_memory_equal(b_iso, b_in, n_in);

	/* rollback: two steps on, then back to t = 3/8 from the bytes and the same steps again */
	double later = steps2(&iso, c, 3, 2);
	fmi2FMUstate s = NULL;
	assert_int_equal(iso.api.deserialize(c, (const fmi2Byte *)b_in, n_in, &s), fmi2OK);
	assert_int_equal(iso.api.set_state(c, s), fmi2OK);
	assert_true(x2(&iso, c) == 0.375);
	assert_true(steps2(&iso, c, 3, 2) == later);
	assert_int_equal(iso.api.free_state(c, &s), fmi2OK);
	assert_int_equal(iso.api.terminate(c), fmi2OK);
	iso.api.free_instance(c);
	fmi2_unimport(&iso.api);
	free(b_in);
	free(b_iso);
	assert_nothing_left(&before);
}

/* ---- FMI 3.0 ------------------------------------------------------------------------------ */

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
	(void)env, (void)status;
	append_log(category, message);
}

static void isolated_inner_fmi3__segv__fmi3error(void **state)
{
	(void)state;
	Fmi3Api api;
	char lib[PATH_MAX + 64], token[64], res[PATH_MAX + 16];
	Left before;
	snapshot(&before);
	log_all[0] = '\0';
	snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/faulty_sa.so", iso3_dir);
	snprintf(res, sizeof res, "%s/resources/", iso3_dir);
	fmi3_import(&api, lib);
	fmi3ValueReference vf = (fmi3ValueReference)md_lookup(iso3_dir, "fault", token, sizeof token);
	fmi3ValueReference va = (fmi3ValueReference)md_lookup(iso3_dir, "at", token, sizeof token);
	fmi3ValueReference vx = (fmi3ValueReference)md_lookup(iso3_dir, "x", token, sizeof token);
	fmi3Instance c = api.instantiate("fs3", token, res, fmi3False, fmi3False, fmi3False,
	                                 fmi3False, NULL, 0, NULL, logger3, NULL);
	assert_non_null(c);
	fmi3Int32 f = FAULT_SEGV;
	fmi3Float64 a = 0.25;
	assert_int_equal(api.set_int32(c, &vf, 1, &f, 1), fmi3OK);
	assert_int_equal(api.set_float64(c, &va, 1, &a, 1), fmi3OK);
	assert_int_equal(api.enter_init(c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(api.exit_init(c), fmi3OK);
	fmi3Boolean event = fmi3False, term = fmi3False, early = fmi3False;
	fmi3Float64 last = 0, x = -1;
	for (int i = 0; i < 2; i++)
		assert_int_equal(api.do_step(c, i * 0.125, 0.125, fmi3True, &event, &term, &early,
		                             &last), fmi3OK);
	assert_int_equal(api.get_float64(c, &vx, 1, &x, 1), fmi3OK);
	assert_true(x == 0.25);
	assert_int_equal(api.do_step(c, 0.25, 0.125, fmi3True, &event, &term, &early, &last),
	                 fmi3Error);
	assert_logged("[faulty] doStep(t = 0.25, h = 0.125): the FMU's process died of signal 11 "
	              "(SIGSEGV");
	api.free_instance(c);
	fmi3_unimport(&api);
	assert_nothing_left(&before);
}

/* The host in the archive needs nothing but the C library (and the loader) at run time. */
static void isolated_archive__host__needs_only_libc(void **state)
{
	(void)state;
	char cmd[2 * PATH_MAX], line[512];
	snprintf(cmd, sizeof cmd, "ldd '%s/binaries/linux64/sacc-fmu-host'", iso_dir);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	int libc = 0;
	while (fgets(line, sizeof line, p)) {
		if (strstr(line, "libc.so"))
			libc = 1;
		else if (!strstr(line, "linux-vdso") && !strstr(line, "ld-linux") &&
		         !strstr(line, "libdl.so") && !strstr(line, "libm.so"))
			fail_msg("the host needs %s", line);
	}
	assert_int_equal(pclose(p), 0);
	assert_true(libc);
}

/* --isolate names inner instances; a name no adaptation has is an error, nothing built. */
static void build_isolate__unknown_inner__error(void **state)
{
	(void)state;
	char cmd[3 * PATH_MAX], err[4096] = "";
	snprintf(cmd, sizeof cmd, "'%s/sacc' build -L '%s/fmus' -o '%s/bad' --isolate faulty,fauly "
	         "tests/e2e/faulty_sa.sa 2>'%s/err.txt'", build_dir(), build_dir(), work, work);
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	snprintf(cmd, sizeof cmd, "%s/err.txt", work);
	FILE *fp = fopen(cmd, "r");
	assert_non_null(fp);
	size_t n = fread(err, 1, sizeof err - 1, fp);
	fclose(fp);
	err[n] = '\0';
	assert_non_null(strstr(err, "--isolate: no adaptation built has an inner fmu 'fauly'"));
	snprintf(cmd, sizeof cmd, "%s/bad/faulty_sa.fmu", work);
	assert_int_equal(access(cmd, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(isolated_inner__segv__error_naming_inner_call_signal),
		cmocka_unit_test(isolated_inner__abort__error_naming_inner_call_signal),
		cmocka_unit_test(isolated_inner__exit__error_naming_inner_call_status),
		cmocka_unit_test(isolated_inner__normal_run__nothing_left),
		cmocka_unit_test(isolated_inner__serialized_state__bit_identical_and_rolls_back),
		cmocka_unit_test(isolated_inner_fmi3__segv__fmi3error),
		cmocka_unit_test(isolated_archive__host__needs_only_libc),
		cmocka_unit_test(build_isolate__unknown_inner__error),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
