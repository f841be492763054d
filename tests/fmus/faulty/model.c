/* faulty — a fault-injection FMU for the status handling of wrappers and of the orchestrator
 * (docs/simulate.md, "Status handling"; docs/fmu.md).  Without a fault it integrates x' = u (u starts
 * at 1, so alone x = t), exactly for inputs linear over the step, as the integrator does.
 *
 * Three inputs choose the fault and when it strikes (inputs, not parameters, so that a
 * wrapper over it exposes them as its own inputs and a test can set them from outside;
 * `sacc simulate --set faulty.fault=2` sets them as it sets parameters):
 *   fault         0 none; 1 discard; 2 error; 3 fatal; 4 nan; 5 inf; 6 ignore_set_state;
 *                 7 hang; 8 segv; 9 abort; 10 exit; 11 loop (the FAULT_* values below)
 *   at            s: the fault strikes in the first step that ends after `at`
 *                 (discard: in the step that crosses `at`, i.e. t < at < t + h)
 *   hang_seconds  s: how long a hanging step sleeps (3600 by default, far beyond any
 *                 test's patience; tests of a wall-clock limit set what they need)
 *
 *   discard           the step returns fmi2Discard having reached t = at (the last
 *                     successful time); a step from t to at, or from at on, succeeds
 *   error, fatal      the step returns fmi2Error / fmi2Fatal, with a logged message
 *   nan, inf          from that step on, the output x is NaN / +infinity (status fmi2OK)
 *   ignore_set_state  the model description claims canGetAndSetFMUstate, but from time
 *                     `at` on fmi2SetFMUstate returns fmi2OK and restores nothing (a lie a
 *                     master must detect: `sacc inspect --probe-state`)
 *   hang              the step sleeps hang_seconds, then completes normally
 *   segv, abort,      the step kills the process as a broken FMU would: a write through
 *   exit, loop        a null pointer (SIGSEGV), abort() (SIGABRT), exit(3), or a loop
 *                     that never ends (burning CPU, unlike hang: no signal wakes it)
 *
 * The kit's fmi2SetFMUstate is wrapped for ignore_set_state: this file includes the kit's C
 * with that one function renamed (kit_fmi2SetFMUstate) and defines fmi2SetFMUstate itself,
 * so it is compiled alone (the Makefile's rule for faulty.fmu), not with fmu_kit.c. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#define fmi2SetFMUstate kit_fmi2SetFMUstate
#include "fmu_kit.c"
#undef fmi2SetFMUstate

#define FAULTY_GUID "{9b1f0c4e-2d7a-4e55-8c3b-6a0f2e9d71c5}"

enum { VR_U = 0, VR_X = 1, VR_FAULT = 2, VR_AT = 3, VR_HANG = 4 };

enum {
	FAULT_NONE = 0,
	FAULT_DISCARD = 1,
	FAULT_ERROR = 2,
	FAULT_FATAL = 3,
	FAULT_NAN = 4,
	FAULT_INF = 5,
	FAULT_IGNORE_SET_STATE = 6,
	FAULT_HANG = 7,
	FAULT_SEGV = 8,
	FAULT_ABORT = 9,
	FAULT_EXIT = 10,
	FAULT_LOOP = 11,
	FAULT_LAST = FAULT_LOOP
};

typedef struct Faulty {
	fmi2Real u;            /* input */
	fmi2Real x;            /* output, the state */
	fmi2Integer fault;     /* FAULT_* */
	fmi2Real at;           /* s */
	fmi2Real hang_seconds; /* s */
	fmi2Integer struck;    /* nan/inf: the fault has struck (x stays non-finite) */
} Faulty;

static const Faulty start = {1.0, 0.0, FAULT_NONE, 0.0, 3600.0, 0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Faulty, u)},
	{"x", VR_X, KIT_REAL, KIT_OUTPUT, offsetof(Faulty, x)},
	{"fault", VR_FAULT, KIT_INTEGER, KIT_INPUT, offsetof(Faulty, fault)},
	{"at", VR_AT, KIT_REAL, KIT_INPUT, offsetof(Faulty, at)},
	{"hang_seconds", VR_HANG, KIT_REAL, KIT_INPUT, offsetof(Faulty, hang_seconds)},
};

static fmi2Status calculate(KitInstance *k, void *state)
{
	(void)k;
	(void)state;
	return fmi2OK;
}


/* Sleeps for seconds of wall-clock time, through interruptions. */
static void sleep_for(double seconds)
{
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	double whole = floor(seconds);
	end.tv_sec += (time_t)whole;
	end.tv_nsec += (long)((seconds - whole) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return;
		struct timespec left = {end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec};
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		nanosleep(&left, NULL);
	}
}

/* The crashing faults: never returns.  The null pointer is read through a volatile so
 * that the compiler keeps the write (to a volatile int: a plain one it may drop). */
static void crash(int fault)
{
	volatile int *volatile nowhere = NULL;
	volatile unsigned long spins = 0;
	switch (fault) {
	case FAULT_SEGV: *nowhere = 1; break;
	case FAULT_ABORT: abort();
	case FAULT_EXIT: exit(3);
	default: break;
	}
	for (;;)
		spins++;
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Faulty *s = state;
	if (s->fault < FAULT_NONE || s->fault > FAULT_LAST) {
		kit_log(k, fmi2Error, "fault = %d is not one of 0..%d", (int)s->fault, FAULT_LAST);
		return fmi2Error;
	}
	double end = t + h, tol = 1e-12 * (fabs(s->at) > 1 ? fabs(s->at) : 1);
	int strikes = end > s->at + tol;
	switch (s->fault) {
	case FAULT_DISCARD:
		if (t < s->at - tol && strikes) {
			kit_log(k, fmi2Discard, "fault discard: the step from t = %g to %g stops at "
			        "t = %g", t, end, s->at);
			kit_inputs_at(k, t + (s->at - t) / 2);
			s->x += s->u * (s->at - t);
			*reached = s->at;
			return fmi2Discard;
		}
		break;
	case FAULT_ERROR:
	case FAULT_FATAL:
		if (strikes) {
			fmi2Status st = s->fault == FAULT_ERROR ? fmi2Error : fmi2Fatal;
			kit_log(k, st, "fault %s: the step from t = %g to %g fails",
			        s->fault == FAULT_ERROR ? "error" : "fatal", t, end);
			return st;
		}
		break;
	case FAULT_HANG:
		if (strikes && s->hang_seconds > 0)
			sleep_for(s->hang_seconds);
		break;
	case FAULT_SEGV:
	case FAULT_ABORT:
	case FAULT_EXIT:
	case FAULT_LOOP:
		if (strikes)
			crash((int)s->fault);
		break;
	default:
		break;
	}
	kit_inputs_at(k, t + h / 2);
	s->x += s->u * h;
	if ((s->fault == FAULT_NAN || s->fault == FAULT_INF) && (strikes || s->struck)) {
		s->struck = 1;
		s->x = s->fault == FAULT_NAN ? NAN : INFINITY;
	}
	return fmi2OK;
}

const KitModel kit_model = {
	"faulty",
	FAULTY_GUID,
	sizeof(Faulty),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	NULL,
	do_step,
};

/* fmi2SetFMUstate as the kit has it, unless the fault is ignore_set_state and the instance
 * has reached `at`: then the state is checked as the kit checks it, the FMI state machine
 * moves as for a real restore (stepFailed -> stepComplete), and nothing is restored. */
FMI2_Export fmi2SetFMUstateTYPE fmi2SetFMUstate;

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
	KitInstance *k = enter(c, "fmi2SetFMUstate", PH_ALIVE);
	if (!k)
		return fmi2Error;
	const Faulty *s = (const Faulty *)k->state;
	if (s->fault != FAULT_IGNORE_SET_STATE || kit_time(k) < s->at)
		return kit_fmi2SetFMUstate(c, FMUstate);
	if (!blob_valid(k, FMUstate, BLOB_SIZE)) {
		kit_log(k, fmi2Error, "fmi2SetFMUstate: not a state of %s", kit_model.identifier);
		return fmi2Error;
	}
	if (k->phase == PH_STEP_FAILED)
		k->phase = PH_STEP_COMPLETE;
	return fmi2OK;
}
