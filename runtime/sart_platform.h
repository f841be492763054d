/* sart_platform.h — the little that differs between the platforms a wrapper is built for:
 * loading a shared library, making a path absolute, the name of the binaries/ folder and of
 * a library file, file: URIs of drive-letter paths, and the printf archetype GCC checks
 * formats against.
 *
 * Two implementations, each compiled to nothing on the other platform: sart_platform_posix.c
 * (Linux: dlopen) and sart_platform_win32.c (Windows, built with mingw-w64: LoadLibrary).
 * Everything else in runtime/ is written against this header and stays portable. */
#ifndef SART_PLATFORM_H
#define SART_PLATFORM_H

#include <stddef.h>

#if defined(_WIN32)
#define SART_PLATFORM_FMI2 "win64"          /* binaries/<this>/ of an FMI 2.0 FMU */
#define SART_PLATFORM_FMI3 "x86_64-windows" /* and of an FMI 3.0 FMU */
#define SART_LIB_SUFFIX ".dll"
#else
#define SART_PLATFORM_FMI2 "linux64"
#define SART_PLATFORM_FMI3 "x86_64-linux"
#define SART_LIB_SUFFIX ".so"
#endif

/* The archetype of format attributes: mingw-w64's printf is the C99 one only when
 * __USE_MINGW_ANSI_STDIO is set (sacc builds win64 libraries so), and GCC must then check
 * formats against that one (%zu), not Microsoft's. */
#if defined(__MINGW32__)
#define SART_PRINTF_ARCHETYPE gnu_printf
#else
#define SART_PRINTF_ARCHETYPE printf
#endif

/* Opens the shared library at path with its symbols resolved now and kept to itself
 * (RTLD_LOCAL, RTLD_DEEPBIND where the sanitizers allow it); NULL with why in err. */
void *sart_lib_open(const char *path, char *err, size_t errsize);
/* The address of the function called name in lib, or NULL. */
void *sart_lib_sym(void *lib, const char *name);
void sart_lib_close(void *lib);

/* path made absolute with its links resolved (malloc'd), or NULL with errno set. */
char *sart_absolute_path(const char *path);

/* Whether path is absolute here: "/..." on POSIX, "C:/..." or "C:\..." on Windows. */
int sart_path_is_absolute(const char *path);

/* How many bytes of a file: URI's decoded path come before the platform's path: 1 for the
 * "/" of "/C:/dir" on Windows (file:///C:/dir), else 0. */
size_t sart_uri_path_skip(const char *path);

#endif
