/* test_ssp_read.c — the SSP reader (compiler/ssp/ssp_read.c and the files it reads through)
 * in process, on the inputs tests/fuzz/fuzz_ssp found it mishandling, each cut down to
 * what shows the defect: the report it must give, at its place, and (under ASan and
 * valgrind, which run every unit test) nothing leaked.
 *
 * Each case writes its documents into a private directory and reads the .ssd there, as
 * `sacc simulate DIR/SystemStructure.ssd` does.  Run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "assert_contains.h"
#include "package.h"
#include "sacc_test.h"
#include "ssp.h"

#define SSD_HEAD                                                                          \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                       \
	"<ssd:SystemStructureDescription version=\"1.0\" name=\"s\"\n"                        \
	"    xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/sacc-ssp-read-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char res[128];
	snprintf(res, sizeof res, "%s/resources", dir);
	return mkdir(res, 0755);
}

static int teardown(void **state)
{
	(void)state;
	return zip_rmtree(dir);
}

static void put(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Reads DIR/SystemStructure.ssd, which must be refused with every text of want[] (NULL
 * ended) among its diagnostics. */
static void refused_with(const char *const want[])
{
	TestRun *t = tr_new();
	char ssd[128];
	snprintf(ssd, sizeof ssd, "%s/SystemStructure.ssd", dir);
	SspModel *m = ssp_read(t->c, ssd);
	assert_null(m);
	for (int i = 0; want[i]; i++)
		assert_contains(tr_diag(t), want[i]);
	tr_free(t);
}

/* fuzz_ssp: a parameter set or mapping that is not well-formed XML was reported, but the
 * line table of its refused parse was never freed (LeakSanitizer: 96 bytes from
 * build_lines, through rd_parse_file and read_file_doc). */
static void ssp_read__malformed_parameter_file__reported_nothing_leaked(void **state)
{
	(void)state;
	put("SystemStructure.ssd", SSD_HEAD
	    "  <ssd:System name=\"s\">\n"
	    "    <ssd:ParameterBindings>\n"
	    "      <ssd:ParameterBinding source=\"resources/b.ssv\">\n"
	    "        <ssd:ParameterMapping source=\"resources/b.ssm\"/>\n"
	    "      </ssd:ParameterBinding>\n"
	    "    </ssd:ParameterBindings>\n"
	    "  </ssd:System>\n"
	    "</ssd:SystemStructureDescription>\n");
	/* the parameter set cut short inside its Units (the fuzzer's change: <ssv:UNits> ...
	 * </ssv:Units>); the mapping not XML at all */
	put("resources/b.ssv", "<?xml version=\"1.0\"?>\n"
	    "<ssv:ParameterSet version=\"1.0\" name=\"p\"\n"
	    "    xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
	    "  <ssv:UNits>\n"
	    "  </ssv:Units>\n"
	    "</ssv:ParameterSet>\n");
	put("resources/b.ssm", "<ssm:ParameterMapping");
	static const char *const want[] = {
		"resources/b.ssv:5:15: error: malformed XML: Opening and ending tag mismatch: UNits "
		"line 4 and Units",
		"SystemStructure.ssd:6:37: note: the parameter set is named here",
		"resources/b.ssm:1:22: error: malformed XML",
		"SystemStructure.ssd:7:39: note: the parameter mapping is named here", NULL,
	};
	refused_with(want);
}

/* fuzz_ssp's harness run on a parameter set whose unit has the exponent m="1e10": the
 * set's units were read apart from the SSD's, exponents as doubles cast to int (undefined
 * behaviour beyond int, UBSan: "1e+10 is outside the range of representable values of
 * type 'int'"), and a factor of 0 let through.  They are read as the SSD's now: an
 * exponent is an integer in range, a factor is not 0. */
static void ssp_read__parameter_set_unit_out_of_range__reported(void **state)
{
	(void)state;
	put("SystemStructure.ssd", SSD_HEAD
	    "  <ssd:Units>\n"
	    "    <ssc:Unit xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
	    "name=\"big\"><ssc:BaseUnit kg=\"4294967297\"/></ssc:Unit>\n"
	    "  </ssd:Units>\n"
	    "  <ssd:System name=\"s\">\n"
	    "    <ssd:ParameterBindings>\n"
	    "      <ssd:ParameterBinding source=\"resources/b.ssv\"/>\n"
	    "    </ssd:ParameterBindings>\n"
	    "  </ssd:System>\n"
	    "</ssd:SystemStructureDescription>\n");
	put("resources/b.ssv", "<?xml version=\"1.0\"?>\n"
	    "<ssv:ParameterSet version=\"1.0\" name=\"p\"\n"
	    "    xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\"\n"
	    "    xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
	    "  <ssv:Parameters/>\n"
	    "  <ssv:Units>\n"
	    "    <ssc:Unit name=\"cm\"><ssc:BaseUnit m=\"1e10\" factor=\"0.01\"/></ssc:Unit>\n"
	    "    <ssc:Unit name=\"none\"><ssc:BaseUnit factor=\"0\"/></ssc:Unit>\n"
	    "  </ssv:Units>\n"
	    "</ssv:ParameterSet>\n");
	static const char *const want[] = {
		"SystemStructure.ssd:5:107: error: kg=\"4294967297\" is out of range for an exponent",
		"resources/b.ssv:7:42: error: m=\"1e10\" is not an integer",
		"resources/b.ssv:8:49: error: a unit's factor cannot be 0", NULL,
	};
	refused_with(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ssp_read__malformed_parameter_file__reported_nothing_leaked,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(ssp_read__parameter_set_unit_out_of_range__reported,
		                                setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
