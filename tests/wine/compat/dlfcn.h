/* dlfcn.h for the suite's importers cross-built for Windows (tests/wine/): dlopen, dlsym,
 * dlclose and dlerror over LoadLibrary and GetProcAddress, so that fmi2_importer.h,
 * fmi3_importer.h and fmi_strict.h compile unchanged with mingw-w64.  Only on the include
 * path of the Windows build (tests/wine/run.sh); the Linux build uses glibc's. */
#ifndef SACC_WINE_DLFCN_H
#define SACC_WINE_DLFCN_H

#include <stdio.h>
#include <string.h>
#include <windows.h>

#define RTLD_NOW 2
#define RTLD_LOCAL 0

static char dlfcn_compat_error[64];

static inline void *dlopen(const char *path, int flags)
{
	(void)flags;
	HMODULE h = LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
	if (!h)
		snprintf(dlfcn_compat_error, sizeof dlfcn_compat_error, "LoadLibrary error %lu",
		         (unsigned long)GetLastError());
	return (void *)h;
}

static inline void *dlsym(void *lib, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)lib, name);
	void *p;
	memcpy(&p, &f, sizeof p);
	return p;
}

static inline int dlclose(void *lib)
{
	return FreeLibrary((HMODULE)lib) ? 0 : -1;
}

static inline char *dlerror(void)
{
	return dlfcn_compat_error;
}

#endif
