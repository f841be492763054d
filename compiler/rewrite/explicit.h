/* explicit.h — the reduction to explicit form.
 *
 * Thirteen rules, each a function of its own, run in the fixed order of one table.  Each
 * rule changes the adaptation's tree in place and is a no-op on a tree it has already
 * reduced, so the explicit form of an explicit form is itself. */
#ifndef SACC_EXPLICIT_H
#define SACC_EXPLICIT_H

#include "rewrite.h"

/* The rules in order, ending with a NULL name. */
extern const RwRule rw_rules[];

/* Whether name is one of the rules, or of the lowering stage that runs before them. */
bool rw_is_rule(const char *name);

/* Reduces a checked adaptation (once; later calls do nothing).  With after set, stops
 * after the rule of that name.  Returns the number of errors the rules reported. */
int rw_explicit(Compilation *c, SaInfo *info, const char *after);

/* The inners in topological order of the couplings whose target is Mealy: order[0..m-1]
 * (m returned; less than ninners when a cycle leaves some out), done[i] set for each inner
 * ordered; done and order hold ninners entries, done zeroed. */
int rw_inner_order(Arena *a, const SaInfo *info, int *order, bool *done);

#endif
