/* sacc_test.h — what the unit tests share: a compilation whose diagnostics land in
 * memory, text loaded as a module, and a tolerance assert for doubles.
 *
 * Include after <setjmp.h>, <stdarg.h>, <stddef.h> and <cmocka.h>.  Tests run from the
 * repository root; SACC_BUILD names the build directory (build, build/asan), whose fmus/
 * holds the test FMUs. */
#ifndef SACC_TEST_H
#define SACC_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "parse.h"
#include "util.h"
#include "assert_close.h"

typedef struct TestRun {
	Compilation *c;
	FILE *stream;
	char *diag;
	size_t diaglen;
} TestRun;

static inline const char *test_build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* A compilation that finds the test FMUs (-L BUILD/fmus) and imports beside dir. */
static inline TestRun *tr_new(void)
{
	TestRun *t = calloc(1, sizeof *t);
	t->stream = open_memstream(&t->diag, &t->diaglen);
	t->c = drv_new(t->stream);
	static char fmus[512];
	snprintf(fmus, sizeof fmus, "%s/fmus", test_build_dir());
	drv_add_fmu_dir(t->c, fmus);
	return t;
}

/* Everything reported so far (valid until the next call or tr_free). */
static inline const char *tr_diag(TestRun *t)
{
	fflush(t->stream);
	return t->diag ? t->diag : "";
}

static inline Module *tr_load(TestRun *t, const char *name, const char *text)
{
	return drv_load_text(t->c, name, text, strlen(text));
}

/* The module printed back as source. malloc'd. */
static inline char *tr_print(Module *m)
{
	StrBuf sb;
	sb_init(&sb);
	if (m && m->root)
		ast_print_file(&sb, m->root);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

static inline void tr_free(TestRun *t)
{
	drv_free(t->c);
	fclose(t->stream);
	free(t->diag);
	free(t);
}


#endif
