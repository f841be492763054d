/* test_robust.c — hostile input through parse, check and explicit, in process.
 *
 * Every case runs in a fresh Compilation that finds the test FMUs through -L (SACC_BUILD/fmus),
 * so that a mutated script which still looks valid gets as far as the checker and the
 * reduction rules.  For each case the suite asserts that the pipeline returns, and that a
 * run which does not accept its input says so: a non-zero result from drv_check or
 * drv_explicit with no "error:" in the sink is a silent failure.  Leaks and overruns are
 * for the ASan and valgrind runs of this same binary to find.
 *
 * The inputs, all deterministic: every prefix of each seed script (adaptations/ and
 * tests/golden/, whatever is there when the suite runs; every k-th prefix when the seeds are
 * long), seeded random mutations of the seeds, random bytes, random token soup, and
 * pathological shapes (deep nesting, huge names, long lines, many statements).  A script
 * accepted by explicit is printed, read back and checked again: the explicit form of a
 * valid script must itself be valid.
 *
 *   SACC_ROBUST_SCALE=F    multiplies the number of generated cases (default 1; under
 *                          valgrind, detected through LD_PRELOAD, 0.05)
 *   SACC_ROBUST_VERBOSE=1  prints each case's label before it runs (and the time taken by
 *                          each pathological case)
 *   SACC_ROBUST_SHOW=TEXT  prints the diagnostics of the cases whose label contains TEXT
 *
 * A silent failure writes its input to SACC_BUILD/robust/; a case that crashes under ASan
 * or runs for more than CASE_TIMEOUT seconds writes its input to SACC_BUILD/robust/crash.sa
 * and names itself on stderr. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sacc_test.h"
#include "explicit.h"

#if defined(__SANITIZE_ADDRESS__)
#define ROBUST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROBUST_ASAN 1
#endif
#endif
#ifdef ROBUST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* ---- bytes ----------------------------------------------------------------------------- */

/* A growable byte buffer; unlike StrBuf it holds NUL bytes as data. */
typedef struct Buf {
	char *p;
	size_t n, cap;
} Buf;

static void buf_reserve(Buf *b, size_t extra)
{
	if (b->n + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + extra + 1)
		cap *= 2;
	b->p = realloc(b->p, cap);
	assert_non_null(b->p);
	b->cap = cap;
}

static void buf_add(Buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_puts(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }

static void buf_rep(Buf *b, const char *s, long times)
{
	size_t n = strlen(s);
	buf_reserve(b, n * (size_t)times);
	for (long i = 0; i < times; i++)
		buf_add(b, s, n);
}

/* Inserts n bytes at offset at. */
static void buf_insert(Buf *b, size_t at, const char *s, size_t n)
{
	buf_reserve(b, n);
	memmove(b->p + at + n, b->p + at, b->n - at);
	memcpy(b->p + at, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_delete(Buf *b, size_t at, size_t n)
{
	memmove(b->p + at, b->p + at + n, b->n - at - n);
	b->n -= n;
	b->p[b->n] = '\0';
}

static void buf_free(Buf *b)
{
	free(b->p);
	*b = (Buf){0};
}

/* xorshift64*: the same sequence on every machine, so a failing case number reproduces. */
typedef struct Rng {
	uint64_t s;
} Rng;

static Rng rng_for(uint64_t seed, uint64_t stream)
{
	Rng r = {seed ^ (stream * 0x9e3779b97f4a7c15ull)};
	if (!r.s)
		r.s = 1;
	return r;
}

static uint64_t rng_next(Rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

/* Uniform enough in [0, n); n > 0. */
static size_t rng_below(Rng *r, size_t n) { return (size_t)(rng_next(r) % n); }

#define FIXED_SEED 0x5acc5eedull

/* ---- the run of one case --------------------------------------------------------------- */

typedef struct Group {
	const char *name;
	long cases, parsed, accepted, rejected, silent, roundtrip;
	double secs; /* CPU time */
} Group;

static Group g_prefix = {.name = "prefix"}, g_mutation = {.name = "mutation"},
	     g_random = {.name = "random bytes"}, g_soup = {.name = "token soup"},
	     g_patho = {.name = "pathological"};

static double scale = 1.0;
static bool verbose;
static const char *show;
static char fmu_dir[512];
/* The UDUNITS-2 database, loaded once: loading it costs more than most cases (it is read
 * only; each compilation borrows it and hands it back before drv_free). */
static UnitSystem *shared_units;

/* The case in progress, for the sanitizer's death callback. */
static struct {
	const char *group;
	long index;
	const char *label;
	const char *text;
	size_t len;
} cur;

/* Where the input of a case that dies is written; set up front, for the alarm handler. */
static char crash_path[700];

/* Writes text to path (under SACC_BUILD/robust/, made when missing).  Only system calls,
 * so that the alarm handler may use it. */
static void save_input(const char *path, const char *text, size_t len)
{
	char dir[600];
	size_t n = strlen(path);
	const char *slash = strrchr(path, '/');
	if (slash && (size_t)(slash - path) < sizeof dir && n < sizeof dir) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		mkdir(dir, 0777);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0)
		return;
	while (len > 0) {
		ssize_t w = write(fd, text, len);
		if (w <= 0)
			break;
		text += w;
		len -= (size_t)w;
	}
	close(fd);
}

#ifdef ROBUST_ASAN
static void on_death(void)
{
	if (!cur.group)
		return;
	save_input(crash_path, cur.text, cur.len);
	fprintf(stderr, "test_robust: died in %s case #%ld (%s); its input is in %s\n", cur.group,
		cur.index, cur.label, crash_path);
}
#endif

/* A case that does not return is a failure too: say which, keep its input, and stop. */
#define CASE_TIMEOUT 120
#define STR_(x) #x
#define STR(x) STR_(x)

static void put_err(const char *s) { (void)!write(2, s, strlen(s)); }

static void on_alarm(int sig)
{
	(void)sig;
	if (cur.group) {
		save_input(crash_path, cur.text, cur.len);
		put_err("test_robust: a case ran for more than " STR(CASE_TIMEOUT) " s: ");
		put_err(cur.group);
		put_err(" case (");
		put_err(cur.label);
		put_err("); its input is in ");
		put_err(crash_path);
		put_err("\n");
	}
	signal(SIGABRT, SIG_DFL);
	abort();
}

/* Parses, checks and reduces text as a fresh compilation would (printing the tree after
 * the parse, and again after explicit); true when it was accepted.  *diag_out, when given,
 * receives the diagnostics and *printed, when given, the explicit form (both malloc'd). */
static bool compile_text(const char *name, const char *text, size_t len, const char *after,
			 char **diag_out, char **printed, bool *silent, bool *parsed)
{
	char *diag = NULL;
	size_t dlen = 0;
	FILE *out = open_memstream(&diag, &dlen);
	assert_non_null(out);
	Compilation *c = drv_new(out);
	assert_non_null(c);
	c->units = shared_units;
	drv_add_fmu_dir(c, fmu_dir);
	Module *m = drv_load_text(c, name, text, len);
	assert_non_null(m);
	StrBuf sb;
	sb_init(&sb);
	*parsed = m->root != NULL;
	if (m->root)
		ast_print_file(&sb, m->root); /* what `sacc parse` does */
	int rc = drv_check(c, m);
	if (rc == 0)
		rc = drv_explicit(c, m, after);
	bool accepted = rc == 0 && diag_errors(c->diag) == 0;
	if (accepted) {
		sb_free(&sb);
		sb_init(&sb);
		ast_print_file(&sb, m->root);
	}
	c->units = NULL;
	drv_free(c);
	fclose(out);
	*silent = rc != 0 && !(diag && strstr(diag, "error: "));
	if (printed && accepted)
		*printed = strdup(sb_str(&sb));
	sb_free(&sb);
	if (diag_out)
		*diag_out = diag;
	else
		free(diag);
	return accepted;
}

static void report_silent(Group *g, const char *label, const char *text, size_t len,
			  const char *diag, const char *what)
{
	char path[700];
	snprintf(path, sizeof path, "%s/robust/%s-%ld.sa", test_build_dir(), what, g->cases);
	for (char *p = path + strlen(test_build_dir()) + 8; *p; p++)
		if (*p == ' ')
			*p = '_';
	save_input(path, text, len);
	if (g->silent + g->roundtrip <= 10)
		fprintf(stderr, "test_robust: %s case #%ld (%s): %s; input saved as %s\n%.400s\n",
			g->name, g->cases, label, what, path, diag ? diag : "");
}

/* One case: run, then hold the result to the suite's two promises. */
static bool run_case(Group *g, const char *label, const char *name, const char *text, size_t len,
		     const char *after)
{
	clock_t t0 = clock();
	if (!text)
		text = ""; /* an empty Buf */
	g->cases++;
	cur.group = g->name;
	cur.index = g->cases;
	cur.label = label;
	cur.text = text;
	cur.len = len;
	if (verbose)
		fprintf(stderr, "robust: %s #%ld %s\n", g->name, g->cases, label);

	char *diag = NULL, *printed = NULL;
	bool silent = false, parsed = false;
	alarm(CASE_TIMEOUT);
	bool accepted = compile_text(name, text, len, after, &diag, &printed, &silent, &parsed);
	g->parsed += parsed;
	if (show && strstr(label, show))
		fprintf(stderr, "robust: %s #%ld %s: %s\n%s", g->name, g->cases, label,
			accepted ? "accepted" : "rejected", diag ? diag : "");
	if (silent) {
		g->silent++;
		report_silent(g, label, text, len, diag, "silent failure");
	}
	if (accepted) {
		g->accepted++;
		/* The explicit form of a valid script reads back as a valid script (checked for
		 * all but the huge pathological inputs, where it would double the run time). */
		if (!after && len <= (1u << 18)) {
			char *diag2 = NULL;
			bool silent2 = false, parsed2 = false;
			if (!compile_text(name, printed, strlen(printed), NULL, &diag2, NULL, &silent2,
					  &parsed2)) {
				g->roundtrip++;
				report_silent(g, label, text, len, diag2, "explicit form rejected");
				report_silent(g, label, printed, strlen(printed), NULL,
					      "the rejected explicit form");
			}
			if (silent2) {
				g->silent++;
				report_silent(g, label, printed, strlen(printed), diag2, "silent failure");
			}
			free(diag2);
		}
	} else {
		g->rejected++;
	}
	alarm(0);
	free(printed);
	free(diag);
	cur.group = NULL;
	g->secs += (double)(clock() - t0) / CLOCKS_PER_SEC;
	return accepted;
}

static void assert_group_clean(const Group *g)
{
	if (g->silent || g->roundtrip)
		fail_msg("%s: %ld silent failure(s) and %ld rejected explicit form(s) in %ld cases",
			 g->name, g->silent, g->roundtrip, g->cases);
}

static long scaled(long n)
{
	long v = (long)((double)n * scale);
	return v < 1 ? 1 : v;
}

/* The size of a pathological input whose cost grows with its size: as given at scale 1 and
 * above, shrunk with the square root of the scale below it (valgrind), but not below min. */
static long big(long n, long min)
{
	long v = scale >= 1 ? n : (long)((double)n * sqrt(scale));
	return v < min ? min : v;
}

/* ---- seeds ----------------------------------------------------------------------------- */

typedef struct Seed {
	char *path;
	char *text;
	size_t len;
	bool valid; /* passes explicit as it is */
} Seed;

static Seed *seeds;
static int nseeds;
static size_t seed_bytes;

/* A script that passes check and explicit with the test FMUs alone; also the frame the
 * pathological cases are built in (BODY goes into its control rules). */
static const char base_head[] =
	"module robust\n"
	"semantic adaptation reactive mealy robust\n"
	"at \"robust.fmu\"\n"
	"\tfor inner fmu Window window\n"
	"\t\tat \"window.fmu\"\n"
	"\t\twith input ports Real displacement (rad), Real speed (rad/s)\n"
	"\t\twith output ports Real height (cm), Real reaction_torque (N.m)\n"
	"input ports Real force (N) -> window.reaction_force\n"
	"output ports Real disp (m) <- window.height, Real tau (N.m)\n"
	"param P := 1.0, Q := 2;\n"
	"control var c := 0.0;\n"
	"control rules {\n"
	"\tvar x := 0.0;\n"
	"\tvar b := true;\n";
static const char base_tail[] =
	"\tif (c > P) { x := x + 1.0; } else { for (var i in 0 .. Q) { x := x - 1.0; } }\n"
	"\tdo_step(window, t, H);\n"
	"\treturn H;\n"
	"}\n"
	"out rules {\n"
	"\ttrue -> { } --> { robust.tau := -window.reaction_torque; };\n"
	"}\n";

static void add_seed(const char *path, char *text, size_t len)
{
	seeds = realloc(seeds, (size_t)(nseeds + 1) * sizeof *seeds);
	assert_non_null(seeds);
	seeds[nseeds++] = (Seed){strdup(path), text, len, false};
	seed_bytes += len;
}

static int load_seeds(void **state)
{
	(void)state;
	static const char *const patterns[] = {
		"adaptations/*/*.sa", "tests/golden/*/*.sa", "tests/golden/*/*/*.sa",
	};
	for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
		glob_t gl;
		if (glob(patterns[k], 0, NULL, &gl) != 0)
			continue;
		for (size_t i = 0; i < gl.gl_pathc; i++) {
			size_t len;
			char *text = read_file(gl.gl_pathv[i], 1u << 20, &len);
			if (text)
				add_seed(gl.gl_pathv[i], text, len);
		}
		globfree(&gl);
	}
	Buf b = {0};
	buf_puts(&b, base_head);
	buf_puts(&b, base_tail);
	add_seed("robust/robust.sa", b.p, b.n);
	const char *why = NULL;
	shared_units = units_open(&why);
	if (!shared_units) {
		fprintf(stderr, "units_open: %s\n", why ? why : "(no reason)");
		return -1;
	}
	return 0;
}

static int free_seeds(void **state)
{
	(void)state;
	for (int i = 0; i < nseeds; i++) {
		free(seeds[i].path);
		free(seeds[i].text);
	}
	free(seeds);
	seeds = NULL;
	units_close(shared_units);
	shared_units = NULL;
	return 0;
}

/* ---- prefixes -------------------------------------------------------------------------- */

/* Every prefix, as long as that stays within the budget; every k-th one beyond it. */
static void robust__seed_prefixes__each_returns_and_reports(void **state)
{
	(void)state;
	size_t budget = (size_t)scaled(8000);
	size_t step = seed_bytes / budget + 1;
	char label[600];
	for (int i = 0; i < nseeds; i++) {
		for (size_t n = 0; n <= seeds[i].len; n += step) {
			snprintf(label, sizeof label, "%s truncated to %zu bytes", seeds[i].path, n);
			run_case(&g_prefix, label, seeds[i].path, seeds[i].text, n, NULL);
		}
	}
	assert_group_clean(&g_prefix);
}

/* ---- mutations ------------------------------------------------------------------------- */

static const char *const tokens[] = {
	/* keywords */
	"module", "import", "fmu", "inner", "semantic", "adaptation", "at", "for", "coupled",
	"as", "composed", "without", "master", "reactive", "delayed", "moore", "mealy", "input",
	"output", "ports", "with", "param", "control", "in", "out", "var", "rules", "return",
	"if", "else", "break", "true", "false", "not", "and", "or", "otherwise", "Real",
	"Integer", "String", "Bool", "H", "h", "t", "dt", "e", "MAX", "signal", "now", "prev",
	"do_step", "save_state", "rollback", "discard", "is_close", "is_set",
	"get_next_time_step", "elapsed", "last_execution_time", "floor", "ceil", "round", "max",
	"min", "abs", "successive", "substitution", "starts", "delay", "multiply", "rate",
	"times", "interpolation", "order", "no", "first", "second", "third", "fourth", "zero",
	"hold", "ZOH", "FOH", "crossing", "absolute", "relative", "tolerance", "quantize",
	"every", "offset", "triggered", "by", "periodic", "multiplied", "implied", "extract",
	"directionalderivative", "timederivative", "of",
	/* punctuation */
	"(", ")", "{", "}", "[", "]", ",", ";", ".", "..", ":=", "->", "-->", "<-", "+", "-",
	"*", "/", "<", "<=", ">", ">=", "==", "!=", ">!", "<!", "=", "^", ":", "!", "@", "#",
	"\\", "\"", "'", "/*", "*/", "//", "\n", "\t", "\r", " ",
	/* literals and names */
	"0", "1", "-1", "3.5", "1e308", "1e999", "-1e-999", "99999999999999999999999", ".5e",
	"0x1f", "\"window.fmu\"", "\"obstacle.fmu\"", "\"\"", "\"a\\\"b\"", "'x'", "(N)", "(m/s)",
	"(cm)", "(bogus unit)", "(N.m)", "(1/0)", "window", "obstacle", "height", "displacement",
	"speed", "reaction_force", "reaction_torque", "disp", "x", "^if", "[0]", "[-1]", "[1..2]",
	/* fragments of statements */
	"if (true) {", "for (var i in 0 .. 3) {", "do_step(window, t, H);", "return H;",
	"save_state(window);", "rollback(window);", "var y := x;", "window.speed := 1.0;",
	"true -> { } --> { };", "is_set(x)", "prev(x)", "signal(x)",
};
#define NTOKENS (sizeof tokens / sizeof tokens[0])

static bool is_id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The identifier around a random spot of s, or a random token when there is none. */
static void pick_name(Rng *r, const char *s, size_t n, const char **out, size_t *outn)
{
	for (int tries = 0; tries < 8 && n > 0; tries++) {
		size_t at = rng_below(r, n);
		if (!is_id_char(s[at]))
			continue;
		size_t a = at, z = at;
		while (a > 0 && is_id_char(s[a - 1]))
			a--;
		while (z < n && is_id_char(s[z]))
			z++;
		*out = s + a;
		*outn = z - a;
		return;
	}
	*out = tokens[rng_below(r, NTOKENS)];
	*outn = strlen(*out);
}

/* A random place at the start or end of a token (blanks and punctuation edges), so that
 * an inserted token more often makes a script that still lexes. */
static size_t token_edge(Rng *r, const Buf *b)
{
	if (!b->n)
		return 0;
	size_t at = rng_below(r, b->n + 1);
	while (at < b->n && at > 0 && is_id_char(b->p[at - 1]) && is_id_char(b->p[at]))
		at++;
	return at;
}

/* The identifier that covers offset at of b, as [*a, *z); false when there is none. */
static bool id_at(const Buf *b, size_t at, size_t *a, size_t *z)
{
	if (at >= b->n || !is_id_char(b->p[at]))
		return false;
	*a = *z = at;
	while (*a > 0 && is_id_char(b->p[*a - 1]))
		(*a)--;
	while (*z < b->n && is_id_char(b->p[*z]))
		(*z)++;
	return true;
}

/* The line that covers offset at of b, newline included, as [*a, *z). */
static void line_at(const Buf *b, size_t at, size_t *a, size_t *z)
{
	*a = *z = at;
	while (*a > 0 && b->p[*a - 1] != '\n')
		(*a)--;
	while (*z < b->n && b->p[*z] != '\n')
		(*z)++;
	if (*z < b->n)
		(*z)++;
}

/* One random edit of b; seed is the unmutated text that names are drawn from.  The edits
 * that keep a script lexically sound (whole tokens, names, lines) are drawn more often
 * than the byte-level ones, so that many cases get past the parser. */
static void mutate_once(Rng *r, Buf *b, const Seed *seed)
{
	size_t at = b->n ? rng_below(r, b->n) : 0;
	size_t maxspan = b->n / 8 + 2;
	size_t a, z;
	switch (rng_below(r, 12)) {
	case 0: /* flip a bit */
		if (b->n)
			b->p[at] ^= (char)(1u << rng_below(r, 8));
		break;
	case 1: { /* set or insert a byte of any value, NUL and high bytes included */
		char c = (char)rng_below(r, 256);
		if (b->n && rng_below(r, 2))
			b->p[at] = c;
		else
			buf_insert(b, at, &c, 1);
		break;
	}
	case 2:
	case 3:
	case 4: { /* insert a token between tokens, with or without blanks around it */
		const char *t = tokens[rng_below(r, NTOKENS)];
		size_t to = token_edge(r, b);
		if (rng_below(r, 2))
			buf_insert(b, to, " ", 1);
		buf_insert(b, to, t, strlen(t));
		if (rng_below(r, 2))
			buf_insert(b, to, " ", 1);
		break;
	}
	case 5: /* delete a span of bytes */
		if (b->n)
			buf_delete(b, at, 1 + rng_below(r, (b->n - at) < maxspan ? b->n - at : maxspan));
		break;
	case 6: { /* duplicate a span somewhere else */
		if (!b->n)
			break;
		size_t len = 1 + rng_below(r, (b->n - at) < maxspan ? b->n - at : maxspan);
		char *copy = malloc(len);
		assert_non_null(copy);
		memcpy(copy, b->p + at, len);
		buf_insert(b, token_edge(r, b), copy, len);
		free(copy);
		break;
	}
	case 7:
	case 8: { /* replace a name by another name of the same script */
		if (!id_at(b, at, &a, &z))
			break;
		const char *name;
		size_t namen;
		pick_name(r, seed->text, seed->len, &name, &namen);
		buf_delete(b, a, z - a);
		buf_insert(b, a, name, namen);
		break;
	}
	case 9: /* delete a name (or keyword) */
		if (id_at(b, at, &a, &z))
			buf_delete(b, a, z - a);
		break;
	case 10: { /* move a line elsewhere: a statement or declaration changes parts */
		if (!b->n)
			break;
		line_at(b, at, &a, &z);
		size_t len = z - a;
		char *line = malloc(len + 1);
		assert_non_null(line);
		memcpy(line, b->p + a, len);
		if (!len || line[len - 1] != '\n')
			line[len++] = '\n';
		buf_delete(b, a, z - a);
		size_t to = b->n ? rng_below(r, b->n + 1) : 0, ta, tz;
		if (to < b->n) {
			line_at(b, to, &ta, &tz);
			to = ta;
		}
		buf_insert(b, to, line, len);
		free(line);
		break;
	}
	case 11: /* delete a line */
		if (b->n) {
			line_at(b, at, &a, &z);
			buf_delete(b, a, z - a);
		}
		break;
	}
}

static void robust__seed_mutations__each_returns_and_reports(void **state)
{
	(void)state;
	long n = scaled(8000);
	int nrules = 0;
	while (rw_rules[nrules].name)
		nrules++;
	/* Half of the cases mutate a valid seed: most golden seeds are wrong on purpose, and
	 * small edits of a valid script are what reach the checker and the rules. */
	int *valid = calloc((size_t)nseeds, sizeof *valid), nvalid = 0;
	assert_non_null(valid);
	for (int i = 0; i < nseeds; i++) {
		bool silent, parsed;
		seeds[i].valid = compile_text(seeds[i].path, seeds[i].text, seeds[i].len, NULL, NULL,
					      NULL, &silent, &parsed);
		if (seeds[i].valid)
			valid[nvalid++] = i;
	}
	char label[600];
	for (long i = 0; i < n; i++) {
		const Seed *s = &seeds[i % 2 && nvalid ? valid[(i / 2) % nvalid] : (i / 2) % nseeds];
		Rng r = rng_for(FIXED_SEED, (uint64_t)i);
		Buf b = {0};
		buf_add(&b, s->text, s->len);
		/* 1 edit half of the time, 2 a quarter, up to 5 otherwise */
		int edits = 1;
		while (edits < 5 && rng_below(&r, 2))
			edits++;
		for (int k = 0; k < edits; k++)
			mutate_once(&r, &b, s);
		/* One case in four stops the reduction after some rule, as --after does. */
		const char *after = rng_below(&r, 4) == 0 ? rw_rules[rng_below(&r, (size_t)nrules)].name
							  : NULL;
		snprintf(label, sizeof label, "%s with %d random edit(s), stream %ld", s->path, edits, i);
		run_case(&g_mutation, label, s->path, b.p, b.n, after);
		buf_free(&b);
	}
	free(valid);

	/* Whole-file transformations of each seed: other line ends, a BOM, stray bytes. */
	for (int i = 0; i < nseeds; i++) {
		const Seed *s = &seeds[i];
		Buf crlf = {0}, cr = {0}, bom = {0}, nul = {0};
		for (size_t k = 0; k < s->len; k++) {
			if (s->text[k] == '\n') {
				buf_add(&crlf, "\r\n", 2);
				buf_add(&cr, "\r", 1);
			} else {
				buf_add(&crlf, s->text + k, 1);
				buf_add(&cr, s->text + k, 1);
			}
		}
		buf_add(&bom, "\xef\xbb\xbf", 3);
		buf_add(&bom, s->text, s->len);
		buf_add(&nul, s->text, s->len / 2);
		buf_add(&nul, "\0", 1);
		buf_add(&nul, s->text + s->len / 2, s->len - s->len / 2);
		snprintf(label, sizeof label, "%s with CRLF line ends", s->path);
		run_case(&g_mutation, label, s->path, crlf.p, crlf.n, NULL);
		snprintf(label, sizeof label, "%s with CR line ends", s->path);
		run_case(&g_mutation, label, s->path, cr.p, cr.n, NULL);
		snprintf(label, sizeof label, "%s after a UTF-8 BOM", s->path);
		run_case(&g_mutation, label, s->path, bom.p, bom.n, NULL);
		snprintf(label, sizeof label, "%s with a NUL in the middle", s->path);
		run_case(&g_mutation, label, s->path, nul.p, nul.n, NULL);
		buf_free(&crlf);
		buf_free(&cr);
		buf_free(&bom);
		buf_free(&nul);
	}
	assert_group_clean(&g_mutation);
}

/* ---- random input ---------------------------------------------------------------------- */

static void robust__random_bytes__each_returns_and_reports(void **state)
{
	(void)state;
	long n = scaled(2000);
	char label[100];
	for (long i = 0; i < n; i++) {
		Rng r = rng_for(FIXED_SEED + 1, (uint64_t)i);
		size_t len = rng_below(&r, 2048);
		bool printable = rng_below(&r, 2);
		Buf b = {0};
		buf_reserve(&b, len);
		for (size_t k = 0; k < len; k++) {
			char c = printable ? (char)(0x20 + rng_below(&r, 0x5f)) : (char)rng_below(&r, 256);
			if (printable && rng_below(&r, 16) == 0)
				c = "\n\t\0\x80\xff"[rng_below(&r, 5)];
			b.p[b.n++] = c;
		}
		b.p[b.n] = '\0';
		snprintf(label, sizeof label, "%zu %s bytes, stream %ld", len,
			 printable ? "mostly printable" : "random", i);
		run_case(&g_random, label, "robust/random.sa", b.p, b.n, NULL);
		buf_free(&b);
	}
	assert_group_clean(&g_random);
}

/* Tokens in random order, half of the time behind a valid adaptation header so that the
 * parser gets past its first states. */
static void robust__token_soup__each_returns_and_reports(void **state)
{
	(void)state;
	long n = scaled(3000);
	char label[100];
	for (long i = 0; i < n; i++) {
		Rng r = rng_for(FIXED_SEED + 2, (uint64_t)i);
		Buf b = {0};
		int where = (int)rng_below(&r, 3);
		if (where == 1)
			buf_add(&b, base_head, strlen(base_head) - strlen("control rules {\n\tvar x := 0.0;\n\tvar b := true;\n"));
		else if (where == 2)
			buf_puts(&b, base_head);
		size_t ntok = rng_below(&r, 300);
		for (size_t k = 0; k < ntok; k++) {
			buf_puts(&b, tokens[rng_below(&r, NTOKENS)]);
			buf_puts(&b, rng_below(&r, 8) ? " " : "\n");
		}
		if (where == 2)
			buf_puts(&b, base_tail);
		snprintf(label, sizeof label, "%zu tokens, stream %ld", ntok, i);
		run_case(&g_soup, label, "robust/soup.sa", b.p, b.n, NULL);
		buf_free(&b);
	}
	assert_group_clean(&g_soup);
}

/* ---- pathological shapes --------------------------------------------------------------- */

static bool patho(const char *label, Buf *b)
{
	clock_t t0 = clock();
	bool accepted = run_case(&g_patho, label, "robust/robust.sa", b->p, b->n, NULL);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (verbose)
		fprintf(stderr, "robust: %s took %.2f s\n", label, secs);
	buf_free(b);
	return accepted;
}

/* base_head BODY base_tail */
static bool patho_body(const char *label, Buf *body)
{
	Buf b = {0};
	buf_puts(&b, base_head);
	buf_add(&b, body->p ? body->p : "", body->n);
	buf_puts(&b, base_tail);
	buf_free(body);
	return patho(label, &b);
}

/* lead, then open depth times, inner, close depth times, then ";\n" when lead is given */
static bool patho_nested(const char *label, const char *lead, const char *open,
			 const char *inner, const char *close, long depth)
{
	Buf body = {0};
	buf_puts(&body, lead);
	buf_rep(&body, open, depth);
	buf_puts(&body, inner);
	buf_rep(&body, close, depth);
	if (*lead)
		buf_puts(&body, ";\n");
	return patho_body(label, &body);
}

/* The deepest nesting of one shape that is accepted, found by bisection below 8192 (the
 * parser's stack and the tree-depth limit both refuse less): the stages after the parser
 * are then run on the deepest trees they can ever be given. */
static long patho_deepest(const char *what, const char *lead, const char *open,
			  const char *inner, const char *close)
{
	long lo = 1, hi = 8192; /* lo accepted (assumed), hi refused (assumed) */
	char label[200];
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;
		snprintf(label, sizeof label, "%ld nested %s (bisecting)", mid, what);
		if (patho_nested(label, lead, open, inner, close, mid))
			lo = mid;
		else
			hi = mid;
	}
	if (verbose)
		fprintf(stderr, "robust: deepest accepted nesting of %s: %ld\n", what, lo);
	return lo;
}

/* A chain of n operands joined by op: deep trees without deep parser nesting. */
static void patho_chain(const char *what, const char *lhs, const char *operand, const char *op,
			long n)
{
	char label[100];
	snprintf(label, sizeof label, "%ld %s", n, what);
	Buf body = {0};
	buf_puts(&body, lhs);
	buf_puts(&body, operand);
	for (long i = 1; i < n; i++) {
		buf_puts(&body, op);
		buf_puts(&body, operand);
	}
	buf_puts(&body, ";\n");
	patho_body(label, &body);
}

/* Nothing much: empty, blanks, NUL bytes, every byte value.
 * (b: the scratch buffer, which each case empties) */
static void patho_little(Buf *b)
{
	patho("empty file", b);
	buf_puts(b, " \t\r\n\v\f");
	patho("blanks only", b);
	buf_add(b, "\0", 1);
	patho("one NUL byte", b);
	for (int c = 0; c < 256; c++) {
		char ch = (char)c;
		buf_add(b, &ch, 1);
	}
	patho("all 256 byte values", b);
}

/* Nesting: parentheses, blocks, unary chains and long operator chains.
 * (b: the scratch buffer, which each case empties) */
static void patho_nesting(Buf *b)
{
	buf_rep(b, "(", 100000);
	patho("100000 open parentheses", b);
	patho_nested("100000 nested parentheses in an expression", "x := ", "(", "1.0", ")", 100000);
	patho_nested("1000 nested parentheses", "x := ", "(", "1.0", ")", 1000);
	patho_nested("3000 nested parentheses", "x := ", "(", "1.0", ")", 3000);
	{
		Buf body = {0};
		buf_puts(&body, "x := ");
		buf_rep(&body, "(", 2000);
		buf_puts(&body, "x");
		buf_rep(&body, " + 1.0)", 2000);
		buf_puts(&body, ";\n");
		patho_body("2000 nested parenthesised sums", &body);
	}
	patho_nested("3000 nested ifs", "", "if (b) {\n", "x := 1.0;\n", "}\n", 3000);
	patho_nested("300 nested ifs", "", "if (b) {\n", "x := 1.0;\n", "}\n", 300);
	patho_nested("3000 nested fors", "", "for (var i in 0 .. 2) {\n", "x := 1.0;\n", "}\n", 3000);
	patho_nested("200 nested fors", "", "for (var i in 0 .. 2) {\n", "x := 1.0;\n", "}\n", 200);
	patho_nested("3000 nested if-fors", "", "if (b) { for (var i in 0 .. 2) {\n", "break;\n", "} }\n",
		     3000);
	patho_nested("3000 nested blocks of vars", "", "if (b) { var x := x + 1.0;\n", "", "}\n", 3000);
	{
		Buf body = {0};
		buf_puts(&body, "b := ");
		buf_rep(&body, "not ", 100000);
		buf_puts(&body, "b;\n");
		patho_body("100000 nots", &body);
		buf_puts(&body, "x := ");
		buf_rep(&body, "- ", 100000);
		buf_puts(&body, "x;\n");
		patho_body("100000 unary minuses", &body);
		buf_puts(&body, "x := ");
		buf_rep(&body, "abs(", 5000);
		buf_puts(&body, "x");
		buf_rep(&body, ")", 5000);
		buf_puts(&body, ";\n");
		patho_body("5000 nested calls", &body);
		buf_puts(&body, "if (b) { x := 1.0; }");
		buf_rep(&body, " else if (b) { x := 2.0; }", 3000);
		buf_puts(&body, "\n");
		patho_body("3000 else-ifs", &body);
	}
	patho_chain("additions", "x := ", "x", " + ", big(20000, 6000));
	patho_chain("multiplications", "x := ", "1.0", " * ", big(20000, 6000));
	patho_chain("subtractions", "x := ", "x", "-", big(20000, 6000));
	patho_chain("ands", "b := ", "b", " and ", big(20000, 6000));
	patho_chain("ors", "b := ", "true", " or ", big(20000, 6000));
	patho_chain("comparisons", "b := ", "x", " < ", big(20000, 6000));
	patho_chain("additions", "x := ", "x", " + ", 3000);
	patho_deepest("ifs", "", "if (b) {\n", "x := 1.0;\n", "}\n");
	patho_deepest("additions", "x := x", " + x", "", "");
	if (scale >= 1) { /* about 10 s under valgrind, and ASan sees the same trees */
		patho_deepest("fors", "", "for (var i in 0 .. 2) {\n", "x := 1.0;\n", "}\n");
		patho_deepest("else-ifs", "", "if (b) { x := 1.0; } else ", "{ x := 2.0; }", "");
		patho_deepest("parenthesised sums", "x := ", "(x + ", "1.0", ")");
		patho_deepest("calls", "x := ", "max(1.0, ", "x", ")");
		patho_deepest("products in sums", "x := x", " + x * x", "", "");
		patho_deepest("ands", "b := b", " and b", "", "");
	}
}

/* Size: huge names, many statements, imports, adaptations and inner FMUs.
 * (b: the scratch buffer, which each case empties) */
static void patho_size(Buf *b)
{
	buf_puts(b, "module ");
	buf_rep(b, "a", 1 << 20);
	buf_puts(b, "\n");
	patho("a 1 MB module name", b);
	{
		Buf body = {0};
		buf_puts(&body, "var ");
		buf_rep(&body, "y", 1 << 20);
		buf_puts(&body, " := 1.0;\nx := ");
		buf_rep(&body, "y", (1 << 20) - 1);
		buf_puts(&body, "z;\n");
		patho_body("a 1 MB name, then a near miss of it", &body);
		buf_puts(&body, "var ");
		buf_rep(&body, "y", 1 << 20);
		buf_puts(&body, " := 1.0;\nx := ");
		buf_rep(&body, "y", 1 << 20);
		buf_puts(&body, ";\n");
		patho_body("a 1 MB name, declared and used", &body);
	}
	{
		Buf body = {0};
		char label[100];
		long n = big(100000, 1000);
		buf_rep(&body, "x := x + 1.0;\n", n);
		snprintf(label, sizeof label, "%ld statements", n);
		patho_body(label, &body);
		buf_rep(&body, "x := x + 1.0; ", big(20000, 1000));
		buf_puts(&body, "x := nosuchname;\n");
		patho_body("thousands of statements on one line, then an error", &body);
		buf_puts(&body, "// ");
		buf_rep(&body, "comment ", 1 << 17);
		buf_puts(&body, "\n");
		patho_body("a 1 MB comment line", &body);
		buf_puts(&body, "x := 1.0 ");
		buf_rep(&body, " ", 1 << 20);
		buf_puts(&body, "@;\n");
		patho_body("an error after 1 MB of blanks on its line", &body);
	}
	{
		Buf body = {0};
		long n = big(5000, 500);
		for (long i = 0; i < n; i++) {
			char line[80];
			snprintf(line, sizeof line, "var v%ld := %s + 1.0;\n", i, i ? "x" : "0.0");
			buf_puts(&body, line);
		}
		patho_body("thousands of local variables", &body);
	}
	buf_puts(b, "import m\n");
	buf_rep(b, "import robust\n", 10000);
	patho("10000 imports", b);
	buf_rep(b, "@", 10000);
	patho("10000 unexpected characters", b);
	buf_rep(b, "x ", 100000);
	patho("100000 stray names", b);
	buf_puts(b, "module many\n");
	for (long i = 0, n = big(300, 30); i < n; i++) {
		char sa[300];
		snprintf(sa, sizeof sa,
			 "semantic adaptation reactive mealy s%ld at \"s%ld.fmu\"\n"
			 "\tfor inner fmu Window w at \"window.fmu\"\n"
			 "output ports Real tau (N.m) <- w.reaction_torque\n",
			 i, i);
		buf_puts(b, sa);
	}
	patho("hundreds of adaptations", b);
	buf_puts(b, "module many\nsemantic adaptation reactive mealy s at \"s.fmu\"\n");
	for (long i = 0, n = big(1000, 100); i < n; i++) {
		char inner[100];
		snprintf(inner, sizeof inner, "\tfor inner fmu Window w%ld at \"window.fmu\"\n", i);
		buf_puts(b, inner);
	}
	patho("hundreds of inner fmus", b);
}

/* Strings, comments and numbers: runs of escapes, unterminated ones, extremes.
 * (b: the scratch buffer, which each case empties) */
static void patho_lexemes(Buf *b)
{
	for (long n = 100000; n <= 100001; n++) {
		buf_puts(b, "module s\nsemantic adaptation s at \"");
		buf_rep(b, "\\", n);
		buf_puts(b, "\"\n\tfor inner fmu Window w at \"window.fmu\"\n");
		patho(n % 2 ? "an odd run of 100001 backslashes in a string"
			    : "100000 backslashes in a string", b);
	}
	buf_puts(b, "module s\nsemantic adaptation s at \"");
	buf_rep(b, "\\", 100000);
	patho("an unterminated string of backslashes at end of file", b);
	buf_puts(b, base_head);
	buf_puts(b, base_tail);
	buf_puts(b, "/* unterminated\n");
	buf_rep(b, "comment\n", 10000);
	patho("an unterminated comment at end of file", b);
	buf_puts(b, "/*");
	patho("a bare comment opener", b);
	buf_puts(b, "/");
	patho("a lone slash", b);
	buf_puts(b, base_head);
	buf_puts(b, "/*");
	patho("a comment opener cutting a script", b);
	buf_puts(b, base_head);
	buf_puts(b, "\"");
	patho("a quote cutting a script", b);
	{
		Buf body = {0};
		buf_puts(&body, "x := ");
		buf_rep(&body, "9", 100000);
		buf_puts(&body, ";\nx := 1e99999;\nx := 0.");
		buf_rep(&body, "0", 100000);
		buf_puts(&body, "1;\nx := 1e-99999;\nc := 99999999999999999999.0 * 1e308;\n");
		patho_body("huge and tiny numbers", &body);
		buf_puts(&body, "var s := \"");
		buf_rep(&body, "\\\"", 50000);
		buf_puts(&body, "\";\n");
		patho_body("a string of 50000 escaped quotes", &body);
	}
}

static void robust__pathological_inputs__each_returns_and_reports(void **state)
{
	(void)state;
	Buf b = {0};
	patho_little(&b);
	patho_nesting(&b);
	patho_size(&b);
	patho_lexemes(&b);
	assert_group_clean(&g_patho);
}

/* ---- main ------------------------------------------------------------------------------ */

int main(void)
{
	const char *s = getenv("SACC_ROBUST_SCALE");
	const char *preload = getenv("LD_PRELOAD");
	if (s && *s)
		scale = strtod(s, NULL);
	else if (preload && strstr(preload, "vgpreload"))
		scale = 0.05; /* valgrind: about 50 times slower */
	if (!(scale > 0))
		scale = 1.0;
	const char *v = getenv("SACC_ROBUST_VERBOSE");
	verbose = v && *v && strcmp(v, "0") != 0;
	show = getenv("SACC_ROBUST_SHOW");
	snprintf(fmu_dir, sizeof fmu_dir, "%s/fmus", test_build_dir());
	snprintf(crash_path, sizeof crash_path, "%s/robust/crash.sa", test_build_dir());
	signal(SIGALRM, on_alarm);
#ifdef ROBUST_ASAN
	__sanitizer_set_death_callback(on_death);
#endif

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(robust__seed_prefixes__each_returns_and_reports),
		cmocka_unit_test(robust__seed_mutations__each_returns_and_reports),
		cmocka_unit_test(robust__random_bytes__each_returns_and_reports),
		cmocka_unit_test(robust__token_soup__each_returns_and_reports),
		cmocka_unit_test(robust__pathological_inputs__each_returns_and_reports),
	};
	clock_t t0 = clock();
	int failed = cmocka_run_group_tests(tests, load_seeds, free_seeds);

	const Group *groups[] = {&g_prefix, &g_mutation, &g_random, &g_soup, &g_patho};
	long cases = 0, accepted = 0, rejected = 0, silent = 0, roundtrip = 0;
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
		const Group *g = groups[i];
		printf("robust: %-12s %6ld cases, %5ld parsed, %5ld accepted, %6ld rejected, "
		       "%ld silent, %ld explicit forms rejected, %5.1f s\n",
		       g->name, g->cases, g->parsed, g->accepted, g->rejected, g->silent, g->roundtrip,
		       g->secs);
		cases += g->cases;
		accepted += g->accepted;
		rejected += g->rejected;
		silent += g->silent;
		roundtrip += g->roundtrip;
	}
	printf("robust: %ld cases (scale %g, seeds %d), %ld accepted, %ld rejected, %ld silent "
	       "failures, %ld explicit forms rejected, %.1f s CPU\n",
	       cases, scale, nseeds, accepted, rejected, silent, roundtrip,
	       (double)(clock() - t0) / CLOCKS_PER_SEC);
	return failed;
}
