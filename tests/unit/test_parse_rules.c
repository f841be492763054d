/* test_parse_rules.c — the parser on rules: control rules and their statements, the
 * declarative general rules and control forms, and in and out rules blocks (settings,
 * block vars, data rules, quantize and loop rules).  Each tree is checked field by field
 * and survives the round trip (parse_ok). */
#include "parse_test.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
