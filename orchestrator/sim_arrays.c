/* sim_arrays.c — FMI 3.0 array variables in `sacc simulate` (simulate.h): each element of a
 * Float, integer, Boolean, String or Binary array becomes a scalar variable of the
 * instance's description,
 * named as FMI's structured naming writes an element (`y[2]`, `A[1,2]`, 1-based, the last
 * index running fastest: the row-major order in which FMI 3.0 serializes an array), with
 * the array's type, causality, variability, unit and its own start value.  Everything
 * downstream (records and their headers, --set, --event, --input, connections, the master's
 * port graph) then sees scalars; only the seam knows that an element is read and written
 * through its array (sart_inner.h's SartVrElement).  Sizes are those the description gives
 * (a Dimension's start, or its structural parameter's start value, as fmu_read.c resolves
 * them); sacc never sets a structural parameter.
 *
 * Like simulate_scenario.c, not part of libsacc.a: it sees runtime/ headers. */
#include "simulate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether v is an array whose elements become variables. */
static bool expandable(const FmuVar *v)
{
	return v->ndims > 0 && v->nelems > 0 && v->nelems <= SIM_MAX_ELEMENTS &&
	       v->type != FT_CLOCK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The element name of v at serial position k: v[i1,i2,...], 1-based, row-major. */
static char *element_name(Arena *a, const FmuVar *v, long long k)
{
	char idx[256];
	size_t used = sizeof idx;
	idx[--used] = '\0';
	for (int d = v->ndims - 1; d >= 0; d--) {
		long long size = v->dims[d].size;
		char one[24];
		int n = snprintf(one, sizeof one, "%s%lld", d ? "," : "", k % size + 1);
		k /= size;
		if (n < 0 || (size_t)n > used)
			return NULL;
		used -= (size_t)n;
		memcpy(idx + used, one, (size_t)n);
	}
	return arena_printf(a, "%s[%s]", v->name, idx + used);
}

/* The k-th of the whitespace-separated start values (FMI 3.0 lists an array's start
 * values in row-major order; one value alone is every element's), NULL when absent. */
static char *element_start(Arena *a, const char *start, long long k)
{
	if (!start)
		return NULL;
	const char *p = start, *only = NULL;
	size_t only_len = 0;
	for (long long i = 0;; i++) {
		p += strspn(p, " \t\r\n");
		if (!*p)
			return i == 1 ? arena_strndup(a, only, only_len) : NULL;
		size_t len = strcspn(p, " \t\r\n");
		if (i == k)
			return arena_strndup(a, p, len);
		if (i == 0)
			only = p, only_len = len;
		p += len;
	}
}

/* The k-th of a String or Binary array's <Start> values (FmuVar.nstarts, NUL-separated;
 * one value alone is every element's), NULL when absent. */
static char *element_start_listed(Arena *a, const FmuVar *v, long long k)
{
	if (!v->start || v->nstarts <= 0)
		return NULL;
	if (v->nstarts == 1)
		k = 0;
	else if (k >= v->nstarts)
		return NULL;
	const char *p = v->start;
	for (long long i = 0; i < k; i++)
		p += strlen(p) + 1;
	return arena_strndup(a, p, strlen(p));
}

/* The seam's copy of a String or Binary element's start value (SartVrElement.start_data:
 * a String's text, a Binary's bytes from its hex digits); NULL, 0 when none or when the
 * digits are not hex (the FMU then keeps its own). */
static const void *start_bytes(Arena *a, const FmuVar *e, size_t *size)
{
	*size = 0;
	if (!e->start || (e->type != FT_STRING && e->type != FT_BINARY))
		return NULL;
	if (e->type == FT_STRING) {
		*size = strlen(e->start);
		return e->start;
	}
	unsigned char *b;
	if (sim_hex_decode(e->start, &b, size))
		return NULL;
	unsigned char *copy = arena_alloc(a, *size + 1);
	memcpy(copy, b, *size);
	free(b);
	return copy;
}

/* A start value as the seam takes it (Booleans 0 and 1), NaN when none. */
static double start_value(const char *text)
{
	if (!text)
		return NAN;
	if (strcmp(text, "true") == 0)
		return 1;
	if (strcmp(text, "false") == 0)
		return 0;
	char *end;
	double x = strtod(text, &end);
	return end != text && !*end ? x : NAN;
}

/* An unused value reference for each element: from one past the largest the FMU uses
 * on, skipping those it uses. */
typedef struct VrPicker {
	uint32_t *used;
	size_t nused;
	uint32_t next;
} VrPicker;

static uint32_t pick_vr(VrPicker *p)
{
	while (bsearch(&p->next, p->used, p->nused, sizeof *p->used, cmp_u32))
		p->next++;
	return p->next++;
}

/* The dependencies deps[0..n) with each array replaced by its elements (and kept). */
static int *expand_deps(Arena *a, const SimFmu *f, const int *deps, int n, int *out_n)
{
	int total = n;
	for (int k = 0; k < n; k++)
		if (deps[k] >= 0 && deps[k] < f->nown && f->first_elem[deps[k]] >= 0)
			total += (int)f->info->vars[deps[k]].nelems;
	int *d = arena_alloc(a, ((size_t)total + 1) * sizeof *d);
	int m = 0;
	for (int k = 0; k < n; k++) {
		d[m++] = deps[k];
		if (deps[k] < 0 || deps[k] >= f->nown || f->first_elem[deps[k]] < 0)
			continue;
		for (long long e = 0; e < f->info->vars[deps[k]].nelems; e++)
			d[m++] = f->first_elem[deps[k]] + (int)e;
	}
	*out_n = m;
	return d;
}

/* The outputs' dependencies over the expanded variables: arrays among the dependencies
 * replaced by their elements, and each element of an output array depending on what its
 * array depends on. */
static void expand_outputs(Arena *a, SimFmu *f, const FmuInfo *orig)
{
	FmuInfo *info = f->info;
	int n = orig->noutputs;
	for (int k = 0; k < orig->noutputs; k++)
		if (orig->outputs[k].var >= 0 && orig->outputs[k].var < f->nown &&
		    f->first_elem[orig->outputs[k].var] >= 0)
			n += (int)orig->vars[orig->outputs[k].var].nelems;
	FmuOutputDep *o = arena_alloc(a, ((size_t)n + 1) * sizeof *o);
	int m = 0;
	for (int k = 0; k < orig->noutputs; k++) {
		FmuOutputDep d = orig->outputs[k];
		if (d.deps_given)
			d.deps = expand_deps(a, f, orig->outputs[k].deps, orig->outputs[k].ndeps,
			                     &d.ndeps);
		o[m++] = d;
		if (d.var < 0 || d.var >= f->nown || f->first_elem[d.var] < 0)
			continue;
		for (long long e = 0; e < orig->vars[d.var].nelems; e++) {
			o[m] = d;
			o[m++].var = f->first_elem[d.var] + (int)e;
		}
	}
	info->outputs = o;
	info->noutputs = m;
}

/* The element variables of array v (own index i), appended to info->vars. */
static void add_elements(Arena *a, SimFmu *f, int i, VrPicker *pick)
{
	FmuInfo *info = f->info;
	const FmuVar *v = &info->vars[i];
	f->first_elem[i] = info->nvars;
	for (long long k = 0; k < v->nelems; k++) {
		FmuVar *e = &info->vars[info->nvars++];
		*e = *v;
		e->name = element_name(a, v, k);
		e->vr = pick_vr(pick);
		bool listed = v->type == FT_STRING || v->type == FT_BINARY;
		e->start = listed ? element_start_listed(a, v, k) : element_start(a, v->start, k);
		e->nstarts = e->start && listed;
		e->derivative_of = 0;
		e->dims = NULL;
		e->ndims = 0;
		e->nelems = 1;
		size_t size;
		const void *bytes = start_bytes(a, e, &size);
		f->elements[f->nelements++] = (SartVrElement){e->vr, v->vr, (unsigned)k,
		                                              (unsigned)v->nelems,
		                                              listed ? NAN : start_value(e->start),
		                                              bytes, size};
	}
}

int sim_expand_arrays(Sim *s, SimFmu *f)
{
	Arena *a = s->c->arena;
	const FmuInfo *orig = f->info;
	long long nelems = 0;
	f->nown = orig->nvars;
	for (int i = 0; i < orig->nvars; i++)
		if (expandable(&orig->vars[i]))
			nelems += orig->vars[i].nelems;
	if (nelems == 0)
		return 0;
	if (nelems > SIM_MAX_ELEMENTS) {
		cli_error("fmu '%s' has %lld array elements; at most %d are exchanged and recorded",
		          f->name, nelems, SIM_MAX_ELEMENTS);
		return 2;
	}
	FmuInfo *info = arena_alloc(a, sizeof *info);
	*info = *orig;
	info->vars = arena_alloc(a, ((size_t)orig->nvars + (size_t)nelems + 1) * sizeof *info->vars);
	memcpy(info->vars, orig->vars, (size_t)orig->nvars * sizeof *info->vars);
	f->info = info;
	f->first_elem = arena_alloc(a, ((size_t)orig->nvars + 1) * sizeof *f->first_elem);
	f->elements = arena_alloc(a, ((size_t)nelems + 1) * sizeof *f->elements);
	VrPicker pick = {arena_alloc(a, ((size_t)orig->nvars + 1) * sizeof(uint32_t)),
	                 (size_t)orig->nvars, 0};
	for (int i = 0; i < orig->nvars; i++) {
		pick.used[i] = orig->vars[i].vr;
		f->first_elem[i] = -1;
	}
	qsort(pick.used, pick.nused, sizeof *pick.used, cmp_u32);
	pick.next = pick.nused ? pick.used[pick.nused - 1] + 1 : 0;
	for (int i = 0; i < orig->nvars; i++)
		if (expandable(&orig->vars[i]))
			add_elements(a, f, i, &pick);
	expand_outputs(a, f, orig);
	return 0;
}

void sim_array_span(const SimFmu *f, int var, int *first, int *count)
{
	*first = var >= 0 && var < f->nown && f->first_elem ? f->first_elem[var] : -1;
	*count = *first >= 0 ? (int)f->info->vars[var].nelems : 0;
}
