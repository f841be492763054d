/* test_e2e_strings.c — String ports through wrappers, FMI 2.0 and FMI 3.0: the scripts of
 * tests/e2e/strings_sa.sa over the strings test FMU (s_out = s_in, tag = prefix + s_in,
 * len = length of s_in, same = (s_in == prefix), y = u), built as FMI 2.0 and as FMI 3.0 and
 * stepped through the suite's minimal importers.  Values are checked against what the
 * inner computes by hand; states carry Strings (get/set and serialize); a String longer
 * than the wrapper's is an error naming the variable; the model descriptions pass
 * sacc inspect (FMI 2.0's reader checks the schema) and fmi3_md_check. */
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

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "package.h"
#include "sacc_test.h"
#include "e2e_kit.h"

#define SCRIPT "tests/e2e/strings_sa.sa"
#define OUT2 "e2e-strings/fmi2"
#define OUT3 "e2e-strings/fmi3"

/* What the wrappers logged: every message, one a line. */
static char logged[16384];

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category;
	size_t used = strlen(logged);
	snprintf(logged + used, sizeof logged - used, "%s\n", message);
}

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
	(void)env, (void)status, (void)category;
	size_t used = strlen(logged);
	snprintf(logged + used, sizeof logged - used, "%s\n", message);
}

static const fmi2CallbackFunctions callbacks2 = {logger2, calloc, free, NULL, NULL};

static int group_setup(void **state)
{
	(void)state;
	build_as(SCRIPT, 2, OUT2);
	build_as(SCRIPT, 3, OUT3);
	return 0;
}

/* ---- FMI 2.0 ------------------------------------------------------------------------------ */

typedef struct W2 {
	Fmi2Api api;
	char dir[PATH_MAX];
	fmi2Component c;
} W2;

static void open2(W2 *w, const char *id)
{
	char lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	unpack(OUT2, id, w->dir);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/%s.so", w->dir, id);
	fmi2_import(&w->api, lib);
	assert_true(md_attr(w->dir, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", w->dir);
	w->c = w->api.instantiate("w2", fmi2CoSimulation, guid, uri, &callbacks2, fmi2False,
	                          fmi2False);
	assert_non_null(w->c);
	assert_int_equal(w->api.setup(w->c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
}

static void close2(W2 *w)
{
	assert_int_equal(w->api.terminate(w->c), fmi2OK);
	w->api.free_instance(w->c);
	fmi2_unimport(&w->api);
}

static void set_str2(W2 *w, const char *name, const char *v)
{
	fmi2ValueReference vr = vr_of(w->dir, name);
	assert_int_equal(w->api.set_string(w->c, &vr, 1, &v), fmi2OK);
}

static void expect_str2(W2 *w, const char *name, const char *want)
{
	fmi2ValueReference vr = vr_of(w->dir, name);
	fmi2String v = NULL;
	assert_int_equal(w->api.get_string(w->c, &vr, 1, &v), fmi2OK);
	assert_non_null(v);
	assert_string_equal(v, want);
}

static int get_int2(W2 *w, const char *name)
{
	fmi2ValueReference vr = vr_of(w->dir, name);
	fmi2Integer v = -1;
	assert_int_equal(w->api.get_integer(w->c, &vr, 1, &v), fmi2OK);
	return v;
}

static int get_bool2(W2 *w, const char *name)
{
	fmi2ValueReference vr = vr_of(w->dir, name);
	fmi2Boolean v = -1;
	assert_int_equal(w->api.get_boolean(w->c, &vr, 1, &v), fmi2OK);
	return v;
}

/* The pass-through forwards every String: its input before initialization, the inner's
 * String parameter exposed as s.prefix, and a new input between steps (Mealy: read back
 * before the next step). */
static void strpass2__strings_forwarded_both_ways(void **state)
{
	(void)state;
	W2 w;
	open2(&w, "strpass_sa");
	set_str2(&w, "s_in", "abc");
	set_str2(&w, "s.prefix", "P:");
	assert_int_equal(w.api.enter_init(w.c), fmi2OK);
	assert_int_equal(w.api.exit_init(w.c), fmi2OK);
	expect_str2(&w, "s_out", "abc");
	expect_str2(&w, "tag", "P:abc");
	expect_str2(&w, "s.prefix", "P:");
	assert_int_equal(get_int2(&w, "len"), 3);
	assert_int_equal(get_bool2(&w, "same"), 0);
	assert_int_equal(w.api.do_step(w.c, 0.0, 0.25, fmi2True), fmi2OK);
	set_str2(&w, "s_in", "P:");
	expect_str2(&w, "s_out", "P:");
	expect_str2(&w, "tag", "P:P:");
	assert_int_equal(get_bool2(&w, "same"), 1);
	assert_int_equal(w.api.do_step(w.c, 0.25, 0.25, fmi2True), fmi2OK);
	set_str2(&w, "s_in", ""); /* the empty String is a String */
	assert_int_equal(w.api.do_step(w.c, 0.5, 0.25, fmi2True), fmi2OK);
	expect_str2(&w, "s_out", "");
	expect_str2(&w, "tag", "P:");
	assert_int_equal(get_int2(&w, "len"), 0);
	close2(&w);
}

/* Several Strings in one call, and the returned pointers stay valid until the next call:
 * the wrapper owns the copies. */
static void strpass2__several_strings_in_one_get(void **state)
{
	(void)state;
	W2 w;
	open2(&w, "strpass_sa");
	assert_int_equal(w.api.enter_init(w.c), fmi2OK);
	assert_int_equal(w.api.exit_init(w.c), fmi2OK);
	char in[64];
	strcpy(in, "temp");
	const char *vin = in;
	fmi2ValueReference r = vr_of(w.dir, "s_in");
	assert_int_equal(w.api.set_string(w.c, &r, 1, &vin), fmi2OK);
	strcpy(in, "XXXX"); /* the importer's buffer changes: the wrapper kept its own copy */
	assert_int_equal(w.api.do_step(w.c, 0.0, 0.25, fmi2True), fmi2OK);
	fmi2ValueReference vr[2] = {vr_of(w.dir, "tag"), vr_of(w.dir, "s_out")};
	fmi2String v[2] = {NULL, NULL};
	assert_int_equal(w.api.get_string(w.c, vr, 2, v), fmi2OK);
	assert_string_equal(v[0], "> temp");
	assert_string_equal(v[1], "temp");
	close2(&w);
}

/* An FMU state holds the wrapper's Strings (and the inner's): restored, and through its
 * serialized form. */
static void strpass2__state_carries_strings(void **state)
{
	(void)state;
	W2 w;
	fmi2FMUstate s = NULL;
	open2(&w, "strpass_sa");
	assert_int_equal(w.api.enter_init(w.c), fmi2OK);
	assert_int_equal(w.api.exit_init(w.c), fmi2OK);
	set_str2(&w, "s_in", "one");
	assert_int_equal(w.api.do_step(w.c, 0.0, 0.25, fmi2True), fmi2OK);
	assert_int_equal(w.api.get_state(w.c, &s), fmi2OK);
	size_t size = 0;
	assert_int_equal(w.api.serialized_size(w.c, s, &size), fmi2OK);
	char *bytes = malloc(size);
	assert_non_null(bytes);
	assert_int_equal(w.api.serialize(w.c, s, bytes, size), fmi2OK);
	set_str2(&w, "s_in", "two");
	assert_int_equal(w.api.do_step(w.c, 0.25, 0.25, fmi2True), fmi2OK);
	expect_str2(&w, "tag", "> two");
	assert_int_equal(w.api.set_state(w.c, s), fmi2OK);
	expect_str2(&w, "tag", "> one");
	expect_str2(&w, "s_in", "one");
	/* stepped from the restored state without a new input: the inner has "one" again */
	assert_int_equal(w.api.do_step(w.c, 0.25, 0.25, fmi2True), fmi2OK);
	expect_str2(&w, "s_out", "one");
	set_str2(&w, "s_in", "three");
	assert_int_equal(w.api.do_step(w.c, 0.5, 0.25, fmi2True), fmi2OK);
	fmi2FMUstate back = NULL;
	assert_int_equal(w.api.deserialize(w.c, bytes, size, &back), fmi2OK);
	assert_int_equal(w.api.set_state(w.c, back), fmi2OK);
	expect_str2(&w, "tag", "> one");
	assert_int_equal(w.api.free_state(w.c, &s), fmi2OK);
	assert_int_equal(w.api.free_state(w.c, &back), fmi2OK);
	free(bytes);
	close2(&w);
}

/* A String longer than the wrapper's (1023 bytes) is refused, naming the variable; a NULL
 * one too.  One the inner refuses (the kit's are 63 bytes) fails the step with the inner's
 * message. */
static void strpass2__too_long_or_null__error_naming_the_variable(void **state)
{
	(void)state;
	W2 w;
	static char big[1100];
	memset(big, 'x', 1024);
	big[1024] = '\0';
	open2(&w, "strpass_sa");
	fmi2ValueReference r = vr_of(w.dir, "s_in");
	const char *v = big;
	logged[0] = '\0';
	assert_int_equal(w.api.set_string(w.c, &r, 1, &v), fmi2Error);
	assert_non_null(strstr(logged, "fmi2SetString: the value of 's_in' is a String of 1024 "
	                               "bytes, longer than the wrapper's 1023"));
	w.api.free_instance(w.c);
	fmi2_unimport(&w.api);

	open2(&w, "strpass_sa");
	v = NULL;
	logged[0] = '\0';
	assert_int_equal(w.api.set_string(w.c, &r, 1, &v), fmi2Error);
	assert_non_null(strstr(logged, "the value of 's_in' is NULL"));
	w.api.free_instance(w.c);
	fmi2_unimport(&w.api);

	open2(&w, "strpass_sa");
	big[100] = '\0';
	v = big;
	assert_int_equal(w.api.enter_init(w.c), fmi2OK);
	assert_int_equal(w.api.exit_init(w.c), fmi2OK);
	assert_int_equal(w.api.set_string(w.c, &r, 1, &v), fmi2OK); /* fits the wrapper */
	logged[0] = '\0';
	assert_int_equal(w.api.do_step(w.c, 0.0, 0.25, fmi2True), fmi2Error);
	/* the inner's own message (its limit is 63 bytes), then the wrapper's */
	assert_non_null(strstr(logged, "[s] fmi2SetString: the value for 's_in' is NULL or "
	                               "longer than 63 bytes"));
	assert_non_null(strstr(logged, "setting the inputs of 's' failed"));
	w.api.free_instance(w.c);
	fmi2_unimport(&w.api);
}

/* Strings in rules: a literal, == in a condition, String control and out vars. */
static void strrules2__strings_in_rules(void **state)
{
	(void)state;
	W2 w;
	open2(&w, "strrules_sa");
	assert_int_equal(w.api.enter_init(w.c), fmi2OK);
	assert_int_equal(w.api.exit_init(w.c), fmi2OK);
	/* after initialization: the out rules ran over the inner's start values (s_in "hello")
	 * and the control vars' initial values */
	expect_str2(&w, "said", "> hello");
	expect_str2(&w, "last", "none");
	assert_int_equal(get_bool2(&w, "stopped"), 0);
	static const struct {
		const char *word, *said, *last;
		int stopped;
	} steps[] = {
		{"go", "> go", "none", 0},
		{"stop", "> halt", "go", 1},
		{"on", "> on", "stop", 0},
	};
	for (int k = 0; k < 3; k++) {
		set_str2(&w, "word", steps[k].word);
		assert_int_equal(w.api.do_step(w.c, 0.25 * k, 0.25, fmi2True), fmi2OK);
		expect_str2(&w, "said", steps[k].said);
		expect_str2(&w, "last", steps[k].last);
		assert_int_equal(get_bool2(&w, "stopped"), steps[k].stopped);
	}
	close2(&w);
}

/* ---- FMI 3.0 ------------------------------------------------------------------------------ */

typedef struct W3 {
	Fmi3Api api;
	char dir[PATH_MAX], token[64], resources[PATH_MAX + 16];
	fmi3Instance c;
} W3;

static void open3(W3 *w, const char *id)
{
	char lib[2 * PATH_MAX];
	unpack(OUT3, id, w->dir);
	assert_true(md_attr(w->dir, "instantiationToken", "instantiationToken", w->token,
	                    sizeof w->token));
	snprintf(w->resources, sizeof w->resources, "%s/resources/", w->dir);
	snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/%s.so", w->dir, id);
	fmi3_import(&w->api, lib);
	w->c = w->api.instantiate("w3", w->token, w->resources, fmi3False, fmi3False, fmi3False,
	                          fmi3False, NULL, 0, NULL, logger3, NULL);
	assert_non_null(w->c);
}

static void set_str3(W3 *w, const char *name, const char *v)
{
	fmi3ValueReference vr = vr_of(w->dir, name);
	assert_int_equal(w->api.set_string(w->c, &vr, 1, &v, 1), fmi3OK);
}

static void expect_str3(W3 *w, const char *name, const char *want)
{
	fmi3ValueReference vr = vr_of(w->dir, name);
	fmi3String v = NULL;
	assert_int_equal(w->api.get_string(w->c, &vr, 1, &v, 1), fmi3OK);
	assert_non_null(v);
	assert_string_equal(v, want);
}

static void step3(W3 *w, double t, double h)
{
	fmi3Boolean event = fmi3True, terminate = fmi3True, early = fmi3True;
	double last = 0;
	assert_int_equal(w->api.do_step(w->c, t, h, fmi3False, &event, &terminate, &early, &last),
	                 fmi3OK);
	assert_false(early);
}

/* The same as strpass2__strings_forwarded_both_ways, through FMI 3.0: the Strings' value
 * references after every other type's, the String start values as <Start> elements. */
static void strpass3__strings_forwarded_and_stated(void **state)
{
	(void)state;
	W3 w;
	open3(&w, "strpass_sa");
	set_str3(&w, "s_in", "abc");
	set_str3(&w, "s.prefix", "P:");
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w.api.exit_init(w.c), fmi3OK);
	expect_str3(&w, "s_out", "abc");
	expect_str3(&w, "tag", "P:abc");
	step3(&w, 0.0, 0.25);
	set_str3(&w, "s_in", "xyz");
	expect_str3(&w, "tag", "P:xyz");
	/* a String state through serialization */
	fmi3FMUState s = NULL;
	size_t size = 0;
	assert_int_equal(w.api.get_state(w.c, &s), fmi3OK);
	assert_int_equal(w.api.serialized_size(w.c, s, &size), fmi3OK);
	fmi3Byte *bytes = malloc(size);
	assert_non_null(bytes);
	assert_int_equal(w.api.serialize(w.c, s, bytes, size), fmi3OK);
	step3(&w, 0.25, 0.25);
	set_str3(&w, "s_in", "later");
	step3(&w, 0.5, 0.25);
	expect_str3(&w, "s_out", "later");
	fmi3FMUState back = NULL;
	assert_int_equal(w.api.deserialize(w.c, bytes, size, &back), fmi3OK);
	assert_int_equal(w.api.set_state(w.c, back), fmi3OK);
	expect_str3(&w, "s_in", "xyz");
	expect_str3(&w, "tag", "P:xyz");
	/* a String value reference given to fmi3GetFloat64 is unknown there */
	fmi3ValueReference sr = vr_of(w.dir, "s_in");
	double x;
	assert_int_equal(w.api.get_float64(w.c, &sr, 1, &x, 1), fmi3Error);
	assert_int_equal(w.api.free_state(w.c, &s), fmi3OK);
	assert_int_equal(w.api.free_state(w.c, &back), fmi3OK);
	free(bytes);
	assert_int_equal(w.api.terminate(w.c), fmi3OK);
	w.api.free_instance(w.c);
	fmi3_unimport(&w.api);
}

static void strrules3__strings_in_rules(void **state)
{
	(void)state;
	W3 w;
	open3(&w, "strrules_sa");
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w.api.exit_init(w.c), fmi3OK);
	set_str3(&w, "word", "stop");
	step3(&w, 0.0, 0.25);
	expect_str3(&w, "said", "> halt");
	expect_str3(&w, "last", "none");
	set_str3(&w, "word", "x");
	step3(&w, 0.25, 0.25);
	expect_str3(&w, "said", "> x");
	expect_str3(&w, "last", "stop");
	assert_int_equal(w.api.terminate(w.c), fmi3OK);
	w.api.free_instance(w.c);
	fmi3_unimport(&w.api);
}

/* ---- model descriptions ------------------------------------------------------------------- */

static void model_descriptions__pass_the_checkers(void **state)
{
	(void)state;
	const char *const ids[] = {"strpass_sa", "strrules_sa"};
	for (size_t i = 0; i < 2; i++) {
		char dir[PATH_MAX], cmd[3 * PATH_MAX], line[1024];
		unpack(OUT3, ids[i], dir);
		snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
		         test_build_dir(), dir);
		assert_int_equal(system(cmd), 0);
		/* FMI 2.0: sacc's reader checks the schema and the standard's rules */
		snprintf(cmd, sizeof cmd, "'%s/sacc' inspect '%s/%s/%s.fmu' >/dev/null",
		         test_build_dir(), test_build_dir(), OUT2, ids[i]);
		assert_int_equal(system(cmd), 0);
		snprintf(cmd, sizeof cmd, "'%s/sacc' inspect '%s/%s/%s.fmu' >/dev/null",
		         test_build_dir(), test_build_dir(), OUT3, ids[i]);
		assert_int_equal(system(cmd), 0);
		(void)line;
	}
	/* the String start value of FMI 3.0 is a <Start> element */
	char dir[PATH_MAX], path[PATH_MAX + 32], text[8192];
	unpack(OUT3, "strpass_sa", dir);
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "<String name=\"s_in\""));
	assert_non_null(strstr(text, "<Start value=\"hello\"/>"));
}

/* ---- sacc simulate ------------------------------------------------------------------------ */

/* What `sacc simulate ARGS` wrote on stdout (at most size - 1 bytes); its exit status. */
static int simulate(const char *args, char *out, size_t size)
{
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "'%s/sacc' simulate %s 2>/dev/null", test_build_dir(), args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	return pclose(p);
}

/* String outputs are result columns after the others, each field quoted with its quotes
 * doubled (RFC 4180), so that a comma, a quote or a line break keeps the row whole; --set
 * takes String values. */
static void simulate__string_columns_quoted(void **state)
{
	(void)state;
	char out[4096], args[2 * PATH_MAX];
	snprintf(args, sizeof args, "'%s/fmus/strings.fmu' --stop 0.25 --record "
	         "strings.y,strings.len,strings.same,strings.s_out,strings.tag --set 'strings.s_in=say \"hi\", ok' --set 'strings.prefix=a\nb: '",
	         test_build_dir());
	assert_int_equal(simulate(args, out, sizeof out), 0);
	assert_string_equal(out,
	                    "time,strings.y,strings.len,strings.same,strings.s_out,strings.tag\n"
	                    "0,0,12,0,\"say \"\"hi\"\", ok\",\"a\nb: say \"\"hi\"\", ok\"\n"
	                    "0.25,0,12,0,\"say \"\"hi\"\", ok\",\"a\nb: say \"\"hi\"\", ok\"\n");
}

/* The FMI 3.0 wrapper through sacc simulate, in process and out of process: --record picks
 * String columns too. */
static void simulate__fmi3_wrapper_strings_recorded(void **state)
{
	(void)state;
	char out[4096], args[2 * PATH_MAX];
	const char *const modes[] = {"", "--isolate all"};
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof args, "'%s/%s/strpass_sa.fmu' --stop 0.25 %s "
		         "--set strpass_sa.s_in=word --record strpass_sa.tag,strpass_sa.len",
		         test_build_dir(), OUT3, modes[i]);
		assert_int_equal(simulate(args, out, sizeof out), 0);
		assert_string_equal(out, "time,strpass_sa.len,strpass_sa.tag\n"
		                         "0,4,\"> word\"\n"
		                         "0.25,4,\"> word\"\n");
	}
}

/* A String connection between two FMUs: the input gets its source's String when the master
 * sets the inputs, so the one of t_n under Jacobi and the new one under Gauss-Seidel (a
 * steps first); the source's ticks count its steps. */
static void simulate__string_connection_per_master(void **state)
{
	(void)state;
	char out[4096], args[3 * PATH_MAX], path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/e2e-strings/chain.sa", test_build_dir());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("module chain\n\nfmu Strings a at \"strings.fmu\"\n"
	      "fmu Strings b at \"strings.fmu\"\n\na.ticks -> b.s_in\n", f);
	fclose(f);
	snprintf(args, sizeof args, "-L '%s/fmus' '%s' --stop 0.5 --record a.ticks,b.s_out "
	         "--master jacobi", test_build_dir(), path);
	assert_int_equal(simulate(args, out, sizeof out), 0);
	assert_string_equal(out, "time,a.ticks,b.s_out\n"
	                         "0,\"tick 0\",\"tick 0\"\n"
	                         "0.25,\"tick 1\",\"tick 0\"\n"
	                         "0.5,\"tick 2\",\"tick 1\"\n");
	snprintf(args, sizeof args, "-L '%s/fmus' '%s' --stop 0.5 --record a.ticks,b.s_out "
	         "--master gauss-seidel", test_build_dir(), path);
	assert_int_equal(simulate(args, out, sizeof out), 0);
	assert_string_equal(out, "time,a.ticks,b.s_out\n"
	                         "0,\"tick 0\",\"tick 0\"\n"
	                         "0.25,\"tick 1\",\"tick 1\"\n"
	                         "0.5,\"tick 2\",\"tick 2\"\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strpass2__strings_forwarded_both_ways),
		cmocka_unit_test(strpass2__several_strings_in_one_get),
		cmocka_unit_test(strpass2__state_carries_strings),
		cmocka_unit_test(strpass2__too_long_or_null__error_naming_the_variable),
		cmocka_unit_test(strrules2__strings_in_rules),
		cmocka_unit_test(strpass3__strings_forwarded_and_stated),
		cmocka_unit_test(strrules3__strings_in_rules),
		cmocka_unit_test(model_descriptions__pass_the_checkers),
		cmocka_unit_test(simulate__string_columns_quoted),
		cmocka_unit_test(simulate__fmi3_wrapper_strings_recorded),
		cmocka_unit_test(simulate__string_connection_per_master),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
