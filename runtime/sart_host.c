/* sart_host.c — the FMU host program (sart_isolate.h): the child side of an isolated inner
 * FMU.  It loads the FMU through the ordinary seam (whatever back end its FMI version
 * picks) and serves the parent's requests from the shared slot (sart_channel.h) one at a
 * time: a request is checked (operation, counts and lengths within the slot), carried out
 * on the seam, and answered with the status, the values and every message of the call.
 * States stay here; the parent holds their numbers.
 *
 * The same file makes the Windows host (sacc-fmu-host.exe, run under Wine for an FMU that
 * ships Windows binaries only): only how it starts differs, at the end of the file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* prctl */
#endif

#include "sart_channel.h"
#include "sart_isolate.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#ifdef SART_LINUX
#include <sys/prctl.h>
#endif
#endif

typedef struct Host {
	SartChan ch;
	SartInner *in;
	void **states; /* by id - 1; NULL where freed */
	size_t nstates;
	size_t log_used;
	uint32_t log_dropped;
	int reported; /* the call's outcome was recorded as a report */
	char name[128];
	SartVrType *vr_types; /* the load's FMI 3.0 types, names copied behind them */
	SartVrElement *elements; /* the load's array elements */
	SartVr *me_vrs; /* a Model Exchange inner's state and derivative value references */
	SartClock *clocks; /* the load's clocks (an inner with clocks) */
} Host;

/* Appends one message to the call's log area; a full area drops it and counts. */
static void put_record(Host *ho, SartStatus st, int report, const char *cat, const char *text)
{
	size_t cl = strlen(cat) + 1, tl = strlen(text) + 1;
	size_t need = sizeof(SartLogRecord) + cl + tl;
	need = (need + 7) & ~(size_t)7;
	if (ho->log_used + need > SART_CHAN_LOG_BYTES) {
		ho->log_dropped++;
		return;
	}
	unsigned char *p = sart_chan_log(&ho->ch) + ho->log_used;
	SartLogRecord r = {(uint32_t)st, (uint32_t)report, (uint32_t)cl, (uint32_t)tl};
	memcpy(p, &r, sizeof r);
	memcpy(p + sizeof r, cat, cl);
	memcpy(p + sizeof r + cl, text, tl);
	ho->log_used += need;
	if (report)
		ho->reported = 1;
}

/* The seam's logger: its own reports (written from the instance's message buffer) are
 * marked, so that the parent reports them as its own outcome. */
static void host_log(void *env, SartStatus st, const char *category, const char *message)
{
	Host *ho = env;
	int report = ho->in ? message == sart_inner_message(ho->in) : st >= SART_WARNING;
	put_record(ho, st, report, category ? category : "", message ? message : "");
}

static SartStatus host_fail(Host *ho, SartStatus st, const char *fmt, ...)
{
	char text[1024];
	int n = snprintf(text, sizeof text, "[%s] ", ho->name[0] ? ho->name : "sacc-fmu-host");
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof text)
		vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
	va_end(ap);
	put_record(ho, st, 1, "logStatusError", text);
	return st;
}

/* The request's NUL-ended string at *off within len bytes of data; NULL if none. */
static const char *take_string(const unsigned char *data, size_t len, size_t *off)
{
	if (*off >= len)
		return NULL;
	const unsigned char *end = memchr(data + *off, '\0', len - *off);
	if (!end)
		return NULL;
	const char *s = (const char *)data + *off;
	*off = (size_t)(end - data) + 1;
	return s;
}

/* The intermediate inputs after an instantiate's guid (from off), handed to the seam
 * before it instantiates: none when the request ends with the guid. */
static SartStatus take_intermediate_inputs(Host *ho, const SartChanHeader *rq, size_t off)
{
	const unsigned char *data = sart_chan_data(&ho->ch);
	size_t len = rq->req_len > ho->ch.data_cap ? 0 : rq->req_len;
	uint32_t n;
	if (off >= len)
		return SART_OK;
	if (len - off < sizeof n)
		return host_fail(ho, SART_ERROR, "malformed request: instantiate's intermediate "
		                 "inputs cut short");
	memcpy(&n, data + off, sizeof n);
	if ((len - off) / sizeof n - 1 < n)
		return host_fail(ho, SART_ERROR, "malformed request: instantiate names %u "
		                 "intermediate inputs in %zu bytes", (unsigned)n, len - off);
	SartVr *vrs = malloc(((size_t)n + 1) * sizeof *vrs);
	if (!vrs)
		return host_fail(ho, SART_ERROR, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t vr;
		memcpy(&vr, data + off + sizeof n * (1 + (size_t)i), sizeof vr);
		vrs[i] = vr;
	}
	SartStatus st = sart_inner_set_intermediate_inputs(ho->in, vrs, n);
	free(vrs);
	return st;
}

/* A table of the load at off (sart_channel.h: a uint64 count at an 8-aligned offset, then
 * count records of elem bytes at the next): its count, where its records start and where
 * it ends.  Returns 0, or -1 when it runs past len. */
static int take_table(const unsigned char *data, size_t len, size_t off, size_t elem,
                      size_t *count, size_t *records, size_t *end)
{
	size_t table = sart_chan_span(off, 1, sizeof(uint64_t));
	uint64_t n;
	if (!table || table > len)
		return -1;
	memcpy(&n, data + sart_chan_span(off, 0, 1), sizeof n);
	size_t e = n <= len ? sart_chan_span(table, (size_t)n, elem) : 0;
	if (!e || e > len)
		return -1;
	*count = (size_t)n;
	*records = sart_chan_span(table, 0, 1);
	*end = e;
	return 0;
}

/* The FMI 3.0 types after the load's strings (from off): into ho->vr_types, one block
 * holding the table and the names (the slot is overwritten by later requests).  Returns
 * the count, or -1 on a malformed table. */
static long take_types(Host *ho, const unsigned char *data, size_t len, size_t off,
                       size_t *after)
{
	size_t n, pairs, end;
	free(ho->vr_types);
	ho->vr_types = NULL;
	if (take_table(data, len, off, 2 * sizeof(uint32_t), &n, &pairs, &end))
		return -1;
	size_t names = end, name_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		size_t at = names;
		if (!take_string(data, len, &names))
			return -1;
		name_bytes += names - at;
	}
	ho->vr_types = malloc(n * sizeof *ho->vr_types + name_bytes + 1);
	if (!ho->vr_types)
		return -1;
	char *copy = (char *)(ho->vr_types + n);
	memcpy(copy, data + end, name_bytes);
	for (size_t i = 0; i < n; i++) {
		uint32_t pair[2];
		memcpy(pair, data + pairs + i * sizeof pair, sizeof pair);
		if (pair[1] > SART_VT_UINT64)
			return -1;
		ho->vr_types[i] = (SartVrType){pair[0], (SartValueType)pair[1], copy};
		copy += strlen(copy) + 1;
	}
	*after = names;
	return (long)n;
}

/* The array elements after the types (from off): into ho->elements.  Returns the count,
 * or -1 on a malformed table. */
static long take_elements(Host *ho, const unsigned char *data, size_t len, size_t off,
                          size_t *after)
{
	size_t count, records, end;
	free(ho->elements);
	ho->elements = NULL;
	if (take_table(data, len, off, SART_CHAN_ELEMENT_BYTES, &count, &records, &end))
		return -1;
	ho->elements = malloc(count * sizeof *ho->elements + 1);
	if (!ho->elements)
		return -1;
	const unsigned char *p = data + records;
	for (size_t i = 0; i < count; i++, p += SART_CHAN_ELEMENT_BYTES) {
		uint32_t w[4];
		double start;
		memcpy(w, p, sizeof w);
		memcpy(&start, p + sizeof w, sizeof start);
		ho->elements[i] = (SartVrElement){w[0], w[1], w[2], w[3], start, NULL, 0};
	}
	/* the String and Binary start values point into the request, which the load copies */
	for (size_t i = 0; i < count; i++) {
		const unsigned char *bytes;
		size_t size;
		if (sart_chan_take_bytes(data, len, &end, &bytes, &size))
			return -1;
		ho->elements[i].start_data = bytes;
		ho->elements[i].start_size = size;
	}
	*after = end;
	return (long)count;
}

/* A Model Exchange inner's settings after the elements (from off; sart_channel.h,
 * SART_CHAN_ME_BYTES) into *me, its value references into ho->me_vrs; *after is where the
 * block ends.  Returns 0, or -1 on a malformed block. */
static int take_me(Host *ho, const unsigned char *data, size_t len, size_t off,
                   SartMeConfig *me, size_t *after)
{
	size_t fixed = sart_chan_span(off, 1, SART_CHAN_ME_BYTES);
	int64_t method;
	double d[3];
	uint64_t u[4];
	free(ho->me_vrs);
	ho->me_vrs = NULL;
	if (!fixed || fixed > len)
		return -1;
	const unsigned char *p = data + sart_chan_span(off, 0, 1);
	memcpy(&method, p, sizeof method);
	memcpy(d, p + 8, sizeof d);
	memcpy(u, p + 32, sizeof u);
	/* the value references: 2 u[2] + u[3], each count at most len, so no sum overflows */
	size_t nw = u[2] <= len && u[3] <= len ? 2 * (size_t)u[2] + (size_t)u[3] : 0;
	size_t end = u[2] <= len && u[3] <= len ? sart_chan_span(fixed, nw, sizeof(uint32_t)) : 0;
	/* the seam refuses more states or indicators than this itself, with a message */
	const uint64_t most = (uint64_t)1 << 24;
	if (!end || end > len || method < INT_MIN || method > INT_MAX || u[0] > most ||
	    u[1] > most || (u[2] && u[2] != u[0]))
		return -1;
	*me = (SartMeConfig){(int)method, d[0], d[1], d[2], (size_t)u[0], (size_t)u[1], NULL,
	                     NULL, NULL, 0};
	if (nw) {
		ho->me_vrs = malloc(nw * sizeof *ho->me_vrs);
		if (!ho->me_vrs)
			return -1;
		memcpy(ho->me_vrs, data + sart_chan_span(fixed, 0, 1), nw * sizeof *ho->me_vrs);
	}
	if (u[2]) {
		me->state_vrs = ho->me_vrs;
		me->derivative_vrs = ho->me_vrs + u[2];
	}
	if (u[3]) {
		me->event_vrs = ho->me_vrs + 2 * u[2];
		me->nevent_vrs = (size_t)u[3];
	}
	*after = end;
	return 0;
}

/* An inner's clocks after the Model Exchange settings, or the elements (from off;
 * sart_channel.h, SART_CHAN_CLOCK_BYTES) into *se, the table into ho->clocks.  Returns 0,
 * or -1 on a malformed table (a kind that is none; the seam checks the rest, with a
 * message). */
static int take_se(Host *ho, const unsigned char *data, size_t len, size_t off,
                   SartSeConfig *se)
{
	size_t count, records, end;
	free(ho->clocks);
	ho->clocks = NULL;
	if (take_table(data, len, off, SART_CHAN_CLOCK_BYTES, &count, &records, &end))
		return -1;
	ho->clocks = malloc(count * sizeof *ho->clocks + 1);
	if (!ho->clocks)
		return -1;
	const unsigned char *p = data + records;
	for (size_t i = 0; i < count; i++, p += SART_CHAN_CLOCK_BYTES) {
		uint32_t w[4];
		double d[2];
		memcpy(w, p, sizeof w);
		memcpy(d, p + sizeof w, sizeof d);
		if (w[1] > SART_CLOCK_OUTPUT)
			return -1;
		ho->clocks[i] = (SartClock){w[0], (SartClockKind)w[1], d[0], d[1], w[2]};
	}
	*se = (SartSeConfig){ho->clocks, count};
	return 0;
}

static SartStatus do_load(Host *ho, const SartChanHeader *rq)
{
	const unsigned char *data = sart_chan_data(&ho->ch);
	size_t off = 0, len = rq->req_len > ho->ch.data_cap ? 0 : (size_t)rq->req_len;
	const char *name = take_string(data, len, &off);
	const char *dir = take_string(data, len, &off);
	const char *id = take_string(data, len, &off);
	if (ho->in)
		return host_fail(ho, SART_ERROR, "malformed request: the FMU is already loaded");
	if (!name || !dir || !id)
		return host_fail(ho, SART_ERROR, "malformed request: load without name, directory "
		                 "and model identifier");
	snprintf(ho->name, sizeof ho->name, "%s", name);
	size_t after = 0, after_elements = 0;
	long ntypes = take_types(ho, data, len, off, &after);
	long nelements = ntypes < 0 ? -1 : take_elements(ho, data, len, after, &after_elements);
	if (ntypes < 0 || nelements < 0)
		return host_fail(ho, SART_ERROR, "malformed request: load with a bad table of FMI 3.0 "
		                 "types or array elements");
	SartMeConfig me = {0, 0, 0, 0, 0, 0, NULL, NULL, NULL, 0};
	size_t after_me = after_elements;
	if ((rq->id & SART_CAP_MODEL_EXCHANGE) &&
	    take_me(ho, data, len, after_elements, &me, &after_me))
		return host_fail(ho, SART_ERROR, "malformed request: load with bad Model Exchange "
		                 "settings");
	SartSeConfig se = {NULL, 0};
	if ((rq->id & (SART_CAP_SCHEDULED_EXECUTION | SART_CAP_CLOCKS)) &&
	    take_se(ho, data, len, after_me, &se))
		return host_fail(ho, SART_ERROR, "malformed request: load with a bad table of "
		                 "clocks");
	SartInnerConfig cfg = {name, dir, id, (SartFmiVersion)rq->n, (unsigned)rq->id, host_log,
	                       ho, ho->vr_types, (size_t)ntypes, ho->elements, (size_t)nelements,
	                       me, se};
	return sart_inner_load(&cfg, &ho->in);
}

/* Element size of the values an operation carries (0 for strings). */
static size_t value_size(uint32_t op)
{
	switch (op) {
	case SART_OP_GET_REAL:
	case SART_OP_SET_REAL:
	case SART_OP_SET_INPUT_DERIVATIVES:
	case SART_OP_GET_OUTPUT_DERIVATIVES: return sizeof(double);
	default: return sizeof(int);
	}
}

static SartStatus get_strings(Host *ho, const SartVr *vr, size_t n, SartChanHeader *rq)
{
	const char **v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return host_fail(ho, SART_ERROR, "getString: out of memory");
	SartStatus st = sart_inner_get_string(ho->in, vr, n, v);
	unsigned char *data = sart_chan_data(&ho->ch);
	size_t off = 0;
	/* the answer overwrites the value references, which the seam no longer needs */
	for (size_t i = 0; st <= SART_WARNING && i < n; i++) {
		const char *s = v[i] ? v[i] : "";
		size_t len = strlen(s) + 1;
		if (len + 1 > ho->ch.data_cap - off) {
			st = host_fail(ho, SART_ERROR, "getString: the strings do not fit in the shared "
			               "memory (%zu bytes)", ho->ch.data_cap);
			break;
		}
		data[off++] = v[i] != NULL;
		memcpy(data + off, s, len);
		off += len;
	}
	rq->ans_len = off;
	free(v);
	return st;
}

static SartStatus set_strings(Host *ho, const SartVr *vr, size_t n, const SartChanHeader *rq,
                              size_t off)
{
	const unsigned char *data = sart_chan_data(&ho->ch);
	const char **v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return host_fail(ho, SART_ERROR, "setString: out of memory");
	for (size_t i = 0; i < n; i++) {
		int present = off < rq->req_len && data[off];
		off++;
		const char *s = take_string(data, rq->req_len, &off);
		if (!s) {
			free(v);
			return host_fail(ho, SART_ERROR, "malformed request: setString value %zu", i + 1);
		}
		v[i] = present ? s : NULL;
	}
	SartStatus st = sart_inner_set_string(ho->in, vr, n, (const char *const *)v);
	free(v);
	return st;
}

static SartStatus get_binaries(Host *ho, const SartVr *vr, size_t n, SartChanHeader *rq)
{
	const unsigned char **v = calloc(n ? n : 1, sizeof *v);
	size_t *sizes = calloc(n ? n : 1, sizeof *sizes);
	SartStatus st = v && sizes ? sart_inner_get_binary(ho->in, vr, n, v, sizes)
	                           : host_fail(ho, SART_ERROR, "getBinary: out of memory");
	size_t off = 0;
	/* the answer overwrites the value references, which the seam no longer needs */
	for (size_t i = 0; st <= SART_WARNING && i < n; i++)
		if (sart_chan_put_bytes(sart_chan_data(&ho->ch), ho->ch.data_cap, &off, v[i],
		                        sizes[i]))
			st = host_fail(ho, SART_ERROR, "getBinary: the values do not fit in the shared "
			               "memory (%zu bytes)", ho->ch.data_cap);
	rq->ans_len = off;
	free(v);
	free(sizes);
	return st;
}

static SartStatus set_binaries(Host *ho, const SartVr *vr, size_t n, const SartChanHeader *rq,
                               size_t off)
{
	const unsigned char **v = calloc(n ? n : 1, sizeof *v);
	size_t *sizes = calloc(n ? n : 1, sizeof *sizes);
	SartStatus st = v && sizes ? SART_OK : host_fail(ho, SART_ERROR, "setBinary: out of memory");
	for (size_t i = 0; st == SART_OK && i < n; i++)
		if (sart_chan_take_bytes(sart_chan_data(&ho->ch), (size_t)rq->req_len, &off, &v[i],
		                         &sizes[i]))
			st = host_fail(ho, SART_ERROR, "malformed request: setBinary value %zu", i + 1);
	if (st == SART_OK)
		st = sart_inner_set_binary(ho->in, vr, n, v, sizes);
	free(v);
	free(sizes);
	return st;
}

/* The value calls: value references first, then orders (derivatives), then values. */
static SartStatus do_values(Host *ho, SartChanHeader *rq)
{
	uint32_t op = rq->op;
	size_t n = (size_t)rq->n, cap = ho->ch.data_cap;
	int orders = op == SART_OP_SET_INPUT_DERIVATIVES || op == SART_OP_GET_OUTPUT_DERIVATIVES;
	size_t vr_end = sart_chan_span(0, n, sizeof(SartVr));
	size_t ord_end = orders ? sart_chan_span(vr_end, n, sizeof(int)) : vr_end;
	size_t val_end = sart_chan_span(ord_end, n, value_size(op));
	if (rq->n > cap || !vr_end || !ord_end || !val_end || val_end > cap ||
	    (op != SART_OP_SET_STRING && op != SART_OP_SET_BINARY && rq->req_len > cap))
		return host_fail(ho, SART_ERROR, "malformed request: %llu values do not fit in the "
		                 "shared memory", (unsigned long long)rq->n);
	unsigned char *data = sart_chan_data(&ho->ch);
	const SartVr *vr = (const SartVr *)data;
	const int *order = (const int *)(data + sart_chan_span(vr_end, 0, 1));
	void *val = data + sart_chan_span(ord_end, 0, 1);
	rq->ans_len = val_end;
	switch (op) {
	case SART_OP_GET_REAL: return sart_inner_get_real(ho->in, vr, n, val);
	case SART_OP_GET_INTEGER: return sart_inner_get_integer(ho->in, vr, n, val);
	case SART_OP_GET_BOOLEAN: return sart_inner_get_boolean(ho->in, vr, n, val);
	case SART_OP_SET_REAL: return sart_inner_set_real(ho->in, vr, n, val);
	case SART_OP_SET_INTEGER: return sart_inner_set_integer(ho->in, vr, n, val);
	case SART_OP_SET_BOOLEAN: return sart_inner_set_boolean(ho->in, vr, n, val);
	case SART_OP_GET_STRING: return get_strings(ho, vr, n, rq);
	case SART_OP_SET_STRING:
		if (rq->req_len > cap)
			return host_fail(ho, SART_ERROR, "malformed request: setString data too long");
		return set_strings(ho, vr, n, rq, vr_end);
	case SART_OP_GET_BINARY: return get_binaries(ho, vr, n, rq);
	case SART_OP_SET_BINARY:
		if (rq->req_len > cap)
			return host_fail(ho, SART_ERROR, "malformed request: setBinary data too long");
		return set_binaries(ho, vr, n, rq, vr_end);
	case SART_OP_SET_INPUT_DERIVATIVES:
		return sart_inner_set_real_input_derivatives(ho->in, vr, n, order, val);
	default: return sart_inner_get_real_output_derivatives(ho->in, vr, n, order, val);
	}
}

/* The state numbered id (1-based), or NULL. */
static void **state_slot(Host *ho, uint64_t id)
{
	if (id == 0 || id > ho->nstates || !ho->states[id - 1])
		return NULL;
	return &ho->states[id - 1];
}

/* A free slot's number for a new state, 0 when out of memory. */
static uint64_t new_slot(Host *ho)
{
	for (size_t i = 0; i < ho->nstates; i++)
		if (!ho->states[i])
			return i + 1;
	void **grown = realloc(ho->states, (ho->nstates + 1) * sizeof *grown);
	if (!grown)
		return 0;
	ho->states = grown;
	ho->states[ho->nstates++] = NULL;
	return ho->nstates;
}

static SartStatus do_states(Host *ho, SartChanHeader *rq)
{
	void **slot = NULL;
	if ((rq->op != SART_OP_GET_STATE && rq->op != SART_OP_DESERIALIZE) || rq->id) {
		slot = state_slot(ho, rq->id);
		if (!slot)
			return host_fail(ho, SART_ERROR, "malformed request: no state number %llu",
			                 (unsigned long long)rq->id);
	}
	unsigned char *data = sart_chan_data(&ho->ch);
	switch (rq->op) {
	case SART_OP_SET_STATE: return sart_inner_set_state(ho->in, *slot);
	case SART_OP_FREE_STATE: return sart_inner_free_state(ho->in, slot);
	case SART_OP_SERIALIZED_SIZE: {
		size_t size = 0;
		SartStatus st = sart_inner_serialized_size(ho->in, *slot, &size);
		rq->ans_n = size;
		return st;
	}
	case SART_OP_SERIALIZE:
		if (rq->n > ho->ch.data_cap)
			return host_fail(ho, SART_ERROR, "serialize: %llu bytes do not fit in the shared "
			                 "memory (%zu bytes)", (unsigned long long)rq->n, ho->ch.data_cap);
		rq->ans_len = rq->n;
		return sart_inner_serialize(ho->in, *slot, data, (size_t)rq->n);
	default: break;
	}
	/* get_state and deserialize: into the named state, or a new one */
	uint64_t id = rq->id ? rq->id : new_slot(ho);
	if (!id)
		return host_fail(ho, SART_ERROR, "out of memory for a state");
	if (rq->op == SART_OP_DESERIALIZE && rq->req_len > ho->ch.data_cap)
		return host_fail(ho, SART_ERROR, "malformed request: deserialize data too long");
	SartStatus st = rq->op == SART_OP_GET_STATE
	                        ? sart_inner_get_state(ho->in, &ho->states[id - 1])
	                        : sart_inner_deserialize(ho->in, data, (size_t)rq->req_len,
	                                                 &ho->states[id - 1]);
	rq->ans_id = ho->states[id - 1] ? id : 0;
	return st;
}

static SartStatus serve(Host *ho, SartChanHeader *rq)
{
	uint32_t op = rq->op;
	if (op == SART_OP_NONE || op >= SART_OP_COUNT)
		return host_fail(ho, SART_ERROR, "malformed request: unknown operation %u",
		                 (unsigned)op);
	if (op != SART_OP_LOAD && !ho->in)
		return host_fail(ho, SART_ERROR, "malformed request: operation %u before load",
		                 (unsigned)op);
	switch (op) {
	case SART_OP_LOAD: return do_load(ho, rq);
	case SART_OP_INSTANTIATE: {
		size_t off = 0;
		const char *guid = take_string(sart_chan_data(&ho->ch),
		                               rq->req_len > ho->ch.data_cap ? 0 : rq->req_len, &off);
		if (!guid)
			return host_fail(ho, SART_ERROR, "malformed request: instantiate without a guid");
		SartStatus st = take_intermediate_inputs(ho, rq, off);
		if (st != SART_OK)
			return st;
		return sart_inner_instantiate(ho->in, guid, (int)(rq->flags & 1));
	}
	case SART_OP_ENTER_INIT: {
		SartExperiment ex = {(int)(rq->flags & 1), rq->d[0], rq->d[1], (rq->flags & 2) != 0,
		                     rq->d[2]};
		return sart_inner_enter_init(ho->in, &ex);
	}
	case SART_OP_EXIT_INIT: return sart_inner_exit_init(ho->in);
	case SART_OP_DO_STEP: {
		double reached = NAN;
		SartStatus st = sart_inner_do_step(ho->in, rq->d[0], rq->d[1], (int)(rq->flags & 1),
		                                   &reached);
		rq->reached = reached;
		return st;
	}
	case SART_OP_TERMINATE: return sart_inner_terminate(ho->in);
	case SART_OP_RESET: return sart_inner_reset(ho->in);
	default: break;
	}
	if ((op >= SART_OP_GET_REAL && op <= SART_OP_GET_OUTPUT_DERIVATIVES) ||
	    op == SART_OP_GET_BINARY || op == SART_OP_SET_BINARY)
		return do_values(ho, rq);
	if (op >= SART_OP_GET_STATE && op <= SART_OP_DESERIALIZE)
		return do_states(ho, rq);
	return host_fail(ho, SART_ERROR, "malformed request: unknown operation %u", (unsigned)op);
}

/* Frees every state, the instance and the library (the seam skips what FMI forbids after
 * a fatal outcome). */
static void host_quit(Host *ho)
{
	for (size_t i = 0; i < ho->nstates; i++)
		if (ho->states[i])
			sart_inner_free_state(ho->in, &ho->states[i]);
	free(ho->states);
	ho->states = NULL;
	sart_inner_free(ho->in);
	ho->in = NULL;
	free(ho->vr_types);
	ho->vr_types = NULL;
	free(ho->elements);
	ho->elements = NULL;
	free(ho->me_vrs);
	ho->me_vrs = NULL;
	free(ho->clocks);
	ho->clocks = NULL;
}

static int parse_long(const char *s, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!s[0] || *end || v < 0)
		return 0;
	*out = v;
	return 1;
}

static int usage(int argc, char **argv)
{
	fprintf(stderr, "usage: %s sart-host %s PARENT_PID [SPIN_US]\n"
	        "(started by sacc for an FMU run out of process; not for use by hand)\n",
	        argc ? argv[0] : "sacc-fmu-host",
#ifdef _WIN32
	        "handle=SECTION|SHARED_FILE"
#else
	        "FD"
#endif
	);
	return 2;
}

#ifdef _WIN32
/* The parent's channel file, Z:\proc\<pid>\fd\<fd>: it is there while the parent lives. */
static DWORD WINAPI watch_parent_file(LPVOID path)
{
	while (GetFileAttributesA((const char *)path) != INVALID_FILE_ATTRIBUTES)
		Sleep(200);
	TerminateProcess(GetCurrentProcess(), 3);
	return 0;
}

/* A Windows parent's process, waited for (the job it put us in does the same where jobs
 * nest; this covers where they do not). */
static DWORD WINAPI watch_parent_process(LPVOID parent)
{
	WaitForSingleObject((HANDLE)parent, INFINITE);
	TerminateProcess(GetCurrentProcess(), 3);
	return 0;
}

/* An exception the FMU does not handle ends the process with its code, which the parent
 * reports ("access violation"), at once: no dialog, and no debugger (Wine starts winedbg,
 * whatever the error mode says) between the crash and the parent's error. */
static LONG WINAPI end_on_crash(EXCEPTION_POINTERS *e)
{
	TerminateProcess(GetCurrentProcess(), e->ExceptionRecord->ExceptionCode);
	return EXCEPTION_EXECUTE_HANDLER;
}

/* Which channel the parent gave: "handle=N", a section inherited from a Windows parent (a
 * win64 wrapper), or a path, a Linux parent's memfd through Wine's Z: drive.  No signal
 * tells of the parent's death while the FMU computes (the doorbell's end is seen only
 * between calls): a watchdog thread waits for the parent process, or looks for its
 * descriptor, and ends this process when the parent is gone. */
static int attach(Host *ho, int argc, char **argv, const char **why)
{
	long ppid;
	if (argc < 4 || strcmp(argv[1], "sart-host") != 0 || !parse_long(argv[3], &ppid))
		return usage(argc, argv);
	double spin = argc > 4 ? atof(argv[4]) : 50.0;
	/* no dialog waits for a person: not for a crash, nor a missing file or disk */
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
	SetUnhandledExceptionFilter(end_on_crash);
	LPTHREAD_START_ROUTINE watch = watch_parent_file;
	void *watched = argv[2];
	if (strncmp(argv[2], "handle=", 7) == 0) {
		char *end;
		unsigned long long handle = strtoull(argv[2] + 7, &end, 10);
		if (!argv[2][7] || *end)
			return usage(argc, argv);
		watched = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)ppid);
		if (!watched) {
			*why = "the parent process is gone";
			return 2;
		}
		watch = watch_parent_process;
		if (sart_chan_attach_handle(&ho->ch, handle, spin, why) != 0)
			return 2;
	} else if (sart_chan_attach_path(&ho->ch, argv[2], spin, why) != 0) {
		return 2;
	}
	HANDLE t = CreateThread(NULL, 0, watch, watched, 0, NULL);
	if (!t) {
		*why = "cannot start the watchdog thread";
		return 2;
	}
	CloseHandle(t);
	return 0;
}
#else
#ifndef SART_LINUX
/* Without a parent-death signal: a watchdog thread ends the process once it has been
 * handed to another parent (the parent, whose pid this is, is gone). */
static void *watch_parent(void *ppid)
{
	struct timespec nap = {0, 100000000L};
	while ((long)getppid() == *(const long *)ppid)
		nanosleep(&nap, NULL);
	_exit(3);
	return NULL;
}
#endif

static int attach(Host *ho, int argc, char **argv, const char **why)
{
	long fd, ppid;
	if (argc < 4 || strcmp(argv[1], "sart-host") != 0 || !parse_long(argv[2], &fd) ||
	    !parse_long(argv[3], &ppid) || fd > INT_MAX)
		return usage(argc, argv);
	/* die with the parent; a parent already gone would never be noticed */
#ifdef SART_LINUX
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#else
	/* the watchdog's own copy, kept for the process's life (it never returns) */
	long *watched = malloc(sizeof *watched);
	pthread_t t;
	if (!watched || (*watched = ppid, pthread_create(&t, NULL, watch_parent, watched)) != 0) {
		free(watched);
		*why = "cannot start the watchdog thread";
		return 2;
	}
	pthread_detach(t);
#endif
	if ((long)getppid() != ppid)
		return 2;
	/* a terminal's ^C goes to the parent, which stops the run and then frees us */
	setpgid(0, 0);
	double spin = argc > 4 ? atof(argv[4]) : 50.0;
	return sart_chan_attach(&ho->ch, (int)fd, spin, why) != 0 ? 2 : 0;
}
#endif

int sart_host_main(int argc, char **argv)
{
	Host ho;
	const char *why = NULL;
	memset(&ho, 0, sizeof ho);
	int rc = attach(&ho, argc, argv, &why);
	if (rc) {
		if (why)
			fprintf(stderr, "sacc-fmu-host: %s\n", why);
		return rc;
	}
	SartChanHeader *rq = ho.ch.h;
	uint32_t seq = 0;
	for (;;) {
		seq = sart_chan_next(&ho.ch, seq);
		if (seq == 0) {
			/* the parent is gone: nothing to answer, and no FMU call is worth waiting for */
			rc = 3;
			break;
		}
		uint32_t op = rq->op;
		ho.log_used = 0;
		ho.log_dropped = 0;
		ho.reported = 0;
		rq->ans_len = 0;
		rq->ans_n = 0;
		rq->ans_id = 0;
		rq->reached = NAN;
		SartStatus st = op == SART_OP_QUIT ? SART_OK : serve(&ho, rq);
		if (op == SART_OP_QUIT)
			host_quit(&ho);
		rq->ans_op = op;
		rq->status = (int32_t)st;
		rq->log_len = ho.log_used;
		rq->log_dropped = ho.log_dropped;
		rq->next_tick = sart_inner_next_clock_time(ho.in); /* +infinity without clocks */
		sart_chan_answer(&ho.ch, seq);
		if (op == SART_OP_QUIT)
			break;
	}
	sart_chan_close(&ho.ch);
	return rc;
}
