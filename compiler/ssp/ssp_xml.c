/* ssp_xml.c — SSP documents parsed as model descriptions are (xml_safe.h, with the SSP
 * documents' own bounds), and what the SSP reader asks of their trees: namespaced
 * elements, attributes and the place of an attribute's value. */
#include "ssp_xml.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bounds far beyond any real system; no bound on attributes (a Connector has few, but
 * annotations are free-form). */
static const XmlLimits ssp_limits = {
	.max_depth = 64,
	.max_elements = 2000000,
	.a_doc = "an SSP document",
	.the_doc = "the document",
};

int sx_parse(SspXml *x, const char *name, const char *text, size_t len, DiagSink *d)
{
	if (len > SSP_XML_MAX_BYTES) {
		memset(x, 0, sizeof *x);
		diag_error(d, (Loc){name, 0, 0, 0}, "the document is larger than %u bytes",
		           SSP_XML_MAX_BYTES);
		return 1;
	}
	diag_add_source(d, name, text, len);
	return xs_parse(x, name, text, len, &ssp_limits, d);
}

void sx_free(SspXml *x)
{
	xs_free(x);
}

Loc sx_loc(const SspXml *x, const xmlNode *n)
{
	return xs_loc(x, n);
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
		Loc v = xs_offset_loc(x, j + 1);
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
