/* test_sart_inner_fmi3.c — the seam's FMI 3.0 back end (runtime/sart_inner_fmi3.c) against
 * the FMI 3.0 test FMUs (tests/fmus3/): every sized type through the seam's Real and Integer
 * calls with range checks at the boundary, Booleans and Strings, early return reported as
 * the time reached, events handled in Event Mode, FMU states and their serialized form,
 * the FMU's log messages forwarded.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the FMUs come from $SACC_BUILD/fmus3/<name>/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"
#include "sart_inner.h"

#define ALLTYPES3_TOKEN "{3a1f7c20-5b8e-4d6a-9c31-7e2f0b4d8a61}"
#define EARLY3_TOKEN "{51c0e8a7-2f94-4b3d-8e6c-0a7d9b1f4c28}"
#define EVENTS3_TOKEN "{c4e9a0b2-7d15-4e83-a6f1-2b8d5c09e7f3}"

/* alltypes3's value references: inputs 1..14, outputs 101..114 */
enum { A_F32 = 1, A_F64, A_I8, A_U8, A_I16, A_U16, A_I32, A_U32, A_I64, A_U64, A_BOOL, A_STR };
enum { E_COUNT = 3, E_LAST_TICK = 4 };
enum { B_X = 4, B_V = 5, B_BOUNCES = 6 };

/* alltypes3's variables that are neither Float64 nor Int32, as sacc simulate lists them */
static const SartVrType alltypes_types[] = {
	{A_F32, SART_VT_FLOAT32, "f32_in"},  {A_F32 + 100, SART_VT_FLOAT32, "f32_out"},
	{A_I8, SART_VT_INT8, "i8_in"},       {A_I8 + 100, SART_VT_INT8, "i8_out"},
	{A_U8, SART_VT_UINT8, "u8_in"},      {A_U8 + 100, SART_VT_UINT8, "u8_out"},
	{A_I16, SART_VT_INT16, "i16_in"},    {A_I16 + 100, SART_VT_INT16, "i16_out"},
	{A_U16, SART_VT_UINT16, "u16_in"},   {A_U16 + 100, SART_VT_UINT16, "u16_out"},
	{A_U32, SART_VT_UINT32, "u32_in"},   {A_U32 + 100, SART_VT_UINT32, "u32_out"},
	{A_I64, SART_VT_INT64, "i64_in"},    {A_I64 + 100, SART_VT_INT64, "i64_out"},
	{A_U64, SART_VT_UINT64, "u64_in"},   {A_U64 + 100, SART_VT_UINT64, "u64_out"},
};

typedef struct Log {
	int count;
	char all[16384];
} Log;

static void capture(void *env, SartStatus st, const char *category, const char *message)
{
	Log *l = env;
	size_t used = strlen(l->all);
	(void)st;
	l->count++;
	snprintf(l->all + used, sizeof l->all - used, "%s: %s\n", category, message);
}

#include "assert_contains.h"

static SartInner *start3(const char *model, const char *token, unsigned caps,
                         const SartVrType *types, size_t ntypes, Log *log, int logging)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus3/%s", test_build_dir(), model);
	SartInnerConfig cfg = {model, dir, model, SART_FMI3, caps, capture, log, types, ntypes,
	                       NULL, 0, {0}, {NULL, 0}};
	SartInner *in = NULL;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_OK);
	assert_int_equal(sart_inner_instantiate(in, token, logging), SART_OK);
	SartExperiment ex = {0, 0, 0.0, 0, 0};
	assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
	assert_int_equal(sart_inner_exit_init(in), SART_OK);
	return in;
}

static void sart_inner_fmi3__alltypes__every_type_through_the_seam(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = start3("alltypes3", ALLTYPES3_TOKEN, SART_CAP_GET_SET_STATE, alltypes_types,
	                       sizeof alltypes_types / sizeof *alltypes_types, &log, 0);
	const SartVr rin[] = {A_F32, A_F64}, rout[] = {A_F32 + 100, A_F64 + 100};
	const double rv[] = {1.5, 0.1};
	const SartVr iin[] = {A_I8, A_U8, A_I16, A_U16, A_I32, A_U32, A_I64, A_U64};
	SartVr iout[8];
	const int iv[] = {-128, 255, -32768, 65535, -7, 2147483647, -2147483647 - 1, 12};
	for (int k = 0; k < 8; k++)
		iout[k] = iin[k] + 100;
	const SartVr bin[] = {A_BOOL}, bout[] = {A_BOOL + 100};
	const SartVr sin[] = {A_STR}, sout[] = {A_STR + 100};
	const char *const sv[] = {"a \"quoted\", string"};
	const int bv[] = {1};
	assert_int_equal(sart_inner_set_real(in, rin, 2, rv), SART_OK);
	assert_int_equal(sart_inner_set_integer(in, iin, 8, iv), SART_OK);
	assert_int_equal(sart_inner_set_boolean(in, bin, 1, bv), SART_OK);
	assert_int_equal(sart_inner_set_string(in, sin, 1, sv), SART_OK);
	double reached = 0;
	assert_int_equal(sart_inner_do_step(in, 0, 0.1, 1, &reached), SART_OK);
	assert_true(reached == 0.1);
	double ro[2];
	int io[8], bo[1];
	const char *so[1];
	assert_int_equal(sart_inner_get_real(in, rout, 2, ro), SART_OK);
	assert_true(ro[0] == 1.5);
	assert_true(ro[1] == 0.1);
	assert_int_equal(sart_inner_get_integer(in, iout, 8, io), SART_OK);
	for (int k = 0; k < 8; k++)
		assert_int_equal(io[k], iv[k]);
	assert_int_equal(sart_inner_get_boolean(in, bout, 1, bo), SART_OK);
	assert_int_equal(bo[0], 1);
	assert_int_equal(sart_inner_get_string(in, sout, 1, so), SART_OK);
	assert_string_equal(so[0], sv[0]);
	assert_int_equal(log.count, 0);
	sart_inner_free(in);
}

/* Binary values with zero bytes in them go through whole, with their lengths: alltypes3
 * copies bin_in (13) to bin_out (113) in its step. */
static void sart_inner_fmi3__binary__bytes_and_sizes_through_the_seam(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = start3("alltypes3", ALLTYPES3_TOKEN, 0, alltypes_types,
	                       sizeof alltypes_types / sizeof *alltypes_types, &log, 0);
	const SartVr bin[] = {13}, bout[] = {113};
	static const unsigned char bytes[] = {0x00, 0xff, 0x00, 0x1b};
	const unsigned char *const v[] = {bytes};
	const size_t sizes[] = {sizeof bytes};
	const unsigned char *got[1] = {NULL};
	size_t got_sizes[1] = {99};
	assert_int_equal(sart_inner_get_binary(in, bin, 1, got, got_sizes), SART_OK);
	assert_int_equal(got_sizes[0], 2); /* its start value, cafe */
	assert_memory_equal(got[0], "\xca\xfe", 2);
	assert_int_equal(sart_inner_set_binary(in, bin, 1, v, sizes), SART_OK);
	double reached = 0;
	assert_int_equal(sart_inner_do_step(in, 0, 0.1, 1, &reached), SART_OK);
	assert_int_equal(sart_inner_get_binary(in, bout, 1, got, got_sizes), SART_OK);
	assert_int_equal(got_sizes[0], 4);
	assert_memory_equal(got[0], bytes, 4);
	/* the empty value is a value, of length 0 */
	const size_t none[] = {0};
	assert_int_equal(sart_inner_set_binary(in, bin, 1, v, none), SART_OK);
	assert_int_equal(sart_inner_do_step(in, 0.1, 0.1, 1, &reached), SART_OK);
	assert_int_equal(sart_inner_get_binary(in, bout, 1, got, got_sizes), SART_OK);
	assert_int_equal(got_sizes[0], 0);
	assert_int_equal(log.count, 0);
	sart_inner_free(in);
}

static void sart_inner_fmi3__out_of_range__error_naming_variable_and_value(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = start3("alltypes3", ALLTYPES3_TOKEN, 0, alltypes_types,
	                       sizeof alltypes_types / sizeof *alltypes_types, &log, 0);
	const SartVr i8[] = {A_I8}, u32[] = {A_U32}, f32[] = {A_F32};
	const int big[] = {300}, negative[] = {-1};
	const double huge[] = {1e300};
	assert_int_equal(sart_inner_set_integer(in, i8, 1, big), SART_ERROR);
	assert_string_equal(sart_inner_message(in), "[alltypes3] fmi3SetInt8: the value 300 for "
	                    "'i8_in' (valueReference 3) does not fit Int8");
	assert_int_equal(sart_inner_set_integer(in, u32, 1, negative), SART_ERROR);
	assert_contains(sart_inner_message(in), "the value -1 for 'u32_in' (valueReference 8) "
	                "does not fit UInt32");
	assert_int_equal(sart_inner_set_real(in, f32, 1, huge), SART_ERROR);
	assert_contains(sart_inner_message(in), "the value 1e+300 for 'f32_in' "
	                "(valueReference 1) does not fit Float32");
	/* a getter of the wrong kind is refused, not called */
	double x;
	assert_int_equal(sart_inner_get_real(in, i8, 1, &x), SART_ERROR);
	assert_contains(sart_inner_message(in), "'i8_in' (valueReference 3) is Int8, not a Float");
	sart_inner_free(in);
}

static void sart_inner_fmi3__early_return__reported_as_time_reached(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = start3("early3", EARLY3_TOKEN, SART_CAP_EARLY_RETURN, NULL, 0, &log, 0);
	const SartVr vr[] = {E_COUNT};
	int count;
	double reached = 0;
	/* ticks at 0.1 + 0.25 i: the step from 0 by 1 stops at the first */
	assert_int_equal(sart_inner_do_step(in, 0, 1, 1, &reached), SART_OK);
	assert_true(reached == 0.1);
	assert_int_equal(sart_inner_get_integer(in, vr, 1, &count), SART_OK);
	assert_int_equal(count, 1);
	assert_int_equal(sart_inner_do_step(in, reached, 1 - reached, 1, &reached), SART_OK);
	assert_true(reached == 0.35);
	sart_inner_free(in);
	/* without the capability the FMU steps through its ticks */
	in = start3("early3", EARLY3_TOKEN, 0, NULL, 0, &log, 0);
	assert_int_equal(sart_inner_do_step(in, 0, 1, 1, &reached), SART_OK);
	assert_true(reached == 1);
	assert_int_equal(sart_inner_get_integer(in, vr, 1, &count), SART_OK);
	assert_int_equal(count, 4);
	sart_inner_free(in);
}

static void sart_inner_fmi3__events__handled_in_event_mode_and_logged(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = start3("events3", EVENTS3_TOKEN, SART_CAP_EVENT_MODE | SART_CAP_EARLY_RETURN,
	                       NULL, 0, &log, 1);
	const SartVr vr[] = {B_X, B_V}, nb[] = {B_BOUNCES};
	double xv[2], reached = 0;
	int bounces;
	assert_int_equal(sart_inner_do_step(in, 0, 1, 1, &reached), SART_OK);
	/* the first impact, sqrt(2 h0 / g), with the bounce done by fmi3UpdateDiscreteStates */
	assert_true(fabs(reached - sqrt(2 / 9.81)) < 1e-12);
	assert_int_equal(sart_inner_get_real(in, vr, 2, xv), SART_OK);
	assert_int_equal(sart_inner_get_integer(in, nb, 1, &bounces), SART_OK);
	assert_int_equal(bounces, 1);
	assert_true(fabs(xv[0]) < 1e-12);
	assert_true(fabs(xv[1] - 0.7 * 9.81 * sqrt(2 / 9.81)) < 1e-9);
	assert_contains(log.all, "logEvents: [events3] bounce 1 at 0.451524");
	sart_inner_free(in);
	/* without event mode the FMU handles the impact inside the step */
	in = start3("events3", EVENTS3_TOKEN, 0, NULL, 0, &log, 0);
	assert_int_equal(sart_inner_do_step(in, 0, 1, 1, &reached), SART_OK);
	assert_true(reached == 1);
	assert_int_equal(sart_inner_get_integer(in, nb, 1, &bounces), SART_OK);
	assert_int_equal(bounces, 1);
	sart_inner_free(in);
}

/* Event Mode without early return: an impact is bounced at the end of its step; with
 * events3's eager set, the FMU stops at the impact all the same, and the seam handles the
 * event there and steps it on to the end, so the caller still reaches t + h. */
static void sart_inner_fmi3__events_without_early_return__whole_steps(void **state)
{
	(void)state;
	const double g = 9.81, t1 = sqrt(2 / g), v1 = 0.7 * g * t1, dt = 1 - t1;
	const SartVr vr[] = {B_X, B_V}, nb[] = {B_BOUNCES}, eager[] = {9};
	const int yes[] = {1};
	double xv[2], reached = 0;
	int bounces;
	for (int is_eager = 0; is_eager < 2; is_eager++) {
		Log log = {0};
		char dir[512];
		SartInner *in = NULL;
		snprintf(dir, sizeof dir, "%s/fmus3/events3", test_build_dir());
		SartInnerConfig cfg = {"events3", dir, "events3", SART_FMI3, SART_CAP_EVENT_MODE,
		                       capture, &log, NULL, 0, NULL, 0, {0}, {NULL, 0}};
		assert_int_equal(sart_inner_load(&cfg, &in), SART_OK);
		assert_int_equal(sart_inner_instantiate(in, EVENTS3_TOKEN, 1), SART_OK);
		if (is_eager)
			assert_int_equal(sart_inner_set_boolean(in, eager, 1, yes), SART_OK);
		SartExperiment ex = {0, 0, 0.0, 0, 0};
		assert_int_equal(sart_inner_enter_init(in, &ex), SART_OK);
		assert_int_equal(sart_inner_exit_init(in), SART_OK);
		assert_int_equal(sart_inner_do_step(in, 0, 1, 1, &reached), SART_OK);
		assert_true(reached == 1);
		assert_int_equal(sart_inner_get_real(in, vr, 2, xv), SART_OK);
		assert_int_equal(sart_inner_get_integer(in, nb, 1, &bounces), SART_OK);
		assert_int_equal(bounces, 1);
		if (is_eager) { /* bounced at t1, in flight since */
			assert_contains(log.all, "logEvents: [events3] bounce 1 at 0.451524");
			assert_true(fabs(xv[0] - (v1 * dt - 0.5 * g * dt * dt)) < 1e-12);
			assert_true(fabs(xv[1] - (v1 - g * dt)) < 1e-12);
		} else { /* on the ground until the step's end, bounced there */
			assert_contains(log.all, "logEvents: [events3] bounce 1 at 1\n");
			assert_true(xv[0] == 0);
			assert_true(fabs(xv[1] - v1) < 1e-12);
		}
		sart_inner_free(in);
	}
}

static void sart_inner_fmi3__states__restored_and_serialized(void **state)
{
	(void)state;
	Log log = {0};
	SartInner *in = start3("events3", EVENTS3_TOKEN, SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE,
	                       NULL, 0, &log, 0);
	const SartVr vr[] = {B_X, B_V};
	double a[2], b[2], c[2], reached;
	void *s = NULL, *s2 = NULL;
	assert_int_equal(sart_inner_do_step(in, 0, 0.2, 1, &reached), SART_OK);
	assert_int_equal(sart_inner_get_state(in, &s), SART_OK);
	assert_int_equal(sart_inner_do_step(in, 0.2, 0.5, 0, &reached), SART_OK);
	assert_int_equal(sart_inner_get_real(in, vr, 2, a), SART_OK);
	assert_int_equal(sart_inner_set_state(in, s), SART_OK);
	assert_int_equal(sart_inner_do_step(in, 0.2, 0.5, 0, &reached), SART_OK);
	assert_int_equal(sart_inner_get_real(in, vr, 2, b), SART_OK);
	assert_memory_equal(a, b, sizeof a);
	size_t size = 0;
	assert_int_equal(sart_inner_serialized_size(in, s, &size), SART_OK);
	unsigned char *buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(sart_inner_serialize(in, s, buf, size), SART_OK);
	assert_int_equal(sart_inner_deserialize(in, buf, size, &s2), SART_OK);
	assert_int_equal(sart_inner_set_state(in, s2), SART_OK);
	assert_int_equal(sart_inner_do_step(in, 0.2, 0.5, 0, &reached), SART_OK);
	assert_int_equal(sart_inner_get_real(in, vr, 2, c), SART_OK);
	assert_memory_equal(a, c, sizeof a);
	free(buf);
	assert_int_equal(sart_inner_free_state(in, &s), SART_OK);
	assert_int_equal(sart_inner_free_state(in, &s2), SART_OK);
	sart_inner_free(in);
}

static void sart_inner_fmi3__wrong_token__instantiation_fails(void **state)
{
	(void)state;
	Log log = {0};
	char dir[512];
	snprintf(dir, sizeof dir, "%s/fmus3/early3", test_build_dir());
	SartInnerConfig cfg = {"e", dir, "early3", SART_FMI3, 0, capture, &log, NULL, 0, NULL, 0, {0}, {NULL, 0}};
	SartInner *in = NULL;
	assert_int_equal(sart_inner_load(&cfg, &in), SART_OK);
	assert_int_equal(sart_inner_instantiate(in, "{wrong}", 0), SART_ERROR);
	assert_contains(sart_inner_message(in), "[e] fmi3InstantiateCoSimulation returned NULL");
	sart_inner_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sart_inner_fmi3__alltypes__every_type_through_the_seam),
		cmocka_unit_test(sart_inner_fmi3__binary__bytes_and_sizes_through_the_seam),
		cmocka_unit_test(sart_inner_fmi3__out_of_range__error_naming_variable_and_value),
		cmocka_unit_test(sart_inner_fmi3__early_return__reported_as_time_reached),
		cmocka_unit_test(sart_inner_fmi3__events__handled_in_event_mode_and_logged),
		cmocka_unit_test(sart_inner_fmi3__events_without_early_return__whole_steps),
		cmocka_unit_test(sart_inner_fmi3__states__restored_and_serialized),
		cmocka_unit_test(sart_inner_fmi3__wrong_token__instantiation_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
