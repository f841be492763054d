/* fmi3_importer.h — the suite's minimal FMI 3.0 importer: plain dlopen and dlsym, no runtime
 * code, so that a test of an FMI 3.0 FMU (a test FMU now, a generated wrapper later) sees it
 * exactly as any importer would.
 *
 * Include after <cmocka.h>; link with -ldl.  Every function an FMI 3.0 Co-Simulation FMU
 * exports is looked up, and a missing one fails the test with its name. */
#ifndef FMI3_IMPORTER_H
#define FMI3_IMPORTER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3FunctionTypes.h"

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

/* Opens the shared library at path and looks up every function; fails the test when the
 * library or a function is missing.  dlsym gives a void *; copying its bytes keeps ISO C's
 * function/object pointer rule. */
static inline void fmi3_import(Fmi3Api *a, const char *path)
{
	memset(a, 0, sizeof *a);
	a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!a->lib)
		print_error("dlopen %s: %s\n", path, dlerror());
	assert_non_null(a->lib);
#define FMI3_API_LOOKUP(field, Name)                                  \
	do {                                                          \
		void *sym_ = dlsym(a->lib, "fmi3" #Name);             \
		if (!sym_)                                            \
			print_error("no symbol fmi3%s\n", #Name);     \
		assert_non_null(sym_);                                \
		memcpy(&a->field, &sym_, sizeof sym_);                \
	} while (0);
	FMI3_API_FUNCTIONS(FMI3_API_LOOKUP)
#undef FMI3_API_LOOKUP
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
