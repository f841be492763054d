/* ensemble.h — `sacc ensemble`: many `sacc simulate` runs of one target, one per row of a
 * design (a parameter study, a Monte Carlo run), on local processes or as a Slurm job
 * array, with the results in one directory and statistics across them.
 *
 * The parts: ensemble_design.c (the design: a table read, a grid, samples, the generator),
 * ensemble_dir.c (the directory: the ensemble's description, each run's status, the index
 * rebuilt from what is on disk), ensemble_run.c (one run, and the local pool),
 * ensemble_slurm.c (the job array, its state), ensemble_stats.c (statistics across runs,
 * the fan chart) and ensemble_cli.c (the command, its options and subcommands). */
#ifndef SACC_ENSEMBLE_H
#define SACC_ENSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* ---- the design ------------------------------------------------------------------------ */

/* Runs (rows) by parameters (columns): values kept as the text given to --set. */
typedef struct EnsDesign {
	int nparams;
	char **params;  /* "INST.VAR", malloc'd */
	int nruns;
	char **ids;     /* each run's id: a file name ([A-Za-z0-9_.-], not starting with '.') */
	char **values;  /* nruns * nparams, row-major, malloc'd */
} EnsDesign;

void ens_design_free(EnsDesign *d);

/* Reads a design table: a header (the run id's column, then INST.VAR names), then one row
 * per run.  Returns 0, or 1 with "path:LINE:COL: ..." in err. */
int ens_design_read(const char *path, EnsDesign *d, char *err, size_t errsize);
/* Writes it as that table (atomically: a temporary file renamed).  Returns 0 or -1. */
int ens_design_write(const char *path, const EnsDesign *d);

/* A full-factorial grid over specs "INST.VAR=LO:HI:N" (N values evenly from LO to HI) or
 * "INST.VAR=V1,V2,...": the last parameter varies fastest.  Returns 0, or 2 with the
 * reason in err. */
int ens_design_grid(const char *const *specs, int n, EnsDesign *d, char *err, size_t errsize);

enum { ENS_MONTE_CARLO, ENS_LATIN_HYPERCUBE };

/* nsamples samples of specs "INST.VAR=DIST:A:B[:C]" (uniform:LO:HI, normal:MEAN:SD,
 * lognormal:MU:SIGMA (of the logarithm), triangular:LO:MODE:HI), by method, from the
 * generator seeded with seed.  Returns 0, or 2 with the reason in err. */
int ens_design_sample(const char *const *specs, int n, int nsamples, int method,
                      uint64_t seed, EnsDesign *d, char *err, size_t errsize);

/* The generator: xoshiro256** seeded through splitmix64 (docs/ensemble.md). */
typedef struct EnsRng {
	uint64_t s[4];
} EnsRng;
void ens_rng_seed(EnsRng *r, uint64_t seed);
uint64_t ens_rng_next(EnsRng *r);
/* A uniform number in (0, 1): (k + 1/2) 2^-53 for the generator's top 53 bits k. */
double ens_rng_uniform(EnsRng *r);
/* The standard normal distribution's quantile at p in (0, 1). */
double ens_normal_quantile(double p);

/* ---- the directory --------------------------------------------------------------------- */

/* What an ensemble's directory holds besides its runs (DIR/ensemble.txt): the target, the
 * directory the runs start in, the options given to every run, and what is kept. */
typedef struct EnsSpec {
	char *target;
	char *cwd;
	int nargs;
	char **args;       /* simulate options, in order */
	bool reduce_final; /* only the final row of each result is kept */
} EnsSpec;

void ens_spec_free(EnsSpec *s);
int ens_spec_write(const char *dir, const EnsSpec *s);
/* Returns 0, or 1 with the reason in err. */
int ens_spec_read(const char *dir, EnsSpec *s, char *err, size_t errsize);
bool ens_spec_equal(const EnsSpec *a, const EnsSpec *b);

typedef enum EnsState {
	ENS_PENDING,    /* not run, or not finished */
	ENS_OK,
	ENS_FAILED,     /* simulate exited non-zero, or was killed */
	ENS_CANCELLED,  /* the task was cancelled or ran out of time (Slurm), or interrupted */
	ENS_QUEUED,     /* in Slurm's queue, waiting */
	ENS_RUNNING,    /* in Slurm's queue, running */
} EnsState;

const char *ens_state_name(EnsState s);

/* One run's outcome as DIR/status/ID records it. */
typedef struct EnsStatus {
	EnsState state;
	int exit_code;    /* simulate's, or 128 + signal */
	double wall;      /* seconds */
	char message[512]; /* the run's last error line, or "" */
} EnsStatus;

/* Writes DIR/status/ID atomically.  Returns 0 or -1. */
int ens_status_write(const char *dir, const char *id, const EnsStatus *st);
/* Reads it: 0, or -1 when there is none (the run is pending). */
int ens_status_read(const char *dir, const char *id, EnsStatus *st);

/* DIR/index.csv from the design and the statuses on disk (states[i], when not NULL,
 * overrides a pending run's: Slurm's queue).  Counts by state in counts (ENS_* indexes,
 * may be NULL).  Returns 0 or -1. */
int ens_index_write(const char *dir, const EnsDesign *d, const EnsState *queue,
                    int counts[6]);

/* "DIR/sub/ID.ext" into buf; false when it does not fit. */
bool ens_path(char *buf, size_t size, const char *dir, const char *sub, const char *id,
              const char *ext);
/* mkdir -p of one level, existing allowed.  Returns 0 or -1. */
int ens_mkdir(const char *path);
/* Writes what put writes to path through path.PID.part and a rename (the process's own
 * temporary: two `status` at once each write a whole file).  Returns 0 or -1. */
int ens_write_atomic(const char *path, void (*put)(FILE *, const void *), const void *env);

/* ---- running --------------------------------------------------------------------------- */

/* One run, as a local worker or a Slurm task does it: the result to DIR/runs/ID.csv (by
 * rename once complete), its messages to DIR/runs/ID.log, its status to DIR/status/ID.
 * sacc is the executable to run `simulate` with.  Returns 0 when the run succeeded, 1
 * when it failed (recorded), 2 when it could not be started (said on stderr), 3 when a
 * SIGTERM or SIGINT stopped it (recorded as cancelled). */
int ens_run_one(const char *sacc, const char *dir, const EnsSpec *spec, const EnsDesign *d,
                int row);

/* Runs the design's rows whose todo[] is set on jobs processes; a progress line on a
 * terminal.  Returns the number of runs that failed, -1 when none could be started, or
 * -2 when a SIGTERM or SIGINT stopped it (the runs under way recorded as cancelled). */
int ens_run_local(const char *sacc, const char *dir, const EnsSpec *spec, const EnsDesign *d,
                  const bool *todo, int jobs);

/* The sacc executable running now (/proc/self/exe), malloc'd, or NULL. */
char *ens_self_exe(void);

/* ---- Slurm ----------------------------------------------------------------------------- */

typedef struct EnsSlurm {
	const char *partition, *time_limit;
	int throttle;          /* %K of the array: at most K tasks at once; 0 none */
	CliList sbatch;        /* further sbatch options, as given */
} EnsSlurm;

/* Submits the rows whose todo[] is set as one job array of `sacc ensemble run-task DIR
 * ID`; the job id in DIR/slurm.jobs.  Returns 0, or 1 after a report. */
int ens_slurm_submit(const char *sacc, const char *dir, const EnsDesign *d, const bool *todo,
                     const EnsSlurm *opt);
/* The states Slurm's queue gives the runs (ENS_QUEUED, ENS_RUNNING; ENS_PENDING for the
 * runs not in it) for the jobs of DIR/slurm.jobs.  Returns 0, or -1 when squeue cannot be
 * asked (no job submitted, or no Slurm: every state ENS_PENDING). */
int ens_slurm_queue(const char *dir, const EnsDesign *d, EnsState *states);

/* ---- statistics ------------------------------------------------------------------------ */

typedef struct EnsStatsOptions {
	const double *percentiles; /* in [0, 100] */
	int npercentiles;
	const double *at;          /* the times; NULL: every time of the first result */
	int nat;
	const char *out;           /* the table */
	const char *plot;          /* NULL, or the fan chart (.svg or .png) */
	const char *plot_var;      /* its variable; NULL: the first */
} EnsStatsOptions;

/* The p-th percentile (0 to 100) of the n sorted values: linear between the closest ranks,
 * at rank (n - 1) p / 100 from 0 (docs/ensemble.md). */
double ens_percentile(const double *sorted, int n, double p);

/* Statistics across the successful runs of DIR, per recorded variable.  Returns 0, or 1
 * after a report. */
int ens_stats(const char *dir, const EnsDesign *d, const EnsStatsOptions *opt);

/* ---- the command ----------------------------------------------------------------------- */

extern const CliOption ens_options[];
int ens_main(const CliCommand *cmd, int argc, char **argv);

#endif
