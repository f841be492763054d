/* test_e2e_arrays3.c — FMI 3.0 array ports through wrappers: pass-throughs over the FMI 3.0
 * test FMUs array3 (sizes from a structural parameter, a fixed-size output) and matrix3
 * (two-dimensional Float64 arrays, Int32 and Boolean arrays), built by sacc as FMI 3.0 in
 * process and with the inner isolated, stepped through the suite's minimal FMI 3.0 importer
 * beside the bare FMU: every output bit-identical over a few hundred steps with changing
 * inputs, each array gotten and set whole (nValues the number of elements, row-major), FMU
 * states got, set and serialized, a wrong nValues or a reference inside an array an error
 * with a message, the model description through fmi3_md_check; and the FMI 2.0 build
 * refused at build time, naming the port and its inner. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <math.h>
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

#define ARRAY_SA "tests/e2e3/array3_sa.sa"
#define MATRIX_SA "tests/e2e3/matrix3_sa.sa"
#define NESTED_SA "tests/e2e3/nested3_sa.sa"
#define INDEX_SA "tests/e2e3/index3_sa.sa"
#define APARAM_SA "tests/e2e3/aparam3_sa.sa"
#define APARAM_BIND_SA "tests/e2e3/aparam3_bind_sa.sa"
#define OUT "e2e-arrays3/fmi3"
#define OUT_ISOLATED "e2e-arrays3/fmi3-isolated"
#define ARRAY3_TOKEN "{9d2b4e61-0c7a-4f38-b5e2-61a8c3f0d947}"
#define MATRIX3_TOKEN "{5f0c8e27-93a4-4d1b-b6e8-0a7d2c41f93e}"
#define NSTEPS 300

/* ---- building and loading ------------------------------------------------------------------ */

/* Builds script as FMI `version` (0: as the script says) into BUILD/<sub>/, its inner
 * isolated as `isolate` says (NULL: in process); the diagnostics go to diag.  The number of
 * errors. */
static int build(const char *script, int version, const char *sub, const char *isolate,
                 char *diag, size_t size)
{
	return build_with(script, sub, (BuildOptions){version, NULL, "fmus3", isolate, false}, diag, size);
}

static int group_setup(void **state)
{
	(void)state;
	char diag[4096];
	const char *scripts[] = {ARRAY_SA, MATRIX_SA, NESTED_SA, INDEX_SA, APARAM_SA,
	                         APARAM_BIND_SA};
	for (int i = 0; i < 6; i++) {
		if (build(scripts[i], 3, OUT, NULL, diag, sizeof diag))
			fail_msg("the FMI 3.0 build of %s failed:\n%s", scripts[i], diag);
		if (build(scripts[i], 3, OUT_ISOLATED, "all", diag, sizeof diag))
			fail_msg("the isolated FMI 3.0 build of %s failed:\n%s", scripts[i], diag);
	}
	return 0;
}

/* ---- array3: u in, y and stats out ---------------------------------------------------------- */

/* Element i of u at step k: values that need every bit of a double, changing each step. */
static double u_at(int k, int i)
{
	return ldexp(1.0 + ldexp((double)((k * 7919 + i * 104729) % 65521), -52), (k % 9) - 4) *
	       ((k + i) % 3 == 0 ? -1.0 : 1.0);
}

typedef struct ArrayOut {
	double y[3], stats[2];
} ArrayOut;

static void array_set_values(Fmu3 *f, double u0, double u1, double u2)
{
	fmi3ValueReference vr = vr_of(f->dir, "u");
	const fmi3Float64 u[3] = {u0, u1, u2};
	assert_int_equal(f->api.set_float64(f->c, &vr, 1, u, 3), fmi3OK);
}

static void array_set(Fmu3 *f, int k)
{
	array_set_values(f, u_at(k, 0), u_at(k, 1), u_at(k, 2));
}

/* y and stats in one call: two arrays, five values. */
static void array_get(Fmu3 *f, ArrayOut *o)
{
	fmi3ValueReference vr[2] = {vr_of(f->dir, "y"), vr_of(f->dir, "stats")};
	fmi3Float64 v[5];
	assert_int_equal(f->api.get_float64(f->c, vr, 2, v, 5), fmi3OK);
	memcpy(o->y, v, sizeof o->y);
	memcpy(o->stats, v + 3, sizeof o->stats);
}

/* The wrapper id built into sub against the bare array3, NSTEPS steps. */
static void compare_array3(const char *sub)
{
	Fmu3 w, b;
	fmu3_start_wrapper(&w, sub, "array3_sa");
	fmu3_start_bare(&b, "array3", ARRAY3_TOKEN);
	double x[3] = {0, 0, 0};
	const double gain[3] = {1, 2, 3}, h = 0.125;
	for (int k = 0; k < NSTEPS; k++) {
		ArrayOut ow, ob;
		array_set(&w, k);
		array_set(&b, k);
		assert_int_equal(fmu3_step(&b, k * h, h), fmi3OK);
		assert_int_equal(fmu3_step(&w, k * h, h), fmi3OK);
		array_get(&b, &ob);
		array_get(&w, &ow);
		assert_memory_equal(&ow, &ob, sizeof ow);
		/* and the bare FMU computed what array3 says: x += u h, y = x + gain .* u */
		for (int i = 0; i < 3; i++) {
			x[i] += u_at(k, i) * h;
			assert_true(ob.y[i] == x[i] + gain[i] * u_at(k, i));
		}
		assert_true(ob.stats[0] == (ob.y[0] + ob.y[1]) + ob.y[2]);
	}
	fmu3_stop(&w);
	fmu3_stop(&b);
}

static void fmi3_wrapper__array3__outputs_bit_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_array3(OUT);
}

static void isolated_inner__array3__outputs_bit_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_array3(OUT_ISOLATED);
}

/* ---- matrix3: A, k, w in; T, rowsum, kk, flags, w2 out -------------------------------------- */

typedef struct MatrixOut {
	double reals[10]; /* T (3 x 2), rowsum (2), w2 (2) */
	int kk[2];
	int flags[3];
} MatrixOut;

static void matrix_set(Fmu3 *f, int k)
{
	fmi3ValueReference r[2] = {vr_of(f->dir, "A"), vr_of(f->dir, "w")};
	fmi3Float64 v[8];
	for (int i = 0; i < 8; i++)
		v[i] = u_at(k, i) * 100;
	assert_int_equal(f->api.set_float64(f->c, r, 2, v, 8), fmi3OK);
	fmi3ValueReference kv = vr_of(f->dir, "k");
	const fmi3Int32 ints[2] = {k % 2 ? INT32_MIN / 2 + k : k - 150, INT32_MAX / 2 - k};
	assert_int_equal(f->api.set_int32(f->c, &kv, 1, ints, 2), fmi3OK);
}

static void matrix_get(Fmu3 *f, MatrixOut *o)
{
	memset(o, 0, sizeof *o);
	fmi3ValueReference r[3] = {vr_of(f->dir, "T"), vr_of(f->dir, "rowsum"),
	                           vr_of(f->dir, "w2")};
	assert_int_equal(f->api.get_float64(f->c, r, 3, o->reals, 10), fmi3OK);
	fmi3ValueReference kv = vr_of(f->dir, "kk"), fv = vr_of(f->dir, "flags");
	fmi3Int32 kk[2];
	fmi3Boolean flags[3];
	assert_int_equal(f->api.get_int32(f->c, &kv, 1, kk, 2), fmi3OK);
	assert_int_equal(f->api.get_boolean(f->c, &fv, 1, flags, 3), fmi3OK);
	for (int i = 0; i < 2; i++)
		o->kk[i] = kk[i];
	for (int i = 0; i < 3; i++)
		o->flags[i] = flags[i];
}

static void compare_matrix3(const char *sub, const char *id)
{
	Fmu3 w, b;
	fmu3_start_wrapper(&w, sub, id);
	fmu3_start_bare(&b, "matrix3", MATRIX3_TOKEN);
	int flags_seen[2] = {0, 0};
	for (int k = 0; k < NSTEPS; k++) {
		MatrixOut ow, ob;
		matrix_set(&w, k);
		matrix_set(&b, k);
		assert_int_equal(fmu3_step(&b, k * 0.5, 0.5), fmi3OK);
		assert_int_equal(fmu3_step(&w, k * 0.5, 0.5), fmi3OK);
		matrix_get(&b, &ob);
		matrix_get(&w, &ow);
		assert_memory_equal(&ow, &ob, sizeof ow);
		/* T is A transposed (A row-major 2 x 3, T row-major 3 x 2), kk = 2 k */
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 3; j++)
				assert_true(ob.reals[j * 2 + i] == u_at(k, i * 3 + j) * 100);
		assert_int_equal(ob.kk[1], 2 * (INT32_MAX / 2 - k));
		flags_seen[ob.flags[0] != 0] = 1;
	}
	assert_true(flags_seen[0] && flags_seen[1]); /* the Booleans took both values */
	fmu3_stop(&w);
	fmu3_stop(&b);
}

static void fmi3_wrapper__matrix3__outputs_bit_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_matrix3(OUT, "matrix3_sa");
}

static void isolated_inner__matrix3__outputs_bit_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_matrix3(OUT_ISOLATED, "matrix3_sa");
}

/* A wrapper over a wrapper with arrays: the outer exchanges the inner wrapper's arrays
 * whole, in process and with the inner wrapper isolated. */
static void nested_fmi3_wrappers__matrix3__outputs_bit_identical_to_the_bare_fmu(
	void **state)
{
	(void)state;
	compare_matrix3(OUT, "nested3_sa");
	compare_matrix3(OUT_ISOLATED, "nested3_sa");
}

/* ---- single elements in the rules ----------------------------------------------------------- */

/* index3_sa: u[2] := 2 k in the rules, u[1] and u[3] inputs of the wrapper, y2 = y[2] and
 * total = stats[1]; against the bare array3 given u = {u[1], 2 k, u[3]}. */
static void rules_index_elements(const char *sub)
{
	Fmu3 w, b;
	fmu3_start_wrapper(&w, sub, "index3_sa");
	fmu3_start_bare(&b, "array3", ARRAY3_TOKEN);
	fmi3ValueReference in[3] = {vr_of(w.dir, "u[1]"), vr_of(w.dir, "k"), vr_of(w.dir, "u[3]")};
	fmi3ValueReference out[2] = {vr_of(w.dir, "y2"), vr_of(w.dir, "total")};
	for (int k = 0; k < NSTEPS; k++) {
		const fmi3Float64 win[3] = {u_at(k, 0), u_at(k, 1), u_at(k, 2)};
		assert_int_equal(w.api.set_float64(w.c, in, 3, win, 3), fmi3OK);
		array_set_values(&b, u_at(k, 0), 2 * u_at(k, 1), u_at(k, 2));
		assert_int_equal(fmu3_step(&b, k * 0.125, 0.125), fmi3OK);
		assert_int_equal(fmu3_step(&w, k * 0.125, 0.125), fmi3OK);
		ArrayOut ob;
		fmi3Float64 got[2];
		array_get(&b, &ob);
		assert_int_equal(w.api.get_float64(w.c, out, 2, got, 2), fmi3OK);
		assert_memory_equal(&got[0], &ob.y[1], sizeof got[0]);
		assert_memory_equal(&got[1], &ob.stats[0], sizeof got[1]);
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

/* An out-of-range subscript is an error at its place in the script, with the range. */
static void rules__subscript_out_of_range__error_at_its_place(void **state)
{
	(void)state;
	char path[PATH_MAX], diag[16384], fmus3[PATH_MAX];
	snprintf(path, sizeof path, "%s/e2e-arrays3/bad_index.sa", test_build_dir());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("semantic adaptation reactive mealy bad\nat \"bad.fmu\" fmi 3\n"
	      "\tfor inner fmu M m\n\t\tat \"matrix3.fmu\"\n"
	      "output ports Real x\nout rules {\n\ttrue -> { } --> {\n"
	      "\t\tbad.x := m.T[3,2] + m.T[3,3] + m.rowsum[1,1] + m.w2[0];\n\t};\n}\n", f);
	fclose(f);
	snprintf(fmus3, sizeof fmus3, "%s/fmus3", test_build_dir());
	TestRun *t = tr_new();
	drv_add_fmu_dir(t->c, fmus3);
	Module *m = drv_load(t->c, path);
	assert_non_null(m);
	assert_true(drv_explicit(t->c, m, NULL) > 0);
	snprintf(diag, sizeof diag, "%s", tr_diag(t));
	tr_free(t);
	const char *want[] = {
		"bad_index.sa:8:25: error: subscript 3 of 'm.T[3,3]' is out of range: port 'T' of "
		"inner fmu 'm' is an array of 6 Float64, subscripts 1 to 2",
		"note: its elements are 'T[1,1]' to 'T[3,2]', row-major",
		"bad_index.sa:8:36: error: port 'rowsum' of inner fmu 'm' has 1 dimension, not 2",
		"bad_index.sa:8:52: error: subscript 0 of 'm.w2[0]' is out of range",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(diag, want[i]))
			fail_msg("no '%s' in:\n%s", want[i], diag);
	assert_null(strstr(diag, "T[3,2]' is out")); /* the last element is in range */
}

/* ---- states -------------------------------------------------------------------------------- */

/* Steps k0..k1-1 of the array3 wrapper, each step's outputs into out[k]. */
static void run(Fmu3 *w, int k0, int k1, ArrayOut out[])
{
	for (int k = k0; k < k1; k++) {
		array_set(w, k);
		assert_int_equal(fmu3_step(w, k * 0.125, 0.125), fmi3OK);
		array_get(w, &out[k]);
	}
}

static void states__get_set_serialize__same_outputs_again(const char *sub)
{
	Fmu3 w;
	static ArrayOut first[NSTEPS], again[NSTEPS], back[NSTEPS];
	fmi3FMUState s = NULL, s2 = NULL;
	size_t size = 0;
	memset(first, 0, sizeof first);
	memset(again, 0, sizeof again);
	memset(back, 0, sizeof back);
	fmu3_start_wrapper(&w, sub, "array3_sa");
	const int mid = NSTEPS / 2;
	run(&w, 0, mid, first);
	assert_int_equal(w.api.get_state(w.c, &s), fmi3OK);
	run(&w, mid, NSTEPS, first);
	assert_int_equal(w.api.set_state(w.c, s), fmi3OK);
	run(&w, mid, NSTEPS, again);
	assert_memory_equal(&first[mid], &again[mid], (NSTEPS - mid) * sizeof first[0]);
	assert_int_equal(w.api.serialized_size(w.c, s, &size), fmi3OK);
	unsigned char *buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(w.api.serialize(w.c, s, buf, size), fmi3OK);
	assert_int_equal(w.api.deserialize(w.c, buf, size, &s2), fmi3OK);
	assert_int_equal(w.api.set_state(w.c, s2), fmi3OK);
	run(&w, mid, NSTEPS, back);
	assert_memory_equal(&first[mid], &back[mid], (NSTEPS - mid) * sizeof first[0]);
	/* the state holds the integrated x: a state from the start gives other outputs */
	assert_true(memcmp(&first[mid], &first[NSTEPS - 1], sizeof first[0]) != 0);
	assert_int_equal(w.api.free_state(w.c, &s), fmi3OK);
	assert_int_equal(w.api.free_state(w.c, &s2), fmi3OK);
	free(buf);
	fmu3_stop(&w);
}

static void fmi3_wrapper__state_get_set_serialize__same_outputs_again(void **state)
{
	(void)state;
	states__get_set_serialize__same_outputs_again(OUT);
}

static void isolated_inner__state_get_set_serialize__same_outputs_again(void **state)
{
	(void)state;
	states__get_set_serialize__same_outputs_again(OUT_ISOLATED);
}

/* ---- wrong calls --------------------------------------------------------------------------- */

static void assert_logged(const char *what)
{
	if (!strstr(logged, what))
		fail_msg("no '%s' in what was logged:\n%s", what, logged);
}

static void fmi3_wrapper__wrong_nvalues__error_with_a_message(void **state)
{
	(void)state;
	Fmu3 w;
	fmu3_start_wrapper(&w, OUT, "array3_sa");
	fmi3ValueReference u = vr_of(w.dir, "u"), y[2] = {vr_of(w.dir, "y"), vr_of(w.dir, "stats")};
	fmi3Float64 v[8] = {0};
	logged[0] = '\0';
	assert_int_equal(w.api.set_float64(w.c, &u, 1, v, 1), fmi3Error);
	assert_logged("fmi3SetFloat64: 1 values for 1 value references that hold 3");
	logged[0] = '\0';
	assert_int_equal(w.api.get_float64(w.c, y, 2, v, 6), fmi3Error);
	assert_logged("fmi3GetFloat64: 6 values for 2 value references that hold 5");
	/* an element's own reference is none of the model description's */
	fmi3ValueReference inside = u + 1;
	logged[0] = '\0';
	assert_int_equal(w.api.get_float64(w.c, &inside, 1, v, 1), fmi3Error);
	assert_logged("unknown value reference");
	/* and the right count still works after the errors */
	assert_int_equal(w.api.get_float64(w.c, y, 2, v, 5), fmi3OK);
	fmu3_stop(&w);
	Fmu3 m;
	fmu3_start_wrapper(&m, OUT, "matrix3_sa");
	fmi3ValueReference k = vr_of(m.dir, "k"), flags = vr_of(m.dir, "flags");
	fmi3Int32 ints[3] = {0, 0, 0};
	fmi3Boolean b[2];
	logged[0] = '\0';
	assert_int_equal(m.api.set_int32(m.c, &k, 1, ints, 3), fmi3Error);
	assert_logged("fmi3SetInt32: 3 values for 1 value references that hold 2");
	logged[0] = '\0';
	assert_int_equal(m.api.get_boolean(m.c, &flags, 1, b, 2), fmi3Error);
	assert_logged("fmi3GetBoolean: 2 values for 1 value references that hold 3");
	fmu3_stop(&m);
}

/* ---- the model descriptions ---------------------------------------------------------------- */

static void md_checked(const char *dir)
{
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
	         test_build_dir(), dir);
	assert_int_equal(system(cmd), 0);
}

static void fmi3_wrapper__model_description__arrays_declared_with_dimensions(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	unpack(OUT, "array3_sa", dir);
	md_checked(dir);
	char *md = read_md(dir);
	/* the size array3 takes from its structural parameter n is fixed in the wrapper */
	assert_has(md, "causality=\"input\" variability=\"continuous\" start=\"0 0 0\">\n"
	               "      <Dimension start=\"3\"/>\n    </Float64>");
	assert_has(md, "<Float64 name=\"y\" valueReference=\"3\"");
	assert_has(md, "<Float64 name=\"stats\" valueReference=\"6\"");
	assert_true(strstr(md, "y[") == NULL && strstr(md, "u[2]") == NULL);
	assert_has(md, "<Output valueReference=\"3\" dependencies=\"0\"");
	free(md);
	unpack(OUT, "matrix3_sa", dir);
	md_checked(dir);
	md = read_md(dir);
	assert_has(md, "<Float64 name=\"A\"");
	assert_has(md, "unit=\"cm\" start=\"1 2 3 4 5 6\">\n      <Dimension start=\"2\"/>\n"
	               "      <Dimension start=\"3\"/>");
	assert_has(md, "<Int32 name=\"kk\"");
	assert_has(md, "<Boolean name=\"flags\"");
	free(md);
}

static void fmi2_wrapper__array_port__refused_at_build_time_naming_it(void **state)
{
	(void)state;
	char diag[16384];
	assert_true(build(ARRAY_SA, 2, "e2e-arrays3/fmi2", NULL, diag, sizeof diag) > 0);
	if (!strstr(diag, "array3_sa.sa:8:23: error: port 'u' of inner fmu 'a' is an array of 3 "
	                  "Float64, which an FMI 2.0 wrapper cannot carry") ||
	    !strstr(diag, "error: port 'y' of inner fmu 'a' is an array of 3 Float64") ||
	    !strstr(diag, "error: port 'stats' of inner fmu 'a' is an array of 2 Float64") ||
	    !strstr(diag, "note: build it as FMI 3.0"))
		fail_msg("not the expected messages:\n%s", diag);
	char fmu[PATH_MAX + 64];
	snprintf(fmu, sizeof fmu, "%s/e2e-arrays3/fmi2/array3_sa.fmu", test_build_dir());
	FILE *f = fopen(fmu, "r");
	if (f)
		fclose(f);
	assert_null(f); /* no wrapper was made */
}

/* ---- array parameters of the inner ------------------------------------------------------- */

/* array3's fixed array parameter gain is the wrapper's array parameter a.gain: set whole
 * before initialization, it reaches the inner bit for bit (y = x + gain .* u, by hand). */
static void run_with_gain(const char *sub)
{
	Fmu3 w;
	fmu3_instantiate_wrapper(&w, sub, "array3_sa");
	fmi3ValueReference gvr = vr_of(w.dir, "a.gain");
	const fmi3Float64 gain[3] = {0.1, -2.5, 1e300};
	fmi3Float64 back[3];
	assert_int_equal(w.api.set_float64(w.c, &gvr, 1, gain, 3), fmi3OK);
	/* one value for an array of three is refused, as for any array */
	assert_int_equal(w.api.set_float64(w.c, &gvr, 1, gain, 1), fmi3Error);
	fmu3_init(&w);
	assert_int_equal(w.api.get_float64(w.c, &gvr, 1, back, 3), fmi3OK);
	assert_memory_equal(back, gain, sizeof back);
	double x[3] = {0, 0, 0};
	const double h = 0.125;
	for (int k = 0; k < 20; k++) {
		ArrayOut o;
		array_set(&w, k);
		assert_int_equal(fmu3_step(&w, k * h, h), fmi3OK);
		array_get(&w, &o);
		for (int i = 0; i < 3; i++) {
			x[i] += u_at(k, i) * h;
			assert_true(o.y[i] == x[i] + gain[i] * u_at(k, i));
		}
	}
	/* a fixed parameter cannot change once initialized */
	logged[0] = '\0';
	assert_int_equal(w.api.set_float64(w.c, &gvr, 1, gain, 3), fmi3Error);
	fmu3_stop(&w);
}

/* aparam3's y after one step with u: sum of (on[i] ? w[i] u : 0) + off[i]. */
static double aparam_y(Fmu3 *w, double u, double t)
{
	fmi3ValueReference uvr = vr_of(w->dir, "u"), yvr = vr_of(w->dir, "y");
	fmi3Float64 y = 0;
	assert_int_equal(w->api.set_float64(w->c, &uvr, 1, &u, 1), fmi3OK);
	assert_int_equal(fmu3_step(w, t, 0.5), fmi3OK);
	assert_int_equal(w->api.get_float64(w->c, &yvr, 1, &y, 1), fmi3OK);
	return y;
}

/* Sized array parameters: a Float32 and an Int8 one tunable, a Boolean one fixed, set
 * before initialization and (the tunable ones) between steps; an Int8 value out of range
 * is refused naming the element. */
static void run_aparam(const char *sub)
{
	Fmu3 w;
	fmu3_instantiate_wrapper(&w, sub, "aparam3_sa");
	fmi3ValueReference wvr = vr_of(w.dir, "a.w"), ovr = vr_of(w.dir, "a.off"),
	                   bvr = vr_of(w.dir, "a.on");
	const fmi3Float64 w0[2] = {0.75, 3.0};
	const fmi3Boolean on[2] = {fmi3True, fmi3True};
	assert_int_equal(w.api.set_float64(w.c, &wvr, 1, w0, 2), fmi3OK);
	assert_int_equal(w.api.set_boolean(w.c, &bvr, 1, on, 2), fmi3OK);
	fmu3_init(&w);
	/* 0.75 and 3 are Float32 exactly: 0.75 u + 3 u + 1 - 2 */
	assert_true(aparam_y(&w, 2.0, 0.0) == 0.75 * 2.0 + 3.0 * 2.0 - 1.0);
	const fmi3Int32 off[2] = {100, -7};
	assert_int_equal(w.api.set_int32(w.c, &ovr, 1, off, 2), fmi3OK);
	const fmi3Float64 w1[2] = {0.1, -1.5};
	assert_int_equal(w.api.set_float64(w.c, &wvr, 1, w1, 2), fmi3OK);
	/* 0.1 reaches the inner rounded to Float32, as the inner's own type holds it */
	assert_true(aparam_y(&w, 4.0, 0.5) == (double)0.1f * 4.0 + -1.5 * 4.0 + 93.0);
	const fmi3Int32 bad[2] = {128, 0};
	logged[0] = '\0';
	assert_int_equal(w.api.set_int32(w.c, &ovr, 1, bad, 2), fmi3Error);
	if (!strstr(logged, "128") || !strstr(logged, "off"))
		fail_msg("no message naming the value and the array:\n%s", logged);
	fmu3_stop(&w);
}

/* Elements bound by `with param off[2] := 10 * OFF, w[1] := 2.5, on[2] := true`: the inner
 * gets them, the others are the wrapper's scalar parameters a.w[2], a.off[1], a.on[1]. */
static void run_aparam_bound(const char *sub)
{
	Fmu3 w;
	fmu3_start_wrapper(&w, sub, "aparam3_bind_sa");
	/* on[1] true (start), on[2] bound true: 2.5 u + 0.25 u + 1 + 40 */
	assert_true(aparam_y(&w, 2.0, 0.0) == 2.5 * 2.0 + 0.25 * 2.0 + 41.0);
	fmi3ValueReference w2 = vr_of(w.dir, "a.w[2]");
	const fmi3Float64 four = 4.0;
	assert_int_equal(w.api.set_float64(w.c, &w2, 1, &four, 1), fmi3OK);
	assert_true(aparam_y(&w, 2.0, 0.5) == 2.5 * 2.0 + 4.0 * 2.0 + 41.0);
	fmu3_stop(&w);
	char dir[PATH_MAX];
	unpack(sub, "aparam3_bind_sa", dir);
	char *md = read_md(dir);
	assert_has(md, "<Float64 name=\"a.w[2]\"");
	assert_has(md, "<Int32 name=\"a.off[1]\"");
	assert_has(md, "<Boolean name=\"a.on[1]\"");
	assert_true(strstr(md, "a.w[1]") == NULL && strstr(md, "a.off[2]") == NULL &&
	            strstr(md, "<Dimension") == NULL);
	free(md);
	md_checked(dir);
}

static void fmi3_wrapper__array_parameter_elements_bound__reach_the_inner(void **state)
{
	(void)state;
	run_aparam_bound(OUT);
	run_aparam_bound(OUT_ISOLATED);
}

static void fmi3_wrapper__sized_array_parameters__tuned_between_steps(void **state)
{
	(void)state;
	run_aparam(OUT);
}

static void isolated_inner__sized_array_parameters__tuned_between_steps(void **state)
{
	(void)state;
	run_aparam(OUT_ISOLATED);
}

static void fmi3_wrapper__array_parameter_set_whole__reaches_the_inner(void **state)
{
	(void)state;
	run_with_gain(OUT);
}

static void isolated_inner__array_parameter_set_whole__reaches_the_inner(void **state)
{
	(void)state;
	run_with_gain(OUT_ISOLATED);
}

static void fmi3_wrapper__model_description__array_parameter_with_dimension(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	unpack(OUT, "array3_sa", dir);
	char *md = read_md(dir);
	assert_has(md, "<Float64 name=\"a.gain\" valueReference=\"16\" causality=\"parameter\" "
	               "variability=\"fixed\" initial=\"exact\" start=\"1 2 3\">\n"
	               "      <Dimension start=\"3\"/>\n    </Float64>");
	assert_true(strstr(md, "a.gain[") == NULL);
	free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmi3_wrapper__array3__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(fmi3_wrapper__matrix3__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(isolated_inner__array3__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(isolated_inner__matrix3__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(
			nested_fmi3_wrappers__matrix3__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(rules__single_elements_read_and_written__as_the_bare_fmu),
		cmocka_unit_test(rules__subscript_out_of_range__error_at_its_place),
		cmocka_unit_test(fmi3_wrapper__state_get_set_serialize__same_outputs_again),
		cmocka_unit_test(isolated_inner__state_get_set_serialize__same_outputs_again),
		cmocka_unit_test(fmi3_wrapper__wrong_nvalues__error_with_a_message),
		cmocka_unit_test(fmi3_wrapper__model_description__arrays_declared_with_dimensions),
		cmocka_unit_test(fmi2_wrapper__array_port__refused_at_build_time_naming_it),
		cmocka_unit_test(fmi3_wrapper__array_parameter_set_whole__reaches_the_inner),
		cmocka_unit_test(isolated_inner__array_parameter_set_whole__reaches_the_inner),
		cmocka_unit_test(fmi3_wrapper__model_description__array_parameter_with_dimension),
		cmocka_unit_test(fmi3_wrapper__sized_array_parameters__tuned_between_steps),
		cmocka_unit_test(isolated_inner__sized_array_parameters__tuned_between_steps),
		cmocka_unit_test(fmi3_wrapper__array_parameter_elements_bound__reach_the_inner),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
