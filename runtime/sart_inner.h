/* sart_inner.h — the runtime's one seam to the inner FMUs a wrapper drives.
 *
 * A SartInner is one instance of one inner FMU: its shared library, opened from the
 * extracted FMU directory, the function table resolved from it, and the instance created
 * with it.  Everything above this header (the master algorithms, the emitted wrapper code)
 * speaks only this API; which FMI version the inner FMU implements is decided once, in
 * sart_inner_load, by choosing a back end (sart_inner_fmi2.c, sart_inner_fmi3.c; see
 * sart_inner_backend.h).
 *
 * Reporting.  Every call returns a SartStatus.  Whenever it is not SART_OK, the seam also
 * writes one message naming the inner instance and the call, e.g.
 *     [window] fmi2DoStep(t = 0.5, h = 0.1) returned fmi2Error
 * sends it to the logger given at load time and keeps it for sart_inner_message.  The inner
 * FMU's own log messages are forwarded to the same logger, formatted and prefixed with the
 * instance name ("[window] ...").  The seam's own messages use the categories the test FMUs
 * and the wrapper declare: logStatusWarning, logStatusDiscard, logStatusError.
 *
 * No global state: any number of SartInner may live in one process, including several
 * instances of the same FMU (they then share its library, which dlopen reference-counts).
 * Not thread-safe per instance, as FMI instances are not. */
#ifndef SART_INNER_H
#define SART_INNER_H

#include <stddef.h>

/* Call outcomes.  The values are those of fmi2Status (and of fmi3Status), so a wrapper may
 * return them to its importer as they are.  An inner fmi2Pending is reported as SART_ERROR:
 * the runtime never asks for asynchronous steps. */
typedef enum SartStatus {
	SART_OK = 0,
	SART_WARNING = 1,
	SART_DISCARD = 2,
	SART_ERROR = 3,
	SART_FATAL = 4
} SartStatus;

/* The FMI version an inner FMU implements (its modelDescription's fmiVersion). */
typedef enum SartFmiVersion {
	SART_FMI2 = 2,
	SART_FMI3 = 3
} SartFmiVersion;

/* Capabilities from the inner model description that decide which optional functions the
 * library must export.  A function whose capability is not declared may still be resolved
 * and used when the library happens to export it. */
enum {
	SART_CAP_GET_SET_STATE = 1u << 0,    /* canGetAndSetFMUstate: get/set/free state */
	SART_CAP_SERIALIZE = 1u << 1,        /* canSerializeFMUstate: size/serialize/deserialize */
	SART_CAP_INPUT_DERIVATIVES = 1u << 2, /* canInterpolateInputs: set_real_input_derivatives */
	/* FMI 3.0 only (an FMI 2.0 back end ignores them): */
	SART_CAP_EVENT_MODE = 1u << 3,   /* hasEventMode: the instance is created with event mode
	                                    used, and the seam handles the events a step asks
	                                    for (see sart_inner_do_step) */
	SART_CAP_EARLY_RETURN = 1u << 4, /* the caller goes on from where a step stopped early:
	                                    the instance is created with early return allowed */
	/* Both versions: */
	SART_CAP_MODEL_EXCHANGE = 1u << 5, /* the instance is created for Model Exchange and each
	                                     step is integrated by the runtime's solvers
	                                     (sart_inner_me.c, settings in SartInnerConfig.me);
	                                     to its callers it behaves as Co-Simulation */
	/* FMI 3.0 only: */
	SART_CAP_SCHEDULED_EXECUTION = 1u << 6, /* the instance is created for Scheduled
	                                     Execution and each step activates its model
	                                     partitions at their clocks' ticks inside the step
	                                     (sart_inner_se.c, clocks in SartInnerConfig.se); to
	                                     its callers it behaves as Co-Simulation */
	SART_CAP_CLOCKS = 1u << 7        /* a Co-Simulation inner with clocks (and
	                                     SART_CAP_EVENT_MODE): each step ends at its input
	                                     clocks' ticks, where the seam ticks them in Event
	                                     Mode (fmi3SetClock), and its output clocks are read
	                                     in every Event Mode (sart_inner_se.c, clocks in
	                                     SartInnerConfig.se); with SART_CAP_EARLY_RETURN
	                                     a step ends early at the FMU's own event */
};

typedef unsigned int SartVr; /* a value reference */

/* The sized types of FMI 3.0 behind the seam's double Reals and int Integers.  The back
 * end converts at the boundary: a Float32 is widened on get and rounded on set (a finite
 * value beyond its range is an error); an integer that does not fit the inner variable's
 * type on set, or the seam's int on get, is an error naming the variable and the value,
 * never a wrap-around. */
typedef enum SartValueType {
	SART_VT_FLOAT64 = 0, /* the default of a Real value reference not listed */
	SART_VT_FLOAT32,
	SART_VT_INT8, SART_VT_UINT8, SART_VT_INT16, SART_VT_UINT16,
	SART_VT_INT32,       /* the default of an Integer value reference not listed */
	SART_VT_UINT32, SART_VT_INT64, SART_VT_UINT64
} SartValueType;

/* One variable whose FMI 3.0 type is not its seam type's default; name (may be NULL) is
 * for messages. */
typedef struct SartVrType {
	SartVr vr;
	SartValueType type;
	const char *name;
} SartVrType;

/* One element of an FMI 3.0 array variable, addressed as if it were a scalar of its own.
 * FMI 3.0 gets and sets an array whole (its values serialized in row-major order); a caller
 * that exchanges elements one by one (the master of `sacc simulate`) picks for each a
 * value reference that no variable of the FMU has, and the back end turns a call on it into
 * a call on the whole array: a get reads the array and picks the element, a set writes the
 * array with the elements the call gives and, for the others, the values last written
 * through the seam, else their start values, else (when one has neither) the values the
 * FMU holds, read first (FMI 3.0 allows that only once initialization began).  The
 * array's sized type is its entry in vr_types (Float64, Int32 or Boolean by the call when
 * not listed).  Elements of String and Binary arrays are got and set through the String
 * and Binary calls alike; what a get gives for them is the seam's copy, valid until the
 * instance's next call. */
typedef struct SartVrElement {
	SartVr vr;      /* the element's own reference, chosen by the caller */
	SartVr array;   /* the array variable's value reference */
	unsigned index; /* 0-based position in the serialized array */
	unsigned size;  /* the array's number of elements */
	double start;   /* the element's start value, NaN when it has none */
	/* String and Binary arrays: the element's start value, start_size bytes (a String's
	 * text without its NUL); start_data NULL when it has none */
	const void *start_data;
	size_t start_size;
} SartVrElement;

/* Receives every message: the inner FMU's (category as it gave it) and the seam's own.
 * message is plain text, already formatted and prefixed with "[instance] ". */
typedef void (*SartLogger)(void *env, SartStatus status, const char *category,
                           const char *message);

/* How a Model Exchange inner (SART_CAP_MODEL_EXCHANGE) is integrated.  All zero is the
 * default: method chosen by stiffness, tolerance from the experiment. */
typedef struct SartMeConfig {
	int method;               /* a SartOdeMethod (sart_ode.h): 0 auto, 1 DOPRI5, 2 RODAS,
	                             3 DOP853, 4 explicit, 5 RODAS5, 6 implicit */
	double tolerance;         /* relative; > 0 overrides the experiment's (the script's or
	                             the user's setting); 0: the tolerance the experiment gives
	                             enter_init, else default_tolerance, else 1e-6 */
	double default_tolerance; /* the FMU's DefaultExperiment tolerance, 0 when none */
	double max_step;          /* largest solver step, 0: none */
	/* FMI 2.0: the sizes from the description (<Derivatives>, numberOfEventIndicators);
	 * FMI 3.0 asks the FMU and ignores them. */
	size_t nstates;
	size_t nevent_indicators;
	/* The states' and their derivatives' value references (nstates each, scalars only):
	 * the Jacobian then comes from the FMU's directional derivatives.  NULL: finite
	 * differences.  Copied at load. */
	const SartVr *state_vrs;
	const SartVr *derivative_vrs;
	/* The Reals FMI lets one set only in Event Mode (tunable parameters, inputs of discrete
	 * variability): a set between steps that touches one enters Event Mode first.  An FMI
	 * 3.0 array is listed by its own value reference: the references of its elements
	 * (SartInnerConfig.elements) follow it.  Any order; copied (sorted) at load.  NULL/0:
	 * every Real set goes through in Continuous-Time Mode. */
	const SartVr *event_vrs;
	size_t nevent_vrs;
} SartMeConfig;

/* How one clock of a Scheduled Execution inner ticks (SART_CAP_SCHEDULED_EXECUTION). */
typedef enum SartClockKind {
	SART_CLOCK_PERIODIC,  /* input: at start + shift + k interval */
	SART_CLOCK_COUNTDOWN, /* input: interval after the FMU says so (its clock update) */
	SART_CLOCK_TRIGGERED, /* input: when the caller sets it (below) */
	SART_CLOCK_OUTPUT     /* the FMU ticks it, and says so through its clock update */
} SartClockKind;

typedef struct SartClock {
	SartVr vr;
	SartClockKind kind;
	double interval; /* periodic: seconds; 0 (or NaN): asked of the FMU after
	                    initialization */
	double shift;    /* periodic: seconds after the start of the first tick */
	unsigned priority; /* smaller first among the ticks of one instant */
} SartClock;

/* The clocks of a Scheduled Execution inner, or of a Co-Simulation one with
 * SART_CAP_CLOCKS; copied at load.  Each clock's value reference
 * reads, through sart_inner_get_integer, as the number of its ticks in the last step (at
 * the start, after exit_init, those of the start time); setting a triggered input clock to
 * a nonzero value through sart_inner_set_integer makes it tick once at the end of the next
 * step (set during initialization: at the start time).  Each step from t to t + h
 * activates, in time order, every tick in (t, t + h]; the ticks of one instant in order of
 * priority, then of the list.  sart_inner_next_clock_time tells the caller where the next
 * tick it knows of lies, so that it can end a step there. */
typedef struct SartSeConfig {
	const SartClock *clocks;
	size_t nclocks;
} SartSeConfig;

typedef struct SartInnerConfig {
	const char *name;             /* instance name: fmi2Instantiate's, and the log prefix */
	const char *dir;              /* the extracted FMU: modelDescription.xml, binaries/... */
	const char *model_identifier; /* the library is <dir>/binaries/<platform>/<id>.so */
	SartFmiVersion version;
	unsigned caps;                /* SART_CAP_* */
	SartLogger logger;            /* may be NULL: messages are then only kept */
	void *logger_env;
	/* FMI 3.0: the variables that are not Float64 (Reals) or Int32 (Integers); copied at
	 * load.  NULL/0 for FMI 2.0 and for an FMI 3.0 FMU with those types only. */
	const SartVrType *vr_types;
	size_t nvr_types;
	/* FMI 3.0: elements of array variables given references of their own; copied at load.
	 * NULL/0 when the caller exchanges no element. */
	const SartVrElement *elements;
	size_t nelements;
	/* Model Exchange only (SART_CAP_MODEL_EXCHANGE); ignored otherwise */
	SartMeConfig me;
	/* Scheduled Execution only (SART_CAP_SCHEDULED_EXECUTION); ignored otherwise */
	SartSeConfig se;
} SartInnerConfig;

/* What FMI 2.0 gives fmi2SetupExperiment (FMI 3.0 gives it to EnterInitializationMode). */
typedef struct SartExperiment {
	int tolerance_defined;
	double tolerance;
	double start_time;
	int stop_time_defined;
	double stop_time;
} SartExperiment;

typedef struct SartInner SartInner;

/* Opens <dir>/binaries/<platform>/<id>.so (RTLD_NOW | RTLD_LOCAL, and RTLD_DEEPBIND except
 * under AddressSanitizer, which refuses it) and resolves every function the runtime calls;
 * a missing one is an error naming it and the library.  The resource location later given
 * to the instance is <dir>/resources, made absolute.  On success *out owns the library;
 * on failure *out is NULL and the message went to cfg->logger. */
SartStatus sart_inner_load(const SartInnerConfig *cfg, SartInner **out);

/* FMI 3.0 Co-Simulation: the Float64 inputs marked intermediateUpdate that the FMU may ask
 * for inside a step (its intermediate update callback with
 * intermediateVariableSetRequested).  Called between sart_inner_load and
 * sart_inner_instantiate, which gives them the FMU as its requiredIntermediateVariables; the
 * list is copied.  When the FMU asks, the seam sets each to its linear extrapolation, at the
 * time the FMU gives, from the values the caller set for the last two steps at their starts
 * (held constant while there is one); every step starts from the value the caller set for
 * it.  Without the call nothing is given inside a step: the FMU holds its inputs over the
 * step.  FMI 2.0 and Model Exchange inners ignore the list; an isolated inner passes it to
 * its host's seam with the instantiation. */
SartStatus sart_inner_set_intermediate_inputs(SartInner *in, const SartVr vr[], size_t n);

/* Creates the Co-Simulation instance (not visible).  guid is the model description's. */
SartStatus sart_inner_instantiate(SartInner *in, const char *guid, int logging_on);

/* FMI 2.0: fmi2SetupExperiment then fmi2EnterInitializationMode; FMI 3.0: the experiment
 * given to fmi3EnterInitializationMode.  exit_init leaves initialization; an FMI 3.0
 * instance with event mode used then settles its discrete states and enters Step Mode. */
SartStatus sart_inner_enter_init(SartInner *in, const SartExperiment *ex);
SartStatus sart_inner_exit_init(SartInner *in);

/* Values by value-reference arrays, as FMI passes them.  Booleans are 0/1 ints; strings
 * got are owned by the inner FMU and valid until its next call.  A Model Exchange inner
 * takes Real sets between steps in Continuous-Time Mode, where FMI allows only continuous
 * inputs, unless the set touches one of SartMeConfig.event_vrs (a tunable parameter, a
 * discrete Real input); such a set, and any set of another type, puts it in Event Mode
 * first, and its next step starts with an event iteration. */
SartStatus sart_inner_get_real(SartInner *in, const SartVr vr[], size_t n, double v[]);
SartStatus sart_inner_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[]);
SartStatus sart_inner_get_boolean(SartInner *in, const SartVr vr[], size_t n, int v[]);
SartStatus sart_inner_get_string(SartInner *in, const SartVr vr[], size_t n, const char *v[]);
SartStatus sart_inner_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[]);
SartStatus sart_inner_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[]);
SartStatus sart_inner_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[]);
SartStatus sart_inner_set_string(SartInner *in, const SartVr vr[], size_t n,
                                 const char *const v[]);

/* FMI 3.0 Binary values: v[i] points to sizes[i] bytes (zero bytes included, no
 * terminator).  Bytes got are owned by the inner FMU (or the seam) and valid until its
 * next call.  An FMI 2.0 inner has no Binary: the calls are errors naming the instance. */
SartStatus sart_inner_get_binary(SartInner *in, const SartVr vr[], size_t n,
                                 const unsigned char *v[], size_t sizes[]);
SartStatus sart_inner_set_binary(SartInner *in, const SartVr vr[], size_t n,
                                 const unsigned char *const v[], const size_t sizes[]);

/* Derivatives of Real inputs (order[i] >= 1) for the next step. */
SartStatus sart_inner_set_real_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                 const int order[], const double value[]);

/* Derivatives of Real outputs (order[i] >= 1, at most the model description's
 * maxOutputDerivativeOrder) at the FMU's current time: the master's Hermite predictor.
 * Optional in the library: an FMU that does not export fmi2GetRealOutputDerivatives gets
 * an error naming it. */
SartStatus sart_inner_get_real_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                  const int order[], double value[]);

/* One communication step from t to t + h.  *reached (may be NULL) is where the FMU now
 * stands: t + h on SART_OK/SART_WARNING; on SART_DISCARD the inner FMU's last successful
 * time, asked for at once and checked to lie in [t, t + h]; NaN on an error.  A discard
 * whose last successful time cannot be had (the query fails, or answers outside the step)
 * is reported as SART_ERROR (SART_FATAL if the query was fatal): the master cannot know
 * where the FMU stands.
 *
 * Early return (FMI 3.0, only when loaded with SART_CAP_EARLY_RETURN): the step succeeded
 * but stopped short, at an event inside it.  It is reported as SART_OK (or SART_WARNING)
 * with *reached < t + h, the FMU's last successful time (checked to lie in [t, t + h));
 * the FMU stands there, and the caller goes on from *reached (a master shortens the
 * macro step to it).  Without the capability *reached is always t + h on success.
 * Events (FMI 3.0 with SART_CAP_EVENT_MODE): when the step asks for event handling, the
 * seam enters Event Mode, updates the discrete states until they settle and returns to
 * Step Mode before returning; the step's outcome is then that of the whole sequence.  A
 * step after which the FMU asks to terminate the simulation is reported as SART_ERROR
 * naming the time.
 *
 * Model Exchange (SART_CAP_MODEL_EXCHANGE): the step integrates the FMU from t to t + h
 * with the runtime's solver, handling its time, state and step events inside the step, and
 * leaves it at t + h (its outputs are then t + h's).  An FMU that asks to terminate the
 * simulation stops there: the step returns SART_DISCARD with *reached that time, as an FMI
 * 2.0 Co-Simulation slave that terminates does, and every later step is an error.  A
 * failure of the solver (a derivative NaN or infinite, the tolerance not met, too many
 * steps), an event iteration that does not settle (1000 iterations) and a chattering model
 * are SART_ERROR with a message naming the instance, the time and the cause. */
SartStatus sart_inner_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                              double *reached);

/* FMU states, as FMI defines them: *state NULL makes a new one, otherwise it is
 * overwritten.  A state belongs to the instance that made it; free each one with
 * sart_inner_free_state before sart_inner_free (FMI does not free them with the instance).
 * Serialized bytes are the inner FMU's own format.  A Model Exchange inner's state also
 * holds the solver's memo and the seam's own data, so that the steps after a restore are
 * bit for bit those taken the first time; its bytes are a checked header of that data
 * followed by the FMU's own bytes. */
SartStatus sart_inner_get_state(SartInner *in, void **state);
SartStatus sart_inner_set_state(SartInner *in, void *state);
SartStatus sart_inner_free_state(SartInner *in, void **state);
SartStatus sart_inner_serialized_size(SartInner *in, void *state, size_t *size);
SartStatus sart_inner_serialize(SartInner *in, void *state, unsigned char *buf, size_t size);
SartStatus sart_inner_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                  void **state);

/* The direct route of the per-step calls, for a wrapper's fast step: the library's own
 * functions and instance, so that a set, step or get costs one test and one call.  Its
 * contents are the back end's (sart_inner_fmi2_direct.h for FMI 2.0, whose inline calls the
 * emitted fast step uses); NULL for a back end that has none.  The route may be called
 * exactly when the back end's ready test says so (instantiated, no fatal outcome);
 * otherwise the calls must go through the functions above.  The pointer stays valid as
 * long as the SartInner, its contents follow the instance's life cycle. */
typedef struct SartInnerDirect SartInnerDirect;

const SartInnerDirect *sart_inner_direct(const SartInner *in);

typedef enum SartDirectCall {
	SART_DIRECT_SET_REAL,
	SART_DIRECT_GET_REAL,
	SART_DIRECT_DO_STEP
} SartDirectCall;

/* What the seam's own call would have returned and reported for a direct call that gave
 * status (not SART_OK): the message, the fatal mark, and for a step *reached as
 * sart_inner_do_step sets it (t and h are the step's; ignored otherwise). */
SartStatus sart_inner_direct_status(SartInner *in, SartDirectCall call, int status, double t,
                                    double h, double *reached);

/* The time of the next clock tick a Scheduled Execution inner has scheduled after the
 * time it stands at (a periodic or countdown clock's; a triggered clock's depend on the
 * caller); +infinity when none, and for any other inner. */
double sart_inner_next_clock_time(const SartInner *in);

SartStatus sart_inner_terminate(SartInner *in);
SartStatus sart_inner_reset(SartInner *in);

/* Frees the instance (unless a call was fatal: FMI then forbids any further call, even
 * this one), the function table, and closes the library.  NULL is a no-op. */
void sart_inner_free(SartInner *in);

const char *sart_inner_name(const SartInner *in);

/* The name of the inner's Real getter in its FMI version ("fmi2GetReal"), for messages about
 * the values it gave, so that code above the seam names no FMI version itself. */
const char *sart_inner_get_real_name(const SartInner *in);

/* The message of the last call that did not return SART_OK ("" if none). */
const char *sart_inner_message(const SartInner *in);

/* file: URIs, as FMI 2.0 passes fmuResourceLocation.  sart_uri_to_path accepts
 * file:///abs, file:/abs and file://localhost/abs (scheme and host in any case), decodes
 * percent-escapes and returns a malloc'd absolute path; other schemes, other hosts,
 * relative paths, bad escapes and %00 give NULL with a message in err (errsize bytes,
 * err may be NULL).  '?' and '#' are taken literally: a resource location carries no
 * query or fragment, and careless importers do not escape them.
 * sart_path_to_uri turns an absolute path into file:///... with every byte but the
 * unreserved characters and '/' percent-encoded; a relative path gives NULL. */
char *sart_uri_to_path(const char *uri, char *err, size_t errsize);
char *sart_path_to_uri(const char *path, char *err, size_t errsize);

#endif
