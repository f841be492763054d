/* mestiff — Robertson's chemical kinetics, the classic stiff test problem
 * (tests/fmus_me/README.md):
 *
 *     y1' = -k1 y1 + k3 y2 y3
 *     y2' =  k1 y1 - k3 y2 y3 - k2 y2^2
 *     y3' =  k2 y2^2                      k1 = 0.04, k2 = 3e7, k3 = 1e4;  y(0) = (1, 0, 0)
 *
 * Its eigenvalues span eleven decades, so an explicit method is held to tiny steps for the
 * whole run.  y2 stays below 4e-5: its nominal is 1e-5, so that a solver weighting errors by
 * nominals resolves it.  Directional derivatives give the exact Jacobian. */
#include "me_core.h"

enum {
	VR_TIME = 0,
	VR_Y1 = 1,
	VR_Y2 = 2,
	VR_Y3 = 3,
	VR_DER_Y1 = 4,
	VR_DER_Y2 = 5,
	VR_DER_Y3 = 6,
	VR_K1 = 7,
	VR_K2 = 8,
	VR_K3 = 9
};

static const MeVar reals[] = {
	{"time", VR_TIME, ME_TIME, 0.0},
	{"y1", VR_Y1, ME_STATE, 1.0},
	{"y2", VR_Y2, ME_STATE, 0.0},
	{"y3", VR_Y3, ME_STATE, 0.0},
	{"der(y1)", VR_DER_Y1, ME_CALCULATED, 0.0},
	{"der(y2)", VR_DER_Y2, ME_CALCULATED, 0.0},
	{"der(y3)", VR_DER_Y3, ME_CALCULATED, 0.0},
	{"k1", VR_K1, ME_PARAMETER, 0.04},
	{"k2", VR_K2, ME_PARAMETER, 3e7},
	{"k3", VR_K3, ME_PARAMETER, 1e4},
};

static const unsigned state_vr[] = {VR_Y1, VR_Y2, VR_Y3};
static const unsigned der_vr[] = {VR_DER_Y1, VR_DER_Y2, VR_DER_Y3};

static int evaluate(MeInstance *m)
{
	double y1 = ME_R(m, VR_Y1), y2 = ME_R(m, VR_Y2), y3 = ME_R(m, VR_Y3);
	double r1 = ME_R(m, VR_K1) * y1;      /* the three reaction rates */
	double r2 = ME_R(m, VR_K2) * y2 * y2;
	double r3 = ME_R(m, VR_K3) * y2 * y3;
	ME_R(m, VR_DER_Y1) = -r1 + r3;
	ME_R(m, VR_DER_Y2) = r1 - r3 - r2;
	ME_R(m, VR_DER_Y3) = r2;
	return 0;
}

static void nominals(const MeInstance *m, double nom[])
{
	(void)m;
	nom[0] = 1.0;
	nom[1] = 1e-5;
	nom[2] = 1.0;
}

/* The Jacobian of the derivatives, and the identity for the states (the outputs). */
static int partial(const MeInstance *m, unsigned of, unsigned wrt, double *d)
{
	double k1 = ME_R(m, VR_K1), k2 = ME_R(m, VR_K2), k3 = ME_R(m, VR_K3);
	double y2 = ME_R(m, VR_Y2), y3 = ME_R(m, VR_Y3);
	/* rows: d(r1)/dy, d(r2)/dy, d(r3)/dy for y = y1, y2, y3 */
	double dr1 = wrt == VR_Y1 ? k1 : 0.0;
	double dr2 = wrt == VR_Y2 ? 2.0 * k2 * y2 : 0.0;
	double dr3 = wrt == VR_Y2 ? k3 * y3 : wrt == VR_Y3 ? k3 * y2 : 0.0;
	if (wrt != VR_Y1 && wrt != VR_Y2 && wrt != VR_Y3)
		return 1;
	switch (of) {
	case VR_Y1:
	case VR_Y2:
	case VR_Y3: *d = of == wrt ? 1.0 : 0.0; return 0;
	case VR_DER_Y1: *d = -dr1 + dr3; return 0;
	case VR_DER_Y2: *d = dr1 - dr3 - dr2; return 0;
	case VR_DER_Y3: *d = dr2; return 0;
	default: return 1;
	}
}

const MeModel me_model = {
	.identifier = "mestiff",
	.token = "{9a4c1e07-3b6d-4f82-a5e9-1d7c0b3f6e28}",
	.reals = reals,
	.n_reals = sizeof reals / sizeof *reals,
	.n_states = 3,
	.state_vr = state_vr,
	.der_vr = der_vr,
	.evaluate = evaluate,
	.nominals = nominals,
	.partial = partial,
};
