/* plot.c — `sacc plot` (plot.h): reads a result with csv.c, checks everything it can
 * before gnuplot starts (the extension, the variables, the data), then writes gnuplot a
 * script holding the data as a datablock, so that what is drawn is exactly what was
 * checked, and no file name reaches gnuplot but the output's.
 *
 * One plot, every chosen variable a line against time, the key naming each as its CSV
 * column (instance.variable); the terminal is pngcairo or svg after the output's
 * extension.  gnuplot's own messages go to standard error as they come; a failure removes
 * the half-written output. */
#include "plot.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv.h"

static void plot_usage(FILE *out)
{
	fputs("usage: sacc plot RESULT.csv -o FILE.png|FILE.svg [--vars VAR,...] [--title T]\n"
	      "\n"
	      "  RESULT.csv  a result of sacc simulate (a header `time,...`, then numbers)\n"
	      "  -o FILE     the image; its extension chooses PNG or SVG\n"
	      "  --vars      the columns to draw (default: every one but time)\n"
	      "  --title     the plot's title (default: the CSV's file name)\n"
	      "\n"
	      "  gnuplot draws it (Debian package gnuplot-nox), found in PATH.\n",
	      out);
}

static int plot_usage_error(const char *fmt, const char *a)
{
	fputs("sacc plot: ", stderr);
	fprintf(stderr, fmt, a);
	fputs("\n(sacc plot --help for the options)\n", stderr);
	return 2;
}

/* gnuplot's single-quoted string: a quote doubled; control characters (which would end
 * the line and the command) as spaces. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The gnuplot executable in PATH, malloc'd, or NULL. */
static char *find_gnuplot(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *cand = malloc(len + 16);
		if (!cand)
			return NULL;
		if (len == 0)
			strcpy(cand, "./gnuplot");
		else
			sprintf(cand, "%.*s/gnuplot", (int)len, path);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += len + (path[len] == ':');
	}
	return NULL;
}

static void write_script(FILE *g, const CsvTable *t, const int *cols, int ncols, bool png,
                         const char *out, const char *title)
{
	fputs(png ? "set terminal pngcairo size 960,600 noenhanced\n"
	          : "set terminal svg size 960,600 dynamic noenhanced\n", g);
	fputs("set output ", g);
	put_quoted(g, out);
	fputs("\nset title ", g);
	put_quoted(g, title);
	fputs("\nset xlabel 'time'\nset grid\nset key outside right top\n", g);
	fputs("$sacc_data << EOD\n", g);
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(g, "%.17g", csv_at(t, r, 0));
		for (int k = 0; k < ncols; k++)
			fprintf(g, " %.17g", csv_at(t, r, cols[k]));
		fputc('\n', g);
	}
	fputs("EOD\nplot ", g);
	for (int k = 0; k < ncols; k++) {
		fprintf(g, "%s$sacc_data using 1:%d with lines linewidth 1.5 title ", k ? ", " : "",
		        k + 2);
		put_quoted(g, t->names[cols[k]]);
	}
	fputs("\nset output\n", g);
}

/* Runs gnuplot with the script on its standard input.  Returns 0, or 1 after saying why. */
static int run_gnuplot(const char *exe, const CsvTable *t, const int *cols, int ncols,
                       bool png, const char *out, const char *title)
{
	int fds[2];
	if (pipe(fds) != 0) {
		fprintf(stderr, "sacc plot: cannot make a pipe: %s\n", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sacc plot: cannot start gnuplot: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(exe, "gnuplot", (char *)NULL);
		fprintf(stderr, "sacc plot: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	/* gnuplot may die before reading everything: a write error then, not SIGPIPE */
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	FILE *g = fdopen(fds[1], "w");
	bool wrote = false;
	if (g) {
		write_script(g, t, cols, ncols, png, out, title);
		wrote = !ferror(g);
		wrote &= fclose(g) == 0;
	} else {
		close(fds[1]);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &old, NULL);
	struct stat sb;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !wrote || stat(out, &sb) != 0 ||
	    sb.st_size == 0) {
		if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			fprintf(stderr, "sacc plot: gnuplot (%s) failed with exit status %d; %s not "
			        "written\n", exe, WEXITSTATUS(st), out);
		else if (WIFSIGNALED(st))
			fprintf(stderr, "sacc plot: gnuplot (%s) was killed by signal %d; %s not "
			        "written\n", exe, WTERMSIG(st), out);
		else
			fprintf(stderr, "sacc plot: gnuplot (%s) wrote nothing to %s\n", exe, out);
		unlink(out);
		return 1;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcmp(s + n - m, suffix) == 0;
}

int plot_main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *vars = NULL, *title = NULL;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
			plot_usage(stdout);
			return 0;
		}
		if (strcmp(s, "-o") == 0 || strcmp(s, "--vars") == 0 || strcmp(s, "--title") == 0) {
			if (i + 1 >= argc)
				return plot_usage_error("%s needs a value", s);
			const char *v = argv[++i];
			*(s[1] == 'o' ? &out : s[2] == 'v' ? &vars : &title) = v;
		} else if (s[0] == '-' && s[1]) {
			return plot_usage_error("unknown option '%s'", s);
		} else if (in) {
			return plot_usage_error("one RESULT.csv only (then '%s')", s);
		} else {
			in = s;
		}
	}
	if (!in)
		return plot_usage_error("no RESULT.csv%s", "");
	if (!out)
		return plot_usage_error("no -o FILE.png or FILE.svg%s", "");
	bool png = ends_with(out, ".png");
	if (!png && !ends_with(out, ".svg"))
		return plot_usage_error("-o %s: the extension must be .png or .svg", out);

	int rc = 1;
	char err[1024];
	int *cols = NULL;
	char *exe = NULL;
	CsvTable *t = csv_read(in, err, sizeof err);
	if (!t) {
		fprintf(stderr, "sacc plot: %s\n", err);
		goto done;
	}
	cols = calloc((size_t)t->ncols + 1, sizeof *cols);
	if (!cols) {
		fputs("sacc plot: out of memory\n", stderr);
		goto done;
	}
	int ncols = 0;
	if (!vars) {
		for (int c = 1; c < t->ncols; c++)
			cols[ncols++] = c;
	} else {
		for (const char *p = vars; *p;) {
			size_t len = strcspn(p, ",");
			int found = -1;
			for (int c = 1; c < t->ncols; c++)
				if (strlen(t->names[c]) == len && strncmp(t->names[c], p, len) == 0)
					found = c;
			if (found < 0) {
				fprintf(stderr, "sacc plot: --vars: %s has no column '%.*s'; its variables "
				        "are:", in, (int)len, p);
				for (int c = 1; c < t->ncols; c++)
					fprintf(stderr, " %s", t->names[c]);
				fputc('\n', stderr);
				rc = 2;
				goto done;
			}
			if (ncols < t->ncols)
				cols[ncols++] = found;
			p += len + (p[len] == ',');
		}
	}
	if (ncols == 0) {
		fprintf(stderr, "sacc plot: %s: no variable to draw (only a time column)\n", in);
		goto done;
	}
	if (t->nrows == 0) {
		fprintf(stderr, "sacc plot: %s: no data rows (a run that stopped at once?)\n", in);
		goto done;
	}
	exe = find_gnuplot();
	if (!exe) {
		fputs("sacc plot: gnuplot not found in PATH: install the Debian package gnuplot-nox "
		      "(apt-get install gnuplot-nox; sh tests/deps.sh does it as root)\n", stderr);
		goto done;
	}
	const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	rc = run_gnuplot(exe, t, cols, ncols, png, out, title ? title : base);
done:
	free(exe);
	free(cols);
	csv_free(t);
	return rc;
}
