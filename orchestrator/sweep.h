/* sweep.h — the numbers of `sacc simulate --sweep H1,H2,...`: the error of one run's
 * recorded variable against a reference table, and the observed order between two runs.
 * simulate_cli.c runs the scenario and prints; this file only computes, so that the unit
 * tests can check it against values worked out by hand. */
#ifndef SACC_SWEEP_H
#define SACC_SWEEP_H

#include <stddef.h>

#include "csv.h"

typedef struct SweepError {
	double max;    /* the largest |run - reference| over the run's points */
	double rms;    /* the root mean square of run - reference over them */
	double t_max;  /* where the largest is */
	size_t points; /* the run's points compared */
} SweepError;

/* Compares column rc of run with column fc of ref, at every row of run, ref interpolated
 * linearly at the run's time (csv_interp).  Returns 0, or -1 with a message in err when a
 * run time lies outside the reference's time range (the message names the time and the
 * range) or run has no row. */
int sweep_compare(const CsvTable *ref, int fc, const CsvTable *run, int rc, SweepError *e,
                  char *err, size_t errsize);

/* The observed order between errors e1 at step h1 and e2 at h2:
 * log(e1 / e2) / log(h1 / h2); NAN when it is undefined (an error 0 or not finite, equal
 * steps). */
double sweep_order(double e1, double h1, double e2, double h2);

/* Parses "H1,H2,..." into a malloc'd array of distinct positive finite steps, sorted from
 * the largest to the smallest.  Returns the count (>= 1), or -1 with a message in err. */
int sweep_parse_steps(const char *list, double **hs, char *err, size_t errsize);

#endif
