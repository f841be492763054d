/* lower.h — the lowering of the declarative layer.
 *
 * A stage of its own, between the checker and the explicit-form rules: each declarative
 * form that sacc can lower is rewritten, by one rule per form run from the table lw_rules
 * on the rewrite framework (rewrite.h), into ordinary control, in and out rules.  What is
 * left for the explicit-form rules is a script a person could have written.  Forms not in
 * the table stay refused by the checker ("cannot be lowered yet"). */
#ifndef SACC_LOWER_H
#define SACC_LOWER_H

#include "rewrite.h"

/* The lowering rules in order, ending with a NULL name. */
extern const RwRule lw_rules[];

/* The name of the whole stage for `sacc explicit --after`: stops after the last
 * lowering rule, before the first explicit-form rule. */
#define LW_STAGE "Lower"

/* Whether name is a lowering rule or the stage's name. */
bool lw_is_rule(const char *name);

/* Lowers a checked adaptation in place (the forms it lowers are gone afterwards, so a
 * second call finds nothing to do).  With after set to a lowering rule's name, stops
 * after it.  Returns the number of errors reported. */
int lw_lower(Compilation *c, SaInfo *info, const char *after);

#endif
