/* test_numfmt.c — the shortest round-trip formatter (runtime/sart_numfmt.c, which libsacc
 * compiles too, under compiler/numfmt.c's fmt_real), held to strtod and to glibc's printf,
 * which rounds the exact binary value correctly:
 *   - the text reads back as the same double, bit for bit (-0 too);
 *   - it is shortest: neither of the two (n - 1)-digit decimals around x (printf's, rounded
 *     down and up) reads back, so no shorter one does;
 *   - it is the nearest n-digit decimal that reads back: printf's correctly rounded n
 *     digits, or, below a power of two, where the doubles that round to x reach a quarter
 *     unit down and half a unit up, the digits rounded away from zero;
 *   - its layout is "%.17g"'s: printf's "%.*e" text outside exponents -4 ... 16, its
 *     "%.*f" text inside them (with the digits' trailing zeros where an integer has them).
 * The file is compiled here a second time, with every scaling through the big-integer
 * path and the portable 64-bit products, so that the rare paths are held to the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/sart_numfmt.h"
#include "csv.h"
#include "numfmt.h"

/* The formatter once more, its functions renamed (slow_*), every scaling through the
 * big-integer path, 64-bit products without a 128-bit type; its helpers within reach. */
size_t slow_fmt_double(char buf[SART_NUM_MAX], double x);
const char *slow_num(char buf[SART_NUM_MAX], double x);
void slow_shortest_decimal(double x, uint64_t *digits, int *exp10);
#define SART_NUMFMT_EXACT_ONLY
#define SART_NUMFMT_PORTABLE
#define sart_fmt_double slow_fmt_double
#define sart_num slow_num
#define sart_shortest_decimal slow_shortest_decimal
#include "../../runtime/sart_numfmt.c"
#undef sart_fmt_double
#undef sart_num
#undef sart_shortest_decimal

static int failures;

static void fail_at(double x, const char *got, const char *why, const char *want)
{
	if (failures++ < 10)
		fprintf(stderr, "sart_fmt_double(%a) = \"%s\": %s %s\n", x, got, why, want);
}

/* printf's "%.*e" of x rounded as mode says (glibc's printf honours the rounding mode). */
static void printf_rounded(char *out, size_t size, const char *fmt, int prec, double x, int mode)
{
	fesetround(mode);
	snprintf(out, size, fmt, prec, x);
	fesetround(FE_TONEAREST);
}

/* What the text of finite x must be, from printf, with n significant digits rounded as
 * mode says. */
static void expected_text(char *out, size_t size, double x, int n, int mode)
{
	char e[40];
	printf_rounded(e, sizeof e, "%.*e", n - 1, x, mode);
	int E = atoi(strchr(e, 'e') + 1);
	if (E < -4 || E >= 17) {
		snprintf(out, size, "%s", e);
	} else if (E >= n - 1) { /* an integer: the digits, then zeros */
		char digits[24];
		size_t k = 0;
		for (const char *p = e; *p != 'e'; p++)
			if (*p >= '0' && *p <= '9')
				digits[k++] = *p;
		digits[k] = '\0';
		snprintf(out, size, "%s%s%0*d", x < 0 ? "-" : "", digits, E + 1 - n, 0);
		if (E + 1 == n) /* no zeros: %0*d wrote one */
			out[strlen(out) - 1] = '\0';
	} else {
		printf_rounded(out, size, "%.*f", n - 1 - E, x, mode);
	}
}

/* Whether printf's n significant digits of x, rounded as mode says, read back as x. */
static int reads_back(double x, int n, int mode)
{
	char e[40];
	printf_rounded(e, sizeof e, "%.*e", n - 1, x, mode);
	return strtod(e, NULL) == x;
}

/* The significant digits of a text: from the first nonzero digit to the exponent, an
 * integer's trailing zeros not counted ("0.0025" and "12000" have 2). */
static int digits_of(const char *text)
{
	int n = 0, started = 0;
	const char *p = text;
	for (; *p && *p != 'e'; p++) {
		if (*p >= '1' && *p <= '9')
			started = 1;
		if (started && *p >= '0' && *p <= '9')
			n++;
	}
	if (!strpbrk(text, ".e"))
		for (p = text + strlen(text) - 1; n > 1 && *p == '0'; p--)
			n--;
	return n;
}

/* sart_fmt_double(x), and the exact-path variant, against strtod and printf. */
static void check(double x)
{
	char got[SART_NUM_MAX], slow[SART_NUM_MAX];
	size_t len = sart_fmt_double(got, x);
	if (len != strlen(got))
		fail_at(x, got, "length", "differs from strlen");
	slow_fmt_double(slow, x);
	if (strcmp(got, slow) != 0)
		fail_at(x, got, "the exact path gives", slow);
	if (!isfinite(x)) {
		const char *want = isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
		if (strcmp(got, want) != 0)
			fail_at(x, got, "want", want);
		return;
	}
	double back = strtod(got, NULL);
	if (memcmp(&back, &x, sizeof x) != 0)
		fail_at(x, got, "does not read back", "");
	if (x == 0) {
		if (strcmp(got, signbit(x) ? "-0" : "0") != 0)
			fail_at(x, got, "want", "0 or -0");
		return;
	}
	/* Of the n-digit decimals, the nearest that reads back: printf's correctly rounded one,
	 * or, below a power of two (where the interval reaches only a quarter of a unit
	 * down), the one above x when that one does not. */
	int n = digits_of(got);
	int mode = reads_back(x, n, FE_TONEAREST) ? FE_TONEAREST : x > 0 ? FE_UPWARD : FE_DOWNWARD;
	char want[64];
	expected_text(want, sizeof want, x, n, mode);
	if (strcmp(got, want) != 0)
		fail_at(x, got, "printf's text with as many digits is", want);
	/* Shortest: neither n-1-digit decimal on either side of x reads back, so none does. */
	if (n > 1 && (reads_back(x, n - 1, FE_UPWARD) || reads_back(x, n - 1, FE_DOWNWARD)))
		fail_at(x, got, "is not shortest", "");
}

static double from_bits(uint64_t b)
{
	double x;
	memcpy(&x, &b, sizeof x);
	return x;
}

/* splitmix64: a fixed sequence of well-spread 64-bit patterns. */
static uint64_t next_bits(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The integer logarithms are exact floors wherever they are used, and the scaling fits. */
static void numfmt__integer_logarithms__exact_over_every_exponent(void **state)
{
	(void)state;
	for (int q = -1074; q <= 971; q++) {
		for (int uneven = 0; uneven <= 1; uneven++) {
			long double v = q * log10l(2.0L) + (uneven ? log10l(0.75L) : 0.0L);
			long double nearest = roundl(v);
			if (q != 0 || uneven)
				assert_true(fabsl(v - nearest) > 1e-9L); /* floorl(v) is reliable */
			int k = uneven ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
			assert_int_equal(k, (int)floorl(v));
			assert_true(-k >= SART_POW10_MIN && -k <= SART_POW10_MAX);
			int h = q + floor_log2_pow10(-k) + 1;
			assert_true(h >= 0 && h <= 5); /* 4 (2^53 + 1) 2^h fits 64 bits */
		}
	}
	for (int n = SART_POW10_MIN; n <= SART_POW10_MAX; n++) {
		long double v = n * log2l(10.0L);
		assert_true(n == 0 || fabsl(v - roundl(v)) > 1e-9L);
		assert_int_equal(floor_log2_pow10(n), (int)floorl(v));
	}
}

static void numfmt__texts__as_documented(void **state)
{
	(void)state;
	static const struct {
		double x;
		const char *text;
	} cases[] = {
		{0.1, "0.1"}, {0.004, "0.004"}, {0.5, "0.5"},
		{0.0020000000000000018, "0.0020000000000000018"},
		{0.1 + 0.2, "0.30000000000000004"}, {1.0 / 3.0, "0.3333333333333333"}, {100.0, "100"},
		{123.456, "123.456"}, {-0.001, "-0.001"}, {1e-4, "0.0001"}, {1e-5, "1e-05"},
		{1.2345e-5, "1.2345e-05"}, {1e16, "10000000000000000"}, {1e17, "1e+17"},
		{2.5e17, "2.5e+17"}, {9007199254740992.0, "9007199254740992"}, {1e23, "1e+23"},
		{5e-324, "5e-324"}, {-5e-324, "-5e-324"}, {DBL_MIN, "2.2250738585072014e-308"},
		{DBL_MAX, "1.7976931348623157e+308"}, {-DBL_MAX, "-1.7976931348623157e+308"},
		{2.2250738585072009e-308, "2.225073858507201e-308"}, {1e308, "1e+308"},
		{0.0, "0"}, {-0.0, "-0"}, {INFINITY, "inf"}, {-INFINITY, "-inf"}, {NAN, "nan"},
		{-NAN, "nan"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[SART_NUM_MAX];
		sart_fmt_double(buf, cases[i].x);
		assert_string_equal(buf, cases[i].text);
	}
	char msg[80];
	snprintf(msg, sizeof msg, "from %s to %s", SART_NUM(0.1), SART_NUM(1e-7));
	assert_string_equal(msg, "from 0.1 to 1e-07");
}

/* Zeros, non-finite values, the extremes, subnormals and where the layout changes. */
static void numfmt__special_values_and_subnormals__shortest_and_read_back(void **state)
{
	(void)state;
	static const double xs[] = {
		0.0, 1.0, 0.1, 0.2, 0.3, 2.0 / 3.0, 100.0, 123.456, 1e-4, 9.9999999999999991e-5,
		1e-5, 1e16, 9999999999999998.0, 1e17, 12345678901234567.0, 123456789012345678.0,
		5e-324, 1e-323, 1.5e-323, DBL_TRUE_MIN, DBL_MIN, DBL_MAX, 2.2250738585072009e-308,
		9007199254740993.0, 4503599627370497.5, 2.5, 0.5, 1e23, 8.41e21, 5e-310,
		2.606834989, 1000.0000000000001, 0.30000000000000004, 18014398509481984.0,
		36028797018963970.0,
	};
	failures = 0;
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		check(xs[i]);
		check(-xs[i]);
		check(nextafter(xs[i], 0.0));
		check(nextafter(xs[i], INFINITY));
	}
	check(-0.0);
	check(INFINITY);
	check(-INFINITY);
	check(NAN);
	check(from_bits(UINT64_C(0xfff8000000000001))); /* a negative NaN with a payload */
	/* the first and last subnormals, and every power of two among them */
	for (uint64_t b = 1; b < 5000; b++) {
		check(from_bits(b));
		check(from_bits((UINT64_C(1) << 52) - b));
	}
	for (int e = 0; e < 52; e++)
		check(from_bits(UINT64_C(1) << e));
	/* every power of two: the uneven interval below it */
	for (int e = -1074; e <= 1023; e++) {
		check(ldexp(1.0, e));
		check(nextafter(ldexp(1.0, e), 0.0));
	}
	assert_int_equal(failures, 0);
}

/* Every power of ten a double can hold, its neighbours, and some of its multiples. */
static void numfmt__powers_of_ten_and_neighbours__shortest_and_read_back(void **state)
{
	(void)state;
	failures = 0;
	for (int k = -323; k <= 308; k++) {
		char s[16];
		snprintf(s, sizeof s, "1e%d", k);
		double p = strtod(s, NULL);
		check(p);
		check(nextafter(p, 0.0));
		check(nextafter(p, INFINITY));
		check(nextafter(nextafter(p, 0.0), 0.0));
		check(nextafter(nextafter(p, INFINITY), INFINITY));
		check(p * 3.0);
		check(p * 7.7);
		check(-p);
	}
	assert_int_equal(failures, 0);
}

/* Under valgrind (its preload library in LD_PRELOAD) every check costs some fifty times
 * more, and memory errors, all it looks for, show in a few thousand values. */
static int scaled_count(int n)
{
	const char *preload = getenv("LD_PRELOAD");
	return preload && strstr(preload, "vgpreload") ? n / 50 : n;
}

/* A million random bit patterns (every exponent, subnormals, NaNs among them), and random
 * values of the sizes simulations write. */
static void numfmt__random_doubles__shortest_and_read_back(void **state)
{
	(void)state;
	uint64_t s = 20261202;
	failures = 0;
	for (int i = 0; i < scaled_count(1000000); i++)
		check(from_bits(next_bits(&s)));
	for (int i = 0; i < scaled_count(200000); i++) {
		double u = (double)(next_bits(&s) >> 11) * 0x1p-53; /* [0, 1) */
		int e = (int)(next_bits(&s) % 21) - 10;
		check((u - 0.5) * pow(10.0, e));
	}
	/* times as a run makes them: multiples of a step, sums of steps */
	double t = 0.0;
	for (int i = 0; i < 20000; i++) {
		check(i * 0.004);
		check(t);
		t += 0.002;
	}
	assert_int_equal(failures, 0);
}

/* sacc's own entry points write the same texts. */
static void numfmt__sacc_fmt_real__the_runtime_text(void **state)
{
	(void)state;
	uint64_t s = 7;
	for (int i = 0; i < 10000; i++) {
		double x = from_bits(next_bits(&s));
		char a[FMT_REAL_MAX], b[SART_NUM_MAX];
		size_t n = fmt_real(a, x);
		sart_fmt_double(b, x);
		assert_string_equal(a, b);
		assert_int_equal(n, strlen(b));
	}
	char msg[80];
	snprintf(msg, sizeof msg, "done at t = %s, h = %s", FMT_REAL(0.1),
	         FMT_REAL(0.0020000000000000018));
	assert_string_equal(msg, "done at t = 0.1, h = 0.0020000000000000018");
}

/* Rows as sacc simulate writes them (fmt_real, comma-separated) read back through
 * csv_parse, the reader of plot, --sweep and --reference, bit for bit: subnormals, -0,
 * the extremes and random finite values among them. */
static void numfmt__result_rows__csv_reads_them_back_bit_for_bit(void **state)
{
	(void)state;
	enum { ROWS = 20000, COLS = 4 };
	static const double specials[] = {-0.0, 0.0, 5e-324, -5e-324, DBL_MIN, DBL_MAX,
	                                  -DBL_MAX, 2.2250738585072009e-308, 1e16, 1e17, 1e-5};
	size_t cap = (size_t)ROWS * COLS * (FMT_REAL_MAX + 1) + 64;
	char *text = malloc(cap);
	double *want = malloc(sizeof *want * ROWS * COLS);
	assert_non_null(text);
	assert_non_null(want);
	char *p = text + sprintf(text, "time,a,b,c\n");
	uint64_t s = 11;
	for (int r = 0; r < ROWS; r++) {
		for (int c = 0; c < COLS; c++) {
			double x;
			if (c == 0)
				x = r * 0.002;
			else if (r < (int)(sizeof specials / sizeof specials[0]))
				x = specials[r];
			else
				do
					x = from_bits(next_bits(&s));
				while (!isfinite(x));
			want[r * COLS + c] = x;
			if (c)
				*p++ = ',';
			p += fmt_real(p, x);
		}
		*p++ = '\n';
	}
	char err[256] = "";
	CsvTable *t = csv_parse(text, (size_t)(p - text), "rows.csv", err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	assert_int_equal(t->nrows, ROWS);
	for (int r = 0; r < ROWS; r++)
		for (int c = 0; c < COLS; c++) {
			double got = csv_at(t, (size_t)r, c);
			assert_memory_equal(&got, &want[r * COLS + c], sizeof got);
		}
	csv_free(t);
	free(text);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numfmt__integer_logarithms__exact_over_every_exponent),
		cmocka_unit_test(numfmt__texts__as_documented),
		cmocka_unit_test(numfmt__special_values_and_subnormals__shortest_and_read_back),
		cmocka_unit_test(numfmt__powers_of_ten_and_neighbours__shortest_and_read_back),
		cmocka_unit_test(numfmt__random_doubles__shortest_and_read_back),
		cmocka_unit_test(numfmt__sacc_fmt_real__the_runtime_text),
		cmocka_unit_test(numfmt__result_rows__csv_reads_them_back_bit_for_bit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
