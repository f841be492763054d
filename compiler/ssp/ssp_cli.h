/* ssp_cli.h — `sacc ssp SUBCOMMAND`: the arguments every subcommand parses into and the
 * table of subcommands (ssp_cli.c).  A subcommand is one SspSubcommand row and its
 * handler; its options are rows of ssp_options with the CMD_SSP bit, and the handler
 * refuses those that are not its own (ssp_refuse_options). */
#ifndef SACC_SSP_CLI_H
#define SACC_SSP_CLI_H

#include <stdbool.h>

#include "cli.h"
#include "driver.h"

typedef struct SspArgs {
	const char *out;      /* -o: import's DIR, export's FILE.ssp */
	CliList sets;         /* --set INST.VAR=VALUE (export) */
	double start, stop;   /* export's --start, --stop; NaN when not given */
	const char **operands; /* after the subcommand's name */
	int noperands;
} SspArgs;

typedef struct SspSubcommand {
	const char *name;
	/* Runs it; returns the exit status (0, 1 failed, 2 usage error). */
	int (*run)(Compilation *c, SspArgs *a);
	const char *operands; /* "SYSTEM.ssp|SYSTEM.ssd" */
	const char *summary;
} SspSubcommand;

extern const SspSubcommand ssp_subcommands[]; /* ends with a {NULL} row */
extern const CliOption ssp_options[];

/* The handlers (ssp_import.c; export is another file's). */
int ssp_import_main(Compilation *c, SspArgs *a);
int ssp_export_main(Compilation *c, SspArgs *a); /* ssp_export.c */

#endif
