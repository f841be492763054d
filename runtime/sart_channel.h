/* sart_channel.h — the shared-memory slot between a parent and its FMU host child
 * (sart_isolate.h).  Private to sart_channel.c, sart_host.c and sart_inner_isolated.c.
 *
 * One memfd mapped by both: a header holding one request and one answer, a log area the
 * child fills with the messages of the call, and a data area for arrays, strings and state
 * bytes.  The parent writes a request and bumps req_seq; the child answers and sets
 * ans_seq to the same number.  Each waiting side spins briefly on its word, then sleeps on
 * it with a futex; a waker calls FUTEX_WAKE only when the other side said it sleeps (the
 * *_sleeping words, sequentially consistent with the seq words: no lost wake-up).
 *
 * A host built for Windows and run under Wine (sart_isolate.h, SartIsolation.wine) can
 * neither receive a descriptor nor call futex.  It maps the same memfd through Wine's Z:
 * drive by the parent's /proc/<pid>/fd/<fd> (a shared mapping of the one file, no name in
 * any directory), and the sleeps become doorbells: one byte on the host's stdin wakes it,
 * one byte on its stdout wakes the parent (poll, in slices as the futex waits are).  The
 * doorbells follow the same *_sleeping protocol; a stale byte only wakes a waiter early,
 * and every wait loops until its word has changed.
 *
 * On Windows (a win64 wrapper's isolated inners) the parent makes a nameless section the
 * host inherits by handle ("handle=N" where the Linux host gets its descriptor), starts it
 * in a job that kills it when the parent ends, and the wake-ups are the same doorbells: the
 * parent writes to the host's stdin and waits, overlapped, on its stdout and its process.
 *
 * The child runs an untrusted FMU, which can scribble on the mapping: the parent reads each
 * answer field once, checks it (sequence, operation, status, lengths within its own idea of
 * the sizes) and never follows anything the child wrote without a bound. */
#ifndef SART_CHANNEL_H
#define SART_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "sart_inner.h"

/* Linux's futex, sealed memfd and parent-death signal, unless SART_PORTABLE_POSIX asks for
 * what every POSIX system has (spin then short sleeps, an unlinked shm_open object, a
 * watchdog thread on getppid): what a source wrapper compiled on another POSIX system gets,
 * and what the suite builds on Linux to run the isolation tests over the fallback. */
#if defined(__linux__) && !defined(SART_PORTABLE_POSIX)
#define SART_LINUX 1
#endif

#define SART_CHAN_MAGIC 0x48434153u /* "SACH" */
#define SART_CHAN_VERSION 3u /* 3: the clocks (SartSeConfig) and next_tick */
#define SART_CHAN_LOG_BYTES ((size_t)64 << 10)
#define SART_CHAN_MIN_SIZE ((size_t)64 << 10) /* below this, not a usable slot */

typedef enum SartHostOp {
	SART_OP_NONE,
	SART_OP_LOAD, /* data: name, dir, model identifier (NUL-ended); n: version; id: caps;
	               * then at an 8-aligned offset the FMI 3.0 types: a uint64 count, count
	               * pairs {uint32 vr, uint32 SartValueType}, count NUL-ended names */
	SART_OP_INSTANTIATE, /* data: guid (NUL-ended), then, when the caller named intermediate
	                      * inputs (sart_inner_set_intermediate_inputs), a uint32 count and
	                      * count uint32 value references, unaligned; flags: logging on */
	SART_OP_ENTER_INIT,  /* d: tolerance, start, stop; flags: 1 tolerance, 2 stop defined */
	SART_OP_EXIT_INIT,
	SART_OP_GET_REAL, /* data: vr[n]; answer: values */
	SART_OP_GET_INTEGER,
	SART_OP_GET_BOOLEAN,
	SART_OP_GET_STRING,  /* answer: per value a byte (1 present) and a NUL-ended string */
	SART_OP_SET_REAL,    /* data: vr[n], values from an 8-aligned offset */
	SART_OP_SET_INTEGER,
	SART_OP_SET_BOOLEAN,
	SART_OP_SET_STRING,
	SART_OP_SET_INPUT_DERIVATIVES,  /* data: vr[n], order[n], values (8-aligned) */
	SART_OP_GET_OUTPUT_DERIVATIVES, /* data: vr[n], order[n]; answer: values */
	SART_OP_DO_STEP,     /* d: t, h; flags: no_set_state_prior; answer: reached */
	SART_OP_GET_STATE,   /* id: 0 for a new state, else the one to overwrite; answer: id */
	SART_OP_SET_STATE,   /* id */
	SART_OP_FREE_STATE,  /* id */
	SART_OP_SERIALIZED_SIZE, /* id; answer: n */
	SART_OP_SERIALIZE,       /* id, n: size; answer: the bytes */
	SART_OP_DESERIALIZE,     /* data: the bytes; id: as GET_STATE; answer: id */
	SART_OP_TERMINATE,
	SART_OP_RESET,
	SART_OP_QUIT,            /* free the instance and exit 0 */
	SART_OP_GET_BINARY,      /* data: vr[n]; answer: n values (sart_chan_put_bytes) */
	SART_OP_SET_BINARY,      /* data: vr[n], then n values (sart_chan_put_bytes) */
	SART_OP_COUNT
} SartHostOp;

/* A log record in the log area: this header, then category and text, each NUL-ended. */
typedef struct SartLogRecord {
	uint32_t status;
	uint32_t report;   /* 1: the seam's own report of the call's outcome (its message) */
	uint32_t cat_len;  /* bytes, NUL included */
	uint32_t text_len; /* bytes, NUL included */
} SartLogRecord;

typedef struct SartChanHeader {
	uint32_t magic, version;
	uint64_t size; /* the whole mapping, as the parent made it */
	uint32_t req_seq, ans_seq;                 /* futex words */
	uint32_t child_sleeping, parent_sleeping;
	/* request */
	uint32_t op, flags;
	uint64_t n, id, req_len;
	double d[4];
	/* answer */
	uint32_t ans_op;
	int32_t status;
	uint64_t ans_n, ans_id, ans_len;
	double reached;
	uint64_t log_len;
	uint32_t log_dropped, pad;
	/* every answer of an inner with clocks: sart_inner_next_clock_time after the call, so
	 * that the master's question costs no call of its own (+infinity: none) */
	double next_tick;
} SartChanHeader;

#define SART_CHAN_LOG_OFFSET ((size_t)256)
#define SART_CHAN_DATA_OFFSET (SART_CHAN_LOG_OFFSET + SART_CHAN_LOG_BYTES)

typedef struct SartChan {
	SartChanHeader *h; /* the mapping */
	size_t size;       /* the mapping's size, the parent's own knowledge */
	size_t data_cap;   /* bytes of the data area */
	int fd;
	int bell_wr, bell_rd; /* parent of a Wine host: the doorbells' pipe ends; else -1 */
	/* on Windows: the section; a host's stdin and stdout, or a parent's ends of them (the
	 * host's stdout, the host's stdin); a parent's host process, its job, its doorbell */
	void *win_map, *win_in, *win_out;
	void *win_proc, *win_job, *win_bell;
	double spin_us;    /* the longest spin before sleeping */
	double spin_now;   /* the next spin's length, adapted to how spins end */
	uint32_t seq;      /* the parent's last request number (not read back from the slot) */
} SartChan;

/* The data area. */
unsigned char *sart_chan_data(const SartChan *ch);
unsigned char *sart_chan_log(const SartChan *ch);

/* Parent: makes and maps an unnamed memfd of size bytes (0 for the default).  Returns 0, or
 * -1 with errno set. */
int sart_chan_create(SartChan *ch, size_t size, double spin_us);
/* Child: maps the memfd behind fd and checks it is a channel of this version.  Returns 0,
 * or -1 with a reason in why. */
int sart_chan_attach(SartChan *ch, int fd, double spin_us, const char **why);
/* Child on Windows: maps the file at path (the parent's memfd through Wine's Z: drive),
 * checks it as sart_chan_attach does, and takes stdin and stdout as its doorbells (stdout is
 * then pointed at stderr, so that what the FMU prints reaches a person, not the parent). */
int sart_chan_attach_path(SartChan *ch, const char *path, double spin_us, const char **why);
/* Child on Windows: maps the section behind the inherited handle (a win64 parent's), as
 * sart_chan_attach_path does the file. */
int sart_chan_attach_handle(SartChan *ch, unsigned long long handle, double spin_us,
                            const char **why);
/* Parent on Windows: starts host (argv as the Linux host's, the section as "handle=N") with
 * the section and the doorbells, in a job that kills it when this process ends; *pid its
 * process id.  0, or -1 with why in err. */
int sart_chan_start_host(SartChan *ch, const char *host, const char *spin, long *pid,
                         char *err, size_t errsize);
/* Parent on Windows: whether the host ended within ms; and ends it (kills it if it runs),
 * waiting for the end. */
int sart_chan_host_ended(SartChan *ch, unsigned ms);
void sart_chan_end_host(SartChan *ch);
/* Parent: waits for a Wine host through doorbells: wr writes to the host's stdin, rd reads
 * its stdout (both made non-blocking here; the channel closes them). */
void sart_chan_set_bells(SartChan *ch, int wr, int rd);
void sart_chan_close(SartChan *ch);

typedef enum SartChanWait {
	SART_WAIT_ANSWERED,
	SART_WAIT_DIED,    /* *wstatus holds the child's wait status (on Windows its exit
	                    * code); it is reaped */
	SART_WAIT_TIMEOUT, /* the child was killed and reaped */
	SART_WAIT_GONE,    /* the child is gone, reaped elsewhere (SIGCHLD ignored) */
	SART_WAIT_ERROR    /* waitpid failed: the child is not ours to watch */
} SartChanWait;

/* Parent: publishes the request already written (fields and data) and waits for the
 * answer of sequence number *seq (set here).  timeout in s, 0 for none; the child pid
 * is watched while sleeping.  On DIED or TIMEOUT the child is reaped. */
SartChanWait sart_chan_call(SartChan *ch, long pid, double timeout, uint32_t *seq,
                            int *wstatus);

/* Child: waits for the next request after last (spins, then sleeps); returns its seq, or
 * 0 when the parent is gone (a Windows host's doorbell reached its end). */
uint32_t sart_chan_next(SartChan *ch, uint32_t last);
/* Child: publishes the answer to request seq. */
void sart_chan_answer(SartChan *ch, uint32_t seq);

/* One array element in a load request: four uint32 (vr, array, index, size), a double. */
#define SART_CHAN_ELEMENT_BYTES (4 * sizeof(uint32_t) + sizeof(double))

/* After the element records of a load request: each element's start_data, as a value of
 * sart_chan_put_bytes (absent when it has none). */

/* Then, for a Model Exchange inner only (SART_CAP_MODEL_EXCHANGE in the caps), its
 * SartMeConfig at an 8-aligned offset: int64 method; double tolerance, default_tolerance,
 * max_step; uint64 nstates, nevent_indicators, nvrs (0 or nstates), nevent_vrs; then nvrs
 * uint32 state, nvrs uint32 derivative and nevent_vrs uint32 event-mode value references. */
#define SART_CHAN_ME_BYTES (8 * 8)

/* Then, for an inner with clocks (SART_CAP_SCHEDULED_EXECUTION or SART_CAP_CLOCKS in the
 * caps), its SartSeConfig at an 8-aligned offset: a uint64 count, then count records of
 * uint32 vr, kind (SartClockKind), priority, 0; double interval, shift. */
#define SART_CHAN_CLOCK_BYTES (4 * sizeof(uint32_t) + 2 * sizeof(double))

/* One value of bytes at *off in data (cap bytes): a byte (1 present, 0 absent: NULL), a
 * uint64 length and the bytes.  put returns -1 when it does not fit; take -1 when the
 * record is malformed or runs past len, else sets *p (NULL when absent) and *size. */
int sart_chan_put_bytes(unsigned char *data, size_t cap, size_t *off, const void *p,
                        size_t size);
int sart_chan_take_bytes(const unsigned char *data, size_t len, size_t *off,
                         const unsigned char **p, size_t *size);

/* Bytes for n elements of elem bytes at an 8-aligned offset after off; 0 on overflow. */
size_t sart_chan_span(size_t off, size_t n, size_t elem);

#endif
