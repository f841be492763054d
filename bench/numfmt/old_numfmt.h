/* old_numfmt.h — the "%.17g" formatter sacc used before (old_numfmt.c), for the benchmark. */
#ifndef OLD_NUMFMT_H
#define OLD_NUMFMT_H

#include <stddef.h>

#define OLD_FMT_MAX 32

/* printf's "%.17g" text of x, formed without printf where long double allows. */
size_t old_fmt_real(char buf[OLD_FMT_MAX], double x);

/* Whether old_fmt_real forms digits itself (not under valgrind, whose x87 keeps 53 bits). */
int old_fmt_real_own_digits(void);

#endif
