/* old_numfmt.c — the formatter result files used before the shortest one: compiler/numfmt.c
 * as it was (printf's "%.17g" text without printf: a long double scale from an exact table,
 * ties near a half unit left to snprintf), kept here only so that bench-numfmt can show
 * what the change costs.  Renamed old_fmt_real; never linked into sacc. */
#include "old_numfmt.h"


#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Decimal exponents of the scale 10^(16 - E), E from -324 (the smallest subnormal) to 308. */
#define POW_MIN (16 - 308)
#define POW_MAX (16 + 324)

/* How close to a half unit the scaled value may come before the digits are left to
 * snprintf: above the scaling's error bound (0.011 unit). */
#define TIE_BAND 0.02L

static long double pow10_table[POW_MAX - POW_MIN + 1];
static int pow10_ready;

/* A nonnegative integer of BIG_WORDS 32-bit words, least significant first: 10^340 and
 * 2^1100 both fit. */
#define BIG_WORDS 40
#define NEG_SHIFT 1100 /* 10^-k is taken from floor(2^NEG_SHIFT / 10^k) */

/* The long double nearest to b 2^-shift (b's top 64 bits, rounded on the next one). */
static long double big_value(const uint32_t b[BIG_WORDS], int shift)
{
	int top = BIG_WORDS * 32 - 1;
	while (top >= 0 && !(b[top / 32] >> (top % 32) & 1))
		top--;
	uint64_t m = 0;
	for (int i = top; i > top - 64; i--)
		m = m << 1 | (i >= 0 ? b[i / 32] >> (i % 32) & 1 : 0);
	int exp = top - 63 - shift;
	int next = top - 64;
	if (next >= 0 && (b[next / 32] >> (next % 32) & 1)) {
		if (++m == 0) { /* carried out of 64 bits: 2^64 */
			m = UINT64_C(1) << 63;
			exp++;
		}
	}
	return ldexpl((long double)m, exp);
}

/* b = b * 10 (mul) or floor(b / 10). */
static void big_mul10(uint32_t b[BIG_WORDS])
{
	uint64_t carry = 0;
	for (int i = 0; i < BIG_WORDS; i++) {
		uint64_t v = (uint64_t)b[i] * 10 + carry;
		b[i] = (uint32_t)v;
		carry = v >> 32;
	}
}

static void big_div10(uint32_t b[BIG_WORDS])
{
	uint64_t rem = 0;
	for (int i = BIG_WORDS - 1; i >= 0; i--) {
		uint64_t v = rem << 32 | b[i];
		b[i] = (uint32_t)(v / 10);
		rem = v % 10;
	}
}

static void make_table(void)
{
	uint32_t b[BIG_WORDS] = {1};
	for (int k = 0; k <= POW_MAX; k++) {
		pow10_table[k - POW_MIN] = big_value(b, 0);
		big_mul10(b);
	}
	memset(b, 0, sizeof b);
	b[NEG_SHIFT / 32] = UINT32_C(1) << (NEG_SHIFT % 32);
	for (int k = 1; k <= -POW_MIN; k++) {
		big_div10(b);
		pow10_table[-k - POW_MIN] = big_value(b, NEG_SHIFT);
	}
	pow10_ready = 1;
}

/* Whether long double sums keep 64 bits now. */
static int long_double_exact(void)
{
	volatile long double one = 1.0L, tiny = 0x1p-63L;
	return one + tiny != one;
}

int old_fmt_real_own_digits(void)
{
	return LDBL_MANT_DIG >= 64 && long_double_exact();
}

static size_t by_printf(char buf[OLD_FMT_MAX], double x)
{
	int n = snprintf(buf, OLD_FMT_MAX, "%.17g", x);
	return n < 0 ? 0 : (size_t)n;
}

size_t old_fmt_real(char buf[OLD_FMT_MAX], double x)
{
	const double given = x;
	if (LDBL_MANT_DIG < 64 || !isfinite(x) || x == 0.0 || !long_double_exact())
		return by_printf(buf, x);
	if (!pow10_ready)
		make_table();
	char *p = buf;
	if (x < 0) {
		*p++ = '-';
		x = -x;
	}
	int e2;
	frexp(x, &e2);
	/* log10(2) = 0.30103: E is this or one more */
	int E = (int)floor((e2 - 1) * 0.30102999566398120);
	long double scaled = (long double)x * pow10_table[16 - E - POW_MIN];
	if (scaled >= 1e17L) {
		E++;
		scaled = (long double)x * pow10_table[16 - E - POW_MIN];
	}
	long double whole = floorl(scaled), frac = scaled - whole;
	if (fabsl(frac - 0.5L) < TIE_BAND)
		return by_printf(buf, given);
	unsigned long long D = (unsigned long long)whole + (frac > 0.5L);
	if (D >= 100000000000000000ULL) { /* rounded up to 10^17 */
		D /= 10;
		E++;
	}
	char dig[17];
	for (int i = 16; i >= 0; i--) {
		dig[i] = (char)('0' + D % 10);
		D /= 10;
	}
	int n = 17;
	while (n > 1 && dig[n - 1] == '0')
		n--;
	if (E >= -4 && E < 17) {
		if (E >= 0) {
			memcpy(p, dig, (size_t)E + 1);
			p += E + 1;
			if (n > E + 1) {
				*p++ = '.';
				memcpy(p, dig + E + 1, (size_t)(n - E - 1));
				p += n - E - 1;
			}
		} else {
			*p++ = '0';
			*p++ = '.';
			for (int i = -1; i > E; i--)
				*p++ = '0';
			memcpy(p, dig, (size_t)n);
			p += n;
		}
	} else {
		*p++ = dig[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, dig + 1, (size_t)n - 1);
			p += n - 1;
		}
		*p++ = 'e';
		*p++ = E < 0 ? '-' : '+';
		int a = E < 0 ? -E : E;
		if (a >= 100)
			*p++ = (char)('0' + a / 100);
		*p++ = (char)('0' + a / 10 % 10);
		*p++ = (char)('0' + a % 10);
	}
	*p = '\0';
	return (size_t)(p - buf);
}
