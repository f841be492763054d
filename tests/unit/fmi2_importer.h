/* fmi2_importer.h — the suite's minimal FMI 2.0 importer: plain dlopen and dlsym, no
 * runtime code, so that a test of an FMU (a test FMU now, a generated wrapper later)
 * sees it exactly as any importer would.
 *
 * Include after <cmocka.h>; link with -ldl.  As strict as fmusim and FMPy, for an FMU used
 * through Co-Simulation: a library that lacks any common or Co-Simulation function of
 * fmi2Functions.h (fmi_strict.h) is refused before anything is instantiated, with the
 * missing function's name. */
#ifndef FMI2_IMPORTER_H
#define FMI2_IMPORTER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "fmi_strict.h"

typedef struct Fmi2Api {
	void *lib;
	fmi2GetVersionTYPE *get_version;
	fmi2GetTypesPlatformTYPE *get_types_platform;
	fmi2SetDebugLoggingTYPE *set_debug_logging;
	fmi2InstantiateTYPE *instantiate;
	fmi2FreeInstanceTYPE *free_instance;
	fmi2SetupExperimentTYPE *setup;
	fmi2EnterInitializationModeTYPE *enter_init;
	fmi2ExitInitializationModeTYPE *exit_init;
	fmi2TerminateTYPE *terminate;
	fmi2ResetTYPE *reset;
	fmi2GetRealTYPE *get_real;
	fmi2SetRealTYPE *set_real;
	fmi2GetIntegerTYPE *get_integer;
	fmi2SetIntegerTYPE *set_integer;
	fmi2GetBooleanTYPE *get_boolean;
	fmi2SetBooleanTYPE *set_boolean;
	fmi2GetStringTYPE *get_string;
	fmi2SetStringTYPE *set_string;
	fmi2DoStepTYPE *do_step;
	fmi2CancelStepTYPE *cancel_step;
	fmi2GetStatusTYPE *get_status;
	fmi2GetRealStatusTYPE *get_real_status;
	fmi2GetFMUstateTYPE *get_state;
	fmi2SetFMUstateTYPE *set_state;
	fmi2FreeFMUstateTYPE *free_state;
	fmi2SerializedFMUstateSizeTYPE *serialized_size;
	fmi2SerializeFMUstateTYPE *serialize;
	fmi2DeSerializeFMUstateTYPE *deserialize;
	fmi2SetRealInputDerivativesTYPE *set_input_derivatives;
	fmi2GetRealOutputDerivativesTYPE *get_output_derivatives;
	fmi2GetDirectionalDerivativeTYPE *get_directional_derivative;
} Fmi2Api;

/* dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
#define FMI2_IMPORT(api, field, name)                          \
	do {                                                   \
		void *sym_ = dlsym((api)->lib, name);          \
		memcpy(&(api)->field, &sym_, sizeof sym_);     \
	} while (0)

/* Opens the shared library at path and looks up its functions as a strict importer using
 * `interfaces` (FMI2_USES_CO_SIMULATION, and FMI2_USES_MODEL_EXCHANGE for an FMU that
 * declares it and is used so) does: NULL when it may be used, else why not (the library
 * does not load, or lacks a function, named), in a buffer of the caller's.  a->lib is left
 * open either way, for fmi2_unimport. */
static inline const char *fmi2_try_import(Fmi2Api *a, const char *path, int interfaces,
                                          char *why, size_t size)
{
	memset(a, 0, sizeof *a);
	a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!a->lib) {
		snprintf(why, size, "dlopen %s: %s", path, dlerror());
		return why;
	}
	const char *missing = fmi2_missing_function(a->lib, interfaces);
	if (missing) {
		snprintf(why, size, "%s: refused: the FMU does not export %s", path, missing);
		return why;
	}
	FMI2_IMPORT(a, get_version, "fmi2GetVersion");
	FMI2_IMPORT(a, get_types_platform, "fmi2GetTypesPlatform");
	FMI2_IMPORT(a, set_debug_logging, "fmi2SetDebugLogging");
	FMI2_IMPORT(a, instantiate, "fmi2Instantiate");
	FMI2_IMPORT(a, free_instance, "fmi2FreeInstance");
	FMI2_IMPORT(a, setup, "fmi2SetupExperiment");
	FMI2_IMPORT(a, enter_init, "fmi2EnterInitializationMode");
	FMI2_IMPORT(a, exit_init, "fmi2ExitInitializationMode");
	FMI2_IMPORT(a, terminate, "fmi2Terminate");
	FMI2_IMPORT(a, reset, "fmi2Reset");
	FMI2_IMPORT(a, get_real, "fmi2GetReal");
	FMI2_IMPORT(a, set_real, "fmi2SetReal");
	FMI2_IMPORT(a, get_integer, "fmi2GetInteger");
	FMI2_IMPORT(a, set_integer, "fmi2SetInteger");
	FMI2_IMPORT(a, get_boolean, "fmi2GetBoolean");
	FMI2_IMPORT(a, set_boolean, "fmi2SetBoolean");
	FMI2_IMPORT(a, get_string, "fmi2GetString");
	FMI2_IMPORT(a, set_string, "fmi2SetString");
	FMI2_IMPORT(a, do_step, "fmi2DoStep");
	FMI2_IMPORT(a, cancel_step, "fmi2CancelStep");
	FMI2_IMPORT(a, get_status, "fmi2GetStatus");
	FMI2_IMPORT(a, get_real_status, "fmi2GetRealStatus");
	FMI2_IMPORT(a, get_state, "fmi2GetFMUstate");
	FMI2_IMPORT(a, set_state, "fmi2SetFMUstate");
	FMI2_IMPORT(a, free_state, "fmi2FreeFMUstate");
	FMI2_IMPORT(a, serialized_size, "fmi2SerializedFMUstateSize");
	FMI2_IMPORT(a, serialize, "fmi2SerializeFMUstate");
	FMI2_IMPORT(a, deserialize, "fmi2DeSerializeFMUstate");
	FMI2_IMPORT(a, set_input_derivatives, "fmi2SetRealInputDerivatives");
	FMI2_IMPORT(a, get_output_derivatives, "fmi2GetRealOutputDerivatives");
	FMI2_IMPORT(a, get_directional_derivative, "fmi2GetDirectionalDerivative");
	return NULL;
}

/* The library at path imported for Co-Simulation, failing the test when it is refused. */
static inline void fmi2_import(Fmi2Api *a, const char *path)
{
	char why[16384]; /* room for any path the tests build */
	if (fmi2_try_import(a, path, FMI2_USES_CO_SIMULATION, why, sizeof why))
		fail_msg("%s", why);
}

/* The shared library of a built test FMU: BUILD/fmus/<model>/binaries/linux64/<model>.so */
static inline void fmi2_library_path(char *buf, size_t size, const char *build, const char *model)
{
	snprintf(buf, size, "%s/fmus/%s/binaries/linux64/%s.so", build, model, model);
}

static inline void fmi2_unimport(Fmi2Api *a)
{
	if (a->lib)
		dlclose(a->lib);
	memset(a, 0, sizeof *a);
}

#endif
