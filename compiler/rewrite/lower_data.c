/* lower_data.c — the lowering of the forms of in and out rules that shape the data they
 * move: `otherwise` conditions, quantized signals and output holds (a family of lower.c;
 * see lower_forms.h). */
#include "lower_forms.h"

#include <stdio.h>
#include <string.h>

/* ---- Otherwise ------------------------------------------------------------------------------
 * `otherwise -> ...` in in or out rules: the condition that holds when no earlier rule's
 * did.  All the block's conditions are evaluated before any `->` part runs, so it is
 * `not (c1 or c2 ...)` over the earlier conditions (cloned, crossings already lowered);
 * `true` when it is first, `false` after a rule without condition (which always applies).
 * After condition blocks `{ s; return e; }` it is a condition block itself, which
 * evaluates each again in a scope of its own (a condition block writes only its own vars,
 * so running it twice changes nothing):
 *
 *   { var Bool otherwise_<j> := false; if (true) { s; otherwise_<j> := e; } ...
 *     return not (otherwise_<j> or c2 ...); }
 * Preconditions:
 *   1. the names otherwise_<j> are free;
 *   2. no earlier condition block calls discard(x) (evaluated again, it would see the
 *      mark it cleared). */

/* Whether a discard(x) call is anywhere under n (its list siblings included). */
static bool discards(const Node *n)
{
	for (; n; n = n->next) {
		if (n->kind == ND_BUILTIN && n->op == BI_DISCARD)
			return true;
		if (discards(n->lhs) || discards(n->rhs) || discards(n->cond) || discards(n->then) ||
		    discards(n->els) || discards(n->list1))
			return true;
	}
	return false;
}

static void lower_otherwise_in(Rewrite *w, Node *rules)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next) {
		if (r->op != RULE_COND || !r->cond || r->cond->kind != ND_OTHERWISE)
			continue;
		w->at = r->cond->loc;
		Node *any = NULL, *pre = NULL;
		bool always = false;
		int j = 0;
		for (Node *p = rules->list3; p != r; p = p->next) {
			if (p->op == RULE_ASSIGN) {
				always = true;
				continue;
			}
			if (p->op != RULE_COND)
				continue;
			Node *value;
			if (p->cond->kind == ND_BLOCK) {
				if (discards(p->cond->list1)) {
					diag_error(w->c->diag, w->at, "the declarative form 'otherwise' cannot "
						   "be lowered yet after a condition block that calls discard");
					diag_note(w->c->diag, p->cond->loc, "the condition block; evaluated "
						  "again, it would see the input's mark cleared");
					w->failed = true;
					return; /* (2) */
				}
				Node *block = rw_clone(w, p->cond);
				Node *ret = ast_last(block->list1);
				if (!ret || ret->kind != ND_RETURN)
					continue; /* the checker reported it */
				char k[24];
				snprintf(k, sizeof k, "%d", ++j);
				Node *flag_d = NULL;
				Node *flag = lw_new_local(w, rw_printf(w, "otherwise_%s", k), TY_BOOL,
						       rw_bool(w, false), &flag_d);
				if (!flag)
					return; /* (1) */
				Node *body = NULL;
				for (Node *s = block->list1, *next; s && s != ret; s = next) {
					next = s->next;
					s->next = NULL;
					body = ast_append(body, s);
				}
				body = ast_append(body, rw_assign(w, rw_ref(w, flag_d, SYM_LOCAL), ret->lhs));
				pre = ast_append(pre, flag);
				pre = ast_append(pre, rw_if(w, rw_bool(w, true), body, NULL));
				value = rw_ref(w, flag_d, SYM_LOCAL);
			} else {
				value = rw_clone(w, p->cond);
			}
			any = any ? rw_binary(w, OP_OR, any, value) : value;
		}
		Node *cond = always ? rw_bool(w, false) : any ? rw_not(w, any) : rw_bool(w, true);
		r->cond = pre && !always ? rw_block(w, ast_append(pre, rw_return(w, cond))) : cond;
	}
}

void lw_otherwise(Rewrite *w)
{
	lower_otherwise_in(w, w->sa->a_in_rules);
	lower_otherwise_in(w, w->sa->a_out_rules);
}

/* ---- Hold ----------------------------------------------------------------------------------
 * `out rules with no hold | zero order hold | first order hold { ... }` (ZOH, FOH): how the
 * outputs bound to inner outputs (`y <- f.o`) are given between the inner steps, when a
 * control form (triggered, periodic) does not step every inner at every external step.
 * Each bound output keeps samples of f.o taken after f's steps, with the time f reached
 * (last_execution_time), in out vars the MapOut part writes; the Out part, at the end of
 * the external step (now = t + H; at Init, the start), gives
 *   zero order hold   the newest sample: the value f.o had when f last stepped;
 *   first order hold  the line through the two newest samples, extrapolated to now (the
 *                     newest sample while only one is known): exact for an f.o linear in
 *                     time, continuous at each inner step only if f.o was linear before;
 *   no hold           the newest sample on the external step that ends where f stepped
 *                     to (within 1e-9 H), else the type's zero: a signal present only at
 *                     the instants f computes it (an event), absent (0) in between.
 *
 *   out var hold_<y> := <start of f.o>, hold_<y>_time := 0.0;            every hold
 *   out var hold_<y>_previous := <start>, hold_<y>_previous_time := 0.0,
 *           Integer hold_<y>_samples := 0;                                FOH only
 *   out rules { true -> {
 *       if (hold_<y>_samples > 0 and last_execution_time(f) > hold_<y>_time) {   FOH
 *         hold_<y>_previous := hold_<y>; hold_<y>_previous_time := hold_<y>_time;
 *         hold_<y>_samples := 2; }
 *       hold_<y> := f.o; hold_<y>_time := last_execution_time(f);
 *       if (hold_<y>_samples == 0) { hold_<y>_samples := 1; }                     FOH
 *     } --> {
 *       sa.y := hold_<y>;                                                        ZOH
 *       if (hold_<y>_samples == 2) { sa.y := hold_<y> + (hold_<y> - hold_<y>_previous)
 *         * (t + H - hold_<y>_time) / (hold_<y>_time - hold_<y>_previous_time); }
 *       else { sa.y := hold_<y>; }                                               FOH
 *       if (hold_<y>_time >= t + H - 1e-9 * H) { sa.y := hold_<y>; } else { sa.y := 0.0; }   no hold
 *     }; ... }
 * (unit conversions of the binding applied to the value given).  The bindings are
 * removed: the generated rule feeds the ports.  MapOut runs after every inner's step; a
 * sample moves to the previous one only when f itself has stepped since.
 * Preconditions:
 *   1. one hold per rules block, on out rules (on in rules, or on one rule's output
 *      function: not lowered yet, which the checker reports);
 *   2. the adaptation has output ports bound to inner outputs;
 *   3. those ports are not String; for a first order hold, they are Real. */

/* The start value of inner output p, of any type but String. */
static Node *hold_start(Rewrite *w, const Inner *in, const InnerPort *p)
{
	if (p->type != TY_BOOL)
		return lw_start_value(w, in, p);
	Node *v = rw_start_literal(w, in, p);
	return v ? v : rw_bool(w, false);
}

static Node *type_zero(Rewrite *w, SaType t)
{
	return t == TY_BOOL ? rw_bool(w, false) : t == TY_INTEGER ? rw_int(w, 0) : rw_real(w, 0.0);
}

/* The hold of the out rules, taken out of their settings (consumed); NULL when there is
 * none, or after a report (precondition 1: w->failed). */
static Node *take_hold(Rewrite *w)
{
	Node *rules = w->sa->a_out_rules, *hold = NULL;
	for (Node **s = rules ? &rules->list1 : NULL; s && *s;) {
		if ((*s)->kind != ND_HOLD) {
			s = &(*s)->next;
			continue;
		}
		if (hold) {
			diag_error(w->c->diag, (*s)->loc, "Hold: one hold per rules block");
			diag_note(w->c->diag, hold->loc, "the first one");
			w->failed = true;
			return NULL; /* (1) */
		}
		hold = *s;
		*s = hold->next; /* consumed */
		hold->next = NULL;
	}
	return hold;
}

static bool held(const Node *p)
{
	return p->bind_dir == BIND_FROM && p->bind && p->bind->sym == SYM_INNER_OUT;
}

/* Preconditions 2 and 3 over the output ports the hold applies to. */
static bool holdable(Rewrite *w, Node *hold, const char *form)
{
	bool foh = hold->op == HOLD_FIRST;
	int n = 0;
	for (Node *p = w->sa->a_outports; p; p = p->next) {
		if (!held(p))
			continue;
		n++;
		if (p->type == TY_STRING) {
			diag_error(w->c->diag, p->loc, "Hold: output port '%s' is String, which holds "
				   "do not handle yet", p->name);
			w->failed = true; /* (3) */
		} else if (foh && p->type != TY_REAL) {
			diag_error(w->c->diag, p->loc, "Hold: '%s' extrapolates, and output port '%s' "
				   "is %s, not Real", form, p->name, ast_type_name(p->type));
			w->failed = true; /* (3) */
		}
	}
	if (!n) {
		diag_error(w->c->diag, hold->loc, "Hold: '%s' holds the output ports bound to inner "
			   "outputs, and this adaptation has none", form);
		diag_note(w->c->diag, hold->loc, "declare them, as `output ports Real y <- f.o`");
		return false; /* (2) */
	}
	return !w->failed;
}

/* The samples of one held port p (bound to f.o): their vars, the statements taking them
 * (into *sample) and those giving p (into *give); false after a collision. */
static bool hold_port(Rewrite *w, Node *p, int how, Node **sample, Node **give)
{
	bool foh = how == HOLD_FIRST;
	Inner *in = sema_inner(w->info, p->bind->owner);
	InnerPort *ip = in ? sema_inner_port(in, p->bind->name) : NULL;
	if (!ip)
		return true;
	const char *y = p->name;
	SaType ty = ip->type;
	Node *v = lw_new_out_var(w, rw_printf(w, "hold_%s", y), ty, hold_start(w, in, ip),
				 rw_printf(w, "the newest sample of '%s.%s'", in->name, ip->name));
	Node *vt = lw_new_out_var(w, rw_printf(w, "hold_%s_time", y), TY_REAL, rw_real(w, 0.0),
				  "the time of the newest sample");
	Node *pv = NULL, *pt = NULL, *k = NULL;
	if (foh) {
		pv = lw_new_out_var(w, rw_printf(w, "hold_%s_previous", y), ty, hold_start(w, in, ip),
				    "the sample before the newest");
		pt = lw_new_out_var(w, rw_printf(w, "hold_%s_previous_time", y), TY_REAL,
				    rw_real(w, 0.0), "the time of the sample before the newest");
		k = lw_new_out_var(w, rw_printf(w, "hold_%s_samples", y), TY_INTEGER, rw_int(w, 0),
				   "how many samples are known");
	}
	if (w->failed)
		return false;
#define R(d) rw_ref(w, d, SYM_OUT_VAR)
	Node *last = rw_fmu_call(w, BI_LAST_EXECUTION_TIME, in, NULL);
	if (foh) {
		Node *shift = rw_list2(rw_assign(w, R(pv), R(v)), rw_assign(w, R(pt), R(vt)));
		shift->next->next = rw_assign(w, R(k), rw_int(w, 2));
		Node *cond = rw_binary(w, OP_AND, rw_binary(w, OP_GT, R(k), rw_int(w, 0)),
				       rw_binary(w, OP_GT, rw_clone(w, last), R(vt)));
		*sample = ast_append(*sample, rw_if(w, cond, shift, NULL));
	}
	*sample = ast_append(*sample, rw_assign(w, R(v),
		rw_port(w, in->name, ip->name, ip->decl, SYM_INNER_OUT)));
	*sample = ast_append(*sample, rw_assign(w, R(vt), last));
	if (foh)
		*sample = ast_append(*sample, rw_if(w, rw_binary(w, OP_EQ, R(k), rw_int(w, 0)),
			rw_assign(w, R(k), rw_int(w, 1)), NULL));
	Node *now = rw_binary(w, OP_ADD, rw_keyvar(w, KV_T), rw_keyvar(w, KV_BIG_H));
	double scale = p->converts ? p->scale : 1, offset = p->converts ? p->offset : 0;
#define OUT(e) rw_assign(w, rw_port(w, w->sa->name, y, p, SYM_OUTPORT), rw_converted(w, e, scale, offset))
	if (how == HOLD_ZERO) {
		*give = ast_append(*give, OUT(R(v)));
	} else if (foh) {
		Node *slope = rw_binary(w, OP_DIV, rw_binary(w, OP_MUL, rw_binary(w, OP_SUB, R(v), R(pv)),
							     rw_binary(w, OP_SUB, now, R(vt))),
					rw_binary(w, OP_SUB, R(vt), R(pt)));
		*give = ast_append(*give, rw_if(w, rw_binary(w, OP_EQ, R(k), rw_int(w, 2)),
			OUT(rw_binary(w, OP_ADD, R(v), slope)), OUT(R(v))));
	} else {
		Node *tol = rw_binary(w, OP_MUL, rw_real(w, 1e-9), rw_keyvar(w, KV_BIG_H));
		Node *on = rw_binary(w, OP_GE, R(vt), rw_binary(w, OP_SUB, now, tol));
		Node *zero = rw_assign(w, rw_port(w, w->sa->name, y, p, SYM_OUTPORT),
				       type_zero(w, p->type)); /* 0 in the port's own unit */
		*give = ast_append(*give, rw_if(w, on, OUT(R(v)), zero));
	}
#undef OUT
#undef R
	p->bind_dir = BIND_NONE; /* the generated rule feeds the port now */
	p->bind = NULL;
	return true;
}

void lw_hold(Rewrite *w)
{
	Node *hold = take_hold(w);
	if (!hold)
		return; /* none, or (1) */
	w->at = hold->loc;
	static const char *const names[] = {"no hold", "zero order hold", "first order hold"};
	if (!holdable(w, hold, names[hold->op]))
		return; /* (2), (3) */
	Node *sample = NULL, *give = NULL;
	for (Node *p = w->sa->a_outports; p; p = p->next)
		if (held(p) && !hold_port(w, p, hold->op, &sample, &give))
			return;
	Node *rules = w->sa->a_out_rules;
	rules->list3 = ast_append(rules->list3,
				  rw_true_rule(w, rw_block(w, sample), rw_block(w, give)));
}

/* ---- Quantize ------------------------------------------------------------------------------
 * A quantize rule in an in or out rules block turns signal P into zones, and an event
 * whenever P enters a new one (the paper's quantization):
 *   quantize(P, "z0", l1, "z1", ..., "zn")   named zones: z0 below l1, z_i from l_i
 *                                            (included) to l_i+1, zn from l_n;
 *   quantize P every D with offset O         the integer zones floor((P - O) / D) (O = 0);
 *   quantize(P, = expr)                      the zones are the values of expr, `signal`
 *                                            in it being P (Integer, Real or Bool), and
 *                                            signal[prev], signal[-j] P's values at the
 *                                            j-th In before (0 before there were any),
 *                                            kept in vars quantize_<k>_signal_<j>.
 * A rule whose condition is a zone's name (named zones; also inside `otherwise`) holds on
 * the step on which P enters that zone, and at Init for the zone P starts in.  The
 * quantize rule's own output function (`quantize ... --> { ... };`) runs on every step
 * that enters a new zone (at Init too).  The zone of the last In (MapOut, for out rules)
 * is kept in a var:
 *
 *   in var Integer quantize_<k>_zone := -1;        named zones (out var in out rules)
 *   in var quantize_<k>_zone := 0, Bool quantize_<k>_known := false;     the others
 *   in rules {
 *     true -> { if (P < l1) { quantize_<k>_zone := 0; } else if (P < l2) { ... := 1; }
 *               ... else { quantize_<k>_zone := n; } };
 *         (the others: { quantize_<k>_zone := Z; quantize_<k>_known := true; })
 *     not (P < l1 and quantize_<k>_zone == 0 or ...) -> { } --> <the quantize rule's own>;
 *         (the others: not quantize_<k>_known or Z != quantize_<k>_zone)
 *     l_i <= P and P < l_i+1 and quantize_<k>_zone != i -> ...      (was "z_i" -> ...)
 *   }
 *
 * Conditions are all evaluated before any `->` part runs, so inside them the var still
 * holds the zone of the previous step.  Quantizers are numbered k = 1, 2, ... over the
 * adaptation, in and then out rules.  Runs after Otherwise, whose `not (...)` may name
 * zones too (a quantize rule itself is not one of the conditions `otherwise` negates).
 * Not lowered yet (the checker reports it): String zones of `= expr`.
 * Preconditions (the checker's): every zone condition names a zone that a quantize rule
 * of its block declares, once; names and limits alternate, a name first and last; P, D
 * and O are numbers. */

/* P is in zone i of quantizer q (limits at the odd places of its list). */
static Node *in_zone(Rewrite *w, Node *q, int i)
{
	Node *limits[64];
	int n = 0;
	int j = 0;
	for (Node *z = q->list1; z; z = z->next, j++)
		if (j % 2 == 1 && n < 64)
			limits[n++] = z;
	Node *above = i > 0 ? rw_binary(w, OP_LE, rw_clone(w, limits[i - 1]), rw_clone(w, q->lhs)) : NULL;
	Node *below = i < n ? rw_binary(w, OP_LT, rw_clone(w, q->lhs), rw_clone(w, limits[i])) : NULL;
	if (above && below)
		return rw_binary(w, OP_AND, above, below);
	return above ? above : below ? below : rw_bool(w, true);
}

static int zone_index(Node *q, const char *name)
{
	int j = 0;
	for (Node *z = q->list1; z; z = z->next, j++)
		if (j % 2 == 0 && z->kind == ND_STRING && strcmp(z->str, name) == 0)
			return j / 2;
	return -1;
}

/* Replaces each zone name of q in condition *e (the whole condition, or an operand of its
 * `and`, `or` and `not`: where a zone can be a condition) by the event of entering that
 * zone. */
static void replace_zones(Rewrite *w, Node **e, Node *q, Node *zone, int sym)
{
	Node *x = *e;
	if (!x)
		return;
	if (x->kind == ND_STRING) {
		int i = zone_index(q, x->str);
		if (i < 0)
			return;
		Loc at = w->at;
		w->at = x->loc;
		*e = rw_binary(w, OP_AND, in_zone(w, q, i),
			    rw_binary(w, OP_NE, rw_ref(w, zone, sym), rw_int(w, i)));
		w->at = at;
		return;
	}
	if ((x->kind == ND_UNARY && x->op == OP_NOT) ||
	    (x->kind == ND_BINARY && (x->op == OP_AND || x->op == OP_OR))) {
		replace_zones(w, &x->lhs, q, zone, sym);
		replace_zones(w, &x->rhs, q, zone, sym);
	}
}

/* The same for zone numbers (integer literals) of a quantizer with zones value:
 * value == n and (not known or zone != n). */
static void replace_zone_numbers(Rewrite *w, Node **e, Node *value, Node *zone, Node *known, int sym)
{
	Node *x = *e;
	if (!x)
		return;
	bool neg = x->kind == ND_UNARY && x->op == OP_NEG && x->lhs->kind == ND_INT;
	if (x->kind == ND_INT || neg) {
		long long n = neg ? -x->lhs->ival : x->ival;
		Loc at = w->at;
		w->at = x->loc;
		Node *entered = rw_binary(w, OP_OR, rw_not(w, rw_ref(w, known, sym)),
				       rw_binary(w, OP_NE, rw_ref(w, zone, sym), rw_int(w, n)));
		*e = rw_binary(w, OP_AND, rw_binary(w, OP_EQ, rw_clone(w, value), rw_int(w, n)), entered);
		w->at = at;
		return;
	}
	if ((x->kind == ND_UNARY && x->op == OP_NOT) ||
	    (x->kind == ND_BINARY && (x->op == OP_AND || x->op == OP_OR))) {
		replace_zone_numbers(w, &x->lhs, value, zone, known, sym);
		replace_zone_numbers(w, &x->rhs, value, zone, known, sym);
	}
}

/* How far back e reads the signal: 1 for signal[prev], k for signal[-k], else 0. */
static int signal_depth(const Node *e)
{
	if (!e)
		return 0;
	int d = 0;
	if (e->kind == ND_SIGNAL)
		d = e->op == SIG_PREV ? 1 : e->op == SIG_INDEX ? (int)-e->ival : 0;
	int l = signal_depth(e->lhs), r = signal_depth(e->rhs);
	d = l > d ? l : d;
	d = r > d ? r : d;
	for (const Node *a = e->kind == ND_BUILTIN ? e->list1 : NULL; a; a = a->next) {
		int x = signal_depth(a);
		d = x > d ? x : d;
	}
	return d;
}

/* e with `signal` (`signal[now]`, `signal[0]`) replaced by a copy of p, and signal[prev],
 * signal[-j] by a reference to the var keeping its j-th earlier value, past[j]. */
static Node *with_signal(Rewrite *w, Node *e, Node *p, Node **past, int sym)
{
	if (!e)
		return NULL;
	if (e->kind == ND_SIGNAL) {
		int j = e->op == SIG_PREV ? 1 : e->op == SIG_INDEX ? (int)-e->ival : 0;
		return j ? rw_ref(w, past[j], sym) : rw_clone(w, p);
	}
	Node *c = rw_clone(w, e);
	c->lhs = with_signal(w, e->lhs, p, past, sym);
	c->rhs = with_signal(w, e->rhs, p, past, sym);
	if (e->kind == ND_BUILTIN) {
		Node *args = NULL;
		for (Node *a = e->list1; a; a = a->next)
			args = ast_append(args, with_signal(w, a, p, past, sym));
		c->list1 = args;
	}
	return c;
}

static void lower_quantize_in(Rewrite *w, Node *rules, bool in, int *k)
{
	for (Node *r = rules ? rules->list3 : NULL; r; r = r->next) {
		if (r->op != RULE_QUANTIZE)
			continue;
		Node *q = r->lhs;
		w->at = q->loc;
		if (ast_count(q->list1) > 127) {
			diag_error(w->c->diag, q->loc, "Quantize: at most 64 zones");
			w->failed = true;
			return;
		}
		(*k)++;
		char num[24];
		snprintf(num, sizeof num, "%d", *k);
		int sym = in ? SYM_IN_VAR : SYM_OUT_VAR;
		const char *purpose = "the zone of a quantized signal";
#define NEW_VAR(name, type, init) (in ? lw_new_in_var(w, name, type, init, purpose) \
				       : lw_new_out_var(w, name, type, init, purpose))
		Node *value = NULL; /* the zone as an expression (every, = expr) */
		Node **past = NULL; /* signal[-j]'s vars, j = 1 .. depth */
		int depth = 0;
		SaType ty = TY_INTEGER;
		if (q->op == QUANT_EVERY) {
			Node *d = rw_binary(w, OP_SUB, rw_clone(w, q->lhs), q->els ? rw_clone(w, q->els) : rw_real(w, 0.0));
			value = rw_builtin(w, BI_FLOOR, rw_binary(w, OP_DIV, d, rw_clone(w, q->rhs)));
		} else if (q->op == QUANT_FUNCTION) {
			depth = signal_depth(q->rhs);
			if (depth > 16) {
				diag_error(w->c->diag, q->loc, "Quantize: at most 16 earlier values of "
					   "the signal (signal[-16])");
				w->failed = true;
				return;
			}
			past = arena_alloc(w->c->arena, (size_t)(depth + 1) * sizeof *past);
			for (int j = 1; j <= depth; j++) {
				char jn[24];
				snprintf(jn, sizeof jn, "%d", j);
				const char *pn = arena_printf(w->c->arena, "quantize_%s_signal_%s", num, jn);
				past[j] = in ? lw_new_in_var(w, pn, TY_REAL, rw_real(w, 0.0), purpose)
					     : lw_new_out_var(w, pn, TY_REAL, rw_real(w, 0.0), purpose);
				if (!past[j])
					return;
			}
			value = with_signal(w, q->rhs, q->lhs, past, sym);
			ty = lw_type_of(value) == TY_BOOL ? TY_BOOL : lw_type_of(value) == TY_INTEGER ? TY_INTEGER
											   : TY_REAL;
		}
		Node *zone = NEW_VAR(rw_printf(w, "quantize_%s_zone", num), ty,
				     value ? type_zero(w, ty) : rw_int(w, -1));
		Node *known = value ? NEW_VAR(rw_printf(w, "quantize_%s_known", num), TY_BOOL,
					      rw_bool(w, false)) : NULL;
#undef NEW_VAR
		if (!zone || (value && !known))
			return;
		Node *update, *changed;
		if (value) {
			update = rw_list2(rw_assign(w, rw_ref(w, zone, sym), value),
				       rw_assign(w, rw_ref(w, known, sym), rw_bool(w, true)));
			for (int j = depth; j >= 1; j--) /* after the zone, which reads them */
				update = ast_append(update, rw_assign(w, rw_ref(w, past[j], sym),
					j > 1 ? rw_ref(w, past[j - 1], sym) : rw_clone(w, q->lhs)));
			changed = rw_binary(w, OP_OR, rw_not(w, rw_ref(w, known, sym)),
					 rw_binary(w, OP_NE, rw_clone(w, value), rw_ref(w, zone, sym)));
			/* the zone numbers of the block (the checker allows them with one such
			 * quantize rule) */
			for (Node *c = rules->list3; c; c = c->next)
				if (c->op == RULE_COND && c->cond && lw_cond_value(c))
					replace_zone_numbers(w, lw_cond_value(c), value, zone, known, sym);
		} else {
			int nzones = (ast_count(q->list1) + 1) / 2;
			/* the zone update, an if/else chain from the last zone back */
			update = rw_assign(w, rw_ref(w, zone, sym), rw_int(w, nzones - 1));
			for (int i = nzones - 2; i >= 0; i--) {
				Node *limit = NULL;
				int j = 0;
				for (Node *z = q->list1; z; z = z->next, j++)
					if (j == 2 * i + 1)
						limit = z;
				update = rw_if(w, rw_binary(w, OP_LT, rw_clone(w, q->lhs), rw_clone(w, limit)),
					       rw_assign(w, rw_ref(w, zone, sym), rw_int(w, i)), update);
			}
			Node *same = NULL;
			for (int i = 0; i < nzones; i++) {
				Node *here = rw_binary(w, OP_AND, in_zone(w, q, i),
						    rw_binary(w, OP_EQ, rw_ref(w, zone, sym), rw_int(w, i)));
				same = same ? rw_binary(w, OP_OR, same, here) : here;
			}
			changed = rw_not(w, same);
			/* the zone conditions of the block (within `otherwise`'s too) */
			for (Node *c = rules->list3; c; c = c->next)
				if (c->op == RULE_COND && c->cond && lw_cond_value(c))
					replace_zones(w, lw_cond_value(c), q, zone, sym);
		}
		Node *els = r->els;
		r->op = RULE_COND;
		r->origin = w->rule;
		r->cond = rw_bool(w, true);
		r->then = rw_block(w, update);
		r->els = NULL;
		r->lhs = NULL;
		if (els) {
			/* its output function, on the steps entering a new zone */
			Node *on = rw_node(w, ND_RULE);
			on->op = RULE_COND;
			on->cond = changed;
			on->then = rw_block(w, NULL);
			on->els = els;
			on->next = r->next;
			r->next = on;
			r = on;
		}
	}
}

void lw_quantize(Rewrite *w)
{
	int k = 0;
	lower_quantize_in(w, w->sa->a_in_rules, true, &k);
	lower_quantize_in(w, w->sa->a_out_rules, false, &k);
}

