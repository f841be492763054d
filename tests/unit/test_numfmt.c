/* test_numfmt.c — orchestrator/numfmt.c, the result files' number formatter, held to its
 * reference: printf's "%.17g" (glibc's, which rounds the exact binary value correctly), text
 * for text, and strtod, which must read every text back as the same double. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

static int mismatches;

/* fmt_real(x) against snprintf and strtod; the first few differences are printed. */
static void check(double x)
{
	char got[FMT_REAL_MAX], want[64];
	size_t n = fmt_real(got, x);
	snprintf(want, sizeof want, "%.17g", x);
	assert_int_equal(n, strlen(got));
	if (strcmp(got, want) != 0) {
		if (mismatches++ < 10)
			fprintf(stderr, "fmt_real(%a) = %s, printf gives %s\n", x, got, want);
		return;
	}
	if (isfinite(x)) {
		double back = strtod(got, NULL);
		assert_memory_equal(&back, &x, sizeof x);
	}
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

/* On x86-64 fmt_real forms the digits itself, so that the tests below hold its arithmetic
 * to printf's and not printf to itself; only under valgrind, whose x87 keeps 53 bits (its
 * preload library is in LD_PRELOAD), does it leave them to snprintf. */
static void numfmt__own_digits__on_x86_64_outside_valgrind(void **state)
{
	(void)state;
	const char *preload = getenv("LD_PRELOAD");
	int valgrind = preload && strstr(preload, "vgpreload") != NULL;
#if defined(__x86_64__)
	assert_int_equal(fmt_real_own_digits(), !valgrind);
#else
	if (valgrind)
		assert_false(fmt_real_own_digits());
#endif
}

/* Zeros, infinities, NaN, the extremes, values whose layout changes (exponents -5/-4 and
 * 16/17), and familiar numbers. */
static void numfmt__special_and_layout_boundaries__as_printf(void **state)
{
	(void)state;
	static const double xs[] = {
		0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 100.0, 123.456, -0.001,
		1e-4, 9.9999999999999991e-5, 1e-5, 1.2345e-5, 1e16, 9999999999999998.0, 1e17,
		12345678901234567.0, 123456789012345678.0, 5e-324, -5e-324, 2.2250738585072014e-308,
		2.2250738585072009e-308, 1.7976931348623157e308, -1.7976931348623157e308,
		9007199254740993.0, 4503599627370497.5, 2.5, 0.5, 1e23, 8.41e21, 5e-310,
		2.606834989, 1000.0000000000001, 0.30000000000000004,
	};
	mismatches = 0;
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		check(xs[i]);
		check(-xs[i]);
	}
	check(-0.0);
	check(INFINITY);
	check(-INFINITY);
	check(NAN);
	assert_int_equal(mismatches, 0);

	char buf[FMT_REAL_MAX];
	fmt_real(buf, -0.0);
	assert_string_equal(buf, "-0");
	fmt_real(buf, 1e-5);
	assert_string_equal(buf, "1.0000000000000001e-05");
	fmt_real(buf, 0.5);
	assert_string_equal(buf, "0.5");
	fmt_real(buf, 1e16);
	assert_string_equal(buf, "10000000000000000");
	fmt_real(buf, 1e17);
	assert_string_equal(buf, "1e+17");
	fmt_real(buf, -5e-324);
	assert_string_equal(buf, "-4.9406564584124654e-324");
}

/* Every power of ten a double can hold, and its two neighbours: the scale's table at each
 * exponent, and the exponent's estimate at its edges. */
static void numfmt__powers_of_ten_and_neighbours__as_printf(void **state)
{
	(void)state;
	mismatches = 0;
	for (int k = -323; k <= 308; k++) {
		char s[16];
		snprintf(s, sizeof s, "1e%d", k);
		double p = strtod(s, NULL);
		check(p);
		check(nextafter(p, 0.0));
		check(nextafter(p, INFINITY));
		check(p * 3.0);
		check(p * 7.7);
	}
	assert_int_equal(mismatches, 0);
}

/* Random bit patterns (every exponent, subnormals, NaNs among them) and random values of
 * the sizes simulations write. */
static void numfmt__random_doubles__as_printf_and_read_back(void **state)
{
	(void)state;
	uint64_t s = 20261202;
	mismatches = 0;
	for (int i = 0; i < 150000; i++)
		check(from_bits(next_bits(&s)));
	for (int i = 0; i < 150000; i++) {
		double u = (double)(next_bits(&s) >> 11) * 0x1p-53; /* [0, 1) */
		int e = (int)(next_bits(&s) % 21) - 10;
		check((u - 0.5) * pow(10.0, e));
	}
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numfmt__own_digits__on_x86_64_outside_valgrind),
		cmocka_unit_test(numfmt__special_and_layout_boundaries__as_printf),
		cmocka_unit_test(numfmt__powers_of_ten_and_neighbours__as_printf),
		cmocka_unit_test(numfmt__random_doubles__as_printf_and_read_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
