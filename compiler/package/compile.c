/* compile.c — compiling a wrapper's sources for `sacc build` (see compile.h): one compiler
 * process per source, as many at once as the machine has processors, then one link; the
 * embedded runtime's objects taken from and added to the object cache.
 *
 * Compiling the runtime was nearly all of a build's time (about 5 s of CPU for a
 * pass-through wrapper); its objects depend only on sacc, the compiler and the flags, never
 * on the adaptation (the runtime includes nothing the emitter writes), so they are made
 * once per sacc and compiler. */
#include "compile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "package.h"
#include "util.h"
#include "version.h"

/* ---- processes ------------------------------------------------------------------------------ */

/* One compiler process: started by task_start, its stdout and stderr read into out until
 * the pipe closes, then reaped. */
typedef struct Task {
	char **argv;
	pid_t pid;
	int fd;        /* the read end of its output, -1 once closed */
	int errfd;     /* the close-on-exec pipe a failed chdir or exec reports through */
	StrBuf out;
	int status;    /* exit status, 128 + signal, or -1 (errno in err) */
	int err;
} Task;

static int task_start(Task *t, const char *cwd)
{
	int fds[2], errp[2];
	if (pipe(fds) != 0)
		return -1;
	if (pipe(errp) != 0 || fcntl(errp[1], F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	fcntl(errp[0], F_SETFD, FD_CLOEXEC);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		close(errp[0]);
		close(errp[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(errp[0]);
		if (dup2(fds[1], 1) >= 0 && dup2(fds[1], 2) >= 0 && chdir(cwd) == 0)
			execvp(t->argv[0], t->argv);
		int e = errno;
		ssize_t w = write(errp[1], &e, sizeof e);
		(void)w;
		_exit(127);
	}
	close(fds[1]);
	close(errp[1]);
	t->pid = pid;
	t->fd = fds[0];
	t->errfd = errp[0];
	return 0;
}

/* Reads what is there of t's output; at its end, reaps t. */
static void task_read(Task *t)
{
	char buf[4096];
	ssize_t n = read(t->fd, buf, sizeof buf);
	if (n < 0 && errno == EINTR)
		return;
	if (n > 0) {
		if (t->out.len < (64u << 10)) /* keep what a person reads; drain the rest */
			for (ssize_t i = 0; i < n; i++)
				sb_putc(&t->out, buf[i]);
		return;
	}
	close(t->fd);
	t->fd = -1;
	int child_errno = 0;
	ssize_t got;
	while ((got = read(t->errfd, &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
		;
	close(t->errfd);
	int status;
	pid_t w;
	while ((w = waitpid(t->pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof child_errno || w < 0) {
		t->status = -1;
		t->err = got == (ssize_t)sizeof child_errno ? child_errno : errno;
	} else if (WIFEXITED(status)) {
		t->status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		t->status = 128 + WTERMSIG(status);
	} else {
		t->status = -1;
		t->err = ECHILD;
	}
}

/* How many compilers run at once: the processors online, at most 8. */
static int parallelism(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

/* Runs the n tasks in cwd, at most parallelism() at a time; each ends with its status set.
 * A task that cannot be started has status -1 and err set. */
static void run_tasks(Task *tasks, int n, const char *cwd)
{
	int max = parallelism(), next = 0, running = 0;
	struct pollfd pfd[8];
	Task *who[8];
	while (next < n || running > 0) {
		while (running < max && next < n) {
			Task *t = &tasks[next++];
			if (task_start(t, cwd) != 0) {
				t->status = -1;
				t->err = errno;
				continue;
			}
			running++;
		}
		int np = 0;
		for (int i = 0; i < next; i++)
			if (tasks[i].fd >= 0) {
				pfd[np] = (struct pollfd){tasks[i].fd, POLLIN, 0};
				who[np++] = &tasks[i];
			}
		if (np == 0)
			continue;
		if (poll(pfd, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* poll itself failing leaves blocking reads, which still finish */
			for (int i = 0; i < np; i++)
				pfd[i].revents = POLLIN;
		}
		for (int i = 0; i < np; i++)
			if (pfd[i].revents) {
				task_read(who[i]);
				if (who[i]->fd < 0)
					running--;
			}
	}
}

/* ---- the object cache ----------------------------------------------------------------------- */

/* Two 64-bit FNV-1a-style hashes with different seeds and primes: a 128-bit name for an
 * object, where a collision among the few thousand objects a cache holds is not a concern
 * (the inputs are sacc's own files, not chosen by an adversary). */
typedef struct Hash {
	uint64_t a, b;
} Hash;

static Hash hash_new(void)
{
	return (Hash){0xcbf29ce484222325u, 0x84222325cbf29ce4u};
}

static void hash_bytes(Hash *h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++) {
		h->a = (h->a ^ p[i]) * 0x100000001b3u;
		h->b = (h->b ^ p[i]) * 0x100000000000067u;
		h->b ^= h->b >> 29;
	}
}

/* A string and its terminating NUL, so that "ab","c" and "a","bc" differ. */
static void hash_str(Hash *h, const char *s)
{
	hash_bytes(h, s, strlen(s) + 1);
}

/* Every embedded runtime file, path and bytes: what the runtime's objects are made of,
 * headers included. */
static Hash runtime_digest(void)
{
	static Hash digest;
	static bool done;
	if (!done) {
		digest = hash_new();
		for (size_t i = 0; i < pkg_nruntime_files; i++) {
			hash_str(&digest, pkg_runtime_files[i].path);
			hash_bytes(&digest, pkg_runtime_files[i].data, pkg_runtime_files[i].size);
		}
		done = true;
	}
	return digest;
}

const char *pkg_cache_dir(Compilation *c)
{
	const char *d = getenv("SACC_CACHE_DIR");
	if (d && *d && *d != '/') { /* relative: to where sacc runs, not where cc does */
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		const char *abs = arena_printf(c->arena, "%s/%s", cwd, d);
		free(cwd);
		return abs;
	}
	if (d)
		return *d ? d : NULL;
	const char *x = getenv("XDG_CACHE_HOME");
	if (x && *x == '/')
		return arena_printf(c->arena, "%s/sacc", x);
	const char *home = getenv("HOME");
	if (home && *home == '/')
		return arena_printf(c->arena, "%s/.cache/sacc", home);
	return NULL;
}

/* mkdir -p for the cache (its parents may not exist yet). */
static bool make_cache_dir(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		bool ok = mkdir(path, 0777) == 0 || errno == EEXIST;
		*p = '/';
		if (!ok)
			return false;
	}
	return mkdir(path, 0777) == 0 || errno == EEXIST;
}

/* What identifies the compiler: its command words and what `--version` prints, asked once
 * per command in a process.  False when it cannot tell (then nothing is cached). */
static bool compiler_identity(const char *cc, Hash *h)
{
	static struct Known {
		char *cc;
		Hash h;
		bool ok;
	} memo[4];
	static int nmemo;
	for (int i = 0; i < nmemo; i++)
		if (strcmp(memo[i].cc, cc) == 0) {
			hash_bytes(h, &memo[i].h, sizeof memo[i].h);
			return memo[i].ok;
		}
	char *words = strdup(cc);
	char *argv[34];
	int argc = 0;
	for (char *w = words ? strtok(words, " \t") : NULL; w && argc < 32; w = strtok(NULL, " \t"))
		argv[argc++] = w;
	argv[argc++] = "--version";
	argv[argc] = NULL;
	Task t = {.argv = argv, .fd = -1, .errfd = -1};
	sb_init(&t.out);
	bool ok = false;
	Hash id = hash_new();
	if (words && argc > 1 && task_start(&t, ".") == 0) {
		while (t.fd >= 0)
			task_read(&t);
		ok = t.status == 0 && t.out.len > 0;
		hash_str(&id, cc);
		hash_bytes(&id, t.out.data, t.out.len);
	}
	sb_free(&t.out);
	free(words);
	if (nmemo < (int)(sizeof memo / sizeof *memo)) {
		char *copy = strdup(cc);
		if (copy)
			memo[nmemo++] = (struct Known){copy, id, ok};
	}
	hash_bytes(h, &id, sizeof id);
	return ok;
}

/* The whole of a file, or NULL (*n its size). */
static unsigned char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	StrBuf sb;
	sb_init(&sb);
	int ch;
	while ((ch = getc(f)) != EOF)
		sb_putc(&sb, (char)ch);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		sb_free(&sb);
		return NULL;
	}
	*n = sb.len;
	if (!sb.data) /* an empty file */
		return calloc(1, 1);
	return (unsigned char *)sb.data;
}

/* The cache entry of source under key (everything but the source), or NULL when the
 * source cannot be read. */
static char *entry_path(Compilation *c, const char *dir, Hash key, const char *tree,
                        const char *source)
{
	size_t n;
	unsigned char *data = read_all(arena_printf(c->arena, "%s/%s", tree, source), &n);
	if (!data)
		return NULL;
	hash_str(&key, source);
	hash_bytes(&key, data, n);
	free(data);
	return arena_printf(c->arena, "%s/%016llx%016llx.o", dir, (unsigned long long)key.a,
			    (unsigned long long)key.b);
}

/* Copies a freshly compiled object into the cache under a temporary name, then renames it:
 * a reader sees the whole object or none.  Failing to cache is not an error. */
static void cache_put(const char *obj, const char *entry)
{
	size_t n;
	unsigned char *data = read_all(obj, &n);
	if (!data)
		return;
	size_t len = strlen(entry) + 32;
	char *tmp = malloc(len);
	if (tmp) {
		snprintf(tmp, len, "%s.%ld.tmp", entry, (long)getpid());
		FILE *f = fopen(tmp, "wb");
		bool ok = f && fwrite(data, 1, n, f) == n;
		if (f && fclose(f) != 0)
			ok = false;
		if (!ok || rename(tmp, entry) != 0)
			unlink(tmp);
		free(tmp);
	}
	free(data);
}

static bool is_object(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* ---- compiling and linking -------------------------------------------------------------------- */

/* The compiler command's words, then the n args, NULL-terminated, in the arena. */
static char **command(Compilation *c, const char *cc, const char *const *args, int n)
{
	char *words = arena_strdup(c->arena, cc);
	char **argv = arena_alloc(c->arena, (strlen(cc) + (size_t)n + 2) * sizeof *argv);
	int argc = 0;
	for (char *w = strtok(words, " \t"); w; w = strtok(NULL, " \t"))
		argv[argc++] = w;
	for (int i = 0; i < n; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	return argv;
}

/* Reports t's failure as the compiler's failure on job's `what`, with its command and
 * output. */
static void report(Compilation *c, const PkgCompileJob *job, Task *t)
{
	DiagSink *d = c->diag;
	if (t->status < 0) {
		diag_error(d, job->loc, "cannot run the C compiler '%s': %s", t->argv[0],
			   strerror(t->err));
		diag_note(d, (Loc){0}, "sacc runs $CC, or cc when CC is not set");
		return;
	}
	if (t->status > 128)
		diag_error(d, job->loc, "the C compiler '%s' was killed by signal %d while compiling "
			   "%s of '%s'", t->argv[0], t->status - 128, job->what, job->adaptation);
	else
		diag_error(d, job->loc, "the C compiler '%s' failed on %s of '%s' (exit status %d)",
			   t->argv[0], job->what, job->adaptation, t->status);
	StrBuf cmd;
	sb_init(&cmd);
	for (int i = 0; t->argv[i]; i++)
		sb_printf(&cmd, "%s%s", i ? " " : "", t->argv[i]);
	diag_note(d, (Loc){0}, "the command, run in the FMU's directory: %s", sb_str(&cmd));
	sb_free(&cmd);
	while (t->out.len > 0 && t->out.data[t->out.len - 1] == '\n')
		t->out.data[--t->out.len] = '\0';
	if (t->out.len)
		diag_note(d, (Loc){0}, "its output:\n%s", sb_str(&t->out));
}

/* Compiles the sources whose objs[i] is not yet there (objs[i] its object, entries[i] its
 * cache entry or NULL); 0, or 1 after reporting the first failure in source order. */
static int compile_objects(Compilation *c, const PkgCompileJob *job, const char **objs,
                           char **entries, const bool *todo)
{
	int n = 0;
	Task *tasks = calloc((size_t)job->nsources + 1, sizeof *tasks);
	if (!tasks) {
		diag_error(c->diag, job->loc, "out of memory");
		return 1;
	}
	int *which = calloc((size_t)job->nsources + 1, sizeof *which);
	const char **args = calloc((size_t)job->nflags + 4, sizeof *args);
	int rc = 1;
	if (!which || !args) {
		diag_error(c->diag, job->loc, "out of memory");
		goto done;
	}
	for (int i = 0; i < job->nsources; i++) {
		if (!todo[i])
			continue;
		int k = 0;
		for (int f = 0; f < job->nflags; f++)
			args[k++] = job->flags[f];
		args[k++] = "-c";
		args[k++] = "-o";
		args[k++] = objs[i];
		args[k++] = job->sources[i];
		tasks[n] = (Task){.argv = command(c, job->cc, args, k), .fd = -1, .errfd = -1};
		sb_init(&tasks[n].out);
		which[n++] = i;
	}
	run_tasks(tasks, n, job->tree);
	rc = 0;
	for (int t = 0; t < n; t++) {
		if (tasks[t].status != 0) {
			if (!rc)
				report(c, job, &tasks[t]);
			rc = 1;
		} else if (entries[which[t]]) {
			cache_put(objs[which[t]], entries[which[t]]);
		}
	}
done:
	for (int t = 0; t < n; t++)
		sb_free(&tasks[t].out);
	free(tasks);
	free(which);
	free(args);
	return rc;
}

/* Links the objects into job->output; the task's status, t kept for a report. */
static int link_objects(Compilation *c, const PkgCompileJob *job, const char **objs, Task *t)
{
	int n = job->nlink_flags + job->nsources + job->nlibs + 2;
	const char **args = arena_alloc(c->arena, (size_t)n * sizeof *args);
	int k = 0;
	for (int i = 0; i < job->nlink_flags; i++)
		args[k++] = job->link_flags[i];
	args[k++] = "-o";
	args[k++] = job->output;
	for (int i = 0; i < job->nsources; i++)
		args[k++] = objs[i];
	for (int i = 0; i < job->nlibs; i++)
		args[k++] = job->libs[i];
	*t = (Task){.argv = command(c, job->cc, args, k), .fd = -1, .errfd = -1};
	sb_init(&t->out);
	run_tasks(t, 1, job->tree);
	return t->status;
}

int pkg_compile(Compilation *c, const PkgCompileJob *job)
{
	Arena *a = c->arena;
	int n = job->nsources;
	const char **objs = arena_alloc(a, ((size_t)n + 1) * sizeof *objs);
	char **entries = arena_alloc(a, ((size_t)n + 1) * sizeof *entries);
	bool *todo = arena_alloc(a, (size_t)n + 1);
	if (mkdir(job->objdir, 0777) != 0 && errno != EEXIST) {
		diag_error(c->diag, (Loc){job->objdir, 0, 0, 0}, "cannot create the directory: %s",
			   strerror(errno));
		return 1;
	}

	/* The cache's key for this job: all but the source itself. */
	const char *dir = pkg_cache_dir(c);
	Hash key = hash_new();
	hash_str(&key, "sacc object cache 1");
	hash_str(&key, SACC_VERSION);
	Hash rt = runtime_digest();
	hash_bytes(&key, &rt, sizeof rt);
	for (int f = 0; f < job->nflags; f++)
		hash_str(&key, job->flags[f]);
	if (dir && (!compiler_identity(job->cc, &key) || !make_cache_dir(arena_strdup(a, dir))))
		dir = NULL;

	bool used_cache = false;
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(job->sources[i], '/');
		objs[i] = arena_printf(a, "%s/%d-%s.o", job->objdir, i, base ? base + 1 : job->sources[i]);
		entries[i] = dir && job->cacheable[i]
			? entry_path(c, dir, key, job->tree, job->sources[i]) : NULL;
		todo[i] = true;
		if (entries[i] && is_object(entries[i])) {
			objs[i] = entries[i];
			todo[i] = false;
			used_cache = true;
		}
	}
	if (compile_objects(c, job, objs, entries, todo) != 0)
		return 1;

	Task t;
	int st = link_objects(c, job, objs, &t);
	if (st != 0 && used_cache) {
		/* A cached object the linker refuses (damaged, or from an incompatible compiler
		 * that reports the same version): drop the ones used and compile them afresh. */
		sb_free(&t.out);
		for (int i = 0; i < n; i++) {
			todo[i] = objs[i] == entries[i];
			if (todo[i]) {
				unlink(entries[i]);
				const char *base = strrchr(job->sources[i], '/');
				objs[i] = arena_printf(a, "%s/%d-%s.o", job->objdir, i,
						       base ? base + 1 : job->sources[i]);
			}
		}
		if (compile_objects(c, job, objs, entries, todo) != 0)
			return 1;
		st = link_objects(c, job, objs, &t);
	}
	if (st != 0)
		report(c, job, &t);
	sb_free(&t.out);
	return st != 0;
}
