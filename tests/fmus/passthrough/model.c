/* passthrough — y = u, direct feedthrough, and an FMU that declares it cannot get and set
 * its state (canGetAndSetFMUstate="false"): the lowering's tests use it for the error of a
 * loop form (successive substitution rolls every inner FMU back) over such an FMU. */
#include <stddef.h>

#include "fmu_kit.h"

#define PASSTHROUGH_GUID "{6b0e2c47-1d3a-4f58-9a61-2e7c8d4b5f90}"

enum { VR_U = 0, VR_Y = 1 };

typedef struct Passthrough {
	fmi2Real u;
	fmi2Real y;
} Passthrough;

static const Passthrough start = {0.0, 0.0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Passthrough, u)},
	{"y", VR_Y, KIT_REAL, KIT_OUTPUT, offsetof(Passthrough, y)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Passthrough *s = state;
	(void)k;
	s->y = s->u;
	return fmi2OK;
}

static fmi2Status initialize(KitInstance *k, void *state)
{
	return calculate(k, state);
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	(void)t;
	(void)h;
	(void)reached;
	return calculate(k, state);
}

const KitModel kit_model = {
	"passthrough",
	PASSTHROUGH_GUID,
	sizeof(Passthrough),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	initialize,
	do_step,
};
