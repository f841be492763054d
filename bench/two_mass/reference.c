/* reference.c — the two-mass benchmark's reference: the exact monolithic solution
 * (twomass_ref.h) at the communication points t_n = t0 + n H of a run, as a CSV shaped like
 * `sacc simulate -o`'s, so that bench/two_mass/run.sh can compare the two row by row.
 *
 *   reference [--start T0] [--stop T1] [--step H] [-o FILE]
 *
 * Defaults: 0, 10, 0.01, standard output.  Columns: time,m1.x,m1.v,m2.x,m2.v (%.17g), one
 * row per communication point including the start; the last point is T1 (n = round((T1 -
 * T0) / H) steps).  The masses start from the benchmark's initial state at T0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twomass_ref.h"

static int usage(void)
{
	fprintf(stderr, "usage: reference [--start T0] [--stop T1] [--step H] [-o FILE]\n");
	return 2;
}

static int number(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return *s && !*end && isfinite(*out);
}

int main(int argc, char **argv)
{
	double t0 = 0.0, t1 = 10.0, h = 0.01;
	const char *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			return usage();
		if (strcmp(argv[i], "--start") == 0 && number(argv[i + 1], &t0))
			i++;
		else if (strcmp(argv[i], "--stop") == 0 && number(argv[i + 1], &t1))
			i++;
		else if (strcmp(argv[i], "--step") == 0 && number(argv[i + 1], &h))
			i++;
		else if (strcmp(argv[i], "-o") == 0)
			out = argv[++i];
		else
			return usage();
	}
	if (!(h > 0) || !(t1 >= t0)) {
		fprintf(stderr, "reference: need --step > 0 and --stop >= --start\n");
		return 2;
	}
	long n = lround((t1 - t0) / h);
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "time,m1.x,m1.v,m2.x,m2.v\n");
	for (long i = 0; i <= n; i++) {
		double t = i == n ? t1 : t0 + (double)i * h, z[4];
		if (tm_exact(&TWO_MASS_BENCH, t - t0, z) != 0) {
			fprintf(stderr, "reference: the matrix exponential failed at t = %g\n", t);
			return 1;
		}
		fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", t, z[0], z[1], z[2], z[3]);
	}
	if (f != stdout && fclose(f) != 0) {
		perror(out);
		return 1;
	}
	return 0;
}
