/* affine — y = gain u + offset + w, an algebraic unit with direct feedthrough, for the
 * algebraic loops of benchmark 2 (bench/loops/, tests/unit/test_sart_loops.c):
 * two of them fed back into each other make the affine loop (unit 1: y1 = a u1 + 1,
 * unit 2: y2 = b u2 - 2) and a textbook loop (A: y = 2u + 1, B: u = 0.6 y).  The
 * second input w (0 unless connected) lets a test drive a loop from outside. */
#include <stddef.h>

#include "fmu_kit.h"

#define AFFINE_GUID "{a7f1e0c4-2b39-4d5e-8c61-0f9b3e7d2a15}"

enum { VR_U = 0, VR_Y = 1, VR_GAIN = 2, VR_OFFSET = 3, VR_W = 4 };

typedef struct Affine {
	fmi2Real u;      /* input */
	fmi2Real y;      /* output */
	fmi2Real gain;   /* parameter */
	fmi2Real offset; /* parameter */
	fmi2Real w;      /* input, added */
} Affine;

static const Affine start = {0.0, 0.0, 1.0, 0.0, 0.0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Affine, u)},
	{"y", VR_Y, KIT_REAL, KIT_OUTPUT, offsetof(Affine, y)},
	{"gain", VR_GAIN, KIT_REAL, KIT_PARAMETER, offsetof(Affine, gain)},
	{"offset", VR_OFFSET, KIT_REAL, KIT_PARAMETER, offsetof(Affine, offset)},
	{"w", VR_W, KIT_REAL, KIT_INPUT, offsetof(Affine, w)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Affine *s = state;
	(void)k;
	s->y = s->gain * s->u + s->offset + s->w;
	return fmi2OK;
}

const KitModel kit_model = {
	"affine",
	AFFINE_GUID,
	sizeof(Affine),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	NULL,
};
