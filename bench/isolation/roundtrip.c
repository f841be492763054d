/* roundtrip.c — what running an inner FMU out of process costs: one cycle of set(3 Reals),
 * doStep and get(2 Reals) on the window test FMU, in process, isolated
 * (runtime/sart_isolate.h), and isolated under Wine (the FMU cross-built for Windows in
 * BUILD/bench/isolation/window-win64, run by the host built for Windows), each cycle timed
 * alone.  Prints the median and the 10th and 90th percentiles of each, in microseconds per
 * cycle; then the medians as
 *     in_process_round_trip_us N
 *     isolated_round_trip_us N
 *     wine_round_trip_us N        (or a line saying why it is skipped)
 * Usage: roundtrip BUILD [CYCLES] [SPIN_US]; CYCLES is 20000 by default, 500 with
 * BENCH_QUICK=1.  Any call that fails ends it with status 1. */
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

/* The Wine line, when the Windows build of the FMU, the Windows host and Wine are there. */
static int run_wine(const char *build, int cycles, double spin)
{
	char dir[512], host[512], wine[512], why[512], dll[600];
	snprintf(dir, sizeof dir, "%s/bench/isolation/window-win64", build);
	snprintf(dll, sizeof dll, "%s/binaries/win64/window.dll", dir);
	snprintf(host, sizeof host, "%s/sacc-fmu-host.exe", build);
	FILE *f = fopen(dll, "rb"), *h = fopen(host, "rb");
	if (f)
		fclose(f);
	if (h)
		fclose(h);
	if (!f || !h) {
		printf("wine_round_trip: skipped (no %s: it is built with mingw-w64, Debian package "
		       "gcc-mingw-w64-x86-64)\n", f ? host : dll);
		return 0;
	}
	if (sart_wine_find(wine, sizeof wine, why, sizeof why)) {
		printf("wine_round_trip: skipped (%s)\n", why);
		return 0;
	}
	SartInnerConfig cfg = {"window", dir, "window", SART_FMI2, 0, logger, NULL, NULL, 0, NULL, 0,
	                       {0}, {NULL, 0}};
	SartIsolation iso = {host, 0, 0, 0, spin, 0, wine, NULL};
	SartInner *in = NULL;
	double t0 = now_us();
	if (sart_inner_load_isolated(&cfg, &iso, &in) != SART_OK) {
		fprintf(stderr, "roundtrip: cannot load %s under Wine\n", dir);
		return 1;
	}
	printf("under Wine: started in %.2f s (the Wine session included)\n", (now_us() - t0) / 1e6);
	double wine_us = run(in, "under Wine", cycles);
	sart_inner_free(in);
	printf("wine_round_trip_us %.3f\n", wine_us);
	return 0;
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
	SartIsolation iso = {host, 0, 0, 0, spin, 0, NULL, NULL};
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
	return run_wine(build, cycles, spin);
}
