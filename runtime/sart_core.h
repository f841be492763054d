/* sart_core.h — the version-free core of a wrapper FMU, as its FMI skins see it.
 *
 * The emitted C describes one adaptation (sart_wrapper.h); the core turns it into a running
 * instance: the Storage, the inner FMUs' life cycle, Init, the Mealy output function G, the
 * step with its rejection and snapshots, input derivatives, FMU states and their serialized
 * form, and the instance's state machine.  It names no FMI type.  A skin (sart_fmi2.c for
 * FMI 2.0, sart_fmi3.c for FMI 3.0) exports one FMI version's functions and translates
 * each into the calls below: its types, its callbacks, its status values (SartStatus has
 * fmi2Status's and fmi3Status's numbers), and which call is allowed in which phase.
 *
 * Phases.  The core moves an instance between the phases below (a rejected step to
 * SART_PHASE_STEP_FAILED, a failure to SART_PHASE_ERROR or SART_PHASE_FATAL, ...); a skin
 * says, per call, in which phases it may be made (SartCall.allowed) and what each phase is
 * called in its standard (SartSkin.phase_name), so that "fmi2DoStep is not allowed in state
 * terminated" is the skin's text with the core's check.
 *
 * Messages.  Every message the core writes goes to the importer through the skin's
 * SartHost.log as plain text; the core names the call from SartCall.name.
 *
 * The FMI 3.0 skin (sart_fmi3.c) against this: fmi3InstantiateCoSimulation is sart_core_new
 * then sart_core_load_inners with the resource path as given; the experiment goes to
 * sart_core_setup_experiment before sart_core_enter_init; fmi3DoStep is
 * sart_core_do_step_early (a rejection becomes an early return when the importer allows
 * one); fmi3GetFloat64 / fmi3SetFloat64 are SartModel.get_real / set_real, the
 * other numeric types convert to SART_INTEGER or SART_BOOLEAN at the skin, and event mode
 * is a phase to add to SartPhase (the core has no events to handle yet). */
#ifndef SART_CORE_H
#define SART_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "sart_platform.h"
#include "sart_wrapper.h"

/* The instance's phases, as bits so that a call can list where it is allowed. */
typedef enum SartPhase {
	SART_PHASE_INSTANTIATED = 1 << 0,
	SART_PHASE_INIT = 1 << 1,        /* initialization mode */
	SART_PHASE_STEP = 1 << 2,        /* between steps (FMI 2.0's stepComplete) */
	SART_PHASE_STEP_FAILED = 1 << 3, /* a rejected step the inners cannot undo */
	SART_PHASE_TERMINATED = 1 << 4,
	SART_PHASE_ERROR = 1 << 5,
	SART_PHASE_FATAL = 1 << 6
} SartPhase;

/* Every phase but fatal. */
#define SART_PHASE_ALIVE (SART_PHASE_INSTANTIATED | SART_PHASE_INIT | SART_PHASE_STEP | \
                          SART_PHASE_STEP_FAILED | SART_PHASE_TERMINATED | SART_PHASE_ERROR)

/* One exported call of a skin: its name, for messages, and the phases (SartPhase bits) in
 * which it may be made.  Skins keep them as static constants. */
typedef struct SartCall {
	const char *name;
	unsigned allowed;
} SartCall;

/* What does not change between the instances of one skin. */
typedef struct SartSkin {
	const char *(*phase_name)(SartPhase p); /* the standard's name of a phase */
	/* The importer's every-step calls, for the checks and messages of sart_core_get_real,
	 * sart_core_set_real and sart_core_do_step: kept here so that those carry only their
	 * own arguments and the skin's function is one jump. */
	const SartCall *get_real, *set_real, *do_step;
	/* The skin's model description gives the independent variable (time) the value
	 * reference right after the last Real: a Real get of it reads the instance's time. */
	int time_after_reals;
} SartSkin;

/* Where an instance's messages go: the skin's log, which hands the text to the importer's
 * callback (kept in logger, cast back by the skin) with the importer's environment. */
typedef struct SartHost {
	const SartSkin *skin;
	void (*log)(const struct SartHost *host, const char *instance, SartStatus st,
	            const char *category, const char *message);
	void (*logger)(void); /* the importer's callback, any function type */
	void *env;
} SartHost;

/* ---- creation and the life cycle ---------------------------------------------------------- */

/* A new instance named `instance`, in SART_PHASE_INSTANTIATED, checked against the model's
 * guid; NULL (with the reason logged through host) when the GUID does not match or memory
 * runs out.  No inner FMU is loaded yet: sart_core_load_inners does that. */
SartWrapper *sart_core_new(const char *instance, const char *guid, const SartHost *host,
                           int logging_on, const SartCall *call);
/* Loads and instantiates every inner FMU from <resource_dir>/<inner name>/.  On failure the
 * reason was logged and the caller frees the instance. */
SartStatus sart_core_load_inners(SartWrapper *w, const char *resource_dir,
                                 const SartCall *call);
/* Frees the instance and its inner FMUs; NULL or a foreign pointer is a no-op. */
void sart_core_free(void *instance);

/* The instance behind a skin's handle when call may be made in its phase; otherwise NULL,
 * having logged "X is not allowed in state Y" when the handle is an instance. */
SartWrapper *sart_core_enter(void *instance, const SartCall *call);
SartPhase sart_core_phase(const SartWrapper *w);

/* Logging: on, and the categories enabled (all when ncats is 0); an unknown category is an
 * error naming it. */
SartStatus sart_core_set_logging(SartWrapper *w, int on, size_t ncats,
                                 const char *const cats[], const SartCall *call);
/* A message of status st (Warning and worse always reach the importer). */
void sart_core_log(SartWrapper *w, SartStatus st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(SART_PRINTF_ARCHETYPE, 3, 4)))
#endif
	;
/* Whether calls are logged (logFmiCalls), and one call's line when they are. */
int sart_core_calls_logged(const SartWrapper *w);
void sart_core_log_call(SartWrapper *w, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(SART_PRINTF_ARCHETYPE, 2, 3)))
#endif
	;

SartStatus sart_core_setup_experiment(SartWrapper *w, const SartExperiment *ex,
                                      const SartCall *call);
SartStatus sart_core_enter_init(SartWrapper *w, const SartCall *call);
/* Runs Init (sart_wrapper.h) and enters SART_PHASE_STEP. */
SartStatus sart_core_exit_init(SartWrapper *w, const SartCall *call);
SartStatus sart_core_terminate(SartWrapper *w, const SartCall *call);
SartStatus sart_core_reset(SartWrapper *w, const SartCall *call);

/* ---- values ------------------------------------------------------------------------------ */

/* The external variables by value reference, through the model's tables: Reals as double,
 * Integers and Booleans as int.  A get runs G (or, in initialization mode, Init on the
 * scratch copy) when a set made it due.  These take the instance handle unchecked: they
 * check it, and the phase, themselves.  The Reals, the importer's every-step calls, a skin
 * makes through SartModel.get_real and set_real (sart_wrapper.h): the adaptation's emitted
 * ones, which go on to sart_core_get_real and sart_core_set_real (declared there, named in
 * messages by SartSkin.get_real and set_real) with anything they do not handle. */
SartStatus sart_core_get(void *instance, SartType t, const SartVr vr[], size_t n, int v[],
                         const SartCall *call);
SartStatus sart_core_set(void *instance, SartType t, const SartVr vr[], size_t n,
                         const int v[], const SartCall *call);
/* Strings.  A get gives pointers into the wrapper's own copies, valid until the next call
 * on the instance; a set copies each value (a NULL one, or one longer than
 * SART_STRING_CAP - 1 bytes, is an error naming the variable, and the values before it stay
 * set). */
SartStatus sart_core_get_strings(void *instance, const SartVr vr[], size_t n, const char *v[],
                                 const SartCall *call);
SartStatus sart_core_set_strings(void *instance, const SartVr vr[], size_t n,
                                 const char *const v[], const SartCall *call);
/* Binaries (sart_binary.c), as Strings: a get gives sizes and pointers into the wrapper's
 * own copies, valid until the next call on the instance; a set copies each value (one
 * longer than its variable's maxSize, SartModel.binary_max, is an error naming the variable
 * and the size). */
SartStatus sart_core_get_binaries(void *instance, const SartVr vr[], size_t n, size_t sizes[],
                                  const unsigned char *v[], const SartCall *call);
SartStatus sart_core_set_binaries(void *instance, const SartVr vr[], size_t n,
                                  const size_t sizes[], const unsigned char *const v[],
                                  const SartCall *call);
/* First derivatives of Real inputs for the next step (order[i] must be 1). */
SartStatus sart_core_set_input_derivatives(SartWrapper *w, const SartVr vr[], size_t n,
                                           const int order[], const double value[],
                                           const SartCall *call);

/* ---- stepping ---------------------------------------------------------------------------- */

/* One external step from t by H: In; Ctrl; Out (no_set_prior is only logged: the core can
 * always return to a state it saved).  t must be the instance's time within
 * 1e-9 relative (the importer's t is then the time); SART_DISCARD is a rejection (back at t
 * when a snapshot was taken, else in SART_PHASE_STEP_FAILED) with
 * sart_core_last_successful_time saying where it got to.  Checks the handle itself.  A skin
 * steps through SartModel.do_step (sart_wrapper.h): the emitted step, which takes the fast
 * step itself when it may and otherwise goes on to sart_core_do_step (declared there). */
double sart_core_last_successful_time(const SartWrapper *w);
/* Whether a rejected step may end early: the importer then goes on from where the step
 * stopped instead of retrying it (off until a skin turns it on). */
void sart_core_set_stop_early(SartWrapper *w, int on);
/* The model's step (SartModel.do_step) for an importer that accepts a step ending before
 * t + H.  With the
 * instance allowed to stop early (sart_core_set_stop_early) and a snapshot to return to, a
 * rejection is taken again from t by the step the rules took, with the same inputs; when
 * that is accepted, *early is true and the status that step's.  Otherwise *early is false
 * and a rejection stays SART_DISCARD (at t, when the retry was cut again too).  *last is
 * where the instance stands (the last successful time; t + H when the handle is not an
 * instance).  *events (event handling needed) and *stop (the instance asks the importer to
 * stop) are false: the core has no events.  The arguments are in the order an importer's
 * step call gives them, so that a skin's step is one jump; the pointers must be valid.
 * Checks the handle itself. */
SartStatus sart_core_do_step_early(void *instance, double t, double H, bool no_set_prior,
                                   bool *events, bool *stop, bool *early, double *last);

/* ---- FMU states -------------------------------------------------------------------------- */

/* A state is the core's own data and every inner FMU's state; *state NULL makes a new one,
 * otherwise it is overwritten.  States belong to the instance that made them. */
SartStatus sart_core_get_state(SartWrapper *w, void **state, const SartCall *call);
SartStatus sart_core_set_state(SartWrapper *w, void *state, const SartCall *call);
SartStatus sart_core_free_state(SartWrapper *w, void **state, const SartCall *call);
/* The serialized form: versioned, checksummed, checked field by field on load. */
SartStatus sart_core_serialized_size(SartWrapper *w, void *state, size_t *size,
                                     const SartCall *call);
SartStatus sart_core_serialize(SartWrapper *w, void *state, unsigned char *buf, size_t size,
                               const SartCall *call);
SartStatus sart_core_deserialize(SartWrapper *w, const unsigned char *buf, size_t size,
                                 void **state, const SartCall *call);

#endif
