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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ssp_read__malformed_parameter_file__reported_nothing_leaked,
		                                setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
