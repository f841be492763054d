/* sart_master_algorithms.c — the master algorithms: the table sart_algorithms[] that
 * sart_master_run, the command line and its usage text read, and one pass function per
 * algorithm.  A pass sets inputs (sart_master.c: master_set_inputs computes them from the
 * signals at t_n, and from this pass's new values when the row has fresh_inputs), steps
 * every FMU, reads their signals into the next values and solves the algebraic loops.
 * Adding an algorithm is a row and its pass function (orchestrator/README.md). */
#include "sart_master_internal.h"

#include <string.h>

/* Jacobi: every input from the outputs at t_n, then every FMU steps; a discard is
 * noticed once all have stepped.  The loops are solved at the end. */
static int jacobi_pass(Master *m, int pass, double t, double h, double *short_end)
{
	const SartScenario *sc = m->sc;
	int discarded = 0;
	for (int f = 0; f < sc->nfmus; f++)
		if (master_set_inputs(m, f, pass, t, h))
			return -1;
	if (m->par) {
		discarded = master_par_all(m, t, h, short_end);
		if (discarded < 0)
			return -1;
	} else {
		for (int f = 0; f < sc->nfmus; f++) {
			double r;
			int st = master_step_one(m, f, t, h, &r);
			if (st < 0)
				return -1;
			if (st > 0 && (!discarded || r < *short_end))
				*short_end = r;
			discarded |= st > 0;
		}
	}
	if (discarded)
		return 1;
	for (int f = 0; f < sc->nfmus; f++)
		if (master_read_signals(m, f, t + h, m->next))
			return -1;
	for (int i = 0; i < m->nloops; i++)
		if (master_solve_and_read(m, &m->loops[i], t + h, m->next))
			return -1;
	return 0;
}

/* Gauss-Seidel with threads: the generation of FMUs at positions k .. k + len - 1 of the
 * execution order (none feeds another) gets its inputs, steps at once, and is read and
 * its outcomes taken in order, as the one-thread loop below does them. */
static int gauss_seidel_generation(Master *m, int pass, int k, int len, double t, double h,
                                   double *short_end)
{
	const int *gen = m->an->fmu_order + k;
	for (int i = 0; i < len; i++)
		if (master_set_inputs(m, gen[i], pass, t, h))
			return -1;
	master_par_step(m, gen, len, t, h);
	for (int i = 0; i < len; i++) {
		int f = gen[i];
		double r;
		int st = master_par_outcome(m, f, t, h, &r);
		if (st != 0) {
			master_par_drop(m, gen + i + 1, len - i - 1);
			if (st > 0)
				*short_end = r;
			return st;
		}
		if (master_read_signals(m, f, t + h, m->next)) {
			master_par_drop(m, gen + i + 1, len - i - 1);
			return -1;
		}
		m->f[f].stepped = 1;
	}
	for (int i = 0; i < m->nloops; i++)
		if (m->loops[i].last_pos == k + len - 1 &&
		    master_solve_and_read(m, &m->loops[i], t + h, m->next))
			return -1;
	return 0;
}

/* Gauss-Seidel: the FMUs in the analysis' execution order, each with its inputs set,
 * stepped and read before the next, which sees its new outputs; a loop is solved once
 * all of its FMUs have stepped, before those it feeds.  The first discard ends the pass. */
static int gauss_seidel_pass(Master *m, int pass, double t, double h, double *short_end)
{
	const SartScenario *sc = m->sc;
	for (int f = 0; f < sc->nfmus; f++)
		m->f[f].stepped = 0;
	for (int k = 0; k < sc->nfmus; k++) {
		int f = m->an->fmu_order[k];
		double r;
		int len = m->par ? master_par_generation(m, k) : 1;
		if (len > 1) {
			int st = gauss_seidel_generation(m, pass, k, len, t, h, short_end);
			if (st != 0)
				return st;
			k += len - 1;
			continue;
		}
		if (master_set_inputs(m, f, pass, t, h))
			return -1;
		int st = master_step_one(m, f, t, h, &r);
		if (st < 0)
			return -1;
		if (st > 0) {
			*short_end = r;
			return 1;
		}
		if (master_read_signals(m, f, t + h, m->next))
			return -1;
		m->f[f].stepped = 1;
		for (int i = 0; i < m->nloops; i++)
			if (m->loops[i].last_pos == k &&
			    master_solve_and_read(m, &m->loops[i], t + h, m->next))
				return -1;
	}
	return 0;
}

/* In the order of SartAlgorithm. */
const SartAlgorithmInfo sart_algorithms[] = {
	{.name = "jacobi", .summary = "every FMU steps from the outputs at t_n",
	 .pass = jacobi_pass, .fast_path = 1},
	{.name = "gauss-seidel", .summary = "FMUs step in order, each from the latest outputs",
	 .pass = gauss_seidel_pass, .fresh_inputs = 1},
	{NULL, NULL, NULL, 0, 0},
};

const SartAlgorithmInfo *sart_algorithm_find(const char *name)
{
	for (const SartAlgorithmInfo *a = sart_algorithms; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}
