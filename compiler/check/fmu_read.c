/* fmu_read.c — reads an FMU's modelDescription.xml into an FmuInfo (see fmu.h).
 *
 * The first stage that touches a third-party file: fmu_open.c finds the description in
 * the archive and reads it into memory (at most FMU_MD_MAX_BYTES); here it is parsed by
 * libxml2 with everything that could reach outside the buffer switched off — no network,
 * no DTD loading, no entity substitution — and any DOCTYPE at all refused before its
 * internal subset is read, so no entity is ever declared, let alone fetched.  Depth,
 * attributes per element and the number of elements are bounded (md_limits) as start tags
 * are read.  The tree is then walked once per section (units, types, variables,
 * structure), checking what the checker and emitter rely on, and classified as the
 * paper's section 2.2.1 says.
 *
 * Diagnostics name the description "x.fmu:modelDescription.xml" (the archive, a colon, the
 * entry), or the path of a bare .xml file.  Every element keeps the line and column of its
 * '<' (libxml2 itself only records the line where the start tag ends).  Malformed XML is
 * reported once, at the first error libxml2 finds; validation continues past errors so one
 * run shows them all. */
#include "fmu.h"
#include "xml_safe.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#define MD_ENTRY "modelDescription.xml"

/* Bounds on the shape of a description, far beyond any real one (FMI nests six deep, a
 * ScalarVariable has about ten attributes) and checked as each start tag is read, so that
 * a hostile file cannot make libxml2 build a huge or deep tree within FMU_MD_MAX_BYTES. */
static const XmlLimits md_limits = {
	.max_depth = 32,
	.max_attributes = 64,
	.max_elements = 1000000,
	.a_doc = "a model description",
	.the_doc = "the model description",
};

typedef struct Reader {
	DiagSink *d;
	const char *name;     /* file name for messages */
	XmlText x;            /* the parsed document and its line table */
	FmuInfo *fmu;
	bool oom;
	int errors;
	const xmlNode **var_elems; /* the element of each of fmu->vars, while reading */
	bool any; /* fmu_parse_md_any: what sacc cannot run is described, not refused */
} Reader;

/* ---- locations -------------------------------------------------------------------------- */

/* Where the element's start tag begins. */
static Loc node_loc(Reader *r, const xmlNode *n)
{
	return xs_loc(&r->x, n);
}

static void oom(Reader *r)
{
	if (!r->oom)
		diag_error(r->d, (Loc){r->name, 0, 0, 0}, "out of memory");
	r->oom = true;
	r->errors++;
}

static void err_at(Reader *r, const xmlNode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_at(Reader *r, const xmlNode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(r->d, DIAG_ERROR, node_loc(r, n), fmt, ap);
	va_end(ap);
	r->errors++;
}

static void warn_at(Reader *r, const xmlNode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn_at(Reader *r, const xmlNode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(r->d, DIAG_WARNING, node_loc(r, n), fmt, ap);
	va_end(ap);
}

static void note_at(Reader *r, const xmlNode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note_at(Reader *r, const xmlNode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(r->d, DIAG_NOTE, node_loc(r, n), fmt, ap);
	va_end(ap);
}

/* ---- small helpers ---------------------------------------------------------------------- */

static bool is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const char *ename(const xmlNode *n)
{
	return (const char *)n->name;
}

static char *dup_str(Reader *r, const char *s)
{
	if (!s)
		return NULL;
	char *c = strdup(s);
	if (!c)
		oom(r);
	return c;
}

/* The attribute's value as a malloc'd string, or NULL when absent. */
static char *attr(Reader *r, const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = dup_str(r, (const char *)v);
	xmlFree(v);
	return s;
}

static bool has_attr(const xmlNode *n, const char *name)
{
	return xmlHasNsProp(n, (const xmlChar *)name, NULL) != NULL;
}

static char *required_attr(Reader *r, const xmlNode *n, const char *name)
{
	char *s = attr(r, n, name);
	if (!s && !r->oom)
		err_at(r, n, "<%s> lacks the required attribute '%s'", ename(n), name);
	return s;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* xs:boolean: true, false, 1, 0 (surrounding white space collapsed). */
static bool attr_bool(Reader *r, const xmlNode *n, const char *name, bool dflt)
{
	char *s = attr(r, n, name);
	if (!s)
		return dflt;
	const char *p = skip_ws(s);
	size_t len = strlen(p);
	while (len > 0 && strchr(" \t\r\n", p[len - 1]))
		len--;
	bool v = dflt;
	if ((len == 4 && memcmp(p, "true", 4) == 0) || (len == 1 && *p == '1'))
		v = true;
	else if ((len == 5 && memcmp(p, "false", 5) == 0) || (len == 1 && *p == '0'))
		v = false;
	else
		err_at(r, n, "attribute '%s' of <%s> must be true or false, not '%s'", name,
		       ename(n), s);
	free(s);
	return v;
}

/* Parses an unsigned decimal below or at max; *end gets the first unparsed character. */
static bool parse_uint(const char *s, unsigned long long max, unsigned long long *out,
                       const char **end)
{
	const char *p = s;
	if (*p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	unsigned long long v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return true;
}

/* An unsigned attribute; false (after an error) when present but malformed. */
static bool attr_uint(Reader *r, const xmlNode *n, const char *name, unsigned long long max,
                      unsigned long long *out, bool *present)
{
	char *s = attr(r, n, name);
	*present = s != NULL;
	if (!s)
		return true;
	const char *end;
	unsigned long long v;
	bool ok = parse_uint(skip_ws(s), max, &v, &end) && *skip_ws(end) == '\0';
	if (ok)
		*out = v;
	else
		err_at(r, n, "attribute '%s' of <%s> must be an unsigned integer up to %llu, not '%s'",
		       name, ename(n), max, s);
	free(s);
	return ok;
}

static int attr_int(Reader *r, const xmlNode *n, const char *name, int dflt)
{
	char *s = attr(r, n, name);
	if (!s)
		return dflt;
	const char *p = skip_ws(s);
	bool neg = *p == '-';
	if (neg || *p == '+')
		p++;
	unsigned long long v;
	const char *end;
	int out = dflt;
	if (parse_uint(p, neg ? (unsigned long long)INT_MAX + 1 : INT_MAX, &v, &end) &&
	    *skip_ws(end) == '\0')
		out = neg ? (int)(-(long long)v) : (int)v;
	else
		err_at(r, n, "attribute '%s' of <%s> must be an integer, not '%s'", name, ename(n), s);
	free(s);
	return out;
}

/* xs:double, including INF, -INF and NaN. */
static double attr_double(Reader *r, const xmlNode *n, const char *name, double dflt)
{
	char *s = attr(r, n, name);
	if (!s)
		return dflt;
	const char *p = skip_ws(s);
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || *skip_ws(end) != '\0' || (errno == ERANGE && isinf(v))) {
		err_at(r, n, "attribute '%s' of <%s> must be a number, not '%s'", name, ename(n), s);
		v = dflt;
	}
	free(s);
	return v;
}

static int count_children(const xmlNode *parent, bool (*want)(const xmlNode *))
{
	int n = 0;
	for (const xmlNode *c = parent ? parent->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && (!want || want(c)))
			n++;
	return n;
}

static void *calloc_n(Reader *r, int n, size_t size)
{
	void *p = calloc(n > 0 ? (size_t)n : 1, size);
	if (!p)
		oom(r);
	return p;
}

/* ---- names of things -------------------------------------------------------------------- */

typedef struct TypeName {
	const char *v2, *v3; /* element names; NULL where the version lacks the type */
	FmuType t;
} TypeName;

static const TypeName type_names[] = {
	{"Real", "Float64", FT_REAL},         {NULL, "Float32", FT_FLOAT32},
	{"Integer", "Int32", FT_INTEGER},     {NULL, "Int8", FT_INT8},
	{NULL, "UInt8", FT_UINT8},            {NULL, "Int16", FT_INT16},
	{NULL, "UInt16", FT_UINT16},          {NULL, "UInt32", FT_UINT32},
	{NULL, "Int64", FT_INT64},            {NULL, "UInt64", FT_UINT64},
	{"Boolean", "Boolean", FT_BOOLEAN},   {"String", "String", FT_STRING},
	{"Enumeration", "Enumeration", FT_ENUMERATION},
	{NULL, "Binary", FT_BINARY},          {NULL, "Clock", FT_CLOCK},
};
#define NTYPES (sizeof type_names / sizeof type_names[0])

const char *fmu_type_name_for(FmuType t, FmiVersion v)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (type_names[i].t == t)
			return v == FMI_V2 && type_names[i].v2 ? type_names[i].v2 : type_names[i].v3;
	return "?";
}

const char *fmu_type_name(FmuType t)
{
	return fmu_type_name_for(t, FMI_V2);
}

/* The type a variable element (or, with suffix "Type", an FMI 3 type definition) names. */
static bool type_of_element(FmiVersion v, const char *name, const char *suffix, FmuType *t)
{
	size_t sl = strlen(suffix), nl = strlen(name);
	if (nl <= sl || strcmp(name + nl - sl, suffix) != 0)
		return false;
	for (size_t i = 0; i < NTYPES; i++) {
		const char *e = v == FMI_V2 ? type_names[i].v2 : type_names[i].v3;
		if (e && strlen(e) == nl - sl && memcmp(e, name, nl - sl) == 0) {
			*t = type_names[i].t;
			return true;
		}
	}
	return false;
}

static const char *const causality_names[] = {
	[CAUS_LOCAL] = "local",
	[CAUS_PARAMETER] = "parameter",
	[CAUS_CALCULATED_PARAMETER] = "calculatedParameter",
	[CAUS_INPUT] = "input",
	[CAUS_OUTPUT] = "output",
	[CAUS_INDEPENDENT] = "independent",
	[CAUS_STRUCTURAL_PARAMETER] = "structuralParameter",
};

static const char *const variability_names[] = {
	[VAR_CONTINUOUS] = "continuous",
	[VAR_CONSTANT] = "constant",
	[VAR_FIXED] = "fixed",
	[VAR_TUNABLE] = "tunable",
	[VAR_DISCRETE] = "discrete",
};

static const char *const initial_names[] = {
	[INIT_UNSET] = "",
	[INIT_EXACT] = "exact",
	[INIT_APPROX] = "approx",
	[INIT_CALCULATED] = "calculated",
};

static const char *const interval_variability_names[] = {
	[IV_CONSTANT] = "constant",   [IV_FIXED] = "fixed",         [IV_TUNABLE] = "tunable",
	[IV_CHANGING] = "changing",   [IV_COUNTDOWN] = "countdown", [IV_TRIGGERED] = "triggered",
};
#define NIV ((int)(sizeof interval_variability_names / sizeof *interval_variability_names))

const char *fmu_interval_variability_name(FmuIntervalVariability iv)
{
	return (int)iv >= 0 && (int)iv < NIV ? interval_variability_names[iv] : "?";
}

bool fmu_clock_periodic(const FmuClock *c)
{
	return c->interval_variability <= IV_CHANGING;
}

double fmu_clock_interval(const FmuClock *c)
{
	if (!isnan(c->interval_decimal))
		return c->interval_decimal;
	if (c->interval_counter && c->resolution)
		return (double)c->interval_counter / (double)c->resolution;
	return NAN;
}

double fmu_clock_shift(const FmuClock *c)
{
	if (c->shift_decimal != 0 || !c->shift_counter || !c->resolution)
		return c->shift_decimal;
	return (double)c->shift_counter / (double)c->resolution;
}

const char *fmu_causality_name(FmuCausality c)
{
	return (unsigned)c < sizeof causality_names / sizeof *causality_names ? causality_names[c]
	                                                                         : "?";
}

const char *fmu_variability_name(FmuVariability v)
{
	return (unsigned)v < sizeof variability_names / sizeof *variability_names
	               ? variability_names[v]
	               : "?";
}

const char *fmu_initial_name(FmuInitial i)
{
	return (unsigned)i < sizeof initial_names / sizeof *initial_names ? initial_names[i] : "?";
}

const char *fmu_var_unsupported(const FmuVar *v, char *buf, size_t size)
{
	if (v->ndims > 0 && v->nelems >= 0)
		snprintf(buf, size, "an array of %lld %s", v->nelems,
		         fmu_type_name_for(v->type, FMI_V3));
	else if (v->ndims > 0)
		snprintf(buf, size, "an array of %s", fmu_type_name_for(v->type, FMI_V3));
	else if (v->type == FT_BINARY || v->type == FT_ENUMERATION)
		snprintf(buf, size, "%s %s", v->type == FT_ENUMERATION ? "an" : "a",
		         fmu_type_name_for(v->type, FMI_V3));
	else
		return NULL;
	return buf;
}

/* Looks s up in names[0..n); -1 when absent.  Empty entries never match. */
static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (names[i][0] && strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* ---- sections --------------------------------------------------------------------------- */

static void read_cosim(Reader *r, const xmlNode *cs)
{
	FmuInfo *f = r->fmu;
	f->has_cosim = true;
	f->model_identifier = required_attr(r, cs, "modelIdentifier");
	f->needs_execution_tool = attr_bool(r, cs, "needsExecutionTool", false);
	f->can_handle_variable_step = attr_bool(r, cs, "canHandleVariableCommunicationStepSize", false);
	f->can_be_instantiated_only_once_per_process =
		attr_bool(r, cs, "canBeInstantiatedOnlyOncePerProcess", false);
	unsigned long long order = 0;
	bool present;
	attr_uint(r, cs, "maxOutputDerivativeOrder", INT_MAX, &order, &present);
	f->max_output_derivative_order = (int)order;
	/* FMI 3.0 dropped canInterpolateInputs; an FMI 3 FMU that still writes it is taken at
	 * its word, one that does not is delayed. */
	f->can_interpolate_inputs = attr_bool(r, cs, "canInterpolateInputs", false);
	if (f->version == FMI_V2) {
		/* The standard's schema spells it "Asynchronuously"; accept the dictionary too. */
		f->can_run_asynchronously = has_attr(cs, "canRunAsynchronuously")
		                                    ? attr_bool(r, cs, "canRunAsynchronuously", false)
		                                    : attr_bool(r, cs, "canRunAsynchronously", false);
		f->can_not_use_memory_management_functions =
			attr_bool(r, cs, "canNotUseMemoryManagementFunctions", false);
		f->can_get_and_set_fmu_state = attr_bool(r, cs, "canGetAndSetFMUstate", false);
		f->can_serialize_fmu_state = attr_bool(r, cs, "canSerializeFMUstate", false);
		f->provides_directional_derivative =
			attr_bool(r, cs, "providesDirectionalDerivative", false);
	} else {
		f->can_get_and_set_fmu_state = attr_bool(r, cs, "canGetAndSetFMUState", false);
		f->can_serialize_fmu_state = attr_bool(r, cs, "canSerializeFMUState", false);
		f->provides_directional_derivative =
			attr_bool(r, cs, "providesDirectionalDerivatives", false);
		f->provides_adjoint_derivatives = attr_bool(r, cs, "providesAdjointDerivatives", false);
		f->has_event_mode = attr_bool(r, cs, "hasEventMode", false);
		f->can_return_early_after_intermediate_update =
			attr_bool(r, cs, "canReturnEarlyAfterIntermediateUpdate", false);
		f->provides_intermediate_update = attr_bool(r, cs, "providesIntermediateUpdate", false);
		f->might_return_early_from_do_step =
			attr_bool(r, cs, "mightReturnEarlyFromDoStep", false);
		f->fixed_internal_step_size = attr_double(r, cs, "fixedInternalStepSize", 0.0);
	}
}

/* <ModelExchange>: its identifier and capabilities, beside Co-Simulation's (an FMU may
 * offer both, each with its own library name and abilities). */
static void read_me(Reader *r, const xmlNode *me)
{
	FmuMe *m = &r->fmu->me;
	m->model_identifier = required_attr(r, me, "modelIdentifier");
	m->needs_execution_tool = attr_bool(r, me, "needsExecutionTool", false);
	m->can_be_instantiated_only_once_per_process =
		attr_bool(r, me, "canBeInstantiatedOnlyOncePerProcess", false);
	if (r->fmu->version == FMI_V2) {
		m->needs_completed_integrator_step =
			!attr_bool(r, me, "completedIntegratorStepNotNeeded", false);
		m->can_not_use_memory_management_functions =
			attr_bool(r, me, "canNotUseMemoryManagementFunctions", false);
		m->can_get_and_set_fmu_state = attr_bool(r, me, "canGetAndSetFMUstate", false);
		m->can_serialize_fmu_state = attr_bool(r, me, "canSerializeFMUstate", false);
		m->provides_directional_derivative =
			attr_bool(r, me, "providesDirectionalDerivative", false);
	} else {
		m->needs_completed_integrator_step =
			attr_bool(r, me, "needsCompletedIntegratorStep", false);
		m->can_get_and_set_fmu_state = attr_bool(r, me, "canGetAndSetFMUState", false);
		m->can_serialize_fmu_state = attr_bool(r, me, "canSerializeFMUState", false);
		m->provides_directional_derivative =
			attr_bool(r, me, "providesDirectionalDerivatives", false);
		m->provides_adjoint_derivatives = attr_bool(r, me, "providesAdjointDerivatives", false);
		m->provides_evaluate_discrete_states =
			attr_bool(r, me, "providesEvaluateDiscreteStates", false);
	}
}

/* <ScheduledExecution>: its identifier and capabilities, beside the other interfaces'. */
static void read_se(Reader *r, const xmlNode *se)
{
	FmuSe *s = &r->fmu->se;
	s->model_identifier = required_attr(r, se, "modelIdentifier");
	s->needs_execution_tool = attr_bool(r, se, "needsExecutionTool", false);
	s->can_be_instantiated_only_once_per_process =
		attr_bool(r, se, "canBeInstantiatedOnlyOncePerProcess", false);
	s->can_get_and_set_fmu_state = attr_bool(r, se, "canGetAndSetFMUState", false);
	s->can_serialize_fmu_state = attr_bool(r, se, "canSerializeFMUState", false);
	s->provides_directional_derivative =
		attr_bool(r, se, "providesDirectionalDerivatives", false);
	s->provides_adjoint_derivatives = attr_bool(r, se, "providesAdjointDerivatives", false);
}

static bool is_unit_elem(const xmlNode *n)
{
	return strcmp((const char *)n->name, "Unit") == 0;
}

static void read_units(Reader *r, const xmlNode *defs)
{
	FmuInfo *f = r->fmu;
	int n = count_children(defs, is_unit_elem);
	f->units = calloc_n(r, n, sizeof *f->units);
	if (!f->units)
		return;
	for (const xmlNode *u = defs->children; u; u = u->next) {
		if (!is_elem(u, "Unit"))
			continue;
		FmuUnit *unit = &f->units[f->nunits++];
		unit->factor = 1.0;
		unit->name = required_attr(r, u, "name");
		for (int i = 0; unit->name && i < f->nunits - 1; i++) {
			if (f->units[i].name && strcmp(f->units[i].name, unit->name) == 0) {
				err_at(r, u, "unit '%s' is defined twice", unit->name);
				break;
			}
		}
		for (const xmlNode *b = u->children; b; b = b->next) {
			if (!is_elem(b, "BaseUnit"))
				continue;
			if (unit->has_base) {
				err_at(r, b, "unit '%s' has more than one <BaseUnit>",
				       unit->name ? unit->name : "?");
				continue;
			}
			unit->has_base = true;
			unit->kg = attr_int(r, b, "kg", 0);
			unit->m = attr_int(r, b, "m", 0);
			unit->s = attr_int(r, b, "s", 0);
			unit->A = attr_int(r, b, "A", 0);
			unit->K = attr_int(r, b, "K", 0);
			unit->mol = attr_int(r, b, "mol", 0);
			unit->cd = attr_int(r, b, "cd", 0);
			unit->rad = attr_int(r, b, "rad", 0);
			unit->factor = attr_double(r, b, "factor", 1.0);
			unit->offset = attr_double(r, b, "offset", 0.0);
		}
	}
}

/* An enumeration type's <Item name value [description]> children. */
static void read_items(Reader *r, const xmlNode *spec, FmuTypeDef *td)
{
	int n = count_children(spec, NULL);
	td->items = calloc_n(r, n, sizeof *td->items);
	if (!td->items)
		return;
	for (const xmlNode *it = spec->children; it; it = it->next) {
		if (!is_elem(it, "Item"))
			continue;
		FmuEnumItem *item = &td->items[td->nitems++];
		item->name = required_attr(r, it, "name");
		item->description = attr(r, it, "description");
		char *value = required_attr(r, it, "value"), *end = NULL;
		if (!value)
			continue;
		errno = 0;
		item->value = strtoll(value, &end, 10);
		if (errno || end == value || *skip_ws(end))
			err_at(r, it, "item '%s' of type '%s' has value '%s', not an integer",
			       item->name ? item->name : "?", td->name ? td->name : "?", value);
		free(value);
	}
}

/* The Clock attributes of a <Clock> or <ClockType>, over those already in c (a clock's
 * declared type's, or the defaults).  required: intervalVariability must be there (a
 * <Clock> whose type does not give it). */
static void read_clock_attrs(Reader *r, const xmlNode *n, FmuClock *c, bool required,
                             const char *owner)
{
	char *s = attr(r, n, "intervalVariability");
	if (s) {
		int iv = lookup(interval_variability_names, NIV, s);
		if (iv < 0)
			err_at(r, n, "unknown intervalVariability '%s' of clock '%s' (constant, fixed, "
			       "tunable, changing, countdown or triggered)", s, owner);
		else
			c->interval_variability = (FmuIntervalVariability)iv;
		free(s);
	} else if (required) {
		err_at(r, n, "clock '%s' lacks the required attribute 'intervalVariability'", owner);
	}
	c->interval_decimal = attr_double(r, n, "intervalDecimal", c->interval_decimal);
	c->shift_decimal = attr_double(r, n, "shiftDecimal", c->shift_decimal);
	c->supports_fraction = attr_bool(r, n, "supportsFraction", c->supports_fraction);
	c->can_be_deactivated = attr_bool(r, n, "canBeDeactivated", c->can_be_deactivated);
	unsigned long long u = 0;
	bool present = false;
	if (attr_uint(r, n, "resolution", ULLONG_MAX, &u, &present) && present)
		c->resolution = u;
	if (attr_uint(r, n, "intervalCounter", ULLONG_MAX, &u, &present) && present)
		c->interval_counter = u;
	if (attr_uint(r, n, "shiftCounter", ULLONG_MAX, &u, &present) && present)
		c->shift_counter = u;
	if (attr_uint(r, n, "priority", UINT32_MAX, &u, &present) && present) {
		c->has_priority = true;
		c->priority = (unsigned)u;
	}
	double iv = fmu_clock_interval(c);
	if (!isnan(iv) && !(iv > 0) && fmu_clock_periodic(c))
		err_at(r, n, "clock '%s' has the interval %g: a periodic clock's must be positive",
		       owner, iv);
}

/* FMI 2: SimpleType with one type child.  FMI 3: Float64Type and friends. */
static void read_types(Reader *r, const xmlNode *defs)
{
	FmuInfo *f = r->fmu;
	int n = count_children(defs, NULL);
	f->types = calloc_n(r, n, sizeof *f->types);
	if (!f->types)
		return;
	for (const xmlNode *t = defs->children; t; t = t->next) {
		if (t->type != XML_ELEMENT_NODE)
			continue;
		const xmlNode *spec = t; /* the element carrying quantity and unit */
		FmuType type;
		if (f->version == FMI_V2) {
			if (!is_elem(t, "SimpleType")) {
				err_at(r, t, "unexpected <%s> in <TypeDefinitions>", ename(t));
				continue;
			}
			spec = NULL;
			for (const xmlNode *c = t->children; c; c = c->next) {
				if (c->type != XML_ELEMENT_NODE)
					continue;
				if (spec || !type_of_element(FMI_V2, ename(c), "", &type)) {
					err_at(r, c, "unexpected <%s> in <SimpleType>", ename(c));
					continue;
				}
				spec = c;
			}
			if (!spec) {
				err_at(r, t, "<SimpleType> has no type element");
				continue;
			}
			type_of_element(FMI_V2, ename(spec), "", &type);
		} else if (!type_of_element(FMI_V3, ename(t), "Type", &type)) {
			err_at(r, t, "unexpected <%s> in <TypeDefinitions>", ename(t));
			continue;
		}
		FmuTypeDef *td = &f->types[f->ntypes++];
		td->type = type;
		td->name = required_attr(r, t, "name");
		td->quantity = attr(r, spec, "quantity");
		td->unit = attr(r, spec, "unit");
		if (type == FT_ENUMERATION)
			read_items(r, spec, td);
		td->clock.interval_decimal = NAN;
		if (type == FT_CLOCK)
			read_clock_attrs(r, t, &td->clock, false, td->name ? td->name : "?");
		for (int i = 0; td->name && i < f->ntypes - 1; i++) {
			if (f->types[i].name && strcmp(f->types[i].name, td->name) == 0) {
				err_at(r, t, "type '%s' is defined twice", td->name);
				break;
			}
		}
	}
}

const FmuTypeDef *fmu_find_type(const FmuInfo *f, const char *name)
{
	for (int i = 0; i < f->ntypes; i++)
		if (f->types[i].name && strcmp(f->types[i].name, name) == 0)
			return &f->types[i];
	return NULL;
}

static bool is_float(FmuType t)
{
	return t == FT_REAL || t == FT_FLOAT32;
}

/* Reads causality, variability and initial from the element that carries them. */
static void read_kinds(Reader *r, const xmlNode *n, FmuVar *v)
{
	int ncaus = r->fmu->version == FMI_V2 ? CAUS_INDEPENDENT + 1 : CAUS_STRUCTURAL_PARAMETER + 1;
	char *s = attr(r, n, "causality");
	if (s) {
		int c = lookup(causality_names, ncaus, s);
		if (c < 0)
			err_at(r, n, "unknown causality '%s' of variable '%s'", s, v->name ? v->name : "?");
		v->causality = c < 0 ? CAUS_LOCAL : (FmuCausality)c;
		free(s);
	}
	v->variability = is_float(v->type) ? VAR_CONTINUOUS : VAR_DISCRETE;
	s = attr(r, n, "variability");
	if (s) {
		int c = lookup(variability_names,
		               (int)(sizeof variability_names / sizeof *variability_names), s);
		if (c < 0)
			err_at(r, n, "unknown variability '%s' of variable '%s'", s,
			       v->name ? v->name : "?");
		else
			v->variability = (FmuVariability)c;
		free(s);
	}
	s = attr(r, n, "initial");
	if (s) {
		int c = lookup(initial_names, (int)(sizeof initial_names / sizeof *initial_names), s);
		if (c < 0)
			err_at(r, n, "unknown initial '%s' of variable '%s'", s, v->name ? v->name : "?");
		v->initial = c < 0 ? INIT_UNSET : (FmuInitial)c;
		free(s);
	}
}

/* The unit, declared type and start of a variable from its type element (FMI 2's child
 * of ScalarVariable, or FMI 3's variable element itself). */
static void read_type_attrs(Reader *r, const xmlNode *te, FmuVar *v)
{
	v->declared_type = attr(r, te, "declaredType");
	v->unit = attr(r, te, "unit");
	if (v->declared_type) {
		const FmuTypeDef *td = fmu_find_type(r->fmu, v->declared_type);
		if (!td)
			err_at(r, te, "variable '%s' has the undefined declaredType '%s'",
			       v->name ? v->name : "?", v->declared_type);
		else if (td->type != v->type)
			err_at(r, te, "variable '%s' is %s but its declaredType '%s' is %s",
			       v->name ? v->name : "?", fmu_type_name_for(v->type, r->fmu->version),
			       v->declared_type, fmu_type_name_for(td->type, r->fmu->version));
		else if (!v->unit && td->unit)
			v->unit = dup_str(r, td->unit);
	} else if (v->type == FT_ENUMERATION) {
		err_at(r, te, "enumeration variable '%s' lacks the required attribute 'declaredType'",
		       v->name ? v->name : "?");
	}
	v->max_size = -1;
	if (r->fmu->version == FMI_V3)
		v->intermediate_update = attr_bool(r, te, "intermediateUpdate", false);
	if (v->type == FT_BINARY) {
		unsigned long long max = 0;
		bool has_max = false;
		v->mime_type = attr(r, te, "mimeType");
		if (attr_uint(r, te, "maxSize", LLONG_MAX, &max, &has_max) && has_max)
			v->max_size = (long long)max;
	}
	v->start = attr(r, te, "start");
	if (!v->start && r->fmu->version == FMI_V3) {
		/* FMI 3 String and Binary give their start values as <Start value=".."/>, one per
		 * element of an array: kept NUL-separated in one block */
		size_t len = 0;
		int n = 0;
		for (const xmlNode *c = te->children; c; c = c->next)
			if (is_elem(c, "Start")) {
				xmlChar *val = xmlGetNoNsProp(c, (const xmlChar *)"value");
				len += strlen(val ? (const char *)val : "") + 1;
				n++;
				xmlFree(val);
			}
		if (n) {
			char *all = malloc(len + 1), *p = all;
			if (!all) {
				oom(r);
				return;
			}
			for (const xmlNode *c = te->children; c; c = c->next)
				if (is_elem(c, "Start")) {
					xmlChar *val = xmlGetNoNsProp(c, (const xmlChar *)"value");
					size_t k = strlen(val ? (const char *)val : "") + 1;
					memcpy(p, val ? (const char *)val : "", k);
					p += k;
					xmlFree(val);
				}
			v->start = all;
			v->nstarts = n;
		}
	}
}

static bool is_dim_elem(const xmlNode *n)
{
	return strcmp((const char *)n->name, "Dimension") == 0;
}

/* FMI 3 <Dimension> children, kept raw: a dimension sized by a structural parameter holds
 * that parameter's value reference in size until resolve_dims finds it. */
static void read_dims(Reader *r, const xmlNode *n, FmuVar *v)
{
	v->nelems = 1;
	int nd = count_children(n, is_dim_elem);
	if (nd == 0)
		return;
	v->dims = calloc_n(r, nd, sizeof *v->dims);
	if (!v->dims)
		return;
	for (const xmlNode *c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE || !is_dim_elem(c))
			continue;
		FmuDim *d = &v->dims[v->ndims++];
		unsigned long long start = 0, vr = 0;
		bool has_start = false, has_vr = false;
		attr_uint(r, c, "start", LLONG_MAX, &start, &has_start);
		attr_uint(r, c, "valueReference", UINT32_MAX, &vr, &has_vr);
		if (has_start == has_vr)
			err_at(r, c, "a <Dimension> of variable '%s' needs exactly one of 'start' and "
			       "'valueReference'", v->name ? v->name : "?");
		d->start = has_start ? (long long)start : -1;
		d->var = -1;
		d->size = has_start ? (long long)start : (long long)vr;
	}
}

/* A Clock variable: its declared <ClockType>'s attributes under its own.  A clock is an
 * input (the importer ticks it), an output (the FMU does) or local. */
static void read_clock(Reader *r, const xmlNode *n, FmuVar *v)
{
	const char *name = v->name ? v->name : "?";
	const FmuTypeDef *td = v->declared_type ? fmu_find_type(r->fmu, v->declared_type) : NULL;
	if (td && td->type == FT_CLOCK)
		v->clock = td->clock;
	else
		v->clock.interval_decimal = NAN;
	read_clock_attrs(r, n, &v->clock, !(td && td->type == FT_CLOCK), name);
	if (v->causality != CAUS_INPUT && v->causality != CAUS_OUTPUT && v->causality != CAUS_LOCAL)
		err_at(r, n, "clock '%s' has causality %s: a clock is an input, an output or local",
		       name, fmu_causality_name(v->causality));
	if (v->ndims > 0)
		err_at(r, n, "clock '%s' is an array: sacc supports scalar clocks only", name);
}

static bool is_var_elem_v2(const xmlNode *n)
{
	return strcmp((const char *)n->name, "ScalarVariable") == 0;
}

/* Reads one variable.  derivs[i] keeps the raw derivative attribute (1-based index in FMI 2,
 * value reference in FMI 3) for resolution once every variable is known. */
static void read_var(Reader *r, const xmlNode *n, FmuVar *v, long long *deriv, char **clocks)
{
	FmuInfo *f = r->fmu;
	const xmlNode *te = n; /* the element with the type-specific attributes */
	v->line = node_loc(r, n).line;
	v->nelems = 1;
	v->name = required_attr(r, n, "name");
	if (f->version == FMI_V2) {
		te = NULL;
		for (const xmlNode *c = n->children; c; c = c->next) {
			FmuType t;
			if (c->type != XML_ELEMENT_NODE || is_elem(c, "Annotations"))
				continue;
			if (te || !type_of_element(FMI_V2, ename(c), "", &t)) {
				err_at(r, c, "unexpected <%s> in variable '%s'", ename(c),
				       v->name ? v->name : "?");
				continue;
			}
			te = c;
			v->type = t;
		}
		if (!te)
			err_at(r, n, "variable '%s' has no type element (Real, Integer, ...)",
			       v->name ? v->name : "?");
	} else {
		type_of_element(FMI_V3, ename(n), "", &v->type);
		if (v->type == FT_CLOCK)
			f->nclocks++;
		read_dims(r, n, v);
		*clocks = attr(r, n, "clocks");
	}
	unsigned long long vr = 0;
	bool present;
	if (attr_uint(r, n, "valueReference", UINT32_MAX, &vr, &present) && !present)
		err_at(r, n, "<%s> lacks the required attribute 'valueReference'", ename(n));
	v->vr = (uint32_t)vr;
	v->description = attr(r, n, "description");
	read_kinds(r, n, v);
	if (te) {
		read_type_attrs(r, te, v);
		if (v->type == FT_CLOCK)
			read_clock(r, te, v);
		if (v->variability == VAR_CONTINUOUS && !is_float(v->type))
			err_at(r, n, "variable '%s' is %s and cannot be continuous",
			       v->name ? v->name : "?", fmu_type_name_for(v->type, f->version));
		unsigned long long d = 0;
		if (is_float(v->type) &&
		    attr_uint(r, te, "derivative", UINT32_MAX, &d, &present) && present)
			*deriv = (long long)d;
	}
}

static bool is_var_elem_v3(const xmlNode *n)
{
	FmuType t;
	return type_of_element(FMI_V3, (const char *)n->name, "", &t);
}

static int count_words(const char *s);

typedef struct VrIndex {
	uint32_t vr;
	int var;
} VrIndex;

static int cmp_vr(const void *a, const void *b)
{
	const VrIndex *x = a, *y = b;
	if (x->vr != y->vr)
		return x->vr < y->vr ? -1 : 1;
	return x->var - y->var;
}

typedef struct NameIndex {
	const char *name;
	int var;
} NameIndex;

static int cmp_names(const void *a, const void *b)
{
	const NameIndex *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->var - y->var;
}

static void check_duplicate_names(Reader *r, const xmlNode *const *elems)
{
	FmuInfo *f = r->fmu;
	NameIndex *idx = calloc_n(r, f->nvars, sizeof *idx);
	int *first = calloc_n(r, f->nvars, sizeof *first);
	if (!idx || !first) {
		free(idx);
		free(first);
		return;
	}
	int n = 0;
	for (int i = 0; i < f->nvars; i++) {
		first[i] = -1;
		if (f->vars[i].name)
			idx[n++] = (NameIndex){f->vars[i].name, i};
	}
	qsort(idx, (size_t)n, sizeof *idx, cmp_names);
	for (int i = 1; i < n; i++)
		if (strcmp(idx[i].name, idx[i - 1].name) == 0)
			first[idx[i].var] = first[idx[i - 1].var] >= 0 ? first[idx[i - 1].var]
			                                                : idx[i - 1].var;
	for (int i = 0; i < f->nvars; i++) {
		if (first[i] < 0)
			continue;
		err_at(r, elems[i], "duplicate variable name '%s'", f->vars[i].name);
		note_at(r, elems[first[i]], "'%s' is first declared here", f->vars[i].name);
	}
	free(idx);
	free(first);
}

/* Maps FMI 3 value references to variables; duplicates are errors there (FMI 2 allows
 * aliases, which share a value reference within a type). */
static VrIndex *build_vr_index(Reader *r, const xmlNode *const *elems)
{
	FmuInfo *f = r->fmu;
	VrIndex *idx = calloc_n(r, f->nvars, sizeof *idx);
	if (!idx)
		return NULL;
	for (int i = 0; i < f->nvars; i++)
		idx[i] = (VrIndex){f->vars[i].vr, i};
	qsort(idx, (size_t)f->nvars, sizeof *idx, cmp_vr);
	if (f->version == FMI_V3) {
		for (int i = 1; i < f->nvars; i++) {
			if (idx[i].vr != idx[i - 1].vr)
				continue;
			const FmuVar *v = &f->vars[idx[i].var];
			err_at(r, elems[idx[i].var], "variable '%s' reuses valueReference %u",
			       v->name ? v->name : "?", (unsigned)v->vr);
			note_at(r, elems[idx[i - 1].var], "valueReference %u is first used by '%s'",
			        (unsigned)v->vr,
			        f->vars[idx[i - 1].var].name ? f->vars[idx[i - 1].var].name : "?");
		}
	}
	return idx;
}

static int var_by_vr(const FmuInfo *f, const VrIndex *idx, uint32_t vr)
{
	size_t lo = 0, hi = (size_t)f->nvars;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx[mid].vr < vr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)f->nvars && idx[lo].vr == vr ? idx[lo].var : -1;
}

/* The sizes of v's dimensions: fixed ones as written, the others at their structural
 * parameter's start value (what the FMU has unless the parameter is set, which sacc never
 * does), and the number of elements. */
static void resolve_dims(Reader *r, const xmlNode *n, const VrIndex *idx, FmuVar *v)
{
	const FmuInfo *f = r->fmu;
	for (int k = 0; k < v->ndims; k++) {
		FmuDim *d = &v->dims[k];
		if (d->start >= 0)
			continue;
		uint32_t vr = (uint32_t)d->size;
		d->size = -1;
		d->var = var_by_vr(f, idx, vr);
		const FmuVar *p = d->var >= 0 ? &f->vars[d->var] : NULL;
		unsigned long long size;
		const char *end;
		if (!p) {
			err_at(r, n, "a <Dimension> of variable '%s' names valueReference %u, which no "
			       "variable has", v->name ? v->name : "?", (unsigned)vr);
		} else if (p->type == FT_REAL || p->type == FT_FLOAT32 || p->type >= FT_BOOLEAN ||
		           (p->causality != CAUS_STRUCTURAL_PARAMETER &&
		            p->variability != VAR_CONSTANT)) {
			err_at(r, n, "a <Dimension> of variable '%s' is sized by '%s', which is not an "
			       "integer structural parameter or constant", v->name ? v->name : "?",
			       p->name ? p->name : "?");
		} else if (p->start && parse_uint(skip_ws(p->start), LLONG_MAX, &size, &end) &&
		           !*skip_ws(end)) {
			d->size = (long long)size;
		}
	}
	v->nelems = 1;
	for (int k = 0; k < v->ndims; k++) {
		if (v->dims[k].size < 0 ||
		    (v->dims[k].size > 0 && v->nelems > LLONG_MAX / v->dims[k].size)) {
			v->nelems = -1;
			break;
		}
		v->nelems *= v->dims[k].size;
	}
}

/* A clocks="vr vr .." attribute: the Clock variables v belongs to. */
static void resolve_clocks(Reader *r, const xmlNode *n, const VrIndex *idx, FmuVar *v,
                           const char *list)
{
	const FmuInfo *f = r->fmu;
	const char *name = v->name ? v->name : "?";
	int count = count_words(list);
	v->clocks = calloc_n(r, count, sizeof *v->clocks);
	const char *p = skip_ws(list);
	for (int k = 0; v->clocks && k < count; k++, p = skip_ws(p)) {
		unsigned long long ref;
		const char *end;
		if (!parse_uint(p, UINT32_MAX, &ref, &end) || (*end && !strchr(" \t\r\n", *end))) {
			err_at(r, n, "clocks of '%s' must be a list of value references, not '%s'", name,
			       list);
			return;
		}
		p = end;
		int c = var_by_vr(f, idx, (uint32_t)ref);
		if (c < 0)
			err_at(r, n, "clocks of '%s' names valueReference %llu, which no variable has",
			       name, ref);
		else if (f->vars[c].type != FT_CLOCK)
			err_at(r, n, "clocks of '%s' names '%s', which is not a Clock", name,
			       f->vars[c].name ? f->vars[c].name : "?");
		else
			v->clocks[v->nclocks++] = c;
	}
}

static void read_vars(Reader *r, const xmlNode *mv, VrIndex **vr_index)
{
	FmuInfo *f = r->fmu;
	bool (*want)(const xmlNode *) = f->version == FMI_V2 ? is_var_elem_v2 : is_var_elem_v3;
	int n = count_children(mv, want);
	f->vars = calloc_n(r, n, sizeof *f->vars);
	const xmlNode **elems = calloc_n(r, n, sizeof *elems);
	long long *deriv = calloc_n(r, n, sizeof *deriv);
	char **clocks = calloc_n(r, n, sizeof *clocks);
	if (!f->vars || !elems || !deriv || !clocks) {
		free(elems);
		free(deriv);
		free(clocks);
		return;
	}
	for (const xmlNode *c = mv ? mv->children : NULL; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!want(c)) {
			err_at(r, c, "unexpected <%s> in <ModelVariables>", ename(c));
			continue;
		}
		elems[f->nvars] = c;
		deriv[f->nvars] = -1;
		FmuVar *v = &f->vars[f->nvars++];
		read_var(r, c, v, &deriv[f->nvars - 1], &clocks[f->nvars - 1]);
	}
	check_duplicate_names(r, elems);
	*vr_index = build_vr_index(r, elems);
	for (int i = 0; i < f->nvars; i++) {
		if (deriv[i] < 0)
			continue;
		int target = -1;
		if (f->version == FMI_V2) {
			if (deriv[i] >= 1 && deriv[i] <= f->nvars)
				target = (int)deriv[i] - 1;
		} else if (*vr_index) {
			target = var_by_vr(f, *vr_index, (uint32_t)deriv[i]);
		}
		if (target < 0)
			err_at(r, elems[i], "variable '%s' is the derivative of %s %lld, which does not "
			       "exist (the model has %d variables)",
			       f->vars[i].name ? f->vars[i].name : "?",
			       f->version == FMI_V2 ? "variable" : "valueReference", deriv[i], f->nvars);
		else
			f->vars[i].derivative_of = target + 1;
	}
	free(deriv);
	r->var_elems = elems;
	for (int i = 0; i < f->nvars; i++) {
		if (*vr_index)
			resolve_dims(r, elems[i], *vr_index, &f->vars[i]);
		if (*vr_index && clocks[i])
			resolve_clocks(r, elems[i], *vr_index, &f->vars[i], clocks[i]);
		free(clocks[i]);
	}
	free(clocks);
}


/* ---- model structure -------------------------------------------------------------------- */

/* Resolves one variable reference of ModelStructure: a 1-based index (FMI 2) or a value
 * reference (FMI 3).  subject names it in messages ("dependency 9 of 'height'").  Returns
 * the 0-based variable, or -1 after an error. */
static int resolve_ref(Reader *r, const xmlNode *n, const VrIndex *idx, unsigned long long ref,
                       const char *subject)
{
	FmuInfo *f = r->fmu;
	if (f->version == FMI_V2) {
		if (ref >= 1 && ref <= (unsigned long long)f->nvars)
			return (int)ref - 1;
		err_at(r, n, "%s is out of range (the model has %d variables)", subject, f->nvars);
		return -1;
	}
	int i = idx ? var_by_vr(f, idx, (uint32_t)ref) : -1;
	if (i < 0 && idx)
		err_at(r, n, "%s is not the valueReference of any variable", subject);
	return i;
}

static int count_words(const char *s)
{
	int count = 0;
	for (const char *p = skip_ws(s); *p; p = skip_ws(p)) {
		count++;
		while (*p && !strchr(" \t\r\n", *p))
			p++;
	}
	return count;
}

/* Parses a dependencies list into 0-based variable indices; false after an error. */
static bool read_deps(Reader *r, const xmlNode *n, const VrIndex *idx, const char *owner,
                      int **out, int *nout)
{
	*out = NULL;
	*nout = 0;
	char *s = attr(r, n, "dependencies");
	if (!s)
		return true;
	int count = count_words(s);
	int *deps = calloc_n(r, count, sizeof *deps);
	bool ok = deps != NULL;
	const char *p = skip_ws(s);
	for (int k = 0; ok && k < count; k++, p = skip_ws(p)) {
		unsigned long long ref;
		const char *end;
		if (!parse_uint(p, UINT32_MAX, &ref, &end) || (*end && !strchr(" \t\r\n", *end))) {
			err_at(r, n, "dependencies of '%s' must be a list of %s, not '%s'", owner,
			       r->fmu->version == FMI_V2 ? "variable indices" : "value references", s);
			ok = false;
			break;
		}
		char subject[128];
		snprintf(subject, sizeof subject, "dependency %llu of '%.80s'", ref, owner);
		int v = resolve_ref(r, n, idx, ref, subject);
		if (v < 0)
			ok = false;
		deps[(*nout)++] = v;
		p = end;
	}
	char *kinds = attr(r, n, "dependenciesKind");
	if (ok && kinds && count_words(kinds) != count) {
		err_at(r, n, "'%s' lists %d dependencies but %d dependenciesKind", owner, count,
		       count_words(kinds));
		ok = false;
	}
	free(kinds);
	free(s);
	if (!ok) {
		free(deps);
		*nout = 0;
		return false;
	}
	*out = deps;
	return true;
}

/* One entry of ModelStructure: FMI 2 <Unknown index=..>, FMI 3 <Output valueReference=..>
 * and friends.  Returns the variable it names, or -1. */
static int read_unknown(Reader *r, const xmlNode *n, const VrIndex *idx)
{
	const char *key = r->fmu->version == FMI_V2 ? "index" : "valueReference";
	unsigned long long ref = 0;
	bool present;
	if (!attr_uint(r, n, key, UINT32_MAX, &ref, &present))
		return -1;
	if (!present) {
		err_at(r, n, "<%s> lacks the required attribute '%s'", ename(n), key);
		return -1;
	}
	char subject[64];
	snprintf(subject, sizeof subject, "<%s> %s %llu", ename(n), key, ref);
	return resolve_ref(r, n, idx, ref, subject);
}

static void read_output(Reader *r, const xmlNode *n, const VrIndex *idx, bool *listed)
{
	FmuInfo *f = r->fmu;
	int v = read_unknown(r, n, idx);
	if (v < 0)
		return;
	const char *name = f->vars[v].name ? f->vars[v].name : "?";
	if (f->vars[v].causality != CAUS_OUTPUT) {
		err_at(r, n, "<ModelStructure> lists '%s' as an output, but its causality is %s",
		       name, fmu_causality_name(f->vars[v].causality));
		return;
	}
	if (listed[v]) {
		err_at(r, n, "output '%s' is listed twice in <ModelStructure>", name);
		return;
	}
	listed[v] = true;
	FmuOutputDep *o = &f->outputs[f->noutputs++];
	o->var = v;
	o->deps_given = has_attr(n, "dependencies");
	read_deps(r, n, idx, name, &o->deps, &o->ndeps);
}

/* An initial unknown and what it depends on during initialization, kept for the
 * wrapper's model description and the analysis of initialization. */
static void read_initial_unknown(Reader *r, const xmlNode *n, const VrIndex *idx)
{
	FmuInfo *f = r->fmu;
	int v = read_unknown(r, n, idx);
	if (v < 0)
		return;
	FmuOutputDep *o = &f->initial_unknowns[f->ninitial_unknowns++];
	o->var = v;
	o->deps_given = has_attr(n, "dependencies");
	read_deps(r, n, idx, f->vars[v].name ? f->vars[v].name : "?", &o->deps, &o->ndeps);
}

/* The number of scalars of variable v (an FMI 3 array counts its elements), -1 unknown. */
static long long elems_of(const FmuVar *v)
{
	return v->ndims > 0 ? v->nelems : 1;
}

/* One continuous state's derivative (FMI 2 <Derivatives><Unknown>, FMI 3
 * <ContinuousStateDerivative>): the variable listed must be the derivative of a Real
 * state, each listed once; the state vector is in their order.  listed marks the
 * derivatives seen. */
static void read_derivative(Reader *r, const xmlNode *n, const VrIndex *idx, bool *listed)
{
	FmuInfo *f = r->fmu;
	FmuMe *m = &f->me;
	int v = read_unknown(r, n, idx);
	if (v < 0)
		return;
	const FmuVar *d = &f->vars[v];
	const char *name = d->name ? d->name : "?";
	if (!d->derivative_of) {
		err_at(r, n, "<%s> lists '%s' as a state derivative, but it has no 'derivative' "
		       "attribute naming its state", ename(n), name);
		if (r->var_elems)
			note_at(r, r->var_elems[v], "'%s' is declared here", name);
		return;
	}
	if (d->type != FT_REAL && d->type != FT_FLOAT32) {
		err_at(r, n, "state derivative '%s' is %s %s, not a %s", name,
		       d->type == FT_INTEGER || d->type == FT_ENUMERATION ? "an" : "a",
		       fmu_type_name_for(d->type, f->version), f->version == FMI_V2 ? "Real" : "float");
		return;
	}
	if (listed[v]) {
		err_at(r, n, "state derivative '%s' is listed twice in <ModelStructure>", name);
		return;
	}
	listed[v] = true;
	int *deps, ndeps;
	if (read_deps(r, n, idx, name, &deps, &ndeps))
		free(deps);
	const FmuVar *st = &f->vars[d->derivative_of - 1];
	long long k = elems_of(d);
	if (st->ndims > 0 || d->ndims > 0)
		m->scalar_states = false;
	m->nstate_elems = m->nstate_elems < 0 || k < 0 ? -1 : m->nstate_elems + k;
	m->states[m->nstates++] = (FmuState){d->derivative_of - 1, v};
}

/* An FMI 3 <EventIndicator>: a float variable whose sign changes are state events. */
static void read_event_indicator(Reader *r, const xmlNode *n, const VrIndex *idx)
{
	FmuInfo *f = r->fmu;
	FmuMe *m = &f->me;
	int v = read_unknown(r, n, idx);
	if (v < 0)
		return;
	const FmuVar *e = &f->vars[v];
	if (e->type != FT_REAL && e->type != FT_FLOAT32) {
		err_at(r, n, "event indicator '%s' is %s %s, not a float", e->name ? e->name : "?",
		       e->type == FT_INTEGER || e->type == FT_ENUMERATION ||
		                       e->type == FT_INT8 || e->type == FT_INT16 ||
		                       e->type == FT_INT64
		               ? "an"
		               : "a",
		       fmu_type_name_for(e->type, f->version));
		return;
	}
	int *deps, ndeps;
	if (read_deps(r, n, idx, e->name ? e->name : "?", &deps, &ndeps))
		free(deps);
	long long k = elems_of(e);
	m->nevent_indicators = m->nevent_indicators < 0 || k < 0 ? -1 : m->nevent_indicators + k;
	m->event_indicators[m->nevent_indicator_vars++] = v;
}

/* FMI 2.0 requires every derivative to be listed in <Derivatives>; a Model Exchange FMU
 * whose list misses one would be integrated with a state vector of the wrong size. */
static void check_all_derivatives_listed(Reader *r, const bool *listed)
{
	FmuInfo *f = r->fmu;
	if (f->version != FMI_V2 || !f->has_model_exchange || r->errors)
		return;
	for (int v = 0; v < f->nvars; v++) {
		if (!f->vars[v].derivative_of || listed[v])
			continue;
		err_at(r, r->var_elems ? r->var_elems[v] : NULL,
		       "'%s' is the derivative of '%s', but <ModelStructure><Derivatives> does not "
		       "list it: a Model Exchange FMU lists every state derivative there",
		       f->vars[v].name ? f->vars[v].name : "?",
		       f->vars[f->vars[v].derivative_of - 1].name
		               ? f->vars[f->vars[v].derivative_of - 1].name
		               : "?");
	}
}

/* Other ModelStructure entries are not kept, only checked: a broken reference there is as
 * much a sign of a broken description as one among the outputs. */
static void check_unknown(Reader *r, const xmlNode *n, const VrIndex *idx)
{
	int v = read_unknown(r, n, idx);
	if (v < 0)
		return;
	int *deps, ndeps;
	if (read_deps(r, n, idx, r->fmu->vars[v].name ? r->fmu->vars[v].name : "?", &deps, &ndeps))
		free(deps);
}

static void read_structure(Reader *r, const xmlNode *ms, const VrIndex *idx)
{
	FmuInfo *f = r->fmu;
	int listed = 0, initial = 0, derivs = 0, indicators = 0;
	for (const xmlNode *c = ms ? ms->children : NULL; c; c = c->next) {
		if (f->version == FMI_V2 && is_elem(c, "Outputs"))
			listed += count_children(c, NULL);
		else if (f->version == FMI_V3 && is_elem(c, "Output"))
			listed++;
		else if (f->version == FMI_V2 && is_elem(c, "InitialUnknowns"))
			initial += count_children(c, NULL);
		else if (f->version == FMI_V3 && is_elem(c, "InitialUnknown"))
			initial++;
		else if (f->version == FMI_V2 && is_elem(c, "Derivatives"))
			derivs += count_children(c, NULL);
		else if (f->version == FMI_V3 && is_elem(c, "ContinuousStateDerivative"))
			derivs++;
		else if (f->version == FMI_V3 && is_elem(c, "EventIndicator"))
			indicators++;
	}
	f->outputs = calloc_n(r, listed + f->nvars, sizeof *f->outputs);
	f->initial_unknowns = calloc_n(r, initial + 1, sizeof *f->initial_unknowns);
	f->me.states = calloc_n(r, derivs, sizeof *f->me.states);
	f->me.scalar_states = true;
	if (f->version == FMI_V3)
		f->me.event_indicators = calloc_n(r, indicators, sizeof *f->me.event_indicators);
	bool *is_listed = calloc_n(r, f->nvars, sizeof *is_listed);
	bool *is_deriv = calloc_n(r, f->nvars, sizeof *is_deriv);
	if (!f->outputs || !f->initial_unknowns || !f->me.states || !is_listed || !is_deriv ||
	    (f->version == FMI_V3 && !f->me.event_indicators)) {
		free(is_listed);
		free(is_deriv);
		return;
	}
	for (const xmlNode *c = ms ? ms->children : NULL; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (f->version == FMI_V2) {
			bool outputs = is_elem(c, "Outputs");
			if (!outputs && !is_elem(c, "Derivatives") && !is_elem(c, "InitialUnknowns")) {
				err_at(r, c, "unexpected <%s> in <ModelStructure>", ename(c));
				continue;
			}
			for (const xmlNode *u = c->children; u; u = u->next) {
				if (u->type != XML_ELEMENT_NODE)
					continue;
				if (!is_elem(u, "Unknown"))
					err_at(r, u, "unexpected <%s> in <%s>", ename(u), ename(c));
				else if (outputs)
					read_output(r, u, idx, is_listed);
				else if (is_elem(c, "InitialUnknowns"))
					read_initial_unknown(r, u, idx);
				else
					read_derivative(r, u, idx, is_deriv);
			}
		} else if (is_elem(c, "Output")) {
			read_output(r, c, idx, is_listed);
		} else if (is_elem(c, "InitialUnknown")) {
			read_initial_unknown(r, c, idx);
		} else if (is_elem(c, "ContinuousStateDerivative")) {
			read_derivative(r, c, idx, is_deriv);
		} else if (is_elem(c, "EventIndicator")) {
			read_event_indicator(r, c, idx);
		} else if (is_elem(c, "ClockedState")) {
			check_unknown(r, c, idx);
		} else {
			err_at(r, c, "unexpected <%s> in <ModelStructure>", ename(c));
		}
	}
	/* The standard requires every output to be listed; one that is not may depend on
	 * anything.  (After an error the warning would mostly repeat it.) */
	for (int v = 0; v < f->nvars && !r->errors; v++) {
		if (f->vars[v].causality != CAUS_OUTPUT || is_listed[v])
			continue;
		warn_at(r, r->var_elems ? r->var_elems[v] : NULL,
		        "output '%s' is not listed in <ModelStructure>; assuming it depends on "
		        "every variable",
		        f->vars[v].name ? f->vars[v].name : "?");
		f->outputs[f->noutputs++] = (FmuOutputDep){.var = v, .deps_given = false};
	}
	check_all_derivatives_listed(r, is_deriv);
	free(is_listed);
	free(is_deriv);
}

/* FMI 3.0 has no canInterpolateInputs, so a wrapper sacc builds as FMI 3.0 says that it
 * is reactive (a step uses the inputs of its end) in an annotation of the model
 * description: <Annotations><Annotation type="SACC_KIND_ANNOTATION"><Kind reactive="true"/>.
 * Other tools skip it, as FMI says they may. */
static bool annotated_reactive(const xmlNode *annotations)
{
	for (const xmlNode *a = annotations ? annotations->children : NULL; a; a = a->next) {
		if (!is_elem(a, "Annotation"))
			continue;
		xmlChar *type = xmlGetProp((xmlNode *)a, (const xmlChar *)"type");
		bool ours = type && strcmp((const char *)type, SACC_KIND_ANNOTATION) == 0;
		xmlFree(type);
		for (const xmlNode *k = ours ? a->children : NULL; k; k = k->next) {
			if (!is_elem(k, "Kind"))
				continue;
			xmlChar *v = xmlGetProp((xmlNode *)k, (const xmlChar *)"reactive");
			bool yes = v && strcmp((const char *)v, "true") == 0;
			xmlFree(v);
			if (yes)
				return true;
		}
	}
	return false;
}

/* Section 2.2.1 of the paper: undisclosed feedthrough or any output that depends on an
 * input makes a Mealy unit, otherwise Moore; canInterpolateInputs (or, in FMI 3.0, sacc's
 * annotation) makes it reactive.  A unit with no outputs has nothing to feed through and
 * counts as Moore. */
static void classify(FmuInfo *f)
{
	bool has_inputs = false;
	for (int i = 0; i < f->nvars; i++)
		has_inputs = has_inputs || f->vars[i].causality == CAUS_INPUT;
	f->is_mealy = false;
	for (int i = 0; i < f->noutputs; i++) {
		const FmuOutputDep *o = &f->outputs[i];
		/* no dependencies given means every input, so none without inputs */
		if (!o->deps_given && has_inputs)
			f->is_mealy = true;
		for (int k = 0; k < o->ndeps; k++)
			if (f->vars[o->deps[k]].causality == CAUS_INPUT)
				f->is_mealy = true;
	}
	f->is_reactive = f->can_interpolate_inputs || f->is_reactive;
}

/* ---- the document ----------------------------------------------------------------------- */

enum { S_COSIM, S_ME, S_SE, S_UNITS, S_TYPES, S_EXPERIMENT, S_VARS, S_STRUCTURE, S_COUNT };
static const char *const section_names[S_COUNT] = {
	"CoSimulation", "ModelExchange", "ScheduledExecution", "UnitDefinitions",
	"TypeDefinitions", "DefaultExperiment", "ModelVariables", "ModelStructure",
};

/* What sacc cannot run of an FMU with clocks (one run as Co-Simulation without Event Mode;
 * Scheduled Execution, Co-Simulation with Event Mode and Model Exchange run them):
 * `inspect` shows it with the reason, other commands refuse it at its first Clock. */
static void refuse_clocks(Reader *r)
{
	FmuInfo *f = r->fmu;
	if (f->unusable || !f->nclocks || fmu_se_by_default(f) || fmu_cs_clocks(f) ||
	    fmu_me_by_default(f))
		return;
	const char *why = "its Co-Simulation interface has no Event Mode, where clocks tick "
	                  "(hasEventMode)";
	if (r->any) {
		f->unusable = "it has Clock variables but no Event Mode (hasEventMode)";
		return;
	}
	for (int i = 0; i < f->nvars; i++)
		if (f->vars[i].type == FT_CLOCK) {
			err_at(r, r->var_elems ? r->var_elems[i] : NULL, "variable '%s' is a Clock: %s",
			       f->vars[i].name ? f->vars[i].name : "?", why);
			return;
		}
}

static void read_root(Reader *r, const xmlNode *root)
{
	FmuInfo *f = r->fmu;
	if (!root) {
		err_at(r, NULL, "the document has no root element");
		return;
	}
	if (!is_elem(root, "fmiModelDescription")) {
		err_at(r, root, "the root element is <%s>, not <fmiModelDescription>", ename(root));
		return;
	}
	f->fmi_version = required_attr(r, root, "fmiVersion");
	if (!f->fmi_version)
		return;
	const char *ver = skip_ws(f->fmi_version);
	if (strncmp(ver, "2.", 2) == 0) {
		f->version = FMI_V2;
	} else if (strncmp(ver, "3.", 2) == 0) {
		f->version = FMI_V3;
	} else {
		err_at(r, root, "unsupported fmiVersion '%s': sacc reads FMI 2.0 and FMI 3.0",
		       f->fmi_version);
		return;
	}
	f->model_name = required_attr(r, root, "modelName");
	f->guid = required_attr(r, root, f->version == FMI_V2 ? "guid" : "instantiationToken");
	f->description = attr(r, root, "description");
	f->generation_tool = attr(r, root, "generationTool");

	const xmlNode *sec[S_COUNT] = {0};
	for (const xmlNode *c = root->children; c; c = c->next) {
		if (f->version == FMI_V3 && is_elem(c, "Annotations") && annotated_reactive(c))
			f->is_reactive = true;
		for (int s = 0; s < S_COUNT; s++) {
			if (!is_elem(c, section_names[s]))
				continue;
			if (sec[s])
				err_at(r, c, "more than one <%s>", section_names[s]);
			else
				sec[s] = c;
		}
	}
	f->has_model_exchange = sec[S_ME] != NULL;
	f->has_scheduled_execution = sec[S_SE] != NULL;
	if (sec[S_ME])
		read_me(r, sec[S_ME]);
	if (sec[S_SE])
		read_se(r, sec[S_SE]);
	if (f->version == FMI_V2) {
		unsigned long long n = 0;
		bool present;
		attr_uint(r, root, "numberOfEventIndicators", INT_MAX, &n, &present);
		f->me.nevent_indicators = (long long)n;
	}
	if (sec[S_COSIM]) {
		read_cosim(r, sec[S_COSIM]);
	} else if (sec[S_ME]) {
		/* run through Model Exchange: its library is the one to load */
		f->model_identifier = dup_str(r, f->me.model_identifier);
	} else if (sec[S_SE]) {
		/* run through Scheduled Execution (sart_inner_se.c) */
		f->model_identifier = dup_str(r, f->se.model_identifier);
	} else
		err_at(r, root, "model '%s' has neither <CoSimulation> nor <ModelExchange>: sacc "
		       "handles Co-Simulation and Model Exchange FMUs",
		       f->model_name ? f->model_name : "?");
	if (sec[S_UNITS])
		read_units(r, sec[S_UNITS]);
	if (sec[S_TYPES])
		read_types(r, sec[S_TYPES]);
	if (sec[S_EXPERIMENT]) {
		f->default_start = attr_double(r, sec[S_EXPERIMENT], "startTime", NAN);
		f->default_stop = attr_double(r, sec[S_EXPERIMENT], "stopTime", NAN);
		f->default_tolerance = attr_double(r, sec[S_EXPERIMENT], "tolerance", NAN);
		f->default_step = attr_double(r, sec[S_EXPERIMENT], "stepSize", NAN);
	}
	VrIndex *idx = NULL;
	read_vars(r, sec[S_VARS], &idx);
	if (f->vars && !r->oom)
		read_structure(r, sec[S_STRUCTURE], idx);
	free(idx);
	refuse_clocks(r);
	if (!r->errors)
		classify(f);
}

static FmuInfo *parse_md(const char *xml, size_t len, const char *name, DiagSink *d, bool any)
{
	Reader r = {.d = d, .name = name ? name : MD_ENTRY, .any = any};
	FmuInfo *f = calloc(1, sizeof *f);
	if (!f) {
		diag_error(d, (Loc){r.name, 0, 0, 0}, "out of memory");
		return NULL;
	}
	r.fmu = f;
	f->default_start = f->default_stop = f->default_step = f->default_tolerance = NAN;
	f->path = dup_str(&r, r.name);
	f->md_name = dup_str(&r, r.name);
	if (xs_parse(&r.x, r.name, xml ? xml : "", xml ? len : 0, &md_limits, d))
		r.errors++;
	else
		read_root(&r, xmlDocGetRootElement(r.x.doc));
	xs_free(&r.x);
	free(r.var_elems);
	if (r.errors) {
		fmu_free(f);
		return NULL;
	}
	return f;
}

FmuInfo *fmu_parse_md(const char *xml, size_t len, const char *name, DiagSink *d)
{
	return parse_md(xml, len, name, d, false);
}

FmuInfo *fmu_parse_md_any(const char *xml, size_t len, const char *name, DiagSink *d)
{
	return parse_md(xml, len, name, d, true);
}
