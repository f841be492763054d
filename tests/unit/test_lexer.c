/* test_lexer.c — the re2c lexer (grammar/sa_lexer.re), driven directly through lex_init
 * and lex_next: every token kind, the spellings of numbers, strings and comments,
 * locations, the reserved words of docs/language.md, sections 1 and 14, and the exact text of
 * each lexical error.
 *
 * String values (the unescaping) are checked through the parser, the only place that
 * computes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "parse.h"
#include "sa_grammar.h"

/* ---- helpers ---------------------------------------------------------------------------- */

#define MAX_TOKS 64

/* One lexing run over a buffer: its tokens up to and including the end, and whatever the
 * lexer reported, captured as text. */
typedef struct Lexed {
	int code[MAX_TOKS];
	Token tok[MAX_TOKS];
	int n;      /* tokens before the end */
	int errors; /* the lexer's own count */
	char *diag;
	size_t diaglen;
} Lexed;

/* text must have a NUL at text[len] (C literals do, even with NULs inside them). */
static Lexed *lex_buf(const char *text, size_t len)
{
	Lexed *r = calloc(1, sizeof *r);
	FILE *f = open_memstream(&r->diag, &r->diaglen);
	DiagSink *d = diag_new(f);
	diag_add_source(d, "t.sa", text, len);
	Lexer lx;
	lex_init(&lx, "t.sa", text, len, d);
	for (;;) {
		Token t;
		int code = lex_next(&lx, &t);
		if (r->n < MAX_TOKS) {
			r->code[r->n] = code;
			r->tok[r->n] = t;
		}
		if (code == 0)
			break;
		r->n++;
	}
	r->errors = lx.errors;
	diag_free(d);
	fclose(f);
	return r;
}

static Lexed *lex_str(const char *text)
{
	return lex_buf(text, strlen(text));
}

static void lexed_free(Lexed *r)
{
	free(r->diag);
	free(r);
}

/* The token's text as a NUL-terminated string (static, valid until the next call). */
static const char *tok_text(const Token *t)
{
	static char buf[256];
	int n = t->n < (int)sizeof buf - 1 ? t->n : (int)sizeof buf - 1;
	memcpy(buf, t->s, (size_t)n);
	buf[n] = '\0';
	return buf;
}

/* Asserts the codes of the tokens before the end, then that the end follows. */
static void assert_codes_at(const Lexed *r, const int *want, int nwant, const char *file, int line)
{
	for (int i = 0; i < nwant && i < r->n; i++) {
		if (r->code[i] != want[i]) {
			print_error("token %d: got %s '%s', expected %s\n", i,
				    lex_token_name(r->code[i]), tok_text(&r->tok[i]),
				    lex_token_name(want[i]));
			_fail(file, line);
		}
	}
	if (r->n != nwant) {
		print_error("got %d tokens, expected %d\n", r->n, nwant);
		_fail(file, line);
	}
}
#define assert_codes(r, ...)                                                                \
	do {                                                                                \
		static const int want_[] = {__VA_ARGS__};                                   \
		assert_codes_at((r), want_, (int)(sizeof want_ / sizeof want_[0]), __FILE__, \
				__LINE__);                                                  \
	} while (0)

/* The diagnostics a text gives when parsed as a file, and the tree (NULL on errors). */
typedef struct Parsed {
	Arena *arena;
	Node *root;
	char *diag;
	size_t diaglen;
} Parsed;

static Parsed *parse_str(const char *text)
{
	Parsed *p = calloc(1, sizeof *p);
	FILE *f = open_memstream(&p->diag, &p->diaglen);
	DiagSink *d = diag_new(f);
	diag_add_source(d, "t.sa", text, strlen(text));
	p->arena = arena_new();
	p->root = parse_source(p->arena, d, "t.sa", text, strlen(text));
	diag_free(d);
	fclose(f);
	return p;
}

static void parsed_free(Parsed *p)
{
	arena_free(p->arena);
	free(p->diag);
	free(p);
}

/* ---- token kinds ------------------------------------------------------------------------ */

typedef struct Spelling {
	const char *text;
	int code;
} Spelling;

/* Every reserved word with its token: docs/language.md, section 1 (reserved words). */
static const Spelling keywords[] = {
	{"module", TK_MODULE}, {"import", TK_IMPORT}, {"fmu", TK_FMU}, {"inner", TK_INNER},
	{"semantic", TK_SEMANTIC}, {"adaptation", TK_ADAPTATION}, {"at", TK_AT},
	{"for", TK_FOR}, {"coupled", TK_COUPLED}, {"as", TK_AS}, {"composed", TK_COMPOSED},
	{"without", TK_WITHOUT}, {"master", TK_MASTER}, {"reactive", TK_REACTIVE},
	{"delayed", TK_DELAYED}, {"moore", TK_MOORE}, {"mealy", TK_MEALY},
	{"input", TK_INPUT}, {"output", TK_OUTPUT}, {"ports", TK_PORTS}, {"with", TK_WITH},
	{"param", TK_PARAM}, {"control", TK_CONTROL}, {"in", TK_IN}, {"out", TK_OUT},
	{"var", TK_VAR}, {"rules", TK_RULES}, {"return", TK_RETURN}, {"if", TK_IF},
	{"else", TK_ELSE}, {"break", TK_BREAK}, {"true", TK_TRUE}, {"false", TK_FALSE},
	{"not", TK_NOT}, {"and", TK_AND}, {"or", TK_OR}, {"otherwise", TK_OTHERWISE},
	{"Real", TK_KW_REAL}, {"Integer", TK_KW_INTEGER}, {"String", TK_KW_STRING},
	{"Bool", TK_KW_BOOL}, {"H", TK_KW_BIGH}, {"h", TK_KW_H}, {"t", TK_KW_T},
	{"dt", TK_KW_DT}, {"e", TK_KW_E}, {"MAX", TK_KW_MAX}, {"signal", TK_SIGNAL},
	{"now", TK_NOW}, {"prev", TK_PREV}, {"do_step", TK_DO_STEP},
	{"save_state", TK_SAVE_STATE}, {"rollback", TK_ROLLBACK}, {"discard", TK_DISCARD},
	{"is_close", TK_IS_CLOSE}, {"is_set", TK_IS_SET},
	{"get_next_time_step", TK_GET_NEXT_TIME_STEP}, {"elapsed", TK_ELAPSED},
	{"last_execution_time", TK_LAST_EXECUTION_TIME}, {"floor", TK_FLOOR},
	{"ceil", TK_CEIL}, {"round", TK_ROUND}, {"max", TK_MAX}, {"min", TK_MIN},
	{"abs", TK_ABS},
	{"successive", TK_SUCCESSIVE}, {"substitution", TK_SUBSTITUTION},
	{"starts", TK_STARTS}, {"delay", TK_DELAY}, {"multiply", TK_MULTIPLY},
	{"rate", TK_RATE}, {"times", TK_TIMES}, {"interpolation", TK_INTERPOLATION},
	{"order", TK_ORDER}, {"no", TK_NO}, {"first", TK_FIRST}, {"second", TK_SECOND},
	{"third", TK_THIRD}, {"fourth", TK_FOURTH}, {"zero", TK_ZERO}, {"hold", TK_HOLD},
	{"ZOH", TK_KW_ZOH}, {"FOH", TK_KW_FOH}, {"crossing", TK_CROSSING},
	{"absolute", TK_ABSOLUTE}, {"relative", TK_RELATIVE}, {"tolerance", TK_TOLERANCE},
	{"quantize", TK_QUANTIZE}, {"every", TK_EVERY}, {"offset", TK_OFFSET},
	{"triggered", TK_TRIGGERED}, {"by", TK_BY}, {"periodic", TK_PERIODIC},
	{"multiplied", TK_MULTIPLIED}, {"implied", TK_IMPLIED}, {"extract", TK_EXTRACT},
	{"directionalderivative", TK_DIRECTIONALDERIVATIVE},
	{"timederivative", TK_TIMEDERIVATIVE},
};

static const Spelling punctuation[] = {
	{"(", TK_LPAREN}, {")", TK_RPAREN}, {"{", TK_LBRACE}, {"}", TK_RBRACE},
	{"[", TK_LBRACKET}, {"]", TK_RBRACKET}, {",", TK_COMMA}, {";", TK_SEMI},
	{".", TK_DOT}, {"..", TK_DOTDOT}, {":=", TK_ASSIGN}, {"->", TK_ARROW},
	{"-->", TK_LONGARROW}, {"<-", TK_LARROW}, {"+", TK_PLUS}, {"-", TK_MINUS},
	{"*", TK_STAR}, {"/", TK_SLASH}, {"<", TK_LT}, {"<=", TK_LE}, {">", TK_GT},
	{">=", TK_GE}, {"==", TK_EQEQ}, {"!=", TK_NE}, {">!", TK_CROSSUP},
	{"<!", TK_CROSSDOWN}, {"=", TK_EQ}, {"^", TK_CARET},
};

/* One example of each token that has a value. */
static const Spelling valued[] = {
	{"name", TK_ID}, {"42", TK_INT}, {"4.2", TK_REAL}, {"\"s\"", TK_STRING},
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static void lexer__each_spelling_alone__gives_one_token_spanning_it(void **state)
{
	(void)state;
	const Spelling *tables[] = {keywords, punctuation, valued};
	size_t sizes[] = {COUNT(keywords), COUNT(punctuation), COUNT(valued)};
	for (size_t t = 0; t < 3; t++) {
		for (size_t i = 0; i < sizes[t]; i++) {
			const Spelling *s = &tables[t][i];
			Lexed *r = lex_str(s->text);
			if (r->n != 1 || r->code[0] != s->code)
				fail_msg("'%s' gave %d tokens, the first %s, expected %s", s->text,
					 r->n, lex_token_name(r->code[0]), lex_token_name(s->code));
			assert_int_equal(r->tok[0].n, (int)strlen(s->text));
			assert_ptr_equal(r->tok[0].s, s->text);
			assert_int_equal(r->tok[0].loc.line, 1);
			assert_int_equal(r->tok[0].loc.col, 1);
			assert_int_equal(r->tok[0].loc.len, (int)strlen(s->text));
			assert_int_equal(r->errors, 0);
			assert_int_equal(r->diaglen, 0);
			lexed_free(r);
		}
	}
}

static void lexer__token_tables__cover_every_token_code(void **state)
{
	(void)state;
	/* TK_INNER_END is a precedence marker of the grammar, never lexed. */
	for (int code = 1; code < TK_INNER_END; code++) {
		int found = 0;
		for (size_t i = 0; i < COUNT(keywords); i++)
			found += keywords[i].code == code;
		for (size_t i = 0; i < COUNT(punctuation); i++)
			found += punctuation[i].code == code;
		for (size_t i = 0; i < COUNT(valued); i++)
			found += valued[i].code == code;
		if (found != 1)
			fail_msg("token %s appears %d times in the tables", lex_token_name(code), found);
	}
}

static void lexer__empty_input__gives_end_of_file_repeatedly(void **state)
{
	(void)state;
	Lexer lx;
	Token t;
	lex_init(&lx, "t.sa", "", 0, NULL);
	assert_int_equal(lex_next(&lx, &t), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.loc.line, 1);
	assert_int_equal(t.loc.col, 1);
	assert_int_equal(lex_next(&lx, &t), 0);
	assert_int_equal(lex_next(&lx, &t), 0);

	Lexed *r = lex_str("  \t\n\r\n \v\f  ");
	assert_int_equal(r->n, 0);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->tok[0].loc.line, 3);
	lexed_free(r);
}

static void lexer__token_names__read_well_in_messages(void **state)
{
	(void)state;
	assert_string_equal(lex_token_name(0), "end of file");
	assert_string_equal(lex_token_name(TK_ID), "identifier");
	assert_string_equal(lex_token_name(TK_INT), "integer");
	assert_string_equal(lex_token_name(TK_REAL), "real number");
	assert_string_equal(lex_token_name(TK_STRING), "string");
	assert_string_equal(lex_token_name(TK_ARROW), "'->'");
	assert_string_equal(lex_token_name(TK_LONGARROW), "'-->'");
	assert_string_equal(lex_token_name(TK_KW_BIGH), "'H'");
	assert_string_equal(lex_token_name(TK_RATE), "'rate'");
	assert_string_equal(lex_token_name(-1), "token");
	assert_string_equal(lex_token_name(TK_INNER_END), "token");
	assert_string_equal(lex_token_name(100000), "token");
	for (size_t i = 0; i < COUNT(keywords); i++) {
		char want[64];
		snprintf(want, sizeof want, "'%s'", keywords[i].text);
		assert_string_equal(lex_token_name(keywords[i].code), want);
	}
	for (size_t i = 0; i < COUNT(punctuation); i++) {
		char want[64];
		snprintf(want, sizeof want, "'%s'", punctuation[i].text);
		assert_string_equal(lex_token_name(punctuation[i].code), want);
	}
}

/* ---- reserved words --------------------------------------------------------------------- */

/* docs/language.md section 1's list of reserved words, typed from that list in its order.  The
 * spec also lists `of`; sacc reads `of` as a plain identifier that only `composed of` and
 * `interpolation of order` look at (see the next test). */
static const char *const spec_reserved[] = {
	"module", "import", "fmu", "inner", "semantic", "adaptation", "at", "for", "coupled",
	"as", "composed", "without", "master", "reactive", "delayed", "moore", "mealy",
	"input", "output", "ports", "with", "param", "control", "in", "out", "var", "rules",
	"return", "if", "else", "break", "true", "false", "not", "and", "or", "otherwise",
	"Real", "Integer", "String", "Bool", "H", "h", "t", "dt", "e", "MAX", "signal", "now",
	"prev", "do_step", "save_state", "rollback", "discard", "is_close", "is_set",
	"get_next_time_step", "elapsed", "last_execution_time", "floor", "ceil", "round",
	"max", "min", "abs",
	/* section 7 */
	"successive", "substitution", "starts", "delay", "multiply", "rate", "times",
	"interpolation", "order", "no", "first", "second", "third", "fourth", "zero", "hold",
	"ZOH", "FOH", "crossing", "absolute", "relative", "tolerance", "quantize", "every",
	"offset", "triggered", "by", "periodic", "multiplied", "implied", "extract",
	"directionalderivative", "timederivative",
};

static void lexer__spec_reserved_words__are_all_keywords(void **state)
{
	(void)state;
	for (size_t i = 0; i < COUNT(spec_reserved); i++) {
		if (!lex_is_keyword(spec_reserved[i]))
			fail_msg("'%s' is reserved by docs/language.md but not a keyword", spec_reserved[i]);
		Lexed *r = lex_str(spec_reserved[i]);
		assert_int_equal(r->n, 1);
		assert_int_not_equal(r->code[0], TK_ID);
		lexed_free(r);
	}
	/* And the lexer has no keyword that list does not have. */
	assert_int_equal(COUNT(spec_reserved), COUNT(keywords));
}

static void lexer__non_keywords__are_identifiers(void **state)
{
	(void)state;
	static const char *const names[] = {
		"of", "foo", "Rate", "RATE", "rates", "Real_", "real", "integer", "bool", "string",
		"T", "E", "DT", "Max", "max_", "inputs", "x1", "_", "_t", "h2", "min_h", "tt",
		"ee", "hold_", "do_steps", "zoh", "foh", "Signal", "window", "obstacle",
		"fmi", "isolated",
	};
	for (size_t i = 0; i < COUNT(names); i++) {
		if (lex_is_keyword(names[i]))
			fail_msg("'%s' should not be a keyword", names[i]);
		Lexed *r = lex_str(names[i]);
		assert_codes(r, TK_ID);
		assert_string_equal(tok_text(&r->tok[0]), names[i]);
		lexed_free(r);
	}
	/* Not a single word at all. */
	assert_false(lex_is_keyword(""));
	assert_false(lex_is_keyword("^rate"));
	assert_false(lex_is_keyword("rate x"));
	assert_false(lex_is_keyword("->"));
	assert_false(lex_is_keyword("42"));
	assert_false(lex_is_keyword("a_name_that_is_far_longer_than_sixty_four_characters_in_all_xxxx"));
}

/* ---- identifiers and numbers ------------------------------------------------------------ */

static void lexer__identifiers__take_letters_digits_and_underscores(void **state)
{
	(void)state;
	Lexed *r = lex_str("abc _x9 A_b_C x1y2 t0 hh e1 MAXIMUM");
	assert_codes(r, TK_ID, TK_ID, TK_ID, TK_ID, TK_ID, TK_ID, TK_ID, TK_ID);
	assert_string_equal(tok_text(&r->tok[0]), "abc");
	assert_string_equal(tok_text(&r->tok[1]), "_x9");
	assert_string_equal(tok_text(&r->tok[2]), "A_b_C");
	assert_string_equal(tok_text(&r->tok[3]), "x1y2");
	assert_string_equal(tok_text(&r->tok[4]), "t0");
	assert_string_equal(tok_text(&r->tok[7]), "MAXIMUM");
	lexed_free(r);

	/* A digit cannot start one: 9abc is an integer then a name. */
	r = lex_str("9abc");
	assert_codes(r, TK_INT, TK_ID);
	lexed_free(r);
}

static void lexer__caret_escape__gives_the_plain_identifier(void **state)
{
	(void)state;
	Lexed *r = lex_str("^rate ^t ^foo ^in");
	assert_codes(r, TK_ID, TK_ID, TK_ID, TK_ID);
	/* The value leaves the caret out; the location covers it. */
	assert_string_equal(tok_text(&r->tok[0]), "rate");
	assert_int_equal(r->tok[0].loc.col, 1);
	assert_int_equal(r->tok[0].loc.len, 5);
	assert_string_equal(tok_text(&r->tok[1]), "t");
	assert_int_equal(r->tok[1].loc.col, 7);
	assert_int_equal(r->tok[1].loc.len, 2);
	assert_string_equal(tok_text(&r->tok[2]), "foo");
	assert_string_equal(tok_text(&r->tok[3]), "in");
	lexed_free(r);

	/* Not followed by a name it is the caret of unit exponents. */
	r = lex_str("^ rate s^2 s^-1");
	assert_codes(r, TK_CARET, TK_RATE, TK_ID, TK_CARET, TK_INT, TK_ID, TK_CARET, TK_MINUS,
		     TK_INT);
	lexed_free(r);
}

static void lexer__integers__are_digit_runs(void **state)
{
	(void)state;
	Lexed *r = lex_str("0 42 007 18446744073709551616");
	assert_codes(r, TK_INT, TK_INT, TK_INT, TK_INT);
	assert_string_equal(tok_text(&r->tok[1]), "42");
	assert_string_equal(tok_text(&r->tok[2]), "007");
	assert_string_equal(tok_text(&r->tok[3]), "18446744073709551616");
	lexed_free(r);
}

static void lexer__reals__every_spelling_is_one_real_token(void **state)
{
	(void)state;
	static const char *const reals[] = {
		"1.5", ".5", "5.", "1e-5", "1E+3", "1e5", "2.5e3", "0.0", "3.E2", ".5e-1", "10E10",
		"1.0e+00",
	};
	for (size_t i = 0; i < COUNT(reals); i++) {
		Lexed *r = lex_str(reals[i]);
		if (r->n != 1 || r->code[0] != TK_REAL)
			fail_msg("'%s' gave %d tokens, the first %s", reals[i], r->n,
				 lex_token_name(r->code[0]));
		assert_string_equal(tok_text(&r->tok[0]), reals[i]);
		lexed_free(r);
	}
	/* An exponent needs digits: `1e` is an integer and the keyword e, `1e-x` goes on
	 * with a minus. */
	Lexed *r = lex_str("1e 1e-x");
	assert_codes(r, TK_INT, TK_KW_E, TK_INT, TK_KW_E, TK_MINUS, TK_ID);
	lexed_free(r);
}

static void lexer__integer_range__lexes_as_int_dotdot_int(void **state)
{
	(void)state;
	Lexed *r = lex_str("0..10");
	assert_codes(r, TK_INT, TK_DOTDOT, TK_INT);
	assert_string_equal(tok_text(&r->tok[0]), "0");
	assert_string_equal(tok_text(&r->tok[2]), "10");
	assert_int_equal(r->tok[1].loc.col, 2);
	lexed_free(r);

	r = lex_str("0 .. 10 1..N a..b 1.5..2");
	assert_codes(r, TK_INT, TK_DOTDOT, TK_INT, TK_INT, TK_DOTDOT, TK_ID, TK_ID, TK_DOTDOT,
		     TK_ID, TK_REAL, TK_DOTDOT, TK_INT);
	assert_string_equal(tok_text(&r->tok[9]), "1.5");
	lexed_free(r);
}

static void lexer__minus__is_always_its_own_token(void **state)
{
	(void)state;
	Lexed *r = lex_str("x-1");
	assert_codes(r, TK_ID, TK_MINUS, TK_INT);
	lexed_free(r);
	r = lex_str("-1");
	assert_codes(r, TK_MINUS, TK_INT);
	lexed_free(r);
	r = lex_str("x - 1");
	assert_codes(r, TK_ID, TK_MINUS, TK_INT);
	lexed_free(r);
	r = lex_str("-1.5 2-3 --x x-.5");
	assert_codes(r, TK_MINUS, TK_REAL, TK_INT, TK_MINUS, TK_INT, TK_MINUS, TK_MINUS, TK_ID,
		     TK_ID, TK_MINUS, TK_REAL);
	lexed_free(r);
	/* The sign of an exponent belongs to the real. */
	r = lex_str("1e-5-2");
	assert_codes(r, TK_REAL, TK_MINUS, TK_INT);
	assert_string_equal(tok_text(&r->tok[0]), "1e-5");
	lexed_free(r);
}

/* ---- operators -------------------------------------------------------------------------- */

static void lexer__arrows_and_assignment__take_the_longest_match(void **state)
{
	(void)state;
	Lexed *r = lex_str("a->b a-->b x<-1 x< -1 v:=2 a>!b a<!b");
	assert_codes(r, TK_ID, TK_ARROW, TK_ID, TK_ID, TK_LONGARROW, TK_ID, TK_ID, TK_LARROW,
		     TK_INT, TK_ID, TK_LT, TK_MINUS, TK_INT, TK_ID, TK_ASSIGN, TK_INT, TK_ID,
		     TK_CROSSUP, TK_ID, TK_ID, TK_CROSSDOWN, TK_ID);
	lexed_free(r);

	r = lex_str("a<=b a>=b a==b a!=b a=b a<b a>b");
	assert_codes(r, TK_ID, TK_LE, TK_ID, TK_ID, TK_GE, TK_ID, TK_ID, TK_EQEQ, TK_ID, TK_ID,
		     TK_NE, TK_ID, TK_ID, TK_EQ, TK_ID, TK_ID, TK_LT, TK_ID, TK_ID, TK_GT, TK_ID);
	lexed_free(r);

	/* Runs of minus and greater-than. */
	r = lex_str("--> ---> -> - > : =");
	assert_codes(r, TK_LONGARROW, TK_MINUS, TK_LONGARROW, TK_ARROW, TK_MINUS, TK_GT, TK_EQ);
	assert_int_equal(r->errors, 1); /* the lone ':' */
	lexed_free(r);
}

/* ---- strings ---------------------------------------------------------------------------- */

static void lexer__strings__either_quote_and_token_keeps_them(void **state)
{
	(void)state;
	Lexed *r = lex_str("\"abc\" 'def' \"it's\" 'say \"hi\"' \"a\\\"b\" 'c\\'d' \"\" ''");
	assert_codes(r, TK_STRING, TK_STRING, TK_STRING, TK_STRING, TK_STRING, TK_STRING,
		     TK_STRING, TK_STRING);
	assert_string_equal(tok_text(&r->tok[0]), "\"abc\"");
	assert_string_equal(tok_text(&r->tok[1]), "'def'");
	assert_string_equal(tok_text(&r->tok[2]), "\"it's\"");
	assert_string_equal(tok_text(&r->tok[3]), "'say \"hi\"'");
	assert_string_equal(tok_text(&r->tok[4]), "\"a\\\"b\"");
	assert_string_equal(tok_text(&r->tok[5]), "'c\\'d'");
	assert_string_equal(tok_text(&r->tok[6]), "\"\"");
	assert_int_equal(r->errors, 0);
	lexed_free(r);

	/* Comment markers and non-ASCII bytes inside a string are just text. */
	r = lex_str("\"// not /* a comment\" \"\xc3\xa9t\xc3\xa9\"");
	assert_codes(r, TK_STRING, TK_STRING);
	assert_int_equal(r->errors, 0);
	lexed_free(r);
}

static const char *port_fmi_name(Parsed *p)
{
	assert_non_null(p->root);
	Node *sa = p->root->list2;
	assert_non_null(sa);
	assert_int_equal(sa->kind, ND_ADAPTATION);
	assert_non_null(sa->a_inports);
	return sa->a_inports->str;
}

static void lexer__string_escapes__are_resolved_in_the_value(void **state)
{
	(void)state;
	static const struct {
		const char *src, *value;
	} cases[] = {
		{"\"plain\"", "plain"},
		{"'single'", "single"},
		{"\"a\\\"b\"", "a\"b"},
		{"'a\\'b'", "a'b"},
		{"\"back\\\\slash\"", "back\\slash"},
		{"\"tab\\there\"", "tab\there"},
		{"\"line\\nbreak\"", "line\nbreak"},
		{"\"cr\\rx\"", "cr\rx"},
		{"\"\\q\\0\\.\"", "q0."},
		{"'it\"s'", "it\"s"},
		{"\"der(x)\"", "der(x)"},
		{"\"\"", ""},
		{"\"\xc3\xa9\"", "\xc3\xa9"},
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char src[256];
		snprintf(src, sizeof src,
			 "semantic adaptation s at \"s.fmu\"\n\tfor inner fmu W w\n"
			 "input ports Real u %s\n",
			 cases[i].src);
		Parsed *p = parse_str(src);
		if (!p->root)
			fail_msg("%s did not parse: %s", cases[i].src, p->diag);
		assert_string_equal(port_fmi_name(p), cases[i].value);
		parsed_free(p);
	}

	/* And the same through a string literal in an expression. */
	Parsed *p = parse_str("semantic adaptation s at 'dir\\\\s.fmu'\n\tfor inner fmu W w\n"
			      "out rules { true -> x := 'a\\tb\\\\'; }\n");
	assert_non_null(p->root);
	Node *sa = p->root->list2;
	assert_string_equal(sa->str, "dir\\s.fmu");
	Node *rule = sa->a_out_rules->list3;
	Node *assign = rule->then->list1;
	assert_int_equal(assign->rhs->kind, ND_STRING);
	assert_string_equal(assign->rhs->str, "a\tb\\");
	parsed_free(p);
}

/* ---- comments and layout ---------------------------------------------------------------- */

static void lexer__comments__are_skipped(void **state)
{
	(void)state;
	Lexed *r = lex_str("a // line comment -> ;\nb /* block\n -> \n */ c /**/ d /* * / ** */ f\n"
			   "g // at the end");
	assert_codes(r, TK_ID, TK_ID, TK_ID, TK_ID, TK_ID, TK_ID);
	assert_string_equal(tok_text(&r->tok[2]), "c");
	assert_int_equal(r->tok[2].loc.line, 4);
	assert_int_equal(r->tok[2].loc.col, 5);
	assert_int_equal(r->tok[5].loc.line, 5);
	lexed_free(r);

	/* Not nested: the first close ends the comment. */
	r = lex_str("/* a /* b */ c */");
	assert_codes(r, TK_ID, TK_STAR, TK_SLASH);
	lexed_free(r);

	/* A slash alone is division, `//` right after a token is still a comment. */
	r = lex_str("a/b a//b");
	assert_codes(r, TK_ID, TK_SLASH, TK_ID, TK_ID);
	lexed_free(r);
}

static void lexer__locations__follow_lines_and_byte_columns(void **state)
{
	(void)state;
	/* A tab is one column: the caret line repeats the tab, so carets still line up. */
	Lexed *r = lex_str("a\n\tbb  cc\n\n  \t-->\r\nx:=1\t;");
	assert_codes(r, TK_ID, TK_ID, TK_ID, TK_LONGARROW, TK_ID, TK_ASSIGN, TK_INT, TK_SEMI);
	static const int want[][3] = {
		{1, 1, 1}, {2, 2, 2}, {2, 6, 2}, {4, 4, 3}, {5, 1, 1}, {5, 2, 2}, {5, 4, 1},
		{5, 6, 1},
	};
	for (int i = 0; i < 8; i++) {
		assert_int_equal(r->tok[i].loc.line, want[i][0]);
		assert_int_equal(r->tok[i].loc.col, want[i][1]);
		assert_int_equal(r->tok[i].loc.len, want[i][2]);
		assert_string_equal(r->tok[i].loc.file, "t.sa");
	}
	/* The end of the file is where the text stops. */
	assert_int_equal(r->tok[8].loc.line, 5);
	assert_int_equal(r->tok[8].loc.col, 7);
	lexed_free(r);

	/* Lines counted inside block comments and across a string error. */
	r = lex_str("/*\n\n*/ a \"open\nb");
	assert_codes(r, TK_ID, TK_ID);
	assert_int_equal(r->tok[0].loc.line, 3);
	assert_int_equal(r->tok[0].loc.col, 4);
	assert_int_equal(r->tok[1].loc.line, 4);
	assert_int_equal(r->tok[1].loc.col, 1);
	lexed_free(r);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void lexer__unterminated_string__reports_at_the_quote(void **state)
{
	(void)state;
	Lexed *r = lex_str("a -> \"abc\nb");
	assert_string_equal(r->diag, "t.sa:1:6: error: missing terminating quote\n"
				     "     1 | a -> \"abc\n"
				     "       |      ^\n");
	/* The rest of the line went with the string; lexing goes on on the next one. */
	assert_codes(r, TK_ID, TK_ARROW, TK_ID);
	assert_int_equal(r->errors, 1);
	lexed_free(r);

	r = lex_str("x := 'no end");
	assert_string_equal(r->diag, "t.sa:1:6: error: missing terminating quote\n"
				     "     1 | x := 'no end\n"
				     "       |      ^\n");
	assert_codes(r, TK_ID, TK_ASSIGN);
	lexed_free(r);

	/* An escaped quote does not close, an escaped newline does not continue. */
	r = lex_str("\"abc\\\"\n\"x\\\ny\"");
	assert_int_equal(r->errors, 3);
	lexed_free(r);
}

static void lexer__unterminated_comment__reports_at_its_start(void **state)
{
	(void)state;
	Lexed *r = lex_str("a\n  /* open\n\n");
	assert_string_equal(r->diag, "t.sa:2:3: error: unterminated comment\n"
				     "     2 |   /* open\n"
				     "       |   ^~\n");
	assert_codes(r, TK_ID);
	assert_int_equal(r->errors, 1);
	lexed_free(r);
}

static void lexer__stray_nul_byte__is_reported_and_skipped(void **state)
{
	(void)state;
	static const char text[] = "a\0b -> c";
	Lexed *r = lex_buf(text, sizeof text - 1);
	/* The quoted line shows the NUL as '?'. */
	assert_string_equal(r->diag, "t.sa:1:2: error: stray NUL byte in source\n"
				     "     1 | a?b -> c\n"
				     "       |  ^\n");
	assert_codes(r, TK_ID, TK_ID, TK_ARROW, TK_ID);
	assert_int_equal(r->errors, 1);
	lexed_free(r);

	/* Inside a string, where it would cut the value short. */
	static const char in_string[] = "x := \"a\0b\";";
	r = lex_buf(in_string, sizeof in_string - 1);
	assert_string_equal(r->diag, "t.sa:1:8: error: stray NUL byte in source\n"
				     "     1 | x := \"a?b\";\n"
				     "       |        ^\n");
	assert_codes(r, TK_ID, TK_ASSIGN, TK_STRING, TK_SEMI);
	lexed_free(r);

	/* A NUL at the very end is still a stray byte, not the end. */
	static const char at_end[] = "a\0";
	r = lex_buf(at_end, sizeof at_end - 1);
	assert_int_equal(r->errors, 1);
	assert_codes(r, TK_ID);
	lexed_free(r);
}

static void lexer__non_ascii_bytes__are_reported_once_per_run(void **state)
{
	(void)state;
	Lexed *r = lex_str("speed\xc3\xa9 := 1;");
	assert_string_equal(r->diag, "t.sa:1:6: error: non-ASCII characters are allowed only in "
				     "strings and comments\n"
				     "     1 | speed\xc3\xa9 := 1;\n"
				     "       |      ^~\n");
	assert_codes(r, TK_ID, TK_ASSIGN, TK_INT, TK_SEMI);
	assert_int_equal(r->errors, 1);
	lexed_free(r);

	/* In a comment they are fine. */
	r = lex_str("// d\xc3\xa9j\xc3\xa0 vu\n/* \xe2\x82\xac */ x");
	assert_codes(r, TK_ID);
	assert_int_equal(r->errors, 0);
	lexed_free(r);
}

static void lexer__unexpected_character__names_it(void **state)
{
	(void)state;
	Lexed *r = lex_str("x @ y");
	assert_string_equal(r->diag, "t.sa:1:3: error: unexpected character '@'\n"
				     "     1 | x @ y\n"
				     "       |   ^\n");
	assert_codes(r, TK_ID, TK_ID);
	assert_int_equal(r->errors, 1);
	lexed_free(r);

	r = lex_str("a\n\tb ! # $ ? ` ~ | & % \\ :");
	assert_int_equal(r->errors, 11);
	assert_codes(r, TK_ID, TK_ID);
	assert_non_null(strstr(r->diag, "t.sa:2:4: error: unexpected character '!'\n"
					"     2 | \tb ! # $ ? ` ~ | & % \\ :\n"
					"       | \t  ^\n"));
	assert_non_null(strstr(r->diag, "t.sa:2:24: error: unexpected character ':'\n"));
	lexed_free(r);

	/* A control byte is shown by its code, and as '?' in the quoted line. */
	r = lex_str("a \x01 b");
	assert_string_equal(r->diag, "t.sa:1:3: error: unexpected byte 0x01\n"
				     "     1 | a ? b\n"
				     "       |   ^\n");
	lexed_free(r);
}

static void lexer__without_a_sink__errors_are_only_counted(void **state)
{
	(void)state;
	Lexer lx;
	Token t;
	lex_init(&lx, "t.sa", "@ x", 3, NULL);
	assert_int_equal(lex_next(&lx, &t), TK_ID);
	assert_int_equal(lx.errors, 1);
	assert_int_equal(lex_next(&lx, &t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lexer__each_spelling_alone__gives_one_token_spanning_it),
		cmocka_unit_test(lexer__token_tables__cover_every_token_code),
		cmocka_unit_test(lexer__empty_input__gives_end_of_file_repeatedly),
		cmocka_unit_test(lexer__token_names__read_well_in_messages),
		cmocka_unit_test(lexer__spec_reserved_words__are_all_keywords),
		cmocka_unit_test(lexer__non_keywords__are_identifiers),
		cmocka_unit_test(lexer__identifiers__take_letters_digits_and_underscores),
		cmocka_unit_test(lexer__caret_escape__gives_the_plain_identifier),
		cmocka_unit_test(lexer__integers__are_digit_runs),
		cmocka_unit_test(lexer__reals__every_spelling_is_one_real_token),
		cmocka_unit_test(lexer__integer_range__lexes_as_int_dotdot_int),
		cmocka_unit_test(lexer__minus__is_always_its_own_token),
		cmocka_unit_test(lexer__arrows_and_assignment__take_the_longest_match),
		cmocka_unit_test(lexer__strings__either_quote_and_token_keeps_them),
		cmocka_unit_test(lexer__string_escapes__are_resolved_in_the_value),
		cmocka_unit_test(lexer__comments__are_skipped),
		cmocka_unit_test(lexer__locations__follow_lines_and_byte_columns),
		cmocka_unit_test(lexer__unterminated_string__reports_at_the_quote),
		cmocka_unit_test(lexer__unterminated_comment__reports_at_its_start),
		cmocka_unit_test(lexer__stray_nul_byte__is_reported_and_skipped),
		cmocka_unit_test(lexer__non_ascii_bytes__are_reported_once_per_run),
		cmocka_unit_test(lexer__unexpected_character__names_it),
		cmocka_unit_test(lexer__without_a_sink__errors_are_only_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
