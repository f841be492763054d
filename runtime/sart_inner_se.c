/* sart_inner_se.c — Scheduled Execution inners behind the seam: an FMU whose model
 * partitions run when the importer activates them at their clocks' ticks, stepped as if
 * it were Co-Simulation (the conversion from Scheduled Execution to Co-Simulation).
 *
 * sart_inner_load puts this layer in front of the back end of an inner loaded with
 * SART_CAP_SCHEDULED_EXECUTION (sart_inner_se_attach), as sart_inner_me.c does for Model
 * Exchange: the instance gets a table of its own, the back end's with the entries below in
 * place of the end of initialization, the step, the Integer values (a clock reads as its
 * ticks, a triggered clock is set to tick) and the FMU states.  The back end makes every
 * FMI call (SartInnerOps.se); this file keeps the schedule:
 *
 *   - each input clock's next tick: a periodic clock's at start + shift + k interval (k
 *     counted, never summed, so that ticks do not drift), a countdown clock's at the
 *     activation that set its interval plus that interval, a triggered clock's at the end
 *     of the step after the caller set it;
 *   - a step from t to t + h activates the ticks in (t, t + h] in time order, those of one
 *     instant by priority (then in the configuration's order); after an activation in which
 *     the FMU called its clock update, the countdown clocks' intervals and the output
 *     clocks are read: a countdown tick due at once (interval 0) runs in the same instant,
 *     after the partitions already due;
 *   - the ticks of each clock in the last step (or at the start), which its value
 *     reference reads as;
 *   - FMU states: the FMU's own and a copy of the schedule, so that a restored instance
 *     ticks where it would have; serialized as a versioned, checksummed header followed by
 *     the FMU's bytes.
 *
 * A Co-Simulation inner with clocks (SART_CAP_CLOCKS, with Event Mode) gets the same layer:
 * its steps are cut at its input clocks' ticks, where the clocks due are set at once in one
 * Event Mode (the back end's tick_in_event_mode), and the back end runs the layer's hook in
 * every Event Mode, its own events' included, to read the output clocks and the countdown
 * intervals.  Loaded with SART_CAP_EARLY_RETURN, such an inner may end a stretch early at
 * its own event, and the step then ends there (cs_stop_early), so that an output clock its
 * state event raised ticks at the event's time. */
#include "sart_inner_backend.h"
#include "sart_numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Activations of one instant before the schedule is declared never to settle (a countdown
 * clock that keeps setting itself to 0). */
#define SE_MAX_INSTANT_ROUNDS 1000

typedef struct SeClock {
	SartClock c;
	double next;     /* the next tick, +inf when none is scheduled */
	long long k;     /* periodic: the number of the next tick */
	int requested;   /* triggered: the caller asked for a tick */
	int ticks;       /* in the last step */
} SeClock;

/* What a state holds besides the FMU's own. */
typedef struct SeState {
	void *fmu;       /* the FMU's state, NULL when it cannot give one */
	SeClock *clocks; /* a copy of the schedule */
	double time;
	int initializing;
} SeState;

struct SartInnerSe {
	SartInnerOps ops;          /* the instance's table */
	const SartInnerOps *base;  /* the back end's */
	const SartInnerSeOps *fmi;
	SeClock *clocks;
	size_t n;
	double start, time;
	int initializing;          /* between enter_init and exit_init */
	int cs;                    /* a Co-Simulation or Model Exchange inner with clocks
	                            * (SART_CAP_CLOCKS): ticks in Event Mode, clocks read in
	                            * each one */
	int me;                    /* that inner is Model Exchange: under sart_inner_me.c's layer */
	SartVr *vr_buf;            /* scratch for the clocks read after an activation */
	SartVr *due_buf;           /* scratch for the input clocks of one Event Mode */
	double tick_at;            /* the time of that Event Mode (for me_tick's messages) */
	double *iv_buf;
	int *q_buf;
};

static SartStatus worse(SartStatus a, SartStatus b)
{
	return a > b ? a : b;
}

static SartInnerSe *se_of(SartInner *in)
{
	return in->se;
}

static SeClock *clock_of(SartInnerSe *s, SartVr vr)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->clocks[i].c.vr == vr)
			return &s->clocks[i];
	return NULL;
}

/* The time of tick k of a periodic clock. */
static double periodic_tick(const SartInnerSe *s, const SeClock *c, long long k)
{
	return s->start + c->c.shift + (double)k * c->c.interval;
}

/* Whether time a is at or before b, up to rounding (ticks are computed, not summed, but
 * the caller's step ends are sums). */
static int at_or_before(double a, double b)
{
	return a <= b + 1e-12 * (fabs(b) + 1.0);
}

/* After an activation at t in which the FMU called its clock update: the countdown
 * clocks' new intervals, the periodic ones' that were not known, and the output clocks'
 * ticks. */
static SartStatus read_clocks(SartInner *in, double t)
{
	SartInnerSe *s = se_of(in);
	SartStatus st = SART_OK;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->clocks[i].c.kind == SART_CLOCK_COUNTDOWN)
			s->vr_buf[n++] = s->clocks[i].c.vr;
	if (n) {
		st = s->fmi->get_interval(in, s->vr_buf, n, s->iv_buf, s->q_buf, t);
		if (st > SART_WARNING)
			return st;
		for (size_t i = 0; i < n; i++) {
			if (s->q_buf[i] != 2) /* only a changed interval schedules a tick */
				continue;
			if (!(s->iv_buf[i] >= 0) || !isfinite(s->iv_buf[i]))
				return sart_inner_report(in, SART_ERROR, "at t = %s the countdown clock %u "
				                         "got the interval %s: it must be finite, not "
				                         "negative", SART_NUM(t), s->vr_buf[i],
				                         SART_NUM(s->iv_buf[i]));
			clock_of(s, s->vr_buf[i])->next = t + s->iv_buf[i];
		}
	}
	n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->clocks[i].c.kind == SART_CLOCK_OUTPUT)
			s->vr_buf[n++] = s->clocks[i].c.vr;
	if (n) {
		st = worse(st, s->fmi->get_clock(in, s->vr_buf, n, s->q_buf, t));
		if (st > SART_WARNING)
			return st;
		for (size_t i = 0; i < n; i++)
			clock_of(s, s->vr_buf[i])->ticks += s->q_buf[i] != 0;
	}
	return st;
}

/* The input clock due at t that runs first (smallest priority, then first listed), or
 * NULL.  Triggered clocks are due only at the step's end (end_of_step). */
static SeClock *first_due(SartInnerSe *s, double t, int end_of_step)
{
	SeClock *best = NULL;
	for (size_t i = 0; i < s->n; i++) {
		SeClock *c = &s->clocks[i];
		int due = c->c.kind == SART_CLOCK_TRIGGERED ? c->requested && end_of_step
		          : c->c.kind == SART_CLOCK_OUTPUT  ? 0
		                                            : at_or_before(c->next, t);
		if (due && (!best || c->c.priority < best->c.priority))
			best = c;
	}
	return best;
}

/* Clock c ticked: counted, and its next tick scheduled (a periodic clock's), forgotten (a
 * countdown clock's, until the FMU sets its interval again) or no longer asked for (a
 * triggered clock's). */
static void ticked(SartInnerSe *s, SeClock *c)
{
	c->ticks++;
	if (c->c.kind == SART_CLOCK_PERIODIC)
		c->next = periodic_tick(s, c, ++c->k);
	else if (c->c.kind == SART_CLOCK_COUNTDOWN)
		c->next = INFINITY;
	else
		c->requested = 0;
}

/* Every tick due at t, one partition at a time, until none is left. */
static SartStatus run_instant(SartInner *in, double t, int end_of_step)
{
	SartInnerSe *s = se_of(in);
	SartStatus st = SART_OK;
	for (int round = 0;; round++) {
		SeClock *c = first_due(s, t, end_of_step);
		if (!c)
			return st;
		if (round == SE_MAX_INSTANT_ROUNDS)
			return sart_inner_report(in, SART_ERROR, "at t = %s the clocks keep ticking: %d "
			                         "activations in one instant", SART_NUM(t),
			                         SE_MAX_INSTANT_ROUNDS);
		st = worse(st, s->fmi->activate(in, c->c.vr, t));
		if (st > SART_WARNING)
			return st;
		ticked(s, c);
		if (s->fmi->take_clock_update(in)) {
			st = worse(st, read_clocks(in, t));
			if (st > SART_WARNING)
				return st;
		}
	}
}

/* In the Event Mode the Model Exchange layer entered at s->time_of_tick: the clocks due. */
static SartStatus me_tick(SartInner *in, void *env)
{
	SartInnerSe *s = se_of(in);
	return s->fmi->set_clocks(in, s->due_buf, *(size_t *)env, s->tick_at);
}

/* A Co-Simulation inner's ticks due at t: every input clock due then set at once in one
 * Event Mode (the FMU orders its partitions itself), its schedule advanced first so that
 * what the Event Mode schedules (a countdown) stands; again while a countdown falls due at
 * once. */
static SartStatus run_instant_cs(SartInner *in, double t, int end_of_step)
{
	SartInnerSe *s = se_of(in);
	SartStatus st = SART_OK;
	for (int round = 0;; round++) {
		size_t n = 0;
		SeClock *c;
		while ((c = first_due(s, t, end_of_step)) != NULL) {
			s->due_buf[n++] = c->c.vr;
			ticked(s, c);
		}
		if (n == 0)
			return st;
		if (round == SE_MAX_INSTANT_ROUNDS)
			return sart_inner_report(in, SART_ERROR, "at t = %s the clocks keep ticking: %d "
			                         "Event Modes in one instant", SART_NUM(t),
			                         SE_MAX_INSTANT_ROUNDS);
		s->tick_at = t;
		st = worse(st, s->me ? sart_inner_me_event(in, t, me_tick, &n)
		                     : s->fmi->tick_in_event_mode(in, s->due_buf, n, t));
		if (st > SART_WARNING)
			return st;
	}
}

/* The clocks' hook of a Co-Simulation inner: in every Event Mode, what ticked and what a
 * countdown clock's interval became (t NaN: the end of initialization, at the start). */
static SartStatus cs_event_hook(SartInner *in, double t)
{
	SartInnerSe *s = se_of(in);
	return s ? read_clocks(in, isnan(t) ? s->start : t) : SART_OK;
}

/* The earliest scheduled tick of a periodic or countdown clock. */
static double next_tick(const SartInnerSe *s)
{
	double t = INFINITY;
	for (size_t i = 0; i < s->n; i++)
		if ((s->clocks[i].c.kind == SART_CLOCK_PERIODIC ||
		     s->clocks[i].c.kind == SART_CLOCK_COUNTDOWN) && s->clocks[i].next < t)
			t = s->clocks[i].next;
	return t;
}

static void clear_ticks(SartInnerSe *s)
{
	for (size_t i = 0; i < s->n; i++)
		s->clocks[i].ticks = 0;
}

/* ---- the life cycle ------------------------------------------------------------------- */

static SartStatus se_enter_init(SartInner *in, const SartExperiment *ex)
{
	SartInnerSe *s = se_of(in);
	s->start = s->time = ex->start_time;
	s->initializing = 1;
	for (size_t i = 0; i < s->n; i++) {
		s->clocks[i].next = INFINITY;
		s->clocks[i].k = 0;
		s->clocks[i].requested = 0;
		s->clocks[i].ticks = 0;
	}
	return s->base->enter_init(in, ex);
}

/* The end of initialization: the periodic clocks whose interval the description leaves
 * open are asked for it, every periodic clock gets its first tick, and the ticks of the
 * start time run. */
static SartStatus se_exit_init(SartInner *in)
{
	SartInnerSe *s = se_of(in);
	SartStatus st = s->base->exit_init(in);
	if (st > SART_WARNING)
		return st;
	s->initializing = 0;
	for (size_t i = 0; i < s->n; i++) {
		SeClock *c = &s->clocks[i];
		if (c->c.kind != SART_CLOCK_PERIODIC)
			continue;
		if (isnan(c->c.interval) || c->c.interval == 0) {
			double iv = NAN;
			int q = 0;
			st = worse(st, s->fmi->get_interval(in, &c->c.vr, 1, &iv, &q, s->start));
			if (st > SART_WARNING)
				return st;
			if (q == 0 || !(iv > 0) || !isfinite(iv))
				return sart_inner_report(in, SART_ERROR, "the periodic clock %u has no "
				                         "interval: the description gives none and "
				                         "fmi3GetIntervalDecimal after initialization gives "
				                         "%s", c->c.vr, q == 0 ? "none yet" : SART_NUM(iv));
			c->c.interval = iv;
		}
		c->next = periodic_tick(s, c, 0);
	}
	/* what the FMU scheduled while it was initialized (a Co-Simulation inner's hook read
	 * it in the Event Mode that ends initialization) */
	if (!s->cs && s->fmi->take_clock_update(in))
		st = worse(st, read_clocks(in, s->start));
	if (st > SART_WARNING)
		return st;
	return worse(st, s->cs ? run_instant_cs(in, s->start, 1) : run_instant(in, s->start, 1));
}

/* A Co-Simulation inner's step that the FMU ended early at r, before the stretch's end
 * (only with SART_CAP_EARLY_RETURN): the back end handled the event there in Event Mode,
 * where the hook read the output clocks it raised, so the step ends at r as the step the
 * caller asked for would have, the triggered clocks the caller set ticking at its end; the
 * caller goes on from r (no input tick is due before the stretch's end, past r). */
static SartStatus cs_stop_early(SartInner *in, double r, SartStatus st, double *reached)
{
	SartInnerSe *s = se_of(in);
	st = worse(st, run_instant_cs(in, r, 1));
	s->time = r;
	*reached = st > SART_WARNING ? NAN : r;
	return st;
}

/* A Co-Simulation inner's step: stepped from tick to tick, each tick's clocks set in Event
 * Mode (the FMU's own events handled by the back end inside each stretch, the hook reading
 * the output clocks there). */
static SartStatus cs_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                             double *reached)
{
	SartInnerSe *s = se_of(in);
	double end = t + h, at = t;
	SartStatus st = SART_OK;
	clear_ticks(s);
	for (;;) {
		/* the next tick, or the FMU's next time event (an output clock's, say) */
		double next = next_tick(s), ev = s->me ? INFINITY : s->fmi->next_event_time(in);
		next = ev > at && ev < next ? ev : next;
		if (!(next > at) || at_or_before(end, next))
			break;
		double r = NAN;
		st = worse(st, s->base->do_step(in, at, next - at, no_set_state_prior, &r));
		if (st > SART_WARNING) {
			*reached = st == SART_DISCARD ? r : NAN;
			return st;
		}
		if (r < next)
			return cs_stop_early(in, r, st, reached);
		at = next;
		st = worse(st, run_instant_cs(in, at, 0));
		if (st > SART_WARNING) {
			*reached = NAN;
			return st;
		}
	}
	if (end > at) {
		double r = NAN;
		st = worse(st, s->base->do_step(in, at, end - at, no_set_state_prior, &r));
		if (st > SART_WARNING) {
			*reached = st == SART_DISCARD ? r : NAN;
			return st;
		}
		if (r < end)
			return cs_stop_early(in, r, st, reached);
	}
	st = worse(st, run_instant_cs(in, end, 1));
	s->time = end;
	*reached = st > SART_WARNING ? NAN : end;
	return st;
}

static SartStatus se_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                             double *reached)
{
	SartInnerSe *s = se_of(in);
	if (s->cs)
		return cs_do_step(in, t, h, no_set_state_prior, reached);
	double end = t + h;
	SartStatus st = SART_OK;
	clear_ticks(s);
	for (;;) {
		double next = next_tick(s);
		if (!at_or_before(next, end) || next <= t)
			break;
		/* a tick a rounding error from the end is the end's */
		double at = at_or_before(end, next) ? end : next;
		st = worse(st, run_instant(in, at, at == end));
		if (st > SART_WARNING) {
			*reached = NAN;
			return st;
		}
	}
	/* triggered clocks, and what is due at the end itself */
	st = worse(st, run_instant(in, end, 1));
	s->time = end;
	*reached = st > SART_WARNING ? NAN : end;
	return st;
}

/* ---- values: clocks read as their ticks, triggered clocks set ------------------------- */

static SartStatus se_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	SartInnerSe *s = se_of(in);
	SartStatus st = SART_OK;
	for (size_t i = 0; i < n; i++) {
		const SeClock *c = clock_of(s, vr[i]);
		if (c)
			v[i] = c->ticks;
		else
			st = worse(st, s->base->get_integer(in, &vr[i], 1, &v[i]));
		if (st > SART_WARNING)
			return st;
	}
	return st;
}

static SartStatus se_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	SartInnerSe *s = se_of(in);
	SartStatus st = SART_OK;
	for (size_t i = 0; i < n; i++) {
		SeClock *c = clock_of(s, vr[i]);
		if (!c) {
			st = worse(st, s->base->set_integer(in, &vr[i], 1, &v[i]));
			if (st > SART_WARNING)
				return st;
		} else if (c->c.kind != SART_CLOCK_TRIGGERED && v[i]) {
			return sart_inner_report(in, SART_ERROR, "clock %u ticks by itself (%s): only "
			                         "a triggered input clock can be set to tick", vr[i],
			                         c->c.kind == SART_CLOCK_OUTPUT ? "an output clock"
			                         : c->c.kind == SART_CLOCK_PERIODIC ? "periodic"
			                                                             : "countdown");
		} else if (v[i]) {
			c->requested = 1;
		}
	}
	return st;
}

/* ---- FMU states: the FMU's and the schedule ------------------------------------------- */

static SartStatus se_get_state(SartInner *in, void **state)
{
	SartInnerSe *s = se_of(in);
	SeState *x = *state;
	int made = !x;
	if (!(in->caps & SART_CAP_GET_SET_STATE))
		return sart_inner_report(in, SART_ERROR, "the FMU cannot get and set its state "
		                         "(canGetAndSetFMUState)");
	if (made) {
		x = calloc(1, sizeof *x);
		if (x)
			x->clocks = calloc(s->n ? s->n : 1, sizeof *x->clocks);
		if (!x || !x->clocks) {
			free(x);
			return sart_inner_report(in, SART_ERROR, "cannot save the state: out of memory");
		}
	}
	SartStatus st = s->base->get_state(in, &x->fmu);
	if (st > SART_WARNING) {
		if (made) {
			free(x->clocks);
			free(x);
		}
		return st;
	}
	memcpy(x->clocks, s->clocks, s->n * sizeof *x->clocks);
	x->time = s->time;
	x->initializing = s->initializing;
	*state = x;
	return st;
}

static SartStatus se_set_state(SartInner *in, void *state)
{
	SartInnerSe *s = se_of(in);
	SeState *x = state;
	SartStatus st = SART_OK;
	if (!x)
		return sart_inner_report(in, SART_ERROR, "no state to restore");
	if (x->fmu)
		st = s->base->set_state(in, x->fmu);
	if (st > SART_WARNING)
		return st;
	memcpy(s->clocks, x->clocks, s->n * sizeof *s->clocks);
	s->time = x->time;
	s->initializing = x->initializing;
	return st;
}

static SartStatus se_free_state(SartInner *in, void **state)
{
	SartInnerSe *s = se_of(in);
	SeState *x = *state;
	SartStatus st = SART_OK;
	if (!x)
		return SART_OK;
	if (x->fmu)
		st = s->base->free_state(in, &x->fmu);
	free(x->clocks);
	free(x);
	*state = NULL;
	return st;
}

/* Serialized states: a header of this layer's, then the FMU's own bytes.
 *   0  "SACK" (4 bytes), version, header size, FNV-1a of bytes 16.. of the header (uint32)
 *  16  time (double), initializing, number of clocks (int32)
 *  32  per clock: next (double), k (int64), value reference, requested, ticks (int32),
 *      4 bytes of padding: 32 bytes each
 * Native byte order, as the FMU's own bytes are. */
#define SE_SER_VERSION 1u
#define SE_SER_FIXED 32u
#define SE_SER_CLOCK 32u

static size_t se_header_size(const SartInnerSe *s)
{
	return SE_SER_FIXED + s->n * SE_SER_CLOCK;
}

static uint32_t se_fnv1a(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

static SartStatus se_serialized_size(SartInner *in, void *state, size_t *size)
{
	SartInnerSe *s = se_of(in);
	SeState *x = state;
	size_t fmu = 0;
	if (!x)
		return sart_inner_report(in, SART_ERROR, "serializedFMUstateSize: no state given");
	SartStatus st = s->base->serialized_size(in, x->fmu, &fmu);
	if (st > SART_WARNING)
		return st;
	if (fmu > SIZE_MAX - se_header_size(s))
		return sart_inner_report(in, SART_ERROR, "serializedFMUstateSize: %zu bytes is too "
		                         "large", fmu);
	*size = se_header_size(s) + fmu;
	return st;
}

static SartStatus se_serialize(SartInner *in, void *state, unsigned char *buf, size_t size)
{
	SartInnerSe *s = se_of(in);
	SeState *x = state;
	size_t hs = se_header_size(s);
	if (!x)
		return sart_inner_report(in, SART_ERROR, "serializeFMUstate: no state given");
	if (!buf || size < hs)
		return sart_inner_report(in, SART_ERROR, "serializeFMUstate: %zu bytes cannot hold "
		                         "the %zu-byte header", size, hs);
	memset(buf, 0, hs);
	memcpy(buf, "SACK", 4);
	const uint32_t head[2] = {SE_SER_VERSION, (uint32_t)hs};
	memcpy(buf + 4, head, sizeof head);
	memcpy(buf + 16, &x->time, sizeof x->time);
	const int32_t iv[2] = {x->initializing, (int32_t)s->n};
	memcpy(buf + 24, iv, sizeof iv);
	for (size_t i = 0; i < s->n; i++) {
		unsigned char *p = buf + SE_SER_FIXED + i * SE_SER_CLOCK;
		const SeClock *c = &x->clocks[i];
		const int64_t k = c->k;
		const int32_t cv[3] = {(int32_t)c->c.vr, c->requested, c->ticks};
		memcpy(p, &c->next, sizeof c->next);
		memcpy(p + 8, &k, sizeof k);
		memcpy(p + 16, cv, sizeof cv);
	}
	const uint32_t sum = se_fnv1a(buf + 16, hs - 16);
	memcpy(buf + 12, &sum, sizeof sum);
	return s->base->serialize(in, x->fmu, buf + hs, size - hs);
}

/* Refuses bytes that are not a header this layer wrote, naming what is wrong. */
static SART_COLD SartStatus se_bad_bytes(SartInner *in, const char *why)
{
	return sart_inner_report(in, SART_ERROR, "deSerializeFMUstate: the bytes are not a state "
	                         "of this inner with clocks: %s", why);
}

static SartStatus se_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                 void **state)
{
	SartInnerSe *s = se_of(in);
	size_t hs = se_header_size(s);
	uint32_t head[3];
	int32_t iv[2];
	if (!buf || size < hs)
		return se_bad_bytes(in, "too short for the header");
	memcpy(head, buf + 4, sizeof head);
	memcpy(iv, buf + 24, sizeof iv);
	if (memcmp(buf, "SACK", 4) != 0)
		return se_bad_bytes(in, "no header");
	if (head[0] != SE_SER_VERSION)
		return se_bad_bytes(in, "another version");
	if (head[1] != hs || iv[1] != (int32_t)s->n)
		return se_bad_bytes(in, "another number of clocks");
	if (head[2] != se_fnv1a(buf + 16, hs - 16))
		return se_bad_bytes(in, "the header's checksum does not match");
	if (iv[0] != 0 && iv[0] != 1)
		return se_bad_bytes(in, "a flag is neither 0 nor 1");
	SeState *x = *state;
	int made = !x;
	if (made) {
		x = calloc(1, sizeof *x);
		if (x)
			x->clocks = calloc(s->n ? s->n : 1, sizeof *x->clocks);
		if (!x || !x->clocks) {
			free(x);
			return sart_inner_report(in, SART_ERROR, "deSerializeFMUstate: out of memory");
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		const unsigned char *p = buf + SE_SER_FIXED + i * SE_SER_CLOCK;
		SeClock c = s->clocks[i];
		int64_t k;
		int32_t cv[3];
		memcpy(&c.next, p, sizeof c.next);
		memcpy(&k, p + 8, sizeof k);
		memcpy(cv, p + 16, sizeof cv);
		if ((SartVr)cv[0] != c.c.vr || (cv[1] != 0 && cv[1] != 1) || cv[2] < 0 || k < 0 ||
		    isnan(c.next)) {
			if (made) {
				free(x->clocks);
				free(x);
			}
			return se_bad_bytes(in, "a clock's schedule is not one this inner has");
		}
		c.k = (long long)k;
		c.requested = cv[1];
		c.ticks = cv[2];
		x->clocks[i] = c;
	}
	memcpy(&x->time, buf + 16, sizeof x->time);
	x->initializing = iv[0];
	if (x->fmu) {
		/* the FMU's state the handle held is replaced by the one the bytes give */
		SartStatus fs = s->base->free_state(in, &x->fmu);
		if (fs > SART_WARNING)
			return fs;
	}
	SartStatus st = s->base->deserialize(in, buf + hs, size - hs, &x->fmu);
	if (st > SART_WARNING && made) {
		free(x->clocks);
		free(x);
		return st;
	}
	*state = x;
	return st;
}

/* Partitions take no input derivatives and give no output derivatives: the calls are
 * refused by name. */
static SartStatus se_set_real_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                const int order[], const double value[])
{
	(void)vr, (void)n, (void)order, (void)value;
	return sart_inner_report(in, SART_ERROR, "a Scheduled Execution inner takes no input "
	                         "derivatives");
}

static SartStatus se_get_real_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                 const int order[], double value[])
{
	(void)vr, (void)n, (void)order, (void)value;
	return sart_inner_report(in, SART_ERROR, "a Scheduled Execution inner gives no output "
	                         "derivatives");
}

static SartStatus se_reset(SartInner *in)
{
	SartInnerSe *s = se_of(in);
	for (size_t i = 0; i < s->n; i++) {
		s->clocks[i].next = INFINITY;
		s->clocks[i].ticks = 0;
		s->clocks[i].requested = 0;
	}
	return s->base->reset(in);
}

static void se_free(SartInnerSe *s)
{
	free(s->clocks);
	free(s->vr_buf);
	free(s->due_buf);
	free(s->iv_buf);
	free(s->q_buf);
	free(s);
}

static void se_unbind(SartInner *in)
{
	SartInnerSe *s = se_of(in);
	const SartInnerOps *base = s->base;
	if (s->cs && s->me)
		sart_inner_me_set_event_hook(in, NULL);
	else if (s->cs)
		s->fmi->set_event_hook(in, NULL);
	se_free(s);
	in->se = NULL;
	in->ops = base;
	base->unbind(in);
}

double sart_inner_next_clock_time(const SartInner *in)
{
	if (in && !in->se && in->ops && in->ops->next_clock_time)
		return in->ops->next_clock_time(in);
	if (!in || !in->se)
		return INFINITY;
	double next = next_tick(in->se);
	if (in->se->cs && !in->se->me) {
		/* a time event of the FMU's is a tick of one of its output clocks, perhaps */
		double ev = in->se->fmi->next_event_time((SartInner *)in);
		next = ev > in->se->time && ev < next ? ev : next;
	}
	return next;
}

SartStatus sart_inner_se_attach(SartInner *in, const SartSeConfig *cfg)
{
	if (!in->ops->se)
		return sart_inner_report(in, SART_ERROR, "the FMI %s back end cannot drive a "
		                         "Scheduled Execution FMU", in->ops->fmi_version);
	SartInnerSe *s = calloc(1, sizeof *s);
	size_t n = cfg->clocks ? cfg->nclocks : 0;
	if (s) {
		s->clocks = calloc(n ? n : 1, sizeof *s->clocks);
		s->vr_buf = calloc(n ? n : 1, sizeof *s->vr_buf);
		s->due_buf = calloc(n ? n : 1, sizeof *s->due_buf);
		s->iv_buf = calloc(n ? n : 1, sizeof *s->iv_buf);
		s->q_buf = calloc(n ? n : 1, sizeof *s->q_buf);
	}
	if (!s || !s->clocks || !s->vr_buf || !s->due_buf || !s->iv_buf || !s->q_buf) {
		if (s)
			se_free(s);
		return sart_inner_report(in, SART_ERROR, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const SartClock *c = &cfg->clocks[i];
		if (c->kind == SART_CLOCK_PERIODIC && c->interval < 0) {
			se_free(s);
			return sart_inner_report(in, SART_ERROR, "the periodic clock %u has the interval "
			                         "%s: it must be positive", c->vr, SART_NUM(c->interval));
		}
		s->clocks[i].c = *c;
		s->clocks[i].next = INFINITY;
	}
	s->n = n;
	s->cs = !(in->caps & SART_CAP_SCHEDULED_EXECUTION);
	s->me = in->me != NULL;
	if (s->cs && !s->me && !(in->caps & SART_CAP_EVENT_MODE)) {
		se_free(s);
		return sart_inner_report(in, SART_ERROR, "a Co-Simulation FMU's clocks tick in Event "
		                         "Mode, which it does not have (hasEventMode)");
	}
	s->base = in->ops;
	s->fmi = in->ops->se;
	s->ops = *in->ops;
	s->ops.unbind = se_unbind;
	s->ops.enter_init = se_enter_init;
	s->ops.exit_init = se_exit_init;
	s->ops.get_integer = se_get_integer;
	s->ops.set_integer = se_set_integer;
	s->ops.set_real_input_derivatives = se_set_real_input_derivatives;
	s->ops.get_real_output_derivatives = se_get_real_output_derivatives;
	s->ops.do_step = se_do_step;
	s->ops.get_state = se_get_state;
	s->ops.set_state = se_set_state;
	s->ops.free_state = se_free_state;
	s->ops.serialized_size = se_serialized_size;
	s->ops.serialize = se_serialize;
	s->ops.deserialize = se_deserialize;
	s->ops.reset = se_reset;
	s->ops.direct_status = NULL; /* no direct route: every call goes through the seam */
	s->ops.me = NULL;
	s->ops.se = NULL;
	if (s->cs) {
		/* Event Mode used; early return kept for a Co-Simulation FMU whose caller allowed
		 * it, so that a state event's output clock ticks at the event (cs_stop_early);
		 * derivatives as the back end has them */
		if (s->me)
			in->caps &= ~(unsigned)SART_CAP_EARLY_RETURN;
		s->ops.set_real_input_derivatives = s->base->set_real_input_derivatives;
		s->ops.get_real_output_derivatives = s->base->get_real_output_derivatives;
		if (s->me)
			sart_inner_me_set_event_hook(in, cs_event_hook);
		else
			s->fmi->set_event_hook(in, cs_event_hook);
	}
	in->ops = &s->ops;
	in->se = s;
	in->direct = NULL;
	return SART_OK;
}
