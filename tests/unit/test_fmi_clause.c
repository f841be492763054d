/* test_fmi_clause.c — the adaptation header's `fmi N` clause (docs/language.md, section 3)
 * and `sacc build --fmi`, which overrides it, run as users run them (the SACC_BUILD binary):
 * which FMI version each wrapper is built as (its model description's fmiVersion and its
 * platform directory), a wrapper over an inner adaptation of the other version built in
 * the same run and simulated (z = gain v, by hand), the clause printed back by `sacc
 * parse`, and a wrong clause reported where it is. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

/* clause_inner asks for FMI 3.0, clause_outer (over it) says nothing: FMI 2.0. */
static const char script[] =
	"module clause\n"
	"\n"
	"semantic adaptation reactive mealy clause_inner\n"
	"at \"clause_inner.fmu\" fmi 3\n"
	"\n"
	"\tfor inner fmu Affine aff\n"
	"\t\tat \"affine.fmu\"\n"
	"\n"
	"input ports Real u -> aff.u\n"
	"output ports Real y <- aff.y\n"
	"\n"
	"semantic adaptation reactive mealy clause_outer\n"
	"at \"clause_outer.fmu\"\n"
	"\n"
	"\tfor inner fmu ClauseInner sub\n"
	"\t\tat \"clause_inner.fmu\"\n"
	"\n"
	"input ports Real v -> sub.u\n"
	"output ports Real z <- sub.y\n";

static int setup(void **state)
{
	if (sim_setup(state, "test_fmi_clause"))
		return -1;
	write_text(*state, "clause.sa", script);
	return 0;
}

/* `sacc CMD ARGS` in the scratch directory (stdout to out.txt, stderr to err.txt); its
 * exit status. */
static int sacc(Ctx *c, const char *cmd, const char *args)
{
	char b[PATH_MAX], line[4096 + PATH_MAX];
	assert_non_null(realpath(test_build_dir(), b));
	snprintf(line, sizeof line, "cd '%s' && TMPDIR='%s' '%s/sacc' %s %s >out.txt 2>err.txt",
	         c->dir, c->tmp, b, cmd, args);
	int st = system(line);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Builds clause.sa into DIR (with extra options); both FMUs unpacked under DIR/x/. */
static void build(Ctx *c, const char *dir, const char *opts)
{
	char args[1024 + PATH_MAX], b[PATH_MAX];
	assert_non_null(realpath(test_build_dir(), b));
	snprintf(args, sizeof args, "%s -L '%s/fmus' -o %s clause.sa", opts, b, dir);
	int rc = sacc(c, "build", args);
	if (rc != 0)
		print_error("%s", file_in(c, "err.txt"));
	assert_int_equal(rc, 0);
	snprintf(args, sizeof args, "mkdir -p '%s/%s/x'", c->dir, dir);
	assert_int_equal(system(args), 0);
	const char *ids[] = {"clause_inner", "clause_outer"};
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof args, "%s/%s.fmu %s/x/%s", dir, ids[i], dir, ids[i]);
		rc = sacc(c, "unpack", args);
		if (rc != 0)
			print_error("%s", file_in(c, "err.txt"));
		assert_int_equal(rc, 0);
	}
}

/* The FMI version FMU id of DIR was built as: its fmiVersion, checked against where its
 * library is. */
static int version_of(Ctx *c, const char *dir, const char *id)
{
	char rel[200], lib[800];
	snprintf(rel, sizeof rel, "%s/x/%s/modelDescription.xml", dir, id);
	char *md = file_in(c, rel);
	int v = strstr(md, "fmiVersion=\"3.0\"") ? 3 : strstr(md, "fmiVersion=\"2.0\"") ? 2 : 0;
	free(md);
	snprintf(lib, sizeof lib, "%s/%s/x/%s/binaries/%s/%s.so", c->dir, dir, id,
	         v == 3 ? "x86_64-linux" : "linux64", id);
	FILE *f = fopen(lib, "r");
	if (!f)
		print_error("no %s\n", lib);
	assert_non_null(f);
	fclose(f);
	return v;
}

/* z = gain v through the nested wrappers: v = 2, gain set to 3 two levels down. */
static void assert_runs(Ctx *c, const char *dir)
{
	char args[1024];
	snprintf(args, sizeof args, "'%s/%s/clause_outer.fmu' --stop 0.2 --step 0.1 "
	         "--set clause_outer.v=2 --set clause_outer.sub.aff.gain=3 -o '%s/r.csv'",
	         c->dir, dir, c->dir);
	int rc = simulate(c, args);
	if (rc != 0)
		print_error("%s", file_in(c, "err.txt"));
	assert_int_equal(rc, 0);
	char *csv = file_in(c, "r.csv");
	assert_string_equal(csv, "time,clause_outer.z\n0,6\n0.1,6\n0.2,6\n");
	free(csv);
}

static void clause__fmi_3__that_adaptation_alone_is_fmi3(void **state)
{
	Ctx *c = *state;
	build(c, "mixed", "");
	assert_int_equal(version_of(c, "mixed", "clause_inner"), 3);
	assert_int_equal(version_of(c, "mixed", "clause_outer"), 2);
	assert_runs(c, "mixed");
}

static void build_fmi__overrides_the_clause__every_wrapper(void **state)
{
	Ctx *c = *state;
	build(c, "all2", "--fmi 2");
	assert_int_equal(version_of(c, "all2", "clause_inner"), 2);
	assert_int_equal(version_of(c, "all2", "clause_outer"), 2);
	assert_runs(c, "all2");
	build(c, "all3", "--fmi 3");
	assert_int_equal(version_of(c, "all3", "clause_inner"), 3);
	assert_int_equal(version_of(c, "all3", "clause_outer"), 3);
	assert_runs(c, "all3");
}

static void parse__clause__printed_back(void **state)
{
	Ctx *c = *state;
	assert_int_equal(sacc(c, "parse", "clause.sa"), 0);
	char *out = file_in(c, "out.txt");
	assert_contains(out, "at \"clause_inner.fmu\" fmi 3\n");
	assert_contains(out, "at \"clause_outer.fmu\"\n");
	free(out);
	/* 3.0 is read as 3, and a port may still be called fmi */
	write_text(c, "real.sa", "semantic adaptation a\nat \"a.fmu\" fmi 3.0\n"
	                         "for inner fmu Affine aff at \"affine.fmu\"\n"
	                         "input ports Real fmi -> aff.u\n");
	assert_int_equal(sacc(c, "parse", "real.sa"), 0);
	out = file_in(c, "out.txt");
	assert_contains(out, "at \"a.fmu\" fmi 3\n");
	free(out);
}

static void clause__wrong__error_at_its_place(void **state)
{
	Ctx *c = *state;
	static const struct {
		const char *header, *msg;
	} cases[] = {
		{"at \"a.fmu\" fmi 4", "bad.sa:2:16: error: FMI version '4' is not one sacc builds: 2 or 3"},
		{"at \"a.fmu\" fmi 1.0", "bad.sa:2:16: error: FMI version '1.0' is not one sacc builds"},
		{"at \"a.fmu\" version 3", "bad.sa:2:12: error: expected 'fmi' and a version, or 'for "
		                         "inner fmu', after the adaptation's 'at'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "semantic adaptation a\n%s\n"
		         "for inner fmu Affine aff at \"affine.fmu\"\n", cases[i].header);
		write_text(c, "bad.sa", text);
		assert_int_equal(sacc(c, "parse", "bad.sa"), 1);
		char *err = file_in(c, "err.txt");
		assert_contains(err, cases[i].msg);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__clause__printed_back),
		cmocka_unit_test(clause__wrong__error_at_its_place),
		cmocka_unit_test(clause__fmi_3__that_adaptation_alone_is_fmi3),
		cmocka_unit_test(build_fmi__overrides_the_clause__every_wrapper),
	};
	return cmocka_run_group_tests_name("fmi_clause", tests, setup, teardown);
}
