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

/* Clocks (FMI 3.0).  A model with Clock variables defines kit3_clocks (the kit's own, weak
 * definition has none): a table of its clocks and, when it offers Scheduled Execution, the
 * function that runs a model partition.  Each clock's run-time state is a Kit3ClockState
 * inside the model's struct, so FMU states carry the clocks' schedule with everything else.
 *  - Input clocks are activated by fmi3SetClock in Event Mode (Co-Simulation) or by
 *    fmi3ActivateModelPartition in Clock Activation Mode (Scheduled Execution).  In Event Mode
 *    the model's update_discrete sees them active (kit3_clock_active) in the first pass of
 *    fmi3UpdateDiscreteStates after they were set; the kit deactivates them after that pass.
 *  - Output clocks are raised by the model (kit3_clock_tick); the first fmi3GetClock that sees
 *    one active deactivates it, as the standard has it.  Leaving Event Mode deactivates every
 *    clock.  In Scheduled Execution a model calls kit3_clock_update after raising an output
 *    clock or giving a countdown clock its interval: that calls the importer's clockUpdate.
 *  - fmi3GetIntervalDecimal answers a time-based clock's interval and qualifier from its
 *    state; fmi3IntervalChanged reads once (later calls answer fmi3IntervalUnchanged), and a
 *    countdown clock answers fmi3IntervalNotYetKnown until the model gives it an interval
 *    (kit3_clock_countdown).  fmi3SetIntervalDecimal and fmi3SetShiftDecimal are accepted for
 *    fixed and tunable clocks whose interval the model description gives (importer_sets), in
 *    the states the standard allows.  The fraction variants are refused: no clock of these
 *    FMUs supports fractions.
 *  - The kit does not check that clocked variables are accessed only while their clock
 *    ticks: an importer that reads them at every communication point reads the values of
 *    their last tick. */
typedef enum Kit3ClockKind {
	K3C_CONSTANT,  /* periodic, interval (and shift) fixed by the model description */
	K3C_FIXED,     /* periodic, interval fixed at initialization */
	K3C_TUNABLE,   /* periodic, interval may change after initialization */
	K3C_CHANGING,  /* aperiodic, next interval known at each tick */
	K3C_COUNTDOWN, /* aperiodic, next interval given by the model when it knows it */
	K3C_TRIGGERED, /* no interval: input clocks ticked from outside, output clocks by the model */
} Kit3ClockKind;

typedef struct Kit3ClockState {
	fmi3Boolean active;
	fmi3IntervalQualifier qualifier; /* what fmi3GetIntervalDecimal answers next */
	fmi3Float64 interval;
	fmi3Float64 shift;
	fmi3Float64 last;                /* Scheduled Execution: the last activation time */
	fmi3Int32 activations;           /* Scheduled Execution: how many so far */
} Kit3ClockState;

typedef struct Kit3ClockVar {
	const char *name;
	fmi3ValueReference vr; /* unique among all variables' */
	Kit3Causality causality; /* K3_INPUT or K3_OUTPUT */
	Kit3ClockKind kind;
	int importer_sets;     /* fixed/tunable with intervalDecimal given: the importer sets it */
	size_t offset;         /* offsetof(the model's struct, the clock's Kit3ClockState) */
} Kit3ClockVar;

typedef struct Kit3Clocks {
	const Kit3ClockVar *clocks;
	size_t nclocks;
	/* Scheduled Execution: runs the partition of input clock `clock` at time t; NULL for a
	 * model without that interface (fmi3InstantiateScheduledExecution then refuses). */
	fmi3Status (*activate)(Kit3Instance *k, void *state, fmi3ValueReference clock, double t);
} Kit3Clocks;

extern const Kit3Clocks kit3_clocks;

/* The state of the model's clock with that reference (NULL if there is none). */
Kit3ClockState *kit3_clock(Kit3Instance *k, void *state, fmi3ValueReference vr);
/* Is the clock active?  For a model's update_discrete in Event Mode. */
int kit3_clock_active(Kit3Instance *k, void *state, fmi3ValueReference vr);
/* Raises an output clock (in do_step, update_discrete or a partition). */
void kit3_clock_tick(Kit3Instance *k, void *state, fmi3ValueReference vr);
/* Gives a countdown clock its next interval, counted from now. */
void kit3_clock_countdown(Kit3Instance *k, void *state, fmi3ValueReference vr, double interval);
/* Scheduled Execution: tells the importer (clockUpdate) that an output clock ticked or a
 * countdown clock has an interval.  Does nothing in the other interfaces. */
void kit3_clock_update(Kit3Instance *k);
int kit3_scheduled_execution(const Kit3Instance *k);

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

/* Intermediate variables (intermediateUpdate="true" in the model description): a model that
 * has some defines kit3_intermediate (the kit's own, weak definition has none), their value
 * references.  An importer may name any of them in requiredIntermediateVariables (others are
 * refused at instantiation); inside the callback the kit is in Intermediate Update Mode,
 * where those it named may be got, and, when the model asks for them, those that are inputs
 * set.  Every other get or set there is refused. */
typedef struct Kit3Intermediate {
	const fmi3ValueReference *vrs;
	size_t n;
} Kit3Intermediate;

extern const Kit3Intermediate kit3_intermediate;

/* Neither clocks nor intermediate variables, said explicitly: what a model built for
 * Windows must write at file scope (the kit's weak defaults exist on ELF only). */
#define KIT3_NO_CLOCKS                                                                    \
	const Kit3Clocks kit3_clocks = {NULL, 0, NULL};                                       \
	const Kit3Intermediate kit3_intermediate = {NULL, 0}

/* kit3_intermediate_update asking the importer for the intermediate inputs at tau
 * (intermediateVariableSetRequested).  *early_time (may be NULL) receives the time the
 * importer asked to return at, when it asks. */
int kit3_intermediate_inputs(Kit3Instance *k, double tau, int step_finished,
                             int can_return_early, double *early_time);

#endif
