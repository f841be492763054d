/* sized3 — alltypes3 without its Binary pair: every FMI 3.0 type an FMI 2.0 wrapper can
 * carry (Float32 ... UInt64, Boolean, String, Enumeration) passed straight through, each
 * output equal to its input.  An FMI 2.0 wrapper over alltypes3 is refused (FMI 2.0 has no
 * Binary), so the FMI 2.0 type tests wrap this one and compare it with the bare alltypes3.
 * Besides, parameters of sized types (Int8, UInt16 fixed, Float32, UInt64), each given back
 * by an output of its own type, for the wrappers that expose them. */
#include <stddef.h>

#include "fmu3_kit.h"

#define SIZED3_TOKEN "{6d0b2e94-1f7a-4c3e-8b25-93e1a7c4d0f2}"

typedef struct Sized {
	fmi3Float32 f32_in, f32_out;
	fmi3Float64 f64_in, f64_out;
	fmi3Int8 i8_in, i8_out;
	fmi3UInt8 u8_in, u8_out;
	fmi3Int16 i16_in, i16_out;
	fmi3UInt16 u16_in, u16_out;
	fmi3Int32 i32_in, i32_out;
	fmi3UInt32 u32_in, u32_out;
	fmi3Int64 i64_in, i64_out;
	fmi3UInt64 u64_in, u64_out;
	fmi3Boolean bool_in, bool_out;
	char str_in[KIT3_STRING_MAX], str_out[KIT3_STRING_MAX];
	fmi3Int64 enum_in, enum_out;
	fmi3Int8 i8_p, i8_p_out;
	fmi3UInt16 u16_p, u16_p_out;
	fmi3Float32 f32_p, f32_p_out;
	fmi3UInt64 u64_p, u64_p_out;
	fmi3Float64 time; /* unused: the kit answers time itself */
} Sized;

static const Sized start = {
	.str_in = "start",
	.str_out = "start",
	.enum_in = 1,
	.enum_out = 1,
	.i8_p = -5,
	.u16_p = 7,
	.f32_p = 0.1f,
	.u64_p = 3,
};

#define PAIR(name, vr, type)                                                              \
	{#name "_in", vr, type, K3_INPUT, offsetof(Sized, name##_in), 1},               \
	{#name "_out", 100 + vr, type, K3_OUTPUT, offsetof(Sized, name##_out), 1}

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Sized, time), 1},
	PAIR(f32, 1, K3_FLOAT32),
	PAIR(f64, 2, K3_FLOAT64),
	PAIR(i8, 3, K3_INT8),
	PAIR(u8, 4, K3_UINT8),
	PAIR(i16, 5, K3_INT16),
	PAIR(u16, 6, K3_UINT16),
	PAIR(i32, 7, K3_INT32),
	PAIR(u32, 8, K3_UINT32),
	PAIR(i64, 9, K3_INT64),
	PAIR(u64, 10, K3_UINT64),
	PAIR(bool, 11, K3_BOOLEAN),
	PAIR(str, 12, K3_STRING),
	PAIR(enum, 14, K3_ENUM),
	{"i8_p", 20, K3_INT8, K3_TUNABLE, offsetof(Sized, i8_p), 1},
	{"u16_p", 21, K3_UINT16, K3_PARAMETER, offsetof(Sized, u16_p), 1},
	{"f32_p", 22, K3_FLOAT32, K3_TUNABLE, offsetof(Sized, f32_p), 1},
	{"u64_p", 23, K3_UINT64, K3_TUNABLE, offsetof(Sized, u64_p), 1},
	{"i8_p_out", 120, K3_INT8, K3_OUTPUT, offsetof(Sized, i8_p_out), 1},
	{"u16_p_out", 121, K3_UINT16, K3_OUTPUT, offsetof(Sized, u16_p_out), 1},
	{"f32_p_out", 122, K3_FLOAT32, K3_OUTPUT, offsetof(Sized, f32_p_out), 1},
	{"u64_p_out", 123, K3_UINT64, K3_OUTPUT, offsetof(Sized, u64_p_out), 1},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	Sized *s = state;
	(void)k;
	s->f32_out = s->f32_in;
	s->f64_out = s->f64_in;
	s->i8_out = s->i8_in;
	s->u8_out = s->u8_in;
	s->i16_out = s->i16_in;
	s->u16_out = s->u16_in;
	s->i32_out = s->i32_in;
	s->u32_out = s->u32_in;
	s->i64_out = s->i64_in;
	s->u64_out = s->u64_in;
	s->bool_out = s->bool_in;
	for (size_t i = 0; i < sizeof s->str_in; i++)
		s->str_out[i] = s->str_in[i];
	s->enum_out = s->enum_in;
	s->i8_p_out = s->i8_p;
	s->u16_p_out = s->u16_p;
	s->f32_p_out = s->f32_p;
	s->u64_p_out = s->u64_p;
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"sized3", SIZED3_TOKEN, sizeof(Sized), &start, vars, sizeof vars / sizeof vars[0],
	calculate, NULL, NULL, NULL,
};
