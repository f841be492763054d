/* csv.c — reading, building and sampling result tables (csv.h).  Shared by `sacc plot`
 * (plot.c) and `sacc simulate --sweep` (simulate_cli.c, sweep.c); knows nothing of FMUs. */
#include "csv.h"
#include "numfmt.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CsvTable *csv_new(int ncols, const char *const names[])
{
	CsvTable *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->names = calloc((size_t)ncols + 1, sizeof *t->names);
	t->units = calloc((size_t)ncols + 1, sizeof *t->units);
	if (!t->names || !t->units) {
		free(t->names);
		free(t->units);
		free(t);
		return NULL;
	}
	t->ncols = ncols;
	for (int c = 0; c < ncols; c++)
		if (!(t->names[c] = strdup(names[c]))) {
			csv_free(t);
			return NULL;
		}
	return t;
}

int csv_append(CsvTable *t, const double row[])
{
	if (t->nrows == t->caprows) {
		size_t cap = t->caprows ? 2 * t->caprows : 256;
		double *d = realloc(t->data, cap * (size_t)t->ncols * sizeof *d);
		if (!d)
			return -1;
		t->data = d;
		t->caprows = cap;
	}
	memcpy(t->data + t->nrows * (size_t)t->ncols, row, (size_t)t->ncols * sizeof *row);
	t->nrows++;
	return 0;
}

void csv_free(CsvTable *t)
{
	if (!t)
		return;
	for (int c = 0; c < t->ncols; c++) {
		free(t->names[c]);
		free(t->units[c]);
	}
	free(t->names);
	free(t->units);
	free(t->data);
	free(t);
}

int csv_column(const CsvTable *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->names[c], name) == 0)
			return c;
	/* "name [unit]", as the header shows it: the column of that name, if its unit is that */
	size_t n = strlen(name);
	const char *open = n ? strrchr(name, '[') : NULL;
	if (!open || name[n - 1] != ']' || open == name || open[-1] != ' ')
		return -1;
	const char *end = open - 1;
	while (end > name && end[-1] == ' ')
		end--;
	size_t nlen = (size_t)(end - name), ulen = (size_t)(name + n - 1 - (open + 1));
	for (int c = 0; c < t->ncols; c++)
		if (strlen(t->names[c]) == nlen && memcmp(t->names[c], name, nlen) == 0 &&
		    t->units[c] && strlen(t->units[c]) == ulen && memcmp(t->units[c], open + 1, ulen) == 0)
			return c;
	return -1;
}

bool csv_needs_quotes(const char *field)
{
	return strpbrk(field, ",\"\r\n") != NULL;
}

int csv_put_field(FILE *f, const char *field)
{
	if (!csv_needs_quotes(field))
		return fputs(field, f) < 0 ? -1 : 0;
	putc('"', f);
	for (const char *p = field; *p; p++) {
		if (*p == '"')
			putc('"', f);
		putc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	}
	return putc('"', f) == EOF ? -1 : 0;
}

int csv_interp(const CsvTable *t, int c, double x, double *v)
{
	if (t->nrows == 0)
		return -1;
	double t0 = csv_at(t, 0, 0), t1 = csv_at(t, t->nrows - 1, 0);
	double slack = 1e-9 * fmax(t1 - t0, fmax(fabs(t0), fabs(t1)));
	if (x < t0 - slack || x > t1 + slack)
		return -1;
	/* the first row whose time is beyond x */
	size_t lo = 0, hi = t->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (csv_at(t, mid, 0) > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0) {
		*v = csv_at(t, 0, c);
		return 0;
	}
	if (lo == t->nrows) {
		*v = csv_at(t, t->nrows - 1, c);
		return 0;
	}
	double xa = csv_at(t, lo - 1, 0), xb = csv_at(t, lo, 0);
	double ya = csv_at(t, lo - 1, c), yb = csv_at(t, lo, c);
	*v = ya + (yb - ya) * ((x - xa) / (xb - xa));
	return 0;
}

bool csv_number(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	/* strtod flags a subnormal result as underflow too, though it is exact when sacc wrote
	 * it; only overflow and underflow to zero are refused */
	bool range_ok = errno == 0 || (errno == ERANGE && *v != 0 && isfinite(*v));
	return *s && !*end && range_ok && isfinite(*v);
}

static void say(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

/* Splits line (its end of line removed) at commas, in place; at most max fields.  Returns
 * the number of fields, which is max + 1 when there are more. */
static int split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		if (n == max)
			return max + 1;
		fields[n++] = p;
		p = strchr(p, ',');
		if (!p)
			return n;
		*p++ = '\0';
	}
}

static void chomp(char *line, ssize_t *len)
{
	while (*len > 0 && (line[*len - 1] == '\n' || line[*len - 1] == '\r'))
		line[--*len] = '\0';
}

/* Splits the header line (its end of line removed) at the commas outside double quotes,
 * unquoting in place as RFC 4180 says ("a,b" is a,b; "" inside quotes is one "); at most
 * max fields.  Returns the number of fields, or -1 for a quote left open or text after a
 * closing quote. */
static int split_header(char *line, char **fields, int max)
{
	int n = 0;
	char *r = line, *w = line;
	for (;;) {
		if (n == max)
			return -1;
		fields[n++] = w;
		if (*r == '"') {
			for (r++;; r++) {
				if (!*r)
					return -1;
				if (*r == '"' && r[1] != '"')
					break;
				if (*r == '"')
					r++;
				*w++ = *r;
			}
			r++;
			if (*r && *r != ',')
				return -1;
		} else {
			while (*r && *r != ',') {
				if (*r == '"')
					return -1;
				*w++ = *r++;
			}
		}
		if (!*r) {
			*w = '\0';
			return n;
		}
		r++;
		*w++ = '\0';
	}
}

/* A header field's `name [unit]`: cuts the unit off field (in place) and returns it, or
 * NULL when the field carries none. */
static char *cut_unit(char *field)
{
	size_t n = strlen(field);
	char *open = n ? strrchr(field, '[') : NULL;
	if (!open || field[n - 1] != ']' || open == field || open[-1] != ' ')
		return NULL;
	field[n - 1] = '\0';
	char *end = open - 1;
	while (end > field && end[-1] == ' ')
		end--;
	*end = '\0';
	return open + 1;
}

typedef struct Named {
	const char *s;
	int c;
} Named;

static int by_name(const void *a, const void *b)
{
	const Named *x = a, *y = b;
	int k = strcmp(x->s, y->s);
	return k ? k : (x->c > y->c) - (x->c < y->c);
}

/* The header's first fault in column order (a name empty, or the same as an earlier
 * one), found by sorting the names: comparing each with all before it took 13 s of CPU
 * for 100 000 columns, and 8 s under ASan for fuzz_csv's 64 KiB, near its timeout.
 * Returns 0, or -1 with the message in err. */
static int check_names(char *const fields[], int ncols, const char *name, char *err,
                       size_t errsize)
{
	int empty = ncols, dup = ncols, orig = 0;
	for (int c = 0; c < ncols && empty == ncols; c++)
		if (!fields[c][0])
			empty = c;
	Named *v = malloc((size_t)ncols * sizeof *v);
	if (!v) {
		say(err, errsize, "%s: out of memory", name);
		return -1;
	}
	for (int c = 0; c < ncols; c++)
		v[c] = (Named){fields[c], c};
	qsort(v, (size_t)ncols, sizeof *v, by_name);
	/* in a run of one name, the earliest column is the original, the next its first copy */
	for (int k = 1, first = 0; k < ncols; k++) {
		if (strcmp(v[k].s, v[k - 1].s) != 0) {
			first = k;
			continue;
		}
		if (v[k].c < dup) {
			dup = v[k].c;
			orig = v[first].c;
		}
	}
	free(v);
	if (empty < dup) {
		say(err, errsize, "%s:1: column %d has no name", name, empty + 1);
		return -1;
	}
	if (dup < ncols) {
		say(err, errsize, "%s:1: column '%s' appears twice (columns %d and %d)", name,
		    fields[dup], orig + 1, dup + 1);
		return -1;
	}
	return 0;
}

/* Where parse's lines come from: a stream (csv_read, which keeps reading a line at a time
 * so that a large result is never held twice) or a buffer (csv_parse). */
typedef struct LineSource {
	FILE *f;            /* or NULL for the buffer */
	const char *p, *end;
	bool nomem;         /* the buffer's line could not be copied */
} LineSource;

/* The next line, its '\n' kept and a NUL added, into *line as getline(3) does (which is
 * what it is for a stream, so a buffer's lines are cut exactly as a file's are).  Returns
 * its length, or -1 at the end. */
static ssize_t next_line(LineSource *src, char **line, size_t *cap)
{
	if (src->f)
		return getline(line, cap, src->f);
	if (src->p == src->end)
		return -1;
	const char *nl = memchr(src->p, '\n', (size_t)(src->end - src->p));
	size_t n = (size_t)((nl ? nl + 1 : src->end) - src->p);
	if (n + 1 > *cap) {
		char *l = realloc(*line, n + 1);
		if (!l) {
			src->nomem = true;
			return -1;
		}
		*line = l;
		*cap = n + 1;
	}
	memcpy(*line, src->p, n);
	(*line)[n] = '\0';
	src->p += n;
	return (ssize_t)n;
}

/* The reader proper, for csv_read and csv_parse; name is what the messages call the input. */
static CsvTable *parse(LineSource *src, const char *name, char *err, size_t errsize)
{
	CsvTable *t = NULL;
	char *line = NULL, **fields = NULL, **units = NULL;
	size_t cap = 0;
	double *row = NULL;
	long lineno = 0;
	ssize_t len;
	bool ok = false;

	len = next_line(src, &line, &cap);
	lineno = 1;
	if (len < 0 && src->nomem) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	if (len < 0) {
		say(err, errsize, "%s: empty file (a header `time,...` was expected)", name);
		goto done;
	}
	chomp(line, &len);
	int ncols = 1; /* at most: commas inside quotes part no fields */
	for (const char *p = line; *p; p++)
		ncols += *p == ',';
	fields = calloc((size_t)ncols + 2, sizeof *fields);
	if (!fields) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	ncols = split_header(line, fields, ncols);
	if (ncols < 0) {
		say(err, errsize, "%s:1: a quoted field of the header is not closed, or text "
		    "follows its closing quote", name);
		goto done;
	}
	units = calloc((size_t)ncols + 1, sizeof *units);
	row = calloc((size_t)ncols + 1, sizeof *row);
	if (!units || !row) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	for (int c = 0; c < ncols; c++)
		units[c] = cut_unit(fields[c]);
	if (strcmp(fields[0], "time") != 0) {
		say(err, errsize, "%s:1: the first column is '%s', not 'time'", name, fields[0]);
		goto done;
	}
	if (check_names(fields, ncols, name, err, errsize))
		goto done;
	t = csv_new(ncols, (const char *const *)fields);
	for (int c = 0; t && c < ncols; c++)
		if (units[c] && !(t->units[c] = strdup(units[c]))) {
			csv_free(t);
			t = NULL;
		}
	if (!t) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	while ((len = next_line(src, &line, &cap)) >= 0) {
		lineno++;
		chomp(line, &len);
		if (len == 0)
			continue; /* blank lines carry nothing */
		if (strchr(line, '"')) {
			say(err, errsize, "%s:%ld: quoted fields are not supported", name, lineno);
			goto done;
		}
		int n = split(line, fields, ncols);
		if (n != ncols) {
			say(err, errsize, "%s:%ld: %s%d fields, the header has %d", name, lineno,
			    n > ncols ? "more than " : "", n > ncols ? ncols : n, ncols);
			goto done;
		}
		for (int c = 0; c < ncols; c++) {
			if (!csv_number(fields[c], &row[c])) {
				say(err, errsize, "%s:%ld: column %d (%s): '%s' is not a finite number",
				    name, lineno, c + 1, t->names[c], fields[c]);
				goto done;
			}
		}
		if (t->nrows > 0 && row[0] < csv_at(t, t->nrows - 1, 0)) {
			say(err, errsize, "%s:%ld: time %s is before the previous row's %s", name,
			    lineno, FMT_REAL(row[0]), FMT_REAL(csv_at(t, t->nrows - 1, 0)));
			goto done;
		}
		if (csv_append(t, row)) {
			say(err, errsize, "%s: out of memory", name);
			goto done;
		}
	}
	if (src->f && ferror(src->f)) {
		say(err, errsize, "%s: cannot read: %s", name, strerror(errno));
		goto done;
	}
	if (src->nomem) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	ok = true;
done:
	free(line);
	free(fields);
	free(units);
	free(row);
	if (!ok) {
		csv_free(t);
		return NULL;
	}
	return t;
}

CsvTable *csv_read(const char *path, char *err, size_t errsize)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		say(err, errsize, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	LineSource src = {.f = f};
	CsvTable *t = parse(&src, path, err, errsize);
	fclose(f);
	return t;
}

CsvTable *csv_parse(const char *text, size_t len, const char *name, char *err, size_t errsize)
{
	LineSource src = {.p = text, .end = len ? text + len : text}; /* NULL + 0 is UB */
	return parse(&src, name, err, errsize);
}

size_t csv_list_item(const char *p)
{
	size_t len = 0;
	int depth = 0;
	for (; p[len] && (depth > 0 || p[len] != ','); len++)
		depth += p[len] == '[' ? 1 : p[len] == ']' && depth > 0 ? -1 : 0;
	return len;
}
