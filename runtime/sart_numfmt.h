/* sart_numfmt.h — doubles as the shortest text that reads back as the same double.
 *
 * Shared by the runtime's messages and by sacc (result files, messages, JSON): C99, no
 * state, nothing but <stddef.h> and <stdint.h>.
 *
 * The text: the fewest significant digits d1...dn such that strtod reads d1...dn 10^e back
 * as x (of several such, the nearest to x; at a tie, the even one), laid out as printf's
 * "%.17g" lays out its digits: fixed notation when the decimal exponent E of d1 is in
 * -4 ... 16 ("0.0001", "0.5", "12.25", "10000000000000000"), else d1.d2...dne±XX with at
 * least two exponent digits ("1e-05", "2.5e+17", "5e-324").  No trailing zeros after a
 * point, no point without digits after it.  Negative zero is "-0", so it too reads back
 * bit for bit; non-finite values are "nan" (whatever its sign and payload), "inf" and
 * "-inf", which strtod reads back as NaN and the infinities. */
#ifndef SART_NUMFMT_H
#define SART_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* The longest text, with its terminating NUL ("-2.2250738585072014e-308" is 24 + 1). */
#define SART_NUM_MAX 32

/* Writes x into buf (NUL-terminated) and returns its length. */
size_t sart_fmt_double(char buf[SART_NUM_MAX], double x);

/* The same, returning buf: for printf's "%s" ("t = %s", sart_num(b, t)). */
const char *sart_num(char buf[SART_NUM_MAX], double x);

/* sart_num in a buffer of its own that lives to the end of the enclosing block, so that a
 * message can take several: printf("from %s to %s", SART_NUM(a), SART_NUM(b)). */
#define SART_NUM(x) sart_num((char[SART_NUM_MAX]){0}, (x))

/* The shortest digits of |x| (x finite and nonzero): |x| reads back from digits 10^exp10;
 * digits has no trailing zero and at most 17 digits.  For layouts other than the one above
 * (a C literal, an XML attribute). */
void sart_shortest_decimal(double x, uint64_t *digits, int *exp10);

#endif
