/* test_e2e_strarr3.c — FMI 3.0 String and Binary arrays through wrappers: a pass-through
 * over the FMI 3.0 test FMU strarr3 (a String array in, the same reversed out, the three
 * joined with commas; a Binary array in, the same out; a Binary scalar reversed), built by
 * sacc as FMI 3.0 in process and with the inner isolated, stepped through the suite's
 * minimal FMI 3.0 importer beside the bare FMU: every output the same bytes over a few
 * hundred steps of changing inputs (commas, quotes, empty Strings; zero bytes, empty
 * Binaries), each array gotten and set whole (nValues its elements, row-major), FMU states
 * got, set and serialized, a wrong nValues an error with a message, single String elements
 * read and written by rules, the model description (Dimension and one <Start> per element)
 * through fmi3_md_check; the FMI 2.0 build refused naming the ports. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmi3_importer.h"
#include "package.h"
#include "sacc_test.h"
#include "e2e_kit.h"
#include "e2e_fmi3.h"

#define PASS_SA "tests/e2e3/strarr3_sa.sa"
#define INDEX_SA "tests/e2e3/strindex3_sa.sa"
#define NESTED_SA "tests/e2e3/strarr3_nested_sa.sa"
#define OVER_SA "tests/e2e3/strarr3_over_sa.sa"
#define OUT "e2e-strarr3/fmi3"
#define OUT_ISOLATED "e2e-strarr3/fmi3-isolated"
#define STRARR3_TOKEN "{7e3b9c51-2d84-4a6f-b0e1-95c2f8a4d736}"
#define NSTEPS 200

/* ---- building and loading ------------------------------------------------------------------ */

/* Builds script as FMI `version` into BUILD/<sub>/, its inner isolated as `isolate` says
 * (NULL: in process); the diagnostics go to diag.  The number of errors. */
static int build(const char *script, int version, const char *sub, const char *isolate,
                 char *diag, size_t size)
{
	/* BUILD/<sub>/ is searched too: OVER_SA's inner is the pass-through built there before */
	BuildOptions o = {version, NULL, "fmus3", isolate, true};
	return build_with(script, sub, o, diag, size);
}

/* The pass-through's warnings, kept for the test that checks them. */
static char pass_diag[16384];

static int group_setup(void **state)
{
	(void)state;
	char diag[16384];
	const char *scripts[] = {PASS_SA, INDEX_SA, NESTED_SA, OVER_SA};
	for (int i = 0; i < 4; i++) {
		if (build(scripts[i], 3, OUT, NULL, diag, sizeof diag))
			fail_msg("the FMI 3.0 build of %s failed:\n%s", scripts[i], diag);
		if (i == 0)
			snprintf(pass_diag, sizeof pass_diag, "%s", diag);
		if (build(scripts[i], 3, OUT_ISOLATED, "all", diag, sizeof diag))
			fail_msg("the isolated FMI 3.0 build of %s failed:\n%s", scripts[i], diag);
	}
	return 0;
}

/* The bare strarr3, its value references those of its model description. */
static void start_bare(Fmu3 *f)
{
	fmu3_start_bare(f, "strarr3", STRARR3_TOKEN);
}

/* ---- the pass-through ------------------------------------------------------------------------ */

/* Element i of s_in at step k: commas, quotes, spaces and empty Strings among them. */
static void s_at(int k, int i, char *buf, size_t size)
{
	static const char *const parts[] = {"", "a,b", "\"q\"", "it's", " x ", "\"\",\"", "é"};
	int n = (int)(sizeof parts / sizeof parts[0]);
	snprintf(buf, size, "%s%d%s", parts[(k + i) % n], (k * 7 + i) % 5 ? k : -k,
	         parts[(k * 3 + i * 2) % n]);
	if ((k + 2 * i) % 11 == 0)
		buf[0] = '\0';
}

typedef struct Out {
	char s_out[3][64], joined[200];
	double y;
	size_t b_size[3];          /* b_out[1], b_out[2], b1_out */
	unsigned char b[3][64];
} Out;

/* Element i of b_in (i = 2: b1_in) at step k: zero bytes among them, empty now and then. */
static size_t b_at(int k, int i, unsigned char *buf)
{
	size_t n = (size_t)((k * 5 + i * 3) % 9);
	if ((k + i) % 7 == 0)
		n = 0;
	for (size_t j = 0; j < n; j++)
		buf[j] = (unsigned char)((j + (size_t)k * 31 + (size_t)i) % 3 == 0 ? 0 : k * 7 + j + i);
	return n;
}

static void set_inputs(Fmu3 *f, int k)
{
	char buf[3][64];
	const char *s[3];
	for (int i = 0; i < 3; i++) {
		s_at(k, i, buf[i], sizeof buf[i]);
		s[i] = buf[i];
	}
	fmi3ValueReference s_in = vr_of(f->dir, "s_in"), x = vr_of(f->dir, "x");
	const fmi3Float64 xv = 0.1 * k - 3;
	assert_int_equal(f->api.set_string(f->c, &s_in, 1, s, 3), fmi3OK);
	assert_int_equal(f->api.set_float64(f->c, &x, 1, &xv, 1), fmi3OK);
	/* b_in (an array of 2) and b1_in in one call: two references, three values */
	unsigned char bytes[3][16];
	size_t sizes[3];
	fmi3Binary vals[3];
	for (int i = 0; i < 3; i++) {
		sizes[i] = b_at(k, i, bytes[i]);
		vals[i] = bytes[i];
	}
	fmi3ValueReference b[2] = {vr_of(f->dir, "b_in"), vr_of(f->dir, "b1_in")};
	assert_int_equal(f->api.set_binary(f->c, b, 2, sizes, vals, 3), fmi3OK);
}

/* s_out and joined in one call: an array and a scalar, four values. */
static void get_outputs(Fmu3 *f, Out *o)
{
	fmi3ValueReference vr[2] = {vr_of(f->dir, "s_out"), vr_of(f->dir, "joined")};
	fmi3ValueReference y = vr_of(f->dir, "y");
	fmi3String v[4] = {NULL, NULL, NULL, NULL};
	memset(o, 0, sizeof *o);
	assert_int_equal(f->api.get_string(f->c, vr, 2, v, 4), fmi3OK);
	for (int i = 0; i < 3; i++) {
		assert_non_null(v[i]);
		assert_true(strlen(v[i]) < sizeof o->s_out[i]);
		strcpy(o->s_out[i], v[i]);
	}
	assert_non_null(v[3]);
	assert_true(strlen(v[3]) < sizeof o->joined);
	strcpy(o->joined, v[3]);
	assert_int_equal(f->api.get_float64(f->c, &y, 1, &o->y, 1), fmi3OK);
	fmi3ValueReference b[2] = {vr_of(f->dir, "b_out"), vr_of(f->dir, "b1_out")};
	fmi3Binary bv[3] = {NULL, NULL, NULL};
	assert_int_equal(f->api.get_binary(f->c, b, 2, o->b_size, bv, 3), fmi3OK);
	for (int i = 0; i < 3; i++) {
		assert_true(o->b_size[i] <= sizeof o->b[i]);
		if (o->b_size[i])
			memcpy(o->b[i], bv[i], o->b_size[i]);
	}
}

/* The wrapper id built into BUILD/<sub>/ stepped beside the bare strarr3. */
static void compare_id(const char *sub, const char *id)
{
	Fmu3 w, b;
	fmu3_start_wrapper(&w, sub, id);
	start_bare(&b);
	/* before any input is set: the inner's start values, reversed */
	Out ow, ob;
	get_outputs(&w, &ow);
	assert_string_equal(ow.s_out[0], "c");
	assert_string_equal(ow.s_out[2], "a");
	assert_string_equal(ow.joined, "a,b,c");
	assert_int_equal(ow.b_size[0], 2);
	assert_true(ow.b[0][0] == 0x00 && ow.b[0][1] == 0xff);
	assert_int_equal(ow.b_size[1], 0);
	for (int k = 0; k < NSTEPS; k++) {
		set_inputs(&w, k);
		set_inputs(&b, k);
		assert_int_equal(fmu3_step(&b, k * 0.125, 0.125), fmi3OK);
		assert_int_equal(fmu3_step(&w, k * 0.125, 0.125), fmi3OK);
		get_outputs(&b, &ob);
		get_outputs(&w, &ow);
		assert_memory_equal(&ow, &ob, sizeof ow);
		/* and the bare FMU computed what strarr3 says: s_out the reverse, joined with ',' */
		char want[3][64], all[200];
		for (int i = 0; i < 3; i++)
			s_at(k, i, want[i], sizeof want[i]);
		snprintf(all, sizeof all, "%s,%s,%s", want[0], want[1], want[2]);
		for (int i = 0; i < 3; i++)
			assert_string_equal(ob.s_out[i], want[2 - i]);
		assert_string_equal(ob.joined, all);
		/* b_out = b_in, b1_out = b1_in reversed */
		unsigned char bytes[16];
		for (int i = 0; i < 3; i++) {
			size_t n = b_at(k, i, bytes);
			assert_int_equal(ob.b_size[i], n);
			for (size_t j = 0; j < n; j++)
				assert_int_equal(ob.b[i][j], bytes[i < 2 ? j : n - 1 - j]);
		}
	}
	fmu3_stop(&w);
	fmu3_stop(&b);
}

static void compare(const char *sub)
{
	compare_id(sub, "strarr3_sa");
}

static void fmi3_wrapper__strarr3__outputs_the_same_as_the_bare_fmu(void **state)
{
	(void)state;
	compare(OUT);
}

static void isolated_inner__strarr3__outputs_the_same_as_the_bare_fmu(void **state)
{
	(void)state;
	compare(OUT_ISOLATED);
}

/* Every array kind and scalar through two wrappers of one build (strarr3_nested over
 * strarr3_in over strarr3), and through a wrapper over the wrapper FMU built before: the
 * values set at the outer wrapper reach strarr3 byte for byte, and its outputs come back
 * the same way. */
static void nested_same_build__every_array__outputs_the_same_as_the_bare_fmu(void **state)
{
	(void)state;
	compare_id(OUT, "strarr3_nested");
	compare_id(OUT_ISOLATED, "strarr3_nested");
}

static void over_built_wrapper__every_array__outputs_the_same_as_the_bare_fmu(void **state)
{
	(void)state;
	compare_id(OUT, "strarr3_over");
	compare_id(OUT_ISOLATED, "strarr3_over");
}

/* ---- single elements in the rules ------------------------------------------------------------ */

static void rules_index_elements(const char *sub)
{
	Fmu3 w, b;
	fmu3_start_wrapper(&w, sub, "strindex3_sa");
	start_bare(&b);
	fmi3ValueReference in[3] = {vr_of(w.dir, "s_in[1]"), vr_of(w.dir, "tag"),
	                            vr_of(w.dir, "s_in[3]")};
	fmi3ValueReference out[2] = {vr_of(w.dir, "last"), vr_of(w.dir, "joined")};
	fmi3ValueReference s_in = vr_of(b.dir, "s_in");
	for (int k = 0; k < NSTEPS; k++) {
		char buf[3][64];
		const char *s[3];
		for (int i = 0; i < 3; i++) {
			s_at(k, i, buf[i], sizeof buf[i]);
			s[i] = buf[i];
		}
		assert_int_equal(w.api.set_string(w.c, in, 3, s, 3), fmi3OK);
		assert_int_equal(b.api.set_string(b.c, &s_in, 1, s, 3), fmi3OK);
		assert_int_equal(fmu3_step(&b, k * 0.125, 0.125), fmi3OK);
		assert_int_equal(fmu3_step(&w, k * 0.125, 0.125), fmi3OK);
		Out ob;
		fmi3String got[2] = {NULL, NULL};
		get_outputs(&b, &ob);
		assert_int_equal(w.api.get_string(w.c, out, 2, got, 2), fmi3OK);
		assert_string_equal(got[0], ob.s_out[0]);
		assert_string_equal(got[1], ob.joined);
	}
	fmu3_stop(&w);
	fmu3_stop(&b);
}

static void rules__single_elements_read_and_written__as_the_bare_fmu(void **state)
{
	(void)state;
	rules_index_elements(OUT);
	rules_index_elements(OUT_ISOLATED);
}

/* ---- states ---------------------------------------------------------------------------------- */

static void run(Fmu3 *w, int k0, int k1, Out out[])
{
	for (int k = k0; k < k1; k++) {
		set_inputs(w, k);
		assert_int_equal(fmu3_step(w, k * 0.125, 0.125), fmi3OK);
		get_outputs(w, &out[k]);
	}
}

/* A state taken mid-run and set again (as is, and serialized and read back) gives the same
 * outputs again; the Strings got right after setting it are those of the state. */
static void states(const char *sub)
{
	Fmu3 w;
	static Out first[NSTEPS], again[NSTEPS], back[NSTEPS];
	fmi3FMUState s = NULL, s2 = NULL;
	size_t size = 0;
	memset(first, 0, sizeof first);
	memset(again, 0, sizeof again);
	memset(back, 0, sizeof back);
	fmu3_start_wrapper(&w, sub, "strarr3_sa");
	const int mid = NSTEPS / 2;
	run(&w, 0, mid, first);
	assert_int_equal(w.api.get_state(w.c, &s), fmi3OK);
	run(&w, mid, NSTEPS, first);
	assert_int_equal(w.api.set_state(w.c, s), fmi3OK);
	Out now;
	get_outputs(&w, &now);
	assert_memory_equal(&now, &first[mid - 1], sizeof now);
	run(&w, mid, NSTEPS, again);
	assert_memory_equal(&first[mid], &again[mid], (NSTEPS - mid) * sizeof first[0]);
	assert_int_equal(w.api.serialized_size(w.c, s, &size), fmi3OK);
	unsigned char *buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(w.api.serialize(w.c, s, buf, size), fmi3OK);
	assert_int_equal(w.api.deserialize(w.c, buf, size, &s2), fmi3OK);
	assert_int_equal(w.api.set_state(w.c, s2), fmi3OK);
	get_outputs(&w, &now);
	assert_memory_equal(&now, &first[mid - 1], sizeof now);
	run(&w, mid, NSTEPS, back);
	assert_memory_equal(&first[mid], &back[mid], (NSTEPS - mid) * sizeof first[0]);
	assert_true(memcmp(&first[mid - 1], &first[NSTEPS - 1], sizeof first[0]) != 0);
	assert_int_equal(w.api.free_state(w.c, &s), fmi3OK);
	assert_int_equal(w.api.free_state(w.c, &s2), fmi3OK);
	free(buf);
	fmu3_stop(&w);
}

static void fmi3_wrapper__state_get_set_serialize__same_outputs_again(void **state)
{
	(void)state;
	states(OUT);
}

static void isolated_inner__state_get_set_serialize__same_outputs_again(void **state)
{
	(void)state;
	states(OUT_ISOLATED);
}

/* ---- wrong calls ----------------------------------------------------------------------------- */

static void assert_logged(const char *what)
{
	if (!strstr(logged, what))
		fail_msg("no '%s' in what was logged:\n%s", what, logged);
}

static void fmi3_wrapper__wrong_nvalues__error_with_a_message(void **state)
{
	(void)state;
	Fmu3 w;
	fmu3_start_wrapper(&w, OUT, "strarr3_sa");
	fmi3ValueReference s_in = vr_of(w.dir, "s_in");
	fmi3ValueReference out[2] = {vr_of(w.dir, "s_out"), vr_of(w.dir, "joined")};
	fmi3String v[8] = {"p", "q", "r", "s", "t", "u", "v", "w"};
	logged[0] = '\0';
	assert_int_equal(w.api.set_string(w.c, &s_in, 1, v, 1), fmi3Error);
	assert_logged("fmi3SetString: 1 values for 1 value references that hold 3");
	logged[0] = '\0';
	assert_int_equal(w.api.get_string(w.c, out, 2, v, 3), fmi3Error);
	assert_logged("fmi3GetString: 3 values for 2 value references that hold 4");
	fmi3ValueReference inside = s_in + 1;
	logged[0] = '\0';
	assert_int_equal(w.api.get_string(w.c, &inside, 1, v, 1), fmi3Error);
	assert_logged("unknown value reference");
	/* and the right count still works after the errors */
	assert_int_equal(w.api.get_string(w.c, out, 2, v, 4), fmi3OK);
	assert_string_equal(v[3], "a,b,c");
	/* the same for Binaries */
	fmi3ValueReference b_in = vr_of(w.dir, "b_in"), b_out = vr_of(w.dir, "b_out");
	size_t sizes[3] = {1, 1, 1};
	fmi3Binary bv[3] = {(const fmi3Byte *)"x", (const fmi3Byte *)"y", (const fmi3Byte *)"z"};
	logged[0] = '\0';
	assert_int_equal(w.api.set_binary(w.c, &b_in, 1, sizes, bv, 1), fmi3Error);
	assert_logged("fmi3SetBinary: 1 values for 1 value references that hold 2");
	logged[0] = '\0';
	assert_int_equal(w.api.get_binary(w.c, &b_out, 1, sizes, bv, 3), fmi3Error);
	assert_logged("fmi3GetBinary: 3 values for 1 value references that hold 2");
	inside = b_in + 1;
	logged[0] = '\0';
	assert_int_equal(w.api.get_binary(w.c, &inside, 1, sizes, bv, 1), fmi3Error);
	assert_logged("unknown value reference");
	assert_int_equal(w.api.get_binary(w.c, &b_out, 1, sizes, bv, 2), fmi3OK);
	assert_int_equal(sizes[0], 2);
	assert_int_equal(sizes[1], 0);
	fmu3_stop(&w);
}

/* ---- the model description and the builds refused -------------------------------------------- */

static void fmi3_wrapper__model_description__arrays_with_dimension_and_starts(
	void **state)
{
	(void)state;
	char dir[PATH_MAX], cmd[3 * PATH_MAX];
	unpack(OUT, "strarr3_sa", dir);
	snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
	         test_build_dir(), dir);
	assert_int_equal(system(cmd), 0);
	/* the rules over elements: a mealy wrapper whose InitialUnknowns depend on Binaries too */
	char dir2[PATH_MAX];
	unpack(OUT, "strindex3_sa", dir2);
	snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
	         test_build_dir(), dir2);
	assert_int_equal(system(cmd), 0);
	char *md = read_md(dir);
	/* the Dimension first, then one <Start> per element, as FMI 3.0's schema orders them */
	assert_has(md, "causality=\"input\" variability=\"discrete\">\n"
	               "      <Dimension start=\"3\"/>\n      <Start value=\"a\"/>\n"
	               "      <Start value=\"b\"/>\n      <Start value=\"c\"/>\n    </String>");
	assert_has(md, "<String name=\"s_out\"");
	assert_has(md, "<String name=\"joined\"");
	assert_true(strstr(md, "s_in[") == NULL && strstr(md, "s_out[") == NULL);
	/* a Binary array as well, its start values hexadecimal (the second one empty) */
	assert_has(md, "maxSize=\"64\">\n      <Dimension start=\"2\"/>\n"
	               "      <Start value=\"00ff\"/>\n      <Start value=\"\"/>\n    </Binary>");
	assert_has(md, "<Binary name=\"b_out\"");
	assert_true(strstr(md, "b_in[") == NULL && strstr(md, "b_out[") == NULL);
	free(md);
	/* the wrappers over a wrapper declare the Binary array the same way */
	const char *outer[] = {"strarr3_nested", "strarr3_over"};
	for (int i = 0; i < 2; i++) {
		unpack(OUT, outer[i], dir);
		snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
		         test_build_dir(), dir);
		assert_int_equal(system(cmd), 0);
		md = read_md(dir);
		assert_has(md, "maxSize=\"64\">\n      <Dimension start=\"2\"/>\n"
		               "      <Start value=\"00ff\"/>\n      <Start value=\"\"/>\n    </Binary>");
		assert_has(md, "<Binary name=\"b_out\"");
		free(md);
	}
}

static void fmi2_wrapper__string_and_binary_arrays__refused_at_build_time_naming_them(void **state)
{
	(void)state;
	char diag[16384];
	assert_true(build(PASS_SA, 2, "e2e-strarr3/fmi2", NULL, diag, sizeof diag) > 0);
	if (!strstr(diag, "error: port 's_in' of inner fmu 's' is an array of 3 String") ||
	    !strstr(diag, "error: port 's_out' of inner fmu 's' is an array of 3 String") ||
	    !strstr(diag, "error: the Binary array input 'b_in' of inner fmu 's' is passed "
	                  "through, but an FMI 2.0 wrapper cannot carry it") ||
	    !strstr(diag, "error: the Binary array output 'b_out' of inner fmu 's'") ||
	    !strstr(diag, "note: build it as FMI 3.0"))
		fail_msg("not the expected messages:\n%s", diag);
}

/* Every port of strarr3 is forwarded: the build says nothing. */
static void fmi3_wrapper__every_array_forwarded__no_warning(void **state)
{
	(void)state;
	if (pass_diag[0])
		fail_msg("the build said:\n%s", pass_diag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmi3_wrapper__strarr3__outputs_the_same_as_the_bare_fmu),
		cmocka_unit_test(isolated_inner__strarr3__outputs_the_same_as_the_bare_fmu),
		cmocka_unit_test(nested_same_build__every_array__outputs_the_same_as_the_bare_fmu),
		cmocka_unit_test(over_built_wrapper__every_array__outputs_the_same_as_the_bare_fmu),
		cmocka_unit_test(rules__single_elements_read_and_written__as_the_bare_fmu),
		cmocka_unit_test(fmi3_wrapper__state_get_set_serialize__same_outputs_again),
		cmocka_unit_test(isolated_inner__state_get_set_serialize__same_outputs_again),
		cmocka_unit_test(fmi3_wrapper__wrong_nvalues__error_with_a_message),
		cmocka_unit_test(
			fmi3_wrapper__model_description__arrays_with_dimension_and_starts),
		cmocka_unit_test(
			fmi2_wrapper__string_and_binary_arrays__refused_at_build_time_naming_them),
		cmocka_unit_test(fmi3_wrapper__every_array_forwarded__no_warning),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
