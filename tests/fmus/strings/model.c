/* strings — an FMU with String ports, the shape of the Reference FMUs' Feedthrough for the
 * types the wrapper forwards: s_out = s_in, tag = prefix + s_in (a fixed String parameter
 * in front), len = the length of s_in, same = whether s_in equals prefix, y = u, ticks = "tick N" after N steps (a String that
 * changes with time, for the masters' String connections).  It can get,
 * set and serialize its state, so that the wrapper's states carry strings through it.  Its
 * strings are at most KIT_STRING_MAX - 1 bytes: a longer one is refused by the kit. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fmu_kit.h"

#define STRINGS_GUID "{3f6c2a90-8d1e-4b7a-a5c3-91e0d2f4b6a8}"

enum {
	VR_U = 0, VR_Y = 1,                    /* Real */
	VR_LEN = 0,                            /* Integer */
	VR_SAME = 0,                           /* Boolean */
	VR_S_IN = 0, VR_S_OUT = 1, VR_TAG = 2, VR_PREFIX = 3, VR_TICKS = 4 /* String */
};

typedef struct Strings {
	fmi2Real u, y;
	fmi2Integer len;
	fmi2Boolean same;
	char s_in[KIT_STRING_MAX], s_out[KIT_STRING_MAX], tag[KIT_STRING_MAX];
	char prefix[KIT_STRING_MAX];
	char ticks[KIT_STRING_MAX];
	fmi2Integer steps; /* internal */
} Strings;

static const Strings start = {0.0, 0.0, 5, fmi2False, "hello", "hello", "> hello", "> ",
                              "tick 0", 0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Strings, u)},
	{"y", VR_Y, KIT_REAL, KIT_OUTPUT, offsetof(Strings, y)},
	{"len", VR_LEN, KIT_INTEGER, KIT_OUTPUT, offsetof(Strings, len)},
	{"same", VR_SAME, KIT_BOOLEAN, KIT_OUTPUT, offsetof(Strings, same)},
	{"s_in", VR_S_IN, KIT_STRING, KIT_INPUT, offsetof(Strings, s_in)},
	{"s_out", VR_S_OUT, KIT_STRING, KIT_OUTPUT, offsetof(Strings, s_out)},
	{"tag", VR_TAG, KIT_STRING, KIT_OUTPUT, offsetof(Strings, tag)},
	{"prefix", VR_PREFIX, KIT_STRING, KIT_PARAMETER, offsetof(Strings, prefix)},
	{"ticks", VR_TICKS, KIT_STRING, KIT_OUTPUT, offsetof(Strings, ticks)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	Strings *s = state;
	size_t np = strlen(s->prefix), ni = strlen(s->s_in);
	s->y = s->u;
	memcpy(s->s_out, s->s_in, ni + 1);
	s->len = (fmi2Integer)ni;
	s->same = strcmp(s->s_in, s->prefix) == 0;
	snprintf(s->ticks, sizeof s->ticks, "tick %d", (int)s->steps);
	if (np + ni >= KIT_STRING_MAX) {
		kit_log(k, fmi2Error, "tag: '%s' followed by '%s' is longer than %d bytes", s->prefix,
		        s->s_in, KIT_STRING_MAX - 1);
		return fmi2Error;
	}
	memcpy(s->tag, s->prefix, np);
	memcpy(s->tag + np, s->s_in, ni + 1);
	return fmi2OK;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Strings *s = state;
	(void)t;
	(void)h;
	(void)reached;
	s->steps++;
	return calculate(k, state);
}

const KitModel kit_model = {
	"strings",
	STRINGS_GUID,
	sizeof(Strings),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	calculate,
	do_step,
};
