/* lower_forms.h — what the lowering families share (inside the lowering stage only).
 *
 * Each family file lowers related declarative forms, one rule function per form, listed
 * in the table lw_rules (lower.c):
 *   lower_rates.c      multiply rate (inner steps per external step, inputs interpolated)
 *   lower_loops.c      successive substitution, delay (algebraic loops torn at a port)
 *   lower_control.c    triggered, periodic, multiplied, implied (the control forms)
 *   lower_crossings.c  crossings (`>!`, `<!`) in in and out rules
 *   lower_data.c       otherwise, quantize, holds (what in and out rules compute)
 * The helpers below, in lower.c, are the lowering's own; the node builders and the runner
 * are the rewrite framework's (rewrite.h). */
#ifndef SACC_LOWER_FORMS_H
#define SACC_LOWER_FORMS_H

#include "rewrite.h"

/* ---- the rules, one per form (preconditions in comments over each) ----------------- */

void lw_multiply_rate(Rewrite *w);
void lw_successive_substitution(Rewrite *w);
void lw_delay(Rewrite *w);
void lw_triggered(Rewrite *w);
void lw_periodic(Rewrite *w);
void lw_multiplied(Rewrite *w);
void lw_crossing(Rewrite *w);
void lw_crossing_out(Rewrite *w);
void lw_otherwise(Rewrite *w);
void lw_quantize(Rewrite *w);
void lw_hold(Rewrite *w);
void lw_implied(Rewrite *w);

/* ---- generated names ------------------------------------------------------------------ */

/* A declaration at the adaptation's level, or a var of its in/out rules blocks (which
 * would hide a generated name from the rules), named `name`; *sym says which. */
Node *lw_find_user(Node *sa, const char *name, int *sym);
/* Whether the rule may introduce `name`; reports the user's declaration that takes it
 * (and sets w->failed). */
bool lw_fresh(Rewrite *w, const char *name, const char *purpose);
/* A new control, in or out var appended to the adaptation's, or NULL after a collision. */
Node *lw_new_ctrl_var(Rewrite *w, const char *name, SaType type, Node *init, const char *purpose);
Node *lw_new_in_var(Rewrite *w, const char *name, SaType type, Node *init, const char *purpose);
Node *lw_new_out_var(Rewrite *w, const char *name, SaType type, Node *init, const char *purpose);
/* A local of generated control rules (it must not hide an adaptation-level name), or NULL. */
Node *lw_new_local(Rewrite *w, const char *name, SaType type, Node *init, Node **decl);

/* ---- inner FMUs --------------------------------------------------------------------------- */

/* The start value of an inner port, as a literal of its type (Real, Integer), else the
 * type's zero (0.0 for the other types). */
Node *lw_start_value(Rewrite *w, const Inner *in, const InnerPort *p);
/* Whether an inner FMU can save and restore its state (through nested adaptations). */
bool lw_can_rollback(const Inner *in, int depth);
/* Reports each inner FMU that cannot save and restore its state, which the form needs
 * because `why`; false when there is one. */
bool lw_all_can_rollback(Rewrite *w, const char *why);
/* Whether coupling cp is one of cut[0..ncut-1]. */
bool lw_torn(Node *cp, Node **cut, int ncut);
/* The inner FMUs in topological order of the couplings not cut (an edge counts when its
 * target is Mealy, as for CreateCtrlRules); NULL when a loop remains. */
Inner **lw_step_order(Rewrite *w, Node **cut, int ncut);

/* ---- generated control rules --------------------------------------------------------- */

/* `var H_f := do_step(f, t, H);` for each inner in order; *steps gets the list of the
 * H_f.  NULL, w->failed set, when a name is taken. */
Node *lw_step_each(Rewrite *w, Inner **order, Node **steps);
/* The step the control rules return after lw_step_each: min(H_f, ...), H_f, or H. */
Node *lw_min_step(Rewrite *w, Node *steps);
/* `var micro_step := H / N; var inner_time := t; for (var micro in 0 .. N) { do_step(f,
 * inner_time, micro_step); ...; inner_time := inner_time + micro_step; }`: N inner steps
 * of H / N.  NULL when a name is taken or the rule failed before. */
Node *lw_micro_steps(Rewrite *w, Node *N, Inner **order);
/* is_close(a, b, rtol, atol), the tolerances copied, or the defaults 1e-5 and 1e-8. */
Node *lw_is_close(Rewrite *w, Node *a, Node *b, Node *rtol, Node *atol);

/* ---- expressions and rules blocks ----------------------------------------------------- */

/* The static type of a checked expression, as far as the rules need it. */
SaType lw_type_of(const Node *e);
/* The value of the setting `which` (SET_*) in a settings list, or NULL. */
Node *lw_setting(const Node *settings, int which);
/* Where a rule's condition value is: the expression, or a condition block's `return e`
 * (NULL for a block without one). */
Node **lw_cond_value(Node *r);

#endif
