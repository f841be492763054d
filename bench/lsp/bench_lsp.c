/* bench_lsp.c — `make bench-lsp`: how long an editor waits for diagnostics.  Starts
 * `sacc lsp` over pipes as an editor does, opens each power-window script, then sends
 * didChange edits (a blank put at the end of the last line and taken away again, so the
 * text stays valid) and times each from the moment its last byte is written to the moment
 * its publishDiagnostics has been read.  Prints the median and the slowest per script,
 * then `lsp_diagnostics_ms_median N` over all of them.
 *
 *   bench_lsp SACC FMU_DIR INCLUDE_DIR SCRIPT.sa...
 *
 * The quick mode (BENCH_QUICK=1) sends 5 edits per script instead of 200. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static FILE *to_server, *from_server;

static void die(const char *why)
{
	fprintf(stderr, "bench-lsp: %s\n", why);
	exit(1);
}

static void send_json(const char *body)
{
	fprintf(to_server, "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
	fflush(to_server);
}

/* Reads messages until one contains needle; returns it (malloc'd). */
static char *read_until(const char *needle)
{
	for (;;) {
		char line[256];
		size_t len = 0;
		while (fgets(line, sizeof line, from_server) && strcmp(line, "\r\n") != 0)
			if (strncmp(line, "Content-Length:", 15) == 0)
				len = strtoul(line + 15, NULL, 10);
		if (feof(from_server) || len == 0)
			die("the server ended or sent a message without a length");
		char *body = malloc(len + 1);
		if (!body || fread(body, 1, len, from_server) != len)
			die("a message was cut short");
		body[len] = '\0';
		if (strstr(body, needle))
			return body;
		free(body);
	}
}

/* s as a JSON string into out (the script's text, for didOpen). */
static char *json_quote(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(6 * n + 3), *o = out;
	if (!out)
		die("out of memory");
	*o++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (c == '\t') {
			*o++ = '\\';
			*o++ = 't';
		} else if (c < 0x20) {
			o += sprintf(o, "\\u%04x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot read a script");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *t = malloc((size_t)n + 1);
	if (!t || fread(t, 1, (size_t)n, f) != (size_t)n)
		die("cannot read a script");
	t[n] = '\0';
	fclose(f);
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 5)
		die("usage: bench_lsp SACC FMU_DIR INCLUDE_DIR SCRIPT.sa...");
	int edits = bench_quick() ? 5 : 200;
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		die("no pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("cannot fork");
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(argv[1], argv[1], "lsp", "-L", argv[2], "-I", argv[3], (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	signal(SIGPIPE, SIG_IGN);
	to_server = fdopen(in[1], "w");
	from_server = fdopen(out[0], "r");
	send_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
	free(read_until("\"capabilities\""));
	send_json("{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");

	int nscripts = argc - 4;
	double *all = malloc((size_t)(nscripts * edits) * sizeof *all);
	int nall = 0;
	char cwd[4096];
	if (!all || !getcwd(cwd, sizeof cwd))
		die("out of memory");
	printf("%-28s %8s %10s %10s %8s\n", "script", "edits", "median_ms", "max_ms", "errors");
	for (int s = 0; s < nscripts; s++) {
		const char *path = argv[4 + s];
		char *text = slurp(path), *q = json_quote(text);
		size_t nq = strlen(q) + 8192;
		char *msg = malloc(nq), uri[4200];
		snprintf(uri, sizeof uri, "file://%s%s%s", path[0] == '/' ? "" : cwd,
			 path[0] == '/' ? "" : "/", path);
		int lines = 0, last = 0;
		for (const char *p = text; *p; p++)
			if (*p == '\n') {
				lines++;
				last = 0;
			} else {
				last++;
			}
		snprintf(msg, nq, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":"
			 "{\"textDocument\":{\"uri\":\"%s\",\"languageId\":\"sa\",\"version\":1,"
			 "\"text\":%s}}}", uri, q);
		send_json(msg);
		char *d = read_until("publishDiagnostics");
		int errors = strstr(d, "\"severity\":1") != NULL;
		free(d);
		double *t = all + nall;
		for (int e = 0; e < edits; e++) {
			/* At the end of the text: a blank after the last newline, then away again. */
			int add = e % 2 == 0;
			snprintf(msg, nq, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\","
				 "\"params\":{\"textDocument\":{\"uri\":\"%s\",\"version\":%d},"
				 "\"contentChanges\":[{\"range\":{\"start\":{\"line\":%d,\"character\":%d},"
				 "\"end\":{\"line\":%d,\"character\":%d}},\"text\":\"%s\"}]}}", uri, e + 2,
				 lines, last, lines, last + (add ? 0 : 1), add ? " " : "");
			double t0 = now_ms();
			send_json(msg);
			d = read_until("publishDiagnostics");
			t[e] = now_ms() - t0;
			errors += strstr(d, "\"severity\":1") != NULL;
			free(d);
		}
		qsort(t, (size_t)edits, sizeof *t, cmp_double);
		const char *base = strrchr(path, '/');
		printf("%-28s %8d %10.2f %10.2f %8d\n", base ? base + 1 : path, edits, t[edits / 2],
		       t[edits - 1], errors);
		if (errors)
			die("a script has errors: its figures would not be those of a clean check");
		nall += edits;
		free(msg);
		free(q);
		free(text);
	}
	qsort(all, (size_t)nall, sizeof *all, cmp_double);
	send_json("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
	free(read_until("\"id\":2"));
	send_json("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
	fclose(to_server);
	int status;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the server did not exit with status 0 after shutdown and exit");
	printf("lsp_diagnostics_ms_median %.2f\n", all[nall / 2]);
	printf("lsp_diagnostics_ms_max %.2f\n", all[nall - 1]);
	free(all);
	fclose(from_server);
	return 0;
}
