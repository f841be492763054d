/* numfmt.h — doubles as sacc writes them for people and result files: the shortest text
 * that strtod reads back as the same double, laid out as printf's "%.17g" lays out its
 * digits ("0.1", "0.004", "1e-05", "-0", "nan", "inf"; runtime/sart_numfmt.h says it all).
 * The digits come from runtime/sart_numfmt.c, the one formatter the runtime's messages use
 * too, which libsacc compiles as well. */
#ifndef SACC_NUMFMT_H
#define SACC_NUMFMT_H

#include <stddef.h>

/* The longest text fmt_real writes, with its terminating NUL: "-2.2250738585072014e-308". */
#define FMT_REAL_MAX 32

/* Writes x into buf (NUL-terminated) and returns its length. */
size_t fmt_real(char buf[FMT_REAL_MAX], double x);

/* The same, returning buf, for printf's "%s". */
const char *fmt_real_text(char buf[FMT_REAL_MAX], double x);

/* fmt_real_text in a buffer of its own that lives to the end of the enclosing block, so
 * that one message can show several numbers: printf("t = %s", FMT_REAL(t)). */
#define FMT_REAL(x) fmt_real_text((char[FMT_REAL_MAX]){0}, (x))

#endif
