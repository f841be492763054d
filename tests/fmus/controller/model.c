/* controller — the power window's control software (docs/powerwindow.md), a statechart.
 *
 *   Normal operation
 *     Driver neutral                  driver_up -> Driver up, driver_down -> Driver down
 *       Passenger neutral             passenger_up -> Passenger up,
 *                                     passenger_down -> Passenger down
 *       Passenger down                any stop -> Passenger neutral
 *     Driver up, Driver down,
 *     Passenger up                    any stop -> Driver neutral / Passenger neutral
 *   obj_detected, from anywhere in Normal operation -> Emergency
 *   Emergency                         after 1 s -> Driver neutral / Passenger neutral
 *
 * Step semantics (fmi2DoStep(t, h)):
 *  - The inputs set before the step are sampled at its end, t + h: every input that is
 *    true raises its event there, and the chart then takes one run-to-completion step with
 *    those events (at most one transition, events consumed).  Priority: obj_detected over
 *    everything; an outer state's transitions over an inner one's (the driver's buttons
 *    over the passenger's); up over down over stop within one button group.
 *  - Emergency's timer is the chart's only internal event.  When it falls inside the step
 *    (earlier than t + h by more than the tolerance), the chart advances exactly to the
 *    expiry, takes the timer transition and the step returns fmi2Discard with the expiry
 *    as the time reached; the step's inputs, which belong to t + h, are not consumed.  When
 *    it falls at the step's end (within the tolerance), the timer transition is taken
 *    first and the inputs' events are then processed at the same instant, so a button
 *    still held when the emergency ends acts at once.
 *  - The tolerance is a relative 1e-9 (absolute below 1 s), the kit's own for
 *    communication points: a master that lands on the expiry by a sum of steps lands on
 *    it, and is never sent back for an ulp.
 *
 * Outputs depend on the active state only (Moore): up in Driver up and Passenger up, down
 * in Driver down, Passenger down and Emergency, stop in Driver neutral / Passenger
 * neutral.  The active state and the timer's expiry are read-only local variables. */
#include <math.h>
#include <stddef.h>

#include "fmu_kit.h"

#define CONTROLLER_GUID "{8e2b5f17-4d09-4c6a-a3f8-1b7e9d0c2a64}"

#define EMERGENCY_DURATION 1.0 /* s, how long Emergency drives the motor down */
#define TIME_RTOL 1e-9

enum {
	VR_OBJ_DETECTED = 0,
	VR_DRIVER_UP = 1,
	VR_DRIVER_DOWN = 2,
	VR_DRIVER_STOP = 3,
	VR_PASSENGER_UP = 4,
	VR_PASSENGER_DOWN = 5,
	VR_PASSENGER_STOP = 6,
	VR_UP = 7,
	VR_DOWN = 8,
	VR_STOP = 9,
	VR_CHART_STATE = 0,     /* Integer */
	VR_EMERGENCY_UNTIL = 0, /* Real */
};

/* The active leaf of the chart (the value of the local chart_state). */
typedef enum ChartState {
	ST_NEUTRAL = 0,        /* Driver neutral / Passenger neutral */
	ST_PASSENGER_DOWN = 1, /* Driver neutral / Passenger down */
	ST_DRIVER_UP = 2,
	ST_DRIVER_DOWN = 3,
	ST_PASSENGER_UP = 4,
	ST_EMERGENCY = 5,
} ChartState;

static const char *const state_names[] = {
	"Driver neutral / Passenger neutral", "Driver neutral / Passenger down", "Driver up",
	"Driver down", "Passenger up", "Emergency",
};

typedef struct Controller {
	fmi2Boolean obj_detected;
	fmi2Boolean driver_up;
	fmi2Boolean driver_down;
	fmi2Boolean driver_stop;
	fmi2Boolean passenger_up;
	fmi2Boolean passenger_down;
	fmi2Boolean passenger_stop;
	fmi2Boolean up;
	fmi2Boolean down;
	fmi2Boolean stop;
	fmi2Integer chart_state;   /* a ChartState */
	fmi2Real emergency_until;  /* s, the timer's expiry while in Emergency, else 0 */
} Controller;

static const Controller start = {
	fmi2False, fmi2False, fmi2False, fmi2False, fmi2False, fmi2False, fmi2False,
	fmi2False, fmi2False, fmi2True, ST_NEUTRAL, 0.0,
};

static const KitVar vars[] = {
	{"obj_detected", VR_OBJ_DETECTED, KIT_BOOLEAN, KIT_INPUT, offsetof(Controller, obj_detected)},
	{"driver_up", VR_DRIVER_UP, KIT_BOOLEAN, KIT_INPUT, offsetof(Controller, driver_up)},
	{"driver_down", VR_DRIVER_DOWN, KIT_BOOLEAN, KIT_INPUT, offsetof(Controller, driver_down)},
	{"driver_stop", VR_DRIVER_STOP, KIT_BOOLEAN, KIT_INPUT, offsetof(Controller, driver_stop)},
	{"passenger_up", VR_PASSENGER_UP, KIT_BOOLEAN, KIT_INPUT, offsetof(Controller, passenger_up)},
	{"passenger_down", VR_PASSENGER_DOWN, KIT_BOOLEAN, KIT_INPUT,
	 offsetof(Controller, passenger_down)},
	{"passenger_stop", VR_PASSENGER_STOP, KIT_BOOLEAN, KIT_INPUT,
	 offsetof(Controller, passenger_stop)},
	{"up", VR_UP, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Controller, up)},
	{"down", VR_DOWN, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Controller, down)},
	{"stop", VR_STOP, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Controller, stop)},
	{"chart_state", VR_CHART_STATE, KIT_INTEGER, KIT_LOCAL, offsetof(Controller, chart_state)},
	{"emergency_until", VR_EMERGENCY_UNTIL, KIT_REAL, KIT_LOCAL,
	 offsetof(Controller, emergency_until)},
};

static int valid_state(fmi2Integer s)
{
	return s >= ST_NEUTRAL && s <= ST_EMERGENCY;
}

static void go_to(KitInstance *k, Controller *c, ChartState to, double now)
{
	kit_log(k, fmi2OK, "t = %.17g: %s -> %s", now, state_names[c->chart_state],
	        state_names[to]);
	c->chart_state = to;
	c->emergency_until = to == ST_EMERGENCY ? now + EMERGENCY_DURATION : 0.0;
}

/* One run-to-completion step at time now with the events the inputs raise. */
static void react(KitInstance *k, Controller *c, double now)
{
	int any_stop = c->driver_stop || c->passenger_stop;
	if (c->chart_state == ST_EMERGENCY)
		return; /* only the timer leaves Emergency */
	/* Normal operation: obj_detected first */
	if (c->obj_detected) {
		go_to(k, c, ST_EMERGENCY, now);
		return;
	}
	switch ((ChartState)c->chart_state) {
	case ST_NEUTRAL:
	case ST_PASSENGER_DOWN:
		/* Driver neutral, before its inner states */
		if (c->driver_up) {
			go_to(k, c, ST_DRIVER_UP, now);
		} else if (c->driver_down) {
			go_to(k, c, ST_DRIVER_DOWN, now);
		} else if (c->chart_state == ST_NEUTRAL) {
			if (c->passenger_up)
				go_to(k, c, ST_PASSENGER_UP, now);
			else if (c->passenger_down)
				go_to(k, c, ST_PASSENGER_DOWN, now);
		} else if (any_stop) {
			go_to(k, c, ST_NEUTRAL, now);
		}
		break;
	case ST_DRIVER_UP:
	case ST_DRIVER_DOWN:
	case ST_PASSENGER_UP:
		if (any_stop)
			go_to(k, c, ST_NEUTRAL, now);
		break;
	case ST_EMERGENCY:
		break;
	}
}

static fmi2Status calculate(KitInstance *k, void *state)
{
	Controller *c = state;
	if (!valid_state(c->chart_state)) {
		kit_log(k, fmi2Error, "chart_state %d is not a state of the chart", c->chart_state);
		return fmi2Error;
	}
	c->up = c->chart_state == ST_DRIVER_UP || c->chart_state == ST_PASSENGER_UP;
	c->down = c->chart_state == ST_DRIVER_DOWN || c->chart_state == ST_PASSENGER_DOWN ||
	          c->chart_state == ST_EMERGENCY;
	c->stop = c->chart_state == ST_NEUTRAL;
	return fmi2OK;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Controller *c = state;
	double end = t + h;
	if (!valid_state(c->chart_state)) {
		kit_log(k, fmi2Error, "chart_state %d is not a state of the chart", c->chart_state);
		return fmi2Error;
	}
	if (c->chart_state == ST_EMERGENCY) {
		double due = c->emergency_until;
		double tol = TIME_RTOL * fmax(1.0, fabs(due));
		if (due < end - tol) {
			/* The timer expires inside the step: stop there, transition taken. */
			*reached = due > t ? due : t;
			go_to(k, c, ST_NEUTRAL, *reached);
			return fmi2Discard;
		}
		if (due <= end + tol)
			go_to(k, c, ST_NEUTRAL, end);
	}
	react(k, c, end);
	return fmi2OK;
}

const KitModel kit_model = {
	"controller",
	CONTROLLER_GUID,
	sizeof(Controller),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	do_step,
};
