/* numfmt.c — numfmt.h over the runtime's formatter (runtime/sart_numfmt.c, compiled into
 * libsacc as well: compiler/ shares that one self-contained file with runtime/, nothing
 * else of it). */
#include "numfmt.h"

#include "../runtime/sart_numfmt.h"

_Static_assert(FMT_REAL_MAX >= SART_NUM_MAX, "the runtime's texts fit sacc's buffers");

size_t fmt_real(char buf[FMT_REAL_MAX], double x)
{
	return sart_fmt_double(buf, x);
}

const char *fmt_real_text(char buf[FMT_REAL_MAX], double x)
{
	sart_fmt_double(buf, x);
	return buf;
}
