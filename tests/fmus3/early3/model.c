/* early3 — a Co-Simulation FMU that returns early: it ticks at phase + i * period (a time
 * event inside the FMU), counting ticks and remembering the last one.  Given
 * earlyReturnAllowed it returns from fmi3DoStep at every tick strictly inside the step
 * (earlyReturn, lastSuccessfulTime = the tick); otherwise it steps through them.  At every tick
 * it calls the importer's intermediate update callback, if any, which may also ask it to
 * return there. */
#include <stddef.h>

#include "fmu3_kit.h"

#define EARLY3_TOKEN "{51c0e8a7-2f94-4b3d-8e6c-0a7d9b1f4c28}"

typedef struct Early3 {
	fmi3Float64 time;
	fmi3Float64 period;
	fmi3Float64 phase;
	fmi3Int32 count;
	fmi3Float64 last_tick;
	fmi3Float64 next_tick; /* internal */
} Early3;

static const Early3 start = {
	.period = 0.25,
	.phase = 0.1,
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Early3, time), 1},
	{"period", 1, K3_FLOAT64, K3_PARAMETER, offsetof(Early3, period), 1},
	{"phase", 2, K3_FLOAT64, K3_PARAMETER, offsetof(Early3, phase), 1},
	{"count", 3, K3_INT32, K3_OUTPUT, offsetof(Early3, count), 1},
	{"last_tick", 4, K3_FLOAT64, K3_OUTPUT, offsetof(Early3, last_tick), 1},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	(void)k, (void)state;
	return fmi3OK;
}

static fmi3Status initialize(Kit3Instance *k, void *state)
{
	Early3 *s = state;
	if (!(s->period > 0.0)) {
		kit3_log(k, fmi3Error, NULL, "period must be positive");
		return fmi3Error;
	}
	s->next_tick = s->phase;
	while (s->next_tick < kit3_time(k))
		s->next_tick += s->period;
	return fmi3OK;
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	Early3 *s = state;
	double end = t + h;
	(void)t;
	while (s->next_tick <= end) {
		double tick = s->next_tick;
		int inside = tick < end;
		s->count++;
		s->last_tick = tick;
		s->next_tick = s->phase + s->count * s->period;
		kit3_log(k, fmi3OK, "logEvents", "tick %d at %g", (int)s->count, tick);
		if (kit3_intermediate_update(k, tick, 0, inside) ||
		    (inside && kit3_early_return_allowed(k))) {
			out->reached = tick;
			out->early = 1;
			return fmi3OK;
		}
	}
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"early3", EARLY3_TOKEN, sizeof(Early3), &start, vars, sizeof vars / sizeof vars[0],
	calculate, initialize, do_step, NULL,
};
