/* test_ssp_export.c — `sacc ssp export` (compiler/ssp/ssp_export.c): the archive's entries,
 * the SSD's structure in the order the SSP 1.0 schema fixes, every connector's kind, type
 * and unit against what the test FMUs' sources declare, the base units worked out by hand,
 * the parameter set, reproducible bytes, and the refusals.
 *
 * The published XSDs are not part of the repository, so the structure the schema fixes is
 * asserted here element by element: the root's namespace and version, the sequence
 * System, Units, DefaultExperiment; in the system ParameterBindings, Elements, Connections.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the FMUs come from $SACC_BUILD/fmus/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <unistd.h>
#include <unzip.h>

#include "assert_contains.h"
#include "package.h"
#include "sacc_test.h"
#include "ssp_export.h"

#define NS_SSD "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define NS_SSC "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define NS_SSV "http://ssp-standard.org/SSP1/SystemStructureParameterValues"

static char tmpdir[64];

static const char *tmp(const char *name)
{
	static char bufs[8][512];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, 512, "%s/%s", tmpdir, name);
	return b;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sacc-ssp-export-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return zip_rmtree(tmpdir);
}

/* One entry of an archive, malloc'd (NUL after it), or NULL when it is not there. */
static char *entry(const char *archive, const char *name, size_t *len)
{
	unzFile uf = unzOpen64(archive);
	assert_non_null(uf);
	char *data = NULL;
	if (unzLocateFile(uf, name, 1) == UNZ_OK) {
		unz_file_info64 fi;
		assert_int_equal(unzGetCurrentFileInfo64(uf, &fi, NULL, 0, NULL, 0, NULL, 0), UNZ_OK);
		data = malloc(fi.uncompressed_size + 1);
		assert_int_equal(unzOpenCurrentFile(uf), UNZ_OK);
		int n = unzReadCurrentFile(uf, data, (unsigned)fi.uncompressed_size);
		assert_int_equal((uint64_t)n, fi.uncompressed_size);
		unzCloseCurrentFile(uf);
		data[fi.uncompressed_size] = '\0';
		if (len)
			*len = (size_t)fi.uncompressed_size;
	}
	unzClose(uf);
	return data;
}

static int count_entries(const char *archive)
{
	unzFile uf = unzOpen64(archive);
	assert_non_null(uf);
	unz_global_info64 gi;
	assert_int_equal(unzGetGlobalInfo64(uf, &gi), UNZ_OK);
	unzClose(uf);
	return (int)gi.number_entry;
}

static xmlDocPtr parse_entry(const char *archive, const char *name)
{
	size_t len;
	char *text = entry(archive, name, &len);
	assert_non_null(text);
	xmlDocPtr doc = xmlReadMemory(text, (int)len, name, NULL, XML_PARSE_NONET);
	free(text);
	assert_non_null(doc);
	return doc;
}

/* The element children of n, in order: their names joined by ' ' ("System Units"). */
static const char *child_names(xmlNodePtr n)
{
	static char buf[512];
	buf[0] = '\0';
	for (xmlNodePtr k = n->children; k; k = k->next)
		if (k->type == XML_ELEMENT_NODE)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "",
			         (const char *)k->name);
	return buf;
}

static xmlNodePtr child(xmlNodePtr n, const char *name, const char *ns)
{
	for (xmlNodePtr k = n ? n->children : NULL; k; k = k->next)
		if (k->type == XML_ELEMENT_NODE && strcmp((const char *)k->name, name) == 0) {
			assert_non_null(k->ns);
			assert_string_equal((const char *)k->ns->href, ns);
			return k;
		}
	return NULL;
}

/* The child element name whose attribute `name` is value. */
static xmlNodePtr named(xmlNodePtr n, const char *element, const char *value)
{
	for (xmlNodePtr k = n ? n->children : NULL; k; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || strcmp((const char *)k->name, element) != 0)
			continue;
		xmlChar *v = xmlGetProp(k, BAD_CAST "name");
		bool hit = v && strcmp((const char *)v, value) == 0;
		xmlFree(v);
		if (hit)
			return k;
	}
	return NULL;
}

static void assert_attr(xmlNodePtr n, const char *name, const char *want)
{
	assert_non_null(n);
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	if (!want) {
		assert_null(v);
		return;
	}
	assert_non_null(v);
	assert_string_equal((const char *)v, want);
	xmlFree(v);
}

/* Connector `conn` of component `comp`: its kind, type element and unit (NULL: none). */
static void assert_connector(xmlNodePtr elements, const char *comp, const char *conn,
                             const char *kind, const char *type, const char *unit)
{
	xmlNodePtr k = named(elements, "Component", comp);
	assert_non_null(k);
	xmlNodePtr c = named(child(k, "Connectors", NS_SSD), "Connector", conn);
	assert_non_null(c);
	assert_attr(c, "kind", kind);
	xmlNodePtr t = child(c, type, NS_SSC);
	assert_non_null(t);
	assert_attr(t, "unit", unit);
}

static void assert_base_unit(xmlNodePtr units, const char *unit, const char *kg, const char *m,
                             const char *s, const char *factor)
{
	xmlNodePtr u = named(units, "Unit", unit);
	assert_non_null(u);
	xmlNodePtr b = child(u, "BaseUnit", NS_SSC);
	assert_non_null(b);
	assert_attr(b, "kg", kg);
	assert_attr(b, "m", m);
	assert_attr(b, "s", s);
	assert_attr(b, "factor", factor);
	assert_attr(b, "offset", NULL);
}

static const char *const scenario =
	"module plant\n"
	"fmu Mass1 m1 at \"mass1.fmu\"\n"
	"fmu Mass2 m2 at \"mass2.fmu\"\n"
	"fmu Window window at \"window.fmu\"\n"
	"m1.x -> m2.xo\n"
	"m1.v -> m2.vo\n"
	"m2.x -> m1.xo\n"
	"m2.v -> m1.vo\n";

static int export_text(TestRun *t, const char *text, const char *out, const char *const *sets,
                       int nsets)
{
	Module *m = tr_load(t, "tests/unit/plant.sa", text);
	assert_non_null(m);
	SspExportOptions o = {out, sets, nsets, 0.0, 10.0};
	return ssp_export(t->c, "tests/unit/plant.sa", &o);
}

static void ssp_export__two_masses_and_a_window__schema_order_and_model_descriptions(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	const char *out = tmp("plant.ssp");
	const char *sets[] = {"m1.k=2.5", "m2.c=0.25", "window.speed=-1", "m1.k=3"};
	assert_int_equal(export_text(t, scenario, out, sets, 4), 0);
	assert_string_equal(tr_diag(t), "");

	/* The SSD, the two parameter set and the three FMUs, nothing else. */
	assert_int_equal(count_entries(out), 5);
	char fmus[512];
	const char *names[3] = {"mass1.fmu", "mass2.fmu", "window.fmu"};
	for (int i = 0; i < 3; i++) {
		char entry_name[64];
		snprintf(entry_name, sizeof entry_name, "resources/%s", names[i]);
		snprintf(fmus, sizeof fmus, "%s/fmus/%s", test_build_dir(), names[i]);
		size_t n, m;
		char *inside = entry(out, entry_name, &n);
		char *original = read_file(fmus, 1u << 26, &m);
		assert_non_null(inside);
		assert_non_null(original);
		assert_int_equal(n, m);
		assert_memory_equal(inside, original, n);
		free(inside);
		free(original);
	}

	xmlDocPtr doc = parse_entry(out, "SystemStructure.ssd");
	xmlNodePtr root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "SystemStructureDescription");
	assert_string_equal((const char *)root->ns->href, NS_SSD);
	assert_attr(root, "version", "1.0");
	assert_attr(root, "name", "plant");
	assert_string_equal(child_names(root), "System Units DefaultExperiment");
	xmlNodePtr sys = child(root, "System", NS_SSD);
	assert_attr(sys, "name", "plant");
	assert_string_equal(child_names(sys), "ParameterBindings Elements Connections");
	xmlNodePtr binding = child(child(sys, "ParameterBindings", NS_SSD), "ParameterBinding",
	                           NS_SSD);
	assert_attr(binding, "source", "resources/parameters.ssv");
	xmlNodePtr de = child(root, "DefaultExperiment", NS_SSD);
	assert_attr(de, "startTime", "0");
	assert_attr(de, "stopTime", "10");

	xmlNodePtr elements = child(sys, "Elements", NS_SSD);
	assert_string_equal(child_names(elements), "Component Component Component");
	xmlNodePtr w = named(elements, "Component", "window");
	assert_attr(w, "source", "resources/window.fmu");
	assert_attr(w, "type", "application/x-fmu-sharedlibrary");
	/* What tests/fmus/{mass1,window}/modelDescription.xml declare. */
	assert_connector(elements, "m1", "xo", "input", "Real", "m");
	assert_connector(elements, "m1", "x", "output", "Real", "m");
	assert_connector(elements, "m1", "v", "output", "Real", "m/s");
	assert_connector(elements, "m1", "k", "parameter", "Real", "N/m");
	assert_connector(elements, "m2", "c", "parameter", "Real", "N.s/m");
	assert_connector(elements, "window", "height", "output", "Real", "cm");
	assert_connector(elements, "window", "speed", "input", "Real", "rad/s");

	xmlNodePtr conns = child(sys, "Connections", NS_SSD);
	assert_string_equal(child_names(conns), "Connection Connection Connection Connection");
	xmlNodePtr c3 = conns->children;
	for (int i = 0; i < 3; c3 = c3->next)
		i += c3->type == XML_ELEMENT_NODE;
	while (c3->type != XML_ELEMENT_NODE)
		c3 = c3->next;
	assert_attr(c3, "startElement", "m2");
	assert_attr(c3, "startConnector", "v");
	assert_attr(c3, "endElement", "m1");
	assert_attr(c3, "endConnector", "vo");

	/* N = kg.m.s-2, so N/m = kg.s-2 and N.s/m = kg.s-1; a cm is 0.01 m; rad/s is FMI's
	 * rad=1 s=-1. */
	xmlNodePtr units = child(root, "Units", NS_SSD);
	assert_base_unit(units, "m", NULL, "1", NULL, NULL);
	assert_base_unit(units, "m/s", NULL, "1", "-1", NULL);
	assert_base_unit(units, "N/m", "1", NULL, "-2", NULL);
	assert_base_unit(units, "N.s/m", "1", NULL, "-1", NULL);
	assert_base_unit(units, "cm", NULL, "1", NULL, "0.01");
	xmlNodePtr rads = child(named(units, "Unit", "rad/s"), "BaseUnit", NS_SSC);
	assert_attr(rads, "rad", "1");
	assert_attr(rads, "s", "-1");
	xmlFreeDoc(doc);

	/* The parameter set: m1.k set twice keeps the last value. */
	doc = parse_entry(out, "resources/parameters.ssv");
	root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "ParameterSet");
	assert_string_equal((const char *)root->ns->href, NS_SSV);
	assert_attr(root, "version", "1.0");
	xmlNodePtr params = child(root, "Parameters", NS_SSV);
	assert_string_equal(child_names(params), "Parameter Parameter Parameter");
	assert_attr(child(named(params, "Parameter", "m1.k"), "Real", NS_SSV), "value", "3");
	assert_attr(child(named(params, "Parameter", "m2.c"), "Real", NS_SSV), "value", "0.25");
	assert_attr(child(named(params, "Parameter", "window.speed"), "Real", NS_SSV), "value",
	            "-1");
	xmlFreeDoc(doc);

	/* The same scenario gives the same bytes, later too (a zip entry's time moves in steps
	 * of 2 s: a clock in the archive would show). */
	sleep(3);
	const char *again = tmp("again.ssp");
	TestRun *t2 = tr_new();
	assert_int_equal(export_text(t2, scenario, again, sets, 4), 0);
	size_t n1, n2;
	char *a = read_file(out, 1u << 26, &n1), *b = read_file(again, 1u << 26, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	free(a);
	free(b);
	tr_free(t2);
	tr_free(t);
}

static void ssp_export__no_set__no_parameter_set_and_no_binding(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	const char *out = tmp("plain.ssp");
	assert_int_equal(export_text(t, scenario, out, NULL, 0), 0);
	char *ssv = entry(out, "resources/parameters.ssv", NULL);
	assert_null(ssv);
	xmlDocPtr doc = parse_entry(out, "SystemStructure.ssd");
	assert_string_equal(child_names(child(xmlDocGetRootElement(doc), "System", NS_SSD)),
	                    "Elements Connections");
	xmlFreeDoc(doc);
	tr_free(t);
}

static void ssp_export__bad_sets__usage_errors_and_no_archive(void **state)
{
	(void)state;
	static const struct {
		const char *set, *message;
	} cases[] = {
		{"m3.k=1", "no fmu instance 'm3'"},
		{"m1.kk=1", "fmu 'm1' has no variable 'kk'"},
		{"m1.x=1", "'x' is neither a parameter nor an input"},
		{"m1.k=soft", "not a value of type Real"},
		{"m1k=1", "is not INSTANCE.VARIABLE=VALUE"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		TestRun *t = tr_new();
		const char *out = tmp("bad.ssp");
		fflush(stderr);
		char *captured = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&captured, &len);
		FILE *old = stderr; /* cli_usage_error writes there */
		stderr = mem;
		int rc = export_text(t, scenario, out, &cases[i].set, 1);
		fflush(mem);
		stderr = old;
		assert_int_equal(rc, 2);
		assert_contains(captured, cases[i].message);
		assert_int_equal(access(out, F_OK), -1);
		fclose(mem);
		free(captured);
		tr_free(t);
	}
}

static void ssp_export__adaptation_or_foreign_owner__refused_at_its_place(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	const char *out = tmp("sa.ssp");
	const char *text = "module fix\n"
	                   "semantic adaptation reactive mealy fix\n"
	                   "at \"fix.fmu\"\n"
	                   "\tfor inner fmu Window window\n"
	                   "\t\tat \"window.fmu\"\n";
	assert_int_equal(export_text(t, text, out, NULL, 0), 1);
	assert_contains(tr_diag(t), "tests/unit/plant.sa:2:36: error: 'fix' is an adaptation");
	assert_int_equal(access(out, F_OK), -1);
	tr_free(t);

	t = tr_new();
	assert_int_equal(export_text(t, "module empty\n", out, NULL, 0), 1);
	assert_contains(tr_diag(t), "no fmu declared: nothing to export");
	tr_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ssp_export__two_masses_and_a_window__schema_order_and_model_descriptions),
		cmocka_unit_test(ssp_export__no_set__no_parameter_set_and_no_binding),
		cmocka_unit_test(ssp_export__bad_sets__usage_errors_and_no_archive),
		cmocka_unit_test(ssp_export__adaptation_or_foreign_owner__refused_at_its_place),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
