/* fmu3_kit.c — the FMI 3.0 Co-Simulation layer shared by the FMI 3.0 test FMUs (see
 * fmu3_kit.h).
 *
 * Every exported fmi3* function checks its instance and the state machine first, then the
 * value references and types, then does its work; a misuse by the importer is answered with
 * fmi3Error and a logged message naming the call, and leaves the instance as it was.  Only a
 * failing model callback moves the instance to the error (or fatal) state. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "fmu3_kit.h"

/* Weak here only (see fmu3_kit.h): NULL when the model does not define it. */
#if defined(__GNUC__) || defined(__clang__)
extern const int kit3_refuses_event_mode __attribute__((weak));
#endif

/* No clocks unless the model defines its own table, and no intermediate variables unless
 * it defines those: weak definitions, which a model's strong ones replace.  Not on Windows:
 * mingw-w64 leaves a weak definition of data unresolved in a DLL (nm shows it 'w'), and the
 * kit then read garbage for the table (a model without clocks said it had some).  A model
 * built for Windows defines both tables itself (KIT3_NO_CLOCKS, fmu3_kit.h), and one that
 * does not fails to link rather than misbehave. */
#if !defined(_WIN32) && (defined(__GNUC__) || defined(__clang__))
__attribute__((weak)) const Kit3Clocks kit3_clocks = {NULL, 0, NULL};
__attribute__((weak)) const Kit3Intermediate kit3_intermediate = {NULL, 0};
#endif

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTANCE_MAGIC 0x4b495433u /* "KIT3": guards against stale or foreign pointers */
#define STATE_MAGIC 0x5354334bu

/* The FMI 3.0 Co-Simulation states the kit implements, as bits so that a call can list
 * where it is allowed. */
typedef enum Phase {
	PH_INSTANTIATED = 1 << 0,
	PH_INIT = 1 << 1,
	PH_STEP = 1 << 2,
	PH_EVENT = 1 << 3,
	PH_DISCARDED = 1 << 4, /* a doStep returned fmi3Discard: restore a state or stop */
	PH_TERMINATED = 1 << 5,
	PH_ERROR = 1 << 6,
	PH_FATAL = 1 << 7,
	PH_CLOCKS = 1 << 8,    /* Scheduled Execution's Clock Activation Mode */
	PH_INTERMEDIATE = 1 << 9, /* inside the importer's intermediate update callback */
} Phase;

#define PH_ALIVE (PH_INSTANTIATED | PH_INIT | PH_STEP | PH_EVENT | PH_DISCARDED | \
                  PH_TERMINATED | PH_ERROR | PH_CLOCKS)
#define PH_GET (PH_INIT | PH_STEP | PH_EVENT | PH_DISCARDED | PH_TERMINATED | PH_ERROR | \
                PH_CLOCKS)
#define PH_SET (PH_INSTANTIATED | PH_INIT | PH_STEP | PH_EVENT | PH_CLOCKS)
#define PH_STATE (PH_INIT | PH_STEP | PH_EVENT | PH_DISCARDED | PH_TERMINATED | PH_ERROR | \
                  PH_CLOCKS)

/* The kit's share of an FMU state: time keeping and flags.  Part of every snapshot. */
typedef struct Kit3Clock {
	double time;
	double start_time;
	int dirty;      /* an input or parameter changed since calculate last ran */
	int event_mode; /* in Event Mode (else Step Mode) once initialized */
	int discarded;
} Kit3Clock;

struct Kit3Instance {
	unsigned magic;
	char *name;
	fmi3InstanceEnvironment env;
	fmi3LogMessageCallback logger;
	fmi3IntermediateUpdateCallback intermediate;
	fmi3ClockUpdateCallback clock_update; /* Scheduled Execution only */
	int scheduled;                        /* instantiated for Scheduled Execution */
	fmi3ValueReference *required;         /* requiredIntermediateVariables, copied */
	size_t nrequired;
	int intermediate_set;                 /* inside a callback that asked for inputs */
	int logging;
	int event_mode_used;
	int early_return_allowed;
	Phase phase;
	Kit3Clock clk;
	unsigned char *state;    /* the model's struct */
};

/* ---- logging ---------------------------------------------------------------------------- */

static const char *status_category(fmi3Status st)
{
	switch (st) {
	case fmi3Warning: return "logStatusWarning";
	case fmi3Discard: return "logStatusDiscard";
	case fmi3Error:
	case fmi3Fatal: return "logStatusError";
	default: return "logAll";
	}
}

static void vlog(Kit3Instance *k, fmi3Status st, const char *category, const char *fmt,
                 va_list ap)
{
	char msg[512];
	if (!k->logger || (st < fmi3Warning && !k->logging))
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	k->logger(k->env, st, category ? category : status_category(st), msg);
}

void kit3_log(Kit3Instance *k, fmi3Status st, const char *category, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(k, st, category, fmt, ap);
	va_end(ap);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(KIT3_PRINTF, 3, 4)))
#endif
static fmi3Status fail(Kit3Instance *k, const char *fn, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	kit3_log(k, fmi3Error, NULL, "%s: %s", fn, msg);
	return fmi3Error;
}

static const char *phase_name(Phase p)
{
	switch (p) {
	case PH_INSTANTIATED: return "Instantiated";
	case PH_INIT: return "Initialization Mode";
	case PH_STEP: return "Step Mode";
	case PH_EVENT: return "Event Mode";
	case PH_DISCARDED: return "Step Mode after a discarded step";
	case PH_TERMINATED: return "Terminated";
	case PH_CLOCKS: return "Clock Activation Mode";
	case PH_INTERMEDIATE: return "Intermediate Update Mode";
	case PH_ERROR: return "Error";
	default: return "Fatal";
	}
}

/* The instance behind a handle, if the call is allowed in its state; else NULL (and an
 * error logged where there is an instance to log through). */
static Kit3Instance *enter(fmi3Instance c, const char *fn, unsigned allowed)
{
	Kit3Instance *k = c;
	if (!k || k->magic != INSTANCE_MAGIC)
		return NULL;
	if (!(k->phase & allowed)) {
		fail(k, fn, "not allowed in state %s", phase_name(k->phase));
		return NULL;
	}
	return k;
}

double kit3_time(const Kit3Instance *k) { return k->clk.time; }
int kit3_early_return_allowed(const Kit3Instance *k) { return k->early_return_allowed; }
int kit3_event_mode_used(const Kit3Instance *k) { return k->event_mode_used; }
int kit3_scheduled_execution(const Kit3Instance *k) { return k->scheduled; }

/* The callback, in Intermediate Update Mode (the phase it interrupts restored after). */
static int intermediate_call(Kit3Instance *k, double tau, int set_requested, int step_finished,
                             int can_return_early, double *early_time)
{
	fmi3Boolean requested = fmi3False;
	fmi3Float64 when = tau;
	Phase was = k->phase;
	int can = can_return_early && k->early_return_allowed;
	if (!k->intermediate)
		return 0;
	k->phase = PH_INTERMEDIATE;
	k->intermediate_set = set_requested;
	k->intermediate(k->env, tau, set_requested ? fmi3True : fmi3False, fmi3True,
	                step_finished ? fmi3True : fmi3False, can ? fmi3True : fmi3False,
	                &requested, &when);
	k->intermediate_set = 0;
	k->phase = was;
	if (can && requested && early_time)
		*early_time = when;
	return can && requested;
}

int kit3_intermediate_update(Kit3Instance *k, double tau, int step_finished, int can_return_early)
{
	return intermediate_call(k, tau, 0, step_finished, can_return_early, NULL);
}

int kit3_intermediate_inputs(Kit3Instance *k, double tau, int step_finished,
                             int can_return_early, double *early_time)
{
	return intermediate_call(k, tau, 1, step_finished, can_return_early, early_time);
}

static int is_intermediate(fmi3ValueReference vr)
{
	for (size_t i = 0; i < kit3_intermediate.n; i++)
		if (kit3_intermediate.vrs[i] == vr)
			return 1;
	return 0;
}

static int is_required(const Kit3Instance *k, fmi3ValueReference vr)
{
	for (size_t i = 0; i < k->nrequired; i++)
		if (k->required[i] == vr)
			return 1;
	return 0;
}

/* In Intermediate Update Mode: may the variable be got (set: be set)?  Logs why not. */
static int intermediate_access(Kit3Instance *k, const char *fn, const Kit3Var *v, int set)
{
	if (!is_required(k, v->vr))
		return fail(k, fn, "variable '%s' is not among the requiredIntermediateVariables",
		            v->name), 0;
	if (set && (v->causality != K3_INPUT || !k->intermediate_set))
		return fail(k, fn, "variable '%s' cannot be set in this intermediate update (%s)",
		            v->name, v->causality != K3_INPUT ? "not an input"
		                                              : "the FMU asked for no inputs"), 0;
	return 1;
}

/* ---- variables -------------------------------------------------------------------------- */

static const char *const type_names[K3_NTYPES] = {
	"Float32", "Float64", "Int8",    "UInt8",  "Int16",  "UInt16", "Int32",
	"UInt32",  "Int64",   "UInt64",  "Boolean", "String", "Binary", "Enumeration",
};

static size_t element_size(Kit3Type t)
{
	switch (t) {
	case K3_FLOAT32: return sizeof(fmi3Float32);
	case K3_FLOAT64: return sizeof(fmi3Float64);
	case K3_INT8:
	case K3_UINT8: return 1;
	case K3_INT16:
	case K3_UINT16: return 2;
	case K3_INT32:
	case K3_UINT32: return 4;
	case K3_INT64:
	case K3_UINT64:
	case K3_ENUM: return 8;
	case K3_BOOLEAN: return sizeof(fmi3Boolean);
	case K3_STRING: return KIT3_STRING_MAX;
	case K3_BINARY: return sizeof(Kit3Binary);
	default: return 0;
	}
}

static const Kit3Var *find_var(fmi3ValueReference vr)
{
	for (size_t i = 0; i < kit3_model.nvars; i++)
		if (kit3_model.vars[i].vr == vr)
			return &kit3_model.vars[i];
	return NULL;
}

/* The access type a variable answers to: enumerations go through the Int64 functions. */
static Kit3Type access_type(Kit3Type t) { return t == K3_ENUM ? K3_INT64 : t; }

/* Checks the references of a get or set: each known, of the call's type; their elements
 * add up to nValues.  Returns 0 or logs and returns -1. */
static int check_refs(Kit3Instance *k, const char *fn, Kit3Type t,
                      const fmi3ValueReference vr[], size_t nvr, size_t nvalues)
{
	size_t total = 0;
	if (nvr > 0 && !vr)
		return fail(k, fn, "valueReferences is NULL"), -1;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		if (!v)
			return fail(k, fn, "unknown value reference %u", (unsigned)vr[i]), -1;
		if (access_type(v->type) != t)
			return fail(k, fn, "variable '%s' (value reference %u) is of type %s",
			            v->name, (unsigned)vr[i], type_names[v->type]), -1;
		total += v->n;
	}
	if (total != nvalues)
		return fail(k, fn, "nValues is %zu, the variables given have %zu elements", nvalues,
		            total), -1;
	return 0;
}

static fmi3Status recalc(Kit3Instance *k)
{
	fmi3Status st;
	if (!k->clk.dirty)
		return fmi3OK;
	st = kit3_model.calculate(k, k->state);
	if (st > fmi3Warning) {
		k->phase = st == fmi3Fatal ? PH_FATAL : PH_ERROR;
		return st;
	}
	k->clk.dirty = 0;
	return st;
}

/* Copies the elements of the variables given into values (plain C arrays of the access
 * type); strings and binaries are handled by their own getters. */
static fmi3Status get_plain(fmi3Instance c, const char *fn, Kit3Type t,
                            const fmi3ValueReference vr[], size_t nvr, void *values,
                            size_t nvalues)
{
	Kit3Instance *k = enter(c, fn, PH_GET | PH_INTERMEDIATE);
	unsigned char *out = values;
	size_t es = element_size(t);
	fmi3Status st;
	if (!k)
		return fmi3Error;
	if (check_refs(k, fn, t, vr, nvr, nvalues) != 0)
		return fmi3Error;
	if (nvalues > 0 && !values)
		return fail(k, fn, "values is NULL");
	for (size_t i = 0; i < nvr && k->phase == PH_INTERMEDIATE; i++)
		if (!intermediate_access(k, fn, find_var(vr[i]), 0))
			return fmi3Error;
	st = recalc(k);
	if (st > fmi3Warning)
		return st;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		if (v->causality == K3_INDEPENDENT)
			memcpy(out, &k->clk.time, sizeof k->clk.time);
		else
			memcpy(out, k->state + v->offset, v->n * es);
		out += v->n * es;
	}
	return st;
}

/* May the variable be set in the instance's state?  Logs why not. */
static int settable(Kit3Instance *k, const char *fn, const Kit3Var *v)
{
	unsigned allowed;
	if (k->phase == PH_INTERMEDIATE)
		return intermediate_access(k, fn, v, 1);
	switch (v->causality) {
	case K3_INPUT: allowed = PH_INSTANTIATED | PH_INIT | PH_STEP | PH_EVENT | PH_CLOCKS; break;
	case K3_PARAMETER: allowed = PH_INSTANTIATED | PH_INIT; break;
	case K3_TUNABLE: allowed = PH_INSTANTIATED | PH_INIT | PH_STEP | PH_EVENT | PH_CLOCKS; break;
	case K3_STRUCTURAL:
		fail(k, fn, "structural parameter '%s' keeps its start value (no Configuration Mode)",
		     v->name);
		return 0;
	default:
		fail(k, fn, "variable '%s' cannot be set (it is %s)", v->name,
		     v->causality == K3_OUTPUT  ? "an output"
		     : v->causality == K3_LOCAL ? "a local variable"
		                                : "the independent variable");
		return 0;
	}
	if (!(k->phase & allowed)) {
		fail(k, fn, "variable '%s' cannot be set in state %s", v->name, phase_name(k->phase));
		return 0;
	}
	return 1;
}

static fmi3Status set_plain(fmi3Instance c, const char *fn, Kit3Type t,
                            const fmi3ValueReference vr[], size_t nvr, const void *values,
                            size_t nvalues)
{
	Kit3Instance *k = enter(c, fn, PH_SET | PH_INTERMEDIATE);
	const unsigned char *in = values;
	size_t es = element_size(t);
	if (!k)
		return fmi3Error;
	if (check_refs(k, fn, t, vr, nvr, nvalues) != 0)
		return fmi3Error;
	if (nvalues > 0 && !values)
		return fail(k, fn, "values is NULL");
	for (size_t i = 0; i < nvr; i++)
		if (!settable(k, fn, find_var(vr[i])))
			return fmi3Error;
	if (t == K3_BOOLEAN)
		for (size_t i = 0; i < nvalues; i++)
			if (in[i] > 1)
				return fail(k, fn, "element %zu is not a Boolean (%u)", i, in[i]);
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		memcpy(k->state + v->offset, in, v->n * es);
		in += v->n * es;
	}
	k->clk.dirty = 1;
	return fmi3OK;
}

#define KIT3_ACCESSORS(Name, T, K)                                                           \
	fmi3Status fmi3Get##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,  \
	                         T values[], size_t nvalues)                                 \
	{                                                                                    \
		return get_plain(c, "fmi3Get" #Name, K, vr, nvr, values, nvalues);           \
	}                                                                                    \
	fmi3Status fmi3Set##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,  \
	                         const T values[], size_t nvalues)                           \
	{                                                                                    \
		return set_plain(c, "fmi3Set" #Name, K, vr, nvr, values, nvalues);           \
	}
KIT3_ACCESSORS(Float32, fmi3Float32, K3_FLOAT32)
KIT3_ACCESSORS(Float64, fmi3Float64, K3_FLOAT64)
KIT3_ACCESSORS(Int8, fmi3Int8, K3_INT8)
KIT3_ACCESSORS(UInt8, fmi3UInt8, K3_UINT8)
KIT3_ACCESSORS(Int16, fmi3Int16, K3_INT16)
KIT3_ACCESSORS(UInt16, fmi3UInt16, K3_UINT16)
KIT3_ACCESSORS(Int32, fmi3Int32, K3_INT32)
KIT3_ACCESSORS(UInt32, fmi3UInt32, K3_UINT32)
KIT3_ACCESSORS(Int64, fmi3Int64, K3_INT64)
KIT3_ACCESSORS(UInt64, fmi3UInt64, K3_UINT64)
KIT3_ACCESSORS(Boolean, fmi3Boolean, K3_BOOLEAN)
#undef KIT3_ACCESSORS

fmi3Status fmi3GetString(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         fmi3String values[], size_t nvalues)
{
	Kit3Instance *k = enter(c, "fmi3GetString", PH_GET);
	size_t j = 0;
	fmi3Status st;
	if (!k)
		return fmi3Error;
	if (check_refs(k, "fmi3GetString", K3_STRING, vr, nvr, nvalues) != 0)
		return fmi3Error;
	if (nvalues > 0 && !values)
		return fail(k, "fmi3GetString", "values is NULL");
	st = recalc(k);
	if (st > fmi3Warning)
		return st;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		for (size_t e = 0; e < v->n; e++)
			values[j++] = (const char *)k->state + v->offset + e * KIT3_STRING_MAX;
	}
	return st;
}

fmi3Status fmi3SetString(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         const fmi3String values[], size_t nvalues)
{
	Kit3Instance *k = enter(c, "fmi3SetString", PH_SET);
	size_t j = 0;
	if (!k)
		return fmi3Error;
	if (check_refs(k, "fmi3SetString", K3_STRING, vr, nvr, nvalues) != 0)
		return fmi3Error;
	for (size_t i = 0; i < nvalues; i++)
		if (!values || !values[i] || strlen(values[i]) >= KIT3_STRING_MAX)
			return fail(k, "fmi3SetString", "element %zu is NULL or longer than %d bytes", i,
			            KIT3_STRING_MAX - 1);
	for (size_t i = 0; i < nvr; i++)
		if (!settable(k, "fmi3SetString", find_var(vr[i])))
			return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		for (size_t e = 0; e < v->n; e++, j++)
			strcpy((char *)k->state + v->offset + e * KIT3_STRING_MAX, values[j]);
	}
	k->clk.dirty = 1;
	return fmi3OK;
}

fmi3Status fmi3GetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         size_t valueSizes[], fmi3Binary values[], size_t nvalues)
{
	Kit3Instance *k = enter(c, "fmi3GetBinary", PH_GET);
	size_t j = 0;
	fmi3Status st;
	if (!k)
		return fmi3Error;
	if (check_refs(k, "fmi3GetBinary", K3_BINARY, vr, nvr, nvalues) != 0)
		return fmi3Error;
	if (nvalues > 0 && (!values || !valueSizes))
		return fail(k, "fmi3GetBinary", "values or valueSizes is NULL");
	st = recalc(k);
	if (st > fmi3Warning)
		return st;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		for (size_t e = 0; e < v->n; e++, j++) {
			const Kit3Binary *b =
				(const Kit3Binary *)(k->state + v->offset + e * sizeof(Kit3Binary));
			valueSizes[j] = b->size;
			values[j] = b->data;
		}
	}
	return st;
}

fmi3Status fmi3SetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         const size_t valueSizes[], const fmi3Binary values[], size_t nvalues)
{
	Kit3Instance *k = enter(c, "fmi3SetBinary", PH_SET);
	size_t j = 0;
	if (!k)
		return fmi3Error;
	if (check_refs(k, "fmi3SetBinary", K3_BINARY, vr, nvr, nvalues) != 0)
		return fmi3Error;
	for (size_t i = 0; i < nvalues; i++)
		if (!valueSizes || !values || valueSizes[i] > KIT3_BINARY_MAX ||
		    (valueSizes[i] > 0 && !values[i]))
			return fail(k, "fmi3SetBinary", "element %zu is NULL or longer than %d bytes", i,
			            KIT3_BINARY_MAX);
	for (size_t i = 0; i < nvr; i++)
		if (!settable(k, "fmi3SetBinary", find_var(vr[i])))
			return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3Var *v = find_var(vr[i]);
		for (size_t e = 0; e < v->n; e++, j++) {
			Kit3Binary *b = (Kit3Binary *)(k->state + v->offset + e * sizeof(Kit3Binary));
			b->size = valueSizes[j];
			memset(b->data, 0, sizeof b->data);
			if (valueSizes[j] > 0)
				memcpy(b->data, values[j], valueSizes[j]);
		}
	}
	k->clk.dirty = 1;
	return fmi3OK;
}

/* ---- clocks (only for a model that defines kit3_clocks) --------------------------------- */

static int has_clocks(void) { return kit3_clocks.nclocks > 0; }

static const Kit3ClockVar *find_clock(fmi3ValueReference vr)
{
	if (!has_clocks())
		return NULL;
	for (size_t i = 0; i < kit3_clocks.nclocks; i++)
		if (kit3_clocks.clocks[i].vr == vr)
			return &kit3_clocks.clocks[i];
	return NULL;
}

static Kit3ClockState *clock_state(Kit3Instance *k, const Kit3ClockVar *c)
{
	return (Kit3ClockState *)(k->state + c->offset);
}

Kit3ClockState *kit3_clock(Kit3Instance *k, void *state, fmi3ValueReference vr)
{
	const Kit3ClockVar *c = find_clock(vr);
	(void)k;
	return c ? (Kit3ClockState *)((unsigned char *)state + c->offset) : NULL;
}

int kit3_clock_active(Kit3Instance *k, void *state, fmi3ValueReference vr)
{
	Kit3ClockState *c = kit3_clock(k, state, vr);
	return c && c->active;
}

void kit3_clock_tick(Kit3Instance *k, void *state, fmi3ValueReference vr)
{
	Kit3ClockState *c = kit3_clock(k, state, vr);
	if (c)
		c->active = fmi3True;
	kit3_log(k, fmi3OK, "logEvents", "output clock %u ticks at %g", (unsigned)vr, k->clk.time);
}

void kit3_clock_countdown(Kit3Instance *k, void *state, fmi3ValueReference vr, double interval)
{
	Kit3ClockState *c = kit3_clock(k, state, vr);
	if (!c)
		return;
	c->interval = interval;
	c->qualifier = fmi3IntervalChanged;
	kit3_log(k, fmi3OK, "logEvents", "countdown clock %u: next tick in %g", (unsigned)vr,
	         interval);
}

void kit3_clock_update(Kit3Instance *k)
{
	if (k->scheduled && k->clock_update)
		k->clock_update(k->env);
}

/* Leaving Event Mode ends every clock's tick (all); a pass of fmi3UpdateDiscreteStates ends
 * the input clocks' (the output clocks wait for fmi3GetClock). */
static void deactivate_clocks(Kit3Instance *k, int all)
{
	if (!has_clocks())
		return;
	for (size_t i = 0; i < kit3_clocks.nclocks; i++)
		if (all || kit3_clocks.clocks[i].causality == K3_INPUT)
			clock_state(k, &kit3_clocks.clocks[i])->active = fmi3False;
}

/* The clocks a clock call names: each known; with a kind mask when the call applies only to
 * some kinds.  Returns 0 or logs and returns -1. */
static int check_clocks(Kit3Instance *k, const char *fn, const fmi3ValueReference vr[],
                        size_t nvr, unsigned kinds, const char *kinds_text)
{
	if (nvr > 0 && !vr)
		return fail(k, fn, "valueReferences is NULL"), -1;
	for (size_t i = 0; i < nvr; i++) {
		const Kit3ClockVar *c = find_clock(vr[i]);
		if (!c)
			return fail(k, fn, "value reference %u is not a clock", (unsigned)vr[i]), -1;
		if (!(kinds & (1u << c->kind)))
			return fail(k, fn, "clock '%s' is not %s", c->name, kinds_text), -1;
	}
	return 0;
}

#define KINDS_TIME_BASED ((1u << K3C_CONSTANT) | (1u << K3C_FIXED) | (1u << K3C_TUNABLE) | \
                          (1u << K3C_CHANGING) | (1u << K3C_COUNTDOWN))
#define KINDS_PERIODIC ((1u << K3C_CONSTANT) | (1u << K3C_FIXED) | (1u << K3C_TUNABLE))
#define KINDS_ALL (KINDS_TIME_BASED | (1u << K3C_TRIGGERED))

fmi3Status fmi3GetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Clock values[])
{
	Kit3Instance *k = enter(c, "fmi3GetClock", PH_EVENT | PH_CLOCKS);
	if (!k)
		return fmi3Error;
	if (check_clocks(k, "fmi3GetClock", vr, nvr, KINDS_ALL, "") != 0)
		return fmi3Error;
	if (nvr > 0 && !values)
		return fail(k, "fmi3GetClock", "values is NULL");
	for (size_t i = 0; i < nvr; i++)
		if (find_clock(vr[i])->causality != K3_OUTPUT && k->scheduled)
			return fail(k, "fmi3GetClock", "clock '%s' is an input clock (Scheduled "
			            "Execution activates it with fmi3ActivateModelPartition)",
			            find_clock(vr[i])->name);
	for (size_t i = 0; i < nvr; i++) {
		const Kit3ClockVar *v = find_clock(vr[i]);
		Kit3ClockState *s = clock_state(k, v);
		values[i] = s->active;
		if (v->causality == K3_OUTPUT)
			s->active = fmi3False; /* only the first get sees a tick */
	}
	return fmi3OK;
}

fmi3Status fmi3SetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Clock values[])
{
	Kit3Instance *k = enter(c, "fmi3SetClock", PH_EVENT);
	if (!k)
		return fmi3Error;
	if (check_clocks(k, "fmi3SetClock", vr, nvr, KINDS_ALL, "") != 0)
		return fmi3Error;
	if (nvr > 0 && !values)
		return fail(k, "fmi3SetClock", "values is NULL");
	for (size_t i = 0; i < nvr; i++)
		if (find_clock(vr[i])->causality != K3_INPUT)
			return fail(k, "fmi3SetClock", "clock '%s' is not an input clock",
			            find_clock(vr[i])->name);
	for (size_t i = 0; i < nvr; i++) {
		const Kit3ClockVar *cv = find_clock(vr[i]);
		clock_state(k, cv)->active = values[i] ? fmi3True : fmi3False;
		if (values[i] && cv->kind == K3C_COUNTDOWN) /* its next interval is not known yet */
			clock_state(k, cv)->qualifier = fmi3IntervalNotYetKnown;
	}
	k->clk.dirty = 1;
	return fmi3OK;
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                  fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[])
{
	Kit3Instance *k = enter(c, "fmi3GetIntervalDecimal", PH_INIT | PH_EVENT | PH_CLOCKS);
	fmi3Status st;
	if (!k)
		return fmi3Error;
	if (check_clocks(k, "fmi3GetIntervalDecimal", vr, nvr, KINDS_TIME_BASED,
	                 "time-based (it has no interval)") != 0)
		return fmi3Error;
	if (nvr > 0 && (!intervals || !qualifiers))
		return fail(k, "fmi3GetIntervalDecimal", "intervals or qualifiers is NULL");
	st = recalc(k); /* an interval may follow a tunable parameter set since */
	if (st > fmi3Warning)
		return st;
	for (size_t i = 0; i < nvr; i++) {
		Kit3ClockState *s = clock_state(k, find_clock(vr[i]));
		intervals[i] = s->interval;
		qualifiers[i] = s->qualifier;
		if (s->qualifier == fmi3IntervalChanged)
			s->qualifier = fmi3IntervalUnchanged; /* a change is told once */
	}
	return st;
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                               fmi3Float64 shifts[])
{
	Kit3Instance *k = enter(c, "fmi3GetShiftDecimal", PH_INIT | PH_EVENT | PH_CLOCKS);
	if (!k)
		return fmi3Error;
	if (check_clocks(k, "fmi3GetShiftDecimal", vr, nvr, KINDS_PERIODIC, "periodic") != 0)
		return fmi3Error;
	if (nvr > 0 && !shifts)
		return fail(k, "fmi3GetShiftDecimal", "shifts is NULL");
	for (size_t i = 0; i < nvr; i++)
		shifts[i] = clock_state(k, find_clock(vr[i]))->shift;
	return fmi3OK;
}

/* fmi3SetIntervalDecimal and fmi3SetShiftDecimal: fixed clocks in Initialization Mode,
 * tunable ones also later (intervals only), each only if its model description gives the
 * interval (the importer's to set). */
static fmi3Status set_timing(fmi3Instance c, const char *fn, const fmi3ValueReference vr[],
                             size_t nvr, const fmi3Float64 v[], int shift)
{
	Kit3Instance *k = enter(c, fn, PH_INIT | PH_EVENT | PH_CLOCKS);
	if (!k)
		return fmi3Error;
	if (check_clocks(k, fn, vr, nvr, (1u << K3C_FIXED) | (1u << K3C_TUNABLE),
	                 "fixed or tunable") != 0)
		return fmi3Error;
	if (nvr > 0 && !v)
		return fail(k, fn, "the values are NULL");
	for (size_t i = 0; i < nvr; i++) {
		const Kit3ClockVar *cv = find_clock(vr[i]);
		if (!cv->importer_sets)
			return fail(k, fn, "clock '%s' has no interval in the model description: the "
			            "FMU gives it (fmi3GetIntervalDecimal)", cv->name);
		if (k->phase != PH_INIT && (shift || cv->kind == K3C_FIXED))
			return fail(k, fn, "clock '%s': only in Initialization Mode", cv->name);
		if (!(shift ? v[i] >= 0.0 : v[i] > 0.0) || !isfinite(v[i]))
			return fail(k, fn, "clock '%s': %g is not a valid %s", cv->name, v[i],
			            shift ? "shift" : "interval");
	}
	for (size_t i = 0; i < nvr; i++) {
		Kit3ClockState *s = clock_state(k, find_clock(vr[i]));
		if (shift)
			s->shift = v[i];
		else
			s->interval = v[i];
	}
	k->clk.dirty = 1;
	return fmi3OK;
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                  const fmi3Float64 intervals[])
{
	return set_timing(c, "fmi3SetIntervalDecimal", vr, nvr, intervals, 0);
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                               const fmi3Float64 shifts[])
{
	return set_timing(c, "fmi3SetShiftDecimal", vr, nvr, shifts, 1);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance c, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
	Kit3Instance *k = enter(c, "fmi3ActivateModelPartition", PH_CLOCKS);
	const Kit3ClockVar *cv;
	Kit3ClockState *s;
	fmi3Status st;
	if (!k)
		return fmi3Error;
	cv = find_clock(clockReference);
	if (!cv || cv->causality != K3_INPUT)
		return fail(k, "fmi3ActivateModelPartition", "value reference %u is not an input "
		            "clock", (unsigned)clockReference);
	s = clock_state(k, cv);
	if (!isfinite(activationTime) || activationTime < k->clk.start_time ||
	    (s->activations > 0 && !(activationTime > s->last)))
		return fail(k, "fmi3ActivateModelPartition", "clock '%s' activated at %.17g: times "
		            "must increase from the start time %.17g (last activation %.17g)",
		            cv->name, activationTime, k->clk.start_time, s->last);
	st = recalc(k);
	if (st > fmi3Warning)
		return st;
	if (activationTime > k->clk.time)
		k->clk.time = activationTime;
	s->last = activationTime;
	s->activations++;
	if (cv->kind == K3C_COUNTDOWN) /* its next interval is not known yet */
		s->qualifier = fmi3IntervalNotYetKnown;
	st = kit3_clocks.activate(k, k->state, clockReference, activationTime);
	if (st > fmi3Warning) {
		k->phase = st == fmi3Fatal ? PH_FATAL : PH_ERROR;
		return st;
	}
	k->clk.dirty = 1;
	return st;
}

/* ---- life cycle ------------------------------------------------------------------------- */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String token,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn, fmi3InstanceEnvironment env,
                                          fmi3LogMessageCallback logMessage)
{
	(void)instanceName, (void)token, (void)resourcePath, (void)visible, (void)loggingOn;
	if (logMessage)
		logMessage(env, fmi3Error, "logStatusError",
		           "fmi3InstantiateModelExchange: this FMU implements Co-Simulation only");
	return NULL;
}

/* The instance both interfaces make, once the arguments are checked: NULL without memory. */
static Kit3Instance *new_instance(fmi3String instanceName, fmi3InstanceEnvironment env,
                                  fmi3LogMessageCallback logMessage, fmi3Boolean loggingOn)
{
	Kit3Instance *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->name = strdup(instanceName);
	k->state = malloc(kit3_model.state_size);
	if (!k->name || !k->state) {
		free(k->name);
		free(k->state);
		free(k);
		return NULL;
	}
	memcpy(k->state, kit3_model.start, kit3_model.state_size);
	k->magic = INSTANCE_MAGIC;
	k->env = env;
	k->logger = logMessage;
	k->logging = loggingOn;
	k->phase = PH_INSTANTIATED;
	k->clk.dirty = 1;
	return k;
}

/* Why an instantiation is refused whatever the interface, or NULL. */
static const char *instantiation_refused(fmi3String instanceName, fmi3String token)
{
	if (!instanceName || !*instanceName)
		return "instanceName is empty";
	if (!token || strcmp(token, kit3_model.token) != 0)
		return "instantiationToken does not match the model description's";
	return NULL;
}

fmi3Instance fmi3InstantiateScheduledExecution(
	fmi3String instanceName, fmi3String token, fmi3String resourcePath, fmi3Boolean visible,
	fmi3Boolean loggingOn, fmi3InstanceEnvironment env, fmi3LogMessageCallback logMessage,
	fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lock,
	fmi3UnlockPreemptionCallback unlock)
{
	Kit3Instance *k;
	const char *why = instantiation_refused(instanceName, token);
	(void)resourcePath, (void)visible;
	(void)lock, (void)unlock; /* partitions run one at a time: nothing to lock */
	if (!why && !(has_clocks() && kit3_clocks.activate))
		why = "fmi3InstantiateScheduledExecution: this FMU implements Co-Simulation only";
	else if (!why && !clockUpdate)
		why = "fmi3InstantiateScheduledExecution: clockUpdate is NULL";
	if (why) {
		if (logMessage)
			logMessage(env, fmi3Error, "logStatusError", why);
		return NULL;
	}
	k = new_instance(instanceName, env, logMessage, loggingOn);
	if (k) {
		k->scheduled = 1;
		k->clock_update = clockUpdate;
	}
	return k;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String token,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment env,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
	Kit3Instance *k;
	const char *why = instantiation_refused(instanceName, token);
	(void)resourcePath, (void)visible;
	if (!why && eventModeUsed && &kit3_refuses_event_mode && kit3_refuses_event_mode)
		why = "Event Mode is not supported";
	else if (!why && nRequiredIntermediateVariables > 0 && !requiredIntermediateVariables)
		why = "requiredIntermediateVariables is NULL";
	else if (!why && has_clocks() && kit3_clocks.activate)
		why = "fmi3InstantiateCoSimulation: this FMU implements Scheduled Execution only";
	for (size_t i = 0; !why && i < nRequiredIntermediateVariables; i++)
		if (!is_intermediate(requiredIntermediateVariables[i]))
			why = kit3_intermediate.n ? "a required intermediate variable is not one of this "
			                            "FMU's intermediate variables"
			                          : "this FMU offers no intermediate variables";
	if (why) {
		if (logMessage)
			logMessage(env, fmi3Error, "logStatusError", why);
		return NULL;
	}
	k = new_instance(instanceName, env, logMessage, loggingOn);
	if (k && nRequiredIntermediateVariables > 0) {
		k->required = malloc(nRequiredIntermediateVariables * sizeof *k->required);
		if (!k->required) {
			fmi3FreeInstance(k);
			return NULL;
		}
		memcpy(k->required, requiredIntermediateVariables,
		       nRequiredIntermediateVariables * sizeof *k->required);
		k->nrequired = nRequiredIntermediateVariables;
	}
	if (k) {
		k->intermediate = intermediateUpdate;
		k->event_mode_used = eventModeUsed;
		k->early_return_allowed = earlyReturnAllowed;
	}
	return k;
}

void fmi3FreeInstance(fmi3Instance c)
{
	Kit3Instance *k = c;
	if (!k || k->magic != INSTANCE_MAGIC)
		return;
	k->magic = 0;
	free(k->required);
	free(k->state);
	free(k->name);
	free(k);
}

fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
	static const char *const known[] = {"logStatusWarning", "logStatusDiscard",
	                                    "logStatusError", "logEvents", "logAll"};
	Kit3Instance *k = enter(c, "fmi3SetDebugLogging", PH_ALIVE);
	if (!k)
		return fmi3Error;
	for (size_t i = 0; i < nCategories; i++) {
		size_t j = 0;
		while (j < sizeof known / sizeof known[0] && (!categories || !categories[i] ||
		                                              strcmp(categories[i], known[j]) != 0))
			j++;
		if (j == sizeof known / sizeof known[0])
			return fail(k, "fmi3SetDebugLogging", "unknown log category '%s'",
			            categories && categories[i] ? categories[i] : "(null)");
	}
	k->logging = loggingOn;
	return fmi3OK;
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
	Kit3Instance *k = enter(c, "fmi3EnterInitializationMode", PH_INSTANTIATED);
	(void)toleranceDefined, (void)tolerance;
	if (!k)
		return fmi3Error;
	if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime)))
		return fail(k, "fmi3EnterInitializationMode", "startTime %g, stopTime %g", startTime,
		            stopTime);
	k->clk.time = k->clk.start_time = startTime;
	k->phase = PH_INIT;
	return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c)
{
	Kit3Instance *k = enter(c, "fmi3ExitInitializationMode", PH_INIT);
	fmi3Status st = fmi3OK;
	if (!k)
		return fmi3Error;
	if (kit3_model.initialize)
		st = kit3_model.initialize(k, k->state);
	if (st <= fmi3Warning) {
		fmi3Status r;
		k->clk.dirty = 1;
		r = recalc(k);
		st = r > st ? r : st;
	}
	if (st > fmi3Warning) {
		k->phase = st == fmi3Fatal ? PH_FATAL : PH_ERROR;
		return st;
	}
	k->phase = k->scheduled ? PH_CLOCKS : k->event_mode_used ? PH_EVENT : PH_STEP;
	return st;
}

fmi3Status fmi3EnterEventMode(fmi3Instance c)
{
	Kit3Instance *k = enter(c, "fmi3EnterEventMode", PH_STEP | PH_EVENT);
	if (!k)
		return fmi3Error;
	if (!k->event_mode_used)
		return fail(k, "fmi3EnterEventMode", "the instance was created with eventModeUsed false");
	k->phase = PH_EVENT;
	return fmi3OK;
}

fmi3Status fmi3EnterStepMode(fmi3Instance c)
{
	Kit3Instance *k = enter(c, "fmi3EnterStepMode", PH_EVENT);
	if (!k)
		return fmi3Error;
	deactivate_clocks(k, 1);
	k->phase = PH_STEP;
	return fmi3OK;
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *needUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsChanged, fmi3Boolean *valuesChanged,
                                    fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime)
{
	Kit3Instance *k = enter(c, "fmi3UpdateDiscreteStates", PH_EVENT);
	int again = 0, has_next = 0;
	double next = 0.0;
	fmi3Status st = fmi3OK;
	if (!k)
		return fmi3Error;
	if (!needUpdate || !terminateSimulation || !nominalsChanged || !valuesChanged ||
	    !nextEventTimeDefined || !nextEventTime)
		return fail(k, "fmi3UpdateDiscreteStates", "an out-argument is NULL");
	st = recalc(k);
	if (st <= fmi3Warning && kit3_model.update_discrete) {
		fmi3Status u = kit3_model.update_discrete(k, k->state, &again, &has_next, &next);
		st = u > st ? u : st;
		k->clk.dirty = 1;
	}
	deactivate_clocks(k, 0); /* the pass has seen the input clocks set before it */
	if (st > fmi3Warning) {
		k->phase = st == fmi3Fatal ? PH_FATAL : PH_ERROR;
		return st;
	}
	*needUpdate = again ? fmi3True : fmi3False;
	*terminateSimulation = fmi3False;
	*nominalsChanged = fmi3False;
	*valuesChanged = kit3_model.update_discrete ? fmi3True : fmi3False;
	*nextEventTimeDefined = has_next ? fmi3True : fmi3False;
	*nextEventTime = has_next ? next : 0.0;
	return st;
}

fmi3Status fmi3Terminate(fmi3Instance c)
{
	Kit3Instance *k = enter(c, "fmi3Terminate", PH_STEP | PH_EVENT | PH_DISCARDED | PH_CLOCKS);
	if (!k)
		return fmi3Error;
	k->phase = PH_TERMINATED;
	return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance c)
{
	Kit3Instance *k = enter(c, "fmi3Reset", PH_ALIVE);
	if (!k)
		return fmi3Error;
	memcpy(k->state, kit3_model.start, kit3_model.state_size);
	memset(&k->clk, 0, sizeof k->clk);
	k->clk.dirty = 1;
	k->phase = PH_INSTANTIATED;
	return fmi3OK;
}

/* ---- stepping --------------------------------------------------------------------------- */

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 h,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
	Kit3Instance *k = enter(c, "fmi3DoStep", PH_STEP);
	Kit3Step out = {0};
	fmi3Status st = fmi3OK;
	(void)noSetFMUStatePriorToCurrentPoint;
	if (!k)
		return fmi3Error;
	if (!eventHandlingNeeded || !terminateSimulation || !earlyReturn || !lastSuccessfulTime)
		return fail(k, "fmi3DoStep", "an out-argument is NULL");
	if (!(h > 0.0) || !isfinite(h) ||
	    fabs(t - k->clk.time) > 1e-9 * fmax(1.0, fabs(k->clk.time)))
		return fail(k, "fmi3DoStep", "step (t = %.17g, h = %.17g) does not start at the "
		            "instance's time %.17g or is not positive", t, h, k->clk.time);
	st = recalc(k);
	if (st > fmi3Warning)
		return st;
	out.reached = t + h;
	if (kit3_model.do_step)
		st = kit3_model.do_step(k, k->state, t, h, &out);
	if (st > fmi3Discard) {
		k->phase = st == fmi3Fatal ? PH_FATAL : PH_ERROR;
		return st;
	}
	/* an early stop needs earlyReturnAllowed, or an event in Event Mode (as some exporters
	 * stop at an event when Event Mode is used, whatever earlyReturnAllowed says) */
	if (st != fmi3Discard && out.reached < t + h &&
	    !(out.early && (k->early_return_allowed || (out.event && k->event_mode_used)))) {
		k->phase = PH_ERROR;
		return fail(k, "fmi3DoStep", "the model stopped at %.17g without an early return",
		            out.reached);
	}
	k->clk.time = out.reached;
	k->clk.dirty = 1;
	{
		fmi3Status r = recalc(k);
		if (r > fmi3Warning)
			return r;
		st = r > st ? r : st;
	}
	*eventHandlingNeeded = out.event && k->event_mode_used ? fmi3True : fmi3False;
	*terminateSimulation = out.terminate ? fmi3True : fmi3False;
	*earlyReturn = out.reached < t + h && st != fmi3Discard ? fmi3True : fmi3False;
	*lastSuccessfulTime = out.reached;
	if (st == fmi3Discard) {
		k->phase = PH_DISCARDED;
		kit3_log(k, fmi3Discard, NULL, "fmi3DoStep: discarded at %.17g", out.reached);
	}
	return st;
}

/* ---- FMU states: the model's struct and the kit's clock ---------------------------------- */

typedef struct StateHeader {
	uint32_t magic;
	uint32_t size;     /* of the model's struct */
	uint64_t token;    /* hash of the identifier and the instantiation token */
	Kit3Clock clk;
	int32_t phase;
} StateHeader;

static uint64_t token_hash(void)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *s = kit3_model.identifier; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	for (const char *s = kit3_model.token; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t state_bytes(void) { return sizeof(StateHeader) + kit3_model.state_size; }

static void state_write(const Kit3Instance *k, unsigned char *b)
{
	StateHeader hd;
	memset(&hd, 0, sizeof hd);
	hd.magic = STATE_MAGIC;
	hd.size = (uint32_t)kit3_model.state_size;
	hd.token = token_hash();
	hd.clk = k->clk;
	hd.phase = k->phase == PH_DISCARDED ? PH_STEP : (int32_t)k->phase;
	memcpy(b, &hd, sizeof hd);
	memcpy(b + sizeof hd, k->state, kit3_model.state_size);
}

static int state_valid(const unsigned char *b, size_t size)
{
	StateHeader hd;
	if (!b || size != state_bytes())
		return 0;
	memcpy(&hd, b, sizeof hd);
	return hd.magic == STATE_MAGIC && hd.size == kit3_model.state_size &&
	       hd.token == token_hash() &&
	       (hd.phase == PH_INIT || hd.phase == PH_STEP || hd.phase == PH_EVENT ||
	        hd.phase == PH_TERMINATED || hd.phase == PH_CLOCKS);
}

static void state_read(Kit3Instance *k, const unsigned char *b)
{
	StateHeader hd;
	memcpy(&hd, b, sizeof hd);
	k->clk = hd.clk;
	k->phase = (Phase)hd.phase;
	memcpy(k->state, b + sizeof hd, kit3_model.state_size);
}

fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
	Kit3Instance *k = enter(c, "fmi3GetFMUState", PH_STATE);
	unsigned char *b;
	if (!k)
		return fmi3Error;
	if (!FMUState)
		return fail(k, "fmi3GetFMUState", "FMUState is NULL");
	b = *FMUState ? *FMUState : malloc(state_bytes());
	if (!b)
		return fail(k, "fmi3GetFMUState", "out of memory");
	if (*FMUState && !state_valid(b, state_bytes()))
		return fail(k, "fmi3GetFMUState", "the state given to overwrite is not this model's");
	state_write(k, b);
	*FMUState = b;
	return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState FMUState)
{
	Kit3Instance *k = enter(c, "fmi3SetFMUState", PH_STATE);
	if (!k)
		return fmi3Error;
	if (!state_valid(FMUState, state_bytes()))
		return fail(k, "fmi3SetFMUState", "not a state of this model");
	state_read(k, FMUState);
	return fmi3OK;
}

fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
	Kit3Instance *k = enter(c, "fmi3FreeFMUState", PH_ALIVE);
	if (!k)
		return fmi3Error;
	if (FMUState) {
		free(*FMUState);
		*FMUState = NULL;
	}
	return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState FMUState, size_t *size)
{
	Kit3Instance *k = enter(c, "fmi3SerializedFMUStateSize", PH_ALIVE);
	if (!k)
		return fmi3Error;
	if (!state_valid(FMUState, state_bytes()) || !size)
		return fail(k, "fmi3SerializedFMUStateSize", "not a state of this model");
	*size = state_bytes();
	return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
	Kit3Instance *k = enter(c, "fmi3SerializeFMUState", PH_ALIVE);
	if (!k)
		return fmi3Error;
	if (!state_valid(FMUState, state_bytes()) || !serializedState || size != state_bytes())
		return fail(k, "fmi3SerializeFMUState", "not a state of this model, or size %zu is "
		            "not %zu", size, state_bytes());
	memcpy(serializedState, FMUState, size);
	return fmi3OK;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
	Kit3Instance *k = enter(c, "fmi3DeserializeFMUState", PH_ALIVE);
	unsigned char *b;
	if (!k)
		return fmi3Error;
	if (!FMUState || !state_valid(serializedState, size))
		return fail(k, "fmi3DeserializeFMUState", "not a serialized state of this model");
	b = *FMUState ? *FMUState : malloc(size);
	if (!b)
		return fail(k, "fmi3DeserializeFMUState", "out of memory");
	memcpy(b, serializedState, size);
	*FMUState = b;
	return fmi3OK;
}

/* ---- what the kit does not offer: fmi3Error with a message ------------------------------- */

static fmi3Status refuse(fmi3Instance c, const char *fn, const char *why)
{
	Kit3Instance *k = enter(c, fn, PH_ALIVE);
	if (!k)
		return fmi3Error;
	return fail(k, fn, "%s", why);
}

static fmi3Status unsupported(fmi3Instance c, const char *fn)
{
	return refuse(c, fn, "not supported by this FMU");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance c, fmi3ValueReference vr,
                                               size_t *n)
{
	(void)vr, (void)n;
	return unsupported(c, "fmi3GetNumberOfVariableDependencies");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance c, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[], size_t n)
{
	(void)dependent, (void)elementIndicesOfDependent, (void)independents;
	(void)elementIndicesOfIndependents, (void)dependencyKinds, (void)n;
	return unsupported(c, "fmi3GetVariableDependencies");
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance c, const fmi3ValueReference unknowns[],
                                        size_t nUnknowns, const fmi3ValueReference knowns[],
                                        size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
	(void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
	(void)sensitivity, (void)nSensitivity;
	return unsupported(c, "fmi3GetDirectionalDerivative");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance c, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
	(void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
	(void)sensitivity, (void)nSensitivity;
	return unsupported(c, "fmi3GetAdjointDerivative");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance c)
{
	return unsupported(c, "fmi3EnterConfigurationMode");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance c)
{
	return unsupported(c, "fmi3ExitConfigurationMode");
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                   fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions, (void)qualifiers;
	return unsupported(c, "fmi3GetIntervalFraction");
}

fmi3Status fmi3GetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                fmi3UInt64 counters[], fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return unsupported(c, "fmi3GetShiftFraction");
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                   const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return unsupported(c, "fmi3SetIntervalFraction");
}

fmi3Status fmi3SetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
{
	(void)vr, (void)nvr, (void)counters, (void)resolutions;
	return unsupported(c, "fmi3SetShiftFraction");
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance c)
{
	return unsupported(c, "fmi3EvaluateDiscreteStates");
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[],
                                    size_t nValues)
{
	(void)vr, (void)nvr, (void)orders, (void)values, (void)nValues;
	return unsupported(c, "fmi3GetOutputDerivatives");
}

/* ---- Model Exchange: exported, as every FMU exports it, and refused ---------------------- */

/* A Model Exchange function on this Co-Simulation FMU's instance: fmi3Error, logged. */
static fmi3Status co_simulation_only(fmi3Instance c, const char *fn)
{
	return refuse(c, fn, "this FMU implements Co-Simulation only");
}

#include "fmi3ModelExchangeRefused.h"
