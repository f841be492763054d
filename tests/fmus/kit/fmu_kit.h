/* fmu_kit.h — a small kit for writing real FMI 2.0 Co-Simulation FMUs in C, for tests.
 *
 * fmu_kit.c implements every FMI 2.0 Co-Simulation function once: the state machine, value
 * reference checks, logging, input interpolation, FMU state snapshots and serialization.
 * An FMU's model.c supplies only what is particular to it: a plain struct holding all of its
 * variables and internal state, a table saying which field each value reference is, and the
 * callbacks that compute outputs and advance time.  It defines the one KitModel, named
 * kit_model, and is compiled together with fmu_kit.c into <modelIdentifier>.so.
 *
 * Because the model's state is a plain struct (no pointers, strings as fixed arrays), an FMU
 * state is a copy of its bytes plus the kit's own time keeping; snapshots and serialized
 * states carry a magic, a hash of the model's identifier and GUID and their size, so data
 * of another model or garbage is rejected with fmi2Error.
 *
 * Policies worth knowing when writing a master against these FMUs:
 *  - Outputs are recomputed lazily: after an input or parameter is set, the next get calls
 *    the model's calculate (in initialization mode and between steps), so a Mealy model's
 *    outputs follow its inputs without a step.
 *  - fmi2SetRealInputDerivatives takes first derivatives of Real inputs; they hold for the
 *    next step only (relative to its start) and are cleared after it.  Within the step the
 *    model sees u(tau) = u + du * (tau - t); after it the inputs keep their end values.
 *  - fmi2DoStep must be given the FMU's own time as communication point (within a relative
 *    1e-9).  A model's do_step may return fmi2Discard with the time it reached; the
 *    instance then stands at that time (fmi2GetRealStatus(fmi2LastSuccessfulTime) says
 *    which), in the stepFailed state.  From there, as the standard says, the master may read
 *    values, restore a saved state (which returns to stepComplete), terminate or reset.
 *  - Errors are always logged through the importer's logger, with category
 *    "logStatusError" (discards with "logStatusDiscard"); other messages only when logging
 *    is on, with category "logAll".
 *  - The kit never uses the importer's allocateMemory/freeMemory (an FMU built with it
 *    declares canNotUseMemoryManagementFunctions="true").
 *  - Instances share nothing: any number may live in one process. */
#ifndef FMU_KIT_H
#define FMU_KIT_H

#include <stddef.h>

#include "fmi2Functions.h" /* runtime/fmi2/: the project's FMI 2.0 declarations */

typedef enum KitType { KIT_REAL, KIT_INTEGER, KIT_BOOLEAN, KIT_STRING } KitType;

/* Who may set a variable, and when (the FMI 2.0 causality/variability that matter). */
typedef enum KitCausality {
	KIT_INPUT,     /* causality input: settable from instantiation on */
	KIT_OUTPUT,    /* causality output: computed, never set */
	KIT_PARAMETER, /* parameter, variability fixed: settable until initialization ends */
	KIT_TUNABLE,   /* parameter, variability tunable: also settable between steps */
	KIT_LOCAL,     /* local: read-only */
} KitCausality;

/* Storage of the variable types in the model's struct: KIT_REAL is fmi2Real, KIT_INTEGER
 * fmi2Integer, KIT_BOOLEAN fmi2Boolean, KIT_STRING char[KIT_STRING_MAX]. */
#define KIT_STRING_MAX 64

typedef struct KitVar {
	const char *name;       /* as in modelDescription.xml, for messages */
	fmi2ValueReference vr;  /* unique per type */
	KitType type;
	KitCausality causality;
	size_t offset;          /* offsetof(the model's struct, the variable's field) */
} KitVar;

typedef struct KitInstance KitInstance;

typedef struct KitModel {
	const char *identifier; /* modelIdentifier, which is also the .so's name */
	const char *guid;       /* must equal the guid of modelDescription.xml */
	size_t state_size;      /* sizeof the model's struct */
	const void *start;      /* the struct at instantiation and after reset */
	const KitVar *vars;
	size_t nvars;
	/* Required.  Computes the outputs from the struct at the current time. */
	fmi2Status (*calculate)(KitInstance *k, void *state);
	/* Optional.  Run by fmi2ExitInitializationMode before calculate, e.g. to derive the
	 * initial state from parameters. */
	fmi2Status (*initialize)(KitInstance *k, void *state);
	/* Optional.  Advances the struct from t to t + h (inputs set as at t; call
	 * kit_inputs_at for interpolated values).  On fmi2Discard, *reached is the time the
	 * state was left at (t <= *reached < t + h).  NULL for algebraic models: the kit sets
	 * the inputs to their values at t + h instead.  The kit calls calculate afterwards
	 * either way. */
	fmi2Status (*do_step)(KitInstance *k, void *state, double t, double h, double *reached);
} KitModel;

/* Each FMU's model.c defines this. */
extern const KitModel kit_model;

/* Sets every Real input in the struct to its value at time tau of the current step,
 * extrapolated with the derivatives the master gave (a no-op without them). */
void kit_inputs_at(KitInstance *k, double tau);

/* Logs through the importer's logger; printf-style. */
void kit_log(KitInstance *k, fmi2Status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* The instance's current time. */
double kit_time(const KitInstance *k);

/* Asks the master to end the simulation: fmi2GetBooleanStatus(fmi2Terminated) is then true. */
void kit_request_terminate(KitInstance *k);

#endif
