/* array3 — FMI 3.0 arrays: y = x + gain .* u with x' = u (element-wise, exact for inputs held
 * over a step), and stats = {sum(y), max(y)}.  The size of u, gain, x and y is the structural
 * parameter n (start 3; the kit keeps start values of structural parameters), stats has a
 * fixed Dimension of 2. */
#include <stddef.h>

#include "fmu3_kit.h"

#define ARRAY3_TOKEN "{9d2b4e61-0c7a-4f38-b5e2-61a8c3f0d947}"
#define N 3

typedef struct Array3 {
	fmi3Float64 time;
	fmi3UInt64 n;
	fmi3Float64 gain[N];
	fmi3Float64 u[N];
	fmi3Float64 x[N];
	fmi3Float64 y[N];
	fmi3Float64 stats[2];
} Array3;

static const Array3 start = {
	.n = N,
	.gain = {1.0, 2.0, 3.0},
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Array3, time), 1},
	{"n", 1, K3_UINT64, K3_STRUCTURAL, offsetof(Array3, n), 1},
	{"gain", 2, K3_FLOAT64, K3_PARAMETER, offsetof(Array3, gain), N},
	{"u", 3, K3_FLOAT64, K3_INPUT, offsetof(Array3, u), N},
	{"x", 4, K3_FLOAT64, K3_LOCAL, offsetof(Array3, x), N},
	{"y", 5, K3_FLOAT64, K3_OUTPUT, offsetof(Array3, y), N},
	{"stats", 6, K3_FLOAT64, K3_OUTPUT, offsetof(Array3, stats), 2},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	Array3 *s = state;
	(void)k;
	s->stats[0] = 0.0;
	for (int i = 0; i < N; i++) {
		s->y[i] = s->x[i] + s->gain[i] * s->u[i];
		s->stats[0] += s->y[i];
		if (i == 0 || s->y[i] > s->stats[1])
			s->stats[1] = s->y[i];
	}
	return fmi3OK;
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	Array3 *s = state;
	(void)k, (void)t, (void)out;
	for (int i = 0; i < N; i++)
		s->x[i] += s->u[i] * h;
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"array3", ARRAY3_TOKEN, sizeof(Array3), &start, vars, sizeof vars / sizeof vars[0],
	calculate, NULL, do_step, NULL,
};
