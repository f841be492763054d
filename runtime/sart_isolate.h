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
 * and no file is made.
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

/* The host program: argv = {prog, "sart-host", FD, PARENT_PID}.  Serves requests on the
 * shared memory behind descriptor FD until told to quit; returns the process's exit
 * status (0 after a quit, 2 on a bad command line or channel). */
int sart_host_main(int argc, char **argv);

#endif
