/* test_e2e_interm3.c — wrappers over interm3 (tests/fmus3/interm3), the FMI 3.0 FMU whose
 * internal steps ask for their input: tests/e2e3/interm3_sa.sa built as FMI 3.0 and 2.0 (and
 * as 3.0 with its inner out of process) and run by `sacc simulate` as a user would.  The wrapper's runtime gives the inner its input
 * inside each step as `sacc simulate` gives the bare FMU (extrapolated from the last two
 * step starts), and an FMI 3.0 wrapper passes the inner's early return at an event on.  The
 * values are derived by hand beside each assertion (x is the left Riemann sum of u over the
 * inner's internal grid of 0.1), the same as test_simulate_interm3.c asserts of the bare
 * FMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "sacc_test.h"
#include "csv.h"

#include "assert_contains.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_e2e_interm3");
}

/* The wrapper built as FMI 2.0 (variant 2), 3.0 (3) or 3.0 with its inner out of process
 * (4) into the scratch directory: its path. */
static const char *build_wrapper(Ctx *c, int variant)
{
	static char fmu[600];
	const char *b = test_build_dir();
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' '%s/sacc' build -L '%s/fmus3' --fmi %d %s-o '%s/w%d' "
	         "tests/e2e3/interm3_sa.sa >'%s/build.txt' 2>&1", c->tmp, b, b,
	         variant == 2 ? 2 : 3, variant == 4 ? "--isolate all " : "", c->dir, variant,
	         c->dir);
	if (system(c->cmd) != 0) {
		char *log = file_in(c, "build.txt");
		fail_msg("sacc build (variant %d) failed:\n%s", variant, log);
	}
	snprintf(fmu, sizeof fmu, "%s/w%d/interm3w.fmu", c->dir, variant);
	return fmu;
}

static void e2e_interm3__ramp__inner_given_its_input_inside_steps(void **state)
{
	Ctx *c = *state;
	char args[2048];
	write_text(c, "ramp.csv", "time,u\n0,0\n2,4\n");
	for (int variant = 2; variant <= 4; variant++) {
		const char *fmu = build_wrapper(c, variant);
		snprintf(args, sizeof args, "'%s' --input '%s' --step 0.5 --stop 1.5 -o '%s'", fmu,
		         path_in(c, "ramp.csv"), path_in(c, "out.csv"));
		assert_int_equal(simulate(c, args), 0);
		/* u = 2 t set by the wrapper at 0, 0.5, 1; inside the inner's steps u held at 0
		 * over the first (one start known), then 2 tau, exact: x = 0, 0.7, 1.9 (held over
		 * each step it would be 0, 0.5, 1.5) */
		assert_cell(path_in(c, "out.csv"), "interm3w.x", 1, 0.0);
		assert_cell(path_in(c, "out.csv"), "interm3w.x", 2, 0.7);
		assert_cell(path_in(c, "out.csv"), "interm3w.x", 3, 1.9);
	}
}

static void e2e_interm3__event__fmi3_wrapper_returns_early_fmi2_steps_through(void **state)
{
	Ctx *c = *state;
	char args[2048];
	write_text(c, "one.csv", "time,u\n0,1\n");
	for (int variant = 2; variant <= 4; variant++) {
		const char *fmu = build_wrapper(c, variant);
		snprintf(args, sizeof args, "'%s' --input '%s' --set interm3w.i3.level=0.55 "
		         "--step 0.5 --stop 1 -o '%s'", fmu, path_in(c, "one.csv"),
		         path_in(c, "out.csv"));
		assert_int_equal(simulate(c, args), 0);
		/* u = 1, x = t reaches 0.55 inside [0.5, 1]: the FMI 3.0 wrappers return early
		 * there, so the run has a point at 0.55; the FMI 2.0 one cannot, its points are the
		 * steps' ends (x goes on to 1 either way) */
		if (variant >= 3) {
			assert_close(time_at(path_in(c, "out.csv"), 2), 0.55, 1e-12);
			assert_cell(path_in(c, "out.csv"), "interm3w.x", 2, 0.55);
			assert_cell(path_in(c, "out.csv"), "interm3w.x", 3, 1.0);
		} else {
			assert_close(time_at(path_in(c, "out.csv"), 2), 1.0, 1e-12);
			assert_cell(path_in(c, "out.csv"), "interm3w.x", 2, 1.0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(e2e_interm3__ramp__inner_given_its_input_inside_steps,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
			e2e_interm3__event__fmi3_wrapper_returns_early_fmi2_steps_through, setup,
			teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
