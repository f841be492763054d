/* test_plot.c — `sacc plot RESULT.csv -o FILE.png|svg` as users run it (the sacc of
 * SACC_BUILD, with gnuplot from PATH): an SVG holds one plot group per variable, each named
 * in the key and drawn as a path with a segment per row; a PNG starts with the PNG
 * signature; --vars picks the lines; and each error says what and where (the CSV's line,
 * the unknown variable with the ones there are, the extension, gnuplot missing with its
 * Debian package, gnuplot failing) without leaving a half-written image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_plot");
}

/* Runs `sacc plot ARGS` in the scratch directory (env: variables put before the command);
 * stdout to out.txt, stderr to err.txt.  Returns the exit status. */
static int plot(Ctx *c, const char *env, const char *args)
{
	char sacc[512];
	const char *b = test_build_dir();
	if (b[0] == '/')
		snprintf(sacc, sizeof sacc, "%s/sacc", b);
	else
		snprintf(sacc, sizeof sacc, "%s/%s/sacc", getcwd((char[256]){0}, 256), b);
	snprintf(c->cmd, sizeof c->cmd, "cd '%s' && %s '%s' plot %s >out.txt 2>err.txt", c->dir,
	         env, sacc, args);
	int st = system(c->cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(Ctx *c, const char *name)
{
	struct stat st;
	return stat(path_in(c, name), &st) == 0;
}

/* x = t^2 and y = 1 - t over 41 rows; z constant. */
static void write_result(Ctx *c)
{
	FILE *f = fopen(path_in(c, "r.csv"), "w");
	assert_non_null(f);
	fputs("time,a.x,a.y,b.z\n", f);
	for (int k = 0; k <= 40; k++) {
		double t = k / 40.0;
		fprintf(f, "%.17g,%.17g,%.17g,3\n", t, t * t, 1 - t);
	}
	fclose(f);
}

/* Plot group k of the SVG (gnuplot's <g id="gnuplot_plot_k">, up to the next one): NULL
 * when there is none, else malloc'd. */
static char *svg_group(const char *svg, int k)
{
	char id[64];
	snprintf(id, sizeof id, "id=\"gnuplot_plot_%d\"", k);
	const char *p = strstr(svg, id);
	if (!p)
		return NULL;
	const char *end = strstr(p + strlen(id), "id=\"gnuplot_plot_");
	if (!end)
		end = p + strlen(p);
	return strndup(p, (size_t)(end - p));
}

/* The number of line segments (an L command: gnuplot breaks long paths over lines) of
 * the path with the most of them in text. */
static int longest_path(const char *text)
{
	int best = 0;
	for (const char *p = strstr(text, " d='"); p; p = strstr(p + 1, " d='")) {
		const char *end = strchr(p + 4, '\'');
		int n = 0;
		for (const char *q = p + 4; end && q < end; q++)
			n += *q == 'L';
		if (n > best)
			best = n;
	}
	return best;
}

static void plot__svg__every_variable_named_and_drawn(void **state)
{
	Ctx *c = *state;
	write_result(c);
	assert_int_equal(plot(c, "", "r.csv -o r.svg --title \"it's a title\""), 0);
	char *svg = file_in(c, "r.svg");
	assert_true(strncmp(svg, "<?xml", 5) == 0);
	assert_contains(svg, "<text>it's a title</text>");
	const char *names[] = {"a.x", "a.y", "b.z"};
	for (int k = 0; k < 3; k++) {
		char *g = svg_group(svg, k + 1);
		assert_non_null(g);
		char text[64];
		snprintf(text, sizeof text, "<text>%s</text>", names[k]);
		assert_contains(g, text);
		/* the line through the 41 rows: 40 segments (gnuplot may add the key's sample) */
		assert_true(longest_path(g) >= 40);
		free(g);
	}
	assert_null(svg_group(svg, 4));
	free(svg);
	char *err = file_in(c, "err.txt");
	assert_string_equal(err, "");
	free(err);

	/* --vars: those lines only, in that order */
	assert_int_equal(plot(c, "", "r.csv -o v.svg --vars b.z,a.x"), 0);
	svg = file_in(c, "v.svg");
	char *g = svg_group(svg, 1);
	assert_non_null(g);
	assert_contains(g, "<text>b.z</text>");
	free(g);
	g = svg_group(svg, 2);
	assert_non_null(g);
	assert_contains(g, "<text>a.x</text>");
	free(g);
	assert_null(svg_group(svg, 3));
	assert_null(strstr(svg, "<text>a.y</text>"));
	free(svg);
}

static void plot__png__signature(void **state)
{
	Ctx *c = *state;
	write_result(c);
	assert_int_equal(plot(c, "", "r.csv -o r.png"), 0);
	FILE *f = fopen(path_in(c, "r.png"), "rb");
	assert_non_null(f);
	unsigned char sig[8];
	assert_int_equal(fread(sig, 1, 8, f), 8);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
	assert_true(size > 1000);
}

static void plot__errors__what_and_where(void **state)
{
	Ctx *c = *state;
	write_result(c);
	write_text(c, "bad.csv", "time,a.x\n0,1\n0.5,2\n1,two\n");
	struct {
		const char *env, *args;
		int rc;
		const char *msg, *image;
	} cases[] = {
		{"", "bad.csv -o b.svg", 1, "sacc plot: bad.csv:4: column 2 (a.x): 'two' is not a "
		                            "finite number", "b.svg"},
		{"", "none.csv -o b.svg", 1, "sacc plot: none.csv: cannot read: No such file", "b.svg"},
		{"", "r.csv -o b.svg --vars a.x,a.w", 2, "--vars: r.csv has no column 'a.w'; its "
		                                        "variables are: a.x a.y b.z", "b.svg"},
		{"", "r.csv -o b.pdf", 2, "-o b.pdf: the extension must be .png or .svg", "b.pdf"},
		{"", "r.csv", 2, "no -o FILE.png or FILE.svg", NULL},
		{"", "r.csv -o b.svg --colour red", 2, "unknown option '--colour'", "b.svg"},
		{"PATH=/nonexistent", "r.csv -o b.svg", 1, "gnuplot not found in PATH: install the "
		                                          "Debian package gnuplot-nox", "b.svg"},
		{"", "r.csv -o nodir/b.svg", 1, "failed with exit status", "nodir/b.svg"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = plot(c, cases[i].env, cases[i].args);
		char *err = file_in(c, "err.txt");
		if (rc != cases[i].rc)
			print_error("%s: exit %d\n%s", cases[i].args, rc, err);
		assert_int_equal(rc, cases[i].rc);
		assert_contains(err, cases[i].msg);
		free(err);
		if (cases[i].image)
			assert_false(exists(c, cases[i].image));
	}
	/* a header without data: nothing to draw */
	write_text(c, "empty.csv", "time,a.x\n");
	assert_int_equal(plot(c, "", "empty.csv -o e.svg"), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc plot: empty.csv: no data rows");
	free(err);
	assert_false(exists(c, "e.svg"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(plot__svg__every_variable_named_and_drawn, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(plot__png__signature, setup, teardown),
		cmocka_unit_test_setup_teardown(plot__errors__what_and_where, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
