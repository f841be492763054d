/* lower_control.c — the lowering of the control forms, which say when the inner FMUs
 * step: triggered, periodic, multiplied and implied (a family of lower.c; see
 * lower_forms.h). */
#include "lower_forms.h"

/* ---- control forms: Triggered, Periodic, Multiplied -------------------------------------
 * Each rewrites the control form the user wrote (`triggered by E`, `periodic (at T0)? every
 * P`, `multiplied N times`) into control rules.  `implied` is left to CreateCtrlRules (the
 * default rules) and written out by Implied, at the end of the stage, so that `sacc
 * explicit --after Lower` shows it too.
 *
 * Triggered (`triggered by E`): the inners step only on the external steps where E holds
 * (E evaluated once, at the step's start, after In), each from the time it last stepped to
 * (last_execution_time) to t + H, so that one step covers the time skipped:
 *
 *   control rules {
 *     var triggered_step := H;
 *     if (E) {
 *       var from_f := last_execution_time(f);                each inner, in coupling order
 *       var H_f := do_step(f, from_f, t + H - from_f);
 *       if (H_f < t + H - from_f) { triggered_step := min(triggered_step, from_f + H_f - t); }
 *     }
 *     return triggered_step;
 *   }
 *
 * On the other steps nothing steps: the out vars keep the outputs of the last inner step
 * (a hold).  An inner's discard gives a shorter step, reported as a rejection.
 *
 * Periodic (`periodic at T0 every P`, T0 = 0 when left out): the inners step at the
 * instants T0 + k P after the start, each time from the time they last stepped to the
 * instant (at T0 itself too, when T0 is after the start).  The wrapper's step must end on
 * each instant: a step that would carry past the next instant is rejected before anything
 * steps, proposing the step that ends on it (as crossings do), and the orchestrator's
 * retry lands there.  Instants are counted, not accumulated, so they do not drift:
 *
 *   control var Integer periodic_count := 0;      the next instant is T0 + periodic_count P
 *   control rules {
 *     var periodic_step := H;
 *     if (T0 + periodic_count * P <= t + 1e-9 P) { periodic_count := floor((t - T0) / P + 1e-9) + 1; }
 *     var periodic_next := T0 + periodic_count * P;
 *     if (t + H > periodic_next + 1e-9 P) { periodic_step := periodic_next - t; }
 *     else if (t + H >= periodic_next - 1e-9 P) {
 *       <the triggered body, stepping each inner to t + H>; periodic_count := periodic_count + 1;
 *     }
 *     return periodic_step;
 *   }
 *
 * Multiplied (`multiplied N times`): N inner steps of H / N per external step; the in rules
 * run once per inner step and see the same stored inputs, so the inputs are held:
 *
 *   control rules {
 *     var micro_step := H / N; var inner_time := t;
 *     for (var micro in 0 .. N) { do_step(f, inner_time, micro_step); ...;
 *                                 inner_time := inner_time + micro_step; }
 *     return H;
 *   }
 * Preconditions:
 *   1. the inner FMUs can be ordered by their couplings (no algebraic loop);
 *   2. (Triggered) E is Bool (the checker's);
 *   3. (Periodic) P is not a literal of 0 or less; every inner FMU can save and restore
 *      its state (a rejected step returns the wrapper and its inners to t: without, the
 *      wrapper could not land on the instants);
 *   4. (Multiplied) N is an Integer expression (the loop's bound), and not a literal
 *      below 1. */

/* The inners in the order of their couplings; NULL after a report (precondition 1). */
static Inner **ordered_inners(Rewrite *w, const char *form)
{
	Inner **order = lw_step_order(w, NULL, 0);
	if (!order) {
		diag_error(w->c->diag, w->at, "%s: the inner fmus form an algebraic loop; '%s' "
			   "cannot order their steps", w->rule, form);
		diag_note(w->c->diag, w->at, "solve the loop in an inner adaptation (successive "
			  "substitution) and use the form on it");
		w->failed = true;
	}
	return order; /* (1) */
}

/* Each inner steps from the time it last stepped to t + H, the step in *step_d shortened
 * to what the inners took.  NULL after a report. */
static Node *catch_up(Rewrite *w, Inner **order, Node *step_d, const char *prefix)
{
	Node *stmts = NULL;
	for (int i = 0; i < w->info->ninners; i++) {
		Inner *in = order[i];
		Node *from_d = NULL, *h_d = NULL;
		Node *from_v = lw_new_local(w, rw_printf(w, "%s_%s", prefix, in->name), TY_REAL,
					 rw_fmu_call(w, BI_LAST_EXECUTION_TIME, in, NULL), &from_d);
		if (!from_v)
			return NULL;
		Node *span = rw_binary(w, OP_SUB, rw_binary(w, OP_ADD, rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H)),
				    rw_ref(w, from_d, SYM_LOCAL));
		Node *call = rw_fmu_call(w, BI_DO_STEP, in, rw_list2(rw_ref(w, from_d, SYM_LOCAL), span));
		Node *h_v = lw_new_local(w, rw_printf(w, "H_%s", in->name), TY_REAL, call, &h_d);
		if (!h_v)
			return NULL;
		Node *reached = rw_binary(w, OP_SUB, rw_binary(w, OP_ADD, rw_ref(w, from_d, SYM_LOCAL),
							 rw_ref(w, h_d, SYM_LOCAL)), rw_keyvar(w, KV_T));
		Node *upd = rw_assign(w, rw_ref(w, step_d, SYM_LOCAL),
			rw_builtin(w, BI_MIN, rw_list2(rw_ref(w, step_d, SYM_LOCAL), reached)));
		/* Only a shorter step shortens: the whole span, recomputed as from + H_f - t,
		 * rounds by ulps of t, which a short step far from 0 would take for a rejection. */
		Node *span_again = rw_binary(w, OP_SUB, rw_binary(w, OP_ADD, rw_keyvar(w, KV_T),
							    rw_keyvar(w, KV_BIG_H)),
					  rw_ref(w, from_d, SYM_LOCAL));
		Node *shorter = rw_if(w, rw_binary(w, OP_LT, rw_ref(w, h_d, SYM_LOCAL), span_again),
				      upd, NULL);
		stmts = ast_append(stmts, from_v);
		stmts = ast_append(stmts, h_v);
		stmts = ast_append(stmts, shorter);
	}
	return stmts;
}

void lw_triggered(Rewrite *w)
{
	Node *ctrl = w->form;
	Inner **order = ordered_inners(w, "triggered by");
	if (!order)
		return; /* (1) */
	Node *step_d = NULL;
	Node *stmts = lw_new_local(w, "triggered_step", TY_REAL, rw_keyvar(w, KV_BIG_H), &step_d);
	Node *body = stmts ? catch_up(w, order, step_d, "from") : NULL;
	if (!body)
		return;
	stmts = ast_append(stmts, rw_if(w, ctrl->cond, body, NULL));
	stmts = ast_append(stmts, rw_return(w, rw_ref(w, step_d, SYM_LOCAL)));
	rw_set_control(w, stmts);
}

void lw_periodic(Rewrite *w)
{
	Node *ctrl = w->form;
	Node *P = ctrl->rhs;
	if ((P->kind == ND_INT && P->ival <= 0) || (P->kind == ND_REAL && !(P->rval > 0))) {
		diag_error(w->c->diag, P->loc, "Periodic: the period must be greater than 0");
		return; /* (3) */
	}
	if (!lw_all_can_rollback(w, "the wrapper lands on each instant by rejecting the step "
				 "that would pass it"))
		return; /* (3) */
	Inner **order = ordered_inners(w, "periodic");
	if (!order)
		return; /* (1) */
	Node *T0 = ctrl->lhs ? ctrl->lhs : rw_real(w, 0.0);
	Node *count = lw_new_ctrl_var(w, "periodic_count", TY_INTEGER, rw_int(w, 0),
				   "the number of the next instant");
	if (!count || !lw_fresh(w, "periodic_next", "a local of the generated control rules"))
		return;
	Node *step_d = NULL, *next_d = NULL;
	Node *stmts = lw_new_local(w, "periodic_step", TY_REAL, rw_keyvar(w, KV_BIG_H), &step_d);
	if (!stmts)
		return;
	/* tol = 1e-9 P: how close to an instant a step must end to end on it */
#define TOL() rw_binary(w, OP_MUL, rw_real(w, 1e-9), rw_clone(w, P))
#define INSTANT() rw_binary(w, OP_ADD, rw_clone(w, T0), rw_binary(w, OP_MUL, \
			rw_ref(w, count, SYM_CTRL_VAR), rw_clone(w, P)))
	Node *first = rw_assign(w, rw_ref(w, count, SYM_CTRL_VAR),
		rw_binary(w, OP_ADD, rw_builtin(w, BI_FLOOR, rw_binary(w, OP_ADD,
			rw_binary(w, OP_DIV, rw_binary(w, OP_SUB, rw_keyvar(w, KV_T), rw_clone(w, T0)), rw_clone(w, P)),
			rw_real(w, 1e-9))), rw_int(w, 1)));
	stmts = ast_append(stmts, rw_if(w, rw_binary(w, OP_LE, INSTANT(),
		rw_binary(w, OP_ADD, rw_keyvar(w, KV_T), TOL())), first, NULL));
	stmts = ast_append(stmts, rw_local(w, "periodic_next", TY_REAL, INSTANT(), &next_d));
	Node *end = rw_binary(w, OP_ADD, rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H));
	Node *reject = rw_assign(w, rw_ref(w, step_d, SYM_LOCAL),
		rw_binary(w, OP_SUB, rw_ref(w, next_d, SYM_LOCAL), rw_keyvar(w, KV_T)));
	Node *body = catch_up(w, order, step_d, "from");
	if (!body)
		return;
	body = ast_append(body, rw_assign(w, rw_ref(w, count, SYM_CTRL_VAR),
		rw_binary(w, OP_ADD, rw_ref(w, count, SYM_CTRL_VAR), rw_int(w, 1))));
	Node *on = rw_if(w, rw_binary(w, OP_GE, rw_clone(w, end), rw_binary(w, OP_SUB,
		rw_ref(w, next_d, SYM_LOCAL), TOL())), body, NULL);
	stmts = ast_append(stmts, rw_if(w, rw_binary(w, OP_GT, end, rw_binary(w, OP_ADD,
		rw_ref(w, next_d, SYM_LOCAL), TOL())), reject, on));
#undef TOL
#undef INSTANT
	stmts = ast_append(stmts, rw_return(w, rw_ref(w, step_d, SYM_LOCAL)));
	rw_set_control(w, stmts);
}

void lw_multiplied(Rewrite *w)
{
	Node *ctrl = w->form;
	Node *N = ctrl->lhs;
	if (lw_type_of(N) != TY_INTEGER || (N->kind == ND_INT && N->ival < 1)) {
		diag_error(w->c->diag, N->loc, "Multiplied: the count must be an Integer of at least 1 "
			   "(it bounds the loop over the inner steps)");
		return; /* (4) */
	}
	Inner **order = ordered_inners(w, "multiplied");
	if (!order)
		return; /* (1) */
	Node *stmts = lw_micro_steps(w, N, order);
	if (!stmts)
		return;
	stmts = ast_append(stmts, rw_return(w, rw_keyvar(w, KV_BIG_H)));
	rw_set_control(w, stmts);
}

/* ---- Implied ---------------------------------------------------------------------------
 * `implied`, the default control form, written out as CreateCtrlRules would write the
 * control rules of an adaptation without any: each inner steps by H from t, in coupling
 * order, and the step taken is the shortest of theirs.  Runs after every other form (a
 * form that generates control rules takes `implied` as no control rules at all).
 *
 *   control rules { var H_f := do_step(f, t, H); ...; return min(H_f, ...); }
 * Preconditions:
 *   1. the inner FMUs can be ordered by their couplings (no algebraic loop). */

void lw_implied(Rewrite *w)
{
	Inner **order = ordered_inners(w, "implied");
	if (!order)
		return; /* (1) */
	Node *steps = NULL;
	Node *stmts = lw_step_each(w, order, &steps);
	if (w->failed)
		return;
	stmts = ast_append(stmts, rw_return(w, lw_min_step(w, steps)));
	rw_set_control(w, stmts);
}

