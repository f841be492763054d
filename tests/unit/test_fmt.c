/* test_fmt.c — `sacc fmt`'s engine (front/fmt.c): where comments and blank lines go, by
 * hand-written expected layouts, and over every script of the repository that parses:
 * formatting twice gives what formatting once gave, no comment is lost or added, and the
 * formatted script parses to the tree the original did. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ast.h"
#include "diag.h"
#include "fmt.h"
#include "parse.h"
#include "sacc_test.h"
#include "util.h"

#include "assert_contains.h"

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct Formatted {
	int rc;
	char *out;  /* malloc'd */
	char *diag; /* everything reported, malloc'd */
	size_t diaglen;
} Formatted;

static Formatted format_text(const char *name, const char *text, size_t len)
{
	Formatted f = {0};
	FILE *s = open_memstream(&f.diag, &f.diaglen);
	DiagSink *d = diag_new(s);
	diag_add_source(d, name, text, len);
	StrBuf sb;
	sb_init(&sb);
	f.rc = fmt_buffer(name, text, len, &sb, d);
	f.out = strdup(sb_str(&sb));
	sb_free(&sb);
	diag_free(d);
	fclose(s);
	return f;
}

static void formatted_free(Formatted *f)
{
	free(f->out);
	free(f->diag);
}

/* Formats text, checks that the result is expected and a fixed point. */
static void assert_formats_to(const char *text, const char *expected)
{
	Formatted f = format_text("t.sa", text, strlen(text));
	if (f.rc != 0)
		fprintf(stderr, "%s", f.diag);
	assert_int_equal(f.rc, 0);
	assert_string_equal(f.out, expected);
	Formatted g = format_text("t.sa", f.out, strlen(f.out));
	assert_int_equal(g.rc, 0);
	assert_string_equal(g.out, f.out);
	formatted_free(&f);
	formatted_free(&g);
}

/* The comments of a text, as the lexer reports them, a line comment without the blanks
 * ending it (the formatter drops those), sorted: a multiset to compare. */
typedef struct Comments {
	char **text;
	int n, cap;
} Comments;

static void collect(void *ctx, const char *s, int n, Loc loc)
{
	(void)loc;
	Comments *c = ctx;
	if (s[1] == '/')
		while (n > 2 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->text = realloc(c->text, (size_t)c->cap * sizeof *c->text);
	}
	c->text[c->n++] = strndup(s, (size_t)n);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static Comments comments_of(const char *text)
{
	Comments c = {0};
	Lexer lx;
	Token t;
	lex_init(&lx, "t.sa", text, strlen(text), NULL);
	lx.on_comment = collect;
	lx.comment_ctx = &c;
	while (lex_next(&lx, &t) != 0)
		;
	if (c.n)
		qsort(c.text, (size_t)c.n, sizeof *c.text, by_text);
	return c;
}

static void comments_free(Comments *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->text[i]);
	free(c->text);
}

/* The tree of text as `sacc parse` prints it; NULL when it does not parse. */
static char *parse_print(const char *name, const char *text)
{
	FILE *s = fopen("/dev/null", "w");
	DiagSink *d = diag_new(s);
	Arena *a = arena_new();
	Node *root = parse_source(a, d, name, text, strlen(text));
	char *printed = NULL;
	if (root) {
		StrBuf sb;
		sb_init(&sb);
		ast_print_file(&sb, root);
		printed = strdup(sb_str(&sb));
		sb_free(&sb);
	}
	arena_free(a);
	diag_free(d);
	fclose(s);
	return printed;
}

/* ---- placement ---------------------------------------------------------------------------- */

static void fmt__comments_everywhere__each_beside_its_code(void **state)
{
	(void)state;
	assert_formats_to(
		"// top comment\n"
		"module m   // after module\n"
		"\n"
		"\n"
		"\n"
		"/* block before */\n"
		"semantic adaptation reactive mealy w   // trailing\n"
		"at \"w.fmu\"\n"
		"  for inner fmu Window window // inner\n"
		"    at \"window.fmu\"\n"
		"    with output ports Real height (cm), // after height\n"
		"       Real reaction_torque (N.m)\n"
		"input ports Real d (rad) -> window.displacement\n"
		"out rules {\n"
		"  // first rule\n"
		"  true -> { } --> { w.load_torque := - /* neg */ window.reaction_torque; };\n"
		"\n"
		"\n"
		"  // after blank\n"
		"  true -> { } --> {\n"
		"    w.load_torque := (window.reaction_torque + // continued\n"
		"       1.0);\n"
		"    // end of block\n"
		"  };\n"
		"}\n"
		"// end\n",
		/* The three blank lines after the module line become one, as the two before
		 * `// after blank`; where the script has none, the printer's are not added. */
		"// top comment\n"
		"module m // after module\n"
		"\n"
		"/* block before */\n"
		"semantic adaptation reactive mealy w // trailing\n"
		"at \"w.fmu\"\n"
		"\tfor inner fmu Window window // inner\n"
		"\t\tat \"window.fmu\"\n"
		"\t\twith output ports Real height (cm), // after height\n"
		"\t\t\tReal reaction_torque (N.m)\n"
		"input ports Real d (rad) -> window.displacement\n"
		"out rules {\n"
		"\t// first rule\n"
		"\ttrue -> { } --> {\n"
		"\t\tw.load_torque := - /* neg */ window.reaction_torque;\n"
		"\t};\n"
		"\n"
		"\t// after blank\n"
		"\ttrue -> { } --> {\n"
		/* the only comment of the joined line: at its end */
		"\t\tw.load_torque := window.reaction_torque + 1.0; // continued\n"
		/* before a `}`: one level deeper than the brace */
		"\t\t// end of block\n"
		"\t};\n"
		"}\n"
		"// end\n");
}

static void fmt__model_exchange_clauses__comments_kept(void **state)
{
	(void)state;
	assert_formats_to(
		"semantic adaptation reactive mealy w at \"w.fmu\"\n"
		"for inner fmu Osc osc at \"osc.fmu\" /* ME only */\n"
		"with output ports Real x\n"
		"with model exchange // integrated by sacc\n"
		"with solver = implicit and /* tight */ relative tolerance = 1e-8 and max step = 0.01\n"
		"output ports Real x <- osc.x\n",
		"semantic adaptation reactive mealy w\n"
		"at \"w.fmu\"\n"
		"\tfor inner fmu Osc osc\n"
		"\t\tat \"osc.fmu\" /* ME only */\n"
		"\t\twith output ports Real x\n"
		"\t\twith model exchange // integrated by sacc\n"
		"\t\twith solver = implicit and /* tight */ relative tolerance = 1e-8 and max step = 0.01\n"
		"output ports Real x <- osc.x\n");
}

static void fmt__line_comments_in_a_joined_line__first_above(void **state)
{
	(void)state;
	/* A comment on a line of its own goes with the code after it. */
	assert_formats_to(
		"module m\n"
		"fmu A a at \"a.fmu\" output ports Real y // one\n"
		"// two\n"
		"a.y\n"
		"-> a.y\n",
		"module m\n"
		"fmu A a at \"a.fmu\"\n"
		"\toutput ports Real y // one\n"
		"// two\n"
		"a.y -> a.y\n");
	/* Two lines joined: the first line's comment would swallow code, so it goes above. */
	assert_formats_to(
		"module m\n"
		"a.y -> // one\n"
		"  a.u // two\n",
		"module m\n"
		"// one\n"
		"a.y -> a.u // two\n");
}

static void fmt__blank_lines__the_scripts_one_per_run(void **state)
{
	(void)state;
	assert_formats_to(
		"semantic adaptation reactive mealy w at \"w.fmu\"\n"
		"for inner fmu A a at \"a.fmu\" with output ports Real y\n"
		"\n\n\n"
		"output ports Real y <- a.y\n"
		"control var n := 1,\n"
		"\n"
		"\tm := 2;\n"
		"control rules {\n"
		"\tn := n +\n"
		"\n"
		"\t\t1;\n"
		"\n"
		"\treturn H;\n"
		"}\n",
		"semantic adaptation reactive mealy w\n"
		"at \"w.fmu\"\n"
		"\tfor inner fmu A a\n"
		"\t\tat \"a.fmu\"\n"
		"\t\twith output ports Real y\n"
		/* three blank lines: one */
		"\n"
		"output ports Real y <- a.y\n"
		"control var n := 1;\n"
		/* before a name of a list the printer splits: before its line */
		"\n"
		"control var m := 2;\n"
		"control rules {\n"
		/* inside a line the printer joins: none */
		"\tn := n + 1;\n"
		"\n"
		"\treturn H;\n"
		"}\n");
}

static void fmt__only_comments__kept_as_they_are(void **state)
{
	(void)state;
	assert_formats_to("// nothing yet\n\n\n/* to do */\n", "// nothing yet\n\n/* to do */\n");
}

static void fmt__multiline_block_comment__text_untouched(void **state)
{
	(void)state;
	assert_formats_to(
		"module m\n"
		"   /* one\n"
		"        two */ a.y -> b.u /* three\n"
		"four */\n",
		"module m\n"
		"/* one\n"
		"        two */\n"
		"a.y -> b.u /* three\n"
		"four */\n");
}

/* 800 declarations in one `control var` list become 800 lines: over two thousand edits,
 * past what the diff is given, so the linear matching places the comments, each still at
 * the end of its own declaration's line. */
static void fmt__printer_changes_much__each_comment_still_on_its_line(void **state)
{
	(void)state;
	enum { N = 800 };
	StrBuf in, want;
	sb_init(&in);
	sb_init(&want);
	sb_puts(&in, "semantic adaptation reactive mealy w at \"w.fmu\"\n"
	             "for inner fmu A a at \"a.fmu\"\noutput ports Real y\ncontrol var ");
	for (int i = 0; i < N; i++) {
		sb_printf(&in, "x%d := %d%s // c%d\n", i, i, i + 1 < N ? "," : ";", i);
		sb_printf(&want, "control var x%d := %d; // c%d\n", i, i, i);
	}
	sb_puts(&in, "control rules {\n// first\nreturn H; // last\n}\n");
	sb_puts(&want, "control rules {\n\t// first\n\treturn H; // last\n}\n");
	Formatted f = format_text("t.sa", sb_str(&in), in.len);
	assert_int_equal(f.rc, 0);
	assert_non_null(strstr(f.out, sb_str(&want)));
	Formatted g = format_text("t.sa", f.out, strlen(f.out));
	assert_string_equal(g.out, f.out);
	formatted_free(&f);
	formatted_free(&g);
	sb_free(&in);
	sb_free(&want);
}

static void fmt__parse_error__not_formatted_with_location(void **state)
{
	(void)state;
	const char *text = "module m\n// fine\na.y -> ;\n";
	Formatted f = format_text("bad.sa", text, strlen(text));
	assert_int_not_equal(f.rc, 0);
	assert_string_equal(f.out, "");
	assert_non_null(strstr(f.diag, "bad.sa:3:8: error:"));
	formatted_free(&f);
}

static void fmt__no_nul_after_buffer__reads_only_len(void **state)
{
	(void)state;
	/* The caller's buffer holds more than the script: only len bytes are formatted. */
	const char text[] = "module m // c\nmodule TRAILING";
	Formatted f = format_text("t.sa", text, 13);
	assert_int_equal(f.rc, 0);
	assert_string_equal(f.out, "module m // c\n");
	formatted_free(&f);
}

/* ---- every script of the repository --------------------------------------------------- */

static int nchecked, nskipped;

/* text with a comment after every token (before it, on a line of its own, when leading),
 * a block comment or a line comment (and so a line break) by turns, and a blank line
 * before every third: every place a comment can stand. malloc'd. */
static char *comment_everywhere(const char *text, size_t len, bool leading)
{
	StrBuf sb;
	sb_init(&sb);
	Lexer lx;
	Token t;
	lex_init(&lx, "t.sa", text, len, NULL);
	const char *done = text;
	for (int i = 0; lex_next(&lx, &t) != 0; i++) {
		if (leading) {
			const char *start = t.s > text && t.s[-1] == '^' ? t.s - 1 : t.s;
			for (; done < start; done++)
				sb_putc(&sb, *done);
			sb_printf(&sb, i % 3 ? "\n" : "\n\n");
			sb_printf(&sb, i % 2 ? "//l%d\n" : "/*b%d*/\n", i);
			continue;
		}
		for (; done < t.s + t.n; done++)
			sb_putc(&sb, *done);
		if (i % 2)
			sb_printf(&sb, " //l%d\n", i);
		else
			sb_printf(&sb, " /*b%d*/", i); /* the blank: a slash then a block is a line comment */
	}
	sb_puts(&sb, done);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

/* The three properties on one text whose tree is tree. */
static void check_formatting(const char *path, const char *text, const char *tree)
{
	Formatted once = format_text(path, text, strlen(text));
	if (once.rc != 0)
		fprintf(stderr, "%s: %s", path, once.diag);
	assert_int_equal(once.rc, 0);
	Formatted twice = format_text(path, once.out, strlen(once.out));
	if (strcmp(once.out, twice.out) != 0)
		fprintf(stderr, "not a fixed point: %s\n--- once\n%s--- twice\n%s", path, once.out,
		        twice.out);
	assert_string_equal(once.out, twice.out);
	Comments a = comments_of(text), b = comments_of(once.out);
	if (a.n != b.n)
		fprintf(stderr, "%s: %d comments, %d after formatting\n", path, a.n, b.n);
	assert_int_equal(a.n, b.n);
	for (int i = 0; i < a.n; i++)
		assert_string_equal(a.text[i], b.text[i]);
	char *tree2 = parse_print(path, once.out);
	assert_non_null(tree2);
	assert_string_equal(tree, tree2);
	free(tree2);
	comments_free(&a);
	comments_free(&b);
	formatted_free(&once);
	formatted_free(&twice);
}

static int check_script(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 3 || strcmp(path + n - 3, ".sa") != 0)
		return 0;
	size_t len;
	char *text = read_file(path, 1u << 24, &len);
	assert_non_null(text);
	char *tree = parse_print(path, text);
	if (!tree) { /* the diagnostics' examples of bad scripts */
		nskipped++;
		free(text);
		return 0;
	}
	check_formatting(path, text, tree);
	for (int leading = 0; leading < 2; leading++) {
		char *busy = comment_everywhere(text, len, leading);
		check_formatting(path, busy, tree);
		free(busy);
	}
	nchecked++;
	free(tree);
	free(text);
	return 0;
}

static void fmt__every_script_in_the_tree__fixed_point_same_comments_same_tree(void **state)
{
	(void)state;
	static const char *const roots[] = {"adaptations", "tests", "docs/examples", "bench"};
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
		assert_int_equal(nftw(roots[i], check_script, 16, FTW_PHYS), 0);
	/* The tree has well over a hundred scripts that parse: a walk that found none would
	 * prove nothing. */
	assert_true(nchecked > 100);
	printf("fmt: %d scripts formatted, %d that do not parse skipped\n", nchecked, nskipped);
}

/* ---- the command ------------------------------------------------------------------------ */

static char sacc_path[1024], dir[1024], out_path[1100], err_path[1100];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	size_t len;
	char *s = read_file(path, 1u << 20, &len);
	assert_non_null(s);
	return s;
}

/* Whether the file at path holds exactly want. */
static void assert_file_is(const char *path, const char *want)
{
	char *got = slurp(path);
	assert_string_equal(got, want);
	free(got);
}

/* Runs `sacc fmt ARGS` in dir (SACC_BUILD's binary), stdout and stderr to files; returns
 * the exit status. */
static int sacc_fmt(const char *args)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' fmt %s >'%s' 2>'%s'", dir, sacc_path, args,
	         out_path, err_path);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char messy[] = "module m // why\n\n\n\na.y   ->  b.u\n";
static const char tidy[] = "module m // why\n\na.y -> b.u\n";

static int cli_setup(void **state)
{
	(void)state;
	/* absolute: the command runs in dir */
	char cwd[256];
	assert_non_null(getcwd(cwd, sizeof cwd));
	const char *b = test_build_dir();
	snprintf(dir, sizeof dir, "%s%s%s/test_fmt.d", b[0] == '/' ? "" : cwd,
	         b[0] == '/' ? "" : "/", b);
	snprintf(sacc_path, sizeof sacc_path, "%s%s%s/sacc", b[0] == '/' ? "" : cwd,
	         b[0] == '/' ? "" : "/", b);
	char cmd[2200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(out_path, sizeof out_path, "%s/out", dir);
	snprintf(err_path, sizeof err_path, "%s/err", dir);
	return 0;
}

/* dir/a.sa holding text_a and dir/b.sa holding text_b; their paths into a and b. */
static void two_files(char *a, char *b, size_t size, const char *text_a, const char *text_b)
{
	snprintf(a, size, "%s/a.sa", dir);
	snprintf(b, size, "%s/b.sa", dir);
	write_text(a, text_a);
	write_text(b, text_b);
}

static void fmt_cli__no_flags__prints_and_changes_nothing(void **state)
{
	(void)state;
	char path[1200];
	snprintf(path, sizeof path, "%s/a.sa", dir);
	write_text(path, messy);
	assert_int_equal(sacc_fmt("a.sa"), 0);
	assert_file_is(out_path, tidy);
	assert_file_is(path, messy);
	/* - reads standard input */
	assert_int_equal(sacc_fmt("- < a.sa"), 0);
	assert_file_is(out_path, tidy);
}

static void fmt_cli__check__lists_only_files_that_would_change(void **state)
{
	(void)state;
	char a[1200], b[1200];
	two_files(a, b, sizeof a, messy, tidy);
	assert_int_equal(sacc_fmt("--check a.sa b.sa"), 1);
	assert_file_is(out_path, "a.sa\n");
	assert_int_equal(sacc_fmt("--check b.sa"), 0);
	assert_file_is(out_path, "");
	assert_file_is(a, messy);
}

static void fmt_cli__w__rewrites_in_place_keeping_the_mode(void **state)
{
	(void)state;
	char a[1200], b[1200];
	two_files(a, b, sizeof a, messy, tidy);
	assert_int_equal(chmod(a, 0640), 0);
	struct stat before_b;
	assert_int_equal(stat(b, &before_b), 0);
	assert_int_equal(sacc_fmt("-w a.sa b.sa"), 0);
	assert_file_is(out_path, "");
	assert_file_is(a, tidy);
	struct stat st;
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	/* a file already in the layout is not rewritten: same inode */
	assert_int_equal(stat(b, &st), 0);
	assert_true(st.st_ino == before_b.st_ino);
	/* no temporary file left beside them */
	char cmd[1400];
	snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' | grep -v -x -e a.sa -e b.sa -e out -e err)\"",
	         dir);
	assert_int_equal(system(cmd), 0);
}

static void fmt_cli__syntax_error__file_untouched_status_2(void **state)
{
	(void)state;
	char a[1200], b[1200];
	two_files(a, b, sizeof a, "module m\na.y -> ;\n", messy);
	/* the other file is still done */
	assert_int_equal(sacc_fmt("-w a.sa b.sa"), 2);
	char *err = slurp(err_path);
	assert_contains(err, "a.sa:2:8: error: syntax error: unexpected ';'");
	assert_contains(err, "    2 | a.y -> ;");
	free(err);
	assert_file_is(a, "module m\na.y -> ;\n");
	assert_file_is(b, tidy);
	/* from standard input (an editor's filter), the script comes back as it was */
	assert_int_equal(sacc_fmt("- < a.sa"), 2);
	assert_file_is(out_path, "module m\na.y -> ;\n");
}

static void fmt_cli__bad_usage__status_2_and_why(void **state)
{
	(void)state;
	assert_int_equal(sacc_fmt(""), 2);
	char *err = slurp(err_path);
	assert_contains(err, "sacc fmt: no input files");
	free(err);
	assert_int_equal(sacc_fmt("--check -w a.sa"), 2);
	err = slurp(err_path);
	assert_contains(err, "sacc fmt: --check and -w do not go together");
	free(err);
	assert_int_equal(sacc_fmt("-w -"), 2);
	err = slurp(err_path);
	assert_contains(err, "sacc fmt: -w cannot rewrite standard input");
	free(err);
	assert_int_equal(sacc_fmt("missing.sa"), 2);
	err = slurp(err_path);
	assert_contains(err, "sacc fmt: cannot read 'missing.sa': No such file or directory");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmt__comments_everywhere__each_beside_its_code),
		cmocka_unit_test(fmt__model_exchange_clauses__comments_kept),
		cmocka_unit_test(fmt__line_comments_in_a_joined_line__first_above),
		cmocka_unit_test(fmt__blank_lines__the_scripts_one_per_run),
		cmocka_unit_test(fmt__only_comments__kept_as_they_are),
		cmocka_unit_test(fmt__multiline_block_comment__text_untouched),
		cmocka_unit_test(fmt__printer_changes_much__each_comment_still_on_its_line),
		cmocka_unit_test(fmt__parse_error__not_formatted_with_location),
		cmocka_unit_test(fmt__no_nul_after_buffer__reads_only_len),
		cmocka_unit_test(fmt__every_script_in_the_tree__fixed_point_same_comments_same_tree),
		cmocka_unit_test_setup(fmt_cli__no_flags__prints_and_changes_nothing, cli_setup),
		cmocka_unit_test_setup(fmt_cli__check__lists_only_files_that_would_change, cli_setup),
		cmocka_unit_test_setup(fmt_cli__w__rewrites_in_place_keeping_the_mode, cli_setup),
		cmocka_unit_test_setup(fmt_cli__syntax_error__file_untouched_status_2, cli_setup),
		cmocka_unit_test_setup(fmt_cli__bad_usage__status_2_and_why, cli_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
