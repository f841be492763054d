/* fuzz_check.c — libFuzzer entry point: the input as an adaptation script, through parse,
 * check and explicit, as `sacc explicit -L FMUS` would run it.
 *
 * Each input gets a fresh Compilation.  Inner FMUs are found through -L SACC_FUZZ_FMUS
 * (default build/fmus), and the script is named as if it sat in SACC_FUZZ_DIR (default
 * adaptations/powerwindow), so that imports of the project's modules resolve.  Besides
 * crashes, hangs and leaks, two wrong outcomes abort so that libFuzzer keeps the input:
 *   - a run that fails without reporting an error through the sink (a silent failure);
 *   - an accepted script whose printed explicit form is not itself accepted.
 * tests/fuzz/run.sh builds and runs this. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fmu_dir = "build/fmus";
static char name[1024];
/* Loaded once: reading the UDUNITS-2 database costs more than most inputs.  It is only
 * read; each compilation borrows it and hands it back before drv_free. */
static UnitSystem *units;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *f = getenv("SACC_FUZZ_FMUS");
	const char *d = getenv("SACC_FUZZ_DIR");
	if (f && *f)
		fmu_dir = f;
	snprintf(name, sizeof name, "%s/fuzz_input.sa", d && *d ? d : "adaptations/powerwindow");
	const char *why = NULL;
	units = units_open(&why);
	if (!units) {
		fprintf(stderr, "fuzz_check: cannot load UDUNITS-2: %s\n", why ? why : "?");
		exit(1);
	}
	return 0;
}

/* Runs text through the pipeline; true when accepted.  *printed (malloc'd) receives the
 * explicit form of an accepted script. */
static bool compile(const char *text, size_t len, char **printed)
{
	char *diag = NULL;
	size_t dlen = 0;
	FILE *out = open_memstream(&diag, &dlen);
	if (!out)
		abort();
	Compilation *c = drv_new(out);
	c->units = units;
	drv_add_fmu_dir(c, fmu_dir);
	Module *m = drv_load_text(c, name, text, len);
	int rc = 1;
	StrBuf sb;
	sb_init(&sb);
	if (m) {
		if (m->root)
			ast_print_file(&sb, m->root);
		rc = drv_check(c, m);
		if (rc == 0)
			rc = drv_explicit(c, m, NULL);
	}
	bool accepted = m && rc == 0 && diag_errors(c->diag) == 0;
	if (accepted && printed) {
		sb_free(&sb);
		sb_init(&sb);
		ast_print_file(&sb, m->root);
		*printed = strdup(sb_str(&sb));
	}
	sb_free(&sb);
	c->units = NULL;
	drv_free(c);
	fclose(out);
	if (rc != 0 && !(diag && strstr(diag, "error: "))) {
		fprintf(stderr, "fuzz_check: the run failed (%d) without reporting an error:\n%s\n", rc,
			diag ? diag : "");
		abort();
	}
	free(diag);
	return accepted;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *printed = NULL;
	if (compile((const char *)data, size, &printed) && printed) {
		if (!compile(printed, strlen(printed), NULL)) {
			fprintf(stderr, "fuzz_check: the explicit form of an accepted script is "
					"rejected:\n%s\n", printed);
			abort();
		}
	}
	free(printed);
	return 0;
}
