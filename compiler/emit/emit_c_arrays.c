/* emit_c_arrays.c — the C an FMI 3.0 wrapper with array ports needs (emit_arrays.c says how
 * an array port is laid out): for each FMI 3.0 inner whose array elements the wrapper
 * exchanges, the elements' table (runtime/sart_inner.h, SartVrElement), each element given
 * a value reference that none of the inner's variables has, so that the seam reads and
 * writes the whole array for them (the elements of a forwarded Binary array too, after the
 * element ports, emit_binary.c); and the model's spans (SartModel.spans), which the FMI
 * 3.0 skin reads to expand an array's value reference into its elements'. */
#include "emit_c_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value reference the wrapper gives the inner's k-th element port: past the largest
 * of the inner's own. */
uint32_t ec_element_vr(const FmuInfo *f, int k)
{
	uint32_t top = 0;
	for (int i = 0; i < f->nvars; i++)
		if (f->vars[i].vr > top)
			top = f->vars[i].vr;
	return top + 1 + (uint32_t)k;
}

/* The k-th (0-based) value of a start list "1 2 3", as text; NULL when it has none. */
static const char *start_item(Arena *a, const char *list, int k)
{
	const char *p = list;
	for (int i = 0; p && *p; i++) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " \t\n\r");
		if (i == k)
			return arena_printf(a, "%.*s", (int)n, p);
		p += n;
	}
	return NULL;
}

/* The element's start value as the seam takes it (a double; NAN when none). */
static const char *start_text(Ec *e, const FmuVar *v, int k)
{
	const char *s = v->start ? start_item(e->c->arena, v->start, k) : NULL;
	if (!s)
		return "NAN";
	if (strcmp(s, "true") == 0)
		return "1.0";
	if (strcmp(s, "false") == 0)
		return "0.0";
	char *end;
	double d = strtod(s, &end);
	return *end || !isfinite(d) ? "NAN" : ec_real_text(e, d);
}

/* A String element's start value as the seam takes it: "text", its length (the k-th of the
 * inner's <Start> values); NULL, 0 when it has none. */
static const char *string_start(Ec *e, const FmuVar *v, int k)
{
	const char *s = v->start;
	if (!s || k >= v->nstarts)
		return "NULL, 0";
	for (int i = 0; i < k; i++)
		s += strlen(s) + 1;
	return arena_printf(e->c->arena, "\"%s\", %lu", ec_c_string(e->c->arena, s),
	                    (unsigned long)strlen(s));
}

/* The value reference the wrapper gives the k-th element port of an inner adaptation (an
 * FMI 3.0 wrapper with arrays, sub its layout): past the largest of its own, the Binaries'
 * (which come after the Strings', emit_binary_vr3). */
uint32_t ec_element_vr3(const EmitLayout *sub, int k)
{
	return emit_vr3(sub, TY_STRING, sub->nstring) + (uint32_t)sub->nbinaries + 1 + (uint32_t)k;
}

/* The variable of an inner adaptation's layout named name, NULL when none. */
static const EmitVar *sub_var(const EmitLayout *sub, const char *name)
{
	for (int i = 0; sub && i < sub->nvars; i++)
		if (strcmp(sub->vars[i].name, name) == 0)
			return &sub->vars[i];
	return NULL;
}

/* The element table's entry for inner port k, or NULL when it is no array element. */
static const char *element_item(Ec *e, const InnerC *ic, const EmitLayout *sub, int k)
{
	const InnerPort *p = &ic->in->ports[k];
	if (ic->slots[k].type < 0)
		return NULL;
	if (ic->in->fmu) {
		if (p->elem <= 0)
			return NULL;
		const FmuVar *v = &ic->in->fmu->vars[p->fmu_var];
		if (v->type == FT_STRING)
			return arena_printf(e->c->arena, "{%u, %u, %d, %lld, NAN, %s}",
			                    (unsigned)ic->slots[k].vr, (unsigned)v->vr, p->elem - 1,
			                    v->nelems, string_start(e, v, p->elem - 1));
		return arena_printf(e->c->arena, "{%u, %u, %d, %lld, %s, NULL, 0}", (unsigned)ic->slots[k].vr,
		                    (unsigned)v->vr, p->elem - 1, v->nelems,
		                    start_text(e, v, p->elem - 1));
	}
	const EmitVar *v = sub_var(sub, p->var), *head = v;
	if (!v || !v->elems)
		return NULL;
	while (head->elems < 0)
		head--;
	return arena_printf(e->c->arena, "{%u, %u, %d, %d, NAN, NULL, 0}", (unsigned)ic->slots[k].vr,
	                    (unsigned)emit_vr3(sub, head->type, head->vr), (int)(v - head),
	                    head->elems);
}

/* The inner adaptation's layout (NULL for an FMU inner). */
static const EmitLayout *sub_layout(Ec *e, const InnerC *ic)
{
	return ic->in->adaptation ? emit_layout(e->c, ic->in->adaptation->info) : NULL;
}

/* The element table's entry for the wrapper's Binary b when it is an element of inner
 * ic's Binary array (emit_binary.c), else NULL. */
static const char *binary_item(Ec *e, const InnerC *ic, const EmitBinary *b)
{
	if (!b->elem || b->inner_index != (int)(ic - e->inners))
		return NULL;
	const char *bytes = "NULL, 0";
	size_t n = b->start ? strlen(b->start) : 0;
	if (n && n % 2 == 0) {
		StrBuf sb;
		sb_init(&sb);
		sb_putc(&sb, '"');
		for (size_t i = 0; i < n; i += 2)
			sb_printf(&sb, "\\x%c%c", b->start[i], b->start[i + 1]);
		sb_printf(&sb, "\", %lu", (unsigned long)n / 2);
		bytes = arena_strdup(e->c->arena, sb_str(&sb));
		sb_free(&sb);
	}
	return arena_printf(e->c->arena, "{%u, %u, %d, %lld, NAN, %s}", (unsigned)b->inner_vr,
	                    (unsigned)b->var->vr, b->elem - 1, b->var->nelems, bytes);
}

/* The element table's entry for the wrapper's variable v when it is an element of inner
 * ic's array parameter exposed whole (emit_arrays.c), else NULL. */
static const char *param_item(Ec *e, const InnerC *ic, const FmuVar *a, int inner_index,
                              uint32_t vr, int index)
{
	if (!a || inner_index != (int)(ic - e->inners))
		return NULL;
	return arena_printf(e->c->arena, a->type == FT_STRING ? "{%u, %u, %d, %lld, NAN, %s}"
	                                                      : "{%u, %u, %d, %lld, %s, NULL, 0}",
	                    (unsigned)vr, (unsigned)a->vr, index, a->nelems,
	                    a->type == FT_STRING ? string_start(e, a, index)
	                                         : start_text(e, a, index));
}

/* The entry of the i-th array-parameter element, exposed (i < nvars) or bound, or NULL. */
static const char *param_item_at(Ec *e, const InnerC *ic, int i)
{
	const EmitLayout *l = e->l;
	if (i < l->nvars)
		return param_item(e, ic, l->vars[i].param_array, l->vars[i].inner_index,
		                  l->vars[i].inner_vr, l->vars[i].param_index);
	const EmitBinding *b = &l->bindings[i - l->nvars];
	return param_item(e, ic, b->param_array, b->inner_index, b->inner_vr, b->param_index);
}

/* The places i for which param_item_at may give an entry: those of array parameters. */
static void find_array_params(Ec *e)
{
	if (e->array_params_ready)
		return;
	const EmitLayout *l = e->l;
	e->array_params = arena_alloc(e->c->arena, (size_t)(l->nvars + l->nbindings + 1) *
	                                               sizeof *e->array_params);
	for (int i = 0; i < l->nvars + l->nbindings; i++)
		if (i < l->nvars ? l->vars[i].param_array != NULL
		                 : l->bindings[i - l->nvars].param_array != NULL)
			e->array_params[e->narray_params++] = i;
	e->array_params_ready = true;
}

static int count_elements(Ec *e, const InnerC *ic)
{
	int n = 0;
	const EmitLayout *sub = sub_layout(e, ic);
	find_array_params(e);
	for (int j = 0; j < e->narray_params; j++)
		n += param_item_at(e, ic, e->array_params[j]) != NULL;
	for (int i = 0; i < e->l->nbinaries; i++)
		n += binary_item(e, ic, &e->l->binaries[i]) != NULL;
	if (!sub && !ic->in->fmu)
		return n;
	for (int k = 0; k < ic->in->nports; k++)
		n += element_item(e, ic, sub, k) != NULL;
	return n;
}

static void emit_elements(Ec *e, const InnerC *ic, StrBuf *o)
{
	Arena *a = e->c->arena;
	int n = count_elements(e, ic), at = 0;
	if (!n)
		return;
	const char **items = arena_alloc(a, (size_t)n * sizeof *items);
	const EmitLayout *sub = sub_layout(e, ic);
	for (int k = 0; (sub || ic->in->fmu) && k < ic->in->nports; k++) {
		const char *item = element_item(e, ic, sub, k);
		if (item)
			items[at++] = item;
	}
	for (int i = 0; i < e->l->nbinaries; i++) {
		const char *item = binary_item(e, ic, &e->l->binaries[i]);
		if (item)
			items[at++] = item;
	}
	for (int j = 0; j < e->narray_params; j++) {
		const char *item = param_item_at(e, ic, e->array_params[j]);
		if (item)
			items[at++] = item;
	}
	ec_put_list(o, arena_printf(a, "static const SartVrElement %s_elements[%d] = ", ic->cname,
	                            n), items, n, ";");
}

void ec_emit_elements_ref(Ec *e, const InnerC *ic, StrBuf *o)
{
	int n = count_elements(e, ic);
	if (n)
		sb_printf(o, "\t\t.elements = %s_elements,\n\t\t.nelements = %d,\n", ic->cname, n);
}

/* Whether the layout has an array of type t (T_*). */
static bool has_arrays(const EmitLayout *l, int t)
{
	for (int i = 0; i < l->nvars; i++)
		if (l->vars[i].elems && ec_sart_type(l->vars[i].type) == t)
			return true;
	return false;
}

/* Whether the wrapper forwards a Binary array. */
static bool has_binary_arrays(const EmitLayout *l)
{
	for (int i = 0; i < l->nbinaries; i++)
		if (l->binaries[i].elem)
			return true;
	return false;
}

/* The spans of the Binary value references (as those of the other types, below). */
static void emit_binary_spans(Ec *e, StrBuf *o)
{
	Arena *a = e->c->arena;
	const EmitLayout *l = e->l;
	const char **items = arena_alloc(a, (size_t)(l->nbinaries + 1) * sizeof *items);
	for (int i = 0; i < l->nbinaries; i++) {
		const EmitBinary *b = &l->binaries[i];
		items[i] = b->elem > 1 ? "0" : b->elem ? arena_printf(a, "%lld", b->var->nelems)
		                                       : "1";
	}
	sb_puts(o, "/* How many values each Binary value reference holds in the FMI 3.0 model "
	           "description:\n * 1 a scalar, N an array's first element, 0 a later one "
	           "(sart_wrapper.h). */\n");
	ec_put_list(o, arena_printf(a, "static const unsigned binary_spans[%d] = ", l->nbinaries),
	            items, l->nbinaries, ";");
}

void ec_emit_array_tables(Ec *e, StrBuf *o)
{
	Arena *a = e->c->arena;
	const EmitLayout *l = e->l;
	for (int i = 0; i < e->ninners; i++)
		emit_elements(e, &e->inners[i], o);
	for (int t = 0; t < T_N; t++) {
		if (!has_arrays(l, t))
			continue;
		int n = (int)ec_nvr(l, t);
		const char **items = arena_alloc(a, (size_t)(n + 1) * sizeof *items);
		for (int i = 0; i < l->nvars; i++) {
			const EmitVar *v = &l->vars[i];
			if (ec_sart_type(v->type) == t && (int)v->vr < n)
				items[v->vr] = v->elems < 0 ? "0" : v->elems ? arena_printf(a, "%d", v->elems)
				                                             : "1";
		}
		sb_printf(o, "/* How many values each %s value reference holds in the FMI 3.0 model "
		          "description:\n * 1 a scalar, N an array's first element, 0 a later one "
		          "(sart_wrapper.h). */\n", type_fmi[t]);
		ec_put_list(o, arena_printf(a, "static const unsigned %s_spans[%d] = ", type_word[t],
		                            n), items, n, ";");
	}
	if (has_binary_arrays(l))
		emit_binary_spans(e, o);
}

void ec_emit_spans_ref(Ec *e, StrBuf *o)
{
	if (!e->l->narrays)
		return;
	sb_puts(o, "\t.spans = {");
	for (int t = 0; t < T_N; t++)
		sb_printf(o, "%s%s%s", t ? ", " : "", has_arrays(e->l, t) ? type_word[t] : "NULL",
		          has_arrays(e->l, t) ? "_spans" : "");
	if (has_binary_arrays(e->l))
		sb_puts(o, ", binary_spans");
	sb_puts(o, "},\n");
}
