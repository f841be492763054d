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
	free(a);
}

int sart_analyse(const SartScenario *sc, SartAnalysis **out, char *err, size_t errsize)
{
	int rc = -1;
	SartAnalysis *a = calloc(1, sizeof *a);
	int *base = calloc((size_t)sc->nfmus + 1, sizeof *base);
	int *node_of = NULL, *fed = NULL, *size = NULL, *ffrom = NULL, *fto = NULL;
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
	/* slice: loop solvers take these components as their tear sets' scope */
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

/* What the master keeps per FMU. */
typedef struct FmuRun {
	SartInner *in;
	void *snap;           /* its state at t_n, when every FMU can roll back */
	int interpolates;     /* canInterpolateInputs */
	int stepped;          /* in the current pass (Gauss-Seidel) */
	/* signals read after a step, per type */
	int nread[NTYPES];
	SartVr *read_vr[NTYPES];
	int *read_sig[NTYPES];
	/* connections into it, per type of the input */
	int nset[NTYPES];
	SartVr *set_vr[NTYPES];
	int *set_conn[NTYPES];
	int *order1;          /* derivative orders (all 1), nset[SART_REAL] of them */
	double *dval;         /* input derivatives */
	double *rbuf;         /* Real values to set or read */
	int *ibuf;            /* Integer and Boolean values */
	size_t nbuf;
} FmuRun;

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
	int *conn_sig;
	int *rec_sig;
	double *row;
	int can_rollback;     /* every FMU can get and set its state */
	int derivatives;      /* this run gives input derivatives to FMUs that take them */
	int failed;
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
	int maxsig = sc->nconns + sc->nrecords;
	m->f = calloc((size_t)sc->nfmus + 1, sizeof *m->f);
	m->sig = malloc(((size_t)maxsig + 1) * sizeof *m->sig);
	m->sig_exchanged = calloc((size_t)maxsig + 1, sizeof *m->sig_exchanged);
	m->prev = calloc((size_t)maxsig + 1, sizeof *m->prev);
	m->now = calloc((size_t)maxsig + 1, sizeof *m->now);
	m->next = calloc((size_t)maxsig + 1, sizeof *m->next);
	m->conn_sig = malloc(((size_t)sc->nconns + 1) * sizeof *m->conn_sig);
	m->rec_sig = malloc(((size_t)sc->nrecords + 1) * sizeof *m->rec_sig);
	m->row = calloc((size_t)sc->nrecords + 1, sizeof *m->row);
	if (!m->f || !m->sig || !m->sig_exchanged || !m->prev || !m->now || !m->next ||
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
			fr->read_vr[ty] = malloc(((size_t)fr->nread[ty] + 1) * sizeof(SartVr));
			fr->read_sig[ty] = malloc(((size_t)fr->nread[ty] + 1) * sizeof(int));
			fr->set_vr[ty] = malloc(((size_t)fr->nset[ty] + 1) * sizeof(SartVr));
			fr->set_conn[ty] = malloc(((size_t)fr->nset[ty] + 1) * sizeof(int));
			if (!fr->read_vr[ty] || !fr->read_sig[ty] || !fr->set_vr[ty] || !fr->set_conn[ty])
				return fail(m, "out of memory");
			int k = 0;
			for (int s = 0; s < m->nsig; s++)
				if (m->sig[s].fmu == f && var_of(sc, m->sig[s])->type == (SartType)ty) {
					fr->read_vr[ty][k] = var_of(sc, m->sig[s])->vr;
					fr->read_sig[ty][k++] = s;
				}
			k = 0;
			for (int c = 0; c < sc->nconns; c++)
				if (sc->conns[c].dst.fmu == f &&
				    var_of(sc, sc->conns[c].dst)->type == (SartType)ty) {
					fr->set_vr[ty][k] = var_of(sc, sc->conns[c].dst)->vr;
					fr->set_conn[ty][k++] = c;
				}
			if ((size_t)fr->nread[ty] > nbuf)
				nbuf = (size_t)fr->nread[ty];
			if ((size_t)fr->nset[ty] > nbuf)
				nbuf = (size_t)fr->nset[ty];
		}
		fr->nbuf = nbuf;
		fr->rbuf = malloc(nbuf * sizeof *fr->rbuf);
		fr->ibuf = malloc(nbuf * sizeof *fr->ibuf);
		fr->dval = malloc(nbuf * sizeof *fr->dval);
		fr->order1 = malloc(nbuf * sizeof *fr->order1);
		if (!fr->rbuf || !fr->ibuf || !fr->dval || !fr->order1)
			return fail(m, "out of memory");
		for (size_t i = 0; i < nbuf; i++)
			fr->order1[i] = 1;
	}
	return 0;
}

/* Reads FMU f's signals into vals; NaN or infinity on a connection is an error. */
static int read_signals(Master *m, int f, double t, double *vals)
{
	FmuRun *fr = &m->f[f];
	for (int ty = 0; ty < NTYPES; ty++) {
		int n = fr->nread[ty];
		if (n == 0)
			continue;
		if (!ok(get_values(fr->in, (SartType)ty, fr->read_vr[ty], (size_t)n, fr->rbuf,
		                   fr->ibuf)))
			return fail_call(m, f, t);
		for (int k = 0; k < n; k++) {
			int s = fr->read_sig[ty][k];
			vals[s] = ty == SART_REAL ? fr->rbuf[k] : (double)fr->ibuf[k];
			if (m->sig_exchanged[s] && !isfinite(vals[s]))
				return fail(m, "at t = %.17g: %s.%s is %g, and it feeds a connection",
				            t, m->sc->fmus[f].name, var_of(m->sc, m->sig[s])->name,
				            vals[s]);
		}
	}
	return 0;
}

/* The value an input gets at t_n and its slope over the step (see sart_master.h). */
static void input_for(Master *m, int c, int pass, double h, int interp, double *val,
                      double *slope)
{
	const SartConnection *cn = &m->sc->conns[c];
	int s = m->conn_sig[c];
	int fresh = pass > 0 || (m->o->algorithm == SART_GAUSS_SEIDEL && m->f[cn->src.fmu].stepped);
	double v = m->now[s], d = 0;
	if (fresh) {
		/* linear from the value at t_n to the end value of this pass or the last one */
		if (interp)
			d = (m->next[s] - m->now[s]) / h;
		else
			v = m->next[s];
	} else if (m->o->approx == SART_LINEAR && interp && m->have_prev) {
		/* slice: quadratic and Hermite predictors join here */
		d = (m->now[s] - m->prev[s]) / (m->t_prev_span);
	}
	*val = cn->scale * v + cn->offset;
	*slope = cn->scale * d;
}

static int set_inputs(Master *m, int f, int pass, double t, double h)
{
	FmuRun *fr = &m->f[f];
	for (int ty = 0; ty < NTYPES; ty++) {
		int n = fr->nset[ty];
		if (n == 0)
			continue;
		int interp = ty == SART_REAL && fr->interpolates && m->derivatives;
		for (int k = 0; k < n; k++) {
			int c = fr->set_conn[ty][k];
			double v, d;
			input_for(m, c, pass, h, interp, &v, &d);
			if (!isfinite(v) || !isfinite(d)) {
				const SartConnection *cn = &m->sc->conns[c];
				return fail(m, "at t = %.17g: the input %s.%s would be %g (slope %g), "
				            "fed by %s.%s", t, m->sc->fmus[f].name,
				            var_of(m->sc, cn->dst)->name, v, d,
				            m->sc->fmus[cn->src.fmu].name, var_of(m->sc, cn->src)->name);
			}
			if (ty == SART_REAL)
				fr->rbuf[k] = v;
			else
				fr->ibuf[k] = to_int((SartType)ty, v);
			fr->dval[k] = d;
		}
		if (!ok(set_values(fr->in, (SartType)ty, fr->set_vr[ty], (size_t)n, fr->rbuf,
		                   fr->ibuf)))
			return fail_call(m, f, t);
		if (interp && !ok(sart_inner_set_real_input_derivatives(fr->in, fr->set_vr[ty],
		                                                        (size_t)n, fr->order1,
		                                                        fr->dval)))
			return fail_call(m, f, t);
	}
	return 0;
}

/* Steps FMU f from t by h.  Returns 0 (stepped), 1 (discarded: *reached is where it
 * stands) or -1 (failed, reported). */
static int step_one(Master *m, int f, double t, double h, double *reached)
{
	double r = t + h;
	SartStatus st = sart_inner_do_step(m->f[f].in, t, h, 1, &r);
	if (ok(st))
		return 0;
	if (st == SART_DISCARD) {
		*reached = r;
		if (!m->can_rollback) {
			for (int g = 0; g < m->sc->nfmus; g++)
				if (!(m->sc->fmus[g].caps & SART_CAP_GET_SET_STATE)) {
					fail(m, "%s discarded the step from t = %.17g at t = %.17g; redoing "
					     "it shorter needs every FMU to get and set its state, and %s "
					     "cannot", m->sc->fmus[f].name, t, r, m->sc->fmus[g].name);
					return -1;
				}
		}
		return 1;
	}
	fail_call(m, f, t);
	return -1;
}

/* One pass over the macro step.  Returns 0, 1 (some FMU discarded; *short_end is the
 * smallest time reached) or -1 (failed). */
static int run_pass(Master *m, int pass, double t, double h, double *short_end)
{
	const SartScenario *sc = m->sc;
	int discarded = 0;
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

/* One macro step from t towards *end; on return *end is where it ended (shorter after a
 * rejection).  slice: step-size control and event location decide *end here. */
static int macro_step(Master *m, double t, double *end)
{
	int passes = 1 + m->o->iterations;
	if (m->can_rollback && snapshot_all(m, t))
		return 1;
	for (int attempt = 0;; attempt++) {
		double h = *end - t, short_end = *end;
		int st = 0;
		if (!(h > 0))
			return fail(m, "at t = %.17g: an FMU discarded the step at its start; the "
			            "simulation cannot advance", t);
		if (attempt > 100)
			return fail(m, "at t = %.17g: the step was rejected %d times", t, attempt);
		for (int pass = 0; pass < passes && st == 0; pass++) {
			if (pass > 0) {
				m->res->iterations++;
				if (restore_all(m, t))
					return 1;
			}
			st = run_pass(m, pass, t, h, &short_end);
		}
		if (st < 0)
			return 1;
		if (st == 0)
			return 0;
		/* rejected: every FMU back to t_n, redo with H := the smallest step taken */
		m->res->rejected++;
		if (restore_all(m, t))
			return 1;
		*end = short_end;
	}
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
		                       fm->caps, master_log, m};
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
	/* slice: an algebraic loop is solved here too, before its consumers are set */
	for (int k = 0; k < m->an->nports; k++) {
		SartRef src = m->an->ports[m->an->order[k]];
		const SartVar *sv = var_of(sc, src);
		double x = 0;
		int iv = 0, got = 0;
		for (int c = 0; c < sc->nconns; c++) {
			const SartConnection *cn = &sc->conns[c];
			if (cn->src.fmu != src.fmu || cn->src.var != src.var)
				continue;
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
	for (int r = 0; r < m->sc->nrecords; r++)
		m->row[r] = m->now[m->rec_sig[r]];
	m->res->t = t;
	if (m->o->on_point && m->o->on_point(m->o->point_env, t, m->row, m->sc->nrecords))
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
	if (m->sc->nfmus < 1)
		return fail(m, "the scenario has no FMU");
	return 0;
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
	res->t = o->start;

	if (check_options(m))
		goto done;
	if (sart_analyse(sc, &m->an, err, sizeof err)) {
		fail(m, "%s", err);
		goto done;
	}
	if (m->an->nloops > 0) {
		/* slice: the loop solvers (MASTER.md) replace this refusal */
		char vars[700];
		sart_loop_text(sc, m->an, 0, vars, sizeof vars);
		fail(m, "the scenario has an algebraic loop through %s; solving algebraic loops is "
		     "not implemented yet", vars);
		goto done;
	}
	m->can_rollback = 1;
	for (int f = 0; f < sc->nfmus; f++)
		m->can_rollback &= (sc->fmus[f].caps & SART_CAP_GET_SET_STATE) != 0;
	if (o->iterations > 0 && !m->can_rollback) {
		for (int f = 0; f < sc->nfmus; f++)
			if (!(sc->fmus[f].caps & SART_CAP_GET_SET_STATE)) {
				fail(m, "iterations roll every FMU back to the step's start, and %s cannot "
				     "get and set its state", sc->fmus[f].name);
				goto done;
			}
	}
	m->derivatives = o->approx == SART_LINEAR || o->algorithm == SART_GAUSS_SEIDEL ||
	                 o->iterations > 0;
	if (prepare(m) || initialize(m) || emit_point(m, o->start))
		goto done;

	/* Communication points base + k H; base moves to where a shortened step ended.
	 * The last step ends exactly on stop (a remainder under 1e-9 H joins it). */
	double t = o->start, base = o->start;
	long k = 0;
	while (t < o->stop) {
		double end = base + (double)(k + 1) * o->step;
		if (end >= o->stop - 1e-9 * o->step)
			end = o->stop;
		double planned = end;
		if (macro_step(m, t, &end))
			goto done;
		if (end < planned) {
			base = end;
			k = 0;
		} else {
			k++;
		}
		double *tmp = m->prev;
		m->prev = m->now;
		m->now = m->next;
		m->next = tmp;
		memcpy(m->next, m->now, (size_t)m->nsig * sizeof *m->next);
		m->t_prev_span = end - t;
		m->have_prev = 1;
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
			free(fr->read_sig[ty]);
			free(fr->set_vr[ty]);
			free(fr->set_conn[ty]);
		}
		free(fr->order1);
		free(fr->dval);
		free(fr->rbuf);
		free(fr->ibuf);
	}
	free(m->f);
	free(m->sig);
	free(m->sig_exchanged);
	free(m->prev);
	free(m->now);
	free(m->next);
	free(m->conn_sig);
	free(m->rec_sig);
	free(m->row);
	sart_analysis_free(m->an);
	return m->failed ? 1 : 0;
}
