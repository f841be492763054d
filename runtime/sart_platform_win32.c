/* sart_platform_win32.c — sart_platform.h on Windows (built with mingw-w64, run on Windows
 * or under Wine): LoadLibrary, GetProcAddress, _fullpath.  Compiled to nothing elsewhere
 * (sart_platform_posix.c is Linux's). */
#ifdef _WIN32
#include "sart_platform.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

void *sart_lib_open(const char *path, char *err, size_t errsize)
{
	/* LOAD_WITH_ALTERED_SEARCH_PATH: DLLs the library itself needs are looked for beside
	 * it first, as an FMU's binaries/win64/ folder expects. */
	HMODULE h = LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
	if (!h) {
		DWORD code = GetLastError();
		char msg[256] = "";
		FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
		               0, msg, (DWORD)sizeof msg, NULL);
		size_t n = strlen(msg);
		while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' '))
			msg[--n] = '\0';
		snprintf(err, errsize, "LoadLibrary failed (error %lu)%s%s", (unsigned long)code,
		         n ? ": " : "", msg);
	}
	return (void *)h;
}

void *sart_lib_sym(void *lib, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)lib, name);
	void *p;
	memcpy(&p, &f, sizeof p); /* a function's address as the void * the callers copy back */
	return p;
}

void sart_lib_close(void *lib)
{
	FreeLibrary((HMODULE)lib);
}

char *sart_absolute_path(const char *path)
{
	DWORD attrs = GetFileAttributesA(path);
	if (attrs == INVALID_FILE_ATTRIBUTES) {
		errno = ENOENT;
		return NULL;
	}
	char *abs = _fullpath(NULL, path, 0);
	if (!abs)
		errno = ENOMEM;
	return abs;
}

static int is_drive(const char *p)
{
	return isalpha((unsigned char)p[0]) && p[1] == ':' && (p[2] == '/' || p[2] == '\\');
}

int sart_path_is_absolute(const char *path)
{
	return path && is_drive(path);
}

size_t sart_uri_path_skip(const char *path)
{
	return path[0] == '/' && is_drive(path + 1) ? 1 : 0;
}
#else
typedef int sart_platform_win32_is_empty_elsewhere; /* ISO C wants a declaration */
#endif
