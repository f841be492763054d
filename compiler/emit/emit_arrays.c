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
 * FMI 2.0 wrapper has no array variables: building one is refused, naming the port. */
#include "emit.h"

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
		    v->causality != vars[at].causality || v->inner)
			return false;
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
