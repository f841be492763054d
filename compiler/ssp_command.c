/* ssp_command.c — `sacc ssp SUBCOMMAND`: SSP archives in and out of sacc's own forms.  The
 * first operand names the subcommand (a row of `subcommands`); the options are one table,
 * each row saying which subcommands take it. */
#include "commands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "ssp_export.h"

typedef struct SspArgs {
	const char *out;   /* -o */
	CliList sets;      /* --set INST.VAR=VALUE */
	double start, stop;
} SspArgs;

#define AT(f) offsetof(SspArgs, f)
const CliOption ssp_options[] = {
	{"-o", CLI_VALUE, "FILE", cli_set_string, AT(out), CMD_SSP, CLI_REQUIRED | CLI_FILE,
	 "export: the archive to write (SYSTEM.ssp)", NULL},
	{"--set", CLI_VALUE, "INST.VAR=VALUE", cli_add_string, AT(sets), CMD_SSP, CLI_REPEAT,
	 "export: a parameter (or input start) value, written to resources/parameters.ssv and "
	 "bound to the system", NULL},
	{"--start", CLI_VALUE, "T0", cli_set_finite, AT(start), CMD_SSP, 0,
	 "export: the DefaultExperiment's start time", NULL},
	{"--stop", CLI_VALUE, "T1", cli_set_finite, AT(stop), CMD_SSP, 0,
	 "export: the DefaultExperiment's stop time", NULL},
	CLI_OPTION_INCLUDE(CMD_SSP),
	CLI_OPTION_FMU_DIR(CMD_SSP),
	{NULL, CLI_FLAG, NULL, NULL, 0, 0, 0, NULL, NULL},
};
#undef AT

static int ssp_export_main(Compilation *c, const SspArgs *a, const char **files, int nfiles)
{
	if (nfiles != 1)
		return cli_usage_error("export: expected one scenario module");
	SspExportOptions o = {a->out, a->sets.items, a->sets.n, a->start, a->stop};
	return ssp_export(c, files[0], &o);
}

typedef struct SspSubcommand {
	const char *name;
	int (*run)(Compilation *c, const SspArgs *a, const char **files, int nfiles);
} SspSubcommand;

static const SspSubcommand subcommands[] = {
	{"export", ssp_export_main},
	{NULL, NULL},
};

int cmd_ssp(const CliCommand *cmd, int argc, char **argv)
{
	SspArgs a = {.start = NAN, .stop = NAN};
	Compilation *c = drv_new(stderr);
	const char **files = calloc((size_t)argc + 1, sizeof *files);
	int nfiles = 0, rc = 1;
	if (!c || !files) {
		cli_error("out of memory");
		goto done;
	}
	diag_set_prog(c->diag, cli_prog());
	rc = cli_parse(cmd, c, &a, argc, argv, files, &nfiles);
	if (rc < 0)
		rc = 0; /* --help */
	if (rc != 0 || (rc = 2, nfiles == 0 && cli_usage_error("expected a subcommand: "
	                                                      "export")))
		goto done;
	const char *names[8];
	int n = 0;
	for (const SspSubcommand *s = subcommands; s->name; s++) {
		names[n++] = s->name;
		if (strcmp(s->name, files[0]) == 0) {
			rc = s->run(c, &a, files + 1, nfiles - 1);
			goto done;
		}
	}
	const char *near = cli_suggest(files[0], names, n);
	rc = near ? cli_usage_error("unknown subcommand '%s'; did you mean '%s'?", files[0], near)
	          : cli_usage_error("unknown subcommand '%s' (the subcommands: export)", files[0]);
done:
	free(a.sets.items);
	free(files);
	drv_free(c);
	return rc;
}
