/* test_progress.c — the progress line of `sacc simulate` (orchestrator/progress.c): when it is
 * drawn (a terminal, after PROG_DELAY s of run, at most once per PROG_PERIOD s) and its
 * text, written out here by hand; the terminal itself is not involved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <string.h>

#include "progress.h"

static void progress__due__terminal_late_and_throttled(void **state)
{
	(void)state;
	assert_false(prog_due(false, 100, -1)); /* not a terminal: never */
	assert_false(prog_due(true, 0, -1));    /* short runs: never */
	assert_false(prog_due(true, 0.99, -1));
	assert_true(prog_due(true, 1.0, -1));    /* the first draw after a second */
	assert_false(prog_due(true, 1.05, 1.0)); /* at most ten a second */
	assert_true(prog_due(true, 1.1, 1.0));
	assert_true(prog_due(true, 30, 2));
}

static void progress__format__bar_percent_steps_rate(void **state)
{
	(void)state;
	char buf[256];
	/* 80 columns: the text takes 40, the bar 30 cells, half of them full */
	prog_format(buf, sizeof buf, 80, 5, 0, 10, 1234, 2);
	assert_string_equal(buf, "[###############---------------]   50.0%  t = 5  1234 steps"
	                         "  617 steps/s");
	/* a quarter: 7.5 cells round to 8; no time elapsed yet: no rate; start != 0 */
	prog_format(buf, sizeof buf, 200, 1.5, 1, 3, 0, 0);
	assert_string_equal(buf, "[########----------------------]   25.0%  t = 1.5  0 steps");
	/* 60 columns: the bar gives way to the text (59 - 40 - 2 = 17 cells) */
	prog_format(buf, sizeof buf, 60, 5, 0, 10, 1234, 2);
	assert_string_equal(buf, "[#########--------]   50.0%  t = 5  1234 steps  617 steps/s");
	assert_int_equal((int)strlen(buf), 59);
	/* too narrow for a bar: the text alone, cut to width - 1 */
	prog_format(buf, sizeof buf, 20, 5, 0, 10, 1234, 2);
	assert_string_equal(buf, " 50.0%  t = 5  1234");
	/* stop == start, and t past stop: 100% */
	prog_format(buf, sizeof buf, 20, 0, 0, 0, 1, 1);
	assert_true(strncmp(buf, "100.0%", 6) == 0);
	prog_format(buf, sizeof buf, 20, 11, 0, 10, 1, 1);
	assert_true(strncmp(buf, "100.0%", 6) == 0);
	/* a small buffer is never overrun */
	prog_format(buf, 8, 80, 5, 0, 10, 1234, 2);
	assert_string_equal(buf, "[######");
}

static void progress__format_runs__bar_counts_failures_rate(void **state)
{
	(void)state;
	char buf[256];
	/* 12 of 40 runs: 9 cells of 30; no failure: none said */
	prog_format_runs(buf, sizeof buf, 80, 12, 0, 40, 4);
	assert_string_equal(buf, "[#########---------------------]  12/40 runs  3 runs/s");
	/* failures said; no time elapsed yet: no rate */
	prog_format_runs(buf, sizeof buf, 80, 40, 2, 40, 0);
	assert_string_equal(buf, "[##############################]  40/40 runs  2 failed");
	/* no run to do: full */
	prog_format_runs(buf, sizeof buf, 80, 0, 0, 0, 0);
	assert_string_equal(buf, "[##############################]  0/0 runs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(progress__due__terminal_late_and_throttled),
		cmocka_unit_test(progress__format__bar_percent_steps_rate),
		cmocka_unit_test(progress__format_runs__bar_counts_failures_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
