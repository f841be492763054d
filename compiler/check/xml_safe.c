/* xml_safe.c — the safe parse of xml_safe.h: libxml2's SAX2 tree builder with three of its
 * hooks wrapped (errors, the internal subset, start tags). */
#include "xml_safe.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

typedef struct Parse {
	XmlText *x;
	const XmlLimits *lim;
	DiagSink *d;
	startElementNsSAX2Func start_element; /* libxml2's own handler, which we wrap */
	bool xml_error;  /* libxml2 has reported a fatal error (later ones are dropped) */
	bool doctype;    /* a DOCTYPE was met and parsing stopped */
	bool over_limit; /* a bound was broken (reported) and parsing stopped */
	Loc doctype_loc;
	long elements;   /* start tags read so far */
} Parse;

static bool build_lines(XmlText *x)
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

Loc xs_offset_loc(const XmlText *x, size_t off)
{
	Loc loc = {x->name, 0, 0, 0};
	if (!x->lines)
		return loc;
	size_t lo = 0, hi = x->nlines; /* the last line start <= off */
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

Loc xs_loc(const XmlText *x, const xmlNode *n)
{
	if (!n)
		return (Loc){x->name, 0, 0, 0};
	if (n->_private)
		return xs_offset_loc(x, (size_t)(uintptr_t)n->_private - 1);
	long line = xmlGetLineNo(n);
	return (Loc){x->name, line > 0 && line < INT_MAX ? (int)line : 0, 0, 0};
}

/* The offset of the '<' of the markup the parser has just read (it stands at or after its
 * closing '>', and attribute values hold no literal '<'), or SIZE_MAX. */
static size_t tag_start(const Parse *p, xmlParserCtxtPtr ctxt)
{
	long end = xmlByteConsumed(ctxt);
	if (end <= 0 || (size_t)end > p->x->len)
		return SIZE_MAX;
	size_t i = (size_t)end;
	while (i > 0 && p->x->text[i - 1] != '<')
		i--;
	return i > 0 ? i - 1 : SIZE_MAX;
}

/* libxml2's line, with the column when the markup's start was found. */
static Loc markup_loc(const Parse *p, xmlParserCtxtPtr ctxt, size_t off)
{
	if (off == SIZE_MAX)
		return (Loc){p->x->name, ctxt->input ? ctxt->input->line : 0, 0, 0};
	return xs_offset_loc(p->x, off);
}

/* Structured error handler, installed only around the parse.  Only the first fatal error
 * is shown: after it libxml2 keeps going and its follow-up complaints are noise. */
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
	diag_error(p->d, loc, "malformed XML: %s", msg);
}

/* The document has no business declaring a DTD: stop before its internal subset (and with
 * it any entity declaration) is even read. */
static void on_internal_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id)
{
	(void)name, (void)external_id, (void)system_id;
	xmlParserCtxtPtr ctxt = ctx;
	Parse *p = ctxt->_private;
	if (!p->doctype) {
		p->doctype = true;
		size_t off = tag_start(p, ctxt);
		if (off != SIZE_MAX && (p->x->len - off < 9 || memcmp(p->x->text + off, "<!DOCTYPE", 9)))
			off = SIZE_MAX;
		p->doctype_loc = markup_loc(p, ctxt, off);
	}
	xmlStopParser(ctxt);
}

static void on_external_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id)
{
	(void)ctx, (void)name, (void)external_id, (void)system_id;
}

/* Whether the text at off is the start tag '<' [prefix ':'] localname. */
static bool is_start_tag(const XmlText *x, size_t off, const xmlChar *prefix,
                         const xmlChar *localname)
{
	size_t i = off + 1;
	if (prefix) {
		size_t pl = strlen((const char *)prefix);
		if (x->len - i <= pl || memcmp(x->text + i, prefix, pl) != 0 || x->text[i + pl] != ':')
			return false;
		i += pl + 1;
	}
	size_t nl = strlen((const char *)localname);
	return x->len - i >= nl && memcmp(x->text + i, localname, nl) == 0;
}

/* Checks the bounds, lets libxml2 build the element, then records where its start tag
 * began (in n->_private, offset + 1). */
static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	xmlParserCtxtPtr ctxt = ctx;
	Parse *p = ctxt->_private;
	if (p->over_limit)
		return;
	const XmlLimits *lim = p->lim;
	const char *limit = NULL;
	long bound = 0;
	if (++p->elements > lim->max_elements)
		limit = "elements", bound = lim->max_elements;
	else if (ctxt->nameNr >= lim->max_depth) /* its ancestors are on the name stack */
		limit = "levels of nested elements", bound = lim->max_depth;
	else if (lim->max_attributes && nb_attributes > lim->max_attributes)
		limit = "attributes on one element", bound = lim->max_attributes;
	if (limit) {
		p->over_limit = true;
		diag_error(p->d, markup_loc(p, ctxt, tag_start(p, ctxt)), "%s has more than %ld %s "
		           "(element '%s'); refusing it", lim->the_doc, bound, limit,
		           (const char *)localname);
		xmlStopParser(ctxt);
		return;
	}
	p->start_element(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
	                 nb_defaulted, attributes);
	xmlNode *n = ctxt->node;
	if (!n || !n->name || strcmp((const char *)n->name, (const char *)localname) != 0)
		return;
	size_t off = tag_start(p, ctxt);
	if (off != SIZE_MAX && off < UINTPTR_MAX && is_start_tag(p->x, off, prefix, localname))
		n->_private = (void *)(uintptr_t)(off + 1);
}

int xs_parse(XmlText *x, const char *name, const char *text, size_t len,
             const XmlLimits *lim, DiagSink *d)
{
	memset(x, 0, sizeof *x);
	x->name = name;
	x->text = text;
	x->len = len;
	if (len > INT_MAX) {
		diag_error(d, (Loc){name, 0, 0, 0}, "%s is too large", lim->the_doc);
		return 1;
	}
	Parse p = {.x = x, .lim = lim, .d = d};
	xmlInitParser();
	xmlParserCtxtPtr ctxt = build_lines(x) ? xmlNewParserCtxt() : NULL;
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
	 * external is loaded and libxml2's own depth and size limits hold. */
	x->doc = xmlCtxtReadMemory(ctxt, text, (int)len, NULL, NULL,
	                           XML_PARSE_NONET | XML_PARSE_BIG_LINES);
	xmlSetStructuredErrorFunc(old_context, old_handler);
	xmlFreeParserCtxt(ctxt);
	int bad = p.xml_error || p.over_limit;
	if (p.doctype) {
		diag_error(d, p.doctype_loc, "a DOCTYPE is not allowed in %s (no DTDs or entities)",
		           lim->a_doc);
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

void xs_free(XmlText *x)
{
	xmlFreeDoc(x->doc);
	free(x->lines);
	x->doc = NULL;
	x->lines = NULL;
}
