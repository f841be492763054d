/* e2e_kit.h — what the end-to-end wrapper tests share (test_e2e_strings.c,
 * test_e2e_wrapper3.c, test_e2e_types3.c, test_e2e_events3.c, test_e2e_early3.c,
 * test_e2e_arrays3.c, test_e2e_binary3.c, test_e2e_strarr3.c): a model description read
 * whole, or its attributes line by line; with sacc_test.h and package.h included before
 * it, also a script built into BUILD/<sub>/ through the library as `sacc build` builds it
 * (FMI version, import and FMU directories, isolated inners: build_with) and a built FMU
 * unpacked by `sacc unpack`.
 *
 * Include after <cmocka.h>, with _XOPEN_SOURCE 700 defined for realpath. */
#ifndef SACC_E2E_KIT_H
#define SACC_E2E_KIT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* attr="..." of the first line of dir/modelDescription.xml holding both key and attr. */
static inline int md_attr(const char *dir, const char *key, const char *attr, char *out,
                          size_t size)
{
	char path[PATH_MAX + 128], line[1024], pat[64];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	snprintf(pat, sizeof pat, "%s=\"", attr);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	int found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		char *a = strstr(line, pat);
		if (a && strstr(line, key)) {
			a += strlen(pat);
			size_t n = strcspn(a, "\"");
			assert_true(n < size);
			memcpy(out, a, n);
			out[n] = '\0';
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* dir/modelDescription.xml whole (at most 1 MiB), to be freed. */
static inline char *read_md(const char *dir)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *text = calloc(1, 1 << 20);
	assert_non_null(text);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(n > 0);
	return text;
}

/* A failure, showing the model description, unless it holds what. */
static inline void assert_has(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("no '%s' in the model description:\n%s", what, text);
}

/* The value reference of variable name in dir's model description (a failure if none). */
static inline unsigned vr_of(const char *dir, const char *name)
{
	char key[128], v[32];
	snprintf(key, sizeof key, "name=\"%s\"", name);
	if (!md_attr(dir, key, "valueReference", v, sizeof v))
		fail_msg("%s has no variable %s", dir, name);
	return (unsigned)strtoul(v, NULL, 10);
}

#if defined(SACC_TEST_H) && defined(SACC_PACKAGE_H)
/* How build_with builds a script: as FMI `version` (2 or 3; 0: as the script says), its
 * imports found in include_dir and its inner FMUs in BUILD/<fmu_dir>/ (either NULL: not
 * searched), its inners isolated as `isolate` says (NULL: in process; "all" or a
 * comma-separated list of inners). */
typedef struct BuildOptions {
	int version;
	const char *include_dir;
	const char *fmu_dir;
	const char *isolate;
	bool search_out; /* BUILD/<sub>/ searched too: a wrapper over an FMU built there before */
} BuildOptions;

/* Builds script into BUILD/<sub>/ as o says, through the library as `sacc build` does; the
 * number of errors, the diagnostics into diag. */
static inline int build_with(const char *script, const char *sub, BuildOptions o, char *diag,
                             size_t size)
{
	char out[PATH_MAX], fmus[PATH_MAX];
	snprintf(out, sizeof out, "%s/%s", test_build_dir(), sub);
	TestRun *t = tr_new();
	if (o.include_dir)
		drv_add_include_dir(t->c, o.include_dir);
	if (o.fmu_dir) {
		snprintf(fmus, sizeof fmus, "%s/%s", test_build_dir(), o.fmu_dir);
		drv_add_fmu_dir(t->c, fmus);
	}
	if (o.search_out)
		drv_add_fmu_dir(t->c, out);
	Module *m = drv_load(t->c, script);
	assert_non_null(m);
	int errors = drv_explicit(t->c, m, NULL);
	if (!errors) {
		PkgOptions po = {out, NULL, o.version, o.isolate, 0, false};
		errors = pkg_build(t->c, &m, 1, &po);
	}
	snprintf(diag, size, "%s", tr_diag(t));
	tr_free(t);
	return errors;
}

/* Builds script as FMI `version` (2 or 3) into BUILD/<sub>/; the power-window adaptations
 * (adaptations/powerwindow/) are where its imports are found.  A failure shows the
 * diagnostics. */
static inline void build_as(const char *script, int version, const char *sub)
{
	static char diag[16384];
	BuildOptions o = {version, "adaptations/powerwindow/", NULL, NULL, false};
	int errors = build_with(script, sub, o, diag, sizeof diag);
	if (errors)
		print_error("%s", diag);
	assert_int_equal(errors, 0);
}

/* BUILD/<sub>/<id>.fmu unpacked into BUILD/<sub>/<id>/ (emptied first); its absolute path
 * in dir. */
static inline void unpack(const char *sub, const char *id, char dir[PATH_MAX])
{
	char cmd[4 * PATH_MAX], rel[PATH_MAX];
	snprintf(rel, sizeof rel, "%s/%s/%s", test_build_dir(), sub, id);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s/sacc' unpack '%s.fmu' '%s'", rel,
	         test_build_dir(), rel, rel);
	assert_int_equal(system(cmd), 0);
	assert_non_null(realpath(rel, dir));
}
#endif

#endif
