/* simulate_cli.h — `sacc simulate` and `sacc inspect`: the command over the master (sart_master.h), which
 * links runtime/'s seam to the inner FMUs.  Like the rest of orchestrator/ it lives
 * outside libsacc.a, so that the compiler's library code never links the runtime; the
 * Makefile links liborchestrator.a into sacc alone. */
#ifndef SACC_SIMULATE_CLI_H
#define SACC_SIMULATE_CLI_H

#include "cli.h"

/* The options of simulate and inspect (the rows whose commands hold CMD_SIMULATE or
 * CMD_INSPECT). */
extern const CliOption sim_options[];

/* Runs `sacc simulate` or `sacc inspect` (cmd says which) with the arguments after the
 * command's name.  Returns the exit status: 0 success (for `inspect --probe-state`:
 * restoring the FMU's state works), 1 a simulation or script error (or the probe found
 * restoring the state does not work, or cannot tell), 2 a usage error. */
int sim_main(const CliCommand *cmd, int argc, char **argv);

#endif
