/* test_sart_wrapper.c — the wrapper core (runtime/sart_core.h) under its FMI 2.0 skin
 * (runtime/sart_fmi2.c), the generic layer of every wrapper FMU, seen as any importer sees
 * it: the hand-written tests/e2e/manual/window_sa.c linked
 * with the runtime into $SACC_BUILD/e2e-manual/window_sa/ (see the Makefile), loaded with
 * dlopen through fmi2_importer.h only.  This binary does not link the runtime.
 *
 * window_sa wraps the window test FMU (tests/fmus/window/model.c): height = 100 r
 * displacement (cm), reaction_torque = -(r reaction_force + b r speed), r = 0.11, b = 10;
 * window_sa's outputs are disp = 0.01 height (m) and tau = -reaction_torque.  It is Mealy
 * (outputs follow inputs without a step), so gets after sets run G.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_importer.h"
#include "assert_close.h"

#define WSA_GUID "{00000000-0000-5000-8000-000000000000}"

/* window_sa's value references (tests/e2e/manual/window_sa.c). */
enum { V_DISPLACEMENT, V_SPEED, V_REACTION_FORCE, V_DISP, V_TAU, V_INIT_DISPLACEMENT };
enum { V_INIT_TORQUE = 9 }; /* the one fixed parameter */

#define R 0.11
#define B 10.0


/* ---- an importer ------------------------------------------------------------------------ */

/* Every message the FMU logged. */
typedef struct Log {
	int count;
	fmi2Status last_status;
	char last_category[64];
	char all[32768];
} Log;

static void test_logger(fmi2ComponentEnvironment env, fmi2String instanceName,
                        fmi2Status status, fmi2String category, fmi2String message, ...)
{
	Log *l = env;
	char msg[2048];
	va_list ap;
	size_t used = strlen(l->all);
	(void)instanceName;
	va_start(ap, message);
	vsnprintf(msg, sizeof msg, message, ap);
	va_end(ap);
	l->count++;
	l->last_status = status;
	snprintf(l->last_category, sizeof l->last_category, "%s", category);
	snprintf(l->all + used, sizeof l->all - used, "%s: %s\n", category, msg);
}

typedef struct T {
	fmi2CallbackFunctions cb;
	Log log;
	Fmi2Api api;
	char uri[1024];
} T;

/* Declares t with its callbacks pointing at its own log. */
#define T_DECLARE(t) T t = {.cb = {test_logger, NULL, NULL, NULL, &t.log}}

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static void t_open(T *t)
{
	char path[PATH_MAX], dir[PATH_MAX + 64], abs[PATH_MAX];
	snprintf(path, sizeof path, "%s/e2e-manual/window_sa/binaries/linux64/window_sa.so",
	         build_dir());
	fmi2_import(&t->api, path);
	snprintf(dir, sizeof dir, "%s/e2e-manual/window_sa/resources", build_dir());
	assert_non_null(realpath(dir, abs));
	/* file:// + the path, percent-encoding what a URI path may not carry. */
	size_t j = snprintf(t->uri, sizeof t->uri, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p && j + 4 < sizeof t->uri; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			t->uri[j++] = (char)*p;
		else
			j += snprintf(t->uri + j, sizeof t->uri - j, "%%%02X", *p);
	}
	t->uri[j] = '\0';
}

static void t_close(T *t)
{
	fmi2_unimport(&t->api);
}

static void log_clear(T *t)
{
	memset(&t->log, 0, sizeof t->log);
}

#define assert_logged(t, needle) assert_logged_at((t), (needle), __FILE__, __LINE__)

static void assert_logged_at(T *t, const char *needle, const char *file, int line)
{
	if (strstr(t->log.all, needle))
		return;
	print_error("'%s' not logged; the log:\n%s\n", needle, t->log.all);
	_fail(file, line);
}

static fmi2Component instantiate(T *t, const char *name)
{
	fmi2Component c = t->api.instantiate(name, fmi2CoSimulation, WSA_GUID, t->uri, &t->cb,
	                                     fmi2False, fmi2False);
	if (!c)
		print_error("fmi2Instantiate failed:\n%s\n", t->log.all);
	assert_non_null(c);
	return c;
}

/* Instantiated, initialized at t = 0, in stepComplete. */
static fmi2Component started(T *t, const char *name)
{
	fmi2Component c = instantiate(t, name);
	assert_int_equal(t->api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t->api.enter_init(c), fmi2OK);
	assert_int_equal(t->api.exit_init(c), fmi2OK);
	return c;
}

static void set_inputs(T *t, fmi2Component c, double disp, double speed, double force)
{
	const fmi2ValueReference vr[3] = {V_DISPLACEMENT, V_SPEED, V_REACTION_FORCE};
	const double v[3] = {disp, speed, force};
	assert_int_equal(t->api.set_real(c, vr, 3, v), fmi2OK);
}

static void get_outputs(T *t, fmi2Component c, double out[2])
{
	const fmi2ValueReference vr[2] = {V_DISP, V_TAU};
	out[0] = out[1] = NAN;
	assert_int_equal(t->api.get_real(c, vr, 2, out), fmi2OK);
}

/* window_sa's outputs by hand from its inputs. */
static double hand_disp(double disp)
{
	return 0.01 * (100.0 * R * disp);
}

static double hand_tau(double speed, double force)
{
	return -(-(R * force + B * R * speed));
}

static void assert_outputs(T *t, fmi2Component c, double disp, double speed, double force)
{
	double out[2];
	get_outputs(t, c, out);
	assert_close(out[0], hand_disp(disp), 1e-12);
	assert_close(out[1], hand_tau(speed, force), 1e-12);
}

static double last_successful(T *t, fmi2Component c)
{
	double v = NAN;
	assert_int_equal(t->api.get_real_status(c, fmi2LastSuccessfulTime, &v), fmi2OK);
	return v;
}

/* ---- values and steps ------------------------------------------------------------------- */

static void sart_wrapper__step__outputs_follow_the_window_by_hand(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	assert_string_equal(t.api.get_version(), "2.0");
	assert_string_equal(t.api.get_types_platform(), "default");
	fmi2Component c = started(&t, "wsa");
	assert_outputs(&t, c, 0.0, 0.0, 0.0);
	set_inputs(&t, c, 2.5, -1.5, 30.0);
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	/* disp = 0.01 * 100 * 0.11 * 2.5, tau = 0.11 * 30 + 10 * 0.11 * -1.5 */
	double out[2];
	get_outputs(&t, c, out);
	assert_close(out[0], 0.275, 1e-12);
	assert_close(out[1], 1.65, 1e-12);
	assert_close(last_successful(&t, c), 0.1, 1e-15);
	set_inputs(&t, c, -0.75, 4.0, 0.0);
	assert_int_equal(t.api.do_step(c, 0.1, 0.05, fmi2True), fmi2OK);
	assert_outputs(&t, c, -0.75, 4.0, 0.0);
	assert_close(last_successful(&t, c), 0.15, 1e-15);
	/* The inputs read back as set. */
	const fmi2ValueReference vr[3] = {V_DISPLACEMENT, V_SPEED, V_REACTION_FORCE};
	double in[3];
	assert_int_equal(t.api.get_real(c, vr, 3, in), fmi2OK);
	assert_close(in[0], -0.75, 0.0);
	assert_close(in[1], 4.0, 0.0);
	assert_int_equal(t.log.count, 0);
	assert_int_equal(t.api.terminate(c), fmi2OK);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__get_after_set__mealy_outputs_without_a_step(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	set_inputs(&t, c, 1.0, 2.0, 3.0);
	assert_outputs(&t, c, 1.0, 2.0, 3.0);
	double a[2], b[2];
	get_outputs(&t, c, a);
	get_outputs(&t, c, b);
	assert_memory_equal(a, b, sizeof a);
	/* A second set changes them again, still at t = 0. */
	set_inputs(&t, c, -4.0, 0.5, 0.0);
	assert_outputs(&t, c, -4.0, 0.5, 0.0);
	assert_int_equal(t.api.do_step(c, 0.0, 0.2, fmi2True), fmi2OK);
	assert_outputs(&t, c, -4.0, 0.5, 0.0);
	assert_close(last_successful(&t, c), 0.2, 1e-15);
	assert_int_equal(t.log.count, 0);
	t.api.free_instance(c);
	t_close(&t);
}

/* In initializationMode the outputs are calculated from the inputs set so far (the Init
 * sequence on a scratch copy), and follow a later set; leaving it commits them. */
static void sart_wrapper__initialization_mode__outputs_calculated_from_inputs(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = instantiate(&t, "wsa");
	assert_int_equal(t.api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t.api.enter_init(c), fmi2OK);
	assert_outputs(&t, c, 0.0, 0.0, 0.0);
	set_inputs(&t, c, 2.0, 1.0, 10.0);
	assert_outputs(&t, c, 2.0, 1.0, 10.0);
	set_inputs(&t, c, 3.0, -1.0, 0.0);
	assert_outputs(&t, c, 3.0, -1.0, 0.0);
	assert_int_equal(t.api.exit_init(c), fmi2OK);
	assert_outputs(&t, c, 3.0, -1.0, 0.0);
	assert_int_equal(t.log.count, 0);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__input_derivatives__inputs_extrapolated_to_step_end(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	set_inputs(&t, c, 1.0, 0.0, 0.0);
	const fmi2ValueReference vr[2] = {V_DISPLACEMENT, V_SPEED};
	const fmi2Integer order[2] = {1, 1};
	const double du[2] = {2.0, -4.0};
	assert_int_equal(t.api.set_input_derivatives(c, vr, 2, order, du), fmi2OK);
	assert_int_equal(t.api.do_step(c, 0.0, 0.5, fmi2True), fmi2OK);
	/* Reactive: the inputs at the end of the step, 1 + 2 * 0.5 and 0 - 4 * 0.5. */
	assert_outputs(&t, c, 2.0, -2.0, 0.0);
	/* Used once: the next step holds them. */
	assert_int_equal(t.api.do_step(c, 0.5, 0.5, fmi2True), fmi2OK);
	assert_outputs(&t, c, 2.0, -2.0, 0.0);

	/* Only order 1, only on Real inputs. */
	const fmi2Integer two = 2;
	assert_int_equal(t.api.set_input_derivatives(c, vr, 1, &two, du), fmi2Error);
	assert_logged(&t, "derivative order 2");
	const fmi2ValueReference out = V_DISP;
	assert_int_equal(t.api.set_input_derivatives(c, &out, 1, order, du), fmi2Error);
	assert_logged(&t, "value reference 3 is not a Real input");
	t.api.free_instance(c);
	t_close(&t);
}

/* ---- FMU states ------------------------------------------------------------------------- */

/* Two steps with changing inputs; their outputs. */
static void run_two_steps(T *t, fmi2Component c, double t0, double out[4])
{
	set_inputs(t, c, 0.3, -0.2, 7.0);
	assert_int_equal(t->api.do_step(c, t0, 0.1, fmi2False), fmi2OK);
	get_outputs(t, c, out);
	set_inputs(t, c, 1.7, 0.9, -2.0);
	assert_int_equal(t->api.do_step(c, t0 + 0.1, 0.1, fmi2False), fmi2OK);
	get_outputs(t, c, out + 2);
}

static void sart_wrapper__get_set_state__replay_is_bit_identical(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	set_inputs(&t, c, 5.0, 1.0, 1.0);
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2False), fmi2OK);
	fmi2FMUstate s = NULL;
	assert_int_equal(t.api.get_state(c, &s), fmi2OK);
	assert_non_null(s);
	double first[4], second[4];
	run_two_steps(&t, c, 0.1, first);
	assert_int_equal(t.api.set_state(c, s), fmi2OK);
	assert_close(last_successful(&t, c), 0.1, 1e-15);
	assert_outputs(&t, c, 5.0, 1.0, 1.0);
	run_two_steps(&t, c, 0.1, second);
	assert_memory_equal(first, second, sizeof first);
	/* Getting into the same state again overwrites it. */
	fmi2FMUstate same = s;
	assert_int_equal(t.api.get_state(c, &s), fmi2OK);
	assert_ptr_equal(s, same);
	assert_int_equal(t.api.free_state(c, &s), fmi2OK);
	assert_null(s);
	assert_int_equal(t.log.count, 0);
	t.api.free_instance(c);
	t_close(&t);
}

/* A state of c after one step, serialized; *size bytes, malloc'd. */
static unsigned char *serialized(T *t, fmi2Component c, size_t *size)
{
	fmi2FMUstate s = NULL;
	assert_int_equal(t->api.get_state(c, &s), fmi2OK);
	assert_int_equal(t->api.serialized_size(c, s, size), fmi2OK);
	assert_true(*size > 48);
	unsigned char *buf = malloc(*size);
	assert_non_null(buf);
	assert_int_equal(t->api.serialize(c, s, (fmi2Byte *)buf, *size), fmi2OK);
	assert_int_equal(t->api.free_state(c, &s), fmi2OK);
	return buf;
}

static void sart_wrapper__serialized_state__fresh_instance_steps_identically(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component a = started(&t, "a");
	set_inputs(&t, a, -3.0, 2.0, 12.0);
	assert_int_equal(t.api.do_step(a, 0.0, 0.25, fmi2False), fmi2OK);
	size_t size = 0;
	unsigned char *buf = serialized(&t, a, &size);
	assert_memory_equal(buf, "SACCWRAP", 8);

	fmi2Component b = started(&t, "b");
	fmi2FMUstate s = NULL;
	assert_int_equal(t.api.deserialize(b, (const fmi2Byte *)buf, size, &s), fmi2OK);
	assert_int_equal(t.api.set_state(b, s), fmi2OK);
	assert_int_equal(t.api.free_state(b, &s), fmi2OK);
	assert_close(last_successful(&t, b), 0.25, 0.0);
	assert_outputs(&t, b, -3.0, 2.0, 12.0);

	double ra[4], rb[4];
	run_two_steps(&t, a, 0.25, ra);
	run_two_steps(&t, b, 0.25, rb);
	assert_memory_equal(ra, rb, sizeof ra);
	assert_int_equal(t.log.count, 0);
	free(buf);
	t.api.free_instance(a);
	t.api.free_instance(b);
	t_close(&t);
}

/* buf (size bytes) is refused with a message, and the instance still works. */
static void assert_refused(T *t, fmi2Component c, const unsigned char *buf, size_t size,
                           const char *why)
{
	fmi2FMUstate s = NULL;
	log_clear(t);
	if (t->api.deserialize(c, (const fmi2Byte *)buf, size, &s) != fmi2Error)
		fail_msg("%s: accepted", why);
	assert_null(s);
	assert_int_equal(t->log.last_status, fmi2Error);
	assert_string_equal(t->log.last_category, "logStatusError");
	assert_logged(t, "fmi2DeSerializeFMUstate: ");
}

static void sart_wrapper__corrupted_serialized_state__error_never_crash(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	set_inputs(&t, c, 1.0, 1.0, 1.0);
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2False), fmi2OK);
	size_t size = 0;
	unsigned char *good = serialized(&t, c, &size);
	unsigned char *bad = malloc(size + 16);
	assert_non_null(bad);

	/* Every byte of the header, and a byte of the body and of the inner's part. */
	size_t spots[52];
	size_t nspots = 0;
	for (size_t i = 0; i < 48; i++)
		spots[nspots++] = i;
	spots[nspots++] = 60;
	spots[nspots++] = size / 2;
	spots[nspots++] = size - 20;
	spots[nspots++] = size - 1;
	for (size_t k = 0; k < nspots; k++) {
		memcpy(bad, good, size);
		bad[spots[k]] ^= 0x5a;
		char why[64];
		snprintf(why, sizeof why, "byte %lu flipped", (unsigned long)spots[k]);
		assert_refused(&t, c, bad, size, why);
	}
	/* Truncated anywhere, extended, empty, foreign. */
	const size_t cuts[] = {0, 7, 8, 47, 48, 49, size / 2, size - 8, size - 1};
	for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++)
		assert_refused(&t, c, good, cuts[k], "truncated");
	memcpy(bad, good, size);
	bad[size] = 0;
	assert_refused(&t, c, bad, size + 1, "one trailing byte");
	assert_logged(&t, "checksum");
	memset(bad, 0, size);
	assert_refused(&t, c, bad, size, "zeros");
	for (size_t i = 0; i < size; i++)
		bad[i] = (unsigned char)(i * 37 + 11);
	assert_refused(&t, c, bad, size, "noise");
	memcpy(bad + 8, bad + 16, 8);
	memcpy(bad, "SACCWRAP", 8);
	assert_refused(&t, c, bad, size, "magic then noise");
	assert_refused(&t, c, NULL, 0, "NULL");

	/* A version this FMU does not read is named as such. */
	memcpy(bad, good, size);
	bad[8] = 99;
	assert_refused(&t, c, bad, size, "version 99");
	assert_logged(&t, "format version 99");

	/* The good one still works after all that. */
	fmi2FMUstate s = NULL;
	assert_int_equal(t.api.deserialize(c, (const fmi2Byte *)good, size, &s), fmi2OK);
	assert_int_equal(t.api.set_state(c, s), fmi2OK);
	assert_int_equal(t.api.free_state(c, &s), fmi2OK);
	assert_outputs(&t, c, 1.0, 1.0, 1.0);
	/* A buffer too small to serialize into. */
	assert_int_equal(t.api.get_state(c, &s), fmi2OK);
	assert_int_equal(t.api.serialize(c, s, (fmi2Byte *)bad, size - 1), fmi2Error);
	assert_logged(&t, "fmi2SerializeFMUstate: the buffer holds");
	assert_int_equal(t.api.free_state(c, &s), fmi2OK);
	free(good);
	free(bad);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__foreign_or_misplaced_state__error(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component a = started(&t, "a");
	fmi2Component b = instantiate(&t, "b");
	fmi2FMUstate s = NULL;
	assert_int_equal(t.api.get_state(a, &s), fmi2OK);
	/* Another instance's state. */
	assert_int_equal(t.api.set_state(b, s), fmi2Error);
	assert_logged(&t, "fmi2SetFMUstate: the state belongs to another instance");
	/* A state from stepComplete set before initialization. */
	fmi2FMUstate early = NULL;
	assert_int_equal(t.api.get_state(b, &early), fmi2OK);
	assert_int_equal(t.api.set_state(a, early), fmi2Error);
	assert_int_equal(t.api.set_state(b, early), fmi2OK);
	log_clear(&t);
	assert_int_equal(t.api.set_state(a, s), fmi2OK);
	assert_int_equal(t.api.free_state(b, &early), fmi2OK);
	double junk[8] = {0};
	assert_int_equal(t.api.set_state(a, junk), fmi2Error);
	assert_logged(&t, "fmi2SetFMUstate: not a state of window_sa");
	assert_int_equal(t.api.set_state(a, NULL), fmi2Error);
	assert_int_equal(t.api.free_state(a, &s), fmi2OK);
	t.api.free_instance(a);
	t.api.free_instance(b);
	t_close(&t);
}

/* ---- the life cycle --------------------------------------------------------------------- */

static void sart_wrapper__bad_instantiate_arguments__null_with_message(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	assert_null(t.api.instantiate("x", fmi2CoSimulation, "{not-it}", t.uri, &t.cb, fmi2False,
	                              fmi2False));
	assert_logged(&t, "GUID {not-it} does not match window_sa's " WSA_GUID);
	/* A GUID full of conversions is logged as text, never interpreted. */
	assert_null(t.api.instantiate("x", fmi2CoSimulation, "%s%s%n%s", t.uri, &t.cb, fmi2False,
	                              fmi2False));
	assert_logged(&t, "GUID %s%s%n%s does not match");
	assert_null(t.api.instantiate("x", fmi2ModelExchange, WSA_GUID, t.uri, &t.cb, fmi2False,
	                              fmi2False));
	assert_logged(&t, "Co-Simulation only");
	assert_null(t.api.instantiate("x", fmi2CoSimulation, WSA_GUID, "http://example.org/r",
	                              &t.cb, fmi2False, fmi2False));
	assert_logged(&t, "bad resource location");
	assert_null(t.api.instantiate("x", fmi2CoSimulation, WSA_GUID, "file:///nonexistent/dir",
	                              &t.cb, fmi2False, fmi2False));
	assert_logged(&t, "cannot load inner FMU 'window'");
	assert_null(t.api.instantiate("", fmi2CoSimulation, WSA_GUID, t.uri, &t.cb, fmi2False,
	                              fmi2False));
	assert_null(t.api.instantiate("x", fmi2CoSimulation, WSA_GUID, t.uri, NULL, fmi2False,
	                              fmi2False));
	t_close(&t);
}

static void sart_wrapper__two_instances__independent(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component a = started(&t, "a");
	fmi2Component b = started(&t, "b");
	set_inputs(&t, a, 1.0, 2.0, 3.0);
	set_inputs(&t, b, -1.0, 0.0, 10.0);
	assert_int_equal(t.api.do_step(a, 0.0, 0.1, fmi2True), fmi2OK);
	assert_outputs(&t, a, 1.0, 2.0, 3.0);
	assert_outputs(&t, b, -1.0, 0.0, 10.0); /* by G, b has not stepped */
	assert_int_equal(t.api.do_step(b, 0.0, 0.3, fmi2True), fmi2OK);
	assert_int_equal(t.api.do_step(a, 0.1, 0.1, fmi2True), fmi2OK);
	assert_outputs(&t, a, 1.0, 2.0, 3.0);
	assert_outputs(&t, b, -1.0, 0.0, 10.0);
	assert_close(last_successful(&t, a), 0.2, 1e-15);
	assert_close(last_successful(&t, b), 0.3, 1e-15);
	t.api.free_instance(a);
	assert_int_equal(t.api.do_step(b, 0.3, 0.1, fmi2True), fmi2OK);
	assert_outputs(&t, b, -1.0, 0.0, 10.0);
	t.api.free_instance(b);
	t_close(&t);
}

static void sart_wrapper__reset__back_to_defaults(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = instantiate(&t, "wsa");
	const fmi2ValueReference p = V_INIT_DISPLACEMENT;
	const double five = 5.0;
	assert_int_equal(t.api.set_real(c, &p, 1, &five), fmi2OK);
	assert_int_equal(t.api.setup(c, fmi2False, 0.0, 1.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t.api.enter_init(c), fmi2OK);
	double v = NAN;
	assert_int_equal(t.api.get_real(c, &p, 1, &v), fmi2OK);
	assert_close(v, 5.0, 0.0);
	assert_int_equal(t.api.exit_init(c), fmi2OK);
	set_inputs(&t, c, 2.0, 3.0, 4.0);
	assert_int_equal(t.api.do_step(c, 1.0, 0.1, fmi2True), fmi2OK);
	assert_outputs(&t, c, 2.0, 3.0, 4.0);

	assert_int_equal(t.api.reset(c), fmi2OK);
	assert_int_equal(t.api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t.api.enter_init(c), fmi2OK);
	assert_int_equal(t.api.get_real(c, &p, 1, &v), fmi2OK);
	assert_close(v, 0.0, 0.0);
	assert_int_equal(t.api.exit_init(c), fmi2OK);
	assert_outputs(&t, c, 0.0, 0.0, 0.0);
	const fmi2ValueReference vr = V_DISPLACEMENT;
	assert_int_equal(t.api.get_real(c, &vr, 1, &v), fmi2OK);
	assert_close(v, 0.0, 0.0);
	/* Time starts over. */
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	assert_close(last_successful(&t, c), 0.1, 1e-15);
	t.api.free_instance(c);
	t_close(&t);
}

/* The model's table says who may set what: a fixed parameter until initialization ends, a
 * tunable one and inputs always, outputs never; a set refused at its k-th value keeps the
 * values before it, and the instance stays usable. */
static void sart_wrapper__set__fixed_parameter_only_before_initialization_ends(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = instantiate(&t, "wsa");
	const fmi2ValueReference fixed = V_INIT_TORQUE, tunable = V_INIT_DISPLACEMENT;
	double v = 2.0;
	assert_int_equal(t.api.set_real(c, &fixed, 1, &v), fmi2OK);
	assert_int_equal(t.api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t.api.enter_init(c), fmi2OK);
	v = 3.0;
	assert_int_equal(t.api.set_real(c, &fixed, 1, &v), fmi2OK);
	assert_int_equal(t.api.exit_init(c), fmi2OK);
	double got = NAN;
	assert_int_equal(t.api.get_real(c, &fixed, 1, &got), fmi2OK);
	assert_close(got, 3.0, 0.0);
	v = 4.0;
	assert_int_equal(t.api.set_real(c, &fixed, 1, &v), fmi2Error);
	assert_logged(&t, "fmi2SetReal: 'INIT_WINDOW_REACTION_TORQUE' is a fixed parameter: it "
	              "cannot be set after initialization");
	assert_int_equal(t.api.get_real(c, &fixed, 1, &got), fmi2OK);
	assert_close(got, 3.0, 0.0);
	assert_int_equal(t.api.set_real(c, &tunable, 1, &v), fmi2OK);
	/* refused at the second value: the first is kept */
	const fmi2ValueReference two[2] = {V_SPEED, V_DISP};
	const double values[2] = {7.0, 8.0};
	assert_int_equal(t.api.set_real(c, two, 2, values), fmi2Error);
	assert_logged(&t, "fmi2SetReal: 'disp' is an output");
	assert_int_equal(t.api.get_real(c, two, 1, &got), fmi2OK);
	assert_close(got, 7.0, 0.0);
	const fmi2ValueReference nowhere = 10;
	assert_int_equal(t.api.set_real(c, &nowhere, 1, &v), fmi2Error);
	assert_logged(&t, "fmi2SetReal: unknown value reference 10");
	const fmi2ValueReference none = 0;
	const fmi2Boolean b = fmi2True;
	assert_int_equal(t.api.set_boolean(c, &none, 1, &b), fmi2Error);
	assert_logged(&t, "fmi2SetBoolean: unknown value reference 0: window_sa has no Boolean "
	              "variable");
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__nan_into_inner__error_state_then_reset(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	const fmi2ValueReference vr = V_DISPLACEMENT;
	const double nan = NAN;
	assert_int_equal(t.api.set_real(c, &vr, 1, &nan), fmi2OK);
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2Error);
	assert_logged(&t, "logStatusError: [wrapper] rule sets window.displacement to nan");
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2Error);
	assert_logged(&t, "fmi2DoStep is not allowed in state error");
	assert_int_equal(t.api.reset(c), fmi2OK);
	assert_int_equal(t.api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t.api.enter_init(c), fmi2OK);
	assert_int_equal(t.api.exit_init(c), fmi2OK);
	set_inputs(&t, c, 1.0, 1.0, 1.0);
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	assert_outputs(&t, c, 1.0, 1.0, 1.0);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__bad_step_arguments__error_state_unchanged(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	assert_int_equal(t.api.do_step(c, 0.5, 0.1, fmi2True), fmi2Error);
	assert_logged(&t, "communication point 0.5 is not the instance's time 0");
	assert_int_equal(t.api.do_step(c, 0.0, 0.0, fmi2True), fmi2Error);
	assert_int_equal(t.api.do_step(c, 0.0, -1.0, fmi2True), fmi2Error);
	assert_int_equal(t.api.do_step(c, 0.0, INFINITY, fmi2True), fmi2Error);
	/* Within 1e-9 of the time is the time. */
	assert_int_equal(t.api.do_step(c, 1e-12, 0.1, fmi2True), fmi2OK);
	t.api.free_instance(c);
	t_close(&t);
}

/* ---- logging and unsupported functions -------------------------------------------------- */

static void sart_wrapper__logging__categories_and_fmi_calls(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	const fmi2String bogus[1] = {"logEverything"};
	assert_int_equal(t.api.set_debug_logging(c, fmi2True, 1, bogus), fmi2Error);
	assert_logged(&t, "unknown log category 'logEverything'");
	/* Off: a step logs nothing. */
	log_clear(&t);
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	assert_int_equal(t.log.count, 0);
	const fmi2String calls[1] = {"logFmiCalls"};
	assert_int_equal(t.api.set_debug_logging(c, fmi2True, 1, calls), fmi2OK);
	set_inputs(&t, c, 1.5, 0.0, 0.0);
	assert_int_equal(t.api.do_step(c, 0.1, 0.1, fmi2True), fmi2OK);
	assert_logged(&t, "logFmiCalls: fmi2SetReal(nvr = 3: #0 = 1.5, #1 = 0, #2 = 0)");
	assert_logged(&t, "logFmiCalls: fmi2DoStep(t = 0.1, H = 0.1");
	/* Errors are logged whatever the categories. */
	assert_int_equal(t.api.set_debug_logging(c, fmi2False, 0, NULL), fmi2OK);
	log_clear(&t);
	assert_int_equal(t.api.enter_init(c), fmi2Error);
	assert_int_equal(t.log.count, 1);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__unsupported_functions__error_with_message(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = started(&t, "wsa");
	const fmi2ValueReference vr = V_DISP;
	fmi2String s = NULL;
	assert_int_equal(t.api.get_string(c, &vr, 1, &s), fmi2Error);
	assert_logged(&t, "fmi2GetString: unknown value reference 3: window_sa has no String variable");
	const fmi2String hello = "hello";
	assert_int_equal(t.api.set_string(c, &vr, 1, &hello), fmi2Error);
	assert_logged(&t, "fmi2SetString: unknown value reference 3: window_sa has no String variable");
	fmi2Integer order = 1;
	double d = 0;
	assert_int_equal(t.api.get_output_derivatives(c, &vr, 1, &order, &d), fmi2Error);
	assert_logged(&t, "fmi2GetRealOutputDerivatives is not supported");
	const fmi2ValueReference in = V_DISPLACEMENT;
	const double one = 1.0;
	assert_int_equal(t.api.get_directional_derivative(c, &vr, 1, &in, 1, &one, &d), fmi2Error);
	assert_logged(&t, "fmi2GetDirectionalDerivative is not supported");
	assert_int_equal(t.api.cancel_step(c), fmi2Error);
	assert_logged(&t, "fmi2CancelStep: window_sa never runs steps asynchronously");
	fmi2Status st;
	assert_int_equal(t.api.get_status(c, fmi2DoStepStatus, &st), fmi2Error);
	assert_logged(&t, "fmi2GetStatus(0)");
	assert_int_equal(t.api.get_real_status(c, fmi2DoStepStatus, &d), fmi2Error);
	assert_logged(&t, "only fmi2LastSuccessfulTime");
	/* Unknown value references and unsettable variables, named from the model's tables. */
	assert_int_equal(t.api.get_integer(c, &vr, 1, &order), fmi2Error);
	assert_logged(&t, "fmi2GetInteger: unknown value reference 3: window_sa has no Integer "
	              "variable");
	const fmi2ValueReference nowhere = 99;
	assert_int_equal(t.api.get_real(c, &nowhere, 1, &d), fmi2Error);
	assert_logged(&t, "fmi2GetReal: unknown value reference 99");
	assert_int_equal(t.api.set_real(c, &vr, 1, &one), fmi2Error);
	assert_logged(&t, "'disp' is an output");
	/* Still fine after all that. */
	assert_int_equal(t.api.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	t.api.free_instance(c);
	t_close(&t);
}

static void sart_wrapper__null_component__error_no_crash(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	const fmi2ValueReference vr = 0;
	double d = 0;
	int i = 0;
	fmi2FMUstate s = NULL;
	size_t n = 0;
	assert_int_equal(t.api.set_debug_logging(NULL, fmi2True, 0, NULL), fmi2Error);
	assert_int_equal(t.api.setup(NULL, fmi2False, 0, 0, fmi2False, 0), fmi2Error);
	assert_int_equal(t.api.enter_init(NULL), fmi2Error);
	assert_int_equal(t.api.exit_init(NULL), fmi2Error);
	assert_int_equal(t.api.terminate(NULL), fmi2Error);
	assert_int_equal(t.api.reset(NULL), fmi2Error);
	assert_int_equal(t.api.get_real(NULL, &vr, 1, &d), fmi2Error);
	assert_int_equal(t.api.set_real(NULL, &vr, 1, &d), fmi2Error);
	assert_int_equal(t.api.get_integer(NULL, &vr, 1, &i), fmi2Error);
	assert_int_equal(t.api.set_boolean(NULL, &vr, 1, &i), fmi2Error);
	assert_int_equal(t.api.do_step(NULL, 0, 1, fmi2True), fmi2Error);
	assert_int_equal(t.api.get_real_status(NULL, fmi2LastSuccessfulTime, &d), fmi2Error);
	assert_int_equal(t.api.get_state(NULL, &s), fmi2Error);
	assert_int_equal(t.api.set_state(NULL, s), fmi2Error);
	assert_int_equal(t.api.free_state(NULL, &s), fmi2Error);
	assert_int_equal(t.api.serialized_size(NULL, s, &n), fmi2Error);
	assert_int_equal(t.api.deserialize(NULL, NULL, 0, &s), fmi2Error);
	assert_int_equal(t.api.cancel_step(NULL), fmi2Error);
	t.api.free_instance(NULL);
	assert_int_equal(t.log.count, 0);
	t_close(&t);
}

/* ---- the state machine: each function in a state where FMI forbids it ---------------- */

enum { AT_INSTANTIATED, AT_INIT, AT_STEP_COMPLETE, AT_TERMINATED, AT_ERROR };

typedef fmi2Status Call(T *t, fmi2Component c);

typedef struct Case {
	const char *name; /* the test's name */
	int at;
	Call *call;
	const char *expect;
} Case;

static fmi2Component drive(T *t, int at)
{
	fmi2Component c = instantiate(t, "wsa");
	if (at == AT_INSTANTIATED)
		return c;
	assert_int_equal(t->api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(t->api.enter_init(c), fmi2OK);
	if (at == AT_INIT)
		return c;
	assert_int_equal(t->api.exit_init(c), fmi2OK);
	if (at == AT_TERMINATED) {
		assert_int_equal(t->api.terminate(c), fmi2OK);
	} else if (at == AT_ERROR) {
		const fmi2ValueReference vr = V_SPEED;
		const double inf = INFINITY;
		assert_int_equal(t->api.set_real(c, &vr, 1, &inf), fmi2OK);
		assert_int_equal(t->api.do_step(c, 0.0, 0.1, fmi2True), fmi2Error);
	}
	return c;
}

static const fmi2ValueReference any_vr = V_DISPLACEMENT;

static fmi2Status c_setup(T *t, fmi2Component c)
{
	return t->api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
}
static fmi2Status c_enter(T *t, fmi2Component c)
{
	return t->api.enter_init(c);
}
static fmi2Status c_exit(T *t, fmi2Component c)
{
	return t->api.exit_init(c);
}
static fmi2Status c_terminate(T *t, fmi2Component c)
{
	return t->api.terminate(c);
}
static fmi2Status c_get_real(T *t, fmi2Component c)
{
	double v;
	return t->api.get_real(c, &any_vr, 1, &v);
}
static fmi2Status c_get_integer(T *t, fmi2Component c)
{
	int v;
	return t->api.get_integer(c, &any_vr, 1, &v);
}
static fmi2Status c_get_boolean(T *t, fmi2Component c)
{
	int v;
	return t->api.get_boolean(c, &any_vr, 1, &v);
}
static fmi2Status c_get_string(T *t, fmi2Component c)
{
	fmi2String v;
	return t->api.get_string(c, &any_vr, 1, &v);
}
static fmi2Status c_set_real(T *t, fmi2Component c)
{
	const double v = 1.0;
	return t->api.set_real(c, &any_vr, 1, &v);
}
static fmi2Status c_set_integer(T *t, fmi2Component c)
{
	const int v = 1;
	return t->api.set_integer(c, &any_vr, 1, &v);
}
static fmi2Status c_set_boolean(T *t, fmi2Component c)
{
	const int v = 1;
	return t->api.set_boolean(c, &any_vr, 1, &v);
}
static fmi2Status c_set_string(T *t, fmi2Component c)
{
	const fmi2String v = "x";
	return t->api.set_string(c, &any_vr, 1, &v);
}
static fmi2Status c_do_step(T *t, fmi2Component c)
{
	return t->api.do_step(c, 0.0, 0.1, fmi2True);
}
static fmi2Status c_input_derivatives(T *t, fmi2Component c)
{
	const int order = 1;
	const double v = 1.0;
	return t->api.set_input_derivatives(c, &any_vr, 1, &order, &v);
}
static fmi2Status c_output_derivatives(T *t, fmi2Component c)
{
	const int order = 1;
	double v;
	return t->api.get_output_derivatives(c, &any_vr, 1, &order, &v);
}
static fmi2Status c_get_status(T *t, fmi2Component c)
{
	fmi2Status v;
	return t->api.get_status(c, fmi2DoStepStatus, &v);
}
static fmi2Status c_get_real_status(T *t, fmi2Component c)
{
	double v;
	return t->api.get_real_status(c, fmi2LastSuccessfulTime, &v);
}
/* fmi2_importer.h does not look these three up. */
static fmi2Status c_get_integer_status(T *t, fmi2Component c)
{
	fmi2GetIntegerStatusTYPE *f;
	void *sym = dlsym(t->api.lib, "fmi2GetIntegerStatus");
	int v;
	assert_non_null(sym);
	memcpy(&f, &sym, sizeof sym);
	return f(c, fmi2DoStepStatus, &v);
}
static fmi2Status c_get_boolean_status(T *t, fmi2Component c)
{
	fmi2GetBooleanStatusTYPE *f;
	void *sym = dlsym(t->api.lib, "fmi2GetBooleanStatus");
	int v;
	assert_non_null(sym);
	memcpy(&f, &sym, sizeof sym);
	return f(c, fmi2Terminated, &v);
}
static fmi2Status c_get_string_status(T *t, fmi2Component c)
{
	fmi2GetStringStatusTYPE *f;
	void *sym = dlsym(t->api.lib, "fmi2GetStringStatus");
	fmi2String v;
	assert_non_null(sym);
	memcpy(&f, &sym, sizeof sym);
	return f(c, fmi2PendingStatus, &v);
}

static const Case cases[] = {
	{"sart_wrapper__fmi2SetupExperiment_in_initializationMode__error", AT_INIT, c_setup,
	 "fmi2SetupExperiment is not allowed in state initializationMode"},
	{"sart_wrapper__fmi2EnterInitializationMode_in_stepComplete__error", AT_STEP_COMPLETE,
	 c_enter, "fmi2EnterInitializationMode is not allowed in state stepComplete"},
	{"sart_wrapper__fmi2ExitInitializationMode_in_instantiated__error", AT_INSTANTIATED, c_exit,
	 "fmi2ExitInitializationMode is not allowed in state instantiated"},
	{"sart_wrapper__fmi2Terminate_in_initializationMode__error", AT_INIT, c_terminate,
	 "fmi2Terminate is not allowed in state initializationMode"},
	{"sart_wrapper__fmi2GetReal_in_instantiated__error", AT_INSTANTIATED, c_get_real,
	 "fmi2GetReal is not allowed in state instantiated"},
	{"sart_wrapper__fmi2GetInteger_in_instantiated__error", AT_INSTANTIATED, c_get_integer,
	 "fmi2GetInteger is not allowed in state instantiated"},
	{"sart_wrapper__fmi2GetBoolean_in_instantiated__error", AT_INSTANTIATED, c_get_boolean,
	 "fmi2GetBoolean is not allowed in state instantiated"},
	{"sart_wrapper__fmi2GetString_in_instantiated__error", AT_INSTANTIATED, c_get_string,
	 "fmi2GetString is not allowed in state instantiated"},
	{"sart_wrapper__fmi2SetReal_in_terminated__error", AT_TERMINATED, c_set_real,
	 "fmi2SetReal is not allowed in state terminated"},
	{"sart_wrapper__fmi2SetReal_in_error__error", AT_ERROR, c_set_real,
	 "fmi2SetReal is not allowed in state error"},
	{"sart_wrapper__fmi2SetInteger_in_terminated__error", AT_TERMINATED, c_set_integer,
	 "fmi2SetInteger is not allowed in state terminated"},
	{"sart_wrapper__fmi2SetBoolean_in_terminated__error", AT_TERMINATED, c_set_boolean,
	 "fmi2SetBoolean is not allowed in state terminated"},
	{"sart_wrapper__fmi2SetString_in_terminated__error", AT_TERMINATED, c_set_string,
	 "fmi2SetString is not allowed in state terminated"},
	{"sart_wrapper__fmi2DoStep_in_instantiated__error", AT_INSTANTIATED, c_do_step,
	 "fmi2DoStep is not allowed in state instantiated"},
	{"sart_wrapper__fmi2DoStep_in_initializationMode__error", AT_INIT, c_do_step,
	 "fmi2DoStep is not allowed in state initializationMode"},
	{"sart_wrapper__fmi2DoStep_in_terminated__error", AT_TERMINATED, c_do_step,
	 "fmi2DoStep is not allowed in state terminated"},
	{"sart_wrapper__fmi2SetRealInputDerivatives_in_terminated__error", AT_TERMINATED,
	 c_input_derivatives, "fmi2SetRealInputDerivatives is not allowed in state terminated"},
	{"sart_wrapper__fmi2GetRealOutputDerivatives_in_instantiated__error", AT_INSTANTIATED,
	 c_output_derivatives, "fmi2GetRealOutputDerivatives is not allowed in state instantiated"},
	{"sart_wrapper__fmi2GetStatus_in_initializationMode__error", AT_INIT, c_get_status,
	 "fmi2GetStatus is not allowed in state initializationMode"},
	{"sart_wrapper__fmi2GetRealStatus_in_instantiated__error", AT_INSTANTIATED,
	 c_get_real_status, "fmi2GetRealStatus is not allowed in state instantiated"},
	{"sart_wrapper__fmi2GetRealStatus_in_error__error", AT_ERROR, c_get_real_status,
	 "fmi2GetRealStatus is not allowed in state error"},
	{"sart_wrapper__fmi2GetIntegerStatus_in_initializationMode__error", AT_INIT,
	 c_get_integer_status, "fmi2GetIntegerStatus is not allowed in state initializationMode"},
	{"sart_wrapper__fmi2GetBooleanStatus_in_instantiated__error", AT_INSTANTIATED,
	 c_get_boolean_status, "fmi2GetBooleanStatus is not allowed in state instantiated"},
	{"sart_wrapper__fmi2GetStringStatus_in_initializationMode__error", AT_INIT,
	 c_get_string_status, "fmi2GetStringStatus is not allowed in state initializationMode"},
};

/* One case: the call fails, says so under logStatusError even with logging off, and the
 * instance stays where it was (a later legal call works). */
static void state_case(void **state)
{
	const Case *k = *state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = drive(&t, k->at);
	log_clear(&t);
	assert_int_equal(k->call(&t, c), fmi2Error);
	assert_logged(&t, k->expect);
	assert_int_equal(t.log.count, 1);
	assert_string_equal(t.log.last_category, "logStatusError");
	assert_int_equal(t.log.last_status, fmi2Error);
	if (k->at == AT_INSTANTIATED)
		assert_int_equal(c_setup(&t, c), fmi2OK);
	else if (k->at == AT_INIT)
		assert_int_equal(c_exit(&t, c), fmi2OK);
	else if (k->at == AT_STEP_COMPLETE)
		assert_int_equal(c_do_step(&t, c), fmi2OK);
	else if (k->at == AT_TERMINATED || k->at == AT_ERROR)
		assert_int_equal(t.api.reset(c), fmi2OK);
	t.api.free_instance(c);
	t_close(&t);
}

/* fmi2GetBooleanStatus(fmi2Terminated) is defined: the wrapper never asks to stop. */
static void sart_wrapper__boolean_status_terminated__false(void **state)
{
	(void)state;
	T_DECLARE(t);
	t_open(&t);
	fmi2Component c = drive(&t, AT_STEP_COMPLETE);
	fmi2GetBooleanStatusTYPE *f;
	void *sym = dlsym(t.api.lib, "fmi2GetBooleanStatus");
	assert_non_null(sym);
	memcpy(&f, &sym, sizeof sym);
	int v = 7;
	assert_int_equal(f(c, fmi2Terminated, &v), fmi2OK);
	assert_int_equal(v, fmi2False);
	t.api.free_instance(c);
	t_close(&t);
}

#define NCASES (sizeof cases / sizeof cases[0])

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sart_wrapper__step__outputs_follow_the_window_by_hand),
		cmocka_unit_test(sart_wrapper__get_after_set__mealy_outputs_without_a_step),
		cmocka_unit_test(sart_wrapper__initialization_mode__outputs_calculated_from_inputs),
		cmocka_unit_test(sart_wrapper__input_derivatives__inputs_extrapolated_to_step_end),
		cmocka_unit_test(sart_wrapper__get_set_state__replay_is_bit_identical),
		cmocka_unit_test(sart_wrapper__serialized_state__fresh_instance_steps_identically),
		cmocka_unit_test(sart_wrapper__corrupted_serialized_state__error_never_crash),
		cmocka_unit_test(sart_wrapper__foreign_or_misplaced_state__error),
		cmocka_unit_test(sart_wrapper__bad_instantiate_arguments__null_with_message),
		cmocka_unit_test(sart_wrapper__two_instances__independent),
		cmocka_unit_test(sart_wrapper__reset__back_to_defaults),
		cmocka_unit_test(sart_wrapper__set__fixed_parameter_only_before_initialization_ends),
		cmocka_unit_test(sart_wrapper__nan_into_inner__error_state_then_reset),
		cmocka_unit_test(sart_wrapper__bad_step_arguments__error_state_unchanged),
		cmocka_unit_test(sart_wrapper__logging__categories_and_fmi_calls),
		cmocka_unit_test(sart_wrapper__unsupported_functions__error_with_message),
		cmocka_unit_test(sart_wrapper__null_component__error_no_crash),
		cmocka_unit_test(sart_wrapper__boolean_status_terminated__false),
	};
	struct CMUnitTest all[sizeof tests / sizeof tests[0] + NCASES];
	size_t n = 0;
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		all[n++] = tests[i];
	for (size_t i = 0; i < NCASES; i++) {
		struct CMUnitTest k = {cases[i].name, state_case, NULL, NULL, (void *)&cases[i]};
		all[n++] = k;
	}
	return _cmocka_run_group_tests("sart_wrapper", all, n, NULL, NULL);
}
