/* sart_inner_isolated.c — the seam's out-of-process back end (sart_isolate.h): each call
 * is written into the shared slot (sart_channel.h) and answered by the host child, which
 * runs the ordinary seam on the FMU.  The child is untrusted: every answer is checked
 * before use, and a child that dies, answers garbage or overruns its time limit ends the
 * FMU with SART_FATAL and a message naming the call and the cause. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall, strsignal */
#endif

#include "sart_channel.h"
#include "sart_inner_backend.h"
#include "sart_isolate.h"
#include "sart_numfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SART_LINUX
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#ifndef _WIN32
#include <sys/wait.h>
#endif
#include <time.h>
#include <unistd.h>

/* The parent's handle on one of the child's states: its number there. */
typedef struct IsoState {
	struct IsoState *next;
	uint64_t id;
} IsoState;

typedef struct Iso {
	SartChan ch;
	long pid;             /* 0 once reaped */
	double step_timeout, call_timeout;
	IsoState *states;     /* every handle given out, freed at the latest with the instance */
	char *strbuf;         /* strings got, valid until the next call */
	size_t strcap;
	unsigned char *logbuf; /* a copy of the call's log area, read from there only */
	double t, h;          /* the step in progress, for messages */
	double next_tick;     /* an inner with clocks: its next tick, as the last answer said */
	int wine_lock;        /* a Wine host's use of its prefix (sart_wine_acquire); else -1 */
	char *wine, *wine_prefix;
} Iso;

static const SartInnerOps isolated_ops;

static const char *const op_names[SART_OP_COUNT] = {
	"?", "load", "instantiate", "enterInitializationMode", "exitInitializationMode",
	"getReal", "getInteger", "getBoolean", "getString", "setReal", "setInteger", "setBoolean",
	"setString", "setRealInputDerivatives", "getRealOutputDerivatives", "doStep",
	"getFMUstate", "setFMUstate", "freeFMUstate", "serializedFMUstateSize",
	"serializeFMUstate", "deSerializeFMUstate", "terminate", "reset", "quit", "getBinary",
	"setBinary",
};

#ifndef _WIN32
static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGPIPE: return "SIGPIPE";
	default: return "signal";
	}
}

#endif

/* "doStep(t = 1, h = 0.1)" or "getReal". */
static void call_name(const Iso *iso, uint32_t op, char *buf, size_t size)
{
	const char *name = op < SART_OP_COUNT ? op_names[op] : "?";
	if (op == SART_OP_DO_STEP)
		snprintf(buf, size, "%s(t = %s, h = %s)", name, SART_NUM(iso->t), SART_NUM(iso->h));
	else
		snprintf(buf, size, "%s", name);
}

/* Kills and reaps the child, if any is left. */
static void end_child(Iso *iso)
{
	if (iso->pid <= 0)
		return;
#ifdef _WIN32
	sart_chan_end_host(&iso->ch);
#else
	int ws;
	kill((pid_t)iso->pid, SIGKILL);
	while (waitpid((pid_t)iso->pid, &ws, 0) < 0 && errno == EINTR)
		;
#endif
	iso->pid = 0;
}

/* The call failed for good: the child is ended and the FMU may not be called again. */
static SART_COLD SartStatus lost(SartInner *in, uint32_t op, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(SART_PRINTF_ARCHETYPE, 3, 4)))
#endif
	;

static SART_COLD SartStatus lost(SartInner *in, uint32_t op, const char *fmt, ...)
{
	Iso *iso = in->impl;
	char what[160], why[512];
	va_list ap;
	end_child(iso);
	call_name(iso, op, what, sizeof what);
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return sart_inner_report(in, SART_FATAL, "%s: %s", what, why);
}

#ifdef _WIN32
/* A Windows host's end by its exit code: an exception's NTSTATUS (0xC...), or exit(n). */
static SART_COLD SartStatus lost_exit_code(SartInner *in, uint32_t op, unsigned long code)
{
	const char *what = code == 0xC0000005ul   ? "access violation"
	                   : code == 0xC00000FDul ? "stack overflow"
	                   : code == 0xC0000094ul ? "integer division by zero"
	                   : code == 0xC000001Dul ? "illegal instruction"
	                   : code == 0xC0000409ul ? "stack buffer overrun or fast fail"
	                                          : NULL;
	if (code >= 0xC0000000ul)
		return lost(in, op, "the FMU's process died of exception %#lx (%s)", code,
		            what ? what : "an unhandled exception");
	return lost(in, op, "the FMU's process exited with status %lu", code);
}

#endif
static SART_COLD SartStatus lost_wait(SartInner *in, uint32_t op, SartChanWait w, int ws,
                                      double timeout)
{
	Iso *iso = in->impl;
	if (w == SART_WAIT_TIMEOUT) {
		iso->pid = 0;
		return lost(in, op, "no answer within %s s; the FMU's process was killed",
		            SART_NUM(timeout));
	}
	if (w == SART_WAIT_ERROR)
		return lost(in, op, "cannot watch the FMU's process: %s", strerror(errno));
	if (w == SART_WAIT_GONE) {
		iso->pid = 0;
		return lost(in, op, "the FMU's process ended (reaped elsewhere: how is unknown)");
	}
	iso->pid = 0;
#ifdef _WIN32
	return lost_exit_code(in, op, (unsigned long)(unsigned)ws);
#else
	if (WIFSIGNALED(ws))
		return lost(in, op, "the FMU's process died of signal %d (%s: %s)", WTERMSIG(ws),
		            signal_name(WTERMSIG(ws)), strsignal(WTERMSIG(ws)));
	if (WIFEXITED(ws))
		return lost(in, op, "the FMU's process exited with status %d%s", WEXITSTATUS(ws),
		            WEXITSTATUS(ws) == 127 ? " (the FMU host could not be executed)" : "");
	return lost(in, op, "the FMU's process ended (wait status %#x)", (unsigned)ws);
#endif
}

static SART_COLD SartStatus too_small(SartInner *in, uint32_t op, size_t n)
{
	Iso *iso = in->impl;
	char what[160];
	call_name(iso, op, what, sizeof what);
	return sart_inner_report(in, SART_ERROR, "%s: %zu values or bytes do not fit in the shared "
	                         "memory (%zu bytes of data)", what, n, iso->ch.data_cap);
}

/* Hands the call's messages to the logger; the seam's report of the outcome becomes this
 * instance's.  Returns 0 on a malformed log area. */
static int forward_logs(SartInner *in, size_t log_len, int *reported)
{
	Iso *iso = in->impl;
	size_t off = 0, plen = strlen(in->name) + 3;
	memcpy(iso->logbuf, sart_chan_log(&iso->ch), log_len);
	while (off < log_len) {
		SartLogRecord r;
		if (log_len - off < sizeof r)
			return 0;
		memcpy(&r, iso->logbuf + off, sizeof r);
		size_t rest = log_len - off - sizeof r;
		if (r.status > SART_FATAL || r.cat_len == 0 || r.text_len == 0 || r.cat_len > rest ||
		    r.text_len > rest - r.cat_len)
			return 0;
		const char *cat = (const char *)iso->logbuf + off + sizeof r;
		const char *text = cat + r.cat_len;
		if (cat[r.cat_len - 1] || text[r.text_len - 1])
			return 0;
		if (r.report) {
			/* the child's message carries the same "[name] " prefix the report adds */
			int prefixed = strlen(text) >= plen && text[0] == '[' &&
			               strncmp(text + 1, in->name, plen - 3) == 0 &&
			               text[plen - 2] == ']' && text[plen - 1] == ' ';
			sart_inner_report(in, (SartStatus)r.status, "%s", prefixed ? text + plen : text);
			*reported = 1;
		} else if (in->logger) {
			in->logger(in->logger_env, (SartStatus)r.status, cat, text);
		}
		off += (sizeof r + r.cat_len + r.text_len + 7) & ~(size_t)7;
	}
	return 1;
}


/* A status as the messages name it ("Error"), for a call the child reported no message of. */
static const char *status_name(SartStatus st)
{
	switch (st) {
	case SART_OK: return "OK";
	case SART_WARNING: return "Warning";
	case SART_DISCARD: return "Discard";
	case SART_ERROR: return "Error";
	case SART_FATAL: return "Fatal";
	}
	return "?";
}
static SART_COLD SartStatus answered_slowly(SartInner *in, uint32_t op, int32_t st,
                                            size_t log_len, uint32_t dropped)
{
	int reported = 0;
	if (!forward_logs(in, log_len, &reported))
		return lost(in, op, "the FMU's process answered garbage (a malformed message)");
	if (dropped && in->logger) {
		char text[128];
		snprintf(text, sizeof text, "[%s] %u more messages of this call were dropped",
		         in->name, (unsigned)dropped);
		in->logger(in->logger_env, SART_WARNING, "logStatusWarning", text);
	}
	/* a fatal outcome must pass through sart_inner_report, which marks the FMU as fatal;
	 * a child whose own report of the call said something milder does not spare it */
	if (st != SART_OK && (!reported || (st == SART_FATAL && !in->fatal))) {
		char what[160];
		call_name(in->impl, op, what, sizeof what);
		return sart_inner_report(in, (SartStatus)st, "%s returned %s", what,
		                         status_name((SartStatus)st));
	}
	/* the child's report marked the FMU as fatal already (sart_inner_report) */
	if (st == SART_FATAL && in->fatal_as_error)
		return SART_ERROR;
	return (SartStatus)st;
}

/* Sends the request already written and checks the answer's frame. */
static SartStatus call(SartInner *in, uint32_t op, double timeout)
{
	Iso *iso = in->impl;
	SartChanHeader *h = iso->ch.h;
	uint32_t seq;
	int ws = 0;
	h->op = op;
	SartChanWait w = sart_chan_call(&iso->ch, iso->pid, timeout, &seq, &ws);
	if (w != SART_WAIT_ANSWERED)
		return lost_wait(in, op, w, ws, timeout);
	uint32_t ans_seq = __atomic_load_n(&h->ans_seq, __ATOMIC_ACQUIRE);
	uint32_t ans_op = h->ans_op;
	int32_t st = h->status;
	uint64_t log_len = h->log_len;
	uint32_t dropped = h->log_dropped;
	if (ans_seq != seq || ans_op != op || st < SART_OK || st > SART_FATAL ||
	    log_len > SART_CHAN_LOG_BYTES)
		return lost(in, op, "the FMU's process answered garbage (sequence %u for %u, "
		            "operation %u, status %d)", (unsigned)ans_seq, (unsigned)seq,
		            (unsigned)ans_op, (int)st);
	if (in->caps & (SART_CAP_SCHEDULED_EXECUTION | SART_CAP_CLOCKS)) {
		/* a tick in the past only ends no step (the master looks for one after t), but a
		 * NaN is no time at all */
		double next = h->next_tick;
		if (isnan(next))
			return lost(in, op, "the FMU's process answered garbage (no next clock tick)");
		iso->next_tick = next;
	}
	if (st == SART_OK && log_len == 0 && dropped == 0)
		return SART_OK;
	return answered_slowly(in, op, st, (size_t)log_len, dropped);
}

/* ---- starting the child ----------------------------------------------------------------- */

#ifndef _WIN32
/* In the child between fork and exec (async-signal-safe calls only): the channel becomes
 * descriptor 3, inherited; every other descriptor above 2 is closed. */
static void exec_host(int fd, char *const argv[])
{
	if (fd == 3 ? fcntl(3, F_SETFD, 0) != 0 : dup2(fd, 3) != 3)
		_exit(127);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
#endif
		for (int i = 4; i < 1024; i++)
			close(i);
	execv(argv[0], argv);
	_exit(127);
}
#endif

#ifdef SART_LINUX
/* In the child between fork and exec, for a Windows host: the doorbells become its stdin
 * and stdout, it dies with the thread that started it (PR_SET_PDEATHSIG survives the exec
 * into Wine's loader) and leaves the parent's terminal group. */
static void exec_wine_host(int bell_in, int bell_out, pid_t parent, char *const argv[],
                           char **env)
{
	if (dup2(bell_in, 0) != 0 || dup2(bell_out, 1) != 1)
		_exit(127);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	setpgid(0, 0);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
		for (int i = 3; i < 1024; i++)
			close(i);
	execve(argv[0], argv, env);
	_exit(127);
}

/* A Windows host under Wine: the prefix taken (made on first use), the doorbell pipes, and
 * the shared memory named by this process's descriptor as Wine's Z: drive shows it. */
static SartStatus spawn_wine(SartInner *in, const SartIsolation *iso_cfg, const char *spin)
{
	Iso *iso = in->impl;
	char prefix[4096], err[512], path[96], ppid[32];
	if (iso_cfg->wine_prefix)
		snprintf(prefix, sizeof prefix, "%s", iso_cfg->wine_prefix);
	else if (sart_wine_default_prefix(prefix, sizeof prefix))
		return sart_inner_report(in, SART_ERROR, "no place for the Wine prefix (set HOME or "
		                         "SACC_WINEPREFIX)");
	iso->wine = malloc(strlen(iso_cfg->wine) + 1);
	iso->wine_prefix = malloc(strlen(prefix) + 1);
	if (!iso->wine || !iso->wine_prefix)
		return sart_inner_report(in, SART_ERROR, "out of memory");
	strcpy(iso->wine, iso_cfg->wine);
	strcpy(iso->wine_prefix, prefix);
	iso->wine_lock = sart_wine_acquire(iso->wine, prefix, err, sizeof err);
	if (iso->wine_lock < 0)
		return sart_inner_report(in, SART_ERROR, "%s", err);
	int to_host[2] = {-1, -1}, from_host[2] = {-1, -1};
	char **env = sart_wine_env(prefix);
	if (!env || pipe2(to_host, O_CLOEXEC) != 0 || pipe2(from_host, O_CLOEXEC) != 0) {
		int e = env ? errno : ENOMEM;
		for (int i = 0; i < 2; i++) {
			if (to_host[i] >= 0)
				close(to_host[i]);
			if (from_host[i] >= 0)
				close(from_host[i]);
		}
		sart_wine_env_free(env);
		return sart_inner_report(in, SART_ERROR, "cannot make the FMU process's pipes: %s",
		                         strerror(e));
	}
	pid_t self = getpid();
	snprintf(path, sizeof path, "Z:\\proc\\%ld\\fd\\%d", (long)self, iso->ch.fd);
	snprintf(ppid, sizeof ppid, "%ld", (long)self);
	char *argv[] = {(char *)iso_cfg->wine, (char *)iso_cfg->host_path, "sart-host", path, ppid,
	                (char *)spin, NULL};
	pid_t pid = fork();
	if (pid == 0)
		exec_wine_host(to_host[0], from_host[1], self, argv, env);
	int e = errno;
	sart_wine_env_free(env);
	close(to_host[0]);
	close(from_host[1]);
	sart_chan_set_bells(&iso->ch, to_host[1], from_host[0]);
	if (pid < 0)
		return sart_inner_report(in, SART_ERROR, "cannot start the FMU's process: %s",
		                         strerror(e));
	iso->pid = pid;
	return SART_OK;
}
#else
/* The Windows host maps the parent's memfd through /proc, which is Linux's. */
static SartStatus spawn_wine(SartInner *in, const SartIsolation *iso_cfg, const char *spin)
{
	(void)iso_cfg;
	(void)spin;
	return sart_inner_report(in, SART_ERROR, "an FMU with a Windows library only runs under "
	                         "Wine on Linux only");
}
#endif

#ifdef _WIN32
/* Windows (a win64 wrapper's isolated inners): the host started by sart_chan_start_host,
 * which hands it the section and the doorbells and puts it in a kill-on-close job. */
#define HOST_RUNNABLE R_OK /* Windows has no execute bit */
static SartStatus start_host(SartInner *in, const SartIsolation *iso_cfg, char *spin)
{
	Iso *iso = in->impl;
	char err[256];
	if (sart_chan_start_host(&iso->ch, iso_cfg->host_path, spin, &iso->pid, err, sizeof err))
		return sart_inner_report(in, SART_ERROR, "cannot start the FMU's process '%s': %s",
		                         iso_cfg->host_path, err);
	return SART_OK;
}
#else
/* POSIX: fork, and the channel as descriptor 3 of the host's exec. */
#define HOST_RUNNABLE X_OK
static SartStatus start_host(SartInner *in, const SartIsolation *iso_cfg, char *spin)
{
	Iso *iso = in->impl;
	char fdstr[] = "3", ppid[32];
	snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
	char *argv[] = {(char *)iso_cfg->host_path, "sart-host", fdstr, ppid, spin, NULL};
	pid_t pid = fork();
	if (pid < 0)
		return sart_inner_report(in, SART_ERROR, "cannot start the FMU's process: %s",
		                         strerror(errno));
	if (pid == 0)
		exec_host(iso->ch.fd, argv);
	iso->pid = pid;
	return SART_OK;
}
#endif

static SartStatus spawn(SartInner *in, const SartIsolation *iso_cfg)
{
	Iso *iso = in->impl;
	char spin[32];
	double spin_us = iso_cfg->spin_us < 0 ? 50.0 : iso_cfg->spin_us;
	if (sart_chan_create(&iso->ch, iso_cfg->shm_size, spin_us) != 0)
		return sart_inner_report(in, SART_ERROR, "cannot make the shared memory for the FMU's "
		                         "process (%zu bytes): %s", iso_cfg->shm_size, strerror(errno));
	if (!iso_cfg->host_path ||
	    access(iso_cfg->host_path, iso_cfg->wine ? R_OK : HOST_RUNNABLE) != 0)
		return sart_inner_report(in, SART_ERROR, "cannot run the FMU host '%s': %s",
		                         iso_cfg->host_path ? iso_cfg->host_path : "(none given)",
		                         iso_cfg->host_path ? strerror(errno) : "no path");
	snprintf(spin, sizeof spin, "%g", spin_us);
	if (iso_cfg->wine)
		return spawn_wine(in, iso_cfg, spin);
	return start_host(in, iso_cfg, spin);
}

static SartStatus put_strings(Iso *iso, size_t off, const char *const s[], size_t n,
                              size_t *end)
{
	unsigned char *data = sart_chan_data(&iso->ch);
	for (size_t i = 0; i < n; i++) {
		const char *v = s ? s[i] : NULL;
		size_t len = strlen(v ? v : "") + 1;
		if (off > iso->ch.data_cap || len + 1 > iso->ch.data_cap - off)
			return SART_ERROR;
		data[off++] = v != NULL;
		memcpy(data + off, v ? v : "", len);
		off += len;
	}
	*end = off;
	return SART_OK;
}

/* Appends the NUL-ended s at *off; SART_ERROR when it does not fit. */
static SartStatus put_string(Iso *iso, const char *s, size_t *off)
{
	size_t len = strlen(s) + 1;
	if (*off > iso->ch.data_cap || len > iso->ch.data_cap - *off)
		return SART_ERROR;
	memcpy(sart_chan_data(&iso->ch) + *off, s, len);
	*off += len;
	return SART_OK;
}

/* A table of the load at *off (sart_channel.h: a uint64 count n at an 8-aligned offset,
 * then n records of elem bytes at the next, for the caller to fill from *records); *off
 * then ends it.  SART_ERROR when it does not fit. */
static SartStatus put_table(Iso *iso, size_t *off, size_t n, size_t elem,
                            unsigned char **records)
{
	size_t table = sart_chan_span(*off, 1, sizeof(uint64_t));
	size_t end = table ? sart_chan_span(table, n, elem) : 0;
	if (!end || end > iso->ch.data_cap)
		return SART_ERROR;
	unsigned char *data = sart_chan_data(&iso->ch);
	uint64_t count = n;
	memcpy(data + sart_chan_span(*off, 0, 1), &count, sizeof count);
	*records = data + sart_chan_span(table, 0, 1);
	*off = end;
	return SART_OK;
}

/* After the types: the array elements the caller exchanges one by one (SartVrElement), a
 * count then records of four uint32 (vr, array, index, size) and the start as a double. */
static SartStatus put_elements(Iso *iso, const SartInnerConfig *cfg, size_t *off)
{
	size_t n = cfg->elements ? cfg->nelements : 0;
	unsigned char *data = sart_chan_data(&iso->ch), *p;
	if (put_table(iso, off, n, SART_CHAN_ELEMENT_BYTES, &p) != SART_OK)
		return SART_ERROR;
	for (size_t i = 0; i < n; i++, p += SART_CHAN_ELEMENT_BYTES) {
		const SartVrElement *e = &cfg->elements[i];
		uint32_t w[4] = {e->vr, e->array, e->index, e->size};
		memcpy(p, w, sizeof w);
		memcpy(p + sizeof w, &e->start, sizeof e->start);
	}
	for (size_t i = 0; i < n; i++)
		if (sart_chan_put_bytes(data, iso->ch.data_cap, off, cfg->elements[i].start_data,
		                        cfg->elements[i].start_size))
			return SART_ERROR;
	return SART_OK;
}

/* After the elements, for a Model Exchange inner: its SartMeConfig (sart_channel.h,
 * SART_CHAN_ME_BYTES), so that the host's seam integrates it as the parent's would. */
static SartStatus put_me(Iso *iso, const SartInnerConfig *cfg, size_t *off)
{
	const SartMeConfig *me = &cfg->me;
	uint64_t nvrs = me->state_vrs && me->derivative_vrs ? me->nstates : 0;
	uint64_t nev = me->event_vrs ? me->nevent_vrs : 0;
	size_t fixed = sart_chan_span(*off, 1, SART_CHAN_ME_BYTES);
	size_t end = fixed && nvrs <= iso->ch.data_cap && nev <= iso->ch.data_cap
	             ? sart_chan_span(fixed, 2 * (size_t)nvrs + (size_t)nev, sizeof(uint32_t)) : 0;
	if (!end || end > iso->ch.data_cap)
		return SART_ERROR;
	unsigned char *p = sart_chan_data(&iso->ch) + sart_chan_span(*off, 0, 1);
	int64_t method = me->method;
	double d[3] = {me->tolerance, me->default_tolerance, me->max_step};
	uint64_t u[4] = {me->nstates, me->nevent_indicators, nvrs, nev};
	memcpy(p, &method, sizeof method);
	memcpy(p + 8, d, sizeof d);
	memcpy(p + 32, u, sizeof u);
	p = sart_chan_data(&iso->ch) + sart_chan_span(fixed, 0, 1);
	for (uint64_t i = 0; i < nvrs; i++) {
		uint32_t w[2] = {me->state_vrs[i], me->derivative_vrs[i]};
		memcpy(p + 4 * i, &w[0], 4);
		memcpy(p + 4 * (nvrs + i), &w[1], 4);
	}
	for (uint64_t i = 0; i < nev; i++) {
		uint32_t w = me->event_vrs[i];
		memcpy(p + 4 * (2 * nvrs + i), &w, 4);
	}
	*off = end;
	return SART_OK;
}

/* After those, for an inner with clocks: its SartSeConfig (sart_channel.h,
 * SART_CHAN_CLOCK_BYTES), so that the host's seam keeps the schedule the parent's would. */
static SartStatus put_se(Iso *iso, const SartInnerConfig *cfg, size_t *off)
{
	size_t n = cfg->se.clocks ? cfg->se.nclocks : 0;
	unsigned char *p;
	if (put_table(iso, off, n, SART_CHAN_CLOCK_BYTES, &p) != SART_OK)
		return SART_ERROR;
	for (size_t i = 0; i < n; i++, p += SART_CHAN_CLOCK_BYTES) {
		const SartClock *c = &cfg->se.clocks[i];
		uint32_t w[4] = {c->vr, (uint32_t)c->kind, c->priority, 0};
		double d[2] = {c->interval, c->shift};
		memcpy(p, w, sizeof w);
		memcpy(p + sizeof w, d, sizeof d);
	}
	return SART_OK;
}

/* path as a Windows program under Wine names it: Z: and the absolute path, backslashed
 * (malloc'd; NULL when out of memory or the path is not there). */
#ifdef _WIN32
static char *wine_path(const char *path)
{
	(void)path;
	return NULL; /* never asked: a Windows parent runs its hosts without Wine */
}
#else
static char *wine_path(const char *path)
{
	char *abs = realpath(path, NULL);
	char *w = abs ? malloc(strlen(abs) + 3) : NULL;
	if (w) {
		w[0] = 'Z';
		w[1] = ':';
		char *o = w + 2;
		for (const char *p = abs; *p; p++)
			*o++ = *p == '/' ? '\\' : *p;
		*o = '\0';
	}
	free(abs);
	return w;
}
#endif

/* The load request (sart_channel.h): name, directory, model identifier, then the FMI 3.0
 * types the child's seam needs to pick each getter and setter, the array elements, a
 * Model Exchange inner's settings and the clocks of an inner with clocks.  On SART_ERROR *off is what was needed so far. */
static SartStatus put_load(Iso *iso, const SartInnerConfig *cfg, const char *name,
                           size_t *off)
{
	/* a Windows host sees this process's files on Wine's Z: drive (a directory that is not
	 * there goes as it is, for the host to say so) */
	char *dir = cfg->dir && iso->wine ? wine_path(cfg->dir) : NULL;
	if (!dir)
		dir = strdup(cfg->dir ? cfg->dir : "");
	const char *const parts[] = {name, dir ? dir : "",
	                             cfg->model_identifier ? cfg->model_identifier : ""};
	for (int i = 0; i < 3; i++)
		if (!dir || put_string(iso, parts[i], off) != SART_OK) {
			free(dir);
			return SART_ERROR;
		}
	free(dir);
	size_t n = cfg->vr_types ? cfg->nvr_types : 0;
	unsigned char *p;
	if (put_table(iso, off, n, 2 * sizeof(uint32_t), &p) != SART_OK)
		return SART_ERROR;
	for (size_t i = 0; i < n; i++) {
		uint32_t pair[2] = {cfg->vr_types[i].vr, (uint32_t)cfg->vr_types[i].type};
		memcpy(p + i * sizeof pair, pair, sizeof pair);
	}
	for (size_t i = 0; i < n; i++) {
		const char *vname = cfg->vr_types[i].name;
		if (put_string(iso, vname ? vname : "", off) != SART_OK)
			return SART_ERROR;
	}
	if (put_elements(iso, cfg, off) != SART_OK)
		return SART_ERROR;
	if ((cfg->caps & SART_CAP_MODEL_EXCHANGE) && put_me(iso, cfg, off) != SART_OK)
		return SART_ERROR;
	if (cfg->caps & (SART_CAP_SCHEDULED_EXECUTION | SART_CAP_CLOCKS))
		return put_se(iso, cfg, off);
	return SART_OK;
}

SartStatus sart_inner_load_isolated(const SartInnerConfig *cfg, const SartIsolation *iso_cfg,
                                    SartInner **out)
{
	SartInner *in = NULL;
	if (out)
		*out = NULL;
	if (!cfg || !iso_cfg || !out || !(in = calloc(1, sizeof *in)))
		return SART_ERROR;
	in->ops = &isolated_ops;
	in->logger = cfg->logger;
	in->logger_env = cfg->logger_env;
	in->caps = cfg->caps;
	const char *name = cfg->name && cfg->name[0] ? cfg->name : "?";
	in->name = malloc(strlen(name) + 1);
	Iso *iso = calloc(1, sizeof *iso);
	unsigned char *logbuf = malloc(SART_CHAN_LOG_BYTES);
	if (!in->name || !iso || !logbuf) {
		free(iso);
		free(logbuf);
		sart_inner_free(in);
		return SART_ERROR;
	}
	strcpy(in->name, name);
	iso->ch.fd = -1;
	iso->ch.bell_wr = -1;
	iso->ch.bell_rd = -1;
	iso->wine_lock = -1;
	iso->logbuf = logbuf;
	iso->next_tick = INFINITY;
	iso->step_timeout = iso_cfg->step_timeout;
	iso->call_timeout = iso_cfg->call_timeout;
	in->fatal_as_error = iso_cfg->contained != 0;
	in->impl = iso;
	SartStatus st = spawn(in, iso_cfg);
	if (st == SART_OK) {
		size_t off = 0;
		st = put_load(iso, cfg, name, &off);
		if (st != SART_OK)
			st = too_small(in, SART_OP_LOAD, off);
		iso->ch.h->req_len = off;
		iso->ch.h->n = (uint64_t)cfg->version;
		iso->ch.h->id = cfg->caps;
		if (st == SART_OK)
			st = call(in, SART_OP_LOAD, iso->call_timeout);
	}
	if (st != SART_OK && st != SART_WARNING) {
		sart_inner_free(in);
		return st == SART_FATAL ? SART_ERROR : st;
	}
	in->message[0] = '\0';
	*out = in;
	return st;
}

int sart_inner_is_isolated(const SartInner *in)
{
	return in && in->ops == &isolated_ops;
}

long sart_inner_isolated_pid(const SartInner *in)
{
	return sart_inner_is_isolated(in) ? ((const Iso *)in->impl)->pid : 0;
}

/* ---- the back end's calls --------------------------------------------------------------- */

static SartStatus iso_bind(SartInner *in)
{
	(void)in;
	return SART_OK;
}

/* Asks the child to free everything and leave; a child that does not is killed. */
static void iso_unbind(SartInner *in)
{
	Iso *iso = in->impl;
	if (iso->pid > 0 && iso->ch.h) {
		uint32_t seq;
		int ws;
		iso->ch.h->op = SART_OP_QUIT;
		SartChanWait w = sart_chan_call(&iso->ch, iso->pid, 10.0, &seq, &ws);
		if (w == SART_WAIT_DIED || w == SART_WAIT_TIMEOUT)
			iso->pid = 0;
#ifdef _WIN32
		if (iso->pid > 0 && sart_chan_host_ended(&iso->ch, 2000))
			iso->pid = 0;
#else
		for (int i = 0; iso->pid > 0 && i < 2000; i++) {
			pid_t r = waitpid((pid_t)iso->pid, &ws, WNOHANG);
			if (r == (pid_t)iso->pid || (r < 0 && errno == ECHILD))
				iso->pid = 0;
			else {
				struct timespec ms = {0, 1000000L};
				nanosleep(&ms, NULL);
			}
		}
#endif
	}
	end_child(iso);
	sart_chan_close(&iso->ch);
#ifndef _WIN32
	if (iso->wine_lock >= 0)
		sart_wine_release(iso->wine_lock, iso->wine, iso->wine_prefix);
#endif
	free(iso->wine);
	free(iso->wine_prefix);
	while (iso->states) {
		IsoState *next = iso->states->next;
		free(iso->states);
		iso->states = next;
	}
	free(iso->strbuf);
	free(iso->logbuf);
	free(iso);
	in->impl = NULL;
}

static SartStatus iso_instantiate(SartInner *in, const char *guid, int logging_on)
{
	Iso *iso = in->impl;
	size_t len = strlen(guid) + 1, nim = in->nintermediate_inputs;
	size_t total = len + (nim ? sizeof(uint32_t) * (1 + nim) : 0);
	if (total > iso->ch.data_cap || nim > UINT32_MAX)
		return too_small(in, SART_OP_INSTANTIATE, total);
	unsigned char *data = sart_chan_data(&iso->ch);
	memcpy(data, guid, len);
	if (nim) { /* the intermediate inputs, for the host's seam to give the FMU */
		uint32_t n32 = (uint32_t)nim;
		memcpy(data + len, &n32, sizeof n32);
		for (size_t i = 0; i < nim; i++) {
			uint32_t vr = in->intermediate_inputs[i];
			memcpy(data + len + sizeof n32 * (1 + i), &vr, sizeof vr);
		}
	}
	iso->ch.h->req_len = total;
	iso->ch.h->flags = logging_on ? 1u : 0u;
	return call(in, SART_OP_INSTANTIATE, iso->call_timeout);
}

static void iso_free_instance(SartInner *in)
{
	(void)in; /* the child frees it when told to quit (iso_unbind) */
}

static SartStatus iso_enter_init(SartInner *in, const SartExperiment *ex)
{
	Iso *iso = in->impl;
	SartChanHeader *h = iso->ch.h;
	h->flags = (ex->tolerance_defined ? 1u : 0u) | (ex->stop_time_defined ? 2u : 0u);
	h->d[0] = ex->tolerance;
	h->d[1] = ex->start_time;
	h->d[2] = ex->stop_time;
	return call(in, SART_OP_ENTER_INIT, iso->call_timeout);
}

static SartStatus iso_exit_init(SartInner *in)
{
	return call(in, SART_OP_EXIT_INIT, ((Iso *)in->impl)->call_timeout);
}

/* Every value call: value references, orders (derivatives), values set; values got are
 * read back from the same place. */
static SartStatus values(SartInner *in, uint32_t op, const SartVr vr[], size_t n,
                         const int order[], const void *set, void *get, size_t elem)
{
	Iso *iso = in->impl;
	unsigned char *data = sart_chan_data(&iso->ch);
	size_t vr_end = sart_chan_span(0, n, sizeof(SartVr));
	size_t ord_end = order ? sart_chan_span(vr_end, n, sizeof(int)) : vr_end;
	size_t val_off = sart_chan_span(ord_end, 0, 1), val_end = sart_chan_span(ord_end, n, elem);
	if (!vr_end || !ord_end || !val_end || val_end > iso->ch.data_cap)
		return too_small(in, op, n);
	if (n) {
		memcpy(data, vr, n * sizeof(SartVr));
		if (order)
			memcpy(data + sart_chan_span(vr_end, 0, 1), order, n * sizeof(int));
		if (set)
			memcpy(data + val_off, set, n * elem);
	}
	iso->ch.h->n = n;
	iso->ch.h->req_len = val_end;
	SartStatus st = call(in, op, iso->call_timeout);
	if (get && n && (st == SART_OK || st == SART_WARNING))
		memcpy(get, data + val_off, n * elem);
	return st;
}

static SartStatus iso_get_real(SartInner *in, const SartVr vr[], size_t n, double v[])
{
	return values(in, SART_OP_GET_REAL, vr, n, NULL, NULL, v, sizeof *v);
}

static SartStatus iso_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	return values(in, SART_OP_GET_INTEGER, vr, n, NULL, NULL, v, sizeof *v);
}

static SartStatus iso_get_boolean(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	return values(in, SART_OP_GET_BOOLEAN, vr, n, NULL, NULL, v, sizeof *v);
}

static SartStatus iso_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[])
{
	return values(in, SART_OP_SET_REAL, vr, n, NULL, v, NULL, sizeof *v);
}

static SartStatus iso_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	return values(in, SART_OP_SET_INTEGER, vr, n, NULL, v, NULL, sizeof *v);
}

static SartStatus iso_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	return values(in, SART_OP_SET_BOOLEAN, vr, n, NULL, v, NULL, sizeof *v);
}

static SartStatus iso_set_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                            const int order[], const double value[])
{
	return values(in, SART_OP_SET_INPUT_DERIVATIVES, vr, n, order, value, NULL, sizeof *value);
}

static SartStatus iso_get_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                             const int order[], double value[])
{
	return values(in, SART_OP_GET_OUTPUT_DERIVATIVES, vr, n, order, NULL, value,
	              sizeof *value);
}

static SartStatus iso_set_string(SartInner *in, const SartVr vr[], size_t n,
                                 const char *const v[])
{
	Iso *iso = in->impl;
	size_t vr_end = sart_chan_span(0, n, sizeof(SartVr)), end = 0;
	if (!vr_end || vr_end > iso->ch.data_cap ||
	    put_strings(iso, vr_end, v, n, &end) != SART_OK)
		return too_small(in, SART_OP_SET_STRING, n);
	if (n)
		memcpy(sart_chan_data(&iso->ch), vr, n * sizeof(SartVr));
	iso->ch.h->n = n;
	iso->ch.h->req_len = end;
	return call(in, SART_OP_SET_STRING, iso->call_timeout);
}

/* The strings answered, copied out of the slot (which the child could change). */
static SartStatus iso_get_string(SartInner *in, const SartVr vr[], size_t n, const char *v[])
{
	Iso *iso = in->impl;
	size_t vr_end = sart_chan_span(0, n, sizeof(SartVr));
	if (!vr_end || vr_end > iso->ch.data_cap)
		return too_small(in, SART_OP_GET_STRING, n);
	if (n)
		memcpy(sart_chan_data(&iso->ch), vr, n * sizeof(SartVr));
	iso->ch.h->n = n;
	iso->ch.h->req_len = vr_end;
	SartStatus st = call(in, SART_OP_GET_STRING, iso->call_timeout);
	if (st != SART_OK && st != SART_WARNING)
		return st;
	uint64_t len = iso->ch.h->ans_len;
	if (len > iso->ch.data_cap)
		return lost(in, SART_OP_GET_STRING, "the FMU's process answered garbage (%llu bytes)",
		            (unsigned long long)len);
	if (len + 1 > iso->strcap) {
		char *grown = realloc(iso->strbuf, (size_t)len + 1);
		if (!grown)
			return sart_inner_report(in, SART_ERROR, "getString: out of memory");
		iso->strbuf = grown;
		iso->strcap = (size_t)len + 1;
	}
	memcpy(iso->strbuf, sart_chan_data(&iso->ch), (size_t)len);
	iso->strbuf[len] = '\0';
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		if (off + 1 >= len + 1)
			return lost(in, SART_OP_GET_STRING, "the FMU's process answered garbage "
			            "(%zu strings of %zu)", i, n);
		int present = iso->strbuf[off++] != 0;
		v[i] = present ? iso->strbuf + off : NULL;
		off += strlen(iso->strbuf + off) + 1;
	}
	return st;
}

static SartStatus iso_set_binary(SartInner *in, const SartVr vr[], size_t n,
                                 const unsigned char *const v[], const size_t sizes[])
{
	Iso *iso = in->impl;
	unsigned char *data = sart_chan_data(&iso->ch);
	size_t off = sart_chan_span(0, n, sizeof(SartVr));
	if (!off || off > iso->ch.data_cap)
		return too_small(in, SART_OP_SET_BINARY, n);
	for (size_t i = 0; i < n; i++)
		if (sart_chan_put_bytes(data, iso->ch.data_cap, &off, v[i], sizes[i]))
			return too_small(in, SART_OP_SET_BINARY, n);
	if (n)
		memcpy(data, vr, n * sizeof(SartVr));
	iso->ch.h->n = n;
	iso->ch.h->req_len = off;
	return call(in, SART_OP_SET_BINARY, iso->call_timeout);
}

/* The values answered, copied out of the slot (which the child could change). */
static SartStatus iso_get_binary(SartInner *in, const SartVr vr[], size_t n,
                                 const unsigned char *v[], size_t sizes[])
{
	Iso *iso = in->impl;
	size_t vr_end = sart_chan_span(0, n, sizeof(SartVr));
	if (!vr_end || vr_end > iso->ch.data_cap)
		return too_small(in, SART_OP_GET_BINARY, n);
	if (n)
		memcpy(sart_chan_data(&iso->ch), vr, n * sizeof(SartVr));
	iso->ch.h->n = n;
	iso->ch.h->req_len = vr_end;
	SartStatus st = call(in, SART_OP_GET_BINARY, iso->call_timeout);
	if (st != SART_OK && st != SART_WARNING)
		return st;
	uint64_t len = iso->ch.h->ans_len;
	if (len > iso->ch.data_cap)
		return lost(in, SART_OP_GET_BINARY, "the FMU's process answered garbage (%llu bytes)",
		            (unsigned long long)len);
	if (len + 1 > iso->strcap) {
		char *grown = realloc(iso->strbuf, (size_t)len + 1);
		if (!grown)
			return sart_inner_report(in, SART_ERROR, "getBinary: out of memory");
		iso->strbuf = grown;
		iso->strcap = (size_t)len + 1;
	}
	memcpy(iso->strbuf, sart_chan_data(&iso->ch), (size_t)len);
	size_t off = 0;
	for (size_t i = 0; i < n; i++)
		if (sart_chan_take_bytes((const unsigned char *)iso->strbuf, (size_t)len, &off, &v[i],
		                         &sizes[i]))
			return lost(in, SART_OP_GET_BINARY, "the FMU's process answered garbage "
			            "(%zu values of %zu)", i, n);
	return st;
}

static SartStatus iso_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                              double *reached)
{
	Iso *iso = in->impl;
	SartChanHeader *hd = iso->ch.h;
	iso->t = t;
	iso->h = h;
	hd->d[0] = t;
	hd->d[1] = h;
	hd->flags = no_set_state_prior ? 1u : 0u;
	SartStatus st = call(in, SART_OP_DO_STEP, iso->step_timeout);
	if (st == SART_OK || st == SART_WARNING || st == SART_DISCARD) {
		/* short of t + h after a discard, or an early return (FMI 3.0) */
		double r = hd->reached;
		if (!(r >= t && r <= t + h)) {
			*reached = NAN; /* where the FMU stands is unknown: NaN, as on any error */
			return lost(in, SART_OP_DO_STEP, "the FMU's process answered garbage (a step "
			            "reaching t = %s)", SART_NUM(r));
		}
		*reached = st == SART_DISCARD || (in->caps & SART_CAP_EARLY_RETURN) ? r : t + h;
	} else {
		*reached = NAN;
	}
	return st;
}

/* A handle for the child's state id (a new one unless *state is given). */
static SartStatus take_state(SartInner *in, uint32_t op, void **state)
{
	Iso *iso = in->impl;
	uint64_t id = iso->ch.h->ans_id;
	IsoState *s = *state;
	if (s) {
		if (id != s->id)
			return lost(in, op, "the FMU's process answered garbage (state %llu for %llu)",
			            (unsigned long long)id, (unsigned long long)s->id);
		return SART_OK;
	}
	if (!id)
		return lost(in, op, "the FMU's process answered garbage (no state)");
	s = malloc(sizeof *s);
	if (!s)
		return sart_inner_report(in, SART_ERROR, "out of memory for a state");
	s->id = id;
	s->next = iso->states;
	iso->states = s;
	*state = s;
	return SART_OK;
}

static SartStatus iso_get_state(SartInner *in, void **state)
{
	Iso *iso = in->impl;
	iso->ch.h->id = *state ? ((IsoState *)*state)->id : 0;
	SartStatus st = call(in, SART_OP_GET_STATE, iso->call_timeout);
	if (st != SART_OK && st != SART_WARNING)
		return st;
	SartStatus took = take_state(in, SART_OP_GET_STATE, state);
	return took == SART_OK ? st : took;
}

static SartStatus state_call(SartInner *in, uint32_t op, void *state)
{
	Iso *iso = in->impl;
	if (!state)
		return sart_inner_report(in, SART_ERROR, "%s: no state given", op_names[op]);
	iso->ch.h->id = ((IsoState *)state)->id;
	return call(in, op, iso->call_timeout);
}

static SartStatus iso_set_state(SartInner *in, void *state)
{
	return state_call(in, SART_OP_SET_STATE, state);
}

static SartStatus iso_free_state(SartInner *in, void **state)
{
	Iso *iso = in->impl;
	SartStatus st = state_call(in, SART_OP_FREE_STATE, *state);
	if (st != SART_OK && st != SART_WARNING)
		return st;
	for (IsoState **p = &iso->states; *p; p = &(*p)->next)
		if (*p == *state) {
			*p = (*p)->next;
			break;
		}
	free(*state);
	*state = NULL;
	return st;
}

/* A size beyond the slot could never be serialized through it: an error of this call, so
 * that no caller allocates a buffer of whatever size the child wrote. */
static SartStatus iso_serialized_size(SartInner *in, void *state, size_t *size)
{
	Iso *iso = in->impl;
	SartStatus st = state_call(in, SART_OP_SERIALIZED_SIZE, state);
	if (st != SART_OK && st != SART_WARNING)
		return st;
	uint64_t n = iso->ch.h->ans_n;
	if (n > iso->ch.data_cap)
		return too_small(in, SART_OP_SERIALIZED_SIZE, (size_t)n);
	*size = (size_t)n;
	return st;
}

static SartStatus iso_serialize(SartInner *in, void *state, unsigned char *buf, size_t size)
{
	Iso *iso = in->impl;
	if (size > iso->ch.data_cap)
		return too_small(in, SART_OP_SERIALIZE, size);
	iso->ch.h->n = size;
	SartStatus st = state_call(in, SART_OP_SERIALIZE, state);
	if ((st == SART_OK || st == SART_WARNING) && size)
		memcpy(buf, sart_chan_data(&iso->ch), size);
	return st;
}

static SartStatus iso_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                  void **state)
{
	Iso *iso = in->impl;
	if (size > iso->ch.data_cap)
		return too_small(in, SART_OP_DESERIALIZE, size);
	if (size)
		memcpy(sart_chan_data(&iso->ch), buf, size);
	iso->ch.h->req_len = size;
	iso->ch.h->id = *state ? ((IsoState *)*state)->id : 0;
	SartStatus st = call(in, SART_OP_DESERIALIZE, iso->call_timeout);
	if (st != SART_OK && st != SART_WARNING)
		return st;
	SartStatus took = take_state(in, SART_OP_DESERIALIZE, state);
	return took == SART_OK ? st : took;
}

/* Where the host's seam said the next tick lies after the last call (sart_channel.h). */
static double iso_next_clock_time(const SartInner *in)
{
	return ((const Iso *)in->impl)->next_tick;
}

static SartStatus iso_terminate(SartInner *in)
{
	return call(in, SART_OP_TERMINATE, ((Iso *)in->impl)->call_timeout);
}

static SartStatus iso_reset(SartInner *in)
{
	return call(in, SART_OP_RESET, ((Iso *)in->impl)->call_timeout);
}

/* By field name: the ops table may grow or be reordered without this back end noticing. */
static const SartInnerOps isolated_ops = {
	.fmi_version = "(out of process)",
	.platform = "(the host's)",
	.bind = iso_bind,
	.unbind = iso_unbind,
	.instantiate = iso_instantiate,
	.free_instance = iso_free_instance,
	.enter_init = iso_enter_init,
	.exit_init = iso_exit_init,
	.get_real = iso_get_real,
	.get_integer = iso_get_integer,
	.get_boolean = iso_get_boolean,
	.get_string = iso_get_string,
	.set_real = iso_set_real,
	.set_integer = iso_set_integer,
	.set_boolean = iso_set_boolean,
	.set_string = iso_set_string,
	.set_real_input_derivatives = iso_set_input_derivatives,
	.get_real_output_derivatives = iso_get_output_derivatives,
	.do_step = iso_do_step,
	.get_state = iso_get_state,
	.set_state = iso_set_state,
	.free_state = iso_free_state,
	.serialized_size = iso_serialized_size,
	.serialize = iso_serialize,
	.deserialize = iso_deserialize,
	.terminate = iso_terminate,
	.reset = iso_reset,
	.get_binary = iso_get_binary,
	.set_binary = iso_set_binary,
	.next_clock_time = iso_next_clock_time,
};
