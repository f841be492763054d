/* clocks_se — a Scheduled Execution FMU with every kind of input clock, one model partition
 * each, and an output clock; its clocked variables count ticks, so that the tick sequence an
 * importer produced can be read back and compared with one derived by hand.
 *
 *   clock      vr kind                          priority  partition
 *   tick        1 constant, interval 0.5 shift 0.25    1  ntick += 1; every 2nd tick gives
 *                                                         countdown the interval 0.1
 *   fixed       2 fixed, interval 1 shift 0.25         0  nfixed += 1; fixed_dt := its interval
 *                 (the importer may set both)
 *   tunable     3 tunable, interval := period          2  ntunable += 1
 *                 (the FMU gives it; shift 0)
 *   countdown   4 countdown, interval from tick        3  ncountdown += 1
 *   trig        5 triggered (from outside)             4  ntrig += 1; acc += u; every 2nd
 *                                                         trig raises out (nout += 1)
 *   out         6 output, triggered
 *
 * Every input partition also appends its clock's reference to seq (seq := seq mod 100000 * 10
 * + vr), so the order in which partitions ran at one instant shows in its last digits: smaller
 * priority values run first.  Changing the tunable parameter period changes the tunable
 * clock's interval; fmi3GetIntervalDecimal then answers fmi3IntervalChanged once, and the
 * next tick comes one new period after the time of that call's Clock Activation Mode. */
#include <stddef.h>

#include "fmu3_kit.h"

#define CLOCKS_SE_TOKEN "{5d0c2b7e-93a4-4f61-8e2d-c1a6b9f04e35}"

enum { VR_TICK = 1, VR_FIXED, VR_TUNABLE, VR_COUNTDOWN, VR_TRIG, VR_OUT };

typedef struct ClocksSe {
	fmi3Float64 time;
	Kit3ClockState tick, fixed, tunable, countdown, trig, out;
	fmi3Int32 ntick, nfixed, ntunable, ncountdown, ntrig, nout, seq;
	fmi3Float64 u, acc, fixed_dt;
	fmi3Float64 period;
	fmi3Float64 period_seen; /* internal: the period the tunable clock's interval is */
} ClocksSe;

static const ClocksSe start = {
	.tick = {fmi3False, fmi3IntervalUnchanged, 0.5, 0.25, 0.0, 0},
	.fixed = {fmi3False, fmi3IntervalUnchanged, 1.0, 0.25, 0.0, 0},
	.tunable = {fmi3False, fmi3IntervalChanged, 0.4, 0.0, 0.0, 0},
	.countdown = {fmi3False, fmi3IntervalNotYetKnown, 0.0, 0.0, 0.0, 0},
	.period = 0.4,
	.period_seen = 0.4,
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(ClocksSe, time), 1},
	{"ntick", 11, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, ntick), 1},
	{"nfixed", 12, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, nfixed), 1},
	{"ntunable", 13, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, ntunable), 1},
	{"ncountdown", 14, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, ncountdown), 1},
	{"ntrig", 15, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, ntrig), 1},
	{"nout", 16, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, nout), 1},
	{"seq", 17, K3_INT32, K3_OUTPUT, offsetof(ClocksSe, seq), 1},
	{"u", 18, K3_FLOAT64, K3_INPUT, offsetof(ClocksSe, u), 1},
	{"acc", 19, K3_FLOAT64, K3_OUTPUT, offsetof(ClocksSe, acc), 1},
	{"fixed_dt", 20, K3_FLOAT64, K3_OUTPUT, offsetof(ClocksSe, fixed_dt), 1},
	{"period", 21, K3_FLOAT64, K3_TUNABLE, offsetof(ClocksSe, period), 1},
};

static const Kit3ClockVar clocks[] = {
	{"tick", VR_TICK, K3_INPUT, K3C_CONSTANT, 0, offsetof(ClocksSe, tick)},
	{"fixed", VR_FIXED, K3_INPUT, K3C_FIXED, 1, offsetof(ClocksSe, fixed)},
	{"tunable", VR_TUNABLE, K3_INPUT, K3C_TUNABLE, 0, offsetof(ClocksSe, tunable)},
	{"countdown", VR_COUNTDOWN, K3_INPUT, K3C_COUNTDOWN, 0, offsetof(ClocksSe, countdown)},
	{"trig", VR_TRIG, K3_INPUT, K3C_TRIGGERED, 0, offsetof(ClocksSe, trig)},
	{"out", VR_OUT, K3_OUTPUT, K3C_TRIGGERED, 0, offsetof(ClocksSe, out)},
};

/* A new period becomes the tunable clock's interval, told once as changed. */
static fmi3Status calculate(Kit3Instance *k, void *state)
{
	ClocksSe *s = state;
	if (!(s->period > 0.0)) {
		kit3_log(k, fmi3Error, NULL, "period must be positive (is %g)", s->period);
		return fmi3Error;
	}
	if (s->period != s->period_seen) {
		s->tunable.interval = s->period;
		s->tunable.qualifier = fmi3IntervalChanged;
		s->period_seen = s->period;
	}
	return fmi3OK;
}

static fmi3Status activate(Kit3Instance *k, void *state, fmi3ValueReference clock, double t)
{
	ClocksSe *s = state;
	int update = 0;
	(void)t;
	s->seq = s->seq % 100000 * 10 + (fmi3Int32)clock;
	switch (clock) {
	case VR_TICK:
		s->ntick++;
		if (s->ntick % 2 == 0) {
			kit3_clock_countdown(k, s, VR_COUNTDOWN, 0.1);
			update = 1;
		}
		break;
	case VR_FIXED:
		s->nfixed++;
		s->fixed_dt = s->fixed.interval;
		break;
	case VR_TUNABLE: s->ntunable++; break;
	case VR_COUNTDOWN: s->ncountdown++; break;
	case VR_TRIG:
		s->ntrig++;
		s->acc += s->u;
		if (s->ntrig % 2 == 0) {
			s->nout++;
			kit3_clock_tick(k, s, VR_OUT);
			update = 1;
		}
		break;
	default: return fmi3Error; /* the kit passes input clocks only */
	}
	if (update)
		kit3_clock_update(k);
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"clocks_se", CLOCKS_SE_TOKEN, sizeof(ClocksSe), &start, vars, sizeof vars / sizeof vars[0],
	calculate, NULL, NULL, NULL,
};

const Kit3Clocks kit3_clocks = {clocks, sizeof clocks / sizeof clocks[0], activate};
