/* test_diag_notes.c — what the notes under an error offer: the "did you mean" ranking
 * (a name legal where the mistyped one stands first, then the closest), the directories
 * a file that was not found was looked for in, and `check --syntax`, which reads a file
 * without looking for the modules it imports.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the inner FMUs come from $SACC_BUILD/fmus/ (mass1, integrator). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sacc_test.h"
#include "assert_contains.h"

/* Checks text and returns everything reported (malloc'd). */
static char *check_text(const char *text)
{
	TestRun *t = tr_new();
	Module *m = tr_load(t, "t.sa", text);
	assert_non_null(m);
	if (!m->root)
		fail_msg("did not parse:\n%s", tr_diag(t));
	drv_check(t->c, m);
	char *d = strdup(tr_diag(t));
	tr_free(t);
	return d;
}

/* ---- the ranking itself ----------------------------------------------------------------- */

static void suggestion__legal_name__beats_a_closer_illegal_one(void **state)
{
	(void)state;
	Suggestion s;
	suggestion_init(&s, "speed");
	suggestion_offer(&s, "speeds", false); /* distance 1, not legal here */
	suggestion_offer(&s, "spied", true);   /* distance 2, legal */
	assert_string_equal(s.best, "spied");
	/* Offered the other way round, the same choice. */
	suggestion_init(&s, "speed");
	suggestion_offer(&s, "spied", true);
	suggestion_offer(&s, "speeds", false);
	assert_string_equal(s.best, "spied");
}

static void suggestion__within_a_group__closest_then_first_offered(void **state)
{
	(void)state;
	Suggestion s;
	suggestion_init(&s, "height");
	suggestion_offer(&s, "weighty", true); /* 2 */
	suggestion_offer(&s, "heights", true); /* 1 */
	suggestion_offer(&s, "heighs", true);  /* 1, later */
	assert_string_equal(s.best, "heights");
}

static void suggestion__illegal_name__offered_when_no_legal_one_is_near(void **state)
{
	(void)state;
	Suggestion s;
	suggestion_init(&s, "vv");
	suggestion_offer(&s, "height", true); /* too far */
	suggestion_offer(&s, "vo", false);
	assert_string_equal(s.best, "vo");
}

static void suggestion__same_or_far_names__never_offered(void **state)
{
	(void)state;
	Suggestion s;
	suggestion_init(&s, "x");
	suggestion_offer(&s, "x", true);
	suggestion_offer(&s, "xyz", true);
	suggestion_offer(&s, NULL, true);
	assert_null(s.best);
}

/* ---- "did you mean" in the checker ------------------------------------------------------ */

/* mass1 has inputs xo, vo and outputs x, v: `m.vv` is one edit from vo and from v. */
static const char mass_head[] =
	"semantic adaptation reactive mealy m_sa\n"
	"at \"m_sa.fmu\"\n"
	"\tfor inner fmu Mass m\n"
	"\t\tat \"mass1.fmu\"\n"
	"input ports Real vin\n"
	"output ports Real vout\n";

static void check__inner_port_read__output_offered_before_input(void **state)
{
	(void)state;
	char text[1024];
	snprintf(text, sizeof text, "%s%s", mass_head,
		 "out rules {\n"
		 "\ttrue -> { } --> { m_sa.vout := m.vv; };\n"
		 "}\n");
	char *d = check_text(text);
	assert_contains(d, "t.sa:8:35: error: inner fmu 'm' has no port 'vv'\n");
	assert_contains(d, "t.sa:8:35: note: did you mean 'v'?\n");
	free(d);
}

static void check__inner_port_written__input_offered_before_output(void **state)
{
	(void)state;
	char text[1024];
	snprintf(text, sizeof text, "%s%s", mass_head,
		 "control rules {\n"
		 "\tm.vv := 1.0;\n"
		 "\tm.xx := 1.0;\n"
		 "\treturn H;\n"
		 "}\n");
	char *d = check_text(text);
	assert_contains(d, "t.sa:8:4: note: did you mean 'vo'?\n");
	assert_contains(d, "t.sa:9:4: note: did you mean 'xo'?\n");
	free(d);
}

/* An adaptation whose input port ya and output port yb are each one edit from yc. */
static const char own_head[] =
	"semantic adaptation reactive mealy o_sa\n"
	"at \"o_sa.fmu\"\n"
	"\tfor inner fmu Mass m\n"
	"\t\tat \"mass1.fmu\"\n"
	"input ports Real ya\n"
	"output ports Real yb\n";

static void check__own_port__input_when_read_output_when_written(void **state)
{
	(void)state;
	char text[1024];
	snprintf(text, sizeof text, "%s%s", own_head,
		 "out rules {\n"
		 "\ttrue -> { } --> { o_sa.yc := o_sa.yc; };\n"
		 "}\n");
	char *d = check_text(text);
	assert_contains(d, "t.sa:8:25: note: did you mean 'yb'?\n");
	assert_contains(d, "t.sa:8:36: note: did you mean 'ya'?\n");
	free(d);
}

static void check__bare_name__what_may_be_used_there_first(void **state)
{
	(void)state;
	/* In the '-->' part of an out rule output ports are written and input ports read. */
	char text[1024];
	snprintf(text, sizeof text, "%s%s", own_head,
		 "out rules {\n"
		 "\ttrue -> { } --> { yc := yc; };\n"
		 "}\n");
	char *d = check_text(text);
	assert_contains(d, "t.sa:8:20: error: unknown name 'yc'\n");
	assert_contains(d, "t.sa:8:20: note: did you mean 'yb'?\n");
	assert_contains(d, "t.sa:8:26: note: did you mean 'ya'?\n");
	free(d);

	/* A parameter's value may only use parameters. */
	snprintf(text, sizeof text, "%s%s", own_head, "param Real yd := 1.0, ye := yc;\n");
	d = check_text(text);
	assert_contains(d, "t.sa:7:29: note: did you mean 'yd'?\n");
	free(d);
}

static void check__coupling__output_at_the_source_input_at_the_target(void **state)
{
	(void)state;
	char *d = check_text("semantic adaptation reactive mealy c_sa\n"
			     "at \"c_sa.fmu\"\n"
			     "\tfor inner fmu Mass a\n"
			     "\t\tat \"mass1.fmu\"\n"
			     "\tfor inner fmu Mass b\n"
			     "\t\tat \"mass2.fmu\"\n"
			     "\tcoupled as a.vv -> b.vv\n");
	assert_contains(d, "t.sa:7:15: note: did you mean 'v'?\n");
	assert_contains(d, "t.sa:7:23: note: did you mean 'vo'?\n");
	free(d);
}

static void check__declared_inner_port__of_the_declared_direction_first(void **state)
{
	(void)state;
	char *d = check_text("semantic adaptation reactive mealy d_sa\n"
			     "at \"d_sa.fmu\"\n"
			     "\tfor inner fmu Mass m\n"
			     "\t\tat \"mass1.fmu\"\n"
			     "\t\twith input ports Real vv\n"
			     "\t\twith output ports Real xx\n");
	assert_contains(d, "t.sa:5:25: note: did you mean 'vo'?\n");
	assert_contains(d, "t.sa:6:26: note: did you mean 'x'?\n");
	free(d);
}

static void check__mistyped_owner__one_with_that_port_first(void **state)
{
	(void)state;
	/* `mc` is one edit from ma and from mb; only mb (mass1) has a port v. */
	char *d = check_text("semantic adaptation reactive mealy o_sa\n"
			     "at \"o_sa.fmu\"\n"
			     "\tfor inner fmu Integrator ma\n"
			     "\t\tat \"integrator.fmu\"\n"
			     "\tfor inner fmu Mass mb\n"
			     "\t\tat \"mass1.fmu\"\n"
			     "output ports Real y <- mc.v\n");
	assert_contains(d, "t.sa:7:24: note: did you mean 'mb'?\n");
	free(d);
}

static void check__scenario_connection__output_source_input_target(void **state)
{
	(void)state;
	char *d = check_text("module scen\n"
			     "fmu Mass a at \"mass1.fmu\"\n"
			     "fmu Mass b at \"mass2.fmu\"\n"
			     "a.vv -> b.vv\n");
	assert_contains(d, "t.sa:4:3: note: did you mean 'v'?\n");
	assert_contains(d, "t.sa:4:11: note: did you mean 'vo'?\n");
	free(d);
}

/* ---- where a file was looked for -------------------------------------------------------- */

static void check__inner_fmu_not_found__note_names_every_directory(void **state)
{
	(void)state;
	TestRun *t = tr_new(); /* -L BUILD/fmus */
	drv_add_fmu_dir(t->c, "/nonexistent/a");
	Module *m = tr_load(t, "dir/t.sa", "semantic adaptation reactive mealy n_sa\n"
					    "at \"n_sa.fmu\"\n"
					    "\tfor inner fmu Motor motor\n"
					    "\t\tat \"motor.fmu\"\n");
	assert_int_equal(drv_check(t->c, m), 1);
	char want[512];
	snprintf(want, sizeof want, "dir/t.sa:4:6: note: looked in 'dir' (the script's directory) "
		 "and in the -L directories '%s/fmus' and '/nonexistent/a'; no adaptation in "
		 "scope builds 'motor.fmu' either\n", test_build_dir());
	assert_contains(tr_diag(t), want);
	tr_free(t);
}

static void check__absolute_fmu_path_not_found__note_says_no_directory_is_searched(void **state)
{
	(void)state;
	char *d = check_text("semantic adaptation reactive mealy n_sa\n"
			     "at \"n_sa.fmu\"\n"
			     "\tfor inner fmu Motor motor\n"
			     "\t\tat \"/nonexistent/motor.fmu\"\n");
	assert_contains(d, "note: looked only at that path, as it is absolute; no adaptation in "
			   "scope builds 'motor.fmu' either\n");
	free(d);
}

static void check__module_not_found__note_names_every_directory(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	drv_add_include_dir(t->c, "/nonexistent/lib");
	Module *m = tr_load(t, "t.sa", "import absent\nmodule user\n");
	assert_non_null(m);
	assert_contains(tr_diag(t), "t.sa:1:1: note: looked for a file declaring 'module absent' "
				    "in '.' (the importing file's directory) and in the -I "
				    "directory '/nonexistent/lib'\n");
	tr_free(t);

	t = tr_new();
	tr_load(t, "t.sa", "import absent\nmodule user\n");
	assert_contains(tr_diag(t), "in '.' (the importing file's directory) only, as no -I "
				    "directory was given\n");
	tr_free(t);
}

/* ---- check --syntax --------------------------------------------------------------------- */

static void parse_only__missing_import__not_looked_for(void **state)
{
	(void)state;
	char dir[] = "/tmp/sacc_test_diag_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/user.sa", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("import absent\nmodule user\n"
	      "semantic adaptation reactive mealy u_sa\nat \"u_sa.fmu\"\n"
	      "\tfor inner fmu Motor motor\n\t\tat \"motor.fmu\"\n", f);
	fclose(f);

	TestRun *t = tr_new();
	Module *m = drv_parse(t->c, path);
	assert_non_null(m);
	assert_non_null(m->root);
	assert_int_equal(m->nimports, 0);
	assert_string_equal(tr_diag(t), "");
	tr_free(t);

	/* Loaded for a full check, the same file fails on the import. */
	t = tr_new();
	m = drv_load(t->c, path);
	assert_non_null(m);
	assert_contains(tr_diag(t), "error: cannot find module 'absent'");
	tr_free(t);

	/* A syntax error is still one. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("import absent\nmodule user\nsemantic adaptation\n", f);
	fclose(f);
	t = tr_new();
	m = drv_parse(t->c, path);
	assert_non_null(m);
	assert_null(m->root);
	assert_contains(tr_diag(t), "error: syntax error: unexpected end of file");
	tr_free(t);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(suggestion__legal_name__beats_a_closer_illegal_one),
		cmocka_unit_test(suggestion__within_a_group__closest_then_first_offered),
		cmocka_unit_test(suggestion__illegal_name__offered_when_no_legal_one_is_near),
		cmocka_unit_test(suggestion__same_or_far_names__never_offered),
		cmocka_unit_test(check__inner_port_read__output_offered_before_input),
		cmocka_unit_test(check__inner_port_written__input_offered_before_output),
		cmocka_unit_test(check__own_port__input_when_read_output_when_written),
		cmocka_unit_test(check__bare_name__what_may_be_used_there_first),
		cmocka_unit_test(check__coupling__output_at_the_source_input_at_the_target),
		cmocka_unit_test(check__declared_inner_port__of_the_declared_direction_first),
		cmocka_unit_test(check__mistyped_owner__one_with_that_port_first),
		cmocka_unit_test(check__scenario_connection__output_source_input_target),
		cmocka_unit_test(check__inner_fmu_not_found__note_names_every_directory),
		cmocka_unit_test(check__absolute_fmu_path_not_found__note_says_no_directory_is_searched),
		cmocka_unit_test(check__module_not_found__note_names_every_directory),
		cmocka_unit_test(parse_only__missing_import__not_looked_for),
	};
	return cmocka_run_group_tests_name("diag_notes", tests, NULL, NULL);
}
