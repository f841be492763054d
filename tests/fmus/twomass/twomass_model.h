/* twomass_model.h — one mass of the two-coupled-masses benchmark (bench/two_mass/README.md),
 * shared by tests/fmus/mass1/model.c and tests/fmus/mass2/model.c, which include it once
 * each and add only their start values, GUID and KitModel.
 *
 *   m x'' = -(k + kc) x - c v + kc xo + c vo
 *
 * The mass hangs on a wall spring k and is tied to the other mass (position xo, velocity
 * vo: the inputs) by a spring kc in parallel with a damper c.  Outputs are the states x, v
 * (Moore).  fmi2DoStep integrates EXACTLY for inputs linear over the step (their values at
 * the step start plus the slopes given by fmi2SetRealInputDerivatives; held when none are
 * given), by the matrix exponential of the augmented linear system
 *
 *   z = [x, v, xo, vo, dxo, dvo],  xo' = dxo,  vo' = dvo,  dxo' = dvo' = 0,
 *   z(t + h) = expm(A h) z(t)
 *
 * so that a master coupling two of them commits no error but its coupling error.  The
 * slopes are not handed to the model by the kit directly: they are read back as
 * (u(t + h) - u(t)) / h from kit_inputs_at, which is exactly linear.  GSL computes the
 * exponential (gsl_linalg_exponential_ss, scaling and squaring, double precision); the
 * model keeps no GSL state, and GSL's error handler is left as the host set it (the only
 * failure left for these fixed, matching sizes is running out of memory). */
#ifndef TWOMASS_MODEL_H
#define TWOMASS_MODEL_H

#include <math.h>
#include <stddef.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "fmu_kit.h"

enum {
	VR_XO = 0,
	VR_VO = 1,
	VR_X = 2,
	VR_V = 3,
	VR_M = 4,
	VR_K = 5,
	VR_KC = 6,
	VR_C = 7,
	VR_X0 = 8,
	VR_V0 = 9,
};

typedef struct Mass {
	fmi2Real xo; /* m, the other mass's position (input) */
	fmi2Real vo; /* m/s, the other mass's velocity (input) */
	fmi2Real x;  /* m, position (output, state) */
	fmi2Real v;  /* m/s, velocity (output, state) */
	fmi2Real m;  /* kg */
	fmi2Real k;  /* N/m, wall spring */
	fmi2Real kc; /* N/m, coupling spring */
	fmi2Real c;  /* N.s/m, coupling damper */
	fmi2Real x0; /* m, initial position */
	fmi2Real v0; /* m/s, initial velocity */
} Mass;

static const KitVar mass_vars[] = {
	{"xo", VR_XO, KIT_REAL, KIT_INPUT, offsetof(Mass, xo)},
	{"vo", VR_VO, KIT_REAL, KIT_INPUT, offsetof(Mass, vo)},
	{"x", VR_X, KIT_REAL, KIT_OUTPUT, offsetof(Mass, x)},
	{"v", VR_V, KIT_REAL, KIT_OUTPUT, offsetof(Mass, v)},
	{"m", VR_M, KIT_REAL, KIT_PARAMETER, offsetof(Mass, m)},
	{"k", VR_K, KIT_REAL, KIT_PARAMETER, offsetof(Mass, k)},
	{"kc", VR_KC, KIT_REAL, KIT_PARAMETER, offsetof(Mass, kc)},
	{"c", VR_C, KIT_REAL, KIT_PARAMETER, offsetof(Mass, c)},
	{"x0", VR_X0, KIT_REAL, KIT_PARAMETER, offsetof(Mass, x0)},
	{"v0", VR_V0, KIT_REAL, KIT_PARAMETER, offsetof(Mass, v0)},
};

/* The augmented state's components. */
enum { Z_X, Z_V, Z_XO, Z_VO, Z_DXO, Z_DVO, NZ };

/* The states start at the parameters x0, v0 (so a master may set those before
 * initialization ends); the parameters must be finite with m > 0. */
static fmi2Status mass_initialize(KitInstance *k, void *state)
{
	Mass *p = state;
	if (!(p->m > 0 && isfinite(p->m) && isfinite(p->k) && isfinite(p->kc) && isfinite(p->c) &&
	      isfinite(p->x0) && isfinite(p->v0))) {
		kit_log(k, fmi2Error, "parameters must be finite, with m > 0 (m = %g, k = %g, kc = %g, "
		        "c = %g, x0 = %g, v0 = %g)", p->m, p->k, p->kc, p->c, p->x0, p->v0);
		return fmi2Error;
	}
	p->x = p->x0;
	p->v = p->v0;
	return fmi2OK;
}

static fmi2Status mass_calculate(KitInstance *k, void *state)
{
	(void)k, (void)state;
	return fmi2OK; /* the outputs are the states themselves */
}

static fmi2Status mass_do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Mass *p = state;
	(void)reached;
	if (!isfinite(p->xo) || !isfinite(p->vo)) {
		kit_log(k, fmi2Error, "inputs must be finite (xo = %g, vo = %g)", p->xo, p->vo);
		return fmi2Error;
	}
	if (h == 0)
		return fmi2OK;
	double z[NZ] = {p->x, p->v, p->xo, p->vo, 0.0, 0.0};
	kit_inputs_at(k, t + h); /* the inputs at the step's end: exactly linear in between */
	z[Z_DXO] = (p->xo - z[Z_XO]) / h;
	z[Z_DVO] = (p->vo - z[Z_VO]) / h;
	if (!isfinite(z[Z_DXO]) || !isfinite(z[Z_DVO])) {
		kit_log(k, fmi2Error, "input derivatives must be finite (dxo = %g, dvo = %g)",
		        z[Z_DXO], z[Z_DVO]);
		return fmi2Error;
	}

	/* A h, row by row; the rows of xo and vo carry the slopes, those of the slopes are 0. */
	double a[NZ * NZ] = {0};
	a[Z_X * NZ + Z_V] = h;
	a[Z_V * NZ + Z_X] = -(p->k + p->kc) / p->m * h;
	a[Z_V * NZ + Z_V] = -p->c / p->m * h;
	a[Z_V * NZ + Z_XO] = p->kc / p->m * h;
	a[Z_V * NZ + Z_VO] = p->c / p->m * h;
	a[Z_XO * NZ + Z_DXO] = h;
	a[Z_VO * NZ + Z_DVO] = h;
	double e[NZ * NZ];
	gsl_matrix_view av = gsl_matrix_view_array(a, NZ, NZ);
	gsl_matrix_view ev = gsl_matrix_view_array(e, NZ, NZ);
	if (gsl_linalg_exponential_ss(&av.matrix, &ev.matrix, GSL_PREC_DOUBLE) != 0) {
		kit_log(k, fmi2Error, "the matrix exponential failed for h = %g", h);
		return fmi2Error;
	}
	double x = 0.0, v = 0.0;
	for (int j = 0; j < NZ; j++) {
		x += e[Z_X * NZ + j] * z[j];
		v += e[Z_V * NZ + j] * z[j];
	}
	if (!isfinite(x) || !isfinite(v)) {
		kit_log(k, fmi2Error, "the state is no longer finite after the step from t = %g", t);
		return fmi2Error;
	}
	p->x = x;
	p->v = v;
	return fmi2OK;
}

#endif
