/* test_simulate_me.c — `sacc simulate` and Model Exchange FMUs, as users run it: which
 * interface each FMU runs through (its only one, Co-Simulation when it offers both,
 * --interface's choice for all or one instance), as --explain reports it, and the usage
 * errors of --interface, --solver, --me-tolerance and --me-max-step.  The descriptions are
 * bare modelDescription.xml files named by a scenario module: --explain reads them and
 * loads nothing, so these tests need no Model Exchange binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

static int setup(void **state)
{
	if (sim_setup(state, "test_simulate_me"))
		return -1;
	Ctx *c = *state;
	/* one state x' = -x; Model Exchange only, then both interfaces with two libraries */
	static const char vars[] =
		"<ModelVariables>\n"
		"<ScalarVariable name='x' valueReference='0' causality='output' "
		"variability='continuous' initial='exact'><Real start='1'/></ScalarVariable>\n"
		"<ScalarVariable name='der(x)' valueReference='1'><Real derivative='1'/>"
		"</ScalarVariable>\n"
		"</ModelVariables>\n"
		"<ModelStructure><Outputs><Unknown index='1' dependencies=''/></Outputs>"
		"<Derivatives><Unknown index='2'/></Derivatives></ModelStructure>\n"
		"</fmiModelDescription>\n";
	char xml[2048];
	snprintf(xml, sizeof xml,
	         "<fmiModelDescription fmiVersion='2.0' modelName='decay' guid='g'>\n"
	         "<ModelExchange modelIdentifier='decay_me'/>\n%s", vars);
	write_text(c, "me.xml", xml);
	snprintf(xml, sizeof xml,
	         "<fmiModelDescription fmiVersion='2.0' modelName='decay' guid='g'>\n"
	         "<CoSimulation modelIdentifier='decay_cs'/>\n"
	         "<ModelExchange modelIdentifier='decay_me'/>\n%s", vars);
	write_text(c, "both.xml", xml);
	write_text(c, "sc.sa",
	           "module sc\n"
	           "fmu Decay a at \"me.xml\"\n"
	           "fmu Decay b at \"both.xml\"\n"
	           "fmu Decay c at \"both.xml\"\n");
	return 0;
}

/* --explain's lines about the files, from "fmu files:" on. */
static char *sharing(Ctx *c, const char *opts)
{
	char args[1024];
	snprintf(args, sizeof args, "--explain %s '%s'", opts, path_in(c, "sc.sa"));
	int rc = simulate(c, args);
	char *out = file_in(c, "out.txt");
	if (rc != 0) {
		char *err = file_in(c, "err.txt");
		print_error("%s: exit %d\n%s", opts, rc, err);
		free(err);
	}
	assert_int_equal(rc, 0);
	char *from = strstr(out, "fmu files:");
	assert_non_null(from);
	char *r = strdup(from);
	free(out);
	return r;
}

static void simulate_me__interfaces__defaults_and_choices(void **state)
{
	Ctx *c = *state;
	/* the default: a (Model Exchange only) as Model Exchange, b and c (both) as
	 * Co-Simulation, sharing one library */
	char *s = sharing(c, "");
	assert_string_equal(s, "fmu files: 2, extracted 2 times\n"
	                       "  me.xml:\n"
	                       "    one library in this process for: a\n"
	                       "    run as Model Exchange (decay_me), integrated by sacc: a\n"
	                       "  both.xml:\n"
	                       "    one library in this process for: b, c\n");
	free(s);
	/* --interface me: every FMU that offers it */
	s = sharing(c, "--interface me");
	assert_contains(s, "run as Model Exchange (decay_me), integrated by sacc: b, c\n");
	free(s);
	/* a later value wins, per instance: b and c then load different libraries, each
	 * extracted once */
	s = sharing(c, "--interface me --interface c=cs");
	assert_contains(s, "fmu files: 2, extracted 3 times\n");
	assert_contains(s, "run as Model Exchange (decay_me), integrated by sacc: b\n");
	free(s);
	/* --interface cs leaves a, which has no Co-Simulation, as it is */
	s = sharing(c, "--interface cs --solver implicit --me-tolerance 1e-9 --me-max-step 0.01");
	assert_contains(s, "integrated by sacc: a\n");
	assert_null(strstr(s, "integrated by sacc: b"));
	free(s);
	assert_tmp_empty(c);
}

static void simulate_me__usage_errors__exit_2(void **state)
{
	Ctx *c = *state;
	char sc[600], cs[600], args[2048];
	snprintf(sc, sizeof sc, "'%s'", path_in(c, "sc.sa"));
	snprintf(cs, sizeof cs, "'%s/fmus/integrator.fmu'", test_build_dir());
	struct {
		const char *target, *opts, *msg;
	} cases[] = {
		{sc, "--interface a=cs", "me.xml) offers no Co-Simulation "
		                         "interface; it offers Model Exchange only"},
		{sc, "--interface bb=me", "--interface bb=me: no instance 'bb'; did you mean 'b'?"},
		{sc, "--interface b=mex", "--interface: 'mex' is neither cs nor me\n"},
		{sc, "--interface model-exchange", "'model-exchange' is neither cs nor me (nor INST=cs, "
		                                   "INST=me)"},
		{sc, "--solver rk4", "--solver: 'rk4' is not auto, explicit or implicit"},
		{sc, "--me-tolerance 0", "--me-tolerance: '0' is not a positive number"},
		{sc, "--me-max-step -1", "--me-max-step: '-1' is not a positive number"},
		{cs, "--interface me", "--interface me: no FMU of"},
		{cs, "--interface integrator=me", "--interface integrator=me: integrator"},
		{cs, "--solver implicit", "--solver: no FMU of"},
		{cs, "--me-tolerance 1e-8", "--me-tolerance: no FMU of"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(args, sizeof args, "--explain %s %s", cases[i].target, cases[i].opts);
		assert_usage_error(c, args, cases[i].opts, cases[i].msg);
	}
	snprintf(args, sizeof args, "--explain %s --interface integrator=me", cs);
	assert_usage_error(c, args, "cs only", "offers no Model Exchange interface; it offers "
	                                       "Co-Simulation only");
	assert_tmp_empty(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(simulate_me__interfaces__defaults_and_choices, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_me__usage_errors__exit_2, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
