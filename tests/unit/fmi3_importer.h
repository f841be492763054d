/* fmi3_importer.h — the suite's minimal FMI 3.0 importer: plain dlopen and dlsym, no runtime
 * code, so that a test of an FMI 3.0 FMU (a test FMU now, a generated wrapper later) sees it
 * exactly as any importer would.
 *
 * Include after <cmocka.h>; link with -ldl.  As strict as fmusim and FMPy: a library that
 * lacks any function of fmi3Functions.h, of whatever interface (fmi_strict.h), is refused
 * before anything is instantiated, with the missing function's name; the Co-Simulation
 * functions and the Model Exchange ones the tests call are then at hand in Fmi3Api. */
#ifndef FMI3_IMPORTER_H
#define FMI3_IMPORTER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "fmi_strict.h"

/* The exported functions: X(field, Name) for fmi3<Name>, typed fmi3<Name>TYPE. */
#define FMI3_API_FUNCTIONS(X)                                                               \
	X(get_version, GetVersion)                                                          \
	X(set_debug_logging, SetDebugLogging)                                               \
	X(instantiate_me, InstantiateModelExchange)                                         \
	X(instantiate, InstantiateCoSimulation)                                             \
	X(instantiate_se, InstantiateScheduledExecution)                                    \
	X(free_instance, FreeInstance)                                                      \
	X(enter_init, EnterInitializationMode)                                              \
	X(exit_init, ExitInitializationMode)                                                \
	X(enter_event_mode, EnterEventMode)                                                 \
	X(terminate, Terminate)                                                             \
	X(reset, Reset)                                                                     \
	X(get_float32, GetFloat32)                                                          \
	X(get_float64, GetFloat64)                                                          \
	X(get_int8, GetInt8)                                                                \
	X(get_uint8, GetUInt8)                                                              \
	X(get_int16, GetInt16)                                                              \
	X(get_uint16, GetUInt16)                                                            \
	X(get_int32, GetInt32)                                                              \
	X(get_uint32, GetUInt32)                                                            \
	X(get_int64, GetInt64)                                                              \
	X(get_uint64, GetUInt64)                                                            \
	X(get_boolean, GetBoolean)                                                          \
	X(get_string, GetString)                                                            \
	X(get_binary, GetBinary)                                                            \
	X(get_clock, GetClock)                                                              \
	X(set_float32, SetFloat32)                                                          \
	X(set_float64, SetFloat64)                                                          \
	X(set_int8, SetInt8)                                                                \
	X(set_uint8, SetUInt8)                                                              \
	X(set_int16, SetInt16)                                                              \
	X(set_uint16, SetUInt16)                                                            \
	X(set_int32, SetInt32)                                                              \
	X(set_uint32, SetUInt32)                                                            \
	X(set_int64, SetInt64)                                                              \
	X(set_uint64, SetUInt64)                                                            \
	X(set_boolean, SetBoolean)                                                          \
	X(set_string, SetString)                                                            \
	X(set_binary, SetBinary)                                                            \
	X(set_clock, SetClock)                                                              \
	X(get_number_of_dependencies, GetNumberOfVariableDependencies)                      \
	X(get_dependencies, GetVariableDependencies)                                        \
	X(get_state, GetFMUState)                                                           \
	X(set_state, SetFMUState)                                                           \
	X(free_state, FreeFMUState)                                                         \
	X(serialized_size, SerializedFMUStateSize)                                          \
	X(serialize, SerializeFMUState)                                                     \
	X(deserialize, DeserializeFMUState)                                                 \
	X(get_directional_derivative, GetDirectionalDerivative)                             \
	X(get_adjoint_derivative, GetAdjointDerivative)                                     \
	X(enter_configuration_mode, EnterConfigurationMode)                                 \
	X(exit_configuration_mode, ExitConfigurationMode)                                   \
	X(get_interval_decimal, GetIntervalDecimal)                                         \
	X(get_interval_fraction, GetIntervalFraction)                                       \
	X(get_shift_decimal, GetShiftDecimal)                                               \
	X(get_shift_fraction, GetShiftFraction)                                             \
	X(set_interval_decimal, SetIntervalDecimal)                                         \
	X(set_interval_fraction, SetIntervalFraction)                                       \
	X(set_shift_decimal, SetShiftDecimal)                                               \
	X(set_shift_fraction, SetShiftFraction)                                             \
	X(evaluate_discrete_states, EvaluateDiscreteStates)                                 \
	X(update_discrete_states, UpdateDiscreteStates)                                     \
	X(enter_continuous_time_mode, EnterContinuousTimeMode)                              \
	X(completed_integrator_step, CompletedIntegratorStep)                               \
	X(set_time, SetTime)                                                                \
	X(get_number_of_continuous_states, GetNumberOfContinuousStates)                     \
	X(enter_step_mode, EnterStepMode)                                                   \
	X(get_output_derivatives, GetOutputDerivatives)                                     \
	X(do_step, DoStep)                                                                  \
	X(activate_model_partition, ActivateModelPartition)

typedef struct Fmi3Api {
	void *lib;
#define FMI3_API_FIELD(field, Name) fmi3##Name##TYPE *field;
	FMI3_API_FUNCTIONS(FMI3_API_FIELD)
#undef FMI3_API_FIELD
} Fmi3Api;

/* Opens the shared library at path and looks up its functions as a strict importer does:
 * NULL when it may be used, else why not (the library does not load, or lacks a function,
 * named), in a buffer of the caller's.  a->lib is left open either way, for fmi3_unimport.
 * dlsym gives a void *; copying its bytes keeps ISO C's function/object pointer rule. */
static inline const char *fmi3_try_import(Fmi3Api *a, const char *path, char *why, size_t size)
{
	memset(a, 0, sizeof *a);
	a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!a->lib) {
		snprintf(why, size, "dlopen %s: %s", path, dlerror());
		return why;
	}
	const char *missing = fmi3_missing_function(a->lib);
	if (missing) {
		snprintf(why, size, "%s: refused: the FMU does not export %s", path, missing);
		return why;
	}
#define FMI3_API_LOOKUP(field, Name)                                  \
	do {                                                          \
		void *sym_ = dlsym(a->lib, "fmi3" #Name);             \
		memcpy(&a->field, &sym_, sizeof sym_);                \
	} while (0);
	FMI3_API_FUNCTIONS(FMI3_API_LOOKUP)
#undef FMI3_API_LOOKUP
	return NULL;
}

/* fmi3_try_import, failing the test when the library is refused. */
static inline void fmi3_import(Fmi3Api *a, const char *path)
{
	char why[16384]; /* room for any path the tests build */
	if (fmi3_try_import(a, path, why, sizeof why))
		fail_msg("%s", why);
}

/* The shared library of a built FMI 3.0 test FMU:
 * BUILD/fmus3/<model>/binaries/x86_64-linux/<model>.so */
static inline void fmi3_library_path(char *buf, size_t size, const char *build, const char *model)
{
	snprintf(buf, size, "%s/fmus3/%s/binaries/x86_64-linux/%s.so", build, model, model);
}

static inline void fmi3_unimport(Fmi3Api *a)
{
	if (a->lib)
		dlclose(a->lib);
	memset(a, 0, sizeof *a);
}

#endif
