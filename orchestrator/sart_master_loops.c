/* sart_master_loops.c — algebraic loops: each loop of the analysis torn (its tear
 * variables and evaluation order), and solved on its tear variables during initialization
 * and at every communication point by fixed-point iteration, Anderson acceleration or
 * Newton with a finite-difference Jacobian (Gaussian elimination with partial pivoting).
 * Which solver and its bounds are SartMasterOptions'; sart_master.h says when a loop has
 * converged and when it has diverged. */
#include "sart_master_internal.h"
#include "sart_numfmt.h"

#include <stdlib.h>
#include <string.h>

/* Tear variables: a depth-first search of the loop's component; every cycle holds a back
 * edge, and every cycle through a back edge also holds the connection into the input the
 * back edge leaves (a dependency edge) or is that connection: tearing those leaves the
 * component acyclic, since an input is fed by one connection only.  The evaluation order
 * is then Kahn's over the component without the torn connections. */
static int plan_loop(Master *m, Loop *L, int *color, int *stack, int *pos, int *indeg)
{
	const SartAnalysis *a = m->an;
	const SartScenario *sc = m->sc;
	int c = L->comp, nn = 0;
	for (int v = 0; v < a->nports; v++) {
		color[v] = 0;
		nn += a->comp[v] == c;
	}
	L->seq = malloc(((size_t)nn + 1) * sizeof *L->seq);
	L->tear = malloc(((size_t)nn + 1) * sizeof *L->tear);
	L->fmus = malloc(((size_t)sc->nfmus + 1) * sizeof *L->fmus);
	if (!L->seq || !L->tear || !L->fmus)
		return master_fail(m, "out of memory");
	for (int k = 0; k < a->nports; k++) {
		int root = a->order[k];
		if (a->comp[root] != c || color[root])
			continue;
		int sp = 0;
		stack[sp++] = root;
		color[root] = 1;
		pos[root] = m->adj_first[root];
		while (sp > 0) {
			int v = stack[sp - 1];
			if (pos[v] == m->adj_first[v + 1]) {
				color[v] = 2;
				sp--;
				continue;
			}
			int e = m->adj_edge[pos[v]++];
			int w = a->edge_to[e];
			if (a->comp[w] != c)
				continue;
			if (color[w] == 1) {
				int cn = a->edge_conn[e] >= 0 ? a->edge_conn[e] : m->port_conn[v];
				if (cn >= 0 && m->conn_tear[cn] < 0) {
					m->conn_tear[cn] = L->ntear;
					L->tear[L->ntear++] = cn;
				}
			} else if (color[w] == 0) {
				color[w] = 1;
				pos[w] = m->adj_first[w];
				stack[sp++] = w;
			}
		}
	}
	/* Kahn, in port order among the ready */
	for (int v = 0; v < a->nports; v++)
		indeg[v] = 0;
	for (int e = 0; e < a->nedges; e++)
		if (a->comp[a->edge_from[e]] == c && a->comp[a->edge_to[e]] == c &&
		    !(a->edge_conn[e] >= 0 && m->conn_tear[a->edge_conn[e]] >= 0))
			indeg[a->edge_to[e]]++;
	for (int k = 0; k < nn; k++) {
		int best = -1;
		for (int v = 0; v < a->nports && best < 0; v++)
			if (a->comp[v] == c && indeg[v] == 0)
				best = v;
		if (best < 0)
			return master_fail(m, "internal error: algebraic loop %d is not acyclic once torn",
			                   L->index + 1);
		indeg[best] = -1;
		L->seq[L->nseq++] = best;
		for (int p = m->adj_first[best]; p < m->adj_first[best + 1]; p++) {
			int e = m->adj_edge[p];
			int w = a->edge_to[e];
			if (a->comp[w] == c && !(a->edge_conn[e] >= 0 && m->conn_tear[a->edge_conn[e]] >= 0))
				indeg[w]--;
		}
	}
	/* its FMUs, and the Gauss-Seidel position after which all of them have stepped */
	L->last_pos = -1;
	for (int k = 0; k < sc->nfmus; k++) {
		int f = a->fmu_order[k], in = 0;
		for (int i = 0; i < L->nseq && !in; i++)
			in = a->ports[L->seq[i]].fmu == f;
		if (in) {
			L->fmus[L->nfmus++] = f;
			L->last_pos = k;
		}
	}
	int n = L->ntear, mem = m->anderson_m;
	L->all_real = 1;
	for (int i = 0; i < n; i++)
		L->all_real &= var_of(sc, sc->conns[L->tear[i]].dst)->type == SART_REAL;
	L->x = calloc((size_t)n, sizeof *L->x);
	L->xs = calloc((size_t)n, sizeof *L->xs);
	L->g = calloc((size_t)n, sizeof *L->g);
	L->fv = calloc((size_t)n, sizeof *L->fv);
	L->fprev = calloc((size_t)n, sizeof *L->fprev);
	L->gprev = calloc((size_t)n, sizeof *L->gprev);
	L->xt = calloc((size_t)n, sizeof *L->xt);
	L->gt = calloc((size_t)n, sizeof *L->gt);
	L->dx = calloc((size_t)n, sizeof *L->dx);
	L->jac = calloc((size_t)n * (size_t)n, sizeof *L->jac);
	L->dF = calloc((size_t)n * (size_t)mem, sizeof *L->dF);
	L->dG = calloc((size_t)n * (size_t)mem, sizeof *L->dG);
	L->q = calloc((size_t)n * (size_t)mem, sizeof *L->q);
	L->r = calloc((size_t)mem * (size_t)mem, sizeof *L->r);
	L->gamma = calloc((size_t)mem, sizeof *L->gamma);
	L->keep = calloc((size_t)mem, sizeof *L->keep);
	if (!L->x || !L->xs || !L->g || !L->fv || !L->fprev || !L->gprev || !L->xt || !L->gt ||
	    !L->dx || !L->jac || !L->dF || !L->dG || !L->q || !L->r || !L->gamma || !L->keep)
		return master_fail(m, "out of memory");
	return 0;
}

void master_free_loop(Loop *L)
{
	free(L->seq);
	free(L->tear);
	free(L->fmus);
	free(L->x);
	free(L->xs);
	free(L->g);
	free(L->fv);
	free(L->fprev);
	free(L->gprev);
	free(L->xt);
	free(L->gt);
	free(L->dx);
	free(L->jac);
	free(L->dF);
	free(L->dG);
	free(L->q);
	free(L->r);
	free(L->gamma);
	free(L->keep);
}

/* The loops, their tear variables and evaluation orders; refuses a solver that needs Real
 * tear variables on a loop that has others. */
int master_prepare_loops(Master *m)
{
	const SartAnalysis *a = m->an;
	const SartScenario *sc = m->sc;
	int np = a->nports;
	m->nloops = a->nloops;
	m->loops = calloc((size_t)a->nloops + 1, sizeof *m->loops);
	m->port_conn = malloc(((size_t)np + 1) * sizeof *m->port_conn);
	m->conn_src_port = malloc(((size_t)sc->nconns + 1) * sizeof *m->conn_src_port);
	m->conn_dst_port = malloc(((size_t)sc->nconns + 1) * sizeof *m->conn_dst_port);
	m->conn_tear = malloc(((size_t)sc->nconns + 1) * sizeof *m->conn_tear);
	m->pval = calloc((size_t)np + 1, sizeof *m->pval);
	m->pred = calloc((size_t)sc->nconns + 1, sizeof *m->pred);
	m->yfull = calloc((size_t)m->nsig + 1, sizeof *m->yfull);
	m->save_now = calloc((size_t)m->nsig + 1, sizeof *m->save_now);
	m->save_prev = calloc((size_t)m->nsig + 1, sizeof *m->save_prev);
	m->adj_first = calloc((size_t)np + 2, sizeof *m->adj_first);
	m->adj_edge = malloc(((size_t)a->nedges + 1) * sizeof *m->adj_edge);
	int *work = malloc(4 * ((size_t)np + 1) * sizeof *work);
	int rc = 1;
	if (!m->loops || !m->port_conn || !m->conn_src_port || !m->conn_dst_port ||
	    !m->conn_tear || !m->pval || !m->pred || !m->yfull || !m->save_now || !m->save_prev ||
	    !m->adj_first || !m->adj_edge || !work) {
		master_fail(m, "out of memory");
		goto done;
	}
	for (int v = 0; v < np; v++)
		m->port_conn[v] = -1;
	for (int c = 0; c < sc->nconns; c++)
		m->conn_tear[c] = -1;
	for (int e = 0; e < a->nedges; e++) {
		m->adj_first[a->edge_from[e] + 1]++;
		if (a->edge_conn[e] >= 0) {
			m->port_conn[a->edge_to[e]] = a->edge_conn[e];
			m->conn_src_port[a->edge_conn[e]] = a->edge_from[e];
			m->conn_dst_port[a->edge_conn[e]] = a->edge_to[e];
		}
	}
	for (int v = 0; v < np; v++)
		m->adj_first[v + 1] += m->adj_first[v];
	for (int v = 0; v < np; v++)
		work[v] = m->adj_first[v];
	for (int e = 0; e < a->nedges; e++)
		m->adj_edge[work[a->edge_from[e]]++] = e;
	for (int i = 0; i < a->nloops; i++) {
		Loop *L = &m->loops[i];
		L->index = i;
		L->comp = a->loop_comp[i];
		if (plan_loop(m, L, work, work + np + 1, work + 2 * (np + 1), work + 3 * (np + 1)))
			goto done;
		if (m->o->loop_solver != SART_LOOP_FIXED_POINT && !L->all_real) {
			char vars[700];
			sart_loop_text(sc, a, i, vars, sizeof vars);
			master_fail(m, "algebraic loop %d (%s) has Integer or Boolean tear variables: only "
			            "fixed-point iteration solves it", i + 1, vars);
			goto done;
		}
	}
	rc = 0;
done:
	free(work);
	return rc;
}

/* One pass through loop L from the tear values x: every input of the loop set, every
 * output read, in evaluation order; g = what the torn connections now carry.  Returns 0,
 * 2 when a value read is NaN or infinite (*bad names the port), or -1 (an FMU call failed,
 * reported). */
static int loop_pass(Master *m, Loop *L, const double *x, double *g, double t, int *bad)
{
	const SartScenario *sc = m->sc;
	const SartAnalysis *a = m->an;
	m->res->loop_evaluations++;
	for (int k = 0; k < L->nseq; k++) {
		int v = L->seq[k];
		SartRef r = a->ports[v];
		const SartVar *var = var_of(sc, r);
		SartInner *in = m->f[r.fmu].in;
		double val;
		int iv;
		if (var->causality == SART_CAUS_INPUT) {
			int c = m->port_conn[v];
			const SartConnection *cn = &sc->conns[c];
			val = m->conn_tear[c] >= 0 ? x[m->conn_tear[c]]
			                           : sart_conn_value(cn, m->pval[m->conn_src_port[c]]);
			iv = to_int(var->type, val);
			if (var->type != SART_REAL)
				val = iv;
			if (!ok(set_values(in, var->type, &var->vr, 1, &val, &iv)))
				return master_fail_call(m, r.fmu, t) ? -1 : -1;
		} else {
			if (!ok(get_values(in, var->type, &var->vr, 1, &val, &iv)))
				return master_fail_call(m, r.fmu, t) ? -1 : -1;
			if (var->type != SART_REAL)
				val = iv;
			if (!isfinite(val)) {
				*bad = v;
				m->pval[v] = val;
				return 2;
			}
		}
		m->pval[v] = val;
	}
	for (int i = 0; i < L->ntear; i++) {
		const SartConnection *cn = &sc->conns[L->tear[i]];
		g[i] = sart_conn_value(cn, m->pval[m->conn_src_port[L->tear[i]]]);
	}
	return 0;
}

static double norm_inf(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s = fabs(v[i]) > s || isnan(v[i]) ? fabs(v[i]) : s;
	return s;
}

/* The scaled residual: max |f_i| / max(1, |x_i|). */
static double scaled_residual(const double *f, const double *x, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		double d = fabs(f[i]) / (fabs(x[i]) > 1 ? fabs(x[i]) : 1);
		s = d > s || isnan(d) ? d : s;
	}
	return s;
}

/* Solves A z = b in place (n x n, row-major) by Gaussian elimination with partial
 * pivoting; z overwrites b.  Returns -1 when A is singular to working precision. */
static int solve_dense(double *A, double *b, int n)
{
	double scale = 0;
	for (int i = 0; i < n * n; i++)
		scale = fabs(A[i]) > scale ? fabs(A[i]) : scale;
	if (!(scale > 0))
		return -1;
	for (int k = 0; k < n; k++) {
		int p = k;
		for (int i = k + 1; i < n; i++)
			if (fabs(A[i * n + k]) > fabs(A[p * n + k]))
				p = i;
		if (!(fabs(A[p * n + k]) > 1e-13 * scale))
			return -1;
		if (p != k) {
			for (int j = 0; j < n; j++) {
				double tmp = A[k * n + j];
				A[k * n + j] = A[p * n + j];
				A[p * n + j] = tmp;
			}
			double tmp = b[k];
			b[k] = b[p];
			b[p] = tmp;
		}
		for (int i = k + 1; i < n; i++) {
			double l = A[i * n + k] / A[k * n + k];
			for (int j = k; j < n; j++)
				A[i * n + j] -= l * A[k * n + j];
			b[i] -= l * b[k];
		}
	}
	for (int k = n - 1; k >= 0; k--) {
		double s = b[k];
		for (int j = k + 1; j < n; j++)
			s -= A[k * n + j] * b[j];
		b[k] = s / A[k * n + k];
	}
	return 0;
}

/* Anderson's update (Walker and Ni's type II, no damping): with the differences of the
 * last mk residuals dF and of the last mk values of G dG, gamma minimises
 * |f - dF gamma| (modified Gram-Schmidt, newest column first; a column that depends on
 * the ones before it is dropped), and x := g - dG gamma. */
static void anderson_update(Loop *L, int mk, int newest, int mem)
{
	int n = L->ntear, kept = 0;
	for (int jj = 0; jj < mk; jj++) {
		int j = (newest - jj + mem) % mem;
		double *v = L->q + (size_t)kept * (size_t)n;
		double n0 = 0, nv = 0;
		for (int i = 0; i < n; i++) {
			v[i] = L->dF[(size_t)j * (size_t)n + (size_t)i];
			n0 += v[i] * v[i];
		}
		for (int p = 0; p < kept; p++) {
			const double *qp = L->q + (size_t)p * (size_t)n;
			double d = 0;
			for (int i = 0; i < n; i++)
				d += qp[i] * v[i];
			L->r[p * mem + kept] = d;
			for (int i = 0; i < n; i++)
				v[i] -= d * qp[i];
		}
		for (int i = 0; i < n; i++)
			nv += v[i] * v[i];
		if (!(n0 > 0) || !(nv > 1e-20 * n0))
			continue;
		nv = sqrt(nv);
		L->r[kept * mem + kept] = nv;
		for (int i = 0; i < n; i++)
			v[i] /= nv;
		L->keep[kept++] = j;
	}
	/* gamma = R^-1 Q^T f */
	for (int p = 0; p < kept; p++) {
		const double *qp = L->q + (size_t)p * (size_t)n;
		double d = 0;
		for (int i = 0; i < n; i++)
			d += qp[i] * L->fv[i];
		L->gamma[p] = d;
	}
	for (int p = kept - 1; p >= 0; p--) {
		double s = L->gamma[p];
		for (int k = p + 1; k < kept; k++)
			s -= L->r[p * mem + k] * L->gamma[k];
		L->gamma[p] = s / L->r[p * mem + p];
	}
	for (int i = 0; i < n; i++) {
		double s = L->g[i];
		for (int p = 0; p < kept; p++)
			s -= L->gamma[p] * L->dG[(size_t)L->keep[p] * (size_t)n + (size_t)i];
		L->x[i] = s;
	}
}

static const char *solver_name(SartLoopSolver s)
{
	return s == SART_LOOP_FIXED_POINT ? "fixed-point iteration"
	       : s == SART_LOOP_NEWTON    ? "Newton"
	                                  : "Anderson acceleration";
}

/* The failure of loop L: names the loop, its variables, the solver and the tear
 * variables' last values. */
static int loop_fail(Master *m, Loop *L, double t, int init, SartLoopOutcome why,
                     int iterations, double resid, double absres, int bad)
{
	const SartScenario *sc = m->sc;
	char vars[600], tears[400], what[400];
	size_t used = 0;
	sart_loop_text(sc, m->an, L->index, vars, sizeof vars);
	tears[0] = '\0';
	for (int i = 0; i < L->ntear && used < sizeof tears; i++) {
		SartRef d = sc->conns[L->tear[i]].dst;
		int k = snprintf(tears + used, sizeof tears - used, "%s%s.%s = %.10g", i ? ", " : "",
		                 sc->fmus[d.fmu].name, var_of(sc, d)->name, L->x[i]);
		if (k < 0)
			break;
		used += (size_t)k;
	}
	m->res->loop_outcome = why;
	if (why == SART_LOOP_NOT_CONVERGED)
		snprintf(what, sizeof what, "did not converge in %d iterations of %s (|G(x) - x| = "
		         "%.3g, %.3g relative to max(1, |x|); tolerance %.3g)", iterations,
		         solver_name(m->o->loop_solver), absres, resid, m->loop_tol);
	else if (why == SART_LOOP_SINGULAR)
		snprintf(what, sizeof what, "cannot be solved by Newton after %d iterations: the "
		         "finite-difference Jacobian is singular", iterations);
	else if (bad >= 0)
		snprintf(what, sizeof what, "diverged under %s after %d iterations: %s.%s became %s",
		         solver_name(m->o->loop_solver), iterations, sc->fmus[m->an->ports[bad].fmu].name,
		         var_of(sc, m->an->ports[bad])->name, SART_NUM(m->pval[bad]));
	else
		snprintf(what, sizeof what, "diverged under %s after %d iterations (|G(x) - x| = %.3g)",
		         solver_name(m->o->loop_solver), iterations, absres);
	return master_fail(m, "at t = %s%s: algebraic loop %d (%s) %s; tear variables: %s",
	                   SART_NUM(t),
	                   init ? " (initialization)" : "", L->index + 1, vars, what, tears);
}

/* Solves loop L at time t: on return the loop's FMUs hold inputs and outputs of the
 * converged pass.  The first guess is the last solution, or at initialization the tear
 * inputs' own values (their start values, or what --set gave).  Returns 0, or 1 with the
 * failure reported. */
int master_solve_loop(Master *m, Loop *L, double t, int init)
{
	const SartScenario *sc = m->sc;
	SartLoopSolver solver = m->o->loop_solver;
	int n = L->ntear, mem = m->anderson_m, maxit = m->loop_maxit, bad = -1;
	double tol = m->loop_tol;
	m->res->loop_solves++;
	if (L->have_solution) {
		memcpy(L->x, L->xs, (size_t)n * sizeof *L->x);
	} else {
		for (int i = 0; i < n; i++) {
			SartRef d = sc->conns[L->tear[i]].dst;
			const SartVar *v = var_of(sc, d);
			int iv = 0;
			if (!ok(get_values(m->f[d.fmu].in, v->type, &v->vr, 1, &L->x[i], &iv)))
				return master_fail_call(m, d.fmu, t);
			if (v->type != SART_REAL)
				L->x[i] = iv;
		}
	}
	int st = loop_pass(m, L, L->x, L->g, t, &bad);
	if (st < 0)
		return 1;
	double f0 = 0;
	int hist = 0, newest = mem - 1;
	for (int k = 0;; k++) {
		if (st == 2)
			return loop_fail(m, L, t, init, SART_LOOP_DIVERGED, k, NAN, NAN, bad);
		for (int i = 0; i < n; i++)
			L->fv[i] = L->g[i] - L->x[i];
		double fn = norm_inf(L->fv, n), r = scaled_residual(L->fv, L->x, n);
		if (k == 0)
			f0 = fn;
		if (r <= tol) {
			memcpy(L->xs, L->x, (size_t)n * sizeof *L->x);
			L->have_solution = 1;
			return 0;
		}
		if (!isfinite(fn) || (fn > 1e6 * f0 && fn > 1e6 * tol))
			return loop_fail(m, L, t, init, SART_LOOP_DIVERGED, k, r, fn, -1);
		if (k >= maxit)
			return loop_fail(m, L, t, init, SART_LOOP_NOT_CONVERGED, k, r, fn, -1);
		m->res->loop_iterations++;
		if (solver == SART_LOOP_FIXED_POINT) {
			memcpy(L->x, L->g, (size_t)n * sizeof *L->x);
		} else if (solver == SART_LOOP_ANDERSON) {
			if (k > 0) {
				newest = (newest + 1) % mem;
				for (int i = 0; i < n; i++) {
					L->dF[(size_t)newest * (size_t)n + (size_t)i] = L->fv[i] - L->fprev[i];
					L->dG[(size_t)newest * (size_t)n + (size_t)i] = L->g[i] - L->gprev[i];
				}
				if (hist < mem)
					hist++;
			}
			memcpy(L->fprev, L->fv, (size_t)n * sizeof *L->fv);
			memcpy(L->gprev, L->g, (size_t)n * sizeof *L->g);
			if (hist == 0)
				memcpy(L->x, L->g, (size_t)n * sizeof *L->x);
			else
				anderson_update(L, hist, newest, mem);
		} else {
			/* Newton: J = d(G(x) - x)/dx by forward differences */
			for (int j = 0; j < n; j++) {
				double hj = 1.4901161193847656e-08 * (fabs(L->x[j]) > 1 ? fabs(L->x[j]) : 1);
				memcpy(L->xt, L->x, (size_t)n * sizeof *L->x);
				L->xt[j] += hj;
				hj = L->xt[j] - L->x[j];
				st = loop_pass(m, L, L->xt, L->gt, t, &bad);
				if (st < 0)
					return 1;
				if (st == 2)
					return loop_fail(m, L, t, init, SART_LOOP_DIVERGED, k, r, fn, bad);
				for (int i = 0; i < n; i++)
					L->jac[i * n + j] = ((L->gt[i] - L->xt[i]) - L->fv[i]) / hj;
			}
			for (int i = 0; i < n; i++)
				L->dx[i] = -L->fv[i];
			if (solve_dense(L->jac, L->dx, n))
				return loop_fail(m, L, t, init, SART_LOOP_SINGULAR, k, r, fn, -1);
			/* halve the step while the residual does not decrease (at most 10 times) */
			double lambda = 1;
			for (int tries = 0;; tries++) {
				for (int i = 0; i < n; i++)
					L->xt[i] = L->x[i] + lambda * L->dx[i];
				st = loop_pass(m, L, L->xt, L->gt, t, &bad);
				if (st < 0)
					return 1;
				double fnew = 0;
				for (int i = 0; st == 0 && i < n; i++) {
					double d = fabs(L->gt[i] - L->xt[i]);
					fnew = d > fnew || isnan(d) ? d : fnew;
				}
				if ((st == 0 && fnew < fn) || tries == 10)
					break;
				lambda /= 2;
			}
			memcpy(L->x, L->xt, (size_t)n * sizeof *L->x);
			memcpy(L->g, L->gt, (size_t)n * sizeof *L->g);
			continue;
		}
		st = loop_pass(m, L, L->x, L->g, t, &bad);
		if (st < 0)
			return 1;
	}
}

/* Solves loop L at t and reads its FMUs' signals again into vals. */
int master_solve_and_read(Master *m, Loop *L, double t, double *vals)
{
	if (master_solve_loop(m, L, t, 0))
		return 1;
	for (int i = 0; i < L->nfmus; i++)
		if (master_read_signals(m, L->fmus[i], t, vals))
			return 1;
	return 0;
}
