/* sart_master.c — the orchestrator core (see sart_master.h): structural analysis of a
 * scenario, initialization, and the macro-step loop with Jacobi or Gauss-Seidel, input
 * approximation, iterations with rollback and step rejection.
 *
 * Values.  Every variable the master reads after a step (a connection's source, a recorded
 * variable) is a "signal"; three arrays hold the signals at t_n-1 (prev), t_n (now) and at
 * the end of the current pass (next).  An accepted step rotates them.  Inputs are computed
 * from the signals per connection, converted (scale, offset) and set per FMU with one call
 * per type. */
#include "sart_master.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- strongly connected components --------------------------------------------------------- */

int sart_scc(int n, int nedges, const int from[], const int to[], int comp[], int order[])
{
	int ncomps = -1;
	int *first = calloc((size_t)n + 1, sizeof *first);
	int *adj = malloc(((size_t)nedges + 1) * sizeof *adj);
	int *index = malloc(((size_t)n + 1) * sizeof *index);
	int *low = malloc(((size_t)n + 1) * sizeof *low);
	int *onstack = calloc((size_t)n + 1, sizeof *onstack);
	int *stack = malloc(((size_t)n + 1) * sizeof *stack);
	int *frame = malloc(((size_t)n + 1) * sizeof *frame); /* call stack: nodes */
	int *pos = malloc(((size_t)n + 1) * sizeof *pos);     /* next edge per node */
	int *indeg = calloc((size_t)n + 1, sizeof *indeg);
	int *minnode = malloc(((size_t)n + 1) * sizeof *minnode);
	int *renum = malloc(((size_t)n + 1) * sizeof *renum);
	int *done = calloc((size_t)n + 1, sizeof *done);
	if (!first || !adj || !index || !low || !onstack || !stack || !frame || !pos || !indeg ||
	    !minnode || !renum || !done)
		goto done;

	/* adjacency in compressed rows */
	for (int e = 0; e < nedges; e++)
		first[from[e] + 1]++;
	for (int v = 0; v < n; v++)
		first[v + 1] += first[v];
	for (int v = 0; v < n; v++)
		pos[v] = first[v];
	for (int e = 0; e < nedges; e++)
		adj[pos[from[e]]++] = to[e];

	/* Tarjan, iteratively: components come out sinks first */
	int next_index = 0, sp = 0, nc = 0;
	for (int v = 0; v < n; v++)
		index[v] = -1;
	for (int root = 0; root < n; root++) {
		if (index[root] >= 0)
			continue;
		int fp = 0;
		frame[fp++] = root;
		index[root] = low[root] = next_index++;
		pos[root] = first[root];
		stack[sp++] = root;
		onstack[root] = 1;
		while (fp > 0) {
			int v = frame[fp - 1];
			if (pos[v] < first[v + 1]) {
				int w = adj[pos[v]++];
				if (index[w] < 0) {
					index[w] = low[w] = next_index++;
					pos[w] = first[w];
					stack[sp++] = w;
					onstack[w] = 1;
					frame[fp++] = w;
				} else if (onstack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				int w;
				do {
					w = stack[--sp];
					onstack[w] = 0;
					comp[w] = nc;
				} while (w != v);
				nc++;
			}
			fp--;
			if (fp > 0 && low[v] < low[frame[fp - 1]])
				low[frame[fp - 1]] = low[v];
		}
	}

	/* Kahn on the condensation, smallest node first among the ready components */
	for (int c = 0; c < nc; c++)
		minnode[c] = n;
	for (int v = 0; v < n; v++)
		if (v < minnode[comp[v]])
			minnode[comp[v]] = v;
	for (int e = 0; e < nedges; e++)
		if (comp[from[e]] != comp[to[e]])
			indeg[comp[to[e]]]++;
	for (int k = 0; k < nc; k++) {
		int best = -1;
		for (int c = 0; c < nc; c++)
			if (!done[c] && indeg[c] == 0 && (best < 0 || minnode[c] < minnode[best]))
				best = c;
		if (best < 0)
			goto done; /* cannot happen: the condensation is acyclic */
		done[best] = 1;
		renum[best] = k;
		for (int e = 0; e < nedges; e++)
			if (comp[from[e]] == best && comp[to[e]] != best)
				indeg[comp[to[e]]]--;
	}
	for (int v = 0; v < n; v++)
		comp[v] = renum[comp[v]];
	int k = 0;
	for (int c = 0; c < nc; c++)
		for (int v = 0; v < n; v++)
			if (comp[v] == c)
				order[k++] = v;
	ncomps = nc;
done:
	free(first);
	free(adj);
	free(index);
	free(low);
	free(onstack);
	free(stack);
	free(frame);
	free(pos);
	free(indeg);
	free(minnode);
	free(renum);
	free(done);
	return ncomps;
}

/* ---- analysis ------------------------------------------------------------------------------ */

static void put(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void put(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	if (!buf || size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static int valid_ref(const SartScenario *sc, SartRef r)
{
	return r.fmu >= 0 && r.fmu < sc->nfmus && r.var >= 0 && r.var < sc->fmus[r.fmu].nvars;
}

static const SartVar *var_of(const SartScenario *sc, SartRef r)
{
	return &sc->fmus[r.fmu].vars[r.var];
}

static int is_port(const SartVar *v)
{
	return v->causality == SART_CAUS_INPUT || v->causality == SART_CAUS_OUTPUT;
}

/* Delayed (the paper's section 2.2.1): it has inputs, no output depends on any input
 * (dependencies given, and empty), and it cannot interpolate inputs (not reactive). */
/* The first FMU that cannot get and set its state, or -1 when every one can. */
static int stateless_fmu(const SartScenario *sc)
{
	for (int f = 0; f < sc->nfmus; f++)
		if (!(sc->fmus[f].caps & SART_CAP_GET_SET_STATE))
			return f;
	return -1;
}

static int fmu_is_delayed(const SartFmu *fm)
{
	int inputs = 0;
	if (fm->caps & SART_CAP_INPUT_DERIVATIVES)
		return 0;
	for (int i = 0; i < fm->nvars; i++) {
		const SartVar *v = &fm->vars[i];
		inputs += v->causality == SART_CAUS_INPUT;
		if (v->causality == SART_CAUS_OUTPUT && v->ndeps != 0)
			return 0;
	}
	return inputs > 0;
}

void sart_analysis_free(SartAnalysis *a)
{
	if (!a)
		return;
	free(a->ports);
	free(a->edge_from);
	free(a->edge_to);
	free(a->edge_conn);
	free(a->comp);
	free(a->order);
	free(a->loop_comp);
	free(a->fmu_order);
	free(a->fmu_comp);
	free(a->delayed);
	free(a);
}

int sart_analyse(const SartScenario *sc, SartAnalysis **out, char *err, size_t errsize)
{
	int rc = -1;
	SartAnalysis *a = calloc(1, sizeof *a);
	int *base = calloc((size_t)sc->nfmus + 1, sizeof *base);
	int *node_of = NULL, *fed = NULL, *size = NULL, *ffrom = NULL, *fto = NULL;
	int *rest_comp = NULL, *rest_order = NULL;
	*out = NULL;
	if (!a || !base)
		goto oom;
	for (int f = 0; f < sc->nfmus; f++)
		base[f + 1] = base[f] + sc->fmus[f].nvars;
	node_of = malloc(((size_t)base[sc->nfmus] + 1) * sizeof *node_of);
	fed = calloc((size_t)base[sc->nfmus] + 1, sizeof *fed);
	if (!node_of || !fed)
		goto oom;

	/* nodes: every input and output */
	int nports = 0, maxedges = sc->nconns;
	for (int f = 0; f < sc->nfmus; f++)
		for (int i = 0; i < sc->fmus[f].nvars; i++) {
			const SartVar *v = &sc->fmus[f].vars[i];
			node_of[base[f] + i] = is_port(v) ? nports++ : -1;
			if (v->causality == SART_CAUS_OUTPUT)
				maxedges += v->ndeps >= 0 ? v->ndeps : sc->fmus[f].nvars;
		}
	a->nports = nports;
	a->ports = malloc(((size_t)nports + 1) * sizeof *a->ports);
	a->edge_from = malloc(((size_t)maxedges + 1) * sizeof *a->edge_from);
	a->edge_to = malloc(((size_t)maxedges + 1) * sizeof *a->edge_to);
	a->edge_conn = malloc(((size_t)maxedges + 1) * sizeof *a->edge_conn);
	a->comp = malloc(((size_t)nports + 1) * sizeof *a->comp);
	a->order = malloc(((size_t)nports + 1) * sizeof *a->order);
	a->loop_comp = malloc(((size_t)nports + 1) * sizeof *a->loop_comp);
	a->fmu_order = malloc(((size_t)sc->nfmus + 1) * sizeof *a->fmu_order);
	a->fmu_comp = malloc(((size_t)sc->nfmus + 1) * sizeof *a->fmu_comp);
	ffrom = malloc(((size_t)sc->nconns + 1) * sizeof *ffrom);
	fto = malloc(((size_t)sc->nconns + 1) * sizeof *fto);
	if (!a->ports || !a->edge_from || !a->edge_to || !a->edge_conn || !a->comp || !a->order ||
	    !a->loop_comp || !a->fmu_order || !a->fmu_comp || !ffrom || !fto)
		goto oom;
	for (int f = 0; f < sc->nfmus; f++)
		for (int i = 0; i < sc->fmus[f].nvars; i++)
			if (node_of[base[f] + i] >= 0)
				a->ports[node_of[base[f] + i]] = (SartRef){f, i};

	/* edges: connections, checked */
	int ne = 0;
	for (int c = 0; c < sc->nconns; c++) {
		const SartConnection *cn = &sc->conns[c];
		if (!valid_ref(sc, cn->src) || !valid_ref(sc, cn->dst)) {
			put(err, errsize, "connection %d names a variable that does not exist", c + 1);
			goto fail;
		}
		const SartVar *s = var_of(sc, cn->src), *d = var_of(sc, cn->dst);
		const char *sn = sc->fmus[cn->src.fmu].name, *dn = sc->fmus[cn->dst.fmu].name;
		if (s->causality != SART_CAUS_OUTPUT || d->causality != SART_CAUS_INPUT) {
			put(err, errsize, "connection %s.%s -> %s.%s does not go from an output to an "
			    "input", sn, s->name, dn, d->name);
			goto fail;
		}
		int ok = (s->type == d->type && s->type != SART_OTHER) ||
		         (s->type == SART_INTEGER && d->type == SART_REAL);
		if (!ok) {
			put(err, errsize, "connection %s.%s -> %s.%s: only Real, Integer and Boolean "
			    "values of matching types are exchanged (Integer may feed Real)", sn,
			    s->name, dn, d->name);
			goto fail;
		}
		if (d->type != SART_REAL && (cn->scale != 1 || cn->offset != 0)) {
			put(err, errsize, "connection %s.%s -> %s.%s converts units of a non-Real "
			    "input", sn, s->name, dn, d->name);
			goto fail;
		}
		if (fed[base[cn->dst.fmu] + cn->dst.var]++) {
			put(err, errsize, "input %s.%s is fed by more than one connection", dn,
			    d->name);
			goto fail;
		}
		a->edge_from[ne] = node_of[base[cn->src.fmu] + cn->src.var];
		a->edge_to[ne] = node_of[base[cn->dst.fmu] + cn->dst.var];
		a->edge_conn[ne++] = c;
		ffrom[c] = cn->src.fmu;
		fto[c] = cn->dst.fmu;
	}
	/* edges: direct dependencies of outputs on inputs of the same FMU */
	for (int f = 0; f < sc->nfmus; f++) {
		const SartFmu *fm = &sc->fmus[f];
		for (int i = 0; i < fm->nvars; i++) {
			const SartVar *v = &fm->vars[i];
			if (v->causality != SART_CAUS_OUTPUT)
				continue;
			int n = v->ndeps >= 0 ? v->ndeps : fm->nvars;
			for (int k = 0; k < n; k++) {
				int d = v->ndeps >= 0 ? v->deps[k] : k;
				if (d < 0 || d >= fm->nvars || fm->vars[d].causality != SART_CAUS_INPUT)
					continue; /* states, parameters: not part of the graph */
				a->edge_from[ne] = node_of[base[f] + d];
				a->edge_to[ne] = node_of[base[f] + i];
				a->edge_conn[ne++] = -1;
			}
		}
	}
	a->nedges = ne;

	a->ncomps = sart_scc(nports, ne, a->edge_from, a->edge_to, a->comp, a->order);
	if (a->ncomps < 0)
		goto oom;
	/* the loops: components with more than one port (prepare_loops tears them) */
	size = calloc((size_t)a->ncomps + 1, sizeof *size);
	if (!size)
		goto oom;
	for (int v = 0; v < nports; v++)
		size[a->comp[v]]++;
	for (int c = 0; c < a->ncomps; c++)
		if (size[c] > 1)
			a->loop_comp[a->nloops++] = c;

	a->nfmu_comps = sart_scc(sc->nfmus, sc->nconns, ffrom, fto, a->fmu_comp, a->fmu_order);
	if (a->nfmu_comps < 0)
		goto oom;

	/* Execution order: the delayed FMUs first, in scenario order (their inputs at t_n
	 * suffice, so they need not wait for the FMUs that feed them: this breaks FMU-level
	 * cycles through them); then the others in the topological order of the FMU graph
	 * without the connections that touch a delayed FMU. */
	a->delayed = calloc((size_t)sc->nfmus + 1, sizeof *a->delayed);
	rest_comp = malloc(((size_t)sc->nfmus + 1) * sizeof *rest_comp);
	rest_order = malloc(((size_t)sc->nfmus + 1) * sizeof *rest_order);
	if (!a->delayed || !rest_comp || !rest_order)
		goto oom;
	int nrest = 0, k = 0;
	for (int f = 0; f < sc->nfmus; f++)
		a->delayed[f] = fmu_is_delayed(&sc->fmus[f]);
	for (int c = 0; c < sc->nconns; c++)
		if (!a->delayed[ffrom[c]] && !a->delayed[fto[c]]) {
			ffrom[nrest] = ffrom[c];
			fto[nrest++] = fto[c];
		}
	if (sart_scc(sc->nfmus, nrest, ffrom, fto, rest_comp, rest_order) < 0)
		goto oom;
	for (int f = 0; f < sc->nfmus; f++)
		if (a->delayed[f])
			a->fmu_order[k++] = f;
	for (int i = 0; i < sc->nfmus; i++)
		if (!a->delayed[rest_order[i]])
			a->fmu_order[k++] = rest_order[i];
	rc = 0;
	*out = a;
	a = NULL;
	goto fail;
oom:
	put(err, errsize, "out of memory");
fail:
	sart_analysis_free(a);
	free(base);
	free(node_of);
	free(fed);
	free(size);
	free(ffrom);
	free(fto);
	free(rest_comp);
	free(rest_order);
	return rc;
}

void sart_loop_text(const SartScenario *sc, const SartAnalysis *a, int i, char *buf,
                    size_t size)
{
	size_t used = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	for (int k = 0; k < a->nports; k++) {
		int v = a->order[k];
		if (a->comp[v] != a->loop_comp[i])
			continue;
		SartRef r = a->ports[v];
		int n = snprintf(buf + used, size - used, "%s%s.%s", used ? ", " : "",
		                 sc->fmus[r.fmu].name, var_of(sc, r)->name);
		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
}

static void print_port(FILE *out, const SartScenario *sc, const SartAnalysis *a, int v)
{
	SartRef r = a->ports[v];
	fprintf(out, "%s.%s", sc->fmus[r.fmu].name, var_of(sc, r)->name);
}

void sart_analysis_print(FILE *out, const SartScenario *sc, const SartAnalysis *a)
{
	int ndeps = 0;
	for (int e = 0; e < a->nedges; e++)
		ndeps += a->edge_conn[e] < 0;
	fprintf(out, "fmus: %d; ports: %d; connections: %d; direct dependencies: %d\n",
	        sc->nfmus, a->nports, sc->nconns, ndeps);
	fputs("direct-feedthrough graph:\n", out);
	if (a->nedges == 0)
		fputs("  (no edges)\n", out);
	for (int e = 0; e < a->nedges; e++) {
		fputs("  ", out);
		print_port(out, sc, a, a->edge_from[e]);
		fputs(" -> ", out);
		print_port(out, sc, a, a->edge_to[e]);
		fputs(a->edge_conn[e] >= 0 ? "  (connection)\n" : "  (direct dependency)\n", out);
	}
	fprintf(out, "strongly connected components (Tarjan), in topological order: %d\n",
	        a->ncomps);
	for (int c = 0, k = 0; c < a->ncomps; c++) {
		fprintf(out, "  %d:", c + 1);
		for (; k < a->nports && a->comp[a->order[k]] == c; k++) {
			fputc(' ', out);
			print_port(out, sc, a, a->order[k]);
		}
		fputc('\n', out);
	}
	fputs("initialization order:", out);
	for (int k = 0; k < a->nports; k++) {
		fputs(k ? ", " : " ", out);
		print_port(out, sc, a, a->order[k]);
	}
	fputs(a->nports ? "\n" : " (no ports)\n", out);
	fputs("execution order (Gauss-Seidel):", out);
	for (int k = 0; k < sc->nfmus; k++)
		fprintf(out, "%s%s", k ? ", " : " ", sc->fmus[a->fmu_order[k]].name);
	fputc('\n', out);
	int ndelayed = 0;
	for (int f = 0; f < sc->nfmus; f++)
		ndelayed += a->delayed[f];
	fputs("delayed (stepped first, with their inputs at t_n):", out);
	for (int f = 0, k = 0; f < sc->nfmus; f++)
		if (a->delayed[f])
			fprintf(out, "%s%s", k++ ? ", " : " ", sc->fmus[f].name);
	fputs(ndelayed ? "\n" : " none\n", out);
	if (a->nloops == 0)
		fputs("algebraic loops: none\n", out);
	for (int i = 0; i < a->nloops; i++) {
		char buf[2048];
		sart_loop_text(sc, a, i, buf, sizeof buf);
		fprintf(out, "algebraic loop %d: %s\n", i + 1, buf);
	}
}

/* ---- running ------------------------------------------------------------------------------- */

enum { NTYPES = 3 }; /* SART_REAL, SART_INTEGER, SART_BOOLEAN */

/* The capabilities the seam knows (the master's own are not its business). */
#define SEAM_CAPS (SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE | SART_CAP_INPUT_DERIVATIVES)

/* What the master keeps per FMU. */
typedef struct FmuRun {
	SartInner *in;
	void *snap;           /* its state at t_n, when every FMU can roll back */
	int interpolates;     /* canInterpolateInputs */
	int stepped;          /* in the current pass (Gauss-Seidel) */
	/* signals read after a step, per type: the signals read_base[ty] .. + nread[ty] - 1
	 * (prepare numbers each FMU's signals of one type consecutively, so Reals are got
	 * straight into the signal array) */
	int nread[NTYPES];
	int read_base[NTYPES];
	SartVr *read_vr[NTYPES];
	/* connections into it, per type of the input: value references, the connection, its
	 * source signal and conversion, as parallel arrays for the hot loop */
	int nset[NTYPES];
	SartVr *set_vr[NTYPES];
	int *set_conn[NTYPES];
	int *set_sig[NTYPES];
	double *set_scale[NTYPES], *set_offset[NTYPES];
	int has_other;        /* Integer or Boolean signals or inputs */
	double *plain_v;      /* its Real inputs in Master.plain_buf */
	int plain_off;        /* >= 0: its Real inputs are the signals plain_off, plain_off + 1,
	                         ... unconverted, so they are set straight from the signals */
	int *order1;          /* derivative orders (all 1), nset[SART_REAL] of them */
	int *order2;          /* all 2 */
	double *dval;         /* input derivatives */
	double *d2val;        /* second input derivatives (quadratic) */
	int takes_order2;     /* SART_CAP_INPUT_ORDER2 */
	int derivs;           /* Hermite: its Real signals' derivatives are got after reads */
	double *rbuf;         /* Real values to set or read */
	int *ibuf;            /* Integer and Boolean values */
} FmuRun;

/* An algebraic loop being solved (see solve_loop). */
typedef struct Loop {
	int index;            /* in the analysis' loop_comp */
	int comp;
	int nseq, *seq;       /* its ports in evaluation order */
	int ntear, *tear;     /* the torn connections */
	int nfmus, *fmus;     /* its FMUs, in execution order */
	int last_pos;         /* Gauss-Seidel: solved after the FMU at this position stepped */
	int all_real;         /* every tear variable is Real */
	int have_solution;
	double *x, *xs, *g, *fv, *fprev, *gprev, *xt, *gt, *dx, *jac;
	double *dF, *dG, *q, *r, *gamma; /* Anderson: histories, QR, coefficients */
	int *keep;
} Loop;

typedef struct Master {
	const SartScenario *sc;
	const SartMasterOptions *o;
	SartMasterResult *res;
	SartAnalysis *an;
	FmuRun *f;
	int nsig;
	SartRef *sig;
	int *sig_exchanged;   /* feeds a connection: NaN there is an error */
	double *prev, *now, *next;
	double t_prev_span;  /* t_n - t_n-1 */
	int have_prev;
	/* quadratic extrapolation: the signals at t_n-2 */
	double *prev2;
	double t_prev2_span; /* t_n-1 - t_n-2 */
	int have_prev2;
	/* Hermite: the derivatives of the signals at t_n, and at the end of the pass (of the
	 * FMUs that give them: FmuRun.derivs) */
	double *dnow, *dnext;
	int *conn_sig;
	int *rec_sig;
	double *row;
	int can_rollback;     /* every FMU can get and set its state */
	int snapshots;        /* fixed steps: save every state before each (not no_rollback) */
	int discard_fmu;      /* of the last attempt's discards, the FMU that stood earliest */
	double discard_at;    /* (-1: none), and where it stood */
	int probed;           /* the state probe ran on every FMU (probe_all) */
	int derivatives;      /* this run gives input derivatives to FMUs that take them */
	int plain;            /* plain_pass can do a first Jacobi pass */
	int ind_sig;          /* the event indicator's signal, or -1 */
	double event_tol;
	/* plain_pass's flat tables: every FMU's Real inputs in FMU order (FmuRun.plain_v is
	 * its share of plain_buf): the source signal, conversion, connection */
	int plain_nin, plain_identity;
	int plain_direct;     /* every FMU's inputs are set straight from the signals */
	int *plain_src, *plain_conn;
	double *plain_scale, *plain_offset, *plain_buf;
	int failed;
	/* algebraic loops */
	int nloops;
	Loop *loops;
	int *port_conn;       /* input port -> the connection feeding it, or -1 */
	int *conn_src_port;   /* connection -> its source port */
	int *conn_dst_port;   /* connection -> its destination port */
	int *conn_tear;       /* connection -> its index among its loop's tears, or -1 */
	double *pval;         /* port values during a loop pass */
	int *adj_first, *adj_edge; /* the port graph's edges by source */
	int anderson_m, loop_maxit;
	double loop_tol;
	/* step-size control */
	double *pred;         /* connection -> the value its input was given for the step's end */
	int want_pred;        /* pred is kept on every path (prediction step control) */
	double *yfull, *save_now, *save_prev; /* doubling: the full step's signals, t_n's arrays */
	double h_next;        /* the controller's proposal */
	double last_span;     /* t_n+1 - t_n as the linear extrapolation sees it */
	double tol, min_step, max_step, safety, shrink, grow;
	/* the seam's failure message, held until the master knows whether it reports it */
	char pending[1024];
	SartStatus pending_status;
	char pending_category[64];
	int has_pending;
} Master;

static void flush_pending(Master *m)
{
	if (m->has_pending && m->o->logger)
		m->o->logger(m->o->logger_env, m->pending_status, m->pending_category, m->pending);
	m->has_pending = 0;
}

/* Every FMU's logger.  Messages with an error status are held back one message: when the
 * seam's report of a failed call becomes the run's own message, it is not said twice. */
static void master_log(void *env, SartStatus st, const char *category, const char *message)
{
	Master *m = env;
	flush_pending(m);
	if (st >= SART_ERROR) {
		snprintf(m->pending, sizeof m->pending, "%s", message);
		snprintf(m->pending_category, sizeof m->pending_category, "%s", category);
		m->pending_status = st;
		m->has_pending = 1;
		return;
	}
	if (m->o->logger)
		m->o->logger(m->o->logger_env, st, category, message);
}

static int fail(Master *m, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* The run's failure: the first one only is kept, and logged. */
static int fail(Master *m, const char *fmt, ...)
{
	va_list ap;
	flush_pending(m);
	if (m->failed)
		return 1;
	m->failed = 1;
	va_start(ap, fmt);
	vsnprintf(m->res->message, sizeof m->res->message, fmt, ap);
	va_end(ap);
	if (m->o->logger)
		m->o->logger(m->o->logger_env, SART_ERROR, "logStatusError", m->res->message);
	return 1;
}

/* A step redone shorter until it has no length: the FMU whose discard ended it where it
 * began cannot advance from there. */
static int stuck(Master *m, double t)
{
	if (m->discard_fmu >= 0)
		return fail(m, "at t = %.17g: %s discarded the step at its start (its last "
		            "successful time is t); the simulation cannot advance", t,
		            m->sc->fmus[m->discard_fmu].name);
	return fail(m, "at t = %.17g: an FMU discarded the step at its start; the simulation "
	            "cannot advance", t);
}

/* A failed FMU call: the seam's message (FMU, call, and for steps the time), with the
 * master's time when the call itself does not carry it. */
static int fail_call(Master *m, int f, double t)
{
	const char *msg = sart_inner_message(m->f[f].in);
	if (m->has_pending && strcmp(m->pending, msg) == 0)
		m->has_pending = 0;
	if (strstr(msg, "fmi2DoStep(") || strstr(msg, "fmi3DoStep("))
		return fail(m, "%s", msg);
	return fail(m, "at t = %.17g: %s", t, msg);
}

static int ok(SartStatus st)
{
	return st == SART_OK || st == SART_WARNING;
}

static SartStatus get_values(SartInner *in, SartType ty, const SartVr *vr, size_t n,
                             double *rv, int *iv)
{
	if (ty == SART_REAL)
		return sart_inner_get_real(in, vr, n, rv);
	if (ty == SART_INTEGER)
		return sart_inner_get_integer(in, vr, n, iv);
	return sart_inner_get_boolean(in, vr, n, iv);
}

static SartStatus set_values(SartInner *in, SartType ty, const SartVr *vr, size_t n,
                             const double *rv, const int *iv)
{
	if (ty == SART_REAL)
		return sart_inner_set_real(in, vr, n, rv);
	if (ty == SART_INTEGER)
		return sart_inner_set_integer(in, vr, n, iv);
	return sart_inner_set_boolean(in, vr, n, iv);
}

static int to_int(SartType ty, double v)
{
	if (ty == SART_BOOLEAN)
		return v != 0;
	return v >= 2147483647.0 ? 2147483647 : v <= -2147483648.0 ? (-2147483647 - 1)
	                                                           : (int)lround(v);
}

static int sig_index(Master *m, SartRef r)
{
	for (int s = 0; s < m->nsig; s++)
		if (m->sig[s].fmu == r.fmu && m->sig[s].var == r.var)
			return s;
	m->sig[m->nsig] = r;
	return m->nsig++;
}

/* Signals, per-FMU read and set tables, buffers. */
static int prepare(Master *m)
{
	const SartScenario *sc = m->sc;
	int maxsig = sc->nconns + sc->nrecords + 1; /* + the event indicator */
	m->f = calloc((size_t)sc->nfmus + 1, sizeof *m->f);
	m->sig = malloc(((size_t)maxsig + 1) * sizeof *m->sig);
	m->sig_exchanged = calloc((size_t)maxsig + 1, sizeof *m->sig_exchanged);
	m->prev = calloc((size_t)maxsig + 1, sizeof *m->prev);
	m->prev2 = calloc((size_t)maxsig + 1, sizeof *m->prev2);
	m->dnow = calloc((size_t)maxsig + 1, sizeof *m->dnow);
	m->dnext = calloc((size_t)maxsig + 1, sizeof *m->dnext);
	m->now = calloc((size_t)maxsig + 1, sizeof *m->now);
	m->next = calloc((size_t)maxsig + 1, sizeof *m->next);
	m->conn_sig = malloc(((size_t)sc->nconns + 1) * sizeof *m->conn_sig);
	m->rec_sig = malloc(((size_t)sc->nrecords + 1) * sizeof *m->rec_sig);
	m->row = calloc((size_t)sc->nrecords + 1, sizeof *m->row);
	if (!m->f || !m->sig || !m->sig_exchanged || !m->prev || !m->now || !m->next ||
	    !m->prev2 || !m->dnow || !m->dnext ||
	    !m->conn_sig || !m->rec_sig || !m->row)
		return fail(m, "out of memory");
	for (int c = 0; c < sc->nconns; c++) {
		m->conn_sig[c] = sig_index(m, sc->conns[c].src);
		m->sig_exchanged[m->conn_sig[c]] = 1;
	}
	for (int r = 0; r < sc->nrecords; r++) {
		if (!valid_ref(sc, sc->records[r]))
			return fail(m, "recorded variable %d does not exist", r + 1);
		const SartVar *v = var_of(sc, sc->records[r]);
		if (v->type == SART_OTHER)
			return fail(m, "%s.%s cannot be recorded: only Real, Integer and Boolean "
			            "variables are", sc->fmus[sc->records[r].fmu].name, v->name);
		m->rec_sig[r] = sig_index(m, sc->records[r]);
	}
	m->ind_sig = m->o->locate_events ? sig_index(m, m->o->event_indicator) : -1;
	/* number the signals by FMU, then by type, so each FMU reads a consecutive range */
	{
		int *newidx = malloc(((size_t)m->nsig + 1) * sizeof *newidx);
		SartRef *sig2 = malloc(((size_t)m->nsig + 1) * sizeof *sig2);
		int *exch2 = malloc(((size_t)m->nsig + 1) * sizeof *exch2);
		if (!newidx || !sig2 || !exch2) {
			free(newidx);
			free(sig2);
			free(exch2);
			return fail(m, "out of memory");
		}
		int k = 0;
		for (int f = 0; f < sc->nfmus; f++)
			for (int ty = 0; ty < NTYPES; ty++)
				for (int s = 0; s < m->nsig; s++)
					if (m->sig[s].fmu == f && var_of(sc, m->sig[s])->type == (SartType)ty) {
						newidx[s] = k;
						sig2[k] = m->sig[s];
						exch2[k++] = m->sig_exchanged[s];
					}
		memcpy(m->sig, sig2, (size_t)m->nsig * sizeof *sig2);
		memcpy(m->sig_exchanged, exch2, (size_t)m->nsig * sizeof *exch2);
		for (int c = 0; c < sc->nconns; c++)
			m->conn_sig[c] = newidx[m->conn_sig[c]];
		for (int r = 0; r < sc->nrecords; r++)
			m->rec_sig[r] = newidx[m->rec_sig[r]];
		if (m->ind_sig >= 0)
			m->ind_sig = newidx[m->ind_sig];
		free(newidx);
		free(sig2);
		free(exch2);
	}
	for (int f = 0; f < sc->nfmus; f++) {
		FmuRun *fr = &m->f[f];
		size_t nbuf = 1;
		fr->interpolates = (sc->fmus[f].caps & SART_CAP_INPUT_DERIVATIVES) != 0;
		for (int ty = 0; ty < NTYPES; ty++) {
			for (int s = 0; s < m->nsig; s++)
				fr->nread[ty] += m->sig[s].fmu == f && var_of(sc, m->sig[s])->type ==
				                 (SartType)ty;
			for (int c = 0; c < sc->nconns; c++)
				fr->nset[ty] += sc->conns[c].dst.fmu == f &&
				                var_of(sc, sc->conns[c].dst)->type == (SartType)ty;
			size_t nr = (size_t)fr->nread[ty] + 1, ns = (size_t)fr->nset[ty] + 1;
			fr->read_vr[ty] = malloc(nr * sizeof(SartVr));
			fr->set_vr[ty] = malloc(ns * sizeof(SartVr));
			fr->set_conn[ty] = malloc(ns * sizeof(int));
			fr->set_sig[ty] = malloc(ns * sizeof(int));
			fr->set_scale[ty] = malloc(ns * sizeof(double));
			fr->set_offset[ty] = malloc(ns * sizeof(double));
			if (!fr->read_vr[ty] || !fr->set_vr[ty] || !fr->set_conn[ty] || !fr->set_sig[ty] ||
			    !fr->set_scale[ty] || !fr->set_offset[ty])
				return fail(m, "out of memory");
			int k = 0;
			fr->read_base[ty] = 0;
			for (int s = 0; s < m->nsig; s++)
				if (m->sig[s].fmu == f && var_of(sc, m->sig[s])->type == (SartType)ty) {
					if (k == 0)
						fr->read_base[ty] = s;
					fr->read_vr[ty][k++] = var_of(sc, m->sig[s])->vr;
				}
			k = 0;
			for (int c = 0; c < sc->nconns; c++)
				if (sc->conns[c].dst.fmu == f &&
				    var_of(sc, sc->conns[c].dst)->type == (SartType)ty) {
					fr->set_vr[ty][k] = var_of(sc, sc->conns[c].dst)->vr;
					fr->set_sig[ty][k] = m->conn_sig[c];
					fr->set_scale[ty][k] = sc->conns[c].scale;
					fr->set_offset[ty][k] = sc->conns[c].offset;
					fr->set_conn[ty][k++] = c;
				}
			if (ty != SART_REAL)
				fr->has_other |= fr->nread[ty] > 0 || fr->nset[ty] > 0;
			if ((size_t)fr->nread[ty] > nbuf)
				nbuf = (size_t)fr->nread[ty];
			if ((size_t)fr->nset[ty] > nbuf)
				nbuf = (size_t)fr->nset[ty];
		}
		fr->rbuf = malloc(nbuf * sizeof *fr->rbuf);
		fr->ibuf = malloc(nbuf * sizeof *fr->ibuf);
		fr->dval = malloc(nbuf * sizeof *fr->dval);
		fr->d2val = malloc(nbuf * sizeof *fr->d2val);
		fr->order1 = malloc(nbuf * sizeof *fr->order1);
		fr->order2 = malloc(nbuf * sizeof *fr->order2);
		if (!fr->rbuf || !fr->ibuf || !fr->dval || !fr->d2val || !fr->order1 || !fr->order2)
			return fail(m, "out of memory");
		for (size_t i = 0; i < nbuf; i++) {
			fr->order1[i] = 1;
			fr->order2[i] = 2;
		}
		fr->takes_order2 = (sc->fmus[f].caps & SART_CAP_INPUT_ORDER2) != 0;
		fr->derivs = m->o->approx == SART_HERMITE &&
		             (sc->fmus[f].caps & SART_CAP_OUTPUT_DERIVATIVES) && fr->nread[SART_REAL] > 0;
		m->plain_nin += fr->nset[SART_REAL];
	}
	size_t nin = (size_t)m->plain_nin + 1;
	m->plain_src = malloc(nin * sizeof *m->plain_src);
	m->plain_conn = malloc(nin * sizeof *m->plain_conn);
	m->plain_scale = malloc(nin * sizeof *m->plain_scale);
	m->plain_offset = malloc(nin * sizeof *m->plain_offset);
	m->plain_buf = malloc(nin * sizeof *m->plain_buf);
	if (!m->plain_src || !m->plain_conn || !m->plain_scale || !m->plain_offset ||
	    !m->plain_buf)
		return fail(m, "out of memory");
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
	return 0;
}

/* The first non-finite value of FMU f's signals vals[s0 .. s0 + n - 1]: the error. */
static int nonfinite_signal(Master *m, int f, double t, const double *vals, int s0, int n)
{
	for (int s = s0; s < s0 + n; s++)
		if (!isfinite(vals[s]))
			return fail(m, "at t = %.17g: %s.%s is %g, and it %s", t, m->sc->fmus[f].name,
			            var_of(m->sc, m->sig[s])->name, vals[s],
			            m->sig_exchanged[s] ? "feeds a connection" : "is recorded");
	return 0;
}

/* Hermite: the first derivatives of FMU f's Real signals at t into dvals (by signal). */
static int read_derivatives(Master *m, int f, double t, double *dvals)
{
	FmuRun *fr = &m->f[f];
	int n = fr->nread[SART_REAL], s0 = fr->read_base[SART_REAL];
	if (!ok(sart_inner_get_real_output_derivatives(fr->in, fr->read_vr[SART_REAL], (size_t)n,
	                                               fr->order1, dvals + s0)))
		return fail_call(m, f, t);
	for (int s = s0; s < s0 + n; s++)
		if (!isfinite(dvals[s]))
			return fail(m, "at t = %.17g: the derivative of %s.%s is %g", t,
			            m->sc->fmus[f].name, var_of(m->sc, m->sig[s])->name, dvals[s]);
	return 0;
}

/* Reads FMU f's signals into vals; a NaN or infinity (on a connection or recorded) is an
 * error: the step that produced it is not accepted.  Reals are got straight into vals. */
static int read_signals(Master *m, int f, double t, double *vals)
{
	FmuRun *fr = &m->f[f];
	int n = fr->nread[SART_REAL];
	if (n > 0) {
		double *v = vals + fr->read_base[SART_REAL];
		int bad = 0;
		if (!ok(sart_inner_get_real(fr->in, fr->read_vr[SART_REAL], (size_t)n, v)))
			return fail_call(m, f, t);
		for (int k = 0; k < n; k++)
			bad |= !isfinite(v[k]);
		if (bad)
			return nonfinite_signal(m, f, t, vals, fr->read_base[SART_REAL], n);
		if (fr->derivs && read_derivatives(m, f, t, vals == m->now ? m->dnow : m->dnext))
			return 1;
	}
	if (!fr->has_other)
		return 0;
	for (int ty = SART_INTEGER; ty <= SART_BOOLEAN; ty++) {
		n = fr->nread[ty];
		if (n == 0)
			continue;
		if (!ok(get_values(fr->in, (SartType)ty, fr->read_vr[ty], (size_t)n, fr->rbuf,
		                   fr->ibuf)))
			return fail_call(m, f, t);
		for (int k = 0; k < n; k++)
			vals[fr->read_base[ty] + k] = (double)fr->ibuf[k];
	}
	return 0;
}

/* The value an input gets at t_n, its slope over the step and (quadratic, to an FMU that
 * takes second derivatives) its second derivative (see sart_master.h). */
static void input_for(Master *m, int c, int pass, double h, int interp, double *val,
                      double *slope, double *curv)
{
	const SartConnection *cn = &m->sc->conns[c];
	int s = m->conn_sig[c];
	int fresh = !m->an->delayed[cn->dst.fmu] &&
	            (pass > 0 || (m->o->algorithm == SART_GAUSS_SEIDEL && m->f[cn->src.fmu].stepped));
	double v = m->now[s], d = 0, d2 = 0;
	if (fresh) {
		/* linear from the value at t_n to the end value of this pass or the last one */
		if (interp)
			d = (m->next[s] - m->now[s]) / h;
		else
			v = m->next[s];
	} else if (interp && m->o->approx == SART_HERMITE && m->f[cn->src.fmu].derivs) {
		/* y(t_n) + y'(t_n) (t - t_n), from the source's own derivative */
		d = m->dnow[s];
	} else if (interp && m->o->approx == SART_QUADRATIC && m->have_prev2) {
		/* the parabola through the last three communication points (Newton's divided
		 * differences): p(t) = y_n + d1 (t - t_n) + dd (t - t_n) (t - t_n-1) */
		double h1 = m->t_prev_span, h2 = m->t_prev2_span;
		double d1 = (m->now[s] - m->prev[s]) / h1, d0 = (m->prev[s] - m->prev2[s]) / h2;
		double dd = (d1 - d0) / (h1 + h2);
		if (m->f[cn->dst.fmu].takes_order2) {
			d = d1 + dd * h1; /* p'(t_n) */
			d2 = 2 * dd;
		} else {
			d = d1 + dd * (h + h1); /* the chord to p(t_n + h) */
		}
	} else if (interp && m->o->approx != SART_HOLD && m->have_prev) {
		/* linear extrapolation from the last two communication points (and the fallback
		 * of quadratic with a short history, of Hermite without source derivatives) */
		d = (m->now[s] - m->prev[s]) / (m->t_prev_span);
	}
	*val = cn->scale * v + cn->offset;
	*slope = cn->scale * d;
	*curv = cn->scale * d2;
}

/* An input that would be NaN or infinite: the error, naming it and its source. */
static int bad_input(Master *m, int f, int c, double t, double v, double d)
{
	const SartConnection *cn = &m->sc->conns[c];
	return fail(m, "at t = %.17g: the input %s.%s would be %g (slope %g), fed by %s.%s", t,
	            m->sc->fmus[f].name, var_of(m->sc, cn->dst)->name, v, d,
	            m->sc->fmus[cn->src.fmu].name, var_of(m->sc, cn->src)->name);
}

static int set_inputs(Master *m, int f, int pass, double t, double h)
{
	FmuRun *fr = &m->f[f];
	int n = fr->nset[SART_REAL];
	if (n > 0) {
		const int *conn = fr->set_conn[SART_REAL];
		double *v = fr->rbuf;
		int interp = fr->interpolates && m->derivatives, curved = 0;
		/* (held Real inputs of a first Jacobi pass with nothing else to do go through
		 * plain_pass's flat table instead) */
		for (int k = 0; k < n; k++) {
			double d, d2;
			input_for(m, conn[k], pass, h, interp, &v[k], &d, &d2);
			if (!isfinite(v[k]) || !isfinite(d) || !isfinite(d2))
				return bad_input(m, f, conn[k], t, v[k], d);
			fr->dval[k] = d;
			fr->d2val[k] = d2;
			curved |= d2 != 0;
			m->pred[conn[k]] = interp ? v[k] + d * h + d2 * h * h / 2 : v[k];
		}
		if (!ok(sart_inner_set_real(fr->in, fr->set_vr[SART_REAL], (size_t)n, v)))
			return fail_call(m, f, t);
		if (interp && !ok(sart_inner_set_real_input_derivatives(fr->in, fr->set_vr[SART_REAL],
		                                                        (size_t)n, fr->order1,
		                                                        fr->dval)))
			return fail_call(m, f, t);
		if (curved && !ok(sart_inner_set_real_input_derivatives(fr->in, fr->set_vr[SART_REAL],
		                                                        (size_t)n, fr->order2,
		                                                        fr->d2val)))
			return fail_call(m, f, t);
	}
	if (!fr->has_other)
		return 0;
	for (int ty = SART_INTEGER; ty <= SART_BOOLEAN; ty++) {
		n = fr->nset[ty];
		if (n == 0)
			continue;
		for (int k = 0; k < n; k++) {
			int c = fr->set_conn[ty][k];
			double v, d, d2;
			input_for(m, c, pass, h, 0, &v, &d, &d2);
			if (!isfinite(v))
				return bad_input(m, f, c, t, v, d);
			fr->ibuf[k] = to_int((SartType)ty, v);
			m->pred[c] = v;
		}
		if (!ok(set_values(fr->in, (SartType)ty, fr->set_vr[ty], (size_t)n, fr->rbuf,
		                   fr->ibuf)))
			return fail_call(m, f, t);
	}
	return 0;
}

/* What FMU f's doStep from t by h returning st means.  Returns 0 (stepped), 1 (discarded:
 * *reached is where it stands, r) or -1 (failed, reported). */
static int step_outcome(Master *m, int f, double t, SartStatus st, double r, double *reached)
{
	if (ok(st))
		return 0;
	if (st == SART_DISCARD) {
		*reached = r;
		if (m->discard_fmu < 0 || r < m->discard_at) {
			m->discard_fmu = f;
			m->discard_at = r;
		}
		if (m->o->no_rollback) {
			fail(m, "%s discarded the step from t = %.17g at t = %.17g; redoing it shorter "
			     "needs the FMUs' states saved before each step, and the run was told to "
			     "save none (no rollback)", m->sc->fmus[f].name, t, r);
			return -1;
		}
		if (!m->can_rollback) {
			fail(m, "%s discarded the step from t = %.17g at t = %.17g; redoing it shorter "
			     "needs every FMU to get and set its state, and %s cannot",
			     m->sc->fmus[f].name, t, r, m->sc->fmus[stateless_fmu(m->sc)].name);
			return -1;
		}
		return 1;
	}
	fail_call(m, f, t);
	return -1;
}

/* Steps FMU f from t by h.  Returns 0 (stepped), 1 (discarded: *reached is where it
 * stands) or -1 (failed, reported). */
static int step_one(Master *m, int f, double t, double h, double *reached)
{
	double r = t + h;
	if (m->o->on_step)
		m->o->on_step(m->o->step_env, f, t, h, 0);
	SartStatus st = sart_inner_do_step(m->f[f].in, t, h, 1, &r);
	if (m->o->on_step)
		m->o->on_step(m->o->step_env, f, t, h, 1);
	return step_outcome(m, f, t, st, r, reached);
}

/* ---- algebraic loops ------------------------------------------------------------------------ */

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
		return fail(m, "out of memory");
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
			return fail(m, "internal error: algebraic loop %d is not acyclic once torn",
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
		return fail(m, "out of memory");
	return 0;
}

static void free_loop(Loop *L)
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
static int prepare_loops(Master *m)
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
		fail(m, "out of memory");
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
			fail(m, "algebraic loop %d (%s) has Integer or Boolean tear variables: only "
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
			                           : cn->scale * m->pval[m->conn_src_port[c]] + cn->offset;
			iv = to_int(var->type, val);
			if (var->type != SART_REAL)
				val = iv;
			if (!ok(set_values(in, var->type, &var->vr, 1, &val, &iv)))
				return fail_call(m, r.fmu, t) ? -1 : -1;
		} else {
			if (!ok(get_values(in, var->type, &var->vr, 1, &val, &iv)))
				return fail_call(m, r.fmu, t) ? -1 : -1;
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
		g[i] = cn->scale * m->pval[m->conn_src_port[L->tear[i]]] + cn->offset;
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
		snprintf(what, sizeof what, "diverged under %s after %d iterations: %s.%s became %g",
		         solver_name(m->o->loop_solver), iterations, sc->fmus[m->an->ports[bad].fmu].name,
		         var_of(sc, m->an->ports[bad])->name, m->pval[bad]);
	else
		snprintf(what, sizeof what, "diverged under %s after %d iterations (|G(x) - x| = %.3g)",
		         solver_name(m->o->loop_solver), iterations, absres);
	return fail(m, "at t = %.17g%s: algebraic loop %d (%s) %s; tear variables: %s", t,
	            init ? " (initialization)" : "", L->index + 1, vars, what, tears);
}

/* Solves loop L at time t: on return the loop's FMUs hold inputs and outputs of the
 * converged pass.  The first guess is the last solution, or at initialization the tear
 * inputs' own values (their start values, or what --set gave).  Returns 0, or 1 with the
 * failure reported. */
static int solve_loop(Master *m, Loop *L, double t, int init)
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
				return fail_call(m, d.fmu, t);
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
static int solve_and_read(Master *m, Loop *L, double t, double *vals)
{
	if (solve_loop(m, L, t, 0))
		return 1;
	for (int i = 0; i < L->nfmus; i++)
		if (read_signals(m, L->fmus[i], t, vals))
			return 1;
	return 0;
}

/* The first pass of a Jacobi step when nothing else is needed (m->plain: every input
 * held and Real, no input derivatives, no algebraic loop, no Integer or Boolean signal):
 * per FMU one set, one doStep and one get straight from and into the signal arrays, with
 * nothing looked up.  This is the path MASTER.md's benchmark 3 measures (bench/master).
 * Anything but SART_OK goes to the general functions, which report it. */
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
				return bad_input(m, m->sc->conns[c].dst.fmu, c, t, buf[i], 0) ? -1 : -1;
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
			return fail_call(m, (int)(fr - first), t) ? -1 : -1;
	}
	int watched = m->o->on_step != NULL;
	for (FmuRun *fr = first; fr < end; fr++) {
		double r, reached;
		int outcome;
		if (watched) {
			outcome = step_one(m, (int)(fr - first), t, h, &reached);
		} else {
			st = sart_inner_do_step(fr->in, t, h, 1, &r);
			if (st == SART_OK)
				continue;
			outcome = step_outcome(m, (int)(fr - first), t, st, r, &reached);
		}
		if (outcome < 0)
			return -1;
		if (outcome > 0) {
			if (!discarded || reached < *short_end)
				*short_end = reached;
			discarded = 1;
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
			return fail_call(m, (int)(fr - first), t + h) ? -1 : -1;
	}
	/* a NaN or infinity makes the sum one; so may an overflow of finite values, which the
	 * scan then clears */
	double sum = 0;
	for (int sg = 0; sg < nsig; sg++)
		sum += next[sg];
	if (!isfinite(sum))
		for (int sg = 0; sg < nsig; sg++)
			if (!isfinite(next[sg]))
				return nonfinite_signal(m, m->sig[sg].fmu, t + h, next, sg, 1) ? -1 : -1;
	return 0;
}

/* One pass over the macro step.  Returns 0, 1 (some FMU discarded; *short_end is the
 * smallest time reached) or -1 (failed). */
static int run_pass(Master *m, int pass, double t, double h, double *short_end)
{
	const SartScenario *sc = m->sc;
	int discarded = 0;
	if (pass == 0 && m->plain)
		return plain_pass(m, m->f, m->f + sc->nfmus, m->now, m->next, t, h, short_end);
	if (m->o->algorithm == SART_JACOBI) {
		for (int f = 0; f < sc->nfmus; f++)
			if (set_inputs(m, f, pass, t, h))
				return -1;
		for (int f = 0; f < sc->nfmus; f++) {
			double r;
			int st = step_one(m, f, t, h, &r);
			if (st < 0)
				return -1;
			if (st > 0 && (!discarded || r < *short_end))
				*short_end = r;
			discarded |= st > 0;
		}
		if (discarded)
			return 1;
		for (int f = 0; f < sc->nfmus; f++)
			if (read_signals(m, f, t + h, m->next))
				return -1;
		for (int i = 0; i < m->nloops; i++)
			if (solve_and_read(m, &m->loops[i], t + h, m->next))
				return -1;
		return 0;
	}
	for (int f = 0; f < sc->nfmus; f++)
		m->f[f].stepped = 0;
	for (int k = 0; k < sc->nfmus; k++) {
		int f = m->an->fmu_order[k];
		double r;
		if (set_inputs(m, f, pass, t, h))
			return -1;
		int st = step_one(m, f, t, h, &r);
		if (st < 0)
			return -1;
		if (st > 0) {
			*short_end = r;
			return 1;
		}
		if (read_signals(m, f, t + h, m->next))
			return -1;
		m->f[f].stepped = 1;
		/* a loop is solved once all of its FMUs have stepped, before those it feeds */
		for (int i = 0; i < m->nloops; i++)
			if (m->loops[i].last_pos == k && solve_and_read(m, &m->loops[i], t + h, m->next))
				return -1;
	}
	return 0;
}

static int snapshot_all(Master *m, double t)
{
	for (int f = 0; f < m->sc->nfmus; f++)
		if (!ok(sart_inner_get_state(m->f[f].in, &m->f[f].snap)))
			return fail_call(m, f, t);
	return 0;
}

static int restore_all(Master *m, double t)
{
	m->res->rollbacks++;
	for (int f = 0; f < m->sc->nfmus; f++)
		if (!ok(sart_inner_set_state(m->f[f].in, m->f[f].snap)))
			return fail_call(m, f, t);
	return 0;
}

/* Every pass over one step from t by h.  Returns 0, 1 (an FMU discarded: *short_end is
 * the smallest time reached) or -1 (failed, reported). */
static int all_passes(Master *m, double t, double h, double *short_end)
{
	int st = 0;
	for (int pass = 0; pass <= m->o->iterations && st == 0; pass++) {
		if (pass > 0) {
			m->res->iterations++;
			if (restore_all(m, t))
				return -1;
		}
		st = run_pass(m, pass, t, h, short_end);
	}
	return st;
}

double sart_step_propose(double h, double err, double tol, int p, double safety,
                         double shrink, double grow)
{
	if (isnan(err))
		return h * shrink;
	if (!(err > 0))
		return h * grow;
	double f = safety * pow(tol / err, 1.0 / (p + 1));
	if (!(f >= shrink)) /* NaN too */
		f = shrink;
	if (f > grow)
		f = grow;
	return h * f;
}

/* The error measure of sart_master.h between two values of a connection. */
static double deviation(double a, double b)
{
	return fabs(a - b) / (fabs(b) > 1 ? fabs(b) : 1);
}

static void swap_arrays(double **a, double **b)
{
	double *tmp = *a;
	*a = *b;
	*b = tmp;
}

static int step_event(Master *m, double t, double *end);

/* One step with step-size control from t towards *end (the proposal, already clamped to
 * the bounds and the stop time): attempts, error estimates, rejections; on return *end
 * is where the accepted step ended. */
static int controlled_step(Master *m, double t, double *end)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	int p = o->approx == SART_QUADRATIC ? 3 : o->approx == SART_HOLD ? 1 : 2;
	int doubling = o->step_control == SART_STEP_DOUBLING;
	size_t bytes = (size_t)m->nsig * sizeof *m->now;
	double h = *end - t;
	if (snapshot_all(m, t))
		return 1;
	int have_prev = m->have_prev;
	double span = m->t_prev_span;
	for (int attempt = 0;; attempt++) {
		double short_end = t + h, err = 0;
		if (!(h > 0))
			return stuck(m, t);
		m->discard_fmu = -1;
		if (attempt > 1000)
			return fail(m, "at t = %.17g: the step was rejected %d times", t, attempt);
		int st = all_passes(m, t, h, &short_end);
		if (st == 0 && doubling) {
			memcpy(m->yfull, m->next, bytes);
			memcpy(m->save_now, m->now, bytes);
			memcpy(m->save_prev, m->prev, bytes);
			if (restore_all(m, t))
				return 1;
			st = all_passes(m, t, h / 2, &short_end);
			if (st == 0) {
				/* t + H/2 becomes a communication point the second half extrapolates from */
				swap_arrays(&m->prev, &m->now);
				swap_arrays(&m->now, &m->next);
				memcpy(m->next, m->now, bytes);
				m->t_prev_span = h / 2;
				m->have_prev = 1;
				st = all_passes(m, t + h / 2, h / 2, &short_end);
			}
			for (int c = 0; st == 0 && c < sc->nconns; c++) {
				int sg = m->conn_sig[c];
				double d = deviation(m->yfull[sg], m->next[sg]);
				err = d > err || isnan(d) ? d : err;
			}
		} else if (st == 0) {
			for (int c = 0; c < sc->nconns; c++) {
				const SartConnection *cn = &sc->conns[c];
				double d = deviation(m->pred[c],
				                     cn->scale * m->next[m->conn_sig[c]] + cn->offset);
				err = d > err || isnan(d) ? d : err;
			}
		}
		if (st < 0)
			return 1;
		int small = h <= m->min_step * (1 + 1e-9);
		if (st == 0 && (err <= m->tol || small)) {
			m->res->forced += err > m->tol;
			*end = t + h;
			m->last_span = doubling ? h / 2 : h;
			m->h_next = sart_step_propose(h, err, m->tol, p, m->safety, m->shrink, m->grow);
			if (m->ind_sig >= 0 && !doubling) {
				/* event location (prediction control only: doubling has moved t_n's
				 * signals); the steps of the search are shorter than the accepted one */
				int ev = step_event(m, t, end);
				if (ev < 0)
					return 1;
				if (ev > 0)
					m->last_span = *end - t;
			}
			return 0;
		}
		/* rejected: every FMU and every signal back to t_n */
		m->res->rejected++;
		if (restore_all(m, t))
			return 1;
		if (doubling) {
			memcpy(m->now, m->save_now, bytes);
			memcpy(m->prev, m->save_prev, bytes);
			m->have_prev = have_prev;
			m->t_prev_span = span;
		}
		if (st == 1)
			h = short_end - t;
		else
			h = sart_step_propose(h, err, m->tol, p, m->safety, m->shrink, m->grow);
		if (h < m->min_step && st == 0)
			h = m->min_step;
	}
}

/* The state probe of every FMU (sart_probe_state), once per run, before the first
 * rollback: an FMU whose fmi2SetFMUstate is shown not to restore its state is refused,
 * since every rolled-back step would silently be wrong.  An inconclusive probe (a call
 * before the restore failed) passes: the run itself reports such a call. */
static int probe_all(Master *m, const char *why)
{
	char msg[768];
	if (m->probed)
		return 0;
	m->probed = 1;
	for (int f = 0; f < m->sc->nfmus; f++)
		if (sart_probe_state(m->sc, f, m->o->start, m->o->step, m->o->on_step,
		                     m->o->step_env, msg, sizeof msg) == 1)
			return fail(m, "%s claims canGetAndSetFMUstate, but its state cannot be "
			            "restored (state probe: %s); %s", m->sc->fmus[f].name, msg, why);
	return 0;
}

/* Every FMU from t towards *end (from the saved states when it is redone); on return *end
 * is where the step ended, shorter when an FMU discarded. */
static int attempt_step(Master *m, double t, double *end)
{
	for (int attempt = 0;; attempt++) {
		double h = *end - t, short_end = *end;
		if (!(h > 0))
			return stuck(m, t);
		m->discard_fmu = -1;
		if (attempt > 100)
			return fail(m, "at t = %.17g: the step was rejected %d times", t, attempt);
		int st = all_passes(m, t, h, &short_end);
		if (st < 0)
			return 1;
		if (st == 0)
			return 0;
		/* rejected: every FMU back to t_n, redo with H := the smallest step taken */
		m->res->rejected++;
		if (probe_all(m, "redoing a discarded step shorter needs it"))
			return 1;
		if (restore_all(m, t))
			return 1;
		*end = short_end;
	}
}

/* Whether the indicator's sign changed from z0 to z1 (a zero at z1 is the crossing itself;
 * a zero at z0 was the last one, located already). */
static int crossed(double z0, double z1)
{
	return (z0 < 0 && z1 >= 0) || (z0 > 0 && z1 <= 0);
}

/* Event location over the step from t to *end, whose end value z1 of the indicator has
 * another sign than its value z0 at t: regula falsi on the step size with the Illinois
 * modification (the end kept twice in a row has its value halved), each trial a step from
 * t after every FMU was restored, each trial at least tol/2 inside the bracket, until the
 * bracket [a, b] around the crossing is at most tol long.  The step accepted ends at b, the
 * first point known to lie after the crossing (or on it), and so within tol of it. */
static int locate_event(Master *m, double t, double z0, double z1, double *end)
{
	double tol = m->event_tol;
	double a = 0, za = z0, b = *end - t, zb = z1;
	int side = 0, at_b = 1;
	for (int trial = 0; b - a > tol; trial++) {
		if (trial >= 200)
			return fail(m, "at t = %.17g: the crossing of %s.%s was not bracketed within "
			            "%g in %d trials (last bracket [%.17g, %.17g])", t,
			            m->sc->fmus[m->o->event_indicator.fmu].name,
			            var_of(m->sc, m->o->event_indicator)->name, tol, trial, t + a, t + b);
		double c = a - za * (b - a) / (zb - za);
		if (!(c > a && c < b))
			c = (a + b) / 2;
		if (c < a + tol / 2)
			c = a + tol / 2;
		if (c > b - tol / 2)
			c = b - tol / 2;
		double tc = t + c;
		m->res->event_trials++;
		if (restore_all(m, t) || attempt_step(m, t, &tc))
			return 1;
		c = tc - t; /* shorter if an FMU discarded */
		double zc = m->next[m->ind_sig];
		if (zc == 0) {
			b = c;
			at_b = 1;
			break;
		}
		if ((zc < 0) == (za < 0)) {
			/* no crossing before c: the bracket's start moves up */
			a = c;
			za = zc;
			if (side < 0)
				zb /= 2;
			side = -1;
			at_b = 0;
		} else {
			b = c;
			zb = zc;
			if (side > 0)
				za /= 2;
			side = 1;
			at_b = 1;
		}
	}
	if (!at_b) {
		double tb = t + b;
		m->res->event_trials++;
		if (restore_all(m, t) || attempt_step(m, t, &tb))
			return 1;
		b = tb - t;
	}
	m->res->events++;
	*end = t + b;
	return 0;
}

/* The event indicator over the step just taken from t to *end: an event when it ended on
 * the crossing; located (locate_event, *end moved just after the crossing) when the sign
 * changed.  Returns 0 (nothing located), 1 (located) or -1 (failed, reported). */
static int step_event(Master *m, double t, double *end)
{
	double z0 = m->now[m->ind_sig], z1 = m->next[m->ind_sig];
	if (z1 == 0 && z0 != 0) {
		m->res->events++; /* the step ended on the crossing */
		return 0;
	}
	if (!crossed(z0, z1))
		return 0;
	return locate_event(m, t, z0, z1, end) ? -1 : 1;
}

/* One macro step from t towards *end; on return *end is where it ended (shorter after a
 * rejection, or just after an event located in it). */
static int macro_step(Master *m, double t, double *end)
{
	if (m->snapshots && snapshot_all(m, t))
		return 1;
	m->last_span = 0;
	if (attempt_step(m, t, end))
		return 1;
	return m->ind_sig >= 0 && step_event(m, t, end) < 0;
}

/* Instantiation, start values, initialization with values propagated in the port graph's
 * topological order; then the signals at the start. */
static int initialize(Master *m)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	double t0 = o->start;
	for (int f = 0; f < sc->nfmus; f++) {
		const SartFmu *fm = &sc->fmus[f];
		SartInnerConfig cfg = {fm->name, fm->dir, fm->model_identifier, fm->version,
		                       fm->caps & SEAM_CAPS, master_log, m};
		if (!ok(sart_inner_load(&cfg, &m->f[f].in))) {
			flush_pending(m);
			return fail(m, "%s: cannot load the FMU", fm->name);
		}
	}
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_instantiate(m->f[f].in, sc->fmus[f].guid, o->logging_on)))
			return fail_call(m, f, t0);
	for (int i = 0; i < sc->nstarts; i++) {
		SartRef r = sc->starts[i].ref;
		if (!valid_ref(sc, r))
			return fail(m, "start value %d names a variable that does not exist", i + 1);
		const SartVar *v = var_of(sc, r);
		double x = sc->starts[i].value;
		int iv = to_int(v->type, x);
		if (v->type == SART_OTHER)
			return fail(m, "%s.%s: only Real, Integer and Boolean values can be set",
			            sc->fmus[r.fmu].name, v->name);
		if (!ok(set_values(m->f[r.fmu].in, v->type, &v->vr, 1, &x, &iv)))
			return fail_call(m, r.fmu, t0);
	}
	SartExperiment ex = {0, 0.0, t0, 1, o->stop};
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_enter_init(m->f[f].in, &ex)))
			return fail_call(m, f, t0);
	/* an algebraic loop is solved when its first port comes, before its consumers are set;
	 * connections inside it are then left as the solution set them */
	for (int k = 0; k < m->an->nports; k++) {
		int node = m->an->order[k];
		SartRef src = m->an->ports[node];
		const SartVar *sv = var_of(sc, src);
		for (int i = 0; i < m->nloops; i++)
			if (m->loops[i].comp == m->an->comp[node] && !m->loops[i].have_solution &&
			    solve_loop(m, &m->loops[i], t0, 1))
				return 1;
		double x = 0;
		int iv = 0, got = 0;
		for (int c = 0; c < sc->nconns; c++) {
			const SartConnection *cn = &sc->conns[c];
			if (cn->src.fmu != src.fmu || cn->src.var != src.var)
				continue;
			if (m->an->comp[m->conn_dst_port[c]] == m->an->comp[node])
				continue; /* inside a loop (a component with both ends is one) */
			if (!got) {
				if (!ok(get_values(m->f[src.fmu].in, sv->type, &sv->vr, 1, &x, &iv)))
					return fail_call(m, src.fmu, t0);
				if (sv->type != SART_REAL)
					x = iv;
				if (!isfinite(x))
					return fail(m, "at t = %.17g (initialization): %s.%s is %g, on a "
					            "connection", t0, sc->fmus[src.fmu].name, sv->name, x);
				got = 1;
			}
			const SartVar *dv = var_of(sc, cn->dst);
			double y = cn->scale * x + cn->offset;
			int jy = to_int(dv->type, y);
			if (!ok(set_values(m->f[cn->dst.fmu].in, dv->type, &dv->vr, 1, &y, &jy)))
				return fail_call(m, cn->dst.fmu, t0);
		}
	}
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_exit_init(m->f[f].in)))
			return fail_call(m, f, t0);
	for (int f = 0; f < sc->nfmus; f++)
		if (read_signals(m, f, t0, m->now))
			return 1;
	return 0;
}

static int emit_point(Master *m, double t)
{
	m->res->t = t;
	if (!m->o->on_point)
		return 0;
	for (int r = 0; r < m->sc->nrecords; r++)
		m->row[r] = m->now[m->rec_sig[r]];
	if (m->o->on_point(m->o->point_env, t, m->row, m->sc->nrecords))
		return fail(m, "at t = %.17g: the run was stopped by its caller", t);
	return 0;
}

static int check_options(Master *m)
{
	const SartMasterOptions *o = m->o;
	if (!isfinite(o->start) || !isfinite(o->stop) || !(o->stop >= o->start))
		return fail(m, "the stop time %g is before the start time %g", o->stop, o->start);
	if (!isfinite(o->step) || !(o->step > 0))
		return fail(m, "the step size %g is not positive", o->step);
	if (o->iterations < 0)
		return fail(m, "the number of iterations %d is negative", o->iterations);
	if ((int)o->approx < SART_HOLD || o->approx > SART_HERMITE)
		return fail(m, "unknown input approximation %d", (int)o->approx);
	if (o->step_control == SART_STEP_DOUBLING &&
	    (o->approx == SART_QUADRATIC || o->approx == SART_HERMITE))
		return fail(m, "step doubling works with hold and linear extrapolation only, not "
		            "with %s", o->approx == SART_QUADRATIC ? "quadratic" : "Hermite");
	if (m->sc->nfmus < 1)
		return fail(m, "the scenario has no FMU");
	if ((int)o->loop_solver < SART_LOOP_ANDERSON || o->loop_solver > SART_LOOP_NEWTON)
		return fail(m, "unknown loop solver %d", (int)o->loop_solver);
	if (o->anderson_memory < 0 || o->anderson_memory > 100)
		return fail(m, "the Anderson memory %d is not in 1..100", o->anderson_memory);
	if (!(o->loop_tolerance >= 0) || !isfinite(o->loop_tolerance))
		return fail(m, "the loop tolerance %g is not positive", o->loop_tolerance);
	if (o->loop_max_iterations < 0)
		return fail(m, "the loop iteration bound %d is negative", o->loop_max_iterations);
	if ((int)o->step_control < SART_STEP_FIXED || o->step_control > SART_STEP_PREDICTION)
		return fail(m, "unknown step control %d", (int)o->step_control);
	m->tol = o->tolerance > 0 ? o->tolerance : 1e-3;
	m->min_step = o->min_step > 0 ? o->min_step : 1e-6 * o->step;
	m->max_step = o->max_step > 0 ? o->max_step : o->stop - o->start;
	m->safety = o->safety > 0 ? o->safety : 0.9;
	m->shrink = o->shrink > 0 ? o->shrink : 0.2;
	m->grow = o->grow > 0 ? o->grow : 2;
	m->h_next = o->step;
	if (!(o->tolerance >= 0) || !isfinite(o->tolerance) || !(o->min_step >= 0) ||
	    !(o->max_step >= 0) || !isfinite(o->min_step) || !isfinite(o->max_step))
		return fail(m, "the tolerance and the step bounds must be positive numbers");
	if (o->step_control != SART_STEP_FIXED && m->max_step > 0 && m->min_step > m->max_step)
		return fail(m, "the minimum step %g exceeds the maximum step %g", m->min_step,
		            m->max_step);
	if (!(m->shrink <= 1) || !(m->grow >= 1) || !(m->safety <= 1) || !isfinite(m->grow))
		return fail(m, "the controller needs 0 < safety <= 1, 0 < shrink <= 1 <= grow");
	m->anderson_m = o->anderson_memory ? o->anderson_memory : 1;
	m->loop_tol = o->loop_tolerance > 0 ? o->loop_tolerance : 1e-10;
	m->loop_maxit = o->loop_max_iterations ? o->loop_max_iterations : 100;
	return 0;
}

/* ---- the state probe ------------------------------------------------------------------------ */

/* Reads every Real, Integer and Boolean output of in into v (nvars entries, NaN elsewhere). */
static SartStatus probe_outputs(SartInner *in, const SartFmu *fm, double *v)
{
	for (int i = 0; i < fm->nvars; i++) {
		const SartVar *x = &fm->vars[i];
		v[i] = NAN;
		if (x->causality != SART_CAUS_OUTPUT || x->type == SART_OTHER)
			continue;
		int iv = 0;
		SartStatus st = get_values(in, x->type, &x->vr, 1, &v[i], &iv);
		if (!ok(st))
			return st;
		if (x->type != SART_REAL)
			v[i] = iv;
	}
	return SART_OK;
}

static SartStatus probe_step(SartInner *in, int f, double t, double h,
                             void (*on_step)(void *, int, double, double, int), void *env)
{
	double r = t + h;
	if (on_step)
		on_step(env, f, t, h, 0);
	SartStatus st = sart_inner_do_step(in, t, h, 1, &r);
	if (on_step)
		on_step(env, f, t, h, 1);
	return st;
}

int sart_probe_state(const SartScenario *sc, int f, double start, double h,
                     void (*on_step)(void *env, int fmu, double t, double h, int done),
                     void *step_env, char *msg, size_t size)
{
	const SartFmu *fm = &sc->fmus[f];
	SartInner *in = NULL;
	void *snap = NULL;
	double *a = calloc((size_t)fm->nvars + 1, sizeof *a);
	double *b = calloc((size_t)fm->nvars + 1, sizeof *b);
	double *a1 = calloc((size_t)fm->nvars + 1, sizeof *a1);
	double t1 = start + h, t2 = t1 + h;
	int rc = -1, compared = 0;
	if (!(fm->caps & SART_CAP_GET_SET_STATE)) {
		put(msg, size, "%s does not claim canGetAndSetFMUstate", fm->name);
		goto done;
	}
	if (!a || !b || !a1) {
		put(msg, size, "out of memory");
		goto done;
	}
	SartInnerConfig cfg = {fm->name, fm->dir, fm->model_identifier, fm->version,
	                       fm->caps & SEAM_CAPS,
	                       NULL, NULL};
	if (!ok(sart_inner_load(&cfg, &in))) {
		put(msg, size, "%s: cannot load the FMU", fm->name);
		goto done;
	}
	if (!ok(sart_inner_instantiate(in, fm->guid, 0)))
		goto call_failed;
	for (int i = 0; i < sc->nstarts; i++) {
		SartRef r = sc->starts[i].ref;
		if (r.fmu != f || !valid_ref(sc, r) || var_of(sc, r)->type == SART_OTHER)
			continue;
		const SartVar *v = var_of(sc, r);
		double x = sc->starts[i].value;
		int iv = to_int(v->type, x);
		if (!ok(set_values(in, v->type, &v->vr, 1, &x, &iv)))
			goto call_failed;
	}
	SartExperiment ex = {0, 0.0, start, 0, 0.0};
	if (!ok(sart_inner_enter_init(in, &ex)) || !ok(sart_inner_exit_init(in)))
		goto call_failed;
	if (!ok(probe_step(in, f, start, h, on_step, step_env)) ||
	    !ok(sart_inner_get_state(in, &snap)) || !ok(probe_outputs(in, fm, a1)) ||
	    !ok(probe_step(in, f, t1, h, on_step, step_env)) || !ok(probe_outputs(in, fm, a)))
		goto call_failed;
	rc = 1;
	if (!ok(sart_inner_set_state(in, snap)) || !ok(probe_outputs(in, fm, b)))
		goto call_failed;
	compared = 1;
	for (int i = 0; i < fm->nvars; i++) {
		if (memcmp(&a1[i], &b[i], sizeof a1[i]) == 0)
			continue;
		put(msg, size, "%s.%s is %.17g at t = %.17g when its state is got, but %.17g once "
		    "that state is set again (at t = %.17g): fmi2SetFMUstate did not restore it",
		    fm->name, fm->vars[i].name, a1[i], t1, b[i], t2);
		goto done;
	}
	compared = 0;
	if (!ok(probe_step(in, f, t1, h, on_step, step_env)) || !ok(probe_outputs(in, fm, b)))
		goto call_failed;
	compared = 1;
	for (int i = 0; i < fm->nvars; i++) {
		if (memcmp(&a[i], &b[i], sizeof a[i]) == 0)
			continue;
		put(msg, size, "%s.%s is %.17g at t = %.17g, but %.17g after its state at t = %.17g "
		    "was set and the step to t = %.17g redone: fmi2SetFMUstate did not restore the "
		    "state", fm->name, fm->vars[i].name, a[i], t2, b[i], t1, t2);
		goto done;
	}
	rc = 0;
	put(msg, size, "state restore works: %s's outputs at t = %.17g are the same bit for bit "
	    "after its state at t = %.17g was set and the step redone", fm->name, t2, t1);
	goto done;
call_failed:
	put(msg, size, "%s%s%s", rc == 1 ? "after its state was set: " : "", sart_inner_message(in),
	    rc == 1 ? "" : " (the probe is inconclusive)");
done:
	if (snap)
		sart_inner_free_state(in, &snap);
	if (in && compared)
		sart_inner_terminate(in);
	sart_inner_free(in);
	free(a);
	free(b);
	free(a1);
	return rc;
}

/* The whole run when nothing can happen but plain passes on the grid (m->plain, no state
 * saved, no event location, no iterations, fixed steps): a discard cannot be redone then
 * (step_outcome reports it), so every step either lands on start + k step or fails, and
 * nothing reads the history but the signals at t_n.  The loop of sart_master_run with
 * everything else left out: MASTER.md's benchmark 3 measures it.  *t is where it stopped
 * (o->stop, or untouched when the run does not qualify); returns 1 on failure. */
static int fast_run(Master *m, double *t)
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
			        * without get/set state) step_outcome reports a discard itself */
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
			if (emit_point(m, tn)) {
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

int sart_master_run(const SartScenario *sc, const SartMasterOptions *o, SartMasterResult *res)
{
	char err[512];
	Master mm;
	Master *m = &mm;
	memset(m, 0, sizeof *m);
	memset(res, 0, sizeof *res);
	m->sc = sc;
	m->o = o;
	m->res = res;
	m->discard_fmu = -1;
	res->t = o->start;

	if (check_options(m))
		goto done;
	if (sart_analyse(sc, &m->an, err, sizeof err)) {
		fail(m, "%s", err);
		goto done;
	}
	int stateless = stateless_fmu(sc);
	m->can_rollback = stateless < 0;
	if (o->step_control != SART_STEP_FIXED && stateless >= 0) {
		fail(m, "step-size control rejects steps by rolling every FMU back, and %s cannot "
		     "get and set its state", sc->fmus[stateless].name);
		goto done;
	}
	if (o->iterations > 0 && stateless >= 0) {
		fail(m, "iterations roll every FMU back to the step's start, and %s cannot get and "
		     "set its state", sc->fmus[stateless].name);
		goto done;
	}
	if (o->no_rollback && (o->iterations > 0 || o->step_control != SART_STEP_FIXED)) {
		fail(m, "with no rollback there is no state to go back to, and %s roll%s every FMU "
		     "back",
		     o->iterations > 0 ? "iterations" : "step-size control",
		     o->iterations > 0 ? "" : "s");
		goto done;
	}
	if (o->locate_events) {
		SartRef z = o->event_indicator;
		const SartVar *zv = valid_ref(sc, z) ? var_of(sc, z) : NULL;
		if (!zv) {
			fail(m, "the event indicator (FMU %d, variable %d) does not exist", z.fmu + 1,
			     z.var + 1);
			goto done;
		}
		if (zv->causality != SART_CAUS_OUTPUT ||
		    (zv->type != SART_REAL && zv->type != SART_INTEGER)) {
			fail(m, "the event indicator %s.%s must be a Real or Integer output",
			     sc->fmus[z.fmu].name, zv->name);
			goto done;
		}
		if (!isfinite(o->event_tolerance) || o->event_tolerance < 0) {
			fail(m, "the event tolerance %g is not a positive number", o->event_tolerance);
			goto done;
		}
		if (o->step_control == SART_STEP_DOUBLING || o->no_rollback) {
			fail(m, "event location needs the states saved and does not work with %s",
			     o->no_rollback ? "no rollback" : "step doubling");
			goto done;
		}
		if (stateless >= 0) {
			fail(m, "event location on %s.%s redoes the step across the crossing shorter "
			     "from every FMU's state at its start, and %s cannot get and set its state",
			     sc->fmus[z.fmu].name, zv->name, sc->fmus[stateless].name);
			goto done;
		}
		m->event_tol = o->event_tolerance > 0 ? o->event_tolerance : 1e-6 * o->step;
		if (probe_all(m, "event location rolls every FMU back to the step's start"))
			goto done;
	}
	m->want_pred = o->step_control == SART_STEP_PREDICTION;
	m->snapshots = m->can_rollback && !o->no_rollback;
	m->derivatives = o->approx != SART_HOLD || o->algorithm == SART_GAUSS_SEIDEL ||
	                 o->iterations > 0;
	if (o->iterations > 0 && probe_all(m, "iterations roll every FMU back to the step's "
	                                   "start"))
		goto done;
	if (o->step_control != SART_STEP_FIXED &&
	    probe_all(m, "step-size control rejects steps by rolling every FMU back"))
		goto done;
	if (prepare(m) || prepare_loops(m))
		goto done;
	m->plain = o->algorithm == SART_JACOBI && !m->derivatives && m->nloops == 0;
	for (int f = 0; f < sc->nfmus; f++)
		m->plain &= !m->f[f].has_other;
	if (initialize(m) || emit_point(m, o->start))
		goto done;

	/* Communication points start + k H.  After a step shortened by a rejection the next
	 * one aims back at the grid: the first start + k H beyond where it ended (a gap under
	 * 1e-9 H joins the following step), so that events on the grid are seen on time.
	 * The last step ends exactly on stop (a remainder under 1e-9 H joins it). */
	double t = o->start;
	long k = 0;
	if (fast_run(m, &t))
		goto done;
	while (t < o->stop) {
		double end, planned;
		if (o->step_control != SART_STEP_FIXED) {
			/* the controller's step, within the bounds, landing on the stop time */
			double h = m->h_next < m->max_step ? m->h_next : m->max_step;
			h = h > m->min_step ? h : m->min_step;
			end = t + h >= o->stop - 1e-9 * h ? o->stop : t + h;
			planned = end;
			if (controlled_step(m, t, &end))
				goto done;
		} else {
			end = o->start + (double)(k + 1) * o->step;
			if (end >= o->stop - 1e-9 * o->step)
				end = o->stop;
			planned = end;
			if (macro_step(m, t, &end))
				goto done;
		}
		if (end < planned) {
			double kk = floor((end - o->start) / o->step);
			k = kk > 0 ? (long)kk : 0;
			while (o->start + (double)(k + 1) * o->step <= end + 1e-9 * o->step)
				k++;
		} else {
			k++;
		}
		double *tmp = m->prev2;
		m->prev2 = m->prev;
		m->prev = m->now;
		m->now = m->next;
		m->next = tmp; /* every pass reads every signal before any is used */
		tmp = m->dnow;
		m->dnow = m->dnext;
		m->dnext = tmp;
		m->t_prev2_span = m->t_prev_span;
		m->have_prev2 = m->have_prev;
		m->t_prev_span = m->last_span > 0 ? m->last_span : end - t;
		m->have_prev = 1;
		if (res->accepted == 0 || end - t < res->h_min)
			res->h_min = end - t;
		if (end - t > res->h_max)
			res->h_max = end - t;
		t = end;
		res->accepted++;
		if (emit_point(m, t))
			goto done;
	}
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_terminate(m->f[f].in))) {
			fail_call(m, f, t);
			goto done;
		}
done:
	flush_pending(m);
	for (int f = 0; m->f && f < sc->nfmus; f++) {
		FmuRun *fr = &m->f[f];
		if (fr->snap)
			sart_inner_free_state(fr->in, &fr->snap);
		sart_inner_free(fr->in);
		for (int ty = 0; ty < NTYPES; ty++) {
			free(fr->read_vr[ty]);
			free(fr->set_vr[ty]);
			free(fr->set_conn[ty]);
			free(fr->set_sig[ty]);
			free(fr->set_scale[ty]);
			free(fr->set_offset[ty]);
		}
		free(fr->order1);
		free(fr->order2);
		free(fr->dval);
		free(fr->d2val);
		free(fr->rbuf);
		free(fr->ibuf);
	}
	for (int i = 0; m->loops && i < m->nloops; i++)
		free_loop(&m->loops[i]);
	free(m->loops);
	free(m->port_conn);
	free(m->conn_src_port);
	free(m->conn_dst_port);
	free(m->conn_tear);
	free(m->pval);
	free(m->pred);
	free(m->plain_src);
	free(m->plain_conn);
	free(m->plain_scale);
	free(m->plain_offset);
	free(m->plain_buf);
	free(m->yfull);
	free(m->save_now);
	free(m->save_prev);
	free(m->adj_first);
	free(m->adj_edge);
	free(m->f);
	free(m->sig);
	free(m->sig_exchanged);
	free(m->prev);
	free(m->prev2);
	free(m->dnow);
	free(m->dnext);
	free(m->now);
	free(m->next);
	free(m->conn_sig);
	free(m->rec_sig);
	free(m->row);
	sart_analysis_free(m->an);
	return m->failed ? 1 : 0;
}
