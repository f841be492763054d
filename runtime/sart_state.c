/* sart_state.c — FMU states of a wrapper: getting, setting and freeing them, and their
 * serialized form (versioned, checksummed, checked field by field on load). */
#include "sart_core_impl.h"

#include <stdint.h>
#include <stdlib.h>

#define STATE_MAGIC 0x5341575354415445ull


/* A wrapper state is the wrapper's own data (the "body", one fixed layout per model) and one
 * state per inner FMU, owned by it.  The save_state stacks are not part of it: they are
 * empty between external steps, the only time an importer can get a state.
 *
 * Body, in this order, native byte order: time, last successful time (double); phase, G
 * pending (uint32 each); per inner its last time (double); per Real input its derivative
 * (double); per Real input whether it is set (byte); the is_set marks (one byte per external
 * value reference of each type); the Storage's bytes.
 *
 * Serialized: a 48-byte header, the body, then per inner its serialized size (uint64) and
 * bytes.  Header: "SACCWRAP", format version (uint32), number of inners (uint32), hash of
 * the GUID (uint64), Storage size (uint64), body size (uint64), FNV-1a checksum of
 * everything after the header (uint64).  Native byte order: a serialized state is read back
 * by the same FMU binary, on the same platform. */
#define SER_MAGIC "SACCWRAP"
#define SER_VERSION 1u
#define SER_HEADER 48

typedef struct WrapState {
	uint64_t magic;
	const SartWrapper *owner; /* inner states belong to the instance that made them */
	unsigned char *body;
	void **inner;
} WrapState;

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

#define FNV_BASIS 14695981039346656037u

static uint64_t guid_hash(void)
{
	return fnv(FNV_BASIS, (const unsigned char *)sart_model.guid, strlen(sart_model.guid));
}

static size_t body_size(const SartWrapper *w)
{
	return 2 * sizeof(double) + 2 * sizeof(uint32_t) + sart_model.ninners * sizeof(double) +
	       sart_model.nreal_inputs * (sizeof(double) + 1) + w->is_set_off[SART_NTYPES] +
	       sart_model.storage_size;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	if (n)
		memcpy(p, v, n);
	return p + n;
}

static const unsigned char *take(const unsigned char *p, void *v, size_t n)
{
	if (n)
		memcpy(v, p, n);
	return p + n;
}

static void body_write(const SartWrapper *w, unsigned char *p)
{
	uint32_t phase = (uint32_t)w->phase, g = (uint32_t)(w->g_dirty || w->g_valid);
	p = put(p, &w->time, sizeof w->time);
	p = put(p, &w->last_ok, sizeof w->last_ok);
	p = put(p, &phase, sizeof phase);
	p = put(p, &g, sizeof g);
	p = put(p, w->last, sart_model.ninners * sizeof *w->last);
	p = put(p, w->du, sart_model.nreal_inputs * sizeof *w->du);
	p = put(p, w->du_set, sart_model.nreal_inputs);
	p = put(p, w->is_set, w->is_set_off[SART_NTYPES]);
	put(p, w->storage, sart_model.storage_size);
}

static uint32_t body_phase(const unsigned char *body)
{
	uint32_t phase;
	memcpy(&phase, body + 2 * sizeof(double), sizeof phase);
	return phase;
}

/* States are grouped by what the inner FMUs' own state machines allow after a set. */
static unsigned phase_class(uint32_t p)
{
	switch (p) {
	case SART_PHASE_INSTANTIATED: return 1;
	case SART_PHASE_INIT: return 2;
	case SART_PHASE_STEP:
	case SART_PHASE_STEP_FAILED: return 3;
	case SART_PHASE_TERMINATED: return 4;
	case SART_PHASE_ERROR: return 5;
	default: return 0;
	}
}

static void body_read(SartWrapper *w, const unsigned char *p)
{
	uint32_t phase, g;
	p = take(p, &w->time, sizeof w->time);
	p = take(p, &w->last_ok, sizeof w->last_ok);
	p = take(p, &phase, sizeof phase);
	p = take(p, &g, sizeof g);
	p = take(p, w->last, sart_model.ninners * sizeof *w->last);
	p = take(p, w->du, sart_model.nreal_inputs * sizeof *w->du);
	p = take(p, w->du_set, sart_model.nreal_inputs);
	w->du_pending = 1; /* as restored: apply_derivatives looks at each flag */
	p = take(p, w->is_set, w->is_set_off[SART_NTYPES]);
	take(p, w->storage, sart_model.storage_size);
	w->g_dirty = sart_model.mealy && g;
	w->g_valid = 0;
	if (phase == SART_PHASE_STEP_FAILED)
		phase = SART_PHASE_STEP;
	sart_set_phase(w, (SartPhase)phase);
}

static void state_free(SartWrapper *w, WrapState *ws)
{
	if (!ws)
		return;
	if (ws->inner)
		for (unsigned f = 0; f < sart_model.ninners; f++)
			if (ws->inner[f])
				sart_inner_free_state(w->inner[f], &ws->inner[f]);
	ws->magic = 0;
	free(ws->inner);
	free(ws->body);
	free(ws);
}

static WrapState *state_new(SartWrapper *w)
{
	WrapState *ws = calloc(1, sizeof *ws);
	if (!ws)
		return NULL;
	ws->magic = STATE_MAGIC;
	ws->owner = w;
	ws->body = malloc(body_size(w));
	ws->inner = calloc(sart_model.ninners ? sart_model.ninners : 1, sizeof *ws->inner);
	if (!ws->body || !ws->inner) {
		state_free(w, ws);
		return NULL;
	}
	return ws;
}

/* Whether p is a state this instance made; logs why not. */
static WrapState *own_state(SartWrapper *w, const char *fn, void *p)
{
	WrapState *ws = p;
	if (!ws || ws->magic != STATE_MAGIC) {
		sart_wlog(w, SART_ERROR, "%s: not a state of %s", fn, sart_model.identifier);
		return NULL;
	}
	if (ws->owner != w) {
		sart_wlog(w, SART_ERROR, "%s: the state belongs to another instance", fn);
		return NULL;
	}
	return ws;
}

SartStatus sart_core_get_state(SartWrapper *w, void **FMUstate, const SartCall *call)
{
	const char *fn = call->name;
	WrapState *ws = NULL, *made = NULL;
	SartStatus result = SART_ERROR;
	if (!FMUstate) {
		sart_wlog(w, SART_ERROR, "%s: FMUstate is NULL", fn);
		return SART_ERROR;
	}
	if (*FMUstate) {
		ws = own_state(w, fn, *FMUstate);
		if (!ws)
			return SART_ERROR;
	} else {
		ws = made = state_new(w);
		if (!ws) {
			sart_wlog(w, SART_ERROR, "%s: out of memory", fn);
			return SART_ERROR;
		}
	}
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_get_state(w->inner[f], &ws->inner[f]);
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: cannot get the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			goto done;
		}
	}
	body_write(w, ws->body);
	*FMUstate = ws;
	made = NULL;
	result = SART_OK;
done:
	state_free(w, made);
	return result;
}

/* Takes every inner from Instantiated through initialization to stepping, with the
 * experiment the importer gave (or the defaults). */
static SartStatus inners_through_init(SartWrapper *w, const char *fn)
{
	SartStatus st = SART_OK;
	for (unsigned f = 0; f < sart_model.ninners && st < SART_ERROR; f++) {
		SartStatus s = sart_inner_enter_init(w->inner[f], &w->ex);
		if (s < SART_ERROR) {
			SartStatus e = sart_inner_exit_init(w->inner[f]);
			s = e > s ? e : s;
		}
		if (s >= SART_ERROR)
			sart_wlog(w, s, "%s: inner FMU '%s' cannot be initialized to take the state: %s",
			          fn, sart_model.inners[f].name, sart_inner_message(w->inner[f]));
		st = s > st ? s : st;
	}
	return st;
}

SartStatus sart_core_set_state(SartWrapper *w, void *FMUstate, const SartCall *call)
{
	const char *fn = call->name;
	WrapState *ws = own_state(w, fn, FMUstate);
	if (!ws)
		return SART_ERROR;
	uint32_t phase = body_phase(ws->body);
	if (w->phase == SART_PHASE_INSTANTIATED && phase_class(phase) == 3) {
		/* A state of a stepping instance restored into a fresh one, as an importer
		 * starting from a saved state does (instantiate, set the state, step): the
		 * inners first go through initialization, so that their own state machines
		 * take the states of stepping instances. */
		SartStatus st = inners_through_init(w, fn);
		if (st >= SART_ERROR)
			return sart_settle(w, st);
	} else if (phase_class(phase) != phase_class(w->phase)) {
		sart_wlog(w, SART_ERROR, "%s: the state was taken in state %s and cannot be set in state %s",
		          fn, w->host.skin->phase_name((SartPhase)phase),
		          w->host.skin->phase_name(w->phase));
		return SART_ERROR;
	}
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_set_state(w->inner[f], ws->inner[f]);
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: cannot set the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return sart_settle(w, st);
		}
	}
	body_read(w, ws->body);
	sart_clear_stacks(w);
	return SART_OK;
}

SartStatus sart_core_free_state(SartWrapper *w, void **FMUstate, const SartCall *call)
{
	if (!FMUstate || !*FMUstate)
		return SART_OK;
	if (((const WrapState *)FMUstate)->magic == STATE_MAGIC) {
		/* The state itself where FMI passes a pointer to it (an importer's slip seen in
		 * the wild): recognised by the magic of its first word, freed, and said, rather
		 * than read through as a pointer. */
		WrapState *given = (WrapState *)(void *)FMUstate;
		if (given->owner == w) {
			sart_wlog(w, SART_WARNING, "%s: given the state itself, not a pointer to it; "
			          "freed all the same", call->name);
			state_free(w, given);
			return SART_OK; /* freed as asked: importers stop at anything but OK */
		}
	}
	WrapState *ws = own_state(w, call->name, *FMUstate);
	if (!ws)
		return SART_ERROR;
	state_free(w, ws);
	*FMUstate = NULL;
	return SART_OK;
}

/* The serialized size of ws, asking each inner for its part. */
static SartStatus serialized_size(SartWrapper *w, const char *fn, WrapState *ws, size_t *size)
{
	size_t total = SER_HEADER + body_size(w);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		size_t n = 0;
		SartStatus st = sart_inner_serialized_size(w->inner[f], ws->inner[f], &n);
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: cannot size the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return st;
		}
		total += sizeof(uint64_t) + n;
	}
	*size = total;
	return SART_OK;
}

SartStatus sart_core_serialized_size(SartWrapper *w, void *FMUstate, size_t *size,
                                     const SartCall *call)
{
	const char *fn = call->name;
	WrapState *ws = own_state(w, fn, FMUstate);
	if (!ws)
		return SART_ERROR;
	if (!size) {
		sart_wlog(w, SART_ERROR, "%s: size is NULL", fn);
		return SART_ERROR;
	}
	return serialized_size(w, fn, ws, size);
}

SartStatus sart_core_serialize(SartWrapper *w, void *FMUstate, unsigned char *serializedState,
                               size_t size, const SartCall *call)
{
	const char *fn = call->name;
	size_t need = 0;
	WrapState *ws = own_state(w, fn, FMUstate);
	if (!ws)
		return SART_ERROR;
	SartStatus st = serialized_size(w, fn, ws, &need);
	if (st >= SART_ERROR)
		return st;
	if (!serializedState || size < need) {
		sart_wlog(w, SART_ERROR, "%s: the buffer holds %lu bytes, %lu needed", fn,
		     (unsigned long)size, (unsigned long)need);
		return SART_ERROR;
	}
	unsigned char *b = serializedState;
	unsigned char *p = b + SER_HEADER;
	size_t bsize = body_size(w);
	memcpy(p, ws->body, bsize);
	p += bsize;
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		size_t n = 0;
		st = sart_inner_serialized_size(w->inner[f], ws->inner[f], &n);
		if (st < SART_ERROR && (size_t)(b + need - p) < sizeof(uint64_t) + n)
			st = SART_ERROR; /* the inner changed its mind about its size */
		if (st < SART_ERROR) {
			uint64_t n64 = n;
			p = put(p, &n64, sizeof n64);
			st = sart_inner_serialize(w->inner[f], ws->inner[f], p, n);
			p += n;
		}
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: cannot serialize the state of inner FMU '%s': %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return st;
		}
	}
	uint32_t version = SER_VERSION, ninners = sart_model.ninners;
	uint64_t hash = guid_hash(), ssize = sart_model.storage_size, bs = bsize;
	uint64_t sum = fnv(FNV_BASIS, b + SER_HEADER, need - SER_HEADER);
	p = put(b, SER_MAGIC, 8);
	p = put(p, &version, sizeof version);
	p = put(p, &ninners, sizeof ninners);
	p = put(p, &hash, sizeof hash);
	p = put(p, &ssize, sizeof ssize);
	p = put(p, &bs, sizeof bs);
	put(p, &sum, sizeof sum);
	return SART_OK;
}

SartStatus sart_core_deserialize(SartWrapper *w, const unsigned char *serializedState,
                                 size_t size, void **FMUstate, const SartCall *call)
{
	const char *fn = call->name;
	WrapState *ws = NULL, *old = NULL;
	SartStatus result = SART_ERROR;
	if (!FMUstate) {
		sart_wlog(w, SART_ERROR, "%s: FMUstate is NULL", fn);
		return SART_ERROR;
	}
	if (*FMUstate) {
		old = own_state(w, fn, *FMUstate);
		if (!old)
			return SART_ERROR;
	}
	const unsigned char *b = serializedState;
	if (!b || size < SER_HEADER || memcmp(b, SER_MAGIC, 8) != 0) {
		sart_wlog(w, SART_ERROR, "%s: the %lu bytes given are not a serialized state of a sacc "
		     "wrapper", fn, (unsigned long)size);
		return SART_ERROR;
	}
	uint32_t version, ninners;
	uint64_t hash, ssize, bs, sum;
	const unsigned char *p = b + 8;
	p = take(p, &version, sizeof version);
	p = take(p, &ninners, sizeof ninners);
	p = take(p, &hash, sizeof hash);
	p = take(p, &ssize, sizeof ssize);
	p = take(p, &bs, sizeof bs);
	p = take(p, &sum, sizeof sum);
	if (version != SER_VERSION) {
		sart_wlog(w, SART_ERROR, "%s: format version %u, this FMU reads version %u", fn,
		     (unsigned)version, SER_VERSION);
		return SART_ERROR;
	}
	if (hash != guid_hash() || ninners != sart_model.ninners ||
	    ssize != sart_model.storage_size || bs != body_size(w)) {
		sart_wlog(w, SART_ERROR, "%s: the state belongs to another FMU (GUID, inner FMUs or "
		     "storage differ from %s's)", fn, sart_model.identifier);
		return SART_ERROR;
	}
	if (size - SER_HEADER < bs) {
		sart_wlog(w, SART_ERROR, "%s: the state is truncated (%lu bytes)", fn, (unsigned long)size);
		return SART_ERROR;
	}
	if (fnv(FNV_BASIS, b + SER_HEADER, size - SER_HEADER) != sum) {
		sart_wlog(w, SART_ERROR, "%s: the state's checksum does not match: corrupted, truncated "
		     "or extended", fn);
		return SART_ERROR;
	}
	if (!phase_class(body_phase(p))) {
		sart_wlog(w, SART_ERROR, "%s: the state records no valid FMI state", fn);
		return SART_ERROR;
	}
	ws = state_new(w);
	if (!ws) {
		sart_wlog(w, SART_ERROR, "%s: out of memory", fn);
		return SART_ERROR;
	}
	memcpy(ws->body, p, bs);
	p += bs;
	const unsigned char *end = b + size;
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		uint64_t n64;
		if ((size_t)(end - p) < sizeof n64) {
			sart_wlog(w, SART_ERROR, "%s: the state is truncated before inner FMU '%s'", fn,
			     sart_model.inners[f].name);
			goto done;
		}
		p = take(p, &n64, sizeof n64);
		if (n64 > (uint64_t)(end - p)) {
			sart_wlog(w, SART_ERROR, "%s: the state of inner FMU '%s' is truncated", fn,
			     sart_model.inners[f].name);
			goto done;
		}
		SartStatus st = sart_inner_deserialize(w->inner[f], p, (size_t)n64, &ws->inner[f]);
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: inner FMU '%s' rejects its part of the state: %s", fn,
			     sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			goto done;
		}
		p += n64;
	}
	if (p != end) {
		sart_wlog(w, SART_ERROR, "%s: %lu bytes of trailing data", fn, (unsigned long)(end - p));
		goto done;
	}
	state_free(w, old);
	*FMUstate = ws;
	ws = NULL;
	result = SART_OK;
done:
	state_free(w, ws);
	return result;
}
