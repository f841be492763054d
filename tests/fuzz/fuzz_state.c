/* fuzz_state.c — libFuzzer entry point: the input as a serialized FMU state of a wrapper FMU,
 * through fmi2DeSerializeFMUstate (runtime/sart_state.c) and, when it is accepted, through
 * fmi2SetFMUstate, the outputs and one fmi2DoStep.  docs/fmu.md: "Serialized states are versioned
 * and checked on load (wrong size or foreign data is an error, never a crash)".
 *
 * The wrapper is the hand-written window_sa (tests/e2e/manual/window_sa.c, the shape sacc
 * emits) compiled with the runtime into this program; its inner FMU is the test FMU window,
 * loaded from $SACC_FUZZ_WSA_RESOURCES (the resources/ directory of the e2e-manual build).
 *
 * The first input byte is a control byte; the state is the rest.  Bit 0 set: the harness
 * writes the right FNV-1a checksum into the header before loading, so that the fuzzer gets
 * past the checksum to the body and the inner FMUs' parts (a checksum of random bytes never
 * matches, which is what it is for, and would hide everything behind it).
 *
 * SACC_FUZZ_WRITE_SEEDS=DIR: instead of fuzzing, write seeds (serialized states at several
 * times, both control bytes) into DIR and exit; tests/fuzz/run.sh does this once per run. */
#define _DEFAULT_SOURCE /* realpath, PATH_MAX */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#define WSA_GUID "{00000000-0000-5000-8000-000000000000}"
#define SER_HEADER 48
#define SUM_OFFSET 40

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fmi2Component inst;
static fmi2FMUstate baseline;

/* Errors are the point of most inputs: the logger drops messages, but formats nothing
 * itself, so the wrapper's own formatting still runs. */
static void quiet_logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                         fmi2String category, fmi2String message, ...)
{
	(void)env, (void)name, (void)status, (void)category, (void)message;
}

static const fmi2CallbackFunctions callbacks = {quiet_logger, NULL, NULL, NULL, NULL};

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 14695981039346656037u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz_state: %s\n", what);
	exit(1);
}

/* file:// + the absolute path, percent-encoding what a URI path may not carry. */
static void resource_uri(char *uri, size_t size)
{
	const char *dir = getenv("SACC_FUZZ_WSA_RESOURCES");
	char abs[PATH_MAX];
	if (!dir || !realpath(dir, abs))
		die("set SACC_FUZZ_WSA_RESOURCES to $BUILD/e2e-manual/window_sa/resources");
	size_t j = (size_t)snprintf(uri, size, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p && j + 4 < size; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			uri[j++] = (char)*p;
		else
			j += (size_t)snprintf(uri + j, size - j, "%%%02X", *p);
	}
	uri[j] = '\0';
}

static void write_seed(const char *dir, const char *name, unsigned char control,
                       fmi2FMUstate s)
{
	size_t n = 0;
	if (fmi2SerializedFMUstateSize(inst, s, &n) != fmi2OK)
		die("cannot size a state");
	unsigned char *buf = malloc(n + 1);
	if (!buf)
		die("out of memory");
	buf[0] = control;
	if (fmi2SerializeFMUstate(inst, s, (fmi2Byte *)buf + 1, n) != fmi2OK)
		die("cannot serialize a state");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s-%u", dir, name, (unsigned)control);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n + 1, f) != n + 1 || fclose(f) != 0)
		die("cannot write a seed");
	free(buf);
}

/* States at t = 0, after a step with the window going up, and after one against a force. */
static void write_seeds(const char *dir)
{
	const fmi2ValueReference in[] = {0, 1, 2};
	fmi2Real up[] = {0.0, 1.0, 0.0}, push[] = {0.5, -1.0, 100.0};
	fmi2FMUstate s = NULL;
	double t = 0.0;
	const char *names[] = {"t0", "up", "push"};
	for (int k = 0; k < 3; k++) {
		if (k > 0) {
			if (fmi2SetReal(inst, in, 3, k == 1 ? up : push) != fmi2OK ||
			    fmi2DoStep(inst, t, 0.01, fmi2True) != fmi2OK)
				die("cannot step the wrapper");
			t += 0.01;
		}
		if (fmi2GetFMUstate(inst, &s) != fmi2OK)
			die("cannot get a state");
		write_seed(dir, names[k], 0, s);
		write_seed(dir, names[k], 1, s);
	}
	fmi2FreeFMUstate(inst, &s);
	fmi2FreeInstance(inst);
	exit(0);
}

static char uri[PATH_MAX * 3 + 16];

/* A fresh instance, initialized at t = 0. */
static void start(void)
{
	inst = fmi2Instantiate("fuzz", fmi2CoSimulation, WSA_GUID, uri, &callbacks, fmi2False,
	                       fmi2False);
	if (!inst)
		die("cannot instantiate the window_sa wrapper");
	if (fmi2SetupExperiment(inst, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK ||
	    fmi2EnterInitializationMode(inst) != fmi2OK || fmi2ExitInitializationMode(inst) != fmi2OK)
		die("cannot initialize the window_sa wrapper");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	resource_uri(uri, sizeof uri);
	start();
	const char *seeds = getenv("SACC_FUZZ_WRITE_SEEDS");
	if (seeds && *seeds)
		write_seeds(seeds);
	if (fmi2GetFMUstate(inst, &baseline) != fmi2OK)
		die("cannot get the baseline state");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned char control = data[0];
	size_t n = size - 1;
	/* a copy of exactly the state's bytes, so that ASan sees any read past them */
	unsigned char *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	if ((control & 1) && n >= SER_HEADER) {
		uint64_t sum = fnv(buf + SER_HEADER, n - SER_HEADER);
		memcpy(buf + SUM_OFFSET, &sum, sizeof sum);
	}
	/* every input starts from the same instance state; an instance that an input left
	 * in error (an inner FMU refused its part) is replaced */
	if (fmi2SetFMUstate(inst, baseline) != fmi2OK) {
		fmi2FreeFMUstate(inst, &baseline);
		fmi2FreeInstance(inst);
		start();
		if (fmi2GetFMUstate(inst, &baseline) != fmi2OK)
			die("cannot get the baseline state");
	}
	fmi2FMUstate s = NULL;
	if (fmi2DeSerializeFMUstate(inst, (const fmi2Byte *)buf, n, &s) == fmi2OK) {
		if (!s)
			die("fmi2DeSerializeFMUstate returned fmi2OK and no state");
		if (fmi2SetFMUstate(inst, s) == fmi2OK) {
			const fmi2ValueReference out[] = {3, 4};
			fmi2Real v[2];
			fmi2Real now = 0.0;
			fmi2GetReal(inst, out, 2, v);
			if (fmi2GetRealStatus(inst, fmi2LastSuccessfulTime, &now) != fmi2OK)
				now = 0.0;
			fmi2DoStep(inst, now, 0.01, fmi2True);
			fmi2GetReal(inst, out, 2, v);
			/* a state the wrapper accepted serializes again */
			size_t again = 0;
			if (fmi2SerializedFMUstateSize(inst, s, &again) == fmi2OK && again != n)
				die("a loaded state serializes to another size");
		}
		fmi2FreeFMUstate(inst, &s);
	}
	free(buf);
	return 0;
}
