/* crash_guard.c — the pending rows and a last word when an FMU kills `sacc simulate`
 * (crash_guard.h).
 *
 * One static (and the doStep in progress, per thread): a signal handler and an exit handler have nowhere else to read from, and
 * one process runs one simulation at a time.  Everything the handlers do is
 * async-signal-safe: write(2), stores, the shortest-number formatter (fmt_real, over
 * runtime/sart_numfmt.c: integer arithmetic and memcpy over constant tables, no allocation,
 * locale or stdio, so the last word's times read as every other message's), and execv of
 * /bin/sh to remove the temporary directory and then die of the same signal, or exit with
 * the same status, so that the parent sees what happened (execve keeps the process id and drops the broken image). */
#define _GNU_SOURCE /* on_exit */
#include "crash_guard.h"
#include "numfmt.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALT_STACK_BYTES (64 * 1024) /* room for the handler after a stack overflow */

static const int guarded[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NGUARDED (sizeof guarded / sizeof guarded[0])

/* The doStep in progress on this thread: with `--threads` several FMUs step at once, each
 * on its own thread, and a fatal signal or exit() is handled on the thread that caused it. */
static _Thread_local struct {
	volatile sig_atomic_t stepping;
	const char *volatile fmu;
	volatile double t, h;
} step_now;

static struct {
	volatile sig_atomic_t armed;
	int fd;
	char *const *rows;
	const size_t *len;
	const long *written;
	const double *last_t;
	const char *tmpdir;
	struct sigaction old[NGUARDED];
	stack_t old_stack;
	void *stack;
	int exit_registered;
} guard;

static size_t put(char *buf, size_t at, const char *s)
{
	size_t n = strlen(s);
	memcpy(buf + at, s, n);
	return at + n;
}

static size_t put_long(char *buf, size_t at, long v)
{
	char digits[24];
	int n = 0;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10) && n < 22);
	if (v < 0)
		buf[at++] = '-';
	while (n)
		buf[at++] = digits[--n];
	return at;
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	default: return "a fatal signal";
	}
}

/* The rows, then "sacc simulate: [fmu] doStep(t = T, h = H): what\n" and the summary. */
static void last_word(const char *what)
{
	char msg[1024];
	size_t at = put(msg, 0, "sacc simulate: ");
	ssize_t w = 0;
	if (guard.fd >= 0 && guard.rows && *guard.rows && guard.len && *guard.len)
		w = write(guard.fd, *guard.rows, *guard.len);
	const char *fmu = step_now.fmu;
	if (step_now.stepping && fmu && strlen(fmu) < 400) {
		at = put(msg, at, "[");
		at = put(msg, at, fmu);
		at = put(msg, at, "] doStep(t = ");
		at += fmt_real(msg + at, step_now.t);
		at = put(msg, at, ", h = ");
		at += fmt_real(msg + at, step_now.h);
		at = put(msg, at, "): ");
	} else {
		at = put(msg, at, "outside any doStep (in another call to an FMU, or in sacc): ");
	}
	at = put(msg, at, what);
	at = put(msg, at, "\nsacc simulate: stopped at t = ");
	at += fmt_real(msg + at, *guard.last_t);
	at = put(msg, at, ": ");
	at = put_long(msg, at, *guard.written > 0 ? *guard.written - 1 : 0);
	at = put(msg, at, " steps accepted (the result holds each)\n");
	w = write(STDERR_FILENO, msg, at);
	(void)w;
}

/* Removes the temporary directory and ends as `how` says ("kill -N $$" or "exit N"). */
static void finish(const char *how)
{
	char *argv[] = {"sh", "-c", NULL, "sh", (char *)guard.tmpdir, NULL};
	argv[2] = (char *)how;
	if (guard.tmpdir)
		execv("/bin/sh", argv);
}

static void on_fatal(int sig)
{
	char what[96], how[96];
	size_t at = put(what, 0, "the process got signal ");
	at = put_long(what, at, sig);
	at = put(what, at, " (");
	at = put(what, at, signal_name(sig));
	at = put(what, at, ") inside the FMU");
	what[at] = '\0';
	last_word(what);
	guard.armed = 0;
	signal(sig, SIG_DFL);
	at = put(how, 0, "rm -rf -- \"$1\"; kill -");
	at = put_long(how, at, sig);
	at = put(how, at, " $$");
	how[at] = '\0';
	finish(how);
	raise(sig);
	_exit(128 + sig);
}

static void on_exit_inside(int status, void *arg)
{
	char what[96], how[96];
	(void)arg;
	if (!guard.armed)
		return;
	guard.armed = 0;
	size_t at = put(what, 0, "the FMU called exit(");
	at = put_long(what, at, status);
	at = put(what, at, ")");
	what[at] = '\0';
	last_word(what);
	int code = status ? status : 1;
	at = put(how, 0, "rm -rf -- \"$1\"; exit ");
	at = put_long(how, at, code);
	how[at] = '\0';
	finish(how);
	_exit(code);
}

void crash_guard_arm(int fd, char *const *rows, const size_t *len, const long *written,
                     const double *last_t, const char *tmpdir)
{
	guard.fd = fd;
	guard.rows = rows;
	guard.len = len;
	guard.written = written;
	guard.last_t = last_t;
	guard.tmpdir = tmpdir;
	step_now.stepping = 0;
	guard.stack = malloc(ALT_STACK_BYTES);
	if (guard.stack) {
		stack_t ss = {.ss_sp = guard.stack, .ss_size = ALT_STACK_BYTES, .ss_flags = 0};
		sigaltstack(&ss, &guard.old_stack);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NGUARDED; i++)
		sigaction(guarded[i], &sa, &guard.old[i]);
	if (!guard.exit_registered)
		guard.exit_registered = on_exit(on_exit_inside, NULL) == 0;
	guard.armed = 1;
}

void crash_guard_step(const char *fmu, double t, double h, int done)
{
	step_now.fmu = fmu;
	step_now.t = t;
	step_now.h = h;
	step_now.stepping = !done;
}

void crash_guard_disarm(void)
{
	if (!guard.armed)
		return;
	guard.armed = 0;
	for (size_t i = 0; i < NGUARDED; i++)
		sigaction(guarded[i], &guard.old[i], NULL);
	if (guard.stack) {
		sigaltstack(&guard.old_stack, NULL);
		free(guard.stack);
		guard.stack = NULL;
	}
}
