/* melinear — a damped oscillator as a linear system x' = A x + B u, for Model Exchange and
 * Co-Simulation alike (tests/fmus_me/README.md):
 *
 *     x1' = x2
 *     x2' = -k x1 - c x2 + b u
 *
 * Outputs are the states.  The states' nominals are 1e3 and 2e3 (the oscillation starts at
 * x1 = 1000), so an importer that ignores nominals is seen to.  Directional derivatives are
 * exact: the entries of A and B. */
#include "me_core.h"

enum {
	VR_TIME = 0,
	VR_X1 = 1,
	VR_X2 = 2,
	VR_DER_X1 = 3,
	VR_DER_X2 = 4,
	VR_U = 5,
	VR_K = 6,
	VR_C = 7,
	VR_B = 8
};

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"x1", VR_X1, ME_STATE, 1000.0},
	{"x2", VR_X2, ME_STATE, 0.0},
	{"der(x1)", VR_DER_X1, ME_CALCULATED, 0.0},
	{"der(x2)", VR_DER_X2, ME_CALCULATED, 0.0},
	{"u", VR_U, ME_INPUT, 0.0},
	{"k", VR_K, ME_PARAMETER, 4.0},
	{"c", VR_C, ME_PARAMETER, 0.4},
	{"b", VR_B, ME_PARAMETER, 1.0},
};

static const unsigned state_vr[] = {VR_X1, VR_X2};
static const unsigned der_vr[] = {VR_DER_X1, VR_DER_X2};

static int evaluate(MeInstance *m)
{
	ME_R(m, VR_DER_X1) = ME_R(m, VR_X2);
	ME_R(m, VR_DER_X2) = -ME_R(m, VR_K) * ME_R(m, VR_X1) - ME_R(m, VR_C) * ME_R(m, VR_X2) +
	                     ME_R(m, VR_B) * ME_R(m, VR_U);
	return 0;
}

static void nominals(const MeInstance *m, double nom[])
{
	(void)m;
	nom[0] = 1e3;
	nom[1] = 2e3;
}

/* The entries of [A B] and of the outputs' identity; 0 for pairs with no dependence. */
static int partial(const MeInstance *m, unsigned of, unsigned wrt, double *d)
{
	if (wrt != VR_X1 && wrt != VR_X2 && wrt != VR_U)
		return 1;
	switch (of) {
	case VR_X1:
	case VR_X2: *d = of == wrt ? 1.0 : 0.0; return 0;
	case VR_DER_X1: *d = wrt == VR_X2 ? 1.0 : 0.0; return 0;
	case VR_DER_X2:
		*d = wrt == VR_X1 ? -ME_R(m, VR_K) : wrt == VR_X2 ? -ME_R(m, VR_C) : ME_R(m, VR_B);
		return 0;
	default: return 1;
	}
}

const MeModel me_model = {
	.identifier = "melinear",
	.token = "{6b1f3c2e-8a47-4d90-b2e5-3c7d9e0a1f64}",
	.reals = reals,
	.n_reals = sizeof reals / sizeof *reals,
	.n_states = 2,
	.state_vr = state_vr,
	.der_vr = der_vr,
	.evaluate = evaluate,
	.nominals = nominals,
	.partial = partial,
	.cs_step = 1e-3,
};
