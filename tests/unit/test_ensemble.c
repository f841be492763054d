/* test_ensemble.c — the parts of `sacc ensemble` that are pure computation
 * (orchestrator/ensemble_design.c, ensemble_stats.c, ensemble_dir.c): the generator
 * against an independent implementation of xoshiro256** and splitmix64 (Python integers,
 * values pasted here), the normal quantile against Python's statistics.NormalDist (Wichura's
 * algorithm, another method), percentiles and designs against values worked out by hand,
 * the design table's errors with their file, line and column, and the runs' states as a
 * stand-in squeue shows them (ensemble_slurm.c).  The runs themselves,
 * local and through Slurm, are tested by tests/ensemble/run.sh and tests/slurm/run.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assert_close.h"
#include "csv.h"
#include "ensemble.h"

static void ensemble__rng__matches_reference_streams(void **state)
{
	(void)state;
	EnsRng r;
	ens_rng_seed(&r, 42);
	assert_true(ens_rng_next(&r) == 0x15780b2e0c2ec716u);
	assert_true(ens_rng_next(&r) == 0x6104d9866d113a7eu);
	assert_true(ens_rng_next(&r) == 0xae17533239e499a1u);
	/* seed 1: the uniform numbers are (top 53 bits + 1/2) 2^-53, exactly */
	ens_rng_seed(&r, 1);
	assert_true(ens_rng_uniform(&r) == 0.7029218331588505);
	assert_true(ens_rng_uniform(&r) == 0.520436619938857);
}

static void ensemble__normal_quantile__matches_reference(void **state)
{
	(void)state;
	assert_close(ens_normal_quantile(0.975), 1.9599639845400536, 1e-14);
	assert_close(ens_normal_quantile(0.025), -1.9599639845400536, 1e-14);
	assert_close(ens_normal_quantile(0.3), -0.5244005127080407, 1e-14);
	assert_close(ens_normal_quantile(1e-10), -6.361340902404056, 1e-12);
	assert_true(ens_normal_quantile(0.5) == 0.0);
}

static void ensemble__percentile__linear_between_closest_ranks(void **state)
{
	(void)state;
	const double x[] = {2, 3, 9, 17};
	/* rank (n - 1) p / 100 = 3 p / 100 */
	assert_close(ens_percentile(x, 4, 0), 2, 0);
	assert_close(ens_percentile(x, 4, 25), 2.75, 1e-15);  /* 2 + 0.75 (3 - 2) */
	assert_close(ens_percentile(x, 4, 50), 6, 1e-15);     /* 3 + 0.5 (9 - 3) */
	assert_close(ens_percentile(x, 4, 90), 14.6, 1e-14);  /* 9 + 0.7 (17 - 9) */
	assert_close(ens_percentile(x, 4, 100), 17, 0);
	assert_close(ens_percentile(x, 1, 37), 2, 0);         /* one run: its value */
}

static const char *value(const EnsDesign *d, int r, int p)
{
	return d->values[(size_t)r * (size_t)d->nparams + (size_t)p];
}

static void ensemble__grid__full_factorial_last_fastest(void **state)
{
	(void)state;
	EnsDesign d;
	char err[256];
	const char *specs[] = {"a.k=1:2:3", "b.m=7,9"};
	assert_int_equal(ens_design_grid(specs, 2, &d, err, sizeof err), 0);
	assert_int_equal(d.nruns, 6);
	assert_string_equal(d.params[0], "a.k");
	const char *want[6][2] = {{"1", "7"}, {"1", "9"}, {"1.5", "7"},
	                          {"1.5", "9"}, {"2", "7"}, {"2", "9"}};
	for (int r = 0; r < 6; r++) {
		assert_string_equal(value(&d, r, 0), want[r][0]);
		assert_string_equal(value(&d, r, 1), want[r][1]);
	}
	assert_string_equal(d.ids[0], "1");
	ens_design_free(&d);
	const char *bad[] = {"a.k=1:2"};
	assert_int_equal(ens_design_grid(bad, 1, &d, err, sizeof err), 2);
	assert_non_null(strstr(err, "expected LO:HI:N"));
	const char *twice[] = {"a.k=1,2", "a.k=3"};
	assert_int_equal(ens_design_grid(twice, 2, &d, err, sizeof err), 2);
	assert_non_null(strstr(err, "'a.k' is given twice"));
}

static void ensemble__latin_hypercube__one_sample_per_stratum(void **state)
{
	(void)state;
	EnsDesign d;
	char err[256];
	const char *specs[] = {"a.u=uniform:0:1", "a.t=triangular:0:1:4"};
	assert_int_equal(ens_design_sample(specs, 2, 10, ENS_LATIN_HYPERCUBE, 7, &d, err,
	                                   sizeof err), 0);
	int seen[10] = {0};
	for (int r = 0; r < 10; r++) {
		double u = strtod(value(&d, r, 0), NULL);
		assert_true(u > 0 && u < 1);
		seen[(int)(u * 10)]++;
		double t = strtod(value(&d, r, 1), NULL);
		assert_true(t >= 0 && t <= 4);
	}
	for (int k = 0; k < 10; k++)
		assert_int_equal(seen[k], 1);
	ens_design_free(&d);
	/* the same seed, the same values; Monte Carlo's first uniform is the generator's */
	const char *one[] = {"a.u=uniform:10:12"};
	assert_int_equal(ens_design_sample(one, 1, 2, ENS_MONTE_CARLO, 1, &d, err, sizeof err), 0);
	assert_close(strtod(value(&d, 0, 0), NULL), 10 + 2 * 0.7029218331588505, 1e-14);
	ens_design_free(&d);
	const char *bad[] = {"a.u=gauss:0:1"};
	assert_int_equal(ens_design_sample(bad, 1, 3, ENS_MONTE_CARLO, 1, &d, err, sizeof err), 2);
	assert_non_null(strstr(err, "--sample 'a.u=gauss:0:1'"));
}

/* Writes text to a temporary file; its path in path. */
static void temp_file(char *path, size_t size, const char *text)
{
	snprintf(path, size, "/tmp/test_ensemble.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
}

static void ensemble__design_table__read_and_errors(void **state)
{
	(void)state;
	char path[64], err[512], want[256];
	EnsDesign d;
	temp_file(path, sizeof path, "run, m1.k ,m2.x0\nlow,1,true\nhigh,2e3,false\n\n");
	assert_int_equal(ens_design_read(path, &d, err, sizeof err), 0);
	assert_int_equal(d.nruns, 2);
	assert_string_equal(d.params[0], "m1.k");
	assert_string_equal(d.ids[1], "high");
	assert_string_equal(value(&d, 1, 0), "2e3");
	assert_string_equal(value(&d, 0, 1), "true");
	ens_design_free(&d);
	unlink(path);
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"run,k\n1,2\n", ":1:5: 'k' is not INST.VAR"},
		{"run,a.k,a.k\n1,2,3\n", ":1:9: 'a.k' is a column twice"},
		{"run,a.k\nr1,1\nr1,2\n", ":3:1: run id 'r1' is given twice"},
		{"run,a.k\n../x,1\n", ":2:1: run id '../x' is not a file name"},
		{"run,a.k\nr1,1,2\n", ":2:1: 3 fields where the header has 2"},
		{"run,a.k\nr1,\n", ":2:4: no value for 'a.k'"},
		{"run,a.k\n", ":1: no runs after the header"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		temp_file(path, sizeof path, cases[k].text);
		assert_int_equal(ens_design_read(path, &d, err, sizeof err), 1);
		snprintf(want, sizeof want, "%s%s", path, cases[k].msg);
		if (strncmp(err, want, strlen(want)) != 0)
			fail_msg("got '%s', expected it to begin '%s'", err, want);
		unlink(path);
	}
}

static void ensemble__csv_field__quoted_when_needed(void **state)
{
	(void)state;
	char buf[128] = "";
	FILE *f = fmemopen(buf, sizeof buf, "w");
	csv_put_field(f, "plain");
	fputc('|', f);
	csv_put_field(f, "a, \"b\"");
	fclose(f);
	assert_string_equal(buf, "plain|\"a, \"\"b\"\"\"");
}

/* Writes text to path. */
static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A column name with a comma and a quote (FMI's structured names have them) stays one
 * quoted field of the statistics, as the result files write it.  Two runs: a = 1, 3 and
 * a = 3, 5 at times 0 and 1, so min, mean, max and the median are 1, 2, 3, 2 at 0. */
static void ensemble__stats__names_quoted_as_csv_fields(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_ensemble_stats.XXXXXX", path[256];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/runs", dir);
	assert_int_equal(ens_mkdir(path), 0);
	snprintf(path, sizeof path, "%s/status", dir);
	assert_int_equal(ens_mkdir(path), 0);
	char *ids[] = {"r1", "r2"};
	const char *results[] = {"time,\"m.a[1,2]\",\"m.\"\"q\"\"\"\n0,1,0\n1,3,0\n",
	                         "time,\"m.a[1,2]\",\"m.\"\"q\"\"\"\n0,3,0\n1,5,0\n"};
	EnsStatus ok = {ENS_OK, 0, 0, ""};
	for (int r = 0; r < 2; r++) {
		snprintf(path, sizeof path, "%s/runs/%s.csv", dir, ids[r]);
		put_text(path, results[r]);
		assert_int_equal(ens_status_write(dir, ids[r], &ok), 0);
	}
	EnsDesign d = {0, NULL, 2, ids, NULL};
	const double pcts[] = {50};
	char out[256];
	snprintf(out, sizeof out, "%s/stats.csv", dir);
	EnsStatsOptions o = {pcts, 1, NULL, 0, out, NULL, NULL};
	assert_int_equal(ens_stats(dir, &d, &o), 0);
	FILE *f = fopen(out, "r");
	assert_non_null(f);
	char text[1024] = "";
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_string_equal(text, "variable,time,runs,min,mean,max,p50\n"
	                          "\"m.a[1,2]\",0,2,1,2,3,2\n"
	                          "\"m.a[1,2]\",1,2,3,4,5,4\n"
	                          "\"m.\"\"q\"\"\",0,2,0,0,0,0\n"
	                          "\"m.\"\"q\"\"\",1,2,0,0,0,0\n");
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ens_slurm_queue over a stand-in squeue (first on PATH) that prints `lines`: the states
 * of runs 0..5 of an ensemble whose slurm.jobs holds array 77 (rows 0-3, base 0) and array
 * 78 (rows 0-1, base 4). */
static void queue_states(const char *lines, EnsState states[6])
{
	char dir[] = "/tmp/sacc_test_squeue_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], script[2048];
	snprintf(path, sizeof path, "%s/slurm.jobs", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("77 0 0-3\n78 4 0-1\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/squeue", dir);
	snprintf(script, sizeof script, "#!/bin/sh\ncat <<'EOF'\n%sEOF\n", lines);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	const char *was = getenv("PATH");
	char *saved = strdup(was ? was : "/usr/bin:/bin");
	char newpath[4096];
	snprintf(newpath, sizeof newpath, "%s:%s", dir, saved);
	setenv("PATH", newpath, 1);
	char *ids[6] = {"a", "b", "c", "d", "e", "f"};
	EnsDesign d = {0, NULL, 6, ids, NULL};
	int rc = ens_slurm_queue(dir, &d, states);
	setenv("PATH", saved, 1);
	free(saved);
	snprintf(script, sizeof script, "rm -rf '%s'", dir);
	assert_int_equal(system(script), 0);
	assert_int_equal(rc, 0);
}

static void ensemble__slurm_queue__states_as_squeue_gives_them(void **state)
{
	(void)state;
	EnsState s[6];
	/* a running task, a cancelled one still listed, one being ended, pending ones shown
	 * as a range not yet split, one of the second array running */
	queue_states("77_0 RUNNING\n77_1 CANCELLED\n77_2 COMPLETING\n78_[0-1%1] PENDING\n"
		     "77_[3] PENDING\n", s);
	assert_int_equal(s[0], ENS_RUNNING);
	assert_int_equal(s[1], ENS_CANCELLED); /* over: no longer waiting or running */
	assert_int_equal(s[2], ENS_RUNNING);
	assert_int_equal(s[3], ENS_QUEUED);
	assert_int_equal(s[4], ENS_QUEUED);
	assert_int_equal(s[5], ENS_QUEUED);
	/* a queue without them: submitted runs that left it unfinished were cancelled */
	queue_states("12_0 RUNNING\n", s);
	for (int r = 0; r < 6; r++)
		assert_int_equal(s[r], ENS_CANCELLED);
	queue_states("77_[1,3] PENDING\n78_1 FAILED\n", s);
	assert_int_equal(s[0], ENS_CANCELLED);
	assert_int_equal(s[1], ENS_QUEUED);
	assert_int_equal(s[2], ENS_CANCELLED);
	assert_int_equal(s[3], ENS_QUEUED);
	assert_int_equal(s[5], ENS_CANCELLED);
}

/* A run resubmitted to Slurm keeps its earlier status file (cancelled) until its new task
 * starts: while Slurm holds it, the index shows it waiting or running, not cancelled. */
static void ensemble__index__queue_wins_over_an_earlier_status(void **state)
{
	(void)state;
	char dir[] = "/tmp/sacc_test_index_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *ids[3] = {"a", "b", "c"};
	EnsDesign d = {0, NULL, 3, ids, NULL};
	EnsStatus cancelled = {ENS_CANCELLED, 143, 0.5, "cancelled by Slurm"};
	EnsStatus ok = {ENS_OK, 0, 0.25, ""};
	char path[256];
	snprintf(path, sizeof path, "%s/status", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(ens_status_write(dir, "a", &cancelled), 0);
	assert_int_equal(ens_status_write(dir, "b", &cancelled), 0);
	assert_int_equal(ens_status_write(dir, "c", &ok), 0);
	EnsState queue[3] = {ENS_QUEUED, ENS_CANCELLED, ENS_RUNNING};
	int counts[6];
	assert_int_equal(ens_index_write(dir, &d, queue, counts), 0);
	assert_int_equal(counts[ENS_QUEUED], 1);
	assert_int_equal(counts[ENS_RUNNING], 1);
	assert_int_equal(counts[ENS_CANCELLED], 1); /* b: out of the queue, as its file says */
	assert_int_equal(counts[ENS_OK], 0);
	snprintf(path, sizeof path, "%s/index.csv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char text[1024] = "";
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(strstr(text, "\na,queued,,,\n"));
	assert_non_null(strstr(text, "\nb,cancelled,143,0.5,cancelled by Slurm\n"));
	assert_non_null(strstr(text, "\nc,running,,,\n"));
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ensemble__rng__matches_reference_streams),
		cmocka_unit_test(ensemble__normal_quantile__matches_reference),
		cmocka_unit_test(ensemble__percentile__linear_between_closest_ranks),
		cmocka_unit_test(ensemble__grid__full_factorial_last_fastest),
		cmocka_unit_test(ensemble__latin_hypercube__one_sample_per_stratum),
		cmocka_unit_test(ensemble__design_table__read_and_errors),
		cmocka_unit_test(ensemble__csv_field__quoted_when_needed),
		cmocka_unit_test(ensemble__stats__names_quoted_as_csv_fields),
		cmocka_unit_test(ensemble__slurm_queue__states_as_squeue_gives_them),
		cmocka_unit_test(ensemble__index__queue_wins_over_an_earlier_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
