/* test_parse_expr.c — the parser on expressions: precedence and associativity, every
 * operator, literals and references, keyvars and signals, every builtin.  Each is compared
 * as an S-expression and as the printer writes it (assert_expr). */
#include "parse_test.h"

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
	/* Comparisons do not chain: after `a < b` only the ';' ending the rule can come. */
	Parsed *p = parse_bad(HEAD "out rules { true -> x := a < b < c; }\n");
	assert_non_null(strstr(p->diag, "t.sa:3:31: error: syntax error: expected ';' before '<'"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__expressions__precedence_from_or_down_to_unary),
		cmocka_unit_test(parse__expressions__left_associative_arithmetic_and_logic),
		cmocka_unit_test(parse__expressions__every_comparison_operator),
		cmocka_unit_test(parse__expressions__larrow_is_less_than_a_negation),
		cmocka_unit_test(parse__expressions__minus_is_binary_or_unary_by_position),
		cmocka_unit_test(parse__expressions__literals_and_references),
		cmocka_unit_test(parse__expressions__keyvars_and_signals),
		cmocka_unit_test(parse__expressions__every_builtin_with_its_arities),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
