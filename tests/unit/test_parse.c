/* test_parse.c — the Lemon grammar (grammar/sa_grammar.y) with its glue (compiler/parse.c)
 * and the printer (ast_print_file in compiler/ast.c).
 *
 * Every construct of LANGUAGE.md sections 2 and 7 is parsed and the tree checked field by
 * field; every accepted text is then printed, the print parsed again, and both the second
 * print and the second tree must equal the first (parse_ok).  Expressions are compared as
 * compact S-expressions, `(+ a (* b c))`, which show the shape better than field asserts.
 * Syntax errors are checked by their exact text, including the quoted line; robustness
 * (deep nesting, a megabyte of random tokens) by returning without a crash. */
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

static Parsed *parse_buf(const char *text, size_t len)
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

static Parsed *parse_text(const char *text)
{
	return parse_buf(text, strlen(text));
}

static void parsed_free(Parsed *p)
{
	if (!p)
		return;
	arena_free(p->arena);
	free(p->text);
	free(p->diag);
	free(p->printed);
	free(p);
}

static char *print_tree(const Node *root)
{
	StrBuf sb;
	sb_init(&sb);
	ast_print_file(&sb, root);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two trees are the same when everything but locations agrees. */
static void assert_same_tree(const Node *a, const Node *b, const char *path);

static void assert_same_list(const Node *a, const Node *b, const char *path, const char *field)
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

static void assert_same_tree(const Node *a, const Node *b, const char *path)
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
static char *round_trip(const Node *root, int same_tree)
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
static Parsed *parse_ok(const char *text)
{
	Parsed *p = parse_text(text);
	if (!p->root || p->diaglen)
		fail_msg("did not parse cleanly:\n%s\n--- source:\n%s", p->diag, text);
	p->printed = round_trip(p->root, 1);
	return p;
}

/* Parses text that must fail; returns the messages. */
static Parsed *parse_bad(const char *text)
{
	Parsed *p = parse_text(text);
	if (p->root)
		fail_msg("parsed, but should not have:\n%s", text);
	assert_true(p->diaglen > 0);
	return p;
}

static Node *nth(Node *list, int i)
{
	for (; list && i > 0; i--)
		list = list->next;
	if (!list)
		fail_msg("list too short for item %d", i);
	return list;
}

static Node *first_adaptation(Parsed *p)
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

static void sx(StrBuf *o, const Node *e);

static void sx_list(StrBuf *o, const Node *l)
{
	for (; l; l = l->next) {
		sb_putc(o, ' ');
		sx(o, l);
	}
}

static void sx(StrBuf *o, const Node *e)
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

static char *sx_str(const Node *e)
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
static void assert_expr_at(const char *src, const char *tree, const char *printed,
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

/* ---- file structure --------------------------------------------------------------------- */

static void parse__empty_file__gives_an_empty_file_node(void **state)
{
	(void)state;
	Parsed *p = parse_ok("");
	assert_int_equal(p->root->kind, ND_FILE);
	assert_string_equal(p->root->str, "t.sa");
	assert_null(p->root->name);
	assert_null(p->root->list1);
	assert_null(p->root->list2);
	assert_string_equal(p->printed, "");
	parsed_free(p);

	p = parse_ok("  // only a comment\n/* and another */\n");
	assert_null(p->root->list2);
	parsed_free(p);
}

static void parse__imports_and_module__fill_the_file_node(void **state)
{
	(void)state;
	Parsed *p = parse_ok("import window_sa\nimport ^rate\nmodule loop_sa\n");
	assert_int_equal(ast_count(p->root->list1), 2);
	assert_int_equal(p->root->list1->kind, ND_IMPORT);
	assert_string_equal(p->root->list1->name, "window_sa");
	assert_string_equal(nth(p->root->list1, 1)->name, "rate");
	assert_string_equal(p->root->name, "loop_sa");
	assert_int_equal(p->root->list1->loc.line, 1);
	assert_int_equal(p->root->list1->loc.col, 1);
	assert_int_equal(p->root->list1->loc.len, 16);
	assert_string_equal(p->printed, "import window_sa\nimport ^rate\nmodule loop_sa\n");
	parsed_free(p);

	/* Either may be left out. */
	p = parse_ok("module m");
	assert_string_equal(p->root->name, "m");
	assert_null(p->root->list1);
	parsed_free(p);
	p = parse_ok("import a");
	assert_null(p->root->name);
	assert_int_equal(ast_count(p->root->list1), 1);
	parsed_free(p);
}

static void parse__fmu_declaration__type_instance_path_and_ports(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu Window window at \"fmus/window.fmu\"\n"
			     "\tinput ports Real displacement (rad), speed\n"
			     "\toutput ports Real height (cm)\n"
			     "fmu Obstacle obstacle at 'obstacle.fmu'\n");
	Node *f = p->root->list2;
	assert_int_equal(ast_count(f), 2);
	assert_int_equal(f->kind, ND_FMU_DECL);
	assert_string_equal(f->tname, "Window");
	assert_string_equal(f->name, "window");
	assert_string_equal(f->str, "fmus/window.fmu");
	assert_int_equal(f->loc.line, 1);
	assert_int_equal(f->loc.col, 12);
	assert_int_equal(ast_count(f->list1), 2);
	assert_int_equal(ast_count(f->list2), 1);
	assert_null(f->list3);
	assert_string_equal(f->list1->name, "displacement");
	assert_string_equal(f->list1->unit->str, "rad");
	assert_string_equal(nth(f->list1, 1)->name, "speed");
	assert_string_equal(f->list2->name, "height");
	Node *g = f->next;
	assert_string_equal(g->tname, "Obstacle");
	assert_string_equal(g->str, "obstacle.fmu");
	assert_null(g->list1);
	assert_null(g->list2);
	assert_string_equal(p->printed, "fmu Window window at \"fmus/window.fmu\"\n"
					"\tinput ports Real displacement (rad),\n"
					"\t\tspeed\n"
					"\toutput ports Real height (cm)\n"
					"\n"
					"fmu Obstacle obstacle at \"obstacle.fmu\"\n");
	parsed_free(p);
}

static void parse__fmu_composed_of__lists_the_parts(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu Plant plant at \"plant.fmu\" composed of motor, window, obstacle\n"
			     "\toutput ports Real tau\n");
	Node *f = p->root->list2;
	assert_int_equal(ast_count(f->list3), 3);
	assert_int_equal(f->list3->kind, ND_NAME);
	assert_string_equal(f->list3->name, "motor");
	assert_string_equal(nth(f->list3, 2)->name, "obstacle");
	assert_int_equal(ast_count(f->list2), 1);
	assert_string_equal(p->printed, "fmu Plant plant at \"plant.fmu\"\n"
					"\tcomposed of motor, window, obstacle\n"
					"\toutput ports Real tau\n");
	parsed_free(p);

	/* `of` is checked by spelling; anything else is an error at that word. */
	p = parse_bad("fmu Plant plant at \"plant.fmu\" composed off motor\n");
	assert_string_equal(p->diag, "t.sa:1:41: error: expected 'of' after 'composed'\n"
				     "     1 | fmu Plant plant at \"plant.fmu\" composed off motor\n"
				     "       |                                         ^~~\n");
	parsed_free(p);
}

static void parse__top_level_connections__with_and_without_owner(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu A a at \"a.fmu\"\n"
			     "a.y -> b.u\n"
			     "b.y->a.u\n"
			     "source -> a.v\n");
	Node *c = p->root->list2->next;
	assert_int_equal(ast_count(c), 3);
	assert_int_equal(c->kind, ND_CONNECTION);
	assert_int_equal(c->lhs->kind, ND_PORT_REF);
	assert_string_equal(c->lhs->owner, "a");
	assert_string_equal(c->lhs->name, "y");
	assert_string_equal(c->rhs->owner, "b");
	assert_string_equal(c->rhs->name, "u");
	assert_int_equal(c->loc.line, 2);
	assert_int_equal(c->loc.len, 10);
	Node *bare = nth(c, 2);
	assert_null(bare->lhs->owner);
	assert_string_equal(bare->lhs->name, "source");
	/* Consecutive connections print without a blank line between them. */
	assert_string_equal(p->printed, "fmu A a at \"a.fmu\"\n"
					"\n"
					"a.y -> b.u\n"
					"b.y -> a.u\n"
					"source -> a.v\n");
	parsed_free(p);
}

static void parse__several_elements__keep_their_order(void **state)
{
	(void)state;
	Parsed *p = parse_ok("module scenario\n"
			     "fmu A a at \"a.fmu\"\n"
			     HEAD
			     "a.y -> s.u\n"
			     "semantic adaptation t2 at \"t2.fmu\" for fmu a\n");
	Node *e = p->root->list2;
	assert_int_equal(ast_count(e), 4);
	assert_int_equal(e->kind, ND_FMU_DECL);
	assert_int_equal(nth(e, 1)->kind, ND_ADAPTATION);
	assert_int_equal(nth(e, 2)->kind, ND_CONNECTION);
	assert_int_equal(nth(e, 3)->kind, ND_ADAPTATION);
	assert_string_equal(nth(e, 3)->name, "t2");
	parsed_free(p);
}

/* ---- adaptation header and inner FMUs --------------------------------------------------- */

static void parse__adaptation_header__every_kind_combination(void **state)
{
	(void)state;
	static const struct {
		const char *word;
		int flag;
	} rd[] = {{"", 0}, {"reactive ", KIND_REACTIVE}, {"delayed ", KIND_DELAYED}},
	  mm[] = {{"", 0}, {"moore ", KIND_MOORE}, {"mealy ", KIND_MEALY}},
	  wm[] = {{"", 0}, {" without master", KIND_WITHOUT_MASTER}};
	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < 3; j++) {
			for (size_t k = 0; k < 2; k++) {
				char text[256];
				snprintf(text, sizeof text,
					 "semantic adaptation %s%sname_sa%s\nat \"./name.fmu\"\n\n"
					 "\tfor inner fmu W w\n",
					 rd[i].word, mm[j].word, wm[k].word);
				Parsed *p = parse_ok(text);
				Node *sa = first_adaptation(p);
				assert_int_equal(sa->flags, rd[i].flag | mm[j].flag | wm[k].flag);
				assert_string_equal(sa->name, "name_sa");
				assert_null(sa->tname);
				assert_string_equal(sa->str, "./name.fmu");
				/* The canonical layout is the one written here. */
				assert_string_equal(p->printed, text);
				parsed_free(p);
			}
		}
	}
}

static void parse__adaptation_header__fields_and_location(void **state)
{
	(void)state;
	Parsed *p = parse_ok("semantic adaptation reactive mealy window_sa\nat \"window_sa.fmu\"\n"
			     "\tfor inner fmu Window window\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(sa->kind, ND_ADAPTATION);
	assert_int_equal(sa->loc.line, 1);
	assert_int_equal(sa->loc.col, 36);
	assert_int_equal(sa->loc.len, 9);
	assert_int_equal(ast_count(sa->a_inners), 1);
	assert_null(sa->a_couplings);
	assert_null(sa->a_inports);
	assert_null(sa->a_outports);
	assert_null(sa->a_params);
	assert_null(sa->a_general);
	assert_null(sa->a_ctrl);
	assert_null(sa->a_ctrl_vars);
	assert_null(sa->a_in_rules);
	assert_null(sa->a_out_rules);
	parsed_free(p);
}

static void parse__older_two_name_header__warns_and_keeps_the_instance(void **state)
{
	(void)state;
	Parsed *p = parse_text("semantic adaptation reactive mealy WindowSA windowSA\n"
			       "at \"./WindowSA.fmu\"\n"
			       "\tfor inner fmu Window window\n");
	assert_non_null(p->root);
	assert_string_equal(p->diag,
			    "t.sa:1:36: warning: adaptation header names a type and an instance; "
			    "the type name 'WindowSA' is ignored and 'windowSA' names the adaptation\n"
			    "     1 | semantic adaptation reactive mealy WindowSA windowSA\n"
			    "       |                                    ^~~~~~~~~~~~~~~~~\n");
	Node *sa = first_adaptation(p);
	assert_string_equal(sa->tname, "WindowSA");
	assert_string_equal(sa->name, "windowSA");
	assert_int_equal(sa->flags, KIND_REACTIVE | KIND_MEALY);
	assert_int_equal(sa->loc.col, 45);
	/* Printed in the current form: one name, and no warning when read again. */
	char *printed = round_trip(p->root, 0);
	assert_string_equal(printed, "semantic adaptation reactive mealy windowSA\n"
				     "at \"./WindowSA.fmu\"\n"
				     "\n"
				     "\tfor inner fmu Window window\n");
	free(printed);
	parsed_free(p);

	/* Also with no kind and with `without master`. */
	p = parse_text("semantic adaptation T i without master at \"x.fmu\" for fmu a\n");
	assert_non_null(p->root);
	assert_non_null(strstr(p->diag, "warning: adaptation header names a type and an instance"));
	sa = first_adaptation(p);
	assert_string_equal(sa->name, "i");
	assert_int_equal(sa->flags, KIND_WITHOUT_MASTER);
	parsed_free(p);
}

static void parse__inner_fmu__kinds_path_and_port_lists(void **state)
{
	(void)state;
	static const char *const kinds[] = {"", "reactive ", "delayed ", "moore ", "mealy ",
					    "reactive moore ", "reactive mealy ", "delayed moore ",
					    "delayed mealy "};
	static const int flags[] = {0, KIND_REACTIVE, KIND_DELAYED, KIND_MOORE, KIND_MEALY,
				    KIND_REACTIVE | KIND_MOORE, KIND_REACTIVE | KIND_MEALY,
				    KIND_DELAYED | KIND_MOORE, KIND_DELAYED | KIND_MEALY};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char text[256];
		snprintf(text, sizeof text,
			 "semantic adaptation s\nat \"s.fmu\"\n\n\tfor inner fmu %sWindow window\n",
			 kinds[i]);
		Parsed *p = parse_ok(text);
		Node *in = first_adaptation(p)->a_inners;
		assert_int_equal(in->kind, ND_INNER);
		assert_int_equal(in->flags, flags[i]);
		assert_string_equal(in->tname, "Window");
		assert_string_equal(in->name, "window");
		assert_null(in->str);
		assert_null(in->list1);
		assert_null(in->list2);
		assert_string_equal(p->printed, text);
		parsed_free(p);
	}

	Parsed *p = parse_ok("semantic adaptation s at \"s.fmu\"\n"
			     "\tfor inner fmu Window window at \"w.fmu\"\n"
			     "\t\twith input ports Real displacement (rad), speed (rad/s), force\n"
			     "\t\twith output ports height (cm)\n"
			     "\tfor inner fmu delayed Obstacle obstacle\n"
			     "\t\twith output ports Real reaction_force (N)\n"
			     "\t\twith input ports disp\n");
	Node *w = first_adaptation(p)->a_inners;
	assert_int_equal(ast_count(w), 2);
	assert_string_equal(w->str, "w.fmu");
	assert_non_null(w->init);
	assert_int_equal(w->init->kind, ND_STRING);
	assert_int_equal(w->init->loc.line, 2);
	assert_int_equal(ast_count(w->list1), 3);
	assert_int_equal(ast_count(w->list2), 1);
	assert_string_equal(nth(w->list1, 2)->name, "force");
	Node *o = w->next;
	assert_int_equal(o->flags, KIND_DELAYED);
	assert_null(o->str);
	/* Output ports written first still land in list2. */
	assert_int_equal(ast_count(o->list1), 1);
	assert_string_equal(o->list1->name, "disp");
	assert_string_equal(o->list2->name, "reaction_force");
	assert_string_equal(p->printed,
			    "semantic adaptation s\nat \"s.fmu\"\n\n"
			    "\tfor inner fmu Window window\n"
			    "\t\tat \"w.fmu\"\n"
			    "\t\twith input ports Real displacement (rad),\n"
			    "\t\t\tspeed (rad/s),\n"
			    "\t\t\tforce\n"
			    "\t\twith output ports height (cm)\n"
			    "\n"
			    "\tfor inner fmu delayed Obstacle obstacle\n"
			    "\t\twith input ports disp\n"
			    "\t\twith output ports Real reaction_force (N)\n");
	parsed_free(p);
}

static void parse__inner_fmu__second_port_clause_of_a_kind_is_an_error(void **state)
{
	(void)state;
	Parsed *p = parse_bad(HEAD "\t\twith input ports a\n\t\twith input ports b\n");
	assert_string_equal(p->diag, "t.sa:4:8: error: inner fmu 'w' already has input ports\n"
				     "     4 | \t\twith input ports b\n"
				     "       | \t\t     ^~~~~\n");
	parsed_free(p);
}

static void parse__for_fmu__refers_to_fmus_declared_elsewhere(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu A a at \"a.fmu\"\nfmu B b at \"b.fmu\"\n"
			     "semantic adaptation s at \"s.fmu\"\n"
			     "\tfor fmu a, b\n"
			     "\tfor inner fmu C c\n"
			     "\tfor fmu d\n");
	Node *in = first_adaptation(p)->a_inners;
	assert_int_equal(ast_count(in), 4);
	assert_int_equal(in->kind, ND_INNER_REF);
	assert_string_equal(in->name, "a");
	assert_int_equal(nth(in, 1)->kind, ND_INNER_REF);
	assert_string_equal(nth(in, 1)->name, "b");
	assert_int_equal(nth(in, 2)->kind, ND_INNER);
	assert_int_equal(nth(in, 3)->kind, ND_INNER_REF);
	assert_int_equal(nth(in, 1)->loc.col, 13);
	/* One `for fmu` a name in the print. */
	assert_non_null(strstr(p->printed, "\tfor fmu a\n\n\tfor fmu b\n\n\tfor inner fmu C c\n"));
	parsed_free(p);
}

static void parse__coupled_as__gives_the_connection_list(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "\tfor inner fmu O o\n"
			     "\tcoupled as w.y -> o.u, o.y -> w.u,\n\t\tw.z -> o.v\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_couplings), 3);
	Node *c = sa->a_couplings;
	assert_int_equal(c->kind, ND_CONNECTION);
	assert_string_equal(c->lhs->owner, "w");
	assert_string_equal(c->rhs->owner, "o");
	assert_string_equal(nth(c, 2)->lhs->name, "z");
	assert_non_null(strstr(p->printed, "\tcoupled as w.y -> o.u,\n\t\to.y -> w.u,\n\t\tw.z -> o.v\n"));
	parsed_free(p);
}

static void parse__older_with_couplings__become_the_adaptation_couplings(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "\t\twith input ports u\n"
			     "\tfor inner fmu O o\n"
			     "\t\twith output ports y\n"
			     "\twith o.y -> w.u\n"
			     "\twith w.y -> o.u\n"
			     "output ports r <- o.y\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_inners), 2);
	assert_int_equal(ast_count(sa->a_inners->list1), 1);
	assert_int_equal(ast_count(sa->a_inners->next->list2), 1);
	assert_int_equal(ast_count(sa->a_couplings), 2);
	assert_string_equal(sa->a_couplings->lhs->owner, "o");
	assert_string_equal(sa->a_couplings->next->lhs->owner, "w");
	assert_null(sa->a_general);
	assert_int_equal(ast_count(sa->a_outports), 1);
	/* Printed as `coupled as`. */
	assert_non_null(strstr(p->printed, "\tcoupled as o.y -> w.u,\n\t\tw.y -> o.u\n"));
	parsed_free(p);

	/* Mixed with `coupled as`, every coupling is kept. */
	p = parse_ok(HEAD "\twith w.y -> w.u\n\tcoupled as w.z -> w.v\n");
	assert_int_equal(ast_count(first_adaptation(p)->a_couplings), 2);
	parsed_free(p);
}

/* ---- ports ------------------------------------------------------------------------------ */

static void parse__ports__every_part_in_order(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD
			     "input ports Real a \"a.fmi[1]\" := 1.5 [3] (m/s) -> w.a,\n"
			     "\tInteger b := -2,\n"
			     "\tBool c := true,\n"
			     "\tString d := 'x',\n"
			     "\te_ := -0.25 (N),\n"
			     "\tf := [1, -2, 3.5] [1..3],\n"
			     "\tg [0..4] <- w.g,\n"
			     "\th_ -> other\n"
			     "output ports Real o (rad) <- w.o, plain, Bool flag := false\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_inports), 8);
	assert_int_equal(ast_count(sa->a_outports), 3);

	Node *a = sa->a_inports;
	assert_int_equal(a->kind, ND_PORT);
	assert_int_equal(a->type, TY_REAL);
	assert_string_equal(a->name, "a");
	assert_string_equal(a->str, "a.fmi[1]");
	assert_int_equal(a->init->kind, ND_REAL);
	assert_true(a->init->rval == 1.5);
	assert_int_equal(a->mult_lo, 1);
	assert_int_equal(a->mult_hi, 3);
	assert_int_equal(a->unit->kind, ND_UNIT);
	assert_string_equal(a->unit->str, "m/s");
	assert_int_equal(a->bind_dir, BIND_TO);
	assert_int_equal(a->bind->kind, ND_PORT_REF);
	assert_string_equal(a->bind->owner, "w");
	assert_string_equal(a->bind->name, "a");

	Node *b = nth(sa->a_inports, 1);
	assert_int_equal(b->type, TY_INTEGER);
	assert_int_equal(b->init->kind, ND_INT);
	assert_int_equal(b->init->ival, -2);
	assert_null(b->str);
	assert_null(b->unit);
	assert_int_equal(b->bind_dir, BIND_NONE);
	assert_null(b->bind);
	assert_int_equal(b->mult_lo, -1);
	assert_int_equal(b->mult_hi, -1);

	Node *c = nth(sa->a_inports, 2);
	assert_int_equal(c->type, TY_BOOL);
	assert_int_equal(c->init->kind, ND_BOOL);
	assert_int_equal(c->init->ival, 1);
	Node *d = nth(sa->a_inports, 3);
	assert_int_equal(d->type, TY_STRING);
	assert_int_equal(d->init->kind, ND_STRING);
	assert_string_equal(d->init->str, "x");
	Node *e = nth(sa->a_inports, 4);
	assert_int_equal(e->type, TY_NONE);
	assert_true(e->init->rval == -0.25);
	assert_string_equal(e->init->str, "-0.25");
	Node *f = nth(sa->a_inports, 5);
	assert_int_equal(f->init->kind, ND_ARRAY);
	assert_int_equal(ast_count(f->init->list1), 3);
	assert_int_equal(f->init->list1->ival, 1);
	assert_int_equal(nth(f->init->list1, 1)->ival, -2);
	assert_int_equal(nth(f->init->list1, 2)->kind, ND_REAL);
	assert_int_equal(f->mult_lo, 1);
	assert_int_equal(f->mult_hi, 3);
	Node *g = nth(sa->a_inports, 6);
	assert_int_equal(g->mult_lo, 0);
	assert_int_equal(g->mult_hi, 4);
	assert_int_equal(g->bind_dir, BIND_FROM);
	Node *h = nth(sa->a_inports, 7);
	assert_int_equal(h->bind_dir, BIND_TO);
	assert_null(h->bind->owner);
	assert_string_equal(h->bind->name, "other");

	Node *o = sa->a_outports;
	assert_int_equal(o->bind_dir, BIND_FROM);
	assert_string_equal(o->bind->owner, "w");
	assert_string_equal(nth(sa->a_outports, 1)->name, "plain");
	assert_int_equal(nth(sa->a_outports, 1)->type, TY_NONE);
	assert_int_equal(nth(sa->a_outports, 2)->init->ival, 0);

	/* `[1..3]` is `[3]`: the print uses the short form. */
	assert_string_equal(p->printed,
			    "semantic adaptation s\nat \"s.fmu\"\n\n\tfor inner fmu W w\n\n"
			    "input ports Real a \"a.fmi[1]\" := 1.5 [3] (m/s) -> w.a,\n"
			    "\tInteger b := -2,\n"
			    "\tBool c := true,\n"
			    "\tString d := \"x\",\n"
			    "\te_ := -0.25 (N),\n"
			    "\tf := [1, -2, 3.5] [3],\n"
			    "\tg [0..4] <- w.g,\n"
			    "\th_ -> other\n"
			    "output ports Real o (rad) <- w.o,\n"
			    "\tplain,\n"
			    "\tBool flag := false\n");
	parsed_free(p);
}

static void parse__port_units__are_kept_without_blanks(void **state)
{
	(void)state;
	static const struct {
		const char *src, *str, *printed;
	} units[] = {
		{"rad/s", "rad/s", ""},
		{"N.m", "N.m", ""},
		{"N.mm", "N.mm", ""},
		{"m/s^2", "m/s^2", ""},
		{"s^-1", "s^-1", ""},
		{"1/s", "1/s", ""},
		{"kg.m^2/s^2", "kg.m^2/s^2", ""},
		{" m / s ", "m/s", "m/s"},
		{"kg . m", "kg.m", "kg.m"},
		{"m ^ -2", "m^-2", "m^-2"},
		{"degC", "degC", ""},
		{"cm", "cm", ""},
		{"1", "1", ""},
		/* Unit symbols that are reserved words: hour, tonne, henry, minute. */
		{"h", "h", ""},
		{"t", "t", ""},
		{"H", "H", ""},
		{"min", "min", ""},
		{"km/h", "km/h", ""},
		{"t.m/min^2", "t.m/min^2", ""},
		/* Any other reserved word needs the escape, and keeps it in the print. */
		{"^in", "in", "^in"},
		{"^rate/s", "rate/s", "^rate/s"},
		{"rad/^e", "rad/e", "rad/^e"},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, HEAD "input ports Real x (%s)\n", units[i].src);
		Parsed *p = parse_ok(text);
		Node *port = first_adaptation(p)->a_inports;
		assert_non_null(port->unit);
		assert_string_equal(port->unit->str, units[i].str);
		char want[128];
		snprintf(want, sizeof want, "input ports Real x (%s)\n",
			 *units[i].printed ? units[i].printed : units[i].src);
		if (!strstr(p->printed, want))
			fail_msg("unit '%s' printed as\n%s", units[i].src, p->printed);
		parsed_free(p);
	}

	/* The location covers the text between the parentheses. */
	Parsed *p = parse_ok(HEAD "input ports speed (rad/s)\n");
	Node *u = first_adaptation(p)->a_inports->unit;
	assert_int_equal(u->loc.line, 3);
	assert_int_equal(u->loc.col, 20);
	assert_int_equal(u->loc.len, 5);
	parsed_free(p);

	/* Any other reserved word is rejected.  (No note suggests the escape for the
	 * structural words, module .. otherwise: where one of them stands, a missing name
	 * is the likelier mistake.) */
	p = parse_bad(HEAD "input ports x (in)\n");
	assert_string_equal(p->diag,
			    "t.sa:3:16: error: syntax error: unexpected 'in'; expected identifier, "
			    "integer, 'H', 'h', 't' or 'min'\n"
			    "     3 | input ports x (in)\n"
			    "       |                ^~\n");
	parsed_free(p);
	p = parse_bad(HEAD "input ports x (rate)\n");
	assert_non_null(strstr(p->diag, "t.sa:3:16: note: 'rate' is a reserved word; write '^rate' "
					"to use it as a name\n"));
	parsed_free(p);
}

/* ---- params and variables --------------------------------------------------------------- */

static void parse__params__comma_lists_with_optional_types(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "param MAXITER := 10, Real REL_TOL := 1e-05, ABS := -1;\n"
			     "param Integer N := 2 * 3, Bool ON := true, String NAME := \"n\";\n");
	Node *pa = first_adaptation(p)->a_params;
	assert_int_equal(ast_count(pa), 6);
	for (Node *v = pa; v; v = v->next) {
		assert_int_equal(v->kind, ND_VARDECL);
		assert_int_equal(v->op, DECL_PARAM);
		assert_non_null(v->init);
	}
	assert_string_equal(pa->name, "MAXITER");
	assert_int_equal(pa->type, TY_NONE);
	assert_int_equal(pa->init->ival, 10);
	assert_int_equal(nth(pa, 1)->type, TY_REAL);
	assert_string_equal(nth(pa, 1)->init->str, "1e-05");
	char *neg = sx_str(nth(pa, 2)->init);
	assert_string_equal(neg, "(neg 1)");
	free(neg);
	assert_int_equal(nth(pa, 3)->type, TY_INTEGER);
	assert_int_equal(nth(pa, 3)->init->kind, ND_BINARY);
	assert_int_equal(nth(pa, 4)->type, TY_BOOL);
	assert_int_equal(nth(pa, 5)->type, TY_STRING);
	/* One declaration a line in the print. */
	assert_non_null(strstr(p->printed, "\nparam MAXITER := 10;\n"
					   "param Real REL_TOL := 1e-05;\n"
					   "param ABS := -1;\n"
					   "param Integer N := 2 * 3;\n"
					   "param Bool ON := true;\n"
					   "param String NAME := \"n\";\n"));
	parsed_free(p);
}

static void parse__storage_variables__control_in_and_out(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD
			     "control var c1 := 0.0, Integer c2;\n"
			     "control var Bool c3 := false;\n"
			     "control rules { return H; }\n"
			     "in var i1 := 1, i2;\n"
			     "in var Real i3 := 2.5;\n"
			     "in rules { }\n"
			     "out var o1 := i1 + 1;\n"
			     "out rules { }\n");
	Node *sa = first_adaptation(p);
	static const struct {
		const char *name;
		int type;
		int has_init;
	} cv[] = {{"c1", TY_NONE, 1}, {"c2", TY_INTEGER, 0}, {"c3", TY_BOOL, 1}},
	  iv[] = {{"i1", TY_NONE, 1}, {"i2", TY_NONE, 0}, {"i3", TY_REAL, 1}};
	assert_int_equal(ast_count(sa->a_ctrl_vars), 3);
	assert_int_equal(ast_count(sa->a_in_vars), 3);
	assert_int_equal(ast_count(sa->a_out_vars), 1);
	for (int i = 0; i < 3; i++) {
		Node *c = nth(sa->a_ctrl_vars, i), *v = nth(sa->a_in_vars, i);
		assert_int_equal(c->kind, ND_VARDECL);
		assert_int_equal(c->op, DECL_CONTROL);
		assert_string_equal(c->name, cv[i].name);
		assert_int_equal(c->type, cv[i].type);
		assert_int_equal(c->init != NULL, cv[i].has_init);
		assert_int_equal(v->op, DECL_IN);
		assert_string_equal(v->name, iv[i].name);
		assert_int_equal(v->type, iv[i].type);
		assert_int_equal(v->init != NULL, iv[i].has_init);
	}
	assert_int_equal(sa->a_out_vars->op, DECL_OUT);
	assert_int_equal(sa->a_in_rules->op, 'i');
	assert_int_equal(sa->a_out_rules->op, 'o');
	assert_null(sa->a_in_rules->list3);
	assert_non_null(strstr(p->printed, "\ncontrol var c1 := 0.0;\ncontrol var Integer c2;\n"
					   "control var Bool c3 := false;\ncontrol rules {\n"));
	assert_non_null(strstr(p->printed, "\nin var i1 := 1;\nin var i2;\nin var Real i3 := 2.5;\n"
					   "in rules {\n}\n"));
	assert_non_null(strstr(p->printed, "\nout var o1 := i1 + 1;\nout rules {\n}\n"));
	parsed_free(p);
}

/* ---- control rules and statements ------------------------------------------------------- */

static void parse__control_rules__every_statement(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "control rules {\n"
			     "\tvar a, Integer b := 2, Real c := 1.5;\n"
			     "\ta := 1;\n"
			     "\tw.u := a + 1;\n"
			     "\tdo_step(w, t, H);\n"
			     "\tsave_state(w);\n"
			     "\trollback(w);\n"
			     "\tdiscard(s.x);\n"
			     "\tif (a < 1) { break; }\n"
			     "\tfor (var i in 0 .. 10) { a := i; }\n"
			     "\tbreak;\n"
			     "\treturn H / 2;\n"
			     "}\n");
	Node *sa = first_adaptation(p);
	Node *ctrl = sa->a_ctrl;
	assert_int_equal(ctrl->kind, ND_CTRL);
	assert_int_equal(ctrl->flags, 0);
	assert_int_equal(ctrl->loc.line, 3);
	assert_int_equal(ctrl->body->kind, ND_BLOCK);
	Node *s = ctrl->body->list1;
	static const NodeKind kinds[] = {ND_VAR, ND_ASSIGN, ND_ASSIGN, ND_CALL_STMT,
					 ND_CALL_STMT, ND_CALL_STMT, ND_CALL_STMT, ND_IF,
					 ND_FOR, ND_BREAK, ND_RETURN};
	assert_int_equal(ast_count(s), 11);
	for (int i = 0; i < 11; i++)
		assert_int_equal(nth(s, i)->kind, kinds[i]);

	Node *var = s;
	assert_int_equal(ast_count(var->list1), 3);
	assert_string_equal(var->list1->name, "a");
	assert_int_equal(var->list1->type, TY_NONE);
	assert_null(var->list1->init);
	assert_int_equal(var->list1->op, DECL_LOCAL);
	assert_int_equal(nth(var->list1, 1)->type, TY_INTEGER);
	assert_int_equal(nth(var->list1, 1)->init->ival, 2);
	assert_int_equal(nth(var->list1, 2)->type, TY_REAL);

	Node *as1 = nth(s, 1), *as2 = nth(s, 2);
	assert_int_equal(as1->lhs->kind, ND_NAME);
	assert_string_equal(as1->lhs->name, "a");
	assert_int_equal(as2->lhs->kind, ND_PORT_REF);
	assert_string_equal(as2->lhs->owner, "w");
	assert_string_equal(as2->lhs->name, "u");
	char *rhs = sx_str(as2->rhs);
	assert_string_equal(rhs, "(+ a 1)");
	free(rhs);

	Node *step = nth(s, 3)->lhs;
	assert_int_equal(step->kind, ND_BUILTIN);
	assert_int_equal(step->op, BI_DO_STEP);
	assert_string_equal(step->name, "w");
	assert_int_equal(step->lhs->kind, ND_NAME);
	assert_string_equal(step->lhs->name, "w");
	assert_int_equal(ast_count(step->list1), 2);
	assert_int_equal(step->list1->kind, ND_KEYVAR);
	assert_int_equal(step->list1->op, KV_T);
	assert_int_equal(step->list1->next->op, KV_BIG_H);
	assert_int_equal(step->loc.len, 7);
	Node *save = nth(s, 4)->lhs, *back = nth(s, 5)->lhs, *disc = nth(s, 6)->lhs;
	assert_int_equal(save->op, BI_SAVE_STATE);
	assert_string_equal(save->name, "w");
	assert_null(save->list1);
	assert_int_equal(back->op, BI_ROLLBACK);
	assert_string_equal(back->name, "w");
	assert_int_equal(disc->op, BI_DISCARD);
	assert_null(disc->name);
	assert_int_equal(disc->list1->kind, ND_PORT_REF);
	assert_string_equal(disc->list1->owner, "s");

	Node *ifs = nth(s, 7);
	assert_int_equal(ifs->cond->op, OP_LT);
	assert_int_equal(ifs->then->kind, ND_BLOCK);
	assert_int_equal(ifs->then->list1->kind, ND_BREAK);
	assert_null(ifs->els);

	Node *loop = nth(s, 8);
	assert_string_equal(loop->name, "i");
	assert_int_equal(loop->lhs->ival, 0);
	assert_int_equal(loop->rhs->ival, 10);
	assert_int_equal(loop->then->kind, ND_BLOCK);
	assert_int_equal(ast_count(loop->then->list1), 1);
	assert_int_equal(loop->init->kind, ND_NAME);
	assert_string_equal(loop->init->name, "i");
	assert_int_equal(loop->init->loc.col, 11);

	char *ret = sx_str(nth(s, 10)->lhs);
	assert_string_equal(ret, "(/ #H 2)");
	free(ret);

	assert_non_null(strstr(p->printed, "control rules {\n"
					   "\tvar a, Integer b := 2, Real c := 1.5;\n"
					   "\ta := 1;\n"
					   "\tw.u := a + 1;\n"
					   "\tdo_step(w, t, H);\n"
					   "\tsave_state(w);\n"
					   "\trollback(w);\n"
					   "\tdiscard(s.x);\n"
					   "\tif (a < 1) {\n"
					   "\t\tbreak;\n"
					   "\t}\n"
					   "\tfor (var i in 0 .. 10) {\n"
					   "\t\ta := i;\n"
					   "\t}\n"
					   "\tbreak;\n"
					   "\treturn H / 2;\n"
					   "}\n"));
	parsed_free(p);
}

static void parse__if_else__chains_and_nesting(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "control rules {\n"
			     "\tif (a) { } else { a := 1; }\n"
			     "\tif (a) { a := 1; } else if (b) { a := 2; } else if (c) { } else { a := 3; }\n"
			     "\tif (a) { if (b) { for (var k in a .. b + 1) { if (c) { break; } } } }\n"
			     "\treturn H;\n"
			     "}\n");
	Node *s = first_adaptation(p)->a_ctrl->body->list1;
	Node *if1 = s;
	assert_int_equal(if1->els->kind, ND_BLOCK);
	assert_null(if1->then->list1);
	Node *if2 = s->next;
	assert_int_equal(if2->els->kind, ND_IF);
	assert_string_equal(if2->els->cond->name, "b");
	assert_int_equal(if2->els->els->kind, ND_IF);
	assert_string_equal(if2->els->els->cond->name, "c");
	assert_int_equal(if2->els->els->els->kind, ND_BLOCK);
	assert_int_equal(ast_count(if2->els->els->els->list1), 1);
	Node *if3 = s->next->next;
	Node *inner_for = if3->then->list1->then->list1;
	assert_int_equal(inner_for->kind, ND_FOR);
	char *to = sx_str(inner_for->rhs);
	assert_string_equal(to, "(+ b 1)");
	free(to);
	assert_int_equal(inner_for->then->list1->then->list1->kind, ND_BREAK);
	assert_non_null(strstr(p->printed, "\tif (a) { } else {\n\t\ta := 1;\n\t}\n"
					   "\tif (a) {\n\t\ta := 1;\n\t} else if (b) {\n\t\ta := 2;\n"
					   "\t} else if (c) { } else {\n\t\ta := 3;\n\t}\n"));
	parsed_free(p);
}

static void parse__control_block_form__is_marked(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "control var k := 1;\ncontrol {\n\tk := k + 1;\n\treturn H;\n}\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(sa->a_ctrl->kind, ND_CTRL);
	assert_int_equal(sa->a_ctrl->flags, 1);
	assert_int_equal(ast_count(sa->a_ctrl->body->list1), 2);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 1);
	assert_non_null(strstr(p->printed, "control var k := 1;\ncontrol {\n\tk := k + 1;\n"
					   "\treturn H;\n}\n"));
	parsed_free(p);

	/* Control rules must end with a return. */
	p = parse_bad(HEAD "control rules { var a := 1; }\n");
	assert_string_equal(p->diag, "t.sa:3:29: error: syntax error: unexpected '}'\n"
				     "     3 | control rules { var a := 1; }\n"
				     "       |                             ^\n");
	parsed_free(p);
}

static void parse__declarative_control__every_form(void **state)
{
	(void)state;
	static const struct {
		const char *src;
		NodeKind kind;
		const char *a, *b; /* the S-expressions of its operands, "" when absent */
		const char *printed;
	} forms[] = {
		{"implied", ND_CTRL_IMPLIED, "", "", ""},
		{"triggered by is_set(x) or e > 1", ND_CTRL_TRIGGERED, "(or (is_set x) (> #e 1))",
		 "", ""},
		{"periodic every 0.1", ND_CTRL_PERIODIC, "", "0.1", ""},
		{"periodic at 1 every H / 4", ND_CTRL_PERIODIC, "1", "(/ #H 4)", ""},
		{"multiplied N + 1 times", ND_CTRL_MULTIPLIED, "(+ N 1)", "", ""},
		{"multiplied 4 times", ND_CTRL_MULTIPLIED, "4", "", ""},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, HEAD "control var c := 0;\n%s\nin rules { }\n",
			 forms[i].src);
		Parsed *p = parse_ok(text);
		Node *sa = first_adaptation(p);
		Node *c = sa->a_ctrl;
		assert_int_equal(c->kind, forms[i].kind);
		assert_int_equal(ast_count(sa->a_ctrl_vars), 1);
		assert_non_null(sa->a_in_rules);
		const Node *a = c->kind == ND_CTRL_TRIGGERED ? c->cond : c->lhs;
		const Node *b = c->rhs;
		char *sa_ = a ? sx_str(a) : strdup(""), *sb_ = b ? sx_str(b) : strdup("");
		assert_string_equal(sa_, forms[i].a);
		assert_string_equal(sb_, forms[i].b);
		free(sa_);
		free(sb_);
		char want[256];
		snprintf(want, sizeof want, "\ncontrol var c := 0;\n%s\n", forms[i].src);
		if (!strstr(p->printed, want))
			fail_msg("'%s' printed as\n%s", forms[i].src, p->printed);
		parsed_free(p);
	}
}

/* ---- general rules (section 7) ---------------------------------------------------------- */

static void parse__successive_substitution__ports_and_tolerances(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "successive substitution starts at w.y with absolute tolerance "
			     "= 1e-5 and relative tolerance = 1e-6\n"
			     "successive substitution starts at w.y and w.z with relative "
			     "tolerance = TOL * 2\n"
			     "successive substitution starts at w.a, w.b with absolute tolerance = 1\n");
	Node *g = first_adaptation(p)->a_general;
	assert_int_equal(ast_count(g), 3);
	assert_int_equal(g->kind, ND_SUBST);
	assert_int_equal(ast_count(g->list1), 1);
	assert_string_equal(g->list1->owner, "w");
	assert_string_equal(g->list1->name, "y");
	assert_int_equal(ast_count(g->list2), 2);
	assert_int_equal(g->list2->kind, ND_SETTING);
	assert_int_equal(g->list2->op, SET_ABS_TOL);
	assert_string_equal(g->list2->lhs->str, "1e-5");
	assert_int_equal(g->list2->next->op, SET_REL_TOL);
	Node *g2 = g->next;
	assert_int_equal(ast_count(g2->list1), 2);
	assert_string_equal(g2->list1->next->name, "z");
	assert_int_equal(ast_count(g2->list2), 1);
	assert_int_equal(g2->list2->op, SET_REL_TOL);
	assert_int_equal(g2->list2->lhs->op, OP_MUL);
	/* The comma form is printed with `and`. */
	assert_non_null(strstr(p->printed,
			       "\nsuccessive substitution starts at w.y with absolute tolerance = 1e-5 "
			       "and relative tolerance = 1e-6\n"
			       "successive substitution starts at w.y and w.z with relative "
			       "tolerance = TOL * 2\n"
			       "successive substitution starts at w.a and w.b with absolute "
			       "tolerance = 1\n"));
	parsed_free(p);
}

static void parse__delay__one_or_two_ports(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "delay at w.y\ndelay at w.y and w.z\n");
	Node *g = first_adaptation(p)->a_general;
	assert_int_equal(g->kind, ND_DELAY);
	assert_int_equal(ast_count(g->list1), 1);
	assert_int_equal(g->next->kind, ND_DELAY);
	assert_int_equal(ast_count(g->next->list1), 2);
	assert_non_null(strstr(p->printed, "\ndelay at w.y\ndelay at w.y and w.z\n"));
	parsed_free(p);
}

static void parse__multiply_rate__each_interpolation_form(void **state)
{
	(void)state;
	static const struct {
		const char *src;
		int op, flags;
	} forms[] = {
		{"", -1, 0},
		{" with no interpolation", 0, 0},
		{" with first order interpolation", 1, 0},
		{" with second order interpolation", 2, 0},
		{" with third order interpolation", 3, 0},
		{" with fourth order interpolation", 4, 0},
		{" with interpolation of order 0", 0, 1},
		{" with interpolation of order 3", 3, 1},
		{" with interpolation of order 7", 7, 1},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, HEAD "multiply rate RATE * 2 times%s\n", forms[i].src);
		Parsed *p = parse_ok(text);
		Node *g = first_adaptation(p)->a_general;
		assert_int_equal(ast_count(g), 1);
		assert_int_equal(g->kind, ND_MULTIRATE);
		assert_int_equal(g->op, forms[i].op);
		assert_int_equal(g->flags, forms[i].flags);
		char *rate = sx_str(g->lhs);
		assert_string_equal(rate, "(* RATE 2)");
		free(rate);
		char want[256];
		snprintf(want, sizeof want, "\nmultiply rate RATE * 2 times%s\n", forms[i].src);
		if (!strstr(p->printed, want))
			fail_msg("printed as\n%s", p->printed);
		parsed_free(p);
	}

	/* On the line after, and after an inner FMU's ports: still one form. */
	Parsed *p = parse_ok(HEAD "\t\twith input ports u\n"
			     "multiply rate 10 times\n\twith second order interpolation\n"
			     "delay at w.y\n");
	Node *g = first_adaptation(p)->a_general;
	assert_int_equal(ast_count(g), 2);
	assert_int_equal(g->op, 2);
	assert_int_equal(g->next->kind, ND_DELAY);
	parsed_free(p);
}

static void parse__interpolation_without_multiply__is_an_error(void **state)
{
	(void)state;
	Parsed *p = parse_bad(HEAD "with first order interpolation\n");
	assert_string_equal(p->diag, "t.sa:3:1: error: interpolation given without a 'multiply "
				     "rate N times' before it\n"
				     "     3 | with first order interpolation\n"
				     "       | ^~~~\n");
	parsed_free(p);

	p = parse_bad(HEAD "multiply rate 2 times with no interpolation with first order "
			   "interpolation\n");
	assert_non_null(strstr(p->diag, "t.sa:3:45: error: interpolation given without a "
					"'multiply rate N times' before it\n"));
	parsed_free(p);

	p = parse_bad(HEAD "multiply rate 2 times with interpolation off order 2\n");
	assert_non_null(strstr(p->diag, "t.sa:3:42: error: expected 'of' in 'interpolation of "
					"order'\n"));
	parsed_free(p);
}

static void parse__derivative_rules__with_and_extract(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "with directionalderivative\n"
			     "with timederivative\n"
			     "extract directionalderivative timederivative\n"
			     "extract timederivative\n"
			     "with timederivative directionalderivative\n");
	Node *g = first_adaptation(p)->a_general;
	assert_int_equal(ast_count(g), 5);
	static const int ops[] = {DERIV_WITH, DERIV_WITH, DERIV_EXTRACT, DERIV_EXTRACT, DERIV_WITH};
	static const int flags[] = {DERIV_DIRECTIONAL, DERIV_TIME, DERIV_DIRECTIONAL | DERIV_TIME,
				    DERIV_TIME, DERIV_DIRECTIONAL | DERIV_TIME};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(nth(g, i)->kind, ND_DERIV);
		assert_int_equal(nth(g, i)->op, ops[i]);
		assert_int_equal(nth(g, i)->flags, flags[i]);
	}
	/* The print keeps one order: directional first. */
	assert_non_null(strstr(p->printed, "\nwith directionalderivative\nwith timederivative\n"
					   "extract directionalderivative timederivative\n"
					   "extract timederivative\n"
					   "with directionalderivative timederivative\n"));
	parsed_free(p);

	/* Written right after the inner FMU, it is the adaptation's. */
	p = parse_ok(HEAD "\t\twith output ports y\n\t\twith directionalderivative\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_inners->list2), 1);
	assert_int_equal(ast_count(sa->a_general), 1);
	assert_int_equal(sa->a_general->flags, DERIV_DIRECTIONAL);
	parsed_free(p);

	p = parse_bad(HEAD "with timederivative timederivative\n");
	assert_string_equal(p->diag, "t.sa:3:21: error: 'timederivative' given twice\n"
				     "     3 | with timederivative timederivative\n"
				     "       |                     ^~~~~~~~~~~~~~\n");
	parsed_free(p);
}

static void parse__general_rules__keep_their_order_with_params_before(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "param R := 4;\n"
			     "multiply rate R times\n"
			     "delay at w.y\n"
			     "extract timederivative\n"
			     "successive substitution starts at w.z with absolute tolerance = 1\n"
			     "control rules { return H; }\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_params), 1);
	Node *g = sa->a_general;
	assert_int_equal(ast_count(g), 4);
	assert_int_equal(g->kind, ND_MULTIRATE);
	assert_int_equal(nth(g, 1)->kind, ND_DELAY);
	assert_int_equal(nth(g, 2)->kind, ND_DERIV);
	assert_int_equal(nth(g, 3)->kind, ND_SUBST);
	assert_non_null(sa->a_ctrl);
	parsed_free(p);

	/* Port clauses out of place are refused there. */
	p = parse_bad(HEAD "param R := 4;\nwith input ports u\n");
	assert_string_equal(p->diag, "t.sa:4:6: error: port clauses must follow their 'for inner "
				     "fmu'\n"
				     "     4 | with input ports u\n"
				     "       |      ^~~~~\n");
	parsed_free(p);
}

/* ---- in and out rules ------------------------------------------------------------------- */

static void parse__rule_settings__crossing_and_output_functions(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD
			     "in rules with crossing absolute tolerance = 1e-3 and relative "
			     "tolerance = 1e-4 { }\n"
			     "out rules with crossing relative tolerance = RT, ZOH, no hold, zero "
			     "order hold, first order hold, FOH, { return signal; }, signal * 2 { }\n");
	Node *sa = first_adaptation(p);
	Node *in = sa->a_in_rules;
	assert_int_equal(in->kind, ND_RULES);
	assert_int_equal(ast_count(in->list1), 1);
	Node *cr = in->list1;
	assert_int_equal(cr->kind, ND_CROSSING);
	assert_int_equal(ast_count(cr->list1), 2);
	assert_int_equal(cr->list1->op, SET_ABS_TOL);
	assert_int_equal(cr->list1->next->op, SET_REL_TOL);

	Node *s = sa->a_out_rules->list1;
	assert_int_equal(ast_count(s), 8);
	assert_int_equal(s->kind, ND_CROSSING);
	assert_int_equal(ast_count(s->list1), 1);
	static const struct {
		int op, flags;
	} holds[] = {{HOLD_ZERO, 1}, {HOLD_NO, 0}, {HOLD_ZERO, 0}, {HOLD_FIRST, 0}, {HOLD_FIRST, 1}};
	for (int i = 0; i < 5; i++) {
		Node *h = nth(s, i + 1);
		assert_int_equal(h->kind, ND_HOLD);
		assert_int_equal(h->op, holds[i].op);
		assert_int_equal(h->flags, holds[i].flags);
	}
	Node *fn = nth(s, 6);
	assert_int_equal(fn->kind, ND_BLOCK);
	assert_int_equal(fn->list1->kind, ND_RETURN);
	assert_int_equal(fn->list1->lhs->kind, ND_SIGNAL);
	assert_int_equal(nth(s, 7)->kind, ND_BINARY);
	assert_non_null(strstr(p->printed,
			       "\nin rules with crossing absolute tolerance = 1e-3 and relative "
			       "tolerance = 1e-4 {\n}\n"));
	assert_non_null(strstr(p->printed,
			       "\nout rules with crossing relative tolerance = RT, ZOH, no hold, zero "
			       "order hold, first order hold, FOH, {\n\treturn signal;\n}, signal * 2 "
			       "{\n}\n"));
	parsed_free(p);
}

static void parse__rules_block_vars__come_before_the_rules(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "in rules {\n"
			     "\tvar Real k := 1.0, j;\n"
			     "\tvar m;\n"
			     "\ttrue -> k := 1;\n"
			     "}\n");
	Node *r = first_adaptation(p)->a_in_rules;
	assert_int_equal(ast_count(r->list2), 3);
	for (Node *v = r->list2; v; v = v->next) {
		assert_int_equal(v->kind, ND_VARDECL);
		assert_int_equal(v->op, DECL_RULES);
	}
	assert_int_equal(r->list2->type, TY_REAL);
	assert_string_equal(nth(r->list2, 2)->name, "m");
	assert_int_equal(ast_count(r->list3), 1);
	assert_non_null(strstr(p->printed, "in rules {\n\tvar Real k := 1.0;\n\tvar j;\n\tvar m;\n"
					   "\ttrue -> {\n\t\tk := 1;\n\t};\n}\n"));
	parsed_free(p);

	/* A block var after the first rule would be a statement where a rule goes. */
	p = parse_bad(HEAD "in rules {\n\ttrue -> k := 1;\n\tvar m;\n}\n");
	assert_non_null(strstr(p->diag, "t.sa:5:2: error: syntax error: unexpected 'var'"));
	parsed_free(p);
}

static void parse__data_rules__every_shape(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "in rules {\n"
			     "\tx >! 1 -> { k := 1; } --> { w.u := k; };\n"
			     "\tx <! 1 -> k := 2;\n"
			     "\tx > 2 -> k;\n"
			     "\t{ var q := 1; return q > 2; } -> { } --> { return 2; };\n"
			     "\tx < 0 absolute tolerance = 1 and relative tolerance = 2 -> { };\n"
			     "\totherwise -> { } --> w.u + 1;\n"
			     "\tk := 3;\n"
			     "\tw.u := 4 --> ZOH;\n"
			     "\t\"low\" -> { k := 0; } --> first order hold;\n"
			     "\ttrue -> { k := 1; k := 2; } --> { };\n"
			     "}\n");
	Node *r = first_adaptation(p)->a_in_rules->list3;
	assert_int_equal(ast_count(r), 10);
	for (Node *x = r; x; x = x->next)
		assert_int_equal(x->kind, ND_RULE);

	Node *r0 = r;
	assert_int_equal(r0->op, RULE_COND);
	assert_int_equal(r0->cond->op, OP_CROSS_UP);
	assert_null(r0->list1);
	assert_int_equal(r0->then->kind, ND_BLOCK);
	assert_int_equal(ast_count(r0->then->list1), 1);
	assert_null(r0->then->lhs);
	assert_int_equal(r0->els->kind, ND_BLOCK);
	assert_int_equal(r0->els->list1->lhs->kind, ND_PORT_REF);
	assert_int_equal(r0->loc.line, 4);
	assert_int_equal(r0->loc.col, 2);

	Node *r1 = nth(r, 1);
	assert_int_equal(r1->cond->op, OP_CROSS_DOWN);
	assert_int_equal(r1->then->list1->kind, ND_ASSIGN);
	assert_null(r1->els);

	/* An expression transition: kept in the block's lhs. */
	Node *r2 = nth(r, 2);
	assert_null(r2->then->list1);
	assert_int_equal(r2->then->lhs->kind, ND_NAME);

	Node *r3 = nth(r, 3);
	assert_int_equal(r3->cond->kind, ND_BLOCK);
	assert_int_equal(ast_count(r3->cond->list1), 2);
	assert_int_equal(nth(r3->cond->list1, 1)->kind, ND_RETURN);
	assert_null(r3->then->list1);
	assert_int_equal(r3->els->list1->kind, ND_RETURN);

	Node *r4 = nth(r, 4);
	assert_int_equal(ast_count(r4->list1), 2);
	assert_int_equal(r4->list1->op, SET_ABS_TOL);
	assert_int_equal(r4->list1->next->op, SET_REL_TOL);

	Node *r5 = nth(r, 5);
	assert_int_equal(r5->cond->kind, ND_OTHERWISE);
	char *out = sx_str(r5->els);
	assert_string_equal(out, "(+ w.u 1)");
	free(out);

	Node *r6 = nth(r, 6);
	assert_int_equal(r6->op, RULE_ASSIGN);
	assert_null(r6->cond);
	assert_int_equal(r6->then->kind, ND_BLOCK);
	assert_int_equal(r6->then->list1->kind, ND_ASSIGN);
	assert_null(r6->els);
	Node *r7 = nth(r, 7);
	assert_int_equal(r7->op, RULE_ASSIGN);
	assert_int_equal(r7->then->list1->lhs->kind, ND_PORT_REF);
	assert_int_equal(r7->els->kind, ND_HOLD);
	assert_int_equal(r7->els->op, HOLD_ZERO);
	assert_int_equal(r7->els->flags, 1);

	Node *r8 = nth(r, 8);
	assert_int_equal(r8->cond->kind, ND_STRING);
	assert_string_equal(r8->cond->str, "low");
	assert_int_equal(r8->els->op, HOLD_FIRST);
	assert_int_equal(r8->els->flags, 0);
	Node *r9 = nth(r, 9);
	assert_int_equal(ast_count(r9->then->list1), 2);
	assert_int_equal(r9->els->kind, ND_BLOCK);
	assert_null(r9->els->list1);

	assert_non_null(strstr(p->printed, "in rules {\n"
					   "\tx >! 1 -> {\n\t\tk := 1;\n\t} --> {\n\t\tw.u := k;\n\t};\n"
					   "\tx <! 1 -> {\n\t\tk := 2;\n\t};\n"
					   "\tx > 2 -> k;\n"
					   "\t{\n\t\tvar q := 1;\n\t\treturn q > 2;\n\t} -> { } --> {\n"
					   "\t\treturn 2;\n\t};\n"
					   "\tx < 0 absolute tolerance = 1 and relative tolerance = 2 -> { };\n"
					   "\totherwise -> { } --> w.u + 1;\n"
					   "\tk := 3;\n"
					   "\tw.u := 4 --> ZOH;\n"
					   "\t\"low\" -> {\n\t\tk := 0;\n\t} --> first order hold;\n"
					   "\ttrue -> {\n\t\tk := 1;\n\t\tk := 2;\n\t} --> { };\n"
					   "}\n"));
	parsed_free(p);
}

static void parse__quantize__its_three_forms(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "out rules {\n"
			     "\tquantize(x, \"low\", 1.5, \"mid\", LIMIT * 2, \"high\") --> no hold;\n"
			     "\tquantize(w.y, = floor(signal / 2));\n"
			     "\tquantize(x, \"only\");\n"
			     "\tquantize x every 0.5;\n"
			     "\tquantize w.y every D with offset 0.1 --> FOH;\n"
			     "\tquantize x every D offset O;\n"
			     "}\n");
	Node *r = first_adaptation(p)->a_out_rules->list3;
	assert_int_equal(ast_count(r), 6);
	for (Node *x = r; x; x = x->next) {
		assert_int_equal(x->op, RULE_QUANTIZE);
		assert_int_equal(x->lhs->kind, ND_QUANTIZE);
	}
	Node *q0 = r->lhs;
	assert_int_equal(q0->op, QUANT_ZONES);
	assert_int_equal(q0->lhs->kind, ND_PORT_REF);
	assert_null(q0->lhs->owner);
	assert_string_equal(q0->lhs->name, "x");
	assert_int_equal(ast_count(q0->list1), 5);
	StrBuf sb;
	sb_init(&sb);
	sx_list(&sb, q0->list1);
	assert_string_equal(sb_str(&sb), " \"low\" 1.5 \"mid\" (* LIMIT 2) \"high\"");
	sb_free(&sb);
	assert_int_equal(r->els->op, HOLD_NO);

	Node *q1 = r->next->lhs;
	assert_int_equal(q1->op, QUANT_FUNCTION);
	assert_string_equal(q1->lhs->owner, "w");
	char *fn = sx_str(q1->rhs);
	assert_string_equal(fn, "(floor (/ signal 2))");
	free(fn);
	assert_null(r->next->els);

	assert_int_equal(ast_count(nth(r, 2)->lhs->list1), 1);

	Node *q3 = nth(r, 3)->lhs;
	assert_int_equal(q3->op, QUANT_EVERY);
	assert_string_equal(q3->rhs->str, "0.5");
	assert_null(q3->els);
	Node *q4 = nth(r, 4)->lhs;
	assert_int_equal(q4->op, QUANT_EVERY);
	assert_string_equal(q4->els->str, "0.1");
	assert_int_equal(q4->flags, 0);
	assert_int_equal(nth(r, 4)->els->op, HOLD_FIRST);
	Node *q5 = nth(r, 5)->lhs;
	assert_string_equal(q5->els->name, "O");
	assert_int_equal(q5->flags, 1);

	assert_non_null(strstr(p->printed,
			       "\tquantize(x, \"low\", 1.5, \"mid\", LIMIT * 2, \"high\") --> no hold;\n"
			       "\tquantize(w.y, = floor(signal / 2));\n"
			       "\tquantize(x, \"only\");\n"
			       "\tquantize x every 0.5;\n"
			       "\tquantize w.y every D with offset 0.1 --> FOH;\n"
			       "\tquantize x every D offset O;\n"));
	parsed_free(p);
}

static void parse__loop_rules__inside_rule_blocks(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "out rules {\n"
			     "\tsuccessive substitution starts at w.y with absolute tolerance = 1e-5 "
			     "and relative tolerance = 1e-6;\n"
			     "\tdelay at w.y and w.z;\n"
			     "\ttrue -> { };\n"
			     "}\n");
	Node *r = first_adaptation(p)->a_out_rules->list3;
	assert_int_equal(ast_count(r), 3);
	assert_int_equal(r->op, RULE_LOOP);
	assert_int_equal(r->lhs->kind, ND_SUBST);
	assert_int_equal(ast_count(r->lhs->list2), 2);
	assert_int_equal(r->next->op, RULE_LOOP);
	assert_int_equal(r->next->lhs->kind, ND_DELAY);
	assert_int_equal(ast_count(r->next->lhs->list1), 2);
	assert_non_null(strstr(p->printed, "\tsuccessive substitution starts at w.y with absolute "
					   "tolerance = 1e-5 and relative tolerance = 1e-6;\n"
					   "\tdelay at w.y and w.z;\n"));
	parsed_free(p);
}

/* ---- expressions ------------------------------------------------------------------------ */

static void parse__expressions__precedence_from_or_down_to_unary(void **state)
{
	(void)state;
	assert_expr("a or b and not c < d + e * -f",
		    "(or a (and b (not (< c (+ d (* #e (neg f)))))))", "");
	assert_expr("a and b or c", "(or (and a b) c)", "");
	assert_expr("not a and b", "(and (not a) b)", "");
	assert_expr("not a < b", "(not (< a b))", "");
	assert_expr("a + b * c - d / e", "(- (+ a (* b c)) (/ d #e))", "");
	assert_expr("-a * b", "(* (neg a) b)", "");
	assert_expr("-(a * b)", "(neg (* a b))", "");
	assert_expr("a + 1 < b * 2", "(< (+ a 1) (* b 2))", "");
}

static void parse__expressions__left_associative_arithmetic_and_logic(void **state)
{
	(void)state;
	assert_expr("a - b - c", "(- (- a b) c)", "");
	assert_expr("a - (b - c)", "(- a (- b c))", "");
	assert_expr("a / b / c", "(/ (/ a b) c)", "");
	assert_expr("a / (b * c)", "(/ a (* b c))", "");
	assert_expr("a / b * c", "(* (/ a b) c)", "");
	assert_expr("(a + b) * (c - d)", "(* (+ a b) (- c d))", "");
	assert_expr("a or b or c", "(or (or a b) c)", "");
	assert_expr("a or (b or c)", "(or a (or b c))", "");
	assert_expr("a and (b or c)", "(and a (or b c))", "");
	assert_expr("((a))", "a", "a");
	assert_expr("(not a) == b", "(== (not a) b)", "");
	assert_expr("a == (b < c)", "(== a (< b c))", "");
	assert_expr("(a < b) == (c < d)", "(== (< a b) (< c d))", "");
}

static void parse__expressions__every_comparison_operator(void **state)
{
	(void)state;
	assert_expr("a < b", "(< a b)", "");
	assert_expr("a <= b", "(<= a b)", "");
	assert_expr("a > b", "(> a b)", "");
	assert_expr("a >= b", "(>= a b)", "");
	assert_expr("a == b", "(== a b)", "");
	assert_expr("a != b", "(!= a b)", "");
	assert_expr("a >! b", "(>! a b)", "");
	assert_expr("a <! b", "(<! a b)", "");
	assert_expr("a+1>=b-1", "(>= (+ a 1) (- b 1))", "a + 1 >= b - 1");
	/* Comparisons do not chain. */
	Parsed *p = parse_bad(HEAD "out rules { true -> x := a < b < c; }\n");
	assert_non_null(strstr(p->diag, "t.sa:3:32: error: syntax error: unexpected '<'"));
	parsed_free(p);
}

static void parse__expressions__larrow_is_less_than_a_negation(void **state)
{
	(void)state;
	/* `<-` is one token; in an expression it reads as `< -`. */
	assert_expr("x<-1", "(< x (neg 1))", "x < -1");
	assert_expr("x <- 1", "(< x (neg 1))", "x < -1");
	assert_expr("x <- a * b", "(< x (* (neg a) b))", "x < -a * b");
	assert_expr("x <- a * b + c", "(< x (+ (* (neg a) b) c))", "x < -a * b + c");
	assert_expr("x <- a / b - c * d", "(< x (- (/ (neg a) b) (* c d)))", "x < -a / b - c * d");
	assert_expr("x <- (a + b)", "(< x (neg (+ a b)))", "x < -(a + b)");
	assert_expr("x <- -a", "(< x (neg (neg a)))", "x < --a");
	assert_expr("x < -1", "(< x (neg 1))", "");
}

static void parse__expressions__minus_is_binary_or_unary_by_position(void **state)
{
	(void)state;
	assert_expr("x-1", "(- x 1)", "x - 1");
	assert_expr("x - 1", "(- x 1)", "");
	assert_expr("-1", "(neg 1)", "");
	assert_expr("x - -1", "(- x (neg 1))", "");
	assert_expr("x--1", "(- x (neg 1))", "x - -1");
	assert_expr("- - x", "(neg (neg x))", "--x");
	assert_expr("-1.5e-3", "(neg 1.5e-3)", "");
	assert_expr("-(-x)", "(neg (neg x))", "--x");
	assert_expr("not not x", "(not (not x))", "");
	assert_expr("-(a + b)", "(neg (+ a b))", "");
	assert_expr("-a.b", "(neg a.b)", "");
}

static void parse__expressions__literals_and_references(void **state)
{
	(void)state;
	assert_expr("42", "42", "");
	assert_expr("1.5", "1.5", "");
	assert_expr(".5", ".5", "");
	assert_expr("5.", "5.", "");
	assert_expr("1e5", "1e5", "");
	assert_expr("1E+3", "1E+3", "");
	assert_expr("\"text\"", "\"text\"", "");
	assert_expr("'text'", "\"text\"", "\"text\"");
	assert_expr("true", "true", "");
	assert_expr("false", "false", "");
	assert_expr("name", "name", "");
	assert_expr("w.port", "w.port", "");
	assert_expr("^rate + ^w.^in", "(+ rate w.in)", "^rate + w.^in");
	assert_expr("otherwise", "otherwise", "");
	/* The spelling of a real is kept for the print; its value is a double. */
	Parsed *p = parse_ok(HEAD "out rules { true -> x := 0.1; }\n");
	Node *e = first_adaptation(p)->a_out_rules->list3->then->list1->rhs;
	assert_int_equal(e->kind, ND_REAL);
	assert_true(e->rval == 0.1);
	parsed_free(p);
}

static void parse__expressions__keyvars_and_signals(void **state)
{
	(void)state;
	assert_expr("t + H + h + dt + e + MAX", "(+ (+ (+ (+ (+ #t #H) #h) #dt) #e) #MAX)", "");
	assert_expr("signal", "signal", "");
	assert_expr("signal[prev]", "signal[prev]", "");
	assert_expr("signal[now]", "signal[now]", "");
	assert_expr("signal[-2]", "signal[-2]", "");
	assert_expr("signal[0]", "signal[0]", "");
	assert_expr("signal - signal[-1]", "(- signal signal[-1])", "");
	static const struct {
		const char *src;
		int op;
	} kv[] = {{"t", KV_T}, {"H", KV_BIG_H}, {"h", KV_H}, {"dt", KV_DT}, {"e", KV_E},
		  {"MAX", KV_MAX}};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, HEAD "out rules { true -> x := %s; }\n", kv[i].src);
		Parsed *p = parse_ok(text);
		Node *e = first_adaptation(p)->a_out_rules->list3->then->list1->rhs;
		assert_int_equal(e->kind, ND_KEYVAR);
		assert_int_equal(e->op, kv[i].op);
		parsed_free(p);
	}
	static const struct {
		const char *src;
		int op;
		long long index;
	} sig[] = {{"signal", SIG_PLAIN, 0}, {"signal[now]", SIG_NOW, 0},
		   {"signal[prev]", SIG_PREV, 0}, {"signal[-2]", SIG_INDEX, -2},
		   {"signal[0]", SIG_INDEX, 0}};
	for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, HEAD "out rules { true -> x := %s; }\n", sig[i].src);
		Parsed *p = parse_ok(text);
		Node *e = first_adaptation(p)->a_out_rules->list3->then->list1->rhs;
		assert_int_equal(e->kind, ND_SIGNAL);
		assert_int_equal(e->op, sig[i].op);
		assert_int_equal(e->ival, sig[i].index);
		parsed_free(p);
	}
}

static void parse__expressions__every_builtin_with_its_arities(void **state)
{
	(void)state;
	static const struct {
		const char *src, *tree;
		int op, nargs;
		const char *fmu;
	} calls[] = {
		{"floor(x / 2)", "(floor (/ x 2))", BI_FLOOR, 1, NULL},
		{"ceil(x)", "(ceil x)", BI_CEIL, 1, NULL},
		{"abs(-x)", "(abs (neg x))", BI_ABS, 1, NULL},
		{"round(x)", "(round x)", BI_ROUND, 1, NULL},
		{"round(x, 2)", "(round x 2)", BI_ROUND, 2, NULL},
		{"max(a)", "(max a)", BI_MAX, 1, NULL},
		{"max(a, b)", "(max a b)", BI_MAX, 2, NULL},
		{"max(a, b, c + 1)", "(max a b (+ c 1))", BI_MAX, 3, NULL},
		{"min(H, 1.0)", "(min #H 1.0)", BI_MIN, 2, NULL},
		{"min(a, b, c, d)", "(min a b c d)", BI_MIN, 4, NULL},
		{"is_close(a, b)", "(is_close a b)", BI_IS_CLOSE, 2, NULL},
		{"is_close(a, b, 1e-5, 1e-8)", "(is_close a b 1e-5 1e-8)", BI_IS_CLOSE, 4, NULL},
		{"is_set(x)", "(is_set x)", BI_IS_SET, 1, NULL},
		{"is_set(s.x)", "(is_set s.x)", BI_IS_SET, 1, NULL},
		{"do_step(w, t, H / 2)", "(do_step @w #t (/ #H 2))", BI_DO_STEP, 2, "w"},
		{"get_next_time_step(w)", "(get_next_time_step @w)", BI_GET_NEXT_TIME_STEP, 0, "w"},
		{"elapsed(w)", "(elapsed @w)", BI_ELAPSED, 0, "w"},
		{"last_execution_time(w)", "(last_execution_time @w)", BI_LAST_EXECUTION_TIME, 0,
		 "w"},
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		assert_expr(calls[i].src, calls[i].tree, "");
		char text[256];
		snprintf(text, sizeof text, HEAD "out rules { true -> x := %s; }\n", calls[i].src);
		Parsed *p = parse_ok(text);
		Node *e = first_adaptation(p)->a_out_rules->list3->then->list1->rhs;
		assert_int_equal(e->kind, ND_BUILTIN);
		assert_int_equal(e->op, calls[i].op);
		assert_int_equal(ast_count(e->list1), calls[i].nargs);
		if (calls[i].fmu) {
			assert_string_equal(e->name, calls[i].fmu);
			assert_int_equal(e->lhs->kind, ND_NAME);
			assert_string_equal(e->lhs->name, calls[i].fmu);
		} else {
			assert_null(e->name);
		}
		parsed_free(p);
	}
	/* Builtins with a fixed arity refuse more arguments in the grammar; round and
	 * is_close are counted by the checker. */
	Parsed *p = parse_bad(HEAD "out rules { true -> x := floor(1, 2); }\n");
	assert_string_equal(p->diag, "t.sa:3:33: error: syntax error: unexpected ','; expected ')'\n"
				     "     3 | out rules { true -> x := floor(1, 2); }\n"
				     "       |                                 ^\n");
	parsed_free(p);
	p = parse_ok(HEAD "out rules { true -> x := round(1, 2, 3) + is_close(a); }\n");
	parsed_free(p);
	/* FMU functions take an FMU name, not an expression. */
	p = parse_bad(HEAD "out rules { true -> x := elapsed(w.y); }\n");
	assert_non_null(strstr(p->diag, "t.sa:3:35: error: syntax error: unexpected '.'; expected ')'"));
	parsed_free(p);
}

/* ---- whole scripts ---------------------------------------------------------------------- */

/* LANGUAGE.md section 2's example, as printed there. */
static const char torque_sensor[] =
	"semantic adaptation reactive moore sensor_sa\n"
	"at \"./SensorSA.fmu\"\n"
	"\tfor inner fmu TorqueSensor sensor\n"
	"\t\tat \"./TorqueSensor.fmu\"\n"
	"\t\twith input ports Real shaft_angle (rad)\n"
	"\t\twith output ports Real torque (N.mm)\n"
	"\n"
	"input ports Real angle (deg) -> sensor.shaft_angle\n"
	"output ports Real torque (N.m) <- sensor.torque, Real reaction\n"
	"\n"
	"param RATE := 4;\n"
	"\n"
	"control rules {\n"
	"\tvar inner_t := t;\n"
	"\tfor (var k in 0 .. RATE) {\n"
	"\t\tdo_step(sensor, inner_t, H / RATE);\n"
	"\t\tinner_t := inner_t + H / RATE;\n"
	"\t}\n"
	"\treturn H;\n"
	"}\n"
	"\n"
	"out rules {\n"
	"\ttrue -> { } --> { sensor_sa.reaction := -0.001 * sensor.torque; };\n"
	"}\n";

static void parse__spec_torque_sensor_example__parses_unchanged(void **state)
{
	(void)state;
	Parsed *p = parse_ok(torque_sensor);
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(p->root->list2), 1);
	assert_string_equal(sa->name, "sensor_sa");
	assert_int_equal(sa->flags, KIND_REACTIVE | KIND_MOORE);
	assert_string_equal(sa->str, "./SensorSA.fmu");
	Node *in = sa->a_inners;
	assert_string_equal(in->tname, "TorqueSensor");
	assert_string_equal(in->name, "sensor");
	assert_string_equal(in->str, "./TorqueSensor.fmu");
	assert_string_equal(in->list1->unit->str, "rad");
	assert_string_equal(in->list2->unit->str, "N.mm");
	assert_string_equal(sa->a_inports->unit->str, "deg");
	assert_int_equal(sa->a_inports->bind_dir, BIND_TO);
	assert_int_equal(ast_count(sa->a_outports), 2);
	assert_int_equal(sa->a_outports->bind_dir, BIND_FROM);
	assert_null(nth(sa->a_outports, 1)->unit);
	assert_int_equal(ast_count(sa->a_params), 1);
	Node *body = sa->a_ctrl->body->list1;
	assert_int_equal(ast_count(body), 3);
	assert_int_equal(body->next->kind, ND_FOR);
	assert_int_equal(ast_count(body->next->then->list1), 2);
	Node *rule = sa->a_out_rules->list3;
	assert_int_equal(ast_count(rule), 1);
	char *e = sx_str(rule->els->list1->rhs);
	assert_string_equal(e, "(* (neg 0.001) sensor.torque)");
	free(e);
	parsed_free(p);
}

/* Scripts in the syntax of the original baseSA tool: two-name headers, untyped ports with
 * units, `with a.p -> b.q` couplings, `in var` after the control rules.  Written for these
 * tests; the power-window case study's shape. */
static const char orig_window[] =
	"semantic adaptation reactive mealy WindowAdapt window_adapt\n"
	"at \"./out/WindowAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu PowerWindow pw\n"
	"\t\tat \"./fmus/PowerWindow.fmu\"\n"
	"\t\twith input ports displacement (rad), speed (rad/s), reaction_force (N)\n"
	"\t\twith output ports height (cm), reaction_torque (N.m)\n"
	"\n"
	"output ports disp (m)  <- pw.height, tau\n"
	"\n"
	"out rules {\n"
	"\ttrue -> {} --> {\n"
	"\t\twindow_adapt.tau := - pw.reaction_torque;\n"
	"\t};\n"
	"}\n";

static const char orig_loop[] =
	"semantic adaptation reactive moore LoopAdapt loop_adapt\n"
	"at \"./out/LoopAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu WindowAdapt win\n"
	"\t\tat \"./out/WindowAdapt.fmu\"\n"
	"\t\twith input ports displacement (rad), speed (rad/s), reaction_force (N)\n"
	"\t\twith output ports disp (m), tau (N.m)\n"
	"\n"
	"\tfor inner fmu Obstacle obst\n"
	"\t\tat \"./fmus/Obstacle.fmu\"\n"
	"\t\twith input ports disp (m)\n"
	"\t\twith output ports reaction_force (N)\n"
	"\n"
	"\twith win.disp -> obst.disp\n"
	"\twith obst.reaction_force -> win.reaction_force\n"
	"\n"
	"output ports tau <- win.tau\n"
	"\n"
	"param MAX_ITER := 20, RTOL := 0.0001, ATOL := 1e-8;\n"
	"\n"
	"control var last_disp := 0;\n"
	"control rules {\n"
	"\tvar done := false;\n"
	"\tfor (var k in 0 .. MAX_ITER) {\n"
	"\t\tsave_state(obst);\n"
	"\t\tsave_state(win);\n"
	"\t\tobst.disp := last_disp;\n"
	"\t\tdo_step(obst,t,H);\n"
	"\t\tdo_step(win,t,H);\n"
	"\n"
	"\t\tdone := is_close(last_disp, win.disp, RTOL, ATOL);\n"
	"\t\tlast_disp := win.disp;\n"
	"\t\tif (done) {\n"
	"\t\t\tbreak;\n"
	"\t\t} else {\n"
	"\t\t\trollback(obst);\n"
	"\t\t\trollback(win);\n"
	"\t\t}\n"
	"\t}\n"
	"\treturn H;\n"
	"}\n";

static const char orig_rate[] =
	"semantic adaptation reactive moore RateAdapt rate_adapt\n"
	"at \"./out/RateAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu LoopAdapt inner_loop\n"
	"\t\tat \"./out/LoopAdapt.fmu\"\n"
	"\t\twith input ports displacement (rad), speed (rad/s)\n"
	"\t\twith output ports tau (N.m)\n"
	"\n"
	"input ports displacement (rad) -> inner_loop.displacement,\n"
	"\tspeed (rad/s)\n"
	"output ports tau <- inner_loop.tau\n"
	"\n"
	"param STEPS := 8;\n"
	"\n"
	"control rules {\n"
	"\tvar local_t := t, micro := H/STEPS;\n"
	"\tfor (var n in 0 .. STEPS) {\n"
	"\t\tdo_step(inner_loop, local_t, micro);\n"
	"\t\tlocal_t := local_t + micro;\n"
	"\t}\n"
	"\tbefore_speed := now_speed;\n"
	"\treturn H;\n"
	"}\n"
	"\n"
	"in var now_speed := 0, before_speed := 0;\n"
	"in rules {\n"
	"\ttrue -> {\n"
	"\t\tnow_speed := rate_adapt.speed;\n"
	"\t} --> {\n"
	"\t\tinner_loop.speed := before_speed + (now_speed - before_speed)*(dt + h)/H;\n"
	"\t};\n"
	"}\n";

static const char orig_lazy[] =
	"semantic adaptation reactive moore LazyAdapt lazy_adapt\n"
	"at \"./out/LazyAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu Controller ctrl\n"
	"\t\tat \"./fmus/Controller.fmu\"\n"
	"\t\twith input ports obj_detected, passenger_up, passenger_down, driver_up, driver_down\n"
	"\t\twith output ports up, down, stop\n"
	"\n"
	"input ports obj_detected -> ctrl.obj_detected,\n"
	"\tpassenger_up -> ctrl.passenger_up,\n"
	"\tpassenger_down -> ctrl.passenger_down,\n"
	"\tdriver_up -> ctrl.driver_up,\n"
	"\tdriver_down -> ctrl.driver_down\n"
	"\n"
	"output ports up <- ctrl.up, down <- ctrl.down, stop <- ctrl.stop\n"
	"\n"
	"control var next_due := 0,\n"
	"\tlast_t := 0,\n"
	"\tseen_obj := false,\n"
	"\tseen_up := false;\n"
	"control rules {\n"
	"\tvar step := H;\n"
	"\tif (lazy_adapt.obj_detected != seen_obj or\n"
	"\t\t\tlazy_adapt.passenger_up != seen_up or\n"
	"\t\t\t(t + H) >= next_due) {\n"
	"\t\tvar taken := do_step(ctrl, last_t, t + H - last_t);\n"
	"\t\tnext_due := last_t + taken + get_next_time_step(ctrl);\n"
	"\t\tstep := last_t + taken - t;\n"
	"\t\tlast_t := last_t + taken;\n"
	"\t}\n"
	"\tseen_obj := lazy_adapt.obj_detected;\n"
	"\tseen_up := lazy_adapt.passenger_up;\n"
	"\treturn step;\n"
	"}\n";

static const char orig_threshold[] =
	"semantic adaptation reactive moore ControllerAdapt ctrl_adapt\n"
	"at \"./out/ControllerAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu LazyAdapt lazy\n"
	"\t\tat \"./out/LazyAdapt.fmu\"\n"
	"\t\twith input ports obj_detected, passenger_up, driver_up\n"
	"\t\twith output ports up, down, stop\n"
	"\n"
	"input ports armature_current,\n"
	"\tpassenger_up -> lazy.passenger_up,\n"
	"\tdriver_up -> lazy.driver_up\n"
	"\n"
	"output ports u, d\n"
	"\n"
	"param REL := 0.0001, ABS := 1e-8, LIMIT := 5, START := 0;\n"
	"\n"
	"control var hit := false,\n"
	"\tbefore := START;\n"
	"control rules {\n"
	"\tvar h_taken := H;\n"
	"\tvar passed := false;\n"
	"\thit := false;\n"
	"\tif ((not is_close(before, LIMIT, REL, ABS)) and before < LIMIT\n"
	"\t\tand (not is_close(after, LIMIT, REL, ABS)) and after > LIMIT) {\n"
	"\t\tpassed := true;\n"
	"\t\tvar lo := before - LIMIT;\n"
	"\t\tvar hi := after - LIMIT;\n"
	"\t\th_taken := H * (-lo / (hi - lo));\n"
	"\t} else {\n"
	"\t\tif ((not is_close(before, LIMIT, REL, ABS)) and before < LIMIT\n"
	"\t\t\tand is_close(after, LIMIT, REL, ABS)) {\n"
	"\t\t\thit := true;\n"
	"\t\t}\n"
	"\t}\n"
	"\tif (not passed) {\n"
	"\t\th_taken := do_step(lazy, t, H);\n"
	"\t}\n"
	"\tif (is_close(h_taken, H, REL, ABS)) {\n"
	"\t\tbefore := after;\n"
	"\t}\n"
	"\treturn h_taken;\n"
	"}\n"
	"\n"
	"in var after := START;\n"
	"in rules {\n"
	"\ttrue -> {\n"
	"\t\tafter := ctrl_adapt.armature_current;\n"
	"\t} --> {\n"
	"\t\tlazy.obj_detected := hit;\n"
	"\t};\n"
	"}\n"
	"\n"
	"out rules {\n"
	"\tlazy.up -> {} --> {ctrl_adapt.u := 1;};\n"
	"\tnot lazy.up -> {} --> {ctrl_adapt.u := 0;};\n"
	"\n"
	"\tlazy.down -> {} --> {ctrl_adapt.d := 1;};\n"
	"\tnot lazy.down -> {} --> {ctrl_adapt.d := 0;};\n"
	"\n"
	"\tlazy.stop -> {} --> {ctrl_adapt.u := 0; ctrl_adapt.d := 0; };\n"
	"}\n";

/* Parses an original-style script through the driver (as `sacc check --syntax` would):
 * no error, one warning, the two-name header's. */
static Node *load_original(TestRun *t, const char *name, const char *text)
{
	Module *m = tr_load(t, name, text);
	assert_non_null(m);
	if (!m->root || diag_errors(t->c->diag) != 0)
		fail_msg("%s did not parse:\n%s", name, tr_diag(t));
	assert_int_equal(diag_warnings(t->c->diag), 1);
	assert_non_null(strstr(tr_diag(t), "warning: adaptation header names a type and an "
					   "instance"));
	/* And its print reads back as itself. */
	free(round_trip(m->root, 0));
	return m->root->list2;
}

static void parse__original_window_script__parses_without_error(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_window.sa", orig_window);
	assert_string_equal(sa->tname, "WindowAdapt");
	assert_string_equal(sa->name, "window_adapt");
	assert_int_equal(sa->flags, KIND_REACTIVE | KIND_MEALY);
	Node *in = sa->a_inners;
	assert_int_equal(ast_count(in->list1), 3);
	assert_int_equal(in->list1->type, TY_NONE);
	assert_string_equal(in->list1->unit->str, "rad");
	assert_int_equal(ast_count(sa->a_outports), 2);
	assert_int_equal(sa->a_outports->bind_dir, BIND_FROM);
	assert_string_equal(sa->a_outports->unit->str, "m");
	assert_string_equal(nth(sa->a_outports, 1)->name, "tau");
	assert_null(nth(sa->a_outports, 1)->unit);
	char *e = sx_str(sa->a_out_rules->list3->els->list1->rhs);
	assert_string_equal(e, "(neg pw.reaction_torque)");
	free(e);
	tr_free(t);
}

static void parse__original_loop_script__with_couplings_parse(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_loop.sa", orig_loop);
	assert_int_equal(ast_count(sa->a_inners), 2);
	assert_int_equal(ast_count(sa->a_couplings), 2);
	assert_string_equal(sa->a_couplings->lhs->owner, "win");
	assert_string_equal(sa->a_couplings->rhs->owner, "obst");
	assert_int_equal(ast_count(sa->a_params), 3);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 1);
	Node *loop = sa->a_ctrl->body->list1->next;
	assert_int_equal(loop->kind, ND_FOR);
	assert_int_equal(ast_count(loop->then->list1), 8);
	tr_free(t);
}

static void parse__original_rate_script__in_vars_after_control_parse(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_rate.sa", orig_rate);
	assert_int_equal(ast_count(sa->a_inports), 2);
	assert_int_equal(sa->a_inports->bind_dir, BIND_TO);
	assert_int_equal(nth(sa->a_inports, 1)->bind_dir, BIND_NONE);
	assert_int_equal(ast_count(sa->a_in_vars), 2);
	assert_non_null(sa->a_ctrl);
	char *e = sx_str(sa->a_in_rules->list3->els->list1->rhs);
	assert_string_equal(e, "(+ before_speed (/ (* (- now_speed before_speed) (+ #dt #h)) #H))");
	free(e);
	tr_free(t);
}

static void parse__original_lazy_script__parses_without_error(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_lazy.sa", orig_lazy);
	assert_int_equal(ast_count(sa->a_inports), 5);
	assert_int_equal(ast_count(sa->a_outports), 3);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 4);
	Node *ifs = sa->a_ctrl->body->list1->next;
	assert_int_equal(ifs->kind, ND_IF);
	assert_int_equal(ifs->cond->op, OP_OR);
	Node *taken = ifs->then->list1->list1;
	assert_int_equal(taken->init->op, BI_DO_STEP);
	tr_free(t);
}

static void parse__original_threshold_script__parses_without_error(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_threshold.sa", orig_threshold);
	assert_int_equal(ast_count(sa->a_params), 4);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 2);
	assert_int_equal(ast_count(sa->a_in_vars), 1);
	assert_int_equal(ast_count(sa->a_out_rules->list3), 5);
	Node *ifs = nth(sa->a_ctrl->body->list1, 3);
	assert_int_equal(ifs->kind, ND_IF);
	assert_int_equal(ifs->els->kind, ND_BLOCK);
	char *e = sx_str(nth(ifs->then->list1, 3)->rhs);
	assert_string_equal(e, "(* #H (/ (neg lo) (- hi lo)))");
	free(e);
	tr_free(t);
}

static void parse__several_original_scripts__in_one_file(void **state)
{
	(void)state;
	size_t n = strlen(orig_window) + strlen(orig_loop) + strlen(orig_rate) + 8;
	char *all = malloc(n);
	snprintf(all, n, "%s\n%s\n%s", orig_window, orig_loop, orig_rate);
	Parsed *p = parse_text(all);
	assert_non_null(p->root);
	assert_int_equal(ast_count(p->root->list2), 3);
	/* Each adaptation got its own couplings. */
	assert_null(p->root->list2->a_couplings);
	assert_int_equal(ast_count(p->root->list2->next->a_couplings), 2);
	assert_null(p->root->list2->next->next->a_couplings);
	free(round_trip(p->root, 0));
	parsed_free(p);
	free(all);
}

/* ---- syntax errors ---------------------------------------------------------------------- */

static void parse__syntax_error__names_the_token_and_what_was_expected(void **state)
{
	(void)state;
	Parsed *p = parse_bad("semantic adaptation s at \"s.fmu\"\n\tfor inner W w\n");
	assert_string_equal(p->diag, "t.sa:2:12: error: syntax error: unexpected identifier 'W'; "
				     "expected 'fmu'\n"
				     "     2 | \tfor inner W w\n"
				     "       | \t          ^\n");
	parsed_free(p);

	p = parse_bad("fmu Window w \"w.fmu\"\n");
	assert_string_equal(p->diag, "t.sa:1:14: error: syntax error: unexpected string '\"w.fmu\"'; "
				     "expected 'at'\n"
				     "     1 | fmu Window w \"w.fmu\"\n"
				     "       |              ^~~~~~~\n");
	parsed_free(p);

	p = parse_bad(HEAD "out rules {\n\ta b -> c;\n}\n");
	assert_string_equal(p->diag, "t.sa:4:4: error: syntax error: unexpected identifier 'b'; "
				     "expected '->'\n"
				     "     4 | \ta b -> c;\n"
				     "       | \t  ^\n");
	parsed_free(p);

	p = parse_bad(HEAD "out rules {\n\ttrue -> x := 1\n}\n");
	assert_string_equal(p->diag, "t.sa:5:1: error: syntax error: unexpected '}'; expected ';'\n"
				     "     5 | }\n"
				     "       | ^\n");
	parsed_free(p);

	/* The list is what the state where the error showed up could take; the parser has
	 * made its default reductions by then (here up to a complete adaptation), so it can
	 * be narrower than everything that might have followed. */
	p = parse_bad(HEAD "input ports x := 1.5.5\n");
	assert_string_equal(p->diag, "t.sa:3:21: error: syntax error: unexpected real number '.5'; "
				     "expected identifier, 'fmu' or 'semantic'\n"
				     "     3 | input ports x := 1.5.5\n"
				     "       |                     ^~\n");
	parsed_free(p);

	p = parse_bad(HEAD "input ports x := 12 34\n");
	assert_string_equal(p->diag, "t.sa:3:21: error: syntax error: unexpected integer '34'; "
				     "expected identifier, 'fmu' or 'semantic'\n"
				     "     3 | input ports x := 12 34\n"
				     "       |                     ^~\n");
	parsed_free(p);

	/* Parts in the wrong order: control rules come before in rules. */
	p = parse_bad(HEAD "in rules { }\ncontrol rules { return H; }\n");
	assert_string_equal(p->diag, "t.sa:4:1: error: syntax error: unexpected 'control'; "
				     "expected identifier, 'fmu' or 'semantic'\n"
				     "     4 | control rules { return H; }\n"
				     "       | ^~~~~~~\n");
	parsed_free(p);

	/* `=` is for settings only. */
	p = parse_bad(HEAD "control rules { x = 1; return H; }\n");
	assert_string_equal(p->diag, "t.sa:3:19: error: syntax error: unexpected '='; "
				     "expected ':='\n"
				     "     3 | control rules { x = 1; return H; }\n"
				     "       |                   ^\n");
	parsed_free(p);
}

static void parse__syntax_error__only_the_first_is_reported(void **state)
{
	(void)state;
	Parsed *p = parse_bad(HEAD "out rules {\n\ta b -> c;\n\tx y z;\n}\n@@@\n");
	/* One message: after the first error the parse stops. */
	assert_string_equal(p->diag, "t.sa:4:4: error: syntax error: unexpected identifier 'b'; "
				     "expected '->'\n"
				     "     4 | \ta b -> c;\n"
				     "       | \t  ^\n");
	parsed_free(p);

	/* Lexical errors before it are all reported, and it follows them (`c` starts a
	 * second connection). */
	p = parse_bad("a @ -> b # c\n");
	assert_string_equal(p->diag, "t.sa:1:3: error: unexpected character '@'\n"
				     "     1 | a @ -> b # c\n"
				     "       |   ^\n"
				     "t.sa:1:10: error: unexpected character '#'\n"
				     "     1 | a @ -> b # c\n"
				     "       |          ^\n"
				     "t.sa:2:1: error: syntax error: unexpected end of file; "
				     "expected '->'\n");
	parsed_free(p);
}

static void parse__syntax_error__unexpected_end_of_file(void **state)
{
	(void)state;
	/* At the end of a line with no newline after it: quoted. */
	Parsed *p = parse_bad("semantic");
	assert_string_equal(p->diag, "t.sa:1:9: error: syntax error: unexpected end of file; "
				     "expected 'adaptation'\n"
				     "     1 | semantic\n"
				     "       |         ^\n");
	parsed_free(p);

	p = parse_bad(HEAD "out rules {\n\ttrue -> { x := 1; }");
	assert_string_equal(p->diag, "t.sa:4:21: error: syntax error: unexpected end of file; "
				     "expected ';'\n"
				     "     4 | \ttrue -> { x := 1; }\n"
				     "       | \t                   ^\n");
	parsed_free(p);

	/* After the last newline: nothing to quote. */
	p = parse_bad("semantic adaptation s at \"s.fmu\"\n");
	assert_string_equal(p->diag, "t.sa:2:1: error: syntax error: unexpected end of file; "
				     "expected 'for'\n");
	parsed_free(p);

	p = parse_bad(HEAD "control rules {\n\treturn H;\n");
	assert_string_equal(p->diag, "t.sa:5:1: error: syntax error: unexpected end of file; "
				     "expected '}'\n");
	parsed_free(p);

	/* Inside an unterminated comment the end comes first. */
	p = parse_bad("fmu A a /* at \"a.fmu\" */ ");
	assert_non_null(strstr(p->diag, "syntax error: unexpected end of file; expected 'at'"));
	parsed_free(p);
	p = parse_bad("fmu A a at \"a.fmu\" /* input ports x");
	assert_string_equal(p->diag, "t.sa:1:20: error: unterminated comment\n"
				     "     1 | fmu A a at \"a.fmu\" /* input ports x\n"
				     "       |                    ^~\n");
	parsed_free(p);
}

static void parse__reserved_word_as_name__suggests_the_caret_escape(void **state)
{
	(void)state;
	Parsed *p = parse_bad("semantic adaptation rate at \"r.fmu\"\n\tfor inner fmu W w\n");
	assert_string_equal(p->diag, "t.sa:1:21: error: syntax error: unexpected 'rate'; "
				     "expected identifier\n"
				     "     1 | semantic adaptation rate at \"r.fmu\"\n"
				     "       |                     ^~~~\n"
				     "t.sa:1:21: note: 'rate' is a reserved word; write '^rate' to use "
				     "it as a name\n"
				     "     1 | semantic adaptation rate at \"r.fmu\"\n"
				     "       |                     ^~~~\n");
	parsed_free(p);

	p = parse_bad(HEAD "control rules {\n\tvar min := 1;\n\treturn H;\n}\n");
	assert_string_equal(p->diag, "t.sa:4:6: error: syntax error: unexpected 'min'; "
				     "expected identifier\n"
				     "     4 | \tvar min := 1;\n"
				     "       | \t    ^~~\n"
				     "t.sa:4:6: note: 'min' is a reserved word; write '^min' to use it "
				     "as a name\n"
				     "     4 | \tvar min := 1;\n"
				     "       | \t    ^~~\n");
	parsed_free(p);

	p = parse_bad(HEAD "input ports Real t\n");
	assert_non_null(strstr(p->diag, "t.sa:3:18: note: 't' is a reserved word; write '^t' to "
					"use it as a name\n"));
	parsed_free(p);

	p = parse_bad(HEAD "param ^MAX := 1, delay := 2;\n");
	assert_non_null(strstr(p->diag, "note: 'delay' is a reserved word; write '^delay'"));
	parsed_free(p);

	/* With the escape it is a name. */
	p = parse_ok("semantic adaptation ^rate at \"r.fmu\"\n\tfor inner fmu W w\n"
		     "input ports Real ^t, ^in\n"
		     "control rules {\n\tvar ^min := ^t;\n\treturn H;\n}\n");
	Node *sa = first_adaptation(p);
	assert_string_equal(sa->name, "rate");
	assert_string_equal(sa->a_inports->name, "t");
	assert_string_equal(sa->a_ctrl->body->list1->list1->name, "min");
	assert_non_null(strstr(p->printed, "semantic adaptation ^rate\n"));
	assert_non_null(strstr(p->printed, "input ports Real ^t,\n\t^in\n"));
	assert_non_null(strstr(p->printed, "\tvar ^min := ^t;\n"));
	parsed_free(p);
}

static void parse__import_after_module__notes_that_imports_come_first(void **state)
{
	(void)state;
	Parsed *p = parse_bad("module loop_sa\nimport window_sa\n");
	assert_string_equal(p->diag, "t.sa:2:1: error: syntax error: unexpected 'import'; "
				     "expected identifier, 'fmu' or 'semantic'\n"
				     "     2 | import window_sa\n"
				     "       | ^~~~~~\n"
				     "t.sa:2:1: note: imports come first in a file, before 'module'\n"
				     "     2 | import window_sa\n"
				     "       | ^~~~~~\n");
	parsed_free(p);

	p = parse_bad("fmu A a at \"a.fmu\"\nimport b\n");
	assert_non_null(strstr(p->diag, "t.sa:2:1: note: imports come first in a file, before "
					"'module'\n"));
	parsed_free(p);
}

static void parse__literal_out_of_range__is_an_error(void **state)
{
	(void)state;
	Parsed *p = parse_bad(HEAD "input ports x := 99999999999999999999\n");
	assert_string_equal(p->diag, "t.sa:3:18: error: integer literal '99999999999999999999' is "
				     "too large\n"
				     "     3 | input ports x := 99999999999999999999\n"
				     "       |                  ^~~~~~~~~~~~~~~~~~~~\n");
	parsed_free(p);
	p = parse_bad(HEAD "param P := 1e999;\n");
	assert_string_equal(p->diag, "t.sa:3:12: error: real literal '1e999' is out of range\n"
				     "     3 | param P := 1e999;\n"
				     "       |            ^~~~~\n");
	parsed_free(p);
	/* The largest integer is fine, and so is a real that underflows to 0. */
	p = parse_ok(HEAD "param P := 9223372036854775807, Q := 1e-400;\n");
	assert_true(first_adaptation(p)->a_params->init->ival == 9223372036854775807LL);
	parsed_free(p);
}

/* ---- robustness ------------------------------------------------------------------------- */

static char *repeat(const char *head, const char *unit, int n, const char *mid, const char *unit2,
		    const char *tail)
{
	size_t len = strlen(head) + (size_t)n * (strlen(unit) + strlen(unit2)) + strlen(mid) +
		     strlen(tail) + 1;
	char *s = malloc(len), *o = s;
	o += sprintf(o, "%s", head);
	for (int i = 0; i < n; i++)
		o += sprintf(o, "%s", unit);
	o += sprintf(o, "%s", mid);
	for (int i = 0; i < n; i++)
		o += sprintf(o, "%s", unit2);
	sprintf(o, "%s", tail);
	return s;
}

static void parse__deep_parentheses__report_nesting_too_deep(void **state)
{
	(void)state;
	char *text = repeat(HEAD "out rules { true -> x := ", "(", 5000, "x", ")", "; }\n");
	Parsed *p = parse_bad(text);
	assert_string_equal(p->diag, "t.sa: error: nesting too deep for the parser\n");
	parsed_free(p);
	free(text);

	/* The same for statements, and for a run of unary operators. */
	text = repeat(HEAD "control rules { ", "if (a) { ", 5000, "", "} ", "return H; }\n");
	p = parse_bad(text);
	assert_string_equal(p->diag, "t.sa: error: nesting too deep for the parser\n");
	parsed_free(p);
	free(text);
	text = repeat(HEAD "out rules { true -> x := ", "- ", 5000, "x", "", "; }\n");
	p = parse_bad(text);
	assert_string_equal(p->diag, "t.sa: error: nesting too deep for the parser\n");
	parsed_free(p);
	free(text);
	text = repeat(HEAD "out rules { not ", "not ", 5000, "x", "", " -> { }; }\n");
	p = parse_bad(text);
	assert_string_equal(p->diag, "t.sa: error: nesting too deep for the parser\n");
	parsed_free(p);
	free(text);

	/* Some hundreds deep is fine, and prints back. */
	text = repeat(HEAD "out rules { true -> x := ", "(", 500, "x + 1", ") * 2", "; }\n");
	p = parse_ok(text);
	parsed_free(p);
	free(text);
}

static void parse__long_left_chain__reports_nesting_too_deep(void **state)
{
	(void)state;
	/* a + a + ... builds its tree without growing the parser's stack: the depth is
	 * checked on the tree, before any stage recurses into it. */
	char *text = repeat(HEAD "out rules { true -> x := a", "\n+ a", 6000, "", "", "; }\n");
	Parsed *p = parse_bad(text);
	assert_string_equal(p->diag, "t.sa:3:26: error: nesting too deep (more than 5000 levels); "
				     "split the expression with intermediate variables\n"
				     "     3 | out rules { true -> x := a\n"
				     "       |                          ^\n");
	parsed_free(p);
	free(text);

	/* Just under the limit is accepted and prints back. */
	text = repeat(HEAD "out rules { true -> x := a", " * a", 4900, "", "", "; }\n");
	p = parse_ok(text);
	parsed_free(p);
	free(text);

	/* A chain of a hundred thousand terms. */
	text = repeat(HEAD "out rules { true -> x := a", " or a", 100000, "", "", "; }\n");
	p = parse_bad(text);
	assert_non_null(strstr(p->diag, "error: nesting too deep (more than 5000 levels)"));
	parsed_free(p);
	free(text);
}

/* A small deterministic generator, so a failure can be replayed. */
static uint64_t rng_state;
static uint32_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}

static const char *const vocabulary[] = {
	"module", "import", "fmu", "inner", "semantic", "adaptation", "at", "for", "coupled",
	"as", "composed", "of", "without", "master", "reactive", "delayed", "moore", "mealy",
	"input", "output", "ports", "with", "param", "control", "in", "out", "var", "rules",
	"return", "if", "else", "break", "true", "false", "not", "and", "or", "otherwise",
	"Real", "Integer", "String", "Bool", "H", "h", "t", "dt", "e", "MAX", "signal", "now",
	"prev", "do_step", "save_state", "rollback", "discard", "is_close", "is_set",
	"get_next_time_step", "elapsed", "last_execution_time", "floor", "ceil", "round", "max",
	"min", "abs", "successive", "substitution", "starts", "delay", "multiply", "rate",
	"times", "interpolation", "order", "no", "first", "second", "third", "fourth", "zero",
	"hold", "ZOH", "FOH", "crossing", "absolute", "relative", "tolerance", "quantize",
	"every", "offset", "triggered", "by", "periodic", "multiplied", "implied", "extract",
	"directionalderivative", "timederivative", "(", ")", "{", "}", "[", "]", ",", ";", ".",
	"..", ":=", "->", "-->", "<-", "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=",
	">!", "<!", "=", "^", "x", "w", "^rate", "42", "1.5", "1e-5", "\"s\"", "'q'", "\n",
	"// c\n", "/* c */", "@", "\t",
};

static void parse__megabyte_of_random_tokens__returns_without_crash(void **state)
{
	(void)state;
	const size_t size = 1u << 20;
	char *text = malloc(size + 64);
	rng_state = 20240601;
	size_t n = 0;
	while (n < size) {
		const char *w = vocabulary[rng() % (sizeof vocabulary / sizeof vocabulary[0])];
		n += (size_t)sprintf(text + n, "%s ", w);
	}
	Parsed *p = parse_buf(text, n);
	assert_null(p->root);
	assert_true(p->diaglen > 0);
	parsed_free(p);

	/* Random bytes, NULs and high bytes among them. */
	for (size_t i = 0; i < size; i++)
		text[i] = (char)(rng() & 0xff);
	text[size] = '\0';
	p = parse_buf(text, size);
	assert_null(p->root);
	parsed_free(p);

	/* A megabyte of bytes that are no token at all: the lexer reads to the end and the
	 * sink stops printing after its cap. */
	static const char junk[] = "@#$?`~|&%\\:!\x01\x7f\x80\xff\xc3\xa9";
	for (size_t i = 0; i < size; i++)
		text[i] = junk[rng() % (sizeof junk - 1)];
	text[size] = '\0';
	text[size / 2] = '\0';
	p = parse_buf(text, size);
	assert_null(p->root);
	assert_non_null(strstr(p->diag, "sacc: too many errors, stopping output here\n"));
	parsed_free(p);

	/* Many short runs start from a valid prefix, so they get deeper into the grammar. */
	for (int run = 0; run < 400; run++) {
		n = (size_t)sprintf(text, "%s", run % 2 ? HEAD "out rules { " : HEAD "control rules { ");
		int ntok = 1 + (int)(rng() % 40);
		for (int k = 0; k < ntok; k++) {
			const char *w = vocabulary[rng() % (sizeof vocabulary / sizeof vocabulary[0])];
			n += (size_t)sprintf(text + n, "%s ", w);
		}
		p = parse_buf(text, n);
		if (p->root)
			free(round_trip(p->root, 1));
		parsed_free(p);
	}
	free(text);
}

static void parse__megabyte_valid_file__parses_and_prints(void **state)
{
	(void)state;
	/* Many adaptations of moderate size: a big file is not a deep one. */
	StrBuf sb;
	sb_init(&sb);
	int n = 0;
	while (sb.len < (1u << 20)) {
		sb_printf(&sb, "semantic adaptation s%d at \"s%d.fmu\"\n\tfor inner fmu W w\n"
			       "control rules { var k := %d; do_step(w, t, H); return H / k; }\n"
			       "out rules { w.y > %d -> { } --> { s%d.o := w.y * 2; }; }\n",
			  n, n, n + 1, n, n);
		n++;
	}
	Parsed *p = parse_text(sb_str(&sb));
	assert_non_null(p->root);
	assert_int_equal(ast_count(p->root->list2), n);
	free(round_trip(p->root, 1));
	parsed_free(p);
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__empty_file__gives_an_empty_file_node),
		cmocka_unit_test(parse__imports_and_module__fill_the_file_node),
		cmocka_unit_test(parse__fmu_declaration__type_instance_path_and_ports),
		cmocka_unit_test(parse__fmu_composed_of__lists_the_parts),
		cmocka_unit_test(parse__top_level_connections__with_and_without_owner),
		cmocka_unit_test(parse__several_elements__keep_their_order),
		cmocka_unit_test(parse__adaptation_header__every_kind_combination),
		cmocka_unit_test(parse__adaptation_header__fields_and_location),
		cmocka_unit_test(parse__older_two_name_header__warns_and_keeps_the_instance),
		cmocka_unit_test(parse__inner_fmu__kinds_path_and_port_lists),
		cmocka_unit_test(parse__inner_fmu__second_port_clause_of_a_kind_is_an_error),
		cmocka_unit_test(parse__for_fmu__refers_to_fmus_declared_elsewhere),
		cmocka_unit_test(parse__coupled_as__gives_the_connection_list),
		cmocka_unit_test(parse__older_with_couplings__become_the_adaptation_couplings),
		cmocka_unit_test(parse__ports__every_part_in_order),
		cmocka_unit_test(parse__port_units__are_kept_without_blanks),
		cmocka_unit_test(parse__params__comma_lists_with_optional_types),
		cmocka_unit_test(parse__storage_variables__control_in_and_out),
		cmocka_unit_test(parse__control_rules__every_statement),
		cmocka_unit_test(parse__if_else__chains_and_nesting),
		cmocka_unit_test(parse__control_block_form__is_marked),
		cmocka_unit_test(parse__declarative_control__every_form),
		cmocka_unit_test(parse__successive_substitution__ports_and_tolerances),
		cmocka_unit_test(parse__delay__one_or_two_ports),
		cmocka_unit_test(parse__multiply_rate__each_interpolation_form),
		cmocka_unit_test(parse__interpolation_without_multiply__is_an_error),
		cmocka_unit_test(parse__derivative_rules__with_and_extract),
		cmocka_unit_test(parse__general_rules__keep_their_order_with_params_before),
		cmocka_unit_test(parse__rule_settings__crossing_and_output_functions),
		cmocka_unit_test(parse__rules_block_vars__come_before_the_rules),
		cmocka_unit_test(parse__data_rules__every_shape),
		cmocka_unit_test(parse__quantize__its_three_forms),
		cmocka_unit_test(parse__loop_rules__inside_rule_blocks),
		cmocka_unit_test(parse__expressions__precedence_from_or_down_to_unary),
		cmocka_unit_test(parse__expressions__left_associative_arithmetic_and_logic),
		cmocka_unit_test(parse__expressions__every_comparison_operator),
		cmocka_unit_test(parse__expressions__larrow_is_less_than_a_negation),
		cmocka_unit_test(parse__expressions__minus_is_binary_or_unary_by_position),
		cmocka_unit_test(parse__expressions__literals_and_references),
		cmocka_unit_test(parse__expressions__keyvars_and_signals),
		cmocka_unit_test(parse__expressions__every_builtin_with_its_arities),
		cmocka_unit_test(parse__spec_torque_sensor_example__parses_unchanged),
		cmocka_unit_test(parse__original_window_script__parses_without_error),
		cmocka_unit_test(parse__original_loop_script__with_couplings_parse),
		cmocka_unit_test(parse__original_rate_script__in_vars_after_control_parse),
		cmocka_unit_test(parse__original_lazy_script__parses_without_error),
		cmocka_unit_test(parse__original_threshold_script__parses_without_error),
		cmocka_unit_test(parse__several_original_scripts__in_one_file),
		cmocka_unit_test(parse__syntax_error__names_the_token_and_what_was_expected),
		cmocka_unit_test(parse__syntax_error__only_the_first_is_reported),
		cmocka_unit_test(parse__syntax_error__unexpected_end_of_file),
		cmocka_unit_test(parse__reserved_word_as_name__suggests_the_caret_escape),
		cmocka_unit_test(parse__import_after_module__notes_that_imports_come_first),
		cmocka_unit_test(parse__literal_out_of_range__is_an_error),
		cmocka_unit_test(parse__deep_parentheses__report_nesting_too_deep),
		cmocka_unit_test(parse__long_left_chain__reports_nesting_too_deep),
		cmocka_unit_test(parse__megabyte_of_random_tokens__returns_without_crash),
		cmocka_unit_test(parse__megabyte_valid_file__parses_and_prints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
