/* nl_sphere — unit B of the nonlinear loop of benchmark 2: the sphere
 * a^2 + b^2 + c^2 = 5 solved for a >= 0 given b and c.  Outside the sphere
 * (b^2 + c^2 > 5) a is NaN: a loop solver that wanders there is told so. */
#include <math.h>
#include <stddef.h>

#include "fmu_kit.h"

#define NL_SPHERE_GUID "{e58a2f61-93cb-4d07-b4e2-1c6f8a3d9e70}"

enum { VR_B = 0, VR_C = 1, VR_A = 2 };

typedef struct Sphere {
	fmi2Real b; /* input */
	fmi2Real c; /* input */
	fmi2Real a; /* output */
} Sphere;

static const Sphere start = {0.0, 0.0, 2.2360679774997898};

static const KitVar vars[] = {
	{"b", VR_B, KIT_REAL, KIT_INPUT, offsetof(Sphere, b)},
	{"c", VR_C, KIT_REAL, KIT_INPUT, offsetof(Sphere, c)},
	{"a", VR_A, KIT_REAL, KIT_OUTPUT, offsetof(Sphere, a)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Sphere *s = state;
	double r2 = 5.0 - s->b * s->b - s->c * s->c;
	(void)k;
	s->a = r2 >= 0 ? sqrt(r2) : NAN;
	return fmi2OK;
}

const KitModel kit_model = {
	"nl_sphere",
	NL_SPHERE_GUID,
	sizeof(Sphere),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	NULL,
};
