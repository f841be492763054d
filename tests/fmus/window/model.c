/* window — the power window's kinematics and friction (docs/powerwindow.md), an algebraic FMU.
 *
 * The motor shaft's angle and speed and the obstacle's contact force come in; the window's
 * height (in cm, as the original model declares it) and the torque the window exerts on the
 * shaft (positive in the raising direction, so negative while it resists) go out.  Both
 * outputs are direct feedthrough. */
#include <stddef.h>

#include "fmu_kit.h"

#define WINDOW_GUID "{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}"

enum {
	VR_DISPLACEMENT = 0,
	VR_SPEED = 1,
	VR_REACTION_FORCE = 2,
	VR_HEIGHT = 3,
	VR_REACTION_TORQUE = 4,
	VR_R = 5,
	VR_B = 6,
};

typedef struct Window {
	fmi2Real displacement;    /* rad */
	fmi2Real speed;           /* rad/s */
	fmi2Real reaction_force;  /* N */
	fmi2Real height;          /* cm */
	fmi2Real reaction_torque; /* N.m */
	fmi2Real r;               /* m, radius that turns shaft angle into travel */
	fmi2Real b;               /* friction coefficient */
} Window;

static const Window start = {0.0, 0.0, 0.0, 0.0, 0.0, 0.11, 10.0};

static const KitVar vars[] = {
	{"displacement", VR_DISPLACEMENT, KIT_REAL, KIT_INPUT, offsetof(Window, displacement)},
	{"speed", VR_SPEED, KIT_REAL, KIT_INPUT, offsetof(Window, speed)},
	{"reaction_force", VR_REACTION_FORCE, KIT_REAL, KIT_INPUT, offsetof(Window, reaction_force)},
	{"height", VR_HEIGHT, KIT_REAL, KIT_OUTPUT, offsetof(Window, height)},
	{"reaction_torque", VR_REACTION_TORQUE, KIT_REAL, KIT_OUTPUT,
	 offsetof(Window, reaction_torque)},
	{"r", VR_R, KIT_REAL, KIT_PARAMETER, offsetof(Window, r)},
	{"b", VR_B, KIT_REAL, KIT_PARAMETER, offsetof(Window, b)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Window *w = state;
	(void)k;
	w->height = 100.0 * w->r * w->displacement;
	w->reaction_torque = -(w->r * w->reaction_force + w->b * w->r * w->speed);
	return fmi2OK;
}

const KitModel kit_model = {
	"window",
	WINDOW_GUID,
	sizeof(Window),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	NULL,
};
