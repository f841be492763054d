/* fuzz_csv.c — libFuzzer entry point: the input as a result table, through csv_parse
 * (orchestrator/csv.c, what csv_read runs for `sacc plot` and `sacc simulate --reference`), then
 * csv_column on its names, csv_at on every cell and csv_interp at the ends, the middle,
 * outside and at its rows' times.
 *
 * Besides crashes, hangs and leaks, an input that is refused without "fuzz.csv:LINE: " or
 * "fuzz.csv:LINE:COL: " (LINE one of the input's lines) aborts, so that libFuzzer keeps it: csv.h promises a
 * line for every malformed input; only an empty one is "fuzz.csv: empty file".  So does a
 * table that breaks what csv.h says of it (a name not found, a time before the previous
 * one, a time not finite, a cell not finite in a column csv_numeric passes, a time inside
 * the table that csv_interp refuses).  Every input is read a second time with its columns
 * of every kind in turn (text, Integer, Boolean, hex), the text cells all there.
 * tests/fuzz/run.sh builds and runs this. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

#define NAME "fuzz.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *why, const char *err)
{
	fprintf(stderr, "fuzz_csv: %s%s%s\n", why, err ? ": " : "", err ? err : "");
	abort();
}

/* Whether err is "fuzz.csv:LINE: ..." with LINE in 1..lines. */
static int has_line(const char *err, long lines)
{
	if (strncmp(err, NAME ":", strlen(NAME ":")) != 0)
		return 0;
	const char *p = err + strlen(NAME ":");
	char *end;
	long n = strtol(p, &end, 10);
	if (end == p || *p < '0' || *p > '9' || end[0] != ':' || n < 1 || n > lines)
		return 0;
	if (end[1] >= '1' && end[1] <= '9') /* LINE:COL: */
		for (end++; *end >= '0' && *end <= '9'; end++)
			;
	return end[0] == ':' && end[1] == ' ';
}

static void exercise(const CsvTable *t)
{
	if (t->ncols < 1 || strcmp(t->names[0], "time") != 0)
		fail("a table without time first", NULL);
	/* csv_column is a linear search: a few hundred names, lest the harness be quadratic */
	for (int c = 0; c < t->ncols; c += t->ncols / 256 + 1)
		if (csv_column(t, t->names[c]) != c)
			fail("csv_column does not find its own name", t->names[c]);
	char msg[512];
	for (int c = 0; c < t->ncols; c++) {
		if (!csv_numeric(t, c, msg, sizeof msg)) {
			if (c == 0 || !has_line(msg, 1L << 40))
				fail("a column refused without its place", msg);
			continue;
		}
		for (size_t r = 0; r < t->nrows; r++)
			if (!isfinite(csv_at(t, r, c)))
				fail("a cell that is not finite", NULL);
	}
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			if (t->is_text[c] && !csv_text(t, r, c))
				fail("a text cell missing", NULL);
		if (r > 0 && csv_at(t, r, 0) < csv_at(t, r - 1, 0))
			fail("the times go back", NULL);
	}
	double v;
	if (t->nrows == 0) {
		if (csv_interp(t, 0, 0, &v) != -1)
			fail("csv_interp on a table without rows", NULL);
		return;
	}
	double t0 = csv_at(t, 0, 0), t1 = csv_at(t, t->nrows - 1, 0);
	double xs[] = {t0, t1, t0 / 2 + t1 / 2, t0 - 1, t1 + 1, -1e300, 1e300};
	size_t nx = sizeof xs / sizeof xs[0];
	for (int c = 0; c < t->ncols; c++) {
		for (size_t k = 0; k < nx; k++)
			if (csv_interp(t, c, xs[k], &v) != 0 && xs[k] >= t0 && xs[k] <= t1)
				fail("csv_interp refuses a time inside the table", NULL);
		/* each row's time, at most a few hundred of them */
		size_t step = t->nrows / 256 + 1;
		for (size_t r = 0; r < t->nrows; r += step)
			if (csv_interp(t, c, csv_at(t, r, 0), &v) != 0)
				fail("csv_interp refuses a row's time", NULL);
	}
}

/* Every kind in turn, column by column. */
static CsvKind kinds(void *env, int c, const char *name)
{
	static const CsvKind k[] = {CSV_NUMBER, CSV_TEXT, CSV_INTEGER, CSV_BOOLEAN, CSV_HEX};
	(void)env, (void)name;
	return k[c % 5];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	CsvOptions text = {kinds, NULL};
	CsvTable *t = csv_parse_with((const char *)data, size, NAME, &text, err, sizeof err);
	if (t) {
		exercise(t);
		csv_free(t);
	}
	t = csv_parse((const char *)data, size, NAME, err, sizeof err);
	if (t) {
		exercise(t);
		csv_free(t);
		return 0;
	}
	long lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (size == 0 ? strncmp(err, NAME ": empty file", strlen(NAME ": empty file")) != 0
	              : !has_line(err, lines))
		fail("refused without " NAME ":LINE", err);
	return 0;
}
