/* ramp — x' = rate, with rate a tunable parameter, for the test that an importer's change
 * of an inner's tunable parameter between two steps reaches the inner through a wrapper
 * (tests/e2e/inner_params.sa, tests/unit/test_e2e_wrapper.c).  Each step adds rate h to
 * x with the rate of that moment, so x is exact for integer rates and steps of powers of
 * two, and a change of rate shows in the next step's slope and nowhere else. */
#include <stddef.h>

#include "fmu_kit.h"

#define RAMP_GUID "{6d0b2f9a-51c3-4e87-a2d4-93f7c1e05b68}"

enum { VR_X = 0, VR_RATE = 1 };

typedef struct Ramp {
	fmi2Real x;    /* output, the state */
	fmi2Real rate; /* tunable parameter */
} Ramp;

static const Ramp start = {0.0, 1.0};

static const KitVar vars[] = {
	{"x", VR_X, KIT_REAL, KIT_OUTPUT, offsetof(Ramp, x)},
	{"rate", VR_RATE, KIT_REAL, KIT_TUNABLE, offsetof(Ramp, rate)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	(void)k;
	(void)state;
	return fmi2OK;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Ramp *s = state;
	(void)k;
	(void)t;
	(void)reached;
	s->x += s->rate * h;
	return fmi2OK;
}

const KitModel kit_model = {
	"ramp",
	RAMP_GUID,
	sizeof(Ramp),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	do_step,
};
