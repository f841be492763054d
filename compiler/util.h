/* util.h — small helpers shared by the front end: a growable string buffer and the edit
 * distance behind "did you mean" notes. */
#ifndef SACC_UTIL_H
#define SACC_UTIL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct StrBuf {
	char *data;
	size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The contents, NUL-terminated (never NULL). */
const char *sb_str(StrBuf *sb);

/* Levenshtein distance, capped: returns max + 1 as soon as it is known to exceed max. */
int edit_distance(const char *a, const char *b, int max);

/* Whether a suggested name is close enough to be worth a "did you mean". */
bool is_near_name(const char *typed, const char *candidate);

/* Reads a whole file into malloc'd memory with a NUL after it.  NULL on failure with
 * errno set; files over max bytes fail with EFBIG. */
char *read_file(const char *path, size_t max, size_t *len);

#endif
