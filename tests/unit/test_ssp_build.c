/* test_ssp_build.c — `sacc build SYSTEM.ssd|.ssp` (compiler/ssp/ssp_adapt.c) and an SSP
 * system as an adaptation's inner, end to end: the composite FMU of tests/ssp/build/
 * chain.ssd against the adaptation written by hand for it (chain_hand.sa), bit for bit,
 * and against the values worked out by hand in chain.ssd's comment; the composite loaded
 * by the suite's minimal importer; its FMI 3.0 variant through the FMI 3.0 checker; an
 * adaptation over the system; the export of a scenario built as a composite, and imported
 * back (sacc ssp import) as the same scenario, which runs bit for bit as the original;
 * composites of systems with unit conversions, linear transformations and Boolean and
 * Integer mappings, across nested systems and parameter bindings, against `sacc simulate`
 * of the same system and against values worked out by hand.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): sacc, the test FMUs and the checker come from there; the C compiler is run. */
#define _DEFAULT_SOURCE /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert_close.h"
#include "assert_contains.h"
#include "fmi2_importer.h"
#include "driver.h"
#include "package.h"

static char tmpdir[64];

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static const char *tmp(const char *name)
{
	static char bufs[8][512];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, 512, "%s/%s", tmpdir, name);
	return b;
}

/* Runs a shell command; its exit status, and what it printed in *out (malloc'd). */
static int run(char **out, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	char full[4200];
	snprintf(full, sizeof full, "(%s) >%s/log 2>&1", cmd, tmpdir);
	int st = system(full);
	if (out) {
		char log[128];
		snprintf(log, sizeof log, "%s/log", tmpdir);
		size_t n;
		FILE *f = fopen(log, "r");
		assert_non_null(f);
		*out = calloc(1, 1 << 16);
		n = fread(*out, 1, (1 << 16) - 1, f);
		(*out)[n] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* chain.ssd beside resources/ holding its parameter set and FMUs, in tmpdir. */
static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sacc-ssp-build-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	const char *b = build_dir();
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p %s/resources && cp tests/ssp/build/chain.ssd "
	         "tests/ssp/build/chain_hand.sa tests/ssp/build/over_chain.sa "
	         "tests/ssp/build/units.ssd tests/ssp/build/maps.ssd %s/ && "
	         "cp tests/ssp/build/parameters.ssv %s/fmus/affine.fmu %s/fmus/integrator.fmu "
	         "%s/fmus/environment.fmu %s/fmus/strings.fmu %s/fmus3/sized3.fmu %s/resources/",
	         tmpdir, tmpdir, b, b, b, b, b, tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return zip_rmtree(tmpdir);
}

/* The last row of a result file, as numbers. */
static int last_row(const char *csv, double *v, int max)
{
	const char *p = csv + strlen(csv);
	while (p > csv && p[-1] == '\n')
		p--;
	while (p > csv && p[-1] != '\n')
		p--;
	int n = 0;
	while (*p && *p != '\n' && n < max) {
		char *end;
		v[n++] = strtod(p, &end);
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

static void ssp_build__chain__composite_equals_the_hand_written_adaptation_bit_for_bit(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "%s/sacc build %s -o %s", sacc, tmp("chain.ssd"), tmp("ssp/chain.fmu"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	rc = run(&log, "%s/sacc build -L %s -o %s %s", sacc, tmp("resources"), tmp("hand"),
	         tmp("chain_hand.sa"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	const char *sim = "%s/sacc simulate %s --set chain.u=2 --stop 1 --step 0.1 -o %s";
	assert_int_equal(run(NULL, sim, sacc, tmp("ssp/chain.fmu"), tmp("ssp.csv")), 0);
	assert_int_equal(run(NULL, sim, sacc, tmp("hand/chain.fmu"), tmp("hand.csv")), 0);
	char *a = slurp(tmp("ssp.csv")), *b = slurp(tmp("hand.csv"));
	assert_string_equal(a, b);
	assert_contains(a, "time,chain.x,chain.y2\n");
	/* By hand (chain.ssd's comment), u = 2: y2 = 50 u + 14 = 114 at every point; x = 11.5 t,
	 * ten Euler steps of 1.15. */
	assert_contains(a, "\n0,0,114\n");
	double v[3];
	assert_int_equal(last_row(a, v, 3), 3);
	assert_true(v[0] == 1);
	assert_true(fabs(v[1] - 11.5) < 1e-12);
	assert_true(v[2] == 114);
	free(a);
	free(b);
}

static void quiet(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                  fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category, (void)message;
}

static void ssp_build__chain__minimal_importer_steps_it(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "%s/sacc build %s -o %s && rm -rf %s && %s/sacc unpack %s %s", sacc,
	             tmp("chain.ssd"), tmp("imp/chain.fmu"), tmp("imp/x"), sacc,
	             tmp("imp/chain.fmu"), tmp("imp/x"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	char dir[PATH_MAX], lib[PATH_MAX + 64], uri[PATH_MAX + 64];
	assert_non_null(realpath(tmp("imp/x"), dir));
	snprintf(lib, sizeof lib, "%s/binaries/linux64/chain.so", dir);
	snprintf(uri, sizeof uri, "file://%s/resources", dir);
	char *md = slurp(tmp("imp/x/modelDescription.xml"));
	char *g = strstr(md, "guid=\"");
	assert_non_null(g);
	g += 6;
	g[strcspn(g, "\"")] = '\0';
	/* The ports are the top system's connectors: u in, x and y2 out (value references in
	 * the order the description lists them). */
	Fmi2Api api;
	fmi2_import(&api, lib);
	static const fmi2CallbackFunctions cb = {quiet, calloc, free, NULL, NULL};
	fmi2Component c = api.instantiate("chain", fmi2CoSimulation, g, uri, &cb, fmi2False,
	                                  fmi2False);
	assert_non_null(c);
	char *mdtext = slurp(tmp("imp/x/modelDescription.xml"));
	fmi2ValueReference vr_u = 0, vr_x = 0, vr_y2 = 0;
	const char *names[3] = {"\"u\"", "\"x\"", "\"y2\""};
	fmi2ValueReference *vrs[3] = {&vr_u, &vr_x, &vr_y2};
	for (int i = 0; i < 3; i++) {
		char key[32];
		snprintf(key, sizeof key, "name=%s", names[i]);
		char *k = strstr(mdtext, key);
		assert_non_null(k);
		char *r = strstr(k, "valueReference=\"");
		assert_non_null(r);
		*vrs[i] = (fmi2ValueReference)strtol(r + 16, NULL, 10);
	}
	assert_int_equal(api.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
	assert_int_equal(api.enter_init(c), fmi2OK);
	double u = 1;
	assert_int_equal(api.set_real(c, &vr_u, 1, &u), fmi2OK);
	assert_int_equal(api.exit_init(c), fmi2OK);
	double t = 0;
	for (int k = 0; k < 4; k++, t += 0.25)
		assert_int_equal(api.do_step(c, t, 0.25, fmi2True), fmi2OK);
	double x, y2;
	assert_int_equal(api.get_real(c, &vr_x, 1, &x), fmi2OK);
	assert_int_equal(api.get_real(c, &vr_y2, 1, &y2), fmi2OK);
	/* u = 1: b.y = 6.5, y2 = 64, x(1) = 6.5 (four steps of 0.25, exact in binary). */
	assert_true(y2 == 64);
	assert_true(x == 6.5);
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
	dlclose(api.lib);
	free(md);
	free(mdtext);
}

static void ssp_build__chain_fmi3__passes_the_fmi3_checker(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "%s/sacc build --fmi 3 %s -o %s && rm -rf %s && %s/sacc unpack %s %s "
	             "&& %s/tools/fmi3_md_check %s/modelDescription.xml", sacc, tmp("chain.ssd"),
	             tmp("f3/chain.fmu"), tmp("f3/x"), sacc, tmp("f3/chain.fmu"), tmp("f3/x"),
	             sacc, tmp("f3/x"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	rc = run(&log, "%s/sacc simulate %s --set chain.u=2 --stop 1 --step 0.1 -o %s", sacc,
	         tmp("f3/chain.fmu"), tmp("f3.csv"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	char *a = slurp(tmp("f3.csv"));
	assert_contains(a, "\n0,0,114\n");
	free(a);
}

static void ssp_inner__adaptation_over_a_system__values_by_hand(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "%s/sacc build -o %s %s && %s/sacc simulate %s --set over_chain.v=4 "
	             "--stop 1 --step 0.1 -o %s", sacc, tmp("over"), tmp("over_chain.sa"), sacc,
	             tmp("over/over_chain.fmu"), tmp("over.csv"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	char *a = slurp(tmp("over.csv"));
	/* v = 4 halves to u = 2: y2 = 114 negated; x as in the composite. */
	assert_contains(a, "time,over_chain.x,over_chain.ny2\n0,0,-114\n");
	double v[3];
	assert_int_equal(last_row(a, v, 3), 3);
	assert_true(fabs(v[1] - 11.5) < 1e-12);
	free(a);
}

/* One system named two ways is one module, read once (one SspModel kept). */
static void ssp_inner__one_system_two_spellings__read_once(void **state)
{
	(void)state;
	Compilation *c = drv_new(stderr);
	Module *a = drv_load(c, tmp("chain.ssd"));
	Module *b = drv_load(c, tmp("./chain.ssd"));
	assert_non_null(a);
	assert_non_null(a->root);
	assert_ptr_equal(a, b);
	assert_int_equal(c->nssps, 1);
	drv_free(c);
}

static void ssp_build__exported_scenario__builds_with_its_set_values_bound(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	/* The export of a scenario builds as a composite: the --set value becomes a 'with
	 * param' binding and the connections couplings. */
	int rc = run(&log, "%s/sacc ssp export -L %s/fmus docs/examples/language/two_mass.sa "
	             "--set m2.k=3 -o %s && %s/sacc build %s -o %s", sacc, sacc,
	             tmp("two.ssp"), sacc, tmp("two.ssp"), tmp("two/two_mass.fmu"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	rc = run(&log, "%s/sacc parse %s", sacc, tmp("two.ssp"));
	assert_int_equal(rc, 0);
	assert_contains(log, "\tfor inner fmu mass2 m2\n");
	assert_contains(log, "\t\twith param k := 3.0\n");
	assert_contains(log, "m1.x -> m2.xo");
	assert_contains(log, "m2.v -> m1.vo");
	free(log);
}

/* ---- composite against simulation ------------------------------------------------------ */

/* The values of column `name` of a result file, *n of them.  A header field matches with
 * or without a trailing " [unit]", so that both header styles do. */
static double *column(const char *csv, const char *name, int *n)
{
	int col = -1, k = 0;
	size_t len = strlen(name);
	for (const char *p = csv; *p && *p != '\n'; k++) {
		size_t w = strcspn(p, ",\n");
		if ((w == len || (w > len && p[len] == ' ' && p[len + 1] == '[')) &&
		    strncmp(p, name, len) == 0)
			col = k;
		p += w;
		if (*p == ',')
			p++;
	}
	if (col < 0)
		fail_msg("no column '%s' in:\n%.300s", name, csv);
	double *v = calloc(4096, sizeof *v);
	*n = 0;
	for (const char *p = strchr(csv, '\n'); p && p[1] && *n < 4096; p = strchr(p + 1, '\n')) {
		const char *f = p + 1;
		for (int i = 0; i < col; i++)
			f += strcspn(f, ",\n") + (f[strcspn(f, ",\n")] == ',');
		v[(*n)++] = strtod(f, NULL);
	}
	return v;
}

/* file with its extension replaced by ext ("units.ssd", ".csv": "units.csv"). */
static const char *renamed(const char *file, const char *ext)
{
	static char bufs[4][256];
	static int k;
	char *b = bufs[k++ % 4];
	snprintf(b, 256, "%.*s%s", (int)strcspn(file, "."), file, ext);
	return b;
}

/* Builds the composite of system (a file in tmpdir), runs it and the system with the same
 * options, and checks that each composite column pairs[2i] equals the system's column
 * pairs[2i + 1] at every point, within tol (relative to the value's size).  The
 * composite's result file is left in tmp("<system>.csv") for checks by hand. */
static void composite_equals_simulation(const char *system, const char *opts,
                                        const char *const *pairs, int npairs, double tol)
{
	const char *sacc = build_dir();
	char *log;
	char fmu[600], bcsv[600], scsv[600];
	snprintf(fmu, sizeof fmu, "%s", tmp(renamed(system, ".fmu")));
	snprintf(bcsv, sizeof bcsv, "%s", tmp(renamed(system, ".csv")));
	snprintf(scsv, sizeof scsv, "%s", tmp(renamed(system, ".sim.csv")));
	int rc = run(&log, "%s/sacc build %s -o %s && %s/sacc simulate %s %s -o %s && "
	             "%s/sacc simulate %s %s -o %s", sacc, tmp(system), fmu, sacc, fmu, opts, bcsv,
	             sacc, tmp(system), opts, scsv);
	if (rc)
		fail_msg("%s", log);
	free(log);
	char *b = slurp(bcsv), *sim = slurp(scsv);
	for (int i = 0; i < npairs; i++) {
		int nb, ns;
		double *vb = column(b, pairs[2 * i], &nb), *vs = column(sim, pairs[2 * i + 1], &ns);
		assert_int_equal(nb, ns);
		assert_true(nb > 1);
		for (int k = 0; k < nb; k++)
			assert_close(vb[k], vs[k], tol * (1 + fabs(vs[k])));
		free(vb);
		free(vs);
	}
	free(b);
	free(sim);
}

/* The reported case: an output in m into a nested system's input in cm (SSD unit
 * definitions), a top input in km, a parameter in cm: the composite converts as sacc
 * simulate does, and as worked out by hand in units.ssd's comment. */
static void ssp_build__units_across_nested_systems__equal_to_simulation(void **state)
{
	(void)state;
	static const char *const pairs[] = {"units.y", "y"};
	composite_equals_simulation("units.ssd", "--stop 1 --step 0.25", pairs, 1, 1e-12);
	char *csv = slurp(tmp("units.csv"));
	int n;
	double *y = column(csv, "units.y", &n);
	assert_int_equal(n, 5);
	for (int k = 0; k < n; k++)
		assert_close(y[k], 5000 * 0.25 * k + 50, 1e-9);
	free(y);
	free(csv);
	/* the top input: v = 0.002 km is 2 m into b.w, 200 cm more of y */
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "%s/sacc simulate %s --set units.v=0.002 --stop 1 --step 0.5 -o %s",
	             sacc, tmp("units.fmu"), tmp("units_v.csv"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	csv = slurp(tmp("units_v.csv"));
	y = column(csv, "units.y", &n);
	assert_int_equal(n, 3);
	for (int k = 0; k < n; k++)
		assert_close(y[k], 5000 * 0.5 * k + 50 + 200, 1e-9);
	free(y);
	free(csv);
	rc = run(&log, "%s/sacc parse %s", sacc, tmp("units.ssd"));
	assert_int_equal(rc, 0);
	assert_contains(log, "coupled as a.x -> sub_b.u (factor 100.0)\n");
	assert_contains(log, "input ports Real v (km)\n");
	assert_contains(log, "sub_b.w := 1000.0 * units.v;");
	free(log);
}

/* tests/ssp/chain as an archive (its parameter set and mapping inside): a
 * LinearTransformation and a cm to m conversion from a component into a nested system,
 * and a transformed output. */
static void ssp_build__linear_transformation_in_an_archive__equal_to_simulation(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "rm -rf %s && cp -r tests/ssp/chain %s && cp %s/fmus/integrator.fmu "
	             "%s/fmus/affine.fmu %s/resources/ && %s/tools/fmu_pack %s %s", tmp("c"),
	             tmp("c"), sacc, sacc, tmp("c"), sacc, tmp("lin.ssp"), tmp("c"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	static const char *const pairs[] = {"chain.Y", "Y", "chain.Ycm", "Ycm"};
	composite_equals_simulation("lin.ssp", "--stop 2 --step 0.5", pairs, 2, 1e-12);
	/* by hand (docs/ssp.md): A.x = t, in cm, 2 t + 1 cm into B.u in m, B.y = 3 B.u + 0.5,
	 * so Y = 0.53 + 0.06 t */
	char *csv = slurp(tmp("lin.csv"));
	int n;
	double *y = column(csv, "chain.Y", &n);
	assert_int_equal(n, 5);
	for (int k = 0; k < n; k++)
		assert_close(y[k], 0.53 + 0.06 * 0.5 * k, 1e-12);
	free(y);
	free(csv);
}

/* A LinearTransformation between two components, which a composite used to refuse: u = 2
 * gives a.y = 6, b.u = 12, b.y = 12 + 0.5 + 5, y2 = 10 b.y - 1 = 174, x = 17.5 t. */
static void ssp_build__transformation_between_components__values_by_hand(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(NULL, "sed 's|startElement=\"a\" startConnector=\"y\" endElement=\"b\" "
	             "endConnector=\"u\"/>|startElement=\"a\" startConnector=\"y\" endElement=\"b\" "
	             "endConnector=\"u\"><ssc:LinearTransformation factor=\"2\"/></ssd:Connection>|'"
	             " %s > %s", tmp("chain.ssd"), tmp("lin2.ssd"));
	assert_int_equal(rc, 0);
	rc = run(&log, "%s/sacc build %s -o %s && %s/sacc simulate %s --set chain.u=2 --stop 1 "
	         "--step 0.25 -o %s", sacc, tmp("lin2.ssd"), tmp("lin2.fmu"), sacc,
	         tmp("lin2.fmu"), tmp("lin2.csv"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	char *csv = slurp(tmp("lin2.csv"));
	int n;
	double *y2 = column(csv, "chain.y2", &n), *x = column(csv, "chain.x", &n);
	assert_int_equal(n, 5);
	for (int k = 0; k < n; k++) {
		assert_close(y2[k], 174, 1e-12);
		assert_close(x[k], 17.5 * 0.25 * k, 1e-12);
	}
	free(y2);
	free(x);
	free(csv);
	rc = run(&log, "%s/sacc parse %s", sacc, tmp("lin2.ssd"));
	assert_int_equal(rc, 0);
	assert_contains(log, "a.y -> b.u (factor 2.0)");
	free(log);
}

/* A BooleanMapping and an IntegerMapping between components: b = (t < 0.01), n = 10. */
static void ssp_build__boolean_and_integer_maps__equal_to_simulation(void **state)
{
	(void)state;
	static const char *const pairs[] = {"maps.b", "b", "maps.n", "n"};
	composite_equals_simulation("maps.ssd", "--stop 0.5 --step 0.1", pairs, 2, 0);
	char *csv = slurp(tmp("maps.csv"));
	int n;
	double *b = column(csv, "maps.b", &n), *k10 = column(csv, "maps.n", &n);
	assert_int_equal(n, 6);
	for (int k = 0; k < n; k++) {
		assert_true(b[k] == (k == 0));
		assert_true(k10[k] == 10);
	}
	free(b);
	free(k10);
	free(csv);
}

/* Whether text holds every line of want (in any order): connections are a set. */
static void assert_lines(const char *text, const char *const *want, int n)
{
	for (int i = 0; i < n; i++) {
		char line[256];
		snprintf(line, sizeof line, "\n%s\n", want[i]);
		char *padded = malloc(strlen(text) + 3);
		sprintf(padded, "\n%s\n", text);
		assert_contains(padded, line);
		free(padded);
	}
}

static void ssp_export__then_import__the_same_scenario(void **state)
{
	(void)state;
	const char *sacc = build_dir();
	char *log;
	int rc = run(&log, "%s/sacc ssp export -L %s/fmus docs/examples/language/two_mass.sa "
	             "--set m1.k=2.5 -o %s && rm -rf %s && %s/sacc ssp import %s -o %s", sacc, sacc,
	             tmp("rt.ssp"), tmp("rt"), sacc, tmp("rt.ssp"), tmp("rt"));
	if (rc)
		fail_msg("%s", log);
	free(log);
	char *sa = slurp(tmp("rt/two_mass.sa"));
	/* The same module, fmu declarations, connections and --set value. */
	static const char *const want[] = {
		"module two_mass", "fmu mass1 m1 at \"mass1.fmu\"", "fmu mass2 m2 at \"mass2.fmu\"",
		"m1.x -> m2.xo", "m1.v -> m2.vo", "m2.x -> m1.xo", "m2.v -> m1.vo",
		"//   --set m1.k=2.5",
	};
	assert_lines(sa, want, (int)(sizeof want / sizeof want[0]));
	int arrows = 0;
	for (const char *p = sa; (p = strstr(p, " -> ")); p++)
		arrows++;
	assert_int_equal(arrows, 4);
	free(sa);
	/* And it runs as the original does, bit for bit. */
	const char *sim = "%s/sacc simulate %s %s --set m1.k=2.5 --stop 1 --step 0.1 -o %s";
	char fmus[256];
	snprintf(fmus, sizeof fmus, "-L %s/fmus", sacc);
	assert_int_equal(run(NULL, sim, sacc, fmus, "docs/examples/language/two_mass.sa",
	                     tmp("rt_orig.csv")), 0);
	assert_int_equal(run(NULL, sim, sacc, "", tmp("rt/two_mass.sa"), tmp("rt_back.csv")), 0);
	char *a = slurp(tmp("rt_orig.csv")), *b = slurp(tmp("rt_back.csv"));
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void ssp_inner__missing_system__not_found_where_it_was_looked_for(void **state)
{
	(void)state;
	FILE *f = fopen(tmp("lost.sa"), "w");
	assert_non_null(f);
	fputs("module lost\nsemantic adaptation lost\nat \"lost.fmu\"\n"
	      "\tfor inner fmu Sys sys\n\t\tat \"nowhere.ssp\"\n", f);
	fclose(f);
	char *log;
	int rc = run(&log, "%s/sacc check %s", build_dir(), tmp("lost.sa"));
	assert_int_equal(rc, 1);
	assert_contains(log, "lost.sa:5:6: error: cannot find the SSP system of inner fmu 'sys' "
	                "at \"nowhere.ssp\"");
	assert_contains(log, "note: looked in ");
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ssp_build__chain__composite_equals_the_hand_written_adaptation_bit_for_bit),
		cmocka_unit_test(ssp_build__chain__minimal_importer_steps_it),
		cmocka_unit_test(ssp_build__chain_fmi3__passes_the_fmi3_checker),
		cmocka_unit_test(ssp_inner__adaptation_over_a_system__values_by_hand),
		cmocka_unit_test(ssp_inner__one_system_two_spellings__read_once),
		cmocka_unit_test(ssp_build__exported_scenario__builds_with_its_set_values_bound),
		cmocka_unit_test(ssp_build__transformation_between_components__values_by_hand),
		cmocka_unit_test(ssp_build__units_across_nested_systems__equal_to_simulation),
		cmocka_unit_test(ssp_build__linear_transformation_in_an_archive__equal_to_simulation),
		cmocka_unit_test(ssp_build__boolean_and_integer_maps__equal_to_simulation),
		cmocka_unit_test(ssp_inner__missing_system__not_found_where_it_was_looked_for),
		cmocka_unit_test(ssp_export__then_import__the_same_scenario),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
