/* feedthrough — every output is its input, port by port: a Real continuous, a Real
 * discrete, an Integer and a Boolean pair (the shape of the Reference FMUs' Feedthrough).
 * Each output depends on its own input only, so that the dependency tests can tell a
 * wrapper that keeps those dependencies from one that declares every output dependent on
 * every input; the discrete pair tells whether a wrapper holds a discrete input. */
#include <stddef.h>

#include "fmu_kit.h"

#define FEEDTHROUGH_GUID "{3c1f6a2e-8b47-4d09-a5e2-71f0c9d84b36}"

enum { VR_REAL_C_IN = 0, VR_REAL_C_OUT = 1, VR_REAL_D_IN = 2, VR_REAL_D_OUT = 3 };
enum { VR_INT_IN = 0, VR_INT_OUT = 1 };
enum { VR_BOOL_IN = 0, VR_BOOL_OUT = 1 };

typedef struct Feedthrough {
	fmi2Real c_in, c_out, d_in, d_out;
	fmi2Integer i_in, i_out;
	fmi2Boolean b_in, b_out;
} Feedthrough;

static const Feedthrough start = {0.0, 0.0, 0.0, 0.0, 0, 0, fmi2False, fmi2False};

static const KitVar vars[] = {
	{"Float64_continuous_input", VR_REAL_C_IN, KIT_REAL, KIT_INPUT, offsetof(Feedthrough, c_in)},
	{"Float64_continuous_output", VR_REAL_C_OUT, KIT_REAL, KIT_OUTPUT,
	 offsetof(Feedthrough, c_out)},
	{"Float64_discrete_input", VR_REAL_D_IN, KIT_REAL, KIT_INPUT, offsetof(Feedthrough, d_in)},
	{"Float64_discrete_output", VR_REAL_D_OUT, KIT_REAL, KIT_OUTPUT,
	 offsetof(Feedthrough, d_out)},
	{"Int32_input", VR_INT_IN, KIT_INTEGER, KIT_INPUT, offsetof(Feedthrough, i_in)},
	{"Int32_output", VR_INT_OUT, KIT_INTEGER, KIT_OUTPUT, offsetof(Feedthrough, i_out)},
	{"Boolean_input", VR_BOOL_IN, KIT_BOOLEAN, KIT_INPUT, offsetof(Feedthrough, b_in)},
	{"Boolean_output", VR_BOOL_OUT, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Feedthrough, b_out)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Feedthrough *s = state;
	(void)k;
	s->c_out = s->c_in;
	s->d_out = s->d_in;
	s->i_out = s->i_in;
	s->b_out = s->b_in;
	return fmi2OK;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	(void)t;
	(void)h;
	(void)reached;
	return calculate(k, state);
}

const KitModel kit_model = {
	"feedthrough",
	FEEDTHROUGH_GUID,
	sizeof(Feedthrough),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	do_step,
};
