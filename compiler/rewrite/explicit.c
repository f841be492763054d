/* explicit.c — the reduction of a checked adaptation to its explicit form (the thirteen
 * rules of the semantic-adaptation paper's section 5.3.1), after the lowering stage.
 *
 * After these rules no binding, no implicit port and no reference from control rules or
 * Out parts to an inner output remains: what is left maps one to one onto the In, MapIn,
 * Ctrl, MapOut and Out functions of the generated FMU.  Each rule is one function in the
 * table rw_rules, applied in that order; each node a rule makes carries the rule's name
 * (Node.origin) and the location of what it came from.  Every rule leaves alone what is
 * already in the form it would produce, which is what makes the reduction idempotent.
 * The rules run on the rewrite framework (rewrite.h), as the lowering does; what only
 * these rules need (the stored names, the statement walk) is here. */
#include "explicit.h"
#include "lower.h"

#include <ctype.h>
#include <string.h>

static char *upper(Arena *a, const char *s)
{
	char *u = arena_strdup(a, s);
	for (char *p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

static char *lower(Arena *a, const char *s)
{
	char *u = arena_strdup(a, s);
	for (char *p = u; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return u;
}

/* Reports that a name the rule must generate is taken by the user's declaration. */
static void collision(Rewrite *w, Node *user, int sym, const char *name, const char *purpose)
{
	diag_error(w->c->diag, user->loc, "%s: the name '%s' is needed for %s but is already %s",
		   w->rule, name, purpose, rw_sym_noun(sym));
	diag_note(w->c->diag, user->loc, "rename this declaration");
}

/* Reports that a name the rule must generate was generated already, by this rule or an
 * earlier one, for something else (the names differ in case, or split at another '_'). */
static void generated_twice(Rewrite *w, Loc loc, Node *old, const char *name, const char *purpose)
{
	diag_error(w->c->diag, loc, "%s: the name '%s' is needed for %s, but %s made it for "
		   "another port already", w->rule, name, purpose, old->origin);
	diag_note(w->c->diag, old->loc, "the other port is declared here; rename one of them");
}

/* The initial value of a generated declaration of type t: a copy of start (a literal,
 * converted to Real for a Real), else the type's zero (at w->at). */
static Node *default_value(Rewrite *w, SaType t, Node *start)
{
	if (start && start->kind != ND_ARRAY) {
		Node *v = rw_clone(w, start);
		v->origin = w->rule;
		if (t == TY_REAL && v->kind == ND_INT) {
			double d = (double)v->ival;
			v->kind = ND_REAL;
			v->rval = d;
			v->str = NULL;
		}
		return v;
	}
	switch (t) {
	case TY_INTEGER: return rw_int(w, 0);
	case TY_BOOL: return rw_bool(w, false);
	case TY_STRING: return rw_string(w, "");
	default: return rw_real(w, 0.0);
	}
}

static const char *stored_in_name(Rewrite *w, const char *port)
{
	return arena_printf(w->c->arena, "stored_%s_%s", lower(w->c->arena, w->sa->name), port);
}

static const char *init_in_name(Rewrite *w, const char *port)
{
	return arena_printf(w->c->arena, "INIT_%s_%s", upper(w->c->arena, w->sa->name),
			    upper(w->c->arena, port));
}

static const char *stored_out_name(Rewrite *w, const char *inner, const char *port)
{
	return arena_printf(w->c->arena, "stored_%s_%s", inner, port);
}

static const char *init_out_name(Rewrite *w, const char *inner, const char *port)
{
	return arena_printf(w->c->arena, "INIT_%s_%s", upper(w->c->arena, inner),
			    upper(w->c->arena, port));
}

/* ---- statement walking ------------------------------------------------------------ */

typedef void (*ExprFn)(Rewrite *w, Node **slot, void *arg);

/* Calls fn on every expression slot under n (assignment targets excluded). */
static void walk_exprs(Rewrite *w, Node **slot, ExprFn fn, void *arg);

static void walk_list(Rewrite *w, Node **list, ExprFn fn, void *arg)
{
	for (Node **p = list; *p; p = &(*p)->next)
		walk_exprs(w, p, fn, arg);
}

static void walk_exprs(Rewrite *w, Node **slot, ExprFn fn, void *arg)
{
	Node *n = *slot;
	if (!n)
		return;
	switch (n->kind) {
	case ND_BLOCK:
		walk_list(w, &n->list1, fn, arg);
		if (n->lhs)
			walk_exprs(w, &n->lhs, fn, arg);
		return;
	case ND_VAR:
		for (Node *d = n->list1; d; d = d->next)
			if (d->init)
				walk_exprs(w, &d->init, fn, arg);
		return;
	case ND_ASSIGN:
		walk_exprs(w, &n->rhs, fn, arg);
		return;
	case ND_CALL_STMT:
	case ND_RETURN:
		walk_exprs(w, &n->lhs, fn, arg);
		return;
	case ND_IF:
		walk_exprs(w, &n->cond, fn, arg);
		walk_exprs(w, &n->then, fn, arg);
		walk_exprs(w, &n->els, fn, arg);
		return;
	case ND_FOR:
		walk_exprs(w, &n->lhs, fn, arg);
		walk_exprs(w, &n->rhs, fn, arg);
		walk_exprs(w, &n->then, fn, arg);
		return;
	case ND_UNARY:
		walk_exprs(w, &n->lhs, fn, arg);
		break;
	case ND_BINARY:
		walk_exprs(w, &n->lhs, fn, arg);
		walk_exprs(w, &n->rhs, fn, arg);
		break;
	case ND_BUILTIN:
		if (n->op != BI_IS_SET && n->op != BI_DISCARD)
			walk_list(w, &n->list1, fn, arg);
		break;
	default:
		break;
	}
	fn(w, slot, arg);
}

/* Whether a statement list assigns (at its top level) target := <source>.  A NULL
 * source_owner matches a bare-name source; a NULL source matches any. */
static bool list_assigns(Node *stmts, const char *t_owner, const char *t_name,
			 const char *s_owner, const char *s_name)
{
	for (Node *s = stmts; s; s = s->next) {
		if (s->kind != ND_ASSIGN)
			continue;
		Node *l = s->lhs, *r = s->rhs;
		bool t_ok = strcmp(l->name, t_name) == 0 &&
			    (t_owner ? l->kind == ND_PORT_REF && l->owner && strcmp(l->owner, t_owner) == 0
				     : l->kind == ND_NAME);
		if (!t_ok)
			continue;
		if (!s_name)
			return true;
		if ((r->kind == ND_PORT_REF || r->kind == ND_NAME) && strcmp(r->name, s_name) == 0 &&
		    (!s_owner || (r->kind == ND_PORT_REF && r->owner && strcmp(r->owner, s_owner) == 0)))
			return true;
	}
	return false;
}

static Node *decl_named(Node *decls, const char *name)
{
	for (Node *d = decls; d; d = d->next)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

/* A var or loop variable named `name` declared anywhere under stmts, or NULL.  A name a
 * rule writes into those statements would mean that local, not the adaptation's own. */
static Node *local_named(Node *stmts, const char *name)
{
	for (Node *s = stmts; s; s = s->next) {
		Node *found = NULL;
		switch (s->kind) {
		case ND_VAR:
			found = decl_named(s->list1, name);
			break;
		case ND_IF:
			found = local_named(s->then->list1, name);
			if (!found && s->els)
				found = local_named(s->els->kind == ND_IF ? s->els : s->els->list1, name);
			break;
		case ND_FOR:
			found = strcmp(s->name, name) == 0 ? s->init : local_named(s->then->list1, name);
			break;
		default:
			break;
		}
		if (found)
			return found;
	}
	return NULL;
}

/* ---- 1. AddInPorts ------------------------------------------------------------------
 * Every inner input fed neither by a coupling, nor by a binding, nor by an assignment in
 * control rules or MapIn parts becomes an external input of the same name bound to it. */

static void rule_add_in_ports(Rewrite *w)
{
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (!p->is_input || rw_inner_input_fed(w, in, p))
				continue; /* (1) fed already */
			int sym;
			Node *user = rw_find_decl(w->sa, p->name, &sym);
			if (user) {
				diag_error(w->c->diag, user->loc,
					   "AddInPorts: inner input '%s.%s' has no source, and the "
					   "input port it needs is blocked: '%s' is already %s",
					   in->name, p->name, p->name, rw_sym_noun(sym));
				diag_note(w->c->diag, user->loc, "bind '%s.%s' to an input port, or feed "
					  "it in the in rules", in->name, p->name);
				continue;
			}
			w->at = in->decl->loc;
			Node *port = rw_bound_port(w, in, p, BIND_TO);
			/* The inner input's start value becomes the port's, and so its default. */
			port->init = rw_start_literal(w, in, p);
			w->sa->a_inports = ast_append(w->sa->a_inports, port);
		}
	}
}

/* ---- 2. AddInParams / 3. AddInVars --------------------------------------------------- */

static void rule_add_in_params(Rewrite *w)
{
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		const char *name = init_in_name(w, p->name);
		int sym;
		Node *old = rw_find_decl(w->sa, name, &sym);
		if (old) {
			const char *purpose = rw_printf(w, "the initial value of input '%s'", p->name);
			if (sym != SYM_PARAM)
				collision(w, old, sym, name, purpose);
			else if (old->origin)
				generated_twice(w, p->loc, old, name, purpose);
			continue; /* (1) present already */
		}
		w->at = p->loc;
		Node *d = rw_decl(w, name, p->type, default_value(w, p->type, p->init), DECL_PARAM);
		w->sa->a_params = ast_append(w->sa->a_params, d);
	}
}

static void rule_add_in_vars(Rewrite *w)
{
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		const char *name = stored_in_name(w, p->name);
		int sym;
		Node *old = rw_find_decl(w->sa, name, &sym);
		if (old) {
			if (sym != SYM_IN_VAR)
				collision(w, old, sym, name, rw_printf(w, "the stored value of input '%s'",
									p->name));
			continue;
		}
		int psym;
		Node *param = rw_find_decl(w->sa, init_in_name(w, p->name), &psym);
		w->at = p->loc;
		Node *init = param && psym == SYM_PARAM ? rw_ref(w, param, SYM_PARAM)
						       : default_value(w, p->type, NULL);
		w->sa->a_in_vars = ast_append(w->sa->a_in_vars, rw_decl(w, name, p->type, init, DECL_IN));
	}
}

/* A var of the rules block that would hide the stored variable `name` from the rule
 * AddInRule or AddOutRule prepends to it. */
static Node *block_var(Node *rules, const char *name)
{
	return rules ? decl_named(rules->list2, name) : NULL;
}

static bool rules_assign(Node *rules, const char *t_owner, const char *t_name,
			 const char *s_owner, const char *s_name)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next)
		if (r->then && list_assigns(r->then->list1, t_owner, t_name, s_owner, s_name))
			return true;
	return false;
}

/* Prepends `true -> { trans } --> { map }` to the rules block in *slot, made if need be. */
static void prepend_true_rule(Rewrite *w, Node **slot, int which, Node *trans, Node *map)
{
	w->at = w->sa->loc;
	Node *rules = rw_rules_block(w, slot, which);
	Node *r = rw_true_rule(w, rw_block(w, trans), rw_block(w, map));
	rules->list3 = ast_prepend(rules->list3, r);
}

/* ---- 4. AddInRule -------------------------------------------------------------------
 * Prepends `true -> { stored := sa.port; ... } --> { inner.port := stored; ... }`. */

static void rule_add_in_rule(Rewrite *w)
{
	Node *trans = NULL, *map = NULL;
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		const char *stored = stored_in_name(w, p->name);
		int sym;
		Node *var = rw_find_decl(w->sa, stored, &sym);
		if (!var || sym != SYM_IN_VAR)
			continue; /* (1) AddInVars reported why */
		Node *hides = block_var(w->sa->a_in_rules, stored);
		if (hides) {
			collision(w, hides, SYM_LOCAL, stored, rw_printf(w, "the stored value of "
									"input '%s'", p->name));
			continue; /* (3) a var of the in rules would take the assignments */
		}
		w->at = p->loc;
		if (!rules_assign(w->sa->a_in_rules, NULL, stored, w->sa->name, p->name))
			trans = ast_append(trans, rw_assign(w, rw_ref(w, var, SYM_IN_VAR),
				rw_port(w, w->sa->name, p->name, p, SYM_INPORT)));
		if (p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN) {
			Node *value = rw_converted(w, rw_ref(w, var, SYM_IN_VAR),
						   p->converts ? p->scale : 1,
						   p->converts ? p->offset : 0);
			w->at = p->bind->loc;
			map = ast_append(map, rw_assign(w, rw_port(w, p->bind->owner, p->bind->name,
								   p->bind->decl, SYM_INNER_IN), value));
		}
	}
	if (!trans && !map)
		return; /* (2) nothing to transfer: explicit already */
	prepend_true_rule(w, &w->sa->a_in_rules, 'i', trans, map);
}

/* ---- 5. RemoveInBindings ---------------------------------------------------------- */

static void rule_remove_in_bindings(Rewrite *w)
{
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		if (p->bind)
			p->bound_to = p->bind;
		p->bind_dir = BIND_NONE;
		p->bind = NULL;
	}
}

/* ---- 6. AddOutPorts ---------------------------------------------------------------
 * With no output ports declared, every inner output that feeds no internal coupling
 * becomes an external output of the same name bound to it. */

static void rule_add_out_ports(Rewrite *w)
{
	if (w->sa->a_outports)
		return; /* (1) declared by the user */
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			bool feeds = false;
			for (Node *cp = w->sa->a_couplings; cp && !feeds; cp = cp->next)
				feeds = strcmp(cp->lhs->owner, in->name) == 0 &&
					strcmp(cp->lhs->name, p->name) == 0;
			if (feeds)
				continue; /* (2) internal */
			int sym;
			Node *user = rw_find_decl(w->sa, p->name, &sym);
			if (user) {
				diag_error(w->c->diag, user->loc, "AddOutPorts: inner output '%s.%s' "
					   "needs an output port named '%s', which is already %s",
					   in->name, p->name, p->name, rw_sym_noun(sym));
				continue;
			}
			w->at = in->decl->loc;
			Node *port = rw_bound_port(w, in, p, BIND_FROM);
			port->scale = 1;
			w->sa->a_outports = ast_append(w->sa->a_outports, port);
		}
	}
}

/* ---- 7. AddOutParams / 8. AddOutVars -------------------------------------------------- */

/* Whether the declaration `name` the rule needs for inner output p is there already
 * (reported when it is of another kind than `want`, or made for another port). */
static bool out_decl_present(Rewrite *w, const Inner *in, const InnerPort *p, const char *name,
			     int want, const char *what)
{
	int sym;
	Node *old = rw_find_decl(w->sa, name, &sym);
	if (!old)
		return false;
	const char *purpose = rw_printf(w, "the %s of '%s.%s'", what, in->name, p->name);
	if (sym != want)
		collision(w, old, sym, name, purpose);
	else if (old->origin)
		generated_twice(w, p->decl ? p->decl->loc : in->decl->loc, old, name, purpose);
	return true;
}

static void rule_add_out_params(Rewrite *w)
{
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *name = init_out_name(w, in->name, p->name);
			if (out_decl_present(w, in, p, name, SYM_PARAM, "initial value"))
				continue; /* (1) present already */
			w->at = in->decl->loc;
			Node *init = default_value(w, p->type, rw_start_literal(w, in, p));
			w->sa->a_params = ast_append(w->sa->a_params,
						     rw_decl(w, name, p->type, init, DECL_PARAM));
		}
	}
}

static void rule_add_out_vars(Rewrite *w)
{
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *name = stored_out_name(w, in->name, p->name);
			if (out_decl_present(w, in, p, name, SYM_OUT_VAR, "stored value"))
				continue; /* (1) present already */
			int psym;
			Node *param = rw_find_decl(w->sa, init_out_name(w, in->name, p->name), &psym);
			w->at = in->decl->loc;
			Node *init = param && psym == SYM_PARAM ? rw_ref(w, param, SYM_PARAM)
							       : default_value(w, p->type, NULL);
			w->sa->a_out_vars = ast_append(w->sa->a_out_vars,
						       rw_decl(w, name, p->type, init, DECL_OUT));
		}
	}
}

/* ---- 9. AddOutRule -------------------------------------------------------------------
 * Prepends `true -> { stored_f_p := f.p; ... } --> { sa.out := <converted stored>; ... }`. */

static void rule_add_out_rule(Rewrite *w)
{
	Node *trans = NULL, *map = NULL;
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *stored = stored_out_name(w, in->name, p->name);
			int sym;
			Node *var = rw_find_decl(w->sa, stored, &sym);
			if (!var || sym != SYM_OUT_VAR)
				continue; /* (1) AddOutVars reported why */
			Node *hides = block_var(w->sa->a_out_rules, stored);
			if (hides) {
				collision(w, hides, SYM_LOCAL, stored, rw_printf(w, "the stored value "
					  "of '%s.%s'", in->name, p->name));
				continue; /* (3) a var of the out rules would take the assignments */
			}
			if (rules_assign(w->sa->a_out_rules, NULL, stored, in->name, p->name))
				continue; /* (2) present already */
			w->at = in->decl->loc;
			trans = ast_append(trans, rw_assign(w, rw_ref(w, var, SYM_OUT_VAR),
				rw_port(w, in->name, p->name, p->decl, SYM_INNER_OUT)));
		}
	}
	for (Node *o = w->sa->a_outports; o; o = o->next) {
		if (o->bind_dir != BIND_FROM || o->bind->sym != SYM_INNER_OUT)
			continue;
		const char *stored = stored_out_name(w, o->bind->owner, o->bind->name);
		int sym;
		Node *var = rw_find_decl(w->sa, stored, &sym);
		if (!var || sym != SYM_OUT_VAR || block_var(w->sa->a_out_rules, stored))
			continue; /* (1), (3) */
		w->at = o->bind->loc;
		Node *value = rw_converted(w, rw_ref(w, var, SYM_OUT_VAR), o->converts ? o->scale : 1,
					   o->converts ? o->offset : 0);
		w->at = o->loc;
		map = ast_append(map, rw_assign(w, rw_port(w, w->sa->name, o->name, o, SYM_OUTPORT),
						value));
	}
	if (!trans && !map)
		return;
	prepend_true_rule(w, &w->sa->a_out_rules, 'o', trans, map);
}

/* ---- 10. RemoveOutBindings ------------------------------------------------------------ */

static void rule_remove_out_bindings(Rewrite *w)
{
	for (Node *p = w->sa->a_outports; p; p = p->next) {
		if (p->bind)
			p->bound_to = p->bind;
		p->bind_dir = BIND_NONE;
		p->bind = NULL;
	}
}

static int inner_index(const SaInfo *info, const char *name)
{
	for (int i = 0; i < info->ninners; i++)
		if (strcmp(info->inners[i]->name, name) == 0)
			return i;
	return -1;
}

/* The inners in topological order of the couplings whose target is Mealy (CreateCtrlRules'
 * order, also the order of the wrapper's Init and G: see emit_c.c): order[0..m-1], with
 * done[i] set for each inner ordered.  m < ninners when a cycle leaves some out. */
int rw_inner_order(Arena *a, const SaInfo *info, int *order, bool *done)
{
	int n = info->ninners;
	int *indeg = arena_alloc(a, (size_t)n * sizeof *indeg);
	for (Node *cp = info->sa->a_couplings; cp; cp = cp->next) {
		Inner *dst = cp->rhs->owner ? sema_inner(info, cp->rhs->owner) : NULL;
		if (!dst || !dst->mealy || !cp->lhs->owner || strcmp(cp->lhs->owner, cp->rhs->owner) == 0)
			continue;
		for (int i = 0; i < n; i++)
			if (info->inners[i] == dst)
				indeg[i]++;
	}
	int m = 0;
	while (m < n) {
		int pick = -1;
		for (int i = 0; i < n && pick < 0; i++)
			if (!done[i] && indeg[i] == 0)
				pick = i;
		if (pick < 0)
			break;
		done[pick] = true;
		order[m++] = pick;
		for (Node *cp = info->sa->a_couplings; cp; cp = cp->next) {
			if (!cp->lhs->owner || strcmp(cp->lhs->owner, info->inners[pick]->name) != 0)
				continue;
			Inner *dst = cp->rhs->owner ? sema_inner(info, cp->rhs->owner) : NULL;
			if (!dst || !dst->mealy || dst == info->inners[pick])
				continue;
			for (int i = 0; i < n; i++)
				if (info->inners[i] == dst)
					indeg[i]--;
		}
	}
	return m;
}

/* ---- 11. CreateCtrlRules --------------------------------------------------------------
 * Without control rules, steps every inner FMU once, in topological order of the
 * couplings (an edge counts when its target is Mealy), and returns the smallest step. */

static void rule_create_ctrl_rules(Rewrite *w)
{
	Compilation *c = w->c;
	SaInfo *info = w->info;
	Node *sa = w->sa;
	if (sa->a_ctrl && sa->a_ctrl->kind != ND_CTRL_IMPLIED)
		return; /* (1) the user wrote control rules */
	int n = info->ninners;
	if (n == 0)
		return;
	Arena *a = c->arena;
	bool *done = arena_alloc(a, (size_t)n * sizeof *done);
	int *order = arena_alloc(a, (size_t)n * sizeof *order);
	int m = rw_inner_order(a, info, order, done);
	if (m < n) {
		/* Name one cycle.  Every inner left over is fed, through a coupling that counts,
		 * by another one left over: walking such couplings backwards from one of them
		 * comes round to an inner walked before, and the couplings walked since then
		 * are the cycle (inners merely downstream of it stay out of the message). */
		int *seen = arena_alloc(a, (size_t)n * sizeof *seen); /* walk position + 1 */
		Node **via = arena_alloc(a, (size_t)n * sizeof *via); /* coupling into it */
		int cur = 0, len = 0;
		while (done[cur])
			cur++;
		while (cur >= 0 && !seen[cur]) {
			seen[cur] = ++len;
			int pred = -1;
			for (Node *cp = sa->a_couplings; cp && pred < 0; cp = cp->next) {
				int si = inner_index(info, cp->lhs->owner);
				int di = inner_index(info, cp->rhs->owner);
				if (di == cur && si >= 0 && si != di && !done[si] && info->inners[di]->mealy) {
					pred = si;
					via[len - 1] = cp;
				}
			}
			cur = pred;
		}
		int from = cur >= 0 ? seen[cur] - 1 : len;
		StrBuf sb;
		sb_init(&sb);
		Node *first = NULL;
		for (Node *cp = sa->a_couplings; cp; cp = cp->next) {
			bool on_cycle = false;
			for (int k = from; k < len; k++)
				on_cycle |= via[k] == cp;
			if (on_cycle) {
				if (!first)
					first = cp;
				if (sb.len)
					sb_puts(&sb, ", ");
				sb_printf(&sb, "%s.%s -> %s.%s", cp->lhs->owner, cp->lhs->name,
					  cp->rhs->owner, cp->rhs->name);
			}
		}
		diag_error(c->diag, first ? first->loc : sa->loc,
			   "CreateCtrlRules: the inner fmus of '%s' form an algebraic loop and cannot "
			   "be ordered: %s", sa->name, sb_str(&sb));
		diag_note(c->diag, first ? first->loc : sa->loc,
			  "write control rules that solve the loop, or wrap it in a loop adaptation "
			  "(successive substitution with save_state and rollback)");
		sb_free(&sb);
		return;
	}
	Node *stmts = NULL, *steps = NULL;
	for (int k = 0; k < n; k++) {
		Inner *in = info->inners[order[k]];
		const char *hname = arena_printf(a, "H_%s", in->name);
		int sym;
		Node *user = rw_find_decl(sa, hname, &sym);
		if (user) {
			collision(w, user, sym, hname, arena_printf(a, "the step taken by '%s'", in->name));
			return;
		}
		w->at = in->decl->loc;
		Node *call = rw_fmu_call(w, BI_DO_STEP, in,
					 rw_list2(rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H)));
		Node *d = NULL;
		stmts = ast_append(stmts, rw_local(w, hname, TY_REAL, call, &d));
		steps = ast_append(steps, rw_ref(w, d, SYM_LOCAL));
	}
	w->at = sa->loc;
	rw_set_control(w, ast_append(stmts, rw_return(w, n == 1 ? steps
								: rw_builtin(w, BI_MIN, steps))));
}

/* ---- 12. ImplementInternalBinding ---------------------------------------------------
 * For each coupling a.p -> b.q, before each do_step(b, ...) not preceded in its statement
 * list by an assignment to b.q, inserts b.q := a.p (converted). */

typedef struct FindStep {
	const char *fmu;
	bool found;
} FindStep;

static void find_step_fn(Rewrite *w, Node **slot, void *arg)
{
	(void)w;
	FindStep *f = arg;
	Node *n = *slot;
	if (n->kind == ND_BUILTIN && n->op == BI_DO_STEP && strcmp(n->name, f->fmu) == 0)
		f->found = true;
}

/* Whether statement s itself (not a nested block) steps fmu. */
static bool stmt_steps(Rewrite *w, Node *s, const char *fmu)
{
	FindStep f = {fmu, false};
	switch (s->kind) {
	case ND_VAR:
	case ND_ASSIGN:
	case ND_CALL_STMT:
	case ND_RETURN: {
		Node *tmp = s;
		Node *next = s->next;
		s->next = NULL;
		walk_exprs(w, &tmp, find_step_fn, &f);
		s->next = next;
		return f.found;
	}
	case ND_IF:
		walk_exprs(w, &s->cond, find_step_fn, &f);
		return f.found;
	case ND_FOR:
		walk_exprs(w, &s->lhs, find_step_fn, &f);
		walk_exprs(w, &s->rhs, find_step_fn, &f);
		return f.found;
	default:
		return false;
	}
}

/* Whether statement s assigns b.q: an assignment, or an if chain that assigns it in
 * every branch (what rw_coupled writes for a coupling with a map). */
static bool assigns_port(const Node *s, const char *b, const char *q)
{
	if (s->kind == ND_ASSIGN)
		return s->lhs->kind == ND_PORT_REF && s->lhs->owner && strcmp(s->lhs->owner, b) == 0 &&
		       strcmp(s->lhs->name, q) == 0;
	if (s->kind != ND_IF || !s->els)
		return false;
	bool in_then = false, in_else = false;
	for (const Node *e = s->then->list1; e; e = e->next)
		in_then |= assigns_port(e, b, q);
	if (s->els->kind == ND_IF)
		in_else = assigns_port(s->els, b, q);
	else
		for (const Node *e = s->els->list1; e; e = e->next)
			in_else |= assigns_port(e, b, q);
	return in_then && in_else;
}

static void bind_in_list(Rewrite *w, Node **list, Node *cp)
{
	const char *b = cp->rhs->owner, *q = cp->rhs->name;
	for (Node **p = list; *p; p = &(*p)->next) {
		Node *s = *p;
		if (s->kind == ND_IF) {
			bind_in_list(w, &s->then->list1, cp);
			if (s->els && s->els->kind == ND_BLOCK)
				bind_in_list(w, &s->els->list1, cp);
			else if (s->els) {
				Node *chain = s->els;
				while (chain && chain->kind == ND_IF) {
					bind_in_list(w, &chain->then->list1, cp);
					if (chain->els && chain->els->kind == ND_BLOCK)
						bind_in_list(w, &chain->els->list1, cp);
					chain = chain->els && chain->els->kind == ND_IF ? chain->els : NULL;
				}
			}
		} else if (s->kind == ND_FOR) {
			bind_in_list(w, &s->then->list1, cp);
		}
		if (!stmt_steps(w, s, b))
			continue;
		/* (1) an assignment to b.q earlier in this list wins over the coupling */
		bool assigned = false;
		for (Node *e = *list; e != s; e = e->next)
			assigned |= assigns_port(e, b, q);
		if (assigned)
			continue;
		w->at = cp->loc;
		Node *src = rw_port(w, cp->lhs->owner, cp->lhs->name, cp->lhs->decl, SYM_INNER_OUT);
		Node *as = rw_coupled(w, cp, src);
		as->next = s;
		*p = as;
		p = &as->next;
	}
}

static void rule_implement_internal_binding(Rewrite *w)
{
	Node *ctrl = w->sa->a_ctrl;
	if (!ctrl || ctrl->kind != ND_CTRL)
		return; /* (1) no control rules: CreateCtrlRules failed and said why */
	for (Node *cp = w->sa->a_couplings; cp; cp = cp->next)
		if (cp->lhs->sym == SYM_INNER_OUT && cp->rhs->sym == SYM_INNER_IN)
			bind_in_list(w, &ctrl->body->list1, cp);
}

/* ---- 13. ReplacePortsRefsByVars -------------------------------------------------------
 * MapIn parts read stored inputs; control rules and Out parts read stored inner outputs. */

/* The part being rewritten: a stored variable's name put there must not be hidden by a
 * local of the part.  (A var of a rules block that would hide one is reported by AddInRule
 * or AddOutRule already.) */
typedef struct Part {
	Node *stmts;
	Node *reported; /* the last hiding local reported, so that it is reported once */
} Part;

/* The local that would hide `stored` in the part, reported; NULL when there is none. */
static Node *hidden(Rewrite *w, Part *part, const char *stored, const char *purpose)
{
	Node *local = local_named(part->stmts, stored);
	if (local && local != part->reported) {
		collision(w, local, SYM_LOCAL, stored, purpose);
		part->reported = local;
	}
	return local;
}

static void replace_inport_fn(Rewrite *w, Node **slot, void *arg)
{
	Node *n = *slot;
	if ((n->kind != ND_NAME && n->kind != ND_PORT_REF) || n->sym != SYM_INPORT)
		return;
	const char *stored = stored_in_name(w, n->name);
	int sym;
	Node *var = rw_find_decl(w->sa, stored, &sym);
	if (!var || sym != SYM_IN_VAR)
		return; /* (1) AddInVars reported why */
	if (hidden(w, arg, stored, arena_printf(w->c->arena, "the stored value of input '%s'",
						n->name)))
		return; /* (2) a local has the stored variable's name */
	w->at = n->loc;
	Node *r = rw_ref(w, var, SYM_IN_VAR);
	r->next = n->next;
	*slot = r;
}

static void replace_inner_out_fn(Rewrite *w, Node **slot, void *arg)
{
	Node *n = *slot;
	if (n->kind != ND_PORT_REF || n->sym != SYM_INNER_OUT)
		return;
	const char *stored = stored_out_name(w, n->owner, n->name);
	int sym;
	Node *var = rw_find_decl(w->sa, stored, &sym);
	if (!var || sym != SYM_OUT_VAR)
		return; /* (1) AddOutVars reported why */
	if (hidden(w, arg, stored, arena_printf(w->c->arena, "the stored value of '%s.%s'",
						n->owner, n->name)))
		return; /* (2) */
	w->at = n->loc;
	Node *r = rw_ref(w, var, SYM_OUT_VAR);
	r->next = n->next;
	*slot = r;
}

/* Rewrites the output functions (`-->` parts) of a rules block. */
static void replace_in_rules(Rewrite *w, Node *rules, ExprFn fn)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next) {
		if (!r->els)
			continue;
		Part part = {r->els->kind == ND_BLOCK ? r->els->list1 : NULL, NULL};
		walk_exprs(w, &r->els, fn, &part);
	}
}

static void rule_replace_ports_refs_by_vars(Rewrite *w)
{
	Node *sa = w->sa;
	replace_in_rules(w, sa->a_in_rules, replace_inport_fn);
	if (sa->a_ctrl && sa->a_ctrl->kind == ND_CTRL) {
		Part part = {sa->a_ctrl->body->list1, NULL};
		walk_exprs(w, &sa->a_ctrl->body, replace_inner_out_fn, &part);
	}
	replace_in_rules(w, sa->a_out_rules, replace_inner_out_fn);
}

/* Each rule looks at the whole adaptation (finds = RW_WHOLE): none lowers one form. */
const RwRule rw_rules[] = {
	{.name = "AddInPorts", .apply = rule_add_in_ports},
	{.name = "AddInParams", .apply = rule_add_in_params},
	{.name = "AddInVars", .apply = rule_add_in_vars},
	{.name = "AddInRule", .apply = rule_add_in_rule},
	{.name = "RemoveInBindings", .apply = rule_remove_in_bindings},
	{.name = "AddOutPorts", .apply = rule_add_out_ports},
	{.name = "AddOutParams", .apply = rule_add_out_params},
	{.name = "AddOutVars", .apply = rule_add_out_vars},
	{.name = "AddOutRule", .apply = rule_add_out_rule},
	{.name = "RemoveOutBindings", .apply = rule_remove_out_bindings},
	{.name = "CreateCtrlRules", .apply = rule_create_ctrl_rules},
	{.name = "ImplementInternalBinding", .apply = rule_implement_internal_binding},
	{.name = "ReplacePortsRefsByVars", .apply = rule_replace_ports_refs_by_vars},
	{.name = NULL},
};

/* The lowering stage runs first (lower.c): `sacc explicit --after` takes its rule names
 * and its own ("Lower") as well. */
bool rw_is_rule(const char *name)
{
	return lw_is_rule(name) || rw_rule_named(rw_rules, name);
}

int rw_explicit(Compilation *c, SaInfo *info, const char *after)
{
	if (info->explicit_done)
		return info->explicit_errors;
	info->explicit_done = true;
	info->explicit_errors = rw_run(rw_rules, c, info, after);
	return info->explicit_errors;
}
