/* fmt_cli.h — the handler of `sacc fmt` and its options (fmt_cli.c); main.c's command
 * table names them. */
#ifndef SACC_FMT_CLI_H
#define SACC_FMT_CLI_H

#include "cli.h"

extern const CliOption fmt_options[];

int cmd_fmt(const CliCommand *cmd, int argc, char **argv);

#endif
