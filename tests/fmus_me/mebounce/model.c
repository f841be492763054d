/* mebounce — a bouncing ball (tests/fmus_me/README.md):
 *
 *     h' = v,  v' = -g,  event indicator h;  at an impact (h <= 0, v < 0): v := -e v
 *
 * dropped from h0 = 1.  After the impact the ball is put just above the ground (h := the
 * smallest normal double, as the Reference FMUs do) so that the indicator does not sit on
 * zero.  A rebound slower than v_min ends the bouncing: the ball rests (v = 0, v' = 0), so
 * the impacts do not pile up towards their accumulation point (Zeno). */
#include <float.h>

#include "me_core.h"

enum {
	VR_TIME = 0,
	VR_H = 1,
	VR_DER_H = 2,
	VR_V = 3,
	VR_DER_V = 4,
	VR_G = 5,
	VR_E = 6,
	VR_V_MIN = 7
};

/* iaux[RESTING]: the ball has stopped bouncing. */
enum { RESTING = 0 };

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"h", VR_H, ME_STATE, 1.0},
	{"der(h)", VR_DER_H, ME_CALCULATED, 0.0},
	{"v", VR_V, ME_STATE, 0.0},
	{"der(v)", VR_DER_V, ME_CALCULATED, 0.0},
	{"g", VR_G, ME_PARAMETER, 9.81},
	{"e", VR_E, ME_TUNABLE, 0.7},
	{"v_min", VR_V_MIN, ME_PARAMETER, 0.1},
};

static const unsigned state_vr[] = {VR_H, VR_V};
static const unsigned der_vr[] = {VR_DER_H, VR_DER_V};

static int evaluate(MeInstance *m)
{
	ME_R(m, VR_DER_H) = ME_R(m, VR_V);
	ME_R(m, VR_DER_V) = m->d.iaux[RESTING] ? 0.0 : -ME_R(m, VR_G);
	return 0;
}

static void indicators(MeInstance *m, double z[])
{
	z[0] = ME_R(m, VR_H);
}

static void event_update(MeInstance *m, MeEventInfo *e)
{
	if (ME_R(m, VR_H) <= 0.0 && ME_R(m, VR_V) < 0.0) {
		ME_R(m, VR_H) = DBL_MIN;
		ME_R(m, VR_V) = -ME_R(m, VR_E) * ME_R(m, VR_V);
		if (ME_R(m, VR_V) < ME_R(m, VR_V_MIN)) {
			ME_R(m, VR_V) = 0.0;
			m->d.iaux[RESTING] = 1;
		}
		e->values_changed = 1;
	}
}

const MeModel me_model = {
	.identifier = "mebounce",
	.token = "{2d8e4a71-5c3b-4f09-9e16-7b0a2c5d8f43}",
	.reals = reals,
	.n_reals = sizeof reals / sizeof *reals,
	.n_states = 2,
	.state_vr = state_vr,
	.der_vr = der_vr,
	.n_indicators = 1,
	.evaluate = evaluate,
	.indicators = indicators,
	.event_update = event_update,
};
