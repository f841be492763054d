/* ssp_cli.c — `sacc ssp SUBCOMMAND ...`: one parse of the options (ssp_options, the rows
 * with CMD_SSP), then the subcommand named by the first operand, found in
 * ssp_subcommands[].  Adding a subcommand: a row there, its handler, and its options as
 * rows of ssp_options (with a field in SspArgs). */
#include "ssp_cli.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ssp.h"

const SspSubcommand ssp_subcommands[] = {
	{"import", ssp_import_main, "SYSTEM.ssp|SYSTEM.ssd -o DIR",
	 "write the system as a scenario module DIR/<system>.sa beside its FMUs"},
	{"export", ssp_export_main, "SCENARIO.sa -o SYSTEM.ssp [--set INST.VAR=VALUE]...",
	 "write a scenario module as an SSP 1.0 archive: its FMUs, connections and units, and "
	 "the --set values as a parameter set"},
	{NULL, NULL, NULL, NULL},
};

#define AT(f) offsetof(SspArgs, f)
const CliOption ssp_options[] = {
	{"-o", CLI_VALUE, "DIR", cli_set_string, AT(out), CMD_SSP, CLI_FILE,
	 "import: the directory written (made when missing); export: the archive written",
	 NULL},
	{"--set", CLI_VALUE, "INST.VAR=VALUE", cli_add_string, AT(sets), CMD_SSP, CLI_REPEAT,
	 "export: a parameter's (or an input's start) value, written to "
	 "resources/parameters.ssv and bound to the system", NULL},
	{"--start", CLI_VALUE, "T0", cli_set_finite, AT(start), CMD_SSP, 0,
	 "export: the DefaultExperiment's start time", NULL},
	{"--stop", CLI_VALUE, "T1", cli_set_finite, AT(stop), CMD_SSP, 0,
	 "export: the DefaultExperiment's stop time", NULL},
	CLI_OPTION_INCLUDE(CMD_SSP),
	CLI_OPTION_FMU_DIR(CMD_SSP),
	{NULL, CLI_FLAG, NULL, NULL, 0, 0, 0, NULL, NULL},
};
#undef AT

static const SspSubcommand *find_subcommand(const char *name)
{
	for (const SspSubcommand *s = ssp_subcommands; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static int unknown_subcommand(const char *name)
{
	const char *names[16];
	int n = 0;
	for (const SspSubcommand *s = ssp_subcommands; s->name && n < 16; s++)
		names[n++] = s->name;
	const char *near = cli_suggest(name, names, n);
	if (near)
		return cli_usage_error("no subcommand '%s'; did you mean '%s'?", name, near);
	return cli_usage_error("no subcommand '%s' (the subcommands: sacc ssp --help)", name);
}

int ssp_main(const CliCommand *cmd, int argc, char **argv)
{
	Compilation *c = drv_new(stderr);
	SspArgs a;
	memset(&a, 0, sizeof a);
	a.start = a.stop = NAN;
	int rc = 1;
	const char **operands = calloc((size_t)argc + 1, sizeof *operands);
	if (!c || !operands) {
		cli_error("out of memory");
		goto done;
	}
	diag_set_prog(c->diag, cli_prog());
	int n = 0;
	rc = cli_parse(cmd, c, &a, argc, argv, operands, &n);
	if (rc < 0) {
		rc = 0; /* --help */
		goto done;
	}
	if (rc)
		goto done;
	if (n == 0) {
		rc = cli_usage_error("no subcommand (the subcommands: sacc ssp --help)");
		goto done;
	}
	const SspSubcommand *sub = find_subcommand(operands[0]);
	if (!sub) {
		rc = unknown_subcommand(operands[0]);
		goto done;
	}
	a.operands = operands + 1;
	a.noperands = n - 1;
	rc = sub->run(c, &a);
done:
	if (rc == 2)
		cli_hint();
	free(operands);
	free(a.sets.items);
	drv_free(c);
	return rc;
}
