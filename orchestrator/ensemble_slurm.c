/* ensemble_slurm.c — an ensemble as Slurm job arrays (ensemble.h): sbatch submits the
 * runs to do as one array per thousand runs (Slurm's default MaxArraySize is 1001), each
 * task being `sacc ensemble run-task DIR +BASE`, the run of row BASE + its array index:
 * exactly what a local worker does, on the directory the nodes share.  DIR/slurm.jobs
 * keeps each array's job id, base and rows; squeue tells which runs wait or run, and a
 * submitted run that left the queue without a status was cancelled before it started (a
 * task cancelled while running records itself, ensemble_run.c). */
#include "ensemble.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ARRAY_MAX = 1000 };

/* Runs argv (PATH searched) with its standard output into out (at most size - 1 bytes,
 * NUL-terminated) and its standard error to ours.  Returns its exit status, or -1 when it
 * cannot be run (127: not found). */
static int capture(char *const argv[], char *out, size_t size)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	size_t len = 0;
	ssize_t n;
	while ((n = read(fds[0], out + len, size - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
		if (len == size - 1) { /* the rest is drained and dropped */
			char sink[4096];
			while (read(fds[0], sink, sizeof sink) > 0)
				;
			break;
		}
	}
	out[len] = '\0';
	close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The rows of todo in [base, base + ARRAY_MAX) as an array's index list "0-7,9,12-13". */
static int index_list(const bool *todo, int nruns, int base, char *buf, size_t size)
{
	size_t len = 0;
	int end = base + ARRAY_MAX < nruns ? base + ARRAY_MAX : nruns, n = 0;
	buf[0] = '\0';
	for (int r = base; r < end; r++) {
		if (!todo[r])
			continue;
		int last = r;
		while (last + 1 < end && todo[last + 1])
			last++;
		int w = last > r ? snprintf(buf + len, size - len, "%s%d-%d", n ? "," : "", r - base,
		                            last - base)
		                 : snprintf(buf + len, size - len, "%s%d", n ? "," : "", r - base);
		if (w < 0 || (size_t)w >= size - len)
			return -1;
		len += (size_t)w;
		n += last - r + 1;
		r = last;
	}
	return n;
}

/* sbatch for the rows of todo from base: the job id into jobid.  Returns 0, or 1. */
static int submit_array(const char *sacc, const char *dir, const char *list, int base,
                        const EnsSlurm *opt, char *jobid, size_t size)
{
	char array[16384 + 32], output[4200], chdir_opt[4200], wrap[8400], part[64], time[64];
	snprintf(array, sizeof array, "--array=%s", list);
	if (opt->throttle)
		snprintf(array + strlen(array), sizeof array - strlen(array), "%%%d", opt->throttle);
	snprintf(output, sizeof output, "--output=%s/slurm/%%A_%%a.out", dir);
	snprintf(chdir_opt, sizeof chdir_opt, "--chdir=%s", dir);
	/* sbatch --wrap runs the command with sh: the paths single-quoted */
	if (strchr(sacc, '\'') || strchr(dir, '\'')) {
		cli_error("a path with a quote cannot go to sbatch: %s", dir);
		return 1;
	}
	snprintf(wrap, sizeof wrap, "--wrap=exec '%s' ensemble run-task '%s' +%d", sacc, dir, base);
	const char *argv[64];
	int n = 0;
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = "--job-name=sacc-ensemble";
	argv[n++] = array;
	argv[n++] = output;
	argv[n++] = chdir_opt;
	if (opt->partition) {
		snprintf(part, sizeof part, "--partition=%s", opt->partition);
		argv[n++] = part;
	}
	if (opt->time_limit) {
		snprintf(time, sizeof time, "--time=%s", opt->time_limit);
		argv[n++] = time;
	}
	for (int i = 0; i < opt->sbatch.n && n < 60; i++)
		argv[n++] = opt->sbatch.items[i];
	argv[n++] = wrap;
	argv[n] = NULL;
	char out[256];
	int rc = capture((char *const *)argv, out, sizeof out);
	if (rc != 0) {
		cli_error(rc == 127 ? "sbatch not found: Slurm's client (Debian: slurm-client) is "
		                      "needed for --slurm" : "sbatch failed (exit %d)", rc);
		return 1;
	}
	out[strcspn(out, ";\n")] = '\0';
	if (!out[0] || strspn(out, "0123456789") != strlen(out)) {
		cli_error("sbatch gave no job id: '%s'", out);
		return 1;
	}
	snprintf(jobid, size, "%.40s", out);
	return 0;
}

int ens_slurm_submit(const char *sacc, const char *dir, const EnsDesign *d, const bool *todo,
                     const EnsSlurm *opt)
{
	char path[4096];
	if (!ens_path(path, sizeof path, dir, NULL, "slurm", "") || ens_mkdir(path)) {
		cli_error("cannot make %s/slurm: %s", dir, strerror(errno));
		return 1;
	}
	ens_path(path, sizeof path, dir, NULL, "slurm", ".jobs");
	int tasks = 0, arrays = 0;
	for (int base = 0; base < d->nruns; base += ARRAY_MAX) {
		char list[16384], jobid[64];
		int n = index_list(todo, d->nruns, base, list, sizeof list);
		if (n == 0)
			continue;
		if (n < 0 || submit_array(sacc, dir, list, base, opt, jobid, sizeof jobid))
			return 1;
		FILE *f = fopen(path, "a");
		bool ok = f && fprintf(f, "%s %d %s\n", jobid, base, list) > 0;
		if (f)
			ok &= fclose(f) == 0;
		if (!ok) {
			cli_error("job %s submitted, but %s cannot be written: %s", jobid, path,
			          strerror(errno));
			return 1;
		}
		fprintf(stderr, "%s: job %s: %d runs (rows %d to %d)\n", cli_prog(), jobid, n,
		        base + 1, base + ARRAY_MAX < d->nruns ? base + ARRAY_MAX : d->nruns);
		tasks += n;
		arrays++;
	}
	fprintf(stderr, "%s: %d runs submitted in %d job array%s; `sacc ensemble status %s` "
	        "follows them\n", cli_prog(), tasks, arrays, arrays == 1 ? "" : "s", dir);
	return 0;
}

/* Marks the rows of one line of slurm.jobs ("JOBID BASE LIST") submitted. */
static void mark_submitted(const char *line, bool *submitted, int nruns, long *jobs, int *njobs,
                           int *bases)
{
	long job;
	int base, off = 0;
	if (sscanf(line, "%ld %d %n", &job, &base, &off) < 2 || *njobs >= 1024)
		return;
	jobs[*njobs] = job;
	bases[(*njobs)++] = base;
	for (const char *p = line + off; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long r = base + a; r <= base + b && r < nruns; r++)
			if (r >= 0)
				submitted[r] = true;
		p = *end == ',' ? end + 1 : end;
	}
}

/* What squeue's state says of a task: still to start, started and not yet over, or over
 * (a cancelled or finished task lingers in the queue for a while with its final state; its
 * run then stands as its status file says, or as cancelled when it has none). */
static EnsState queue_state(const char *state, EnsState over)
{
	static const char *const waiting[] = {"PENDING", "REQUEUED", "REQUEUE_HOLD",
					      "REQUEUE_FED", "RESV_DEL_HOLD", "SPECIAL_EXIT"};
	static const char *const started[] = {"RUNNING", "CONFIGURING", "COMPLETING",
					      "SUSPENDED", "STOPPED", "RESIZING", "SIGNALING",
					      "STAGE_OUT"};
	for (size_t i = 0; i < sizeof waiting / sizeof *waiting; i++)
		if (strcmp(state, waiting[i]) == 0)
			return ENS_QUEUED;
	for (size_t i = 0; i < sizeof started / sizeof *started; i++)
		if (strcmp(state, started[i]) == 0)
			return ENS_RUNNING;
	return over;
}

/* squeue's line "JOBID_TASK STATE", or "JOBID_[A-B,C,...] STATE" for tasks of an array not
 * yet split (pending ones may be shown so), applied to states. */
static void apply_queue_line(const char *line, const long *jobs, const int *bases, int njobs,
                             EnsState *states, int nruns)
{
	long job;
	char tasks[1024], state[64];
	if (sscanf(line, "%ld_%1023s %63s", &job, tasks, state) != 3)
		return;
	const char *p = tasks[0] == '[' ? tasks + 1 : tasks;
	while (*p && *p != ']') {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			return;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end == '%') /* a throttle: "[0-9%2]" */
			strtol(end + 1, &end, 10);
		for (int k = 0; k < njobs; k++)
			for (long t = a; t <= b && t - a < 100000; t++) {
				long r = bases[k] + t;
				if (jobs[k] == job && r >= 0 && r < nruns)
					states[r] = queue_state(state, states[r]);
			}
		if (*end != ',')
			break;
		p = end + 1;
	}
}

int ens_slurm_queue(const char *dir, const EnsDesign *d, EnsState *states)
{
	for (int r = 0; r < d->nruns; r++)
		states[r] = ENS_PENDING;
	char path[4096];
	FILE *f = ens_path(path, sizeof path, dir, NULL, "slurm", ".jobs") ? fopen(path, "r") : NULL;
	if (!f)
		return -1;
	bool *submitted = calloc((size_t)d->nruns + 1, sizeof *submitted);
	long *jobs = calloc(1024, sizeof *jobs);
	int *bases = calloc(1024, sizeof *bases);
	int njobs = 0;
	if (!jobs || !bases) {
		free(submitted);
		submitted = NULL;
	}
	char line[20000];
	while (submitted && fgets(line, sizeof line, f))
		mark_submitted(line, submitted, d->nruns, jobs, &njobs, bases);
	fclose(f);
	char uid[32], *out = malloc(1 << 22);
	snprintf(uid, sizeof uid, "%ld", (long)getuid());
	char *const argv[] = {"squeue", "-h", "-r", "-u", uid, "-o", "%i %T", NULL};
	int rc = submitted && out ? capture(argv, out, 1 << 22) : -1;
	if (rc == 0) {
		for (int r = 0; r < d->nruns; r++)
			if (submitted[r])
				states[r] = ENS_CANCELLED; /* unless the queue holds it */
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			apply_queue_line(l, jobs, bases, njobs, states, d->nruns);
	}
	free(out);
	free(submitted);
	free(jobs);
	free(bases);
	return rc == 0 ? 0 : -1;
}
