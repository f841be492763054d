/* fuzz_zip.c — libFuzzer entry point: the input as an FMU archive, through the two readers
 * of third-party archives: fmu_open (compiler/check/fmu_open.c: modelDescription.xml out of the
 * zip, then parsed) and pkg_extract_fmu (compiler/package/package.c over zip_extract in zip.c:
 * every entry checked, then extracted into a directory that must not exist yet).
 *
 * Besides crashes, hangs and leaks, it aborts (so that libFuzzer keeps the input) when
 *  - either reader fails without an error in its sink;
 *  - a refused extraction leaves its target directory behind;
 *  - anything appears in the sentinel directory beside the target, or the extracted tree
 *    holds anything but regular files and directories (nothing may land outside the target
 *    or link out of it).
 * Small limits (1 MiB per entry, 4 MiB in all) keep each run cheap and exercise the caps;
 * only an archive that passes them goes through pkg_extract_fmu's default ones.
 * Everything lives in one private directory under $TMPDIR, removed at exit. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fmu.h"
#include "package.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[PATH_MAX], archive[PATH_MAX + 16], target[PATH_MAX + 16],
	sentinel[PATH_MAX + 16];

static void cleanup(void)
{
	if (root[0])
		zip_rmtree(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *t = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/sacc-fuzz-zip-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(root)) {
		perror("fuzz_zip: mkdtemp");
		exit(1);
	}
	atexit(cleanup);
	snprintf(archive, sizeof archive, "%s/in.fmu", root);
	snprintf(target, sizeof target, "%s/out", root);
	snprintf(sentinel, sizeof sentinel, "%s/sentinel", root);
	if (mkdir(sentinel, 0755) != 0) {
		perror("fuzz_zip: mkdir");
		exit(1);
	}
	return 0;
}

static void fail(const char *why, const char *diag)
{
	fprintf(stderr, "fuzz_zip: %s\n%s\n", why, diag ? diag : "");
	abort();
}

/* Every entry under dir is a regular file or a directory (lstat: links are not followed). */
static void check_tree(const char *dir, const char *diag)
{
	DIR *d = opendir(dir);
	if (!d)
		fail("cannot read the extracted tree", diag);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) != 0)
			fail("cannot stat an extracted file", diag);
		if (S_ISDIR(st.st_mode))
			check_tree(p, diag);
		else if (!S_ISREG(st.st_mode))
			fail("the extracted tree holds something that is not a file or a directory",
			     diag);
	}
	closedir(d);
}

static bool sentinel_empty(void)
{
	DIR *d = opendir(sentinel);
	if (!d)
		return false;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = open(archive, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) != 0)
		fail("cannot write the input archive", NULL);

	char *diag = NULL;
	size_t dlen = 0;
	FILE *out = open_memstream(&diag, &dlen);
	if (!out)
		abort();
	DiagSink *d = diag_new(out);

	/* 1. the model description, straight out of the archive */
	int before = diag_errors(d);
	FmuInfo *f = fmu_open(archive, d);
	if (!f && diag_errors(d) == before) {
		fflush(out);
		fail("fmu_open refused the archive without an error", diag);
	}
	const char *id = f && f->model_identifier ? f->model_identifier : "m";
	int version = f ? (int)f->version : 2;

	/* 2. the whole archive, extracted under small limits; when that works, again as an
	 * inner FMU (default limits, which the small ones imply, and the FMU's layout) */
	static const ZipLimits small = {
		.max_total = 4u << 20, .max_entry = 1u << 20, .max_ratio = 1000,
		.ratio_floor = 64u << 10, .max_entries = 4096,
	};
	before = diag_errors(d);
	int rc = zip_extract(archive, target, &small, d);
	if (rc == 0) {
		check_tree(target, diag);
		if (zip_rmtree(target) != 0)
			fail("cannot remove the extracted tree", diag);
		rc = pkg_extract_fmu(archive, target, id, version, d);
	}
	fflush(out);
	if (rc != 0) {
		struct stat st;
		if (diag_errors(d) == before)
			fail("pkg_extract_fmu refused the archive without an error", diag);
		if (lstat(target, &st) == 0)
			fail("a refused archive left its target directory", diag);
	} else {
		check_tree(target, diag);
		if (zip_rmtree(target) != 0)
			fail("cannot remove the extracted tree", diag);
	}
	if (!sentinel_empty())
		fail("something was written beside the target directory", diag);
	fmu_free(f);
	diag_free(d);
	fclose(out);
	free(diag);
	return 0;
}
