/* sweep.c — errors and observed orders of a step-size sweep (sweep.h). */
#include "sweep.h"
#include "numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sweep_compare(const CsvTable *ref, int fc, const CsvTable *run, int rc, SweepError *e,
                  char *err, size_t errsize)
{
	memset(e, 0, sizeof *e);
	if (run->nrows == 0) {
		snprintf(err, errsize, "the run has no point to compare");
		return -1;
	}
	double sum = 0;
	for (size_t r = 0; r < run->nrows; r++) {
		double t = csv_at(run, r, 0), want;
		if (csv_interp(ref, fc, t, &want)) {
			snprintf(err, errsize, "the run's point t = %s is outside the reference's "
			         "time range [%s, %s]", FMT_REAL(t),
			         FMT_REAL(ref->nrows ? csv_at(ref, 0, 0) : NAN),
			         FMT_REAL(ref->nrows ? csv_at(ref, ref->nrows - 1, 0) : NAN));
			return -1;
		}
		double d = fabs(csv_at(run, r, rc) - want);
		if (d > e->max || r == 0) {
			e->max = d;
			e->t_max = t;
		}
		sum += d * d;
	}
	e->points = run->nrows;
	e->rms = sqrt(sum / (double)run->nrows);
	return 0;
}

double sweep_order(double e1, double h1, double e2, double h2)
{
	if (!(e1 > 0) || !(e2 > 0) || !isfinite(e1) || !isfinite(e2) || !(h1 > 0) ||
	    !(h2 > 0) || h1 == h2)
		return NAN;
	return log(e1 / e2) / log(h1 / h2);
}

static int by_decreasing(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

int sweep_parse_steps(const char *list, double **hs, char *err, size_t errsize)
{
	int n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	double *h = calloc((size_t)n, sizeof *h);
	if (!h) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	const char *p = list;
	for (int k = 0; k < n; k++) {
		size_t len = strcspn(p, ",");
		char buf[64];
		if (len == 0 || len >= sizeof buf) {
			snprintf(err, errsize, "step %d of '%s' is %s", k + 1, list,
			         len ? "too long" : "empty");
			free(h);
			return -1;
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (!csv_number(buf, &h[k]) || !(h[k] > 0)) {
			snprintf(err, errsize, "'%s' is not a positive number", buf);
			free(h);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	qsort(h, (size_t)n, sizeof *h, by_decreasing);
	for (int k = 1; k < n; k++)
		if (h[k] == h[k - 1]) {
			snprintf(err, errsize, "the step %s is given twice", FMT_REAL(h[k]));
			free(h);
			return -1;
		}
	*hs = h;
	return n;
}
