/* cli.h — sacc's command line: the types of the command table (main.c) and of the option
 * tables the commands draw from, and the one parser, help and error reporting that are
 * made from those tables.
 *
 * A command is one CliCommand row: its name, its handler, the option table whose rows it
 * takes (those whose `commands` hold its bit), its operands and its help.  An option is one
 * CliOption row: its name, whether it takes a value, the setter that stores the value in
 * the command's argument struct (at `field`), the commands that take it and its help.
 * `sacc CMD --help`, `sacc help CMD`, `sacc --help`, the parser's errors and the bash
 * completion all read these rows, so a command or an option is written down once.
 *
 * To add a command: a CMD_* bit below, a row in main.c's table, and its handler, which
 * calls cli_parse with its argument struct and returns the exit status (commands.c has
 * the compiler's); then set its bit in the rows of the options it takes.  To add an
 * option: a row in the table of the commands taking it (commands.c's cmd_options,
 * simulate_cli.c's sim_options), a field in their argument struct, and a setter unless a
 * shared one (cli_set_*) fits; checks of options against each other go in the command's
 * one check function (simulate_cli.c's check_args). */
#ifndef SACC_CLI_H
#define SACC_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct Compilation;

/* One bit per command (CliCommand.id): an option row lists the commands that take it. */
enum {
	CMD_CHECK = 1u << 0,
	CMD_EXPLICIT = 1u << 1,
	CMD_EMIT = 1u << 2,
	CMD_BUILD = 1u << 3,
	CMD_PARSE = 1u << 4,
	CMD_INSPECT = 1u << 5,
	CMD_UNPACK = 1u << 6,
	CMD_SIMULATE = 1u << 7,
	CMD_PLOT = 1u << 8,
	CMD_HELP = 1u << 9,
	CMD_COMPLETION = 1u << 10,
	CMD_ENSEMBLE = 1u << 11,
	CMD_SSP = 1u << 12,
	CMD_FMT = 1u << 14,
};

typedef enum CliArg {
	CLI_FLAG,         /* no value */
	CLI_VALUE,        /* --opt VALUE, --opt=VALUE, and for one-letter options -oVALUE */
	CLI_OPT_NUMBER    /* an optional number: --opt=X, or --opt X when X is a number */
} CliArg;

/* Stores an option's value (NULL for a flag, or an optional number not given) in args, the
 * command's argument struct, at field; c is the run's compilation (for -I and -L).
 * Returns 0, or 2 after a usage error (cli_usage_error). */
typedef int CliSetter(struct Compilation *c, void *args, const char *opt, const char *val,
                      size_t field);

enum {
	CLI_REQUIRED = 1u << 0,  /* the command fails without it (shown without brackets) */
	CLI_REPEAT = 1u << 1,    /* may be given several times (shown with "...") */
	CLI_FILE = 1u << 2,      /* its value is a path (bash completes file names) */
};

typedef struct CliOption {
	const char *name;      /* "--start", or "-o" */
	CliArg arg;
	const char *value;     /* the value's name in help ("T0"); NULL for a flag */
	CliSetter *set;
	size_t field;          /* offsetof(the command's argument struct, ...) */
	unsigned commands;     /* CMD_* bits: the commands that take it */
	unsigned flags;        /* CLI_REQUIRED, CLI_REPEAT, CLI_FILE */
	const char *help;      /* a sentence or two; wrapped when printed */
	/* NULL, or the values it accepts, for the help and the completion: the i-th (from 0),
	 * NULL past the last; *summary a line about it, or NULL.  A function, so that a table
	 * kept elsewhere (the master algorithms) can answer. */
	const char *(*choice)(int i, const char **summary);
} CliOption;

typedef struct CliCommand CliCommand;
struct CliCommand {
	const char *name;
	unsigned id;                 /* its CMD_* bit */
	/* Runs the command on the arguments after its name; returns the exit status: 0, 1
	 * for a failure of the work itself, 2 for a usage error. */
	int (*run)(const CliCommand *cmd, int argc, char **argv);
	/* The table its options come from (name NULL ends it); NULL for a command that parses
	 * its own arguments, --help included (plot). */
	const CliOption *options;
	const char *operands;        /* its operands in the synopsis: "FILE...", "TARGET" */
	const char *summary;         /* one line: what it does */
	const char *details;         /* NULL, or paragraphs ("\n\n" between) after the options */
};

/* The option rows of -I DIR and -L DIR, for any table: cmds are the commands taking them.
 * Their setters add to the compilation's search paths (they need no field). */
#define CLI_OPTION_INCLUDE(cmds) \
	{"-I", CLI_VALUE, "DIR", cli_set_include, 0, (cmds), CLI_REPEAT | CLI_FILE, \
	 "also look for imported modules in DIR", NULL}
#define CLI_OPTION_FMU_DIR(cmds) \
	{"-L", CLI_VALUE, "DIR", cli_set_fmu_dir, 0, (cmds), CLI_REPEAT | CLI_FILE, \
	 "also look for inner FMUs in DIR", NULL}

/* The whole command line: `sacc`, `sacc --help`, `sacc --version`, `sacc help [CMD]`,
 * `sacc CMD ...` dispatched through commands (a table whose name NULL ends it).  Returns
 * the exit status. */
int cli_main(const CliCommand *commands, int argc, char **argv);

/* The arguments after a command's name, by its options: each option's setter stores it in
 * args; the operands (the arguments that are not options, and all after "--") go to
 * operands[] in order (room for argc of them).  --help or -h prints the command's help.
 * Returns 0, 2 after a usage error (and a hint at --help), or -1 when the help was printed
 * (exit 0). */
int cli_parse(const CliCommand *cmd, struct Compilation *c, void *args, int argc,
              char **argv, const char **operands, int *noperands);

/* "sacc CMD: " and the message on standard error; returns 2, the exit status of a usage
 * error.  CMD is the command running (cli_main sets it). */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "sacc CMD: " (or "sacc: " outside a command) on standard error, then the message and a
 * newline: every message of a command that is not about a place in a file. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The prefix alone: "sacc CMD" (or "sacc"), for messages printed in several parts. */
const char *cli_prog(void);

/* The command's help: usage, summary, options, details. */
void cli_help(FILE *out, const CliCommand *cmd);
/* The usage hint after a usage error: "(sacc CMD --help for the options)". */
void cli_hint(void);

/* The handlers of `sacc help [COMMAND]` and `sacc completion [bash]` (the bash completion
 * script, made from the command table). */
int cli_run_help(const CliCommand *cmd, int argc, char **argv);
int cli_run_completion(const CliCommand *cmd, int argc, char **argv);

/* For "did you mean": the first of the n names that word begins (when 4 characters or
 * more), else the closest within the edit distance is_near_name allows, or NULL. */
const char *cli_suggest(const char *word, const char *const *names, int n);

/* Shared setters (field: offsetof the value in the argument struct). */
CliSetter cli_set_include, cli_set_fmu_dir; /* -I, -L: the compilation's search paths */
CliSetter cli_set_string;   /* const char * */
CliSetter cli_set_flag;     /* bool */
CliSetter cli_add_string;   /* CliList: every value, in order */
CliSetter cli_set_finite;   /* double: any finite number */
CliSetter cli_set_positive; /* double > 0 */
CliSetter cli_set_count0;   /* int from 0 */
/* A count from lo to hi into *out for setters with other bounds; the message names hi when
 * name_hi.  Returns 0, or 2 after the usage error. */
int cli_count(const char *o, const char *v, long lo, long hi, bool name_hi, int *out);

/* The values of a repeatable option, in order (cli_add_string); free items. */
typedef struct CliList {
	const char **items;
	int n;
} CliList;

#endif
