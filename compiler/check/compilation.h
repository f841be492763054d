/* compilation.h — what the front end and checker run on: the loaded modules, and the
 * Compilation that holds them with the arena, the diagnostics sink and the providers the
 * checker asks for what lies outside the script.
 *
 * The checker never opens a file or runs a later stage itself: it asks CheckEnv, whose
 * functions the driver fills for the command line (driver.c: FMUs read from disk, -L
 * directories, UDUNITS-2, inner adaptations reduced by the rewrite stage, SSP systems) and
 * the language server fills for an editor (lsp/lsp_check.c: the same, with FMUs kept across
 * edits while their files are unchanged).  So check/ includes only front/ headers and
 * its own: each stage calls only the stages before it (front, check, rewrite, emit,
 * package), which `make check-layers` enforces. */
#ifndef SACC_COMPILATION_H
#define SACC_COMPILATION_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "fmu.h"
#include "units.h"

typedef struct Module {
	struct Module *next;
	const char *path;     /* as given or found */
	const char *dir;      /* its directory, for relative FMU paths and imports */
	char *text;           /* owned: the source, NUL-terminated */
	size_t len;
	Node *root;           /* ND_FILE, NULL when it did not parse */
	const char *ssp_path; /* the SSP system it was written from (ssp_adapt.c); NULL for a
	                       * script */
	int state;            /* import resolution: 0 new, 1 resolving, 2 done */
	struct Module **imports;
	int nimports;
} Module;

struct Compilation;
struct SaInfo;

/* The checker's providers.  Each reports its own failures through c->diag (at `where`
 * when it has one) and returns NULL (or nonzero) after doing so. */
typedef struct CheckEnv {
	/* Where a relative FMU path of a script in script_dir is found; NULL when nowhere. */
	const char *(*find_fmu_file)(struct Compilation *c, const char *script_dir,
				     const char *path);
	/* Where find_fmu_file looked, for the note of an FMU not found; in the arena. */
	const char *(*fmu_dirs_searched)(struct Compilation *c, const char *script_dir,
					 const char *path);
	/* The model description of the FMU at path (found by find_fmu_file); it stays valid
	 * while c lives. */
	FmuInfo *(*open_fmu)(struct Compilation *c, const char *path, Loc where);
	/* The unit system; NULL (reported once) when it cannot be opened. */
	UnitSystem *(*units)(struct Compilation *c);
	/* Reduces a checked inner adaptation to its explicit form, the interface its wrapper
	 * offers; the number of errors. */
	int (*reduce)(struct Compilation *c, struct SaInfo *info);
	/* The module of the adaptation made from the SSP system at path (.ssp, .ssd); NULL
	 * when systems are not offered or after a report. */
	Module *(*system_module)(struct Compilation *c, const char *path);
	/* The text of the module file at path when the provider holds a newer one than the
	 * disk (an editor's unsaved buffer), malloc'd with a NUL after it; NULL to read the
	 * file.  May itself be NULL. */
	char *(*module_text)(struct Compilation *c, const char *path, size_t *len);
} CheckEnv;

/* Everything one run creates: the arena with every tree, the sink, the modules.  The
 * fields after `modules` are the driver's (driver.h); the checker reads only env. */
typedef struct Compilation {
	Arena *arena;
	DiagSink *diag;
	const CheckEnv *env;
	void *env_data;       /* the provider's own state (the language server's caches) */
	UnitSystem *units;    /* the driver's: opened on first use */
	const char *units_error;
	Module *modules;
	FmuInfo **fmus;       /* the driver's: every FMU read, freed with the compilation */
	int nfmus, capfmus;
	const char **include_dirs;  /* -I: where imports are looked for */
	int ninclude;
	const char **fmu_dirs;      /* -L: where relative inner FMU paths are looked for */
	int nfmu_dirs;
	struct SspModel **ssps;     /* SSP systems read for adaptations, freed with it */
	int nssps;
} Compilation;

/* Whether path names an SSP system (.ssp or .ssd) rather than an FMU. */
bool chk_is_system_path(const char *path);

#endif
