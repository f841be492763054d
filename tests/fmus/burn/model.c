/* burn — x' = u as the integrator FMU, plus a calibrated amount of work per step: y runs a
 * recurrence `work` times each step, so a step costs what the caller asks (bench/parallel,
 * and the parallel tests in tests/unit/test_sart_parallel.c).
 *
 * Its parameters also make it talk and misbehave, so that a master stepping FMUs at once
 * can be checked to say and do what it says and does on one thread: every warn_every-th
 * step logs a warning naming the instance's step count and returns fmi2Warning; the step
 * that would cross discard_at stops there and returns fmi2Discard (once, since the master
 * then redoes it shorter); the step that ends after fail_at returns fmi2Error. */
#include <math.h>
#include <stddef.h>

#include "fmu_kit.h"

#define BURN_GUID "{5d0c7a39-1e64-4f2b-b8a1-3c9e2f6d4a17}"

enum {
	VR_U = 0, VR_X = 1, VR_Y = 2, VR_WORK = 3, VR_WARN_EVERY = 4, VR_DISCARD_AT = 5,
	VR_FAIL_AT = 6, VR_X0 = 7
};

typedef struct Burn {
	fmi2Real u;          /* input */
	fmi2Real x;          /* output: the integral of u */
	fmi2Real y;          /* output: the recurrence's value */
	fmi2Integer work;    /* iterations of the recurrence per step */
	fmi2Integer warn_every; /* 0: never */
	fmi2Real discard_at; /* < 0: never */
	fmi2Real fail_at;    /* < 0: never */
	fmi2Real x0;
	fmi2Integer steps;   /* steps taken (part of the state, so a restore rewinds it) */
} Burn;

static const Burn start = {0.0, 0.0, 0.0, 0, 0, -1.0, -1.0, 0.0, 0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Burn, u)},
	{"x", VR_X, KIT_REAL, KIT_OUTPUT, offsetof(Burn, x)},
	{"y", VR_Y, KIT_REAL, KIT_OUTPUT, offsetof(Burn, y)},
	{"work", VR_WORK, KIT_INTEGER, KIT_PARAMETER, offsetof(Burn, work)},
	{"warn_every", VR_WARN_EVERY, KIT_INTEGER, KIT_PARAMETER, offsetof(Burn, warn_every)},
	{"discard_at", VR_DISCARD_AT, KIT_REAL, KIT_PARAMETER, offsetof(Burn, discard_at)},
	{"fail_at", VR_FAIL_AT, KIT_REAL, KIT_PARAMETER, offsetof(Burn, fail_at)},
	{"x0", VR_X0, KIT_REAL, KIT_PARAMETER, offsetof(Burn, x0)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	(void)k;
	(void)state;
	return fmi2OK;
}

static fmi2Status initialize(KitInstance *k, void *state)
{
	Burn *s = state;
	(void)k;
	s->x = s->x0;
	s->y = 0;
	return fmi2OK;
}

/* The work: a recurrence the compiler cannot shorten, contracting towards u. */
static double burn(double y, double u, long n)
{
	for (long i = 0; i < n; i++)
		y = 0.999 * y + 0.001 * u + 1e-9 * (double)(i & 7);
	return y;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Burn *s = state;
	double end = t + h;
	if (s->fail_at >= 0 && end > s->fail_at * (1 + 1e-12)) {
		kit_log(k, fmi2Error, "fail_at = %g reached", s->fail_at);
		return fmi2Error;
	}
	if (s->discard_at > t && end > s->discard_at * (1 + 1e-12)) {
		kit_inputs_at(k, t + (s->discard_at - t) / 2);
		s->x += s->u * (s->discard_at - t);
		*reached = s->discard_at;
		kit_log(k, fmi2Discard, "discard_at = %g: stopped there", s->discard_at);
		return fmi2Discard;
	}
	kit_inputs_at(k, t + h / 2);
	s->x += s->u * h;
	s->y = burn(s->y, s->u, s->work);
	s->steps++;
	if (s->warn_every > 0 && s->steps % s->warn_every == 0) {
		kit_log(k, fmi2Warning, "step %d ends at t = %g", (int)s->steps, end);
		return fmi2Warning;
	}
	return fmi2OK;
}

const KitModel kit_model = {
	"burn",
	BURN_GUID,
	sizeof(Burn),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	initialize,
	do_step,
};
