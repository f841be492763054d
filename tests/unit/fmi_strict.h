/* fmi_strict.h — the check the strict importers make before they instantiate an FMU, and so
 * the suite's importers too (fmi2_importer.h, fmi3_importer.h, the benchmark drivers): that
 * its library exports every function the standard declares for the interfaces in use.
 * fmusim (Reference-FMUs) and FMPy look these up when they load the library and give up on
 * the first one missing; an FMU that exports only what it implements cannot be loaded by
 * them, so no test may load it either.
 *
 *   FMI 3.0: every function, of every interface, whichever the FMU implements.
 *   FMI 2.0: the common functions, and those of each interface the importer uses
 *            (Co-Simulation for sacc's wrappers and test FMUs; Model Exchange as well when
 *            the importer uses that).
 *
 * The names come from the project's headers (FMI2_*_FUNCTIONS in fmi2Functions.h,
 * FMI3_FUNCTIONS in fmi3Functions.h), never from a list of this file's own.  Include either
 * header, or both, before this one (each section below is made once the header before it
 * was included, so this one may be included again after the other); plain C, no cmocka;
 * link with -ldl. */
#ifndef FMI_STRICT_H
#define FMI_STRICT_H

#include <dlfcn.h>
#include <stddef.h>

/* The first of names[0..n) that lib does not export, or NULL when it exports them all. */
static inline const char *fmi_first_missing(void *lib, const char *const names[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!dlsym(lib, names[i]))
			return names[i];
	return NULL;
}
#endif

#if defined(FMI2_FUNCTIONS) && !defined(FMI_STRICT_FMI2)
#define FMI_STRICT_FMI2
#define FMI_STRICT_NAME2(Name) "fmi2" #Name,
static const char *const fmi2_common_names[] = {FMI2_COMMON_FUNCTIONS(FMI_STRICT_NAME2)};
static const char *const fmi2_me_names[] = {FMI2_MODEL_EXCHANGE_FUNCTIONS(FMI_STRICT_NAME2)};
static const char *const fmi2_cs_names[] = {FMI2_CO_SIMULATION_FUNCTIONS(FMI_STRICT_NAME2)};
#undef FMI_STRICT_NAME2

/* Which FMI 2.0 interfaces an importer uses (bits of fmi2_missing_function's argument). */
enum { FMI2_USES_CO_SIMULATION = 1, FMI2_USES_MODEL_EXCHANGE = 2 };

/* The first FMI 2.0 function an importer using `interfaces` needs that lib lacks, or NULL. */
static inline const char *fmi2_missing_function(void *lib, int interfaces)
{
	const char *m = fmi_first_missing(lib, fmi2_common_names,
	                                  sizeof fmi2_common_names / sizeof *fmi2_common_names);
	if (!m && (interfaces & FMI2_USES_CO_SIMULATION))
		m = fmi_first_missing(lib, fmi2_cs_names, sizeof fmi2_cs_names / sizeof *fmi2_cs_names);
	if (!m && (interfaces & FMI2_USES_MODEL_EXCHANGE))
		m = fmi_first_missing(lib, fmi2_me_names, sizeof fmi2_me_names / sizeof *fmi2_me_names);
	return m;
}
#endif

#if defined(FMI3_FUNCTIONS) && !defined(FMI_STRICT_FMI3)
#define FMI_STRICT_FMI3
#define FMI_STRICT_NAME3(Name) "fmi3" #Name,
static const char *const fmi3_all_names[] = {FMI3_FUNCTIONS(FMI_STRICT_NAME3)};
#undef FMI_STRICT_NAME3

/* The first FMI 3.0 function lib lacks, or NULL: an importer needs them all. */
static inline const char *fmi3_missing_function(void *lib)
{
	return fmi_first_missing(lib, fmi3_all_names, sizeof fmi3_all_names / sizeof *fmi3_all_names);
}
#endif
