/* emit_deps.c — which inputs each output of the wrapper depends on within a step (direct
 * feedthrough), for the model description's ModelStructure (emit.h, EmitVar.deps).
 *
 * Between steps a Mealy wrapper's outputs are G (runtime/sart_core.c): In, then per inner
 * in order MapIn, the internal couplings into it, its inputs set and outputs read, MapOut,
 * and at the end Out; the control rules do not run.  So an output depends on an input
 * when data can flow from the input to the output along that path: through the in rules
 * (conditions, `->` and `-->` parts), the internal couplings, an inner's own feedthrough
 * (its model description's dependencies, or an inner adaptation's as computed here), and
 * the out rules.  An input consumed by the control rules reaches the outputs only through
 * a step, which is no feedthrough.  A Moore wrapper runs no G: its outputs depend on no
 * input.  During initialization the Init sequence runs the same path whatever the kind,
 * with the inners' initial dependencies, which gives the InitialUnknowns.
 *
 * The analysis is flow-insensitive, hence conservative: every value a part computes is
 * taken to depend on everything its statement reads, on the conditions it sits under
 * (the rule's condition, enclosing ifs and loop bounds), and on every other assignment to
 * the same variable in those parts, whatever their order.  An inner output its inner
 * lists without dependencies depends on all of that inner's inputs, and anything the walk
 * cannot resolve makes every output depend on every input.
 *
 * Sources are the wrapper's inputs (0..ninputs-1, their place in EmitLayout.vars) and the
 * inner Binary inputs it forwards (ninputs + their place in EmitLayout.binaries).  Values
 * flow between slots, one per variable, port, inner port and forwarded Binary; each slot
 * holds the set of sources that reach it, propagated over the edges to a fixed point. */
#include "emit.h"

#include <stdint.h>
#include <string.h>

/* More slots times sources than this and the analysis gives up: every output then
 * depends on every input (the text it would write is that large anyway). */
enum { DEPS_MAX_BITS = 1 << 26 };

typedef struct Edge {
	int from, to;
} Edge;

typedef struct Deps {
	Compilation *c;
	EmitLayout *l;
	SaInfo *info;
	bool init;           /* the inners' initial dependencies (InitialUnknowns) */
	bool unsure;         /* something could not be followed: everything depends on all */
	int nsrc, words;     /* sources, and 64-bit words per slot */
	/* slots: an open-addressed table of keys (pointers into the tree or the layout) */
	const void **keys;
	int cap, nslots;
	int *slot_of;        /* per table entry: its slot, -1 when empty */
	uint64_t *bits;      /* per slot, words each (allocated once all slots are known) */
	Edge *edges;
	int nedges, capedges;
	int *ctx;            /* the slots the enclosing conditions read */
	int nctx, capctx;
} Deps;

static void *grow(Arena *a, void *old, int n, int *cap, size_t size)
{
	if (n < *cap)
		return old;
	int ncap = *cap ? 2 * *cap : 16;
	void *p = arena_alloc(a, (size_t)ncap * size);
	if (old)
		memcpy(p, old, (size_t)*cap * size);
	*cap = ncap;
	return p;
}

static size_t hash_ptr(const void *p)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= 0xed5ad4bbu;
	x ^= x >> 11;
	return (size_t)x;
}

/* The slot of key, made on first use. */
static int slot(Deps *d, const void *key)
{
	if (2 * (d->nslots + 1) > d->cap) {
		int ocap = d->cap;
		const void **okeys = d->keys;
		int *oslot = d->slot_of;
		d->cap = ocap ? 2 * ocap : 64;
		d->keys = arena_alloc(d->c->arena, (size_t)d->cap * sizeof *d->keys);
		d->slot_of = arena_alloc(d->c->arena, (size_t)d->cap * sizeof *d->slot_of);
		for (int i = 0; i < d->cap; i++)
			d->slot_of[i] = -1;
		for (int i = 0; i < ocap; i++) {
			if (oslot[i] < 0)
				continue;
			size_t h = hash_ptr(okeys[i]) & (size_t)(d->cap - 1);
			while (d->slot_of[h] >= 0)
				h = (h + 1) & (size_t)(d->cap - 1);
			d->keys[h] = okeys[i];
			d->slot_of[h] = oslot[i];
		}
	}
	size_t h = hash_ptr(key) & (size_t)(d->cap - 1);
	while (d->slot_of[h] >= 0) {
		if (d->keys[h] == key)
			return d->slot_of[h];
		h = (h + 1) & (size_t)(d->cap - 1);
	}
	d->keys[h] = key;
	d->slot_of[h] = d->nslots;
	return d->nslots++;
}

static void edge(Deps *d, int from, int to)
{
	if (from < 0 || to < 0 || from == to)
		return;
	d->edges = grow(d->c->arena, d->edges, d->nedges, &d->capedges, sizeof *d->edges);
	d->edges[d->nedges++] = (Edge){from, to};
}

/* ---- what a name stands for ---------------------------------------------------------- */

static const Node *find_named(const Node *list, const char *name)
{
	for (const Node *p = list; p; p = p->next)
		if (p->name && strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* The slot a name or port reference reads or writes; -1 for none (an inner itself), and
 * unsure when it names something unknown. */
static int ref_slot(Deps *d, const Node *n)
{
	const Node *sa = d->info->sa;
	if (n->sym == SYM_INNER)
		return -1;
	if (n->kind == ND_PORT_REF && n->owner && strcmp(n->owner, sa->name) != 0) {
		const Inner *in = sema_inner(d->info, n->owner);
		const InnerPort *ip = in ? sema_inner_port(in, n->name) : NULL;
		if (ip)
			return slot(d, ip);
		d->unsure = true;
		return -1;
	}
	if (n->decl)
		return slot(d, n->decl);
	const Node *lists[] = {sa->a_inports, sa->a_outports, sa->a_params, sa->a_in_vars,
	                       sa->a_out_vars, sa->a_ctrl_vars};
	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
		const Node *p = find_named(lists[i], n->name);
		if (p)
			return slot(d, p);
	}
	d->unsure = true;
	return -1;
}

/* ---- the rule parts G runs ----------------------------------------------------------- */

/* Every slot expression n reads, appended to *out (n of them in *nout). */
static void reads(Deps *d, const Node *n, int **out, int *nout, int *cap)
{
	if (n) {
		switch (n->kind) {
		case ND_NAME:
		case ND_PORT_REF: {
			int s = ref_slot(d, n);
			if (s >= 0) {
				*out = grow(d->c->arena, *out, *nout, cap, sizeof **out);
				(*out)[(*nout)++] = s;
			}
			break;
		}
		case ND_UNARY:
		case ND_BINARY:
			reads(d, n->lhs, out, nout, cap);
			reads(d, n->rhs, out, nout, cap);
			break;
		case ND_BUILTIN:
			if (n->op == BI_DO_STEP || n->op == BI_ROLLBACK)
				d->unsure = true; /* an inner stepped within G: not what G does */
			for (const Node *a = n->list1; a; a = a->next)
				reads(d, a, out, nout, cap);
			break;
		case ND_INT:
		case ND_REAL:
		case ND_STRING:
		case ND_BOOL:
		case ND_KEYVAR:
		case ND_ARRAY:
		case ND_OTHERWISE:
			break;
		default:
			d->unsure = true;
			break;
		}
	}
}

/* target := value, under the enclosing conditions. */
static void assign(Deps *d, int target, const Node *value)
{
	if (target < 0)
		return;
	int *r = NULL, nr = 0, cap = 0;
	reads(d, value, &r, &nr, &cap);
	for (int i = 0; i < nr; i++)
		edge(d, r[i], target);
	for (int i = 0; i < d->nctx; i++)
		edge(d, d->ctx[i], target);
}

/* Pushes what cond reads onto the condition context; returns the old depth to pop to. */
static int push_cond(Deps *d, const Node *cond)
{
	int depth = d->nctx;
	int *r = NULL, nr = 0, cap = 0;
	reads(d, cond, &r, &nr, &cap);
	for (int i = 0; i < nr; i++) {
		d->ctx = grow(d->c->arena, d->ctx, d->nctx, &d->capctx, sizeof *d->ctx);
		d->ctx[d->nctx++] = r[i];
	}
	return depth;
}

static void stmts(Deps *d, const Node *s);

static void stmt(Deps *d, const Node *s)
{
	switch (s->kind) {
	case ND_BLOCK:
		stmts(d, s->list1);
		break;
	case ND_VAR:
		for (const Node *v = s->list1; v; v = v->next)
			if (v->init)
				assign(d, slot(d, v), v->init);
		break;
	case ND_ASSIGN:
		assign(d, ref_slot(d, s->lhs), s->rhs);
		break;
	case ND_IF: {
		int depth = push_cond(d, s->cond);
		if (s->then)
			stmt(d, s->then);
		if (s->els)
			stmt(d, s->els);
		d->nctx = depth;
		break;
	}
	case ND_FOR: {
		int depth = push_cond(d, s->lhs);
		push_cond(d, s->rhs);
		if (s->then)
			stmt(d, s->then);
		d->nctx = depth;
		break;
	}
	case ND_CALL_STMT: {
		int *r = NULL, nr = 0, cap = 0;
		reads(d, s->lhs, &r, &nr, &cap); /* discard(x), or an inner stepped: unsure */
		break;
	}
	case ND_BREAK:
		break;
	default:
		d->unsure = true; /* a return or a form the explicit form should have removed */
		break;
	}
}

static void stmts(Deps *d, const Node *s)
{
	for (; s; s = s->next)
		stmt(d, s);
}

/* An in or out rules block: its block vars, and each rule's parts under its condition. */
static void rules(Deps *d, const Node *blocks)
{
	for (const Node *b = blocks; b; b = b->next) {
		for (const Node *v = b->list2; v; v = v->next)
			if (v->init)
				assign(d, slot(d, v), v->init);
		for (const Node *r = b->list3; r; r = r->next) {
			if (r->op != RULE_COND && r->op != RULE_ASSIGN) {
				d->unsure = true;
				continue;
			}
			int depth = push_cond(d, r->cond && r->cond->kind != ND_BLOCK ? r->cond : NULL);
			if (r->cond && r->cond->kind == ND_BLOCK)
				stmt(d, r->cond);
			if (r->then)
				stmt(d, r->then);
			if (r->els && r->els->kind == ND_BLOCK)
				stmt(d, r->els);
			else if (r->els)
				d->unsure = true; /* a hold or an expression: lowered before here */
			d->nctx = depth;
		}
	}
}

/* ---- the inners' own feedthrough ----------------------------------------------------- */

/* The dependency record of inner FMU variable var in list, or NULL. */
static const FmuOutputDep *fmu_dep(const FmuOutputDep *list, int n, int var)
{
	for (int i = 0; i < n; i++)
		if (list[i].var == var)
			return &list[i];
	return NULL;
}

/* Whether FMU output var depends on FMU input in within a step (init: or during
 * initialization too).  An output the description leaves out, or lists without
 * dependencies, depends on every input. */
static bool fmu_depends(const FmuInfo *f, int var, int in, bool init)
{
	const FmuOutputDep *o = fmu_dep(f->outputs, f->noutputs, var);
	const FmuOutputDep *i = init ? fmu_dep(f->initial_unknowns, f->ninitial_unknowns, var)
	                             : NULL;
	if (!o || !o->deps_given || (i && !i->deps_given))
		return true;
	for (int k = 0; k < o->ndeps; k++)
		if (o->deps[k] == in)
			return true;
	for (int k = 0; i && k < i->ndeps; k++)
		if (i->deps[k] == in)
			return true;
	return false;
}

/* Whether an inner adaptation's output `out` depends on its input `in` (by name). */
static bool sub_depends(const EmitLayout *sub, const char *out, const char *in, bool init)
{
	if (!sub)
		return true;
	const EmitVar *o = NULL;
	for (int i = 0; i < sub->noutputs && !o; i++)
		if (strcmp(emit_outputs(sub)[i].name, out) == 0)
			o = &emit_outputs(sub)[i];
	if (!o)
		return true;
	const EmitDeps *ds = init ? &o->init_deps : &o->deps;
	for (int k = 0; k < ds->n; k++)
		if (ds->src[k] < sub->ninputs && strcmp(sub->vars[ds->src[k]].name, in) == 0)
			return true;
	return false;
}

/* One of an inner's ports or forwarded Binaries, as the feedthrough sees it. */
typedef struct End {
	int slot;
	int fmu_var;      /* its FMU variable, -1 when unknown (an inner adaptation's Binary) */
	const char *var;  /* its name in the inner */
} End;

static int ends_of(Deps *d, int f, bool inputs, End **out)
{
	const Inner *in = d->info->inners[f];
	const EmitLayout *l = d->l;
	int n = 0, cap = 0;
	*out = NULL;
	for (int k = 0; k < in->nports; k++) {
		if (in->ports[k].is_input != inputs)
			continue;
		*out = grow(d->c->arena, *out, n, &cap, sizeof **out);
		(*out)[n++] = (End){slot(d, &in->ports[k]), in->ports[k].fmu_var, in->ports[k].var};
	}
	for (int b = 0; b < l->nbinaries; b++) {
		const EmitBinary *x = &l->binaries[b];
		if (x->inner_index != f || x->is_input != inputs)
			continue;
		*out = grow(d->c->arena, *out, n, &cap, sizeof **out);
		int var = in->fmu ? (int)(x->var - in->fmu->vars) : -1;
		(*out)[n++] = (End){slot(d, x), var, NULL};
	}
	return n;
}

/* Edges from each inner input to each inner output that depends on it directly. */
static void feedthrough(Deps *d)
{
	for (int f = 0; f < d->info->ninners; f++) {
		const Inner *in = d->info->inners[f];
		const EmitLayout *sub = !in->fmu && in->adaptation
		                        ? emit_layout(d->c, in->adaptation->info) : NULL;
		End *ins, *outs;
		int nin = ends_of(d, f, true, &ins);
		int nout = ends_of(d, f, false, &outs);
		for (int o = 0; o < nout; o++)
			for (int i = 0; i < nin; i++) {
				bool dep;
				if (in->fmu)
					dep = outs[o].fmu_var < 0 || ins[i].fmu_var < 0 ||
					      fmu_depends(in->fmu, outs[o].fmu_var, ins[i].fmu_var, d->init);
				else
					dep = !outs[o].var || !ins[i].var ||
					      sub_depends(sub, outs[o].var, ins[i].var, d->init);
				if (dep)
					edge(d, ins[i].slot, outs[o].slot);
			}
	}
}

/* The internal couplings, which G applies before an inner's inputs are set. */
static void couplings(Deps *d)
{
	for (const Node *cp = d->info->sa->a_couplings; cp; cp = cp->next)
		if (cp->kind == ND_CONNECTION && cp->lhs && cp->rhs)
			edge(d, ref_slot(d, cp->lhs), ref_slot(d, cp->rhs));
}

/* ---- the fixed point and the result -------------------------------------------------- */

static uint64_t *bits_of(Deps *d, int s)
{
	return d->bits + (size_t)s * (size_t)d->words;
}

static void propagate(Deps *d)
{
	/* A work list of the slots whose sources grew, each edge followed from its source
	 * slot: it reaches the same least fixed point as passes over every edge until none
	 * changes, without a pass per link of a chain (a wrapper over thousands of inners in
	 * a chain took as many passes over all its couplings). */
	Arena *a = d->c->arena;
	int n = d->nslots;
	int *first = arena_alloc(a, ((size_t)n + 2) * sizeof *first);
	int *out = arena_alloc(a, ((size_t)d->nedges + 1) * sizeof *out);
	for (int e = 0; e < d->nedges; e++)
		first[d->edges[e].from + 2]++;
	for (int u = 0; u < n; u++)
		first[u + 2] += first[u + 1];
	for (int e = 0; e < d->nedges; e++)
		out[first[d->edges[e].from + 1]++] = e;
	/* first[u] .. first[u + 1] are the edges out of slot u */
	int *queue = arena_alloc(a, ((size_t)n + 1) * sizeof *queue);
	bool *queued = arena_alloc(a, ((size_t)n + 1) * sizeof *queued);
	int head = 0, len = n;
	for (int u = 0; u < n; u++) {
		queue[u] = u;
		queued[u] = true;
	}
	while (len) {
		int u = queue[head];
		head = (head + 1) % n;
		len--;
		queued[u] = false;
		uint64_t *from = bits_of(d, u);
		for (int j = first[u]; j < first[u + 1]; j++) {
			int v = d->edges[out[j]].to;
			uint64_t *to = bits_of(d, v);
			bool grew = false;
			for (int k = 0; k < d->words; k++)
				if (from[k] & ~to[k]) {
					to[k] |= from[k];
					grew = true;
				}
			if (grew && !queued[v]) {
				queued[v] = true;
				queue[(head + len++) % n] = v;
			}
		}
	}
}

static void set_bit(Deps *d, int s, int src)
{
	bits_of(d, s)[src / 64] |= (uint64_t)1 << (src % 64);
}

/* The sources in slot s (every source when unsure), ascending. */
static EmitDeps result(Deps *d, int s)
{
	EmitDeps r = {arena_alloc(d->c->arena, (size_t)(d->nsrc + 1) * sizeof *r.src), 0};
	for (int k = 0; k < d->nsrc; k++)
		if (d->unsure || s < 0 || (bits_of(d, s)[k / 64] >> (k % 64) & 1))
			r.src[r.n++] = k;
	return r;
}

/* Every source, for a wrapper too large to analyse. */
static EmitDeps all_sources(Compilation *c, int nsrc)
{
	EmitDeps r = {arena_alloc(c->arena, (size_t)(nsrc + 1) * sizeof *r.src), nsrc};
	for (int k = 0; k < nsrc; k++)
		r.src[k] = k;
	return r;
}

/* One pass of the analysis: init says whose dependencies (see the top). */
static void analyse(Compilation *c, EmitLayout *l, bool init)
{
	int nbin_in = 0;
	for (int b = 0; b < l->nbinaries; b++)
		nbin_in += l->binaries[b].is_input;
	Deps d = {.c = c, .l = l, .info = l->info, .init = init};
	d.nsrc = l->ninputs + nbin_in;
	d.words = (d.nsrc + 63) / 64;
	/* the slots of the sources come first: input i is slot i */
	for (int i = 0; i < l->ninputs; i++)
		slot(&d, emit_inputs(l)[i].decl);
	for (int b = 0; b < l->nbinaries; b++)
		if (l->binaries[b].is_input)
			slot(&d, &l->binaries[b]);
	rules(&d, l->sa->a_in_rules);
	rules(&d, l->sa->a_out_rules);
	couplings(&d);
	feedthrough(&d);
	for (int i = 0; i < l->noutputs; i++)
		slot(&d, emit_outputs(l)[i].decl);
	bool big = (double)d.nslots * (double)d.words * 64.0 > DEPS_MAX_BITS;
	if (!big) {
		d.bits = arena_alloc(c->arena, (size_t)d.nslots * (size_t)(d.words ? d.words : 1) *
		                                   sizeof *d.bits);
		memset(d.bits, 0, (size_t)d.nslots * (size_t)(d.words ? d.words : 1) * sizeof *d.bits);
		for (int k = 0; k < d.nsrc; k++)
			set_bit(&d, k, k);
		propagate(&d);
	}
	for (int i = 0; i < l->noutputs; i++) {
		EmitVar *v = &emit_outputs(l)[i];
		EmitDeps r = big ? all_sources(c, d.nsrc) : result(&d, slot(&d, v->decl));
		*(init ? &v->init_deps : &v->deps) = r;
	}
	for (int b = 0; b < l->nbinaries; b++) {
		EmitBinary *x = &l->binaries[b];
		if (x->is_input)
			continue;
		EmitDeps r = big ? all_sources(c, d.nsrc) : result(&d, slot(&d, x));
		*(init ? &x->init_deps : &x->deps) = r;
	}
}

void emit_find_deps(Compilation *c, EmitLayout *l)
{
	/* between steps: G runs only in a Mealy wrapper */
	if (l->mealy)
		analyse(c, l, false);
	analyse(c, l, true);
}
