/* check.h — names, types, inner ports and units (LANGUAGE.md section 3). */
#ifndef SACC_CHECK_H
#define SACC_CHECK_H

#include "driver.h"
#include "sema.h"

/* Checks one adaptation of module m (m may be NULL: it is then looked up).  Idempotent:
 * a second call returns the first result.  NULL when the adaptation depends on itself. */
SaInfo *chk_adaptation(Compilation *c, Module *m, Node *sa);

/* Checks every adaptation and scenario connection of m; returns the errors found. */
int chk_module(Compilation *c, Module *m);

#endif
