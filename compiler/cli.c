/* cli.c — the command line's parser, help and messages, all read from the tables (cli.h).
 *
 * cli_main finds the command and runs it; the command's handler calls cli_parse with its
 * argument struct.  The table and the prefix of the running command are the static state:
 * every message of a command starts "sacc CMD: ", and the setters that report a bad value
 * have no other way to know which command they serve. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "util.h"
#include "version.h"

static const CliCommand *cli_table; /* what cli_main was given */
static char cli_prefix[64] = "sacc"; /* "sacc CMD" while CMD runs */

const char *cli_prog(void)
{
	return cli_prefix;
}

static void set_running(const CliCommand *cmd)
{
	if (cmd)
		snprintf(cli_prefix, sizeof cli_prefix, "sacc %s", cmd->name);
	else
		snprintf(cli_prefix, sizeof cli_prefix, "sacc");
}

static void report(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cli_prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	return 2;
}

/* ---- did you mean ------------------------------------------------------------------------ */

/* Whether a and b differ by one swap of neighbours ("--stpo", "--stop"): one typo, where
 * the edit distance counts two. */
static bool one_swap(const char *a, const char *b)
{
	size_t n = strlen(a), i = 0;
	if (n != strlen(b))
		return false;
	while (i < n && a[i] == b[i])
		i++;
	return i + 1 < n && a[i] == b[i + 1] && a[i + 1] == b[i] &&
	       strcmp(a + i + 2, b + i + 2) == 0;
}

const char *cli_suggest(const char *word, const char *const *names, int n)
{
	const char *best = NULL;
	size_t len = strlen(word);
	int limit = len <= 3 ? 1 : len <= 6 ? 2 : 3, best_d = limit + 1;
	for (int i = 0; i < n; i++) {
		int d = one_swap(word, names[i]) ? 1 : edit_distance(word, names[i], limit);
		/* a name it begins ("--sweep-c" for "--sweep-csv") comes before any typo */
		if (len >= 4 && strncmp(names[i], word, len) == 0)
			d = 0;
		if (d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

/* ---- the options ------------------------------------------------------------------------- */

/* Whether s is a finite number and nothing else (strtod's syntax, no overflow or
 * underflow); its value in *v.  (csv.c's csv_number, kept here so that the command line
 * needs nothing of the simulate side.) */
static bool finite_number(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && errno == 0 && isfinite(*v);
}

enum { CLI_MAX_OPTIONS = 128 };

static bool takes(const CliCommand *cmd, const CliOption *o)
{
	return (o->commands & cmd->id) != 0;
}

static const CliOption *find_option(const CliCommand *cmd, const char *name)
{
	for (const CliOption *o = cmd->options; o && o->name; o++)
		if (takes(cmd, o) && strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* The commands other than cmd that take an option of this name, for the error. */
static void other_takers(const CliCommand *cmd, const char *name, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (const CliCommand *k = cli_table; k && k->name; k++) {
		if (k == cmd)
			continue;
		for (const CliOption *o = k->options; o && o->name; o++)
			if (takes(k, o) && strcmp(o->name, name) == 0) {
				int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", k->name);
				if (w > 0 && (size_t)w < size - len)
					len += (size_t)w;
				break;
			}
	}
}

static int unknown_option(const CliCommand *cmd, const char *name)
{
	const char *names[256];
	int n = 0;
	for (const CliOption *o = cmd->options; o && o->name && n < 256; o++)
		if (takes(cmd, o))
			names[n++] = o->name;
	names[n < 256 ? n++ : 255] = "--help";
	char others[256];
	other_takers(cmd, name, others, sizeof others);
	if (others[0])
		return cli_usage_error("unknown option '%s' (an option of %s)", name, others);
	const char *near = cli_suggest(name, names, n);
	if (near)
		return cli_usage_error("unknown option '%s'; did you mean '%s'?", name, near);
	return cli_usage_error("unknown option '%s'", name);
}

/* Whether argument s names an option of cmd (with its value glued to it: --opt=V, -oV);
 * sets *opt and *val (NULL when not glued). */
static bool match_option(const CliCommand *cmd, const char *s, char *name, size_t size,
                         const CliOption **opt, const char **val)
{
	*val = NULL;
	*opt = NULL;
	const char *eq = strncmp(s, "--", 2) == 0 ? strchr(s, '=') : NULL;
	if (eq && (size_t)(eq - s) < size) {
		memcpy(name, s, (size_t)(eq - s));
		name[eq - s] = '\0';
		*val = eq + 1;
	} else if (s[1] != '-' && s[2]) {
		/* -Idir: a one-letter option that takes a value, with the value glued */
		char one[3] = {s[0], s[1], '\0'};
		const CliOption *o = find_option(cmd, one);
		if (o && o->arg == CLI_VALUE) {
			*opt = o;
			*val = s + 2;
			return true;
		}
		snprintf(name, size, "%s", s);
	} else {
		snprintf(name, size, "%s", s);
	}
	*opt = find_option(cmd, name);
	return *opt != NULL;
}

void cli_hint(void)
{
	fprintf(stderr, "(%s --help for the options)\n", cli_prefix);
}

static int parse_options(const CliCommand *cmd, struct Compilation *c, void *args, int argc,
                         char **argv, const char **operands, int *noperands)
{
	*noperands = 0;
	bool options_end = false;
	bool given[CLI_MAX_OPTIONS] = {false}; /* by row: for CLI_REQUIRED */
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (options_end || s[0] != '-' || !s[1]) {
			operands[(*noperands)++] = s;
			continue;
		}
		if (strcmp(s, "--") == 0) {
			options_end = true;
			continue;
		}
		if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
			cli_help(stdout, cmd);
			return -1;
		}
		char name[64];
		const CliOption *opt;
		const char *val;
		if (!match_option(cmd, s, name, sizeof name, &opt, &val))
			return unknown_option(cmd, name);
		double x;
		switch (opt->arg) {
		case CLI_FLAG:
			if (val)
				return cli_usage_error("option '%s' takes no argument", opt->name);
			break;
		case CLI_VALUE:
			if (!val) {
				if (i + 1 >= argc)
					return cli_usage_error("option '%s' needs an argument (%s)", opt->name,
					                       opt->value);
				val = argv[++i];
			}
			break;
		case CLI_OPT_NUMBER:
			if (!val && i + 1 < argc && finite_number(argv[i + 1], &x))
				val = argv[++i];
			break;
		}
		int rc = opt->set(c, args, opt->name, val, opt->field);
		if (rc)
			return rc;
		if (opt - cmd->options < CLI_MAX_OPTIONS)
			given[opt - cmd->options] = true;
	}
	for (const CliOption *o = cmd->options; o && o->name; o++)
		if (takes(cmd, o) && (o->flags & CLI_REQUIRED) &&
		    !(o - cmd->options < CLI_MAX_OPTIONS && given[o - cmd->options]))
			return cli_usage_error("expected %s %s", o->name, o->value);
	return 0;
}

int cli_parse(const CliCommand *cmd, struct Compilation *c, void *args, int argc,
              char **argv, const char **operands, int *noperands)
{
	int rc = parse_options(cmd, c, args, argc, argv, operands, noperands);
	if (rc == 2)
		cli_hint();
	return rc;
}

/* ---- the shared setters ------------------------------------------------------------------ */

#define FIELD(T) (*(T *)((char *)args + field))

int cli_set_include(struct Compilation *c, void *args, const char *o, const char *v,
                    size_t field)
{
	(void)args, (void)o, (void)field;
	drv_add_include_dir(c, v);
	return 0;
}

int cli_set_fmu_dir(struct Compilation *c, void *args, const char *o, const char *v,
                    size_t field)
{
	(void)args, (void)o, (void)field;
	drv_add_fmu_dir(c, v);
	return 0;
}

int cli_set_string(struct Compilation *c, void *args, const char *o, const char *v,
                   size_t field)
{
	(void)c, (void)o;
	FIELD(const char *) = v;
	return 0;
}

int cli_set_flag(struct Compilation *c, void *args, const char *o, const char *v,
                 size_t field)
{
	(void)c, (void)o, (void)v;
	FIELD(bool) = true;
	return 0;
}

int cli_add_string(struct Compilation *c, void *args, const char *o, const char *v,
                   size_t field)
{
	(void)c, (void)o;
	CliList *l = &FIELD(CliList);
	const char **items = realloc(l->items, (size_t)(l->n + 1) * sizeof *items);
	if (!items) {
		cli_error("out of memory");
		return 1;
	}
	items[l->n++] = v;
	l->items = items;
	return 0;
}

int cli_set_finite(struct Compilation *c, void *args, const char *o, const char *v,
                   size_t field)
{
	(void)c;
	if (!finite_number(v, &FIELD(double)))
		return cli_usage_error("%s: '%s' is not a finite number", o, v);
	return 0;
}

int cli_set_positive(struct Compilation *c, void *args, const char *o, const char *v,
                     size_t field)
{
	(void)c;
	double x;
	if (!finite_number(v, &x) || !(x > 0))
		return cli_usage_error("%s: '%s' is not a positive number", o, v);
	FIELD(double) = x;
	return 0;
}

int cli_count(const char *o, const char *v, long lo, long hi, bool name_hi, int *out)
{
	char *end;
	errno = 0;
	long k = strtol(v, &end, 10);
	if (!*v || *end || errno || k < lo || k > hi) {
		if (name_hi)
			return cli_usage_error("%s: '%s' is not a count from %ld to %ld", o, v, lo, hi);
		return cli_usage_error("%s: '%s' is not a count from %ld", o, v, lo);
	}
	*out = (int)k;
	return 0;
}

int cli_set_count0(struct Compilation *c, void *args, const char *o, const char *v,
                   size_t field)
{
	(void)c;
	return cli_count(o, v, 0, 1000000, false, &FIELD(int));
}

/* ---- help -------------------------------------------------------------------------------- */

enum { HELP_WIDTH = 80, HELP_COLUMN = 24 };

/* text from column col (the cursor is there), wrapped at HELP_WIDTH with later lines
 * indented to indent; "\n" starts a new line ("\n\n" a paragraph). */
static void put_wrapped(FILE *out, const char *text, int col, int indent)
{
	const char *p = text;
	bool line_start = false; /* at the start of a line, not yet indented */
	while (*p) {
		if (p[0] == '\n') {
			fputc('\n', out);
			line_start = true;
			p++;
			continue;
		}
		size_t word = strcspn(p, " \n");
		if (!line_start && col > indent && col + 1 + (int)word > HELP_WIDTH) {
			fputc('\n', out);
			line_start = true;
		}
		if (line_start) {
			col = fprintf(out, "%*s", indent, "");
			line_start = false;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, word, out);
		col += (int)word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* An enumerated option's values under its help: "    NAME  summary", or, when they have no
 * summaries, their names in a paragraph. */
static void put_choices(FILE *out, const CliOption *o)
{
	const char *name, *summary = NULL;
	int width = 0;
	if (o->choice && o->choice(0, &summary) && !summary) {
		int col = fprintf(out, "%*s", HELP_COLUMN + 2, "");
		for (int i = 0; (name = o->choice(i, &summary)); i++) {
			if (i > 0 && col + 1 + (int)strlen(name) > HELP_WIDTH)
				col = fprintf(out, "\n%*s", HELP_COLUMN + 2, "") - 1;
			else if (i > 0)
				col += fprintf(out, " ");
			col += fprintf(out, "%s", name);
		}
		fputc('\n', out);
		return;
	}
	for (int i = 0; o->choice && (name = o->choice(i, &summary)); i++)
		if ((int)strlen(name) > width)
			width = (int)strlen(name);
	for (int i = 0; o->choice && (summary = NULL, name = o->choice(i, &summary)); i++) {
		int col = fprintf(out, "%*s%-*s", HELP_COLUMN + 2, "", width, name);
		if (summary) {
			fputs("  ", out);
			put_wrapped(out, summary, col + 2, col + 2);
		} else {
			fputc('\n', out);
		}
	}
}

/* The option's synopsis: "[-I DIR]...", "-o DIR", "[--realtime [SCALE]]". */
static int option_synopsis(char *buf, size_t size, const CliOption *o)
{
	bool req = o->flags & CLI_REQUIRED;
	const char *fmt = o->arg == CLI_FLAG ? "%s%s%s%s%s"
	                  : o->arg == CLI_VALUE ? "%s%s %s%s%s" : "%s%s [%s]%s%s";
	return snprintf(buf, size, fmt, req ? "" : "[", o->name, o->arg == CLI_FLAG ? "" : o->value,
	                req ? "" : "]", o->flags & CLI_REPEAT ? "..." : "");
}

/* "sacc NAME [OPTIONS] OPERANDS": every option when they are few, else [OPTION]... and the
 * required ones. */
static void put_synopsis(FILE *out, const CliCommand *cmd, int indent)
{
	int n = 0, col = fprintf(out, "sacc %s", cmd->name) + indent;
	for (const CliOption *o = cmd->options; o && o->name; o++)
		n += takes(cmd, o);
	if (n > 6)
		col += fprintf(out, " [OPTION]...");
	for (const CliOption *o = cmd->options; o && o->name; o++) {
		if (!takes(cmd, o) || (n > 6 && !(o->flags & CLI_REQUIRED)))
			continue;
		char syn[128];
		int w = option_synopsis(syn, sizeof syn, o);
		if (col + 1 + w > HELP_WIDTH) {
			col = fprintf(out, "\n%*s", indent + 5 + (int)strlen(cmd->name), "") - 1;
		}
		col += fprintf(out, " %s", syn);
	}
	if (cmd->operands)
		fprintf(out, " %s", cmd->operands);
	fputc('\n', out);
}

void cli_help(FILE *out, const CliCommand *cmd)
{
	fputs("usage: ", out);
	put_synopsis(out, cmd, 7);
	fputc('\n', out);
	put_wrapped(out, cmd->summary, 0, 0);
	bool any = false;
	for (const CliOption *o = cmd->options; o && o->name; o++) {
		if (!takes(cmd, o))
			continue;
		if (!any)
			fputc('\n', out);
		any = true;
		char label[96];
		int w = snprintf(label, sizeof label, "  %s%s%s%s", o->name,
		                 o->arg == CLI_FLAG ? "" : o->arg == CLI_VALUE ? " " : " [",
		                 o->arg == CLI_FLAG ? "" : o->value,
		                 o->arg == CLI_OPT_NUMBER ? "]" : "");
		fputs(label, out);
		if (w < HELP_COLUMN - 1) {
			fprintf(out, "%*s", HELP_COLUMN - w, "");
			w = HELP_COLUMN;
		} else {
			fputc(' ', out);
			w++;
		}
		put_wrapped(out, o->help, w, HELP_COLUMN);
		put_choices(out, o);
	}
	if (cmd->details) {
		fputc('\n', out);
		put_wrapped(out, cmd->details, 0, 0);
	}
}

/* `sacc --help`: every command's synopsis and summary. */
static void general_help(FILE *out)
{
	fputs("usage: ", out);
	for (const CliCommand *k = cli_table; k->name; k++) {
		if (k != cli_table)
			fputs("       ", out);
		put_synopsis(out, k, 7);
	}
	fputs("       sacc --version (or -V)\n\n", out);
	for (const CliCommand *k = cli_table; k->name; k++) {
		fprintf(out, "  %-11s", k->name);
		put_wrapped(out, k->summary, 13, 13);
	}
	fputs("\nsacc help COMMAND (or sacc COMMAND --help) describes a command and its options.\n",
	      out);
}

static const CliCommand *find_command(const char *name)
{
	for (const CliCommand *k = cli_table; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *names[64];
	int n = 0;
	for (const CliCommand *k = cli_table; k->name && n < 64; k++)
		names[n++] = k->name;
	const char *near = cli_suggest(name, names, n);
	if (near)
		cli_error("unknown command '%s'; did you mean '%s'?", name, near);
	else
		cli_error("unknown command '%s'", name);
	fputs("(sacc --help lists the commands)\n", stderr);
	return 2;
}

/* ---- the command line -------------------------------------------------------------------- */

int cli_main(const CliCommand *commands, int argc, char **argv)
{
	cli_table = commands;
	set_running(NULL);
	if (argc < 2) {
		general_help(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		general_help(stdout);
		return 0;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		puts("sacc " SACC_VERSION);
		return 0;
	}
	const CliCommand *cmd = find_command(name);
	if (!cmd && name[0] == '-') {
		static const char *const own[] = {"--help", "--version"};
		const char *near = cli_suggest(name, own, 2);
		if (near)
			cli_error("unknown option '%s'; did you mean '%s'?", name, near);
		else
			cli_error("unknown option '%s'", name);
		fputs("(sacc --help lists the commands)\n", stderr);
		return 2;
	}
	if (!cmd)
		return unknown_command(name);
	set_running(cmd);
	return cmd->run(cmd, argc - 2, argv + 2);
}

/* `sacc help [COMMAND]`. */
int cli_run_help(const CliCommand *cmd, int argc, char **argv)
{
	const char *operands[2];
	int n = 0;
	if (argc > 1)
		return cli_usage_error("one COMMAND at most");
	int rc = cli_parse(cmd, NULL, NULL, argc, argv, operands, &n);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (n == 0) {
		general_help(stdout);
		return 0;
	}
	const CliCommand *k = find_command(operands[0]);
	if (!k)
		return unknown_command(operands[0]);
	if (!k->options && k != cmd) {
		char help[] = "--help", *args[] = {help, NULL};
		set_running(k);
		return k->run(k, 1, args);
	}
	cli_help(stdout, k);
	return 0;
}

/* ---- bash completion --------------------------------------------------------------------- */

/* The names of cmd's options, space-separated, on out; with want set, only those taking
 * a value whose flags hold want (or, want 0, every option taking a value). */
static void put_option_names(FILE *out, const CliCommand *cmd, int values, unsigned want)
{
	const char *sep = "";
	for (const CliOption *o = cmd->options; o && o->name; o++) {
		if (!takes(cmd, o) || (values && (o->arg != CLI_VALUE || (o->flags & want) != want)))
			continue;
		if (values == 2 && strcmp(o->value, "DIR") != 0)
			continue;
		fprintf(out, "%s%s", sep, o->name);
		sep = " ";
	}
	if (!values)
		fprintf(out, "%s--help", sep);
}

/* The values of enumerated options: a case on the command and the option before. */
static void put_choice_cases(FILE *out)
{
	fputs("\tcase ${COMP_WORDS[1]}:$prev in\n", out);
	for (const CliCommand *k = cli_table; k->name; k++)
		for (const CliOption *o = k->options; o && o->name; o++) {
			if (!takes(k, o) || !o->choice)
				continue;
			const char *name, *summary;
			fprintf(out, "\t%s:%s)\n\t\tCOMPREPLY=($(compgen -W \"", k->name, o->name);
			for (int i = 0; (name = o->choice(i, &summary)); i++)
				fprintf(out, "%s%s", i ? " " : "", name);
			fputs("\" -- \"$cur\"))\n\t\treturn;;\n", out);
		}
	fputs("\tesac\n", out);
}

/* The bash completion script: the commands, then per command its options, which of them
 * take a value, and which values are files or directories. */
static void put_bash_completion(FILE *out)
{
	fputs("# bash completion for sacc, written by `sacc completion bash` from sacc's command\n"
	      "# table: commands, their options, and files or directories where a value is one.\n"
	      "_sacc()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal commands=\"", out);
	for (const CliCommand *k = cli_table; k->name; k++)
		fprintf(out, "%s ", k->name);
	fputs("--help --version\"\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
	      "\t\treturn\n\tfi\n"
	      "\tlocal opts='' valued='' files='' dirs=''\n"
	      "\tcase ${COMP_WORDS[1]} in\n", out);
	for (const CliCommand *k = cli_table; k->name; k++) {
		if (k->id == CMD_HELP) {
			fprintf(out, "\t%s)\n\t\tCOMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
			        "\t\treturn;;\n", k->name);
			continue;
		}
		if (!k->options)
			continue;
		fprintf(out, "\t%s)\n\t\topts='", k->name);
		put_option_names(out, k, 0, 0);
		fputs("'\n\t\tvalued='", out);
		put_option_names(out, k, 1, 0);
		fputs("'\n\t\tfiles='", out);
		put_option_names(out, k, 1, CLI_FILE);
		fputs("'\n\t\tdirs='", out);
		put_option_names(out, k, 2, CLI_FILE);
		fputs("';;\n", out);
	}
	fputs("\tesac\n", out);
	put_choice_cases(out);
	fputs("\tcase \" $dirs \" in *\" $prev \"*)\n"
	      "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n\t\treturn;;\n\tesac\n"
	      "\tcase \" $files \" in *\" $prev \"*)\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\treturn;;\n\tesac\n"
	      "\tcase \" $valued \" in *\" $prev \"*)\n\t\treturn;;\n\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n}\n"
	      "complete -o filenames -F _sacc sacc\n", out);
}

/* `sacc completion bash`. */
int cli_run_completion(const CliCommand *cmd, int argc, char **argv)
{
	const char *operands[2];
	int n = 0;
	if (argc > 1)
		return cli_usage_error("one SHELL at most");
	int rc = cli_parse(cmd, NULL, NULL, argc, argv, operands, &n);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (n == 1 && strcmp(operands[0], "bash") != 0)
		return cli_usage_error("no completion for '%s' (only bash)", operands[0]);
	put_bash_completion(stdout);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
