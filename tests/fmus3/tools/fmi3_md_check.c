/* fmi3_md_check — checks an FMI 3.0 modelDescription.xml against the rules of the standard
 * that a schema alone does not catch, for the suite (the FMI 3.0 test FMUs now, sacc's FMI 3.0
 * wrappers next).
 *
 *     fmi3_md_check modelDescription.xml...
 *
 * Prints one line per finding, `file:line: error: ...`, and exits 1 if there was any.  What it
 * checks: the root and its required attributes; one interface element with a modelIdentifier
 * that is a C identifier; every variable's type element, unique name and value reference,
 * causality, variability and initial and their allowed combinations, start values where they
 * are required and absent where they are forbidden (including one start value per array
 * element when the sizes are known), exactly one independent Float64; declared types and
 * units that exist; enumeration types (items named, integer values, both unique) and
 * Enumeration start values among their type's items; Binary start values as hexadecimal
 * bytes within maxSize; Dimensions (a positive start, or a reference to an integer structural or
 * constant parameter); the ModelStructure (every output listed once as an Output, in order;
 * references and dependencies to existing variables, of the right causality); the
 * DefaultExperiment's numbers.  The XML is read without network, DTD or entity expansion. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define MAX_VARS 4096

typedef struct Var {
	xmlNode *node;
	const char *type;      /* the element name: Float64, Int32, ... */
	char *name;
	unsigned long vr;
	char *causality;       /* defaults applied */
	char *variability;
	char *initial;         /* NULL when absent */
	long size;             /* elements; -1 when a Dimension's size is not known */
} Var;

typedef struct Doc {
	const char *file;
	xmlDoc *xml;
	xmlNode *root;
	Var vars[MAX_VARS];
	size_t nvars;
	int errors;
} Doc;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void err(Doc *d, const xmlNode *at, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%ld: error: ", d->file, at ? (long)xmlGetLineNo(at) : 0L);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	d->errors++;
}

static char *attr(const xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static int is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *child(const xmlNode *n, const char *name)
{
	for (xmlNode *c = n->children; c; c = c->next)
		if (is(c, name))
			return c;
	return NULL;
}

static int one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

static int parse_ulong(const char *s, unsigned long *out)
{
	char *end;
	if (!s || !*s || !isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0';
}

static int parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return 0;
	errno = 0;
	*out = strtod(s, &end);
	return errno == 0 && *end == '\0';
}

static int is_identifier(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static int count_words(const char *s)
{
	int n = 0, in = 0;
	for (; s && *s; s++) {
		int space = isspace((unsigned char)*s);
		n += !space && !in;
		in = !space;
	}
	return n;
}

static const char *const var_types[] = {
	"Float32", "Float64", "Int8",   "UInt8",  "Int16",   "UInt16",      "Int32",
	"UInt32",  "Int64",   "UInt64", "Boolean", "String", "Binary", "Enumeration", "Clock", NULL,
};
static const char *const causalities[] = {"parameter", "calculatedParameter", "input", "output",
                                          "local", "independent", "structuralParameter", NULL};
static const char *const variabilities[] = {"constant", "fixed", "tunable", "discrete",
                                            "continuous", NULL};
static const char *const integer_types[] = {"Int8",  "UInt8", "Int16", "UInt16", "Int32",
                                            "UInt32", "Int64", "UInt64", NULL};

static Var *find_vr(Doc *d, unsigned long vr)
{
	for (size_t i = 0; i < d->nvars; i++)
		if (d->vars[i].vr == vr)
			return &d->vars[i];
	return NULL;
}

static int has_type_definition(Doc *d, const char *kind, const char *name)
{
	xmlNode *td = child(d->root, "TypeDefinitions");
	for (xmlNode *c = td ? td->children : NULL; c; c = c->next) {
		char *n;
		int hit;
		if (!is(c, kind))
			continue;
		n = attr(c, "name");
		hit = n && strcmp(n, name) == 0;
		xmlFree(n);
		if (hit)
			return 1;
	}
	return 0;
}

/* The EnumerationType named name, or NULL. */
static xmlNode *enum_type(Doc *d, const char *name)
{
	xmlNode *td = child(d->root, "TypeDefinitions");
	for (xmlNode *c = td ? td->children : NULL; c; c = c->next) {
		char *n;
		int hit;
		if (!is(c, "EnumerationType"))
			continue;
		n = attr(c, "name");
		hit = n && name && strcmp(n, name) == 0;
		xmlFree(n);
		if (hit)
			return c;
	}
	return NULL;
}

static int parse_long(const char *s, long long *out)
{
	char *end;
	errno = 0;
	*out = s ? strtoll(s, &end, 10) : 0;
	return s && *s && !errno && end != s && *end == '\0';
}

/* Every EnumerationType: at least one Item, each with a name and an integer value, names and
 * values unique within the type. */
static void check_enum_types(Doc *d)
{
	xmlNode *td = child(d->root, "TypeDefinitions");
	for (xmlNode *t = td ? td->children : NULL; t; t = t->next) {
		char *tname;
		int n = 0;
		if (!is(t, "EnumerationType"))
			continue;
		tname = attr(t, "name");
		for (xmlNode *it = t->children; it; it = it->next) {
			char *name, *value;
			long long v;
			if (!is(it, "Item"))
				continue;
			n++;
			name = attr(it, "name");
			value = attr(it, "value");
			if (!name || !*name)
				err(d, it, "an item of type '%s' has no name", tname ? tname : "?");
			if (!parse_long(value, &v))
				err(d, it, "item '%s' of type '%s': value '%s' is not an integer",
				    name ? name : "?", tname ? tname : "?", value ? value : "");
			for (xmlNode *o = t->children; o != it && name && value; o = o->next) {
				char *on, *ov;
				if (!is(o, "Item"))
					continue;
				on = attr(o, "name");
				ov = attr(o, "value");
				if (on && strcmp(on, name) == 0)
					err(d, it, "type '%s' has two items named '%s'", tname, name);
				else if (ov && strcmp(ov, value) == 0)
					err(d, it, "type '%s': items '%s' and '%s' have the same value %s",
					    tname, on ? on : "?", name, value);
				xmlFree(on);
				xmlFree(ov);
			}
			xmlFree(name);
			xmlFree(value);
		}
		if (n == 0)
			err(d, t, "enumeration type '%s' has no items", tname ? tname : "?");
		xmlFree(tname);
	}
}

/* Whether value is the value of an item of EnumerationType t. */
static int is_item_value(xmlNode *t, long long value)
{
	for (xmlNode *it = t->children; it; it = it->next) {
		char *v;
		long long x;
		int hit;
		if (!is(it, "Item"))
			continue;
		v = attr(it, "value");
		hit = parse_long(v, &x) && x == value;
		xmlFree(v);
		if (hit)
			return 1;
	}
	return 0;
}

/* An Enumeration's start values are values of its type's items. */
static void check_enum_start(Doc *d, Var *v, const char *declared)
{
	xmlNode *t = enum_type(d, declared);
	char *start = attr(v->node, "start");
	for (char *p = start, *next; t && p && *p; p = next) {
		long long x;
		char word[32];
		size_t n = strcspn(p, " \t\n");
		next = p + n + strspn(p + n, " \t\n");
		if (n == 0 || n >= sizeof word)
			continue;
		memcpy(word, p, n);
		word[n] = '\0';
		if (!parse_long(word, &x) || !is_item_value(t, x))
			err(d, v->node, "enumeration '%s': start %s is no item of type '%s'", v->name,
			    word, declared);
	}
	xmlFree(start);
}

/* A Binary's start values are hexadecimal bytes (an even number of digits), at most maxSize
 * of them; maxSize, when given, a positive integer. */
static void check_binary(Doc *d, Var *v)
{
	char *max = attr(v->node, "maxSize");
	long long limit = -1;
	if (max && (!parse_long(max, &limit) || limit <= 0))
		err(d, v->node, "binary '%s': maxSize '%s' is not a positive integer", v->name, max);
	for (xmlNode *c = v->node->children; c; c = c->next) {
		char *value;
		size_t n = 0;
		if (!is(c, "Start"))
			continue;
		value = attr(c, "value");
		while (value && isxdigit((unsigned char)value[n]))
			n++;
		if (!value || value[n] != '\0' || n % 2)
			err(d, c, "binary '%s': start '%s' is not hexadecimal bytes", v->name,
			    value ? value : "");
		else if (limit > 0 && (long long)(n / 2) > limit)
			err(d, c, "binary '%s': start has %zu bytes, more than maxSize %lld", v->name,
			    n / 2, limit);
		xmlFree(value);
	}
	xmlFree(max);
}

static int has_unit(Doc *d, const char *name)
{
	xmlNode *ud = child(d->root, "UnitDefinitions");
	for (xmlNode *c = ud ? ud->children : NULL; c; c = c->next) {
		char *n;
		int hit;
		if (!is(c, "Unit"))
			continue;
		n = attr(c, "name");
		hit = n && strcmp(n, name) == 0;
		xmlFree(n);
		if (hit)
			return 1;
	}
	return 0;
}

/* The default initial of a causality/variability pair, or NULL where initial is not allowed
 * at all (independent); "-" where the combination itself is not allowed. */
static const char *default_initial(const char *caus, const char *var)
{
	if (strcmp(caus, "independent") == 0)
		return NULL;
	if (strcmp(var, "constant") == 0)
		return strcmp(caus, "output") == 0 || strcmp(caus, "local") == 0 ? "exact" : "-";
	if (strcmp(caus, "parameter") == 0 || strcmp(caus, "structuralParameter") == 0)
		return strcmp(var, "fixed") == 0 || strcmp(var, "tunable") == 0 ? "exact" : "-";
	if (strcmp(caus, "calculatedParameter") == 0)
		return strcmp(var, "fixed") == 0 || strcmp(var, "tunable") == 0 ? "calculated" : "-";
	if (strcmp(caus, "input") == 0)
		return strcmp(var, "discrete") == 0 || strcmp(var, "continuous") == 0 ? "exact" : "-";
	/* output, local: fixed/tunable only for local */
	if (strcmp(caus, "output") == 0 && (strcmp(var, "fixed") == 0 || strcmp(var, "tunable") == 0))
		return "-";
	return "calculated";
}

/* Is initial allowed for the pair?  FMI 3.0's table, as far as this checker goes. */
static int initial_allowed(const char *caus, const char *var, const char *init)
{
	if (strcmp(caus, "parameter") == 0 || strcmp(caus, "structuralParameter") == 0 ||
	    strcmp(caus, "input") == 0 || strcmp(var, "constant") == 0)
		return strcmp(init, "exact") == 0;
	if (strcmp(caus, "calculatedParameter") == 0)
		return strcmp(init, "calculated") == 0 || strcmp(init, "approx") == 0;
	return one_of(init, (const char *const[]){"exact", "approx", "calculated", NULL});
}

/* The number of elements, from the variable's Dimensions (-1 when unknown). */
static long dimension_size(Doc *d, Var *v)
{
	long size = 1;
	for (xmlNode *c = v->node->children; c; c = c->next) {
		char *start, *ref;
		unsigned long n = 0;
		if (!is(c, "Dimension"))
			continue;
		start = attr(c, "start");
		ref = attr(c, "valueReference");
		if ((start != NULL) == (ref != NULL))
			err(d, c, "variable '%s': a Dimension has exactly one of start and valueReference",
			    v->name);
		else if (start && (!parse_ulong(start, &n) || n == 0))
			err(d, c, "variable '%s': Dimension start '%s' is not a positive integer", v->name,
			    start);
		else if (start)
			size = size < 0 ? -1 : size * (long)n;
		else {
			unsigned long vr;
			Var *s = parse_ulong(ref, &vr) ? find_vr(d, vr) : NULL;
			if (!s)
				err(d, c, "variable '%s': Dimension refers to no variable (%s)", v->name, ref);
			else if (!one_of(s->type, integer_types) ||
			         (strcmp(s->causality, "structuralParameter") != 0 &&
			          strcmp(s->variability, "constant") != 0))
				err(d, c, "variable '%s': Dimension refers to '%s', which is not an integer "
				    "structural parameter or constant", v->name, s->name);
			else {
				char *sv = attr(s->node, "start");
				size = size >= 0 && parse_ulong(sv, &n) ? size * (long)n : -1;
				xmlFree(sv);
			}
		}
		xmlFree(start);
		xmlFree(ref);
	}
	return size;
}

static void check_start(Doc *d, Var *v)
{
	int scalar_text = strcmp(v->type, "String") != 0 && strcmp(v->type, "Binary") != 0;
	char *start = attr(v->node, "start");
	int nstart = scalar_text ? (start ? count_words(start) : 0) : 0;
	int required, forbidden;
	if (!scalar_text)
		for (xmlNode *c = v->node->children; c; c = c->next)
			nstart += is(c, "Start");
	required = strcmp(v->causality, "input") == 0 || strcmp(v->causality, "parameter") == 0 ||
	           strcmp(v->causality, "structuralParameter") == 0 ||
	           strcmp(v->variability, "constant") == 0 ||
	           (v->initial && (strcmp(v->initial, "exact") == 0 || strcmp(v->initial, "approx") == 0));
	forbidden = strcmp(v->causality, "independent") == 0 ||
	            (v->initial && strcmp(v->initial, "calculated") == 0) ||
	            (!v->initial && strcmp(v->causality, "independent") != 0 &&
	             strcmp(v->causality, "calculatedParameter") != 0 &&
	             default_initial(v->causality, v->variability) &&
	             strcmp(default_initial(v->causality, v->variability), "calculated") == 0);
	if (strcmp(v->type, "Clock") == 0)
		required = forbidden = 0;
	if (required && nstart == 0)
		err(d, v->node, "variable '%s' (%s, %s) needs a start value", v->name, v->causality,
		    v->variability);
	else if (forbidden && nstart > 0)
		err(d, v->node, "variable '%s' must not have a start value (initial %s)", v->name,
		    v->initial ? v->initial : "calculated by default");
	else if (nstart > 1 && v->size >= 0 && nstart != v->size)
		err(d, v->node, "variable '%s' has %d start values for %ld elements", v->name, nstart,
		    v->size);
	xmlFree(start);
}

static void read_variable(Doc *d, xmlNode *n)
{
	Var *v = &d->vars[d->nvars];
	char *vr = attr(n, "valueReference");
	char *caus = attr(n, "causality"), *var = attr(n, "variability");
	memset(v, 0, sizeof *v);
	v->node = n;
	v->type = (const char *)n->name;
	v->name = attr(n, "name");
	if (!v->name || !*v->name)
		err(d, n, "a %s variable without a name", v->type);
	if (!parse_ulong(vr, &v->vr) || v->vr > 0xffffffffUL)
		err(d, n, "variable '%s': valueReference '%s' is not an unsigned 32-bit integer",
		    v->name ? v->name : "?", vr ? vr : "");
	v->causality = caus ? caus : (char *)xmlStrdup((const xmlChar *)"local");
	v->variability = var ? var
	                     : (char *)xmlStrdup((const xmlChar *)(strncmp(v->type, "Float", 5) == 0
	                                                                ? "continuous"
	                                                                : "discrete"));
	v->initial = attr(n, "initial");
	xmlFree(vr);
	d->nvars++;
}

static void check_variable(Doc *d, Var *v, size_t index)
{
	const char *def;
	char *declared = attr(v->node, "declaredType"), *unit = attr(v->node, "unit");
	for (size_t j = 0; j < index; j++) {
		if (v->name && d->vars[j].name && strcmp(v->name, d->vars[j].name) == 0)
			err(d, v->node, "variable name '%s' is used twice", v->name);
		if (v->vr == d->vars[j].vr)
			err(d, v->node, "valueReference %lu of '%s' is also '%s''s", v->vr, v->name,
			    d->vars[j].name);
	}
	if (!one_of(v->causality, causalities))
		err(d, v->node, "variable '%s': unknown causality '%s'", v->name, v->causality);
	else if (!one_of(v->variability, variabilities))
		err(d, v->node, "variable '%s': unknown variability '%s'", v->name, v->variability);
	else if (strcmp(v->variability, "continuous") == 0 && strncmp(v->type, "Float", 5) != 0)
		err(d, v->node, "variable '%s': a %s cannot be continuous", v->name, v->type);
	else if (strcmp(v->causality, "independent") == 0 &&
	         (strcmp(v->type, "Float64") != 0 || strcmp(v->variability, "continuous") != 0))
		err(d, v->node, "the independent variable '%s' must be a continuous Float64", v->name);
	else if ((def = default_initial(v->causality, v->variability)) && strcmp(def, "-") == 0)
		err(d, v->node, "variable '%s': causality %s with variability %s is not allowed",
		    v->name, v->causality, v->variability);
	else if (v->initial && !def)
		err(d, v->node, "variable '%s': the independent variable has no initial", v->name);
	else if (v->initial && !initial_allowed(v->causality, v->variability, v->initial))
		err(d, v->node, "variable '%s': initial '%s' is not allowed for %s %s", v->name,
		    v->initial, v->causality, v->variability);
	if (strcmp(v->type, "Enumeration") == 0 &&
	    (!declared || !has_type_definition(d, "EnumerationType", declared)))
		err(d, v->node, "enumeration '%s' needs a declaredType naming an EnumerationType",
		    v->name);
	else if (declared && strcmp(v->type, "Enumeration") != 0 &&
	         !has_type_definition(d, "Float64Type", declared) &&
	         !has_type_definition(d, "Float32Type", declared) &&
	         !has_type_definition(d, "Int32Type", declared) &&
	         !has_type_definition(d, "BooleanType", declared) &&
	         !has_type_definition(d, "StringType", declared) &&
	         !has_type_definition(d, "BinaryType", declared))
		err(d, v->node, "variable '%s': declaredType '%s' is not defined", v->name, declared);
	if (strcmp(v->type, "Enumeration") == 0 && declared)
		check_enum_start(d, v, declared);
	if (strcmp(v->type, "Binary") == 0)
		check_binary(d, v);
	if (unit && !has_unit(d, unit))
		err(d, v->node, "variable '%s': unit '%s' is not in UnitDefinitions", v->name, unit);
	v->size = dimension_size(d, v);
	check_start(d, v);
	xmlFree(declared);
	xmlFree(unit);
}

/* A space-separated list of value references, each of a variable, each once and in the
 * order of ModelVariables (as FMI 2.0 says outright of its indices; importers that merge
 * such lists rely on it). */
static void check_dependencies(Doc *d, xmlNode *n, const char *of)
{
	char *deps = attr(n, "dependencies");
	char *save = NULL;
	const Var *last = NULL;
	for (char *w = deps ? strtok_r(deps, " \t\n", &save) : NULL; w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		unsigned long vr;
		const Var *k = parse_ulong(w, &vr) ? find_vr(d, vr) : NULL;
		if (!k)
			err(d, n, "%s: dependency '%s' is no variable's value reference", of, w);
		else if (last && k == last)
			err(d, n, "%s: dependency '%s' is listed twice", of, w);
		else if (last && k < last)
			err(d, n, "%s: dependency '%s' (%s) comes before '%s' in ModelVariables", of, w,
			    k->name, last->name);
		if (k)
			last = k;
	}
	xmlFree(deps);
}

static void check_model_structure(Doc *d)
{
	xmlNode *ms = child(d->root, "ModelStructure");
	size_t next_output = 0;
	if (!ms) {
		err(d, d->root, "no ModelStructure");
		return;
	}
	for (xmlNode *c = ms->children; c; c = c->next) {
		char *vrs;
		unsigned long vr;
		Var *v;
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!one_of((const char *)c->name,
		            (const char *const[]){"Output", "ContinuousStateDerivative", "ClockedState",
		                                  "InitialUnknown", "EventIndicator", NULL})) {
			err(d, c, "ModelStructure: unknown element <%s>", (const char *)c->name);
			continue;
		}
		vrs = attr(c, "valueReference");
		v = parse_ulong(vrs, &vr) ? find_vr(d, vr) : NULL;
		if (!v)
			err(d, c, "<%s> refers to no variable (%s)", (const char *)c->name, vrs ? vrs : "");
		else if (is(c, "Output")) {
			while (next_output < d->nvars &&
			       strcmp(d->vars[next_output].causality, "output") != 0)
				next_output++;
			if (strcmp(v->causality, "output") != 0)
				err(d, c, "<Output> refers to '%s', which is not an output", v->name);
			else if (next_output >= d->nvars || &d->vars[next_output] != v)
				err(d, c, "<Output> '%s' is not the next output in ModelVariables order",
				    v->name);
			else
				next_output++;
		}
		if (v)
			check_dependencies(d, c, v->name);
		xmlFree(vrs);
	}
	for (; next_output < d->nvars; next_output++)
		if (strcmp(d->vars[next_output].causality, "output") == 0)
			err(d, d->vars[next_output].node, "output '%s' has no <Output> in ModelStructure",
			    d->vars[next_output].name);
}

static void check_header(Doc *d)
{
	static const char *const required[] = {"fmiVersion", "modelName", "instantiationToken", NULL};
	xmlNode *cs = child(d->root, "CoSimulation"), *me = child(d->root, "ModelExchange"),
	        *se = child(d->root, "ScheduledExecution"), *de = child(d->root, "DefaultExperiment");
	char *version = attr(d->root, "fmiVersion");
	if (!is(d->root, "fmiModelDescription"))
		err(d, d->root, "the root element is <%s>, not <fmiModelDescription>",
		    (const char *)d->root->name);
	for (const char *const *a = required; *a; a++) {
		char *v = attr(d->root, *a);
		if (!v || !*v)
			err(d, d->root, "fmiModelDescription needs %s", *a);
		xmlFree(v);
	}
	if (version && strncmp(version, "3.", 2) != 0)
		err(d, d->root, "fmiVersion is '%s', not 3.x", version);
	xmlFree(version);
	if (!cs && !me && !se)
		err(d, d->root, "no ModelExchange, CoSimulation or ScheduledExecution element");
	for (xmlNode *i = cs; i; i = NULL) {
		char *id = attr(i, "modelIdentifier");
		if (!is_identifier(id))
			err(d, i, "modelIdentifier '%s' is not a C identifier", id ? id : "");
		xmlFree(id);
	}
	if (de) {
		static const char *const nums[] = {"startTime", "stopTime", "tolerance", "stepSize", NULL};
		for (const char *const *a = nums; *a; a++) {
			char *v = attr(de, *a);
			double x;
			if (v && (!parse_double(v, &x) || (strcmp(*a, "startTime") != 0 && !(x > 0.0) &&
			                                   strcmp(*a, "stopTime") != 0)))
				err(d, de, "DefaultExperiment %s '%s' is not a valid number", *a, v);
			xmlFree(v);
		}
	}
}

static int check_file(const char *file)
{
	Doc *d = calloc(1, sizeof *d);
	xmlNode *mv;
	size_t independents = 0;
	int errors;
	d->file = file;
	d->xml = xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!d->xml || !(d->root = xmlDocGetRootElement(d->xml))) {
		fprintf(stderr, "%s: error: not well-formed XML\n", file);
		xmlFreeDoc(d->xml);
		free(d);
		return 1;
	}
	check_header(d);
	check_enum_types(d);
	mv = child(d->root, "ModelVariables");
	for (xmlNode *c = mv ? mv->children : NULL; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!one_of((const char *)c->name, var_types))
			err(d, c, "ModelVariables: <%s> is no variable type", (const char *)c->name);
		else if (d->nvars == MAX_VARS)
			err(d, c, "more than %d variables", MAX_VARS);
		else
			read_variable(d, c);
	}
	for (size_t i = 0; i < d->nvars; i++) {
		check_variable(d, &d->vars[i], i);
		independents += strcmp(d->vars[i].causality, "independent") == 0;
	}
	if (independents != 1)
		err(d, mv ? mv : d->root, "%zu independent variables; FMI 3.0 wants exactly one",
		    independents);
	check_model_structure(d);
	errors = d->errors;
	for (size_t i = 0; i < d->nvars; i++) {
		xmlFree(d->vars[i].name);
		xmlFree(d->vars[i].causality);
		xmlFree(d->vars[i].variability);
		xmlFree(d->vars[i].initial);
	}
	xmlFreeDoc(d->xml);
	free(d);
	return errors > 0;
}

int main(int argc, char **argv)
{
	int bad = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: fmi3_md_check modelDescription.xml...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		bad |= check_file(argv[i]);
	xmlCleanupParser();
	return bad;
}
