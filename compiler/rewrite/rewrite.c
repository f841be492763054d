/* rewrite.c — the rewrite framework (see rewrite.h): the runner, the node builders and
 * the questions both the lowering and the explicit-form rules ask of an adaptation. */
#include "rewrite.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the runner ------------------------------------------------------------------------ */

/* The form of this kind among the adaptation's general forms, or NULL. */
static Node *general_form(Node *sa, NodeKind kind)
{
	for (Node *g = sa->a_general; g; g = g->next)
		if (g->kind == kind)
			return g;
	return NULL;
}

/* Finds what the rule works on (w->form, w->at); false when the rule has nothing to do
 * or may not run (reported). */
static bool preamble(Rewrite *w, const RwRule *rule)
{
	switch (rule->finds) {
	case RW_GENERAL_FORM:
		w->form = general_form(w->sa, rule->kind);
		if (!w->form)
			return false;
		w->at = w->form->loc;
		return rw_control_free(w, rule->spelling);
	case RW_CONTROL_FORM:
		if (!w->sa->a_ctrl || w->sa->a_ctrl->kind != rule->kind)
			return false;
		w->form = w->sa->a_ctrl;
		w->at = w->form->loc;
		return true;
	default:
		return true;
	}
}

static void free_decls(Rewrite *w);

void rw_apply(const RwRule *rule, Compilation *c, SaInfo *info)
{
	Rewrite w = {c, info, info->sa, rule->name, {0}, NULL, false, NULL};
	if (preamble(&w, rule))
		rule->apply(&w);
	free_decls(&w);
}

int rw_run(const RwRule *rules, Compilation *c, SaInfo *info, const char *after)
{
	int before = diag_errors(c->diag);
	for (const RwRule *r = rules; r->name; r++) {
		rw_apply(r, c, info);
		if (after && strcmp(after, r->name) == 0)
			break;
	}
	return diag_errors(c->diag) - before;
}

const RwRule *rw_rule_named(const RwRule *rules, const char *name)
{
	for (const RwRule *r = rules; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

/* ---- node builders ---------------------------------------------------------------------- */

Node *rw_node(Rewrite *w, NodeKind kind)
{
	Node *n = ast_new(w->c->arena, kind, w->at);
	n->origin = w->rule;
	return n;
}

Node *rw_ref(Rewrite *w, Node *decl, int sym)
{
	Node *n = rw_node(w, ND_NAME);
	n->name = decl->name;
	n->decl = decl;
	n->sym = sym;
	n->type = decl->type;
	return n;
}

Node *rw_port(Rewrite *w, const char *owner, const char *name, Node *decl, int sym)
{
	Node *n = rw_node(w, ND_PORT_REF);
	n->owner = owner;
	n->name = name;
	n->decl = decl;
	n->sym = sym;
	return n;
}

Node *rw_real(Rewrite *w, double v)
{
	Node *n = rw_node(w, ND_REAL);
	n->rval = v;
	return n;
}

Node *rw_int(Rewrite *w, long long v)
{
	Node *n = rw_node(w, ND_INT);
	n->ival = v;
	return n;
}

Node *rw_bool(Rewrite *w, bool v)
{
	Node *n = rw_node(w, ND_BOOL);
	n->ival = v;
	return n;
}

Node *rw_string(Rewrite *w, const char *s)
{
	Node *n = rw_node(w, ND_STRING);
	n->str = s;
	return n;
}

Node *rw_keyvar(Rewrite *w, int kv)
{
	Node *n = rw_node(w, ND_KEYVAR);
	n->op = kv;
	return n;
}

Node *rw_binary(Rewrite *w, Op op, Node *l, Node *r)
{
	Node *n = ast_binary(w->c->arena, w->at, op, l, r);
	n->origin = w->rule;
	return n;
}

Node *rw_not(Rewrite *w, Node *x)
{
	Node *n = ast_unary(w->c->arena, w->at, OP_NOT, x);
	n->origin = w->rule;
	return n;
}

Node *rw_assign(Rewrite *w, Node *lhs, Node *rhs)
{
	Node *n = ast_assign(w->c->arena, w->at, lhs, rhs);
	n->origin = w->rule;
	return n;
}

Node *rw_block(Rewrite *w, Node *stmts)
{
	Node *b = rw_node(w, ND_BLOCK);
	b->list1 = stmts;
	return b;
}

Node *rw_if(Rewrite *w, Node *cond, Node *then, Node *els)
{
	Node *n = rw_node(w, ND_IF);
	n->cond = cond;
	n->then = rw_block(w, then);
	n->els = els && els->kind != ND_IF ? rw_block(w, els) : els;
	return n;
}

Node *rw_builtin(Rewrite *w, Builtin op, Node *args)
{
	Node *n = rw_node(w, ND_BUILTIN);
	n->op = op;
	n->list1 = args;
	return n;
}

Node *rw_fmu_call(Rewrite *w, Builtin op, const Inner *in, Node *args)
{
	Node *n = rw_builtin(w, op, args);
	n->name = in->name;
	n->lhs = rw_node(w, ND_NAME);
	n->lhs->name = in->name;
	n->lhs->decl = in->decl;
	n->lhs->sym = SYM_INNER;
	return n;
}

Node *rw_call_stmt(Rewrite *w, Node *call)
{
	Node *s = rw_node(w, ND_CALL_STMT);
	s->lhs = call;
	return s;
}

Node *rw_return(Rewrite *w, Node *e)
{
	Node *ret = rw_node(w, ND_RETURN);
	ret->lhs = e;
	return ret;
}

Node *rw_decl(Rewrite *w, const char *name, SaType type, Node *init, int where)
{
	Node *d = rw_node(w, ND_VARDECL);
	d->name = name;
	d->type = type;
	d->init = init;
	d->op = where;
	return d;
}

Node *rw_local(Rewrite *w, const char *name, SaType type, Node *init, Node **decl)
{
	Node *v = rw_node(w, ND_VAR);
	v->list1 = *decl = rw_decl(w, name, type, init, DECL_LOCAL);
	return v;
}

Node *rw_for(Rewrite *w, const char *name, Node *from, Node *to, Node **var)
{
	Node *f = rw_node(w, ND_FOR);
	f->name = name;
	f->lhs = from;
	f->rhs = to;
	f->init = rw_node(w, ND_NAME);
	f->init->name = name;
	f->init->type = TY_INTEGER;
	f->then = rw_block(w, NULL);
	*var = f->init;
	return f;
}

Node *rw_true_rule(Rewrite *w, Node *then, Node *els)
{
	Node *r = rw_node(w, ND_RULE);
	r->op = RULE_COND;
	r->cond = rw_bool(w, true);
	r->then = then;
	r->els = els;
	return r;
}

Node *rw_rules_block(Rewrite *w, Node **slot, int which)
{
	if (!*slot) {
		*slot = rw_node(w, ND_RULES);
		(*slot)->op = which;
	}
	return *slot;
}

Node *rw_converted(Rewrite *w, Node *x, double scale, double offset)
{
	Loc at = w->at;
	w->at = x->loc;
	Node *e = x;
	if (scale != 1)
		e = rw_binary(w, OP_MUL, rw_real(w, scale), e);
	if (offset != 0)
		e = rw_binary(w, offset < 0 ? OP_SUB : OP_ADD, e, rw_real(w, offset < 0 ? -offset : offset));
	w->at = at;
	return e;
}

/* The value a coupling's map gives for entry m: its target, converted. */
static Node *mapped_value(Rewrite *w, const Node *cp, const Node *m)
{
	if (!cp->converts)
		return rw_clone(w, m->rhs);
	return rw_real(w, cp->scale * ast_number(m->rhs) + cp->offset);
}

Node *rw_coupled(Rewrite *w, Node *cp, Node *x)
{
	Node *target = rw_port(w, cp->rhs->owner, cp->rhs->name, cp->rhs->decl, SYM_INNER_IN);
	Node *stmt = rw_assign(w, target, rw_converted(w, x, cp->converts ? cp->scale : 1,
						   cp->converts ? cp->offset : 0));
	int n = 0;
	for (const Node *m = cp->list1; m; m = m->next)
		n++;
	/* from the last entry back: if (x == from) { target := to; } else ... */
	for (int k = n - 1; k >= 0; k--) {
		const Node *m = cp->list1;
		for (int i = 0; i < k; i++)
			m = m->next;
		Node *test = rw_binary(w, OP_EQ, rw_clone(w, x), rw_clone(w, m->lhs));
		stmt = rw_if(w, test, rw_assign(w, rw_clone(w, target), mapped_value(w, cp, m)), stmt);
	}
	return stmt;
}

Node *rw_clone(Rewrite *w, const Node *n)
{
	return ast_clone(w->c->arena, n);
}

Node *rw_list2(Node *a, Node *b)
{
	a->next = b;
	return a;
}

const char *rw_printf(Rewrite *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = arena_alloc(w->c->arena, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* ---- what rules ask of the adaptation ------------------------------------------------------ */

/* The lists of an adaptation's declarations, in the order a name is looked for. */
typedef struct DeclList {
	Node *list;
	int sym;
} DeclList;

enum { NDECL_LISTS = 7 };

static void decl_lists(Node *sa, DeclList lists[NDECL_LISTS])
{
	DeclList all[NDECL_LISTS] = {
		{sa->a_inports, SYM_INPORT},   {sa->a_outports, SYM_OUTPORT},
		{sa->a_params, SYM_PARAM},     {sa->a_in_vars, SYM_IN_VAR},
		{sa->a_out_vars, SYM_OUT_VAR}, {sa->a_ctrl_vars, SYM_CTRL_VAR},
		{sa->a_inners, SYM_INNER},
	};
	memcpy(lists, all, sizeof all);
}

Node *rw_find_decl(Node *sa, const char *name, int *sym)
{
	DeclList lists[NDECL_LISTS];
	decl_lists(sa, lists);
	for (size_t i = 0; i < NDECL_LISTS; i++)
		for (Node *n = lists[i].list; n; n = n->next)
			if (strcmp(n->name, name) == 0) {
				if (sym)
					*sym = lists[i].sym;
				return n;
			}
	return NULL;
}

/* rw_lookup's table: name -> index into decl and sym. */
struct RwDecls {
	NameIndex ix;
	Node **decl;
	int *sym;
	int n, cap;
};

void rw_declared(Rewrite *w, Node *d, int sym)
{
	struct RwDecls *t = w->decls;
	if (!t || name_index_find(&t->ix, d->name) >= 0)
		return;
	if (t->n == t->cap) { /* in the arena: what doubling leaves behind is freed with it */
		int cap = t->cap ? 2 * t->cap : 64;
		Node **decl = arena_alloc(w->c->arena, (size_t)cap * sizeof *decl);
		int *sym_of = arena_alloc(w->c->arena, (size_t)cap * sizeof *sym_of);
		if (t->n) {
			memcpy(decl, t->decl, (size_t)t->n * sizeof *decl);
			memcpy(sym_of, t->sym, (size_t)t->n * sizeof *sym_of);
		}
		t->decl = decl;
		t->sym = sym_of;
		t->cap = cap;
	}
	if (name_index_add(&t->ix, d->name, t->n)) {
		fputs("sacc: out of memory\n", stderr); /* as the arena says it */
		abort();
	}
	t->decl[t->n] = d;
	t->sym[t->n++] = sym;
}

Node *rw_lookup(Rewrite *w, const char *name, int *sym)
{
	if (!w->decls) {
		/* In rw_find_decl's order, so that the first of a name is the one it finds. */
		DeclList lists[NDECL_LISTS];
		decl_lists(w->sa, lists);
		w->decls = arena_alloc(w->c->arena, sizeof *w->decls);
		for (size_t i = 0; i < NDECL_LISTS; i++)
			for (Node *n = lists[i].list; n; n = n->next)
				rw_declared(w, n, lists[i].sym);
	}
	int i = name_index_find(&w->decls->ix, name);
	if (i < 0)
		return NULL;
	if (sym)
		*sym = w->decls->sym[i];
	return w->decls->decl[i];
}

static void free_decls(Rewrite *w)
{
	if (!w->decls)
		return;
	name_index_free(&w->decls->ix);
	w->decls = NULL;
}

const char *rw_sym_noun(int sym)
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

static bool assigns_one(Node *s, const char *owner, const char *name)
{
	switch (s->kind) {
	case ND_ASSIGN:
		return s->lhs->kind == ND_PORT_REF && s->lhs->owner &&
		       strcmp(s->lhs->owner, owner) == 0 && strcmp(s->lhs->name, name) == 0;
	case ND_IF:
		return rw_assigns(s->then->list1, owner, name) ||
		       (s->els && (s->els->kind == ND_IF ? assigns_one(s->els, owner, name)
							  : rw_assigns(s->els->list1, owner, name)));
	case ND_FOR:
		return rw_assigns(s->then->list1, owner, name);
	default:
		return false;
	}
}

bool rw_assigns(Node *stmts, const char *owner, const char *name)
{
	for (Node *s = stmts; s; s = s->next)
		if (assigns_one(s, owner, name))
			return true;
	return false;
}

bool rw_inner_input_fed(Rewrite *w, const Inner *in, const InnerPort *p)
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
	    rw_assigns(sa->a_ctrl->body->list1, in->name, p->name))
		return true;
	for (Node *r = sa->a_in_rules ? sa->a_in_rules->list3 : NULL; r; r = r->next)
		if (r->els && r->els->kind == ND_BLOCK && rw_assigns(r->els->list1, in->name, p->name))
			return true;
	return false;
}

/* The k-th (0-based) of the blank-separated values in list, NULL when there are fewer. */
static const char *list_item(Arena *a, const char *list, int k)
{
	for (const char *p = list; *p;) {
		p += strspn(p, " \t\r\n");
		size_t n = strcspn(p, " \t\r\n");
		if (n && k-- == 0)
			return arena_printf(a, "%.*s", (int)n, p);
		p += n;
	}
	return NULL;
}

/* The k-th (0-based) of n NUL-ended values one after the other; NULL past the last. */
static const char *nul_item(const char *all, int n, int k)
{
	if (k >= n)
		return NULL;
	for (int i = 0; i < k; i++)
		all += strlen(all) + 1;
	return all;
}

/* An input port's start value when the inner is an adaptation of this build: its own port's
 * initial value when that is a literal (its explicit form gave it the start value of the
 * inner FMU's input it passes on), else none. */
static Node *adaptation_start(Rewrite *w, const Inner *in, const InnerPort *p)
{
	for (const Node *r = in->adaptation->a_inports; r; r = r->next) {
		if (strcmp(r->name, p->var) != 0)
			continue;
		const Node *v = r->init;
		bool literal = v && (v->kind == ND_INT || v->kind == ND_REAL || v->kind == ND_BOOL ||
		                     v->kind == ND_STRING);
		if (!literal)
			return NULL;
		if (p->type == TY_REAL && v->kind == ND_INT)
			return rw_real(w, (double)v->ival);
		return rw_clone(w, v);
	}
	return NULL;
}

Node *rw_start_literal(Rewrite *w, const Inner *in, const InnerPort *p)
{
	if (!in->fmu)
		return in->adaptation && p->is_input ? adaptation_start(w, in, p) : NULL;
	const FmuVar *var = p->fmu_var >= 0 ? &in->fmu->vars[p->fmu_var] : NULL;
	const char *s = var ? var->start : NULL;
	if (s && p->elem > 0 && var->nstarts) /* a String array's: its own <Start>, if any */
		s = nul_item(s, var->nstarts, p->elem - 1);
	else if (s && p->elem > 0) /* an array's element: its own of the start values */
		s = list_item(w->c->arena, s, p->elem - 1);
	if (!s)
		return NULL;
	char *end;
	switch (p->type) {
	case TY_REAL: {
		double d = strtod(s, &end);
		return *end || end == s ? NULL : rw_real(w, d);
	}
	case TY_INTEGER: {
		long long v = strtoll(s, &end, 10);
		return *end || end == s ? NULL : rw_int(w, v);
	}
	case TY_BOOL:
		return rw_bool(w, strcmp(s, "true") == 0 || strcmp(s, "1") == 0);
	case TY_STRING:
		return rw_string(w, arena_strdup(w->c->arena, s));
	default:
		return NULL;
	}
}

/* ---- the control part ------------------------------------------------------------------- */

bool rw_control_free(Rewrite *w, const char *form)
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

void rw_set_control(Rewrite *w, Node *stmts)
{
	Node *ctrl = rw_node(w, ND_CTRL);
	ctrl->body = rw_block(w, stmts);
	w->sa->a_ctrl = ctrl;
}

void rw_consume_form(Rewrite *w)
{
	for (Node **p = &w->sa->a_general; *p; p = &(*p)->next)
		if (*p == w->form) {
			*p = w->form->next;
			w->form->next = NULL;
			return;
		}
}

Node *rw_bound_port(Rewrite *w, const Inner *in, const InnerPort *p, int dir)
{
	Node *port = rw_node(w, ND_PORT);
	port->name = p->name;
	port->type = p->type;
	if (p->unit) {
		port->unit = rw_node(w, ND_UNIT);
		port->unit->str = p->unit;
	}
	port->bind_dir = dir;
	port->bind = rw_port(w, in->name, p->name, p->decl,
			     dir == BIND_TO ? SYM_INNER_IN : SYM_INNER_OUT);
	return port;
}
