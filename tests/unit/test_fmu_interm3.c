/* test_fmu_interm3.c — interm3 (tests/fmus3/interm3), the FMU that asks for its input at
 * internal points and returns early at an event, through the suite's strict FMI 3.0
 * importer: what an importer's intermediate update callback sees and may do there, and the
 * values of x that follow, derived by hand.  The runtime's handling of intermediate updates
 * is measured against these. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fmi3_importer.h"
#include "assert_close.h"
#include "assert_contains.h"

#define TOKEN "{e2b94c17-0d6a-4f85-b3e9-5a7c1d80f462}"
enum { VR_U = 1, VR_X, VR_DT, VR_LEVEL, VR_HIT, VR_T_HIT, VR_NSUB };

typedef struct Imp Imp;
struct Imp {
	Fmi3Api api;
	fmi3Instance c;
	char last_error[512];
	/* what the callback does: set u = slope * tau, ask to return early after early_after */
	int set_u;
	double slope;
	double early_after;
	/* what it saw */
	int calls, set_requested, get_allowed, can_return;
	double x_at_03;
	fmi3Status cb_status; /* the worst status of the calls it made */
};

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                   fmi3String message)
{
	Imp *m = env;
	if (status >= fmi3Error)
		snprintf(m->last_error, sizeof m->last_error, "[%s] %s", category, message);
}

static void update(fmi3InstanceEnvironment env, fmi3Float64 tau, fmi3Boolean set_requested,
                   fmi3Boolean get_allowed, fmi3Boolean finished, fmi3Boolean can_return_early,
                   fmi3Boolean *early, fmi3Float64 *when)
{
	Imp *m = env;
	fmi3ValueReference x = VR_X, u = VR_U;
	fmi3Float64 xv = NAN;
	fmi3Status st;
	(void)finished;
	m->calls++;
	m->set_requested += set_requested != 0;
	m->get_allowed += get_allowed != 0;
	m->can_return += can_return_early != 0;
	st = m->api.get_float64(m->c, &x, 1, &xv, 1); /* gets come first */
	m->cb_status = st > m->cb_status ? st : m->cb_status;
	if (fabs(tau - 0.3) < 1e-9)
		m->x_at_03 = xv;
	if (m->set_u && set_requested) {
		fmi3Float64 v = m->slope * tau;
		st = m->api.set_float64(m->c, &u, 1, &v, 1);
		m->cb_status = st > m->cb_status ? st : m->cb_status;
	}
	*early = can_return_early && tau > m->early_after;
	*when = tau;
}

static void imp_open(Imp *m, int event_mode, int early_return, size_t nrequired)
{
	char path[512];
	static const fmi3ValueReference required[] = {VR_U, VR_X};
	memset(m, 0, sizeof *m);
	m->early_after = INFINITY;
	fmi3_library_path(path, sizeof path, build_dir(), "interm3");
	fmi3_import(&m->api, path);
	m->c = m->api.instantiate("i3", TOKEN, NULL, fmi3False, fmi3False,
	                          event_mode ? fmi3True : fmi3False,
	                          early_return ? fmi3True : fmi3False, required, nrequired, m, logger,
	                          update);
	assert_non_null(m->c);
}

static void imp_start(Imp *m, double level)
{
	fmi3ValueReference lv = VR_LEVEL;
	assert_int_equal(m->api.set_float64(m->c, &lv, 1, &level, 1), fmi3OK);
	assert_int_equal(m->api.enter_init(m->c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(m->api.exit_init(m->c), fmi3OK);
}

static void imp_close(Imp *m)
{
	m->api.free_instance(m->c);
	fmi3_unimport(&m->api);
}

/* One fmi3UpdateDiscreteStates in Event Mode (interm3 settles in one pass). */
static void update_discrete(Imp *m)
{
	fmi3Boolean again, term, nominals, values, has_next;
	fmi3Float64 next;
	assert_int_equal(m->api.update_discrete_states(m->c, &again, &term, &nominals, &values,
	                                               &has_next, &next), fmi3OK);
	assert_false(again);
}

static fmi3Float64 real(Imp *m, fmi3ValueReference vr)
{
	fmi3Float64 v = NAN;
	assert_int_equal(m->api.get_float64(m->c, &vr, 1, &v, 1), fmi3OK);
	return v;
}

static void set_u(Imp *m, double v)
{
	fmi3ValueReference u = VR_U;
	assert_int_equal(m->api.set_float64(m->c, &u, 1, &v, 1), fmi3OK);
}

typedef struct StepOut {
	fmi3Boolean event, terminate, early;
	fmi3Float64 last;
} StepOut;

static fmi3Status step(Imp *m, double t, double h, StepOut *o)
{
	return m->api.do_step(m->c, t, h, fmi3False, &o->event, &o->terminate, &o->early, &o->last);
}

static void interm3__inputs_set_at_internal_points__x_is_their_left_riemann_sum(void **st)
{
	Imp m;
	StepOut o;
	(void)st;
	imp_open(&m, 0, 0, 2);
	m.set_u = 1;
	m.slope = 2.0;
	imp_start(&m, 1e300);
	/* u = 2 t, set at 0 and 0.5 by the importer and at every internal point 0.1 .. 0.4,
	 * 0.6 .. 0.9 in the callback: x(1) = sum over k = 0..9 of 0.1 * 2 * 0.1 k = 0.9; at 0.3
	 * (before that internal step) 0.02 (0 + 1 + 2) = 0.06 */
	set_u(&m, 0.0);
	assert_int_equal(step(&m, 0.0, 0.5, &o), fmi3OK);
	set_u(&m, 1.0);
	assert_int_equal(step(&m, 0.5, 0.5, &o), fmi3OK);
	assert_close(real(&m, VR_X), 0.9, 1e-12);
	assert_close(m.x_at_03, 0.06, 1e-12);
	assert_int_equal(m.calls, 8);
	assert_int_equal(m.set_requested, 8);
	assert_int_equal(m.get_allowed, 8);
	assert_int_equal(m.can_return, 0); /* early return not allowed */
	assert_int_equal(m.cb_status, fmi3OK);
	imp_close(&m);
}

static void interm3__inputs_not_set__held_over_each_step(void **st)
{
	Imp m;
	StepOut o;
	(void)st;
	imp_open(&m, 0, 0, 2);
	imp_start(&m, 1e300);
	/* u held: 0 over [0, 0.5], 1 over [0.5, 1]: x(1) = 0.5 */
	set_u(&m, 0.0);
	assert_int_equal(step(&m, 0.0, 0.5, &o), fmi3OK);
	set_u(&m, 1.0);
	assert_int_equal(step(&m, 0.5, 0.5, &o), fmi3OK);
	assert_close(real(&m, VR_X), 0.5, 1e-12);
	imp_close(&m);
}

static void interm3__variables_not_required__refused_in_the_callback(void **st)
{
	Imp m;
	StepOut o;
	static const fmi3ValueReference dt = VR_DT;
	(void)st;
	imp_open(&m, 0, 0, 0);
	m.set_u = 1;
	m.slope = 1.0;
	imp_start(&m, 1e300);
	assert_int_equal(step(&m, 0.0, 0.5, &o), fmi3OK);
	assert_int_equal(m.cb_status, fmi3Error);
	assert_contains(m.last_error, "fmi3SetFloat64: variable 'u' is not among the requiredIntermediateVariables");
	/* and a parameter cannot be required */
	assert_null(m.api.instantiate("i3b", TOKEN, NULL, fmi3False, fmi3False, fmi3False,
	                              fmi3False, &dt, 1, &m, logger, update));
	assert_contains(m.last_error, "is not one of this FMU's intermediate variables");
	imp_close(&m);
}

static void interm3__early_return_requested__step_ends_at_that_point(void **st)
{
	Imp m;
	StepOut o;
	(void)st;
	imp_open(&m, 0, 1, 2);
	m.early_after = 0.35;
	imp_start(&m, 1e300);
	set_u(&m, 1.0);
	/* internal points 0.1 0.2 0.3 0.4: the first after 0.35 is 0.4, x = 0.4 there */
	assert_int_equal(step(&m, 0.0, 1.0, &o), fmi3OK);
	assert_true(o.early);
	assert_false(o.event);
	assert_close(o.last, 0.4, 1e-12);
	assert_close(real(&m, VR_X), 0.4, 1e-12);
	assert_int_equal(m.can_return, 4);
	imp_close(&m);
}

static void interm3__level_reached__early_return_and_event_mode_there(void **st)
{
	Imp m;
	StepOut o;
	fmi3ValueReference hit = VR_HIT;
	fmi3Boolean hv = fmi3False;
	(void)st;
	imp_open(&m, 1, 1, 2);
	imp_start(&m, 0.55);
	update_discrete(&m);
	assert_int_equal(m.api.enter_step_mode(m.c), fmi3OK);
	set_u(&m, 1.0);
	/* x = t reaches 0.55 inside the internal step [0.5, 0.6] */
	assert_int_equal(step(&m, 0.0, 1.0, &o), fmi3OK);
	assert_true(o.early);
	assert_true(o.event);
	assert_close(o.last, 0.55, 1e-12);
	assert_int_equal(m.api.enter_event_mode(m.c), fmi3OK);
	update_discrete(&m);
	assert_int_equal(m.api.get_boolean(m.c, &hit, 1, &hv, 1), fmi3OK);
	assert_true(hv);
	assert_close(real(&m, VR_T_HIT), 0.55, 1e-12);
	imp_close(&m);
}

static void interm3__level_reached_without_early_return__event_at_the_step_end(void **st)
{
	Imp m;
	StepOut o;
	(void)st;
	imp_open(&m, 1, 0, 2);
	imp_start(&m, 0.55);
	update_discrete(&m);
	assert_int_equal(m.api.enter_step_mode(m.c), fmi3OK);
	set_u(&m, 1.0);
	/* the step goes on to 1 (x = 1), asking for Event Mode there, where t_hit is 0.55 */
	assert_int_equal(step(&m, 0.0, 1.0, &o), fmi3OK);
	assert_false(o.early);
	assert_true(o.event);
	assert_close(real(&m, VR_X), 1.0, 1e-12);
	assert_int_equal(m.api.enter_event_mode(m.c), fmi3OK);
	update_discrete(&m);
	assert_close(real(&m, VR_T_HIT), 0.55, 1e-12);
	imp_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interm3__inputs_set_at_internal_points__x_is_their_left_riemann_sum),
		cmocka_unit_test(interm3__inputs_not_set__held_over_each_step),
		cmocka_unit_test(interm3__variables_not_required__refused_in_the_callback),
		cmocka_unit_test(interm3__early_return_requested__step_ends_at_that_point),
		cmocka_unit_test(interm3__level_reached__early_return_and_event_mode_there),
		cmocka_unit_test(interm3__level_reached_without_early_return__event_at_the_step_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
