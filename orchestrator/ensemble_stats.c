/* ensemble_stats.c — statistics across an ensemble's runs (ensemble.h): per recorded
 * variable and time, the number of runs, the minimum, the mean, the maximum and chosen
 * percentiles, as a long CSV table (one row per variable and time: what spreadsheets and
 * data-frame libraries read as it is), and a fan chart of one variable drawn by gnuplot
 * through plot.c's machinery.
 *
 * The times: those given (--at), else every time of the first successful run.  A run is
 * read at a time by csv_interp (linear between its rows, exact where it has a row there),
 * so that runs with step control, whose grids differ, still line up; a run that does not
 * reach a time is left out of that time's statistics (the `runs` column says how many
 * were in). */
#include "ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "numfmt.h"
#include "plot.h"

double ens_percentile(const double *sorted, int n, double p)
{
	if (n <= 0)
		return NAN;
	double h = (n - 1) * p / 100.0;
	int lo = (int)floor(h);
	if (lo >= n - 1)
		return sorted[n - 1];
	return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* What the statistics are made from: per variable and time, the values of the runs. */
typedef struct Stats {
	int nvars, ntimes, nruns;
	char **names;      /* the first result's number columns after time (the strings
	                    * borrowed; a String's or Binary's column has no statistics) */
	char **units;
	double *times;
	double *values;    /* [var][time][run], NaN where a run is left out */
	CsvTable *first;
} Stats;

static double *slot(Stats *s, int v, int t, int r)
{
	return &s->values[((size_t)v * (size_t)s->ntimes + (size_t)t) * (size_t)s->nruns +
	                  (size_t)r];
}

/* Reads each successful run in turn into s.  Returns 0, or 1 after a report. */
static int gather(const char *dir, const EnsDesign *d, const EnsStatsOptions *o, Stats *s)
{
	char path[4096], err[1024];
	int *ok = calloc((size_t)d->nruns + 1, sizeof *ok);
	if (!ok)
		return cli_error("out of memory"), 1;
	for (int r = 0; r < d->nruns; r++) {
		EnsStatus st;
		if (ens_status_read(dir, d->ids[r], &st) == 0 && st.state == ENS_OK)
			ok[s->nruns++] = r;
	}
	int rc = 0;
	if (s->nruns == 0)
		rc = (cli_error("%s: no successful run: no statistics", dir), 1);
	for (int k = 0; !rc && k < s->nruns; k++) {
		ens_path(path, sizeof path, dir, "runs", d->ids[ok[k]], ".csv");
		CsvTable *t = csv_read(path, err, sizeof err);
		if (t && k > 0)
			for (int v = 0; v < s->nvars; v++) {
				int c = csv_column(t, s->names[v]);
				if (c >= 0 && !csv_numeric(t, c, err, sizeof err)) {
					csv_free(t);
					t = NULL;
					break;
				}
			}
		if (!t || t->nrows == 0) {
			rc = (cli_error("%s", t ? "a result without rows" : err), 1);
			csv_free(t);
			break;
		}
		if (k == 0) {
			s->first = t;
			s->names = calloc((size_t)t->ncols, sizeof *s->names);
			s->units = calloc((size_t)t->ncols, sizeof *s->units);
			if (!s->names || !s->units) {
				rc = (cli_error("out of memory"), 1);
				break;
			}
			for (int c = 1; c < t->ncols; c++)
				if (csv_numeric(t, c, err, sizeof err)) {
					s->names[s->nvars] = t->names[c];
					s->units[s->nvars++] = t->units[c];
				}
			s->ntimes = o->at ? o->nat : (int)t->nrows;
			s->times = malloc(((size_t)s->ntimes + 1) * sizeof *s->times);
			s->values = malloc(((size_t)s->nvars * (size_t)s->ntimes * (size_t)s->nruns + 1) *
			                   sizeof *s->values);
			if (!s->times || !s->values) {
				rc = (cli_error("out of memory"), 1);
				break;
			}
			for (int i = 0; i < s->ntimes; i++)
				s->times[i] = o->at ? o->at[i] : csv_at(t, (size_t)i, 0);
		}
		for (int v = 0; v < s->nvars; v++) {
			int c = csv_column(t, s->names[v]);
			if (c < 0) {
				rc = (cli_error("%s: no column '%s' (the runs recorded different variables)",
				                path, s->names[v]), 1);
				break;
			}
			for (int i = 0; i < s->ntimes; i++) {
				double x;
				*slot(s, v, i, k) = csv_interp(t, c, s->times[i], &x) == 0 ? x : NAN;
			}
		}
		if (k > 0)
			csv_free(t);
	}
	free(ok);
	return rc;
}

/* One variable at one time: count, min, mean, max, percentiles into row. */
static int summarize(Stats *s, int v, int t, const EnsStatsOptions *o, double *work,
                     double *row)
{
	int n = 0;
	double sum = 0;
	for (int r = 0; r < s->nruns; r++) {
		double x = *slot(s, v, t, r);
		if (!isnan(x)) {
			work[n++] = x;
			sum += x;
		}
	}
	qsort(work, (size_t)n, sizeof *work, compare_doubles);
	row[0] = n ? work[0] : NAN;
	row[1] = n ? sum / n : NAN;
	row[2] = n ? work[n - 1] : NAN;
	for (int k = 0; k < o->npercentiles; k++)
		row[3 + k] = ens_percentile(work, n, o->percentiles[k]);
	return n;
}

typedef struct Table {
	Stats *s;
	const EnsStatsOptions *o;
	double *work, *row; /* room for one variable's values at one time, and its figures */
} Table;

static void put_table(FILE *f, const void *env)
{
	const Table *tb = env;
	Stats *s = tb->s;
	const EnsStatsOptions *o = tb->o;
	fputs("variable,time,runs,min,mean,max", f);
	for (int k = 0; k < o->npercentiles; k++)
		fprintf(f, ",p%s", FMT_REAL(o->percentiles[k]));
	fputc('\n', f);
	for (int v = 0; v < s->nvars; v++)
		for (int t = 0; t < s->ntimes; t++) {
			int n = summarize(s, v, t, o, tb->work, tb->row);
			csv_put_field(f, s->names[v]); /* FMI names may hold commas: a[1,2] */
			fprintf(f, ",%s,%d", FMT_REAL(s->times[t]), n);
			for (int k = 0; k < o->npercentiles + 3; k++)
				fprintf(f, ",%s", n ? FMT_REAL(tb->row[k]) : "");
			fputc('\n', f);
		}
}

static int write_table(Stats *s, const EnsStatsOptions *o)
{
	Table tb = {s, o, malloc(((size_t)s->nruns + 1) * sizeof *tb.work),
	            malloc(((size_t)o->npercentiles + 3) * sizeof *tb.row)};
	int rc = !tb.work || !tb.row || ens_write_atomic(o->out, put_table, &tb) != 0;
	free(tb.work);
	free(tb.row);
	if (rc)
		cli_error("cannot write %s", o->out);
	return rc;
}

/* ---- the fan chart ------------------------------------------------------------------------- */

typedef struct Fan {
	Stats *s;
	const EnsStatsOptions *o;
	int var;
	int *order;   /* the percentiles' indexes, ascending */
} Fan;

static void fan_script(FILE *g, const void *env)
{
	const Fan *fan = env;
	Stats *s = fan->s;
	const EnsStatsOptions *o = fan->o;
	int np = o->npercentiles;
	bool png = strlen(o->plot) > 4 && strcmp(o->plot + strlen(o->plot) - 4, ".png") == 0;
	fprintf(g, "set terminal %s size 1000,600 noenhanced font 'sans,10'\nset output ",
	        png ? "pngcairo" : "svg dynamic");
	plot_put_quoted(g, o->plot);
	fputs("\nset title ", g);
	char title[512];
	snprintf(title, sizeof title, "%s across %d runs", s->names[fan->var], s->nruns);
	plot_put_quoted(g, title);
	const char *unit = s->units[fan->var];
	const char *tunit = fan->s->first->units[0];
	fprintf(g, "\nset xlabel 'time (%s)'\nset ylabel ", tunit && *tunit ? tunit : "s");
	char yl[300];
	snprintf(yl, sizeof yl, unit && *unit ? "%s (%s)" : "%s", s->names[fan->var], unit);
	plot_put_quoted(g, yl);
	fputs("\nset grid\nset key outside right top\n$fan << EOD\n", g);
	double *work = malloc(((size_t)s->nruns + 1) * sizeof *work);
	double *row = malloc(((size_t)np + 3) * sizeof *row);
	for (int t = 0; work && row && t < s->ntimes; t++) {
		if (summarize(s, fan->var, t, o, work, row) == 0)
			continue;
		fprintf(g, "%s", FMT_REAL(s->times[t]));
		for (int k = 0; k < np + 3; k++)
			fprintf(g, " %s", FMT_REAL(row[k]));
		fputc('\n', g);
	}
	free(work);
	free(row);
	fputs("EOD\nplot ", g);
	/* bands between the k-th lowest and k-th highest percentile, darker inwards */
	int bands = np / 2;
	for (int b = 0; b < bands; b++) {
		int lo = fan->order[b], hi = fan->order[np - 1 - b];
		fprintf(g, "$fan using 1:%d:%d with filledcurves fs transparent solid %.2f noborder "
		        "lc rgb '#1f77b4' title 'p%s to p%s', ", 5 + lo, 5 + hi,
		        0.15 + 0.5 * (b + 1) / (bands + 1), FMT_REAL(o->percentiles[lo]),
		        FMT_REAL(o->percentiles[hi]));
	}
	if (np % 2)
		fprintf(g, "$fan using 1:%d with lines lw 2 lc rgb '#1f77b4' title 'p%s', ",
		        5 + fan->order[np / 2], FMT_REAL(o->percentiles[fan->order[np / 2]]));
	fputs("$fan using 1:3 with lines lw 1 dt 2 lc rgb '#d62728' title 'mean', "
	      "$fan using 1:2 with lines lw 1 lc rgb '#7f7f7f' title 'min', "
	      "$fan using 1:4 with lines lw 1 lc rgb '#7f7f7f' title 'max'\nset output\n", g);
}

static int fan_chart(Stats *s, const EnsStatsOptions *o)
{
	size_t len = strlen(o->plot);
	if (len < 5 || (strcmp(o->plot + len - 4, ".svg") && strcmp(o->plot + len - 4, ".png"))) {
		cli_error("--plot %s: expected a .svg or .png file", o->plot);
		return 2;
	}
	int var = 0;
	if (o->plot_var) {
		var = -1;
		for (int v = 0; v < s->nvars; v++)
			if (strcmp(s->names[v], o->plot_var) == 0)
				var = v;
		if (var < 0) {
			cli_error("--var: the results have no variable '%s'", o->plot_var);
			return 2;
		}
	}
	char *exe = plot_find_gnuplot();
	if (!exe) {
		cli_error("gnuplot not found in PATH: install the Debian package gnuplot-nox");
		return 1;
	}
	int *order = malloc(((size_t)o->npercentiles + 1) * sizeof *order);
	int rc = 1;
	if (order) {
		for (int k = 0; k < o->npercentiles; k++)
			order[k] = k;
		for (int i = 1; i < o->npercentiles; i++) /* few: insertion sort */
			for (int j = i; j > 0 && o->percentiles[order[j]] < o->percentiles[order[j - 1]];
			     j--) {
				int t = order[j];
				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		Fan fan = {s, o, var, order};
		rc = plot_gnuplot(cli_prog(), exe, o->plot, fan_script, &fan);
	}
	free(order);
	free(exe);
	return rc;
}

int ens_stats(const char *dir, const EnsDesign *d, const EnsStatsOptions *o)
{
	Stats s;
	memset(&s, 0, sizeof s);
	int rc = gather(dir, d, o, &s);
	if (!rc)
		rc = write_table(&s, o);
	if (!rc)
		fprintf(stderr, "%s: statistics of %d variable%s over %d runs: %s\n", cli_prog(),
		        s.nvars, s.nvars == 1 ? "" : "s", s.nruns, o->out);
	if (!rc && o->plot)
		rc = fan_chart(&s, o);
	csv_free(s.first);
	free(s.names);
	free(s.units);
	free(s.times);
	free(s.values);
	return rc;
}
