/* fmu_read_test.h — what the FMU reader's tests (test_fmu_read.c, test_fmu_open.c,
 * test_fmu_kit.c) share: near and close asserts for doubles, diagnostics captured in
 * memory, lookups into an FmuInfo, paths under $SACC_BUILD and a scratch directory, a
 * JSON syntax checker for the printers, and zip archives written on the spot.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): fixtures come from tests/unit/data/, built FMUs from $SACC_BUILD/fmus/. */
#ifndef FMU_READ_TEST_H
#define FMU_READ_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <zip.h>

#include "fmu.h"

#include "fmi2FunctionTypes.h"
#include "fmi2_importer.h"

#define DATA "tests/unit/data/"

static char tmpdir[64];

/* ---- helpers ---------------------------------------------------------------------------- */

#define assert_near(a, b, tol) assert_near_at((a), (b), (tol), __FILE__, __LINE__)

static inline void assert_near_at(double a, double b, double tol, const char *file, int line)
{
	if (fabs(a - b) <= tol)
		return;
	print_error("%.17g is not within %g of %.17g\n", a, tol, b);
	_fail(file, line);
}

/* Relative closeness for values far from 1 (the obstacle's forces are ~1e8 N). */
#define assert_close(a, b) assert_near((a), (b), 1e-12 + 1e-12 * fabs(b))

/* Diagnostics into memory, so the exact text can be compared. */
typedef struct Capture {
	char *buf;
	size_t len;
	FILE *f;
	DiagSink *d;
} Capture;

static inline void cap_open(Capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	c->d = diag_new(c->f);
	assert_non_null(c->d);
}

static inline const char *cap_text(Capture *c)
{
	fflush(c->f);
	return c->buf ? c->buf : "";
}

static inline void cap_close(Capture *c)
{
	diag_free(c->d);
	fclose(c->f);
	free(c->buf);
}

/* Reads path and asserts the result and the exact diagnostics. */
static inline void expect_open(const char *path, bool ok, const char *diags)
{
	Capture c;
	cap_open(&c);
	FmuInfo *f = fmu_open(path, c.d);
	if (ok)
		assert_non_null(f);
	else
		assert_null(f);
	assert_string_equal(cap_text(&c), diags);
	fmu_free(f);
	cap_close(&c);
}

static inline FmuInfo *open_ok(const char *path)
{
	Capture c;
	cap_open(&c);
	FmuInfo *f = fmu_open(path, c.d);
	assert_string_equal(cap_text(&c), "");
	assert_non_null(f);
	cap_close(&c);
	return f;
}

static inline FmuInfo *parse_str(const char *xml, Capture *c)
{
	return fmu_parse_md(xml, strlen(xml), "inline.xml", c->d);
}

static inline const FmuVar *var(const FmuInfo *f, const char *name)
{
	const FmuVar *v = fmu_find_var(f, name);
	if (!v)
		print_error("no variable '%s'\n", name);
	assert_non_null(v);
	return v;
}

static inline int var_index(const FmuInfo *f, const char *name)
{
	return (int)(var(f, name) - f->vars);
}

static inline const FmuOutputDep *output(const FmuInfo *f, const char *name)
{
	int v = var_index(f, name);
	for (int i = 0; i < f->noutputs; i++)
		if (f->outputs[i].var == v)
			return &f->outputs[i];
	print_error("'%s' is not among the outputs\n", name);
	fail();
	return NULL;
}

static inline const FmuUnit *unit(const FmuInfo *f, const char *name)
{
	for (int i = 0; i < f->nunits; i++)
		if (strcmp(f->units[i].name, name) == 0)
			return &f->units[i];
	print_error("no unit '%s'\n", name);
	fail();
	return NULL;
}

static inline const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

static inline void build_path(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", build_dir(), rel);
}

static inline void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static inline char *print_to_string(void (*print)(FILE *, const FmuInfo *), const FmuInfo *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	print(out, f);
	fclose(out);
	return buf;
}

#define assert_contains(hay, needle) assert_contains_at((hay), (needle), __FILE__, __LINE__)

static inline void assert_contains_at(const char *hay, const char *needle, const char *file,
				      int line)
{
	if (strstr(hay, needle))
		return;
	print_error("missing:\n%s\nin:\n%s\n", needle, hay);
	_fail(file, line);
}

/* ---- a JSON syntax checker, to prove fmu_print_json writes valid JSON ------------------- */

static inline const char *json_value(const char *p);

static inline const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static inline const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static inline const char *json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static inline const char *json_seq(const char *p, char close, bool object)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = json_string(json_ws(p));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p++;
	}
}

static inline const char *json_value(const char *p)
{
	p = json_ws(p);
	switch (*p) {
	case '{': return json_seq(p, '}', true);
	case '[': return json_seq(p, ']', false);
	case '"': return json_string(p);
	case 't': return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f': return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n': return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default: return json_number(p);
	}
}

static inline bool json_valid(const char *s)
{
	const char *end = json_value(s);
	return end && *json_ws(end) == '\0';
}

static inline void write_zip(const char *path, const char *entry, const char *data, size_t len)
{
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	assert_non_null(zf);
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip(zf, entry, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 6),
	                 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZip(zf), ZIP_OK);
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

/* A stored entry whose header claims the size and CRC given, whatever the data. */
static inline void write_lying_zip(const char *path, const char *data, size_t len,
                            unsigned long claimed_size, unsigned long crc)
{
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	assert_non_null(zf);
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	assert_int_equal(zipOpenNewFileInZip2(zf, "modelDescription.xml", &zi, NULL, 0, NULL, 0,
	                                      NULL, 0, 0, 1),
	                 ZIP_OK);
	assert_int_equal(zipWriteInFileInZip(zf, data, (unsigned)len), ZIP_OK);
	assert_int_equal(zipCloseFileInZipRaw(zf, claimed_size, crc), ZIP_OK);
	assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

/* CRC-32 (the zip polynomial), bit by bit: the tests link no zlib of their own. */
static inline unsigned long crc32_of(const char *data, size_t len)
{
	unsigned long crc = 0xFFFFFFFFul;
	for (size_t i = 0; i < len; i++) {
		crc ^= (unsigned char)data[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320ul & (0ul - (crc & 1)));
	}
	return crc ^ 0xFFFFFFFFul;
}

static inline FmuInfo *open_built(const char *name)
{
	char path[256];
	build_path(path, sizeof path, name);
	return open_ok(path);
}

/* ---- the suite -------------------------------------------------------------------------- */

static inline int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sacc_test_fmu_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int remove_tmpdir(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

#endif
