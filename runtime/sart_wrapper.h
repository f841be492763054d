/* sart_wrapper.h — the contract between the C that sacc emits for one adaptation and the
 * runtime that turns it into a Co-Simulation FMU.
 *
 * The emitted code is the model-specific part, as a Reference FMU's model.c is: a Storage
 * struct (external ports, params, in/out/control vars, rule flags, the inner FMUs' port
 * buffers), a table per type saying where each external variable lives in the Storage and
 * who may set it, and one function per rule part (In, MapIn, Ctrl, MapOut, Out).  It
 * defines one `const SartModel sart_model` describing all of that, and names no FMI type.
 * The runtime is the generic part: a version-free core (sart_core.h: the inner FMUs' life
 * cycle through sart_inner.h, Init, the Mealy output function G, the step and its
 * rejection, save_state stacks, FMU states) under one skin per FMI version (sart_fmi2.c)
 * that exports that version's functions.
 *
 * Meaning (the language's semantics of a wrapper, the paper's Algorithms 5 and 6):
 *   doStep(t, H)       In; Ctrl; Out.  Ctrl's `return` is the step taken, H~.  H~ < H
 *                      is a rejected step: the wrapper returns to the state it had at t
 *                      (when it snapshots: may_reject, and every inner can get and set
 *                      its state; otherwise it is left in stepFailed),
 *                      answers Discard, and reports t + H~ as its last successful time.
 *   do_step(f, ti, hi) (sart_do_step) MapIn(hi, ti - t); the inputs of f assigned since its
 *                      last step are set on f; f steps; all its outputs are read; MapOut(hi,
 *                      ti - t).  Internal couplings are explicit assignments by then (rule
 *                      ImplementInternalBinding), so the runtime does not apply them here.
 *   Init               on leaving initialization mode: the storage's initial values (from the
 *                      params as set by then), In, then for each inner in `order`: MapIn(0,
 *                      0), couple, set its assigned inputs, read its outputs, MapOut(0, 0);
 *                      then the inners leave initialization mode, then Out.
 *   G (Mealy only)     a get of an output after an input was set: the Init sequence without
 *                      the initial values, on a scratch copy of the Storage, so that no
 *                      state is committed; the inner FMUs do get those inputs.
 *   Outside a step (Init, G) t is the current time and H, h and dt are 0.
 *
 * Failures.  A runtime call made from a rule (sart_do_step, sart_save_state, ...) that
 * fails logs, records the status and returns a harmless value (0); every such call made
 * after it in the same call from the importer returns at once without reaching an inner FMU, and the
 * runtime stops the sequence (Init, G, the step) before its next part, so the importer's
 * call returns that status.  Emitted code therefore holds no resources and needs no
 * error checks for correctness; it leaves a `for` loop at its next iteration once
 * sart_failed says so, so as not to spin through iterations that can do nothing.  A Real
 * sent to an inner FMU that is NaN or infinite is such a failure (an error naming the
 * inner port), never passed on.
 *
 * What the emitted code may not assume: the Storage it is handed is not always the same
 * one (G runs on a scratch copy); the runtime copies Storage with memcpy, so it holds no
 * pointers.  That is why a String lives in the Storage as a char array of SART_STRING_CAP
 * bytes, written only through sart_set_string: a copy of the Storage (G's scratch, a
 * snapshot, an FMU state, its serialized form) then carries its strings with it. */
#ifndef SART_WRAPPER_H
#define SART_WRAPPER_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sart_inner.h"

/* The variable types the wrapper exchanges.  Booleans are ints holding 0 or 1, as
 * FMI's; Integers are ints; Strings are char arrays of SART_STRING_CAP bytes; Binaries are
 * SartBinary values, only forwarded between the importer and an inner FMU (FMI 3.0). */
typedef enum SartType {
	SART_REAL, SART_INTEGER, SART_BOOLEAN, SART_STRING, SART_BINARY, SART_NTYPES
} SartType;

/* The bytes of one String in the Storage, its terminating NUL included: a longer value
 * (set by the importer, read from an inner FMU, computed by a rule) is an error naming
 * the variable, never cut short.  A build may raise it (`CC="cc -DSART_STRING_CAP=65536"
 * sacc build ...`): the emitted code and the runtime are compiled together. */
#ifndef SART_STRING_CAP
#define SART_STRING_CAP 1024
#endif

/* The bytes a Binary holds at most in the Storage (where it lives whole, as a String does,
 * so that copies of the Storage carry it): a longer value is an error naming the variable
 * and its size, never cut short.  An inner's smaller maxSize is the wrapper's variable's
 * (SartModel.binary_max).  A build may raise it as SART_STRING_CAP. */
#ifndef SART_BINARY_CAP
#define SART_BINARY_CAP 4096
#endif

/* One Binary value: size bytes of data (zero bytes included: it is no C string). */
typedef struct SartBinary {
	size_t size;
	unsigned char data[SART_BINARY_CAP];
} SartBinary;

/* One FMI type's ports of an inner FMU, in one direction, as the runtime reaches them in
 * the Storage: n values (double for SART_REAL, char[SART_STRING_CAP] for SART_STRING,
 * int otherwise) in one array at offset
 * `values`, and for inputs one unsigned char per value at offset `assigned`, set by the
 * emitted code when a rule assigns the input and cleared by the runtime when it has set
 * the value on the inner FMU. */
typedef struct SartPorts {
	unsigned n;
	const SartVr *vr;           /* the inner FMU's value references */
	const char *const *names;   /* the ports' names in the script, for messages */
	size_t values;              /* offsetof(Storage, the value array) */
	size_t assigned;            /* inputs: offsetof(Storage, the assigned flags); else 0 */
} SartPorts;

/* One inner FMU instance.  Its extracted FMU is <fmuResourceLocation>/<dir>/, or
 * <fmuResourceLocation>/<name>/ when dir is NULL. */
typedef struct SartInnerModel {
	const char *name;             /* instance name in the script */
	/* The directory under resources/ of another instance of the same FMU file, whose
	 * extraction and library this one shares (one copy per FMU file in the archive, one
	 * library per file in the process); NULL (omitted): its own, named after it. */
	const char *dir;
	const char *model_identifier; /* its library: binaries/linux64/<model_identifier>.so */
	const char *guid;             /* its model description's guid */
	SartFmiVersion version;
	unsigned caps;                /* SART_CAP_* from its model description */
	SartPorts in[SART_NTYPES];
	SartPorts out[SART_NTYPES];
	/* 1: run out of process (`for isolated inner fmu`, `sacc build --isolate`), in the host
	 * program shipped beside the wrapper's library; a crash or hang in it is an error of the
	 * wrapper's call.  0 (omitted): loaded into the wrapper's process. */
	int isolated;
	/* FMI 3.0: the ports whose type is not the seam's default (Float64 for Reals, Int32 for
	 * Integers: Float32, the other integer types, Enumerations as Int64), for the back end
	 * to convert and range-check (sart_inner.h, SartVrType).  NULL/0 when there are none. */
	const SartVrType *vr_types;
	size_t nvr_types;
	/* 1: every call on this inner stays on the thread that called the wrapper, even in a
	 * batch stepped on several threads (canBeInstantiatedOnlyOncePerProcess,
	 * needsExecutionTool).  0 (omitted): any thread, one call at a time. */
	int serial;
	/* FMI 3.0: the elements of the inner's arrays that the wrapper exchanges one by one (its
	 * array ports, element by element in the Storage), each with a value reference of the
	 * wrapper's choosing (sart_inner.h, SartVrElement).  NULL/0 when there are none. */
	const SartVrElement *elements;
	size_t nelements;
	/* A Model Exchange inner (SART_CAP_MODEL_EXCHANGE in caps): how each step integrates
	 * it (sart_inner.h, SartMeConfig).  Zero (omitted) for a Co-Simulation inner. */
	SartMeConfig me;
	/* FMI 3.0 Co-Simulation: its Float64 inputs marked intermediateUpdate, which the seam
	 * gives it inside a step when it asks (sart_inner_set_intermediate_inputs).  NULL/0
	 * (omitted) when there are none. */
	const SartVr *intermediate_inputs;
	size_t nintermediate_inputs;
	/* A Scheduled Execution inner (SART_CAP_SCHEDULED_EXECUTION in caps): its clocks
	 * (sart_inner.h, SartSeConfig).  Zero (omitted) for any other inner. */
	SartSeConfig se;
} SartInnerModel;

typedef struct SartWrapper SartWrapper;

/* Every rule part gets the wrapper (for runtime calls), the Storage, and the external
 * step's start t and size H. */
typedef void SartRulePart(SartWrapper *w, void *s, double t, double H);
/* MapIn and MapOut also get h and dt (the language's semantics). */
typedef void SartMapPart(SartWrapper *w, void *s, double t, double H, double h, double dt);

/* Who may set an external variable.  Ordered: a variable is settable when
 * its kind is at least SART_VAR_FIXED before initialization ends and at least
 * SART_VAR_TUNABLE after, so that the runtime tests it with one comparison.  Outputs are
 * never settable; inputs and tunable parameters always. */
typedef enum SartVarKind {
	SART_VAR_OUTPUT = 0,
	SART_VAR_FIXED = 1,   /* a fixed parameter: until initialization ends */
	SART_VAR_TUNABLE = 2, /* a tunable parameter */
	SART_VAR_INPUT = 3
} SartVarKind;

/* One external variable of one type, at index = its value reference in that type's table
 * (value references are 0..nvr[type]-1 per type).  The skins' gets and sets are one loop over
 * these in the runtime: a value is read or written at `offset` in the Storage (a double for
 * Reals, an int for Integers and Booleans), and an unknown value reference or a variable
 * that may not be set is reported by the runtime, naming it. */
typedef struct SartVar {
	size_t offset;        /* offsetof(Storage, the variable) */
	SartVarKind kind;
	const char *name;     /* as in the script, for messages */
} SartVar;

/* What a fast step reaches in the runtime, per inner: the seam's direct route
 * (sart_inner.h) and the time each inner last stepped to, which it sets after a step; the
 * step's start t and size H, recorded before it (sart_fast_step_view), which it reads back
 * after its calls into inners, so that no copy of them is kept across the calls; and the
 * step an inner took when the fast step handed over (set by sart_fast_rest). */
typedef struct SartFastRoute {
	const SartInnerDirect *const *direct;
	double *last;
	double t, H;
	double taken;
} SartFastRoute;

/* The part of an instance that the emitted entry points (SartModel.set_real, get_real,
 * do_step) read and write themselves, so that the importer's usual set, step and get each
 * run in one function of the adaptation's own, with its tables and sizes as constants: the
 * instance's first members, in this order (the runtime's instance begins with the same
 * members, which sart_core.c checks), kept current by the runtime.  The Storage and the
 * importer's is_set marks lie right before the instance (sart_storage_of).  Anything an
 * entry point does not handle itself goes on to the runtime's call (sart_core_set_real,
 * ...), which checks it all again. */
typedef struct SartView {
	unsigned magic;             /* SART_INSTANCE_MAGIC while the instance is valid */
	unsigned char direct_reals; /* between steps with no call log: Real gets and sets may
	                             * go straight through the Storage */
	unsigned char fast_ok;      /* between steps with no call log, no snapshot and no input
	                             * derivatives due, the emitted fast step on and every inner
	                             * on its direct route: a step at the current time may take
	                             * the fast step */
	unsigned char g_dirty;      /* set since the last step, Init or G: a get runs G first */
	unsigned char g_valid;      /* G ran: reads come from scratch */
	double time;                /* the current communication point */
	double last_ok;             /* the last successful time */
	unsigned char *scratch;     /* G's copy of the Storage */
	SartFastRoute route;
}
#if defined(__GNUC__) || defined(__clang__)
/* written through this type and read through the runtime's own (sart_core_impl.h) */
__attribute__((may_alias))
#endif
SartView;

#define SART_INSTANCE_MAGIC 0x53415757u /* guards against stale or foreign handles */
#define SART_MARK_BLOCK 16              /* the is_set marks are cleared in blocks this big */

/* The bytes an instance gives its Storage (of storage_size bytes) and its is_set marks (one
 * per external value reference of every type, nmarks of them, the Reals' first): they lie
 * right before the instance in one allocation, the marks first, so that an emitted entry
 * point reaches them at constant offsets from the handle. */
static inline size_t sart_storage_space(size_t storage_size)
{
	return (storage_size + 15) / 16 * 16;
}

static inline size_t sart_marks_space(unsigned nmarks)
{
	return (nmarks / SART_MARK_BLOCK + 1) * SART_MARK_BLOCK;
}

/* The Storage of the instance behind a valid handle, and its is_set marks. */
static inline unsigned char *sart_storage_of(void *instance, size_t storage_size)
{
	return (unsigned char *)instance - sart_storage_space(storage_size);
}

static inline unsigned char *sart_marks_of(void *instance, size_t storage_size,
                                           unsigned nmarks)
{
	return sart_storage_of(instance, storage_size) - sart_marks_space(nmarks);
}

/* A parameter of an inner FMU that the wrapper sets on it: its value lives in the Storage
 * at `offset` (a double for Reals, an int otherwise).  An exposed one is also the wrapper's
 * own parameter `ext_vr` ("<inner>.<name>"), which the importer sets; a bound one is
 * computed by bind_params from the wrapper's params.  All are set on the inner before it
 * enters initialization mode and again before it leaves it; an exposed tunable one set by
 * the importer between steps is set on the inner at once. */
typedef struct SartInnerParam {
	unsigned inner;
	SartType type;
	SartVr vr;            /* the inner's value reference */
	size_t offset;        /* offsetof(Storage, the value) */
	int exposed;
	SartVr ext_vr;        /* the wrapper's value reference of that type, when exposed */
} SartInnerParam;

typedef struct SartModel {
	const char *identifier;       /* modelIdentifier */
	const char *guid;             /* the wrapper's own guid */
	size_t storage_size;          /* sizeof (Storage) */

	const SartInnerModel *inners;
	unsigned ninners;
	const unsigned *order;        /* Init and G visit inners[order[0..norder-1]]: the */
	unsigned norder;              /* topological order of the couplings, or all inners in
	                               * declaration order when there is none */
	unsigned nvr[SART_NTYPES];    /* external value references per type: 0..nvr[t]-1 */
	const SartVar *vars[SART_NTYPES]; /* per type, by value reference (NULL when nvr[t] is
	                               * 0) */
	/* Where each Real variable lives (vars[SART_REAL][vr].offset on its own), or NULL: the
	 * importer's Real gets and sets between steps read and write through it with one bound
	 * check per value.  Emitted code gives it, and numbers the external Real inputs
	 * 0..nreal_inputs-1 (sart_core_set_real relies on it); a model that does not, gives
	 * NULL and its values go through vars. */
	const size_t *real_offset;
	int mealy;                    /* outputs depend directly on inputs: G on get */
	int may_reject;               /* Ctrl can compute a step shorter than H itself: snapshot
	                               * each step (0 when it returns H, or only what do_step
	                               * gave: an inner discard passed up leaves the wrapper
	                               * in stepFailed, as that inner would be) */

	const SartVr *real_inputs;    /* the external Real inputs' value references, for */
	unsigned nreal_inputs;        /* input derivatives */
	/* Per real_inputs: 1 for a discrete input, which the wrapper holds over the step (its
	 * derivative is taken and not applied); NULL when every Real input is continuous. */
	const unsigned char *held_inputs;

	/* The params' start values (at instantiation and reset). */
	void (*defaults)(void *s);
	/* The in/out/control vars' initial values, from the params (leaving initialization). */
	SartRulePart *initial;


	SartRulePart *in;             /* In: in-rule conditions and their `->` parts */
	SartMapPart *map_in;          /* MapIn: the `-->` parts of the flagged in rules */
	double (*ctrl)(SartWrapper *w, void *s, double t, double H); /* Ctrl: returns H~ */
	SartMapPart *map_out;         /* MapOut: out-rule conditions and their `->` parts */
	SartRulePart *out;            /* Out: the `-->` parts of the flagged out rules */
	/* The internal couplings into inners[inner] (with their unit conversions), for Init
	 * and G; a coupling assigns the input as a rule would (value and assigned flag). */
	void (*couple)(SartWrapper *w, void *s, unsigned inner);

	/* 1 when the emitted do_step (below) has a fast step, else 0: In, Ctrl and Out of one
	 * step from t by H written out by the emitter as straight-line code, for adaptations
	 * simple enough (compiler/emit/emit_c_fast.c, fast_step_form: unconditional in rules, no
	 * rule part calling the runtime, Ctrl only do_step(f, t, H) of distinct inners with the
	 * internal couplings between them, every Real input of a stepped inner assigned each
	 * step, Real ports only, FMI 2.0 inners).  Each inner is set, stepped and read through
	 * the seam's direct route (the calls of sart_fast_step.h), and its last time set.  It
	 * leaves exactly the state the general path would, and returns the step's status: when
	 * the whole step went with SART_OK (Out has run), sart_fast_commit's (inline,
	 * sart_fast_step.h); otherwise it handed over to sart_fast_rest where that happened, went
	 * on as Ctrl would, and returns sart_fast_end's with what Ctrl returns (Out has not run).
	 * It is taken only on a plain step (between steps, t the current time within the
	 * tolerance, 0 < H <= DBL_MAX, no snapshot, no input derivatives, no call log:
	 * sart_fast_step_view, which the emitted do_step tests first), and nothing of the step
	 * is set before it (sart_fast_rest does, when it hands over).  The runtime turns it on
	 * and off through SartView.fast_ok (never on with -DSART_NO_FAST_STEP). */
	int fast_step;

	/* The inners' parameters the wrapper sets (NULL and 0 when none), and the function
	 * that computes the bound ones from the params. */
	const SartInnerParam *inner_params;
	unsigned ninner_params;
	SartRulePart *bind_params;

	/* `sacc build --threads N`: the most threads the batched do_steps may step inners on
	 * (0 or 1: one), and how many batch sites Ctrl has (sart_do_step_batch's `batch` is
	 * 0..nbatches-1).  Both 0 (omitted) without. */
	unsigned threads;
	unsigned nbatches;

	/* The importer's every-step calls, which the skins make through these (fmi2SetReal and
	 * fmi3SetFloat64 are one jump to set_real, ...): the adaptation's own (the emitter writes
	 * them over the instance's SartView with the helpers below, and do_step only with a fast
	 * step), or the runtime's calls they go on to, sart_core_set_real, sart_core_get_real
	 * and sart_core_do_step.  None is NULL. */
	SartStatus (*set_real)(void *instance, const SartVr vr[], size_t n, const double v[]);
	SartStatus (*get_real)(void *instance, const SartVr vr[], size_t n, double v[]);
	SartStatus (*do_step)(void *instance, double t, double H, int no_set_prior);

	/* Per Binary value reference (vars[SART_BINARY]), the most bytes its value may hold:
	 * the inner's maxSize when it gives one below SART_BINARY_CAP, else the cap.  NULL
	 * (omitted) when the wrapper has no Binary. */
	const size_t *binary_max;
	/* FMI 3.0 array variables, whose elements are variables of their own here (value
	 * references in a row): per type, by value reference, how many values the model
	 * description's variable there holds (1 a scalar, N the first element of an array of
	 * N, 0 a later element, which the description does not name).  NULL for a type with
	 * no array.  Only a wrapper whose skin is compiled with SART_ARRAYS reads them
	 * (sart_fmi3_arrays.c), so that the value calls of the others pay nothing. */
	const unsigned *spans[SART_NTYPES];
} SartModel;

/* Defined by the emitted code; hidden, so that the runtime and the skins reach it without
 * the GOT (a skin's every-step call is then one jump through it).  A DLL has no GOT and
 * exports only what is marked dllexport: nothing to say on Windows. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
__attribute__((visibility("hidden")))
#endif
extern const SartModel sart_model;

/* ---- the importer's every-step calls (SartModel.set_real, get_real, do_step) -------------- */

/* The runtime's Real get and set, and its step, for every handle: each checks the handle, the
 * phase and every value reference, and reports what it refuses, naming the call as the skin
 * names it.  Emitted entry points go on to these with anything they do not handle. */
SartStatus sart_core_get_real(void *instance, const SartVr vr[], size_t n, double v[]);
SartStatus sart_core_set_real(void *instance, const SartVr vr[], size_t n, const double v[]);
SartStatus sart_core_do_step(void *instance, double t, double H, int no_set_prior);

/* The view of a handle whose Real values may be read and written straight through the
 * Storage (SartView.direct_reals), or NULL. */
static inline SartView *sart_reals_view(void *instance, const void *vr, const void *values)
{
	SartView *v = instance;
	if (v && v->magic == SART_INSTANCE_MAGIC && v->direct_reals && vr && values)
		return v;
	return NULL;
}

/* An emitted Real set: the external Real inputs (value references 0..ninputs-1, each at
 * off[vr] in the Storage of storage_size bytes, among nmarks external value references)
 * stored and marked set, and G made due.  A value reference that is not one (a tunable
 * parameter, or one it refuses and reports) leaves the whole call to sart_core_set_real,
 * which stores the same inputs before it the same way and goes on from there.  Inline, so
 * that with the model's table and sizes as constants a value costs a few instructions. */
static inline SartStatus sart_set_reals(void *instance, const SartVr vr[], size_t nvr,
                                        const double value[], const size_t off[],
                                        unsigned ninputs, size_t storage_size,
                                        unsigned nmarks)
{
	SartView *v = sart_reals_view(instance, vr, value);
	if (v && nvr) {
		unsigned char *s = sart_storage_of(instance, storage_size);
		unsigned char *marks = sart_marks_of(instance, storage_size, nmarks);
		size_t i = 0;
		do {
			SartVr k = vr[i];
			if (k >= ninputs)
				return sart_core_set_real(instance, vr, nvr, value);
			*(double *)(void *)(s + off[k]) = value[i];
			marks[k] = 1;
		} while (++i < nvr);
		v->g_dirty = 1;
		v->g_valid = 0;
		return SART_OK;
	}
	return sart_core_set_real(instance, vr, nvr, value);
}

/* An emitted Real get: with G not due, every value reference one of the model's nreals Real
 * variables (each at off[vr] in the Storage of storage_size bytes, or in G's copy when G
 * ran), read; anything else is sart_core_get_real's call. */
static inline SartStatus sart_get_reals(void *instance, const SartVr vr[], size_t nvr,
                                        double value[], const size_t off[], unsigned nreals,
                                        size_t storage_size)
{
	const SartView *v = sart_reals_view(instance, vr, value);
	if (v && !v->g_dirty) {
		const unsigned char *s = v->g_valid ? v->scratch
		                                    : sart_storage_of(instance, storage_size);
		for (size_t i = 0; i < nvr; i++) {
			SartVr k = vr[i];
			if (k >= nreals)
				return sart_core_get_real(instance, vr, nvr, value);
			value[i] = *(const double *)(const void *)(s + off[k]);
		}
		return SART_OK;
	}
	return sart_core_get_real(instance, vr, nvr, value);
}

/* How far the importer's t may lie from the instance's time: 1e-9 relative (absolute below
 * 1 s).  An importer's t = i h rounds differently from the instance's sum of steps. */
static inline double sart_time_tolerance(double time)
{
	double a = fabs(time);
	return 1e-9 * (a > 1 ? a : 1);
}

/* Whether t is the instance's time `now` as a step accepts it: bit-equal in one comparison
 * (an importer that sums its steps as the instance does), else within the tolerance. */
static inline int sart_at_time(double now, double t)
{
	return t == now || fabs(t - now) <= sart_time_tolerance(now);
}

/* The is_set marks of n external value references cleared: the first block with a store or
 * two of constant size, then the rest, block by block. */
static inline void sart_clear_is_set(unsigned char *marks, unsigned n)
{
	memset(marks, 0, SART_MARK_BLOCK);
	for (unsigned i = SART_MARK_BLOCK; i < n; i += SART_MARK_BLOCK)
		memset(marks + i, 0, SART_MARK_BLOCK);
}

/* ---- called from rules ------------------------------------------------------------- */

/* do_step(f, ti, hi): the step f actually took (less than hi after a discard; f is then
 * left at its last successful time, its partial step accepted when it can get and set
 * its state, so that it can go on from there). */
double sart_do_step(SartWrapper *w, void *s, unsigned f, double ti, double hi);
/* Consecutive do_steps of n distinct inners that the compiler found independent (none of
 * their arguments, and neither MapIn nor MapOut, reads what another of them writes): the
 * same as do_step(inners[k], ti[k], hi[k]) for k = 0..n-1 in turn, taken[k] its result,
 * but the inners' own steps may run at once on the model's threads.  Everything observable
 * (the inners' calls on each instance, the messages, statuses, discards, the Storage) is as
 * in turn; whether it runs at once is measured per batch site `batch` (sart_batch.c). */
void sart_do_step_batch(SartWrapper *w, void *s, unsigned batch, unsigned n,
                        const unsigned *inners, const double *ti, const double *hi,
                        double *taken);
/* The fast step's failure path: do_step(f, t, H) from the point where something other
 * than SART_OK appeared, as sart_do_step would go on (reports, failure, a discard's partial
 * step, MapOut), after starting the step as the general path does; t and H are the route's
 * (SartFastRoute), the Storage the instance's own.  stage 0: nothing called yet (an input
 * not finite, or no direct route); 1: the set returned status; 2: the step returned status;
 * 3: the step was OK and the get returned status (0: an output not finite).  MapIn has run
 * and f's Real input flags are cleared.  Sets the route's `taken` to the step f took and
 * returns 0, so that the emitted code can `return sart_fast_rest(...)`.  Cold, as is
 * sart_fast_end: the compiler keeps them off the fast step's path. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((cold))
#endif
int sart_fast_rest(SartWrapper *w, unsigned f, int stage, int status);
/* The fast step's last call after it handed over: the step from the route's t by its H as
 * after Ctrl returned taken (Out when it accepted the whole step, the outcome, the new
 * time).  Its status. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((cold))
#endif
SartStatus sart_fast_end(SartWrapper *w, double taken);

/* ---- Ctrl as a table (wrappers of many inners) ------------------------------------------- */

/* Above a number of inners the emitter writes Ctrl, when it is only do_step(f, t, H) of
 * distinct inners and internal couplings that copy a Real, as rows of a table that these
 * calls run in a loop, instead of a statement per do_step and per coupling: C of a size that
 * does not grow with the inners for the compiler to work through, with the same calls in the
 * same order (compiler/emit/emit_c_fast.c, table_form).  Offsets are offsetof(Storage, ...). */

/* An internal coupling: the Real at src copied into an inner's input at dst, its assigned
 * flag (at assigned) set, as the statement `f.u := v` does. */
typedef struct SartCoupling {
	size_t dst, src, assigned;
} SartCoupling;

/* A Real copied within the Storage: one statement `v := f.y` of MapOut. */
typedef struct SartCopy {
	size_t dst, src;
} SartCopy;

/* One `var x := do_step(inner, t, H)` of Ctrl with the couplings written before it,
 * couplings[couple] up to the next row's couple; the row after the last gives where the
 * couplings after the last do_step begin.  map_out: the statements of MapOut that read this
 * inner, copies[map_out] up to the next row's (the fast step's, see sart_fast_step.h).
 * returned: Ctrl's return reads x (min of the returned rows' steps, in row order; when no
 * row is, it returns H). */
typedef struct SartStepRow {
	unsigned inner;
	unsigned couple;
	unsigned map_out;
	unsigned returned;
} SartStepRow;

typedef struct SartStepTable {
	unsigned n;                      /* do_steps: rows[0..n], the last an end */
	unsigned ncouplings;
	const SartStepRow *rows;
	const SartCoupling *couplings;
	const SartCopy *copies;          /* NULL: the fast step runs MapOut whole after each */
} SartStepTable;

/* Couplings [from, to) of the table, in order. */
void sart_couple_rows(void *s, const SartCoupling *c, unsigned from, unsigned to);
/* Copies [from, to), in order. */
void sart_copy_reals(void *s, const SartCopy *c, unsigned from, unsigned to);
/* Ctrl from row `from` on: each row's couplings, then sart_do_step of its inner; then the
 * couplings after the last row; returns what Ctrl returns.  The rows before `from` were
 * stepped already (by the fast step): the step of the one just before it is `first`, the
 * others' H.  Ctrl itself is sart_step_rows(w, s, table, 0, 0.0, t, H). */
double sart_step_rows(SartWrapper *w, void *s, const SartStepTable *tab, unsigned from,
                      double first, double t, double H);

/* save_state(f) pushes f's state on f's stack; rollback(f) restores the top and pops it.
 * The stacks are emptied when an external step ends: a saved state lives for one step. */
void sart_save_state(SartWrapper *w, unsigned f);
void sart_rollback(SartWrapper *w, unsigned f);
/* get_next_time_step(f): the largest step f would take now (a probe: save, step by
 * SART_MAX, read where it got, restore). */
double sart_get_next_time_step(SartWrapper *w, unsigned f);
/* elapsed(f) at time t, and last_execution_time(f): the time f last stepped to. */
double sart_elapsed(SartWrapper *w, unsigned f, double t);
double sart_last_execution_time(SartWrapper *w, unsigned f);
/* `e` inside MapIn/MapOut: time since the inner FMU being stepped last stepped (0
 * elsewhere). */
double sart_e(SartWrapper *w);
/* is_set(x) / discard(x) of an external input, by its Real/Integer/Boolean value
 * reference: whether the importer set it since the last step. */
int sart_is_set(SartWrapper *w, SartType type, SartVr vr);
void sart_discard(SartWrapper *w, SartType type, SartVr vr);

/* Whether a rule-level call failed in this call from the importer: the emitted code leaves its `for`
 * loops when it did (see "Failures" above). */
int sart_failed(const SartWrapper *w);

/* Whether every v[k] is finite, in one branch: 0 * x is 0 exactly for every finite x and
 * NaN for NaN and the infinities, so the sum is 0 exactly when all are finite.  Inline, so
 * that with n a constant it is a few multiplications and one comparison. */
static inline int sart_all_finite(const double *v, unsigned n)
{
	if (!n)
		return 1;
	double zero = 0.0 * v[0];
	for (unsigned k = 1; k < n; k++)
		zero += 0.0 * v[k];
	return zero == 0.0;
}

/* is_close(a, b, rtol, atol), the original tool's definition (the language's semantics). */
int sart_is_close(double a, double b, double rtol, double atol);

/* min and max of Integers (Reals use fmin/fmax from <math.h>). */
int sart_imin(int a, int b);
int sart_imax(int a, int b);

/* MAX: the probe step. */
#define SART_MAX 1.7976931348623157e308

/* A String assigned by a rule: src copied into dst (a String of the Storage, named `what`
 * in the message), or a failure when it does not fit SART_STRING_CAP.  dst and src may be
 * the same. */
void sart_set_string(SartWrapper *w, char *dst, const char *src, const char *what);
/* A String's start value (the compiler has checked that it fits). */
void sart_init_string(char *dst, const char *src);
/* Whether two Strings are equal (the language's == on Strings). */
int sart_string_eq(const char *a, const char *b);

/* A Binary's start value (the compiler has checked that it fits). */
void sart_init_binary(SartBinary *dst, const void *src, size_t size);

/* Integer helpers for floor/ceil/round (results that do not fit an int fail the step
 * with a message naming the rule's source location). */
int sart_to_int(SartWrapper *w, double x, const char *where);

#endif
