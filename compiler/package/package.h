/* package.h — the last stage: from adaptations in explicit form to FMU archives (`sacc build`),
 * and the zip layer under it.
 *
 * Pipeline position: load -> parse -> check -> explicit -> emit -> *package*.  For each
 * adaptation, package.c lays out the FMU tree in a private work directory (the emitted C and
 * the runtime's sources, the shared library compiled from them, modelDescription.xml, every
 * inner FMU extracted under resources/<instance>/), then zips it.  sources.c says which
 * sources make the library, and writes how to build them for importers on other platforms.  zip.c reads archives that
 * come from elsewhere (inner FMUs) without ever writing outside the directory it was given,
 * and writes archives reproducibly: the same tree always gives the same bytes.
 *
 * `sacc emit` writes the wrapper's own files (model description and C) through the same
 * code, without compiling or zipping them.
 *
 * The runtime's sources are embedded in sacc when sacc is built (compiler/tools/embed.c
 * writes them into $(BUILD)/gen/runtime_files.c), so an installed sacc needs no checkout.
 * That is data, not code: compiler/ still never links runtime/. */
#ifndef SACC_PACKAGE_H
#define SACC_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "driver.h"

/* ---- embedded runtime sources ------------------------------------------------------------ */

/* One file of runtime/, path relative to runtime/ ("sart_inner.c", "fmi2/fmi2Functions.h"). */
typedef struct PkgFile {
	const char *path;
	const unsigned char *data;
	size_t size;
} PkgFile;

/* Defined in the generated $(BUILD)/gen/runtime_files.c, sorted by path. */
extern const PkgFile pkg_runtime_files[];
extern const size_t pkg_nruntime_files;

/* ---- zip layer (zip.c) ------------------------------------------------------------------- */

/* What zip_extract accepts.  An entry is refused when its uncompressed size exceeds
 * max_entry, when the sizes so far add up to more than max_total, or when it is larger than
 * ratio_floor bytes and expands more than max_ratio times (a zip bomb); an archive with more
 * than max_entries entries is refused whole. */
typedef struct ZipLimits {
	uint64_t max_total;
	uint64_t max_entry;
	uint64_t max_ratio;
	uint64_t ratio_floor;
	uint64_t max_entries;
} ZipLimits;

/* 1 GiB in total, 512 MiB per entry, 1:1000 beyond 64 KiB, 65536 entries. */
extern const ZipLimits zip_default_limits;

/* Extracts archive into dir, which it creates (its parent must exist; dir must not).
 * Every entry is checked before anything is written, and refused with an error naming the
 * archive and the entry when its path is absolute, has a '..' component, a backslash or a
 * NUL, when it is a symbolic link or another special file (Unix mode in the external
 * attributes), encrypted, stored with a method other than store/deflate, appears twice with
 * different contents (a repeat with the same bytes, which some exporters' packaging
 * writes, is compared and skipped), or breaks a limit.  Files are created with O_CREAT|O_EXCL|O_NOFOLLOW inside directories
 * zip_extract made itself, so nothing can land outside dir.  Returns 0, or 1 after a report
 * (dir is removed then).  lim NULL means zip_default_limits. */
int zip_extract(const char *archive, const char *dir, const ZipLimits *lim, DiagSink *d);

/* Zips every regular file under dir into archive, reproducibly: modelDescription.xml first,
 * the rest in byte order of their paths; no directory entries, no extra fields; every entry
 * dated 1980-01-01 00:00, made by Unix, mode 0755 when its name ends in ".so" or the file
 * is executable (the host program of isolated inners) and 0644 otherwise, deflated at level 9.  Anything under dir that is not a regular file or a
 * directory is an error.  Returns 0, or 1 after a report. */
int zip_write_dir(const char *dir, const char *archive, DiagSink *d);

/* Whether the zip archive holds an entry of exactly that name (false when it cannot be
 * read: the extraction then says why). */
bool zip_has_entry(const char *archive, const char *name);

/* Removes path and everything below it, never following a symbolic link.  0 or -1 (errno). */
int zip_rmtree(const char *path);

/* ---- packaging (package.c) --------------------------------------------------------------- */

typedef struct PkgOptions {
	const char *out_dir;  /* -o DIR: every FMU goes to DIR/<base name of its `at`>; NULL:
	                       * to its `at` path, relative to its script's directory */
	const char *cc;       /* the C compiler command (split at blanks); NULL: $CC, else cc */
	int fmi_version;      /* the wrappers' FMI version: 3 for FMI 3.0 (the FMI 3.0 skin,
	                       * binaries/x86_64-linux/, the 3.0 model description); 0 or 2 for
	                       * FMI 2.0 */
	const char *isolate;  /* "all" or "A,B,...": the inner instances run out of process (as
	                       * if declared `for isolated inner fmu`), in the host program
	                       * compiled beside the wrapper's library; NULL: only those the
	                       * scripts declare so.  A name no adaptation built has is an error. */
	int threads;          /* --threads N: each wrapper may step independent inners on up to
	                       * N threads (runtime/sart_batch.c); 0 or 1: one */
	bool no_sources;      /* --no-sources: the archive carries the binary only, no
	                       * sources/ and no <SourceFiles>; false (the default): it is a
	                       * source FMU too (sources.c) */
	const char *platforms; /* --platform linux64,win64 (FMI 3.0 names too): the platforms
	                        * each wrapper carries a library for, an error when an inner
	                        * lacks one or its compiler is missing; NULL: every platform
	                        * all inners provide whose compiler is there (a note names what
	                        * is left out) */
} PkgOptions;

/* The platforms sacc builds wrappers for, as bits. */
enum { PKG_LINUX64 = 1u << 0, PKG_WIN64 = 1u << 1, PKG_NPLATFORMS = 2 };

/* The bits of a --platform list ("linux64,win64", FMI 3.0 names accepted): 0 after an
 * error naming what is not a platform. */
unsigned pkg_parse_platforms(const char *list, DiagSink *d);

/* The platforms an extracted FMU in dir carries a library of model_identifier for. */
unsigned pkg_fmu_platforms(const char *dir, const char *model_identifier, int fmi_version);
/* The same of an FMU archive, before it is extracted (or of an extracted FMU's directory). */
unsigned pkg_archive_platforms(const char *archive, const char *model_identifier,
                               int fmi_version);

/* `sacc build`: one FMU per adaptation declared in mods (modules loaded and reduced with
 * drv_explicit), inner adaptations before the adaptations that use them.  An inner that is
 * an adaptation not built here is looked for as an .fmu (in out_dir, where its own build
 * would put it, beside the script, in the -L directories) and must carry the GUID its
 * adaptation gives now.  Returns the number of errors. */
int pkg_build(Compilation *c, Module **mods, int nmods, const PkgOptions *o);

/* `sacc emit`: for every adaptation declared in m (not those of the modules it imports),
 * o->out_dir/<adaptation>/modelDescription.xml, config.h and <adaptation>.c, the files
 * `sacc build` with the same options puts in that adaptation's FMU (the model description
 * at its root, the C under sources/), written by the same code.  fmi_version, isolate and
 * threads count as they do for pkg_build; cc is not used.  An inner adaptation's FMU is
 * taken to be of the FMI version its own build with these options gives it (--fmi, else
 * its clause, else 2): no archive is read.  m must have been reduced with drv_explicit.
 * Returns the number of errors. */
int pkg_emit(Compilation *c, Module *m, const PkgOptions *o);

/* Capabilities whose functions an FMI 2.0 library must then export too. */
enum {
	PKG_CAP_GET_SET_STATE = 1u << 0,      /* canGetAndSetFMUstate */
	PKG_CAP_SERIALIZE = 1u << 1,          /* canSerializeFMUstate */
	PKG_CAP_INTERPOLATE_INPUTS = 1u << 2, /* canInterpolateInputs */
	PKG_CAP_MODEL_EXCHANGE = 1u << 3,     /* run as Model Exchange: its functions, not
	                                         Co-Simulation's step */
};

/* Extracts the inner FMU archive into dir (see zip_extract) and checks it is one: a
 * modelDescription.xml at its root and the library binaries/linux64/<model_identifier>.so
 * (FMI 2.0) or binaries/x86_64-linux/<model_identifier>.so (FMI 3.0); an FMI 2.0 library
 * must export the fmi2* functions every co-simulation FMU has (pkg_check_fmi2_library).
 * Returns 0, or 1 after a report naming the archive (dir is removed then). */
int pkg_extract_fmu(const char *archive, const char *dir, const char *model_identifier,
                    int fmi_version, DiagSink *d);

/* pkg_extract_fmu, with the functions of the capabilities caps (PKG_CAP_*) required too:
 * what `sacc build` uses, knowing the inner's model description. */
int pkg_extract_inner(const char *archive, const char *dir, const char *model_identifier,
                      int fmi_version, unsigned caps, DiagSink *d);
/* pkg_extract_inner for the platform the FMU will run on (PKG_LINUX64, or PKG_WIN64 for an
 * FMU `sacc simulate` runs under Wine): that platform's library must be there. */
int pkg_extract_inner_for(const char *archive, const char *dir, const char *model_identifier,
                          int fmi_version, unsigned caps, unsigned platform, DiagSink *d);

/* Checks that the shared library so (shown in messages as `shown`, an entry of archive)
 * is a 64-bit ELF shared library for this machine whose dynamic symbol table defines every
 * fmi2* function the runtime resolves: always, plus those of caps.  It reads the file only:
 * untrusted code is never loaded at build time.  Returns 0, or 1 after an error naming the
 * archive, the library and every missing function. */
int pkg_check_fmi2_library(const char *archive, const char *so, const char *shown,
                           unsigned caps, DiagSink *d);

/* ---- source wrappers (sources.c) ---------------------------------------------------------- */

/* Whether the runtime file path (relative to runtime/) belongs under a wrapper's sources/:
 * not the other FMI version's skin, and host/ only with isolated inners (host). */
bool pkg_runtime_in_wrapper(const char *path, bool fmi3, bool host);

/* The files under sources/ that make the library of wrapper id, in byte order: <id>.c and
 * the runtime's top-level .c files of its version.  Exactly what `sacc build` compiles, and
 * what FMI 2.0 <SourceFiles> and the FMI 3.0 build description list.  In c's arena. */
const char **pkg_source_files(Compilation *c, const char *id, bool fmi3, int *n);

/* The host program's sources, relative to sources/: what `sacc build` compiles into
 * sacc-fmu-host beside the library of a wrapper with isolated inners. */
extern const char *const pkg_host_sources[];
extern const int pkg_nhost_sources;

/* Writes the FMI 3.0 build description (sources/buildDescription.xml, the schema
 * fmi3BuildDescription): one BuildConfiguration for id, whatever the platform, with one
 * SourceFileSet (language C99, the files, SART_ARRAYS=1 when arrays, the include directory
 * ".") and the libraries m, dl and pthread as external ones.  0, or 1 after a report. */
int pkg_write_build_description(Compilation *c, const char *path, const char *id,
                                const char *const *files, int n, bool arrays);

/* What sources/README says: how to build the library (and the host program) by hand. */
typedef struct PkgSourceInfo {
	const char *id;
	bool fmi3, arrays, host;
	const char *const *files;
	int nfiles;
} PkgSourceInfo;

/* Writes sources/README: the build with a plain cc command line, the libraries, the
 * visibility flag, that inners are binary FMUs, and the host program's build when s->host.
 * 0, or 1 after a report. */
int pkg_write_sources_readme(Compilation *c, const char *path, const PkgSourceInfo *s);

#endif
