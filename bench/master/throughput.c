/* throughput.c — benchmark 3: what the orchestrator (orchestrator/, over
 * the seam runtime/sart_inner.c) adds per macro step to the FMUs' own work, against a
 * hand-written loop that calls the same FMUs' fmi2* functions directly (the floor).
 *
 *   throughput master|master-save|hand|wrapper|wrapper-nofast BUILD N [check]
 *
 * N macro steps of H = 1e-6 s.
 *
 * The scenario: three `integrator` FMUs (tests/fmus/integrator, x' = u) in a ring,
 * a.x -> b.u, b.x -> c.u, c.x -> a.u, a.x0 = 1; Jacobi with held inputs, nothing recorded
 * (no on_point), fixed steps.  Per macro step both loops do the same FMU calls: one
 * fmi2SetReal, one fmi2DoStep and one fmi2GetReal per FMU.  The integrators can get and
 * set their state, as their model description says, and the master is told so: `master`
 * runs with no_rollback (no state saved per step, the same FMU calls as the hand loop);
 * `master-save` with the default, one fmi2GetFMUstate per FMU per step in addition, so
 * that a discarded step could be redone.
 *
 * `wrapper` steps the same scenario packed as one wrapper FMU, bench/master/ring_sa.sa
 * built and unpacked by run.sh into BUILD/bench/master/ring_sa: the driver instantiates it
 * and calls only its fmi2DoStep, N times, then reads its three outputs.  The wrapper
 * makes the same three set/doStep/get per step on its inner FMUs, from its own code.
 * `wrapper-nofast` is the same FMU built with -DSART_NO_FAST_STEP (run.sh unpacks it into
 * BUILD/bench/master/ring_sa-nofast): the wrapper runs its general step (Ctrl through
 * sart_do_step) instead of the emitted fast step.
 *
 * Prints `checksum X` (a.x, b.x, c.x at the end, so the two loops can be compared: they
 * must agree bit for bit) and `ns_per_step T` (wall time of the whole run over N).
 * bench/master/run.sh turns runs of two lengths into per-step figures. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi2Functions.h"
#include "fmi_strict.h" /* tests/unit/: refused as fmusim and FMPy refuse it */
#include "sart_master.h"

#define INTEGRATOR_GUID "{3f6c1d2e-8a47-4b95-9e0d-7c2a5b1f4e83}"
#define H 1e-6

enum { VR_U = 0, VR_X = 1, VR_X0 = 2 };

static const SartVar integrator_vars[] = {
	{"u", VR_U, SART_REAL, SART_CAUS_INPUT, NULL, 0, 0, 0},
	{"x", VR_X, SART_REAL, SART_CAUS_OUTPUT, NULL, 0, 0, 0},
	{"x0", VR_X0, SART_REAL, SART_CAUS_PARAMETER, NULL, 0, 0, 0},
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "throughput: %s\n", what);
	exit(1);
}

/* ---- the orchestrator ------------------------------------------------------------------- */

static double last[3];

static int keep_last(void *env, double t, const double v[], int n)
{
	(void)env, (void)t;
	memcpy(last, v, (size_t)n * sizeof *v);
	return 0;
}

static void run_master(const char *dir, long n, int check, int save)
{
	const unsigned caps = SART_CAP_GET_SET_STATE | SART_CAP_INPUT_DERIVATIVES;
	const SartFmu fmus[3] = {
		{"a", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, caps, integrator_vars, 3},
		{"b", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, caps, integrator_vars, 3},
		{"c", dir, "integrator", INTEGRATOR_GUID, SART_FMI2, caps, integrator_vars, 3},
	};
	const SartConnection conns[3] = {
		{{0, 1}, {1, 0}, 1, 0, NULL, NULL, 0},
		{{1, 1}, {2, 0}, 1, 0, NULL, NULL, 0},
		{{2, 1}, {0, 0}, 1, 0, NULL, NULL, 0},
	};
	const SartStart starts[1] = {{{0, 2}, 1.0}};
	const SartRef records[3] = {{0, 1}, {1, 1}, {2, 1}};
	/* recording only for the checksum run: the measured runs record nothing */
	SartScenario sc = {fmus, 3, conns, 3, starts, 1, records, check ? 3 : 0};
	SartMasterOptions o;
	SartMasterResult res;
	memset(&o, 0, sizeof o);
	o.start = 0;
	o.stop = (double)n * H;
	o.step = H;
	o.algorithm = SART_JACOBI;
	o.approx = SART_HOLD;
	o.no_rollback = !save;
	if (check)
		o.on_point = keep_last;
	double t0 = now_ns();
	if (sart_master_run(&sc, &o, &res))
		die(res.message);
	double t1 = now_ns();
	if (res.accepted != n)
		die("the master did not take N steps");
	if (check)
		printf("checksum %.17g %.17g %.17g\n", last[0], last[1], last[2]);
	printf("ns_per_step %.1f\n", (t1 - t0) / (double)n);
}

/* ---- the hand-written loop -------------------------------------------------------------- */

typedef struct Fmu {
	fmi2Component c;
} Fmu;

static void logger(fmi2ComponentEnvironment env, fmi2String inst, fmi2Status st,
                   fmi2String cat, fmi2String msg, ...)
{
	(void)env, (void)cat;
	fprintf(stderr, "throughput: %s [%d]: %s\n", inst, (int)st, msg);
}

static const fmi2CallbackFunctions callbacks = {logger, NULL, NULL, NULL, NULL};

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p)
		die(name);
	return p;
}

/* The FMI functions both loops call, from one library. */
typedef struct Api {
	fmi2InstantiateTYPE *instantiate;
	fmi2FreeInstanceTYPE *free_instance;
	fmi2SetupExperimentTYPE *setup;
	fmi2EnterInitializationModeTYPE *enter_init;
	fmi2ExitInitializationModeTYPE *exit_init;
	fmi2TerminateTYPE *terminate;
	fmi2GetRealTYPE *get_real;
	fmi2SetRealTYPE *set_real;
	fmi2DoStepTYPE *do_step;
} Api;

/* dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
#define LOAD(api, field, name)                                  \
	do {                                                    \
		void *p_ = sym(lib, name);                      \
		memcpy(&(api)->field, &p_, sizeof p_);          \
	} while (0)

/* Opens path and takes its functions; exits when any is missing. */
static void *load_api(const char *path, Api *api)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		die(dlerror());
	const char *missing = fmi2_missing_function(lib, FMI2_USES_CO_SIMULATION);
	if (missing) {
		fprintf(stderr, "throughput: %s: refused: the FMU does not export %s\n", path,
		        missing);
		exit(1);
	}
	LOAD(api, instantiate, "fmi2Instantiate");
	LOAD(api, free_instance, "fmi2FreeInstance");
	LOAD(api, setup, "fmi2SetupExperiment");
	LOAD(api, enter_init, "fmi2EnterInitializationMode");
	LOAD(api, exit_init, "fmi2ExitInitializationMode");
	LOAD(api, terminate, "fmi2Terminate");
	LOAD(api, get_real, "fmi2GetReal");
	LOAD(api, set_real, "fmi2SetReal");
	LOAD(api, do_step, "fmi2DoStep");
	return lib;
}

static void run_hand(const char *dir, long n)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/binaries/linux64/integrator.so", dir);
	Api a;
	void *lib = load_api(path, &a);
	static const char *names[3] = {"a", "b", "c"};
	const fmi2ValueReference vu = VR_U, vx = VR_X, vx0 = VR_X0;
	double t_end = (double)n * H, x[3], u;
	fmi2Component c[3];
	double t0 = now_ns();
	for (int i = 0; i < 3; i++) {
		double x0 = i == 0 ? 1.0 : 0.0;
		c[i] = a.instantiate(names[i], fmi2CoSimulation, INTEGRATOR_GUID, "", &callbacks,
		                   fmi2False, fmi2False);
		if (!c[i] || a.set_real(c[i], &vx0, 1, &x0) != fmi2OK ||
		    a.setup(c[i], fmi2False, 0.0, 0.0, fmi2True, t_end) != fmi2OK ||
		    a.enter_init(c[i]) != fmi2OK)
			die("could not instantiate an integrator");
	}
	for (int i = 0; i < 3; i++) {
		u = 0;
		if (a.exit_init(c[i]) != fmi2OK || a.get_real(c[i], &vx, 1, &x[i]) != fmi2OK)
			die("could not initialize an integrator");
	}
	for (long s = 0; s < n; s++) {
		double t = (double)s * H, tn = (double)(s + 1) * H;
		for (int i = 0; i < 3; i++) {
			u = x[(i + 2) % 3];
			if (a.set_real(c[i], &vu, 1, &u) != fmi2OK)
				die("fmi2SetReal failed");
		}
		for (int i = 0; i < 3; i++)
			if (a.do_step(c[i], t, tn - t, fmi2True) != fmi2OK)
				die("fmi2DoStep failed");
		for (int i = 0; i < 3; i++)
			if (a.get_real(c[i], &vx, 1, &x[i]) != fmi2OK)
				die("fmi2GetReal failed");
	}
	for (int i = 0; i < 3; i++) {
		a.terminate(c[i]);
		a.free_instance(c[i]);
	}
	double t1 = now_ns();
	dlclose(lib);
	printf("checksum %.17g %.17g %.17g\n", x[0], x[1], x[2]);
	printf("ns_per_step %.1f\n", (t1 - t0) / (double)n);
}

/* ---- the scenario as one wrapper FMU ---------------------------------------------------- */

/* ring_sa's outputs xa, xb, xc (its modelDescription.xml; the checksum would catch others) */
static const fmi2ValueReference ring_out_vr[3] = {0, 1, 2};

/* The GUID from DIR/modelDescription.xml: sacc derives it, so the driver reads it. */
static void read_guid(const char *dir, char *guid, size_t size)
{
	char path[PATH_MAX + 32], text[4096];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		die("no modelDescription.xml in the wrapper's directory");
	size_t len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[len] = '\0';
	const char *g = strstr(text, "guid=\"");
	const char *end = g ? strchr(g + 6, '"') : NULL;
	if (!end || (size_t)(end - (g + 6)) >= size)
		die("no guid in the wrapper's modelDescription.xml");
	memcpy(guid, g + 6, (size_t)(end - (g + 6)));
	guid[end - (g + 6)] = '\0';
}

static void run_wrapper(const char *rel, long n)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], uri[PATH_MAX + 32], guid[128];
	if (!realpath(rel, dir))
		die("no unpacked wrapper FMU (bench/master/run.sh builds it)");
	read_guid(dir, guid, sizeof guid);
	snprintf(path, sizeof path, "%s/binaries/linux64/ring_sa.so", dir);
	snprintf(uri, sizeof uri, "file://%s/resources", dir);
	Api a;
	void *lib = load_api(path, &a);
	const fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
	double t_end = (double)n * H, x[3];
	double t0 = now_ns();
	fmi2Component c = a.instantiate("ring", fmi2CoSimulation, guid, uri, &cb, fmi2False,
	                              fmi2False);
	if (!c || a.setup(c, fmi2False, 0.0, 0.0, fmi2True, t_end) != fmi2OK ||
	    a.enter_init(c) != fmi2OK || a.exit_init(c) != fmi2OK)
		die("could not instantiate the wrapper");
	/* the same t and step as the hand loop gives its FMUs */
	for (long s = 0; s < n; s++) {
		double t = (double)s * H, tn = (double)(s + 1) * H;
		if (a.do_step(c, t, tn - t, fmi2True) != fmi2OK)
			die("the wrapper's fmi2DoStep failed");
	}
	if (a.get_real(c, ring_out_vr, 3, x) != fmi2OK)
		die("the wrapper's fmi2GetReal failed");
	a.terminate(c);
	a.free_instance(c);
	double t1 = now_ns();
	dlclose(lib);
	printf("checksum %.17g %.17g %.17g\n", x[0], x[1], x[2]);
	printf("ns_per_step %.1f\n", (t1 - t0) / (double)n);
}

int main(int argc, char **argv)
{
	if (argc != 4 && !(argc == 5 && strcmp(argv[4], "check") == 0)) {
		fprintf(stderr, "usage: throughput master|master-save|hand|wrapper|wrapper-nofast "
		        "BUILD N [check]\n");
		return 2;
	}
	char dir[1024], wrapper[1024], nofast[1024];
	long n = strtol(argv[3], NULL, 10);
	if (n < 1)
		die("N must be positive");
	snprintf(dir, sizeof dir, "%s/fmus/integrator", argv[2]);
	snprintf(wrapper, sizeof wrapper, "%s/bench/master/ring_sa", argv[2]);
	snprintf(nofast, sizeof nofast, "%s/bench/master/ring_sa-nofast", argv[2]);
	if (strcmp(argv[1], "master") == 0 || strcmp(argv[1], "master-save") == 0)
		run_master(dir, n, argc == 5, argv[1][6] == '-');
	else if (strcmp(argv[1], "hand") == 0)
		run_hand(dir, n);
	else if (strcmp(argv[1], "wrapper") == 0)
		run_wrapper(wrapper, n);
	else if (strcmp(argv[1], "wrapper-nofast") == 0)
		run_wrapper(nofast, n);
	else
		die("the first argument is master, master-save, hand, wrapper or wrapper-nofast");
	return 0;
}
