/* ensemble_dir.c — an ensemble's directory (ensemble.h), the one place its state lives:
 *
 *   DIR/ensemble.txt   the target, the directory runs start in, the simulate options
 *   DIR/design.csv     the runs and their parameters
 *   DIR/runs/ID.csv    a finished run's result (renamed there from ID.csv.part when whole)
 *   DIR/runs/ID.log    its messages
 *   DIR/status/ID      its outcome (written after the result, renamed into place)
 *   DIR/index.csv      every run with its parameters and outcome, rebuilt from the above
 *
 * A run is finished when its status file exists: nothing else marks it, so an ensemble
 * killed at any moment resumes by running the rest, and the index is always what the
 * disk says. */
#include "ensemble.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "numfmt.h"

bool ens_path(char *buf, size_t size, const char *dir, const char *sub, const char *id,
              const char *ext)
{
	int n = sub ? snprintf(buf, size, "%s/%s/%s%s", dir, sub, id, ext)
	            : snprintf(buf, size, "%s/%s%s", dir, id, ext);
	return n >= 0 && (size_t)n < size;
}

int ens_mkdir(const char *path)
{
	return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

int ens_write_atomic(const char *path, void (*put)(FILE *, const void *), const void *env)
{
	char tmp[4200];
	if (snprintf(tmp, sizeof tmp, "%s.%ld.part", path, (long)getpid()) >= (int)sizeof tmp)
		return -1;
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	put(f, env);
	bool ok = !ferror(f);
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* ---- the description --------------------------------------------------------------------- */

void ens_spec_free(EnsSpec *s)
{
	free(s->target);
	free(s->cwd);
	for (int i = 0; i < s->nargs; i++)
		free(s->args[i]);
	free(s->args);
	memset(s, 0, sizeof *s);
}

static void put_spec(FILE *f, const void *env)
{
	const EnsSpec *s = env;
	fputs("# sacc ensemble: what every run of this directory is made of (one run is\n"
	      "# `sacc simulate TARGET ARG... --set PARAM=VALUE... -o runs/ID.csv` in CWD)\n", f);
	fprintf(f, "target %s\ncwd %s\nkeep %s\n", s->target, s->cwd,
	        s->reduce_final ? "final" : "all");
	for (int i = 0; i < s->nargs; i++)
		fprintf(f, "arg %s\n", s->args[i]);
}

int ens_spec_write(const char *dir, const EnsSpec *s)
{
	char path[4096];
	if (!ens_path(path, sizeof path, dir, NULL, "ensemble", ".txt"))
		return -1;
	return ens_write_atomic(path, put_spec, s);
}

static int spec_line(EnsSpec *s, const char *key, const char *val)
{
	if (strcmp(key, "target") == 0)
		return (free(s->target), s->target = strdup(val)) ? 0 : -1;
	if (strcmp(key, "cwd") == 0)
		return (free(s->cwd), s->cwd = strdup(val)) ? 0 : -1;
	if (strcmp(key, "keep") == 0) {
		s->reduce_final = strcmp(val, "final") == 0;
		return s->reduce_final || strcmp(val, "all") == 0 ? 0 : 1;
	}
	if (strcmp(key, "arg") == 0) {
		char **a = realloc(s->args, (size_t)(s->nargs + 1) * sizeof *a);
		if (!a)
			return -1;
		s->args = a;
		return (s->args[s->nargs] = strdup(val)) ? (s->nargs++, 0) : -1;
	}
	return 1;
}

int ens_spec_read(const char *dir, EnsSpec *s, char *err, size_t size)
{
	memset(s, 0, sizeof *s);
	char path[4096];
	if (!ens_path(path, sizeof path, dir, NULL, "ensemble", ".txt"))
		return snprintf(err, size, "%s: path too long", dir), 1;
	FILE *f = fopen(path, "r");
	if (!f)
		return snprintf(err, size, "%s: %s (not an ensemble's directory?)", path,
		                strerror(errno)), 1;
	char *line = NULL;
	size_t cap = 0;
	int ln = 0, rc = 0;
	while (!rc && getline(&line, &cap, f) >= 0) {
		ln++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		rc = sp ? spec_line(s, line, sp + 1) : 1;
		if (rc)
			snprintf(err, size, rc < 0 ? "out of memory" : "%s:%d: unknown line", path, ln);
	}
	free(line);
	fclose(f);
	if (!rc && (!s->target || !s->cwd))
		rc = (snprintf(err, size, "%s: no target or no cwd line", path), 1);
	if (rc)
		ens_spec_free(s);
	return rc ? 1 : 0;
}

bool ens_spec_equal(const EnsSpec *a, const EnsSpec *b)
{
	if (strcmp(a->target, b->target) || strcmp(a->cwd, b->cwd) || a->nargs != b->nargs ||
	    a->reduce_final != b->reduce_final)
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (strcmp(a->args[i], b->args[i]))
			return false;
	return true;
}

/* ---- a run's status ---------------------------------------------------------------------- */

static const char *const state_names[] = {"pending", "ok", "failed", "cancelled", "queued",
                                          "running"};

const char *ens_state_name(EnsState s)
{
	return state_names[s];
}

static void put_status(FILE *f, const void *env)
{
	const EnsStatus *st = env;
	char wall[FMT_REAL_MAX];
	fmt_real(wall, st->wall);
	fprintf(f, "state %s\nexit %d\nwall %s\nmessage %s\n", state_names[st->state],
	        st->exit_code, wall, st->message);
}

int ens_status_write(const char *dir, const char *id, const EnsStatus *st)
{
	char path[4096];
	if (!ens_path(path, sizeof path, dir, "status", id, ""))
		return -1;
	return ens_write_atomic(path, put_status, st);
}

int ens_status_read(const char *dir, const char *id, EnsStatus *st)
{
	char path[4096];
	memset(st, 0, sizeof *st);
	st->state = ENS_PENDING;
	if (!ens_path(path, sizeof path, dir, "status", id, ""))
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *v = strchr(line, ' ');
		if (!v)
			continue;
		*v++ = '\0';
		if (strcmp(line, "state") == 0) {
			for (int k = ENS_OK; k <= ENS_CANCELLED; k++)
				if (strcmp(v, state_names[k]) == 0)
					st->state = (EnsState)k;
		} else if (strcmp(line, "exit") == 0) {
			st->exit_code = atoi(v);
		} else if (strcmp(line, "wall") == 0) {
			st->wall = strtod(v, NULL);
		} else if (strcmp(line, "message") == 0) {
			snprintf(st->message, sizeof st->message, "%s", v);
		}
	}
	fclose(f);
	/* a status file cut short or unreadable counts as a failure, never as pending */
	if (st->state == ENS_PENDING)
		st->state = ENS_FAILED;
	return 0;
}

/* ---- the index ----------------------------------------------------------------------------- */

typedef struct IndexEnv {
	const char *dir;
	const EnsDesign *d;
	const EnsState *queue;
	int *counts;
} IndexEnv;

static void put_index(FILE *f, const void *env)
{
	const IndexEnv *e = env;
	const EnsDesign *d = e->d;
	fputs("run", f);
	for (int p = 0; p < d->nparams; p++) { /* quoted where a name or value must be */
		fputc(',', f);
		csv_put_field(f, d->params[p]);
	}
	fputs(",status,exit_code,wall_time,message\n", f);
	for (int r = 0; r < d->nruns; r++) {
		EnsStatus st;
		bool done = ens_status_read(e->dir, d->ids[r], &st) == 0;
		/* A run in Slurm's queue is waiting or running again, whatever an earlier attempt
		 * left in its status file (a cancelled one is resubmitted with that file still
		 * there until its new task starts). */
		if (e->queue && (e->queue[r] == ENS_QUEUED || e->queue[r] == ENS_RUNNING)) {
			done = false;
			st.message[0] = '\0';
		}
		if (!done && e->queue)
			st.state = e->queue[r];
		if (!done && st.state == ENS_CANCELLED)
			snprintf(st.message, sizeof st.message, "left Slurm's queue without a result "
			         "(cancelled before it started, or its node failed)");
		if (e->counts)
			e->counts[st.state]++;
		fputs(d->ids[r], f);
		for (int p = 0; p < d->nparams; p++) {
			fputc(',', f);
			csv_put_field(f, d->values[(size_t)r * (size_t)d->nparams + (size_t)p]);
		}
		if (done)
			fprintf(f, ",%s,%d,%s,", state_names[st.state], st.exit_code, FMT_REAL(st.wall));
		else
			fprintf(f, ",%s,,,", state_names[st.state]);
		csv_put_field(f, st.message);
		fputc('\n', f);
	}
}

int ens_index_write(const char *dir, const EnsDesign *d, const EnsState *queue, int counts[6])
{
	char path[4096];
	if (counts)
		memset(counts, 0, 6 * sizeof *counts);
	if (!ens_path(path, sizeof path, dir, NULL, "index", ".csv"))
		return -1;
	IndexEnv env = {dir, d, queue, counts};
	return ens_write_atomic(path, put_index, &env);
}
