/* metime — time events (tests/fmus_me/README.md):
 *
 *     x' = gain u,  u piecewise constant: u = s[k mod 4] on [k T, (k+1) T),  s = 1, 3, -2, 0.5
 *
 * gain is a discrete Real input (1 unless set), which FMI lets an importer set only in Event
 * Mode (and before initialization ends): the kit refuses it in Continuous-Time Mode.  So
 * is the source s, a tunable array parameter (four scalars s[1] .. s[4] in FMI 2.0): u
 * follows a change of the element it stands on at once.
 * T = period (0.25).  The model announces each switch through nextEventTime; in the Event
 * Mode at t = (k+1) T it moves u to the next value and counts the event in the Integer
 * output `events`.  x is piecewise linear: exact at every switch with any consistent solver. */
#include <math.h>

#include "me_core.h"

enum {
	VR_TIME = 0,
	VR_X = 1,
	VR_DER_X = 2,
	VR_U = 3,
	VR_PERIOD = 4,
	VR_GAIN = 5,
	VR_S = 6, /* s[1] .. s[4]: 6 .. 9 */
	VR_EVENTS = ME_INT_BASE
};

/* iaux[K]: the index of the interval u stands on now. */
enum { K = 0 };

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"x", VR_X, ME_STATE, 0.0},
	{"der(x)", VR_DER_X, ME_CALCULATED, 0.0},
	{"u", VR_U, ME_CALCULATED, 1.0},
	{"period", VR_PERIOD, ME_PARAMETER, 0.25},
	{"gain", VR_GAIN, ME_DISCRETE_INPUT, 1.0},
	{"s[1]", VR_S, ME_TUNABLE, 1.0},
	{"s[2]", VR_S + 1, ME_TUNABLE, 3.0},
	{"s[3]", VR_S + 2, ME_TUNABLE, -2.0},
	{"s[4]", VR_S + 3, ME_TUNABLE, 0.5},
};

static const MeArray arrays[] = {{VR_S, 4}};

static const MeVar ints[] = {
	{"events", VR_EVENTS, ME_CALCULATED, 0.0},
};

static const unsigned state_vr[] = {VR_X};
static const unsigned der_vr[] = {VR_DER_X};

static void announce_next(const MeInstance *m, MeEventInfo *e)
{
	e->next_event_time_defined = 1;
	e->next_event_time = (double)(m->d.iaux[K] + 1) * ME_R(m, VR_PERIOD);
}

static void initialize(MeInstance *m, MeEventInfo *e)
{
	m->d.iaux[K] = 0;
	ME_I(m, VR_EVENTS) = 0;
	announce_next(m, e);
}

static int evaluate(MeInstance *m)
{
	ME_R(m, VR_U) = ME_R(m, VR_S + (unsigned)(m->d.iaux[K] % 4));
	ME_R(m, VR_DER_X) = ME_R(m, VR_GAIN) * ME_R(m, VR_U);
	return 0;
}

/* The switch happens when time has reached the announced instant (to rounding: an importer
 * may land on it from a sum of steps). */
static void event_update(MeInstance *m, MeEventInfo *e)
{
	double next = (double)(m->d.iaux[K] + 1) * ME_R(m, VR_PERIOD);
	if (m->d.time >= next - 1e-12 * fmax(1.0, fabs(next))) {
		m->d.iaux[K]++;
		ME_I(m, VR_EVENTS)++;
	}
	announce_next(m, e);
}

const MeModel me_model = {
	.identifier = "metime",
	.token = "{4f7b2d90-6e1a-4c35-8b07-e2a9d5c1f376}",
	.reals = reals,
	.n_reals = sizeof reals / sizeof *reals,
	.ints = ints,
	.n_ints = sizeof ints / sizeof *ints,
	.arrays = arrays,
	.n_arrays = sizeof arrays / sizeof *arrays,
	.n_states = 1,
	.state_vr = state_vr,
	.der_vr = der_vr,
	.initialize = initialize,
	.evaluate = evaluate,
	.event_update = event_update,
};
