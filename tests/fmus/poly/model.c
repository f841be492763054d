/* poly — a test FMU for the master's higher-order input approximations (docs/simulate.md, "Input approximation": quadratic
 * extrapolation, Hermite predictor), which the kit's FMUs cannot take: it accepts input
 * derivatives of order 1 and 2 and gives output derivatives of order 1.
 *
 *   s = c0 + c1 t + c2 t^2 + c3 t^3
 *                              output: a polynomial source, ds/dt = c1 + 2 c2 t + 3 c3 t^2
 *   x' = u, x(start) = x0      output: integrated exactly for inputs quadratic over a step,
 *                              u(tau) = u + du (tau - t) + d2u (tau - t)^2 / 2
 *   y                          output: the input as the FMU saw it at the end of its last
 *                              step (u at the start): what the master's extrapolation made
 *                              of u, so a test can compare it with the source it predicts
 * Output derivatives (order 1): ds/dt as above, dx/dt = y, dy/dt = du + d2u h of the last
 * step.  Neither x nor y depends directly on u.
 *
 * The kit supplies everything else: this file includes the kit's C with its
 * fmi2SetRealInputDerivatives and fmi2GetRealOutputDerivatives renamed and defines them
 * itself (second derivatives are kept in the model's struct, so states carry them), so it
 * is compiled alone (the Makefile's rule for poly.fmu), not with fmu_kit.c. */
#include <math.h>
#include <stddef.h>

#define fmi2SetRealInputDerivatives kit_fmi2SetRealInputDerivatives
#define fmi2GetRealOutputDerivatives kit_fmi2GetRealOutputDerivatives
#include "fmu_kit.c"
#undef fmi2SetRealInputDerivatives
#undef fmi2GetRealOutputDerivatives

#define POLY_GUID "{2c8e4a61-7b3d-4f09-a5e2-9d1c6b0f8e37}"

enum {
	VR_U = 0, VR_X = 1, VR_Y = 2, VR_S = 3, VR_X0 = 4, VR_C0 = 5, VR_C1 = 6, VR_C2 = 7,
	VR_C3 = 8
};

typedef struct Poly {
	fmi2Real u, x, y, s;
	fmi2Real x0, c0, c1, c2, c3;
	fmi2Real d2u; /* the second derivative of u for the next step (0: none) */
	fmi2Real dy;  /* dy/dt at the end of the last step */
} Poly;

static const Poly start = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Poly, u)},
	{"x", VR_X, KIT_REAL, KIT_OUTPUT, offsetof(Poly, x)},
	{"y", VR_Y, KIT_REAL, KIT_OUTPUT, offsetof(Poly, y)},
	{"s", VR_S, KIT_REAL, KIT_OUTPUT, offsetof(Poly, s)},
	{"x0", VR_X0, KIT_REAL, KIT_PARAMETER, offsetof(Poly, x0)},
	{"c0", VR_C0, KIT_REAL, KIT_PARAMETER, offsetof(Poly, c0)},
	{"c1", VR_C1, KIT_REAL, KIT_PARAMETER, offsetof(Poly, c1)},
	{"c2", VR_C2, KIT_REAL, KIT_PARAMETER, offsetof(Poly, c2)},
	{"c3", VR_C3, KIT_REAL, KIT_PARAMETER, offsetof(Poly, c3)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Poly *p = state;
	double t = kit_time(k);
	p->s = p->c0 + t * (p->c1 + t * (p->c2 + t * p->c3));
	return fmi2OK;
}

static fmi2Status initialize(KitInstance *k, void *state)
{
	Poly *p = state;
	(void)k;
	p->x = p->x0;
	p->y = p->u;
	return fmi2OK;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Poly *p = state;
	(void)reached;
	/* the kit keeps u at the step's start and its first derivative, by variable index:
	 * u is vars[0] */
	double u0 = k->u0[0], du = k->du[0], d2 = p->d2u;
	p->x += u0 * h + du * h * h / 2 + d2 * h * h * h / 6;
	p->y = u0 + du * h + d2 * h * h / 2;
	p->dy = du + d2 * h;
	p->d2u = 0; /* derivatives hold for one step, as the kit's */
	(void)t;
	return fmi2OK;
}

const KitModel kit_model = {
	"poly",
	POLY_GUID,
	sizeof(Poly),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	initialize,
	do_step,
};

/* Orders 1 go to the kit, orders 2 of u into the model's struct. */
FMI2_Export fmi2SetRealInputDerivativesTYPE fmi2SetRealInputDerivatives;

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
	const char *fn = "fmi2SetRealInputDerivatives";
	KitInstance *k = enter(c, fn, PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE);
	if (!k)
		return fmi2Error;
	if (nvr && (!vr || !order || !value)) {
		kit_log(k, fmi2Error, "%s: NULL argument", fn);
		return fmi2Error;
	}
	for (size_t i = 0; i < nvr; i++) {
		if (vr[i] != VR_U || order[i] < 1 || order[i] > 2) {
			kit_log(k, fmi2Error, "%s: derivative order %d of value reference %u is not "
			        "supported (u, orders 1 and 2)", fn, order[i], vr[i]);
			return fmi2Error;
		}
	}
	for (size_t i = 0; i < nvr; i++) {
		if (order[i] == 2) {
			((Poly *)k->state)->d2u = value[i];
			continue;
		}
		fmi2Status st = kit_fmi2SetRealInputDerivatives(c, &vr[i], 1, &order[i], &value[i]);
		if (st != fmi2OK)
			return st;
	}
	return fmi2OK;
}

FMI2_Export fmi2GetRealOutputDerivativesTYPE fmi2GetRealOutputDerivatives;

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
	const char *fn = "fmi2GetRealOutputDerivatives";
	KitInstance *k = enter(c, fn, PH_GET);
	if (!k)
		return fmi2Error;
	if (nvr && (!vr || !order || !value)) {
		kit_log(k, fmi2Error, "%s: NULL argument", fn);
		return fmi2Error;
	}
	const Poly *p = (const Poly *)k->state;
	double t = kit_time(k);
	for (size_t i = 0; i < nvr; i++) {
		if (order[i] != 1 || (vr[i] != VR_S && vr[i] != VR_X && vr[i] != VR_Y)) {
			kit_log(k, fmi2Error, "%s: derivative order %d of value reference %u is not "
			        "supported (s, x, y; order 1)", fn, order[i], vr[i]);
			return fmi2Error;
		}
		value[i] = vr[i] == VR_S   ? p->c1 + t * (2 * p->c2 + 3 * p->c3 * t)
		           : vr[i] == VR_X ? p->y
		                           : p->dy;
	}
	return fmi2OK;
}
