/* ensemble_design.c — the runs of an ensemble (ensemble.h): a design table read from CSV,
 * a full-factorial grid, or samples (Monte Carlo, Latin hypercube) of named distributions
 * from a generator whose every bit is fixed here, so that a seed gives the same design on
 * every machine; the design is written to the ensemble's directory as a table. */
#include "ensemble.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "numfmt.h"

void ens_design_free(EnsDesign *d)
{
	for (int p = 0; p < d->nparams; p++)
		free(d->params[p]);
	for (int r = 0; r < d->nruns; r++) {
		free(d->ids[r]);
		for (int p = 0; p < d->nparams; p++)
			free(d->values[(size_t)r * (size_t)d->nparams + (size_t)p]);
	}
	free(d->params);
	free(d->ids);
	free(d->values);
	memset(d, 0, sizeof *d);
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

/* Whether s can name a run's files: letters, digits, '_', '-', '.', not first '.'. */
static bool id_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 100)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", *s))
			return false;
	return true;
}

/* Whether s reads as INST.VAR (a dot inside, no space, comma or '='). */
static bool ref_ok(const char *s)
{
	const char *dot = strchr(s, '.');
	return dot && dot != s && dot[1] && !strpbrk(s, " \t,=\"");
}

/* Room for nruns rows of nparams values (zeroed). */
static int design_alloc(EnsDesign *d, int nparams, int nruns)
{
	d->nparams = nparams;
	d->params = calloc((size_t)nparams + 1, sizeof *d->params);
	d->ids = calloc((size_t)nruns + 1, sizeof *d->ids);
	d->values = calloc((size_t)nruns * (size_t)nparams + 1, sizeof *d->values);
	if (!d->params || !d->ids || !d->values)
		return -1;
	d->nruns = nruns;
	return 0;
}

static char *copy(const char *s, size_t n)
{
	char *c = malloc(n + 1);
	if (c) {
		memcpy(c, s, n);
		c[n] = '\0';
	}
	return c;
}

/* The fields of one line as RFC 4180 quotes them (csv_split: `"a,b"` is one field a,b),
 * the spaces around an unquoted field trimmed, at most max; their columns (from 1) in col.
 * Returns the count, max + 1 past max, or -1 with the message in err. */
static int split_line(char *line, char **fields, int *col, int max, const char *path, int ln,
                      char *err, size_t size)
{
	char *orig = strdup(line);
	int bad;
	const char *why;
	if (!orig)
		return say(err, size, "out of memory"), -1;
	int n = csv_split(line, fields, col, max, &bad, &why);
	if (n < 0)
		say(err, size, "%s:%d:%d: %s", path, ln, bad, why);
	for (int k = 0; k < n && k < max; k++) {
		if (orig[col[k] - 1] == '"')
			continue;
		char *p = fields[k];
		while (*p == ' ' || *p == '\t')
			p++;
		col[k] += (int)(p - fields[k]);
		char *q = p + strlen(p);
		while (q > p && (q[-1] == ' ' || q[-1] == '\t'))
			*--q = '\0';
		fields[k] = p;
	}
	free(orig);
	return n;
}

enum { MAX_PARAMS = 256 };

static int read_header(char *line, EnsDesign *d, const char *path, char *err, size_t size)
{
	char *f[MAX_PARAMS + 1];
	int col[MAX_PARAMS + 1];
	int n = split_line(line, f, col, MAX_PARAMS + 1, path, 1, err, size);
	if (n < 0)
		return 1;
	if (n > MAX_PARAMS + 1)
		return say(err, size, "%s:1: more than %d parameters", path, MAX_PARAMS), 1;
	if (n < 2)
		return say(err, size, "%s:1:1: the header names no parameter (expected a run id "
		           "column, then INST.VAR columns)", path), 1;
	d->nparams = n - 1;
	d->params = calloc((size_t)n, sizeof *d->params);
	if (!d->params)
		return say(err, size, "out of memory"), 1;
	for (int k = 1; k < n; k++) {
		if (!ref_ok(f[k]))
			return say(err, size, "%s:1:%d: '%s' is not INST.VAR", path, col[k], f[k]), 1;
		for (int j = 1; j < k; j++)
			if (strcmp(f[j], f[k]) == 0)
				return say(err, size, "%s:1:%d: '%s' is a column twice", path, col[k],
				           f[k]), 1;
		if (!(d->params[k - 1] = strdup(f[k])))
			return say(err, size, "out of memory"), 1;
	}
	return 0;
}

/* One data row (line number ln) appended. */
static int read_row(char *line, int ln, EnsDesign *d, int *cap, const char *path, char *err,
                    size_t size)
{
	char *f[MAX_PARAMS + 2];
	int col[MAX_PARAMS + 2];
	int n = split_line(line, f, col, MAX_PARAMS + 2, path, ln, err, size);
	if (n < 0)
		return 1;
	if (n != d->nparams + 1)
		return say(err, size, "%s:%d:1: %d fields where the header has %d", path, ln,
		           n, d->nparams + 1), 1;
	if (!id_ok(f[0]))
		return say(err, size, "%s:%d:%d: run id '%s' is not a file name (letters, digits, "
		           "'_', '-', '.'; not first '.')", path, ln, col[0], f[0]), 1;
	for (int r = 0; r < d->nruns; r++)
		if (strcmp(d->ids[r], f[0]) == 0)
			return say(err, size, "%s:%d:%d: run id '%s' is given twice", path, ln, col[0],
			           f[0]), 1;
	for (int k = 1; k < n; k++)
		if (!*f[k])
			return say(err, size, "%s:%d:%d: no value for '%s'", path, ln, col[k],
			           d->params[k - 1]), 1;
	if (d->nruns == *cap) {
		int nc = *cap ? 2 * *cap : 64;
		char **ids = realloc(d->ids, (size_t)nc * sizeof *ids);
		if (ids)
			d->ids = ids;
		char **vals = realloc(d->values, (size_t)nc * (size_t)d->nparams * sizeof *vals);
		if (vals)
			d->values = vals;
		if (!ids || !vals)
			return say(err, size, "out of memory"), 1;
		*cap = nc;
	}
	size_t base = (size_t)d->nruns * (size_t)d->nparams;
	d->ids[d->nruns] = strdup(f[0]);
	for (int k = 1; k < n; k++)
		d->values[base + (size_t)k - 1] = strdup(f[k]);
	d->nruns++;
	for (int k = 0; k < n; k++)
		if (!(k ? d->values[base + (size_t)k - 1] : d->ids[d->nruns - 1]))
			return say(err, size, "out of memory"), 1;
	return 0;
}

int ens_design_read(const char *path, EnsDesign *d, char *err, size_t size)
{
	memset(d, 0, sizeof *d);
	FILE *f = fopen(path, "r");
	if (!f)
		return say(err, size, "%s: %s", path, strerror(errno)), 1;
	char *line = NULL;
	size_t cap = 0;
	int ln = 0, rows_cap = 0, rc = 0;
	while (!rc && getline(&line, &cap, f) >= 0) {
		ln++;
		line[strcspn(line, "\r\n")] = '\0';
		if (ln == 1)
			rc = read_header(line, d, path, err, size);
		else if (line[strspn(line, " \t")])
			rc = read_row(line, ln, d, &rows_cap, path, err, size);
	}
	free(line);
	fclose(f);
	if (!rc && ln == 0)
		rc = (say(err, size, "%s: empty (expected a header: run id, INST.VAR...)", path), 1);
	else if (!rc && d->nruns == 0)
		rc = (say(err, size, "%s:%d: no runs after the header", path, ln), 1);
	if (rc)
		ens_design_free(d);
	return rc;
}

static void put_design(FILE *f, const void *env)
{
	const EnsDesign *d = env;
	fputs("run", f);
	for (int p = 0; p < d->nparams; p++) { /* quoted where a name or value must be */
		fputc(',', f);
		csv_put_field(f, d->params[p]);
	}
	fputc('\n', f);
	for (int r = 0; r < d->nruns; r++) {
		fputs(d->ids[r], f);
		for (int p = 0; p < d->nparams; p++) {
			fputc(',', f);
			csv_put_field(f, d->values[(size_t)r * (size_t)d->nparams + (size_t)p]);
		}
		fputc('\n', f);
	}
}

int ens_design_write(const char *path, const EnsDesign *d)
{
	return ens_write_atomic(path, put_design, d);
}

/* Run ids 1..n, zero-padded to one width so that they sort as numbers. */
static int number_runs(EnsDesign *d)
{
	int width = snprintf(NULL, 0, "%d", d->nruns);
	for (int r = 0; r < d->nruns; r++) {
		char id[32];
		snprintf(id, sizeof id, "%0*d", width, r + 1);
		if (!(d->ids[r] = strdup(id)))
			return -1;
	}
	return 0;
}

static int set_value(EnsDesign *d, int r, int p, double x)
{
	char buf[FMT_REAL_MAX];
	fmt_real(buf, x);
	return (d->values[(size_t)r * (size_t)d->nparams + (size_t)p] = strdup(buf)) ? 0 : -1;
}

/* "INST.VAR=REST": the name copied into d->params[p], *rest after the '='. */
static int spec_name(const char *spec, EnsDesign *d, int p, const char **rest, char *err,
                     size_t size, const char *opt)
{
	const char *eq = strchr(spec, '=');
	char *name = eq ? copy(spec, (size_t)(eq - spec)) : NULL;
	if (!eq || !ref_ok(name)) {
		free(name);
		return say(err, size, "%s '%s': expected INST.VAR=...", opt, spec), 2;
	}
	for (int q = 0; q < p; q++)
		if (strcmp(d->params[q], name) == 0) {
			free(name);
			return say(err, size, "%s: '%.*s' is given twice", opt, (int)(eq - spec), spec), 2;
		}
	d->params[p] = name;
	*rest = eq + 1;
	return 0;
}

/* A grid axis's values: "LO:HI:N" or "V1,V2,...", at most max.  Returns the count, or -1. */
static int axis_values(const char *s, double *v, int max)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", s);
	char *colon = strchr(buf, ':');
	if (colon) {
		char *c2 = strchr(colon + 1, ':');
		double lo, hi, n;
		if (!c2)
			return -1;
		*colon = *c2 = '\0';
		if (!csv_number(buf, &lo) || !csv_number(colon + 1, &hi) || !csv_number(c2 + 1, &n) ||
		    n < 1 || n > max || n != floor(n) || (n == 1 && lo != hi))
			return -1;
		for (int i = 0; i < (int)n; i++)
			v[i] = n == 1 ? lo : i == (int)n - 1 ? hi : lo + (hi - lo) * i / (n - 1);
		return (int)n;
	}
	int n = 0;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		if (n == max || !csv_number(tok, &v[n]))
			return -1;
		n++;
	}
	return n ? n : -1;
}

enum { MAX_RUNS = 10000000, MAX_AXIS = 100000 };

int ens_design_grid(const char *const *specs, int n, EnsDesign *d, char *err, size_t size)
{
	memset(d, 0, sizeof *d);
	double *axis = malloc((size_t)n * MAX_AXIS * sizeof *axis);
	int *len = calloc((size_t)n + 1, sizeof *len);
	d->params = calloc((size_t)n + 1, sizeof *d->params);
	int rc = !axis || !len || !d->params ? (say(err, size, "out of memory"), 1) : 0;
	long total = 1;
	d->nparams = n;
	for (int p = 0; !rc && p < n; p++) {
		const char *rest;
		rc = spec_name(specs[p], d, p, &rest, err, size, "--grid");
		if (!rc && (len[p] = axis_values(rest, axis + (size_t)p * MAX_AXIS, MAX_AXIS)) < 0)
			rc = (say(err, size, "--grid '%s': expected LO:HI:N (N >= 2 values from LO to "
			          "HI) or V1,V2,... (numbers)", specs[p]), 2);
		if (!rc && (total *= len[p]) > MAX_RUNS)
			rc = (say(err, size, "--grid: more than %d runs", MAX_RUNS), 2);
	}
	if (!rc) {
		char **params = d->params;
		d->params = NULL;
		if (design_alloc(d, n, (int)total) || number_runs(d))
			rc = (say(err, size, "out of memory"), 1);
		free(d->params);
		d->params = params;
	}
	for (int r = 0; !rc && r < d->nruns; r++) {
		int k = r;
		for (int p = n - 1; p >= 0 && !rc; p--) {
			rc = set_value(d, r, p, axis[(size_t)p * MAX_AXIS + (size_t)(k % len[p])]);
			k /= len[p];
		}
		if (rc)
			say(err, size, "out of memory");
	}
	free(axis);
	free(len);
	if (rc)
		ens_design_free(d);
	return rc;
}

/* ---- the generator ----------------------------------------------------------------------- */

/* splitmix64 turns the seed into xoshiro256**'s state (never all zero), as the authors of
 * xoshiro recommend; both are fixed integer arithmetic, the same on every machine. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

void ens_rng_seed(EnsRng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ens_rng_next(EnsRng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double ens_rng_uniform(EnsRng *r)
{
	return ((double)(ens_rng_next(r) >> 11) + 0.5) * 0x1p-53;
}

/* An integer in [0, n) without modulo bias (rejection of the short last block). */
static uint64_t rng_below(EnsRng *r, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
	do
		x = ens_rng_next(r);
	while (x >= limit);
	return x % n;
}

/* The lower tail's quantile (p <= 1/2) by Newton's method on log Phi, which erfc gives to
 * full precision there, from a start below the root; log Phi is concave, so the iterates
 * rise monotonically to the root. */
static double lower_quantile(double p)
{
	double x = -sqrt(-2.0 * log(p)) - 1.0;
	for (int i = 0; i < 100; i++) {
		double cdf = 0.5 * erfc(-x / sqrt(2.0));
		double pdf = exp(-0.5 * x * x) / 2.5066282746310002 /* sqrt(2 pi) */;
		double dx = (log(p) - log(cdf)) * cdf / pdf;
		x += dx;
		if (fabs(dx) <= 1e-15 * fabs(x) + 1e-300)
			break;
	}
	return x;
}

double ens_normal_quantile(double p)
{
	if (p == 0.5)
		return 0.0;
	return p < 0.5 ? lower_quantile(p) : -lower_quantile(1.0 - p);
}

typedef enum Dist { D_UNIFORM, D_NORMAL, D_LOGNORMAL, D_TRIANGULAR } Dist;

static const struct {
	const char *name;
	int nargs;
	const char *form;
} dists[] = {
	[D_UNIFORM] = {"uniform", 2, "uniform:LO:HI"},
	[D_NORMAL] = {"normal", 2, "normal:MEAN:SD"},
	[D_LOGNORMAL] = {"lognormal", 2, "lognormal:MU:SIGMA"},
	[D_TRIANGULAR] = {"triangular", 3, "triangular:LO:MODE:HI"},
};

typedef struct Sampled {
	Dist dist;
	double a[3];
} Sampled;

static int parse_dist(const char *s, Sampled *out)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", s);
	char *f[5];
	int n = 0;
	for (char *p = buf; n < 5;) {
		f[n++] = p;
		p = strchr(p, ':');
		if (!p)
			break;
		*p++ = '\0';
	}
	for (int k = 0; k < 4; k++)
		if (strcmp(f[0], dists[k].name) == 0) {
			if (n != dists[k].nargs + 1)
				return -1;
			out->dist = (Dist)k;
			for (int i = 0; i < dists[k].nargs; i++)
				if (!csv_number(f[i + 1], &out->a[i]))
					return -1;
			const double *a = out->a;
			if ((k == D_UNIFORM && !(a[0] <= a[1])) || (k != D_UNIFORM && k != D_TRIANGULAR &&
			                                           !(a[1] >= 0)) ||
			    (k == D_TRIANGULAR && !(a[0] <= a[1] && a[1] <= a[2] && a[0] < a[2])))
				return -1;
			return 0;
		}
	return -1;
}

/* The distribution's quantile at u in (0, 1). */
static double quantile(const Sampled *s, double u)
{
	const double *a = s->a;
	switch (s->dist) {
	case D_UNIFORM:
		return a[0] + (a[1] - a[0]) * u;
	case D_NORMAL:
		return a[0] + a[1] * ens_normal_quantile(u);
	case D_LOGNORMAL:
		return exp(a[0] + a[1] * ens_normal_quantile(u));
	case D_TRIANGULAR: {
		double lo = a[0], mode = a[1], hi = a[2], f = (mode - lo) / (hi - lo);
		return u < f ? lo + sqrt(u * (hi - lo) * (mode - lo))
		             : hi - sqrt((1 - u) * (hi - lo) * (hi - mode));
	}
	}
	return NAN;
}

/* The u in (0, 1) of each run for one parameter: Monte Carlo draws them; a Latin hypercube
 * draws a random order of the n strata, then a point in each stratum. */
static int draw_unit(EnsRng *rng, int method, int n, double *u)
{
	if (method == ENS_MONTE_CARLO) {
		for (int i = 0; i < n; i++)
			u[i] = ens_rng_uniform(rng);
		return 0;
	}
	int *perm = malloc((size_t)n * sizeof *perm);
	if (!perm)
		return -1;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)rng_below(rng, (uint64_t)i + 1);
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < n; i++)
		u[i] = (perm[i] + ens_rng_uniform(rng)) / n;
	free(perm);
	return 0;
}

int ens_design_sample(const char *const *specs, int n, int nsamples, int method,
                      uint64_t seed, EnsDesign *d, char *err, size_t size)
{
	memset(d, 0, sizeof *d);
	if (nsamples < 1 || nsamples > MAX_RUNS)
		return say(err, size, "--samples: expected 1 to %d runs", MAX_RUNS), 2;
	Sampled *sp = calloc((size_t)n + 1, sizeof *sp);
	double *u = malloc((size_t)nsamples * sizeof *u);
	int rc = !sp || !u || design_alloc(d, n, nsamples) || number_runs(d)
	             ? (say(err, size, "out of memory"), 1) : 0;
	for (int p = 0; !rc && p < n; p++) {
		const char *rest;
		rc = spec_name(specs[p], d, p, &rest, err, size, "--sample");
		if (!rc && parse_dist(rest, &sp[p]))
			rc = (say(err, size, "--sample '%s': expected uniform:LO:HI, normal:MEAN:SD, "
			          "lognormal:MU:SIGMA or triangular:LO:MODE:HI (numbers, LO <= HI, "
			          "SD >= 0)", specs[p]), 2);
	}
	EnsRng rng;
	ens_rng_seed(&rng, seed);
	/* parameter by parameter: adding a parameter at the end keeps the others' values */
	for (int p = 0; !rc && p < n; p++) {
		if (draw_unit(&rng, method, nsamples, u))
			rc = (say(err, size, "out of memory"), 1);
		for (int r = 0; !rc && r < nsamples; r++)
			if (set_value(d, r, p, quantile(&sp[p], u[r])))
				rc = (say(err, size, "out of memory"), 1);
	}
	free(sp);
	free(u);
	if (rc)
		ens_design_free(d);
	return rc;
}
