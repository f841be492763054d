/* bench.c — what one number's text costs (`make bench-numfmt`, run.sh).
 *
 *     numfmt_bench time             ns per value and bytes per text, every formatter and set
 *                                   (2^18 values; 2^12 with BENCH_QUICK=1)
 *     numfmt_bench count FMT SET N  formats N values of SET with FMT once (for callgrind,
 *                                   which run.sh points at the function fmt_FMT)
 *
 * Formatters: shortest (runtime/sart_numfmt.c, what sacc writes now), printf17
 * (snprintf "%.17g"), old (the "%.17g" formatter sacc used before, old_numfmt.c), and
 * loop (the shortest text by snprintf "%.*g" with 1, 2, ... digits until strtod reads it
 * back, as sacc's emitters do).  Sets: times (multiples and running sums of a 0.002 step,
 * what a result file's first column holds), values (random signs and digits, magnitudes
 * 1e-10 to 1e10), bits (random bit patterns: every exponent, subnormals). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench.h"
#include "old_numfmt.h"
#include "sart_numfmt.h"

#define BUF 40

typedef size_t (*Formatter)(char *buf, double x);

/* noinline: callgrind counts each one inclusively by name (--toggle-collect=fmt_*). */
__attribute__((noinline)) static size_t fmt_shortest(char *buf, double x)
{
	return sart_fmt_double(buf, x);
}

__attribute__((noinline)) static size_t fmt_printf17(char *buf, double x)
{
	return (size_t)snprintf(buf, BUF, "%.17g", x);
}

__attribute__((noinline)) static size_t fmt_old(char *buf, double x)
{
	return old_fmt_real(buf, x);
}

__attribute__((noinline)) static size_t fmt_loop(char *buf, double x)
{
	int n = 0;
	for (int digits = 1; digits <= 17; digits++) {
		n = snprintf(buf, BUF, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return (size_t)n;
}

static const struct {
	const char *name, *title;
	Formatter f;
} formatters[] = {
	{"shortest", "shortest", fmt_shortest},
	{"printf17", "%.17g", fmt_printf17},
	{"old", "old numfmt", fmt_old},
	{"loop", "%.*g+strtod", fmt_loop},
};
#define NFORMATTERS (sizeof formatters / sizeof formatters[0])

static const char *const sets[] = {"times", "values", "bits"};
#define NSETS (sizeof sets / sizeof sets[0])

/* splitmix64 */
static uint64_t next_bits(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void fill(double *xs, size_t n, const char *set)
{
	uint64_t s = 42;
	double t = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(set, "times") == 0) {
			xs[i] = i % 2 ? t : (double)(i / 2) * 0.002;
			t += i % 2 ? 0.002 : 0.0;
		} else if (strcmp(set, "values") == 0) {
			double u = (double)(next_bits(&s) >> 11) * 0x1p-53 - 0.5;
			double scale = 1.0;
			for (int e = (int)(next_bits(&s) % 21) - 10; e != 0; e += e > 0 ? -1 : 1)
				scale = e > 0 ? scale * 10.0 : scale / 10.0;
			xs[i] = u * scale;
		} else {
			uint64_t b;
			do
				b = next_bits(&s);
			while ((b >> 52 & 0x7ff) == 0x7ff); /* finite values only */
			memcpy(&xs[i], &b, sizeof b);
		}
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t sink;

/* Best of five passes: ns per value; *bytes: the mean text length. */
static double time_one(Formatter f, const double *xs, size_t n, double *bytes)
{
	char buf[BUF];
	double best = 1e300;
	size_t total = 0;
	for (int pass = 0; pass < 5; pass++) {
		total = 0;
		double t0 = now();
		for (size_t i = 0; i < n; i++)
			total += f(buf, xs[i]);
		double dt = now() - t0;
		sink += total + (size_t)buf[0];
		if (dt < best)
			best = dt;
	}
	*bytes = (double)total / (double)n;
	return best * 1e9 / (double)n;
}

static int time_all(void)
{
	size_t n = (size_t)1 << (bench_quick() ? 12 : 18);
	double *xs = malloc(n * sizeof *xs);
	if (!xs)
		return 1;
	printf("ns per value, best of 5 passes over %zu values (text bytes in brackets)%s\n", n,
	       old_fmt_real_own_digits() ? "" : "; old numfmt: snprintf here");
	printf("%-8s", "set");
	for (size_t f = 0; f < NFORMATTERS; f++)
		printf("  %18s", formatters[f].title);
	printf("\n");
	for (size_t s = 0; s < NSETS; s++) {
		fill(xs, n, sets[s]);
		printf("%-8s", sets[s]);
		for (size_t f = 0; f < NFORMATTERS; f++) {
			double bytes, ns = time_one(formatters[f].f, xs, n, &bytes);
			printf("  %9.1f (%5.1f B)", ns, bytes);
		}
		printf("\n");
	}
	free(xs);
	return sink == 0; /* never: keeps the work */
}

static int count(const char *fmt, const char *set, long n)
{
	Formatter f = NULL;
	for (size_t i = 0; i < NFORMATTERS; i++)
		if (strcmp(formatters[i].name, fmt) == 0)
			f = formatters[i].f;
	double *xs = malloc((size_t)n * sizeof *xs);
	if (!f || !xs || n <= 0) {
		fprintf(stderr, "numfmt_bench: unknown formatter '%s' or bad count\n", fmt);
		free(xs);
		return 2;
	}
	fill(xs, (size_t)n, set);
	char buf[BUF];
	for (long i = 0; i < n; i++)
		sink += f(buf, xs[i]);
	free(xs);
	return sink == 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "time") == 0)
		return time_all();
	if (argc == 5 && strcmp(argv[1], "count") == 0)
		return count(argv[2], argv[3], atol(argv[4]));
	fprintf(stderr, "usage: numfmt_bench time | count FORMATTER SET N\n");
	return 2;
}
