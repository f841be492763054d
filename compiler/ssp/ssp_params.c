/* ssp_params.c — an element's ParameterBindings: each parameter set (inline in
 * ssd:ParameterValues, or an .ssv file) and its mapping (inline in ssd:ParameterMapping, or
 * an .ssm file) read into an SspBinding.  The names are resolved later, against the whole
 * system (ssp_flat.c), since a system's binding reaches into its elements. */
#include "ssp_internal.h"

#include <string.h>

#define TYPE_PARAMETER_SET "application/x-ssp-parameter-set"
#define TYPE_PARAMETER_MAPPING "application/x-ssp-parameter-mapping"

/* An ssv:ParameterSet element into b. */
static void read_set(Rd *r, const SspXml *x, const xmlNode *set, SspBinding *b)
{
	if (!sx_is(set, SSP_NS_SSV, "ParameterSet")) {
		rd_error(r, sx_loc(x, set), "expected <ssv:ParameterSet> (namespace %s), found <%s>",
		         SSP_NS_SSV, set ? (const char *)set->name : "nothing");
		return;
	}
	xmlNode *ps = sx_child(set, SSP_NS_SSV, "Parameters");
	int cap = 0;
	for (xmlNode *p = sx_first_elem(ps); p; p = sx_next_elem(p))
		cap += sx_is(p, SSP_NS_SSV, "Parameter");
	b->params = rd_array(r, cap, sizeof *b->params);
	for (xmlNode *p = sx_first_elem(ps); p; p = sx_next_elem(p)) {
		if (!sx_is(p, SSP_NS_SSV, "Parameter"))
			continue;
		SspParam *sp = &b->params[b->nparams++];
		memset(sp, 0, sizeof *sp);
		sp->name = rd_str(r, sx_attr(p, "name"));
		sp->loc = sx_attr_loc(x, p, "name");
		if (!sp->name)
			rd_error(r, sx_loc(x, p), "<ssv:Parameter> has no name attribute");
		for (xmlNode *t = sx_first_elem(p); t; t = sx_next_elem(t)) {
			if (!t->ns || strcmp((const char *)t->ns->href, SSP_NS_SSV) != 0 ||
			    ssp_type_of((const char *)t->name) == SSP_T_NONE)
				continue;
			sp->type = ssp_type_of((const char *)t->name);
			sp->type_name = rd_str(r, (const char *)t->name);
			sp->value = rd_str(r, sx_attr(t, "value"));
			sp->unit = rd_str(r, sx_attr(t, "unit"));
			if (!sp->value && sp->type != SSP_T_BINARY)
				rd_error(r, sx_loc(x, t), "parameter '%s' has no value", sp->name);
			break;
		}
		if (sp->type == SSP_T_NONE)
			rd_error(r, sx_loc(x, p), "parameter '%s' has no value element (<ssv:Real>, "
			         "<ssv:Integer>, <ssv:Boolean>, ...)", sp->name ? sp->name : "");
	}
	xmlNode *units = sx_child(set, SSP_NS_SSV, "Units");
	if (units) /* read as an SSD's: integer exponents, a factor that is not 0 */
		rd_units(r, x, units, &b->units, &b->nunits);
}

/* An ssm:ParameterMapping element into b. */
static void read_mapping(Rd *r, const SspXml *x, const xmlNode *map, SspBinding *b)
{
	if (!sx_is(map, SSP_NS_SSM, "ParameterMapping")) {
		rd_error(r, sx_loc(x, map), "expected <ssm:ParameterMapping> (namespace %s), found "
		         "<%s>", SSP_NS_SSM, map ? (const char *)map->name : "nothing");
		return;
	}
	int cap = 0;
	for (xmlNode *e = sx_first_elem(map); e; e = sx_next_elem(e))
		cap += sx_is(e, SSP_NS_SSM, "MappingEntry");
	b->mappings = rd_array(r, cap, sizeof *b->mappings);
	for (xmlNode *e = sx_first_elem(map); e; e = sx_next_elem(e)) {
		if (!sx_is(e, SSP_NS_SSM, "MappingEntry"))
			continue;
		SspMapping *mp = &b->mappings[b->nmappings++];
		memset(mp, 0, sizeof *mp);
		mp->source = rd_str(r, sx_attr(e, "source"));
		mp->target = rd_str(r, sx_attr(e, "target"));
		mp->loc = sx_attr_loc(x, e, "target");
		if (!mp->source || !mp->target)
			rd_error(r, sx_loc(x, e), "<ssm:MappingEntry> needs source and target");
		const char *sup = sx_attr(e, "suppressUnitConversion");
		mp->suppress_unit_conversion = sup && ssp_parse_bool(sup) == 1;
		rd_transform(r, x, e, &mp->tr);
	}
}

/* The root of a parameter file (.ssv or .ssm) named by source, read with reader fn. */
static void read_file_doc(Rd *r, const SspXml *x, const xmlNode *at, const char *source,
                          SspBinding *b, void (*fn)(Rd *, const SspXml *, const xmlNode *,
                                                    SspBinding *), const char *what)
{
	Loc where = sx_attr_loc(x, at, "source");
	const char *file = rd_resolve(r, source, where, what);
	if (!file)
		return;
	SspXml fx;
	if (rd_parse_file(r, &fx, file, rd_shown(r, source), where)) {
		diag_note(r->c->diag, where, "the %s is named here", what);
		return;
	}
	fn(r, &fx, xmlDocGetRootElement(fx.doc), b);
	sx_free(&fx);
}

static void read_binding(Rd *r, const SspXml *x, const xmlNode *n, SspBinding *b)
{
	memset(b, 0, sizeof *b);
	b->loc = sx_loc(x, n);
	b->source = rd_str(r, sx_attr(n, "source"));
	const char *prefix = sx_attr(n, "prefix");
	b->prefix = rd_str(r, prefix ? prefix : "");
	const char *type = sx_attr(n, "type");
	if (type && strcmp(type, TYPE_PARAMETER_SET) != 0) {
		rd_error(r, sx_attr_loc(x, n, "type"), "parameter binding of type %s: only SSP "
		         "parameter sets (%s) are supported", type, TYPE_PARAMETER_SET);
		return;
	}
	const char *base = sx_attr(n, "sourceBase");
	if (base && strcmp(base, "SSD") != 0) {
		rd_error(r, sx_attr_loc(x, n, "sourceBase"), "sourceBase=\"%s\": only sources "
		         "relative to the SSD are supported", base);
		return;
	}
	xmlNode *values = sx_child(n, SSP_NS_SSD, "ParameterValues");
	if (b->source && values)
		rd_error(r, sx_loc(x, values), "a parameter binding has a source and inline "
		         "<ssd:ParameterValues>: one or the other");
	else if (b->source)
		read_file_doc(r, x, n, b->source, b, read_set, "parameter set");
	else if (values)
		read_set(r, x, sx_first_elem(values), b);
	else
		rd_error(r, b->loc, "a parameter binding without a source or <ssd:ParameterValues>");
	xmlNode *map = sx_child(n, SSP_NS_SSD, "ParameterMapping");
	if (!map)
		return;
	const char *mtype = sx_attr(map, "type");
	if (mtype && strcmp(mtype, TYPE_PARAMETER_MAPPING) != 0) {
		rd_error(r, sx_attr_loc(x, map, "type"), "parameter mapping of type %s: only SSP "
		         "parameter mappings (%s) are supported", mtype, TYPE_PARAMETER_MAPPING);
		return;
	}
	const char *msrc = sx_attr(map, "source");
	if (msrc)
		read_file_doc(r, x, map, msrc, b, read_mapping, "parameter mapping");
	else
		read_mapping(r, x, sx_first_elem(map), b);
}

void rd_bindings(Rd *r, const SspXml *x, const xmlNode *bindings, SspElement *e)
{
	int cap = 0;
	for (xmlNode *n = sx_first_elem(bindings); n; n = sx_next_elem(n))
		cap += sx_is(n, SSP_NS_SSD, "ParameterBinding");
	e->bindings = rd_array(r, cap, sizeof *e->bindings);
	for (xmlNode *n = sx_first_elem(bindings); n; n = sx_next_elem(n))
		if (sx_is(n, SSP_NS_SSD, "ParameterBinding"))
			read_binding(r, x, n, &e->bindings[e->nbindings++]);
}
