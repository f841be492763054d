/* ast.c — construction, copying and printing of the syntax tree (see ast.h).
 *
 * The printer writes the canonical layout that `sacc explicit` shows: one declaration
 * per line, tabs for indentation, the fewest parentheses that keep the tree.  Reading its
 * output back gives the same tree, which is what makes "the explicit form of a printed
 * explicit form is the same text" hold. */
#include "ast.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define CHILD(field, is_list) {#field, offsetof(Node, field), is_list}

const AstChild ast_children[] = {
	CHILD(lhs, false), CHILD(rhs, false), CHILD(cond, false), CHILD(then, false),
	CHILD(els, false), CHILD(init, false), CHILD(unit, false), CHILD(bind, false),
	CHILD(body, false), CHILD(list1, true), CHILD(list2, true), CHILD(list3, true),
	CHILD(a_inners, true), CHILD(a_couplings, true), CHILD(a_inports, true),
	CHILD(a_outports, true), CHILD(a_params, true), CHILD(a_general, true),
	CHILD(a_ctrl_vars, true), CHILD(a_ctrl, false), CHILD(a_in_vars, true),
	CHILD(a_in_rules, false), CHILD(a_out_vars, true), CHILD(a_out_rules, false),
};

#undef CHILD

_Static_assert(sizeof ast_children / sizeof ast_children[0] == AST_NCHILDREN,
	       "AST_NCHILDREN is the number of rows of ast_children");

Node *ast_new(Arena *a, NodeKind kind, Loc loc)
{
	Node *n = arena_alloc(a, sizeof *n);
	n->kind = kind;
	n->loc = loc;
	n->mult_lo = n->mult_hi = -1;
	return n;
}

Node *ast_name(Arena *a, Loc loc, const char *name)
{
	Node *n = ast_new(a, ND_NAME, loc);
	n->name = name;
	return n;
}

Node *ast_port_ref(Arena *a, Loc loc, const char *owner, const char *name)
{
	Node *n = ast_new(a, ND_PORT_REF, loc);
	n->owner = owner;
	n->name = name;
	return n;
}

Node *ast_binary(Arena *a, Loc loc, Op op, Node *lhs, Node *rhs)
{
	Node *n = ast_new(a, ND_BINARY, loc);
	n->op = op;
	n->lhs = lhs;
	n->rhs = rhs;
	return n;
}

Node *ast_unary(Arena *a, Loc loc, Op op, Node *operand)
{
	Node *n = ast_new(a, ND_UNARY, loc);
	n->op = op;
	n->lhs = operand;
	return n;
}

Node *ast_int(Arena *a, Loc loc, long long v)
{
	Node *n = ast_new(a, ND_INT, loc);
	n->ival = v;
	return n;
}

Node *ast_real(Arena *a, Loc loc, double v)
{
	Node *n = ast_new(a, ND_REAL, loc);
	n->rval = v;
	return n;
}

Node *ast_bool(Arena *a, Loc loc, bool v)
{
	Node *n = ast_new(a, ND_BOOL, loc);
	n->ival = v;
	return n;
}

Node *ast_string(Arena *a, Loc loc, const char *s)
{
	Node *n = ast_new(a, ND_STRING, loc);
	n->str = s;
	return n;
}

Node *ast_assign(Arena *a, Loc loc, Node *lhs, Node *rhs)
{
	Node *n = ast_new(a, ND_ASSIGN, loc);
	n->lhs = lhs;
	n->rhs = rhs;
	return n;
}

Node *ast_block(Arena *a, Loc loc, Node *stmts)
{
	Node *n = ast_new(a, ND_BLOCK, loc);
	n->list1 = stmts;
	return n;
}

static Node *clone_list(Arena *a, const Node *l)
{
	Node *head = NULL, *tail = NULL;
	for (; l; l = l->next) {
		Node *c = ast_clone(a, l);
		if (tail)
			tail->next = c;
		else
			head = c;
		tail = c;
	}
	return head;
}

Node *ast_clone(Arena *a, const Node *n)
{
	if (!n)
		return NULL;
	Node *c = arena_alloc(a, sizeof *c);
	*c = *n;
	c->next = NULL;
	/* A do_step's arguments are chained through list1; clone_list keeps the chain. */
	for (int i = 0; i < AST_NCHILDREN; i++) {
		const Node *child = ast_child(n, i);
		*ast_child_slot(c, i) = ast_children[i].is_list ? clone_list(a, child)
							       : ast_clone(a, child);
	}
	return c;
}

Node *ast_last(Node *list)
{
	if (!list)
		return NULL;
	while (list->next)
		list = list->next;
	return list;
}

Node *ast_append(Node *list, Node *item)
{
	if (!list)
		return item;
	ast_last(list)->next = item;
	return list;
}

Node *ast_prepend(Node *list, Node *item)
{
	ast_last(item)->next = list;
	return item;
}

AstTail ast_tail(Node **head)
{
	AstTail t = {head, ast_last(*head)};
	return t;
}

void ast_tail_append(AstTail *t, Node *item)
{
	if (!item)
		return;
	if (t->last)
		t->last->next = item;
	else
		*t->head = item;
	t->last = ast_last(item);
}

int ast_count(const Node *list)
{
	int n = 0;
	for (; list; list = list->next)
		n++;
	return n;
}

const char *ast_kind_name(NodeKind k)
{
	static const char *const names[] = {
		"file", "import", "fmu", "connection", "adaptation", "inner", "inner-ref", "port",
		"unit", "var-decl", "successive-substitution", "delay", "multiply-rate",
		"derivative", "setting", "crossing", "model-exchange", "hold", "control-rules", "implied",
		"triggered", "periodic", "multiplied", "rules", "rule", "quantize", "block", "var",
		"assign", "call", "if", "for", "break", "return", "int", "real", "string", "bool",
		"array", "name", "port-ref", "keyvar", "signal", "otherwise", "unary", "binary",
		"builtin",
	};
	_Static_assert(sizeof names / sizeof names[0] == ND_KIND_COUNT, "kind names");
	return (unsigned)k < ND_KIND_COUNT ? names[k] : "?";
}

double ast_number(const Node *lit)
{
	return lit->kind == ND_REAL ? lit->rval : (double)lit->ival;
}

const char *ast_type_name(SaType t)
{
	switch (t) {
	case TY_REAL: return "Real";
	case TY_INTEGER: return "Integer";
	case TY_BOOL: return "Bool";
	case TY_STRING: return "String";
	default: return "";
	}
}

const char *ast_op_spelling(Op op)
{
	switch (op) {
	case OP_OR: return "or";
	case OP_AND: return "and";
	case OP_NOT: return "not";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_CROSS_UP: return ">!";
	case OP_CROSS_DOWN: return "<!";
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_MUL: return "*";
	case OP_DIV: return "/";
	case OP_NEG: return "-";
	default: return "?";
	}
}

const char *ast_builtin_name(Builtin b)
{
	static const char *const names[] = {
		"floor", "ceil", "round", "abs", "max", "min", "is_close", "is_set", "do_step",
		"save_state", "rollback", "discard", "get_next_time_step", "elapsed",
		"last_execution_time",
	};
	return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "?";
}

const char *ast_keyvar_name(int kv)
{
	static const char *const names[] = {"t", "H", "h", "dt", "e", "MAX"};
	return (unsigned)kv < 6 ? names[kv] : "?";
}

/* ---- printing ---------------------------------------------------------------------- */

/* A name that is a reserved word is printed with the '^' escape. */
static void put_name(StrBuf *o, const char *name)
{
	if (lex_is_keyword(name))
		sb_putc(o, '^');
	sb_puts(o, name);
}

static void put_string(StrBuf *o, const char *s)
{
	sb_putc(o, '"');
	for (; *s; s++) {
		switch (*s) {
		case '"': sb_puts(o, "\\\""); break;
		case '\\': sb_puts(o, "\\\\"); break;
		case '\n': sb_puts(o, "\\n"); break;
		case '\t': sb_puts(o, "\\t"); break;
		case '\r': sb_puts(o, "\\r"); break;
		default: sb_putc(o, *s);
		}
	}
	sb_putc(o, '"');
}

/* The shortest spelling that reads back as the same double, always with a '.' or an
 * exponent so that it stays a Real. */
static void put_real(StrBuf *o, double v)
{
	char buf[40];
	if (isnan(v) || isinf(v)) {
		/* Not writable as a literal: an expression that evaluates to it. */
		sb_puts(o, isnan(v) ? "(0.0 / 0.0)" : v > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* %g writes 90 as 9e+01; in the range people write in fixed notation, do that. */
	double mag = fabs(v);
	if (strchr(buf, 'e') && mag >= 1e-4 && mag < 1e15) {
		for (int decimals = 1; decimals <= 20; decimals++) {
			char fixed[64];
			snprintf(fixed, sizeof fixed, "%.*f", decimals, v);
			if (strtod(fixed, NULL) == v) {
				sb_puts(o, fixed);
				return;
			}
		}
	}
	sb_puts(o, buf);
	if (!strpbrk(buf, ".e"))
		sb_puts(o, ".0");
}

enum { PREC_OR = 1, PREC_AND, PREC_NOT, PREC_CMP, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_PRIMARY };

static int prec_of(const Node *e)
{
	if (e->kind == ND_BINARY) {
		switch (e->op) {
		case OP_OR: return PREC_OR;
		case OP_AND: return PREC_AND;
		case OP_ADD: case OP_SUB: return PREC_ADD;
		case OP_MUL: case OP_DIV: return PREC_MUL;
		default: return PREC_CMP;
		}
	}
	if (e->kind == ND_UNARY)
		return e->op == OP_NOT ? PREC_NOT : PREC_UNARY;
	if ((e->kind == ND_INT && e->ival < 0) || (e->kind == ND_REAL && signbit(e->rval)))
		return PREC_UNARY;
	return PREC_PRIMARY;
}

static void put_expr(StrBuf *o, const Node *e);

static void put_operand(StrBuf *o, const Node *e, int min_prec)
{
	bool paren = prec_of(e) < min_prec;
	if (paren)
		sb_putc(o, '(');
	put_expr(o, e);
	if (paren)
		sb_putc(o, ')');
}

static void put_args(StrBuf *o, const Node *args)
{
	for (const Node *a = args; a; a = a->next) {
		put_expr(o, a);
		if (a->next)
			sb_puts(o, ", ");
	}
}

static void put_expr(StrBuf *o, const Node *e)
{
	switch (e->kind) {
	case ND_INT:
		sb_printf(o, "%lld", e->ival);
		break;
	case ND_REAL:
		if (e->str)
			sb_puts(o, e->str);
		else
			put_real(o, e->rval);
		break;
	case ND_STRING:
		put_string(o, e->str);
		break;
	case ND_BOOL:
		sb_puts(o, e->ival ? "true" : "false");
		break;
	case ND_ARRAY:
		sb_putc(o, '[');
		put_args(o, e->list1);
		sb_putc(o, ']');
		break;
	case ND_NAME:
		put_name(o, e->name);
		break;
	case ND_PORT_REF:
		if (e->owner) {
			put_name(o, e->owner);
			sb_putc(o, '.');
		}
		put_name(o, e->name);
		break;
	case ND_KEYVAR:
		sb_puts(o, ast_keyvar_name(e->op));
		break;
	case ND_SIGNAL:
		sb_puts(o, "signal");
		if (e->op == SIG_NOW)
			sb_puts(o, "[now]");
		else if (e->op == SIG_PREV)
			sb_puts(o, "[prev]");
		else if (e->op == SIG_INDEX)
			sb_printf(o, "[%lld]", e->ival);
		break;
	case ND_OTHERWISE:
		sb_puts(o, "otherwise");
		break;
	case ND_UNARY:
		if (e->op == OP_NOT) {
			sb_puts(o, "not ");
			put_operand(o, e->lhs, PREC_NOT);
		} else {
			sb_putc(o, '-');
			put_operand(o, e->lhs, PREC_UNARY);
		}
		break;
	case ND_BINARY: {
		int p = prec_of(e);
		/* Left-associative arithmetic and logic; comparisons do not chain. */
		put_operand(o, e->lhs, p == PREC_CMP ? p + 1 : p);
		sb_printf(o, " %s ", ast_op_spelling(e->op));
		put_operand(o, e->rhs, p + 1);
		break;
	}
	case ND_BUILTIN:
		sb_puts(o, ast_builtin_name(e->op));
		sb_putc(o, '(');
		if (e->name) {
			put_name(o, e->name);
			if (e->list1)
				sb_puts(o, ", ");
		}
		put_args(o, e->list1);
		sb_putc(o, ')');
		break;
	default:
		sb_printf(o, "<%s>", ast_kind_name(e->kind));
	}
}

void ast_print_expr(StrBuf *out, const Node *e)
{
	put_expr(out, e);
}

static void indent(StrBuf *o, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_putc(o, '\t');
}

static void put_stmts(StrBuf *o, const Node *stmts, int depth);

static void put_var_items(StrBuf *o, const Node *items)
{
	for (const Node *v = items; v; v = v->next) {
		if (v->type != TY_NONE)
			sb_printf(o, "%s ", ast_type_name(v->type));
		put_name(o, v->name);
		if (v->init) {
			sb_puts(o, " := ");
			put_expr(o, v->init);
		}
		if (v->next)
			sb_puts(o, ", ");
	}
}

/* `{ ... }` with its statements on their own lines, closing at depth. */
static void put_block(StrBuf *o, const Node *block, int depth)
{
	if (!block->list1 && !block->lhs) {
		sb_puts(o, "{ }");
		return;
	}
	sb_puts(o, "{\n");
	put_stmts(o, block->list1, depth + 1);
	indent(o, depth);
	sb_putc(o, '}');
}

static void put_if(StrBuf *o, const Node *s, int depth)
{
	sb_puts(o, "if (");
	put_expr(o, s->cond);
	sb_puts(o, ") ");
	put_block(o, s->then, depth);
	if (s->els) {
		sb_puts(o, " else ");
		if (s->els->kind == ND_IF)
			put_if(o, s->els, depth);
		else
			put_block(o, s->els, depth);
	}
}

static void put_stmt(StrBuf *o, const Node *s, int depth)
{
	indent(o, depth);
	switch (s->kind) {
	case ND_VAR:
		sb_puts(o, "var ");
		put_var_items(o, s->list1);
		sb_puts(o, ";\n");
		break;
	case ND_ASSIGN:
		put_expr(o, s->lhs);
		sb_puts(o, " := ");
		put_expr(o, s->rhs);
		sb_puts(o, ";\n");
		break;
	case ND_CALL_STMT:
		put_expr(o, s->lhs);
		sb_puts(o, ";\n");
		break;
	case ND_IF:
		put_if(o, s, depth);
		sb_putc(o, '\n');
		break;
	case ND_FOR:
		sb_puts(o, "for (var ");
		put_name(o, s->name);
		sb_puts(o, " in ");
		put_expr(o, s->lhs);
		sb_puts(o, " .. ");
		put_expr(o, s->rhs);
		sb_puts(o, ") ");
		put_block(o, s->then, depth);
		sb_putc(o, '\n');
		break;
	case ND_BREAK:
		sb_puts(o, "break;\n");
		break;
	case ND_RETURN:
		sb_puts(o, "return ");
		put_expr(o, s->lhs);
		sb_puts(o, ";\n");
		break;
	default:
		sb_printf(o, "<%s>\n", ast_kind_name(s->kind));
	}
}

static void put_stmts(StrBuf *o, const Node *stmts, int depth)
{
	for (const Node *s = stmts; s; s = s->next)
		put_stmt(o, s, depth);
}

/* The unit's text, with '^' before each reserved word that the unit grammar does not take
 * bare (it takes H, h, t and min), so that `(^in)`, inches, reads back. */
static void put_unit(StrBuf *o, const Node *u)
{
	if (!u)
		return;
	sb_puts(o, " (");
	for (const char *p = u->str; *p;) {
		if (!isalpha((unsigned char)*p) && *p != '_') {
			sb_putc(o, *p++);
			continue;
		}
		const char *q = p;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		char word[66];
		size_t n = (size_t)(q - p);
		if (n < sizeof word) {
			memcpy(word, p, n);
			word[n] = '\0';
			if (lex_is_keyword(word) && strcmp(word, "H") != 0 && strcmp(word, "h") != 0 &&
			    strcmp(word, "t") != 0 && strcmp(word, "min") != 0)
				sb_putc(o, '^');
		}
		for (; p < q; p++)
			sb_putc(o, *p);
	}
	sb_putc(o, ')');
}

static void put_port(StrBuf *o, const Node *p)
{
	if (p->type != TY_NONE)
		sb_printf(o, "%s ", ast_type_name(p->type));
	put_name(o, p->name);
	if (p->str) {
		sb_putc(o, ' ');
		put_string(o, p->str);
	}
	if (p->init) {
		sb_puts(o, " := ");
		put_expr(o, p->init);
	}
	if (p->mult_hi >= 0) {
		if (p->mult_lo != 1)
			sb_printf(o, " [%d..%d]", p->mult_lo, p->mult_hi);
		else
			sb_printf(o, " [%d]", p->mult_hi);
	}
	put_unit(o, p->unit);
	if (p->bind_dir != BIND_NONE) {
		sb_puts(o, p->bind_dir == BIND_TO ? " -> " : " <- ");
		put_expr(o, p->bind);
	}
}

/* `input ports a,\n\tb` — one port a line, continuation lines indented by depth + 1. */
/* A coupling's transformation as written: ` (map (1 -> 2), factor 100.0, offset 1.0)`. */
static void put_transform(StrBuf *o, const Node *c)
{
	if (!c->list1 && !c->then && !c->els)
		return;
	const char *sep = " (";
	if (c->list1) {
		sb_puts(o, " (map (");
		for (const Node *m = c->list1; m; m = m->next) {
			put_expr(o, m->lhs);
			sb_puts(o, " -> ");
			put_expr(o, m->rhs);
			sb_puts(o, m->next ? ", " : ")");
		}
		sep = ", ";
	}
	if (c->then) {
		sb_printf(o, "%sfactor ", sep);
		put_expr(o, c->then);
		sep = ", ";
	}
	if (c->els) {
		sb_printf(o, "%soffset ", sep);
		put_expr(o, c->els);
	}
	sb_putc(o, ')');
}

static void put_ports(StrBuf *o, const char *head, const Node *ports, int depth)
{
	indent(o, depth);
	sb_puts(o, head);
	sb_putc(o, ' ');
	for (const Node *p = ports; p; p = p->next) {
		put_port(o, p);
		if (p->next) {
			sb_puts(o, ",\n");
			indent(o, depth + 1);
		}
	}
	sb_putc(o, '\n');
}

static const char *kind_words(int flags)
{
	static char buf[32];
	buf[0] = '\0';
	if (flags & KIND_REACTIVE)
		strcat(buf, "reactive ");
	if (flags & KIND_DELAYED)
		strcat(buf, "delayed ");
	if (flags & KIND_MOORE)
		strcat(buf, "moore ");
	if (flags & KIND_MEALY)
		strcat(buf, "mealy ");
	return buf;
}

static void put_settings(StrBuf *o, const Node *settings)
{
	for (const Node *s = settings; s; s = s->next) {
		if (s->op == SET_ME_SOLVER) {
			sb_printf(o, "solver = %s", s->str);
		} else {
			sb_puts(o, s->op == SET_ABS_TOL   ? "absolute tolerance = "
			           : s->op == SET_REL_TOL ? "relative tolerance = "
			                                  : "max step = ");
			put_expr(o, s->lhs);
		}
		if (s->next)
			sb_puts(o, " and ");
	}
}

/* `with model exchange` when it was written, then the solver's settings on a line. */
static void put_model_exchange(StrBuf *o, const Node *me)
{
	if (me->flags)
		sb_puts(o, "\t\twith model exchange\n");
	if (me->list1) {
		sb_puts(o, "\t\twith ");
		put_settings(o, me->list1);
		sb_putc(o, '\n');
	}
}

static void put_port_refs(StrBuf *o, const Node *refs)
{
	for (const Node *r = refs; r; r = r->next) {
		put_expr(o, r);
		if (r->next)
			sb_puts(o, " and ");
	}
}

static void put_loop_form(StrBuf *o, const Node *g)
{
	if (g->kind == ND_SUBST) {
		sb_puts(o, "successive substitution starts at ");
		put_port_refs(o, g->list1);
		sb_puts(o, " with ");
		put_settings(o, g->list2);
	} else {
		sb_puts(o, "delay at ");
		put_port_refs(o, g->list1);
	}
}

static void put_output_fn(StrBuf *o, const Node *f, int depth)
{
	if (f->kind == ND_HOLD) {
		static const char *const full[] = {"no hold", "zero order hold", "first order hold"};
		sb_puts(o, f->flags ? (f->op == HOLD_ZERO ? "ZOH" : "FOH") : full[f->op]);
	} else if (f->kind == ND_BLOCK) {
		put_block(o, f, depth);
	} else {
		put_expr(o, f);
	}
}

static void put_quantize(StrBuf *o, const Node *q)
{
	sb_puts(o, "quantize");
	if (q->op == QUANT_EVERY) {
		sb_putc(o, ' ');
		put_expr(o, q->lhs);
		sb_puts(o, " every ");
		put_expr(o, q->rhs);
		if (q->els) {
			sb_puts(o, q->flags ? " offset " : " with offset ");
			put_expr(o, q->els);
		}
		return;
	}
	sb_putc(o, '(');
	put_expr(o, q->lhs);
	sb_puts(o, ", ");
	if (q->op == QUANT_FUNCTION) {
		sb_puts(o, "= ");
		put_expr(o, q->rhs);
	} else {
		put_args(o, q->list1);
	}
	sb_putc(o, ')');
}

static void put_rule(StrBuf *o, const Node *r, int depth)
{
	indent(o, depth);
	switch (r->op) {
	case RULE_COND:
		if (r->cond->kind == ND_BLOCK)
			put_block(o, r->cond, depth);
		else
			put_expr(o, r->cond);
		if (r->list1) {
			sb_putc(o, ' ');
			put_settings(o, r->list1);
		}
		sb_puts(o, " -> ");
		if (r->then->lhs)
			put_expr(o, r->then->lhs);
		else
			put_block(o, r->then, depth);
		break;
	case RULE_ASSIGN: {
		const Node *a = r->then->list1;
		put_expr(o, a->lhs);
		sb_puts(o, " := ");
		put_expr(o, a->rhs);
		break;
	}
	case RULE_QUANTIZE:
		put_quantize(o, r->lhs);
		break;
	case RULE_LOOP:
		put_loop_form(o, r->lhs);
		break;
	}
	if (r->els) {
		sb_puts(o, " --> ");
		put_output_fn(o, r->els, depth);
	}
	sb_puts(o, ";\n");
}

static void put_decls(StrBuf *o, const char *head, const Node *vars)
{
	for (const Node *v = vars; v; v = v->next) {
		sb_puts(o, head);
		if (v->type != TY_NONE)
			sb_printf(o, "%s ", ast_type_name(v->type));
		put_name(o, v->name);
		if (v->init) {
			sb_puts(o, " := ");
			put_expr(o, v->init);
		}
		sb_puts(o, ";\n");
	}
}

static void put_rules(StrBuf *o, const char *head, const Node *rules)
{
	sb_puts(o, head);
	if (!rules) {
		sb_puts(o, " {\n}\n");
		return;
	}
	if (rules->list1) {
		sb_puts(o, " with ");
		for (const Node *s = rules->list1; s; s = s->next) {
			if (s->kind == ND_CROSSING) {
				sb_puts(o, "crossing ");
				put_settings(o, s->list1);
			} else {
				put_output_fn(o, s, 0);
			}
			if (s->next)
				sb_puts(o, ", ");
		}
	}
	sb_puts(o, " {\n");
	for (const Node *v = rules->list2; v; v = v->next) {
		sb_puts(o, "\tvar ");
		if (v->type != TY_NONE)
			sb_printf(o, "%s ", ast_type_name(v->type));
		put_name(o, v->name);
		if (v->init) {
			sb_puts(o, " := ");
			put_expr(o, v->init);
		}
		sb_puts(o, ";\n");
	}
	for (const Node *r = rules->list3; r; r = r->next)
		put_rule(o, r, 1);
	sb_puts(o, "}\n");
}

static void put_control(StrBuf *o, const Node *c)
{
	switch (c->kind) {
	case ND_CTRL:
		sb_puts(o, c->flags ? "control " : "control rules ");
		put_block(o, c->body, 0);
		sb_putc(o, '\n');
		break;
	case ND_CTRL_IMPLIED:
		sb_puts(o, "implied\n");
		break;
	case ND_CTRL_TRIGGERED:
		sb_puts(o, "triggered by ");
		put_expr(o, c->cond);
		sb_putc(o, '\n');
		break;
	case ND_CTRL_PERIODIC:
		sb_puts(o, "periodic ");
		if (c->lhs) {
			sb_puts(o, "at ");
			put_expr(o, c->lhs);
			sb_putc(o, ' ');
		}
		sb_puts(o, "every ");
		put_expr(o, c->rhs);
		sb_putc(o, '\n');
		break;
	case ND_CTRL_MULTIPLIED:
		sb_puts(o, "multiplied ");
		put_expr(o, c->lhs);
		sb_puts(o, " times\n");
		break;
	default:
		break;
	}
}

static void put_general(StrBuf *o, const Node *g)
{
	switch (g->kind) {
	case ND_SUBST:
	case ND_DELAY:
		put_loop_form(o, g);
		break;
	case ND_MULTIRATE:
		sb_puts(o, "multiply rate ");
		put_expr(o, g->lhs);
		sb_puts(o, " times");
		if (g->flags)
			sb_printf(o, " with interpolation of order %d", g->op);
		else if (g->op >= 0) {
			static const char *const words[] = {"no", "first order", "second order",
							    "third order", "fourth order"};
			sb_printf(o, " with %s interpolation", words[g->op]);
		}
		break;
	case ND_DERIV:
		sb_puts(o, g->op == DERIV_WITH ? "with" : "extract");
		if (g->flags & DERIV_DIRECTIONAL)
			sb_puts(o, " directionalderivative");
		if (g->flags & DERIV_TIME)
			sb_puts(o, " timederivative");
		break;
	default:
		break;
	}
	sb_putc(o, '\n');
}

void ast_print_adaptation(StrBuf *o, const Node *sa)
{
	sb_printf(o, "semantic adaptation %s", kind_words(sa->flags));
	put_name(o, sa->name);
	if (sa->flags & KIND_WITHOUT_MASTER)
		sb_puts(o, " without master");
	sb_puts(o, "\nat ");
	put_string(o, sa->str);
	if (sa->ival)
		sb_printf(o, " fmi %lld", sa->ival);
	sb_puts(o, "\n");
	for (const Node *in = sa->a_inners; in; in = in->next) {
		sb_putc(o, '\n');
		if (in->kind == ND_INNER_REF) {
			sb_puts(o, "\tfor fmu ");
			put_name(o, in->name);
			sb_putc(o, '\n');
			continue;
		}
		sb_printf(o, "\tfor %sinner fmu %s", in->flags & KIND_ISOLATED ? "isolated " : "",
			  kind_words(in->flags));
		put_name(o, in->tname);
		sb_putc(o, ' ');
		put_name(o, in->name);
		sb_putc(o, '\n');
		if (in->str) {
			sb_puts(o, "\t\tat ");
			put_string(o, in->str);
			sb_putc(o, '\n');
		}
		if (in->list1)
			put_ports(o, "with input ports", in->list1, 2);
		if (in->list2)
			put_ports(o, "with output ports", in->list2, 2);
		for (const Node *b = in->list3; b; b = b->next) {
			sb_puts(o, b == in->list3 ? "\t\twith param " : ",\n\t\t\t");
			if (b->type != TY_NONE)
				sb_printf(o, "%s ", ast_type_name(b->type));
			put_name(o, b->name);
			sb_puts(o, " := ");
			put_expr(o, b->init);
		}
		if (in->list3)
			sb_putc(o, '\n');
		if (in->body && in->body->kind == ND_MODEL_EXCHANGE)
			put_model_exchange(o, in->body);
	}
	if (sa->a_couplings) {
		sb_puts(o, "\n\tcoupled as ");
		for (const Node *c = sa->a_couplings; c; c = c->next) {
			put_expr(o, c->lhs);
			sb_puts(o, " -> ");
			put_expr(o, c->rhs);
			put_transform(o, c);
			if (c->next)
				sb_puts(o, ",\n\t\t");
		}
		sb_putc(o, '\n');
	}
	if (sa->a_inports || sa->a_outports)
		sb_putc(o, '\n');
	if (sa->a_inports)
		put_ports(o, "input ports", sa->a_inports, 0);
	if (sa->a_outports)
		put_ports(o, "output ports", sa->a_outports, 0);
	if (sa->a_params) {
		sb_putc(o, '\n');
		put_decls(o, "param ", sa->a_params);
	}
	if (sa->a_general) {
		sb_putc(o, '\n');
		for (const Node *g = sa->a_general; g; g = g->next)
			put_general(o, g);
	}
	if (sa->a_ctrl) {
		sb_putc(o, '\n');
		put_decls(o, "control var ", sa->a_ctrl_vars);
		put_control(o, sa->a_ctrl);
	}
	/* Storage vars without a rules block (as after AddInVars) get an empty block, which
	 * means the same and keeps the text readable. */
	if (sa->a_in_rules || sa->a_in_vars) {
		sb_putc(o, '\n');
		put_decls(o, "in var ", sa->a_in_vars);
		put_rules(o, "in rules", sa->a_in_rules);
	}
	if (sa->a_out_rules || sa->a_out_vars) {
		sb_putc(o, '\n');
		put_decls(o, "out var ", sa->a_out_vars);
		put_rules(o, "out rules", sa->a_out_rules);
	}
}

void ast_print_file(StrBuf *o, const Node *file)
{
	bool any = false;
	for (const Node *i = file->list1; i; i = i->next) {
		sb_puts(o, "import ");
		put_name(o, i->name);
		sb_putc(o, '\n');
		any = true;
	}
	if (file->name) {
		sb_puts(o, "module ");
		put_name(o, file->name);
		sb_putc(o, '\n');
		any = true;
	}
	NodeKind prev = ND_FILE;
	for (const Node *e = file->list2; e; e = e->next) {
		if (any && !(e->kind == ND_CONNECTION && prev == ND_CONNECTION))
			sb_putc(o, '\n');
		any = true;
		prev = e->kind;
		switch (e->kind) {
		case ND_ADAPTATION:
			ast_print_adaptation(o, e);
			break;
		case ND_FMU_DECL:
			sb_puts(o, "fmu ");
			put_name(o, e->tname);
			sb_putc(o, ' ');
			put_name(o, e->name);
			sb_puts(o, " at ");
			put_string(o, e->str);
			sb_putc(o, '\n');
			if (e->list3) {
				sb_puts(o, "\tcomposed of ");
				put_args(o, e->list3);
				sb_putc(o, '\n');
			}
			if (e->list1)
				put_ports(o, "input ports", e->list1, 1);
			if (e->list2)
				put_ports(o, "output ports", e->list2, 1);
			break;
		case ND_CONNECTION:
			put_expr(o, e->lhs);
			sb_puts(o, " -> ");
			put_expr(o, e->rhs);
			sb_putc(o, '\n');
			break;
		default:
			break;
		}
	}
}
