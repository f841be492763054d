/* check_arrays.c — one element of an inner's array port named in the rules: `a.y[2]`,
 * `a.A[1,2]` (subscripts 1-based, as `sacc simulate` names its columns and as the checker
 * names the element ports it makes of an FMI 3.0 array, check_inner.c).  A name the
 * checker found no port for is explained here when it is an element: a subscript out of
 * the array's range (its place in the script, the array's size and dimensions), the wrong
 * number of subscripts, a port that is no array, or an array that has no element ports. */
#include "check_ctx.h"

#include <stdlib.h>
#include <string.h>

/* The subscripts of "y[2,3]" into sub (at most max); their count, 0 when malformed. */
static int parse_subscripts(const char *s, long long *sub, int max)
{
	int n = 0;
	while (n < max) {
		char *end;
		sub[n++] = strtoll(s, &end, 10);
		if (end == s)
			return 0;
		if (*end == ']')
			return n;
		if (*end != ',')
			return 0;
		s = end + 1;
	}
	return 0;
}

/* "'y[1]' to 'y[3]'", "'A[1,1]' to 'A[2,3]'": the first and the last element. */
static const char *bounds(Ctx *x, const char *base, const FmuVar *v)
{
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "'%s[", base);
	for (int d = 0; d < v->ndims; d++)
		sb_printf(&b, "%s1", d ? "," : "");
	sb_printf(&b, "]' to '%s[", base);
	for (int d = 0; d < v->ndims; d++)
		sb_printf(&b, "%s%lld", d ? "," : "", v->dims[d].size);
	sb_puts(&b, "]'");
	const char *r = arena_strdup(x->c->arena, sb_str(&b));
	sb_free(&b);
	return r;
}

bool chk_element_error(Ctx *x, const Inner *in, const Node *e)
{
	const char *open = strchr(e->name, '[');
	if (!open || !in->fmu)
		return false;
	const char *base = arena_printf(x->c->arena, "%.*s", (int)(open - e->name), e->name);
	const FmuVar *v = fmu_find_var(in->fmu, base);
	if (!v)
		return false; /* no such port at all: the caller says so */
	Loc at = chk_port_name_loc(e);
	char why[96];
	if (v->ndims == 0) {
		diag_error(x->c->diag, at, "port '%s' of inner fmu '%s' is not an array: it takes no "
		           "subscript", base, in->name);
		return true;
	}
	long long sub[32];
	int n = parse_subscripts(open + 1, sub, 32);
	if (n != v->ndims) {
		diag_error(x->c->diag, at, "port '%s' of inner fmu '%s' has %d dimension%s, not %d: "
		           "'%s%s' names one element", base, in->name, v->ndims,
		           v->ndims == 1 ? "" : "s", n, base,
		           v->ndims == 1 ? "[i]" : v->ndims == 2 ? "[i,j]" : "[i,j,...]");
		return true;
	}
	for (int d = 0; d < n; d++)
		if (v->dims[d].size > 0 && (sub[d] < 1 || sub[d] > v->dims[d].size)) {
			diag_error(x->c->diag, at, "subscript %lld of '%s.%s' is out of range: port '%s' "
			           "of inner fmu '%s' is %s, subscripts 1 to %lld", sub[d], in->name,
			           e->name, base, in->name, fmu_var_unsupported(v, why, sizeof why),
			           v->dims[d].size);
			diag_note(x->c->diag, at, "its elements are %s, row-major, counted from 1 in "
			          "each dimension", bounds(x, base, v));
			return true;
		}
	diag_error(x->c->diag, at, "port '%s' of inner fmu '%s' is %s, whose elements the "
	           "wrapper cannot reach one by one", base, in->name,
	           fmu_var_unsupported(v, why, sizeof why));
	return true;
}

/* The array parameter an element binding names, from "K[2]": base into *base. */
static const FmuVar *bound_array(Ctx *x, const Inner *in, const char *name, const char **base)
{
	const char *open = strchr(name, '[');
	*base = arena_printf(x->c->arena, "%.*s", (int)(open - name), name);
	return in->fmu ? fmu_find_var(in->fmu, *base) : NULL;
}

SaType chk_param_element(Ctx *x, const Inner *in, const Node *b)
{
	const char *base;
	const FmuVar *v = bound_array(x, in, b->name, &base);
	char why[96];
	if (!v || (v->causality != CAUS_PARAMETER && v->causality != CAUS_STRUCTURAL_PARAMETER) ||
	    (v->causality == CAUS_PARAMETER && v->variability != VAR_FIXED &&
	     v->variability != VAR_TUNABLE)) {
		if (v)
			diag_error(x->c->diag, b->loc, "'%s' of inner fmu '%s' is %s, not a parameter its "
			           "wrapper sets", base, in->name, chk_causality_words(v->causality));
		else
			diag_error(x->c->diag, b->loc, "inner fmu '%s' has no parameter '%s'", in->name,
			           base);
		return TY_NONE;
	}
	if (v->causality == CAUS_STRUCTURAL_PARAMETER || v->ndims == 0) {
		diag_error(x->c->diag, b->loc, "parameter '%s' of inner fmu '%s' is not an array: it "
		           "takes no subscript", base, in->name);
		return TY_NONE;
	}
	long long sub[32];
	int n = parse_subscripts(strchr(b->name, '[') + 1, sub, 32);
	if (n != v->ndims) {
		diag_error(x->c->diag, b->loc, "parameter '%s' of inner fmu '%s' has %d dimension%s, "
		           "not %d: '%s%s' names one element", base, in->name, v->ndims,
		           v->ndims == 1 ? "" : "s", n, base,
		           v->ndims == 1 ? "[i]" : v->ndims == 2 ? "[i,j]" : "[i,j,...]");
		return TY_NONE;
	}
	for (int d = 0; d < n; d++)
		if (v->dims[d].size > 0 && (sub[d] < 1 || sub[d] > v->dims[d].size)) {
			diag_error(x->c->diag, b->loc, "subscript %lld of '%s' is out of range: parameter "
			           "'%s' of inner fmu '%s' is %s, subscripts 1 to %lld", sub[d], b->name,
			           base, in->name, fmu_var_unsupported(v, why, sizeof why),
			           v->dims[d].size);
			diag_note(x->c->diag, b->loc, "its elements are %s, row-major, counted from 1 in "
			          "each dimension", bounds(x, base, v));
			return TY_NONE;
		}
	SaType t = v->type == FT_ENUMERATION ? TY_NONE : chk_fmu_sa_type(v->type);
	if (t == TY_NONE || v->nelems <= 0 || v->nelems > SEMA_MAX_ELEMENTS)
		diag_error(x->c->diag, b->loc, "parameter '%s' of inner fmu '%s' is %s, whose elements "
		           "cannot be bound", base, in->name, fmu_var_unsupported(v, why, sizeof why));
	return v->nelems > 0 && v->nelems <= SEMA_MAX_ELEMENTS ? t : TY_NONE;
}
