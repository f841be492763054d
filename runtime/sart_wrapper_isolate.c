/* sart_wrapper_isolate.c — a wrapper's isolated inners (SartInnerModel.isolated): opened
 * out of process through sart_isolate.h, in a child running the host program that
 * `sacc build --isolate` ships beside the wrapper's library (binaries/<platform>/
 * sacc-fmu-host).  The wrapper finds it from its own library's place, whatever resource
 * location the importer gives, and contains the inner: a crash or a hang in it is an
 * error of the wrapper's call, never the importer's end. */
#ifndef _WIN32
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif

#include "sart_core_impl.h"
#include "sart_isolate.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOST_NAME "sacc-fmu-host"

/* <directory of the library holding this code>/sacc-fmu-host, malloc'd; NULL if unknown. */
static char *host_beside_library(void)
{
	Dl_info info;
	if (!dladdr((void *)(size_t)&sart_load_isolated_inner, &info) || !info.dli_fname)
		return NULL;
	const char *lib = info.dli_fname;
	const char *slash = strrchr(lib, '/');
	size_t dir = slash ? (size_t)(slash - lib) : 1;
	char *path = malloc(dir + sizeof HOST_NAME + 1);
	if (!path)
		return NULL;
	if (slash)
		memcpy(path, lib, dir);
	else
		path[0] = '.';
	path[dir] = '/';
	memcpy(path + dir + 1, HOST_NAME, sizeof HOST_NAME);
	return path;
}

/* An importer that unzips without the archive's file modes leaves the host not executable;
 * it owns the extracted file, so it may be made so (read bits become execute bits). */
static void make_executable(const char *path)
{
	struct stat st;
	if (access(path, X_OK) == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	mode_t x = (st.st_mode & (S_IRUSR | S_IRGRP | S_IROTH)) >> 2;
	if (chmod(path, st.st_mode | x | S_IXUSR) != 0)
		return; /* the start then fails with a message naming the file */
}

SartStatus sart_load_isolated_inner(const SartInnerConfig *cfg, SartInner **out)
{
	char *host = host_beside_library();
	if (host)
		make_executable(host);
	SartIsolation iso = {host ? host : HOST_NAME, 0.0, SART_ISOLATE_DEFAULT_CALL_TIMEOUT, 0,
	                     -1.0, 1, NULL, NULL};
	SartStatus st = sart_inner_load_isolated(cfg, &iso, out);
	free(host);
	return st;
}
#else
/* A win64 wrapper runs its inners in process: the host program and its channel are
 * Linux's (fork, shared memory, futexes), and `sacc build` refuses isolated inners for
 * win64, so this only guards a hand-written model. */
#include "sart_core_impl.h"
#include "sart_isolate.h"

SartStatus sart_load_isolated_inner(const SartInnerConfig *cfg, SartInner **out)
{
	(void)cfg;
	*out = NULL;
	return SART_ERROR;
}
#endif
