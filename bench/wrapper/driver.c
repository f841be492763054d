/* driver.c — the wrapper benchmark's importer: N cycles of set inputs / doStep / get
 * outputs on one FMI 2.0 Co-Simulation FMU, with plain dlopen (no sacc code), so that the
 * same loop measures an inner FMU called directly and the same FMU behind a wrapper.
 *
 *   driver FMU_DIR MODEL_IDENTIFIER GUID NSTEPS [ih]
 *
 * FMU_DIR is an extracted FMU (binaries/linux64/<id>.so, resources/).  The FMU must have
 * Real inputs with value references 0, 1, 2 and Real outputs 3, 4 (the window FMU and the
 * pass-through wrapper over it both do).  Prints the outputs' checksum, so that the work
 * cannot be optimised away and both runs can be compared, and the time per cycle.
 *
 * The importer passes t += h by default, as an importer that sums its steps does (then t is
 * bit for bit the time the FMU reached); with `ih`, t = i h, as an importer that counts its
 * steps does (then t differs from the FMU's sum by rounding, within the tolerance FMUs
 * accept).
 *
 * Unlike the suite's importers (tests/unit/fmi_strict.h) it looks up only the functions it
 * calls: it also drives floor.c's library, which by design exports nothing else.  The
 * window FMU and the wrapper it drives are held to the full set by the suite. */
#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi2FunctionTypes.h"

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
	(void)env;
	if (status < fmi2Warning)
		return;
	va_list ap;
	va_start(ap, message);
	fprintf(stderr, "[%s] %s: ", name, category);
	vfprintf(stderr, message, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
static void *sym(void *lib, const char *name, void *fn, size_t size)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "driver: no symbol %s\n", name);
		exit(2);
	}
	memcpy(fn, &p, size);
	return p;
}
#define SYM(lib, var, name) sym(lib, name, &var, sizeof var)

int main(int argc, char **argv)
{
	if (argc != 5 && !(argc == 6 && strcmp(argv[5], "ih") == 0)) {
		fprintf(stderr, "usage: driver FMU_DIR MODEL_IDENTIFIER GUID NSTEPS [ih]\n");
		return 2;
	}
	const char *dir = argv[1], *id = argv[2], *guid = argv[3];
	long n = strtol(argv[4], NULL, 10);
	int times_ih = argc == 6; /* t = i h instead of t += h */
	char abs[PATH_MAX], path[PATH_MAX + 64], uri[PATH_MAX + 32];
	if (!realpath(dir, abs)) {
		perror(dir);
		return 2;
	}
	snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", abs, id);
	snprintf(uri, sizeof uri, "file://%s/resources", abs);
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "driver: %s\n", dlerror());
		return 2;
	}
	fmi2InstantiateTYPE *instantiate;
	fmi2SetupExperimentTYPE *setup;
	fmi2EnterInitializationModeTYPE *enter;
	fmi2ExitInitializationModeTYPE *exit_init;
	fmi2SetRealTYPE *set_real;
	fmi2GetRealTYPE *get_real;
	fmi2DoStepTYPE *do_step;
	fmi2TerminateTYPE *terminate;
	fmi2FreeInstanceTYPE *free_instance;
	SYM(lib, instantiate, "fmi2Instantiate");
	SYM(lib, setup, "fmi2SetupExperiment");
	SYM(lib, enter, "fmi2EnterInitializationMode");
	SYM(lib, exit_init, "fmi2ExitInitializationMode");
	SYM(lib, set_real, "fmi2SetReal");
	SYM(lib, get_real, "fmi2GetReal");
	SYM(lib, do_step, "fmi2DoStep");
	SYM(lib, terminate, "fmi2Terminate");
	SYM(lib, free_instance, "fmi2FreeInstance");

	fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
	fmi2Component c = instantiate("bench", fmi2CoSimulation, guid, uri, &cb, fmi2False,
	                              fmi2False);
	if (!c || setup(c, fmi2False, 0, 0, fmi2False, 0) > fmi2Warning ||
	    enter(c) > fmi2Warning || exit_init(c) > fmi2Warning) {
		fprintf(stderr, "driver: %s does not initialise\n", id);
		return 1;
	}
	const fmi2ValueReference in_vr[3] = {0, 1, 2}, out_vr[2] = {3, 4};
	double h = 1e-3, t = 0, sum = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		double u[3] = {1e-3 * (double)(i % 1000), 0.5, 0.0}, y[2];
		if (set_real(c, in_vr, 3, u) > fmi2Warning || do_step(c, t, h, fmi2True) > fmi2Warning ||
		    get_real(c, out_vr, 2, y) > fmi2Warning) {
			fprintf(stderr, "driver: %s failed at step %ld\n", id, i);
			return 1;
		}
		sum += y[0] + y[1];
		t = times_ih ? (double)(i + 1) * h : t + h;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	printf("checksum %.17g\nns_per_step %.1f\n", sum, n ? ns / (double)n : 0.0);
	terminate(c);
	free_instance(c);
	dlclose(lib);
	return 0;
}
