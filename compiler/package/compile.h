/* compile.h — the C compiler behind `sacc build` (package.c): a wrapper's sources are
 * compiled one object each, several at once, then linked; the objects of the embedded
 * runtime are kept in a cache that every later build reuses, so that once the runtime is
 * compiled a wrapper costs the compilation of its own adaptation and a link.
 *
 * The cache is a directory of objects named by a hash of everything that makes them: the
 * sacc version and its embedded runtime, the compiler's command and `--version` text, the
 * flags, the source's path and bytes.  It is $SACC_CACHE_DIR, else $XDG_CACHE_HOME/sacc,
 * else ~/.cache/sacc; SACC_CACHE_DIR set to the empty string turns it off.  Entries are
 * written to a temporary name and renamed, so builds running at once may share it; a
 * cached object the linker refuses is dropped and compiled again. */
#ifndef SACC_COMPILE_H
#define SACC_COMPILE_H

#include <stdbool.h>

#include "driver.h"

typedef struct PkgCompileJob {
	const char *tree;                /* the directory the compiler runs in; sources, output
	                                  * and include flags are relative to it */
	const char *objdir;              /* where objects that are not cached go (absolute) */
	const char *cc;                  /* the compiler command, split at blanks */
	const char *const *flags;        /* what every object is compiled with */
	int nflags;
	const char *const *sources;
	int nsources;
	const bool *cacheable;           /* per source: an embedded runtime file as written */
	const char *const *link_flags;   /* the link's options before the objects (-shared) */
	int nlink_flags;
	const char *const *libs;         /* and after them (-lm -ldl) */
	int nlibs;
	const char *output;
	const char *what;                /* "the wrapper", for the messages */
	const char *adaptation;          /* whose build this is, for the messages */
	Loc loc;                         /* where its errors are reported */
} PkgCompileJob;

/* Compiles and links job; every failure is reported through c's diagnostics with the
 * command that failed and its output.  Returns 0 or 1. */
int pkg_compile(Compilation *c, const PkgCompileJob *job);

/* The cache directory in force (see above), or NULL when there is none. */
const char *pkg_cache_dir(Compilation *c);

#endif
