/* matrix3 — FMI 3.0 two-dimensional arrays with units, for the row-major order of the
 * serialized values: T (3 x 2) = transpose(A) (2 x 3), rowsum = 0.01 * the row sums of A
 * (A in cm, rowsum in m), kk = 2 k (Int32), flags[j] = A[1,j] > A[2,j] (Boolean),
 * w2 = w.  No state: every output follows its inputs at once. */
#include <stddef.h>

#include "fmu3_kit.h"

#define MATRIX3_TOKEN "{5f0c8e27-93a4-4d1b-b6e8-0a7d2c41f93e}"

typedef struct Matrix3 {
	fmi3Float64 time;
	fmi3Float64 A[2][3];
	fmi3Float64 T[3][2];
	fmi3Float64 rowsum[2];
	fmi3Int32 k[2];
	fmi3Int32 kk[2];
	fmi3Boolean flags[3];
	fmi3Float64 w[2];
	fmi3Float64 w2[2];
} Matrix3;

static const Matrix3 start = {
	.A = {{1, 2, 3}, {4, 5, 6}},
};

static const Kit3Var vars[] = {
	{"time", 0, K3_FLOAT64, K3_INDEPENDENT, offsetof(Matrix3, time), 1},
	{"A", 1, K3_FLOAT64, K3_INPUT, offsetof(Matrix3, A), 6},
	{"T", 2, K3_FLOAT64, K3_OUTPUT, offsetof(Matrix3, T), 6},
	{"rowsum", 3, K3_FLOAT64, K3_OUTPUT, offsetof(Matrix3, rowsum), 2},
	{"k", 4, K3_INT32, K3_INPUT, offsetof(Matrix3, k), 2},
	{"kk", 5, K3_INT32, K3_OUTPUT, offsetof(Matrix3, kk), 2},
	{"flags", 6, K3_BOOLEAN, K3_OUTPUT, offsetof(Matrix3, flags), 3},
	{"w", 7, K3_FLOAT64, K3_INPUT, offsetof(Matrix3, w), 2},
	{"w2", 8, K3_FLOAT64, K3_OUTPUT, offsetof(Matrix3, w2), 2},
};

static fmi3Status calculate(Kit3Instance *k, void *state)
{
	Matrix3 *s = state;
	(void)k;
	for (int i = 0; i < 2; i++) {
		s->rowsum[i] = 0;
		for (int j = 0; j < 3; j++) {
			s->T[j][i] = s->A[i][j];
			s->rowsum[i] += 0.01 * s->A[i][j];
		}
		s->kk[i] = 2 * s->k[i];
		s->w2[i] = s->w[i];
	}
	for (int j = 0; j < 3; j++)
		s->flags[j] = s->A[0][j] > s->A[1][j];
	return fmi3OK;
}

static fmi3Status do_step(Kit3Instance *k, void *state, double t, double h, Kit3Step *out)
{
	(void)k, (void)state, (void)t, (void)h, (void)out;
	return fmi3OK;
}

const Kit3Model kit3_model = {
	"matrix3", MATRIX3_TOKEN, sizeof(Matrix3), &start, vars, sizeof vars / sizeof vars[0],
	calculate, NULL, do_step, NULL,
};
