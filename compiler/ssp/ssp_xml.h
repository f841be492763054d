/* ssp_xml.h — the SSP documents (SSD, SSV, SSM) as libxml2 trees read safely, with the
 * place of every element and attribute for messages.  Private to compiler/ssp/. */
#ifndef SACC_SSP_XML_H
#define SACC_SSP_XML_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "diag.h"
#include "xml_safe.h"

/* Namespaces of SSP 1.0 and 2.0 (2.0 kept 1.0's). */
#define SSP_NS_SSD "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define SSP_NS_SSC "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define SSP_NS_SSV "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
#define SSP_NS_SSM "http://ssp-standard.org/SSP1/SystemStructureParameterMapping"

/* Limits on one document, far beyond any real one. */
#define SSP_XML_MAX_BYTES (64u * 1024u * 1024u)

/* A document as the safe parse gives it (xml_safe.h): the tree and its line table. */
typedef XmlText SspXml;

/* Parses text (len bytes, kept alive by the caller until the sink is done) as the
 * document name, safely (xml_safe.h), its lines quoted in diagnostics.  Returns 0, or 1
 * after a report at name:line:col; sx_free afterwards either way. */
int sx_parse(SspXml *x, const char *name, const char *text, size_t len, DiagSink *d);
void sx_free(SspXml *x);

/* Where element n's start tag begins. */
Loc sx_loc(const SspXml *x, const xmlNode *n);
/* Where the value of n's attribute attr begins (underlining it); n's place when absent. */
Loc sx_attr_loc(const SspXml *x, const xmlNode *n, const char *attr);

/* Whether n is an element called name in namespace ns. */
bool sx_is(const xmlNode *n, const char *ns, const char *name);
/* The first child element of n called name in ns, or NULL; the next sibling element. */
xmlNode *sx_child(const xmlNode *n, const char *ns, const char *name);
xmlNode *sx_next_elem(xmlNode *n);
xmlNode *sx_first_elem(const xmlNode *n);
/* An attribute's value (owned by the tree), or NULL. */
const char *sx_attr(const xmlNode *n, const char *name);

#endif
