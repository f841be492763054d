/* commands.h — the handlers of the compiler's commands (check, explicit, emit, build, parse,
 * unpack) and the option table they share; main.c's command table names them. */
#ifndef SACC_COMMANDS_H
#define SACC_COMMANDS_H

#include "cli.h"

/* The options of check, explicit, emit, build and parse (fields of commands.c's CmdArgs). */
extern const CliOption cmd_options[];

int cmd_check(const CliCommand *cmd, int argc, char **argv);
int cmd_explicit(const CliCommand *cmd, int argc, char **argv);
int cmd_emit(const CliCommand *cmd, int argc, char **argv);
int cmd_build(const CliCommand *cmd, int argc, char **argv);
int cmd_parse(const CliCommand *cmd, int argc, char **argv);
int cmd_unpack(const CliCommand *cmd, int argc, char **argv);

#endif
