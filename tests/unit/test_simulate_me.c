/* test_simulate_me.c — `sacc simulate` and Model Exchange FMUs, as users run it: which
 * interface each FMU runs through (its only one, Co-Simulation when it offers both,
 * --interface's choice for all or one instance), as --explain reports it, and the usage
 * errors of --interface, --solver, --me-tolerance and --me-max-step, on bare
 * modelDescription.xml files that --explain reads without loading anything.  Then runs of
 * the Model Exchange test FMUs (tests/fmus_me/, FMI 2.0 and 3.0) against their exact
 * solutions: the damped oscillator alone under each solver, coupled with Co-Simulation
 * FMUs under Jacobi and Gauss-Seidel, the bouncing ball past its first impact, a discrete
 * Real input from a file set in Event Mode. */
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
#include "csv.h"
#include "simulate_test.h"

#include <math.h>

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
	/* (with every FMU out of process, `make check-isolated`, each has a process instead) */
	const char *where = sim_isolated() ? "a process of its own each (--isolate)"
	                                   : "one library in this process for";
	char want[512];
	snprintf(want, sizeof want, "fmu files: 2, extracted 2 times\n"
	         "  me.xml:\n"
	         "    %s: a\n"
	         "    run as Model Exchange (decay_me), integrated by sacc: a\n"
	         "  both.xml:\n"
	         "    %s: b, c\n", where, where);
	assert_string_equal(s, want);
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

/* melinear's exact solution for a constant input u (tests/fmus_me/README.md): x1, x2 at t. */
static void melinear_exact(double u, double t, double *x1, double *x2)
{
	const double k = 4, c = 0.4, b = 1, x10 = 1000, x20 = 0;
	double xs = b * u / k, a = c / 2, w = sqrt(k - a * a), y0 = x10 - xs;
	double p = y0, q = (x20 + a * y0) / w, e = exp(-a * t);
	*x1 = xs + e * (p * cos(w * t) + q * sin(w * t));
	*x2 = e * ((q * w - a * p) * cos(w * t) - (p * w + a * q) * sin(w * t));
}

/* Column name of the result at path, every row, within tol * max(1, |want|) of want(t)
 * (which = 0: x1, 1: x2 of melinear_exact with input u at t + shift); the number of rows. */
static size_t check_melinear(const char *path, const char *name, int which, double u,
                             double shift, double tol)
{
	char err[256];
	CsvTable *t = csv_read(path, err, sizeof err);
	if (!t)
		print_error("%s\n", err);
	assert_non_null(t);
	int col = csv_column(t, name);
	if (col <= 0)
		print_error("no column %s\n", name);
	assert_true(col > 0);
	for (size_t r = 0; r < t->nrows; r++) {
		double time = t->data[r * (size_t)t->ncols], x[2];
		melinear_exact(u, fmax(0, time + shift), &x[0], &x[1]);
		double got = t->data[r * (size_t)t->ncols + (size_t)col];
		if (!(fabs(got - x[which]) <= tol * fmax(1, fabs(x[which]))))
			print_error("%s at t = %g: %.17g, exact %.17g\n", name, time, got, x[which]);
		assert_true(fabs(got - x[which]) <= tol * fmax(1, fabs(x[which])));
	}
	size_t n = t->nrows;
	csv_free(t);
	return n;
}

/* The oscillator run as Model Exchange, FMI 2.0 and 3.0, under each solver: the exact
 * solution at every point, to what the tolerance asks.  Run as Co-Simulation (its RK4) it
 * is close too, but not the same numbers: --interface did choose. */
static void simulate_me__melinear__exact_solution_every_solver(void **state)
{
	Ctx *c = *state;
	static const char *const solvers[] = {"auto", "explicit", "implicit"};
	char args[1024];
	for (int v = 2; v <= 3; v++) {
		for (int k = 0; k < 3; k++) {
			snprintf(args, sizeof args, "'%s/fmus_me/fmi%d/melinear.fmu' --interface me "
			         "--solver %s --me-tolerance 1e-10 --stop 3 --step 0.25 -o '%s'",
			         test_build_dir(), v, solvers[k], path_in(c, "me.csv"));
			assert_int_equal(simulate(c, args), 0);
			assert_int_equal(check_melinear(path_in(c, "me.csv"), "melinear.x1", 0, 0, 0,
			                                1e-8), 13);
			check_melinear(path_in(c, "me.csv"), "melinear.x2", 1, 0, 0, 1e-8);
		}
		/* the FMU's default tolerance (1e-8 in its DefaultExperiment) and max step */
		snprintf(args, sizeof args, "'%s/fmus_me/fmi%d/melinear.fmu' --interface me "
		         "--me-max-step 0.01 --stop 3 --step 0.25 -o '%s'", test_build_dir(), v,
		         path_in(c, "me.csv"));
		assert_int_equal(simulate(c, args), 0);
		check_melinear(path_in(c, "me.csv"), "melinear.x1", 0, 0, 0, 1e-6);
		snprintf(args, sizeof args, "'%s/fmus_me/fmi%d/melinear.fmu' --stop 3 --step 0.25 "
		         "-o '%s'", test_build_dir(), v, path_in(c, "cs.csv"));
		assert_int_equal(simulate(c, args), 0);
		char *me = file_in(c, "me.csv"), *cs = file_in(c, "cs.csv");
		assert_string_not_equal(me, cs);
		free(me);
		free(cs);
	}
	assert_tmp_empty(c);
}

/* The oscillator between two Co-Simulation FMUs (affine, y = u + offset): src feeds it a
 * constant 1, and dst reads x1 back.  Under Gauss-Seidel dst sees x1 of the step's end,
 * under Jacobi x1 of its start: both the exact solution, shifted by one step for Jacobi. */
static void simulate_me__coupled_with_cs__jacobi_and_gauss_seidel(void **state)
{
	Ctx *c = *state;
	write_text(c, "cpl.sa",
	           "module cpl\n"
	           "fmu Affine src at \"affine.fmu\"\n"
	           "fmu Lin lin at \"melinear.fmu\"\n"
	           "fmu Affine dst at \"affine.fmu\"\n"
	           "src.y -> lin.u\n"
	           "lin.x1 -> dst.u\n");
	char args[2048];
	for (int v = 2; v <= 3; v++) {
		for (int m = 0; m < 2; m++) {
			snprintf(args, sizeof args, "-L '%s/fmus_me/fmi%d' --interface lin=me "
			         "--me-tolerance 1e-10 --master %s --set src.offset=1 --stop 2 --step 0.25 "
			         "--record lin.x1,dst.y -o '%s' '%s'", test_build_dir(), v,
			         m ? "gauss-seidel" : "jacobi", path_in(c, "r.csv"), path_in(c, "cpl.sa"));
			int rc = simulate(c, args);
			if (rc) {
				char *err = file_in(c, "err.txt");
				print_error("%s", err);
				free(err);
			}
			assert_int_equal(rc, 0);
			assert_int_equal(check_melinear(path_in(c, "r.csv"), "lin.x1", 0, 1, 0, 1e-8), 9);
			check_melinear(path_in(c, "r.csv"), "dst.y", 0, 1, m ? 0 : -0.25, 1e-8);
		}
	}
	assert_tmp_empty(c);
}

/* The bouncing ball offers Model Exchange only and runs as such without being told: its
 * height after the first impact is the free flight's, the impact located exactly. */
static void simulate_me__mebounce__impact_located(void **state)
{
	Ctx *c = *state;
	const double g = 9.81, e = 0.7, t1 = sqrt(2 / g), v1 = g * t1;
	char args[1024];
	for (int v = 2; v <= 3; v++) {
		snprintf(args, sizeof args, "'%s/fmus_me/fmi%d/mebounce.fmu' --stop 1 --step 0.1 -o "
		         "'%s'", test_build_dir(), v, path_in(c, "b.csv"));
		assert_int_equal(simulate(c, args), 0);
		char err[256];
		CsvTable *t = csv_read(path_in(c, "b.csv"), err, sizeof err);
		assert_non_null(t);
		int h = csv_column(t, "mebounce.h");
		assert_true(h > 0);
		assert_int_equal(t->nrows, 11);
		for (size_t r = 0; r < t->nrows; r++) {
			double time = t->data[r * (size_t)t->ncols], s = time - t1;
			double want = time < t1 ? 1 - g * time * time / 2 : e * v1 * s - g * s * s / 2;
			double got = t->data[r * (size_t)t->ncols + (size_t)h];
			if (!(fabs(got - want) <= 1e-8))
				print_error("h at t = %g: %.17g, exact %.17g\n", time, got, want);
			assert_true(fabs(got - want) <= 1e-8);
		}
		csv_free(t);
	}
	assert_tmp_empty(c);
}

/* metime's discrete Real input `gain` from a file, 1 then 2 from t = 0.5: `sacc simulate`
 * sets it between steps, which the FMU takes only in Event Mode.  x' = gain u with u
 * = 1, 3, -2, 0.5 on quarters (tests/fmus_me/README.md): x = 0.25, 1 at 0.25 and 0.5, then
 * 1 + 2 (-2) 0.25 = 0 at 0.75 and 0 + 2 (0.5) 0.25 = 0.25 at 1. */
static void simulate_me__discrete_real_input__set_in_event_mode(void **state)
{
	Ctx *c = *state;
	static const double want[] = {0, 0.25, 1, 0, 0.25};
	char args[1024];
	write_text(c, "gain.csv", "time,gain\n0,1\n0.5,2\n");
	for (int v = 2; v <= 3; v++) {
		snprintf(args, sizeof args, "'%s/fmus_me/fmi%d/metime.fmu' --stop 1 --step 0.25 "
		         "--input '%s' -o '%s'", test_build_dir(), v, path_in(c, "gain.csv"),
		         path_in(c, "t.csv"));
		assert_int_equal(simulate(c, args), 0);
		char err[256];
		CsvTable *t = csv_read(path_in(c, "t.csv"), err, sizeof err);
		assert_non_null(t);
		int x = csv_column(t, "metime.x");
		assert_true(x > 0);
		assert_int_equal(t->nrows, 5);
		for (size_t r = 0; r < t->nrows; r++) {
			double got = t->data[r * (size_t)t->ncols + (size_t)x];
			if (!(fabs(got - want[r]) <= 1e-12))
				print_error("x at row %zu: %.17g, exact %.17g\n", r, got, want[r]);
			assert_true(fabs(got - want[r]) <= 1e-12);
		}
		csv_free(t);
	}
	assert_tmp_empty(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(simulate_me__interfaces__defaults_and_choices, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_me__usage_errors__exit_2, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_me__melinear__exact_solution_every_solver,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_me__coupled_with_cs__jacobi_and_gauss_seidel,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_me__mebounce__impact_located, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_me__discrete_real_input__set_in_event_mode,
		                                setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
