/* test_package.c — packaging (package.c) and its zip layer (zip.c): hostile archives refused
 * with nothing written outside the target, reproducible archives, the embedded runtime, and
 * `sacc build` end to end on the power-window adaptations.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the test FMUs come from $SACC_BUILD/fmus/.  The end-to-end cases run the C
 * compiler ($CC, default cc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unzip.h>
#include <zip.h>

#include "package.h"
#include "sacc_test.h"

static char tmpdir[64];

/* ---- helpers ---------------------------------------------------------------------------- */

/* tmpdir/name, in a rotating set of buffers. */
static const char *tmp(const char *name)
{
	static char bufs[8][512];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, 512, "%s/%s", tmpdir, name);
	return b;
}

typedef struct Capture {
	char *buf;
	size_t len;
	FILE *f;
	DiagSink *d;
} Capture;

static void cap_open(Capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	c->d = diag_new(c->f);
	assert_non_null(c->d);
}

static const char *cap_text(Capture *c)
{
	fflush(c->f);
	return c->buf ? c->buf : "";
}

static void cap_close(Capture *c)
{
	diag_free(c->d);
	fclose(c->f);
	free(c->buf);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	char *s = read_file(path, 64u << 20, len);
	if (!s)
		print_error("cannot read %s\n", path);
	assert_non_null(s);
	return s;
}

/* CRC-32 (the zip polynomial), bit by bit: the tests link no zlib of their own. */
static unsigned long crc32_of(const char *data, size_t len)
{
	unsigned long crc = 0xFFFFFFFFul;
	for (size_t i = 0; i < len; i++) {
		crc ^= (unsigned char)data[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320ul & (0ul - (crc & 1)));
	}
	return crc ^ 0xFFFFFFFFul;
}

/* One entry, deflated; mode (st_mode bits) goes in the external attributes with "made by
 * Unix", or no mode at all when 0. */
static void zw_add(zipFile zf, const char *name, const char *data, size_t len, unsigned long mode)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	zi.external_fa = mode << 16;
	assert_int_equal(zipOpenNewFileInZip4_64(zf, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED,
						 6, 0, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, NULL, 0,
						 mode ? (3 << 8) | 20 : 20, 0, 0),
			 ZIP_OK);
	if (len)
		assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZip(zf), ZIP_OK);
}

/* A stored entry whose header claims an uncompressed size of claimed bytes. */
static void zw_add_lying(zipFile zf, const char *name, const char *data, size_t len,
                         unsigned long claimed)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip2(zf, name, &zi, NULL, 0, NULL, 0, NULL, 0, 0, 1),
			 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZipRaw(zf, claimed, crc32_of(data, len)), ZIP_OK);
}

static zipFile zw_open(const char *path)
{
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	assert_non_null(zf);
	return zf;
}

static void zw_close(zipFile zf)
{
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

/* An archive with one entry of the given name and contents, mode as zw_add. */
static const char *one_entry(const char *name, const char *data, unsigned long mode)
{
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, name, data, strlen(data), mode);
	zw_close(zf);
	return path;
}

/* Extracting archive into tmp/out must fail with exactly the error "<archive>: error:
 * <msg>"; nothing may exist afterwards but the sentinel directory, still empty. */
static void expect_refused(const char *archive, const ZipLimits *lim, const char *msg)
{
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_extract(archive, tmp("out"), lim, c.d), 1);
	char want[1024];
	snprintf(want, sizeof want, "%s: error: %s\n", archive, msg);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	assert_false(exists(tmp("out")));
	assert_int_equal(count_entries(tmp("sentinel")), 0);
	assert_false(exists("/tmp/sacc_pkg_evil"));
}

/* Extracting archive into tmp/out succeeds without a word. */
static void extract_ok(const char *archive)
{
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_extract(archive, tmp("out"), NULL, c.d), 0);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
}

/* The entries of an archive, in order, with what a reproducible archive pins down. */
typedef struct Listing {
	char names[128][256];
	unsigned long mode[128];
	unsigned long host[128];
	unsigned long dos_date[128];
	unsigned long extra[128];
	unsigned long method[128];
	int n;
} Listing;

static void list_zip(const char *path, Listing *l)
{
	memset(l, 0, sizeof *l);
	unzFile uf = unzOpen64(path);
	assert_non_null(uf);
	for (int rc = unzGoToFirstFile(uf); rc == UNZ_OK; rc = unzGoToNextFile(uf)) {
		assert_true(l->n < 128);
		unz_file_info64 fi;
		assert_int_equal(unzGetCurrentFileInfo64(uf, &fi, l->names[l->n], 256, NULL, 0,
							 NULL, 0),
				 UNZ_OK);
		l->mode[l->n] = fi.external_fa >> 16;
		l->host[l->n] = fi.version >> 8;
		l->dos_date[l->n] = fi.dosDate;
		l->extra[l->n] = fi.size_file_extra;
		l->method[l->n] = fi.compression_method;
		l->n++;
	}
	unzClose(uf);
}

static int find_name(const Listing *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return i;
	return -1;
}

static void assert_same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = slurp(a, &la), *y = slurp(b, &lb);
	if (la != lb || memcmp(x, y, la) != 0)
		fail_msg("%s and %s differ", a, b);
	free(x);
	free(y);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ---- hostile archives ------------------------------------------------------------------- */

static void zip_extract__absolute_path__refused(void **state)
{
	(void)state;
	expect_refused(one_entry("/tmp/sacc_pkg_evil", "x", 0), NULL,
		       "refusing entry '/tmp/sacc_pkg_evil': its path is absolute");
}

static void zip_extract__dotdot_component__refused(void **state)
{
	(void)state;
	expect_refused(one_entry("../sentinel/evil", "x", 0), NULL,
		       "refusing entry '../sentinel/evil': its path has a '..' component");
	expect_refused(one_entry("a/../../sentinel/evil", "x", 0), NULL,
		       "refusing entry 'a/../../sentinel/evil': its path has a '..' component");
	expect_refused(one_entry("a/..", "x", 0), NULL,
		       "refusing entry 'a/..': its path has a '..' component");
}

static void zip_extract__backslash__refused(void **state)
{
	(void)state;
	expect_refused(one_entry("..\\sentinel\\evil", "x", 0), NULL,
		       "refusing entry '..\\sentinel\\evil': its path has a backslash (zip paths "
		       "separate with '/')");
}

static void zip_extract__symlink__refused(void **state)
{
	(void)state;
	/* A link to the sentinel, then a file "through" it: the classic two-step escape. */
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "link", "../sentinel", 11, 0120777);
	zw_add(zf, "link/evil", "x", 1, 0100644);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'link': it is a symbolic link");
	expect_refused(one_entry("fifo", "", 0010644), NULL,
		       "refusing entry 'fifo': it is not a regular file or a directory");
}

static void zip_extract__duplicate__refused(void **state)
{
	(void)state;
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "a.txt", "one", 3, 0100644);
	zw_add(zf, "a.txt", "two", 3, 0100644);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'a.txt': it appears twice");

	zf = zw_open(path);
	zw_add(zf, "d/b.txt", "one", 3, 0);
	zw_add(zf, "./d//b.txt", "two", 3, 0);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry './d//b.txt': it appears twice");
}

/* A forged central directory: a stored entry whose header claims the given CRC. */
static void zw_add_crc(zipFile zf, const char *name, const char *data, size_t len,
                       unsigned long crc)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip2(zf, name, &zi, NULL, 0, NULL, 0, NULL, 0, 0, 1),
			 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZipRaw(zf, len, crc), ZIP_OK);
}

static void zip_extract__repeated_same_bytes__extracted_once(void **state)
{
	(void)state;
	/* What some exporters' packaging writes: files and directories added twice (three
	 * times here), the same bytes each time, under spellings that name the same path. */
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "extra/", "", 0, 040755);
	zw_add(zf, "extra/notes.txt", "same bytes", 10, 0100644);
	zw_add(zf, "other.txt", "o", 1, 0100644);
	zw_add(zf, "extra/", "", 0, 040755);
	zw_add(zf, "./extra//notes.txt", "same bytes", 10, 0100644);
	zw_add(zf, "extra/notes.txt", "same bytes", 10, 0100644);
	zw_close(zf);
	extract_ok(path);
	size_t n;
	char *s = slurp(tmp("out/extra/notes.txt"), &n);
	assert_int_equal(n, 10);
	assert_memory_equal(s, "same bytes", 10);
	free(s);
	assert_int_equal(count_entries(tmp("out")), 2);
	assert_int_equal(count_entries(tmp("out/extra")), 1);
	assert_int_equal(zip_rmtree(tmp("out")), 0);
}

static void zip_extract__repeated_different_bytes__refused(void **state)
{
	(void)state;
	/* The same size, but other bytes: the CRCs differ, refused from the central directory. */
	char path[512]; /* tmp's buffers rotate under the calls below */
	snprintf(path, sizeof path, "%s", tmp("in.zip"));
	zipFile zf = zw_open(path);
	zw_add(zf, "a.txt", "one", 3, 0100644);
	zw_add(zf, "b.txt", "b", 1, 0100644);
	zw_add(zf, "a.txt", "owe", 3, 0100644);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'a.txt': it appears twice");

	/* Another mode: the same bytes once executable, once not. */
	zf = zw_open(path);
	zw_add(zf, "run", "x", 1, 0100755);
	zw_add(zf, "run", "x", 1, 0100644);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'run': it appears twice");

	/* A file and a directory of one name. */
	zf = zw_open(path);
	zw_add(zf, "d/", "", 0, 040755);
	zw_add(zf, "d", "", 0, 0100644);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'd': it appears twice");

	/* A forged header claims the first entry's CRC for other bytes of the same size: the
	 * bytes themselves are compared, and the repeat refused before its CRC is checked. */
	zf = zw_open(path);
	zw_add_crc(zf, "a.txt", "one", 3, crc32_of("one", 3));
	zw_add_crc(zf, "a.txt", "two", 3, crc32_of("one", 3));
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'a.txt': it appears twice");
}

static void zip_extract__entry_too_large__refused(void **state)
{
	(void)state;
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add_lying(zf, "huge.bin", "0123456789", 10, 600ul << 20);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'huge.bin': 629145600 bytes uncompressed, more "
		       "than the 536870912 one entry may have");

	char big[2000];
	memset(big, 'a', sizeof big);
	zf = zw_open(path);
	zw_add(zf, "big.txt", big, sizeof big, 0);
	zw_close(zf);
	ZipLimits lim = zip_default_limits;
	lim.max_entry = 1000;
	expect_refused(path, &lim, "refusing entry 'big.txt': 2000 bytes uncompressed, more than "
		       "the 1000 one entry may have");
}

static void zip_extract__total_too_large__refused(void **state)
{
	(void)state;
	char chunk[800];
	memset(chunk, 'b', sizeof chunk);
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "one.txt", chunk, sizeof chunk, 0);
	zw_add(zf, "two.txt", chunk, sizeof chunk, 0);
	zw_close(zf);
	ZipLimits lim = zip_default_limits;
	lim.max_total = 1500;
	expect_refused(path, &lim, "refusing entry 'two.txt': it brings the archive to more than "
		       "1500 bytes uncompressed");
}

static void zip_extract__high_ratio__refused(void **state)
{
	(void)state;
	/* Header-declared: 100 bytes that claim to be 10 MiB. */
	char data[100];
	memset(data, 0, sizeof data);
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add_lying(zf, "bomb.bin", data, sizeof data, 10ul << 20);
	zw_close(zf);
	expect_refused(path, NULL, "refusing entry 'bomb.bin': 100 bytes expand to 10485760, a "
		       "ratio beyond 1:1000 (a zip bomb?)");

	/* A real one: 1 MiB of zeros deflates to about 1 KiB. */
	size_t n = 1u << 20;
	char *zeros = calloc(1, n);
	assert_non_null(zeros);
	zf = zw_open(path);
	zw_add(zf, "zeros.bin", zeros, n, 0);
	zw_close(zf);
	free(zeros);
	ZipLimits lim = zip_default_limits;
	lim.max_ratio = 100;
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_extract(path, tmp("out"), &lim, c.d), 1);
	assert_non_null(strstr(cap_text(&c), "refusing entry 'zeros.bin': "));
	assert_non_null(strstr(cap_text(&c), " expand to 1048576, a ratio beyond 1:100 (a zip "
				"bomb?)\n"));
	cap_close(&c);
	assert_false(exists(tmp("out")));
}

/* Rewrites every occurrence of from (same length as to) in the file: a way to make
 * archives minizip would not write (a NUL in a name, flags, methods). */
static void patch_file(const char *path, const char *from, const char *to, size_t n)
{
	size_t len;
	char *s = slurp(path, &len);
	int hits = 0;
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, from, n) == 0) {
			memcpy(s + i, to, n);
			hits++;
		}
	assert_true(hits > 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, len, f), len);
	fclose(f);
	free(s);
}

/* Sets a 16-bit field of the first central directory header (flags at 8, method at 10). */
static void patch_central(const char *path, size_t field, unsigned value)
{
	size_t len;
	char *s = slurp(path, &len);
	size_t i = 0;
	while (i + 46 <= len && memcmp(s + i, "PK\1\2", 4) != 0)
		i++;
	assert_true(i + 46 <= len);
	s[i + field] = (char)(value & 0xff);
	s[i + field + 1] = (char)(value >> 8);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, len, f), len);
	fclose(f);
	free(s);
}

static void zip_extract__drive_letter__refused(void **state)
{
	(void)state;
	expect_refused(one_entry("C:/sacc_pkg_evil", "x", 0), NULL,
		       "refusing entry 'C:/sacc_pkg_evil': its path is absolute (a drive letter)");
}

static void zip_extract__nul_in_name__refused(void **state)
{
	(void)state;
	const char *path = one_entry("evil#.txt", "x", 0);
	patch_file(path, "evil#.txt", "evil\0.txt", 9);
	expect_refused(path, NULL, "refusing entry 'evil': its name holds a NUL byte");
}

static void zip_extract__names_no_file__refused(void **state)
{
	(void)state;
	expect_refused(one_entry("./", "x", 0), NULL,
		       "refusing entry './': it is a directory with contents");
	expect_refused(one_entry(".", "x", 0), NULL, "refusing entry '.': it names no file");
}

static void zip_extract__encrypted_or_unknown_method__refused(void **state)
{
	(void)state;
	const char *path = one_entry("a.txt", "x", 0);
	patch_central(path, 8, 1);
	expect_refused(path, NULL, "refusing entry 'a.txt': it is encrypted");
	path = one_entry("a.txt", "x", 0);
	patch_central(path, 10, 14); /* LZMA */
	expect_refused(path, NULL, "refusing entry 'a.txt': it uses a compression method other "
		       "than store and deflate");
}

static void zip_extract__too_many_entries__refused(void **state)
{
	(void)state;
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "a", "1", 1, 0);
	zw_add(zf, "b", "2", 1, 0);
	zw_add(zf, "c", "3", 1, 0);
	zw_close(zf);
	ZipLimits lim = zip_default_limits;
	lim.max_entries = 2;
	expect_refused(path, &lim, "refusing the archive: 3 entries, more than the 2 allowed");
}

static void zip_extract__data_beyond_header_size__refused(void **state)
{
	(void)state;
	/* The header says 4 bytes; the data are 10: minizip stops at 4, and those 4 bytes
	 * are not what the CRC was computed over. */
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add_lying(zf, "liar.txt", "0123456789", 10, 4);
	zw_close(zf);
	expect_refused(path, NULL, "damaged zip archive: entry 'liar.txt' fails its CRC check");
}

static void zip_extract__crc_mismatch__refused(void **state)
{
	(void)state;
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add_lying(zf, "a.txt", "abcdefghij", 10, 10);
	zw_close(zf);
	patch_file(path, "abcdefghij", "abcdefghiX", 10);
	expect_refused(path, NULL, "damaged zip archive: entry 'a.txt' fails its CRC check");
}

static void zip_extract__file_then_directory__refused(void **state)
{
	(void)state;
	/* "a" a file, then "a/b" below it: the second cannot be made, and nothing stays. */
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "a", "1", 1, 0);
	zw_add(zf, "a/b", "2", 1, 0);
	zw_close(zf);
	expect_refused(path, NULL, "cannot extract entry 'a/b': Not a directory");
}

static void zip_extract__not_zip_or_missing__error(void **state)
{
	(void)state;
	write_text(tmp("in.zip"), "not a zip archive\n");
	expect_refused(tmp("in.zip"), NULL, "not a zip archive (an FMU is a zip file)");
	expect_refused(tmp("none.zip"), NULL, "cannot read: No such file or directory");
	remove(tmp("in.zip"));
}

static void zip_extract__target_exists__refused(void **state)
{
	(void)state;
	const char *archive = one_entry("a.txt", "x", 0);
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_extract(archive, tmp("sentinel"), NULL, c.d), 1);
	char want[512];
	snprintf(want, sizeof want, "%s: error: cannot extract into '%s': File exists\n", archive,
		 tmp("sentinel"));
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	assert_int_equal(count_entries(tmp("sentinel")), 0);
}

static void zip_extract__well_formed__extracted(void **state)
{
	(void)state;
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "modelDescription.xml", "<md/>", 5, 0100644);
	zw_add(zf, "binaries/", "", 0, 040755);
	zw_add(zf, "binaries/linux64/m.so", "ELF", 3, 0100755);
	zw_add(zf, "./resources//data.txt", "data", 4, 0);
	zw_add(zf, "empty", "", 0, 0100644);
	zw_close(zf);
	extract_ok(path);
	size_t n;
	char *s = slurp(tmp("out/modelDescription.xml"), &n);
	assert_string_equal(s, "<md/>");
	free(s);
	s = slurp(tmp("out/resources/data.txt"), &n);
	assert_string_equal(s, "data");
	free(s);
	struct stat st;
	assert_int_equal(stat(tmp("out/binaries/linux64/m.so"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	assert_int_equal(stat(tmp("out/empty"), &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(zip_rmtree(tmp("out")), 0);
	assert_false(exists(tmp("out")));
	assert_int_equal(count_entries(tmp("sentinel")), 0);
}

/* ---- platforms ---------------------------------------------------------------------------- */

static void pkg_parse_platforms__both_spellings__bits(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_parse_platforms("linux64", c.d), PKG_LINUX64);
	assert_int_equal(pkg_parse_platforms("x86_64-windows", c.d), PKG_WIN64);
	assert_int_equal(pkg_parse_platforms("win64,x86_64-linux", c.d), PKG_LINUX64 | PKG_WIN64);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
}

static void pkg_parse_platforms__unknown__error_lists_platforms(void **state)
{
	(void)state;
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_parse_platforms("linux64,darwin64", c.d), 0u);
	assert_string_equal(cap_text(&c),
			    "sacc: error: --platform: 'darwin64' is not a platform sacc builds for\n"
			    "sacc: note: the platforms: linux64 (x86_64-linux), win64 (x86_64-windows)\n");
	cap_close(&c);
	cap_open(&c);
	assert_int_equal(pkg_parse_platforms("linux64,", c.d), 0u); /* an empty name */
	cap_close(&c);
}

/* The platforms of an extracted FMU are the libraries of its model identifier under the
 * folder names of its FMI version, nothing else. */
static void pkg_fmu_platforms__folders_by_version(void **state)
{
	(void)state;
	const char *dir = tmp("plat");
	char path[600];
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof path, "%s/binaries", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	const char *const libs[] = {"linux64/m.so", "win64/m.dll", "x86_64-windows/other.dll"};
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
		snprintf(path, sizeof path, "%s/binaries/%.*s", dir,
			 (int)(strchr(libs[i], '/') - libs[i]), libs[i]);
		mkdir(path, 0755);
		snprintf(path, sizeof path, "%s/binaries/%s", dir, libs[i]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(pkg_fmu_platforms(dir, "m", 2), PKG_LINUX64 | PKG_WIN64);
	assert_int_equal(pkg_fmu_platforms(dir, "m", 3), 0u);
	assert_int_equal(pkg_fmu_platforms(dir, "other", 3), PKG_WIN64);
}

/* ---- inner FMUs ------------------------------------------------------------------------- */

static void pkg_extract_fmu__no_model_description__error(void **state)
{
	(void)state;
	const char *archive = one_entry("binaries/linux64/m.so", "ELF", 0100755);
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_extract_fmu(archive, tmp("out"), "m", 2, c.d), 1);
	char want[512];
	snprintf(want, sizeof want, "%s: error: not an FMU: it has no modelDescription.xml at its "
		 "root\n", archive);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	assert_false(exists(tmp("out")));
}

static void pkg_extract_fmu__no_library__error(void **state)
{
	(void)state;
	const char *archive = one_entry("modelDescription.xml", "<md/>", 0);
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_extract_fmu(archive, tmp("out"), "m", 2, c.d), 1);
	char want[512];
	snprintf(want, sizeof want, "%s: error: it has no binaries/linux64/m.so, the library of "
		 "model identifier 'm' for 64-bit Linux\n", archive);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	assert_false(exists(tmp("out")));
}

/* A shared library compiled from src (needs $CC, default cc) into an FMU archive with a
 * model description, at tmp("lib.fmu"); returns its path. */
static const char *fmu_with_library(const char *src, const char *id)
{
	write_text(tmp("lib.c"), src);
	const char *cc = getenv("CC");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o '%s' '%s'", cc && *cc ? cc : "cc",
		 tmp("lib.so"), tmp("lib.c"));
	assert_int_equal(system(cmd), 0);
	size_t n;
	char *so = slurp(tmp("lib.so"), &n);
	char entry[256];
	snprintf(entry, sizeof entry, "binaries/linux64/%s.so", id);
	const char *path = tmp("lib.fmu");
	zipFile zf = zw_open(path);
	zw_add(zf, "modelDescription.xml", "<md/>", 5, 0100644);
	zw_add(zf, entry, so, n, 0100755);
	zw_close(zf);
	free(so);
	remove(tmp("lib.so"));
	remove(tmp("lib.c"));
	return path;
}

/* Every function of the FMI 2.0 co-simulation interface the runtime needs always, defined
 * (as stubs) unless named in `without`. */
static const char *stub_library(const char *without, bool state_functions)
{
	static char src[4096];
	const char *names[] = {
		"fmi2Instantiate", "fmi2FreeInstance", "fmi2SetupExperiment",
		"fmi2EnterInitializationMode", "fmi2ExitInitializationMode", "fmi2Terminate",
		"fmi2Reset", "fmi2GetReal", "fmi2GetInteger", "fmi2GetBoolean", "fmi2GetString",
		"fmi2SetReal", "fmi2SetInteger", "fmi2SetBoolean", "fmi2SetString", "fmi2DoStep",
		"fmi2GetRealStatus", "fmi2GetFMUstate", "fmi2SetFMUstate", "fmi2FreeFMUstate",
	};
	size_t n = 0, count = state_functions ? 20 : 17;
	n += (size_t)snprintf(src + n, sizeof src - n, "static int hidden_helper;\n"
			      "int fmi2GetVersionLike(void) { return hidden_helper; }\n");
	for (size_t i = 0; i < count; i++)
		if (!without || !strstr(without, names[i]))
			n += (size_t)snprintf(src + n, sizeof src - n, "int %s(void) { return 0; }\n",
					      names[i]);
		else /* present, but not for the dynamic linker */
			n += (size_t)snprintf(src + n, sizeof src - n, "__attribute__((visibility("
					      "\"hidden\"))) int %s(void) { return 0; }\n", names[i]);
	return src;
}

static void expect_extract_refused(const char *archive, unsigned caps, const char *msg)
{
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_extract_inner(archive, tmp("out"), "m", 2, caps, c.d), 1);
	char want[1024];
	snprintf(want, sizeof want, "%s: error: %s\n", archive, msg);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	assert_false(exists(tmp("out")));
	assert_int_equal(count_entries(tmp("sentinel")), 0);
}

static void pkg_extract_fmu__library_lacks_fmi2_functions__error(void **state)
{
	(void)state;
	const char *archive = fmu_with_library(stub_library("fmi2DoStep fmi2Reset", false), "m");
	expect_extract_refused(archive, 0, "refusing binaries/linux64/m.so: it does not export "
			       "fmi2Reset, fmi2DoStep (read from its dynamic symbol table; an FMI "
			       "2.0 co-simulation FMU with its capabilities must)");
	/* pkg_extract_fmu, as sacc simulate and sacc unpack use it, checks the same */
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_extract_fmu(archive, tmp("out"), "m", 2, c.d), 1);
	assert_non_null(strstr(cap_text(&c), "it does not export fmi2Reset, fmi2DoStep ("));
	cap_close(&c);
	assert_false(exists(tmp("out")));
	remove(archive);
}

static void pkg_extract_fmu__claimed_capability_without_functions__error(void **state)
{
	(void)state;
	const char *archive = fmu_with_library(stub_library(NULL, false), "m");
	/* no capability claimed: nothing else is needed */
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_extract_inner(archive, tmp("out"), "m", 2, 0, c.d), 0);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
	zip_rmtree(tmp("out"));
	expect_extract_refused(archive, PKG_CAP_GET_SET_STATE | PKG_CAP_SERIALIZE,
			       "refusing binaries/linux64/m.so: it does not export "
			       "fmi2GetFMUstate, fmi2SetFMUstate, fmi2FreeFMUstate, "
			       "fmi2SerializedFMUstateSize, fmi2SerializeFMUstate, "
			       "fmi2DeSerializeFMUstate (read from its dynamic symbol table; an "
			       "FMI 2.0 co-simulation FMU with its capabilities must)");
	archive = fmu_with_library(stub_library(NULL, true), "m");
	expect_extract_refused(archive, PKG_CAP_INTERPOLATE_INPUTS,
			       "refusing binaries/linux64/m.so: it does not export "
			       "fmi2SetRealInputDerivatives (read from its dynamic symbol table; "
			       "an FMI 2.0 co-simulation FMU with its capabilities must)");
	remove(archive);
}

static void pkg_extract_fmu__library_not_elf__error(void **state)
{
	(void)state;
	const char *path = tmp("in.zip");
	zipFile zf = zw_open(path);
	zw_add(zf, "modelDescription.xml", "<md/>", 5, 0100644);
	zw_add(zf, "binaries/linux64/m.so", "#!/bin/sh\necho hello\n", 21, 0100755);
	zw_close(zf);
	expect_extract_refused(path, 0, "refusing binaries/linux64/m.so: it is not an ELF file");
	zf = zw_open(path);
	zw_add(zf, "modelDescription.xml", "<md/>", 5, 0100644);
	zw_add(zf, "binaries/linux64/m.so", "", 0, 0100755);
	zw_close(zf);
	expect_extract_refused(path, 0, "refusing binaries/linux64/m.so: it is empty");
	/* an ELF header cut short after its magic */
	zf = zw_open(path);
	zw_add(zf, "modelDescription.xml", "<md/>", 5, 0100644);
	zw_add(zf, "binaries/linux64/m.so", "\177ELF\2\1\1", 7, 0100755);
	zw_close(zf);
	expect_extract_refused(path, 0, "refusing binaries/linux64/m.so: it is not an ELF file");
}

static void pkg_extract_fmu__test_fmu__accepted_with_all_capabilities(void **state)
{
	(void)state;
	char fmu[512];
	snprintf(fmu, sizeof fmu, "%s/fmus/integrator.fmu", test_build_dir());
	Capture c;
	cap_open(&c);
	assert_int_equal(pkg_extract_inner(fmu, tmp("out"), "integrator", 2,
					   PKG_CAP_GET_SET_STATE | PKG_CAP_SERIALIZE |
						   PKG_CAP_INTERPOLATE_INPUTS,
					   c.d),
			 0);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
	assert_true(exists(tmp("out/binaries/linux64/integrator.so")));
	zip_rmtree(tmp("out"));
}

/* ---- writing ---------------------------------------------------------------------------- */

static void make_tree(const char *root)
{
	char p[512];
	const char *dirs[] = {"", "/binaries", "/binaries/linux64", "/sources", "/sources/fmi2",
			      "/resources", "/resources/inner"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(p, sizeof p, "%s%s", root, dirs[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	const char *files[][2] = {
		{"/sources/z.c", "int z;\n"},
		{"/sources/a.c", "int a;\n"},
		{"/sources/fmi2/h.h", "#define H\n"},
		{"/binaries/linux64/m.so", "ELF..."},
		{"/resources/inner/modelDescription.xml", "<inner/>"},
		{"/modelDescription.xml", "<md/>"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(p, sizeof p, "%s%s", root, files[i][0]);
		write_text(p, files[i][1]);
	}
}

static void zip_write_dir__same_tree_twice__identical_bytes(void **state)
{
	(void)state;
	make_tree(tmp("t1"));
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_write_dir(tmp("t1"), tmp("a.zip"), c.d), 0);
	/* Another tree, same contents, made later (other dates, other creation order). */
	sleep(1);
	make_tree(tmp("t2"));
	chmod(tmp("t2/sources/a.c"), 0600);
	assert_int_equal(zip_write_dir(tmp("t2"), tmp("b.zip"), c.d), 0);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
	assert_same_file(tmp("a.zip"), tmp("b.zip"));

	/* A round trip gives the files back. */
	cap_open(&c);
	assert_int_equal(zip_extract(tmp("a.zip"), tmp("back"), NULL, c.d), 0);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
	assert_same_file(tmp("t1/sources/fmi2/h.h"), tmp("back/sources/fmi2/h.h"));
	assert_same_file(tmp("t1/binaries/linux64/m.so"), tmp("back/binaries/linux64/m.so"));
	zip_rmtree(tmp("back"));
	zip_rmtree(tmp("t1"));
	zip_rmtree(tmp("t2"));
	remove(tmp("a.zip"));
	remove(tmp("b.zip"));
}

static void zip_write_dir__entries__sorted_and_pinned(void **state)
{
	(void)state;
	make_tree(tmp("t1"));
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_write_dir(tmp("t1"), tmp("a.zip"), c.d), 0);
	cap_close(&c);
	Listing l;
	list_zip(tmp("a.zip"), &l);
	const char *order[] = {
		"modelDescription.xml", "binaries/linux64/m.so",
		"resources/inner/modelDescription.xml", "sources/a.c", "sources/fmi2/h.h",
		"sources/z.c",
	};
	assert_int_equal(l.n, 6); /* no directory entries */
	for (int i = 0; i < l.n; i++) {
		assert_string_equal(l.names[i], order[i]);
		assert_int_equal(l.mode[i], i == 1 ? 0100755 : 0100644);
		assert_int_equal(l.host[i], 3);
		assert_int_equal(l.dos_date[i], (0ul << 25) | (1ul << 21) | (1ul << 16));
		assert_int_equal(l.extra[i], 0);
		assert_int_equal(l.method[i], Z_DEFLATED);
	}
	zip_rmtree(tmp("t1"));
	remove(tmp("a.zip"));
}

static void zip_write_dir__symlink__refused(void **state)
{
	(void)state;
	make_tree(tmp("t1"));
	assert_int_equal(symlink("/etc/passwd", tmp("t1/sources/passwd")), 0);
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_write_dir(tmp("t1"), tmp("a.zip"), c.d), 1);
	char want[512];
	snprintf(want, sizeof want, "%s: error: not a regular file or a directory: refusing to put "
		 "it in an archive\n", tmp("t1/sources/passwd"));
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	assert_false(exists(tmp("a.zip")));
	zip_rmtree(tmp("t1"));
}

/* ---- the embedded runtime --------------------------------------------------------------- */

static void pkg_runtime_files__match_runtime_dir(void **state)
{
	(void)state;
	assert_true(pkg_nruntime_files >= 4);
	bool has_inner_h = false, has_fmi2 = false;
	for (size_t i = 0; i < pkg_nruntime_files; i++) {
		const PkgFile *f = &pkg_runtime_files[i];
		if (i > 0)
			assert_true(strcmp(pkg_runtime_files[i - 1].path, f->path) < 0);
		has_inner_h |= strcmp(f->path, "sart_inner.h") == 0;
		has_fmi2 |= strcmp(f->path, "fmi2/fmi2Functions.h") == 0;
		char p[512];
		snprintf(p, sizeof p, "runtime/%s", f->path);
		size_t n;
		char *s = slurp(p, &n);
		assert_int_equal(n, f->size);
		assert_memory_equal(s, f->data, n);
		free(s);
	}
	assert_null(pkg_runtime_files[pkg_nruntime_files].path);
	assert_true(has_inner_h);
	assert_true(has_fmi2);
}

/* ---- sacc build, end to end ------------------------------------------------------------- */

#define PW "adaptations/powerwindow/"

/* Builds the scripts into out_dir in a compilation of its own; returns the errors and puts
 * the diagnostics in *diag (malloc'd) when asked. */
static int build(const char *out_dir, const char *const *files, int nfiles, char **diag)
{
	TestRun *t = tr_new();
	drv_add_include_dir(t->c, PW);
	Module *mods[8];
	int errors = 0;
	for (int i = 0; i < nfiles; i++) {
		mods[i] = drv_load(t->c, files[i]);
		assert_non_null(mods[i]);
		errors += drv_explicit(t->c, mods[i], NULL);
	}
	assert_int_equal(errors, 0);
	PkgOptions o = {out_dir, NULL, 0, NULL, 0, false, NULL};
	errors = pkg_build(t->c, mods, nfiles, &o);
	if (diag)
		*diag = strdup(tr_diag(t));
	else if (errors)
		print_error("%s", tr_diag(t));
	tr_free(t);
	return errors;
}

/* Every symbol the library defines for the dynamic linker is an fmi2 function. */
static void assert_exports_only_fmi2(const char *so)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", so);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[512];
	int n = 0;
	bool do_step = false;
	while (fgets(line, sizeof line, p)) {
		char addr[64], type[8], name[256];
		if (sscanf(line, "%63s %7s %255s", addr, type, name) != 3)
			fail_msg("unexpected nm output: %s", line);
		if (strncmp(name, "fmi2", 4) != 0)
			fail_msg("%s exports '%s'", so, name);
		do_step |= strcmp(name, "fmi2DoStep") == 0;
		n++;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(n > 0);
	assert_true(do_step);
}

/* The library needs nothing but libc, libm and libdl (docs/fmu.md): its NEEDED entries. */
static void assert_needs_only_libc_libm_libdl(const char *so)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "readelf -d '%s'", so);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, p)) {
		char *lib = strstr(line, "(NEEDED)");
		if (!lib)
			continue;
		lib = strchr(lib, '[');
		assert_non_null(lib);
		if (strncmp(lib, "[libc.so.", 9) != 0 && strncmp(lib, "[libm.so.", 9) != 0 &&
		    strncmp(lib, "[libdl.so.", 10) != 0)
			fail_msg("%s needs %s", so, lib);
		n++;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(n > 0);
}

static void pkg_build__window_sa__layout_reproducible_exports(void **state)
{
	(void)state;
	const char *files[] = {PW "window_sa.sa"};
	assert_int_equal(build(tmp("b1"), files, 1, NULL), 0);
	assert_int_equal(build(tmp("b2"), files, 1, NULL), 0);
	assert_same_file(tmp("b1/window_sa.fmu"), tmp("b2/window_sa.fmu"));
	/* nothing else is left in the output directory: the work directory is gone */
	assert_int_equal(count_entries(tmp("b1")), 1);

	Listing l;
	list_zip(tmp("b1/window_sa.fmu"), &l);
	assert_string_equal(l.names[0], "modelDescription.xml");
	const char *want[] = {
		"binaries/linux64/window_sa.so", "sources/window_sa.c", "sources/config.h",
		"sources/sart_inner.c", "sources/sart_wrapper.h", "sources/fmi2/fmi2Functions.h",
		"resources/window/modelDescription.xml",
		"resources/window/binaries/linux64/window.so",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		if (find_name(&l, want[i]) < 0)
			fail_msg("window_sa.fmu lacks %s", want[i]);
	for (int i = 1; i < l.n; i++)
		assert_true(strcmp(l.names[i - 1], l.names[i]) < 0 || i == 1);

	/* The libraries of the two builds are the same bytes, and export fmi2* only. */
	Capture c;
	cap_open(&c);
	assert_int_equal(zip_extract(tmp("b1/window_sa.fmu"), tmp("x1"), NULL, c.d), 0);
	assert_int_equal(zip_extract(tmp("b2/window_sa.fmu"), tmp("x2"), NULL, c.d), 0);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
	assert_same_file(tmp("x1/binaries/linux64/window_sa.so"),
			 tmp("x2/binaries/linux64/window_sa.so"));
	assert_exports_only_fmi2(tmp("x1/binaries/linux64/window_sa.so"));
	assert_needs_only_libc_libm_libdl(tmp("x1/binaries/linux64/window_sa.so"));
	/* The inner FMU is the test FMU as it was. */
	char window[512];
	snprintf(window, sizeof window, "%s/fmus/window/modelDescription.xml", test_build_dir());
	assert_same_file(window, tmp("x1/resources/window/modelDescription.xml"));
	zip_rmtree(tmp("x1"));
	zip_rmtree(tmp("x2"));
	zip_rmtree(tmp("b1"));
	zip_rmtree(tmp("b2"));
}

static void pkg_build__loop_sa_after_window_sa__nested(void **state)
{
	(void)state;
	/* Named in the wrong order on purpose: window_sa must still be built first. */
	const char *files[] = {PW "loop_sa.sa", PW "window_sa.sa"};
	assert_int_equal(build(tmp("b1"), files, 2, NULL), 0);
	Listing l;
	list_zip(tmp("b1/loop_sa.fmu"), &l);
	assert_true(find_name(&l, "binaries/linux64/loop_sa.so") >= 0);
	assert_true(find_name(&l, "resources/obstacle/binaries/linux64/obstacle.so") >= 0);
	assert_true(find_name(&l, "resources/window_sa/binaries/linux64/window_sa.so") >= 0);
	assert_true(find_name(&l, "resources/window_sa/resources/window/binaries/linux64/"
				  "window.so") >= 0);

	/* Alone, loop_sa finds the window_sa.fmu just built in the -o directory. */
	const char *alone[] = {PW "loop_sa.sa"};
	assert_int_equal(build(tmp("b2"), files, 2, NULL), 0);
	remove(tmp("b2/loop_sa.fmu"));
	assert_int_equal(build(tmp("b2"), alone, 1, NULL), 0);
	assert_same_file(tmp("b1/loop_sa.fmu"), tmp("b2/loop_sa.fmu"));
	zip_rmtree(tmp("b1"));
	zip_rmtree(tmp("b2"));
}

static void pkg_build__inner_adaptation_not_built__error(void **state)
{
	(void)state;
	if (exists(PW "window_sa.fmu"))
		skip(); /* someone built it beside the scripts */
	const char *files[] = {PW "loop_sa.sa"};
	char *diag = NULL;
	assert_int_equal(build(tmp("b1"), files, 1, &diag) > 0, 1);
	assert_non_null(strstr(diag, PW "loop_sa.sa:31:25: error: inner fmu 'window_sa' is "
				     "adaptation 'window_sa', but its FMU 'window_sa.fmu' is not "
				     "built\n"));
	assert_non_null(strstr(diag, "note: build it first with 'sacc build " PW "window_sa.sa' "
				     "(with the same -o, -I and -L options), or name '" PW
				     "window_sa.sa' on this command line too\n"));
	free(diag);
	assert_int_equal(count_entries(tmp("b1")), 0);
	zip_rmtree(tmp("b1"));
}

/* Whether the embedded runtime has a file at path. */
static bool embedded(const char *path)
{
	for (size_t i = 0; i < pkg_nruntime_files; i++)
		if (strcmp(pkg_runtime_files[i].path, path) == 0)
			return true;
	return false;
}

/* The object cache keys a runtime object by the embedded runtime alone: that holds only if
 * no runtime file includes a file of its own directory that the emitter writes (config.h).
 * Every quoted include must name an embedded file, beside the includer or under sources/. */
static void pkg_runtime_files__include_only_the_runtime(void **state)
{
	(void)state;
	for (size_t i = 0; i < pkg_nruntime_files; i++) {
		const PkgFile *f = &pkg_runtime_files[i];
		char dir[256] = "";
		const char *slash = strrchr(f->path, '/');
		if (slash)
			snprintf(dir, sizeof dir, "%.*s/", (int)(slash - f->path), f->path);
		const char *p = (const char *)f->data, *end = p + f->size;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			char line[512];
			snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), p);
			char name[256];
			if (sscanf(line, " # include \"%255[^\"]\"", name) == 1) {
				char beside[600];
				snprintf(beside, sizeof beside, "%s%s", dir, name);
				if (!embedded(beside) && !embedded(name))
					fail_msg("runtime/%s includes \"%s\", which is not a runtime file",
						 f->path, name);
			}
			p += len + 1;
		}
	}
}

/* ---- the object cache (compile.c) -------------------------------------------------------- */

/* Builds window_sa into tmpdir/out with the compiler command cc, the object cache in
 * cache ("" for none); 0 or the number of errors. */
static int build_cached(const char *out, const char *cc, const char *cache)
{
	const char *was = getenv("SACC_CACHE_DIR");
	char *saved = was ? strdup(was) : NULL;
	setenv("SACC_CACHE_DIR", cache, 1);
	TestRun *t = tr_new();
	drv_add_include_dir(t->c, PW);
	Module *m = drv_load(t->c, PW "window_sa.sa");
	assert_non_null(m);
	int errors = drv_explicit(t->c, m, NULL);
	if (!errors) {
		PkgOptions o = {out, cc, 0, NULL, 0, false, NULL};
		errors = pkg_build(t->c, &m, 1, &o);
	}
	if (errors)
		print_error("%s", tr_diag(t));
	tr_free(t);
	if (saved)
		setenv("SACC_CACHE_DIR", saved, 1);
	else
		unsetenv("SACC_CACHE_DIR");
	free(saved);
	return errors;
}

/* A compiler command that appends each call's arguments to tmpdir/cc.log, then runs cc.
 * These tests count compilations, not what the code does: the -O0 appended (the last -O
 * wins) halves what the runtime's compilations cost. */
static const char *logging_cc(void)
{
	static char path[600];
	snprintf(path, sizeof path, "%s", tmp("cc.sh"));
	char script[1400];
	snprintf(script, sizeof script, "#!/bin/sh\necho \"$*\" >> '%s'\nexec cc \"$@\" -O0\n",
		 tmp("cc.log"));
	write_text(path, script);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* The compilations (calls with -c) tmpdir/cc.log holds, which it then forgets; *last the
 * source of the last one. */
static int compilations(char last[256])
{
	FILE *f = fopen(tmp("cc.log"), "r");
	if (!f)
		return 0;
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		if (!strstr(line, " -c "))
			continue;
		n++;
		const char *src = strrchr(line, ' ');
		src = src ? src + 1 : line;
		size_t len = strcspn(src, "\n");
		if (len > 255)
			len = 255;
		memcpy(last, src, len);
		last[len] = '\0';
	}
	fclose(f);
	remove(tmp("cc.log"));
	return n;
}

/* Every entry of the cache overwritten with text no linker takes. */
static int spoil_entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	char path[1024];
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		write_text(path, "not an object\n");
		n++;
	}
	closedir(d);
	return n;
}

static void pkg_build__object_cache__runtime_compiled_once(void **state)
{
	(void)state;
	const char *cc = logging_cc();
	char last[256];
	assert_int_equal(build_cached(tmp("c1"), cc, tmp("cache")), 0);
	int first = compilations(last);
	/* every source compiled once, the runtime's kept: all but the adaptation's own C */
	assert_true(first > 10);
	assert_int_equal(count_entries(tmp("cache")), first - 1);

	assert_int_equal(build_cached(tmp("c2"), cc, tmp("cache")), 0);
	assert_int_equal(compilations(last), 1);
	assert_string_equal(last, "sources/window_sa.c");
	assert_same_file(tmp("c1/window_sa.fmu"), tmp("c2/window_sa.fmu"));

	/* Without the cache every source is compiled again, to the same archive. */
	assert_int_equal(build_cached(tmp("c3"), cc, ""), 0);
	assert_int_equal(compilations(last), first);
	assert_same_file(tmp("c1/window_sa.fmu"), tmp("c3/window_sa.fmu"));
	zip_rmtree(tmp("c1"));
	zip_rmtree(tmp("c2"));
	zip_rmtree(tmp("c3"));
	zip_rmtree(tmp("cache"));
}

static void pkg_build__object_cache__spoiled_entries_compiled_again(void **state)
{
	(void)state;
	const char *cc = logging_cc();
	char last[256];
	assert_int_equal(build_cached(tmp("c1"), cc, tmp("cache")), 0);
	int first = compilations(last);
	assert_int_equal(spoil_entries(tmp("cache")), first - 1);

	/* The link refuses the spoiled objects: they are compiled afresh and replaced. */
	assert_int_equal(build_cached(tmp("c2"), cc, tmp("cache")), 0);
	assert_int_equal(compilations(last), 1 + (first - 1));
	assert_same_file(tmp("c1/window_sa.fmu"), tmp("c2/window_sa.fmu"));
	assert_int_equal(build_cached(tmp("c3"), cc, tmp("cache")), 0);
	assert_int_equal(compilations(last), 1);
	assert_same_file(tmp("c1/window_sa.fmu"), tmp("c3/window_sa.fmu"));
	zip_rmtree(tmp("c1"));
	zip_rmtree(tmp("c2"));
	zip_rmtree(tmp("c3"));
	zip_rmtree(tmp("cache"));
}

/* ---- the suite -------------------------------------------------------------------------- */

static int setup(void **state)
{
	(void)state;
	umask(022);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sacc_test_pkg_XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return mkdir(tmp("sentinel"), 0755);
}

static int teardown(void **state)
{
	(void)state;
	return zip_rmtree(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zip_extract__absolute_path__refused),
		cmocka_unit_test(pkg_runtime_files__include_only_the_runtime),
		cmocka_unit_test(pkg_build__object_cache__runtime_compiled_once),
		cmocka_unit_test(pkg_build__object_cache__spoiled_entries_compiled_again),
		cmocka_unit_test(zip_extract__dotdot_component__refused),
		cmocka_unit_test(zip_extract__backslash__refused),
		cmocka_unit_test(zip_extract__symlink__refused),
		cmocka_unit_test(zip_extract__duplicate__refused),
		cmocka_unit_test(zip_extract__repeated_same_bytes__extracted_once),
		cmocka_unit_test(zip_extract__repeated_different_bytes__refused),
		cmocka_unit_test(zip_extract__entry_too_large__refused),
		cmocka_unit_test(zip_extract__total_too_large__refused),
		cmocka_unit_test(zip_extract__high_ratio__refused),
		cmocka_unit_test(zip_extract__drive_letter__refused),
		cmocka_unit_test(zip_extract__nul_in_name__refused),
		cmocka_unit_test(zip_extract__names_no_file__refused),
		cmocka_unit_test(zip_extract__encrypted_or_unknown_method__refused),
		cmocka_unit_test(zip_extract__too_many_entries__refused),
		cmocka_unit_test(zip_extract__data_beyond_header_size__refused),
		cmocka_unit_test(zip_extract__crc_mismatch__refused),
		cmocka_unit_test(zip_extract__file_then_directory__refused),
		cmocka_unit_test(zip_extract__not_zip_or_missing__error),
		cmocka_unit_test(zip_extract__target_exists__refused),
		cmocka_unit_test(zip_extract__well_formed__extracted),
		cmocka_unit_test(pkg_parse_platforms__both_spellings__bits),
		cmocka_unit_test(pkg_parse_platforms__unknown__error_lists_platforms),
		cmocka_unit_test(pkg_fmu_platforms__folders_by_version),
		cmocka_unit_test(pkg_extract_fmu__no_model_description__error),
		cmocka_unit_test(pkg_extract_fmu__no_library__error),
		cmocka_unit_test(pkg_extract_fmu__library_lacks_fmi2_functions__error),
		cmocka_unit_test(pkg_extract_fmu__claimed_capability_without_functions__error),
		cmocka_unit_test(pkg_extract_fmu__library_not_elf__error),
		cmocka_unit_test(pkg_extract_fmu__test_fmu__accepted_with_all_capabilities),
		cmocka_unit_test(zip_write_dir__same_tree_twice__identical_bytes),
		cmocka_unit_test(zip_write_dir__entries__sorted_and_pinned),
		cmocka_unit_test(zip_write_dir__symlink__refused),
		cmocka_unit_test(pkg_runtime_files__match_runtime_dir),
		cmocka_unit_test(pkg_build__window_sa__layout_reproducible_exports),
		cmocka_unit_test(pkg_build__loop_sa_after_window_sa__nested),
		cmocka_unit_test(pkg_build__inner_adaptation_not_built__error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
