/* floor.c — the wrapper benchmark's reference point: the pass-through over window written
 * by hand for this one case, doing per cycle only the work that sacc's wrappers are held
 * to, so that `make bench-wrapper` can show how far the generated wrapper is from the
 * least any wrapper with the same checks can cost.
 *
 * Per cycle, as the generated passthrough_sa does it on its fast step:
 *   fmi2SetReal  the instance and its state checked, each value reference looked up and
 *                refused unless it is an input, the value stored, its is_set mark set;
 *   fmi2DoStep   the instance, t (the instance's time, bit-equal or within the tolerance)
 *                and H (0 < H <= DBL_MAX) checked;
 *                the explicit form's copies (input -> in var -> inner input, inner output
 *                -> out var -> output, the rule flags); NaN and inf refused both ways;
 *                the inner's set, step and get, each status checked; the inner's last
 *                time, the new time, the marks cleared;
 *   fmi2GetReal  the instance, its state and whether G is due checked, each value
 *                reference looked up.
 * Everything else (any failure, logging, states) is left out: a failing check only
 * returns fmi2Error.  Not a usable FMU: only the driver's calls exist, and only for the
 * window FMU under resources/window/ (the unpacked passthrough_sa.fmu gives both). */
#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#define FLOOR_MAGIC 0x53415757u
#define WINDOW_GUID "{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}"

typedef struct Floor {
	unsigned magic;
	int stepping;           /* initialised: the one state the driver's loop uses */
	int g_dirty;            /* an input set since the last step: a get would run G */
	double time, last_ok;
	double in[3], out[2];   /* external ports, by value reference 0..4 */
	double in_var[3], out_var[2];
	double inner_in[3], inner_out[2];
	int in_rule, out_rule;
	unsigned char is_set[16];
	double inner_last;
	void *lib, *inner;
	fmi2SetRealTYPE *inner_set;
	fmi2DoStepTYPE *inner_step;
	fmi2GetRealTYPE *inner_get;
	fmi2SetupExperimentTYPE *inner_setup;
	fmi2EnterInitializationModeTYPE *inner_enter;
	fmi2ExitInitializationModeTYPE *inner_exit;
	fmi2TerminateTYPE *inner_terminate;
	fmi2FreeInstanceTYPE *inner_free;
} Floor;

static const fmi2ValueReference inner_in_vr[3] = {0, 1, 2}, inner_out_vr[2] = {3, 4};
static const size_t port_offset[5] = {
	offsetof(Floor, in[0]), offsetof(Floor, in[1]), offsetof(Floor, in[2]),
	offsetof(Floor, out[0]), offsetof(Floor, out[1]),
};

/* dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
static int sym(void *lib, const char *name, void *fn, size_t size)
{
	void *p = dlsym(lib, name);
	if (p)
		memcpy(fn, &p, size);
	return p != NULL;
}

FMI2_Export fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                          fmi2String resources,
                                          const fmi2CallbackFunctions *cb,
                                          fmi2Boolean visible, fmi2Boolean logging)
{
	char path[4096], uri[4096];
	fmi2InstantiateTYPE *instantiate;
	Floor *f;
	(void)guid;
	if (strncmp(resources, "file://", 7) != 0 || !(f = calloc(1, sizeof *f)))
		return NULL;
	snprintf(path, sizeof path, "%s/window/binaries/linux64/window.so", resources + 7);
	snprintf(uri, sizeof uri, "%s/window/resources", resources);
	f->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!f->lib || !sym(f->lib, "fmi2Instantiate", &instantiate, sizeof instantiate) ||
	    !sym(f->lib, "fmi2SetReal", &f->inner_set, sizeof f->inner_set) ||
	    !sym(f->lib, "fmi2DoStep", &f->inner_step, sizeof f->inner_step) ||
	    !sym(f->lib, "fmi2GetReal", &f->inner_get, sizeof f->inner_get) ||
	    !sym(f->lib, "fmi2SetupExperiment", &f->inner_setup, sizeof f->inner_setup) ||
	    !sym(f->lib, "fmi2EnterInitializationMode", &f->inner_enter, sizeof f->inner_enter) ||
	    !sym(f->lib, "fmi2ExitInitializationMode", &f->inner_exit, sizeof f->inner_exit) ||
	    !sym(f->lib, "fmi2Terminate", &f->inner_terminate, sizeof f->inner_terminate) ||
	    !sym(f->lib, "fmi2FreeInstance", &f->inner_free, sizeof f->inner_free) ||
	    !(f->inner = instantiate(name, type, WINDOW_GUID, uri, cb, visible, logging))) {
		if (f->lib)
			dlclose(f->lib);
		free(f);
		return NULL;
	}
	f->magic = FLOOR_MAGIC;
	return f;
}

FMI2_Export fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolerance_defined,
                                           fmi2Real tolerance, fmi2Real t0,
                                           fmi2Boolean stop_defined, fmi2Real stop)
{
	Floor *f = c;
	f->time = f->last_ok = t0;
	return f->inner_setup(f->inner, tolerance_defined, tolerance, t0, stop_defined, stop);
}

FMI2_Export fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	Floor *f = c;
	return f->inner_enter(f->inner);
}

FMI2_Export fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	Floor *f = c;
	f->stepping = 1;
	return f->inner_exit(f->inner);
}

FMI2_Export fmi2Status fmi2Terminate(fmi2Component c)
{
	Floor *f = c;
	f->stepping = 0;
	return f->inner_terminate(f->inner);
}

FMI2_Export void fmi2FreeInstance(fmi2Component c)
{
	Floor *f = c;
	if (!f)
		return;
	f->inner_free(f->inner);
	dlclose(f->lib);
	free(f);
}

FMI2_Export fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[],
                                   size_t nvr, const fmi2Real value[])
{
	Floor *f = c;
	if (!f || f->magic != FLOOR_MAGIC || !f->stepping || !vr || !value)
		return fmi2Error;
	for (size_t i = 0; i < nvr; i++) {
		fmi2ValueReference k = vr[i];
		if (k >= 3)
			return fmi2Error;
		*(double *)(void *)((char *)f + port_offset[k]) = value[i];
		f->is_set[k] = 1;
	}
	f->g_dirty = 1;
	return fmi2OK;
}

FMI2_Export fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[],
                                   size_t nvr, fmi2Real value[])
{
	const Floor *f = c;
	if (!f || f->magic != FLOOR_MAGIC || !f->stepping || f->g_dirty || !vr || !value)
		return fmi2Error;
	for (size_t i = 0; i < nvr; i++) {
		fmi2ValueReference k = vr[i];
		if (k >= 5)
			return fmi2Error;
		value[i] = *(const double *)(const void *)((const char *)f + port_offset[k]);
	}
	return fmi2OK;
}

/* Whether t is the instance's time as sacc's wrappers accept it: bit-equal (an importer
 * passing t += h), else within 1e-9 relative, absolute below 1 s (an importer's t = i h). */
static int at_time(const Floor *f, double t)
{
	double a = fabs(f->time);
	return t == f->time || fabs(t - f->time) <= 1e-9 * (a > 1 ? a : 1);
}

FMI2_Export fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real H,
                                  fmi2Boolean no_prior_state)
{
	Floor *f = c;
	(void)no_prior_state;
	if (!f || f->magic != FLOOR_MAGIC || !f->stepping || !at_time(f, t) || !(H > 0.0) ||
	    !(H <= DBL_MAX))
		return fmi2Error;
	f->in_rule = 1;
	for (int i = 0; i < 3; i++) {
		f->in_var[i] = f->in[i];
		f->inner_in[i] = f->in_var[i];
	}
	/* 0 x v is 0 for every finite v and NaN otherwise: one test for all three. */
	if (0.0 * f->inner_in[0] + 0.0 * f->inner_in[1] + 0.0 * f->inner_in[2] != 0.0 ||
	    f->inner_set(f->inner, inner_in_vr, 3, f->inner_in) != fmi2OK ||
	    f->inner_step(f->inner, t, H, fmi2False) != fmi2OK ||
	    f->inner_get(f->inner, inner_out_vr, 2, f->inner_out) != fmi2OK ||
	    0.0 * f->inner_out[0] + 0.0 * f->inner_out[1] != 0.0)
		return fmi2Error;
	f->inner_last = t + H;
	f->out_rule = 1;
	for (int i = 0; i < 2; i++) {
		f->out_var[i] = f->inner_out[i];
		f->out[i] = f->out_var[i];
	}
	f->time = f->last_ok = t + H;
	memset(f->is_set, 0, sizeof f->is_set);
	f->g_dirty = 0;
	return fmi2OK;
}
