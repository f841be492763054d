/* census — n = how many instances of this library had been initialized when this one was
 * (itself included): a counter in the library, so that a test sees whether two instances
 * share one loaded library (the second says 2) or each have their own (each says 1).
 * `sacc simulate` loads one library for all the instances of an FMU file; tests/fmus/once
 * is this model declaring canBeInstantiatedOnlyOncePerProcess, which gets a copy each.
 * Instances are initialized on the importer's calling thread, so the counter needs no
 * lock. */
#include <stddef.h>

#include "fmu_kit.h"

#ifndef CENSUS_IDENTIFIER
#define CENSUS_IDENTIFIER "census"
#define CENSUS_GUID "{0c5e9a71-4b2d-4e8f-a3c6-7d1e2f9b8a40}"
#endif

enum { VR_N = 0 };

typedef struct Census {
	fmi2Real n;
} Census;

static const Census start = {0.0};

static const KitVar vars[] = {
	{"n", VR_N, KIT_REAL, KIT_OUTPUT, offsetof(Census, n)},
};

/* The library's count: the one piece of state its instances share. */
static int initialized;

static fmi2Status calculate(KitInstance *k, void *state)
{
	(void)k;
	(void)state;
	return fmi2OK;
}

static fmi2Status initialize(KitInstance *k, void *state)
{
	Census *s = state;
	(void)k;
	s->n = ++initialized;
	return fmi2OK;
}

const KitModel kit_model = {
	CENSUS_IDENTIFIER,
	CENSUS_GUID,
	sizeof(Census),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	initialize,
	NULL,
};
