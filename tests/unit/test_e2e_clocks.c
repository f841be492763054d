/* test_e2e_clocks.c — wrappers over clocked inners.  A Scheduled Execution inner: the pass-through
 * tests/e2e3/clocks_se_sa.sa over clocks_se built by `sacc build --fmi 3`, unpacked by
 * `sacc unpack` and stepped through the suite's strict FMI 3.0 importer (fmi3_importer.h)
 * as a plain Co-Simulation FMU.  Each of its steps activates the inner's partitions at
 * their ticks inside the step; the counters after each step must be those derived by hand
 * below, and an FMU state taken mid-run and set again must redo the steps after it with the
 * same ticks (the state holds the clocks' schedule, not only the inner's variables).  A
 * Co-Simulation inner with clocks in Event Mode (tests/e2e3/clocks_cs_sa.sa over clocks_cs):
 * its counters after each step, derived by hand too.  Both wrappers again built with
 * `--isolate all` (their inners in a host process): the same cases hold, and side by side
 * with the in-process wrappers every value after every step is the same, bit for bit.
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_importer.h"
#include "e2e_kit.h"

#define H 0.5
#define NSTEPS 4

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static char work[PATH_MAX];
/* "" for the wrappers with their inners in process, "iso/" for those built --isolate all */
static const char *variant = "";
/* the earlyReturnAllowed the wrappers are instantiated with */
static fmi3Boolean early_allowed = fmi3False;

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
	(void)env, (void)status, (void)category, (void)message;
}

/* ntick, nfixed, ntunable, ncountdown, seq after the start and after each step of 0.5.
 *   tunable  shift 0, interval 0.4:  0, 0.4, 0.8, 1.2, 1.6, 2
 *   fixed    0.25 + k:               0.25, 1.25
 *   tick     0.25 + 0.5 k:           0.25, 0.75, 1.25, 1.75
 *   countdown 0.1 after every 2nd tick: 0.85, 1.85
 * so at the start (0) only tunable has ticked; (0, 0.5]: tick, fixed, tunable once more;
 * (0.5, 1]: tick, tunable, countdown; (1, 1.5]: tunable, fixed, tick; (1.5, 2]: tunable,
 * tick, countdown, tunable.  seq appends each clock's reference (tick 1, fixed 2,
 * tunable 3, countdown 4), six digits kept, the partitions of one instant by priority
 * (fixed before tick): 3; 3 21 3 -> 3213; 1 3 4 -> 213134; 3 21 -> 134321; 3 1 4 3 ->
 * 213143. */
static const int expected[NSTEPS + 1][5] = {
	{0, 0, 1, 0, 3},
	{1, 1, 2, 0, 3213},
	{2, 1, 3, 1, 213134},
	{3, 2, 4, 1, 134321},
	{4, 2, 6, 2, 213143},
};

static int group_setup(void **state)
{
	char cmd[8 * PATH_MAX], rel[PATH_MAX];
	(void)state;
	snprintf(rel, sizeof rel, "%s/e2e-clocks", build_dir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", rel, rel);
	if (system(cmd) != 0)
		return -1;
	if (!realpath(rel, work))
		return -1;
	snprintf(cmd, sizeof cmd, "'%s/sacc' build --fmi 3 -L '%s/fmus3' -o '%s' "
	         "tests/e2e3/clocks_se_sa.sa tests/e2e3/clocks_cs_sa.sa "
	         "tests/e2e3/clocks_rules_sa.sa && "
	         "'%s/sacc' unpack '%s/clocksw.fmu' '%s/clocksw' && "
	         "'%s/sacc' unpack '%s/cssw.fmu' '%s/cssw' && "
	         "'%s/sacc' unpack '%s/clockrules.fmu' '%s/clockrules'",
	         build_dir(), build_dir(), work, build_dir(), work, work, build_dir(), work, work,
	         build_dir(), work, work);
	if (system(cmd) != 0)
		return -1;
	snprintf(cmd, sizeof cmd, "'%s/sacc' build --fmi 3 --isolate all -L '%s/fmus3' -o '%s/iso' "
	         "tests/e2e3/clocks_se_sa.sa tests/e2e3/clocks_cs_sa.sa && "
	         "'%s/sacc' unpack '%s/iso/clocksw.fmu' '%s/iso/clocksw' && "
	         "'%s/sacc' unpack '%s/iso/cssw.fmu' '%s/iso/cssw'",
	         build_dir(), build_dir(), work, build_dir(), work, work, build_dir(), work, work);
	return system(cmd) == 0 ? 0 : -1;
}

static int isolated_setup(void **state)
{
	(void)state;
	variant = "iso/";
	return 0;
}

typedef struct Wrapper {
	char dir[PATH_MAX + 32];
	Fmi3Api a;
	fmi3Instance c;
	fmi3ValueReference vr[5];
} Wrapper;

static void open_named(Wrapper *w, const char *id, const char *const names[], int n)
{
	char lib[2 * PATH_MAX], token[64], res[2 * PATH_MAX];
	memset(w, 0, sizeof *w);
	snprintf(w->dir, sizeof w->dir, "%s/%s%s", work, variant, id);
	for (int k = 0; k < n; k++)
		w->vr[k] = vr_of(w->dir, names[k]);
	assert_true(md_attr(w->dir, "instantiationToken", "instantiationToken", token,
	                    sizeof token));
	snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/%s.so", w->dir, id);
	snprintf(res, sizeof res, "%s/resources/", w->dir);
	fmi3_import(&w->a, lib);
	w->c = w->a.instantiate("w", token, res, fmi3False, fmi3False, fmi3False, early_allowed,
	                        NULL, 0, NULL, logger3, NULL);
	assert_non_null(w->c);
	assert_int_equal(w->a.enter_init(w->c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w->a.exit_init(w->c), fmi3OK);
}

static void open_wrapper(Wrapper *w)
{
	static const char *const names[5] = {"ntick", "nfixed", "ntunable", "ncountdown", "seq"};
	open_named(w, "clocksw", names, 5);
}

static void close_wrapper(Wrapper *w)
{
	assert_int_equal(w->a.terminate(w->c), fmi3OK);
	w->a.free_instance(w->c);
	fmi3_unimport(&w->a);
}

static void assert_counters(Wrapper *w, int k)
{
	fmi3Int32 v[5];
	assert_int_equal(w->a.get_int32(w->c, w->vr, 5, v, 5), fmi3OK);
	for (int i = 0; i < 5; i++) {
		if (v[i] != expected[k][i])
			print_error("after step %d: counter %d is %d, not %d\n", k, i, (int)v[i],
			            expected[k][i]);
		assert_int_equal(v[i], expected[k][i]);
	}
}

static void step(Wrapper *w, int k)
{
	fmi3Boolean event, term, early;
	fmi3Float64 last;
	assert_int_equal(w->a.do_step(w->c, k * H, H, fmi3True, &event, &term, &early, &last),
	                 fmi3OK);
	assert_false(term);
	assert_false(early);
}

static void e2e_clocks__wrapper_steps__partitions_at_their_ticks(void **state)
{
	(void)state;
	Wrapper w;
	open_wrapper(&w);
	assert_counters(&w, 0);
	for (int k = 0; k < NSTEPS; k++) {
		step(&w, k);
		assert_counters(&w, k + 1);
	}
	close_wrapper(&w);
}

/* A state taken after the first step and set after the last: the steps after it tick as
 * the first time (a countdown scheduled inside step 2, the periodic clocks' next ticks);
 * the same state serialized and deserialized too. */
static void e2e_clocks__state_restored__same_ticks_again(void **state)
{
	(void)state;
	Wrapper w;
	fmi3FMUState s = NULL;
	open_wrapper(&w);
	step(&w, 0);
	assert_int_equal(w.a.get_state(w.c, &s), fmi3OK);
	for (int k = 1; k < NSTEPS; k++)
		step(&w, k);
	assert_counters(&w, NSTEPS);
	assert_int_equal(w.a.set_state(w.c, s), fmi3OK);
	assert_counters(&w, 1);
	for (int k = 1; k < NSTEPS; k++) {
		step(&w, k);
		assert_counters(&w, k + 1);
	}
	/* and through bytes: the wrapper's serialized state carries the schedule too */
	size_t size = 0;
	fmi3FMUState back = NULL;
	assert_int_equal(w.a.serialized_size(w.c, s, &size), fmi3OK);
	fmi3Byte *bytes = malloc(size);
	assert_non_null(bytes);
	assert_int_equal(w.a.serialize(w.c, s, bytes, size), fmi3OK);
	assert_int_equal(w.a.deserialize(w.c, bytes, size, &back), fmi3OK);
	assert_int_equal(w.a.set_state(w.c, back), fmi3OK);
	assert_counters(&w, 1);
	for (int k = 1; k < NSTEPS; k++) {
		step(&w, k);
		assert_counters(&w, k + 1);
	}
	free(bytes);
	assert_int_equal(w.a.free_state(w.c, &back), fmi3OK);
	assert_int_equal(w.a.free_state(w.c, &s), fmi3OK);
	close_wrapper(&w);
}

/* The wrapper over clocks_cs (x = t mod 1, sample at 0.05 + 0.3 k, alarm at 0.75, wrap
 * at each whole second), steps of 0.5: nsample, nwrap, nalarm after each, and x. */
static void e2e_clocks__co_simulation_inner__clocks_in_event_mode(void **state)
{
	(void)state;
	static const char *const names[4] = {"nsample", "nwrap", "nalarm", "x"};
	static const int want[5][3] = {{0, 0, 0}, {2, 0, 0}, {4, 1, 1}, {5, 1, 1}, {7, 2, 1}};
	Wrapper w;
	open_named(&w, "cssw", names, 4);
	for (int k = 0; k <= NSTEPS; k++) {
		if (k > 0)
			step(&w, k - 1);
		fmi3Int32 n[3];
		fmi3Float64 x;
		assert_int_equal(w.a.get_int32(w.c, w.vr, 3, n, 3), fmi3OK);
		assert_int_equal(w.a.get_float64(w.c, &w.vr[3], 1, &x, 1), fmi3OK);
		for (int i = 0; i < 3; i++)
			assert_int_equal(n[i], want[k][i]);
		assert_true(fabs(x - fmod(k * H, 1.0)) < 1e-12);
	}
	close_wrapper(&w);
}

/* The wrapper over clocks_cs instantiated with early return allowed, stepped by 0.375 and
 * each step started where the last one stopped.  x = t mod 1 resets at 1, strictly inside
 * the third step (0.75 to 1.125): the inner returns early there, wrap ticks at 1 in its
 * Event Mode, and the wrapper returns early at 1 too.  nsample, nwrap, nalarm, x and the
 * time reached after each step (sample at 0.05 + 0.3 k, alarm at 0.75):
 *   0     -> 0.375   sample 0.05 0.35             2 0 0  x 0.375
 *   0.375 -> 0.75    sample 0.65, alarm 0.75      3 0 1  x 0.75
 *   0.75  -> 1       sample 0.95, wrap at 1       4 1 1  x 0      early, last 1
 *   1     -> 1.375   sample 1.25                  5 1 1  x 0.375
 * Without early return, the wrap would tick at 1.125 (x 0 there, not 0.125). */
static void e2e_clocks__early_return__wrap_ticks_at_the_reset(void **state)
{
	(void)state;
	static const char *const names[4] = {"nsample", "nwrap", "nalarm", "x"};
	static const struct {
		int n[3];
		double x, reached;
		int early;
	} want[4] = {
		{{2, 0, 0}, 0.375, 0.375, 0},
		{{3, 0, 1}, 0.75, 0.75, 0},
		{{4, 1, 1}, 0, 1, 1},
		{{5, 1, 1}, 0.375, 1.375, 0},
	};
	Wrapper w;
	early_allowed = fmi3True;
	open_named(&w, "cssw", names, 4);
	early_allowed = fmi3False;
	double t = 0;
	for (int k = 0; k < 4; k++) {
		fmi3Boolean event, term, early;
		fmi3Float64 last = -1, x;
		fmi3Int32 n[3];
		assert_int_equal(w.a.do_step(w.c, t, 0.375, fmi3True, &event, &term, &early, &last),
		                 fmi3OK);
		assert_false(term);
		assert_int_equal(early ? 1 : 0, want[k].early);
		t = early ? last : t + 0.375;
		assert_true(fabs(t - want[k].reached) < 1e-12);
		assert_int_equal(w.a.get_int32(w.c, w.vr, 3, n, 3), fmi3OK);
		assert_int_equal(w.a.get_float64(w.c, &w.vr[3], 1, &x, 1), fmi3OK);
		for (int i = 0; i < 3; i++)
			assert_int_equal(n[i], want[k].n[i]);
		assert_true(fabs(x - want[k].x) < 1e-12);
	}
	close_wrapper(&w);
}

/* Rules over the inner's clocks (tests/e2e3/clocks_rules_sa.sa): trig set to 1 before
 * every step of 0.1 ticks the inner's trig at each step's end, so its output clock ticks at
 * every second step (0.2, 0.4, ...) and the rule adds each tick: alarms = k / 2 after step k.
 * ticks follows the inner's periodic tick (0.25, 0.75): 0 until 0.2, 1 from 0.3, 2 from
 * 0.8. */
static void e2e_clocks__rules__react_to_the_inner_ticks(void **state)
{
	(void)state;
	static const char *const names[3] = {"trig", "alarms", "ticks"};
	Wrapper w;
	open_named(&w, "clockrules", names, 3);
	for (int k = 1; k <= 10; k++) {
		const fmi3Int32 one = 1;
		fmi3Boolean event, term, early;
		fmi3Float64 last;
		assert_int_equal(w.a.set_int32(w.c, &w.vr[0], 1, &one, 1), fmi3OK);
		assert_int_equal(w.a.do_step(w.c, (k - 1) * 0.1, 0.1, fmi3True, &event, &term, &early,
		                             &last),
		                 fmi3OK);
		fmi3Int32 v[2];
		assert_int_equal(w.a.get_int32(w.c, &w.vr[1], 2, v, 2), fmi3OK);
		assert_int_equal(v[0], k / 2);
		assert_int_equal(v[1], k < 3 ? 0 : k < 8 ? 1 : 2);
	}
	close_wrapper(&w);
}

/* The wrappers with their inners out of process beside those in process, stepped alike:
 * every output the same after initialization and after each step, bit for bit (the
 * Float64 x of clocks_cs compared as bytes). */
static void e2e_clocks__isolated_inners__same_values_as_in_process(void **state)
{
	(void)state;
	static const char *const se_names[5] = {"ntick", "nfixed", "ntunable", "ncountdown",
	                                        "seq"};
	static const char *const cs_names[4] = {"nsample", "nwrap", "nalarm", "x"};
	static const char *const ids[2] = {"clocksw", "cssw"};
	for (int m = 0; m < 2; m++) {
		Wrapper w[2];
		variant = "";
		open_named(&w[0], ids[m], m ? cs_names : se_names, m ? 4 : 5);
		variant = "iso/";
		open_named(&w[1], ids[m], m ? cs_names : se_names, m ? 4 : 5);
		for (int k = 0; k <= NSTEPS; k++) {
			fmi3Int32 n[2][5];
			fmi3Float64 x[2] = {0, 0};
			for (int i = 0; i < 2; i++) {
				if (k > 0)
					step(&w[i], k - 1);
				assert_int_equal(w[i].a.get_int32(w[i].c, w[i].vr, m ? 3 : 5, n[i], m ? 3 : 5),
				                 fmi3OK);
				if (m)
					assert_int_equal(w[i].a.get_float64(w[i].c, &w[i].vr[3], 1, &x[i], 1),
					                 fmi3OK);
			}
			assert_memory_equal(n[0], n[1], (m ? 3 : 5) * sizeof n[0][0]);
			assert_memory_equal(&x[0], &x[1], sizeof x[0]);
		}
		close_wrapper(&w[0]);
		close_wrapper(&w[1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(e2e_clocks__wrapper_steps__partitions_at_their_ticks),
		cmocka_unit_test(e2e_clocks__state_restored__same_ticks_again),
		cmocka_unit_test(e2e_clocks__co_simulation_inner__clocks_in_event_mode),
		cmocka_unit_test(e2e_clocks__early_return__wrap_ticks_at_the_reset),
		cmocka_unit_test(e2e_clocks__rules__react_to_the_inner_ticks),
	};
	/* the same over the wrappers built --isolate all, and the two side by side */
	const struct CMUnitTest isolated[] = {
		cmocka_unit_test(e2e_clocks__wrapper_steps__partitions_at_their_ticks),
		cmocka_unit_test(e2e_clocks__state_restored__same_ticks_again),
		cmocka_unit_test(e2e_clocks__co_simulation_inner__clocks_in_event_mode),
		cmocka_unit_test(e2e_clocks__early_return__wrap_ticks_at_the_reset),
		cmocka_unit_test(e2e_clocks__isolated_inners__same_values_as_in_process),
	};
	int failed = cmocka_run_group_tests_name("inners in process", tests, group_setup, NULL);
	return failed + cmocka_run_group_tests_name("inners out of process", isolated,
	                                            isolated_setup, NULL);
}
