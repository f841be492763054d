/* me_core.h — the version-free core of the suite's Model Exchange test FMUs (tests/fmus_me/).
 *
 * A model (tests/fmus_me/<name>/model.c) states its equations — derivatives, event
 * indicators, event update — as callbacks over an MeInstance, and one const MeModel
 * `me_model` names them with its variable tables.  The core holds the FMI state machine
 * (every function checks the mode it is called in and refuses, with a logged message, when
 * the standard does not allow it there), variable access by value reference, FMU states and
 * their serialization, and the fixed-step Co-Simulation some models offer beside Model
 * Exchange.  Two thin skins, me_fmi2.c and me_fmi3.c, export every function of their FMI
 * version's headers over it: the same model source builds an FMI 2.0 and an FMI 3.0 FMU.
 *
 * Value references: 0 is time; Real (Float64) variables are 0 .. ME_MAX_REALS-1 and index
 * MeData.r directly; Integer (Int32) variables are ME_INT_BASE + k and index MeData.i[k].
 * One numbering for both versions (FMI 3.0 wants them unique across types). */
#ifndef ME_CORE_H
#define ME_CORE_H

#include <stddef.h>

#define ME_MAX_REALS 24
#define ME_MAX_INTS 8
#define ME_MAX_STATES 4
#define ME_MAX_INDICATORS 4
#define ME_INT_BASE 100
#define ME_AUX 8
#define ME_MAX_CLOCKS 4

/* Statuses, numbered as both versions number theirs (OK, Warning, Discard, Error, Fatal). */
typedef enum MeStatus {
	ME_OK = 0,
	ME_WARNING = 1,
	ME_DISCARD = 2,
	ME_ERROR = 3,
	ME_FATAL = 4
} MeStatus;

/* The modes of both versions' state machines, as bits so a function lists where it may be
 * called.  ME_STEP is Co-Simulation's step mode (FMI 2.0's stepComplete). */
typedef enum MeMode {
	ME_INSTANTIATED = 1 << 0,
	ME_INIT = 1 << 1,
	ME_EVENT = 1 << 2,
	ME_CONTINUOUS = 1 << 3,
	ME_STEP = 1 << 4,
	ME_TERMINATED = 1 << 5
} MeMode;

#define ME_ANY_MODE 0x3f

/* What a variable is, which decides when it may be set. */
typedef enum MeKind {
	ME_TIME,      /* the independent variable: never set */
	ME_PARAMETER, /* fixed parameter: set before initialization ends */
	ME_TUNABLE,   /* tunable parameter: also in Event Mode (and between CS steps) */
	ME_INPUT,     /* continuous input: whenever the model runs */
	ME_DISCRETE_INPUT, /* discrete Real input: as a tunable parameter, not in Continuous-Time
	                      Mode (FMI 2.0 and 3.0 allow it there only for continuous inputs) */
	ME_STATE,     /* continuous state with a start value: set before initialization ends */
	ME_CALCULATED /* derivative, output or local the model computes: never set */
} MeKind;

typedef struct MeVar {
	const char *name; /* as in the model descriptions, for messages */
	unsigned vr;
	MeKind kind;
	double start;
} MeVar;

/* An FMI 3.0 array of Reals: size consecutive entries of `reals` from vr (named "s[1]",
 * "s[2]", ... there), which FMI 2.0 describes as that many scalars and FMI 3.0 as one
 * variable with value reference vr whose values are passed serialized. */
typedef struct MeArray {
	unsigned vr;
	unsigned size;
} MeArray;

/* An FMI 3.0 Clock (FMI 2.0 has none: a model with clocks is built as FMI 3.0 only).  Input
 * clocks are set by the importer in Event Mode (fmi3SetClock) and seen active by the
 * model's event_update in the first event iteration after; output clocks are raised by the
 * model (me_clock_tick) and reported once by fmi3GetClock.  Leaving Event Mode deactivates
 * every clock. */
typedef struct MeClock {
	const char *name;
	unsigned vr;      /* unique among all variables' */
	int output;       /* 1: an output clock (triggered); 0: an input clock */
	double interval;  /* input: > 0 for a constant periodic clock (with shift), 0 triggered */
	double shift;
} MeClock;

/* Answers of an event update, filled by the model's event_update. */
typedef struct MeEventInfo {
	int discrete_states_need_update;
	int terminate_simulation;
	int values_changed;
	int nominals_changed;
	int next_event_time_defined;
	double next_event_time;
} MeEventInfo;

/* Everything that is the FMU's state: an FMU state is a copy of it, a serialized state its
 * bytes.  Models keep private memory (counters, the index of the next time event) in aux
 * and iaux, so that a restored state replays exactly. */
typedef struct MeData {
	double time;
	double r[ME_MAX_REALS];
	int i[ME_MAX_INTS];
	double aux[ME_AUX];
	long iaux[ME_AUX];
	int clock_active[ME_MAX_CLOCKS]; /* by the model's clock table */
	int mode;         /* an MeMode */
	int is_cs;        /* instantiated for Co-Simulation */
	MeEventInfo last; /* the last event update's answers: a restored state has them too */
} MeData;

typedef struct MeInstance MeInstance;

typedef struct MeModel {
	const char *identifier; /* modelIdentifier, the library's name */
	const char *token;      /* FMI 2.0 guid and FMI 3.0 instantiationToken alike */
	const MeVar *reals;
	size_t n_reals;
	const MeVar *ints;
	size_t n_ints;
	const MeArray *arrays; /* NULL when every Real is a scalar */
	size_t n_arrays;
	size_t n_states;
	const unsigned *state_vr; /* n_states value references of the states */
	const unsigned *der_vr;   /* and of their derivatives */
	size_t n_indicators;
	/* At the end of initialization (time is the start time): derived values, the first
	 * time event.  NULL: nothing to do. */
	void (*initialize)(MeInstance *m, MeEventInfo *e);
	/* From time, states and inputs: the derivatives (into r[der_vr[k]]) and every
	 * calculated output.  Nonzero: the model failed (an error is returned). */
	int (*evaluate)(MeInstance *m);
	/* z[n_indicators] at the current time and states; NULL when n_indicators is 0. */
	void (*indicators)(MeInstance *m, double z[]);
	/* One event iteration (Event Mode, NewDiscreteStates / UpdateDiscreteStates); e comes
	 * zeroed.  NULL: no discrete part, nothing changes. */
	void (*event_update)(MeInstance *m, MeEventInfo *e);
	/* n_states nominals; NULL: all 1. */
	void (*nominals)(const MeInstance *m, double nom[]);
	/* d(of)/d(wrt) at the current point for a derivative or output `of` and a state or
	 * input `wrt`; NULL: no directional derivatives.  Nonzero: not a known pair. */
	int (*partial)(const MeInstance *m, unsigned of, unsigned wrt, double *d);
	/* > 0: the model also offers Co-Simulation, integrated by classic RK4 with this step
	 * (the last one shortened to meet the communication point). */
	double cs_step;
	/* FMI 3.0 clocks (at most ME_MAX_CLOCKS); none when NULL. */
	const MeClock *clocks;
	size_t n_clocks;
} MeModel;

/* The model of the library: each model.c defines it. */
extern const MeModel me_model;

/* How a skin reports: a message on the instance, with its status (category derived). */
typedef void (*MeLogFn)(void *skin_env, MeStatus status, const char *category, const char *msg);

struct MeInstance {
	MeData d;
	const MeModel *model;
	char *name;
	int logging_on;
	MeLogFn log;
	void *skin_env; /* the skin's own record (callbacks, environment) */
};

/* r and i by value reference, for model.c: ME_R(m, VR_H), ME_I(m, VR_EVENTS). */
#define ME_R(m, vr) ((m)->d.r[(vr)])
#define ME_I(m, vr) ((m)->d.i[(vr) - ME_INT_BASE])

/* ---- for the skins --------------------------------------------------------------------- */

MeInstance *me_new(const char *name, int is_cs, MeLogFn log, void *skin_env);
void me_free(MeInstance *m);
void me_logf(MeInstance *m, MeStatus status, const char *fmt, ...);
/* 1 when m is in one of the allowed modes (MeMode bits), else logs "<fn>: not allowed in
 * <mode>" and 0.  The skins call it first, with their version's masks: the functions below
 * assume the mode was checked.  A refused call leaves the mode as it was (as the Reference
 * FMUs do), so a test can go on after it. */
int me_allowed(MeInstance *m, const char *fn, int allowed);
void me_reset(MeInstance *m);
/* 0 when the instance is of the interface the function belongs to (want_cs), else logs
 * "<fn>: not a function of <interface>" and 1. */
int me_wrong_interface(MeInstance *m, const char *fn, int want_cs);
/* A Get or Set of a type the models have no variable of: OK for no value references, else
 * an error naming the first. */
MeStatus me_no_such_type(MeInstance *m, const char *fn, size_t nvr, const unsigned vr[]);

MeStatus me_enter_init(MeInstance *m, const char *fn, double start_time);
MeStatus me_exit_init(MeInstance *m, const char *fn);
MeStatus me_enter_event_mode(MeInstance *m, const char *fn);
MeStatus me_update_discrete(MeInstance *m, const char *fn, MeEventInfo *out);
MeStatus me_enter_continuous(MeInstance *m, const char *fn);
MeStatus me_completed_step(MeInstance *m, const char *fn, int *enter_event, int *terminate);
MeStatus me_set_time(MeInstance *m, const char *fn, double t);
MeStatus me_set_states(MeInstance *m, const char *fn, const double x[], size_t n);
MeStatus me_get_states(MeInstance *m, const char *fn, double x[], size_t n);
MeStatus me_get_derivatives(MeInstance *m, const char *fn, double dx[], size_t n);
MeStatus me_get_indicators(MeInstance *m, const char *fn, double z[], size_t n);
MeStatus me_get_nominals(MeInstance *m, const char *fn, double nom[], size_t n);
MeStatus me_terminate(MeInstance *m, const char *fn);

/* Values by value reference; a set is checked per variable against its kind and the mode. */
MeStatus me_get_real(MeInstance *m, const char *fn, const unsigned vr[], size_t n, double v[]);
MeStatus me_set_real(MeInstance *m, const char *fn, const unsigned vr[], size_t n,
                     const double v[]);
MeStatus me_get_int(MeInstance *m, const char *fn, const unsigned vr[], size_t n, int v[]);
MeStatus me_set_int(MeInstance *m, const char *fn, const unsigned vr[], size_t n, const int v[]);
MeStatus me_directional(MeInstance *m, const char *fn, const unsigned of[], size_t n_of,
                        const unsigned wrt[], size_t n_wrt, const double seed[], double out[]);

/* Co-Simulation: one communication step [t, t + h] by fixed-step RK4, events at its end. */
MeStatus me_do_step(MeInstance *m, const char *fn, double t, double h, int *event_needed,
                    int *terminate);

/* FMU states: a heap copy of MeData; serialized, a fixed header then the bytes. */
MeStatus me_get_state(MeInstance *m, const char *fn, void **state);
MeStatus me_set_state(MeInstance *m, const char *fn, const void *state);
MeStatus me_free_state(MeInstance *m, const char *fn, void **state);
size_t me_serialized_size(void);
MeStatus me_serialize(MeInstance *m, const char *fn, const void *state, unsigned char *buf,
                      size_t size);
MeStatus me_deserialize(MeInstance *m, const char *fn, const unsigned char *buf, size_t size,
                        void **state);

const char *me_mode_name(int mode);

/* Clocks (FMI 3.0 skin only): the mode is checked by the skin (Event Mode for the clocks'
 * values, Initialization and Event Mode for the timing).  A reference that is no clock, an
 * output clock set or an interval asked of a triggered clock is an error naming it. */
MeStatus me_get_clock(MeInstance *m, const char *fn, const unsigned vr[], size_t n, int v[]);
MeStatus me_set_clock(MeInstance *m, const char *fn, const unsigned vr[], size_t n,
                      const int v[]);
/* interval: the intervals (else the shifts) of periodic input clocks. */
MeStatus me_clock_timing(MeInstance *m, const char *fn, const unsigned vr[], size_t n,
                         double out[], int interval);

/* For model.c: is the clock active (in event_update), and raising an output clock. */
int me_clock_active(const MeInstance *m, unsigned vr);
void me_clock_tick(MeInstance *m, unsigned vr);

#endif
