/* main.c — the sacc command line: a thin layer over driver.c.
 *
 *   sacc check [--syntax] [-I DIR] [-L DIR] FILE...   diagnostics only
 *   sacc explicit [--after RULE] [-I DIR] [-L DIR] FILE
 *   sacc emit [-I DIR] [-L DIR] FILE -o DIR          the wrapper FMUs' sources
 *   sacc build [-I DIR] [-L DIR] [-o DIR] FILE...    the wrapper FMUs themselves (package.c)
 *   sacc parse FILE                                   the parsed file, printed back
 *   sacc inspect [--json] FMU                         an FMU's model description
 *   sacc inspect --probe-state FMU [--set ...]        does restoring its state work?
 *                                                     (simulate_cli.c)
 *   sacc unpack FMU DIR                               an FMU archive, safely extracted
 *   sacc simulate [options] TARGET                    run an .fmu or a scenario (simulate_cli.c)
 *   sacc plot RESULT.csv -o FILE.png|svg              a result drawn by gnuplot (plot.c) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "emit.h"
#include "explicit.h"
#include "fmu.h"
#include "package.h"
#include "plot.h"
#include "simulate_cli.h"
#include "util.h"
#include "version.h"

static void usage(FILE *out)
{
	fputs("usage: sacc check [--syntax] [-I DIR] [-L DIR] FILE...\n"
	      "       sacc explicit [--after RULE] [-I DIR] [-L DIR] FILE\n"
	      "       sacc emit [-I DIR] [-L DIR] FILE -o DIR\n"
	      "       sacc build [-I DIR] [-L DIR] [-o DIR] FILE...\n"
	      "       sacc parse FILE\n"
	      "       sacc inspect [--json] FILE.fmu\n"
	      "       sacc inspect --probe-state FILE.fmu [--set INST.VAR=VALUE]... [--step H]\n"
	      "       sacc unpack FILE.fmu DIR\n"
	      "       sacc simulate [-I DIR] [-L DIR] TARGET [OPTION]...   (--help: the options)\n"
	      "       sacc plot RESULT.csv -o FILE.png|FILE.svg [--vars VAR,...] [--title T]\n"
	      "       sacc --version\n"
	      "\n"
	      "  check      check adaptation scripts against their inner FMUs\n"
	      "  --syntax   check syntax only, without opening any inner FMU\n"
	      "  explicit   print the explicit form of every adaptation in FILE\n"
	      "  --after    stop the reduction after RULE (one of the 13 rules)\n"
	      "  emit       write DIR/<adaptation>/{modelDescription.xml, config.h,\n"
	      "             <adaptation>.c} for every adaptation in FILE\n"
	      "  build      build one FMU per adaptation in the FILEs, inner adaptations\n"
	      "             first: DIR/<file name of its 'at'> with -o, else its 'at' path\n"
	      "             beside its script (the C compiler is $CC, default cc)\n"
	      "  parse      print FILE back as the parser read it\n"
	      "  inspect    print an FMU's model description as a table (--json: as JSON)\n"
	      "  --probe-state  step, get the state, step, set it, step again: do the\n"
	      "             outputs agree bit for bit? (exit 1 when they do not)\n"
	      "  unpack     extract an FMU archive into DIR (a new directory), refusing any\n"
	      "             entry that could land outside it\n"
	      "  simulate   run an .fmu or a scenario module (fmu declarations and\n"
	      "             connections) with a master algorithm; the result as CSV\n"
	      "  plot       draw a result's variables against time with gnuplot\n"
	      "  -I DIR     also look for imported modules in DIR\n"
	      "  -L DIR     also look for inner FMUs in DIR\n",
	      out);
}

typedef struct Args {
	const char **files;
	int nfiles;
	bool syntax, json;
	const char *after;
	const char *out;      /* -o DIR */
} Args;

/* Parses the options shared by the commands; returns 0, or 2 after a usage error. */
static int parse_args(Compilation *c, int argc, char **argv, Args *a)
{
	a->files = calloc((size_t)argc + 1, sizeof *a->files);
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--syntax") == 0)
			a->syntax = true;
		else if (strcmp(s, "--json") == 0)
			a->json = true;
		else if ((strcmp(s, "--after") == 0 || strcmp(s, "-I") == 0 || strcmp(s, "-L") == 0 ||
			  strcmp(s, "-o") == 0) && i + 1 < argc) {
			const char *v = argv[++i];
			if (s[1] == 'o')
				a->out = v;
			else if (s[1] == 'I')
				drv_add_include_dir(c, v);
			else if (s[1] == 'L')
				drv_add_fmu_dir(c, v);
			else
				a->after = v;
		} else if (strncmp(s, "-I", 2) == 0 && s[2]) {
			drv_add_include_dir(c, s + 2);
		} else if (strncmp(s, "-L", 2) == 0 && s[2]) {
			drv_add_fmu_dir(c, s + 2);
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "sacc: unknown option '%s'\n", s);
			return 2;
		} else {
			a->files[a->nfiles++] = s;
		}
	}
	return 0;
}

static int cmd_check(Compilation *c, Args *a)
{
	if (a->nfiles == 0) {
		fputs("sacc check: no input files\n", stderr);
		return 2;
	}
	for (int i = 0; i < a->nfiles; i++) {
		Module *m = drv_load(c, a->files[i]);
		if (m && m->root && !a->syntax)
			drv_check(c, m);
	}
	return diag_errors(c->diag) ? 1 : 0;
}

static int cmd_explicit(Compilation *c, Args *a, bool checked)
{
	if (a->nfiles != 1) {
		fprintf(stderr, "sacc %s: expected one input file\n", checked ? "explicit" : "parse");
		return 2;
	}
	if (a->after && !rw_is_rule(a->after)) {
		fprintf(stderr, "sacc explicit: unknown rule '%s'; the rules are:", a->after);
		for (const RwRule *r = rw_rules; r->name; r++)
			fprintf(stderr, " %s", r->name);
		fputc('\n', stderr);
		return 2;
	}
	Module *m = drv_load(c, a->files[0]);
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

static int cmd_emit(Compilation *c, Args *a)
{
	if (a->nfiles != 1 || !a->out) {
		fputs(a->nfiles != 1 ? "sacc emit: expected one input file\n"
		                     : "sacc emit: expected -o DIR\n", stderr);
		return 2;
	}
	Module *m = drv_load(c, a->files[0]);
	if (!m || !m->root || drv_explicit(c, m, NULL) || diag_errors(c->diag))
		return 1;
	return emit_module(c, m, a->out) ? 1 : 0;
}

static int cmd_build(Compilation *c, Args *a)
{
	if (a->nfiles == 0) {
		fputs("sacc build: no input files\n", stderr);
		return 2;
	}
	Module **mods = calloc((size_t)a->nfiles, sizeof *mods);
	if (!mods) {
		fputs("sacc: out of memory\n", stderr);
		return 1;
	}
	for (int i = 0; i < a->nfiles; i++) {
		mods[i] = drv_load(c, a->files[i]);
		if (mods[i] && mods[i]->root)
			drv_explicit(c, mods[i], NULL);
	}
	int rc = 1;
	if (!diag_errors(c->diag)) {
		PkgOptions o = {a->out, NULL, 0};
		rc = pkg_build(c, mods, a->nfiles, &o) ? 1 : 0;
	}
	free(mods);
	return rc;
}

static int cmd_inspect(Compilation *c, Args *a)
{
	if (a->nfiles != 1) {
		fputs("sacc inspect: expected one FMU\n", stderr);
		return 2;
	}
	FmuInfo *f = drv_open_fmu(c, a->files[0], (Loc){a->files[0], 0, 0, 0});
	if (!f)
		return 1;
	if (a->json)
		fmu_print_json(stdout, f);
	else
		fmu_print_table(stdout, f);
	return 0;
}

/* The archive checks of `sacc build`'s inner FMUs (zip_extract), for users who want to
 * look inside an FMU, and for importers that need it extracted (the tests, bench/). */
static int cmd_unpack(Compilation *c, Args *a)
{
	if (a->nfiles != 2) {
		fputs("sacc unpack: expected an FMU archive and a directory\n", stderr);
		return 2;
	}
	return zip_extract(a->files[0], a->files[1], NULL, c->diag) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		puts("sacc " SACC_VERSION);
		return 0;
	}
	if (strcmp(cmd, "simulate") == 0)
		return sim_main(argc - 2, argv + 2); /* its own options: simulate_cli.c */
	if (strcmp(cmd, "plot") == 0)
		return plot_main(argc - 2, argv + 2); /* its own options: plot.c */
	if (strcmp(cmd, "inspect") == 0)
		for (int i = 2; i < argc; i++)
			if (strcmp(argv[i], "--probe-state") == 0) {
				/* runs the FMU: simulate_cli.c, with simulate's --set, --start, --step */
				for (int j = i; j + 1 < argc; j++)
					argv[j] = argv[j + 1];
				return sim_probe_main(argc - 3, argv + 2);
			}
	Compilation *c = drv_new(stderr);
	if (!c) {
		fputs("sacc: out of memory\n", stderr);
		return 1;
	}
	Args a = {0};
	int rc = parse_args(c, argc - 2, argv + 2, &a);
	if (rc == 0) {
		if (strcmp(cmd, "check") == 0)
			rc = cmd_check(c, &a);
		else if (strcmp(cmd, "explicit") == 0)
			rc = cmd_explicit(c, &a, true);
		else if (strcmp(cmd, "emit") == 0)
			rc = cmd_emit(c, &a);
		else if (strcmp(cmd, "build") == 0)
			rc = cmd_build(c, &a);
		else if (strcmp(cmd, "parse") == 0)
			rc = cmd_explicit(c, &a, false);
		else if (strcmp(cmd, "inspect") == 0)
			rc = cmd_inspect(c, &a);
		else if (strcmp(cmd, "unpack") == 0)
			rc = cmd_unpack(c, &a);
		else {
			fprintf(stderr, "sacc: unknown command '%s'\n", cmd);
			usage(stderr);
			rc = 2;
		}
	}
	free(a.files);
	drv_free(c);
	return rc;
}
