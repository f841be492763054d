/* interm3 — a Co-Simulation FMU with an internal solver that asks for its input between
 * communication points and returns early at an event: x' = u, integrated in internal steps
 * of dt (the last one of a communication step shortened to meet it), u held over each
 * internal step at the value it has at the step's start.  At each internal point strictly
 * inside a communication step it calls the importer's intermediate update callback with
 * intermediateVariableSetRequested (u is an intermediate input), intermediateVariableGetAllowed
 * (x is an intermediate output) and canReturnEarly: an importer that sets u there gives x the
 * left Riemann sum of u over the internal grid; one that does not gives x + h u over each
 * communication step.  An importer that asks to return early there gets the step back at
 * that point.  Once x reaches level (the first time, u > 0), that is an event at the time
 * x = level, found exactly on the internal step that crosses it:
 *   - with eventModeUsed: the step stops there when early return is allowed (else it goes
 *     on to its end) and asks for Event Mode, where hit becomes true and t_hit the time;
 *   - without: hit and t_hit are set at once, and the step stops there when early return
 *     is allowed. */
#include <math.h>
#include <stddef.h>

#include "fmu3_kit.h"

#define INTERM3_TOKEN "{e2b94c17-0d6a-4f85-b3e9-5a7c1d80f462}"

enum { VR_U = 1, VR_X, VR_DT, VR_LEVEL, VR_HIT, VR_T_HIT, VR_NSUB };

typedef struct Interm3 {
	fmi3Float64 time;
	fmi3Float64 u, x, dt, level;
	fmi3Boolean hit;
	fmi3Float64 t_hit;
	fmi3Int32 nsub;          /* internal steps taken */
	fmi3Boolean pending;     /* internal: x reached level, Event Mode not yet entered */
	fmi3Float64 pending_at;  /* internal */
} Interm3;

static const Interm3 start = {
	.dt = 0.1,
	.level = 1e300,
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Interm3, time), 1},
	{"u", VR_U, K3_FLOAT64, K3_INPUT, offsetof(Interm3, u), 1},
	{"x", VR_X, K3_FLOAT64, K3_OUTPUT, offsetof(Interm3, x), 1},
	{"dt", VR_DT, K3_FLOAT64, K3_PARAMETER, offsetof(Interm3, dt), 1},
	{"level", VR_LEVEL, K3_FLOAT64, K3_PARAMETER, offsetof(Interm3, level), 1},
	{"hit", VR_HIT, K3_BOOLEAN, K3_OUTPUT, offsetof(Interm3, hit), 1},
	{"t_hit", VR_T_HIT, K3_FLOAT64, K3_OUTPUT, offsetof(Interm3, t_hit), 1},
	{"nsub", VR_NSUB, K3_INT32, K3_OUTPUT, offsetof(Interm3, nsub), 1},
};

static const fmi3ValueReference intermediate_vrs[] = {VR_U, VR_X};

const Kit3Intermediate kit3_intermediate = {intermediate_vrs, 2};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	(void)k, (void)state;
	return fmi3OK;
}

static fmi3Status initialize(Kit3Instance *k, void *state)
{
	Interm3 *s = state;
	if (!(s->dt > 0.0)) {
		kit3_log(k, fmi3Error, NULL, "dt must be positive (is %g)", s->dt);
		return fmi3Error;
	}
	return fmi3OK;
}

/* x reached level at `at`: an event for Event Mode, or handled at once without it. */
static void reach_level(Kit3Instance *k, Interm3 *s, double at, Kit3Step *out)
{
	kit3_log(k, fmi3OK, "logEvents", "x reached %g at %.17g", s->level, at);
	if (kit3_event_mode_used(k)) {
		s->pending = fmi3True;
		s->pending_at = at;
		out->event = 1;
	} else {
		s->hit = fmi3True;
		s->t_hit = at;
	}
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	Interm3 *s = state;
	double now = t, end = t + h;
	while (end - now > 1e-12 * fmax(1.0, fabs(end))) {
		double dtk = fmin(s->dt, end - now), xn;
		if (now > t && kit3_intermediate_inputs(k, now, 1, 1, NULL)) {
			out->reached = now;
			out->early = 1;
			return fmi3OK;
		}
		xn = s->x + s->u * dtk;
		s->nsub++;
		if (!s->hit && !s->pending && s->u > 0.0 && s->x < s->level && xn >= s->level) {
			double at = now + (s->level - s->x) / s->u;
			s->x = s->level;
			reach_level(k, s, at, out);
			if (kit3_early_return_allowed(k)) {
				out->reached = at;
				out->early = at < end;
				return fmi3OK;
			}
			now = at; /* on from the event, on the same grid of dt */
			continue;
		}
		s->x = xn;
		now += dtk;
	}
	return fmi3OK;
}

static fmi3Status update_discrete(Kit3Instance *k, void *state, int *again, int *has_next,
                                  double *next_event)
{
	Interm3 *s = state;
	(void)k, (void)next_event;
	*again = 0;
	*has_next = 0;
	if (s->pending) {
		s->hit = fmi3True;
		s->t_hit = s->pending_at;
		s->pending = fmi3False;
	}
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"interm3", INTERM3_TOKEN, sizeof(Interm3), &start, vars, sizeof vars / sizeof vars[0],
	calculate, initialize, do_step, update_discrete,
};
