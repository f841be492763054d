/* test_fmu3_kit.c — the FMI 3.0 test FMUs (tests/fmus3/) through the suite's minimal FMI 3.0
 * importer: every variable type bit for bit, arrays, early return, Event Mode, FMU states, and
 * the state machine's refusals.  The wrappers' FMI 3.0 tests rely on what is asserted here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fmi3_importer.h"
#include "assert_close.h"
#include "assert_contains.h"

/* ---- an importer's side: a logger that keeps the last error --------------------------- */

typedef struct Log {
	char last[512];
	int count;
} Log;

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                   fmi3String message)
{
	Log *l = env;
	(void)status;
	snprintf(l->last, sizeof l->last, "[%s] %s", category, message);
	l->count++;
}

typedef struct Fmu {
	Fmi3Api api;
	fmi3Instance c;
	Log log;
} Fmu;

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static const char *token_of(const char *model)
{
	if (strcmp(model, "alltypes3") == 0)
		return "{3a1f7c20-5b8e-4d6a-9c31-7e2f0b4d8a61}";
	if (strcmp(model, "array3") == 0)
		return "{9d2b4e61-0c7a-4f38-b5e2-61a8c3f0d947}";
	if (strcmp(model, "early3") == 0)
		return "{51c0e8a7-2f94-4b3d-8e6c-0a7d9b1f4c28}";
	return "{c4e9a0b2-7d15-4e83-a6f1-2b8d5c09e7f3}";
}

static void open_fmu(Fmu *f, const char *model, int event_mode, int early_return,
                     fmi3IntermediateUpdateCallback intermediate)
{
	char path[512];
	memset(f, 0, sizeof *f);
	fmi3_library_path(path, sizeof path, build_dir(), model);
	fmi3_import(&f->api, path);
	f->c = f->api.instantiate("inst", token_of(model), NULL, fmi3False, fmi3False,
	                          event_mode ? fmi3True : fmi3False,
	                          early_return ? fmi3True : fmi3False, NULL, 0, &f->log, logger,
	                          intermediate);
	assert_non_null(f->c);
}

/* Instantiated, initialized at t = 0, in Step Mode (through Event Mode when used). */
static void start_fmu(Fmu *f, const char *model, int event_mode, int early_return)
{
	fmi3Boolean a, b, c, d, e;
	fmi3Float64 next;
	open_fmu(f, model, event_mode, early_return, NULL);
	assert_int_equal(f->api.enter_init(f->c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(f->api.exit_init(f->c), fmi3OK);
	if (event_mode) {
		assert_int_equal(f->api.update_discrete_states(f->c, &a, &b, &c, &d, &e, &next), fmi3OK);
		assert_false(a);
		assert_int_equal(f->api.enter_step_mode(f->c), fmi3OK);
	}
}

static void close_fmu(Fmu *f)
{
	f->api.free_instance(f->c);
	fmi3_unimport(&f->api);
}

typedef struct StepOut {
	fmi3Boolean event, terminate, early;
	fmi3Float64 last;
} StepOut;

static fmi3Status step(Fmu *f, double t, double h, StepOut *o)
{
	return f->api.do_step(f->c, t, h, fmi3False, &o->event, &o->terminate, &o->early, &o->last);
}

/* ---- alltypes3 ------------------------------------------------------------------------- */

static void alltypes3__every_type__passes_through_bit_for_bit(void **state)
{
	Fmu f;
	const fmi3Float32 f32 = -0x1.fffffep+127f;
	const fmi3Float64 f64 = 0x1.0000000000001p-1022;
	const fmi3Int8 i8 = INT8_MIN;
	const fmi3UInt8 u8 = UINT8_MAX;
	const fmi3Int16 i16 = INT16_MIN;
	const fmi3UInt16 u16 = UINT16_MAX;
	const fmi3Int32 i32 = INT32_MIN;
	const fmi3UInt32 u32 = UINT32_MAX;
	const fmi3Int64 i64 = INT64_MIN;
	const fmi3UInt64 u64 = UINT64_MAX;
	const fmi3Boolean bo = fmi3True;
	const fmi3String str = "a string, with \"quotes\"";
	const fmi3Byte bytes[5] = {0, 1, 0xff, 0x80, 0};
	const fmi3Binary bin = bytes;
	const size_t binsize = sizeof bytes;
	const fmi3Int64 en = 3;
	fmi3Float32 of32;
	fmi3Float64 of64;
	fmi3Int8 oi8;
	fmi3UInt8 ou8;
	fmi3Int16 oi16;
	fmi3UInt16 ou16;
	fmi3Int32 oi32;
	fmi3UInt32 ou32;
	fmi3Int64 oi64, oen;
	fmi3UInt64 ou64;
	fmi3Boolean obo;
	fmi3String ostr;
	fmi3Binary obin;
	size_t obinsize;
	StepOut o;
	fmi3ValueReference vr;
	(void)state;
	start_fmu(&f, "alltypes3", 0, 0);
#define SET(fn, v, val) (vr = (v), f.api.fn(f.c, &vr, 1, &(val), 1))
	assert_int_equal(SET(set_float32, 1, f32), fmi3OK);
	assert_int_equal(SET(set_float64, 2, f64), fmi3OK);
	assert_int_equal(SET(set_int8, 3, i8), fmi3OK);
	assert_int_equal(SET(set_uint8, 4, u8), fmi3OK);
	assert_int_equal(SET(set_int16, 5, i16), fmi3OK);
	assert_int_equal(SET(set_uint16, 6, u16), fmi3OK);
	assert_int_equal(SET(set_int32, 7, i32), fmi3OK);
	assert_int_equal(SET(set_uint32, 8, u32), fmi3OK);
	assert_int_equal(SET(set_int64, 9, i64), fmi3OK);
	assert_int_equal(SET(set_uint64, 10, u64), fmi3OK);
	assert_int_equal(SET(set_boolean, 11, bo), fmi3OK);
	assert_int_equal(SET(set_string, 12, str), fmi3OK);
	vr = 13;
	assert_int_equal(f.api.set_binary(f.c, &vr, 1, &binsize, &bin, 1), fmi3OK);
	assert_int_equal(SET(set_int64, 14, en), fmi3OK);
	assert_int_equal(step(&f, 0.0, 0.1, &o), fmi3OK);
	assert_false(o.early);
	assert_int_equal(SET(get_float32, 101, of32), fmi3OK);
	assert_int_equal(SET(get_float64, 102, of64), fmi3OK);
	assert_int_equal(SET(get_int8, 103, oi8), fmi3OK);
	assert_int_equal(SET(get_uint8, 104, ou8), fmi3OK);
	assert_int_equal(SET(get_int16, 105, oi16), fmi3OK);
	assert_int_equal(SET(get_uint16, 106, ou16), fmi3OK);
	assert_int_equal(SET(get_int32, 107, oi32), fmi3OK);
	assert_int_equal(SET(get_uint32, 108, ou32), fmi3OK);
	assert_int_equal(SET(get_int64, 109, oi64), fmi3OK);
	assert_int_equal(SET(get_uint64, 110, ou64), fmi3OK);
	assert_int_equal(SET(get_boolean, 111, obo), fmi3OK);
	assert_int_equal(SET(get_string, 112, ostr), fmi3OK);
	assert_int_equal(SET(get_int64, 114, oen), fmi3OK);
#undef SET
	vr = 113;
	assert_int_equal(f.api.get_binary(f.c, &vr, 1, &obinsize, &obin, 1), fmi3OK);
	assert_memory_equal(&of32, &f32, sizeof f32);
	assert_memory_equal(&of64, &f64, sizeof f64);
	assert_true(oi8 == i8 && ou8 == u8 && oi16 == i16 && ou16 == u16);
	assert_true(oi32 == i32 && ou32 == u32 && oi64 == i64 && ou64 == u64);
	assert_true(obo == bo && oen == en);
	assert_string_equal(ostr, str);
	assert_int_equal(obinsize, sizeof bytes);
	assert_memory_equal(obin, bytes, sizeof bytes);
	close_fmu(&f);
}

static void alltypes3__wrong_type_or_count__error_names_the_variable(void **state)
{
	Fmu f;
	fmi3Float64 x[2];
	fmi3ValueReference vrs[2] = {107, 102};
	(void)state;
	start_fmu(&f, "alltypes3", 0, 0);
	assert_int_equal(f.api.get_float64(f.c, vrs, 1, x, 1), fmi3Error);
	assert_non_null(strstr(f.log.last, "fmi3GetFloat64: variable 'i32_out' (value reference "
	                                   "107) is of type Int32"));
	assert_int_equal(f.api.get_float64(f.c, &vrs[1], 1, x, 2), fmi3Error);
	assert_non_null(strstr(f.log.last, "nValues is 2, the variables given have 1 elements"));
	vrs[0] = 102;
	assert_int_equal(f.api.set_float64(f.c, vrs, 1, x, 1), fmi3Error);
	assert_non_null(strstr(f.log.last, "variable 'f64_out' cannot be set (it is an output)"));
	close_fmu(&f);
}

static void alltypes3__calls_in_wrong_states__error_logged(void **state)
{
	Fmu f;
	StepOut o;
	fmi3Boolean a, b, c, d, e;
	fmi3Float64 next;
	(void)state;
	open_fmu(&f, "alltypes3", 0, 0, NULL);
	assert_int_equal(step(&f, 0.0, 0.1, &o), fmi3Error);
	assert_non_null(strstr(f.log.last, "fmi3DoStep: not allowed in state Instantiated"));
	assert_int_equal(f.api.exit_init(f.c), fmi3Error);
	assert_non_null(strstr(f.log.last, "fmi3ExitInitializationMode: not allowed in state "
	                                   "Instantiated"));
	assert_int_equal(f.api.enter_init(f.c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(f.api.enter_step_mode(f.c), fmi3Error);
	assert_non_null(strstr(f.log.last, "not allowed in state Initialization Mode"));
	assert_int_equal(f.api.exit_init(f.c), fmi3OK);
	assert_int_equal(f.api.enter_event_mode(f.c), fmi3Error);
	assert_non_null(strstr(f.log.last, "eventModeUsed false"));
	assert_int_equal(f.api.update_discrete_states(f.c, &a, &b, &c, &d, &e, &next), fmi3Error);
	assert_non_null(strstr(f.log.last, "not allowed in state Step Mode"));
	assert_int_equal(step(&f, 0.5, 0.1, &o), fmi3Error);
	assert_non_null(strstr(f.log.last, "does not start at the instance's time 0"));
	assert_int_equal(f.api.enter_configuration_mode(f.c), fmi3Error);
	assert_non_null(strstr(f.log.last, "fmi3EnterConfigurationMode: not supported"));
	assert_int_equal(f.api.terminate(f.c), fmi3OK);
	assert_int_equal(step(&f, 0.0, 0.1, &o), fmi3Error);
	assert_non_null(strstr(f.log.last, "not allowed in state Terminated"));
	close_fmu(&f);
}

/* Every FMU exports Model Exchange's functions, whatever it implements; the kit's refuse. */
static void alltypes3__model_exchange_functions__exported_error_logged(void **state)
{
	Fmu f;
	fmi3Boolean enter_event = fmi3True, terminate = fmi3True;
	size_t nx = 7;
	(void)state;
	open_fmu(&f, "alltypes3", 0, 0, NULL);
	assert_int_equal(f.api.set_time(f.c, 1.0), fmi3Error);
	assert_string_equal(f.log.last, "[logStatusError] fmi3SetTime: this FMU implements "
	                                "Co-Simulation only");
	assert_int_equal(f.api.enter_continuous_time_mode(f.c), fmi3Error);
	assert_contains(f.log.last, "fmi3EnterContinuousTimeMode: this FMU implements "
	                            "Co-Simulation only");
	assert_int_equal(f.api.completed_integrator_step(f.c, fmi3True, &enter_event, &terminate),
	                 fmi3Error);
	assert_contains(f.log.last, "fmi3CompletedIntegratorStep: this FMU implements "
	                            "Co-Simulation only");
	assert_int_equal(f.api.get_number_of_continuous_states(f.c, &nx), fmi3Error);
	assert_contains(f.log.last, "fmi3GetNumberOfContinuousStates: this FMU implements "
	                            "Co-Simulation only");
	assert_int_equal(nx, 7);
	/* The refusals leave the instance as it was. */
	assert_int_equal(f.api.enter_init(f.c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(f.api.exit_init(f.c), fmi3OK);
	close_fmu(&f);
}

/* An FMU that lacks one function of fmi3Functions.h is refused, as fmusim and FMPy refuse
 * it, with the function's name; the same FMU with it is imported. */
static void importer__function_missing__refused_naming_it(void **state)
{
	char path[512], why[1024];
	Fmi3Api a;
	(void)state;
	snprintf(path, sizeof path, "%s/fmus3-broken/nosettime/binaries/x86_64-linux/nosettime.so",
	         build_dir());
	assert_non_null(fmi3_try_import(&a, path, why, sizeof why));
	assert_contains(why, "nosettime.so: refused: the FMU does not export fmi3SetTime");
	fmi3_unimport(&a);
	fmi3_library_path(path, sizeof path, build_dir(), "aparam3");
	assert_null(fmi3_try_import(&a, path, why, sizeof why));
	assert_non_null(a.set_time);
	fmi3_unimport(&a);
}

static void alltypes3__wrong_token__not_instantiated(void **state)
{
	Fmu f;
	char path[512];
	(void)state;
	memset(&f, 0, sizeof f);
	fmi3_library_path(path, sizeof path, build_dir(), "alltypes3");
	fmi3_import(&f.api, path);
	assert_null(f.api.instantiate("inst", "{not-it}", NULL, fmi3False, fmi3False, fmi3False,
	                              fmi3False, NULL, 0, &f.log, logger, NULL));
	assert_non_null(strstr(f.log.last, "instantiationToken does not match"));
	assert_null(f.api.instantiate_me("inst", token_of("alltypes3"), NULL, fmi3False, fmi3False,
	                                 &f.log, logger));
	assert_non_null(strstr(f.log.last, "Co-Simulation only"));
	fmi3_unimport(&f.api);
}

/* ---- array3 ---------------------------------------------------------------------------- */

static void array3__arrays__elementwise_as_computed_by_hand(void **state)
{
	Fmu f;
	StepOut o;
	const fmi3Float64 u[3] = {1.0, -2.0, 0.5};
	fmi3Float64 y[3], stats[2], both[5];
	fmi3ValueReference vr = 3, outs[2] = {5, 6};
	fmi3UInt64 n;
	(void)state;
	start_fmu(&f, "array3", 0, 0);
	assert_int_equal(f.api.set_float64(f.c, &vr, 1, u, 3), fmi3OK);
	assert_int_equal(step(&f, 0.0, 0.5, &o), fmi3OK);
	vr = 5;
	assert_int_equal(f.api.get_float64(f.c, &vr, 1, y, 3), fmi3OK);
	/* x = u * 0.5, y = x + gain .* u with gain = {1, 2, 3} */
	assert_true(y[0] == 1.5 && y[1] == -5.0 && y[2] == 1.75);
	vr = 6;
	assert_int_equal(f.api.get_float64(f.c, &vr, 1, stats, 2), fmi3OK);
	assert_true(stats[0] == -1.75 && stats[1] == 1.75);
	assert_int_equal(f.api.get_float64(f.c, outs, 2, both, 5), fmi3OK);
	assert_memory_equal(both, y, sizeof y);
	assert_memory_equal(both + 3, stats, sizeof stats);
	vr = 1;
	assert_int_equal(f.api.get_uint64(f.c, &vr, 1, &n, 1), fmi3OK);
	assert_int_equal(n, 3);
	n = 4;
	assert_int_equal(f.api.set_uint64(f.c, &vr, 1, &n, 1), fmi3Error);
	assert_non_null(strstr(f.log.last, "structural parameter 'n' keeps its start value"));
	close_fmu(&f);
}

/* ---- early3 ---------------------------------------------------------------------------- */

static void early3__early_return_allowed__stops_at_each_tick(void **state)
{
	Fmu f;
	StepOut o;
	const double ticks[] = {0.1, 0.35, 0.6, 0.85};
	double t = 0.0;
	fmi3ValueReference vr = 3;
	fmi3Int32 count;
	(void)state;
	start_fmu(&f, "early3", 0, 1);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(step(&f, t, 1.0 - t, &o), fmi3OK);
		assert_true(o.early);
		assert_false(o.event);
		assert_close(o.last, ticks[i], 1e-15);
		t = o.last;
	}
	assert_int_equal(step(&f, t, 1.0 - t, &o), fmi3OK);
	assert_false(o.early);
	assert_true(o.last == 1.0);
	assert_int_equal(f.api.get_int32(f.c, &vr, 1, &count, 1), fmi3OK);
	assert_int_equal(count, 4);
	close_fmu(&f);
}

static void early3__early_return_not_allowed__steps_through(void **state)
{
	Fmu f;
	StepOut o;
	fmi3ValueReference vrs[2] = {3, 4};
	fmi3Int32 count;
	fmi3Float64 last;
	(void)state;
	start_fmu(&f, "early3", 0, 0);
	assert_int_equal(step(&f, 0.0, 1.0, &o), fmi3OK);
	assert_false(o.early);
	assert_true(o.last == 1.0);
	assert_int_equal(f.api.get_int32(f.c, vrs, 1, &count, 1), fmi3OK);
	assert_int_equal(f.api.get_float64(f.c, vrs + 1, 1, &last, 1), fmi3OK);
	assert_int_equal(count, 4);
	assert_close(last, 0.85, 1e-15);
	close_fmu(&f);
}

static int intermediate_calls;
static void ask_early_return(fmi3InstanceEnvironment env, fmi3Float64 t, fmi3Boolean set,
                             fmi3Boolean get, fmi3Boolean finished, fmi3Boolean can_return,
                             fmi3Boolean *requested, fmi3Float64 *when)
{
	(void)env, (void)set, (void)get, (void)finished;
	intermediate_calls++;
	*requested = can_return && t > 0.3;
	*when = t;
}

static void early3__intermediate_update__called_at_each_tick(void **state)
{
	Fmu f;
	StepOut o;
	(void)state;
	intermediate_calls = 0;
	open_fmu(&f, "early3", 0, 0, ask_early_return);
	assert_int_equal(f.api.enter_init(f.c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(f.api.exit_init(f.c), fmi3OK);
	/* early return not allowed: the callback's request is not honoured */
	assert_int_equal(step(&f, 0.0, 1.0, &o), fmi3OK);
	assert_false(o.early);
	assert_int_equal(intermediate_calls, 4);
	close_fmu(&f);
}

/* ---- events3 --------------------------------------------------------------------------- */

static void events3__event_mode__stops_at_impact_and_bounces_there(void **state)
{
	Fmu f;
	StepOut o;
	fmi3Boolean again, term, nominals, values, has_next;
	fmi3Float64 next, xv[2];
	fmi3ValueReference vrs[3] = {4, 5, 6};
	fmi3Int32 bounces;
	const double g = 9.81, impact = sqrt(2.0 / g);
	(void)state;
	start_fmu(&f, "events3", 1, 1);
	assert_int_equal(step(&f, 0.0, 1.0, &o), fmi3OK);
	assert_true(o.early);
	assert_true(o.event);
	assert_close(o.last, impact, 1e-15);
	assert_int_equal(f.api.enter_event_mode(f.c), fmi3OK);
	assert_int_equal(f.api.update_discrete_states(f.c, &again, &term, &nominals, &values,
	                                              &has_next, &next), fmi3OK);
	assert_false(again);
	assert_true(values);
	assert_int_equal(f.api.enter_step_mode(f.c), fmi3OK);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, xv, 2), fmi3OK);
	assert_int_equal(f.api.get_int32(f.c, vrs + 2, 1, &bounces, 1), fmi3OK);
	assert_int_equal(bounces, 1);
	assert_true(xv[0] == 0.0);
	assert_close(xv[1], 0.7 * g * impact, 1e-12);
	close_fmu(&f);
}

/* Event Mode without early return: the impact waits for the step's end, where Event Mode
 * bounces the ball with the velocity it hit the ground with. */
static void events3__event_mode_no_early_return__bounces_at_the_step_end(void **state)
{
	Fmu f;
	StepOut o;
	fmi3Boolean again, term, nominals, values, has_next;
	fmi3Float64 next, xv[2];
	fmi3ValueReference vrs[3] = {4, 5, 6};
	fmi3Int32 bounces;
	const double g = 9.81, impact = sqrt(2.0 / g);
	(void)state;
	start_fmu(&f, "events3", 1, 0);
	assert_int_equal(step(&f, 0.0, 0.4, &o), fmi3OK);
	assert_false(o.event);
	assert_int_equal(step(&f, 0.4, 0.1, &o), fmi3OK);
	assert_false(o.early);
	assert_true(o.event);
	assert_true(o.last == 0.5);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, xv, 2), fmi3OK);
	assert_true(xv[0] == 0.0);
	assert_close(xv[1], -g * impact, 1e-12);
	assert_int_equal(f.api.enter_event_mode(f.c), fmi3OK);
	assert_int_equal(f.api.update_discrete_states(f.c, &again, &term, &nominals, &values,
	                                              &has_next, &next), fmi3OK);
	assert_false(again);
	assert_false(term);
	assert_int_equal(f.api.enter_step_mode(f.c), fmi3OK);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, xv, 2), fmi3OK);
	assert_int_equal(f.api.get_int32(f.c, vrs + 2, 1, &bounces, 1), fmi3OK);
	assert_int_equal(bounces, 1);
	assert_true(xv[0] == 0.0);
	assert_close(xv[1], 0.7 * g * impact, 1e-12);
	/* from there a free flight: up at 0.7 g impact from t = 0.5 */
	assert_int_equal(step(&f, 0.5, 0.1, &o), fmi3OK);
	assert_false(o.event);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, xv, 2), fmi3OK);
	assert_close(xv[0], 0.7 * g * impact * 0.1 - 0.5 * g * 0.01, 1e-12);
	close_fmu(&f);
}

static void events3__no_event_mode__bounces_inside_the_step(void **state)
{
	Fmu f;
	StepOut o;
	fmi3Float64 xv[2];
	fmi3ValueReference vrs[3] = {4, 5, 6};
	fmi3Int32 bounces;
	const double g = 9.81, impact = sqrt(2.0 / g), v1 = 0.7 * g * impact, dt = 1.0 - impact;
	(void)state;
	start_fmu(&f, "events3", 0, 0);
	assert_int_equal(step(&f, 0.0, 1.0, &o), fmi3OK);
	assert_false(o.early);
	assert_false(o.event);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, xv, 2), fmi3OK);
	assert_int_equal(f.api.get_int32(f.c, vrs + 2, 1, &bounces, 1), fmi3OK);
	assert_int_equal(bounces, 1);
	assert_close(xv[0], v1 * dt - 0.5 * g * dt * dt, 1e-12);
	assert_close(xv[1], v1 - g * dt, 1e-12);
	close_fmu(&f);
}

/* ---- FMU states ------------------------------------------------------------------------ */

static void states__restore_and_serialize__same_outputs_bit_for_bit(void **state)
{
	Fmu f;
	StepOut o;
	fmi3FMUState s = NULL, s2 = NULL;
	fmi3Float64 a[2], b[2], c[2];
	fmi3ValueReference vrs[2] = {4, 5};
	size_t size;
	fmi3Byte *bytes;
	(void)state;
	start_fmu(&f, "events3", 0, 0);
	assert_int_equal(step(&f, 0.0, 0.3, &o), fmi3OK);
	assert_int_equal(f.api.get_state(f.c, &s), fmi3OK);
	assert_int_equal(step(&f, 0.3, 0.4, &o), fmi3OK);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, a, 2), fmi3OK);
	assert_int_equal(f.api.set_state(f.c, s), fmi3OK);
	assert_int_equal(step(&f, 0.3, 0.4, &o), fmi3OK);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, b, 2), fmi3OK);
	assert_memory_equal(a, b, sizeof a);
	assert_int_equal(f.api.serialized_size(f.c, s, &size), fmi3OK);
	bytes = malloc(size);
	assert_int_equal(f.api.serialize(f.c, s, bytes, size), fmi3OK);
	assert_int_equal(f.api.deserialize(f.c, bytes, size, &s2), fmi3OK);
	assert_int_equal(f.api.set_state(f.c, s2), fmi3OK);
	assert_int_equal(step(&f, 0.3, 0.4, &o), fmi3OK);
	assert_int_equal(f.api.get_float64(f.c, vrs, 2, c, 2), fmi3OK);
	assert_memory_equal(a, c, sizeof a);
	bytes[0] ^= 0xff;
	assert_int_equal(f.api.deserialize(f.c, bytes, size, &s2), fmi3Error);
	assert_non_null(strstr(f.log.last, "not a serialized state of this model"));
	assert_int_equal(f.api.deserialize(f.c, bytes, size - 1, &s2), fmi3Error);
	free(bytes);
	assert_int_equal(f.api.free_state(f.c, &s), fmi3OK);
	assert_int_equal(f.api.free_state(f.c, &s2), fmi3OK);
	assert_null(s);
	close_fmu(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alltypes3__every_type__passes_through_bit_for_bit),
		cmocka_unit_test(alltypes3__wrong_type_or_count__error_names_the_variable),
		cmocka_unit_test(alltypes3__calls_in_wrong_states__error_logged),
		cmocka_unit_test(alltypes3__model_exchange_functions__exported_error_logged),
		cmocka_unit_test(importer__function_missing__refused_naming_it),
		cmocka_unit_test(alltypes3__wrong_token__not_instantiated),
		cmocka_unit_test(array3__arrays__elementwise_as_computed_by_hand),
		cmocka_unit_test(early3__early_return_allowed__stops_at_each_tick),
		cmocka_unit_test(early3__early_return_not_allowed__steps_through),
		cmocka_unit_test(early3__intermediate_update__called_at_each_tick),
		cmocka_unit_test(events3__event_mode__stops_at_impact_and_bounces_there),
		cmocka_unit_test(events3__event_mode_no_early_return__bounces_at_the_step_end),
		cmocka_unit_test(events3__no_event_mode__bounces_inside_the_step),
		cmocka_unit_test(states__restore_and_serialize__same_outputs_bit_for_bit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
