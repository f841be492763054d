/* problems.h — the test problems of `make bench-me` (bench/me/odebench.c): right-hand
 * sides and Jacobians written once, called by both our solvers' and GSL's adapters, so
 * that each solver integrates the same arithmetic and the counts compare like with like.
 *
 * A problem's Jacobian is row-major (J[i*n + j] = dfi/dxj, what GSL takes); the adapter
 * for runtime/sart_ode.h transposes it.  Every problem is autonomous (df/dt = 0). */
#ifndef ME_PROBLEMS_H
#define ME_PROBLEMS_H

#include <stddef.h>

enum { ME_MAX_N = 4 };

typedef struct MeProblem {
	const char *name;   /* one word, for the verdict line */
	const char *label;  /* a line for the table's heading */
	int stiff;          /* which solvers it is run with */
	size_t n;
	double t0, t1;
	const double *x0;
	const double *nominal; /* each state's scale: the solvers' weights and the error's floor */
	void (*f)(const double x[], double dx[]);
	void (*jac)(const double x[], double J[]);
	/* The end state as published, or NULL: then GSL's best at a tight tolerance
	 * (odebench.c, me_reference). */
	const double *published;
	const char *published_source;
} MeProblem;

extern const MeProblem me_arenstorf;
extern const MeProblem me_vdp1;
extern const MeProblem me_robertson;
extern const MeProblem me_vdp1000;

#endif
