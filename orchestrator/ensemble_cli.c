/* ensemble_cli.c — `sacc ensemble`: its options (read by the command line's parser, help
 * and completion), and its forms:
 *
 *   sacc ensemble TARGET -o DIR DESIGN [--jobs N | --slurm ...] [-- SIMULATE OPTION...]
 *   sacc ensemble DIR [--jobs N | --slurm ...] [--resubmit failed]   (resume, resubmit)
 *   sacc ensemble status DIR
 *   sacc ensemble collect DIR [--percentiles P,...] [--at T,...] [--stats FILE] [--plot FILE]
 *   sacc ensemble run-task DIR [ID]           (one run: what each Slurm task does)
 *
 * What follows "--" is given to every run's `sacc simulate` as it is. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "ensemble.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "numfmt.h"

typedef struct EnsArgs {
	const char *out, *design, *method, *reduce, *resubmit, *seed;
	CliList grids, samples_of;
	int samples, jobs;
	bool slurm;
	EnsSlurm sl;
	const char *percentiles, *at, *stats, *plot, *var;
} EnsArgs;

#define AT(f) offsetof(EnsArgs, f)
#define ENS CMD_ENSEMBLE

static int set_count1(struct Compilation *c, void *args, const char *o, const char *v,
                      size_t field)
{
	(void)c;
	return cli_count(o, v, 1, 10000000, false, (int *)(void *)((char *)args + field));
}

static const char *method_choice(int i, const char **summary)
{
	static const char *const names[] = {"monte-carlo", "latin-hypercube"};
	static const char *const sums[] = {"independent draws (the default)",
	                                   "one draw in each of N equal-probability strata per "
	                                   "parameter, the strata paired at random"};
	if (i < 0 || i > 1)
		return NULL;
	*summary = sums[i];
	return names[i];
}

static const char *reduce_choice(int i, const char **summary)
{
	*summary = NULL;
	return i == 0 ? "final" : NULL;
}

static const char *resubmit_choice(int i, const char **summary)
{
	*summary = NULL;
	return i == 0 ? "failed" : NULL;
}

const CliOption ens_options[] = {
	{"-o", CLI_VALUE, "DIR", cli_set_string, AT(out), ENS, CLI_FILE,
	 "the ensemble's directory (made; an ensemble's own directory resumes it)", NULL},
	{"--design", CLI_VALUE, "FILE.csv", cli_set_string, AT(design), ENS, CLI_FILE,
	 "the runs: a header (a run id column, then INST.VAR columns) and one row per run", NULL},
	{"--grid", CLI_VALUE, "INST.VAR=LO:HI:N|V1,V2,...", cli_add_string, AT(grids), ENS,
	 CLI_REPEAT, "a full-factorial grid: N values evenly from LO to HI, or the values given; "
	 "every combination of the --grid parameters is a run", NULL},
	{"--sample", CLI_VALUE, "INST.VAR=DIST", cli_add_string, AT(samples_of), ENS, CLI_REPEAT,
	 "a sampled parameter: uniform:LO:HI, normal:MEAN:SD, lognormal:MU:SIGMA (of the "
	 "logarithm) or triangular:LO:MODE:HI", NULL},
	{"--samples", CLI_VALUE, "N", set_count1, AT(samples), ENS, 0,
	 "the number of samples (runs) of the --sample parameters", NULL},
	{"--method", CLI_VALUE, "METHOD", cli_set_string, AT(method), ENS, 0,
	 "how the samples are drawn:", method_choice},
	{"--seed", CLI_VALUE, "S", cli_set_string, AT(seed), ENS, 0,
	 "the generator's seed, an integer from 0 (default 1): the same seed, the same design "
	 "on every machine", NULL},
	{"--jobs", CLI_VALUE, "N", set_count1, AT(jobs), ENS, 0,
	 "runs at once on this machine (default 1)", NULL},
	{"--reduce", CLI_VALUE, "final", cli_set_string, AT(reduce), ENS, 0,
	 "keep only each result's final row (for ensembles too large to keep whole)",
	 reduce_choice},
	{"--resubmit", CLI_VALUE, "failed", cli_set_string, AT(resubmit), ENS, 0,
	 "also run again the runs that failed (cancelled and unfinished runs are always run)",
	 resubmit_choice},
	{"--slurm", CLI_FLAG, NULL, cli_set_flag, AT(slurm), ENS, 0,
	 "submit the runs as one Slurm job array (sbatch) instead of running them here; the "
	 "directory must be on a file system the nodes share", NULL},
	{"--partition", CLI_VALUE, "P", cli_set_string, AT(sl.partition), ENS, 0,
	 "with --slurm: the partition (sbatch --partition)", NULL},
	{"--time-limit", CLI_VALUE, "T", cli_set_string, AT(sl.time_limit), ENS, 0,
	 "with --slurm: each task's time limit, as sbatch --time takes it (MM, HH:MM:SS, ...)",
	 NULL},
	{"--throttle", CLI_VALUE, "K", set_count1, AT(sl.throttle), ENS, 0,
	 "with --slurm: at most K tasks at once (the array's %K)", NULL},
	{"--sbatch-option", CLI_VALUE, "OPT", cli_add_string, AT(sl.sbatch), ENS, CLI_REPEAT,
	 "with --slurm: one more sbatch option, as it is (--sbatch-option=--mem=2G)", NULL},
	{"--percentiles", CLI_VALUE, "P,...", cli_set_string, AT(percentiles), ENS, 0,
	 "collect: the percentiles (0 to 100) in the statistics (default 5,50,95)", NULL},
	{"--at", CLI_VALUE, "T,...", cli_set_string, AT(at), ENS, 0,
	 "collect: the statistics at these times only (default: every time of the first "
	 "result)", NULL},
	{"--stats", CLI_VALUE, "FILE.csv", cli_set_string, AT(stats), ENS, CLI_FILE,
	 "collect: the statistics table (default DIR/stats.csv)", NULL},
	{"--plot", CLI_VALUE, "FILE.svg|FILE.png", cli_set_string, AT(plot), ENS, CLI_FILE,
	 "collect: a fan chart of one variable (--var) across the runs", NULL},
	{"--var", CLI_VALUE, "INST.VAR", cli_set_string, AT(var), ENS, 0,
	 "collect: the fan chart's variable (default: the first recorded)", NULL},
	{NULL, 0, NULL, NULL, 0, 0, 0, NULL, NULL},
};

/* ---- the pieces ---------------------------------------------------------------------------- */

/* simulate options an ensemble sets itself, or that make no run of it */
static const char *const refused_sim[] = {"-o", "--sweep", "--sweep-csv", "--reference",
                                          "--explain", "--help", "-h", NULL};

static int check_sim_args(int n, char **v)
{
	for (int i = 0; i < n; i++) {
		if (strchr(v[i], '\n'))
			return cli_usage_error("a simulate option holds a line break");
		for (int k = 0; refused_sim[k]; k++) {
			size_t len = strlen(refused_sim[k]);
			if (strncmp(v[i], refused_sim[k], len) == 0 && (!v[i][len] || v[i][len] == '='))
				return cli_usage_error("'%s' after '--': an ensemble %s", refused_sim[k],
				                       strcmp(refused_sim[k], "-o") == 0
				                           ? "writes each run's result itself (-o DIR before "
				                             "'--' names its directory)"
				                           : "runs one simulation per run");
		}
	}
	return 0;
}

static int make_design(const EnsArgs *a, EnsDesign *d)
{
	int kinds = !!a->design + (a->grids.n > 0) + (a->samples_of.n > 0);
	if (kinds != 1)
		return cli_usage_error(kinds ? "one design: --design, --grid or --sample, not two"
		                             : "expected a design: --design FILE.csv, --grid or "
		                               "--sample with --samples");
	if ((a->samples_of.n > 0) != (a->samples > 0))
		return cli_usage_error(a->samples ? "--samples without --sample"
		                                  : "--sample needs --samples N");
	if ((a->method || a->seed) && !a->samples_of.n)
		return cli_usage_error("%s is for --sample", a->method ? "--method" : "--seed");
	char err[1024];
	int rc;
	if (a->design) {
		rc = ens_design_read(a->design, d, err, sizeof err);
		if (rc)
			fprintf(stderr, "%s\n", err);
		return rc;
	}
	if (a->grids.n)
		rc = ens_design_grid(a->grids.items, a->grids.n, d, err, sizeof err);
	else {
		int method = ENS_MONTE_CARLO;
		if (a->method && strcmp(a->method, "latin-hypercube") == 0)
			method = ENS_LATIN_HYPERCUBE;
		else if (a->method && strcmp(a->method, "monte-carlo") != 0)
			return cli_usage_error("--method: '%s' is neither monte-carlo nor "
			                       "latin-hypercube", a->method);
		char *end = NULL;
		errno = 0;
		unsigned long long seed = a->seed ? strtoull(a->seed, &end, 10) : 1;
		if (a->seed && (!*a->seed || *end || errno || a->seed[0] == '-'))
			return cli_usage_error("--seed: '%s' is not an integer from 0 to 2^64 - 1",
			                       a->seed);
		rc = ens_design_sample(a->samples_of.items, a->samples_of.n, a->samples, method,
		                       (uint64_t)seed, d, err, sizeof err);
	}
	if (rc)
		cli_error("%s", err);
	return rc;
}

static bool is_ensemble_dir(const char *path)
{
	char p[4096];
	struct stat st;
	return ens_path(p, sizeof p, path, NULL, "ensemble", ".txt") && stat(p, &st) == 0;
}

static bool same_design(const EnsDesign *a, const EnsDesign *b)
{
	if (a->nparams != b->nparams || a->nruns != b->nruns)
		return false;
	for (int p = 0; p < a->nparams; p++)
		if (strcmp(a->params[p], b->params[p]))
			return false;
	for (int r = 0; r < a->nruns; r++)
		if (strcmp(a->ids[r], b->ids[r]))
			return false;
	for (size_t k = 0; k < (size_t)a->nruns * (size_t)a->nparams; k++)
		if (strcmp(a->values[k], b->values[k]))
			return false;
	return true;
}

/* The design and description of DIR.  Returns 0, or 1 after a report. */
static int load_dir(const char *dir, EnsSpec *spec, EnsDesign *d)
{
	char err[1024], path[4096];
	if (ens_spec_read(dir, spec, err, sizeof err)) {
		cli_error("%s", err);
		return 1;
	}
	if (!ens_path(path, sizeof path, dir, NULL, "design", ".csv") ||
	    ens_design_read(path, d, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		ens_spec_free(spec);
		return 1;
	}
	return 0;
}

/* DIR made (or found holding the same ensemble), its design and description written.
 * Returns 0, or 1 or 2 after a report. */
static int prepare_dir(const char *dir, const EnsSpec *spec, const EnsDesign *d)
{
	if (is_ensemble_dir(dir)) {
		EnsSpec old;
		EnsDesign od;
		if (load_dir(dir, &old, &od))
			return 1;
		bool same = ens_spec_equal(&old, spec) && same_design(&od, d);
		ens_spec_free(&old);
		ens_design_free(&od);
		if (!same) {
			cli_error("%s holds another ensemble (another target, design or options): "
			          "remove it or choose another -o", dir);
			return 2;
		}
		return 0;
	}
	char sub[4096];
	if (ens_mkdir(dir) || !ens_path(sub, sizeof sub, dir, NULL, "runs", "") || ens_mkdir(sub) ||
	    !ens_path(sub, sizeof sub, dir, NULL, "status", "") || ens_mkdir(sub)) {
		cli_error("cannot make %s: %s", dir, strerror(errno));
		return 1;
	}
	char path[4096];
	if (!ens_path(path, sizeof path, dir, NULL, "design", ".csv") ||
	    ens_design_write(path, d) || ens_spec_write(dir, spec)) {
		cli_error("cannot write %s: %s", dir, strerror(errno));
		return 1;
	}
	return 0;
}

/* Which runs to do: unfinished and cancelled ones, failed ones too when resubmit; none
 * that Slurm's queue holds.  Returns their count. */
static int choose_todo(const char *dir, const EnsDesign *d, bool resubmit,
                       const EnsState *queue, bool *todo)
{
	int n = 0;
	for (int r = 0; r < d->nruns; r++) {
		EnsStatus st;
		bool done = ens_status_read(dir, d->ids[r], &st) == 0;
		todo[r] = !done || st.state == ENS_CANCELLED || (resubmit && st.state == ENS_FAILED);
		if (queue && (queue[r] == ENS_QUEUED || queue[r] == ENS_RUNNING))
			todo[r] = false;
		n += todo[r];
	}
	return n;
}

/* The counts and where the index is; the failures' messages, a few. */
static void report_counts(const char *dir, const EnsDesign *d, const int counts[6])
{
	fprintf(stderr, "%s: %d runs: %d ok, %d failed, %d cancelled", cli_prog(), d->nruns,
	        counts[ENS_OK], counts[ENS_FAILED], counts[ENS_CANCELLED]);
	if (counts[ENS_QUEUED] + counts[ENS_RUNNING])
		fprintf(stderr, ", %d queued, %d running", counts[ENS_QUEUED], counts[ENS_RUNNING]);
	if (counts[ENS_PENDING])
		fprintf(stderr, ", %d not run", counts[ENS_PENDING]);
	fprintf(stderr, "; index: %s/index.csv\n", dir);
	int shown = 0;
	for (int r = 0; r < d->nruns && shown < 5; r++) {
		EnsStatus st;
		if (ens_status_read(dir, d->ids[r], &st) == 0 && st.state != ENS_OK) {
			fprintf(stderr, "  run %s %s (exit %d): %s\n", d->ids[r], ens_state_name(st.state),
			        st.exit_code, st.message);
			shown++;
		}
	}
}

/* The first run alone, before any other starts: a usage error (a simulate option, a
 * design column the target lacks) is the same for every run, so the ensemble stops there
 * and that run is left unrecorded.  Returns 0, 2 after a report, or 3 when interrupted. */
static int first_run(const char *sacc, const char *dir, const EnsSpec *spec,
                     const EnsDesign *d, bool *todo)
{
	int r = 0;
	while (r < d->nruns && !todo[r])
		r++;
	if (r == d->nruns)
		return 0;
	int rc = ens_run_one(sacc, dir, spec, d, r);
	if (rc == 2 || rc == 3)
		return rc;
	todo[r] = false;
	EnsStatus st;
	if (ens_status_read(dir, d->ids[r], &st) == 0 && st.exit_code == 2) {
		char path[4096];
		cli_error("run %s: %s", d->ids[r], st.message);
		cli_error("every run would fail so (a usage error: the simulate options after '--' "
		          "or the design's columns); the log: %s/runs/%s.log", dir, d->ids[r]);
		if (ens_path(path, sizeof path, dir, "status", d->ids[r], ""))
			unlink(path);
		return 2;
	}
	return 0;
}

static int run_ensemble(const char *dir, const EnsSpec *spec, const EnsDesign *d,
                        const EnsArgs *a)
{
	char *sacc = ens_self_exe();
	if (!sacc) {
		cli_error("cannot find sacc's own executable (/proc/self/exe)");
		return 1;
	}
	EnsState *queue = calloc((size_t)d->nruns + 1, sizeof *queue);
	bool *todo = calloc((size_t)d->nruns + 1, sizeof *todo);
	int rc = !queue || !todo ? (cli_error("out of memory"), 1) : 0;
	bool slurm_known = !rc && ens_slurm_queue(dir, d, queue) == 0;
	int n = rc ? 0 : choose_todo(dir, d, a->resubmit != NULL, slurm_known ? queue : NULL, todo);
	if (!rc && n == 0)
		fprintf(stderr, "%s: nothing to run in %s\n", cli_prog(), dir);
	else if (!rc && a->slurm)
		rc = ens_slurm_submit(sacc, dir, d, todo, &a->sl);
	else if (!rc) {
		rc = first_run(sacc, dir, spec, d, todo);
		int failed = rc == 3 ? (rc = 0, -2)
		             : rc ? 0 : ens_run_local(sacc, dir, spec, d, todo, a->jobs ? a->jobs : 1);
		if (!rc && failed == -2)
			rc = (cli_error("interrupted: the unfinished runs run when the same command is "
			                "given again"), 130);
		else if (!rc && failed < 0)
			rc = 1;
	}
	int counts[6] = {0};
	if (rc != 2 && !(a->slurm && rc)) {
		slurm_known = ens_slurm_queue(dir, d, queue) == 0;
		if (ens_index_write(dir, d, slurm_known ? queue : NULL, counts))
			rc = (cli_error("cannot write %s/index.csv", dir), 1);
		report_counts(dir, d, counts);
		if (!rc && !a->slurm && counts[ENS_OK] < d->nruns)
			rc = 1;
	}
	free(sacc);
	free(queue);
	free(todo);
	return rc;
}

/* An absolute path for dir (which exists), malloc'd. */
static char *absolute(const char *dir)
{
	char *p = realpath(dir, NULL);
	if (!p)
		cli_error("%s: %s", dir, strerror(errno));
	return p;
}

/* `sacc ensemble TARGET -o DIR ...` and `sacc ensemble DIR ...`. */
static int cmd_run(const EnsArgs *a, const char *operand, int nsim, char **sim)
{
	EnsSpec spec = {0};
	EnsDesign d = {0};
	int rc = 0;
	bool resume = !a->out && is_ensemble_dir(operand);
	if (resume) {
		if (a->design || a->grids.n || a->samples_of.n || a->reduce || nsim)
			return cli_usage_error("%s is an ensemble's directory: it is resumed as it is "
			                       "(no design, --reduce or simulate options)", operand);
		rc = load_dir(operand, &spec, &d);
	} else {
		if (!a->out)
			return cli_usage_error("expected -o DIR (the ensemble's directory)");
		if ((rc = check_sim_args(nsim, sim)) == 0 && (rc = make_design(a, &d)) == 0) {
			char cwd[PATH_MAX];
			spec.target = strdup(operand);
			spec.cwd = getcwd(cwd, sizeof cwd) ? strdup(cwd) : NULL;
			spec.nargs = nsim;
			spec.args = calloc((size_t)nsim + 1, sizeof *spec.args);
			spec.reduce_final = a->reduce != NULL;
			for (int i = 0; spec.args && i < nsim; i++)
				spec.args[i] = strdup(sim[i]);
			if (!spec.target || !spec.cwd || !spec.args)
				rc = (cli_error("out of memory"), 1);
		}
		if (!rc)
			rc = prepare_dir(a->out, &spec, &d);
	}
	char *dir = rc ? NULL : absolute(resume ? operand : a->out);
	if (!rc && !dir)
		rc = 1;
	if (!rc)
		rc = run_ensemble(dir, &spec, &d, a);
	free(dir);
	ens_spec_free(&spec);
	ens_design_free(&d);
	return rc;
}

/* `sacc ensemble run-task DIR [ID|+BASE]`: the run ID, else the row BASE (default 0) +
 * $SLURM_ARRAY_TASK_ID, rows counted from 0. */
static int cmd_run_task(const char *dir_arg, const char *id)
{
	EnsSpec spec;
	EnsDesign d;
	if (load_dir(dir_arg, &spec, &d))
		return 2;
	int row = -1;
	const char *task = getenv("SLURM_ARRAY_TASK_ID");
	bool base = id && id[0] == '+'; /* a run id never starts with '+' */
	for (int r = 0; id && !base && r < d.nruns; r++)
		if (strcmp(d.ids[r], id) == 0)
			row = r;
	if ((!id || base) && task && *task)
		row = (base ? atoi(id + 1) : 0) + atoi(task);
	int rc = 2;
	char *dir = absolute(dir_arg), *sacc = ens_self_exe();
	if (row < 0 || row >= d.nruns)
		cli_error(id && !base ? "%s has no run '%s'" : "%s: no run id and no "
		          "$SLURM_ARRAY_TASK_ID in range%s", dir_arg, id ? id : "");
	else if (dir && sacc)
		rc = ens_run_one(sacc, dir, &spec, &d, row);
	free(dir);
	free(sacc);
	ens_spec_free(&spec);
	ens_design_free(&d);
	return rc;
}

/* A list of numbers "a,b,c" into v (malloc'd).  Returns the count, or -1. */
static int number_list(const char *s, double **v)
{
	int n = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	*v = calloc((size_t)n, sizeof **v);
	char *buf = strdup(s);
	int k = 0;
	for (char *tok = buf ? strtok(buf, ",") : NULL; tok && *v; tok = strtok(NULL, ","))
		if (!csv_number(tok, &(*v)[k++]))
			k = -1 - n;
	free(buf);
	return k == n ? n : -1;
}

/* `sacc ensemble status DIR` and `collect DIR`. */
static int cmd_status(const EnsArgs *a, const char *dir, bool collect)
{
	EnsSpec spec;
	EnsDesign d;
	double *pcts = NULL, *at = NULL;
	int npcts = 3, nat = 0;
	static const double default_pcts[] = {5, 50, 95};
	if (a->percentiles && (npcts = number_list(a->percentiles, &pcts)) < 0)
		return free(pcts), cli_usage_error("--percentiles: expected numbers from 0 to 100, "
		                                   "comma-separated");
	for (int i = 0; pcts && i < npcts; i++)
		if (pcts[i] < 0 || pcts[i] > 100)
			return free(pcts), cli_usage_error("--percentiles: %s is not from 0 to 100",
			                                   FMT_REAL(pcts[i]));
	if (a->at && (nat = number_list(a->at, &at)) < 0)
		return free(pcts), free(at), cli_usage_error("--at: expected times, comma-separated");
	int rc = load_dir(dir, &spec, &d);
	EnsState *queue = rc ? NULL : calloc((size_t)d.nruns + 1, sizeof *queue);
	if (!rc && queue) {
		bool known = ens_slurm_queue(dir, &d, queue) == 0;
		int counts[6];
		if (ens_index_write(dir, &d, known ? queue : NULL, counts))
			rc = (cli_error("cannot write %s/index.csv", dir), 1);
		report_counts(dir, &d, counts);
		char stats[4096];
		if (!rc && collect) {
			if (!a->stats)
				ens_path(stats, sizeof stats, dir, NULL, "stats", ".csv");
			EnsStatsOptions o = {pcts ? pcts : default_pcts, npcts, at, nat,
			                     a->stats ? a->stats : stats, a->plot, a->var};
			rc = ens_stats(dir, &d, &o);
		}
		ens_spec_free(&spec);
		ens_design_free(&d);
	}
	free(queue);
	free(pcts);
	free(at);
	return rc;
}

/* Options given to a form that does not take them. */
static int refuse_options(const EnsArgs *a, const char *form, bool collect)
{
	const char *bad = a->out ? "-o" : a->design ? "--design" : a->grids.n ? "--grid"
	                  : a->samples_of.n ? "--sample" : a->samples ? "--samples"
	                  : a->method ? "--method" : a->seed ? "--seed" : a->jobs ? "--jobs"
	                  : a->reduce ? "--reduce" : a->resubmit ? "--resubmit"
	                  : a->slurm ? "--slurm" : a->sl.partition ? "--partition"
	                  : a->sl.time_limit ? "--time-limit" : a->sl.throttle ? "--throttle"
	                  : a->sl.sbatch.n ? "--sbatch-option" : NULL;
	if (!bad && !collect)
		bad = a->percentiles ? "--percentiles" : a->at ? "--at" : a->stats ? "--stats"
		      : a->plot ? "--plot" : a->var ? "--var" : NULL;
	if (bad)
		return cli_usage_error("'%s' is not an option of 'sacc ensemble %s'", bad, form);
	return 0;
}

static int check_run_options(const EnsArgs *a)
{
	const char *bad = a->percentiles ? "--percentiles" : a->at ? "--at" : a->stats
	                  ? "--stats" : a->plot ? "--plot" : a->var ? "--var" : NULL;
	if (bad)
		return cli_usage_error("%s is an option of 'sacc ensemble collect DIR'", bad);
	if (a->reduce && strcmp(a->reduce, "final") != 0)
		return cli_usage_error("--reduce: '%s' is not final (the one reduction)", a->reduce);
	if (a->resubmit && strcmp(a->resubmit, "failed") != 0)
		return cli_usage_error("--resubmit: '%s' is not failed", a->resubmit);
	if (a->slurm && a->jobs)
		return cli_usage_error("--jobs is for local runs: with --slurm, --throttle bounds "
		                       "the tasks at once");
	if (!a->slurm && (a->sl.partition || a->sl.time_limit || a->sl.throttle || a->sl.sbatch.n))
		return cli_usage_error("--partition, --time-limit, --throttle and --sbatch-option "
		                       "need --slurm");
	return 0;
}

int ens_main(const CliCommand *cmd, int argc, char **argv)
{
	static const char *const forms[] = {"status", "collect", "run-task"};
	int form = -1;
	for (int k = 0; argc > 0 && k < 3; k++)
		if (strcmp(argv[0], forms[k]) == 0)
			form = k;
	int skip = form >= 0, dash = argc;
	for (int i = skip; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dash = i;
			break;
		}
	EnsArgs a;
	memset(&a, 0, sizeof a);
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	int nops = 0;
	int rc = ops ? cli_parse(cmd, NULL, &a, dash - skip, argv + skip, ops, &nops) : 1;
	if (rc == 0 && form >= 0 && dash < argc)
		rc = cli_usage_error("'--' (simulate options) is for 'sacc ensemble TARGET'");
	if (rc == 0 && form < 0) {
		if (nops != 1)
			rc = cli_usage_error(nops ? "one TARGET (or an ensemble's DIR), not %d" : "expected "
			                     "TARGET (an .fmu or a scenario module) or an ensemble's DIR",
			                     nops);
		else if ((rc = check_run_options(&a)) == 0)
			rc = cmd_run(&a, ops[0], argc - dash - (dash < argc), argv + dash + (dash < argc));
	} else if (rc == 0) {
		if ((rc = refuse_options(&a, forms[form], form == 1)) == 0 &&
		    (nops < 1 || nops > 1 + (form == 2)))
			rc = cli_usage_error(form == 2 ? "expected DIR [ID]" : "expected DIR (an "
			                     "ensemble's directory)");
		if (rc == 0)
			rc = form == 2 ? cmd_run_task(ops[0], nops > 1 ? ops[1] : NULL)
			             : cmd_status(&a, ops[0], form == 1);
	}
	free(ops);
	free(a.grids.items);
	free(a.samples_of.items);
	free(a.sl.sbatch.items);
	return rc < 0 ? 0 : rc;
}
