/* aparam3 — FMI 3.0 array parameters of sized types: y = sum over i of
 * (on[i] ? w[i] * u : 0) + off[i], with w a tunable Float32 array, off a tunable Int8 array
 * and on a fixed Boolean array, two elements each.  For the wrappers' array parameters. */
#include <stddef.h>

#include "fmu3_kit.h"

#define APARAM3_TOKEN "{3c7e1a90-5b2d-4f61-8e04-b9d2a6f1c358}"

typedef struct Aparam3 {
	fmi3Float64 time;
	fmi3Float64 u;
	fmi3Float32 w[2];
	fmi3Int8 off[2];
	fmi3Boolean on[2];
	fmi3Float64 y;
} Aparam3;

static const Aparam3 start = {
	.w = {0.5f, 0.25f},
	.off = {1, -2},
	.on = {fmi3True, fmi3False},
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Aparam3, time), 1},
	{"u", 1, K3_FLOAT64, K3_INPUT, offsetof(Aparam3, u), 1},
	{"w", 2, K3_FLOAT32, K3_TUNABLE, offsetof(Aparam3, w), 2},
	{"off", 3, K3_INT8, K3_TUNABLE, offsetof(Aparam3, off), 2},
	{"on", 4, K3_BOOLEAN, K3_PARAMETER, offsetof(Aparam3, on), 2},
	{"y", 5, K3_FLOAT64, K3_OUTPUT, offsetof(Aparam3, y), 1},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	Aparam3 *s = state;
	(void)k;
	s->y = 0.0;
	for (int i = 0; i < 2; i++)
		s->y += (s->on[i] ? (double)s->w[i] * s->u : 0.0) + s->off[i];
	return fmi3OK;
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	(void)k, (void)state, (void)t, (void)h, (void)out;
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"aparam3", APARAM3_TOKEN, sizeof(Aparam3), &start, vars, sizeof vars / sizeof vars[0],
	calculate, NULL, do_step, NULL,
};
