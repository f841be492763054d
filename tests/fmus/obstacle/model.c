/* obstacle — a stiff one-sided spring at the top of the window's travel (docs/powerwindow.md),
 * an algebraic FMU: no force until the window passes the obstacle's position, then a force
 * proportional to the penetration. */
#include <stddef.h>

#include "fmu_kit.h"

#define OBSTACLE_GUID "{5d21a8f0-6c3b-4e97-b2d4-8f1e0a9c7b02}"

enum {
	VR_DISP = 0,
	VR_REACTION_FORCE = 1,
	VR_C = 2,
	VR_POSITION = 3,
};

typedef struct Obstacle {
	fmi2Real disp;           /* m, the window's position */
	fmi2Real reaction_force; /* N */
	fmi2Real c;              /* N/m, stiffness */
	fmi2Real position;       /* m, where the obstacle is */
} Obstacle;

static const Obstacle start = {0.0, 0.0, 1e10, 0.45};

static const KitVar vars[] = {
	{"disp", VR_DISP, KIT_REAL, KIT_INPUT, offsetof(Obstacle, disp)},
	{"reaction_force", VR_REACTION_FORCE, KIT_REAL, KIT_OUTPUT, offsetof(Obstacle, reaction_force)},
	{"c", VR_C, KIT_REAL, KIT_PARAMETER, offsetof(Obstacle, c)},
	{"position", VR_POSITION, KIT_REAL, KIT_PARAMETER, offsetof(Obstacle, position)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Obstacle *o = state;
	(void)k;
	o->reaction_force = o->disp > o->position ? o->c * (o->disp - o->position) : 0.0;
	return fmi2OK;
}

const KitModel kit_model = {
	"obstacle",
	OBSTACLE_GUID,
	sizeof(Obstacle),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	NULL,
};
