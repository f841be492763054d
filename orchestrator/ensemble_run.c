/* ensemble_run.c — the runs of an ensemble (ensemble.h): one run, as a local worker and a
 * Slurm task both do it, and the pool of local workers.
 *
 * A run is a fresh `sacc simulate` process (fork and exec of sacc itself): an FMU that
 * crashes, leaks or keeps global state takes only its own run with it, every run starts
 * from the same state whatever ran before it in the same worker, and a run is exactly the
 * command a user could type (the log says it).  The worker around it, a forked copy of the
 * ensemble's process, waits for it, times it and records its outcome; the exec costs a few
 * milliseconds, which `make bench-ensemble` shows beside the runs' own work. */
#include "ensemble.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

char *ens_self_exe(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* Set by SIGTERM or SIGINT in a worker: the run in progress is told to stop, and recorded
 * as cancelled (Slurm's scancel and time limit send SIGTERM to every process of the task). */
static volatile sig_atomic_t run_stop;

static void on_stop(int sig)
{
	run_stop = sig;
}

/* The argument vector of the run: sacc simulate TARGET ARG... --set P=V... -o OUT. */
static char **run_argv(const char *sacc, const EnsSpec *spec, const EnsDesign *d, int row,
                       const char *out)
{
	int n = 0, cap = 8 + spec->nargs + 2 * d->nparams;
	char **v = calloc((size_t)cap, sizeof *v);
	if (!v)
		return NULL;
	v[n++] = strdup(sacc);
	v[n++] = strdup("simulate");
	v[n++] = strdup(spec->target);
	for (int i = 0; i < spec->nargs; i++)
		v[n++] = strdup(spec->args[i]);
	for (int p = 0; p < d->nparams; p++) {
		const char *val = d->values[(size_t)row * (size_t)d->nparams + (size_t)p];
		char *set = malloc(strlen(d->params[p]) + strlen(val) + 2);
		if (set)
			sprintf(set, "%s=%s", d->params[p], val);
		v[n++] = strdup("--set");
		v[n++] = set;
	}
	v[n++] = strdup("-o");
	v[n++] = strdup(out);
	for (int i = 0; i < n; i++)
		if (!v[i]) {
			for (int j = 0; j < n; j++)
				free(v[j]);
			free(v);
			return NULL;
		}
	return v;
}

static void free_argv(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The log starts with the command, so that a run can be repeated by hand. */
static void log_command(int fd, char **argv)
{
	FILE *f = fdopen(dup(fd), "w");
	if (!f)
		return;
	fputs("$", f);
	for (int i = 0; argv[i]; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
	fclose(f);
}

/* The run's message: the log's first line after the command (the first report is the
 * cause; what follows is its consequences and the summary). */
static void log_message(const char *log, char *msg, size_t size)
{
	msg[0] = '\0';
	FILE *f = fopen(log, "r");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && line[0] != '$' && line[0] != '(') {
			snprintf(msg, size, "%.500s", line);
			break;
		}
	}
	fclose(f);
}

/* Appends line to the record *rec (NULL: a new one).  Returns 0, or -1 when out of memory. */
static int add_line(char **rec, const char *line)
{
	size_t have = *rec ? strlen(*rec) : 0, n = strlen(line);
	char *r = realloc(*rec, have + n + 1);
	if (!r)
		return -1;
	memcpy(r + have, line, n + 1);
	*rec = r;
	return 0;
}

/* Keeps the header and the last row of the result at path (--reduce final).  A row is a
 * record: a String's quoted line break continues it (its quotes are odd in number until
 * the field closes). */
static int keep_final_row(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *line = NULL, *header = NULL, *last = NULL;
	size_t cap = 0, quotes = 0;
	int rc = -1;
	while (getline(&line, &cap, f) >= 0) {
		char **slot = header ? &last : &header;
		if (quotes % 2 == 0) { /* a new record */
			free(*slot);
			*slot = NULL;
			quotes = 0;
		}
		for (const char *p = line; *p; p++)
			quotes += *p == '"';
		if (add_line(slot, line))
			goto done;
	}
	fclose(f);
	f = header ? fopen(path, "w") : NULL;
	if (f) {
		fputs(header, f);
		if (last)
			fputs(last, f);
		rc = ferror(f) | (fclose(f) != 0) ? -1 : 0;
		f = NULL;
	}
done:
	if (f)
		fclose(f);
	free(line);
	free(header);
	free(last);
	return rc;
}

/* Starts simulate with the log as its standard error.  Returns its pid, or -1. */
static pid_t start_run(char **argv, const char *cwd, const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	log_command(fd, argv);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (chdir(cwd) != 0) {
			fprintf(stderr, "sacc ensemble: cannot enter %s: %s\n", cwd, strerror(errno));
			_exit(127);
		}
		execv(argv[0], argv);
		fprintf(stderr, "sacc ensemble: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	return pid;
}

/* Waits for the run, passing on a stop request once.  Returns its wait status. */
static int wait_run(pid_t pid)
{
	int st = 0;
	bool passed = false;
	for (;;) {
		if (run_stop && !passed) {
			kill(pid, SIGTERM);
			passed = true;
		}
		if (waitpid(pid, &st, 0) == pid)
			return st;
		if (errno != EINTR)
			return 0;
	}
}

int ens_run_one(const char *sacc, const char *dir, const EnsSpec *spec, const EnsDesign *d,
                int row)
{
	const char *id = d->ids[row];
	char part[4096], out[4096], log[4096], failed[4096];
	if (!ens_path(part, sizeof part, dir, "runs", id, ".csv.part") ||
	    !ens_path(out, sizeof out, dir, "runs", id, ".csv") ||
	    !ens_path(failed, sizeof failed, dir, "runs", id, ".failed.csv") ||
	    !ens_path(log, sizeof log, dir, "runs", id, ".log"))
		return fprintf(stderr, "sacc ensemble: %s: path too long\n", dir), 2;
	char **argv = run_argv(sacc, spec, d, row, part);
	if (!argv)
		return fprintf(stderr, "sacc ensemble: out of memory\n"), 2;
	struct sigaction sa, old_term, old_int;
	run_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	unlink(part);
	unlink(out);
	unlink(failed);
	double began = prog_now();
	pid_t pid = start_run(argv, spec->cwd, log);
	free_argv(argv);
	if (pid < 0) {
		fprintf(stderr, "sacc ensemble: cannot start run %s: %s\n", id, strerror(errno));
		return 2;
	}
	int ws = wait_run(pid);
	EnsStatus st = {ENS_OK, 0, prog_now() - began, ""};
	st.exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (st.exit_code != 0)
		log_message(log, st.message, sizeof st.message);
	if (st.exit_code == 0 && spec->reduce_final && keep_final_row(part) != 0) {
		st.exit_code = 1;
		snprintf(st.message, sizeof st.message, "cannot keep the final row of %.400s",
		         part);
	}
	if (st.exit_code == 0 && rename(part, out) != 0) {
		st.exit_code = 1;
		snprintf(st.message, sizeof st.message, "cannot rename %.400s: %.80s", part,
		         strerror(errno));
	}
	if (st.exit_code != 0) {
		st.state = run_stop ? ENS_CANCELLED : ENS_FAILED;
		if (WIFSIGNALED(ws) && !st.message[0])
			snprintf(st.message, sizeof st.message, "killed by signal %d", WTERMSIG(ws));
		if (run_stop)
			snprintf(st.message, sizeof st.message, "stopped by signal %d (cancelled, time "
			         "limit or interrupt)", (int)run_stop);
		rename(part, failed); /* what it wrote before failing, for a look */
	}
	int rc = ens_status_write(dir, id, &st) == 0 ? st.state == ENS_CANCELLED ? 3
	                                                : st.state != ENS_OK : 2;
	if (rc == 2)
		fprintf(stderr, "sacc ensemble: cannot record run %s in %s/status\n", id, dir);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	return rc;
}

/* ---- the local pool ------------------------------------------------------------------------ */

static volatile sig_atomic_t pool_stop;

static void on_pool_stop(int sig)
{
	pool_stop = sig;
}

static void draw(bool tty, double began, double *last, long done, long failed, long total)
{
	double elapsed = prog_now() - began;
	if (!prog_due(tty, elapsed, *last))
		return;
	char line[256];
	prog_format_runs(line, sizeof line, prog_width(), done, failed, total, elapsed);
	prog_show(line);
	*last = elapsed;
}

/* A worker for row: a forked copy of this process that does the run and exits. */
static pid_t start_worker(const char *sacc, const char *dir, const EnsSpec *spec,
                          const EnsDesign *d, int row)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* an ensemble killed outright (SIGKILL) takes its runs with it, recorded as
		 * cancelled: none goes on unseen beside the runs of the ensemble resumed */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(3);
		_exit(ens_run_one(sacc, dir, spec, d, row));
	}
	return pid;
}

int ens_run_local(const char *sacc, const char *dir, const EnsSpec *spec, const EnsDesign *d,
                  const bool *todo, int jobs)
{
	long total = 0, done = 0, failed = 0;
	for (int r = 0; r < d->nruns; r++)
		total += todo[r];
	struct sigaction sa, old_term, old_int;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_pool_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	pool_stop = 0;
	bool tty = isatty(STDERR_FILENO), drawn = false;
	double began = prog_now(), last = -1;
	int running = 0, next = 0, lost = 0;
	pid_t *pids = calloc((size_t)jobs, sizeof *pids);
	if (!pids)
		return -1;
	bool passed = false;
	while (running > 0 || (next < d->nruns && !pool_stop)) {
		while (running < jobs && !pool_stop && next < d->nruns) {
			if (!todo[next]) {
				next++;
				continue;
			}
			pid_t pid = start_worker(sacc, dir, spec, d, next);
			if (pid < 0) {
				fprintf(stderr, "sacc ensemble: cannot start a worker: %s\n", strerror(errno));
				lost++;
				break;
			}
			for (int k = 0; k < jobs; k++)
				if (!pids[k]) {
					pids[k] = pid;
					break;
				}
			next++;
			running++;
		}
		if (running == 0)
			break;
		int ws;
		pid_t pid = wait(&ws);
		if (pid < 0) {
			if (errno != EINTR)
				break;
			/* the workers record their runs as cancelled (a terminal's interrupt
			 * reached them already; a signal to this process alone did not) */
			for (int k = 0; pool_stop && !passed && k < jobs; k++)
				if (pids[k])
					kill(pids[k], SIGTERM);
			passed |= pool_stop != 0;
			continue;
		}
		for (int k = 0; k < jobs; k++)
			if (pids[k] == pid)
				pids[k] = 0;
		running--;
		done++;
		int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 2;
		failed += code == 1;
		lost += code == 2;
		draw(tty, began, &last, done, failed, total);
		drawn |= last >= 0;
	}
	free(pids);
	if (drawn)
		fputs("\r\033[K", stderr);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	if (pool_stop)
		return -2;
	return lost && lost == done ? -1 : (int)failed;
}
