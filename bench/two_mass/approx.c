/* approx.c — benchmark 1's two masses under the orchestrator's input approximations, run
 * through the library (sart_master_run) since `sacc simulate` does not offer quadratic
 * extrapolation yet: a separate table after bench/two_mass/run.sh's, same error measure
 * (the largest position error of either mass over the communication points of 0 <= t <= 10
 * s against the exact solution of twomass_ref.h).
 *
 *   approx BUILD      (the FMUs in BUILD/fmus/mass1, mass2)
 *
 * BENCH_QUICK=1: the first two step sizes only (the order needs two).  A run that fails or
 * an order that is not finite ends it with status 1.
 *
 * The masses take first input derivatives only (no SART_CAP_INPUT_ORDER2) and give no output
 * derivatives, so quadratic extrapolation reaches them as the chord to the parabola's end
 * value, and Hermite would be linear extrapolation (not printed). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../bench.h"
#include "sart_master.h"
#include "twomass_ref.h"

static const SartVar mass_vars[] = {
	{"xo", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"vo", 1, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", 2, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"v", 3, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
};

static int track(void *env, double t, const double v[], int n)
{
	double *err = env, z[4];
	(void)n;
	if (tm_exact(&TWO_MASS_BENCH, t, z) != 0)
		return 1;
	*err = fmax(*err, fmax(fabs(v[0] - z[0]), fabs(v[1] - z[2])));
	return 0;
}

static double run(const char *build, SartAlgorithm alg, SartApprox approx, double h)
{
	char d1[1024], d2[1024];
	snprintf(d1, sizeof d1, "%s/fmus/mass1", build);
	snprintf(d2, sizeof d2, "%s/fmus/mass2", build);
	unsigned caps = SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES;
	SartFmu fmus[] = {
		{"m1", d1, "mass1", "{e0345f51-8164-4c51-a398-8b4062348517}", SART_FMI2, caps,
		 mass_vars, 4},
		{"m2", d2, "mass2", "{27396174-c505-491d-8d8a-2f2a054615a7}", SART_FMI2, caps,
		 mass_vars, 4},
	};
	SartConnection conns[] = {
		{{0, 2}, {1, 0}, 1, 0, NULL, NULL, 0},
		{{0, 3}, {1, 1}, 1, 0, NULL, NULL, 0},
		{{1, 2}, {0, 0}, 1, 0, NULL, NULL, 0},
		{{1, 3}, {0, 1}, 1, 0, NULL, NULL, 0},
	};
	SartRef recs[] = {{0, 2}, {1, 2}};
	SartScenario sc = {fmus, 2, conns, 4, NULL, 0, recs, 2};
	double err = 0;
	SartMasterOptions o;
	SartMasterResult r;
	memset(&o, 0, sizeof o);
	o.start = 0;
	o.stop = 10;
	o.step = h;
	o.algorithm = alg;
	o.approx = approx;
	o.on_point = track;
	o.point_env = &err;
	if (sart_master_run(&sc, &o, &r)) {
		fprintf(stderr, "approx: %s\n", r.message);
		return NAN;
	}
	return err;
}

int main(int argc, char **argv)
{
	static const double hs[] = {0.1, 0.05, 0.025, 0.0125, 0.00625};
	static const struct {
		const char *name;
		SartAlgorithm alg;
		SartApprox approx;
	} schemes[] = {
		{"jacobi+linear", SART_JACOBI, SART_LINEAR},
		{"jacobi+quadratic", SART_JACOBI, SART_QUADRATIC},
		{"gauss-seidel+linear", SART_GAUSS_SEIDEL, SART_LINEAR},
		{"gauss-seidel+quadratic", SART_GAUSS_SEIDEL, SART_QUADRATIC},
	};
	enum { NHS = sizeof hs / sizeof hs[0], NS = 4 };
	const int NH = bench_quick() ? 2 : NHS;
	double err[NHS][NS];
	if (argc != 2) {
		fprintf(stderr, "usage: approx BUILD\n");
		return 2;
	}
	puts("input approximation (sart_master_run; quadratic is the chord to the parabola's end "
	     "value, the masses taking first derivatives only)");
	printf("H");
	for (int s = 0; s < NS; s++)
		printf(" %s", schemes[s].name);
	putchar('\n');
	for (int i = 0; i < NH; i++) {
		printf("%g", hs[i]);
		for (int s = 0; s < NS; s++) {
			err[i][s] = run(argv[1], schemes[s].alg, schemes[s].approx, hs[i]);
			if (!isfinite(err[i][s])) {
				fflush(stdout);
				fprintf(stderr, "\napprox: %s at H = %g has no error figure\n",
				        schemes[s].name, hs[i]);
				return 1;
			}
			printf(" %.3e", err[i][s]);
		}
		putchar('\n');
	}
	printf("order");
	for (int s = 0; s < NS; s++) {
		double order = log2(err[NH - 2][s] / err[NH - 1][s]);
		if (!isfinite(order)) {
			fflush(stdout);
			fprintf(stderr, "\napprox: %s has no order (errors %g and %g)\n",
			        schemes[s].name, err[NH - 2][s], err[NH - 1][s]);
			return 1;
		}
		printf(" %.2f", order);
	}
	putchar('\n');
	return 0;
}
