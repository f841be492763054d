/* ssp_export.h — `sacc ssp export`: a scenario module (fmu declarations and connections)
 * written as an SSP archive (System Structure and Parameterization 1.0): the system
 * structure description SystemStructure.ssd, the FMUs under resources/, and the --set values
 * as a parameter set resources/parameters.ssv bound to the system.
 *
 * Pipeline position: load -> parse -> check (the scenario's connections and units) ->
 * *export*; it shares the zip writer with `sacc build` (package.h). */
#ifndef SACC_SSP_EXPORT_H
#define SACC_SSP_EXPORT_H

#include "driver.h"

typedef struct SspExportOptions {
	const char *out;             /* the archive to write */
	const char *const *sets;     /* INST.VAR=VALUE, nsets of them */
	int nsets;
	double start, stop;          /* the DefaultExperiment, NaN when not given */
} SspExportOptions;

/* Writes the scenario module at path as the archive o->out (replaced whole, never left
 * half-written).  Connectors are every scalar input, output and parameter of each FMU, with
 * the kind, type and unit its model description gives; each unit used is defined in the
 * SSD's Units with its base-unit exponents, factor and offset (the model description's
 * BaseUnit, else the unit system's).  Returns 0, or 1 after a report (file:line:col for
 * the scenario, "sacc ssp:" for the options). */
int ssp_export(Compilation *c, const char *path, const SspExportOptions *o);

#endif
