/* test_fmu_read.c — the FMU reader (fmu_read.c), its printers (fmu_print.c), and the test
 * FMUs built with the kit in tests/fmus/, loaded through dlopen and stepped.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): fixtures come from tests/unit/data/, built FMUs from $SACC_BUILD/fmus/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <zip.h>

#include "fmu.h"

#include "fmi2FunctionTypes.h"
#include "fmi2_importer.h"

#define DATA "tests/unit/data/"

static char tmpdir[64];

/* ---- helpers ---------------------------------------------------------------------------- */

#define assert_near(a, b, tol) assert_near_at((a), (b), (tol), __FILE__, __LINE__)

static void assert_near_at(double a, double b, double tol, const char *file, int line)
{
	if (fabs(a - b) <= tol)
		return;
	print_error("%.17g is not within %g of %.17g\n", a, tol, b);
	_fail(file, line);
}

/* Relative closeness for values far from 1 (the obstacle's forces are ~1e8 N). */
#define assert_close(a, b) assert_near((a), (b), 1e-12 + 1e-12 * fabs(b))

/* Diagnostics into memory, so the exact text can be compared. */
typedef struct Capture {
	char *buf;
	size_t len;
	FILE *f;
	DiagSink *d;
} Capture;

static void cap_open(Capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	c->d = diag_new(c->f);
	assert_non_null(c->d);
}

static const char *cap_text(Capture *c)
{
	fflush(c->f);
	return c->buf ? c->buf : "";
}

static void cap_close(Capture *c)
{
	diag_free(c->d);
	fclose(c->f);
	free(c->buf);
}

/* Reads path and asserts the result and the exact diagnostics. */
static void expect_open(const char *path, bool ok, const char *diags)
{
	Capture c;
	cap_open(&c);
	FmuInfo *f = fmu_open(path, c.d);
	if (ok)
		assert_non_null(f);
	else
		assert_null(f);
	assert_string_equal(cap_text(&c), diags);
	fmu_free(f);
	cap_close(&c);
}

static FmuInfo *open_ok(const char *path)
{
	Capture c;
	cap_open(&c);
	FmuInfo *f = fmu_open(path, c.d);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	cap_close(&c);
	return f;
}

static FmuInfo *parse_str(const char *xml, Capture *c)
{
	return fmu_parse_md(xml, strlen(xml), "inline.xml", c->d);
}

static const FmuVar *var(const FmuInfo *f, const char *name)
{
	const FmuVar *v = fmu_find_var(f, name);
	if (!v)
		print_error("no variable '%s'\n", name);
	assert_non_null(v);
	return v;
}

static int var_index(const FmuInfo *f, const char *name)
{
	return (int)(var(f, name) - f->vars);
}

static const FmuOutputDep *output(const FmuInfo *f, const char *name)
{
	int v = var_index(f, name);
	for (int i = 0; i < f->noutputs; i++)
		if (f->outputs[i].var == v)
			return &f->outputs[i];
	print_error("'%s' is not among the outputs\n", name);
	fail();
	return NULL;
}

static const FmuUnit *unit(const FmuInfo *f, const char *name)
{
	for (int i = 0; i < f->nunits; i++)
		if (strcmp(f->units[i].name, name) == 0)
			return &f->units[i];
	print_error("no unit '%s'\n", name);
	fail();
	return NULL;
}

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static void build_path(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", build_dir(), rel);
}

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static char *print_to_string(void (*print)(FILE *, const FmuInfo *), const FmuInfo *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	print(out, f);
	fclose(out);
	return buf;
}

#define assert_contains(hay, needle) assert_contains_at((hay), (needle), __FILE__, __LINE__)

static void assert_contains_at(const char *hay, const char *needle, const char *file, int line)
{
	if (strstr(hay, needle))
		return;
	print_error("missing:\n%s\nin:\n%s\n", needle, hay);
	_fail(file, line);
}

/* ---- a JSON syntax checker, to prove fmu_print_json writes valid JSON ------------------- */

static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static const char *json_seq(const char *p, char close, bool object)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = json_string(json_ws(p));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p++;
	}
}

static const char *json_value(const char *p)
{
	p = json_ws(p);
	switch (*p) {
	case '{': return json_seq(p, '}', true);
	case '[': return json_seq(p, ']', false);
	case '"': return json_string(p);
	case 't': return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f': return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n': return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default: return json_number(p);
	}
}

static bool json_valid(const char *s)
{
	const char *end = json_value(s);
	return end && *json_ws(end) == '\0';
}

/* ---- FMI 2.0 ---------------------------------------------------------------------------- */

static void fmu_read__fmi2_fixture__header_and_capabilities(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_full.xml");
	assert_int_equal(f->version, FMI_V2);
	assert_string_equal(f->fmi_version, "2.0");
	assert_string_equal(f->model_name, "Full2");
	assert_string_equal(f->model_identifier, "full2");
	assert_string_equal(f->guid, "{full-2-guid}");
	assert_string_equal(f->description, "FMI 2.0 fixture \"full\"\nsecond line\ttab \\ backslash");
	assert_string_equal(f->generation_tool, "hand-written");
	assert_string_equal(f->path, DATA "fmi2_full.xml");
	assert_string_equal(f->md_name, DATA "fmi2_full.xml");
	assert_true(f->has_cosim);
	assert_true(f->has_model_exchange);
	assert_true(f->can_handle_variable_step);
	assert_false(f->can_interpolate_inputs);
	assert_int_equal(f->max_output_derivative_order, 2);
	assert_true(f->can_run_asynchronously);
	assert_true(f->can_be_instantiated_only_once_per_process);
	assert_false(f->can_not_use_memory_management_functions);
	assert_true(f->can_get_and_set_fmu_state);
	assert_false(f->can_serialize_fmu_state);
	assert_true(f->provides_directional_derivative);
	assert_false(f->needs_execution_tool);
	assert_near(f->default_start, 0.5, 1e-15);
	assert_near(f->default_stop, 20.0, 1e-15);
	assert_near(f->default_step, 0.01, 1e-15);
	assert_near(f->default_tolerance, 1e-6, 1e-20);
	fmu_free(f);
}

static void fmu_read__fmi2_fixture__variables(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_full.xml");
	assert_int_equal(f->nvars, 11);

	const FmuVar *v = var(f, "T_in");
	assert_int_equal(v->vr, 1);
	assert_int_equal(v->type, FT_REAL);
	assert_int_equal(v->causality, CAUS_INPUT);
	assert_int_equal(v->variability, VAR_CONTINUOUS);
	assert_int_equal(v->initial, INIT_UNSET);
	assert_string_equal(v->start, "20");
	assert_string_equal(v->declared_type, "Temperature");
	assert_string_equal(v->unit, "degC"); /* from the declared type */
	assert_int_equal(v->line, 37);
	assert_null(v->description);

	v = var(f, "v");
	assert_string_equal(v->unit, "km/h");
	assert_string_equal(v->description, "speed");
	assert_null(v->declared_type);

	v = var(f, "T_out");
	assert_int_equal(v->causality, CAUS_OUTPUT);
	assert_string_equal(v->unit, "K"); /* its own unit wins over the declared type's */
	assert_null(v->start);

	v = var(f, "x");
	assert_int_equal(v->causality, CAUS_LOCAL);
	assert_int_equal(v->initial, INIT_EXACT);

	v = var(f, "der(x)");
	assert_int_equal(v->derivative_of, 4);
	assert_int_equal(v->causality, CAUS_LOCAL);

	v = var(f, "count");
	assert_int_equal(v->type, FT_INTEGER);
	assert_int_equal(v->vr, 1); /* value references are per type in FMI 2 */
	assert_int_equal(v->variability, VAR_DISCRETE);

	v = var(f, "on");
	assert_int_equal(v->type, FT_BOOLEAN);
	assert_int_equal(v->causality, CAUS_PARAMETER);
	assert_int_equal(v->variability, VAR_FIXED);
	assert_string_equal(v->start, "true");

	v = var(f, "label");
	assert_int_equal(v->type, FT_STRING);
	assert_int_equal(v->variability, VAR_TUNABLE);
	assert_string_equal(v->start, "a <b>");

	v = var(f, "mode");
	assert_int_equal(v->type, FT_ENUMERATION);
	assert_int_equal(v->variability, VAR_DISCRETE); /* the default for non-Real types */
	assert_string_equal(v->declared_type, "Mode");
	assert_null(v->unit);

	assert_int_equal(var(f, "time")->causality, CAUS_INDEPENDENT);
	v = var(f, "k");
	assert_int_equal(v->causality, CAUS_CALCULATED_PARAMETER);
	assert_int_equal(v->initial, INIT_CALCULATED);
	assert_null(fmu_find_var(f, "nope"));
	fmu_free(f);
}

static void fmu_read__fmi2_fixture__units_and_types(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_full.xml");
	assert_int_equal(f->nunits, 4);
	const FmuUnit *u = unit(f, "degC");
	assert_true(u->has_base);
	assert_int_equal(u->K, 1);
	assert_int_equal(u->m, 0);
	assert_near(u->factor, 1.0, 0);
	assert_near(u->offset, 273.15, 1e-12);
	u = unit(f, "km/h");
	assert_int_equal(u->m, 1);
	assert_int_equal(u->s, -1);
	assert_near(u->factor, 1 / 3.6, 1e-15);
	u = unit(f, "one");
	assert_false(u->has_base);
	assert_near(u->factor, 1.0, 0);

	assert_int_equal(f->ntypes, 2);
	assert_string_equal(f->types[0].name, "Temperature");
	assert_int_equal(f->types[0].type, FT_REAL);
	assert_string_equal(f->types[0].quantity, "ThermodynamicTemperature");
	assert_string_equal(f->types[0].unit, "degC");
	assert_string_equal(f->types[1].name, "Mode");
	assert_int_equal(f->types[1].type, FT_ENUMERATION);
	assert_null(f->types[1].unit);
	fmu_free(f);
}

static void fmu_read__fmi2_fixture__output_dependencies(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_full.xml");
	assert_int_equal(f->noutputs, 2);
	const FmuOutputDep *o = output(f, "T_out");
	assert_true(o->deps_given);
	assert_int_equal(o->ndeps, 2);
	assert_int_equal(o->deps[0], var_index(f, "T_in"));
	assert_int_equal(o->deps[1], var_index(f, "x"));
	o = output(f, "count");
	assert_int_equal(o->ndeps, 1);
	assert_int_equal(o->deps[0], var_index(f, "x"));

	int t_out = var_index(f, "T_out");
	assert_true(fmu_output_depends_on(f, t_out, var_index(f, "T_in")));
	assert_false(fmu_output_depends_on(f, t_out, var_index(f, "v")));
	assert_false(fmu_output_depends_on(f, var_index(f, "count"), var_index(f, "T_in")));
	assert_false(fmu_output_depends_on(f, var_index(f, "x"), var_index(f, "T_in")));
	fmu_free(f);
}

/* ---- FMI 3.0 ---------------------------------------------------------------------------- */

static void fmu_read__fmi3_fixture__header_and_capabilities(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi3_full.xml");
	assert_int_equal(f->version, FMI_V3);
	assert_string_equal(f->fmi_version, "3.0");
	assert_string_equal(f->model_name, "Full3");
	assert_string_equal(f->model_identifier, "full3");
	assert_string_equal(f->guid, "{full-3-token}");
	assert_string_equal(f->generation_tool, "hand-written 3");
	assert_true(f->has_cosim);
	assert_false(f->has_model_exchange);
	assert_true(f->can_handle_variable_step);
	assert_true(f->can_get_and_set_fmu_state);
	assert_true(f->can_serialize_fmu_state);
	assert_true(f->provides_directional_derivative);
	assert_true(f->provides_adjoint_derivatives);
	assert_true(f->has_event_mode);
	assert_true(f->provides_intermediate_update);
	assert_true(f->might_return_early_from_do_step);
	assert_true(f->can_return_early_after_intermediate_update);
	assert_false(f->can_interpolate_inputs);
	assert_int_equal(f->max_output_derivative_order, 1);
	assert_near(f->fixed_internal_step_size, 0.001, 1e-18);
	assert_true(isnan(f->default_start));
	assert_near(f->default_stop, 2.5, 0);
	fmu_free(f);
}

static void fmu_read__fmi3_fixture__variables_and_types(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi3_full.xml");
	assert_int_equal(f->nvars, 12);
	const FmuVar *v = var(f, "tau");
	assert_int_equal(v->vr, 10);
	assert_int_equal(v->type, FT_REAL);
	assert_int_equal(v->causality, CAUS_INPUT);
	assert_string_equal(v->unit, "N.m");
	assert_string_equal(v->start, "0");
	assert_int_equal(v->line, 32);

	v = var(f, "w");
	assert_int_equal(v->causality, CAUS_OUTPUT);
	assert_string_equal(v->declared_type, "AngularVelocity");
	assert_string_equal(v->unit, "rad/s"); /* from Float64Type */
	assert_int_equal(var(f, "der_w")->derivative_of, var_index(f, "w") + 1);

	assert_int_equal(var(f, "n")->type, FT_INTEGER);
	assert_int_equal(var(f, "n")->variability, VAR_FIXED);
	assert_int_equal(var(f, "byte")->type, FT_UINT8);
	assert_int_equal(var(f, "enabled")->type, FT_BOOLEAN);
	assert_int_equal(var(f, "enabled")->variability, VAR_DISCRETE);
	v = var(f, "tag");
	assert_int_equal(v->type, FT_STRING);
	assert_string_equal(v->start, "abc"); /* from <Start value=..> */
	assert_int_equal(var(f, "gear")->type, FT_ENUMERATION);
	assert_int_equal(var(f, "blob")->type, FT_BINARY);
	assert_int_equal(var(f, "f32")->type, FT_FLOAT32);
	assert_int_equal(var(f, "f32")->variability, VAR_CONTINUOUS);
	assert_int_equal(var(f, "big")->type, FT_INT64);
	assert_int_equal(var(f, "big")->causality, CAUS_STRUCTURAL_PARAMETER);

	assert_string_equal(fmu_type_name_for(FT_REAL, FMI_V3), "Float64");
	assert_string_equal(fmu_type_name_for(FT_REAL, FMI_V2), "Real");
	assert_string_equal(fmu_type_name(FT_INTEGER), "Integer");
	assert_string_equal(fmu_type_name_for(FT_INTEGER, FMI_V3), "Int32");
	assert_string_equal(fmu_causality_name(CAUS_CALCULATED_PARAMETER), "calculatedParameter");
	assert_string_equal(fmu_variability_name(VAR_TUNABLE), "tunable");
	assert_string_equal(fmu_initial_name(INIT_UNSET), "");

	assert_int_equal(f->ntypes, 2);
	assert_int_equal(f->types[0].type, FT_REAL);
	assert_string_equal(f->types[0].unit, "rad/s");
	assert_int_equal(f->types[1].type, FT_ENUMERATION);
	assert_int_equal(f->nunits, 2);
	assert_int_equal(unit(f, "N.m")->m, 2);
	fmu_free(f);
}

static void fmu_read__fmi3_fixture__dependencies_by_value_reference(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi3_full.xml");
	assert_int_equal(f->noutputs, 3);
	const FmuOutputDep *o = output(f, "w");
	assert_true(o->deps_given);
	assert_int_equal(o->ndeps, 1);
	assert_int_equal(o->deps[0], var_index(f, "w"));
	o = output(f, "byte");
	assert_int_equal(o->ndeps, 1);
	assert_int_equal(o->deps[0], var_index(f, "n"));
	o = output(f, "f32");
	assert_true(o->deps_given);
	assert_int_equal(o->ndeps, 0);
	assert_false(fmu_output_depends_on(f, var_index(f, "w"), var_index(f, "tau")));
	fmu_free(f);
}

/* ---- classification (paper, section 2.2.1) ---------------------------------------------- */

static void fmu_read__output_depends_on_input__delayed_mealy(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_full.xml");
	assert_true(f->is_mealy);
	assert_false(f->is_reactive);
	fmu_free(f);
}

static void fmu_read__outputs_depend_on_state_only__reactive_moore(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_moore.xml");
	assert_false(f->is_mealy);
	assert_true(f->is_reactive);
	assert_true(output(f, "z")->deps_given);
	assert_int_equal(output(f, "z")->ndeps, 0);
	fmu_free(f);
}

static void fmu_read__no_dependencies_declared__mealy(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_nodeps.xml");
	assert_true(f->is_mealy);
	assert_false(f->is_reactive);
	const FmuOutputDep *o = output(f, "y");
	assert_false(o->deps_given);
	assert_int_equal(o->ndeps, 0);
	assert_true(fmu_output_depends_on(f, var_index(f, "y"), var_index(f, "u")));
	fmu_free(f);
}

static void fmu_read__fmi3_state_outputs__delayed_moore(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi3_full.xml");
	assert_false(f->is_mealy);
	assert_false(f->is_reactive);
	fmu_free(f);
}

static void fmu_read__no_outputs__moore(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str("<fmiModelDescription fmiVersion='2.0' modelName='sink' guid='g'>"
	                       "<CoSimulation modelIdentifier='sink'/><ModelVariables>"
	                       "<ScalarVariable name='u' valueReference='0' causality='input'>"
	                       "<Real start='0'/></ScalarVariable></ModelVariables>"
	                       "<ModelStructure/></fmiModelDescription>",
	                       &c);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	assert_false(f->is_mealy);
	assert_int_equal(f->noutputs, 0);
	fmu_free(f);
	cap_close(&c);
}

static void fmu_read__output_not_in_structure__warned_and_mealy(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str("<fmiModelDescription fmiVersion='2.0' modelName='m' guid='g'>\n"
	                       "<CoSimulation modelIdentifier='m' canInterpolateInputs='true'/>\n"
	                       "<ModelVariables>\n"
	                       "  <ScalarVariable name='y' valueReference='0' causality='output'>"
	                       "<Real/></ScalarVariable>\n"
	                       "</ModelVariables>\n"
	                       "</fmiModelDescription>\n",
	                       &c);
	assert_string_equal(cap_text(&c),
	                    "inline.xml:4:3: warning: output 'y' is not listed in <ModelStructure>; "
	                    "assuming it depends on every variable\n");
	assert_non_null(f);
	assert_true(f->is_mealy);
	assert_true(f->is_reactive);
	assert_false(output(f, "y")->deps_given);
	fmu_free(f);
	cap_close(&c);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void fmu_read__malformed_xml__error_at_its_line(void **state)
{
	(void)state;
	expect_open(DATA "malformed.xml", false,
	            DATA "malformed.xml:7:21: error: malformed XML: Opening and ending tag "
	            "mismatch: ScalarVariable line 5 and ScalarVariabl\n");
}

static int loader_calls;

static xmlParserInputPtr counting_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	(void)url, (void)id, (void)ctxt;
	loader_calls++;
	return NULL;
}

static void fmu_read__external_entity__rejected_without_loading(void **state)
{
	(void)state;
	xmlExternalEntityLoader old = xmlGetExternalEntityLoader();
	xmlSetExternalEntityLoader(counting_loader);

	/* The canary works: a parser that substitutes entities does try to load it. */
	loader_calls = 0;
	xmlDocPtr doc = xmlReadFile(DATA "xxe.xml", NULL,
	                            XML_PARSE_NOENT | XML_PARSE_DTDLOAD | XML_PARSE_NOERROR |
	                            XML_PARSE_NOWARNING);
	xmlFreeDoc(doc);
	assert_true(loader_calls > 0);

	loader_calls = 0;
	expect_open(DATA "xxe.xml", false,
	            DATA "xxe.xml:2:1: error: a DOCTYPE is not allowed in a model description (no "
	            "DTDs or entities)\n");
	assert_int_equal(loader_calls, 0);
	expect_open(DATA "dtd_system.xml", false,
	            DATA "dtd_system.xml:2:1: error: a DOCTYPE is not allowed in a model "
	            "description (no DTDs or entities)\n");
	assert_int_equal(loader_calls, 0);
	xmlSetExternalEntityLoader(old);
}

static void fmu_read__entity_expansion__rejected(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str("<?xml version='1.0'?>\n"
	                       "<!DOCTYPE d [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;'>]>\n"
	                       "<fmiModelDescription fmiVersion='2.0' modelName='&b;' guid='g'/>\n",
	                       &c);
	assert_null(f);
	assert_string_equal(cap_text(&c), "inline.xml:2:1: error: a DOCTYPE is not allowed in a "
	                                  "model description (no DTDs or entities)\n");
	cap_close(&c);
}

static void write_zip(const char *path, const char *entry, const char *data, size_t len);

static void fmu_read__billion_laughs__rejected_before_any_expansion(void **state)
{
	(void)state;
	/* Ten levels of ten: 10^10 bytes if it were ever expanded; refused at the DOCTYPE. */
	char xml[4096];
	size_t n = (size_t)snprintf(xml, sizeof xml, "<?xml version='1.0'?>\n<!DOCTYPE lolz [\n"
	                            "<!ENTITY l0 'lol'>\n");
	for (int i = 1; i < 10; i++) {
		n += (size_t)snprintf(xml + n, sizeof xml - n, "<!ENTITY l%d '", i);
		for (int k = 0; k < 10; k++)
			n += (size_t)snprintf(xml + n, sizeof xml - n, "&l%d;", i - 1);
		n += (size_t)snprintf(xml + n, sizeof xml - n, "'>\n");
	}
	snprintf(xml + n, sizeof xml - n, "]>\n<fmiModelDescription fmiVersion='2.0' "
	         "modelName='&l9;' guid='g'/>\n");
	Capture c;
	cap_open(&c);
	assert_null(parse_str(xml, &c));
	assert_string_equal(cap_text(&c), "inline.xml:2:1: error: a DOCTYPE is not allowed in a "
	                                  "model description (no DTDs or entities)\n");
	cap_close(&c);
}

static void fmu_read__too_deep__error_at_the_element(void **state)
{
	(void)state;
	/* The root and 31 nested elements are allowed; the 33rd level, on line 34, is not. */
	char xml[4096];
	size_t n = (size_t)snprintf(xml, sizeof xml, "<?xml version='1.0'?>\n"
	                            "<fmiModelDescription fmiVersion='2.0'>\n");
	for (int i = 2; i <= 33; i++)
		n += (size_t)snprintf(xml + n, sizeof xml - n, "%*s<d%d>\n", i, "", i);
	Capture c;
	cap_open(&c);
	assert_null(parse_str(xml, &c));
	assert_string_equal(cap_text(&c), "inline.xml:34:34: error: the model description has "
	                                  "more than 32 levels of nested elements (element "
	                                  "'d33'); refusing it\n");
	cap_close(&c);
	/* 32 levels exactly: no complaint about depth (the document is not an FMU, though) */
	n = (size_t)snprintf(xml, sizeof xml, "<?xml version='1.0'?>\n<a>");
	for (int i = 2; i <= 32; i++)
		n += (size_t)snprintf(xml + n, sizeof xml - n, "<d>");
	for (int i = 2; i <= 32; i++)
		n += (size_t)snprintf(xml + n, sizeof xml - n, "</d>");
	snprintf(xml + n, sizeof xml - n, "</a>\n");
	cap_open(&c);
	assert_null(parse_str(xml, &c));
	assert_null(strstr(cap_text(&c), "levels"));
	cap_close(&c);
}

static void fmu_read__too_many_attributes__error_at_the_element(void **state)
{
	(void)state;
	char xml[4096];
	size_t n = (size_t)snprintf(xml, sizeof xml, "<?xml version='1.0'?>\n"
	                            "<fmiModelDescription fmiVersion='2.0'>\n  <ModelVariables\n");
	for (int i = 0; i < 65; i++)
		n += (size_t)snprintf(xml + n, sizeof xml - n, " a%d='x'", i);
	snprintf(xml + n, sizeof xml - n, "/>\n</fmiModelDescription>\n");
	Capture c;
	cap_open(&c);
	assert_null(parse_str(xml, &c));
	assert_string_equal(cap_text(&c), "inline.xml:3:3: error: the model description has more "
	                                  "than 64 attributes on one element (element "
	                                  "'ModelVariables'); refusing it\n");
	cap_close(&c);
}

static void fmu_read__too_many_elements__error_at_the_element(void **state)
{
	(void)state;
	/* a million empty elements fit in 4 MB; the one after them is refused */
	size_t count = 1000000, n = 0, size = 64 + 4 * count + 64;
	char *xml = malloc(size);
	assert_non_null(xml);
	n += (size_t)snprintf(xml + n, size - n, "<?xml version='1.0'?>\n<a>\n");
	for (size_t i = 1; i < count; i++) {
		memcpy(xml + n, "<b/>", 4);
		n += 4;
	}
	snprintf(xml + n, size - n, "\n<c/></a>\n");
	Capture c;
	cap_open(&c);
	assert_null(parse_str(xml, &c));
	assert_string_equal(cap_text(&c), "inline.xml:4:1: error: the model description has more "
	                                  "than 1000000 elements (element 'c'); refusing it\n");
	cap_close(&c);
	free(xml);
}

static void fmu_read__schema_violation_in_archive__error_names_archive_entry_and_line(void **state)
{
	(void)state;
	/* a description that parses but breaks the schema, read out of an archive */
	char path[600];
	tmp_path(path, sizeof path, "bad.fmu");
	const char *md = "<?xml version='1.0'?>\n<fmiModelDescription fmiVersion='2.0' "
	                 "modelName='m' guid='g'>\n  <CoSimulation modelIdentifier='m'/>\n"
	                 "  <ModelVariables>\n    <ScalarVariable valueReference='0'>"
	                 "<Real/></ScalarVariable>\n  </ModelVariables>\n"
	                 "  <ModelStructure/>\n</fmiModelDescription>\n";
	write_zip(path, "modelDescription.xml", md, strlen(md));
	Capture c;
	cap_open(&c);
	assert_null(fmu_open(path, c.d));
	char want[1024];
	snprintf(want, sizeof want, "%s:modelDescription.xml:5:5: error: <ScalarVariable> lacks the "
	         "required attribute 'name'\n", path);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	remove(path);
}

static void fmu_read__missing_required_attributes__errors_at_elements(void **state)
{
	(void)state;
	expect_open(DATA "missing_attrs.xml", false,
	            DATA "missing_attrs.xml:2:1: error: <fmiModelDescription> lacks the required "
	            "attribute 'modelName'\n"
	            DATA "missing_attrs.xml:3:3: error: <CoSimulation> lacks the required attribute "
	            "'modelIdentifier'\n"
	            DATA "missing_attrs.xml:5:5: error: <ScalarVariable> lacks the required "
	            "attribute 'name'\n"
	            DATA "missing_attrs.xml:8:5: error: <ScalarVariable> lacks the required "
	            "attribute 'valueReference'\n"
	            DATA "missing_attrs.xml:15:14: error: <Unknown> lacks the required attribute "
	            "'index'\n");
}

static void fmu_read__missing_guid_and_token__errors(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str("<fmiModelDescription fmiVersion='2.0' modelName='m'>\n"
	                       "<CoSimulation modelIdentifier='m'/></fmiModelDescription>",
	                       &c);
	assert_null(f);
	f = parse_str("<fmiModelDescription fmiVersion='3.0' modelName='m'>\n"
	              "<CoSimulation modelIdentifier='m'/></fmiModelDescription>",
	              &c);
	assert_null(f);
	f = parse_str("<fmiModelDescription modelName='m' guid='g'/>", &c);
	assert_null(f);
	assert_string_equal(cap_text(&c),
	                    "inline.xml:1:1: error: <fmiModelDescription> lacks the required "
	                    "attribute 'guid'\n"
	                    "inline.xml:1:1: error: <fmiModelDescription> lacks the required "
	                    "attribute 'instantiationToken'\n"
	                    "inline.xml:1:1: error: <fmiModelDescription> lacks the required "
	                    "attribute 'fmiVersion'\n");
	cap_close(&c);
}

static void fmu_read__bad_values__each_reported(void **state)
{
	(void)state;
	expect_open(DATA "bad_values.xml", false,
	            DATA "bad_values.xml:3:3: error: attribute 'canInterpolateInputs' of "
	            "<CoSimulation> must be true or false, not 'yes'\n"
	            DATA "bad_values.xml:5:5: error: unknown causality 'inptu' of variable 'u'\n"
	            DATA "bad_values.xml:6:5: error: unknown variability 'sometimes' of variable "
	            "'y'\n"
	            DATA "bad_values.xml:7:5: error: attribute 'valueReference' of <ScalarVariable> "
	            "must be an unsigned integer up to 4294967295, not 'x2'\n"
	            DATA "bad_values.xml:7:5: error: unknown initial 'maybe' of variable 'z'\n"
	            DATA "bad_values.xml:8:5: error: duplicate variable name 'u'\n"
	            DATA "bad_values.xml:5:5: note: 'u' is first declared here\n"
	            DATA "bad_values.xml:12:7: error: dependency 9 of 'y' is out of range (the "
	            "model has 4 variables)\n"
	            DATA "bad_values.xml:14:7: error: <ModelStructure> lists 'u' as an output, but "
	            "its causality is input\n");
}

static void fmu_read__fmi3_bad_references__reported(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='m' instantiationToken='t'>\n"
		"<CoSimulation modelIdentifier='m'/>\n"
		"<ModelVariables>\n"
		"<Float64 name='u' valueReference='1' causality='input' start='0'/>\n"
		"<Float64 name='y' valueReference='1' causality='output'/>\n"
		"<Float64 name='d' valueReference='2' derivative='7'/>\n"
		"<Int32 name='i' valueReference='3' variability='continuous' declaredType='T'/>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Output valueReference='1' dependencies='5'/>"
		"<Output valueReference='9'/></ModelStructure>\n"
		"</fmiModelDescription>\n",
		&c);
	assert_null(f);
	assert_string_equal(cap_text(&c),
	                    "inline.xml:7:1: error: variable 'i' has the undefined declaredType 'T'\n"
	                    "inline.xml:7:1: error: variable 'i' is Int32 and cannot be continuous\n"
	                    "inline.xml:5:1: error: variable 'y' reuses valueReference 1\n"
	                    "inline.xml:4:1: note: valueReference 1 is first used by 'u'\n"
	                    "inline.xml:6:1: error: variable 'd' is the derivative of valueReference "
	                    "7, which does not exist (the model has 4 variables)\n"
	                    "inline.xml:9:17: error: <ModelStructure> lists 'u' as an output, but its "
	                    "causality is input\n"
	                    "inline.xml:9:62: error: <Output> valueReference 9 is not the "
	                    "valueReference of any variable\n");
	cap_close(&c);
}

static void fmu_read__unsupported_version__error(void **state)
{
	(void)state;
	expect_open(DATA "unsupported_version.xml", false,
	            DATA "unsupported_version.xml:2:1: error: unsupported fmiVersion '1.0': sacc "
	            "reads FMI 2.0 and FMI 3.0\n");
}

static void fmu_read__no_cosimulation__error(void **state)
{
	(void)state;
	expect_open(DATA "no_cosim.xml", false,
	            DATA "no_cosim.xml:2:1: error: model 'me' has no <CoSimulation> element: sacc "
	            "handles Co-Simulation FMUs only\n");
}

static void fmu_read__wrong_root_and_empty__errors(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	assert_null(parse_str("<model/>", &c));
	assert_null(fmu_parse_md("", 0, "empty.xml", c.d));
	assert_null(fmu_parse_md(NULL, 0, "null.xml", c.d));
	assert_string_equal(cap_text(&c),
	                    "inline.xml:1:1: error: the root element is <model>, not "
	                    "<fmiModelDescription>\n"
	                    "empty.xml:1:1: error: malformed XML: Document is empty\n"
	                    "null.xml:1:1: error: malformed XML: Document is empty\n");
	cap_close(&c);
}

static void fmu_read__missing_file__error(void **state)
{
	(void)state;
	expect_open(DATA "no_such.fmu", false,
	            DATA "no_such.fmu: error: cannot open: No such file or directory\n");
	expect_open(DATA "no_such.xml", false,
	            DATA "no_such.xml: error: cannot open: No such file or directory\n");
}

/* Never a crash, and never a NULL without an error: every prefix of a good description and
 * a few hundred corrupted copies of it. */
static void fmu_read__truncated_and_corrupted_input__reported_not_crashed(void **state)
{
	(void)state;
	FILE *in = fopen(DATA "fmi2_full.xml", "rb");
	assert_non_null(in);
	char text[8192];
	size_t len = fread(text, 1, sizeof text, in);
	fclose(in);
	assert_true(len > 1000 && len < sizeof text);
	char *buf = malloc(len);
	assert_non_null(buf);
	uint32_t seed = 12345;
	for (size_t n = 0; n < len + 300; n += n < len ? 13 : 1) {
		size_t use = n < len ? n : len;
		memcpy(buf, text, use);
		if (n >= len) {
			for (int k = 0; k < 3; k++) { /* corrupt three bytes */
				seed = seed * 1103515245u + 12345u;
				size_t at = (seed >> 8) % len;
				seed = seed * 1103515245u + 12345u;
				buf[at] = (char)(seed >> 16);
			}
		}
		FILE *sink = fopen("/dev/null", "w");
		assert_non_null(sink);
		DiagSink *d = diag_new(sink);
		FmuInfo *f = fmu_parse_md(buf, use, "fuzz.xml", d);
		if (!f)
			assert_true(diag_errors(d) > 0);
		fmu_free(f);
		diag_free(d);
		fclose(sink);
	}
	free(buf);
}

/* ---- archives --------------------------------------------------------------------------- */

static void write_zip(const char *path, const char *entry, const char *data, size_t len)
{
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	assert_non_null(zf);
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip(zf, entry, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 6),
	                 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZip(zf), ZIP_OK);
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

/* A stored entry whose header claims the size and CRC given, whatever the data. */
static void write_lying_zip(const char *path, const char *data, size_t len,
                            unsigned long claimed_size, unsigned long crc)
{
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	assert_non_null(zf);
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip2(zf, "modelDescription.xml", &zi, NULL, 0, NULL, 0,
	                                      NULL, 0, 0, 1),
	                 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZipRaw(zf, claimed_size, crc), ZIP_OK);
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

/* CRC-32 (the zip polynomial), bit by bit: the tests link no zlib of their own. */
static unsigned long crc32_of(const char *data, size_t len)
{
	unsigned long crc = 0xFFFFFFFFul;
	for (size_t i = 0; i < len; i++) {
		crc ^= (unsigned char)data[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320ul & (0ul - (crc & 1)));
	}
	return crc ^ 0xFFFFFFFFul;
}

static const char small_md[] =
	"<fmiModelDescription fmiVersion='2.0' modelName='z' guid='{z}'>\n"
	"  <CoSimulation modelIdentifier='z'/>\n"
	"</fmiModelDescription>\n";

static void fmu_open__zip_archive__read_and_named(void **state)
{
	(void)state;
	char path[128], expect[512];
	tmp_path(path, sizeof path, "ok.fmu");
	write_zip(path, "modelDescription.xml", small_md, strlen(small_md));
	FmuInfo *f = open_ok(path);
	assert_string_equal(f->model_identifier, "z");
	assert_string_equal(f->path, path);
	snprintf(expect, sizeof expect, "%s:modelDescription.xml", path);
	assert_string_equal(f->md_name, expect);
	fmu_free(f);

	static const char bad[] = "<fmiModelDescription fmiVersion='2.0' modelName='z' guid='g'>\n"
	                          "  <CoSimulation/>\n</fmiModelDescription>\n";
	write_zip(path, "modelDescription.xml", bad, strlen(bad));
	snprintf(expect, sizeof expect,
	         "%s:modelDescription.xml:2:3: error: <CoSimulation> lacks the required attribute "
	         "'modelIdentifier'\n",
	         path);
	expect_open(path, false, expect);
	remove(path);
}

static void fmu_open__not_a_zip__error(void **state)
{
	(void)state;
	char path[128], expect[256];
	tmp_path(path, sizeof path, "text.fmu");
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs("this is not a zip archive\n", out);
	fclose(out);
	snprintf(expect, sizeof expect, "%s: error: not a zip archive (an FMU is a zip file)\n", path);
	expect_open(path, false, expect);
	remove(path);
}

static void fmu_open__no_model_description__error(void **state)
{
	(void)state;
	char path[128], expect[256];
	tmp_path(path, sizeof path, "nested.fmu");
	write_zip(path, "model/modelDescription.xml", small_md, strlen(small_md));
	snprintf(expect, sizeof expect,
	         "%s: error: the archive has no modelDescription.xml at its root\n", path);
	expect_open(path, false, expect);
	remove(path);
}

static void fmu_open__entry_too_big__error(void **state)
{
	(void)state;
	char path[128], expect[256];
	tmp_path(path, sizeof path, "big.fmu");
	write_lying_zip(path, small_md, strlen(small_md), 32ul << 20, 0);
	snprintf(expect, sizeof expect,
	         "%s: error: modelDescription.xml is too large (33554432 bytes; the limit is "
	         "16777216)\n",
	         path);
	expect_open(path, false, expect);
	remove(path);
}

static void fmu_open__crc_mismatch__error(void **state)
{
	(void)state;
	char path[128], expect[256];
	tmp_path(path, sizeof path, "crc.fmu");
	unsigned long crc = crc32_of(small_md, strlen(small_md));
	write_lying_zip(path, small_md, strlen(small_md), strlen(small_md), crc ^ 1);
	snprintf(expect, sizeof expect,
	         "%s: error: damaged zip archive: modelDescription.xml fails its CRC check\n", path);
	expect_open(path, false, expect);
	/* The same entry with its true CRC reads. */
	write_lying_zip(path, small_md, strlen(small_md), strlen(small_md), crc);
	expect_open(path, true, "");
	remove(path);
}

/* ---- printing --------------------------------------------------------------------------- */

static FmuInfo *open_built(const char *name)
{
	char path[256];
	build_path(path, sizeof path, name);
	return open_ok(path);
}

static void fmu_print__window_table__summary_and_columns(void **state)
{
	(void)state;
	FmuInfo *f = open_built("fmus/window.fmu");
	char *t = print_to_string(fmu_print_table, f);
	assert_contains(t, "  model name           window\n");
	assert_contains(t, "  model identifier     window\n");
	assert_contains(t, "  FMI version          2.0\n");
	assert_contains(t, "  GUID                 {0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}\n");
	assert_contains(t, "  generation tool      sacc test FMU kit\n");
	assert_contains(t, "  kind                 reactive mealy\n");
	assert_contains(t, "  canInterpolateInputs                    true\n");
	assert_contains(t, "  canGetAndSetFMUstate                    true\n");
	assert_contains(t, "  maxOutputDerivativeOrder                0\n");
	assert_contains(t, "\nvariables (7)\n"
	                   "  name             vr  type  causality  variability  initial     start"
	                   "  unit\n"
	                   "  displacement      0  Real  input      continuous               0     "
	                   " rad\n");
	assert_contains(t, "  height            3  Real  output     continuous   calculated        "
	                   " cm\n");
	assert_contains(t, "  b                 6  Real  parameter  fixed        exact       10\n");
	assert_contains(t, "  cm     m          0.01    0\n");
	assert_contains(t, "  N.m    kg.m2.s-2  1       0\n");
	assert_contains(t, "\noutput dependencies\n"
	                   "  height          -> displacement\n"
	                   "  reaction_torque -> speed, reaction_force\n");
	free(t);
	fmu_free(f);

	f = open_ok(DATA "fmi2_nodeps.xml");
	t = print_to_string(fmu_print_table, f);
	assert_contains(t, "  y -> (all, not declared)\n");
	assert_contains(t, "  kind                 delayed mealy\n");
	free(t);
	fmu_free(f);
}

static void fmu_print__window_json__valid_with_keys(void **state)
{
	(void)state;
	FmuInfo *f = open_built("fmus/window.fmu");
	char *j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\n  \"fmiVersion\": \"2.0\",\n  \"modelName\": \"window\",\n"
	                   "  \"modelIdentifier\": \"window\",\n");
	assert_contains(j, "\"guid\": \"{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}\"");
	assert_contains(j, "\"kind\": \"reactive mealy\",\n  \"mealy\": true,\n  \"reactive\": true");
	assert_contains(j, "\"canInterpolateInputs\": true");
	assert_contains(j, "\"maxOutputDerivativeOrder\": 0");
	assert_contains(j, "\"stopTime\": 10,");
	assert_contains(j, "\"tolerance\": null");
	assert_contains(j, "\"name\": \"height\",\n      \"valueReference\": 3,\n"
	                   "      \"type\": \"Real\",\n      \"causality\": \"output\"");
	assert_contains(j, "\"unit\": \"cm\"");
	assert_contains(j, "\"name\": \"cm\",\n      \"baseUnit\": {\n        \"kg\": 0,\n"
	                   "        \"m\": 1,");
	assert_contains(j, "\"factor\": 0.01");
	assert_contains(j, "\"name\": \"reaction_torque\",\n      \"dependenciesDeclared\": true,\n"
	                   "      \"dependencies\": [\"speed\", \"reaction_force\"]");
	assert_contains(j, "\"typeDefinitions\": []");
	free(j);
	fmu_free(f);
}

static void fmu_print__json_strings_and_nulls__escaped(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "fmi2_full.xml");
	char *j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"description\": \"FMI 2.0 fixture \\\"full\\\"\\nsecond line\\ttab "
	                   "\\\\ backslash\"");
	assert_contains(j, "\"start\": \"a <b>\"");
	assert_contains(j, "\"derivativeOf\": \"x\"");
	assert_contains(j, "\"initial\": null");
	assert_contains(j, "\"factor\": 0.2777777777777778");
	free(j);
	fmu_free(f);

	f = open_ok(DATA "fmi2_nodeps.xml");
	j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"dependenciesDeclared\": false,\n      \"dependencies\": null");
	assert_contains(j, "\"units\": []");
	free(j);
	fmu_free(f);

	f = open_ok(DATA "fmi3_full.xml");
	j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"type\": \"Float64\"");
	assert_contains(j, "\"fixedInternalStepSize\": 0.001");
	free(j);
	fmu_free(f);
}

static void fmu_read__built_fmus__described_as_specified(void **state)
{
	(void)state;
	FmuInfo *w = open_built("fmus/window.fmu");
	assert_string_equal(w->model_identifier, "window");
	assert_true(w->is_mealy && w->is_reactive);
	assert_true(w->can_handle_variable_step && w->can_get_and_set_fmu_state &&
	            w->can_serialize_fmu_state && w->can_interpolate_inputs);
	assert_string_equal(var(w, "height")->unit, "cm");
	assert_string_equal(var(w, "reaction_torque")->unit, "N.m");
	assert_string_equal(var(w, "speed")->unit, "rad/s");
	assert_string_equal(var(w, "r")->start, "0.11");
	const FmuUnit *cm = unit(w, "cm");
	assert_int_equal(cm->m, 1);
	assert_near(cm->factor, 0.01, 1e-18);
	const FmuUnit *n = unit(w, "N");
	assert_true(n->kg == 1 && n->m == 1 && n->s == -2);
	int h = var_index(w, "height"), tq = var_index(w, "reaction_torque");
	assert_true(fmu_output_depends_on(w, h, var_index(w, "displacement")));
	assert_false(fmu_output_depends_on(w, h, var_index(w, "speed")));
	assert_true(fmu_output_depends_on(w, tq, var_index(w, "speed")));
	assert_true(fmu_output_depends_on(w, tq, var_index(w, "reaction_force")));
	assert_false(fmu_output_depends_on(w, tq, var_index(w, "displacement")));
	fmu_free(w);

	FmuInfo *o = open_built("fmus/obstacle.fmu");
	assert_string_equal(o->model_identifier, "obstacle");
	assert_true(o->is_mealy && o->is_reactive);
	assert_string_equal(var(o, "c")->start, "1e10");
	assert_string_equal(var(o, "position")->start, "0.45");
	const FmuUnit *npm = unit(o, "N/m");
	assert_true(npm->kg == 1 && npm->m == 0 && npm->s == -2);
	assert_true(fmu_output_depends_on(o, var_index(o, "reaction_force"), var_index(o, "disp")));
	fmu_free(o);
}

/* ---- the test FMUs, loaded and stepped -------------------------------------------------- */

typedef struct Log {
	int count;
	fmi2Status status;
	char category[64];
	char instance[64];
	char message[512];
} Log;

static void capture_log(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
	Log *l = env;
	va_list ap;
	va_start(ap, message);
	vsnprintf(l->message, sizeof l->message, message, ap);
	va_end(ap);
	l->count++;
	l->status = status;
	snprintf(l->category, sizeof l->category, "%s", category ? category : "");
	snprintf(l->instance, sizeof l->instance, "%s", instance ? instance : "");
}

typedef struct Api {
	Fmi2Api f;
	FmuInfo *md;
} Api;

static void api_open(Api *a, const char *model)
{
	char path[256], rel[128];
	memset(a, 0, sizeof *a);
	snprintf(rel, sizeof rel, "fmus/%s.fmu", model);
	a->md = open_built(rel);
	snprintf(rel, sizeof rel, "fmus/%s/binaries/linux64/%s.so", model, model);
	build_path(path, sizeof path, rel);
	fmi2_import(&a->f, path);
	/* The kit's own symbols stay hidden. */
	assert_null(dlsym(a->f.lib, "kit_model"));
	assert_null(dlsym(a->f.lib, "kit_log"));
}

static void api_close(Api *a)
{
	fmu_free(a->md);
	fmi2_unimport(&a->f);
}

static fmi2ValueReference vr_of(const Api *a, const char *name)
{
	return var(a->md, name)->vr;
}

static fmi2Component instantiate(const Api *a, const char *name, const fmi2CallbackFunctions *cb)
{
	fmi2Component c = a->f.instantiate(name, fmi2CoSimulation, a->md->guid, "file:///tmp", cb,
	                                 fmi2False, fmi2False);
	assert_non_null(c);
	return c;
}

static void start(const Api *a, fmi2Component c, double t0)
{
	assert_int_equal(a->f.setup(c, fmi2False, 0.0, t0, fmi2False, 0.0), fmi2OK);
	assert_int_equal(a->f.enter_init(c), fmi2OK);
	assert_int_equal(a->f.exit_init(c), fmi2OK);
}

static void set(const Api *a, fmi2Component c, const char *name, double v)
{
	fmi2ValueReference vr = vr_of(a, name);
	assert_int_equal(a->f.set_real(c, &vr, 1, &v), fmi2OK);
}

static double get(const Api *a, fmi2Component c, const char *name)
{
	fmi2ValueReference vr = vr_of(a, name);
	double v = NAN;
	assert_int_equal(a->f.get_real(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void window_fmu__step__outputs_follow_formula(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	assert_string_equal(a.f.get_version(), "2.0");
	assert_string_equal(a.f.get_types_platform(), "default");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "window1", &cb);
	start(&a, c, 0.0);
	assert_near(get(&a, c, "height"), 0.0, 0);
	assert_near(get(&a, c, "reaction_torque"), 0.0, 0);

	double t = 0.0;
	const double u[][3] = {{2.0, 0.5, 3.0}, {-1.0, 4.0, 0.0}, {12.5, -2.0, 1e3}};
	for (size_t i = 0; i < 3; i++) {
		set(&a, c, "displacement", u[i][0]);
		set(&a, c, "speed", u[i][1]);
		set(&a, c, "reaction_force", u[i][2]);
		assert_int_equal(a.f.do_step(c, t, 0.01, fmi2True), fmi2OK);
		t += 0.01;
		assert_close(get(&a, c, "height"), 100 * 0.11 * u[i][0]);
		assert_close(get(&a, c, "reaction_torque"), -(0.11 * u[i][2] + 10 * 0.11 * u[i][1]));
	}
	/* Direct feedthrough: outputs follow a new input before any step. */
	set(&a, c, "displacement", 1.0);
	assert_close(get(&a, c, "height"), 11.0);
	double last = 0;
	assert_int_equal(a.f.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_near(last, 0.03, 1e-15);
	assert_int_equal(a.f.terminate(c), fmi2OK);
	a.f.free_instance(c);
	assert_int_equal(log.count, 0);
	api_close(&a);
}

static void window_fmu__parameters_and_instances__independent(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c1 = instantiate(&a, "w1", &cb), c2 = instantiate(&a, "w2", &cb);
	set(&a, c2, "r", 0.2); /* a fixed parameter may be set before initialization */
	start(&a, c1, 0.0);
	start(&a, c2, 5.0);
	set(&a, c1, "displacement", 1.0);
	set(&a, c2, "displacement", 2.0);
	assert_int_equal(a.f.do_step(c1, 0.0, 0.1, fmi2False), fmi2OK);
	assert_int_equal(a.f.do_step(c2, 5.0, 0.1, fmi2False), fmi2OK);
	assert_close(get(&a, c1, "height"), 11.0);
	assert_close(get(&a, c2, "height"), 40.0);
	assert_close(get(&a, c2, "r"), 0.2);

	/* Reset brings back the start values. */
	assert_int_equal(a.f.reset(c2), fmi2OK);
	start(&a, c2, 0.0);
	assert_close(get(&a, c2, "r"), 0.11);
	assert_near(get(&a, c2, "height"), 0.0, 0);
	a.f.free_instance(c1);
	a.f.free_instance(c2);
	assert_int_equal(log.count, 0);
	api_close(&a);
}

static void window_fmu__input_derivatives__interpolated_over_the_step(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	start(&a, c, 0.0);
	fmi2ValueReference vrs[2] = {vr_of(&a, "displacement"), vr_of(&a, "speed")};
	fmi2Integer order[2] = {1, 1};
	double du[2] = {2.0, -4.0};
	set(&a, c, "displacement", 1.0);
	set(&a, c, "speed", 1.0);
	assert_int_equal(a.f.set_input_derivatives(c, vrs, 2, order, du), fmi2OK);
	assert_int_equal(a.f.do_step(c, 0.0, 0.5, fmi2False), fmi2OK);
	/* f(u + du H): displacement 2, speed -1 at the end of the step. */
	assert_close(get(&a, c, "height"), 100 * 0.11 * 2.0);
	assert_close(get(&a, c, "reaction_torque"), -(10 * 0.11 * -1.0));
	assert_close(get(&a, c, "displacement"), 2.0);
	/* The derivatives held for that step only. */
	assert_int_equal(a.f.do_step(c, 0.5, 0.5, fmi2False), fmi2OK);
	assert_close(get(&a, c, "height"), 22.0);

	fmi2Integer second[1] = {2};
	assert_int_equal(a.f.set_input_derivatives(c, vrs, 1, second, du), fmi2Error);
	assert_string_equal(log.message, "fmi2SetRealInputDerivatives: derivative order 2 of "
	                                 "'displacement' is not supported (only 1)");
	fmi2ValueReference out = vr_of(&a, "height");
	assert_int_equal(a.f.set_input_derivatives(c, &out, 1, order, du), fmi2Error);
	assert_string_equal(log.message,
	                    "fmi2SetRealInputDerivatives: value reference 3 is not a Real input");
	a.f.free_instance(c);
	api_close(&a);
}

static void obstacle_fmu__step__force_only_beyond_contact(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "obstacle");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "obstacle", &cb);
	start(&a, c, 0.0);
	const double disp[] = {0.0, 0.40, 0.45, 0.4500001, 0.46, 0.5};
	double t = 0;
	for (size_t i = 0; i < sizeof disp / sizeof disp[0]; i++) {
		set(&a, c, "disp", disp[i]);
		assert_int_equal(a.f.do_step(c, t, 0.001, fmi2False), fmi2OK);
		t += 0.001;
		double expect = disp[i] > 0.45 ? 1e10 * (disp[i] - 0.45) : 0.0;
		assert_close(get(&a, c, "reaction_force"), expect);
	}
	assert_near(get(&a, c, "reaction_force"), 5e8, 1e-3);
	set(&a, c, "disp", 0.3);
	assert_near(get(&a, c, "reaction_force"), 0.0, 0);
	a.f.free_instance(c);
	assert_int_equal(log.count, 0);
	api_close(&a);
}

static void window_fmu__state_round_trip__same_outputs(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	start(&a, c, 0.0);
	set(&a, c, "displacement", 0.3);
	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2OK);

	fmi2FMUstate s = NULL;
	assert_int_equal(a.f.get_state(c, &s), fmi2OK);
	assert_non_null(s);

	set(&a, c, "displacement", 0.7);
	set(&a, c, "speed", 2.0);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2OK);
	double h1 = get(&a, c, "height"), t1 = get(&a, c, "reaction_torque");

	/* Back to t = 0.1: a step from 0.1 is accepted again and gives the same bits. */
	assert_int_equal(a.f.set_state(c, s), fmi2OK);
	assert_close(get(&a, c, "displacement"), 0.3);
	set(&a, c, "displacement", 0.7);
	set(&a, c, "speed", 2.0);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2OK);
	double h2 = get(&a, c, "height"), t2 = get(&a, c, "reaction_torque");
	assert_memory_equal(&h1, &h2, sizeof h1);
	assert_memory_equal(&t1, &t2, sizeof t1);

	/* Serialized and read back, the state does the same. */
	size_t n = 0;
	assert_int_equal(a.f.serialized_size(c, s, &n), fmi2OK);
	assert_true(n > 0);
	fmi2Byte *buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(a.f.serialize(c, s, buf, n), fmi2OK);
	fmi2FMUstate s2 = NULL;
	assert_int_equal(a.f.deserialize(c, buf, n, &s2), fmi2OK);
	assert_int_equal(a.f.set_state(c, s2), fmi2OK);
	set(&a, c, "displacement", 0.7);
	set(&a, c, "speed", 2.0);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2OK);
	double h3 = get(&a, c, "height");
	assert_memory_equal(&h1, &h3, sizeof h1);
	assert_int_equal(log.count, 0);

	/* Foreign or damaged data is refused. */
	assert_int_equal(a.f.deserialize(c, buf, n - 1, &s2), fmi2Error);
	char expect[128];
	snprintf(expect, sizeof expect,
	         "fmi2DeSerializeFMUstate: the %lu bytes given are not a serialized state of window",
	         (unsigned long)(n - 1));
	assert_string_equal(log.message, expect);
	assert_string_equal(log.category, "logStatusError");
	assert_int_equal(log.status, fmi2Error);
	buf[0] ^= 0x55;
	assert_int_equal(a.f.deserialize(c, buf, n, &s2), fmi2Error);
	buf[0] ^= 0x55;

	Api o;
	api_open(&o, "obstacle");
	fmi2Component oc = instantiate(&o, "o", &cb);
	fmi2FMUstate os = NULL;
	assert_int_equal(o.f.get_state(oc, &os), fmi2OK);
	size_t on = 0;
	assert_int_equal(o.f.serialized_size(oc, os, &on), fmi2OK);
	fmi2Byte *obuf = malloc(on);
	assert_non_null(obuf);
	assert_int_equal(o.f.serialize(oc, os, obuf, on), fmi2OK);
	log.count = 0;
	assert_int_equal(a.f.deserialize(c, obuf, on, &s2), fmi2Error);
	assert_int_equal(log.count, 1);
	assert_int_equal(a.f.set_state(c, os), fmi2Error);
	assert_string_equal(log.message, "fmi2SetFMUstate: not a state of window");
	assert_int_equal(o.f.free_state(oc, &os), fmi2OK);
	assert_null(os);
	o.f.free_instance(oc);
	free(obuf);
	api_close(&o);

	assert_int_equal(a.f.serialize(c, s, buf, n - 1), fmi2Error);
	assert_int_equal(a.f.free_state(c, &s), fmi2OK);
	assert_null(s);
	assert_int_equal(a.f.free_state(c, &s2), fmi2OK);
	free(buf);
	a.f.free_instance(c);
	api_close(&a);
}

static void window_fmu__wrong_state_calls__error_and_log(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);

	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state instantiated");
	assert_string_equal(log.category, "logStatusError");
	assert_string_equal(log.instance, "w");
	assert_int_equal(log.status, fmi2Error);
	double v;
	fmi2ValueReference vr = vr_of(&a, "height");
	assert_int_equal(a.f.get_real(c, &vr, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2GetReal is not allowed in state instantiated");
	assert_int_equal(a.f.exit_init(c), fmi2Error);
	assert_string_equal(log.message,
	                    "fmi2ExitInitializationMode is not allowed in state instantiated");

	start(&a, c, 0.0);
	assert_int_equal(a.f.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2Error);
	assert_string_equal(log.message, "fmi2SetupExperiment is not allowed in state stepComplete");
	/* The instance is unharmed by a rejected call. */
	set(&a, c, "displacement", 1.0);
	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2OK);
	assert_close(get(&a, c, "height"), 11.0);

	assert_int_equal(a.f.do_step(c, 0.0, 0.1, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep: communication point 0 is not the instance's "
	                                 "time 0.10000000000000001");
	assert_int_equal(a.f.do_step(c, 0.1, -1.0, fmi2False), fmi2Error);

	assert_int_equal(a.f.terminate(c), fmi2OK);
	assert_int_equal(a.f.do_step(c, 0.1, 0.1, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state terminated");
	assert_close(get(&a, c, "height"), 11.0); /* values stay readable */
	assert_int_equal(a.f.terminate(c), fmi2Error);
	a.f.free_instance(c);
	api_close(&a);
}

static void window_fmu__bad_references_and_unsupported__error_and_log(void **state)
{
	(void)state;
	Api a;
	api_open(&a, "window");
	Log log = {0};
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = instantiate(&a, "w", &cb);
	start(&a, c, 0.0);
	double v = 1.0;
	fmi2ValueReference bad = 99, r = vr_of(&a, "r"), h = vr_of(&a, "height");
	assert_int_equal(a.f.get_real(c, &bad, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2GetReal: no Real variable has value reference 99");
	assert_int_equal(a.f.set_real(c, &bad, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal: no Real variable has value reference 99");
	fmi2Integer iv;
	fmi2ValueReference zero = 0;
	assert_int_equal(a.f.get_integer(c, &zero, 1, &iv), fmi2Error);
	assert_string_equal(log.message, "fmi2GetInteger: no Integer variable has value reference 0");
	fmi2Boolean bv = fmi2True;
	assert_int_equal(a.f.set_boolean(c, &zero, 1, &bv), fmi2Error);
	assert_int_equal(a.f.set_real(c, &r, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal: 'r' is a fixed parameter and cannot be set "
	                                 "in state stepComplete");
	assert_int_equal(a.f.set_real(c, &h, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal: 'height' is an output and cannot be set");
	assert_close(get(&a, c, "r"), 0.11);

	/* A call with one bad reference changes nothing. */
	fmi2ValueReference mixed[2] = {vr_of(&a, "displacement"), bad};
	double vals[2] = {5.0, 5.0};
	assert_int_equal(a.f.set_real(c, mixed, 2, vals), fmi2Error);
	assert_near(get(&a, c, "displacement"), 0.0, 0);

	fmi2Integer order = 1;
	assert_int_equal(a.f.get_output_derivatives(c, &h, 1, &order, &v), fmi2Error);
	assert_contains(log.message, "fmi2GetRealOutputDerivatives is not supported by window");
	assert_int_equal(a.f.get_directional_derivative(c, &h, 1, &r, 1, &v, &v), fmi2Error);
	assert_contains(log.message, "fmi2GetDirectionalDerivative is not supported by window");
	assert_int_equal(a.f.cancel_step(c), fmi2Error);
	fmi2Status st;
	assert_int_equal(a.f.get_status(c, fmi2DoStepStatus, &st), fmi2Error);
	double t;
	assert_int_equal(a.f.get_real_status(c, fmi2PendingStatus, &t), fmi2Error);
	fmi2String cats[1] = {"logNoSuchThing"};
	assert_int_equal(a.f.set_debug_logging(c, fmi2True, 1, cats), fmi2Error);
	assert_string_equal(log.message, "fmi2SetDebugLogging: unknown log category "
	                                 "'logNoSuchThing'");
	cats[0] = "logAll";
	assert_int_equal(a.f.set_debug_logging(c, fmi2True, 1, cats), fmi2OK);
	a.f.free_instance(c);

	/* Instantiation checks its arguments. */
	log.count = 0;
	assert_null(a.f.instantiate("w", fmi2CoSimulation, "{not-the-guid}", "", &cb, fmi2False,
	                          fmi2False));
	assert_string_equal(log.message, "fmi2Instantiate: GUID {not-the-guid} does not match "
	                                 "window's {0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}");
	assert_null(a.f.instantiate("w", fmi2ModelExchange, a.md->guid, "", &cb, fmi2False,
	                          fmi2False));
	assert_string_equal(log.message, "fmi2Instantiate: window supports Co-Simulation only");
	assert_null(a.f.instantiate("", fmi2CoSimulation, a.md->guid, "", &cb, fmi2False, fmi2False));
	assert_int_equal(log.count, 3);
	a.f.free_instance(NULL);
	api_close(&a);
}

/* ---- the kit itself, linked in ---------------------------------------------------------
 *
 * window and obstacle never discard a step, store no Integer, Boolean or String and never
 * fail, so the kit's paths for those are exercised here on a model of its own: the kit's
 * source is compiled into this test (its fmi2* functions are then this program's own; the
 * FMUs above are reached through their dlopen handles only). */
#include "../fmus/kit/fmu_kit.c"

enum { SV_U = 0, SV_X = 1, SV_LIMIT = 2, SV_STEPS = 0, SV_FLAG = 0, SV_LABEL = 0 };

typedef struct Stepper {
	fmi2Real u;                 /* input: the integrand */
	fmi2Real x;                 /* output: the integral of u since the start */
	fmi2Real limit;             /* tunable: a step across this time stops at it */
	fmi2Integer steps;          /* output: steps taken */
	fmi2Boolean flag;           /* input */
	char label[KIT_STRING_MAX]; /* fixed parameter */
} Stepper;

static const Stepper stepper_start = {0.0, 0.0, 1e300, 0, fmi2False, "none"};

static const KitVar stepper_vars[] = {
	{"u", SV_U, KIT_REAL, KIT_INPUT, offsetof(Stepper, u)},
	{"x", SV_X, KIT_REAL, KIT_OUTPUT, offsetof(Stepper, x)},
	{"limit", SV_LIMIT, KIT_REAL, KIT_TUNABLE, offsetof(Stepper, limit)},
	{"steps", SV_STEPS, KIT_INTEGER, KIT_OUTPUT, offsetof(Stepper, steps)},
	{"flag", SV_FLAG, KIT_BOOLEAN, KIT_INPUT, offsetof(Stepper, flag)},
	{"label", SV_LABEL, KIT_STRING, KIT_PARAMETER, offsetof(Stepper, label)},
};

static fmi2Status stepper_calculate(KitInstance *k, void *state)
{
	const Stepper *s = state;
	if (isnan(s->u)) {
		kit_log(k, fmi2Error, "u is NaN");
		return fmi2Error;
	}
	return fmi2OK;
}

/* Integrates u with the midpoint rule (exact for the kit's linear interpolation), stopping
 * at limit when the step would cross it. */
static fmi2Status stepper_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Stepper *s = state;
	double end = t + h;
	fmi2Status st = fmi2OK;
	if (s->limit > t && s->limit < end) {
		end = s->limit;
		st = fmi2Discard;
	}
	kit_inputs_at(k, t + (end - t) / 2);
	s->x += s->u * (end - t);
	s->steps++;
	if (s->x > 100)
		kit_request_terminate(k);
	*reached = end;
	return st;
}

const KitModel kit_model = {
	"stepper",
	"{stepper}",
	sizeof(Stepper),
	&stepper_start,
	stepper_vars,
	sizeof stepper_vars / sizeof stepper_vars[0],
	stepper_calculate,
	NULL,
	stepper_step,
};

static fmi2Component stepper_new(Log *log, const fmi2CallbackFunctions *cb)
{
	memset(log, 0, sizeof *log);
	fmi2Component c = fmi2Instantiate("s", fmi2CoSimulation, "{stepper}", NULL, cb, fmi2False,
	                                  fmi2False);
	assert_non_null(c);
	return c;
}

static double stepper_real(fmi2Component c, fmi2ValueReference vr)
{
	double v = NAN;
	assert_int_equal(fmi2GetReal(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void stepper_set(fmi2Component c, fmi2ValueReference vr, double v)
{
	assert_int_equal(fmi2SetReal(c, &vr, 1, &v), fmi2OK);
}

static void fmu_kit__discarded_step__stops_at_reached_time(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	stepper_set(c, SV_LIMIT, 1.0);
	stepper_set(c, SV_U, 1.0);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2DoStep(c, 0.0, 0.6, fmi2False), fmi2OK);
	fmi2FMUstate saved = NULL;
	assert_int_equal(fmi2GetFMUstate(c, &saved), fmi2OK);

	assert_int_equal(fmi2DoStep(c, 0.6, 0.6, fmi2False), fmi2Discard);
	double last = 0;
	assert_int_equal(fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &last), fmi2OK);
	assert_near(last, 1.0, 1e-15);
	assert_near(stepper_real(c, SV_X), 1.0, 1e-15);
	assert_int_equal(log.status, fmi2Discard);
	assert_string_equal(log.category, "logStatusDiscard");
	/* In stepFailed: values are readable, inputs are not settable. */
	double v = 2.0;
	fmi2ValueReference u = SV_U;
	assert_int_equal(fmi2SetReal(c, &u, 1, &v), fmi2Error);
	assert_string_equal(log.message, "fmi2SetReal is not allowed in state stepFailed");

	assert_int_equal(fmi2DoStep(c, 1.0, 0.25, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state stepFailed");

	/* Restored to t = 0.6, it takes the shorter step to the limit, then goes on. */
	assert_int_equal(fmi2SetFMUstate(c, saved), fmi2OK);
	assert_int_equal(fmi2DoStep(c, 0.6, 0.4, fmi2False), fmi2OK);
	assert_near(stepper_real(c, SV_X), 1.0, 1e-15);
	stepper_set(c, SV_LIMIT, 1e300);
	assert_int_equal(fmi2DoStep(c, 1.0, 0.25, fmi2False), fmi2OK);
	assert_near(stepper_real(c, SV_X), 1.25, 1e-15);
	fmi2Integer steps = 0;
	fmi2ValueReference sv = SV_STEPS;
	assert_int_equal(fmi2GetInteger(c, &sv, 1, &steps), fmi2OK);
	assert_int_equal(steps, 3);
	assert_int_equal(fmi2Terminate(c), fmi2OK);
	assert_int_equal(fmi2FreeFMUstate(c, &saved), fmi2OK);
	fmi2FreeInstance(c);
}

static void fmu_kit__input_derivative__integrated_exactly(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	assert_int_equal(fmi2SetupExperiment(c, fmi2False, 0, 2.0, fmi2True, 10.0), fmi2OK);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	fmi2ValueReference u = SV_U;
	fmi2Integer order = 1;
	double du = 2.0;
	assert_int_equal(fmi2SetRealInputDerivatives(c, &u, 1, &order, &du), fmi2OK);
	assert_int_equal(fmi2DoStep(c, 2.0, 1.0, fmi2False), fmi2OK);
	/* u(t) = 2 (t - 2) over [2, 3]: its integral is 1. */
	assert_near(stepper_real(c, SV_X), 1.0, 1e-15);
	assert_near(stepper_real(c, SV_U), 2.0, 1e-15);
	fmi2FreeInstance(c);
}

static void fmu_kit__integer_boolean_string__stored_and_checked(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	fmi2ValueReference vr = 0;
	fmi2String label = "hello";
	assert_int_equal(fmi2SetString(c, &vr, 1, &label), fmi2OK);
	char longer[KIT_STRING_MAX + 1];
	memset(longer, 'a', KIT_STRING_MAX);
	longer[KIT_STRING_MAX] = '\0';
	fmi2String too_long = longer;
	assert_int_equal(fmi2SetString(c, &vr, 1, &too_long), fmi2Error);
	assert_string_equal(log.message, "fmi2SetString: the value for 'label' is NULL or longer "
	                                 "than 63 bytes");
	fmi2Boolean flag = 5;
	assert_int_equal(fmi2SetBoolean(c, &vr, 1, &flag), fmi2OK);
	fmi2Integer steps = 3;
	assert_int_equal(fmi2SetInteger(c, &vr, 1, &steps), fmi2Error);
	assert_string_equal(log.message, "fmi2SetInteger: 'steps' is an output and cannot be set");
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2SetString(c, &vr, 1, &label), fmi2Error);
	assert_string_equal(log.message, "fmi2SetString: 'label' is a fixed parameter and cannot "
	                                 "be set in state stepComplete");

	fmi2FMUstate s = NULL;
	assert_int_equal(fmi2GetFMUstate(c, &s), fmi2OK);
	size_t n = 0;
	assert_int_equal(fmi2SerializedFMUstateSize(c, s, &n), fmi2OK);
	fmi2Byte *buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(fmi2SerializeFMUstate(c, s, buf, n), fmi2OK);
	assert_int_equal(fmi2FreeFMUstate(c, &s), fmi2OK);
	fmi2FreeInstance(c);

	/* A fresh instance takes the serialized state, string and all. */
	c = stepper_new(&log, &cb);
	assert_int_equal(fmi2DeSerializeFMUstate(c, buf, n, &s), fmi2OK);
	assert_int_equal(fmi2SetFMUstate(c, s), fmi2OK);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	fmi2String got = NULL;
	assert_int_equal(fmi2GetString(c, &vr, 1, &got), fmi2OK);
	assert_string_equal(got, "hello");
	fmi2Boolean b = 0;
	assert_int_equal(fmi2GetBoolean(c, &vr, 1, &b), fmi2OK);
	assert_int_equal(b, fmi2True);
	/* A serialized state whose string lost its terminator is foreign data. */
	memset(buf + (n - sizeof(Stepper)) + offsetof(Stepper, label), 'x', KIT_STRING_MAX);
	assert_int_equal(fmi2DeSerializeFMUstate(c, buf, n, &s), fmi2Error);
	assert_int_equal(fmi2FreeFMUstate(c, &s), fmi2OK);
	free(buf);
	fmi2FreeInstance(c);
}

static void fmu_kit__model_error__instance_in_error_state(void **state)
{
	(void)state;
	Log log;
	fmi2CallbackFunctions cb = {capture_log, NULL, NULL, NULL, &log};
	fmi2Component c = stepper_new(&log, &cb);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	stepper_set(c, SV_U, NAN);
	assert_int_equal(fmi2DoStep(c, 0.0, 1.0, fmi2False), fmi2Error);
	assert_contains(log.message, "the model failed to compute its outputs");
	assert_int_equal(fmi2DoStep(c, 1.0, 1.0, fmi2False), fmi2Error);
	assert_string_equal(log.message, "fmi2DoStep is not allowed in state error");
	assert_int_equal(fmi2Reset(c), fmi2OK);
	assert_int_equal(fmi2EnterInitializationMode(c), fmi2OK);
	assert_int_equal(fmi2ExitInitializationMode(c), fmi2OK);
	stepper_set(c, SV_U, 200.0);
	assert_int_equal(fmi2DoStep(c, 0.0, 1.0, fmi2False), fmi2OK);
	fmi2Boolean terminated = fmi2False;
	assert_int_equal(fmi2GetBooleanStatus(c, fmi2Terminated, &terminated), fmi2OK);
	assert_int_equal(terminated, fmi2True);
	fmi2FreeInstance(c);
}

/* ---- the suite -------------------------------------------------------------------------- */

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sacc_test_fmu_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmu_read__fmi2_fixture__header_and_capabilities),
		cmocka_unit_test(fmu_read__fmi2_fixture__variables),
		cmocka_unit_test(fmu_read__fmi2_fixture__units_and_types),
		cmocka_unit_test(fmu_read__fmi2_fixture__output_dependencies),
		cmocka_unit_test(fmu_read__fmi3_fixture__header_and_capabilities),
		cmocka_unit_test(fmu_read__fmi3_fixture__variables_and_types),
		cmocka_unit_test(fmu_read__fmi3_fixture__dependencies_by_value_reference),
		cmocka_unit_test(fmu_read__output_depends_on_input__delayed_mealy),
		cmocka_unit_test(fmu_read__outputs_depend_on_state_only__reactive_moore),
		cmocka_unit_test(fmu_read__no_dependencies_declared__mealy),
		cmocka_unit_test(fmu_read__fmi3_state_outputs__delayed_moore),
		cmocka_unit_test(fmu_read__no_outputs__moore),
		cmocka_unit_test(fmu_read__output_not_in_structure__warned_and_mealy),
		cmocka_unit_test(fmu_read__malformed_xml__error_at_its_line),
		cmocka_unit_test(fmu_read__external_entity__rejected_without_loading),
		cmocka_unit_test(fmu_read__entity_expansion__rejected),
		cmocka_unit_test(fmu_read__billion_laughs__rejected_before_any_expansion),
		cmocka_unit_test(fmu_read__too_deep__error_at_the_element),
		cmocka_unit_test(fmu_read__too_many_attributes__error_at_the_element),
		cmocka_unit_test(fmu_read__too_many_elements__error_at_the_element),
		cmocka_unit_test(fmu_read__schema_violation_in_archive__error_names_archive_entry_and_line),
		cmocka_unit_test(fmu_read__missing_required_attributes__errors_at_elements),
		cmocka_unit_test(fmu_read__missing_guid_and_token__errors),
		cmocka_unit_test(fmu_read__bad_values__each_reported),
		cmocka_unit_test(fmu_read__fmi3_bad_references__reported),
		cmocka_unit_test(fmu_read__unsupported_version__error),
		cmocka_unit_test(fmu_read__no_cosimulation__error),
		cmocka_unit_test(fmu_read__wrong_root_and_empty__errors),
		cmocka_unit_test(fmu_read__missing_file__error),
		cmocka_unit_test(fmu_read__truncated_and_corrupted_input__reported_not_crashed),
		cmocka_unit_test(fmu_open__zip_archive__read_and_named),
		cmocka_unit_test(fmu_open__not_a_zip__error),
		cmocka_unit_test(fmu_open__no_model_description__error),
		cmocka_unit_test(fmu_open__entry_too_big__error),
		cmocka_unit_test(fmu_open__crc_mismatch__error),
		cmocka_unit_test(fmu_print__window_table__summary_and_columns),
		cmocka_unit_test(fmu_print__window_json__valid_with_keys),
		cmocka_unit_test(fmu_print__json_strings_and_nulls__escaped),
		cmocka_unit_test(fmu_read__built_fmus__described_as_specified),
		cmocka_unit_test(window_fmu__step__outputs_follow_formula),
		cmocka_unit_test(window_fmu__parameters_and_instances__independent),
		cmocka_unit_test(window_fmu__input_derivatives__interpolated_over_the_step),
		cmocka_unit_test(obstacle_fmu__step__force_only_beyond_contact),
		cmocka_unit_test(window_fmu__state_round_trip__same_outputs),
		cmocka_unit_test(window_fmu__wrong_state_calls__error_and_log),
		cmocka_unit_test(window_fmu__bad_references_and_unsupported__error_and_log),
		cmocka_unit_test(fmu_kit__discarded_step__stops_at_reached_time),
		cmocka_unit_test(fmu_kit__input_derivative__integrated_exactly),
		cmocka_unit_test(fmu_kit__integer_boolean_string__stored_and_checked),
		cmocka_unit_test(fmu_kit__model_error__instance_in_error_state),
	};
	int failed = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
	xmlCleanupParser();
	return failed;
}
