/* test_scale.c — ten thousand FMU instances, read, checked and stepped by `sacc simulate`
 * (the SACC_BUILD binary, as a user runs it): an SSP system and a scenario module, each
 * written here, whose results show every value carried through the whole chain.  Their
 * cost is measured by `make bench-scale`, not asserted here.
 *
 * The FMU is tests/fmus/affine, y = gain u + offset + w (gain 1, offset 0 and w 0 unless
 * set): in both systems instance i's output is i, which no instance can give unless every
 * one before it passed its value on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

enum { N = 10000 };

static int setup(void **state)
{
	if (sim_setup(state, "test_scale") != 0)
		return -1;
	Ctx *c = *state;
	snprintf(c->cmd, sizeof c->cmd, "cp '%s/fmus/affine.fmu' '%s/affine.fmu'",
	         test_build_dir(), c->dir);
	return system(c->cmd) == 0 ? 0 : -1;
}

/* The result's last row is "1,1,2,...,N" (time 1, then instance i's y = i), in a header's
 * order of p1.y ... pN.y. */
static void assert_chain_result(Ctx *c, const char *file)
{
	char *csv = file_in(c, file); /* file_in reads 64 KiB at most: enough for the header */
	assert_true(strncmp(csv, "time,p1.y,p2.y,", 15) == 0);
	free(csv);
	FILE *f = fopen(path_in(c, file), "r");
	assert_non_null(f);
	size_t cap = (size_t)N * 16 + 64;
	char *line = malloc(cap), *last = malloc(cap);
	assert_non_null(line);
	assert_non_null(last);
	last[0] = '\0';
	int rows = 0;
	while (fgets(line, (int)cap, f)) {
		strcpy(last, line);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, 3); /* the header, t = 0 and t = 1 */
	char *p = last, *end;
	assert_true(strtod(p, &end) == 1.0);
	for (int i = 1; i <= N; i++) {
		assert_int_equal(*end, ',');
		p = end + 1;
		double v = strtod(p, &end);
		if (end == p || v != (double)i)
			fail_msg("%s: column p%d.y is %.*s, not %d", file, i, (int)(end - p + 1), p, i);
	}
	assert_true(*end == '\n' || *end == '\0');
	free(line);
	free(last);
}

/* `sacc check` of the system written as file (with opts before it), then `sacc simulate`
 * of it for one step of 1 (extra options after it) into csv, whose last row must be the
 * chain's: instance i's output i. */
static void check_and_step(Ctx *c, const char *file, const char *opts, const char *extra,
                           const char *csv)
{
	snprintf(c->cmd, sizeof c->cmd, "'%s/sacc' check %s '%s/%s' 2>'%s/err.txt'",
	         test_build_dir(), opts, c->dir, file, c->dir);
	if (system(c->cmd) != 0) {
		char *err = file_in(c, "err.txt");
		fail_msg("sacc check %s failed:\n%s", file, err);
	}
	char args[1024];
	snprintf(args, sizeof args, "'%s/%s' --stop 1 --step 1 %s -o '%s/%s'", c->dir, file,
	         extra, c->dir, csv);
	int rc = simulate(c, args);
	if (rc != 0) {
		char *err = file_in(c, "err.txt");
		fail_msg("sacc simulate %s: exit %d\n%s", file, rc, err);
	}
	assert_chain_result(c, csv);
	assert_tmp_empty(c);
}

/* An SSD of N affine components in a chain, p1.y -> p2.u -> ..., the system binding each
 * one's offset to 1 (one parameter set of N values): y1 = 0 + 1, y(i) = y(i-1) + 1. */
static void ssp__ten_thousand_components__check_and_step_carry_every_value(void **state)
{
	Ctx *c = *state;
	FILE *f = fopen(path_in(c, "chain.ssd"), "w");
	assert_non_null(f);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	           "<ssd:SystemStructureDescription version=\"1.0\" name=\"chain\"\n"
	           "    xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
	           "    xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
	           "    xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
	           "<ssd:System name=\"chain\">\n<ssd:ParameterBindings><ssd:ParameterBinding>"
	           "<ssd:ParameterValues>\n<ssv:ParameterSet version=\"1.0\" name=\"offsets\">"
	           "<ssv:Parameters>\n");
	for (int i = 1; i <= N; i++)
		fprintf(f, "<ssv:Parameter name=\"p%d.offset\"><ssv:Real value=\"1\"/>"
		           "</ssv:Parameter>\n", i);
	fprintf(f, "</ssv:Parameters></ssv:ParameterSet>\n</ssd:ParameterValues>"
	           "</ssd:ParameterBinding></ssd:ParameterBindings>\n<ssd:Elements>\n");
	for (int i = 1; i <= N; i++)
		fprintf(f, "<ssd:Component name=\"p%d\" source=\"affine.fmu\"><ssd:Connectors>"
		           "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>"
		           "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
		           "</ssd:Connectors></ssd:Component>\n", i);
	fprintf(f, "</ssd:Elements>\n<ssd:Connections>\n");
	for (int i = 1; i < N; i++)
		fprintf(f, "<ssd:Connection startElement=\"p%d\" startConnector=\"y\" "
		           "endElement=\"p%d\" endConnector=\"u\"/>\n", i, i + 1);
	fprintf(f, "</ssd:Connections>\n</ssd:System>\n</ssd:SystemStructureDescription>\n");
	assert_int_equal(fclose(f), 0);

	check_and_step(c, "chain.ssd", "", "", "ssd.csv");
}

/* A scenario module of N affine instances in a chain, p1.y also into every later one's w
 * (2 N - 2 connections), p1.u set to 1: y1 = 1, y(i) = y(i-1) + y1. */
static void scenario__ten_thousand_instances__check_and_step_carry_every_value(void **state)
{
	Ctx *c = *state;
	FILE *f = fopen(path_in(c, "chain.sa"), "w");
	assert_non_null(f);
	fprintf(f, "module chain\n");
	for (int i = 1; i <= N; i++)
		fprintf(f, "fmu Affine p%d at \"affine.fmu\"\n", i);
	for (int i = 1; i < N; i++)
		fprintf(f, "p%d.y -> p%d.u\np1.y -> p%d.w\n", i, i + 1, i + 1);
	assert_int_equal(fclose(f), 0);

	char opts[300];
	snprintf(opts, sizeof opts, "-L '%s'", c->dir);
	check_and_step(c, "chain.sa", opts, "--set p1.u=1", "sa.csv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			ssp__ten_thousand_components__check_and_step_carry_every_value, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			scenario__ten_thousand_instances__check_and_step_carry_every_value, setup,
			teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
