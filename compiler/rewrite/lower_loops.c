/* lower_loops.c — the lowering of the forms that tear an algebraic loop between the
 * inner FMUs at a port: successive substitution (iterated to a fixed point) and delay (fed
 * the previous step's value) (a family of lower.c; see lower_forms.h). */
#include "lower_forms.h"

#include <string.h>

/* ---- SuccessiveSubstitution -----------------------------------------------------------
 * `successive substitution starts at P (and Q) with absolute tolerance = A and relative
 * tolerance = R`: tears the loop at P, Q — an inner input cuts the coupling s.o -> P
 * into it, an inner output the couplings out of it — and iterates, from the last value
 * of each cut coupling's source s.o, until it stops changing:
 *
 *   param SUBSTITUTION_MAXITER := 10;              (unless the user declares it)
 *   control var guess_<s>_<o> := <start of s.o>;
 *   control rules {
 *     var converged := false; var step := H;
 *     for (var iteration in 0 .. SUBSTITUTION_MAXITER) {
 *       save_state(f); ...                          every inner, in step order
 *       f.P := <converted guess_<s>_<o>>;
 *       do_step(f, t, H); ...                       order of the couplings not torn
 *       converged := is_close(guess_<s>_<o>, s.o, R, A) and ...;
 *       guess_<s>_<o> := s.o;
 *       if (converged) { break; } else { rollback(f); ... }
 *     }
 *     if (not converged) { step := H / 2; }          rejected: retry with a shorter step
 *     return step;
 *   }
 * Preconditions:
 *   1. the adaptation has no control rules of its own and no other control form (the
 *      runner checks it: the form generates the control rules, RW_GENERAL_FORM);
 *   2. each P is an inner port on a coupling, of type Real or Integer;
 *   3. every inner FMU can save and restore its state;
 *   4. no loop remains once the couplings into P, Q are cut;
 *   5. SUBSTITUTION_MAXITER, if the user declares it, is a parameter. */

/* The couplings the form cuts (precondition 2): into each port P that is an inner input,
 * out of each P that is an inner output.  NULL after a report. */
static Node **torn_couplings(Rewrite *w, Node *g, int *ncut, bool numeric)
{
	int n = ast_count(w->sa->a_couplings);
	Node **cut = arena_alloc(w->c->arena, (size_t)(n + 1) * sizeof *cut);
	*ncut = 0;
	for (Node *p = g->list1; p; p = p->next) {
		int found = 0;
		for (Node *cp = w->sa->a_couplings; cp; cp = cp->next) {
			Node *end = p->sym == SYM_INNER_IN ? cp->rhs : cp->lhs;
			if ((p->sym != SYM_INNER_IN && p->sym != SYM_INNER_OUT) || !p->owner ||
			    strcmp(end->owner, p->owner) != 0 || strcmp(end->name, p->name) != 0)
				continue;
			found++;
			if (!lw_torn(cp, cut, *ncut))
				cut[(*ncut)++] = cp;
		}
		if (!found) {
			diag_error(w->c->diag, p->loc, "%s: '%s%s%s' must be an inner port on a "
				   "coupling (the loop is cut there)", w->rule,
				   p->owner ? p->owner : "", p->owner ? "." : "", p->name);
			w->failed = true;
			continue;
		}
		Inner *in = sema_inner(w->info, p->owner);
		InnerPort *ip = in ? sema_inner_port(in, p->name) : NULL;
		if (numeric && ip && ip->type != TY_REAL && ip->type != TY_INTEGER) {
			diag_error(w->c->diag, p->loc, "%s: '%s.%s' is %s; successive substitution "
				   "compares numbers", w->rule, p->owner, p->name,
				   ast_type_name(ip->type));
			w->failed = true;
		}
	}
	return w->failed ? NULL : cut;
}

/* For each cut coupling, the index of the first cut coupling with the same source: one
 * guess (or delayed value) per source, fed to every input it reaches. */
static int *same_source(Rewrite *w, Node **cut, int ncut)
{
	int *first = arena_alloc(w->c->arena, (size_t)(ncut + 1) * sizeof *first);
	for (int i = 0; i < ncut; i++) {
		first[i] = i;
		for (int j = 0; j < i && first[i] == i; j++)
			if (strcmp(cut[j]->lhs->owner, cut[i]->lhs->owner) == 0 &&
			    strcmp(cut[j]->lhs->name, cut[i]->lhs->name) == 0)
				first[i] = j;
	}
	return first;
}

static Node *source_ref(Rewrite *w, Node *cp)
{
	return rw_port(w, cp->lhs->owner, cp->lhs->name, cp->lhs->decl, SYM_INNER_OUT);
}

static Node *source_start(Rewrite *w, Node *cp)
{
	Inner *in = sema_inner(w->info, cp->lhs->owner);
	InnerPort *ip = in ? sema_inner_port(in, cp->lhs->name) : NULL;
	return ip ? lw_start_value(w, in, ip) : rw_real(w, 0.0);
}

static SaType source_type(Rewrite *w, Node *cp)
{
	Inner *in = sema_inner(w->info, cp->lhs->owner);
	InnerPort *ip = in ? sema_inner_port(in, cp->lhs->name) : NULL;
	return ip && ip->type != TY_NONE ? ip->type : TY_REAL;
}

/* cp's target := converted value. */
static Node *feed(Rewrite *w, Node *cp, Node *value)
{
	return rw_coupled(w, cp, value);
}

/* The loop as torn by the form: the couplings cut, one source each, the inners' order. */
typedef struct Torn {
	Node **cut;
	int ncut;
	int *src;       /* src[i]: the first cut coupling with cut[i]'s source */
	Inner **order;  /* the inners in the order of the couplings not cut */
} Torn;

/* Cuts the loop at the form's ports (precondition 2: each an inner port on a coupling, a
 * number when numeric) and orders the inners (then no loop may remain); false after a
 * report.  The form's other preconditions (between, numbered in) are checked by more. */
static bool tear(Rewrite *w, Torn *t, bool numeric, bool (*more)(Rewrite *w))
{
	t->cut = torn_couplings(w, w->form, &t->ncut, numeric);
	if (!t->cut)
		return false; /* (2) */
	if (more && !more(w))
		return false;
	t->order = lw_step_order(w, t->cut, t->ncut);
	if (!t->order) {
		diag_error(w->c->diag, w->at, "%s: the inner fmus still form an algebraic loop "
			   "when the couplings into the ports named here are cut", w->rule);
		diag_note(w->c->diag, w->at, "name one more port of the loop (`at P and Q`)");
		w->failed = true;
		return false;
	}
	t->src = same_source(w, t->cut, t->ncut);
	return true;
}

/* A control var per source of a cut coupling (prefix_<s>_<o>, what: its purpose), held[i]
 * the one cut[i] reads; NULL entries after a collision. */
static Node **source_vars(Rewrite *w, const Torn *t, const char *prefix, const char *what)
{
	Node **held = arena_alloc(w->c->arena, (size_t)(t->ncut + 1) * sizeof *held);
	for (int i = 0; i < t->ncut; i++) {
		Node *s = t->cut[i]->lhs;
		held[i] = t->src[i] != i ? held[t->src[i]]
			  : lw_new_ctrl_var(w, rw_printf(w, "%s_%s_%s", prefix, s->owner, s->name),
					    source_type(w, t->cut[i]), source_start(w, t->cut[i]),
					    rw_printf(w, "%s '%s.%s'", what, s->owner, s->name));
	}
	return held;
}

static bool substitution_can_rollback(Rewrite *w)
{
	return lw_all_can_rollback(w, "every iteration rolls the loop back"); /* (3) */
}

/* The iteration bound: the user's parameter SUBSTITUTION_MAXITER, else one made with 10. */
static Node *max_iterations(Rewrite *w)
{
	int sym;
	Node *maxiter = lw_find_user(w->sa, "SUBSTITUTION_MAXITER", &sym);
	if (maxiter && sym != SYM_PARAM) {
		lw_fresh(w, "SUBSTITUTION_MAXITER", "the iteration bound");
		return NULL; /* (5) */
	}
	if (!maxiter) {
		maxiter = rw_decl(w, "SUBSTITUTION_MAXITER", TY_INTEGER, rw_int(w, 10), DECL_PARAM);
		w->sa->a_params = ast_append(w->sa->a_params, maxiter);
	}
	return maxiter;
}

/* One iteration: save the states, feed the guesses, step, compare (into conv_d), take the
 * new guesses, then break or roll back. */
static Node *iteration(Rewrite *w, const Torn *t, Node **guess, Node *conv_d)
{
	Node *g = w->form;
	Node *rtol = lw_setting(g->list2, SET_REL_TOL), *atol = lw_setting(g->list2, SET_ABS_TOL);
	Node *body = NULL, *back = NULL, *test = NULL, *update = NULL;
	for (int i = 0; i < w->info->ninners; i++) {
		body = ast_append(body, rw_call_stmt(w, rw_fmu_call(w, BI_SAVE_STATE, t->order[i], NULL)));
		back = ast_append(back, rw_call_stmt(w, rw_fmu_call(w, BI_ROLLBACK, t->order[i], NULL)));
	}
	for (int i = 0; i < t->ncut; i++)
		body = ast_append(body, feed(w, t->cut[i], rw_ref(w, guess[i], SYM_CTRL_VAR)));
	for (int i = 0; i < w->info->ninners; i++)
		body = ast_append(body, rw_call_stmt(w, rw_fmu_call(w, BI_DO_STEP, t->order[i],
						rw_list2(rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H)))));
	for (int i = 0; i < t->ncut; i++) {
		if (t->src[i] != i)
			continue;
		Node *close = lw_is_close(w, rw_ref(w, guess[i], SYM_CTRL_VAR),
					  source_ref(w, t->cut[i]), rtol, atol);
		test = test ? rw_binary(w, OP_AND, test, close) : close;
		update = ast_append(update, rw_assign(w, rw_ref(w, guess[i], SYM_CTRL_VAR),
						      source_ref(w, t->cut[i])));
	}
	body = ast_append(body, rw_assign(w, rw_ref(w, conv_d, SYM_LOCAL), test));
	body = ast_append(body, update);
	return ast_append(body, rw_if(w, rw_ref(w, conv_d, SYM_LOCAL), rw_node(w, ND_BREAK), back));
}

void lw_successive_substitution(Rewrite *w)
{
	Torn t;
	if (!tear(w, &t, true, substitution_can_rollback))
		return; /* (2), (3), (4) */
	Node *maxiter = max_iterations(w);
	if (!maxiter)
		return; /* (5) */
	Node **guess = source_vars(w, &t, "guess", "the guess for");
	Node *conv_d = NULL, *step_d = NULL, *iter_d = NULL;
	Node *conv_v = lw_new_local(w, "converged", TY_BOOL, rw_bool(w, false), &conv_d);
	Node *step_v = lw_new_local(w, "step", TY_REAL, rw_keyvar(w, KV_BIG_H), &step_d);
	if (w->failed || !lw_fresh(w, "iteration", "the loop variable of the generated control rules"))
		return;
	Node *loop = rw_for(w, "iteration", rw_int(w, 0), rw_ref(w, maxiter, SYM_PARAM), &iter_d);
	loop->then->list1 = iteration(w, &t, guess, conv_d);
	Node *stmts = rw_list2(conv_v, step_v);
	stmts = ast_append(stmts, loop);
	stmts = ast_append(stmts, rw_if(w, rw_not(w, rw_ref(w, conv_d, SYM_LOCAL)),
		rw_assign(w, rw_ref(w, step_d, SYM_LOCAL),
			  rw_binary(w, OP_DIV, rw_keyvar(w, KV_BIG_H), rw_real(w, 2.0))), NULL));
	stmts = ast_append(stmts, rw_return(w, rw_ref(w, step_d, SYM_LOCAL)));
	rw_set_control(w, stmts);
	rw_consume_form(w);
}

/* ---- Delay -------------------------------------------------------------------------------
 * `delay at P (and Q)`: cuts the loop at P, Q as successive substitution does, feeding
 * each cut coupling's target the value its source s.o had at the end of the previous step:
 *
 *   control var delayed_<s>_<o> := <start of s.o>;
 *   control rules {
 *     f.P := <converted delayed_<s>_<o>>; ...
 *     var H_<f> := do_step(f, t, H); ...          order of the couplings not cut
 *     delayed_<s>_<o> := s.o; ...
 *     return min(H_<f>, ...);
 *   }
 * Preconditions:
 *   1. the adaptation has no control rules of its own and no other control form (the
 *      runner checks it: the form generates the control rules, RW_GENERAL_FORM);
 *   2. each P is an inner port on a coupling;
 *   3. no loop remains once the couplings into P, Q are cut. */

void lw_delay(Rewrite *w)
{
	Torn t;
	if (!tear(w, &t, false, NULL))
		return; /* (2), (3) */
	Node **held = source_vars(w, &t, "delayed", "the delayed value of");
	Node *stmts = NULL, *steps = NULL;
	for (int i = 0; i < t.ncut && held[i]; i++)
		stmts = ast_append(stmts, feed(w, t.cut[i], rw_ref(w, held[i], SYM_CTRL_VAR)));
	stmts = ast_append(stmts, lw_step_each(w, t.order, &steps));
	if (w->failed)
		return;
	for (int i = 0; i < t.ncut; i++)
		if (t.src[i] == i)
			stmts = ast_append(stmts, rw_assign(w, rw_ref(w, held[i], SYM_CTRL_VAR),
							    source_ref(w, t.cut[i])));
	stmts = ast_append(stmts, rw_return(w, lw_min_step(w, steps)));
	rw_set_control(w, stmts);
	rw_consume_form(w);
}
