/* test_e2e_wrapper3.c — wrappers built as FMI 3.0 (PkgOptions.fmi_version 3), stepped through
 * the suite's minimal FMI 3.0 importer as any importer would: the pass-through over the
 * window FMU against the same adaptation built as FMI 2.0 (outputs and states bit-identical),
 * the FMI 3.0 state machine (calls in a wrong state are errors with a message), the model
 * descriptions through fmi3_md_check, and a step the control rules cut short (a periodic
 * instant) with and without early return allowed; what the wrappers export (every function
 * of the project's FMI headers, checked with nm) and how they refuse the functions of the
 * interfaces they do not implement. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "assert_contains.h"
#include "package.h"
#include "sacc_test.h"
#include "e2e_kit.h"
#include "e2e_fmi3.h"

#define OUT3 "e2e3/fmi3"
#define PW "adaptations/powerwindow/"
#define OUT2 "e2e3/fmi2"

/* ---- building and loading ------------------------------------------------------------------ */

static int group_setup(void **state)
{
	(void)state;
	build_as("bench/wrapper/passthrough_sa.sa", 3, OUT3);
	build_as("tests/e2e/lower_periodic.sa", 3, OUT3);
	build_as("tests/e2e/lower_crossing_out.sa", 3, OUT3);
	build_as("tests/e2e/lower_crossing.sa", 3, OUT3);
	build_as("bench/wrapper/passthrough_sa.sa", 2, OUT2);
	build_as("tests/e2e/lower_crossing_out.sa", 2, OUT2);
	/* controller_sa (Bool ports) as FMI 3.0 over lazy_sa as FMI 2.0, and both as FMI 2.0 */
	build_as(PW "lazy_sa.sa", 2, OUT3);
	build_as(PW "controller_sa.sa", 3, OUT3);
	build_as(PW "lazy_sa.sa", 2, OUT2);
	build_as(PW "controller_sa.sa", 2, OUT2);
	return 0;
}

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category, (void)message;
}

static const fmi2CallbackFunctions callbacks2 = {logger2, calloc, free, NULL, NULL};

static void open3(Fmu3 *f, const char *id)
{
	fmu3_open_wrapper(f, OUT3, id);
}

static fmi3Instance instantiate3(Fmu3 *f, int early)
{
	fmi3Instance c = f->api.instantiate("w3", f->token, f->resources, fmi3False, fmi3False,
	                                    fmi3False, early, NULL, 0, NULL, logger3, NULL);
	assert_non_null(c);
	return c;
}

static fmi3Instance start3(Fmu3 *f, int early)
{
	fmi3Instance c = instantiate3(f, early);
	assert_int_equal(f->api.enter_init(c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(f->api.exit_init(c), fmi3OK);
	return c;
}

static fmi3Status step3(Fmu3 *f, fmi3Instance c, double t, double h, int *early, double *last)
{
	fmi3Boolean event = fmi3True, terminate = fmi3True, er = fmi3True;
	fmi3Status st = f->api.do_step(c, t, h, fmi3False, &event, &terminate, &er, last);
	assert_false(event);
	assert_false(terminate);
	*early = er;
	return st;
}

/* ---- the pass-through against its FMI 2.0 build --------------------------------------------- */

static const char *const in_names[] = {"displacement", "speed", "reaction_force"};
static const char *const out_names[] = {"height", "reaction_torque"};
#define NIN 3
#define NOUT 2
#define NSTEPS 200

typedef struct Pair {
	Fmu3 f3;
	fmi3Instance c3;
	Fmi2Api api2;
	char dir2[PATH_MAX];
	fmi2Component c2;
	unsigned in3[NIN], out3[NOUT], in2[NIN], out2[NOUT];
} Pair;

static void pair_open(Pair *p)
{
	char lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	open3(&p->f3, "passthrough_sa");
	p->c3 = start3(&p->f3, 0);
	unpack(OUT2, "passthrough_sa", p->dir2);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/passthrough_sa.so", p->dir2);
	fmi2_import(&p->api2, lib);
	assert_true(md_attr(p->dir2, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", p->dir2);
	p->c2 = p->api2.instantiate("w2", fmi2CoSimulation, guid, uri, &callbacks2, fmi2False,
	                            fmi2False);
	assert_non_null(p->c2);
	assert_int_equal(p->api2.setup(p->c2, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(p->api2.enter_init(p->c2), fmi2OK);
	assert_int_equal(p->api2.exit_init(p->c2), fmi2OK);
	for (int i = 0; i < NIN; i++) {
		p->in3[i] = vr_of(p->f3.dir, in_names[i]);
		p->in2[i] = vr_of(p->dir2, in_names[i]);
	}
	for (int i = 0; i < NOUT; i++) {
		p->out3[i] = vr_of(p->f3.dir, out_names[i]);
		p->out2[i] = vr_of(p->dir2, out_names[i]);
	}
}

static void pair_close(Pair *p)
{
	assert_int_equal(p->f3.api.terminate(p->c3), fmi3OK);
	p->f3.api.free_instance(p->c3);
	assert_int_equal(p->api2.terminate(p->c2), fmi2OK);
	p->api2.free_instance(p->c2);
	fmi3_unimport(&p->f3.api);
	fmi2_unimport(&p->api2);
}

static void inputs_at(int k, double u[NIN])
{
	u[0] = 0.3 * sin(0.05 * k);
	u[1] = 0.01 * k;
	u[2] = k % 17 == 0 ? 100.0 : 0.0;
}

/* Steps the FMI 3.0 instance from step k0 to k1 with the inputs of inputs_at; out[k] the
 * outputs after step k. */
static void run3(Pair *p, int k0, int k1, double out[][NOUT])
{
	const double h = 0.01;
	for (int k = k0; k < k1; k++) {
		double u[NIN], last;
		int early;
		inputs_at(k, u);
		assert_int_equal(p->f3.api.set_float64(p->c3, p->in3, NIN, u, NIN), fmi3OK);
		assert_int_equal(step3(&p->f3, p->c3, k * h, h, &early, &last), fmi3OK);
		assert_false(early);
		assert_true(last == k * h + h);
		assert_int_equal(p->f3.api.get_float64(p->c3, p->out3, NOUT, out[k], NOUT), fmi3OK);
	}
}

static void passthrough__fmi3_against_fmi2__outputs_bit_identical(void **state)
{
	(void)state;
	Pair p;
	static double o3[NSTEPS][NOUT], o2[NSTEPS][NOUT];
	pair_open(&p);
	run3(&p, 0, NSTEPS, o3);
	for (int k = 0; k < NSTEPS; k++) {
		double u[NIN];
		inputs_at(k, u);
		assert_int_equal(p.api2.set_real(p.c2, p.in2, NIN, u), fmi2OK);
		assert_int_equal(p.api2.do_step(p.c2, k * 0.01, 0.01, fmi2True), fmi2OK);
		assert_int_equal(p.api2.get_real(p.c2, p.out2, NOUT, o2[k]), fmi2OK);
	}
	assert_memory_equal(o3, o2, sizeof o3);
	double t;
	unsigned time_vr = vr_of(p.f3.dir, "time");
	assert_int_equal(p.f3.api.get_float64(p.c3, &time_vr, 1, &t, 1), fmi3OK);
	assert_true(t == (NSTEPS - 1) * 0.01 + 0.01);
	pair_close(&p);
}

static void passthrough__state_get_set_serialize__bit_identical(void **state)
{
	(void)state;
	Pair p;
	static double first[NSTEPS][NOUT], again[NSTEPS][NOUT], back[NSTEPS][NOUT];
	fmi3FMUState s = NULL, s2 = NULL;
	size_t size = 0;
	pair_open(&p);
	Fmi3Api *a = &p.f3.api;
	run3(&p, 0, 50, first);
	assert_int_equal(a->get_state(p.c3, &s), fmi3OK);
	run3(&p, 50, 120, first);
	assert_int_equal(a->set_state(p.c3, s), fmi3OK);
	run3(&p, 50, 120, again);
	assert_memory_equal(first[50], again[50], 70 * sizeof first[0]);

	assert_int_equal(a->serialized_size(p.c3, s, &size), fmi3OK);
	unsigned char *buf = malloc(size), *buf2 = malloc(size);
	assert_int_equal(a->serialize(p.c3, s, buf, size), fmi3OK);
	assert_int_equal(a->deserialize(p.c3, buf, size, &s2), fmi3OK);
	assert_int_equal(a->serialize(p.c3, s2, buf2, size), fmi3OK);
	assert_memory_equal(buf, buf2, size);
	assert_int_equal(a->set_state(p.c3, s2), fmi3OK);
	run3(&p, 50, 120, back);
	assert_memory_equal(first[50], back[50], 70 * sizeof first[0]);
	assert_int_equal(a->free_state(p.c3, &s), fmi3OK);
	assert_int_equal(a->free_state(p.c3, &s2), fmi3OK);
	assert_null(s);
	free(buf);
	free(buf2);
	pair_close(&p);
}

/* ---- the state machine --------------------------------------------------------------------- */

/* st is fmi3Error and the wrapper logged a message holding what. */
static void assert_refused(fmi3Status st, const char *what)
{
	assert_int_equal(st, fmi3Error);
	if (!strstr(logged, what))
		fail_msg("no message with '%s' in:\n%s", what, logged);
	logged[0] = '\0';
}

static void passthrough__calls_in_a_wrong_state__error_with_message(void **state)
{
	(void)state;
	Fmu3 f;
	double v = 0, last;
	int early;
	fmi3Boolean b = fmi3False;
	fmi3Int8 i8 = 0;
	fmi3Boolean flags[6];
	double t;
	open3(&f, "passthrough_sa");
	unsigned out = vr_of(f.dir, "height"), in = vr_of(f.dir, "speed");
	fmi3Instance c = instantiate3(&f, 0);
	logged[0] = '\0';
	assert_refused(step3(&f, c, 0, 0.1, &early, &last),
	               "fmi3DoStep is not allowed in state Instantiated");
	assert_refused(f.api.exit_init(c),
	               "fmi3ExitInitializationMode is not allowed in state Instantiated");
	assert_refused(f.api.get_float64(c, &out, 1, &v, 1),
	               "fmi3GetFloat64 is not allowed in state Instantiated");
	assert_int_equal(f.api.enter_init(c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_refused(f.api.enter_init(c, fmi3False, 0, 0, fmi3False, 0),
	               "fmi3EnterInitializationMode is not allowed in state Initialization Mode");
	assert_refused(f.api.terminate(c), "fmi3Terminate is not allowed in state Initialization "
	               "Mode");
	assert_int_equal(f.api.exit_init(c), fmi3OK);
	assert_refused(f.api.enter_event_mode(c), "no Event Mode");
	assert_refused(f.api.enter_step_mode(c), "fmi3EnterStepMode is not allowed in state Step "
	               "Mode");
	assert_refused(f.api.update_discrete_states(c, &flags[0], &flags[1], &flags[2], &flags[3],
	                                            &flags[4], &t),
	               "fmi3UpdateDiscreteStates is not allowed in state Step Mode");
	assert_refused(f.api.get_int8(c, &out, 1, &i8, 1), "has no Int8 variables");
	assert_refused(f.api.get_boolean(c, &out, 1, &b, 1), "unknown value reference");
	assert_refused(f.api.exit_configuration_mode(c),
	               "fmi3ExitConfigurationMode is not allowed in state Step Mode");
	assert_refused(f.api.set_float64(c, &out, 1, &v, 1), "is an output");
	assert_int_equal(step3(&f, c, 0, 0.1, &early, &last), fmi3OK);
	assert_int_equal(f.api.terminate(c), fmi3OK);
	assert_refused(f.api.set_float64(c, &in, 1, &v, 1),
	               "fmi3SetFloat64 is not allowed in state Terminated");
	assert_refused(step3(&f, c, 0.1, 0.1, &early, &last),
	               "fmi3DoStep is not allowed in state Terminated");
	assert_int_equal(f.api.get_float64(c, &out, 1, &v, 1), fmi3OK);
	assert_int_equal(f.api.reset(c), fmi3OK);
	assert_int_equal(f.api.enter_init(c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	f.api.free_instance(c);
	assert_null(f.api.instantiate("w3", "{wrong}", f.resources, fmi3False, fmi3False,
	                              fmi3False, fmi3False, NULL, 0, NULL, logger3, NULL));
	assert_null(f.api.instantiate_me("w3", f.token, f.resources, fmi3False, fmi3False, NULL,
	                                 logger3));
	assert_non_null(strstr(logged, "Co-Simulation only"));
	fmi3_unimport(&f.api);
}

/* ---- model descriptions -------------------------------------------------------------------- */

static void model_descriptions__pass_fmi3_md_check(void **state)
{
	(void)state;
	const char *const ids[] = {"passthrough_sa", "lower_periodic", "lower_crossing_out",
	                           "lower_crossing", "controller_sa"};
	for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
		char dir[PATH_MAX], cmd[3 * PATH_MAX];
		unpack(OUT3, ids[i], dir);
		snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
		         test_build_dir(), dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* ---- a step cut short by a periodic instant ------------------------------------------------ */

static void periodic__early_return_allowed__returns_early_at_the_instant(void **state)
{
	(void)state;
	Fmu3 f;
	int early;
	double last, x;
	open3(&f, "lower_periodic");
	unsigned xr = vr_of(f.dir, "x"), ur = vr_of(f.dir, "u");
	fmi3Instance c = start3(&f, 1);
	double u = 2.0;
	assert_int_equal(f.api.set_float64(c, &ur, 1, &u, 1), fmi3OK);
	/* The integrator steps at 0.25, 0.75, ...: a step over 0.25 stops there. */
	assert_int_equal(step3(&f, c, 0, 0.5, &early, &last), fmi3OK);
	assert_true(early);
	assert_true(fabs(last - 0.25) < 1e-12);
	assert_int_equal(f.api.get_float64(c, &xr, 1, &x, 1), fmi3OK);
	assert_true(fabs(x - 0.5) < 1e-12);
	assert_int_equal(step3(&f, c, last, 1.0, &early, &last), fmi3OK);
	assert_true(early);
	assert_true(fabs(last - 0.75) < 1e-12);
	assert_int_equal(step3(&f, c, last, 0.25, &early, &last), fmi3OK);
	assert_false(early);
	assert_true(fabs(last - 1.0) < 1e-12);
	f.api.free_instance(c);
	fmi3_unimport(&f.api);
}

static void periodic__early_return_not_allowed__discard_with_last_successful_time(void **state)
{
	(void)state;
	Fmu3 f;
	int early;
	double last;
	open3(&f, "lower_periodic");
	fmi3Instance c = start3(&f, 0);
	logged[0] = '\0';
	assert_int_equal(step3(&f, c, 0, 0.5, &early, &last), fmi3Discard);
	assert_false(early);
	assert_true(fabs(last - 0.25) < 1e-12);
	assert_non_null(strstr(logged, "the control rules took"));
	/* Back at 0: the step to the instant is taken whole. */
	assert_int_equal(step3(&f, c, 0, 0.25, &early, &last), fmi3OK);
	assert_false(early);
	assert_true(last == 0.25);
	f.api.free_instance(c);
	fmi3_unimport(&f.api);
}

/* ---- a step cut short by a crossing -------------------------------------------------------- */

/* lower_crossing_out: x' = u = 2 from 0 crosses 1.0 at t = 0.5; steps of 0.3 from 0.  As
 * FMI 3.0 with early return, the step from 0.3 returns early at the crossing; as FMI 2.0 it
 * is discarded and the importer retries by lastSuccessfulTime - t with the same input: the
 * same times, outputs and hits, bit for bit. */
static void crossing_out__early_return__same_as_fmi2_retry(void **state)
{
	(void)state;
	Fmu3 f;
	Fmi2Api a2;
	char dir2[PATH_MAX], lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	open3(&f, "lower_crossing_out");
	unpack(OUT2, "lower_crossing_out", dir2);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/lower_crossing_out.so", dir2);
	fmi2_import(&a2, lib);
	assert_true(md_attr(dir2, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", dir2);
	fmi2Component c2 = a2.instantiate("w2", fmi2CoSimulation, guid, uri, &callbacks2,
	                                  fmi2False, fmi2False);
	assert_non_null(c2);
	assert_int_equal(a2.setup(c2, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(a2.enter_init(c2), fmi2OK);
	assert_int_equal(a2.exit_init(c2), fmi2OK);
	fmi3Instance c3 = start3(&f, 1);
	unsigned u3 = vr_of(f.dir, "u"), out3[2] = {vr_of(f.dir, "x"), vr_of(f.dir, "hits")};
	unsigned u2 = vr_of(dir2, "u"), out2[2] = {vr_of(dir2, "x"), vr_of(dir2, "hits")};
	double u = 2.0, t3 = 0, t2 = 0, y3[2], y2[2];
	int early_returns = 0;
	assert_int_equal(f.api.set_float64(c3, &u3, 1, &u, 1), fmi3OK);
	assert_int_equal(a2.set_real(c2, &u2, 1, &u), fmi2OK);
	for (int n = 0; n < 6; n++) {
		int early;
		double last;
		assert_int_equal(step3(&f, c3, t3, 0.3, &early, &last), fmi3OK);
		early_returns += early;
		assert_true(early || last == t3 + 0.3);
		t3 = last;
		double h = 0.3;
		fmi2Status st;
		while ((st = a2.do_step(c2, t2, h, fmi2False)) == fmi2Discard) {
			assert_int_equal(a2.get_real_status(c2, fmi2LastSuccessfulTime, &last), fmi2OK);
			h = last - t2;
		}
		assert_int_equal(st, fmi2OK);
		t2 += h;
		assert_true(t3 == t2);
		assert_int_equal(f.api.get_float64(c3, out3, 2, y3, 2), fmi3OK);
		assert_int_equal(a2.get_real(c2, out2, 2, y2), fmi2OK);
		assert_memory_equal(y3, y2, sizeof y3);
	}
	assert_int_equal(early_returns, 1);
	assert_true(y3[1] == 1.0);
	f.api.free_instance(c3);
	a2.free_instance(c2);
	fmi3_unimport(&f.api);
	fmi2_unimport(&a2);
}

/* lower_crossing watches its input `level`, which the importer sets for the end of the
 * step: taken again with the same input, the shorter step is cut again, so the step is
 * discarded (back at t) with the last successful time the second cut's, even with early
 * return allowed. */
static void crossing_of_an_input__early_return_allowed__discard_back_at_t(void **state)
{
	(void)state;
	Fmu3 f;
	int early;
	double last, level = 0.0;
	open3(&f, "lower_crossing");
	unsigned lr = vr_of(f.dir, "level");
	fmi3Instance c = start3(&f, 1);
	assert_int_equal(f.api.set_float64(c, &lr, 1, &level, 1), fmi3OK);
	assert_int_equal(step3(&f, c, 0, 0.5, &early, &last), fmi3OK);
	level = 2.0;
	logged[0] = '\0';
	assert_int_equal(f.api.set_float64(c, &lr, 1, &level, 1), fmi3OK);
	fmi3Status st = step3(&f, c, 0.5, 0.5, &early, &last);
	assert_int_equal(st, fmi3Discard);
	assert_false(early);
	assert_true(last > 0.5 && last < 1.0);
	assert_non_null(strstr(logged, "the state at t is kept"));
	/* Back at 0.5: with `level` set for the proposed instant (the ramp from 0 at 0.5
	 * to 2 at 1.0), the step to it is taken whole. */
	level = 4.0 * (last - 0.5);
	assert_int_equal(f.api.set_float64(c, &lr, 1, &level, 1), fmi3OK);
	assert_int_equal(step3(&f, c, 0.5, last - 0.5, &early, &last), fmi3OK);
	assert_false(early);
	f.api.free_instance(c);
	fmi3_unimport(&f.api);
}

/* ---- Booleans -------------------------------------------------------------------------------- */

/* controller_sa's buttons are Bool inputs: set through fmi3SetBoolean, its outputs follow
 * as the FMI 2.0 build's do through fmi2SetBoolean, bit for bit. */
static void controller_sa__buttons_as_booleans__same_as_fmi2(void **state)
{
	(void)state;
	Fmu3 f;
	Fmi2Api a2;
	char dir2[PATH_MAX], lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	open3(&f, "controller_sa");
	unpack(OUT2, "controller_sa", dir2);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/controller_sa.so", dir2);
	fmi2_import(&a2, lib);
	assert_true(md_attr(dir2, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", dir2);
	fmi2Component c2 = a2.instantiate("w2", fmi2CoSimulation, guid, uri, &callbacks2,
	                                  fmi2False, fmi2False);
	assert_non_null(c2);
	assert_int_equal(a2.setup(c2, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(a2.enter_init(c2), fmi2OK);
	assert_int_equal(a2.exit_init(c2), fmi2OK);
	fmi3Instance c3 = start3(&f, 0);
	const char *buttons[] = {"driver_up", "driver_down", "passenger_stop"};
	unsigned b3[3], b2[3];
	for (int i = 0; i < 3; i++) {
		b3[i] = vr_of(f.dir, buttons[i]);
		b2[i] = vr_of(dir2, buttons[i]);
	}
	unsigned y3[2] = {vr_of(f.dir, "u"), vr_of(f.dir, "d")};
	unsigned y2[2] = {vr_of(dir2, "u"), vr_of(dir2, "d")};
	unsigned i3 = vr_of(f.dir, "armature_current"), i2 = vr_of(dir2, "armature_current");
	for (int k = 0; k < 60; k++) {
		fmi3Boolean on3[3] = {k >= 5 && k < 30, k >= 40, k == 50}, back[3];
		fmi2Boolean on2[3] = {on3[0], on3[1], on3[2]};
		double cur = 1.0, v3[2], v2[2];
		int early;
		double last;
		assert_int_equal(f.api.set_boolean(c3, b3, 3, on3, 3), fmi3OK);
		assert_int_equal(f.api.get_boolean(c3, b3, 3, back, 3), fmi3OK);
		assert_memory_equal(on3, back, sizeof on3);
		assert_int_equal(f.api.set_float64(c3, &i3, 1, &cur, 1), fmi3OK);
		assert_int_equal(step3(&f, c3, k * 0.01, 0.01, &early, &last), fmi3OK);
		assert_int_equal(f.api.get_float64(c3, y3, 2, v3, 2), fmi3OK);
		assert_int_equal(a2.set_boolean(c2, b2, 3, on2), fmi2OK);
		assert_int_equal(a2.set_real(c2, &i2, 1, &cur), fmi2OK);
		assert_int_equal(a2.do_step(c2, k * 0.01, 0.01, fmi2True), fmi2OK);
		assert_int_equal(a2.get_real(c2, y2, 2, v2), fmi2OK);
		assert_memory_equal(v3, v2, sizeof v3);
	}
	/* A Boolean's value reference is no Int32's. */
	fmi3Int32 n = 0;
	logged[0] = '\0';
	assert_int_equal(f.api.get_int32(c3, b3, 1, &n, 1), fmi3Error);
	assert_non_null(strstr(logged, "fmi3GetInt32: unknown value reference"));
	f.api.free_instance(c3);
	a2.free_instance(c2);
	fmi3_unimport(&f.api);
	fmi2_unimport(&a2);
}

/* ---- what a wrapper exports ------------------------------------------------------------------ */

/* Whether name is one of names[0..n). */
static int listed(const char *name, const char *const names[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

#define NAMES(a) (a), sizeof(a) / sizeof *(a)

/* The functions the library at lib exports (nm -D --defined-only: code, "T"), checked
 * against the project's header lists (fmi_strict.h has them from fmi2Functions.h and
 * fmi3Functions.h): every function of the FMU's FMI version is there, and no other FMI
 * function, of either version. */
static void assert_exports(const char *lib, int version)
{
	char cmd[PATH_MAX + 64], line[512], addr[64], type[8], name[256];
	size_t found = 0, expected;
	snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", lib);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof line, p)) {
		if (sscanf(line, "%63s %7s %255s", addr, type, name) != 3 || strcmp(type, "T") != 0 ||
		    strncmp(name, "fmi", 3) != 0)
			continue;
		int ok = version == 3 ? listed(name, NAMES(fmi3_all_names))
		                      : listed(name, NAMES(fmi2_common_names)) ||
		                                listed(name, NAMES(fmi2_me_names)) ||
		                                listed(name, NAMES(fmi2_cs_names));
		if (!ok)
			fail_msg("%s exports %s, no FMI %d.0 function", lib, name, version);
		found++;
	}
	assert_int_equal(pclose(p), 0);
	expected = version == 3 ? sizeof fmi3_all_names / sizeof *fmi3_all_names
	                        : sizeof fmi2_common_names / sizeof *fmi2_common_names +
	                                  sizeof fmi2_me_names / sizeof *fmi2_me_names +
	                                  sizeof fmi2_cs_names / sizeof *fmi2_cs_names;
	/* nm lists each symbol once, so as many as the lists hold means all of them. */
	assert_int_equal(found, expected);
}

static void wrappers__exports__every_function_of_the_headers_and_no_other(void **state)
{
	(void)state;
	char dir[PATH_MAX], lib[2 * PATH_MAX];
	/* The standard's headers declare 75 FMI 3.0 functions and 44 FMI 2.0 ones. */
	assert_int_equal(sizeof fmi3_all_names / sizeof *fmi3_all_names, 75);
	assert_int_equal(sizeof fmi2_common_names / sizeof *fmi2_common_names +
	                 sizeof fmi2_me_names / sizeof *fmi2_me_names +
	                 sizeof fmi2_cs_names / sizeof *fmi2_cs_names, 44);
	const char *const ids3[] = {"passthrough_sa", "controller_sa"};
	for (size_t i = 0; i < sizeof ids3 / sizeof *ids3; i++) {
		unpack(OUT3, ids3[i], dir);
		snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/%s.so", dir, ids3[i]);
		assert_exports(lib, 3);
	}
	unpack(OUT2, "passthrough_sa", dir);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/passthrough_sa.so", dir);
	assert_exports(lib, 2);
}

/* What an FMI 2.0 instance logged last, formatted. */
static char logged2[1024];

static void capture2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                     fmi2String category, fmi2String message, ...)
{
	va_list ap;
	(void)env, (void)name, (void)status, (void)category;
	va_start(ap, message);
	vsnprintf(logged2, sizeof logged2, message, ap);
	va_end(ap);
}

static void passthrough__other_interfaces__refused_naming_the_function(void **state)
{
	(void)state;
	Fmu3 f;
	fmi3Boolean enter_event = fmi3True, terminate = fmi3True;
	double x[2] = {1, 2};
	size_t n = 7;
	int early;
	double last;
	open3(&f, "passthrough_sa");
	fmi3Instance c = instantiate3(&f, 0);
	logged[0] = '\0';
	assert_refused(f.api.set_time(c, 1.0),
	               "fmi3SetTime: passthrough_sa supports Co-Simulation only");
	assert_refused(f.api.enter_continuous_time_mode(c),
	               "fmi3EnterContinuousTimeMode: passthrough_sa supports Co-Simulation only");
	assert_refused(f.api.completed_integrator_step(c, fmi3True, &enter_event, &terminate),
	               "fmi3CompletedIntegratorStep: passthrough_sa supports Co-Simulation only");
	assert_refused(f.api.get_number_of_continuous_states(c, &n),
	               "fmi3GetNumberOfContinuousStates: passthrough_sa supports Co-Simulation");
	assert_int_equal(n, 7);
	assert_refused(f.api.activate_model_partition(c, 0, 0.0),
	               "fmi3ActivateModelPartition: passthrough_sa supports Co-Simulation only");
	/* The instance is unharmed: it initializes and steps. */
	assert_int_equal(f.api.enter_init(c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(f.api.exit_init(c), fmi3OK);
	assert_int_equal(step3(&f, c, 0, 0.1, &early, &last), fmi3OK);
	f.api.free_instance(c);
	assert_null(f.api.instantiate_se("w3", f.token, f.resources, fmi3False, fmi3False, NULL,
	                                 logger3, NULL, NULL, NULL));
	assert_contains(logged, "fmi3InstantiateScheduledExecution: passthrough_sa supports "
	                        "Co-Simulation only");
	fmi3_unimport(&f.api);

	/* The FMI 2.0 build: its Model Exchange functions the same. */
	Fmi2Api a2;
	char dir2[PATH_MAX], lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	unpack(OUT2, "passthrough_sa", dir2);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/passthrough_sa.so", dir2);
	fmi2_import(&a2, lib);
	assert_true(md_attr(dir2, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", dir2);
	const fmi2CallbackFunctions cb = {capture2, calloc, free, NULL, NULL};
	fmi2Component c2 = a2.instantiate("w2", fmi2CoSimulation, guid, uri, &cb, fmi2False,
	                                  fmi2False);
	assert_non_null(c2);
	fmi2SetTimeTYPE *set_time;
	fmi2GetContinuousStatesTYPE *get_states;
	void *sym = dlsym(a2.lib, "fmi2SetTime");
	memcpy(&set_time, &sym, sizeof sym);
	sym = dlsym(a2.lib, "fmi2GetContinuousStates");
	memcpy(&get_states, &sym, sizeof sym);
	assert_non_null(set_time);
	assert_non_null(get_states);
	assert_int_equal(set_time(c2, 1.0), fmi2Error);
	assert_contains(logged2, "fmi2SetTime: passthrough_sa supports Co-Simulation only");
	assert_int_equal(get_states(c2, x, 2), fmi2Error);
	assert_contains(logged2, "fmi2GetContinuousStates: passthrough_sa supports Co-Simulation "
	                         "only");
	assert_int_equal(a2.setup(c2, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(a2.enter_init(c2), fmi2OK);
	assert_int_equal(a2.exit_init(c2), fmi2OK);
	assert_int_equal(a2.do_step(c2, 0, 0.1, fmi2True), fmi2OK);
	a2.free_instance(c2);
	fmi2_unimport(&a2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(passthrough__fmi3_against_fmi2__outputs_bit_identical),
		cmocka_unit_test(passthrough__state_get_set_serialize__bit_identical),
		cmocka_unit_test(passthrough__calls_in_a_wrong_state__error_with_message),
		cmocka_unit_test(model_descriptions__pass_fmi3_md_check),
		cmocka_unit_test(periodic__early_return_allowed__returns_early_at_the_instant),
		cmocka_unit_test(periodic__early_return_not_allowed__discard_with_last_successful_time),
		cmocka_unit_test(crossing_out__early_return__same_as_fmi2_retry),
		cmocka_unit_test(crossing_of_an_input__early_return_allowed__discard_back_at_t),
		cmocka_unit_test(controller_sa__buttons_as_booleans__same_as_fmi2),
		cmocka_unit_test(wrappers__exports__every_function_of_the_headers_and_no_other),
		cmocka_unit_test(passthrough__other_interfaces__refused_naming_the_function),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
