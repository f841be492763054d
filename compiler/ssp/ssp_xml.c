/* ssp_xml.c — SSP documents read with libxml2 the way model descriptions are
 * (compiler/check/fmu_read.c): no DTD, no entities, no network, bounded depth and element
 * count, and the offset of every start tag kept in the node (n->_private, offset + 1) so
 * that a message can name the line and the column. */
#include "ssp_xml.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#define SX_MAX_DEPTH 64
#define SX_MAX_ELEMENTS 2000000

typedef struct Parse {
	SspXml *x;
	startElementNsSAX2Func start_element;
	bool xml_error, doctype, over_limit;
	Loc stop_loc;
	long elements;
} Parse;

static bool build_lines(SspXml *x)
{
	size_t n = 1;
	for (size_t i = 0; i < x->len; i++)
		n += x->text[i] == '\n';
	x->lines = malloc(n * sizeof *x->lines);
	if (!x->lines)
		return false;
	x->nlines = 0;
	x->lines[x->nlines++] = 0;
	for (size_t i = 0; i < x->len; i++)
		if (x->text[i] == '\n')
			x->lines[x->nlines++] = i + 1;
	return true;
}

static Loc offset_loc(const SspXml *x, size_t off)
{
	Loc loc = {x->name, 0, 0, 0};
	if (!x->lines)
		return loc;
	size_t lo = 0, hi = x->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	loc.line = lo + 1 > INT_MAX ? INT_MAX : (int)(lo + 1);
	size_t col = off - x->lines[lo] + 1;
	loc.col = col > INT_MAX ? INT_MAX : (int)col;
	return loc;
}

/* The '<' of the tag the parser has just read: the nearest before where it stands. */
static Loc tag_loc(Parse *p, xmlParserCtxtPtr ctxt, size_t *off)
{
	Loc loc = {p->x->name, ctxt->input ? ctxt->input->line : 0, 0, 0};
	long end = xmlByteConsumed(ctxt);
	*off = SIZE_MAX;
	if (end > 0 && (size_t)end <= p->x->len) {
		size_t i = (size_t)end;
		while (i > 0 && p->x->text[i - 1] != '<')
			i--;
		if (i > 0) {
			*off = i - 1;
			loc = offset_loc(p->x, i - 1);
		}
	}
	return loc;
}

static void on_xml_error(void *ctx, xmlErrorPtr e)
{
	Parse *p = ctx;
	if (!e || e->level == XML_ERR_WARNING || p->xml_error || p->doctype || p->over_limit)
		return;
	p->xml_error = true;
	char msg[512];
	const char *m = e->message ? e->message : "unknown error";
	size_t n = strlen(m);
	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	if (n >= sizeof msg)
		n = sizeof msg - 1;
	memcpy(msg, m, n);
	msg[n] = '\0';
	Loc loc = {p->x->name, e->line > 0 ? e->line : 0, e->int2 > 0 ? e->int2 : 0, 0};
	diag_error(p->x->d, loc, "malformed XML: %s", msg);
}

static void on_internal_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id)
{
	(void)name, (void)external_id, (void)system_id;
	xmlParserCtxtPtr ctxt = ctx;
	Parse *p = ctxt->_private;
	if (!p->doctype) {
		size_t off;
		p->doctype = true;
		p->stop_loc = tag_loc(p, ctxt, &off);
	}
	xmlStopParser(ctxt);
}

static void on_external_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id)
{
	(void)ctx, (void)name, (void)external_id, (void)system_id;
}

static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	xmlParserCtxtPtr ctxt = ctx;
	Parse *p = ctxt->_private;
	if (p->over_limit)
		return;
	size_t off;
	if (++p->elements > SX_MAX_ELEMENTS || ctxt->nameNr >= SX_MAX_DEPTH) {
		p->over_limit = true;
		p->stop_loc = tag_loc(p, ctxt, &off);
		diag_error(p->x->d, p->stop_loc, "more than %d %s (element '%s'); refusing the "
		           "document", p->elements > SX_MAX_ELEMENTS ? SX_MAX_ELEMENTS : SX_MAX_DEPTH,
		           p->elements > SX_MAX_ELEMENTS ? "elements" : "levels of nested elements",
		           (const char *)localname);
		xmlStopParser(ctxt);
		return;
	}
	p->start_element(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
	                 nb_defaulted, attributes);
	xmlNode *n = ctxt->node;
	if (!n || !n->name || strcmp((const char *)n->name, (const char *)localname) != 0)
		return;
	tag_loc(p, ctxt, &off);
	if (off != SIZE_MAX && off < UINTPTR_MAX)
		n->_private = (void *)(uintptr_t)(off + 1);
}

int sx_parse(SspXml *x, const char *name, const char *text, size_t len, DiagSink *d)
{
	memset(x, 0, sizeof *x);
	x->name = name;
	x->text = text;
	x->len = len;
	x->d = d;
	if (len > SSP_XML_MAX_BYTES || len > INT_MAX) {
		diag_error(d, (Loc){name, 0, 0, 0}, "the document is larger than %u bytes",
		           SSP_XML_MAX_BYTES);
		return 1;
	}
	if (!build_lines(x)) {
		diag_error(d, (Loc){name, 0, 0, 0}, "out of memory");
		return 1;
	}
	diag_add_source(d, name, text, len);
	Parse p = {.x = x};
	xmlInitParser();
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	if (!ctxt || !ctxt->sax) {
		xmlFreeParserCtxt(ctxt);
		diag_error(d, (Loc){name, 0, 0, 0}, "out of memory");
		return 1;
	}
	ctxt->_private = &p;
	p.start_element = ctxt->sax->startElementNs;
	if (p.start_element)
		ctxt->sax->startElementNs = on_start_element;
	ctxt->sax->internalSubset = on_internal_subset;
	ctxt->sax->externalSubset = on_external_subset;
	xmlStructuredErrorFunc old_handler = xmlStructuredError;
	void *old_context = xmlStructuredErrorContext;
	xmlSetStructuredErrorFunc(&p, on_xml_error);
	/* No XML_PARSE_NOENT, DTDLOAD, DTDATTR or HUGE: entities stay unexpanded, nothing
	 * external is loaded and libxml2's own limits hold. */
	x->doc = xmlCtxtReadMemory(ctxt, text, (int)len, NULL, NULL,
	                           XML_PARSE_NONET | XML_PARSE_BIG_LINES);
	xmlSetStructuredErrorFunc(old_context, old_handler);
	xmlFreeParserCtxt(ctxt);
	int bad = p.xml_error || p.over_limit;
	if (p.doctype) {
		diag_error(d, p.stop_loc, "a DOCTYPE is not allowed in an SSP document (no DTDs or "
		           "entities)");
		bad = 1;
	} else if (!x->doc && !bad) {
		diag_error(d, (Loc){name, 0, 0, 0}, "malformed XML: the document is empty");
		bad = 1;
	}
	if (bad) {
		xmlFreeDoc(x->doc);
		x->doc = NULL;
	}
	return bad;
}

void sx_free(SspXml *x)
{
	xmlFreeDoc(x->doc);
	free(x->lines);
	x->doc = NULL;
	x->lines = NULL;
}

Loc sx_loc(const SspXml *x, const xmlNode *n)
{
	if (!n)
		return (Loc){x->name, 0, 0, 0};
	if (n->_private)
		return offset_loc(x, (size_t)(uintptr_t)n->_private - 1);
	long line = xmlGetLineNo(n);
	return (Loc){x->name, line > 0 && line < INT_MAX ? (int)line : 0, 0, 0};
}

/* Scans n's start tag for attr="...": the value's place, its width underlined. */
Loc sx_attr_loc(const SspXml *x, const xmlNode *n, const char *attr)
{
	Loc loc = sx_loc(x, n);
	if (!n || !n->_private)
		return loc;
	size_t i = (size_t)(uintptr_t)n->_private - 1, alen = strlen(attr);
	char quote = 0;
	for (i++; i < x->len && (quote || x->text[i] != '>'); i++) {
		char ch = x->text[i];
		if (quote) {
			quote = ch == quote ? 0 : quote;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			quote = ch;
			continue;
		}
		bool starts = (x->text[i - 1] == ' ' || x->text[i - 1] == '\t' ||
		               x->text[i - 1] == '\n' || x->text[i - 1] == '\r') &&
		              x->len - i > alen && memcmp(x->text + i, attr, alen) == 0;
		if (!starts)
			continue;
		size_t j = i + alen;
		while (j < x->len && (x->text[j] == ' ' || x->text[j] == '\t'))
			j++;
		if (j >= x->len || x->text[j] != '=')
			continue;
		j++;
		while (j < x->len && (x->text[j] == ' ' || x->text[j] == '\t'))
			j++;
		if (j >= x->len || (x->text[j] != '"' && x->text[j] != '\''))
			return loc;
		size_t end = j + 1;
		while (end < x->len && x->text[end] != x->text[j])
			end++;
		Loc v = offset_loc(x, j + 1);
		v.len = end - (j + 1) > 200 ? 200 : (int)(end - (j + 1));
		return v;
	}
	return loc;
}

bool sx_is(const xmlNode *n, const char *ns, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0 &&
	       n->ns && n->ns->href && strcmp((const char *)n->ns->href, ns) == 0;
}

xmlNode *sx_next_elem(xmlNode *n)
{
	for (n = n ? n->next : NULL; n && n->type != XML_ELEMENT_NODE; n = n->next)
		;
	return n;
}

xmlNode *sx_first_elem(const xmlNode *n)
{
	xmlNode *k = n ? n->children : NULL;
	while (k && k->type != XML_ELEMENT_NODE)
		k = k->next;
	return k;
}

xmlNode *sx_child(const xmlNode *n, const char *ns, const char *name)
{
	for (xmlNode *k = sx_first_elem(n); k; k = sx_next_elem(k))
		if (sx_is(k, ns, name))
			return k;
	return NULL;
}

const char *sx_attr(const xmlNode *n, const char *name)
{
	for (xmlAttr *a = n ? n->properties : NULL; a; a = a->next)
		if (a->ns == NULL && strcmp((const char *)a->name, name) == 0)
			return a->children && a->children->content ? (const char *)a->children->content
			                                            : "";
	return NULL;
}
