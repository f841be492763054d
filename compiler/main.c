/* main.c — the sacc command line: the table of commands, which cli.c dispatches through and
 * makes the help and the parsing of from.  A command's options are rows of the option table
 * it names (commands.c for the compiler's, simulate_cli.c for simulate and inspect). */
#include "cli.h"
#include "commands.h"
#include "ensemble.h"
#include "fmt_cli.h"
#include "plot.h"
#include "simulate_cli.h"
#include "ssp.h"
#include "ssp_cli.h"

/* plot.c parses its own arguments and prints its own help: its row has no option table. */
static int run_plot(const CliCommand *cmd, int argc, char **argv)
{
	(void)cmd;
	return plot_main(argc, argv);
}

static const CliCommand commands[] = {
	{"check", CMD_CHECK, cmd_check, cmd_options, "FILE...",
	 "check adaptation scripts against their inner FMUs", NULL},
	{"explicit", CMD_EXPLICIT, cmd_explicit, cmd_options, "FILE",
	 "print the explicit form of every adaptation in FILE", NULL},
	{"emit", CMD_EMIT, cmd_emit, cmd_options, "FILE",
	 "write DIR/<adaptation>/{modelDescription.xml, config.h, <adaptation>.c} for every "
	 "adaptation in FILE: the files sacc build puts in its FMU with the same options, "
	 "not compiled", NULL},
	{"build", CMD_BUILD, cmd_build, cmd_options, "FILE...",
	 "build one FMU per adaptation in the FILEs, inner adaptations first; an SSP system "
	 "(SYSTEM.ssp or .ssd) becomes one composite FMU",
	 "The C compiler is $CC, default cc. Each FMU is a source FMU too: sources/ holds the "
	 "complete sources of its library, listed in <SourceFiles> (FMI 2.0) or "
	 "sources/buildDescription.xml (FMI 3.0), with a README saying how to build them, so "
	 "that an importer on a platform without the binary compiles it; the inner FMUs stay "
	 "binary FMUs of their own platforms."},
	{"parse", CMD_PARSE, cmd_parse, cmd_options, "FILE",
	 "print FILE back as the parser read it", NULL},
	{"fmt", CMD_FMT, cmd_fmt, fmt_options, "FILE...",
	 "print scripts in the canonical layout, their comments and blank lines kept; --check "
	 "lists the files not in it, -w rewrites them",
	 "The layout is the one sacc parse prints. Each comment stays beside the code it was "
	 "written next to, and a run of blank lines becomes one. A FILE that does not parse is "
	 "left as it is, its errors printed, and the status is 2. - reads standard input (and "
	 "writes a script that does not parse back unchanged, as an editor's filter needs)."},
	{"inspect", CMD_INSPECT, sim_main, sim_options, "FILE.fmu",
	 "print an FMU's model description as a table (--json: as JSON), or, with "
	 "--probe-state, whether restoring its state works",
	 "Any FMU sacc can read is described, also one it cannot simulate or wrap (Scheduled "
	 "Execution only, Clock variables), with the reason; 'sacc runs it as' says which "
	 "interface sacc uses and what chooses the other (--interface, or 'with model "
	 "exchange' in a script)."},
	{"unpack", CMD_UNPACK, cmd_unpack, cmd_options, "FILE.fmu DIR",
	 "extract an FMU archive into DIR (a new directory), refusing any entry that could "
	 "land outside it", NULL},
	{"simulate", CMD_SIMULATE, sim_main, sim_options, "TARGET",
	 "run an .fmu, a scenario module (fmu declarations and connections) or an SSP system "
	 "(.ssp, .ssd) with a master algorithm; the result as CSV",
	 "A progress line is drawn on standard error when it is a terminal and the run lasts "
	 "over a second; it is erased at the end. A Model Exchange FMU (one offering only "
	 "that, or chosen by --interface) is integrated by sacc within each step."},
	{"ensemble", CMD_ENSEMBLE, ens_main, ens_options,
	 "TARGET -o DIR | DIR | status DIR | collect DIR",
	 "run TARGET once per row of a design (a table, a grid, Monte Carlo or Latin hypercube "
	 "samples) on local processes or as a Slurm job array, the results in one directory; "
	 "statistics across the runs",
	 "The options after '--' go to every run's sacc simulate as they are (not -o). Each run "
	 "is `sacc simulate TARGET OPTION... --set INST.VAR=VALUE... -o DIR/runs/ID.csv`; "
	 "DIR/index.csv lists the runs with their parameters, status, exit code, wall time and "
	 "message. Given again (or given DIR), the command resumes: finished runs are never "
	 "redone. `sacc ensemble status DIR` rebuilds the index (with Slurm's queue); `sacc "
	 "ensemble collect DIR` also writes the statistics across the runs (min, mean, max, "
	 "percentiles) and, with --plot, a fan chart. A Slurm task runs `sacc ensemble run-task "
	 "DIR +BASE` (the run of row BASE + its array index)."},
	{"ssp", CMD_SSP, ssp_main, ssp_options,
	 "import SYSTEM.ssp|SYSTEM.ssd | export SCENARIO.sa [OPTION]...",
	 "SSP systems (System Structure and Parameterization 1.0 and 2.0): import one as a "
	 "scenario module, or export a scenario module as one",
	 "SUBCOMMAND import: `sacc ssp import SYSTEM.ssp -o DIR` writes DIR/<system>.sa, the "
	 "equivalent scenario module, with the system's FMUs beside it; a transformation or a "
	 "unit conversion a scenario module cannot say is refused, and the parameter values, the "
	 "DefaultExperiment and the top system's outputs go into its opening comment as run "
	 "options.\n\nSUBCOMMAND export: `sacc ssp export SCENARIO.sa -o SYSTEM.ssp [--set "
	 "INST.VAR=VALUE]...` writes the scenario as an SSP 1.0 archive: SystemStructure.ssd, "
	 "the FMUs under resources/, the --set values as resources/parameters.ssv.\n\n`sacc "
	 "simulate SYSTEM.ssp` (or SYSTEM.ssd beside its resources) runs a system as it is; "
	 "`sacc build SYSTEM.ssp` makes one composite FMU of it."},
	{"plot", CMD_PLOT, run_plot, NULL,
	 "RESULT.csv... -o FILE.png|FILE.svg [OPTION]...",
	 "draw a result's variables against time with gnuplot", NULL},
	{"help", CMD_HELP, cli_run_help, NULL, "[COMMAND]",
	 "describe a command and its options, or list the commands", NULL},
	{"completion", CMD_COMPLETION, cli_run_completion, NULL, "[bash]",
	 "print the bash completion script (make install installs it)",
	 "To try it in the shell at hand: source <(sacc completion bash)"},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
	return cli_main(commands, argc, argv);
}
