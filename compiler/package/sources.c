/* sources.c — what makes a wrapper FMU a source FMU too (see package.h, "source wrappers",
 * and docs/fmu.md, "Building the wrapper from its sources"): which files under sources/
 * are compiled into the library, the FMI 3.0 build description that lists them, and the
 * README beside them that says what neither version's XML can (the libraries, the
 * visibility flag, the host program of isolated inners).
 *
 * One list serves both the build and the description: compile() in package.c compiles
 * exactly pkg_source_files(), so the files an importer is told to compile are the ones sacc
 * compiled, by construction.  Every source includes its headers by a path relative to
 * itself, so no include directory and, for the wrapper's own choices, only SART_ARRAYS (an
 * FMI 3.0 wrapper with array variables) need be passed: what sacc's own compiler flags add
 * beyond that (warnings, -O2) changes no result. */
#include "package.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "util.h"
#include "version.h"

/* The directory of the host program's main under runtime/ (and sources/). */
#define HOST_DIR "host/"

bool pkg_runtime_in_wrapper(const char *path, bool fmi3, bool host)
{
	/* The other version's skin stays out (both would compile, but a wrapper exports one
	 * version's functions).  Both versions' headers stay in: the seam's back ends for inner
	 * FMUs of either version use them. */
	if (strcmp(path, fmi3 ? "sart_fmi2.c" : "sart_fmi3.c") == 0)
		return false;
	return host || strncmp(path, HOST_DIR, strlen(HOST_DIR)) != 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **pkg_source_files(Compilation *c, const char *id, bool fmi3, int *n)
{
	const char **v = arena_alloc(c->arena, (pkg_nruntime_files + 2) * sizeof *v);
	int k = 0;
	v[k++] = arena_printf(c->arena, "%s.c", id);
	for (size_t i = 0; i < pkg_nruntime_files; i++) {
		const char *p = pkg_runtime_files[i].path;
		/* the library's sources are those at the top: host/ is the host program's */
		if (str_ends_with(p, ".c") && !strchr(p, '/') && pkg_runtime_in_wrapper(p, fmi3, false))
			v[k++] = p;
	}
	/* byte order, so the link order (and the library) is always the same */
	qsort(v, (size_t)k, sizeof *v, cmp_str);
	*n = k;
	return v;
}

/* ---- sources/buildDescription.xml (FMI 3.0) ---------------------------------------------- */

/* The libraries the wrapper's library links besides libc: the math library, the dynamic
 * loader (the inner FMUs are opened with dlopen) and POSIX threads (the worker pool of
 * batched do_steps).  glibc 2.34 and later hold the last two in libc itself. */
static const struct {
	const char *name, *description;
} libraries[] = {
	{"m", "the C math library (-lm)"},
	{"dl", "the dynamic loader, dlopen and dlsym (-ldl; part of libc on glibc 2.34 and later, "
	       "macOS and the BSDs)"},
	{"pthread", "POSIX threads (-pthread)"},
};

typedef struct Xml {
	xmlTextWriterPtr w;
	bool failed;
} Xml;

static void x_start(Xml *x, const char *element)
{
	x->failed |= xmlTextWriterStartElement(x->w, BAD_CAST element) < 0;
}

static void x_end(Xml *x)
{
	x->failed |= xmlTextWriterEndElement(x->w) < 0;
}

static void x_attr(Xml *x, const char *name, const char *value)
{
	x->failed |= xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0;
}

static void x_comment(Xml *x, const char *text)
{
	x->failed |= xmlTextWriterWriteComment(x->w, BAD_CAST text) < 0;
}

/* The build description's bytes, as pkg_write_build_description writes them; NULL when
 * libxml2 fails (out of memory).  The caller frees the buffer. */
static xmlBufferPtr build_description(const char *id, const char *const *files, int n,
                                      bool arrays)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	if (!w) {
		if (buf)
			xmlBufferFree(buf);
		return NULL;
	}
	Xml x = {w, false};
	x.failed |= xmlTextWriterSetIndent(w, 1) < 0;
	x.failed |= xmlTextWriterSetIndentString(w, BAD_CAST "  ") < 0;
	x.failed |= xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0;
	x_start(&x, "fmiBuildDescription");
	x_attr(&x, "fmiVersion", "3.0");
	x_start(&x, "BuildConfiguration");
	x_attr(&x, "modelIdentifier", id);
	x_attr(&x, "description", "the wrapper's library: C99 for Linux on any architecture "
	       "(POSIX, futexes); compile with -fvisibility=hidden where the compiler has it, "
	       "so that the library exports the FMI functions only (README in this directory)");
	x_start(&x, "SourceFileSet");
	x_attr(&x, "language", "C99");
	for (int i = 0; i < n; i++) {
		x_start(&x, "SourceFile");
		x_attr(&x, "name", files[i]);
		x_end(&x);
	}
	if (arrays) {
		/* A value: some importers pass NAME=VALUE whatever the description says. */
		x_start(&x, "PreprocessorDefinition");
		x_attr(&x, "name", "SART_ARRAYS");
		x_attr(&x, "value", "1");
		x_attr(&x, "description", "the wrapper has array variables: the value functions "
		       "expand their value references");
		x_end(&x);
	}
	/* The sources include their headers by paths relative to themselves: sources/ is the
	 * only include directory, and it is named for importers that add none by default. */
	x_start(&x, "IncludeDirectory");
	x_attr(&x, "name", ".");
	x_end(&x);
	x_end(&x); /* SourceFileSet */
	for (size_t i = 0; i < sizeof libraries / sizeof *libraries; i++) {
		x_start(&x, "Library");
		x_attr(&x, "name", libraries[i].name);
		x_attr(&x, "external", "true");
		x_attr(&x, "description", libraries[i].description);
		x_end(&x);
	}
	x_end(&x); /* BuildConfiguration */
	x_comment(&x, " generated by sacc " SACC_VERSION " ");
	x_end(&x);
	x.failed |= xmlTextWriterEndDocument(w) < 0;
	xmlFreeTextWriter(w);
	if (x.failed) {
		xmlBufferFree(buf);
		return NULL;
	}
	return buf;
}

/* Writes n bytes to path, a new file; 0, or 1 after a report. */
static int write_bytes(Compilation *c, const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wbx");
	bool ok = f && fwrite(data, 1, n, f) == n;
	int e = errno;
	if (f && fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write: %s", strerror(e));
		return 1;
	}
	return 0;
}

int pkg_write_build_description(Compilation *c, const char *path, const char *id,
                                const char *const *files, int n, bool arrays)
{
	xmlBufferPtr buf = build_description(id, files, n, arrays);
	if (!buf) {
		diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write the build description: "
			   "out of memory");
		return 1;
	}
	int rc = write_bytes(c, path, xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
	xmlBufferFree(buf);
	return rc;
}

/* ---- sources/README --------------------------------------------------------------------- */

/* The sources of the host program of isolated inners: its main and the seam with its back
 * ends (package.c compiles the same list). */
const char *const pkg_host_sources[] = {
	HOST_DIR "sacc_fmu_host.c", "sart_channel.c", "sart_host.c", "sart_inner.c",
	"sart_inner_fmi2.c", "sart_inner_fmi3.c", "sart_inner_fmi3_bytes.c",
	"sart_inner_me.c", "sart_ode.c", /* Model Exchange inners */
	"sart_inner_se.c", "sart_inner_fmi3_se.c", /* Scheduled Execution inners */
	"sart_numfmt.c", /* the seam's messages print numbers with it */
	"sart_platform_posix.c", "sart_platform_win32.c", /* dlopen or LoadLibrary: each
	                                                   * compiles to nothing elsewhere */
};
const int pkg_nhost_sources = sizeof pkg_host_sources / sizeof *pkg_host_sources;

/* Appends the words to sb as one shell command indented by four spaces (the README's
 * only lines that are), wrapped at about 90 columns with "\"; an option and its value
 * ("-o" FILE) stay on one line. */
static void command(StrBuf *sb, const char *const *words, int n)
{
	int col = 4;
	sb_puts(sb, "    ");
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(words[i]);
		if (i + 1 < n && strcmp(words[i], "-o") == 0)
			len += 1 + (int)strlen(words[i + 1]);
		if (i > 0 && col + 1 + len > 88) {
			sb_puts(sb, " \\\n        ");
			col = 8;
		} else if (i > 0) {
			sb_putc(sb, ' ');
			col++;
		}
		sb_puts(sb, words[i]);
		col += (int)strlen(words[i]);
	}
	sb_putc(sb, '\n');
}

int pkg_write_sources_readme(Compilation *c, const char *path, const PkgSourceInfo *s)
{
	Arena *a = c->arena;
	const char *plat = s->fmi3 ? "x86_64-linux" : "linux64";
	StrBuf sb;
	sb_init(&sb);
	sb_printf(&sb, "%s: building this FMU's library from its sources\n\n", s->id);
	sb_printf(&sb, "These are the complete sources of the wrapper's library, as sacc %s "
		   "compiled them\ninto binaries/%s/%s.so.\n", SACC_VERSION, plat, s->id);
	if (s->fmi3)
		sb_puts(&sb, "buildDescription.xml lists the files to compile, the definitions "
			     "and the libraries.\n\n");
	else
		sb_puts(&sb, "The <SourceFiles> of ../modelDescription.xml list the files to "
			     "compile.\n\n");
	sb_puts(&sb, "- C99 for Linux on any architecture: POSIX (dlopen, threads) and Linux's "
		     "futexes and\n  memfd_create (sart_channel.c, not yet ported elsewhere).  "
		     "Every file includes its\n  headers by a path relative to itself: no include "
		     "directory is needed.\n");
	if (s->arrays)
		sb_puts(&sb, "- Define SART_ARRAYS=1: the wrapper has array variables.\n");
	else
		sb_puts(&sb, "- No preprocessor definition is needed.\n");
	sb_puts(&sb, "- Link the math library, the dynamic loader and POSIX threads (-lm -ldl "
		     "-pthread; glibc\n  2.34 and later hold the last two in libc).\n"
		     "- Compile with -fvisibility=hidden where the compiler has it (gcc, clang): "
		     "the library\n  then exports the FMI functions only, and two wrappers in one "
		     "process never share\n  the runtime's symbols.\n\n");
	sb_puts(&sb, "On Linux, from this directory (on Linux on ARM the FMI 3.0 platform is "
		     "aarch64-linux):\n\n");
	const char *out = arena_printf(a, "../binaries/%s/%s.so", plat, s->id);
	int nw = 0;
	const char **w = arena_alloc(a, (size_t)(s->nfiles + pkg_nhost_sources + 16) * sizeof *w);
	w[nw++] = "mkdir -p";
	w[nw++] = arena_printf(a, "../binaries/%s", plat);
	command(&sb, w, nw);
	nw = 0;
	static const char *const flags[] = {"cc", "-std=c99", "-O2", "-fPIC",
	                                    "-fvisibility=hidden", "-pthread", "-shared"};
	for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
		w[nw++] = flags[i];
	if (s->arrays)
		w[nw++] = "-DSART_ARRAYS=1";
	w[nw++] = "-o";
	w[nw++] = out;
	for (int i = 0; i < s->nfiles; i++)
		w[nw++] = s->files[i];
	w[nw++] = "-lm";
	w[nw++] = "-ldl";
	command(&sb, w, nw);
	sb_puts(&sb, "\nThe inner FMUs under ../resources/ are binary FMUs: the wrapper runs on "
		     "a platform\nonly where every inner FMU has a binary for it.\n");
	if (s->host) {
		sb_printf(&sb, "\nSome inner FMUs run out of process, in the host program "
			   "sacc-fmu-host, which the\nwrapper starts from beside its own library: "
			   "build it too, with the same compiler:\n\n");
		nw = 0;
		/* -I.: the host's main, in host/, includes the seam's headers */
		static const char *const hflags[] = {"cc", "-std=c99", "-O2", "-I."};
		for (size_t i = 0; i < sizeof hflags / sizeof *hflags; i++)
			w[nw++] = hflags[i];
		w[nw++] = "-o";
		w[nw++] = arena_printf(a, "../binaries/%s/sacc-fmu-host", plat);
		for (int i = 0; i < pkg_nhost_sources; i++)
			w[nw++] = pkg_host_sources[i];
		w[nw++] = "-lm";
		w[nw++] = "-ldl";
		command(&sb, w, nw);
		/* prose, not a command line: the Linux commands above are what a user pastes */
		sb_printf(&sb, "\nA Windows library of the wrapper (binaries/%s/) starts "
			   "sacc-fmu-host.exe from beside\nitself instead: the same files built "
			   "for Windows, e.g. with mingw-w64's\nx86_64-w64-mingw32-gcc -std=c99 -O2 "
			   "-D__USE_MINGW_ANSI_STDIO=1 -I. ... -static -lpthread.\n",
			   s->fmi3 ? "x86_64-windows" : "win64");
	}
	int rc = write_bytes(c, path, sb.data, sb.len);
	sb_free(&sb);
	return rc;
}
