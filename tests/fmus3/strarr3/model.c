/* strarr3 — FMI 3.0 String and Binary arrays and a Binary scalar:
 *   s_out[i] = s_in[4 - i] (the String array reversed), joined = s_in[1] "," s_in[2] ","
 *   s_in[3];
 *   b_out = b_in (a Binary array of 2), b1_out = b1_in with its bytes reversed;
 *   y = 2 x (a Float64 scalar in metres, for links naming single array elements).
 * The reversals make an element that lands in the wrong place, or a zero byte taken for an
 * end, show in the outputs. */
#include <stddef.h>
#include <string.h>

#include "fmu3_kit.h"

#define STRARR3_TOKEN "{7e3b9c51-2d84-4a6f-b0e1-95c2f8a4d736}"

typedef struct StrArr3 {
	fmi3Float64 time;
	char s_in[3][KIT3_STRING_MAX];
	char s_out[3][KIT3_STRING_MAX];
	char joined[KIT3_STRING_MAX];
	Kit3Binary b_in[2], b_out[2];
	Kit3Binary b1_in, b1_out;
	fmi3Float64 x, y;
} StrArr3;

static const StrArr3 start = {
	.s_in = {"a", "b", "c"},
	.b_in = {{2, {0x00, 0xff}}, {0, {0}}},
	.b1_in = {2, {0x0a, 0x1b}},
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(StrArr3, time), 1},
	{"s_in", 1, K3_STRING, K3_INPUT, offsetof(StrArr3, s_in), 3},
	{"s_out", 2, K3_STRING, K3_OUTPUT, offsetof(StrArr3, s_out), 3},
	{"joined", 3, K3_STRING, K3_OUTPUT, offsetof(StrArr3, joined), 1},
	{"b_in", 4, K3_BINARY, K3_INPUT, offsetof(StrArr3, b_in), 2},
	{"b_out", 5, K3_BINARY, K3_OUTPUT, offsetof(StrArr3, b_out), 2},
	{"b1_in", 6, K3_BINARY, K3_INPUT, offsetof(StrArr3, b1_in), 1},
	{"b1_out", 7, K3_BINARY, K3_OUTPUT, offsetof(StrArr3, b1_out), 1},
	{"x", 8, K3_FLOAT64, K3_INPUT, offsetof(StrArr3, x), 1},
	{"y", 9, K3_FLOAT64, K3_OUTPUT, offsetof(StrArr3, y), 1},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	StrArr3 *s = state;
	for (int i = 0; i < 3; i++)
		memcpy(s->s_out[i], s->s_in[2 - i], KIT3_STRING_MAX);
	size_t a = strlen(s->s_in[0]), b = strlen(s->s_in[1]), c = strlen(s->s_in[2]);
	if (a + b + c + 2 >= KIT3_STRING_MAX) {
		kit3_log(k, fmi3Error, "logStatusError", "joined would be longer than %d bytes",
		         KIT3_STRING_MAX - 1);
		return fmi3Error;
	}
	memcpy(s->joined, s->s_in[0], a);
	s->joined[a] = ',';
	memcpy(s->joined + a + 1, s->s_in[1], b);
	s->joined[a + 1 + b] = ',';
	memcpy(s->joined + a + b + 2, s->s_in[2], c + 1);
	s->b_out[0] = s->b_in[0];
	s->b_out[1] = s->b_in[1];
	s->b1_out.size = s->b1_in.size;
	for (size_t i = 0; i < s->b1_in.size; i++)
		s->b1_out.data[i] = s->b1_in.data[s->b1_in.size - 1 - i];
	s->y = 2 * s->x;
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"strarr3", STRARR3_TOKEN, sizeof(StrArr3), &start, vars, sizeof vars / sizeof vars[0],
	calculate, NULL, NULL, NULL,
};
