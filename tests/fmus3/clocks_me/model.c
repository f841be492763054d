/* clocks_me — a Model Exchange FMU with clocks, on the Model Exchange kit
 * (tests/fmus_me/kit, FMI 3.0 skin only): the sawtooth of clocks_cs, x' = rate from x = 0,
 * reset to 0 where it reaches 1, found by the importer through the event indicator
 * z = 1 - x (a state event), with
 *
 *   clock   vr   kind                                 ticks               clocked variables
 *   sample  201  input, constant, interval 0.3        0.05 0.35 0.65 ...  xs := x, nsample += 1
 *                shift 0.05
 *   trig    202  input, triggered                     from outside        ntrig += 1
 *   wrap    203  output                               each reset of x     nwrap += 1
 *
 * all handled in the event iteration (fmi3UpdateDiscreteStates) of the Event Mode the
 * importer enters at the tick (input clocks, set with fmi3SetClock) or at the state event
 * (wrap, reported by fmi3GetClock).  With rate 1, x = t mod 1, so every tick time and value
 * follows by hand. */
#include "me_core.h"

enum { VR_TIME = 0, VR_X = 1, VR_DER_X = 2, VR_RATE = 3, VR_XS = 4, VR_Z = 5 };
enum { VR_NSAMPLE = ME_INT_BASE, VR_NTRIG, VR_NWRAP };
enum { VR_SAMPLE = 201, VR_TRIG, VR_WRAP };

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"x", VR_X, ME_STATE, 0.0},
	{"der(x)", VR_DER_X, ME_CALCULATED, 0.0},
	{"rate", VR_RATE, ME_PARAMETER, 1.0},
	{"xs", VR_XS, ME_CALCULATED, 0.0},
	{"z", VR_Z, ME_CALCULATED, 1.0},
};

static const MeVar ints[] = {
	{"nsample", VR_NSAMPLE, ME_CALCULATED, 0.0},
	{"ntrig", VR_NTRIG, ME_CALCULATED, 0.0},
	{"nwrap", VR_NWRAP, ME_CALCULATED, 0.0},
};

static const MeClock clocks[] = {
	{"sample", VR_SAMPLE, 0, 0.3, 0.05},
	{"trig", VR_TRIG, 0, 0.0, 0.0},
	{"wrap", VR_WRAP, 1, 0.0, 0.0},
};

static const unsigned state_vr[] = {VR_X};
static const unsigned der_vr[] = {VR_DER_X};

static int evaluate(MeInstance *m)
{
	ME_R(m, VR_DER_X) = ME_R(m, VR_RATE);
	ME_R(m, VR_Z) = 1.0 - ME_R(m, VR_X);
	return 0;
}

static void indicators(MeInstance *m, double z[])
{
	z[0] = 1.0 - ME_R(m, VR_X); /* the variable z */
}

/* The reset where x has reached 1 (to rounding: the importer lands on it from a located
 * crossing), then the partitions of the input clocks the importer set. */
static void event_update(MeInstance *m, MeEventInfo *e)
{
	if (ME_R(m, VR_X) >= 1.0 - 1e-9) {
		ME_R(m, VR_X) = 0.0;
		ME_I(m, VR_NWRAP)++;
		me_clock_tick(m, VR_WRAP);
		e->values_changed = 1;
	}
	if (me_clock_active(m, VR_SAMPLE)) {
		ME_R(m, VR_XS) = ME_R(m, VR_X);
		ME_I(m, VR_NSAMPLE)++;
	}
	if (me_clock_active(m, VR_TRIG))
		ME_I(m, VR_NTRIG)++;
}

const MeModel me_model = {
	.identifier = "clocks_me",
	.token = "{7c1e5a39-b2d4-4086-9f3a-d85e0c6b21f7}",
	.reals = reals,
	.n_reals = sizeof reals / sizeof *reals,
	.ints = ints,
	.n_ints = sizeof ints / sizeof *ints,
	.n_states = 1,
	.state_vr = state_vr,
	.der_vr = der_vr,
	.n_indicators = 1,
	.evaluate = evaluate,
	.indicators = indicators,
	.event_update = event_update,
	.clocks = clocks,
	.n_clocks = sizeof clocks / sizeof *clocks,
};
