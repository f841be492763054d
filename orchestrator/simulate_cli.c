/* simulate_cli.c — `sacc simulate TARGET`: the glue between the front end and the
 * orchestrator core (sart_master.h).
 *
 *   sacc simulate [-I DIR] [-L DIR] TARGET [--start T0] [--stop T1] [--step H]
 *                 [--master jacobi|gauss-seidel] [--approx hold|linear] [--iterations K]
 *                 [--loop-solver fixed-point|anderson|newton] [--anderson-memory M]
 *                 [--loop-tolerance TOL] [--loop-max-iterations N]
 *                 [--step-control doubling|prediction] [--tolerance TOL]
 *                 [--min-step H] [--max-step H]
 *                 [--step-timeout SECONDS] [--realtime [SCALE] [--max-overruns N]]
 *                 [--profile]
 *                 [--sweep H1,H2,... [--reference REF.csv] [--sweep-csv FILE]]
 *                 [--record INST.VAR,...] [--set INST.VAR=VALUE]... [-o RESULT.csv]
 *                 [--explain]
 *
 * TARGET is one .fmu (its instance is named after its model identifier) or a scenario
 * module (LANGUAGE.md section 6: `fmu` declarations and top-level connections), loaded and
 * checked by the driver as `sacc check` does.  Each FMU is extracted with pkg_extract_fmu
 * into a private temporary directory, removed on every way out.  The model descriptions
 * (FmuInfo) become a SartScenario; sart_master_run steps it and hands each accepted
 * communication point to the CSV writer here, which flushes it at once, so a run that
 * fails leaves every accepted step on disk.  The same point callback paces the run
 * (--realtime) and draws the progress line; the doStep hook arms the watchdog
 * (--step-timeout) and times each FMU (--profile).  --sweep runs the scenario once per
 * macro step, keeps the points in memory (csv.h tables) and compares them (sweep.h).
 *
 * Like the rest of orchestrator/, this file is not part of libsacc.a (see the Makefile):
 * compiler/ never links runtime/. */
#define _XOPEN_SOURCE 700 /* setitimer */
#include "simulate_cli.h"
#include "sim_types.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "csv.h"
#include "driver.h"
#include "fmu.h"
#include "numfmt.h"
#include "package.h"
#include "progress.h"
#include "sart_master.h"
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

/* The result's rows gathered for the next write(2) (write_point). */
typedef struct RowBuf {
	int fd;            /* the result's descriptor */
	char *data;
	size_t len, cap;
	bool at_once;      /* each row written as it comes: someone may be reading */
} RowBuf;

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

static void sim_usage(FILE *out)
{
	fputs("usage: sacc simulate [-I DIR] [-L DIR] TARGET [--start T0] [--stop T1] [--step H]\n"
	      "                     [--master ", out);
	for (const SartAlgorithmInfo *alg = sart_algorithms; alg->name; alg++)
		fprintf(out, "%s%s", alg == sart_algorithms ? "" : "|", alg->name);
	fputs("]\n"
	      "                     [--approx hold|linear|quadratic|hermite]\n"
	      "                     [--iterations K] [--loop-solver fixed-point|anderson|newton]\n"
	      "                     [--anderson-memory M] [--loop-tolerance TOL]\n"
	      "                     [--loop-max-iterations N] [--step-control doubling|prediction]\n"
	      "                     [--tolerance TOL] [--min-step H] [--max-step H]\n"
	      "                     [--step-timeout SECONDS] [--realtime [SCALE]]\n"
	      "                     [--max-overruns N] [--profile]\n"
	      "                     [--event INST.VAR [--event-tolerance SECONDS]] [--no-rollback]\n"
	      "                     [--sweep H1,H2,... [--reference REF.csv] [--sweep-csv FILE]]\n"
	      "                     [--record INST.VAR,...] [--set INST.VAR=VALUE]...\n"
	      "                     [-o RESULT.csv] [--explain] [--no-unit-conversion]\n"
	      "\n", out);
	/* two strings: C99 compilers need not take one longer than 4095 characters */
	fputs("  TARGET        an .fmu, or a scenario module (fmu declarations and connections)\n"
	      "  --start T0    start time (default 0)\n"
	      "  --stop T1     stop time (default: the DefaultExperiment's, else 1)\n"
	      "  --step H      macro step (default (T1 - T0) / 500)\n"
	      "  --master      the master algorithm (default gauss-seidel):\n", out);
	for (const SartAlgorithmInfo *alg = sart_algorithms; alg->name; alg++)
		fprintf(out, "                  %-13s %s\n", alg->name, alg->summary);
	fputs("  --approx      input approximation: hold (default), linear, quadratic (through\n"
	      "                the last three points) or hermite (from the source's output\n"
	      "                derivatives; linear when it has none)\n"
	      "  --iterations  K extra passes over each step, with rollback (default 0)\n"
	      "  --loop-solver how algebraic loops are solved: fixed-point, anderson (default)\n"
	      "                or newton (finite-difference Jacobian)\n"
	      "  --anderson-memory  M past iterates Anderson uses (default 1: secant)\n"
	      "  --loop-tolerance   converged when |G(x) - x| <= TOL max(1, |x|) (default 1e-10)\n"
	      "  --loop-max-iterations  bound on a loop solve's iterations (default 100)\n"
	      "  --step-control variable steps: error by step doubling or by prediction (the\n"
	      "                inputs given against the outputs realised); --step is the first\n"
	      "  --tolerance   on the error estimate, relative beyond 1 (default 1e-3)\n"
	      "  --min-step    accepted whatever its error (default 1e-6 H)\n"
	      "  --max-step    never exceeded (default T1 - T0)\n"
	      "  --step-timeout  wall-clock limit on one doStep of one FMU; an FMU that\n"
	      "                overruns it stops the run (exit 1, the result kept)\n"
	      "  --realtime    pace the run: the point at t waits until (t - T0) * SCALE wall\n"
	      "                seconds after the first (SCALE: wall seconds per simulated\n"
	      "                second, default 1); a point reached later is an overrun, counted\n"
	      "                in the summary with the largest lateness\n"
	      "  --max-overruns  stop the run (exit 1) at the overrun after N\n"
	      "  --profile     wall time inside each FMU's doStep and its calls, in the summary\n"
	      "  --no-rollback save no FMU state before each step (faster; a discard then\n"
	      "                stops the run; refused with iterations, step control, events)\n"
	      "  --event       locate the sign changes of this output: a step over one is\n"
	      "                redone shorter (regula falsi from restored states) until a\n"
	      "                point lies within --event-tolerance after it (default 1e-6 H)\n"
	      "  --sweep       run once per macro step H1,H2,... and print, per recorded\n"
	      "                variable, the largest and RMS error against the reference and\n"
	      "                the observed order log(e1/e2)/log(H1/H2) (no -o, no --step)\n"
	      "  --reference   the reference of --sweep, a result CSV (interpolated linearly\n"
	      "                at each run's points); default: the run at the finest H\n"
	      "  --sweep-csv   also write the sweep's table as CSV to FILE\n"
	      "  --record      the variables to write (default: every output)\n"
	      "  --set         a start value or parameter, before initialization\n"
	      "  -o FILE       the CSV result (default: standard output)\n"
	      "  --explain     print the structural analysis and the unit conversions, and stop\n"
	      "  --no-unit-conversion  connect values as they are, whatever their declared\n"
	      "                units (what a master blind to units does; for comparison)\n"
	      "\n"
	      "  A progress line is drawn on standard error when it is a terminal and the run\n"
	      "  lasts over a second; it is erased at the end.\n",
	      out);
}

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
	double realtime;     /* wall seconds per simulated second, 0 for none */
	int max_overruns;    /* more stop the run; -1 for no limit */
	bool profile;
	const char *sweep;   /* the H list, NULL for none */
	const char *reference;
	const char *sweep_csv;
	bool explain;
	bool no_unit_conversion; /* wire values as they are, as a master blind to units does */
	bool no_rollback;        /* no state saved per step: a discard stops the run */
	const char *event;       /* --event INST.VAR: the indicator, NULL for none */
	double event_tolerance;  /* s, 0 for the master's default */
	SartRef event_ref;       /* event, resolved */
	bool probe;          /* sacc inspect --probe-state */
	const char **records; /* each a comma-separated list */
	int nrecords;
	const char **sets;
	int nsets;
} SimArgs;

static int usage_error(const char *fmt, const char *a, const char *b)
{
	fputs("sacc simulate: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 2;
}

/* ---- the options ---------------------------------------------------------------------------
 * One row per option in sim_options below: its name, whether it takes a value, the setter
 * and, for the setters shared by several options, the SimArgs field they write.  A new
 * master option is a row (and, when no setter fits, a setter). */

typedef enum OptArg {
	OPT_FLAG,        /* no value */
	OPT_VALUE,       /* --opt VALUE or --opt=VALUE */
	OPT_OPT_NUMBER   /* an optional number: --opt=X, or --opt X when X is a number */
} OptArg;

typedef struct SimOption {
	const char *name;
	OptArg arg;
	int (*set)(Compilation *c, SimArgs *a, const char *opt, const char *val, size_t field);
	size_t field; /* offsetof(SimArgs, ...) for the shared setters */
} SimOption;

#define FIELD(T) (*(T *)((char *)a + field))

static int set_include(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)a, (void)o, (void)field;
	drv_add_include_dir(c, v);
	return 0;
}

static int set_fmu_dir(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)a, (void)o, (void)field;
	drv_add_fmu_dir(c, v);
	return 0;
}

static int set_string(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c, (void)o;
	FIELD(const char *) = v;
	return 0;
}

static int set_flag(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c, (void)o, (void)v;
	FIELD(bool) = true;
	return 0;
}

/* Any finite number (times). */
static int set_finite(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c;
	if (!csv_number(v, &FIELD(double)))
		return usage_error("%s: '%s' is not a finite number", o, v);
	return 0;
}

static int set_positive(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c;
	double x;
	if (!csv_number(v, &x) || !(x > 0))
		return usage_error("%s: '%s' is not a positive number", o, v);
	FIELD(double) = x;
	return 0;
}

static int set_seconds(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c;
	double x;
	if (!csv_number(v, &x) || !(x > 0) || x > 1e6)
		return usage_error("%s: '%s' is not a positive number of seconds", o, v);
	FIELD(double) = x;
	return 0;
}

/* --realtime [SCALE]: 1 when no value came. */
static int set_realtime(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c;
	double x = 1;
	if (v && (!csv_number(v, &x) || !(x > 0)))
		return usage_error("%s: '%s' is not a positive number of wall seconds per simulated "
		                   "second", o, v);
	FIELD(double) = x;
	return 0;
}

/* A count from 1 (--anderson-memory: to 100). */
static int set_count(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c;
	char *end;
	errno = 0;
	long k = strtol(v, &end, 10);
	bool mem = strcmp(o, "--anderson-memory") == 0;
	if (!*v || *end || errno || k < 1 || k > (mem ? 100 : 1000000))
		return usage_error(mem ? "%s: '%s' is not a count from 1 to 100"
		                       : "%s: '%s' is not a count from 1", o, v);
	FIELD(int) = (int)k;
	return 0;
}

/* A count from 0. */
static int set_count0(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c;
	char *end;
	errno = 0;
	long k = strtol(v, &end, 10);
	if (!*v || *end || errno || k < 0 || k > 1000000)
		return usage_error("%s: '%s' is not a count from 0", o, v);
	FIELD(int) = (int)k;
	return 0;
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

static int set_master(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c, (void)o, (void)field;
	const SartAlgorithmInfo *alg = sart_algorithm_find(v);
	char names[256];
	if (alg) {
		a->algorithm = (SartAlgorithm)(alg - sart_algorithms);
		return 0;
	}
	algorithm_names(names, sizeof names, " nor ");
	return usage_error("--master: '%s' is neither %s", v, names);
}

static int set_approx(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c, (void)o, (void)field;
	if (strcmp(v, "hold") == 0)
		a->approx = SART_HOLD;
	else if (strcmp(v, "linear") == 0)
		a->approx = SART_LINEAR;
	else if (strcmp(v, "quadratic") == 0)
		a->approx = SART_QUADRATIC;
	else if (strcmp(v, "hermite") == 0)
		a->approx = SART_HERMITE;
	else
		return usage_error("--approx: '%s' is not hold, linear, quadratic or hermite%s", v,
		                   "");
	return 0;
}

static int set_loop_solver(Compilation *c, SimArgs *a, const char *o, const char *v,
                           size_t field)
{
	(void)c, (void)o, (void)field;
	if (strcmp(v, "fixed-point") == 0)
		a->loop_solver = SART_LOOP_FIXED_POINT;
	else if (strcmp(v, "anderson") == 0)
		a->loop_solver = SART_LOOP_ANDERSON;
	else if (strcmp(v, "newton") == 0)
		a->loop_solver = SART_LOOP_NEWTON;
	else
		return usage_error("--loop-solver: '%s' is not fixed-point, anderson or newton%s", v,
		                   "");
	return 0;
}

static int set_step_control(Compilation *c, SimArgs *a, const char *o, const char *v,
                            size_t field)
{
	(void)c, (void)o, (void)field;
	if (strcmp(v, "doubling") == 0)
		a->step_control = SART_STEP_DOUBLING;
	else if (strcmp(v, "prediction") == 0)
		a->step_control = SART_STEP_PREDICTION;
	else
		return usage_error("--step-control: '%s' is neither doubling nor prediction%s", v,
		                   "");
	return 0;
}

static int add_record_arg(Compilation *c, SimArgs *a, const char *o, const char *v,
                          size_t field)
{
	(void)c, (void)o, (void)field;
	a->records[a->nrecords++] = v;
	return 0;
}

static int add_set_arg(Compilation *c, SimArgs *a, const char *o, const char *v, size_t field)
{
	(void)c, (void)o, (void)field;
	a->sets[a->nsets++] = v;
	return 0;
}

#define AT(f) offsetof(SimArgs, f)
static const SimOption sim_options[] = {
	{"-I", OPT_VALUE, set_include, 0},
	{"-L", OPT_VALUE, set_fmu_dir, 0},
	{"-o", OPT_VALUE, set_string, AT(out)},
	{"--start", OPT_VALUE, set_finite, AT(start)},
	{"--stop", OPT_VALUE, set_finite, AT(stop)},
	{"--step", OPT_VALUE, set_finite, AT(step)},
	{"--master", OPT_VALUE, set_master, 0},
	{"--approx", OPT_VALUE, set_approx, 0},
	{"--iterations", OPT_VALUE, set_count0, AT(iterations)},
	{"--loop-solver", OPT_VALUE, set_loop_solver, 0},
	{"--anderson-memory", OPT_VALUE, set_count, AT(anderson_memory)},
	{"--loop-tolerance", OPT_VALUE, set_positive, AT(loop_tolerance)},
	{"--loop-max-iterations", OPT_VALUE, set_count, AT(loop_max_iterations)},
	{"--step-control", OPT_VALUE, set_step_control, 0},
	{"--tolerance", OPT_VALUE, set_positive, AT(tolerance)},
	{"--min-step", OPT_VALUE, set_positive, AT(min_step)},
	{"--max-step", OPT_VALUE, set_positive, AT(max_step)},
	{"--step-timeout", OPT_VALUE, set_seconds, AT(step_timeout)},
	{"--realtime", OPT_OPT_NUMBER, set_realtime, AT(realtime)},
	{"--max-overruns", OPT_VALUE, set_count0, AT(max_overruns)},
	{"--profile", OPT_FLAG, set_flag, AT(profile)},
	{"--sweep", OPT_VALUE, set_string, AT(sweep)},
	{"--reference", OPT_VALUE, set_string, AT(reference)},
	{"--sweep-csv", OPT_VALUE, set_string, AT(sweep_csv)},
	{"--record", OPT_VALUE, add_record_arg, 0},
	{"--set", OPT_VALUE, add_set_arg, 0},
	{"--explain", OPT_FLAG, set_flag, AT(explain)},
	{"--no-unit-conversion", OPT_FLAG, set_flag, AT(no_unit_conversion)},
	{"--no-rollback", OPT_FLAG, set_flag, AT(no_rollback)},
	{"--event", OPT_VALUE, set_string, AT(event)},
	{"--event-tolerance", OPT_VALUE, set_positive, AT(event_tolerance)},
	{NULL, OPT_FLAG, NULL, 0},
};
#undef AT

static int parse_sim_args(Compilation *c, int argc, char **argv, SimArgs *a)
{
	a->algorithm = SART_GAUSS_SEIDEL;
	a->approx = SART_HOLD;
	a->stop = NAN;
	a->step = NAN;
	a->max_overruns = -1;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		const char *val = NULL;
		char name[64];
		/* --opt=value is --opt value */
		const char *eq = strncmp(s, "--", 2) == 0 ? strchr(s, '=') : NULL;
		if (eq && (size_t)(eq - s) < sizeof name) {
			memcpy(name, s, (size_t)(eq - s));
			name[eq - s] = '\0';
			s = name;
			val = eq + 1;
		}
		const SimOption *opt = NULL;
		for (const SimOption *o = sim_options; o->name; o++)
			if (strcmp(s, o->name) == 0)
				opt = o;
		if (!opt) {
			if ((strncmp(s, "-I", 2) == 0 || strncmp(s, "-L", 2) == 0) && s[2]) {
				(s[1] == 'I' ? drv_add_include_dir : drv_add_fmu_dir)(c, s + 2);
				continue;
			}
			if (s[0] == '-' && s[1])
				return usage_error("unknown option '%s'%s", s, "");
			if (a->target)
				return usage_error("one TARGET only ('%s', then '%s')", a->target, s);
			a->target = s;
			continue;
		}
		double x;
		switch (opt->arg) {
		case OPT_FLAG:
			if (val)
				return usage_error("%s takes no value%s", s, "");
			break;
		case OPT_VALUE:
			if (!val) {
				if (i + 1 >= argc)
					return usage_error("%s needs a value%s", s, "");
				val = argv[++i];
			}
			break;
		case OPT_OPT_NUMBER:
			if (!val && i + 1 < argc && csv_number(argv[i + 1], &x))
				val = argv[++i];
			break;
		}
		int rc = opt->set(c, a, s, val, opt->field);
		if (rc)
			return rc;
	}
	if (!a->target)
		return usage_error("no TARGET (an .fmu or a scenario module)%s%s", "", "");
	if (a->max_overruns >= 0 && !(a->realtime > 0))
		return usage_error("--max-overruns belongs to --realtime%s%s", "", "");
	if (a->sweep) {
		if (a->out)
			return usage_error("--sweep writes no result file (-o); --sweep-csv FILE writes "
			                   "its table%s%s", "", "");
		if (!isnan(a->step))
			return usage_error("--sweep gives the macro steps: no --step with it%s%s", "", "");
		if (a->step_control != SART_STEP_FIXED)
			return usage_error("--sweep runs fixed steps: no --step-control with it%s%s", "",
			                   "");
	} else if (a->reference || a->sweep_csv) {
		return usage_error("%s belongs to --sweep%s", a->reference ? "--reference"
		                                                            : "--sweep-csv", "");
	}
	return 0;
}

/* ---- the scenario ------------------------------------------------------------------------- */

/* One FMU instance of the scenario, with the SartVar table made from its description. */
typedef struct SimFmu {
	const char *name;
	FmuInfo *info;
	Loc where;
	char *dir;      /* where it is extracted, malloc'd */
	SartVar *vars;
	SartVrType *vr_types; /* FMI 3.0 sized types (sim_types.h), malloc'd */
	size_t nvr_types;
} SimFmu;

/* --profile: what one FMU's doStep calls cost. */
typedef struct SimProfile {
	double seconds;
	long calls;
} SimProfile;

typedef struct Sim {
	Compilation *c;
	SimArgs *args;
	Module *module;   /* the scenario module; NULL when TARGET is an .fmu */
	SimFmu *fmus;
	int nfmus;
	SartFmu *sfmus;
	SartFmuTypes *types; /* per FMU, for SartMasterOptions.fmu_types */
	SartConnection *conns;
	int nconns;
	SartStart *starts;
	int nstarts;
	SartRef *records;
	int nrecords, caprecords;
	char *tmpdir;
	FILE *out;
	bool out_failed;
	RowBuf rows_out;   /* out's rows, written with write(2) a block at a time */
	long rows;        /* communication points of this run written */
	double last_t;    /* the last one's time */
	CsvTable *capture; /* a sweep's run: the points go here instead of out */
	double *row;       /* time and values, to append to capture */
	double run_began;  /* now_seconds() when this run began */
	bool tty;          /* stderr is a terminal: the progress line may be drawn */
	bool prog_drawn;   /* it is on the screen now */
	double prog_last;  /* when it was last drawn (seconds into the run), < 0 never */
	double rt_origin;  /* --realtime: the wall time of the first point */
	long overruns;     /* --realtime: points reached after their deadline */
	double max_late;   /* the largest lateness, s */
	SimProfile *prof;  /* --profile: per FMU */
	double step_began; /* --profile: when the doStep in progress began */
} Sim;

static SartCausality sart_causality(FmuCausality c)
{
	switch (c) {
	case CAUS_INPUT: return SART_CAUS_INPUT;
	case CAUS_OUTPUT: return SART_CAUS_OUTPUT;
	case CAUS_PARAMETER: return SART_CAUS_PARAMETER;
	default: return SART_CAUS_OTHER;
	}
}

static int add_fmu(Sim *s, const char *name, FmuInfo *info, Loc where)
{
	SimFmu *f = &s->fmus[s->nfmus++];
	f->name = name;
	f->info = info;
	f->where = where;
	f->vars = calloc((size_t)info->nvars + 1, sizeof *f->vars);
	if (!f->vars || sim_vr_types(info, &f->vr_types, &f->nvr_types))
		return 1;
	for (int i = 0; i < info->nvars; i++) {
		const FmuVar *v = &info->vars[i];
		f->vars[i] = (SartVar){v->name, v->vr, sim_sart_type(v), sart_causality(v->causality),
		                       NULL, v->causality == CAUS_OUTPUT ? -1 : 0};
	}
	for (int k = 0; k < info->noutputs; k++) {
		const FmuOutputDep *o = &info->outputs[k];
		if (o->var < 0 || o->var >= info->nvars || !o->deps_given)
			continue;
		f->vars[o->var].deps = o->deps;
		f->vars[o->var].ndeps = o->ndeps;
	}
	return 0;
}

static int var_index(const FmuInfo *info, const char *name)
{
	const FmuVar *v = fmu_find_var(info, name);
	return v ? (int)(v - info->vars) : -1;
}

/* Finds the FMU file of an `fmu` declaration the checker did not open (no connection
 * uses it), the way the checker looks: beside the script, then in each -L directory. */
static const char *find_decl_file(Sim *s, Module *m, const char *path)
{
	const char *p;
	if (path[0] == '/')
		return access(path, R_OK) == 0 ? path : NULL;
	p = arena_printf(s->c->arena, "%s/%s", m->dir, path);
	if (access(p, R_OK) == 0)
		return p;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (int i = 0; i < s->c->nfmu_dirs; i++) {
		p = arena_printf(s->c->arena, "%s/%s", s->c->fmu_dirs[i], path);
		if (access(p, R_OK) == 0)
			return p;
		p = arena_printf(s->c->arena, "%s/%s", s->c->fmu_dirs[i], base);
		if (access(p, R_OK) == 0)
			return p;
	}
	return NULL;
}

static int find_instance(const Sim *s, const char *name)
{
	for (int f = 0; f < s->nfmus; f++)
		if (strcmp(s->fmus[f].name, name) == 0)
			return f;
	return -1;
}

/* A scenario module: its fmu declarations (in order) and connections. */
static int load_scenario(Sim *s, int *nerr)
{
	Compilation *c = s->c;
	Module *m = drv_load(c, s->args->target);
	if (!m || !m->root)
		return 1;
	s->module = m;
	drv_check(c, m);
	if (diag_errors(c->diag))
		return 1;
	int ndecl = 0;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind == ND_ADAPTATION) {
			diag_error(c->diag, e->loc, "'%s' is an adaptation: sacc simulate runs a scenario "
			           "module (fmu declarations and connections) or an .fmu", e->name);
			diag_note(c->diag, e->loc, "build it with sacc build and simulate the .fmu, or "
			          "declare that .fmu in a scenario");
			return 1;
		}
		ndecl += e->kind == ND_FMU_DECL;
		s->nconns += e->kind == ND_CONNECTION;
	}
	s->fmus = calloc((size_t)ndecl + 1, sizeof *s->fmus);
	s->conns = calloc((size_t)s->nconns + 1, sizeof *s->conns);
	if (!s->fmus || !s->conns)
		return 1;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_FMU_DECL)
			continue;
		FmuInfo *info = e->info;
		if (!info) {
			const char *file = find_decl_file(s, m, e->str);
			if (!file) {
				diag_error(c->diag, e->loc, "cannot find fmu '%s' at \"%s\"", e->name, e->str);
				continue;
			}
			info = drv_open_fmu(c, file, e->loc);
			if (!info)
				continue;
		}
		if (add_fmu(s, e->name, info, e->loc))
			return 1;
	}
	if (diag_errors(c->diag))
		return 1;
	if (s->nfmus == 0) {
		diag_error(c->diag, (Loc){m->path, 0, 0, 0}, "no fmu declared: nothing to simulate");
		return 1;
	}
	int k = 0;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_CONNECTION)
			continue;
		int fs = find_instance(s, e->lhs->owner), fd = find_instance(s, e->rhs->owner);
		if (fs < 0 || fd < 0) {
			Node *end = fs < 0 ? e->lhs : e->rhs;
			diag_error(c->diag, end->loc, "'%s' is not an fmu declared in this module: "
			           "connections to adaptations or to fmus of imported modules are not "
			           "implemented yet", end->owner);
			(*nerr)++;
			continue;
		}
		int vs = var_index(s->fmus[fs].info, e->lhs->name);
		int vd = var_index(s->fmus[fd].info, e->rhs->name);
		if (vs < 0 || vd < 0)
			return 1; /* the checker reported it */
		bool convert = e->converts && !s->args->no_unit_conversion;
		s->conns[k++] = (SartConnection){{fs, vs}, {fd, vd},
		                                 convert ? e->scale : 1.0,
		                                 convert ? e->offset : 0.0};
	}
	s->nconns = k;
	return *nerr ? 1 : 0;
}

/* INST.VAR: the instance is the part before the first '.'. */
static int parse_ref(const Sim *s, const char *what, const char *text, size_t len,
                     SartRef *r)
{
	char buf[512];
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	char *dot = strchr(buf, '.');
	if (!dot || dot == buf || !dot[1])
		return usage_error("%s: '%s' is not INSTANCE.VARIABLE", what, buf);
	*dot = '\0';
	r->fmu = find_instance(s, buf);
	if (r->fmu < 0) {
		fprintf(stderr, "sacc simulate: %s: no fmu instance '%s'; the instances are:", what,
		        buf);
		for (int f = 0; f < s->nfmus; f++)
			fprintf(stderr, " %s", s->fmus[f].name);
		fputc('\n', stderr);
		return 2;
	}
	r->var = var_index(s->fmus[r->fmu].info, dot + 1);
	if (r->var < 0) {
		fprintf(stderr, "sacc simulate: %s: fmu '%s' has no variable '%s'\n", what, buf,
		        dot + 1);
		return 2;
	}
	return 0;
}

static int add_record(Sim *s, SartRef r)
{
	if (s->nrecords == s->caprecords) {
		int cap = s->caprecords ? 2 * s->caprecords : 16;
		SartRef *v = realloc(s->records, (size_t)cap * sizeof *v);
		if (!v)
			return 1;
		s->records = v;
		s->caprecords = cap;
	}
	s->records[s->nrecords++] = r;
	return 0;
}

static int collect_records(Sim *s)
{
	if (s->args->nrecords == 0) {
		for (int f = 0; f < s->nfmus; f++)
			for (int i = 0; i < s->fmus[f].info->nvars; i++)
				if (s->fmus[f].vars[i].causality == SART_CAUS_OUTPUT &&
				    s->fmus[f].vars[i].type != SART_OTHER && add_record(s, (SartRef){f, i}))
					return 1;
		return 0;
	}
	for (int k = 0; k < s->args->nrecords; k++) {
		const char *p = s->args->records[k];
		while (*p) {
			size_t len = strcspn(p, ",");
			SartRef r;
			int rc = parse_ref(s, "--record", p, len, &r);
			if (rc)
				return rc;
			char why[96];
			if (s->fmus[r.fmu].vars[r.var].type == SART_OTHER)
				return usage_error("--record: %s is %s, which cannot be recorded yet",
				                   s->fmus[r.fmu].vars[r.var].name,
				                   sim_unsupported(&s->fmus[r.fmu].info->vars[r.var], why,
				                                   sizeof why));
			if (add_record(s, r))
				return 1;
			p += len;
			if (*p == ',')
				p++;
		}
	}
	return 0;
}

static int collect_sets(Sim *s)
{
	s->starts = calloc((size_t)s->args->nsets + 1, sizeof *s->starts);
	if (!s->starts)
		return 1;
	for (int k = 0; k < s->args->nsets; k++) {
		const char *a = s->args->sets[k];
		const char *eq = strchr(a, '=');
		if (!eq)
			return usage_error("--set: '%s' is not INSTANCE.VARIABLE=VALUE%s", a, "");
		SartRef r;
		int rc = parse_ref(s, "--set", a, (size_t)(eq - a), &r);
		if (rc)
			return rc;
		const FmuVar *v = &s->fmus[r.fmu].info->vars[r.var];
		const char *val = eq + 1;
		bool settable = v->causality == CAUS_INPUT || v->causality == CAUS_PARAMETER ||
		                (v->causality != CAUS_INDEPENDENT && v->variability != VAR_CONSTANT &&
		                 (v->initial == INIT_EXACT || v->initial == INIT_APPROX));
		if (!settable)
			return usage_error("--set: %s cannot be set (a constant, a computed variable "
			                   "or the independent variable)%s", a, "");
		double x;
		switch (sim_sart_type(v)) {
		case SART_REAL:
			if (!csv_number(val, &x))
				return usage_error("--set %s: not a finite number%s", a, "");
			break;
		case SART_INTEGER: {
			char *end;
			errno = 0;
			long l = strtol(val, &end, 10);
			if (!*val || *end || errno || l < -2147483647L - 1 || l > 2147483647L)
				return usage_error("--set %s: not an Integer%s", a, "");
			x = (double)l;
			break;
		}
		case SART_BOOLEAN:
			if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
				x = 1;
			else if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
				x = 0;
			else
				return usage_error("--set %s: a Boolean is true, false, 1 or 0%s", a, "");
			break;
		default:
			return usage_error("--set %s: only Real, Integer and Boolean variables can be set "
			                   "yet%s", a, "");
		}
		s->starts[s->nstarts++] = (SartStart){r, x};
	}
	return 0;
}

/* ---- running ----------------------------------------------------------------------------- */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


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
		fprintf(stderr, "sacc simulate: %s\n", message);
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

static int write_point(Sim *s, double t, const double values[], int n)
{
	RowBuf *b = &s->rows_out;
	size_t row_max = ((size_t)n + 1) * (FMT_REAL_MAX + 1);
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
	double now = now_seconds();
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
	double elapsed = now_seconds() - s->run_began;
	if (!prog_due(true, elapsed, s->prog_last))
		return;
	int width = 80;
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		width = ws.ws_col;
	char line[256];
	prog_format(line, sizeof line, width, t, s->args->start, s->args->stop,
	            s->rows > 0 ? s->rows - 1 : 0, elapsed);
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	s->prog_last = elapsed;
	s->prog_drawn = true;
}

/* Every accepted point: the result (file or memory), then pacing and progress. */
static int on_point(void *env, double t, const double values[], int n)
{
	Sim *s = env;
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
	if (s->args->profile && done) {
		s->prof[f].seconds += now_seconds() - s->step_began;
		s->prof[f].calls++;
	}
	if (s->args->step_timeout > 0)
		watch_step(s, f, t, h, done);
	if (s->args->profile && !done)
		s->step_began = now_seconds();
}

static int write_header(Sim *s)
{
	fputs("time", s->out);
	for (int r = 0; r < s->nrecords; r++)
		fprintf(s->out, ",%s.%s", s->fmus[s->records[r].fmu].name,
		        s->fmus[s->records[r].fmu].vars[s->records[r].var].name);
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

static int extract_all(Sim *s)
{
	const char *tmp = getenv("TMPDIR");
	char *templ = malloc(strlen(tmp && *tmp ? tmp : "/tmp") + 32);
	if (!templ)
		return 1;
	sprintf(templ, "%s/sacc-simulate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		fprintf(stderr, "sacc simulate: cannot make a temporary directory %s: %s\n", templ,
		        strerror(errno));
		free(templ);
		return 1;
	}
	s->tmpdir = templ;
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		fm->dir = malloc(strlen(templ) + strlen(fm->name) + 16);
		if (!fm->dir)
			return 1;
		sprintf(fm->dir, "%s/%d-%s", templ, f, fm->name);
		if (pkg_extract_fmu(fm->info->path, fm->dir, fm->info->model_identifier,
		                    (int)fm->info->version, s->c->diag))
			return 1;
	}
	return 0;
}

/* The SartScenario over the FMUs' descriptions (their dir NULL until extracted). */
static SartScenario scenario(Sim *s)
{
	for (int f = 0; f < s->nfmus; f++) {
		const FmuInfo *in = s->fmus[f].info;
		s->sfmus[f] = (SartFmu){s->fmus[f].name, s->fmus[f].dir, in->model_identifier,
		                        in->guid, in->version == FMI_V3 ? SART_FMI3 : SART_FMI2,
		                        sim_caps(in), s->fmus[f].vars, in->nvars};
		s->types[f] = (SartFmuTypes){s->fmus[f].vr_types, s->fmus[f].nvr_types};
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
	char loops[160] = "", steps[120] = "", rt[160] = "", events[120] = "";
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
	fprintf(stderr, "sacc simulate: %s%s at t = %s: %ld steps accepted, %ld rejected, "
	        "%ld iterations, %ld rollbacks%s%s%s%s, %.3f s wall time\n", label,
	        rc ? "stopped" : "done", FMT_REAL(res->t), res->accepted, res->rejected, res->iterations,
	        res->rollbacks, steps, loops, events, rt, wall);
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

/* One run of the scenario at macro step `step`: its points go to the result file, or to
 * s->capture when that is set (a sweep).  Returns 0, or 1 when the run failed. */
static int run_once(Sim *s, const SartScenario *sc, double step, const char *label)
{
	SimArgs *a = s->args;
	SartMasterOptions o = {.start = a->start, .stop = a->stop, .step = step,
	                       .algorithm = a->algorithm, .approx = a->approx,
	                       .iterations = a->iterations, .logger = sim_log, .logger_env = s,
	                       .on_point = on_point, .point_env = s,
	                       .loop_solver = a->loop_solver,
	                       .anderson_memory = a->anderson_memory,
	                       .loop_tolerance = a->loop_tolerance,
	                       .loop_max_iterations = a->loop_max_iterations,
	                       .step_control = a->step_control, .tolerance = a->tolerance,
	                       .min_step = a->min_step, .max_step = a->max_step,
	                       .locate_events = a->event != NULL, .event_indicator = a->event_ref,
	                       .event_tolerance = a->event_tolerance,
	                       .no_rollback = a->no_rollback, .fmu_types = s->types};
	SartMasterResult res;
	struct sigaction sa, old_int, old_term, old_alrm;
	s->rows = 0;
	s->last_t = a->start;
	s->overruns = 0;
	s->max_late = 0;
	s->prog_last = -1;
	for (int f = 0; f < s->nfmus; f++)
		s->prof[f] = (SimProfile){0, 0};
	if (a->step_timeout > 0 || a->profile) {
		o.on_step = on_step;
		o.step_env = s;
	}
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
	s->run_began = now_seconds();
	int rc = sart_master_run(sc, &o, &res);
	if (!s->capture && s->rows_out.len)
		flush_rows(s);
	double wall = now_seconds() - s->run_began;
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
		owned[r] = malloc(strlen(f->name) + strlen(f->vars[s->records[r].var].name) + 2);
		if (!owned[r])
			goto done;
		sprintf(owned[r], "%s.%s", f->name, f->vars[s->records[r].var].name);
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
	int n = 0;
	for (Node *e = s->module ? s->module->root->list2 : NULL; e; e = e->next) {
		if (e->kind != ND_CONNECTION || !e->converts)
			continue;
		int fs = find_instance(s, e->lhs->owner), fd = find_instance(s, e->rhs->owner);
		const FmuVar *src = &s->fmus[fs].info->vars[var_index(s->fmus[fs].info, e->lhs->name)];
		const FmuVar *dst = &s->fmus[fd].info->vars[var_index(s->fmus[fd].info, e->rhs->name)];
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

static int run(Sim *s)
{
	SimArgs *a = s->args;
	s->sfmus = calloc((size_t)s->nfmus + 1, sizeof *s->sfmus);
	s->types = calloc((size_t)s->nfmus + 1, sizeof *s->types);
	s->prof = calloc((size_t)s->nfmus + 1, sizeof *s->prof);
	if (!s->sfmus || !s->types || !s->prof)
		return 1;
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
		return 0;
	}

	if (isnan(a->stop)) {
		a->stop = 1;
		for (int f = 0; f < s->nfmus; f++)
			if (isfinite(s->fmus[f].info->default_stop)) {
				a->stop = s->fmus[f].info->default_stop;
				break;
			}
	}
	if (!(a->stop >= a->start))
		return usage_error("the stop time is before the start time%s%s", "", "");
	if (isnan(a->step))
		a->step = a->stop > a->start ? (a->stop - a->start) / 500 : 1;
	if (!(a->step > 0))
		return usage_error("--step must be positive%s%s", "", "");
	double *hs = NULL;
	int nh = 0;
	if (a->sweep) {
		char err[256];
		nh = sweep_parse_steps(a->sweep, &hs, err, sizeof err);
		if (nh < 0)
			return usage_error("--sweep: %s%s", err, "");
		if (nh < 2 && !a->reference) {
			free(hs);
			return usage_error("--sweep needs two steps or more, or a --reference%s%s", "",
			                   "");
		}
	}

	if (extract_all(s)) {
		free(hs);
		return 1;
	}
	sc = scenario(s);
	if (a->probe) {
		char msg[1024];
		int pr = sart_probe_state(&sc, 0, a->start, a->step, NULL, NULL, msg, sizeof msg);
		free(hs);
		if (pr == 0) {
			printf("%s: %s\n", s->fmus[0].name, msg);
			return 0;
		}
		fprintf(stderr, "sacc inspect: %s%s\n", pr < 0 ? "cannot tell whether restoring "
		        "the state works: " : "state restore does not work: ", msg);
		return 1;
	}
	s->tty = isatty(STDERR_FILENO) != 0;
	if (a->sweep) {
		int rc = run_sweep(s, &sc, hs, nh);
		free(hs);
		return rc;
	}
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

static int sim_entry(int argc, char **argv, bool probe);

int sim_main(int argc, char **argv)
{
	return sim_entry(argc, argv, false);
}

int sim_probe_main(int argc, char **argv)
{
	return sim_entry(argc, argv, true);
}

static int sim_entry(int argc, char **argv, bool probe)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			sim_usage(stdout);
			return 0;
		}
	Compilation *c = drv_new(stderr);
	SimArgs a;
	Sim s;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	int rc = 1;
	if (!c)
		goto oom;
	s.c = c;
	s.args = &a;
	a.records = calloc((size_t)argc + 1, sizeof *a.records);
	a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
	if (!a.records || !a.sets)
		goto oom;
	rc = parse_sim_args(c, argc, argv, &a);
	a.probe = probe;
	if (rc == 0 && probe && (strlen(a.target) <= 4 ||
	                         strcmp(a.target + strlen(a.target) - 4, ".fmu") != 0))
		rc = usage_error("--probe-state: '%s' is not an .fmu%s", a.target, "");
	if (rc) {
		if (rc == 2)
			fputs("(sacc simulate --help for the options)\n", stderr);
		goto done;
	}
	rc = 1;
	size_t tl = strlen(a.target);
	if (tl > 4 && strcmp(a.target + tl - 4, ".fmu") == 0) {
		FmuInfo *info = drv_open_fmu(c, a.target, (Loc){a.target, 0, 0, 0});
		s.fmus = calloc(2, sizeof *s.fmus);
		if (!info || !s.fmus || add_fmu(&s, info->model_identifier, info,
		                                (Loc){a.target, 0, 0, 0}))
			goto done;
	} else {
		int nerr = 0;
		if (load_scenario(&s, &nerr))
			goto done;
	}
	if ((rc = collect_records(&s)) != 0 || (rc = collect_sets(&s)) != 0 ||
	    (a.event && (rc = parse_ref(&s, "--event", a.event, strlen(a.event), &a.event_ref)) != 0))
		goto done;
	rc = run(&s);
	goto done;
oom:
	fputs("sacc simulate: out of memory\n", stderr);
	rc = 1;
done:
	if (s.out && s.out != stdout && fclose(s.out) != 0 && rc == 0) {
		fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a.out, strerror(errno));
		rc = 1;
	}
	watchdog_rows = NULL;
	free(s.rows_out.data);
	if (s.tmpdir && zip_rmtree(s.tmpdir) != 0)
		fprintf(stderr, "sacc simulate: cannot remove %s: %s\n", s.tmpdir, strerror(errno));
	free(s.tmpdir);
	for (int f = 0; f < s.nfmus; f++) {
		free(s.fmus[f].vars);
		free(s.fmus[f].vr_types);
		free(s.fmus[f].dir);
	}
	free(s.fmus);
	free(s.sfmus);
	free(s.types);
	free(s.prof);
	free(s.conns);
	free(s.starts);
	free(s.records);
	free(a.records);
	free(a.sets);
	drv_free(c);
	return rc;
}
