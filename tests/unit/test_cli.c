/* test_cli.c — the command line (compiler/cli.c): the parser over a table of its own (values
 * in every spelling, refusals, required options, operands), did-you-mean, and, through the
 * SACC_BUILD binary as a user runs it, the help of every command, the messages of unknown
 * commands and options and of missing arguments, a directory given as an FMU, the bash
 * completion made from the table, and `make install` and `make uninstall` into a DESTDIR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "sacc_test.h"

#include "assert_contains.h"

/* ---- the parser, on a table of its own ------------------------------------------------ */

typedef struct TArgs {
	bool flag;
	const char *name;
	double x;
	CliList list;
} TArgs;

enum { T_ONE = CMD_CHECK, T_TWO = CMD_EXPLICIT };

#define AT(f) offsetof(TArgs, f)
static const CliOption t_options[] = {
	{"--flag", CLI_FLAG, NULL, cli_set_flag, AT(flag), T_ONE | T_TWO, 0, "a flag", NULL},
	{"-n", CLI_VALUE, "NAME", cli_set_string, AT(name), T_ONE, CLI_REQUIRED, "a name", NULL},
	{"--x", CLI_VALUE, "X", cli_set_finite, AT(x), T_ONE, 0, "a number", NULL},
	{"--add", CLI_VALUE, "V", cli_add_string, AT(list), T_ONE, CLI_REPEAT, "a list", NULL},
	{"--two-only", CLI_FLAG, NULL, cli_set_flag, AT(flag), T_TWO, 0, "the other's", NULL},
	{NULL, CLI_FLAG, NULL, NULL, 0, 0, 0, NULL, NULL},
};
#undef AT

static int t_run(const CliCommand *cmd, int argc, char **argv)
{
	(void)cmd, (void)argc, (void)argv;
	return 0;
}

static const CliCommand t_one = {"one", T_ONE, t_run, t_options, "FILE...", "the first", NULL};
static const CliCommand t_two = {"two", T_TWO, t_run, t_options, "FILE", "the second", NULL};

/* cli_parse on the words of line; the operands joined by '|' into ops. */
static int parse_line(const CliCommand *cmd, const char *line, TArgs *a, char *ops)
{
	static char buf[512];
	char *argv[32];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", line);
	for (char *w = strtok(buf, " "); w && argc < 32; w = strtok(NULL, " "))
		argv[argc++] = w;
	const char *operands[32];
	int n = 0;
	memset(a, 0, sizeof *a);
	int rc = cli_parse(cmd, NULL, a, argc, argv, operands, &n);
	ops[0] = '\0';
	for (int i = 0; i < n; i++)
		sprintf(ops + strlen(ops), "%s%s", i ? "|" : "", operands[i]);
	return rc;
}

static void parse__every_spelling__same_values(void **state)
{
	(void)state;
	const char *lines[] = {"-n a --x 2 --flag f.sa", "-na --x=2 f.sa --flag",
	                       "--flag -n a f.sa --x 2"};
	for (int i = 0; i < 3; i++) {
		TArgs a;
		char ops[256];
		assert_int_equal(parse_line(&t_one, lines[i], &a, ops), 0);
		assert_true(a.flag);
		assert_string_equal(a.name, "a");
		assert_close(a.x, 2, 0);
		assert_string_equal(ops, "f.sa");
	}
}

static void parse__repeat_and_double_dash__kept_in_order(void **state)
{
	(void)state;
	TArgs a;
	char ops[256];
	assert_int_equal(parse_line(&t_one, "-n a --add 1 x --add=2 -- --add -y", &a, ops), 0);
	assert_int_equal(a.list.n, 2);
	assert_string_equal(a.list.items[0], "1");
	assert_string_equal(a.list.items[1], "2");
	assert_string_equal(ops, "x|--add|-y");
	free(a.list.items);
}

static void parse__refusals__exit_2(void **state)
{
	(void)state;
	TArgs a;
	char ops[256];
	const char *bad[] = {
		"-n a --bogus",       /* unknown */
		"-n a --two-only",    /* another command's */
		"--x",                /* no argument */
		"-n a --flag=1",      /* a flag with a value */
		"-n a --x nine",      /* not a number */
		"f.sa",               /* -n is required */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse_line(&t_one, bad[i], &a, ops), 2);
	assert_int_equal(parse_line(&t_two, "--two-only --flag f.sa", &a, ops), 0);
	assert_int_equal(parse_line(&t_two, "-n a f.sa", &a, ops), 2);
}

static void suggest__typos_and_prefixes(void **state)
{
	(void)state;
	const char *names[] = {"--sweep", "--sweep-csv", "--step", "--stop", "--syntax"};
	assert_string_equal(cli_suggest("--stpo", names, 5), "--stop");
	assert_string_equal(cli_suggest("--sintax", names, 5), "--syntax");
	assert_string_equal(cli_suggest("--sweep-c", names, 5), "--sweep-csv");
	assert_null(cli_suggest("--colour", names, 5));
	const char *cmds[] = {"check", "explicit", "simulate"};
	assert_string_equal(cli_suggest("chek", cmds, 3), "check");
	assert_string_equal(cli_suggest("simulte", cmds, 3), "simulate");
	assert_null(cli_suggest("run", cmds, 3));
}

/* ---- the binary ------------------------------------------------------------------------- */

static const char *const commands[] = {"check", "explicit", "emit", "build", "parse",
                                       "fmt", "inspect", "unpack", "simulate", "ensemble", "plot",
                                       "help", "completion"};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static char out_path[256], err_path[256];

static char *slurp_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	char *buf = calloc(1, 1 << 17);
	size_t n = fread(buf, 1, (1 << 17) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Runs `sacc ARGS`, stdout and stderr to files; returns the exit status. */
static int sacc(const char *args)
{
	char cmd[2048];
	snprintf(out_path, sizeof out_path, "%s/test_cli.out", test_build_dir());
	snprintf(err_path, sizeof err_path, "%s/test_cli.err", test_build_dir());
	snprintf(cmd, sizeof cmd, "'%s/sacc' %s >'%s' 2>'%s'", test_build_dir(), args, out_path,
	         err_path);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void help__every_command__both_spellings_agree(void **state)
{
	(void)state;
	for (int i = 0; i < NCOMMANDS; i++) {
		char args[128], usage[128];
		snprintf(args, sizeof args, "%s --help", commands[i]);
		assert_int_equal(sacc(args), 0);
		char *own = slurp_text(out_path);
		snprintf(usage, sizeof usage, "usage: sacc %s", commands[i]);
		assert_true(strncmp(own, usage, strlen(usage)) == 0);
		snprintf(args, sizeof args, "help %s", commands[i]);
		assert_int_equal(sacc(args), 0);
		char *via_help = slurp_text(out_path);
		assert_string_equal(own, via_help);
		free(own);
		free(via_help);
	}
	/* the options a command takes are in its help, and those it does not are not */
	assert_int_equal(sacc("check --help"), 0);
	char *check = slurp_text(out_path);
	assert_contains(check, "--syntax");
	assert_null(strstr(check, "--json"));
	free(check);
	assert_int_equal(sacc("simulate -h"), 0);
	char *sim = slurp_text(out_path);
	assert_contains(sim, "--loop-solver SOLVER");
	assert_contains(sim, "--realtime [SCALE]");
	assert_contains(sim, "  hermite    from the source's output derivatives");
	free(sim);
}

static void help__general__lists_every_command(void **state)
{
	(void)state;
	assert_int_equal(sacc("--help"), 0);
	char *out = slurp_text(out_path);
	for (int i = 0; i < NCOMMANDS; i++) {
		char line[64];
		snprintf(line, sizeof line, "\n  %-11s", commands[i]);
		assert_contains(out, line);
	}
	free(out);
	assert_int_equal(sacc(""), 2); /* no command: the same text, on stderr */
	assert_int_equal(sacc("-V"), 0);
	out = slurp_text(out_path);
	assert_true(strncmp(out, "sacc ", 5) == 0);
	assert_non_null(strchr(out, '\n'));
	assert_int_equal(strchr(out, '\n')[1], '\0'); /* the version line only */
	free(out);
}

static void errors__did_you_mean_and_missing_arguments(void **state)
{
	(void)state;
	struct {
		const char *args, *msg;
	} cases[] = {
		{"chek x.sa", "sacc: unknown command 'chek'; did you mean 'check'?"},
		{"simulte x.fmu", "did you mean 'simulate'?"},
		{"--verison", "sacc: unknown option '--verison'; did you mean '--version'?"},
		{"check --sintax x.sa", "sacc check: unknown option '--sintax'; did you mean "
		                        "'--syntax'?"},
		{"check --json x.sa", "sacc check: unknown option '--json' (an option of inspect)"},
		{"build x.sa --after Lower", "unknown option '--after' (an option of explicit)"},
		{"simulate x.fmu --stpo 1", "did you mean '--stop'?"},
		{"simulate x.fmu --sweep-c s.csv", "did you mean '--sweep-csv'?"},
		{"build x.sa -o", "sacc build: option '-o' needs an argument (DIR)"},
		{"simulate x.fmu --stop", "sacc simulate: option '--stop' needs an argument (T1)"},
		{"inspect --set a.b=1 x.fmu", "sacc inspect: --set belongs to --probe-state"},
		{"inspect --probe-state --stop 1 x.fmu", "unknown option '--stop' (an option of "
		                                         "simulate, ssp)"},
		{"simulate x.fmu --approx lineer", "sacc simulate: --approx: 'lineer' is not hold, "
		                                   "linear, quadratic or hermite; did you mean "
		                                   "'linear'?"},
		{"explicit --after Lowr x.sa", "sacc explicit: unknown rule 'Lowr'; did you mean "
		                               "'Lower'?"},
		{"help nope", "sacc help: unknown command 'nope'"},
		{"completion zsh", "sacc completion: no completion for 'zsh' (only bash)"},
		{"ensemble x.fmu -o d --grid a.k=1,2 --jbos 2", "sacc ensemble: unknown option "
		                                               "'--jbos'; did you mean '--jobs'?"},
		{"ensemble x.fmu -o d --grid a.k=1,2 -- -o r.csv", "sacc ensemble: '-o' after '--'"},
		{"ensemble x.fmu -o d", "sacc ensemble: expected a design"},
		{"ensemble status d --jobs 2", "sacc ensemble: '--jobs' is not an option of 'sacc "
		                               "ensemble status'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = sacc(cases[i].args);
		char *err = slurp_text(err_path);
		if (rc != 2)
			print_error("%s: exit %d\n%s", cases[i].args, rc, err);
		assert_int_equal(rc, 2);
		assert_contains(err, cases[i].msg);
		free(err);
	}
}

static void errors__directory_as_fmu__said_so(void **state)
{
	(void)state;
	char dir[256], args[600];
	snprintf(dir, sizeof dir, "%s/test_cli-dir.fmu", test_build_dir());
	mkdir(dir, 0755);
	const char *forms[] = {"inspect '%s'", "simulate '%s'", "unpack '%s' x"};
	for (int i = 0; i < 3; i++) {
		snprintf(args, sizeof args, forms[i], dir);
		assert_true(sacc(args) != 0);
		char *err = slurp_text(err_path);
		assert_contains(err, "is a directory");
		free(err);
	}
	rmdir(dir);
}

static void completion__bash__made_from_the_table(void **state)
{
	(void)state;
	assert_int_equal(sacc("completion bash"), 0);
	char *script = slurp_text(out_path);
	for (int i = 0; i < NCOMMANDS; i++)
		assert_contains(script, commands[i]);
	assert_contains(script, "--probe-state");
	assert_contains(script, "--loop-max-iterations");
	assert_contains(script, "complete -o filenames -F _sacc sacc");
	free(script);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "bash -n '%s'", out_path);
	assert_int_equal(system(cmd), 0);
	/* completing `sacc simulate --loop-s` offers --loop-solver */
	snprintf(cmd, sizeof cmd,
	         "bash -c 'source \"%s\"; COMP_WORDS=(sacc simulate --loop-s); COMP_CWORD=2; "
	         "_sacc; [ \"${COMPREPLY[*]}\" = --loop-solver ]'", out_path);
	assert_int_equal(system(cmd), 0);
	/* `sacc ensemble --method l` offers latin-hypercube */
	snprintf(cmd, sizeof cmd,
	         "bash -c 'source \"%s\"; COMP_WORDS=(sacc ensemble --method l); "
	         "COMP_CWORD=3; _sacc; [ \"${COMPREPLY[*]}\" = latin-hypercube ]'", out_path);
	assert_int_equal(system(cmd), 0);
	/* and `sacc simulate --loop-solver n` offers the value newton */
	snprintf(cmd, sizeof cmd,
	         "bash -c 'source \"%s\"; COMP_WORDS=(sacc simulate --loop-solver n); "
	         "COMP_CWORD=3; _sacc; [ \"${COMPREPLY[*]}\" = newton ]'", out_path);
	assert_int_equal(system(cmd), 0);
}

static void install__destdir__binary_and_completion_then_removed(void **state)
{
	(void)state;
	char dest[256], cmd[1024], path[512];
	snprintf(dest, sizeof dest, "/tmp/test_cli-install-XXXXXX");
	assert_non_null(mkdtemp(dest));
	/* the binary is built: make only copies (MAKEFLAGS dropped: no jobserver here) */
	snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory "
	         "install BUILD='%s' PREFIX=/opt/sacc DESTDIR='%s' >/dev/null", test_build_dir(),
	         dest);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/opt/sacc/bin/sacc", dest);
	assert_int_equal(access(path, X_OK), 0);
	snprintf(cmd, sizeof cmd, "'%s' --version >/dev/null", path);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/opt/sacc/share/bash-completion/completions/sacc", dest);
	assert_int_equal(access(path, R_OK), 0);
	struct stat st;
	snprintf(path, sizeof path, "%s/opt/sacc/share/man/man1/sacc.1", dest);
	assert_int_equal(stat(path, &st) == 0, stat("docs/sacc.1", &st) == 0);
	snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory "
	         "uninstall BUILD='%s' PREFIX=/opt/sacc DESTDIR='%s' && "
	         "test -z \"$(find '%s' -type f)\" && rm -rf '%s'", test_build_dir(), dest, dest,
	         dest);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__every_spelling__same_values),
		cmocka_unit_test(parse__repeat_and_double_dash__kept_in_order),
		cmocka_unit_test(parse__refusals__exit_2),
		cmocka_unit_test(suggest__typos_and_prefixes),
		cmocka_unit_test(help__every_command__both_spellings_agree),
		cmocka_unit_test(help__general__lists_every_command),
		cmocka_unit_test(errors__did_you_mean_and_missing_arguments),
		cmocka_unit_test(errors__directory_as_fmu__said_so),
		cmocka_unit_test(completion__bash__made_from_the_table),
		cmocka_unit_test(install__destdir__binary_and_completion_then_removed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
