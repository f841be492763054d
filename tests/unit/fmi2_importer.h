/* fmi2_importer.h — the suite's minimal FMI 2.0 importer: plain dlopen and dlsym, no
 * runtime code, so that a test of an FMU (a test FMU now, a generated wrapper later)
 * sees it exactly as any importer would.
 *
 * Include after <cmocka.h>; link with -ldl.  Every fmi2 function of the Co-Simulation
 * interface is looked up, and a missing one fails the test with its name. */
#ifndef FMI2_IMPORTER_H
#define FMI2_IMPORTER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"

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
		if (!sym_)                                     \
			print_error("no symbol %s\n", name);   \
		assert_non_null(sym_);                         \
		memcpy(&(api)->field, &sym_, sizeof sym_);     \
	} while (0)

/* Opens the shared library at path and looks up every function; fails the test when
 * the library or a function is missing. */
static inline void fmi2_import(Fmi2Api *a, const char *path)
{
	memset(a, 0, sizeof *a);
	a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!a->lib)
		print_error("dlopen %s: %s\n", path, dlerror());
	assert_non_null(a->lib);
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
