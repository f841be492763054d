/* check.h — the checker: names and scopes, types, inner ports against their FMUs, and units
 * with their conversions.  check.c holds the entry points; check_inner.c, check_forms.c and
 * check_ports.c the checks by concern (their shared context is check_ctx.h). */
#ifndef SACC_CHECK_H
#define SACC_CHECK_H

#include "compilation.h"
#include "sema.h"

/* Checks one adaptation of module m (m may be NULL: it is then looked up).  Idempotent:
 * a second call returns the first result.  NULL when the adaptation depends on itself. */
SaInfo *chk_adaptation(Compilation *c, Module *m, Node *sa);

/* Checks every adaptation and scenario connection of m; returns the errors found. */
int chk_module(Compilation *c, Module *m);

#endif
