/* csv.c — reading, building and sampling result tables (csv.h).  Shared by `sacc plot`
 * (plot.c) and `sacc simulate --sweep` (simulate_cli.c, sweep.c); knows nothing of FMUs. */
#include "csv.h"

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
	if (!t->names) {
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
	if (t->names)
		for (int c = 0; c < t->ncols; c++)
			free(t->names[c]);
	free(t->names);
	free(t->data);
	free(t);
}

int csv_column(const CsvTable *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->names[c], name) == 0)
			return c;
	return -1;
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
	return *s && !*end && errno == 0 && isfinite(*v);
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

CsvTable *csv_read(const char *path, char *err, size_t errsize)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		say(err, errsize, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	CsvTable *t = NULL;
	char *line = NULL, **fields = NULL;
	size_t cap = 0;
	double *row = NULL;
	long lineno = 0;
	ssize_t len;
	bool ok = false;

	len = getline(&line, &cap, f);
	lineno = 1;
	if (len < 0) {
		say(err, errsize, "%s: empty file (a header `time,...` was expected)", path);
		goto done;
	}
	chomp(line, &len);
	if (strchr(line, '"')) {
		say(err, errsize, "%s:1: quoted fields are not supported", path);
		goto done;
	}
	int ncols = 1;
	for (const char *p = line; *p; p++)
		ncols += *p == ',';
	fields = calloc((size_t)ncols + 2, sizeof *fields);
	row = calloc((size_t)ncols + 1, sizeof *row);
	if (!fields || !row) {
		say(err, errsize, "%s: out of memory", path);
		goto done;
	}
	split(line, fields, ncols);
	if (strcmp(fields[0], "time") != 0) {
		say(err, errsize, "%s:1: the first column is '%s', not 'time'", path, fields[0]);
		goto done;
	}
	for (int c = 0; c < ncols; c++) {
		if (!fields[c][0]) {
			say(err, errsize, "%s:1: column %d has no name", path, c + 1);
			goto done;
		}
		for (int d = 0; d < c; d++)
			if (strcmp(fields[c], fields[d]) == 0) {
				say(err, errsize, "%s:1: column '%s' appears twice (columns %d and %d)",
				    path, fields[c], d + 1, c + 1);
				goto done;
			}
	}
	t = csv_new(ncols, (const char *const *)fields);
	if (!t) {
		say(err, errsize, "%s: out of memory", path);
		goto done;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		chomp(line, &len);
		if (len == 0)
			continue; /* blank lines carry nothing */
		if (strchr(line, '"')) {
			say(err, errsize, "%s:%ld: quoted fields are not supported", path, lineno);
			goto done;
		}
		int n = split(line, fields, ncols);
		if (n != ncols) {
			say(err, errsize, "%s:%ld: %s%d fields, the header has %d", path, lineno,
			    n > ncols ? "more than " : "", n > ncols ? ncols : n, ncols);
			goto done;
		}
		for (int c = 0; c < ncols; c++) {
			if (!csv_number(fields[c], &row[c])) {
				say(err, errsize, "%s:%ld: column %d (%s): '%s' is not a finite number",
				    path, lineno, c + 1, t->names[c], fields[c]);
				goto done;
			}
		}
		if (t->nrows > 0 && row[0] < csv_at(t, t->nrows - 1, 0)) {
			say(err, errsize, "%s:%ld: time %.17g is before the previous row's %.17g", path,
			    lineno, row[0], csv_at(t, t->nrows - 1, 0));
			goto done;
		}
		if (csv_append(t, row)) {
			say(err, errsize, "%s: out of memory", path);
			goto done;
		}
	}
	if (ferror(f)) {
		say(err, errsize, "%s: cannot read: %s", path, strerror(errno));
		goto done;
	}
	ok = true;
done:
	free(line);
	free(fields);
	free(row);
	fclose(f);
	if (!ok) {
		csv_free(t);
		return NULL;
	}
	return t;
}
