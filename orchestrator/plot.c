/* plot.c — `sacc plot` (plot.h): reads one or more results with csv.c, checks everything
 * it can before gnuplot starts (the extension, the variables in every file, their units,
 * the data), then writes gnuplot a script holding the data as datablocks, so that what is
 * drawn is exactly what was checked, and no file name reaches gnuplot but the output's.
 *
 * The picture: a column of panels sharing one time axis (fixed margins, so the axes line
 * up, and tic labels on the bottom panel only), one panel per unit, or per --vars group;
 * each panel's y label names its variables and their units, taken from the files'
 * `name [unit]` headers.  Each variable of each file has a colour of its own (ten, then
 * they repeat), the first file's lines widest so that the others stay visible on them,
 * columns of whole numbers (discrete variables) as steps, and the key names variable and
 * file.  --diff adds panels (one per
 * unit) of each further file minus the first, interpolated on the first's times; --mark
 * draws a vertical line at an instant in every panel, labelled in the top one.  The
 * terminal is pngcairo or svg after the output's extension.  gnuplot's own messages go to
 * standard error as they come; a failure removes the half-written output. */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv.h"
#include "numfmt.h"
#include "util.h"

static void plot_usage(FILE *out)
{
	fputs("usage: sacc plot RESULT.csv... -o FILE.png|FILE.svg [--vars VAR,...]...\n"
	      "                 [--labels L,...] [--diff VAR,...|all] [--mark T[:LABEL]]...\n"
	      "                 [--xrange T0:T1] [--title T]\n"
	      "\n"
	      "  RESULT.csv  results of sacc simulate (a header `time,...`, then a row per\n"
	      "              point); a header field `name [unit]` gives the column's unit;\n"
	      "              several files are drawn over each other, each variable found by\n"
	      "              name in each\n"
	      "  -o FILE     the image; its extension chooses PNG or SVG\n"
	      "  --vars      the columns to draw in one panel; repeated, a panel each (default:\n"
	      "              every column of numbers of the first file, a panel per unit;\n"
	      "              String and Binary columns are left out)\n"
	      "  --labels    the files' names in the key (default: their file names)\n"
	      "  --diff      panels of each further file minus the first, interpolated on the\n"
	      "              first one's times, for these variables (all: every one drawn)\n"
	      "  --mark      a vertical line at time T in every panel, LABEL written by it\n"
	      "  --xrange    the span of time drawn (default: the files' whole span)\n"
	      "  --title     the picture's title (default: the files' names)\n"
	      "\n"
	      "  gnuplot draws it (Debian package gnuplot-nox), found in PATH.\n",
	      out);
}

static int plot_usage_error(const char *fmt, const char *a)
{
	fputs("sacc plot: ", stderr);
	fprintf(stderr, fmt, a);
	fputs("\n(sacc plot --help for the options)\n", stderr);
	return 2;
}

/* gnuplot's single-quoted string: a quote doubled; control characters (which would end
 * the line and the command) as spaces. */
void plot_put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

char *plot_find_gnuplot(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *cand = malloc(len + 16);
		if (!cand)
			return NULL;
		if (len == 0)
			strcpy(cand, "./gnuplot");
		else
			sprintf(cand, "%.*s/gnuplot", (int)len, path);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += len + (path[len] == ':');
	}
	return NULL;
}

typedef struct Mark {
	double t;
	const char *label; /* "" when none */
} Mark;

typedef struct PlotArgs {
	const char **files, **groups; /* the result files; each --vars, in order */
	int nfiles, ngroups;
	const char *out, *title, *labels, *diff;
	Mark *marks;
	int nmarks;
	bool has_xrange;
	double from, to;
} PlotArgs;

/* One variable drawn: its name in every file, its unit, its value panel and, when --diff
 * names it, its difference panel (else -1). */
typedef struct Var {
	char *name;
	const char *unit; /* NULL when no file gives one */
	int panel, diff_panel;
} Var;

typedef struct Plot {
	PlotArgs a;
	CsvTable **t;  /* nfiles */
	char **label;  /* nfiles, the key's names of the files */
	int *col;      /* col[f * nvars + v]: the column of variable v in file f */
	CsvTable **diff; /* nfiles; diff[f], f > 0: difference(f) when there are differences */
	Var *vars;
	int nvars, npanels, nvalue_panels;
	bool png;
} Plot;

static int parse_mark(const char *s, Mark *m)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	char num[64];
	if (n == 0 || n >= sizeof num)
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	m->label = colon ? colon + 1 : "";
	return csv_number(num, &m->t) ? 0 : -1;
}

static int parse_xrange(const char *s, PlotArgs *a)
{
	char num[64];
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : 0;
	if (!colon || n == 0 || n >= sizeof num)
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	a->has_xrange = true;
	return csv_number(num, &a->from) && csv_number(colon + 1, &a->to) && a->from < a->to
	       ? 0 : -1;
}

/* The command line into a (whose arrays, sized for argc, the caller frees).  Returns -1
 * for --help (printed), 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, PlotArgs *a)
{
	a->files = calloc((size_t)argc + 1, sizeof *a->files);
	a->groups = calloc((size_t)argc + 1, sizeof *a->groups);
	a->marks = calloc((size_t)argc + 1, sizeof *a->marks);
	if (!a->files || !a->groups || !a->marks) {
		fputs("sacc plot: out of memory\n", stderr);
		return 1;
	}
	static const char *const valued[] = {"-o", "--vars", "--title", "--labels", "--diff",
	                                     "--mark", "--xrange"};
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
			plot_usage(stdout);
			return -1;
		}
		size_t k = 0;
		while (k < sizeof valued / sizeof valued[0] && strcmp(s, valued[k]) != 0)
			k++;
		if (k == sizeof valued / sizeof valued[0]) {
			if (s[0] == '-' && s[1])
				return plot_usage_error("unknown option '%s'", s);
			a->files[a->nfiles++] = s;
			continue;
		}
		if (i + 1 >= argc)
			return plot_usage_error("%s needs a value", s);
		const char *v = argv[++i];
		switch (k) {
		case 0: a->out = v; break;
		case 1: a->groups[a->ngroups++] = v; break;
		case 2: a->title = v; break;
		case 3: a->labels = v; break;
		case 4: a->diff = v; break;
		case 5:
			if (parse_mark(v, &a->marks[a->nmarks++]))
				return plot_usage_error("--mark %s: a time and an optional label, T[:LABEL]",
				                        v);
			break;
		default:
			if (parse_xrange(v, a))
				return plot_usage_error("--xrange %s: two times T0:T1, T0 before T1", v);
		}
	}
	if (a->nfiles == 0)
		return plot_usage_error("no RESULT.csv%s", "");
	if (!a->out)
		return plot_usage_error("no -o FILE.png or FILE.svg%s", "");
	if (!str_ends_with(a->out, ".png") && !str_ends_with(a->out, ".svg"))
		return plot_usage_error("-o %s: the extension must be .png or .svg", a->out);
	if (a->diff && a->nfiles < 2)
		return plot_usage_error("--diff %s: a difference needs two result files or more",
		                        a->diff);
	return 0;
}

/* Splits a comma list into malloc'd strings; *n of them. */
static char **split_list(const char *list, int *n)
{
	int cap = 1;
	for (const char *p = list; *p; p++)
		cap += *p == ',';
	char **v = calloc((size_t)cap + 1, sizeof *v);
	*n = 0;
	for (const char *p = list; v;) {
		size_t len = csv_list_item(p);
		if (!(v[(*n)++] = strndup(p, len)))
			return v; /* the caller's check finds the NULL */
		if (!p[len])
			break;
		p += len + 1;
	}
	return v;
}

static void free_list(char **v, int n)
{
	for (int k = 0; v && k < n; k++)
		free(v[k]);
	free(v);
}

static bool list_ok(char **v, int n)
{
	if (!v)
		return false;
	for (int k = 0; k < n; k++)
		if (!v[k])
			return false;
	return true;
}

static int add_var(Plot *p, const char *name, int panel)
{
	Var *v = &p->vars[p->nvars];
	if (!(v->name = strdup(name)))
		return -1;
	v->panel = panel;
	v->diff_panel = -1;
	p->nvars++;
	return 0;
}

/* The variables drawn: each --vars group a panel, or every column of the first file
 * (panels by unit later).  Returns 0, or the exit status after saying why. */
static int choose_vars(Plot *p)
{
	int cap = p->t[0]->ncols;
	for (int g = 0; g < p->a.ngroups; g++)
		for (const char *s = p->a.groups[g]; *s; s++)
			cap += *s == ',' ? 1 : 0;
	cap += p->a.ngroups;
	p->vars = calloc((size_t)cap + 1, sizeof *p->vars);
	if (!p->vars)
		return fputs("sacc plot: out of memory\n", stderr), 1;
	if (p->a.ngroups == 0) {
		/* every column of numbers: a String's or Binary's is drawn only when asked for
		 * (--vars), which match_files refuses with the cell that is no number */
		char msg[16];
		for (int c = 1; c < p->t[0]->ncols; c++)
			if (csv_numeric(p->t[0], c, msg, sizeof msg) && add_var(p, p->t[0]->names[c], -1))
				return fputs("sacc plot: out of memory\n", stderr), 1;
		/* nothing to draw: say why of the first column */
		char why[1024];
		if (p->nvars == 0 && p->t[0]->ncols > 1 && !csv_numeric(p->t[0], 1, why, sizeof why))
			return fprintf(stderr, "sacc plot: %s has no column of numbers to draw (%s)\n",
			               p->a.files[0], why), 1;
		return 0;
	}
	for (int g = 0; g < p->a.ngroups; g++) {
		int n;
		char **names = split_list(p->a.groups[g], &n);
		int rc = list_ok(names, n) ? 0 : 1;
		for (int k = 0; !rc && k < n; k++)
			rc = add_var(p, names[k], g) ? 1 : 0;
		free_list(names, n);
		if (rc)
			return fputs("sacc plot: out of memory\n", stderr), 1;
	}
	p->npanels = p->nvalue_panels = p->a.ngroups;
	return 0;
}

static void list_columns(const CsvTable *t)
{
	for (int c = 1; c < t->ncols; c++)
		fprintf(stderr, " %s", t->names[c]);
	fputc('\n', stderr);
}

/* Finds each variable in each file and its unit.  Returns 0, or the exit status after
 * saying why: a variable a file lacks, or that two files give different units. */
static int match_files(Plot *p)
{
	int nf = p->a.nfiles;
	p->col = calloc((size_t)(nf * p->nvars) + 1, sizeof *p->col);
	if (!p->col)
		return fputs("sacc plot: out of memory\n", stderr), 1;
	for (int v = 0; v < p->nvars; v++) {
		Var *var = &p->vars[v];
		int unit_from = -1;
		for (int f = 0; f < nf; f++) {
			const CsvTable *t = p->t[f];
			int c = csv_column(t, var->name);
			if (c <= 0 && p->a.ngroups) {
				fprintf(stderr, "sacc plot: --vars: %s has no column '%s'; its variables "
				        "are:", p->a.files[f], var->name);
				list_columns(t);
				return 2;
			}
			if (c <= 0) {
				fprintf(stderr, "sacc plot: %s has no column '%s', which %s has: the files "
				        "do not match (--vars chooses the variables they share)\n",
				        p->a.files[f], var->name, p->a.files[0]);
				return 1;
			}
			if (strcmp(var->name, t->names[c]) != 0) {
				/* found as `name [unit]`: the key and the labels show the name alone */
				char *bare = strdup(t->names[c]);
				if (!bare)
					return fputs("sacc plot: out of memory\n", stderr), 1;
				free(var->name);
				var->name = bare;
			}
			char msg[1024];
			if (!csv_numeric(t, c, msg, sizeof msg)) {
				fprintf(stderr, "sacc plot: %s%s (only numbers are drawn)\n",
				        p->a.ngroups ? "--vars: " : "", msg);
				return p->a.ngroups ? 2 : 1;
			}
			p->col[f * p->nvars + v] = c;
			const char *u = t->units[c];
			if (!u || !*u)
				continue;
			if (unit_from >= 0 && strcmp(u, var->unit) != 0) {
				fprintf(stderr, "sacc plot: %s is in %s in %s but in %s in %s\n", var->name,
				        var->unit, p->a.files[unit_from], u, p->a.files[f]);
				return 1;
			}
			if (unit_from < 0) {
				unit_from = f;
				var->unit = u;
			}
		}
	}
	return 0;
}

/* The panel of variable v among those before it: the first one's with the same unit, or
 * a new one (a variable without a unit always gets its own). */
static int panel_by_unit(Plot *p, int v, bool diff)
{
	const char *u = p->vars[v].unit;
	for (int w = 0; u && w < v; w++) {
		int pw = diff ? p->vars[w].diff_panel : p->vars[w].panel;
		if (pw >= 0 && p->vars[w].unit && strcmp(p->vars[w].unit, u) == 0)
			return pw;
	}
	return p->npanels++;
}

/* The value panels (by unit unless --vars grouped them) and the difference panels after
 * them.  Returns 0, or the exit status after saying why. */
static int make_panels(Plot *p)
{
	if (p->a.ngroups == 0) {
		for (int v = 0; v < p->nvars; v++)
			p->vars[v].panel = panel_by_unit(p, v, false);
		p->nvalue_panels = p->npanels;
	}
	if (!p->a.diff)
		return 0;
	if (strcmp(p->a.diff, "all") == 0) {
		for (int v = 0; v < p->nvars; v++)
			p->vars[v].diff_panel = panel_by_unit(p, v, true);
		return 0;
	}
	int n;
	char **names = split_list(p->a.diff, &n);
	if (!list_ok(names, n)) {
		free_list(names, n);
		return fputs("sacc plot: out of memory\n", stderr), 1;
	}
	int rc = 0;
	for (int k = 0; k < n && !rc; k++) {
		int v = 0;
		while (v < p->nvars && strcmp(p->vars[v].name, names[k]) != 0)
			v++;
		if (v == p->nvars) {
			fprintf(stderr, "sacc plot: --diff: '%s' is not a variable drawn; they are:",
			        names[k]);
			for (int w = 0; w < p->nvars; w++)
				fprintf(stderr, " %s", p->vars[w].name);
			fputc('\n', stderr);
			rc = 2;
		} else if (p->vars[v].diff_panel < 0) {
			p->vars[v].diff_panel = panel_by_unit(p, v, true);
		}
	}
	free_list(names, n);
	return rc;
}

/* The key's names of the files: --labels, or the file names. */
static int make_labels(Plot *p)
{
	p->label = calloc((size_t)p->a.nfiles + 1, sizeof *p->label);
	if (!p->label)
		return fputs("sacc plot: out of memory\n", stderr), 1;
	int n = 0;
	char **given = p->a.labels ? split_list(p->a.labels, &n) : NULL;
	if (p->a.labels && !list_ok(given, n)) {
		free_list(given, n);
		return fputs("sacc plot: out of memory\n", stderr), 1;
	}
	if (p->a.labels && n != p->a.nfiles) {
		fprintf(stderr, "sacc plot: --labels %s: %d label%s for %d file%s\n", p->a.labels, n,
		        n == 1 ? "" : "s", p->a.nfiles, p->a.nfiles == 1 ? "" : "s");
		free_list(given, n);
		return 2;
	}
	for (int f = 0; f < p->a.nfiles; f++) {
		p->label[f] = given ? given[f] : strdup(path_base(p->a.files[f]));
		if (!p->label[f])
			return fputs("sacc plot: out of memory\n", stderr), 1;
	}
	free(given); /* its strings now belong to p->label */
	return 0;
}

/* The span of time drawn: --xrange, or from the earliest file's start to the latest's end. */
static void time_span(const Plot *p, double *from, double *to)
{
	if (p->a.has_xrange) {
		*from = p->a.from;
		*to = p->a.to;
		return;
	}
	*from = INFINITY;
	*to = -INFINITY;
	for (int f = 0; f < p->a.nfiles; f++) {
		*from = fmin(*from, csv_at(p->t[f], 0, 0));
		*to = fmax(*to, csv_at(p->t[f], p->t[f]->nrows - 1, 0));
	}
	if (!(*to > *from)) /* one instant: a span around it */
		*from -= 0.5, *to += 0.5;
}

/* The rows of t that draw [from, to]: those inside and one on either side. */
static void row_span(const CsvTable *t, double from, double to, size_t *r0, size_t *r1)
{
	size_t a = 0, b = t->nrows - 1;
	while (a + 1 < t->nrows && csv_at(t, a + 1, 0) <= from)
		a++;
	while (b > a && csv_at(t, b - 1, 0) >= to)
		b--;
	*r0 = a;
	*r1 = b;
}

/* Whether file f covers some of the first file's times in the span (its difference then
 * has a point to draw). */
static bool overlaps_first(const Plot *p, int f, double from, double to)
{
	double a = fmax(csv_at(p->t[0], 0, 0), csv_at(p->t[f], 0, 0));
	double b = fmin(csv_at(p->t[0], p->t[0]->nrows - 1, 0),
	                csv_at(p->t[f], p->t[f]->nrows - 1, 0));
	return a <= b && a <= to && b >= from;
}

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])

/* Rows r0..r1 of t worth sending: a line through all of them looks the same as through
 * those that are, in each of some 2,000 slices of [from, to] (more than the panel has
 * pixels across), the first and the last and each column's lowest and highest.  The
 * reference's 100,000 rows would cost gnuplot seconds for nothing.  NULL when out of
 * memory; else malloc'd, indexed from r0. */
static bool *rows_worth_drawing(const CsvTable *t, size_t r0, size_t r1, double from,
                                double to)
{
	bool *keep = calloc(r1 - r0 + 1, sizeof *keep);
	if (!keep)
		return NULL;
	const double slices = 2000;
	size_t first = r0;
	while (first <= r1) {
		long slice = (long)floor((csv_at(t, first, 0) - from) / (to - from) * slices);
		size_t last = first;
		while (last + 1 <= r1 &&
		       (long)floor((csv_at(t, last + 1, 0) - from) / (to - from) * slices) == slice)
			last++;
		keep[first - r0] = keep[last - r0] = true;
		for (int c = 1; c < t->ncols; c++) {
			size_t lo = first, hi = first;
			for (size_t r = first + 1; r <= last; r++) {
				if (csv_at(t, r, c) < csv_at(t, lo, c))
					lo = r;
				if (csv_at(t, r, c) > csv_at(t, hi, c))
					hi = r;
			}
			keep[lo - r0] = keep[hi - r0] = true;
		}
		first = last + 1;
	}
	return keep;
}

static void put_value(FILE *g, double x)
{
	if (isnan(x))
		fputs(" NaN", g); /* gnuplot leaves the point out */
	else
		fprintf(g, " %s", FMT_REAL(x));
}

/* Datablock $<name>: t's rows that draw [from, to], time then columns cols[0..n). */
static int write_block(FILE *g, const char *name, const CsvTable *t, const int *cols, int n,
                       double from, double to)
{
	size_t r0, r1;
	row_span(t, from, to, &r0, &r1);
	bool *keep = rows_worth_drawing(t, r0, r1, from, to);
	if (!keep)
		return -1;
	fprintf(g, "$%s << EOD\n", name);
	for (size_t r = r0; r <= r1; r++) {
		if (!keep[r - r0])
			continue;
		fprintf(g, "%s", FMT_REAL(csv_at(t, r, 0)));
		for (int k = 0; k < n; k++)
			put_value(g, csv_at(t, r, cols[k]));
		fputc('\n', g);
	}
	fputs("EOD\n", g);
	free(keep);
	return 0;
}

/* Further file f minus the first, on the first file's times, for each variable --diff
 * names (NaN where file f has no value): a table of time and those columns. */
static CsvTable *difference(const Plot *p, int f)
{
	const char **names = calloc((size_t)p->nvars + 2, sizeof *names);
	double *row = calloc((size_t)p->nvars + 2, sizeof *row);
	CsvTable *d = NULL;
	int n = 1;
	if (!names || !row)
		goto done;
	names[0] = "time";
	for (int v = 0; v < p->nvars; v++)
		if (p->vars[v].diff_panel >= 0)
			names[n++] = p->vars[v].name;
	if (!(d = csv_new(n, names)))
		goto done;
	const CsvTable *t0 = p->t[0];
	for (size_t r = 0; r < t0->nrows; r++) {
		row[0] = csv_at(t0, r, 0);
		for (int v = 0, k = 1; v < p->nvars; v++) {
			if (p->vars[v].diff_panel < 0)
				continue;
			double other;
			row[k++] = csv_interp(p->t[f], p->col[f * p->nvars + v], row[0], &other) == 0
			           ? other - csv_at(t0, r, p->col[v]) : NAN;
		}
		if (csv_append(d, row)) {
			csv_free(d);
			d = NULL;
			goto done;
		}
	}
done:
	free(names);
	free(row);
	return d;
}

/* $f<k>: file k's time and variables in order; $d<k> for k > 0 when there are
 * differences: the first file's time and file k minus the first for each variable --diff
 * names.  Returns 0, or -1 when out of memory. */
static int write_data(FILE *g, const Plot *p, double from, double to)
{
	int *seq = calloc((size_t)p->nvars + 1, sizeof *seq);
	int rc = seq ? 0 : -1;
	char name[32];
	for (int k = 0; seq && k <= p->nvars; k++)
		seq[k] = k + 1;
	for (int f = 0; !rc && f < p->a.nfiles; f++) {
		snprintf(name, sizeof name, "f%d", f);
		rc = write_block(g, name, p->t[f], p->col + f * p->nvars, p->nvars, from, to);
	}
	for (int f = 1; !rc && p->a.diff && f < p->a.nfiles; f++) {
		snprintf(name, sizeof name, "d%d", f);
		rc = write_block(g, name, p->diff[f], seq, p->diff[f]->ncols - 1, from, to);
	}
	free(seq);
	return rc;
}

/* Panel k's y label: its variables' names when they are short enough, and their units. */
static void write_ylabel(FILE *g, const Plot *p, int k, bool diff)
{
	char text[512], names[256] = "", units[256] = "";
	bool names_fit = true;
	for (int v = 0; v < p->nvars; v++) {
		const Var *var = &p->vars[v];
		if ((diff ? var->diff_panel : var->panel) != k)
			continue;
		if (strlen(names) + strlen(var->name) + 3 < 48) {
			if (*names)
				strcat(names, ", ");
			strcat(names, var->name);
		} else {
			names_fit = false;
		}
		bool seen = !var->unit;
		for (int w = 0; w < v && !seen; w++)
			seen = (diff ? p->vars[w].diff_panel : p->vars[w].panel) == k &&
			       p->vars[w].unit && strcmp(p->vars[w].unit, var->unit) == 0;
		if (!seen && strlen(units) + strlen(var->unit) + 3 < sizeof units) {
			if (*units)
				strcat(units, ", ");
			strcat(units, var->unit);
		}
	}
	if (!names_fit)
		*names = '\0';
	/* "difference of a, b (m)", "a, b (m)", "difference (m)", "m" */
	snprintf(text, sizeof text, "%s%s%s", diff ? "difference" : "", diff && *names ? " of " : "",
	         names);
	size_t len = strlen(text);
	if (*units)
		snprintf(text + len, sizeof text - len, len ? " (%s)" : "%s", units);
	fputs("set ylabel ", g);
	plot_put_quoted(g, text);
	fputc('\n', g);
}

/* Panel k's y range: gnuplot's own, unless every value in it is the same (a constant,
 * a difference of nothing), where gnuplot would warn and widen it: then one around it. */
static void write_yrange(FILE *g, const Plot *p, int k, bool diff, double from, double to)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int v = 0, dcol = 1; v < p->nvars; v++) {
		const Var *var = &p->vars[v];
		if ((diff ? var->diff_panel : var->panel) != k) {
			dcol += var->diff_panel >= 0;
			continue;
		}
		for (int f = diff ? 1 : 0; f < p->a.nfiles; f++) {
			const CsvTable *t = diff ? p->diff[f] : p->t[f];
			int c = diff ? dcol : p->col[f * p->nvars + v];
			size_t r0, r1;
			row_span(t, from, to, &r0, &r1);
			for (size_t r = r0; r <= r1; r++) {
				double x = csv_at(t, r, c);
				lo = x < lo ? x : lo; /* NaN passes by both */
				hi = x > hi ? x : hi;
			}
		}
		dcol += diff;
	}
	if (lo < hi || lo > hi) {
		fputs("set yrange [*:*]\n", g);
		return;
	}
	double d = isfinite(lo) && lo != 0 ? 0.1 * fabs(lo) : 1.0;
	lo = isfinite(lo) ? lo : 0.0;
	fprintf(g, "set yrange [%s:%s]\n", FMT_REAL(lo - d), FMT_REAL(lo + d));
}

/* Whether column c of t holds whole numbers only: a Boolean, an Integer or an
 * Enumeration as the result writes them, which holds its value from row to row and is
 * drawn as steps, not as a slope from one row to the next. */
static bool whole_numbers(const CsvTable *t, int c)
{
	for (size_t r = 0; r < t->nrows; r++)
		if (csv_at(t, r, c) != floor(csv_at(t, r, c)))
			return false;
	return true;
}

/* Panel k's plot command: each variable in it from each file (value panels), or each
 * further file's difference from the first (difference panels). */
static void write_plot(FILE *g, const Plot *p, int k, bool diff)
{
	int nf = p->a.nfiles, dcol = 2;
	bool first = true;
	fputs("plot ", g);
	for (int v = 0; v < p->nvars; v++) {
		const Var *var = &p->vars[v];
		bool here = (diff ? var->diff_panel : var->panel) == k;
		if (!here) {
			dcol += var->diff_panel >= 0;
			continue;
		}
		for (int f = diff ? 1 : 0; f < nf; f++) {
			char title[512];
			if (diff)
				snprintf(title, sizeof title, "%s: %s - %s", var->name, p->label[f],
				         p->label[0]);
			else if (nf > 1)
				snprintf(title, sizeof title, "%s (%s)", var->name, p->label[f]);
			else
				snprintf(title, sizeof title, "%s", var->name);
			bool steps = !diff && whole_numbers(p->t[f], p->col[f * p->nvars + v]);
			fprintf(g, "%s$%c%d using 1:%d with %s linewidth %s linecolor rgb '%s' title ",
			        first ? "" : ", \\\n     ", diff ? 'd' : 'f', f, diff ? dcol : 2 + v,
			        steps ? "steps" : "lines", f == 0 && nf > 1 ? "4" : "1.5",
			        palette[(v * nf + f) % NPALETTE]);
			plot_put_quoted(g, title);
			first = false;
		}
		dcol += diff;
	}
	fputc('\n', g);
}

/* The marks: a dashed line in every panel (arrows stay set across the multiplot), the
 * labels (set before the top panel, unset after it) staggered so that near instants stay
 * legible. */
static void write_marks(FILE *g, const Plot *p, double from, double to, bool labels)
{
	for (int m = 0, shown = 0; m < p->a.nmarks; m++) {
		const Mark *mk = &p->a.marks[m];
		if (mk->t < from || mk->t > to)
			continue;
		if (!labels) {
			fprintf(g, "set arrow from first %s, graph 0 to first %s, graph 1 nohead "
			        "dashtype 2 linewidth 1.2 linecolor rgb '#333333' front\n",
			        FMT_REAL(mk->t), FMT_REAL(mk->t));
		} else if (*mk->label) {
			fputs("set label ", g);
			plot_put_quoted(g, mk->label);
			fprintf(g, " at first %s, graph %.2f left offset character 0.5, 0 "
			        "textcolor rgb '#333333' front\n", FMT_REAL(mk->t),
			        0.92 - 0.1 * (shown++ % 4));
		}
	}
}

/* The longest key entry in characters: write_plot's titles. */
static size_t longest_key(const Plot *p)
{
	size_t most = 0, l0 = strlen(p->label[0]);
	for (int v = 0; v < p->nvars; v++)
		for (int f = 0; f < p->a.nfiles; f++) {
			size_t name = strlen(p->vars[v].name), lf = strlen(p->label[f]);
			size_t len = p->a.nfiles > 1 ? name + lf + 3 : name;
			if (f > 0 && p->vars[v].diff_panel >= 0)
				len = len > name + lf + l0 + 5 ? len : name + lf + l0 + 5;
			most = len > most ? len : most;
		}
	return most;
}

static void write_script(FILE *g, const Plot *p, const char *title)
{
	int n = p->npanels;
	const int width = 1200, top = 60, bottom = 50, panel = 190, gap = 12;
	/* the key right of the panels, as wide as its longest entry (some 7 pixels a
	 * character at this font, and the line's sample), within reason */
	double right = 1.0 - (double)(7 * longest_key(p) + 70) / width;
	right = right < 0.55 ? 0.55 : right > 0.85 ? 0.85 : right;
	int height = top + bottom + n * panel + (n - 1) * gap;
	fprintf(g, "set terminal %s size %d,%d noenhanced font 'sans,10'\n",
	        p->png ? "pngcairo" : "svg dynamic", width, height);
	fputs("set output ", g);
	plot_put_quoted(g, p->a.out);
	fputc('\n', g);
	double from, to;
	time_span(p, &from, &to);
	if (write_data(g, p, from, to)) {
		fputs("sacc plot: out of memory\n", stderr);
		return;
	}
	fputs("set multiplot title ", g);
	plot_put_quoted(g, title);
	fprintf(g, "\nset lmargin at screen 0.09\nset rmargin at screen %.4f\n"
	        "set xrange [%s:%s]\nset grid\nset offsets 0, 0, graph 0.04, graph 0.04\n"
	        "set key at screen %.4f, graph 1 left top Left reverse\n", right, FMT_REAL(from),
	        FMT_REAL(to),
	        right + 0.01);
	write_marks(g, p, from, to, false);
	const char *tu = p->t[0]->units[0];
	for (int k = 0; k < n; k++) {
		double y1 = 1.0 - (double)(top + k * (panel + gap)) / height;
		fprintf(g, "set tmargin at screen %.6f\nset bmargin at screen %.6f\n", y1,
		        y1 - (double)panel / height);
		if (k == n - 1) {
			fprintf(g, "set format x '%% h'\nset xlabel ");
			char xl[128];
			snprintf(xl, sizeof xl, "time (%s)", tu && *tu ? tu : "s");
			plot_put_quoted(g, xl);
			fputc('\n', g);
		} else {
			fputs("set format x ''\nunset xlabel\n", g);
		}
		bool diff = k >= p->nvalue_panels;
		write_ylabel(g, p, k, diff);
		write_yrange(g, p, k, diff, from, to);
		if (k == 0)
			write_marks(g, p, from, to, true);
		write_plot(g, p, k, diff);
		if (k == 0)
			fputs("unset label\n", g);
	}
	fputs("unset multiplot\nset output\n", g);
}

int plot_gnuplot(const char *prog, const char *exe, const char *out,
                 void (*script)(FILE *, const void *), const void *env)
{
	int fds[2];
	if (pipe(fds) != 0) {
		fprintf(stderr, "%s: cannot make a pipe: %s\n", prog, strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: cannot start gnuplot: %s\n", prog, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(exe, "gnuplot", (char *)NULL);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, exe, strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	/* gnuplot may die before reading everything: a write error then, not SIGPIPE */
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	FILE *g = fdopen(fds[1], "w");
	bool wrote = false;
	if (g) {
		script(g, env);
		wrote = !ferror(g);
		wrote &= fclose(g) == 0;
	} else {
		close(fds[1]);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &old, NULL);
	struct stat sb;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !wrote || stat(out, &sb) != 0 ||
	    sb.st_size == 0) {
		if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			fprintf(stderr, "%s: gnuplot (%s) failed with exit status %d; %s not "
			        "written\n", prog, exe, WEXITSTATUS(st), out);
		else if (WIFSIGNALED(st))
			fprintf(stderr, "%s: gnuplot (%s) was killed by signal %d; %s not "
			        "written\n", prog, exe, WTERMSIG(st), out);
		else
			fprintf(stderr, "%s: gnuplot (%s) wrote nothing to %s\n", prog, exe, out);
		unlink(out);
		return 1;
	}
	return 0;
}

typedef struct PlotScript {
	const Plot *p;
	const char *title;
} PlotScript;

static void plot_script(FILE *g, const void *env)
{
	const PlotScript *ps = env;
	write_script(g, ps->p, ps->title);
}

/* Reads every file; each must have a row.  Returns 0, or 1 after saying why. */
static int load_files(Plot *p)
{
	char err[1024];
	p->t = calloc((size_t)p->a.nfiles + 1, sizeof *p->t);
	if (!p->t)
		return fputs("sacc plot: out of memory\n", stderr), 1;
	for (int f = 0; f < p->a.nfiles; f++) {
		const char *in = p->a.files[f];
		if (!(p->t[f] = csv_read(in, err, sizeof err))) {
			fprintf(stderr, "sacc plot: %s\n", err);
			return 1;
		}
		if (p->t[f]->ncols < 2) {
			fprintf(stderr, "sacc plot: %s: no variable to draw (only a time column)\n", in);
			return 1;
		}
		if (p->t[f]->nrows == 0) {
			fprintf(stderr, "sacc plot: %s: no data rows (a run that stopped at once?)\n",
			        in);
			return 1;
		}
	}
	return 0;
}

/* The default title: the files' names, joined.  malloc'd. */
static char *default_title(const Plot *p)
{
	size_t len = 1;
	for (int f = 0; f < p->a.nfiles; f++)
		len += strlen(path_base(p->a.files[f])) + 2;
	char *s = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (int f = 0; f < p->a.nfiles; f++) {
		if (f)
			strcat(s, ", ");
		strcat(s, path_base(p->a.files[f]));
	}
	return s;
}

/* Everything checked before gnuplot starts; then gnuplot. */
static int plot_run(Plot *p)
{
	int rc = load_files(p);
	if (!rc)
		rc = choose_vars(p);
	if (!rc)
		rc = match_files(p);
	if (!rc)
		rc = make_panels(p);
	if (!rc)
		rc = make_labels(p);
	if (rc)
		return rc;
	double from, to;
	time_span(p, &from, &to);
	for (int f = 0; p->a.has_xrange && f < p->a.nfiles; f++) {
		const CsvTable *t = p->t[f];
		if (csv_at(t, 0, 0) > to || csv_at(t, t->nrows - 1, 0) < from) {
			fprintf(stderr, "sacc plot: --xrange %s:%s: %s has no time in it\n",
			        FMT_REAL(from),
			        FMT_REAL(to), p->a.files[f]);
			return 1;
		}
	}
	for (int f = 1; p->a.diff && f < p->a.nfiles; f++)
		if (!overlaps_first(p, f, from, to)) {
			fprintf(stderr, "sacc plot: --diff: %s has no time in common with %s in the "
			        "span drawn: no difference to draw\n", p->a.files[f], p->a.files[0]);
			return 1;
		}
	if (p->a.diff) {
		p->diff = calloc((size_t)p->a.nfiles + 1, sizeof *p->diff);
		for (int f = 1; p->diff && f < p->a.nfiles; f++)
			if (!(p->diff[f] = difference(p, f)))
				return fputs("sacc plot: out of memory\n", stderr), 1;
		if (!p->diff)
			return fputs("sacc plot: out of memory\n", stderr), 1;
	}
	char *exe = plot_find_gnuplot();
	if (!exe) {
		fputs("sacc plot: gnuplot not found in PATH: install the Debian package gnuplot-nox "
		      "(apt-get install gnuplot-nox; sh tests/deps.sh does it as root)\n", stderr);
		return 1;
	}
	char *title = p->a.title ? NULL : default_title(p);
	PlotScript ps = {p, p->a.title ? p->a.title : title ? title : ""};
	rc = plot_gnuplot("sacc plot", exe, p->a.out, plot_script, &ps);
	free(title);
	free(exe);
	return rc;
}

int plot_main(int argc, char **argv)
{
	Plot p;
	memset(&p, 0, sizeof p);
	int rc = parse_args(argc, argv, &p.a);
	if (rc == 0) {
		p.png = str_ends_with(p.a.out, ".png");
		rc = plot_run(&p);
	}
	for (int f = 0; f < p.a.nfiles; f++) {
		if (p.t)
			csv_free(p.t[f]);
		if (p.diff)
			csv_free(p.diff[f]);
		if (p.label)
			free(p.label[f]);
	}
	for (int v = 0; v < p.nvars; v++)
		free(p.vars[v].name);
	free(p.t);
	free(p.diff);
	free(p.label);
	free(p.col);
	free(p.vars);
	free(p.a.files);
	free(p.a.groups);
	free(p.a.marks);
	return rc < 0 ? 0 : rc;
}
