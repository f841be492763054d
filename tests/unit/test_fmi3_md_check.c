/* test_fmi3_md_check.c — the suite's FMI 3.0 model-description checker
 * (tests/fmus3/tools/fmi3_md_check.c): the test FMUs' descriptions pass, and each rule it
 * enforces is shown failing on a description broken in that one way, with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* Runs the checker on the files given; returns its exit status and its stderr (malloc'd). */
static int run_check(const char *files, char **out)
{
	char cmd[2048], log[] = "/tmp/fmi3_md_check_XXXXXX";
	int fd = mkstemp(log), status;
	FILE *f;
	long n;
	assert_true(fd >= 0);
	snprintf(cmd, sizeof cmd, "%s/tools/fmi3_md_check %s 2>%s", build_dir(), files, log);
	status = system(cmd);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*out = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(*out, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	remove(log);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_fmus__descriptions__pass(void **state)
{
	char *out;
	(void)state;
	assert_int_equal(run_check("tests/fmus3/*/modelDescription.xml", &out), 0);
	assert_string_equal(out, "");
	free(out);
}

/* A valid description with `variables` and `structure` put in; the checker's verdict on it
 * must contain `expected`. */
static void expect_finding(const char *variables, const char *structure, const char *expected)
{
	char path[] = "/tmp/fmi3_md_XXXXXX", *out;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken=\"{t}\">\n"
	        "  <CoSimulation modelIdentifier=\"m\"/>\n"
	        "  <TypeDefinitions><EnumerationType name=\"E\"><Item name=\"a\" value=\"1\"/>"
	        "</EnumerationType></TypeDefinitions>\n"
	        "  <ModelVariables>\n"
	        "    <Float64 name=\"time\" valueReference=\"0\" causality=\"independent\"/>\n"
	        "%s"
	        "  </ModelVariables>\n"
	        "  <ModelStructure>\n%s  </ModelStructure>\n"
	        "</fmiModelDescription>\n",
	        variables, structure);
	fclose(f);
	assert_int_equal(run_check(path, &out), 1);
	if (!strstr(out, expected))
		fail_msg("expected '%s' in:\n%s", expected, out);
	free(out);
	remove(path);
}

static void broken__each_rule__reported(void **state)
{
	(void)state;
	expect_finding("<Int32 name=\"i\" valueReference=\"1\" causality=\"input\" "
	               "variability=\"continuous\" start=\"0\"/>\n", "",
	               "variable 'i': a Int32 cannot be continuous");
	expect_finding("<Float64 name=\"u\" valueReference=\"1\" causality=\"input\"/>\n", "",
	               "variable 'u' (input, continuous) needs a start value");
	expect_finding("<Float64 name=\"y\" valueReference=\"1\" causality=\"output\" start=\"1\"/>\n",
	               "<Output valueReference=\"1\"/>\n",
	               "variable 'y' must not have a start value");
	expect_finding("<Float64 name=\"y\" valueReference=\"0\" causality=\"output\"/>\n", "",
	               "valueReference 0 of 'y' is also 'time''s");
	expect_finding("<Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>\n", "",
	               "output 'y' has no <Output> in ModelStructure");
	expect_finding("<Float64 name=\"p\" valueReference=\"1\" causality=\"parameter\" "
	               "variability=\"continuous\" start=\"1\"/>\n", "",
	               "causality parameter with variability continuous is not allowed");
	expect_finding("<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" "
	               "initial=\"calculated\" start=\"0\"/>\n", "",
	               "initial 'calculated' is not allowed for input continuous");
	expect_finding("<Enumeration name=\"e\" valueReference=\"1\" causality=\"input\" "
	               "declaredType=\"F\" start=\"1\"/>\n", "",
	               "enumeration 'e' needs a declaredType naming an EnumerationType");
	expect_finding("<Enumeration name=\"e\" valueReference=\"1\" causality=\"input\" "
	               "declaredType=\"E\" start=\"2\"/>\n", "",
	               "enumeration 'e': start 2 is no item of type 'E'");
	expect_finding("<Binary name=\"b\" valueReference=\"1\" causality=\"input\" "
	               "maxSize=\"1\"><Start value=\"cafe\"/></Binary>\n", "",
	               "binary 'b': start has 2 bytes, more than maxSize 1");
	expect_finding("<Binary name=\"b\" valueReference=\"1\" causality=\"input\">"
	               "<Start value=\"caf\"/></Binary>\n", "",
	               "binary 'b': start 'caf' is not hexadecimal bytes");
	expect_finding("<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0\" "
	               "unit=\"m\"/>\n", "", "unit 'm' is not in UnitDefinitions");
	expect_finding("<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0 0\">"
	               "<Dimension start=\"3\"/></Float64>\n", "",
	               "variable 'u' has 2 start values for 3 elements");
	expect_finding("<Float64 name=\"p\" valueReference=\"2\" causality=\"parameter\" "
	               "variability=\"fixed\" start=\"3\"/>\n"
	               "<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0\">"
	               "<Dimension valueReference=\"2\"/></Float64>\n", "",
	               "Dimension refers to 'p', which is not an integer structural parameter");
	expect_finding("<Float64 name=\"t2\" valueReference=\"1\" causality=\"independent\"/>\n", "",
	               "2 independent variables");
	expect_finding("", "<Output valueReference=\"7\"/>\n", "<Output> refers to no variable (7)");
	expect_finding("<Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>\n",
	               "<Output valueReference=\"1\" dependencies=\"9\"/>\n",
	               "y: dependency '9' is no variable's value reference");
	expect_finding("<Float64 name=\"u\" valueReference=\"2\" causality=\"input\" start=\"0\"/>\n"
	               "<Float64 name=\"v\" valueReference=\"3\" causality=\"input\" start=\"0\"/>\n"
	               "<Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>\n",
	               "<Output valueReference=\"1\" dependencies=\"3 2\"/>\n",
	               "y: dependency '2' (u) comes before 'v' in ModelVariables");
	expect_finding("<Float64 name=\"u\" valueReference=\"2\" causality=\"input\" start=\"0\"/>\n"
	               "<Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>\n",
	               "<Output valueReference=\"1\" dependencies=\"2 2\"/>\n",
	               "y: dependency '2' is listed twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmus__descriptions__pass),
		cmocka_unit_test(broken__each_rule__reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
