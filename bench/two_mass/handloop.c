/* handloop.c — the two masses coupled by a master written by hand: plain dlopen of the two
 * FMUs' shared libraries and the schemes of docs/simulate.md in a few lines each.  It checks the
 * FMUs and the reference without the orchestrator (bench/two_mass/run.sh can use it in
 * place of `sacc simulate`), and it is the floor later throughput benchmarks compare with.
 *
 *   handloop [-L DIR] [--start T0] [--stop T1] [--step H] [--master jacobi|gauss-seidel]
 *            [--approx hold|linear] [--iterations K] [-o FILE]
 *
 * DIR (default build/fmus) holds the extracted FMUs mass1/ and mass2/ as make leaves them.
 * The CSV has `sacc simulate`'s shape: time,m1.x,m1.v,m2.x,m2.v (%.17g), a row per
 * communication point including the start.
 *
 * One macro step from t_n to t_n + H:
 *  - jacobi: both masses get inputs from the outputs at t_n, then both step;
 *  - gauss-seidel: mass 1 first; mass 2's inputs are linear from mass 1's old outputs to its
 *    new ones (as input derivatives);
 *  - approx linear: an input not fed by a mass already stepped this macro step is
 *    extrapolated from the last two communication points (slope (y_n - y_n-1) / (t_n -
 *    t_n-1), held on the first step); hold: its derivative is left unset (0);
 *  - iterations K: after the first pass, K more: restore both masses to t_n, each input
 *    linear from its value at t_n to the end value the previous pass produced. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "fmi_strict.h" /* tests/unit/: refused as fmusim and FMPy refuse it */

enum { VR_XO = 0, VR_VO = 1, VR_X = 2, VR_V = 3 }; /* both masses' model descriptions */

typedef struct Fmu {
	void *lib;
	fmi2Component c;
	fmi2FMUstate saved;
	fmi2InstantiateTYPE *instantiate;
	fmi2FreeInstanceTYPE *free_instance;
	fmi2SetupExperimentTYPE *setup;
	fmi2EnterInitializationModeTYPE *enter_init;
	fmi2ExitInitializationModeTYPE *exit_init;
	fmi2TerminateTYPE *terminate;
	fmi2GetRealTYPE *get_real;
	fmi2SetRealTYPE *set_real;
	fmi2SetRealInputDerivativesTYPE *set_deriv;
	fmi2DoStepTYPE *do_step;
	fmi2GetFMUstateTYPE *get_state;
	fmi2SetFMUstateTYPE *set_state;
	fmi2FreeFMUstateTYPE *free_state;
} Fmu;

static void logger(fmi2ComponentEnvironment env, fmi2String inst, fmi2Status st,
                   fmi2String cat, fmi2String msg, ...)
{
	(void)env, (void)cat;
	fprintf(stderr, "handloop: %s [%d]: %s\n", inst, (int)st, msg);
}

static const fmi2CallbackFunctions callbacks = {logger, NULL, NULL, NULL, NULL};

static void die(const char *what)
{
	fprintf(stderr, "handloop: %s\n", what);
	exit(1);
}

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "handloop: no symbol %s\n", name);
		exit(1);
	}
	return p;
}

/* dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
#define LOAD(f, field, name)                            \
	do {                                            \
		void *p_ = sym((f)->lib, name);         \
		memcpy(&(f)->field, &p_, sizeof p_);    \
	} while (0)

/* The guid attribute of DIR/NAME/modelDescription.xml (a plain scan is enough for ours). */
static void read_guid(const char *dir, const char *name, char *guid, size_t size)
{
	char path[1024], buf[1 << 14];
	snprintf(path, sizeof path, "%s/%s/modelDescription.xml", dir, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *g = strstr(buf, "guid=\"");
	const char *e = g ? strchr(g + 6, '"') : NULL;
	if (!e || (size_t)(e - g - 6) >= size)
		die("no guid in a model description");
	memcpy(guid, g + 6, (size_t)(e - g - 6));
	guid[e - g - 6] = '\0';
}

static void open_fmu(Fmu *f, const char *dir, const char *name, double t0, double t1)
{
	char path[1024], guid[128];
	memset(f, 0, sizeof *f);
	snprintf(path, sizeof path, "%s/%s/binaries/linux64/%s.so", dir, name, name);
	f->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!f->lib) {
		fprintf(stderr, "handloop: %s\n", dlerror());
		exit(1);
	}
	const char *missing = fmi2_missing_function(f->lib, FMI2_USES_CO_SIMULATION);
	if (missing) {
		fprintf(stderr, "handloop: %s: refused: the FMU does not export %s\n", path, missing);
		exit(1);
	}
	LOAD(f, instantiate, "fmi2Instantiate");
	LOAD(f, free_instance, "fmi2FreeInstance");
	LOAD(f, setup, "fmi2SetupExperiment");
	LOAD(f, enter_init, "fmi2EnterInitializationMode");
	LOAD(f, exit_init, "fmi2ExitInitializationMode");
	LOAD(f, terminate, "fmi2Terminate");
	LOAD(f, get_real, "fmi2GetReal");
	LOAD(f, set_real, "fmi2SetReal");
	LOAD(f, set_deriv, "fmi2SetRealInputDerivatives");
	LOAD(f, do_step, "fmi2DoStep");
	LOAD(f, get_state, "fmi2GetFMUstate");
	LOAD(f, set_state, "fmi2SetFMUstate");
	LOAD(f, free_state, "fmi2FreeFMUstate");
	read_guid(dir, name, guid, sizeof guid);
	f->c = f->instantiate(name, fmi2CoSimulation, guid, "", &callbacks, fmi2False, fmi2False);
	if (!f->c || f->setup(f->c, fmi2False, 0.0, t0, fmi2True, t1) != fmi2OK ||
	    f->enter_init(f->c) != fmi2OK || f->exit_init(f->c) != fmi2OK)
		die("could not instantiate and initialize an FMU");
}

static void close_fmu(Fmu *f)
{
	if (f->saved)
		f->free_state(f->c, &f->saved);
	f->terminate(f->c);
	f->free_instance(f->c);
	dlclose(f->lib);
}

static void get_y(Fmu *f, double y[2])
{
	static const fmi2ValueReference vr[2] = {VR_X, VR_V};
	if (f->get_real(f->c, vr, 2, y) != fmi2OK)
		die("fmi2GetReal failed");
}

/* Inputs u at the step start with slopes du (none set when du is NULL: held). */
static void set_u(Fmu *f, const double u[2], const double du[2])
{
	static const fmi2ValueReference vr[2] = {VR_XO, VR_VO};
	static const fmi2Integer order[2] = {1, 1};
	if (f->set_real(f->c, vr, 2, u) != fmi2OK)
		die("fmi2SetReal failed");
	if (du && f->set_deriv(f->c, vr, 2, order, du) != fmi2OK)
		die("fmi2SetRealInputDerivatives failed");
}

static void step(Fmu *f, double t, double h)
{
	if (f->do_step(f->c, t, h, fmi2False) != fmi2OK)
		die("fmi2DoStep failed");
}

static int usage(void)
{
	fprintf(stderr, "usage: handloop [-L DIR] [--start T0] [--stop T1] [--step H] "
	        "[--master jacobi|gauss-seidel] [--approx hold|linear] [--iterations K] "
	        "[-o FILE]\n");
	return 2;
}

static int number(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return *s && !*end && isfinite(*out);
}

int main(int argc, char **argv)
{
	const char *dir = "build/fmus", *out = NULL;
	double t0 = 0.0, t1 = 10.0, h = 0.01, k = 0.0;
	int gauss_seidel = 0, linear = 0;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			return usage();
		const char *a = argv[i], *v = argv[++i];
		if (strcmp(a, "-L") == 0)
			dir = v;
		else if (strcmp(a, "-o") == 0)
			out = v;
		else if (strcmp(a, "--start") == 0 && number(v, &t0))
			;
		else if (strcmp(a, "--stop") == 0 && number(v, &t1))
			;
		else if (strcmp(a, "--step") == 0 && number(v, &h))
			;
		else if (strcmp(a, "--iterations") == 0 && number(v, &k) && k >= 0 && k == floor(k))
			;
		else if (strcmp(a, "--master") == 0 && (strcmp(v, "jacobi") == 0 ||
		                                         strcmp(v, "gauss-seidel") == 0))
			gauss_seidel = v[0] == 'g';
		else if (strcmp(a, "--approx") == 0 && (strcmp(v, "hold") == 0 ||
		                                         strcmp(v, "linear") == 0))
			linear = v[0] == 'l';
		else
			return usage();
	}
	if (!(h > 0) || !(t1 >= t0))
		return usage();
	int iterations = (int)k;
	long n = lround((t1 - t0) / h);
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		perror(out);
		return 1;
	}

	Fmu m[2];
	open_fmu(&m[0], dir, "mass1", t0, t1);
	open_fmu(&m[1], dir, "mass2", t0, t1);
	double y[2][2], prev[2][2] = {{0, 0}, {0, 0}}, t_prev = t0;
	get_y(&m[0], y[0]);
	get_y(&m[1], y[1]);
	fprintf(f, "time,m1.x,m1.v,m2.x,m2.v\n");
	fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", t0, y[0][0], y[0][1], y[1][0], y[1][1]);
	for (long s = 0; s < n; s++) {
		double t = t0 + (double)s * h, tn = s + 1 == n ? t1 : t0 + (double)(s + 1) * h;
		double hs = tn - t;
		double ext[2][2] = {{0, 0}, {0, 0}}; /* extrapolation slopes of each mass's outputs */
		if (linear && s > 0)
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					ext[i][j] = (y[i][j] - prev[i][j]) / (t - t_prev);
		if (iterations > 0)
			for (int i = 0; i < 2; i++)
				if (m[i].get_state(m[i].c, &m[i].saved) != fmi2OK)
					die("fmi2GetFMUstate failed");
		double end[2][2] = {{0, 0}, {0, 0}}; /* the outputs at tn of the latest pass */
		for (int pass = 0; pass <= iterations; pass++) {
			if (pass > 0)
				for (int i = 0; i < 2; i++)
					if (m[i].set_state(m[i].c, m[i].saved) != fmi2OK)
						die("fmi2SetFMUstate failed");
			double slope[2][2]; /* slopes of each mass's outputs as the others see them */
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					slope[i][j] = pass > 0 ? (end[i][j] - y[i][j]) / hs : ext[i][j];
			int use_deriv = linear || pass > 0;
			/* mass 1: fed by mass 2, never stepped before it */
			set_u(&m[0], y[1], use_deriv ? slope[1] : NULL);
			if (!gauss_seidel)
				set_u(&m[1], y[0], use_deriv ? slope[0] : NULL);
			step(&m[0], t, hs);
			get_y(&m[0], end[0]);
			if (gauss_seidel) {
				double gs[2] = {(end[0][0] - y[0][0]) / hs, (end[0][1] - y[0][1]) / hs};
				set_u(&m[1], y[0], gs);
			}
			step(&m[1], t, hs);
			get_y(&m[1], end[1]);
		}
		memcpy(prev, y, sizeof y);
		memcpy(y, end, sizeof y);
		t_prev = t;
		fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", tn, y[0][0], y[0][1], y[1][0], y[1][1]);
	}
	close_fmu(&m[0]);
	close_fmu(&m[1]);
	if (f != stdout && fclose(f) != 0) {
		perror(out);
		return 1;
	}
	return 0;
}
