/* master_points.h — what the tests of sart_master_run (test_sart_*) keep of a run: every
 * accepted communication point (its time and the first POINTS_COLS recorded values),
 * through SartMasterOptions.on_point, and the log, through its logger.  Zero a Points
 * before the run; n counts every point given, also those past POINTS_MAX not kept. */
#ifndef MASTER_POINTS_H
#define MASTER_POINTS_H

#include <stdio.h>
#include <string.h>

#include "sart_inner.h"

enum { POINTS_MAX = 128, POINTS_COLS = 4 };

typedef struct Points {
	int n;
	double t[POINTS_MAX];
	double v[POINTS_MAX][POINTS_COLS];
	char log[4096];
} Points;

static inline int collect(void *env, double t, const double values[], int n)
{
	Points *p = env;
	if (p->n < POINTS_MAX) {
		p->t[p->n] = t;
		for (int i = 0; i < n && i < POINTS_COLS; i++)
			p->v[p->n][i] = values[i];
	}
	p->n++;
	return 0;
}

/* Appends each message, a line each. */
static inline void logger(void *env, SartStatus st, const char *category, const char *message)
{
	Points *p = env;
	size_t used = strlen(p->log);
	(void)st;
	(void)category;
	snprintf(p->log + used, sizeof p->log - used, "%s\n", message);
}

#endif
