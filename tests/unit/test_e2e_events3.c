/* test_e2e_events3.c — wrappers over an FMI 3.0 inner that needs Event Mode: the
 * pass-through tests/e2e3/events3_sa.sa over events3 (a bouncing ball) built by `sacc build`
 * as FMI 3.0 and as FMI 2.0, in process and with the inner isolated (`--isolate all`),
 * unpacked by `sacc unpack` and stepped through the suite's plain dlopen importers; with
 * early return allowed, the FMI 3.0 builds end their steps where the inner stopped (and a
 * build whose rules take whole steps does not).
 *
 * The reference is the bare events3 driven by this test as an FMI 3.0 importer with event
 * mode and without early return: after each step that asks for event handling, Event Mode,
 * fmi3UpdateDiscreteStates until the discrete states settle, Step Mode.  The wrappers'
 * outputs must equal it bit for bit at every step; the bounces must come where a hand
 * computation puts them (each impact bounced at the end of the step it falls in); an FMU
 * state taken before a bounce and set again redoes the steps across it bit for bit.
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

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "e2e_kit.h"

#define NSTEPS 300 /* 3 s of 0.01 s, past the ball coming to rest */
#define H 0.01
#define EVENTS3_TOKEN "{c4e9a0b2-7d15-4e83-a6f1-2b8d5c09e7f3}"

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* One step's outputs. */
typedef struct Out {
	double x, v;
	int bounces;
} Out;

static char work[PATH_MAX];
static char logged[16384];

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
	size_t used = strlen(logged);
	(void)env, (void)status;
	snprintf(logged + used, sizeof logged - used, "%s: %s\n", category ? category : "",
	         message);
}

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	char text[4096];
	va_list ap;
	(void)env, (void)name, (void)status;
	va_start(ap, message);
	vsnprintf(text, sizeof text, message, ap);
	va_end(ap);
	size_t used = strlen(logged);
	snprintf(logged + used, sizeof logged - used, "%s: %s\n", category ? category : "", text);
}

static const fmi2CallbackFunctions callbacks2 = {logger2, calloc, free, NULL, NULL};

static void run(const char *cmd)
{
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* ---- the reference: the bare FMU with the events handled here ------------------------------ */

/* Event Mode until the discrete states settle (bounded), then Step Mode. */
static void settle(Fmi3Api *a, fmi3Instance c)
{
	fmi3Boolean again = fmi3True, term, nominals, values, has_next;
	fmi3Float64 next;
	for (int i = 0; again; i++) {
		assert_true(i < 100);
		assert_int_equal(a->update_discrete_states(c, &again, &term, &nominals, &values,
		                                           &has_next, &next), fmi3OK);
		assert_false(term);
	}
	assert_int_equal(a->enter_step_mode(c), fmi3OK);
}

static void read_bare(Fmi3Api *a, fmi3Instance c, Out *o)
{
	const fmi3ValueReference xv[2] = {4, 5}, b = 6;
	double d[2];
	fmi3Int32 n;
	assert_int_equal(a->get_float64(c, xv, 2, d, 2), fmi3OK);
	assert_int_equal(a->get_int32(c, &b, 1, &n, 1), fmi3OK);
	*o = (Out){d[0], d[1], n};
}

/* The bare FMU stepped on the grid of H, out[k + 1] the outputs after step k, its events
 * handled here when event_mode: with early_return, each step is taken on from wherever the
 * FMU stopped until it reaches the step's end.  Returns how many events it asked for. */
static int bare_run(int event_mode, int early_return, Out out[])
{
	char lib[PATH_MAX];
	Fmi3Api a;
	int events = 0;
	fmi3_library_path(lib, sizeof lib, build_dir(), "events3");
	fmi3_import(&a, lib);
	fmi3Instance c = a.instantiate("bare", EVENTS3_TOKEN, NULL, fmi3False, fmi3False,
	                               event_mode ? fmi3True : fmi3False,
	                               early_return ? fmi3True : fmi3False, NULL, 0, NULL,
	                               logger3, NULL);
	assert_non_null(c);
	assert_int_equal(a.enter_init(c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(a.exit_init(c), fmi3OK);
	if (event_mode)
		settle(&a, c); /* initialization ends in Event Mode */
	read_bare(&a, c, &out[0]);
	for (int k = 0; k < NSTEPS; k++) {
		double at = k * H, end = k * H + H;
		for (int stops = 0;; stops++) {
			fmi3Boolean event, term, early;
			fmi3Float64 last;
			assert_true(stops < 100); /* the last bounces crowd into one step */
			assert_int_equal(a.do_step(c, at, end - at, fmi3False, &event, &term, &early,
			                           &last), fmi3OK);
			assert_false(term);
			if (!early_return)
				assert_false(early);
			if (event) {
				events++;
				assert_int_equal(a.enter_event_mode(c), fmi3OK);
				settle(&a, c);
			}
			if (!early)
				break;
			at = last;
		}
		read_bare(&a, c, &out[k + 1]);
	}
	a.free_instance(c);
	fmi3_unimport(&a);
	return events;
}

/* The bare FMU in Event Mode without early return: each impact bounced at the end of its
 * step. */
static Out reference[NSTEPS + 1];
/* In Event Mode, taken on from each early stop: each impact bounced where it happens. */
static Out reference_exact[NSTEPS + 1];
/* Without Event Mode: the FMU bounces inside its steps. */
static Out reference_inside[NSTEPS + 1];

static void compute_references(void)
{
	/* the tests mean something only if the FMU asked for events */
	assert_true(bare_run(1, 0, reference) >= 5);
	assert_true(bare_run(1, 1, reference_exact) >= 5);
	assert_int_equal(bare_run(0, 0, reference_inside), 0);
}

/* ---- building the wrappers ----------------------------------------------------------------- */

/* The four builds of the pass-through, then (4) FMI 3.0 with rules that take whole steps,
 * which only the early-return test steps. */
static const char *const variants[] = {"fmi3", "fmi2", "fmi3-iso", "fmi2-iso", "fmi3-whole"};
static const char *const variant_flags[] = {"--fmi 3", "--fmi 2", "--fmi 3 --isolate all",
                                            "--fmi 2 --isolate all", "--fmi 3"};
static const char *const variant_scripts[] = {
	"tests/e2e3/events3_sa.sa", "tests/e2e3/events3_sa.sa", "tests/e2e3/events3_sa.sa",
	"tests/e2e3/events3_sa.sa", "tests/e2e3/events3_whole_sa.sa"};

static void variant_dir(int v, char *out, size_t size)
{
	snprintf(out, size, "%s/%s/ballw", work, variants[v]);
}

static int group_setup(void **state)
{
	char cmd[4 * PATH_MAX], rel[PATH_MAX];
	(void)state;
	snprintf(rel, sizeof rel, "%s/e2e-events3", build_dir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", rel, rel);
	run(cmd);
	assert_non_null(realpath(rel, work));
	for (int v = 0; v < 5; v++) {
		snprintf(cmd, sizeof cmd, "'%s/sacc' build %s -L '%s/fmus3' -o '%s/%s' "
		         "%s && '%s/sacc' unpack '%s/%s/ballw.fmu' '%s/%s/ballw'",
		         build_dir(), variant_flags[v], build_dir(), work, variants[v],
		         variant_scripts[v], build_dir(), work, variants[v], work, variants[v]);
		run(cmd);
	}
	compute_references();
	return 0;
}

/* ---- the wrappers through the importers ---------------------------------------------------- */

typedef struct Wrapper {
	int version;
	char dir[PATH_MAX + 64];
	Fmi3Api a3;
	fmi3Instance c3;
	Fmi2Api a2;
	fmi2Component c2;
	unsigned vr_xv[2], vr_bounces;
} Wrapper;

/* The inner's parameters that make events3 behave as some FMUs do (0: left alone), and
 * whether the importer allows the wrapper early return (FMI 3.0 only). */
typedef struct Quirks {
	int stop_after, chatter, eager;
	int early_return;
} Quirks;

static void set_bool3(Wrapper *w, const char *name)
{
	fmi3ValueReference vr = vr_of(w->dir, name);
	fmi3Boolean yes = fmi3True;
	assert_int_equal(w->a3.set_boolean(w->c3, &vr, 1, &yes, 1), fmi3OK);
}

static void set_bool2(Wrapper *w, const char *name)
{
	fmi2ValueReference vr = vr_of(w->dir, name);
	fmi2Boolean yes = fmi2True;
	assert_int_equal(w->a2.set_boolean(w->c2, &vr, 1, &yes), fmi2OK);
}

/* Instantiates and initializes variant v's wrapper, the quirks set on the wrapper's
 * parameters ball.stop_after, ball.chatter and ball.eager before initialization. */
static void open_wrapper_with(Wrapper *w, int v, int logging, Quirks q)
{
	char lib[2 * PATH_MAX], token[64], res[2 * PATH_MAX];
	memset(w, 0, sizeof *w);
	w->version = v % 2 == 0 ? 3 : 2;
	variant_dir(v, w->dir, sizeof w->dir);
	w->vr_xv[0] = vr_of(w->dir, "x");
	w->vr_xv[1] = vr_of(w->dir, "v");
	w->vr_bounces = vr_of(w->dir, "bounces");
	logged[0] = '\0';
	if (w->version == 3) {
		assert_true(md_attr(w->dir, "instantiationToken", "instantiationToken", token,
		                    sizeof token));
		snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/ballw.so", w->dir);
		snprintf(res, sizeof res, "%s/resources/", w->dir);
		fmi3_import(&w->a3, lib);
		w->c3 = w->a3.instantiate("w", token, res, fmi3False, logging ? fmi3True : fmi3False,
		                          fmi3False, q.early_return ? fmi3True : fmi3False, NULL, 0,
		                          NULL, logger3, NULL);
		assert_non_null(w->c3);
		if (q.stop_after) {
			fmi3ValueReference vr = vr_of(w->dir, "ball.stop_after");
			fmi3Int32 n = q.stop_after;
			assert_int_equal(w->a3.set_int32(w->c3, &vr, 1, &n, 1), fmi3OK);
		}
		if (q.chatter)
			set_bool3(w, "ball.chatter");
		if (q.eager)
			set_bool3(w, "ball.eager");
		assert_int_equal(w->a3.enter_init(w->c3, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
		assert_int_equal(w->a3.exit_init(w->c3), fmi3OK);
		return;
	}
	assert_true(md_attr(w->dir, "guid=", "guid", token, sizeof token));
	snprintf(lib, sizeof lib, "%s/binaries/linux64/ballw.so", w->dir);
	snprintf(res, sizeof res, "file://%s/resources", w->dir);
	fmi2_import(&w->a2, lib);
	w->c2 = w->a2.instantiate("w", fmi2CoSimulation, token, res, &callbacks2, fmi2False,
	                          logging ? fmi2True : fmi2False);
	assert_non_null(w->c2);
	if (q.stop_after) {
		fmi2ValueReference vr = vr_of(w->dir, "ball.stop_after");
		fmi2Integer n = q.stop_after;
		assert_int_equal(w->a2.set_integer(w->c2, &vr, 1, &n), fmi2OK);
	}
	if (q.chatter)
		set_bool2(w, "ball.chatter");
	if (q.eager)
		set_bool2(w, "ball.eager");
	assert_int_equal(w->a2.setup(w->c2, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(w->a2.enter_init(w->c2), fmi2OK);
	assert_int_equal(w->a2.exit_init(w->c2), fmi2OK);
}

static void open_wrapper(Wrapper *w, int v, int logging)
{
	open_wrapper_with(w, v, logging, (Quirks){0, 0, 0, 0});
}

/* Frees the instance without terminating it (after an error). */
static void free_wrapper(Wrapper *w)
{
	if (w->version == 3) {
		w->a3.free_instance(w->c3);
		fmi3_unimport(&w->a3);
	} else {
		w->a2.free_instance(w->c2);
		fmi2_unimport(&w->a2);
	}
}

static void close_wrapper(Wrapper *w)
{
	if (w->version == 3) {
		assert_int_equal(w->a3.terminate(w->c3), fmi3OK);
		w->a3.free_instance(w->c3);
		fmi3_unimport(&w->a3);
	} else {
		assert_int_equal(w->a2.terminate(w->c2), fmi2OK);
		w->a2.free_instance(w->c2);
		fmi2_unimport(&w->a2);
	}
}

/* Steps k0 .. k1-1 of H, out[k + 1] the outputs after step k.  The wrapper has no Event
 * Mode of its own: its steps never ask for event handling and never end early. */
static void run_steps(Wrapper *w, int k0, int k1, Out out[])
{
	for (int k = k0; k < k1; k++) {
		double d[2];
		int n;
		if (w->version == 3) {
			fmi3Boolean event = fmi3True, term = fmi3True, early = fmi3True;
			fmi3Float64 last;
			fmi3Int32 b;
			assert_int_equal(w->a3.do_step(w->c3, k * H, H, fmi3False, &event, &term,
			                               &early, &last), fmi3OK);
			assert_false(event);
			assert_false(term);
			assert_false(early);
			assert_int_equal(w->a3.get_float64(w->c3, w->vr_xv, 2, d, 2), fmi3OK);
			assert_int_equal(w->a3.get_int32(w->c3, &w->vr_bounces, 1, &b, 1), fmi3OK);
			n = b;
		} else {
			fmi2Integer b;
			assert_int_equal(w->a2.do_step(w->c2, k * H, H, fmi2True), fmi2OK);
			assert_int_equal(w->a2.get_real(w->c2, w->vr_xv, 2, d), fmi2OK);
			assert_int_equal(w->a2.get_integer(w->c2, &w->vr_bounces, 1, &b), fmi2OK);
			n = b;
		}
		out[k + 1] = (Out){d[0], d[1], n};
	}
}

static void assert_outputs_equal(const Out *got, const Out *want, int k0, int k1,
                                 const char *what)
{
	for (int k = k0; k <= k1; k++)
		if (memcmp(&got[k].x, &want[k].x, sizeof got[k].x) != 0 ||
		    memcmp(&got[k].v, &want[k].v, sizeof got[k].v) != 0 ||
		    got[k].bounces != want[k].bounces)
			fail_msg("%s: after step %d: x %.17g v %.17g bounces %d; expected %.17g %.17g %d",
			         what, k, got[k].x, got[k].v, got[k].bounces, want[k].x, want[k].v,
			         want[k].bounces);
}

/* The ball by hand: from h0 = 1 at rest, g = 9.81, e = 0.7.  A flight launched from the
 * ground at speed u lands 2u/g later at speed u; each impact is bounced at the end of the
 * step it falls in, the speed kept until then.  Returns the steps after which the count
 * grows (n of them, until the ball rests). */
static int bounce_steps_by_hand(int steps[], int max)
{
	const double g = 9.81, e = 0.7;
	double impact = sqrt(2.0 / g), u = sqrt(2.0 * g);
	int n = 0;
	while (n < max) {
		double at = impact / H;
		int k = (int)ceil(at);
		/* an impact within rounding of a step end could fall on either side: stop there */
		if (fabs(at - floor(at + 0.5)) < 1e-6 || k > NSTEPS)
			break;
		steps[n++] = k;
		u *= e;
		if (u < 1e-6)
			break;
		impact = k * H + 2.0 * u / g;
	}
	return n;
}

static void reference__bounces_where_the_hand_computation_puts_them(void **state)
{
	int steps[32];
	(void)state;
	int n = bounce_steps_by_hand(steps, 32);
	assert_true(n >= 5);
	assert_int_equal(steps[0], 46); /* sqrt(2 / 9.81) = 0.4515 s, bounced at 0.46 */
	assert_int_equal(steps[1], 110);
	for (int i = 0; i < n; i++) {
		assert_int_equal(reference[steps[i] - 1].bounces, i);
		assert_int_equal(reference[steps[i]].bounces, i + 1);
		assert_true(reference[steps[i]].x == 0.0);
		assert_true(reference[steps[i]].v > 0.0); /* going up again */
	}
}

static void wrappers__every_version_and_isolation__outputs_bit_identical(void **state)
{
	static Out got[NSTEPS + 1];
	(void)state;
	for (int v = 0; v < 4; v++) {
		Wrapper w;
		open_wrapper(&w, v, 0);
		run_steps(&w, 0, NSTEPS, got);
		assert_outputs_equal(got, reference, 1, NSTEPS, variants[v]);
		close_wrapper(&w);
	}
	assert_true(reference[NSTEPS].bounces >= 10);
}

static void wrapper__inner_event_messages__forwarded(void **state)
{
	static Out got[NSTEPS + 1];
	(void)state;
	for (int v = 0; v < 2; v++) {
		Wrapper w;
		open_wrapper(&w, v, 1);
		if (w.version == 3) {
			const char *all = "logInner";
			assert_int_equal(w.a3.set_debug_logging(w.c3, fmi3True, 1, &all), fmi3OK);
		} else {
			const char *all = "logInner";
			assert_int_equal(w.a2.set_debug_logging(w.c2, fmi2True, 1, &all), fmi2OK);
		}
		run_steps(&w, 0, 50, got);
		if (!strstr(logged, "[ball] bounce 1 at 0.46"))
			fail_msg("%s: the bounce is not in the log:\n%s", variants[v], logged);
		close_wrapper(&w);
	}
}

static void wrapper__state_across_a_bounce__redone_bit_for_bit(void **state)
{
	static Out first[NSTEPS + 1], again[NSTEPS + 1], back[NSTEPS + 1];
	(void)state;
	for (int v = 0; v < 4; v++) {
		Wrapper w;
		open_wrapper(&w, v, 0);
		run_steps(&w, 0, 40, first);
		if (w.version == 3) {
			fmi3FMUState s = NULL, s2 = NULL;
			size_t size = 0;
			assert_int_equal(w.a3.get_state(w.c3, &s), fmi3OK);
			run_steps(&w, 40, 120, first); /* bounces at 46 and 110 */
			assert_int_equal(w.a3.set_state(w.c3, s), fmi3OK);
			run_steps(&w, 40, 120, again);
			assert_int_equal(w.a3.serialized_size(w.c3, s, &size), fmi3OK);
			fmi3Byte *buf = malloc(size);
			assert_non_null(buf);
			assert_int_equal(w.a3.serialize(w.c3, s, buf, size), fmi3OK);
			assert_int_equal(w.a3.deserialize(w.c3, buf, size, &s2), fmi3OK);
			assert_int_equal(w.a3.set_state(w.c3, s2), fmi3OK);
			run_steps(&w, 40, 120, back);
			free(buf);
			assert_int_equal(w.a3.free_state(w.c3, &s), fmi3OK);
			assert_int_equal(w.a3.free_state(w.c3, &s2), fmi3OK);
		} else {
			fmi2FMUstate s = NULL, s2 = NULL;
			size_t size = 0;
			assert_int_equal(w.a2.get_state(w.c2, &s), fmi2OK);
			run_steps(&w, 40, 120, first);
			assert_int_equal(w.a2.set_state(w.c2, s), fmi2OK);
			run_steps(&w, 40, 120, again);
			assert_int_equal(w.a2.serialized_size(w.c2, s, &size), fmi2OK);
			fmi2Byte *buf = malloc(size);
			assert_non_null(buf);
			assert_int_equal(w.a2.serialize(w.c2, s, buf, size), fmi2OK);
			assert_int_equal(w.a2.deserialize(w.c2, buf, size, &s2), fmi2OK);
			assert_int_equal(w.a2.set_state(w.c2, s2), fmi2OK);
			run_steps(&w, 40, 120, back);
			free(buf);
			assert_int_equal(w.a2.free_state(w.c2, &s), fmi2OK);
			assert_int_equal(w.a2.free_state(w.c2, &s2), fmi2OK);
		}
		assert_int_equal(first[120].bounces, 2);
		assert_outputs_equal(first, reference, 1, 120, variants[v]);
		assert_outputs_equal(again, reference, 41, 120, variants[v]);
		assert_outputs_equal(back, reference, 41, 120, variants[v]);
		close_wrapper(&w);
	}
}

/* Steps until one fails; returns its index (-1 if none did) and checks it is an error. */
static int step_until_error(Wrapper *w, int k1)
{
	for (int k = 0; k < k1; k++) {
		if (w->version == 3) {
			fmi3Boolean event, term, early;
			fmi3Float64 last;
			fmi3Status st = w->a3.do_step(w->c3, k * H, H, fmi3False, &event, &term, &early,
			                              &last);
			if (st != fmi3OK) {
				assert_int_equal(st, fmi3Error);
				return k;
			}
		} else {
			fmi2Status st = w->a2.do_step(w->c2, k * H, H, fmi2True);
			if (st != fmi2OK) {
				assert_int_equal(st, fmi2Error);
				return k;
			}
		}
	}
	return -1;
}

static void assert_logged(const char *needle, const char *what)
{
	if (!strstr(logged, needle))
		fail_msg("%s: '%s' not logged; the log:\n%s", what, needle, logged);
}

/* The inner asks to terminate in the step after its second bounce (at 1.10): the wrapper's
 * step is an error whose message names the inner, the call and the time. */
static void wrapper__inner_asks_to_terminate__error_naming_it(void **state)
{
	(void)state;
	for (int v = 0; v < 4; v++) {
		Wrapper w;
		open_wrapper_with(&w, v, 0, (Quirks){2, 0, 0, 0});
		assert_int_equal(step_until_error(&w, NSTEPS), 110);
		assert_logged("[ball] fmi3DoStep(t = 1.1, h = 0.01) asked to terminate the "
		              "simulation at t = 1.11", variants[v]);
		free_wrapper(&w);
	}
}

/* Discrete states that never settle: an error at the first bounce, after the bounded number
 * of passes, naming the inner and the time. */
static void wrapper__discrete_states_never_settle__error_naming_the_inner(void **state)
{
	(void)state;
	for (int v = 0; v < 4; v++) {
		Wrapper w;
		open_wrapper_with(&w, v, 0, (Quirks){0, 1, 0, 0});
		assert_int_equal(step_until_error(&w, NSTEPS), 45);
		assert_logged("[ball] fmi3UpdateDiscreteStates at t = 0.46: the discrete states did "
		              "not settle in 1000 iterations", variants[v]);
		free_wrapper(&w);
	}
}

/* An inner that stops at each impact although early return was not allowed (as some
 * exporters do once Event Mode is used): the wrapper handles the event where it stopped and
 * steps the inner on to the step's end, so the bounces come at the exact impacts. */
static void wrapper__inner_stops_at_events_unasked__stepped_on_to_the_end(void **state)
{
	static Out got[NSTEPS + 1];
	(void)state;
	for (int k = 1; k <= NSTEPS; k++) {
		/* the same bounces as the FMU handling them inside its steps, to rounding */
		assert_int_equal(reference_exact[k].bounces, reference_inside[k].bounces);
		assert_true(fabs(reference_exact[k].x - reference_inside[k].x) < 1e-12);
		assert_true(fabs(reference_exact[k].v - reference_inside[k].v) < 1e-12);
	}
	assert_int_equal(reference_exact[45].bounces, 0); /* the first impact at 0.4515 s */
	assert_int_equal(reference_exact[46].bounces, 1);
	assert_true(reference_exact[46].x > 0.0); /* bounced 0.0085 s before the step's end */
	for (int v = 0; v < 4; v++) {
		Wrapper w;
		open_wrapper_with(&w, v, 0, (Quirks){0, 0, 1, 0});
		run_steps(&w, 0, NSTEPS, got);
		assert_outputs_equal(got, reference_exact, 1, NSTEPS, variants[v]);
		close_wrapper(&w);
	}
}

/* The importer allows the FMI 3.0 wrapper early return: the wrapper lets its one inner
 * return early too, and ends each of its steps where the inner stopped, so that an
 * importer going on from lastSuccessfulTime bounces the ball at the exact impacts, bit for
 * bit as the bare FMU driven the same way.  Returns how many steps ended early. */
static int run_steps_early(Wrapper *w, Out out[])
{
	int earlies = 0;
	for (int k = 0; k < NSTEPS; k++) {
		double at = k * H, end = k * H + H, d[2];
		fmi3Int32 b;
		for (int stops = 0;; stops++) {
			fmi3Boolean event = fmi3True, term = fmi3True, early = fmi3True;
			fmi3Float64 last;
			assert_true(stops < 100);
			assert_int_equal(w->a3.do_step(w->c3, at, end - at, fmi3False, &event, &term,
			                               &early, &last), fmi3OK);
			assert_false(event);
			assert_false(term);
			if (!early)
				break;
			assert_true(last > at && last < end);
			earlies++;
			at = last;
		}
		assert_int_equal(w->a3.get_float64(w->c3, w->vr_xv, 2, d, 2), fmi3OK);
		assert_int_equal(w->a3.get_int32(w->c3, &w->vr_bounces, 1, &b, 1), fmi3OK);
		out[k + 1] = (Out){d[0], d[1], b};
	}
	return earlies;
}

static void wrapper3__early_return_allowed__ends_where_the_inner_stopped(void **state)
{
	static Out got[NSTEPS + 1];
	(void)state;
	for (int v = 0; v < 4; v += 2) { /* the FMI 3.0 builds, in process and isolated */
		Wrapper w;
		open_wrapper_with(&w, v, 0, (Quirks){0, 0, 0, 1});
		int earlies = run_steps_early(&w, got);
		assert_outputs_equal(got, reference_exact, 1, NSTEPS, variants[v]);
		/* one early end per impact inside a step */
		assert_true(earlies >= reference_exact[NSTEPS].bounces - 1);
		assert_true(earlies >= 10);
		close_wrapper(&w);
	}
	/* rules that take the whole step could not keep a shortened one: no early return */
	Wrapper w;
	open_wrapper_with(&w, 4, 0, (Quirks){0, 0, 0, 1});
	assert_int_equal(run_steps_early(&w, got), 0);
	assert_outputs_equal(got, reference, 1, NSTEPS, variants[4]);
	close_wrapper(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reference__bounces_where_the_hand_computation_puts_them),
		cmocka_unit_test(wrappers__every_version_and_isolation__outputs_bit_identical),
		cmocka_unit_test(wrapper__inner_event_messages__forwarded),
		cmocka_unit_test(wrapper__state_across_a_bounce__redone_bit_for_bit),
		cmocka_unit_test(wrapper__inner_asks_to_terminate__error_naming_it),
		cmocka_unit_test(wrapper__discrete_states_never_settle__error_naming_the_inner),
		cmocka_unit_test(wrapper__inner_stops_at_events_unasked__stepped_on_to_the_end),
		cmocka_unit_test(wrapper3__early_return_allowed__ends_where_the_inner_stopped),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
