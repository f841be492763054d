/* simulate_cli.c — `sacc simulate TARGET` and `sacc inspect`: the glue between the front
 * end and the orchestrator core (sart_master.h).  Their options are the rows of
 * sim_options below; `sacc simulate --help` prints them.
 *
 * TARGET is one .fmu (its instance is named after its model identifier) or a scenario
 * module (`fmu` declarations and top-level connections), loaded and checked by the driver
 * as `sacc check` does (simulate_scenario.c).  Each FMU file is extracted once
 * (simulate_extract.c) into a private temporary directory, removed on every way out.  The model descriptions
 * (FmuInfo) become a SartScenario; sart_master_run steps it and hands each accepted
 * communication point to the CSV writer here, which flushes it at once, so a run that
 * fails leaves every accepted step on disk.  The same point callback paces the run
 * (--realtime) and draws the progress line; the doStep hook arms the watchdog
 * (--step-timeout) and times each FMU (--profile).  --sweep runs the scenario once per
 * macro step, keeps the points in memory (csv.h tables) and compares them (sweep.h).
 *
 * Like the rest of orchestrator/, this file and simulate_scenario.c are not part of libsacc.a (see the Makefile):
 * compiler/ never links runtime/. */
#define _XOPEN_SOURCE 700 /* setitimer */
#include "simulate_cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "crash_guard.h"
#include "csv.h"
#include "driver.h"
#include "fmu.h"
#include "isolate.h"
#include "numfmt.h"
#include "package.h"
#include "progress.h"
#include "sart_master.h"
#include "sart_ode.h"
#include "simulate.h"
#include "sweep.h"

/* Set by SIGINT/SIGTERM: the run stops after the step in progress, cleanly (the
 * temporary directory is removed, the result file keeps every accepted step).  The one
 * piece of static state here: a signal handler has nowhere else to write. */
static volatile sig_atomic_t sim_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	sim_interrupted = 1;
}

/* The step watchdog (--step-timeout).  A doStep that overruns cannot be abandoned and the
 * process go on (the FMU may hold locks, or be half way through its state), so SIGALRM
 * ends the process: the handler writes the message made before the call (write(2)), then
 * execs /bin/sh to remove the temporary directory and exit 1 (execve is async-signal-safe
 * and drops the hung FMU with the old image).  It writes the rows not yet written
 * first, so the result holds every accepted row.  Static: the handler has nowhere else to
 * read from. */
static char watchdog_msg[2048];
static size_t watchdog_len;
static char *watchdog_argv[6];

/* The run's RowBuf: the handler writes what it holds first.  It runs only while a doStep
 * is in progress, never while rows are being gathered. */
static const RowBuf *watchdog_rows;

static void on_watchdog(int sig)
{
	(void)sig;
	ssize_t w;
	if (watchdog_rows && watchdog_rows->len)
		w = write(watchdog_rows->fd, watchdog_rows->data, watchdog_rows->len);
	w = write(STDERR_FILENO, watchdog_msg, watchdog_len);
	(void)w;
	if (watchdog_argv[4])
		execv("/bin/sh", watchdog_argv);
	_exit(1);
}

/* The options of simulate and inspect (sim_options). */
typedef struct SimArgs {
	const char *target;
	const char *out;
	double start, stop, step; /* stop and step NAN until given */
	SartAlgorithm algorithm;
	SartApprox approx;
	int iterations;
	SartLoopSolver loop_solver;
	int anderson_memory, loop_max_iterations;
	double loop_tolerance;
	SartStepControl step_control;
	double tolerance, min_step, max_step;
	double step_timeout; /* s, 0 for none */
	const char *isolate; /* --isolate: all or INST,... run out of process; NULL for none */
	const char *wine;    /* --wine: all or INST,... run from their Windows library */
	double call_timeout; /* s: an isolated FMU's limit on every call but doStep */
	double realtime;     /* wall seconds per simulated second, 0 for none */
	int max_overruns;    /* more stop the run; -1 for no limit */
	bool profile;
	const char *sweep;   /* the H list, NULL for none */
	const char *reference;
	const char *sweep_csv;
	bool explain;
	bool no_unit_conversion; /* wire values as they are, as a master blind to units does */
	bool header_units;       /* --header units: `NAME [UNIT]` fields, as earlier versions wrote */
	bool no_rollback;        /* no state saved per step: a discard stops the run */
	int threads;             /* --threads: FMUs stepped at once (0: one thread) */
	const char *event;       /* --event INST.VAR: the indicator, NULL for none */
	double event_tolerance;  /* s, 0 for the master's default */
	SartRef event_ref;       /* event, resolved */
	bool probe;          /* sacc inspect --probe-state */
	bool json;           /* sacc inspect --json */
	CliList records;     /* --record: each a comma-separated list */
	CliList sets;        /* --set */
	const char *input;   /* --input FILE.csv, NULL for none */
	CliList interfaces;  /* --interface: cs, me, INST=cs or INST=me, in order */
	int solver;          /* --solver: a SartOdeMethod; -1 until given */
	double me_tolerance; /* --me-tolerance, 0 until given */
	double me_max_step;  /* --me-max-step, 0 until given */
	double *steps;       /* --sweep's, parsed; malloc'd */
	int nsteps;
} SimArgs;

/* ---- the options ---------------------------------------------------------------------------
 * One row per option in sim_options below: its name, whether it takes a value, the setter
 * and the SimArgs field it writes, the commands that take it and its help.  A new master
 * option is a row (and, when no setter fits, a setter). */

#define FIELD(T) (*(T *)((char *)args + field))

static int set_seconds(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c;
	double x;
	if (!csv_number(v, &x) || !(x > 0) || x > 1e6)
		return cli_usage_error("%s: '%s' is not a positive number of seconds", o, v);
	FIELD(double) = x;
	return 0;
}

/* --realtime [SCALE]: 1 when no value came. */
static int set_realtime(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c;
	double x = 1;
	if (v && (!csv_number(v, &x) || !(x > 0)))
		return cli_usage_error("%s: '%s' is not a positive number of wall seconds per "
		                       "simulated second", o, v);
	FIELD(double) = x;
	return 0;
}

/* A count from 1 (--anderson-memory: to 100). */
static int set_count(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c;
	bool mem = strcmp(o, "--anderson-memory") == 0;
	return cli_count(o, v, 1, mem ? 100 : 1000000, mem, &FIELD(int));
}

/* --threads N: from 1 to the master's bound. */
static int set_threads(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c;
	return cli_count(o, v, 1, SART_MAX_THREADS, true, &FIELD(int));
}

/* The names of sart_algorithms[] joined: "a, b or c" (or with " nor "). */
static void algorithm_names(char *buf, size_t size, const char *last_sep)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const SartAlgorithmInfo *alg = sart_algorithms; alg->name && used < size; alg++) {
		const char *sep = alg == sart_algorithms ? "" : alg[1].name ? ", " : last_sep;
		int n = snprintf(buf + used, size - used, "%s%s", sep, alg->name);
		used += n > 0 ? (size_t)n : 0;
	}
}

static int set_master(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c, (void)o, (void)field;
	const SartAlgorithmInfo *alg = sart_algorithm_find(v);
	char names[256];
	if (alg) {
		((SimArgs *)args)->algorithm = (SartAlgorithm)(alg - sart_algorithms);
		return 0;
	}
	algorithm_names(names, sizeof names, " nor ");
	return cli_usage_error("--master: '%s' is neither %s", v, names);
}

static const char *master_choice(int i, const char **summary)
{
	for (int k = 0; sart_algorithms[k].name; k++)
		if (k == i) {
			*summary = sart_algorithms[k].summary;
			return sart_algorithms[k].name;
		}
	return NULL;
}

/* A value of an enumerated option and the enumerator it stands for. */
typedef struct SimChoice {
	const char *name;
	int value;
	const char *summary;
} SimChoice;

static const SimChoice approx_choices[] = {
	{"hold", SART_HOLD, "the value at t_n (the default)"},
	{"linear", SART_LINEAR, "extrapolated through the last two points"},
	{"quadratic", SART_QUADRATIC, "through the last three points"},
	{"hermite", SART_HERMITE, "from the source's output derivatives (linear when it has none)"},
	{NULL, 0, NULL},
};

static const SimChoice loop_solver_choices[] = {
	{"fixed-point", SART_LOOP_FIXED_POINT, "x := G(x)"},
	{"anderson", SART_LOOP_ANDERSON, "Anderson acceleration (the default)"},
	{"newton", SART_LOOP_NEWTON, "Newton, finite-difference Jacobian"},
	{NULL, 0, NULL},
};

static const SimChoice step_control_choices[] = {
	{"doubling", SART_STEP_DOUBLING, "the error by step doubling"},
	{"prediction", SART_STEP_PREDICTION, "the error of the inputs given against the outputs "
	                                     "realised"},
	{NULL, 0, NULL},
};

/* v's enumerator among choices; -1 after a usage error naming them all: "is neither a nor
 * b", "is not a, b or c", with a near one suggested. */
static int find_choice(const char *o, const char *v, const SimChoice *choices)
{
	const char *names[16] = {NULL};
	int n = 0;
	for (const SimChoice *k = choices; k->name && n < 16; k++) {
		if (strcmp(k->name, v) == 0)
			return k->value;
		names[n++] = k->name;
	}
	char list[256] = "";
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
		         i == 0 ? "" : i < n - 1 ? ", " : n == 2 ? " nor " : " or ", names[i]);
	const char *near = cli_suggest(v, names, n);
	cli_usage_error("%s: '%s' is %s %s%s%s%s", o, v, n == 2 ? "neither" : "not", list,
	                near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	return -1;
}

static const char *choice_at(const SimChoice *choices, int i, const char **summary)
{
	for (int k = 0; choices[k].name; k++)
		if (k == i) {
			*summary = choices[k].summary;
			return choices[k].name;
		}
	return NULL;
}

static int set_approx(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c, (void)field;
	int k = find_choice(o, v, approx_choices);
	if (k < 0)
		return 2;
	((SimArgs *)args)->approx = (SartApprox)k;
	return 0;
}

static const char *approx_choice(int i, const char **summary)
{
	return choice_at(approx_choices, i, summary);
}

static int set_loop_solver(Compilation *c, void *args, const char *o, const char *v,
                           size_t field)
{
	(void)c, (void)field;
	int k = find_choice(o, v, loop_solver_choices);
	if (k < 0)
		return 2;
	((SimArgs *)args)->loop_solver = (SartLoopSolver)k;
	return 0;
}

static const char *loop_solver_choice(int i, const char **summary)
{
	return choice_at(loop_solver_choices, i, summary);
}

/* --header: plain names, which every reader of results takes, or names with units. */
static const SimChoice header_choices[] = {
	{"plain", 0, "time, INST.VAR, ... (the default; what FMPy, fmusim and pandas read)"},
	{"units", 1, "time [s], INST.VAR [UNIT], ... (as earlier versions wrote)"},
	{NULL, 0, NULL},
};

static int set_header(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c, (void)field;
	int k = find_choice(o, v, header_choices);
	if (k < 0)
		return 2;
	((SimArgs *)args)->header_units = k == 1;
	return 0;
}

static const char *header_choice(int i, const char **summary)
{
	return choice_at(header_choices, i, summary);
}

static int set_step_control(Compilation *c, void *args, const char *o, const char *v,
                            size_t field)
{
	(void)c, (void)field;
	int k = find_choice(o, v, step_control_choices);
	if (k < 0)
		return 2;
	((SimArgs *)args)->step_control = (SartStepControl)k;
	return 0;
}

static const char *step_control_choice(int i, const char **summary)
{
	return choice_at(step_control_choices, i, summary);
}

/* --solver: how the FMUs run as Model Exchange are integrated (runtime/sart_ode.h). */
static const SimChoice solver_choices[] = {
	{"auto", SART_ODE_AUTO, "explicit, switching to implicit where the model turns out "
	                        "stiff (the default)"},
	{"explicit", SART_ODE_EXPLICIT, "Dormand-Prince 5(4), or 8(5,3) at tolerances of 1e-5 "
	                                "and below, for non-stiff models"},
	{"implicit", SART_ODE_IMPLICIT, "Rosenbrock Rodas4P2 (order 4), or Rodas5P (order 5) at "
	 "tolerances of 1e-5 and below, for stiff models"},
	{NULL, 0, NULL},
};

static int set_solver(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c, (void)field;
	int k = find_choice(o, v, solver_choices);
	if (k < 0)
		return 2;
	((SimArgs *)args)->solver = k;
	return 0;
}

static const char *solver_choice(int i, const char **summary)
{
	return choice_at(solver_choices, i, summary);
}

#define AT(f) offsetof(SimArgs, f)
#define SIM CMD_SIMULATE
#define PROBE (CMD_SIMULATE | CMD_INSPECT) /* simulate's, also inspect --probe-state's */
const CliOption sim_options[] = {
	CLI_OPTION_INCLUDE(SIM),
	CLI_OPTION_FMU_DIR(SIM),
	{"--start", CLI_VALUE, "T0", cli_set_finite, AT(start), PROBE, 0,
	 "start time (default: the DefaultExperiment's, else 0)", NULL},
	{"--stop", CLI_VALUE, "T1", cli_set_finite, AT(stop), SIM, 0,
	 "stop time (default: the DefaultExperiment's, else T0 + 1)", NULL},
	{"--step", CLI_VALUE, "H", cli_set_finite, AT(step), PROBE, 0,
	 "macro step (default: the DefaultExperiment's, else (T1 - T0) / 500)", NULL},
	{"--master", CLI_VALUE, "ALGORITHM", set_master, 0, SIM, 0,
	 "the master algorithm (default gauss-seidel):", master_choice},
	{"--approx", CLI_VALUE, "KIND", set_approx, 0, SIM, 0,
	 "input approximation (default hold):", approx_choice},
	{"--iterations", CLI_VALUE, "K", cli_set_count0, AT(iterations), SIM, 0,
	 "K extra passes over each step, with rollback (default 0)", NULL},
	{"--loop-solver", CLI_VALUE, "SOLVER", set_loop_solver, 0, SIM, 0,
	 "how algebraic loops are solved (default anderson):", loop_solver_choice},
	{"--anderson-memory", CLI_VALUE, "M", set_count, AT(anderson_memory), SIM, 0,
	 "M past iterates Anderson uses (default 1: secant)", NULL},
	{"--loop-tolerance", CLI_VALUE, "TOL", cli_set_positive, AT(loop_tolerance), SIM, 0,
	 "converged when |G(x) - x| <= TOL max(1, |x|) (default 1e-10)", NULL},
	{"--loop-max-iterations", CLI_VALUE, "N", set_count, AT(loop_max_iterations), SIM, 0,
	 "bound on a loop solve's iterations (default 100)", NULL},
	{"--step-control", CLI_VALUE, "ESTIMATE", set_step_control, 0, SIM, 0,
	 "variable steps (--step is the first), the error estimated by:", step_control_choice},
	{"--tolerance", CLI_VALUE, "TOL", cli_set_positive, AT(tolerance), SIM, 0,
	 "on the error estimate, relative beyond 1 (default 1e-3)", NULL},
	{"--min-step", CLI_VALUE, "H", cli_set_positive, AT(min_step), SIM, 0,
	 "accepted whatever its error (default 1e-6 H)", NULL},
	{"--max-step", CLI_VALUE, "H", cli_set_positive, AT(max_step), SIM, 0,
	 "never exceeded (default T1 - T0)", NULL},
	{"--interface", CLI_VALUE, "cs|me|INST=cs|INST=me", cli_add_string, AT(interfaces), PROBE,
	 CLI_REPEAT,
	 "run FMUs through Co-Simulation (cs) or Model Exchange (me): every FMU that offers the "
	 "interface, or instance INST (default: an SSP component's implementation attribute, "
	 "else Co-Simulation when an FMU offers it, else Model Exchange)", NULL},
	{"--solver", CLI_VALUE, "METHOD", set_solver, 0, PROBE, 0,
	 "how FMUs run as Model Exchange are integrated:", solver_choice},
	{"--me-tolerance", CLI_VALUE, "TOL", cli_set_positive, AT(me_tolerance), PROBE, 0,
	 "relative tolerance of the Model Exchange integration (default: the FMU's "
	 "DefaultExperiment tolerance, else 1e-6)", NULL},
	{"--me-max-step", CLI_VALUE, "H", cli_set_positive, AT(me_max_step), PROBE, 0,
	 "largest step of the Model Exchange integration (default: none but the macro step)",
	 NULL},
	{"--step-timeout", CLI_VALUE, "SECONDS", set_seconds, AT(step_timeout), SIM, 0,
	 "wall-clock limit on one doStep of one FMU; an FMU that overruns it stops the run "
	 "(exit 1, the result kept)", NULL},
	{"--isolate", CLI_VALUE, "all|INST,...", cli_set_string, AT(isolate), SIM, 0,
	 "run these FMUs (all, or instances) each in a child process: a crash, exit or hang "
	 "(--step-timeout) in one is a failed call", NULL},
	{"--wine", CLI_VALUE, "all|INST,...", cli_set_string, AT(wine), SIM, 0,
	 "run these FMUs (all, or instances) from their Windows library, each in a process of "
	 "its own under Wine, though they have a Linux one (an FMU with a Windows library only "
	 "runs so anyway)", NULL},
	{"--call-timeout", CLI_VALUE, "SECONDS", set_seconds, AT(call_timeout), SIM, 0,
	 "with --isolate: wall-clock limit on any other call of an isolated FMU (instantiate, "
	 "initialization, values, states, terminate; default 600)", NULL},
	{"--realtime", CLI_OPT_NUMBER, "SCALE", set_realtime, AT(realtime), SIM, 0,
	 "pace the run: the point at t waits until (t - T0) * SCALE wall seconds after the "
	 "first (SCALE: wall seconds per simulated second, default 1); a point reached later is "
	 "an overrun, counted in the summary with the largest lateness", NULL},
	{"--max-overruns", CLI_VALUE, "N", cli_set_count0, AT(max_overruns), SIM, 0,
	 "with --realtime: stop the run (exit 1) at the overrun after N", NULL},
	{"--profile", CLI_FLAG, NULL, cli_set_flag, AT(profile), SIM, 0,
	 "wall time inside each FMU's doStep and its calls, in the summary", NULL},
	{"--no-rollback", CLI_FLAG, NULL, cli_set_flag, AT(no_rollback), SIM, 0,
	 "save no FMU state before each step (faster; a discard then stops the run; refused "
	 "with iterations, step control, events)", NULL},
	{"--threads", CLI_VALUE, "N", set_threads, AT(threads), SIM, 0,
	 "step FMUs that do not depend on each other within a step on N threads at once, while "
	 "their timed passes say it pays (default 1; results and messages as with one)",
	 NULL},
	{"--event", CLI_VALUE, "INST.VAR", cli_set_string, AT(event), SIM, 0,
	 "locate the sign changes of this output: a step over one is redone shorter (regula "
	 "falsi from restored states) until a point lies within --event-tolerance after it", NULL},
	{"--event-tolerance", CLI_VALUE, "SECONDS", cli_set_positive, AT(event_tolerance), SIM, 0,
	 "how close after a sign change a point must lie (default 1e-6 H)", NULL},
	{"--sweep", CLI_VALUE, "H1,H2,...", cli_set_string, AT(sweep), SIM, 0,
	 "run once per macro step H1,H2,... and print, per recorded variable, the largest and "
	 "RMS error against the reference and the observed order log(e1/e2)/log(H1/H2) (no -o, "
	 "no --step)", NULL},
	{"--reference", CLI_VALUE, "REF.csv", cli_set_string, AT(reference), SIM, CLI_FILE,
	 "the reference of --sweep, a result CSV (interpolated linearly at each run's points); "
	 "default: the run at the finest H", NULL},
	{"--sweep-csv", CLI_VALUE, "FILE", cli_set_string, AT(sweep_csv), SIM, CLI_FILE,
	 "also write the sweep's table as CSV to FILE", NULL},
	{"--record", CLI_VALUE, "INST.VAR,...", cli_add_string, AT(records), SIM, CLI_REPEAT,
	 "the variables to write (default: every output; Strings and Binaries, in hex, quoted, "
	 "after the others; an array, every element: INST.VAR[1], ...)", NULL},
	{"--set", CLI_VALUE, "INST.VAR=VALUE", cli_add_string, AT(sets), PROBE, CLI_REPEAT,
	 "a start value or parameter, before initialization (a String takes VALUE as it is, a "
	 "Binary hex digits; an array [V1,V2,...] in row-major order, or one element "
	 "INST.VAR[I]=VALUE)", NULL},
	{"--input", CLI_VALUE, "FILE.csv", cli_set_string, AT(input), SIM, CLI_FILE,
	 "unconnected inputs over time: a time column, then one per input (INST.VAR; VAR for "
	 "an .fmu), Reals linear between rows, the others held (Booleans true, false, 1 or 0; "
	 "Strings as text; Binaries in hex; a triggered input clock ticks at the rows where its "
	 "column is not 0); a result file feeds another run as it is", NULL},
	{"-o", CLI_VALUE, "RESULT.csv", cli_set_string, AT(out), SIM, CLI_FILE,
	 "the CSV result (default: standard output): a header `time,INST.VAR,...`, a row per "
	 "point (and per clock tick; a clock's column holds its ticks there)", NULL},
	{"--header", CLI_VALUE, "KIND", set_header, 0, SIM, 0,
	 "the result's header:", header_choice},
	{"--explain", CLI_FLAG, NULL, cli_set_flag, AT(explain), SIM, 0,
	 "print the structural analysis, the unit conversions and which FMUs share a "
	 "library, and stop", NULL},
	{"--no-unit-conversion", CLI_FLAG, NULL, cli_set_flag, AT(no_unit_conversion), SIM, 0,
	 "connect values as they are, whatever their declared units (what a master blind to "
	 "units does; for comparison)", NULL},
	{"--json", CLI_FLAG, NULL, cli_set_flag, AT(json), CMD_INSPECT, 0,
	 "print the model description as JSON", NULL},
	{"--probe-state", CLI_FLAG, NULL, cli_set_flag, AT(probe), CMD_INSPECT, 0,
	 "step, get the state, step, set it, step again: do the outputs agree bit for bit? "
	 "(exit 1 when they do not)", NULL},
	{NULL, CLI_FLAG, NULL, NULL, 0, 0, 0, NULL, NULL},
};
#undef PROBE
#undef SIM
#undef AT

static bool is_fmu_path(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && strcmp(path + n - 4, ".fmu") == 0;
}

/* Every check of the options against each other and against the operands, in one place
 * (but for the stop time against the FMU's default, run's).  Sets a->target, and a->steps
 * from --sweep.  Returns 0, or 2 after a usage error. */
static int check_args(const CliCommand *cmd, SimArgs *a, const char **operands, int n)
{
	bool inspect = cmd->id == CMD_INSPECT;
	if (inspect && n != 1)
		return cli_usage_error("expected one FMU");
	if (n == 0)
		return cli_usage_error("no TARGET (an .fmu, a scenario module or an SSP system)");
	if (n > 1)
		return cli_usage_error("one TARGET only ('%s', then '%s')", operands[0], operands[1]);
	a->target = operands[0];
	struct stat st;
	if (stat(a->target, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_usage_error("'%s' is a directory: %s", a->target, inspect
		                       ? "an FMU is one zip archive, an .fmu file"
		                       : "TARGET is an .fmu file, a scenario module or an SSP system");
	if (inspect && a->probe && !is_fmu_path(a->target))
		return cli_usage_error("--probe-state: '%s' is not an .fmu", a->target);
	if (inspect && a->probe && a->json)
		return cli_usage_error("--json prints the model description: not with --probe-state");
	if (inspect && !a->probe && (a->sets.n || !isnan(a->start) || !isnan(a->step)))
		return cli_usage_error("%s belongs to --probe-state", a->sets.n ? "--set"
		                       : !isnan(a->start) ? "--start" : "--step");
	if (inspect && !a->probe &&
	    (a->interfaces.n || a->solver >= 0 || a->me_tolerance > 0 || a->me_max_step > 0))
		return cli_usage_error("%s belongs to --probe-state (sacc inspect shows which "
		                       "interface sacc uses and how to change it)",
		                       a->interfaces.n ? "--interface" : a->solver >= 0 ? "--solver"
		                       : a->me_tolerance > 0 ? "--me-tolerance" : "--me-max-step");
	if (!isnan(a->step) && !(a->step > 0))
		return cli_usage_error("--step must be positive");
	if (a->max_overruns >= 0 && !(a->realtime > 0))
		return cli_usage_error("--max-overruns belongs to --realtime");
	if (!a->sweep && (a->reference || a->sweep_csv))
		return cli_usage_error("%s belongs to --sweep", a->reference ? "--reference"
		                                                             : "--sweep-csv");
	if (!a->sweep)
		return 0;
	if (a->out)
		return cli_usage_error("--sweep writes no result file (-o); --sweep-csv FILE writes "
		                       "its table");
	if (!isnan(a->step))
		return cli_usage_error("--sweep gives the macro steps: no --step with it");
	if (a->step_control != SART_STEP_FIXED)
		return cli_usage_error("--sweep runs fixed steps: no --step-control with it");
	char err[256];
	a->nsteps = sweep_parse_steps(a->sweep, &a->steps, err, sizeof err);
	if (a->nsteps < 0)
		return cli_usage_error("--sweep: %s", err);
	if (a->nsteps < 2 && !a->reference)
		return cli_usage_error("--sweep needs two steps or more, or a --reference");
	return 0;
}

/* The options, then their checks: 0, 2 after a usage error, -1 after --help. */
static int parse_args(const CliCommand *cmd, Compilation *c, int argc, char **argv,
                      SimArgs *a)
{
	a->algorithm = SART_GAUSS_SEIDEL;
	a->approx = SART_HOLD;
	a->start = NAN;
	a->stop = NAN;
	a->step = NAN;
	a->max_overruns = -1;
	a->call_timeout = SART_ISOLATE_DEFAULT_CALL_TIMEOUT;
	a->solver = -1;
	const char **operands = calloc((size_t)argc + 1, sizeof *operands);
	int n = 0;
	if (!operands) {
		cli_error("out of memory");
		return 1;
	}
	int rc = cli_parse(cmd, c, a, argc, argv, operands, &n);
	if (rc == 0) {
		rc = check_args(cmd, a, operands, n);
		if (rc)
			cli_hint();
	}
	free(operands);
	return rc;
}

/* ---- running ----------------------------------------------------------------------------- */

static void clear_progress(Sim *s)
{
	if (s->prog_drawn) {
		fputs("\r\033[K", stderr);
		s->prog_drawn = false;
	}
}

static void sim_log(void *env, SartStatus st, const char *category, const char *message)
{
	Sim *s = env;
	(void)category;
	/* Discards are what step rejection handles; the summary counts them. */
	if (st == SART_WARNING || st == SART_ERROR || st == SART_FATAL) {
		clear_progress(s);
		cli_error("%s", message);
	}
}

/* All of p to fd, through short writes and signals. */
static bool write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static int flush_rows(Sim *s)
{
	RowBuf *b = &s->rows_out;
	bool ok = write_all(b->fd, b->data, b->len);
	b->len = 0;
	if (!ok)
		s->out_failed = true;
	return !ok;
}

/* Rows are formatted by fmt_real (the shortest text that reads back) into s->rows_out and
 * written a block at a time, so that a row costs no system call; the step watchdog writes
 * what is gathered before it ends the process.  When someone may be reading as the run
 * goes (the result is not a regular file, or --realtime paces the run), each row goes out
 * at once. */
enum { ROW_BLOCK = 1 << 16 };

/* A String as a CSV field: always quoted, a quote doubled (RFC 4180), so that commas,
 * quotes and line breaks in it keep the row whole.  Returns the bytes written at p. */
static size_t put_quoted(char *p, const char *text)
{
	char *start = p;
	*p++ = '"';
	for (const char *c = text; *c; c++) {
		if (*c == '"')
			*p++ = '"';
		*p++ = *c;
	}
	*p++ = '"';
	return (size_t)(p - start);
}

/* The room the point's Strings take as quoted fields, with their commas. */
static size_t strings_room(const Sim *s)
{
	size_t room = 0;
	for (int r = 0; s->strings && r < s->nstring_records; r++)
		room += 2 * strlen(s->strings[r]) + 3;
	return room;
}

/* The master's Strings of the point about to come (SartStringsFn): kept until on_point
 * writes them. */
static int on_strings(void *env, const char *const values[], int n)
{
	Sim *s = env;
	(void)n;
	s->strings = values;
	return 0;
}

static int write_point(Sim *s, double t, const double values[], int n)
{
	RowBuf *b = &s->rows_out;
	size_t row_max = ((size_t)n + 1) * (FMT_REAL_MAX + 1) + strings_room(s);
	if (b->len + row_max > b->cap) {
		if (b->len && flush_rows(s))
			return 1;
		if (row_max > b->cap) {
			size_t cap = row_max > ROW_BLOCK ? row_max : ROW_BLOCK;
			char *data = realloc(b->data, cap);
			if (!data) {
				s->out_failed = true;
				return 1;
			}
			b->data = data;
			b->cap = cap;
		}
	}
	char *p = b->data + b->len;
	p += fmt_real(p, t);
	for (int i = 0; i < n; i++) {
		*p++ = ',';
		p += fmt_real(p, values[i]);
	}
	for (int r = 0; s->strings && r < s->nstring_records; r++) {
		*p++ = ',';
		p += put_quoted(p, s->strings[r]);
	}
	s->strings = NULL;
	*p++ = '\n';
	b->len = (size_t)(p - b->data);
	return b->at_once ? flush_rows(s) : 0;
}

/* A sweep keeps each run's points in memory (s->capture). */
static int capture_point(Sim *s, double t, const double values[], int n)
{
	s->row[0] = t;
	memcpy(s->row + 1, values, (size_t)n * sizeof *values);
	if (csv_append(s->capture, s->row)) {
		s->out_failed = true;
		return 1;
	}
	return 0;
}

static void sleep_until(double when)
{
	struct timespec ts;
	double whole = floor(when);
	ts.tv_sec = (time_t)whole;
	ts.tv_nsec = (long)((when - whole) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR &&
	       !sim_interrupted)
		;
}

/* --realtime: the first point fixes the origin; the point at t is due (t - start) * SCALE
 * wall seconds after it.  Reached early, the run sleeps until then; reached late, it is an
 * overrun and the run goes on at once (no catching up is attempted: the next deadlines
 * stay where they were).  Returns 1 when the overruns pass --max-overruns (the run
 * stops), else 0. */
static int pace(Sim *s, double t)
{
	double now = prog_now();
	if (s->rows == 1) {
		s->rt_origin = now;
		return 0;
	}
	double due = s->rt_origin + (t - s->args->start) * s->args->realtime;
	if (now > due) {
		s->overruns++;
		if (now - due > s->max_late)
			s->max_late = now - due;
		if (s->args->max_overruns >= 0 && s->overruns > s->args->max_overruns) {
			clear_progress(s);
			fprintf(stderr, "sacc simulate: at t = %s: %.3g s late, overrun %ld of at "
			        "most %d (--max-overruns)\n", FMT_REAL(t), now - due, s->overruns,
			        s->args->max_overruns);
			return 1;
		}
		return 0;
	}
	sleep_until(due);
	return 0;
}

static void draw_progress(Sim *s, double t)
{
	double elapsed = prog_now() - s->run_began;
	if (!prog_due(true, elapsed, s->prog_last))
		return;
	char line[256];
	prog_format(line, sizeof line, prog_width(), t, s->args->start, s->args->stop,
	            s->rows > 0 ? s->rows - 1 : 0, elapsed);
	prog_show(line);
	s->prog_last = elapsed;
	s->prog_drawn = true;
}

/* Every accepted point: the result (file or memory), then pacing and progress. */
static int on_point(void *env, double t, const double values[], int n)
{
	Sim *s = env;
	if (s->cols && s->conv_row) { /* an SSP system's outputs: converted as connected */
		for (int i = 0; i < n; i++)
			s->conv_row[i] = s->cols[i].name ? sart_conn_value(&s->cols[i].conv, values[i])
			                                 : values[i];
		values = s->conv_row;
	}
	int bad = s->capture ? capture_point(s, t, values, n) : write_point(s, t, values, n);
	s->rows++;
	s->last_t = t;
	if (s->args->realtime > 0 && !bad)
		bad = pace(s, t);
	if (s->tty)
		draw_progress(s, t);
	return bad || sim_interrupted; /* the row is written first: the summary agrees */
}

/* Arms the watchdog before a doStep (the message it would print made now: nothing is
 * formatted in the handler), disarms it after. */
static void watch_step(Sim *s, int f, double t, double h, int done)
{
	struct itimerval it;
	memset(&it, 0, sizeof it);
	if (!done) {
		int n = snprintf(watchdog_msg, sizeof watchdog_msg,
		                 "sacc simulate: [%s] %s(t = %s, h = %s) did not return within "
		                 "--step-timeout %s s; a call cannot be abandoned safely, so the run "
		                 "stops\n"
		                 "sacc simulate: stopped at t = %s: %ld steps accepted (the result "
		                 "holds each)\n",
		                 s->fmus[f].name,
		                 s->fmus[f].info->version == FMI_V3 ? "fmi3DoStep" : "fmi2DoStep",
		                 FMT_REAL(t), FMT_REAL(h), FMT_REAL(s->args->step_timeout),
		                 FMT_REAL(s->last_t), s->rows > 0 ? s->rows - 1 : 0);
		watchdog_len = n < 0 ? 0 : (size_t)n < sizeof watchdog_msg ? (size_t)n
		                                                            : sizeof watchdog_msg - 1;
		double whole = floor(s->args->step_timeout);
		it.it_value.tv_sec = (time_t)whole;
		it.it_value.tv_usec = (suseconds_t)((s->args->step_timeout - whole) * 1e6);
		if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
			it.it_value.tv_usec = 1;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Around every doStep (the state probe's included): the watchdog (--step-timeout) and the
 * profile (--profile: the wall time between the two calls, and the calls, per FMU). */
static void on_step(void *env, int f, double t, double h, int done)
{
	Sim *s = env;
	crash_guard_step(s->names[f], t, h, done);
	if (s->args->profile && done) {
		s->prof[f].seconds += prog_now() - s->prof[f].began;
		s->prof[f].calls++;
	}
	/* an isolated FMU's own limit ends a hung step as a failed call, not the process */
	if (s->args->step_timeout > 0 && !sim_is_isolated(s, f, s->args->isolate))
		watch_step(s, f, t, h, done);
	if (s->args->profile && !done)
		s->prof[f].began = prog_now();
}

/* Around every doStep when nothing else watches them: the crash guard's note of the FMU
 * being stepped. */
static void on_step_guarded(void *env, int f, double t, double h, int done)
{
	Sim *s = env;
	crash_guard_step(s->names[f], t, h, done);
}

/* The header: `time`, then INSTANCE.VARIABLE, plain as FMPy, fmusim and OMSimulator
 * write theirs, so that their readers and pandas find a column by its name; with
 * --header units, `time [s]` and ` [unit]` where the model description gives the variable
 * a unit (its own or its declared type's).  Each field quoted where it must be
 * (csv_put_field). */
static int write_header(Sim *s)
{
	fputs(s->args->header_units ? "time [s]" : "time", s->out);
	for (int r = 0; r < s->nrecords; r++) {
		const SimFmu *f = &s->fmus[s->records[r].fmu];
		/* An SSP system's own outputs are named by the system (Sim.cols). */
		const char *own = s->cols && s->cols[r].name ? s->cols[r].name : NULL;
		const char *inst = own ? own : f->name;
		const char *var = own ? "" : f->vars[s->records[r].var].name;
		const char *unit = own && s->cols[r].unit ? s->cols[r].unit
		                                          : f->info->vars[s->records[r].var].unit;
		bool with_unit = s->args->header_units && unit && *unit;
		size_t len = strlen(inst) + strlen(var) + (with_unit ? strlen(unit) : 0) + 5;
		char *field = malloc(len);
		if (!field)
			return 1;
		sprintf(field, "%s%s%s", inst, own ? "" : ".", var);
		if (with_unit)
			sprintf(field + strlen(field), " [%s]", unit);
		fputc(',', s->out);
		csv_put_field(s->out, field);
		free(field);
	}
	for (int r = 0; r < s->nstring_records; r++) {
		const SimFmu *f = &s->fmus[s->string_records[r].fmu];
		const char *var = f->vars[s->string_records[r].var].name;
		char *field = malloc(strlen(f->name) + strlen(var) + 2);
		if (!field)
			return 1;
		sprintf(field, "%s.%s", f->name, var);
		fputc(',', s->out);
		csv_put_field(s->out, field);
		free(field);
	}
	fputc('\n', s->out);
	if (fflush(s->out) != 0 || ferror(s->out))
		return 1;
	struct stat st;
	s->rows_out.fd = fileno(s->out);
	s->rows_out.at_once = s->args->realtime > 0 || fstat(s->rows_out.fd, &st) != 0 ||
	                      !S_ISREG(st.st_mode);
	watchdog_rows = &s->rows_out;
	return 0;
}

/* The SartScenario over the FMUs' descriptions (their dir NULL until extracted). */
static SartScenario scenario(Sim *s)
{
	for (int f = 0; f < s->nfmus; f++) {
		const FmuInfo *in = s->fmus[f].info;
		bool me = s->fmus[f].me;
		s->sfmus[f] = (SartFmu){s->fmus[f].name, s->fmus[f].dir, fmu_identifier(in, me),
		                        in->guid, in->version == FMI_V3 ? SART_FMI3 : SART_FMI2,
		                        sim_caps(in, me), s->fmus[f].vars, in->nvars};
		s->types[f] = (SartFmuTypes){s->fmus[f].vr_types, s->fmus[f].nvr_types,
		                             s->fmus[f].elements, s->fmus[f].nelements,
		                             s->fmus[f].intermediate, s->fmus[f].nintermediate};
		/* the watchdog's timer is armed on the thread that steps: keep the FMUs it
		 * watches on the calling thread */
		if (s->args->step_timeout > 0 && !sim_is_isolated(s, f, s->args->isolate))
			s->sfmus[f].caps |= SART_CAP_SERIAL;
	}
	return (SartScenario){s->sfmus, s->nfmus, s->conns, s->nconns, s->starts, s->nstarts,
	                      s->records, s->nrecords};
}

/* The summary line (and, with --profile, a line per FMU) of one run; label prefixes it
 * ("" or "H = 0.1: " in a sweep). */
static void print_summary(Sim *s, const SartMasterResult *res, int rc, double wall,
                          const char *label)
{
	const SimArgs *a = s->args;
	char loops[160] = "", steps[120] = "", rt[160] = "", events[120] = "", par[120] = "";
	if (a->step_control != SART_STEP_FIXED && res->accepted)
		snprintf(steps, sizeof steps, " (H from %.3g to %.3g)", res->h_min, res->h_max);
	if (res->loop_solves)
		snprintf(loops, sizeof loops, ", %ld loop solves (%ld iterations, %ld loop passes)",
		         res->loop_solves, res->loop_iterations, res->loop_evaluations);
	if (a->event)
		snprintf(events, sizeof events, ", %ld events located (%ld steps redone)",
		         res->events, res->event_trials);
	if (a->realtime > 0)
		snprintf(rt, sizeof rt, ", overruns %ld (largest lateness %.3g s)", s->overruns,
		         s->max_late);
	/* what ran, not what was asked: the master steps FMUs at once only where that pays */
	if (a->threads > 1 && res->parallel_steps > 0)
		snprintf(par, sizeof par, ", %ld FMU steps in parallel on %d thread%s",
		         res->parallel_steps, res->threads, res->threads == 1 ? "" : "s");
	else if (a->threads > 1)
		snprintf(par, sizeof par, ", parallel stepping did not pay: every FMU step ran on "
		         "one thread");
	fprintf(stderr, "sacc simulate: %s%s at t = %s: %ld steps accepted, %ld rejected, "
	        "%ld iterations, %ld rollbacks%s%s%s%s%s, %.3f s wall time%s%s\n", label,
	        rc ? "stopped" : "done", FMT_REAL(res->t), res->accepted, res->rejected, res->iterations,
	        res->rollbacks, steps, loops, events, rt, par, wall, s->defaults[0] ? "; " : "",
	        s->defaults);
	if (!a->profile)
		return;
	double inside = 0;
	for (int f = 0; f < s->nfmus; f++) {
		inside += s->prof[f].seconds;
		fprintf(stderr, "sacc simulate: %sprofile: %s: %.6f s in doStep (%.1f%% of the wall "
		        "time), %ld calls\n", label, s->fmus[f].name, s->prof[f].seconds,
		        wall > 0 ? 100 * s->prof[f].seconds / wall : 0.0, s->prof[f].calls);
	}
	double rest = wall > inside ? wall - inside : 0;
	fprintf(stderr, "sacc simulate: %sprofile: outside doStep: %.6f s (%.1f%%)\n", label, rest,
	        wall > 0 ? 100 * rest / wall : 0.0);
}

/* Which connections carry a discrete value (its output or its input declared discrete, or
 * not a Real): the master holds those inputs over a step, as the FMUs expect. */
static void mark_held_conns(Sim *s)
{
	if (s->held_conns || s->nconns == 0)
		return;
	s->held_conns = arena_alloc(s->c->arena, (size_t)s->nconns);
	for (int c = 0; c < s->nconns; c++) {
		SartRef src = s->conns[c].src, dst = s->conns[c].dst;
		const FmuVar *o = &s->fmus[src.fmu].info->vars[src.var];
		const FmuVar *i = &s->fmus[dst.fmu].info->vars[dst.var];
		s->held_conns[c] = o->type != FT_REAL || i->type != FT_REAL ||
		                   o->variability == VAR_DISCRETE || i->variability == VAR_DISCRETE;
	}
}

/* One run of the scenario at macro step `step`: its points go to the result file, or to
 * s->capture when that is set (a sweep).  Returns 0, or 1 when the run failed. */
static int run_once(Sim *s, const SartScenario *sc, double step, const char *label)
{
	SimArgs *a = s->args;
	mark_held_conns(s);
	SartMasterOptions o = {.start = a->start, .stop = a->stop, .step = step,
	                       .algorithm = a->algorithm, .approx = a->approx,
	                       .iterations = a->iterations, .logger = sim_log, .logger_env = s,
	                       .on_point = on_point, .point_env = s,
	                       .string_starts = s->string_starts,
	                       .nstring_starts = s->nstring_starts,
	                       .string_records = s->string_records,
	                       .nstring_records = s->capture ? 0 : s->nstring_records,
	                       .binaries = s->binaries, .nbinaries = s->nbinaries,
	                       .on_strings = on_strings, .string_conns = s->string_conns,
	                       .nstring_conns = s->nstring_conns, .held_conns = s->held_conns,
	                       .loop_solver = a->loop_solver,
	                       .anderson_memory = a->anderson_memory,
	                       .loop_tolerance = a->loop_tolerance,
	                       .loop_max_iterations = a->loop_max_iterations,
	                       .step_control = a->step_control, .tolerance = a->tolerance,
	                       .min_step = a->min_step, .max_step = a->max_step,
	                       .locate_events = a->event != NULL, .event_indicator = a->event_ref,
	                       .event_tolerance = a->event_tolerance,
	                       .no_rollback = a->no_rollback, .fmu_types = s->types,
	                       .fmu_me = s->me, .fmu_se = s->se,
	                       .threads = a->threads,
	                       .external = s->external, .nexternal = s->nexternal,
	                       .external_value = sim_input_value,
	                       .external_text = sim_input_text,
	                       .external_tick = sim_input_tick,
	                       .external_next_tick = sim_input_next_tick, .external_env = s};
	SartMasterResult res;
	struct sigaction sa, old_int, old_term, old_alrm;
	SimIsolate isolate;
	char why[1024];
	if (sim_isolate_prepare(&isolate, a->isolate, sc, a->step_timeout, a->call_timeout, &o,
	                        why, sizeof why) ||
	    sim_isolate_prepare_wine(&isolate, s, a->wine, &o, why, sizeof why)) {
		fprintf(stderr, "sacc simulate: %s\n", why);
		return 1;
	}
	s->rows = 0;
	s->last_t = a->start;
	s->overruns = 0;
	s->max_late = 0;
	s->prog_last = -1;
	for (int f = 0; f < s->nfmus; f++)
		s->prof[f] = (SimProfile){0, 0, 0};
	o.on_step = a->step_timeout > 0 || a->profile ? on_step : on_step_guarded;
	o.step_env = s;
	if (a->step_timeout > 0) {
		watchdog_argv[0] = "sh";
		watchdog_argv[1] = "-c";
		watchdog_argv[2] = "rm -rf -- \"$1\"; exit 1";
		watchdog_argv[3] = "sh";
		watchdog_argv[4] = s->tmpdir;
		watchdog_argv[5] = NULL;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_watchdog;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, &old_alrm);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	s->run_began = prog_now();
	crash_guard_arm(s->capture ? -1 : s->rows_out.fd, &s->rows_out.data, &s->rows_out.len,
	                &s->rows, &s->last_t, s->tmpdir);
	int rc = sart_master_run(sc, &o, &res);
	crash_guard_disarm();
	if (!s->capture && s->rows_out.len)
		flush_rows(s);
	double wall = prog_now() - s->run_began;
	clear_progress(s);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (a->step_timeout > 0) {
		struct itimerval off;
		memset(&off, 0, sizeof off);
		setitimer(ITIMER_REAL, &off, NULL);
		sigaction(SIGALRM, &old_alrm, NULL);
	}
	if (s->out_failed && s->capture)
		fputs("sacc simulate: out of memory keeping the run's points\n", stderr);
	else if (s->out_failed)
		fprintf(stderr, "sacc simulate: cannot write the result%s%s: %s\n",
		        a->out ? " to " : "", a->out ? a->out : "", strerror(errno));
	else if (sim_interrupted)
		fputs("sacc simulate: interrupted\n", stderr);
	print_summary(s, &res, rc, wall, label);
	return rc ? 1 : 0;
}

/* ---- the sweep (--sweep H1,H2,...) ------------------------------------------------------- */

static void fmt_num(char *buf, size_t size, double x)
{
	if (isnan(x))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.4e", x);
}

/* The reference file: every recorded variable a column, its times over [start, stop].
 * Returns 0, or 1 after saying what is wrong. */
static int check_reference(Sim *s, const CsvTable *ref, const CsvTable *names)
{
	int missing = 0;
	for (int c = 1; c < names->ncols; c++)
		if (csv_column(ref, names->names[c]) < 0) {
			if (!missing++)
				fprintf(stderr, "sacc simulate: --reference %s has no column", s->args->reference);
			fprintf(stderr, " '%s'", names->names[c]);
		}
	for (int c = 1; !missing && c < names->ncols; c++) {
		char msg[1024];
		if (!csv_numeric(ref, csv_column(ref, names->names[c]), msg, sizeof msg)) {
			fprintf(stderr, "sacc simulate: --reference %s\n", msg);
			return 1;
		}
	}
	if (missing) {
		fprintf(stderr, " (recorded variable%s); its columns are:", missing > 1 ? "s" : "");
		for (int c = 0; c < ref->ncols; c++)
			fprintf(stderr, " %s", ref->names[c]);
		fputc('\n', stderr);
		return 1;
	}
	double v;
	if (csv_interp(ref, 0, s->args->start, &v) || csv_interp(ref, 0, s->args->stop, &v)) {
		fprintf(stderr, "sacc simulate: --reference %s covers t = %s to %s, the runs "
		        "go from %s to %s\n", s->args->reference,
		        FMT_REAL(ref->nrows ? csv_at(ref, 0, 0) : NAN),
		        FMT_REAL(ref->nrows ? csv_at(ref, ref->nrows - 1, 0) : NAN),
		        FMT_REAL(s->args->start), FMT_REAL(s->args->stop));
		return 1;
	}
	return 0;
}

/* An empty table of time and the recorded variables, named as write_header names them
 * (INSTANCE.VARIABLE).  NULL when out of memory. */
static CsvTable *record_table(const Sim *s)
{
	CsvTable *t = NULL;
	const char **cols = calloc((size_t)s->nrecords + 1, sizeof *cols);
	char **owned = calloc((size_t)s->nrecords + 1, sizeof *owned);
	if (!cols || !owned)
		goto done;
	cols[0] = "time";
	for (int r = 0; r < s->nrecords; r++) {
		const SimFmu *f = &s->fmus[s->records[r].fmu];
		const char *col = s->cols ? s->cols[r].name : NULL; /* an SSP's output */
		const char *var = f->vars[s->records[r].var].name;
		owned[r] = malloc(col ? strlen(col) + 1 : strlen(f->name) + strlen(var) + 2);
		if (!owned[r])
			goto done;
		if (col)
			strcpy(owned[r], col);
		else
			sprintf(owned[r], "%s.%s", f->name, var);
		cols[r + 1] = owned[r];
	}
	t = csv_new(s->nrecords + 1, cols); /* copies the names */
done:
	if (owned)
		for (int r = 0; r < s->nrecords; r++)
			free(owned[r]);
	free(owned);
	free(cols);
	return t;
}

/* Runs the scenario once per step and prints, per recorded variable, each run's error
 * against the reference and the observed order between neighbouring runs; to stdout, and
 * as CSV to --sweep-csv.  A failed run shows as failed (exit 1 at the end). */
static int run_sweep(Sim *s, const SartScenario *sc, const double *hs, int nh)
{
	SimArgs *a = s->args;
	int rc = 1;
	FILE *csv = NULL;
	CsvTable *ref = NULL, *names = NULL;
	CsvTable **runs = calloc((size_t)nh, sizeof *runs);
	int *failed = calloc((size_t)nh, sizeof *failed);
	s->row = calloc((size_t)s->nrecords + 1, sizeof *s->row);
	if (!runs || !failed || !s->row || !(names = record_table(s)))
		goto oom;
	if (a->reference) {
		char err[1024];
		if (!(ref = csv_read(a->reference, err, sizeof err))) {
			fprintf(stderr, "sacc simulate: --reference %s\n", err);
			goto done;
		}
		if (check_reference(s, ref, names))
			goto done;
	}
	if (a->sweep_csv && !(csv = fopen(a->sweep_csv, "w"))) {
		fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a->sweep_csv, strerror(errno));
		goto done;
	}
	int nfailed = 0;
	for (int k = 0; k < nh && !sim_interrupted; k++) {
		char label[64];
		snprintf(label, sizeof label, "H = %s: ", FMT_REAL(hs[k]));
		if (!(s->capture = runs[k] = csv_new(names->ncols, (const char *const *)names->names)))
			goto oom;
		failed[k] = run_once(s, sc, hs[k], label);
		s->capture = NULL;
		nfailed += failed[k];
	}
	if (sim_interrupted)
		goto done;
	const CsvTable *against = ref;
	int self = -1; /* the run that is the reference */
	if (!ref) {
		self = nh - 1;
		if (failed[self]) {
			fprintf(stderr, "sacc simulate: the finest run (H = %s) failed: no reference "
			        "to compare with (--reference FILE gives one)\n", FMT_REAL(hs[self]));
			goto done;
		}
		against = runs[self];
	}
	if (ref)
		printf("sweep: %d steps against %s\n", nh, a->reference);
	else
		printf("sweep: %d steps against the finest run (H = %s)\n", nh, FMT_REAL(hs[self]));
	if (csv)
		fputs("variable,H,status,max_error,rms_error,order\n", csv);
	for (int c = 1; c < names->ncols; c++) {
		const char *name = names->names[c];
		int fc = csv_column(against, name);
		printf("\n%s\n  %-12s %-12s %-12s %s\n", name, "H", "max error", "RMS error", "order");
		double prev_e = NAN, prev_h = NAN;
		for (int k = 0; k < nh; k++) {
			if (k == self || failed[k]) {
				printf("  %-12s %s\n", FMT_REAL(hs[k]), k == self ? "reference" : "failed");
				if (csv)
					fprintf(csv, "%s,%s,%s,,,\n", name, FMT_REAL(hs[k]),
					        k == self ? "reference" : "failed");
				continue;
			}
			SweepError e;
			char err[512];
			if (sweep_compare(against, fc, runs[k], c, &e, err, sizeof err)) {
				fprintf(stderr, "sacc simulate: H = %s, %s: %s\n", FMT_REAL(hs[k]), name, err);
				goto done;
			}
			double order = sweep_order(prev_e, prev_h, e.max, hs[k]);
			char me[32], re[32], od[32];
			fmt_num(me, sizeof me, e.max);
			fmt_num(re, sizeof re, e.rms);
			if (isnan(order))
				snprintf(od, sizeof od, "-");
			else
				snprintf(od, sizeof od, "%.2f", order);
			printf("  %-12s %-12s %-12s %s\n", FMT_REAL(hs[k]), me, re, od);
			if (csv) {
				fprintf(csv, "%s,%s,ok,%s,%s,", name, FMT_REAL(hs[k]), FMT_REAL(e.max),
				        FMT_REAL(e.rms));
				if (!isnan(order))
					fputs(FMT_REAL(order), csv);
				fputc('\n', csv);
			}
			prev_e = e.max;
			prev_h = hs[k];
		}
	}
	fflush(stdout);
	rc = nfailed ? 1 : 0;
	goto done;
oom:
	fputs("sacc simulate: out of memory\n", stderr);
	rc = 1;
done:
	if (csv && fclose(csv) != 0 && rc == 0) {
		fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a->sweep_csv, strerror(errno));
		rc = 1;
	}
	if (runs)
		for (int k = 0; k < nh; k++)
			csv_free(runs[k]);
	free(runs);
	free(failed);
	free(s->row);
	s->row = NULL;
	csv_free(ref);
	csv_free(names);
	return rc;
}

/* --explain: the connections between different units and what is done about them. */
static void print_conversions(const Sim *s)
{
	if (s->ssp) {
		sim_print_ssp_conversions(s, s->args->no_unit_conversion);
		return;
	}
	int n = 0;
	for (Node *e = s->module ? s->module->root->list2 : NULL; e; e = e->next) {
		if (e->kind != ND_CONNECTION || !e->converts)
			continue;
		int fs = sim_find_instance(s, e->lhs->owner), fd = sim_find_instance(s, e->rhs->owner);
		const FmuInfo *si = s->fmus[fs].info, *di = s->fmus[fd].info;
		const FmuVar *src = &si->vars[sim_var_index(si, e->lhs->name)];
		const FmuVar *dst = &di->vars[sim_var_index(di, e->rhs->name)];
		if (n++ == 0)
			printf("unit conversions%s:\n", s->args->no_unit_conversion
			       ? " (not applied: --no-unit-conversion)" : "");
		printf("  %s.%s [%s] -> %s.%s [%s]: x %s", e->lhs->owner, e->lhs->name, src->unit,
		       e->rhs->owner, e->rhs->name, dst->unit, FMT_REAL(e->scale));
		if (e->offset != 0)
			printf(" %s%s", e->offset > 0 ? "+" : "", FMT_REAL(e->offset));
		putchar('\n');
	}
	if (n == 0)
		printf("unit conversions: none\n");
}

/* One --interface value applied: "cs" or "me" to every FMU that offers that interface,
 * "INST=cs" or "INST=me" to one instance, refused when it lacks the interface.  Returns 0,
 * or 2 after a usage error. */
static int apply_interface(Sim *s, const char *v)
{
	const char *eq = strchr(v, '=');
	const char *kind = eq ? eq + 1 : v;
	bool me = strcmp(kind, "me") == 0;
	if (!me && strcmp(kind, "cs") != 0)
		return cli_usage_error("--interface: '%s' is neither cs nor me%s", kind,
		                       eq ? "" : " (nor INST=cs, INST=me)");
	if (!eq) {
		int offering = 0;
		for (int f = 0; f < s->nfmus; f++) {
			const FmuInfo *in = s->fmus[f].info;
			if (me ? in->has_model_exchange : in->has_cosim) {
				s->fmus[f].me = me;
				offering++;
			}
		}
		if (offering == 0)
			return cli_usage_error("--interface %s: no FMU of '%s' offers %s", kind,
			                       s->args->target,
			                       me ? "Model Exchange" : "Co-Simulation");
		return 0;
	}
	size_t n = (size_t)(eq - v);
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		if (strlen(fm->name) != n || strncmp(fm->name, v, n) != 0)
			continue;
		if (!(me ? fm->info->has_model_exchange : fm->info->has_cosim))
			return cli_usage_error("--interface %s: %s (%s) offers no %s interface; it "
			                       "offers %s only", v, fm->name, fm->info->path,
			                       me ? "Model Exchange" : "Co-Simulation",
			                       me ? "Co-Simulation" : "Model Exchange");
		fm->me = me;
		return 0;
	}
	const char **names = malloc(((size_t)s->nfmus + 1) * sizeof *names);
	for (int f = 0; names && f < s->nfmus; f++)
		names[f] = s->fmus[f].name;
	char *inst = strndup(v, n);
	const char *near = names && inst ? cli_suggest(inst, names, s->nfmus) : NULL;
	cli_usage_error("--interface %s: no instance '%s'%s%s%s", v, inst ? inst : v,
	                near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	free(names);
	free(inst);
	return 2;
}

/* Which interface each FMU runs through: its only one, Co-Simulation when it offers both
 * (unless an SSP component's implementation attribute names one: the reader checked that
 * the FMU offers it), then the --interface values in order (a later one wins).  The Model
 * Exchange settings given with no FMU run so are a mistake worth saying.  Returns 0, or 2
 * after a usage error. */
static int choose_interfaces(Sim *s)
{
	SimArgs *a = s->args;
	for (int f = 0; f < s->nfmus; f++) {
		SspImplementation impl = s->flat && f < s->flat->ncomps
		                         ? s->flat->comps[f].elem->implementation : SSP_IMPL_ANY;
		s->fmus[f].me = impl == SSP_IMPL_ANY ? fmu_me_by_default(s->fmus[f].info)
		                                     : impl == SSP_IMPL_ME;
	}
	for (int i = 0; i < a->interfaces.n; i++)
		if (apply_interface(s, a->interfaces.items[i]))
			return 2;
	bool any = false;
	for (int f = 0; f < s->nfmus; f++)
		any = any || s->fmus[f].me;
	if (!any && (a->solver >= 0 || a->me_tolerance > 0 || a->me_max_step > 0))
		return cli_usage_error("%s: no FMU of '%s' runs as Model Exchange (--interface me "
		                       "chooses it for those that offer it)",
		                       a->solver >= 0 ? "--solver" : a->me_tolerance > 0
		                       ? "--me-tolerance" : "--me-max-step", a->target);
	return 0;
}

/* SartMasterOptions.fmu_me: per FMU run as Model Exchange, the options' solver settings
 * and what its description says (the state and event indicator counts FMI 2.0 cannot
 * ask for, the experiment's tolerance, the states' value references for a Jacobian from
 * directional derivatives, the Reals it takes only in Event Mode).  Returns 0, or 1 when out of memory. */
static int me_configs(Sim *s)
{
	const SimArgs *a = s->args;
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		if (!fm->me)
			continue;
		const FmuMe *m = &fm->info->me;
		SartMeConfig *c = &s->me[f];
		c->method = a->solver >= 0 ? a->solver : SART_ODE_AUTO;
		c->tolerance = a->me_tolerance;
		c->default_tolerance = isnan(fm->info->default_tolerance) ||
		                                       !(fm->info->default_tolerance > 0)
		                               ? 0
		                               : fm->info->default_tolerance;
		c->max_step = a->me_max_step;
		c->nstates = m->nstate_elems > 0 ? (size_t)m->nstate_elems : 0;
		c->nevent_indicators = m->nevent_indicators > 0 ? (size_t)m->nevent_indicators : 0;
		free(fm->me_event_vrs);
		fm->me_event_vrs = fmu_me_event_vrs(fm->info, &c->nevent_vrs);
		c->event_vrs = fm->me_event_vrs;
		if (!m->provides_directional_derivative || !m->scalar_states || m->nstates == 0)
			continue;
		free(fm->me_vrs);
		fm->me_vrs = malloc(2 * (size_t)m->nstates * sizeof *fm->me_vrs);
		if (!fm->me_vrs)
			return 1;
		for (int k = 0; k < m->nstates; k++) {
			fm->me_vrs[k] = fm->info->vars[m->states[k].state].vr;
			fm->me_vrs[m->nstates + k] = fm->info->vars[m->states[k].derivative].vr;
		}
		c->state_vrs = fm->me_vrs;
		c->derivative_vrs = fm->me_vrs + m->nstates;
	}
	return 0;
}

static int run(Sim *s)
{
	SimArgs *a = s->args;
	s->sfmus = calloc((size_t)s->nfmus + 1, sizeof *s->sfmus);
	s->types = calloc((size_t)s->nfmus + 1, sizeof *s->types);
	s->prof = calloc((size_t)s->nfmus + 1, sizeof *s->prof);
	s->me = calloc((size_t)s->nfmus + 1, sizeof *s->me);
	s->se = calloc((size_t)s->nfmus + 1, sizeof *s->se);
	s->names = calloc((size_t)s->nfmus + 1, sizeof *s->names);
	if (!s->sfmus || !s->types || !s->prof || !s->me || !s->se || !s->names ||
	    me_configs(s) || sim_se_configs(s))
		return 1;
	for (int f = 0; f < s->nfmus; f++)
		s->names[f] = s->fmus[f].name;
	sim_choose_wine(s, a->wine);
	SartScenario sc = scenario(s);

	if (a->explain) {
		char err[512];
		SartAnalysis *an;
		if (sart_analyse(&sc, &an, err, sizeof err)) {
			fprintf(stderr, "sacc simulate: %s\n", err);
			return 1;
		}
		sart_analysis_print(stdout, &sc, an);
		sart_analysis_free(an);
		print_conversions(s);
		return sim_print_sharing(s, a->isolate);
	}

	/* what the options leave out, from the DefaultExperiment; the stop against the start */
	int rc = sim_default_experiment(s, &a->start, &a->stop, &a->step, !a->sweep);
	if (rc)
		return rc;

	if (sim_extract_all(s))
		return 1;
	sc = scenario(s);
	if (a->probe) {
		char msg[1024];
		/* the sized types and the Model Exchange settings, as a run has them */
		SartMasterOptions po = {.fmu_types = s->types, .fmu_me = s->me, .fmu_se = s->se};
		/* an FMU with a Windows library only is probed in its host under Wine */
		SimIsolate wine;
		if (sim_isolate_prepare(&wine, NULL, &sc, 0, a->call_timeout, &po, msg, sizeof msg) ||
		    sim_isolate_prepare_wine(&wine, s, NULL, &po, msg, sizeof msg)) {
			cli_error("%s", msg);
			return 1;
		}
		int pr = sart_probe_state(&sc, 0, a->start, a->step, &po, msg, sizeof msg);
		if (pr == 0) {
			printf("%s: %s\n", s->fmus[0].name, msg);
			return 0;
		}
		cli_error("%s%s", pr < 0 ? "cannot tell whether restoring the state works: "
		                         : "state restore does not work: ", msg);
		return 1;
	}
	sim_warn_unfed_inputs(s);
	s->tty = isatty(STDERR_FILENO) != 0;
	if (a->sweep)
		return run_sweep(s, &sc, a->steps, a->nsteps);
	if (a->out) {
		s->out = fopen(a->out, "w");
		if (!s->out) {
			fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a->out, strerror(errno));
			return 1;
		}
	} else {
		s->out = stdout;
	}
	if (write_header(s)) {
		fprintf(stderr, "sacc simulate: cannot write the result: %s\n", strerror(errno));
		return 1;
	}
	return run_once(s, &sc, a->step, "");
}

/* `sacc inspect FILE.fmu` without --probe-state: the model description, of any FMU sacc can
 * read, also one it cannot simulate or wrap (the printers say why). */
static int print_description(Compilation *c, const SimArgs *a)
{
	struct stat st;
	if (stat(a->target, &st) == 0 && S_ISDIR(st.st_mode))
		return drv_open_fmu(c, a->target, (Loc){a->target, 0, 0, 0}) ? 0 : 1; /* its error */
	FmuInfo *f = fmu_open_any(a->target, c->diag);
	if (!f)
		return 1;
	if (a->json)
		fmu_print_json(stdout, f);
	else
		fmu_print_table(stdout, f);
	fmu_free(f);
	return 0;
}

/* The target loaded, the references resolved, the run; returns the exit status. */
static int load_and_run(Sim *s)
{
	Compilation *c = s->c;
	SimArgs *a = s->args;
	if (is_fmu_path(a->target)) {
		FmuInfo *info = drv_open_fmu(c, a->target, (Loc){a->target, 0, 0, 0});
		s->fmus = calloc(2, sizeof *s->fmus);
		if (!info || !s->fmus || sim_add_fmu(s, info->model_identifier, info,
		                                     (Loc){a->target, 0, 0, 0}))
			return 1;
	} else if (ssp_is_path(a->target)) {
		if (sim_load_ssp(s, a->target, a->no_unit_conversion))
			return 1;
	} else if (sim_load_scenario(s, a->target, a->no_unit_conversion)) {
		return 1;
	}
	int rc;
	if ((rc = sim_collect_records(s, &a->records)) != 0 ||
	    (rc = sim_collect_sets(s, &a->sets)) != 0 ||
	    (a->event &&
	     (rc = sim_parse_ref(s, "--event", a->event, strlen(a->event), &a->event_ref)) != 0))
		return rc;
	if ((rc = choose_interfaces(s)) != 0)
		return rc;
	if (a->input && sim_load_input(s, a->input))
		return 1;
	if (s->cols && !(s->conv_row = calloc((size_t)s->nrecords + 1, sizeof *s->conv_row)))
		return 1;
	return run(s);
}

int sim_main(const CliCommand *cmd, int argc, char **argv)
{
	Compilation *c = drv_new(stderr);
	SimArgs a;
	Sim s;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	int rc = 1;
	if (!c) {
		cli_error("out of memory");
		return 1;
	}
	diag_set_prog(c->diag, cli_prog());
	s.c = c;
	s.args = &a;
	rc = parse_args(cmd, c, argc, argv, &a);
	if (rc < 0)
		rc = 0; /* --help */
	else if (rc == 0 && cmd->id == CMD_INSPECT && !a.probe)
		rc = print_description(c, &a);
	else if (rc == 0)
		rc = load_and_run(&s);
	if (s.out && s.out != stdout && fclose(s.out) != 0 && rc == 0) {
		fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a.out, strerror(errno));
		rc = 1;
	}
	watchdog_rows = NULL;
	free(s.rows_out.data);
	if (s.tmpdir && zip_rmtree(s.tmpdir) != 0)
		cli_error("cannot remove %s: %s", s.tmpdir, strerror(errno));
	free(s.tmpdir);
	for (int f = 0; f < s.nfmus; f++) {
		free(s.fmus[f].vars);
		free(s.fmus[f].vr_types);
		free(s.fmus[f].dir);
		free(s.fmus[f].me_vrs);
		free(s.fmus[f].me_event_vrs);
		free(s.fmus[f].intermediate);
		free(s.fmus[f].clocks);
	}
	free(s.me);
	free(s.se);
	free(a.interfaces.items);
	free(s.fmus);
	name_index_free(&s.instances);
	free(s.sfmus);
	free(s.types);
	free(s.prof);
	free(s.names);
	free(s.conns);
	free(s.string_conns);
	free(s.string_starts);
	free(s.starts);
	csv_free(s.input);
	free(s.external);
	free(s.ext_col);
	free(s.ext_held);
	free(s.ext_size);
	free(s.records);
	free(s.cols);
	free(s.outputs);
	free(s.conv_row);
	ssp_free(s.ssp);
	free(s.string_records);
	free(s.binaries);
	free(a.records.items);
	free(a.sets.items);
	free(a.steps);
	drv_free(c);
	return rc;
}
