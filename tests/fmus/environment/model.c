/* environment — the driver and the passenger of the power window (docs/powerwindow.md): six
 * Boolean button signals as fixed functions of time, no inputs.
 *
 * The schedule is a list of half-open intervals [from, to).  Communication points reached
 * as sums of steps miss the decimal instants by a few ulps (459 steps of 0.01 end at
 * 4.5899999999999...), so a time within a relative 1e-9 (absolute below 1 s) of a switching
 * instant counts as that instant before the intervals are applied: the outputs are exactly
 * right at every communication point on or near the schedule.
 *
 * A step that passes a switching instant is not cut there: the outputs are those of the
 * step's end, as for any Moore unit with nothing inside the step to report.  Every instant
 * lies on the 0.01 s grid, so a master whose communication step divides 0.01 s sees each
 * switch where it happens; a master off that grid sees it at its next communication point. */
#include <math.h>
#include <stddef.h>

#include "fmu_kit.h"

#define ENVIRONMENT_GUID "{3c8f1d62-7a45-4b0e-9e21-6d5a0f4b8c13}"

/* Relative tolerance for "at a switching instant" (also the kit's for communication points). */
#define INSTANT_RTOL 1e-9

enum {
	VR_DRIVER_UP = 0,
	VR_DRIVER_DOWN = 1,
	VR_DRIVER_STOP = 2,
	VR_PASSENGER_UP = 3,
	VR_PASSENGER_DOWN = 4,
	VR_PASSENGER_STOP = 5,
};

typedef struct Environment {
	fmi2Boolean driver_up;
	fmi2Boolean driver_down;
	fmi2Boolean driver_stop;
	fmi2Boolean passenger_up;
	fmi2Boolean passenger_down;
	fmi2Boolean passenger_stop;
} Environment;

static const Environment start = {fmi2False, fmi2False, fmi2False,
                                  fmi2False, fmi2False, fmi2False};

static const KitVar vars[] = {
	{"driver_up", VR_DRIVER_UP, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Environment, driver_up)},
	{"driver_down", VR_DRIVER_DOWN, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Environment, driver_down)},
	{"driver_stop", VR_DRIVER_STOP, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Environment, driver_stop)},
	{"passenger_up", VR_PASSENGER_UP, KIT_BOOLEAN, KIT_OUTPUT,
	 offsetof(Environment, passenger_up)},
	{"passenger_down", VR_PASSENGER_DOWN, KIT_BOOLEAN, KIT_OUTPUT,
	 offsetof(Environment, passenger_down)},
	{"passenger_stop", VR_PASSENGER_STOP, KIT_BOOLEAN, KIT_OUTPUT,
	 offsetof(Environment, passenger_stop)},
};

/* One button held over [from, to). */
typedef struct Press {
	size_t field; /* offsetof the output in Environment */
	double from, to;
} Press;

static const Press schedule[] = {
	{offsetof(Environment, driver_up), 0.01, 4.59},
	{offsetof(Environment, driver_stop), 4.59, 5.0},
	{offsetof(Environment, driver_down), 6.7, 7.1},
	{offsetof(Environment, driver_stop), 7.1, 8.5},
};

/* t, or the switching instant it is within tolerance of. */
static double snap_to_instant(double t)
{
	for (size_t i = 0; i < sizeof schedule / sizeof schedule[0]; i++) {
		const double at[2] = {schedule[i].from, schedule[i].to};
		for (int j = 0; j < 2; j++)
			if (fabs(t - at[j]) <= INSTANT_RTOL * fmax(1.0, fabs(at[j])))
				return at[j];
	}
	return t;
}

static fmi2Status calculate(KitInstance *k, void *state)
{
	Environment *e = state;
	double t = snap_to_instant(kit_time(k));
	unsigned char *base = state;
	*e = start;
	for (size_t i = 0; i < sizeof schedule / sizeof schedule[0]; i++)
		if (schedule[i].from <= t && t < schedule[i].to)
			*(fmi2Boolean *)(void *)(base + schedule[i].field) = fmi2True;
	return fmi2OK;
}

const KitModel kit_model = {
	"environment",
	ENVIRONMENT_GUID,
	sizeof(Environment),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	NULL, /* nothing to integrate: the kit moves the clock and calculate reads it */
};
