/* test_simulate_interm3.c — `sacc simulate` over interm3 (tests/fmus3/interm3), an FMI 3.0 FMU
 * whose internal steps ask for their input: the run gives it its intermediate input
 * extrapolated from the communication points, and goes on from where it returns early at
 * an event.  interm3's x is the left Riemann sum of u over its internal grid of 0.1, so the
 * results are derived by hand beside each assertion. */
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
	return sim_setup(state, "test_simulate_interm3");
}

static void simulate_interm3__ramp_input__extrapolated_between_communication_points(void **state)
{
	Ctx *c = *state;
	char args[1024];
	/* u = 2 t from the table, given at the step starts 0, 0.5, 1 and, inside the steps,
	 * extrapolated from the last two starts:
	 *   [0, 0.5]: one start known, u held at 0: x = 0
	 *   [0.5, 1]: slope 2, exact: x += 0.1 * 2 * 0.1 (5+6+7+8+9) = 0.7
	 *   [1, 1.5]: x += 0.02 (10+11+12+13+14) = 1.2: x = 1.9
	 * (with u held over each step x would be 0.5 (0 + 1 + 2) = 1.5) */
	write_text(c, "ramp.csv", "time,u\n0,0\n2,4\n");
	snprintf(args, sizeof args, "'%s/fmus3/interm3.fmu' --input '%s' --step 0.5 --stop 1.5 "
	         "-o '%s'", test_build_dir(), path_in(c, "ramp.csv"), path_in(c, "out.csv"));
	assert_int_equal(simulate(c, args), 0);
	assert_cell(path_in(c, "out.csv"), "interm3.x", 1, 0.0);
	assert_cell(path_in(c, "out.csv"), "interm3.x", 2, 0.7);
	assert_cell(path_in(c, "out.csv"), "interm3.x", 3, 1.9);
	assert_cell(path_in(c, "out.csv"), "interm3.nsub", 3, 15);
}

static void simulate_interm3__event_inside_a_step__a_point_where_it_returned(void **state)
{
	Ctx *c = *state;
	char args[1024];
	/* u = 1: x = t reaches level 0.55 inside the step [0.5, 1]; the FMU returns early there
	 * (the run keeps states, so it lets it), the event is handled, and the run goes on from
	 * 0.55: points at 0, 0.5, 0.55, 1 */
	write_text(c, "one.csv", "time,u\n0,1\n");
	snprintf(args, sizeof args, "'%s/fmus3/interm3.fmu' --input '%s' --set interm3.level=0.55 "
	         "--step 0.5 --stop 1 -o '%s'", test_build_dir(), path_in(c, "one.csv"),
	         path_in(c, "out.csv"));
	assert_int_equal(simulate(c, args), 0);
	assert_close(time_at(path_in(c, "out.csv"), 2), 0.55, 1e-12);
	assert_cell(path_in(c, "out.csv"), "interm3.x", 2, 0.55);
	assert_cell(path_in(c, "out.csv"), "interm3.hit", 1, 0);
	assert_cell(path_in(c, "out.csv"), "interm3.hit", 2, 1);
	assert_cell(path_in(c, "out.csv"), "interm3.t_hit", 3, 0.55);
	assert_close(time_at(path_in(c, "out.csv"), 3), 1.0, 1e-12);
	assert_cell(path_in(c, "out.csv"), "interm3.x", 3, 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			simulate_interm3__ramp_input__extrapolated_between_communication_points, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			simulate_interm3__event_inside_a_step__a_point_where_it_returned, setup,
			teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
