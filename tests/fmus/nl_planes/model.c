/* nl_planes — unit A of the nonlinear loop of benchmark 2: the two planes
 * a + b + c = 0 and 2a - 3b + 2c = 9.  Given a they fix the rest: subtracting twice the
 * first from the second leaves -5b = 9, so b = -1.8 whatever a is, and c = -a - b = 1.8 - a.
 * With nl_sphere (a^2 + b^2 + c^2 = 5, solved for a) it makes a real two-FMU loop through
 * a and c; its solutions are a = 0.9 -+ sqrt(0.07), c = 1.8 - a. */
#include <stddef.h>

#include "fmu_kit.h"

#define NL_PLANES_GUID "{c3d95b7e-41a0-4f28-9e16-7a5c2d8b0f34}"

enum { VR_A = 0, VR_B = 1, VR_C = 2 };

typedef struct Planes {
	fmi2Real a; /* input */
	fmi2Real b; /* output */
	fmi2Real c; /* output */
} Planes;

/* a starts near the solution a = 0.635425, where plain fixed-point iteration is repelled */
static const Planes start = {0.6, -1.8, 1.2};

static const KitVar vars[] = {
	{"a", VR_A, KIT_REAL, KIT_INPUT, offsetof(Planes, a)},
	{"b", VR_B, KIT_REAL, KIT_OUTPUT, offsetof(Planes, b)},
	{"c", VR_C, KIT_REAL, KIT_OUTPUT, offsetof(Planes, c)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Planes *s = state;
	(void)k;
	s->b = -9.0 / 5.0;
	s->c = -s->a - s->b;
	return fmi2OK;
}

const KitModel kit_model = {
	"nl_planes",
	NL_PLANES_GUID,
	sizeof(Planes),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	NULL,
};
