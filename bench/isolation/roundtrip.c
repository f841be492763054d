/* roundtrip.c — what running an inner FMU out of process costs: one cycle of set(3 Reals),
 * doStep and get(2 Reals) on the window test FMU, in process and isolated
 * (runtime/sart_isolate.h), each cycle timed alone.  Prints the median and the 10th and
 * 90th percentiles of each, in microseconds per cycle; the last line is
 *     isolated_round_trip_us N
 * (the isolated median).  Usage: roundtrip BUILD [CYCLES] [SPIN_US]; CYCLES is 20000
 * by default, 500 with BENCH_QUICK=1.  Any call that fails ends it with status 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"
#include "sart_isolate.h"

#define WINDOW_GUID "{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void logger(void *env, SartStatus st, const char *category, const char *message)
{
	(void)env, (void)st, (void)category;
	fprintf(stderr, "%s\n", message);
}

/* Times cycles set/doStep/get on in; returns the median, prints the spread. */
static double run(SartInner *in, const char *label, int cycles)
{
	static const SartVr set_vr[3] = {0, 1, 2}, get_vr[2] = {3, 4};
	SartExperiment ex = {0, 0.0, 0.0, 0, 0.0};
	double *us = malloc((size_t)cycles * sizeof *us), v[3] = {0.1, 0.2, 0.3}, out[2], t = 0;
	if (!us || sart_inner_instantiate(in, WINDOW_GUID, 0) != SART_OK ||
	    sart_inner_enter_init(in, &ex) != SART_OK || sart_inner_exit_init(in) != SART_OK) {
		fprintf(stderr, "roundtrip: cannot start the window FMU (%s)\n", label);
		exit(1);
	}
	for (int i = -cycles / 10; i < cycles; i++) { /* the first tenth warms up */
		double r, t0 = now_us();
		v[0] = 0.001 * i;
		if (sart_inner_set_real(in, set_vr, 3, v) != SART_OK ||
		    sart_inner_do_step(in, t, 1e-3, 1, &r) != SART_OK ||
		    sart_inner_get_real(in, get_vr, 2, out) != SART_OK) {
			fprintf(stderr, "roundtrip: a call failed (%s)\n", label);
			exit(1);
		}
		t = r;
		if (i >= 0)
			us[i] = now_us() - t0;
	}
	qsort(us, (size_t)cycles, sizeof *us, by_value);
	double median = us[cycles / 2];
	printf("%-11s cycle set(3)/doStep/get(2): median %.3f us, p10 %.3f, p90 %.3f "
	       "(%d cycles)\n", label, median, us[cycles / 10], us[cycles * 9 / 10], cycles);
	free(us);
	return median;
}

int main(int argc, char **argv)
{
	const char *build = argc > 1 ? argv[1] : "build";
	int cycles = argc > 2 ? atoi(argv[2]) : bench_quick() ? 500 : 20000;
	double spin = argc > 3 ? atof(argv[3]) : -1;
	char dir[512], host[512];
	snprintf(dir, sizeof dir, "%s/fmus/window", build);
	snprintf(host, sizeof host, "%s/sacc-fmu-host", build);
	if (cycles < 10)
		cycles = 10;
	SartInnerConfig cfg = {"window", dir, "window", SART_FMI2, 0, logger, NULL, NULL, 0, NULL, 0, {0}, {NULL, 0}};
	SartIsolation iso = {host, 0, 0, 0, spin, 0};
	SartInner *a = NULL, *b = NULL;
	if (sart_inner_load(&cfg, &a) != SART_OK || sart_inner_load_isolated(&cfg, &iso, &b) !=
	                                                    SART_OK) {
		fprintf(stderr, "roundtrip: cannot load %s in process and isolated (host %s)\n", dir,
		        host);
		return 1;
	}
	double in_process = run(a, "in process", cycles);
	double isolated = run(b, "isolated", cycles);
	sart_inner_free(a);
	sart_inner_free(b);
	printf("in_process_round_trip_us %.3f\n", in_process);
	printf("isolated_round_trip_us %.3f\n", isolated);
	return 0;
}
