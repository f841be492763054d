/* check.c — the checker's core: names and scopes, types, expressions and statements, and
 * the two entry points (an adaptation, a module) that run every check.
 *
 * Runs after parsing and before the explicit-form rules.  It resolves every name and
 * port reference (Node.decl / Node.sym), gives every declaration its type, builds the
 * Inner records of sema.h, and stores unit conversions on bound ports and couplings.
 * An inner FMU that is itself an adaptation of this build is first checked and reduced,
 * so that its external ports are known.  The checks live in four files sharing
 * check_ctx.h: this one; check_inner.c (inner FMUs and their ports); check_forms.c (the
 * declarative forms and rules blocks); check_ports.c (units, bindings, couplings and
 * scenario connections). */
#include "check_ctx.h"

#include <string.h>

#include "util.h"

/* ---- scopes -------------------------------------------------------------------------- */

Scope *chk_scope_new(Ctx *x, Scope *parent)
{
	Scope *s = arena_alloc(x->c->arena, sizeof *s);
	s->parent = parent;
	return s;
}

/* Below this many names a level is searched in order; from it on, through its table. */
enum { SCOPE_HASHED = 16 };

static unsigned name_hash(const char *name)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static void slot_put(Scope *s, int i)
{
	unsigned mask = (unsigned)s->nslots - 1, k = name_hash(s->syms[i].name) & mask;
	while (s->slots[k])
		k = (k + 1) & mask;
	s->slots[k] = i + 1;
}

/* The table made anew, four slots per name (a quarter full at most until it grows again);
 * the old one stays in the arena, a geometric series of them at most. */
static void scope_rehash(Ctx *x, Scope *s)
{
	int n = 64;
	while (n < 4 * s->n)
		n *= 2;
	s->slots = arena_alloc(x->c->arena, (size_t)n * sizeof *s->slots);
	s->nslots = n;
	for (int i = 0; i < s->n; i++)
		slot_put(s, i);
}

static Sym *scope_find_here(Scope *s, const char *name)
{
	if (!s->nslots) {
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->syms[i].name, name) == 0)
				return &s->syms[i];
		return NULL;
	}
	unsigned mask = (unsigned)s->nslots - 1;
	for (unsigned k = name_hash(name) & mask; s->slots[k]; k = (k + 1) & mask)
		if (strcmp(s->syms[s->slots[k] - 1].name, name) == 0)
			return &s->syms[s->slots[k] - 1];
	return NULL;
}

static Sym *scope_find(Scope *s, const char *name)
{
	for (; s; s = s->parent) {
		Sym *y = scope_find_here(s, name);
		if (y)
			return y;
	}
	return NULL;
}

/* Declares name in s; a second declaration at one level is an error showing both. */
void chk_declare(Ctx *x, Scope *s, const char *name, Node *decl, int kind)
{
	Sym *old = scope_find_here(s, name);
	if (old) {
		diag_error(x->c->diag, decl->loc, "redefinition of '%s'", name);
		diag_note(x->c->diag, old->decl->loc, "'%s' was first declared here", name);
		return;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		Sym *syms = arena_alloc(x->c->arena, (size_t)cap * sizeof *syms);
		if (s->n)
			memcpy(syms, s->syms, (size_t)s->n * sizeof *syms);
		s->syms = syms;
		s->cap = cap;
	}
	s->syms[s->n++] = (Sym){name, decl, kind};
	if (s->n >= SCOPE_HASHED && 4 * s->n > s->nslots)
		scope_rehash(x, s);
	else if (s->nslots)
		slot_put(s, s->n - 1);
}

void chk_did_you_mean(Ctx *x, Loc loc, const Suggestion *s)
{
	if (s->best)
		diag_note(x->c->diag, loc, "did you mean '%s'?", s->best);
}

static bool may_assign(Part part, int sym);

/* Whether a name of kind sym is legal where a name is read or written in the current
 * part: what a "did you mean" offers first.  Reads prefer anything but the adaptation's
 * output ports, which are written. */
static bool fits_here(const Ctx *x, int sym, Access acc)
{
	if (acc == ACC_WRITE)
		return may_assign(x->part, sym);
	if (x->part == PART_PARAM || x->part == PART_VARINIT)
		return sym == SYM_PARAM;
	return acc == ACC_EITHER || sym != SYM_OUTPORT;
}

static void suggest_in_scope(Ctx *x, Loc loc, const char *name, Access acc)
{
	Suggestion sug;
	suggestion_init(&sug, name);
	for (Scope *s = x->scope; s; s = s->parent)
		for (int i = 0; i < s->n; i++)
			if (s->syms[i].kind != SYM_INNER)
				suggestion_offer(&sug, s->syms[i].name, fits_here(x, s->syms[i].kind, acc));
	if (sug.best) {
		chk_did_you_mean(x, loc, &sug);
		return;
	}
	/* Inner ports are never reached by a bare name. */
	for (int i = 0; i < x->info->ninners; i++)
		if (sema_inner_port(x->info->inners[i], name)) {
			diag_note(x->c->diag, loc, "an inner fmu's port is named with its fmu: '%s.%s'",
				  x->info->inners[i]->name, name);
			return;
		}
}

/* ---- types --------------------------------------------------------------------------- */

SaType chk_fmu_sa_type(FmuType t)
{
	switch (t) {
	case FT_REAL: case FT_FLOAT32: return TY_REAL;
	case FT_BOOLEAN: return TY_BOOL;
	case FT_STRING: return TY_STRING;
	case FT_BINARY: return TY_NONE;
	case FT_CLOCK: return TY_INTEGER; /* its ticks in the inner's last step (sart_inner.h) */
	default: return TY_INTEGER;
	}
}

static bool numeric(SaType t) { return t == TY_REAL || t == TY_INTEGER; }

/* Whether a value of type from may be stored where to is expected (Integer widens). */
bool chk_assignable(SaType to, SaType from)
{
	return to == from || (to == TY_REAL && from == TY_INTEGER) || to == TY_NONE ||
	       from == TY_NONE;
}

/* ---- expressions --------------------------------------------------------------------- */

/* Where an expression sits (Part), in messages. */
static const char *const part_names[] = {
	"a parameter", "a storage variable's initial value", "control rules",
	"the condition of an in rule", "the '->' part of an in rule",
	"the '-->' part of an in rule", "the condition of an out rule",
	"the '->' part of an out rule", "the '-->' part of an out rule", "a general rule",
	"a quantize rule",
};

const char *chk_sym_words(int sym)
{
	switch (sym) {
	case SYM_INPORT: return "input port";
	case SYM_OUTPORT: return "output port";
	case SYM_PARAM: return "parameter";
	case SYM_IN_VAR: return "in var";
	case SYM_OUT_VAR: return "out var";
	case SYM_CTRL_VAR: return "control var";
	case SYM_LOOP_VAR: return "loop variable";
	case SYM_INNER_IN: return "inner input";
	case SYM_INNER_OUT: return "inner output";
	case SYM_INNER: return "inner fmu";
	default: return "variable";
	}
}

/* "a" or "an", for the words of sym_words. */
const char *chk_sym_article(int sym)
{
	return strchr("aeiou", chk_sym_words(sym)[0]) ? "an" : "a";
}

static SaType decl_type(const Node *d)
{
	return d ? d->type : TY_NONE;
}

/* Where the port name of an owner.port reference is written (the whole reference when it
 * spans lines), so that a caret points at the part that is wrong. */
Loc chk_port_name_loc(const Node *e)
{
	Loc l = e->loc;
	int n = (int)strlen(e->name);
	if (e->owner && l.len >= n + (int)strlen(e->owner) + 1) {
		l.col += l.len - n;
		l.len = n;
	}
	return l;
}

Loc chk_owner_loc(const Node *e)
{
	Loc l = e->loc;
	int n = (int)strlen(e->owner);
	if (l.len > n)
		l.len = n;
	return l;
}

/* Whether owner names something with a port called port: for an owner mistyped. */
static bool owner_has_port(Ctx *x, const char *owner, const char *port)
{
	if (strcmp(owner, x->sa->name) == 0) {
		Sym *y = scope_find_here(x->top, port);
		return y && (y->kind == SYM_INPORT || y->kind == SYM_OUTPORT);
	}
	Inner *in = sema_inner(x->info, owner);
	return in && sema_inner_port(in, port);
}

/* Whether a port of this direction is legal where it is read or written: reads take inner
 * outputs and the adaptation's inputs, writes inner inputs and its outputs. */
static bool port_fits(bool is_input, bool own, Access acc)
{
	if (acc == ACC_EITHER)
		return true;
	return (acc == ACC_WRITE) == (is_input != own);
}

/* owner.port: an inner FMU's port, or the adaptation's own, read or written. */
SaType chk_port_ref(Ctx *x, Node *e, Access acc)
{
	if (!e->owner) {
		diag_error(x->c->diag, e->loc, "expected 'fmu.port' here, not '%s'", e->name);
		return TY_NONE;
	}
	Suggestion sug;
	if (strcmp(e->owner, x->sa->name) == 0) {
		Sym *y = scope_find_here(x->top, e->name);
		if (!y || (y->kind != SYM_INPORT && y->kind != SYM_OUTPORT)) {
			Loc at = chk_port_name_loc(e);
			diag_error(x->c->diag, at, "adaptation '%s' has no port '%s'", x->sa->name,
				   e->name);
			suggestion_init(&sug, e->name);
			for (int i = 0; i < x->top->n; i++) {
				int kind = x->top->syms[i].kind;
				if (kind == SYM_INPORT || kind == SYM_OUTPORT)
					suggestion_offer(&sug, x->top->syms[i].name,
							 port_fits(kind == SYM_INPORT, true, acc));
			}
			chk_did_you_mean(x, at, &sug);
			return TY_NONE;
		}
		e->decl = y->decl;
		e->sym = y->kind;
		return decl_type(y->decl);
	}
	Inner *in = sema_inner(x->info, e->owner);
	if (!in) {
		Loc at = chk_owner_loc(e);
		diag_error(x->c->diag, at, "'%s' is neither an inner fmu of '%s' nor '%s' itself",
			   e->owner, x->sa->name, x->sa->name);
		suggestion_init(&sug, e->owner);
		for (int i = 0; i < x->info->ninners; i++)
			suggestion_offer(&sug, x->info->inners[i]->name,
					 owner_has_port(x, x->info->inners[i]->name, e->name));
		suggestion_offer(&sug, x->sa->name, owner_has_port(x, x->sa->name, e->name));
		if (x->sa->tname && strcmp(e->owner, x->sa->tname) == 0)
			diag_note(x->c->diag, at, "'%s' is the type name of the older header; the "
				  "adaptation itself is '%s'", e->owner, x->sa->name);
		else
			chk_did_you_mean(x, at, &sug);
		return TY_NONE;
	}
	if (!in->ports && !in->fmu && !in->adaptation)
		return TY_NONE; /* the inner could not be read: reported already */
	InnerPort *p = sema_inner_port(in, e->name);
	const FmuVar *v = !p && in->fmu ? fmu_find_var(in->fmu, e->name) : NULL;
	if (v && v->ndims > 0) {
		char why[96];
		Loc at = chk_port_name_loc(e);
		diag_error(x->c->diag, at, "port '%s' of inner fmu '%s' is %s: a script names its "
			   "elements, not the whole array", e->name, in->name,
			   fmu_var_unsupported(v, why, sizeof why));
		diag_note(x->c->diag, at, "'%s.%s[1]' is its first element; an FMI 3.0 wrapper "
			  "forwards the whole array of a port the script does not name", in->name,
			  e->name);
		return TY_NONE;
	}
	if (v && v->type == FT_BINARY) {
		/* bytes with no arithmetic, no comparison and no literal in the language */
		diag_error(x->c->diag, chk_port_name_loc(e), "port '%s' of inner fmu '%s' is a "
			   "Binary, which rules cannot compute with or assign", e->name, in->name);
		return TY_NONE;
	}
	if (!p && chk_element_error(x, in, e))
		return TY_NONE;
	if (!p) {
		Loc at = chk_port_name_loc(e);
		diag_error(x->c->diag, at, "inner fmu '%s' has no port '%s'", in->name, e->name);
		suggestion_init(&sug, e->name);
		for (int i = 0; i < in->nports; i++)
			suggestion_offer(&sug, in->ports[i].name, port_fits(in->ports[i].is_input, false, acc));
		chk_did_you_mean(x, at, &sug);
		return TY_NONE;
	}
	e->decl = p->decl;
	e->sym = p->is_input ? SYM_INNER_IN : SYM_INNER_OUT;
	return p->type;
}

static SaType check_name(Ctx *x, Node *e, Access acc)
{
	Sym *y = scope_find(x->scope, e->name);
	if (!y || y->kind == SYM_INNER) {
		if (y)
			diag_error(x->c->diag, e->loc,
				   "'%s' is an inner fmu; name one of its ports as '%s.port'", e->name,
				   e->name);
		else {
			diag_error(x->c->diag, e->loc, "unknown name '%s'", e->name);
			suggest_in_scope(x, e->loc, e->name, acc);
		}
		return TY_NONE;
	}
	if (x->part == PART_PARAM && y->kind != SYM_PARAM) {
		diag_error(x->c->diag, e->loc, "a parameter's value may only use other parameters, "
			   "not the %s '%s'", chk_sym_words(y->kind), e->name);
		return TY_NONE;
	}
	if (x->part == PART_VARINIT && y->kind != SYM_PARAM) {
		diag_error(x->c->diag, e->loc, "an initial value may only use parameters, not the "
			   "%s '%s'", chk_sym_words(y->kind), e->name);
		return TY_NONE;
	}
	e->decl = y->decl;
	e->sym = y->kind;
	return decl_type(y->decl);
}

static Inner *check_fmu_arg(Ctx *x, Node *call)
{
	Inner *in = sema_inner(x->info, call->name);
	if (!in) {
		Loc loc = call->lhs ? call->lhs->loc : call->loc;
		diag_error(x->c->diag, loc, "'%s' is not an inner fmu of '%s'", call->name,
			   x->sa->name);
		Suggestion sug;
		suggestion_init(&sug, call->name);
		for (int i = 0; i < x->info->ninners; i++)
			suggestion_offer(&sug, x->info->inners[i]->name, true);
		chk_did_you_mean(x, loc, &sug);
		return NULL;
	}
	if (call->lhs) {
		call->lhs->sym = SYM_INNER;
		call->lhs->decl = in->decl;
	}
	return in;
}

void chk_expect_numeric(Ctx *x, Node *e, SaType t, const char *what)
{
	if (t != TY_NONE && !numeric(t))
		diag_error(x->c->diag, e->loc, "%s must be a number, not %s", what, ast_type_name(t));
}

static SaType check_builtin(Ctx *x, Node *e)
{
	int nargs = ast_count(e->list1);
	const char *name = ast_builtin_name(e->op);
	switch (e->op) {
	case BI_FLOOR:
	case BI_CEIL:
	case BI_ABS: {
		SaType t = chk_expr(x, e->list1);
		chk_expect_numeric(x, e->list1, t, arena_printf(x->c->arena, "the argument of %s", name));
		return e->op != BI_ABS ? TY_INTEGER : numeric(t) ? t : TY_NONE;
	}
	case BI_ROUND: {
		if (nargs > 2) {
			diag_error(x->c->diag, e->loc, "round takes one or two arguments, not %d", nargs);
			return TY_NONE;
		}
		for (Node *a = e->list1; a; a = a->next)
			chk_expect_numeric(x, a, chk_expr(x, a),
				       arena_printf(x->c->arena, "an argument of %s", name));
		return nargs == 1 ? TY_INTEGER : TY_REAL;
	}
	case BI_MAX:
	case BI_MIN: {
		SaType t = TY_INTEGER;
		for (Node *a = e->list1; a; a = a->next) {
			SaType at = chk_expr(x, a);
			chk_expect_numeric(x, a, at, arena_printf(x->c->arena, "an argument of %s", name));
			if (at == TY_REAL)
				t = TY_REAL;
		}
		return t;
	}
	case BI_IS_CLOSE:
		if (nargs != 2 && nargs != 4) {
			diag_error(x->c->diag, e->loc,
				   "is_close takes 2 or 4 arguments (a, b, rtol, atol), not %d", nargs);
			return TY_BOOL;
		}
		for (Node *a = e->list1; a; a = a->next)
			chk_expect_numeric(x, a, chk_expr(x, a),
				       arena_printf(x->c->arena, "an argument of %s", name));
		return TY_BOOL;
	case BI_IS_SET:
	case BI_DISCARD: {
		Node *v = e->list1;
		SaType t = v->kind == ND_NAME || v->kind == ND_PORT_REF ? chk_expr(x, v) : TY_NONE;
		if (t != TY_NONE && v->sym != SYM_INPORT)
			diag_error(x->c->diag, v->loc, "%s needs an input port of '%s', not %s %s", name,
				   x->sa->name, chk_sym_article(v->sym), chk_sym_words(v->sym));
		else if (v->kind != ND_NAME && v->kind != ND_PORT_REF)
			diag_error(x->c->diag, v->loc, "%s needs an input port of '%s'", name,
				   x->sa->name);
		return e->op == BI_IS_SET ? TY_BOOL : TY_NONE;
	}
	case BI_DO_STEP:
		if (x->part != PART_CTRL)
			diag_error(x->c->diag, e->loc, "do_step is only allowed in control rules, not "
				   "in %s", part_names[x->part]);
		check_fmu_arg(x, e);
		chk_expect_numeric(x, e->list1, chk_expr(x, e->list1), "do_step's start time");
		chk_expect_numeric(x, e->list1->next, chk_expr(x, e->list1->next), "do_step's step size");
		return TY_REAL;
	case BI_SAVE_STATE:
	case BI_ROLLBACK:
		if (x->part != PART_CTRL)
			diag_error(x->c->diag, e->loc, "%s is only allowed in control rules, not in %s",
				   name, part_names[x->part]);
		check_fmu_arg(x, e);
		return TY_NONE;
	case BI_GET_NEXT_TIME_STEP:
	case BI_ELAPSED:
	case BI_LAST_EXECUTION_TIME:
		check_fmu_arg(x, e);
		return TY_REAL;
	default:
		return TY_NONE;
	}
}

static SaType check_binary(Ctx *x, Node *e)
{
	SaType l = chk_expr(x, e->lhs), r = chk_expr(x, e->rhs);
	const char *op = ast_op_spelling(e->op);
	switch (e->op) {
	case OP_OR:
	case OP_AND:
		if (l != TY_NONE && l != TY_BOOL)
			diag_error(x->c->diag, e->lhs->loc, "operands of '%s' must be Bool, not %s", op,
				   ast_type_name(l));
		if (r != TY_NONE && r != TY_BOOL)
			diag_error(x->c->diag, e->rhs->loc, "operands of '%s' must be Bool, not %s", op,
				   ast_type_name(r));
		return TY_BOOL;
	case OP_EQ:
	case OP_NE:
		if (l != TY_NONE && r != TY_NONE && l != r && !(numeric(l) && numeric(r)))
			diag_error(x->c->diag, e->loc, "cannot compare %s with %s", ast_type_name(l),
				   ast_type_name(r));
		return TY_BOOL;
	case OP_CROSS_UP:
	case OP_CROSS_DOWN:
		if (x->part != PART_IN_COND && x->part != PART_OUT_COND)
			diag_error(x->c->diag, e->loc, "the crossing operator '%s' is only allowed in "
				   "a rule's condition, in a rules block with crossing settings", op);
		/* fall through */
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
		if (l != TY_NONE && !numeric(l))
			diag_error(x->c->diag, e->lhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(l));
		if (r != TY_NONE && !numeric(r))
			diag_error(x->c->diag, e->rhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(r));
		return TY_BOOL;
	default: /* + - * / */
		if (l != TY_NONE && !numeric(l)) {
			diag_error(x->c->diag, e->lhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(l));
			return TY_NONE;
		}
		if (r != TY_NONE && !numeric(r)) {
			diag_error(x->c->diag, e->rhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(r));
			return TY_NONE;
		}
		if (l == TY_NONE || r == TY_NONE)
			return TY_NONE;
		/* '/' is always real division: 1/2 is 0.5, as a modeller expects. */
		return e->op == OP_DIV || l == TY_REAL || r == TY_REAL ? TY_REAL : TY_INTEGER;
	}
}

SaType chk_expr(Ctx *x, Node *e)
{
	switch (e->kind) {
	case ND_INT: return TY_INTEGER;
	case ND_REAL: return TY_REAL;
	case ND_STRING: return TY_STRING;
	case ND_BOOL: return TY_BOOL;
	case ND_NAME: return check_name(x, e, ACC_READ);
	case ND_PORT_REF: return chk_port_ref(x, e, ACC_READ);
	case ND_KEYVAR:
		/* MapIn runs the '-->' parts of in rules; MapOut evaluates the out rules'
		 * conditions and runs their '->' parts (docs/language.md, section 9). */
		if ((e->op == KV_H || e->op == KV_DT) && x->part != PART_IN_MAP &&
		    x->part != PART_OUT_COND && x->part != PART_OUT_TRANS) {
			diag_error(x->c->diag, e->loc, "'%s' is only defined in the '-->' part of in "
				   "rules and in the condition and '->' part of out rules, not in %s",
				   ast_keyvar_name(e->op), part_names[x->part]);
			return TY_NONE;
		}
		if (x->part == PART_PARAM || x->part == PART_VARINIT) {
			diag_error(x->c->diag, e->loc, "'%s' has no value in %s", ast_keyvar_name(e->op),
				   part_names[x->part]);
			return TY_NONE;
		}
		return TY_REAL;
	case ND_SIGNAL:
		if (x->part != PART_QUANTIZE) {
			diag_error(x->c->diag, e->loc,
				   "'signal' is only defined inside quantize and crossing settings");
			return TY_NONE;
		}
		return TY_REAL;
	case ND_OTHERWISE:
		diag_error(x->c->diag, e->loc, "'otherwise' can only be a rule's whole condition");
		return TY_BOOL;
	case ND_UNARY: {
		SaType t = chk_expr(x, e->lhs);
		if (e->op == OP_NOT) {
			if (t != TY_NONE && t != TY_BOOL)
				diag_error(x->c->diag, e->loc, "operand of 'not' must be Bool, not %s",
					   ast_type_name(t));
			return TY_BOOL;
		}
		if (t != TY_NONE && !numeric(t)) {
			diag_error(x->c->diag, e->loc, "operand of '-' must be a number, not %s",
				   ast_type_name(t));
			return TY_NONE;
		}
		return t;
	}
	case ND_BINARY: return check_binary(x, e);
	case ND_BUILTIN: return check_builtin(x, e);
	default:
		diag_error(x->c->diag, e->loc, "unexpected %s in an expression", ast_kind_name(e->kind));
		return TY_NONE;
	}
}

/* ---- statements ---------------------------------------------------------------------- */

static bool may_assign(Part part, int sym)
{
	switch (sym) {
	case SYM_LOCAL: return true;
	case SYM_OUTPORT: return part == PART_OUT_MAP;
	case SYM_IN_VAR: return part == PART_IN_TRANS;
	case SYM_OUT_VAR: return part == PART_OUT_TRANS;
	case SYM_CTRL_VAR: return part == PART_CTRL;
	case SYM_INNER_IN: return part == PART_CTRL || part == PART_IN_MAP;
	default: return false;
	}
}

static const char *where_writable(int sym)
{
	switch (sym) {
	case SYM_OUTPORT: return "output ports are set by the '-->' part of out rules";
	case SYM_IN_VAR: return "in vars are written by the '->' part of in rules";
	case SYM_OUT_VAR: return "out vars are written by the '->' part of out rules";
	case SYM_CTRL_VAR: return "control vars are written by control rules";
	case SYM_INNER_IN: return "inner inputs are set by control rules and the '-->' part of in rules";
	case SYM_PARAM: return "parameters are fixed; declare a var to change a value";
	case SYM_INPORT: return "input ports are set by the importer; copy the value into an in var";
	case SYM_INNER_OUT: return "inner outputs are computed by the inner fmu";
	case SYM_LOOP_VAR: return "the loop advances its variable itself";
	default: return NULL;
	}
}

static void check_assign(Ctx *x, Node *s)
{
	SaType t = s->lhs->kind == ND_NAME ? check_name(x, s->lhs, ACC_WRITE)
					   : chk_port_ref(x, s->lhs, ACC_WRITE);
	SaType v = chk_expr(x, s->rhs);
	int sym = s->lhs->sym;
	if (t == TY_NONE && sym == SYM_NONE)
		return;
	const char *name = s->lhs->owner ? arena_printf(x->c->arena, "%s.%s", s->lhs->owner,
							s->lhs->name)
					 : s->lhs->name;
	if (!may_assign(x->part, sym)) {
		diag_error(x->c->diag, s->lhs->loc, "cannot assign to %s '%s' in %s", chk_sym_words(sym),
			   name, part_names[x->part]);
		const char *why = where_writable(sym);
		if (why)
			diag_note(x->c->diag, s->lhs->loc, "%s", why);
		return;
	}
	if (!chk_assignable(t, v))
		diag_error(x->c->diag, s->rhs->loc, "cannot assign a %s value to %s '%s' of type %s",
			   ast_type_name(v), chk_sym_words(sym), name, ast_type_name(t));
}

void chk_vardecl(Ctx *x, Node *d, int sym)
{
	if (d->init) {
		SaType t = chk_expr(x, d->init);
		if (d->type == TY_NONE)
			d->type = t;
		else if (!chk_assignable(d->type, t))
			diag_error(x->c->diag, d->init->loc, "cannot initialise %s '%s' of type %s with a "
				   "%s value", chk_sym_words(sym), d->name, ast_type_name(d->type),
				   ast_type_name(t));
	}
	if (d->type == TY_NONE)
		d->type = TY_REAL;
}

void chk_block(Ctx *x, Node *block)
{
	Scope *saved = x->scope;
	x->scope = chk_scope_new(x, saved);
	chk_stmts(x, block->list1);
	if (block->lhs)
		chk_expr(x, block->lhs);
	x->scope = saved;
}

void chk_stmt(Ctx *x, Node *s)
{
	switch (s->kind) {
	case ND_VAR:
		for (Node *d = s->list1; d; d = d->next) {
			chk_vardecl(x, d, SYM_LOCAL);
			chk_declare(x, x->scope, d->name, d, SYM_LOCAL);
		}
		break;
	case ND_ASSIGN:
		check_assign(x, s);
		break;
	case ND_CALL_STMT:
		chk_expr(x, s->lhs);
		break;
	case ND_IF: {
		SaType t = chk_expr(x, s->cond);
		if (t != TY_NONE && t != TY_BOOL)
			diag_error(x->c->diag, s->cond->loc, "condition must be Bool, not %s",
				   ast_type_name(t));
		chk_block(x, s->then);
		if (s->els) {
			if (s->els->kind == ND_IF)
				chk_stmt(x, s->els);
			else
				chk_block(x, s->els);
		}
		break;
	}
	case ND_FOR: {
		SaType a = chk_expr(x, s->lhs), b = chk_expr(x, s->rhs);
		if (a != TY_NONE && a != TY_INTEGER)
			diag_error(x->c->diag, s->lhs->loc, "loop bounds must be Integer, not %s",
				   ast_type_name(a));
		if (b != TY_NONE && b != TY_INTEGER)
			diag_error(x->c->diag, s->rhs->loc, "loop bounds must be Integer, not %s",
				   ast_type_name(b));
		Scope *saved = x->scope;
		x->scope = chk_scope_new(x, saved);
		Node *var = s->init;
		var->type = TY_INTEGER;
		chk_declare(x, x->scope, s->name, var, SYM_LOOP_VAR);
		x->loops++;
		chk_block(x, s->then);
		x->loops--;
		x->scope = saved;
		break;
	}
	case ND_BREAK:
		if (!x->loops)
			diag_error(x->c->diag, s->loc, "'break' outside a for loop");
		break;
	case ND_RETURN: {
		SaType t = chk_expr(x, s->lhs);
		if (x->part == PART_CTRL && t != TY_NONE && !numeric(t))
			diag_error(x->c->diag, s->lhs->loc,
				   "control rules must return the step taken, a number, not %s",
				   ast_type_name(t));
		break;
	}
	default:
		diag_error(x->c->diag, s->loc, "unexpected %s in a block", ast_kind_name(s->kind));
	}
}

void chk_stmts(Ctx *x, Node *stmts)
{
	for (Node *s = stmts; s; s = s->next)
		chk_stmt(x, s);
}

/* ---- the adaptation ------------------------------------------------------------------ */

static void declare_vars(Ctx *x, Node *vars, int sym)
{
	for (Node *v = vars; v; v = v->next) {
		x->part = PART_VARINIT;
		chk_vardecl(x, v, sym);
		chk_declare(x, x->top, v->name, v, sym);
	}
}

SaInfo *chk_adaptation(Compilation *c, Module *m, Node *sa)
{
	if (sa->info) {
		SaInfo *done = sa->info;
		if (!done->checked_ok && !done->dir) {
			diag_error(c->diag, sa->loc, "adaptation '%s' depends on itself through its "
				   "inner fmus", sa->name);
			return NULL;
		}
		return done;
	}
	if (!m) {
		/* Called for a dependency: find its module. */
		for (Module *k = c->modules; k && !m; k = k->next)
			for (Node *e = k->root ? k->root->list2 : NULL; e; e = e->next)
				if (e == sa)
					m = k;
		if (!m)
			return NULL;
	}
	Arena *a = c->arena;
	SaInfo *info = arena_alloc(a, sizeof *info);
	info->sa = sa;
	sa->info = info; /* marks "being checked" until dir is set */
	int errors_before = diag_errors(c->diag);

	Ctx x = {.c = c, .m = m, .info = info, .sa = sa};
	x.top = x.scope = chk_scope_new(&x, NULL);

	/* Inner FMUs: names first, then their ports. */
	for (Node *d = sa->a_inners; d; d = d->next) {
		if (strcmp(d->name, sa->name) == 0)
			diag_error(c->diag, d->loc, "inner fmu '%s' has the adaptation's own name",
				   d->name);
		chk_declare(&x, x.top, d->name, d, SYM_INNER);
		info->ninners++;
	}
	info->inners = arena_alloc(a, (size_t)(info->ninners + 1) * sizeof *info->inners);
	int k = 0;
	for (Node *d = sa->a_inners; d; d = d->next) {
		Inner *in = chk_resolve_inner(&x, d);
		d->info = in;
		info->inners[k++] = in;
	}
	sema_index_inners(a, info);

	/* The adaptation's own names. */
	for (Node *p = sa->a_inports; p; p = p->next)
		chk_declare(&x, x.top, p->name, p, SYM_INPORT);
	for (Node *p = sa->a_outports; p; p = p->next)
		chk_declare(&x, x.top, p->name, p, SYM_OUTPORT);
	x.part = PART_GENERAL;
	for (Node *p = sa->a_inports; p; p = p->next)
		chk_external_port(&x, p, true);
	for (Node *p = sa->a_outports; p; p = p->next)
		chk_external_port(&x, p, false);
	for (Node *p = sa->a_params; p; p = p->next) {
		x.part = PART_PARAM;
		chk_vardecl(&x, p, SYM_PARAM);
		chk_declare(&x, x.top, p->name, p, SYM_PARAM);
	}
	for (k = 0; k < info->ninners; k++)
		chk_inner_param_bindings(&x, info->inners[k]);
	declare_vars(&x, sa->a_ctrl_vars, SYM_CTRL_VAR);
	declare_vars(&x, sa->a_in_vars, SYM_IN_VAR);
	declare_vars(&x, sa->a_out_vars, SYM_OUT_VAR);

	/* Couplings, and that no inner input is fed twice (by couplings or bindings). */
	int nfed = 0, cap = ast_count(sa->a_couplings) + ast_count(sa->a_inports) + 1;
	Node **fed_by = arena_alloc(a, (size_t)cap * sizeof *fed_by);
	Node **fed_port = arena_alloc(a, (size_t)cap * sizeof *fed_port);
	for (Node *p = sa->a_inports; p; p = p->next)
		if (p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN) {
			for (int i = 0; i < nfed; i++)
				if (fed_port[i] == p->bind->decl) {
					diag_error(c->diag, p->bind->loc, "'%s.%s' is fed twice",
						   p->bind->owner, p->bind->name);
					diag_note(c->diag, fed_by[i]->loc, "it is already fed here");
				}
			fed_by[nfed] = p;
			fed_port[nfed++] = p->bind->decl;
		}
	for (Node *cp = sa->a_couplings; cp; cp = cp->next) {
		chk_coupling(&x, cp, fed_by, fed_port, nfed);
		if (cp->rhs->sym == SYM_INNER_IN) {
			fed_by[nfed] = cp;
			fed_port[nfed++] = cp->rhs->decl;
		}
	}

	for (Node *g = sa->a_general; g; g = g->next)
		chk_general(&x, g, false);
	if (sa->a_ctrl)
		chk_control(&x, sa->a_ctrl);
	if (sa->a_in_rules)
		chk_rules(&x, sa->a_in_rules, true);
	if (sa->a_out_rules)
		chk_rules(&x, sa->a_out_rules, false);

	info->dir = m->dir;
	info->checked_ok = diag_errors(c->diag) == errors_before;
	return info;
}

int chk_module(Compilation *c, Module *m)
{
	int before = diag_errors(c->diag);
	if (!m->root)
		return 1;
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			chk_adaptation(c, m, e);
	Ctx x = {.c = c, .m = m};
	chk_open_scenario_fmus(&x);
	chk_index_scenario_elements(&x);
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_CONNECTION)
			chk_scenario_connection(&x, e);
	chk_free_scenario_elements(&x);
	return diag_errors(c->diag) - before;
}
