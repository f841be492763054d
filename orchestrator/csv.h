/* csv.h — the result tables of `sacc simulate`: read back from CSV (`sacc plot`, the
 * reference of `sacc simulate --sweep`, `--input`, ensemble statistics) or filled in memory
 * (the runs of a sweep), and sampled at any time by linear interpolation.
 *
 * The format is the one `sacc simulate` writes, which is what FMPy, fmusim and pandas read:
 * a header naming the columns, the first being `time`; then one row per communication
 * point, the times never decreasing.  Fields are quoted as RFC 4180 says (a quoted field
 * may hold commas, doubled quotes and line breaks); any field may be quoted.  A header
 * field may carry its column's unit as `name [unit]` (`time [s]`, `window.height [m]`, as
 * earlier versions of sacc wrote and `--header units` writes): the reader keeps the name without
 * it, so that a file with units is read by name as one without, and keeps the unit apart
 * for `sacc plot`'s axes.
 *
 * The time's cells must be finite numbers.  Other columns are numbers (a cell `true` or
 * `false` reads as 1 or 0) unless the caller asks for a column as text (CsvOptions.kind):
 * a column with a cell that is no number is kept, its cells NaN and its first such cell
 * remembered (csv_numeric says where), so that a reader of numbers can skip a String
 * column and refuse one it was asked for with the cell's line and column. */
#ifndef SACC_CSV_H
#define SACC_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where a cell stands in its file: line and character column (both from 1). */
typedef struct CsvWhere {
	long line;
	int col;
} CsvWhere;

/* What a column holds: numbers (the default; a cell `true` or `false` reads as 1 or 0),
 * text kept as written (CSV_HEX: text of hex digits, two per byte, a Binary's), or numbers
 * that must be 32-bit integers (sacc's Integers) or Booleans (true, false, 1 or 0, read as
 * 1 and 0). */
typedef enum CsvKind { CSV_NUMBER, CSV_TEXT, CSV_INTEGER, CSV_BOOLEAN, CSV_HEX } CsvKind;

typedef struct CsvTable {
	int ncols;       /* column 0 is time */
	char **names;    /* ncols names, malloc'd */
	char **units;    /* ncols units from the header's `name [unit]`, malloc'd; NULL each
	                  * where the header gives none */
	size_t nrows, caprows;
	double *data;    /* nrows * ncols, row-major; NaN in a text column and where a cell of
	                  * a number column is no number */
	char *source;    /* the path or name read, for messages; NULL for csv_new's tables */
	bool *is_text;   /* ncols: read as text (CsvOptions.kind); NULL for csv_new's */
	CsvKind *kinds;  /* ncols: what each holds; NULL for csv_new's */
	char **cells;    /* caprows * ncols: each text column's cells as written (unquoted),
	                  * NULL elsewhere; NULL when no column is text */
	CsvWhere *where; /* nrows: where each row starts; NULL for csv_new's */
	CsvWhere *bad;   /* ncols: the first cell of a column that is not of its kind (line 0
	                  * when none); NULL for csv_new's */
	char **bad_text; /* ncols: that cell's text, malloc'd, or NULL */
	const char **bad_why; /* ncols: what is wrong with it ("is not a finite number") */
} CsvTable;

/* What a reader wants besides numbers. */
typedef struct CsvOptions {
	/* What column c (named name, unit cut off, c >= 1) holds; NULL: numbers, each. */
	CsvKind (*kind)(void *env, int c, const char *name);
	void *env;
} CsvOptions;

/* An empty table with these column names (copied; names[0] is the time's) and no units.
 * NULL when out of memory. */
CsvTable *csv_new(int ncols, const char *const names[]);

/* Appends one row of ncols values.  Returns 0, or -1 when out of memory. */
int csv_append(CsvTable *t, const double row[]);

/* Reads path, every column but text ones numbers.  Returns the table, or NULL with a
 * message in err: "path: ..." when the file cannot be read or holds nothing,
 * "path:LINE:COL: ..." for a malformed record (a field count that differs from the
 * header's, a time that is not a finite number or is before the previous row's, a quoted
 * field not closed or followed by text, a quote inside an unquoted field, a header without
 * `time` first or with a name twice). */
CsvTable *csv_read(const char *path, char *err, size_t errsize);

/* csv_read with the columns' kinds from options (NULL: numbers, every one). */
CsvTable *csv_read_with(const char *path, const CsvOptions *options, char *err,
                        size_t errsize);

/* csv_read on the len bytes at text (which need no NUL; NULL when len is 0), name standing
 * for the path in the messages: the same records, the same table, the same errors.  For
 * tests and the fuzzer (tests/fuzz/fuzz_csv.c), which have the text and no file. */
CsvTable *csv_parse(const char *text, size_t len, const char *name, char *err,
                    size_t errsize);
CsvTable *csv_parse_with(const char *text, size_t len, const char *name,
                         const CsvOptions *options, char *err, size_t errsize);

/* Whether column c holds numbers only, each of its kind.  When not (a text column, or a
 * cell that is no number, Integer or Boolean as the column should hold), msg says why as
 * "SOURCE:LINE:COL: column N (NAME): 'CELL' is not a finite number" (or "... is a text
 * column").  Tables of csv_new are numbers throughout. */
bool csv_numeric(const CsvTable *t, int c, char *msg, size_t size);

/* Whether column c has a cell that is not of its kind; if so msg says which, as
 * csv_numeric does.  (A text column's cells are all text, a CSV_HEX one's hex digits.) */
bool csv_has_bad_cell(const CsvTable *t, int c, char *msg, size_t size);

/* The text of row r's cell in text column c (as written, unquoted). */
const char *csv_text(const CsvTable *t, size_t r, int c);

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

/* Splits one line (no line break in it) into at most max fields at the commas outside
 * double quotes, unquoting in place as RFC 4180 says; cols[k] (when cols is not NULL) is
 * field k's character column.  Returns the number of fields (max + 1 when there are more),
 * or -1 with *bad the column of the fault and *why its description (a quote not closed,
 * text after a closing quote, a quote inside an unquoted field).  For the small tables
 * that are no results (ensemble designs). */
int csv_split(char *line, char **fields, int *cols, int max, int *bad, const char **why);

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
