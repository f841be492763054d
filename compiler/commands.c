/* commands.c — the compiler's commands: each parses its arguments with cli_parse into a
 * CmdArgs, runs the driver's stages over its files and returns the exit status (0, 1 when
 * the input has errors, 2 for a usage error). */
#include "commands.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"
#include "emit.h"
#include "explicit.h"
#include "lower.h"
#include "package.h"
#include "ssp.h"
#include "util.h"

typedef struct CmdArgs {
	bool syntax;
	const char *after;
	const char *out;      /* -o DIR */
	int fmi;              /* build/emit --fmi: the wrappers' FMI version, 2 or 3 */
	const char *isolate;  /* build/emit --isolate: all or INNER,... run out of process */
	int threads;          /* build/emit --threads: inners stepped at once (0: one thread) */
	bool no_sources;      /* build --no-sources: the binary only, no sources/ */
} CmdArgs;

/* --fmi's values, in the order help and completion list them. */
static const char *fmi_choice(int i, const char **summary)
{
	static const char *const names[] = {"2", "3"};
	static const char *const summaries[] = {"FMI 2.0 Co-Simulation (binaries/linux64)",
	                                        "FMI 3.0 Co-Simulation (binaries/x86_64-linux)"};
	if (i < 0 || i > 1)
		return NULL;
	*summary = summaries[i];
	return names[i];
}

static int set_fmi(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c, (void)field;
	if (strcmp(v, "2") != 0 && strcmp(v, "3") != 0)
		return cli_usage_error("%s: '%s' is neither 2 nor 3", o, v);
	((CmdArgs *)args)->fmi = v[0] - '0';
	return 0;
}

/* --threads N: from 1 to the runtime's bound (runtime/sart_batch.c, MAX_THREADS). */
static int set_threads(Compilation *c, void *args, const char *o, const char *v, size_t field)
{
	(void)c, (void)field;
	return cli_count(o, v, 1, 64, true, &((CmdArgs *)args)->threads);
}

/* --after's values: the lowering rules, the lowering stage, then the explicit-form rules,
 * in the order they run. */
static const char *after_choice(int i, const char **summary)
{
	*summary = NULL;
	int k = 0;
	for (; lw_rules[k].name; k++)
		if (k == i)
			return lw_rules[k].name;
	if (i == k)
		return LW_STAGE;
	i -= k + 1;
	for (k = 0; rw_rules[k].name; k++)
		if (k == i)
			return rw_rules[k].name;
	return NULL;
}

#define AT(f) offsetof(CmdArgs, f)
const CliOption cmd_options[] = {
	{"--syntax", CLI_FLAG, NULL, cli_set_flag, AT(syntax), CMD_CHECK, 0,
	 "check syntax only, without resolving imports or opening inner FMUs", NULL},
	{"--after", CLI_VALUE, "RULE", cli_set_string, AT(after), CMD_EXPLICIT, 0,
	 "stop the reduction after RULE: a lowering rule, Lower (after every lowering), or an "
	 "explicit-form rule:", after_choice},
	{"-o", CLI_VALUE, "DIR", cli_set_string, AT(out), CMD_EMIT, CLI_REQUIRED | CLI_FILE,
	 "the directory the sources are written under", NULL},
	{"-o", CLI_VALUE, "DIR", cli_set_string, AT(out), CMD_BUILD, CLI_FILE,
	 "put each FMU in DIR, under the file name of its 'at' (default: at its 'at' path "
	 "beside its script); for one SYSTEM.ssp, -o OUT.fmu names the composite FMU", NULL},
	{"--fmi", CLI_VALUE, "VERSION", set_fmi, AT(fmi), CMD_BUILD, 0,
	 "the FMI version of every wrapper built, inner adaptations built in the same run too; "
	 "it overrides the scripts' 'fmi N' clauses (default: each adaptation's clause, else "
	 "2):", fmi_choice},
	{"--fmi", CLI_VALUE, "VERSION", set_fmi, AT(fmi), CMD_EMIT, 0,
	 "the FMI version of the wrappers written, as for sacc build: it overrides the "
	 "scripts' 'fmi N' clauses, and inner adaptations are taken to be built with it "
	 "(default: each adaptation's clause, else 2):", fmi_choice},
	{"--isolate", CLI_VALUE, "all|INNER,...", cli_set_string, AT(isolate),
	 CMD_BUILD | CMD_EMIT, 0,
	 "run these inner FMU instances (all: every one) out of process, in a host program "
	 "shipped beside the wrapper's library: a crash or a hang inside one is an error of the "
	 "wrapper's call, not the importer's end", NULL},
	{"--threads", CLI_VALUE, "N", set_threads, AT(threads), CMD_BUILD | CMD_EMIT, 0,
	 "let each wrapper step independent inner FMUs at once on up to N threads: runs of "
	 "do_steps in the control rules that do not depend on each other, when their measured "
	 "cost says it pays; results, messages and statuses stay those of one thread", NULL},
	{"--no-sources", CLI_FLAG, NULL, cli_set_flag, AT(no_sources), CMD_BUILD, 0,
	 "leave the sources out of each FMU: no sources/, no build description, the binary "
	 "only (default: the FMU carries the complete sources of its library and how to build "
	 "them, so that an importer on another platform can compile it)", NULL},
	CLI_OPTION_INCLUDE(CMD_CHECK | CMD_EXPLICIT | CMD_EMIT | CMD_BUILD | CMD_PARSE),
	CLI_OPTION_FMU_DIR(CMD_CHECK | CMD_EXPLICIT | CMD_EMIT | CMD_BUILD),
	{NULL, CLI_FLAG, NULL, NULL, 0, 0, 0, NULL, NULL},
};
#undef AT

typedef int CmdBody(Compilation *c, const CmdArgs *a, const char **files, int nfiles);

/* Every compiler command: a compilation, the arguments parsed into it, the body run. */
static int run_command(const CliCommand *cmd, int argc, char **argv, CmdBody *body)
{
	CmdArgs a = {0};
	Compilation *c = drv_new(stderr);
	const char **files = calloc((size_t)argc + 1, sizeof *files);
	int nfiles = 0, rc = 1;
	if (!c || !files) {
		cli_error("out of memory");
		goto done;
	}
	diag_set_prog(c->diag, cli_prog());
	rc = cli_parse(cmd, c, &a, argc, argv, files, &nfiles);
	if (rc == 0)
		rc = body(c, &a, files, nfiles);
	else if (rc < 0)
		rc = 0; /* --help */
done:
	free(files);
	drv_free(c);
	return rc;
}

static int check_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles)
{
	if (nfiles == 0)
		return cli_usage_error("no input files");
	for (int i = 0; i < nfiles; i++) {
		Module *m = a->syntax ? drv_parse(c, files[i]) : drv_load(c, files[i]);
		if (m && m->root && !a->syntax)
			drv_check(c, m);
	}
	return diag_errors(c->diag) ? 1 : 0;
}

/* explicit, and parse (checked false): the module printed back, after the reduction. */
static int print_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles,
                      bool checked)
{
	if (nfiles != 1)
		return cli_usage_error("expected one input file");
	if (a->after && !rw_is_rule(a->after)) {
		const char *names[128], *summary;
		int n = 0;
		while (n < 128 && (names[n] = after_choice(n, &summary)))
			n++;
		const char *near = cli_suggest(a->after, names, n);
		if (near)
			return cli_usage_error("unknown rule '%s'; did you mean '%s'? (sacc explicit "
			                       "--help lists the rules)", a->after, near);
		return cli_usage_error("unknown rule '%s' (sacc explicit --help lists the rules)",
		                       a->after);
	}
	Module *m = drv_load(c, files[0]);
	if (!m || !m->root)
		return 1;
	if (checked && drv_explicit(c, m, a->after))
		return 1;
	if (diag_errors(c->diag))
		return 1;
	StrBuf sb;
	sb_init(&sb);
	ast_print_file(&sb, m->root);
	fputs(sb_str(&sb), stdout);
	sb_free(&sb);
	return 0;
}

static int explicit_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles)
{
	return print_body(c, a, files, nfiles, true);
}

static int parse_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles)
{
	return print_body(c, a, files, nfiles, false);
}

static int emit_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles)
{
	if (nfiles != 1)
		return cli_usage_error("expected one input file");
	Module *m = drv_load(c, files[0]);
	if (!m || !m->root || drv_explicit(c, m, NULL) || diag_errors(c->diag))
		return 1;
	PkgOptions o = {a->out, NULL, a->fmi, a->isolate, a->threads, false};
	return pkg_emit(c, m, &o) ? 1 : 0;
}

static int build_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles)
{
	if (nfiles == 0)
		return cli_usage_error("no input files");
	Module **mods = calloc((size_t)nfiles, sizeof *mods);
	if (!mods) {
		cli_error("out of memory");
		return 1;
	}
	for (int i = 0; i < nfiles; i++) {
		mods[i] = drv_load(c, files[i]);
		if (mods[i] && mods[i]->root)
			drv_explicit(c, mods[i], NULL);
	}
	/* SSP systems named as inners are adaptations this build makes too. */
	int n = nfiles;
	for (Module *m = c->modules; m; m = m->next)
		n++;
	Module **all = realloc(mods, (size_t)n * sizeof *all);
	if (!all) {
		free(mods);
		cli_error("out of memory");
		return 1;
	}
	mods = all;
	n = nfiles;
	for (Module *m = c->modules; m; m = m->next)
		if (m->ssp_path)
			mods[n++] = m;
	const char *out_dir = a->out;
	if (nfiles == 1 && ssp_is_path(files[0]) && a->out && str_ends_with(a->out, ".fmu") &&
	    mods[0] && mods[0]->root && mods[0]->root->list2) {
		/* sacc build SYSTEM.ssp -o OUT.fmu: the one composite FMU goes there. */
		const char *slash = strrchr(a->out, '/');
		mods[0]->root->list2->str = slash ? slash + 1 : a->out;
		out_dir = slash ? arena_strndup(c->arena, a->out, (size_t)(slash - a->out)) : ".";
	}
	int rc = 1;
	if (!diag_errors(c->diag)) {
		PkgOptions o = {out_dir, NULL, a->fmi, a->isolate, a->threads, a->no_sources};
		rc = pkg_build(c, mods, n, &o) ? 1 : 0;
	}
	free(mods);
	return rc;
}

/* The archive checks of `sacc build`'s inner FMUs (zip_extract), for users who want to
 * look inside an FMU, and for importers that need it extracted (the tests, bench/). */
static int unpack_body(Compilation *c, const CmdArgs *a, const char **files, int nfiles)
{
	(void)a;
	if (nfiles != 2)
		return cli_usage_error("expected an FMU archive and a directory");
	struct stat st;
	if (stat(files[0], &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_error("'%s' is a directory, not an FMU (an FMU is one zip archive, an .fmu "
		          "file)", files[0]);
		return 1;
	}
	return zip_extract(files[0], files[1], NULL, c->diag) ? 1 : 0;
}

int cmd_check(const CliCommand *cmd, int argc, char **argv)
{
	return run_command(cmd, argc, argv, check_body);
}

int cmd_explicit(const CliCommand *cmd, int argc, char **argv)
{
	return run_command(cmd, argc, argv, explicit_body);
}

int cmd_emit(const CliCommand *cmd, int argc, char **argv)
{
	return run_command(cmd, argc, argv, emit_body);
}

int cmd_build(const CliCommand *cmd, int argc, char **argv)
{
	return run_command(cmd, argc, argv, build_body);
}

int cmd_parse(const CliCommand *cmd, int argc, char **argv)
{
	return run_command(cmd, argc, argv, parse_body);
}

int cmd_unpack(const CliCommand *cmd, int argc, char **argv)
{
	return run_command(cmd, argc, argv, unpack_body);
}
