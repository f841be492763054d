/* isolate.h — `sacc simulate --isolate all|INST,...`: the chosen inner FMUs are opened
 * out of process (runtime/sart_isolate.h), each in a child running sacc-fmu-host, so that
 * a crash, an exit or a hang inside one becomes a failed call and the run stops with
 * every accepted step written.  This file chooses the FMUs, finds the host program and
 * gives the master its loader; the option itself is one line of simulate_cli.c.
 *
 * An FMU that ships a Windows library only (or one --wine names) runs the same way in the
 * host built for Windows, sacc-fmu-host.exe, under Wine (SimFmu.wine, chosen by
 * sim_choose_wine): this file finds that host and Wine's loader too. */
#ifndef SACC_ISOLATE_H
#define SACC_ISOLATE_H

#include <stddef.h>

#include "sart_isolate.h"
#include "sart_master.h"

struct Sim;

typedef struct SimIsolate {
	const char *list;      /* "all" or "A,B,..."; NULL for none */
	SartIsolation iso;
	char host[4096];
	const struct Sim *sim; /* set when an instance runs under Wine (SimFmu.wine) */
	SartIsolation wine_iso;
	char wine_host[4096], wine[4096];
} SimIsolate;

/* Checks list (NULL: nothing to isolate) against sc's instance names and finds the host:
 * $SACC_FMU_HOST, else sacc-fmu-host beside the running program.  step_timeout (s, 0 for
 * none) becomes the limit on each isolated doStep, call_timeout (s, 0 for none) on every
 * other call.  On success o's loader is set when anything is isolated, and 0 is returned;
 * otherwise 1 with a message in err. */
int sim_isolate_prepare(SimIsolate *si, const char *list, const SartScenario *sc,
                        double step_timeout, double call_timeout, SartMasterOptions *o,
                        char *err, size_t errsize);

/* Then the instances of s that run under Wine, if any: the Windows host ($SACC_FMU_HOST_EXE,
 * else sacc-fmu-host.exe beside the running program) and Wine's loader found; wine is
 * --wine's list, checked against the instances.  Returns 0, or 1 with a message in err
 * (Wine missing names its Debian package). */
int sim_isolate_prepare_wine(SimIsolate *si, const struct Sim *s, const char *wine,
                             SartMasterOptions *o, char *err, size_t errsize);

/* Whether list ("all", "A,B", NULL) names instance name. */
int sim_isolate_covers(const char *list, const char *name);

#endif
