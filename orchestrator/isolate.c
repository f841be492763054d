/* isolate.c — which inner FMUs `sacc simulate --isolate` runs out of process, and the
 * master's loader that opens them so (isolate.h). */
#include "isolate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sim_isolate_covers(const char *list, const char *name)
{
	if (!list)
		return 0;
	if (!strcmp(list, "all"))
		return 1;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return 1;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* The master's loader: isolated or in process, by instance name. */
static SartStatus load_inner(void *env, const SartInnerConfig *cfg, SartInner **out)
{
	const SimIsolate *si = env;
	if (sim_isolate_covers(si->list, cfg->name))
		return sart_inner_load_isolated(cfg, &si->iso, out);
	return sart_inner_load(cfg, out);
}

/* sacc-fmu-host beside the running program, or $SACC_FMU_HOST. */
static int find_host(SimIsolate *si, char *err, size_t errsize)
{
	const char *env = getenv("SACC_FMU_HOST");
	if (env && *env) {
		snprintf(si->host, sizeof si->host, "%s", env);
	} else {
		char self[4000];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0) {
			snprintf(err, errsize, "--isolate: cannot find the running program: %s",
			         strerror(errno));
			return 1;
		}
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		snprintf(si->host, sizeof si->host, "%s/sacc-fmu-host", slash ? self : ".");
	}
	if (access(si->host, X_OK) != 0) {
		snprintf(err, errsize, "--isolate: cannot run the FMU host %s: %s (it is installed "
		         "beside sacc; SACC_FMU_HOST names another)", si->host, strerror(errno));
		return 1;
	}
	return 0;
}

int sim_isolate_prepare(SimIsolate *si, const char *list, const SartScenario *sc,
                        double step_timeout, double call_timeout, SartMasterOptions *o,
                        char *err, size_t errsize)
{
	memset(si, 0, sizeof *si);
	if (!list)
		return 0;
	if (!*list) {
		snprintf(err, errsize, "--isolate: expected all or a list of instances");
		return 1;
	}
	if (strcmp(list, "all") != 0) {
		for (const char *p = list; *p;) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			int found = 0;
			for (int f = 0; f < sc->nfmus && !found; f++)
				found = strlen(sc->fmus[f].name) == len && !strncmp(sc->fmus[f].name, p, len);
			if (!found) {
				snprintf(err, errsize, "--isolate: no inner FMU instance '%.*s' in the "
				         "scenario", (int)len, p);
				return 1;
			}
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	if (find_host(si, err, errsize))
		return 1;
	si->list = list;
	si->iso = (SartIsolation){si->host, step_timeout, call_timeout, 0, -1, 0};
	o->load_inner = load_inner;
	o->load_env = si;
	return 0;
}
