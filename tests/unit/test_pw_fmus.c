/* test_pw_fmus.c — the power-window FMUs built with the kit: environment, controller and
 * power (tests/fmus/<name>/), loaded through dlopen and stepped, and read by fmu_open.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"); the FMUs come from $SACC_BUILD/fmus/.  The motor is checked against the exact
 * solution of its linear ODE, computed here in closed form (see power_exact). */
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

#include "fmu.h"

#include "fmi2FunctionTypes.h"
#include "fmi2_importer.h"

/* ---- helpers ---------------------------------------------------------------------------- */

#define assert_near(a, b, tol) assert_near_at((a), (b), (tol), __FILE__, __LINE__)

static void assert_near_at(double a, double b, double tol, const char *file, int line)
{
	if (fabs(a - b) <= tol)
		return;
	print_error("%.17g is not within %g of %.17g\n", a, tol, b);
	_fail(file, line);
}

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

typedef struct Log {
	int count;
	int discards;
	fmi2Status status;
	char message[512];
} Log;

static void capture_log(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                        fmi2String category, fmi2String message, ...)
{
	Log *l = env;
	va_list ap;
	(void)instance, (void)category;
	va_start(ap, message);
	vsnprintf(l->message, sizeof l->message, message, ap);
	va_end(ap);
	l->count++;
	l->discards += status == fmi2Discard;
	l->status = status;
}

/* An FMU's model description and the fmi2* functions of its shared library. */
typedef struct Api {
	Fmi2Api f;
	FmuInfo *md;
	Log log;
	fmi2CallbackFunctions cb;
} Api;

static FmuInfo *open_md(const char *model)
{
	char path[256];
	snprintf(path, sizeof path, "%s/fmus/%s.fmu", build_dir(), model);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	DiagSink *d = diag_new(f);
	FmuInfo *md = fmu_open(path, d);
	diag_free(d);
	fclose(f);
	if (len)
		print_error("fmu_open %s:\n%s", path, buf);
	assert_int_equal(len, 0);
	free(buf);
	assert_non_null(md);
	return md;
}

/* Heap-allocated, so the logger's environment pointer stays valid. */
static Api *api_open(const char *model)
{
	char path[256];
	Api *a = calloc(1, sizeof *a);
	assert_non_null(a);
	a->md = open_md(model);
	snprintf(path, sizeof path, "%s/fmus/%s/binaries/linux64/%s.so", build_dir(), model, model);
	fmi2_import(&a->f, path);
	/* The members are const: the struct is filled once, by copy. */
	const fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &a->log};
	memcpy(&a->cb, &cb, sizeof cb);
	return a;
}

static void api_close(Api *a)
{
	fmu_free(a->md);
	fmi2_unimport(&a->f);
	free(a);
}

static fmi2ValueReference vr_of(const Api *a, const char *name)
{
	const FmuVar *v = fmu_find_var(a->md, name);
	if (!v)
		print_error("no variable '%s'\n", name);
	assert_non_null(v);
	return v->vr;
}

/* An instance initialized at t0, with the inputs at their start values. */
static fmi2Component start_at(Api *a, double t0)
{
	fmi2Component c = a->f.instantiate(a->md->model_identifier, fmi2CoSimulation, a->md->guid,
	                                 "file:///tmp", &a->cb, fmi2False, fmi2False);
	assert_non_null(c);
	assert_int_equal(a->f.setup(c, fmi2False, 0.0, t0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(a->f.enter_init(c), fmi2OK);
	assert_int_equal(a->f.exit_init(c), fmi2OK);
	return c;
}

static void set_real(Api *a, fmi2Component c, const char *name, double v)
{
	fmi2ValueReference vr = vr_of(a, name);
	assert_int_equal(a->f.set_real(c, &vr, 1, &v), fmi2OK);
}

static double get_real(Api *a, fmi2Component c, const char *name)
{
	fmi2ValueReference vr = vr_of(a, name);
	double v = NAN;
	assert_int_equal(a->f.get_real(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void set_bool(Api *a, fmi2Component c, const char *name, bool v)
{
	fmi2ValueReference vr = vr_of(a, name);
	fmi2Boolean b = v ? fmi2True : fmi2False;
	assert_int_equal(a->f.set_boolean(c, &vr, 1, &b), fmi2OK);
}

static bool get_bool(Api *a, fmi2Component c, const char *name)
{
	fmi2ValueReference vr = vr_of(a, name);
	fmi2Boolean b = 7;
	assert_int_equal(a->f.get_boolean(c, &vr, 1, &b), fmi2OK);
	assert_true(b == fmi2True || b == fmi2False);
	return b == fmi2True;
}

static double last_successful(Api *a, fmi2Component c)
{
	double t = NAN;
	assert_int_equal(a->f.get_real_status(c, fmi2LastSuccessfulTime, &t), fmi2OK);
	return t;
}

/* ---- the reader's view ------------------------------------------------------------------ */

static const FmuUnit *unit(const FmuInfo *f, const char *name)
{
	for (int i = 0; i < f->nunits; i++)
		if (strcmp(f->units[i].name, name) == 0)
			return &f->units[i];
	print_error("no unit '%s'\n", name);
	fail();
	return NULL;
}

static void expect_base(const FmuInfo *f, const char *name, int kg, int m, int s, int A,
                        int rad)
{
	const FmuUnit *u = unit(f, name);
	assert_true(u->has_base);
	assert_int_equal(u->kg, kg);
	assert_int_equal(u->m, m);
	assert_int_equal(u->s, s);
	assert_int_equal(u->A, A);
	assert_int_equal(u->rad, rad);
	assert_int_equal(u->K, 0);
	assert_int_equal(u->mol, 0);
	assert_int_equal(u->cd, 0);
	assert_near(u->factor, 1.0, 0);
	assert_near(u->offset, 0.0, 0);
}

static void pw_fmus__read__all_moore_with_capabilities(void **state)
{
	(void)state;
	const char *const names[] = {"environment", "controller", "power"};
	for (int i = 0; i < 3; i++) {
		FmuInfo *f = open_md(names[i]);
		assert_string_equal(f->model_identifier, names[i]);
		assert_false(f->is_mealy);
		assert_false(f->is_reactive); /* canInterpolateInputs false: delayed Moore */
		assert_true(f->can_handle_variable_step);
		assert_true(f->can_get_and_set_fmu_state);
		assert_true(f->can_serialize_fmu_state);
		assert_non_null(f->description);
		for (int o = 0; o < f->noutputs; o++) {
			assert_true(f->outputs[o].deps_given);
			assert_int_equal(f->outputs[o].ndeps, 0);
		}
		fmu_free(f);
	}

	FmuInfo *e = open_md("environment");
	assert_int_equal(e->noutputs, 6);
	fmu_free(e);

	FmuInfo *c = open_md("controller");
	assert_int_equal(c->noutputs, 3);
	int inputs = 0;
	for (int v = 0; v < c->nvars; v++)
		if (c->vars[v].causality == CAUS_INPUT) {
			assert_int_equal(c->vars[v].type, FT_BOOLEAN);
			assert_string_equal(c->vars[v].start, "false");
			inputs++;
		}
	assert_int_equal(inputs, 7);
	expect_base(c, "s", 0, 0, 1, 0, 0);
	fmu_free(c);

	FmuInfo *p = open_md("power");
	assert_int_equal(p->noutputs, 3);
	assert_string_equal(fmu_find_var(p, "armature_current")->unit, "A");
	assert_string_equal(fmu_find_var(p, "speed")->unit, "rad/s");
	assert_string_equal(fmu_find_var(p, "displacement")->unit, "rad");
	assert_string_equal(fmu_find_var(p, "tau")->unit, "N.m");
	assert_null(fmu_find_var(p, "u")->unit);
	assert_string_equal(fmu_find_var(p, "K")->start, "7.45");
	assert_int_equal(p->nunits, 10);
	expect_base(p, "A", 0, 0, 0, 1, 0);
	expect_base(p, "rad", 0, 0, 0, 0, 1);
	expect_base(p, "rad/s", 0, 0, -1, 0, 1);
	expect_base(p, "N.m", 1, 2, -2, 0, 0);
	expect_base(p, "kg.m2", 1, 2, 0, 0, 0);
	expect_base(p, "N.m.s/rad", 1, 2, -1, 0, -1);
	expect_base(p, "N.m/A", 1, 2, -2, -1, 0);
	expect_base(p, "Ohm", 1, 2, -3, -2, 0);
	expect_base(p, "H", 1, 2, -2, -2, 0);
	expect_base(p, "V", 1, 2, -3, -1, 0);
	fmu_free(p);
}

/* ---- environment ------------------------------------------------------------------------ */

/* The schedule in hundredths of a second, exact: what the FMU must say at n / 100 s. */
static void env_expect(long n, bool out[6])
{
	out[0] = 1 <= n && n < 459;                                /* driver_up */
	out[1] = 670 <= n && n < 710;                              /* driver_down */
	out[2] = (459 <= n && n < 500) || (710 <= n && n < 850);   /* driver_stop */
	out[3] = out[4] = out[5] = false;                          /* the passenger */
}

static const char *const env_outputs[6] = {"driver_up", "driver_down", "driver_stop",
                                           "passenger_up", "passenger_down", "passenger_stop"};

static void env_check(Api *a, fmi2Component c, long hundredths, double t)
{
	bool want[6];
	env_expect(hundredths, want);
	for (int i = 0; i < 6; i++)
		if (get_bool(a, c, env_outputs[i]) != want[i]) {
			print_error("%s at t = %.17g (%ld/100 s) is %s\n", env_outputs[i], t, hundredths,
			            want[i] ? "false" : "true");
			fail();
		}
}

static void environment__sums_of_steps__exact_at_every_boundary(void **state)
{
	(void)state;
	Api *a = api_open("environment");
	/* Steps of 0.01 s and of 0.001 s: every boundary is reached as a rounded sum. */
	const int per_hundredth[2] = {1, 10};
	for (int k = 0; k < 2; k++) {
		fmi2Component c = start_at(a, 0.0);
		double t = 0.0, h = 0.01 / per_hundredth[k];
		env_check(a, c, 0, t);
		for (long i = 1; i <= 1000L * per_hundredth[k]; i++) {
			assert_int_equal(a->f.do_step(c, t, h, fmi2True), fmi2OK);
			t += h;
			if (i % per_hundredth[k] == 0)
				env_check(a, c, i / per_hundredth[k], t);
		}
		a->f.free_instance(c);
	}
	assert_int_equal(a->log.count, 0);
	api_close(a);
}

static void environment__near_each_instant__half_open_with_tolerance(void **state)
{
	(void)state;
	Api *a = api_open("environment");
	const long instants[] = {1, 459, 500, 670, 710, 850};
	for (size_t i = 0; i < sizeof instants / sizeof instants[0]; i++) {
		double s = instants[i] / 100.0;
		/* Just before (beyond the tolerance): the old value; on it or within 1e-9
		 * relative either side: the new one. */
		const double offsets[] = {-1e-6, -1e-8, -2e-12, 0.0, 2e-12, 1e-8, 1e-6};
		const long expect_at[] = {instants[i] - 1, instants[i] - 1, instants[i], instants[i],
		                          instants[i], instants[i], instants[i]};
		for (size_t j = 0; j < sizeof offsets / sizeof offsets[0]; j++) {
			fmi2Component c = start_at(a, s + offsets[j]);
			env_check(a, c, expect_at[j], s + offsets[j]);
			a->f.free_instance(c);
		}
	}
	assert_int_equal(a->log.count, 0);
	api_close(a);
}

static void environment__step_over_instant__outputs_of_the_end(void **state)
{
	(void)state;
	Api *a = api_open("environment");
	fmi2Component c = start_at(a, 4.5);
	assert_true(get_bool(a, c, "driver_up"));
	/* 4.5 -> 5.05 passes the 4.59 and 5 switches: no discard, the end's values. */
	assert_int_equal(a->f.do_step(c, 4.5, 0.55, fmi2True), fmi2OK);
	assert_near(last_successful(a, c), 5.05, 1e-15);
	env_check(a, c, 505, 5.05);
	/* A huge step is fine too: the schedule is over by then. */
	assert_int_equal(a->f.do_step(c, 5.05, 1e6, fmi2True), fmi2OK);
	env_check(a, c, 100000505, 5.05 + 1e6);
	assert_int_equal(a->log.count, 0);
	a->f.free_instance(c);
	api_close(a);
}

/* ---- controller ------------------------------------------------------------------------- */

enum { CS_NEUTRAL, CS_PASSENGER_DOWN, CS_DRIVER_UP, CS_DRIVER_DOWN, CS_PASSENGER_UP,
       CS_EMERGENCY };

static const char *const ctl_inputs[7] = {"obj_detected", "driver_up", "driver_down",
                                          "driver_stop", "passenger_up", "passenger_down",
                                          "passenger_stop"};

/* Sets every input: true exactly for those named in the comma-separated list. */
static void ctl_press(Api *a, fmi2Component c, const char *pressed)
{
	for (int i = 0; i < 7; i++) {
		const char *p = strstr(pressed, ctl_inputs[i]);
		size_t n = strlen(ctl_inputs[i]);
		bool on = p && (p == pressed || p[-1] == ',') && (p[n] == '\0' || p[n] == ',');
		set_bool(a, c, ctl_inputs[i], on);
	}
}

static int chart_state(Api *a, fmi2Component c)
{
	fmi2ValueReference vr = vr_of(a, "chart_state");
	fmi2Integer s = -1;
	assert_int_equal(a->f.get_integer(c, &vr, 1, &s), fmi2OK);
	return s;
}

/* up/down/stop as "u", "d", "s" or "-" each, e.g. "--s". */
static void ctl_expect_at(Api *a, fmi2Component c, int st, const char *uds, const char *file,
                          int line)
{
	char got[4] = {get_bool(a, c, "up") ? 'u' : '-', get_bool(a, c, "down") ? 'd' : '-',
	               get_bool(a, c, "stop") ? 's' : '-', '\0'};
	int s = chart_state(a, c);
	if (s == st && strcmp(got, uds) == 0)
		return;
	print_error("chart state %d, outputs %s; expected state %d, outputs %s\n", s, got, st, uds);
	_fail(file, line);
}

#define ctl_expect(a, c, st, uds) ctl_expect_at((a), (c), (st), (uds), __FILE__, __LINE__)

/* One step from t to t + h that must succeed; returns the new time. */
static double ctl_step(Api *a, fmi2Component c, double t, double h, const char *pressed)
{
	ctl_press(a, c, pressed);
	assert_int_equal(a->f.do_step(c, t, h, fmi2True), fmi2OK);
	return t + h;
}

static void controller__buttons__up_down_stop(void **state)
{
	(void)state;
	Api *a = api_open("controller");
	fmi2Component c = start_at(a, 0.0);
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	double t = 0.0, h = 0.01;

	t = ctl_step(a, c, t, h, "driver_up");
	ctl_expect(a, c, CS_DRIVER_UP, "u--");
	t = ctl_step(a, c, t, h, "driver_up"); /* held: stays */
	ctl_expect(a, c, CS_DRIVER_UP, "u--");
	t = ctl_step(a, c, t, h, "");          /* released without a stop event: stays */
	ctl_expect(a, c, CS_DRIVER_UP, "u--");
	t = ctl_step(a, c, t, h, "driver_stop");
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	t = ctl_step(a, c, t, h, "driver_down");
	ctl_expect(a, c, CS_DRIVER_DOWN, "-d-");
	t = ctl_step(a, c, t, h, "driver_up"); /* no transition up from Driver down */
	ctl_expect(a, c, CS_DRIVER_DOWN, "-d-");
	t = ctl_step(a, c, t, h, "passenger_stop"); /* any stop event stops */
	ctl_expect(a, c, CS_NEUTRAL, "--s");

	t = ctl_step(a, c, t, h, "passenger_up");
	ctl_expect(a, c, CS_PASSENGER_UP, "u--");
	t = ctl_step(a, c, t, h, "driver_stop");
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	t = ctl_step(a, c, t, h, "passenger_down");
	ctl_expect(a, c, CS_PASSENGER_DOWN, "-d-");
	t = ctl_step(a, c, t, h, "passenger_up"); /* only from Passenger neutral */
	ctl_expect(a, c, CS_PASSENGER_DOWN, "-d-");
	/* Driver neutral's own transitions come before its inner state's. */
	t = ctl_step(a, c, t, h, "driver_up,passenger_stop");
	ctl_expect(a, c, CS_DRIVER_UP, "u--");
	t = ctl_step(a, c, t, h, "driver_stop");
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	t = ctl_step(a, c, t, h, "passenger_down");
	t = ctl_step(a, c, t, h, "passenger_stop");
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	/* The driver's buttons win over the passenger's, up over down. */
	t = ctl_step(a, c, t, h, "driver_down,passenger_up");
	ctl_expect(a, c, CS_DRIVER_DOWN, "-d-");
	t = ctl_step(a, c, t, h, "driver_stop");
	t = ctl_step(a, c, t, h, "driver_up,driver_down");
	ctl_expect(a, c, CS_DRIVER_UP, "u--");
	/* One transition per step: a stop pressed with up acts in the next step. */
	t = ctl_step(a, c, t, h, "driver_stop");
	t = ctl_step(a, c, t, h, "driver_up,driver_stop");
	ctl_expect(a, c, CS_DRIVER_UP, "u--");
	ctl_step(a, c, t, h, "driver_stop");
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	assert_int_equal(a->log.count, 0);
	a->f.free_instance(c);
	api_close(a);
}

static void controller__obstacle__down_for_exactly_one_second(void **state)
{
	(void)state;
	Api *a = api_open("controller");
	fmi2Component c = start_at(a, 0.0);
	double t = 0.0, h = 0.01;
	t = ctl_step(a, c, t, h, "driver_up");
	/* obj_detected wins over everything else raised with it. */
	t = ctl_step(a, c, t, h, "obj_detected,driver_stop,driver_up");
	double entered = t;
	ctl_expect(a, c, CS_EMERGENCY, "-d-");
	assert_near(get_real(a, c, "emergency_until"), entered + 1.0, 0);

	/* In Emergency every button is ignored, and obj_detected again does not restart it. */
	const char *const noise[] = {"driver_stop", "obj_detected", "driver_up", "passenger_down",
	                             "driver_down,passenger_stop"};
	for (int i = 0; i < 5; i++) {
		t = ctl_step(a, c, t, h, noise[i]);
		ctl_expect(a, c, CS_EMERGENCY, "-d-");
	}
	assert_near(get_real(a, c, "emergency_until"), entered + 1.0, 0);

	/* Steps of 0.01 s up to the expiry: down at every point before it, by a sum of
	 * steps that misses entered + 1 by ulps. */
	while (t + h < entered + 1.0 - 1e-6) {
		t = ctl_step(a, c, t, h, "");
		ctl_expect(a, c, CS_EMERGENCY, "-d-");
	}
	fmi2FMUstate before = NULL;
	assert_int_equal(a->f.get_state(c, &before), fmi2OK);
	double t_before = t;

	/* A step across the expiry stops at it, with the transition taken. */
	ctl_press(a, c, "driver_up");
	assert_int_equal(a->f.do_step(c, t, 0.25, fmi2True), fmi2Discard);
	assert_int_equal(a->log.discards, 1);
	assert_near(last_successful(a, c), entered + 1.0, 1e-12);
	ctl_expect(a, c, CS_NEUTRAL, "--s"); /* the held driver_up belongs to t + 0.25 */

	/* Back, and the step that lands on the expiry: Emergency ends there, then nothing
	 * moves. */
	assert_int_equal(a->f.set_state(c, before), fmi2OK);
	ctl_expect(a, c, CS_EMERGENCY, "-d-");
	t = ctl_step(a, c, t_before, h, "");
	assert_near(t, entered + 1.0, 1e-12);
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	assert_near(get_real(a, c, "emergency_until"), 0.0, 0);
	t = ctl_step(a, c, t, h, "");
	ctl_expect(a, c, CS_NEUTRAL, "--s");

	/* Landing on it with the button still held: stop, then the button at once. */
	assert_int_equal(a->f.set_state(c, before), fmi2OK);
	ctl_step(a, c, t_before, h, "driver_up");
	ctl_expect(a, c, CS_DRIVER_UP, "u--");

	/* Within the tolerance either side of the expiry counts as on it. */
	const double misses[] = {-5e-10, 5e-10};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(a->f.set_state(c, before), fmi2OK);
		ctl_step(a, c, t_before, entered + 1.0 + misses[i] - t_before, "");
		ctl_expect(a, c, CS_NEUTRAL, "--s");
	}
	/* Beyond it: 1e-6 short is still Emergency, 1e-6 over is a discard. */
	assert_int_equal(a->f.set_state(c, before), fmi2OK);
	ctl_step(a, c, t_before, entered + 1.0 - 1e-6 - t_before, "");
	ctl_expect(a, c, CS_EMERGENCY, "-d-");
	assert_int_equal(a->f.set_state(c, before), fmi2OK);
	assert_int_equal(a->f.do_step(c, t_before, entered + 1.0 + 1e-6 - t_before, fmi2True),
	                 fmi2Discard);
	assert_near(last_successful(a, c), entered + 1.0, 1e-12);

	assert_int_equal(a->f.free_state(c, &before), fmi2OK);
	a->f.free_instance(c);
	api_close(a);
}

/* What a master's get_next_time_step does: save, step with a huge h, see where the step
 * stopped, restore. */
static double probe_next(Api *a, fmi2Component c, double t)
{
	fmi2FMUstate s = NULL;
	assert_int_equal(a->f.get_state(c, &s), fmi2OK);
	fmi2Status st = a->f.do_step(c, t, 1e300, fmi2False);
	assert_true(st == fmi2OK || st == fmi2Discard);
	double reached = last_successful(a, c);
	assert_int_equal(a->f.set_state(c, s), fmi2OK);
	assert_int_equal(a->f.free_state(c, &s), fmi2OK);
	return reached - t;
}

static void controller__probe_from_emergency__discards_at_expiry(void **state)
{
	(void)state;
	Api *a = api_open("controller");
	fmi2Component c = start_at(a, 0.0);
	double t = ctl_step(a, c, 0.0, 0.013, "passenger_up");
	t = ctl_step(a, c, t, 0.2, "obj_detected");
	double expiry = t + 1.0;
	ctl_expect(a, c, CS_EMERGENCY, "-d-");
	t = ctl_step(a, c, t, 0.1234, "");
	assert_near(t + probe_next(a, c, t), expiry, 1e-12);
	/* The probe left nothing behind: the instance steps on from t as before. */
	ctl_expect(a, c, CS_EMERGENCY, "-d-");
	t = ctl_step(a, c, t, 0.5, "");
	assert_near(t + probe_next(a, c, t), expiry, 1e-12);
	/* A variable step that ends on the expiry; then there is no timer to wait for. */
	t = ctl_step(a, c, t, expiry - t, "");
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	assert_true(probe_next(a, c, t) > 1e299);
	ctl_expect(a, c, CS_NEUTRAL, "--s");
	assert_int_equal(a->log.discards, 2); /* the two probes from Emergency */
	a->f.free_instance(c);
	api_close(a);
}

/* The observable state of a controller: outputs and locals. */
typedef struct CtlSnap {
	fmi2Boolean out[3];
	fmi2Integer chart;
	fmi2Real until;
} CtlSnap;

static CtlSnap ctl_snap(Api *a, fmi2Component c)
{
	CtlSnap s;
	memset(&s, 0, sizeof s);
	fmi2ValueReference vr[3] = {vr_of(a, "up"), vr_of(a, "down"), vr_of(a, "stop")};
	assert_int_equal(a->f.get_boolean(c, vr, 3, s.out), fmi2OK);
	s.chart = chart_state(a, c);
	s.until = get_real(a, c, "emergency_until");
	return s;
}

/* From t: a fixed script of steps through Emergency and out, recording each state. */
static void ctl_script(Api *a, fmi2Component c, double t, CtlSnap out[8])
{
	const char *const press[8] = {"", "driver_down", "", "", "", "driver_up", "", "driver_stop"};
	for (int i = 0; i < 8; i++) {
		ctl_press(a, c, press[i]);
		fmi2Status st = a->f.do_step(c, t, 0.35, fmi2True);
		if (st == fmi2Discard) {
			/* accept the partial step, as a lazy master does */
			t = last_successful(a, c);
			fmi2FMUstate s = NULL;
			assert_int_equal(a->f.get_state(c, &s), fmi2OK);
			assert_int_equal(a->f.set_state(c, s), fmi2OK);
			assert_int_equal(a->f.free_state(c, &s), fmi2OK);
		} else {
			assert_int_equal(st, fmi2OK);
			t += 0.35;
		}
		out[i] = ctl_snap(a, c);
	}
}

static void controller__state_round_trip__bit_identical(void **state)
{
	(void)state;
	Api *a = api_open("controller");
	fmi2Component c = start_at(a, 0.0);
	double t = ctl_step(a, c, 0.0, 0.1, "driver_up");
	t = ctl_step(a, c, t, 0.1, "obj_detected");
	t = ctl_step(a, c, t, 0.1, "");
	fmi2FMUstate s = NULL;
	assert_int_equal(a->f.get_state(c, &s), fmi2OK);
	CtlSnap first[8], again[8], other[8];
	ctl_script(a, c, t, first);
	assert_int_equal(first[2].chart, CS_NEUTRAL); /* the script does leave Emergency */

	assert_int_equal(a->f.set_state(c, s), fmi2OK);
	ctl_script(a, c, t, again);
	assert_memory_equal(first, again, sizeof first);

	/* Serialized, then read into a second instance. */
	size_t n = 0;
	assert_int_equal(a->f.serialized_size(c, s, &n), fmi2OK);
	fmi2Byte *buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(a->f.serialize(c, s, buf, n), fmi2OK);
	fmi2Component c2 = start_at(a, 0.0);
	fmi2FMUstate s2 = NULL;
	assert_int_equal(a->f.deserialize(c2, buf, n, &s2), fmi2OK);
	assert_int_equal(a->f.set_state(c2, s2), fmi2OK);
	ctl_script(a, c2, t, other);
	assert_memory_equal(first, other, sizeof first);

	assert_int_equal(a->f.free_state(c2, &s2), fmi2OK);
	assert_int_equal(a->f.free_state(c, &s), fmi2OK);
	free(buf);
	a->f.free_instance(c2);
	a->f.free_instance(c);
	api_close(a);
}

/* ---- power ------------------------------------------------------------------------------ */

static const double PJ = 0.085, PB = 5.0, PK = 7.45, PR = 0.15, PL = 0.036, PV = 12.0;

/* The exact solution from rest at time t for constant voltage v and load torque tau.
 *
 * x = (i, w) obeys x' = A x + c with A = [[-R/L, -K/L], [K/J, -b/J]], c = (v/L, -tau/J);
 * A's eigenvalues are a complex pair alpha +- i beta (beta^2 = det A - alpha^2 > 0 for these
 * parameters), so by Cayley-Hamilton e^{At} = e^{alpha t} (cos(beta t) I +
 * sin(beta t)/beta (A - alpha I)), the eigen-decomposition written in real terms.  With
 * x_ss = -A^{-1} c and y = x - x_ss: x(t) = x_ss + e^{At} y(0), and the angle, the
 * integral of w, is w_ss t + [A^{-1} (e^{At} - I) y(0)]_w. */
static void power_exact(double v, double tau, double t, double out[3])
{
	double a11 = -PR / PL, a12 = -PK / PL, a21 = PK / PJ, a22 = -PB / PJ;
	double c1 = v / PL, c2 = -tau / PJ;
	double det = a11 * a22 - a12 * a21;
	double alpha = (a11 + a22) / 2, beta = sqrt(det - alpha * alpha);
	assert_true(det - alpha * alpha > 0);
	/* x_ss = -A^{-1} c, A^{-1} = [[a22, -a12], [-a21, a11]] / det */
	double i_ss = -(a22 * c1 - a12 * c2) / det;
	double w_ss = -(-a21 * c1 + a11 * c2) / det;
	double y1 = -i_ss, y2 = -w_ss; /* y(0), from rest */
	double ea = exp(alpha * t), co = cos(beta * t), si = sin(beta * t) / beta;
	double e11 = ea * (co + si * (a11 - alpha)), e12 = ea * si * a12;
	double e21 = ea * si * a21, e22 = ea * (co + si * (a22 - alpha));
	double z1 = (e11 - 1) * y1 + e12 * y2, z2 = e21 * y1 + (e22 - 1) * y2;
	out[0] = i_ss + e11 * y1 + e12 * y2;
	out[1] = w_ss + e21 * y1 + e22 * y2;
	out[2] = w_ss * t + (-a21 * z1 + a11 * z2) / det;
}

static void power_get(Api *a, fmi2Component c, double x[3])
{
	fmi2ValueReference vr[3] = {vr_of(a, "armature_current"), vr_of(a, "speed"),
	                            vr_of(a, "displacement")};
	assert_int_equal(a->f.get_real(c, vr, 3, x), fmi2OK);
}

/* Runs from rest to t_end in steps of h with u, d, tau held; returns the largest error
 * against the exact solution over the communication points and, in *peak, the largest
 * armature current seen at them. */
static double power_run(Api *a, double u, double d, double tau, double h, double t_end,
                        double *peak)
{
	fmi2Component c = start_at(a, 0.0);
	double v = u > 0.5 ? PV : d > 0.5 ? -PV : 0.0;
	double worst = 0, x[3], ref[3], t = 0;
	*peak = 0;
	long n = lround(t_end / h);
	for (long k = 1; k <= n; k++) {
		set_real(a, c, "u", u);
		set_real(a, c, "d", d);
		set_real(a, c, "tau", tau);
		assert_int_equal(a->f.do_step(c, t, h, fmi2True), fmi2OK);
		t += h;
		power_get(a, c, x);
		power_exact(v, tau, t, ref);
		for (int i = 0; i < 3; i++)
			worst = fmax(worst, fabs(x[i] - ref[i]));
		*peak = fmax(*peak, x[0]);
	}
	a->f.free_instance(c);
	return worst;
}

static void power__start_up__matches_exact_solution(void **state)
{
	(void)state;
	Api *a = api_open("power");
	double peak, err;
	/* Communication steps that subdivide evenly (1e-3 = 10 x 1e-4), that do not (3.7e-4
	 * = 4 x 9.25e-5), and below the internal step (5e-5). */
	const double steps[] = {1e-3, 3.7e-4, 5e-5};
	for (int i = 0; i < 3; i++) {
		err = power_run(a, 1.0, 0.0, 0.0, steps[i], 0.3, &peak);
		print_message("power: u = 1, tau = 0, h = %g: max error %.3g over 0.3 s\n", steps[i],
		              err);
		assert_true(err < 1e-6);
	}
	/* Down, with a load torque, and with both switches (u wins). */
	err = power_run(a, 0.0, 1.0, 0.7, 2e-3, 0.5, &peak);
	print_message("power: d = 1, tau = 0.7, h = 0.002: max error %.3g over 0.5 s\n", err);
	assert_true(err < 1e-6);
	err = power_run(a, 0.9, 0.9, -0.3, 1e-3, 0.2, &peak);
	assert_true(err < 1e-6);

	/* The start-up current peak: at communication points 1e-5 apart, against the exact
	 * solution's maximum, found on the same grid refined by golden-section search. */
	err = power_run(a, 1.0, 0.0, 0.0, 1e-5, 0.05, &peak);
	assert_true(err < 1e-6);
	double lo = 0.0, hi = 0.05, x[3];
	double best_t = 0, best = -1;
	for (int k = 0; k <= 5000; k++) {
		power_exact(PV, 0.0, k * 1e-5, x);
		if (x[0] > best)
			best = x[0], best_t = k * 1e-5;
	}
	lo = best_t - 1e-5, hi = best_t + 1e-5;
	for (int it = 0; it < 200; it++) {
		double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966, x1[3], x2[3];
		power_exact(PV, 0.0, m1, x1);
		power_exact(PV, 0.0, m2, x2);
		if (x1[0] < x2[0])
			lo = m1;
		else
			hi = m2;
	}
	power_exact(PV, 0.0, (lo + hi) / 2, x);
	print_message("power: start-up peak armature current %.9g A at t = %.6g s (exact %.9g A "
	              "at %.9g s)\n", peak, best_t, x[0], (lo + hi) / 2);
	assert_near(peak, x[0], 1e-6);
	assert_true(peak < 5.0); /* start-up alone must not look like an obstacle */
	api_close(a);
}

static void power__steady_state__speed_is_VK_over_Rb_plus_K2(void **state)
{
	(void)state;
	Api *a = api_open("power");
	const double taus[] = {0.0, 0.8};
	for (int i = 0; i < 2; i++) {
		fmi2Component c = start_at(a, 0.0);
		set_real(a, c, "u", 1.0);
		set_real(a, c, "tau", taus[i]);
		double t = 0;
		for (int k = 0; k < 300; k++, t += 0.01)
			assert_int_equal(a->f.do_step(c, t, 0.01, fmi2True), fmi2OK);
		/* With tau: R i + K w = V and K i = b w + tau. */
		double w = (PV * PK - PR * taus[i]) / (PR * PB + PK * PK);
		assert_near(get_real(a, c, "speed"), w, 1e-9);
		assert_near(get_real(a, c, "armature_current"), (PB * w + taus[i]) / PK, 1e-9);
		if (i == 0) {
			assert_near(w, PV * PK / (PR * PB + PK * PK), 0);
			print_message("power: steady speed %.12g rad/s (V K / (R b + K^2) = %.12g), "
			              "current %.12g A\n", get_real(a, c, "speed"), w,
			              get_real(a, c, "armature_current"));
		}
		/* Switched off, it comes to rest. */
		set_real(a, c, "u", 0.0);
		set_real(a, c, "tau", 0.0);
		for (int k = 0; k < 300; k++, t += 0.01)
			assert_int_equal(a->f.do_step(c, t, 0.01, fmi2True), fmi2OK);
		assert_near(get_real(a, c, "speed"), 0.0, 1e-9);
		assert_near(get_real(a, c, "armature_current"), 0.0, 1e-9);
		a->f.free_instance(c);
	}
	assert_int_equal(a->log.count, 0);
	api_close(a);
}

static void power__state_round_trip__bit_identical(void **state)
{
	(void)state;
	Api *a = api_open("power");
	fmi2Component c = start_at(a, 0.0);
	set_real(a, c, "u", 1.0);
	double t = 0;
	for (int k = 0; k < 37; k++, t += 0.001)
		assert_int_equal(a->f.do_step(c, t, 0.001, fmi2True), fmi2OK);
	fmi2FMUstate s = NULL;
	assert_int_equal(a->f.get_state(c, &s), fmi2OK);
	const double t0 = t;

	double first[20][3], again[20][3], other[20][3];
	double (*runs[3])[3] = {first, again, other};
	fmi2Component c2 = start_at(a, 0.0);
	size_t n = 0;
	fmi2Byte *buf = NULL;
	fmi2FMUstate s2 = NULL;
	for (int r = 0; r < 3; r++) {
		fmi2Component on = c;
		if (r == 1)
			assert_int_equal(a->f.set_state(c, s), fmi2OK);
		if (r == 2) {
			assert_int_equal(a->f.serialized_size(c, s, &n), fmi2OK);
			buf = malloc(n);
			assert_non_null(buf);
			assert_int_equal(a->f.serialize(c, s, buf, n), fmi2OK);
			assert_int_equal(a->f.deserialize(c2, buf, n, &s2), fmi2OK);
			assert_int_equal(a->f.set_state(c2, s2), fmi2OK);
			on = c2;
		}
		t = t0;
		for (int k = 0; k < 20; k++) {
			set_real(a, on, "u", k < 10 ? 1.0 : 0.0);
			set_real(a, on, "d", k >= 15 ? 1.0 : 0.0);
			set_real(a, on, "tau", 0.1 * k);
			double h = 0.0007 * (1 + k % 3);
			assert_int_equal(a->f.do_step(on, t, h, fmi2True), fmi2OK);
			t += h;
			power_get(a, on, runs[r][k]);
		}
	}
	assert_memory_equal(first, again, sizeof first);
	assert_memory_equal(first, other, sizeof first);
	assert_int_equal(a->f.free_state(c2, &s2), fmi2OK);
	assert_int_equal(a->f.free_state(c, &s), fmi2OK);
	free(buf);
	a->f.free_instance(c2);
	a->f.free_instance(c);
	assert_int_equal(a->log.count, 0);
	api_close(a);
}

static void power__huge_step_and_bad_input__discard_and_error(void **state)
{
	(void)state;
	Api *a = api_open("power");
	fmi2Component c = start_at(a, 1.0);
	set_real(a, c, "u", 1.0);
	/* A probe: integrated for 100 s (10^6 substeps), then discarded there. */
	assert_int_equal(a->f.do_step(c, 1.0, 1e300, fmi2False), fmi2Discard);
	assert_near(last_successful(a, c), 101.0, 1e-9);
	assert_near(get_real(a, c, "speed"), PV * PK / (PR * PB + PK * PK), 1e-9);
	a->f.free_instance(c);

	c = start_at(a, 0.0);
	set_real(a, c, "tau", NAN);
	assert_int_equal(a->f.do_step(c, 0.0, 0.01, fmi2True), fmi2Error);
	assert_string_equal(a->log.message, "fmi2DoStep: the model failed in the step from t = 0");
	a->f.free_instance(c);

	/* A parameter that would divide by zero is refused at initialization. */
	c = a->f.instantiate("p", fmi2CoSimulation, a->md->guid, "", &a->cb, fmi2False, fmi2False);
	assert_non_null(c);
	fmi2ValueReference vr = vr_of(a, "L");
	double zero = 0.0;
	assert_int_equal(a->f.set_real(c, &vr, 1, &zero), fmi2OK);
	assert_int_equal(a->f.enter_init(c), fmi2OK);
	assert_int_equal(a->f.exit_init(c), fmi2Error);
	a->f.free_instance(c);
	api_close(a);
}

/* ---- the suite -------------------------------------------------------------------------- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pw_fmus__read__all_moore_with_capabilities),
		cmocka_unit_test(environment__sums_of_steps__exact_at_every_boundary),
		cmocka_unit_test(environment__near_each_instant__half_open_with_tolerance),
		cmocka_unit_test(environment__step_over_instant__outputs_of_the_end),
		cmocka_unit_test(controller__buttons__up_down_stop),
		cmocka_unit_test(controller__obstacle__down_for_exactly_one_second),
		cmocka_unit_test(controller__probe_from_emergency__discards_at_expiry),
		cmocka_unit_test(controller__state_round_trip__bit_identical),
		cmocka_unit_test(power__start_up__matches_exact_solution),
		cmocka_unit_test(power__steady_state__speed_is_VK_over_Rb_plus_K2),
		cmocka_unit_test(power__state_round_trip__bit_identical),
		cmocka_unit_test(power__huge_step_and_bad_input__discard_and_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
