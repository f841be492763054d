/* sart_wrapper_isolate.c — a wrapper's isolated inners (SartInnerModel.isolated): opened
 * out of process through sart_isolate.h, in a child running the host program that
 * `sacc build --isolate` ships beside the wrapper's library (binaries/<platform>/
 * sacc-fmu-host).  The wrapper finds it from its own library's place, whatever resource
 * location the importer gives, and contains the inner: a crash or a hang in it is an
 * error of the wrapper's call, never the importer's end.
 *
 * A win64 wrapper does the same with sacc-fmu-host.exe beside its DLL (the channel's
 * Windows side, sart_channel.h).
 *
 * An inner that ships a Windows library only runs so too, in the host built for Windows
 * (sacc-fmu-host.exe, which `sacc build` ships beside a Linux wrapper's library over such
 * an inner) under Wine, whether the script isolates it or not (sart_inner_windows_only). */
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
#define WINDOWS_HOST_NAME "sacc-fmu-host.exe"

static int is_file(const char *dir, const char *sub, const char *id, const char *suffix)
{
	size_t len = strlen(dir) + strlen(sub) + strlen(id) + strlen(suffix) + 16;
	char *p = malloc(len);
	struct stat st;
	int yes = p && (snprintf(p, len, "%s/binaries/%s/%s%s", dir, sub, id, suffix), 1) &&
	          stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

int sart_inner_windows_only(const SartInnerConfig *cfg)
{
	int v3 = cfg->version == SART_FMI3;
	const char *id = cfg->model_identifier;
	return cfg->dir && id && !is_file(cfg->dir, v3 ? "x86_64-linux" : "linux64", id, ".so") &&
	       is_file(cfg->dir, v3 ? "x86_64-windows" : "win64", id, ".dll");
}

/* <directory of the library holding this code>/name, malloc'd; NULL if unknown. */
static char *host_beside_library(const char *name)
{
	Dl_info info;
	if (!dladdr((void *)(size_t)&sart_load_isolated_inner, &info) || !info.dli_fname)
		return NULL;
	const char *lib = info.dli_fname;
	const char *slash = strrchr(lib, '/');
	size_t dir = slash ? (size_t)(slash - lib) : 1;
	char *path = malloc(dir + strlen(name) + 2);
	if (!path)
		return NULL;
	if (slash)
		memcpy(path, lib, dir);
	else
		path[0] = '.';
	path[dir] = '/';
	memcpy(path + dir + 1, name, strlen(name) + 1);
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
	int windows = sart_inner_windows_only(cfg);
	char wine[4096], why[512];
	if (windows && sart_wine_find(wine, sizeof wine, why, sizeof why)) {
		char text[768];
		*out = NULL;
		snprintf(text, sizeof text, "[%s] the FMU ships a Windows library only, which runs "
		         "under Wine: %s", cfg->name, why);
		if (cfg->logger)
			cfg->logger(cfg->logger_env, SART_ERROR, "logStatusError", text);
		return SART_ERROR;
	}
	char *host = host_beside_library(windows ? WINDOWS_HOST_NAME : HOST_NAME);
	if (host && !windows)
		make_executable(host);
	SartIsolation iso = {host ? host : windows ? WINDOWS_HOST_NAME : HOST_NAME, 0.0,
	                     SART_ISOLATE_DEFAULT_CALL_TIMEOUT, 0, -1.0, 1, windows ? wine : NULL,
	                     NULL};
	SartStatus st = sart_inner_load_isolated(cfg, &iso, out);
	free(host);
	return st;
}
#else
/* Windows: the host built for Windows beside the wrapper's DLL, run as it is (an inner with
 * a Windows library is at home here: none needs Wine). */
#include "sart_core_impl.h"
#include "sart_isolate.h"

#include <stdlib.h>
#include <string.h>
#include <windows.h>

#define HOST_NAME "sacc-fmu-host.exe"

/* <directory of the DLL holding this code>\sacc-fmu-host.exe, malloc'd; NULL if unknown. */
static char *host_beside_library(void)
{
	HMODULE self = NULL;
	char path[MAX_PATH + sizeof HOST_NAME];
	if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
	                            GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
	                        (LPCSTR)(size_t)&sart_load_isolated_inner, &self))
		return NULL;
	DWORD n = GetModuleFileNameA(self, path, MAX_PATH);
	if (n == 0 || n >= MAX_PATH)
		return NULL;
	char *slash = strrchr(path, '\\');
	char *fwd = strrchr(path, '/');
	if (fwd && (!slash || fwd > slash))
		slash = fwd;
	if (!slash)
		return NULL;
	strcpy(slash + 1, HOST_NAME);
	char *out = malloc(strlen(path) + 1);
	if (out)
		strcpy(out, path);
	return out;
}

SartStatus sart_load_isolated_inner(const SartInnerConfig *cfg, SartInner **out)
{
	char *host = host_beside_library();
	SartIsolation iso = {host ? host : HOST_NAME, 0.0, SART_ISOLATE_DEFAULT_CALL_TIMEOUT, 0,
	                     -1.0, 1, NULL, NULL};
	SartStatus st = sart_inner_load_isolated(cfg, &iso, out);
	free(host);
	return st;
}

int sart_inner_windows_only(const SartInnerConfig *cfg)
{
	(void)cfg;
	return 0; /* on Windows, every Windows library loads in process */
}
#endif
