/* xml_safe.h — an XML document from an untrusted archive, parsed the one way sacc parses
 * them (model descriptions, SSP documents): no DTD (a DOCTYPE is an error), no entity
 * expansion, no network, bounded depth, element and attribute counts checked as each start
 * tag is read, and the offset of every start tag kept so that a message can name its line
 * and column. */
#ifndef SACC_XML_SAFE_H
#define SACC_XML_SAFE_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "diag.h"

/* Bounds on one document's shape, and how its messages call it. */
typedef struct XmlLimits {
	int max_depth;
	int max_attributes;  /* on one element; 0: not bounded */
	long max_elements;
	const char *a_doc;   /* "a model description": "a DOCTYPE is not allowed in ..." */
	const char *the_doc; /* "the model description": "... has more than N elements" */
} XmlLimits;

typedef struct XmlText {
	const char *name;  /* for messages */
	const char *text;  /* the document, kept alive by the caller while locations are asked */
	size_t len;
	size_t *lines;     /* offsets of line starts */
	size_t nlines;
	xmlDocPtr doc;     /* the tree, NULL after an error */
} XmlText;

/* Parses text (len bytes) as the document name.  Returns 0, or 1 after reporting the first
 * problem to d at name:line:col (x->doc is then NULL); xs_free afterwards either way. */
int xs_parse(XmlText *x, const char *name, const char *text, size_t len,
             const XmlLimits *lim, DiagSink *d);
/* Frees the tree and the line table (the text stays the caller's). */
void xs_free(XmlText *x);

/* The place of byte off of the text. */
Loc xs_offset_loc(const XmlText *x, size_t off);
/* Where element n's start tag begins (libxml2's line alone when it was not recorded). */
Loc xs_loc(const XmlText *x, const xmlNode *n);

#endif
