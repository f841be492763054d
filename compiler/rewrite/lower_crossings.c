/* lower_crossings.c — the lowering of crossings (`a >! b`, `a <! b`) in the conditions
 * of in and out rules: the step is rejected, and retried shorter, until it ends on the
 * crossing within tolerance (a family of lower.c; see lower_forms.h). */
#include "lower_forms.h"

#include <stdio.h>

/* ---- Crossing -------------------------------------------------------------------------------
 * `in rules with crossing absolute tolerance = A and relative tolerance = R { ... }`: each
 * `a >! b` (a crosses b from below) or `a <! b` (from above) in a rule's condition, k-th
 * in the block, becomes
 *
 *   in var crossing_k_left := 0.0, crossing_k_right := 0.0;     a and b at the step's start
 *   in var crossing_k_left_now := 0.0, crossing_k_right_now := 0.0;   a and b now
 *   in var crossing_known := false;                 the start values are known (after Init)
 *   condition:  crossing_known and crossing_k_left_now < crossing_k_right_now and
 *               not is_close(crossing_k_left_now, crossing_k_right_now, R, A) and
 *               is_close(a, b, R, A)                                  (> for `<!`)
 *   in rules { ...; true -> { crossing_k_left := crossing_k_left_now;
 *                             crossing_k_right := crossing_k_right_now;
 *                             crossing_k_left_now := a; crossing_k_right_now := b;
 *                             crossing_known := true; }; }
 *   control rules {
 *     var crossing_step := H;
 *     if (crossing_k_left < crossing_k_right and not is_close(left, right, R, A) and
 *         not is_close(left_now, right_now, R, A) and crossing_k_left_now > crossing_k_right_now) {
 *       crossing_step := min(crossing_step, H * (left - right) / ((left - right) - (left_now - right_now)));
 *     } ...
 *     if (crossing_step >= H) { <the control rules' statements>; crossing_step := <their return>; }
 *     return crossing_step;
 *   }
 *
 * Conditions are all evaluated before any `->` part runs (the rule flags), so inside them
 * crossing_k_left_now still holds a at the step's start, and a itself its value now.  The
 * In part also runs at Init, which records the first start values.  A rejected step
 * (crossing_step < H: regula falsi proposes the step that ends on the crossing) returns
 * the wrapper to its state at t, in vars included, so the start values move only with a
 * step taken whole.  The control rules wrapped are the user's, another form's, or, when
 * there are none, the default ones (each inner stepped in coupling order, `return min(H_f)`).
 * Preconditions:
 *   1. the crossings are in in rules' conditions, an expression or a condition block's
 *      `return e` (out rules: not lowered yet, which the checker reports; in a block, the
 *      block's own vars are refused by 5).  A rule's own settings
 *      (`cond with absolute tolerance = X`) replace the block's for its crossings;
 *   2. the crossing's signal a is Real;
 *   3. without control rules, the inner FMUs can be ordered by their couplings;
 *   4. the adaptation is reactive: a delayed one's In sees the inputs at t, which no
 *      shorter step moves, so the retries could not approach the crossing;
 *   5. a and b read only input ports, parameters, literals, t and H: an in var is
 *      written by the `->` parts after the conditions read it, a control var or an inner
 *      output by the step after them, so none moves with the step being tried. */

typedef struct Cross {
	Node *cmp;                    /* the user's a >! b */
	Node *rtol, *atol;            /* its tolerances (the rule's, else the block's) */
	Node *left, *right, *left_now, *right_now;
} Cross;

static SaType signal_type(Rewrite *w, const Node *e)
{
	if (e->kind == ND_PORT_REF && e->owner && e->sym != SYM_INPORT && e->sym != SYM_OUTPORT) {
		Inner *in = sema_inner(w->info, e->owner);
		InnerPort *ip = in ? sema_inner_port(in, e->name) : NULL;
		return ip ? ip->type : TY_NONE;
	}
	if (e->kind == ND_PORT_REF)
		return e->decl ? e->decl->type : TY_NONE;
	return lw_type_of(e);
}

/* The first reference under e a crossing may not read, or NULL: what does not move with the
 * step being tried (in rules: precondition 5; out rules, where inner outputs have stepped
 * when the conditions are read: precondition 2 of CrossingOut). */
static const Node *unsteady(const Node *e, bool inner_outputs_move)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case ND_INT:
	case ND_REAL:
	case ND_BOOL:
		return NULL;
	case ND_KEYVAR:
		return e->op == KV_T || e->op == KV_BIG_H ? NULL : e;
	case ND_NAME:
	case ND_PORT_REF:
		return e->sym == SYM_INPORT || e->sym == SYM_PARAM ||
		       (inner_outputs_move && e->sym == SYM_INNER_OUT) ? NULL : e;
	case ND_UNARY:
	case ND_BINARY: {
		const Node *l = unsteady(e->lhs, inner_outputs_move);
		return l ? l : unsteady(e->rhs, inner_outputs_move);
	}
	case ND_BUILTIN:
		if (e->op == BI_IS_SET || e->name)
			return e;
		for (const Node *a = e->list1; a; a = a->next) {
			const Node *bad = unsteady(a, inner_outputs_move);
			if (bad)
				return bad;
		}
		return NULL;
	default:
		return e;
	}
}

/* Whether the signal of crossing x (its left operand) is Real: a crossing is located by
 * interpolating it.  Reports it otherwise. */
static bool real_signal(Rewrite *w, const Node *x)
{
	SaType ta = signal_type(w, x->lhs);
	if (ta == TY_REAL || ta == TY_NONE)
		return true;
	diag_error(w->c->diag, x->lhs->loc, "%s: the signal of '%s' must be Real, not %s "
		   "(a crossing is located by interpolating it)", w->rule, ast_op_spelling(x->op),
		   ast_type_name(ta));
	w->failed = true;
	return false;
}

/* Replaces every crossing under *e (collected in xs), numbering them from *n. */
static void replace_crossings(Rewrite *w, Node **e, Cross *xs, int *n, int max, Node *known,
			      Node *rtol, Node *atol)
{
	Node *x = *e;
	if (!x)
		return; /* after a failure, on to report the other crossings */
	if (x->kind == ND_BINARY && (x->op == OP_CROSS_UP || x->op == OP_CROSS_DOWN)) {
		if (*n >= max)
			return;
		if (!real_signal(w, x))
			return; /* (2) */
		const Node *bad = unsteady(x->lhs, false);
		if (!bad)
			bad = unsteady(x->rhs, false);
		if (bad) {
			diag_error(w->c->diag, bad->loc, "%s: '%s' may read only input ports, parameters, "
				   "literals, t and H (the values that move with the step being tried)",
				   w->rule, ast_op_spelling(x->op));
			if (bad->sym == SYM_LOCAL)
				diag_note(w->c->diag, bad->loc, "a var of the condition block is computed "
					  "once per step, not again as the step tried shrinks; cross the "
					  "input port it is computed from");
			else
				diag_note(w->c->diag, bad->loc, "in rule conditions see in vars before this "
					  "step's `->` parts write them, control vars and inner outputs "
					  "before the step; cross the input port they are read from");
			w->failed = true;
			return; /* (5) */
		}
		Cross *c = &xs[(*n)++];
		c->cmp = x;
		c->rtol = rtol;
		c->atol = atol;
		char k[24];
		snprintf(k, sizeof k, "%d", *n);
		const char *purpose = "a crossing's values";
		c->left = lw_new_in_var(w, rw_printf(w, "crossing_%s_left", k), TY_REAL, rw_real(w, 0.0), purpose);
		c->right = lw_new_in_var(w, rw_printf(w, "crossing_%s_right", k), TY_REAL, rw_real(w, 0.0), purpose);
		c->left_now = lw_new_in_var(w, rw_printf(w, "crossing_%s_left_now", k), TY_REAL, rw_real(w, 0.0), purpose);
		c->right_now = lw_new_in_var(w, rw_printf(w, "crossing_%s_right_now", k), TY_REAL, rw_real(w, 0.0), purpose);
		if (w->failed)
			return;
		Op before = x->op == OP_CROSS_UP ? OP_LT : OP_GT;
		Node *r = rw_binary(w, OP_AND, rw_ref(w, known, SYM_IN_VAR),
			rw_binary(w, before, rw_ref(w, c->left_now, SYM_IN_VAR),
			       rw_ref(w, c->right_now, SYM_IN_VAR)));
		r = rw_binary(w, OP_AND, r, rw_not(w, lw_is_close(w, rw_ref(w, c->left_now, SYM_IN_VAR),
			rw_ref(w, c->right_now, SYM_IN_VAR), rtol, atol)));
		r = rw_binary(w, OP_AND, r, lw_is_close(w, rw_clone(w, x->lhs), rw_clone(w, x->rhs), rtol, atol));
		*e = r;
		return;
	}
	replace_crossings(w, &x->lhs, xs, n, max, known, rtol, atol);
	replace_crossings(w, &x->rhs, xs, n, max, known, rtol, atol);
}

static int count_crossings(const Node *e)
{
	if (!e)
		return 0;
	return (e->kind == ND_BINARY && (e->op == OP_CROSS_UP || e->op == OP_CROSS_DOWN)) +
	       count_crossings(e->lhs) + count_crossings(e->rhs);
}

/* The default control rules' statements (as CreateCtrlRules would write them), ending in
 * `step := min(H_f, ...)`; NULL after a report. */
static Node *default_control(Rewrite *w, Node *step_d)
{
	Inner **order = lw_step_order(w, NULL, 0);
	if (!order) {
		diag_error(w->c->diag, w->at, "%s: the inner fmus form an algebraic loop; the "
			   "crossing's control rules cannot order their steps", w->rule);
		w->failed = true;
		return NULL; /* (3) */
	}
	Node *steps = NULL;
	Node *stmts = lw_step_each(w, order, &steps);
	if (w->failed)
		return NULL;
	return ast_append(stmts, rw_assign(w, rw_ref(w, step_d, SYM_LOCAL), lw_min_step(w, steps)));
}

/* The statements of the control rules the crossings wrap, ending in `step := <their
 * return>`: the user's or another form's (taken out of them), or the default ones.  NULL
 * after a report (`refused`: the control forms not lowered with crossings). */
static Node *wrapped_control(Rewrite *w, Node *step_d, const char *refused)
{
	Node *ctrl = w->sa->a_ctrl;
	if (!ctrl || ctrl->kind == ND_CTRL_IMPLIED)
		return default_control(w, step_d);
	if (ctrl->kind != ND_CTRL) {
		diag_error(w->c->diag, w->at, "%s: crossing settings with %s cannot be lowered yet",
			   w->rule, refused);
		w->failed = true;
		return NULL; /* not lowered: triggered, periodic, multiplied */
	}
	Node *ret = ast_last(ctrl->body->list1);
	Node *body = NULL;
	for (Node *s = ctrl->body->list1, *next; s && s != ret; s = next) {
		next = s->next;
		s->next = NULL;
		body = ast_append(body, s);
	}
	return ast_append(body, rw_assign(w, rw_ref(w, step_d, SYM_LOCAL), ret->lhs));
}

/* Makes stmts the control rules; when they wrap another form's, they stay that form's, so
 * that no other form may combine with it. */
static void set_wrapping_control(Rewrite *w, Node *stmts)
{
	Node *ctrl = w->sa->a_ctrl;
	const char *origin = ctrl && ctrl->kind == ND_CTRL ? ctrl->origin : NULL;
	rw_set_control(w, stmts);
	if (origin)
		w->sa->a_ctrl->origin = origin;
}

/* The values a crossing's step control compares: the two sides at the step's start and
 * at its end. */
enum { LEFT, RIGHT, LEFT_NOW, RIGHT_NOW };
typedef Node *(*CrossValue)(Rewrite *w, const Cross *x, int which);

/* if (x crossed during the step) { step := min(step, <regula falsi>); } */
static Node *shorten_to_crossing(Rewrite *w, const Cross *x, Node *step_d, CrossValue v)
{
	Op before = x->cmp->op == OP_CROSS_UP ? OP_LT : OP_GT;
	Op after = x->cmp->op == OP_CROSS_UP ? OP_GT : OP_LT;
	Node *cond = rw_binary(w, before, v(w, x, LEFT), v(w, x, RIGHT));
	cond = rw_binary(w, OP_AND, cond, rw_not(w, lw_is_close(w, v(w, x, LEFT), v(w, x, RIGHT),
								 x->rtol, x->atol)));
	cond = rw_binary(w, OP_AND, cond, rw_not(w, lw_is_close(w, v(w, x, LEFT_NOW),
								 v(w, x, RIGHT_NOW), x->rtol, x->atol)));
	cond = rw_binary(w, OP_AND, cond, rw_binary(w, after, v(w, x, LEFT_NOW), v(w, x, RIGHT_NOW)));
	Node *d0 = rw_binary(w, OP_SUB, v(w, x, LEFT), v(w, x, RIGHT));
	Node *d1 = rw_binary(w, OP_SUB, v(w, x, LEFT_NOW), v(w, x, RIGHT_NOW));
	Node *falsi = rw_binary(w, OP_DIV, rw_binary(w, OP_MUL, rw_keyvar(w, KV_BIG_H), d0),
				rw_binary(w, OP_SUB, rw_clone(w, d0), d1));
	Node *upd = rw_assign(w, rw_ref(w, step_d, SYM_LOCAL),
		rw_builtin(w, BI_MIN, rw_list2(rw_ref(w, step_d, SYM_LOCAL), falsi)));
	return rw_if(w, cond, upd, NULL);
}

/* The crossings of a rules block: takes its crossing settings out of it (consumed, the
 * tolerances into *rtol and *atol, NULL when not given) and returns how many crossings its
 * rules' conditions hold, w->at at the settings or the first one. */
static int take_crossings(Rewrite *w, Node *rules, Node **rtol, Node **atol)
{
	Node *set = NULL;
	for (Node **s = &rules->list1; *s; s = &(*s)->next)
		if ((*s)->kind == ND_CROSSING) {
			set = *s;
			*s = set->next; /* consumed */
			set->next = NULL;
			break;
		}
	*rtol = set ? lw_setting(set->list1, SET_REL_TOL) : NULL;
	*atol = set ? lw_setting(set->list1, SET_ABS_TOL) : NULL;
	int max = 0;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_COND && r->cond && lw_cond_value(r) &&
		    count_crossings(*lw_cond_value(r))) {
			if (!max)
				w->at = set ? set->loc : r->cond->loc;
			max += count_crossings(*lw_cond_value(r));
		}
	return max;
}

/* In rules: the four in vars of a crossing. */
static Node *in_value(Rewrite *w, const Cross *x, int which)
{
	Node *vars[] = {x->left, x->right, x->left_now, x->right_now};
	return rw_ref(w, vars[which], SYM_IN_VAR);
}

/* The rule sampling a and b of each crossing after the conditions read them. */
static Node *sampling_rule(Rewrite *w, const Cross *xs, int n, Node *known)
{
	Node *sample = NULL;
	for (int i = 0; i < n; i++) {
		sample = ast_append(sample, rw_assign(w, rw_ref(w, xs[i].left, SYM_IN_VAR),
						      rw_ref(w, xs[i].left_now, SYM_IN_VAR)));
		sample = ast_append(sample, rw_assign(w, rw_ref(w, xs[i].right, SYM_IN_VAR),
						      rw_ref(w, xs[i].right_now, SYM_IN_VAR)));
		sample = ast_append(sample, rw_assign(w, rw_ref(w, xs[i].left_now, SYM_IN_VAR),
						      rw_clone(w, xs[i].cmp->lhs)));
		sample = ast_append(sample, rw_assign(w, rw_ref(w, xs[i].right_now, SYM_IN_VAR),
						      rw_clone(w, xs[i].cmp->rhs)));
	}
	sample = ast_append(sample, rw_assign(w, rw_ref(w, known, SYM_IN_VAR), rw_bool(w, true)));
	return rw_true_rule(w, rw_block(w, sample), NULL);
}

void lw_crossing(Rewrite *w)
{
	Node *rules = w->sa->a_in_rules, *rtol, *atol;
	if (!rules)
		return;
	int max = take_crossings(w, rules, &rtol, &atol);
	if (!max)
		return; /* settings without a crossing: nothing to do */
	if (w->sa->flags & KIND_DELAYED) {
		diag_error(w->c->diag, w->at, "%s: crossing settings need a reactive adaptation (a "
			   "delayed one reads its inputs at t, and no shorter step moves them)", w->rule);
		w->failed = true;
		return; /* (4) */
	}
	Node *known = lw_new_in_var(w, "crossing_known", TY_BOOL, rw_bool(w, false),
				    "whether the crossings' start values are known");
	if (!known || !lw_fresh(w, "crossing_step", "a local of the generated control rules"))
		return;
	Cross *xs = arena_alloc(w->c->arena, (size_t)max * sizeof *xs);
	int n = 0;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_COND && r->cond && lw_cond_value(r)) {
			/* the rule's own settings, each one over the block's */
			Node *rr = lw_setting(r->list1, SET_REL_TOL), *ra = lw_setting(r->list1, SET_ABS_TOL);
			replace_crossings(w, lw_cond_value(r), xs, &n, max, known, rr ? rr : rtol,
					  ra ? ra : atol);
			r->list1 = NULL;
		}
	if (w->failed)
		return;
	rules->list3 = ast_append(rules->list3, sampling_rule(w, xs, n, known));
	Node *step_d = NULL;
	Node *stmts = rw_local(w, "crossing_step", TY_REAL, rw_keyvar(w, KV_BIG_H), &step_d);
	for (int i = 0; i < n; i++)
		stmts = ast_append(stmts, shorten_to_crossing(w, &xs[i], step_d, in_value));
	Node *body = wrapped_control(w, step_d, "a declarative control form");
	if (!body)
		return;
	stmts = ast_append(stmts, rw_if(w, rw_binary(w, OP_GE, rw_ref(w, step_d, SYM_LOCAL),
						      rw_keyvar(w, KV_BIG_H)), body, NULL));
	stmts = ast_append(stmts, rw_return(w, rw_ref(w, step_d, SYM_LOCAL)));
	set_wrapping_control(w, stmts);
}

/* ---- CrossingOut ---------------------------------------------------------------------------
 * Crossing settings on out rules (`out rules with crossing ...`, or a rule's own settings):
 * `a >! b` over inner outputs.  The inner outputs move only when the inners step, so the
 * step is tried first and rejected afterwards when a was carried past b; the wrapper's
 * snapshot takes it, the inners included, back to t.  The values at the step's start are
 * sampled by the control rules into control vars before anything steps (the out rule
 * conditions, evaluated by MapOut after the step, see them):
 *
 *   control var out_crossing_<k>_left := 0.0, out_crossing_<k>_right := 0.0;
 *   out rules {
 *     out_crossing_k_left < out_crossing_k_right and not is_close(left, right, R, A) and
 *         is_close(a, b, R, A) -> ...                                   (was a >! b -> ...)
 *   }
 *   control rules {
 *     var out_crossing_step := H;
 *     out_crossing_<k>_left := a; out_crossing_<k>_right := b; ...
 *     <the control rules' statements>; out_crossing_step := <their return>;
 *     if (left < right and not is_close(left, right, R, A) and not is_close(a, b, R, A)
 *         and a > b) {
 *       out_crossing_step := min(out_crossing_step, H * (left - right) / ((left - right) - (a - b)));
 *     } ...
 *     return out_crossing_step;
 *   }
 *
 * In the control rules a and b read the inner outputs as stored after the last step
 * (ReplacePortsRefsByVars): before the inners step, their values at t; after, at t + H.
 * At Init both start values are 0, so no crossing fires there.  The control rules wrapped
 * are the user's, another form's (an in rule crossing's too: its rejection comes first),
 * or the default ones.
 * Preconditions:
 *   1. a is Real;
 *   2. a and b read only inner outputs, input ports, parameters, literals, t and H (out
 *      vars are written by the `->` parts after the conditions read them);
 *   3. every inner FMU can save and restore its state (the step is rejected after the
 *      inners stepped);
 *   4. without control rules, the inner FMUs can be ordered by their couplings. */

static void replace_crossings_out(Rewrite *w, Node **e, Cross *xs, int *n, int max, Node *rtol,
				  Node *atol)
{
	Node *x = *e;
	if (!x)
		return;
	if (x->kind == ND_BINARY && (x->op == OP_CROSS_UP || x->op == OP_CROSS_DOWN)) {
		if (*n >= max)
			return;
		if (!real_signal(w, x))
			return; /* (1) */
		const Node *bad = unsteady(x->lhs, true);
		if (!bad)
			bad = unsteady(x->rhs, true);
		if (bad) {
			diag_error(w->c->diag, bad->loc, "%s: '%s' on out rules may read only inner "
				   "outputs, input ports, parameters, literals, t and H (the values "
				   "that move with the step being tried)", w->rule,
				   ast_op_spelling(x->op));
			w->failed = true;
			return; /* (2) */
		}
		Cross *c = &xs[(*n)++];
		c->cmp = x;
		c->rtol = rtol;
		c->atol = atol;
		char k[24];
		snprintf(k, sizeof k, "%d", *n);
		const char *purpose = "a crossing's values at the step's start";
		c->left = lw_new_ctrl_var(w, rw_printf(w, "out_crossing_%s_left", k), TY_REAL,
				       rw_real(w, 0.0), purpose);
		c->right = lw_new_ctrl_var(w, rw_printf(w, "out_crossing_%s_right", k), TY_REAL,
					rw_real(w, 0.0), purpose);
		if (w->failed)
			return;
		Op before = x->op == OP_CROSS_UP ? OP_LT : OP_GT;
		Node *r = rw_binary(w, before, rw_ref(w, c->left, SYM_CTRL_VAR),
				 rw_ref(w, c->right, SYM_CTRL_VAR));
		r = rw_binary(w, OP_AND, r, rw_not(w, lw_is_close(w, rw_ref(w, c->left, SYM_CTRL_VAR),
			rw_ref(w, c->right, SYM_CTRL_VAR), rtol, atol)));
		r = rw_binary(w, OP_AND, r, lw_is_close(w, rw_clone(w, x->lhs), rw_clone(w, x->rhs), rtol, atol));
		*e = r;
		return;
	}
	replace_crossings_out(w, &x->lhs, xs, n, max, rtol, atol);
	replace_crossings_out(w, &x->rhs, xs, n, max, rtol, atol);
}

/* Out rules: the sides at the step's start in control vars; a and b themselves now. */
static Node *out_value(Rewrite *w, const Cross *x, int which)
{
	if (which == LEFT || which == RIGHT)
		return rw_ref(w, which == LEFT ? x->left : x->right, SYM_CTRL_VAR);
	return rw_clone(w, which == LEFT_NOW ? x->cmp->lhs : x->cmp->rhs);
}

void lw_crossing_out(Rewrite *w)
{
	Node *rules = w->sa->a_out_rules, *rtol, *atol;
	if (!rules)
		return;
	int max = take_crossings(w, rules, &rtol, &atol);
	if (!max)
		return;
	if (!lw_all_can_rollback(w, "a crossing on out rules rejects the step after the inners "
				 "stepped"))
		return; /* (3) */
	if (!lw_fresh(w, "out_crossing_step", "a local of the generated control rules"))
		return;
	Cross *xs = arena_alloc(w->c->arena, (size_t)max * sizeof *xs);
	int n = 0;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_COND && r->cond && lw_cond_value(r)) {
			Node *rr = lw_setting(r->list1, SET_REL_TOL), *ra = lw_setting(r->list1, SET_ABS_TOL);
			replace_crossings_out(w, lw_cond_value(r), xs, &n, max, rr ? rr : rtol,
					      ra ? ra : atol);
			r->list1 = NULL;
		}
	if (w->failed)
		return;
	Node *step_d = NULL;
	Node *stmts = rw_local(w, "out_crossing_step", TY_REAL, rw_keyvar(w, KV_BIG_H), &step_d);
	for (int i = 0; i < n; i++) {
		stmts = ast_append(stmts, rw_assign(w, rw_ref(w, xs[i].left, SYM_CTRL_VAR),
						    rw_clone(w, xs[i].cmp->lhs)));
		stmts = ast_append(stmts, rw_assign(w, rw_ref(w, xs[i].right, SYM_CTRL_VAR),
						    rw_clone(w, xs[i].cmp->rhs)));
	}
	Node *body = wrapped_control(w, step_d, "this control form");
	if (!body)
		return; /* (4) */
	stmts = ast_append(stmts, body);
	for (int i = 0; i < n; i++)
		stmts = ast_append(stmts, shorten_to_crossing(w, &xs[i], step_d, out_value));
	stmts = ast_append(stmts, rw_return(w, rw_ref(w, step_d, SYM_LOCAL)));
	set_wrapping_control(w, stmts);
}
