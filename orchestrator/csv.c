/* csv.c — reading, building and sampling result tables (csv.h).  Shared by `sacc plot`
 * (plot.c) and `sacc simulate --sweep` (simulate_cli.c, sweep.c); knows nothing of FMUs. */
#include "csv.h"
#include "numfmt.h"

#include <errno.h>
#include <limits.h>
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

static int grow(CsvTable *t);

int csv_append(CsvTable *t, const double row[])
{
	if (grow(t))
		return -1;
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
		if (t->bad_text)
			free(t->bad_text[c]);
	}
	for (size_t k = 0; t->cells && k < t->caprows * (size_t)t->ncols; k++)
		free(t->cells[k]);
	free(t->cells);
	free(t->source);
	free(t->is_text);
	free(t->kinds);
	free(t->bad_why);
	free(t->where);
	free(t->bad);
	free(t->bad_text);
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

/* Splits text (one record, its final line break removed; it starts on line `line`, column
 * 1) at the commas outside double quotes, unquoting in place as RFC 4180 says ("a,b" is
 * a,b; "" inside quotes is one "; a quoted field may hold line breaks); at most max fields,
 * at[k] where field k starts.  Returns the number of fields, max + 1 when there are more,
 * or -1 with *bad where the fault is and *why what it is. */
static int scan(char *text, long line, char **fields, CsvWhere *at, int max, CsvWhere *bad,
                const char **why)
{
	char *r = text, *w = text;
	int col = 1, n = 0;
	for (;;) {
		if (n == max) {
			at[max] = (CsvWhere){line, col}; /* where the first field too many starts */
			return max + 1;
		}
		fields[n] = w;
		at[n++] = (CsvWhere){line, col};
		if (*r == '"') {
			CsvWhere open = {line, col};
			for (r++, col++;; r++) {
				if (!*r) {
					*bad = open;
					*why = "this quoted field is not closed";
					return -1;
				}
				if (*r == '"' && r[1] != '"')
					break;
				if (*r == '"')
					r++, col++;
				if (*r == '\n')
					line++, col = 1;
				else
					col++;
				*w++ = *r;
			}
			r++, col++;
			if (*r && *r != ',') {
				*bad = (CsvWhere){line, col};
				*why = "text follows the closing quote of a field (a quote inside a "
				       "quoted field is written twice)";
				return -1;
			}
		} else {
			for (; *r && *r != ','; r++) {
				if (*r == '"') {
					*bad = (CsvWhere){line, col};
					*why = "a double quote inside a field that is not quoted (quote the "
					       "field and write the quote twice)";
					return -1;
				}
				if (*r == '\n')
					line++, col = 1;
				else
					col++;
				*w++ = *r;
			}
		}
		if (!*r) {
			*w = '\0';
			return n;
		}
		r++, col++;
		*w++ = '\0';
	}
}

int csv_split(char *line, char **fields, int *cols, int max, int *bad, const char **why)
{
	CsvWhere *at = malloc(((size_t)max + 1) * sizeof *at);
	if (!at) {
		*bad = 1;
		*why = "out of memory";
		return -1;
	}
	CsvWhere fault = {0, 0};
	int n = scan(line, 1, fields, at, max, &fault, why);
	for (int k = 0; cols && k < n && k < max; k++)
		cols[k] = at[k].col;
	*bad = fault.col;
	free(at);
	return n;
}

/* One record at a time: the lines of a quoted field that holds line breaks joined. */
typedef struct Records {
	LineSource *src;
	char *line;         /* next_line's buffer */
	size_t linecap;
	char *rec;          /* the record, its final line break removed */
	size_t len, cap;
	long first, last;   /* its first and last line */
	char **fields;      /* room for the fields of the longest record so far */
	CsvWhere *at;
	int room;
} Records;

/* The next record into rd->rec.  Returns 1, 0 at the end of the input, or -1 when out of
 * memory.  A record goes on over the next line while its quotes are odd in number (a
 * quoted field is open); a quote open at the end is scan's to report. */
static int next_record(Records *rd)
{
	size_t quotes = 0;
	rd->len = 0;
	rd->first = rd->last + 1;
	for (;;) {
		ssize_t n = next_line(rd->src, &rd->line, &rd->linecap);
		if (n < 0) {
			if (rd->src->nomem)
				return -1;
			if (rd->last < rd->first)
				return 0;
			break;
		}
		rd->last++;
		if (rd->len + (size_t)n + 1 > rd->cap) {
			size_t cap = 2 * (rd->len + (size_t)n + 1);
			char *r = realloc(rd->rec, cap);
			if (!r)
				return -1;
			rd->rec = r;
			rd->cap = cap;
		}
		memcpy(rd->rec + rd->len, rd->line, (size_t)n + 1);
		rd->len += (size_t)n;
		for (const char *p = rd->line; (p = memchr(p, '"', (size_t)(rd->line + n - p))); p++)
			quotes++;
		if (quotes % 2 == 0)
			break;
	}
	while (rd->len > 0 && (rd->rec[rd->len - 1] == '\n' || rd->rec[rd->len - 1] == '\r'))
		rd->rec[--rd->len] = '\0';
	return 1;
}

/* Room in rd->fields for the record's fields (its commas + 1, at most max + 1).  Returns
 * 0, or -1 when out of memory. */
static int field_room(Records *rd, int max)
{
	int n = 1;
	for (const char *p = rd->rec; *p && n <= max; p++)
		n += *p == ',';
	if (n + 1 <= rd->room)
		return 0;
	char **f = realloc(rd->fields, ((size_t)n + 1) * sizeof *f);
	if (f)
		rd->fields = f;
	CsvWhere *at = realloc(rd->at, ((size_t)n + 1) * sizeof *at);
	if (at)
		rd->at = at;
	if (!f || !at)
		return -1;
	rd->room = n + 1;
	return 0;
}

/* Room for one more row (data, and the cells and places where the table keeps them).
 * Returns 0, or -1 when out of memory. */
static int grow(CsvTable *t)
{
	if (t->nrows < t->caprows)
		return 0;
	size_t cap = t->caprows ? 2 * t->caprows : 256, nc = (size_t)t->ncols;
	double *d = realloc(t->data, cap * nc * sizeof *d);
	if (!d)
		return -1;
	t->data = d;
	if (t->cells) {
		char **c = realloc(t->cells, cap * nc * sizeof *c);
		if (!c)
			return -1;
		memset(c + t->caprows * nc, 0, (cap - t->caprows) * nc * sizeof *c);
		t->cells = c;
	}
	if (t->where) {
		CsvWhere *w = realloc(t->where, cap * sizeof *w);
		if (!w)
			return -1;
		t->where = w;
	}
	t->caprows = cap;
	return 0;
}

/* A cell of a number column of kind k: NULL with its value in *v, or what is wrong. */
static const char *cell_number(const char *s, CsvKind k, double *v)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
		*v = s[0] == 't';
		return k == CSV_INTEGER ? "is not an Integer" : NULL;
	}
	if (!csv_number(s, v))
		return k == CSV_BOOLEAN ? "is not a Boolean (true, false, 1 or 0)"
		                        : k == CSV_INTEGER ? "is not an Integer"
		                                           : "is not a finite number";
	if (k == CSV_BOOLEAN && *v != 0 && *v != 1)
		return "is not a Boolean (true, false, 1 or 0)";
	if (k == CSV_INTEGER && *v != floor(*v))
		return "is not an Integer";
	if (k == CSV_INTEGER && (*v < -2147483648.0 || *v > 2147483647.0))
		return "does not fit a 32-bit Integer, which sacc exchanges integers as";
	return NULL;
}

/* The table for the header's fields (units cut off, names checked), with the room the
 * options ask for.  NULL with the message in err. */
static CsvTable *header_table(Records *rd, int ncols, const char *name,
                              const CsvOptions *o, char *err, size_t errsize)
{
	char **f = rd->fields;
	char **units = calloc((size_t)ncols + 1, sizeof *units);
	CsvTable *t = NULL;
	if (!units) {
		say(err, errsize, "%s: out of memory", name);
		return NULL;
	}
	for (int c = 0; c < ncols; c++)
		units[c] = cut_unit(f[c]);
	if (strcmp(f[0], "time") != 0) {
		say(err, errsize, "%s:1:1: the first column is '%s', not 'time'", name, f[0]);
		goto done;
	}
	if (check_names(f, ncols, name, err, errsize))
		goto done;
	bool ok = (t = csv_new(ncols, (const char *const *)f)) != NULL;
	for (int c = 0; ok && c < ncols; c++)
		ok = !units[c] || (t->units[c] = strdup(units[c]));
	ok = ok && (t->source = strdup(name)) && (t->is_text = calloc((size_t)ncols, 1)) &&
	     (t->kinds = calloc((size_t)ncols, sizeof *t->kinds)) &&
	     (t->bad = calloc((size_t)ncols, sizeof *t->bad)) &&
	     (t->bad_text = calloc((size_t)ncols, sizeof *t->bad_text)) &&
	     (t->bad_why = calloc((size_t)ncols, sizeof *t->bad_why)) &&
	     (t->where = malloc(sizeof *t->where));
	bool any = false;
	for (int c = 1; ok && o && o->kind && c < ncols; c++) {
		t->kinds[c] = o->kind(o->env, c, t->names[c]);
		any |= t->is_text[c] = t->kinds[c] == CSV_TEXT || t->kinds[c] == CSV_HEX;
	}
	if (ok && any)
		ok = (t->cells = calloc(1, sizeof *t->cells)) != NULL;
	if (!ok) {
		say(err, errsize, "%s: out of memory", name);
		csv_free(t);
		t = NULL;
	}
done:
	free(units);
	return t;
}

/* Whether s is hex digits, two per byte (none: no bytes). */
static bool is_hex(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");
	return !s[n] && n % 2 == 0;
}

/* Column c's first bad cell: where, what it holds (60 bytes of it), what is wrong.
 * Returns 0, or -1 when out of memory. */
static int remember_bad(CsvTable *t, int c, CsvWhere at, const char *cell, const char *why)
{
	t->bad[c] = at;
	t->bad_why[c] = why;
	return (t->bad_text[c] = strndup(cell, 60)) ? 0 : -1;
}

/* Row r's fields into t (grown already): numbers, text kept, the first bad cell of each
 * number column remembered.  Returns 0, or -1 with the message in err. */
static int take_row(CsvTable *t, const Records *rd, const char *name, char *err,
                    size_t errsize)
{
	size_t r = t->nrows, nc = (size_t)t->ncols;
	double *row = t->data + r * nc;
	const char *why;
	for (int c = 0; c < t->ncols; c++) {
		const char *cell = rd->fields[c];
		if (t->is_text[c]) {
			row[c] = NAN;
			if (!(t->cells[r * nc + (size_t)c] = strdup(cell))) {
				say(err, errsize, "%s: out of memory", name);
				return -1;
			}
			if (t->kinds[c] == CSV_HEX && t->bad[c].line == 0 && !is_hex(cell) &&
			    remember_bad(t, c, rd->at[c], cell, "is not a Binary in hex digits, two per "
			                 "byte (0a1b)")) {
				say(err, errsize, "%s: out of memory", name);
				return -1;
			}
		} else if ((why = cell_number(cell, t->kinds[c], &row[c]))) {
			if (c == 0) {
				say(err, errsize, "%s:%ld:%d: column 1 (time): '%.60s' is not a finite number",
				    name, rd->at[0].line, rd->at[0].col, cell);
				return -1;
			}
			row[c] = NAN;
			if (t->bad[c].line == 0 && remember_bad(t, c, rd->at[c], cell, why)) {
				say(err, errsize, "%s: out of memory", name);
				return -1;
			}
		}
	}
	if (r > 0 && row[0] < csv_at(t, r - 1, 0)) {
		say(err, errsize, "%s:%ld:%d: time %s is before the previous row's %s", name,
		    rd->at[0].line, rd->at[0].col, FMT_REAL(row[0]), FMT_REAL(csv_at(t, r - 1, 0)));
		return -1;
	}
	t->where[r] = rd->at[0];
	t->nrows++;
	return 0;
}

/* The reader proper, for csv_read and csv_parse; name is what the messages call the input. */
static CsvTable *parse(LineSource *src, const char *name, const CsvOptions *o, char *err,
                       size_t errsize)
{
	CsvTable *t = NULL;
	Records rd = {.src = src};
	CsvWhere bad;
	const char *why;
	bool ok = false;
	int got = next_record(&rd);
	if (got < 0) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	if (got == 0) {
		say(err, errsize, "%s: empty file (a header `time,...` was expected)", name);
		goto done;
	}
	if (field_room(&rd, INT_MAX - 1)) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	int ncols = scan(rd.rec, 1, rd.fields, rd.at, rd.room - 1, &bad, &why);
	if (ncols < 0) {
		say(err, errsize, "%s:%ld:%d: %s", name, bad.line, bad.col, why);
		goto done;
	}
	if (!(t = header_table(&rd, ncols, name, o, err, errsize)))
		goto done;
	while ((got = next_record(&rd)) > 0) {
		if (rd.len == 0)
			continue; /* blank lines carry nothing */
		if (field_room(&rd, ncols) || grow(t)) {
			say(err, errsize, "%s: out of memory", name);
			goto done;
		}
		int n = scan(rd.rec, rd.first, rd.fields, rd.at, ncols, &bad, &why);
		if (n < 0) {
			say(err, errsize, "%s:%ld:%d: %s", name, bad.line, bad.col, why);
			goto done;
		}
		if (n != ncols) {
			CsvWhere w = rd.at[n > ncols ? ncols : n - 1];
			say(err, errsize, "%s:%ld:%d: %s%d fields, the header has %d", name, w.line,
			    w.col, n > ncols ? "more than " : "", n > ncols ? ncols : n, ncols);
			goto done;
		}
		if (take_row(t, &rd, name, err, errsize))
			goto done;
	}
	if (got < 0) {
		say(err, errsize, "%s: out of memory", name);
		goto done;
	}
	if (src->f && ferror(src->f)) {
		say(err, errsize, "%s: cannot read: %s", name, strerror(errno));
		goto done;
	}
	ok = true;
done:
	free(rd.line);
	free(rd.rec);
	free(rd.fields);
	free(rd.at);
	if (!ok) {
		csv_free(t);
		return NULL;
	}
	return t;
}

CsvTable *csv_read_with(const char *path, const CsvOptions *options, char *err,
                        size_t errsize)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		say(err, errsize, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	LineSource src = {.f = f};
	CsvTable *t = parse(&src, path, options, err, errsize);
	fclose(f);
	return t;
}

CsvTable *csv_read(const char *path, char *err, size_t errsize)
{
	return csv_read_with(path, NULL, err, errsize);
}

CsvTable *csv_parse_with(const char *text, size_t len, const char *name,
                         const CsvOptions *options, char *err, size_t errsize)
{
	LineSource src = {.p = text, .end = len ? text + len : text}; /* NULL + 0 is UB */
	return parse(&src, name, options, err, errsize);
}

CsvTable *csv_parse(const char *text, size_t len, const char *name, char *err, size_t errsize)
{
	return csv_parse_with(text, len, name, NULL, err, errsize);
}

bool csv_has_bad_cell(const CsvTable *t, int c, char *msg, size_t size)
{
	if (!t->bad || t->bad[c].line == 0)
		return false;
	say(msg, size, "%s:%ld:%d: column %d (%s): '%s' %s", t->source, t->bad[c].line,
	    t->bad[c].col, c + 1, t->names[c], t->bad_text[c], t->bad_why[c]);
	return true;
}

bool csv_numeric(const CsvTable *t, int c, char *msg, size_t size)
{
	if (t->is_text && t->is_text[c]) {
		say(msg, size, "%s:1: column %d (%s) is a text column", t->source, c + 1, t->names[c]);
		return false;
	}
	return !csv_has_bad_cell(t, c, msg, size);
}

const char *csv_text(const CsvTable *t, size_t r, int c)
{
	return t->cells[r * (size_t)t->ncols + (size_t)c];
}

size_t csv_list_item(const char *p)
{
	size_t len = 0;
	int depth = 0;
	for (; p[len] && (depth > 0 || p[len] != ','); len++)
		depth += p[len] == '[' ? 1 : p[len] == ']' && depth > 0 ? -1 : 0;
	return len;
}
