/* isolate.c — which inner FMUs `sacc simulate --isolate` runs out of process, and the
 * master's loader that opens them so (isolate.h). */
#include "isolate.h"
#include "simulate.h"

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
	for (int f = 0; si->sim && f < si->sim->nfmus; f++)
		if (si->sim->fmus[f].wine && !strcmp(si->sim->fmus[f].name, cfg->name))
			return sart_inner_load_isolated(cfg, &si->wine_iso, out);
	if (sim_isolate_covers(si->list, cfg->name))
		return sart_inner_load_isolated(cfg, &si->iso, out);
	return sart_inner_load(cfg, out);
}

/* name beside the running program, or $var, into buf. */
static int find_beside(const char *var, const char *name, char *buf, size_t size, char *err,
                       size_t errsize)
{
	const char *env = getenv(var);
	if (env && *env) {
		snprintf(buf, size, "%s", env);
	} else {
		char self[4000];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0) {
			snprintf(err, errsize, "cannot find the running program (%s is beside it): %s",
			         name, strerror(errno));
			return 1;
		}
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		snprintf(buf, size, "%s/%s", slash ? self : ".", name);
	}
	return 0;
}

/* sacc-fmu-host beside the running program, or $SACC_FMU_HOST. */
static int find_host(SimIsolate *si, char *err, size_t errsize)
{
	if (find_beside("SACC_FMU_HOST", "sacc-fmu-host", si->host, sizeof si->host, err, errsize))
		return 1;
	if (access(si->host, X_OK) != 0) {
		snprintf(err, errsize, "--isolate: cannot run the FMU host %s: %s (it is installed "
		         "beside sacc; SACC_FMU_HOST names another)", si->host, strerror(errno));
		return 1;
	}
	return 0;
}

/* Checks that every instance of list ("all" or "A,B,...") is in sc; option names it. */
static int check_list(const char *option, const char *list, const SartScenario *sc, char *err,
                      size_t errsize)
{
	if (!*list) {
		snprintf(err, errsize, "%s: expected all or a list of instances", option);
		return 1;
	}
	if (!strcmp(list, "all"))
		return 0;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int found = 0;
		for (int f = 0; f < sc->nfmus && !found; f++)
			found = strlen(sc->fmus[f].name) == len && !strncmp(sc->fmus[f].name, p, len);
		if (!found) {
			snprintf(err, errsize, "%s: no inner FMU instance '%.*s' in the scenario", option,
			         (int)len, p);
			return 1;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

int sim_isolate_prepare_wine(SimIsolate *si, const Sim *s, const char *wine,
                             SartMasterOptions *o, char *err, size_t errsize)
{
	SartScenario sc = {0};
	sc.fmus = s->sfmus;
	sc.nfmus = s->nfmus;
	if (wine && check_list("--wine", wine, &sc, err, errsize))
		return 1;
	int first = -1;
	for (int f = 0; f < s->nfmus && first < 0; f++)
		if (s->fmus[f].wine)
			first = f;
	if (wine && first < 0) {
		snprintf(err, errsize, "--wine: none of these FMUs has a Windows library "
		         "(binaries/win64/ or binaries/x86_64-windows/)");
		return 1;
	}
	if (first < 0)
		return 0;
	char why[512];
	if (sart_wine_find(si->wine, sizeof si->wine, why, sizeof why)) {
		snprintf(err, errsize, "instance '%s' runs its FMU's Windows library under Wine: %s",
		         s->fmus[first].name, why);
		return 1;
	}
	if (find_beside("SACC_FMU_HOST_EXE", "sacc-fmu-host.exe", si->wine_host,
	                sizeof si->wine_host, err, errsize))
		return 1;
	if (access(si->wine_host, R_OK) != 0) {
		snprintf(err, errsize, "instance '%s' runs its FMU's Windows library under Wine, in the "
		         "FMU host built for Windows, and %s is not there: %s (sacc builds it when the "
		         "Debian package gcc-mingw-w64-x86-64 is installed; SACC_FMU_HOST_EXE names "
		         "another)", s->fmus[first].name, si->wine_host, strerror(errno));
		return 1;
	}
	si->sim = s;
	si->wine_iso = si->iso;
	si->wine_iso.host_path = si->wine_host;
	si->wine_iso.wine = si->wine;
	o->load_inner = load_inner;
	o->load_env = si;
	return 0;
}

int sim_isolate_prepare(SimIsolate *si, const char *list, const SartScenario *sc,
                        double step_timeout, double call_timeout, SartMasterOptions *o,
                        char *err, size_t errsize)
{
	memset(si, 0, sizeof *si);
	/* the limits hold for the FMUs under Wine too, which are isolated whatever the list */
	si->iso = (SartIsolation){NULL, step_timeout, call_timeout, 0, -1, 0, NULL, NULL};
	if (!list)
		return 0;
	if (check_list("--isolate", list, sc, err, errsize))
		return 1;
	if (find_host(si, err, errsize))
		return 1;
	si->list = list;
	si->iso = (SartIsolation){si->host, step_timeout, call_timeout, 0, -1, 0, NULL, NULL};
	o->load_inner = load_inner;
	o->load_env = si;
	return 0;
}
