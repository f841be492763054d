/* sart_master_structure.c — the structure of a scenario, before anything runs: the port
 * graph (inputs and outputs, connections and direct dependencies), its strongly connected
 * components (the algebraic loops, the initialization order), the FMU graph and the
 * execution order, and the analysis as text for `sacc simulate --explain`. */
#include "sart_master_internal.h"

#include <stdlib.h>

/* ---- strongly connected components --------------------------------------------------------- */

/* A binary min-heap of components on key[]: Kahn's ready set. */
static void heap_push(int *heap, int *n, const int *key, int c)
{
	int i = (*n)++;
	while (i > 0 && key[heap[(i - 1) / 2]] > key[c]) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = c;
}

static int heap_pop(int *heap, int *n, const int *key)
{
	int top = heap[0], last = heap[--*n], i = 0;
	for (;;) {
		int child = 2 * i + 1;
		if (child >= *n)
			break;
		if (child + 1 < *n && key[heap[child + 1]] < key[heap[child]])
			child++;
		if (key[heap[child]] >= key[last])
			break;
		heap[i] = heap[child];
		i = child;
	}
	heap[i] = last;
	return top;
}

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

	/* Kahn on the condensation, smallest node first among the ready components: the ready
	 * ones in a heap on their smallest node (distinct per component), each one's nodes
	 * (members, in compressed rows) giving its edges, so that ten thousand components
	 * cost n log n, not n squared */
	for (int c = 0; c < nc; c++)
		minnode[c] = n;
	for (int v = 0; v < n; v++)
		if (v < minnode[comp[v]])
			minnode[comp[v]] = v;
	for (int e = 0; e < nedges; e++)
		if (comp[from[e]] != comp[to[e]])
			indeg[comp[to[e]]]++;
	/* members: the nodes of component c are members[mfirst[c] .. mfirst[c + 1] - 1], in
	 * increasing order (done and frame serve as mfirst and the heap: Tarjan is over) */
	int *mfirst = done, *heap = frame, *members = stack;
	for (int c = 0; c <= nc; c++)
		mfirst[c] = 0;
	for (int v = 0; v < n; v++)
		mfirst[comp[v] + 1]++;
	for (int c = 0; c < nc; c++)
		mfirst[c + 1] += mfirst[c];
	for (int c = 0; c < nc; c++)
		pos[c] = mfirst[c];
	for (int v = 0; v < n; v++)
		members[pos[comp[v]]++] = v;
	int nheap = 0;
	for (int c = 0; c < nc; c++)
		if (indeg[c] == 0)
			heap_push(heap, &nheap, minnode, c);
	for (int k = 0; k < nc; k++) {
		if (nheap == 0)
			goto done; /* cannot happen: the condensation is acyclic */
		int best = heap_pop(heap, &nheap, minnode);
		renum[best] = k;
		for (int i = mfirst[best]; i < mfirst[best + 1]; i++)
			for (int j = first[members[i]]; j < first[members[i] + 1]; j++)
				if (comp[adj[j]] != best && --indeg[comp[adj[j]]] == 0)
					heap_push(heap, &nheap, minnode, comp[adj[j]]);
	}
	/* the order: the nodes by their new component, each one's in increasing order */
	for (int c = 0; c < nc; c++)
		pos[renum[c]] = mfirst[c + 1] - mfirst[c];
	for (int c = 1; c < nc; c++)
		pos[c] += pos[c - 1];
	for (int c = nc - 1; c > 0; c--)
		pos[c] = pos[c - 1];
	if (nc > 0)
		pos[0] = 0;
	for (int v = 0; v < n; v++)
		order[pos[renum[comp[v]]]++] = v;
	for (int v = 0; v < n; v++)
		comp[v] = renum[comp[v]];
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

static int is_port(const SartVar *v)
{
	return v->causality == SART_CAUS_INPUT || v->causality == SART_CAUS_OUTPUT;
}

/* Delayed (the paper's section 2.2.1): it has inputs, no output depends on any input
 * (dependencies given, and empty), and it cannot interpolate inputs (not reactive). */
static int fmu_is_delayed(const SartFmu *fm)
{
	int inputs = 0;
	if (fm->caps & (SART_CAP_INPUT_DERIVATIVES | SART_CAP_REACTIVE))
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

/* The port graph's nodes: every input and output (node_of[base[f] + i] is variable i of
 * FMU f's node, -1 for the others); the analysis' arrays, sized for them and for every
 * edge there may be.  Returns 0, or -1 when out of memory. */
static int add_ports(const SartScenario *sc, SartAnalysis *a, const int *base, int *node_of)
{
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
	if (!a->ports || !a->edge_from || !a->edge_to || !a->edge_conn || !a->comp || !a->order ||
	    !a->loop_comp || !a->fmu_order || !a->fmu_comp)
		return -1;
	for (int f = 0; f < sc->nfmus; f++)
		for (int i = 0; i < sc->fmus[f].nvars; i++)
			if (node_of[base[f] + i] >= 0)
				a->ports[node_of[base[f] + i]] = (SartRef){f, i};
	return 0;
}

/* The port graph's edges: the connections, checked, then the direct dependencies of
 * outputs on inputs of the same FMU.  ffrom[c] and fto[c] are connection c's FMUs (the
 * FMU graph's edges); fed counts the connections into each variable.  Returns 0, or -1
 * with the message in err. */
static int add_edges(const SartScenario *sc, SartAnalysis *a, const int *base,
                     const int *node_of, int *fed, int *ffrom, int *fto, char *err,
                     size_t errsize)
{
	int ne = 0;
	for (int c = 0; c < sc->nconns; c++) {
		const SartConnection *cn = &sc->conns[c];
		if (!valid_ref(sc, cn->src) || !valid_ref(sc, cn->dst)) {
			put(err, errsize, "connection %d names a variable that does not exist", c + 1);
			return -1;
		}
		const SartVar *s = var_of(sc, cn->src), *d = var_of(sc, cn->dst);
		const char *sn = sc->fmus[cn->src.fmu].name, *dn = sc->fmus[cn->dst.fmu].name;
		if (s->causality != SART_CAUS_OUTPUT || d->causality != SART_CAUS_INPUT) {
			put(err, errsize, "connection %s.%s -> %s.%s does not go from an output to an "
			    "input", sn, s->name, dn, d->name);
			return -1;
		}
		int types_match = (s->type == d->type && s->type != SART_OTHER) ||
		                  (s->type == SART_INTEGER && d->type == SART_REAL);
		if (!types_match) {
			put(err, errsize, "connection %s.%s -> %s.%s: only values of matching types "
			    "are exchanged, Real, Integer, Boolean or String (Integer may feed Real)",
			    sn, s->name, dn, d->name);
			return -1;
		}
		if (d->type != SART_REAL && (cn->scale != 1 || cn->offset != 0)) {
			put(err, errsize, "connection %s.%s -> %s.%s converts units of a non-Real "
			    "input", sn, s->name, dn, d->name);
			return -1;
		}
		if (fed[base[cn->dst.fmu] + cn->dst.var]++) {
			put(err, errsize, "input %s.%s is fed by more than one connection", dn,
			    d->name);
			return -1;
		}
		a->edge_from[ne] = node_of[base[cn->src.fmu] + cn->src.var];
		a->edge_to[ne] = node_of[base[cn->dst.fmu] + cn->dst.var];
		a->edge_conn[ne++] = c;
		ffrom[c] = cn->src.fmu;
		fto[c] = cn->dst.fmu;
	}
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
	return 0;
}

/* Execution order: the delayed FMUs first, in scenario order (their inputs at t_n
 * suffice, so they need not wait for the FMUs that feed them: this breaks FMU-level
 * cycles through them); then the others in the topological order of the FMU graph
 * without the connections that touch a delayed FMU.  ffrom and fto (the FMU graph's
 * edges) are overwritten.  Returns 0, or -1 when out of memory. */
static int execution_order(const SartScenario *sc, SartAnalysis *a, int *ffrom, int *fto)
{
	int rc = -1;
	int *rest_comp = malloc(((size_t)sc->nfmus + 1) * sizeof *rest_comp);
	int *rest_order = malloc(((size_t)sc->nfmus + 1) * sizeof *rest_order);
	a->delayed = calloc((size_t)sc->nfmus + 1, sizeof *a->delayed);
	if (!a->delayed || !rest_comp || !rest_order)
		goto done;
	int nrest = 0, k = 0;
	for (int f = 0; f < sc->nfmus; f++)
		a->delayed[f] = fmu_is_delayed(&sc->fmus[f]);
	for (int c = 0; c < sc->nconns; c++)
		if (!a->delayed[ffrom[c]] && !a->delayed[fto[c]]) {
			ffrom[nrest] = ffrom[c];
			fto[nrest++] = fto[c];
		}
	if (sart_scc(sc->nfmus, nrest, ffrom, fto, rest_comp, rest_order) < 0)
		goto done;
	for (int f = 0; f < sc->nfmus; f++)
		if (a->delayed[f])
			a->fmu_order[k++] = f;
	for (int i = 0; i < sc->nfmus; i++)
		if (!a->delayed[rest_order[i]])
			a->fmu_order[k++] = rest_order[i];
	rc = 0;
done:
	free(rest_comp);
	free(rest_order);
	return rc;
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
	ffrom = malloc(((size_t)sc->nconns + 1) * sizeof *ffrom);
	fto = malloc(((size_t)sc->nconns + 1) * sizeof *fto);
	if (!node_of || !fed || !ffrom || !fto || add_ports(sc, a, base, node_of))
		goto oom;
	if (add_edges(sc, a, base, node_of, fed, ffrom, fto, err, errsize))
		goto fail;

	a->ncomps = sart_scc(a->nports, a->nedges, a->edge_from, a->edge_to, a->comp, a->order);
	if (a->ncomps < 0)
		goto oom;
	/* the loops: components with more than one port (prepare_loops tears them) */
	size = calloc((size_t)a->ncomps + 1, sizeof *size);
	if (!size)
		goto oom;
	for (int v = 0; v < a->nports; v++)
		size[a->comp[v]]++;
	for (int c = 0; c < a->ncomps; c++)
		if (size[c] > 1)
			a->loop_comp[a->nloops++] = c;

	a->nfmu_comps = sart_scc(sc->nfmus, sc->nconns, ffrom, fto, a->fmu_comp, a->fmu_order);
	if (a->nfmu_comps < 0 || execution_order(sc, a, ffrom, fto))
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
