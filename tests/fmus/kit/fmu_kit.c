/* fmu_kit.c — the FMI 2.0 Co-Simulation layer shared by the test FMUs (see fmu_kit.h).
 *
 * Every exported fmi2* function checks its instance and the state machine first, then the
 * value references, then does its work; a misuse by the master is answered with fmi2Error
 * and a logged message naming the call, and leaves the instance as it was.  Only a failing
 * model callback moves the instance to the error (or fatal) state. */
#include "fmu_kit.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTANCE_MAGIC 0x4b49544bu /* guards against stale or foreign pointers */

/* The FMI 2.0 Co-Simulation states, as bits so a call can list where it is allowed. */
typedef enum Phase {
	PH_INSTANTIATED = 1 << 0,
	PH_INIT = 1 << 1,
	PH_STEP_COMPLETE = 1 << 2,
	PH_STEP_FAILED = 1 << 3,
	PH_TERMINATED = 1 << 4,
	PH_ERROR = 1 << 5,
	PH_FATAL = 1 << 6,
} Phase;

#define PH_ALIVE (PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE | PH_STEP_FAILED | \
                  PH_TERMINATED | PH_ERROR)
#define PH_GET (PH_INIT | PH_STEP_COMPLETE | PH_STEP_FAILED | PH_TERMINATED | PH_ERROR)
#define PH_SET (PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE)
#define PH_STATUS (PH_STEP_COMPLETE | PH_STEP_FAILED | PH_TERMINATED)

/* Log categories (also declared in each modelDescription.xml). */
enum { CAT_WARNING = 1, CAT_DISCARD = 2, CAT_ERROR = 4, CAT_ALL = 8 };
static const struct {
	const char *name;
	unsigned bit;
} categories[] = {
	{"logStatusWarning", CAT_WARNING},
	{"logStatusDiscard", CAT_DISCARD},
	{"logStatusError", CAT_ERROR},
	{"logAll", CAT_ALL},
};

/* The kit's share of an FMU state: time keeping and flags.  Part of every snapshot. */
typedef struct KitClock {
	double time;
	double last_successful;
	double step_start;
	int dirty;               /* an input or parameter changed since calculate last ran */
	int terminate_requested;
} KitClock;

typedef struct Live {
	struct Live *prev, *next;
} Live;

struct KitInstance {
	Live live;               /* first: on live_instances until freed */
	unsigned magic;
	char *name;
	fmi2CallbackLogger logger;
	fmi2ComponentEnvironment env;
	int logging;
	unsigned log_mask;
	Phase phase;
	KitClock clk;
	int in_step;             /* kit_inputs_at has a step to interpolate in */
	double *u0;              /* per variable: Real inputs at the start of the step */
	double *du;              /* per variable: their first derivatives, 0 when not given */
	unsigned char *state;    /* the model's struct */
	uint64_t hash;           /* model_hash(), computed once: states are got and checked at
	                            every rollback, and hashing the GUID each time made state
	                            handling most of a trivial model's cost */
};

static uint64_t model_hash(void);

/* ---- what is left at unload --------------------------------------------------------------
 * After a call returns fmi2Fatal the standard allows no further call, not even
 * fmi2FreeInstance or fmi2FreeFMUstate, so such an instance and its saved states would stay
 * allocated for good.  Every instance and state is therefore on a list, and what is still
 * there when the library is unloaded is freed then: the tests that drive FMUs into fatal
 * faults leak nothing under ASan and valgrind.  (Test FMUs only; each library has its own
 * lists.)  The lists are the library's, shared by all its instances, which an importer may
 * call from different threads at once (sacc simulate --threads, one library loaded for all
 * the instances of an FMU): a lock keeps them whole. */
static Live live_instances = {&live_instances, &live_instances};
static Live live_states = {&live_states, &live_states};
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(Live *list, Live *b)
{
	pthread_mutex_lock(&live_lock);
	b->prev = list->prev;
	b->next = list;
	list->prev->next = b;
	list->prev = b;
	pthread_mutex_unlock(&live_lock);
}

static void live_remove(Live *b)
{
	pthread_mutex_lock(&live_lock);
	b->prev->next = b->next;
	b->next->prev = b->prev;
	pthread_mutex_unlock(&live_lock);
}

/* A saved state: its Live header, then the bytes the importer sees. */
static void *state_alloc(size_t n)
{
	Live *b = malloc(sizeof *b + n);
	if (!b)
		return NULL;
	live_add(&live_states, b);
	return b + 1;
}

static void state_free(void *p)
{
	if (!p)
		return;
	Live *b = (Live *)p - 1;
	live_remove(b);
	free(b);
}

static void instance_free(KitInstance *k);

#if defined(__GNUC__) || defined(__clang__)
__attribute__((destructor))
#endif
static void free_what_is_left(void)
{
	while (live_states.next != &live_states)
		state_free(live_states.next + 1);
	while (live_instances.next != &live_instances)
		instance_free((KitInstance *)live_instances.next);
}

/* ---- logging ---------------------------------------------------------------------------- */

static const char *status_category(fmi2Status st)
{
	switch (st) {
	case fmi2Warning: return "logStatusWarning";
	case fmi2Discard: return "logStatusDiscard";
	case fmi2Error:
	case fmi2Fatal: return "logStatusError";
	default: return "logAll";
	}
}

static unsigned status_bit(fmi2Status st)
{
	switch (st) {
	case fmi2Warning: return CAT_WARNING;
	case fmi2Discard: return CAT_DISCARD;
	case fmi2Error:
	case fmi2Fatal: return CAT_ERROR;
	default: return CAT_ALL;
	}
}

static void vlog_raw(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                     fmi2Status st, const char *fmt, va_list ap)
{
	char msg[512];
	if (!logger)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	logger(env, name, st, status_category(st), "%s", msg);
}

static void log_raw(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                    fmi2Status st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

static void log_raw(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *name,
                    fmi2Status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_raw(logger, env, name, st, fmt, ap);
	va_end(ap);
}

void kit_log(KitInstance *k, fmi2Status st, const char *fmt, ...)
{
	va_list ap;
	int always = st == fmi2Discard || st == fmi2Error || st == fmi2Fatal;
	if (!k || (!always && (!k->logging || !(k->log_mask & (status_bit(st) | CAT_ALL)))))
		return;
	va_start(ap, fmt);
	vlog_raw(k->logger, k->env, k->name, st, fmt, ap);
	va_end(ap);
}

/* ---- instance checks -------------------------------------------------------------------- */

static const char *phase_name(Phase p)
{
	switch (p) {
	case PH_INSTANTIATED: return "instantiated";
	case PH_INIT: return "initializationMode";
	case PH_STEP_COMPLETE: return "stepComplete";
	case PH_STEP_FAILED: return "stepFailed";
	case PH_TERMINATED: return "terminated";
	case PH_ERROR: return "error";
	case PH_FATAL: return "fatal";
	}
	return "?";
}

/* The instance behind c when fn may be called in its state; NULL (after logging) if not. */
static KitInstance *enter(fmi2Component c, const char *fn, unsigned allowed)
{
	KitInstance *k = c;
	if (!k || k->magic != INSTANCE_MAGIC)
		return NULL;
	if (!(k->phase & allowed)) {
		kit_log(k, fmi2Error, "%s is not allowed in state %s", fn, phase_name(k->phase));
		return NULL;
	}
	return k;
}

static const KitVar *find_var(fmi2ValueReference vr, KitType t)
{
	for (size_t i = 0; i < kit_model.nvars; i++)
		if (kit_model.vars[i].vr == vr && kit_model.vars[i].type == t)
			return &kit_model.vars[i];
	return NULL;
}

static const char *type_name(KitType t)
{
	static const char *const names[] = {"Real", "Integer", "Boolean", "String"};
	return (unsigned)t < 4 ? names[t] : "?";
}

static const char *causality_name(KitCausality c)
{
	static const char *const names[] = {"an input", "an output", "a fixed parameter",
	                                    "a tunable parameter", "a local variable"};
	return (unsigned)c < 5 ? names[c] : "?";
}

/* Runs the model's calculate; a failure there puts the instance in the error state. */
static fmi2Status recalc(KitInstance *k)
{
	fmi2Status st = kit_model.calculate(k, k->state);
	if (st == fmi2Error || st == fmi2Fatal) {
		k->phase = st == fmi2Error ? PH_ERROR : PH_FATAL;
		kit_log(k, st, "the model failed to compute its outputs at t = %.17g", k->clk.time);
		return st;
	}
	k->clk.dirty = 0;
	return st;
}

/* ---- creation and the life cycle -------------------------------------------------------- */

const char *fmi2GetTypesPlatform(void)
{
	return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
	return fmi2Version;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
	(void)fmuResourceLocation, (void)visible;
	if (!functions)
		return NULL;
	fmi2CallbackLogger logger = functions->logger;
	fmi2ComponentEnvironment env = functions->componentEnvironment;
	if (!instanceName || !instanceName[0]) {
		log_raw(logger, env, "?", fmi2Error, "fmi2Instantiate: the instance name is missing");
		return NULL;
	}
	if (fmuType != fmi2CoSimulation) {
		log_raw(logger, env, instanceName, fmi2Error,
		        "fmi2Instantiate: %s supports Co-Simulation only", kit_model.identifier);
		return NULL;
	}
	if (!fmuGUID || strcmp(fmuGUID, kit_model.guid) != 0) {
		log_raw(logger, env, instanceName, fmi2Error,
		        "fmi2Instantiate: GUID %s does not match %s's %s", fmuGUID ? fmuGUID : "(null)",
		        kit_model.identifier, kit_model.guid);
		return NULL;
	}
	KitInstance *k = calloc(1, sizeof *k);
	size_t len = strlen(instanceName);
	if (k) {
		k->name = malloc(len + 1);
		k->state = calloc(1, kit_model.state_size ? kit_model.state_size : 1);
		k->u0 = calloc(kit_model.nvars + 1, sizeof *k->u0);
		k->du = calloc(kit_model.nvars + 1, sizeof *k->du);
	}
	if (k)
		k->hash = model_hash();
	if (!k || !k->name || !k->state || !k->u0 || !k->du) {
		log_raw(logger, env, instanceName, fmi2Error, "fmi2Instantiate: out of memory");
		if (k) {
			free(k->name);
			free(k->state);
			free(k->u0);
			free(k->du);
			free(k);
		}
		return NULL;
	}
	memcpy(k->name, instanceName, len + 1);
	memcpy(k->state, kit_model.start, kit_model.state_size);
	k->magic = INSTANCE_MAGIC;
	k->logger = logger;
	k->env = env;
	k->logging = loggingOn != fmi2False;
	k->log_mask = CAT_WARNING | CAT_DISCARD | CAT_ERROR | CAT_ALL;
	k->phase = PH_INSTANTIATED;
	k->clk.dirty = 1;
	live_add(&live_instances, &k->live);
	return k;
}

static void instance_free(KitInstance *k)
{
	live_remove(&k->live);
	k->magic = 0;
	free(k->name);
	free(k->state);
	free(k->u0);
	free(k->du);
	free(k);
}

void fmi2FreeInstance(fmi2Component c)
{
	KitInstance *k = c;
	if (!k || k->magic != INSTANCE_MAGIC)
		return;
	instance_free(k);
}

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String cats[])
{
	KitInstance *k = enter(c, "fmi2SetDebugLogging", PH_ALIVE);
	if (!k)
		return fmi2Error;
	unsigned mask = nCategories ? 0 : CAT_WARNING | CAT_DISCARD | CAT_ERROR | CAT_ALL;
	if (nCategories && !cats) {
		kit_log(k, fmi2Error, "fmi2SetDebugLogging: categories is NULL");
		return fmi2Error;
	}
	for (size_t i = 0; i < nCategories; i++) {
		size_t j = 0;
		while (j < sizeof categories / sizeof categories[0] &&
		       !(cats[i] && strcmp(cats[i], categories[j].name) == 0))
			j++;
		if (j == sizeof categories / sizeof categories[0]) {
			kit_log(k, fmi2Error, "fmi2SetDebugLogging: unknown log category '%s'",
			        cats[i] ? cats[i] : "(null)");
			return fmi2Error;
		}
		mask |= categories[j].bit;
	}
	k->logging = loggingOn != fmi2False;
	k->log_mask = mask;
	return fmi2OK;
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	(void)toleranceDefined, (void)tolerance;
	KitInstance *k = enter(c, "fmi2SetupExperiment", PH_INSTANTIATED);
	if (!k)
		return fmi2Error;
	if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime))) {
		kit_log(k, fmi2Error, "fmi2SetupExperiment: invalid start time %g or stop time %g",
		        startTime, stopTime);
		return fmi2Error;
	}
	k->clk.time = startTime;
	k->clk.last_successful = startTime;
	return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	KitInstance *k = enter(c, "fmi2EnterInitializationMode", PH_INSTANTIATED);
	if (!k)
		return fmi2Error;
	k->phase = PH_INIT;
	k->clk.dirty = 1;
	return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	KitInstance *k = enter(c, "fmi2ExitInitializationMode", PH_INIT);
	if (!k)
		return fmi2Error;
	fmi2Status st = fmi2OK;
	if (kit_model.initialize) {
		st = kit_model.initialize(k, k->state);
		if (st == fmi2Error || st == fmi2Fatal) {
			k->phase = st == fmi2Error ? PH_ERROR : PH_FATAL;
			kit_log(k, st, "fmi2ExitInitializationMode: the model failed to initialize");
			return st;
		}
	}
	fmi2Status cs = recalc(k);
	if (cs == fmi2Error || cs == fmi2Fatal)
		return cs;
	k->phase = PH_STEP_COMPLETE;
	return cs > st ? cs : st;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	KitInstance *k = enter(c, "fmi2Terminate", PH_STEP_COMPLETE | PH_STEP_FAILED);
	if (!k)
		return fmi2Error;
	k->phase = PH_TERMINATED;
	return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
	KitInstance *k = enter(c, "fmi2Reset", PH_ALIVE);
	if (!k)
		return fmi2Error;
	memcpy(k->state, kit_model.start, kit_model.state_size);
	memset(&k->clk, 0, sizeof k->clk);
	k->clk.dirty = 1;
	memset(k->du, 0, (kit_model.nvars + 1) * sizeof *k->du);
	k->in_step = 0;
	k->phase = PH_INSTANTIATED;
	return fmi2OK;
}

/* ---- getting and setting values --------------------------------------------------------- */

/* Common part of the getters: state, arguments, fresh outputs, then each value. */
static fmi2Status get_values(fmi2Component c, const char *fn, KitType t,
                             const fmi2ValueReference vr[], size_t nvr, void *values)
{
	KitInstance *k = enter(c, fn, PH_GET);
	if (!k)
		return fmi2Error;
	if (nvr && (!vr || !values)) {
		kit_log(k, fmi2Error, "%s: NULL value reference or value array", fn);
		return fmi2Error;
	}
	fmi2Status st = fmi2OK;
	if (k->clk.dirty && (k->phase & (PH_INIT | PH_STEP_COMPLETE))) {
		st = recalc(k);
		if (st == fmi2Error || st == fmi2Fatal)
			return st;
	}
	for (size_t i = 0; i < nvr; i++) {
		const KitVar *v = find_var(vr[i], t);
		if (!v) {
			kit_log(k, fmi2Error, "%s: no %s variable has value reference %u", fn, type_name(t),
			        vr[i]);
			return fmi2Error;
		}
		const unsigned char *field = k->state + v->offset;
		switch (t) {
		case KIT_REAL: memcpy((fmi2Real *)values + i, field, sizeof(fmi2Real)); break;
		case KIT_INTEGER: memcpy((fmi2Integer *)values + i, field, sizeof(fmi2Integer)); break;
		case KIT_BOOLEAN: memcpy((fmi2Boolean *)values + i, field, sizeof(fmi2Boolean)); break;
		case KIT_STRING: ((fmi2String *)values)[i] = (const char *)field; break;
		}
	}
	return st;
}

/* Whether v may be set in the instance's current state; logs why not. */
static int settable(KitInstance *k, const char *fn, const KitVar *v)
{
	unsigned when = 0;
	switch (v->causality) {
	case KIT_INPUT:
	case KIT_TUNABLE: when = PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE; break;
	case KIT_PARAMETER: when = PH_INSTANTIATED | PH_INIT; break;
	case KIT_OUTPUT:
	case KIT_LOCAL: when = 0; break;
	}
	if (k->phase & when)
		return 1;
	if (when)
		kit_log(k, fmi2Error, "%s: '%s' is %s and cannot be set in state %s", fn, v->name,
		        causality_name(v->causality), phase_name(k->phase));
	else
		kit_log(k, fmi2Error, "%s: '%s' is %s and cannot be set", fn, v->name,
		        causality_name(v->causality));
	return 0;
}

/* Common part of the setters: every reference and value is checked before any is stored,
 * so a rejected call changes nothing. */
static fmi2Status set_values(fmi2Component c, const char *fn, KitType t,
                             const fmi2ValueReference vr[], size_t nvr, const void *values)
{
	KitInstance *k = enter(c, fn, PH_SET);
	if (!k)
		return fmi2Error;
	if (nvr && (!vr || !values)) {
		kit_log(k, fmi2Error, "%s: NULL value reference or value array", fn);
		return fmi2Error;
	}
	for (size_t i = 0; i < nvr; i++) {
		const KitVar *v = find_var(vr[i], t);
		if (!v) {
			kit_log(k, fmi2Error, "%s: no %s variable has value reference %u", fn, type_name(t),
			        vr[i]);
			return fmi2Error;
		}
		if (!settable(k, fn, v))
			return fmi2Error;
		if (t == KIT_STRING) {
			fmi2String s = ((const fmi2String *)values)[i];
			if (!s || strlen(s) >= KIT_STRING_MAX) {
				kit_log(k, fmi2Error, "%s: the value for '%s' is NULL or longer than %d bytes",
				        fn, v->name, KIT_STRING_MAX - 1);
				return fmi2Error;
			}
		}
	}
	for (size_t i = 0; i < nvr; i++) {
		const KitVar *v = find_var(vr[i], t);
		unsigned char *field = k->state + v->offset;
		switch (t) {
		case KIT_REAL: memcpy(field, (const fmi2Real *)values + i, sizeof(fmi2Real)); break;
		case KIT_INTEGER:
			memcpy(field, (const fmi2Integer *)values + i, sizeof(fmi2Integer));
			break;
		case KIT_BOOLEAN: {
			fmi2Boolean b = ((const fmi2Boolean *)values)[i] ? fmi2True : fmi2False;
			memcpy(field, &b, sizeof b);
			break;
		}
		case KIT_STRING: {
			fmi2String s = ((const fmi2String *)values)[i];
			memcpy(field, s, strlen(s) + 1);
			break;
		}
		}
	}
	if (nvr)
		k->clk.dirty = 1;
	return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
	return get_values(c, "fmi2GetReal", KIT_REAL, vr, nvr, value);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
	return get_values(c, "fmi2GetInteger", KIT_INTEGER, vr, nvr, value);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
	return get_values(c, "fmi2GetBoolean", KIT_BOOLEAN, vr, nvr, value);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
	return get_values(c, "fmi2GetString", KIT_STRING, vr, nvr, value);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
	return set_values(c, "fmi2SetReal", KIT_REAL, vr, nvr, value);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
	return set_values(c, "fmi2SetInteger", KIT_INTEGER, vr, nvr, value);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
	return set_values(c, "fmi2SetBoolean", KIT_BOOLEAN, vr, nvr, value);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
	return set_values(c, "fmi2SetString", KIT_STRING, vr, nvr, value);
}

/* ---- FMU states ------------------------------------------------------------------------- */

/* A state, in memory and serialized alike: a header, the kit's clock, the input derivatives
 * and the model's struct, packed at these offsets. */
#define BLOB_MAGIC "sackit1"  /* 8 bytes with its NUL */
#define OFF_HASH 8
#define OFF_SIZE 16
#define OFF_CLOCK 24
#define OFF_DU (OFF_CLOCK + sizeof(KitClock))
#define OFF_STATE (OFF_DU + (kit_model.nvars + 1) * sizeof(double))
#define BLOB_SIZE (OFF_STATE + kit_model.state_size)

/* Identifies the model a state belongs to: FNV-1a over identifier, GUID and layout. */
static uint64_t model_hash(void)
{
	uint64_t h = 14695981039346656037u;
	const char *parts[2];
	parts[0] = kit_model.identifier;
	parts[1] = kit_model.guid;
	for (int p = 0; p < 2; p++)
		for (const unsigned char *s = (const unsigned char *)parts[p]; *s; s++)
			h = (h ^ *s) * 1099511628211u;
	h = (h ^ (uint64_t)kit_model.nvars) * 1099511628211u;
	h = (h ^ (uint64_t)kit_model.state_size) * 1099511628211u;
	return h;
}

static void blob_write(const KitInstance *k, unsigned char *b)
{
	uint64_t hash = k->hash, size = BLOB_SIZE;
	memset(b, 0, OFF_CLOCK);
	memcpy(b, BLOB_MAGIC, sizeof BLOB_MAGIC);
	memcpy(b + OFF_HASH, &hash, sizeof hash);
	memcpy(b + OFF_SIZE, &size, sizeof size);
	memcpy(b + OFF_CLOCK, &k->clk, sizeof k->clk);
	memcpy(b + OFF_DU, k->du, (kit_model.nvars + 1) * sizeof *k->du);
	memcpy(b + OFF_STATE, k->state, kit_model.state_size);
}

/* Whether b (size bytes) is a state of this model whose strings are terminated. */
static int blob_valid(const KitInstance *k, const unsigned char *b, size_t size)
{
	uint64_t hash, declared;
	if (!b || size != BLOB_SIZE || memcmp(b, BLOB_MAGIC, sizeof BLOB_MAGIC) != 0)
		return 0;
	memcpy(&hash, b + OFF_HASH, sizeof hash);
	memcpy(&declared, b + OFF_SIZE, sizeof declared);
	if (hash != k->hash || declared != BLOB_SIZE)
		return 0;
	for (size_t i = 0; i < kit_model.nvars; i++) {
		const KitVar *v = &kit_model.vars[i];
		if (v->type == KIT_STRING && !memchr(b + OFF_STATE + v->offset, '\0', KIT_STRING_MAX))
			return 0;
	}
	return 1;
}

static void blob_read(KitInstance *k, const unsigned char *b)
{
	memcpy(&k->clk, b + OFF_CLOCK, sizeof k->clk);
	memcpy(k->du, b + OFF_DU, (kit_model.nvars + 1) * sizeof *k->du);
	memcpy(k->state, b + OFF_STATE, kit_model.state_size);
	k->in_step = 0;
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	KitInstance *k = enter(c, "fmi2GetFMUstate", PH_ALIVE);
	if (!k)
		return fmi2Error;
	if (!FMUstate) {
		kit_log(k, fmi2Error, "fmi2GetFMUstate: FMUstate is NULL");
		return fmi2Error;
	}
	unsigned char *b = *FMUstate;
	if (b && !blob_valid(k, b, BLOB_SIZE)) {
		kit_log(k, fmi2Error, "fmi2GetFMUstate: *FMUstate is not a state of %s",
		        kit_model.identifier);
		return fmi2Error;
	}
	if (!b)
		b = state_alloc(BLOB_SIZE);
	if (!b) {
		kit_log(k, fmi2Error, "fmi2GetFMUstate: out of memory");
		return fmi2Error;
	}
	blob_write(k, b);
	*FMUstate = b;
	return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
	KitInstance *k = enter(c, "fmi2SetFMUstate", PH_ALIVE);
	if (!k)
		return fmi2Error;
	if (!blob_valid(k, FMUstate, BLOB_SIZE)) {
		kit_log(k, fmi2Error, "fmi2SetFMUstate: not a state of %s", kit_model.identifier);
		return fmi2Error;
	}
	blob_read(k, FMUstate);
	if (k->phase == PH_STEP_FAILED)
		k->phase = PH_STEP_COMPLETE;
	return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	KitInstance *k = enter(c, "fmi2FreeFMUstate", PH_ALIVE);
	if (!k)
		return fmi2Error;
	if (!FMUstate)
		return fmi2OK;
	state_free(*FMUstate);
	*FMUstate = NULL;
	return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
	KitInstance *k = enter(c, "fmi2SerializedFMUstateSize", PH_ALIVE);
	if (!k)
		return fmi2Error;
	if (!size || !blob_valid(k, FMUstate, BLOB_SIZE)) {
		kit_log(k, fmi2Error, "fmi2SerializedFMUstateSize: not a state of %s",
		        kit_model.identifier);
		return fmi2Error;
	}
	*size = BLOB_SIZE;
	return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
	KitInstance *k = enter(c, "fmi2SerializeFMUstate", PH_ALIVE);
	if (!k)
		return fmi2Error;
	if (!blob_valid(k, FMUstate, BLOB_SIZE)) {
		kit_log(k, fmi2Error, "fmi2SerializeFMUstate: not a state of %s", kit_model.identifier);
		return fmi2Error;
	}
	if (!serializedState || size < BLOB_SIZE) {
		kit_log(k, fmi2Error, "fmi2SerializeFMUstate: the buffer holds %lu bytes, %lu needed",
		        (unsigned long)size, (unsigned long)BLOB_SIZE);
		return fmi2Error;
	}
	memcpy(serializedState, FMUstate, BLOB_SIZE);
	return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
	KitInstance *k = enter(c, "fmi2DeSerializeFMUstate", PH_ALIVE);
	if (!k)
		return fmi2Error;
	if (!FMUstate || !blob_valid(k, (const unsigned char *)serializedState, size)) {
		kit_log(k, fmi2Error, "fmi2DeSerializeFMUstate: the %lu bytes given are not a "
		        "serialized state of %s", (unsigned long)size, kit_model.identifier);
		return fmi2Error;
	}
	unsigned char *b = *FMUstate;
	if (b && !blob_valid(k, b, BLOB_SIZE)) {
		kit_log(k, fmi2Error, "fmi2DeSerializeFMUstate: *FMUstate is not a state of %s",
		        kit_model.identifier);
		return fmi2Error;
	}
	if (!b)
		b = state_alloc(BLOB_SIZE);
	if (!b) {
		kit_log(k, fmi2Error, "fmi2DeSerializeFMUstate: out of memory");
		return fmi2Error;
	}
	memcpy(b, serializedState, BLOB_SIZE);
	*FMUstate = b;
	return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
	(void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown;
	(void)dvUnknown;
	KitInstance *k = enter(c, "fmi2GetDirectionalDerivative", PH_ALIVE);
	if (k)
		kit_log(k, fmi2Error, "fmi2GetDirectionalDerivative is not supported by %s",
		        kit_model.identifier);
	return fmi2Error;
}

/* ---- stepping --------------------------------------------------------------------------- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
	const char *fn = "fmi2SetRealInputDerivatives";
	KitInstance *k = enter(c, fn, PH_INSTANTIATED | PH_INIT | PH_STEP_COMPLETE);
	if (!k)
		return fmi2Error;
	if (nvr && (!vr || !order || !value)) {
		kit_log(k, fmi2Error, "%s: NULL argument", fn);
		return fmi2Error;
	}
	for (size_t i = 0; i < nvr; i++) {
		const KitVar *v = find_var(vr[i], KIT_REAL);
		if (!v || v->causality != KIT_INPUT) {
			kit_log(k, fmi2Error, "%s: value reference %u is not a Real input", fn, vr[i]);
			return fmi2Error;
		}
		if (order[i] != 1) {
			kit_log(k, fmi2Error, "%s: derivative order %d of '%s' is not supported (only 1)",
			        fn, order[i], v->name);
			return fmi2Error;
		}
	}
	for (size_t i = 0; i < nvr; i++)
		k->du[find_var(vr[i], KIT_REAL) - kit_model.vars] = value[i];
	return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
	(void)vr, (void)nvr, (void)order, (void)value;
	KitInstance *k = enter(c, "fmi2GetRealOutputDerivatives", PH_GET);
	if (k)
		kit_log(k, fmi2Error, "fmi2GetRealOutputDerivatives is not supported by %s "
		        "(maxOutputDerivativeOrder is 0)", kit_model.identifier);
	return fmi2Error;
}

void kit_inputs_at(KitInstance *k, double tau)
{
	if (!k || !k->in_step)
		return;
	for (size_t i = 0; i < kit_model.nvars; i++) {
		const KitVar *v = &kit_model.vars[i];
		if (v->type != KIT_REAL || v->causality != KIT_INPUT)
			continue;
		double u = k->du[i] != 0.0 ? k->u0[i] + k->du[i] * (tau - k->clk.step_start) : k->u0[i];
		memcpy(k->state + v->offset, &u, sizeof u);
	}
}

double kit_time(const KitInstance *k)
{
	return k ? k->clk.time : 0.0;
}

void kit_request_terminate(KitInstance *k)
{
	if (k)
		k->clk.terminate_requested = 1;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	(void)noSetFMUStatePriorToCurrentPoint;
	KitInstance *k = enter(c, "fmi2DoStep", PH_STEP_COMPLETE);
	if (!k)
		return fmi2Error;
	if (!isfinite(t) || !isfinite(h) || h < 0) {
		kit_log(k, fmi2Error, "fmi2DoStep: invalid communication point %g or step size %g", t,
		        h);
		return fmi2Error;
	}
	double tol = 1e-9 * (fabs(k->clk.time) > 1 ? fabs(k->clk.time) : 1);
	if (fabs(t - k->clk.time) > tol) {
		kit_log(k, fmi2Error, "fmi2DoStep: communication point %.17g is not the instance's "
		        "time %.17g", t, k->clk.time);
		return fmi2Error;
	}
	for (size_t i = 0; i < kit_model.nvars; i++) {
		const KitVar *v = &kit_model.vars[i];
		if (v->type == KIT_REAL && v->causality == KIT_INPUT)
			memcpy(&k->u0[i], k->state + v->offset, sizeof k->u0[i]);
	}
	k->clk.step_start = t;
	k->in_step = 1;
	double reached = t + h;
	fmi2Status st = fmi2OK;
	if (kit_model.do_step)
		st = kit_model.do_step(k, k->state, t, h, &reached);
	else
		kit_inputs_at(k, t + h);
	if (st == fmi2Discard && !(reached >= t && reached <= t + h)) {
		kit_log(k, fmi2Error, "fmi2DoStep: the model discarded the step but reached t = %g, "
		        "outside [%g, %g]", reached, t, t + h);
		st = fmi2Error;
	}
	if (st == fmi2Error || st == fmi2Fatal || st == fmi2Pending) {
		k->in_step = 0;
		k->phase = st == fmi2Fatal ? PH_FATAL : PH_ERROR;
		kit_log(k, st == fmi2Fatal ? fmi2Fatal : fmi2Error,
		        "fmi2DoStep: the model failed in the step from t = %g", t);
		return st == fmi2Fatal ? fmi2Fatal : fmi2Error;
	}
	if (st != fmi2Discard)
		reached = t + h;
	kit_inputs_at(k, reached);
	k->in_step = 0;
	memset(k->du, 0, (kit_model.nvars + 1) * sizeof *k->du);
	k->clk.time = reached;
	k->clk.last_successful = reached;
	fmi2Status cs = recalc(k);
	if (cs == fmi2Error || cs == fmi2Fatal)
		return cs;
	if (st == fmi2Discard) {
		k->phase = PH_STEP_FAILED;
		kit_log(k, fmi2Discard, "fmi2DoStep: the step from t = %.17g to %.17g stopped at %.17g",
		        t, t + h, reached);
		return fmi2Discard;
	}
	k->phase = PH_STEP_COMPLETE;
	return cs > st ? cs : st;
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
	KitInstance *k = enter(c, "fmi2CancelStep", PH_ALIVE);
	if (k)
		kit_log(k, fmi2Error, "fmi2CancelStep: %s never runs steps asynchronously",
		        kit_model.identifier);
	return fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
	(void)value;
	KitInstance *k = enter(c, "fmi2GetStatus", PH_STATUS);
	if (k)
		kit_log(k, fmi2Error, "fmi2GetStatus(%d): no asynchronous step is pending", (int)s);
	return fmi2Error;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	KitInstance *k = enter(c, "fmi2GetRealStatus", PH_STATUS);
	if (!k)
		return fmi2Error;
	if (s != fmi2LastSuccessfulTime || !value) {
		kit_log(k, fmi2Error, "fmi2GetRealStatus: only fmi2LastSuccessfulTime is defined");
		return fmi2Error;
	}
	*value = k->clk.last_successful;
	return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
	(void)value;
	KitInstance *k = enter(c, "fmi2GetIntegerStatus", PH_STATUS);
	if (k)
		kit_log(k, fmi2Error, "fmi2GetIntegerStatus(%d) is not defined", (int)s);
	return fmi2Error;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
	KitInstance *k = enter(c, "fmi2GetBooleanStatus", PH_STATUS);
	if (!k)
		return fmi2Error;
	if (s != fmi2Terminated || !value) {
		kit_log(k, fmi2Error, "fmi2GetBooleanStatus: only fmi2Terminated is defined");
		return fmi2Error;
	}
	*value = k->clk.terminate_requested ? fmi2True : fmi2False;
	return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
	(void)value;
	KitInstance *k = enter(c, "fmi2GetStringStatus", PH_STATUS);
	if (k)
		kit_log(k, fmi2Error, "fmi2GetStringStatus(%d): no asynchronous step is pending",
		        (int)s);
	return fmi2Error;
}

/* ---- Model Exchange: exported, as importers look these up, and refused ------------------ */

/* A Model Exchange function on this Co-Simulation FMU's instance: fmi2Error, logged. */
static fmi2Status co_simulation_only(fmi2Component c, const char *fn)
{
	KitInstance *k = enter(c, fn, PH_ALIVE);
	if (k)
		kit_log(k, fmi2Error, "%s: %s implements Co-Simulation only", fn,
		        kit_model.identifier);
	return fmi2Error;
}

#include "fmi2ModelExchangeRefused.h"
