/* test_parse_errors.c — the parser on bad input: syntax errors checked by their exact
 * text, including the quoted line; robustness (deep nesting, a megabyte of random tokens)
 * by returning without a crash. */
#include "parse_test.h"

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

	/* A missing ';' is reported right after the token it should follow, on its line. */
	p = parse_bad(HEAD "out rules {\n\ttrue -> x := 1\n}\n");
	assert_string_equal(p->diag, "t.sa:4:16: error: syntax error: expected ';' before '}'\n"
				     "     4 | \ttrue -> x := 1\n"
				     "       | \t              ^\n");
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

static void parse__missing_semicolon__reported_after_the_token_it_should_follow(void **state)
{
	(void)state;
	/* Not at the next statement, lines below: at the end of the one it ends, past a
	 * comment. */
	Parsed *p = parse_bad(HEAD "control rules {\n\tx := 1 // set x\n\n\ty := 2;\n\treturn H;\n}\n");
	assert_string_equal(p->diag, "t.sa:4:8: error: syntax error: expected ';' before "
				     "identifier 'y'\n"
				     "     4 | \tx := 1 // set x\n"
				     "       | \t      ^\n");
	parsed_free(p);

	/* On one line, where only a ';' could follow. */
	p = parse_bad(HEAD "control rules { x := 1 return H; }\n");
	assert_string_equal(p->diag, "t.sa:3:23: error: syntax error: expected ';' before 'return'\n"
				     "     3 | control rules { x := 1 return H; }\n"
				     "       |                       ^\n");
	parsed_free(p);

	/* Where a ';' could not follow, the token is what is wrong. */
	p = parse_bad(HEAD "control rules { x := (1 + 2 return H; }\n");
	assert_non_null(strstr(p->diag, "t.sa:3:29: error: syntax error: unexpected 'return'; "
					"expected ')'\n"));
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
	assert_string_equal(p->diag, "t.sa:4:21: error: syntax error: expected ';' before end "
				     "of file\n"
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
		cmocka_unit_test(parse__syntax_error__names_the_token_and_what_was_expected),
		cmocka_unit_test(parse__missing_semicolon__reported_after_the_token_it_should_follow),
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
