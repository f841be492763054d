/* emit_c_expr.c — the C emitter's types and expressions: the type of an expression, and
 * its C text with the fewest parentheses its precedence needs (builtins, references to
 * ports and vars, the runtime calls), for emit_c.c's statements. */
#include "emit_c_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explicit.h"

/* ---- expressions ------------------------------------------------------------------------------ */


static SaType type_of(Ec *e, const Node *n);

static SaType decl_type(const Node *d)
{
	return d && d->type != TY_NONE ? d->type : TY_REAL;
}

const InnerPort *ec_inner_port_of(Ec *e, const Node *ref, InnerC **icp)
{
	InnerC *ic = ref->owner ? ec_inner_c(e, ref->owner) : NULL;
	if (icp)
		*icp = ic;
	return ic ? sema_inner_port(ic->in, ref->name) : NULL;
}

static SaType type_of(Ec *e, const Node *n)
{
	switch (n->kind) {
	case ND_INT: return TY_INTEGER;
	case ND_REAL: return TY_REAL;
	case ND_BOOL: return TY_BOOL;
	case ND_STRING: return TY_STRING;
	case ND_KEYVAR: return TY_REAL;
	case ND_NAME: return decl_type(n->decl);
	case ND_PORT_REF: {
		if (n->sym == SYM_INNER_IN || n->sym == SYM_INNER_OUT) {
			const InnerPort *p = ec_inner_port_of(e, n, NULL);
			return p && p->type != TY_NONE ? p->type : TY_REAL;
		}
		return decl_type(n->decl);
	}
	case ND_UNARY: return n->op == OP_NOT ? TY_BOOL : type_of(e, n->lhs);
	case ND_BINARY:
		switch (n->op) {
		case OP_ADD:
		case OP_SUB:
		case OP_MUL:
			return type_of(e, n->lhs) == TY_REAL || type_of(e, n->rhs) == TY_REAL ? TY_REAL
			                                                                      : TY_INTEGER;
		case OP_DIV: return TY_REAL;
		default: return TY_BOOL;
		}
	case ND_BUILTIN:
		switch (n->op) {
		case BI_FLOOR:
		case BI_CEIL: return TY_INTEGER;
		case BI_ROUND: return ast_count(n->list1) == 1 ? TY_INTEGER : TY_REAL;
		case BI_ABS: return n->list1 ? type_of(e, n->list1) : TY_REAL;
		case BI_MAX:
		case BI_MIN:
			for (const Node *a = n->list1; a; a = a->next)
				if (type_of(e, a) == TY_REAL)
					return TY_REAL;
			return TY_INTEGER;
		case BI_IS_CLOSE:
		case BI_IS_SET: return TY_BOOL;
		default: return TY_REAL;
		}
	default: return TY_NONE;
	}
}

bool ec_is_string(Ec *e, const Node *n)
{
	return type_of(e, n) == TY_STRING;
}

bool ec_is_real(Ec *e, const Node *n)
{
	return type_of(e, n) == TY_REAL;
}

static int prec_of(const Node *n)
{
	switch (n->kind) {
	case ND_INT: return n->ival < 0 ? P_UNARY : P_POSTFIX;
	case ND_REAL: return signbit(n->rval) ? P_UNARY : P_POSTFIX;
	case ND_UNARY: return P_UNARY;
	case ND_BINARY:
		switch (n->op) {
		case OP_OR: return P_OR;
		case OP_AND: return P_AND;
		case OP_EQ:
		case OP_NE: return P_EQ;
		case OP_LT:
		case OP_LE:
		case OP_GT:
		case OP_GE: return P_REL;
		case OP_ADD:
		case OP_SUB: return P_ADD;
		case OP_DIV:
			return P_MUL;
		default: return P_MUL;
		}
	default: return P_POSTFIX;
	}
}

/* Whether the C value of n is already 0 or 1. */
bool ec_is_truth(const Node *n)
{
	if (n->kind == ND_UNARY)
		return n->op == OP_NOT;
	if (n->kind == ND_BINARY)
		return prec_of(n) <= P_REL;
	if (n->kind == ND_BUILTIN)
		return n->op == BI_IS_CLOSE || n->op == BI_IS_SET;
	return n->kind == ND_BOOL;
}

static void put_expr(Ec *e, StrBuf *o, const Node *n, int min_prec);

static void put_args(Ec *e, StrBuf *o, const Node *args)
{
	for (const Node *a = args; a; a = a->next) {
		if (a != args)
			sb_puts(o, ", ");
		put_expr(e, o, a, P_LOW);
	}
}

static const char *where(Ec *e, const Node *n)
{
	return arena_printf(e->c->arena, "%s:%d:%d", ec_base_name(n->loc.file), n->loc.line,
			    n->loc.col);
}

/* The inner FMU a builtin names (do_step(f, ...), save_state(f), ...). */
static const char *fmu_arg(Ec *e, const Node *n)
{
	InnerC *ic = n->name ? ec_inner_c(e, n->name) : NULL;
	if (!ic) {
		ec_error(e, n->loc, "cannot emit C for %s: '%s' is not an inner fmu of '%s'",
		      ast_builtin_name(n->op), n->name ? n->name : "", e->sa->name);
		return "0";
	}
	e->uses |= U_W;
	return ic->enumc;
}

/* is_set(x) / discard(x): x's type and value reference. */
static void put_input_vr(Ec *e, StrBuf *o, const Node *n)
{
	const Node *x = n->list1;
	const EmitVar *v = NULL;
	if (x && x->sym == SYM_INPORT)
		for (int i = 0; i < e->l->ninputs; i++)
			if (e->l->vars[i].decl == x->decl || strcmp(e->l->vars[i].name, x->name) == 0)
				v = &e->l->vars[i];
	if (!v) {
		ec_error(e, n->loc, "cannot emit C for %s: its argument is not an input port of '%s'",
		      ast_builtin_name(n->op), e->sa->name);
		sb_puts(o, "SART_REAL, 0");
		return;
	}
	int t = ec_sart_type(v->type);
	sb_printf(o, "%s, vr_%s", type_sart[t < 0 ? 0 : t], v->name);
}

/* fmax(fmax(a, b), c) or sart_imax(sart_imax(a, b), c). */
static void put_fold(Ec *e, StrBuf *o, const Node *args, const char *fn, int count)
{
	if (count == 1) {
		put_expr(e, o, args, P_LOW);
		return;
	}
	const Node *last = args;
	for (int i = 1; i < count; i++)
		last = last->next;
	sb_printf(o, "%s(", fn);
	/* the first count - 1 arguments, folded */
	if (count - 1 == 1) {
		put_expr(e, o, args, P_LOW);
	} else {
		put_fold(e, o, args, fn, count - 1);
	}
	sb_puts(o, ", ");
	put_expr(e, o, last, P_LOW);
	sb_putc(o, ')');
}

static void put_builtin(Ec *e, StrBuf *o, const Node *n)
{
	int nargs = ast_count(n->list1);
	const Node *a = n->list1;
	switch (n->op) {
	case BI_FLOOR:
	case BI_CEIL:
	case BI_ROUND:
		if (n->op == BI_ROUND && nargs == 2) {
			e->round_digits = true;
			sb_puts(o, "round_digits(");
			put_args(e, o, a);
			sb_putc(o, ')');
			return;
		}
		if (nargs != 1)
			break;
		if (type_of(e, a) == TY_INTEGER) { /* already whole */
			put_expr(e, o, a, P_LOW);
			return;
		}
		e->uses |= U_W;
		sb_printf(o, "sart_to_int(w, %s(", ast_builtin_name(n->op));
		put_expr(e, o, a, P_LOW);
		sb_printf(o, "), \"%s\")", ec_c_string(e->c->arena, where(e, n)));
		return;
	case BI_ABS:
		if (nargs != 1)
			break;
		sb_puts(o, type_of(e, a) == TY_INTEGER ? "abs(" : "fabs(");
		put_expr(e, o, a, P_LOW);
		sb_putc(o, ')');
		return;
	case BI_MAX:
	case BI_MIN: {
		if (nargs < 1)
			break;
		bool real = type_of(e, n) == TY_REAL;
		const char *fn = n->op == BI_MAX ? (real ? "fmax" : "sart_imax")
		                                 : (real ? "fmin" : "sart_imin");
		put_fold(e, o, a, fn, nargs);
		return;
	}
	case BI_IS_CLOSE:
		if (nargs != 2 && nargs != 4)
			break;
		sb_puts(o, "sart_is_close(");
		put_args(e, o, a);
		if (nargs == 2)
			sb_puts(o, ", 1e-5, 1e-8");
		sb_putc(o, ')');
		return;
	case BI_IS_SET:
	case BI_DISCARD:
		e->uses |= U_W;
		sb_printf(o, "%s(w, ", n->op == BI_IS_SET ? "sart_is_set" : "sart_discard");
		put_input_vr(e, o, n);
		sb_putc(o, ')');
		return;
	case BI_DO_STEP: {
		if (nargs != 2)
			break;
		const char *f = fmu_arg(e, n);
		e->uses |= U_W | U_S;
		sb_printf(o, "sart_do_step(w, s, %s, ", f);
		put_args(e, o, a);
		sb_putc(o, ')');
		return;
	}
	case BI_SAVE_STATE:
	case BI_ROLLBACK:
	case BI_GET_NEXT_TIME_STEP:
	case BI_LAST_EXECUTION_TIME:
		sb_printf(o, "sart_%s(w, %s)", ast_builtin_name(n->op), fmu_arg(e, n));
		return;
	case BI_ELAPSED:
		e->uses |= U_T;
		sb_printf(o, "sart_elapsed(w, %s, t)", fmu_arg(e, n));
		return;
	default:
		break;
	}
	ec_error(e, n->loc, "cannot emit C for %s with %d argument%s", ast_builtin_name(n->op), nargs,
	      nargs == 1 ? "" : "s");
	sb_puts(o, "0");
}

/* A name or port reference as a C lvalue or value. */
static void put_ref(Ec *e, StrBuf *o, const Node *n)
{
	if (n->kind == ND_PORT_REF && (n->sym == SYM_INNER_IN || n->sym == SYM_INNER_OUT)) {
		InnerC *ic;
		const InnerPort *p = ec_inner_port_of(e, n, &ic);
		const Slot *sl = p ? &ic->slots[p - ic->in->ports] : NULL;
		if (!sl || sl->type < 0) {
			if (!p)
				ec_error(e, n->loc, "cannot emit C for '%s.%s': no such inner port",
				      n->owner ? n->owner : "", n->name);
			sb_puts(o, "0");
			return;
		}
		e->uses |= U_S;
		sb_printf(o, "s->%s_%s_%s[%s]", ic->cname, p->is_input ? "in" : "out",
			  type_word[sl->type], sl->enumc);
		return;
	}
	bool local = n->kind == ND_NAME &&
	             (n->sym == SYM_LOOP_VAR ||
	              (n->sym == SYM_LOCAL && !(n->decl && n->decl->op == DECL_RULES)));
	if (local) {
		sb_puts(o, ec_local_c(e, n->name));
		return;
	}
	const char *f = n->decl ? ec_field_of(e, n->decl) : NULL;
	if (!f && (n->kind == ND_NAME || (n->owner && strcmp(n->owner, e->sa->name) == 0)))
		f = ec_field_named(e, n->name);
	if (!f) {
		ec_error(e, n->loc, "cannot emit C for '%s': it names nothing the wrapper stores",
		      n->name);
		sb_puts(o, "0");
		return;
	}
	e->uses |= U_S;
	sb_printf(o, "s->%s", f);
}

static void put_binary(Ec *e, StrBuf *o, const Node *n)
{
	int p = prec_of(n);
	int lmin = p, rmin = p + 1;
	if (n->op == OP_OR || n->op == OP_AND) {
		/* a && b inside || gets its parentheses (-Wparentheses) */
		lmin = rmin = P_EQ;
		if (n->lhs->kind == ND_BINARY && n->lhs->op == n->op)
			lmin = p;
	} else if (p == P_EQ || p == P_REL) {
		lmin = rmin = P_ADD; /* a chain of comparisons keeps the script's grouping */
	}
	const char *op;
	switch (n->op) {
	case OP_OR: op = "||"; break;
	case OP_AND: op = "&&"; break;
	case OP_LT: op = "<"; break;
	case OP_LE: op = "<="; break;
	case OP_GT: op = ">"; break;
	case OP_GE: op = ">="; break;
	case OP_EQ: op = "=="; break;
	case OP_NE: op = "!="; break;
	case OP_ADD: op = "+"; break;
	case OP_SUB: op = "-"; break;
	case OP_MUL: op = "*"; break;
	case OP_DIV: op = "/"; break;
	default:
		ec_error(e, n->loc, "cannot emit C for the crossing operator '%s': the declarative "
		      "form 'crossing' was not lowered", ast_op_spelling(n->op));
		sb_puts(o, "0");
		return;
	}
	if ((n->op == OP_EQ || n->op == OP_NE) && ec_is_string(e, n->lhs)) {
		/* Strings compare by their text */
		sb_printf(o, "%ssart_string_eq(", n->op == OP_NE ? "!" : "");
		put_expr(e, o, n->lhs, P_LOW);
		sb_puts(o, ", ");
		put_expr(e, o, n->rhs, P_LOW);
		sb_putc(o, ')');
		return;
	}
	if (n->op == OP_DIV && type_of(e, n->lhs) != TY_REAL) {
		sb_puts(o, "(double)"); /* '/' is always real division */
		put_expr(e, o, n->lhs, P_UNARY);
	} else {
		put_expr(e, o, n->lhs, lmin);
	}
	sb_printf(o, " %s ", op);
	put_expr(e, o, n->rhs, rmin);
}

static void put_expr(Ec *e, StrBuf *o, const Node *n, int min_prec)
{
	bool paren = prec_of(n) < min_prec;
	if (paren)
		sb_putc(o, '(');
	switch (n->kind) {
	case ND_INT:
		if (n->ival < -2147483647LL || n->ival > 2147483647LL)
			ec_error(e, n->loc, "cannot emit C for %lld: an Integer has 32 bits", n->ival);
		sb_printf(o, "%lld", n->ival);
		break;
	case ND_REAL:
		sb_puts(o, ec_real_text(e, n->rval));
		break;
	case ND_BOOL:
		sb_puts(o, n->ival ? "1" : "0");
		break;
	case ND_STRING:
		sb_printf(o, "\"%s\"", ec_c_string(e->c->arena, n->str ? n->str : ""));
		break;
	case ND_NAME:
	case ND_PORT_REF:
		put_ref(e, o, n);
		break;
	case ND_KEYVAR:
		switch (n->op) {
		case KV_T:
			e->uses |= U_T;
			sb_puts(o, "t");
			break;
		case KV_BIG_H:
			e->uses |= U_BIGH;
			sb_puts(o, "H");
			break;
		case KV_H:
		case KV_DT:
			if (!e->map) {
				ec_error(e, n->loc, "cannot emit C for '%s' outside MapIn and MapOut",
				      ast_keyvar_name(n->op));
				sb_puts(o, "0.0");
				break;
			}
			e->uses |= n->op == KV_H ? U_H : U_DT;
			sb_puts(o, n->op == KV_H ? "h" : "dt");
			break;
		case KV_E:
			e->uses |= U_W;
			sb_puts(o, "sart_e(w)");
			break;
		default:
			sb_puts(o, "SART_MAX");
			break;
		}
		break;
	case ND_UNARY: {
		sb_puts(o, n->op == OP_NOT ? "!" : "-");
		const Node *x = n->lhs;
		bool inner_paren = n->op == OP_NEG && prec_of(x) == P_UNARY &&
		                   (x->kind != ND_UNARY || x->op == OP_NEG);
		if (inner_paren)
			sb_putc(o, '(');
		put_expr(e, o, x, inner_paren ? P_LOW : P_UNARY);
		if (inner_paren)
			sb_putc(o, ')');
		break;
	}
	case ND_BINARY:
		put_binary(e, o, n);
		break;
	case ND_BUILTIN:
		put_builtin(e, o, n);
		break;
	case ND_SIGNAL:
		ec_error(e, n->loc, "cannot emit C for 'signal': the declarative form 'quantize' was "
		      "not lowered");
		sb_puts(o, "0");
		break;
	case ND_OTHERWISE:
		ec_error(e, n->loc, "cannot emit C for the declarative form 'otherwise': it must be "
		      "lowered to control, in and out rules first");
		sb_puts(o, "0");
		break;
	default:
		ec_error(e, n->loc, "cannot emit C for %s in an expression", ast_kind_name(n->kind));
		sb_puts(o, "0");
		break;
	}
	if (paren)
		sb_putc(o, ')');
}

/* The expression as C text (arena). */
const char *ec_expr(Ec *e, const Node *n, int min_prec)
{
	StrBuf sb;
	sb_init(&sb);
	put_expr(e, &sb, n, min_prec);
	const char *r = arena_strdup(e->c->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

