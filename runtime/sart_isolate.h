/* sart_isolate.h — inner FMUs out of process.
 *
 * sart_inner_load_isolated opens an inner FMU as sart_inner_load does, but in a child
 * process: a host program (sart_host_main, shipped as `sacc-fmu-host`) loads the FMU through
 * the ordinary seam and answers the parent's calls, carried over one shared-memory slot
 * (memfd, futex wake-ups after a brief spin; sart_channel.h).  The SartInner it gives is
 * used through sart_inner.h like any other: every call, states and their serialization
 * included, crosses to the child.  A state handle in the parent names the child's state.
 *
 * A child that crashes, is killed, exits, answers garbage or overruns its time limit turns
 * the call into SART_FATAL with a message naming the instance, the call and the cause
 * ("[faulty] doStep(t = 1, h = 0.1): the FMU's process died of signal 11 (SIGSEGV)"); the
 * child is then gone (killed and reaped).  Nothing outlives the parent: the child asks for
 * SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG), the memfd has no name,
 * and no file is made.  On Windows (a win64 wrapper) the host is sacc-fmu-host.exe, handed a
 * nameless section by handle and started in a job that kills it when the parent's process
 * ends; a crash is reported by its exception code ("died of exception 0xc0000005 (access
 * violation)").
 *
 * No global state; the host program is one function so that whoever ships it (sacc, or a
 * wrapper FMU's archive) writes only a three-line main. */
#ifndef SART_ISOLATE_H
#define SART_ISOLATE_H

#include "sart_inner.h"

typedef struct SartIsolation {
	const char *host_path; /* the host program to execute (absolute, or relative to cwd) */
	double step_timeout;   /* s of wall-clock time for one doStep; 0 for no limit */
	double call_timeout;   /* s for any other call; 0 for no limit */
	size_t shm_size;       /* bytes of the shared slot; 0 for the default (4 MiB) */
	double spin_us;        /* how long each side spins before sleeping; < 0 for the default */
	/* 1: the FMU's fatal outcomes (its own SART_FATAL, or its process lost: crashed, killed,
	 * exited, garbage, a time limit) are returned as SART_ERROR, the FMU still getting no
	 * further call.  The caller's process is unharmed, so a wrapper FMU over the inner need
	 * not be lost with it: it returns an error to its importer, which may still free it. */
	int contained;
	/* Wine's loader (sart_wine_find), or NULL: host_path is then the host built for
	 * Windows (sacc-fmu-host.exe), run under Wine for an FMU that ships Windows binaries
	 * only.  The channel is the same memfd, mapped through Wine's Z: drive; wake-ups are
	 * doorbell bytes on the host's stdin and stdout (sart_channel.h). */
	const char *wine;
	const char *wine_prefix; /* the Wine prefix; NULL for sart_wine_default_prefix's */
} SartIsolation;

#define SART_ISOLATE_DEFAULT_SHM ((size_t)4 << 20)

/* The limit on any call but doStep that wrapper FMUs use, and `sacc simulate` unless
 * --call-timeout says otherwise: generous, since instantiation and initialization of a large
 * FMU may take long, but a hang still ends. */
#define SART_ISOLATE_DEFAULT_CALL_TIMEOUT 600.0

/* As sart_inner_load, in a child running iso->host_path.  On failure *out is NULL and the
 * message went to cfg->logger. */
SartStatus sart_inner_load_isolated(const SartInnerConfig *cfg, const SartIsolation *iso,
                                    SartInner **out);

/* Whether in runs out of process. */
int sart_inner_is_isolated(const SartInner *in);

/* The process id of in's host child (0 if none, e.g. after it died). */
long sart_inner_isolated_pid(const SartInner *in);

/* ---- Wine (sart_wine.c, Linux only) ---- */

/* Wine's loader: $SACC_WINE, wine64 on PATH, Debian's /usr/lib/wine/wine64, or wine on
 * PATH, into buf.  Returns 0, or 1 with a message naming the package in err. */
int sart_wine_find(char *buf, size_t size, char *err, size_t errsize);

/* The private prefix all of this user's Wine hosts share, made once and kept:
 * $SACC_WINEPREFIX, else $XDG_CACHE_HOME/sacc/wine, else ~/.cache/sacc/wine.  Returns 0,
 * or 1 when there is no home to put it in or it does not fit. */
int sart_wine_default_prefix(char *buf, size_t size);

/* Becomes a user of prefix, making it first if no one has (wineboot, seconds): returns a
 * lock descriptor for sart_wine_release, or -1 with a message in err. */
int sart_wine_acquire(const char *wine, const char *prefix, char *err, size_t errsize);

/* Stops being a user; the last user of the prefix shuts its wineserver down, and with it
 * every Wine process of the prefix. */
void sart_wine_release(int lock_fd, const char *wine, const char *prefix);

/* The environment of a Wine process of prefix (the caller's, WINEPREFIX set, Wine's debug
 * output off unless WINEDEBUG says otherwise); NULL when out of memory. */
char **sart_wine_env(const char *prefix);
void sart_wine_env_free(char **env);

/* The host program: argv = {prog, "sart-host", FD, PARENT_PID}.  Serves requests on the
 * shared memory behind descriptor FD until told to quit (built for Windows, FD is
 * "handle=N", a section inherited from a Windows parent, or the path of a Linux parent's
 * shared file, Z:\proc\<parent>\fd\<fd>); returns the process's exit
 * status (0 after a quit, 2 on a bad command line or channel). */
int sart_host_main(int argc, char **argv);

#endif
