/* test_simulate_clocks.c — `sacc simulate` over the clocked test FMUs: the Scheduled
 * Execution one (tests/fmus3/clocks_se), its partitions activated at their clocks' ticks (periodic from
 * interval and shift, countdown when the FMU sets the interval, triggered from an --input
 * column), those of one instant in priority order, clocked inputs read at the tick, a row
 * at each tick with each clock's column 1 there; an output clock connected to another
 * instance's triggered clock; the Co-Simulation one (tests/fmus3/clocks_cs), its
 * clocks ticked in Event Mode, alone (a state event inside a step ticking its output
 * clock at the event, the FMU returning early) and beside an FMU without clocks.  Every expected row is derived by hand in the comments from
 * the clocks' definitions (tests/fmus3/clocks_se/model.c).  Runs the SACC_BUILD binary as
 * a user would (simulate_test.h). */
#define _GNU_SOURCE /* realpath(path, NULL) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_clocks");
}

/* clocks_se from 0 to 2 (its DefaultExperiment), --step 0.5, trig ticking at the table's
 * rows holding 1 (0.3, 0.7, 1.1), u read at each of its ticks (2, 3, 5).
 *   tunable  shift 0, interval period = 0.4:   0, 0.4, 0.8, 1.2, 1.6, 2
 *   fixed    shift 0.25, interval 1:           0.25, 1.25
 *   tick     shift 0.25, interval 0.5:         0.25, 0.75, 1.25, 1.75
 *   countdown 0.1 after every 2nd tick:        0.85, 1.85
 *   trig     from the table:                   0.3, 0.7, 1.1
 *   out      every 2nd trig:                   0.7
 * Rows: the grid (0.5, 1, 1.5, 2) and every tick.  seq appends each partition's clock
 * reference (tick 1, fixed 2, tunable 3, countdown 4, trig 5), keeping six digits, so
 * 0.25 and 1.25 show fixed (priority 0) before tick (priority 1): 3 -> 32 -> 321, and at
 * 1.25 513453 -> 134532 -> 345321.  acc sums u at trig's ticks: 2, 2 + 3, 5 + 5. */
static const char se_expected[] =
	"time,clocks_se.tick,clocks_se.fixed,clocks_se.tunable,clocks_se.countdown,"
	"clocks_se.trig,clocks_se.out,clocks_se.seq,clocks_se.acc\n"
	"0,0,0,1,0,0,0,3,0\n"
	"0.25,1,1,0,0,0,0,321,0\n"
	"0.3,0,0,0,0,1,0,3215,2\n"
	"0.4,0,0,1,0,0,0,32153,2\n"
	"0.5,0,0,0,0,0,0,32153,2\n"
	"0.7,0,0,0,0,1,1,321535,5\n"
	"0.75,1,0,0,0,0,0,215351,5\n"
	"0.8,0,0,1,0,0,0,153513,5\n"
	"0.85,0,0,0,1,0,0,535134,5\n"
	"1,0,0,0,0,0,0,535134,5\n"
	"1.1,0,0,0,0,1,0,351345,10\n"
	"1.2000000000000002,0,0,1,0,0,0,513453,10\n"
	"1.25,1,1,0,0,0,0,345321,10\n"
	"1.5,0,0,0,0,0,0,345321,10\n"
	"1.6,0,0,1,0,0,0,453213,10\n"
	"1.75,1,0,0,0,0,0,532131,10\n"
	"1.85,0,0,0,1,0,0,321314,10\n"
	"2,0,0,1,0,0,0,213143,10\n";

static void simulate_clocks__scheduled_execution__each_tick_in_its_row(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "trig.csv", "time,clocks_se.trig,clocks_se.u\n"
	                          "0,0,2\n"
	                          "0.3,1,2\n"
	                          "0.7,1,3\n"
	                          "1.1,1,5\n");
	snprintf(args, sizeof args,
	         "'%s/fmus3/clocks_se.fmu' --step 0.5 --input '%s' --record clocks_se.tick,"
	         "clocks_se.fixed,clocks_se.tunable,clocks_se.countdown,clocks_se.trig,"
	         "clocks_se.out,clocks_se.seq,clocks_se.acc",
	         test_build_dir(), path_in(c, "trig.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	assert_string_equal(csv, se_expected);
	free(csv);
	/* the periodic and countdown clocks are the FMU's: no warning that nothing feeds them */
	char *err = file_in(c, "err.txt");
	assert_null(strstr(err, "warning"));
	assert_contains(err, "sacc simulate: done at t = 2: 17 steps accepted");
	free(err);
	assert_tmp_empty(c);
}

/* By default every clock is recorded, with the outputs: the tick counts over 0..2 are the
 * sums of the columns, 6 tunable, 2 fixed, 4 tick, 2 countdown (above), and trig none
 * (nothing feeds it: the warning names it, not u, which has a start value). */
static void simulate_clocks__default_records__every_clock_counted(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/clocks_se.fmu' --step 0.5", test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	assert_true(strncmp(csv, "time,clocks_se.tick,clocks_se.fixed,clocks_se.tunable,"
	                         "clocks_se.countdown,clocks_se.trig,clocks_se.out,clocks_se.ntick,"
	                         "clocks_se.nfixed,clocks_se.ntunable,clocks_se.ncountdown,"
	                         "clocks_se.ntrig,clocks_se.nout,",
	                    strlen("time,clocks_se.tick,clocks_se.fixed,clocks_se.tunable,"
	                           "clocks_se.countdown,clocks_se.trig,clocks_se.out,"
	                           "clocks_se.ntick,clocks_se.nfixed,clocks_se.ntunable,"
	                           "clocks_se.ncountdown,clocks_se.ntrig,clocks_se.nout,")) == 0);
	int sum[6] = {0}, last[6] = {0}, rows = 0;
	for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		double t;
		int v[12];
		assert_int_equal(sscanf(p + 1, "%lf,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", &t, &v[0],
		                        &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
		                        &v[10], &v[11]),
		                 13);
		for (int k = 0; k < 6; k++) {
			sum[k] += v[k];
			last[k] = v[6 + k];
		}
		rows++;
	}
	const int ticks[6] = {4, 2, 6, 2, 0, 0};
	for (int k = 0; k < 6; k++) {
		assert_int_equal(sum[k], ticks[k]);
		assert_int_equal(last[k], ticks[k]); /* the FMU's own counters agree */
	}
	/* 0, the grid 0.5 1 1.5 2, and the ticks off the grid: 0.25 0.4 0.75 0.8 0.85 1.2
	 * 1.25 1.6 1.75 1.85 */
	assert_int_equal(rows, 15);
	free(csv);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "they stay 0: clocks_se.trig (connect");
	free(err);
}

/* a.out ticks at a's every second trig (0.7 and 1.5 of 0.3, 0.7, 1.1, 1.5) and triggers
 * b.trig: under Gauss-Seidel at the same instant (a steps first, b's inputs are its new
 * values), under Jacobi one step later (the inputs are the values at the step's start),
 * as every other signal. */
static const char chain_sa[] =
	"module chain\n"
	"fmu Se a at \"%s/fmus3/clocks_se.fmu\"\n"
	"fmu Se b at \"%s/fmus3/clocks_se.fmu\"\n"
	"\n"
	"a.^out -> b.trig\n";

static void simulate_clocks__output_clock_connected__triggers_the_other(void **state)
{
	Ctx *c = *state;
	char script[2048], args[1024];
	char *build = realpath(test_build_dir(), NULL);
	assert_non_null(build);
	snprintf(script, sizeof script, chain_sa, build, build);
	free(build);
	write_text(c, "chain.sa", script);
	write_text(c, "trig.csv", "time,a.trig\n0,0\n0.3,1\n0.7,1\n1.1,1\n1.5,1\n");
	const char *masters[] = {"gauss-seidel", "jacobi"};
	/* b.trig's ticks: with a.out's, or at the row after (0.75 and 1.6) */
	const char *ticks[2][2] = {{"0.7,1,1,1,1\n", "1.5,1,1,1,2\n"},
	                           {"0.75,0,0,1,1\n", "1.6,0,0,1,2\n"}};
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof args,
		         "'%s' --step 0.5 --master %s --input '%s' --record a.trig,a.out,b.trig,"
		         "b.ntrig",
		         path_in(c, "chain.sa"), masters[i], path_in(c, "trig.csv"));
		assert_int_equal(simulate(c, args), 0);
		char *csv = file_in(c, "out.txt");
		assert_true(strncmp(csv, "time,a.trig,a.out,b.trig,b.ntrig\n", 33) == 0);
		assert_contains(csv, ticks[i][0]);
		assert_contains(csv, ticks[i][1]);
		/* b ticked twice in all: its counter ends at 2 */
		assert_contains(csv, "\n2,0,0,0,2\n");
		free(csv);
	}
	assert_tmp_empty(c);
}

/* clocks_cs, a Co-Simulation FMU whose clocks tick in Event Mode (rate 1: x = t mod 1),
 * from 0 to 2.2 with --step 0.5:
 *   sample   0.05 + 0.3 k:                 0.05 0.35 0.65 0.95 1.25 1.55 1.85 2.15
 *   trig     the table's rows holding 1:   0.5 1.2 (u 1 then 2, read at the tick)
 *   alarm    the FMU's time event t_alarm: 0.75
 *   wrap     x reaching 1:                 1 2
 * Each tick is a row of its own with its clock's column 1; xs is x at sample's last tick;
 * acc = 1 + 2. */
typedef struct Tick {
	double t;
	int sample, trig, wrap, alarm;
} Tick;

static const Tick cs_ticks[] = {
	{0.05, 1, 0, 0, 0}, {0.35, 1, 0, 0, 0}, {0.5, 0, 1, 0, 0},  {0.65, 1, 0, 0, 0},
	{0.75, 0, 0, 0, 1}, {0.95, 1, 0, 0, 0}, {1, 0, 0, 1, 0},    {1.2, 0, 1, 0, 0},
	{1.25, 1, 0, 0, 0}, {1.55, 1, 0, 0, 0}, {1.85, 1, 0, 0, 0}, {2, 0, 0, 1, 0},
	{2.15, 1, 0, 0, 0},
};

/* The rows of csv, "time,sample,trig,wrap[,alarm],x,xs,...": every row with a tick is the
 * next of want[] (an alarm row skipped when the FMU has none), x is the sawtooth t mod 1
 * and xs its value at sample's last tick, within tol. */
static void assert_tick_rows(const char *csv, const Tick want[], size_t nticks, int has_alarm,
                             double tol)
{
	size_t k = 0;
	double last_xs = 0;
	for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		Tick r = {0};
		double x, xs;
		if (has_alarm)
			assert_int_equal(sscanf(p + 1, "%lf,%d,%d,%d,%d,%lf,%lf", &r.t, &r.sample,
			                        &r.trig, &r.wrap, &r.alarm, &x, &xs),
			                 7);
		else
			assert_int_equal(sscanf(p + 1, "%lf,%d,%d,%d,%lf,%lf", &r.t, &r.sample, &r.trig,
			                        &r.wrap, &x, &xs),
			                 6);
		assert_true(fabs(x - fmod(r.t + 1e-12, 1.0)) < tol);
		if (!(r.sample || r.trig || r.wrap || r.alarm))
			continue;
		if (!has_alarm && k < nticks && want[k].alarm)
			k++;
		assert_true(k < nticks);
		const Tick *w = &want[k++];
		if (fabs(r.t - w->t) > 1e-12)
			print_error("tick %zu at %.17g, not %g\n", k, r.t, w->t);
		assert_true(fabs(r.t - w->t) < 1e-12);
		assert_int_equal(r.sample, w->sample);
		assert_int_equal(r.trig, w->trig);
		assert_int_equal(r.wrap, w->wrap);
		assert_int_equal(r.alarm, w->alarm);
		if (r.sample)
			last_xs = fmod(w->t, 1.0);
		assert_true(fabs(xs - last_xs) < tol);
	}
	assert_int_equal(k, nticks);
}

static void simulate_clocks__co_simulation_clocks__ticked_in_event_mode(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "trig.csv", "time,clocks_cs.trig,clocks_cs.u\n0,0,1\n0.5,1,1\n1.2,1,2\n");
	snprintf(args, sizeof args,
	         "'%s/fmus3/clocks_cs.fmu' --stop 2.2 --step 0.5 --input '%s' --record "
	         "clocks_cs.sample,clocks_cs.trig,clocks_cs.wrap,clocks_cs.alarm,clocks_cs.x,"
	         "clocks_cs.xs,clocks_cs.acc",
	         test_build_dir(), path_in(c, "trig.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	assert_tick_rows(csv, cs_ticks, sizeof cs_ticks / sizeof *cs_ticks, 1, 1e-9);
	/* acc, the last column of the last row */
	const char *last = strrchr(csv, ',');
	assert_non_null(last);
	double acc = atof(last + 1);
	assert_true(acc == 3);
	free(csv);
	assert_tmp_empty(c);
}

/* clocks_cs with rate 1.6, from 0 to 0.75 with --step 0.25: x = 1.6 t reaches 1 at
 * t = 1 / 1.6 = 0.625, strictly inside the stretch from 0.5 (grid) to 0.65 (sample's tick,
 * 0.05 + 2 * 0.3).  The run rolls back (the FMU can get and set its state), so the FMU may
 * return early: it stops at 0.625, where wrap ticks in Event Mode and x is reset, and the
 * macro step ends there.  Rows: 0 (start), 0.05 (sample), 0.25 (grid), 0.35 (sample),
 * 0.5 (grid), 0.625 (wrap, x 0), 0.65 (sample, x = 1.6 * 0.025 = 0.04), 0.75 (grid and
 * alarm, x = 1.6 * 0.125 = 0.2).  Without early return wrap would tick only at 0.65. */
static void simulate_clocks__state_event_in_a_step__wrap_ticks_at_the_event(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args,
	         "'%s/fmus3/clocks_cs.fmu' --stop 0.75 --step 0.25 --set clocks_cs.rate=1.6 "
	         "--set clocks_cs.trig=0 --record clocks_cs.wrap,clocks_cs.alarm,clocks_cs.x",
	         test_build_dir());
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	static const struct {
		double t;
		int wrap, alarm;
		double x;
	} want[] = {
		{0, 0, 0, 0},       {0.05, 0, 0, 0.08},  {0.25, 0, 0, 0.4},  {0.35, 0, 0, 0.56},
		{0.5, 0, 0, 0.8},   {0.625, 1, 0, 0},    {0.65, 0, 0, 0.04}, {0.75, 0, 1, 0.2},
	};
	size_t k = 0;
	for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n'), k++) {
		double t, x;
		int wrap, alarm;
		assert_int_equal(sscanf(p + 1, "%lf,%d,%d,%lf", &t, &wrap, &alarm, &x), 4);
		assert_true(k < sizeof want / sizeof *want);
		if (fabs(t - want[k].t) > 1e-12)
			print_error("row %zu at %.17g, not %g\n", k, t, want[k].t);
		assert_true(fabs(t - want[k].t) < 1e-12);
		assert_int_equal(wrap, want[k].wrap);
		assert_int_equal(alarm, want[k].alarm);
		assert_true(fabs(x - want[k].x) < 1e-12);
	}
	assert_int_equal(k, sizeof want / sizeof *want);
	free(csv);
	assert_tmp_empty(c);
}

/* clocks_me, the same sawtooth as a Model Exchange FMU integrated by sacc: sample and trig
 * tick in Event Mode as above, wrap at the state event x = 1 (located by the solver; on
 * the grid here, at 1 and 2). */
static void simulate_clocks__model_exchange_clocks__ticked_in_event_mode(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "trig.csv", "time,clocks_me.trig\n0,0\n0.5,1\n1.2,1\n");
	snprintf(args, sizeof args,
	         "'%s/fmus3/clocks_me.fmu' --stop 2.2 --step 0.5 --input '%s' --record "
	         "clocks_me.sample,clocks_me.trig,clocks_me.wrap,clocks_me.x,clocks_me.xs",
	         test_build_dir(), path_in(c, "trig.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	/* x from the solver: within its tolerance */
	assert_tick_rows(csv, cs_ticks, sizeof cs_ticks / sizeof *cs_ticks, 0, 1e-6);
	free(csv);
	assert_tmp_empty(c);
}

/* The same FMU beside an FMI 2.0 integrator without clocks: the integrator steps to every
 * tick with the others and integrates x = t mod 1, whose integral over 0..2 is 1 (its input
 * held over steps of 0.01: within 0.02). */
static const char mixed_sa[] =
	"module mixed\n"
	"fmu Cs c at \"%s/fmus3/clocks_cs.fmu\"\n"
	"fmu Integrator area at \"integrator.fmu\"\n"
	"\n"
	"c.x -> area.u\n";

static void simulate_clocks__mixed_with_an_fmu_without_clocks__both_step(void **state)
{
	Ctx *c = *state;
	char script[2048], args[1024];
	char *build = realpath(test_build_dir(), NULL);
	assert_non_null(build);
	snprintf(script, sizeof script, mixed_sa, build);
	free(build);
	write_text(c, "mixed.sa", script);
	snprintf(args, sizeof args, "'%s' --stop 2 --step 0.01 --record c.sample,area.x",
	         path_in(c, "mixed.sa"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "out.txt");
	int ticks = 0;
	double t = 0, area = 0;
	for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		int tick;
		assert_int_equal(sscanf(p + 1, "%lf,%d,%lf", &t, &tick, &area), 3);
		ticks += tick;
	}
	assert_int_equal(ticks, 7); /* 0.05 + 0.3 k up to 1.85 */
	assert_true(t == 2);
	assert_true(fabs(area - 1.0) < 0.02);
	free(csv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(simulate_clocks__scheduled_execution__each_tick_in_its_row),
		cmocka_unit_test(simulate_clocks__default_records__every_clock_counted),
		cmocka_unit_test(simulate_clocks__output_clock_connected__triggers_the_other),
		cmocka_unit_test(simulate_clocks__co_simulation_clocks__ticked_in_event_mode),
		cmocka_unit_test(simulate_clocks__state_event_in_a_step__wrap_ticks_at_the_event),
		cmocka_unit_test(simulate_clocks__model_exchange_clocks__ticked_in_event_mode),
		cmocka_unit_test(simulate_clocks__mixed_with_an_fmu_without_clocks__both_step),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
