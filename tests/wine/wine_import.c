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

/* ---- FMI 2.0 ---------------------------------------------------------------------------- */

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st,
                    fmi2String cat, fmi2String msg, ...)
{
	(void)env;
	if (st > fmi2Warning) /* the expected warnings (Event Mode refused) are not news */
		fprintf(stderr, "[%s] %s (%s): %s\n", name, cat, st == fmi2Warning ? "warning" : "error", msg);
}

static void run2(const char *dir, const char *id, const char *in, const char *out, double h, int n)
{
	char path[4096], why[8192], guid[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	char *md = slurp(path);
	if (!attribute(md, "guid", guid, sizeof guid))
		die("%s: no guid", path);
	fmi2ValueReference vu = value_reference(md, in), vy = value_reference(md, out);
	int states = strstr(md, "canGetAndSetFMUstate=\"true\"") != NULL;
	snprintf(path, sizeof path, "%s/binaries/" PLATFORM2 "/%s" SUFFIX, dir, id);
	Fmi2Api a;
	if (fmi2_try_import(&a, path, FMI2_USES_CO_SIMULATION, why, sizeof why))
		die("%s", why);
	char *res = absolute(dir, 0);
	char uri[4200];
	snprintf(uri, sizeof uri, "file://%s%s/resources", res[0] == '/' ? "" : "/", res);
	fmi2CallbackFunctions cb = {logger2, calloc, free, NULL, NULL};
	fmi2Component c = a.instantiate("w", fmi2CoSimulation, guid, uri, &cb, fmi2False, fmi2False);
	if (!c)
		die("%s: fmi2Instantiate failed (resources %s)", dir, uri);
	if (a.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) > fmi2Warning ||
	    a.enter_init(c) > fmi2Warning || a.exit_init(c) > fmi2Warning)
		die("%s: initialization failed", dir);
	fmi2FMUstate mid = NULL;
	double ys[1024];
	for (int k = 0; k < n; k++) {
		if (states && k == n / 2 && a.get_state(c, &mid) > fmi2Warning)
			die("%s: fmi2GetFMUstate failed", dir);
		fmi2Real u = input_at(k), y;
		if (a.set_real(c, &vu, 1, &u) > fmi2Warning || a.do_step(c, k * h, h, fmi2True) > fmi2Warning ||
		    a.get_real(c, &vy, 1, &y) > fmi2Warning)
			die("%s: step %d failed", dir, k);
		ys[k] = y;
		printf("%s %d %a %a %.17g\n", id, k, (k + 1) * h, y, y);
	}
	if (mid) { /* the second half again from the state of its start: the same bits */
		if (a.set_state(c, mid) > fmi2Warning)
			die("%s: fmi2SetFMUstate failed", dir);
		for (int k = n / 2; k < n; k++) {
			fmi2Real u = input_at(k), y;
			if (a.set_real(c, &vu, 1, &u) > fmi2Warning ||
			    a.do_step(c, k * h, h, fmi2True) > fmi2Warning || a.get_real(c, &vy, 1, &y) > fmi2Warning)
				die("%s: step %d after the restore failed", dir, k);
			if (memcmp(&y, &ys[k], sizeof y) != 0)
				die("%s: step %d after the restore gives %a, not %a", dir, k, y, ys[k]);
		}
		a.free_state(c, &mid);
	}
	a.terminate(c);
	a.free_instance(c);
	fmi2_unimport(&a);
	free(res);
	free(md);
}

/* ---- FMI 3.0 ---------------------------------------------------------------------------- */

static void logger3(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg)
{
	(void)env;
	if (st > fmi3Warning)
		fprintf(stderr, "%s (%s): %s\n", cat, st == fmi3Warning ? "warning" : "error", msg);
}

static void run3(const char *dir, const char *id, const char *in, const char *out, double h, int n)
{
	char path[4096], why[8192], token[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	char *md = slurp(path);
	if (!attribute(md, "instantiationToken", token, sizeof token))
		die("%s: no instantiationToken", path);
	fmi3ValueReference vu = value_reference(md, in), vy = value_reference(md, out);
	int states = strstr(md, "canGetAndSetFMUState=\"true\"") != NULL;
	snprintf(path, sizeof path, "%s/binaries/" PLATFORM3 "/%s" SUFFIX, dir, id);
	Fmi3Api a;
	if (fmi3_try_import(&a, path, why, sizeof why))
		die("%s", why);
	char res[4200];
	char *abs = absolute(dir, 0);
	snprintf(res, sizeof res, "%s/resources/", abs);
	fmi3Instance c = a.instantiate("w", token, res, fmi3False, fmi3False, fmi3False, fmi3False,
	                               NULL, 0, NULL, logger3, NULL);
	if (!c)
		die("%s: fmi3InstantiateCoSimulation failed (resources %s)", dir, res);
	if (a.enter_init(c, fmi3False, 0.0, 0.0, fmi3False, 0.0) > fmi3Warning ||
	    a.exit_init(c) > fmi3Warning)
		die("%s: initialization failed", dir);
	fmi3FMUState mid = NULL;
	double ys[1024];
	fmi3Boolean ev, term, early;
	fmi3Float64 last;
	for (int k = 0; k < n; k++) {
		if (states && k == n / 2 && a.get_state(c, &mid) > fmi3Warning)
			die("%s: fmi3GetFMUState failed", dir);
		fmi3Float64 u = input_at(k), y;
		if (a.set_float64(c, &vu, 1, &u, 1) > fmi3Warning ||
		    a.do_step(c, k * h, h, fmi3True, &ev, &term, &early, &last) > fmi3Warning ||
		    a.get_float64(c, &vy, 1, &y, 1) > fmi3Warning)
			die("%s: step %d failed", dir, k);
		ys[k] = y;
		printf("%s %d %a %a %.17g\n", id, k, (k + 1) * h, y, y);
	}
	if (mid) {
		if (a.set_state(c, mid) > fmi3Warning)
			die("%s: fmi3SetFMUState failed", dir);
		for (int k = n / 2; k < n; k++) {
			fmi3Float64 u = input_at(k), y;
			if (a.set_float64(c, &vu, 1, &u, 1) > fmi3Warning ||
			    a.do_step(c, k * h, h, fmi3True, &ev, &term, &early, &last) > fmi3Warning ||
			    a.get_float64(c, &vy, 1, &y, 1) > fmi3Warning)
				die("%s: step %d after the restore failed", dir, k);
			if (memcmp(&y, &ys[k], sizeof y) != 0)
				die("%s: step %d after the restore gives %a, not %a", dir, k, y, ys[k]);
		}
		a.free_state(c, &mid);
	}
	a.terminate(c);
	a.free_instance(c);
	fmi3_unimport(&a);
	free(abs);
	free(md);
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
