/* lower.c — the lowering of the declarative layer (LANGUAGE.md section 7) into ordinary
 * control, in and out rules.
 *
 * Runs on a checked adaptation, before the explicit-form rules (driver.c, drv_reduce).
 * One function per form, applied in the order of the table lw_rules; each one's
 * preconditions are numbered comments that the code cites where it refuses.  The nodes a
 * rule makes carry the rule's name (Node.origin), the location of the form they come from,
 * and the declaration they resolve to (decl/sym), as the checker would have set them, so
 * the explicit-form rules and the emitter treat them as if the user had written them.
 * Generated names never collide with the user's: a rule that needs a name already taken
 * reports it at the user's declaration.  A form once lowered is gone from the tree, which
 * makes the stage idempotent and the printed result a plain script. */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lw {
	Compilation *c;
	SaInfo *info;
	Node *sa;
	const char *rule;
	Loc at;    /* the form being lowered: where generated nodes come from */
	bool failed;
} Lw;

/* ---- making nodes ------------------------------------------------------------------- */

static Node *mk(Lw *w, NodeKind kind)
{
	Node *n = ast_new(w->c->arena, kind, w->at);
	n->origin = w->rule;
	return n;
}

static Node *mk_ref_to(Lw *w, Node *decl, int sym)
{
	Node *n = mk(w, ND_NAME);
	n->name = decl->name;
	n->decl = decl;
	n->sym = sym;
	n->type = decl->type;
	return n;
}

static Node *mk_port(Lw *w, const char *owner, const char *name, Node *decl, int sym)
{
	Node *n = mk(w, ND_PORT_REF);
	n->owner = owner;
	n->name = name;
	n->decl = decl;
	n->sym = sym;
	return n;
}

static Node *mk_real(Lw *w, double v)
{
	Node *n = ast_real(w->c->arena, w->at, v);
	n->origin = w->rule;
	return n;
}

static Node *mk_int(Lw *w, long long v)
{
	Node *n = ast_int(w->c->arena, w->at, v);
	n->origin = w->rule;
	return n;
}

static Node *mk_bool(Lw *w, bool v)
{
	Node *n = ast_bool(w->c->arena, w->at, v);
	n->origin = w->rule;
	return n;
}

static Node *mk_kv(Lw *w, int kv)
{
	Node *n = mk(w, ND_KEYVAR);
	n->op = kv;
	return n;
}

static Node *mk_bin(Lw *w, Op op, Node *l, Node *r)
{
	Node *n = ast_binary(w->c->arena, w->at, op, l, r);
	n->origin = w->rule;
	return n;
}

static Node *mk_not(Lw *w, Node *x)
{
	Node *n = ast_unary(w->c->arena, w->at, OP_NOT, x);
	n->origin = w->rule;
	return n;
}

static Node *mk_assign(Lw *w, Node *lhs, Node *rhs)
{
	Node *n = ast_assign(w->c->arena, w->at, lhs, rhs);
	n->origin = w->rule;
	return n;
}

static Node *mk_block(Lw *w, Node *stmts)
{
	Node *b = mk(w, ND_BLOCK);
	b->list1 = stmts;
	return b;
}

static Node *mk_if(Lw *w, Node *cond, Node *then, Node *els)
{
	Node *n = mk(w, ND_IF);
	n->cond = cond;
	n->then = mk_block(w, then);
	n->els = els && els->kind != ND_IF ? mk_block(w, els) : els;
	return n;
}

static Node *mk_builtin(Lw *w, Builtin op, Node *args)
{
	Node *n = mk(w, ND_BUILTIN);
	n->op = op;
	n->list1 = args;
	return n;
}

/* An FMU builtin: do_step(f, t, h), save_state(f), rollback(f). */
static Node *mk_fmu_call(Lw *w, Builtin op, const Inner *in, Node *args)
{
	Node *n = mk_builtin(w, op, args);
	n->name = in->name;
	n->lhs = mk(w, ND_NAME);
	n->lhs->name = in->name;
	n->lhs->decl = in->decl;
	n->lhs->sym = SYM_INNER;
	return n;
}

static Node *mk_call_stmt(Lw *w, Node *call)
{
	Node *s = mk(w, ND_CALL_STMT);
	s->lhs = call;
	return s;
}

static Node *list2(Node *a, Node *b)
{
	a->next = b;
	return a;
}

static Node *mk_decl(Lw *w, const char *name, SaType type, Node *init, int where)
{
	Node *d = mk(w, ND_VARDECL);
	d->name = name;
	d->type = type;
	d->init = init;
	d->op = where;
	return d;
}

/* `var name := init;` in a block; *decl gets the declaration. */
static Node *mk_local(Lw *w, const char *name, SaType type, Node *init, Node **decl)
{
	Node *v = mk(w, ND_VAR);
	v->list1 = *decl = mk_decl(w, name, type, init, DECL_LOCAL);
	return v;
}

/* `for (var name in from .. to) { body }`; *var gets the loop variable's declaration. */
static Node *mk_for(Lw *w, const char *name, Node *from, Node *to, Node **var)
{
	Node *f = mk(w, ND_FOR);
	f->name = name;
	f->lhs = from;
	f->rhs = to;
	f->init = mk(w, ND_NAME);
	f->init->name = name;
	f->init->type = TY_INTEGER;
	f->then = mk_block(w, NULL);
	*var = f->init;
	return f;
}

static Node *clone(Lw *w, const Node *n)
{
	Node *c = ast_clone(w->c->arena, n);
	return c;
}

/* scale * x + offset, as explicit.c writes conversions. */
static Node *converted(Lw *w, Node *x, double scale, double offset)
{
	Node *e = x;
	if (scale != 1)
		e = mk_bin(w, OP_MUL, mk_real(w, scale), e);
	if (offset != 0)
		e = mk_bin(w, offset < 0 ? OP_SUB : OP_ADD, e, mk_real(w, offset < 0 ? -offset : offset));
	return e;
}

/* ---- names -------------------------------------------------------------------------- */

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
	default: return "a var of a rules block";
	}
}

/* A declaration at the adaptation's level, or a var of its in/out rules blocks (which
 * would hide a generated name from the rules), named `name`. */
static Node *find_user(Node *sa, const char *name, int *sym)
{
	struct {
		Node *list;
		int sym;
	} lists[] = {
		{sa->a_inports, SYM_INPORT},   {sa->a_outports, SYM_OUTPORT},
		{sa->a_params, SYM_PARAM},     {sa->a_in_vars, SYM_IN_VAR},
		{sa->a_out_vars, SYM_OUT_VAR}, {sa->a_ctrl_vars, SYM_CTRL_VAR},
		{sa->a_inners, SYM_INNER},
		{sa->a_in_rules ? sa->a_in_rules->list2 : NULL, SYM_LOCAL},
		{sa->a_out_rules ? sa->a_out_rules->list2 : NULL, SYM_LOCAL},
	};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
		for (Node *n = lists[i].list; n; n = n->next)
			if (n->name && strcmp(n->name, name) == 0) {
				*sym = lists[i].sym;
				return n;
			}
	return NULL;
}

/* Whether the rule may introduce `name`; reports the user's declaration that takes it. */
static bool fresh(Lw *w, const char *name, const char *purpose)
{
	int sym;
	Node *user = find_user(w->sa, name, &sym);
	if (!user)
		return true;
	diag_error(w->c->diag, user->loc, "%s: the name '%s' is needed for %s but is already %s",
		   w->rule, name, purpose, sym_noun(sym));
	diag_note(w->c->diag, w->at, "the declarative form that needs it");
	w->failed = true;
	return false;
}

static const char *fmt(Lw *w, const char *f, const char *a, const char *b)
{
	return arena_printf(w->c->arena, f, a, b);
}

/* A new control var (appended to the adaptation's), or NULL after a collision. */
static Node *new_ctrl_var(Lw *w, const char *name, SaType type, Node *init, const char *purpose)
{
	if (!fresh(w, name, purpose))
		return NULL;
	Node *d = mk_decl(w, name, type, init, DECL_CONTROL);
	w->sa->a_ctrl_vars = ast_append(w->sa->a_ctrl_vars, d);
	return d;
}

static Node *new_in_var(Lw *w, const char *name, SaType type, Node *init, const char *purpose)
{
	if (!fresh(w, name, purpose))
		return NULL;
	Node *d = mk_decl(w, name, type, init, DECL_IN);
	w->sa->a_in_vars = ast_append(w->sa->a_in_vars, d);
	return d;
}

/* A local of generated control rules: it must not hide an adaptation-level name. */
static Node *new_local(Lw *w, const char *name, SaType type, Node *init, Node **decl)
{
	if (!fresh(w, name, "a local of the generated control rules"))
		return NULL;
	return mk_local(w, name, type, init, decl);
}

/* ---- inner FMUs ---------------------------------------------------------------------- */

/* The start value of an inner port, as a literal of its type, else the type's zero. */
static Node *start_value(Lw *w, const Inner *in, const InnerPort *p)
{
	const char *s = in->fmu && p->fmu_var >= 0 ? in->fmu->vars[p->fmu_var].start : NULL;
	if (s && p->type == TY_REAL) {
		char *end;
		double d = strtod(s, &end);
		if (!*end && end != s)
			return mk_real(w, d);
	}
	if (s && p->type == TY_INTEGER) {
		char *end;
		long long v = strtoll(s, &end, 10);
		if (!*end && end != s)
			return mk_int(w, v);
	}
	return p->type == TY_INTEGER ? mk_int(w, 0) : mk_real(w, 0.0);
}

/* Whether an inner FMU can save and restore its state (through nested adaptations). */
static bool can_rollback(const Inner *in, int depth)
{
	if (in->fmu)
		return in->fmu->can_get_and_set_fmu_state;
	if (!in->adaptation || depth > 16)
		return false;
	const SaInfo *sub = in->adaptation->info;
	if (!sub)
		return false;
	for (int i = 0; i < sub->ninners; i++)
		if (!can_rollback(sub->inners[i], depth + 1))
			return false;
	return true;
}

static bool torn(Node *cp, Node **cut, int ncut)
{
	for (int i = 0; i < ncut; i++)
		if (cut[i] == cp)
			return true;
	return false;
}

/* The inner FMUs in topological order of the couplings not cut (an edge counts when its
 * target is Mealy, as for CreateCtrlRules); NULL when a loop remains. */
static Inner **step_order(Lw *w, Node **cut, int ncut)
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
				if (torn(cp, cut, ncut) || !info->inners[i]->mealy ||
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

/* The control part may be generated by this form: the user wrote none (or `implied`),
 * and no other form generated it.  (Precondition 1 of every control-generating form.) */
static bool control_free(Lw *w, const char *form)
{
	Node *ctrl = w->sa->a_ctrl;
	if (!ctrl || (ctrl->kind == ND_CTRL_IMPLIED && !ctrl->origin))
		return true;
	if (ctrl->origin) {
		diag_error(w->c->diag, w->at, "%s: '%s' cannot be combined with another control "
			   "form in one adaptation", w->rule, form);
		diag_note(w->c->diag, w->at, "nest one adaptation in another (as rate_sa wraps "
			  "loop_sa)");
	} else {
		diag_error(w->c->diag, w->at, "%s: '%s' generates the control rules, and this "
			   "adaptation has its own", w->rule, form);
		diag_note(w->c->diag, ctrl->loc, "the control rules are here; remove them or the form");
	}
	w->failed = true;
	return false;
}

static void set_control(Lw *w, Node *stmts)
{
	Node *ctrl = mk(w, ND_CTRL);
	ctrl->body = mk_block(w, stmts);
	w->sa->a_ctrl = ctrl;
}

static Node *in_rules_block(Lw *w)
{
	if (!w->sa->a_in_rules) {
		w->sa->a_in_rules = mk(w, ND_RULES);
		w->sa->a_in_rules->op = 'i';
	}
	return w->sa->a_in_rules;
}

/* Removes g from the adaptation's general forms. */
static void consume(Lw *w, Node *g)
{
	for (Node **p = &w->sa->a_general; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			g->next = NULL;
			return;
		}
}

/* The form of this kind among the adaptation's general forms, or NULL. */
static Node *general_form(Node *sa, NodeKind kind)
{
	for (Node *g = sa->a_general; g; g = g->next)
		if (g->kind == kind)
			return g;
	return NULL;
}

/* The static type of a checked expression, as far as the rules need it. */
static SaType type_of(const Node *e)
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
			return type_of(e->lhs) == TY_INTEGER && type_of(e->rhs) == TY_INTEGER
				       ? TY_INTEGER : TY_REAL;
		return TY_BOOL;
	case ND_UNARY: return e->op == OP_NOT ? TY_BOOL : type_of(e->lhs);
	case ND_BUILTIN:
		return e->op == BI_FLOOR || e->op == BI_CEIL ||
				       (e->op == BI_ROUND && ast_count(e->list1) == 1)
			       ? TY_INTEGER : TY_REAL;
	default: return TY_REAL;
	}
}

/* ---- MultiplyRate ---------------------------------------------------------------------
 * `multiply rate N times with K interpolation`: N inner steps of H/N per external step;
 * every Real inner input that an external input feeds gets, in the MapIn part, the value
 * at the end of its inner step of the polynomial of order K through the newest external
 * input value and the K before it (lower order while fewer are known).
 *
 *   in var current_<p> := <start>;             the newest sample of input p
 *   control var previous_<p>_<k> := <start>;   the k-th sample before it, k = 1..K
 *   control var previous_time_<k> := 0.0, rate_history := 0;   their times, how many
 *   control rules {
 *     if (rate_history == 0) { previous_time_1 := t; rate_history := 1; }  (reactive)
 *     var micro_step := H / N; var inner_time := t;
 *     for (var micro in 0 .. N) { do_step(f, inner_time, micro_step); ...;
 *                                 inner_time := inner_time + micro_step; }
 *     previous_<p>_K := previous_<p>_K-1; ...; previous_<p>_1 := current_<p>;  (same for times)
 *     rate_history := min(rate_history + 1, K);
 *     return H;
 *   }
 *   in rules { true -> { current_<p> := sa.p; } --> {
 *     if (rate_history >= K) { f.q := <Lagrange, K> } else if ... else { f.q := current_<p> } }; }
 *
 * A reactive adaptation's newest sample is the input at t + H and the one before it, at
 * the first step, the input's start value at t; a delayed one's newest sample is at t.
 * Preconditions:
 *   1. the adaptation has no control rules of its own and no other control form;
 *   2. N is an Integer expression (the loop's bound), and not a literal below 1;
 *   3. the order is 0 to 4;
 *   4. the inner FMUs can be ordered by their couplings (no algebraic loop). */

typedef struct RateInput {
	Node *port;     /* the external input (made here for an unfed inner input) */
	Inner *in;
	InnerPort *ip;
	Node *current;  /* its in var */
	Node **prev;    /* previous_<p>_1 .. _K */
} RateInput;

/* Whether inner input p is fed by a coupling, a binding or an assignment anywhere. */
static bool assigns(Node *stmts, const char *owner, const char *name);

static bool assigns_one(Node *s, const char *owner, const char *name)
{
	switch (s->kind) {
	case ND_ASSIGN:
		return s->lhs->kind == ND_PORT_REF && s->lhs->owner &&
		       strcmp(s->lhs->owner, owner) == 0 && strcmp(s->lhs->name, name) == 0;
	case ND_IF:
		return assigns(s->then->list1, owner, name) ||
		       (s->els && (s->els->kind == ND_IF ? assigns_one(s->els, owner, name)
							  : assigns(s->els->list1, owner, name)));
	case ND_FOR:
		return assigns(s->then->list1, owner, name);
	default:
		return false;
	}
}

static bool assigns(Node *stmts, const char *owner, const char *name)
{
	for (Node *s = stmts; s; s = s->next)
		if (assigns_one(s, owner, name))
			return true;
	return false;
}

static bool inner_input_fed(Lw *w, const Inner *in, const InnerPort *p)
{
	Node *sa = w->sa;
	for (Node *cp = sa->a_couplings; cp; cp = cp->next)
		if (strcmp(cp->rhs->owner, in->name) == 0 && strcmp(cp->rhs->name, p->name) == 0)
			return true;
	for (Node *ip = sa->a_inports; ip; ip = ip->next)
		if (ip->bind_dir == BIND_TO && ip->bind->owner &&
		    strcmp(ip->bind->owner, in->name) == 0 && strcmp(ip->bind->name, p->name) == 0)
			return true;
	if (sa->a_ctrl && sa->a_ctrl->kind == ND_CTRL &&
	    assigns(sa->a_ctrl->body->list1, in->name, p->name))
		return true;
	for (Node *r = sa->a_in_rules ? sa->a_in_rules->list3 : NULL; r; r = r->next)
		if (r->els && r->els->kind == ND_BLOCK && assigns(r->els->list1, in->name, p->name))
			return true;
	return false;
}

/* The Lagrange polynomial through (xs[j], ys[j]), j = 0..k, at x. */
static Node *lagrange(Lw *w, Node *x, Node **xs, Node **ys, int k)
{
	Node *sum = NULL;
	for (int j = 0; j <= k; j++) {
		Node *term = clone(w, ys[j]);
		for (int m = 0; m <= k; m++) {
			if (m == j)
				continue;
			Node *num = mk_bin(w, OP_SUB, clone(w, x), clone(w, xs[m]));
			Node *den = mk_bin(w, OP_SUB, clone(w, xs[j]), clone(w, xs[m]));
			term = mk_bin(w, OP_DIV, mk_bin(w, OP_MUL, term, num), den);
		}
		sum = sum ? mk_bin(w, OP_ADD, sum, term) : term;
	}
	return sum;
}

static void lower_multiply_rate(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "MultiplyRate", {0}, false}, *w = &w0;
	Node *g = general_form(w->sa, ND_MULTIRATE);
	if (!g)
		return;
	w->at = g->loc;
	if (!control_free(w, "multiply rate"))
		return; /* (1) */
	Node *rate = g->lhs;
	if (type_of(rate) != TY_INTEGER || (rate->kind == ND_INT && rate->ival < 1)) {
		diag_error(c->diag, rate->loc, "MultiplyRate: the rate must be an Integer of at "
			   "least 1 (it bounds the loop over the inner steps)");
		return; /* (2) */
	}
	int K = g->op < 0 ? 1 : g->op;
	if (K > 4) {
		diag_error(c->diag, g->loc, "MultiplyRate: interpolation of order %d: orders 0 to 4 "
			   "are supported", K);
		return; /* (3) */
	}
	Inner **order = step_order(w, NULL, 0);
	if (!order) {
		diag_error(c->diag, g->loc, "MultiplyRate: the inner fmus form an algebraic loop "
			   "and cannot be stepped in order");
		diag_note(c->diag, g->loc, "solve the loop in an inner adaptation (successive "
			  "substitution) and multiply its rate here");
		return; /* (4) */
	}
	bool reactive = !(w->sa->flags & KIND_DELAYED);
	Arena *a = c->arena;

	/* The interpolated inputs: bound Real inputs, and Real inner inputs nobody feeds
	 * (which AddInPorts would make external inputs: made here, bound, so that they are
	 * interpolated as well). */
	for (int i = 0; i < info->ninners; i++) {
		Inner *in = info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			int sym;
			if (!p->is_input || p->type != TY_REAL || inner_input_fed(w, in, p) ||
			    find_user(w->sa, p->name, &sym))
				continue; /* AddInPorts reports a blocked name */
			Node *port = mk(w, ND_PORT);
			port->name = p->name;
			port->type = TY_REAL;
			if (p->unit) {
				port->unit = mk(w, ND_UNIT);
				port->unit->str = p->unit;
			}
			port->bind_dir = BIND_TO;
			port->bind = mk_port(w, in->name, p->name, p->decl, SYM_INNER_IN);
			port->scale = 1;
			w->sa->a_inports = ast_append(w->sa->a_inports, port);
		}
	}
	int n = 0;
	for (Node *p = w->sa->a_inports; p; p = p->next)
		n += p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN && p->type == TY_REAL;
	RateInput *ri = arena_alloc(a, (size_t)(n + 1) * sizeof *ri);
	n = 0;
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		if (!(p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN && p->type == TY_REAL))
			continue;
		RateInput *r = &ri[n];
		r->port = p;
		r->in = sema_inner(info, p->bind->owner);
		r->ip = r->in ? sema_inner_port(r->in, p->bind->name) : NULL;
		if (!r->ip)
			continue;
		Node *start = p->init && p->init->kind != ND_ARRAY ? clone(w, p->init) : mk_real(w, 0.0);
		r->current = new_in_var(w, fmt(w, "current_%s", p->name, NULL), TY_REAL, start,
					fmt(w, "the newest value of input '%s'", p->name, NULL));
		r->prev = arena_alloc(a, (size_t)(K + 1) * sizeof *r->prev);
		for (int k = 1; k <= K; k++)
			r->prev[k] = new_ctrl_var(w, arena_printf(a, "previous_%s_%d", p->name, k),
						  TY_REAL, clone(w, start),
						  arena_printf(a, "the value of input '%s' %d samples "
							       "before the newest", p->name, k));
		n++;
	}
	Node **ptime = arena_alloc(a, (size_t)(K + 1) * sizeof *ptime);
	for (int k = 1; k <= K; k++)
		ptime[k] = new_ctrl_var(w, arena_printf(a, "previous_time_%d", k), TY_REAL,
					mk_real(w, 0.0), "the time of an earlier input sample");
	Node *history = K ? new_ctrl_var(w, "rate_history", TY_INTEGER, mk_int(w, 0),
					 "how many earlier input samples are known") : NULL;
	Node *step_d = NULL, *time_d = NULL, *micro_d = NULL;
	Node *step_v = new_local(w, "micro_step", TY_REAL,
				 mk_bin(w, OP_DIV, mk_kv(w, KV_BIG_H), clone(w, rate)), &step_d);
	Node *time_v = new_local(w, "inner_time", TY_REAL, mk_kv(w, KV_T), &time_d);
	if (w->failed || !fresh(w, "micro", "the loop variable of the generated control rules"))
		return;

	/* Control rules. */
	Node *stmts = NULL;
	if (K && reactive) {
		Node *first = list2(mk_assign(w, mk_ref_to(w, ptime[1], SYM_CTRL_VAR), mk_kv(w, KV_T)),
				    mk_assign(w, mk_ref_to(w, history, SYM_CTRL_VAR), mk_int(w, 1)));
		stmts = ast_append(stmts, mk_if(w, mk_bin(w, OP_EQ, mk_ref_to(w, history, SYM_CTRL_VAR),
							  mk_int(w, 0)), first, NULL));
	}
	stmts = ast_append(stmts, step_v);
	stmts = ast_append(stmts, time_v);
	Node *loop = mk_for(w, "micro", mk_int(w, 0), clone(w, rate), &micro_d);
	for (int i = 0; i < info->ninners; i++) {
		Node *args = list2(mk_ref_to(w, time_d, SYM_LOCAL), mk_ref_to(w, step_d, SYM_LOCAL));
		loop->then->list1 = ast_append(loop->then->list1,
			mk_call_stmt(w, mk_fmu_call(w, BI_DO_STEP, order[i], args)));
	}
	loop->then->list1 = ast_append(loop->then->list1,
		mk_assign(w, mk_ref_to(w, time_d, SYM_LOCAL),
			  mk_bin(w, OP_ADD, mk_ref_to(w, time_d, SYM_LOCAL),
				 mk_ref_to(w, step_d, SYM_LOCAL))));
	stmts = ast_append(stmts, loop);
	for (int j = 0; j < n; j++)
		for (int k = K; k >= 1; k--)
			stmts = ast_append(stmts, mk_assign(w, mk_ref_to(w, ri[j].prev[k], SYM_CTRL_VAR),
				k > 1 ? mk_ref_to(w, ri[j].prev[k - 1], SYM_CTRL_VAR)
				      : mk_ref_to(w, ri[j].current, SYM_IN_VAR)));
	for (int k = K; k >= 1; k--)
		stmts = ast_append(stmts, mk_assign(w, mk_ref_to(w, ptime[k], SYM_CTRL_VAR),
			k > 1 ? mk_ref_to(w, ptime[k - 1], SYM_CTRL_VAR)
			      : reactive ? mk_bin(w, OP_ADD, mk_kv(w, KV_T), mk_kv(w, KV_BIG_H))
					 : mk_kv(w, KV_T)));
	if (K) {
		Node *inc = mk_bin(w, OP_ADD, mk_ref_to(w, history, SYM_CTRL_VAR), mk_int(w, 1));
		stmts = ast_append(stmts, mk_assign(w, mk_ref_to(w, history, SYM_CTRL_VAR),
			mk_builtin(w, BI_MIN, list2(inc, mk_int(w, K)))));
	}
	Node *ret = mk(w, ND_RETURN);
	ret->lhs = mk_kv(w, KV_BIG_H);
	stmts = ast_append(stmts, ret);

	/* The in rule: sample, then interpolate at the end of each inner step (dt + h from
	 * the external step's start; every time is taken relative to t). */
	Node *sample = NULL;
	for (int j = 0; j < n; j++)
		sample = ast_append(sample, mk_assign(w, mk_ref_to(w, ri[j].current, SYM_IN_VAR),
			mk_port(w, w->sa->name, ri[j].port->name, ri[j].port, SYM_INPORT)));
	Node *x = mk_bin(w, OP_ADD, mk_kv(w, KV_DT), mk_kv(w, KV_H));
	Node **xs = arena_alloc(a, (size_t)(K + 1) * sizeof *xs);
	Node **ys = arena_alloc(a, (size_t)(K + 1) * sizeof *ys);
	xs[0] = reactive ? mk_kv(w, KV_BIG_H) : mk_real(w, 0.0);
	for (int k = 1; k <= K; k++)
		xs[k] = mk_bin(w, OP_SUB, mk_ref_to(w, ptime[k], SYM_CTRL_VAR), mk_kv(w, KV_T));
	Node *chain = NULL;
	for (int order_k = 0; order_k <= K; order_k++) {
		Node *assigns_k = NULL;
		for (int j = 0; j < n; j++) {
			ys[0] = mk_ref_to(w, ri[j].current, SYM_IN_VAR);
			for (int k = 1; k <= order_k; k++)
				ys[k] = mk_ref_to(w, ri[j].prev[k], SYM_CTRL_VAR);
			Node *v = order_k ? lagrange(w, x, xs, ys, order_k) : ys[0];
			Node *p = ri[j].port;
			assigns_k = ast_append(assigns_k, mk_assign(w,
				mk_port(w, ri[j].in->name, ri[j].ip->name, ri[j].ip->decl, SYM_INNER_IN),
				converted(w, v, p->converts ? p->scale : 1, p->converts ? p->offset : 0)));
		}
		if (!chain)
			chain = assigns_k; /* order 0: the newest sample */
		else
			chain = mk_if(w, mk_bin(w, OP_GE, mk_ref_to(w, history, SYM_CTRL_VAR),
						mk_int(w, order_k)), assigns_k, chain);
	}
	if (n) {
		Node *rule = mk(w, ND_RULE);
		rule->op = RULE_COND;
		rule->cond = mk_bool(w, true);
		rule->then = mk_block(w, sample);
		rule->els = mk_block(w, chain);
		Node *rules = in_rules_block(w);
		rules->list3 = ast_append(rules->list3, rule);
	}
	for (int j = 0; j < n; j++) {
		/* The in rule feeds the inner input now; the port stays an external input. */
		ri[j].port->bind_dir = BIND_NONE;
		ri[j].port->bind = NULL;
	}
	set_control(w, stmts);
	consume(w, g);
}

/* ---- SuccessiveSubstitution -----------------------------------------------------------
 * `successive substitution starts at P (and Q) with absolute tolerance = A and relative
 * tolerance = R`: tears the loop at P, Q — an inner input cuts the coupling s.o -> P
 * into it, an inner output the couplings out of it — and iterates, from the last value
 * of each cut coupling's source s.o, until it stops changing:
 *
 *   param SUBSTITUTION_MAXITER := 10;              (unless the user declares it)
 *   control var guess_<s>_<o> := <start of s.o>;
 *   control rules {
 *     var converged := false; var step := H;
 *     for (var iteration in 0 .. SUBSTITUTION_MAXITER) {
 *       save_state(f); ...                          every inner, in step order
 *       f.P := <converted guess_<s>_<o>>;
 *       do_step(f, t, H); ...                       order of the couplings not torn
 *       converged := is_close(guess_<s>_<o>, s.o, R, A) and ...;
 *       guess_<s>_<o> := s.o;
 *       if (converged) { break; } else { rollback(f); ... }
 *     }
 *     if (not converged) { step := H / 2; }          rejected: retry with a shorter step
 *     return step;
 *   }
 * Preconditions:
 *   1. the adaptation has no control rules of its own and no other control form;
 *   2. each P is an inner port on a coupling, of type Real or Integer;
 *   3. every inner FMU can save and restore its state;
 *   4. no loop remains once the couplings into P, Q are cut;
 *   5. SUBSTITUTION_MAXITER, if the user declares it, is a parameter. */

static Node *setting(const Node *settings, int which)
{
	for (const Node *s = settings; s; s = s->next)
		if (s->op == which)
			return s->lhs;
	return NULL;
}

/* The couplings the form cuts (precondition 2): into each port P that is an inner input,
 * out of each P that is an inner output.  NULL after a report. */
static Node **torn_couplings(Lw *w, Node *g, int *ncut, bool numeric)
{
	int n = ast_count(w->sa->a_couplings);
	Node **cut = arena_alloc(w->c->arena, (size_t)(n + 1) * sizeof *cut);
	*ncut = 0;
	for (Node *p = g->list1; p; p = p->next) {
		int found = 0;
		for (Node *cp = w->sa->a_couplings; cp; cp = cp->next) {
			Node *end = p->sym == SYM_INNER_IN ? cp->rhs : cp->lhs;
			if ((p->sym != SYM_INNER_IN && p->sym != SYM_INNER_OUT) || !p->owner ||
			    strcmp(end->owner, p->owner) != 0 || strcmp(end->name, p->name) != 0)
				continue;
			found++;
			if (!torn(cp, cut, *ncut))
				cut[(*ncut)++] = cp;
		}
		if (!found) {
			diag_error(w->c->diag, p->loc, "%s: '%s%s%s' must be an inner port on a "
				   "coupling (the loop is cut there)", w->rule,
				   p->owner ? p->owner : "", p->owner ? "." : "", p->name);
			w->failed = true;
			continue;
		}
		Inner *in = sema_inner(w->info, p->owner);
		InnerPort *ip = in ? sema_inner_port(in, p->name) : NULL;
		if (numeric && ip && ip->type != TY_REAL && ip->type != TY_INTEGER) {
			diag_error(w->c->diag, p->loc, "%s: '%s.%s' is %s; successive substitution "
				   "compares numbers", w->rule, p->owner, p->name,
				   ast_type_name(ip->type));
			w->failed = true;
		}
	}
	return w->failed ? NULL : cut;
}

/* For each cut coupling, the index of the first cut coupling with the same source: one
 * guess (or delayed value) per source, fed to every input it reaches. */
static int *same_source(Lw *w, Node **cut, int ncut)
{
	int *first = arena_alloc(w->c->arena, (size_t)(ncut + 1) * sizeof *first);
	for (int i = 0; i < ncut; i++) {
		first[i] = i;
		for (int j = 0; j < i && first[i] == i; j++)
			if (strcmp(cut[j]->lhs->owner, cut[i]->lhs->owner) == 0 &&
			    strcmp(cut[j]->lhs->name, cut[i]->lhs->name) == 0)
				first[i] = j;
	}
	return first;
}

static Node *source_ref(Lw *w, Node *cp)
{
	return mk_port(w, cp->lhs->owner, cp->lhs->name, cp->lhs->decl, SYM_INNER_OUT);
}

static Node *source_start(Lw *w, Node *cp)
{
	Inner *in = sema_inner(w->info, cp->lhs->owner);
	InnerPort *ip = in ? sema_inner_port(in, cp->lhs->name) : NULL;
	return ip ? start_value(w, in, ip) : mk_real(w, 0.0);
}

static SaType source_type(Lw *w, Node *cp)
{
	Inner *in = sema_inner(w->info, cp->lhs->owner);
	InnerPort *ip = in ? sema_inner_port(in, cp->lhs->name) : NULL;
	return ip && ip->type != TY_NONE ? ip->type : TY_REAL;
}

/* cp's target := converted value. */
static Node *feed(Lw *w, Node *cp, Node *value)
{
	return mk_assign(w, mk_port(w, cp->rhs->owner, cp->rhs->name, cp->rhs->decl, SYM_INNER_IN),
			 converted(w, value, cp->converts ? cp->scale : 1,
				   cp->converts ? cp->offset : 0));
}

static Node *rule_loop_order(Lw *w, Node *g, Node **cut, int ncut)
{
	(void)g;
	Inner **order = step_order(w, cut, ncut);
	if (!order) {
		diag_error(w->c->diag, w->at, "%s: the inner fmus still form an algebraic loop "
			   "when the couplings into the ports named here are cut", w->rule);
		diag_note(w->c->diag, w->at, "name one more port of the loop (`at P and Q`)");
		w->failed = true;
	}
	return (Node *)order;
}

static void lower_successive_substitution(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "SuccessiveSubstitution", {0}, false}, *w = &w0;
	Node *g = general_form(w->sa, ND_SUBST);
	if (!g)
		return;
	w->at = g->loc;
	if (!control_free(w, "successive substitution"))
		return; /* (1) */
	int ncut;
	Node **cut = torn_couplings(w, g, &ncut, true);
	if (!cut)
		return; /* (2) */
	for (int i = 0; i < info->ninners; i++)
		if (!can_rollback(info->inners[i], 0)) {
			Inner *in = info->inners[i];
			diag_error(c->diag, g->loc, "SuccessiveSubstitution: inner fmu '%s' cannot save "
				   "and restore its state, and every iteration rolls the loop back",
				   in->name);
			diag_note(c->diag, in->decl->loc, in->fmu ? "its model description says "
				  "canGetAndSetFMUstate=\"false\"" : "an fmu inside it cannot roll back");
			w->failed = true;
		}
	if (w->failed)
		return; /* (3) */
	Inner **order = (Inner **)rule_loop_order(w, g, cut, ncut);
	if (!order)
		return; /* (4) */
	Arena *a = c->arena;
	int sym;
	Node *maxiter = find_user(w->sa, "SUBSTITUTION_MAXITER", &sym);
	if (maxiter && sym != SYM_PARAM) {
		fresh(w, "SUBSTITUTION_MAXITER", "the iteration bound");
		return; /* (5) */
	}
	if (!maxiter) {
		maxiter = mk_decl(w, "SUBSTITUTION_MAXITER", TY_INTEGER, mk_int(w, 10), DECL_PARAM);
		w->sa->a_params = ast_append(w->sa->a_params, maxiter);
	}
	Node **guess = arena_alloc(a, (size_t)(ncut + 1) * sizeof *guess);
	int *src = same_source(w, cut, ncut);
	for (int i = 0; i < ncut; i++)
		guess[i] = src[i] != i ? guess[src[i]]
			   : new_ctrl_var(w, fmt(w, "guess_%s_%s", cut[i]->lhs->owner, cut[i]->lhs->name),
					  source_type(w, cut[i]), source_start(w, cut[i]),
					  fmt(w, "the guess for '%s.%s'", cut[i]->lhs->owner,
					      cut[i]->lhs->name));
	Node *conv_d = NULL, *step_d = NULL, *iter_d = NULL;
	Node *conv_v = new_local(w, "converged", TY_BOOL, mk_bool(w, false), &conv_d);
	Node *step_v = new_local(w, "step", TY_REAL, mk_kv(w, KV_BIG_H), &step_d);
	if (w->failed || !fresh(w, "iteration", "the loop variable of the generated control rules"))
		return;
	Node *rtol = setting(g->list2, SET_REL_TOL), *atol = setting(g->list2, SET_ABS_TOL);
	Node *loop = mk_for(w, "iteration", mk_int(w, 0),
			    mk_ref_to(w, maxiter, SYM_PARAM), &iter_d);
	Node *body = NULL, *back = NULL, *test = NULL, *update = NULL;
	for (int i = 0; i < info->ninners; i++) {
		body = ast_append(body, mk_call_stmt(w, mk_fmu_call(w, BI_SAVE_STATE, order[i], NULL)));
		back = ast_append(back, mk_call_stmt(w, mk_fmu_call(w, BI_ROLLBACK, order[i], NULL)));
	}
	for (int i = 0; i < ncut; i++)
		body = ast_append(body, feed(w, cut[i], mk_ref_to(w, guess[i], SYM_CTRL_VAR)));
	for (int i = 0; i < info->ninners; i++)
		body = ast_append(body, mk_call_stmt(w, mk_fmu_call(w, BI_DO_STEP, order[i],
						list2(mk_kv(w, KV_T), mk_kv(w, KV_BIG_H)))));
	for (int i = 0; i < ncut; i++) {
		if (src[i] != i)
			continue;
		Node *args = list2(mk_ref_to(w, guess[i], SYM_CTRL_VAR), source_ref(w, cut[i]));
		args->next->next = rtol ? clone(w, rtol) : mk_real(w, 1e-5);
		args->next->next->next = atol ? clone(w, atol) : mk_real(w, 1e-8);
		Node *close = mk_builtin(w, BI_IS_CLOSE, args);
		test = test ? mk_bin(w, OP_AND, test, close) : close;
		update = ast_append(update, mk_assign(w, mk_ref_to(w, guess[i], SYM_CTRL_VAR),
						      source_ref(w, cut[i])));
	}
	body = ast_append(body, mk_assign(w, mk_ref_to(w, conv_d, SYM_LOCAL), test));
	body = ast_append(body, update);
	body = ast_append(body, mk_if(w, mk_ref_to(w, conv_d, SYM_LOCAL), mk(w, ND_BREAK), back));
	loop->then->list1 = body;
	Node *stmts = list2(conv_v, step_v);
	stmts = ast_append(stmts, loop);
	stmts = ast_append(stmts, mk_if(w, mk_not(w, mk_ref_to(w, conv_d, SYM_LOCAL)),
		mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL),
			  mk_bin(w, OP_DIV, mk_kv(w, KV_BIG_H), mk_real(w, 2.0))), NULL));
	Node *ret = mk(w, ND_RETURN);
	ret->lhs = mk_ref_to(w, step_d, SYM_LOCAL);
	stmts = ast_append(stmts, ret);
	set_control(w, stmts);
	consume(w, g);
}

/* ---- Delay -------------------------------------------------------------------------------
 * `delay at P (and Q)`: cuts the loop at P, Q as successive substitution does, feeding
 * each cut coupling's target the value its source s.o had at the end of the previous step:
 *
 *   control var delayed_<s>_<o> := <start of s.o>;
 *   control rules {
 *     f.P := <converted delayed_<s>_<o>>; ...
 *     var H_<f> := do_step(f, t, H); ...          order of the couplings not cut
 *     delayed_<s>_<o> := s.o; ...
 *     return min(H_<f>, ...);
 *   }
 * Preconditions:
 *   1. the adaptation has no control rules of its own and no other control form;
 *   2. each P is an inner port on a coupling;
 *   3. no loop remains once the couplings into P, Q are cut. */

static void lower_delay(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Delay", {0}, false}, *w = &w0;
	Node *g = general_form(w->sa, ND_DELAY);
	if (!g)
		return;
	w->at = g->loc;
	if (!control_free(w, "delay"))
		return; /* (1) */
	int ncut;
	Node **cut = torn_couplings(w, g, &ncut, false);
	if (!cut)
		return; /* (2) */
	Inner **order = (Inner **)rule_loop_order(w, g, cut, ncut);
	if (!order)
		return; /* (3) */
	Node **held = arena_alloc(c->arena, (size_t)(ncut + 1) * sizeof *held);
	int *src = same_source(w, cut, ncut);
	for (int i = 0; i < ncut; i++)
		held[i] = src[i] != i ? held[src[i]]
			  : new_ctrl_var(w, fmt(w, "delayed_%s_%s", cut[i]->lhs->owner, cut[i]->lhs->name),
					 source_type(w, cut[i]), source_start(w, cut[i]),
					 fmt(w, "the delayed value of '%s.%s'", cut[i]->lhs->owner,
					     cut[i]->lhs->name));
	Node *stmts = NULL, *steps = NULL;
	for (int i = 0; i < ncut && held[i]; i++)
		stmts = ast_append(stmts, feed(w, cut[i], mk_ref_to(w, held[i], SYM_CTRL_VAR)));
	for (int i = 0; i < info->ninners; i++) {
		Node *d = NULL;
		Node *call = mk_fmu_call(w, BI_DO_STEP, order[i], list2(mk_kv(w, KV_T), mk_kv(w, KV_BIG_H)));
		Node *v = new_local(w, fmt(w, "H_%s", order[i]->name, NULL), TY_REAL, call, &d);
		if (!v)
			return;
		stmts = ast_append(stmts, v);
		steps = ast_append(steps, mk_ref_to(w, d, SYM_LOCAL));
	}
	if (w->failed)
		return;
	for (int i = 0; i < ncut; i++)
		if (src[i] == i)
			stmts = ast_append(stmts, mk_assign(w, mk_ref_to(w, held[i], SYM_CTRL_VAR),
							    source_ref(w, cut[i])));
	Node *ret = mk(w, ND_RETURN);
	ret->lhs = steps && steps->next ? mk_builtin(w, BI_MIN, steps) : steps;
	stmts = ast_append(stmts, ret);
	set_control(w, stmts);
	consume(w, g);
}

/* ---- control forms: Triggered, Periodic, Multiplied -------------------------------------
 * Each rewrites the control form the user wrote (`triggered by E`, `periodic (at T0)? every
 * P`, `multiplied N times`) into control rules.  `implied` is left to CreateCtrlRules (the
 * default rules) and written out by Implied, at the end of the stage, so that `sacc
 * explicit --after Lower` shows it too.
 *
 * Triggered (`triggered by E`): the inners step only on the external steps where E holds
 * (E evaluated once, at the step's start, after In), each from the time it last stepped to
 * (last_execution_time) to t + H, so that one step covers the time skipped:
 *
 *   control rules {
 *     var triggered_step := H;
 *     if (E) {
 *       var from_f := last_execution_time(f);                each inner, in coupling order
 *       var H_f := do_step(f, from_f, t + H - from_f);
 *       if (H_f < t + H - from_f) { triggered_step := min(triggered_step, from_f + H_f - t); }
 *     }
 *     return triggered_step;
 *   }
 *
 * On the other steps nothing steps: the out vars keep the outputs of the last inner step
 * (a hold).  An inner's discard gives a shorter step, reported as a rejection.
 *
 * Periodic (`periodic at T0 every P`, T0 = 0 when left out): the inners step at the
 * instants T0 + k P after the start, each time from the time they last stepped to the
 * instant (at T0 itself too, when T0 is after the start).  The wrapper's step must end on
 * each instant: a step that would carry past the next instant is rejected before anything
 * steps, proposing the step that ends on it (as crossings do), and the orchestrator's
 * retry lands there.  Instants are counted, not accumulated, so they do not drift:
 *
 *   control var Integer periodic_count := 0;      the next instant is T0 + periodic_count P
 *   control rules {
 *     var periodic_step := H;
 *     if (T0 + periodic_count * P <= t + 1e-9 P) { periodic_count := floor((t - T0) / P + 1e-9) + 1; }
 *     var periodic_next := T0 + periodic_count * P;
 *     if (t + H > periodic_next + 1e-9 P) { periodic_step := periodic_next - t; }
 *     else if (t + H >= periodic_next - 1e-9 P) {
 *       <the triggered body, stepping each inner to t + H>; periodic_count := periodic_count + 1;
 *     }
 *     return periodic_step;
 *   }
 *
 * Multiplied (`multiplied N times`): N inner steps of H / N per external step; the in rules
 * run once per inner step and see the same stored inputs, so the inputs are held:
 *
 *   control rules {
 *     var micro_step := H / N; var inner_time := t;
 *     for (var micro in 0 .. N) { do_step(f, inner_time, micro_step); ...;
 *                                 inner_time := inner_time + micro_step; }
 *     return H;
 *   }
 * Preconditions:
 *   1. the inner FMUs can be ordered by their couplings (no algebraic loop);
 *   2. (Triggered) E is Bool (the checker's);
 *   3. (Periodic) P is not a literal of 0 or less; every inner FMU can save and restore
 *      its state (a rejected step returns the wrapper and its inners to t: without, the
 *      wrapper could not land on the instants);
 *   4. (Multiplied) N is an Integer expression (the loop's bound), and not a literal
 *      below 1. */

/* The adaptation's control form when it is of this kind (the form's location becomes the
 * place of what follows), else NULL. */
static Node *control_form(Lw *w, NodeKind kind)
{
	Node *ctrl = w->sa->a_ctrl;
	if (!ctrl || ctrl->kind != kind)
		return NULL;
	w->at = ctrl->loc;
	return ctrl;
}

static Inner **ordered_inners(Lw *w, const char *form)
{
	Inner **order = step_order(w, NULL, 0);
	if (!order) {
		diag_error(w->c->diag, w->at, "%s: the inner fmus form an algebraic loop; '%s' "
			   "cannot order their steps", w->rule, form);
		diag_note(w->c->diag, w->at, "solve the loop in an inner adaptation (successive "
			  "substitution) and use the form on it");
		w->failed = true;
	}
	return order; /* (1) */
}

/* Each inner steps from the time it last stepped to t + H, the step in *step_d shortened
 * to what the inners took.  NULL after a report. */
static Node *catch_up(Lw *w, Inner **order, Node *step_d, const char *prefix)
{
	Node *stmts = NULL;
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = order[i];
		Node *from_d = NULL, *h_d = NULL;
		Node *from_v = new_local(w, fmt(w, "%s_%s", prefix, in->name), TY_REAL,
					 mk_fmu_call(w, BI_LAST_EXECUTION_TIME, in, NULL), &from_d);
		if (!from_v)
			return NULL;
		Node *span = mk_bin(w, OP_SUB, mk_bin(w, OP_ADD, mk_kv(w, KV_T), mk_kv(w, KV_BIG_H)),
				    mk_ref_to(w, from_d, SYM_LOCAL));
		Node *call = mk_fmu_call(w, BI_DO_STEP, in, list2(mk_ref_to(w, from_d, SYM_LOCAL), span));
		Node *h_v = new_local(w, fmt(w, "H_%s", in->name, NULL), TY_REAL, call, &h_d);
		if (!h_v)
			return NULL;
		Node *reached = mk_bin(w, OP_SUB, mk_bin(w, OP_ADD, mk_ref_to(w, from_d, SYM_LOCAL),
							 mk_ref_to(w, h_d, SYM_LOCAL)), mk_kv(w, KV_T));
		Node *upd = mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL),
			mk_builtin(w, BI_MIN, list2(mk_ref_to(w, step_d, SYM_LOCAL), reached)));
		/* Only a shorter step shortens: the whole span, recomputed as from + H_f - t,
		 * rounds by ulps of t, which a short step far from 0 would take for a rejection. */
		Node *span_again = mk_bin(w, OP_SUB, mk_bin(w, OP_ADD, mk_kv(w, KV_T),
							    mk_kv(w, KV_BIG_H)),
					  mk_ref_to(w, from_d, SYM_LOCAL));
		Node *shorter = mk_if(w, mk_bin(w, OP_LT, mk_ref_to(w, h_d, SYM_LOCAL), span_again),
				      upd, NULL);
		stmts = ast_append(stmts, from_v);
		stmts = ast_append(stmts, h_v);
		stmts = ast_append(stmts, shorter);
	}
	return stmts;
}

static Node *mk_return(Lw *w, Node *e)
{
	Node *ret = mk(w, ND_RETURN);
	ret->lhs = e;
	return ret;
}

static void lower_triggered(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Triggered", {0}, false}, *w = &w0;
	Node *ctrl = control_form(w, ND_CTRL_TRIGGERED);
	if (!ctrl)
		return;
	Inner **order = ordered_inners(w, "triggered by");
	if (!order)
		return; /* (1) */
	Node *step_d = NULL;
	Node *stmts = new_local(w, "triggered_step", TY_REAL, mk_kv(w, KV_BIG_H), &step_d);
	Node *body = stmts ? catch_up(w, order, step_d, "from") : NULL;
	if (!body)
		return;
	stmts = ast_append(stmts, mk_if(w, ctrl->cond, body, NULL));
	stmts = ast_append(stmts, mk_return(w, mk_ref_to(w, step_d, SYM_LOCAL)));
	set_control(w, stmts);
}

static void lower_periodic(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Periodic", {0}, false}, *w = &w0;
	Node *ctrl = control_form(w, ND_CTRL_PERIODIC);
	if (!ctrl)
		return;
	Node *P = ctrl->rhs;
	if ((P->kind == ND_INT && P->ival <= 0) || (P->kind == ND_REAL && !(P->rval > 0))) {
		diag_error(c->diag, P->loc, "Periodic: the period must be greater than 0");
		return; /* (3) */
	}
	for (int i = 0; i < info->ninners; i++)
		if (!can_rollback(info->inners[i], 0)) {
			Inner *in = info->inners[i];
			diag_error(c->diag, ctrl->loc, "Periodic: inner fmu '%s' cannot save and restore "
				   "its state, and the wrapper lands on each instant by rejecting the step "
				   "that would pass it", in->name);
			diag_note(c->diag, in->decl->loc, in->fmu ? "its model description says "
				  "canGetAndSetFMUstate=\"false\"" : "an fmu inside it cannot roll back");
			w->failed = true;
		}
	if (w->failed)
		return; /* (3) */
	Inner **order = ordered_inners(w, "periodic");
	if (!order)
		return; /* (1) */
	Node *T0 = ctrl->lhs ? ctrl->lhs : mk_real(w, 0.0);
	Node *count = new_ctrl_var(w, "periodic_count", TY_INTEGER, mk_int(w, 0),
				   "the number of the next instant");
	if (!count || !fresh(w, "periodic_next", "a local of the generated control rules"))
		return;
	Node *step_d = NULL, *next_d = NULL;
	Node *stmts = new_local(w, "periodic_step", TY_REAL, mk_kv(w, KV_BIG_H), &step_d);
	if (!stmts)
		return;
	/* tol = 1e-9 P: how close to an instant a step must end to end on it */
#define TOL() mk_bin(w, OP_MUL, mk_real(w, 1e-9), clone(w, P))
#define INSTANT() mk_bin(w, OP_ADD, clone(w, T0), mk_bin(w, OP_MUL, \
			mk_ref_to(w, count, SYM_CTRL_VAR), clone(w, P)))
	Node *first = mk_assign(w, mk_ref_to(w, count, SYM_CTRL_VAR),
		mk_bin(w, OP_ADD, mk_builtin(w, BI_FLOOR, mk_bin(w, OP_ADD,
			mk_bin(w, OP_DIV, mk_bin(w, OP_SUB, mk_kv(w, KV_T), clone(w, T0)), clone(w, P)),
			mk_real(w, 1e-9))), mk_int(w, 1)));
	stmts = ast_append(stmts, mk_if(w, mk_bin(w, OP_LE, INSTANT(),
		mk_bin(w, OP_ADD, mk_kv(w, KV_T), TOL())), first, NULL));
	stmts = ast_append(stmts, mk_local(w, "periodic_next", TY_REAL, INSTANT(), &next_d));
	Node *end = mk_bin(w, OP_ADD, mk_kv(w, KV_T), mk_kv(w, KV_BIG_H));
	Node *reject = mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL),
		mk_bin(w, OP_SUB, mk_ref_to(w, next_d, SYM_LOCAL), mk_kv(w, KV_T)));
	Node *body = catch_up(w, order, step_d, "from");
	if (!body)
		return;
	body = ast_append(body, mk_assign(w, mk_ref_to(w, count, SYM_CTRL_VAR),
		mk_bin(w, OP_ADD, mk_ref_to(w, count, SYM_CTRL_VAR), mk_int(w, 1))));
	Node *on = mk_if(w, mk_bin(w, OP_GE, clone(w, end), mk_bin(w, OP_SUB,
		mk_ref_to(w, next_d, SYM_LOCAL), TOL())), body, NULL);
	stmts = ast_append(stmts, mk_if(w, mk_bin(w, OP_GT, end, mk_bin(w, OP_ADD,
		mk_ref_to(w, next_d, SYM_LOCAL), TOL())), reject, on));
#undef TOL
#undef INSTANT
	stmts = ast_append(stmts, mk_return(w, mk_ref_to(w, step_d, SYM_LOCAL)));
	set_control(w, stmts);
}

static void lower_multiplied(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Multiplied", {0}, false}, *w = &w0;
	Node *ctrl = control_form(w, ND_CTRL_MULTIPLIED);
	if (!ctrl)
		return;
	Node *N = ctrl->lhs;
	if (type_of(N) != TY_INTEGER || (N->kind == ND_INT && N->ival < 1)) {
		diag_error(c->diag, N->loc, "Multiplied: the count must be an Integer of at least 1 "
			   "(it bounds the loop over the inner steps)");
		return; /* (4) */
	}
	Inner **order = ordered_inners(w, "multiplied");
	if (!order)
		return; /* (1) */
	Node *step_d = NULL, *time_d = NULL, *micro_d = NULL;
	Node *step_v = new_local(w, "micro_step", TY_REAL,
				 mk_bin(w, OP_DIV, mk_kv(w, KV_BIG_H), clone(w, N)), &step_d);
	Node *time_v = new_local(w, "inner_time", TY_REAL, mk_kv(w, KV_T), &time_d);
	if (w->failed || !fresh(w, "micro", "the loop variable of the generated control rules"))
		return;
	Node *loop = mk_for(w, "micro", mk_int(w, 0), clone(w, N), &micro_d);
	for (int i = 0; i < info->ninners; i++) {
		Node *args = list2(mk_ref_to(w, time_d, SYM_LOCAL), mk_ref_to(w, step_d, SYM_LOCAL));
		loop->then->list1 = ast_append(loop->then->list1,
			mk_call_stmt(w, mk_fmu_call(w, BI_DO_STEP, order[i], args)));
	}
	loop->then->list1 = ast_append(loop->then->list1,
		mk_assign(w, mk_ref_to(w, time_d, SYM_LOCAL),
			  mk_bin(w, OP_ADD, mk_ref_to(w, time_d, SYM_LOCAL),
				 mk_ref_to(w, step_d, SYM_LOCAL))));
	Node *stmts = list2(step_v, time_v);
	stmts = ast_append(stmts, loop);
	stmts = ast_append(stmts, mk_return(w, mk_kv(w, KV_BIG_H)));
	set_control(w, stmts);
}

/* ---- Crossing -------------------------------------------------------------------------------
 * `in rules with crossing absolute tolerance = A and relative tolerance = R { ... }`: each
 * `a >! b` (a crosses b from below) or `a <! b` (from above) in a rule's condition, k-th
 * in the block, becomes
 *
 *   in var crossing_k_left := 0.0, crossing_k_right := 0.0;     a and b at the step's start
 *   in var crossing_k_left_now := 0.0, crossing_k_right_now := 0.0;   a and b now
 *   in var crossing_known := false;                 the start values are known (after Init)
 *   condition:  crossing_known and crossing_k_left_now < crossing_k_right_now and
 *               not is_close(crossing_k_left_now, crossing_k_right_now, R, A) and
 *               is_close(a, b, R, A)                                  (> for `<!`)
 *   in rules { ...; true -> { crossing_k_left := crossing_k_left_now;
 *                             crossing_k_right := crossing_k_right_now;
 *                             crossing_k_left_now := a; crossing_k_right_now := b;
 *                             crossing_known := true; }; }
 *   control rules {
 *     var crossing_step := H;
 *     if (crossing_k_left < crossing_k_right and not is_close(left, right, R, A) and
 *         not is_close(left_now, right_now, R, A) and crossing_k_left_now > crossing_k_right_now) {
 *       crossing_step := min(crossing_step, H * (left - right) / ((left - right) - (left_now - right_now)));
 *     } ...
 *     if (crossing_step >= H) { <the control rules' statements>; crossing_step := <their return>; }
 *     return crossing_step;
 *   }
 *
 * Conditions are all evaluated before any `->` part runs (the rule flags), so inside them
 * crossing_k_left_now still holds a at the step's start, and a itself its value now.  The
 * In part also runs at Init, which records the first start values.  A rejected step
 * (crossing_step < H: regula falsi proposes the step that ends on the crossing) returns
 * the wrapper to its state at t, in vars included, so the start values move only with a
 * step taken whole.  The control rules wrapped are the user's, another form's, or, when
 * there are none, the default ones (each inner stepped in coupling order, `return min(H_f)`).
 * Preconditions:
 *   1. the crossings are in in rules' conditions, an expression or a condition block's
 *      `return e` (out rules: not lowered yet, which the checker reports; in a block, the
 *      block's own vars are refused by 5).  A rule's own settings
 *      (`cond with absolute tolerance = X`) replace the block's for its crossings;
 *   2. the crossing's signal a is Real;
 *   3. without control rules, the inner FMUs can be ordered by their couplings;
 *   4. the adaptation is reactive: a delayed one's In sees the inputs at t, which no
 *      shorter step moves, so the retries could not approach the crossing;
 *   5. a and b read only input ports, parameters, literals, t and H: an in var is
 *      written by the `->` parts after the conditions read it, a control var or an inner
 *      output by the step after them, so none moves with the step being tried. */

typedef struct Cross {
	Node *cmp;                    /* the user's a >! b */
	Node *rtol, *atol;            /* its tolerances (the rule's, else the block's) */
	Node *left, *right, *left_now, *right_now;
} Cross;

static SaType signal_type(Lw *w, const Node *e)
{
	if (e->kind == ND_PORT_REF && e->owner && e->sym != SYM_INPORT && e->sym != SYM_OUTPORT) {
		Inner *in = sema_inner(w->info, e->owner);
		InnerPort *ip = in ? sema_inner_port(in, e->name) : NULL;
		return ip ? ip->type : TY_NONE;
	}
	if (e->kind == ND_PORT_REF)
		return e->decl ? e->decl->type : TY_NONE;
	return type_of(e);
}

static Node *is_close4(Lw *w, Node *a, Node *b, Node *rtol, Node *atol)
{
	Node *args = list2(a, b);
	args->next->next = rtol ? clone(w, rtol) : mk_real(w, 1e-5);
	args->next->next->next = atol ? clone(w, atol) : mk_real(w, 1e-8);
	return mk_builtin(w, BI_IS_CLOSE, args);
}

/* The first reference under e a crossing may not read, or NULL: what does not move with the
 * step being tried (in rules: precondition 5; out rules, where inner outputs have stepped
 * when the conditions are read: precondition 2 of CrossingOut). */
static const Node *unsteady(const Node *e, bool inner_outputs_move)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case ND_INT:
	case ND_REAL:
	case ND_BOOL:
		return NULL;
	case ND_KEYVAR:
		return e->op == KV_T || e->op == KV_BIG_H ? NULL : e;
	case ND_NAME:
	case ND_PORT_REF:
		return e->sym == SYM_INPORT || e->sym == SYM_PARAM ||
		       (inner_outputs_move && e->sym == SYM_INNER_OUT) ? NULL : e;
	case ND_UNARY:
	case ND_BINARY: {
		const Node *l = unsteady(e->lhs, inner_outputs_move);
		return l ? l : unsteady(e->rhs, inner_outputs_move);
	}
	case ND_BUILTIN:
		if (e->op == BI_IS_SET || e->name)
			return e;
		for (const Node *a = e->list1; a; a = a->next) {
			const Node *bad = unsteady(a, inner_outputs_move);
			if (bad)
				return bad;
		}
		return NULL;
	default:
		return e;
	}
}

/* Whether the signal of crossing x (its left operand) is Real: a crossing is located by
 * interpolating it.  Reports it otherwise. */
static bool real_signal(Lw *w, const Node *x)
{
	SaType ta = signal_type(w, x->lhs);
	if (ta == TY_REAL || ta == TY_NONE)
		return true;
	diag_error(w->c->diag, x->lhs->loc, "%s: the signal of '%s' must be Real, not %s "
		   "(a crossing is located by interpolating it)", w->rule, ast_op_spelling(x->op),
		   ast_type_name(ta));
	w->failed = true;
	return false;
}

/* Replaces every crossing under *e (collected in xs), numbering them from *n. */
static void replace_crossings(Lw *w, Node **e, Cross *xs, int *n, int max, Node *known,
			      Node *rtol, Node *atol)
{
	Node *x = *e;
	if (!x)
		return; /* after a failure, on to report the other crossings */
	if (x->kind == ND_BINARY && (x->op == OP_CROSS_UP || x->op == OP_CROSS_DOWN)) {
		if (*n >= max)
			return;
		if (!real_signal(w, x))
			return; /* (2) */
		const Node *bad = unsteady(x->lhs, false);
		if (!bad)
			bad = unsteady(x->rhs, false);
		if (bad) {
			diag_error(w->c->diag, bad->loc, "%s: '%s' may read only input ports, parameters, "
				   "literals, t and H (the values that move with the step being tried)",
				   w->rule, ast_op_spelling(x->op));
			if (bad->sym == SYM_LOCAL)
				diag_note(w->c->diag, bad->loc, "a var of the condition block is computed "
					  "once per step, not again as the step tried shrinks; cross the "
					  "input port it is computed from");
			else
				diag_note(w->c->diag, bad->loc, "in rule conditions see in vars before this "
					  "step's `->` parts write them, control vars and inner outputs "
					  "before the step; cross the input port they are read from");
			w->failed = true;
			return; /* (5) */
		}
		Cross *c = &xs[(*n)++];
		c->cmp = x;
		c->rtol = rtol;
		c->atol = atol;
		char k[24];
		snprintf(k, sizeof k, "%d", *n);
		const char *purpose = "a crossing's values";
		c->left = new_in_var(w, fmt(w, "crossing_%s_left", k, NULL), TY_REAL, mk_real(w, 0.0), purpose);
		c->right = new_in_var(w, fmt(w, "crossing_%s_right", k, NULL), TY_REAL, mk_real(w, 0.0), purpose);
		c->left_now = new_in_var(w, fmt(w, "crossing_%s_left_now", k, NULL), TY_REAL, mk_real(w, 0.0), purpose);
		c->right_now = new_in_var(w, fmt(w, "crossing_%s_right_now", k, NULL), TY_REAL, mk_real(w, 0.0), purpose);
		if (w->failed)
			return;
		Op before = x->op == OP_CROSS_UP ? OP_LT : OP_GT;
		Node *r = mk_bin(w, OP_AND, mk_ref_to(w, known, SYM_IN_VAR),
			mk_bin(w, before, mk_ref_to(w, c->left_now, SYM_IN_VAR),
			       mk_ref_to(w, c->right_now, SYM_IN_VAR)));
		r = mk_bin(w, OP_AND, r, mk_not(w, is_close4(w, mk_ref_to(w, c->left_now, SYM_IN_VAR),
			mk_ref_to(w, c->right_now, SYM_IN_VAR), rtol, atol)));
		r = mk_bin(w, OP_AND, r, is_close4(w, clone(w, x->lhs), clone(w, x->rhs), rtol, atol));
		*e = r;
		return;
	}
	replace_crossings(w, &x->lhs, xs, n, max, known, rtol, atol);
	replace_crossings(w, &x->rhs, xs, n, max, known, rtol, atol);
}

static int count_crossings(const Node *e)
{
	if (!e)
		return 0;
	return (e->kind == ND_BINARY && (e->op == OP_CROSS_UP || e->op == OP_CROSS_DOWN)) +
	       count_crossings(e->lhs) + count_crossings(e->rhs);
}

/* The default control rules' statements (as CreateCtrlRules would write them), ending in
 * `step := min(H_f, ...)`; NULL after a report. */
static Node *default_control(Lw *w, Node *step_d)
{
	Inner **order = step_order(w, NULL, 0);
	if (!order) {
		diag_error(w->c->diag, w->at, "%s: the inner fmus form an algebraic loop; the "
			   "crossing's control rules cannot order their steps", w->rule);
		w->failed = true;
		return NULL; /* (3) */
	}
	Node *stmts = NULL, *steps = NULL;
	for (int i = 0; i < w->info->ninners; i++) {
		Node *d = NULL;
		Node *call = mk_fmu_call(w, BI_DO_STEP, order[i], list2(mk_kv(w, KV_T), mk_kv(w, KV_BIG_H)));
		Node *v = new_local(w, fmt(w, "H_%s", order[i]->name, NULL), TY_REAL, call, &d);
		if (!v)
			return NULL;
		stmts = ast_append(stmts, v);
		steps = ast_append(steps, mk_ref_to(w, d, SYM_LOCAL));
	}
	Node *v = steps && steps->next ? mk_builtin(w, BI_MIN, steps) : steps ? steps : mk_kv(w, KV_BIG_H);
	return ast_append(stmts, mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL), v));
}

/* Where a rule's condition value is: the expression, or a condition block's `return e`
 * (NULL for a block without one). */
static Node **cond_value(Node *r)
{
	if (r->cond->kind != ND_BLOCK)
		return &r->cond;
	Node *ret = ast_last(r->cond->list1);
	return ret && ret->kind == ND_RETURN ? &ret->lhs : NULL;
}

/* The crossings of a rules block: takes its crossing settings out of it (consumed, the
 * tolerances into *rtol and *atol, NULL when not given) and returns how many crossings its
 * rules' conditions hold, w->at at the settings or the first one. */
static int take_crossings(Lw *w, Node *rules, Node **rtol, Node **atol)
{
	Node *set = NULL;
	for (Node **s = &rules->list1; *s; s = &(*s)->next)
		if ((*s)->kind == ND_CROSSING) {
			set = *s;
			*s = set->next; /* consumed */
			set->next = NULL;
			break;
		}
	*rtol = set ? setting(set->list1, SET_REL_TOL) : NULL;
	*atol = set ? setting(set->list1, SET_ABS_TOL) : NULL;
	int max = 0;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_COND && r->cond && cond_value(r) &&
		    count_crossings(*cond_value(r))) {
			if (!max)
				w->at = set ? set->loc : r->cond->loc;
			max += count_crossings(*cond_value(r));
		}
	return max;
}

static void lower_crossing(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Crossing", {0}, false}, *w = &w0;
	Node *rules = w->sa->a_in_rules, *rtol, *atol;
	if (!rules)
		return;
	int max = take_crossings(w, rules, &rtol, &atol);
	if (!max)
		return; /* settings without a crossing: nothing to do */
	if (w->sa->flags & KIND_DELAYED) {
		diag_error(c->diag, w->at, "%s: crossing settings need a reactive adaptation (a "
			   "delayed one reads its inputs at t, and no shorter step moves them)", w->rule);
		w->failed = true;
		return; /* (4) */
	}
	Node *known = new_in_var(w, "crossing_known", TY_BOOL, mk_bool(w, false),
				 "whether the crossings' start values are known");
	if (!known || !fresh(w, "crossing_step", "a local of the generated control rules"))
		return;
	Cross *xs = arena_alloc(c->arena, (size_t)max * sizeof *xs);
	int n = 0;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_COND && r->cond && cond_value(r)) {
			/* the rule's own settings, each one over the block's */
			Node *rr = setting(r->list1, SET_REL_TOL), *ra = setting(r->list1, SET_ABS_TOL);
			replace_crossings(w, cond_value(r), xs, &n, max, known, rr ? rr : rtol,
					  ra ? ra : atol);
			r->list1 = NULL;
		}
	if (w->failed)
		return;
	/* the sampling rule */
	Node *sample = NULL;
	for (int i = 0; i < n; i++) {
		sample = ast_append(sample, mk_assign(w, mk_ref_to(w, xs[i].left, SYM_IN_VAR),
						      mk_ref_to(w, xs[i].left_now, SYM_IN_VAR)));
		sample = ast_append(sample, mk_assign(w, mk_ref_to(w, xs[i].right, SYM_IN_VAR),
						      mk_ref_to(w, xs[i].right_now, SYM_IN_VAR)));
		sample = ast_append(sample, mk_assign(w, mk_ref_to(w, xs[i].left_now, SYM_IN_VAR),
						      clone(w, xs[i].cmp->lhs)));
		sample = ast_append(sample, mk_assign(w, mk_ref_to(w, xs[i].right_now, SYM_IN_VAR),
						      clone(w, xs[i].cmp->rhs)));
	}
	sample = ast_append(sample, mk_assign(w, mk_ref_to(w, known, SYM_IN_VAR), mk_bool(w, true)));
	Node *rule = mk(w, ND_RULE);
	rule->op = RULE_COND;
	rule->cond = mk_bool(w, true);
	rule->then = mk_block(w, sample);
	rules->list3 = ast_append(rules->list3, rule);

	/* the control rules */
	Node *step_d = NULL;
	Node *stmts = mk_local(w, "crossing_step", TY_REAL, mk_kv(w, KV_BIG_H), &step_d);
	for (int i = 0; i < n; i++) {
		Cross *x = &xs[i];
		Op before = x->cmp->op == OP_CROSS_UP ? OP_LT : OP_GT;
		Op after = x->cmp->op == OP_CROSS_UP ? OP_GT : OP_LT;
		Node *l = mk_ref_to(w, x->left, SYM_IN_VAR), *r = mk_ref_to(w, x->right, SYM_IN_VAR);
		Node *cond = mk_bin(w, before, l, r);
		cond = mk_bin(w, OP_AND, cond, mk_not(w, is_close4(w, mk_ref_to(w, x->left, SYM_IN_VAR),
			mk_ref_to(w, x->right, SYM_IN_VAR), x->rtol, x->atol)));
		cond = mk_bin(w, OP_AND, cond, mk_not(w, is_close4(w, mk_ref_to(w, x->left_now, SYM_IN_VAR),
			mk_ref_to(w, x->right_now, SYM_IN_VAR), x->rtol, x->atol)));
		cond = mk_bin(w, OP_AND, cond, mk_bin(w, after, mk_ref_to(w, x->left_now, SYM_IN_VAR),
						       mk_ref_to(w, x->right_now, SYM_IN_VAR)));
		Node *d0 = mk_bin(w, OP_SUB, mk_ref_to(w, x->left, SYM_IN_VAR),
				  mk_ref_to(w, x->right, SYM_IN_VAR));
		Node *d1 = mk_bin(w, OP_SUB, mk_ref_to(w, x->left_now, SYM_IN_VAR),
				  mk_ref_to(w, x->right_now, SYM_IN_VAR));
		Node *falsi = mk_bin(w, OP_DIV, mk_bin(w, OP_MUL, mk_kv(w, KV_BIG_H), d0),
				     mk_bin(w, OP_SUB, clone(w, d0), d1));
		Node *upd = mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL),
			mk_builtin(w, BI_MIN, list2(mk_ref_to(w, step_d, SYM_LOCAL), falsi)));
		stmts = ast_append(stmts, mk_if(w, cond, upd, NULL));
	}
	Node *ctrl = w->sa->a_ctrl, *body;
	if (!ctrl || ctrl->kind == ND_CTRL_IMPLIED) {
		body = default_control(w, step_d);
		if (!body)
			return;
	} else if (ctrl->kind != ND_CTRL) {
		diag_error(c->diag, w->at, "%s: crossing settings with a declarative control form "
			   "cannot be lowered yet", w->rule);
		w->failed = true;
		return; /* not lowered: triggered, periodic, multiplied */
	} else {
		Node *ret = ast_last(ctrl->body->list1);
		body = NULL;
		for (Node *s = ctrl->body->list1, *next; s && s != ret; s = next) {
			next = s->next;
			s->next = NULL;
			body = ast_append(body, s);
		}
		body = ast_append(body, mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL), ret->lhs));
	}
	stmts = ast_append(stmts, mk_if(w, mk_bin(w, OP_GE, mk_ref_to(w, step_d, SYM_LOCAL),
						   mk_kv(w, KV_BIG_H)), body, NULL));
	Node *ret = mk(w, ND_RETURN);
	ret->lhs = mk_ref_to(w, step_d, SYM_LOCAL);
	stmts = ast_append(stmts, ret);
	const char *origin = ctrl && ctrl->kind == ND_CTRL ? ctrl->origin : NULL;
	set_control(w, stmts);
	if (origin)
		w->sa->a_ctrl->origin = origin; /* still that form's: no other may combine */
}

/* ---- CrossingOut ---------------------------------------------------------------------------
 * Crossing settings on out rules (`out rules with crossing ...`, or a rule's own settings):
 * `a >! b` over inner outputs.  The inner outputs move only when the inners step, so the
 * step is tried first and rejected afterwards when a was carried past b; the wrapper's
 * snapshot takes it, the inners included, back to t.  The values at the step's start are
 * sampled by the control rules into control vars before anything steps (the out rule
 * conditions, evaluated by MapOut after the step, see them):
 *
 *   control var out_crossing_<k>_left := 0.0, out_crossing_<k>_right := 0.0;
 *   out rules {
 *     out_crossing_k_left < out_crossing_k_right and not is_close(left, right, R, A) and
 *         is_close(a, b, R, A) -> ...                                   (was a >! b -> ...)
 *   }
 *   control rules {
 *     var out_crossing_step := H;
 *     out_crossing_<k>_left := a; out_crossing_<k>_right := b; ...
 *     <the control rules' statements>; out_crossing_step := <their return>;
 *     if (left < right and not is_close(left, right, R, A) and not is_close(a, b, R, A)
 *         and a > b) {
 *       out_crossing_step := min(out_crossing_step, H * (left - right) / ((left - right) - (a - b)));
 *     } ...
 *     return out_crossing_step;
 *   }
 *
 * In the control rules a and b read the inner outputs as stored after the last step
 * (ReplacePortsRefsByVars): before the inners step, their values at t; after, at t + H.
 * At Init both start values are 0, so no crossing fires there.  The control rules wrapped
 * are the user's, another form's (an in rule crossing's too: its rejection comes first),
 * or the default ones.
 * Preconditions:
 *   1. a is Real;
 *   2. a and b read only inner outputs, input ports, parameters, literals, t and H (out
 *      vars are written by the `->` parts after the conditions read them);
 *   3. every inner FMU can save and restore its state (the step is rejected after the
 *      inners stepped);
 *   4. without control rules, the inner FMUs can be ordered by their couplings. */

static void replace_crossings_out(Lw *w, Node **e, Cross *xs, int *n, int max, Node *rtol,
				  Node *atol)
{
	Node *x = *e;
	if (!x)
		return;
	if (x->kind == ND_BINARY && (x->op == OP_CROSS_UP || x->op == OP_CROSS_DOWN)) {
		if (*n >= max)
			return;
		if (!real_signal(w, x))
			return; /* (1) */
		const Node *bad = unsteady(x->lhs, true);
		if (!bad)
			bad = unsteady(x->rhs, true);
		if (bad) {
			diag_error(w->c->diag, bad->loc, "%s: '%s' on out rules may read only inner "
				   "outputs, input ports, parameters, literals, t and H (the values "
				   "that move with the step being tried)", w->rule,
				   ast_op_spelling(x->op));
			w->failed = true;
			return; /* (2) */
		}
		Cross *c = &xs[(*n)++];
		c->cmp = x;
		c->rtol = rtol;
		c->atol = atol;
		char k[24];
		snprintf(k, sizeof k, "%d", *n);
		const char *purpose = "a crossing's values at the step's start";
		c->left = new_ctrl_var(w, fmt(w, "out_crossing_%s_left", k, NULL), TY_REAL,
				       mk_real(w, 0.0), purpose);
		c->right = new_ctrl_var(w, fmt(w, "out_crossing_%s_right", k, NULL), TY_REAL,
					mk_real(w, 0.0), purpose);
		if (w->failed)
			return;
		Op before = x->op == OP_CROSS_UP ? OP_LT : OP_GT;
		Node *r = mk_bin(w, before, mk_ref_to(w, c->left, SYM_CTRL_VAR),
				 mk_ref_to(w, c->right, SYM_CTRL_VAR));
		r = mk_bin(w, OP_AND, r, mk_not(w, is_close4(w, mk_ref_to(w, c->left, SYM_CTRL_VAR),
			mk_ref_to(w, c->right, SYM_CTRL_VAR), rtol, atol)));
		r = mk_bin(w, OP_AND, r, is_close4(w, clone(w, x->lhs), clone(w, x->rhs), rtol, atol));
		*e = r;
		return;
	}
	replace_crossings_out(w, &x->lhs, xs, n, max, rtol, atol);
	replace_crossings_out(w, &x->rhs, xs, n, max, rtol, atol);
}

static void lower_crossing_out(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "CrossingOut", {0}, false}, *w = &w0;
	Node *rules = w->sa->a_out_rules, *rtol, *atol;
	if (!rules)
		return;
	int max = take_crossings(w, rules, &rtol, &atol);
	if (!max)
		return;
	for (int i = 0; i < info->ninners; i++)
		if (!can_rollback(info->inners[i], 0)) {
			Inner *in = info->inners[i];
			diag_error(c->diag, w->at, "%s: inner fmu '%s' cannot save and restore its "
				   "state, and a crossing on out rules rejects the step after the inners "
				   "stepped", w->rule, in->name);
			diag_note(c->diag, in->decl->loc, in->fmu ? "its model description says "
				  "canGetAndSetFMUstate=\"false\"" : "an fmu inside it cannot roll back");
			w->failed = true;
		}
	if (w->failed)
		return; /* (3) */
	if (!fresh(w, "out_crossing_step", "a local of the generated control rules"))
		return;
	Cross *xs = arena_alloc(c->arena, (size_t)max * sizeof *xs);
	int n = 0;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_COND && r->cond && cond_value(r)) {
			Node *rr = setting(r->list1, SET_REL_TOL), *ra = setting(r->list1, SET_ABS_TOL);
			replace_crossings_out(w, cond_value(r), xs, &n, max, rr ? rr : rtol,
					      ra ? ra : atol);
			r->list1 = NULL;
		}
	if (w->failed)
		return;
	Node *step_d = NULL;
	Node *stmts = mk_local(w, "out_crossing_step", TY_REAL, mk_kv(w, KV_BIG_H), &step_d);
	for (int i = 0; i < n; i++) {
		stmts = ast_append(stmts, mk_assign(w, mk_ref_to(w, xs[i].left, SYM_CTRL_VAR),
						    clone(w, xs[i].cmp->lhs)));
		stmts = ast_append(stmts, mk_assign(w, mk_ref_to(w, xs[i].right, SYM_CTRL_VAR),
						    clone(w, xs[i].cmp->rhs)));
	}
	Node *ctrl = w->sa->a_ctrl, *body;
	if (!ctrl || ctrl->kind == ND_CTRL_IMPLIED) {
		body = default_control(w, step_d);
		if (!body)
			return; /* (4) */
	} else if (ctrl->kind != ND_CTRL) {
		diag_error(c->diag, w->at, "%s: crossing settings with this control form cannot be "
			   "lowered yet", w->rule);
		w->failed = true;
		return;
	} else {
		Node *ret = ast_last(ctrl->body->list1);
		body = NULL;
		for (Node *s = ctrl->body->list1, *next; s && s != ret; s = next) {
			next = s->next;
			s->next = NULL;
			body = ast_append(body, s);
		}
		body = ast_append(body, mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL), ret->lhs));
	}
	stmts = ast_append(stmts, body);
	for (int i = 0; i < n; i++) {
		Cross *x = &xs[i];
		Op before = x->cmp->op == OP_CROSS_UP ? OP_LT : OP_GT;
		Op after = x->cmp->op == OP_CROSS_UP ? OP_GT : OP_LT;
		Node *cond = mk_bin(w, before, mk_ref_to(w, x->left, SYM_CTRL_VAR),
				    mk_ref_to(w, x->right, SYM_CTRL_VAR));
		cond = mk_bin(w, OP_AND, cond, mk_not(w, is_close4(w, mk_ref_to(w, x->left, SYM_CTRL_VAR),
			mk_ref_to(w, x->right, SYM_CTRL_VAR), x->rtol, x->atol)));
		cond = mk_bin(w, OP_AND, cond, mk_not(w, is_close4(w, clone(w, x->cmp->lhs),
			clone(w, x->cmp->rhs), x->rtol, x->atol)));
		cond = mk_bin(w, OP_AND, cond, mk_bin(w, after, clone(w, x->cmp->lhs),
						       clone(w, x->cmp->rhs)));
		Node *d0 = mk_bin(w, OP_SUB, mk_ref_to(w, x->left, SYM_CTRL_VAR),
				  mk_ref_to(w, x->right, SYM_CTRL_VAR));
		Node *d1 = mk_bin(w, OP_SUB, clone(w, x->cmp->lhs), clone(w, x->cmp->rhs));
		Node *falsi = mk_bin(w, OP_DIV, mk_bin(w, OP_MUL, mk_kv(w, KV_BIG_H), d0),
				     mk_bin(w, OP_SUB, clone(w, d0), d1));
		Node *upd = mk_assign(w, mk_ref_to(w, step_d, SYM_LOCAL),
			mk_builtin(w, BI_MIN, list2(mk_ref_to(w, step_d, SYM_LOCAL), falsi)));
		stmts = ast_append(stmts, mk_if(w, cond, upd, NULL));
	}
	stmts = ast_append(stmts, mk_return(w, mk_ref_to(w, step_d, SYM_LOCAL)));
	const char *origin = ctrl && ctrl->kind == ND_CTRL ? ctrl->origin : NULL;
	set_control(w, stmts);
	if (origin)
		w->sa->a_ctrl->origin = origin; /* still that form's: no other may combine */
}

/* ---- Otherwise ------------------------------------------------------------------------------
 * `otherwise -> ...` in in or out rules: the condition that holds when no earlier rule's
 * did.  All the block's conditions are evaluated before any `->` part runs, so it is
 * `not (c1 or c2 ...)` over the earlier conditions (cloned, crossings already lowered);
 * `true` when it is first, `false` after a rule without condition (which always applies).
 * After condition blocks `{ s; return e; }` it is a condition block itself, which
 * evaluates each again in a scope of its own (a condition block writes only its own vars,
 * so running it twice changes nothing):
 *
 *   { var Bool otherwise_<j> := false; if (true) { s; otherwise_<j> := e; } ...
 *     return not (otherwise_<j> or c2 ...); }
 * Preconditions:
 *   1. the names otherwise_<j> are free;
 *   2. no earlier condition block calls discard(x) (evaluated again, it would see the
 *      mark it cleared). */

/* Whether a discard(x) call is anywhere under n (its list siblings included). */
static bool discards(const Node *n)
{
	for (; n; n = n->next) {
		if (n->kind == ND_BUILTIN && n->op == BI_DISCARD)
			return true;
		if (discards(n->lhs) || discards(n->rhs) || discards(n->cond) || discards(n->then) ||
		    discards(n->els) || discards(n->list1))
			return true;
	}
	return false;
}

static void lower_otherwise_in(Lw *w, Node *rules)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next) {
		if (r->op != RULE_COND || !r->cond || r->cond->kind != ND_OTHERWISE)
			continue;
		w->at = r->cond->loc;
		Node *any = NULL, *pre = NULL;
		bool always = false;
		int j = 0;
		for (Node *p = rules->list3; p != r; p = p->next) {
			if (p->op == RULE_ASSIGN) {
				always = true;
				continue;
			}
			if (p->op != RULE_COND)
				continue;
			Node *value;
			if (p->cond->kind == ND_BLOCK) {
				if (discards(p->cond->list1)) {
					diag_error(w->c->diag, w->at, "the declarative form 'otherwise' cannot "
						   "be lowered yet after a condition block that calls discard");
					diag_note(w->c->diag, p->cond->loc, "the condition block; evaluated "
						  "again, it would see the input's mark cleared");
					w->failed = true;
					return; /* (2) */
				}
				Node *block = clone(w, p->cond);
				Node *ret = ast_last(block->list1);
				if (!ret || ret->kind != ND_RETURN)
					continue; /* the checker reported it */
				char k[24];
				snprintf(k, sizeof k, "%d", ++j);
				Node *flag_d = NULL;
				Node *flag = new_local(w, fmt(w, "otherwise_%s", k, NULL), TY_BOOL,
						       mk_bool(w, false), &flag_d);
				if (!flag)
					return; /* (1) */
				Node *body = NULL;
				for (Node *s = block->list1, *next; s && s != ret; s = next) {
					next = s->next;
					s->next = NULL;
					body = ast_append(body, s);
				}
				body = ast_append(body, mk_assign(w, mk_ref_to(w, flag_d, SYM_LOCAL), ret->lhs));
				pre = ast_append(pre, flag);
				pre = ast_append(pre, mk_if(w, mk_bool(w, true), body, NULL));
				value = mk_ref_to(w, flag_d, SYM_LOCAL);
			} else {
				value = clone(w, p->cond);
			}
			any = any ? mk_bin(w, OP_OR, any, value) : value;
		}
		Node *cond = always ? mk_bool(w, false) : any ? mk_not(w, any) : mk_bool(w, true);
		r->cond = pre && !always ? mk_block(w, ast_append(pre, mk_return(w, cond))) : cond;
	}
}

static void lower_otherwise(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Otherwise", {0}, false}, *w = &w0;
	lower_otherwise_in(w, w->sa->a_in_rules);
	lower_otherwise_in(w, w->sa->a_out_rules);
}

/* ---- Hold ----------------------------------------------------------------------------------
 * `out rules with no hold | zero order hold | first order hold { ... }` (ZOH, FOH): how the
 * outputs bound to inner outputs (`y <- f.o`) are given between the inner steps, when a
 * control form (triggered, periodic) does not step every inner at every external step.
 * Each bound output keeps samples of f.o taken after f's steps, with the time f reached
 * (last_execution_time), in out vars the MapOut part writes; the Out part, at the end of
 * the external step (now = t + H; at Init, the start), gives
 *   zero order hold   the newest sample: the value f.o had when f last stepped;
 *   first order hold  the line through the two newest samples, extrapolated to now (the
 *                     newest sample while only one is known): exact for an f.o linear in
 *                     time, continuous at each inner step only if f.o was linear before;
 *   no hold           the newest sample on the external step that ends where f stepped
 *                     to (within 1e-9 H), else the type's zero: a signal present only at
 *                     the instants f computes it (an event), absent (0) in between.
 *
 *   out var hold_<y> := <start of f.o>, hold_<y>_time := 0.0;            every hold
 *   out var hold_<y>_previous := <start>, hold_<y>_previous_time := 0.0,
 *           Integer hold_<y>_samples := 0;                                FOH only
 *   out rules { true -> {
 *       if (hold_<y>_samples > 0 and last_execution_time(f) > hold_<y>_time) {   FOH
 *         hold_<y>_previous := hold_<y>; hold_<y>_previous_time := hold_<y>_time;
 *         hold_<y>_samples := 2; }
 *       hold_<y> := f.o; hold_<y>_time := last_execution_time(f);
 *       if (hold_<y>_samples == 0) { hold_<y>_samples := 1; }                     FOH
 *     } --> {
 *       sa.y := hold_<y>;                                                        ZOH
 *       if (hold_<y>_samples == 2) { sa.y := hold_<y> + (hold_<y> - hold_<y>_previous)
 *         * (t + H - hold_<y>_time) / (hold_<y>_time - hold_<y>_previous_time); }
 *       else { sa.y := hold_<y>; }                                               FOH
 *       if (hold_<y>_time >= t + H - 1e-9 * H) { sa.y := hold_<y>; } else { sa.y := 0.0; }   no hold
 *     }; ... }
 * (unit conversions of the binding applied to the value given).  The bindings are
 * removed: the generated rule feeds the ports.  MapOut runs after every inner's step; a
 * sample moves to the previous one only when f itself has stepped since.
 * Preconditions:
 *   1. one hold per rules block, on out rules (on in rules, or on one rule's output
 *      function: not lowered yet, which the checker reports);
 *   2. the adaptation has output ports bound to inner outputs;
 *   3. those ports are not String; for a first order hold, they are Real. */

static Node *new_out_var(Lw *w, const char *name, SaType type, Node *init, const char *purpose)
{
	if (!fresh(w, name, purpose))
		return NULL;
	Node *d = mk_decl(w, name, type, init, DECL_OUT);
	w->sa->a_out_vars = ast_append(w->sa->a_out_vars, d);
	return d;
}

/* The start value of inner output p, of any type but String. */
static Node *hold_start(Lw *w, const Inner *in, const InnerPort *p)
{
	if (p->type != TY_BOOL)
		return start_value(w, in, p);
	const char *s = in->fmu && p->fmu_var >= 0 ? in->fmu->vars[p->fmu_var].start : NULL;
	return mk_bool(w, s && (strcmp(s, "true") == 0 || strcmp(s, "1") == 0));
}

static Node *type_zero(Lw *w, SaType t)
{
	return t == TY_BOOL ? mk_bool(w, false) : t == TY_INTEGER ? mk_int(w, 0) : mk_real(w, 0.0);
}

static void lower_hold(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Hold", {0}, false}, *w = &w0;
	Node *rules = w->sa->a_out_rules, *hold = NULL;
	for (Node **s = rules ? &rules->list1 : NULL; s && *s;) {
		if ((*s)->kind != ND_HOLD) {
			s = &(*s)->next;
			continue;
		}
		if (hold) {
			diag_error(c->diag, (*s)->loc, "Hold: one hold per rules block");
			diag_note(c->diag, hold->loc, "the first one");
			return; /* (1) */
		}
		hold = *s;
		*s = hold->next; /* consumed */
		hold->next = NULL;
	}
	if (!hold)
		return;
	w->at = hold->loc;
	static const char *const names[] = {"no hold", "zero order hold", "first order hold"};
	const char *form = names[hold->op];
	bool foh = hold->op == HOLD_FIRST;
	int n = 0;
	for (Node *p = w->sa->a_outports; p; p = p->next) {
		if (p->bind_dir != BIND_FROM || !p->bind || p->bind->sym != SYM_INNER_OUT)
			continue;
		n++;
		if (p->type == TY_STRING) {
			diag_error(c->diag, p->loc, "Hold: output port '%s' is String, which holds do "
				   "not handle yet", p->name);
			w->failed = true; /* (3) */
		} else if (foh && p->type != TY_REAL) {
			diag_error(c->diag, p->loc, "Hold: '%s' extrapolates, and output port '%s' is "
				   "%s, not Real", form, p->name, ast_type_name(p->type));
			w->failed = true; /* (3) */
		}
	}
	if (!n) {
		diag_error(c->diag, hold->loc, "Hold: '%s' holds the output ports bound to inner "
			   "outputs, and this adaptation has none", form);
		diag_note(c->diag, hold->loc, "declare them, as `output ports Real y <- f.o`");
		return; /* (2) */
	}
	if (w->failed)
		return;
	Node *sample = NULL, *give = NULL;
	for (Node *p = w->sa->a_outports; p; p = p->next) {
		if (p->bind_dir != BIND_FROM || !p->bind || p->bind->sym != SYM_INNER_OUT)
			continue;
		Inner *in = sema_inner(info, p->bind->owner);
		InnerPort *ip = in ? sema_inner_port(in, p->bind->name) : NULL;
		if (!ip)
			continue;
		const char *y = p->name;
		SaType ty = ip->type;
		Node *v = new_out_var(w, fmt(w, "hold_%s", y, NULL), ty, hold_start(w, in, ip),
				      fmt(w, "the newest sample of '%s.%s'", in->name, ip->name));
		Node *vt = new_out_var(w, fmt(w, "hold_%s_time", y, NULL), TY_REAL, mk_real(w, 0.0),
				       "the time of the newest sample");
		Node *pv = NULL, *pt = NULL, *k = NULL;
		if (foh) {
			pv = new_out_var(w, fmt(w, "hold_%s_previous", y, NULL), ty, hold_start(w, in, ip),
					 "the sample before the newest");
			pt = new_out_var(w, fmt(w, "hold_%s_previous_time", y, NULL), TY_REAL,
					 mk_real(w, 0.0), "the time of the sample before the newest");
			k = new_out_var(w, fmt(w, "hold_%s_samples", y, NULL), TY_INTEGER, mk_int(w, 0),
					"how many samples are known");
		}
		if (w->failed)
			return;
#define R(d) mk_ref_to(w, d, SYM_OUT_VAR)
		Node *last = mk_fmu_call(w, BI_LAST_EXECUTION_TIME, in, NULL);
		if (foh) {
			Node *shift = list2(mk_assign(w, R(pv), R(v)), mk_assign(w, R(pt), R(vt)));
			shift->next->next = mk_assign(w, R(k), mk_int(w, 2));
			Node *cond = mk_bin(w, OP_AND, mk_bin(w, OP_GT, R(k), mk_int(w, 0)),
					    mk_bin(w, OP_GT, clone(w, last), R(vt)));
			sample = ast_append(sample, mk_if(w, cond, shift, NULL));
		}
		sample = ast_append(sample, mk_assign(w, R(v),
			mk_port(w, in->name, ip->name, ip->decl, SYM_INNER_OUT)));
		sample = ast_append(sample, mk_assign(w, R(vt), last));
		if (foh)
			sample = ast_append(sample, mk_if(w, mk_bin(w, OP_EQ, R(k), mk_int(w, 0)),
				mk_assign(w, R(k), mk_int(w, 1)), NULL));
		Node *now = mk_bin(w, OP_ADD, mk_kv(w, KV_T), mk_kv(w, KV_BIG_H));
		double scale = p->converts ? p->scale : 1, offset = p->converts ? p->offset : 0;
#define OUT(e) mk_assign(w, mk_port(w, w->sa->name, y, p, SYM_OUTPORT), converted(w, e, scale, offset))
		if (hold->op == HOLD_ZERO) {
			give = ast_append(give, OUT(R(v)));
		} else if (foh) {
			Node *slope = mk_bin(w, OP_DIV, mk_bin(w, OP_MUL, mk_bin(w, OP_SUB, R(v), R(pv)),
							       mk_bin(w, OP_SUB, now, R(vt))),
					     mk_bin(w, OP_SUB, R(vt), R(pt)));
			give = ast_append(give, mk_if(w, mk_bin(w, OP_EQ, R(k), mk_int(w, 2)),
				OUT(mk_bin(w, OP_ADD, R(v), slope)), OUT(R(v))));
		} else {
			Node *tol = mk_bin(w, OP_MUL, mk_real(w, 1e-9), mk_kv(w, KV_BIG_H));
			Node *on = mk_bin(w, OP_GE, R(vt), mk_bin(w, OP_SUB, now, tol));
			Node *zero = mk_assign(w, mk_port(w, w->sa->name, y, p, SYM_OUTPORT),
					       type_zero(w, p->type)); /* 0 in the port's own unit */
			give = ast_append(give, mk_if(w, on, OUT(R(v)), zero));
		}
#undef OUT
#undef R
		p->bind_dir = BIND_NONE; /* the generated rule feeds the port now */
		p->bind = NULL;
	}
	Node *rule = mk(w, ND_RULE);
	rule->op = RULE_COND;
	rule->cond = mk_bool(w, true);
	rule->then = mk_block(w, sample);
	rule->els = mk_block(w, give);
	rules->list3 = ast_append(rules->list3, rule);
}

/* ---- Quantize ------------------------------------------------------------------------------
 * A quantize rule in an in or out rules block turns signal P into zones, and an event
 * whenever P enters a new one (the paper's quantization):
 *   quantize(P, "z0", l1, "z1", ..., "zn")   named zones: z0 below l1, z_i from l_i
 *                                            (included) to l_i+1, zn from l_n;
 *   quantize P every D with offset O         the integer zones floor((P - O) / D) (O = 0);
 *   quantize(P, = expr)                      the zones are the values of expr, `signal`
 *                                            in it being P (Integer, Real or Bool), and
 *                                            signal[prev], signal[-j] P's values at the
 *                                            j-th In before (0 before there were any),
 *                                            kept in vars quantize_<k>_signal_<j>.
 * A rule whose condition is a zone's name (named zones; also inside `otherwise`) holds on
 * the step on which P enters that zone, and at Init for the zone P starts in.  The
 * quantize rule's own output function (`quantize ... --> { ... };`) runs on every step
 * that enters a new zone (at Init too).  The zone of the last In (MapOut, for out rules)
 * is kept in a var:
 *
 *   in var Integer quantize_<k>_zone := -1;        named zones (out var in out rules)
 *   in var quantize_<k>_zone := 0, Bool quantize_<k>_known := false;     the others
 *   in rules {
 *     true -> { if (P < l1) { quantize_<k>_zone := 0; } else if (P < l2) { ... := 1; }
 *               ... else { quantize_<k>_zone := n; } };
 *         (the others: { quantize_<k>_zone := Z; quantize_<k>_known := true; })
 *     not (P < l1 and quantize_<k>_zone == 0 or ...) -> { } --> <the quantize rule's own>;
 *         (the others: not quantize_<k>_known or Z != quantize_<k>_zone)
 *     l_i <= P and P < l_i+1 and quantize_<k>_zone != i -> ...      (was "z_i" -> ...)
 *   }
 *
 * Conditions are all evaluated before any `->` part runs, so inside them the var still
 * holds the zone of the previous step.  Quantizers are numbered k = 1, 2, ... over the
 * adaptation, in and then out rules.  Runs after Otherwise, whose `not (...)` may name
 * zones too (a quantize rule itself is not one of the conditions `otherwise` negates).
 * Not lowered yet (the checker reports it): String zones of `= expr`.
 * Preconditions (the checker's): every zone condition names a zone that a quantize rule
 * of its block declares, once; names and limits alternate, a name first and last; P, D
 * and O are numbers. */

/* P is in zone i of quantizer q (limits at the odd places of its list). */
static Node *in_zone(Lw *w, Node *q, int i)
{
	Node *limits[64];
	int n = 0;
	int j = 0;
	for (Node *z = q->list1; z; z = z->next, j++)
		if (j % 2 == 1 && n < 64)
			limits[n++] = z;
	Node *above = i > 0 ? mk_bin(w, OP_LE, clone(w, limits[i - 1]), clone(w, q->lhs)) : NULL;
	Node *below = i < n ? mk_bin(w, OP_LT, clone(w, q->lhs), clone(w, limits[i])) : NULL;
	if (above && below)
		return mk_bin(w, OP_AND, above, below);
	return above ? above : below ? below : mk_bool(w, true);
}

static int zone_index(Node *q, const char *name)
{
	int j = 0;
	for (Node *z = q->list1; z; z = z->next, j++)
		if (j % 2 == 0 && z->kind == ND_STRING && strcmp(z->str, name) == 0)
			return j / 2;
	return -1;
}

/* Replaces each zone name of q in condition *e (the whole condition, or an operand of its
 * `and`, `or` and `not`: where a zone can be a condition) by the event of entering that
 * zone. */
static void replace_zones(Lw *w, Node **e, Node *q, Node *zone, int sym)
{
	Node *x = *e;
	if (!x)
		return;
	if (x->kind == ND_STRING) {
		int i = zone_index(q, x->str);
		if (i < 0)
			return;
		Loc at = w->at;
		w->at = x->loc;
		*e = mk_bin(w, OP_AND, in_zone(w, q, i),
			    mk_bin(w, OP_NE, mk_ref_to(w, zone, sym), mk_int(w, i)));
		w->at = at;
		return;
	}
	if ((x->kind == ND_UNARY && x->op == OP_NOT) ||
	    (x->kind == ND_BINARY && (x->op == OP_AND || x->op == OP_OR))) {
		replace_zones(w, &x->lhs, q, zone, sym);
		replace_zones(w, &x->rhs, q, zone, sym);
	}
}

/* The same for zone numbers (integer literals) of a quantizer with zones value:
 * value == n and (not known or zone != n). */
static void replace_zone_numbers(Lw *w, Node **e, Node *value, Node *zone, Node *known, int sym)
{
	Node *x = *e;
	if (!x)
		return;
	bool neg = x->kind == ND_UNARY && x->op == OP_NEG && x->lhs->kind == ND_INT;
	if (x->kind == ND_INT || neg) {
		long long n = neg ? -x->lhs->ival : x->ival;
		Loc at = w->at;
		w->at = x->loc;
		Node *entered = mk_bin(w, OP_OR, mk_not(w, mk_ref_to(w, known, sym)),
				       mk_bin(w, OP_NE, mk_ref_to(w, zone, sym), mk_int(w, n)));
		*e = mk_bin(w, OP_AND, mk_bin(w, OP_EQ, clone(w, value), mk_int(w, n)), entered);
		w->at = at;
		return;
	}
	if ((x->kind == ND_UNARY && x->op == OP_NOT) ||
	    (x->kind == ND_BINARY && (x->op == OP_AND || x->op == OP_OR))) {
		replace_zone_numbers(w, &x->lhs, value, zone, known, sym);
		replace_zone_numbers(w, &x->rhs, value, zone, known, sym);
	}
}

/* How far back e reads the signal: 1 for signal[prev], k for signal[-k], else 0. */
static int signal_depth(const Node *e)
{
	if (!e)
		return 0;
	int d = 0;
	if (e->kind == ND_SIGNAL)
		d = e->op == SIG_PREV ? 1 : e->op == SIG_INDEX ? (int)-e->ival : 0;
	int l = signal_depth(e->lhs), r = signal_depth(e->rhs);
	d = l > d ? l : d;
	d = r > d ? r : d;
	for (const Node *a = e->kind == ND_BUILTIN ? e->list1 : NULL; a; a = a->next) {
		int x = signal_depth(a);
		d = x > d ? x : d;
	}
	return d;
}

/* e with `signal` (`signal[now]`, `signal[0]`) replaced by a copy of p, and signal[prev],
 * signal[-j] by a reference to the var keeping its j-th earlier value, past[j]. */
static Node *with_signal(Lw *w, Node *e, Node *p, Node **past, int sym)
{
	if (!e)
		return NULL;
	if (e->kind == ND_SIGNAL) {
		int j = e->op == SIG_PREV ? 1 : e->op == SIG_INDEX ? (int)-e->ival : 0;
		return j ? mk_ref_to(w, past[j], sym) : clone(w, p);
	}
	Node *c = clone(w, e);
	c->lhs = with_signal(w, e->lhs, p, past, sym);
	c->rhs = with_signal(w, e->rhs, p, past, sym);
	if (e->kind == ND_BUILTIN) {
		Node *args = NULL;
		for (Node *a = e->list1; a; a = a->next)
			args = ast_append(args, with_signal(w, a, p, past, sym));
		c->list1 = args;
	}
	return c;
}

static void lower_quantize_in(Lw *w, Node *rules, bool in, int *k)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next) {
		if (r->op != RULE_QUANTIZE)
			continue;
		Node *q = r->lhs;
		w->at = q->loc;
		if (ast_count(q->list1) > 127) {
			diag_error(w->c->diag, q->loc, "Quantize: at most 64 zones");
			w->failed = true;
			return;
		}
		(*k)++;
		char num[24];
		snprintf(num, sizeof num, "%d", *k);
		int sym = in ? SYM_IN_VAR : SYM_OUT_VAR;
		const char *purpose = "the zone of a quantized signal";
#define NEW_VAR(name, type, init) (in ? new_in_var(w, name, type, init, purpose) \
				       : new_out_var(w, name, type, init, purpose))
		Node *value = NULL; /* the zone as an expression (every, = expr) */
		Node **past = NULL; /* signal[-j]'s vars, j = 1 .. depth */
		int depth = 0;
		SaType ty = TY_INTEGER;
		if (q->op == QUANT_EVERY) {
			Node *d = mk_bin(w, OP_SUB, clone(w, q->lhs), q->els ? clone(w, q->els) : mk_real(w, 0.0));
			value = mk_builtin(w, BI_FLOOR, mk_bin(w, OP_DIV, d, clone(w, q->rhs)));
		} else if (q->op == QUANT_FUNCTION) {
			depth = signal_depth(q->rhs);
			if (depth > 16) {
				diag_error(w->c->diag, q->loc, "Quantize: at most 16 earlier values of "
					   "the signal (signal[-16])");
				w->failed = true;
				return;
			}
			past = arena_alloc(w->c->arena, (size_t)(depth + 1) * sizeof *past);
			for (int j = 1; j <= depth; j++) {
				char jn[24];
				snprintf(jn, sizeof jn, "%d", j);
				const char *pn = arena_printf(w->c->arena, "quantize_%s_signal_%s", num, jn);
				past[j] = in ? new_in_var(w, pn, TY_REAL, mk_real(w, 0.0), purpose)
					     : new_out_var(w, pn, TY_REAL, mk_real(w, 0.0), purpose);
				if (!past[j])
					return;
			}
			value = with_signal(w, q->rhs, q->lhs, past, sym);
			ty = type_of(value) == TY_BOOL ? TY_BOOL : type_of(value) == TY_INTEGER ? TY_INTEGER
											   : TY_REAL;
		}
		Node *zone = NEW_VAR(fmt(w, "quantize_%s_zone", num, NULL), ty,
				     value ? type_zero(w, ty) : mk_int(w, -1));
		Node *known = value ? NEW_VAR(fmt(w, "quantize_%s_known", num, NULL), TY_BOOL,
					      mk_bool(w, false)) : NULL;
#undef NEW_VAR
		if (!zone || (value && !known))
			return;
		Node *update, *changed;
		if (value) {
			update = list2(mk_assign(w, mk_ref_to(w, zone, sym), value),
				       mk_assign(w, mk_ref_to(w, known, sym), mk_bool(w, true)));
			for (int j = depth; j >= 1; j--) /* after the zone, which reads them */
				update = ast_append(update, mk_assign(w, mk_ref_to(w, past[j], sym),
					j > 1 ? mk_ref_to(w, past[j - 1], sym) : clone(w, q->lhs)));
			changed = mk_bin(w, OP_OR, mk_not(w, mk_ref_to(w, known, sym)),
					 mk_bin(w, OP_NE, clone(w, value), mk_ref_to(w, zone, sym)));
			/* the zone numbers of the block (the checker allows them with one such
			 * quantize rule) */
			for (Node *c = rules->list3; c; c = c->next)
				if (c->op == RULE_COND && c->cond && cond_value(c))
					replace_zone_numbers(w, cond_value(c), value, zone, known, sym);
		} else {
			int nzones = (ast_count(q->list1) + 1) / 2;
			/* the zone update, an if/else chain from the last zone back */
			update = mk_assign(w, mk_ref_to(w, zone, sym), mk_int(w, nzones - 1));
			for (int i = nzones - 2; i >= 0; i--) {
				Node *limit = NULL;
				int j = 0;
				for (Node *z = q->list1; z; z = z->next, j++)
					if (j == 2 * i + 1)
						limit = z;
				update = mk_if(w, mk_bin(w, OP_LT, clone(w, q->lhs), clone(w, limit)),
					       mk_assign(w, mk_ref_to(w, zone, sym), mk_int(w, i)), update);
			}
			Node *same = NULL;
			for (int i = 0; i < nzones; i++) {
				Node *here = mk_bin(w, OP_AND, in_zone(w, q, i),
						    mk_bin(w, OP_EQ, mk_ref_to(w, zone, sym), mk_int(w, i)));
				same = same ? mk_bin(w, OP_OR, same, here) : here;
			}
			changed = mk_not(w, same);
			/* the zone conditions of the block (within `otherwise`'s too) */
			for (Node *c = rules->list3; c; c = c->next)
				if (c->op == RULE_COND && c->cond && cond_value(c))
					replace_zones(w, cond_value(c), q, zone, sym);
		}
		Node *els = r->els;
		r->op = RULE_COND;
		r->origin = w->rule;
		r->cond = mk_bool(w, true);
		r->then = mk_block(w, update);
		r->els = NULL;
		r->lhs = NULL;
		if (els) {
			/* its output function, on the steps entering a new zone */
			Node *on = mk(w, ND_RULE);
			on->op = RULE_COND;
			on->cond = changed;
			on->then = mk_block(w, NULL);
			on->els = els;
			on->next = r->next;
			r->next = on;
			r = on;
		}
	}
}

static void lower_quantize(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Quantize", {0}, false}, *w = &w0;
	int k = 0;
	lower_quantize_in(w, w->sa->a_in_rules, true, &k);
	lower_quantize_in(w, w->sa->a_out_rules, false, &k);
}

/* ---- Implied ---------------------------------------------------------------------------
 * `implied`, the default control form, written out as CreateCtrlRules would write the
 * control rules of an adaptation without any: each inner steps by H from t, in coupling
 * order, and the step taken is the shortest of theirs.  Runs after every other form (a
 * form that generates control rules takes `implied` as no control rules at all).
 *
 *   control rules { var H_f := do_step(f, t, H); ...; return min(H_f, ...); }
 * Preconditions:
 *   1. the inner FMUs can be ordered by their couplings (no algebraic loop). */

static void lower_implied(Compilation *c, SaInfo *info)
{
	Lw w0 = {c, info, info->sa, "Implied", {0}, false}, *w = &w0;
	Node *ctrl = control_form(w, ND_CTRL_IMPLIED);
	if (!ctrl)
		return;
	Inner **order = ordered_inners(w, "implied");
	if (!order)
		return; /* (1) */
	Node *stmts = NULL, *steps = NULL;
	for (int i = 0; i < info->ninners; i++) {
		Node *d = NULL;
		Node *call = mk_fmu_call(w, BI_DO_STEP, order[i], list2(mk_kv(w, KV_T), mk_kv(w, KV_BIG_H)));
		Node *v = new_local(w, fmt(w, "H_%s", order[i]->name, NULL), TY_REAL, call, &d);
		if (!v)
			return;
		stmts = ast_append(stmts, v);
		steps = ast_append(steps, mk_ref_to(w, d, SYM_LOCAL));
	}
	Node *v = steps && steps->next ? mk_builtin(w, BI_MIN, steps) : steps ? steps : mk_kv(w, KV_BIG_H);
	stmts = ast_append(stmts, mk_return(w, v));
	set_control(w, stmts);
}

/* ---- the stage ------------------------------------------------------------------------- */

const LwRule lw_rules[] = {
	{"MultiplyRate", lower_multiply_rate},
	{"SuccessiveSubstitution", lower_successive_substitution},
	{"Delay", lower_delay},
	{"Triggered", lower_triggered},
	{"Periodic", lower_periodic},
	{"Multiplied", lower_multiplied},
	{"Crossing", lower_crossing},
	{"CrossingOut", lower_crossing_out},
	{"Otherwise", lower_otherwise},
	{"Quantize", lower_quantize},
	{"Hold", lower_hold},
	{"Implied", lower_implied},
	{NULL, NULL},
};

bool lw_is_rule(const char *name)
{
	if (strcmp(name, LW_STAGE) == 0)
		return true;
	for (const LwRule *r = lw_rules; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return true;
	return false;
}

int lw_lower(Compilation *c, SaInfo *info, const char *after)
{
	int before = diag_errors(c->diag);
	for (const LwRule *r = lw_rules; r->name; r++) {
		r->apply(c, info);
		if (after && strcmp(after, r->name) == 0)
			break;
	}
	return diag_errors(c->diag) - before;
}
