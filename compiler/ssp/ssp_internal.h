/* ssp_internal.h — what the files of compiler/ssp/ share: the reading state and its
 * helpers (ssp_read.c), the system reader (ssp_system.c), the parameter files
 * (ssp_params.c).  Not seen outside compiler/ssp/. */
#ifndef SACC_SSP_INTERNAL_H
#define SACC_SSP_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "arena.h"
#include "ssp.h"
#include "ssp_xml.h"

typedef struct Rd {
	Compilation *c;
	SspModel *m;
	int errors;
} Rd;

void rd_error(Rd *r, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *rd_str(Rd *r, const char *s);
const char *rd_required(Rd *r, const SspXml *x, const xmlNode *n, const char *attr);
double rd_double(Rd *r, const SspXml *x, const xmlNode *n, const char *attr, double def);
void *rd_array(Rd *r, int n, size_t size);
void rd_transform(Rd *r, const SspXml *x, const xmlNode *parent, SspTransform *tr);
/* The ssc:Unit children of units (an SSD's or an SSV's <Units>) into *out, *n. */
void rd_units(Rd *r, const SspXml *x, const xmlNode *units, SspUnit **out, int *n);
const char *rd_resolve(Rd *r, const char *uri, Loc where, const char *what);
const char *rd_shown(Rd *r, const char *uri);
int rd_parse_file(Rd *r, SspXml *x, const char *file, const char *name, Loc where);

/* ssp_system.c: a System element into e (parent NULL for the top one); then the
 * connections of every system checked against their elements. */
void rd_system(Rd *r, const SspXml *x, const xmlNode *sys, SspElement *e,
               const SspElement *parent);
void rd_check_connections(Rd *r, SspElement *sys);
/* The element tables rd_check_connections made, of sys and the systems in it, freed
 * (the rest of the model is the Compilation's arena's). */
void ssp_free_indexes(SspElement *sys);

/* ssp_params.c: the ParameterBindings of an element. */
void rd_bindings(Rd *r, const SspXml *x, const xmlNode *bindings, SspElement *e);

SspType ssp_type_of(const char *name);
const char *ssp_type_word(SspType t);
SspType ssp_fmu_type(const FmuVar *v);
int ssp_parse_bool(const char *v);

/* The connector of e called name, or NULL. */
SspConnector *ssp_connector(const SspElement *e, const char *name);
/* The element of system s called name, or NULL. */
SspElement *ssp_element(const SspElement *s, const char *name);
/* The FMU variable behind a component's connector (NULL for systems). */
const FmuVar *ssp_connector_var(const SspElement *e, const SspConnector *k);

#endif
