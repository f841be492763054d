/* fuzz_ssp.c — libFuzzer entry point: the input as an SSP system, through ssp_read
 * (compiler/ssp/: the archive, SystemStructure.ssd, its .ssv parameter sets and .ssm
 * mappings, each component's FMU opened) and, when it is accepted, ssp_flatten with and
 * without unit conversion, as `sacc simulate SYSTEM` and `sacc ssp import` run them.
 *
 * Two shapes of input:
 *   - one starting with "PK" is an .ssp archive, written as in.ssp and read whole (its
 *     FMUs inside it);
 *   - any other is a set of documents separated by lines "%%": SystemStructure.ssd, then
 *     resources/b.ssv, resources/b.ssm, resources/parameters.ssv, resources/a.ssm (a
 *     missing one is no file), read from a directory whose resources/ also holds the test
 *     FMUs (links to SACC_FUZZ_FMUS and SACC_FUZZ_FMUS3, default build/fmus and
 *     build/fmus3), so that components open real model descriptions.
 *
 * Besides crashes, hangs and leaks, it aborts (so that libFuzzer keeps the input) when
 *  - ssp_read or ssp_flatten fails without an error in its sink;
 *  - a flat system names a component or variable out of range, or a link between
 *    variables that are not an FMU output and an FMU input;
 *  - an archive's extraction outlives ssp_free (anything but in.ssp and the document
 *    directory left in the private directory).
 * Everything lives in one private directory under $TMPDIR (TMPDIR is pointed there, so
 * that archives are unpacked inside it), removed at exit.  tests/fuzz/run.sh builds and
 * runs this. */
#define _GNU_SOURCE /* memmem, realpath */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "package.h"
#include "ssp.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The documents of a multi-document input, in order. */
static const char *const doc_names[] = {
	"SystemStructure.ssd", "resources/b.ssv", "resources/b.ssm",
	"resources/parameters.ssv", "resources/a.ssm",
};
#define NDOCS (sizeof doc_names / sizeof doc_names[0])
#define SEPARATOR "\n%%\n"

static char root[PATH_MAX], sysdir[PATH_MAX + 8], archive[PATH_MAX + 16];
static UnitSystem *units;

static void cleanup(void)
{
	if (root[0])
		zip_rmtree(root);
}

static void fail(const char *why, const char *diag)
{
	fprintf(stderr, "fuzz_ssp: %s\n%s\n", why, diag ? diag : "");
	abort();
}

/* Links every .fmu of dir into resources/ (the names the seeds use: mass1.fmu, ...). */
static void link_fmus(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char abs[PATH_MAX];
	if (!realpath(dir, abs)) {
		closedir(d);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".fmu") != 0)
			continue;
		char from[PATH_MAX * 2 + 2], to[PATH_MAX * 2 + 16];
		snprintf(from, sizeof from, "%s/%s", abs, e->d_name);
		snprintf(to, sizeof to, "%s/resources/%s", sysdir, e->d_name);
		if (symlink(from, to) != 0) {
			perror("fuzz_ssp: symlink");
			exit(1);
		}
	}
	closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *t = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/sacc-fuzz-ssp-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(root)) {
		perror("fuzz_ssp: mkdtemp");
		exit(1);
	}
	atexit(cleanup);
	snprintf(sysdir, sizeof sysdir, "%s/sys", root);
	snprintf(archive, sizeof archive, "%s/in.ssp", root);
	char res[PATH_MAX + 32];
	snprintf(res, sizeof res, "%s/resources", sysdir);
	if (mkdir(sysdir, 0755) != 0 || mkdir(res, 0755) != 0) {
		perror("fuzz_ssp: mkdir");
		exit(1);
	}
	const char *f2 = getenv("SACC_FUZZ_FMUS"), *f3 = getenv("SACC_FUZZ_FMUS3");
	link_fmus(f2 && *f2 ? f2 : "build/fmus");
	link_fmus(f3 && *f3 ? f3 : "build/fmus3");
	/* archives are unpacked under $TMPDIR: here, where what they leave is seen */
	setenv("TMPDIR", root, 1);
	const char *why = NULL;
	units = units_open(&why);
	if (!units) {
		fprintf(stderr, "fuzz_ssp: cannot load UDUNITS-2: %s\n", why ? why : "?");
		exit(1);
	}
	return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) != 0)
		fail("cannot write an input file", path);
}

/* The documents of data into sysdir; returns the SSD's path. */
static const char *write_documents(const uint8_t *data, size_t size)
{
	static char paths[NDOCS][PATH_MAX + 64];
	size_t at = 0, sep = strlen(SEPARATOR);
	for (size_t k = 0; k < NDOCS; k++) {
		snprintf(paths[k], sizeof paths[k], "%s/%s", sysdir, doc_names[k]);
		if (at > size) {
			unlink(paths[k]);
			continue;
		}
		const uint8_t *end = memmem(data + at, size - at, SEPARATOR, sep);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;
		write_file(paths[k], data + at, len);
		at += len + sep; /* past size when this was the last */
	}
	return paths[0];
}

/* Only in.ssp and sys/ may remain in the private directory. */
static void check_leftovers(const char *diag)
{
	DIR *d = opendir(root);
	if (!d)
		fail("cannot read the private directory", diag);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "in.ssp") &&
		    strcmp(e->d_name, "sys")) {
			fprintf(stderr, "fuzz_ssp: left behind: %s/%s\n", root, e->d_name);
			fail("an archive's extraction outlived ssp_free", diag);
		}
	closedir(d);
}

static bool var_ok(const SspFlat *f, int comp, int var)
{
	return comp >= 0 && comp < f->ncomps && f->comps[comp].info && var >= 0 &&
	       var < f->comps[comp].info->nvars;
}

/* What simulate_ssp.c relies on in a flat system. */
static void check_flat(const SspFlat *f, const char *diag)
{
	for (int i = 0; i < f->ncomps; i++)
		if (!f->comps[i].name || !f->comps[i].info || !f->comps[i].fmu_path)
			fail("a flat component without a name, model description or FMU", diag);
	for (int i = 0; i < f->nlinks; i++) {
		const SspFlatLink *l = &f->links[i];
		if (!var_ok(f, l->src_comp, l->src_var) || !var_ok(f, l->dst_comp, l->dst_var))
			fail("a link out of range", diag);
		if (f->comps[l->dst_comp].info->vars[l->dst_var].causality != CAUS_INPUT)
			fail("a link into a variable that is not an input", diag);
		if (l->cv.nmap < 0 || (l->cv.nmap && (!l->cv.from || !l->cv.to)))
			fail("a link with a broken map", diag);
		for (int k = 0; k < l->cv.nmap; k++)
			(void)ssp_convert(&l->cv, l->cv.from[k]);
		(void)ssp_convert(&l->cv, 1.0);
	}
	for (int i = 0; i < f->nstarts; i++)
		if (!var_ok(f, f->starts[i].comp, f->starts[i].var))
			fail("a start value out of range", diag);
	for (int i = 0; i < f->noutputs; i++)
		if (!f->outputs[i].name || !var_ok(f, f->outputs[i].comp, f->outputs[i].var))
			fail("an output out of range", diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
		write_file(archive, data, size);
		path = archive;
	} else {
		path = write_documents(data, size);
	}

	char *diag = NULL;
	size_t dlen = 0;
	FILE *out = open_memstream(&diag, &dlen);
	if (!out)
		abort();
	Compilation *c = drv_new(out);
	c->units = units;
	SspModel *m = ssp_read(c, path);
	fflush(out);
	if (!m && diag_errors(c->diag) == 0)
		fail("ssp_read refused the system without an error", diag);
	if (m) {
		for (int nuc = 0; nuc < 2; nuc++) {
			SspFlat f;
			memset(&f, 0, sizeof f);
			int before = diag_errors(c->diag);
			int rc = ssp_flatten(m, nuc == 1, &f);
			fflush(out);
			if (rc != 0 && diag_errors(c->diag) == before)
				fail("ssp_flatten refused the system without an error", diag);
			if (rc == 0)
				check_flat(&f, diag);
		}
		ssp_free(m);
	}
	check_leftovers(diag);
	c->units = NULL;
	drv_free(c);
	fclose(out);
	free(diag);
	return 0;
}
