/* test_sart_inner_se.c — the seam's Scheduled Execution layer (runtime/sart_inner_se.c)
 * driving clocks_se (tests/fmus3/clocks_se) as if it were Co-Simulation: the ticks each
 * step activates, derived by hand from the clocks' definitions, one step holding several;
 * a triggered clock set before a step ticking at its end; what cannot be set refused by
 * name; a restored state ticking as the first time; a periodic clock whose interval the
 * FMU gives.  Every case runs twice: in process, and out of process (runtime/sart_host.c's
 * seam keeping the schedule, the channel carrying the clocks and the next tick), where
 * each expectation, message and state round trip must hold the same.
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
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
#include "sart_isolate.h"

#define CLOCKS_SE_TOKEN "{5d0c2b7e-93a4-4f61-8e2d-c1a6b9f04e35}"

enum { TICK = 1, FIXED, TUNABLE, COUNTDOWN, TRIG, OUT };
enum { NTICK = 11, NFIXED, NTUNABLE, NCOUNTDOWN, NTRIG, NOUT, SEQ, U = 18, ACC };

/* As sacc simulate configures it from the description; tunable's interval is left to the
 * FMU (0). */
static const SartClock clocks[] = {
	{TICK, SART_CLOCK_PERIODIC, 0.5, 0.25, 1},  {FIXED, SART_CLOCK_PERIODIC, 1, 0.25, 0},
	{TUNABLE, SART_CLOCK_PERIODIC, 0, 0, 2},    {COUNTDOWN, SART_CLOCK_COUNTDOWN, 0, 0, 3},
	{TRIG, SART_CLOCK_TRIGGERED, 0, 0, 4},      {OUT, SART_CLOCK_OUTPUT, 0, 0, 0},
};

typedef struct Log {
	char all[8192];
} Log;

static void capture(void *env, SartStatus st, const char *category, const char *message)
{
	Log *l = env;
	size_t used = strlen(l->all);
	(void)st;
	snprintf(l->all + used, sizeof l->all - used, "%s: %s\n", category, message);
}

/* Set by the second group's setup: the cases then load clocks_se through the host. */
static int isolated;

static int run_isolated(void **state)
{
	(void)state;
	isolated = 1;
	return 0;
}

static SartInner *start(Log *log)
{
	char dir[512], host[512];
	snprintf(dir, sizeof dir, "%s/fmus3/clocks_se", test_build_dir());
	snprintf(host, sizeof host, "%s/sacc-fmu-host", test_build_dir());
	const SartIsolation iso = {host, 0, 0, 0, -1, 0, NULL, NULL};
	SartInnerConfig cfg = {"se", dir, "clocks_se", SART_FMI3,
	                       SART_CAP_SCHEDULED_EXECUTION | SART_CAP_GET_SET_STATE |
	                               SART_CAP_SERIALIZE,
	                       capture, log,
	                       NULL, 0, NULL, 0, {0}, {clocks, sizeof clocks / sizeof *clocks}};
	SartInner *in = NULL;
	log->all[0] = '\0';
	assert_int_equal(isolated ? sart_inner_load_isolated(&cfg, &iso, &in)
	                          : sart_inner_load(&cfg, &in), SART_OK);
	assert_int_equal(sart_inner_is_isolated(in), isolated);
	assert_int_equal(sart_inner_instantiate(in, CLOCKS_SE_TOKEN, 0), SART_OK);
	SartExperiment ex = {0, 0, 0.0, 1, 2.0};
	assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
	return in;
}

static void finish(SartInner *in)
{
	assert_int_equal(sart_inner_terminate(in), SART_OK);
	sart_inner_free(in);
}

/* The clocks' ticks in the last step (TICK..OUT), then the FMU's counters. */
static void assert_ticks(SartInner *in, const int want[6], const int counters[6])
{
	const SartVr cv[6] = {TICK, FIXED, TUNABLE, COUNTDOWN, TRIG, OUT};
	const SartVr nv[6] = {NTICK, NFIXED, NTUNABLE, NCOUNTDOWN, NTRIG, NOUT};
	int got[6];
	assert_int_equal(sart_inner_get_integer(in, cv, 6, got), SART_OK);
	for (int k = 0; k < 6; k++)
		assert_int_equal(got[k], want[k]);
	assert_int_equal(sart_inner_get_integer(in, nv, 6, got), SART_OK);
	for (int k = 0; k < 6; k++)
		assert_int_equal(got[k], counters[k]);
}

static void step(SartInner *in, double t, double h)
{
	double reached = NAN;
	assert_int_equal(sart_inner_do_step(in, t, h, 0, &reached), SART_OK);
	assert_true(reached == t + h);
}

/* tunable (0.4, the FMU's period) ticks at 0; the step (0, 1] holds tick 0.25 and 0.75,
 * fixed 0.25, tunable 0.4 and 0.8, and countdown 0.85 (0.1 after the 2nd tick); the next
 * tick known after 1 is tunable's 1.2, then tick's and fixed's 1.25. */
static void sart_inner_se__one_step__every_tick_inside_it(void **state)
{
	(void)state;
	Log log;
	SartInner *in = start(&log);
	assert_ticks(in, (const int[6]){0, 0, 1, 0, 0, 0}, (const int[6]){0, 0, 1, 0, 0, 0});
	assert_true(fabs(sart_inner_next_clock_time(in) - 0.25) < 1e-15);
	step(in, 0, 1);
	assert_ticks(in, (const int[6]){2, 1, 2, 1, 0, 0}, (const int[6]){2, 1, 3, 1, 0, 0});
	assert_true(fabs(sart_inner_next_clock_time(in) - 1.2) < 1e-12);
	/* seq: 3, then 0.25 fixed (priority 0) before tick: 2 1, 0.4: 3, 0.75: 1, 0.8: 3,
	 * 0.85: 4 -> 321313 kept to six digits as 213134 */
	SartVr seq = SEQ;
	int v = 0;
	assert_int_equal(sart_inner_get_integer(in, &seq, 1, &v), SART_OK);
	assert_int_equal(v, 213134);
	finish(in);
}

/* trig set before a step ticks once at its end, u read then; every 2nd trig ticks out. */
static void sart_inner_se__triggered_clock__ticks_at_the_step_end(void **state)
{
	(void)state;
	Log log;
	SartInner *in = start(&log);
	const SartVr trig = TRIG, u = U, acc = ACC;
	const int one = 1;
	double x = 2, a = 0;
	assert_int_equal(sart_inner_set_real(in, &u, 1, &x), SART_OK);
	assert_int_equal(sart_inner_set_integer(in, &trig, 1, &one), SART_OK);
	step(in, 0, 0.1); /* nothing else in (0, 0.1] */
	assert_ticks(in, (const int[6]){0, 0, 0, 0, 1, 0}, (const int[6]){0, 0, 1, 0, 1, 0});
	x = 3;
	assert_int_equal(sart_inner_set_real(in, &u, 1, &x), SART_OK);
	assert_int_equal(sart_inner_set_integer(in, &trig, 1, &one), SART_OK);
	step(in, 0.1, 0.1);
	assert_ticks(in, (const int[6]){0, 0, 0, 0, 1, 1}, (const int[6]){0, 0, 1, 0, 2, 1});
	assert_int_equal(sart_inner_get_real(in, &acc, 1, &a), SART_OK);
	assert_true(a == 5);
	/* not set again: no tick */
	step(in, 0.2, 0.01);
	assert_ticks(in, (const int[6]){0, 0, 0, 0, 0, 0}, (const int[6]){0, 0, 1, 0, 2, 1});
	finish(in);
}

/* Only a triggered input clock can be told to tick; 0 on any clock is no tick. */
static void sart_inner_se__periodic_clock_set__refused_by_name(void **state)
{
	(void)state;
	Log log;
	SartInner *in = start(&log);
	const SartVr tick = TICK, out = OUT;
	const int one = 1, zero = 0;
	assert_int_equal(sart_inner_set_integer(in, &tick, 1, &zero), SART_OK);
	assert_int_equal(sart_inner_set_integer(in, &tick, 1, &one), SART_ERROR);
	assert_string_equal(sart_inner_message(in), "[se] clock 1 ticks by itself (periodic): only "
	                                             "a triggered input clock can be set to tick");
	assert_int_equal(sart_inner_set_integer(in, &out, 1, &one), SART_ERROR);
	assert_non_null(strstr(sart_inner_message(in), "(an output clock)"));
	finish(in);
}

/* A state saved at 0.5 and set after 2: the steps after it tick as the first time,
 * the countdown scheduled at 0.75 included. */
static void sart_inner_se__state__holds_the_schedule(void **state)
{
	(void)state;
	Log log;
	SartInner *in = start(&log);
	void *s = NULL;
	step(in, 0, 0.5);
	assert_int_equal(sart_inner_get_state(in, &s), SART_OK);
	step(in, 0.5, 0.5);
	assert_ticks(in, (const int[6]){1, 0, 1, 1, 0, 0}, (const int[6]){2, 1, 3, 1, 0, 0});
	step(in, 1, 1);
	assert_int_equal(sart_inner_set_state(in, s), SART_OK);
	step(in, 0.5, 0.5);
	assert_ticks(in, (const int[6]){1, 0, 1, 1, 0, 0}, (const int[6]){2, 1, 3, 1, 0, 0});
	assert_int_equal(sart_inner_free_state(in, &s), SART_OK);
	assert_null(s);
	finish(in);
}

/* The same through bytes: a state serialized at 0.5, the run gone on to 2, the bytes
 * deserialized and set: the step after ticks as the first time.  Bytes of another kind, or
 * with a clock's schedule changed, are refused by name. */
static void sart_inner_se__serialized_state__holds_the_schedule(void **state)
{
	(void)state;
	Log log;
	SartInner *in = start(&log);
	void *s = NULL, *back = NULL;
	size_t size = 0;
	step(in, 0, 0.5);
	assert_int_equal(sart_inner_get_state(in, &s), SART_OK);
	assert_int_equal(sart_inner_serialized_size(in, s, &size), SART_OK);
	unsigned char *buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(sart_inner_serialize(in, s, buf, size), SART_OK);
	assert_int_equal(sart_inner_free_state(in, &s), SART_OK);
	step(in, 0.5, 1.5);
	assert_int_equal(sart_inner_deserialize(in, buf, size, &back), SART_OK);
	assert_int_equal(sart_inner_set_state(in, back), SART_OK);
	step(in, 0.5, 0.5);
	assert_ticks(in, (const int[6]){1, 0, 1, 1, 0, 0}, (const int[6]){2, 1, 3, 1, 0, 0});
	assert_int_equal(sart_inner_free_state(in, &back), SART_OK);
	/* a clock's next tick altered: the checksum no longer matches */
	buf[32] ^= 1;
	assert_int_equal(sart_inner_deserialize(in, buf, size, &back), SART_ERROR);
	assert_non_null(strstr(sart_inner_message(in), "checksum"));
	assert_null(back);
	assert_int_equal(sart_inner_deserialize(in, buf, 8, &back), SART_ERROR);
	assert_non_null(strstr(sart_inner_message(in), "too short"));
	free(buf);
	finish(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sart_inner_se__one_step__every_tick_inside_it),
		cmocka_unit_test(sart_inner_se__triggered_clock__ticks_at_the_step_end),
		cmocka_unit_test(sart_inner_se__periodic_clock_set__refused_by_name),
		cmocka_unit_test(sart_inner_se__state__holds_the_schedule),
		cmocka_unit_test(sart_inner_se__serialized_state__holds_the_schedule),
	};
	int failed = cmocka_run_group_tests_name("in process", tests, NULL, NULL);
	return failed + cmocka_run_group_tests_name("out of process", tests, run_isolated, NULL);
}
