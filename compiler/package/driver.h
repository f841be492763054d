/* driver.h — the pipeline: load -> parse -> check -> lower -> explicit -> emit.
 *
 * A Compilation owns everything one run of sacc creates: the arena with every tree, the
 * diagnostics sink, the unit system, the FMU records and the loaded modules.  The CLI
 * (main.c) and the tests drive it through these calls. */
#ifndef SACC_DRIVER_H
#define SACC_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "compilation.h"


Compilation *drv_new(FILE *diag_out);
void drv_free(Compilation *c);
void drv_add_include_dir(Compilation *c, const char *dir);
void drv_add_fmu_dir(Compilation *c, const char *dir);

/* Keeps an SSP system read for an adaptation (ssp_adapt.c) until drv_free, which calls
 * ssp_free on it: its FMUs stay extracted while the build needs them. */
struct SspModel;
void drv_keep_ssp(Compilation *c, struct SspModel *m);

/* Whether paths a and b name one file: the same spelling, or two spellings of it
 * ("a.sa" and "./a.sa"). */
bool drv_same_file(const char *a, const char *b);

/* Where a relative FMU path of a script in script_dir is found: beside the script, then in
 * each -L directory (by the path, then by its file name).  NULL when nowhere; an absolute
 * path only as it is. */
const char *drv_find_fmu_file(Compilation *c, const char *script_dir, const char *path);

/* Where drv_find_fmu_file looked for path, as the note of an FMU not found says it
 * ("looked in '<dir>' (the script's directory) and in the -L directory 'fmus'"); in the
 * arena. */
const char *drv_fmu_dirs_searched(Compilation *c, const char *script_dir, const char *path);

/* Reads and parses a file (once: a second load of the same path returns the same
 * module), then resolves its imports.  NULL when it cannot be read.  An .ssp or .ssd path
 * gives the module of the adaptation made from that system (ssp_adapt.h). */
Module *drv_load(Compilation *c, const char *path);
/* Reads and parses a file without resolving its imports (`sacc check --syntax`): a module
 * it imports need not exist.  NULL when it cannot be read. */
Module *drv_parse(Compilation *c, const char *path);
/* Parses text held in memory (tests, fuzzing); the module takes a copy. */
Module *drv_load_text(Compilation *c, const char *name, const char *text, size_t len);

/* Checks every adaptation of the module (and, first, those of the modules it imports
 * that it uses).  Returns the number of errors. */
int drv_check(Compilation *c, Module *m);

/* Reduces every adaptation of a checked module to its explicit form.  With after set,
 * stops after the rule of that name.  Returns the number of errors. */
int drv_explicit(Compilation *c, Module *m, const char *after);

/* Lowers one checked adaptation's declarative forms (lower.c), then reduces it to its
 * explicit form (explicit.c), once: later calls return the first result.  With after
 * naming a lowering rule or the stage ("Lower"), stops there and no explicit-form rule
 * runs; naming an explicit-form rule, stops after it.  Returns the number of errors. */
struct SaInfo;
int drv_reduce(Compilation *c, struct SaInfo *info, const char *after);

/* The unit system, opened on first use; NULL (reported once) when it cannot be. */
UnitSystem *drv_units(Compilation *c);

/* The providers the command line hands the checker (compilation.h): FMUs from disk and
 * the -L directories, UDUNITS-2, drv_reduce, SSP systems.  drv_new sets them. */
extern const CheckEnv drv_check_env;

/* An FMU read from path, owned by the caller (fmu_free); NULL after reporting why, with a
 * note at where (a directory, a file that is no FMU). */
FmuInfo *drv_read_fmu(DiagSink *d, const char *path, Loc where);

/* An FMU read from path, kept for the compilation's life; NULL after a report. */
FmuInfo *drv_open_fmu(Compilation *c, const char *path, Loc where);

#endif
