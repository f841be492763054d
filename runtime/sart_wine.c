/* sart_wine.c — Wine for the isolation host built for Windows (sart_isolate.h): finding
 * the loader, the private prefix every Wine host of this user shares, and its shutdown.
 *
 * The prefix is made once (wineboot takes many seconds) and kept; every user of it holds a
 * shared lock on <prefix>.lock for as long as it may start Wine processes there, so that
 * the last one to leave — and only the last, whatever other simulations run at once — shuts
 * the prefix's wineserver down (wineserver -k): nothing of Wine is left running.  A lock
 * dies with its process, so a user killed outright never blocks the others; its hosts end
 * with it (sart_host.c), and the wineserver then leaves on its own a few seconds later.
 *
 * Linux only: compiled to nothing on Windows. */
#ifndef _WIN32
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* environ */
#endif

#include "sart_isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Debian 12's wine64 package puts its loader here, not on PATH (that is the wine
 * package's /usr/bin/wine). */
#define DEBIAN_WINE64 "/usr/lib/wine/wine64"

static int executable(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* name found along $PATH into buf. */
static int on_path(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (len && (size_t)snprintf(buf, size, "%.*s/%s", (int)len, p, name) < size &&
		    executable(buf))
			return 1;
		if (!colon)
			break;
		p = colon + 1;
	}
	return 0;
}

int sart_wine_find(char *buf, size_t size, char *err, size_t errsize)
{
	const char *env = getenv("SACC_WINE");
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		if (executable(buf))
			return 0;
		snprintf(err, errsize, "cannot run Wine's loader %s (from SACC_WINE)", env);
		return 1;
	}
	if (on_path("wine64", buf, size))
		return 0;
	if (executable(DEBIAN_WINE64)) {
		snprintf(buf, size, "%s", DEBIAN_WINE64);
		return 0;
	}
	if (on_path("wine", buf, size))
		return 0;
	snprintf(err, errsize, "Wine is not installed (Debian package wine64; its loader is "
	         DEBIAN_WINE64 ", or SACC_WINE names another)");
	return 1;
}

int sart_wine_default_prefix(char *buf, size_t size)
{
	const char *env = getenv("SACC_WINEPREFIX");
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (env && *env)
		n = snprintf(buf, size, "%s", env);
	else if (cache && cache[0] == '/')
		n = snprintf(buf, size, "%s/sacc/wine", cache);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.cache/sacc/wine", home);
	else
		return 1;
	return n < 0 || (size_t)n >= size;
}

/* mkdir -p of path's parent directories (not path itself). */
static void make_parents(const char *path)
{
	char *p = strdup(path);
	if (!p)
		return;
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	free(p);
}

/* The variables a Wine process of this prefix runs with: the caller's environment with
 * WINEPREFIX replaced; WINEDEBUG (unless the caller set it) quiet; and unless the caller
 * set WINEDLLOVERRIDES, left out: the .NET and HTML engines, which a new prefix would
 * offer to download, and the desktop's programs a session starts that an FMU does not
 * need (explorer, plug and play, svchost, rpcss, the menu builder), which halves the
 * start of a session (about 2 s instead of 4 on a 2-core machine).  NULL when out of
 * memory; free with sart_wine_env_free. */
#define SESSION_OVERRIDES "WINEDLLOVERRIDES=mscoree,mshtml,winemenubuilder.exe,explorer.exe," \
                          "plugplay.exe,svchost.exe,rpcss.exe="

char **sart_wine_env(const char *prefix)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	int failed = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "WINEPREFIX=", 11) != 0 && !(env[k++] = strdup(environ[i])))
			failed = 1;
	size_t len = strlen(prefix) + 12;
	if ((env[k] = malloc(len)) != NULL)
		snprintf(env[k++], len, "WINEPREFIX=%s", prefix);
	else
		failed = 1;
	if (!getenv("WINEDEBUG") && !(env[k++] = strdup("WINEDEBUG=-all")))
		failed = 1;
	if (!getenv("WINEDLLOVERRIDES") && !(env[k++] = strdup(SESSION_OVERRIDES)))
		failed = 1;
	if (failed) {
		sart_wine_env_free(env);
		return NULL;
	}
	return env;
}

void sart_wine_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* Runs argv with env, its output to /dev/null, and waits; returns its exit status or -1. */
static int run_quiet(char *const argv[], char **env)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execve(argv[0], argv, env);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* wineserver beside the loader (Debian: /usr/lib/wine/), else on PATH. */
static int find_wineserver(const char *wine, char *buf, size_t size)
{
	const char *slash = strrchr(wine, '/');
	if (slash && (size_t)snprintf(buf, size, "%.*s/wineserver", (int)(slash - wine), wine) <
	    size && executable(buf))
		return 1;
	if (executable("/usr/lib/wine/wineserver")) {
		snprintf(buf, size, "/usr/lib/wine/wineserver");
		return 1;
	}
	return on_path("wineserver", buf, size);
}

int sart_wine_acquire(const char *wine, const char *prefix, char *err, size_t errsize)
{
	size_t len = strlen(prefix) + 16;
	char *lock = malloc(len), *ready = malloc(len);
	char **env = sart_wine_env(prefix);
	int fd = -1;
	if (!lock || !ready || !env) {
		snprintf(err, errsize, "out of memory");
		goto done;
	}
	snprintf(lock, len, "%s.lock", prefix);
	snprintf(ready, len, "%s/.sacc-ready", prefix);
	make_parents(lock);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errsize, "cannot open the Wine prefix's lock %s: %s", lock,
		         strerror(errno));
		goto done;
	}
	/* made once, by whoever comes first; the others wait for it here */
	if (access(ready, F_OK) != 0) {
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
		if (access(ready, F_OK) != 0) {
			char *argv[] = {(char *)wine, "wineboot", "-i", NULL};
			int rc = run_quiet(argv, env);
			int made = rc == 0 ? open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
			if (made < 0) {
				snprintf(err, errsize, "cannot make the Wine prefix %s (%s wineboot -i "
				         "exited with %d)", prefix, wine, rc);
				close(fd);
				fd = -1;
				goto done;
			}
			close(made);
		}
	}
	while (flock(fd, LOCK_SH) != 0 && errno == EINTR)
		;
done:
	free(lock);
	free(ready);
	sart_wine_env_free(env);
	return fd;
}

void sart_wine_release(int lock_fd, const char *wine, const char *prefix)
{
	char server[4096];
	if (lock_fd < 0)
		return;
	/* the last user of the prefix: no one else holds the lock */
	if (flock(lock_fd, LOCK_EX | LOCK_NB) == 0 && find_wineserver(wine, server, sizeof server)) {
		char **env = sart_wine_env(prefix);
		char *argv[] = {server, "-k", NULL};
		if (env)
			run_quiet(argv, env);
		sart_wine_env_free(env);
	}
	close(lock_fd);
}
#else
typedef int sart_wine_is_empty_on_windows; /* ISO C wants a declaration */
#endif
