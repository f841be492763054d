/* test_fmu_open.c — fmu_open (compiler/check/fmu_open.c) on zip archives written on the spot,
 * including broken and lying ones; the printers of `sacc inspect` (compiler/check/fmu_print.c);
 * and the built test FMUs described as their sources specify. */
#include "fmu_read_test.h"

/* ---- archives --------------------------------------------------------------------------- */

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

/* FMUs sacc can read but neither simulate nor wrap, each as an archive: what `sacc inspect`
 * shows of them (fmu_open_any), and the error fmu_open, which build and simulate use, still
 * gives. */
typedef struct Unusable {
	const char *name, *xml;
	const char *interfaces; /* the table's line */
	const char *reason;     /* after "sacc cannot simulate or wrap this FMU: " */
	const char *refusal;    /* fmu_open's errors, %s the archive (given twice) */
	int nclocks;
} Unusable;

static const Unusable unusable[] = {
	{"clocked3.fmu",
	 "<fmiModelDescription fmiVersion='3.0' modelName='clocked3' instantiationToken='{t}'>\n"
	 "<CoSimulation modelIdentifier='clocked3'/>\n"
	 "<ModelExchange modelIdentifier='clocked3'/>\n"
	 "<ScheduledExecution modelIdentifier='clocked3'/>\n"
	 "<ModelVariables>\n"
	 "<Clock name='tick' valueReference='1' causality='input' intervalVariability='constant'/>\n"
	 "<Float64 name='y' valueReference='2' causality='output' variability='discrete' "
	 "clocks='1' initial='exact' start='0.5'/>\n"
	 "</ModelVariables>\n"
	 "<ModelStructure><Output valueReference='2' dependencies=''/></ModelStructure>\n"
	 "</fmiModelDescription>\n",
	 "  interfaces           Co-Simulation, Model Exchange, Scheduled Execution\n",
	 "it has Clock variables but no Event Mode (hasEventMode)",
	 "%s:modelDescription.xml:6:1: error: variable 'tick' is a Clock: its Co-Simulation "
	 "interface has no Event Mode, where clocks tick (hasEventMode)\n", 1},
};

/* An FMU offering Scheduled Execution only is run through it: inspect says so, and
 * fmu_open (build, simulate) takes it. */
static void fmu_print__scheduled_execution_only__run_through_it(void **state)
{
	(void)state;
	static const char xml[] =
		"<fmiModelDescription fmiVersion='3.0' modelName='se3' instantiationToken='{t}'>\n"
		"<ScheduledExecution modelIdentifier='se3'/>\n"
		"<ModelVariables>\n"
		"<Clock name='tick' valueReference='1' causality='input' intervalVariability='fixed' "
		"intervalDecimal='0.5'/>\n"
		"</ModelVariables>\n"
		"</fmiModelDescription>\n";
	char path[128];
	tmp_path(path, sizeof path, "se3.fmu");
	write_zip(path, "modelDescription.xml", xml, strlen(xml));
	Capture c;
	cap_open(&c);
	FmuInfo *f = fmu_open(path, c.d);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
	assert_non_null(f);
	assert_null(f->unusable);
	char *t = print_to_string(fmu_print_table, f);
	assert_contains(t, "  interfaces           Scheduled Execution\n");
	assert_contains(t, "  sacc runs it as      Scheduled Execution, its partitions activated by "
	                   "sacc at their clocks' ticks\n");
	assert_contains(t, "  tick  input      fixed                0.5       0      -         "
	                   "(none)\n");
	assert_null(strstr(t, "cannot simulate"));
	free(t);
	char *j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"runsAs\": \"Scheduled Execution\"");
	free(j);
	fmu_free(f);
	remove(path);
}

static void fmu_print__unusable_fmus__described_with_the_reason(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++) {
		const Unusable *u = &unusable[i];
		char path[128], want[512];
		tmp_path(path, sizeof path, u->name);
		write_zip(path, "modelDescription.xml", u->xml, strlen(u->xml));

		Capture c;
		cap_open(&c);
		FmuInfo *f = fmu_open_any(path, c.d);
		assert_string_equal(cap_text(&c), "");
		cap_close(&c);
		assert_non_null(f);
		assert_int_equal(f->nclocks, u->nclocks);
		assert_string_equal(f->unusable, u->reason);
		char *t = print_to_string(fmu_print_table, f);
		assert_contains(t, u->interfaces);
		snprintf(want, sizeof want, "\nsacc cannot simulate or wrap this FMU: %s\n", u->reason);
		assert_contains(t, want);
		if (u->nclocks) {
			assert_contains(t, "  clocks               1\n");
			assert_contains(t, "  tick   1  Clock");
		}
		free(t);
		char *j = print_to_string(fmu_print_json, f);
		assert_true(json_valid(j));
		snprintf(want, sizeof want, "\"unusable\": \"%s\"", u->reason);
		assert_contains(j, want);
		free(j);
		fmu_free(f);

		/* what build and simulate read it with: the error they always gave */
		snprintf(want, sizeof want, u->refusal, path, path);
		expect_open(path, false, want);
		remove(path);
	}

	/* an FMU sacc can run says nothing of the kind */
	FmuInfo *f = open_built("fmus/window.fmu");
	assert_null(f->unusable);
	char *t = print_to_string(fmu_print_table, f);
	assert_null(strstr(t, "sacc cannot"));
	assert_contains(t, "  interfaces           Co-Simulation\n");
	free(t);
	fmu_free(f);
}

/* A Model Exchange FMU, in an archive: build and simulate read it now (fmu_open), and
 * `sacc inspect` says which interface sacc runs and what changes it, with the Model
 * Exchange element's own capabilities and sizes. */
static void fmu_print__model_exchange__interface_sizes_and_choice(void **state)
{
	(void)state;
	static const char me_only[] =
		"<fmiModelDescription fmiVersion='2.0' modelName='me2' guid='{g}' "
		"numberOfEventIndicators='1'>\n"
		"<ModelExchange modelIdentifier='me2' canGetAndSetFMUstate='true'/>\n"
		"<ModelVariables>\n"
		"<ScalarVariable name='h' valueReference='0' causality='output' "
		"variability='continuous' initial='exact'><Real start='10'/></ScalarVariable>\n"
		"<ScalarVariable name='der(h)' valueReference='1'><Real derivative='1'/>"
		"</ScalarVariable>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Outputs><Unknown index='1'/></Outputs>"
		"<Derivatives><Unknown index='2'/></Derivatives></ModelStructure>\n"
		"</fmiModelDescription>\n";
	char path[128];
	tmp_path(path, sizeof path, "me2.fmu");
	write_zip(path, "modelDescription.xml", me_only, strlen(me_only));
	FmuInfo *f = open_ok(path);
	assert_null(f->unusable);
	char *t = print_to_string(fmu_print_table, f);
	assert_contains(t, "  interfaces           Model Exchange\n"
	                   "  sacc runs it as      Model Exchange, integrated by sacc (--solver, "
	                   "--me-tolerance)\n");
	assert_contains(t, "\nmodel exchange\n"
	                   "  modelIdentifier                      me2\n"
	                   "  continuous states                    1\n"
	                   "  event indicators                     1\n");
	assert_contains(t, "  canGetAndSetFMUstate                 true\n");
	assert_null(strstr(t, "co-simulation capabilities"));
	assert_null(strstr(t, "sacc cannot"));
	free(t);
	char *j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"coSimulation\": null");
	assert_contains(j, "\"modelExchangeInterface\": {\n    \"modelIdentifier\": \"me2\",\n"
	                   "    \"continuousStates\": 1,\n    \"eventIndicators\": 1,");
	assert_contains(j, "\"runsAs\": \"Model Exchange\"");
	free(j);
	fmu_free(f);
	remove(path);

	/* both interfaces: Co-Simulation, and how to choose the other */
	f = open_ok(DATA "fmi2_full.xml");
	assert_true(f->has_cosim && f->has_model_exchange);
	t = print_to_string(fmu_print_table, f);
	assert_contains(t, "  sacc runs it as      Co-Simulation; Model Exchange with `sacc "
	                   "simulate --interface me`, or `with model exchange` on its inner fmu in "
	                   "a script\n");
	assert_contains(t, "co-simulation capabilities");
	assert_contains(t, "\nmodel exchange\n");
	free(t);
	j = print_to_string(fmu_print_json, f);
	assert_true(json_valid(j));
	assert_contains(j, "\"runsAs\": \"Co-Simulation\"");
	free(j);
	fmu_free(f);

	/* Co-Simulation only: no Model Exchange section */
	f = open_built("fmus/window.fmu");
	t = print_to_string(fmu_print_table, f);
	assert_contains(t, "  sacc runs it as      Co-Simulation\n");
	assert_null(strstr(t, "model exchange"));
	free(t);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmu_open__zip_archive__read_and_named),
		cmocka_unit_test(fmu_open__not_a_zip__error),
		cmocka_unit_test(fmu_open__no_model_description__error),
		cmocka_unit_test(fmu_open__entry_too_big__error),
		cmocka_unit_test(fmu_open__crc_mismatch__error),
		cmocka_unit_test(fmu_print__window_table__summary_and_columns),
		cmocka_unit_test(fmu_print__window_json__valid_with_keys),
		cmocka_unit_test(fmu_print__json_strings_and_nulls__escaped),
		cmocka_unit_test(fmu_print__scheduled_execution_only__run_through_it),
		cmocka_unit_test(fmu_print__unusable_fmus__described_with_the_reason),
		cmocka_unit_test(fmu_print__model_exchange__interface_sizes_and_choice),
		cmocka_unit_test(fmu_read__built_fmus__described_as_specified),
	};
	int failed = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
	xmlCleanupParser();
	return failed;
}
