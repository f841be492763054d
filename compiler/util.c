/* util.c — see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sb_reserve(StrBuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	char *p = realloc(sb->data, cap);
	if (!p) {
		fputs("sacc: out of memory\n", stderr);
		abort();
	}
	sb->data = p;
	sb->cap = cap;
}

void sb_init(StrBuf *sb) { *sb = (StrBuf){0}; }
void sb_free(StrBuf *sb) { free(sb->data); *sb = (StrBuf){0}; }

void sb_putc(StrBuf *sb, char c)
{
	sb_reserve(sb, 1);
	sb->data[sb->len++] = c;
	sb->data[sb->len] = '\0';
}

void sb_puts(StrBuf *sb, const char *s)
{
	size_t n = strlen(s);
	sb_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n + 1);
	sb->len += n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sb_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

const char *sb_str(StrBuf *sb)
{
	if (!sb->data)
		sb_reserve(sb, 0), sb->data[0] = '\0';
	return sb->data;
}

int edit_distance(const char *a, const char *b, int max)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return max + 1;
	if ((la > lb ? la - lb : lb - la) > (size_t)max)
		return max + 1;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0], best = row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = a[i - 1] == b[j - 1] ? 0 : 1;
			int v = diag + cost;
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	return row[lb];
}

bool is_near_name(const char *typed, const char *candidate)
{
	size_t n = strlen(typed);
	int max = n <= 3 ? 1 : n <= 6 ? 2 : 3;
	return edit_distance(typed, candidate, max) <= max;
}

void suggestion_init(Suggestion *s, const char *typed)
{
	*s = (Suggestion){.typed = typed};
}

void suggestion_offer(Suggestion *s, const char *name, bool fits)
{
	if (!name || strcmp(name, s->typed) == 0 || !is_near_name(s->typed, name))
		return;
	int d = edit_distance(s->typed, name, 8);
	bool better = !s->best || (fits && !s->best_fits) ||
		      (fits == s->best_fits && d < s->best_distance);
	if (better) {
		s->best = name;
		s->best_fits = fits;
		s->best_distance = d;
	}
}

void sb_dirs_searched(StrBuf *sb, const char *first, const char *first_what, const char *option,
		      const char *const *dirs, int n)
{
	sb_printf(sb, "'%s' (%s)", first, first_what);
	if (n == 0) {
		sb_printf(sb, " only, as no %s directory was given", option);
		return;
	}
	sb_printf(sb, " and in the %s director%s ", option, n == 1 ? "y" : "ies");
	for (int i = 0; i < n; i++)
		sb_printf(sb, "%s'%s'", i == 0 ? "" : i == n - 1 ? " and " : ", ", dirs[i]);
}

char *read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			char *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err || n > max) {
		free(buf);
		errno = err ? EIO : EFBIG;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

char *path_dir(Arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return arena_strdup(a, ".");
	if (slash == path)
		return arena_strdup(a, "/");
	return arena_strndup(a, path, (size_t)(slash - path));
}

int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = out < 0 ? -2 : 0;
	char buf[1 << 16];
	ssize_t n;
	while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
		rc = n > 0 ? 0 : -1;
		for (ssize_t done = 0; rc == 0 && done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			rc = w > 0 ? 0 : -2;
			done += rc == 0 ? w : 0;
		}
	}
	int err = errno;
	if (out >= 0 && close(out) != 0 && rc == 0) {
		rc = -2;
		err = errno;
	}
	close(in);
	errno = err;
	return rc;
}

/* ---- NameIndex: open addressing, linear probing, kept at most half full ------------------- */

static size_t name_hash(const char *p)
{
	size_t h = 2166136261u; /* FNV-1a */
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

/* The slot of name, or the empty one where it would go. */
static size_t name_slot(const NameIndex *ix, const char *name)
{
	size_t i = name_hash(name) & (ix->cap - 1);
	while (ix->names[i] && strcmp(ix->names[i], name) != 0)
		i = (i + 1) & (ix->cap - 1);
	return i;
}

int name_index_add(NameIndex *ix, const char *name, int value)
{
	if (2 * (ix->n + 1) > ix->cap) {
		NameIndex big = {NULL, NULL, ix->cap ? 2 * ix->cap : 64, ix->n};
		big.names = calloc(big.cap, sizeof *big.names);
		big.values = malloc(big.cap * sizeof *big.values);
		if (!big.names || !big.values) {
			free(big.names);
			free(big.values);
			return -1;
		}
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->names[i]) {
				size_t j = name_slot(&big, ix->names[i]);
				big.names[j] = ix->names[i];
				big.values[j] = ix->values[i];
			}
		name_index_free(ix);
		*ix = big;
	}
	size_t i = name_slot(ix, name);
	if (!ix->names[i]) {
		ix->names[i] = name;
		ix->values[i] = value;
		ix->n++;
	}
	return 0;
}

int name_index_find(const NameIndex *ix, const char *name)
{
	if (!ix->cap)
		return -1;
	size_t i = name_slot(ix, name);
	return ix->names[i] ? ix->values[i] : -1;
}

void name_index_free(NameIndex *ix)
{
	free(ix->names);
	free(ix->values);
	ix->names = NULL;
	ix->values = NULL;
	ix->cap = ix->n = 0;
}
