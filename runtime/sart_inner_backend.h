/* sart_inner_backend.h — the contract between the version-independent front of the
 * inner-FMU seam (sart_inner.c) and its per-version back ends (sart_inner_fmi2.c, and later
 * sart_inner_fmi3.c).  Private to those files: callers include sart_inner.h only.
 *
 * The front owns what every version shares: the SartInner itself, argument and life-cycle
 * checks, the library path and dlopen/dlclose, the resource directory, and message
 * reporting.  A back end owns the function table it resolves from the library, its
 * instance handle, and the translation of each call into its FMI version, including the
 * names its messages use ("fmi2DoStep").
 *
 * Adding a version: write its back end defining a `const SartInnerOps`, declare it below
 * and add it to the version table in sart_inner.c.  No caller of sart_inner.h changes.
 *
 * Model Exchange (SART_CAP_MODEL_EXCHANGE): the back end binds and instantiates for Model
 * Exchange and gives its Model Exchange calls in SartInnerOps.me; everything else, the
 * integration between events and the seam's step, states and their bytes, is the
 * version-free layer of sart_inner_me.c, which sart_inner_load puts in front of the back
 * end (in->ops then points at the layer's table for this instance, in->me).
 * FMI 3.0's (sart_inner_fmi3.c) also reads the config's value types (in->vr_types) to
 * choose each value's getter and setter. */
#ifndef SART_INNER_BACKEND_H
#define SART_INNER_BACKEND_H

#include "sart_inner.h"
#include "sart_platform.h"

#define SART_MESSAGE_MAX 1024 /* bytes of one message, prefix included; longer is cut */

/* For the out-of-line handling of a status other than OK: kept apart from the hot calls so
 * that their usual path stays a few instructions without a stack frame. */
#if defined(__GNUC__) || defined(__clang__)
#define SART_COLD __attribute__((noinline, cold))
#else
#define SART_COLD
#endif

typedef struct SartInnerOps SartInnerOps;
typedef struct SartInnerMeOps SartInnerMeOps;
typedef struct SartInnerMe SartInnerMe; /* sart_inner_me.c's, per Model Exchange instance */
typedef struct SartInnerSeOps SartInnerSeOps;
typedef struct SartInnerSe SartInnerSe; /* sart_inner_se.c's, per Scheduled Execution one */

struct SartInner {
	/* what each call of a step reads first, in one cache line (with ten thousand instances
	 * each line is a miss per step) */
	const SartInnerOps *ops;
	int callable;       /* instantiated && !fatal: the hot calls' one test */
	void *impl;         /* the back end's: function table and instance handle */
	void *lib;          /* dlopen handle */
	char *name;
	char *lib_path;     /* absolute */
	char *resource_dir; /* absolute path of <dir>/resources (need not exist) */
	unsigned caps;
	SartVrType *vr_types; /* the config's, sorted by value reference */
	size_t nvr_types;
	SartVrElement *elements; /* the config's, sorted by their own reference */
	size_t nelements;
	SartVr *intermediate_inputs; /* sart_inner_set_intermediate_inputs's, sorted */
	size_t nintermediate_inputs;
	int instantiated;
	int fatal;          /* a call returned SART_FATAL: no further calls into the FMU */
	int fatal_as_error; /* a contained inner (SartIsolation.contained): a fatal outcome is
	                     * remembered as fatal but returned and logged as SART_ERROR */
	const SartInnerDirect *direct; /* the back end's, or NULL: set at bind, closed through
	                               * ops->close_direct whenever callable becomes 0; always
	                               * NULL for a Model Exchange inner */
	SartInnerMe *me;    /* a Model Exchange inner's layer (sart_inner_me.c), else NULL */
	SartInnerSe *se;    /* a Scheduled Execution inner's layer (sart_inner_se.c), else NULL */
	SartLogger logger;
	void *logger_env;
	char message[SART_MESSAGE_MAX];
};

/* One FMI version.  Every function but bind may assume in->impl is bound, and every one
 * but bind, unbind and instantiate that the instance exists and no call was fatal; each
 * reports its own non-OK outcomes through sart_inner_report. */
struct SartInnerOps {
	const char *fmi_version; /* for messages: "2.0" */
	const char *platform;    /* the binaries/ subdirectory */
	/* Resolves the library's functions (in->lib, named in->lib_path) into in->impl,
	 * requiring those in->caps needs.  On failure in->impl stays NULL. */
	SartStatus (*bind)(SartInner *in);
	void (*unbind)(SartInner *in);
	SartStatus (*instantiate)(SartInner *in, const char *guid, int logging_on);
	void (*free_instance)(SartInner *in);
	SartStatus (*enter_init)(SartInner *in, const SartExperiment *ex);
	SartStatus (*exit_init)(SartInner *in);
	SartStatus (*get_real)(SartInner *in, const SartVr vr[], size_t n, double v[]);
	SartStatus (*get_integer)(SartInner *in, const SartVr vr[], size_t n, int v[]);
	SartStatus (*get_boolean)(SartInner *in, const SartVr vr[], size_t n, int v[]);
	SartStatus (*get_string)(SartInner *in, const SartVr vr[], size_t n, const char *v[]);
	SartStatus (*set_real)(SartInner *in, const SartVr vr[], size_t n, const double v[]);
	SartStatus (*set_integer)(SartInner *in, const SartVr vr[], size_t n, const int v[]);
	SartStatus (*set_boolean)(SartInner *in, const SartVr vr[], size_t n, const int v[]);
	SartStatus (*set_string)(SartInner *in, const SartVr vr[], size_t n,
	                         const char *const v[]);
	SartStatus (*set_real_input_derivatives)(SartInner *in, const SartVr vr[], size_t n,
	                                         const int order[], const double value[]);
	SartStatus (*get_real_output_derivatives)(SartInner *in, const SartVr vr[], size_t n,
	                                          const int order[], double value[]);
	/* Sets *reached as sart_inner_do_step documents; never NULL here. */
	SartStatus (*do_step)(SartInner *in, double t, double h, int no_set_state_prior,
	                      double *reached);
	SartStatus (*get_state)(SartInner *in, void **state);
	SartStatus (*set_state)(SartInner *in, void *state);
	SartStatus (*free_state)(SartInner *in, void **state);
	SartStatus (*serialized_size)(SartInner *in, void *state, size_t *size);
	SartStatus (*serialize)(SartInner *in, void *state, unsigned char *buf, size_t size);
	SartStatus (*deserialize)(SartInner *in, const unsigned char *buf, size_t size,
	                          void **state);
	SartStatus (*terminate)(SartInner *in);
	SartStatus (*reset)(SartInner *in);
	/* Marks the direct route as no longer callable (NULL when there is no route). */
	void (*close_direct)(SartInner *in);
	/* sart_inner_direct_status for this version (NULL when it fills no direct route). */
	SartStatus (*direct_status)(SartInner *in, SartDirectCall call, int status, double t,
	                            double h, double *reached);
	/* The version's name of the Real getter, for messages about what it gave ("fmi2GetReal");
	 * NULL reads as a version-free phrase. */
	const char *get_real_name;
	/* Binary values (FMI 3.0); NULL for a version that has none */
	SartStatus (*get_binary)(SartInner *in, const SartVr vr[], size_t n,
	                         const unsigned char *v[], size_t sizes[]);
	SartStatus (*set_binary)(SartInner *in, const SartVr vr[], size_t n,
	                         const unsigned char *const v[], const size_t sizes[]);
	/* The version's Model Exchange calls; NULL for a back end that cannot drive one (the
	 * out-of-process back end: its host's seam does). */
	const SartInnerMeOps *me;
	/* The version's Scheduled Execution calls; NULL for a back end without them. */
	const SartInnerSeOps *se;
	/* sart_inner_next_clock_time of a back end that keeps no schedule itself but knows
	 * one kept elsewhere (the out-of-process back end: its host's seam keeps it); NULL
	 * otherwise. */
	double (*next_clock_time)(const SartInner *in);
};

/* A back end's Scheduled Execution calls (FMI 3.0), for the layer of sart_inner_se.c;
 * each reports a status other than OK with the activation time t in its message. */
struct SartInnerSeOps {
	SartStatus (*activate)(SartInner *in, SartVr clock, double t);
	/* output clocks: whether each ticked (FMI resets them once read) */
	SartStatus (*get_clock)(SartInner *in, const SartVr vr[], size_t n, int ticked[],
	                        double t);
	/* countdown and periodic clocks: qualifier[i] 0 not yet known, 1 unchanged, 2 changed
	 * (FMI's fmi3IntervalQualifier), interval[i] set when changed */
	SartStatus (*get_interval)(SartInner *in, const SartVr vr[], size_t n, double interval[],
	                           int qualifier[], double t);
	/* Whether the FMU called its clock update since the last call (and forgets it). */
	int (*take_clock_update)(SartInner *in);
	/* Co-Simulation with clocks (SART_CAP_CLOCKS): from Step Mode at t, Event Mode with
	 * the input clocks vr[0..n) ticking (fmi3SetClock), the discrete states settled, the
	 * hook below run, Step Mode again. */
	SartStatus (*tick_in_event_mode)(SartInner *in, const SartVr vr[], size_t n, double t);
	/* The layer's hook, run in every Event Mode once the discrete states settled, before
	 * Step Mode (t NaN at the end of initialization): where output clocks and countdown
	 * intervals are read. */
	void (*set_event_hook)(SartInner *in, SartStatus (*hook)(SartInner *in, double t));
	/* The next time event the FMU asked for when its discrete states last settled
	 * (+infinity: none), so that a step ends there. */
	double (*next_event_time)(SartInner *in);
	/* fmi3SetClock of the input clocks vr[0..n), ticking, in Event Mode at t. */
	SartStatus (*set_clocks)(SartInner *in, const SartVr vr[], size_t n, double t);
};

/* What an event iteration's call gives (fmi2EventInfo; fmi3UpdateDiscreteStates's out
 * arguments). */
typedef struct SartMeEventInfo {
	int new_discrete_states_needed;
	int terminate_simulation;
	int nominals_changed;
	int values_changed;
	int next_event_time_defined;
	double next_event_time;
} SartMeEventInfo;

/* A back end's Model Exchange calls, one FMI function each, for the layer of
 * sart_inner_me.c.  Each reports a status other than OK as the back end's calls do, with
 * the FMU's time t in the message ("fmi2GetDerivatives at t = 0.5 returned fmi2Error");
 * t is for the message only (set_time sets it). */
struct SartInnerMeOps {
	/* Continuous states and event indicators: FMI 3.0 asks the FMU (after
	 * initialization); NULL for FMI 2.0, whose sizes come from SartMeConfig. */
	SartStatus (*get_sizes)(SartInner *in, size_t *nx, size_t *nz, double t);
	SartStatus (*set_time)(SartInner *in, double t);
	SartStatus (*set_states)(SartInner *in, const double x[], size_t nx, double t);
	SartStatus (*get_states)(SartInner *in, double x[], size_t nx, double t);
	SartStatus (*get_derivatives)(SartInner *in, double dx[], size_t nx, double t);
	SartStatus (*get_event_indicators)(SartInner *in, double z[], size_t nz, double t);
	SartStatus (*get_nominals)(SartInner *in, double nominal[], size_t nx, double t);
	SartStatus (*completed_integrator_step)(SartInner *in, int no_set_state_prior,
	                                        int *enter_event_mode, int *terminate, double t);
	SartStatus (*enter_event_mode)(SartInner *in, double t);
	SartStatus (*update_discrete_states)(SartInner *in, SartMeEventInfo *info, double t);
	SartStatus (*enter_continuous_time_mode)(SartInner *in, double t);
	/* Whether the library exports the directional derivatives (optional in FMI). */
	int (*has_directional_derivative)(SartInner *in);
	/* d(unknown)/d(known) times seed: FMI's directional derivative at the current point. */
	SartStatus (*directional_derivative)(SartInner *in, const SartVr unknown[], size_t nu,
	                                     const SartVr known[], size_t nk, const double seed[],
	                                     double sensitivity[], double t);
};

extern const SartInnerOps sart_inner_fmi2_ops;
extern const SartInnerOps sart_inner_fmi3_ops;

/* sart_inner_me.c: puts the Model Exchange layer in front of the bound back end of an
 * inner loaded with SART_CAP_MODEL_EXCHANGE (cfg->me copied).  On failure (a back end
 * without Model Exchange, out of memory) the message is reported and in stays as it was. */
SartStatus sart_inner_me_attach(SartInner *in, const SartMeConfig *cfg);

/* sart_inner_me.c, for the clocks layer over a Model Exchange inner: the hook its event
 * iterations run once the discrete states settled, before Continuous-Time Mode (NULL:
 * none); and an Event Mode at t, where the FMU stands, in which tick(in, env) runs (it
 * sets clocks) before the discrete states settle and the solver restarts. */
void sart_inner_me_set_event_hook(SartInner *in, SartStatus (*hook)(SartInner *in, double t));
SartStatus sart_inner_me_event(SartInner *in, double t,
                               SartStatus (*tick)(SartInner *in, void *env), void *env);

/* sart_inner_se.c: puts the Scheduled Execution layer in front of the bound back end of
 * an inner loaded with SART_CAP_SCHEDULED_EXECUTION (cfg->se copied), as
 * sart_inner_me_attach does for Model Exchange. */
SartStatus sart_inner_se_attach(SartInner *in, const SartSeConfig *cfg);

/* The FMI 3.0 type of value reference vr (dflt when the config did not list it). */
SartValueType sart_inner_vr_type(const SartInner *in, SartVr vr, SartValueType dflt,
                                 const char **name);

/* Orders two SartVr for qsort and bsearch (sorted value-reference lists of the seam and
 * its layers). */
int sart_vr_cmp(const void *a, const void *b);

/* The array element that vr stands for (SartVrElement), or NULL for a variable's own
 * reference. */
const SartVrElement *sart_inner_element(const SartInner *in, SartVr vr);

/* Records "[name] <fmt...>" as the instance's message and sends it to the logger with the
 * category for st; returns st, so a back end can `return sart_inner_report(...)`.  A
 * SART_FATAL reported here is remembered (no further call reaches the FMU): every outcome
 * but SART_OK passes through this function, which lets the hot calls (values, steps) skip
 * any bookkeeping on their SART_OK path. */
SartStatus sart_inner_report(SartInner *in, SartStatus st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(SART_PRINTF_ARCHETYPE, 3, 4)))
#endif
	;

/* Hands an inner FMU's already formatted message to the logger, prefixed "[name] ". */
void sart_inner_forward(SartInner *in, SartStatus st, const char *category, const char *text);

#endif
