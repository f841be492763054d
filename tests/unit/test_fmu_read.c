/* test_fmu_read.c — the model-description reader (compiler/check/fmu_read.c) on the FMI 2.0 and
 * FMI 3.0 fixtures of tests/unit/data/, the paper's classification of FMUs, and every
 * error it reports: malformed or hostile XML, broken limits, schema violations.
 *
 * The archive side (fmu_open) and the printers are in test_fmu_open.c; the test FMUs,
 * loaded and stepped, in test_fmu_kit.c. */
#include "fmu_read_test.h"

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
	assert_int_equal(f->types[1].nitems, 2);
	assert_string_equal(f->types[1].items[0].name, "off");
	assert_int_equal(f->types[1].items[0].value, 0);
	assert_string_equal(f->types[1].items[1].name, "on");
	assert_int_equal(f->types[1].items[1].value, 1);
	assert_int_equal(f->types[0].nitems, 0);
	assert_ptr_equal(fmu_find_type(f, "Mode"), &f->types[1]);
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

/* FMI 3.0 String and Binary start values are <Start> elements, one per element of an
 * array: all kept, NUL-separated, in row-major order (tests/fmus3/strarr3). */
static void fmu_read__fmi3_start_elements__every_one_kept(void **state)
{
	(void)state;
	FmuInfo *f = open_ok("tests/fmus3/strarr3/modelDescription.xml");
	const FmuVar *s = var(f, "s_in"), *b = var(f, "b_in"), *b1 = var(f, "b1_in");
	assert_int_equal(s->nstarts, 3);
	assert_memory_equal(s->start, "a\0b\0c\0", 6);
	assert_int_equal(b->nstarts, 2);
	assert_memory_equal(b->start, "00ff\0\0", 6); /* the second is empty */
	assert_int_equal(b1->nstarts, 1);
	assert_string_equal(b1->start, "0a1b");
	assert_int_equal(var(f, "x")->nstarts, 0); /* a start attribute */
	assert_string_equal(var(f, "x")->start, "0");
	assert_null(var(f, "s_out")->start);
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
	assert_int_equal(f->types[1].nitems, 2);
	assert_string_equal(f->types[1].items[1].name, "high");
	assert_int_equal(f->types[1].items[1].value, 2);
	assert_null(f->types[1].items[1].description);
	assert_null(fmu_find_type(f, "Nope"));
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
	                       "  <ScalarVariable name='u' valueReference='1' causality='input'>"
	                       "<Real start='0'/></ScalarVariable>\n"
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

/* Outputs that depend on every input, of an FMU with none (as the Reference FMUs' VanDerPol
 * declares them): nothing feeds through, so moore. */
static void fmu_read__no_inputs_no_dependencies__moore(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str("<fmiModelDescription fmiVersion='3.0' modelName='m' "
	                       "instantiationToken='t'>\n"
	                       "<CoSimulation modelIdentifier='m'/>\n"
	                       "<ModelVariables>\n"
	                       "  <Float64 name='time' valueReference='0' causality='independent'/>\n"
	                       "  <Float64 name='x' valueReference='1' causality='output'/>\n"
	                       "</ModelVariables>\n"
	                       "<ModelStructure><Output valueReference='1'/></ModelStructure>\n"
	                       "</fmiModelDescription>\n",
	                       &c);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	assert_false(output(f, "x")->deps_given);
	assert_false(f->is_mealy);
	fmu_free(f);
	cap_close(&c);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void fmu_read__enumeration_item_not_an_integer__error_at_the_item(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str("<fmiModelDescription fmiVersion='3.0' modelName='m' "
	                       "instantiationToken='t'>\n"
	                       "<CoSimulation modelIdentifier='m'/>\n"
	                       "<TypeDefinitions><EnumerationType name='E'>\n"
	                       "  <Item name='a' value='1'/><Item name='b' value='two'/>\n"
	                       "</EnumerationType></TypeDefinitions>\n"
	                       "<ModelVariables/><ModelStructure/>\n"
	                       "</fmiModelDescription>\n",
	                       &c);
	assert_null(f);
	assert_non_null(strstr(cap_text(&c), "inline.xml:4:"));
	assert_non_null(strstr(cap_text(&c), "error: item 'b' of type 'E' has value 'two', not an "
	                                     "integer"));
	cap_close(&c);
}

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

static void fmu_read__fmi3_arrays__sizes_from_structural_parameters(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='m' instantiationToken='t'>\n"
		"<CoSimulation modelIdentifier='m'/>\n"
		"<ModelVariables>\n"
		"<UInt64 name='n' valueReference='1' causality='structuralParameter' "
		"variability='fixed' start='3'/>\n"
		"<Float64 name='u' valueReference='2' causality='input' start='0 0 0'>"
		"<Dimension valueReference='1'/></Float64>\n"
		"<Float64 name='y' valueReference='3' causality='output'>"
		"<Dimension valueReference='1'/><Dimension start='2'/></Float64>\n"
		"<Float32 name='s' valueReference='4' causality='output'/>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Output valueReference='3' dependencies='2'/>"
		"<Output valueReference='4' dependencies=''/>"
		"<InitialUnknown valueReference='3' dependencies='2'/>"
		"<InitialUnknown valueReference='4'/></ModelStructure>\n"
		"</fmiModelDescription>\n",
		&c);
	assert_non_null(f);
	assert_string_equal(cap_text(&c), "");
	const FmuVar *u = var(f, "u"), *y = var(f, "y"), *s = var(f, "s");
	assert_int_equal(u->ndims, 1);
	assert_int_equal(u->dims[0].var, var_index(f, "n"));
	assert_int_equal(u->dims[0].size, 3);
	assert_int_equal(u->nelems, 3);
	assert_int_equal(y->ndims, 2);
	assert_int_equal(y->dims[1].start, 2);
	assert_int_equal(y->nelems, 6);
	assert_int_equal(s->nelems, 1);
	char buf[64];
	assert_string_equal(fmu_var_unsupported(y, buf, sizeof buf), "an array of 6 Float64");
	assert_null(fmu_var_unsupported(s, buf, sizeof buf));
	assert_int_equal(f->ninitial_unknowns, 2);
	assert_int_equal(f->initial_unknowns[0].var, var_index(f, "y"));
	assert_true(f->initial_unknowns[0].deps_given);
	assert_int_equal(f->initial_unknowns[0].ndeps, 1);
	assert_int_equal(f->initial_unknowns[0].deps[0], var_index(f, "u"));
	assert_false(f->initial_unknowns[1].deps_given);
	char *table = print_to_string(fmu_print_table, f);
	assert_contains(table, "Float64[3,2]");
	free(table);
	char *json = print_to_string(fmu_print_json, f);
	assert_true(json_valid(json));
	assert_contains(json, "\"dimensions\": [3, 2]");
	free(json);
	fmu_free(f);
	cap_close(&c);
}

/* Clock variables: each attribute as written, a <ClockType>'s under a clock's own, the
 * clocks="" of clocked variables resolved to the clocks, and the <ScheduledExecution>
 * element's capabilities; the FMU is still unusable until sacc runs it. */
static const char clocks_xml[] =
	"<fmiModelDescription fmiVersion='3.0' modelName='clk' instantiationToken='t'>\n"
	"<ScheduledExecution modelIdentifier='clkse' canGetAndSetFMUState='true' "
	"providesAdjointDerivatives='true'/>\n"
	"<TypeDefinitions><ClockType name='Slow' intervalVariability='fixed' "
	"intervalCounter='3' resolution='2' shiftCounter='1' priority='7'/></TypeDefinitions>\n"
	"<ModelVariables>\n"
	"<Clock name='per' valueReference='1' causality='input' intervalVariability='constant' "
	"intervalDecimal='0.25' shiftDecimal='0.125' priority='0' supportsFraction='true'/>\n"
	"<Clock name='slow' valueReference='2' causality='input' declaredType='Slow' "
	"canBeDeactivated='true'/>\n"
	"<Clock name='cd' valueReference='3' causality='input' intervalVariability='countdown' "
	"priority='2'/>\n"
	"<Clock name='out' valueReference='4' causality='output' intervalVariability='triggered' "
	"clocks='1 3'/>\n"
	"<Int32 name='n' valueReference='5' causality='output' clocks='3 1'/>\n"
	"</ModelVariables>\n"
	"<ModelStructure><Output valueReference='4'/><Output valueReference='5'/></ModelStructure>\n"
	"</fmiModelDescription>\n";

static void fmu_read__fmi3_clocks__attributes_types_and_clocked_variables(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = fmu_parse_md_any(clocks_xml, sizeof clocks_xml - 1, "inline.xml", c.d);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	assert_int_equal(f->nclocks, 4);
	assert_true(f->has_scheduled_execution);
	assert_string_equal(f->se.model_identifier, "clkse");
	assert_string_equal(f->model_identifier, "clkse");
	assert_true(f->se.can_get_and_set_fmu_state);
	assert_false(f->se.can_serialize_fmu_state);
	assert_true(f->se.provides_adjoint_derivatives);

	const FmuVar *per = var(f, "per"), *slow = var(f, "slow"), *cd = var(f, "cd");
	const FmuVar *out = var(f, "out"), *n = var(f, "n");
	assert_int_equal(per->clock.interval_variability, IV_CONSTANT);
	assert_true(fmu_clock_periodic(&per->clock));
	assert_near(fmu_clock_interval(&per->clock), 0.25, 0);
	assert_near(fmu_clock_shift(&per->clock), 0.125, 0);
	assert_true(per->clock.supports_fraction);
	assert_true(per->clock.has_priority);
	assert_int_equal(per->clock.priority, 0);
	/* from the type: 3 counts of 1/2 s, shifted by one count, priority 7 */
	assert_int_equal(slow->clock.interval_variability, IV_FIXED);
	assert_near(fmu_clock_interval(&slow->clock), 1.5, 0);
	assert_near(fmu_clock_shift(&slow->clock), 0.5, 0);
	assert_int_equal(slow->clock.priority, 7);
	assert_true(slow->clock.can_be_deactivated);
	assert_int_equal(cd->clock.interval_variability, IV_COUNTDOWN);
	assert_false(fmu_clock_periodic(&cd->clock));
	assert_true(isnan(fmu_clock_interval(&cd->clock)));
	assert_int_equal(out->causality, CAUS_OUTPUT);
	assert_int_equal(out->clock.interval_variability, IV_TRIGGERED);
	assert_false(out->clock.has_priority);
	assert_int_equal(out->nclocks, 2);
	assert_string_equal(f->vars[out->clocks[0]].name, "per");
	assert_string_equal(f->vars[out->clocks[1]].name, "cd");
	assert_int_equal(n->nclocks, 2);
	assert_string_equal(f->vars[n->clocks[0]].name, "cd");
	assert_int_equal(per->nclocks, 0);

	char *t = print_to_string(fmu_print_table, f);
	assert_contains(t, "\nscheduled execution\n  modelIdentifier  ");
	assert_contains(t, "\nclocks (4)\n");
	assert_contains(t, "  per   input      constant             0.25      0.125  0         "
	                   "out, n\n");
	assert_contains(t, "  slow  input      fixed                1.5       0.5    7         "
	                   "(none)\n");
	assert_contains(t, "  cd    input      countdown            -         -      2         "
	                   "out, n\n");
	free(t);
	char *j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"scheduledExecutionInterface\": {\n    \"modelIdentifier\": "
	                   "\"clkse\"");
	assert_contains(j, "\"clock\": {\n        \"intervalVariability\": \"fixed\",\n"
	                   "        \"interval\": 1.5,\n        \"shift\": 0.5,\n"
	                   "        \"resolution\": 2,");
	assert_contains(j, "\"clocks\": [\"cd\", \"per\"]");
	free(j);
	fmu_free(f);
	cap_close(&c);
}

/* What is wrong with a clock is said at its element. */
static void fmu_read__fmi3_bad_clocks__reported_at_the_element(void **state)
{
	(void)state;
	static const char xml[] =
		"<fmiModelDescription fmiVersion='3.0' modelName='m' instantiationToken='t'>\n"
		"<CoSimulation modelIdentifier='m'/>\n"
		"<ModelVariables>\n"
		"<Clock name='a' valueReference='1' causality='input'/>\n"
		"<Clock name='b' valueReference='2' causality='input' intervalVariability='often'/>\n"
		"<Clock name='c' valueReference='3' causality='parameter' "
		"intervalVariability='constant' intervalDecimal='-1'/>\n"
		"<Int32 name='y' valueReference='4' causality='output' clocks='1 4 9'/>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Output valueReference='4'/></ModelStructure>\n"
		"</fmiModelDescription>\n";
	Capture c;
	cap_open(&c);
	assert_null(fmu_parse_md_any(xml, sizeof xml - 1, "inline.xml", c.d));
	assert_string_equal(cap_text(&c),
	                    "inline.xml:4:1: error: clock 'a' lacks the required attribute "
	                    "'intervalVariability'\n"
	                    "inline.xml:5:1: error: unknown intervalVariability 'often' of clock 'b' "
	                    "(constant, fixed, tunable, changing, countdown or triggered)\n"
	                    "inline.xml:6:1: error: clock 'c' has the interval -1: a periodic "
	                    "clock's must be positive\n"
	                    "inline.xml:6:1: error: clock 'c' has causality parameter: a clock is an "
	                    "input, an output or local\n"
	                    "inline.xml:7:1: error: clocks of 'y' names 'y', which is not a Clock\n"
	                    "inline.xml:7:1: error: clocks of 'y' names valueReference 9, which no "
	                    "variable has\n");
	cap_close(&c);
}

static void fmu_read__fmi3_clocks_without_event_mode__refused_by_name(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	assert_null(parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='m' instantiationToken='t'>\n"
		"<CoSimulation modelIdentifier='m'/>\n"
		"<ModelVariables>\n"
		"<Clock name='tick' valueReference='1' causality='input' intervalVariability='constant'/>\n"
		"<Float64 name='y' valueReference='2' causality='output'>"
		"<Dimension valueReference='9'/></Float64>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Output valueReference='2'/></ModelStructure>\n"
		"</fmiModelDescription>\n",
		&c));
	assert_string_equal(cap_text(&c),
	                    "inline.xml:5:1: error: a <Dimension> of variable 'y' names "
	                    "valueReference 9, which no variable has\n"
	                    "inline.xml:4:1: error: variable 'tick' is a Clock: its Co-Simulation "
	                    "interface has no Event Mode, where clocks tick (hasEventMode)\n");
	cap_close(&c);
	/* a Model Exchange FMU's clocks tick in its Event Mode: read, not refused */
	cap_open(&c);
	FmuInfo *me = parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='mc' instantiationToken='t'>\n"
		"<ModelExchange modelIdentifier='mc'/>\n"
		"<ModelVariables>\n"
		"<Clock name='tick' valueReference='1' causality='input' intervalVariability='constant' "
		"intervalDecimal='0.5'/>\n"
		"</ModelVariables>\n"
		"</fmiModelDescription>\n",
		&c);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(me);
	assert_null(me->unusable);
	assert_true(fmu_me_by_default(me));
	fmu_free(me);
	cap_close(&c);
	/* an FMU offering Scheduled Execution only is run through it */
	cap_open(&c);
	FmuInfo *f = parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='se' instantiationToken='t'>\n"
		"<ScheduledExecution modelIdentifier='se'/>\n"
		"<ModelVariables/>\n"
		"</fmiModelDescription>\n",
		&c);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	assert_null(f->unusable);
	assert_true(fmu_se_by_default(f));
	assert_false(fmu_me_by_default(f));
	assert_string_equal(f->model_identifier, "se");
	fmu_free(f);
	cap_close(&c);
}

static void fmu_read__unsupported_version__error(void **state)
{
	(void)state;
	expect_open(DATA "unsupported_version.xml", false,
	            DATA "unsupported_version.xml:2:1: error: unsupported fmiVersion '1.0': sacc "
	            "reads FMI 2.0 and FMI 3.0\n");
}

static void fmu_read__no_interface__error(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	assert_null(parse_str("<fmiModelDescription fmiVersion='2.0' modelName='none' guid='g'>\n"
	                      "<ModelVariables/>\n</fmiModelDescription>\n", &c));
	assert_string_equal(cap_text(&c),
	                    "inline.xml:1:1: error: model 'none' has neither <CoSimulation> nor "
	                    "<ModelExchange>: sacc handles Co-Simulation and Model Exchange FMUs\n");
	cap_close(&c);
}

/* ---- Model Exchange --------------------------------------------------------------------- */

/* An FMU offering Model Exchange only is read as one sacc runs through that interface:
 * its identifier is the library's. */
static void fmu_read__model_exchange_only__run_as_model_exchange(void **state)
{
	(void)state;
	FmuInfo *f = open_ok(DATA "no_cosim.xml");
	assert_false(f->has_cosim);
	assert_true(f->has_model_exchange);
	assert_null(f->unusable);
	assert_true(fmu_me_by_default(f));
	assert_string_equal(f->me.model_identifier, "me");
	assert_string_equal(fmu_identifier(f, true), "me");
	assert_string_equal(f->model_identifier, "me");
	assert_int_equal(f->me.nstates, 0);
	assert_int_equal(f->me.nevent_indicators, 0);
	fmu_free(f);
}

/* FMI 2.0: both interfaces, each with its own identifier and abilities; the states in
 * <Derivatives> order (not the variables'), numberOfEventIndicators. */
static const char me2_xml[] =
	"<fmiModelDescription fmiVersion='2.0' modelName='osc' guid='g' "
	"numberOfEventIndicators='3'>\n"
	"<CoSimulation modelIdentifier='osc_cs' canGetAndSetFMUstate='false'/>\n"
	"<ModelExchange modelIdentifier='osc_me' canGetAndSetFMUstate='true' "
	"completedIntegratorStepNotNeeded='true' providesDirectionalDerivative='true' "
	"canBeInstantiatedOnlyOncePerProcess='true'/>\n"
	"<ModelVariables>\n"
	"<ScalarVariable name='x' valueReference='10' causality='output'><Real start='1'/>"
	"</ScalarVariable>\n"
	"<ScalarVariable name='v' valueReference='11' causality='output'><Real start='0'/>"
	"</ScalarVariable>\n"
	"<ScalarVariable name='der(v)' valueReference='12'><Real derivative='2'/>"
	"</ScalarVariable>\n"
	"<ScalarVariable name='der(x)' valueReference='13'><Real derivative='1'/>"
	"</ScalarVariable>\n"
	"</ModelVariables>\n"
	"<ModelStructure><Outputs><Unknown index='1'/><Unknown index='2'/></Outputs>\n"
	"<Derivatives><Unknown index='4' dependencies='2'/><Unknown index='3' dependencies='1'/>"
	"</Derivatives></ModelStructure>\n"
	"</fmiModelDescription>\n";

static void fmu_read__me2_description__states_and_capabilities(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str(me2_xml, &c);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	assert_false(fmu_me_by_default(f)); /* both: Co-Simulation unless told */
	assert_string_equal(f->model_identifier, "osc_cs");
	assert_string_equal(fmu_identifier(f, false), "osc_cs");
	assert_string_equal(fmu_identifier(f, true), "osc_me");
	assert_false(f->can_get_and_set_fmu_state);
	assert_false(f->can_be_instantiated_only_once_per_process);
	assert_true(f->me.can_get_and_set_fmu_state);
	assert_true(f->me.provides_directional_derivative);
	assert_true(f->me.can_be_instantiated_only_once_per_process);
	assert_false(f->me.needs_completed_integrator_step);
	assert_int_equal(f->me.nstates, 2);
	assert_int_equal(f->me.nstate_elems, 2);
	assert_true(f->me.scalar_states);
	/* <Derivatives> lists der(x) first: x is state 0, v state 1 */
	assert_int_equal(f->me.states[0].state, var_index(f, "x"));
	assert_int_equal(f->me.states[0].derivative, var_index(f, "der(x)"));
	assert_int_equal(f->me.states[1].state, var_index(f, "v"));
	assert_int_equal(f->me.states[1].derivative, var_index(f, "der(v)"));
	assert_int_equal(f->me.nevent_indicators, 3);
	assert_null(f->me.event_indicators);
	fmu_free(f);
	cap_close(&c);
}

/* FMI 3.0: <ContinuousStateDerivative> by value reference, an array state counted by its
 * elements, <EventIndicator>s counted, needsCompletedIntegratorStep as written. */
static void fmu_read__me3_description__states_and_indicators(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	FmuInfo *f = parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='arr' instantiationToken='t'>\n"
		"<ModelExchange modelIdentifier='arr' needsCompletedIntegratorStep='true' "
		"canGetAndSetFMUState='true'/>\n"
		"<ModelVariables>\n"
		"<Float64 name='h' valueReference='1' causality='output' start='1'/>\n"
		"<Float64 name='der(h)' valueReference='2' derivative='1'/>\n"
		"<Float64 name='q' valueReference='3' causality='output' start='0 0 0'>"
		"<Dimension start='3'/></Float64>\n"
		"<Float64 name='der(q)' valueReference='4' derivative='3'>"
		"<Dimension start='3'/></Float64>\n"
		"<Float64 name='z' valueReference='5'/>\n"
		"<Float64 name='zz' valueReference='6'><Dimension start='2'/></Float64>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Output valueReference='1'/><Output valueReference='3'/>\n"
		"<ContinuousStateDerivative valueReference='2'/>\n"
		"<ContinuousStateDerivative valueReference='4'/>\n"
		"<EventIndicator valueReference='5'/><EventIndicator valueReference='6'/>\n"
		"</ModelStructure>\n"
		"</fmiModelDescription>\n", &c);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	assert_true(fmu_me_by_default(f));
	assert_true(f->me.needs_completed_integrator_step);
	assert_true(f->me.can_get_and_set_fmu_state);
	assert_int_equal(f->me.nstates, 2);
	assert_int_equal(f->me.nstate_elems, 1 + 3);
	assert_false(f->me.scalar_states);
	assert_int_equal(f->me.states[1].state, var_index(f, "q"));
	assert_int_equal(f->me.nevent_indicator_vars, 2);
	assert_int_equal(f->me.event_indicators[0], var_index(f, "z"));
	assert_int_equal(f->me.nevent_indicators, 1 + 2);
	fmu_free(f);
	cap_close(&c);
}

/* Inconsistent Model Exchange descriptions: each mistake at its element's line. */
static void fmu_read__inconsistent_me_structure__errors_with_lines(void **state)
{
	(void)state;
	static const struct {
		const char *vars, *structure, *root_attrs, *diags;
	} cases[] = {
		{"<ScalarVariable name='x' valueReference='0'><Real/></ScalarVariable>\n"
		 "<ScalarVariable name='y' valueReference='1'><Real/></ScalarVariable>\n",
		 "<Derivatives><Unknown index='2'/></Derivatives>", "",
		 "inline.xml:7:30: error: <Unknown> lists 'y' as a state derivative, but it has no "
		 "'derivative' attribute naming its state\n"
		 "inline.xml:5:1: note: 'y' is declared here\n"},
		{"<ScalarVariable name='x' valueReference='0'><Real/></ScalarVariable>\n"
		 "<ScalarVariable name='dx' valueReference='1'><Real derivative='1'/></ScalarVariable>\n",
		 "<Derivatives><Unknown index='7'/></Derivatives>", "",
		 "inline.xml:7:30: error: <Unknown> index 7 is out of range (the model has 2 "
		 "variables)\n"},
		{"<ScalarVariable name='x' valueReference='0'><Real/></ScalarVariable>\n"
		 "<ScalarVariable name='dx' valueReference='1'><Real derivative='1'/></ScalarVariable>\n",
		 "<Derivatives><Unknown index='2'/><Unknown index='2'/></Derivatives>", "",
		 "inline.xml:7:50: error: state derivative 'dx' is listed twice in "
		 "<ModelStructure>\n"},
		{"<ScalarVariable name='x' valueReference='0'><Real/></ScalarVariable>\n"
		 "<ScalarVariable name='dx' valueReference='1'><Real derivative='1'/></ScalarVariable>\n",
		 "", "",
		 "inline.xml:5:1: error: 'dx' is the derivative of 'x', but <ModelStructure>"
		 "<Derivatives> does not list it: a Model Exchange FMU lists every state derivative "
		 "there\n"},
		{"<ScalarVariable name='x' valueReference='0'><Real/></ScalarVariable>\n"
		 "<ScalarVariable name='n' valueReference='1'><Integer/></ScalarVariable>\n",
		 "", " numberOfEventIndicators='-1'",
		 "inline.xml:1:1: error: attribute 'numberOfEventIndicators' of "
		 "<fmiModelDescription> must be an unsigned integer up to 2147483647, not '-1'\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char xml[2048];
		snprintf(xml, sizeof xml,
		         "<fmiModelDescription fmiVersion='2.0' modelName='m' guid='g'%s>\n"
		         "<ModelExchange modelIdentifier='m'/>\n"
		         "<ModelVariables>\n%s</ModelVariables>\n"
		         "<ModelStructure>%s</ModelStructure>\n"
		         "</fmiModelDescription>\n",
		         cases[i].root_attrs, cases[i].vars, cases[i].structure);
		Capture c;
		cap_open(&c);
		assert_null(parse_str(xml, &c));
		assert_string_equal(cap_text(&c), cases[i].diags);
		cap_close(&c);
	}
	/* FMI 3.0: an event indicator must be a float */
	Capture c;
	cap_open(&c);
	assert_null(parse_str(
		"<fmiModelDescription fmiVersion='3.0' modelName='m' instantiationToken='t'>\n"
		"<ModelExchange modelIdentifier='m'/>\n"
		"<ModelVariables><Int32 name='k' valueReference='4'/></ModelVariables>\n"
		"<ModelStructure><EventIndicator valueReference='4'/></ModelStructure>\n"
		"</fmiModelDescription>\n", &c));
	assert_string_equal(cap_text(&c), "inline.xml:4:17: error: event indicator 'k' is an "
	                                  "Int32, not a float\n");
	cap_close(&c);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmu_read__fmi2_fixture__header_and_capabilities),
		cmocka_unit_test(fmu_read__fmi2_fixture__variables),
		cmocka_unit_test(fmu_read__fmi2_fixture__units_and_types),
		cmocka_unit_test(fmu_read__fmi2_fixture__output_dependencies),
		cmocka_unit_test(fmu_read__fmi3_fixture__header_and_capabilities),
		cmocka_unit_test(fmu_read__fmi3_fixture__variables_and_types),
		cmocka_unit_test(fmu_read__fmi3_start_elements__every_one_kept),
		cmocka_unit_test(fmu_read__fmi3_fixture__dependencies_by_value_reference),
		cmocka_unit_test(fmu_read__output_depends_on_input__delayed_mealy),
		cmocka_unit_test(fmu_read__outputs_depend_on_state_only__reactive_moore),
		cmocka_unit_test(fmu_read__no_dependencies_declared__mealy),
		cmocka_unit_test(fmu_read__fmi3_state_outputs__delayed_moore),
		cmocka_unit_test(fmu_read__no_outputs__moore),
		cmocka_unit_test(fmu_read__output_not_in_structure__warned_and_mealy),
		cmocka_unit_test(fmu_read__no_inputs_no_dependencies__moore),
		cmocka_unit_test(fmu_read__enumeration_item_not_an_integer__error_at_the_item),
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
		cmocka_unit_test(fmu_read__fmi3_arrays__sizes_from_structural_parameters),
		cmocka_unit_test(fmu_read__fmi3_clocks__attributes_types_and_clocked_variables),
		cmocka_unit_test(fmu_read__fmi3_bad_clocks__reported_at_the_element),
		cmocka_unit_test(fmu_read__fmi3_clocks_without_event_mode__refused_by_name),
		cmocka_unit_test(fmu_read__unsupported_version__error),
		cmocka_unit_test(fmu_read__no_interface__error),
		cmocka_unit_test(fmu_read__model_exchange_only__run_as_model_exchange),
		cmocka_unit_test(fmu_read__me2_description__states_and_capabilities),
		cmocka_unit_test(fmu_read__me3_description__states_and_indicators),
		cmocka_unit_test(fmu_read__inconsistent_me_structure__errors_with_lines),
		cmocka_unit_test(fmu_read__wrong_root_and_empty__errors),
		cmocka_unit_test(fmu_read__missing_file__error),
		cmocka_unit_test(fmu_read__truncated_and_corrupted_input__reported_not_crashed),
	};
	int failed = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
	xmlCleanupParser();
	return failed;
}
