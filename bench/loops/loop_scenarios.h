/* loop_scenarios.h — the algebraic loops of benchmark 2 as SartScenarios over the
 * test FMUs tests/fmus/affine, nl_planes and nl_sphere, shared by the benchmark
 * (bench/loops/loops.c) and the tests (tests/unit/test_sart_loops.c):
 *
 *   affine      unit 1: y1 = a u1 + 1, unit 2: y2 = b u2 - 2, u1 = y2, u2 = y1;
 *               y1 = (1 - 2a) / (1 - ab), y2 = b y1 - 2 (loop gain ab)
 *   seed        a textbook loop: A: y = 2u + 1, B: u = 0.6 y; y = -5, u = -3 (gain 1.2)
 *   nonlinear   A (nl_planes): a + b + c = 0, 2a - 3b + 2c = 9, given a;
 *               B (nl_sphere): a^2 + b^2 + c^2 = 5, solved for a;
 *               a = 0.9 - sqrt(0.07) = 0.635425, b = -1.8, c = 0.9 + sqrt(0.07) = 1.164575
 *               from A's start a = 0.6 (the other solution swaps a and c)
 *
 * Records: affine and seed: unit 1's y, unit 2's y; nonlinear: a, b, c. */
#ifndef LOOP_SCENARIOS_H
#define LOOP_SCENARIOS_H

#include <stdio.h>
#include <string.h>

#include "sart_master.h"

#define LS_AFFINE_GUID "{a7f1e0c4-2b39-4d5e-8c61-0f9b3e7d2a15}"
#define LS_PLANES_GUID "{c3d95b7e-41a0-4f28-9e16-7a5c2d8b0f34}"
#define LS_SPHERE_GUID "{e58a2f61-93cb-4d07-b4e2-1c6f8a3d9e70}"

static const int ls_dep_u_w[] = {0, 4};
static const int ls_dep_a[] = {0};
static const int ls_dep_bc[] = {0, 1};

static const SartVar ls_affine_vars[] = {
	{"u", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"y", 1, SART_REAL, SART_CAUS_OUTPUT, ls_dep_u_w, 2, 0, 0},
	{"gain", 2, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"offset", 3, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
	{"w", 4, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
};
enum { LS_U, LS_Y, LS_GAIN, LS_OFFSET, LS_W };

static const SartVar ls_planes_vars[] = {
	{"a", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"b", 1, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"c", 2, SART_REAL, SART_CAUS_OUTPUT, ls_dep_a, 1, 0, 0},
};
static const SartVar ls_sphere_vars[] = {
	{"b", 0, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"c", 1, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"a", 2, SART_REAL, SART_CAUS_OUTPUT, ls_dep_bc, 2, 0, 0},
};

typedef struct LoopScenario {
	char dir[3][512];
	SartFmu fmus[3];
	SartConnection conns[4];
	SartStart starts[6];
	SartRef records[4];
	SartScenario sc;
} LoopScenario;

static inline void ls_dirs(LoopScenario *ls, const char *build)
{
	memset(ls, 0, sizeof *ls);
	snprintf(ls->dir[0], sizeof ls->dir[0], "%s/fmus/affine", build);
	snprintf(ls->dir[1], sizeof ls->dir[1], "%s/fmus/nl_planes", build);
	snprintf(ls->dir[2], sizeof ls->dir[2], "%s/fmus/nl_sphere", build);
}

static inline SartFmu ls_affine_fmu(LoopScenario *ls, const char *name)
{
	return (SartFmu){name, ls->dir[0], "affine", LS_AFFINE_GUID, SART_FMI2,
	                 SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES, ls_affine_vars, 5};
}

/* Two affine units in a loop: name1.y = g1 u + o1, name2.y = g2 u + o2. */
static inline void ls_two_affine(LoopScenario *ls, const char *build, const char *name1,
                                 double g1, double o1, const char *name2, double g2, double o2)
{
	ls_dirs(ls, build);
	ls->fmus[0] = ls_affine_fmu(ls, name1);
	ls->fmus[1] = ls_affine_fmu(ls, name2);
	ls->conns[0] = (SartConnection){{0, LS_Y}, {1, LS_U}, 1, 0, NULL, NULL, 0};
	ls->conns[1] = (SartConnection){{1, LS_Y}, {0, LS_U}, 1, 0, NULL, NULL, 0};
	ls->starts[0] = (SartStart){{0, LS_GAIN}, g1};
	ls->starts[1] = (SartStart){{0, LS_OFFSET}, o1};
	ls->starts[2] = (SartStart){{1, LS_GAIN}, g2};
	ls->starts[3] = (SartStart){{1, LS_OFFSET}, o2};
	ls->records[0] = (SartRef){0, LS_Y};
	ls->records[1] = (SartRef){1, LS_Y};
	ls->sc = (SartScenario){ls->fmus, 2, ls->conns, 2, ls->starts, 4, ls->records, 2};
}

static inline void ls_affine(LoopScenario *ls, const char *build, double a, double b)
{
	ls_two_affine(ls, build, "unit1", a, 1, "unit2", b, -2);
}

static inline void ls_seed(LoopScenario *ls, const char *build)
{
	ls_two_affine(ls, build, "A", 2, 1, "B", 0.6, 0);
}

static inline void ls_nonlinear(LoopScenario *ls, const char *build)
{
	ls_dirs(ls, build);
	unsigned caps = SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES;
	ls->fmus[0] = (SartFmu){"A", ls->dir[1], "nl_planes", LS_PLANES_GUID, SART_FMI2, caps,
	                        ls_planes_vars, 3};
	ls->fmus[1] = (SartFmu){"B", ls->dir[2], "nl_sphere", LS_SPHERE_GUID, SART_FMI2, caps,
	                        ls_sphere_vars, 3};
	ls->conns[0] = (SartConnection){{0, 1}, {1, 0}, 1, 0, NULL, NULL, 0}; /* A.b -> B.b */
	ls->conns[1] = (SartConnection){{0, 2}, {1, 1}, 1, 0, NULL, NULL, 0}; /* A.c -> B.c */
	ls->conns[2] = (SartConnection){{1, 2}, {0, 0}, 1, 0, NULL, NULL, 0}; /* B.a -> A.a */
	ls->records[0] = (SartRef){1, 2};
	ls->records[1] = (SartRef){0, 1};
	ls->records[2] = (SartRef){0, 2};
	ls->sc = (SartScenario){ls->fmus, 2, ls->conns, 3, NULL, 0, ls->records, 3};
}

#endif
