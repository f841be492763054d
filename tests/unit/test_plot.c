/* test_plot.c — `sacc plot RESULT.csv... -o FILE.png|svg` as users run it (the sacc of
 * SACC_BUILD, with gnuplot from PATH), read back from the SVG: gnuplot names each panel's
 * plot groups gnuplot_plot_<k><panel letter>, and each group holds its key text and its
 * path.  A panel per unit (a column without a unit gets its own), the y labels with the
 * variables and their units from `name [unit]` headers, the time axis labelled on the
 * bottom panel; --vars groups; a colour per series; several files with a key entry per
 * file; the difference panel (file 2 minus file 1 on file 1's times); marks; a PNG with
 * the PNG signature; and each error says what and where (the CSV's line, a variable
 * unknown or missing in one file, units that disagree, the extension, gnuplot missing
 * with its Debian package, gnuplot failing) without leaving a half-written image.  The
 * reader's part: csv_parse keeps a header's units apart from the names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "csv.h"
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

/* The whole of file name in the scratch directory (an SVG of six panels passes the 64 KiB
 * that file_in reads), malloc'd. */
static char *svg_in(Ctx *c, const char *name)
{
	FILE *f = fopen(path_in(c, name), "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = calloc(1, (size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	return buf;
}

static bool exists(Ctx *c, const char *name)
{
	struct stat st;
	return stat(path_in(c, name), &st) == 0;
}

/* r.csv, without units: x = t^2 and y = 1 - t over 41 rows; z constant. */
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

/* u.csv, with units: a.x = t and a.y = 1 - t in m, b.z = 3 A, b.n a count without a
 * unit, over 41 rows of t in [0, 1]; and v.csv, another run of the same variables: 3 rows,
 * a.x = 2t (linear, so that interpolating it is exact), the units given for some columns
 * only. */
static void write_units(Ctx *c)
{
	FILE *f = fopen(path_in(c, "u.csv"), "w");
	assert_non_null(f);
	fputs("time [s],a.x [m],a.y [m],b.z [A],b.n\n", f);
	for (int k = 0; k <= 40; k++) {
		double t = k / 40.0;
		fprintf(f, "%.17g,%.17g,%.17g,3,%d\n", t, t, 1 - t, k);
	}
	fclose(f);
	write_text(c, "v.csv", "time,a.x [m],a.y,b.z,b.n\n0,0,1,3,0\n0.5,1,0.5,3,1\n1,2,0,3,2\n");
}

/* Plot group k of panel `panel` ('a' the top one) of the SVG (gnuplot's
 * <g id="gnuplot_plot_<k><panel>">, up to the next one): NULL when there is none, else
 * malloc'd. */
static char *svg_group(const char *svg, int k, char panel)
{
	char id[64];
	snprintf(id, sizeof id, "id=\"gnuplot_plot_%d%c\"", k, panel);
	const char *p = strstr(svg, id);
	if (!p)
		return NULL;
	const char *end = strstr(p + strlen(id), "id=\"gnuplot_plot_");
	if (!end)
		end = p + strlen(p);
	return strndup(p, (size_t)(end - p));
}

/* The path with the most line segments in text (its d='...' text, malloc'd), or NULL. */
static char *longest_path_text(const char *text)
{
	const char *best = NULL;
	int most = -1;
	for (const char *p = strstr(text, " d='"); p; p = strstr(p + 1, " d='")) {
		const char *end = strchr(p + 4, '\'');
		int n = 0;
		for (const char *q = p + 4; end && q < end; q++)
			n += *q == 'L';
		if (end && n > most) {
			most = n;
			best = p + 4;
		}
	}
	return best ? strndup(best, (size_t)(strchr(best, '\'') - best)) : NULL;
}

/* The stroke colour of group text's longest path ("rgb(...)"), malloc'd. */
static char *stroke_of(const char *group)
{
	char *d = longest_path_text(group);
	assert_non_null(d);
	const char *at = strstr(group, d);
	free(d);
	/* the path element's attributes come before its d= */
	const char *start = at;
	while (start > group && strncmp(start, "<path", 5) != 0)
		start--;
	const char *rgb = strstr(start, "stroke='rgb(");
	assert_non_null(rgb);
	assert_true(rgb < at);
	return strndup(rgb + 8, (size_t)(strchr(rgb + 8, ')') + 1 - (rgb + 8)));
}

/* Whether the longest path of group text rises from its first point to its last (SVG's
 * y grows downwards). */
static bool rises(const char *group)
{
	char *d = longest_path_text(group);
	assert_non_null(d);
	double y0, y1, x;
	/* the key's sample comes first, the data from the last move on */
	assert_int_equal(sscanf(strrchr(d, 'M'), "M%lf,%lf", &x, &y0), 2);
	const char *last = strrchr(d, 'L');
	assert_non_null(last);
	assert_int_equal(sscanf(last, "L%lf,%lf", &x, &y1), 2);
	free(d);
	return y1 < y0;
}

/* The number of times needle occurs in text. */
static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
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

/* One file without units: a panel per column, each named in its key and y label and drawn
 * through every row, the time axis labelled once; --vars picks the lines, in one panel. */
static void plot__svg__every_variable_named_and_drawn(void **state)
{
	Ctx *c = *state;
	write_result(c);
	assert_int_equal(plot(c, "", "r.csv -o r.svg --title \"it's a title\""), 0);
	char *svg = svg_in(c, "r.svg");
	assert_true(strncmp(svg, "<?xml", 5) == 0);
	assert_contains(svg, "<text>it's a title</text>");
	const char *names[] = {"a.x", "a.y", "b.z"};
	char *colour[3];
	for (int k = 0; k < 3; k++) {
		char *g = svg_group(svg, 1, (char)('a' + k));
		assert_non_null(g);
		char text[64];
		snprintf(text, sizeof text, "<text>%s</text>", names[k]);
		assert_contains(g, text);
		assert_int_equal(count(svg, text), 2); /* the key's and the y label's */
		/* the line through the 41 rows: 40 segments (gnuplot may add the key's sample) */
		assert_true(longest_path(g) >= 40);
		colour[k] = stroke_of(g);
		free(g);
	}
	assert_null(svg_group(svg, 1, 'd'));
	assert_null(svg_group(svg, 2, 'a'));
	/* a colour each */
	assert_string_not_equal(colour[0], colour[1]);
	assert_string_not_equal(colour[1], colour[2]);
	assert_string_not_equal(colour[0], colour[2]);
	for (int k = 0; k < 3; k++)
		free(colour[k]);
	assert_int_equal(count(svg, "<text>time (s)</text>"), 1);
	free(svg);
	char *err = file_in(c, "err.txt");
	assert_string_equal(err, ""); /* b.z is constant: no warning from gnuplot either */
	free(err);
	/* --vars: those lines only, in that order, in one panel */
	assert_int_equal(plot(c, "", "r.csv -o v.svg --vars b.z,a.x"), 0);
	svg = svg_in(c, "v.svg");
	char *g = svg_group(svg, 1, 'a');
	assert_non_null(g);
	assert_contains(g, "<text>b.z</text>");
	free(g);
	g = svg_group(svg, 2, 'a');
	assert_non_null(g);
	assert_contains(g, "<text>a.x</text>");
	free(g);
	assert_null(svg_group(svg, 3, 'a'));
	assert_null(svg_group(svg, 1, 'b'));
	assert_null(strstr(svg, "<text>a.y</text>"));
	assert_contains(svg, "<text>b.z, a.x</text>");
	free(svg);
}

/* A result with a String column (quoted, commas inside, as sacc simulate writes them):
 * its columns of numbers are drawn and the String's left out; --vars naming it is an error
 * giving the first cell that is no number. */
static void plot__string_column__left_out_unless_named(void **state)
{
	Ctx *c = *state;
	FILE *f = fopen(path_in(c, "s.csv"), "w");
	assert_non_null(f);
	fputs("time,a.x,m.s,a.y\n", f);
	for (int k = 0; k <= 40; k++)
		fprintf(f, "%.17g,%d,\"hello, \"\"%d\"\"\",%d\n", k / 40.0, k, k, -k);
	fclose(f);
	assert_int_equal(plot(c, "", "s.csv -o s.svg"), 0);
	char *svg = svg_in(c, "s.svg");
	char *g = svg_group(svg, 1, 'a');
	assert_non_null(g);
	assert_contains(g, "<text>a.x</text>");
	assert_true(longest_path(g) >= 40);
	free(g);
	g = svg_group(svg, 1, 'b');
	assert_non_null(g);
	assert_contains(g, "<text>a.y</text>");
	free(g);
	assert_null(svg_group(svg, 1, 'c'));
	assert_null(strstr(svg, "m.s"));
	free(svg);
	assert_int_equal(plot(c, "", "s.csv -o t.svg --vars a.x,m.s"), 2);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc plot: --vars: s.csv:2:5: column 3 (m.s): 'hello, \"0\"' is not "
	                     "a finite number (only numbers are drawn)");
	free(err);
	struct stat st;
	assert_int_not_equal(stat(path_in(c, "t.svg"), &st), 0);
}

/* Units from the header: the two lengths share a panel labelled in metres, the current
 * has its own in amperes, the count without a unit its own; --vars groups instead, a panel
 * each, with the units of what each holds. */
static void plot__units__a_panel_per_unit_labelled(void **state)
{
	Ctx *c = *state;
	write_units(c);
	assert_int_equal(plot(c, "", "u.csv -o u.svg"), 0);
	char *svg = svg_in(c, "u.svg");
	assert_contains(svg, "<text>a.x, a.y (m)</text>");
	assert_contains(svg, "<text>b.z (A)</text>");
	assert_contains(svg, "<text>time (s)</text>");
	const struct {
		int k;
		char panel;
		const char *key;
	} where[] = {{1, 'a', "a.x"}, {2, 'a', "a.y"}, {1, 'b', "b.z"}, {1, 'c', "b.n"}};
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
		char *g = svg_group(svg, where[i].k, where[i].panel);
		assert_non_null(g);
		char text[64];
		snprintf(text, sizeof text, "<text>%s</text>", where[i].key);
		assert_contains(g, text);
		free(g);
	}
	assert_null(svg_group(svg, 3, 'a'));
	assert_null(svg_group(svg, 2, 'b'));
	assert_null(svg_group(svg, 1, 'd'));
	free(svg);
	assert_int_equal(plot(c, "", "u.csv -o g.svg --vars b.z,a.x --vars b.n"), 0);
	svg = svg_in(c, "g.svg");
	assert_contains(svg, "<text>b.z, a.x (A, m)</text>");
	assert_contains(svg, "<text>b.n</text>");
	assert_non_null(strstr(svg, "gnuplot_plot_2a"));
	assert_null(strstr(svg, "gnuplot_plot_1c"));
	free(svg);
	/* a variable named with its unit as the header shows it: the same panels and labels */
	assert_int_equal(plot(c, "", "u.csv -o h.svg --vars 'b.z [A],a.x' --vars b.n"), 0);
	svg = svg_in(c, "h.svg");
	assert_contains(svg, "<text>b.z, a.x (A, m)</text>");
	free(svg);
	assert_int_equal(plot(c, "", "u.csv -o i.svg --vars 'a.x [s]'"), 2);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sacc plot: --vars: u.csv has no column 'a.x [s]'");
	free(err);
}

/* Two runs: a key entry per file and variable (--labels naming the files), the units of
 * the file that gives them, a difference panel of the second run minus the first on the
 * first one's 41 times (it rises: 2t - t), and the marks: a dashed line in every panel,
 * the labels in the top one. */
static void plot__two_files__key_per_file_difference_marks(void **state)
{
	Ctx *c = *state;
	write_units(c);
	assert_int_equal(plot(c, "", "u.csv v.csv -o d.svg --vars a.x --labels ref,run "
	                             "--diff a.x --mark 0.25:start --mark 0.75:end"), 0);
	char *svg = svg_in(c, "d.svg");
	char *g = svg_group(svg, 1, 'a');
	assert_non_null(g);
	assert_contains(g, "<text>a.x (ref)</text>");
	free(g);
	g = svg_group(svg, 2, 'a');
	assert_non_null(g);
	assert_contains(g, "<text>a.x (run)</text>");
	free(g);
	assert_contains(svg, "<text>a.x (m)</text>");
	assert_contains(svg, "<text>difference of a.x (m)</text>");
	g = svg_group(svg, 1, 'b');
	assert_non_null(g);
	assert_contains(g, "<text>a.x: run - ref</text>");
	assert_true(longest_path(g) >= 40);
	assert_true(rises(g));
	free(g);
	assert_null(svg_group(svg, 2, 'b'));
	assert_null(svg_group(svg, 1, 'c'));
	assert_int_equal(count(svg, "<text>start</text>"), 1);
	assert_int_equal(count(svg, "<text>end</text>"), 1);
	/* in each of the two panels, a dashed path of two vertical lines, one per mark */
	const char *dashed = "stroke='rgb( 51,  51,  51)' stroke-dasharray=";
	assert_int_equal(count(svg, dashed), 2);
	for (const char *p = strstr(svg, dashed); p; p = strstr(p + 1, dashed)) {
		double x0, y0, x1, y1, x2, y2, x3, y3;
		assert_int_equal(sscanf(strstr(p, " d='"), " d='M%lf,%lf L%lf,%lf M%lf,%lf L%lf,%lf",
		                        &x0, &y0, &x1, &y1, &x2, &y2, &x3, &y3), 8);
		assert_true(x0 == x1 && x2 == x3 && x0 < x2 && y0 != y1);
	}
	free(svg);
	char *err = file_in(c, "err.txt");
	assert_string_equal(err, "");
	free(err);
	/* without --labels the key names the files; --diff all: every variable drawn */
	assert_int_equal(plot(c, "", "u.csv v.csv -o e.svg --diff all"), 0);
	svg = svg_in(c, "e.svg");
	assert_contains(svg, "<text>b.n (v.csv)</text>");
	assert_contains(svg, "<text>a.y: v.csv - u.csv</text>");
	assert_contains(svg, "<text>difference of b.n</text>");
	assert_contains(svg, "<text>u.csv, v.csv</text>");
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
	write_units(c);
	write_text(c, "bad.csv", "time,a.x\n0,1\n0.5,2\n1,two\n");
	write_text(c, "cm.csv", "time,a.x [cm],a.y,b.z,b.n\n0,0,1,3,0\n1,100,0,3,1\n");
	write_text(c, "late.csv", "time,a.x,a.y,b.z,b.n\n5,0,1,3,0\n6,1,0,3,1\n");
	struct {
		const char *env, *args;
		int rc;
		const char *msg, *image;
	} cases[] = {
		{"", "bad.csv -o b.svg", 1, "bad.csv has no column of numbers to draw (bad.csv:4:3: "
		                            "column 2 (a.x): 'two' is not a finite number)", "b.svg"},
		{"", "none.csv -o b.svg", 1, "sacc plot: none.csv: cannot read: No such file", "b.svg"},
		{"", "r.csv -o b.svg --vars a.x,a.w", 2, "--vars: r.csv has no column 'a.w'; its "
		                                        "variables are: a.x a.y b.z", "b.svg"},
		{"", "u.csv v.csv -o b.svg --vars a.x --vars a.w", 2,
		 "--vars: u.csv has no column 'a.w'", "b.svg"},
		{"", "u.csv r.csv -o b.svg", 1, "sacc plot: r.csv has no column 'b.n', which u.csv "
		                               "has: the files do not match", "b.svg"},
		{"", "u.csv cm.csv -o b.svg", 1, "sacc plot: a.x is in m in u.csv but in cm in "
		                                "cm.csv", "b.svg"},
		{"", "u.csv late.csv -o b.svg --diff a.x", 1, "--diff: late.csv has no time in common "
		                                             "with u.csv", "b.svg"},
		{"", "u.csv -o b.svg --diff a.x", 2, "a difference needs two result files", "b.svg"},
		{"", "u.csv v.csv -o b.svg --vars a.x --diff a.y", 2, "--diff: 'a.y' is not a "
		                                                     "variable drawn", "b.svg"},
		{"", "u.csv v.csv -o b.svg --labels one", 2, "--labels one: 1 label for 2 files",
		 "b.svg"},
		{"", "u.csv -o b.svg --mark soon:x", 2, "--mark soon:x: a time and an optional label",
		 "b.svg"},
		{"", "u.csv -o b.svg --xrange 1:0", 2, "--xrange 1:0: two times T0:T1", "b.svg"},
		{"", "u.csv -o b.svg --xrange 3:4", 1, "--xrange 3:4: u.csv has no time in it",
		 "b.svg"},
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

/* The reader: a header's `name [unit]` gives the name as a header without units would
 * and the unit apart; a bracket that is part of the name stays in it; two columns whose
 * names differ only by their units are the same column twice. */
static void csv__units_in_header__names_as_without(void **state)
{
	(void)state;
	static const char text[] = "time [s],a.x [m],a.y,b[2],c.z  [rad/s]\n0,1,2,3,4\n";
	char err[256];
	CsvTable *t = csv_parse(text, sizeof text - 1, "h.csv", err, sizeof err);
	assert_non_null(t);
	const char *names[] = {"time", "a.x", "a.y", "b[2]", "c.z"};
	const char *units[] = {"s", "m", NULL, NULL, "rad/s"};
	for (int k = 0; k < 5; k++) {
		assert_string_equal(t->names[k], names[k]);
		if (units[k])
			assert_string_equal(t->units[k], units[k]);
		else
			assert_null(t->units[k]);
	}
	assert_int_equal(csv_column(t, "c.z"), 4);
	csv_free(t);
	static const char twice[] = "time,a.x [m],a.x [cm]\n0,1,2\n";
	assert_null(csv_parse(twice, sizeof twice - 1, "h.csv", err, sizeof err));
	assert_string_equal(err, "h.csv:1: column 'a.x' appears twice (columns 2 and 3)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(plot__svg__every_variable_named_and_drawn, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(plot__units__a_panel_per_unit_labelled, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(plot__two_files__key_per_file_difference_marks, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(plot__string_column__left_out_unless_named, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(plot__png__signature, setup, teardown),
		cmocka_unit_test_setup_teardown(plot__errors__what_and_where, setup, teardown),
		cmocka_unit_test(csv__units_in_header__names_as_without),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
