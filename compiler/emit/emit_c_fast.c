/* emit_c_fast.c — the C emitter's fast paths: the fast step (SartModel.fast_step,
 * runtime/sart_wrapper.h), whether an adaptation has the simple form it needs
 * (fast_step_form, its preconditions numbered), and the straight-line In, Ctrl and Out it is
 * written as, each do_step through the inner's direct route (runtime/sart_fast_step.h); and
 * the importer's every-step calls written for the adaptation (SartModel.set_real, get_real,
 * do_step), which take the usual case themselves with the model's tables as constants. */
#include "emit_c_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explicit.h"

/* ---- the fast step --------------------------------------------------------------------------- */

/* The external value references of every type: the instance's is_set marks. */
static unsigned nmarks(const EmitLayout *l)
{
	unsigned n = 0;
	for (int t = 0; t < T_N; t++)
		n += ec_nvr(l, t);
	return n;
}

/* Whether n is the key variable kv (t, H). */
static bool is_keyvar(const Node *n, int kv)
{
	return n && n->kind == ND_KEYVAR && n->op == kv;
}

/* The inner stepped by `var x := do_step(f, t, H)`, or NULL when d is not that. */
static InnerC *plain_do_step(Ec *e, const Node *d)
{
	const Node *c = d->kind == ND_VARDECL ? d->init : NULL;
	if (!c || c->kind != ND_BUILTIN || c->op != BI_DO_STEP || ast_count(c->list1) != 2 ||
	    !is_keyvar(c->list1, KV_T) || !is_keyvar(c->list1->next, KV_BIG_H) || !c->name)
		return NULL;
	return ec_inner_c(e, c->name);
}

/* Whether st assigns inner port p of ic. */
static bool assigns_port(Ec *e, const Node *st, const InnerC *ic, const InnerPort *p)
{
	const Node *l = st->kind == ND_ASSIGN ? st->lhs : NULL;
	InnerC *lic;
	return l && l->kind == ND_PORT_REF && l->sym == SYM_INNER_IN &&
	       ec_inner_port_of(e, l, &lic) == p && lic == ic;
}

/* Whether every Real input of ic is assigned by a statement at the top level of an in
 * rule's `-->` part (every in rule's flag being 1, each runs on every do_step) or by one of
 * the control rules before `upto` (an internal coupling). */
static bool map_in_assigns_all(Ec *e, const InnerC *ic, const Node *upto)
{
	const Node *rules = ec_rules_of(e, true);
	for (int k = 0; k < ic->in->nports; k++) {
		const InnerPort *p = &ic->in->ports[k];
		if (!p->is_input || ic->slots[k].type != T_REAL)
			continue;
		bool found = false;
		for (const Node *r = rules ? rules->list3 : NULL; r && !found; r = r->next) {
			if (!r->els || r->els->kind != ND_BLOCK)
				continue;
			for (const Node *st = r->els->list1; st && !found; st = st->next)
				found = assigns_port(e, st, ic, p);
		}
		for (const Node *st = e->sa->a_ctrl->body->list1; st != upto && !found; st = st->next)
			found = assigns_port(e, st, ic, p);
		if (!found)
			return false;
	}
	return true;
}

/* The preconditions of the fast step (SartModel.fast_step), cited where they fail:
 *   1. no rule part calls the runtime (In, MapIn, MapOut, Out use no `w`), no condition
 *      blocks: the fast step leaves the runtime's bookkeeping (e, in_map) alone;
 *   2. every in rule's flag is the constant 1 (an assignment rule or `true`);
 *   3. Ctrl is `var x_i := do_step(f_i, t, H)` for distinct inners f_i, and assignments of
 *      inner inputs that call nothing (the internal couplings), then `return` of H, one
 *      x_i, or a min of x_i: an all-OK step returns H, so Out runs;
 *   4. each f_i has Real ports only, and MapIn assigns every one of its Real inputs at
 *      the top level of a `-->` part (so the whole port array goes in one set call);
 *   5. each f_i is an FMI 2.0 FMU run in process: only that back end of the seam has a
 *      direct route (an isolated inner has none).
 * Returns the stepped inners in Ctrl's order (n of them), or NULL. */
static InnerC **fast_step_form(Ec *e, int *n)
{
	const Node *ctrl = e->sa->a_ctrl;
	const Node *rules = ec_rules_of(e, true);
	*n = 0;
	for (int p = 0; p < 4; p++)
		if (e->part_uses[p] & U_W)
			return NULL; /* 1 */
	if (e->cond_blocks)
		return NULL; /* 1 */
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next)
		if (!(r->op == RULE_ASSIGN || (r->cond && r->cond->kind == ND_BOOL && r->cond->ival)))
			return NULL; /* 2 */
	if (!ctrl || ctrl->kind != ND_CTRL || !ctrl->body || !ctrl->body->list1)
		return NULL; /* 3 */
	InnerC **stepped = arena_alloc(e->c->arena, (size_t)(e->ninners + 1) * sizeof *stepped);
	const Node **at = arena_alloc(e->c->arena, (size_t)(e->ninners + 1) * sizeof *at);
	const Node *st = ctrl->body->list1;
	for (; st && st->next; st = st->next) {
		if (st->kind == ND_ASSIGN && st->lhs && st->lhs->kind == ND_PORT_REF &&
		    st->lhs->sym == SYM_INNER_IN) {
			unsigned uses = e->uses;
			e->uses = 0;
			(void)ec_expr(e, st->rhs, P_LOW);
			bool calls = e->uses & U_W;
			e->uses = uses;
			if (calls)
				return NULL; /* 3 */
			continue;
		}
		if (st->kind != ND_VAR || !st->list1)
			return NULL; /* 3 */
		for (const Node *d = st->list1; d; d = d->next) {
			InnerC *ic = plain_do_step(e, d);
			if (!ic)
				return NULL; /* 3 */
			for (int i = 0; i < *n; i++)
				if (stepped[i] == ic)
					return NULL; /* 3 */
			if (*n >= e->ninners)
				return NULL;
			at[*n] = st;
			stepped[(*n)++] = ic;
		}
	}
	if (!*n || st->kind != ND_RETURN || !st->lhs ||
	    !(is_keyvar(st->lhs, KV_BIG_H) || ec_passes_steps_up(ctrl->body, st->lhs)))
		return NULL; /* 3 */
	for (int i = 0; i < *n; i++) {
		const InnerC *ic = stepped[i];
		for (int dir = 0; dir < 2; dir++)
			if (ic->n[dir][T_INTEGER] || ic->n[dir][T_BOOLEAN] || ic->n[dir][T_STRING])
				return NULL; /* 4 */
		for (int k = 0; k < ic->in->nports; k++)
			if (ic->slots[k].type < 0)
				return NULL; /* 4 */
		if (!map_in_assigns_all(e, ic, at[i]))
			return NULL; /* 4 */
		if (ic->version != 2 || ic->in->isolated)
			return NULL; /* 5 */
	}
	return stepped;
}

/* do_step(f, t, H) of the fast step for inner ic: the inputs checked finite and set with one
 * call, the step, the outputs read with one call and checked finite, through the seam's
 * direct route (runtime/sart_fast_step.h); anything but SART_OK goes to sart_fast_rest at
 * that point, saying how far it got (0 nothing called, 1 set, 2 step, 3 get).  t and H are
 * the route's (SartFastRoute), so that nothing keeps a copy of them across the calls. */
static void emit_fast_do_step(Ec *e, StrBuf *out, const InnerC *ic)
{
	Arena *a = e->c->arena;
	int nin = ic->n[0][T_REAL], nout = ic->n[1][T_REAL];
	const char *in = arena_printf(a, "%s_in_real", ic->cname);
	const char *outs = arena_printf(a, "%s_out_real", ic->cname);
	const char *rest = arena_printf(a, "return sart_fast_rest(w, %s, ", ic->enumc);
	sb_printf(out, "/* do_step(%s, t, H) in the fast step (sart_fast_rest when not SART_OK). */\n",
		  ic->in->name);
	sb_printf(out, "static int fast_do_step_%s(SartWrapper *w, Storage *s, "
		  "SartFastRoute *sart_route)\n{\n", ic->cname);
	sb_printf(out, "\tconst SartInnerDirect *d = sart_route->direct[%s];\n", ic->enumc);
	sb_puts(out, "\tSartStatus st;\n");
	if (nin)
		sb_printf(out, "\tif (!sart_all_finite(s->%s, %d) || !sart_direct_ready(d))\n", in, nin);
	else
		sb_puts(out, "\tif (!sart_direct_ready(d))\n");
	sb_printf(out, "\t\t%s0, 0);\n", rest);
	if (nin) {
		sb_printf(out, "\tst = sart_direct_set_real(d, %s_vr, %d, s->%s);\n", in, nin, in);
		sb_printf(out, "\tif (st != SART_OK)\n\t\t%s1, st);\n", rest);
	}
	sb_puts(out, "\tst = sart_direct_do_step(d, sart_route->t, sart_route->H);\n");
	sb_printf(out, "\tif (st != SART_OK)\n\t\t%s2, st);\n", rest);
	if (nout) {
		sb_printf(out, "\tst = sart_direct_get_real(d, %s_vr, %d, s->%s);\n", outs, nout, outs);
		sb_printf(out, "\tif (st != SART_OK)\n\t\t%s3, st);\n", rest);
		sb_printf(out, "\tif (!sart_all_finite(s->%s, %d))\n\t\t%s3, 0);\n", outs, nout,
			  rest);
	}
	sb_printf(out, "\tsart_route->last[%s] = sart_route->t + sart_route->H;\n", ic->enumc);
	sb_puts(out, "\treturn 1;\n}\n\n");
}

/* Whether Ctrl's return value r (H, an x_i or a min of them) reads the step x_i declared
 * by d: the fast step keeps only those (a step nothing reads would be a variable set but
 * never used, which the wrapper's -Werror build refuses). */
static bool returns_step(const Node *r, const Node *d)
{
	if (r->kind == ND_BUILTIN && r->op == BI_MIN) {
		for (const Node *a = r->list1; a; a = a->next)
			if (returns_step(a, d))
				return true;
		return false;
	}
	return r->kind == ND_NAME && r->decl == d;
}

/* The fast step, when the adaptation has its form: the general path's In, Ctrl and Out in
 * the same order on the same Storage, with the rule parts called directly (static in this
 * file, the compiler inlines them) and each do_step through the seam's direct route.  After a
 * do_step that did not go with SART_OK, the rest is Ctrl as written (sart_do_step), so the
 * state is the general path's.  Returns whether it was written. */
bool ec_emit_fast_step(Ec *e, StrBuf *out)
{
	int n;
	InnerC **stepped = fast_step_form(e, &n);
	if (!stepped)
		return false;
	const Node *ctrl = e->sa->a_ctrl;
	const Node *ret = ast_last(ctrl->body->list1);
	StrBuf body;
	for (int k = 0; k < n; k++)
		emit_fast_do_step(e, out, stepped[k]);
	ec_begin_fn(e, &body, false, ctrl->body);
	sb_puts(out, "/* The fast step (sart_wrapper.h): In, Ctrl and Out of a plain step, straight "
		     "through. */\n");
	sb_puts(out, "static SartStatus fast_step(SartWrapper *w, void *sp, SartFastRoute *sart_route,\n"
		     "                            double t, double H)\n{\n");
	sb_puts(out, "\tStorage *s = sp;\n\tint sart_fast = 1;\n");
	int i = 0;
	for (const Node *st = ctrl->body->list1; st != ret; st = st->next)
		for (const Node *d = st->kind == ND_VAR ? st->list1 : NULL; d; d = d->next)
			if (returns_step(ret->lhs, d))
				sb_printf(out, "\tdouble %s = H;\n", ec_local_c(e, d->name));
	sb_puts(out, "\tin(w, s, t, H);\n");
	for (const Node *st = ctrl->body->list1; st != ret; st = st->next) {
		if (st->kind == ND_ASSIGN) {
			/* an internal coupling: on either path, as Ctrl runs it */
			e->o = out;
			e->depth = 1;
			ec_stmt(e, st);
			continue;
		}
		for (const Node *d = st->list1; d; d = d->next, i++) {
			const InnerC *ic = stepped[i];
			/* where the step it took goes: nowhere when the return does not read it */
			const char *x = returns_step(ret->lhs, d)
			                ? arena_printf(e->c->arena, "%s = ", ec_local_c(e, d->name)) : "";
			const char *ind = i ? "\t\t" : "\t";
			sb_printf(out, "\t/* do_step(%s, t, H) */\n", ic->in->name);
			if (i)
				sb_puts(out, "\tif (sart_fast) {\n");
			sb_printf(out, "%smap_in(w, s, t, H, H, 0.0);\n", ind);
			for (int k = 0; k < ic->in->nports; k++)
				if (ic->in->ports[k].is_input)
					sb_printf(out, "%ss->%s_in_real_assigned[%s] = 0;\n", ind, ic->cname,
						  ic->slots[k].enumc);
			sb_printf(out, "%sif (fast_do_step_%s(w, s, sart_route)) {\n", ind, ic->cname);
			sb_printf(out, "%s\tmap_out(w, s, t, H, H, 0.0);\n", ind);
			sb_printf(out, "%s} else {\n", ind);
			if (*x)
				sb_printf(out, "%s\t%ssart_route->taken;\n", ind, x);
			sb_printf(out, "%s\tsart_fast = 0;\n%s}\n", ind, ind);
			if (i) {
				sb_puts(out, "\t} else {\n");
				sb_printf(out, "\t\t%ssart_do_step(w, s, %s, t, H);\n", x, ic->enumc);
				sb_puts(out, "\t}\n");
			}
		}
	}
	/* the new time: where the stepped inners now stand (the last one's, as all's) */
	sb_printf(out, "\tif (sart_fast) {\n\t\tout(w, s, t, H);\n"
		  "\t\treturn sart_fast_commit(w, sart_route->last[%s], sizeof(Storage), %u);\n\t}\n",
		  stepped[n - 1]->enumc, nmarks(e->l));
	sb_printf(out, "\treturn sart_fast_end(w, %s);\n}\n\n", ec_expr(e, ret->lhs, P_LOW));
	sb_free(&body);
	e->o = NULL;
	return true;
}

/* ---- the importer's every-step calls ---------------------------------------------------------- */

void ec_emit_entries(Ec *e, StrBuf *out, bool fast, int nreal_in)
{
	const EmitLayout *l = e->l;
	uint32_t nreal = ec_nvr(l, T_REAL);
	if (nreal) {
		sb_puts(out, "/* Where each Real variable lives, by value reference: the importer's Real "
			     "gets and sets\n * between steps. */\n");
		sb_printf(out, "static const size_t real_offset[%u] = {\n", (unsigned)nreal);
		for (int i = 0; i < l->nvars; i++) {
			const EmitVar *v = &l->vars[i];
			if (ec_sart_type(v->type) == T_REAL)
				sb_printf(out, "\t[vr_%s] = offsetof(Storage, %s),\n", v->cname,
					  v->inner ? ec_inner_param_field(e, v->type, v->slot)
						   : ec_field_of(e, v->decl));
		}
		sb_puts(out, "};\n\n");
	}
	if (nreal_in)
		sb_printf(out, "/* The importer's Real sets (SartModel.set_real): the inputs (value "
			  "references below %d)\n * straight into the Storage; anything else on to the "
			  "runtime's set. */\n"
			  "static SartStatus set_real(void *instance, const SartVr vr[], size_t nvr, "
			  "const double value[])\n{\n"
			  "\treturn sart_set_reals(instance, vr, nvr, value, real_offset, %d, "
			  "sizeof(Storage), %u);\n}\n\n", nreal_in, nreal_in, nmarks(l));
	if (nreal)
		sb_printf(out, "/* The importer's Real gets (SartModel.get_real): straight from the "
			  "Storage when G is not\n * due; anything else on to the runtime's get. */\n"
			  "static SartStatus get_real(void *instance, const SartVr vr[], size_t nvr, "
			  "double value[])\n{\n"
			  "\treturn sart_get_reals(instance, vr, nvr, value, real_offset, %u, "
			  "sizeof(Storage));\n}\n\n", (unsigned)nreal);
	if (fast)
		sb_puts(out, "/* The importer's step (SartModel.do_step): the fast step when the "
			     "instance allows it,\n * else the runtime's step. */\n"
			     "static SartStatus do_step(void *instance, double t, double H, "
			     "int no_set_prior)\n{\n"
			     "\tSartView *v = sart_fast_step_view(instance, t, H);\n"
			     "\tif (v)\n"
			     "\t\treturn fast_step(instance, sart_storage_of(instance, sizeof(Storage)), "
			     "&v->route, t, H);\n"
			     "\treturn sart_core_do_step(instance, t, H, no_set_prior);\n}\n\n");
}
