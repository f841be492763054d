/* emit_c_batch.c — the C emitter's batched do_steps (`sacc build --threads N`): a run of
 * consecutive do_step statements of the control rules on distinct inners that do not depend
 * on each other, written as one sart_do_step_batch call (runtime/sart_batch.c), which may
 * step those inners at once.
 *
 * A statement of the run is `do_step(f, ti, hi);` or `var x := do_step(f, ti, hi);` (one
 * declaration).  The run is independent when, numbered:
 *   (1) its inners are distinct;
 *   (2) no argument of a later do_step reads what an earlier one writes: the variables the
 *       earlier statements declare, an inner output, anything MapIn or MapOut writes (the
 *       arguments are all evaluated first); and no argument calls an FMU function
 *       (elapsed(f), ... read what a step changes);
 *   (3) the wrapper's MapIn and MapOut commute: the runtime runs every MapIn of the run
 *       before the first MapOut, so MapOut must write nothing MapIn reads or writes, read
 *       nothing MapIn writes, and write no inner input; MapIn must read no inner output;
 *       neither calls an FMU function.
 * Anything else stays a plain do_step, statement by statement, as without --threads. */
#include "emit_c_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What a part of the rules reads and writes: name and port-reference nodes. */
typedef struct EcAccess {
	const Node **reads, **writes;
	int nreads, nwrites, cap_r, cap_w;
	bool fmu_call;      /* calls a builtin that names an inner FMU */
} Access;

static void add(Ec *e, const Node ***v, int *n, int *cap, const Node *x)
{
	if (*n == *cap) {
		int c = *cap ? 2 * *cap : 16;
		const Node **nv = arena_alloc(e->c->arena, (size_t)c * sizeof *nv);
		if (*n)
			memcpy(nv, *v, (size_t)*n * sizeof *nv);
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
}

static void walk(Ec *e, Access *a, const Node *n);

static void walk_list(Ec *e, Access *a, const Node *n)
{
	for (; n; n = n->next)
		walk(e, a, n);
}

static void walk(Ec *e, Access *a, const Node *n)
{
	if (!n)
		return;
	if (n->kind == ND_NAME || n->kind == ND_PORT_REF) {
		add(e, &a->reads, &a->nreads, &a->cap_r, n);
		return;
	}
	if (n->kind == ND_ASSIGN && n->lhs &&
	    (n->lhs->kind == ND_NAME || n->lhs->kind == ND_PORT_REF)) {
		add(e, &a->writes, &a->nwrites, &a->cap_w, n->lhs);
		walk(e, a, n->rhs);
		return;
	}
	if (n->kind == ND_BUILTIN && n->name)
		a->fmu_call = true;
	for (int i = 0; i < AST_NCHILDREN; i++) {
		const Node *c = ast_child(n, i);
		if (ast_children[i].is_list)
			walk_list(e, a, c);
		else
			walk(e, a, c);
	}
}

/* Whether two name or port-reference nodes denote the same place. */
static bool same_place(const Node *a, const Node *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == ND_NAME)
		return a->decl && b->decl ? a->decl == b->decl
		                          : a->name && b->name && strcmp(a->name, b->name) == 0;
	return a->name && b->name && strcmp(a->name, b->name) == 0 &&
	       ((!a->owner && !b->owner) || (a->owner && b->owner && strcmp(a->owner, b->owner) == 0));
}

static bool meet(const Node *const *x, int nx, const Node *const *y, int ny)
{
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++)
			if (same_place(x[i], y[j]))
				return true;
	return false;
}

static bool any_sym(const Node *const *x, int n, int sym)
{
	for (int i = 0; i < n; i++)
		if (x[i]->kind == ND_PORT_REF && x[i]->sym == sym)
			return true;
	return false;
}

/* MapOut's accesses: the out rules' conditions and `->` parts; MapIn's: the in rules' `-->`
 * parts (emit_c.c, emit_rules). */
static void map_access(Ec *e, Access *in, Access *out)
{
	const Node *r = ec_rules_of(e, true);
	for (const Node *x = r ? r->list3 : NULL; x; x = x->next)
		walk(e, in, x->els);
	r = ec_rules_of(e, false);
	for (const Node *x = r ? r->list3 : NULL; x; x = x->next) {
		walk(e, out, x->cond);
		walk(e, out, x->then);
	}
}

/* (3), worked out once per adaptation; MapOut's accesses kept for (2). */
static bool maps_commute(Ec *e)
{
	if (e->batch_maps)
		return e->batch_maps > 0;
	Access *in = arena_alloc(e->c->arena, sizeof *in);
	Access *out = arena_alloc(e->c->arena, sizeof *out);
	memset(in, 0, sizeof *in);
	memset(out, 0, sizeof *out);
	map_access(e, in, out);
	e->map_in_access = in;
	e->map_out_access = out;
	bool ok = !in->fmu_call && !out->fmu_call &&
	          !meet(out->writes, out->nwrites, in->reads, in->nreads) &&
	          !meet(out->writes, out->nwrites, in->writes, in->nwrites) &&
	          !meet(in->writes, in->nwrites, out->reads, out->nreads) &&
	          !any_sym(out->writes, out->nwrites, SYM_INNER_IN) &&
	          !any_sym(in->reads, in->nreads, SYM_INNER_OUT);
	e->batch_maps = ok ? 1 : -1;
	return ok;
}

/* The do_step call of statement s and the declaration it initialises (NULL for a call
 * statement), or NULL when s is no do_step statement of the run's shape. */
static const Node *step_of(const Node *s, const Node **decl)
{
	const Node *c = NULL;
	*decl = NULL;
	if (s->kind == ND_CALL_STMT) {
		c = s->lhs;
	} else if (s->kind == ND_VAR && s->list1 && !s->list1->next) {
		c = s->list1->init;
		*decl = s->list1;
	}
	if (!c || c->kind != ND_BUILTIN || c->op != BI_DO_STEP || !c->name ||
	    ast_count(c->list1) != 2)
		return NULL;
	return c;
}

/* How many statements from s on form an independent run (0 or 1: none). */
static int run_length(Ec *e, const Node *s)
{
	const Node *steps[64], *decls[64];
	int n = 0;
	for (; s && n < 64; s = s->next, n++) {
		const Node *decl, *c = step_of(s, &decl);
		if (!c || !ec_inner_c(e, c->name))
			break;
		bool ok = true;
		for (int k = 0; k < n && ok; k++) /* (1) */
			ok = strcmp(steps[k]->name, c->name) != 0;
		Access args = {0};
		walk_list(e, &args, c->list1);
		ok = ok && !args.fmu_call && !any_sym(args.reads, args.nreads, SYM_INNER_OUT); /* (2) */
		for (int k = 0; k < n && ok; k++)
			for (int i = 0; i < args.nreads && ok; i++)
				ok = !(decls[k] && args.reads[i]->kind == ND_NAME &&
				       args.reads[i]->decl == decls[k]);
		const Access *mo = e->map_out_access, *mi = e->map_in_access;
		ok = ok && !(n && (meet(args.reads, args.nreads, mo->writes, mo->nwrites) ||
		                   meet(args.reads, args.nreads, mi->writes, mi->nwrites)));
		if (!ok)
			break;
		steps[n] = c;
		decls[n] = decl;
	}
	return n;
}

static void put(Ec *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Ec *e, const char *fmt, ...)
{
	va_list ap;
	for (int i = 0; i < e->depth; i++)
		sb_putc(e->o, '\t');
	va_start(ap, fmt);
	char buf[4096];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sb_puts(e->o, buf);
	sb_putc(e->o, '\n');
}

const Node *ec_batch(Ec *e, const Node *s)
{
	if (!e->info || e->info->threads < 2 || !maps_commute(e))
		return NULL;
	int n = run_length(e, s);
	if (n < 2)
		return NULL;
	StrBuf in, ti, hi;
	sb_init(&in);
	sb_init(&ti);
	sb_init(&hi);
	const Node *x = s, *last = s, *decl;
	for (int k = 0; k < n; k++, last = x, x = x->next) {
		const Node *c = step_of(x, &decl);
		sb_printf(&in, "%s%s", k ? ", " : "", ec_inner_c(e, c->name)->enumc);
		sb_printf(&ti, "%s%s", k ? ", " : "", ec_expr(e, c->list1, P_LOW));
		sb_printf(&hi, "%s%s", k ? ", " : "", ec_expr(e, c->list1->next, P_LOW));
	}
	int b = e->nbatches++;
	e->uses |= U_W | U_S;
	put(e, "static const unsigned sart_batch%d_inners[%d] = {%s};", b, n, sb_str(&in));
	put(e, "const double sart_batch%d_t[%d] = {%s};", b, n, sb_str(&ti));
	put(e, "const double sart_batch%d_h[%d] = {%s};", b, n, sb_str(&hi));
	put(e, "double sart_batch%d_taken[%d];", b, n);
	put(e, "sart_do_step_batch(w, s, %d, %d, sart_batch%d_inners, sart_batch%d_t, "
	       "sart_batch%d_h, sart_batch%d_taken);", b, n, b, b, b, b);
	x = s;
	for (int k = 0; k < n; k++, x = x->next) {
		step_of(x, &decl);
		if (!decl) {
			put(e, "(void)sart_batch%d_taken[%d];", b, k);
			continue;
		}
		const char *name = ec_local_c(e, decl->name);
		put(e, "double %s = sart_batch%d_taken[%d];", name, b, k);
		put(e, "(void)%s;", name);
	}
	sb_free(&in);
	sb_free(&ti);
	sb_free(&hi);
	return last;
}

void ec_batch_inner(Ec *e, StrBuf *o, const InnerC *ic)
{
	const FmuInfo *f = ic->in->fmu;
	FmuAbilities ab = f ? fmu_abilities(f, ic->in->me) : (FmuAbilities){0};
	if (e->info->threads > 1 && f &&
	    (ab.can_be_instantiated_only_once_per_process || ab.needs_execution_tool))
		sb_puts(o, "\t\t.serial = 1,\n");
}

void ec_batch_model(Ec *e, StrBuf *o)
{
	if (e->nbatches)
		sb_printf(o, "\t.threads = %d,\n\t.nbatches = %d,\n", e->info->threads, e->nbatches);
}
