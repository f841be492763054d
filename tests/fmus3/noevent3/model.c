/* noevent3 — an FMU that declares hasEventMode but refuses eventModeUsed = true, as the
 * models without events of some exporters' frameworks do (fmi3InstantiateCoSimulation logs
 * "Event Mode is not supported" and returns NULL).  The model is a damped decay with a
 * forcing input, x' = -k (x - u), integrated exactly over a step with u held:
 * x(t + h) = u + (x(t) - u) exp(-k h), x(0) = x0; y = x. */
#include <math.h>
#include <stddef.h>

#include "fmu3_kit.h"

#define NOEVENT3_TOKEN "{3f7a1c58-92d4-4b0e-a6c3-d81e5b2f0a97}"

typedef struct Decay {
	fmi3Float64 time;
	fmi3Float64 k, x0;
	fmi3Float64 u;
	fmi3Float64 x;
} Decay;

static const Decay start = {
	.k = 2.0,
	.x0 = 1.0,
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Decay, time), 1},
	{"k", 1, K3_FLOAT64, K3_PARAMETER, offsetof(Decay, k), 1},
	{"x0", 2, K3_FLOAT64, K3_PARAMETER, offsetof(Decay, x0), 1},
	{"u", 3, K3_FLOAT64, K3_INPUT, offsetof(Decay, u), 1},
	{"x", 4, K3_FLOAT64, K3_OUTPUT, offsetof(Decay, x), 1},
};

/* Read by the kit's fmi3InstantiateCoSimulation (a weak reference there). */
const int kit3_refuses_event_mode = 1;

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	(void)k, (void)state;
	return fmi3OK;
}

static fmi3Status initialize(Kit3Instance *k, void *state)
{
	Decay *s = state;
	if (!(s->k >= 0.0)) {
		kit3_log(k, fmi3Error, NULL, "need k >= 0");
		return fmi3Error;
	}
	s->x = s->x0;
	return fmi3OK;
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	Decay *s = state;
	(void)k, (void)t, (void)out;
	s->x = s->u + (s->x - s->u) * exp(-s->k * h);
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"noevent3", NOEVENT3_TOKEN, sizeof(Decay), &start, vars, sizeof vars / sizeof vars[0],
	calculate, initialize, do_step, NULL,
};

/* built for Windows too (tests/wine/) */
KIT3_NO_CLOCKS;
