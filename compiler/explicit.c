/* explicit.c — the reduction of a checked adaptation to its explicit form
 * (LANGUAGE.md section 5, the paper's section 5.3.1).
 *
 * After these rules no binding, no implicit port and no reference from control rules or
 * Out parts to an inner output remains: what is left maps one to one onto the In, MapIn,
 * Ctrl, MapOut and Out functions of the generated FMU.  Each rule is one function in the
 * table rw_rules, applied in that order; each node a rule makes carries the rule's name
 * (Node.origin) and the location of what it came from.  Every rule leaves alone what is
 * already in the form it would produce, which is what makes the reduction idempotent. */
#include "explicit.h"
#include "lower.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The rule being applied, for node origins and messages. */
typedef struct Rw {
	Compilation *c;
	SaInfo *info;
	Node *sa;
	const char *rule;
} Rw;

static Node *mk(Rw *w, NodeKind kind, Loc loc)
{
	Node *n = ast_new(w->c->arena, kind, loc);
	n->origin = w->rule;
	return n;
}

static Node *mk_name(Rw *w, Loc loc, const char *name, Node *decl, int sym)
{
	Node *n = mk(w, ND_NAME, loc);
	n->name = name;
	n->decl = decl;
	n->sym = sym;
	n->type = decl ? decl->type : TY_NONE;
	return n;
}

static Node *mk_ref(Rw *w, Loc loc, const char *owner, const char *name, Node *decl, int sym)
{
	Node *n = mk(w, ND_PORT_REF, loc);
	n->owner = owner;
	n->name = name;
	n->decl = decl;
	n->sym = sym;
	return n;
}

static Node *mk_assign(Rw *w, Loc loc, Node *lhs, Node *rhs)
{
	Node *n = ast_assign(w->c->arena, loc, lhs, rhs);
	n->origin = w->rule;
	return n;
}

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

/* A declaration at the adaptation's level with this name, and what it is. */
static Node *find_top(Node *sa, const char *name, int *sym)
{
	struct {
		Node *list;
		int sym;
	} lists[] = {
		{sa->a_inports, SYM_INPORT},   {sa->a_outports, SYM_OUTPORT},
		{sa->a_params, SYM_PARAM},     {sa->a_in_vars, SYM_IN_VAR},
		{sa->a_out_vars, SYM_OUT_VAR}, {sa->a_ctrl_vars, SYM_CTRL_VAR},
		{sa->a_inners, SYM_INNER},
	};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
		for (Node *n = lists[i].list; n; n = n->next)
			if (strcmp(n->name, name) == 0) {
				if (sym)
					*sym = lists[i].sym;
				return n;
			}
	return NULL;
}

static const char *sym_noun(int sym)
{
	switch (sym) {
	case SYM_INPORT: return "an input port";
	case SYM_OUTPORT: return "an output port";
	case SYM_PARAM: return "a parameter";
	case SYM_IN_VAR: return "an in var";
	case SYM_OUT_VAR: return "an out var";
	case SYM_CTRL_VAR: return "a control var";
	case SYM_INNER: return "an inner fmu";
	case SYM_LOCAL: return "a local var";
	default: return "a declaration";
	}
}

/* Reports that a name the rule must generate is taken by the user's declaration. */
static void collision(Rw *w, Node *user, int sym, const char *name, const char *purpose)
{
	diag_error(w->c->diag, user->loc, "%s: the name '%s' is needed for %s but is already %s",
		   w->rule, name, purpose, sym_noun(sym));
	diag_note(w->c->diag, user->loc, "rename this declaration");
}

/* Reports that a name the rule must generate was generated already, by this rule or an
 * earlier one, for something else (the names differ in case, or split at another '_'). */
static void generated_twice(Rw *w, Loc loc, Node *old, const char *name, const char *purpose)
{
	diag_error(w->c->diag, loc, "%s: the name '%s' is needed for %s, but %s made it for "
		   "another port already", w->rule, name, purpose, old->origin);
	diag_note(w->c->diag, old->loc, "the other port is declared here; rename one of them");
}

static Node *default_value(Rw *w, Loc loc, SaType t, Node *start)
{
	if (start && start->kind != ND_ARRAY) {
		Node *v = ast_clone(w->c->arena, start);
		v->origin = w->rule;
		if (t == TY_REAL && v->kind == ND_INT) {
			double d = (double)v->ival;
			v->kind = ND_REAL;
			v->rval = d;
			v->str = NULL;
		}
		return v;
	}
	Arena *a = w->c->arena;
	Node *v;
	switch (t) {
	case TY_INTEGER: v = ast_int(a, loc, 0); break;
	case TY_BOOL: v = ast_bool(a, loc, false); break;
	case TY_STRING: v = ast_string(a, loc, ""); break;
	default: v = ast_real(a, loc, 0.0); break;
	}
	v->origin = w->rule;
	return v;
}

/* A model-description start value as a literal of the port's type, or NULL. */
static Node *start_literal(Rw *w, Loc loc, const InnerPort *p)
{
	if (!p->decl || p->fmu_var < 0)
		return NULL;
	Inner *owner = NULL;
	for (int i = 0; i < w->info->ninners && !owner; i++)
		for (int k = 0; k < w->info->inners[i]->nports; k++)
			if (&w->info->inners[i]->ports[k] == p)
				owner = w->info->inners[i];
	if (!owner || !owner->fmu)
		return NULL;
	const char *s = owner->fmu->vars[p->fmu_var].start;
	if (!s)
		return NULL;
	Arena *a = w->c->arena;
	char *end;
	switch (p->type) {
	case TY_REAL: {
		double d = strtod(s, &end);
		return *end || end == s ? NULL : ast_real(a, loc, d);
	}
	case TY_INTEGER: {
		long long v = strtoll(s, &end, 10);
		return *end || end == s ? NULL : ast_int(a, loc, v);
	}
	case TY_BOOL:
		return ast_bool(a, loc, strcmp(s, "true") == 0 || strcmp(s, "1") == 0);
	case TY_STRING:
		return ast_string(a, loc, arena_strdup(a, s));
	default:
		return NULL;
	}
}

/* scale * x + offset, written the way a person would. */
static Node *converted(Rw *w, Node *x, double scale, double offset)
{
	Arena *a = w->c->arena;
	Node *e = x;
	if (scale != 1) {
		Node *k = ast_real(a, x->loc, scale);
		k->origin = w->rule;
		e = ast_binary(a, x->loc, OP_MUL, k, e);
		e->origin = w->rule;
	}
	if (offset != 0) {
		bool neg = offset < 0;
		Node *k = ast_real(a, x->loc, neg ? -offset : offset);
		k->origin = w->rule;
		e = ast_binary(a, x->loc, neg ? OP_SUB : OP_ADD, e, k);
		e->origin = w->rule;
	}
	return e;
}

static const char *stored_in_name(Rw *w, const char *port)
{
	return arena_printf(w->c->arena, "stored_%s_%s", lower(w->c->arena, w->sa->name), port);
}

static const char *init_in_name(Rw *w, const char *port)
{
	return arena_printf(w->c->arena, "INIT_%s_%s", upper(w->c->arena, w->sa->name),
			    upper(w->c->arena, port));
}

static const char *stored_out_name(Rw *w, const char *inner, const char *port)
{
	return arena_printf(w->c->arena, "stored_%s_%s", inner, port);
}

static const char *init_out_name(Rw *w, const char *inner, const char *port)
{
	return arena_printf(w->c->arena, "INIT_%s_%s", upper(w->c->arena, inner),
			    upper(w->c->arena, port));
}

/* ---- statement walking ------------------------------------------------------------ */

typedef void (*ExprFn)(Rw *w, Node **slot, void *arg);

/* Calls fn on every expression slot under n (assignment targets excluded). */
static void walk_exprs(Rw *w, Node **slot, ExprFn fn, void *arg);

static void walk_list(Rw *w, Node **list, ExprFn fn, void *arg)
{
	for (Node **p = list; *p; p = &(*p)->next)
		walk_exprs(w, p, fn, arg);
}

static void walk_exprs(Rw *w, Node **slot, ExprFn fn, void *arg)
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

/* Whether any statement anywhere under stmts assigns owner.name. */
static bool assigns_anywhere(Node *stmts, const char *owner, const char *name)
{
	for (Node *s = stmts; s; s = s->next) {
		if (s->kind == ND_ASSIGN && s->lhs->kind == ND_PORT_REF && s->lhs->owner &&
		    strcmp(s->lhs->owner, owner) == 0 && strcmp(s->lhs->name, name) == 0)
			return true;
		if (s->kind == ND_IF && (assigns_anywhere(s->then->list1, owner, name) ||
					 (s->els && (s->els->kind == ND_IF
							     ? assigns_anywhere(s->els, owner, name)
							     : assigns_anywhere(s->els->list1, owner, name)))))
			return true;
		if (s->kind == ND_FOR && assigns_anywhere(s->then->list1, owner, name))
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

static bool inner_input_fed(Rw *w, const Inner *in, const InnerPort *p)
{
	Node *sa = w->sa;
	for (Node *c = sa->a_couplings; c; c = c->next)
		if (strcmp(c->rhs->owner, in->name) == 0 && strcmp(c->rhs->name, p->name) == 0)
			return true;
	for (Node *ip = sa->a_inports; ip; ip = ip->next)
		if (ip->bind_dir == BIND_TO && ip->bind->owner && strcmp(ip->bind->owner, in->name) == 0 &&
		    strcmp(ip->bind->name, p->name) == 0)
			return true;
	if (sa->a_ctrl && sa->a_ctrl->kind == ND_CTRL &&
	    assigns_anywhere(sa->a_ctrl->body->list1, in->name, p->name))
		return true;
	if (sa->a_in_rules)
		for (Node *r = sa->a_in_rules->list3; r; r = r->next)
			if (r->els && r->els->kind == ND_BLOCK &&
			    assigns_anywhere(r->els->list1, in->name, p->name))
				return true;
	return false;
}

static void rule_add_in_ports(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddInPorts"};
	for (int i = 0; i < info->ninners; i++) {
		Inner *in = info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (!p->is_input || inner_input_fed(&w, in, p))
				continue; /* (1) fed already */
			int sym;
			Node *user = find_top(w.sa, p->name, &sym);
			if (user) {
				diag_error(c->diag, user->loc,
					   "AddInPorts: inner input '%s.%s' has no source, and the "
					   "input port it needs is blocked: '%s' is already %s",
					   in->name, p->name, p->name, sym_noun(sym));
				diag_note(c->diag, user->loc, "bind '%s.%s' to an input port, or feed it "
					  "in the in rules", in->name, p->name);
				continue;
			}
			Node *port = mk(&w, ND_PORT, in->decl->loc);
			port->name = p->name;
			port->type = p->type;
			if (p->unit) {
				port->unit = mk(&w, ND_UNIT, in->decl->loc);
				port->unit->str = p->unit;
			}
			/* The inner input's start value becomes the port's, and so its default. */
			port->init = start_literal(&w, in->decl->loc, p);
			if (port->init)
				port->init->origin = w.rule;
			port->bind_dir = BIND_TO;
			port->bind = mk_ref(&w, in->decl->loc, in->name, p->name, p->decl, SYM_INNER_IN);
			w.sa->a_inports = ast_append(w.sa->a_inports, port);
		}
	}
}

/* ---- 2. AddInParams / 3. AddInVars --------------------------------------------------- */

static void rule_add_in_params(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddInParams"};
	for (Node *p = w.sa->a_inports; p; p = p->next) {
		const char *name = init_in_name(&w, p->name);
		int sym;
		Node *old = find_top(w.sa, name, &sym);
		if (old) {
			const char *purpose = arena_printf(c->arena, "the initial value of input '%s'",
							   p->name);
			if (sym != SYM_PARAM)
				collision(&w, old, sym, name, purpose);
			else if (old->origin)
				generated_twice(&w, p->loc, old, name, purpose);
			continue; /* (1) present already */
		}
		Node *d = mk(&w, ND_VARDECL, p->loc);
		d->name = name;
		d->type = p->type;
		d->op = DECL_PARAM;
		d->init = default_value(&w, p->loc, p->type, p->init);
		w.sa->a_params = ast_append(w.sa->a_params, d);
	}
}

static void rule_add_in_vars(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddInVars"};
	for (Node *p = w.sa->a_inports; p; p = p->next) {
		const char *name = stored_in_name(&w, p->name);
		int sym;
		Node *old = find_top(w.sa, name, &sym);
		if (old) {
			if (sym != SYM_IN_VAR)
				collision(&w, old, sym, name, arena_printf(c->arena,
					  "the stored value of input '%s'", p->name));
			continue;
		}
		int psym;
		Node *param = find_top(w.sa, init_in_name(&w, p->name), &psym);
		Node *d = mk(&w, ND_VARDECL, p->loc);
		d->name = name;
		d->type = p->type;
		d->op = DECL_IN;
		d->init = param && psym == SYM_PARAM
				  ? mk_name(&w, p->loc, param->name, param, SYM_PARAM)
				  : default_value(&w, p->loc, p->type, NULL);
		w.sa->a_in_vars = ast_append(w.sa->a_in_vars, d);
	}
}

static Node *rules_block(Rw *w, Node **slot, int which)
{
	if (!*slot) {
		*slot = mk(w, ND_RULES, w->sa->loc);
		(*slot)->op = which;
	}
	return *slot;
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

static Node *true_rule(Rw *w, Node *trans, Node *map)
{
	Node *r = mk(w, ND_RULE, w->sa->loc);
	r->op = RULE_COND;
	r->cond = ast_bool(w->c->arena, w->sa->loc, true);
	r->cond->origin = w->rule;
	r->then = mk(w, ND_BLOCK, w->sa->loc);
	r->then->list1 = trans;
	r->els = mk(w, ND_BLOCK, w->sa->loc);
	r->els->list1 = map;
	return r;
}

/* ---- 4. AddInRule -------------------------------------------------------------------
 * Prepends `true -> { stored := sa.port; ... } --> { inner.port := stored; ... }`. */

static void rule_add_in_rule(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddInRule"};
	Node *trans = NULL, *map = NULL;
	for (Node *p = w.sa->a_inports; p; p = p->next) {
		const char *stored = stored_in_name(&w, p->name);
		int sym;
		Node *var = find_top(w.sa, stored, &sym);
		if (!var || sym != SYM_IN_VAR)
			continue; /* (1) AddInVars reported why */
		Node *hides = block_var(w.sa->a_in_rules, stored);
		if (hides) {
			collision(&w, hides, SYM_LOCAL, stored, arena_printf(c->arena,
				  "the stored value of input '%s'", p->name));
			continue; /* (3) a var of the in rules would take the assignments */
		}
		if (!rules_assign(w.sa->a_in_rules, NULL, stored, w.sa->name, p->name))
			trans = ast_append(trans, mk_assign(&w, p->loc,
				mk_name(&w, p->loc, stored, var, SYM_IN_VAR),
				mk_ref(&w, p->loc, w.sa->name, p->name, p, SYM_INPORT)));
		if (p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN) {
			Node *value = converted(&w, mk_name(&w, p->loc, stored, var, SYM_IN_VAR),
						p->converts ? p->scale : 1, p->converts ? p->offset : 0);
			map = ast_append(map, mk_assign(&w, p->bind->loc,
				mk_ref(&w, p->bind->loc, p->bind->owner, p->bind->name, p->bind->decl,
				       SYM_INNER_IN), value));
		}
	}
	if (!trans && !map)
		return; /* (2) nothing to transfer: explicit already */
	Node *rules = rules_block(&w, &w.sa->a_in_rules, 'i');
	rules->list3 = ast_prepend(rules->list3, true_rule(&w, trans, map));
}

/* ---- 5. RemoveInBindings ---------------------------------------------------------- */

static void rule_remove_in_bindings(Compilation *c, SaInfo *info)
{
	(void)c;
	for (Node *p = info->sa->a_inports; p; p = p->next) {
		p->bind_dir = BIND_NONE;
		p->bind = NULL;
	}
}

/* ---- 6. AddOutPorts ---------------------------------------------------------------
 * With no output ports declared, every inner output that feeds no internal coupling
 * becomes an external output of the same name bound to it. */

static void rule_add_out_ports(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddOutPorts"};
	if (w.sa->a_outports)
		return; /* (1) declared by the user */
	for (int i = 0; i < info->ninners; i++) {
		Inner *in = info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			bool feeds = false;
			for (Node *cp = w.sa->a_couplings; cp && !feeds; cp = cp->next)
				feeds = strcmp(cp->lhs->owner, in->name) == 0 &&
					strcmp(cp->lhs->name, p->name) == 0;
			if (feeds)
				continue; /* (2) internal */
			int sym;
			Node *user = find_top(w.sa, p->name, &sym);
			if (user) {
				diag_error(c->diag, user->loc, "AddOutPorts: inner output '%s.%s' needs "
					   "an output port named '%s', which is already %s", in->name,
					   p->name, p->name, sym_noun(sym));
				continue;
			}
			Node *port = mk(&w, ND_PORT, in->decl->loc);
			port->name = p->name;
			port->type = p->type;
			if (p->unit) {
				port->unit = mk(&w, ND_UNIT, in->decl->loc);
				port->unit->str = p->unit;
			}
			port->bind_dir = BIND_FROM;
			port->bind = mk_ref(&w, in->decl->loc, in->name, p->name, p->decl, SYM_INNER_OUT);
			port->scale = 1;
			w.sa->a_outports = ast_append(w.sa->a_outports, port);
		}
	}
}

/* ---- 7. AddOutParams / 8. AddOutVars -------------------------------------------------- */

static void rule_add_out_params(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddOutParams"};
	for (int i = 0; i < info->ninners; i++) {
		Inner *in = info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *name = init_out_name(&w, in->name, p->name);
			int sym;
			Node *old = find_top(w.sa, name, &sym);
			if (old) {
				const char *purpose = arena_printf(c->arena, "the initial value of "
								   "'%s.%s'", in->name, p->name);
				if (sym != SYM_PARAM)
					collision(&w, old, sym, name, purpose);
				else if (old->origin)
					generated_twice(&w, p->decl ? p->decl->loc : in->decl->loc, old,
							name, purpose);
				continue; /* (1) present already */
			}
			Node *d = mk(&w, ND_VARDECL, in->decl->loc);
			d->name = name;
			d->type = p->type;
			d->op = DECL_PARAM;
			d->init = default_value(&w, in->decl->loc, p->type,
						start_literal(&w, in->decl->loc, p));
			w.sa->a_params = ast_append(w.sa->a_params, d);
		}
	}
}

static void rule_add_out_vars(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddOutVars"};
	for (int i = 0; i < info->ninners; i++) {
		Inner *in = info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *name = stored_out_name(&w, in->name, p->name);
			int sym;
			Node *old = find_top(w.sa, name, &sym);
			if (old) {
				const char *purpose = arena_printf(c->arena, "the stored value of "
								   "'%s.%s'", in->name, p->name);
				if (sym != SYM_OUT_VAR)
					collision(&w, old, sym, name, purpose);
				else if (old->origin)
					generated_twice(&w, p->decl ? p->decl->loc : in->decl->loc, old,
							name, purpose);
				continue; /* (1) present already */
			}
			int psym;
			Node *param = find_top(w.sa, init_out_name(&w, in->name, p->name), &psym);
			Node *d = mk(&w, ND_VARDECL, in->decl->loc);
			d->name = name;
			d->type = p->type;
			d->op = DECL_OUT;
			d->init = param && psym == SYM_PARAM
					  ? mk_name(&w, in->decl->loc, param->name, param, SYM_PARAM)
					  : default_value(&w, in->decl->loc, p->type, NULL);
			w.sa->a_out_vars = ast_append(w.sa->a_out_vars, d);
		}
	}
}

/* ---- 9. AddOutRule -------------------------------------------------------------------
 * Prepends `true -> { stored_f_p := f.p; ... } --> { sa.out := <converted stored>; ... }`. */

static void rule_add_out_rule(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "AddOutRule"};
	Node *trans = NULL, *map = NULL;
	for (int i = 0; i < info->ninners; i++) {
		Inner *in = info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			if (p->is_input)
				continue;
			const char *stored = stored_out_name(&w, in->name, p->name);
			int sym;
			Node *var = find_top(w.sa, stored, &sym);
			if (!var || sym != SYM_OUT_VAR)
				continue; /* (1) AddOutVars reported why */
			Node *hides = block_var(w.sa->a_out_rules, stored);
			if (hides) {
				collision(&w, hides, SYM_LOCAL, stored, arena_printf(c->arena,
					  "the stored value of '%s.%s'", in->name, p->name));
				continue; /* (3) a var of the out rules would take the assignments */
			}
			if (rules_assign(w.sa->a_out_rules, NULL, stored, in->name, p->name))
				continue; /* (2) present already */
			trans = ast_append(trans, mk_assign(&w, in->decl->loc,
				mk_name(&w, in->decl->loc, stored, var, SYM_OUT_VAR),
				mk_ref(&w, in->decl->loc, in->name, p->name, p->decl, SYM_INNER_OUT)));
		}
	}
	for (Node *o = w.sa->a_outports; o; o = o->next) {
		if (o->bind_dir != BIND_FROM || o->bind->sym != SYM_INNER_OUT)
			continue;
		const char *stored = stored_out_name(&w, o->bind->owner, o->bind->name);
		int sym;
		Node *var = find_top(w.sa, stored, &sym);
		if (!var || sym != SYM_OUT_VAR || block_var(w.sa->a_out_rules, stored))
			continue; /* (1), (3) */
		Node *value = converted(&w, mk_name(&w, o->bind->loc, stored, var, SYM_OUT_VAR),
					o->converts ? o->scale : 1, o->converts ? o->offset : 0);
		map = ast_append(map, mk_assign(&w, o->loc,
			mk_ref(&w, o->loc, w.sa->name, o->name, o, SYM_OUTPORT), value));
	}
	if (!trans && !map)
		return;
	Node *rules = rules_block(&w, &w.sa->a_out_rules, 'o');
	rules->list3 = ast_prepend(rules->list3, true_rule(&w, trans, map));
}

/* ---- 10. RemoveOutBindings ------------------------------------------------------------ */

static void rule_remove_out_bindings(Compilation *c, SaInfo *info)
{
	(void)c;
	for (Node *p = info->sa->a_outports; p; p = p->next) {
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

static void rule_create_ctrl_rules(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "CreateCtrlRules"};
	Node *sa = w.sa;
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
		Node *user = find_top(sa, hname, &sym);
		if (user) {
			collision(&w, user, sym, hname, arena_printf(a, "the step taken by '%s'", in->name));
			return;
		}
		Loc loc = in->decl->loc;
		Node *call = mk(&w, ND_BUILTIN, loc);
		call->op = BI_DO_STEP;
		call->name = in->name;
		call->lhs = mk_name(&w, loc, in->name, in->decl, SYM_INNER);
		Node *t = mk(&w, ND_KEYVAR, loc), *h = mk(&w, ND_KEYVAR, loc);
		t->op = KV_T;
		h->op = KV_BIG_H;
		t->next = h;
		call->list1 = t;
		Node *d = mk(&w, ND_VARDECL, loc);
		d->name = hname;
		d->type = TY_REAL;
		d->init = call;
		Node *var = mk(&w, ND_VAR, loc);
		var->list1 = d;
		stmts = ast_append(stmts, var);
		steps = ast_append(steps, mk_name(&w, loc, hname, d, SYM_LOCAL));
	}
	Node *ret = mk(&w, ND_RETURN, sa->loc);
	if (n == 1) {
		ret->lhs = steps;
	} else {
		ret->lhs = mk(&w, ND_BUILTIN, sa->loc);
		ret->lhs->op = BI_MIN;
		ret->lhs->list1 = steps;
	}
	stmts = ast_append(stmts, ret);
	Node *ctrl = mk(&w, ND_CTRL, sa->loc);
	ctrl->body = mk(&w, ND_BLOCK, sa->loc);
	ctrl->body->list1 = stmts;
	sa->a_ctrl = ctrl;
}

/* ---- 12. ImplementInternalBinding ---------------------------------------------------
 * For each coupling a.p -> b.q, before each do_step(b, ...) not preceded in its statement
 * list by an assignment to b.q, inserts b.q := a.p (converted). */

typedef struct FindStep {
	const char *fmu;
	bool found;
} FindStep;

static void find_step_fn(Rw *w, Node **slot, void *arg)
{
	(void)w;
	FindStep *f = arg;
	Node *n = *slot;
	if (n->kind == ND_BUILTIN && n->op == BI_DO_STEP && strcmp(n->name, f->fmu) == 0)
		f->found = true;
}

/* Whether statement s itself (not a nested block) steps fmu. */
static bool stmt_steps(Rw *w, Node *s, const char *fmu)
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

static void bind_in_list(Rw *w, Node **list, Node *cp)
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
			if (e->kind == ND_ASSIGN && e->lhs->kind == ND_PORT_REF && e->lhs->owner &&
			    strcmp(e->lhs->owner, b) == 0 && strcmp(e->lhs->name, q) == 0)
				assigned = true;
		if (assigned)
			continue;
		Node *src = mk_ref(w, cp->loc, cp->lhs->owner, cp->lhs->name, cp->lhs->decl,
				   SYM_INNER_OUT);
		Node *as = mk_assign(w, cp->loc,
				     mk_ref(w, cp->loc, b, q, cp->rhs->decl, SYM_INNER_IN),
				     converted(w, src, cp->converts ? cp->scale : 1,
					       cp->converts ? cp->offset : 0));
		as->next = s;
		*p = as;
		p = &as->next;
	}
}

static void rule_implement_internal_binding(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "ImplementInternalBinding"};
	Node *ctrl = w.sa->a_ctrl;
	if (!ctrl || ctrl->kind != ND_CTRL)
		return; /* (1) no control rules: CreateCtrlRules failed and said why */
	for (Node *cp = w.sa->a_couplings; cp; cp = cp->next)
		if (cp->lhs->sym == SYM_INNER_OUT && cp->rhs->sym == SYM_INNER_IN)
			bind_in_list(&w, &ctrl->body->list1, cp);
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
static Node *hidden(Rw *w, Part *part, const char *stored, const char *purpose)
{
	Node *local = local_named(part->stmts, stored);
	if (local && local != part->reported) {
		collision(w, local, SYM_LOCAL, stored, purpose);
		part->reported = local;
	}
	return local;
}

static void replace_inport_fn(Rw *w, Node **slot, void *arg)
{
	Node *n = *slot;
	if ((n->kind != ND_NAME && n->kind != ND_PORT_REF) || n->sym != SYM_INPORT)
		return;
	const char *stored = stored_in_name(w, n->name);
	int sym;
	Node *var = find_top(w->sa, stored, &sym);
	if (!var || sym != SYM_IN_VAR)
		return; /* (1) AddInVars reported why */
	if (hidden(w, arg, stored, arena_printf(w->c->arena, "the stored value of input '%s'",
						n->name)))
		return; /* (2) a local has the stored variable's name */
	Node *r = mk_name(w, n->loc, stored, var, SYM_IN_VAR);
	r->next = n->next;
	*slot = r;
}

static void replace_inner_out_fn(Rw *w, Node **slot, void *arg)
{
	Node *n = *slot;
	if (n->kind != ND_PORT_REF || n->sym != SYM_INNER_OUT)
		return;
	const char *stored = stored_out_name(w, n->owner, n->name);
	int sym;
	Node *var = find_top(w->sa, stored, &sym);
	if (!var || sym != SYM_OUT_VAR)
		return; /* (1) AddOutVars reported why */
	if (hidden(w, arg, stored, arena_printf(w->c->arena, "the stored value of '%s.%s'",
						n->owner, n->name)))
		return; /* (2) */
	Node *r = mk_name(w, n->loc, stored, var, SYM_OUT_VAR);
	r->next = n->next;
	*slot = r;
}

/* Rewrites the output functions (`-->` parts) of a rules block. */
static void replace_in_rules(Rw *w, Node *rules, ExprFn fn)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next) {
		if (!r->els)
			continue;
		Part part = {r->els->kind == ND_BLOCK ? r->els->list1 : NULL, NULL};
		walk_exprs(w, &r->els, fn, &part);
	}
}

static void rule_replace_ports_refs_by_vars(Compilation *c, SaInfo *info)
{
	Rw w = {c, info, info->sa, "ReplacePortsRefsByVars"};
	Node *sa = w.sa;
	replace_in_rules(&w, sa->a_in_rules, replace_inport_fn);
	if (sa->a_ctrl && sa->a_ctrl->kind == ND_CTRL) {
		Part part = {sa->a_ctrl->body->list1, NULL};
		walk_exprs(&w, &sa->a_ctrl->body, replace_inner_out_fn, &part);
	}
	replace_in_rules(&w, sa->a_out_rules, replace_inner_out_fn);
}

const RwRule rw_rules[] = {
	{"AddInPorts", rule_add_in_ports},
	{"AddInParams", rule_add_in_params},
	{"AddInVars", rule_add_in_vars},
	{"AddInRule", rule_add_in_rule},
	{"RemoveInBindings", rule_remove_in_bindings},
	{"AddOutPorts", rule_add_out_ports},
	{"AddOutParams", rule_add_out_params},
	{"AddOutVars", rule_add_out_vars},
	{"AddOutRule", rule_add_out_rule},
	{"RemoveOutBindings", rule_remove_out_bindings},
	{"CreateCtrlRules", rule_create_ctrl_rules},
	{"ImplementInternalBinding", rule_implement_internal_binding},
	{"ReplacePortsRefsByVars", rule_replace_ports_refs_by_vars},
	{NULL, NULL},
};

/* The lowering stage runs first (lower.c): `sacc explicit --after` takes its rule names
 * and its own ("Lower") as well. */
bool rw_is_rule(const char *name)
{
	if (lw_is_rule(name))
		return true;
	for (const RwRule *r = rw_rules; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return true;
	return false;
}

int rw_explicit(Compilation *c, SaInfo *info, const char *after)
{
	if (info->explicit_done)
		return info->explicit_errors;
	info->explicit_done = true;
	int before = diag_errors(c->diag);
	for (const RwRule *r = rw_rules; r->name; r++) {
		r->apply(c, info);
		if (after && strcmp(after, r->name) == 0)
			break;
	}
	info->explicit_errors = diag_errors(c->diag) - before;
	return info->explicit_errors;
}
