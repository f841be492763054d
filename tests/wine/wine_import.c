/* wine_import.c — the suite's strict FMI 2.0 and 3.0 importers (tests/unit/fmi2_importer.h,
 * fmi3_importer.h) as one program, built twice by tests/wine/run.sh: for Linux with gcc and
 * for Windows with mingw-w64, the latter run under Wine.  Both step the same unpacked FMUs,
 * each through the library of its own platform (binaries/linux64 or binaries/win64, or the
 * FMI 3.0 names), and print every output as a hexadecimal float: run.sh compares the two
 * runs' text.
 *
 *   wine_import H N FMU_DIR VERSION ID INPUT OUTPUT [FMU_DIR VERSION ID INPUT OUTPUT]...
 *
 * Several FMUs per run, since starting Wine costs seconds.  Each one is instantiated with
 * its resources' absolute location, initialized at t = 0, then stepped N times by H with
 * its Real (Float64) input INPUT set to u_k = 0.25 k - 0.01 k^2 before step k (arithmetic
 * only, so both platforms feed the same bits), and OUTPUT read after each step; after the
 * steps the FMU state of step N/2 is restored (when the FMU can) and the second half stepped
 * again, which must repeat the same numbers.  Prints "ID k t y y" per step, t and y as
 * hexadecimal floats (bit for bit), y again as %.17g (exact, for awk's arithmetic).  Exit status
 * 1 and a message on the first failing call. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fmi2_import and fmi3_import fail a cmocka test; this program has none. */
#define fail_msg(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), exit(1))

#include "fmi2_importer.h"
#include "fmi3_importer.h"

#ifdef _WIN32
#define PLATFORM2 "win64"
#define PLATFORM3 "x86_64-windows"
#define SUFFIX ".dll"
#else
#define PLATFORM2 "linux64"
#define PLATFORM3 "x86_64-linux"
#define SUFFIX ".so"
#endif

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("wine_import: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* The whole of a text file (the model description), or exit. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		die("cannot read %s", path);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* The value of attribute attr="..." at or after p, copied into buf. */
static const char *attribute(const char *p, const char *attr, char *buf, size_t size)
{
	char key[64];
	snprintf(key, sizeof key, " %s=\"", attr);
	const char *a = strstr(p, key);
	if (!a)
		return NULL;
	a += strlen(key);
	const char *e = strchr(a, '"');
	if (!e || (size_t)(e - a) >= size)
		return NULL;
	memcpy(buf, a, (size_t)(e - a));
	buf[e - a] = '\0';
	return buf;
}

/* The value reference of the variable called name. */
static unsigned value_reference(const char *md, const char *name)
{
	char key[256], buf[32];
	snprintf(key, sizeof key, "name=\"%s\"", name);
	const char *v = strstr(md, key);
	if (!v || !attribute(v - 1, "valueReference", buf, sizeof buf))
		die("no variable '%s' in the model description", name);
	return (unsigned)strtoul(buf, NULL, 10);
}

/* dir made absolute, with '/' separators, and a trailing '/' when slash is set. */
static char *absolute(const char *dir, int slash)
{
	char *abs;
#ifdef _WIN32
	abs = _fullpath(NULL, dir, 0);
	for (char *p = abs; p && *p; p++)
		if (*p == '\\')
			*p = '/';
#else
	abs = realpath(dir, NULL);
#endif
	if (!abs)
		die("cannot resolve %s", dir);
	char *out = malloc(strlen(abs) + 2);
	sprintf(out, "%s%s", abs, slash ? "/" : "");
	free(abs);
	return out;
}

static double input_at(int k)
{
	return 0.25 * k - 0.01 * k * k;
}

/* What both importers read from an FMU's model description before they load it. */
typedef struct Fmu {
	char *md;             /* the model description's text */
	char token[128];      /* its guid (FMI 2.0) or instantiationToken (FMI 3.0) */
	unsigned vu, vy;      /* the input's and the output's value references */
	int states;           /* whether it can get and set its state */
	char lib[4096];       /* its library for this platform */
} Fmu;

static void read_fmu(Fmu *f, const char *dir, int version, const char *id, const char *in,
                     const char *out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	f->md = slurp(path);
	const char *token = version == 3 ? "instantiationToken" : "guid";
	if (!attribute(f->md, token, f->token, sizeof f->token))
		die("%s: no %s", path, token);
	f->vu = value_reference(f->md, in);
	f->vy = value_reference(f->md, out);
	f->states = strstr(f->md, version == 3 ? "canGetAndSetFMUState=\"true\""
	                                       : "canGetAndSetFMUstate=\"true\"") != NULL;
	snprintf(f->lib, sizeof f->lib, "%s/binaries/%s/%s" SUFFIX, dir,
	         version == 3 ? PLATFORM3 : PLATFORM2, id);
}

/* One FMU instance as the stepping loop sees it, whatever its FMI version: each function
 * returns 0 on success. */
typedef struct Stepper {
	const char *dir, *id;
	void *ctx;
	int (*step)(void *ctx, int k, double h, double *y); /* input u_k, step k, output */
	int (*save)(void *ctx);                             /* get the FMU state */
	int (*restore)(void *ctx);                          /* set it back */
} Stepper;

/* N steps of H, printing each output; with save set, the state of step N/2 restored after
 * the last step and the second half stepped again, which must give the same bits. */
static void run_steps(const Stepper *s, double h, int n)
{
	double ys[1024];
	for (int k = 0; k < n; k++) {
		if (s->save && k == n / 2 && s->save(s->ctx))
			die("%s: getting the FMU state failed", s->dir);
		if (s->step(s->ctx, k, h, &ys[k]))
			die("%s: step %d failed", s->dir, k);
		printf("%s %d %a %a %.17g\n", s->id, k, (k + 1) * h, ys[k], ys[k]);
	}
	if (!s->save)
		return;
	if (s->restore(s->ctx))
		die("%s: setting the FMU state failed", s->dir);
	for (int k = n / 2; k < n; k++) {
		double y;
		if (s->step(s->ctx, k, h, &y))
			die("%s: step %d after the restore failed", s->dir, k);
		if (memcmp(&y, &ys[k], sizeof y) != 0)
			die("%s: step %d after the restore gives %a, not %a", s->dir, k, y, ys[k]);
	}
}

/* ---- FMI 2.0 ---------------------------------------------------------------------------- */

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st,
                    fmi2String cat, fmi2String msg, ...)
{
	(void)env;
	if (st > fmi2Warning) /* the expected warnings (Event Mode refused) are not news */
		fprintf(stderr, "[%s] %s (%s): %s\n", name, cat, st == fmi2Warning ? "warning" : "error", msg);
}

typedef struct Fmi2Run {
	Fmi2Api *a;
	fmi2Component c;
	fmi2ValueReference vu, vy;
	fmi2FMUstate mid;
} Fmi2Run;

static int step2(void *ctx, int k, double h, double *y)
{
	Fmi2Run *r = ctx;
	fmi2Real u = input_at(k);
	return r->a->set_real(r->c, &r->vu, 1, &u) > fmi2Warning ||
	       r->a->do_step(r->c, k * h, h, fmi2True) > fmi2Warning ||
	       r->a->get_real(r->c, &r->vy, 1, y) > fmi2Warning;
}

static int save2(void *ctx)
{
	Fmi2Run *r = ctx;
	return r->a->get_state(r->c, &r->mid) > fmi2Warning;
}

static int restore2(void *ctx)
{
	Fmi2Run *r = ctx;
	return r->a->set_state(r->c, r->mid) > fmi2Warning;
}

static void run2(const char *dir, const char *id, const char *in, const char *out, double h, int n)
{
	char why[8192];
	Fmu f;
	read_fmu(&f, dir, 2, id, in, out);
	Fmi2Api a;
	if (fmi2_try_import(&a, f.lib, FMI2_USES_CO_SIMULATION, why, sizeof why))
		die("%s", why);
	char *res = absolute(dir, 0);
	char uri[4200];
	snprintf(uri, sizeof uri, "file://%s%s/resources", res[0] == '/' ? "" : "/", res);
	fmi2CallbackFunctions cb = {logger2, calloc, free, NULL, NULL};
	fmi2Component c = a.instantiate("w", fmi2CoSimulation, f.token, uri, &cb, fmi2False, fmi2False);
	if (!c)
		die("%s: fmi2Instantiate failed (resources %s)", dir, uri);
	if (a.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) > fmi2Warning ||
	    a.enter_init(c) > fmi2Warning || a.exit_init(c) > fmi2Warning)
		die("%s: initialization failed", dir);
	Fmi2Run r = {&a, c, f.vu, f.vy, NULL};
	Stepper st = {dir, id, &r, step2, f.states ? save2 : NULL, restore2};
	run_steps(&st, h, n);
	if (r.mid)
		a.free_state(c, &r.mid);
	a.terminate(c);
	a.free_instance(c);
	fmi2_unimport(&a);
	free(res);
	free(f.md);
}

/* ---- FMI 3.0 ---------------------------------------------------------------------------- */

static void logger3(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg)
{
	(void)env;
	if (st > fmi3Warning)
		fprintf(stderr, "%s (%s): %s\n", cat, st == fmi3Warning ? "warning" : "error", msg);
}

typedef struct Fmi3Run {
	Fmi3Api *a;
	fmi3Instance c;
	fmi3ValueReference vu, vy;
	fmi3FMUState mid;
} Fmi3Run;

static int step3(void *ctx, int k, double h, double *y)
{
	Fmi3Run *r = ctx;
	fmi3Float64 u = input_at(k);
	fmi3Boolean ev, term, early;
	fmi3Float64 last;
	return r->a->set_float64(r->c, &r->vu, 1, &u, 1) > fmi3Warning ||
	       r->a->do_step(r->c, k * h, h, fmi3True, &ev, &term, &early, &last) > fmi3Warning ||
	       r->a->get_float64(r->c, &r->vy, 1, y, 1) > fmi3Warning;
}

static int save3(void *ctx)
{
	Fmi3Run *r = ctx;
	return r->a->get_state(r->c, &r->mid) > fmi3Warning;
}

static int restore3(void *ctx)
{
	Fmi3Run *r = ctx;
	return r->a->set_state(r->c, r->mid) > fmi3Warning;
}

static void run3(const char *dir, const char *id, const char *in, const char *out, double h, int n)
{
	char why[8192];
	Fmu f;
	read_fmu(&f, dir, 3, id, in, out);
	Fmi3Api a;
	if (fmi3_try_import(&a, f.lib, why, sizeof why))
		die("%s", why);
	char res[4200];
	char *abs = absolute(dir, 0);
	snprintf(res, sizeof res, "%s/resources/", abs);
	fmi3Instance c = a.instantiate("w", f.token, res, fmi3False, fmi3False, fmi3False, fmi3False,
	                               NULL, 0, NULL, logger3, NULL);
	if (!c)
		die("%s: fmi3InstantiateCoSimulation failed (resources %s)", dir, res);
	if (a.enter_init(c, fmi3False, 0.0, 0.0, fmi3False, 0.0) > fmi3Warning ||
	    a.exit_init(c) > fmi3Warning)
		die("%s: initialization failed", dir);
	Fmi3Run r = {&a, c, f.vu, f.vy, NULL};
	Stepper st = {dir, id, &r, step3, f.states ? save3 : NULL, restore3};
	run_steps(&st, h, n);
	if (r.mid)
		a.free_state(c, &r.mid);
	a.terminate(c);
	a.free_instance(c);
	fmi3_unimport(&a);
	free(abs);
	free(f.md);
}

int main(int argc, char **argv)
{
	if (argc < 8 || (argc - 3) % 5 != 0)
		die("usage: wine_import H N FMU_DIR VERSION ID INPUT OUTPUT [...]");
	double h = strtod(argv[1], NULL);
	int n = atoi(argv[2]);
	if (n < 2 || n > 1024)
		die("N must be from 2 to 1024");
	for (int i = 3; i < argc; i += 5) {
		if (strcmp(argv[i + 1], "3") == 0)
			run3(argv[i], argv[i + 2], argv[i + 3], argv[i + 4], h, n);
		else
			run2(argv[i], argv[i + 2], argv[i + 3], argv[i + 4], h, n);
	}
	return 0;
}
