/* check_forms.c — the declarative forms: general rules (successive substitution, delay,
 * multiply rate), the declarative control forms, and in and out rules blocks with their
 * crossings, quantize rules, zones and output functions.
 *
 * Part of the checker (check.c).  A form the lowering stage does not handle is checked for
 * its names and then refused by name. */
#include "check_ctx.h"

#include <limits.h>
#include <string.h>

#include "util.h"

/* ---- declarative forms --------------------------------------------------------------- */

/* A declarative form the lowering stage (lower.c) does not handle is checked for its names
 * and then refused by name: never silently ignored. */
static void not_lowered(Ctx *x, Loc loc, const char *form)
{
	diag_error(x->c->diag, loc, "the declarative form '%s' cannot be lowered yet", form);
	diag_note(x->c->diag, loc, "write it out as control, in and out rules for now");
}

/* The value of an Integer expression made of literals, negation, +, - and * only (a count
 * written as `0` or `2 - 3`), into *v; false for anything else, or on overflow. */
static bool const_int(const Node *e, long long *v)
{
	long long a, b;
	switch (e->kind) {
	case ND_INT:
		*v = e->ival;
		return true;
	case ND_UNARY:
		if (e->op != OP_NEG || !const_int(e->lhs, &a) || a == LLONG_MIN)
			return false;
		*v = -a;
		return true;
	case ND_BINARY:
		if (!const_int(e->lhs, &a) || !const_int(e->rhs, &b))
			return false;
		switch (e->op) {
		case OP_ADD:
			return !__builtin_add_overflow(a, b, v);
		case OP_SUB:
			return !__builtin_sub_overflow(a, b, v);
		case OP_MUL:
			return !__builtin_mul_overflow(a, b, v);
		default:
			return false;
		}
	default:
		return false;
	}
}

static void check_settings(Ctx *x, Node *settings)
{
	Part saved = x->part;
	for (Node *s = settings; s; s = s->next) {
		x->part = PART_QUANTIZE;
		chk_expect_numeric(x, s->lhs, chk_expr(x, s->lhs), "a tolerance");
	}
	x->part = saved;
}

/* in_rules: the form is a loop rule inside a rules block, which is not lowered; at the
 * adaptation's level, multiply rate, successive substitution and delay are. */
void chk_general(Ctx *x, Node *g, bool in_rules)
{
	Part saved = x->part;
	x->part = PART_GENERAL;
	switch (g->kind) {
	case ND_SUBST:
		for (Node *p = g->list1; p; p = p->next)
			chk_port_ref(x, p, ACC_EITHER);
		check_settings(x, g->list2);
		if (in_rules)
			not_lowered(x, g->loc, "successive substitution");
		break;
	case ND_DELAY:
		for (Node *p = g->list1; p; p = p->next)
			chk_port_ref(x, p, ACC_EITHER);
		if (in_rules)
			not_lowered(x, g->loc, "delay");
		break;
	case ND_MULTIRATE:
		chk_expect_numeric(x, g->lhs, chk_expr(x, g->lhs), "the rate");
		break;
	case ND_DERIV:
		not_lowered(x, g->loc, g->op == DERIV_WITH ? "with derivatives" : "extract");
		break;
	default:
		break;
	}
	x->part = saved;
}

static const char *const hold_names[] = {"no hold", "zero order hold", "first order hold"};

/* where: NULL for a hold on an out rules block (lowered: lower.c, Hold), else why the
 * hold is not lowered. */
static void check_output_fn(Ctx *x, Node *f, const char *where)
{
	if (f->kind == ND_HOLD) {
		if (where)
			not_lowered(x, f->loc, arena_printf(x->c->arena, "%s (%s)", hold_names[f->op],
							    where));
	} else if (f->kind == ND_BLOCK) {
		chk_block(x, f);
	} else {
		chk_expr(x, f);
	}
}

/* The quantize rule of the rules block being checked that declares zone `name`, or NULL. */
static const Node *zone_declaration(Ctx *x, const char *name)
{
	for (Node *r = x->rules ? x->rules->list3 : NULL; r; r = r->next)
		if (r->op == RULE_QUANTIZE && r->lhs->op == QUANT_ZONES)
			for (Node *z = r->lhs->list1; z; z = z->next)
				if (z->kind == ND_STRING && strcmp(z->str, name) == 0)
					return z;
	return NULL;
}

/* The number of quantize rules of the rules block being checked whose zones are numbers
 * (`every` and `= expr`): an integer literal condition names a zone of the one there is. */
static int numbered_quantizers(Ctx *x)
{
	int n = 0;
	for (Node *r = x->rules ? x->rules->list3 : NULL; r; r = r->next)
		n += r->op == RULE_QUANTIZE && r->lhs->op != QUANT_ZONES;
	return n;
}

/* A zone condition: a zone name (a string literal) that a quantize rule of the block
 * declares (lower.c, Quantize, makes it the event of entering that zone). */
static void check_zone_condition(Ctx *x, Node *value)
{
	if (value->kind != ND_STRING) {
		diag_error(x->c->diag, value->loc, "a zone condition must be a zone's name, a string "
			   "literal");
		return;
	}
	if (zone_declaration(x, value->str))
		return;
	diag_error(x->c->diag, value->loc, "zone \"%s\" is used but no quantize rule of this "
		   "rules block declares it", value->str);
	StrBuf names;
	sb_init(&names);
	for (Node *r = x->rules->list3; r; r = r->next)
		if (r->op == RULE_QUANTIZE && r->lhs->op == QUANT_ZONES)
			for (Node *z = r->lhs->list1; z; z = z->next)
				if (z->kind == ND_STRING)
					sb_printf(&names, "%s\"%s\"", names.len ? ", " : "", z->str);
	if (names.len)
		diag_note(x->c->diag, value->loc, "the zones declared are %s", sb_str(&names));
	sb_free(&names);
}

static void check_condition(Ctx *x, Node *c)
{
	if (c->kind == ND_OTHERWISE)
		return; /* lowered (lower.c, Otherwise) */
	SaType t;
	Node *value = c; /* where the condition's value is written */
	if (c->kind == ND_BLOCK) {
		Scope *saved = x->scope;
		x->scope = chk_scope_new(x, saved);
		Node *ret = ast_last(c->list1);
		for (Node *s = c->list1; s && s != ret; s = s->next)
			chk_stmt(x, s);
		value = ret && ret->kind == ND_RETURN ? ret->lhs : NULL;
		t = value ? chk_expr(x, value) : TY_NONE;
		x->scope = saved;
	} else {
		t = chk_expr(x, c);
	}
	if (t == TY_STRING && x->quantized) {
		check_zone_condition(x, value);
		return;
	}
	if (t == TY_INTEGER && x->quantized && numbered_quantizers(x) &&
	    (value->kind == ND_INT || (value->kind == ND_UNARY && value->op == OP_NEG &&
				       value->lhs->kind == ND_INT))) {
		if (numbered_quantizers(x) > 1)
			diag_error(x->c->diag, value->loc, "a zone number could be of any of the %d "
				   "quantize rules (`every` or `= expr`) of this rules block",
				   numbered_quantizers(x));
		return; /* lowered (lower.c, Quantize): the event of entering that zone */
	}
	if (t != TY_NONE && t != TY_BOOL)
		diag_error(x->c->diag, value->loc, "a rule's condition must be Bool, not %s%s",
			   ast_type_name(t),
			   t == TY_STRING ? " (zone names need a quantize rule in the block)" :
			   t == TY_INTEGER && x->quantized && numbered_quantizers(x)
				   ? " (a zone number is an integer literal)" : "");
}

static bool has_crossing(const Node *e)
{
	if (!e)
		return false;
	if (e->kind == ND_BINARY && (e->op == OP_CROSS_UP || e->op == OP_CROSS_DOWN))
		return true;
	return has_crossing(e->lhs) || has_crossing(e->rhs);
}

static bool crossing_in_block(const Node *b)
{
	const Node *ret = ast_last(b->list1);
	return ret && ret->kind == ND_RETURN && has_crossing(ret->lhs);
}

/* Whether a condition (an expression or a block's `return e`) has a crossing. */
static bool cond_has_crossing(const Node *c)
{
	return c->kind == ND_BLOCK ? crossing_in_block(c) : has_crossing(c);
}

static const Node *first_crossing(const Node *e)
{
	if (!e)
		return NULL;
	if (e->kind == ND_BINARY && (e->op == OP_CROSS_UP || e->op == OP_CROSS_DOWN))
		return e;
	const Node *l = first_crossing(e->lhs);
	return l ? l : first_crossing(e->rhs);
}

/* A crossing operator in a block without crossing settings: it has no tolerance. */
static void no_crossing_settings(Ctx *x, const Node *cond)
{
	const Node *e = cond->kind == ND_BLOCK ? first_crossing(ast_last(cond->list1)->lhs)
					       : first_crossing(cond);
	if (!e)
		e = cond;
	diag_error(x->c->diag, e->loc, "the crossing operator '%s' needs crossing settings on "
		   "its rules block", ast_op_spelling(e->op));
	diag_note(x->c->diag, e->loc, "write `%s rules with crossing absolute tolerance = X and "
		  "relative tolerance = Y { ... }`, or the settings after the condition",
		  x->part == PART_OUT_COND ? "out" : "in");
}

/* A quantize rule's zones: names (strings) between limits (numbers), each name once in
 * the rules block. */
static void check_zones(Ctx *x, Node *q)
{
	SaType ts = chk_expr(x, q->lhs);
	chk_expect_numeric(x, q->lhs, ts, "the quantized signal");
	int i = 0;
	for (Node *z = q->list1; z; z = z->next, i++) {
		if (i % 2 == 0 && z->kind != ND_STRING) {
			diag_error(x->c->diag, z->loc, "a quantize rule names its zones with strings, "
				   "between limits: \"zone\", limit, \"zone\", ...");
			return;
		}
		if (i % 2 == 1) {
			chk_expect_numeric(x, z, chk_expr(x, z), "a zone's limit");
			continue;
		}
		const Node *first = zone_declaration(x, z->str);
		if (first != z) {
			diag_error(x->c->diag, z->loc, "zone \"%s\" is declared twice in this rules "
				   "block", z->str);
			diag_note(x->c->diag, first->loc, "first declared here");
		}
	}
	if (i % 2 == 0)
		diag_error(x->c->diag, q->loc, "a quantize rule ends with a zone, after its last "
			   "limit");
}

void chk_rules(Ctx *x, Node *rules, bool in)
{
	Scope *saved = x->scope;
	x->scope = chk_scope_new(x, saved);
	x->quantized = false;
	x->rules = rules;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_QUANTIZE)
			x->quantized = true;
	bool crossing = false;
	for (Node *s = rules->list1; s; s = s->next) {
		if (s->kind == ND_CROSSING) {
			check_settings(x, s->list1);
			crossing = true; /* lowered (lower.c, Crossing and CrossingOut) */
		} else {
			x->part = in ? PART_IN_MAP : PART_OUT_MAP;
			check_output_fn(x, s, in ? "on in rules" : NULL);
		}
	}
	for (Node *v = rules->list2; v; v = v->next) {
		x->part = PART_VARINIT;
		chk_vardecl(x, v, SYM_LOCAL);
		chk_declare(x, x->scope, v->name, v, SYM_LOCAL);
	}
	for (Node *r = rules->list3; r; r = r->next) {
		switch (r->op) {
		case RULE_COND:
			x->part = in ? PART_IN_COND : PART_OUT_COND;
			check_condition(x, r->cond);
			if (r->list1 && !cond_has_crossing(r->cond)) {
				diag_error(x->c->diag, r->list1->loc, "tolerance settings on a condition "
					   "without a crossing operator ('>!' or '<!') have nothing to set");
			} else if (cond_has_crossing(r->cond) && !crossing && !r->list1) {
				no_crossing_settings(x, r->cond);
			}
			check_settings(x, r->list1);
			x->part = in ? PART_IN_TRANS : PART_OUT_TRANS;
			chk_block(x, r->then);
			break;
		case RULE_ASSIGN:
			x->part = in ? PART_IN_TRANS : PART_OUT_TRANS;
			chk_block(x, r->then);
			break;
		case RULE_QUANTIZE: {
			Node *q = r->lhs;
			x->part = PART_QUANTIZE;
			if (q->op == QUANT_ZONES) {
				check_zones(x, q); /* lowered (lower.c, Quantize) */
				break;
			}
			chk_expect_numeric(x, q->lhs, chk_expr(x, q->lhs), "the quantized signal");
			for (Node *z = q->list1; z; z = z->next)
				chk_expr(x, z);
			if (q->op == QUANT_EVERY) {
				chk_expect_numeric(x, q->rhs, chk_expr(x, q->rhs), "the quantum");
				if (q->els)
					chk_expect_numeric(x, q->els, chk_expr(x, q->els), "the offset");
			} else if (q->rhs) {
				SaType tf = chk_expr(x, q->rhs);
				if (tf == TY_STRING)
					not_lowered(x, q->rhs->loc, "quantize (P, = expr) with a String zone");
			}
			/* lowered (lower.c, Quantize) */
			break;
		}
		case RULE_LOOP:
			chk_general(x, r->lhs, true);
			break;
		}
		if (r->els) {
			x->part = in ? PART_IN_MAP : PART_OUT_MAP;
			check_output_fn(x, r->els, "on one rule");
		}
	}
	x->scope = saved;
}

void chk_control(Ctx *x, Node *ctrl)
{
	x->part = PART_CTRL;
	switch (ctrl->kind) {
	case ND_CTRL: {
		Scope *saved = x->scope;
		x->scope = chk_scope_new(x, saved);
		chk_stmts(x, ctrl->body->list1);
		x->scope = saved;
		break;
	}
	case ND_CTRL_IMPLIED:
		break; /* the default: CreateCtrlRules writes it out */
	case ND_CTRL_TRIGGERED:
	{
		SaType t = chk_expr(x, ctrl->cond); /* lowered (lower.c, Triggered) */
		if (t != TY_NONE && t != TY_BOOL)
			diag_error(x->c->diag, ctrl->cond->loc, "the trigger of 'triggered by' must "
				   "be Bool, not %s", ast_type_name(t));
		break;
	}
	case ND_CTRL_PERIODIC:
		if (ctrl->lhs)
			chk_expect_numeric(x, ctrl->lhs, chk_expr(x, ctrl->lhs), "the start time");
		chk_expect_numeric(x, ctrl->rhs, chk_expr(x, ctrl->rhs), "the period");
		/* lowered (lower.c, Periodic) */
		break;
	case ND_CTRL_MULTIPLIED: {
		SaType t = chk_expr(x, ctrl->lhs);
		chk_expect_numeric(x, ctrl->lhs, t, "the count");
		long long n;
		if (t == TY_INTEGER && const_int(ctrl->lhs, &n) && n < 1) {
			diag_error(x->c->diag, ctrl->lhs->loc, "'multiplied N times' needs N of at "
				   "least 1, not %lld", n);
			diag_note(x->c->diag, ctrl->loc, "with %lld, the inner FMUs would never step", n);
		}
		/* lowered (lower.c, Multiplied) */
		break;
	}
	default:
		break;
	}
}
