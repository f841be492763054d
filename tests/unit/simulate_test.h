/* simulate_test.h — what the tests of `sacc simulate` (the SACC_BUILD binary, run as a
 * user would) share: a scratch directory per test with its own TMPDIR, running the
 * command with its output captured, and reading files back; with _GNU_SOURCE or
 * _XOPEN_SOURCE defined, the build directory's absolute path; with "csv.h" included before
 * it, a cell of a result checked.  Include after "sacc_test.h" and "assert_contains.h". */
#ifndef SIMULATE_TEST_H
#define SIMULATE_TEST_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct Ctx {
	char dir[256];   /* scratch: scripts, results, TMPDIR */
	char tmp[300];   /* the TMPDIR given to sacc */
	char cmd[4096];
} Ctx;

/* A scratch directory named after the test program (prefix), with TMPDIR inside. */
static inline int sim_setup(void **state, const char *prefix)
{
	Ctx *c = calloc(1, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "/tmp/%s-XXXXXX", prefix);
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->tmp, sizeof c->tmp, "%s/tmp", c->dir);
	snprintf(c->cmd, sizeof c->cmd, "mkdir '%s'", c->tmp);
	if (system(c->cmd) != 0)
		return -1;
	*state = c;
	return 0;
}

static inline int teardown(void **state)
{
	Ctx *c = *state;
	snprintf(c->cmd, sizeof c->cmd, "rm -rf '%s'", c->dir);
	int rc = system(c->cmd);
	free(c);
	return rc == 0 ? 0 : -1;
}

/* The path of name in the scratch directory; four in turn, so that one call may hold
 * several. */
static inline char *path_in(Ctx *c, const char *name)
{
	static char p[4][512];
	static int next;
	char *r = p[next++ % 4];
	snprintf(r, sizeof p[0], "%s/%s", c->dir, name);
	return r;
}

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline void write_text(Ctx *c, const char *name, const char *text)
{
	FILE *f = fopen(path_in(c, name), "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Whether SACC_TEST_ISOLATE=1 asks for every inner FMU out of process (`make
 * check-isolated`): the same tests then run each `sacc simulate` with --isolate all. */
static inline int sim_isolated(void)
{
	const char *e = getenv("SACC_TEST_ISOLATE");
	return e && !strcmp(e, "1");
}

/* Runs `sacc simulate ARGS` (stdout to out.txt, stderr to err.txt in the scratch
 * directory); returns the exit status. */
static inline int simulate(Ctx *c, const char *args)
{
	const char *b = test_build_dir();
	snprintf(c->cmd, sizeof c->cmd,
	         "TMPDIR='%s' '%s/sacc' simulate -L '%s/fmus' %s%s >'%s/out.txt' 2>'%s/err.txt'",
	         c->tmp, b, b, sim_isolated() ? "--isolate all " : "", args, c->dir, c->dir);
	int st = system(c->cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline char *file_in(Ctx *c, const char *name)
{
	return slurp(path_in(c, name));
}

/* `sacc simulate ARGS` is a usage error: exit 2 and msg on standard error (what is
 * printed otherwise names the case by opts). */
static inline void assert_usage_error(Ctx *c, const char *args, const char *opts,
                                      const char *msg)
{
	int rc = simulate(c, args);
	char *err = file_in(c, "err.txt");
	if (rc != 2)
		print_error("%s: exit %d\n%s", opts, rc, err);
	assert_int_equal(rc, 2);
	assert_contains(err, msg);
	free(err);
}

/* Nothing left in the TMPDIR sacc was given. */
static inline void assert_tmp_empty(Ctx *c)
{
	DIR *d = opendir(c->tmp);
	assert_non_null(d);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	assert_int_equal(n, 0);
}

#if defined(_GNU_SOURCE) || defined(_XOPEN_SOURCE) /* realpath */
/* The build directory as an absolute path (scripts are read, and commands run, elsewhere).
 * Not inlined, as it was not in the tests that had it before: inlined, its PATH_MAX buffer
 * makes every snprintf of a script around it a -Wformat-truncation warning. */
__attribute__((noinline, unused)) static const char *build_abs(void)
{
	static char abs[PATH_MAX];
	if (!abs[0] && !realpath(test_build_dir(), abs))
		snprintf(abs, sizeof abs, "%s", test_build_dir());
	return abs;
}
#endif

#ifdef SACC_CSV_H
#include <math.h>

/* Column name of the result at path, row k (0 = the first point), within 1e-12 of want. */
static inline void assert_cell(const char *path, const char *name, int row, double want)
{
	char err[256];
	CsvTable *t = csv_read(path, err, sizeof err);
	if (!t)
		print_error("%s\n", err);
	assert_non_null(t);
	int c = csv_column(t, name);
	if (c <= 0)
		print_error("no column %s\n", name);
	assert_true(c > 0);
	assert_true((size_t)row < t->nrows);
	double got = t->data[(size_t)row * (size_t)t->ncols + (size_t)c];
	if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want))))
		print_error("%s row %d: %.17g, want %.17g\n", name, row, got, want);
	assert_true(fabs(got - want) <= 1e-12 * fmax(1, fabs(want)));
	csv_free(t);
}

/* The time of row k (0 = the first point) of the result at path. */
static inline double time_at(const char *path, int row)
{
	char err[256];
	CsvTable *t = csv_read(path, err, sizeof err);
	if (!t)
		print_error("%s\n", err);
	assert_non_null(t);
	assert_true((size_t)row < t->nrows);
	double v = t->data[(size_t)row * (size_t)t->ncols];
	csv_free(t);
	return v;
}
#endif

#endif
