/* test_sweep.c — `sacc simulate --sweep H1,H2,...` and what it is built from: the result
 * tables of orchestrator/csv.c (reading, line-numbered errors, interpolation) and the error and
 * order of orchestrator/sweep.c, against values worked out by hand; then the sweep on the two
 * masses (bench/two_mass/two_mass.sa) against their exact solution, computed here with GSL
 * (bench/two_mass/twomass_ref.h) on a time grid of its own: Jacobi holding its inputs is
 * first order, with linear extrapolation second order (bench/two_mass/README.md), and the
 * largest error the sweep reports is the one found by comparing a plain run's CSV with the
 * exact solution at its own points.  Links GSL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "csv.h"
#include "simulate_test.h"
#include "sweep.h"

#include "../../bench/two_mass/twomass_ref.h"

static int setup(void **state)
{
	return sim_setup(state, "test_sweep");
}

/* ---- csv.c ------------------------------------------------------------------------------ */

static void csv__read__values_and_interpolation(void **state)
{
	Ctx *c = *state;
	write_text(c, "a.csv", "time,x,y\r\n0,1,10\n0.5,2,10\n\n1,4,-10\n1,5,-10\n2,7,0\n");
	char err[512] = "";
	CsvTable *t = csv_read(path_in(c, "a.csv"), err, sizeof err);
	assert_non_null(t);
	assert_int_equal(t->ncols, 3);
	assert_int_equal((int)t->nrows, 5);
	assert_string_equal(t->names[2], "y");
	assert_int_equal(csv_column(t, "y"), 2);
	assert_int_equal(csv_column(t, "z"), -1);
	double v;
	assert_int_equal(csv_interp(t, 1, 0.25, &v), 0);
	assert_close(v, 1.5, 1e-15);
	assert_int_equal(csv_interp(t, 2, 0.75, &v), 0);
	assert_close(v, 0, 1e-15);
	/* at a repeated time, the later row; then on from it */
	assert_int_equal(csv_interp(t, 1, 1, &v), 0);
	assert_close(v, 5, 0);
	assert_int_equal(csv_interp(t, 1, 1.5, &v), 0);
	assert_close(v, 6, 1e-15);
	assert_int_equal(csv_interp(t, 1, 2, &v), 0);
	assert_close(v, 7, 0);
	assert_int_equal(csv_interp(t, 1, 2 + 1e-12, &v), 0); /* rounding at the end */
	assert_close(v, 7, 0);
	assert_int_equal(csv_interp(t, 1, 2.001, &v), -1);
	assert_int_equal(csv_interp(t, 1, -0.001, &v), -1);
	csv_free(t);
}

static void csv__malformed__file_and_line(void **state)
{
	Ctx *c = *state;
	struct {
		const char *text, *msg;
	} cases[] = {
		{"time,x\n0,1\n1,2,3\n", "b.csv:3:5: more than 2 fields, the header has 2"},
		{"time,x\n0,1\n\n1\n", "b.csv:4:1: 1 fields, the header has 2"},
		{"time,x\n0,1\nabc,2\n", "b.csv:3:1: column 1 (time): 'abc' is not a finite number"},
		{"time,x\n1,1\n0.5,2\n", "b.csv:3:1: time 0.5 is before the previous row's 1"},
		{"t,x\n0,1\n", "b.csv:1:1: the first column is 't', not 'time'"},
		{"time,x,x\n", "b.csv:1: column 'x' appears twice (columns 2 and 3)"},
		{"time,\"x\n", "b.csv:1:6: this quoted field is not closed"},
		{"time,\"x\"y\n", "b.csv:1:9: text follows the closing quote of a field"},
		{"time,x\"y\n", "b.csv:1:7: a double quote inside a field that is not quoted"},
		{"time,x\n0,\"1\n2,3\n", "b.csv:2:3: this quoted field is not closed"},
		{"", "b.csv: empty file"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		write_text(c, "b.csv", cases[i].text);
		char err[512] = "";
		CsvTable *t = csv_read(path_in(c, "b.csv"), err, sizeof err);
		assert_null(t);
		assert_contains(err, cases[i].msg);
	}
	char err[512] = "";
	assert_null(csv_read(path_in(c, "none.csv"), err, sizeof err));
	assert_contains(err, "none.csv: cannot read: No such file or directory");
}

/* A cell of a column that is not the time and holds no number leaves the table whole:
 * csv_numeric says where it is, so that a reader of numbers can skip the column or refuse
 * it.  Quoted cells (RFC 4180: commas, doubled quotes, line breaks) are unquoted, and a
 * record that a quoted line break spreads over two lines counts both; true and false are
 * 1 and 0. */
static void csv__cells_not_numbers__kept_and_located(void **state)
{
	Ctx *c = *state;
	write_text(c, "n.csv", "time,x,s,b\n0,1,\"a, \"\"b\"\"\",true\n"
	                       "1,abc,\"two\nlines\",false\n2,\"3\",plain,1\n");
	char err[512] = "", msg[512] = "";
	CsvTable *t = csv_read(path_in(c, "n.csv"), err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	assert_int_equal(t->nrows, 3);
	assert_false(csv_numeric(t, 1, msg, sizeof msg));
	assert_contains(msg, "n.csv:3:3: column 2 (x): 'abc' is not a finite number");
	assert_true(isnan(csv_at(t, 1, 1)));
	assert_close(csv_at(t, 2, 1), 3, 0);       /* a quoted number is a number */
	assert_false(csv_numeric(t, 2, msg, sizeof msg));
	assert_contains(msg, "n.csv:2:5: column 3 (s): 'a, \"b\"' is not a finite number");
	assert_true(csv_numeric(t, 3, msg, sizeof msg));
	assert_close(csv_at(t, 0, 3), 1, 0);
	assert_close(csv_at(t, 1, 3), 0, 0);
	assert_int_equal(t->where[2].line, 5); /* the record of line 3 ends on line 4 */
	csv_free(t);
}

/* A column read as text keeps its cells as written; Integer and Boolean columns refuse
 * what their kind does not take, with the cell's place. */
static CsvKind kinds_sib(void *env, int c, const char *name)
{
	(void)env, (void)name;
	return c == 1 ? CSV_TEXT : c == 2 ? CSV_INTEGER : CSV_BOOLEAN;
}

static void csv__kinds__text_integer_boolean(void **state)
{
	(void)state;
	static const char text[] = "time,s,i,b\n0,\"x,\"\"y\"\"\",-3,true\n"
	                           "1,1.0,2147483648,2\n2,\"\",1.5,0\n";
	char err[512] = "", msg[512] = "";
	CsvOptions o = {kinds_sib, NULL};
	CsvTable *t = csv_parse_with(text, sizeof text - 1, "k.csv", &o, err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	assert_string_equal(csv_text(t, 0, 1), "x,\"y\"");
	assert_string_equal(csv_text(t, 1, 1), "1.0");
	assert_string_equal(csv_text(t, 2, 1), "");
	assert_false(csv_numeric(t, 1, msg, sizeof msg));
	assert_contains(msg, "column 2 (s) is a text column");
	assert_false(csv_numeric(t, 2, msg, sizeof msg));
	assert_string_equal(msg, "k.csv:3:7: column 3 (i): '2147483648' does not fit a 32-bit "
	                         "Integer, which sacc exchanges integers as");
	assert_false(csv_numeric(t, 3, msg, sizeof msg));
	assert_string_equal(msg, "k.csv:3:18: column 4 (b): '2' is not a Boolean (true, false, 1 "
	                         "or 0)");
	assert_close(csv_at(t, 0, 2), -3, 0);
	assert_close(csv_at(t, 0, 3), 1, 0);
	csv_free(t);
}

/* The header as `sacc simulate` writes it: `name [unit]` fields, quoted (RFC 4180) where a
 * name holds a comma or a quote.  The names come back unquoted and without their units;
 * csv_column finds a column by name alone or by `name [unit]` with its own unit. */
static void csv__quoted_header_with_units__names_and_units_apart(void **state)
{
	Ctx *c = *state;
	write_text(c, "q.csv", "time [s],\"a[1,2] [m]\",\"say \"\"hi\"\"\",b.x [m/s],\"\"\" [1]\"\n"
	                       "0,1,2,3,4\n");
	char err[512] = "";
	CsvTable *t = csv_read(path_in(c, "q.csv"), err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	assert_int_equal(t->ncols, 5);
	assert_string_equal(t->names[0], "time");
	assert_string_equal(t->units[0], "s");
	assert_string_equal(t->names[1], "a[1,2]");
	assert_string_equal(t->units[1], "m");
	assert_string_equal(t->names[2], "say \"hi\"");
	assert_null(t->units[2]);
	assert_string_equal(t->names[3], "b.x");
	assert_string_equal(t->units[3], "m/s");
	assert_string_equal(t->names[4], "\"");
	assert_string_equal(t->units[4], "1");
	assert_int_equal(csv_column(t, "a[1,2]"), 1);
	assert_int_equal(csv_column(t, "a[1,2] [m]"), 1);
	assert_int_equal(csv_column(t, "a[1,2] [s]"), -1);
	assert_int_equal(csv_column(t, "b.x [m/s]"), 3);
	assert_int_equal(csv_column(t, "say \"hi\" [m]"), -1);
	assert_close(csv_at(t, 0, 4), 4, 0);
	csv_free(t);

	/* and as they are written: quoted where needed, one line whatever the name holds */
	static const struct {
		const char *field, *written;
	} fields[] = {
		{"m1.x [m]", "m1.x [m]"},
		{"a[1,2] [m]", "\"a[1,2] [m]\""},
		{"say \"hi\"", "\"say \"\"hi\"\"\""},
		{"two\nlines", "\"two lines\""},
	};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		char buf[64] = "";
		FILE *f = fmemopen(buf, sizeof buf, "w");
		assert_non_null(f);
		assert_int_equal(csv_put_field(f, fields[i].field), 0);
		fclose(f);
		assert_string_equal(buf, fields[i].written);
	}
}

/* csv_parse is csv_read on text in memory: the same table or the same message, also for
 * what a file can hold and a C string cannot (a NUL, which ends its line's content) and
 * for a last line without its newline. */
static void csv__parse__same_as_read(void **state)
{
	Ctx *c = *state;
	static const char nul[] = "time,x\n0,1\n1,2\0,3\n";
	struct {
		const char *text;
		size_t len;
	} cases[] = {
		{"time,x,y\r\n0,1,10\n0.5,2,10\n\n1,4,-10\n1,5,-10\n2,7,0", 0},
		{"time,x\n0,1\n1,2,3\n", 0},
		{"time,x\n1,1\n0.5,2\n", 0},
		{"time,\"x\"\n", 0},
		{"time,x,x\n", 0},
		{"time\n\r\n", 0},
		{"", 0},
		{nul, sizeof nul - 1},
		{nul, 13},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		FILE *f = fopen(path_in(c, "c.csv"), "w");
		assert_non_null(f);
		assert_int_equal(fwrite(cases[i].text, 1, len, f), len);
		fclose(f);
		char rerr[512] = "", perr[512] = "";
		CsvTable *r = csv_read(path_in(c, "c.csv"), rerr, sizeof rerr);
		CsvTable *p = csv_parse(cases[i].text, len, path_in(c, "c.csv"), perr, sizeof perr);
		assert_string_equal(perr, rerr);
		assert_int_equal(!p, !r);
		if (r) {
			assert_int_equal(p->ncols, r->ncols);
			assert_int_equal((int)p->nrows, (int)r->nrows);
			for (int k = 0; k < r->ncols; k++)
				assert_string_equal(p->names[k], r->names[k]);
			assert_memory_equal(p->data, r->data, r->nrows * (size_t)r->ncols * sizeof *r->data);
		}
		csv_free(r);
		csv_free(p);
	}
	char err[512] = "";
	assert_null(csv_parse(NULL, 0, "none", err, sizeof err));
	assert_contains(err, "none: empty file");
}

/* The header's fault reported is the first in column order, an empty name or a copy of
 * an earlier one (which the reader finds by sorting the names). */
static void csv__header_faults__first_in_column_order(void **state)
{
	(void)state;
	struct {
		const char *text, *msg;
	} cases[] = {
		{"time,a,b,a,b\n", "h.csv:1: column 'a' appears twice (columns 2 and 4)"},
		{"time,b,a,a,b\n", "h.csv:1: column 'a' appears twice (columns 3 and 4)"},
		{"time,a,b,c,a,a\n", "h.csv:1: column 'a' appears twice (columns 2 and 5)"},
		{"time,x,time\n", "h.csv:1: column 'time' appears twice (columns 1 and 3)"},
		{"time,a,,a\n", "h.csv:1: column 3 has no name"},
		{"time,a,a,,\n", "h.csv:1: column 'a' appears twice (columns 2 and 3)"},
		{"time,,\n", "h.csv:1: column 2 has no name"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[512] = "";
		assert_null(csv_parse(cases[i].text, strlen(cases[i].text), "h.csv", err, sizeof err));
		assert_string_equal(err, cases[i].msg);
	}
}

/* A header of 100 000 columns, the last a copy of the second: the duplicate is named with
 * both its columns.  (Comparing each name with every earlier one took 13 s of CPU here;
 * sorted, milliseconds.  Not asserted: time is for benchmarks, and this test would only
 * crawl.) */
static void csv__wide_header__duplicate_named_with_both_columns(void **state)
{
	(void)state;
	enum { N = 100000 };
	char *text = malloc((size_t)N * 8 + 16);
	assert_non_null(text);
	size_t len = (size_t)sprintf(text, "time");
	for (int c = 1; c < N - 1; c++)
		len += (size_t)sprintf(text + len, ",c%d", c);
	len += (size_t)sprintf(text + len, ",c1\n");
	char err[512] = "";
	CsvTable *t = csv_parse(text, len, "w.csv", err, sizeof err);
	assert_null(t);
	assert_string_equal(err, "w.csv:1: column 'c1' appears twice (columns 2 and 100000)");
	free(text);
}

/* ---- sweep.c ---------------------------------------------------------------------------- */

static void sweep__compare__by_hand(void **state)
{
	(void)state;
	const char *names[] = {"time", "x"};
	CsvTable *ref = csv_new(2, names), *run = csv_new(2, names);
	assert_non_null(ref);
	assert_non_null(run);
	/* the reference x = 2 t on a coarse grid; the run is 2 t + (1, -3, 0) at 0.25, 0.5, 1 */
	double r[][2] = {{0, 0}, {1, 2}}, p[][2] = {{0.25, 1.5}, {0.5, -2}, {1, 2}};
	for (int k = 0; k < 2; k++)
		assert_int_equal(csv_append(ref, r[k]), 0);
	for (int k = 0; k < 3; k++)
		assert_int_equal(csv_append(run, p[k]), 0);
	SweepError e;
	char err[256];
	assert_int_equal(sweep_compare(ref, 1, run, 1, &e, err, sizeof err), 0);
	assert_close(e.max, 3, 1e-15);
	assert_close(e.t_max, 0.5, 0);
	assert_close(e.rms, sqrt(10.0 / 3.0), 1e-15);
	assert_int_equal((int)e.points, 3);
	/* a point outside the reference */
	double q[2] = {1.5, 3};
	assert_int_equal(csv_append(run, q), 0);
	assert_int_equal(sweep_compare(ref, 1, run, 1, &e, err, sizeof err), -1);
	assert_contains(err, "t = 1.5 is outside the reference's time range [0, 1]");
	csv_free(ref);
	csv_free(run);

	assert_close(sweep_order(4e-2, 0.1, 1e-2, 0.05), 2, 1e-14);
	assert_close(sweep_order(1e-2, 0.05, 4e-2, 0.1), 2, 1e-14);
	assert_close(sweep_order(3e-3, 0.3, 1e-3, 0.1), 1, 1e-14);
	assert_true(isnan(sweep_order(0, 0.1, 1e-3, 0.05)));
	assert_true(isnan(sweep_order(NAN, 0.1, 1e-3, 0.05)));
	assert_true(isnan(sweep_order(1e-2, 0.1, 1e-3, 0.1)));

	double *hs;
	assert_int_equal(sweep_parse_steps("0.025,0.1,0.05", &hs, err, sizeof err), 3);
	assert_close(hs[0], 0.1, 0);
	assert_close(hs[1], 0.05, 0);
	assert_close(hs[2], 0.025, 0);
	free(hs);
	assert_int_equal(sweep_parse_steps("0.1,,0.2", &hs, err, sizeof err), -1);
	assert_contains(err, "step 2 of '0.1,,0.2' is empty");
	assert_int_equal(sweep_parse_steps("0.1,-1", &hs, err, sizeof err), -1);
	assert_contains(err, "'-1' is not a positive number");
	assert_int_equal(sweep_parse_steps("0.1,1e-1", &hs, err, sizeof err), -1);
	assert_contains(err, "the step 0.1 is given twice");
}

/* ---- the CLI on the two masses ---------------------------------------------------------- */

/* The exact solution on a grid of 7919 intervals over [0, 10] (no point in common with the
 * runs' grids but 0 and 10); its linear interpolation is off by under 1e-5 m. */
static void write_exact(Ctx *c, const char *name, bool with_v)
{
	FILE *f = fopen(path_in(c, name), "w");
	assert_non_null(f);
	fputs(with_v ? "time,m2.x,m1.x,m1.v,m2.v\n" : "time,m1.x,m2.x\n", f);
	for (int k = 0; k <= 7919; k++) {
		double t = 10.0 * k / 7919, z[4];
		assert_int_equal(tm_exact(&TWO_MASS_BENCH, t, z), 0);
		if (with_v)
			fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", t, z[2], z[0], z[1], z[3]);
		else
			fprintf(f, "%.17g,%.17g,%.17g\n", t, z[0], z[2]);
	}
	fclose(f);
}

typedef struct Row {
	char var[32], status[16];
	double h, max, rms, order;
} Row;

/* The --sweep-csv table: rows in file order.  Returns the count. */
static int read_sweep_csv(Ctx *c, const char *name, Row *rows, int max)
{
	char *text = file_in(c, name);
	assert_true(strncmp(text, "variable,H,status,max_error,rms_error,order\n", 44) == 0);
	int n = 0;
	for (char *line = strchr(text, '\n') + 1; *line && n < max; n++) {
		char *end = strchr(line, '\n');
		assert_non_null(end);
		*end = '\0';
		Row *r = &rows[n];
		char *f[6];
		int k = 0;
		for (char *p = line; k < 6; k++) {
			f[k] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		assert_int_equal(k, 5);
		snprintf(r->var, sizeof r->var, "%s", f[0]);
		snprintf(r->status, sizeof r->status, "%s", f[2]);
		r->h = strtod(f[1], NULL);
		r->max = *f[3] ? strtod(f[3], NULL) : NAN;
		r->rms = *f[4] ? strtod(f[4], NULL) : NAN;
		r->order = *f[5] ? strtod(f[5], NULL) : NAN;
		line = end + 1;
	}
	free(text);
	return n;
}

static const Row *find_row(const Row *rows, int n, const char *var, double h)
{
	for (int k = 0; k < n; k++)
		if (strcmp(rows[k].var, var) == 0 && fabs(rows[k].h - h) < 1e-12)
			return &rows[k];
	fail_msg("no row %s at H = %g", var, h);
	return NULL;
}

/* The largest |x - exact| of a plain run's CSV (columns m1.x, m2.x) at its own points. */
static double exact_error(Ctx *c, const char *name, int col)
{
	char err[512];
	CsvTable *t = csv_read(path_in(c, name), err, sizeof err);
	assert_non_null(t);
	double worst = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		double z[4];
		assert_int_equal(tm_exact(&TWO_MASS_BENCH, csv_at(t, r, 0), z), 0);
		double d = fabs(csv_at(t, r, col) - z[col == 1 ? 0 : 2]);
		if (d > worst)
			worst = d;
	}
	csv_free(t);
	return worst;
}

static void sweep__two_masses__orders_against_exact(void **state)
{
	Ctx *c = *state;
	char args[2048];
	write_exact(c, "exact.csv", true);
	const char *approx[] = {"hold", "linear"};
	const double want[] = {1, 2};
	for (int a = 0; a < 2; a++) {
		snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 10 --master jacobi "
		         "--approx %s --record m1.x,m2.x --sweep 0.05,0.025,0.0125,0.00625 "
		         "--reference '%s' --sweep-csv '%s'", approx[a], path_in(c, "exact.csv"),
		         path_in(c, "sweep.csv"));
		assert_int_equal(simulate(c, args), 0);
		Row rows[16];
		assert_int_equal(read_sweep_csv(c, "sweep.csv", rows, 16), 8);
		for (int k = 0; k < 8; k++)
			assert_string_equal(rows[k].status, "ok");
		for (int v = 0; v < 2; v++) {
			const char *var = v ? "m2.x" : "m1.x";
			const Row *r = find_row(rows, 8, var, 0.00625);
			print_message("--approx %s %s: order %.3f between 0.0125 and 0.00625\n",
			              approx[a], var, r->order);
			assert_close(r->order, want[a], 0.1);
			/* the order column is log(e1/e2)/log(H1/H2) of the errors printed */
			const Row *q = find_row(rows, 8, var, 0.0125);
			assert_close(r->order, log(q->max / r->max) / log(2.0), 1e-12);
			assert_true(r->rms > 0 && r->rms <= r->max);
		}
		/* the table on stdout says the same */
		char *out = file_in(c, "out.txt");
		assert_contains(out, "sweep: 4 steps against ");
		assert_contains(out, "\nm1.x\n  H ");
		assert_contains(out, "\nm2.x\n  H ");
		free(out);
		/* the largest error, independently: a plain run against the exact solution at its
		 * own points (the sweep interpolates the reference: within 1e-5) */
		snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 10 --master jacobi "
		         "--approx %s --record m1.x,m2.x --step 0.0125 -o '%s'", approx[a],
		         path_in(c, "plain.csv"));
		assert_int_equal(simulate(c, args), 0);
		assert_close(find_row(rows, 8, "m1.x", 0.0125)->max, exact_error(c, "plain.csv", 1),
		             1e-5);
		assert_close(find_row(rows, 8, "m2.x", 0.0125)->max, exact_error(c, "plain.csv", 2),
		             1e-5);
	}
	assert_tmp_empty(c);
}

/* Without --reference, the finest run is the reference: far finer than the others, the
 * orders are the same. */
static void sweep__finest_run__is_the_reference(void **state)
{
	Ctx *c = *state;
	char args[2048];
	const char *approx[] = {"hold", "linear"};
	const double want[] = {1, 2};
	for (int a = 0; a < 2; a++) {
		snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 10 --master jacobi "
		         "--approx %s --record m1.x --sweep 0.0003125,0.0125,0.00625 --sweep-csv '%s'",
		         approx[a], path_in(c, "sweep.csv"));
		assert_int_equal(simulate(c, args), 0);
		Row rows[8];
		assert_int_equal(read_sweep_csv(c, "sweep.csv", rows, 8), 3);
		assert_close(rows[0].h, 0.0125, 0);
		assert_true(isnan(rows[0].order));
		assert_close(rows[1].h, 0.00625, 0);
		assert_close(rows[1].order, want[a], 0.1);
		assert_string_equal(rows[2].status, "reference");
		assert_close(rows[2].h, 0.0003125, 0);
		char *out = file_in(c, "out.txt");
		assert_contains(out, "sweep: 3 steps against the finest run (H = 0.0003125)");
		assert_contains(out, "  0.0003125    reference\n");
		free(out);
		char *err = file_in(c, "err.txt");
		assert_contains(err, "sacc simulate: H = 0.0125: done at t = 10: 800 steps accepted");
		assert_contains(err, "sacc simulate: H = 0.0003125: done at t = 10: 32000 steps");
		free(err);
	}
	assert_tmp_empty(c);
}

static void sweep__bad_reference__clear_error(void **state)
{
	Ctx *c = *state;
	char args[2048];
	write_exact(c, "xonly.csv", false);
	/* a recorded variable the reference lacks: exit 1, named, before any run */
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 10 --record m1.x,m2.v "
	         "--sweep 0.05,0.025 --reference '%s'", path_in(c, "xonly.csv"));
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "xonly.csv has no column 'm2.v' (recorded variable); its columns "
	                     "are: time m1.x m2.x\n");
	assert_null(strstr(err, "steps accepted"));
	free(err);
	/* a reference that ends before the runs do */
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 12 --record m1.x "
	         "--sweep 0.05 --reference '%s'", path_in(c, "xonly.csv"));
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "covers t = 0 to 10, the runs go from 0 to 12");
	free(err);
	/* a malformed reference: file and line */
	write_text(c, "bad.csv", "time,m1.x\n0,1\n0.1,oops\n");
	snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 10 --record m1.x "
	         "--sweep 0.05 --reference '%s'", path_in(c, "bad.csv"));
	assert_int_equal(simulate(c, args), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "bad.csv:3:5: column 2 (m1.x): 'oops' is not a finite number");
	free(err);
	assert_tmp_empty(c);
}

static void sweep__usage_errors__exit_2(void **state)
{
	Ctx *c = *state;
	char args[1024];
	struct {
		const char *opts, *msg;
	} cases[] = {
		{"--sweep 0.1,0.05 -o x.csv", "--sweep writes no result file (-o)"},
		{"--sweep 0.1,0.05 --step 0.1", "no --step with it"},
		{"--sweep 0.1,0.05 --step-control doubling", "no --step-control with it"},
		{"--sweep 0.1", "--sweep needs two steps or more, or a --reference"},
		{"--sweep 0.1,abc", "--sweep: 'abc' is not a positive number"},
		{"--sweep 0.1,0.1", "--sweep: the step 0.1 is given twice"},
		{"--reference r.csv", "--reference belongs to --sweep"},
		{"--sweep-csv s.csv", "--sweep-csv belongs to --sweep"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(args, sizeof args, "bench/two_mass/two_mass.sa --stop 1 %s", cases[i].opts);
		assert_usage_error(c, args, cases[i].opts, cases[i].msg);
	}
	assert_tmp_empty(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(csv__read__values_and_interpolation, setup, teardown),
		cmocka_unit_test_setup_teardown(csv__quoted_header_with_units__names_and_units_apart,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(csv__cells_not_numbers__kept_and_located, setup, teardown),
		cmocka_unit_test(csv__kinds__text_integer_boolean),
		cmocka_unit_test_setup_teardown(csv__malformed__file_and_line, setup, teardown),
		cmocka_unit_test_setup_teardown(csv__parse__same_as_read, setup, teardown),
		cmocka_unit_test(csv__header_faults__first_in_column_order),
		cmocka_unit_test(csv__wide_header__duplicate_named_with_both_columns),
		cmocka_unit_test(sweep__compare__by_hand),
		cmocka_unit_test_setup_teardown(sweep__two_masses__orders_against_exact, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(sweep__finest_run__is_the_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(sweep__bad_reference__clear_error, setup, teardown),
		cmocka_unit_test_setup_teardown(sweep__usage_errors__exit_2, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
