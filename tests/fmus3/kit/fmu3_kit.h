/* fmu3_kit.h — a small kit for writing real FMI 3.0 Co-Simulation FMUs in C, for tests.
 *
 * The FMI 3.0 sibling of tests/fmus/kit/fmu_kit.h.  fmu3_kit.c implements every exported
 * fmi3* function once: the Co-Simulation state machine (with Event Mode), value reference
 * and type checks for every variable type and for arrays, logging, early return, FMU state
 * snapshots and serialization.  An FMU's model.c supplies a plain struct holding all of its
 * variables, a table saying which field each value reference is, and the callbacks that
 * compute outputs, advance time and update discrete states.  It defines the one Kit3Model,
 * named kit3_model, and is compiled together with fmu3_kit.c into <modelIdentifier>.so.
 *
 * Policies worth knowing when writing an importer against these FMUs:
 *  - Value references are unique across all types (as FMI 3.0 requires); a getter or setter
 *    given a reference of another type answers fmi3Error naming it.  nValues must equal the
 *    total number of elements of the references given.
 *  - Enumerations are stored as fmi3Int64 and accessed with fmi3GetInt64/fmi3SetInt64.
 *    Strings and binaries live in fixed buffers of the struct (KIT3_STRING_MAX,
 *    KIT3_BINARY_MAX); a longer value is refused with fmi3Error.  The pointers fmi3GetString
 *    and fmi3GetBinary hand out stay valid until the next call on the instance.
 *  - Structural parameters keep their start values: Configuration Mode is not supported
 *    (fmi3EnterConfigurationMode answers fmi3Error), so array sizes are fixed.
 *  - After fmi3ExitInitializationMode the instance is in Event Mode when it was instantiated
 *    with eventModeUsed, else in Step Mode.  fmi3DoStep must be given the instance's own time
 *    (within a relative 1e-9).  A model returns early only when the importer allowed it.
 *  - Outputs are recomputed lazily: after a set, the next get runs calculate.
 *  - Errors are always logged, with category "logStatusError" (discards "logStatusDiscard");
 *    other messages only when logging is on ("logAll", events "logEvents").
 *  - Instances share nothing: any number may live in one process. */
#ifndef FMU3_KIT_H
#define FMU3_KIT_H

#include <stddef.h>

#include "fmi3Functions.h" /* runtime/fmi3/: the project's FMI 3.0 declarations */

/* Formats are C99's: mingw-w64 (tests/wine/ builds the kit for Windows with
 * __USE_MINGW_ANSI_STDIO) checks them as gnu_printf, not as Microsoft's printf. */
#if defined(__MINGW32__)
#define KIT3_PRINTF gnu_printf
#else
#define KIT3_PRINTF printf
#endif

typedef enum Kit3Type {
	K3_FLOAT32,
	K3_FLOAT64,
	K3_INT8,
	K3_UINT8,
	K3_INT16,
	K3_UINT16,
	K3_INT32,
	K3_UINT32,
	K3_INT64,
	K3_UINT64,
	K3_BOOLEAN,
	K3_STRING,  /* char[KIT3_STRING_MAX] per element */
	K3_BINARY,  /* Kit3Binary per element */
	K3_ENUM,    /* fmi3Int64 per element, accessed as Int64 */
	K3_NTYPES
} Kit3Type;

typedef enum Kit3Causality {
	K3_INPUT,      /* settable from instantiation on, and in Step and Event Mode */
	K3_OUTPUT,     /* computed, never set */
	K3_PARAMETER,  /* variability fixed: settable until initialization ends */
	K3_TUNABLE,    /* also settable in Step and Event Mode */
	K3_STRUCTURAL, /* a structural parameter: its start value only (no Configuration Mode) */
	K3_LOCAL,      /* read-only */
	K3_INDEPENDENT /* time (Float64, exactly one): reads the instance's time, not the struct */
} Kit3Causality;

#define KIT3_STRING_MAX 64
#define KIT3_BINARY_MAX 64

typedef struct Kit3Binary {
	size_t size;
	fmi3Byte data[KIT3_BINARY_MAX];
} Kit3Binary;

typedef struct Kit3Var {
	const char *name;       /* as in modelDescription.xml, for messages */
	fmi3ValueReference vr;  /* unique across all types */
	Kit3Type type;
	Kit3Causality causality;
	size_t offset;          /* offsetof(the model's struct, the variable's first element) */
	size_t n;               /* elements: 1 for a scalar, the product of its dimensions */
} Kit3Var;

typedef struct Kit3Instance Kit3Instance;

/* What a model's do_step reports besides its status. */
typedef struct Kit3Step {
	double reached;   /* where the state now stands, t < reached <= t + h (or = t on discard) */
	int early;        /* returned before t + h (only when kit3_early_return_allowed, or with
	                     an event when kit3_event_mode_used) */
	int event;        /* an event at `reached` wants Event Mode (only when kit3_event_mode_used) */
	int terminate;    /* the model wants the simulation to end */
} Kit3Step;

typedef struct Kit3Model {
	const char *identifier; /* modelIdentifier, which is also the .so's name */
	const char *token;      /* must equal the instantiationToken of modelDescription.xml */
	size_t state_size;      /* sizeof the model's struct */
	const void *start;      /* the struct at instantiation and after reset */
	const Kit3Var *vars;
	size_t nvars;
	/* Required.  Computes the outputs from the struct at the current time. */
	fmi3Status (*calculate)(Kit3Instance *k, void *state);
	/* Optional.  Run by fmi3ExitInitializationMode before calculate. */
	fmi3Status (*initialize)(Kit3Instance *k, void *state);
	/* Optional.  Advances the struct from t towards t + h and fills *out (reached is preset
	 * to t + h).  NULL for algebraic models.  calculate runs afterwards either way. */
	fmi3Status (*do_step)(Kit3Instance *k, void *state, double t, double h, Kit3Step *out);
	/* Optional.  One pass of fmi3UpdateDiscreteStates in Event Mode: *again asks for another
	 * pass, *next_event (when *has_next) is the time of the next time event. */
	fmi3Status (*update_discrete)(Kit3Instance *k, void *state, int *again, int *has_next,
	                              double *next_event);
} Kit3Model;

/* Each FMU's model.c defines this. */
extern const Kit3Model kit3_model;

/* A model.c may define this as 1: fmi3InstantiateCoSimulation then refuses eventModeUsed
 * (logs "Event Mode is not supported", returns NULL) whatever hasEventMode says, as the
 * models without events of some exporters' frameworks do.  The kit's reference is weak
 * (fmu3_kit.c), so the models that do not define it need not; the definition a model makes
 * stays strong, which PE (the Windows build of tests/wine/) needs to link it. */
extern const int kit3_refuses_event_mode;

/* Logs through the importer's callback when logging is on (always for errors). */
void kit3_log(Kit3Instance *k, fmi3Status status, const char *category, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(KIT3_PRINTF, 4, 5)))
#endif
	;

double kit3_time(const Kit3Instance *k);
int kit3_early_return_allowed(const Kit3Instance *k);
int kit3_event_mode_used(const Kit3Instance *k);

/* Calls the importer's intermediate update callback, if it gave one, at time tau inside a
 * step; returns 1 when the importer asks to return early there (only when canReturnEarly). */
int kit3_intermediate_update(Kit3Instance *k, double tau, int step_finished, int can_return_early);

#endif
