/* fmt_cli.c — `sacc fmt FILE...`: scripts in the canonical layout (front/fmt.c does the
 * work), printed, checked (--check) or rewritten in place (-w).
 *
 * A script that does not parse is never touched: its errors are printed and the command
 * ends with status 2 after the other files are done (from standard input, it is copied to
 * standard output as it was). */
#include "fmt_cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fmt.h"
#include "util.h"

/* The largest script fmt reads, as the compiler's driver. */
#define FMT_MAX_SOURCE (16u << 20)

typedef struct FmtArgs {
	bool check;
	bool write;
} FmtArgs;

#define AT(f) offsetof(FmtArgs, f)
const CliOption fmt_options[] = {
	{"--check", CLI_FLAG, NULL, cli_set_flag, AT(check), CMD_FMT, 0,
	 "print nothing but the names of the files that are not in the canonical layout; exit "
	 "status 1 when there is one", NULL},
	{"-w", CLI_FLAG, NULL, cli_set_flag, AT(write), CMD_FMT, 0,
	 "rewrite each file that is not in the canonical layout in place (through a new file "
	 "renamed over it, with the same permissions)", NULL},
	{NULL, CLI_FLAG, NULL, NULL, 0, 0, 0, NULL, NULL},
};
#undef AT

/* Replaces path's contents by text: a temporary file beside it, given path's mode, then
 * renamed over it, so that a reader sees the old file or the new one, never a part. */
static int write_atomic(const char *path, const char *text, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp)
		return -1;
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	/* .NAME.XXXXXX in path's directory: the rename stays within one file system */
	memcpy(tmp, path, dir);
	snprintf(tmp + dir, n - dir + 16, ".%s.XXXXXX", path + dir);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	int rc = -1;
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		done += (size_t)w;
	}
	if (done == len && fchmod(fd, st.st_mode & 07777) == 0 && fsync(fd) == 0)
		rc = 0;
	if (close(fd) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
	}
	free(tmp);
	return rc;
}

/* One file (or "-", standard input): 0 when done and unchanged, 1 when it is not in the
 * canonical layout (--check) or was rewritten, 2 on an error. */
static int fmt_one(const FmtArgs *a, const char *path)
{
	bool in = strcmp(path, "-") == 0;
	const char *name = in ? "<stdin>" : path;
	size_t len;
	struct stat st;
	if (!in && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_error("cannot read '%s': a directory, not a file", path);
		return 2;
	}
	char *text = read_file(in ? "/dev/stdin" : path, FMT_MAX_SOURCE, &len);
	if (!text) {
		cli_error("cannot read '%s': %s", name, errno == EFBIG ? "file too large"
		                                                       : strerror(errno));
		return 2;
	}
	/* A sink per file: it quotes lines from text, which goes at the end. */
	DiagSink *d = diag_new(stderr);
	StrBuf out;
	sb_init(&out);
	int rc = 0;
	if (!d) {
		cli_error("out of memory");
		rc = 2;
		goto done;
	}
	diag_set_prog(d, cli_prog());
	diag_add_source(d, name, text, len);
	if (fmt_buffer(name, text, len, &out, d) != 0) {
		/* standard input to standard output is an editor's filter, which puts back what
		 * it gets: give it the script as it was */
		if (in && !a->check)
			fwrite(text, 1, len, stdout);
		rc = 2;
		goto done;
	}
	bool changed = out.len != len || memcmp(sb_str(&out), text, len) != 0;
	if (a->check) {
		if (changed)
			printf("%s\n", name);
		rc = changed ? 1 : 0;
	} else if (a->write) {
		if (changed && write_atomic(path, sb_str(&out), out.len) != 0) {
			cli_error("cannot rewrite '%s': %s", path, strerror(errno));
			rc = 2;
		}
	} else {
		fwrite(sb_str(&out), 1, out.len, stdout);
	}
done:
	sb_free(&out);
	diag_free(d);
	free(text);
	return rc;
}

int cmd_fmt(const CliCommand *cmd, int argc, char **argv)
{
	FmtArgs a = {0};
	const char **files = calloc((size_t)argc + 1, sizeof *files);
	int nfiles = 0;
	if (!files) {
		cli_error("out of memory");
		return 2;
	}
	int rc = cli_parse(cmd, NULL, &a, argc, argv, files, &nfiles);
	if (rc < 0) {
		rc = 0; /* --help */
		goto done;
	}
	if (rc)
		goto done;
	if (nfiles == 0) {
		rc = cli_usage_error("no input files (- reads standard input)");
		goto done;
	}
	if (a.check && a.write) {
		rc = cli_usage_error("--check and -w do not go together: --check changes nothing");
		goto done;
	}
	for (int i = 0; i < nfiles; i++)
		if (a.write && strcmp(files[i], "-") == 0) {
			rc = cli_usage_error("-w cannot rewrite standard input");
			goto done;
		}
	for (int i = 0; i < nfiles; i++) {
		int r = fmt_one(&a, files[i]);
		if (r > rc)
			rc = r;
	}
done:
	free(files);
	return rc;
}
