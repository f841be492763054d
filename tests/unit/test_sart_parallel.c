/* test_sart_parallel.c — FMUs stepped at once (SartMasterOptions.threads,
 * orchestrator/sart_master_parallel.c) against one thread: each scenario runs with one
 * thread and with two and three (threads_always, so the trivial test FMUs do step in
 * parallel once timed; threads_flip, so a run also goes back and forth between one thread
 * and the pool), and the runs must agree on everything a caller sees: the status,
 * the message, the counters, every accepted point bit for bit and the log, line by line
 * with its status, in the same order.
 *
 * The scenario: burn FMUs a -> {b, c, d}, d -> e (b, c and d are one generation under
 * Gauss-Seidel; all FMUs one group under Jacobi), e drives an algebraic loop of two affine
 * FMUs p <-> q.  The burn FMUs warn every few steps (their messages interleave), and the
 * variants add iterations with rollback, input extrapolation, both step-size controls,
 * event location on a.x (which crosses 0 at t = 0.5), a discard redone shorter, a failure,
 * no rollback; under Jacobi and Gauss-Seidel.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"
#include "sart_master.h"

#define BURN_GUID "{5d0c7a39-1e64-4f2b-b8a1-3c9e2f6d4a17}"
#define AFFINE_GUID "{a7f1e0c4-2b39-4d5e-8c61-0f9b3e7d2a15}"

#define CAPS (SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES)

static const SartVar burn_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"y", 2, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"work", 3, SART_INTEGER, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"warn_every", 4, SART_INTEGER, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"discard_at", 5, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"fail_at", 6, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"x0", 7, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
};
static const int affine_deps[] = {0, 4};
static const SartVar affine_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"y", 1, SART_REAL, SART_CAUS_OUTPUT, affine_deps, 2, 0, 0},
	{"gain", 2, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"offset", 3, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"w", 4, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
};

enum { NFMUS = 7, NCOLS = 12, MAXPTS = 400, LOGSIZE = 1 << 16 };
enum { A, B, C, D, E, P, Q };

/* What a caller sees of a run. */
typedef struct Seen {
	int rc;
	SartMasterResult res;
	int n;
	double t[MAXPTS];
	double v[MAXPTS][NCOLS];
	char log[LOGSIZE];
	long steps[NFMUS]; /* on_step's calls per FMU (each FMU's own counter: no race) */
} Seen;

static int collect(void *env, double t, const double values[], int n)
{
	Seen *s = env;
	if (s->n < MAXPTS) {
		s->t[s->n] = t;
		for (int i = 0; i < n && i < NCOLS; i++)
			s->v[s->n][i] = values[i];
	}
	s->n++;
	return 0;
}

static void log_line(void *env, SartStatus st, const char *category, const char *message)
{
	Seen *s = env;
	size_t used = strlen(s->log);
	snprintf(s->log + used, sizeof s->log - used, "%d %s %s\n", (int)st, category, message);
}

static void count_step(void *env, int fmu, double t, double h, int done)
{
	Seen *s = env;
	(void)t, (void)h;
	s->steps[fmu] += done;
}

/* One variant of the scenario. */
typedef struct Variant {
	const char *name;
	SartAlgorithm algorithm;
	SartApprox approx;
	int iterations;
	SartStepControl control;
	int events;
	int no_rollback;
	double discard_at; /* c's; -1 never */
	double fail_at;    /* b's; -1 never */
	int serial;        /* b and d stay on the calling thread (SART_CAP_SERIAL) */
	int flip;          /* threads_flip: the groups switch between one thread and the pool */
} Variant;

static void run(const Variant *va, int threads, Seen *out)
{
	char burn[512], affine[512];
	snprintf(burn, sizeof burn, "%s/fmus/burn", test_build_dir());
	snprintf(affine, sizeof affine, "%s/fmus/affine", test_build_dir());
	SartFmu fmus[NFMUS] = {
		{"a", burn, "burn", BURN_GUID, SART_FMI2, CAPS, burn_vars, 8},
		{"b", burn, "burn", BURN_GUID, SART_FMI2, CAPS, burn_vars, 8},
		{"c", burn, "burn", BURN_GUID, SART_FMI2, CAPS, burn_vars, 8},
		{"d", burn, "burn", BURN_GUID, SART_FMI2, CAPS, burn_vars, 8},
		{"e", burn, "burn", BURN_GUID, SART_FMI2, CAPS, burn_vars, 8},
		{"p", affine, "affine", AFFINE_GUID, SART_FMI2, CAPS, affine_vars, 5},
		{"q", affine, "affine", AFFINE_GUID, SART_FMI2, CAPS, affine_vars, 5},
	};
	if (va->serial) {
		fmus[B].caps |= SART_CAP_SERIAL;
		fmus[D].caps |= SART_CAP_SERIAL;
	}
	SartConnection conns[] = {
		{{A, 1}, {B, 0}, 1, 0, NULL, NULL, 0}, {{A, 1}, {C, 0}, 2, 1, NULL, NULL, 0}, {{A, 1}, {D, 0}, -1, 0, NULL, NULL, 0},
		{{D, 1}, {E, 0}, 1, 0, NULL, NULL, 0}, {{E, 1}, {P, 4}, 1, 0, NULL, NULL, 0}, {{P, 1}, {Q, 0}, 1, 0, NULL, NULL, 0},
		{{Q, 1}, {P, 0}, 1, 0, NULL, NULL, 0},
	};
	SartStart starts[] = {
		{{A, 0}, 1.0}, {{A, 7}, -0.5}, {{A, 4}, 3}, {{B, 4}, 2}, {{D, 4}, 5}, {{E, 4}, 4},
		{{A, 3}, 50}, {{B, 3}, 200}, {{C, 3}, 10}, {{D, 3}, 100}, {{E, 3}, 30},
		{{C, 5}, va->discard_at}, {{B, 6}, va->fail_at},
		{{P, 2}, 0.5}, {{P, 3}, 1}, {{Q, 2}, 0.3}, {{Q, 3}, -2},
	};
	SartRef recs[NCOLS] = {{A, 1}, {B, 1}, {C, 1}, {D, 1}, {E, 1}, {A, 2},
	                       {B, 2}, {C, 2}, {D, 2}, {E, 2}, {P, 1}, {Q, 1}};
	SartScenario sc = {fmus, NFMUS, conns, 7, starts, 17, recs, NCOLS};
	memset(out, 0, sizeof *out);
	SartMasterOptions o = {.start = 0, .stop = 1.0, .step = 0.05,
	                       .algorithm = va->algorithm, .approx = va->approx,
	                       .iterations = va->iterations, .step_control = va->control,
	                       .tolerance = 1e-4, .logging_on = 1,
	                       .logger = log_line, .logger_env = out, .on_point = collect,
	                       .point_env = out, .no_rollback = va->no_rollback,
	                       .on_step = count_step, .step_env = out,
	                       .threads = threads, .threads_always = 1,
	                       .threads_flip = va->flip};
	if (va->events) {
		o.locate_events = 1;
		o.event_indicator = (SartRef){A, 1};
		o.event_tolerance = 1e-4;
	}
	out->rc = sart_master_run(&sc, &o, &out->res);
}

static void same_as_one_thread(const Variant *va, int expect_rc)
{
	static Seen one, many;
	run(va, 1, &one);
	assert_int_equal(one.rc, expect_rc);
	assert_int_equal(one.res.parallel_steps, 0);
	for (int threads = 2; threads <= (va->serial || strcmp(va->name, "plain") == 0 ? 3 : 2);
	     threads++) {
		run(va, threads, &many);
		if (one.rc == 0 && strcmp(one.log, many.log) != 0)
			fprintf(stderr, "%s, %d threads: logs differ\n--- one\n%s--- many\n%s", va->name,
			        threads, one.log, many.log);
		assert_int_equal(many.rc, one.rc);
		assert_string_equal(many.res.message, one.res.message);
		assert_int_equal(many.res.accepted, one.res.accepted);
		assert_int_equal(many.res.rejected, one.res.rejected);
		assert_int_equal(many.res.iterations, one.res.iterations);
		assert_int_equal(many.res.rollbacks, one.res.rollbacks);
		assert_int_equal(many.res.loop_solves, one.res.loop_solves);
		assert_int_equal(many.res.loop_iterations, one.res.loop_iterations);
		assert_int_equal(many.res.events, one.res.events);
		assert_int_equal(many.res.event_trials, one.res.event_trials);
		assert_memory_equal(&many.res.t, &one.res.t, sizeof one.res.t);
		assert_memory_equal(&many.res.h_min, &one.res.h_min, sizeof one.res.h_min);
		assert_memory_equal(&many.res.h_max, &one.res.h_max, sizeof one.res.h_max);
		assert_int_equal(many.n, one.n);
		assert_memory_equal(many.t, one.t, sizeof one.t);
		assert_memory_equal(many.v, one.v, sizeof one.v);
		assert_string_equal(many.log, one.log);
		/* the same doSteps, but where a Gauss-Seidel pass ends early: the FMUs of the
		 * generation after the one that ended it have stepped too (and are restored) */
		if (one.rc == 0 && (va->algorithm == SART_JACOBI || va->discard_at < 0))
			assert_memory_equal(many.steps, one.steps, sizeof one.steps);
		/* it did step FMUs at once, on the threads asked for */
		assert_true(many.res.parallel_steps > 0);
		assert_int_equal(many.res.threads, threads);
		/* and, switching, as many passes on one thread again */
		long total = 0;
		for (int f = 0; f < NFMUS; f++)
			total += many.steps[f];
		if (va->flip)
			assert_true(4 * many.res.parallel_steps < 3 * total);
	}
}

static const Variant variants[] = {
	{"plain", SART_JACOBI, SART_HOLD, 0, SART_STEP_FIXED, 0, 0, -1, -1, 0, 0},
	{"no rollback", SART_JACOBI, SART_HOLD, 0, SART_STEP_FIXED, 0, 1, -1, -1, 0, 0},
	{"linear, iterations", SART_JACOBI, SART_LINEAR, 2, SART_STEP_FIXED, 0, 0, -1, -1, 0, 0},
	{"quadratic", SART_JACOBI, SART_QUADRATIC, 0, SART_STEP_FIXED, 0, 0, -1, -1, 0, 0},
	{"doubling", SART_JACOBI, SART_LINEAR, 0, SART_STEP_DOUBLING, 0, 0, -1, -1, 0, 0},
	{"prediction", SART_JACOBI, SART_HOLD, 0, SART_STEP_PREDICTION, 0, 0, -1, -1, 0, 0},
	{"events", SART_JACOBI, SART_HOLD, 0, SART_STEP_FIXED, 1, 0, -1, -1, 0, 0},
	{"discard", SART_JACOBI, SART_HOLD, 0, SART_STEP_FIXED, 0, 0, 0.53, -1, 0, 0},
};

static void parallel__jacobi__same_as_one_thread(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
		same_as_one_thread(&variants[i], 0);
}

static void parallel__gauss_seidel__same_as_one_thread(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		Variant va = variants[i];
		va.algorithm = SART_GAUSS_SEIDEL;
		if (va.approx == SART_QUADRATIC)
			va.iterations = 1;
		same_as_one_thread(&va, 0);
	}
}

/* A failing step ends the run with the same message, and the messages before it. */
static void parallel__failure__same_message(void **state)
{
	(void)state;
	Variant va = {"failure", SART_JACOBI, SART_HOLD, 0, SART_STEP_FIXED, 0, 0, -1, 0.62, 0, 0};
	same_as_one_thread(&va, 1);
	va.algorithm = SART_GAUSS_SEIDEL;
	same_as_one_thread(&va, 1);
	/* a discard without saved states is a failure too */
	va = (Variant){"discard, no rollback", SART_JACOBI, SART_HOLD, 0, SART_STEP_FIXED, 0, 1,
	               0.53, -1, 0, 0};
	same_as_one_thread(&va, 1);
}

/* The messages come in FMU order within a step, as one thread gives them: at the sixth
 * step (t = 0.3) a (every 3rd step) then b (every 2nd) warn; at the eighth b then e (every
 * 4th). */
static void parallel__messages__in_fmu_order(void **state)
{
	(void)state;
	static Seen s;
	run(&variants[0], 2, &s);
	assert_int_equal(s.rc, 0);
	assert_true(s.res.parallel_steps > 0);
	const char *a6 = strstr(s.log, "[a] step 6 ends at t = 0.3\n");
	const char *b6 = strstr(s.log, "[b] step 6 ends at t = 0.3\n");
	const char *b8 = strstr(s.log, "[b] step 8 ends at t = 0.4\n");
	const char *e8 = strstr(s.log, "[e] step 8 ends at t = 0.4\n");
	assert_non_null(a6);
	assert_non_null(b6);
	assert_non_null(b8);
	assert_non_null(e8);
	assert_true(a6 < b6 && b6 < b8 && b8 < e8);
}

/* FMUs that stay on the calling thread (SART_CAP_SERIAL) still agree. */
static void parallel__serial_fmus__same_as_one_thread(void **state)
{
	(void)state;
	Variant va = variants[0];
	va.serial = 1;
	same_as_one_thread(&va, 0);
	va.algorithm = SART_GAUSS_SEIDEL;
	same_as_one_thread(&va, 0);
}

/* A run that changes its mind, its groups going back and forth between one thread and the
 * pool every few passes (every FMU then steps on both), still agrees, under every variant:
 * with 3 passes, a switch falls inside a step's iterations, a rollback and an event's
 * search. */
static void parallel__switching_modes__same_as_one_thread(void **state)
{
	(void)state;
	for (int alg = 0; alg < 2; alg++)
		for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
			Variant va = variants[i];
			va.flip = 3;
			va.algorithm = alg ? SART_GAUSS_SEIDEL : SART_JACOBI;
			if (alg && va.approx == SART_QUADRATIC)
				va.iterations = 1;
			same_as_one_thread(&va, 0);
		}
	Variant va = variants[0];
	va.flip = 1;
	va.serial = 1;
	same_as_one_thread(&va, 0);
}

/* A pool of threads is only made when asked for. */
static void parallel__one_thread__no_pool(void **state)
{
	(void)state;
	static Seen s;
	run(&variants[0], 1, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.res.threads, 1);
	assert_int_equal(s.res.parallel_steps, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parallel__jacobi__same_as_one_thread),
		cmocka_unit_test(parallel__gauss_seidel__same_as_one_thread),
		cmocka_unit_test(parallel__failure__same_message),
		cmocka_unit_test(parallel__messages__in_fmu_order),
		cmocka_unit_test(parallel__serial_fmus__same_as_one_thread),
		cmocka_unit_test(parallel__switching_modes__same_as_one_thread),
		cmocka_unit_test(parallel__one_thread__no_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
