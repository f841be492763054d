/* test_sart_inner.c — the runtime's inner-FMU seam (runtime/sart_inner.h) against the real
 * test FMUs: loading, stepping, several instances in one process, discards with their last
 * successful time, FMU states, and every error path the seam reports: wrong GUID, missing
 * symbols, missing directories and libraries, odd statuses, unavailable functions.  Also
 * the file: URI helpers.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the FMUs come from $SACC_BUILD/fmus/<name>/ and the deliberately broken ones
 * (tests/fmus/broken/) from $SACC_BUILD/fmus-broken/<name>/. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"
#include "sart_inner.h"
#include "sart_inner_fmi2_direct.h"

/* The GUIDs of tests/fmus/<name>/modelDescription.xml. */
#define WINDOW_GUID "{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}"
#define OBSTACLE_GUID "{5d21a8f0-6c3b-4e97-b2d4-8f1e0a9c7b02}"
#define CONTROLLER_GUID "{8e2b5f17-4d09-4c6a-a3f8-1b7e9d0c2a64}"
#define POWER_GUID "{c41a7e93-2f6d-4b58-8d0c-5e9a3b7f1d26}"

/* Value references, from the same model descriptions. */
enum { W_DISPLACEMENT, W_SPEED, W_REACTION_FORCE, W_HEIGHT, W_REACTION_TORQUE, W_R, W_B };
enum { O_DISP, O_REACTION_FORCE, O_C, O_POSITION };
enum { C_OBJ_DETECTED, C_DRIVER_UP, C_PASSENGER_UP = 4, C_STOP = 9, C_CHART_STATE = 0 };
enum { P_U, P_D, P_TAU, P_CURRENT, P_SPEED, P_DISPLACEMENT };

/* ---- helpers ---------------------------------------------------------------------------- */

/* Everything the seam logged, one message a line, and the last one apart. */
typedef struct Log {
	int count;
	SartStatus last_status;
	char last_category[64];
	char last[4096];
	char all[16384];
} Log;

static void capture(void *env, SartStatus st, const char *category, const char *message)
{
	Log *l = env;
	size_t used = strlen(l->all);
	l->count++;
	l->last_status = st;
	snprintf(l->last_category, sizeof l->last_category, "%s", category);
	snprintf(l->last, sizeof l->last, "%s", message);
	snprintf(l->all + used, sizeof l->all - used, "%s\n", message);
}

#include "assert_contains.h"

static char *fmu_dir(const char *group, const char *model)
{
	static char dirs[4][512];
	static int next;
	char *d = dirs[next++ % 4];
	snprintf(d, sizeof dirs[0], "%s/%s/%s", test_build_dir(), group, model);
	return d;
}

static SartStatus try_load(const char *group, const char *model, const char *name,
                           unsigned caps, Log *log, SartInner **out)
{
	SartInnerConfig cfg = {name, fmu_dir(group, model), model, SART_FMI2, caps, capture, log,
	                       NULL, 0, NULL, 0, {0}, {NULL, 0}};
	return sart_inner_load(&cfg, out);
}

static SartInner *load(const char *model, const char *name, unsigned caps, Log *log)
{
	SartInner *in = NULL;
	SartStatus st = try_load("fmus", model, name, caps, log, &in);
	if (st != SART_OK)
		print_error("load %s: %s\n", model, log->all);
	assert_int_equal(st, SART_OK);
	assert_non_null(in);
	return in;
}

static const SartExperiment from_zero = {0, 0.0, 0.0, 0, 0.0};

static void start(SartInner *in, const char *guid, int logging)
{
	assert_int_equal(sart_inner_instantiate(in, guid, logging), SART_OK);
	assert_int_equal(sart_inner_enter_init(in, &from_zero), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
}

static void set_real(SartInner *in, SartVr vr, double v)
{
	assert_int_equal(sart_inner_set_real(in, &vr, 1, &v), SART_OK);
}

static double get_real(SartInner *in, SartVr vr)
{
	double v = NAN;
	assert_int_equal(sart_inner_get_real(in, &vr, 1, &v), SART_OK);
	return v;
}

static void set_bool(SartInner *in, SartVr vr, int v)
{
	assert_int_equal(sart_inner_set_boolean(in, &vr, 1, &v), SART_OK);
}

static double step(SartInner *in, double t, double h)
{
	double reached = NAN;
	assert_int_equal(sart_inner_do_step(in, t, h, 0, &reached), SART_OK);
	assert_true(reached == t + h);
	return reached;
}

/* The window's model (tests/fmus/window/model.c) computed here. */
static void window_expect(double r, double b, double disp, double speed, double force,
                          double *height, double *torque)
{
	*height = 100.0 * r * disp;
	*torque = -(r * force + b * r * speed);
}

static void window_check(SartInner *w, double r, double b, double disp, double speed,
                         double force)
{
	double height, torque;
	window_expect(r, b, disp, speed, force, &height, &torque);
	assert_close(get_real(w, W_HEIGHT), height, 1e-12);
	assert_close(get_real(w, W_REACTION_TORQUE), torque, 1e-12);
}

static void window_inputs(SartInner *w, double disp, double speed, double force)
{
	SartVr vr[3] = {W_DISPLACEMENT, W_SPEED, W_REACTION_FORCE};
	double v[3] = {disp, speed, force};
	assert_int_equal(sart_inner_set_real(w, vr, 3, v), SART_OK);
}

/* ---- one FMU ---------------------------------------------------------------------------- */

static void sart_inner__window_step__outputs_follow_formula(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *w = load("window", "window", 0, &log);
	assert_string_equal(sart_inner_name(w), "window");
	start(w, WINDOW_GUID, 0);
	window_inputs(w, 2.5, -1.5, 30.0);
	double t = step(w, 0.0, 0.1);
	window_check(w, 0.11, 10.0, 2.5, -1.5, 30.0);
	window_inputs(w, -0.75, 4.0, 0.0);
	t = step(w, t, 0.05);
	window_check(w, 0.11, 10.0, -0.75, 4.0, 0.0);
	assert_int_equal(log.count, 0);
	assert_string_equal(sart_inner_message(w), "");

	/* An FMU error comes back with the kit's message and the seam's, both prefixed. */
	SartVr vr = 0;
	const char *s = NULL;
	assert_int_equal(sart_inner_get_string(w, &vr, 1, &s), SART_ERROR);
	assert_contains(log.all, "[window] fmi2GetString: no String variable has value reference 0");
	assert_string_equal(sart_inner_message(w), "[window] fmi2GetString returned fmi2Error");
	assert_int_equal(log.last_status, SART_ERROR);
	assert_string_equal(log.last_category, "logStatusError");

	/* Terminated, a step is the FMU's error; reset brings it back to the start. */
	assert_int_equal(sart_inner_terminate(w), SART_OK);
	assert_int_equal(sart_inner_do_step(w, t, 0.1, 0, NULL), SART_ERROR);
	assert_contains(log.all, "[window] fmi2DoStep is not allowed in state terminated");
	assert_contains(sart_inner_message(w), "[window] fmi2DoStep(t = 0.15");
	assert_int_equal(sart_inner_reset(w), SART_OK);
	set_real(w, W_R, 0.2); /* a fixed parameter: settable again after reset */
	assert_int_equal(sart_inner_enter_init(w, &from_zero), SART_OK);
	assert_int_equal(sart_inner_exit_init(w), SART_OK);
	window_inputs(w, 1.0, 1.0, 1.0);
	step(w, 0.0, 0.1);
	window_check(w, 0.2, 10.0, 1.0, 1.0, 1.0);
	sart_inner_free(w);
}

static void sart_inner__input_derivatives__extrapolated_over_the_step(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *w = load("window", "window", SART_CAP_INPUT_DERIVATIVES, &log);
	start(w, WINDOW_GUID, 0);
	window_inputs(w, 1.0, 0.0, 0.0);
	SartVr vr = W_DISPLACEMENT;
	int order = 1;
	double slope = 2.0;
	assert_int_equal(sart_inner_set_real_input_derivatives(w, &vr, 1, &order, &slope), SART_OK);
	step(w, 0.0, 0.25);
	assert_close(get_real(w, W_HEIGHT), 100.0 * 0.11 * (1.0 + 2.0 * 0.25), 1e-12);
	order = 2;
	assert_int_equal(sart_inner_set_real_input_derivatives(w, &vr, 1, &order, &slope),
	                 SART_ERROR);
	assert_contains(log.all, "derivative order 2 of 'displacement' is not supported");
	sart_inner_free(w);
}

/* ---- several FMUs ----------------------------------------------------------------------- */

static void sart_inner__two_windows_and_obstacle__independent(void **state)
{
	(void)state;
	Log la = {0}, lb = {0}, lo = {0};
	SartInner *a = load("window", "window", 0, &la);
	SartInner *b = load("window", "window2", 0, &lb);
	SartInner *o = load("obstacle", "obstacle", 0, &lo);
	assert_int_equal(sart_inner_instantiate(a, WINDOW_GUID, 0), SART_OK);
	assert_int_equal(sart_inner_instantiate(b, WINDOW_GUID, 0), SART_OK);
	set_real(b, W_R, 0.2);
	set_real(b, W_B, 3.0);
	assert_int_equal(sart_inner_enter_init(a, &from_zero), SART_OK);
	assert_int_equal(sart_inner_enter_init(b, &from_zero), SART_OK);
	assert_int_equal(sart_inner_exit_init(a), SART_OK);
	assert_int_equal(sart_inner_exit_init(b), SART_OK);
	start(o, OBSTACLE_GUID, 0);

	double t = 0.0;
	for (int i = 0; i < 5; i++) {
		window_inputs(a, 0.1 * i, 1.0, 2.0 * i);
		window_inputs(b, -0.3 * i, 0.5 * i, 7.0);
		set_real(o, O_DISP, 0.40 + 0.02 * i);
		step(a, t, 0.01);
		step(b, t, 0.01);
		step(o, t, 0.01);
		t += 0.01;
		window_check(a, 0.11, 10.0, 0.1 * i, 1.0, 2.0 * i);
		window_check(b, 0.2, 3.0, -0.3 * i, 0.5 * i, 7.0);
		double disp = 0.40 + 0.02 * i;
		assert_close(get_real(o, O_REACTION_FORCE), disp > 0.45 ? 1e10 * (disp - 0.45) : 0.0,
		             1e-3);
	}
	/* Freeing one leaves the others working (the windows share one library). */
	sart_inner_free(a);
	window_inputs(b, 1.0, 1.0, 1.0);
	step(b, t, 0.01);
	window_check(b, 0.2, 3.0, 1.0, 1.0, 1.0);
	assert_int_equal(la.count + lb.count + lo.count, 0);
	sart_inner_free(b);
	sart_inner_free(o);
}

/* Both libraries export fmi2DoStep, fmi2GetReal, ...: RTLD_LOCAL keeps them out of the
 * global scope, and each instance's table holds its own library's functions. */
static void sart_inner__window_and_obstacle__each_calls_its_own_library(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *w = load("window", "window", 0, &log);
	SartInner *o = load("obstacle", "obstacle", 0, &log);
	assert_null(dlsym(RTLD_DEFAULT, "fmi2DoStep"));
	assert_null(dlsym(RTLD_DEFAULT, "fmi2GetReal"));
	start(w, WINDOW_GUID, 0);
	start(o, OBSTACLE_GUID, 0);
	window_inputs(w, 3.0, 0.0, 0.0);
	set_real(o, O_DISP, 0.5);
	step(o, 0.0, 0.1);
	step(w, 0.0, 0.1);
	/* Value reference 3 is the window's height but the obstacle's position. */
	assert_close(get_real(w, 3), 100.0 * 0.11 * 3.0, 1e-12);
	assert_close(get_real(o, 3), 0.45, 0);
	assert_close(get_real(o, O_REACTION_FORCE), 1e10 * (0.5 - 0.45), 1e-3);
	sart_inner_free(w);
	sart_inner_free(o);
	assert_int_equal(log.count, 0);
}

/* ---- discards --------------------------------------------------------------------------- */

static void sart_inner__controller_across_timer__discard_at_expiry(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *c = load("controller", "controller", SART_CAP_GET_SET_STATE, &log);
	start(c, CONTROLLER_GUID, 1);
	set_bool(c, C_PASSENGER_UP, 1);
	double t = step(c, 0.0, 0.013);
	set_bool(c, C_PASSENGER_UP, 0);
	set_bool(c, C_OBJ_DETECTED, 1);
	t = step(c, t, 0.2);
	set_bool(c, C_OBJ_DETECTED, 0);
	double expiry = t + 1.0;
	/* With logging on, the chart's own messages come through, formatted and prefixed. */
	assert_contains(log.all, "[controller] t = 0.21300000000000002: Passenger up -> Emergency");
	assert_int_equal(log.last_status, SART_OK);
	assert_string_equal(log.last_category, "logAll");

	void *before = NULL;
	assert_int_equal(sart_inner_get_state(c, &before), SART_OK);
	double reached = NAN;
	assert_int_equal(sart_inner_do_step(c, t, 2.0, 0, &reached), SART_DISCARD);
	assert_close(reached, expiry, 1e-12);
	assert_contains(log.all, "[controller] fmi2DoStep: the step from t = 0.21300000000000002");
	assert_contains(sart_inner_message(c), "[controller] fmi2DoStep(t = 0.21300000000000002, "
	                                       "h = 2) returned fmi2Discard; last successful time 1.2");
	assert_int_equal(log.last_status, SART_DISCARD);
	assert_string_equal(log.last_category, "logStatusDiscard");
	/* Stopped at the expiry with the transition taken. */
	int chart = -1, stop = -1;
	SartVr vr = C_CHART_STATE;
	assert_int_equal(sart_inner_get_integer(c, &vr, 1, &chart), SART_OK);
	assert_int_equal(chart, 0);
	vr = C_STOP;
	assert_int_equal(sart_inner_get_boolean(c, &vr, 1, &stop), SART_OK);
	assert_int_equal(stop, 1);

	/* Rolled back, a step that ends on the expiry is accepted. */
	assert_int_equal(sart_inner_set_state(c, before), SART_OK);
	step(c, t, expiry - t);
	assert_int_equal(sart_inner_free_state(c, &before), SART_OK);
	assert_null(before);
	sart_inner_free(c);
}

/* ---- FMU states ------------------------------------------------------------------------- */

typedef struct PowerOut {
	double v[3];
} PowerOut;

static void power_run(SartInner *p, double t, PowerOut out[4])
{
	SartVr vr[3] = {P_CURRENT, P_SPEED, P_DISPLACEMENT};
	for (int i = 0; i < 4; i++) {
		set_real(p, P_TAU, 0.1 * i);
		t = step(p, t, 0.01);
		assert_int_equal(sart_inner_get_real(p, vr, 3, out[i].v), SART_OK);
	}
}

static void sart_inner__power_state__round_trip_and_serialized_identical(void **state)
{
	(void)state;
	Log log = {0};
	unsigned caps = SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE;
	SartInner *p = load("power", "power", caps, &log);
	start(p, POWER_GUID, 0);
	set_real(p, P_U, 1.0);
	double t = 0.0;
	for (int i = 0; i < 5; i++)
		t = step(p, t, 0.01);
	void *s = NULL;
	assert_int_equal(sart_inner_get_state(p, &s), SART_OK);
	PowerOut first[4], again[4], fresh[4];
	power_run(p, t, first);
	assert_true(first[3].v[1] > 0.0); /* the motor turns */
	assert_int_equal(sart_inner_set_state(p, s), SART_OK);
	power_run(p, t, again);
	assert_memory_equal(first, again, sizeof first);

	size_t n = 0;
	assert_int_equal(sart_inner_serialized_size(p, s, &n), SART_OK);
	unsigned char *buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(sart_inner_serialize(p, s, buf, n), SART_OK);

	SartInner *q = load("power", "power2", caps, &log);
	start(q, POWER_GUID, 0);
	void *s2 = NULL;
	assert_int_equal(sart_inner_deserialize(q, buf, n, &s2), SART_OK);
	assert_int_equal(sart_inner_set_state(q, s2), SART_OK);
	power_run(q, t, fresh);
	assert_memory_equal(first, fresh, sizeof first);

	/* Foreign bytes are the FMU's error, with its message. */
	void *s3 = NULL;
	buf[0] ^= 0x5a;
	assert_int_equal(sart_inner_deserialize(q, buf, n, &s3), SART_ERROR);
	assert_null(s3);
	assert_contains(log.all, "[power2] fmi2DeSerializeFMUstate: the ");
	assert_string_equal(sart_inner_message(q), "[power2] fmi2DeSerializeFMUstate returned fmi2Error");

	free(buf);
	assert_int_equal(sart_inner_free_state(q, &s2), SART_OK);
	assert_int_equal(sart_inner_free_state(p, &s), SART_OK);
	sart_inner_free(q);
	sart_inner_free(p);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void sart_inner__wrong_guid__kit_message_forwarded_with_prefix(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *w = load("window", "window", 0, &log);
	assert_int_equal(sart_inner_instantiate(w, "{not-the-guid}", 0), SART_ERROR);
	assert_contains(log.all, "[window] fmi2Instantiate: GUID {not-the-guid} does not match "
	                         "window's " WINDOW_GUID "\n");
	assert_string_equal(sart_inner_message(w), "[window] fmi2Instantiate returned NULL");
	assert_int_equal(log.count, 2);
	assert_int_equal(log.last_status, SART_ERROR);

	/* Nothing to call now, and the seam says so rather than crash. */
	assert_int_equal(sart_inner_exit_init(w), SART_ERROR);
	assert_string_equal(sart_inner_message(w),
	                    "[window] sart_inner_exit_init: the FMU is not instantiated");
	double reached = 0.0;
	assert_int_equal(sart_inner_do_step(w, 0.0, 0.1, 0, &reached), SART_ERROR);
	assert_true(isnan(reached));
	/* The right GUID then works. */
	start(w, WINDOW_GUID, 0);
	assert_int_equal(sart_inner_instantiate(w, WINDOW_GUID, 0), SART_ERROR);
	assert_contains(sart_inner_message(w), "already instantiated");
	sart_inner_free(w);
}

static void sart_inner__library_without_do_step__load_names_it(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = (SartInner *)&log; /* must be overwritten with NULL */
	assert_int_equal(try_load("fmus-broken", "nodostep", "nds", 0, &log, &in), SART_ERROR);
	assert_null(in);
	assert_int_equal(log.count, 1);
	assert_contains(log.last, "[nds] cannot load /");
	assert_contains(log.last, "/fmus-broken/nodostep/binaries/linux64/nodostep.so: it does not "
	                          "export fmi2DoStep");
	assert_null(strstr(log.last, "fmi2GetFMUstate"));
	assert_null(strstr(log.last, "fmi2GetReal,"));
	assert_string_equal(log.last_category, "logStatusError");

	/* Declaring a capability makes its functions required too. */
	assert_int_equal(try_load("fmus-broken", "nodostep", "nds", SART_CAP_GET_SET_STATE, &log,
	                          &in), SART_ERROR);
	assert_contains(log.last, "it does not export fmi2DoStep, fmi2GetFMUstate (needed for "
	                          "canGetAndSetFMUstate), fmi2SetFMUstate (needed for");
	assert_null(strstr(log.last, "fmi2SerializeFMUstate"));
}

static void sart_inner__missing_directory_or_library__error_names_path(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = NULL;
	assert_int_equal(try_load("fmus", "nosuchfmu", "x", 0, &log, &in), SART_ERROR);
	assert_null(in);
	assert_contains(log.last, "[x] cannot load FMU directory ");
	assert_contains(log.last, "/fmus/nosuchfmu: No such file or directory");

	/* The directory exists; the library named by the identifier does not. */
	SartInnerConfig cfg = {"w", fmu_dir("fmus", "window"), "windoww", SART_FMI2, 0, capture,
	                       &log, NULL, 0, NULL, 0, {0}, {NULL, 0}};
	assert_int_equal(sart_inner_load(&cfg, &in), SART_ERROR);
	assert_null(in);
	assert_contains(log.last, "[w] cannot load /");
	assert_contains(log.last, "/fmus/window/binaries/linux64/windoww.so: ");

	cfg.model_identifier = "../window";
	assert_int_equal(sart_inner_load(&cfg, &in), SART_ERROR);
	assert_contains(log.last, "invalid model identifier '../window'");

	/* an FMI 3.0 back end looks under binaries/x86_64-linux/ */
	cfg.model_identifier = "window";
	cfg.version = SART_FMI3;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_ERROR);
	assert_contains(log.last, "/fmus/window/binaries/x86_64-linux/window.so: ");

	cfg.version = (SartFmiVersion)4;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_ERROR);
	assert_contains(log.last, "FMI version 4 is not supported");

	/* No logger: still an error, nothing to crash on. */
	cfg.version = SART_FMI2;
	cfg.dir = "/nonexistent/dir";
	cfg.logger = NULL;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_ERROR);
	assert_null(in);
	assert_int_equal(sart_inner_load(NULL, &in), SART_ERROR);
	assert_int_equal(sart_inner_load(&cfg, NULL), SART_ERROR);
}

static void sart_inner__odd_statuses__reported_as_errors(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = NULL;
	assert_int_equal(try_load("fmus-broken", "badstatus", "bad", 0, &log, &in), SART_OK);
	assert_int_equal(sart_inner_instantiate(in, "{any}", 0), SART_OK);
	assert_int_equal(sart_inner_enter_init(in, &from_zero), SART_OK);

	/* A message longer than the buffer is cut, visibly. */
	assert_int_equal(sart_inner_exit_init(in), SART_WARNING);
	assert_contains(log.all, "[bad] a long message: xxxxxxxxxx");
	assert_null(strstr(log.all, "(end)"));
	assert_contains(log.all, "xxx...\n");
	assert_string_equal(sart_inner_message(in), "[bad] fmi2ExitInitializationMode returned "
	                                            "fmi2Warning");
	assert_string_equal(log.last_category, "logStatusWarning");

	double reached = 0.0;
	assert_int_equal(sart_inner_do_step(in, 1.0, 0.5, 0, &reached), SART_ERROR);
	assert_true(isnan(reached));
	assert_string_equal(sart_inner_message(in),
	                    "[bad] fmi2DoStep(t = 1, h = 0.5) returned fmi2Discard, and "
	                    "fmi2GetRealStatus(fmi2LastSuccessfulTime) then returned fmi2Error: the "
	                    "time the FMU stands at is unknown");
	assert_int_equal(sart_inner_do_step(in, 1.0, 1.5, 0, &reached), SART_ERROR);
	assert_string_equal(sart_inner_message(in),
	                    "[bad] fmi2DoStep(t = 1, h = 1.5) returned fmi2Discard with last "
	                    "successful time 4, outside the step");
	assert_int_equal(sart_inner_do_step(in, 1.0, 2.5, 0, &reached), SART_ERROR);
	assert_contains(sart_inner_message(in), "returned fmi2Pending, but no asynchronous step");
	assert_int_equal(sart_inner_do_step(in, 1.0, 3.5, 0, &reached), SART_ERROR);
	assert_contains(sart_inner_message(in), "returned an unknown status 42");

	/* Functions the library does not export are errors, not calls through NULL. */
	void *s = NULL;
	assert_int_equal(sart_inner_get_state(in, &s), SART_ERROR);
	assert_contains(sart_inner_message(in), "[bad] fmi2GetFMUstate is not available: ");
	assert_contains(sart_inner_message(in), "badstatus.so does not export it (the FMU does not "
	                                        "declare canGetAndSetFMUstate)");
	size_t n = 0;
	assert_int_equal(sart_inner_serialized_size(in, s, &n), SART_ERROR);
	assert_contains(sart_inner_message(in), "canSerializeFMUstate");
	SartVr vr = 0;
	int order = 1;
	double d = 1.0;
	assert_int_equal(sart_inner_set_real_input_derivatives(in, &vr, 1, &order, &d), SART_ERROR);
	assert_contains(sart_inner_message(in), "canInterpolateInputs");

	/* After a fatal status nothing reaches the FMU again, not even fmi2FreeInstance
	 * (badstatus freed its instance: a call would be a use after free). */
	assert_int_equal(sart_inner_terminate(in), SART_FATAL);
	assert_string_equal(sart_inner_message(in), "[bad] fmi2Terminate returned fmi2Fatal");
	assert_string_equal(log.last_category, "logStatusError");
	assert_int_equal(sart_inner_do_step(in, 1.0, 0.5, 0, &reached), SART_FATAL);
	assert_true(isnan(reached));
	assert_contains(sart_inner_message(in), "sart_inner_do_step: an earlier call was fatal");
	assert_int_equal(sart_inner_reset(in), SART_FATAL);
	sart_inner_free(in);
}

/* The direct route (sart_inner_direct) reaches the same library functions as the seam's
 * calls: two windows, one stepped each way, give the same bits; a status the route gave
 * is reported by sart_inner_direct_status as the seam would have; before instantiate and
 * after a fatal outcome the route is not ready. */
static void sart_inner__direct_route__same_calls_and_reports_as_the_seam(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *a = load("window", "a", 0, &log);
	SartInner *b = load("window", "b", 0, &log);
	const SartInnerDirect *d = sart_inner_direct(b);
	assert_false(sart_direct_ready(d));
	start(a, WINDOW_GUID, 0);
	start(b, WINDOW_GUID, 0);
	assert_true(sart_direct_ready(d));
	const SartVr in[3] = {W_DISPLACEMENT, W_SPEED, W_REACTION_FORCE};
	const SartVr out[2] = {W_HEIGHT, W_REACTION_TORQUE};
	double t = 0.0;
	for (int i = 0; i < 20; i++, t += 0.01) {
		const double u[3] = {0.01 * i, 0.5 - 0.02 * i, 3.0 * i};
		double ya[2], yb[2];
		assert_int_equal(sart_inner_set_real(a, in, 3, u), SART_OK);
		step(a, t, 0.01);
		assert_int_equal(sart_inner_get_real(a, out, 2, ya), SART_OK);
		assert_int_equal(sart_direct_set_real(d, in, 3, u), SART_OK);
		assert_int_equal(sart_direct_do_step(d, t, 0.01), SART_OK);
		assert_int_equal(sart_direct_get_real(d, out, 2, yb), SART_OK);
		assert_memory_equal(ya, yb, sizeof ya);
	}
	sart_inner_free(a);
	sart_inner_free(b);

	SartInner *bad = NULL;
	assert_int_equal(try_load("fmus-broken", "badstatus", "bad", 0, &log, &bad), SART_OK);
	assert_int_equal(sart_inner_instantiate(bad, "{any}", 0), SART_OK);
	d = sart_inner_direct(bad);
	assert_true(sart_direct_ready(d));
	double reached = 0.0;
	SartStatus st = sart_direct_do_step(d, 1.0, 0.5);
	assert_int_equal(st, SART_DISCARD);
	assert_int_equal(sart_inner_direct_status(bad, SART_DIRECT_DO_STEP, st, 1.0, 0.5, &reached),
	                 SART_ERROR);
	assert_true(isnan(reached));
	assert_string_equal(sart_inner_message(bad),
	                    "[bad] fmi2DoStep(t = 1, h = 0.5) returned fmi2Discard, and "
	                    "fmi2GetRealStatus(fmi2LastSuccessfulTime) then returned fmi2Error: the "
	                    "time the FMU stands at is unknown");
	assert_int_equal(sart_inner_direct_status(bad, SART_DIRECT_GET_REAL, SART_WARNING, 0, 0,
	                                          NULL), SART_WARNING);
	assert_string_equal(sart_inner_message(bad), "[bad] fmi2GetReal returned fmi2Warning");
	assert_int_equal(sart_inner_terminate(bad), SART_FATAL);
	assert_false(sart_direct_ready(d));
	sart_inner_free(bad);
}

/* ---- file: URIs ------------------------------------------------------------------------- */

static void sart_uri__table__decoded_or_rejected(void **state)
{
	(void)state;
	static const struct {
		const char *uri;
		const char *path; /* NULL: rejected */
		const char *why;  /* part of the message when rejected */
	} cases[] = {
		{"file:///abs/path", "/abs/path", NULL},
		{"file:/abs/path", "/abs/path", NULL},
		{"file://localhost/abs", "/abs", NULL},
		{"FILE://LocalHost/abs", "/abs", NULL},
		{"file:///tmp/", "/tmp/", NULL},
		{"file:///", "/", NULL},
		{"file:///with%20space/a%2fb", "/with space/a/b", NULL},
		{"file:///%41%62%7e", "/Ab~", NULL},
		{"file:///caf%C3%A9", "/caf\xc3\xa9", NULL},
		{"file:///raw space/x#y?z", "/raw space/x#y?z", NULL},
		{"file:////double", "//double", NULL},
		{"http://host/abs", NULL, "is not a file: URI"},
		{"/plain/path", NULL, "is not a file: URI"},
		{"", NULL, "is not a file: URI"},
		{"fil", NULL, "is not a file: URI"},
		{"file://otherhost/abs", NULL, "names host 'otherhost': only local files"},
		{"file://localhost.example/abs", NULL, "names host 'localhost.example'"},
		{"file:relative/path", NULL, "is not an absolute file: URI"},
		{"file:", NULL, "is not an absolute file: URI"},
		{"file://", NULL, "has no path"},
		{"file://localhost", NULL, "has no path"},
		{"file:///bad%2", NULL, "bad percent-escape at '%2'"},
		{"file:///bad%zz/x", NULL, "bad percent-escape at '%zz'"},
		{"file:///bad%", NULL, "bad percent-escape"},
		{"file:///nul%00byte", NULL, "contains %00"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[256] = "";
		char *path = sart_uri_to_path(cases[i].uri, err, sizeof err);
		if (cases[i].path) {
			if (!path)
				print_error("'%s' rejected: %s\n", cases[i].uri, err);
			assert_non_null(path);
			assert_string_equal(path, cases[i].path);
		} else {
			if (path)
				print_error("'%s' accepted as '%s'\n", cases[i].uri, path);
			assert_null(path);
			assert_contains(err, cases[i].why);
		}
		free(path);
	}
	assert_null(sart_uri_to_path(NULL, NULL, 0));
}

static void sart_uri__paths__encoded_and_round_trip(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		const char *uri;
	} cases[] = {
		{"/", "file:///"},
		{"/abs/path", "file:///abs/path"},
		{"/a b/c", "file:///a%20b/c"},
		{"/x/100%/y#z?", "file:///x/100%25/y%23z%3F"},
		{"/caf\xc3\xa9", "file:///caf%C3%A9"},
		{"/A-z.0_9~/+:@", "file:///A-z.0_9~/%2B%3A%40"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[256] = "";
		char *uri = sart_path_to_uri(cases[i].path, err, sizeof err);
		assert_non_null(uri);
		assert_string_equal(uri, cases[i].uri);
		char *back = sart_uri_to_path(uri, err, sizeof err);
		assert_non_null(back);
		assert_string_equal(back, cases[i].path);
		free(uri);
		free(back);
	}
	char err[256] = "";
	assert_null(sart_path_to_uri("relative/dir", err, sizeof err));
	assert_string_equal(err, "'relative/dir' is not an absolute path");
	assert_null(sart_path_to_uri(NULL, NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sart_inner__window_step__outputs_follow_formula),
		cmocka_unit_test(sart_inner__input_derivatives__extrapolated_over_the_step),
		cmocka_unit_test(sart_inner__two_windows_and_obstacle__independent),
		cmocka_unit_test(sart_inner__window_and_obstacle__each_calls_its_own_library),
		cmocka_unit_test(sart_inner__controller_across_timer__discard_at_expiry),
		cmocka_unit_test(sart_inner__power_state__round_trip_and_serialized_identical),
		cmocka_unit_test(sart_inner__wrong_guid__kit_message_forwarded_with_prefix),
		cmocka_unit_test(sart_inner__library_without_do_step__load_names_it),
		cmocka_unit_test(sart_inner__missing_directory_or_library__error_names_path),
		cmocka_unit_test(sart_inner__odd_statuses__reported_as_errors),
		cmocka_unit_test(sart_inner__direct_route__same_calls_and_reports_as_the_seam),
		cmocka_unit_test(sart_uri__table__decoded_or_rejected),
		cmocka_unit_test(sart_uri__paths__encoded_and_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
