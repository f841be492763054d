/* fmu_pack — zips a directory into an .fmu, reproducibly.
 *
 *     fmu_pack OUT.fmu DIR
 *
 * (An SSP archive, OUT.ssp, is packed the same way, without the model description the
 * check below asks of an FMU.)
 *
 * Every regular file under DIR goes in under its path relative to DIR, modelDescription.xml
 * first and the rest in byte order of their paths, each with the same fixed timestamp
 * (1980-01-01 00:00, the zip epoch) and the permission bits 0644 or 0755, deflated at
 * level 9.  The same tree therefore always gives the same bytes.  Directories get no entries
 * of their own; symbolic links and other special files are refused.  The archive is written
 * next to OUT and renamed over it only when complete. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zip.h>
#include <zlib.h>

typedef struct Files {
	char **paths; /* relative to the root, '/'-separated */
	size_t n, cap;
} Files;

static int add_path(Files *f, const char *rel)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 32;
		char **p = realloc(f->paths, cap * sizeof *p);
		if (!p)
			return -1;
		f->paths = p;
		f->cap = cap;
	}
	f->paths[f->n] = strdup(rel);
	if (!f->paths[f->n])
		return -1;
	f->n++;
	return 0;
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s%s", a, *a ? "/" : "", b);
	return s;
}

/* Collects the regular files under root/rel. */
static int walk(const char *root, const char *rel, Files *f)
{
	char *dir = *rel ? join(root, rel) : strdup(root);
	if (!dir)
		return -1;
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "fmu_pack: %s: %s\n", dir, strerror(errno));
		free(dir);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *sub = join(rel, e->d_name), *full = join(dir, e->d_name);
		struct stat st;
		if (!sub || !full) {
			rc = -1;
		} else if (lstat(full, &st) != 0) {
			fprintf(stderr, "fmu_pack: %s: %s\n", full, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = walk(root, sub, f);
		} else if (S_ISREG(st.st_mode)) {
			rc = add_path(f, sub);
		} else {
			fprintf(stderr, "fmu_pack: %s: not a regular file or directory\n", full);
			rc = -1;
		}
		free(sub);
		free(full);
	}
	closedir(d);
	free(dir);
	return rc;
}

/* modelDescription.xml first, then byte order. */
static int cmp_paths(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int mx = strcmp(x, "modelDescription.xml") == 0, my = strcmp(y, "modelDescription.xml") == 0;
	if (mx != my)
		return my - mx;
	return strcmp(x, y);
}

static int add_file(zipFile zf, const char *root, const char *rel)
{
	char *full = join(root, rel);
	if (!full)
		return -1;
	FILE *in = fopen(full, "rb");
	struct stat st;
	if (!in || fstat(fileno(in), &st) != 0) {
		fprintf(stderr, "fmu_pack: %s: %s\n", full, strerror(errno));
		if (in)
			fclose(in);
		free(full);
		return -1;
	}
	zip_fileinfo info;
	memset(&info, 0, sizeof info);
	info.tmz_date.tm_year = 1980;
	info.tmz_date.tm_mday = 1;
	unsigned long mode = (st.st_mode & 0111) ? 0100755 : 0100644;
	info.external_fa = mode << 16;
	/* version made by: 3 (Unix) in the high byte, so the mode bits above are honoured. */
	int rc = zipOpenNewFileInZip4_64(zf, rel, &info, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 9, 0,
	                                 -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, NULL, 0, (3 << 8) | 20,
	                                 0, 0);
	if (rc != ZIP_OK) {
		fprintf(stderr, "fmu_pack: cannot add %s (zip error %d)\n", rel, rc);
		fclose(in);
		free(full);
		return -1;
	}
	char buf[1 << 16];
	size_t n;
	while (rc == ZIP_OK && (n = fread(buf, 1, sizeof buf, in)) > 0)
		rc = zipWriteInFileInZip(zf, buf, (unsigned)n);
	if (ferror(in)) {
		fprintf(stderr, "fmu_pack: %s: read error\n", full);
		rc = -1;
	}
	if (zipCloseFileInZip(zf) != ZIP_OK && rc == ZIP_OK)
		rc = -1;
	fclose(in);
	free(full);
	return rc == ZIP_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fmu_pack OUT.fmu DIR\n");
		return 2;
	}
	const char *out = argv[1], *root = argv[2];
	Files files = {0};
	int rc = walk(root, "", &files);
	size_t has_md = 0;
	for (size_t i = 0; i < files.n; i++)
		has_md += strcmp(files.paths[i], "modelDescription.xml") == 0;
	size_t olen = strlen(out);
	bool ssp = olen > 4 && strcmp(out + olen - 4, ".ssp") == 0;
	if (rc == 0 && !has_md && !ssp) {
		fprintf(stderr, "fmu_pack: %s has no modelDescription.xml\n", root);
		rc = -1;
	}
	char *tmp = NULL;
	if (rc == 0) {
		qsort(files.paths, files.n, sizeof *files.paths, cmp_paths);
		size_t n = strlen(out) + 5;
		tmp = malloc(n);
		if (tmp)
			snprintf(tmp, n, "%s.tmp", out);
		zipFile zf = tmp ? zipOpen64(tmp, APPEND_STATUS_CREATE) : NULL;
		if (!zf) {
			fprintf(stderr, "fmu_pack: cannot create %s\n", tmp ? tmp : out);
			rc = -1;
		}
		for (size_t i = 0; rc == 0 && i < files.n; i++)
			rc = add_file(zf, root, files.paths[i]);
		if (zf && zipClose(zf, NULL) != ZIP_OK)
			rc = -1;
		if (rc == 0 && rename(tmp, out) != 0) {
			fprintf(stderr, "fmu_pack: cannot rename %s to %s: %s\n", tmp, out, strerror(errno));
			rc = -1;
		}
		if (rc != 0 && tmp)
			remove(tmp);
	}
	for (size_t i = 0; i < files.n; i++)
		free(files.paths[i]);
	free(files.paths);
	free(tmp);
	return rc == 0 ? 0 : 1;
}
