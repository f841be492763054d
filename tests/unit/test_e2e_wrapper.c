/* test_e2e_wrapper.c — generated wrapper FMUs, end to end: built by `sacc build` (the
 * Makefile's powerwindow and e2e targets), unpacked by `sacc unpack`, loaded with the
 * suite's minimal importer (plain dlopen, no runtime code) and stepped.  Expected values
 * are computed here by hand from the inner models (tests/fmus/window/model.c: height =
 * 100 r displacement in cm, reaction_torque = -(r F + b r speed), r = 0.11, b = 10;
 * tests/fmus/obstacle/model.c: F = c (disp - 0.45) above 0.45, c = 1e10).
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fmi2_importer.h"
#include "assert_close.h"


#define R 0.11
#define B 10.0
#define C_OBST 1e10
#define POS_OBST 0.45

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* ---- loading a built FMU ---------------------------------------------------------------- */

typedef struct Fmu {
	Fmi2Api api;
	char dir[PATH_MAX];
	char guid[64];
	char id[64];
	char uri[PATH_MAX + 32];
} Fmu;

static int messages_at_error;
static char inner_log[4096]; /* the logInner messages, one a line */

static void test_logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                        fmi2String category, fmi2String message, ...)
{
	(void)env;
	if (strcmp(category, "logInner") == 0) {
		size_t used = strlen(inner_log);
		va_list ap;
		va_start(ap, message);
		vsnprintf(inner_log + used, sizeof inner_log - used, message, ap);
		va_end(ap);
		used = strlen(inner_log);
		if (used + 1 < sizeof inner_log)
			strcat(inner_log, "\n");
	}
	if (status >= fmi2Error) {
		messages_at_error++;
		va_list ap;
		va_start(ap, message);
		fprintf(stderr, "[%s] %s: ", name, category);
		vfprintf(stderr, message, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
}

static const fmi2CallbackFunctions callbacks = {test_logger, calloc, free, NULL, NULL};

/* The guid attribute of dir/modelDescription.xml. */
static void read_guid(const char *dir, char *out, size_t size)
{
	char path[PATH_MAX + 32], line[512];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof line, f)) {
		char *g = strstr(line, "guid=\"");
		if (g) {
			g += 6;
			size_t n = strcspn(g, "\"");
			assert_true(n < size);
			memcpy(out, g, n);
			out[n] = '\0';
			break;
		}
	}
	fclose(f);
	assert_true(out[0] != '\0');
}

/* Unpacks BUILD/<sub>/<id>.fmu into BUILD/e2e-unpacked/<sub>/<id>/ with `sacc unpack`, loads it.
 * With SACC_TEST_ISOLATE=1 (`make check-isolated`) BUILD/<sub>-iso/<id>.fmu instead: the same
 * scripts built with `sacc build --isolate all`, every inner out of process. */
static bool inners_isolated(void)
{
	const char *iso = getenv("SACC_TEST_ISOLATE");
	return iso && !strcmp(iso, "1");
}

static void fmu_open(Fmu *f, const char *sub, const char *id)
{
	char cmd[3 * PATH_MAX], rel[PATH_MAX], iso_sub[64];
	if (inners_isolated()) {
		snprintf(iso_sub, sizeof iso_sub, "%s-iso", sub);
		sub = iso_sub;
	}
	snprintf(rel, sizeof rel, "%s/e2e-unpacked/%s/%s", build_dir(), sub, id);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/e2e-unpacked/%s' && "
	         "'%s/sacc' unpack '%s/%s/%s.fmu' '%s'", rel, build_dir(), sub, build_dir(),
	         build_dir(), sub, id, rel);
	assert_int_equal(system(cmd), 0);
	assert_non_null(realpath(rel, f->dir));
	snprintf(f->id, sizeof f->id, "%s", id);
	read_guid(f->dir, f->guid, sizeof f->guid);
	snprintf(f->uri, sizeof f->uri, "file://%s/resources", f->dir);
	char lib[PATH_MAX + 64];
	snprintf(lib, sizeof lib, "%s/binaries/linux64/%s.so", f->dir, id);
	fmi2_import(&f->api, lib);
}

/* An instance initialized and ready to step from t0. */
static fmi2Component fmu_start_at(Fmu *f, const char *instance, double t0)
{
	fmi2Component c = f->api.instantiate(instance, fmi2CoSimulation, f->guid, f->uri,
	                                     &callbacks, fmi2False, fmi2False);
	assert_non_null(c);
	assert_int_equal(f->api.setup(c, fmi2False, 0, t0, fmi2False, 0), fmi2OK);
	assert_int_equal(f->api.enter_init(c), fmi2OK);
	assert_int_equal(f->api.exit_init(c), fmi2OK);
	return c;
}

static fmi2Component fmu_start(Fmu *f, const char *instance)
{
	return fmu_start_at(f, instance, 0);
}

static void fmu_stop(Fmu *f, fmi2Component c)
{
	assert_int_equal(f->api.terminate(c), fmi2OK);
	f->api.free_instance(c);
}

static double get1(Fmu *f, fmi2Component c, fmi2ValueReference vr)
{
	double v = NAN;
	assert_int_equal(f->api.get_real(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void set1(Fmu *f, fmi2Component c, fmi2ValueReference vr, double v)
{
	assert_int_equal(f->api.set_real(c, &vr, 1, &v), fmi2OK);
}

/* The value reference of the variable `name` in dir/modelDescription.xml. */
static fmi2ValueReference vr_of(const Fmu *f, const char *name)
{
	char path[PATH_MAX + 32], line[1024], key[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", f->dir);
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
	}
	fclose(fp);
	if (vr < 0)
		fail_msg("%s has no variable %s", f->id, name);
	return (fmi2ValueReference)vr;
}

/* ---- window_sa: cm -> m and the torque's sign ------------------------------------------- */

static void window_sa__steps__converts_height_and_flips_torque(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "window_sa");
	fmi2Component c = fmu_start(&f, "w");
	fmi2ValueReference d = vr_of(&f, "displacement"), s = vr_of(&f, "speed"),
	                   F = vr_of(&f, "reaction_force"), disp = vr_of(&f, "disp"),
	                   tau = vr_of(&f, "tau");
	double t = 0, h = 1e-3;
	for (int i = 0; i < 50; i++) {
		double dv = 0.1 * i, sv = 0.5 - 0.01 * i, Fv = (i % 7) * 10.0;
		set1(&f, c, d, dv);
		set1(&f, c, s, sv);
		set1(&f, c, F, Fv);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
		t += h;
		double height_cm = 100.0 * R * dv;
		assert_close(get1(&f, c, disp), 0.01 * height_cm, 1e-15);
		/* window's torque is -(r F + b r speed); window_sa reports the load torque */
		assert_close(get1(&f, c, tau), R * Fv + B * R * sv, 1e-12);
	}
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* A Mealy wrapper's outputs follow its inputs before any step, twice the same. */
static void window_sa__set_then_get__outputs_follow_inputs_without_a_step(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "window_sa");
	fmi2Component c = fmu_start(&f, "w");
	fmi2ValueReference d = vr_of(&f, "displacement"), disp = vr_of(&f, "disp");
	assert_close(get1(&f, c, disp), 0.0, 0);
	set1(&f, c, d, 3.0);
	assert_close(get1(&f, c, disp), 0.01 * (100.0 * R * 3.0), 1e-15);
	assert_close(get1(&f, c, disp), 0.01 * (100.0 * R * 3.0), 1e-15);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* Two instances of one wrapper in one process do not share anything. */
static void window_sa__two_instances__are_independent(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "window_sa");
	fmi2Component a = fmu_start(&f, "a"), b = fmu_start(&f, "b");
	fmi2ValueReference d = vr_of(&f, "displacement"), disp = vr_of(&f, "disp");
	set1(&f, a, d, 1.0);
	set1(&f, b, d, 2.0);
	assert_int_equal(f.api.do_step(a, 0, 0.01, fmi2True), fmi2OK);
	assert_int_equal(f.api.do_step(b, 0, 0.01, fmi2True), fmi2OK);
	assert_close(get1(&f, a, disp), R * 1.0, 1e-15);
	assert_close(get1(&f, b, disp), R * 2.0, 1e-15);
	fmu_stop(&f, a);
	fmu_stop(&f, b);
	fmi2_unimport(&f.api);
}

/* ---- loop_sa (nested over window_sa): the contact force of the loop ---------------------- */

/* The window held where the obstacle is compressed: the loop converges to the contact
 * force F = c (r d - 0.45), and loop_sa's tau is the load torque r F + b r speed. */
static void loop_sa__in_contact__converges_to_the_contact_force(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "loop_sa");
	fmi2Component c = fmu_start(&f, "loop");
	fmi2ValueReference d = vr_of(&f, "displacement"), s = vr_of(&f, "speed"),
	                   tau = vr_of(&f, "tau");
	double dv = 4.1, sv = 0.2, t = 0, h = 1e-3;
	set1(&f, c, d, dv);
	set1(&f, c, s, sv);
	for (int i = 0; i < 3; i++, t += h)
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
	double disp = 0.01 * (100.0 * R * dv);
	double force = C_OBST * (disp - POS_OBST);
	assert_true(force > 1e6); /* really in contact */
	assert_close(get1(&f, c, tau), R * force + B * R * sv, 1e-9 * R * force);
	/* out of contact the force is gone */
	set1(&f, c, d, 1.0);
	for (int i = 0; i < 3; i++, t += h)
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
	assert_close(get1(&f, c, tau), B * R * sv, 1e-12);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* loop_sa(window_sa(window), obstacle) against loop_flat(window, obstacle): the nested
 * wrapper gives the flat one's outputs exactly, step by step, through contact. */
static void loop_sa__nested__behaves_like_its_flat_equivalent(void **state)
{
	(void)state;
	Fmu n, fl;
	fmu_open(&n, "powerwindow", "loop_sa");
	fmu_open(&fl, "e2e", "loop_flat");
	fmi2Component cn = fmu_start(&n, "nested"), cf = fmu_start(&fl, "flat");
	fmi2ValueReference dn = vr_of(&n, "displacement"), sn = vr_of(&n, "speed"),
	                   tn = vr_of(&n, "tau");
	fmi2ValueReference df = vr_of(&fl, "displacement"), sf = vr_of(&fl, "speed"),
	                   tf = vr_of(&fl, "tau");
	double t = 0, h = 1e-3;
	int contacts = 0;
	for (int i = 0; i < 400; i++, t += h) {
		double dv = 3.0 + 1.2 * sin(0.02 * i), sv = 0.024 * cos(0.02 * i);
		set1(&n, cn, dn, dv);
		set1(&n, cn, sn, sv);
		set1(&fl, cf, df, dv);
		set1(&fl, cf, sf, sv);
		assert_int_equal(n.api.do_step(cn, t, h, fmi2True), fmi2OK);
		assert_int_equal(fl.api.do_step(cf, t, h, fmi2True), fmi2OK);
		double a = get1(&n, cn, tn), b = get1(&fl, cf, tf);
		if (a != b)
			fail_msg("step %d: nested tau %.17g, flat tau %.17g", i, a, b);
		contacts += a > 1e3;
	}
	assert_true(contacts > 10); /* the run went through contact */
	fmu_stop(&n, cn);
	fmu_stop(&fl, cf);
	fmi2_unimport(&n.api);
	fmi2_unimport(&fl.api);
}

/* ---- rate_sa (three deep): initialises, and interpolates over its ten inner steps ------- */

/* Outside a step H is 0: rate_sa's interpolation must not divide by it (it once sent NaN
 * to loop_sa at initialisation).  After a step, the last inner step ends at t + H, where
 * the interpolated speed is the current one: tau = b r speed out of contact. */
static void rate_sa__initialises_and_steps__tau_from_the_current_speed(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "rate_sa");
	fmi2Component c = f.api.instantiate("rate", fmi2CoSimulation, f.guid, f.uri, &callbacks,
	                                    fmi2False, fmi2False);
	assert_non_null(c);
	fmi2ValueReference d = vr_of(&f, "displacement"), s = vr_of(&f, "speed"),
	                   tau = vr_of(&f, "tau");
	assert_int_equal(f.api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(f.api.enter_init(c), fmi2OK);
	set1(&f, c, d, 1.0);
	set1(&f, c, s, 0.5);
	assert_int_equal(f.api.exit_init(c), fmi2OK);
	assert_close(get1(&f, c, tau), B * R * 0.5, 1e-12);
	double t = 0, h = 1e-3;
	for (int i = 1; i <= 5; i++, t += h) {
		set1(&f, c, s, 0.5 + 0.1 * i);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
		assert_close(get1(&f, c, tau), B * R * (0.5 + 0.1 * i), 1e-12);
	}
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* ---- FMU states through the nesting ----------------------------------------------------- */

static void loop_sa__get_step_set_step__bit_identical(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "loop_sa");
	fmi2Component c = fmu_start(&f, "loop");
	fmi2ValueReference d = vr_of(&f, "displacement"), tau = vr_of(&f, "tau");
	double t = 0, h = 1e-3, first[20], again[20];
	for (int i = 0; i < 10; i++, t += h) {
		set1(&f, c, d, 3.9 + 0.01 * i);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
	}
	fmi2FMUstate s = NULL;
	assert_int_equal(f.api.get_state(c, &s), fmi2OK);
	double t0 = t;
	for (int i = 0; i < 20; i++, t += h) {
		set1(&f, c, d, 4.08 + 0.002 * i);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
		first[i] = get1(&f, c, tau);
	}
	assert_int_equal(f.api.set_state(c, s), fmi2OK);
	t = t0;
	for (int i = 0; i < 20; i++, t += h) {
		set1(&f, c, d, 4.08 + 0.002 * i);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
		again[i] = get1(&f, c, tau);
	}
	assert_memory_equal(first, again, sizeof first);
	assert_true(first[19] > 1e6); /* the replay went into contact */

	/* serialized into a fresh instance, the same again */
	size_t size = 0;
	assert_int_equal(f.api.serialized_size(c, s, &size), fmi2OK);
	unsigned char *buf = malloc(size);
	assert_int_equal(f.api.serialize(c, s, (fmi2Byte *)buf, size), fmi2OK);
	fmi2Component fresh = fmu_start(&f, "fresh");
	fmi2FMUstate s2 = NULL;
	assert_int_equal(f.api.deserialize(fresh, (const fmi2Byte *)buf, size, &s2), fmi2OK);
	assert_int_equal(f.api.set_state(fresh, s2), fmi2OK);
	t = t0;
	for (int i = 0; i < 20; i++, t += h) {
		set1(&f, fresh, d, 4.08 + 0.002 * i);
		assert_int_equal(f.api.do_step(fresh, t, h, fmi2True), fmi2OK);
		again[i] = get1(&f, fresh, tau);
	}
	assert_memory_equal(first, again, sizeof first);

	/* into an instance only instantiated, as an importer starting from a saved state
	 * does: the inners are initialized on the way, and it steps the same again */
	fmi2Component cold = f.api.instantiate("cold", fmi2CoSimulation, f.guid, f.uri,
	                                       &callbacks, fmi2False, fmi2False);
	assert_non_null(cold);
	fmi2FMUstate s3 = NULL;
	assert_int_equal(f.api.deserialize(cold, (const fmi2Byte *)buf, size, &s3), fmi2OK);
	assert_int_equal(f.api.set_state(cold, s3), fmi2OK);
	t = t0;
	for (int i = 0; i < 20; i++, t += h) {
		set1(&f, cold, d, 4.08 + 0.002 * i);
		assert_int_equal(f.api.do_step(cold, t, h, fmi2True), fmi2OK);
		again[i] = get1(&f, cold, tau);
	}
	assert_memory_equal(first, again, sizeof first);
	/* a state handed to FreeFMUstate itself, not by its address, is freed, not read
	 * through (valgrind sees the difference) */
	assert_int_equal(f.api.free_state(cold, (fmi2FMUstate *)s3), fmi2OK);
	fmu_stop(&f, cold);

	/* a corrupted copy is refused, never trusted */
	int errors = messages_at_error;
	buf[size / 2] ^= 0x5a;
	buf[0] ^= 0xff;
	fmi2FMUstate bad = NULL;
	assert_int_equal(f.api.deserialize(fresh, (const fmi2Byte *)buf, size, &bad), fmi2Error);
	assert_true(messages_at_error > errors);
	assert_int_equal(f.api.deserialize(fresh, (const fmi2Byte *)buf, size / 3, &bad),
	                 fmi2Error);

	free(buf);
	assert_int_equal(f.api.free_state(fresh, &s2), fmi2OK);
	assert_int_equal(f.api.free_state(c, &s), fmi2OK);
	fmu_stop(&f, fresh);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* ---- the fast step against the general path -------------------------------------------- */

/* One harness for both paths: every scenario below runs on two instances of the same script,
 * one built as sacc builds it (its plain steps take the emitted fast step) and one built with
 * -DSART_NO_FAST_STEP (BUILD/paths-general/, the Makefile's rule: every step on the general
 * path, rule parts through the model's table and sart_do_step through the seam).  Each call
 * is made on both and must give both the same status; after each step every output must be
 * the same bit for bit; at the end both must have logged the same messages. */

/* Each instance's messages, "status category: message" a line (the componentEnvironment). */
typedef struct PathLog {
	char text[8192];
} PathLog;

static void path_logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                        fmi2String category, fmi2String message, ...)
{
	PathLog *log = env;
	size_t used = strlen(log->text);
	va_list ap;
	(void)name;
	snprintf(log->text + used, sizeof log->text - used, "%d %s: ", (int)status, category);
	used = strlen(log->text);
	va_start(ap, message);
	vsnprintf(log->text + used, sizeof log->text - used, message, ap);
	va_end(ap);
	used = strlen(log->text);
	if (used + 1 < sizeof log->text)
		strcat(log->text, "\n");
}

static PathLog path_logs[2];
/* Instances may keep the callbacks' address: static. */
static const fmi2CallbackFunctions path_callbacks[2] = {
	{path_logger, calloc, free, NULL, &path_logs[0]},
	{path_logger, calloc, free, NULL, &path_logs[1]},
};

/* The two instances of one script: [0] takes the fast step, [1] the general path. */
typedef struct Paths {
	Fmu f[2];
	fmi2Component c[2];
	fmi2ValueReference in[8], out[8];
	int nin, nout;
} Paths;

/* Whether the emitter wrote a fast step for the FMU (its sources/<id>.c), so that [0]
 * takes it when it has one. */
static int has_fast_step(const Fmu *f)
{
	char src[PATH_MAX + 128], line[256];
	int has = 0;
	snprintf(src, sizeof src, "%s/sources/%s.c", f->dir, f->id);
	FILE *fp = fopen(src, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof line, fp))
		has |= strstr(line, ".fast_step = 1,") != NULL;
	fclose(fp);
	return has;
}

/* Both builds of BUILD/<sub>/<id>.fmu opened and initialized, with the named inputs and
 * outputs (NULL-terminated lists). */
static void paths_open(Paths *p, const char *sub, const char *id, const char *const *in,
                       const char *const *out)
{
	memset(p, 0, sizeof *p);
	memset(path_logs, 0, sizeof path_logs);
	fmu_open(&p->f[0], sub, id);
	fmu_open(&p->f[1], "paths-general", id);
	/* isolated inners have no direct route, so their wrappers carry no fast step */
	assert_int_equal(has_fast_step(&p->f[0]), !inners_isolated());
	for (int k = 0; k < 2; k++) {
		Fmu *f = &p->f[k];
		p->c[k] = f->api.instantiate(k ? "general" : "fast", fmi2CoSimulation, f->guid, f->uri,
		                             &path_callbacks[k], fmi2False, fmi2False);
		assert_non_null(p->c[k]);
		assert_int_equal(f->api.setup(p->c[k], fmi2False, 0, 0, fmi2False, 0), fmi2OK);
		assert_int_equal(f->api.enter_init(p->c[k]), fmi2OK);
		assert_int_equal(f->api.exit_init(p->c[k]), fmi2OK);
	}
	for (; in[p->nin]; p->nin++)
		p->in[p->nin] = vr_of(&p->f[0], in[p->nin]);
	for (; out[p->nout]; p->nout++)
		p->out[p->nout] = vr_of(&p->f[0], out[p->nout]);
}

/* Sets the inputs u on both, steps both from t by H, expects status st from both, and
 * compares every output bit for bit. */
static void paths_step(Paths *p, const double *u, double t, double H, fmi2Status st)
{
	double y[2][8];
	for (int k = 0; k < 2; k++) {
		assert_int_equal(p->f[k].api.set_real(p->c[k], p->in, (size_t)p->nin, u), fmi2OK);
		assert_int_equal(p->f[k].api.do_step(p->c[k], t, H, fmi2True), st);
		assert_int_equal(p->f[k].api.get_real(p->c[k], p->out, (size_t)p->nout, y[k]), fmi2OK);
	}
	assert_memory_equal(y[0], y[1], (size_t)p->nout * sizeof y[0][0]);
}

/* The same messages on both, then both freed. */
static void paths_close(Paths *p)
{
	assert_string_equal(path_logs[0].text, path_logs[1].text);
	for (int k = 0; k < 2; k++) {
		p->f[k].api.free_instance(p->c[k]);
		fmi2_unimport(&p->f[k].api);
	}
}

/* power_sa: the motor through its inputs, its discard of a step too long for it (the fast
 * step hands over to the general handling: stepFailed, the last successful time, the same
 * message), a restored state, and an input that is not finite (refused before the motor:
 * the same error). */
static void paths__power_sa__same_outputs_statuses_and_messages(void **state)
{
	(void)state;
	static const char *const in[] = {"u", "d", "tau", NULL};
	static const char *const out[] = {"armature_current", "speed", "displacement", NULL};
	Paths p;
	paths_open(&p, "powerwindow", "power_sa", in, out);
	double t = 0, H = 0.01;
	for (int i = 0; i < 300; i++, t += H) {
		const double u[3] = {i % 97 < 60, i % 131 > 90, 0.05 * sin(0.1 * i)};
		paths_step(&p, u, t, H, fmi2OK);
	}

	/* 150 s is more than the motor integrates in one step: its discard is passed up */
	fmi2FMUstate s[2] = {NULL, NULL};
	double last[2];
	const double u1[3] = {1, 0, 0.01};
	for (int k = 0; k < 2; k++)
		assert_int_equal(p.f[k].api.get_state(p.c[k], &s[k]), fmi2OK);
	paths_step(&p, u1, t, 150.0, fmi2Discard);
	for (int k = 0; k < 2; k++)
		assert_int_equal(p.f[k].api.get_real_status(p.c[k], fmi2LastSuccessfulTime, &last[k]),
		                 fmi2OK);
	assert_memory_equal(&last[0], &last[1], sizeof last[0]);
	assert_true(last[0] > t && last[0] < t + 150.0);
	assert_non_null(strstr(path_logs[0].text, "returned fmi2Discard"));
	/* taken back to t, both go on */
	for (int k = 0; k < 2; k++) {
		assert_int_equal(p.f[k].api.set_state(p.c[k], s[k]), fmi2OK);
		assert_int_equal(p.f[k].api.free_state(p.c[k], &s[k]), fmi2OK);
	}
	for (int i = 0; i < 50; i++, t += H) {
		const double u[3] = {i < 25, i >= 25, -0.02};
		paths_step(&p, u, t, H, fmi2OK);
	}

	/* a NaN never reaches the motor, on either path */
	const double bad[3] = {1, 0, NAN};
	paths_step(&p, bad, t, H, fmi2Error);
	assert_non_null(strstr(path_logs[0].text, "rule sets power.tau to nan"));
	paths_close(&p);
}

/* window_sa driven as an importer with a fixed step drives it, t = i h (which rounds away
 * from the instance's own sum of steps), then an infinite input: refused on both. */
static void paths__window_sa_at_i_h__same_outputs_statuses_and_messages(void **state)
{
	(void)state;
	static const char *const in[] = {"displacement", "speed", "reaction_force", NULL};
	static const char *const out[] = {"disp", "tau", NULL};
	Paths p;
	paths_open(&p, "powerwindow", "window_sa", in, out);
	const double h = 1e-3;
	int i;
	for (i = 0; i < 2000; i++) {
		const double u[3] = {0.1 * sin(0.01 * i), 0.5 - 1e-4 * i, (i % 7) * 10.0};
		paths_step(&p, u, i * h, h, fmi2OK);
	}
	const double bad[3] = {0.1, INFINITY, 0};
	paths_step(&p, bad, i * h, h, fmi2Error);
	assert_non_null(strstr(path_logs[0].text, "rule sets window.speed to inf"));
	paths_close(&p);
}

/* A pass-through driven with t = i h takes the fast step on every plain step: the build with
 * -DSART_STEP_STATS (BUILD/paths-stats/) counts the steps that entered it and the others.
 * The premise: i h differs from the instance's sum of steps on many of these steps, so a
 * guard that demanded t bit-equal to its own time would send those to the general path. */
static void paths__passthrough_at_i_h__every_plain_step_fast(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "paths-stats", "passthrough_sa");
	void (*stats)(void *, unsigned long[2]) = NULL;
	void *sym = dlsym(f.api.lib, "sart_step_stats");
	assert_non_null(sym);
	memcpy(&stats, &sym, sizeof sym);
	fmi2Component c = fmu_start(&f, "pass");
	const fmi2ValueReference in = vr_of(&f, "speed");
	const double h = 1e-3;
	const int n = 40000;
	double sum = 0;
	int rounded_away = 0;
	for (int i = 0; i < n; i++) {
		const double u = 0.5 * sin(1e-3 * i);
		rounded_away += i * h != sum;
		assert_int_equal(f.api.set_real(c, &in, 1, &u), fmi2OK);
		assert_int_equal(f.api.do_step(c, i * h, h, fmi2True), fmi2OK);
		sum += h;
	}
	assert_true(rounded_away > n / 10);
	unsigned long counts[2];
	stats(c, counts);
	/* an isolated inner has no direct route: every step takes the general path */
	const unsigned long fast = inners_isolated() ? 0 : (unsigned long)n;
	assert_int_equal(counts[0], fast);
	assert_int_equal(counts[1], (unsigned long)n - fast);
	/* a step that is not plain (t off by more than the tolerance) is refused before either
	 * path takes it: counted as neither */
	assert_int_equal(f.api.do_step(c, n * h + 1e-3, h, fmi2True), fmi2Error);
	stats(c, counts);
	assert_int_equal(counts[0], fast);
	assert_int_equal(counts[1], (unsigned long)n - fast);
	f.api.free_instance(c);
	fmi2_unimport(&f.api);
}

/* ---- the importer's Real gets and sets between steps ------------------------------------ */

/* An instance of BUILD/<sub>/<id>.fmu logging into path_logs[0], initialized at 0. */
static fmi2Component logged_start(Fmu *f, const char *sub, const char *id)
{
	memset(path_logs, 0, sizeof path_logs);
	fmu_open(f, sub, id);
	fmi2Component c = f->api.instantiate("v", fmi2CoSimulation, f->guid, f->uri,
	                                     &path_callbacks[0], fmi2False, fmi2False);
	assert_non_null(c);
	assert_int_equal(f->api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(f->api.enter_init(c), fmi2OK);
	assert_int_equal(f->api.exit_init(c), fmi2OK);
	return c;
}

/* The last message path_logs[0] holds is `want` (its whole line, after the status and
 * category), and it came with status Error. */
static void assert_last_error(const char *want)
{
	const char *text = path_logs[0].text, *line = text, *p;
	size_t n = strlen(text);
	assert_true(n > 0 && text[n - 1] == '\n');
	for (p = text; p + 1 < text + n; p++)
		if (*p == '\n')
			line = p + 1;
	char expected[512];
	snprintf(expected, sizeof expected, "%d logStatusError: %s\n", (int)fmi2Error, want);
	assert_string_equal(line, expected);
}

/* The every-step Real calls read and write through the emitted offsets only while each value
 * reference is one they may take; everything else is refused with the message the general
 * calls give, naming the variable, and a set keeps the values before the one refused. */
static void values__bad_references_and_counts__refused_as_the_general_calls_refuse(void **state)
{
	(void)state;
	Fmu f;
	fmi2Component c = logged_start(&f, "paths-stats", "passthrough_sa");
	const fmi2ValueReference d = vr_of(&f, "displacement"), sp = vr_of(&f, "speed"),
	                         height = vr_of(&f, "height"),
	                         fixed = vr_of(&f, "INIT_PASSTHROUGH_SA_SPEED"), unknown = 99;
	double v[3] = {0.25, 0.5, 0.75}, y[3] = {NAN, NAN, NAN};

	/* an output among the inputs: the value before it stays set, the ones after do not */
	double sp0 = NAN, after[2] = {NAN, NAN};
	assert_int_equal(f.api.get_real(c, &sp, 1, &sp0), fmi2OK);
	assert_true(sp0 != v[2]);
	fmi2ValueReference with_output[3] = {d, height, sp};
	assert_int_equal(f.api.set_real(c, with_output, 3, v), fmi2Error);
	assert_last_error("fmi2SetReal: 'height' is an output");
	fmi2ValueReference d_sp[2] = {d, sp};
	assert_int_equal(f.api.get_real(c, d_sp, 2, after), fmi2OK);
	assert_true(after[0] == v[0] && after[1] == sp0);
	/* a fixed parameter after initialization, and a value reference that does not exist */
	fmi2ValueReference with_fixed[2] = {sp, fixed};
	assert_int_equal(f.api.set_real(c, with_fixed, 2, v + 1), fmi2Error);
	assert_last_error("fmi2SetReal: 'INIT_PASSTHROUGH_SA_SPEED' is a fixed parameter: it "
	                  "cannot be set after initialization");
	fmi2ValueReference with_unknown[2] = {unknown, d};
	assert_int_equal(f.api.set_real(c, with_unknown, 2, v), fmi2Error);
	assert_last_error("fmi2SetReal: unknown value reference 99");
	/* what was set: d = 0.25 (before the output), speed = 0.5 (before the parameter) */
	fmi2ValueReference inputs[2] = {d, sp};
	assert_int_equal(f.api.get_real(c, inputs, 2, y), fmi2OK);
	assert_true(y[0] == 0.25 && y[1] == 0.5);

	/* gets: an unknown value reference after good ones, NULL arrays with values asked for */
	fmi2ValueReference get_unknown[3] = {d, height, unknown};
	assert_int_equal(f.api.get_real(c, get_unknown, 3, y), fmi2Error);
	assert_last_error("fmi2GetReal: unknown value reference 99");
	assert_int_equal(f.api.get_real(c, NULL, 1, y), fmi2Error);
	assert_last_error("fmi2GetReal: NULL value reference or value array");
	assert_int_equal(f.api.set_real(c, inputs, 2, NULL), fmi2Error);
	assert_last_error("fmi2SetReal: NULL value reference or value array");
	/* no values at all: nothing to do, with or without arrays */
	assert_int_equal(f.api.set_real(c, NULL, 0, NULL), fmi2OK);
	assert_int_equal(f.api.get_real(c, NULL, 0, NULL), fmi2OK);

	/* none of it harmed the instance: a step forwards the inputs as set */
	assert_int_equal(f.api.do_step(c, 0, 1e-3, fmi2True), fmi2OK);
	assert_close(get1(&f, c, height), 100.0 * R * 0.25, 1e-13);
	f.api.free_instance(c);
	fmi2_unimport(&f.api);
}

/* A tunable parameter in the same call as an input: the input through the offsets, the
 * parameter through the general set, both kept; an output after them still refused. */
static void values__tunable_parameter_after_an_input__both_set(void **state)
{
	(void)state;
	Fmu f;
	fmi2Component c = logged_start(&f, "powerwindow", "loop_sa");
	const fmi2ValueReference d = vr_of(&f, "displacement"), tol = vr_of(&f, "REL_TOL"),
	                         tau = vr_of(&f, "tau");
	fmi2ValueReference vr[3] = {d, tol, tau};
	const double v[3] = {1.5, 1e-7, 0};
	double y[2] = {NAN, NAN};
	assert_int_equal(f.api.set_real(c, vr, 2, v), fmi2OK);
	assert_int_equal(f.api.get_real(c, vr, 2, y), fmi2OK);
	assert_true(y[0] == 1.5 && y[1] == 1e-7);
	assert_int_equal(f.api.set_real(c, vr, 3, v), fmi2Error);
	assert_last_error("fmi2SetReal: 'tau' is an output");
	f.api.free_instance(c);
	fmi2_unimport(&f.api);
}

/* Two importers of one wrapper, one passing t += h (the wrapper's own sum of steps, bit
 * for bit) and one t = i h (which differs from it by rounding on most steps): the same
 * outputs bit for bit, and both on the fast step every step.  power_sa integrates the motor,
 * so its outputs carry the whole history. */
static void paths__t_plus_h_and_t_i_h__identical_results(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "paths-stats", "power_sa");
	void (*stats)(void *, unsigned long[2]) = NULL;
	void *sym = dlsym(f.api.lib, "sart_step_stats");
	assert_non_null(sym);
	memcpy(&stats, &sym, sizeof sym);
	fmi2Component c[2] = {fmu_start(&f, "sum"), fmu_start(&f, "count")};
	const fmi2ValueReference in[3] = {vr_of(&f, "u"), vr_of(&f, "d"), vr_of(&f, "tau")};
	const fmi2ValueReference out[3] = {vr_of(&f, "armature_current"), vr_of(&f, "speed"),
	                                   vr_of(&f, "displacement")};
	const double h = 1e-3;
	const int n = 3000;
	double sum = 0, y[2][3];
	int rounded_away = 0;
	for (int i = 0; i < n; i++) {
		const double u[3] = {i % 977 < 600, i % 1301 > 900, 0.05 * sin(0.01 * i)};
		const double t[2] = {sum, i * h};
		rounded_away += t[0] != t[1];
		for (int k = 0; k < 2; k++) {
			assert_int_equal(f.api.set_real(c[k], in, 3, u), fmi2OK);
			assert_int_equal(f.api.do_step(c[k], t[k], h, fmi2True), fmi2OK);
			assert_int_equal(f.api.get_real(c[k], out, 3, y[k]), fmi2OK);
		}
		assert_memory_equal(y[0], y[1], sizeof y[0]);
		sum += h;
	}
	assert_true(rounded_away > n / 10);
	assert_true(y[0][1] != 0.0); /* the motor moved */
	for (int k = 0; k < 2; k++) {
		unsigned long counts[2];
		stats(c[k], counts);
		const unsigned long fast = inners_isolated() ? 0 : (unsigned long)n;
		assert_int_equal(counts[0], fast);
		assert_int_equal(counts[1], (unsigned long)n - fast);
		fmu_stop(&f, c[k]);
	}
	fmi2_unimport(&f.api);
}

/* ---- lazy_sa: a rejected step at the controller's timer --------------------------------- */

/* An obstacle detected at t = 0.5 (the step from 0.4) starts the controller's 1 s emergency; a step across
 * its end (1.5 s) is rejected: fmi2Discard, last successful time 1.5, and lazy_sa keeps
 * the state it had at the step's start, so the master retries from there. */
static void lazy_sa__step_across_the_timer__is_rejected_at_its_expiry(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "lazy_sa");
	fmi2Component c = fmu_start(&f, "lazy");
	fmi2ValueReference obj = vr_of(&f, "obj_detected"), down = vr_of(&f, "down");
	double t = 0, h = 0.1;
	fmi2Boolean v = fmi2False, out = 0;
	for (int i = 0; i < 4; i++, t += h)
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
	v = fmi2True;
	assert_int_equal(f.api.set_boolean(c, &obj, 1, &v), fmi2OK);
	assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK); /* to 0.5: detected */
	t += h;
	v = fmi2False;
	assert_int_equal(f.api.set_boolean(c, &obj, 1, &v), fmi2OK);
	assert_int_equal(f.api.get_boolean(c, &down, 1, &out), fmi2OK);
	assert_int_equal(out, fmi2True);
	h = 0.3;
	for (int i = 0; i < 3; i++, t += h) /* 0.5 .. 1.4 */
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
	assert_close(t, 1.4, 1e-12);
	assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2Discard);
	double last = 0;
	assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_close(last, 1.5, 1e-9);
	/* the retry up to the expiry is accepted, and the emergency is over */
	assert_int_equal(f.api.do_step(c, t, last - t, fmi2True), fmi2OK);
	assert_int_equal(f.api.get_boolean(c, &down, 1, &out), fmi2OK);
	assert_int_equal(out, fmi2False);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* tests/e2e/step_rounding.sa returns (t + done) - t.  At t = 8.5 and H = 1.1e-6 that
 * rounds 3.8e-10 relative above H: the whole step (fmi2OK), not a step longer than H (an
 * error before).  From there with H = 1e-6 it rounds 7.5e-10 below: shorter than H is a
 * rejection as the rules say it, never taken for the whole step (a crossing's proposal
 * can lie that close below H with nothing stepped), so the state at t is kept. */
static void step_rounding__step_from_absolute_times__above_h_whole_below_h_rejected(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "e2e", "step_rounding");
	fmi2Component c = fmu_start_at(&f, "rounding", 8.5);
	set1(&f, c, vr_of(&f, "u"), 2.0);
	/* the premise: the rounding goes each way, by far more than 1e-12 of H */
	volatile double t = 8.5, h_up = 1.1e-6, h_down = 1e-6;
	volatile double t1 = t + h_up;
	assert_true((t + h_up) - t > h_up * (1 + 1e-10));
	assert_true((t1 + h_down) - t1 < h_down * (1 - 1e-10));
	assert_int_equal(f.api.do_step(c, t, h_up, fmi2True), fmi2OK);
	assert_close(get1(&f, c, vr_of(&f, "x")), 2.0 * h_up, 1e-15);
	assert_int_equal(f.api.do_step(c, t1, h_down, fmi2True), fmi2Discard);
	double last = 0;
	assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_true(last == t1 + ((t1 + h_down) - t1));
	assert_close(get1(&f, c, vr_of(&f, "x")), 2.0 * h_up, 1e-15);
	/* and the instance is still at t1 */
	assert_int_equal(f.api.do_step(c, t1, h_up, fmi2True), fmi2OK);
	/* An importer's t that differs from the instance's by rounding (within 1e-9) is the
	 * time from then on: the times it is told are the importer's sums, not the
	 * instance's own. */
	volatile double t2 = (t1 + h_up) + 3e-15;
	assert_int_equal(f.api.do_step(c, t2, h_up, fmi2True), fmi2OK);
	assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_true(last == t2 + h_up);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* With logging on, the inner controller's own messages reach the importer's logger under
 * logInner, with the inner instance's name in front. */
static void lazy_sa__logging_on__inner_messages_forwarded_with_prefix(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "lazy_sa");
	fmi2Component c = f.api.instantiate("lazy", fmi2CoSimulation, f.guid, f.uri, &callbacks,
	                                    fmi2False, fmi2True);
	assert_non_null(c);
	assert_int_equal(f.api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(f.api.enter_init(c), fmi2OK);
	assert_int_equal(f.api.exit_init(c), fmi2OK);
	inner_log[0] = '\0';
	fmi2ValueReference obj = vr_of(&f, "obj_detected");
	fmi2Boolean v = fmi2True;
	assert_int_equal(f.api.set_boolean(c, &obj, 1, &v), fmi2OK);
	assert_int_equal(f.api.do_step(c, 0, 0.1, fmi2True), fmi2OK);
	if (!strstr(inner_log, "[controller] ") || !strstr(inner_log, "-> Emergency"))
		fail_msg("logInner messages: %s", inner_log);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* ---- the case study's adaptations stepped on their own ---------------------------------- */

/* controller_sa with the driver holding up and the armature current a ramp through 5 A at
 * t_c: the importer sets the current at the end of each step it tries, as a master whose
 * motor was stepped first would.  The step across t_c is rejected, and the retries (regula
 * falsi) land on the crossing within the script's tolerance (5e-4 A); on that step the
 * event is raised and the motor command turns to down. */
static void controller_sa__current_ramp__crossing_located_by_step_rejection(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "controller_sa");
	fmi2Component c = fmu_start(&f, "controller");
	fmi2ValueReference cur = vr_of(&f, "armature_current"), up_btn = vr_of(&f, "driver_up"),
	                   u = vr_of(&f, "u"), d = vr_of(&f, "d");
	fmi2Boolean on = fmi2True;
	assert_int_equal(f.api.set_boolean(c, &up_btn, 1, &on), fmi2OK);
	const double slope = 800.0, t_c = 0.0523; /* A/s; i = 5 + slope (t - t_c) */
	double t = 0, H = 1e-3, detected_at = -1;
	int rejected = 0;
	for (int n = 0; n < 200 && t < 0.06 - 1e-12; n++) {
		double h = H;
		fmi2Status st;
		for (;;) {
			set1(&f, c, cur, 5.0 + slope * (t + h - t_c));
			st = f.api.do_step(c, t, h, fmi2True);
			if (st != fmi2Discard)
				break;
			double last = 0;
			assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
			assert_true(last > t && last < t + h);
			h = last - t;
			rejected++;
		}
		assert_int_equal(st, fmi2OK);
		t += h;
		if (detected_at < 0 && get1(&f, c, d) > 0.5)
			detected_at = t;
	}
	assert_true(rejected >= 1);
	assert_true(detected_at > 0);
	/* located to the tolerance: |i - T| < 5e-4 A, i.e. 5e-4 / slope in time */
	assert_true(fabs(5.0 + slope * (detected_at - t_c) - 5.0) < 5e-4);
	assert_close(get1(&f, c, u), 0.0, 0.0);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* rate_sa on its own: a window that reaches the obstacle inside a 1 ms step gets the step
 * rejected (halved towards the touch); in contact every step longer than H_CONTACT = 5 us
 * is rejected down to it, and the torque it hands out is the contact torque predicted half
 * a contact step ahead along the speed: r c (r (d + s H_CONTACT / 2) - 0.45) + b r s. */
static void rate_sa__contact__steps_cut_and_torque_predicted(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "powerwindow", "rate_sa");
	fmi2Component c = fmu_start(&f, "rate");
	fmi2ValueReference dv = vr_of(&f, "displacement"), sv = vr_of(&f, "speed"),
	                   tau = vr_of(&f, "tau");
	const double s = 1.5, d_touch = POS_OBST / R;
	double t = 0, last = 0;
	/* 1 ms from 1 um below the obstacle to 0.16 mm past it: rejected, halved */
	set1(&f, c, dv, d_touch - 1e-5);
	set1(&f, c, sv, s);
	assert_int_equal(f.api.do_step(c, t, 1e-3, fmi2True), fmi2OK);
	t += 1e-3;
	set1(&f, c, dv, d_touch + 1e-3);
	assert_int_equal(f.api.do_step(c, t, 1e-3, fmi2True), fmi2Discard);
	assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_close(last - t, 0.5e-3, 1e-12);
	/* a 5 us step into contact is taken; the next 1 ms step is cut to 5 us */
	double d1 = d_touch + 1e-6;
	set1(&f, c, dv, d1);
	assert_int_equal(f.api.do_step(c, t, 5e-6, fmi2True), fmi2OK);
	t += 5e-6;
	double mid = R * (d1 + s * 2.5e-6) - POS_OBST;
	assert_close(get1(&f, c, tau), R * C_OBST * mid + B * R * s, 1e-9 * R * C_OBST * mid);
	set1(&f, c, dv, d1 + s * 1e-3);
	assert_int_equal(f.api.do_step(c, t, 1e-3, fmi2True), fmi2Discard);
	assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_close(last - t, 5e-6, 1e-12);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* ---- the inners' parameters (tests/e2e/inner_params.sa) ---------------------------------- */

/* Whether dir/modelDescription.xml declares a variable `name`. */
static int md_declares(const Fmu *f, const char *name)
{
	char path[PATH_MAX + 32], line[1024], key[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", f->dir);
	snprintf(key, sizeof key, "name=\"%s\"", name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	int found = 0;
	while (!found && fgets(line, sizeof line, fp))
		found = strstr(line, key) != NULL;
	fclose(fp);
	return found;
}

/* aff.gain is the wrapper's parameter (affine's start 1); offset, bound to 2 SHIFT, is not.
 * Set before initialization they reach affine: y = gain u + 2 SHIFT.  A fixed one cannot
 * be set after initialization. */
static void params_aff_sa__set_before_init__reach_the_inner(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "e2e", "params_aff_sa");
	assert_true(md_declares(&f, "aff.gain"));
	assert_false(md_declares(&f, "aff.offset"));
	fmi2Component c = f.api.instantiate("a", fmi2CoSimulation, f.guid, f.uri, &callbacks,
	                                    fmi2False, fmi2False);
	assert_non_null(c);
	fmi2ValueReference gain = vr_of(&f, "aff.gain"), y = vr_of(&f, "y");
	set1(&f, c, gain, 4.0);
	set1(&f, c, vr_of(&f, "SHIFT"), 2.0);
	set1(&f, c, vr_of(&f, "u"), 0.5);
	assert_int_equal(f.api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(f.api.enter_init(c), fmi2OK);
	assert_int_equal(f.api.exit_init(c), fmi2OK);
	assert_close(get1(&f, c, gain), 4.0, 0);
	assert_close(get1(&f, c, y), 4.0 * 0.5 + 2 * 2.0, 1e-15);
	assert_int_equal(f.api.do_step(c, 0, 0.1, fmi2True), fmi2OK);
	assert_close(get1(&f, c, y), 4.0 * 0.5 + 2 * 2.0, 1e-15);
	double v = 5.0;
	assert_int_equal(f.api.set_real(c, &gain, 1, &v), fmi2Error);
	f.api.free_instance(c);
	fmi2_unimport(&f.api);
}

/* Two levels: sub.aff.gain set in initialization mode and S before it reach affine
 * through params_aff_sa: z = gain v + 2 (10 S). */
static void params_outer_sa__two_levels__reach_the_innermost(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "e2e", "params_outer_sa");
	assert_true(md_declares(&f, "sub.aff.gain"));
	assert_false(md_declares(&f, "sub.SHIFT"));
	fmi2Component c = f.api.instantiate("o", fmi2CoSimulation, f.guid, f.uri, &callbacks,
	                                    fmi2False, fmi2False);
	assert_non_null(c);
	set1(&f, c, vr_of(&f, "S"), 0.2);
	set1(&f, c, vr_of(&f, "v"), 1.0);
	assert_int_equal(f.api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(f.api.enter_init(c), fmi2OK);
	set1(&f, c, vr_of(&f, "sub.aff.gain"), 3.0);
	assert_int_equal(f.api.exit_init(c), fmi2OK);
	assert_int_equal(f.api.do_step(c, 0, 0.1, fmi2True), fmi2OK);
	assert_close(get1(&f, c, vr_of(&f, "z")), 3.0 * 1.0 + 2 * (10 * 0.2), 1e-14);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

/* The line of dir/modelDescription.xml that declares `name` holds `attr`. */
static int md_line_has(const Fmu *f, const char *name, const char *attr)
{
	char path[PATH_MAX + 32], line[1024], key[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", f->dir);
	snprintf(key, sizeof key, "name=\"%s\"", name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	int found = 0;
	while (!found && fgets(line, sizeof line, fp))
		found = strstr(line, key) && strstr(line, attr);
	fclose(fp);
	return found;
}

/* r.rate is ramp's tunable rate exposed (tests/fmus/ramp: each step adds rate h to x).  Set
 * between two steps, it reaches ramp at once and shapes the next step alone.  By hand, with
 * steps of 0.5 (exact in binary): rate 1 for [0, 0.5] gives x = 0.5; rate 3 set then, for
 * [0.5, 1], x = 0.5 + 1.5 = 2; rate -2 for [1, 1.5], x = 2 - 1 = 1. */
static void params_ramp_sa__tunable_set_between_steps__next_step_uses_it(void **state)
{
	(void)state;
	Fmu f;
	fmu_open(&f, "e2e", "params_ramp_sa");
	assert_true(md_line_has(&f, "r.rate", "variability=\"tunable\""));
	fmi2Component c = f.api.instantiate("r", fmi2CoSimulation, f.guid, f.uri, &callbacks,
	                                    fmi2False, fmi2False);
	assert_non_null(c);
	fmi2ValueReference rate = vr_of(&f, "r.rate"), x = vr_of(&f, "x");
	assert_int_equal(f.api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(f.api.enter_init(c), fmi2OK);
	assert_int_equal(f.api.exit_init(c), fmi2OK);
	assert_close(get1(&f, c, rate), 1.0, 0);
	assert_int_equal(f.api.do_step(c, 0, 0.5, fmi2True), fmi2OK);
	assert_close(get1(&f, c, x), 0.5, 0);
	set1(&f, c, rate, 3.0);
	assert_close(get1(&f, c, rate), 3.0, 0);
	assert_close(get1(&f, c, x), 0.5, 0); /* the state waits for the next step */
	assert_int_equal(f.api.do_step(c, 0.5, 0.5, fmi2True), fmi2OK);
	assert_close(get1(&f, c, x), 2.0, 0);
	set1(&f, c, rate, -2.0);
	assert_int_equal(f.api.do_step(c, 1.0, 0.5, fmi2True), fmi2OK);
	assert_close(get1(&f, c, x), 1.0, 0);
	fmu_stop(&f, c);
	fmi2_unimport(&f.api);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_sa__steps__converts_height_and_flips_torque),
		cmocka_unit_test(params_aff_sa__set_before_init__reach_the_inner),
		cmocka_unit_test(params_outer_sa__two_levels__reach_the_innermost),
		cmocka_unit_test(params_ramp_sa__tunable_set_between_steps__next_step_uses_it),
		cmocka_unit_test(window_sa__set_then_get__outputs_follow_inputs_without_a_step),
		cmocka_unit_test(window_sa__two_instances__are_independent),
		cmocka_unit_test(loop_sa__in_contact__converges_to_the_contact_force),
		cmocka_unit_test(loop_sa__nested__behaves_like_its_flat_equivalent),
		cmocka_unit_test(rate_sa__initialises_and_steps__tau_from_the_current_speed),
		cmocka_unit_test(controller_sa__current_ramp__crossing_located_by_step_rejection),
		cmocka_unit_test(rate_sa__contact__steps_cut_and_torque_predicted),
		cmocka_unit_test(loop_sa__get_step_set_step__bit_identical),
		cmocka_unit_test(paths__power_sa__same_outputs_statuses_and_messages),
		cmocka_unit_test(paths__window_sa_at_i_h__same_outputs_statuses_and_messages),
		cmocka_unit_test(paths__passthrough_at_i_h__every_plain_step_fast),
		cmocka_unit_test(paths__t_plus_h_and_t_i_h__identical_results),
		cmocka_unit_test(values__bad_references_and_counts__refused_as_the_general_calls_refuse),
		cmocka_unit_test(values__tunable_parameter_after_an_input__both_set),
		cmocka_unit_test(lazy_sa__step_across_the_timer__is_rejected_at_its_expiry),
		cmocka_unit_test(lazy_sa__logging_on__inner_messages_forwarded_with_prefix),
		cmocka_unit_test(step_rounding__step_from_absolute_times__above_h_whole_below_h_rejected),
	};
	return cmocka_run_group_tests_name("e2e_wrapper", tests, NULL, NULL);
}
