/* test_e2e_early3.c — wrappers over an FMI 3.0 inner that returns early: the pass-through
 * tests/e2e3/early3_sa.sa over early3 (ticks at 0.1 + 0.25 i s, an early return at each tick
 * inside a step when allowed) built by `sacc build` as FMI 3.0 (in process and with the
 * inner isolated) and as FMI 2.0, and tests/e2e3/early3_outer_sa.sa, an FMI 3.0 wrapper of
 * the FMI 3.0 wrapper; unpacked by `sacc unpack` and stepped through the suite's plain
 * dlopen importers.
 *
 * The reference is the bare early3 driven by this test as an FMI 3.0 importer: with early
 * return allowed, each step of the grid taken on from wherever the FMU stopped until it
 * reaches the step's end; without, one call a step.  Every doStep call's outcome (early or
 * not, lastSuccessfulTime) and the outputs after it must be the bare FMU's, bit for bit.
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "e2e_kit.h"

#define NSTEPS 50 /* 5 s of 0.1 s: 20 ticks, most inside a step */
#define H 0.1
#define MAXCALLS (2 * NSTEPS + 8)
#define EARLY3_TOKEN "{51c0e8a7-2f94-4b3d-8e6c-0a7d9b1f4c28}"

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* One doStep call's outcome and the outputs after it. */
typedef struct Call {
	int early;
	double last, last_tick;
	int count;
} Call;

/* A run: its calls in order. */
typedef struct Run {
	Call c[MAXCALLS];
	int n;
} Run;

static char work[PATH_MAX];

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
	(void)env, (void)status, (void)category, (void)message;
}

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category, (void)message;
}

static const fmi2CallbackFunctions callbacks2 = {logger2, calloc, free, NULL, NULL};

static void run(const char *cmd)
{
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* ---- an FMI 3.0 instance, bare or a wrapper, driven on the grid ---------------------------- */

typedef struct Fmu3 {
	Fmi3Api a;
	fmi3Instance c;
	fmi3ValueReference vr_count, vr_tick;
} Fmu3;

/* Steps k0 .. k1-1 of the grid, each taken on from an early stop until it reaches its end
 * (at most a few calls a step), appending every call to r. */
static void drive3(Fmu3 *f, int k0, int k1, Run *r)
{
	for (int k = k0; k < k1; k++) {
		double at = k * H, end = k * H + H;
		for (int stops = 0;; stops++) {
			fmi3Boolean event = fmi3True, term = fmi3True, early = fmi3True;
			fmi3Float64 last = -1.0, tick;
			fmi3Int32 count;
			assert_true(stops < 4 && r->n < MAXCALLS);
			assert_int_equal(f->a.do_step(f->c, at, end - at, fmi3False, &event, &term,
			                              &early, &last), fmi3OK);
			assert_false(event);
			assert_false(term);
			assert_int_equal(f->a.get_int32(f->c, &f->vr_count, 1, &count, 1), fmi3OK);
			assert_int_equal(f->a.get_float64(f->c, &f->vr_tick, 1, &tick, 1), fmi3OK);
			r->c[r->n++] = (Call){early ? 1 : 0, early ? last : end, tick, count};
			if (!early)
				break;
			assert_true(last > at && last < end);
			at = last;
		}
	}
}

static void open3(Fmu3 *f, const char *lib, const char *token, const char *res, int early,
                  unsigned vr_count, unsigned vr_tick)
{
	memset(f, 0, sizeof *f);
	fmi3_import(&f->a, lib);
	f->c = f->a.instantiate("i", token, res, fmi3False, fmi3False, fmi3False,
	                        early ? fmi3True : fmi3False, NULL, 0, NULL, logger3, NULL);
	assert_non_null(f->c);
	f->vr_count = vr_count;
	f->vr_tick = vr_tick;
	assert_int_equal(f->a.enter_init(f->c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(f->a.exit_init(f->c), fmi3OK);
}

static void close3(Fmu3 *f)
{
	assert_int_equal(f->a.terminate(f->c), fmi3OK);
	f->a.free_instance(f->c);
	fmi3_unimport(&f->a);
}

/* The references: the bare FMU with and without early return. */
static Run bare_early, bare_whole;

static void bare_run(int early, Run *r)
{
	char lib[PATH_MAX];
	Fmu3 f;
	fmi3_library_path(lib, sizeof lib, build_dir(), "early3");
	open3(&f, lib, EARLY3_TOKEN, NULL, early, 3, 4);
	r->n = 0;
	drive3(&f, 0, NSTEPS, r);
	close3(&f);
}

/* ---- the wrappers -------------------------------------------------------------------------- */

enum { FMI3, FMI3_ISO, FMI2, OUTER, NVARIANTS };
static const char *const variants[] = {"fmi3", "fmi3-iso", "fmi2", "outer"};

static void variant_dir(int v, char *out, size_t size)
{
	snprintf(out, size, "%s/%s/%s", work, variants[v], v == OUTER ? "outerw" : "earlyw");
}

static int group_setup(void **state)
{
	char cmd[6 * PATH_MAX], rel[PATH_MAX];
	static const char *const flags[] = {"--fmi 3", "--fmi 3 --isolate all", "--fmi 2"};
	(void)state;
	snprintf(rel, sizeof rel, "%s/e2e-early3", build_dir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", rel, rel);
	run(cmd);
	assert_non_null(realpath(rel, work));
	for (int v = 0; v < NVARIANTS; v++) {
		const char *script = v == OUTER ? "tests/e2e3/early3_outer_sa.sa"
		                                : "tests/e2e3/early3_sa.sa";
		const char *id = v == OUTER ? "outerw" : "earlyw";
		snprintf(cmd, sizeof cmd, "'%s/sacc' build %s -L '%s/fmus3' -L '%s/%s' -o '%s/%s' %s "
		         "&& '%s/sacc' unpack '%s/%s/%s.fmu' '%s/%s/%s'",
		         build_dir(), v == OUTER ? "--fmi 3" : flags[v], build_dir(), work,
		         variants[FMI3], work, variants[v], script, build_dir(), work, variants[v], id,
		         work, variants[v], id);
		run(cmd);
	}
	bare_run(1, &bare_early);
	bare_run(0, &bare_whole);
	return 0;
}

static void open_wrapper3(Fmu3 *f, int v, int early)
{
	char dir[PATH_MAX + 64], lib[2 * PATH_MAX], res[2 * PATH_MAX], token[64];
	const char *id = v == OUTER ? "outerw" : "earlyw";
	variant_dir(v, dir, sizeof dir);
	assert_true(md_attr(dir, "instantiationToken", "instantiationToken", token, sizeof token));
	snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/%s.so", dir, id);
	snprintf(res, sizeof res, "%s/resources/", dir);
	open3(f, lib, token, res, early, vr_of(dir, "count"), vr_of(dir, "last_tick"));
}

static void assert_runs_equal(const Run *got, const Run *want, const char *what)
{
	if (got->n != want->n)
		fail_msg("%s: %d doStep calls, expected %d", what, got->n, want->n);
	for (int i = 0; i < got->n; i++) {
		const Call *g = &got->c[i], *w = &want->c[i];
		if (g->early != w->early || memcmp(&g->last, &w->last, sizeof g->last) != 0 ||
		    memcmp(&g->last_tick, &w->last_tick, sizeof g->last_tick) != 0 ||
		    g->count != w->count)
			fail_msg("%s: call %d: early %d last %.17g tick %.17g count %d; expected %d "
			         "%.17g %.17g %d", what, i, g->early, g->last, g->last_tick, g->count,
			         w->early, w->last, w->last_tick, w->count);
	}
}

static int earlies(const Run *r)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		n += r->c[i].early;
	return n;
}

/* ---- tests --------------------------------------------------------------------------------- */

static void reference__ticks_where_the_hand_computation_puts_them(void **state)
{
	(void)state;
	/* 0.1 + 0.25 i for i = 0 .. 19 below 5 s; those on the grid (0.1, 0.6, 1.1, ...: every
	 * other i) end their steps; the other ten are inside a step */
	assert_int_equal(bare_whole.n, NSTEPS);
	assert_int_equal(bare_whole.c[NSTEPS - 1].count, 20);
	assert_int_equal(earlies(&bare_early), 10);
	assert_int_equal(bare_early.n, NSTEPS + 10);
	const Call *first = NULL;
	for (int i = 0; i < bare_early.n && !first; i++)
		if (bare_early.c[i].early)
			first = &bare_early.c[i];
	assert_non_null(first);
	assert_true(first->last == 0.1 + 0.25);
	assert_int_equal(first->count, 2);
}

static void wrappers3__early_return_allowed__every_call_as_the_bare_fmu(void **state)
{
	static Run got;
	(void)state;
	static const int vs[] = {FMI3, FMI3_ISO, OUTER};
	for (int i = 0; i < 3; i++) {
		Fmu3 f;
		open_wrapper3(&f, vs[i], 1);
		got.n = 0;
		drive3(&f, 0, NSTEPS, &got);
		assert_runs_equal(&got, &bare_early, variants[vs[i]]);
		close3(&f);
	}
}

static void wrappers__early_return_not_allowed__whole_steps_as_the_bare_fmu(void **state)
{
	static Run got;
	(void)state;
	for (int v = 0; v < NVARIANTS; v++) {
		got.n = 0;
		if (v != FMI2) {
			Fmu3 f;
			open_wrapper3(&f, v, 0);
			drive3(&f, 0, NSTEPS, &got);
			close3(&f);
		} else {
			char dir[PATH_MAX + 64], lib[2 * PATH_MAX], res[2 * PATH_MAX], guid[64];
			Fmi2Api a;
			variant_dir(v, dir, sizeof dir);
			assert_true(md_attr(dir, "guid=", "guid", guid, sizeof guid));
			snprintf(lib, sizeof lib, "%s/binaries/linux64/earlyw.so", dir);
			snprintf(res, sizeof res, "file://%s/resources", dir);
			fmi2_import(&a, lib);
			fmi2Component c = a.instantiate("w", fmi2CoSimulation, guid, res, &callbacks2,
			                                fmi2False, fmi2False);
			assert_non_null(c);
			fmi2ValueReference vc = vr_of(dir, "count"), vt = vr_of(dir, "last_tick");
			assert_int_equal(a.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
			assert_int_equal(a.enter_init(c), fmi2OK);
			assert_int_equal(a.exit_init(c), fmi2OK);
			for (int k = 0; k < NSTEPS; k++) {
				fmi2Integer count;
				fmi2Real tick;
				assert_int_equal(a.do_step(c, k * H, H, fmi2True), fmi2OK);
				assert_int_equal(a.get_integer(c, &vc, 1, &count), fmi2OK);
				assert_int_equal(a.get_real(c, &vt, 1, &tick), fmi2OK);
				got.c[got.n++] = (Call){0, k * H + H, tick, count};
			}
			assert_int_equal(a.terminate(c), fmi2OK);
			a.free_instance(c);
			fmi2_unimport(&a);
		}
		assert_runs_equal(&got, &bare_whole, variants[v]);
	}
}

/* A state taken between ticks and set again: the calls after it, early returns included,
 * come again bit for bit, also through the serialized form. */
static void wrapper3__state_across_early_returns__redone_bit_for_bit(void **state)
{
	static Run first, again, back;
	(void)state;
	Fmu3 f;
	fmi3FMUState s = NULL, s2 = NULL;
	size_t size = 0;
	open_wrapper3(&f, FMI3, 1);
	first.n = again.n = back.n = 0;
	drive3(&f, 0, 10, &first);
	assert_int_equal(f.a.get_state(f.c, &s), fmi3OK);
	int from = first.n;
	drive3(&f, 10, 30, &first);
	assert_int_equal(f.a.set_state(f.c, s), fmi3OK);
	drive3(&f, 10, 30, &again);
	assert_int_equal(f.a.serialized_size(f.c, s, &size), fmi3OK);
	fmi3Byte *buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(f.a.serialize(f.c, s, buf, size), fmi3OK);
	assert_int_equal(f.a.deserialize(f.c, buf, size, &s2), fmi3OK);
	assert_int_equal(f.a.set_state(f.c, s2), fmi3OK);
	drive3(&f, 10, 30, &back);
	free(buf);
	assert_int_equal(f.a.free_state(f.c, &s), fmi3OK);
	assert_int_equal(f.a.free_state(f.c, &s2), fmi3OK);
	close3(&f);
	Run tail = {.n = first.n - from};
	memcpy(tail.c, first.c + from, (size_t)tail.n * sizeof *tail.c);
	assert_true(earlies(&tail) >= 3);
	assert_runs_equal(&again, &tail, "after set_state");
	assert_runs_equal(&back, &tail, "after deserialize");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reference__ticks_where_the_hand_computation_puts_them),
		cmocka_unit_test(wrappers3__early_return_allowed__every_call_as_the_bare_fmu),
		cmocka_unit_test(wrappers__early_return_not_allowed__whole_steps_as_the_bare_fmu),
		cmocka_unit_test(wrapper3__state_across_early_returns__redone_bit_for_bit),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
