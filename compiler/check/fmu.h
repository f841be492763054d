/* fmu.h — what the compiler knows about an FMU, read from its modelDescription.xml.
 *
 * fmu_open.c opens the archive with minizip; fmu_read.c parses the model description with
 * libxml2 (no network, no DTD, no external entities).  FMI 2.0 and FMI 3.0 descriptions
 * map onto the same FmuInfo; the version-specific parts (GUID vs instantiation token, the
 * FMI 3.0 Co-Simulation flags) are kept as fields, never as separate structures, so the
 * checker and the emitter see one shape.  Everything here is owned by the FmuInfo and
 * released by fmu_free. */
#ifndef SACC_FMU_H
#define SACC_FMU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

/* The type of the annotation in which an FMI 3.0 wrapper built by sacc says it is reactive
 * (FMI 3.0 has no canInterpolateInputs): written by emit_md.c, read by fmu_read.c. */
#define SACC_KIND_ANNOTATION "org.sacc.kind"

typedef enum FmiVersion { FMI_V2 = 2, FMI_V3 = 3 } FmiVersion;

/* The scalar types.  FMI 3.0's sized types keep their own tag so that nothing is lost;
 * the checker folds them onto the language's types (Real for the floats, Integer for the
 * integer types, Bool, String). */
typedef enum FmuType {
	FT_REAL,      /* FMI 2 Real, FMI 3 Float64 */
	FT_FLOAT32,
	FT_INTEGER,   /* FMI 2 Integer, FMI 3 Int32 */
	FT_INT8, FT_UINT8, FT_INT16, FT_UINT16, FT_UINT32, FT_INT64, FT_UINT64,
	FT_BOOLEAN,
	FT_STRING,
	FT_ENUMERATION,
	FT_BINARY,    /* FMI 3 only */
	FT_CLOCK,     /* FMI 3 only */
} FmuType;

typedef enum FmuCausality {
	CAUS_LOCAL,   /* the default when the attribute is absent */
	CAUS_PARAMETER,
	CAUS_CALCULATED_PARAMETER,
	CAUS_INPUT,
	CAUS_OUTPUT,
	CAUS_INDEPENDENT,
	CAUS_STRUCTURAL_PARAMETER, /* FMI 3 only */
} FmuCausality;

typedef enum FmuVariability {
	VAR_CONTINUOUS, /* the default for Real/Float */
	VAR_CONSTANT,
	VAR_FIXED,
	VAR_TUNABLE,
	VAR_DISCRETE,
} FmuVariability;

typedef enum FmuInitial {
	INIT_UNSET, /* attribute absent: the standard's default applies */
	INIT_EXACT,
	INIT_APPROX,
	INIT_CALCULATED,
} FmuInitial;

/* How a Clock's interval is known (FMI 3.0's intervalVariability): periodic clocks
 * (constant, fixed, tunable, changing) tick from their interval and shift; countdown
 * ones when the FMU sets the interval of their next tick; triggered ones when whatever
 * drives them says so (an output clock, an input table). */
typedef enum FmuIntervalVariability {
	IV_CONSTANT,
	IV_FIXED,
	IV_TUNABLE,
	IV_CHANGING,
	IV_COUNTDOWN,
	IV_TRIGGERED,
} FmuIntervalVariability;

/* A Clock variable's attributes (or a <ClockType>'s, which a clock's own override).
 * Counters are in units of resolution (ticks of 1/resolution s). */
typedef struct FmuClock {
	FmuIntervalVariability interval_variability;
	double interval_decimal;      /* NaN when absent */
	double shift_decimal;         /* 0 when absent */
	bool supports_fraction;
	bool can_be_deactivated;
	unsigned long long resolution;       /* 0 when absent */
	unsigned long long interval_counter; /* 0 when absent */
	unsigned long long shift_counter;    /* 0 when absent */
	bool has_priority;
	unsigned priority;            /* smaller is more urgent (Scheduled Execution's order) */
} FmuClock;

/* A periodic clock: one whose ticks follow from interval and shift. */
bool fmu_clock_periodic(const FmuClock *c);

/* Its interval in seconds: intervalDecimal, else intervalCounter/resolution; NaN when
 * neither is given (the FMU tells it at run time). */
double fmu_clock_interval(const FmuClock *c);
/* Its shift in seconds: shiftDecimal, else shiftCounter/resolution, else 0. */
double fmu_clock_shift(const FmuClock *c);

const char *fmu_interval_variability_name(FmuIntervalVariability iv);

typedef struct FmuVar {
	char *name;
	uint32_t vr;          /* value reference */
	FmuType type;
	FmuCausality causality;
	FmuVariability variability;
	FmuInitial initial;
	char *start;          /* start value as written, NULL when absent */
	int nstarts;          /* FMI 3 String and Binary: the number of <Start> values, each
	                       * NUL-ended, one after the other in start (an array's, in
	                       * row-major order; start alone reads as the first) */
	char *unit;           /* unit name (own, or from its declared type), NULL when none */
	char *declared_type;  /* declaredType attribute, NULL when absent */
	char *description;
	int derivative_of;    /* 1-based index of the variable this is the derivative of, or 0 */
	int line;             /* line of its element in modelDescription.xml */
	/* FMI 3 arrays: one FmuDim per <Dimension>, none for a scalar.  nelems is the number
	 * of elements (1 for a scalar), sizes taken from the structural parameters' start
	 * values; -1 when a size cannot be known from the description. */
	struct FmuDim *dims;
	int ndims;
	long long nelems;
	/* FMI 3 Binary: its mimeType (NULL when absent) and maxSize (-1 when absent). */
	char *mime_type;
	long long max_size;
	/* FMI 3 intermediateUpdate="true": an importer may exchange it inside a Co-Simulation
	 * step, in the FMU's intermediate update callback. */
	bool intermediate_update;
	/* FMI 3 Clock: its attributes (meaningful only when type is FT_CLOCK). */
	FmuClock clock;
	/* FMI 3 clocks="..": the Clock variables (0-based indices) whose ticks this variable is
	 * computed or read at; none for a variable outside every clocked partition. */
	int *clocks;
	int nclocks;
} FmuVar;

/* One <Dimension>: a fixed size (start) or the structural parameter that gives it. */
typedef struct FmuDim {
	long long start;  /* the start attribute, -1 when the size is a parameter's */
	int var;          /* 0-based index of that structural parameter, -1 when fixed */
	long long size;   /* the size in effect: start, or the parameter's start value; -1 unknown */
} FmuDim;

/* A unit definition: the SI base-unit exponents and factor/offset, as FMI gives them. */
typedef struct FmuUnit {
	char *name;
	bool has_base;
	int kg, m, s, A, K, mol, cd, rad;
	double factor, offset;
} FmuUnit;

/* One <Item> of an enumeration type. */
typedef struct FmuEnumItem {
	char *name;
	long long value;
	char *description; /* NULL when absent */
} FmuEnumItem;

/* A type definition (FMI 2 SimpleType, FMI 3 Float64Type and friends); an enumeration's
 * items in document order (none for other types). */
typedef struct FmuTypeDef {
	char *name;
	FmuType type;
	char *quantity;
	char *unit;
	FmuEnumItem *items;
	int nitems;
	FmuClock clock; /* a <ClockType>'s attributes */
} FmuTypeDef;

/* One output's direct dependencies on other variables (ModelStructure/Outputs).
 * deps_given false means the attribute was absent: the output may depend on everything. */
typedef struct FmuOutputDep {
	int var;       /* index into FmuInfo.vars (0-based) */
	bool deps_given;
	int *deps;     /* indices into FmuInfo.vars (0-based) */
	int ndeps;
} FmuOutputDep;

/* One continuous state of a Model Exchange FMU: the state variable and its derivative,
 * both 0-based indices into FmuInfo.vars. */
typedef struct FmuState {
	int state;
	int derivative;
} FmuState;

/* The <ModelExchange> element, and what <ModelStructure> says about that interface.  Kept
 * beside the Co-Simulation fields (which keep their meaning) because an FMU may offer
 * both, with different identifiers and capabilities. */
typedef struct FmuMe {
	char *model_identifier;       /* NULL when the FMU has no <ModelExchange> */
	bool needs_execution_tool;
	bool can_be_instantiated_only_once_per_process;
	bool can_not_use_memory_management_functions; /* FMI 2 */
	bool can_get_and_set_fmu_state;
	bool can_serialize_fmu_state;
	bool provides_directional_derivative;
	bool provides_adjoint_derivatives;            /* FMI 3 */
	bool provides_evaluate_discrete_states;       /* FMI 3 */
	/* fmi2CompletedIntegratorStep / fmi3CompletedIntegratorStep must be called after each
	 * accepted solver step: FMI 2's completedIntegratorStepNotNeeded negated, FMI 3's
	 * needsCompletedIntegratorStep as written */
	bool needs_completed_integrator_step;
	/* The continuous states: FMI 2 <Derivatives>, FMI 3 <ContinuousStateDerivative>, in
	 * that order (the order of the state vector).  Read whether or not the FMU offers Model
	 * Exchange (a Co-Simulation description may list them too). */
	FmuState *states;
	int nstates;
	long long nstate_elems;  /* the number of scalars: an FMI 3 array state counts each
	                            element; -1 when a size is not known */
	bool scalar_states;      /* no state is an array: each maps to one value reference */
	/* FMI 2: numberOfEventIndicators; FMI 3: the number of <EventIndicator> (elements
	 * counted as nstate_elems is) */
	long long nevent_indicators;
	int *event_indicators;   /* FMI 3: the indicators' variables (0-based); NULL in FMI 2 */
	int nevent_indicator_vars;
} FmuMe;

/* The FMI 3 <ScheduledExecution> element: the FMU's partitions are activated one at a time
 * by the importer at its clocks' ticks (fmi3ActivateModelPartition). */
typedef struct FmuSe {
	char *model_identifier;       /* NULL when the FMU has no <ScheduledExecution> */
	bool needs_execution_tool;
	bool can_be_instantiated_only_once_per_process;
	bool can_get_and_set_fmu_state;
	bool can_serialize_fmu_state;
	bool provides_directional_derivative;
	bool provides_adjoint_derivatives;
} FmuSe;

typedef struct FmuInfo {
	FmiVersion version;
	char *fmi_version;      /* the attribute as written, e.g. "2.0" or "3.0" */
	char *model_name;
	char *model_identifier; /* of the Co-Simulation element; for an FMU without one, of the
	                         * Model Exchange element (me.model_identifier) */
	char *guid;             /* FMI 2 guid or FMI 3 instantiationToken */
	char *description;
	char *generation_tool;
	char *path;             /* the archive (or file) this was read from */
	char *md_name;          /* the name diagnostics use for the description:
	                         * "x.fmu:modelDescription.xml", or the .xml path itself */

	bool has_cosim;         /* a CoSimulation element is present */
	bool has_model_exchange;
	bool has_scheduled_execution;                 /* FMI 3 */
	int nclocks;                                  /* FMI 3 Clock variables */
	/* Why sacc can neither simulate nor wrap the FMU ("it offers Scheduled Execution only"),
	 * or NULL; only fmu_open_any lets such an FMU through, for `sacc inspect`. */
	const char *unusable;
	/* Co-Simulation capabilities (false when absent) */
	bool can_handle_variable_step;
	bool can_interpolate_inputs;
	int max_output_derivative_order;
	bool can_run_asynchronously;
	bool can_be_instantiated_only_once_per_process;
	bool can_not_use_memory_management_functions;
	bool can_get_and_set_fmu_state;
	bool can_serialize_fmu_state;
	bool provides_directional_derivative;
	bool provides_adjoint_derivatives;            /* FMI 3 */
	bool needs_execution_tool;
	bool has_event_mode;                          /* FMI 3 */
	bool can_return_early_after_intermediate_update; /* FMI 3 */
	bool provides_intermediate_update;            /* FMI 3 */
	bool might_return_early_from_do_step;         /* FMI 3 */
	double fixed_internal_step_size;              /* FMI 3, 0 when absent */

	FmuMe me;               /* the Model Exchange interface (has_model_exchange) */
	FmuSe se;               /* the Scheduled Execution interface (has_scheduled_execution) */

	double default_start, default_stop, default_step, default_tolerance; /* NaN when absent */

	FmuVar *vars;
	int nvars;
	FmuUnit *units;
	int nunits;
	FmuTypeDef *types;
	int ntypes;
	FmuOutputDep *outputs;
	int noutputs;
	FmuOutputDep *initial_unknowns; /* FMI 3 <InitialUnknown>, FMI 2 <InitialUnknowns> */
	int ninitial_unknowns;

	/* The paper's section 2.2.1 classification. */
	bool is_mealy;    /* some output depends directly on an input, or dependencies unknown */
	bool is_reactive; /* canInterpolateInputs, or (FMI 3.0, which dropped it) sacc's
	                   * annotation saying so (fmu_read.c, SACC_KIND_ANNOTATION) */
} FmuInfo;

/* The largest modelDescription.xml fmu_open accepts (bytes, uncompressed). */
#define FMU_MD_MAX_BYTES (16u * 1024u * 1024u)

/* Reads FILE: a .fmu archive, or a bare modelDescription.xml when the name ends in .xml.
 * Returns NULL after reporting through d (with the file and, for XML, the line).
 * Messages about the description inside an archive name it "FILE:modelDescription.xml"
 * (kept as md_name); problems with the archive itself name FILE.  Co-Simulation and Model
 * Exchange FMUs are accepted; a DOCTYPE is an error (nothing is ever loaded from outside
 * the buffer). */
FmuInfo *fmu_open(const char *path, DiagSink *d);

/* fmu_open for `sacc inspect`: also an FMU that sacc cannot simulate or wrap (Scheduled
 * Execution only, Clock variables), described with the reason in `unusable`. */
FmuInfo *fmu_open_any(const char *path, DiagSink *d);

/* Parses a model description already in memory; name is used in messages.  any: as
 * fmu_open_any. */
FmuInfo *fmu_parse_md(const char *xml, size_t len, const char *name, DiagSink *d);
FmuInfo *fmu_parse_md_any(const char *xml, size_t len, const char *name, DiagSink *d);

void fmu_free(FmuInfo *fmu);

/* Whether sacc runs the FMU as Model Exchange unless told otherwise: when it offers Model
 * Exchange and not Co-Simulation (an FMU with both runs as Co-Simulation by default). */
bool fmu_me_by_default(const FmuInfo *fmu);

/* Whether sacc runs the FMU through Scheduled Execution: when it offers that interface
 * only. */
bool fmu_se_by_default(const FmuInfo *fmu);

/* Whether sacc runs the FMU as Co-Simulation with its clocks ticked in Event Mode: it has
 * clocks, and runs as Co-Simulation with Event Mode. */
bool fmu_cs_clocks(const FmuInfo *fmu);

/* The model identifier of the interface sacc runs the FMU through: Model Exchange's when
 * me, else Co-Simulation's. */
const char *fmu_identifier(const FmuInfo *fmu, bool me);

/* The value references a Model Exchange run may set only in Event Mode (tunable Real
 * parameters, discrete Real inputs), sorted, each once: malloc'd, NULL with *n = 0 when
 * none or out of memory. */
uint32_t *fmu_me_event_vrs(const FmuInfo *fmu, size_t *n);

/* An FMI 3.0 Co-Simulation FMU's scalar Float64 inputs marked intermediateUpdate among its
 * first nvars variables (those of its description, before any expanded array elements),
 * sorted: what an importer gives it inside a step when it asks.  malloc'd, NULL with *n = 0
 * when none (always for FMI 2.0) or out of memory. */
uint32_t *fmu_intermediate_inputs(const FmuInfo *fmu, int nvars, size_t *n);

/* What the element of that interface declares, for the code that asks the same of either
 * (whether a wrapper can get and set its state, whether it needs a process to itself). */
typedef struct FmuAbilities {
	bool can_get_and_set_fmu_state;
	bool can_serialize_fmu_state;
	bool can_be_instantiated_only_once_per_process;
	bool needs_execution_tool;
	bool can_interpolate_inputs; /* Co-Simulation's; false for Model Exchange, whose inputs
	                                the wrapper holds over each step */
} FmuAbilities;
FmuAbilities fmu_abilities(const FmuInfo *fmu, bool me);

/* The variable called name, or NULL. */
const FmuVar *fmu_find_var(const FmuInfo *fmu, const char *name);

/* The type definition called name, or NULL. */
const FmuTypeDef *fmu_find_type(const FmuInfo *fmu, const char *name);

/* Whether output variable index out (0-based in vars) depends directly on variable in. */
bool fmu_output_depends_on(const FmuInfo *fmu, int out, int in);

/* Why the variable cannot be a port yet (an array, Binary, Enumeration, Clock), as a noun
 * phrase for messages ("an array of 3 Float64"), or NULL when it can. */
const char *fmu_var_unsupported(const FmuVar *v, char *buf, size_t size);

const char *fmu_type_name(FmuType t);          /* "Real", "Float64", "Integer", ... as in the XML */
/* The element name the given FMI version uses for t: FT_REAL is "Real" in 2.0, "Float64" in 3.0. */
const char *fmu_type_name_for(FmuType t, FmiVersion v);
const char *fmu_causality_name(FmuCausality c);
const char *fmu_variability_name(FmuVariability v);
const char *fmu_initial_name(FmuInitial i);    /* "" for INIT_UNSET */

/* The name of element k (0-based, row-major) of array v, "y[3]", "A[2,1]", in a:
 * 1-based subscripts, as FMI's structured names and `sacc simulate`'s columns write it. */
struct Arena;
const char *fmu_element_name(struct Arena *a, const FmuVar *v, long long k);

/* `sacc inspect`: a readable table, or JSON. */
void fmu_print_table(FILE *out, const FmuInfo *fmu);
void fmu_print_json(FILE *out, const FmuInfo *fmu);

#endif
