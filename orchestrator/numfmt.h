/* numfmt.h — doubles as result files write them: 17 significant digits, in the layout of
 * printf's "%.17g", read back by strtod as the same double. */
#ifndef SACC_NUMFMT_H
#define SACC_NUMFMT_H

#include <stddef.h>

/* The longest text fmt_real writes, with its terminating NUL: "-1.2345678901234567e-308". */
#define FMT_REAL_MAX 32

/* Writes x into buf (NUL-terminated) and returns its length.  Finite values: the 17
 * significant digits of x (trailing zeros dropped), fixed notation for exponents -4 to 16
 * and "d.ddde+XX" otherwise, as "%.17g" lays them out; "nan", "inf", "-inf" otherwise.
 * Some ten times cheaper than snprintf: result files are mostly numbers. */
size_t fmt_real(char buf[FMT_REAL_MAX], double x);

/* Whether fmt_real forms digits itself here and now (1), or leaves them all to snprintf
 * (0: no 64-bit long double arithmetic, as under valgrind). */
int fmt_real_own_digits(void);

#endif
