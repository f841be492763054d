/* csv.h — the result tables of `sacc simulate`: read back from CSV (`sacc plot`, the
 * reference of `sacc simulate --sweep`) or filled in memory (the runs of a sweep), and
 * sampled at any time by linear interpolation.
 *
 * The format is the one `sacc simulate` writes: a header naming the columns, the first
 * being `time`; then one row per communication point, every field a finite number, the
 * times never decreasing.  A header field may carry its column's unit as `name [unit]`
 * (`time [s]`, `window.height [m]`): the reader keeps the name without it, so that a file
 * with units is read by name as one without, and keeps the unit apart for `sacc plot`'s
 * axes.  Header fields are quoted as RFC 4180 says where a name holds a comma or a double
 * quote (FMI's structured names do: `a[1,2]`); the rows are numbers, never quoted. */
#ifndef SACC_CSV_H
#define SACC_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct CsvTable {
	int ncols;       /* column 0 is time */
	char **names;    /* ncols names, malloc'd */
	char **units;    /* ncols units from the header's `name [unit]`, malloc'd; NULL each
	                  * where the header gives none */
	size_t nrows, caprows;
	double *data;    /* nrows * ncols, row-major */
} CsvTable;

/* An empty table with these column names (copied; names[0] is the time's) and no units.
 * NULL when out of memory. */
CsvTable *csv_new(int ncols, const char *const names[]);

/* Appends one row of ncols values.  Returns 0, or -1 when out of memory. */
int csv_append(CsvTable *t, const double row[]);

/* Reads path.  Returns the table, or NULL with a message in err: "path: ..." when the
 * file cannot be read or holds nothing, "path:LINE: ..." for a malformed line (a field
 * count that differs from the header's, a field that is not a finite number, a time
 * before the previous row's, a quoted field, a header without `time` first or with a
 * name twice). */
CsvTable *csv_read(const char *path, char *err, size_t errsize);

/* csv_read on the len bytes at text (which need no NUL; NULL when len is 0), name standing
 * for the path in the messages: the same lines, the same table, the same errors.  For
 * tests and the fuzzer (tests/fuzz/fuzz_csv.c), which have the text and no file. */
CsvTable *csv_parse(const char *text, size_t len, const char *name, char *err,
                    size_t errsize);

/* Whether s is a finite number and nothing else (strtod's syntax; not empty, no overflow
 * or underflow to zero; subnormal values are numbers); its value in *v.  A field of csv_read; also the numbers of
 * `sacc simulate`'s options and --sweep's steps. */
bool csv_number(const char *s, double *v);

/* The index of the column named name, or -1.  name may carry the unit as the header
 * shows it ("m1.x [m]"): then the column must have that unit. */
int csv_column(const CsvTable *t, const char *name);

/* Whether a header field must be quoted: it holds a comma, a double quote or a line break. */
bool csv_needs_quotes(const char *field);

/* Writes one header field to f, quoted (its double quotes doubled) where csv_needs_quotes
 * says; a line break is written as a space, so that the header stays one line.  Returns 0,
 * or -1 when f fails. */
int csv_put_field(FILE *f, const char *field);

/* The value at row r, column c. */
static inline double csv_at(const CsvTable *t, size_t r, int c)
{
	return t->data[r * (size_t)t->ncols + (size_t)c];
}

/* Column c at time x, linear between the two rows around it (the later row's value where
 * a time repeats).  Returns 0, or -1 when x lies outside [first time, last time] by more
 * than 1e-9 of the larger of the table's span and its largest |time| (within that, the
 * end value is taken). */
int csv_interp(const CsvTable *t, int c, double x, double *v);

void csv_free(CsvTable *t);

/* The length of the item of a comma-separated list that starts at p: up to the first comma
 * outside brackets, so that an element `a.y[1,2]` stays one item. */
size_t csv_list_item(const char *p);

#endif
