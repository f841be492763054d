/* sart_inner_fmi3_impl.h — what the two files of the seam's FMI 3.0 back end share:
 * sart_inner_fmi3.c (loading, the life cycle, numbers and their arrays, stepping, states)
 * and sart_inner_fmi3_bytes.c (the byte-valued variables: Strings, Binaries and the
 * elements of their arrays).  Private to those two files. */
#ifndef SART_INNER_FMI3_IMPL_H
#define SART_INNER_FMI3_IMPL_H

#include "sart_inner_backend.h"

#include <stddef.h>

#include "fmi3/fmi3FunctionTypes.h"


typedef struct Fmi3Api {
	fmi3GetVersionTYPE *get_version;
	fmi3InstantiateCoSimulationTYPE *instantiate;
	fmi3FreeInstanceTYPE *free_instance;
	fmi3EnterInitializationModeTYPE *enter_init;
	fmi3ExitInitializationModeTYPE *exit_init;
	fmi3EnterEventModeTYPE *enter_event_mode;
	fmi3UpdateDiscreteStatesTYPE *update_discrete_states;
	fmi3EnterStepModeTYPE *enter_step_mode;
	fmi3TerminateTYPE *terminate;
	fmi3ResetTYPE *reset;
	fmi3GetFloat32TYPE *get_float32;
	fmi3GetFloat64TYPE *get_float64;
	fmi3GetInt8TYPE *get_int8;
	fmi3GetUInt8TYPE *get_uint8;
	fmi3GetInt16TYPE *get_int16;
	fmi3GetUInt16TYPE *get_uint16;
	fmi3GetInt32TYPE *get_int32;
	fmi3GetUInt32TYPE *get_uint32;
	fmi3GetInt64TYPE *get_int64;
	fmi3GetUInt64TYPE *get_uint64;
	fmi3GetBooleanTYPE *get_boolean;
	fmi3GetStringTYPE *get_string;
	fmi3SetFloat32TYPE *set_float32;
	fmi3SetFloat64TYPE *set_float64;
	fmi3SetInt8TYPE *set_int8;
	fmi3SetUInt8TYPE *set_uint8;
	fmi3SetInt16TYPE *set_int16;
	fmi3SetUInt16TYPE *set_uint16;
	fmi3SetInt32TYPE *set_int32;
	fmi3SetUInt32TYPE *set_uint32;
	fmi3SetInt64TYPE *set_int64;
	fmi3SetUInt64TYPE *set_uint64;
	fmi3SetBooleanTYPE *set_boolean;
	fmi3SetStringTYPE *set_string;
	fmi3GetBinaryTYPE *get_binary;
	fmi3SetBinaryTYPE *set_binary;
	fmi3GetOutputDerivativesTYPE *get_output_derivatives;
	fmi3DoStepTYPE *do_step;
	fmi3GetFMUStateTYPE *get_state;
	fmi3SetFMUStateTYPE *set_state;
	fmi3FreeFMUStateTYPE *free_state;
	fmi3SerializedFMUStateSizeTYPE *serialized_size;
	fmi3SerializeFMUStateTYPE *serialize;
	fmi3DeserializeFMUStateTYPE *deserialize;
	/* Model Exchange */
	fmi3InstantiateModelExchangeTYPE *instantiate_me;
	fmi3GetNumberOfContinuousStatesTYPE *get_number_of_states;
	fmi3GetNumberOfEventIndicatorsTYPE *get_number_of_event_indicators;
	fmi3SetTimeTYPE *set_time;
	fmi3SetContinuousStatesTYPE *set_states;
	fmi3GetContinuousStatesTYPE *get_states;
	fmi3GetContinuousStateDerivativesTYPE *get_derivatives;
	fmi3GetEventIndicatorsTYPE *get_event_indicators;
	fmi3GetNominalsOfContinuousStatesTYPE *get_nominals;
	fmi3CompletedIntegratorStepTYPE *completed_integrator_step;
	fmi3EnterContinuousTimeModeTYPE *enter_ct_mode;
	fmi3GetDirectionalDerivativeTYPE *directional_derivative;
	/* Scheduled Execution, and clocks */
	fmi3InstantiateScheduledExecutionTYPE *instantiate_se;
	fmi3ActivateModelPartitionTYPE *activate_model_partition;
	fmi3GetClockTYPE *get_clock;
	fmi3GetIntervalDecimalTYPE *get_interval_decimal;
	fmi3SetClockTYPE *set_clock;
} Fmi3Api;

/* What the seam last wrote to an array whose elements are set one by one (its start
 * values before that; known[i] 0 when element i has neither). */
typedef struct ArrayShadow {
	SartVr array;
	size_t size;
	double *v;
	unsigned char *known;
} ArrayShadow;

/* The same for a String or Binary array: each value a malloc'd copy (NUL added). */
typedef struct BytesShadow {
	SartVr array;
	size_t size;
	unsigned char **v;
	size_t *len;
} BytesShadow;

typedef struct Fmi3Inner {
	Fmi3Api api;
	fmi3Instance c;
	int event_mode_used;
	int early_return_allowed;
	/* While instantiation with Event Mode is tried: the FMU's messages are held here, not
	 * forwarded, because a refusal is answered by trying again without it. */
	int holding_log;
	char held_log[256];
	char held_category[32]; /* the first message's */
	SartStatus held_status; /* the worst message's */
	ArrayShadow *shadows;
	size_t nshadows;
	BytesShadow *byte_shadows;
	size_t nbyte_shadows;
	unsigned char **held; /* the copies the last get of array elements gave out */
	size_t nheld;
	struct Fmi3Interm *interm; /* the intermediate inputs' history (NULL: none) */
	int clock_update; /* Scheduled Execution: the FMU called clockUpdate since last asked */
	/* clocks (sart_inner_se.c): run in Event Mode before Step Mode, or NULL */
	SartStatus (*event_hook)(SartInner *in, double t);
	double next_event; /* the last settled Event Mode's next time event, +inf when none */
} Fmi3Inner;

static inline Fmi3Inner *impl(SartInner *in)
{
	return in->impl;
}

/* A status other than fmi3OK, reported with the name of the function that returned it. */
SART_COLD SartStatus sart_inner_fmi3_not_ok(SartInner *in, const char *fn, fmi3Status st);

/* The same for a call made at the FMU's time t: "fmi3SetTime at t = 0.5 returned ...". */
SART_COLD SartStatus sart_inner_fmi3_not_ok_at(SartInner *in, const char *fn, double t,
                                               fmi3Status st);

static inline SartStatus outcome(SartInner *in, const char *fn, fmi3Status st)
{
	return st == fmi3OK ? SART_OK : sart_inner_fmi3_not_ok(in, fn, st);
}

static inline SartStatus worse(SartStatus a, SartStatus b)
{
	return a > b ? a : b;
}

static inline SartStatus unavailable(SartInner *in, const char *fn, const char *why)
{
	return sart_inner_report(in, SART_ERROR, "%s is not available: %s", fn, why);
}

/* Whether a call names some array element (the usual call names none: one test each). */
static inline int any_element(const SartInner *in, const SartVr vr[], size_t n)
{
	if (in->nelements == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (sart_inner_element(in, vr[i]))
			return 1;
	return 0;
}

/* sart_inner_fmi3_bytes.c: the seam's String and Binary calls, and the freeing of what
 * they keep in f (the shadows of byte-valued arrays, the copies the last get gave out). */
SartStatus sart_inner_fmi3_get_string(SartInner *in, const SartVr vr[], size_t n,
                                      const char *v[]);
SartStatus sart_inner_fmi3_set_string(SartInner *in, const SartVr vr[], size_t n,
                                      const char *const v[]);
SartStatus sart_inner_fmi3_get_binary(SartInner *in, const SartVr vr[], size_t n,
                                      const unsigned char *v[], size_t sizes[]);
SartStatus sart_inner_fmi3_set_binary(SartInner *in, const SartVr vr[], size_t n,
                                      const unsigned char *const v[], const size_t sizes[]);
void sart_inner_fmi3_free_bytes(Fmi3Inner *f);

/* sart_inner_fmi3_se.c: the Scheduled Execution instance (resource path as
 * fmi3_instantiate makes it) and the calls the layer of sart_inner_se.c makes. */
SartStatus sart_inner_fmi3_instantiate_se(SartInner *in, const char *token, const char *path,
                                          int logging_on, fmi3LogMessageCallback log);
extern const SartInnerSeOps sart_inner_fmi3_se_ops;

/* sart_inner_fmi3.c: Event Mode until the discrete states settle (the clocks' hook run),
 * then Step Mode; t for messages, NaN after initialization. */
SartStatus sart_inner_fmi3_settle(SartInner *in, double t);

#endif
