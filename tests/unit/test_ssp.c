/* test_ssp.c — SSP systems run by `sacc simulate` (the SACC_BUILD binary, as a user runs
 * it), and `sacc ssp import`.  The systems are written by hand under tests/ssp/: each case
 * is copied into a scratch directory with the test FMUs it names under resources/, and
 * packed into CASE.ssp by the build's fmu_pack.  Results are compared bit for bit with the
 * equivalent scenario module where one can say the same, with the same system laid out
 * differently (nested, or an .ssd beside its resources), and with values computed by hand;
 * each error of tests/ssp/errors/ with its exact message (NAME.err). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <zip.h>
#include <zlib.h>

#include "sacc_test.h"
#include "assert_contains.h"
#include "simulate_test.h"


/* The header line, units included (a literal's length without its NUL). */
#define starts_with(text, lit) (strncmp((text), (lit), sizeof(lit) - 1) == 0)
static int setup(void **state)
{
	return sim_setup(state, "test_ssp");
}

/* Runs "cd DIR && sacc ARGS" with out.txt and err.txt in the scratch directory. */
static int sacc_in_dir(Ctx *c, const char *args)
{
	const char *b = test_build_dir();
	char abs[512];
	if (b[0] == '/')
		snprintf(abs, sizeof abs, "%s", b);
	else if (!getcwd(abs, sizeof abs - strlen(b) - 2))
		return -1;
	else
		strcat(strcat(abs, "/"), b);
	snprintf(c->cmd, sizeof c->cmd, "cd '%s' && TMPDIR='%s' '%s/sacc' %s >out.txt 2>err.txt",
	         c->dir, c->tmp, abs, args);
	int st = system(c->cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* tests/ssp/CASE (or errors/NAME.ssd as NAME) copied to DIR/NAME with fmus (space
 * separated, from BUILD/fmus or BUILD/fmus3, or a path under BUILD such as
 * fmus_me/fmi2/melinear) under resources/, and packed as DIR/NAME.ssp. */
static void stage(Ctx *c, const char *from, const char *name, const char *fmus)
{
	const char *b = test_build_dir();
	char dst[600];
	snprintf(dst, sizeof dst, "%s/%s", c->dir, name);
	size_t n = strlen(from);
	if (n > 4 && strcmp(from + n - 4, ".ssd") == 0)
		snprintf(c->cmd, sizeof c->cmd, "mkdir -p '%s/resources' && cp tests/ssp/%s '%s/"
		         "SystemStructure.ssd'", dst, from, dst);
	else
		snprintf(c->cmd, sizeof c->cmd, "mkdir -p '%s' && cp -r tests/ssp/%s/. '%s' && mkdir -p "
		         "'%s/resources'", dst, from, dst, dst);
	assert_int_equal(system(c->cmd), 0);
	char list[256];
	snprintf(list, sizeof list, "%s", fmus);
	for (char *f = strtok(list, " "); f; f = strtok(NULL, " ")) {
		if (strchr(f, '/'))
			snprintf(c->cmd, sizeof c->cmd, "cp '%s/%s.fmu' '%s/resources/'", b, f, dst);
		else
			snprintf(c->cmd, sizeof c->cmd, "cp '%s/fmus/%s.fmu' '%s/resources/' 2>/dev/null "
			         "|| cp '%s/fmus3/%s.fmu' '%s/resources/'", b, f, dst, b, f, dst);
		assert_int_equal(system(c->cmd), 0);
	}
	snprintf(c->cmd, sizeof c->cmd, "cd '%s' && \"$OLDPWD/%s/tools/fmu_pack\" '../%s.ssp' .", dst,
	         b, name);
	assert_int_equal(system(c->cmd), 0);
}

/* Runs sacc ARGS in the scratch directory and expects exit 0; returns out.txt. */
static char *run_ok(Ctx *c, const char *args)
{
	int rc = sacc_in_dir(c, args);
	char *err = file_in(c, "err.txt");
	if (rc != 0)
		print_error("sacc %s: exit %d\n%s", args, rc, err);
	free(err);
	assert_int_equal(rc, 0);
	return file_in(c, "out.txt");
}

static char *body(char *csv)
{
	char *nl = strchr(csv, '\n');
	assert_non_null(nl);
	return nl + 1;
}

/* ---- runs ---------------------------------------------------------------------------------- */

static void ssp__twomass__same_bits_as_scenario_module(void **state)
{
	Ctx *c = *state;
	stage(c, "twomass", "twomass", "mass1 mass2");
	const char *masters[] = {"jacobi", "gauss-seidel"};
	for (int k = 0; k < 2; k++) {
		char args[512];
		snprintf(args, sizeof args, "simulate twomass.ssp --stop 1 --step 0.01 --master %s "
		         "-o ssp.csv", masters[k]);
		free(run_ok(c, args));
		snprintf(args, sizeof args, "simulate -L \"$OLDPWD/%s/fmus\" "
		         "\"$OLDPWD/docs/examples/language/two_mass.sa\" --stop 1 --step 0.01 "
		         "--master %s -o sa.csv", test_build_dir(), masters[k]);
		free(run_ok(c, args));
		char *a = file_in(c, "ssp.csv"), *s = file_in(c, "sa.csv");
		assert_true(strlen(a) > 1000);
		assert_string_equal(a, s);
		free(a);
		free(s);
	}
}

/* A Model Exchange only FMU alone in a system (tests/ssp/me_only, the bouncing ball, its
 * component named as the bare FMU's instance): sacc integrates it as it does the bare FMU,
 * bit for bit, FMI 2.0 and 3.0; --solver and --me-tolerance reach it as they reach the
 * bare FMU. */
static void ssp__me_only_component__same_bits_as_the_bare_fmu(void **state)
{
	Ctx *c = *state;
	static const char *const opts[] = {"", "--solver implicit --me-tolerance 1e-9"};
	for (int v = 2; v <= 3; v++) {
		char fmu[64], args[512];
		snprintf(fmu, sizeof fmu, "fmus_me/fmi%d/mebounce", v);
		stage(c, "me_only", "ball", fmu);
		for (int k = 0; k < 4 - v; k++) { /* the solver options for FMI 2.0 only */
			snprintf(args, sizeof args, "simulate ball.ssp --stop 1.5 --step 0.05 %s -o ssp.csv",
			         opts[k]);
			free(run_ok(c, args));
			snprintf(args, sizeof args, "simulate \"$OLDPWD/%s/%s.fmu\" --stop 1.5 --step 0.05 "
			         "%s -o fmu.csv", test_build_dir(), fmu, opts[k]);
			free(run_ok(c, args));
			char *a = file_in(c, "ssp.csv"), *f = file_in(c, "fmu.csv");
			assert_true(starts_with(a, "time,mebounce.h,mebounce.v\n"));
			assert_true(strlen(a) > 1000);
			assert_string_equal(a, f);
			free(a);
			free(f);
		}
	}
	assert_tmp_empty(c);
}

/* The oscillator, which offers both interfaces, between two Co-Simulation FMUs
 * (tests/ssp/me): its component's implementation="ModelExchange" runs it as Model
 * Exchange, bit for bit what the scenario module saying the same run with --interface
 * lin=me gives, under both masters.  Without the attribute --interface lin=me does the
 * same by the component's name, --interface lin=cs overrides the attribute, and Model
 * Exchange is not what Co-Simulation gives (the FMU's CS integrates by RK4).  The
 * composite's script says `with model exchange`; the imported module's comment says how
 * to run it. */
static void ssp__me_component_beside_cs__same_bits_as_scenario_module(void **state)
{
	Ctx *c = *state;
	write_text(c, "cpl.sa", "module cpl\n"
	           "fmu Affine src at \"affine.fmu\"\n"
	           "fmu Lin lin at \"melinear.fmu\"\n"
	           "fmu Affine dst at \"affine.fmu\"\n"
	           "src.y -> lin.u\n"
	           "lin.x1 -> dst.u\n");
	stage(c, "me", "me", "affine fmus_me/fmi2/melinear");
	snprintf(c->cmd, sizeof c->cmd, "cd '%s' && mkdir any && sed 's/ implementation=\"[A-Za-z]*\"//' "
	         "me/SystemStructure.ssd > any/SystemStructure.ssd && cp -r me/resources any/",
	         c->dir);
	assert_int_equal(system(c->cmd), 0);
	const char *run = "--set src.offset=1 --me-tolerance 1e-10 --stop 2 --step 0.25 "
	                  "--record lin.x1,dst.y";
	const char *masters[] = {"jacobi", "gauss-seidel"};
	for (int k = 0; k < 2; k++) {
		char args[1024];
		snprintf(args, sizeof args, "simulate me.ssp %s --master %s -o ssp.csv", run,
		         masters[k]);
		free(run_ok(c, args));
		snprintf(args, sizeof args, "simulate any/SystemStructure.ssd --interface lin=me %s "
		         "--master %s -o any.csv", run, masters[k]);
		free(run_ok(c, args));
		snprintf(args, sizeof args, "simulate -L \"$OLDPWD/%s/fmus\" -L "
		         "\"$OLDPWD/%s/fmus_me/fmi2\" cpl.sa --interface lin=me %s --master %s "
		         "-o sa.csv", test_build_dir(), test_build_dir(), run, masters[k]);
		free(run_ok(c, args));
		char *a = file_in(c, "ssp.csv"), *n = file_in(c, "any.csv"), *m = file_in(c, "sa.csv");
		assert_true(starts_with(a, "time,lin.x1,dst.y\n"));
		assert_string_equal(a, m);
		assert_string_equal(n, m);
		free(a);
		free(n);
		free(m);
	}
	char args[1024];
	snprintf(args, sizeof args, "simulate me.ssp --interface lin=cs --set src.offset=1 "
	         "--stop 2 --step 0.25 --record lin.x1,dst.y -o cs.csv");
	free(run_ok(c, args));
	snprintf(args, sizeof args, "simulate -L \"$OLDPWD/%s/fmus\" -L \"$OLDPWD/%s/fmus_me/fmi2\" "
	         "cpl.sa --set src.offset=1 --stop 2 --step 0.25 --record lin.x1,dst.y -o sacs.csv",
	         test_build_dir(), test_build_dir());
	free(run_ok(c, args));
	char *cs = file_in(c, "cs.csv"), *sacs = file_in(c, "sacs.csv"), *me = file_in(c, "ssp.csv");
	assert_string_equal(cs, sacs);
	assert_string_not_equal(cs, me);
	free(cs);
	free(sacs);
	free(me);
	/* as a composite FMU (sacc build me.ssp): the inner says so, as the scenario cannot */
	char *sa = run_ok(c, "parse me.ssp");
	assert_contains(sa, "\tfor inner fmu melinear lin\n");
	assert_contains(sa, "/melinear.fmu\"\n\t\twith model exchange\n");
	assert_null(strstr(strstr(sa, "with model exchange") + 1, "with model exchange"));
	free(sa);
	/* as a scenario module (sacc ssp import), which cannot say it: its comment says how */
	free(run_ok(c, "ssp import me.ssp -o imp"));
	char *mod = file_in(c, "imp/me.sa");
	assert_contains(mod, "// The components the SSP runs as Model Exchange: run with\n//   "
	                "--interface lin=me\n");
	free(mod);
	assert_tmp_empty(c);
}

static void ssp__nested_and_ssd__same_values(void **state)
{
	Ctx *c = *state;
	stage(c, "twomass", "twomass", "mass1 mass2");
	stage(c, "twomass_nested", "nested", "mass1 mass2");
	free(run_ok(c, "simulate twomass.ssp --stop 1 --step 0.01 -o flat.csv"));
	free(run_ok(c, "simulate nested.ssp --stop 1 --step 0.01 -o nested.csv"));
	free(run_ok(c, "simulate nested/SystemStructure.ssd --stop 1 --step 0.01 -o ssd.csv"));
	/* connectors not listed: taken from the FMUs' variables the connections name */
	stage(c, "twomass_bare", "bare", "mass1 mass2");
	free(run_ok(c, "simulate bare.ssp --stop 1 --step 0.01 -o bare.csv"));
	char *bare = file_in(c, "bare.csv");
	char *flat0 = file_in(c, "flat.csv");
	assert_string_equal(bare, flat0);
	free(bare);
	free(flat0);
	char *flat = file_in(c, "flat.csv"), *nested = file_in(c, "nested.csv");
	char *ssd = file_in(c, "ssd.csv");
	assert_true(starts_with(nested, "time,m1.x,m1.v,s.m2.x,s.m2.v\n"));
	assert_string_equal(body(flat), body(nested));
	assert_string_equal(nested, ssd);
	free(flat);
	free(nested);
	free(ssd);
}

/* y = gain u + offset with u = 0.02 x + 0.01 (2 x + 1 cm, in m), x = t, gain 0.3 * 10,
 * offset 50 cm; Ycm the same in cm. */
static void ssp__chain__hand_values(void **state)
{
	Ctx *c = *state;
	stage(c, "chain", "chain", "integrator affine");
	char *out = run_ok(c, "simulate chain.ssp --step 0.25 --record A.x,sub.B.u,sub.B.y,Y,Ycm");
	assert_true(starts_with(out, "time,A.x,sub.B.u,sub.B.y,Y,Ycm\n"));
	char *p = body(out);
	int rows = 0;
	double t, x, u, y, Y, ycm;
	while (sscanf(p, "%lf,%lf,%lf,%lf,%lf,%lf", &t, &x, &u, &y, &Y, &ycm) == 6) {
		assert_close(x, t, 1e-15);
		assert_close(u, 0.01 * (2 * t + 1), 1e-15);
		assert_close(y, 3 * 0.01 * (2 * t + 1) + 0.5, 1e-14);
		assert_true(Y == y);
		assert_close(ycm, 100 * y, 1e-12);
		rows++;
		p = strchr(p, '\n') + 1;
	}
	assert_int_equal(rows, 9); /* 0 to 2 (the SSD's DefaultExperiment) by 0.25 */
	free(out);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "start 0 and stop 2 (the SSD's DefaultExperiment)");
	free(err);
	out = run_ok(c, "simulate chain.ssp --explain");
	assert_contains(out, "  A.x -> sub.B.u [cm] -> [m]: x 0.02 +0.01\n");
	assert_contains(out, "  sub.B.y -> output Ycm [m] -> [cm]: x 100\n");
	assert_contains(out, "  sub.B.gain := 3\n");
	assert_contains(out, "  sub.B.offset := 0.5\n");
	free(out);
	/* --no-unit-conversion: the transformations stay, the units are not converted */
	out = run_ok(c, "simulate chain.ssp --step 1 --record sub.B.u --no-unit-conversion");
	assert_string_equal(out, "time,sub.B.u\n0,1\n1,3\n2,5\n");
	free(out);
	assert_tmp_empty(c);
}

static void ssp__maps__mapped_values(void **state)
{
	Ctx *c = *state;
	stage(c, "maps", "maps", "alltypes3");
	char *out = run_ok(c, "simulate maps.ssp --step 0.1 --record b.i32_out,b.bool_out,"
	                   "b.enum_out,a.enum_out");
	assert_string_equal(out, "time,b.i32_out,b.bool_out,b.enum_out,a.enum_out\n"
	                         "0,5,1,3,2\n0.1,5,1,3,2\n0.2,5,1,3,2\n0.3,5,1,3,2\n");
	free(out);
}

/* degC into K (an offset), hm into m (a unit only the SSD defines), and a connection that
 * suppresses the conversion; u = 1 reaches A and C from the system's bindings by prefix. */
static void ssp__units__hand_values(void **state)
{
	Ctx *c = *state;
	stage(c, "units", "units", "integrator affine passthrough");
	char *out = run_ok(c, "simulate units.ssp --stop 1 --step 0.125 --record B.u,B.w,B.y,E.y");
	assert_true(starts_with(out, "time,B.u,B.w,B.y,E.y\n"));
	char *p = body(out);
	int rows = 0;
	double t, u, w, y, e;
	while (sscanf(p, "%lf,%lf,%lf,%lf,%lf", &t, &u, &w, &y, &e) == 5) {
		assert_close(u, t + 273.15, 1e-12);
		assert_close(w, 100 * t, 1e-12);
		assert_close(y, t + 273.15 + 100 * t, 1e-12);
		assert_true(e == t);
		rows++;
		p = strchr(p, '\n') + 1;
	}
	assert_int_equal(rows, 9);
	free(out);
}

/* --set after the system's own parameter values wins. */
static void ssp__set__overrides_binding(void **state)
{
	Ctx *c = *state;
	stage(c, "chain", "chain", "integrator affine");
	char *out = run_ok(c, "simulate chain.ssp --step 1 --record A.x,sub.B.y --set "
	                   "sub.B.gain=0 --set A.u=2");
	/* x = 2 t (the system binds u = 1); y = 0 x + 0.5 */
	assert_string_equal(out, "time,A.x,sub.B.y\n0,0,0.5\n1,2,0.5\n2,4,0.5\n");
	free(out);
}

/* ---- sacc ssp import ------------------------------------------------------------------------ */

static void import__twomass__runs_the_same_bits(void **state)
{
	Ctx *c = *state;
	stage(c, "twomass", "twomass", "mass1 mass2");
	stage(c, "twomass_nested", "nested", "mass1 mass2");
	free(run_ok(c, "ssp import twomass.ssp -o imported"));
	free(run_ok(c, "ssp import nested.ssp -o imported_nested"));
	char *sa = file_in(c, "imported/twomass.sa");
	assert_contains(sa, "module twomass\n\nfmu mass1 m1 at \"mass1.fmu\"\n"
	                "fmu mass2 m2 at \"mass2.fmu\"\n");
	assert_contains(sa, "m1.x -> m2.xo\n");
	free(sa);
	free(run_ok(c, "simulate twomass.ssp --stop 1 --step 0.01 -o ssp.csv"));
	free(run_ok(c, "simulate imported/twomass.sa --stop 1 --step 0.01 -o sa.csv"));
	free(run_ok(c, "simulate imported_nested/twomass_nested.sa --stop 1 --step 0.01 "
	            "-o nested.csv"));
	char *a = file_in(c, "ssp.csv"), *b = file_in(c, "sa.csv"), *n = file_in(c, "nested.csv");
	assert_string_equal(a, b);
	assert_true(starts_with(n, "time,m1.x,m1.v,s_m2.x,s_m2.v\n"));
	assert_string_equal(body(a), body(n));
	free(a);
	free(b);
	free(n);
	assert_tmp_empty(c);
}

/* What a scenario module cannot say is refused at its place in the SSP. */
static void import__transformation__refused(void **state)
{
	Ctx *c = *state;
	stage(c, "chain", "chain", "integrator affine");
	stage(c, "maps", "maps", "alltypes3");
	assert_int_equal(sacc_in_dir(c, "ssp import chain.ssp -o out"), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "chain.ssp:SystemStructure.ssd:54:11: error: cannot import: the "
	                "connection into 'sub.B.u' transforms values (a LinearTransformation), which "
	                "a scenario module cannot say\n");
	free(err);
	assert_int_equal(sacc_in_dir(c, "ssp import maps.ssp -o out"), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "maps.ssp:SystemStructure.ssd:41:7: error: cannot import: the "
	                "connection into 'b.i32_in' maps values");
	free(err);
	assert_int_equal(sacc_in_dir(c, "ssp import chain.ssp"), 2);
	err = file_in(c, "err.txt");
	assert_contains(err, "sacc ssp: import: -o DIR is required");
	free(err);
	assert_int_equal(sacc_in_dir(c, "ssp imprt chain.ssp -o out"), 2);
	err = file_in(c, "err.txt");
	assert_contains(err, "sacc ssp: no subcommand 'imprt'; did you mean 'import'?");
	free(err);
}

/* ---- bad input ----------------------------------------------------------------------------- */

static void ssp__errors__exact_messages(void **state)
{
	Ctx *c = *state;
	const char *names[] = {
		"unknown_connector", "dangling_element", "type_mismatch", "two_connections",
		"incommensurable_units", "missing_fmu", "parameter_for_no_connector", "doctype",
		"wrong_kind", "two_elements", "implementation",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char from[128], args[256], errf[256];
		snprintf(from, sizeof from, "errors/%s.ssd", names[i]);
		stage(c, from, names[i], "mass1 mass2");
		snprintf(args, sizeof args, "simulate %s.ssp --stop 0.1", names[i]);
		int rc = sacc_in_dir(c, args);
		char *err = file_in(c, "err.txt");
		snprintf(errf, sizeof errf, "tests/ssp/errors/%s.err", names[i]);
		char *want = slurp(errf);
		if (rc != 1 || strcmp(err, want) != 0)
			print_error("%s: exit %d\n%s", names[i], rc, err);
		assert_int_equal(rc, 1);
		assert_string_equal(err, want);
		free(err);
		free(want);
	}
	assert_tmp_empty(c);
}

static void zw_add(zipFile zf, const char *name, const char *data)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip(zf, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 6),
	                 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)strlen(data)), ZIP_OK);
	assert_int_equal(zipCloseFileInZip(zf), ZIP_OK);
}

static void ssp__hostile_archive__refused(void **state)
{
	Ctx *c = *state;
	zipFile zf = zipOpen(path_in(c, "evil.ssp"), APPEND_STATUS_CREATE);
	assert_non_null(zf);
	zw_add(zf, "SystemStructure.ssd", "<x/>");
	zw_add(zf, "../evil", "x");
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
	assert_int_equal(sacc_in_dir(c, "simulate evil.ssp"), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "evil.ssp: error: refusing entry '../evil': its path has a '..' "
	                "component");
	free(err);
	/* a source that leaves the archive */
	zf = zipOpen(path_in(c, "up.ssp"), APPEND_STATUS_CREATE);
	zw_add(zf, "SystemStructure.ssd",
	       "<ssd:SystemStructureDescription version=\"1.0\" name=\"s\" xmlns:ssd=\"http://"
	       "ssp-standard.org/SSP1/SystemStructureDescription\">\n<ssd:System name=\"s\">"
	       "<ssd:Elements>\n<ssd:Component name=\"a\" source=\"../../etc/x.fmu\"/>"
	       "</ssd:Elements></ssd:System></ssd:SystemStructureDescription>\n");
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
	assert_int_equal(sacc_in_dir(c, "simulate up.ssp"), 1);
	err = file_in(c, "err.txt");
	assert_contains(err, "up.ssp:SystemStructure.ssd:3:33: error: component source "
	                "\"../../etc/x.fmu\" is not a relative path inside the archive");
	free(err);
	assert_tmp_empty(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ssp__twomass__same_bits_as_scenario_module, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(ssp__nested_and_ssd__same_values, setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__chain__hand_values, setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__maps__mapped_values, setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__units__hand_values, setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__set__overrides_binding, setup, teardown),
		cmocka_unit_test_setup_teardown(import__twomass__runs_the_same_bits, setup, teardown),
		cmocka_unit_test_setup_teardown(import__transformation__refused, setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__me_only_component__same_bits_as_the_bare_fmu,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__me_component_beside_cs__same_bits_as_scenario_module,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__errors__exact_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(ssp__hostile_archive__refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
