/* sart_master.h — the orchestrator core: master algorithms over SartInner instances.
 *
 * `sacc simulate` (simulate_cli.c) and the tests fill a SartScenario (the FMUs, their
 * variables of interest, the connections between them, start values, what to record) and
 * SartMasterOptions, and call sart_master_run.  The master reaches the FMUs only through
 * the seam, runtime/sart_inner.h, so FMUs of another FMI version join without any change
 * here.  Per macro step from t_n to t_n + H it does:
 *
 *   - a master algorithm from the table sart_algorithms[]: Jacobi (inputs from the outputs
 *     at t_n, then every FMU steps) or Gauss-Seidel (FMUs step in the execution order of
 *     the analysis; an input fed by an FMU already stepped this macro step gets its new
 *     value, linear from the old one when the receiver can interpolate inputs);
 *   - input approximation: hold, or linear extrapolation from the last two communication
 *     points given as input derivatives to FMUs with canInterpolateInputs (held on the
 *     first step; FMUs without the capability hold), quadratic from the last three, or
 *     Hermite from the source's output derivatives (see SartApprox);
 *   - iterations with rollback: after a first pass every FMU is restored to t_n and steps
 *     again, each input linear from its value at t_n to the end value of the last pass;
 *   - step rejection: when an FMU discards (stands short of t_n + H), every FMU is restored
 *     to t_n and the step is redone with H := the smallest step taken;
 *   - landing exactly on the stop time (the last step is shortened).
 *
 *   - algebraic loops (components of the direct-feedthrough graph), solved on tear
 *     variables during initialization and at every communication point, by fixed-point
 *     iteration, Anderson acceleration or Newton with a finite-difference Jacobian.
 *
 *   - step-size control: an error estimate by step doubling or by comparing the predicted
 *     inputs with the realised outputs, the controller of sart_step_propose, rejection
 *     and retry from restored states.
 *
 *   - event location: a sign change of a chosen output over a macro step is bracketed by
 *     regula falsi on the step size from restored states, and the step ending just
 *     after it is accepted.
 *
 * Real-time pacing is the caller's (the point callback's).  The code follows the runtime's
 * rules (runtime/README.md): C99, no global state, libc/libm/libdl only, every resource
 * released on one path; orchestrator/README.md says which file holds what. */
#ifndef SART_MASTER_H
#define SART_MASTER_H

#include <stddef.h>
#include <stdio.h>

#include "sart_inner.h"

/* ---- the scenario ------------------------------------------------------------------------ */

/* Variable types the master exchanges.  Every value travels as a double (Integer and
 * Boolean values are exact in one); strings are not exchanged. */
typedef enum SartType { SART_REAL, SART_INTEGER, SART_BOOLEAN, SART_OTHER } SartType;

typedef enum SartCausality {
	SART_CAUS_INPUT,
	SART_CAUS_OUTPUT,
	SART_CAUS_PARAMETER,
	SART_CAUS_OTHER /* local, independent, calculated parameter */
} SartCausality;

/* One variable of an FMU.  For an output, deps lists the indices (into the FMU's vars) of
 * the inputs it depends on directly (ModelStructure/Outputs); ndeps < 0 means the model
 * description does not say, so it may depend on every input. */
typedef struct SartVar {
	const char *name;
	SartVr vr;
	SartType type;
	SartCausality causality;
	const int *deps;
	int ndeps;
	/* An FMI 3.0 Clock (type SART_INTEGER): it reads as its ticks in the last step; an
	 * input clock set nonzero ticks at the end of the next step (SartSeConfig). */
	int is_clock;
	/* An FMI 3.0 input clocked by an input clock (clocks=""): read at the clock's ticks,
	 * so an --input table gives it its value at the step's end, where they fall. */
	int clocked;
} SartVar;

/* One FMU instance: where it was extracted and what its model description says. */
typedef struct SartFmu {
	const char *name;             /* instance name: messages, CSV columns */
	const char *dir;              /* the extracted FMU */
	const char *model_identifier;
	const char *guid;
	SartFmiVersion version;
	unsigned caps;                /* SART_CAP_* */
	const SartVar *vars;
	int nvars;
} SartFmu;

/* One FMU's FMI 3.0 sized types (sart_inner.h's SartVrType): the variables that are not
 * Float64 or Int32, for the seam to choose each getter and setter. */
typedef struct SartFmuTypes {
	const SartVrType *types;
	size_t n;
	/* FMI 3.0 array elements that the FMU's SartVar table lists as variables of their own
	 * (their SartVar.vr is the element's reference; sart_inner.h's SartVrElement) */
	const SartVrElement *elements;
	size_t nelements;
	/* FMI 3.0 Co-Simulation: its Float64 inputs marked intermediateUpdate, which the seam
	 * gives the FMU inside a step when it asks (sart_inner_set_intermediate_inputs) */
	const SartVr *intermediate;
	size_t nintermediate;
} SartFmuTypes;

/* Capabilities the master uses besides the seam's SART_CAP_* (sart_inner.h), in
 * SartFmu.caps too.  SART_CAP_EARLY_RETURN there means the FMU might return early from a
 * step; the master lets it only when it saves the states before each step (it then
 * shortens the macro step to where the FMU stopped, as for a discard, and redoes it from
 * the restored states), otherwise the FMU steps through its events.  Also:
 *   SART_CAP_OUTPUT_DERIVATIVES  maxOutputDerivativeOrder >= 1: SART_HERMITE reads the
 *                                first derivatives of its outputs;
 *   SART_CAP_INPUT_ORDER2        its setting of input derivatives takes second derivatives
 *                                (FMI 2.0 does not declare this: canInterpolateInputs
 *                                promises first derivatives only), so SART_QUADRATIC gives
 *                                it the parabola's second derivative;
 *   SART_CAP_REACTIVE            a step uses the inputs of its end, though the FMU takes no
 *                                input derivatives (an FMI 3.0 wrapper that says so): it
 *                                is not delayed. */
enum {
	SART_CAP_OUTPUT_DERIVATIVES = 1u << 8,
	SART_CAP_INPUT_ORDER2 = 1u << 9,
	SART_CAP_REACTIVE = 1u << 10
};

/* A reference to one variable: FMU index, variable index in that FMU. */
typedef struct SartRef {
	int fmu;
	int var;
} SartRef;

/* dst = scale * map(src) + offset: a unit conversion or linear transformation (1 and 0
 * when none), after an optional value map (an SSP system's Boolean, Integer or Enumeration
 * mapping: a value equal to map_from[k] becomes map_to[k], any other passes unchanged;
 * nmap 0 for none).  Integer and Boolean connections must have scale 1 and offset 0. */
typedef struct SartConnection {
	SartRef src; /* an output */
	SartRef dst; /* an input */
	double scale, offset;
	const double *map_from, *map_to;
	int nmap;
} SartConnection;

/* What connection cn delivers for the source value x. */
double sart_conn_value(const SartConnection *cn, double x);

/* A start value or parameter, set after instantiation, before initialization. */
typedef struct SartStart {
	SartRef ref;
	double value;
} SartStart;

/* A String start value (SartMasterOptions.string_starts); for a Binary variable text
 * points to size bytes. */
typedef struct SartStringStart {
	SartRef ref;
	const char *text;
	size_t size;
} SartStringStart;

typedef struct SartScenario {
	const SartFmu *fmus;
	int nfmus;
	const SartConnection *conns;
	int nconns;
	const SartStart *starts;
	int nstarts;
	const SartRef *records; /* the recorded variables, in column order */
	int nrecords;
} SartScenario;

/* ---- structural analysis ------------------------------------------------------------------- */

/* Strongly connected components (Tarjan) of the graph with nodes 0..n-1 and the given
 * edges, numbered in a topological order of the condensation (an edge never goes from a
 * higher component to a lower one; among components that are ready together the one with
 * the smallest node comes first).  comp[v] is v's component; order[] lists the nodes by
 * component, and by index within one.  Returns the number of components, or -1 when out
 * of memory. */
int sart_scc(int n, int nedges, const int from[], const int to[], int comp[], int order[]);

/* The analysis of a scenario.
 *
 * The port graph has a node per input and output of every FMU; an edge per connection
 * (output -> input) and per direct dependency of an output on an input of the same FMU.
 * Its components with more than one node, or a node with an edge to itself, are algebraic
 * loops; its topological order is the order in which initialization propagates values.
 * The FMU graph has an edge per connection between two FMUs.  Gauss-Seidel's execution
 * order is: the delayed FMUs (the paper's section 2.2.1: no direct feedthrough and not
 * reactive, i.e. not canInterpolateInputs; a sacc wrapper of a delayed Moore adaptation
 * is one), in scenario order, with their inputs at t_n; then the others in the topological
 * order of the components of the FMU graph without the delayed FMUs, in scenario order
 * within a component.  A cycle through a delayed FMU is thus no longer a cycle. */
typedef struct SartAnalysis {
	int nports;
	SartRef *ports;        /* node -> variable */
	int nedges;
	int *edge_from, *edge_to;
	int *edge_conn;        /* the connection an edge is, or -1 for a dependency */
	int ncomps;
	int *comp, *order;     /* as sart_scc */
	int nloops;
	int *loop_comp;        /* the components that are algebraic loops */
	int *fmu_order;        /* nfmus FMU indices: the execution order (delayed ones first) */
	int nfmu_comps;
	int *fmu_comp;         /* FMU -> its component in the FMU graph */
	int *delayed;          /* FMU -> 1 when delayed: it has inputs, none of its outputs
	                          depends on one, and it cannot interpolate inputs; it is
	                          stepped first with its inputs at t_n (both masters) */
} SartAnalysis;

/* Analyses sc.  Returns 0, or -1 with a message in err (a connection that is not an
 * output feeding an input, an index out of range, out of memory). */
int sart_analyse(const SartScenario *sc, SartAnalysis **out, char *err, size_t errsize);
void sart_analysis_free(SartAnalysis *a);

/* The analysis as text (`sacc simulate --explain`): the direct-feedthrough graph, its
 * components, the initialization order, the execution order and the loops found. */
void sart_analysis_print(FILE *out, const SartScenario *sc, const SartAnalysis *a);

/* The variables of loop i, "A.y -> B.u -> B.y -> A.u", into buf. */
void sart_loop_text(const SartScenario *sc, const SartAnalysis *a, int i, char *buf,
                    size_t size);

/* ---- running ------------------------------------------------------------------------------- */

/* The master algorithms: one row each in sart_algorithms[] (sart_master_algorithms.c).
 * SartMasterOptions.algorithm is a row's index; these names are for the callers that
 * choose one in C (the command line finds rows by name). */
typedef enum SartAlgorithm { SART_JACOBI = 0, SART_GAUSS_SEIDEL = 1 } SartAlgorithm;

struct SartRun; /* one run's state, private to the master */

/* A master algorithm: how one pass over a macro step orders the FMUs' steps and what their
 * inputs are.  Adding one is a row here and its pass function. */
typedef struct SartAlgorithmInfo {
	const char *name;    /* as `sacc simulate --master` takes it */
	const char *summary; /* one line, for the usage text */
	/* One pass over the macro step from t by h (pass 0 first, then one per iteration
	 * with rollback): set inputs, step every FMU, read the signals into the next values,
	 * solve the algebraic loops.  Returns 0, 1 (an FMU discarded; *short_end is the
	 * smallest time reached) or -1 (failed, reported). */
	int (*pass)(struct SartRun *run, int pass, double t, double h, double *short_end);
	/* 1: an input fed by an FMU already stepped in this pass takes that FMU's new output
	 * (linear from the old value to it, for an FMU that interpolates inputs, so input
	 * derivatives are given whatever the approximation) */
	int fresh_inputs;
	/* 1: its first pass is the fast path's when nothing else is needed (every input held
	 * and Real, no input derivatives, no loop): every input set, then every FMU stepped */
	int fast_path;
} SartAlgorithmInfo;

extern const SartAlgorithmInfo sart_algorithms[]; /* ends with a {NULL} row */

/* The row named name, or NULL. */
const SartAlgorithmInfo *sart_algorithm_find(const char *name);

/* Input approximation over a macro step, for inputs of FMUs that can interpolate them
 * (canInterpolateInputs; the others always hold), given as input derivatives at t_n:
 *   SART_HOLD       the value at t_n;
 *   SART_LINEAR     extrapolated from the last two communication points (held on the
 *                   first step);
 *   SART_QUADRATIC  the parabola through the last three communication points: to an FMU
 *                   with SART_CAP_INPUT_ORDER2 as its first and second derivative at t_n,
 *                   to the others (first derivatives only) as the chord to its value at
 *                   t_n + H; linear while only two points are known, held before;
 *   SART_HERMITE    y(t_n) + y'(t_n) (t - t_n), y' the source FMU's output derivatives
 *                   at t_n when it has SART_CAP_OUTPUT_DERIVATIVES, else linear
 *                   extrapolation as SART_LINEAR.
 * Quadratic and Hermite are refused with step doubling. */
typedef enum SartApprox { SART_HOLD, SART_LINEAR, SART_QUADRATIC, SART_HERMITE } SartApprox;

/* How an algebraic loop is solved.  Its tear variables x are inputs chosen so that cutting
 * the connections into them leaves the loop acyclic; G(x) is what those connections carry
 * after one pass through the loop from x (every other input of the loop set from its
 * source, in order).  Converged when |G(x)_i - x_i| <= tolerance * max(1, |x_i|) for every
 * tear variable; diverged when a value is NaN or infinite, or when the largest
 * |G(x)_i - x_i| grows past 1e6 times the first (and 1e6 times the tolerance). */
typedef enum SartLoopSolver {
	SART_LOOP_ANDERSON = 0, /* the default: Anderson acceleration with memory m (m = 1 is
	                           the secant method); the first update is x := G(x) */
	SART_LOOP_FIXED_POINT,  /* x := G(x) (Picard; converges when the loop gain is below 1) */
	SART_LOOP_NEWTON        /* Newton on G(x) - x, Jacobian by forward differences (one pass
	                           per tear variable), step halved while the residual grows */
} SartLoopSolver;

/* Why a loop failed (SartMasterResult.loop_outcome). */
typedef enum SartLoopOutcome {
	SART_LOOP_OK = 0,
	SART_LOOP_NOT_CONVERGED, /* the iteration bound was reached */
	SART_LOOP_DIVERGED,      /* NaN, infinity, or a residual grown 1e6-fold */
	SART_LOOP_SINGULAR       /* Newton's Jacobian is singular */
} SartLoopOutcome;

/* Step-size control.  The error estimate of a step is the largest, over the
 * values the connections carry, of |a - b| / max(1, |b|):
 *   doubling     a from one step of H, b from two of H/2 from the restored state (the two
 *                halves are kept when the step is accepted; three steps per attempt);
 *   prediction   a the value an input was given for the end of the step (held, or
 *                extrapolated), b the value its source produced there (no extra step). */
typedef enum SartStepControl {
	SART_STEP_FIXED = 0, /* the points start + k H (back on that grid after a short step) */
	SART_STEP_DOUBLING,
	SART_STEP_PREDICTION
} SartStepControl;

/* The controller: the step to try after one of size h whose error estimate is err,
 * h * clamp(safety (tol / err)^(1 / (p + 1)), shrink, grow) (h * grow when err is 0).
 * p is the order of the input approximation: 1 for hold, 2 for linear and Hermite, 3 for
 * quadratic.  A step with
 * err > tol is rejected and retried with this size. */
double sart_step_propose(double h, double err, double tol, int p, double safety,
                         double shrink, double grow);

/* Receives each accepted communication point, the start included: the recorded values in
 * the scenario's order.  A non-zero return stops the run (reported as an error). */
typedef int (*SartPointFn)(void *env, double t, const double values[], int n);
/* The recorded Strings of the point about to go to on_point, in the scenario's order; the
 * texts are valid until the next call on their FMUs (copy them). */
typedef int (*SartStringsFn)(void *env, const char *const values[], int n);

typedef struct SartMasterOptions {
	double start, stop, step;   /* step: the macro step H, > 0 */
	SartAlgorithm algorithm;    /* a row of sart_algorithms[] */
	SartApprox approx;
	int iterations;             /* passes after the first, with rollback (>= 0) */
	int logging_on;             /* given to each FMU's instantiate */
	SartLogger logger;          /* every FMU's messages, the seam's and the master's own */
	void *logger_env;
	SartPointFn on_point;
	/* Strings, which are not signals (their SartVar type is SART_OTHER), all optional:
	 * String start values, set after the others; String outputs recorded, read from their
	 * FMUs at each point and given to on_strings (with point_env) just before on_point;
	 * connections between String variables (outside the signal graph, no conversion): an
	 * input gets its source's String when the master sets that FMU's inputs, so the one of
	 * t_n under Jacobi and the new one, once the source stepped, under Gauss-Seidel.
	 * FMI 3.0 Binary variables, those listed in binaries, go in the same lists: recorded as
	 * their bytes in lowercase hex, connected only to Binary ones, bytes unchanged. */
	const SartStringStart *string_starts;
	int nstring_starts;
	const SartRef *string_records;
	int nstring_records;
	SartStringsFn on_strings;
	const SartConnection *string_conns;
	int nstring_conns;
	/* Per connection of the scenario (SartScenario.conns), 1 when what it carries is
	 * discrete (its output or its input is declared so): the input is held over each step
	 * at the value it gets, never given a slope; NULL: every connection may be. */
	const unsigned char *held_conns;
	const SartRef *binaries;
	int nbinaries;
	void *point_env;
	/* algebraic loops; zero fields take the defaults */
	SartLoopSolver loop_solver;
	int anderson_memory;        /* m >= 1 (default 1) */
	double loop_tolerance;      /* > 0 (default 1e-10) */
	int loop_max_iterations;    /* solver updates per solve, >= 1 (default 100) */
	/* step-size control (step is then the first step); zero fields take the defaults */
	SartStepControl step_control;
	double tolerance;           /* on the error estimate (default 1e-3) */
	double min_step;            /* a step this small is accepted whatever its error
	                               (default 1e-6 step) */
	double max_step;            /* never exceeded (default stop - start) */
	double safety, shrink, grow; /* the controller's (defaults 0.9, 0.2, 2) */
	/* 1: save no FMU state before each macro step (fixed steps without iterations only;
	 * refused with either).  By default a run whose FMUs can all get and set their state
	 * saves every FMU's state before each step, so that a discarded step can be redone
	 * shorter: one state got per FMU per step, often costlier than the master itself
	 * (bench/master).  With no_rollback a discard stops the run with an error naming the
	 * FMU and the time.  (`sacc simulate --no-rollback`.) */
	int no_rollback;
	/* Event location (fixed steps or prediction step control; needs every FMU to get and
	 * set its state; refused with no_rollback and with step doubling).  When
	 * locate_events is 1 and the output event_indicator (Real or Integer) changes sign
	 * over a macro step (from negative to >= 0 or from positive to <= 0), every FMU is
	 * restored to the step's start and the step is redone shorter, its size found by
	 * regula falsi with the Illinois modification (each trial at least tolerance / 2
	 * inside the bracket), until the crossing is bracketed within event_tolerance; the
	 * step ending at the bracket's upper end is accepted, so a communication point lies
	 * at most event_tolerance after the crossing (on it when the indicator is exactly 0
	 * there).  Stepping then goes on to the grid start + k step (fixed steps) or with the
	 * controller's next proposal (prediction control; the search's shorter steps are not
	 * error-checked).  (`sacc simulate --event INST.VAR [--event-tolerance TOL]`.) */
	int locate_events;
	SartRef event_indicator;
	double event_tolerance;     /* seconds, >= 0 (0: the default, 1e-6 step) */
	/* Called just before (done = 0) and just after (done = 1) every doStep of FMU fmu from
	 * t by h; NULL for none.  `sacc simulate --step-timeout` arms its watchdog here. */
	void (*on_step)(void *env, int fmu, double t, double h, int done);
	void *step_env;
	/* The FMI 3.0 sized types of each FMU (nfmus entries), or NULL when every FMU is an
	 * FMI 2.0 one or uses Float64 and Int32 only.  (The state probe uses them too.) */
	const SartFmuTypes *fmu_types;
	/* How each FMU that runs as Model Exchange (SART_CAP_MODEL_EXCHANGE in its caps) is
	 * integrated (nfmus entries), or NULL: the defaults (sart_inner.h, SartMeConfig). */
	const SartMeConfig *fmu_me;
	/* Per FMU: the clocks of one run through Scheduled Execution (SART_CAP_SCHEDULED_EXECUTION
	 * in its caps); NULL: none does */
	const SartSeConfig *fmu_se;
	/* 1: every pass goes through the general functions, never the fast path
	 * (sart_master_fast.c).  The results are the same bit for bit, only slower: the fast
	 * path's test runs each scenario both ways and compares them. */
	int no_fast_path;
	/* Opens each inner FMU in place of sart_inner_load (NULL: sart_inner_load), e.g. out
	 * of process (`sacc simulate --isolate`, sart_inner_load_isolated). */
	SartStatus (*load_inner)(void *env, const SartInnerConfig *cfg, SartInner **out);
	void *load_env;
	/* Inputs fed from outside the scenario (`sacc simulate --input`), none of them the end
	 * of a connection: before each step from t_n (and at initialization) input k gets the
	 * value external_value gives at t_n, and an FMU that interpolates inputs gets its slope
	 * from t_n on (0 for a value held) as the input's derivative over the step. */
	const SartRef *external;
	int nexternal;
	void (*external_value)(void *env, int k, double t, double *value, double *slope);
	/* A String or Binary input among them (its SartVar type SART_OTHER; a Binary when
	 * listed in binaries) gets, at the same times, the text external_text gives at t_n
	 * (for a Binary, *size bytes); it must stay valid until the next call.  NULL when
	 * every external input is a number. */
	const char *(*external_text)(void *env, int k, double t, size_t *size);
	/* An input clock among them (SartVar.is_clock) ticks at the times external_tick finds
	 * in (t0, t1] (the table's rows holding nonzero), and each step ends at the next such
	 * time external_next_tick gives after t (+infinity: none); NULL when no clock is fed. */
	int (*external_tick)(void *env, int k, double t0, double t1);
	double (*external_next_tick)(void *env, int k, double t);
	void *external_env;
	/* Threads that step FMUs at once (0 or 1: the calling thread only; at most
	 * SART_MAX_THREADS).  FMUs that do not depend on each other within a pass (every FMU
	 * under Jacobi, one generation of the execution order under Gauss-Seidel: FMUs none of
	 * which feeds another) step concurrently on a pool of threads made once per run, each
	 * FMU on the same thread while its group is parallel (on the calling thread
	 * otherwise), never two calls on one FMU at once, FMUs with
	 * SART_CAP_SERIAL on the calling thread.  Whether it pays is measured all along: the
	 * first SART_PAR_WARMUP + SART_PAR_SAMPLES passes run on the calling thread, each FMU
	 * timed; a group whose step times shared out over the threads would save 5 us tries
	 * parallel passes, and each group then keeps to the mode (one thread or parallel)
	 * whose median pass over windows of SART_PAR_SAMPLES is the faster by a margin,
	 * trying the other mode again from time to time (spaced by what trials lose) and at
	 * once when its own passes get slower than the other's were.  Results,
	 * points, statuses and messages are those of one thread, in the same order (messages
	 * an FMU logs while it steps are held and replayed in FMU order); on_step is then
	 * called from the thread that steps the FMU, concurrently for different FMUs. */
	int threads;
	/* 1: with threads > 1, every group of more than one FMU steps in parallel once timed,
	 * whatever the times (the parallel tests, which use trivial FMUs) */
	int threads_always;
	/* > 0: with threads > 1, every group of more than one FMU goes back and forth between
	 * one thread and the pool every this many passes once timed, whatever the times (the
	 * tests of a run that changes its mind) */
	int threads_flip;
} SartMasterOptions;

enum { SART_MAX_THREADS = 256, SART_PAR_WARMUP = 2, SART_PAR_SAMPLES = 7 };

/* A capability of the master's (SartFmu.caps): the FMU is stepped on the calling thread
 * only, never on the pool's workers (canBeInstantiatedOnlyOncePerProcess, needsExecutionTool,
 * or a caller's own reason, e.g. a watchdog that times the calling thread). */
enum { SART_CAP_SERIAL = 1u << 11 };

/* What a run did. */
typedef struct SartMasterResult {
	long accepted;   /* macro steps accepted */
	long rejected;   /* macro steps rejected (an FMU discarded, or the error estimate was
	                    above tolerance) and redone shorter */
	long iterations; /* extra passes over a macro step (iterations with rollback) */
	long rollbacks;  /* times every FMU was restored to t_n */
	double t;        /* the last accepted communication point */
	char message[1024]; /* why the run failed, "" on success */
	long loop_solves;      /* loops solved (each loop at initialization and per pass) */
	long loop_iterations;  /* solver updates, summed over the solves */
	long loop_evaluations; /* passes through a loop (each FMU of it set and read once) */
	SartLoopOutcome loop_outcome; /* of the solve that failed, else SART_LOOP_OK */
	double h_min, h_max;   /* the smallest and largest accepted step (0 before one) */
	long forced;           /* steps accepted at min_step with an error above tolerance */
	long events;           /* sign changes of the event indicator located (or stepped on) */
	long event_trials;     /* steps redone from restored states while locating them */
	int threads;           /* threads that stepped FMUs (1, or the pool's with --threads) */
	long parallel_steps;   /* FMU steps taken at once with others on the pool */
} SartMasterResult;

/* Loads, instantiates and initializes every FMU, then steps from start to stop, calling
 * on_point at the start and after each accepted step; terminates and frees everything.
 * Returns 0 on success, 1 on failure: an FMU call that failed (message: the seam's, which
 * names the FMU, the call and the time), a NaN or infinity read from an output, exchanged
 * or recorded (at the step where it first appears; that step is not accepted), a discard
 * when some FMU cannot get and set its state or no_rollback is set, event location
 * without get/set state or a crossing not bracketed in 200 trials, an algebraic loop that
 * does not converge (the message names the loop, its variables and the tear variables'
 * last values), on_point's refusal.  The message also went to the logger.  Points
 * already given to on_point stay valid. */
int sart_master_run(const SartScenario *sc, const SartMasterOptions *o, SartMasterResult *res);

/* The state probe (`sacc inspect --probe-state`; sart_master_run before a scheme that rolls
 * back): a fresh instance of FMU f of sc (its start values from sc->starts, no input
 * connected) is instantiated and initialised at start, stepped by h to t1 = start + h, its
 * state got, stepped to t2 = t1 + h (outputs A), its state set, stepped from t1 to t2 again
 * (outputs B); A and B are compared bit for bit (every Real, Integer and Boolean output).
 * o (may be NULL) gives what the run would: on_step, called around each doStep, the FMU's
 * FMI 3.0 types, and the loader (an FMU the run isolates is probed out of process).  Returns 0
 * (restore works), 1 (it does not: msg names the first variable that differs and both
 * values, or the call that failed after the restore) or -1 (inconclusive: a call before
 * the restore failed or discarded, or the FMU does not claim the capability; msg says
 * which).  The instance is freed before returning. */
int sart_probe_state(const SartScenario *sc, int f, double start, double h,
                     const SartMasterOptions *o, char *msg, size_t size);

#endif
