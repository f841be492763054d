/* ssp_system.c — one ssd:System (and, recursively, its elements): connectors, components
 * with their FMUs, nested systems, connections.  Each component's connectors are checked
 * against its FMU's variables (name, kind, type); each connection against the elements and
 * connectors of its system (they exist, it runs from a source to a sink, the types agree
 * with each other and with its transformation, no input is fed twice). */
#include "ssp_internal.h"

#include <string.h>
#include <unistd.h>

#include "util.h"

static const char *const kind_names[] = {
	"input", "output", "parameter", "calculatedParameter", "structuralParameter",
	"constant", "local", "inout", "unspecified",
};

SspConnector *ssp_connector(const SspElement *e, const char *name)
{
	for (int i = 0; name && i < e->nconnectors; i++)
		if (strcmp(e->connectors[i].name, name) == 0)
			return &e->connectors[i];
	return NULL;
}

SspElement *ssp_element(const SspElement *s, const char *name)
{
	if (name && s->element_index.cap) {
		int i = name_index_find(&s->element_index, name);
		return i >= 0 ? &s->elements[i] : NULL;
	}
	for (int i = 0; name && i < s->nelements; i++)
		if (s->elements[i].name && strcmp(s->elements[i].name, name) == 0)
			return &s->elements[i];
	return NULL;
}

const FmuVar *ssp_connector_var(const SspElement *e, const SspConnector *k)
{
	return e->kind == SSP_COMPONENT && e->info ? fmu_find_var(e->info, k->name) : NULL;
}

static void read_connector(Rd *r, const SspXml *x, const xmlNode *n, SspConnector *k)
{
	k->name = rd_required(r, x, n, "name");
	k->loc = sx_loc(x, n);
	const char *kind = sx_attr(n, "kind");
	k->kind = SSP_UNSPECIFIED;
	if (!kind) {
		rd_error(r, k->loc, "connector '%s' has no kind attribute", k->name ? k->name : "");
	} else {
		size_t i = 0;
		while (i < sizeof kind_names / sizeof kind_names[0] && strcmp(kind_names[i], kind))
			i++;
		if (i == sizeof kind_names / sizeof kind_names[0])
			rd_error(r, sx_attr_loc(x, n, "kind"), "connector kind \"%s\" is not one of "
			         "input, output, parameter, calculatedParameter, structuralParameter, "
			         "constant, local, inout, unspecified", kind);
		else
			k->kind = (SspKind)i;
	}
	/* SSP 1.0 writes the type as an ssc: child; drafts of 2.0 as a type attribute */
	for (xmlNode *t = sx_first_elem(n); t; t = sx_next_elem(t)) {
		if (!t->ns || strcmp((const char *)t->ns->href, SSP_NS_SSC) != 0)
			continue;
		SspType ty = ssp_type_of((const char *)t->name);
		if (ty == SSP_T_NONE)
			continue;
		k->type = ty;
		k->type_name = rd_str(r, (const char *)t->name);
		k->unit = rd_str(r, sx_attr(t, "unit"));
		k->enumeration = rd_str(r, sx_attr(t, "name"));
		break;
	}
	const char *ty = sx_attr(n, "type");
	if (!k->type_name && ty && ssp_type_of(ty) != SSP_T_NONE) {
		k->type = ssp_type_of(ty);
		k->type_name = rd_str(r, ty);
	}
}

static void read_connectors(Rd *r, const SspXml *x, const xmlNode *conns, SspElement *e)
{
	int cap = 0;
	for (xmlNode *n = sx_first_elem(conns); n; n = sx_next_elem(n))
		cap += sx_is(n, SSP_NS_SSD, "Connector");
	e->connectors = rd_array(r, cap, sizeof *e->connectors);
	for (xmlNode *n = sx_first_elem(conns); n; n = sx_next_elem(n)) {
		if (!sx_is(n, SSP_NS_SSD, "Connector"))
			continue;
		SspConnector *k = &e->connectors[e->nconnectors++];
		read_connector(r, x, n, k);
		for (int i = 0; k->name && i + 1 < e->nconnectors; i++)
			if (e->connectors[i].name && strcmp(e->connectors[i].name, k->name) == 0) {
				rd_error(r, k->loc, "'%s' has two connectors named '%s'", e->name, k->name);
				diag_note(r->c->diag, e->connectors[i].loc, "the first is here");
				break;
			}
	}
}

/* A component's connector against its FMU's variable: it exists, the kind matches the
 * causality, the type the variable's type. */
static void check_connector_var(Rd *r, const SspElement *e, SspConnector *k)
{
	const FmuVar *v = fmu_find_var(e->info, k->name);
	if (!v) {
		rd_error(r, k->loc, "component '%s' (%s) has no variable '%s'", e->name, e->source,
		         k->name);
		Suggestion s;
		suggestion_init(&s, k->name);
		for (int i = 0; i < e->info->nvars; i++)
			suggestion_offer(&s, e->info->vars[i].name, true);
		if (s.best)
			diag_note(r->c->diag, k->loc, "did you mean '%s'?", s.best);
		return;
	}
	static const FmuCausality caus[] = {
		CAUS_INPUT, CAUS_OUTPUT, CAUS_PARAMETER, CAUS_CALCULATED_PARAMETER,
		CAUS_STRUCTURAL_PARAMETER, CAUS_LOCAL, CAUS_LOCAL,
	};
	bool kind_ok = k->kind == SSP_UNSPECIFIED ||
	               (k->kind < SSP_INOUT && v->causality == caus[k->kind]) ||
	               (k->kind == SSP_CONSTANT && v->variability == VAR_CONSTANT);
	if (!kind_ok)
		rd_error(r, k->loc, "connector '%s' of '%s' is of kind %s, but the FMU's variable "
		         "is %s", k->name, e->name, kind_names[k->kind],
		         fmu_causality_name(v->causality));
	SspType vt = ssp_fmu_type(v);
	if (k->type == SSP_T_NONE)
		k->type = vt;
	else if (k->type != vt)
		rd_error(r, k->loc, "type mismatch: connector '%s' of '%s' is %s, but the FMU's "
		         "variable is %s", k->name, e->name, k->type_name, fmu_type_name(v->type));
}

/* The implementation attribute: "any" (the default), "CoSimulation" or "ModelExchange",
 * which the FMU must then offer. */
static void read_implementation(Rd *r, const SspXml *x, const xmlNode *n, SspElement *e)
{
	const char *v = sx_attr(n, "implementation");
	if (!v || strcmp(v, "any") == 0)
		return;
	Loc at = sx_attr_loc(x, n, "implementation");
	bool me = strcmp(v, "ModelExchange") == 0;
	if (!me && strcmp(v, "CoSimulation") != 0) {
		rd_error(r, at, "implementation=\"%s\" of component '%s' is none of any, "
		         "CoSimulation, ModelExchange", v, e->name);
		return;
	}
	e->implementation = me ? SSP_IMPL_ME : SSP_IMPL_CS;
	if (me ? e->info->has_model_exchange : e->info->has_cosim)
		return;
	rd_error(r, at, "component '%s' asks for the %s implementation, but its FMU \"%s\" "
	         "offers %s only", e->name, me ? "Model Exchange" : "Co-Simulation", e->source,
	         me ? "Co-Simulation" : "Model Exchange");
}

static void read_component(Rd *r, const SspXml *x, const xmlNode *n, SspElement *e)
{
	e->kind = SSP_COMPONENT;
	const char *mime = sx_attr(n, "type");
	e->mime = rd_str(r, mime ? mime : "application/x-fmu-sharedlibrary");
	e->source = rd_str(r, sx_attr(n, "source"));
	if (strcmp(e->mime, "application/x-fmu-sharedlibrary") != 0) {
		rd_error(r, sx_attr_loc(x, n, "type"), "component '%s' is of type %s: only FMUs "
		         "(application/x-fmu-sharedlibrary) are supported as components yet", e->name,
		         e->mime);
		return;
	}
	Loc at = sx_attr_loc(x, n, "source");
	if (!e->source) {
		rd_error(r, sx_loc(x, n), "component '%s' has no source: no FMU to run", e->name);
		return;
	}
	e->fmu_path = rd_resolve(r, e->source, at, "component");
	if (!e->fmu_path)
		return;
	if (access(e->fmu_path, R_OK) != 0) {
		rd_error(r, at, "missing FMU: component '%s' has source \"%s\", which is not %s",
		         e->name, e->source, r->m->tmpdir ? "in the archive" : "there");
		return;
	}
	e->info = drv_open_fmu(r->c, e->fmu_path, at);
	if (!e->info) {
		r->errors++;
		return;
	}
	read_implementation(r, x, n, e);
	for (int i = 0; i < e->nconnectors; i++)
		if (e->connectors[i].name)
			check_connector_var(r, e, &e->connectors[i]);
}

static void read_connections(Rd *r, const SspXml *x, const xmlNode *conns, SspElement *s)
{
	int cap = 0;
	for (xmlNode *n = sx_first_elem(conns); n; n = sx_next_elem(n))
		cap += sx_is(n, SSP_NS_SSD, "Connection");
	s->connections = rd_array(r, cap, sizeof *s->connections);
	for (xmlNode *n = sx_first_elem(conns); n; n = sx_next_elem(n)) {
		if (!sx_is(n, SSP_NS_SSD, "Connection"))
			continue;
		SspConnection *k = &s->connections[s->nconnections++];
		memset(k, 0, sizeof *k);
		k->loc = sx_loc(x, n);
		k->start_element = rd_str(r, sx_attr(n, "startElement"));
		k->start_connector = rd_str(r, sx_attr(n, "startConnector"));
		k->end_element = rd_str(r, sx_attr(n, "endElement"));
		k->end_connector = rd_str(r, sx_attr(n, "endConnector"));
		/* where the names are, for messages: the attribute values */
		k->start_loc = sx_attr_loc(x, n, k->start_element ? "startElement" : "startConnector");
		k->start_conn_loc = sx_attr_loc(x, n, "startConnector");
		k->end_loc = sx_attr_loc(x, n, k->end_element ? "endElement" : "endConnector");
		k->end_conn_loc = sx_attr_loc(x, n, "endConnector");
		if (!k->start_connector || !k->end_connector)
			rd_error(r, k->loc, "<ssd:Connection> needs startConnector and endConnector");
		const char *sup = sx_attr(n, "suppressUnitConversion");
		k->suppress_unit_conversion = sup && ssp_parse_bool(sup) == 1;
		if (sup && ssp_parse_bool(sup) < 0)
			rd_error(r, sx_attr_loc(x, n, "suppressUnitConversion"), "suppressUnitConversion="
			         "\"%s\" is not a boolean (true or false)", sup);
		rd_transform(r, x, n, &k->tr);
	}
}


/* Two elements of s with one name are an error at the second.  The names go into s's
 * element table on the way (ssp_element's, the first of a name kept as a search finds
 * it), so that ten thousand elements are not each compared with all before them; out of
 * memory, they are compared so and ssp_element searches. */
static void check_element_names(Rd *r, SspElement *s)
{
	bool indexed = true;
	for (int i = 0; i < s->nelements; i++) {
		const char *name = s->elements[i].name;
		int j = name && indexed ? name_index_find(&s->element_index, name) : -1;
		for (int k = 0; name && !indexed && k < i; k++)
			if (s->elements[k].name && strcmp(name, s->elements[k].name) == 0) {
				j = k;
				break;
			}
		if (j >= 0) {
			rd_error(r, s->elements[i].loc, "system '%s' has two elements named '%s'",
			         s->name, name);
			diag_note(r->c->diag, s->elements[j].loc, "the first is here");
		} else if (name && indexed && name_index_add(&s->element_index, name, i) != 0) {
			name_index_free(&s->element_index);
			indexed = false;
		}
	}
}
static void read_elements(Rd *r, const SspXml *x, const xmlNode *elems, SspElement *s)
{
	int cap = 0;
	for (xmlNode *n = sx_first_elem(elems); n; n = sx_next_elem(n))
		cap++;
	s->elements = rd_array(r, cap, sizeof *s->elements);
	for (xmlNode *n = sx_first_elem(elems); n; n = sx_next_elem(n)) {
		bool comp = sx_is(n, SSP_NS_SSD, "Component"), sys = sx_is(n, SSP_NS_SSD, "System");
		if (!comp && !sys) {
			rd_error(r, sx_loc(x, n), "<%s> is not supported in a system yet (components and "
			         "systems are)", (const char *)n->name);
			continue;
		}
		SspElement *e = &s->elements[s->nelements++];
		memset(e, 0, sizeof *e);
		if (sys) {
			rd_system(r, x, n, e, s);
			continue;
		}
		e->name = rd_required(r, x, n, "name");
		e->loc = sx_loc(x, n);
		xmlNode *k = sx_child(n, SSP_NS_SSD, "Connectors");
		if (k)
			read_connectors(r, x, k, e);
		if (e->name)
			read_component(r, x, n, e);
		if ((k = sx_child(n, SSP_NS_SSD, "ParameterBindings")))
			rd_bindings(r, x, k, e);
	}
	check_element_names(r, s);
}

void rd_system(Rd *r, const SspXml *x, const xmlNode *sys, SspElement *e,
               const SspElement *parent)
{
	(void)parent;
	e->kind = SSP_SYSTEM;
	e->name = rd_required(r, x, sys, "name");
	e->loc = sx_loc(x, sys);
	xmlNode *n;
	if ((n = sx_child(sys, SSP_NS_SSD, "Connectors")))
		read_connectors(r, x, n, e);
	if ((n = sx_child(sys, SSP_NS_SSD, "Elements")))
		read_elements(r, x, n, e);
	if ((n = sx_child(sys, SSP_NS_SSD, "Connections")))
		read_connections(r, x, n, e);
	if ((n = sx_child(sys, SSP_NS_SSD, "ParameterBindings")))
		rd_bindings(r, x, n, e);
	if (sx_child(sys, SSP_NS_SSD, "SignalDictionaries"))
		rd_error(r, sx_loc(x, sx_child(sys, SSP_NS_SSD, "SignalDictionaries")),
		         "signal dictionaries are not supported yet");
}

/* ---- connections against their system ------------------------------------------------------ */

/* One end of a connection: the element (NULL for the system's own connector) and the
 * connector, found; NULL after an error. */
static SspConnector *find_end(Rd *r, SspElement *s, const char *elem, const char *conn,
                              Loc eloc, Loc cloc, SspElement **owner)
{
	*owner = NULL;
	if (!conn)
		return NULL;
	SspElement *e = s;
	if (elem) {
		e = ssp_element(s, elem);
		if (!e) {
			rd_error(r, eloc, "connection to element '%s', which system '%s' does not have",
			         elem, s->name);
			Suggestion sg;
			suggestion_init(&sg, elem);
			for (int i = 0; i < s->nelements; i++)
				suggestion_offer(&sg, s->elements[i].name, true);
			if (sg.best)
				diag_note(r->c->diag, eloc, "did you mean '%s'?", sg.best);
			return NULL;
		}
		*owner = e;
	}
	SspConnector *k = ssp_connector(e, conn);
	if (k)
		return k;
	rd_error(r, cloc, "unknown connector '%s' of %s '%s'", conn,
	         e->kind == SSP_SYSTEM ? "system" : "component", e->name);
	Suggestion sg;
	suggestion_init(&sg, conn);
	for (int i = 0; i < e->nconnectors; i++)
		suggestion_offer(&sg, e->connectors[i].name, true);
	for (int i = 0; e->kind == SSP_COMPONENT && e->info && i < e->info->nvars; i++)
		suggestion_offer(&sg, e->info->vars[i].name, false);
	if (sg.best)
		diag_note(r->c->diag, cloc, "did you mean '%s'?", sg.best);
	return NULL;
}

/* Whether k, on owner (NULL: the system's own), may start (sink false) or end a
 * connection inside the system. */
static bool direction_ok(const SspConnector *k, const SspElement *owner, bool sink)
{
	SspKind kd = k->kind;
	if (kd == SSP_INOUT || kd == SSP_UNSPECIFIED)
		return true;
	bool inward = kd == SSP_INPUT || kd == SSP_PARAMETER || kd == SSP_STRUCTURAL_PARAMETER;
	bool outward = kd == SSP_OUTPUT || kd == SSP_CALCULATED_PARAMETER || kd == SSP_LOCAL ||
	               kd == SSP_CONSTANT;
	if (!owner) /* seen from inside, the system's inputs are sources */
		return sink ? outward : inward;
	return sink ? inward : outward;
}

static bool transform_fits(SspTransformKind tk, SspType t)
{
	switch (tk) {
	case SSP_TR_LINEAR: return t == SSP_T_REAL || t == SSP_T_NONE;
	case SSP_TR_BOOLEAN_MAP: return t == SSP_T_BOOLEAN || t == SSP_T_NONE;
	case SSP_TR_INTEGER_MAP:
		return t == SSP_T_INTEGER || t == SSP_T_ENUMERATION || t == SSP_T_NONE;
	case SSP_TR_ENUM_MAP: return t == SSP_T_ENUMERATION || t == SSP_T_NONE;
	default: return true;
	}
}

static void check_one(Rd *r, SspElement *s, SspConnection *k, int index)
{
	SspElement *so, *eo;
	SspConnector *a = find_end(r, s, k->start_element, k->start_connector, k->start_loc,
	                           k->start_conn_loc, &so);
	SspConnector *b = find_end(r, s, k->end_element, k->end_connector, k->end_loc,
	                           k->end_conn_loc, &eo);
	if (!a || !b)
		return;
	k->start = a;
	k->end = b;
	if (!direction_ok(a, so, false))
		rd_error(r, k->start_conn_loc, "connection starts at %s '%s'%s: a connection runs "
		         "from an output to an input", kind_names[a->kind], a->name,
		         so ? "" : " of the system itself");
	if (!direction_ok(b, eo, true))
		rd_error(r, k->end_conn_loc, "connection ends at %s '%s'%s: a connection runs from "
		         "an output to an input", kind_names[b->kind], b->name,
		         eo ? "" : " of the system itself");
	if (a->type != SSP_T_NONE && b->type != SSP_T_NONE && a->type != b->type &&
	    !(a->type == SSP_T_INTEGER && b->type == SSP_T_REAL && k->tr.kind == SSP_TR_NONE))
		rd_error(r, k->loc, "type mismatch: %s '%s%s%s' is connected to %s '%s%s%s'",
		         ssp_type_word(a->type), so ? so->name : "", so ? "." : "", a->name,
		         ssp_type_word(b->type), eo ? eo->name : "", eo ? "." : "", b->name);
	SspType t = a->type != SSP_T_NONE ? a->type : b->type;
	if (!transform_fits(k->tr.kind, t))
		rd_error(r, k->tr.loc, "this transformation does not apply to %s values",
		         ssp_type_word(t));
	/* the first connection into b (b belongs to one element, so the same end): b->into
	 * when it is one of this list's; none when b->into is not set yet, as every connection
	 * before this one set it if it went into b; else (another list's) searched for */
	const SspConnection *first = b->into;
	bool here = first && first >= s->connections && first < s->connections + index;
	if (!first)
		b->into = k;
	for (int j = here ? (int)(first - s->connections) : first ? 0 : index; j < index; j++) {
		const SspConnection *o = &s->connections[j];
		if (o->end == b && ((!o->end_element && !k->end_element) ||
		                    (o->end_element && k->end_element &&
		                     strcmp(o->end_element, k->end_element) == 0))) {
			rd_error(r, k->loc, "two connections into %s '%s%s%s'", kind_names[b->kind],
			         eo ? eo->name : "", eo ? "." : "", b->name);
			diag_note(r->c->diag, o->loc, "the first connection into it is here");
			break;
		}
	}
}

/* A connection may name a variable of a component's FMU that the component does not list
 * under its Connectors (the standard asks for the listing; tools do not all write it): the
 * connector is taken from the variable, its kind from the causality. */
static void implicit_connector(Rd *r, SspElement *s, const char *elem, const char *name)
{
	SspElement *e = elem ? ssp_element(s, elem) : NULL;
	if (!e || e->kind != SSP_COMPONENT || !e->info || !name || ssp_connector(e, name))
		return;
	const FmuVar *v = fmu_find_var(e->info, name);
	if (!v)
		return;
	SspKind kind = v->causality == CAUS_INPUT ? SSP_INPUT
	               : v->causality == CAUS_OUTPUT ? SSP_OUTPUT
	               : v->causality == CAUS_PARAMETER ? SSP_PARAMETER
	               : v->causality == CAUS_CALCULATED_PARAMETER ? SSP_CALCULATED_PARAMETER
	               : SSP_LOCAL;
	SspConnector *k = rd_array(r, e->nconnectors + 1, sizeof *k);
	if (e->nconnectors)
		memcpy(k, e->connectors, (size_t)e->nconnectors * sizeof *k);
	k[e->nconnectors] = (SspConnector){v->name, kind, ssp_fmu_type(v), NULL, NULL, NULL, e->loc,
	                                   NULL};
	e->connectors = k;
	e->nconnectors++;
}

void ssp_free_indexes(SspElement *sys)
{
	name_index_free(&sys->element_index);
	for (int i = 0; i < sys->nelements; i++)
		if (sys->elements[i].kind == SSP_SYSTEM)
			ssp_free_indexes(&sys->elements[i]);
}

void rd_check_connections(Rd *r, SspElement *sys)
{
	for (int i = 0; i < sys->nconnections; i++) {
		implicit_connector(r, sys, sys->connections[i].start_element,
		                   sys->connections[i].start_connector);
		implicit_connector(r, sys, sys->connections[i].end_element,
		                   sys->connections[i].end_connector);
	}
	for (int i = 0; i < sys->nconnections; i++)
		check_one(r, sys, &sys->connections[i], i);
	for (int i = 0; i < sys->nelements; i++)
		if (sys->elements[i].kind == SSP_SYSTEM)
			rd_check_connections(r, &sys->elements[i]);
}
