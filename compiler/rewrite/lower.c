/* lower.c — the lowering stage: the declarative layer (the shorthand forms of the
 * language) rewritten into ordinary control, in and out rules.
 *
 * Runs on a checked adaptation, before the explicit-form rules (driver.c, drv_reduce), on
 * the rewrite framework (rewrite.h): one rule per form, applied in the order of the table
 * lw_rules below, each in the family file of its kind of form (lower_forms.h lists them).
 * Each rule's preconditions are numbered comments that the code cites where it refuses.
 * The nodes a rule makes carry the rule's name (Node.origin), the location of the form
 * they come from, and the declaration they resolve to (decl/sym), as the checker would
 * have set them, so the explicit-form rules and the emitter treat them as if the user had
 * written them.  Generated names never collide with the user's: a rule that needs a name
 * already taken reports it at the user's declaration.  A form once lowered is gone from
 * the tree, which makes the stage idempotent and the printed result a plain script.
 *
 * This file holds the table and the helpers the families share. */
#include "lower.h"
#include "lower_forms.h"

#include <string.h>

/* ---- the stage ------------------------------------------------------------------------- */

/* In this order: the forms that generate the control rules first (a later one finds them
 * and refuses to combine), the crossings wrap whatever control rules there are, Otherwise
 * before Quantize (its `not (...)` may name zones), Implied last (a form that generates
 * control rules takes `implied` as none at all). */
const RwRule lw_rules[] = {
	{"MultiplyRate", lw_multiply_rate, RW_GENERAL_FORM, ND_MULTIRATE, "multiply rate"},
	{"SuccessiveSubstitution", lw_successive_substitution, RW_GENERAL_FORM, ND_SUBST,
	 "successive substitution"},
	{"Delay", lw_delay, RW_GENERAL_FORM, ND_DELAY, "delay"},
	{"Triggered", lw_triggered, RW_CONTROL_FORM, ND_CTRL_TRIGGERED, NULL},
	{"Periodic", lw_periodic, RW_CONTROL_FORM, ND_CTRL_PERIODIC, NULL},
	{"Multiplied", lw_multiplied, RW_CONTROL_FORM, ND_CTRL_MULTIPLIED, NULL},
	{.name = "Crossing", .apply = lw_crossing},
	{.name = "CrossingOut", .apply = lw_crossing_out},
	{.name = "Otherwise", .apply = lw_otherwise},
	{.name = "Quantize", .apply = lw_quantize},
	{.name = "Hold", .apply = lw_hold},
	{"Implied", lw_implied, RW_CONTROL_FORM, ND_CTRL_IMPLIED, NULL},
	{.name = NULL},
};

bool lw_is_rule(const char *name)
{
	return strcmp(name, LW_STAGE) == 0 || rw_rule_named(lw_rules, name);
}

int lw_lower(Compilation *c, SaInfo *info, const char *after)
{
	return rw_run(lw_rules, c, info, after);
}

/* ---- generated names -------------------------------------------------------------------- */

Node *lw_find_user(Node *sa, const char *name, int *sym)
{
	Node *d = rw_find_decl(sa, name, sym);
	if (d)
		return d;
	Node *blocks[] = {sa->a_in_rules, sa->a_out_rules};
	for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
		for (Node *n = blocks[i] ? blocks[i]->list2 : NULL; n; n = n->next)
			if (n->name && strcmp(n->name, name) == 0) {
				*sym = SYM_LOCAL;
				return n;
			}
	return NULL;
}

bool lw_fresh(Rewrite *w, const char *name, const char *purpose)
{
	int sym;
	Node *user = lw_find_user(w->sa, name, &sym);
	if (!user)
		return true;
	diag_error(w->c->diag, user->loc, "%s: the name '%s' is needed for %s but is already %s",
		   w->rule, name, purpose,
		   sym == SYM_LOCAL ? "a var of a rules block" : rw_sym_noun(sym));
	diag_note(w->c->diag, w->at, "the declarative form that needs it");
	w->failed = true;
	return false;
}

/* A new declaration (where: DECL_*) appended to *list, or NULL after a collision. */
static Node *new_var(Rewrite *w, Node **list, int where, const char *name, SaType type,
		     Node *init, const char *purpose)
{
	if (!lw_fresh(w, name, purpose))
		return NULL;
	Node *d = rw_decl(w, name, type, init, where);
	*list = ast_append(*list, d);
	return d;
}

Node *lw_new_ctrl_var(Rewrite *w, const char *name, SaType type, Node *init, const char *purpose)
{
	return new_var(w, &w->sa->a_ctrl_vars, DECL_CONTROL, name, type, init, purpose);
}

Node *lw_new_in_var(Rewrite *w, const char *name, SaType type, Node *init, const char *purpose)
{
	return new_var(w, &w->sa->a_in_vars, DECL_IN, name, type, init, purpose);
}

Node *lw_new_out_var(Rewrite *w, const char *name, SaType type, Node *init, const char *purpose)
{
	return new_var(w, &w->sa->a_out_vars, DECL_OUT, name, type, init, purpose);
}

Node *lw_new_local(Rewrite *w, const char *name, SaType type, Node *init, Node **decl)
{
	if (!lw_fresh(w, name, "a local of the generated control rules"))
		return NULL;
	return rw_local(w, name, type, init, decl);
}

/* ---- inner FMUs ---------------------------------------------------------------------------- */

Node *lw_start_value(Rewrite *w, const Inner *in, const InnerPort *p)
{
	Node *v = p->type == TY_REAL || p->type == TY_INTEGER ? rw_start_literal(w, in, p) : NULL;
	if (v)
		return v;
	return p->type == TY_INTEGER ? rw_int(w, 0) : rw_real(w, 0.0);
}

bool lw_can_rollback(const Inner *in, int depth)
{
	if (in->fmu)
		return fmu_abilities(in->fmu, in->me).can_get_and_set_fmu_state;
	if (!in->adaptation || depth > 16)
		return false;
	const SaInfo *sub = in->adaptation->info;
	if (!sub)
		return false;
	for (int i = 0; i < sub->ninners; i++)
		if (!lw_can_rollback(sub->inners[i], depth + 1))
			return false;
	return true;
}

bool lw_all_can_rollback(Rewrite *w, const char *why)
{
	bool all = true;
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		if (lw_can_rollback(in, 0))
			continue;
		diag_error(w->c->diag, w->at, "%s: inner fmu '%s' cannot save and restore its "
			   "state, and %s", w->rule, in->name, why);
		diag_note(w->c->diag, in->decl->loc, in->fmu ? "its model description says "
			  "canGetAndSetFMUstate=\"false\"" : "an fmu inside it cannot roll back");
		w->failed = true;
		all = false;
	}
	return all;
}

bool lw_torn(Node *cp, Node **cut, int ncut)
{
	for (int i = 0; i < ncut; i++)
		if (cut[i] == cp)
			return true;
	return false;
}

Inner **lw_step_order(Rewrite *w, Node **cut, int ncut)
{
	SaInfo *info = w->info;
	int n = info->ninners;
	Arena *a = w->c->arena;
	Inner **order = arena_alloc(a, (size_t)(n + 1) * sizeof *order);
	bool *done = arena_alloc(a, (size_t)(n + 1) * sizeof *done);
	for (int m = 0; m < n; m++) {
		int pick = -1;
		for (int i = 0; i < n && pick < 0; i++) {
			if (done[i])
				continue;
			bool ready = true;
			for (Node *cp = w->sa->a_couplings; cp && ready; cp = cp->next) {
				if (lw_torn(cp, cut, ncut) || !info->inners[i]->mealy ||
				    strcmp(cp->rhs->owner, info->inners[i]->name) != 0 ||
				    strcmp(cp->lhs->owner, cp->rhs->owner) == 0)
					continue;
				for (int j = 0; j < n; j++)
					if (!done[j] && strcmp(info->inners[j]->name, cp->lhs->owner) == 0)
						ready = false;
			}
			if (ready)
				pick = i;
		}
		if (pick < 0)
			return NULL;
		done[pick] = true;
		order[m] = info->inners[pick];
	}
	return order;
}

/* ---- generated control rules ---------------------------------------------------------- */

Node *lw_step_each(Rewrite *w, Inner **order, Node **steps)
{
	Node *stmts = NULL;
	*steps = NULL;
	for (int i = 0; i < w->info->ninners; i++) {
		Node *d = NULL;
		Node *call = rw_fmu_call(w, BI_DO_STEP, order[i],
					 rw_list2(rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H)));
		Node *v = lw_new_local(w, rw_printf(w, "H_%s", order[i]->name), TY_REAL, call, &d);
		if (!v)
			return NULL;
		stmts = ast_append(stmts, v);
		*steps = ast_append(*steps, rw_ref(w, d, SYM_LOCAL));
	}
	return stmts;
}

Node *lw_min_step(Rewrite *w, Node *steps)
{
	if (!steps)
		return rw_keyvar(w, KV_BIG_H);
	return steps->next ? rw_builtin(w, BI_MIN, steps) : steps;
}

Node *lw_micro_steps(Rewrite *w, Node *N, Inner **order)
{
	Node *step_d = NULL, *time_d = NULL, *micro_d = NULL;
	Node *step_v = lw_new_local(w, "micro_step", TY_REAL,
				    rw_binary(w, OP_DIV, rw_keyvar(w, KV_BIG_H), rw_clone(w, N)), &step_d);
	Node *time_v = lw_new_local(w, "inner_time", TY_REAL, rw_keyvar(w, KV_T), &time_d);
	if (w->failed || !lw_fresh(w, "micro", "the loop variable of the generated control rules"))
		return NULL;
	Node *loop = rw_for(w, "micro", rw_int(w, 0), rw_clone(w, N), &micro_d);
	for (int i = 0; i < w->info->ninners; i++) {
		Node *args = rw_list2(rw_ref(w, time_d, SYM_LOCAL), rw_ref(w, step_d, SYM_LOCAL));
		loop->then->list1 = ast_append(loop->then->list1,
			rw_call_stmt(w, rw_fmu_call(w, BI_DO_STEP, order[i], args)));
	}
	loop->then->list1 = ast_append(loop->then->list1,
		rw_assign(w, rw_ref(w, time_d, SYM_LOCAL),
			  rw_binary(w, OP_ADD, rw_ref(w, time_d, SYM_LOCAL),
				    rw_ref(w, step_d, SYM_LOCAL))));
	return ast_append(rw_list2(step_v, time_v), loop);
}

Node *lw_is_close(Rewrite *w, Node *a, Node *b, Node *rtol, Node *atol)
{
	Node *args = rw_list2(a, b);
	args->next->next = rtol ? rw_clone(w, rtol) : rw_real(w, 1e-5);
	args->next->next->next = atol ? rw_clone(w, atol) : rw_real(w, 1e-8);
	return rw_builtin(w, BI_IS_CLOSE, args);
}

/* ---- expressions and rules blocks ------------------------------------------------------ */

SaType lw_type_of(const Node *e)
{
	switch (e->kind) {
	case ND_INT: return TY_INTEGER;
	case ND_REAL: return TY_REAL;
	case ND_BOOL: return TY_BOOL;
	case ND_STRING: return TY_STRING;
	case ND_NAME: return e->decl ? e->decl->type : TY_NONE;
	case ND_BINARY:
		if (e->op == OP_DIV)
			return TY_REAL;
		if (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL)
			return lw_type_of(e->lhs) == TY_INTEGER && lw_type_of(e->rhs) == TY_INTEGER
				       ? TY_INTEGER : TY_REAL;
		return TY_BOOL;
	case ND_UNARY: return e->op == OP_NOT ? TY_BOOL : lw_type_of(e->lhs);
	case ND_BUILTIN:
		return e->op == BI_FLOOR || e->op == BI_CEIL ||
				       (e->op == BI_ROUND && ast_count(e->list1) == 1)
			       ? TY_INTEGER : TY_REAL;
	default: return TY_REAL;
	}
}

Node *lw_setting(const Node *settings, int which)
{
	for (const Node *s = settings; s; s = s->next)
		if (s->op == which)
			return s->lhs;
	return NULL;
}

Node **lw_cond_value(Node *r)
{
	if (r->cond->kind != ND_BLOCK)
		return &r->cond;
	Node *ret = ast_last(r->cond->list1);
	return ret && ret->kind == ND_RETURN ? &ret->lhs : NULL;
}
