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
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- name tables -------------------------------------------------------------------
 * The rules ask, per inner port, questions about every coupling, port or statement; with
 * thousands of inners a search per question made the stage quadratic, so the answers are
 * put in tables (NameIndex, util.h) first. */

static void out_of_memory(void)
{
	fputs("sacc: out of memory\n", stderr); /* as the arena says it */
	abort();
}

/* The key of port owner.name in a table: an owner is an identifier, without a '.'. */
static const char *port_key(Rewrite *w, const char *owner, const char *name)
{
	return arena_printf(w->c->arena, "%s.%s", owner, name);
}

static void add_key(Rewrite *w, NameIndex *ix, const char *owner, const char *name)
{
	if (name_index_add(ix, port_key(w, owner, name), 0))
		out_of_memory();
}

/* Every port that rw_assigns(stmts, ...) says is assigned, into ix. */
static void assigned_anywhere(Rewrite *w, NameIndex *ix, Node *stmts)
{
	for (Node *s = stmts; s; s = s->next)
		switch (s->kind) {
		case ND_ASSIGN:
			if (s->lhs->kind == ND_PORT_REF && s->lhs->owner)
				add_key(w, ix, s->lhs->owner, s->lhs->name);
			break;
		case ND_IF:
			for (Node *b = s; b; b = b->els && b->els->kind == ND_IF ? b->els : NULL) {
				assigned_anywhere(w, ix, b->then->list1);
				if (b->els && b->els->kind != ND_IF)
					assigned_anywhere(w, ix, b->els->list1);
			}
			break;
		case ND_FOR:
			assigned_anywhere(w, ix, s->then->list1);
			break;
		default:
			break;
		}
}

/* The inner inputs rw_inner_input_fed says are fed, into fed. */
static void fed_inputs(Rewrite *w, NameIndex *fed)
{
	Node *sa = w->sa;
	for (Node *cp = sa->a_couplings; cp; cp = cp->next)
		add_key(w, fed, cp->rhs->owner, cp->rhs->name);
	for (Node *ip = sa->a_inports; ip; ip = ip->next)
		if (ip->bind_dir == BIND_TO && ip->bind->owner)
			add_key(w, fed, ip->bind->owner, ip->bind->name);
	if (sa->a_ctrl && sa->a_ctrl->kind == ND_CTRL)
		assigned_anywhere(w, fed, sa->a_ctrl->body->list1);
	for (Node *r = sa->a_in_rules ? sa->a_in_rules->list3 : NULL; r; r = r->next)
		if (r->els && r->els->kind == ND_BLOCK)
			assigned_anywhere(w, fed, r->els->list1);
}

/* ---- 1. AddInPorts ------------------------------------------------------------------
 * Every inner input fed neither by a coupling, nor by a binding, nor by an assignment in
 * control rules or MapIn parts becomes an external input of the same name bound to it. */

static void rule_add_in_ports(Rewrite *w)
{
	NameIndex fed = {0};
	fed_inputs(w, &fed);
	AstTail ports = ast_tail(&w->sa->a_inports);
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (!p->is_input || name_index_find(&fed, port_key(w, in->name, p->name)) >= 0)
				continue; /* (1) fed already */
			int sym;
			Node *user = rw_lookup(w, p->name, &sym);
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
			ast_tail_append(&ports, port);
			rw_declared(w, port, SYM_INPORT);
		}
	}
	name_index_free(&fed);
}

/* ---- 2. AddInParams / 3. AddInVars --------------------------------------------------- */

static void rule_add_in_params(Rewrite *w)
{
	AstTail params = ast_tail(&w->sa->a_params);
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		const char *name = init_in_name(w, p->name);
		int sym;
		Node *old = rw_lookup(w, name, &sym);
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
		ast_tail_append(&params, d);
		rw_declared(w, d, SYM_PARAM);
	}
}

static void rule_add_in_vars(Rewrite *w)
{
	AstTail vars = ast_tail(&w->sa->a_in_vars);
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		const char *name = stored_in_name(w, p->name);
		int sym;
		Node *old = rw_lookup(w, name, &sym);
		if (old) {
			if (sym != SYM_IN_VAR)
				collision(w, old, sym, name, rw_printf(w, "the stored value of input '%s'",
									p->name));
			continue;
		}
		int psym;
		Node *param = rw_lookup(w, init_in_name(w, p->name), &psym);
		w->at = p->loc;
		Node *init = param && psym == SYM_PARAM ? rw_ref(w, param, SYM_PARAM)
						       : default_value(w, p->type, NULL);
		Node *d = rw_decl(w, name, p->type, init, DECL_IN);
		ast_tail_append(&vars, d);
		rw_declared(w, d, SYM_IN_VAR);
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
	AstTail trans_end = ast_tail(&trans), map_end = ast_tail(&map);
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		const char *stored = stored_in_name(w, p->name);
		int sym;
		Node *var = rw_lookup(w, stored, &sym);
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
			ast_tail_append(&trans_end, rw_assign(w, rw_ref(w, var, SYM_IN_VAR),
				rw_port(w, w->sa->name, p->name, p, SYM_INPORT)));
		if (p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN) {
			Node *value = rw_converted(w, rw_ref(w, var, SYM_IN_VAR),
						   p->converts ? p->scale : 1,
						   p->converts ? p->offset : 0);
			w->at = p->bind->loc;
			ast_tail_append(&map_end, rw_assign(w, rw_port(w, p->bind->owner, p->bind->name,
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
	NameIndex sources = {0}; /* the inner outputs couplings read */
	for (Node *cp = w->sa->a_couplings; cp; cp = cp->next)
		if (name_index_add(&sources, port_key(w, cp->lhs->owner, cp->lhs->name), 0))
			out_of_memory();
	AstTail ports = ast_tail(&w->sa->a_outports);
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			if (name_index_find(&sources, port_key(w, in->name, p->name)) >= 0)
				continue; /* (2) internal */
			int sym;
			Node *user = rw_lookup(w, p->name, &sym);
			if (user) {
				diag_error(w->c->diag, user->loc, "AddOutPorts: inner output '%s.%s' "
					   "needs an output port named '%s', which is already %s",
					   in->name, p->name, p->name, rw_sym_noun(sym));
				continue;
			}
			w->at = in->decl->loc;
			Node *port = rw_bound_port(w, in, p, BIND_FROM);
			port->scale = 1;
			ast_tail_append(&ports, port);
			rw_declared(w, port, SYM_OUTPORT);
		}
	}
	name_index_free(&sources);
}

/* ---- 7. AddOutParams / 8. AddOutVars -------------------------------------------------- */

/* Whether the declaration `name` the rule needs for inner output p is there already
 * (reported when it is of another kind than `want`, or made for another port). */
static bool out_decl_present(Rewrite *w, const Inner *in, const InnerPort *p, const char *name,
			     int want, const char *what)
{
	int sym;
	Node *old = rw_lookup(w, name, &sym);
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
	AstTail params = ast_tail(&w->sa->a_params);
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
			Node *d = rw_decl(w, name, p->type, init, DECL_PARAM);
			ast_tail_append(&params, d);
			rw_declared(w, d, SYM_PARAM);
		}
	}
}

static void rule_add_out_vars(Rewrite *w)
{
	AstTail vars = ast_tail(&w->sa->a_out_vars);
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
			Node *param = rw_lookup(w, init_out_name(w, in->name, p->name), &psym);
			w->at = in->decl->loc;
			Node *init = param && psym == SYM_PARAM ? rw_ref(w, param, SYM_PARAM)
							       : default_value(w, p->type, NULL);
			Node *d = rw_decl(w, name, p->type, init, DECL_OUT);
			ast_tail_append(&vars, d);
			rw_declared(w, d, SYM_OUT_VAR);
		}
	}
}

/* ---- 9. AddOutRule -------------------------------------------------------------------
 * Prepends `true -> { stored_f_p := f.p; ... } --> { sa.out := <converted stored>; ... }`. */

static void rule_add_out_rule(Rewrite *w)
{
	Node *trans = NULL, *map = NULL;
	AstTail trans_end = ast_tail(&trans), map_end = ast_tail(&map);
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *stored = stored_out_name(w, in->name, p->name);
			int sym;
			Node *var = rw_lookup(w, stored, &sym);
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
			ast_tail_append(&trans_end, rw_assign(w, rw_ref(w, var, SYM_OUT_VAR),
				rw_port(w, in->name, p->name, p->decl, SYM_INNER_OUT)));
		}
	}
	for (Node *o = w->sa->a_outports; o; o = o->next) {
		if (o->bind_dir != BIND_FROM || o->bind->sym != SYM_INNER_OUT)
			continue;
		const char *stored = stored_out_name(w, o->bind->owner, o->bind->name);
		int sym;
		Node *var = rw_lookup(w, stored, &sym);
		if (!var || sym != SYM_OUT_VAR || block_var(w->sa->a_out_rules, stored))
			continue; /* (1), (3) */
		w->at = o->bind->loc;
		Node *value = rw_converted(w, rw_ref(w, var, SYM_OUT_VAR), o->converts ? o->scale : 1,
					   o->converts ? o->offset : 0);
		w->at = o->loc;
		ast_tail_append(&map_end, rw_assign(w, rw_port(w, w->sa->name, o->name, o,
								 SYM_OUTPORT), value));
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
/* The ready inners of rw_inner_order, a binary heap of indexes, least on top. */
typedef struct Ready {
	int *at;
	int n;
} Ready;

static void ready_push(Ready *h, int i)
{
	int k = h->n++;
	for (; k > 0 && h->at[(k - 1) / 2] > i; k = (k - 1) / 2)
		h->at[k] = h->at[(k - 1) / 2];
	h->at[k] = i;
}

static int ready_pop(Ready *h)
{
	int top = h->at[0], last = h->at[--h->n], k = 0;
	for (;;) {
		int c = 2 * k + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->at[c + 1] < h->at[c])
			c++;
		if (last <= h->at[c])
			break;
		h->at[k] = h->at[c];
		k = c;
	}
	if (h->n)
		h->at[k] = last;
	return top;
}

int rw_inner_order(Arena *a, const SaInfo *info, int *order, bool *done)
{
	/* Kahn's algorithm taking the least-numbered ready inner each time (the order a scan
	 * for the first ready one gave), each coupling counted once, from tables of the
	 * couplings by source: linear but for the heap. */
	int n = info->ninners;
	int *indeg = arena_alloc(a, (size_t)n * sizeof *indeg);
	NameIndex index = {0};
	for (int i = 0; i < n; i++)
		if (name_index_add(&index, info->inners[i]->name, i))
			out_of_memory();
	int ncp = ast_count(info->sa->a_couplings);
	int *dst_of = arena_alloc(a, ((size_t)ncp + 1) * sizeof *dst_of);
	int *src_of = arena_alloc(a, ((size_t)ncp + 1) * sizeof *src_of);
	int *first = arena_alloc(a, ((size_t)n + 1) * sizeof *first); /* by source, counted */
	int *by_src = arena_alloc(a, ((size_t)ncp + 1) * sizeof *by_src);
	int k = 0;
	for (Node *cp = info->sa->a_couplings; cp; cp = cp->next, k++) {
		Inner *dst = cp->rhs->owner ? sema_inner(info, cp->rhs->owner) : NULL;
		dst_of[k] = src_of[k] = -1;
		if (!dst || !dst->mealy || !cp->lhs->owner || strcmp(cp->lhs->owner, cp->rhs->owner) == 0)
			continue;
		dst_of[k] = name_index_find(&index, dst->name);
		if (dst_of[k] >= 0)
			indeg[dst_of[k]]++;
		src_of[k] = name_index_find(&index, cp->lhs->owner);
		if (src_of[k] >= 0)
			first[src_of[k] + 1]++;
	}
	name_index_free(&index);
	for (int i = 0; i < n; i++)
		first[i + 1] += first[i];
	int *fill = arena_alloc(a, ((size_t)n + 1) * sizeof *fill);
	memcpy(fill, first, ((size_t)n + 1) * sizeof *fill);
	for (k = 0; k < ncp; k++)
		if (src_of[k] >= 0)
			by_src[fill[src_of[k]]++] = k;
	Ready ready = {arena_alloc(a, ((size_t)n + 1) * sizeof(int)), 0};
	for (int i = 0; i < n; i++)
		if (!done[i] && indeg[i] == 0)
			ready_push(&ready, i);
	int m = 0;
	while (ready.n) {
		int pick = ready_pop(&ready);
		done[pick] = true;
		order[m++] = pick;
		for (int e = first[pick]; e < first[pick + 1]; e++) {
			int d = dst_of[by_src[e]];
			if (d >= 0 && --indeg[d] == 0 && !done[d])
				ready_push(&ready, d);
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
	AstTail stmts_end = ast_tail(&stmts), steps_end = ast_tail(&steps);
	for (int k = 0; k < n; k++) {
		Inner *in = info->inners[order[k]];
		const char *hname = arena_printf(a, "H_%s", in->name);
		int sym;
		Node *user = rw_lookup(w, hname, &sym);
		if (user) {
			collision(w, user, sym, hname, arena_printf(a, "the step taken by '%s'", in->name));
			return;
		}
		w->at = in->decl->loc;
		Node *call = rw_fmu_call(w, BI_DO_STEP, in,
					 rw_list2(rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H)));
		Node *d = NULL;
		ast_tail_append(&stmts_end, rw_local(w, hname, TY_REAL, call, &d));
		ast_tail_append(&steps_end, rw_ref(w, d, SYM_LOCAL));
	}
	w->at = sa->loc;
	ast_tail_append(&stmts_end, rw_return(w, n == 1 ? steps : rw_builtin(w, BI_MIN, steps)));
	rw_set_control(w, stmts);
}

/* ---- 12. ImplementInternalBinding ---------------------------------------------------
 * For each coupling a.p -> b.q, before each do_step(b, ...) not preceded in its statement
 * list by an assignment to b.q, inserts b.q := a.p (converted). */

/* The couplings the rule implements (inner output to inner input), by the inner fed. */
typedef struct Couplings {
	Node **cp;       /* in the adaptation's order */
	NameIndex first; /* the inner fed -> the place in cp of its first coupling */
	int *next;       /* the place of the next coupling into the same inner, or -1 */
} Couplings;

/* The couplings into the inners one statement steps, as places in cp. */
typedef struct Stepped {
	const Couplings *cps;
	int *at;
	int n, cap;
} Stepped;

static void stepped_fn(Rewrite *w, Node **slot, void *arg)
{
	(void)w;
	Stepped *st = arg;
	Node *n = *slot;
	if (n->kind != ND_BUILTIN || n->op != BI_DO_STEP)
		return;
	for (int k = name_index_find(&st->cps->first, n->name); k >= 0; k = st->cps->next[k]) {
		if (st->n == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 8;
			st->at = realloc(st->at, (size_t)st->cap * sizeof *st->at);
			if (!st->at)
				out_of_memory();
		}
		st->at[st->n++] = k;
	}
}

static int by_place(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The couplings into what statement s itself (not a nested block) steps, in the
 * adaptation's order, each once. */
static void stmt_stepped(Rewrite *w, Node *s, Stepped *st)
{
	st->n = 0;
	switch (s->kind) {
	case ND_VAR:
	case ND_ASSIGN:
	case ND_CALL_STMT:
	case ND_RETURN: {
		Node *tmp = s;
		Node *next = s->next;
		s->next = NULL;
		walk_exprs(w, &tmp, stepped_fn, st);
		s->next = next;
		break;
	}
	case ND_IF:
		walk_exprs(w, &s->cond, stepped_fn, st);
		break;
	case ND_FOR:
		walk_exprs(w, &s->lhs, stepped_fn, st);
		walk_exprs(w, &s->rhs, stepped_fn, st);
		break;
	default:
		break;
	}
	if (st->n < 2)
		return;
	qsort(st->at, (size_t)st->n, sizeof *st->at, by_place);
	int m = 1;
	for (int i = 1; i < st->n; i++)
		if (st->at[i] != st->at[m - 1])
			st->at[m++] = st->at[i];
	st->n = m;
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

/* The ports if chain top assigns (assigns_port) among those assigned under stmts, its
 * then branch or a nested one's (where every port it assigns is assigned), into ix. */
static void note_if(Rewrite *w, NameIndex *ix, const Node *top, const Node *stmts)
{
	for (const Node *e = stmts; e; e = e->next)
		if (e->kind == ND_ASSIGN && e->lhs->kind == ND_PORT_REF && e->lhs->owner) {
			if (assigns_port(top, e->lhs->owner, e->lhs->name))
				add_key(w, ix, e->lhs->owner, e->lhs->name);
		} else if (e->kind == ND_IF) {
			note_if(w, ix, top, e->then->list1);
		}
}

/* The ports statement s assigns (assigns_port), into ix. */
static void note_assigned(Rewrite *w, NameIndex *ix, const Node *s)
{
	if (s->kind == ND_ASSIGN && s->lhs->kind == ND_PORT_REF && s->lhs->owner)
		add_key(w, ix, s->lhs->owner, s->lhs->name);
	else if (s->kind == ND_IF && s->els)
		note_if(w, ix, s, s->then->list1);
}

/* Inserts, in the statement list *list and the blocks under it, b.q := a.p before each
 * statement that steps b unless a statement before it in its list assigns b.q, for every
 * coupling a.p -> b.q in cps.  One pass over the statements, the couplings of each found
 * through the inners it steps, and the ports assigned so far kept in a table: a pass per
 * coupling over every statement was quadratic in the inners.  It inserts what that did:
 * before a statement, the couplings in the adaptation's order; and since no two couplings
 * feed one input (the checker's "fed twice"), an assignment inserted for one coupling
 * never stands in another's way, whichever of the two is inserted first. */
static void bind_in_list(Rewrite *w, const Couplings *cps, Node **list)
{
	NameIndex assigned = {0}; /* the ports the statements before *p assign */
	Stepped st = {cps, NULL, 0, 0};
	for (Node **p = list; *p; p = &(*p)->next) {
		Node *s = *p;
		if (s->kind == ND_IF) {
			bind_in_list(w, cps, &s->then->list1);
			if (s->els && s->els->kind == ND_BLOCK)
				bind_in_list(w, cps, &s->els->list1);
			else if (s->els) {
				Node *chain = s->els;
				while (chain && chain->kind == ND_IF) {
					bind_in_list(w, cps, &chain->then->list1);
					if (chain->els && chain->els->kind == ND_BLOCK)
						bind_in_list(w, cps, &chain->els->list1);
					chain = chain->els && chain->els->kind == ND_IF ? chain->els : NULL;
				}
			}
		} else if (s->kind == ND_FOR) {
			bind_in_list(w, cps, &s->then->list1);
		}
		stmt_stepped(w, s, &st);
		for (int i = 0; i < st.n; i++) {
			Node *cp = cps->cp[st.at[i]];
			if (name_index_find(&assigned, port_key(w, cp->rhs->owner, cp->rhs->name)) >= 0)
				continue; /* (1) an assignment to b.q earlier in this list wins */
			w->at = cp->loc;
			Node *src = rw_port(w, cp->lhs->owner, cp->lhs->name, cp->lhs->decl, SYM_INNER_OUT);
			Node *as = rw_coupled(w, cp, src);
			as->next = s;
			*p = as;
			p = &as->next;
			note_assigned(w, &assigned, as);
		}
		note_assigned(w, &assigned, s);
	}
	free(st.at);
	name_index_free(&assigned);
}

static void rule_implement_internal_binding(Rewrite *w)
{
	Node *ctrl = w->sa->a_ctrl;
	if (!ctrl || ctrl->kind != ND_CTRL)
		return; /* (1) no control rules: CreateCtrlRules failed and said why */
	int n = ast_count(w->sa->a_couplings);
	Couplings cps = {arena_alloc(w->c->arena, ((size_t)n + 1) * sizeof *cps.cp), {0},
			 arena_alloc(w->c->arena, ((size_t)n + 1) * sizeof *cps.next)};
	int *last = arena_alloc(w->c->arena, ((size_t)n + 1) * sizeof *last);
	int m = 0;
	for (Node *cp = w->sa->a_couplings; cp; cp = cp->next) {
		if (cp->lhs->sym != SYM_INNER_OUT || cp->rhs->sym != SYM_INNER_IN)
			continue;
		cps.cp[m] = cp;
		cps.next[m] = -1;
		int k = name_index_find(&cps.first, cp->rhs->owner);
		if (k < 0) {
			if (name_index_add(&cps.first, cp->rhs->owner, m))
				out_of_memory();
			k = m;
		} else {
			cps.next[last[k]] = m;
		}
		last[k] = m++;
	}
	if (m)
		bind_in_list(w, &cps, &ctrl->body->list1);
	name_index_free(&cps.first);
}

/* ---- 13. ReplacePortsRefsByVars -------------------------------------------------------
 * MapIn parts read stored inputs; control rules and Out parts read stored inner outputs. */

/* The part being rewritten: a stored variable's name put there must not be hidden by a
 * local of the part.  (A var of a rules block that would hide one is reported by AddInRule
 * or AddOutRule already.) */
typedef struct Part {
	Node *stmts;
	Node *reported; /* the last hiding local reported, so that it is reported once */
	/* The var or loop variable of each name declared anywhere under stmts (a name a rule
	 * writes there would mean that local, not the adaptation's own): locals[
	 * name_index_find(&names, name)], made on the first question (a search per stored
	 * name through a Ctrl of a local per inner was quadratic in the inners). */
	bool indexed;
	NameIndex names;
	Node **locals;
	int nlocals, cap;
} Part;

static void part_add(Rewrite *w, Part *part, const char *name, Node *local)
{
	if (!local || name_index_find(&part->names, name) >= 0)
		return; /* the first in statement order is the one reported */
	if (part->nlocals == part->cap) {
		int cap = part->cap ? 2 * part->cap : 16;
		Node **locals = arena_alloc(w->c->arena, (size_t)cap * sizeof *locals);
		if (part->nlocals)
			memcpy(locals, part->locals, (size_t)part->nlocals * sizeof *locals);
		part->locals = locals;
		part->cap = cap;
	}
	if (name_index_add(&part->names, name, part->nlocals))
		out_of_memory();
	part->locals[part->nlocals++] = local;
}

/* Every local under stmts into the part's table, in statement order, a block's before
 * those after it, a loop variable before its body's. */
static void part_index(Rewrite *w, Part *part, Node *stmts)
{
	for (Node *s = stmts; s; s = s->next)
		switch (s->kind) {
		case ND_VAR:
			for (Node *d = s->list1; d; d = d->next)
				part_add(w, part, d->name, d);
			break;
		case ND_IF:
			part_index(w, part, s->then->list1);
			if (s->els)
				part_index(w, part, s->els->kind == ND_IF ? s->els : s->els->list1);
			break;
		case ND_FOR:
			part_add(w, part, s->name, s->init);
			part_index(w, part, s->then->list1);
			break;
		default:
			break;
		}
}

static void part_free(Part *part)
{
	name_index_free(&part->names);
}

/* The local that would hide `stored` in the part, reported; NULL when there is none. */
static Node *hidden(Rewrite *w, Part *part, const char *stored, const char *purpose)
{
	if (!part->indexed) {
		part_index(w, part, part->stmts);
		part->indexed = true;
	}
	int i = name_index_find(&part->names, stored);
	Node *local = i >= 0 ? part->locals[i] : NULL;
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
	Node *var = rw_lookup(w, stored, &sym);
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
	Node *var = rw_lookup(w, stored, &sym);
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
		Part part = {.stmts = r->els->kind == ND_BLOCK ? r->els->list1 : NULL};
		walk_exprs(w, &r->els, fn, &part);
		part_free(&part);
	}
}

static void rule_replace_ports_refs_by_vars(Rewrite *w)
{
	Node *sa = w->sa;
	replace_in_rules(w, sa->a_in_rules, replace_inport_fn);
	if (sa->a_ctrl && sa->a_ctrl->kind == ND_CTRL) {
		Part part = {.stmts = sa->a_ctrl->body->list1};
		walk_exprs(w, &sa->a_ctrl->body, replace_inner_out_fn, &part);
		part_free(&part);
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
