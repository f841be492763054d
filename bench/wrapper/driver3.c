/* driver3.c — driver.c for FMI 3.0: N cycles of fmi3SetFloat64 / fmi3DoStep /
 * fmi3GetFloat64 on one FMI 3.0 Co-Simulation FMU, with plain dlopen, so that the wrapper
 * benchmark measures the pass-through built as FMI 3.0 with the same loop.
 *
 *   driver3 FMU_DIR MODEL_IDENTIFIER INSTANTIATION_TOKEN NSTEPS [ih]
 *
 * FMU_DIR is an extracted FMU (binaries/x86_64-linux/<id>.so, resources/).  The FMU must
 * have Float64 inputs with value references 0, 1, 2 and Float64 outputs 3, 4 (the
 * pass-through over the window FMU built as FMI 3.0 keeps its FMI 2.0 Reals' numbers).
 * Prints the outputs' checksum and the time per cycle; `ih` passes t = i h, as driver.c
 * does. */
#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi3Functions.h"
#include "fmi_strict.h" /* tests/unit/: refused as fmusim and FMPy refuse it */

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                   fmi3String message)
{
	(void)env;
	if (status >= fmi3Warning)
		fprintf(stderr, "%s: %s\n", category, message);
}

/* dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
static void sym(void *lib, const char *name, void *fn, size_t size)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "driver3: no symbol %s\n", name);
		exit(2);
	}
	memcpy(fn, &p, size);
}
#define SYM(lib, var, name) sym(lib, name, &var, sizeof var)

int main(int argc, char **argv)
{
	if (argc != 5 && !(argc == 6 && strcmp(argv[5], "ih") == 0)) {
		fprintf(stderr, "usage: driver3 FMU_DIR MODEL_IDENTIFIER INSTANTIATION_TOKEN NSTEPS [ih]\n");
		return 2;
	}
	const char *dir = argv[1], *id = argv[2], *token = argv[3];
	long n = strtol(argv[4], NULL, 10);
	int times_ih = argc == 6; /* t = i h instead of t += h */
	char abs[PATH_MAX], path[PATH_MAX + 64], res[PATH_MAX + 32];
	if (!realpath(dir, abs)) {
		perror(dir);
		return 2;
	}
	snprintf(path, sizeof path, "%s/binaries/x86_64-linux/%s.so", abs, id);
	snprintf(res, sizeof res, "%s/resources/", abs);
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "driver3: %s\n", dlerror());
		return 2;
	}
	const char *missing = fmi3_missing_function(lib);
	if (missing) {
		fprintf(stderr, "driver3: %s: refused: the FMU does not export %s\n", path, missing);
		return 2;
	}
	fmi3InstantiateCoSimulationTYPE *instantiate;
	fmi3EnterInitializationModeTYPE *enter;
	fmi3ExitInitializationModeTYPE *exit_init;
	fmi3SetFloat64TYPE *set_float64;
	fmi3GetFloat64TYPE *get_float64;
	fmi3DoStepTYPE *do_step;
	fmi3TerminateTYPE *terminate;
	fmi3FreeInstanceTYPE *free_instance;
	SYM(lib, instantiate, "fmi3InstantiateCoSimulation");
	SYM(lib, enter, "fmi3EnterInitializationMode");
	SYM(lib, exit_init, "fmi3ExitInitializationMode");
	SYM(lib, set_float64, "fmi3SetFloat64");
	SYM(lib, get_float64, "fmi3GetFloat64");
	SYM(lib, do_step, "fmi3DoStep");
	SYM(lib, terminate, "fmi3Terminate");
	SYM(lib, free_instance, "fmi3FreeInstance");

	fmi3Instance c = instantiate("bench", token, res, fmi3False, fmi3False, fmi3False,
	                             fmi3False, NULL, 0, NULL, logger, NULL);
	if (!c || enter(c, fmi3False, 0, 0, fmi3False, 0) > fmi3Warning ||
	    exit_init(c) > fmi3Warning) {
		fprintf(stderr, "driver3: %s does not initialise\n", id);
		return 1;
	}
	const fmi3ValueReference in_vr[3] = {0, 1, 2}, out_vr[2] = {3, 4};
	double h = 1e-3, t = 0, sum = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		double u[3] = {1e-3 * (double)(i % 1000), 0.5, 0.0}, y[2], last;
		fmi3Boolean event, stop, early;
		if (set_float64(c, in_vr, 3, u, 3) > fmi3Warning ||
		    do_step(c, t, h, fmi3True, &event, &stop, &early, &last) > fmi3Warning ||
		    get_float64(c, out_vr, 2, y, 2) > fmi3Warning) {
			fprintf(stderr, "driver3: %s failed at step %ld\n", id, i);
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
