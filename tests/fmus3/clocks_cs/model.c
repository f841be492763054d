/* clocks_cs — a Co-Simulation FMU with clocks handled in Event Mode: a sawtooth x' = rate
 * from x = 0, reset to 0 each time it reaches 1, with
 *
 *   clock   vr kind                                  ticks                 clocked variables
 *   sample   1 input, constant, interval 0.3         0.05 0.35 0.65 ...    xs := x, nsample += 1
 *              shift 0.05
 *   trig     2 input, triggered                      from outside          acc += u, ntrig += 1
 *   wrap     3 output                                each reset of x       nwrap += 1
 *                                                    (a state event)
 *   alarm    4 output                                once, at t_alarm      nalarm += 1
 *                                                    (a time event)
 *
 * The motion is integrated exactly, so every tick time can be derived by hand: with rate 1,
 * x = t mod 1 and wrap ticks at 1, 2, 3...  Instantiated with eventModeUsed, fmi3DoStep stops
 * at the reset or at t_alarm when early return is allowed (else x waits at 1, or the alarm
 * waits, until the step's end) and asks for Event Mode, where fmi3UpdateDiscreteStates resets
 * x and raises the output clock, and runs the partitions of the input clocks the importer set
 * (fmi3SetClock).  fmi3UpdateDiscreteStates gives t_alarm as the next time event until the
 * alarm has ticked.  Without eventModeUsed the resets happen inside the step, the counters
 * still count, and no clock can be seen. */
#include <math.h>
#include <stddef.h>

#include "fmu3_kit.h"

#define CLOCKS_CS_TOKEN "{a83f61d2-4c07-4b9e-92d5-7e1c08f3b6a4}"

enum { VR_SAMPLE = 1, VR_TRIG, VR_WRAP, VR_ALARM };

typedef struct ClocksCs {
	fmi3Float64 time;
	Kit3ClockState sample, trig, wrap, alarm;
	fmi3Float64 x, rate, xs, u, acc, t_alarm;
	fmi3Int32 nsample, ntrig, nwrap, nalarm;
	fmi3Boolean wrap_pending;  /* internal: x reached 1, the reset waits for Event Mode */
	fmi3Boolean alarm_pending; /* internal: t_alarm reached, the tick waits for Event Mode */
	fmi3Boolean alarm_done;    /* internal */
} ClocksCs;

static const ClocksCs start = {
	.sample = {fmi3False, fmi3IntervalUnchanged, 0.3, 0.05, 0.0, 0},
	.rate = 1.0,
	.t_alarm = 0.75,
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(ClocksCs, time), 1},
	{"x", 10, K3_FLOAT64, K3_OUTPUT, offsetof(ClocksCs, x), 1},
	{"rate", 11, K3_FLOAT64, K3_PARAMETER, offsetof(ClocksCs, rate), 1},
	{"xs", 12, K3_FLOAT64, K3_OUTPUT, offsetof(ClocksCs, xs), 1},
	{"nsample", 13, K3_INT32, K3_OUTPUT, offsetof(ClocksCs, nsample), 1},
	{"u", 14, K3_FLOAT64, K3_INPUT, offsetof(ClocksCs, u), 1},
	{"acc", 15, K3_FLOAT64, K3_OUTPUT, offsetof(ClocksCs, acc), 1},
	{"ntrig", 16, K3_INT32, K3_OUTPUT, offsetof(ClocksCs, ntrig), 1},
	{"nwrap", 17, K3_INT32, K3_OUTPUT, offsetof(ClocksCs, nwrap), 1},
	{"t_alarm", 18, K3_FLOAT64, K3_PARAMETER, offsetof(ClocksCs, t_alarm), 1},
	{"nalarm", 19, K3_INT32, K3_OUTPUT, offsetof(ClocksCs, nalarm), 1},
};

static const Kit3ClockVar clocks[] = {
	{"sample", VR_SAMPLE, K3_INPUT, K3C_CONSTANT, 0, offsetof(ClocksCs, sample)},
	{"trig", VR_TRIG, K3_INPUT, K3C_TRIGGERED, 0, offsetof(ClocksCs, trig)},
	{"wrap", VR_WRAP, K3_OUTPUT, K3C_TRIGGERED, 0, offsetof(ClocksCs, wrap)},
	{"alarm", VR_ALARM, K3_OUTPUT, K3C_TRIGGERED, 0, offsetof(ClocksCs, alarm)},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	(void)k, (void)state;
	return fmi3OK;
}

static fmi3Status initialize(Kit3Instance *k, void *state)
{
	ClocksCs *s = state;
	if (!(s->rate > 0.0)) {
		kit3_log(k, fmi3Error, NULL, "rate must be positive (is %g)", s->rate);
		return fmi3Error;
	}
	return fmi3OK;
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	ClocksCs *s = state;
	double now = t, end = t + h;
	int em = kit3_event_mode_used(k);
	if (s->wrap_pending) {
		out->event = 1; /* x still waits at 1 for Event Mode */
		return fmi3OK;
	}
	out->event = s->alarm_pending;
	while (now < end) {
		double cross = now + (1.0 - s->x) / s->rate;
		double alarm = s->alarm_done || s->alarm_pending ? INFINITY : fmax(s->t_alarm, now);
		double stop = fmin(cross, alarm);
		if (stop > end) {
			s->x += s->rate * (end - now);
			return fmi3OK;
		}
		s->x = stop == cross ? 1.0 : s->x + s->rate * (stop - now);
		now = stop;
		if (!em) { /* no Event Mode: reset and count inside the step */
			if (stop == cross) {
				s->x = 0.0;
				s->nwrap++;
			} else {
				s->alarm_done = fmi3True;
				s->nalarm++;
			}
			continue;
		}
		s->wrap_pending = stop == cross;
		s->alarm_pending = s->alarm_pending || stop == alarm;
		out->event = 1;
		if (kit3_early_return_allowed(k)) {
			out->reached = now;
			out->early = now < end;
			return fmi3OK;
		}
		if (s->wrap_pending)
			return fmi3OK; /* x waits at 1 until the step's end */
	}
	return fmi3OK;
}

static fmi3Status update_discrete(Kit3Instance *k, void *state, int *again, int *has_next,
                                  double *next_event)
{
	ClocksCs *s = state;
	*again = 0;
	if (s->wrap_pending) {
		s->x = 0.0;
		s->nwrap++;
		s->wrap_pending = fmi3False;
		kit3_clock_tick(k, s, VR_WRAP);
	}
	if (s->alarm_pending) {
		s->nalarm++;
		s->alarm_pending = fmi3False;
		s->alarm_done = fmi3True;
		kit3_clock_tick(k, s, VR_ALARM);
	}
	if (kit3_clock_active(k, s, VR_SAMPLE)) {
		s->xs = s->x;
		s->nsample++;
	}
	if (kit3_clock_active(k, s, VR_TRIG)) {
		s->acc += s->u;
		s->ntrig++;
	}
	*has_next = !s->alarm_done && s->t_alarm >= kit3_time(k);
	*next_event = s->t_alarm;
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"clocks_cs", CLOCKS_CS_TOKEN, sizeof(ClocksCs), &start, vars, sizeof vars / sizeof vars[0],
	calculate, initialize, do_step, update_discrete,
};

const Kit3Clocks kit3_clocks = {clocks, sizeof clocks / sizeof clocks[0], NULL};
