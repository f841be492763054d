/* test_sart_interm3.c — the seam's handling of an FMI 3.0 inner's intermediate updates
 * (runtime/sart_inner_fmi3.c) against interm3 (tests/fmus3/interm3), whose x is the left
 * Riemann sum of its input u over an internal grid of 0.1: the values x takes tell which
 * inputs the seam gave inside each step.  Expected values are derived by hand beside each
 * assertion; test_fmu_interm3.c checks the FMU itself against the same derivations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"
#include "sart_inner.h"
#include "assert_contains.h"

#define INTERM3_TOKEN "{e2b94c17-0d6a-4f85-b3e9-5a7c1d80f462}"
enum { VR_U = 1, VR_X, VR_DT, VR_LEVEL, VR_HIT, VR_T_HIT, VR_NSUB };

typedef struct Log {
	char all[4096];
} Log;

static void capture(void *env, SartStatus st, const char *category, const char *message)
{
	Log *l = env;
	size_t used = strlen(l->all);
	(void)st;
	snprintf(l->all + used, sizeof l->all - used, "%s: %s\n", category, message);
}

/* interm3 loaded; its intermediate input u handed to the seam when intermediate is set. */
static SartInner *load(Log *log, int intermediate)
{
	char dir[512];
	static const SartVr u = VR_U;
	snprintf(dir, sizeof dir, "%s/fmus3/interm3", test_build_dir());
	SartInnerConfig cfg = {"i3", dir, "interm3", SART_FMI3, SART_CAP_GET_SET_STATE, capture, log,
	                       NULL, 0, NULL, 0, {0}, {NULL, 0}};
	SartInner *in = NULL;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_OK);
	if (intermediate)
		assert_int_equal(sart_inner_set_intermediate_inputs(in, &u, 1), SART_OK);
	assert_int_equal(sart_inner_instantiate(in, INTERM3_TOKEN, 0), SART_OK);
	SartExperiment ex = {0, 0, 0.0, 0, 0};
	assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
	return in;
}

static double get_x(SartInner *in)
{
	const SartVr x = VR_X;
	double v = NAN;
	assert_int_equal(sart_inner_get_real(in, &x, 1, &v), SART_OK);
	return v;
}

/* Sets u = v at t and steps to t + h. */
static void step_with(SartInner *in, double t, double h, const double *v)
{
	const SartVr u = VR_U;
	double reached = NAN;
	if (v)
		assert_int_equal(sart_inner_set_real(in, &u, 1, v), SART_OK);
	assert_int_equal(sart_inner_do_step(in, t, h, 0, &reached), SART_OK);
	assert_close(reached, t + h, 1e-15);
}

static void sart_interm3__ramp__extrapolated_inside_steps_once_two_starts_are_known(void **st)
{
	Log log = {{0}};
	SartInner *in = load(&log, 1);
	const double u0 = 0.0, u1 = 1.0, u2 = 2.0;
	(void)st;
	/* u = 2 t given at the step starts 0, 0.5, 1, internal grid 0.1:
	 *   [0, 0.5]: one start known, u held at 0: x = 0
	 *   [0.5, 1]: slope (1 - 0) / 0.5 = 2, so u = 2 tau, exact: x += 0.02 (5+6+7+8+9) = 0.7
	 *   [1, 1.5]: still exact: x += 0.02 (10+11+12+13+14) = 1.2, x = 1.9 */
	step_with(in, 0.0, 0.5, &u0);
	assert_close(get_x(in), 0.0, 1e-12);
	step_with(in, 0.5, 0.5, &u1);
	assert_close(get_x(in), 0.7, 1e-12);
	step_with(in, 1.0, 0.5, &u2);
	assert_close(get_x(in), 1.9, 1e-12);
	assert_string_equal(log.all, "");
	sart_inner_free(in);
}

static void sart_interm3__input_not_set_again__step_starts_from_the_callers_value(void **st)
{
	Log log = {{0}};
	SartInner *in = load(&log, 1);
	const double u0 = 0.0, u1 = 1.0;
	(void)st;
	/* As above to 1 (x = 0.7; the FMU's u left at 2 * 0.9 = 1.8).  Not set at 1, u is the
	 * caller's 1 again and the last two starts (0.5: 1, 1: 1) give slope 0: x += 0.5 */
	step_with(in, 0.0, 0.5, &u0);
	step_with(in, 0.5, 0.5, &u1);
	step_with(in, 1.0, 0.5, NULL);
	assert_close(get_x(in), 1.2, 1e-12);
	sart_inner_free(in);
}

static void sart_interm3__without_the_list__inputs_held_over_each_step(void **st)
{
	Log log = {{0}};
	SartInner *in = load(&log, 0);
	const double u0 = 0.0, u1 = 1.0, u2 = 2.0;
	(void)st;
	/* the FMU is never given u inside a step: x = 0.5 (0 + 1 + 2) = 1.5 */
	step_with(in, 0.0, 0.5, &u0);
	step_with(in, 0.5, 0.5, &u1);
	step_with(in, 1.0, 0.5, &u2);
	assert_close(get_x(in), 1.5, 1e-12);
	sart_inner_free(in);
}

static void sart_interm3__restored_state__history_kept_before_it_only(void **st)
{
	Log log = {{0}};
	SartInner *in = load(&log, 1);
	const double u0 = 0.0, u1 = 1.0, u3 = 3.0;
	void *at0 = NULL, *at05 = NULL;
	(void)st;
	assert_int_equal(sart_inner_get_state(in, &at0), SART_OK);
	step_with(in, 0.0, 0.5, &u0);
	assert_int_equal(sart_inner_get_state(in, &at05), SART_OK);
	step_with(in, 0.5, 0.5, &u1);
	/* Again from 0.5 with u 3: the start at 0 (u 0) still precedes it, so slope 6 and
	 * u = 3 + 6 (tau - 0.5): x = 0 + 0.1 (5 * 3 + 0.6 (0+1+2+3+4)) = 2.1 */
	assert_int_equal(sart_inner_set_state(in, at05), SART_OK);
	step_with(in, 0.5, 0.5, &u3);
	assert_close(get_x(in), 2.1, 1e-12);
	/* Back to 0: nothing precedes it, u held at the caller's 3: x = 0.5 * 3 */
	assert_int_equal(sart_inner_set_state(in, at0), SART_OK);
	step_with(in, 0.0, 0.5, &u3);
	assert_close(get_x(in), 1.5, 1e-12);
	assert_int_equal(sart_inner_free_state(in, &at0), SART_OK);
	assert_int_equal(sart_inner_free_state(in, &at05), SART_OK);
	sart_inner_free(in);
}

static void sart_interm3__list_after_instantiation__refused(void **st)
{
	Log log = {{0}};
	SartInner *in = load(&log, 0);
	const SartVr u = VR_U;
	(void)st;
	assert_int_equal(sart_inner_set_intermediate_inputs(in, &u, 1), SART_ERROR);
	assert_contains(log.all, "[i3] sart_inner_set_intermediate_inputs: the instance exists "
	                         "already");
	sart_inner_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sart_interm3__ramp__extrapolated_inside_steps_once_two_starts_are_known),
		cmocka_unit_test(sart_interm3__input_not_set_again__step_starts_from_the_callers_value),
		cmocka_unit_test(sart_interm3__without_the_list__inputs_held_over_each_step),
		cmocka_unit_test(sart_interm3__restored_state__history_kept_before_it_only),
		cmocka_unit_test(sart_interm3__list_after_instantiation__refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
