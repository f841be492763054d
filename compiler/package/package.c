/* package.c — `sacc build`: every adaptation of the given modules becomes one FMU archive
 * (see package.h and docs/fmu.md, "What the archive contains").
 *
 * Per adaptation, in a private work directory made beside the output (and removed on every
 * path out):
 *
 *     fmu/sources/            the emitted C (emit_c_to_dir) and the embedded runtime files,
 *                             with what makes the FMU a source FMU too (sources.c): the
 *                             FMI 3.0 buildDescription.xml and a README; removed before
 *                             zipping with --no-sources
 *     fmu/binaries/linux64/   <id>.so, compiled from sources/ by $CC run in fmu/, so that no
 *                             absolute path reaches the library (binaries/x86_64-linux/
 *                             for an FMI 3.0 wrapper)
 *     fmu/binaries/win64/     <id>.dll, cross-compiled by mingw-w64 from the same sources
 *                             (binaries/x86_64-windows/), when the wrapper is built for
 *                             Windows too: the platforms table below says what differs
 *     fmu/modelDescription.xml
 *     fmu/resources/<inner>/  each inner FMU file, extracted safely (zip_extract) once, into
 *                             the directory of the first inner made from it (the others
 *                             name it: emit_inner_homes), unless it must be loaded once
 *                             per instance (canBeInstantiatedOnlyOncePerProcess)
 *     out.fmu                 the tree zipped reproducibly, then renamed to its place
 *
 * Adaptations that are inner FMUs of others are built first.  An inner adaptation that is
 * not built in this run must already exist as an .fmu, with the GUID its adaptation gives
 * now: an archive from older sources would carry a wrapper whose GUID the outer wrapper does
 * not expect. */
#include "package.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile.h"
#include "emit.h"
#include "sema.h"
#include "util.h"

/* The shared library's compiler flags (docs/fmu.md): C99, position independent, only the
 * FMI functions exported, warnings are errors, no -g (no paths, reproducible bytes); -pthread
 * for the worker pool of batched do_steps (sart_pool.c).  Each source is compiled alone
 * with them (compile.c), then the objects are linked with -shared. */
static const char *const cc_flags[] = {
	"-std=c99", "-O2", "-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wpedantic",
	"-Werror", "-Isources", "-Isources/fmi2", "-pthread",
};

/* ---- platforms ------------------------------------------------------------------------- */

/* What differs between the platforms a wrapper carries a library for.  Linux's library is
 * compiled by $CC (or --cc) with cc_flags; Windows' by Debian's mingw-w64 cross compiler,
 * where a DLL exports exactly what is marked __declspec(dllexport) (the FMI headers do so on
 * _WIN32) and -fPIC and -fvisibility do not apply.  The worker pool's POSIX threads come
 * from mingw-w64's winpthreads, linked statically with libgcc, so the DLL needs only
 * KERNEL32 and msvcrt; __USE_MINGW_ANSI_STDIO gives C99's printf (%zu, %a); no time stamp,
 * so the same sources give the same bytes. */
typedef struct Platform {
	unsigned bit;
	const char *fmi2, *fmi3;      /* binaries/<name>/ of an FMI 2.0 and an FMI 3.0 FMU */
	const char *suffix;           /* of the library file */
	const char *cc;               /* the compiler; NULL: $CC, else cc */
	const char *package;          /* the Debian package that provides cc */
	const char *const *flags;
	int nflags;
	const char *const *link_flags;
	int nlink;
	const char *const *libs;
	int nlibs;
	const char *const *skipped;   /* runtime sources the platform's library leaves out */
	int nskipped;
} Platform;

static const char *const win64_flags[] = {
	"-std=c99", "-O2", "-D__USE_MINGW_ANSI_STDIO=1", "-Wall", "-Wextra", "-Wpedantic",
	"-Werror", "-Isources", "-Isources/fmi2",
};
static const char *const linux64_link[] = {"-shared", "-pthread"};
static const char *const linux64_libs[] = {"-lm", "-ldl"};
static const char *const win64_link[] = {"-shared", "-static", "-Wl,--no-insert-timestamp"};
static const char *const win64_libs[] = {"-lpthread"};
/* The host program's own code stays out of a win64 wrapper's DLL: its isolated inners run in
 * the host built for Windows that sacc ships beside it (ship_windows_host). */
static const char *const win64_skipped[] = {"sources/sart_host.c"};

#define COUNT(a) (int)(sizeof(a) / sizeof *(a))

static const Platform platforms[PKG_NPLATFORMS] = {
	{PKG_LINUX64, "linux64", "x86_64-linux", ".so", NULL, NULL, cc_flags, COUNT(cc_flags),
	 linux64_link, COUNT(linux64_link), linux64_libs, COUNT(linux64_libs), NULL, 0},
	{PKG_WIN64, "win64", "x86_64-windows", ".dll", "x86_64-w64-mingw32-gcc",
	 "gcc-mingw-w64-x86-64", win64_flags, COUNT(win64_flags), win64_link, COUNT(win64_link),
	 win64_libs, COUNT(win64_libs), win64_skipped, COUNT(win64_skipped)},
};

unsigned pkg_parse_platforms(const char *list, DiagSink *d)
{
	unsigned bits = 0;
	const char *rest = list;
	while (rest) {
		const char *comma = strchr(rest, ',');
		size_t len = comma ? (size_t)(comma - rest) : strlen(rest);
		unsigned bit = 0;
		for (int k = 0; k < PKG_NPLATFORMS; k++)
			if ((strlen(platforms[k].fmi2) == len && strncmp(rest, platforms[k].fmi2, len) == 0) ||
			    (strlen(platforms[k].fmi3) == len && strncmp(rest, platforms[k].fmi3, len) == 0))
				bit = platforms[k].bit;
		if (!bit) {
			diag_error(d, (Loc){0}, "--platform: '%.*s' is not a platform sacc builds for",
				   (int)len, rest);
			diag_note(d, (Loc){0}, "the platforms: linux64 (x86_64-linux), win64 "
				  "(x86_64-windows)");
			return 0;
		}
		bits |= bit;
		rest = comma ? comma + 1 : NULL;
	}
	return bits;
}

/* The folder under binaries/ of platform p in an FMU of FMI version fmi. */
static const char *platform_name(const Platform *p, int fmi)
{
	return fmi == 3 ? p->fmi3 : p->fmi2;
}

unsigned pkg_fmu_platforms(const char *dir, const char *model_identifier, int fmi_version)
{
	unsigned bits = 0;
	for (int k = 0; k < PKG_NPLATFORMS; k++) {
		const Platform *p = &platforms[k];
		size_t n = strlen(dir) + strlen(model_identifier) + 64;
		char *lib = malloc(n);
		struct stat st;
		if (!lib)
			return bits;
		snprintf(lib, n, "%s/binaries/%s/%s%s", dir, platform_name(p, fmi_version),
			 model_identifier, p->suffix);
		if (lstat(lib, &st) == 0 && S_ISREG(st.st_mode))
			bits |= p->bit;
		free(lib);
	}
	return bits;
}

unsigned pkg_archive_platforms(const char *archive, const char *model_identifier,
                               int fmi_version)
{
	struct stat st;
	if (stat(archive, &st) == 0 && S_ISDIR(st.st_mode))
		return pkg_fmu_platforms(archive, model_identifier, fmi_version);
	unsigned bits = 0;
	for (int k = 0; k < PKG_NPLATFORMS; k++) {
		const Platform *p = &platforms[k];
		size_t n = strlen(model_identifier) + 64;
		char *entry = malloc(n);
		if (!entry)
			return bits;
		snprintf(entry, n, "binaries/%s/%s%s", platform_name(p, fmi_version), model_identifier,
			 p->suffix);
		if (zip_has_entry(archive, entry))
			bits |= p->bit;
		free(entry);
	}
	return bits;
}

/* Whether the command's first word is an executable file in $PATH (or a path to one). */
static bool on_path(Arena *a, const char *cmd)
{
	size_t len = strcspn(cmd, " \t");
	const char *prog = arena_strndup(a, cmd, len);
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	const char *path = getenv("PATH");
	for (const char *dir = path; dir && *dir;) {
		size_t dl = strcspn(dir, ":");
		if (access(arena_printf(a, "%.*s/%s", (int)dl, dl ? dir : ".", prog), X_OK) == 0)
			return true;
		dir += dl + (dir[dl] == ':');
	}
	return false;
}

/* The host program's main (runtime/host/), only in a wrapper with isolated inners. */
#define HOST_MAIN "host/sacc_fmu_host.c"

typedef struct Job {
	Node *sa;
	SaInfo *info;
	const char *out;   /* where its FMU goes */
	int state;         /* ordering: 0 new, 1 visiting, 2 placed */
	bool done, failed;
} Job;

typedef struct Build {
	Compilation *c;
	const PkgOptions *o;
	Job *jobs;
	int njobs;
	Job **order;
	int norder;
} Build;

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* mkdir -p. */
static bool make_dirs(const char *path)
{
	char *buf = strdup(path);
	if (!buf) {
		errno = ENOMEM;
		return false;
	}
	bool ok = true;
	for (char *p = buf + 1; ok && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ok = mkdir(buf, 0777) == 0 || errno == EEXIST;
		*p = '/';
	}
	ok = ok && (mkdir(buf, 0777) == 0 || errno == EEXIST);
	free(buf);
	return ok;
}

/* ---- ordering ------------------------------------------------------------------------------ */

static Job *job_of(Build *b, const Node *sa)
{
	for (int i = 0; i < b->njobs; i++)
		if (b->jobs[i].sa == sa)
			return &b->jobs[i];
	return NULL;
}

/* Depth first: each inner adaptation built here before the adaptation that holds it. */
static void place(Build *b, Job *j)
{
	if (j->state == 2)
		return;
	if (j->state == 1) {
		diag_error(b->c->diag, j->sa->loc, "adaptation '%s' is, through its inner FMUs, an "
			   "inner FMU of itself", j->sa->name);
		j->failed = true;
		return;
	}
	j->state = 1;
	for (int i = 0; j->info && i < j->info->ninners; i++) {
		Inner *in = j->info->inners[i];
		Job *dep = in && in->adaptation ? job_of(b, in->adaptation) : NULL;
		if (dep)
			place(b, dep);
	}
	j->state = 2;
	b->order[b->norder++] = j;
}

/* ---- lists ---------------------------------------------------------------------------------- */

/* The names of a comma list one by one, as --isolate gives them: *item and *len the
 * next one from *rest, which moves past its comma (NULL after the last).  False when no
 * name is left. */
static bool next_list_item(const char **rest, const char **item, size_t *len)
{
	if (!*rest)
		return false;
	const char *comma = strchr(*rest, ',');
	*item = *rest;
	*len = comma ? (size_t)(comma - *rest) : strlen(*rest);
	*rest = comma ? comma + 1 : NULL;
	return true;
}

/* Whether list ("all", or names separated by commas) names name. */
static bool list_names(const char *list, const char *name)
{
	if (strcmp(list, "all") == 0)
		return true;
	size_t n = strlen(name), len;
	for (const char *rest = list, *p; next_list_item(&rest, &p, &len);)
		if (len == n && strncmp(p, name, n) == 0)
			return true;
	return false;
}

/* The job's FMI version: `sacc build --fmi`, which overrides every script, else the
 * adaptation's own `fmi N` clause, else 2. */
static bool wants_fmi3(const Build *b, const Job *j)
{
	if (b->o && b->o->fmi_version)
		return b->o->fmi_version == 3;
	return j->sa->ival == 3;
}

/* Where platform p's shared library goes, inside the FMU. */
static const char *platform_dir(const Build *b, const Job *j, const Platform *p)
{
	return arena_printf(b->c->arena, "binaries/%s", platform_name(p, wants_fmi3(b, j) ? 3 : 2));
}

/* The compiler command of platform p: its cross compiler, else o->cc, else $CC, else cc
 * (split at blanks: "ccache gcc" works). */
static const char *cc_command(const Build *b, const Platform *p)
{
	if (p->cc)
		return p->cc;
	const char *cc = b->o && b->o->cc && *b->o->cc ? b->o->cc : getenv("CC");
	return cc && *cc ? cc : "cc";
}

/* Whether sources/<path> is a file of the embedded runtime (write_runtime refuses to write
 * one where the emitter wrote a file of the same name, so such a file is the runtime's). */
static bool is_runtime_source(const char *path)
{
	if (strncmp(path, "sources/", 8) != 0)
		return false;
	for (size_t i = 0; i < pkg_nruntime_files; i++)
		if (strcmp(pkg_runtime_files[i].path, path + 8) == 0)
			return true;
	return false;
}

/* Compiles sources (relative to tree) with platform p's compiler and flags and links them
 * into output as j's `what`, through the object cache (compile.h). */
static int compile_and_link(Build *b, Job *j, const Platform *p, const char *tree,
                            const char *const *flags,
                            int nflags, const char *const *sources, int nsources,
                            const char *const *link_flags, int nlink, const char *const *libs,
                            int nlibs, const char *output, const char *what)
{
	Arena *a = b->c->arena;
	/* The objects go beside the tree, by an absolute path: cc runs inside the tree; one
	 * directory per platform, as the object names repeat. */
	const char *objdir = arena_printf(a, "%s/../obj-%s", tree, p->fmi2);
	if (tree[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (!cwd) {
			diag_error(b->c->diag, (Loc){tree, 0, 0, 0}, "cannot tell the current "
				   "directory: %s", strerror(errno));
			return 1;
		}
		objdir = arena_printf(a, "%s/%s/../obj-%s", cwd, tree, p->fmi2);
		free(cwd);
	}
	bool *cacheable = arena_alloc(a, (size_t)nsources + 1);
	for (int i = 0; i < nsources; i++)
		cacheable[i] = is_runtime_source(sources[i]);
	PkgCompileJob job = {
		.tree = tree,
		.objdir = objdir,
		.cc = cc_command(b, p),
		.flags = flags,
		.nflags = nflags,
		.sources = sources,
		.nsources = nsources,
		.cacheable = cacheable,
		.link_flags = link_flags,
		.nlink_flags = nlink,
		.libs = libs,
		.nlibs = nlibs,
		.output = output,
		.what = what,
		.adaptation = j->sa->name,
		.loc = j->sa->loc,
	};
	return pkg_compile(b->c, &job);
}

/* Whether platform p's library leaves out the source at path. */
static bool skipped_by(const Platform *p, const char *path)
{
	for (int i = 0; i < p->nskipped; i++)
		if (strcmp(p->skipped[i], path) == 0)
			return true;
	return false;
}

/* Platform p's library of the wrapper from every source under tree/sources (but those p
 * skips); with arrays, the FMI 3.0 skin's value calls expand array value references
 * (runtime/sart_fmi3_arrays.h). */
static int compile(Build *b, Job *j, const Platform *p, const char *tree, const char *id,
                   bool arrays)
{
	Compilation *c = b->c;
	Arena *a = c->arena;
	const char **flags = arena_alloc(a, ((size_t)p->nflags + 2) * sizeof *flags);
	int nflags = 0;
	for (int i = 0; i < p->nflags; i++)
		flags[nflags++] = p->flags[i];
	if (arrays)
		flags[nflags++] = "-DSART_ARRAYS=1";
	int n;
	const char **files = pkg_source_files(c, id, wants_fmi3(b, j), &n);
	const char **sources = arena_alloc(a, (size_t)(n + 1) * sizeof *sources);
	int nsources = 0;
	for (int i = 0; i < n; i++) {
		const char *path = arena_printf(a, "sources/%s", files[i]);
		if (!skipped_by(p, path))
			sources[nsources++] = path;
	}
	return compile_and_link(b, j, p, tree, flags, nflags, sources, nsources, p->link_flags,
				p->nlink, p->libs, p->nlibs,
				arena_printf(a, "%s/%s%s", platform_dir(b, j, p), id, p->suffix),
				"the wrapper");
}

/* The host program of isolated inners (runtime/sart_isolate.h), beside the wrapper's
 * library: the seam and its back ends with the host's main, compiled by the same compiler
 * as the library so that it runs wherever the library does; it needs libc (and libdl, libm)
 * only. */
static const char *const host_flags[] = {
	"-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Isources",
	"-Isources/fmi2",
};

static int compile_host(Build *b, Job *j, const char *tree)
{
	static const char *const libs[] = {"-ldl", "-lm"};
	/* Linux's: win64's is the one built with sacc (ship_windows_host) */
	const Platform *p = &platforms[0];
	const char **sources = arena_alloc(b->c->arena, (size_t)pkg_nhost_sources * sizeof *sources);
	for (int i = 0; i < pkg_nhost_sources; i++)
		sources[i] = arena_printf(b->c->arena, "sources/%s", pkg_host_sources[i]);
	return compile_and_link(b, j, p, tree, host_flags, sizeof host_flags / sizeof *host_flags,
				sources, pkg_nhost_sources, NULL, 0, libs, 2,
				arena_printf(b->c->arena, "%s/sacc-fmu-host", platform_dir(b, j, p)),
				"the host program of the isolated inners");
}

/* Marks the inners o->isolate names (all, or a comma-separated list) as isolated; returns
 * whether any inner of the adaptation is. */
static bool mark_isolated(const Build *b, SaInfo *info)
{
	const char *list = b->o ? b->o->isolate : NULL;
	bool any = false;
	for (int i = 0; info && i < info->ninners; i++) {
		Inner *in = info->inners[i];
		if (list && list_names(list, in->name))
			in->isolated = true;
		any |= in->isolated;
	}
	return any;
}

/* ---- the tree ---------------------------------------------------------------------------------- */

static int write_new_file(const char *path, const unsigned char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (n > 0) {
		ssize_t w = write(fd, data, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = errno;
			close(fd);
			errno = w == 0 ? EIO : e;
			return -1;
		}
		data += w;
		n -= (size_t)w;
	}
	return close(fd);
}

/* ---- inners with a Windows library only ------------------------------------------------ */

#define WINDOWS_HOST "sacc-fmu-host.exe"

/* The host built for Windows that a Linux wrapper over an inner with a Windows library
 * only ships beside its library, to run that inner under Wine (runtime/sart_isolate.h):
 * $SACC_FMU_HOST_EXE, else the one beside the running sacc (made with it when mingw-w64 is
 * installed).  NULL when there is none. */
static const char *windows_host(Arena *a)
{
	const char *env = getenv("SACC_FMU_HOST_EXE");
	if (env && *env)
		return access(env, R_OK) == 0 ? env : NULL;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	const char *p = arena_printf(a, "%s/" WINDOWS_HOST, self);
	return access(p, R_OK) == 0 ? p : NULL;
}

/* Whether the inner extracted in dir has a Windows library of its model identifier and
 * no Linux one: a Linux wrapper runs it under Wine. */
static bool windows_only(const char *dir, const char *model_identifier, int fmi_version)
{
	unsigned has = pkg_fmu_platforms(dir, model_identifier, fmi_version);
	return (has & PKG_WIN64) && !(has & PKG_LINUX64);
}

/* Copies the host built for Windows into the Linux wrapper's binaries folder bin. */
static int ship_windows_host(Arena *a, const char *host, const char *bin, DiagSink *d)
{
	FILE *f = fopen(host, "rb");
	unsigned char *data = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;
	while (f) {
		if (n == cap) {
			cap = cap ? 2 * cap : (size_t)1 << 20;
			unsigned char *grown = realloc(data, cap);
			if (!grown)
				break;
			data = grown;
		}
		n += fread(data + n, 1, cap - n, f);
		if (ferror(f))
			break;
		if (feof(f)) {
			rc = write_new_file(arena_printf(a, "%s/" WINDOWS_HOST, bin), data, n);
			break;
		}
	}
	if (rc != 0)
		diag_error(d, (Loc){host, 0, 0, 0}, "cannot copy into the wrapper: %s",
			   strerror(errno ? errno : EIO));
	if (f)
		fclose(f);
	free(data);
	return rc;
}

/* Every embedded runtime file under sources/, keeping runtime/'s layout. */
static int write_runtime(Compilation *c, const char *sources, bool fmi3, bool host)
{
	for (size_t i = 0; i < pkg_nruntime_files; i++) {
		const PkgFile *f = &pkg_runtime_files[i];
		if (!pkg_runtime_in_wrapper(f->path, fmi3, host))
			continue;
		const char *path = arena_printf(c->arena, "%s/%s", sources, f->path);
		const char *slash = strrchr(path, '/');
		const char *dir = arena_strndup(c->arena, path, (size_t)(slash - path));
		if (!make_dirs(dir) || write_new_file(path, f->data, f->size) != 0) {
			diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write: %s%s", strerror(errno),
				   errno == EEXIST ? " (the emitted C has a file of that name)" : "");
			return 1;
		}
	}
	return 0;
}

/* ---- the inner library's exports ------------------------------------------------------------ */

/* Which interface a function belongs to: both, Co-Simulation's or Model Exchange's. */
enum { IF_BOTH, IF_CS, IF_ME };

/* The fmi2* functions a library must export, as runtime/sart_inner_fmi2.c resolves them:
 * always, or when the model description claims the capability (the PKG_CAP_* bit), for
 * the interface the FMU runs through (PKG_CAP_MODEL_EXCHANGE says which). */
static const struct {
	const char *name;
	unsigned with;
	int iface;
} fmi2_required[] = {
	{"fmi2Instantiate", 0, IF_BOTH},
	{"fmi2FreeInstance", 0, IF_BOTH},
	{"fmi2SetupExperiment", 0, IF_BOTH},
	{"fmi2EnterInitializationMode", 0, IF_BOTH},
	{"fmi2ExitInitializationMode", 0, IF_BOTH},
	{"fmi2Terminate", 0, IF_BOTH},
	{"fmi2Reset", 0, IF_BOTH},
	{"fmi2GetReal", 0, IF_BOTH},
	{"fmi2GetInteger", 0, IF_BOTH},
	{"fmi2GetBoolean", 0, IF_BOTH},
	{"fmi2GetString", 0, IF_BOTH},
	{"fmi2SetReal", 0, IF_BOTH},
	{"fmi2SetInteger", 0, IF_BOTH},
	{"fmi2SetBoolean", 0, IF_BOTH},
	{"fmi2SetString", 0, IF_BOTH},
	{"fmi2DoStep", 0, IF_CS},
	{"fmi2GetRealStatus", 0, IF_CS},
	{"fmi2EnterEventMode", 0, IF_ME},
	{"fmi2NewDiscreteStates", 0, IF_ME},
	{"fmi2EnterContinuousTimeMode", 0, IF_ME},
	{"fmi2CompletedIntegratorStep", 0, IF_ME},
	{"fmi2SetTime", 0, IF_ME},
	{"fmi2SetContinuousStates", 0, IF_ME},
	{"fmi2GetDerivatives", 0, IF_ME},
	{"fmi2GetEventIndicators", 0, IF_ME},
	{"fmi2GetContinuousStates", 0, IF_ME},
	{"fmi2GetNominalsOfContinuousStates", 0, IF_ME},
	{"fmi2SetRealInputDerivatives", PKG_CAP_INTERPOLATE_INPUTS, IF_BOTH},
	{"fmi2GetFMUstate", PKG_CAP_GET_SET_STATE, IF_BOTH},
	{"fmi2SetFMUstate", PKG_CAP_GET_SET_STATE, IF_BOTH},
	{"fmi2FreeFMUstate", PKG_CAP_GET_SET_STATE, IF_BOTH},
	{"fmi2SerializedFMUstateSize", PKG_CAP_SERIALIZE, IF_BOTH},
	{"fmi2SerializeFMUstate", PKG_CAP_SERIALIZE, IF_BOTH},
	{"fmi2DeSerializeFMUstate", PKG_CAP_SERIALIZE, IF_BOTH},
};
#define NREQUIRED (sizeof fmi2_required / sizeof *fmi2_required)

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE /* any */
#endif

/* Whether [off, off + n) lies within a file of size bytes, without overflow. */
static bool in_file(uint64_t off, uint64_t n, uint64_t size)
{
	return off <= size && n <= size - off;
}

/* Reads the ELF file's dynamic symbol table (the section SHT_DYNSYM and its string table)
 * and marks in found[] each fmi2_required function it defines for the dynamic linker:
 * a defined function or indirect function, global or weak, default or protected
 * visibility.  Every offset and size is checked against the file before it is used.
 * Returns NULL, or why the file cannot be read that way. */
static const char *elf_exports(const unsigned char *b, uint64_t size, bool found[NREQUIRED])
{
	if (size < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) != 0)
		return "it is not an ELF file";
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
	if (b[EI_CLASS] != ELFCLASS64 || b[EI_DATA] != ELFDATA2LSB)
		return "it is not a 64-bit little-endian ELF file";
	if (eh->e_type != ET_DYN)
		return "it is not a shared library (ELF type ET_DYN)";
	if (HOST_MACHINE != EM_NONE && eh->e_machine != HOST_MACHINE)
		return "it is built for another machine";
	if (eh->e_shoff == 0 || eh->e_shnum == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size) ||
	    eh->e_shoff % _Alignof(Elf64_Shdr) != 0)
		return "its section headers are missing or damaged";
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	const Elf64_Shdr *dynsym = NULL;
	for (unsigned i = 0; i < eh->e_shnum && !dynsym; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
	if (!dynsym)
		return "it has no dynamic symbol table";
	if (dynsym->sh_entsize != sizeof(Elf64_Sym) || dynsym->sh_link >= eh->e_shnum ||
	    !in_file(dynsym->sh_offset, dynsym->sh_size, size) ||
	    dynsym->sh_offset % _Alignof(Elf64_Sym) != 0)
		return "its dynamic symbol table is damaged";
	const Elf64_Shdr *strtab = &sh[dynsym->sh_link];
	if (strtab->sh_type != SHT_STRTAB || !in_file(strtab->sh_offset, strtab->sh_size, size))
		return "its dynamic string table is damaged";
	const Elf64_Sym *sym = (const Elf64_Sym *)(b + dynsym->sh_offset);
	const char *str = (const char *)(b + strtab->sh_offset);
	uint64_t nsym = dynsym->sh_size / sizeof(Elf64_Sym), nstr = strtab->sh_size;
	for (uint64_t i = 0; i < nsym; i++) {
		const Elf64_Sym *y = &sym[i];
		unsigned bind = ELF64_ST_BIND(y->st_info), type = ELF64_ST_TYPE(y->st_info);
		unsigned vis = ELF64_ST_VISIBILITY(y->st_other);
		if (y->st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    (vis != STV_DEFAULT && vis != STV_PROTECTED) || y->st_name >= nstr)
			continue;
		const char *name = str + y->st_name;
		size_t room = (size_t)(nstr - y->st_name);
		if (room < 5 || memcmp(name, "fmi2", 4) != 0 || !memchr(name, '\0', room))
			continue;
		for (size_t k = 0; k < NREQUIRED; k++)
			if (strcmp(name, fmi2_required[k].name) == 0)
				found[k] = true;
	}
	return NULL;
}

int pkg_check_fmi2_library(const char *archive, const char *so, const char *shown,
                           unsigned caps, DiagSink *d)
{
	Loc where = {archive, 0, 0, 0};
	int fd = open(so, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		diag_error(d, where, "cannot read %s: %s", shown, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	void *map = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
	                           : MAP_FAILED;
	close(fd);
	bool found[NREQUIRED] = {false};
	const char *why = map == MAP_FAILED ? (st.st_size > 0 ? strerror(errno) : "it is empty")
	                                    : elf_exports(map, (uint64_t)st.st_size, found);
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (why) {
		diag_error(d, where, "refusing %s: %s", shown, why);
		return 1;
	}
	StrBuf missing;
	sb_init(&missing);
	int iface = caps & PKG_CAP_MODEL_EXCHANGE ? IF_ME : IF_CS;
	for (size_t k = 0; k < NREQUIRED; k++)
		if (!found[k] && (fmi2_required[k].with == 0 || (caps & fmi2_required[k].with)) &&
		    (fmi2_required[k].iface == IF_BOTH || fmi2_required[k].iface == iface))
			sb_printf(&missing, "%s%s", missing.len ? ", " : "", fmi2_required[k].name);
	int rc = 0;
	if (missing.len) {
		diag_error(d, where, "refusing %s: it does not export %s (read from its dynamic "
			   "symbol table; an FMI 2.0 %s FMU with its capabilities must)",
			   shown, sb_str(&missing),
			   iface == IF_ME ? "model exchange" : "co-simulation");
		rc = 1;
	}
	sb_free(&missing);
	return rc;
}

int pkg_extract_fmu(const char *archive, const char *dir, const char *model_identifier,
                    int fmi_version, DiagSink *d)
{
	return pkg_extract_inner(archive, dir, model_identifier, fmi_version, 0, d);
}

/* Extracts archive into dir and checks that it has a model description at its root;
 * 0, or 1 after a report (dir removed then). */
static int extract_tree(const char *archive, const char *dir, DiagSink *d)
{
	if (zip_extract(archive, dir, NULL, d) != 0)
		return 1;
	size_t n = strlen(dir) + 32;
	char *p = malloc(n);
	struct stat st;
	int rc = 0;
	if (!p) {
		diag_error(d, (Loc){archive, 0, 0, 0}, "out of memory");
		rc = 1;
	} else {
		snprintf(p, n, "%s/modelDescription.xml", dir);
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			diag_error(d, (Loc){archive, 0, 0, 0}, "not an FMU: it has no "
				   "modelDescription.xml at its root");
			rc = 1;
		}
	}
	free(p);
	if (rc)
		zip_rmtree(dir);
	return rc;
}

/* Checks that the FMU extracted in dir has platform pf's library of model_identifier, and
 * for Linux and FMI 2.0 that it exports what caps need (pkg_check_fmi2_library); a DLL's
 * exports are not read (its export table is PE's, which sacc does not parse).  0, or 1
 * after a report. */
static int check_library(const char *archive, const char *dir, const char *model_identifier,
                         int fmi_version, unsigned caps, const Platform *pf, DiagSink *d)
{
	Loc where = {archive, 0, 0, 0};
	const char *plat = platform_name(pf, fmi_version);
	size_t n = strlen(dir) + strlen(plat) + strlen(model_identifier) + 64;
	char *p = malloc(n);
	char *shown = malloc(n);
	struct stat st;
	int rc = 0;
	if (!p || !shown) {
		diag_error(d, where, "out of memory");
		rc = 1;
		goto done;
	}
	snprintf(shown, n, "binaries/%s/%s%s", plat, model_identifier, pf->suffix);
	snprintf(p, n, "%s/%s", dir, shown);
	if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_error(d, where, "it has no %s, the library of model identifier '%s' for %s",
			   shown, model_identifier,
			   pf->bit == PKG_WIN64 ? "64-bit Windows" : "64-bit Linux");
		rc = 1;
	} else if (fmi_version != 3 && pf->bit == PKG_LINUX64) {
		rc = pkg_check_fmi2_library(archive, p, shown, caps, d);
	}
done:
	free(p);
	free(shown);
	return rc;
}

int pkg_extract_inner(const char *archive, const char *dir, const char *model_identifier,
                      int fmi_version, unsigned caps, DiagSink *d)
{
	return pkg_extract_inner_for(archive, dir, model_identifier, fmi_version, caps,
	                             PKG_LINUX64, d);
}

int pkg_extract_inner_for(const char *archive, const char *dir, const char *model_identifier,
                          int fmi_version, unsigned caps, unsigned platform, DiagSink *d)
{
	if (extract_tree(archive, dir, d) != 0)
		return 1;
	const Platform *pf = &platforms[platform == PKG_WIN64 ? 1 : 0];
	int rc = check_library(archive, dir, model_identifier, fmi_version, caps, pf, d);
	if (rc && pf->bit == PKG_LINUX64 &&
	    (pkg_fmu_platforms(dir, model_identifier, fmi_version) & PKG_WIN64))
		diag_note(d, (Loc){archive, 0, 0, 0}, "it ships a library for 64-bit Windows only "
			  "(binaries/%s/); sacc runs such FMUs only inside a win64 wrapper on Windows",
			  platform_name(&platforms[1], fmi_version));
	if (rc)
		zip_rmtree(dir);
	return rc;
}

/* ---- inner FMUs -------------------------------------------------------------------------------- */

typedef struct InnerArchive {
	const char *path;
	const char *model_identifier;
	int fmi_version;
	unsigned caps; /* PKG_CAP_* the model description claims */
} InnerArchive;

/* What the element of the interface the wrapper runs f through claims (me: Model
 * Exchange's). */
static unsigned caps_of(const FmuInfo *f, bool me)
{
	FmuAbilities ab = fmu_abilities(f, me);
	return (ab.can_get_and_set_fmu_state ? PKG_CAP_GET_SET_STATE : 0) |
	       (ab.can_serialize_fmu_state ? PKG_CAP_SERIALIZE : 0) |
	       (ab.can_interpolate_inputs ? PKG_CAP_INTERPOLATE_INPUTS : 0) |
	       (me ? PKG_CAP_MODEL_EXCHANGE : 0);
}

/* Where an inner adaptation not built in this run may already have been built: the -o
 * directory, where its own `sacc build` would write it without -o, beside the script that
 * uses it, then the -L directories (by path, then by file name). */
static const char *find_built(Build *b, Job *j, Inner *in, const char *at, StrBuf *looked)
{
	Compilation *c = b->c;
	Arena *a = c->arena;
	int max = 3 + 2 * c->nfmu_dirs, n = 0;
	const char **cand = arena_alloc(a, (size_t)max * sizeof *cand);
	if (b->o && b->o->out_dir)
		cand[n++] = arena_printf(a, "%s/%s", b->o->out_dir, path_base(at));
	SaInfo *pi = in->adaptation->info;
	const char *own = in->adaptation->str;
	if (own && pi && pi->dir)
		cand[n++] = own[0] == '/' ? own : arena_printf(a, "%s/%s", pi->dir, own);
	cand[n++] = at[0] == '/' ? at : arena_printf(a, "%s/%s", j->info->dir, at);
	for (int i = 0; at[0] != '/' && i < c->nfmu_dirs; i++) {
		cand[n++] = arena_printf(a, "%s/%s", c->fmu_dirs[i], at);
		cand[n++] = arena_printf(a, "%s/%s", c->fmu_dirs[i], path_base(at));
	}
	for (int i = 0; i < n; i++) {
		bool again = false;
		for (int k = 0; k < i; k++)
			again |= strcmp(cand[k], cand[i]) == 0;
		if (again)
			continue;
		sb_printf(looked, "%s'%s'", looked->len ? ", " : "", cand[i]);
		if (is_file(cand[i]))
			return cand[i];
	}
	return NULL;
}

static int resolve_inner(Build *b, Job *j, Inner *in, InnerArchive *ia)
{
	Compilation *c = b->c;
	Loc where = in->decl ? in->decl->loc : j->sa->loc;
	const char *at = in->decl && in->decl->str ? in->decl->str : NULL;
	if (!in->adaptation) {
		if (!in->fmu) {
			diag_error(c->diag, where, "inner fmu '%s' was not resolved", in->name);
			return 1;
		}
		if (str_ends_with(in->fmu->path, ".xml")) {
			diag_error(c->diag, where, "inner fmu '%s' is a bare model description ('%s'); "
				   "building the wrapper needs the .fmu archive", in->name,
				   in->fmu->path);
			return 1;
		}
		*ia = (InnerArchive){in->fmu->path, fmu_identifier(in->fmu, in->me),
				     (int)in->fmu->version, caps_of(in->fmu, in->me)};
		return 0;
	}
	Node *producer = in->adaptation;
	Job *pj = job_of(b, producer);
	const char *path;
	if (pj) {
		if (!pj->done) {
			diag_note(c->diag, where, "inner fmu '%s' is adaptation '%s', which was not "
				  "built", in->name, producer->name);
			return 1;
		}
		path = pj->out;
	} else {
		if (!at)
			at = producer->str;
		StrBuf looked;
		sb_init(&looked);
		path = find_built(b, j, in, at, &looked);
		if (!path) {
			diag_error(c->diag, where, "inner fmu '%s' is adaptation '%s', but its FMU '%s' "
				   "is not built", in->name, producer->name, path_base(at));
			diag_note(c->diag, where, "looked for it at %s", sb_str(&looked));
			diag_note(c->diag, producer->loc, "build it first with 'sacc build %s' (with "
				  "the same -o, -I and -L options), or name '%s' on this command line "
				  "too", producer->loc.file, producer->loc.file);
			sb_free(&looked);
			return 1;
		}
		sb_free(&looked);
	}
	FmuInfo *f = drv_open_fmu(c, path, where);
	if (!f)
		return 1;
	if (!pj) {
		char guid[40];
		if (!producer->info || !emit_guid(c, producer->info, guid)) {
			diag_error(c->diag, where, "cannot compute the GUID of adaptation '%s'",
				   producer->name);
			return 1;
		}
		if (!f->guid || strcmp(f->guid, guid) != 0) {
			diag_error(c->diag, where, "'%s' is out of date: its GUID is %s, adaptation "
				   "'%s' now gives %s", path, f->guid ? f->guid : "(none)",
				   producer->name, guid);
			diag_note(c->diag, producer->loc, "rebuild it with 'sacc build %s', or name "
				  "'%s' on this command line too", producer->loc.file,
				  producer->loc.file);
			return 1;
		}
	}
	*ia = (InnerArchive){f->path, f->model_identifier, (int)f->version, caps_of(f, false)};
	in->built_fmi = f->version == FMI_V3 ? 3 : 2; /* the seam back end the emitted C names */
	return 0;
}

/* ---- one adaptation ---------------------------------------------------------------------------- */

static bool safe_component(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* The job's FMI version as a number, for the refusals and the inner adaptations. */
static int fmi_of(const Build *b, const Job *j)
{
	return wants_fmi3(b, j) ? 3 : 2;
}

/* What `sacc emit` and `sacc build` share, so that the sources emit writes are the ones
 * build compiles and zips: the inners --isolate names marked, the --threads bound set, the
 * layout, and the refusals of what the job's FMI version cannot carry (all reported at
 * once: an FMI 2.0 build over Binaries and arrays names them all).  The inners must have
 * been resolved (built_fmi set on inner adaptations).  NULL after a report; *host: some
 * inner runs out of process. */
static EmitLayout *prepare(Build *b, Job *j, bool *host)
{
	Compilation *c = b->c;
	SaInfo *info = j->info;
	*host = mark_isolated(b, info);
	if (info)
		info->threads = b->o ? b->o->threads : 0;
	int before = diag_errors(c->diag);
	EmitLayout *l = info ? emit_layout(c, info) : NULL;
	if (!l) {
		if (diag_errors(c->diag) == before) /* emit_layout reports what it refuses */
			diag_error(c->diag, j->sa->loc, "adaptation '%s' was not reduced to its "
				   "explicit form", j->sa->name);
		return NULL;
	}
	int refused = emit_binaries_refused(c, l, fmi_of(b, j));
	if (!wants_fmi3(b, j) && l->narrays && emit_refuse_arrays_fmi2(c, l))
		refused++;
	return refused ? NULL : l;
}

/* The wrapper's own sources: sources/config.h and sources/<id>.c, and md, the model
 * description of the job's FMI version.  Returns 0, or 1 after a report. */
static int write_wrapper(Build *b, Job *j, const EmitLayout *l, const char *md,
                         const char *sources)
{
	Compilation *c = b->c;
	if (emit_c_to_dir(c, l, sources) != 0)
		return 1;
	return wants_fmi3(b, j) ? emit_md3_to_file(c, l, md) : emit_md_to_file(c, l, md);
}

/* What makes the archive a source FMU too, beside the sources the build compiled: the FMI
 * 3.0 build description (FMI 2.0's <SourceFiles> are in the model description already) and
 * the README that says what neither version's XML can. */
static int describe_sources(Build *b, Job *j, const EmitLayout *l, const char *sources,
                            bool host)
{
	Compilation *c = b->c;
	bool fmi3 = wants_fmi3(b, j);
	PkgSourceInfo s = {l->model_identifier, fmi3, l->narrays > 0, host, NULL, 0};
	s.files = pkg_source_files(c, s.id, fmi3, &s.nfiles);
	if (fmi3 && pkg_write_build_description(c, arena_printf(c->arena, "%s/buildDescription.xml",
								  sources),
						s.id, s.files, s.nfiles, s.arrays) != 0)
		return 1;
	return pkg_write_sources_readme(c, arena_printf(c->arena, "%s/README", sources), &s);
}

/* The platforms job j's wrapper is built for: those --platform names, each an error when
 * an inner (extracted under res/<name>/) lacks it, its compiler is missing or (win64) an
 * inner is isolated and the host built for Windows is not beside sacc; by default every
 * platform all inners provide whose compiler is there.  A platform left out by default
 * that some inner provides gets a note naming why (an inner that lacks it, the missing
 * compiler's package); one no inner provides is left out silently, as it would be for
 * every wrapper over Linux-only FMUs.
 * 0 after an error. */
static unsigned choose_platforms(Build *b, Job *j, const InnerArchive *ias, const char *res,
                                 const int *homes, bool host)
{
	Compilation *c = b->c;
	DiagSink *d = c->diag;
	int ninners = j->info ? j->info->ninners : 0;
	unsigned asked = b->o && b->o->platforms ? pkg_parse_platforms(b->o->platforms, d) : 0;
	if (b->o && b->o->platforms && !asked)
		return 0;
	unsigned chosen = 0;
	bool failed = false;
	for (int k = 0; k < PKG_NPLATFORMS; k++) {
		const Platform *p = &platforms[k];
		if (asked && !(asked & p->bit))
			continue;
		const char *why = NULL;
		int have = 0;
		for (int i = 0; i < ninners; i++) {
			Inner *in = j->info->inners[i];
			/* an inner sharing another's copy is looked at there */
			const char *dir = arena_printf(c->arena, "%s/%s", res,
						       j->info->inners[homes[i]]->name);
			bool wine = p->bit == PKG_LINUX64 &&
				    windows_only(dir, ias[i].model_identifier, ias[i].fmi_version);
			if (pkg_fmu_platforms(dir, ias[i].model_identifier, ias[i].fmi_version) & p->bit)
				have++;
			else if (wine && windows_host(c->arena))
				have++; /* run under Wine, in the host built for Windows */
			else if (wine && !why)
				why = arena_printf(c->arena, "inner fmu '%s' ships a library for 64-bit "
						   "Windows only, and the host that would run it under "
						   "Wine, " WINDOWS_HOST ", is not beside sacc (sacc "
						   "builds it when the Debian package "
						   "gcc-mingw-w64-x86-64 is installed)", in->name);
			else if (!why)
				why = arena_printf(c->arena, "inner fmu '%s' has no binaries/%s/%s%s",
						   in->name, platform_name(p, ias[i].fmi_version),
						   ias[i].model_identifier, p->suffix);
		}
		if (!why && p->cc && !on_path(c->arena, p->cc))
			why = arena_printf(c->arena, "its cross compiler %s is not installed (Debian "
					   "package %s)", p->cc, p->package);
		/* (after the compiler: without mingw-w64 there is no such host either) */
		if (!why && p->bit == PKG_WIN64 && host && !windows_host(c->arena))
			why = "its isolated inners run in the host built for Windows, " WINDOWS_HOST
			      ", which is not beside sacc (sacc builds it when the Debian package "
			      "gcc-mingw-w64-x86-64 is installed)";
		if (!why) {
			chosen |= p->bit;
		} else if (asked) {
			diag_error(d, j->sa->loc, "adaptation '%s' cannot be built for %s: %s",
				   j->sa->name, platform_name(p, fmi_of(b, j)), why);
			failed = true;
		} else if (have > 0) {
			diag_note(d, j->sa->loc, "adaptation '%s' is built without %s: %s",
				  j->sa->name, platform_name(p, fmi_of(b, j)), why);
		}
	}
	if (failed)
		return 0;
	if (!chosen)
		diag_error(d, j->sa->loc, "adaptation '%s' has no platform to be built for: its inner "
			   "FMUs share none that sacc builds for (linux64, win64)", j->sa->name);
	return chosen;
}

static int build_one(Build *b, Job *j)
{
	Compilation *c = b->c;
	Arena *a = c->arena;
	DiagSink *d = c->diag;
	SaInfo *info = j->info;
	int ninners = info ? info->ninners : 0;
	InnerArchive *ias = arena_alloc(a, (size_t)(ninners + 1) * sizeof *ias);
	for (int i = 0; i < ninners; i++)
		if (resolve_inner(b, j, info->inners[i], &ias[i]) != 0)
			return 1;
	bool host;
	EmitLayout *l = prepare(b, j, &host);
	if (!l)
		return 1;
	const char *id = l->model_identifier;

	const char *parent = path_dir(a, j->out);
	if (!make_dirs(parent)) {
		diag_error(d, (Loc){parent, 0, 0, 0}, "cannot create the directory: %s",
			   strerror(errno));
		return 1;
	}
	char *work = arena_printf(a, "%s/.sacc-build-%s-XXXXXX", parent, id);
	if (!mkdtemp(work)) {
		diag_error(d, (Loc){parent, 0, 0, 0}, "cannot make a work directory here: %s",
			   strerror(errno));
		return 1;
	}
	int rc = 1;
	const char *tree = arena_printf(a, "%s/fmu", work);
	const char *sources = arena_printf(a, "%s/sources", tree);
	const char *res = arena_printf(a, "%s/resources", tree);
	const char *zip = arena_printf(a, "%s/out.fmu", work);
	if (!make_dirs(sources) || (ninners > 0 && !make_dirs(res))) {
		diag_error(d, (Loc){work, 0, 0, 0}, "cannot create the directory: %s",
			   strerror(errno));
		goto done;
	}
	/* The inners first: their binaries/ folders say which platforms the wrapper can have.
	 * Inners of one FMU file share the copy of the first (emit_inner_homes), but for one
	 * that must be instantiated only once per process. */
	int *homes = ninners > 0 ? emit_inner_homes(c, info) : NULL;
	if (ninners > 0 && !homes) {
		diag_error(d, j->sa->loc, "out of memory");
		goto done;
	}
	for (int i = 0; i < ninners; i++) {
		Inner *in = info->inners[i];
		if (homes[i] != i)
			continue; /* shares the copy of an inner before it */
		if (!safe_component(in->name)) {
			diag_error(d, j->sa->loc, "inner fmu name '%s' cannot name a directory",
				   in->name);
			goto done;
		}
		if (extract_tree(ias[i].path, arena_printf(a, "%s/%s", res, in->name), d) != 0) {
			diag_note(d, in->decl ? in->decl->loc : j->sa->loc,
				  "inner fmu '%s' of adaptation '%s'", in->name, j->sa->name);
			goto done;
		}
	}
	unsigned chosen = choose_platforms(b, j, ias, res, homes, host);
	if (!chosen)
		goto done;
	bool wine = false; /* some inner runs under Wine in the Linux wrapper */
	for (int i = 0; i < ninners; i++) {
		Inner *in = info->inners[i];
		if (homes[i] != i)
			continue;
		const char *dir = arena_printf(a, "%s/%s", res, in->name);
		bool windows = (chosen & PKG_LINUX64) &&
			       windows_only(dir, ias[i].model_identifier, ias[i].fmi_version);
		if (windows)
			diag_note(d, in->decl ? in->decl->loc : j->sa->loc, "inner fmu '%s' ships a "
				  "library for 64-bit Windows only: the linux64 wrapper runs it out of "
				  "process, under Wine (binaries/%s/" WINDOWS_HOST ")", in->name,
				  platform_name(&platforms[0], fmi_of(b, j)));
		wine |= windows;
		for (int k = 0; k < PKG_NPLATFORMS; k++)
			if ((chosen & platforms[k].bit) &&
			    check_library(ias[i].path, dir, ias[i].model_identifier,
					  ias[i].fmi_version, ias[i].caps,
					  windows ? &platforms[1] : &platforms[k], d) != 0) {
				diag_note(d, in->decl ? in->decl->loc : j->sa->loc,
					  "inner fmu '%s' of adaptation '%s'", in->name, j->sa->name);
				goto done;
			}
	}
	const char *md = arena_printf(a, "%s/modelDescription.xml", tree);
	bool keep_sources = !(b->o && b->o->no_sources);
	if (keep_sources && !wants_fmi3(b, j))
		l->source_files = pkg_source_files(c, id, false, &l->nsource_files);
	if (write_wrapper(b, j, l, md, sources) != 0 ||
	    write_runtime(c, sources, wants_fmi3(b, j), host) != 0)
		goto done;
	for (int k = 0; k < PKG_NPLATFORMS; k++) {
		const Platform *p = &platforms[k];
		if (!(chosen & p->bit))
			continue;
		const char *bin = arena_printf(a, "%s/%s", tree, platform_dir(b, j, p));
		if (!make_dirs(bin)) {
			diag_error(d, (Loc){bin, 0, 0, 0}, "cannot create the directory: %s",
				   strerror(errno));
			goto done;
		}
		if (compile(b, j, p, tree, id, l->narrays > 0) != 0)
			goto done;
	}
	if (host && (chosen & PKG_LINUX64) && compile_host(b, j, tree) != 0)
		goto done;
	/* a win64 wrapper's isolated inners run in the host built for Windows, as sacc has it */
	if (host && (chosen & PKG_WIN64) &&
	    ship_windows_host(a, windows_host(a), arena_printf(a, "%s/%s", tree,
				      platform_dir(b, j, &platforms[1])), d) != 0)
		goto done;
	if (wine && ship_windows_host(a, windows_host(a), arena_printf(a, "%s/%s", tree,
				      platform_dir(b, j, &platforms[0])), d) != 0)
		goto done;
	if (keep_sources ? describe_sources(b, j, l, sources, host) != 0
			 : zip_rmtree(sources) != 0) {
		if (!keep_sources)
			diag_error(d, (Loc){sources, 0, 0, 0}, "cannot remove the directory: %s",
				   strerror(errno));
		goto done;
	}
	if (zip_write_dir(tree, zip, d) != 0)
		goto done;
	if (rename(zip, j->out) != 0) {
		diag_error(d, (Loc){j->out, 0, 0, 0}, "cannot write: %s", strerror(errno));
		goto done;
	}
	rc = 0;
done:
	if (zip_rmtree(work) != 0)
		diag_warning(d, (Loc){work, 0, 0, 0}, "cannot remove the work directory: %s",
			     strerror(errno));
	return rc;
}

/* --isolate: "all", or names each of which some adaptation built has as an inner. */
static int check_isolate_list(Build *b)
{
	const char *list = b->o->isolate;
	if (strcmp(list, "all") == 0)
		return 0;
	size_t len;
	for (const char *rest = list, *p; next_list_item(&rest, &p, &len);) {
		bool found = false;
		for (int k = 0; k < b->njobs && !found; k++)
			for (int i = 0; b->jobs[k].info && i < b->jobs[k].info->ninners && !found; i++) {
				const char *name = b->jobs[k].info->inners[i]->name;
				found = strlen(name) == len && strncmp(name, p, len) == 0;
			}
		if (!found) {
			diag_error(b->c->diag, (Loc){0}, "--isolate: no adaptation built has an inner "
				   "fmu '%.*s'", (int)len, p);
			return 1;
		}
	}
	return 0;
}

int pkg_build(Compilation *c, Module **mods, int nmods, const PkgOptions *o)
{
	int before = diag_errors(c->diag);
	Arena *a = c->arena;
	int cap = 0;
	for (int i = 0; i < nmods; i++)
		for (Node *e = mods[i] && mods[i]->root ? mods[i]->root->list2 : NULL; e; e = e->next)
			cap += e->kind == ND_ADAPTATION;
	Build b = {c, o, arena_alloc(a, (size_t)(cap + 1) * sizeof(Job)), 0,
		   arena_alloc(a, (size_t)(cap + 1) * sizeof(Job *)), 0};
	for (int i = 0; i < nmods; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= mods[k] == mods[i];
		if (seen || !mods[i] || !mods[i]->root)
			continue;
		for (Node *e = mods[i]->root->list2; e; e = e->next) {
			if (e->kind != ND_ADAPTATION)
				continue;
			SaInfo *info = e->info;
			const char *at = e->str ? e->str : arena_printf(a, "%s.fmu", e->name);
			const char *out;
			if (o && o->out_dir)
				out = arena_printf(a, "%s/%s", o->out_dir, path_base(at));
			else if (at[0] == '/')
				out = at;
			else
				out = arena_printf(a, "%s/%s", info && info->dir ? info->dir : ".", at);
			for (int k = 0; k < b.njobs; k++)
				if (strcmp(b.jobs[k].out, out) == 0) {
					diag_error(c->diag, e->loc, "adaptation '%s' would be written to "
						   "'%s', as adaptation '%s' is", e->name, out,
						   b.jobs[k].sa->name);
					diag_note(c->diag, b.jobs[k].sa->loc, "'%s' is declared here",
						  b.jobs[k].sa->name);
				}
			b.jobs[b.njobs++] = (Job){e, info, out, 0, false, false};
		}
	}
	if (o && o->isolate && check_isolate_list(&b) != 0)
		return 1;
	if (o && o->platforms && !pkg_parse_platforms(o->platforms, c->diag))
		return 1; /* reported once here; choose_platforms parses it again, valid */
	if (diag_errors(c->diag) != before)
		return diag_errors(c->diag) - before;
	if (o && o->out_dir && !make_dirs(o->out_dir)) {
		diag_error(c->diag, (Loc){o->out_dir, 0, 0, 0}, "cannot create the directory: %s",
			   strerror(errno));
		return 1;
	}
	for (int i = 0; i < b.njobs; i++)
		place(&b, &b.jobs[i]);
	for (int i = 0; i < b.norder; i++) {
		Job *j = b.order[i];
		if (j->failed)
			continue;
		j->failed = build_one(&b, j) != 0;
		j->done = !j->failed;
	}
	return diag_errors(c->diag) - before;
}

/* ---- sacc emit --------------------------------------------------------------------------------- */

/* The FMI version an inner adaptation's FMU is taken to have when `sacc emit` writes the
 * wrapper over it: the one `sacc build` with the same options gives it (--fmi, else its
 * clause, else 2).  Emit reads no archive, so that its output depends on the sources and
 * the options alone. */
static void assume_built(const Build *b, Job *j)
{
	for (int i = 0; j->info && i < j->info->ninners; i++) {
		Inner *in = j->info->inners[i];
		if (!in->adaptation)
			continue;
		if (b->o && b->o->fmi_version)
			in->built_fmi = b->o->fmi_version == 3 ? 3 : 2;
		else
			in->built_fmi = in->adaptation->ival == 3 ? 3 : 2;
	}
}

int pkg_emit(Compilation *c, Module *m, const PkgOptions *o)
{
	int before = diag_errors(c->diag);
	Arena *a = c->arena;
	if (!m || !m->root || !o || !o->out_dir)
		return 1;
	int cap = 0;
	for (Node *e = m->root->list2; e; e = e->next)
		cap += e->kind == ND_ADAPTATION;
	Build b = {c, o, arena_alloc(a, (size_t)(cap + 1) * sizeof(Job)), 0, NULL, 0};
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			b.jobs[b.njobs++] = (Job){e, e->info, NULL, 0, false, false};
	if (o->isolate && check_isolate_list(&b) != 0)
		return 1;
	for (int i = 0; i < b.njobs; i++) {
		Job *j = &b.jobs[i];
		assume_built(&b, j);
		bool host;
		EmitLayout *l = prepare(&b, j, &host);
		if (!l)
			continue;
		const char *sub = arena_printf(a, "%s/%s", o->out_dir, l->model_identifier);
		if (!make_dirs(sub)) {
			diag_error(c->diag, (Loc){sub, 0, 0, 0}, "cannot create the directory: %s",
				   strerror(errno));
			continue;
		}
		write_wrapper(&b, j, l, arena_printf(a, "%s/modelDescription.xml", sub), sub);
	}
	return diag_errors(c->diag) - before;
}
