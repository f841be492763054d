/* simulate_cli.h — `sacc simulate`: the command over the master (sart_master.h), which
 * links runtime/'s seam to the inner FMUs.  Like the rest of orchestrator/ it lives
 * outside libsacc.a, so that the compiler's library code never links the runtime; the
 * Makefile links liborchestrator.a into sacc alone. */
#ifndef SACC_SIMULATE_CLI_H
#define SACC_SIMULATE_CLI_H

/* Runs `sacc simulate` with the arguments after the command name.  Returns the exit
 * status: 0 success, 1 a simulation or script error, 2 a usage error. */
int sim_main(int argc, char **argv);

/* `sacc inspect --probe-state X.fmu [--set INST.VAR=VALUE]... [--start T0] [--step H]`
 * (the arguments after "inspect", --probe-state removed): sart_probe_state on the FMU.
 * Returns 0 when restoring its state works, 1 when it does not (or the probe cannot tell,
 * or the FMU cannot be opened), 2 for a usage error. */
int sim_probe_main(int argc, char **argv);

#endif
