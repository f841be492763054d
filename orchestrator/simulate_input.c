/* simulate_input.c — what a run of `sacc simulate` takes from outside its FMUs and their
 * connections (simulate.h): the input table of --input FILE.csv, which feeds unconnected
 * inputs as the master asks for them (SartMasterOptions.external_value); the warning for
 * inputs nothing feeds; and the start, stop and step taken from the FMUs'
 * DefaultExperiment when the options do not give them.
 *
 * The input table is read by csv.c (a header `time,NAME,...`, `name [unit]` allowed, times
 * never decreasing, RFC 4180 quoting), each column as its input's type asks: numbers,
 * Integers, Booleans (true, false, 1 or 0) or text (a String as written, a Binary in hex
 * digits), so that a result of `sacc simulate`, which writes every type so, feeds another
 * run as it is.  A column is named INST.VAR for a scenario module and VAR for one .fmu
 * (INST.VAR, INST its instance name, is taken there too, so that a result file of one run
 * can feed another).  Real inputs of continuous variability are linear between rows; the
 * others hold the value of the last row at or before t; before the first row the first
 * value holds, after the last the last. */
#include "simulate.h"
#include "numfmt.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A row within this relative distance of t counts as at t: grid times start + k H are a
 * rounding away from the times a file spells. */
#define AT_ROW_REL 1e-10

/* Whether input k of the table holds its value between rows (not Real, or a Real the
 * model description declares discrete). */
static bool held(const FmuVar *v)
{
	return v->type != FT_REAL || v->variability == VAR_DISCRETE;
}

static bool connected(const Sim *s, SartRef r)
{
	for (int c = 0; c < s->nconns; c++)
		if (s->conns[c].dst.fmu == r.fmu && s->conns[c].dst.var == r.var)
			return true;
	return false;
}

/* "; did you mean 'NAME'?" for word among FMU f's inputs (their names first), else among
 * all its variables; "" when none is near. */
static const char *suggest_input(const Sim *s, int f, const char *word, char *buf,
                                 size_t size)
{
	const FmuInfo *info = s->fmus[f].info;
	const char **names = calloc((size_t)info->nvars + 1, sizeof *names);
	const char *near = NULL;
	int n = 0;
	if (!names)
		return "";
	for (int pass = 0; pass < 2 && !near; pass++) {
		n = 0;
		for (int i = 0; i < info->nvars; i++)
			if (pass == 1 || info->vars[i].causality == CAUS_INPUT)
				names[n++] = info->vars[i].name;
		near = cli_suggest(word, names, n);
	}
	free(names);
	if (!near)
		return "";
	snprintf(buf, size, "; did you mean '%s'?", near);
	return buf;
}

/* Where column name points: *f the instance (-1 when a scenario has none such, or the
 * name is no INST.VAR), *var the variable's part of the name, and the variable's index
 * (-1 when the instance has none such). */
static int locate(const Sim *s, const char *name, int *f, const char **var, char *inst,
                  size_t isize)
{
	const char *dot = strchr(name, '.');
	*f = -1;
	*var = name;
	inst[0] = '\0';
	if (!s->module) {
		*f = 0;
		size_t n = strlen(s->fmus[0].name);
		if (sim_var_index(s->fmus[0].info, name) < 0 && strncmp(name, s->fmus[0].name, n) == 0 &&
		    name[n] == '.')
			*var = name + n + 1;
	} else if (dot) {
		snprintf(inst, isize, "%.*s", (int)(dot - name), name);
		*f = sim_find_instance(s, inst);
		*var = dot + 1;
	}
	return *f < 0 ? -1 : sim_var_index(s->fmus[*f].info, *var);
}

/* CsvOptions.kind: what the input a column feeds takes (numbers where it feeds none: the
 * column is refused by resolve_column then). */
static CsvKind input_kind(void *env, int c, const char *name)
{
	const Sim *s = env;
	char inst[256];
	const char *var;
	int f, i = locate(s, name, &f, &var, inst, sizeof inst);
	(void)c;
	if (i < 0)
		return CSV_NUMBER;
	switch (s->fmus[f].info->vars[i].type) {
	case FT_STRING:
		return CSV_TEXT;
	case FT_BINARY:
		return CSV_HEX;
	case FT_BOOLEAN:
		return CSV_BOOLEAN;
	case FT_REAL:
	case FT_FLOAT32:
		return CSV_NUMBER;
	default:
		return CSV_INTEGER;
	}
}

/* Column c's name as a variable: *r set, or an error reported.  Returns 0, or 1. */
static int resolve_column(Sim *s, const char *path, int c, SartRef *r)
{
	const char *name = s->input->names[c];
	char hint[300], inst[256];
	const char *var;
	int f, i = locate(s, name, &f, &var, inst, sizeof inst);
	if (f < 0 && inst[0]) {
		const char **names = calloc((size_t)s->nfmus + 1, sizeof *names);
		for (int k = 0; names && k < s->nfmus; k++)
			names[k] = s->fmus[k].name;
		const char *near = names ? cli_suggest(inst, names, s->nfmus) : NULL;
		free(names);
		cli_error("--input %s:1: column %d '%s': no fmu instance '%s'%s%s%s", path, c + 1,
		          name, inst, near ? "; did you mean '" : "", near ? near : "",
		          near ? "'?" : "");
		return 1;
	}
	if (f < 0) {
		cli_error("--input %s:1: column %d '%s' is not INSTANCE.VARIABLE (a scenario's "
		          "inputs are named by instance)", path, c + 1, name);
		return 1;
	}
	if (i < 0) {
		cli_error("--input %s:1: column %d '%s': fmu '%s' has no variable '%s'%s", path, c + 1,
		          name, s->fmus[f].name, var, suggest_input(s, f, var, hint, sizeof hint));
		return 1;
	}
	const FmuVar *v = &s->fmus[f].info->vars[i];
	*r = (SartRef){f, i};
	if (v->causality != CAUS_INPUT) {
		cli_error("--input %s:1: column %d '%s' is %s %s, not an input%s", path, c + 1, name,
		          v->causality == CAUS_OUTPUT || v->causality == CAUS_INDEPENDENT ? "an" : "a",
		          fmu_causality_name(v->causality), suggest_input(s, f, var, hint, sizeof hint));
		return 1;
	}
	if (s->fmus[f].vars[i].type == SART_OTHER && v->type != FT_STRING && v->type != FT_BINARY) {
		cli_error("--input %s:1: column %d '%s' is a %s input, which a table cannot feed",
		          path, c + 1, name, fmu_type_name(v->type));
		return 1;
	}
	if (connected(s, *r)) {
		cli_error("--input %s:1: column %d '%s' is an input the scenario connects already",
		          path, c + 1, name);
		return 1;
	}
	return 0;
}

/* Column c's cells are what v takes (the reader checked them against the column's kind);
 * a Binary's hex digits are decoded in place, their sizes in s->ext_size.  Returns 0, or 1
 * after a report naming the first bad cell's line and column. */
static int check_values(Sim *s, int c, const FmuVar *v)
{
	const CsvTable *t = s->input;
	char msg[1024];
	if (csv_has_bad_cell(t, c, msg, sizeof msg)) {
		cli_error("--input %s", msg);
		return 1;
	}
	for (size_t r = 0; v->type == FT_BINARY && r < t->nrows; r++) {
		unsigned char *bytes;
		size_t size;
		if (sim_hex_decode(csv_text(t, r, c), &bytes, &size)) {
			cli_error("out of memory"); /* the reader checked the digits */
			return 1;
		}
		/* the decoded bytes take the text's place: never longer than the digits */
		char *cell = t->cells[r * (size_t)t->ncols + (size_t)c];
		memcpy(cell, bytes, size);
		free(bytes);
		s->ext_size[r * (size_t)t->ncols + (size_t)c] = size;
	}
	return 0;
}

int sim_load_input(Sim *s, const char *path)
{
	char err[1024];
	CsvOptions kinds = {input_kind, s};
	s->input = csv_read_with(path, &kinds, err, sizeof err);
	if (!s->input) {
		cli_error("--input %s", err);
		return 1;
	}
	int n = s->input->ncols - 1;
	s->external = calloc((size_t)n + 1, sizeof *s->external);
	s->ext_col = calloc((size_t)n + 1, sizeof *s->ext_col);
	s->ext_held = calloc((size_t)n + 1, sizeof *s->ext_held);
	s->ext_size = s->input->cells
	              ? calloc(s->input->nrows * (size_t)s->input->ncols + 1, sizeof *s->ext_size)
	              : NULL;
	if (!s->external || !s->ext_col || !s->ext_held || (s->input->cells && !s->ext_size)) {
		cli_error("out of memory");
		return 1;
	}
	if (s->input->nrows == 0) {
		cli_error("--input %s: no rows after the header", path);
		return 1;
	}
	for (int c = 1; c <= n; c++) {
		SartRef r;
		if (resolve_column(s, path, c, &r))
			return 1;
		const FmuVar *v = &s->fmus[r.fmu].info->vars[r.var];
		if (check_values(s, c, v))
			return 1;
		for (int k = 0; k < s->nexternal; k++)
			if (s->external[k].fmu == r.fmu && s->external[k].var == r.var) {
				cli_error("--input %s:1: columns %d and %d both feed %s.%s", path,
				          s->ext_col[k] + 1, c + 1, s->fmus[r.fmu].name, v->name);
				return 1;
			}
		s->external[s->nexternal] = r;
		s->ext_col[s->nexternal] = c;
		s->ext_held[s->nexternal++] = held(v);
	}
	return 0;
}

/* The first row of tb whose time is beyond t (rows within AT_ROW_REL of t count as at t). */
static size_t row_after(const CsvTable *tb, double t)
{
	double x = t + AT_ROW_REL * fabs(t);
	size_t lo = 0, hi = tb->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (csv_at(tb, mid, 0) > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void sim_input_value(void *env, int k, double t, double *value, double *slope)
{
	const Sim *s = env;
	const CsvTable *tb = s->input;
	int c = s->ext_col[k];
	size_t lo = row_after(tb, t);
	*slope = 0;
	if (lo == 0 || lo == tb->nrows || s->ext_held[k]) {
		*value = csv_at(tb, lo == 0 ? 0 : lo - 1, c);
		return;
	}
	double ta = csv_at(tb, lo - 1, 0), tb_ = csv_at(tb, lo, 0);
	double ya = csv_at(tb, lo - 1, c), yb = csv_at(tb, lo, c);
	*slope = (yb - ya) / (tb_ - ta);
	*value = t <= ta ? ya : ya + *slope * (t - ta);
}

/* fed[base[f] + i]: whether FMU f's variable i is fed by a connection, --input or --set;
 * marked in one pass over each, so that ten thousand FMUs are not each looked for in all
 * of them.  Returns the malloc'd mask (base filled in), or NULL when out of memory. */
static bool *fed_mask(const Sim *s, size_t *base)
{
	size_t n = 0;
	for (int f = 0; f < s->nfmus; f++) {
		base[f] = n;
		n += (size_t)s->fmus[f].info->nvars;
	}
	bool *fed = calloc(n + 1, sizeof *fed);
	for (int c = 0; fed && c < s->nconns; c++)
		fed[base[s->conns[c].dst.fmu] + (size_t)s->conns[c].dst.var] = true;
	for (int k = 0; fed && k < s->nexternal; k++)
		fed[base[s->external[k].fmu] + (size_t)s->external[k].var] = true;
	for (int k = 0; fed && k < s->nstarts; k++)
		fed[base[s->starts[k].ref.fmu] + (size_t)s->starts[k].ref.var] = true;
	return fed;
}

const char *sim_input_text(void *env, int k, double t, size_t *size)
{
	const Sim *s = env;
	const CsvTable *tb = s->input;
	size_t lo = row_after(tb, t), r = lo == 0 ? 0 : lo - 1;
	size_t cell = r * (size_t)tb->ncols + (size_t)s->ext_col[k];
	const char *text = tb->cells[cell];
	*size = s->ext_size[cell] ? s->ext_size[cell] : strlen(text);
	return text;
}

void sim_warn_unfed_inputs(const Sim *s)
{
	int n = 0;
	size_t *base = malloc(((size_t)s->nfmus + 1) * sizeof *base);
	bool *mask = base ? fed_mask(s, base) : NULL;
	for (int f = 0; f < s->nfmus; f++) {
		const FmuInfo *info = s->fmus[f].info;
		for (int i = 0; i < info->nvars; i++) {
			SartRef r = {f, i};
			bool fed = info->vars[i].start != NULL ||
			           (mask ? mask[base[f] + (size_t)i] : connected(s, r));
			for (int k = 0; !mask && !fed && k < s->nexternal; k++)
				fed = s->external[k].fmu == f && s->external[k].var == i;
			for (int k = 0; !mask && !fed && k < s->nstarts; k++)
				fed = s->starts[k].ref.fmu == f && s->starts[k].ref.var == i;
			int first, count;
			sim_array_span(&s->fmus[f], i, &first, &count);
			if (fed || info->vars[i].causality != CAUS_INPUT || count)
				continue; /* an array: its elements say */
			if (info->vars[i].type == FT_CLOCK &&
			    info->vars[i].clock.interval_variability != IV_TRIGGERED)
				continue; /* its ticks are the FMU's and the seam's business */
			if (n++ == 0)
				fprintf(stderr, "%s: warning: nothing feeds these inputs and they have no "
				        "start value, so they stay 0:", cli_prog());
			fprintf(stderr, " %s.%s", s->fmus[f].name, info->vars[i].name);
		}
	}
	if (n)
		fputs(" (connect them, give them a column of --input FILE or a --set value)\n",
		      stderr);
	free(base);
	free(mask);
}

/* ---- start, stop and step from the DefaultExperiment -------------------------------------- */

/* Which FMU's DefaultExperiment gives a value (the largest, or the smallest), or -1 when
 * none declares it (a step size must be positive).  field: an offset of a double in FmuInfo. */
static int declared(const Sim *s, size_t field, bool largest)
{
	int best = -1;
	double bv = 0;
	bool step = field == offsetof(FmuInfo, default_step);
	for (int f = 0; f < s->nfmus; f++) {
		double v = *(const double *)((const char *)s->fmus[f].info + field);
		if (!isfinite(v) || (step && !(v > 0)) || (best >= 0 && (largest ? v <= bv : v >= bv)))
			continue;
		best = f;
		bv = v;
	}
	return best;
}

/* Appends "NAME VALUE (from where)" to s->defaults, or " and NAME VALUE" before the
 * last "(from where)" when it is the same. */
static void said(Sim *s, const char *name, double v, const char *from)
{
	char *d = s->defaults;
	size_t used = strlen(d);
	char tail[320];
	snprintf(tail, sizeof tail, " (%s)", from);
	size_t tlen = strlen(tail);
	if (used > tlen && strcmp(d + used - tlen, tail) == 0) {
		d[used - tlen] = '\0';
		char *group = strstr(d, "), ") ? strrchr(d, ')') + 3 : d;
		char *and = strstr(group, " and ");
		if (and) /* "a and b" becomes "a, b and c" */
			memmove(and + 1, and + 4, strlen(and + 4) + 1), *and = ',';
		used = strlen(d);
		snprintf(d + used, sizeof s->defaults - used, " and %s %s%s", name, FMT_REAL(v), tail);
		return;
	}
	snprintf(d + used, sizeof s->defaults - used, "%s%s %s%s", used ? ", " : "", name,
	         FMT_REAL(v), tail);
}

int sim_default_experiment(Sim *s, double *start, double *stop, double *step, bool uses_step)
{
	char from[3][300];
	int fs = declared(s, offsetof(FmuInfo, default_start), true);
	int fe = declared(s, offsetof(FmuInfo, default_stop), false);
	int fh = declared(s, offsetof(FmuInfo, default_step), false);
	const char *of = s->nfmus > 1 ? "the DefaultExperiment of " : "the DefaultExperiment";
	s->defaults[0] = '\0';
	snprintf(from[0], sizeof from[0], "%s%s", of, s->nfmus > 1 && fs >= 0 ? s->fmus[fs].name : "");
	snprintf(from[1], sizeof from[1], "%s%s", of, s->nfmus > 1 && fe >= 0 ? s->fmus[fe].name : "");
	snprintf(from[2], sizeof from[2], "%s%s", of, s->nfmus > 1 && fh >= 0 ? s->fmus[fh].name : "");
	bool start_given = !isnan(*start), stop_given = !isnan(*stop);
	/* an SSP system's own DefaultExperiment comes before its FMUs' */
	const char *ssd = "the SSD's DefaultExperiment";
	bool ssd_start = s->ssp && !isnan(s->ssp->start), ssd_stop = s->ssp && !isnan(s->ssp->stop);
	if (!start_given) {
		*start = ssd_start ? s->ssp->start : fs >= 0 ? s->fmus[fs].info->default_start : 0;
		said(s, "start", *start, ssd_start ? ssd : fs >= 0 ? from[0] : "none declared: 0");
	}
	if (!stop_given) {
		*stop = ssd_stop ? s->ssp->stop : fe >= 0 ? s->fmus[fe].info->default_stop
		                                          : *start + 1;
		said(s, "stop", *stop, ssd_stop ? ssd : fe >= 0 ? from[1]
		                                                : "none declared: start + 1");
	}
	if (!(*stop >= *start)) {
		if (start_given && stop_given)
			return cli_usage_error("the stop time is before the start time");
		return cli_usage_error("the stop time %s is before the start time %s (%s): give "
		                       "--start and --stop", FMT_REAL(*stop), FMT_REAL(*start),
		                       s->defaults);
	}
	if (isnan(*step)) {
		*step = fh >= 0 ? s->fmus[fh].info->default_step
		                : *stop > *start ? (*stop - *start) / 500 : 1;
		if (uses_step)
			said(s, "step", *step, fh >= 0 ? from[2] : "none declared: (stop - start) / 500");
	}
	return 0;
}

int sim_input_tick(void *env, int k, double t0, double t1)
{
	const Sim *s = env;
	const CsvTable *tb = s->input;
	int c = s->ext_col[k];
	/* the rows in (t0, t1], each within AT_ROW_REL of its time */
	for (size_t r = row_after(tb, t0); r < tb->nrows; r++) {
		double t = csv_at(tb, r, 0);
		if (t > t1 + AT_ROW_REL * fabs(t1))
			break;
		if (csv_at(tb, r, c) != 0)
			return 1;
	}
	return 0;
}

double sim_input_next_tick(void *env, int k, double t)
{
	const Sim *s = env;
	const CsvTable *tb = s->input;
	int c = s->ext_col[k];
	for (size_t r = row_after(tb, t); r < tb->nrows; r++)
		if (csv_at(tb, r, c) != 0)
			return csv_at(tb, r, 0);
	return INFINITY;
}
