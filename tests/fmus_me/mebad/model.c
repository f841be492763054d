/* mebad — a model that misbehaves on purpose, chosen by the Integer parameter `mode`
 * (tests/fmus_me/README.md).  Normally (mode 0) x' = -x, x(0) = 1, with one event indicator
 * that stays at 1.  From t = 0.5 (T_BAD):
 *
 *   1  the derivative is NaN (status OK: the FMU does not notice);
 *   2  the event indicator chatters: its sign flips at every evaluation;
 *   3  the event iteration never settles: a time event at 0.5, after which every
 *      NewDiscreteStates / UpdateDiscreteStates asks for another;
 *   4  (from t = 0) x' = x^2: x = 1/(1 - t) blows up at t = 1, no solver reaches it;
 *   5  a time event at 0.5 that asks to terminate the simulation. */
#include <math.h>

#include "me_core.h"

#define T_BAD 0.5

enum { VR_TIME = 0, VR_X = 1, VR_DER_X = 2, VR_Z = 3, VR_MODE = ME_INT_BASE };

enum { MODE_GOOD, MODE_NAN, MODE_CHATTER, MODE_NO_SETTLE, MODE_BLOW_UP, MODE_TERMINATE };

/* iaux[FLIPS]: how many times the chattering indicator was evaluated after T_BAD. */
enum { FLIPS = 0 };

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"x", VR_X, ME_STATE, 1.0},
	{"der(x)", VR_DER_X, ME_CALCULATED, 0.0},
	{"z", VR_Z, ME_CALCULATED, 1.0},
};

static const MeVar ints[] = {
	{"mode", VR_MODE, ME_PARAMETER, 0.0},
};

static const unsigned state_vr[] = {VR_X};
static const unsigned der_vr[] = {VR_DER_X};

static int mode(const MeInstance *m)
{
	return ME_I(m, VR_MODE);
}

static int has_time_event(const MeInstance *m)
{
	return mode(m) == MODE_NO_SETTLE || mode(m) == MODE_TERMINATE;
}

static void initialize(MeInstance *m, MeEventInfo *e)
{
	if (has_time_event(m) && m->d.time < T_BAD) {
		e->next_event_time_defined = 1;
		e->next_event_time = T_BAD;
	}
}

static int evaluate(MeInstance *m)
{
	double x = ME_R(m, VR_X);
	if (mode(m) == MODE_BLOW_UP)
		ME_R(m, VR_DER_X) = x * x;
	else if (mode(m) == MODE_NAN && m->d.time >= T_BAD)
		ME_R(m, VR_DER_X) = NAN;
	else
		ME_R(m, VR_DER_X) = -x;
	return 0;
}

static void indicators(MeInstance *m, double z[])
{
	double v = 1.0;
	if (mode(m) == MODE_CHATTER && m->d.time >= T_BAD)
		v = m->d.iaux[FLIPS]++ % 2 == 0 ? -1.0 : 1.0;
	ME_R(m, VR_Z) = v;
	z[0] = v;
}

static void event_update(MeInstance *m, MeEventInfo *e)
{
	int after = m->d.time >= T_BAD;
	if (has_time_event(m) && !after) {
		e->next_event_time_defined = 1;
		e->next_event_time = T_BAD;
	}
	if (mode(m) == MODE_NO_SETTLE && after)
		e->discrete_states_need_update = 1;
	if (mode(m) == MODE_TERMINATE && after)
		e->terminate_simulation = 1;
}

const MeModel me_model = {
	.identifier = "mebad",
	.token = "{e3a80f5c-1d29-4b7e-96c4-58f0b2a7d1e9}",
	.reals = reals,
	.n_reals = sizeof reals / sizeof *reals,
	.ints = ints,
	.n_ints = sizeof ints / sizeof *ints,
	.n_states = 1,
	.state_vr = state_vr,
	.der_vr = der_vr,
	.n_indicators = 1,
	.initialize = initialize,
	.evaluate = evaluate,
	.indicators = indicators,
	.event_update = event_update,
};
