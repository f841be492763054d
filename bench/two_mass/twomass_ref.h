/* twomass_ref.h — the exact monolithic solution of the two coupled masses (docs/simulate.md,
 * Benchmark 1), shared by bench/two_mass/reference.c (the benchmark's reference CSV) and
 * tests/unit/test_two_mass.c (which checks it, and the FMUs against it).
 *
 * The four states z = [x1, v1, x2, v2] obey the linear system z' = A z,
 *
 *   m1 v1' = -(k1 + kc) x1 - c v1 + kc x2 + c v2
 *   m2 v2' = -(k2 + kc) x2 - c v2 + kc x1 + c v1
 *
 * and z(t) = expm(A t) z(0) is computed afresh at every time asked for (GSL's
 * gsl_linalg_exponential_ss, scaling and squaring in double precision), so no error is
 * carried from one communication point to the next.  Link -lgsl -lgslcblas. */
#ifndef TWOMASS_REF_H
#define TWOMASS_REF_H

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

typedef struct TwoMass {
	double m1, k1; /* kg, N/m: mass 1 and its wall spring */
	double m2, k2; /* kg, N/m: mass 2 and its wall spring */
	double kc, c;  /* N/m, N.s/m: the coupling spring and damper */
	double z0[4];  /* x1, v1, x2, v2 at t = 0 */
} TwoMass;

/* The benchmark's parameters, as the FMUs' start values. */
static const TwoMass TWO_MASS_BENCH = {1.0, 20.0, 2.0, 30.0, 40.0, 0.2, {1.0, 0.0, 0.0, 0.0}};

/* a = A (row-major 4x4). */
static inline void tm_matrix(const TwoMass *p, double a[16])
{
	for (int i = 0; i < 16; i++)
		a[i] = 0.0;
	a[0 * 4 + 1] = 1.0;
	a[1 * 4 + 0] = -(p->k1 + p->kc) / p->m1;
	a[1 * 4 + 1] = -p->c / p->m1;
	a[1 * 4 + 2] = p->kc / p->m1;
	a[1 * 4 + 3] = p->c / p->m1;
	a[2 * 4 + 3] = 1.0;
	a[3 * 4 + 2] = -(p->k2 + p->kc) / p->m2;
	a[3 * 4 + 3] = -p->c / p->m2;
	a[3 * 4 + 0] = p->kc / p->m2;
	a[3 * 4 + 1] = p->c / p->m2;
}

/* z = z(t) = expm(A t) z(0).  Returns 0, or GSL's error code. */
static inline int tm_exact(const TwoMass *p, double t, double z[4])
{
	double a[16], e[16];
	tm_matrix(p, a);
	for (int i = 0; i < 16; i++)
		a[i] *= t;
	gsl_matrix_view av = gsl_matrix_view_array(a, 4, 4);
	gsl_matrix_view ev = gsl_matrix_view_array(e, 4, 4);
	int rc = gsl_linalg_exponential_ss(&av.matrix, &ev.matrix, GSL_PREC_DOUBLE);
	if (rc)
		return rc;
	for (int i = 0; i < 4; i++) {
		z[i] = 0.0;
		for (int j = 0; j < 4; j++)
			z[i] += e[i * 4 + j] * p->z0[j];
	}
	return 0;
}

/* The mechanical energy (J): kinetic, both wall springs and the coupling spring.  The
 * damper dissipates it at the rate c (v1 - v2)^2, so it never increases. */
static inline double tm_energy(const TwoMass *p, const double z[4])
{
	double s = z[0] - z[2];
	return 0.5 * (p->m1 * z[1] * z[1] + p->m2 * z[3] * z[3] + p->k1 * z[0] * z[0] +
	              p->k2 * z[2] * z[2] + p->kc * s * s);
}

#endif
