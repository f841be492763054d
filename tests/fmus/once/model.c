/* once — tests/fmus/census under another identifier, its description declaring
 * canBeInstantiatedOnlyOncePerProcess="true": `sacc simulate` gives each instance a copy
 * of the library of its own, so each says n = 1. */
#define CENSUS_IDENTIFIER "once"
#define CENSUS_GUID "{5d2f8b10-93c4-4a6e-b7d1-e0a4c2f63b95}"
#include "../census/model.c"
