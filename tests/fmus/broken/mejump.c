/* mejump — not broken: a Model Exchange library (FMI 2.0, no model description) for the
 * seam's test of an input that jumps between two steps (tests/unit/test_sart_inner_me.c).
 * It is built here because this folder makes a whole library of one file; the model is
 * written on the kit of the Model Exchange test FMUs (tests/fmus_me/kit/), included whole.
 *
 *     x' = 1,  input u,  event indicator z = u - 1
 *     at an event: above := (u > 1); when it changes, t_switch := time, events += 1
 *
 * Nothing continuous crosses the threshold: only a set of u between steps can, and the
 * solver, restarted with the new u, sees the indicator on its new side from the start.  So
 * the event at the step's start is the seam's to find. */
#include "../../fmus_me/kit/me_core.c"
#include "../../fmus_me/kit/me_fmi2.c"

enum { VR_TIME = 0, VR_X = 1, VR_DER_X = 2, VR_U = 3, VR_T_SWITCH = 4 };
enum { VR_ABOVE = ME_INT_BASE, VR_EVENTS = ME_INT_BASE + 1 };

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"x", VR_X, ME_STATE, 0.0},
	{"der(x)", VR_DER_X, ME_CALCULATED, 0.0},
	{"u", VR_U, ME_INPUT, 0.0},
	{"t_switch", VR_T_SWITCH, ME_CALCULATED, -1.0},
};

static const MeVar ints[] = {
	{"above", VR_ABOVE, ME_CALCULATED, 0.0},
	{"events", VR_EVENTS, ME_CALCULATED, 0.0},
};

static const unsigned state_vr[] = {VR_X};
static const unsigned der_vr[] = {VR_DER_X};

static void initialize(MeInstance *m, MeEventInfo *e)
{
	(void)e;
	ME_I(m, VR_ABOVE) = ME_R(m, VR_U) > 1.0;
}

static int evaluate(MeInstance *m)
{
	ME_R(m, VR_DER_X) = 1.0;
	return 0;
}

static void indicators(MeInstance *m, double z[])
{
	z[0] = ME_R(m, VR_U) - 1.0;
}

static void event_update(MeInstance *m, MeEventInfo *e)
{
	int above = ME_R(m, VR_U) > 1.0;
	(void)e;
	if (above != ME_I(m, VR_ABOVE)) {
		ME_I(m, VR_ABOVE) = above;
		ME_R(m, VR_T_SWITCH) = m->d.time;
		ME_I(m, VR_EVENTS)++;
	}
}

const MeModel me_model = {
	.identifier = "mejump",
	.token = "{mejump}",
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
