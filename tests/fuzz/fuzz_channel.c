/* fuzz_channel.c — libFuzzer entry point: the input as what an isolated inner FMU's host
 * child (sart_isolate.h) answers, through the parent's reading of those answers
 * (runtime/sart_inner_isolated.c over runtime/sart_channel.c): the frame (sequence,
 * operation, status), the log records, values, strings, binaries, states and their sizes,
 * the time a step reached, the next clock tick, and a child that died, hung or vanished.  A child that crashed
 * or was compromised may write anything in the shared slot; the parent must not crash,
 * over-read, over-allocate or leak, and must not call a child it has given up on.
 *
 * No child runs: the harness links the back end with the linker's --wrap (as cmocka mocks
 * a function) so that
 *   - fork() in the back end's spawn returns a process id that no process can have (above
 *     the kernel's limit: kill and waitpid on it fail harmlessly), and
 *   - sart_chan_call(), instead of waking a child and waiting, fills the slot's answer
 *     (header fields, log area, data area) from the input and returns at once, or says the
 *     child died (a wait status from the input), timed out or is gone.
 * Everything else is the product's: the real slot (a memfd of the input's choice of
 * size), sart_inner_load_isolated, and the sart_inner.h calls a wrapper and `sacc
 * simulate` make, in an order the input picks, each result used as a caller would (the
 * strings read, the binaries' bytes summed, a buffer of the serialized size allocated).
 *
 * Besides crashes, hangs and leaks, it aborts (so that libFuzzer keeps the input) when a
 * call's status is out of range, a step on success reached a time outside [t, t + h] (or
 * one that failed is not NaN), the next clock tick is NaN, a serialized size exceeds the
 * slot (it could never be carried), the back end calls the child after ending it, or calls
 * into the FMU after a call returned SART_FATAL.  tests/fuzz/run.sh builds and runs this. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sart_channel.h"
#include "sart_inner.h"
#include "sart_isolate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* above PID_MAX_LIMIT (2^22): no process has it */
#define FAKE_PID 0x7ffffff0L
#define MAX_N 40      /* values per call */
#define MAX_CALLS 48  /* calls per input */

static void fail(const char *why)
{
	fprintf(stderr, "fuzz_channel: %s\n", why);
	abort();
}

/* ---- the input, taken piece by piece (zeros once it runs out) ------------------------- */

static const uint8_t *in_p;
static size_t in_n;

static uint8_t take_u8(void)
{
	if (!in_n)
		return 0;
	in_n--;
	return *in_p++;
}

static void take_raw(void *dst, size_t n)
{
	size_t k = n < in_n ? n : in_n;
	memcpy(dst, in_p, k);
	memset((unsigned char *)dst + k, 0, n - k);
	in_p += k;
	in_n -= k;
}

static uint32_t take_u32(void)
{
	uint32_t v;
	take_raw(&v, sizeof v);
	return v;
}

static uint64_t take_u64(void)
{
	uint64_t v;
	take_raw(&v, sizeof v);
	return v;
}

/* A count: mostly small, sometimes anything. */
static uint64_t take_count(void)
{
	uint8_t b = take_u8();
	return b < 0xf0 ? b : b == 0xff ? take_u64() : take_u32();
}

/* ---- the child, faked ------------------------------------------------------------------ */

static int fork_armed;
/* a call returned SART_FATAL: FMI allows no further call into the FMU, only the quit */
static int given_up;

pid_t __real_fork(void);
pid_t __wrap_fork(void);
pid_t __wrap_fork(void)
{
	if (!fork_armed)
		return __real_fork();
	return (pid_t)FAKE_PID;
}

SartChanWait __real_sart_chan_call(SartChan *ch, long pid, double timeout, uint32_t *seq,
                                   int *wstatus);
SartChanWait __wrap_sart_chan_call(SartChan *ch, long pid, double timeout, uint32_t *seq,
                                   int *wstatus);

/* n log records built from the input (each possibly cut or lengthened), packed as the
 * host packs them. */
static size_t fake_logs(unsigned char *log)
{
	size_t off = 0;
	int n = take_u8() % 6;
	for (int i = 0; i < n; i++) {
		SartLogRecord r;
		uint8_t shape = take_u8();
		size_t cat = take_u8() % 24, text = take_u8() % 200;
		r.status = shape & 8 ? take_u32() : shape % 5u;
		r.report = (shape >> 4) & 1;
		r.cat_len = (uint32_t)cat + 1;
		r.text_len = (uint32_t)text + 1;
		if (shape & 0x20)
			r.cat_len = take_u32();
		if (shape & 0x40)
			r.text_len = take_u32();
		size_t need = sizeof r + cat + 1 + text + 1;
		if (off + need + 8 > SART_CHAN_LOG_BYTES)
			break;
		memcpy(log + off, &r, sizeof r);
		take_raw(log + off + sizeof r, cat + 1 + text + 1);
		if (!(shape & 0x80)) { /* NUL-ended, as the host writes them */
			log[off + sizeof r + cat] = 0;
			log[off + sizeof r + cat + 1 + text] = 0;
		}
		off += (need + 7) & ~(size_t)7;
	}
	return off;
}

/* n binary values built from the input as the host puts them. */
static size_t fake_binaries(unsigned char *data, size_t cap, uint64_t n)
{
	size_t off = 0;
	unsigned char buf[256];
	for (uint64_t i = 0; i < n && i < MAX_N; i++) {
		uint8_t shape = take_u8();
		size_t len = take_u8();
		take_raw(buf, len);
		if (sart_chan_put_bytes(data, cap, &off, shape & 1 ? NULL : buf, len))
			break;
	}
	return off;
}

SartChanWait __wrap_sart_chan_call(SartChan *ch, long pid, double timeout, uint32_t *seq,
                                   int *wstatus)
{
	(void)timeout;
	if (pid != FAKE_PID)
		fail("a call to a child that was ended (or never started)");
	SartChanHeader *h = ch->h;
	if (given_up && h->op != SART_OP_QUIT)
		fail("a call into the FMU after a fatal one");
	uint32_t s = ch->seq + 1 ? ch->seq + 1 : 1;
	ch->seq = s;
	*seq = s;
	uint8_t mode = take_u8();
	switch (mode >> 5) {
	case 5:
		*wstatus = (int)take_u32();
		return SART_WAIT_DIED;
	case 6:
		*wstatus = 9; /* killed */
		return mode & 1 ? SART_WAIT_TIMEOUT : SART_WAIT_GONE;
	case 7:
		if (mode & 1) {
			/* a child that scribbled over the whole header */
			take_raw(h, sizeof *h);
			return SART_WAIT_ANSWERED;
		}
		return SART_WAIT_ERROR;
	default:
		break;
	}
	/* an answer: right in frame unless the mode says otherwise */
	uint32_t op = h->op;
	h->ans_seq = mode & 1 ? take_u32() : s;
	h->ans_op = mode & 2 ? take_u32() : op;
	uint8_t st = take_u8();
	h->status = st < 0xf0 ? st % 5 : (int32_t)take_u32();
	h->ans_n = take_count();
	h->ans_id = take_count();
	uint8_t r = take_u8();
	double t = h->d[0], step = h->d[1];
	/* the next clock tick (read for an inner with clocks): a time, none, or no number */
	h->next_tick = r & 0x40 ? (r & 0x80 ? NAN : t) : INFINITY;
	if ((r & 3) == 0)
		h->reached = t + step;
	else if ((r & 3) == 1)
		h->reached = t + step * (r >> 2) / 64.0;
	else
		take_raw(&h->reached, sizeof h->reached);
	h->log_dropped = mode & 4 ? take_u32() : 0;
	h->log_len = mode & 8 ? take_u64() : fake_logs(sart_chan_log(ch));
	unsigned char *d = sart_chan_data(ch);
	if (mode & 16) {
		h->ans_len = fake_binaries(d, ch->data_cap, h->n);
	} else {
		uint64_t len = take_count();
		size_t k = len < ch->data_cap ? (size_t)len : ch->data_cap;
		take_raw(d, k < 4096 ? k : 4096);
		h->ans_len = len;
	}
	return SART_WAIT_ANSWERED;
}

/* ---- the caller ------------------------------------------------------------------------ */

static size_t logged;

static void logger(void *env, SartStatus st, const char *cat, const char *msg)
{
	(void)env;
	if ((int)st < SART_OK || st > SART_FATAL)
		fail("a message with a status out of range");
	logged += strlen(cat) + strlen(msg);
}

static void check_status(SartStatus st, int contained)
{
	if ((int)st < SART_OK || st > SART_FATAL)
		fail("a status out of range");
	if (contained && st == SART_FATAL)
		fail("a contained inner returned SART_FATAL");
}

static double take_time(void)
{
	return (double)(take_u8() % 16) / 4.0;
}

/* One call of the sart_inner.h API, picked by the input. */
static SartStatus one_call(SartInner *in, void **states, size_t *sink)
{
	SartVr vr[MAX_N];
	double dv[MAX_N];
	int iv[MAX_N], order[MAX_N];
	const char *sv[MAX_N];
	const unsigned char *bv[MAX_N];
	size_t sizes[MAX_N];
	uint8_t op = take_u8();
	size_t n = take_u8() % MAX_N;
	for (size_t i = 0; i < n; i++) {
		vr[i] = (SartVr)i;
		dv[i] = (double)i / 2;
		iv[i] = (int)i;
		order[i] = 1;
		sv[i] = i % 3 ? "text" : NULL;
		bv[i] = (const unsigned char *)"\x01\x02";
		sizes[i] = i % 3;
	}
	void **state = &states[op >> 5 & 3];
	SartStatus st = SART_OK;
	switch (op % 20) {
	case 0: {
		SartExperiment ex = {1, 1e-6, 0, 1, 10};
		return sart_inner_enter_init(in, &ex);
	}
	case 1: return sart_inner_exit_init(in);
	case 2:
		st = sart_inner_get_real(in, vr, n, dv);
		for (size_t i = 0; i < n && st <= SART_WARNING; i++)
			*sink += (size_t)(dv[i] == dv[i]);
		return st;
	case 3:
		st = sart_inner_get_integer(in, vr, n, iv);
		for (size_t i = 0; i < n && st <= SART_WARNING; i++)
			*sink += (size_t)iv[i];
		return st;
	case 4: return sart_inner_get_boolean(in, vr, n, iv);
	case 5:
		st = sart_inner_get_string(in, vr, n, sv);
		for (size_t i = 0; i < n && st <= SART_WARNING; i++)
			*sink += sv[i] ? strlen(sv[i]) : 0;
		return st;
	case 6:
		st = sart_inner_get_binary(in, vr, n, bv, sizes);
		for (size_t i = 0; i < n && st <= SART_WARNING; i++)
			for (size_t k = 0; bv[i] && k < sizes[i]; k++)
				*sink += bv[i][k];
		return st;
	case 7: return sart_inner_set_real(in, vr, n, dv);
	case 8: return sart_inner_set_integer(in, vr, n, iv);
	case 9: return sart_inner_set_string(in, vr, n, sv);
	case 10: return sart_inner_set_binary(in, vr, n, bv, sizes);
	case 11: return sart_inner_set_real_input_derivatives(in, vr, n, order, dv);
	case 12: return sart_inner_get_real_output_derivatives(in, vr, n, order, dv);
	case 13: {
		double t = take_time(), h = take_time() + 0.25, reached = -1;
		st = sart_inner_do_step(in, t, h, op & 0x80, &reached);
		if (st <= SART_DISCARD && !(reached >= t && reached <= t + h))
			fail("a step that succeeded reached a time outside it");
		if (st >= SART_ERROR && !isnan(reached))
			fail("a step that failed reached a time");
		if (isnan(sart_inner_next_clock_time(in)))
			fail("a next clock tick that is no time");
		return st;
	}
	case 14: return sart_inner_get_state(in, state);
	case 15: return sart_inner_set_state(in, *state);
	case 16: return sart_inner_free_state(in, state);
	case 17: {
		size_t size = 0;
		st = sart_inner_serialized_size(in, *state, &size);
		if (st > SART_WARNING)
			return st;
		if (size > SART_ISOLATE_DEFAULT_SHM)
			fail("a serialized size larger than the shared memory");
		/* as an importer does: a buffer of that size, then the bytes */
		unsigned char *buf = malloc(size ? size : 1);
		if (!buf)
			fail("out of memory");
		st = sart_inner_serialize(in, *state, buf, size);
		for (size_t k = 0; k < size && st <= SART_WARNING; k++)
			*sink += buf[k];
		free(buf);
		return st;
	}
	case 18: {
		unsigned char buf[64];
		size_t len = take_u8() % sizeof buf;
		take_raw(buf, len);
		return sart_inner_deserialize(in, buf, len, state);
	}
	default: return op & 1 ? sart_inner_terminate(in) : sart_inner_reset(in);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in_p = data;
	in_n = size;
	logged = 0;
	uint8_t cfgb = take_u8();
	int contained = cfgb & 1;
	static const SartVrType types[] = {{1, SART_VT_FLOAT32, "f"}, {2, SART_VT_UINT8, NULL}};
	static const SartClock clocks[] = {{3, SART_CLOCK_PERIODIC, 0.5, 0, 0},
	                                   {4, SART_CLOCK_OUTPUT, 0, 0, 1}};
	SartInnerConfig cfg = {
		.name = cfgb & 2 ? "m" : "inner",
		.dir = "/nonexistent",
		.model_identifier = "m",
		.version = cfgb & 4 ? SART_FMI3 : SART_FMI2,
		/* state and serialization asked for together: an inner with clocks too */
		.caps = ((cfgb >> 3) & 0x1f) | ((cfgb & 0x18) == 0x18 ? SART_CAP_CLOCKS : 0u),
		.logger = cfgb & 0x80 ? NULL : logger,
		.vr_types = types,
		.nvr_types = 2,
		.se = {clocks, 2},
	};
	/* the smallest slot, or the default one */
	SartIsolation iso = {"/proc/self/exe", 0, 0,
	                     cfgb & 0x40 ? 0 : SART_CHAN_DATA_OFFSET + SART_CHAN_MIN_SIZE, -1,
	                     contained, NULL, NULL};
	SartInner *in = NULL;
	fork_armed = 1;
	SartStatus st = sart_inner_load_isolated(&cfg, &iso, &in);
	check_status(st, 1); /* a failed load is an error, never fatal */
	if (!in)
		return 0;
	size_t sink = 0;
	void *states[4] = {NULL, NULL, NULL, NULL};
	st = sart_inner_instantiate(in, "{guid}", 1);
	check_status(st, contained);
	given_up = st == SART_FATAL;
	for (int k = 0; k < MAX_CALLS && in_n > 0; k++) {
		st = one_call(in, states, &sink);
		check_status(st, contained);
		given_up |= st == SART_FATAL;
		if (strlen(sart_inner_message(in)) >= 1024)
			fail("a message longer than its buffer");
	}
	/* as a caller does at the end: the states, then the instance */
	for (int i = 0; i < 4; i++)
		if (states[i])
			(void)sart_inner_free_state(in, &states[i]);
	sart_inner_free(in);
	fork_armed = 0;
	given_up = 0;
	if (sink == (size_t)-1) /* keep the reads */
		fprintf(stderr, "%zu %zu\n", sink, logged);
	return 0;
}
