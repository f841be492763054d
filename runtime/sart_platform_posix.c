/* sart_platform_posix.c — sart_platform.h on Linux: dlopen, realpath.  Compiled to nothing
 * on Windows (sart_platform_win32.c is that platform's). */
#ifndef _WIN32
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEEPBIND, realpath(path, NULL) */
#endif

#include "sart_platform.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* AddressSanitizer refuses to dlopen with RTLD_DEEPBIND (a library bound deep would call
 * its own malloc, not the interceptor), so sanitized builds go without it.  They then rely
 * on RTLD_LOCAL alone: an inner FMU's references to its own fmi2* functions could bind to
 * the wrapper's exported ones, which the test FMUs never do.  musl has no DEEPBIND. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SART_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SART_ASAN 1
#endif
#endif

/* The flags inner libraries are opened with: RTLD_DEEPBIND, which the address and thread
 * sanitizers refuse, unless one of them is in.  A wrapper built without ASan can still be
 * loaded into a sanitized process (the test suite's ASan run loads the built FMUs), so the
 * ASan runtime is also looked for in the process itself. */
static int dlopen_flags(void)
{
	int flags = RTLD_NOW | RTLD_LOCAL;
#if defined(RTLD_DEEPBIND) && !defined(SART_ASAN)
	if (!dlsym(RTLD_DEFAULT, "__asan_init"))
		flags |= RTLD_DEEPBIND;
#endif
	return flags;
}

void *sart_lib_open(const char *path, char *err, size_t errsize)
{
	void *lib = dlopen(path, dlopen_flags());
	if (!lib) {
		const char *why = dlerror();
		snprintf(err, errsize, "%s", why ? why : "dlopen failed");
	}
	return lib;
}

void *sart_lib_sym(void *lib, const char *name)
{
	return dlsym(lib, name);
}

void sart_lib_close(void *lib)
{
	dlclose(lib);
}

char *sart_absolute_path(const char *path)
{
	return realpath(path, NULL);
}

int sart_path_is_absolute(const char *path)
{
	return path && path[0] == '/';
}

size_t sart_uri_path_skip(const char *path)
{
	(void)path;
	return 0;
}
#else
typedef int sart_platform_posix_is_empty_on_windows; /* ISO C wants a declaration */
#endif
