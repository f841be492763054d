/* test_emit_build.c — `sacc emit` writes what `sacc build` puts in the archive: for the same
 * script and options (--fmi, --isolate, --threads), the built FMU's modelDescription.xml and
 * sources/config.h, sources/<id>.c are byte for byte the files emit writes under
 * DIR/<id>/, but for the <SourceFiles> of an FMI 2.0 archive (the runtime files it lists
 * are packaging: emit writes none of them), which must be there and is all that differs.  Both commands are run as a user runs them (the sacc binary), over an FMI 2.0
 * script, FMI 3.0 scripts with numeric, String and Binary arrays (chosen by the script's
 * `fmi 3` clause or by --fmi 3), nested adaptations of one file (the outer over the inner's
 * FMI 3.0 wrapper; both FMI 2.0 with --fmi 2), and an FMI 3.0 build with isolated inners and two threads; emit refuses
 * what build refuses. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sacc_test.h"

#define SUB "emit-build"

/* The whole file (at most 4 MiB), NUL-terminated, to be freed; *n its length. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	char *text = malloc(4u << 20);
	assert_non_null(text);
	*n = fread(text, 1, 4u << 20, f);
	fclose(f);
	assert_true(*n > 0 && *n < (4u << 20));
	text[*n] = '\0'; /* for strstr */
	return text;
}

/* Removes the <SourceFiles> element from text (n bytes), the only child of CoSimulation,
 * which then closes as an empty element does ("<CoSimulation .../>"); whether it was there. */
static bool strip_source_files(char *text, size_t *n)
{
	char *sf = strstr(text, "<SourceFiles>");
	char *end = sf ? strstr(sf, "</CoSimulation>") : NULL;
	if (!end)
		return false;
	char *start = sf;
	while (start > text && start[-1] != '>')
		start--;
	start--; /* the '>' of <CoSimulation ...> */
	end += strlen("</CoSimulation>");
	memcpy(start, "/>", 2);
	start += 2;
	memmove(start, end, (size_t)(text + *n - end));
	*n -= (size_t)(end - start);
	return true;
}

/* sources: the built file is an FMI 2.0 model description, which has <SourceFiles> where
 * the emitted one has none. */
static void assert_same_file_but(const char *built, const char *emitted, bool sources)
{
	size_t nb, ne;
	char *b = slurp(built, &nb), *e = slurp(emitted, &ne);
	if (sources && !strip_source_files(b, &nb))
		fail_msg("%s (built) has no <SourceFiles>", built);
	if (strstr(e, "<SourceFiles>"))
		fail_msg("%s (emitted) has <SourceFiles>", emitted);
	if (nb != ne || memcmp(b, e, nb) != 0) {
		char cmd[3 * PATH_MAX];
		snprintf(cmd, sizeof cmd, "diff -u '%s' '%s' | head -40", built, emitted);
		if (system(cmd) < 0)
			perror("diff");
		fail_msg("%s (built) and %s (emitted) differ", built, emitted);
	}
	free(b);
	free(e);
}

static void assert_same_file(const char *built, const char *emitted)
{
	assert_same_file_but(built, emitted, false);
}

/* Runs sacc COMMAND with the suite's FMU directories and the power-window imports; its
 * standard error into err.  The exit status. */
static int sacc(const char *command, const char *options, const char *out, const char *script,
                const char *err)
{
	const char *b = test_build_dir();
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "'%s/sacc' %s -L '%s/fmus' -L '%s/fmus3' -I adaptations/powerwindow "
	         "%s -o '%s' '%s' 2> '%s'", b, command, b, b, options, out, script, err);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void print_file(const char *path)
{
	size_t n;
	char *text = slurp(path, &n);
	print_error("%.*s", (int)n, text);
	free(text);
}

/* Builds and emits script with options into BUILD/emit-build/<name>/{fmu,emit}, then checks
 * that each adaptation of ids (NULL-terminated) has the same three files in both, and that
 * the model description is of FMI version `fmi`. */
static void same_files(const char *name, const char *script, const char *options,
                       const char *const *ids, int fmi)
{
	char dir[PATH_MAX], fmu[PATH_MAX + 8], emitted[PATH_MAX + 8], err[PATH_MAX + 16];
	char cmd[4 * PATH_MAX];
	snprintf(dir, sizeof dir, "%s/%s/%s", test_build_dir(), SUB, name);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(fmu, sizeof fmu, "%s/fmu", dir);
	snprintf(emitted, sizeof emitted, "%s/emit", dir);
	snprintf(err, sizeof err, "%s/build.err", dir);
	if (sacc("build", options, fmu, script, err) != 0) {
		print_file(err);
		fail_msg("sacc build %s %s failed", options, script);
	}
	snprintf(err, sizeof err, "%s/emit.err", dir);
	if (sacc("emit", options, emitted, script, err) != 0) {
		print_file(err);
		fail_msg("sacc emit %s %s failed", options, script);
	}
	for (int i = 0; ids[i]; i++) {
		char unpacked[PATH_MAX + 64], a[2 * PATH_MAX], e[2 * PATH_MAX];
		snprintf(unpacked, sizeof unpacked, "%s/unpacked-%s", dir, ids[i]);
		snprintf(cmd, sizeof cmd, "'%s/sacc' unpack '%s/%s.fmu' '%s'", test_build_dir(), fmu,
		         ids[i], unpacked);
		assert_int_equal(system(cmd), 0);
		snprintf(a, sizeof a, "%s/modelDescription.xml", unpacked);
		snprintf(e, sizeof e, "%s/%s/modelDescription.xml", emitted, ids[i]);
		assert_same_file_but(a, e, fmi != 3);
		size_t n;
		char *md = slurp(e, &n);
		const char *want = fmi == 3 ? "fmiVersion=\"3.0\"" : "fmiVersion=\"2.0\"";
		if (!strstr(md, want))
			fail_msg("%s has no %s", e, want);
		free(md);
		snprintf(a, sizeof a, "%s/sources/config.h", unpacked);
		snprintf(e, sizeof e, "%s/%s/config.h", emitted, ids[i]);
		assert_same_file(a, e);
		snprintf(a, sizeof a, "%s/sources/%s.c", unpacked, ids[i]);
		snprintf(e, sizeof e, "%s/%s/%s.c", emitted, ids[i], ids[i]);
		assert_same_file(a, e);
	}
}

static void emit_build__fmi2_script__same_files(void **state)
{
	(void)state;
	static const char *const ids[] = {"window_sa", NULL};
	same_files("fmi2", "adaptations/powerwindow/window_sa.sa", "", ids, 2);
}

static void emit_build__fmi3_option_over_arrays__same_files(void **state)
{
	(void)state;
	static const char *const ids[] = {"array3_sa", NULL};
	same_files("arrays-fmi3", "tests/e2e3/array3_sa.sa", "--fmi 3", ids, 3);
}

/* The script's `fmi 3` clauses choose, for both; the outer wrapper names the inner's FMI 3.0
 * back end and its FMI 3.0 value references, as build finds it. */
static void emit_build__fmi3_clause_nested__same_files(void **state)
{
	(void)state;
	static const char *const ids[] = {"matrix3_in", "nested3_sa", NULL};
	same_files("nested3", "tests/e2e3/nested3_sa.sa", "", ids, 3);
}

static void emit_build__string_and_binary_arrays__same_files(void **state)
{
	(void)state;
	static const char *const strarr[] = {"strarr3_sa", NULL};
	same_files("strarr3", "tests/e2e3/strarr3_sa.sa", "--fmi 3", strarr, 3);
	static const char *const nested[] = {"strarr3_in", "strarr3_nested", NULL};
	same_files("strarr3-nested", "tests/e2e3/strarr3_nested_sa.sa", "", nested, 3);
	static const char *const binary[] = {"inner_sa", "outer_sa", NULL};
	same_files("binary3", "tests/e2e/types3/nested_binary_sa.sa", "", binary, 3);
}

/* Nested wrappers over an FMI 2.0 FMU as the clauses say (FMI 3.0), and with --fmi 2, which
 * overrides them: the outer wrapper then names its inner adaptation's FMI 2.0 back end. */
static void emit_build__nested_scalars_both_versions__same_files(void **state)
{
	(void)state;
	static const char *const ids[] = {"motor_in", "motor_out", NULL};
	same_files("nested-fmi3", "tests/e2e/emit_nested_sa.sa", "", ids, 3);
	same_files("nested-fmi2", "tests/e2e/emit_nested_sa.sa", "--fmi 2", ids, 2);
}

static void emit_build__isolated_and_threads__same_files(void **state)
{
	(void)state;
	static const char *const ids[] = {"threads_sa", NULL};
	same_files("threads", "tests/e2e/threads_sa.sa", "--fmi 3 --isolate a,c --threads 2", ids, 3);
	/* and they reach the C: the isolated inners marked, the threads bound written */
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s/threads/emit/threads_sa/threads_sa.c", test_build_dir(),
	         SUB);
	size_t n;
	char *c = slurp(path, &n);
	assert_non_null(strstr(c, ".isolated = 1,"));
	assert_non_null(strstr(c, ".threads = 2,"));
	free(c);
}

/* Emit refuses what build refuses: arrays in an FMI 2.0 wrapper, an --isolate name no inner
 * has. */
static void emit_build__refusals__as_build(void **state)
{
	(void)state;
	char dir[PATH_MAX], err[PATH_MAX + 16];
	snprintf(dir, sizeof dir, "%s/%s/refused", test_build_dir(), SUB);
	snprintf(err, sizeof err, "%s.err", dir);
	assert_int_equal(sacc("emit", "", dir, "tests/e2e3/array3_sa.sa", err), 1);
	size_t n;
	char *text = slurp(err, &n);
	assert_non_null(strstr(text, "FMI 2.0"));
	free(text);
	assert_int_equal(sacc("emit", "--isolate nosuch", dir, "tests/e2e/threads_sa.sa", err), 1);
	text = slurp(err, &n);
	assert_non_null(strstr(text, "--isolate: no adaptation built has an inner fmu 'nosuch'"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(emit_build__fmi2_script__same_files),
		cmocka_unit_test(emit_build__fmi3_option_over_arrays__same_files),
		cmocka_unit_test(emit_build__fmi3_clause_nested__same_files),
		cmocka_unit_test(emit_build__string_and_binary_arrays__same_files),
		cmocka_unit_test(emit_build__nested_scalars_both_versions__same_files),
		cmocka_unit_test(emit_build__isolated_and_threads__same_files),
		cmocka_unit_test(emit_build__refusals__as_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
