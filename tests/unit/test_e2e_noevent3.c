/* test_e2e_noevent3.c — an FMI 3.0 Co-Simulation FMU that declares hasEventMode but refuses
 * eventModeUsed (noevent3, as the models without events of some exporters' frameworks
 * behave): `sacc simulate` runs it, and an FMI 3.0 wrapper built over it
 * (tests/e2e3/noevent3_sa.sa) steps it, each after a warning that the FMU was instantiated
 * without Event Mode.
 *
 * The reference is noevent3's exact solution: x' = -k (x - u) with k = 2, x(0) = 1 and u held,
 * so x(t) = u + (1 - u) exp(-2 t).
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "csv.h"
#include "e2e_fmi3.h"
#include "assert_contains.h"
#include "simulate_test.h"

#define K 2.0
#define H 0.1
#define NSTEPS 20
#define REFUSED "refused Event Mode (Event Mode is not supported); instantiated without it"

static double exact(double t, double u)
{
	return u + (1.0 - u) * exp(-K * t);
}

static void assert_near(double got, double want, const char *what, int k)
{
	if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want))))
		fail_msg("%s at step %d: %.17g, want %.17g", what, k, got, want);
}

static int setup(void **state)
{
	return sim_setup(state, "test_e2e_noevent3");
}

/* ---- sacc simulate -------------------------------------------------------------------------- */

static void simulate__fmu_refusing_event_mode__runs_without_it(void **state)
{
	Ctx *c = *state;
	char args[1024], err[256];
	snprintf(args, sizeof args, "'%s/fmus3/noevent3.fmu' -o '%s'", test_build_dir(),
	         path_in(c, "out.csv"));
	int rc = simulate(c, args);
	char *text = file_in(c, "err.txt");
	if (rc != 0)
		fail_msg("exit %d:\n%s", rc, text);
	assert_contains(text, REFUSED);
	free(text);
	CsvTable *t = csv_read(path_in(c, "out.csv"), err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	int col = csv_column(t, "noevent3.x");
	assert_true(col > 0);
	assert_int_equal(t->nrows, NSTEPS + 1); /* the DefaultExperiment: 0 to 2 by 0.1 */
	for (size_t r = 0; r < t->nrows; r++) {
		const double *row = t->data + r * t->ncols;
		assert_near(row[col], exact(row[0], 0.0), "noevent3.x", (int)r);
	}
	assert_near(t->data[NSTEPS * t->ncols], 2.0, "the last time", NSTEPS);
	csv_free(t);
}

/* ---- a wrapper over it ---------------------------------------------------------------------- */

static void build_decayw(int version, const char *sub)
{
	static char diag[16384];
	BuildOptions o = {version, NULL, "fmus3", NULL, false};
	if (build_with("tests/e2e3/noevent3_sa.sa", sub, o, diag, sizeof diag) != 0)
		fail_msg("%s", diag);
}

static void wrapper3__inner_refusing_event_mode__steps_it_exactly(void **state)
{
	(void)state;
	build_decayw(3, "e2e-noevent3/fmi3");
	Fmu3 f;
	fmu3_open_wrapper(&f, "e2e-noevent3/fmi3", "decayw");
	logged[0] = '\0';
	f.c = f.api.instantiate("w", f.token, f.resources, fmi3False, fmi3False, fmi3False,
	                        fmi3False, NULL, 0, NULL, logger3, NULL);
	if (!f.c)
		fail_msg("the wrapper was not instantiated:\n%s", logged);
	assert_contains(logged, REFUSED); /* the inner is made with the wrapper */
	fmu3_init(&f);
	const fmi3ValueReference u = vr_of(f.dir, "u"), x = vr_of(f.dir, "x");
	const fmi3Float64 half = 0.5;
	assert_int_equal(f.api.set_float64(f.c, &u, 1, &half, 1), fmi3OK);
	for (int k = 1; k <= NSTEPS; k++) {
		fmi3Float64 got;
		assert_int_equal(fmu3_step(&f, (k - 1) * H, H), fmi3OK);
		assert_int_equal(f.api.get_float64(f.c, &x, 1, &got, 1), fmi3OK);
		assert_near(got, exact(k * H, 0.5), "x", k);
	}
	assert_int_equal(f.api.terminate(f.c), fmi3OK);
	fmu3_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(simulate__fmu_refusing_event_mode__runs_without_it,
		                                setup, teardown),
		cmocka_unit_test(wrapper3__inner_refusing_event_mode__steps_it_exactly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
