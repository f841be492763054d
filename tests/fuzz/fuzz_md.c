/* fuzz_md.c — libFuzzer entry point: the input as a modelDescription.xml, through
 * fmu_parse_md (compiler/check/fmu_read.c) and both `sacc inspect` printers.
 *
 * Besides crashes, hangs and leaks, a description that is refused without an error in the
 * sink aborts, so that libFuzzer keeps it.  tests/fuzz/run.sh builds and runs this. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *diag = NULL, *shown = NULL;
	size_t dlen = 0, slen = 0;
	FILE *out = open_memstream(&diag, &dlen);
	FILE *print = open_memstream(&shown, &slen);
	if (!out || !print)
		abort();
	DiagSink *d = diag_new(out);
	FmuInfo *f = fmu_parse_md((const char *)data, size, "fuzz.xml", d);
	if (f) {
		fmu_print_table(print, f);
		fmu_print_json(print, f);
		fmu_free(f);
	}
	diag_free(d);
	fclose(out);
	fclose(print);
	if (!f && !(diag && strstr(diag, "error: "))) {
		fprintf(stderr, "fuzz_md: refused without reporting an error:\n%s\n", diag ? diag : "");
		abort();
	}
	free(diag);
	free(shown);
	return 0;
}
