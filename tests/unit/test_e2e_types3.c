/* test_e2e_types3.c — wrappers over an FMI 3.0 inner with every variable type
 * (tests/fmus3/alltypes3), built by sacc as FMI 3.0 and stepped through the suite's minimal
 * FMI 3.0 importer beside the bare FMU: the sized types converted at the boundary (outputs
 * bit-identical to the bare FMU's, an Enumeration forwarded as one with the inner's items), a
 * value that does not fit the inner's type an error naming the port and the value, and the
 * model description through fmi3_md_check; the same with the inner isolated (its types go
 * to the host process); the same script over sized3 (alltypes3 without its Binary pair,
 * which FMI 2.0 cannot carry) built as FMI 2.0, stepped through the suite's FMI 2.0
 * importer; sized3's parameters of sized types exposed by an FMI 3.0 wrapper, and bound to a
 * param of the script (sized_bound_sa.sa), at the ends of their ranges and beyond.  The
 * Binary ports have a test of their own (test_e2e_binary3.c). */
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

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "package.h"
#include "sacc_test.h"
#include "e2e_kit.h"
#include "e2e_fmi3.h"

#define SCRIPT "tests/e2e/types3/alltypes_sa.sa"
/* alltypes3 without its Binary pair, for FMI 2.0 (which has no Binary) */
#define SCRIPT2 "tests/e2e/types3/sized_sa.sa"
#define OUT3 "e2e-types3/fmi3"
#define OUT2 "e2e-types3/fmi2"
#define OUT3_ISOLATED "e2e-types3/fmi3-isolated"
#define OUT3_SIZED "e2e-types3/fmi3-sized" /* SCRIPT2 as FMI 3.0: sized parameters */
/* sized3's sized parameters bound to the script's param P */
#define SCRIPT_BOUND "tests/e2e/types3/sized_bound_sa.sa"
#define OUT3_BOUND "e2e-types3/fmi3-bound"
#define ALLTYPES3_TOKEN "{3a1f7c20-5b8e-4d6a-9c31-7e2f0b4d8a61}"

/* ---- building and loading ------------------------------------------------------------------ */

/* Builds script as FMI `version` into BUILD/<sub>/ over the FMI 3.0 test FMUs, its inner
 * isolated as `isolate` says (NULL: in process); the diagnostics (and whether it failed) go
 * to diag. */
static int build_script(const char *script, int version, const char *sub, const char *isolate,
                        char *diag, size_t size)
{
	return build_with(script, sub, (BuildOptions){version, NULL, "fmus3", isolate, false}, diag, size);
}

static int build_types3(int version, const char *sub, const char *isolate, char *diag,
                        size_t size)
{
	return build_script(version == 2 ? SCRIPT2 : SCRIPT, version, sub, isolate, diag, size);
}

static int group_setup(void **state)
{
	(void)state;
	char diag[4096];
	if (build_types3(3, OUT3, NULL, diag, sizeof diag))
		fail_msg("the FMI 3.0 build failed:\n%s", diag);
	if (build_types3(3, OUT3_ISOLATED, "all", diag, sizeof diag))
		fail_msg("the isolated FMI 3.0 build failed:\n%s", diag);
	if (build_types3(2, OUT2, NULL, diag, sizeof diag))
		fail_msg("the FMI 2.0 build failed:\n%s", diag);
	if (build_script(SCRIPT2, 3, OUT3_SIZED, NULL, diag, sizeof diag))
		fail_msg("the FMI 3.0 build of %s failed:\n%s", SCRIPT2, diag);
	if (build_script(SCRIPT_BOUND, 3, OUT3_BOUND, NULL, diag, sizeof diag))
		fail_msg("the FMI 3.0 build of %s failed:\n%s", SCRIPT_BOUND, diag);
	return 0;
}

/* The wrapper of alltypes3 built into sub, initialized at t = 0. */
static void start_wrapper_of(Fmu3 *f, const char *sub)
{
	fmu3_start_wrapper(f, sub, "alltypes_sa");
}

static void start_wrapper(Fmu3 *f)
{
	start_wrapper_of(f, OUT3);
}

/* The bare alltypes3, initialized at t = 0. */
static void start_bare(Fmu3 *f)
{
	fmu3_start_bare(f, "alltypes3", ALLTYPES3_TOKEN);
}

/* ---- values -------------------------------------------------------------------------------- */

/* The inputs of step k: every integer type near the ends of its range that an Integer (a
 * 32-bit int) reaches, Float32 values that need all of its bits. */
typedef struct Inputs {
	float f32;
	double f64;
	int i8, u8, i16, u16, i32, u32, i64, u64, b, e;
	const char *s;
} Inputs;

static Inputs inputs_at(int k)
{
	static const char *const words[] = {"zero", "one", "two", "three"};
	Inputs x;
	x.f32 = k % 2 ? -0x1.fffffep+127f : (float)k * 0x1.000002p-3f;
	x.f64 = 0x1.0000000000001p-1022 * (k + 1);
	x.i8 = k % 2 ? INT8_MIN : INT8_MAX - k;
	x.u8 = UINT8_MAX - k;
	x.i16 = k % 2 ? INT16_MIN : INT16_MAX - k;
	x.u16 = UINT16_MAX - k;
	x.i32 = k % 2 ? INT32_MIN : INT32_MAX - k;
	x.u32 = INT32_MAX - k;
	x.i64 = k % 2 ? INT32_MIN + k : INT32_MAX;
	x.u64 = INT32_MAX - 2 * k;
	x.b = k % 2;
	x.e = 1 + k % 3;
	x.s = words[k % 4];
	return x;
}

static const char *const int_ports[] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"};
#define NINT 8

static void int_values(const Inputs *x, int v[NINT])
{
	const int all[NINT] = {x->i8, x->u8, x->i16, x->u16, x->i32, x->u32, x->i64, x->u64};
	memcpy(v, all, sizeof all);
}

/* The port named <base>_<dir> of f. */
static unsigned port(const Fmu3 *f, const char *base, const char *dir)
{
	char name[64];
	snprintf(name, sizeof name, "%s_%s", base, dir);
	return vr_of(f->dir, name);
}

/* The bare FMU's inputs, each through its own type's setter. */
static void set_bare(Fmu3 *f, const Inputs *x)
{
	Fmi3Api *a = &f->api;
	fmi3ValueReference vr;
	int v[NINT];
	int_values(x, v);
#define SET(base, fn, T, value)                                                               \
	do {                                                                                  \
		T val_ = (T)(value);                                                          \
		vr = port(f, base, "in");                                                     \
		assert_int_equal(a->fn(f->c, &vr, 1, &val_, 1), fmi3OK);                      \
	} while (0)
	SET("f32", set_float32, fmi3Float32, x->f32);
	SET("f64", set_float64, fmi3Float64, x->f64);
	SET("i8", set_int8, fmi3Int8, v[0]);
	SET("u8", set_uint8, fmi3UInt8, v[1]);
	SET("i16", set_int16, fmi3Int16, v[2]);
	SET("u16", set_uint16, fmi3UInt16, v[3]);
	SET("i32", set_int32, fmi3Int32, v[4]);
	SET("u32", set_uint32, fmi3UInt32, v[5]);
	SET("i64", set_int64, fmi3Int64, v[6]);
	SET("u64", set_uint64, fmi3UInt64, v[7]);
	SET("bool", set_boolean, fmi3Boolean, x->b);
	SET("enum", set_int64, fmi3Int64, x->e);
	SET("str", set_string, fmi3String, x->s);
#undef SET
}

/* The wrapper's inputs: Float64, Int32, Boolean and String ports. */
static void set_wrapper(Fmu3 *f, const Inputs *x)
{
	Fmi3Api *a = &f->api;
	fmi3ValueReference vr[NINT + 1];
	fmi3Int32 v[NINT + 1];
	int_values(x, v);
	for (int i = 0; i < NINT; i++)
		vr[i] = port(f, int_ports[i], "in");
	assert_int_equal(a->set_int32(f->c, vr, NINT, v, NINT), fmi3OK);
	fmi3ValueReference r[2] = {port(f, "f32", "in"), port(f, "f64", "in")};
	const fmi3Float64 d[2] = {x->f32, x->f64};
	assert_int_equal(a->set_float64(f->c, r, 2, d, 2), fmi3OK);
	fmi3ValueReference bv = port(f, "bool", "in"), sv = port(f, "str", "in");
	fmi3Boolean b = x->b != 0;
	assert_int_equal(a->set_boolean(f->c, &bv, 1, &b, 1), fmi3OK);
	assert_int_equal(a->set_string(f->c, &sv, 1, &x->s, 1), fmi3OK);
	fmi3ValueReference ev = port(f, "enum", "in");
	fmi3Int64 e = x->e;
	assert_int_equal(a->set_int64(f->c, &ev, 1, &e, 1), fmi3OK);
}

/* Every output of the bare FMU, widened as the wrapper's Float64 and Int32 ports carry it:
 * reals[0..1], ints[0..NINT-1] then the Boolean; the Enumeration; the String into str. */
typedef struct Outputs {
	double reals[2];
	long long ints[NINT + 1];
	long long enumeration;
	char str[64];
} Outputs;

static void get_bare(Fmu3 *f, Outputs *o)
{
	Fmi3Api *a = &f->api;
	fmi3ValueReference vr;
	memset(o, 0, sizeof *o);
#define GET(base, fn, T, dst)                                                                 \
	do {                                                                                  \
		T val_;                                                                       \
		vr = port(f, base, "out");                                                    \
		assert_int_equal(a->fn(f->c, &vr, 1, &val_, 1), fmi3OK);                      \
		dst = val_;                                                                   \
	} while (0)
	GET("f32", get_float32, fmi3Float32, o->reals[0]);
	GET("f64", get_float64, fmi3Float64, o->reals[1]);
	GET("i8", get_int8, fmi3Int8, o->ints[0]);
	GET("u8", get_uint8, fmi3UInt8, o->ints[1]);
	GET("i16", get_int16, fmi3Int16, o->ints[2]);
	GET("u16", get_uint16, fmi3UInt16, o->ints[3]);
	GET("i32", get_int32, fmi3Int32, o->ints[4]);
	GET("u32", get_uint32, fmi3UInt32, o->ints[5]);
	GET("i64", get_int64, fmi3Int64, o->ints[6]);
	GET("u64", get_uint64, fmi3UInt64, o->ints[7]);
	GET("bool", get_boolean, fmi3Boolean, o->ints[8]);
	GET("enum", get_int64, fmi3Int64, o->enumeration);
	fmi3String s;
	GET("str", get_string, fmi3String, s);
	snprintf(o->str, sizeof o->str, "%s", s);
#undef GET
}

static void get_wrapper(Fmu3 *f, Outputs *o)
{
	Fmi3Api *a = &f->api;
	fmi3ValueReference vr[NINT];
	fmi3Int32 v[NINT];
	memset(o, 0, sizeof *o);
	for (int i = 0; i < NINT; i++)
		vr[i] = port(f, int_ports[i], "out");
	assert_int_equal(a->get_int32(f->c, vr, NINT, v, NINT), fmi3OK);
	for (int i = 0; i < NINT; i++)
		o->ints[i] = v[i];
	fmi3ValueReference r[2] = {port(f, "f32", "out"), port(f, "f64", "out")};
	assert_int_equal(a->get_float64(f->c, r, 2, o->reals, 2), fmi3OK);
	fmi3ValueReference bv = port(f, "bool", "out"), sv = port(f, "str", "out");
	fmi3Boolean b;
	fmi3String s;
	assert_int_equal(a->get_boolean(f->c, &bv, 1, &b, 1), fmi3OK);
	o->ints[8] = b;
	assert_int_equal(a->get_string(f->c, &sv, 1, &s, 1), fmi3OK);
	snprintf(o->str, sizeof o->str, "%s", s);
	fmi3ValueReference ev = port(f, "enum", "out");
	fmi3Int64 e;
	assert_int_equal(a->get_int64(f->c, &ev, 1, &e, 1), fmi3OK);
	o->enumeration = e;
}

/* ---- the pass-through against the bare FMU ------------------------------------------------- */

#define NSTEPS 8

/* The wrapper built into sub against the bare FMU, NSTEPS steps. */
static void compare_with_bare(const char *sub)
{
	Fmu3 w, b;
	start_wrapper_of(&w, sub);
	start_bare(&b);
	for (int k = 0; k < NSTEPS; k++) {
		Inputs x = inputs_at(k);
		Outputs ow, ob;
		set_bare(&b, &x);
		set_wrapper(&w, &x);
		assert_int_equal(fmu3_step(&b, k * 0.1, 0.1), fmi3OK);
		assert_int_equal(fmu3_step(&w, k * 0.1, 0.1), fmi3OK);
		get_bare(&b, &ob);
		get_wrapper(&w, &ow);
		assert_memory_equal(&ow, &ob, sizeof ow);
		/* and the bare FMU gave back what it got (the Float32 rounded once) */
		assert_true(ob.reals[0] == (double)x.f32);
		assert_int_equal(ob.ints[0], x.i8);
		assert_int_equal(ob.ints[7], x.u64);
		assert_int_equal(ob.enumeration, x.e);
	}
	fmu3_stop(&w);
	fmu3_stop(&b);
}

static void fmi3_wrapper__every_sized_type__outputs_bit_identical_to_the_bare_fmu(void **state)
{
	(void)state;
	compare_with_bare(OUT3);
}

static void isolated_inner__every_sized_type__outputs_bit_identical_to_the_bare_fmu(
	void **state)
{
	(void)state;
	compare_with_bare(OUT3_ISOLATED);
}

/* Steps k0..k1-1 of the wrapper with inputs_at(k), each step's outputs into out[k]. */
static void run(Fmu3 *w, int k0, int k1, Outputs out[])
{
	for (int k = k0; k < k1; k++) {
		Inputs x = inputs_at(k);
		set_wrapper(w, &x);
		assert_int_equal(fmu3_step(w, k * 0.1, 0.1), fmi3OK);
		get_wrapper(w, &out[k]);
	}
}

static void fmi3_wrapper__state_get_set_serialize__same_outputs_again(void **state)
{
	(void)state;
	Fmu3 w;
	Outputs first[NSTEPS], again[NSTEPS], back[NSTEPS];
	fmi3FMUState s = NULL, s2 = NULL;
	size_t size = 0;
	memset(first, 0, sizeof first);
	memset(again, 0, sizeof again);
	memset(back, 0, sizeof back);
	start_wrapper(&w);
	run(&w, 0, 3, first);
	assert_int_equal(w.api.get_state(w.c, &s), fmi3OK);
	run(&w, 3, NSTEPS, first);
	assert_int_equal(w.api.set_state(w.c, s), fmi3OK);
	run(&w, 3, NSTEPS, again);
	assert_memory_equal(&first[3], &again[3], (NSTEPS - 3) * sizeof first[0]);
	assert_int_equal(w.api.serialized_size(w.c, s, &size), fmi3OK);
	unsigned char *buf = malloc(size);
	assert_int_equal(w.api.serialize(w.c, s, buf, size), fmi3OK);
	assert_int_equal(w.api.deserialize(w.c, buf, size, &s2), fmi3OK);
	assert_int_equal(w.api.set_state(w.c, s2), fmi3OK);
	run(&w, 3, NSTEPS, back);
	assert_memory_equal(&first[3], &back[3], (NSTEPS - 3) * sizeof first[0]);
	assert_int_equal(w.api.free_state(w.c, &s), fmi3OK);
	assert_int_equal(w.api.free_state(w.c, &s2), fmi3OK);
	free(buf);
	fmu3_stop(&w);
}

/* Setting value on the Int32 port <base>_in of the wrapper built into sub is accepted; the
 * step that hands it to the inner fails with a message naming the port and the value. */
static void assert_does_not_fit_in(const char *sub, const char *base, int value,
                                   const char *type)
{
	Fmu3 w;
	start_wrapper_of(&w, sub);
	fmi3ValueReference vr = port(&w, base, "in");
	fmi3Int32 v = value;
	char port_name[32], number[32];
	assert_int_equal(w.api.set_int32(w.c, &vr, 1, &v, 1), fmi3OK);
	logged[0] = '\0';
	assert_int_equal(fmu3_step(&w, 0, 0.1), fmi3Error);
	snprintf(port_name, sizeof port_name, "'%s_in'", base);
	snprintf(number, sizeof number, "the value %d ", value);
	if (!strstr(logged, port_name) || !strstr(logged, number) || !strstr(logged, type))
		fail_msg("no message naming %s, %s and %s in:\n%s", port_name, number, type, logged);
	fmu3_stop(&w);
}

static void assert_does_not_fit(const char *base, int value, const char *type)
{
	assert_does_not_fit_in(OUT3, base, value, type);
}

static void isolated_inner__integer_out_of_range__error_naming_port_and_value(void **state)
{
	(void)state;
	assert_does_not_fit_in(OUT3_ISOLATED, "u8", 256, "does not fit UInt8");
}

static void fmi3_wrapper__integer_out_of_the_inners_range__error_naming_port_and_value(
	void **state)
{
	(void)state;
	assert_does_not_fit("i8", 300, "does not fit Int8");
	assert_does_not_fit("i8", -129, "does not fit Int8");
	assert_does_not_fit("u8", 256, "does not fit UInt8");
	assert_does_not_fit("u16", -1, "does not fit UInt16");
	assert_does_not_fit("u32", -1, "does not fit UInt32");
	assert_does_not_fit("u64", INT32_MIN, "does not fit UInt64");
}

static void fmi3_wrapper__int64_beyond_an_integer__error_naming_it(void **state)
{
	(void)state;
	Fmu3 w;
	start_wrapper(&w);
	fmi3ValueReference vr = port(&w, "enum", "in");
	fmi3Int64 big = (fmi3Int64)INT32_MAX + 1;
	logged[0] = '\0';
	assert_int_equal(w.api.set_int64(w.c, &vr, 1, &big, 1), fmi3Error);
	assert_non_null(strstr(logged, "fmi3SetInt64: the value 2147483648 for value reference"));
	fmu3_stop(&w);
}

static void fmi3_wrapper__model_description__enumerations_declared_and_checked(void **state)
{
	(void)state;
	char dir[PATH_MAX], cmd[3 * PATH_MAX];
	unpack(OUT3, "alltypes_sa", dir);
	snprintf(cmd, sizeof cmd, "'%s/tools/fmi3_md_check' '%s/modelDescription.xml'",
	         test_build_dir(), dir);
	assert_int_equal(system(cmd), 0);
	char *md = read_md(dir);
	assert_has(md, "<EnumerationType name=\"Mode\">\n"
	               "      <Item name=\"off\" value=\"1\"/>\n"
	               "      <Item name=\"on\" value=\"2\"/>\n"
	               "      <Item name=\"fault\" value=\"3\"/>\n"
	               "    </EnumerationType>");
	assert_has(md, "<Enumeration name=\"enum_in\"");
	assert_has(md, "<Enumeration name=\"enum_out\"");
	assert_has(md, "declaredType=\"Mode\" causality=\"input\" variability=\"discrete\" "
	               "start=\"1\"/>");
	/* the sized types are carried as the language's: Float64 and Int32 */
	assert_has(md, "<Float64 name=\"f32_in\"");
	assert_has(md, "<Int32 name=\"u64_out\"");
	free(md);
}

/* ---- inner parameters of sized types ------------------------------------------------------ */

/* sized3's parameters exposed as the wrapper's "a.<name>" (Int32 or Float64) and the outputs
 * that give each back in its own type (Int32 or Float64 in the wrapper). */
typedef struct SizedParams {
	fmi3ValueReference i8, u16, f32, u64, i8_out, u16_out, f32_out, u64_out;
} SizedParams;

static SizedParams sized_params(const Fmu3 *w)
{
	SizedParams p = {vr_of(w->dir, "a.i8_p"), vr_of(w->dir, "a.u16_p"),
	                 vr_of(w->dir, "a.f32_p"), vr_of(w->dir, "a.u64_p"),
	                 vr_of(w->dir, "i8_p_out"), vr_of(w->dir, "u16_p_out"),
	                 vr_of(w->dir, "f32_p_out"), vr_of(w->dir, "u64_p_out")};
	return p;
}

/* The outputs after a step: the integers in ints[0..2] (i8, u16, u64), the Float32 in *f. */
static void get_params_back(Fmu3 *w, const SizedParams *p, fmi3Int32 ints[3], double *f)
{
	fmi3ValueReference vr[3] = {p->i8_out, p->u16_out, p->u64_out};
	assert_int_equal(w->api.get_int32(w->c, vr, 3, ints, 3), fmi3OK);
	assert_int_equal(w->api.get_float64(w->c, &p->f32_out, 1, f, 1), fmi3OK);
}

static void set_int(Fmu3 *w, fmi3ValueReference vr, fmi3Int32 v, fmi3Status want)
{
	assert_int_equal(w->api.set_int32(w->c, &vr, 1, &v, 1), want);
}

static void fmi3_wrapper__sized_parameters__ends_of_their_ranges_reach_the_inner(void **state)
{
	(void)state;
	Fmu3 w;
	fmi3Int32 got[3];
	double f;
	fmu3_instantiate_wrapper(&w, OUT3_SIZED, "sized_sa");
	SizedParams p = sized_params(&w);
	/* the start values are the inner's (the Float32's exactly: 0.1f widened) */
	char start[64];
	assert_true(md_attr(w.dir, "name=\"a.f32_p\"", "start", start, sizeof start));
	assert_true(strtod(start, NULL) == (double)0.1f);
	/* the low ends before initialization (u16_p is fixed) */
	set_int(&w, p.i8, INT8_MIN, fmi3OK);
	set_int(&w, p.u16, 0, fmi3OK);
	set_int(&w, p.u64, 0, fmi3OK);
	const double tiny = 0x1p-149; /* the smallest Float32 */
	assert_int_equal(w.api.set_float64(w.c, &p.f32, 1, &tiny, 1), fmi3OK);
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w.api.exit_init(w.c), fmi3OK);
	assert_int_equal(fmu3_step(&w, 0, 0.1), fmi3OK);
	get_params_back(&w, &p, got, &f);
	assert_int_equal(got[0], INT8_MIN);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2], 0);
	assert_true(f == tiny);
	/* the high ends of the tunable ones between steps (UInt64: as far as an Integer goes) */
	set_int(&w, p.i8, INT8_MAX, fmi3OK);
	set_int(&w, p.u64, INT32_MAX, fmi3OK);
	const double big = 0x1.fffffep+127; /* the largest Float32 */
	assert_int_equal(w.api.set_float64(w.c, &p.f32, 1, &big, 1), fmi3OK);
	assert_int_equal(fmu3_step(&w, 0.1, 0.1), fmi3OK);
	get_params_back(&w, &p, got, &f);
	assert_int_equal(got[0], INT8_MAX);
	assert_int_equal(got[2], INT32_MAX);
	assert_true(f == big);
	fmu3_stop(&w);
}

/* The fixed UInt16 at its high end reaches the inner at initialization. */
static void fmi3_wrapper__fixed_sized_parameter_at_its_high_end__reaches_the_inner(void **state)
{
	(void)state;
	Fmu3 w;
	fmi3Int32 got[3];
	double f;
	fmu3_instantiate_wrapper(&w, OUT3_SIZED, "sized_sa");
	SizedParams p = sized_params(&w);
	set_int(&w, p.u16, UINT16_MAX, fmi3OK);
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w.api.exit_init(w.c), fmi3OK);
	assert_int_equal(fmu3_step(&w, 0, 0.1), fmi3OK);
	get_params_back(&w, &p, got, &f);
	assert_int_equal(got[0], -5); /* the others at their start values */
	assert_int_equal(got[1], UINT16_MAX);
	assert_int_equal(got[2], 3);
	assert_true(f == (double)0.1f);
	fmu3_stop(&w);
}

static void assert_logged(const char *what)
{
	if (!strstr(logged, what))
		fail_msg("no message with '%s' in:\n%s", what, logged);
}

static void fmi3_wrapper__sized_parameter_out_of_range__error_naming_it(void **state)
{
	(void)state;
	Fmu3 w;
	fmu3_instantiate_wrapper(&w, OUT3_SIZED, "sized_sa");
	SizedParams p = sized_params(&w);
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w.api.exit_init(w.c), fmi3OK);
	/* a tunable one set between steps goes to the inner at once */
	logged[0] = '\0';
	set_int(&w, p.i8, INT8_MAX + 1, fmi3Error);
	assert_logged("the value 128 for 'i8_p'");
	assert_logged("does not fit Int8");
	fmu3_stop(&w);
	fmu3_instantiate_wrapper(&w, OUT3_SIZED, "sized_sa");
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3OK);
	assert_int_equal(w.api.exit_init(w.c), fmi3OK);
	logged[0] = '\0';
	set_int(&w, p.u64, -1, fmi3Error);
	assert_logged("the value -1 for 'u64_p'");
	assert_logged("does not fit UInt64");
	fmu3_stop(&w);
	/* the fixed one at initialization */
	fmu3_instantiate_wrapper(&w, OUT3_SIZED, "sized_sa");
	set_int(&w, p.u16, UINT16_MAX + 1, fmi3OK);
	logged[0] = '\0';
	assert_int_equal(w.api.enter_init(w.c, fmi3False, 0, 0, fmi3False, 0), fmi3Error);
	assert_logged("the value 65536 for 'u16_p'");
	assert_logged("does not fit UInt16");
	fmu3_stop(&w);
}

/* The wrapper over sized3 with i8_p := P, u64_p := 2 * P and f32_p := P / 3.0, initialized
 * with P = value (want: enter_init's status). */
static void start_bound(Fmu3 *w, int value, fmi3Status want)
{
	fmu3_instantiate_wrapper(w, OUT3_BOUND, "sized_bound_sa");
	set_int(w, vr_of(w->dir, "P"), value, fmi3OK);
	logged[0] = '\0';
	assert_int_equal(w->api.enter_init(w->c, fmi3False, 0, 0, fmi3False, 0), want);
	if (want == fmi3OK)
		assert_int_equal(w->api.exit_init(w->c), fmi3OK);
}

static void fmi3_wrapper__bound_sized_parameters__reach_the_inner_range_checked(void **state)
{
	(void)state;
	Fmu3 w;
	fmi3Int32 got[3];
	double f;
	const int values[] = {100, INT8_MAX, 0};
	for (int i = 0; i < 3; i++) {
		start_bound(&w, values[i], fmi3OK);
		SizedParams p = {0, 0, 0, 0, vr_of(w.dir, "i8_p_out"), vr_of(w.dir, "u16_p_out"),
		                 vr_of(w.dir, "f32_p_out"), vr_of(w.dir, "u64_p_out")};
		assert_int_equal(fmu3_step(&w, 0, 0.1), fmi3OK);
		get_params_back(&w, &p, got, &f);
		assert_int_equal(got[0], values[i]);
		assert_int_equal(got[1], 7); /* u16_p is not bound: its start value */
		assert_int_equal(got[2], 2 * values[i]);
		assert_true(f == (double)(float)(values[i] / 3.0));
		fmu3_stop(&w);
	}
	/* -1: i8_p takes it, u64_p cannot take -2 */
	start_bound(&w, -1, fmi3Error);
	assert_logged("the value -2 for 'u64_p'");
	assert_logged("does not fit UInt64");
	fmu3_stop(&w);
	start_bound(&w, INT8_MAX + 1, fmi3Error);
	assert_logged("the value 128 for 'i8_p'");
	assert_logged("does not fit Int8");
	fmu3_stop(&w);
}

/* ---- the same script built as FMI 2.0 -------------------------------------------------------- */

static void fmi2_logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                        fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category, (void)message;
}

static void fmi2_wrapper__enumeration_and_sized_types__same_outputs_as_the_bare_fmu(
	void **state)
{
	(void)state;
	char dir[PATH_MAX], lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	const fmi2CallbackFunctions callbacks = {fmi2_logger, calloc, free, NULL, NULL};
	Fmi2Api a;
	Fmu3 b;
	unpack(OUT2, "sized_sa", dir);
	char *md = read_md(dir);
	assert_has(md, "<SimpleType name=\"Mode\">\n      <Enumeration>\n"
	               "        <Item name=\"off\" value=\"1\"/>");
	assert_has(md, "<Enumeration declaredType=\"Mode\" start=\"1\"/>");
	free(md);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/sized_sa.so", dir);
	fmi2_import(&a, lib);
	assert_true(md_attr(dir, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", dir);
	fmi2Component c = a.instantiate("w2", fmi2CoSimulation, guid, uri, &callbacks, fmi2False,
	                                fmi2False);
	assert_non_null(c);
	assert_int_equal(a.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(a.enter_init(c), fmi2OK);
	assert_int_equal(a.exit_init(c), fmi2OK);
	start_bare(&b);
	fmi2ValueReference in[NINT + 1], out[NINT + 1];
	for (int i = 0; i < NINT; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s_in", int_ports[i]);
		in[i] = vr_of(dir, name);
		snprintf(name, sizeof name, "%s_out", int_ports[i]);
		out[i] = vr_of(dir, name);
	}
	in[NINT] = vr_of(dir, "enum_in");
	out[NINT] = vr_of(dir, "enum_out");
	for (int k = 0; k < NSTEPS; k++) {
		Inputs x = inputs_at(k);
		Outputs ob;
		fmi2Integer v[NINT + 1], got[NINT + 1];
		int_values(&x, v);
		v[NINT] = x.e;
		set_bare(&b, &x);
		assert_int_equal(a.set_integer(c, in, NINT + 1, v), fmi2OK);
		fmi2ValueReference r[2] = {vr_of(dir, "f32_in"), vr_of(dir, "f64_in")};
		const fmi2Real d[2] = {x.f32, x.f64};
		assert_int_equal(a.set_real(c, r, 2, d), fmi2OK);
		assert_int_equal(fmu3_step(&b, k * 0.1, 0.1), fmi3OK);
		assert_int_equal(a.do_step(c, k * 0.1, 0.1, fmi2True), fmi2OK);
		get_bare(&b, &ob);
		assert_int_equal(a.get_integer(c, out, NINT + 1, got), fmi2OK);
		for (int i = 0; i < NINT; i++)
			assert_int_equal(got[i], ob.ints[i]);
		assert_int_equal(got[NINT], ob.enumeration);
		fmi2ValueReference ro[2] = {vr_of(dir, "f32_out"), vr_of(dir, "f64_out")};
		fmi2Real dout[2];
		assert_int_equal(a.get_real(c, ro, 2, dout), fmi2OK);
		assert_memory_equal(dout, ob.reals, sizeof dout);
	}
	a.free_instance(c);
	fmi2_unimport(&a);
	fmu3_stop(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			fmi3_wrapper__every_sized_type__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(
			fmi3_wrapper__integer_out_of_the_inners_range__error_naming_port_and_value),
		cmocka_unit_test(
			isolated_inner__every_sized_type__outputs_bit_identical_to_the_bare_fmu),
		cmocka_unit_test(isolated_inner__integer_out_of_range__error_naming_port_and_value),
		cmocka_unit_test(fmi3_wrapper__state_get_set_serialize__same_outputs_again),
		cmocka_unit_test(fmi3_wrapper__int64_beyond_an_integer__error_naming_it),
		cmocka_unit_test(
			fmi3_wrapper__model_description__enumerations_declared_and_checked),
		cmocka_unit_test(
			fmi2_wrapper__enumeration_and_sized_types__same_outputs_as_the_bare_fmu),
		cmocka_unit_test(
			fmi3_wrapper__sized_parameters__ends_of_their_ranges_reach_the_inner),
		cmocka_unit_test(
			fmi3_wrapper__fixed_sized_parameter_at_its_high_end__reaches_the_inner),
		cmocka_unit_test(fmi3_wrapper__sized_parameter_out_of_range__error_naming_it),
		cmocka_unit_test(
			fmi3_wrapper__bound_sized_parameters__reach_the_inner_range_checked),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
