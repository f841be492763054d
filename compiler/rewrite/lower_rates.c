/* lower_rates.c — the lowering of `multiply rate`: several inner steps per external step,
 * the inner inputs interpolated over them (a family of lower.c; see lower_forms.h). */
#include "lower_forms.h"

/* ---- MultiplyRate ---------------------------------------------------------------------
 * `multiply rate N times with K interpolation`: N inner steps of H/N per external step;
 * every continuous Real inner input that an external input feeds gets, in the MapIn part,
 * the value at the end of its inner step of the polynomial of order K through the newest
 * external input value and the K before it (lower order while fewer are known).  A
 * discrete inner input is held at the newest value over all N steps, never interpolated.
 *
 *   in var current_<p> := <start>;             the newest sample of input p
 *   control var previous_<p>_<k> := <start>;   the k-th sample before it, k = 1..K
 *   control var previous_time_<k> := 0.0, rate_history := 0;   their times, how many
 *   control rules {
 *     if (rate_history == 0) { previous_time_1 := t; rate_history := 1; }  (reactive)
 *     var micro_step := H / N; var inner_time := t;
 *     for (var micro in 0 .. N) { do_step(f, inner_time, micro_step); ...;
 *                                 inner_time := inner_time + micro_step; }
 *     previous_<p>_K := previous_<p>_K-1; ...; previous_<p>_1 := current_<p>;  (same for times)
 *     rate_history := min(rate_history + 1, K);
 *     return H;
 *   }
 *   in rules { true -> { current_<p> := sa.p; } --> {
 *     if (rate_history >= K) { f.q := <Lagrange, K> } else if ... else { f.q := current_<p> } }; }
 *
 * A reactive adaptation's newest sample is the input at t + H and the one before it, at
 * the first step, the input's start value at t; a delayed one's newest sample is at t.
 * Preconditions:
 *   1. the adaptation has no control rules of its own and no other control form (the
 *      runner checks it: the form generates the control rules, RW_GENERAL_FORM);
 *   2. N is an Integer expression (the loop's bound), and not a literal below 1;
 *   3. the order is 0 to 4;
 *   4. the inner FMUs can be ordered by their couplings (no algebraic loop). */

/* What the rule builds from: the form's settings and the interpolated inputs. */
typedef struct RateInput {
	Node *port;     /* the external input (made here for an unfed inner input) */
	Inner *in;
	InnerPort *ip;
	Node *current;  /* its in var */
	Node **prev;    /* previous_<p>_1 .. _K */
} RateInput;

typedef struct Rate {
	Node *N;          /* the rate */
	int K;            /* the interpolation order */
	bool reactive;
	RateInput *ri;    /* the interpolated inputs, n of them */
	int n;
	Node **ptime;     /* previous_time_1 .. _K */
	Node *history;    /* rate_history (K > 0) */
} Rate;

/* The Lagrange polynomial through (xs[j], ys[j]), j = 0..k, at x. */
static Node *lagrange(Rewrite *w, Node *x, Node **xs, Node **ys, int k)
{
	Node *sum = NULL;
	for (int j = 0; j <= k; j++) {
		Node *term = rw_clone(w, ys[j]);
		for (int m = 0; m <= k; m++) {
			if (m == j)
				continue;
			Node *num = rw_binary(w, OP_SUB, rw_clone(w, x), rw_clone(w, xs[m]));
			Node *den = rw_binary(w, OP_SUB, rw_clone(w, xs[j]), rw_clone(w, xs[m]));
			term = rw_binary(w, OP_DIV, rw_binary(w, OP_MUL, term, num), den);
		}
		sum = sum ? rw_binary(w, OP_ADD, sum, term) : term;
	}
	return sum;
}

/* The Real inner inputs nobody feeds, which AddInPorts would make external inputs: made
 * here, bound, so that they are interpolated as well. */
static void bind_unfed_inputs(Rewrite *w)
{
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = w->info->inners[i];
		for (int k = 0; k < in->nports; k++) {
			InnerPort *p = &in->ports[k];
			int sym;
			if (!p->is_input || p->type != TY_REAL || rw_inner_input_fed(w, in, p) ||
			    lw_find_user(w->sa, p->name, &sym))
				continue; /* AddInPorts reports a blocked name */
			Node *port = rw_bound_port(w, in, p, BIND_TO);
			port->scale = 1;
			w->sa->a_inports = ast_append(w->sa->a_inports, port);
		}
	}
}

/* A bound Real input into a continuous inner input.  A discrete one (sema.h) is held: it
 * keeps its binding, so that the explicit form feeds the newest sample to every inner
 * step, as a master feeds a discrete input. */
static bool interpolated(Rewrite *w, const Node *p)
{
	return p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN && p->type == TY_REAL &&
	       !sema_port_discrete(w->info, p);
}

/* The interpolated inputs (the bound Real inputs) into r->ri, each with its vars:
 * current_<p> and previous_<p>_<k>; then the samples' times and their count. */
static void rate_inputs(Rewrite *w, Rate *r)
{
	Arena *a = w->c->arena;
	int K = r->K;
	int n = 0;
	for (Node *p = w->sa->a_inports; p; p = p->next)
		n += interpolated(w, p);
	r->ri = arena_alloc(a, (size_t)(n + 1) * sizeof *r->ri);
	r->n = 0;
	for (Node *p = w->sa->a_inports; p; p = p->next) {
		if (!interpolated(w, p))
			continue;
		RateInput *ri = &r->ri[r->n];
		ri->port = p;
		ri->in = sema_inner(w->info, p->bind->owner);
		ri->ip = ri->in ? sema_inner_port(ri->in, p->bind->name) : NULL;
		if (!ri->ip)
			continue;
		Node *start = p->init && p->init->kind != ND_ARRAY ? rw_clone(w, p->init) : rw_real(w, 0.0);
		ri->current = lw_new_in_var(w, rw_printf(w, "current_%s", p->name), TY_REAL, start,
					    rw_printf(w, "the newest value of input '%s'", p->name));
		ri->prev = arena_alloc(a, (size_t)(K + 1) * sizeof *ri->prev);
		for (int k = 1; k <= K; k++)
			ri->prev[k] = lw_new_ctrl_var(w, rw_printf(w, "previous_%s_%d", p->name, k),
						      TY_REAL, rw_clone(w, start),
						      rw_printf(w, "the value of input '%s' %d samples "
								"before the newest", p->name, k));
		r->n++;
	}
	r->ptime = arena_alloc(a, (size_t)(K + 1) * sizeof *r->ptime);
	for (int k = 1; k <= K; k++)
		r->ptime[k] = lw_new_ctrl_var(w, rw_printf(w, "previous_time_%d", k), TY_REAL,
					      rw_real(w, 0.0), "the time of an earlier input sample");
	r->history = K ? lw_new_ctrl_var(w, "rate_history", TY_INTEGER, rw_int(w, 0),
					 "how many earlier input samples are known") : NULL;
}

/* The control rules: the first sample's time (reactive), the inner steps (micro), the
 * samples shifted, their count, `return H`. */
static Node *rate_control(Rewrite *w, const Rate *r, Node *micro)
{
	int K = r->K;
	Node *stmts = NULL;
	if (K && r->reactive) {
		Node *first = rw_list2(rw_assign(w, rw_ref(w, r->ptime[1], SYM_CTRL_VAR), rw_keyvar(w, KV_T)),
				       rw_assign(w, rw_ref(w, r->history, SYM_CTRL_VAR), rw_int(w, 1)));
		stmts = ast_append(stmts, rw_if(w, rw_binary(w, OP_EQ, rw_ref(w, r->history, SYM_CTRL_VAR),
							     rw_int(w, 0)), first, NULL));
	}
	stmts = ast_append(stmts, micro);
	for (int j = 0; j < r->n; j++)
		for (int k = K; k >= 1; k--)
			stmts = ast_append(stmts, rw_assign(w, rw_ref(w, r->ri[j].prev[k], SYM_CTRL_VAR),
				k > 1 ? rw_ref(w, r->ri[j].prev[k - 1], SYM_CTRL_VAR)
				      : rw_ref(w, r->ri[j].current, SYM_IN_VAR)));
	for (int k = K; k >= 1; k--)
		stmts = ast_append(stmts, rw_assign(w, rw_ref(w, r->ptime[k], SYM_CTRL_VAR),
			k > 1 ? rw_ref(w, r->ptime[k - 1], SYM_CTRL_VAR)
			      : r->reactive ? rw_binary(w, OP_ADD, rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H))
					    : rw_keyvar(w, KV_T)));
	if (K) {
		Node *inc = rw_binary(w, OP_ADD, rw_ref(w, r->history, SYM_CTRL_VAR), rw_int(w, 1));
		stmts = ast_append(stmts, rw_assign(w, rw_ref(w, r->history, SYM_CTRL_VAR),
			rw_builtin(w, BI_MIN, rw_list2(inc, rw_int(w, K)))));
	}
	return ast_append(stmts, rw_return(w, rw_keyvar(w, KV_BIG_H)));
}

/* The in rule: sample, then interpolate at the end of each inner step (dt + h from the
 * external step's start; every time is taken relative to t). */
static void rate_in_rule(Rewrite *w, const Rate *r)
{
	Arena *a = w->c->arena;
	int K = r->K;
	Node *sample = NULL;
	for (int j = 0; j < r->n; j++)
		sample = ast_append(sample, rw_assign(w, rw_ref(w, r->ri[j].current, SYM_IN_VAR),
			rw_port(w, w->sa->name, r->ri[j].port->name, r->ri[j].port, SYM_INPORT)));
	Node *x = rw_binary(w, OP_ADD, rw_keyvar(w, KV_DT), rw_keyvar(w, KV_H));
	Node **xs = arena_alloc(a, (size_t)(K + 1) * sizeof *xs);
	Node **ys = arena_alloc(a, (size_t)(K + 1) * sizeof *ys);
	xs[0] = r->reactive ? rw_keyvar(w, KV_BIG_H) : rw_real(w, 0.0);
	for (int k = 1; k <= K; k++)
		xs[k] = rw_binary(w, OP_SUB, rw_ref(w, r->ptime[k], SYM_CTRL_VAR), rw_keyvar(w, KV_T));
	Node *chain = NULL;
	for (int order_k = 0; order_k <= K; order_k++) {
		Node *assigns_k = NULL;
		for (int j = 0; j < r->n; j++) {
			const RateInput *ri = &r->ri[j];
			ys[0] = rw_ref(w, ri->current, SYM_IN_VAR);
			for (int k = 1; k <= order_k; k++)
				ys[k] = rw_ref(w, ri->prev[k], SYM_CTRL_VAR);
			Node *v = order_k ? lagrange(w, x, xs, ys, order_k) : ys[0];
			Node *p = ri->port;
			assigns_k = ast_append(assigns_k, rw_assign(w,
				rw_port(w, ri->in->name, ri->ip->name, ri->ip->decl, SYM_INNER_IN),
				rw_converted(w, v, p->converts ? p->scale : 1, p->converts ? p->offset : 0)));
		}
		if (!chain)
			chain = assigns_k; /* order 0: the newest sample */
		else
			chain = rw_if(w, rw_binary(w, OP_GE, rw_ref(w, r->history, SYM_CTRL_VAR),
						   rw_int(w, order_k)), assigns_k, chain);
	}
	if (r->n) {
		Node *rules = rw_rules_block(w, &w->sa->a_in_rules, 'i');
		rules->list3 = ast_append(rules->list3,
					  rw_true_rule(w, rw_block(w, sample), rw_block(w, chain)));
	}
}

void lw_multiply_rate(Rewrite *w)
{
	Node *g = w->form;
	Rate r = {g->lhs, g->op < 0 ? 1 : g->op, !(w->sa->flags & KIND_DELAYED), NULL, 0, NULL, NULL};
	if (lw_type_of(r.N) != TY_INTEGER || (r.N->kind == ND_INT && r.N->ival < 1)) {
		diag_error(w->c->diag, r.N->loc, "MultiplyRate: the rate must be an Integer of at "
			   "least 1 (it bounds the loop over the inner steps)");
		return; /* (2) */
	}
	if (r.K > 4) {
		diag_error(w->c->diag, g->loc, "MultiplyRate: interpolation of order %d: orders 0 "
			   "to 4 are supported", r.K);
		return; /* (3) */
	}
	Inner **order = lw_step_order(w, NULL, 0);
	if (!order) {
		diag_error(w->c->diag, g->loc, "MultiplyRate: the inner fmus form an algebraic loop "
			   "and cannot be stepped in order");
		diag_note(w->c->diag, g->loc, "solve the loop in an inner adaptation (successive "
			  "substitution) and multiply its rate here");
		return; /* (4) */
	}
	bind_unfed_inputs(w);
	rate_inputs(w, &r);
	Node *micro = lw_micro_steps(w, r.N, order);
	if (!micro)
		return;
	Node *stmts = rate_control(w, &r, micro);
	rate_in_rule(w, &r);
	for (int j = 0; j < r.n; j++) {
		/* The in rule feeds the inner input now; the port stays an external input. */
		r.ri[j].port->bind_dir = BIND_NONE;
		r.ri[j].port->bind = NULL;
	}
	rw_set_control(w, stmts);
	rw_consume_form(w);
}
