/* util.h — small helpers shared by the front end: a growable string buffer, the edit
 * distance and the ranking behind "did you mean" notes, reading a file, and the pieces
 * of a path. */
#ifndef SACC_UTIL_H
#define SACC_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

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

/* The one name a "did you mean" note offers, chosen among candidates offered one by one.
 * A name legal where the typed one stands (an inner output where one is read, an input
 * where one is written) beats any that is not, however close; within each group the
 * closest wins, and the first offered on a tie.  Only names near enough to the typed one
 * (is_near_name) and different from it are ever chosen.  Every "did you mean" of the
 * checker ranks through this, so that they all agree. */
typedef struct Suggestion {
	const char *typed;
	const char *best; /* NULL while nothing near enough was offered */
	bool best_fits;
	int best_distance;
} Suggestion;

void suggestion_init(Suggestion *s, const char *typed);
/* fits: whether name would be legal where the typed name stands. */
void suggestion_offer(Suggestion *s, const char *name, bool fits);

/* Appends where a file was looked for, for a "not found" note: "'first' (first_what) and
 * in the -L directories 'a' and 'b'", or "'first' (first_what) only, as no -L directory
 * was given", option being "-L" or "-I". */
void sb_dirs_searched(StrBuf *sb, const char *first, const char *first_what, const char *option,
		      const char *const *dirs, int n);

/* Reads a whole file into malloc'd memory with a NUL after it.  NULL on failure with
 * errno set; files over max bytes fail with EFBIG. */
char *read_file(const char *path, size_t max, size_t *len);

/* Copies the file from to to, replacing what to held.  Returns 0; -1 when from cannot be
 * read, -2 when to cannot be written, errno saying why. */
int copy_file(const char *from, const char *to);

/* Whether s ends with suffix (s may be the suffix alone). */
bool str_ends_with(const char *s, const char *suffix);

/* The last component of path: what follows its last '/', or path itself. */
const char *path_base(const char *path);

/* The directory holding path's last component, in a: "." for a bare name, "/" for a name
 * right under the root. */
char *path_dir(Arena *a, const char *path);

/* A table from names to numbers, for finding one among thousands (a scenario's instances,
 * the owners its connections name) without a search through a list for each, which made
 * the set-up of ten thousand FMUs quadratic.  The names are not copied: they must outlive
 * the table.  Zero-initialized, it is an empty table. */
typedef struct NameIndex {
	const char **names;
	int *values;
	size_t cap, n;
} NameIndex;

/* Adds name with value, unless name is there already: the first stays, as a search from
 * the front of a list finds the first.  Returns 0, or -1 when out of memory. */
int name_index_add(NameIndex *ix, const char *name, int value);
/* The value of name, or -1 when it is not there. */
int name_index_find(const NameIndex *ix, const char *name);
void name_index_free(NameIndex *ix);

#endif
