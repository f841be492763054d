/* test_e2e_binary3.c — an FMI 3.0 inner's Binary ports forwarded by a wrapper: the pass-through
 * tests/e2e/types3/alltypes_sa.sa over tests/fmus3/alltypes3 (whose bin_out gives back bin_in,
 * maxSize 64, start "cafe"), built by sacc as FMI 3.0, in process and with the inner isolated,
 * stepped through the suite's minimal FMI 3.0 importer beside the bare FMU: bin_out
 * byte-identical to the bare FMU's and to what was set (zero bytes, the empty value, the
 * largest one), FMU states got, set, serialized and restored, a value longer than maxSize an
 * error naming the port and the size, the model description through fmi3_md_check, the
 * same script built as FMI 2.0 an error naming the port and the inner; and a wrapper over
 * that wrapper (built in the same run) forwarding them again. */
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

#define SCRIPT "tests/e2e/types3/alltypes_sa.sa"
#define OUT3 "e2e-binary3/fmi3"
#define OUT3_ISOLATED "e2e-binary3/fmi3-isolated"
#define OUT2 "e2e-binary3/fmi2"
/* a pass-through over a pass-through of alltypes3, built in one run */
#define SCRIPT_NESTED "tests/e2e/types3/nested_binary_sa.sa"
#define OUT3_NESTED "e2e-binary3/nested"
#define ALLTYPES3_TOKEN "{3a1f7c20-5b8e-4d6a-9c31-7e2f0b4d8a61}"
#define MAX_SIZE 64 /* alltypes3's maxSize of bin_in and bin_out */

/* Builds script as FMI `version` into BUILD/<sub>/ over the FMI 3.0 test FMUs (isolate: NULL
 * or "all"); the number of errors, the diagnostics into diag. */
static int build_script(const char *script, int version, const char *sub, const char *isolate,
                        char *diag, size_t size)
{
	return build_with(script, sub, (BuildOptions){version, NULL, "fmus3", isolate, false}, diag, size);
}

static int build(int version, const char *sub, const char *isolate, char *diag, size_t size)
{
	return build_script(SCRIPT, version, sub, isolate, diag, size);
}

static int group_setup(void **state)
{
	(void)state;
	char diag[4096];
	if (build(3, OUT3, NULL, diag, sizeof diag))
		fail_msg("the FMI 3.0 build failed:\n%s", diag);
	if (build(3, OUT3_ISOLATED, "all", diag, sizeof diag))
		fail_msg("the isolated FMI 3.0 build failed:\n%s", diag);
	if (build_script(SCRIPT_NESTED, 3, OUT3_NESTED, NULL, diag, sizeof diag))
		fail_msg("the nested FMI 3.0 build failed:\n%s", diag);
	return 0;
}

/* An instance and the value references of its bin_in and bin_out. */
typedef struct Bin3 {
	Fmu3 fmu;
	fmi3ValueReference in, out;
} Bin3;

static void start_wrapper_named(Bin3 *f, const char *sub, const char *id)
{
	fmu3_start_wrapper(&f->fmu, sub, id);
	f->in = vr_of(f->fmu.dir, "bin_in");
	f->out = vr_of(f->fmu.dir, "bin_out");
}

static void start_wrapper(Bin3 *f, const char *sub)
{
	start_wrapper_named(f, sub, "alltypes_sa");
}

static void start_bare(Bin3 *f)
{
	fmu3_start_bare(&f->fmu, "alltypes3", ALLTYPES3_TOKEN);
	f->in = 13;
	f->out = 113;
}

/* ---- values ---------------------------------------------------------------------------- */

/* One Binary value: its bytes copied out of the FMU at once (the pointer it gives lives
 * until its next call). */
typedef struct Bytes {
	size_t size;
	unsigned char data[MAX_SIZE];
} Bytes;

/* The input of step k: zero bytes inside and at both ends, the empty value, the largest
 * value maxSize allows, a single zero byte, every byte value. */
static Bytes input_at(int k)
{
	Bytes b;
	memset(&b, 0, sizeof b);
	switch (k % 6) {
	case 0: b.size = 5; memcpy(b.data, "\x00\x01\x00\xff\x00", 5); break;
	case 1: b.size = 0; break;
	case 2:
		b.size = MAX_SIZE;
		for (int i = 0; i < MAX_SIZE; i++)
			b.data[i] = (unsigned char)(i * 37 + k);
		break;
	case 3: b.size = 1; break; /* one zero byte */
	case 4:
		b.size = 16;
		for (int i = 0; i < 16; i++)
			b.data[i] = (unsigned char)(255 - 16 * i);
		break;
	default: b.size = 3; memcpy(b.data, "ab\x00", 3); break;
	}
	return b;
}

static void set_bin(Bin3 *f, const Bytes *b)
{
	const fmi3Binary v = b->data;
	assert_int_equal(f->fmu.api.set_binary(f->fmu.c, &f->in, 1, &b->size, &v, 1), fmi3OK);
}

static Bytes get_bin(Bin3 *f)
{
	Bytes b;
	size_t size = 0;
	fmi3Binary v = NULL;
	memset(&b, 0, sizeof b);
	if (f->fmu.api.get_binary(f->fmu.c, &f->out, 1, &size, &v, 1) != fmi3OK)
		fail_msg("fmi3GetBinary failed:\n%s", logged);
	assert_true(size <= MAX_SIZE);
	assert_true(size == 0 || v != NULL);
	b.size = size;
	if (size)
		memcpy(b.data, v, size);
	return b;
}

static void assert_same(const Bytes *a, const Bytes *b)
{
	assert_int_equal(a->size, b->size);
	assert_memory_equal(a->data, b->data, MAX_SIZE);
}

/* ---- against the bare FMU ------------------------------------------------------------------ */

#define NSTEPS 12

static void compare_with_bare_named(const char *sub, const char *id)
{
	Bin3 w, b;
	start_wrapper_named(&w, sub, id);
	start_bare(&b);
	/* before any set, both give the start value back: the bytes 0xca 0xfe */
	Bytes ow = get_bin(&w), ob = get_bin(&b);
	Bytes cafe = {2, {0xca, 0xfe}};
	assert_same(&ob, &cafe);
	assert_same(&ow, &ob);
	for (int k = 0; k < NSTEPS; k++) {
		Bytes x = input_at(k);
		set_bin(&b, &x);
		set_bin(&w, &x);
		assert_int_equal(fmu3_step(&b.fmu, k * 0.1, 0.1), fmi3OK);
		assert_int_equal(fmu3_step(&w.fmu, k * 0.1, 0.1), fmi3OK);
		ob = get_bin(&b);
		ow = get_bin(&w);
		assert_same(&ow, &ob);
		assert_same(&ob, &x); /* the bare FMU gives back what it got */
	}
	fmu3_stop(&w.fmu);
	fmu3_stop(&b.fmu);
}

static void compare_with_bare(const char *sub)
{
	compare_with_bare_named(sub, "alltypes_sa");
}

static void fmi3_wrapper__binary_output__byte_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_with_bare(OUT3);
}

static void isolated_inner__binary_output__byte_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_with_bare(OUT3_ISOLATED);
}

static void wrapper_of_a_wrapper__binary_output__byte_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_with_bare_named(OUT3_NESTED, "outer_sa");
}

/* A Mealy wrapper's output follows an input set after the step (G): the inner gets it. */
static void fmi3_wrapper__binary_set_between_steps__the_get_sees_it(void **state)
{
	(void)state;
	Bin3 w;
	start_wrapper(&w, OUT3);
	assert_int_equal(fmu3_step(&w.fmu, 0, 0.1), fmi3OK);
	Bytes x = input_at(0), got;
	set_bin(&w, &x);
	got = get_bin(&w);
	assert_same(&got, &x);
	fmu3_stop(&w.fmu);
}

/* ---- FMU states -------------------------------------------------------------------------- */

static void run(Bin3 *w, int k0, int k1, Bytes out[])
{
	for (int k = k0; k < k1; k++) {
		Bytes x = input_at(k);
		set_bin(w, &x);
		assert_int_equal(fmu3_step(&w->fmu, k * 0.1, 0.1), fmi3OK);
		out[k] = get_bin(w);
	}
}

static void states_round_trip(const char *sub)
{
	Bin3 w;
	Bytes first[NSTEPS], again[NSTEPS], back[NSTEPS];
	fmi3FMUState s = NULL, s2 = NULL;
	size_t size = 0;
	memset(first, 0, sizeof first);
	memset(again, 0, sizeof again);
	memset(back, 0, sizeof back);
	start_wrapper(&w, sub);
	run(&w, 0, 3, first);
	/* the state holds the last input set (input_at(2), the largest) and the output */
	assert_int_equal(w.fmu.api.get_state(w.fmu.c, &s), fmi3OK);
	Bytes at_state = get_bin(&w);
	run(&w, 3, NSTEPS, first);
	assert_int_equal(w.fmu.api.set_state(w.fmu.c, s), fmi3OK);
	Bytes restored = get_bin(&w);
	assert_same(&restored, &at_state);
	run(&w, 3, NSTEPS, again);
	assert_memory_equal(&first[3], &again[3], (NSTEPS - 3) * sizeof first[0]);
	assert_int_equal(w.fmu.api.serialized_size(w.fmu.c, s, &size), fmi3OK);
	unsigned char *buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(w.fmu.api.serialize(w.fmu.c, s, buf, size), fmi3OK);
	assert_int_equal(w.fmu.api.deserialize(w.fmu.c, buf, size, &s2), fmi3OK);
	assert_int_equal(w.fmu.api.set_state(w.fmu.c, s2), fmi3OK);
	restored = get_bin(&w);
	assert_same(&restored, &at_state);
	run(&w, 3, NSTEPS, back);
	assert_memory_equal(&first[3], &back[3], (NSTEPS - 3) * sizeof first[0]);
	assert_int_equal(w.fmu.api.free_state(w.fmu.c, &s), fmi3OK);
	assert_int_equal(w.fmu.api.free_state(w.fmu.c, &s2), fmi3OK);
	free(buf);
	fmu3_stop(&w.fmu);
}

static void fmi3_wrapper__states_get_set_serialize__same_binaries_again(void **state)
{
	(void)state;
	states_round_trip(OUT3);
}

static void isolated_inner__states_get_set_serialize__same_binaries_again(void **state)
{
	(void)state;
	states_round_trip(OUT3_ISOLATED);
}

/* ---- what is refused --------------------------------------------------------------------- */

static void fmi3_wrapper__binary_longer_than_max_size__error_naming_port_and_size(void **state)
{
	(void)state;
	Bin3 w;
	unsigned char big[MAX_SIZE + 1];
	memset(big, 0x5a, sizeof big);
	const fmi3Binary v = big;
	size_t n = sizeof big;
	start_wrapper(&w, OUT3);
	Bytes before = get_bin(&w);
	logged[0] = '\0';
	assert_int_equal(w.fmu.api.set_binary(w.fmu.c, &w.in, 1, &n, &v, 1), fmi3Error);
	assert_non_null(strstr(logged, "fmi3SetBinary: the value of 'bin_in' is a Binary of 65 "
	                               "bytes, longer than its maxSize 64"));
	/* nothing was cut short and stored */
	Bytes after = get_bin(&w);
	assert_same(&after, &before);
	fmu3_stop(&w.fmu);
}

static void fmi3_wrapper__binary_output_set__error_naming_it(void **state)
{
	(void)state;
	Bin3 w;
	const unsigned char one = 1;
	const fmi3Binary v = &one;
	size_t n = 1;
	start_wrapper(&w, OUT3);
	logged[0] = '\0';
	assert_int_equal(w.fmu.api.set_binary(w.fmu.c, &w.out, 1, &n, &v, 1), fmi3Error);
	assert_non_null(strstr(logged, "('bin_out') is an output"));
	fmu3_stop(&w.fmu);
}

/* ---- the model descriptions -------------------------------------------------------------- */

static void fmi3_wrapper__model_description__binaries_declared_and_checked(void **state)
{
	(void)state;
	char dir[PATH_MAX], cmd[3 * PATH_MAX], vr[16];
	unpack(OUT3, "alltypes_sa", dir);
	snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
	         test_build_dir(), dir);
	assert_int_equal(system(cmd), 0);
	char *md = read_md(dir);
	assert_has(md, "causality=\"input\" variability=\"discrete\" maxSize=\"64\">\n"
	               "      <Start value=\"cafe\"/>\n    </Binary>");
	assert_has(md, "<Binary name=\"bin_out\"");
	snprintf(vr, sizeof vr, "%u", vr_of(dir, "bin_out"));
	char key[64];
	snprintf(key, sizeof key, "<Output valueReference=\"%s\"", vr);
	assert_has(md, key);
	snprintf(key, sizeof key, "<InitialUnknown valueReference=\"%s\"", vr);
	assert_has(md, key);
	free(md);
}

/* The outer wrapper of the nested build forwards its inner adaptation's inputs with their
 * start values (the Enumeration's among them, an item of its type), so its description
 * passes the checker too. */
static void nested_wrapper__model_description__inner_starts_kept_and_checked(void **state)
{
	(void)state;
	char dir[PATH_MAX], cmd[3 * PATH_MAX];
	unpack(OUT3_NESTED, "outer_sa", dir);
	snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
	         test_build_dir(), dir);
	assert_int_equal(system(cmd), 0);
	char *md = read_md(dir);
	assert_has(md, "declaredType=\"Mode\" causality=\"input\" variability=\"discrete\" "
	               "start=\"1\"");
	assert_has(md, "<String name=\"str_in\"");
	free(md);
}

static void fmi2_wrapper__binary_passed_through__error_naming_port_and_inner(void **state)
{
	(void)state;
	char diag[4096];
	assert_true(build(2, OUT2, NULL, diag, sizeof diag) > 0);
	assert_non_null(strstr(diag, "alltypes_sa.sa:10:25: error: the Binary input 'bin_in' of "
	                             "inner fmu 'a' is passed through, but an FMI 2.0 wrapper "
	                             "cannot carry it: FMI 2.0 has no Binary type"));
	assert_non_null(strstr(diag, "error: the Binary output 'bin_out' of inner fmu 'a'"));
	assert_non_null(strstr(diag, "note: build the wrapper as FMI 3.0"));
	char fmu[PATH_MAX];
	snprintf(fmu, sizeof fmu, "%s/%s/alltypes_sa.fmu", test_build_dir(), OUT2);
	FILE *f = fopen(fmu, "r");
	assert_null(f); /* nothing was built */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmi3_wrapper__binary_output__byte_identical_to_the_bare_fmu),
		cmocka_unit_test(isolated_inner__binary_output__byte_identical_to_the_bare_fmu),
		cmocka_unit_test(
			wrapper_of_a_wrapper__binary_output__byte_identical_to_the_bare_fmu),
		cmocka_unit_test(fmi3_wrapper__binary_set_between_steps__the_get_sees_it),
		cmocka_unit_test(fmi3_wrapper__states_get_set_serialize__same_binaries_again),
		cmocka_unit_test(isolated_inner__states_get_set_serialize__same_binaries_again),
		cmocka_unit_test(
			fmi3_wrapper__binary_longer_than_max_size__error_naming_port_and_size),
		cmocka_unit_test(fmi3_wrapper__binary_output_set__error_naming_it),
		cmocka_unit_test(fmi3_wrapper__model_description__binaries_declared_and_checked),
		cmocka_unit_test(nested_wrapper__model_description__inner_starts_kept_and_checked),
		cmocka_unit_test(
			fmi2_wrapper__binary_passed_through__error_naming_port_and_inner),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
