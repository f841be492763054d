/* crash_guard.h — results that survive the process: while `sacc simulate` runs its FMUs in
 * process, a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or a call to exit()
 * inside an FMU no longer loses the run.  The handler writes the rows gathered but not yet
 * written (with write(2) only: async-signal-safe), one line naming the FMU, the call and
 * the time, removes the temporary directory and ends the process so that its status says
 * what happened: killed by the same signal (a shell shows 128 + its number), or, after an
 * exit inside an FMU, that exit's status (1 if it was 0: the run did not finish). */
#ifndef SACC_CRASH_GUARD_H
#define SACC_CRASH_GUARD_H

#include <stddef.h>

/* Arms the guard for one run.  fd and *rows, *len: the result's descriptor and the rows
 * gathered for it (fd < 0: none to write); *written and *last_t: the points written so far
 * and the last one's time; tmpdir (may be NULL): removed before the end.  The pointers must
 * stay valid until crash_guard_disarm. */
void crash_guard_arm(int fd, char *const *rows, const size_t *len, const long *written,
                     const double *last_t, const char *tmpdir);

/* Around every doStep: which FMU is being stepped from t by h (done = 0), or none (1). */
void crash_guard_step(const char *fmu, double t, double h, int done);

/* The run is over: the previous handlers come back. */
void crash_guard_disarm(void);

#endif
