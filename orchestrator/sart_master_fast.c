/* sart_master_fast.c — the master's fast path for the common case of held Real inputs
 * and no loops under Jacobi: the first pass of each step as a plain pass (plain_pass), and
 * without rollback the whole run as plain passes on the grid (bench/master's case); and
 * under Gauss-Seidel the first pass of each step from tables in execution order
 * (plain_gs_pass, bench/scale's case).
 * It does what the general functions do (sart_master.c, sart_master_algorithms.c,
 * sart_master_stepping.c) with nothing looked up per step, and hands every outcome but
 * SART_OK to them, so results, statuses and messages are the same either way:
 * tests/unit/test_sart_fastpath.c runs scenarios both ways (SartMasterOptions.no_fast_path
 * turns this path off) and compares them. */
#include "sart_master_internal.h"

#include "sart_inner_fmi2_direct.h"

#include <stdlib.h>

static int prepare_gs(Master *m);

/* The fast path's flat tables: every FMU's Real inputs in FMU order (FmuRun.plain_v is its
 * share of plain_buf) with their source signal, conversion and connection; whether they
 * are all unconverted (plain_identity), and whether each FMU's inputs are a range of the
 * signals that can be set straight from them (plain_direct, FmuRun.plain_off). */
int master_prepare_fast(Master *m)
{
	const SartScenario *sc = m->sc;
	for (int f = 0; f < sc->nfmus; f++)
		m->plain_nin += m->f[f].nset[SART_REAL];
	size_t nin = (size_t)m->plain_nin + 1;
	m->plain_src = malloc(nin * sizeof *m->plain_src);
	m->plain_conn = malloc(nin * sizeof *m->plain_conn);
	m->plain_scale = malloc(nin * sizeof *m->plain_scale);
	m->plain_offset = malloc(nin * sizeof *m->plain_offset);
	m->plain_buf = malloc(nin * sizeof *m->plain_buf);
	if (!m->plain_src || !m->plain_conn || !m->plain_scale || !m->plain_offset ||
	    !m->plain_buf)
		return master_fail(m, "out of memory");
	m->plain_identity = 1;
	for (int f = 0, i = 0; f < sc->nfmus; f++) {
		FmuRun *fr = &m->f[f];
		fr->plain_v = m->plain_buf + i;
		for (int k = 0; k < fr->nset[SART_REAL]; k++, i++) {
			m->plain_src[i] = fr->set_sig[SART_REAL][k];
			m->plain_conn[i] = fr->set_conn[SART_REAL][k];
			m->plain_scale[i] = fr->set_scale[SART_REAL][k];
			m->plain_offset[i] = fr->set_offset[SART_REAL][k];
			m->plain_identity &= m->plain_scale[i] == 1 && m->plain_offset[i] == 0;
		}
	}
	m->plain_direct = !m->want_pred;
	for (int f = 0; f < sc->nfmus; f++) {
		FmuRun *fr = &m->f[f];
		int n = fr->nset[SART_REAL], k = 0;
		const int *sig = fr->set_sig[SART_REAL];
		for (; k < n; k++)
			if (sig[k] != sig[0] + k || fr->set_scale[SART_REAL][k] != 1 ||
			    fr->set_offset[SART_REAL][k] != 0)
				break;
		fr->plain_off = n > 0 && k == n ? sig[0] : -1;
		m->plain_direct &= n == 0 || fr->plain_off >= 0;
	}
	return prepare_gs(m);
}

/* One FMU of plain_gs_pass, in execution order: what its step touches, in one cache line
 * rather than spread over its FmuRun (with ten thousand FMUs each line is a miss per step). */
struct GsFmu {
	SartInner *in;        /* set at the first pass (gs_bound): loaded after prepare */
	/* its seam's direct route (FMI 2.0 in process), or NULL: the set, step and get each
	 * one test and one call, with the instance and functions in one record instead of
	 * the seam's and the back end's (sart_inner.h, sart_inner_direct) */
	const SartInnerDirect *d;
	const SartVr *set_vr, *read_vr;
	int f;                /* its index */
	int nset, first;      /* its Real inputs: gs_inputs[first .. first + nset - 1] */
	int nread, read_base; /* its Real signals */
};

/* One Real input of plain_gs_pass: its value is scale * x + offset (sart_conn_value
 * without a map), x the signal sig at t_n, or its new value when its source stepped
 * before it in the pass (fresh). */
struct GsInput {
	int sig, fresh, conn;
	double scale, offset;
};

/* Gauss-Seidel's tables for plain_gs_pass, made with the others (prepare): the FMUs in
 * the analysis' execution order and their inputs, as master_set_inputs, master_step_one
 * and master_read_signals would find them in a first pass without threads. */
static int prepare_gs(Master *m)
{
	const SartScenario *sc = m->sc;
	int n = sc->nfmus, nin = 0;
	int *pos = malloc(((size_t)n + 1) * sizeof *pos);
	m->gs_fmus = malloc(((size_t)n + 1) * sizeof *m->gs_fmus);
	for (int f = 0; f < n; f++)
		nin += m->f[f].nset[SART_REAL];
	m->gs_inputs = malloc(((size_t)nin + 1) * sizeof *m->gs_inputs);
	m->gs_buf = malloc(((size_t)nin + 1) * sizeof *m->gs_buf);
	if (!pos || !m->gs_fmus || !m->gs_inputs || !m->gs_buf) {
		free(pos);
		return master_fail(m, "out of memory");
	}
	for (int k = 0; k < n; k++)
		pos[m->an->fmu_order[k]] = k;
	for (int k = 0, i = 0; k < n; k++) {
		int f = m->an->fmu_order[k];
		const FmuRun *fr = &m->f[f];
		m->gs_fmus[k] = (struct GsFmu){NULL, NULL, fr->set_vr[SART_REAL], fr->read_vr[SART_REAL], f,
		                               fr->nset[SART_REAL], i, fr->nread[SART_REAL],
		                               fr->read_base[SART_REAL]};
		for (int j = 0; j < fr->nset[SART_REAL]; j++, i++) {
			int c = fr->set_conn[SART_REAL][j];
			const SartConnection *cn = &sc->conns[c];
			/* input_for's `fresh` in a first pass: its source has stepped */
			m->gs_inputs[i] = (struct GsInput){m->conn_sig[c],
			                                   !m->an->delayed[f] && pos[cn->src.fmu] < k, c,
			                                   cn->scale, cn->offset};
		}
	}
	free(pos);
	return 0;
}

int master_plain_gs(const Master *m)
{
	const SartScenario *sc = m->sc;
	int ok = m->alg->fresh_inputs && !m->o->no_fast_path && m->nloops == 0 && !m->par &&
	         !m->early_returns && !m->clocked && m->o->nexternal == 0 &&
	         m->o->nstring_conns == 0;
	for (int f = 0; f < sc->nfmus && ok; f++) {
		const FmuRun *fr = &m->f[f];
		/* no input derivatives to give, none to read, Reals only */
		ok = !fr->has_other && !fr->derivs && !(fr->interpolates && m->derivatives);
		for (int k = 0; k < fr->nset[SART_REAL] && ok; k++)
			ok = sc->conns[fr->set_conn[SART_REAL][k]].nmap == 0;
	}
	return ok;
}

/* The seam's set, step and get of g's Real values (sart_inner_set_real, sart_inner_do_step
 * with no_set_state_prior, sart_inner_get_real), through the direct route when there is
 * one and it may be called, with the same outcome and reports. */
static inline SartStatus gs_set(const struct GsFmu *g, const double *v)
{
	if (!g->d || !sart_direct_ready(g->d))
		return sart_inner_set_real(g->in, g->set_vr, (size_t)g->nset, v);
	SartStatus st = sart_direct_set_real(g->d, g->set_vr, (size_t)g->nset, v);
	return st == SART_OK ? st : sart_inner_direct_status(g->in, SART_DIRECT_SET_REAL, st, 0, 0,
	                                                     NULL);
}

static inline SartStatus gs_step(const struct GsFmu *g, double t, double h, double *r)
{
	if (!g->d || !sart_direct_ready(g->d))
		return sart_inner_do_step(g->in, t, h, 1, r);
	SartStatus st = sart_direct_do_step_prior(g->d, t, h, 1);
	if (st == SART_OK) {
		*r = t + h;
		return st;
	}
	return sart_inner_direct_status(g->in, SART_DIRECT_DO_STEP, st, t, h, r);
}

static inline SartStatus gs_get(const struct GsFmu *g, double *y)
{
	if (!g->d || !sart_direct_ready(g->d))
		return sart_inner_get_real(g->in, g->read_vr, (size_t)g->nread, y);
	SartStatus st = sart_direct_get_real(g->d, g->read_vr, (size_t)g->nread, y);
	return st == SART_OK ? st : sart_inner_direct_status(g->in, SART_DIRECT_GET_REAL, st, 0, 0,
	                                                     NULL);
}

/* The first pass of a Gauss-Seidel step when nothing else is needed (m->plain_gs): the
 * FMUs in execution order, each with its inputs computed and set, stepped and read, from
 * flat tables in that order, as gauss_seidel_pass does it through master_set_inputs,
 * master_step_one and master_read_signals.  Anything but SART_OK goes to the general
 * functions, which report it. */
int master_plain_gs_pass(Master *m, double t, double h, double *short_end)
{
	const double *now = m->now;
	double *next = m->next;
	const struct GsInput *in = m->gs_inputs;
	double *buf = m->gs_buf;
	int watched = m->o->on_step != NULL, want_pred = m->want_pred;
	const struct GsFmu *end = m->gs_fmus + m->sc->nfmus;
	if (!m->gs_bound) {
		/* the instances, which initialization loaded after the tables were made */
		for (struct GsFmu *g = m->gs_fmus; g < end; g++) {
			g->in = m->f[g->f].in;
			g->d = sart_inner_direct(g->in);
		}
		m->gs_bound = 1;
	}
	for (const struct GsFmu *g = m->gs_fmus; g < end; g++) {
		SartStatus st;
		double r, reached;
		if (g->nset > 0) {
			double *v = buf + g->first;
			const struct GsInput *x = in + g->first;
			for (int k = 0; k < g->nset; k++) {
				v[k] = x[k].scale * (x[k].fresh ? next : now)[x[k].sig] + x[k].offset;
				if (!isfinite(v[k]))
					return master_bad_input(m, g->f, x[k].conn, t, v[k], 0) ? -1 : -1;
				if (want_pred)
					m->pred[x[k].conn] = v[k];
			}
			st = gs_set(g, v);
			if (st > SART_WARNING)
				return master_fail_call(m, g->f, t) ? -1 : -1;
		}
		int outcome = 0;
		if (watched) {
			/* master_step_one, with the instance from g rather than its FmuRun */
			r = t + h;
			for (int again = 0;; again++) {
				m->o->on_step(m->o->step_env, g->f, t, h, 0);
				st = gs_step(g, t, h, &r);
				m->o->on_step(m->o->step_env, g->f, t, h, 1);
				if (!ok(st) || !(r <= t) || again == MASTER_EARLY_AT_START)
					break;
			}
			outcome = master_step_finish(m, g->f, t, h, st, r, &reached);
		} else {
			st = gs_step(g, t, h, &r);
			if (st != SART_OK)
				outcome = master_step_outcome(m, g->f, t, st, r, &reached);
		}
		if (outcome < 0)
			return -1;
		if (outcome > 0) {
			*short_end = reached;
			return 1;
		}
		if (g->nread > 0) {
			double *y = next + g->read_base;
			int bad = 0;
			st = gs_get(g, y);
			if (st > SART_WARNING)
				return master_fail_call(m, g->f, t + h) ? -1 : -1;
			for (int k = 0; k < g->nread; k++)
				bad |= !isfinite(y[k]);
			if (bad)
				return master_nonfinite_signal(m, g->f, t + h, next, g->read_base,
				                               g->nread) ? -1 : -1;
		}
	}
	return 0;
}

/* The first pass of a Jacobi step when nothing else is needed (m->plain: every input
 * held and Real, no input derivatives, no algebraic loop, no Integer or Boolean signal):
 * per FMU one set, one doStep and one get straight from and into the signal arrays, with
 * nothing looked up.  This is the path bench/master measures.  Anything but SART_OK goes
 * to the general functions, which report it. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int plain_pass(Master *m, FmuRun *const first, FmuRun *const end,
                             const double *now, double *next, double t, double h,
                             double *short_end)
{
	double *buf = m->plain_buf;
	const int *src = m->plain_src;
	int nin = m->plain_nin, nsig = m->nsig, discarded = 0, direct = m->plain_direct;
	SartStatus st;
	/* every FMU's Real inputs, held from t_n and converted, in one flat array (not needed
	 * when each FMU's inputs are a range of the signals, unconverted) */
	if (direct) {
		/* set straight from now */
	} else if (m->plain_identity) {
		/* the signals were checked finite when read */
		for (int i = 0; i < nin; i++)
			buf[i] = now[src[i]];
	} else {
		const double *scale = m->plain_scale, *offset = m->plain_offset;
		for (int i = 0; i < nin; i++)
			buf[i] = scale[i] * now[src[i]] + offset[i];
		for (int i = 0; i < nin; i++)
			if (!isfinite(buf[i])) {
				int c = m->plain_conn[i];
				return master_bad_input(m, m->sc->conns[c].dst.fmu, c, t, buf[i], 0) ? -1 : -1;
			}
	}
	if (m->want_pred)
		for (int i = 0; i < nin; i++)
			m->pred[m->plain_conn[i]] = buf[i];
	for (FmuRun *fr = first; fr < end; fr++) {
		int n = fr->nset[SART_REAL];
		if (n == 0)
			continue;
		st = sart_inner_set_real(fr->in, fr->set_vr[SART_REAL], (size_t)n,
		                         direct ? now + fr->plain_off : fr->plain_v);
		if (st > SART_WARNING)
			return master_fail_call(m, (int)(fr - first), t) ? -1 : -1;
	}
	int watched = m->o->on_step != NULL;
	if (m->par) {
		/* with threads: stepped at once when that pays (sart_master_parallel.c) */
		discarded = master_par_all(m, t, h, short_end);
		if (discarded < 0)
			return -1;
	} else {
		for (FmuRun *fr = first; fr < end; fr++) {
			double r, reached;
			int outcome;
			if (watched) {
				outcome = master_step_one(m, (int)(fr - first), t, h, &reached);
			} else {
				st = sart_inner_do_step(fr->in, t, h, 1, &r);
				if (st == SART_OK)
					continue;
				outcome = master_step_outcome(m, (int)(fr - first), t, st, r, &reached);
			}
			if (outcome < 0)
				return -1;
			if (outcome > 0) {
				if (!discarded || reached < *short_end)
					*short_end = reached;
				discarded = 1;
			}
		}
	}
	if (discarded)
		return 1;
	/* every signal is Real and read straight into next */
	for (FmuRun *fr = first; fr < end; fr++) {
		int n = fr->nread[SART_REAL];
		if (n == 0)
			continue;
		st = sart_inner_get_real(fr->in, fr->read_vr[SART_REAL], (size_t)n,
		                         next + fr->read_base[SART_REAL]);
		if (st > SART_WARNING)
			return master_fail_call(m, (int)(fr - first), t + h) ? -1 : -1;
	}
	/* a NaN or infinity makes the sum one; so may an overflow of finite values, which the
	 * scan then clears */
	double sum = 0;
	for (int sg = 0; sg < nsig; sg++)
		sum += next[sg];
	if (!isfinite(sum))
		for (int sg = 0; sg < nsig; sg++)
			if (!isfinite(next[sg]))
				return master_nonfinite_signal(m, m->sig[sg].fmu, t + h, next, sg, 1) ? -1 : -1;
	return 0;
}

/* The first pass of a macro step when m->plain, for run_pass (sart_master_stepping.c):
 * the general path's entry to plain_pass, which stays inline in master_fast_run. */
int master_plain_pass(Master *m, double t, double h, double *short_end)
{
	return plain_pass(m, m->f, m->f + m->sc->nfmus, m->now, m->next, t, h, short_end);
}

/* The whole run when nothing can happen but plain passes on the grid (m->plain, no state
 * saved, no event location, no iterations, fixed steps): a discard cannot be redone then
 * (master_step_outcome reports it), so every step either lands on start + k step or fails, and
 * nothing reads the history but the signals at t_n.  The loop of sart_master_run with
 * everything else left out: bench/master measures it.  *t is where it stopped
 * (o->stop, or untouched when the run does not qualify); returns 1 on failure. */
int master_fast_run(Master *m, double *t)
{
	const SartMasterOptions *o = m->o;
	SartMasterResult *res = m->res;
	if (!m->plain || m->snapshots || m->ind_sig >= 0 || o->iterations > 0 ||
	    o->step_control != SART_STEP_FIXED)
		return 0;
	double tn = *t, start = o->start, stop = o->stop, step = o->step;
	double last = stop - 1e-9 * step, hmin = INFINITY, hmax = 0;
	int rc = 0, recording = o->on_point != NULL;
	long accepted = res->accepted;
	FmuRun *const first = m->f, *const fend = m->f + m->sc->nfmus;
	for (long k = 1; tn < stop; k++) {
		double end = start + (double)k * step, unused;
		if (end >= last)
			end = stop;
		rc = plain_pass(m, first, fend, m->now, m->next, tn, end - tn, &unused);
		if (rc != 0)
			break; /* reported; never 1: without saved states (no_rollback or an FMU
			        * without get/set state) master_step_outcome reports a discard itself */
		double *tmp = m->now;
		m->now = m->next;
		m->next = tmp;
		double hs = end - tn;
		hmin = hs < hmin ? hs : hmin;
		hmax = hs > hmax ? hs : hmax;
		accepted++;
		tn = end;
		if (recording) {
			res->accepted = accepted;
			if (master_emit_point(m, tn)) {
				rc = 1;
				break;
			}
		}
	}
	res->accepted = accepted;
	res->t = tn;
	if (accepted > 0) {
		res->h_min = hmin;
		res->h_max = hmax;
	}
	*t = tn;
	return rc != 0;
}
