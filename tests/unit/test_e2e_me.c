/* test_e2e_me.c — wrappers over Model Exchange inners, end to end: a pass-through over the
 * bouncing ball (tests/fmus_me/mebounce, Model Exchange only) built as FMI 2.0 and 3.0
 * through the library as `sacc build` builds it, loaded by the suite's strict importers
 * (every function the standard declares must be exported) and stepped on a grid.  The
 * reference is the bare ME FMU run by `sacc simulate` on the same grid: the wrapper
 * integrates its inner within each doStep as the master's seam does, so the numbers are the
 * same.  Also the wrapper's state (the inner's, with the solver's) restored and replayed
 * bit for bit, and a wrapper over the oscillator (melinear, which offers both interfaces)
 * that asks for Model Exchange and an implicit solver, against the exact solution.  The
 * importer's tolerance reaching the inner's solver unless the script sets one, and the
 * inner's tunable parameter set through the wrapper between steps.
 *
 * Run from the repository root with SACC_BUILD naming the build directory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "assert_contains.h"
#include "package.h"
#include "sacc_test.h"
#include "e2e_kit.h"
#include "e2e_fmi3.h"
#include "csv.h"

#define OUT "e2e_me"
#define H 0.05
#define NSTEPS 30 /* to 1.5 s: three impacts */

/* The scripts, written into BUILD/OUT/ (the FMI version is the build's). */
static const char ball_sa[] =
	"module ball_sa\n"
	"semantic adaptation delayed moore ball_sa\n"
	"at \"ball_sa.fmu\"\n"
	"\tfor inner fmu Bounce ball\n"
	"\t\tat \"mebounce.fmu\"\n";

static const char osc_sa[] =
	"module osc_sa\n"
	"semantic adaptation delayed moore osc_sa\n"
	"at \"osc_sa.fmu\"\n"
	"\tfor inner fmu Oscillator lin\n"
	"\t\tat \"melinear.fmu\"\n"
	"\t\twith model exchange\n"
	"\t\twith solver = implicit and relative tolerance = 1e-10\n";

static void write_script(const char *name, const char *text, char path[PATH_MAX])
{
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", test_build_dir(), OUT);
	assert_int_equal(system(cmd), 0);
	snprintf(path, PATH_MAX, "%s/%s/%s", test_build_dir(), OUT, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* script built as FMI version v into BUILD/OUT/fmiV/, its inners from BUILD/fmus_me/fmiV/. */
static void build_me(const char *name, const char *text, int v)
{
	char script[PATH_MAX], sub[32], fmus[32];
	static char diag[16384];
	write_script(name, text, script);
	snprintf(sub, sizeof sub, "%s/fmi%d", OUT, v);
	snprintf(fmus, sizeof fmus, "fmus_me/fmi%d", v);
	BuildOptions o = {v, NULL, fmus, NULL, false};
	int errors = build_with(script, sub, o, diag, sizeof diag);
	if (errors)
		print_error("%s", diag);
	assert_int_equal(errors, 0);
}

static int group_setup(void **state)
{
	(void)state;
	for (int v = 2; v <= 3; v++) {
		build_me("ball_sa.sa", ball_sa, v);
		build_me("osc_sa.sa", osc_sa, v);
	}
	return 0;
}

/* The bare FMI version v mebounce run by `sacc simulate` on the grid, at the relative
 * tolerance tol (0: the default, the DefaultExperiment's 1e-8): h and v per point. */
static CsvTable *bare_run_at(int v, double tol)
{
	char cmd[4 * PATH_MAX], csv[PATH_MAX], opt[64] = "";
	if (tol > 0)
		snprintf(opt, sizeof opt, "--me-tolerance %g", tol);
	snprintf(csv, sizeof csv, "%s/%s/bare%d_%g.csv", test_build_dir(), OUT, v, tol);
	snprintf(cmd, sizeof cmd, "'%s/sacc' simulate '%s/fmus_me/fmi%d/mebounce.fmu' --stop %g "
	         "--step %g %s -o '%s' 2>/dev/null", test_build_dir(), test_build_dir(), v,
	         NSTEPS * H, H, opt, csv);
	assert_int_equal(system(cmd), 0);
	char err[256];
	CsvTable *t = csv_read(csv, err, sizeof err);
	if (!t)
		print_error("%s\n", err);
	assert_non_null(t);
	assert_int_equal(t->nrows, NSTEPS + 1);
	return t;
}

static CsvTable *bare_run(int v)
{
	return bare_run_at(v, 0);
}

static double cell(const CsvTable *t, size_t row, const char *name)
{
	int c = csv_column(t, name);
	assert_true(c > 0);
	return t->data[row * (size_t)t->ncols + (size_t)c];
}

/* Step k of the grid as the master makes it: from (k - 1) H to k H, so that the steps land
 * on the same times as `sacc simulate`'s. */
static double t_at(int k)
{
	return (double)k * H;
}

/* Same bits, with both values shown when not. */
static void assert_same(double got, double want, const char *what, int k)
{
	if (memcmp(&got, &want, sizeof got) != 0)
		print_error("%s after step %d: %.17g, sacc simulate %.17g\n", what, k, got, want);
	assert_memory_equal(&got, &want, sizeof got);
}

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category, (void)message;
}

static const fmi2CallbackFunctions callbacks2 = {logger2, calloc, free, NULL, NULL};

/* An FMI 2.0 wrapper built into BUILD/OUT/fmi2/<id>.fmu, unpacked, imported by the strict
 * importer and initialized at 0 with the relative tolerance tol (0: none given). */
static fmi2Component start2_at(Fmi2Api *api, const char *id, char dir[PATH_MAX], double tol)
{
	char lib[2 * PATH_MAX], guid[64], uri[PATH_MAX + 32];
	unpack(OUT "/fmi2", id, dir);
	snprintf(lib, sizeof lib, "%s/binaries/linux64/%s.so", dir, id);
	fmi2_import(api, lib);
	assert_true(md_attr(dir, "guid=", "guid", guid, sizeof guid));
	snprintf(uri, sizeof uri, "file://%s/resources", dir);
	fmi2Component c = api->instantiate("w2", fmi2CoSimulation, guid, uri, &callbacks2,
	                                   fmi2False, fmi2False);
	assert_non_null(c);
	assert_int_equal(api->setup(c, tol > 0 ? fmi2True : fmi2False, tol, 0, fmi2False, 0),
	                 fmi2OK);
	assert_int_equal(api->enter_init(c), fmi2OK);
	assert_int_equal(api->exit_init(c), fmi2OK);
	return c;
}

static fmi2Component start2(Fmi2Api *api, const char *id, char dir[PATH_MAX])
{
	return start2_at(api, id, dir, 0);
}

static double get2(Fmi2Api *api, fmi2Component c, unsigned vr)
{
	double x = NAN;
	assert_int_equal(api->get_real(c, &vr, 1, &x), fmi2OK);
	return x;
}

static double get3(Fmu3 *f, unsigned vr)
{
	double x = NAN;
	assert_int_equal(f->api.get_float64(f->c, &vr, 1, &x, 1), fmi3OK);
	return x;
}

static void step3(Fmu3 *f, double t, double h)
{
	fmi3Boolean event = fmi3False, terminate = fmi3False, early = fmi3False;
	double last = 0;
	assert_int_equal(f->api.do_step(f->c, t, h, fmi3True, &event, &terminate, &early, &last),
	                 fmi3OK);
	assert_false(terminate);
	assert_false(early);
}

/* FMI 2.0: the wrapper's h and v are the bare FMU's after every step; its model description
 * says it can get and set its state, as the ball's Model Exchange element does. */
static void me_wrapper2__bouncing_ball__same_as_the_bare_fmu(void **state)
{
	(void)state;
	CsvTable *ref = bare_run(2);
	Fmi2Api api;
	char dir[PATH_MAX];
	fmi2Component c = start2(&api, "ball_sa", dir);
	char *md = read_md(dir);
	assert_has(md, "canGetAndSetFMUstate=\"true\"");
	free(md);
	unsigned h = vr_of(dir, "h"), v = vr_of(dir, "v");
	assert_same(get2(&api, c, h), cell(ref, 0, "mebounce.h"), "h", 0);
	for (int k = 1; k <= NSTEPS; k++) {
		assert_int_equal(api.do_step(c, t_at(k - 1), t_at(k) - t_at(k - 1), fmi2True), fmi2OK);
		assert_same(get2(&api, c, h), cell(ref, (size_t)k, "mebounce.h"), "h", k);
		assert_same(get2(&api, c, v), cell(ref, (size_t)k, "mebounce.v"), "v", k);
	}
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
	fmi2_unimport(&api);
	csv_free(ref);
}

/* FMI 2.0: a state taken before the first impact, restored after the third, replays the
 * same numbers: the inner's state carries the solver's. */
static void me_wrapper2__state_restored__replays_bit_for_bit(void **state)
{
	(void)state;
	Fmi2Api api;
	char dir[PATH_MAX];
	fmi2Component c = start2(&api, "ball_sa", dir);
	unsigned h = vr_of(dir, "h");
	double first[NSTEPS + 1];
	fmi2FMUstate s = NULL;
	for (int k = 1; k <= NSTEPS; k++) {
		if (k == 5)
			assert_int_equal(api.get_state(c, &s), fmi2OK);
		assert_int_equal(api.do_step(c, t_at(k - 1), t_at(k) - t_at(k - 1), fmi2True), fmi2OK);
		first[k] = get2(&api, c, h);
	}
	assert_int_equal(api.set_state(c, s), fmi2OK);
	for (int k = 5; k <= NSTEPS; k++) {
		assert_int_equal(api.do_step(c, t_at(k - 1), t_at(k) - t_at(k - 1), fmi2True), fmi2OK);
		assert_same(get2(&api, c, h), first[k], "h replayed", k);
	}
	assert_int_equal(api.free_state(c, &s), fmi2OK);
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
	fmi2_unimport(&api);
}

/* FMI 3.0: the same against the FMI 3.0 ball. */
static void me_wrapper3__bouncing_ball__same_as_the_bare_fmu(void **state)
{
	(void)state;
	CsvTable *ref = bare_run(3);
	Fmu3 f;
	fmu3_start_wrapper(&f, OUT "/fmi3", "ball_sa");
	unsigned h = vr_of(f.dir, "h"), v = vr_of(f.dir, "v");
	assert_same(get3(&f, h), cell(ref, 0, "mebounce.h"), "h", 0);
	for (int k = 1; k <= NSTEPS; k++) {
		step3(&f, t_at(k - 1), t_at(k) - t_at(k - 1));
		assert_same(get3(&f, h), cell(ref, (size_t)k, "mebounce.h"), "h", k);
		assert_same(get3(&f, v), cell(ref, (size_t)k, "mebounce.v"), "v", k);
	}
	assert_int_equal(f.api.terminate(f.c), fmi3OK);
	f.api.free_instance(f.c);
	fmi3_unimport(&f.api);
	csv_free(ref);
}

/* A wrapper of either version built into BUILD/OUT/fmiV/, imported and initialized, for
 * the tests that run the same steps on both. */
typedef struct Either {
	int ver;
	Fmi2Api api;
	fmi2Component c2;
	Fmu3 f;
	char dir[PATH_MAX];
} Either;

static void either_start(Either *w, int ver, const char *id)
{
	w->ver = ver;
	if (ver == 2) {
		w->c2 = start2(&w->api, id, w->dir);
	} else {
		fmu3_start_wrapper(&w->f, OUT "/fmi3", id);
		snprintf(w->dir, sizeof w->dir, "%s", w->f.dir);
	}
}

static void either_step(Either *w, double t, double h)
{
	if (w->ver == 2)
		assert_int_equal(w->api.do_step(w->c2, t, h, fmi2True), fmi2OK);
	else
		step3(&w->f, t, h);
}

static double either_get(Either *w, unsigned vr)
{
	return w->ver == 2 ? get2(&w->api, w->c2, vr) : get3(&w->f, vr);
}

static void either_stop(Either *w)
{
	if (w->ver == 2) {
		assert_int_equal(w->api.terminate(w->c2), fmi2OK);
		w->api.free_instance(w->c2);
		fmi2_unimport(&w->api);
	} else {
		assert_int_equal(w->f.api.terminate(w->f.c), fmi3OK);
		w->f.api.free_instance(w->f.c);
		fmi3_unimport(&w->f.api);
	}
}

/* The oscillator offers both interfaces; `with model exchange` and the implicit solver at
 * 1e-10 give the exact solution (tests/fmus_me/README.md) within 1e-8, in both versions. */
static void me_wrapper__oscillator_chosen_as_me__exact_solution(void **state)
{
	(void)state;
	const double k = 4, c = 0.4, a = c / 2, w = sqrt(k - a * a), x0 = 1000;
	for (int ver = 2; ver <= 3; ver++) {
		Either wr;
		either_start(&wr, ver, "osc_sa");
		char *md = read_md(wr.dir);
		/* the wrapper is Co-Simulation; its inner's Model Exchange element is named in
		 * the C, never in the wrapper's description */
		assert_has(md, "<CoSimulation");
		assert_null(strstr(md, "<ModelExchange"));
		free(md);
		unsigned x1 = vr_of(wr.dir, "x1");
		for (int n = 1; n <= 20; n++) {
			double t = n * 0.1;
			either_step(&wr, t - 0.1, 0.1);
			double got = either_get(&wr, x1);
			double want = exp(-a * t) * x0 * (cos(w * t) + a / w * sin(w * t));
			if (!(fabs(got - want) <= 1e-8 * fmax(1, fabs(want))))
				print_error("FMI %d: x1(%g) = %.17g, exact %.17g\n", ver, t, got, want);
			assert_true(fabs(got - want) <= 1e-8 * fmax(1, fabs(want)));
		}
		either_stop(&wr);
	}
}

/* The importer's tolerance reaches the inner's solver when the script sets none: the
 * ball's wrapper given 1e-3 by setupExperiment steps as `sacc simulate --me-tolerance
 * 1e-3` runs the bare FMU, bit for bit (and not as the DefaultExperiment's 1e-8 does).
 * The oscillator's script says 1e-10, which the importer's 1e-3 does not change. */
static void me_wrapper2__importer_tolerance__used_unless_the_script_sets_one(void **state)
{
	(void)state;
	CsvTable *coarse = bare_run_at(2, 1e-3), *fine = bare_run(2);
	Fmi2Api api;
	char dir[PATH_MAX];
	fmi2Component c = start2_at(&api, "ball_sa", dir, 1e-3);
	unsigned h = vr_of(dir, "h"), v = vr_of(dir, "v");
	int differs = 0;
	for (int k = 1; k <= NSTEPS; k++) {
		assert_int_equal(api.do_step(c, t_at(k - 1), t_at(k) - t_at(k - 1), fmi2True), fmi2OK);
		double hk = get2(&api, c, h), vk = get2(&api, c, v);
		assert_same(hk, cell(coarse, (size_t)k, "mebounce.h"), "h", k);
		assert_same(vk, cell(coarse, (size_t)k, "mebounce.v"), "v", k);
		differs |= hk != cell(fine, (size_t)k, "mebounce.h") ||
		           vk != cell(fine, (size_t)k, "mebounce.v");
	}
	assert_true(differs);
	assert_int_equal(api.terminate(c), fmi2OK);
	api.free_instance(c);
	fmi2_unimport(&api);
	csv_free(coarse);
	csv_free(fine);

	double x[2][20];
	for (int run = 0; run < 2; run++) {
		c = start2_at(&api, "osc_sa", dir, run ? 1e-3 : 0);
		unsigned x1 = vr_of(dir, "x1");
		for (int n = 1; n <= 20; n++) {
			assert_int_equal(api.do_step(c, (n - 1) * 0.1, 0.1, fmi2True), fmi2OK);
			x[run][n - 1] = get2(&api, c, x1);
		}
		assert_int_equal(api.terminate(c), fmi2OK);
		api.free_instance(c);
		fmi2_unimport(&api);
	}
	assert_memory_equal(x[0], x[1], sizeof x[0]);
}

/* The inner's tunable restitution, exposed as the wrapper's parameter `ball.e`, set
 * between steps before the first impact (t1 = sqrt(2 / g)): the inner takes it in Event
 * Mode and the impact uses it, v = e v1 - g (t - t1) after it, v1 = g t1.  FMI 2.0 and 3.0
 * wrappers. */
static void me_wrapper__tunable_inner_parameter__next_impact_uses_it(void **state)
{
	(void)state;
	const double g = 9.81, t1 = sqrt(2.0 / g), v1 = g * t1, e = 0.5;
	for (int ver = 2; ver <= 3; ver++) {
		Either wr;
		either_start(&wr, ver, "ball_sa");
		unsigned ve = vr_of(wr.dir, "ball.e"), vv = vr_of(wr.dir, "v");
		for (int k = 1; k <= 12; k++) {
			if (k == 7) { /* at t = 0.3 */
				if (ver == 2)
					assert_int_equal(wr.api.set_real(wr.c2, &ve, 1, &e), fmi2OK);
				else
					assert_int_equal(wr.f.api.set_float64(wr.f.c, &ve, 1, &e, 1), fmi3OK);
			}
			either_step(&wr, t_at(k - 1), t_at(k) - t_at(k - 1));
		}
		double got = either_get(&wr, vv);
		double want = e * v1 - g * (t_at(12) - t1);
		if (!(fabs(got - want) <= 1e-5))
			print_error("FMI %d: v(0.6) = %.17g, expected %.17g\n", ver, got, want);
		assert_true(fabs(got - want) <= 1e-5);
		either_stop(&wr);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(me_wrapper2__bouncing_ball__same_as_the_bare_fmu),
		cmocka_unit_test(me_wrapper2__state_restored__replays_bit_for_bit),
		cmocka_unit_test(me_wrapper3__bouncing_ball__same_as_the_bare_fmu),
		cmocka_unit_test(me_wrapper__oscillator_chosen_as_me__exact_solution),
		cmocka_unit_test(me_wrapper2__importer_tolerance__used_unless_the_script_sets_one),
		cmocka_unit_test(me_wrapper__tunable_inner_parameter__next_impact_uses_it),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
