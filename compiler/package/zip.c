/* zip.c — the zip layer of packaging (see package.h): safe extraction of archives that come
 * from elsewhere, reproducible writing of the archives sacc makes, and removing trees.
 *
 * Extraction treats every inner FMU as hostile.  A first pass reads the central directory
 * only and refuses the archive when any entry is unsafe (see zip_extract), so a bad archive
 * writes nothing at all.  The second pass creates each directory with mkdirat under a
 * directory it made itself and opens it with O_DIRECTORY|O_NOFOLLOW, and each file with
 * O_CREAT|O_EXCL|O_NOFOLLOW: even a path the first pass let through cannot reach outside
 * the target, follow a link, or overwrite an earlier entry (an entry repeating an earlier
 * one's path is compared with what that one wrote, and refused unless its bytes are the
 * same).  What an entry inflates to is
 * counted, never trusted from its header.
 *
 * Writing goes through minizip with everything that could vary pinned down: order, dates,
 * attributes, level, no extra fields, no directory entries. */
#include "package.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unzip.h>
#include <zip.h> /* minizip's: there is no compiler/zip.h */

#define MD_ENTRY "modelDescription.xml"
#define BUF_SIZE (1u << 16)

const ZipLimits zip_default_limits = {
	.max_total = 1ull << 30,
	.max_entry = 512ull << 20,
	.max_ratio = 1000,
	.ratio_floor = 64ull << 10,
	.max_entries = 65536,
};

/* ---- removing trees ---------------------------------------------------------------------- */

static int rm_at(int dfd, const char *name)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0);
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (rm_at(fd, e->d_name) != 0)
			rc = -1;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) != 0)
		rc = -1;
	return rc;
}

int zip_rmtree(const char *path)
{
	return rm_at(AT_FDCWD, path);
}

/* ---- extraction -------------------------------------------------------------------------- */

typedef struct Entry {
	char *shown;     /* the name as the archive has it, made printable, for messages */
	char *path;      /* canonical: no empty or "." components, no trailing '/'; "" = root */
	bool is_dir;
	bool exec;       /* made by Unix with the owner's execute bit: a program (the host of
	                  * isolated inners), extracted executable */
	uint64_t usize, csize;
	unsigned long crc;
	size_t twin;     /* the index of an earlier entry with the same path that this one
	                  * repeats (checked byte for byte when extracted), or SIZE_MAX */
} Entry;

/* The entry's name with control characters and non-ASCII bytes replaced by '?', so that a
 * hostile name cannot drive the terminal that shows the message. */
static char *printable(const char *s)
{
	char *p = strdup(s);
	for (char *q = p; q && *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
			*q = '?';
	return p;
}

/* Canonicalizes name into *out (malloc'd); returns why it is unsafe, or NULL. */
static const char *canon_path(const char *name, char **out)
{
	*out = NULL;
	if (name[0] == '/')
		return "its path is absolute";
	if (((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')) &&
	    name[1] == ':')
		return "its path is absolute (a drive letter)";
	if (strchr(name, '\\'))
		return "its path has a backslash (zip paths separate with '/')";
	size_t n = strlen(name);
	char *p = malloc(n + 1);
	if (!p)
		return "out of memory";
	size_t len = 0;
	const char *s = name;
	while (*s) {
		const char *e = strchr(s, '/');
		size_t cl = e ? (size_t)(e - s) : strlen(s);
		if (cl == 2 && s[0] == '.' && s[1] == '.') {
			free(p);
			return "its path has a '..' component";
		}
		if (cl > 0 && !(cl == 1 && s[0] == '.')) {
			if (len)
				p[len++] = '/';
			memcpy(p + len, s, cl);
			len += cl;
		}
		s += cl;
		if (*s == '/')
			s++;
	}
	p[len] = '\0';
	*out = p;
	return NULL;
}

static int cmp_entry_path(const void *a, const void *b)
{
	const Entry *x = *(Entry *const *)a, *y = *(Entry *const *)b;
	return strcmp(x->path, y->path);
}

static void free_entries(Entry *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].shown);
		free(v[i].path);
	}
	free(v);
}

/* Why the entry just read (its raw name and header fi) is refused, or NULL; fills in
 * e->is_dir and e->path (the canonical path) on the way. */
static const char *entry_refusal(Entry *e, const char *name, const unz_file_info64 *fi)
{
	size_t nl = strlen(name);
	e->is_dir = nl > 0 && name[nl - 1] == '/';
	const char *why = NULL;
	unsigned host = (unsigned)(fi->version >> 8) & 0xff;
	unsigned mode = (unsigned)(fi->external_fa >> 16) & 0xffff;
	unsigned type = mode & S_IFMT;
	e->exec = (host == 3 || host == 19) && (mode & S_IXUSR) != 0;
	if (!e->shown)
		why = "out of memory";
	else if (nl != fi->size_filename)
		why = "its name holds a NUL byte";
	else if (nl == 0)
		why = "its name is empty";
	else if ((why = canon_path(name, &e->path)) != NULL)
		;
	else if (!e->is_dir && e->path[0] == '\0')
		why = "it names no file";
	else if ((host == 3 || host == 19) && type == S_IFLNK)
		why = "it is a symbolic link";
	else if ((host == 3 || host == 19) && type != 0 && type != S_IFREG &&
		 type != S_IFDIR)
		why = "it is not a regular file or a directory";
	else if (fi->flag & 1)
		why = "it is encrypted";
	else if (fi->compression_method != 0 && fi->compression_method != Z_DEFLATED)
		why = "it uses a compression method other than store and deflate";
	else if (e->is_dir && e->usize != 0)
		why = "it is a directory with contents";
	return why;
}

/* Whether b may repeat a, its earlier namesake: the same kind, and for files the same size,
 * CRC and execute bit.  Some exporters' packaging adds a file twice with the same bytes
 * (FMPy and fmusim read such FMUs); what the bytes are is checked when b is extracted. */
static bool same_entry(const Entry *a, const Entry *b)
{
	if (a->is_dir || b->is_dir)
		return a->is_dir && b->is_dir;
	return a->usize == b->usize && a->crc == b->crc && a->exec == b->exec;
}

/* Entries whose paths are the same after canonicalization ("a/./b" is "a/b"): one that
 * repeats the first of its name (same_entry) is marked as its twin, to be compared rather
 * than written; any other is refused once, naming the later of the two in archive order.
 * Returns the errors. */
static int refuse_duplicates(Entry *v, size_t n, Loc where, DiagSink *d)
{
	Entry **sorted = malloc((n ? n : 1) * sizeof *sorted);
	if (!sorted) {
		diag_error(d, where, "out of memory");
		return 1;
	}
	int errors = 0;
	for (size_t k = 0; k < n; k++)
		sorted[k] = &v[k];
	qsort(sorted, n, sizeof *sorted, cmp_entry_path);
	for (size_t k = 0; k < n; k++)
		sorted[k]->twin = SIZE_MAX;
	size_t first = 0; /* the run of one path starts here */
	for (size_t k = 1; k <= n; k++) {
		if (k < n && strcmp(sorted[k]->path, sorted[first]->path) == 0)
			continue;
		Entry *orig = sorted[first]; /* the earliest in archive order */
		for (size_t j = first + 1; j < k; j++)
			if (sorted[j] < orig)
				orig = sorted[j];
		for (size_t j = first; j < k; j++) {
			if (sorted[j] == orig)
				continue;
			sorted[j]->twin = (size_t)(orig - v);
			if (same_entry(orig, sorted[j]))
				continue;
			diag_error(d, where, "refusing entry '%s': it appears twice", sorted[j]->shown);
			errors++;
		}
		first = k;
	}
	free(sorted);
	return errors;
}

/* Pass 1: the central directory, every entry checked.  Returns the number of errors. */
static int scan(unzFile uf, const char *archive, const ZipLimits *lim, DiagSink *d,
                Entry **out, size_t *nout)
{
	Loc where = {archive, 0, 0, 0};
	unz_global_info64 gi;
	if (unzGetGlobalInfo64(uf, &gi) != UNZ_OK) {
		diag_error(d, where, "damaged zip archive: cannot read its central directory");
		return 1;
	}
	if (gi.number_entry > lim->max_entries) {
		diag_error(d, where, "refusing the archive: %llu entries, more than the %llu allowed",
			   (unsigned long long)gi.number_entry, (unsigned long long)lim->max_entries);
		return 1;
	}
	size_t n = (size_t)gi.number_entry;
	Entry *v = calloc(n ? n : 1, sizeof *v);
	char *name = malloc(65536 + 1);
	if (!v || !name) {
		free(v);
		free(name);
		diag_error(d, where, "out of memory");
		return 1;
	}
	int errors = 0;
	uint64_t total = 0;
	size_t i = 0;
	int rc = unzGoToFirstFile(uf);
	for (; rc == UNZ_OK && i < n; rc = unzGoToNextFile(uf), i++) {
		unz_file_info64 fi;
		if (unzGetCurrentFileInfo64(uf, &fi, name, 65536 + 1, NULL, 0, NULL, 0) != UNZ_OK) {
			diag_error(d, where, "damaged zip archive: cannot read entry %zu", i + 1);
			errors++;
			break;
		}
		name[fi.size_filename <= 65536 ? fi.size_filename : 65536] = '\0';
		Entry *e = &v[i];
		e->shown = printable(name);
		e->usize = fi.uncompressed_size;
		e->csize = fi.compressed_size;
		e->crc = fi.crc;
		const char *why = entry_refusal(e, name, &fi);
		if (why) {
			diag_error(d, where, "refusing entry '%s': %s", e->shown ? e->shown : "?", why);
			errors++;
			continue;
		}
		if (e->usize > lim->max_entry) {
			diag_error(d, where, "refusing entry '%s': %llu bytes uncompressed, more than "
				   "the %llu one entry may have", e->shown,
				   (unsigned long long)e->usize, (unsigned long long)lim->max_entry);
			errors++;
			continue;
		}
		total += e->usize;
		if (total > lim->max_total) {
			diag_error(d, where, "refusing entry '%s': it brings the archive to more than "
				   "%llu bytes uncompressed", e->shown,
				   (unsigned long long)lim->max_total);
			errors++;
			break; /* every later entry would say the same */
		}
		if (e->usize > lim->ratio_floor &&
		    (e->csize == 0 || e->usize / e->csize >= lim->max_ratio)) {
			diag_error(d, where, "refusing entry '%s': %llu bytes expand to %llu, a ratio "
				   "beyond 1:%llu (a zip bomb?)", e->shown,
				   (unsigned long long)e->csize, (unsigned long long)e->usize,
				   (unsigned long long)lim->max_ratio);
			errors++;
			continue;
		}
	}
	free(name);
	if (!errors && rc != UNZ_END_OF_LIST_OF_FILE && rc != UNZ_OK) {
		diag_error(d, where, "damaged zip archive: cannot read entry %zu", i + 1);
		errors++;
	}
	if (!errors)
		errors = refuse_duplicates(v, i, where, d);
	if (errors) {
		free_entries(v, n);
		return errors;
	}
	*out = v;
	*nout = i;
	return 0;
}

/* Opens (creating when needed) the directory holding path's last component, walking down
 * from root without following links; *last gets that component. */
static int open_parent(int root, char *path, char **last, const char **why)
{
	int fd = dup(root);
	char *s = path;
	for (;;) {
		char *slash = strchr(s, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (mkdirat(fd, s, 0755) != 0 && errno != EEXIST) {
			*why = strerror(errno);
			*slash = '/';
			close(fd);
			return -1;
		}
		int sub = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		*slash = '/';
		close(fd);
		if (sub < 0) {
			*why = strerror(errno);
			return -1;
		}
		fd = sub;
		s = slash + 1;
	}
	*last = s;
	return fd;
}

static bool write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* What an inflated chunk goes to: a new file (written), or the file a twin entry repeats
 * (compared).  Returns NULL, or why the chunk is refused with the message's wording. */
typedef struct Sink {
	int fd;
	bool compare;
	char *scratch; /* compare: the file's bytes, BUF_SIZE */
	bool differs;
} Sink;

static const char *sink_put(Sink *k, const char *buf, size_t n)
{
	if (!k->compare)
		return write_all(k->fd, buf, n) ? NULL : strerror(errno);
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(k->fd, k->scratch + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return strerror(errno);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got != n || memcmp(buf, k->scratch, n) != 0)
		k->differs = true;
	return NULL;
}

/* Inflates the current entry into k, counting what it inflates to against its header and
 * the limits, comparing it (a twin) and checking its CRC.  Returns 0 or 1 after a report. */
static int inflate_entry(unzFile uf, const Entry *e, Sink *k, Loc where, const ZipLimits *lim,
                         DiagSink *d, char *buf)
{
	if (unzOpenCurrentFile(uf) != UNZ_OK) {
		diag_error(d, where, "damaged zip archive: cannot open entry '%s'", e->shown);
		return 1;
	}
	uint64_t got = 0;
	int n;
	bool ok = true;
	while ((n = unzReadCurrentFile(uf, buf, BUF_SIZE)) > 0) {
		got += (uint64_t)n;
		if (got > e->usize || got > lim->max_entry) {
			diag_error(d, where, "refusing entry '%s': it inflates to more than the %llu "
				   "bytes its header says", e->shown, (unsigned long long)e->usize);
			ok = false;
			break;
		}
		const char *why = sink_put(k, buf, (size_t)n);
		if (why) {
			diag_error(d, where, "cannot extract entry '%s': %s", e->shown, why);
			ok = false;
			break;
		}
	}
	int close_rc = unzCloseCurrentFile(uf);
	if (!ok)
		return 1;
	if (n < 0 || got != e->usize) {
		diag_error(d, where, "damaged zip archive: entry '%s' is truncated or corrupt",
			   e->shown);
		return 1;
	}
	char extra;
	if (k->compare && (k->differs || read(k->fd, &extra, 1) != 0)) {
		/* before the CRC: a forged one must not turn this into "damaged" */
		diag_error(d, where, "refusing entry '%s': it appears twice", e->shown);
		return 1;
	}
	if (close_rc == UNZ_CRCERROR) {
		diag_error(d, where, "damaged zip archive: entry '%s' fails its CRC check", e->shown);
		return 1;
	}
	return 0;
}

/* Pass 2: one entry.  Returns 0 or 1 after a report.  A twin (see refuse_duplicates) is
 * inflated and compared with the file its namesake wrote: the same bytes are harmless, others
 * are refused as the first pass refuses a different namesake. */
static int extract_one(unzFile uf, int root, const Entry *e, const char *archive,
                       const ZipLimits *lim, DiagSink *d, char *buf)
{
	Loc where = {archive, 0, 0, 0};
	if (e->path[0] == '\0' || (e->twin != SIZE_MAX && e->is_dir))
		return 0; /* "./": the root itself, or a directory made already */
	char *path = strdup(e->path), *last = NULL;
	const char *why = NULL;
	if (!path) {
		diag_error(d, where, "out of memory");
		return 1;
	}
	Sink k = {.fd = -1, .compare = e->twin != SIZE_MAX};
	int rc = 1, dfd = open_parent(root, path, &last, &why);
	if (dfd < 0) {
		diag_error(d, where, "cannot extract entry '%s': %s", e->shown, why);
		goto done;
	}
	if (e->is_dir) {
		if (mkdirat(dfd, last, 0755) != 0 && errno != EEXIST) {
			diag_error(d, where, "cannot extract entry '%s': %s", e->shown, strerror(errno));
			goto done;
		}
		int sub = openat(dfd, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			diag_error(d, where, "cannot extract entry '%s': %s", e->shown, strerror(errno));
			goto done;
		}
		close(sub);
		rc = 0;
		goto done;
	}
	if (k.compare) {
		k.scratch = malloc(BUF_SIZE);
		k.fd = openat(dfd, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (!k.scratch || k.fd < 0) {
			diag_error(d, where, "cannot extract entry '%s': %s", e->shown,
				   k.scratch ? strerror(errno) : "out of memory");
			goto done;
		}
	} else {
		mode_t mode = str_ends_with(last, ".so") || e->exec ? 0755 : 0644;
		k.fd = openat(dfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (k.fd < 0) {
			diag_error(d, where, "cannot extract entry '%s': %s", e->shown, strerror(errno));
			goto done;
		}
	}
	if (inflate_entry(uf, e, &k, where, lim, d, buf) != 0)
		goto done;
	int fd = k.fd;
	k.fd = -1;
	if (close(fd) != 0) {
		diag_error(d, where, "cannot extract entry '%s': %s", e->shown, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	if (k.fd >= 0)
		close(k.fd);
	if (dfd >= 0)
		close(dfd);
	free(k.scratch);
	free(path);
	return rc;
}

bool zip_has_entry(const char *archive, const char *name)
{
	unzFile uf = unzOpen64(archive);
	if (!uf)
		return false;
	bool found = unzLocateFile(uf, name, 1) == UNZ_OK;
	unzClose(uf);
	return found;
}

int zip_extract(const char *archive, const char *dir, const ZipLimits *lim, DiagSink *d)
{
	Loc where = {archive, 0, 0, 0};
	if (!lim)
		lim = &zip_default_limits;
	struct stat st;
	if (stat(archive, &st) != 0) {
		diag_error(d, where, "cannot read: %s", strerror(errno));
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, where, "cannot read: not a regular file");
		return 1;
	}
	unzFile uf = unzOpen64(archive);
	if (!uf) {
		diag_error(d, where, "not a zip archive (an FMU is a zip file)");
		return 1;
	}
	Entry *v = NULL;
	size_t n = 0;
	char *buf = NULL;
	int root = -1, rc = 1;
	bool made = false;
	if (scan(uf, archive, lim, d, &v, &n) != 0)
		goto done;
	if (mkdir(dir, 0755) != 0) {
		diag_error(d, where, "cannot extract into '%s': %s", dir, strerror(errno));
		goto done;
	}
	made = true;
	root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	buf = malloc(BUF_SIZE);
	if (root < 0 || !buf) {
		diag_error(d, where, "cannot extract into '%s': %s", dir,
			   buf ? strerror(errno) : "out of memory");
		goto done;
	}
	int zrc = unzGoToFirstFile(uf);
	for (size_t i = 0; i < n; i++, zrc = unzGoToNextFile(uf)) {
		if (zrc != UNZ_OK) {
			diag_error(d, where, "damaged zip archive: cannot read entry %zu", i + 1);
			goto done;
		}
		if (extract_one(uf, root, &v[i], archive, lim, d, buf) != 0)
			goto done;
	}
	rc = 0;
done:
	if (root >= 0)
		close(root);
	if (rc != 0 && made)
		zip_rmtree(dir);
	free(buf);
	free_entries(v, n);
	unzClose(uf);
	return rc;
}

/* ---- writing ----------------------------------------------------------------------------- */

typedef struct Files {
	char **paths; /* relative to the root, '/'-separated */
	size_t n, cap;
} Files;

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s%s", a, *a ? "/" : "", b);
	return s;
}

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
	if (!(f->paths[f->n] = strdup(rel)))
		return -1;
	f->n++;
	return 0;
}

/* Collects the regular files under root/rel. */
static int walk(const char *root, const char *rel, Files *f, DiagSink *d)
{
	char *dir = *rel ? join(root, rel) : strdup(root);
	if (!dir)
		return -1;
	DIR *dp = opendir(dir);
	if (!dp) {
		diag_error(d, (Loc){dir, 0, 0, 0}, "cannot read the directory: %s", strerror(errno));
		free(dir);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(dp)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *sub = join(rel, e->d_name), *full = join(dir, e->d_name);
		struct stat st;
		if (!sub || !full) {
			diag_error(d, (Loc){dir, 0, 0, 0}, "out of memory");
			rc = -1;
		} else if (lstat(full, &st) != 0) {
			diag_error(d, (Loc){full, 0, 0, 0}, "cannot read: %s", strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = walk(root, sub, f, d);
		} else if (S_ISREG(st.st_mode)) {
			if (add_path(f, sub) != 0) {
				diag_error(d, (Loc){dir, 0, 0, 0}, "out of memory");
				rc = -1;
			}
		} else {
			diag_error(d, (Loc){full, 0, 0, 0}, "not a regular file or a directory: "
				   "refusing to put it in an archive");
			rc = -1;
		}
		free(sub);
		free(full);
	}
	closedir(dp);
	free(dir);
	return rc;
}

/* modelDescription.xml first (importers and people look there first), then byte order. */
static int cmp_paths(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int mx = strcmp(x, MD_ENTRY) == 0, my = strcmp(y, MD_ENTRY) == 0;
	if (mx != my)
		return my - mx;
	return strcmp(x, y);
}

static int add_file(zipFile zf, const char *root, const char *rel, const char *archive,
                    DiagSink *d, char *buf)
{
	char *full = join(root, rel);
	if (!full) {
		diag_error(d, (Loc){archive, 0, 0, 0}, "out of memory");
		return -1;
	}
	int rc = -1;
	FILE *in = fopen(full, "rb");
	if (!in) {
		diag_error(d, (Loc){full, 0, 0, 0}, "cannot read: %s", strerror(errno));
		goto done;
	}
	zip_fileinfo info;
	memset(&info, 0, sizeof info);
	info.tmz_date.tm_year = 1980; /* 1980-01-01 00:00, the zip epoch */
	info.tmz_date.tm_mday = 1;
	struct stat st;
	bool exec = fstat(fileno(in), &st) == 0 && (st.st_mode & S_IXUSR);
	unsigned long mode = str_ends_with(rel, ".so") || exec ? 0100755 : 0100644;
	info.external_fa = mode << 16;
	/* version made by 3 (Unix), so that readers honour the mode bits; 2.0 needed to extract */
	if (zipOpenNewFileInZip4_64(zf, rel, &info, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 9, 0,
				    -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, NULL, 0, (3 << 8) | 20, 0,
				    0) != ZIP_OK) {
		diag_error(d, (Loc){archive, 0, 0, 0}, "cannot add '%s' to the archive", rel);
		goto done;
	}
	int zrc = ZIP_OK;
	size_t n;
	while (zrc == ZIP_OK && (n = fread(buf, 1, BUF_SIZE, in)) > 0)
		zrc = zipWriteInFileInZip(zf, buf, (unsigned)n);
	bool read_error = ferror(in) != 0;
	if (zipCloseFileInZip(zf) != ZIP_OK)
		zrc = ZIP_ERRNO;
	if (read_error)
		diag_error(d, (Loc){full, 0, 0, 0}, "cannot read: %s", strerror(errno));
	else if (zrc != ZIP_OK)
		diag_error(d, (Loc){archive, 0, 0, 0}, "cannot write '%s' into the archive", rel);
	else
		rc = 0;
done:
	if (in)
		fclose(in);
	free(full);
	return rc;
}

int zip_write_dir(const char *dir, const char *archive, DiagSink *d)
{
	Files files = {0};
	char *buf = NULL;
	zipFile zf = NULL;
	int rc = walk(dir, "", &files, d);
	if (rc == 0) {
		qsort(files.paths, files.n, sizeof *files.paths, cmp_paths);
		buf = malloc(BUF_SIZE);
		zf = buf ? zipOpen64(archive, APPEND_STATUS_CREATE) : NULL;
		if (!zf) {
			diag_error(d, (Loc){archive, 0, 0, 0}, "cannot create: %s",
				   buf ? strerror(errno) : "out of memory");
			rc = -1;
		}
	}
	for (size_t i = 0; rc == 0 && i < files.n; i++)
		rc = add_file(zf, dir, files.paths[i], archive, d, buf);
	if (zf && zipClose(zf, NULL) != ZIP_OK && rc == 0) {
		diag_error(d, (Loc){archive, 0, 0, 0}, "cannot finish writing the archive");
		rc = -1;
	}
	if (rc != 0 && zf)
		remove(archive);
	for (size_t i = 0; i < files.n; i++)
		free(files.paths[i]);
	free(files.paths);
	free(buf);
	return rc == 0 ? 0 : 1;
}
