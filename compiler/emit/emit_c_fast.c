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

static bool table_couples_before(Ec *e, const InnerC *ic, const InnerPort *p, int row);
static void emit_table_fast_step(Ec *e, StrBuf *out, const InnerC *last);

/* Whether every Real input of ic is assigned by a statement at the top level of an in
 * rule's `-->` part (every in rule's flag being 1, each runs on every do_step) or by one of
 * the control rules before `upto` (an internal coupling). */
static bool map_in_assigns_all(Ec *e, const InnerC *ic, const Node *upto, int row)
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
		for (const Node *st = e->sa->a_ctrl->body->list1; st != upto && !found && !e->table;
		     st = st->next)
			found = assigns_port(e, st, ic, p);
		if (!found && e->table)
			found = table_couples_before(e, ic, p, row);
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
		if (!map_in_assigns_all(e, ic, at[i], i))
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
	if (e->table) {
		emit_table_fast_step(e, out, stepped[n - 1]);
		return true;
	}
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

/* ---- the table form -------------------------------------------------------------------------- */

/* Ctrl and the fast step of a wrapper of many inners as a table (runtime/sart_wrapper.h,
 * SartStepTable): a row per do_step, run in a loop by the runtime (Ctrl) and by the fast
 * step, instead of statements per inner.  Unrolled, a thousand inners made a fast step of
 * 16,000 lines that gcc -O2 did not finish compiling; in rows, the C the compiler works
 * through does not grow with the inners, and the calls are the same, in the same order. */

/* The fewest inners for which the table form is written: below it a wrapper's C is what it
 * always was.  SACC_TABLE_INNERS overrides it (the tests force the table form on small
 * wrappers so as to compare it with the unrolled one). */
enum { TABLE_INNERS = 64 };

static int table_inners(void)
{
	const char *v = getenv("SACC_TABLE_INNERS");
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : -1;
	return n >= 1 && n <= 1000000 && !*end ? (int)n : TABLE_INNERS;
}

struct EcTable {
	int n;                     /* rows (do_steps) */
	InnerC **inner;            /* n */
	const Node **decl;         /* n: the var each row's step goes to */
	int *couple;               /* n + 1: the first coupling before each row's do_step (after the
	                            * row before it), then the first after the last row's */
	int *map_out;              /* n + 1: the first copy of each row's part of MapOut */
	bool *returned;            /* n */
	int ncouple, ncopies;
	const char **couple_text;  /* ncouple: a SartCoupling initializer */
	const Node **couple_stmt;  /* ncouple: its statement */
	NameIndex first_couple;    /* "inner.port": the first coupling into it (made on demand) */
	bool indexed;
	const char **copy_text;    /* ncopies: a SartCopy initializer; NULL: no partial MapOut */
};

/* The Storage member a Real expression stands for, when its C text is one ("s->x",
 * "s->a_out_real[a_out_y]"): what a copy between offsets may replace; else NULL. */
static const char *storage_member(Ec *e, const Node *n)
{
	if (!ec_is_real(e, n))
		return NULL;
	unsigned uses = e->uses;
	const char *c = ec_expr(e, n, P_LOW);
	e->uses = uses;
	if (strncmp(c, "s->", 3) != 0)
		return NULL;
	for (const char *p = c + 3; *p; p++)
		if (!(*p == '_' || *p == '[' || *p == ']' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return NULL;
	return c + 3;
}

/* `f.u := v` with u a Real input of inner f and v a Real Storage member: a SartCoupling's
 * initializer, else NULL. */
static const char *coupling_text(Ec *e, const Node *st)
{
	InnerC *ic;
	const InnerPort *p = st->lhs && st->lhs->kind == ND_PORT_REF &&
	                     st->lhs->sym == SYM_INNER_IN ? ec_inner_port_of(e, st->lhs, &ic) : NULL;
	const Slot *sl = p ? &ic->slots[p - ic->in->ports] : NULL;
	const char *src = sl && sl->type == T_REAL && p->type == TY_REAL ? storage_member(e, st->rhs)
	                                                                  : NULL;
	if (!src)
		return NULL;
	return arena_printf(e->c->arena, "{offsetof(Storage, %s_in_real[%s]), offsetof(Storage, %s), "
	                    "offsetof(Storage, %s_in_real_assigned[%s])}", ic->cname, sl->enumc, src,
	                    ic->cname, sl->enumc);
}

/* Whether statement list b is assignments whose left sides are inner inputs only. */
static bool assigns_inner_inputs_only(const Node *b)
{
	for (const Node *st = b; st; st = st->next)
		if (st->kind != ND_ASSIGN || !st->lhs || st->lhs->kind != ND_PORT_REF ||
		    st->lhs->sym != SYM_INNER_IN)
			return false;
	return true;
}

/* MapOut cut in parts, one per row (the fast step's copies, SartStepTable.copies): after a
 * whole MapOut, each statement of it gives the same value again until the inner it reads
 * steps, so running after each step only the statements that read that inner leaves the
 * Storage as MapOut whole would.  That holds when
 *   1. every out rule's flag is the constant 1, and each `->` statement is `v := f.y`, v a
 *      Real Storage member assigned by no other of them, f.y a Real output of an inner;
 *   2. MapIn and the couplings assign inner inputs only (so nothing between two MapOuts
 *      writes what MapOut writes), and an output changes only when its inner steps.
 * The fast step runs MapOut whole after its first step, the parts after the others.
 * Returns whether the copies were written into t. */
static bool map_out_parts(Ec *e, EcTable *t)
{
	const Node *in_rules = ec_rules_of(e, true), *out_rules = ec_rules_of(e, false);
	int n = 0;
	for (const Node *r = in_rules ? in_rules->list3 : NULL; r; r = r->next)
		if (r->els && (r->els->kind != ND_BLOCK || r->els->lhs ||
		               !assigns_inner_inputs_only(r->els->list1)))
			return false; /* 2 */
	for (const Node *r = out_rules ? out_rules->list3 : NULL; r; r = r->next) {
		if (!(r->op == RULE_ASSIGN || (r->cond && r->cond->kind == ND_BOOL && r->cond->ival)))
			return false; /* 1 */
		if (!r->then)
			continue;
		if (r->then->kind != ND_BLOCK || r->then->lhs)
			return false; /* 1 */
		n += ast_count(r->then->list1);
	}
	const char **dst = arena_alloc(e->c->arena, (size_t)(n + 1) * sizeof *dst);
	const char **text = arena_alloc(e->c->arena, (size_t)(n + 1) * sizeof *text);
	InnerC **owner = arena_alloc(e->c->arena, (size_t)(n + 1) * sizeof *owner);
	NameIndex dsts = {0};
	int k = 0;
	bool ok = true;
	for (const Node *r = out_rules ? out_rules->list3 : NULL; r && ok; r = r->next)
		for (const Node *st = r->then ? r->then->list1 : NULL; st && ok; st = st->next, k++) {
			const Node *src = st->kind == ND_ASSIGN ? st->rhs : NULL;
			ok = src && src->kind == ND_PORT_REF && src->sym == SYM_INNER_OUT &&
			     ec_inner_port_of(e, src, &owner[k]) != NULL; /* 1 */
			const char *from = ok ? storage_member(e, src) : NULL;
			dst[k] = ok && from ? storage_member(e, st->lhs) : NULL;
			ok = dst[k] && name_index_find(&dsts, dst[k]) < 0; /* 1 */
			if (ok && name_index_add(&dsts, dst[k], k) != 0)
				ok = false;
			if (ok)
				text[k] = arena_printf(e->c->arena, "{offsetof(Storage, %s), offsetof(Storage, %s)}",
				                       dst[k], from);
		}
	name_index_free(&dsts);
	if (!ok)
		return false;
	/* the copies by row: a statement reading an inner that Ctrl does not step has none */
	NameIndex rows = {0};
	for (int i = 0; i < t->n; i++)
		if (name_index_add(&rows, t->inner[i]->in->name, i) != 0)
			ok = false;
	int *row = arena_alloc(e->c->arena, (size_t)(n + 1) * sizeof *row);
	int *count = arena_alloc(e->c->arena, (size_t)(t->n + 1) * sizeof *count);
	for (int i = 0; i < n; i++) {
		row[i] = name_index_find(&rows, owner[i]->in->name);
		if (row[i] >= 0)
			count[row[i]]++;
	}
	name_index_free(&rows);
	if (!ok)
		return false;
	t->map_out[0] = 0;
	for (int i = 0; i < t->n; i++)
		t->map_out[i + 1] = t->map_out[i] + count[i];
	t->ncopies = t->map_out[t->n];
	t->copy_text = arena_alloc(e->c->arena, (size_t)(t->ncopies + 1) * sizeof *t->copy_text);
	for (int i = 0; i < t->n; i++)
		count[i] = t->map_out[i];
	for (int i = 0; i < n; i++)
		if (row[i] >= 0)
			t->copy_text[count[row[i]]++] = text[i];
	return true;
}

/* Whether r, Ctrl's return, is H, one of the steps or a min of steps in Ctrl's order (each
 * once), marking the rows it reads in t->returned. */
static bool table_return(const EcTable *t, const Node *r, NameIndex *rows)
{
	if (is_keyvar(r, KV_BIG_H))
		return true;
	const Node *one = r->kind == ND_NAME ? r : NULL;
	const Node *args = r->kind == ND_BUILTIN && r->op == BI_MIN ? r->list1 : one;
	int last = -1;
	for (const Node *a = args; a; a = one ? NULL : a->next) {
		int k = a->kind == ND_NAME && a->decl && a->decl->name ?
		        name_index_find(rows, a->decl->name) : -1;
		if (k <= last || t->decl[k] != a->decl)
			return false;
		t->returned[k] = true;
		last = k;
	}
	return last >= 0;
}

/* The table form of Ctrl, when the wrapper has many inners (table_inners) and its Ctrl
 *   1. is `var x_i := do_step(f_i, t, H)` of distinct inners, and couplings `f.u := v` of a
 *      Real input from a Real Storage member (coupling_text);
 *   2. returns H, one x_i, or a min of x_i in Ctrl's order (the runtime folds them so);
 *   3. without batched do_steps (`--threads`), which have their own form.
 * NULL otherwise. */
EcTable *ec_table_form(Ec *e)
{
	const Node *ctrl = e->sa->a_ctrl;
	if (e->ninners < table_inners() || (e->info && e->info->threads > 1))
		return NULL; /* 3 */
	if (!ctrl || ctrl->kind != ND_CTRL || !ctrl->body || !ctrl->body->list1)
		return NULL; /* 1 */
	Arena *a = e->c->arena;
	int nst = ast_count(ctrl->body->list1);
	EcTable *t = arena_alloc(a, sizeof *t);
	size_t cap = (size_t)nst + 1;
	t->inner = arena_alloc(a, cap * sizeof *t->inner);
	t->decl = arena_alloc(a, cap * sizeof *t->decl);
	t->couple = arena_alloc(a, (cap + 1) * sizeof *t->couple);
	t->map_out = arena_alloc(a, (cap + 1) * sizeof *t->map_out);
	t->returned = arena_alloc(a, cap * sizeof *t->returned);
	t->couple_text = arena_alloc(a, cap * sizeof *t->couple_text);
	t->couple_stmt = arena_alloc(a, cap * sizeof *t->couple_stmt);
	NameIndex rows = {0}, stepped = {0};
	bool ok = true;
	int prev = 0; /* the couplings before the previous row's do_step */
	const Node *st = ctrl->body->list1;
	for (; ok && st->next; st = st->next) {
		if (st->kind == ND_ASSIGN) {
			const char *c = coupling_text(e, st);
			ok = c != NULL; /* 1 */
			if (ok) {
				t->couple_stmt[t->ncouple] = st;
				t->couple_text[t->ncouple++] = c;
			}
			continue;
		}
		ok = st->kind == ND_VAR && st->list1; /* 1 */
		for (const Node *d = ok ? st->list1 : NULL; d && ok; d = d->next) {
			InnerC *ic = plain_do_step(e, d);
			ok = ic && d->name && name_index_find(&stepped, ic->in->name) < 0 &&
			     name_index_find(&rows, d->name) < 0; /* 1 */
			if (!ok)
				break;
			if (name_index_add(&stepped, ic->in->name, t->n) != 0 ||
			    name_index_add(&rows, d->name, t->n) != 0) {
				ok = false;
				break;
			}
			t->couple[t->n] = prev;
			prev = t->ncouple;
			t->inner[t->n] = ic;
			t->decl[t->n++] = d;
		}
	}
	t->couple[t->n] = prev;
	ok = ok && t->n && st->kind == ND_RETURN && st->lhs && table_return(t, st->lhs, &rows);
	name_index_free(&rows);
	name_index_free(&stepped);
	if (!ok)
		return NULL; /* 1, 2 */
	if (!map_out_parts(e, t))
		t->copy_text = NULL;
	return t;
}

/* What map_in_assigns_all asks of Ctrl, with the table: whether a coupling before row `row`
 * (the inner ic's do_step) assigns input p of ic, through an index made once instead of a
 * walk through Ctrl per inner (quadratic with thousands of inners). */
static bool table_couples_before(Ec *e, const InnerC *ic, const InnerPort *p, int row)
{
	EcTable *t = e->table;
	if (!t->indexed) {
		t->indexed = true;
		for (int k = 0; k < t->ncouple; k++) {
			const Node *l = t->couple_stmt[k]->lhs;
			InnerC *lic;
			if (ec_inner_port_of(e, l, &lic) &&
			    name_index_add(&t->first_couple, arena_printf(e->c->arena, "%s.%s",
			                                                  lic->in->name, l->name), k) != 0)
				return false;
		}
	}
	int k = name_index_find(&t->first_couple, arena_printf(e->c->arena, "%s.%s", ic->in->name,
	                                                       p->name));
	return k >= 0 && k < t->couple[row + 1];
}

/* The index of table_couples_before, freed once the emitter is done with the table. */
void ec_table_free(Ec *e)
{
	if (e->table)
		name_index_free(&e->table->first_couple);
}

/* The table (SartStepTable) and Ctrl in table form, in place of the statements of Ctrl. */
void ec_emit_table_ctrl(Ec *e, StrBuf *out)
{
	const EcTable *t = e->table;
	sb_puts(out, "/* Ctrl as a table (sart_wrapper.h, SartStepTable): its do_steps in order, "
		     "each with the\n * internal couplings written before it. */\n");
	sb_printf(out, "static const SartStepRow step_rows[%d] = {\n", t->n + 1);
	for (int k = 0; k <= t->n; k++) {
		if (k < t->n)
			sb_printf(out, "\t{%s, %d, %d, %d},\n", t->inner[k]->enumc, t->couple[k],
				  t->copy_text ? t->map_out[k] : 0, t->returned[k] ? 1 : 0);
		else
			sb_printf(out, "\t{0, %d, %d, 0},\n", t->couple[k], t->copy_text ? t->ncopies : 0);
	}
	sb_puts(out, "};\n\n");
	if (t->ncouple) {
		sb_printf(out, "static const SartCoupling step_couplings[%d] = {\n", t->ncouple);
		for (int k = 0; k < t->ncouple; k++)
			sb_printf(out, "\t%s,\n", t->couple_text[k]);
		sb_puts(out, "};\n\n");
	}
	if (t->copy_text && t->ncopies) {
		sb_puts(out, "/* MapOut by the inner it reads: the fast step's after each step but the "
			     "first. */\n");
		sb_printf(out, "static const SartCopy step_copies[%d] = {\n", t->ncopies);
		for (int k = 0; k < t->ncopies; k++)
			sb_printf(out, "\t%s,\n", t->copy_text[k]);
		sb_puts(out, "};\n\n");
	}
	sb_printf(out, "static const SartStepTable step_table = {%d, %d, step_rows, %s, %s};\n\n",
		  t->n, t->ncouple, t->ncouple ? "step_couplings" : "NULL",
		  t->copy_text && t->ncopies ? "step_copies" : "NULL");
	sb_puts(out, "/* Ctrl: the control rules; returns the step taken. */\n"
		     "static double ctrl(SartWrapper *w, void *sp, double t, double H)\n{\n"
		     "\treturn sart_step_rows(w, sp, &step_table, 0, 0.0, t, H);\n}\n\n");
}

/* The fast step in table form: In; for each row its couplings, MapIn, the do_step through
 * the direct route (sart_fast_do_step), MapOut (whole after the first, else the row's part
 * when it has been cut in parts); the couplings after the last row; Out.  Where a do_step
 * does not go with SART_OK, the rest of Ctrl runs from the next row on (sart_step_rows). */
static void emit_table_fast_step(Ec *e, StrBuf *out, const InnerC *last)
{
	const EcTable *t = e->table;
	sb_puts(out, "/* The fast step (sart_wrapper.h): In, Ctrl and Out of a plain step, Ctrl's "
		     "rows in a loop. */\n");
	sb_puts(out, "static SartStatus fast_step(SartWrapper *w, void *sp, SartFastRoute *sart_route,\n"
		     "                            double t, double H)\n{\n");
	sb_puts(out, "\tStorage *s = sp;\n\tin(w, s, t, H);\n");
	sb_printf(out, "\tfor (unsigned k = 0; k < %d; k++) {\n", t->n);
	sb_puts(out, "\t\tconst SartStepRow *r = &step_rows[k];\n");
	if (t->ncouple)
		sb_puts(out, "\t\tsart_couple_rows(s, step_couplings, r[0].couple, r[1].couple);\n");
	sb_puts(out, "\t\tmap_in(w, s, t, H, H, 0.0);\n"
		     "\t\tif (!sart_fast_do_step(w, s, sart_route, r->inner))\n"
		     "\t\t\treturn sart_fast_end(w, sart_step_rows(w, s, &step_table, k + 1, "
		     "sart_route->taken,\n\t\t\t                                            t, H));\n");
	if (t->copy_text)
		sb_puts(out, "\t\tif (k == 0)\n\t\t\tmap_out(w, s, t, H, H, 0.0);\n"
			     "\t\telse\n\t\t\tsart_copy_reals(s, step_copies, r[0].map_out, r[1].map_out);\n");
	else
		sb_puts(out, "\t\tmap_out(w, s, t, H, H, 0.0);\n");
	sb_puts(out, "\t}\n");
	if (t->couple[t->n] < t->ncouple)
		sb_printf(out, "\tsart_couple_rows(s, step_couplings, %d, %d);\n", t->couple[t->n],
			  t->ncouple);
	sb_printf(out, "\tout(w, s, t, H);\n"
		  "\treturn sart_fast_commit(w, sart_route->last[%s], sizeof(Storage), %u);\n}\n\n",
		  last->enumc, nmarks(e->l));
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
