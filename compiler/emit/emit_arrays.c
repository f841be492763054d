/* emit_arrays.c — FMI 3.0 array ports of a wrapper.
 *
 * The checker gives each element of an inner's array input or output a port of its own,
 * named as `sacc simulate` names its columns ("y[2]", "A[1,2]": 1-based subscripts,
 * row-major), so that the explicit form, the Storage and the rule parts treat elements as
 * the scalars they are.  Here, after the layout is made, each run of consecutive variables
 * that are the elements of one array (the external port, and the INIT_ parameter of its
 * start value) becomes one array variable of the FMI 3.0 wrapper: declared once with its
 * <Dimension>s (fixed sizes, those the inner's structural parameters had at their start
 * values), its value reference that of the first element, its values the elements' in
 * row-major order (emit_md.c writes it, runtime/sart_fmi3_arrays.c gets and sets it).  An
 * FMI 2.0 wrapper has no array variables: building one is refused, naming the port.
 *
 * An FMI 3.0 inner's array parameter is exposed the same way (emit_add_array_param): one
 * parameter "<inner>.K[i]" per element, each reaching the inner through the element table
 * (emit_c_arrays.c) under a reference of the wrapper's choosing, grouped here into one
 * array parameter of an FMI 3.0 wrapper when every element is exposed; elements the script
 * binds (`with param K[2] := ...`) are set from their expressions instead, and the rest then
 * stay scalar parameters.  An FMI 2.0 wrapper declares the elements as scalars. */
#include "emit.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The subscripts of an element name "base[i,j,...]" into sub (at most max), their count;
 * *base_len is the length of base.  0 when the name is no element's. */
static int subscripts(const char *name, size_t *base_len, long long *sub, int max)
{
	const char *open = strchr(name, '[');
	size_t len = strlen(name);
	if (!open || open == name || len < 3 || name[len - 1] != ']')
		return 0;
	*base_len = (size_t)(open - name);
	int n = 0;
	const char *p = open + 1;
	while (n < max) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p || v < 1)
			return 0;
		sub[n++] = v;
		if (*end == ']')
			return end == name + len - 1 ? n : 0;
		if (*end != ',')
			return 0;
		p = end + 1;
	}
	return 0;
}

#define MAX_DIMS 32

/* Whether vars[at..at+n-1] are exactly the elements of one array with dims (the last
 * element's subscripts), in row-major order, of one type and causality. */
static bool is_run(const EmitVar *vars, int at, int n, size_t base_len, const long long *dims,
                   int ndims)
{
	long long sub[MAX_DIMS];
	for (int k = 0; k < n; k++) {
		const EmitVar *v = &vars[at + k];
		size_t bl;
		if (subscripts(v->name, &bl, sub, MAX_DIMS) != ndims || bl != base_len ||
		    strncmp(v->name, vars[at].name, base_len) != 0 || v->type != vars[at].type ||
		    v->causality != vars[at].causality || v->param_array != vars[at].param_array ||
		    (v->inner && !v->param_array) ||
		    (v->param_array && v->param_array->nelems != n))
			return false; /* an inner's scalar parameters named "p[1]" stay scalars, and
			               * so do the elements left of a partly bound array */
		long long rest = k;
		for (int d = ndims - 1; d >= 0; d--) {
			if (sub[d] != rest % dims[d] + 1)
				return false;
			rest /= dims[d];
		}
	}
	return true;
}

/* A C name for an element: its name with what no identifier holds turned to '_', made
 * unlike every other variable's. */
static const char *element_cname(Arena *a, const EmitLayout *l, const char *name)
{
	char *s = arena_strdup(a, name);
	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			*p = '_';
	for (bool taken = true; taken;) {
		taken = false;
		for (int i = 0; i < l->nvars && !taken; i++)
			taken = l->vars[i].cname && strcmp(l->vars[i].cname, s) == 0;
		if (taken)
			s = arena_printf(a, "%s_", s);
	}
	return s;
}

/* text with every occurrence of sub taken out (an element's "[1]": the description of
 * its array), or NULL for NULL. */
static const char *without(Arena *a, const char *text, const char *sub)
{
	if (!text)
		return NULL;
	char *r = arena_strdup(a, text), *p;
	size_t n = strlen(sub);
	while ((p = strstr(r, sub)) != NULL)
		memmove(p, p + n, strlen(p + n) + 1);
	return r;
}

void emit_group_arrays(Compilation *c, EmitLayout *l)
{
	Arena *a = c->arena;
	for (int i = 0; i < l->nvars; i++) {
		EmitVar *v = &l->vars[i];
		if (strchr(v->name, '['))
			v->cname = element_cname(a, l, v->name);
	}
	long long sub[MAX_DIMS];
	for (int i = 0; i < l->nvars;) {
		size_t base_len;
		int nd = subscripts(l->vars[i].name, &base_len, sub, MAX_DIMS);
		bool first = nd > 0;
		for (int d = 0; d < nd; d++)
			first &= sub[d] == 1;
		/* the run ends at the last element of this base; its subscripts are the dims */
		int n = 0;
		while (first && i + n < l->nvars &&
		       strncmp(l->vars[i + n].name, l->vars[i].name, base_len + 1) == 0)
			n++;
		long long *dims = arena_alloc(a, (size_t)(nd + 1) * sizeof *dims);
		size_t bl;
		if (!first || subscripts(l->vars[i + n - 1].name, &bl, dims, MAX_DIMS) != nd ||
		    !is_run(l->vars, i, n, base_len, dims, nd)) {
			i++;
			continue;
		}
		EmitVar *head = &l->vars[i];
		head->description = without(a, head->description, head->name + base_len);
		head->elems = n;
		head->array_name = arena_printf(a, "%.*s", (int)base_len, head->name);
		head->dims = dims;
		head->ndims = nd;
		for (int k = 1; k < n; k++)
			l->vars[i + k].elems = -1;
		l->narrays++;
		i += n;
	}
}

/* The inner and inner port an external variable's elements come from, else NULL. */
static const Inner *inner_of(const EmitLayout *l, const char *name, const InnerPort **port)
{
	for (int f = 0; f < l->info->ninners; f++) {
		const Inner *in = l->info->inners[f];
		for (int k = 0; k < in->nports; k++)
			if (in->ports[k].elem && strcmp(in->ports[k].name, name) == 0) {
				*port = &in->ports[k];
				return in;
			}
	}
	return NULL;
}

bool emit_refuse_arrays_fmi2(Compilation *c, const EmitLayout *l)
{
	bool any = false;
	for (int i = 0; i < l->nvars; i++) {
		const EmitVar *v = &l->vars[i];
		if (v->elems <= 0 || v->causality == CAUS_PARAMETER)
			continue;
		const InnerPort *p = NULL;
		const Inner *in = inner_of(l, v->name, &p);
		Loc at = v->decl ? v->decl->loc : l->sa->loc;
		char why[96];
		const char *what = in && in->fmu ? fmu_var_unsupported(&in->fmu->vars[p->fmu_var], why,
		                                                       sizeof why) : NULL;
		if (in && what)
			diag_error(c->diag, at, "port '%s' of inner fmu '%s' is %s, which an FMI 2.0 "
			           "wrapper cannot carry", p->var, in->name, what);
		else if (in)
			diag_error(c->diag, at, "port '%s' of inner fmu '%s' is an array of %d %s, which "
			           "an FMI 2.0 wrapper cannot carry", p->var, in->name, v->elems,
			           ast_type_name(v->type));
		else
			diag_error(c->diag, at, "port '%s' is an array of %d %s, which an FMI 2.0 "
			           "wrapper cannot carry", v->array_name, v->elems, ast_type_name(v->type));
		diag_note(c->diag, at, "build it as FMI 3.0 (`sacc build --fmi 3`, or `fmi 3` after "
		          "the adaptation's `at`), which declares it as one array variable");
		any = true;
	}
	return any;
}

/* ---- array parameters of FMI 3.0 inners ------------------------------------------------ */

/* The language's type of an array parameter the wrapper exposes; TY_NONE for one it leaves
 * at its start values (not fixed or tunable, an Enumeration, Binary or Clock array, a size
 * not known or too large). */
static SaType array_param_type(const FmuVar *v)
{
	if (v->causality != CAUS_PARAMETER || v->ndims <= 0 || v->nelems <= 0 ||
	    v->nelems > SEMA_MAX_ELEMENTS ||
	    (v->variability != VAR_FIXED && v->variability != VAR_TUNABLE))
		return TY_NONE;
	switch (v->type) {
	case FT_REAL: case FT_FLOAT32: return TY_REAL;
	case FT_INTEGER: case FT_INT8: case FT_UINT8: case FT_INT16: case FT_UINT16:
	case FT_UINT32: case FT_INT64: case FT_UINT64: return TY_INTEGER;
	case FT_BOOLEAN: return TY_BOOL;
	case FT_STRING: return TY_STRING;
	default: return TY_NONE;
	}
}

int emit_array_param_elements(const FmuInfo *f)
{
	long long n = 0;
	for (int i = 0; i < f->nvars; i++)
		if (array_param_type(&f->vars[i]) != TY_NONE)
			n += f->vars[i].nelems;
	return n > INT_MAX / 2 ? INT_MAX / 2 : (int)n;
}

/* The k-th (0-based) start value of array v as text, NULL when it has none: a String's k-th
 * <Start>, else the k-th item of the start attribute's list. */
static const char *start_text(Arena *a, const FmuVar *v, long long k)
{
	const char *p = v->start;
	if (!p)
		return NULL;
	if (v->type == FT_STRING) {
		if (k >= v->nstarts)
			return NULL;
		for (long long i = 0; i < k; i++)
			p += strlen(p) + 1;
		return p;
	}
	for (long long i = 0; *p; i++) {
		p += strspn(p, " \t\n\r");
		if (!*p)
			break;
		size_t n = strcspn(p, " \t\n\r");
		if (i == k)
			return arena_printf(a, "%.*s", (int)n, p);
		p += n;
	}
	return NULL;
}

/* The start value of element k of v, whose language type is t; false when an Integer
 * cannot hold it. */
static bool element_start(Arena *a, const FmuVar *v, long long k, SaType t, EmitValue *out)
{
	const char *text = start_text(a, v, k);
	*out = (EmitValue){0};
	if (t == TY_STRING)
		out->s = text ? text : "";
	else if (text && t == TY_REAL)
		out->r = v->type == FT_FLOAT32 ? (double)strtof(text, NULL) : strtod(text, NULL);
	else if (text && t == TY_INTEGER)
		out->i = strtoll(text, NULL, 10);
	else if (text)
		out->b = strcmp(text, "true") == 0 || strcmp(text, "1") == 0;
	return t != TY_INTEGER || (out->i >= INT_MIN && out->i <= INT_MAX);
}

/* The reference the seam takes for the j-th exposed array-parameter element of an inner:
 * past the inner's own references, then past those its element ports and its Binary
 * arrays' elements may take (ec_element_vr numbers those from the same place). */
static uint32_t param_element_vr(const Inner *in, int j)
{
	uint32_t top = 0;
	long long reserved = in->nports;
	for (int i = 0; i < in->fmu->nvars; i++) {
		const FmuVar *v = &in->fmu->vars[i];
		if (v->vr > top)
			top = v->vr;
		if (v->type == FT_BINARY && v->ndims > 0 && v->nelems > 0)
			reserved += v->nelems;
	}
	return top + 1 + (uint32_t)reserved + (uint32_t)j;
}

void emit_add_array_param(Compilation *c, EmitLayout *l, int f, const FmuVar *fv)
{
	Arena *a = c->arena;
	const Inner *in = l->info->inners[f];
	SaType t = array_param_type(fv);
	if (t == TY_NONE || !in->fmu)
		return;
	EmitValue *starts = arena_alloc(a, (size_t)fv->nelems * sizeof *starts);
	bool fits = true; /* an Integer can hold every start value: else none is exposed (the
	                   * inner keeps its starts) but the bound elements are still set */
	for (long long k = 0; k < fv->nelems; k++)
		fits &= element_start(a, fv, k, t, &starts[k]);
	int before = 0;
	for (int i = 0; i < l->nvars; i++)
		before += l->vars[i].inner_index == f && l->vars[i].param_array != NULL;
	for (int i = 0; i < l->nbindings; i++)
		before += l->bindings[i].inner_index == f && l->bindings[i].param_array != NULL;
	for (long long k = 0; k < fv->nelems; k++) {
		const char *name = fmu_element_name(a, fv, k);
		const Node *b = emit_inner_binding(in, name);
		if (b) {
			l->bindings[l->nbindings++] = (EmitBinding){
				.name = b->name, .inner = in, .inner_index = f,
				.inner_vr = param_element_vr(in, before + (int)k), .type = t,
				.value = b->init, .param_array = fv, .param_index = (int)k};
			continue;
		}
		if (!fits)
			continue;
		EmitVar from = {.type = t, .variability = fv->variability, .start = starts[k],
		                .inner_vr = param_element_vr(in, before + (int)k),
		                .unit = t == TY_REAL ? fv->unit : NULL,
		                .description = fv->description, .param_array = fv,
		                .param_index = (int)k};
		emit_expose_inner_param(c, l, f, name, &from);
	}
}
