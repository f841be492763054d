/* sart_numfmt.c — the shortest decimal that reads back as a double (sart_numfmt.h).
 *
 * x = c 2^q (c < 2^53).  The doubles strtod rounds to x fill an interval around x whose
 * ends lie half-way to x's neighbours: (c -+ 1/2) 2^q, except that below a power of two
 * the lower neighbour is twice as near, (c - 1/4) 2^q.  The ends belong to the interval
 * when c is even (round half to even).  In quarter units of 2^q, the ends and x are the
 * integers cbl, cbr and cb = 4c.
 *
 * The shortest decimal in that interval is found at one scale 10^k, k the exponent of the
 * interval's width (floor(log10 of it)): the width is 1 to 10 units of 10^k, so the
 * interval holds at most one multiple of 10 units, and at least one integer.  If it holds
 * a multiple of ten, that one is the answer (no other number as short or shorter is in the
 * interval; trailing zeros are then dropped); otherwise the integer nearest to x among the
 * two around x that lie in the interval.  Only four positions are needed, each as a floor
 * and whether it is exact: x, the two ends, scaled by 10^-k, in quarter units; each is
 * kept as its floor with the lowest bit set when it is not an integer, which is exactly
 * what comparisons with even integers need.
 *
 * Scaling multiplies by a 128-bit 10^-k rounded up (sart_numfmt_pow10.h): the product is
 * at most cp/2^128 (cp < 2^61) above the exact value.  When its fraction is at least that
 * much, the floor is the product's and the value is not an integer; otherwise an exact
 * divisibility test says whether the value is an integer (then it is the product's
 * integer part), and in the remaining case, which no double is known to reach, big
 * integers decide on which side of that integer the value lies.  So every answer is exact;
 * test_numfmt checks them against strtod and snprintf. */
#include "sart_numfmt.h"

#include <string.h>

#include "sart_numfmt_pow10.h"

/* ---- 64 x 64 -> 128-bit products ------------------------------------------------------- */

#if defined(__SIZEOF_INT128__) && !defined(SART_NUMFMT_PORTABLE)
__extension__ typedef unsigned __int128 sart_u128;

/* a b: the high 64 bits returned, the low ones in *lo. */
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo)
{
	sart_u128 p = (sart_u128)a * b;
	*lo = (uint64_t)p;
	return (uint64_t)(p >> 64);
}
#else
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo)
{
	const uint64_t m32 = UINT64_C(0xffffffff);
	uint64_t a0 = a & m32, a1 = a >> 32, b0 = b & m32, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & m32) + (p10 & m32);
	*lo = mid << 32 | (p00 & m32);
	return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
#endif

/* ---- integer logarithms ---------------------------------------------------------------- */

/* floor(p / 2^32) for any sign (>> of a negative number is implementation-defined). */
static int floor_shift32(int64_t p)
{
	return (int)(p >= 0 ? p >> 32 : -((-p + (INT64_C(1) << 32) - 1) >> 32));
}

/* log10(2), log10(3/4) and log2(10) times 2^32, rounded down: exact floors over the ranges
 * used (q in -1074 ... 971, n in -292 ... 324; test_numfmt checks every one). */
#define LOG10_2_X32 INT64_C(1292913986)
#define LOG10_3_4_X32 INT64_C(-536607788)
#define LOG2_10_X32 INT64_C(14267572527)

/* floor(log10(2^q)) */
static int floor_log10_pow2(int q)
{
	return floor_shift32(q * LOG10_2_X32);
}

/* floor(log10(3/4 2^q)) */
static int floor_log10_three_quarters_pow2(int q)
{
	return floor_shift32(q * LOG10_2_X32 + LOG10_3_4_X32);
}

/* floor(log2(10^n)), the same formula as compiler/tools/pow10_table.c checks. */
static int floor_log2_pow10(int n)
{
	return floor_shift32(n * LOG2_10_X32);
}

/* ---- exact positions ------------------------------------------------------------------- */

static const uint64_t pow5[28] = {
	UINT64_C(1), UINT64_C(5), UINT64_C(25), UINT64_C(125), UINT64_C(625), UINT64_C(3125),
	UINT64_C(15625), UINT64_C(78125), UINT64_C(390625), UINT64_C(1953125),
	UINT64_C(9765625), UINT64_C(48828125), UINT64_C(244140625), UINT64_C(1220703125),
	UINT64_C(6103515625), UINT64_C(30517578125), UINT64_C(152587890625),
	UINT64_C(762939453125), UINT64_C(3814697265625), UINT64_C(19073486328125),
	UINT64_C(95367431640625), UINT64_C(476837158203125), UINT64_C(2384185791015625),
	UINT64_C(11920928955078125), UINT64_C(59604644775390625),
	UINT64_C(298023223876953125), UINT64_C(1490116119384765625),
	UINT64_C(7450580596923828125),
};

/* Whether m 2^e2 5^e5 is an integer (m > 0). */
static int is_integer(uint64_t m, int e2, int e5)
{
	if (e5 < 0 && (-e5 > 27 || m % pow5[-e5] != 0))
		return 0;
	if (e2 < 0 && (-e2 > 63 || (m & ((UINT64_C(1) << -e2) - 1)) != 0))
		return 0;
	return 1;
}

/* Nonnegative integers of BIG_WORDS 32-bit words, least significant first: the largest
 * compared, m 5^324 and n 2^750 (m, n < 2^61), have under 830 bits. */
#define BIG_WORDS 48

typedef struct Big {
	uint32_t w[BIG_WORDS];
} Big;

static void big_set(Big *b, uint64_t v)
{
	memset(b, 0, sizeof *b);
	b->w[0] = (uint32_t)v;
	b->w[1] = (uint32_t)(v >> 32);
}

static void big_mul_small(Big *b, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < BIG_WORDS; i++) {
		uint64_t v = (uint64_t)b->w[i] * m + carry;
		b->w[i] = (uint32_t)v;
		carry = v >> 32;
	}
}

static void big_mul_pow5(Big *b, int e)
{
	for (; e >= 13; e -= 13)
		big_mul_small(b, (uint32_t)pow5[13]);
	if (e > 0)
		big_mul_small(b, (uint32_t)pow5[e]);
}

static void big_shift_left(Big *b, int bits)
{
	int words = bits / 32, r = bits % 32;
	for (int i = BIG_WORDS - 1; i >= 0; i--) {
		uint64_t hi = i - words >= 0 ? b->w[i - words] : 0;
		uint64_t lo = r && i - words - 1 >= 0 ? b->w[i - words - 1] : 0;
		b->w[i] = (uint32_t)(hi << r | lo >> (32 - r));
	}
}

static int big_cmp(const Big *a, const Big *b)
{
	for (int i = BIG_WORDS - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* The sign of m 2^e2 5^e5 - n, in exact arithmetic. */
static int exact_sign(uint64_t m, int e2, int e5, uint64_t n)
{
	Big a, b;
	big_set(&a, m);
	big_set(&b, n);
	big_mul_pow5(e5 > 0 ? &a : &b, e5 > 0 ? e5 : -e5);
	big_shift_left(e2 > 0 ? &a : &b, e2 > 0 ? e2 : -e2);
	return big_cmp(&a, &b);
}

/* W = cbx 2^q 10^-k, rounded to odd: floor(W), its lowest bit set when W is not an
 * integer.  g is 10^-k to 128 bits, rounded up, and cbx 2^h g / 2^128 is W (h >= 0). */
static uint64_t scaled(const uint64_t g[2], uint64_t cbx, int h, int q, int k)
{
	uint64_t cp = cbx << h;
	uint64_t a0, a1 = mul_64x64(cp, g[1], &a0);
	uint64_t b0, b1 = mul_64x64(cp, g[0], &b0);
	uint64_t mid = a1 + b0;
	uint64_t top = b1 + (mid < a1);
#ifndef SART_NUMFMT_EXACT_ONLY /* test_numfmt's variant that takes the slow path always */
	if (mid != 0 || a0 >= cp)
		return top | 1; /* W > product - cp/2^128 >= top */
#endif
	if (is_integer(cbx, q - k, -k))
		return top;
	/* W is within cp/2^128 of top, not equal to it */
	return exact_sign(cbx, q - k, -k, top) > 0 ? top | 1 : (top - 1) | 1;
}

/* ---- the shortest decimal -------------------------------------------------------------- */

void sart_shortest_decimal(double x, uint64_t *digits, int *exp10)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int biased = (int)(bits >> 52 & 0x7ff);
	uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
	uint64_t c = biased ? fraction | UINT64_C(1) << 52 : fraction;
	int q = biased ? biased - 1075 : -1074;

	uint64_t d;
	int k;
	if (q <= 0 && q > -53 && (c & ((UINT64_C(1) << -q) - 1)) == 0) {
		/* an integer below 2^53: its own digits (its neighbours are 1 or less away) */
		d = c >> -q;
		k = 0;
	} else {
		int uneven = fraction == 0 && biased > 1; /* the lower neighbour is nearer */
		k = uneven ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
		int h = q + floor_log2_pow10(-k) + 1;
		const uint64_t *g = sart_pow10[-k - SART_POW10_MIN];
		uint64_t cb = c << 2, cbl = cb - 2 + (uint64_t)uneven, cbr = cb + 2;
		uint64_t vb = scaled(g, cb, h, q, k);
		uint64_t vbl = scaled(g, cbl, h, q, k);
		uint64_t vbr = scaled(g, cbr, h, q, k);
		uint64_t open = c & 1; /* odd c: the ends are not in the interval */

		uint64_t s = vb >> 2, sp10 = s / 10 * 10, tp10 = sp10 + 10;
		int sp10_in = vbl + open <= sp10 << 2, tp10_in = (tp10 << 2) + open <= vbr;
		if (sp10_in != tp10_in) {
			d = sp10_in ? sp10 : tp10;
		} else {
			uint64_t t = s + 1;
			int s_in = vbl + open <= s << 2, t_in = (t << 2) + open <= vbr;
			if (s_in != t_in)
				d = s_in ? s : t;
			else /* both: the nearer, the even one at a tie */
				d = vb < 4 * s + 2 || (vb == 4 * s + 2 && s % 2 == 0) ? s : t;
		}
	}
	/* trailing zeros off: eight at a time (up to 16 of them), then four, two, one */
	while (d % 100000000 == 0) {
		d /= 100000000;
		k += 8;
	}
	if (d % 10000 == 0) {
		d /= 10000;
		k += 4;
	}
	if (d % 100 == 0) {
		d /= 100;
		k += 2;
	}
	if (d % 10 == 0) {
		d /= 10;
		k++;
	}
	*digits = d;
	*exp10 = k;
}

/* ---- layout ---------------------------------------------------------------------------- */

static const char two_digits[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Writes d's decimal digits to end back from end; returns where they start. */
static char *digits_before(char *end, uint64_t d)
{
	while (d >= 100) {
		uint64_t q = d / 100;
		end -= 2;
		memcpy(end, two_digits + 2 * (d - 100 * q), 2);
		d = q;
	}
	if (d >= 10) {
		end -= 2;
		memcpy(end, two_digits + 2 * d, 2);
	} else {
		*--end = (char)('0' + d);
	}
	return end;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static char *put_zeros(char *p, int n)
{
	for (; n > 0; n--)
		*p++ = '0';
	return p;
}

size_t sart_fmt_double(char buf[SART_NUM_MAX], double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	char *p = buf;
	if (x != x) {
		memcpy(buf, "nan", 4);
		return 3;
	}
	if (bits >> 63)
		*p++ = '-';
	if ((bits << 1) == 0) {
		*p++ = '0';
	} else if ((bits << 1) == UINT64_C(0x7ff) << 53) {
		p = put(p, "inf", 3);
	} else {
		uint64_t d;
		int e10;
		sart_shortest_decimal(x, &d, &e10);
		char dig[20];
		const char *ds = digits_before(dig + sizeof dig, d);
		int n = (int)(dig + sizeof dig - ds);
		int E = e10 + n - 1; /* x = d1.d2... 10^E */
		if (E >= 17 || E < -4) {
			*p++ = ds[0];
			if (n > 1) {
				*p++ = '.';
				p = put(p, ds + 1, (size_t)n - 1);
			}
			*p++ = 'e';
			*p++ = E < 0 ? '-' : '+';
			int a = E < 0 ? -E : E;
			if (a >= 100)
				*p++ = (char)('0' + a / 100);
			*p++ = (char)('0' + a / 10 % 10);
			*p++ = (char)('0' + a % 10);
		} else if (E < 0) {
			p = put(p, "0.", 2);
			p = put_zeros(p, -E - 1);
			p = put(p, ds, (size_t)n);
		} else if (E + 1 >= n) {
			p = put(p, ds, (size_t)n);
			p = put_zeros(p, E + 1 - n);
		} else {
			p = put(p, ds, (size_t)E + 1);
			*p++ = '.';
			p = put(p, ds + E + 1, (size_t)(n - E - 1));
		}
	}
	*p = '\0';
	return (size_t)(p - buf);
}

const char *sart_num(char buf[SART_NUM_MAX], double x)
{
	sart_fmt_double(buf, x);
	return buf;
}
