/* test_fmu_kit.c — the test FMUs built with the kit in tests/fmus/, loaded through dlopen
 * and stepped as an importer would; and the kit itself, linked in, on a model of its own
 * for the paths window and obstacle never take. */
#include "fmu_read_test.h"

/* ---- the test FMUs, loaded and stepped -------------------------------------------------- */

typedef struct Log {
	int count;
	fmi2Status status;
	char category[64];
	char instance[64];
	char message[512];
} Log;

static void capture_log(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
	Log *l = env;
	va_list ap;
	va_start(ap, message);
	vsnprintf(l->message, sizeof l->message, message, ap);
	va_end(ap);
	l->count++;
	l->status = status;
	snprintf(l->category, sizeof l->category, "%s", category ? category : "");
	snprintf(l->instance, sizeof l->instance, "%s", instance ? instance : "");
}

typedef struct Api {
	Fmi2Api f;
	FmuInfo *md;
} Api;

static void api_open(Api *a, const char *model)
{
	char path[256], rel[128];
	memset(a, 0, sizeof *a);
	snprintf(rel, sizeof rel, "fmus/%s.fmu", model);
	a->md = open_built(rel);
	snprintf(rel, sizeof rel, "fmus/%s/binaries/linux64/%s.so", model, model);
	build_path(path, sizeof path, rel);
	fmi2_import(&a->f, path);
	/* The kit's own symbols stay hidden. */
	assert_null(dlsym(a->f.lib, "kit_model"));
	assert_null(dlsym(a->f.lib, "kit_log"));
}

static void api_close(Api *a)
{
	fmu_free(a->md);
	fmi2_unimport(&a->f);
}

static fmi2ValueReference vr_of(const Api *a, const char *name)
{
	return var(a->md, name)->vr;
}

static fmi2Component instantiate(const Api *a, const char *name, const fmi2CallbackFunctions *cb)
{
	fmi2Component c = a->f.instantiate(name, fmi2CoSimulation, a->md->guid, "file:///tmp", cb,
	                                 fmi2False, fmi2False);
	assert_non_null(c);
	return c;
}

static void start(const Api *a, fmi2Component c, double t0)
{
	assert_int_equal(a->f.setup(c, fmi2False, 0.0, t0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(a->f.enter_init(c), fmi2OK);
	assert_int_equal(a->f.exit_init(c), fmi2OK);
}

static void set(const Api *a, fmi2Component c, const char *name, double v)
{
	fmi2ValueReference vr = vr_of(a, name);
	assert_int_equal(a->f.set_real(c, &vr, 1, &v), fmi2OK);
}

static double get(const Api *a, fmi2Component c, const char *name)
{
	fmi2ValueReference vr = vr_of(a, name);
	double v = NAN;
	assert_int_equal(a->f.get_real(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void window_fmu__step__outputs_follow_formula(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	assert_string_equal(a.f.get_version(), "2.0");
	assert_string_equal(a.f.get_types_platform(), "default");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "window1", &cb);
	start(&a, c, 0.0);
	assert_near(get(&a, c, "height"), 0.0, 0);
	assert_near(get(&a, c, "reaction_torque"), 0.0, 0);

	double t = 0.0;
	const double u[][3] = {{2.0, 0.5, 3.0}, {-1.0, 4.0, 0.0}, {12.5, -2.0, 1e3}};
	for (size_t i = 0; i < 3; i++) {
		set(&a, c, "displacement", u[i][0]);
		set(&a, c, "speed", u[i][1]);
		set(&a, c, "reaction_force", u[i][2]);
		assert_int_equal(a.f.do_step(c, t, 0.01, fmi2True), fmi2OK);
		t += 0.01;
		assert_close(get(&a, c, "height"), 100 * 0.11 * u[i][0]);
		assert_close(get(&a, c, "reaction_torque"), -(0.11 * u[i][2] + 10 * 0.11 * u[i][1]));
	}
	/* Direct feedthrough: outputs follow a new input before any step. */
	set(&a, c, "displacement", 1.0);
	assert_close(get(&a, c, "height"), 11.0);
	double last = 0;
	assert_int_equal(a.f.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_near(last, 0.03, 1e-15);
	assert_int_equal(a.f.terminate(c), fmi2OK);
	a.f.free_instance(c);
	assert_int_equal(log.count, 0);
	api_close(&a);
}

static void window_fmu__parameters_and_instances__independent(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c1 = instantiate(&a, "w1", &cb), c2 = instantiate(&a, "w2", &cb);
	set(&a, c2, "r", 0.2); /* a fixed parameter may be set before initialization */
	start(&a, c1, 0.0);
	start(&a, c2, 5.0);
	set(&a, c1, "displacement", 1.0);
	set(&a, c2, "displacement", 2.0);
	assert_int_equal(a.f.do_step(c1, 0.0, 0.1, fmi2False), fmi2OK);
	assert_int_equal(a.f.do_step(c2, 5.0, 0.1, fmi2False), fmi2OK);
	assert_close(get(&a, c1, "height"), 11.0);
	assert_close(get(&a, c2, "height"), 40.0);
	assert_close(get(&a, c2, "r"), 0.2);

	/* Reset brings back the start values. */
	assert_int_equal(a.f.reset(c2), fmi2OK);
	start(&a, c2, 0.0);
	assert_close(get(&a, c2, "r"), 0.11);
	assert_near(get(&a, c2, "height"), 0.0, 0);
	a.f.free_instance(c1);
	a.f.free_instance(c2);
	assert_int_equal(log.count, 0);
	api_close(&a);
}

static void window_fmu__input_derivatives__interpolated_over_the_step(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	start(&a, c, 0.0);
	fmi2ValueReference vrs[2] = {vr_of(&a, "displacement"), vr_of(&a, "speed")};
	fmi2Integer order[2] = {1, 1};
	double du[2] = {2.0, -4.0};
	set(&a, c, "displacement", 1.0);
	set(&a, c, "speed", 1.0);
	assert_int_equal(a.f.set_input_derivatives(c, vrs, 2, order, du), fmi2OK);
	assert_int_equal(a.f.do_step(c, 0.0, 0.5, fmi2False), fmi2OK);
	/* f(u + du H): displacement 2, speed -1 at the end of the step. */
	assert_close(get(&a, c, "height"), 100 * 0.11 * 2.0);
	assert_close(get(&a, c, "reaction_torque"), -(10 * 0.11 * -1.0));
	assert_close(get(&a, c, "displacement"), 2.0);
	/* The derivatives held for that step only. */
	assert_int_equal(a.f.do_step(c, 0.5, 0.5, fmi2False), fmi2OK);
	assert_close(get(&a, c, "height"), 22.0);

	fmi2Integer second[1] = {2};
	assert_int_equal(a.f.set_input_derivatives(c, vrs, 1, second, du), fmi2Error);
	assert_string_equal(log.message, "fmi2SetRealInputDerivatives: derivative order 2 of "
	                                 "'displacement' is not supported (only 1)");
	fmi2ValueReference out = vr_of(&a, "height");
	assert_int_equal(a.f.set_input_derivatives(c, &out, 1, order, du), fmi2Error);
	assert_string_equal(log.message,
	                    "fmi2SetRealInputDerivatives: value reference 3 is not a Real input");
	a.f.free_instance(c);
	api_close(&a);
}

static void obstacle_fmu__step__force_only_beyond_contact(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "obstacle");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "obstacle", &cb);
	start(&a, c, 0.0);
	const double disp[] = {0.0, 0.40, 0.45, 0.4500001, 0.46, 0.5};
	double t = 0;
	for (size_t i = 0; i < sizeof disp / sizeof disp[0]; i++) {
		set(&a, c, "disp", disp[i]);
		assert_int_equal(a.f.do_step(c, t, 0.001, fmi2False), fmi2OK);
		t += 0.001;
		double expect = disp[i] > 0.45 ? 1e10 * (disp[i] - 0.45) : 0.0;
		assert_close(get(&a, c, "reaction_force"), expect);
	}
	assert_near(get(&a, c, "reaction_force"), 5e8, 1e-3);
	set(&a, c, "disp", 0.3);
	assert_near(get(&a, c, "reaction_force"), 0.0, 0);
	a.f.free_instance(c);
	assert_int_equal(log.count, 0);
	api_close(&a);
}

static void window_fmu__state_round_trip__same_outputs(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	start(&a, c, 0.0);
	set(&a, c, "displacement", 0.3);
	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2OK);

	fmi2FMUstate s = NULL;
	assert_int_equal(a.f.get_state(c, &s), fmi2OK);
	assert_non_null(s);

	set(&a, c, "displacement", 0.7);
	set(&a, c, "speed", 2.0);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2OK);
	double h1 = get(&a, c, "height"), t1 = get(&a, c, "reaction_torque");

	/* Back to t = 0.1: a step from 0.1 is accepted again and gives the same bits. */
	assert_int_equal(a.f.set_state(c, s), fmi2OK);
	assert_close(get(&a, c, "displacement"), 0.3);
	set(&a, c, "displacement", 0.7);
	set(&a, c, "speed", 2.0);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2OK);
	double h2 = get(&a, c, "height"), t2 = get(&a, c, "reaction_torque");
	assert_memory_equal(&h1, &h2, sizeof h1);
	assert_memory_equal(&t1, &t2, sizeof t1);

	/* Serialized and read back, the state does the same. */
	size_t n = 0;
	assert_int_equal(a.f.serialized_size(c, s, &n), fmi2OK);
	assert_true(n > 0);
	fmi2Byte *buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(a.f.serialize(c, s, buf, n), fmi2OK);
	fmi2FMUstate s2 = NULL;
	assert_int_equal(a.f.deserialize(c, buf, n, &s2), fmi2OK);
	assert_int_equal(a.f.set_state(c, s2), fmi2OK);
	set(&a, c, "displacement", 0.7);
	set(&a, c, "speed", 2.0);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2OK);
	double h3 = get(&a, c, "height");
	assert_memory_equal(&h1, &h3, sizeof h1);
	assert_int_equal(log.count, 0);

	/* Foreign or damaged data is refused. */
	assert_int_equal(a.f.deserialize(c, buf, n - 1, &s2), fmi2Error);
	char expect[128];
	snprintf(expect, sizeof expect,
	         "fmi2DeSerializeFMUstate: the %lu bytes given are not a serialized state of window",
	         (unsigned long)(n - 1));
	assert_string_equal(log.message, expect);
	assert_string_equal(log.category, "logStatusError");
	assert_int_equal(log.status, fmi2Error);
	buf[0] ^= 0x55;
	assert_int_equal(a.f.deserialize(c, buf, n, &s2), fmi2Error);
	buf[0] ^= 0x55;

	Api o;
	api_open(&o, "obstacle");
	fmi2Component oc = instantiate(&o, "o", &cb);
	fmi2FMUstate os = NULL;
	assert_int_equal(o.f.get_state(oc, &os), fmi2OK);
	size_t on = 0;
	assert_int_equal(o.f.serialized_size(oc, os, &on), fmi2OK);
	fmi2Byte *obuf = malloc(on);
	assert_non_null(obuf);
	assert_int_equal(o.f.serialize(oc, os, obuf, on), fmi2OK);
	log.count = 0;
	assert_int_equal(a.f.deserialize(c, obuf, on, &s2), fmi2Error);
	assert_int_equal(log.count, 1);
	assert_int_equal(a.f.set_state(c, os), fmi2Error);
	assert_string_equal(log.message, "fmi2SetFMUstate: not a state of window");
	assert_int_equal(o.f.free_state(oc, &os), fmi2OK);
	assert_null(os);
	o.f.free_instance(oc);
	free(obuf);
	api_close(&o);

	assert_int_equal(a.f.serialize(c, s, buf, n - 1), fmi2Error);
	assert_int_equal(a.f.free_state(c, &s), fmi2OK);
	assert_null(s);
	assert_int_equal(a.f.free_state(c, &s2), fmi2OK);
	free(buf);
	a.f.free_instance(c);
	api_close(&a);
}

static void window_fmu__wrong_state_calls__error_and_log(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);

	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state instantiated");
	assert_string_equal(log.category, "logStatusError");
	assert_string_equal(log.instance, "w");
	assert_int_equal(log.status, fmi2Error);
	double v;
	fmi2ValueReference vr = vr_of(&a, "height");
	assert_int_equal(a.f.get_real(c, &vr, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2GetReal is not allowed in state instantiated");
	assert_int_equal(a.f.exit_init(c), fmi2Error);
	assert_string_equal(log.message,
	                    "fmi2ExitInitializationMode is not allowed in state instantiated");

	start(&a, c, 0.0);
	assert_int_equal(a.f.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2Error);
	assert_string_equal(log.message, "fmi2SetupExperiment is not allowed in state stepComplete");
	/* The instance is unharmed by a rejected call. */
	set(&a, c, "displacement", 1.0);
	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2OK);
	assert_close(get(&a, c, "height"), 11.0);

	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep: communication point 0 is not the instance's "
	                                 "time 0.10000000000000001");
	assert_int_equal(a.f.do_step(c, 0.1, -1.0, fmi2False), fmi2Error);

	assert_int_equal(a.f.terminate(c), fmi2OK);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state terminated");
	assert_close(get(&a, c, "height"), 11.0); /* values stay readable */
	assert_int_equal(a.f.terminate(c), fmi2Error);
	a.f.free_instance(c);
	api_close(&a);
}

static void window_fmu__bad_references_and_unsupported__error_and_log(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	start(&a, c, 0.0);
	double v = 1.0;
	fmi2ValueReference bad = 99, r = vr_of(&a, "r"), h = vr_of(&a, "height");
	assert_int_equal(a.f.get_real(c, &bad, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2GetReal: no Real variable has value reference 99");
	assert_int_equal(a.f.set_real(c, &bad, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal: no Real variable has value reference 99");
	fmi2Integer iv;
	fmi2ValueReference zero = 0;
	assert_int_equal(a.f.get_integer(c, &zero, 1, &iv), fmi2Error);
	assert_string_equal(log.message, "fmi2GetInteger: no Integer variable has value reference 0");
	fmi2Boolean bv = fmi2True;
	assert_int_equal(a.f.set_boolean(c, &zero, 1, &bv), fmi2Error);
	assert_int_equal(a.f.set_real(c, &r, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal: 'r' is a fixed parameter and cannot be set "
	                                 "in state stepComplete");
	assert_int_equal(a.f.set_real(c, &h, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal: 'height' is an output and cannot be set");
	assert_close(get(&a, c, "r"), 0.11);

	/* A call with one bad reference changes nothing. */
	fmi2ValueReference mixed[2] = {vr_of(&a, "displacement"), bad};
	double vals[2] = {5.0, 5.0};
	assert_int_equal(a.f.set_real(c, mixed, 2, vals), fmi2Error);
	assert_near(get(&a, c, "displacement"), 0.0, 0);

	fmi2Integer order = 1;
	assert_int_equal(a.f.get_output_derivatives(c, &h, 1, &order, &v), fmi2Error);
	assert_contains(log.message, "fmi2GetRealOutputDerivatives is not supported by window");
	assert_int_equal(a.f.get_directional_derivative(c, &h, 1, &r, 1, &v, &v), fmi2Error);
	assert_contains(log.message, "fmi2GetDirectionalDerivative is not supported by window");
	assert_int_equal(a.f.cancel_step(c), fmi2Error);
	fmi2Status st;
	assert_int_equal(a.f.get_status(c, fmi2DoStepStatus, &st), fmi2Error);
	double t;
	assert_int_equal(a.f.get_real_status(c, fmi2PendingStatus, &t), fmi2Error);
	fmi2String cats[1] = {"logNoSuchThing"};
	assert_int_equal(a.f.set_debug_logging(c, fmi2True, 1, cats), fmi2Error);
	assert_string_equal(log.message, "fmi2SetDebugLogging: unknown log category "
	                                 "'logNoSuchThing'");
	cats[0] = "logAll";
	assert_int_equal(a.f.set_debug_logging(c, fmi2True, 1, cats), fmi2OK);
	a.f.free_instance(c);

	/* Instantiation checks its arguments. */
	log.count = 0;
	assert_null(a.f.instantiate("w", fmi2CoSimulation, "{not-the-guid}", "", &cb, fmi2False,
	                          fmi2False));
	assert_string_equal(log.message, "fmi2Instantiate: GUID {not-the-guid} does not match "
	                                 "window's {0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}");
	assert_null(a.f.instantiate("w", fmi2ModelExchange, a.md->guid, "", &cb, fmi2False,
	                          fmi2False));
	assert_string_equal(log.message, "fmi2Instantiate: window supports Co-Simulation only");
	assert_null(a.f.instantiate("", fmi2CoSimulation, a.md->guid, "", &cb, fmi2False, fmi2False));
	assert_int_equal(log.count, 3);
	a.f.free_instance(NULL);
	api_close(&a);
}

/* ---- the kit itself, linked in ---------------------------------------------------------
 *
 * window and obstacle never discard a step, store no Integer, Boolean or String and never
 * fail, so the kit's paths for those are exercised here on a model of its own: the kit's
 * source is compiled into this test (its fmi2* functions are then this program's own; the
 * FMUs above are reached through their dlopen handles only). */
#include "../fmus/kit/fmu_kit.c"

enum { SV_U = 0, SV_X = 1, SV_LIMIT = 2, SV_STEPS = 0, SV_FLAG = 0, SV_LABEL = 0 };

typedef struct Stepper {
	fmi2Real u;                 /* input: the integrand */
	fmi2Real x;                 /* output: the integral of u since the start */
	fmi2Real limit;             /* tunable: a step across this time stops at it */
	fmi2Integer steps;          /* output: steps taken */
	fmi2Boolean flag;           /* input */
	char label[KIT_STRING_MAX]; /* fixed parameter */
} Stepper;

static const Stepper stepper_start = {0.0, 0.0, 1e300, 0, fmi2False, "none"};

static const KitVar stepper_vars[] = {
	{"u", SV_U, KIT_REAL, KIT_INPUT, offsetof(Stepper, u)},
	{"x", SV_X, KIT_REAL, KIT_OUTPUT, offsetof(Stepper, x)},
	{"limit", SV_LIMIT, KIT_REAL, KIT_TUNABLE, offsetof(Stepper, limit)},
	{"steps", SV_STEPS, KIT_INTEGER, KIT_OUTPUT, offsetof(Stepper, steps)},
	{"flag", SV_FLAG, KIT_BOOLEAN, KIT_INPUT, offsetof(Stepper, flag)},
	{"label", SV_LABEL, KIT_STRING, KIT_PARAMETER, offsetof(Stepper, label)},
};

static fmi2Status stepper_calculate(KitInstance *k, void *state)
{
	const Stepper *s = state;
	if (isnan(s->u)) {
		kit_log(k, fmi2Error, "u is NaN");
		return fmi2Error;
	}
	return fmi2OK;
}

/* Integrates u with the midpoint rule (exact for the kit's linear interpolation), stopping
 * at limit when the step would cross it. */
static fmi2Status stepper_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Stepper *s = state;
	double end = t + h;
	fmi2Status st = fmi2OK;
	if (s->limit > t && s->limit < end) {
		end = s->limit;
		st = fmi2Discard;
	}
	kit_inputs_at(k, t + (end - t) / 2);
	s->x += s->u * (end - t);
	s->steps++;
	if (s->x > 100)
		kit_request_terminate(k);
	*reached = end;
	return st;
}

const KitModel kit_model = {
	"stepper",
	"{stepper}",
	sizeof(Stepper),
	&stepper_start,
	stepper_vars,
	sizeof stepper_vars / sizeof stepper_vars[0],
	stepper_calculate,
	NULL,
	stepper_step,
};

static fmi2Component stepper_new(Log *log, const fmi2CallbackFunctions *cb)
{
	memset(log, 0, sizeof *log);
	fmi2Component c = fmi2Instantiate("s", fmi2CoSimulation, "{stepper}", NULL, cb, fmi2False,
	                                  fmi2False);
	assert_non_null(c);
	return c;
}

static double stepper_real(fmi2Component c, fmi2ValueReference vr)
{
	double v = NAN;
	assert_int_equal(fmi2GetReal(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void stepper_set(fmi2Component c, fmi2ValueReference vr, double v)
{
	assert_int_equal(fmi2SetReal(c, &vr, 1, &v), fmi2OK);
}

/* ---- exports, and the importer as strict as fmusim and FMPy ----------------------------- */

/* fn, typed, from lib's exports (the test fails when it is not exported). */
#define EXPORTED(lib, fn, name)                                \
	do {                                                   \
		void *sym_ = dlsym((lib), (name));             \
		if (!sym_)                                     \
			fail_msg("%s is not exported", name);  \
		memcpy(&(fn), &sym_, sizeof sym_);             \
	} while (0)

static void window_fmu__model_exchange_functions__exported_error_and_log(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	fmi2SetTimeTYPE *set_time;
	fmi2EnterEventModeTYPE *enter_event_mode;
	fmi2GetDerivativesTYPE *get_derivatives;
	EXPORTED(a.f.lib, set_time, "fmi2SetTime");
	EXPORTED(a.f.lib, enter_event_mode, "fmi2EnterEventMode");
	EXPORTED(a.f.lib, get_derivatives, "fmi2GetDerivatives");
	assert_int_equal(set_time(c, 1.0), fmi2Error);
	assert_string_equal(log.message, "fmi2SetTime: window implements Co-Simulation only");
	assert_int_equal(log.status, fmi2Error);
	assert_int_equal(enter_event_mode(c), fmi2Error);
	assert_string_equal(log.message, "fmi2EnterEventMode: window implements Co-Simulation only");
	double dx[2];
	assert_int_equal(get_derivatives(c, dx, 2), fmi2Error);
	assert_string_equal(log.message, "fmi2GetDerivatives: window implements Co-Simulation only");
	/* The refusals leave the instance as it was: it initializes and steps as ever. */
	start(&a, c, 0.0);
	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
	a.f.free_instance(c);
	api_close(&a);
}

static void importer__co_simulation_function_missing__refused_naming_it(void **state)
{
	(void)state;
	char path[256], why[1024];
	Fmi2Api f;
	build_path(path, sizeof path,
	           "fmus-broken/nostringstatus/binaries/linux64/nostringstatus.so");
	assert_non_null(fmi2_try_import(&f, path, FMI2_USES_CO_SIMULATION, why, sizeof why));
	assert_contains(why, "nostringstatus.so: refused: the FMU does not export "
	                     "fmi2GetStringStatus");
	fmi2_unimport(&f);
	/* An importer using Model Exchange only needs no Co-Simulation function, as fmusim's
	 * and FMPy's FMI 2.0 importers do not. */
	assert_null(fmi2_try_import(&f, path, FMI2_USES_MODEL_EXCHANGE, why, sizeof why));
	fmi2_unimport(&f);
	/* The FMU it was built from exports that, and Model Exchange's functions too. */
	build_path(path, sizeof path, "fmus/ramp/binaries/linux64/ramp.so");
	assert_null(fmi2_try_import(&f, path, FMI2_USES_CO_SIMULATION | FMI2_USES_MODEL_EXCHANGE,
	                            why, sizeof why));
	assert_non_null(f.do_step);
	fmi2_unimport(&f);
}

static void fmu_kit__discarded_step__stops_at_reached_time(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	stepper_set(c, SV_LIMIT, 1.0);
	stepper_set(c, SV_U, 1.0);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2DoStep(c, 0.0, 0.6, fmi2False), fmi2OK);
	fmi2FMUstate saved = NULL;
	assert_int_equal(fmi2GetFMUstate(c, &saved), fmi2OK);

	assert_int_equal(fmi2DoStep(c, 0.6, 0.6, fmi2False), fmi2Discard);
	double last = 0;
	assert_int_equal(fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_near(last, 1.0, 1e-15);
	assert_near(stepper_real(c, SV_X), 1.0, 1e-15);
	assert_int_equal(log.status, fmi2Discard);
	assert_string_equal(log.category, "logStatusDiscard");
	/* In stepFailed: values are readable, inputs are not settable. */
	double v = 2.0;
	fmi2ValueReference u = SV_U;
	assert_int_equal(fmi2SetReal(c, &u, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal is not allowed in state stepFailed");

	assert_int_equal(fmi2DoStep(c, 1.0, 0.25, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state stepFailed");

	/* Restored to t = 0.6, it takes the shorter step to the limit, then goes on. */
	assert_int_equal(fmi2SetFMUstate(c, saved), fmi2OK);
	assert_int_equal(fmi2DoStep(c, 0.6, 0.4, fmi2False), fmi2OK);
	assert_near(stepper_real(c, SV_X), 1.0, 1e-15);
	stepper_set(c, SV_LIMIT, 1e300);
	assert_int_equal(fmi2DoStep(c, 1.0, 0.25, fmi2False), fmi2OK);
	assert_near(stepper_real(c, SV_X), 1.25, 1e-15);
	fmi2Integer steps = 0;
	fmi2ValueReference sv = SV_STEPS;
	assert_int_equal(fmi2GetInteger(c, &sv, 1, &steps), fmi2OK);
	assert_int_equal(steps, 3);
	assert_int_equal(fmi2Terminate(c), fmi2OK);
	assert_int_equal(fmi2FreeFMUstate(c, &saved), fmi2OK);
	fmi2FreeInstance(c);
}

static void fmu_kit__input_derivative__integrated_exactly(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	assert_int_equal(fmi2SetupExperiment(c, fmi2False, 0, 2.0, fmi2True, 10.0), fmi2OK);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	fmi2ValueReference u = SV_U;
	fmi2Integer order = 1;
	double du = 2.0;
	assert_int_equal(fmi2SetRealInputDerivatives(c, &u, 1, &order, &du), fmi2OK);
	assert_int_equal(fmi2DoStep(c, 2.0, 1.0, fmi2False), fmi2OK);
	/* u(t) = 2 (t - 2) over [2, 3]: its integral is 1. */
	assert_near(stepper_real(c, SV_X), 1.0, 1e-15);
	assert_near(stepper_real(c, SV_U), 2.0, 1e-15);
	fmi2FreeInstance(c);
}

static void fmu_kit__integer_boolean_string__stored_and_checked(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	fmi2ValueReference vr = 0;
	fmi2String label = "hello";
	assert_int_equal(fmi2SetString(c, &vr, 1, &label), fmi2OK);
	char longer[KIT_STRING_MAX + 1];
	memset(longer, 'a', KIT_STRING_MAX);
	longer[KIT_STRING_MAX] = '\0';
	fmi2String too_long = longer;
	assert_int_equal(fmi2SetString(c, &vr, 1, &too_long), fmi2Error);
	assert_string_equal(log.message, "fmi2SetString: the value for 'label' is NULL or longer "
	                                 "than 63 bytes");
	fmi2Boolean flag = 5;
	assert_int_equal(fmi2SetBoolean(c, &vr, 1, &flag), fmi2OK);
	fmi2Integer steps = 3;
	assert_int_equal(fmi2SetInteger(c, &vr, 1, &steps), fmi2Error);
	assert_string_equal(log.message, "fmi2SetInteger: 'steps' is an output and cannot be set");
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2SetString(c, &vr, 1, &label), fmi2Error);
	assert_string_equal(log.message, "fmi2SetString: 'label' is a fixed parameter and cannot "
	                                 "be set in state stepComplete");

	fmi2FMUstate s = NULL;
	assert_int_equal(fmi2GetFMUstate(c, &s), fmi2OK);
	size_t n = 0;
	assert_int_equal(fmi2SerializedFMUstateSize(c, s, &n), fmi2OK);
	fmi2Byte *buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(fmi2SerializeFMUstate(c, s, buf, n), fmi2OK);
	assert_int_equal(fmi2FreeFMUstate(c, &s), fmi2OK);
	fmi2FreeInstance(c);

	/* A fresh instance takes the serialized state, string and all. */
	c = stepper_new(&log, &cb);
	assert_int_equal(fmi2DeSerializeFMUstate(c, buf, n, &s), fmi2OK);
	assert_int_equal(fmi2SetFMUstate(c, s), fmi2OK);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	fmi2String got = NULL;
	assert_int_equal(fmi2GetString(c, &vr, 1, &got), fmi2OK);
	assert_string_equal(got, "hello");
	fmi2Boolean b = 0;
	assert_int_equal(fmi2GetBoolean(c, &vr, 1, &b), fmi2OK);
	assert_int_equal(b, fmi2True);
	/* A serialized state whose string lost its terminator is foreign data. */
	memset(buf + (n - sizeof(Stepper)) + offsetof(Stepper, label), 'x', KIT_STRING_MAX);
	assert_int_equal(fmi2DeSerializeFMUstate(c, buf, n, &s), fmi2Error);
	assert_int_equal(fmi2FreeFMUstate(c, &s), fmi2OK);
	free(buf);
	fmi2FreeInstance(c);
}

static void fmu_kit__model_error__instance_in_error_state(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	stepper_set(c, SV_U, NAN);
	assert_int_equal(fmi2DoStep(c, 0.0, 1.0, fmi2False), fmi2Error);
	assert_contains(log.message, "the model failed to compute its outputs");
	assert_int_equal(fmi2DoStep(c, 1.0, 1.0, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state error");
	assert_int_equal(fmi2Reset(c), fmi2OK);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	stepper_set(c, SV_U, 200.0);
	assert_int_equal(fmi2DoStep(c, 0.0, 1.0, fmi2False), fmi2OK);
	fmi2Boolean terminated = fmi2False;
	assert_int_equal(fmi2GetBooleanStatus(c, fmi2Terminated, &terminated), fmi2OK);
	assert_int_equal(terminated, fmi2True);
	fmi2FreeInstance(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_fmu__step__outputs_follow_formula),
		cmocka_unit_test(window_fmu__parameters_and_instances__independent),
		cmocka_unit_test(window_fmu__input_derivatives__interpolated_over_the_step),
		cmocka_unit_test(obstacle_fmu__step__force_only_beyond_contact),
		cmocka_unit_test(window_fmu__state_round_trip__same_outputs),
		cmocka_unit_test(window_fmu__wrong_state_calls__error_and_log),
		cmocka_unit_test(window_fmu__bad_references_and_unsupported__error_and_log),
		cmocka_unit_test(window_fmu__model_exchange_functions__exported_error_and_log),
		cmocka_unit_test(importer__co_simulation_function_missing__refused_naming_it),
		cmocka_unit_test(fmu_kit__discarded_step__stops_at_reached_time),
		cmocka_unit_test(fmu_kit__input_derivative__integrated_exactly),
		cmocka_unit_test(fmu_kit__integer_boolean_string__stored_and_checked),
		cmocka_unit_test(fmu_kit__model_error__instance_in_error_state),
	};
	int failed = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
	xmlCleanupParser();
	return failed;
}
