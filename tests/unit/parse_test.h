/* parse_test.h — what the parser's tests (test_parse*.c) share: a text parsed with its
 * messages in memory, the round trip that every accepted text must survive (printed,
 * parsed again, the same print and the same tree), and expressions shown as compact
 * S-expressions, `(+ a (* b c))`, which show the shape better than field asserts. */
#ifndef PARSE_TEST_H
#define PARSE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"

#include "ast.h"
#include "diag.h"
#include "parse.h"
#include "util.h"

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct Parsed {
	Arena *arena;
	Node *root;    /* NULL when the text did not parse */
	char *text;    /* the source, kept for the quoted lines */
	char *diag;    /* everything reported */
	size_t diaglen;
	char *printed; /* the tree printed back (parse_ok only) */
} Parsed;

static inline Parsed *parse_buf(const char *text, size_t len)
{
	Parsed *p = calloc(1, sizeof *p);
	p->text = malloc(len + 1);
	memcpy(p->text, text, len);
	p->text[len] = '\0';
	FILE *f = open_memstream(&p->diag, &p->diaglen);
	DiagSink *d = diag_new(f);
	diag_add_source(d, "t.sa", p->text, len);
	p->arena = arena_new();
	p->root = parse_source(p->arena, d, "t.sa", p->text, len);
	diag_free(d);
	fclose(f);
	return p;
}

static inline Parsed *parse_text(const char *text)
{
	return parse_buf(text, strlen(text));
}

static inline void parsed_free(Parsed *p)
{
	if (!p)
		return;
	arena_free(p->arena);
	free(p->text);
	free(p->diag);
	free(p->printed);
	free(p);
}

static inline char *print_tree(const Node *root)
{
	StrBuf sb;
	sb_init(&sb);
	ast_print_file(&sb, root);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

static inline int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two trees are the same when everything but locations agrees. */
static inline void assert_same_tree(const Node *a, const Node *b, const char *path);

static inline void assert_same_list(const Node *a, const Node *b, const char *path,
				    const char *field)
{
	char sub[512];
	int i = 0;
	for (; a && b; a = a->next, b = b->next, i++) {
		snprintf(sub, sizeof sub, "%s.%s[%d]", path, field, i);
		assert_same_tree(a, b, sub);
	}
	if (a || b)
		fail_msg("%s.%s: lists of different lengths", path, field);
}

static inline void assert_same_tree(const Node *a, const Node *b, const char *path)
{
	if (!a || !b) {
		if (a != b)
			fail_msg("%s: one tree has a node the other lacks", path);
		return;
	}
	if (a->kind != b->kind || a->op != b->op || a->flags != b->flags ||
	    a->type != b->type || a->ival != b->ival || a->bind_dir != b->bind_dir ||
	    a->mult_lo != b->mult_lo || a->mult_hi != b->mult_hi ||
	    memcmp(&a->rval, &b->rval, sizeof a->rval) != 0 || !same_str(a->name, b->name) ||
	    !same_str(a->owner, b->owner) || !same_str(a->tname, b->tname) ||
	    !same_str(a->str, b->str))
		fail_msg("%s: %s node differs from %s node (name %s/%s, op %d/%d)", path,
			 ast_kind_name(a->kind), ast_kind_name(b->kind), a->name ? a->name : "-",
			 b->name ? b->name : "-", a->op, b->op);
	/* Argument lists hang off list1 and the do_step ones chain through next. */
	for (int i = 0; i < AST_NCHILDREN; i++) {
		const AstChild *f = &ast_children[i];
		if (f->is_list) {
			assert_same_list(ast_child(a, i), ast_child(b, i), path, f->name);
			continue;
		}
		char sub[512];
		snprintf(sub, sizeof sub, "%s.%s", path, f->name);
		assert_same_tree(ast_child(a, i), ast_child(b, i), sub);
	}
}

/* The print of the tree parses, with no message, to the same tree and the same print. */
static inline char *round_trip(const Node *root, int same_tree)
{
	char *printed = print_tree(root);
	Parsed *again = parse_text(printed);
	if (!again->root || again->diaglen)
		fail_msg("the printed form does not parse back:\n%s\n--- printed:\n%s", again->diag,
			 printed);
	char *printed2 = print_tree(again->root);
	assert_string_equal(printed2, printed);
	if (same_tree)
		assert_same_tree(root, again->root, "file");
	free(printed2);
	parsed_free(again);
	return printed;
}

/* Parses text that must give no message at all, and checks the round trip. */
static inline Parsed *parse_ok(const char *text)
{
	Parsed *p = parse_text(text);
	if (!p->root || p->diaglen)
		fail_msg("did not parse cleanly:\n%s\n--- source:\n%s", p->diag, text);
	p->printed = round_trip(p->root, 1);
	return p;
}

/* Parses text that must fail; returns the messages. */
static inline Parsed *parse_bad(const char *text)
{
	Parsed *p = parse_text(text);
	if (p->root)
		fail_msg("parsed, but should not have:\n%s", text);
	assert_true(p->diaglen > 0);
	return p;
}

static inline Node *nth(Node *list, int i)
{
	for (; list && i > 0; i--)
		list = list->next;
	if (!list)
		fail_msg("list too short for item %d", i);
	return list;
}

static inline Node *first_adaptation(Parsed *p)
{
	assert_non_null(p->root);
	for (Node *e = p->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			return e;
	fail_msg("no adaptation");
	return NULL;
}

/* The header every adaptation-level test starts from. */
#define HEAD "semantic adaptation s at \"s.fmu\"\n\tfor inner fmu W w\n"

/* ---- expressions as S-expressions ----------------------------------------------------- */

static inline void sx(StrBuf *o, const Node *e);

static inline void sx_list(StrBuf *o, const Node *l)
{
	for (; l; l = l->next) {
		sb_putc(o, ' ');
		sx(o, l);
	}
}

static inline void sx(StrBuf *o, const Node *e)
{
	switch (e->kind) {
	case ND_INT: sb_printf(o, "%lld", e->ival); break;
	case ND_REAL: sb_puts(o, e->str ? e->str : "?real"); break;
	case ND_STRING: sb_printf(o, "\"%s\"", e->str); break;
	case ND_BOOL: sb_puts(o, e->ival ? "true" : "false"); break;
	case ND_NAME: sb_puts(o, e->name); break;
	case ND_PORT_REF: sb_printf(o, "%s%s%s", e->owner ? e->owner : "", e->owner ? "." : "", e->name); break;
	case ND_KEYVAR: sb_printf(o, "#%s", ast_keyvar_name(e->op)); break;
	case ND_OTHERWISE: sb_puts(o, "otherwise"); break;
	case ND_SIGNAL:
		sb_puts(o, "signal");
		if (e->op == SIG_NOW)
			sb_puts(o, "[now]");
		else if (e->op == SIG_PREV)
			sb_puts(o, "[prev]");
		else if (e->op == SIG_INDEX)
			sb_printf(o, "[%lld]", e->ival);
		break;
	case ND_UNARY:
		sb_puts(o, e->op == OP_NEG ? "(neg " : "(not ");
		sx(o, e->lhs);
		sb_putc(o, ')');
		break;
	case ND_BINARY:
		sb_printf(o, "(%s ", ast_op_spelling(e->op));
		sx(o, e->lhs);
		sb_putc(o, ' ');
		sx(o, e->rhs);
		sb_putc(o, ')');
		break;
	case ND_BUILTIN:
		sb_printf(o, "(%s", ast_builtin_name(e->op));
		if (e->name)
			sb_printf(o, " @%s", e->name);
		sx_list(o, e->list1);
		sb_putc(o, ')');
		break;
	default:
		sb_printf(o, "<%s>", ast_kind_name(e->kind));
	}
}

static inline char *sx_str(const Node *e)
{
	StrBuf sb;
	sb_init(&sb);
	sx(&sb, e);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

/* src as the right-hand side of an out-rule assignment: its tree must read as tree, and
 * the printer must write it as printed ("" when that is src itself). */
static inline void assert_expr_at(const char *src, const char *tree, const char *printed,
			   const char *file, int line)
{
	char text[4096];
	snprintf(text, sizeof text, HEAD "out rules { true -> x := %s; }\n", src);
	Parsed *p = parse_text(text);
	if (!p->root || p->diaglen) {
		print_error("'%s' did not parse:\n%s", src, p->diag);
		_fail(file, line);
	}
	Node *e = first_adaptation(p)->a_out_rules->list3->then->list1->rhs;
	char *got = sx_str(e);
	if (strcmp(got, tree) != 0) {
		print_error("'%s'\n  parsed as %s\n  expected  %s\n", src, got, tree);
		_fail(file, line);
	}
	StrBuf sb;
	sb_init(&sb);
	ast_print_expr(&sb, e);
	const char *want = *printed ? printed : src;
	if (strcmp(sb_str(&sb), want) != 0) {
		print_error("'%s'\n  printed as %s\n  expected   %s\n", src, sb_str(&sb), want);
		_fail(file, line);
	}
	sb_free(&sb);
	free(got);
	free(round_trip(p->root, 1));
	parsed_free(p);
}
#define assert_expr(src, tree, printed) assert_expr_at((src), (tree), (printed), __FILE__, __LINE__)

#endif
