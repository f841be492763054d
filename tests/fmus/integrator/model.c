/* integrator — x' = u, integrated exactly for inputs linear over the step (the master's
 * input derivative), for the orchestrator's tests (tests/unit/test_sart_master.c).
 *
 * Two parameters make it misbehave on purpose, so a master's status handling can be
 * checked: the step that ends after fail_at returns fmi2Error, and from the step that ends
 * after nan_at on the output x is NaN.  Both are negative (never) by default. */
#include <math.h>
#include <stddef.h>

#include "fmu_kit.h"

#define INTEGRATOR_GUID "{3f6c1d2e-8a47-4b95-9e0d-7c2a5b1f4e83}"

enum { VR_U = 0, VR_X = 1, VR_X0 = 2, VR_FAIL_AT = 3, VR_NAN_AT = 4 };

typedef struct Integrator {
	fmi2Real u;       /* input */
	fmi2Real x;       /* output, the state */
	fmi2Real x0;      /* x at the start */
	fmi2Real fail_at; /* s; < 0: never */
	fmi2Real nan_at;  /* s; < 0: never */
} Integrator;

static const Integrator start = {0.0, 0.0, 0.0, -1.0, -1.0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Integrator, u)},
	{"x", VR_X, KIT_REAL, KIT_OUTPUT, offsetof(Integrator, x)},
	{"x0", VR_X0, KIT_REAL, KIT_PARAMETER, offsetof(Integrator, x0)},
	{"fail_at", VR_FAIL_AT, KIT_REAL, KIT_PARAMETER, offsetof(Integrator, fail_at)},
	{"nan_at", VR_NAN_AT, KIT_REAL, KIT_PARAMETER, offsetof(Integrator, nan_at)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	(void)k;
	(void)state;
	return fmi2OK;
}

static fmi2Status initialize(KitInstance *k, void *state)
{
	Integrator *s = state;
	(void)k;
	s->x = s->x0;
	return fmi2OK;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Integrator *s = state;
	double end = t + h;
	(void)reached;
	if (s->fail_at >= 0 && end > s->fail_at * (1 + 1e-12)) {
		kit_log(k, fmi2Error, "fail_at = %g reached", s->fail_at);
		return fmi2Error;
	}
	/* the midpoint rule is exact for an input linear over the step */
	kit_inputs_at(k, t + h / 2);
	s->x += s->u * h;
	if (s->nan_at >= 0 && end > s->nan_at * (1 + 1e-12))
		s->x = NAN;
	return fmi2OK;
}

const KitModel kit_model = {
	"integrator",
	INTEGRATOR_GUID,
	sizeof(Integrator),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	initialize,
	do_step,
};
