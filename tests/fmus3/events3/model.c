/* events3 — a bouncing ball that needs Event Mode: x' = v, v' = -g from x = h0, and at each
 * impact (x = 0 falling) v := -e v, bounces := bounces + 1.  Between impacts the motion is
 * integrated exactly, so impact times can be checked by hand (the first at sqrt(2 h0 / g)).
 * Instantiated with eventModeUsed, fmi3DoStep leaves the reset to fmi3UpdateDiscreteStates
 * in Event Mode and asks for it with eventHandlingNeeded: with earlyReturnAllowed it stops at
 * the impact; without, the ball waits on the ground until the step's end, where the event is
 * handled (so an importer that cannot go back still sees each bounce once, one step late).
 * Without eventModeUsed it handles impacts inside the step.  Once a bounce leaves less than
 * 1e-6 m/s the ball rests on the ground.
 * Three parameters make it behave as some FMUs do, for the importers' other paths: eager
 * has fmi3DoStep stop at an impact in Event Mode even without earlyReturnAllowed (as some
 * exporters do); stop_after > 0 has it ask to terminate the simulation once that many
 * bounces are done; chatter has fmi3UpdateDiscreteStates ask for another pass for ever from
 * the first bounce on. */
#include <math.h>
#include <stddef.h>

#include "fmu3_kit.h"

#define EVENTS3_TOKEN "{c4e9a0b2-7d15-4e83-a6f1-2b8d5c09e7f3}"

typedef struct Ball {
	fmi3Float64 time;
	fmi3Float64 h0, e, g;
	fmi3Float64 x, v;
	fmi3Int32 bounces;
	fmi3Int32 stop_after;
	fmi3Boolean chatter;
	fmi3Boolean eager;
	fmi3Boolean pending; /* internal: an impact waits for Event Mode */
	fmi3Boolean resting; /* internal */
} Ball;

static const Ball start = {
	.h0 = 1.0,
	.e = 0.7,
	.g = 9.81,
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Ball, time), 1},
	{"h0", 1, K3_FLOAT64, K3_PARAMETER, offsetof(Ball, h0), 1},
	{"e", 2, K3_FLOAT64, K3_PARAMETER, offsetof(Ball, e), 1},
	{"g", 3, K3_FLOAT64, K3_PARAMETER, offsetof(Ball, g), 1},
	{"x", 4, K3_FLOAT64, K3_OUTPUT, offsetof(Ball, x), 1},
	{"v", 5, K3_FLOAT64, K3_OUTPUT, offsetof(Ball, v), 1},
	{"bounces", 6, K3_INT32, K3_OUTPUT, offsetof(Ball, bounces), 1},
	{"stop_after", 7, K3_INT32, K3_PARAMETER, offsetof(Ball, stop_after), 1},
	{"chatter", 8, K3_BOOLEAN, K3_PARAMETER, offsetof(Ball, chatter), 1},
	{"eager", 9, K3_BOOLEAN, K3_PARAMETER, offsetof(Ball, eager), 1},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	(void)k, (void)state;
	return fmi3OK;
}

static fmi3Status initialize(Kit3Instance *k, void *state)
{
	Ball *s = state;
	if (!(s->h0 > 0.0) || !(s->g > 0.0) || !(s->e >= 0.0 && s->e < 1.0)) {
		kit3_log(k, fmi3Error, NULL, "need h0 > 0, g > 0 and 0 <= e < 1");
		return fmi3Error;
	}
	s->x = s->h0;
	s->v = 0.0;
	return fmi3OK;
}

static void bounce(Kit3Instance *k, Ball *s, double at)
{
	s->v = -s->e * s->v;
	s->bounces++;
	s->pending = fmi3False;
	kit3_log(k, fmi3OK, "logEvents", "bounce %d at %g", (int)s->bounces, at);
	if (s->v < 1e-6) {
		s->v = 0.0;
		s->resting = fmi3True;
	}
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	Ball *s = state;
	double now = t, end = t + h;
	if (s->stop_after > 0 && s->bounces >= s->stop_after) {
		out->terminate = 1;
		return fmi3OK;
	}
	if (s->pending)
		return fmi3OK; /* an impact not yet handled: the ball stays on the ground */
	while (!s->resting && now < end) {
		double impact = (s->v + sqrt(s->v * s->v + 2.0 * s->g * s->x)) / s->g;
		double left = end - now;
		if (impact > left) {
			s->x += s->v * left - 0.5 * s->g * left * left;
			s->v -= s->g * left;
			return fmi3OK;
		}
		s->v -= s->g * impact;
		s->x = 0.0;
		now += impact;
		if (kit3_event_mode_used(k)) {
			s->pending = fmi3True;
			out->event = 1;
			if (kit3_early_return_allowed(k) || s->eager) {
				out->reached = now < end ? now : end;
				out->early = now < end;
			}
			return fmi3OK;
		}
		bounce(k, s, now);
	}
	return fmi3OK;
}

static fmi3Status update_discrete(Kit3Instance *k, void *state, int *again, int *has_next,
                                  double *next_event)
{
	Ball *s = state;
	(void)next_event;
	*has_next = 0;
	if (s->pending)
		bounce(k, s, kit3_time(k));
	*again = s->chatter && s->bounces > 0; /* from the first bounce on */
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"events3", EVENTS3_TOKEN, sizeof(Ball), &start, vars, sizeof vars / sizeof vars[0],
	calculate, initialize, do_step, update_discrete,
};
