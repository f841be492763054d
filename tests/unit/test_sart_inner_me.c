/* test_sart_inner_me.c — Model Exchange inners behind the seam (runtime/sart_inner_me.c):
 * the suite's ME test FMUs (tests/fmus_me/, FMI 2.0 and 3.0) loaded with
 * SART_CAP_MODEL_EXCHANGE and stepped through sart_inner_do_step as a Co-Simulation FMU
 * would be.  The numbers are checked against the models' exact solutions: the linear
 * oscillator's exponential, the bouncing ball's impact times.  Also: FMU states (a restore
 * continues bit for bit, serialized bytes round-trip, corrupted ones are refused), the same
 * FMU out of process giving the same bits, a tunable parameter set between steps (Event
 * Mode first), an indicator rising from exactly 0, and the seam's refusals.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the FMUs come from $SACC_BUILD/fmus_me/fmi{2,3}/<name>/, the host program of
 * isolated inners is $SACC_BUILD/sacc-fmu-host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert_close.h"
#include "sacc_test.h"
#include "sart_inner.h"
#include "sart_isolate.h"
#include "sart_ode.h"

#define LINEAR_TOKEN "{6b1f3c2e-8a47-4d90-b2e5-3c7d9e0a1f64}"
#define BOUNCE_TOKEN "{2d8e4a71-5c3b-4f09-9e16-7b0a2c5d8f43}"
#define TIME_TOKEN "{4f7b2d90-6e1a-4c35-8b07-e2a9d5c1f376}"
#define BAD_TOKEN "{e3a80f5c-1d29-4b7e-96c4-58f0b2a7d1e9}"
#define STIFF_TOKEN "{9a4c1e07-3b6d-4f82-a5e9-1d7c0b3f6e28}"

/* Value references of tests/fmus_me/<name>/fmi*.xml (the same in both versions). */
enum { L_X1 = 1, L_X2 = 2, L_DER_X1 = 3, L_DER_X2 = 4, L_U = 5 };
enum { B_H = 1, B_V = 3, B_E = 6, B_V_MIN = 7 };
enum { T_X = 1, T_U = 3, T_GAIN = 5, T_S = 6, T_EVENTS = 100 };
enum { BAD_X = 1, BAD_MODE = 100 };
enum { S_Y1 = 1, S_Y2 = 2, S_Y3 = 3, S_DER_Y1 = 4 };

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct Log {
	int count;
	char last[4096];
	char all[16384];
} Log;

static void capture(void *env, SartStatus st, const char *category, const char *message)
{
	Log *l = env;
	size_t used = strlen(l->all);
	(void)st, (void)category;
	l->count++;
	snprintf(l->last, sizeof l->last, "%s", message);
	snprintf(l->all + used, sizeof l->all - used, "%s\n", message);
}

#include "assert_contains.h"

static const char *host_path(void)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/sacc-fmu-host", test_build_dir());
	return path;
}

/* How an FMU is opened: its FMI version, the ME settings, in or out of process. */
typedef struct Open {
	SartFmiVersion version;
	SartMeConfig me;
	int isolated;
	unsigned extra_caps;
} Open;

static SartStatus try_open(const char *model, const Open *o, Log *log, SartInner **out)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus_me/fmi%d/%s", test_build_dir(), (int)o->version, model);
	unsigned caps = SART_CAP_MODEL_EXCHANGE | SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE |
	                o->extra_caps;
	SartInnerConfig cfg = {model, dir, model, o->version, caps, capture, log, NULL, 0, NULL, 0,
	                       o->me, {NULL, 0}};
	SartIsolation iso = {host_path(), 0, 0, 0, -1, 0, NULL, NULL};
	return o->isolated ? sart_inner_load_isolated(&cfg, &iso, out) : sart_inner_load(&cfg, out);
}

static SartInner *open_me(const char *model, const Open *o, Log *log)
{
	SartInner *in = NULL;
	SartStatus st = try_open(model, o, log, &in);
	if (st != SART_OK)
		print_error("load %s: %s\n", model, log->all);
	assert_int_equal(st, SART_OK);
	assert_non_null(in);
	return in;
}

static void start(SartInner *in, const char *token, Log *log)
{
	const SartExperiment ex = {0, 0.0, 0.0, 0, 0.0};
	SartStatus st = sart_inner_instantiate(in, token, 0);
	if (st == SART_OK)
		st = sart_inner_enter_init(in, &ex);
	if (st == SART_OK)
		st = sart_inner_exit_init(in);
	if (st != SART_OK)
		print_error("start: %s\n", log->all);
	assert_int_equal(st, SART_OK);
}

static double get_real(SartInner *in, SartVr vr)
{
	double v = NAN;
	assert_int_equal(sart_inner_get_real(in, &vr, 1, &v), SART_OK);
	return v;
}

static void set_real(SartInner *in, SartVr vr, double v)
{
	assert_int_equal(sart_inner_set_real(in, &vr, 1, &v), SART_OK);
}

static void step(SartInner *in, double t, double h, Log *log)
{
	double reached = NAN;
	SartStatus st = sart_inner_do_step(in, t, h, 0, &reached);
	if (st != SART_OK)
		print_error("step at %g: %s\n", t, log->all);
	assert_int_equal(st, SART_OK);
	assert_true(reached == t + h);
}

/* ---- the linear oscillator against its exact solution ----------------------------------- */

/* melinear's x1 and x2 at time s after (x10, x20), input u constant (README of
 * tests/fmus_me/): k = 4, c = 0.4, b = 1. */
static void linear_exact(double x10, double x20, double u, double s, double *x1, double *x2)
{
	const double k = 4.0, c = 0.4, b = 1.0;
	double xs = b * u / k, a = c / 2, w = sqrt(k - a * a), y0 = x10 - xs;
	double p = y0, q = (x20 + a * y0) / w;
	double e = exp(-a * s), cs = cos(w * s), sn = sin(w * s);
	*x1 = xs + e * (p * cs + q * sn);
	/* d/ds of e (p cos + q sin) */
	*x2 = e * (-a * (p * cs + q * sn) + w * (q * cs - p * sn));
}

/* Steps of 0.1 over 10 s, the input jumping from 0 to 2 at t = 5; x1 and x2 (amplitude
 * 1000) after every step against the exact solution, within tol (absolute). */
static void linear_run(const Open *o, double tol)
{
	Log log = {0};
	SartInner *in = open_me("melinear", o, &log);
	start(in, LINEAR_TOKEN, &log);
	double x10 = 1000.0, x20 = 0.0, t0 = 0.0, u = 0.0, worst = 0.0;
	for (int i = 0; i < 100; i++) {
		double t = i * 0.1;
		if (i == 50) {
			/* a jump of the input: the exact solution starts again from the exact state */
			linear_exact(1000.0, 0.0, 0.0, 5.0, &x10, &x20);
			t0 = 5.0;
			u = 2.0;
			set_real(in, L_U, u);
		}
		step(in, t, 0.1, &log);
		double e1, e2;
		linear_exact(x10, x20, u, (i + 1) * 0.1 - t0, &e1, &e2);
		double d1 = fabs(get_real(in, L_X1) - e1), d2 = fabs(get_real(in, L_X2) - e2);
		worst = fmax(worst, fmax(d1, d2));
		assert_close(get_real(in, L_X1), e1, tol);
		assert_close(get_real(in, L_X2), e2, tol);
	}
	/* the derivatives the FMU gives at the end are those of the final states */
	assert_close(get_real(in, L_DER_X1), get_real(in, L_X2), 0.0);
	assert_int_equal(sart_inner_terminate(in), SART_OK);
	sart_inner_free(in);
	assert_int_equal(log.count, 0);
	if (getenv("SART_TEST_VERBOSE"))
		print_message("worst error %g\n", worst);
}

static void me__linear_fmi2__exact_solution_within_tolerance(void **state)
{
	(void)state;
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	o.me.tolerance = 1e-8;
	/* amplitude 1000, relative tolerance 1e-8: the global error stays within 5e-8 of it */
	linear_run(&o, 5e-5);
}

static void me__linear_fmi3__exact_solution_within_tolerance(void **state)
{
	(void)state;
	Open o = {SART_FMI3, {0}, 0, 0};
	o.me.tolerance = 1e-8;
	linear_run(&o, 5e-5);
}

/* The default tolerance (1e-6, nothing given) is coarser, and still holds the solution to
 * its order of magnitude. */
static void me__linear_default_tolerance__solution_within_it(void **state)
{
	(void)state;
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	linear_run(&o, 1000.0 * 2e-6);
}

/* ---- the bouncing ball: impacts located ------------------------------------------------- */

/* The bouncing ball's k-th impact (k from 1), README of tests/fmus_me/. */
static double impact_time(int k)
{
	const double g = 9.81, e = 0.7, v1 = sqrt(2.0 / g) * g;
	double t = sqrt(2.0 / g), ek = 1.0;
	for (int i = 1; i < k; i++) {
		t += 2.0 * ek * e * v1 / g;
		ek *= e;
	}
	return t;
}

/* Steps of 0.01 over 3 s at the default tolerance.  After a step in which v jumped from
 * falling to rising, the motion since the impact is a parabola, which the solver follows
 * exactly: its root before the step's end is where the seam put the impact.  Each of the
 * ten rebounds is checked against the exact time; after the eleventh the ball rests. */
static void bounce_run(const Open *o, double tol)
{
	Log log = {0};
	SartInner *in = open_me("mebounce", o, &log);
	start(in, BOUNCE_TOKEN, &log);
	const double g = 9.81, h = 0.01;
	double v_prev = get_real(in, B_V);
	int impacts = 0;
	for (int i = 0; i < 300; i++) {
		double t = i * h, end = (i + 1) * h;
		step(in, t, h, &log);
		double hh = get_real(in, B_H), v = get_real(in, B_V);
		if (v_prev < 0 && v > 0) {
			impacts++;
			/* hh + v s - g s^2 / 2 = 0, s = t_impact - end < 0 */
			double s = (v - sqrt(v * v + 2.0 * g * hh)) / g;
			double ti = end + s;
			if (getenv("SART_TEST_VERBOSE"))
				print_message("impact %d: %g off\n", impacts, ti - impact_time(impacts));
			if (!(fabs(ti - impact_time(impacts)) <= tol))
				fail_msg("impact %d at %.17g, expected %.17g within %g", impacts, ti,
				         impact_time(impacts), tol);
		}
		assert_true(hh >= 0.0);
		v_prev = v;
	}
	assert_int_equal(impacts, 10);
	/* at rest: the eleventh impact stopped it on the ground */
	assert_close(get_real(in, B_V), 0.0, 0.0);
	assert_close(get_real(in, B_H), 0.0, 1e-12);
	sart_inner_free(in);
}

static void me__bounce_fmi2__impacts_within_a_microsecond(void **state)
{
	(void)state;
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	o.me.nevent_indicators = 1;
	bounce_run(&o, 1e-6);
}

static void me__bounce_fmi3__impacts_within_a_microsecond(void **state)
{
	(void)state;
	Open o = {SART_FMI3, {0}, 0, 0};
	bounce_run(&o, 1e-6);
}

/* ---- Reals set only in Event Mode -------------------------------------------------------- */

/* mebounce's restitution `e`, a tunable parameter, set between steps before the first
 * impact (t1 = sqrt(2 / g)): the FMU takes it only in Event Mode, so with `e` in event_vrs
 * the seam enters it first, and the impact uses the new value: after it v = e v1 - g (t -
 * t1), v1 = g t1.  Without event_vrs the set reaches the FMU in Continuous-Time Mode,
 * which refuses it.  In process and isolated, FMI 2.0 and 3.0. */
static void me__tunable_parameter_between_steps__next_impact_uses_it(void **state)
{
	(void)state;
	const double g = 9.81, t1 = sqrt(2.0 / g), v1 = g * t1, e = 0.5, h = 0.01;
	const SartVr event_vrs[] = {B_V_MIN + 40, B_E}; /* any order; one unknown to the FMU */
	for (int v = 2; v <= 3; v++)
		for (int iso = 0; iso < 2; iso++) {
			Log log = {0};
			Open o = {(SartFmiVersion)v, {0}, iso, 0};
			o.me.nstates = 2;
			o.me.nevent_indicators = 1;
			SartInner *in = open_me("mebounce", &o, &log);
			start(in, BOUNCE_TOKEN, &log);
			step(in, 0.0, 0.3, &log);
			SartVr vr = B_E;
			assert_int_equal(sart_inner_set_real(in, &vr, 1, &e), SART_ERROR);
			assert_contains(log.all, "variable e (value reference 6) cannot be set in");
			sart_inner_free(in);

			memset(&log, 0, sizeof log);
			o.me.event_vrs = event_vrs;
			o.me.nevent_vrs = 2;
			in = open_me("mebounce", &o, &log);
			start(in, BOUNCE_TOKEN, &log);
			step(in, 0.0, 0.3, &log);
			set_real(in, B_E, e);
			for (double t = 0.3; t < 0.6 - h / 2; t += h)
				step(in, t, h, &log);
			assert_close(get_real(in, B_V), e * v1 - g * (0.6 - t1), 1e-5);
			assert_close(get_real(in, B_E), e, 0.0);
			assert_int_equal(log.count, 0);
			sart_inner_free(in);
		}
}

/* metime's source s, a tunable array parameter (FMI 3.0: one Float64[4] at value reference
 * 6; FMI 2.0: scalars s[1] .. s[4] at 6 .. 9), its element s[3] set to 4 between steps at
 * t = 0.625, in the middle of the interval [0.5, 0.75) where u = s[3]: x' = u, so x(0.75) =
 * x(0.625) + 0.125 * 4 = 0.75 + 0.5 = 1.25, then + 0.25 * 0.5 (s[4]), + 0.25 * 1 (s[1]),
 * + 0.25 * 3 (s[2]) and + 0.25 * 4 (s[3] again): x(1.75) = 3.375.  FMI 3.0 sets elements
 * through references of their own (SartInnerConfig.elements, 1000 + index), which event_vrs
 * (what the description gives: gain and s) does not list: the seam must take them for the
 * array's, or the set reaches the FMU in Continuous-Time Mode, which refuses it.  All four
 * set at t = 1.75 (s = 2 each) then give x(2) = 3.375 + 0.25 * 2.  FMI 2.0 sets the
 * scalars; in process and isolated. */
static void me__tunable_array_element_between_steps__takes_effect_at_once(void **state)
{
	(void)state;
	SartVrElement elems[4];
	static const double s0[4] = {1.0, 3.0, -2.0, 0.5};
	for (unsigned k = 0; k < 4; k++)
		elems[k] = (SartVrElement){1000 + k, T_S, k, 4, s0[k], NULL, 0};
	const SartVr ev2[] = {T_GAIN, T_S, T_S + 1, T_S + 2, T_S + 3}, ev3[] = {T_GAIN, T_S};
	const double h = 0.125;
	for (int v = 2; v <= 3; v++)
		for (int iso = 0; iso < 2; iso++) {
			Log log = {0};
			char dir[512];
			snprintf(dir, sizeof dir, "%s/fmus_me/fmi%d/metime", test_build_dir(), v);
			SartMeConfig me = {0};
			me.nstates = 1;
			me.event_vrs = v == 3 ? ev3 : ev2;
			me.nevent_vrs = v == 3 ? 2 : 5;
			SartInnerConfig cfg = {"metime", dir, "metime", (SartFmiVersion)v,
			                       SART_CAP_MODEL_EXCHANGE, capture, &log, NULL, 0,
			                       v == 3 ? elems : NULL, v == 3 ? 4 : 0, me, {NULL, 0}};
			SartIsolation isol = {host_path(), 0, 0, 0, -1, 0, NULL, NULL};
			SartInner *in = NULL;
			SartStatus st = iso ? sart_inner_load_isolated(&cfg, &isol, &in)
			                    : sart_inner_load(&cfg, &in);
			if (st != SART_OK)
				print_error("load: %s\n", log.all);
			assert_int_equal(st, SART_OK);
			start(in, TIME_TOKEN, &log);
			const SartVr s_vr = v == 3 ? 1000 : T_S; /* s[1]; s[k] is s_vr + k - 1 */
			double t = 0.0;
			for (; t < 0.625 - h / 2; t += h)
				step(in, t, h, &log);
			assert_close(get_real(in, T_X), 0.75, 1e-13);
			set_real(in, s_vr + 2, 4.0);
			for (; t < 0.75 - h / 2; t += h)
				step(in, t, h, &log);
			assert_close(get_real(in, T_X), 1.25, 1e-13);
			for (; t < 1.75 - h / 2; t += h)
				step(in, t, h, &log);
			assert_close(get_real(in, T_X), 3.375, 1e-13);
			const SartVr all[] = {s_vr, s_vr + 1, s_vr + 2, s_vr + 3};
			const double two[] = {2.0, 2.0, 2.0, 2.0};
			assert_int_equal(sart_inner_set_real(in, all, 4, two), SART_OK);
			for (; t < 2.0 - h / 2; t += h)
				step(in, t, h, &log);
			assert_close(get_real(in, T_X), 3.875, 1e-13);
			if (log.count)
				print_error("%s", log.all);
			assert_int_equal(log.count, 0);
			sart_inner_free(in);
		}
}

/* The ball started on the ground (h = 0, the indicator exactly 0: FMI's domain z <= 0)
 * and thrown up at v0: leaving the ground is an event at once, which changes nothing and
 * must not count as chattering; the ball lands at 2 v0 / g and leaves at e v0. */
static void me__indicator_rising_from_zero__one_event_then_the_flight(void **state)
{
	(void)state;
	const double g = 9.81, v0 = 3.0, e = 0.7, tl = 2.0 * v0 / g, h = 0.01;
	const SartExperiment ex = {0, 0.0, 0.0, 0, 0.0};
	for (int v = 2; v <= 3; v++) {
		Log log = {0};
		Open o = {(SartFmiVersion)v, {0}, 0, 0};
		o.me.nstates = 2;
		o.me.nevent_indicators = 1;
		SartInner *in = open_me("mebounce", &o, &log);
		assert_int_equal(sart_inner_instantiate(in, BOUNCE_TOKEN, 0), SART_OK);
		assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
		set_real(in, B_H, 0.0);
		set_real(in, B_V, v0);
		assert_int_equal(sart_inner_exit_init(in), SART_OK);
		step(in, 0.0, h, &log);
		double t = h;
		assert_close(get_real(in, B_H), v0 * t - g * t * t / 2, 1e-9);
		for (; t < 0.7 - h / 2; t += h)
			step(in, t, h, &log);
		assert_close(get_real(in, B_V), e * v0 - g * (0.7 - tl), 1e-5);
		assert_int_equal(log.count, 0);
		sart_inner_free(in);
	}
}

/* ---- a stiff model ---------------------------------------------------------------------- */

/* Robertson's problem (mestiff) to t = 40 in steps of 1, against the reference solution of
 * Hairer and Wanner (Solving ODEs II, to 10 digits): y1 = 0.7158270687,
 * y2 = 0.9185534764e-5, y3 = 0.2841637457.  With the Jacobian from the FMU's directional
 * derivatives or from finite differences, and with the method chosen by stiffness. */
static void stiff_run(SartFmiVersion v, int method, int jacobian)
{
	static const SartVr states[] = {S_Y1, S_Y2, S_Y3}, ders[] = {S_DER_Y1, S_DER_Y1 + 1,
	                                                            S_DER_Y1 + 2};
	Log log = {0};
	Open o = {v, {0}, 0, 0};
	o.me.method = method;
	o.me.nstates = 3;
	o.me.tolerance = 1e-8;
	if (jacobian) {
		o.me.state_vrs = states;
		o.me.derivative_vrs = ders;
	}
	SartInner *in = open_me("mestiff", &o, &log);
	start(in, STIFF_TOKEN, &log);
	for (int i = 0; i < 40; i++)
		step(in, i, 1.0, &log);
	assert_close(get_real(in, S_Y1), 0.7158270687, 1e-7);
	assert_close(get_real(in, S_Y2), 0.9185534764e-5, 1e-11);
	assert_close(get_real(in, S_Y3), 0.2841637457, 1e-7);
	/* the sum is conserved exactly by the model */
	assert_close(get_real(in, S_Y1) + get_real(in, S_Y2) + get_real(in, S_Y3), 1.0, 1e-9);
	sart_inner_free(in);
	assert_int_equal(log.count, 0);
}

static void me__stiff_rodas_fmi2__reference_solution(void **state)
{
	(void)state;
	stiff_run(SART_FMI2, 2, 1);
	stiff_run(SART_FMI2, 2, 0);
}

static void me__stiff_auto_fmi3__reference_solution(void **state)
{
	(void)state;
	stiff_run(SART_FMI3, 0, 1);
	stiff_run(SART_FMI3, 0, 0);
}

/* A discrete set between steps puts the FMU in Event Mode first: mebad's mode, a fixed
 * parameter, is then refused by the FMU in Event Mode (not in Continuous-Time Mode, where
 * no discrete set is allowed); the next step starts with the event iteration and goes on
 * as before the set. */
static void me__discrete_set__in_event_mode_then_settled(void **state)
{
	(void)state;
	for (int v = 2; v <= 3; v++) {
		Log log = {0};
		Open o = {(SartFmiVersion)v, {0}, 0, 0};
		o.me.nstates = 1;
		o.me.nevent_indicators = 1;
		SartInner *in = open_me("mebad", &o, &log);
		start(in, BAD_TOKEN, &log);
		step(in, 0.0, 0.25, &log);
		SartVr vr = BAD_MODE;
		int mode = 1;
		assert_int_equal(sart_inner_set_integer(in, &vr, 1, &mode), SART_ERROR);
		assert_contains(log.all, "cannot be set in Event Mode");
		log.count = 0;
		step(in, 0.25, 0.25, &log);
		step(in, 0.5, 0.5, &log);
		assert_close(get_real(in, BAD_X), exp(-1.0), 1e-5);
		assert_int_equal(log.count, 0);
		sart_inner_free(in);
	}
}

/* An input set between steps that flips an indicator is an event at the step's start,
 * though the solver, restarted with the new input, never sees the indicator change:
 * mejump (tests/fmus/broken/mejump.c) switches `above` when u crosses 1. */
static void me__input_jump_across_an_indicator__event_at_the_step_start(void **state)
{
	(void)state;
	enum { J_U = 3, J_T_SWITCH = 4, J_ABOVE = 100, J_EVENTS = 101 };
	Log log = {0};
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus-broken/mejump", test_build_dir());
	SartInnerConfig cfg = {"jump", dir, "mejump", SART_FMI2, SART_CAP_MODEL_EXCHANGE,
	                       capture, &log, NULL, 0, NULL, 0, {0}, {NULL, 0}};
	cfg.me.nstates = 1;
	cfg.me.nevent_indicators = 1;
	SartInner *in = NULL;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_OK);
	start(in, "{mejump}", &log);
	/* u, then what the step after setting it shows: above, events, t_switch */
	static const struct {
		double u;
		int above, events;
		double t_switch;
	} steps[] = {
		{0.0, 0, 0, -1.0}, {0.0, 0, 0, -1.0}, {2.0, 1, 1, 0.2}, {3.0, 1, 1, 0.2},
		{0.5, 0, 2, 0.4}, {1.0, 0, 2, 0.4}, {1.5, 1, 3, 0.6},
	};
	const SartVr ivr[] = {J_ABOVE, J_EVENTS};
	for (int i = 0; i < (int)(sizeof steps / sizeof *steps); i++) {
		double t = i * 0.1;
		set_real(in, J_U, steps[i].u);
		step(in, t, 0.1, &log);
		int iv[2] = {-1, -1};
		assert_int_equal(sart_inner_get_integer(in, ivr, 2, iv), SART_OK);
		if (iv[0] != steps[i].above || iv[1] != steps[i].events)
			fail_msg("step %d: above %d, events %d; expected %d, %d", i, iv[0], iv[1],
			         steps[i].above, steps[i].events);
		/* the switch happened where the input was set, at the step's start */
		assert_close(get_real(in, J_T_SWITCH), steps[i].t_switch, 0.0);
	}
	sart_inner_free(in);
	assert_int_equal(log.count, 0);
}

/* ---- FMU states --------------------------------------------------------------------------- */

#define TRACE_STEPS 120

/* h and v after each of n steps of 0.025 from t. */
static void trace(SartInner *in, double t, int n, double out[][2], Log *log)
{
	for (int i = 0; i < n; i++) {
		step(in, t + i * 0.025, 0.025, log);
		out[i][0] = get_real(in, B_H);
		out[i][1] = get_real(in, B_V);
	}
}

/* After state is set on in, the steps from t = 0.25 give first's bits again. */
static void assert_replays(SartInner *in, void *state, double first[][2], Log *log)
{
	static double again[TRACE_STEPS][2];
	memset(again, 0, sizeof again);
	if (sart_inner_set_state(in, state) != SART_OK)
		print_error("setFMUstate: %s", log->all);
	trace(in, 0.25, TRACE_STEPS, again, log);
	assert_memory_equal(first, again, sizeof again);
}

static void states_run(const Open *o)
{
	Log log = {0};
	SartInner *in = open_me("mebounce", o, &log);
	start(in, BOUNCE_TOKEN, &log);
	static double first[TRACE_STEPS][2];
	double pre[10][2];
	trace(in, 0.0, 10, pre, &log); /* to t = 0.25, before the first impact */
	void *saved = NULL;
	assert_int_equal(sart_inner_get_state(in, &saved), SART_OK);
	size_t size = 0;
	assert_int_equal(sart_inner_serialized_size(in, saved, &size), SART_OK);
	unsigned char *bytes = malloc(size);
	assert_non_null(bytes);
	assert_int_equal(sart_inner_serialize(in, saved, bytes, size), SART_OK);

	trace(in, 0.25, TRACE_STEPS, first, &log); /* over impacts, to t = 3.25 */

	/* restored: the same steps give the same bits */
	assert_replays(in, saved, first, &log);

	/* from the bytes, in the same instance */
	void *back = NULL;
	assert_int_equal(sart_inner_deserialize(in, bytes, size, &back), SART_OK);
	assert_replays(in, back, first, &log);

	/* the state overwritten in place, then restored again */
	assert_int_equal(sart_inner_get_state(in, &back), SART_OK);
	assert_replays(in, saved, first, &log);

	/* from the bytes, in another instance that never stepped, and in one only
	 * instantiated (the seam learns its sizes and makes its solver then) */
	for (int started = 1; started >= 0; started--) {
		Log log2 = {0};
		SartInner *other = open_me("mebounce", o, &log2);
		if (started)
			start(other, BOUNCE_TOKEN, &log2);
		else
			assert_int_equal(sart_inner_instantiate(other, BOUNCE_TOKEN, 0), SART_OK);
		void *copy = NULL;
		assert_int_equal(sart_inner_deserialize(other, bytes, size, &copy), SART_OK);
		assert_replays(other, copy, first, &log2);
		assert_int_equal(sart_inner_free_state(other, &copy), SART_OK);
		sart_inner_free(other);
		assert_int_equal(log2.count, 0);
	}

	assert_int_equal(sart_inner_free_state(in, &back), SART_OK);
	assert_int_equal(sart_inner_free_state(in, &saved), SART_OK);
	assert_null(saved);
	free(bytes);
	sart_inner_free(in);
	assert_int_equal(log.count, 0);
}

static void me__states_fmi2__restore_continues_bit_for_bit(void **state)
{
	(void)state;
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	o.me.nevent_indicators = 1;
	states_run(&o);
}

static void me__states_fmi3__restore_continues_bit_for_bit(void **state)
{
	(void)state;
	Open o = {SART_FMI3, {0}, 0, 0};
	states_run(&o);
}

/* The implicit choice at a tight tolerance runs Rodas5P: its memo (method RODAS5) goes
 * through the bytes and the restored states replay bit for bit. */
static void me__states_rodas5__restore_continues_bit_for_bit(void **state)
{
	(void)state;
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	o.me.nevent_indicators = 1;
	o.me.method = SART_ODE_IMPLICIT;
	o.me.tolerance = 1e-8;
	assert_int_equal(sart_ode_implicit_method(o.me.tolerance), SART_ODE_RODAS5);
	states_run(&o);
}

/* Serialized bytes that are not a state of the layer: cut short, another magic, a changed
 * header byte, an absurd size: each refused with a message, no state made. */
static void me__corrupted_bytes__refused_naming_the_cause(void **state)
{
	(void)state;
	Log log = {0};
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	o.me.nevent_indicators = 1;
	SartInner *in = open_me("mebounce", &o, &log);
	start(in, BOUNCE_TOKEN, &log);
	step(in, 0.0, 0.5, &log);
	void *saved = NULL;
	size_t size = 0;
	assert_int_equal(sart_inner_get_state(in, &saved), SART_OK);
	assert_int_equal(sart_inner_serialized_size(in, saved, &size), SART_OK);
	unsigned char *good = malloc(size), *bad = malloc(size);
	assert_non_null(good);
	assert_non_null(bad);
	assert_int_equal(sart_inner_serialize(in, saved, good, size), SART_OK);
	static const struct {
		size_t at;      /* the byte changed (size: cut to 40 bytes instead) */
		unsigned char xor_with;
		const char *why;
	} cases[] = {
		{0, 0x20, "no header"},
		{4, 0x01, "another version"},
		{8, 0x10, "size is wrong"},
		{20, 0x01, "checksum is wrong"},
		{60, 0x04, "checksum is wrong"},
		{(size_t)-1, 0, "too short"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		memcpy(bad, good, size);
		size_t n = size;
		if (cases[c].at == (size_t)-1)
			n = 40;
		else
			bad[cases[c].at] ^= cases[c].xor_with;
		void *st = NULL;
		log.all[0] = '\0';
		assert_int_equal(sart_inner_deserialize(in, bad, n, &st), SART_ERROR);
		assert_null(st);
		assert_contains(log.all, "[mebounce] deSerializeFMUstate: the bytes are not a state");
		assert_contains(log.all, cases[c].why);
	}
	/* every single-byte change of the header is caught, whatever it hits */
	for (size_t at = 0; at < 104 + 8; at++) {
		memcpy(bad, good, size);
		bad[at] ^= 0x5a;
		void *st = NULL;
		assert_int_equal(sart_inner_deserialize(in, bad, size, &st), SART_ERROR);
		assert_null(st);
	}
	/* and the intact bytes still load */
	void *ok = NULL;
	assert_int_equal(sart_inner_deserialize(in, good, size, &ok), SART_OK);
	assert_int_equal(sart_inner_free_state(in, &ok), SART_OK);
	assert_int_equal(sart_inner_free_state(in, &saved), SART_OK);
	free(good);
	free(bad);
	sart_inner_free(in);
}

/* Without v_min the ball's impacts pile up towards t1 (1 + 2e / (1 - e)) (Zeno): the seam
 * reports the model chattering there instead of creeping on an impact at a time. */
static void me__zeno_ball__chatters_at_the_accumulation_point(void **state)
{
	(void)state;
	for (int v = 2; v <= 3; v++) {
		Log log = {0};
		Open o = {(SartFmiVersion)v, {0}, 0, 0};
		o.me.nstates = 2;
		o.me.nevent_indicators = 1;
		SartInner *in = open_me("mebounce", &o, &log);
		const SartExperiment ex = {0, 0.0, 0.0, 0, 0.0};
		assert_int_equal(sart_inner_instantiate(in, BOUNCE_TOKEN, 0), SART_OK);
		set_real(in, B_V_MIN, 0.0);
		assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
		assert_int_equal(sart_inner_exit_init(in), SART_OK);
		SartStatus st = SART_OK;
		double t = 0.0, reached = 0.0;
		for (int i = 0; i < 300 && st == SART_OK; i++) {
			t = i * 0.01;
			st = sart_inner_do_step(in, t, 0.01, 0, &reached);
		}
		assert_int_equal(st, SART_ERROR);
		const char *at = strstr(log.last, "[mebounce] the model chatters at t = ");
		assert_non_null(at);
		double where = NAN;
		assert_int_equal(sscanf(at + strlen("[mebounce] the model chatters at t = "), "%lf",
		                        &where), 1);
		const double e = 0.7, t_zeno = impact_time(1) * (1.0 + 2.0 * e / (1.0 - e));
		assert_close(where, t_zeno, 1e-6);
		assert_true(t <= where && where < t + 0.01);
		assert_contains(log.last, "101 events since t = ");
		sart_inner_free(in);
	}
}

/* ---- time events ------------------------------------------------------------------------ */

/* metime's x at t: the integral of u = 1, 3, -2, 0.5 (repeating) over intervals of 0.25. */
static double time_exact(double t)
{
	static const double s[4] = {1.0, 3.0, -2.0, 0.5};
	double x = 0.0;
	int k = 0;
	for (; (k + 1) * 0.25 <= t; k++)
		x += 0.25 * s[k % 4];
	return x + (t - k * 0.25) * s[k % 4];
}

/* Steps of 0.1 against switches every 0.25: x is piecewise linear, so any solver that
 * hits each switch exactly gives it to rounding; one that stepped over a switch by d would
 * be off by d times the jump of u.  The switch at t = 0.5, a step's end, is in that step. */
static void time_run(SartFmiVersion v)
{
	Log log = {0};
	Open o = {v, {0}, 0, 0};
	o.me.nstates = 1;
	SartInner *in = open_me("metime", &o, &log);
	start(in, TIME_TOKEN, &log);
	for (int i = 0; i < 40; i++) {
		double t = i * 0.1, end = t + 0.1;
		step(in, t, 0.1, &log);
		assert_close(get_real(in, T_X), time_exact(end), 1e-13);
		int events = -1;
		SartVr vr = T_EVENTS;
		assert_int_equal(sart_inner_get_integer(in, &vr, 1, &events), SART_OK);
		assert_int_equal(events, (int)floor(end / 0.25 + 1e-9));
	}
	sart_inner_free(in);
	assert_int_equal(log.count, 0);
}

static void me__time_events_fmi2__hit_exactly(void **state)
{
	(void)state;
	time_run(SART_FMI2);
}

static void me__time_events_fmi3__hit_exactly(void **state)
{
	(void)state;
	time_run(SART_FMI3);
}

/* ---- a misbehaving FMU ------------------------------------------------------------------ */

/* mebad in the given mode, stepped from 0 by h: the step's status, *reached, and the
 * message. */
static SartStatus bad_run(SartFmiVersion v, int mode, double h, double *reached, Log *log)
{
	Open o = {v, {0}, 0, 0};
	o.me.nstates = 1;
	o.me.nevent_indicators = 1;
	SartInner *in = open_me("mebad", &o, log);
	const SartExperiment ex = {0, 0.0, 0.0, 0, 0.0};
	SartVr vr = BAD_MODE;
	assert_int_equal(sart_inner_instantiate(in, BAD_TOKEN, 0), SART_OK);
	assert_int_equal(sart_inner_set_integer(in, &vr, 1, &mode), SART_OK);
	assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
	SartStatus st = sart_inner_do_step(in, 0.0, h, 0, reached);
	if (getenv("SART_TEST_VERBOSE"))
		print_message("mode %d: %s", mode, log->all);
	/* what went before stays: x = exp(-t) up to the failure (but in mode 4) */
	if (mode != 4 && st != SART_OK) {
		double x = get_real(in, BAD_X);
		assert_true(x > 0.0 && x < 1.0);
	}
	sart_inner_free(in);
	return st;
}

static void bad_modes(SartFmiVersion v)
{
	double reached = 0;
	Log log = {0};

	assert_int_equal(bad_run(v, 0, 1.0, &reached, &log), SART_OK);
	assert_true(reached == 1.0);

	memset(&log, 0, sizeof log);
	assert_int_equal(bad_run(v, 1, 1.0, &reached, &log), SART_ERROR);
	assert_true(isnan(reached));
	assert_contains(log.last, "[mebad] step from t = 0 by h = 1: the derivative of "
	                "continuous state 1 is NaN or infinite in the solver's step after t = ");

	memset(&log, 0, sizeof log);
	assert_int_equal(bad_run(v, 2, 1.0, &reached, &log), SART_ERROR);
	/* the indicator flips on every call from t = 0.5 on: where the search meets it first
	 * depends on the method's path, never before 0.5 */
	const char *ch = strstr(log.last, "[mebad] the model chatters at t = ");
	double when = NAN;
	assert_non_null(ch);
	assert_int_equal(sscanf(ch + strlen("[mebad] the model chatters at t = "), "%lf", &when), 1);
	assert_true(when >= 0.5 && when < 1.0);
	assert_contains(log.last, "event indicator 1 gives");

	memset(&log, 0, sizeof log);
	assert_int_equal(bad_run(v, 3, 1.0, &reached, &log), SART_ERROR);
	assert_contains(log.last, "[mebad] the event iteration at t = 0.5 does not settle");

	memset(&log, 0, sizeof log);
	assert_int_equal(bad_run(v, 4, 2.0, &reached, &log), SART_ERROR);
	/* x = 1/(1 - t): the solver gives up where x blows up, near t = 1 */
	const char *at = strstr(log.last, "[mebad] step from t = 0 by h = 2: at t = ");
	double where = NAN;
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen("[mebad] step from t = 0 by h = 2: at t = "), "%lf",
	                        &where), 1);
	assert_close(where, 1.0, 1e-3);
	assert_contains(log.last, "the solver cannot meet the relative tolerance 1e-06");

	memset(&log, 0, sizeof log);
	assert_int_equal(bad_run(v, 5, 1.0, &reached, &log), SART_DISCARD);
	assert_true(reached == 0.5);
	assert_contains(log.last, "[mebad] the FMU asked to terminate the simulation at t = 0.5");
}

static void me__bad_fmi2__each_mode_its_error(void **state)
{
	(void)state;
	bad_modes(SART_FMI2);
}

static void me__bad_fmi3__each_mode_its_error(void **state)
{
	(void)state;
	bad_modes(SART_FMI3);
}

/* ---- out of process --------------------------------------------------------------------- */

/* The same steps, state and serialized bytes isolated as in process, bit for bit. */
static void isolated_run(SartFmiVersion v)
{
	static double here[TRACE_STEPS][2], there[TRACE_STEPS][2];
	unsigned char *bytes[2] = {NULL, NULL};
	size_t sizes[2] = {0, 0};
	for (int iso = 0; iso < 2; iso++) {
		Log log = {0};
		Open o = {v, {0}, iso, 0};
		o.me.nstates = 2;
		o.me.nevent_indicators = 1;
		o.me.tolerance = 1e-7;
		SartInner *in = open_me("mebounce", &o, &log);
		start(in, BOUNCE_TOKEN, &log);
		trace(in, 0.0, TRACE_STEPS, iso ? there : here, &log);
		void *st = NULL;
		assert_int_equal(sart_inner_get_state(in, &st), SART_OK);
		assert_int_equal(sart_inner_serialized_size(in, st, &sizes[iso]), SART_OK);
		bytes[iso] = malloc(sizes[iso]);
		assert_non_null(bytes[iso]);
		assert_int_equal(sart_inner_serialize(in, st, bytes[iso], sizes[iso]), SART_OK);
		assert_int_equal(sart_inner_free_state(in, &st), SART_OK);
		assert_int_equal(sart_inner_terminate(in), SART_OK);
		sart_inner_free(in);
		assert_int_equal(log.count, 0);
	}
	assert_memory_equal(here, there, sizeof here);
	assert_int_equal(sizes[0], sizes[1]);
	assert_memory_equal(bytes[0], bytes[1], sizes[0]);
	free(bytes[0]);
	free(bytes[1]);
}

static void me__isolated_fmi2__same_bits_as_in_process(void **state)
{
	(void)state;
	isolated_run(SART_FMI2);
}

static void me__isolated_fmi3__same_bits_as_in_process(void **state)
{
	(void)state;
	isolated_run(SART_FMI3);
}

/* ---- what the seam refuses -------------------------------------------------------------- */

/* Driven for Model Exchange, a library must export the ME functions and need not export
 * the Co-Simulation ones: tests/fmus/broken/nodostep (no fmi2DoStep, no ME function) is
 * refused naming the ME functions only.  An ME-only FMU opened as Co-Simulation refuses
 * to be instantiated so. */
static void me__required_functions__me_named_cs_not(void **state)
{
	(void)state;
	Log log = {0};
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus-broken/nodostep", test_build_dir());
	SartInnerConfig cfg = {"nds", dir, "nodostep", SART_FMI2, SART_CAP_MODEL_EXCHANGE, capture,
	                       &log, NULL, 0, NULL, 0, {0}, {NULL, 0}};
	SartInner *in = NULL;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_ERROR);
	assert_null(in);
	assert_contains(log.all, "fmi2SetTime (needed for Model Exchange)");
	assert_contains(log.all, "fmi2GetDerivatives (needed for Model Exchange)");
	assert_null(strstr(log.all, "fmi2DoStep"));

	for (int v = 2; v <= 3; v++) {
		Log l = {0};
		snprintf(dir, sizeof dir, "%s/fmus_me/fmi%d/mebounce", test_build_dir(), v);
		SartInnerConfig cs = {"ball", dir, "mebounce", (SartFmiVersion)v, 0, capture, &l, NULL,
		                      0, NULL, 0, {0}, {NULL, 0}};
		assert_int_equal(sart_inner_load(&cs, &in), SART_OK);
		assert_int_equal(sart_inner_instantiate(in, BOUNCE_TOKEN, 0), SART_ERROR);
		assert_contains(l.last, v == 2 ? "[ball] fmi2Instantiate returned NULL" :
		                "[ball] fmi3InstantiateCoSimulation returned NULL");
		sart_inner_free(in);
		in = NULL;
	}
}

/* A step that does not start where the FMU stands, before initialization, or of no
 * length, and the calls an ME FMU has no counterpart for: errors naming the instance. */
static void me__misuse__errors_naming_instance_and_time(void **state)
{
	(void)state;
	Log log = {0};
	Open o = {SART_FMI2, {0}, 0, 0};
	o.me.nstates = 2;
	SartInner *in = open_me("melinear", &o, &log);
	double reached = 0;
	assert_int_equal(sart_inner_instantiate(in, LINEAR_TOKEN, 0), SART_OK);
	assert_int_equal(sart_inner_do_step(in, 0.0, 0.1, 0, &reached), SART_ERROR);
	assert_true(isnan(reached));
	assert_contains(log.last, "[melinear] step from t = 0 by h = 0.1: the FMU is not "
	                "initialized");
	const SartExperiment ex = {0, 0.0, 0.0, 0, 0.0};
	assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
	assert_int_equal(sart_inner_do_step(in, 0.5, 0.1, 0, &reached), SART_ERROR);
	assert_contains(log.last, "[melinear] step from t = 0.5 by h = 0.1: the FMU stands at "
	                "t = 0");
	assert_int_equal(sart_inner_do_step(in, 0.0, 0.0, 0, &reached), SART_ERROR);
	SartVr vr = L_U;
	int order = 1;
	double value = 1.0;
	assert_int_equal(sart_inner_set_real_input_derivatives(in, &vr, 1, &order, &value),
	                 SART_ERROR);
	assert_contains(log.last, "[melinear] setting input derivatives: a Model Exchange FMU");
	/* no direct route: a wrapper's fast step goes through the seam */
	assert_null(sart_inner_direct(in));
	/* and the instance still steps */
	step(in, 0.0, 0.1, &log);
	sart_inner_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(me__linear_fmi2__exact_solution_within_tolerance),
		cmocka_unit_test(me__linear_fmi3__exact_solution_within_tolerance),
		cmocka_unit_test(me__linear_default_tolerance__solution_within_it),
		cmocka_unit_test(me__bounce_fmi2__impacts_within_a_microsecond),
		cmocka_unit_test(me__bounce_fmi3__impacts_within_a_microsecond),
		cmocka_unit_test(me__time_events_fmi2__hit_exactly),
		cmocka_unit_test(me__time_events_fmi3__hit_exactly),
		cmocka_unit_test(me__bad_fmi2__each_mode_its_error),
		cmocka_unit_test(me__bad_fmi3__each_mode_its_error),
		cmocka_unit_test(me__discrete_set__in_event_mode_then_settled),
		cmocka_unit_test(me__input_jump_across_an_indicator__event_at_the_step_start),
		cmocka_unit_test(me__tunable_parameter_between_steps__next_impact_uses_it),
		cmocka_unit_test(me__tunable_array_element_between_steps__takes_effect_at_once),
		cmocka_unit_test(me__indicator_rising_from_zero__one_event_then_the_flight),
		cmocka_unit_test(me__stiff_rodas_fmi2__reference_solution),
		cmocka_unit_test(me__stiff_auto_fmi3__reference_solution),
		cmocka_unit_test(me__zeno_ball__chatters_at_the_accumulation_point),
		cmocka_unit_test(me__states_fmi2__restore_continues_bit_for_bit),
		cmocka_unit_test(me__states_fmi3__restore_continues_bit_for_bit),
		cmocka_unit_test(me__states_rodas5__restore_continues_bit_for_bit),
		cmocka_unit_test(me__corrupted_bytes__refused_naming_the_cause),
		cmocka_unit_test(me__isolated_fmi2__same_bits_as_in_process),
		cmocka_unit_test(me__isolated_fmi3__same_bits_as_in_process),
		cmocka_unit_test(me__required_functions__me_named_cs_not),
		cmocka_unit_test(me__misuse__errors_naming_instance_and_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
