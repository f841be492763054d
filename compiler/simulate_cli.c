/* simulate_cli.c — `sacc simulate TARGET`: the glue between the front end and the
 * orchestrator core (runtime/sart_master.h).
 *
 *   sacc simulate [-I DIR] [-L DIR] TARGET [--start T0] [--stop T1] [--step H]
 *                 [--master jacobi|gauss-seidel] [--approx hold|linear] [--iterations K]
 *                 [--loop-solver fixed-point|anderson|newton] [--anderson-memory M]
 *                 [--loop-tolerance TOL] [--loop-max-iterations N]
 *                 [--step-control doubling|prediction] [--tolerance TOL]
 *                 [--min-step H] [--max-step H]
 *                 [--step-timeout SECONDS]
 *                 [--record INST.VAR,...] [--set INST.VAR=VALUE]... [-o RESULT.csv]
 *                 [--explain]
 *
 * TARGET is one .fmu (its instance is named after its model identifier) or a scenario
 * module (LANGUAGE.md section 6: `fmu` declarations and top-level connections), loaded and
 * checked by the driver as `sacc check` does.  Each FMU is extracted with pkg_extract_fmu
 * into a private temporary directory, removed on every way out.  The model descriptions
 * (FmuInfo) become a SartScenario; sart_master_run steps it and hands each accepted
 * communication point to the CSV writer here, which flushes it at once, so a run that
 * fails leaves every accepted step on disk.
 *
 * This file is not part of libsacc.a (see the Makefile): it is the only compiler/ file
 * that links runtime/. */
#define _XOPEN_SOURCE 700 /* setitimer */
#include "simulate_cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "fmu.h"
#include "package.h"
#include "sart_master.h"

/* Set by SIGINT/SIGTERM: the run stops after the step in progress, cleanly (the
 * temporary directory is removed, the result file keeps every accepted step).  The one
 * piece of static state here: a signal handler has nowhere else to write. */
static volatile sig_atomic_t sim_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	sim_interrupted = 1;
}

/* The step watchdog (--step-timeout).  A doStep that overruns cannot be abandoned and the
 * process go on (the FMU may hold locks, or be half way through its state), so SIGALRM
 * ends the process: the handler writes the message made before the call (write(2)), then
 * execs /bin/sh to remove the temporary directory and exit 1 (execve is async-signal-safe
 * and drops the hung FMU with the old image).  Every accepted row was flushed when it
 * was written.  Static: the handler has nowhere else to read from. */
static char watchdog_msg[2048];
static size_t watchdog_len;
static char *watchdog_argv[6];

static void on_watchdog(int sig)
{
	(void)sig;
	ssize_t w = write(STDERR_FILENO, watchdog_msg, watchdog_len);
	(void)w;
	if (watchdog_argv[4])
		execv("/bin/sh", watchdog_argv);
	_exit(1);
}

static void sim_usage(FILE *out)
{
	fputs("usage: sacc simulate [-I DIR] [-L DIR] TARGET [--start T0] [--stop T1] [--step H]\n"
	      "                     [--master jacobi|gauss-seidel] [--approx hold|linear]\n"
	      "                     [--iterations K] [--loop-solver fixed-point|anderson|newton]\n"
	      "                     [--anderson-memory M] [--loop-tolerance TOL]\n"
	      "                     [--loop-max-iterations N] [--step-control doubling|prediction]\n"
	      "                     [--tolerance TOL] [--min-step H] [--max-step H]\n"
	      "                     [--step-timeout SECONDS] [--record INST.VAR,...]\n"
	      "                     [--set INST.VAR=VALUE]... [-o RESULT.csv] [--explain]\n"
	      "\n"
	      "  TARGET        an .fmu, or a scenario module (fmu declarations and connections)\n"
	      "  --start T0    start time (default 0)\n"
	      "  --stop T1     stop time (default: the DefaultExperiment's, else 1)\n"
	      "  --step H      macro step (default (T1 - T0) / 500)\n"
	      "  --master      jacobi or gauss-seidel (default)\n"
	      "  --approx      input approximation: hold (default) or linear\n"
	      "  --iterations  K extra passes over each step, with rollback (default 0)\n"
	      "  --loop-solver how algebraic loops are solved: fixed-point, anderson (default)\n"
	      "                or newton (finite-difference Jacobian)\n"
	      "  --anderson-memory  M past iterates Anderson uses (default 1: secant)\n"
	      "  --loop-tolerance   converged when |G(x) - x| <= TOL max(1, |x|) (default 1e-10)\n"
	      "  --loop-max-iterations  bound on a loop solve's iterations (default 100)\n"
	      "  --step-control variable steps: error by step doubling or by prediction (the\n"
	      "                inputs given against the outputs realised); --step is the first\n"
	      "  --tolerance   on the error estimate, relative beyond 1 (default 1e-3)\n"
	      "  --min-step    accepted whatever its error (default 1e-6 H)\n"
	      "  --max-step    never exceeded (default T1 - T0)\n"
	      "  --step-timeout  wall-clock limit on one doStep of one FMU; an FMU that\n"
	      "                overruns it stops the run (exit 1, the result kept)\n"
	      "  --record      the variables to write (default: every output)\n"
	      "  --set         a start value or parameter, before initialization\n"
	      "  -o FILE       the CSV result (default: standard output)\n"
	      "  --explain     print the structural analysis and stop\n",
	      out);
}

typedef struct SimArgs {
	const char *target;
	const char *out;
	double start, stop, step;
	bool has_stop, has_step;
	SartAlgorithm algorithm;
	SartApprox approx;
	int iterations;
	SartLoopSolver loop_solver;
	int anderson_memory, loop_max_iterations;
	double loop_tolerance;
	SartStepControl step_control;
	double tolerance, min_step, max_step;
	double step_timeout; /* s, 0 for none */
	bool explain;
	bool probe;          /* sacc inspect --probe-state */
	const char **records; /* each a comma-separated list */
	int nrecords;
	const char **sets;
	int nsets;
} SimArgs;

static int usage_error(const char *fmt, const char *a, const char *b)
{
	fputs("sacc simulate: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 2;
}

static bool parse_double(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && errno == 0 && isfinite(*v);
}

/* Options that later slices implement: refused by name until then. */
static const char *const later_options[] = {
	"--event", "--realtime", "--sweep",
	NULL,
};

static int parse_sim_args(Compilation *c, int argc, char **argv, SimArgs *a)
{
	a->algorithm = SART_GAUSS_SEIDEL;
	a->approx = SART_HOLD;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		const char *val = NULL;
		char name[64];
		/* --opt=value is --opt value */
		const char *eq = strncmp(s, "--", 2) == 0 ? strchr(s, '=') : NULL;
		if (eq && (size_t)(eq - s) < sizeof name) {
			memcpy(name, s, (size_t)(eq - s));
			name[eq - s] = '\0';
			s = name;
			val = eq + 1;
		}
		for (int k = 0; later_options[k]; k++)
			if (strcmp(s, later_options[k]) == 0)
				return usage_error("%s is not implemented yet%s", s, "");
		bool takes = strcmp(s, "-I") == 0 || strcmp(s, "-L") == 0 || strcmp(s, "-o") == 0 ||
		             strcmp(s, "--start") == 0 || strcmp(s, "--stop") == 0 ||
		             strcmp(s, "--step") == 0 || strcmp(s, "--master") == 0 ||
		             strcmp(s, "--approx") == 0 || strcmp(s, "--iterations") == 0 ||
		             strcmp(s, "--loop-solver") == 0 || strcmp(s, "--anderson-memory") == 0 ||
		             strcmp(s, "--loop-tolerance") == 0 ||
		             strcmp(s, "--loop-max-iterations") == 0 ||
		             strcmp(s, "--step-control") == 0 || strcmp(s, "--tolerance") == 0 ||
		             strcmp(s, "--min-step") == 0 || strcmp(s, "--max-step") == 0 ||
		             strcmp(s, "--step-timeout") == 0 ||
		             strcmp(s, "--record") == 0 || strcmp(s, "--set") == 0;
		if (takes && !val) {
			if (i + 1 >= argc)
				return usage_error("%s needs a value%s", s, "");
			val = argv[++i];
		} else if (!takes && val) {
			return usage_error("%s takes no value%s", s, "");
		}
		if (strcmp(s, "-I") == 0) {
			drv_add_include_dir(c, val);
		} else if (strcmp(s, "-L") == 0) {
			drv_add_fmu_dir(c, val);
		} else if (strncmp(s, "-I", 2) == 0 && s[2]) {
			drv_add_include_dir(c, s + 2);
		} else if (strncmp(s, "-L", 2) == 0 && s[2]) {
			drv_add_fmu_dir(c, s + 2);
		} else if (strcmp(s, "-o") == 0) {
			a->out = val;
		} else if (strcmp(s, "--start") == 0 || strcmp(s, "--stop") == 0 ||
		           strcmp(s, "--step") == 0) {
			double v;
			if (!parse_double(val, &v))
				return usage_error("%s: '%s' is not a finite number", s, val);
			if (s[3] == 't' && s[4] == 'a')
				a->start = v;
			else if (s[4] == 'o')
				a->stop = v, a->has_stop = true;
			else
				a->step = v, a->has_step = true;
		} else if (strcmp(s, "--master") == 0) {
			if (strcmp(val, "jacobi") == 0)
				a->algorithm = SART_JACOBI;
			else if (strcmp(val, "gauss-seidel") == 0)
				a->algorithm = SART_GAUSS_SEIDEL;
			else
				return usage_error("--master: '%s' is neither jacobi nor gauss-seidel%s",
				                   val, "");
		} else if (strcmp(s, "--approx") == 0) {
			if (strcmp(val, "hold") == 0)
				a->approx = SART_HOLD;
			else if (strcmp(val, "linear") == 0)
				a->approx = SART_LINEAR;
			else if (strcmp(val, "quadratic") == 0 || strcmp(val, "hermite") == 0)
				return usage_error("--approx %s is not implemented yet%s", val, "");
			else
				return usage_error("--approx: '%s' is neither hold nor linear%s", val, "");
		} else if (strcmp(s, "--iterations") == 0) {
			char *end;
			errno = 0;
			long k = strtol(val, &end, 10);
			if (!*val || *end || errno || k < 0 || k > 1000000)
				return usage_error("--iterations: '%s' is not a count from 0%s", val, "");
			a->iterations = (int)k;
		} else if (strcmp(s, "--loop-solver") == 0) {
			if (strcmp(val, "fixed-point") == 0)
				a->loop_solver = SART_LOOP_FIXED_POINT;
			else if (strcmp(val, "anderson") == 0)
				a->loop_solver = SART_LOOP_ANDERSON;
			else if (strcmp(val, "newton") == 0)
				a->loop_solver = SART_LOOP_NEWTON;
			else
				return usage_error("--loop-solver: '%s' is not fixed-point, anderson or "
				                   "newton%s", val, "");
		} else if (strcmp(s, "--anderson-memory") == 0 ||
		           strcmp(s, "--loop-max-iterations") == 0) {
			char *end;
			errno = 0;
			long k = strtol(val, &end, 10);
			bool mem = s[2] == 'a';
			if (!*val || *end || errno || k < 1 || k > (mem ? 100 : 1000000))
				return usage_error(mem ? "%s: '%s' is not a count from 1 to 100"
				                       : "%s: '%s' is not a count from 1", s, val);
			if (mem)
				a->anderson_memory = (int)k;
			else
				a->loop_max_iterations = (int)k;
		} else if (strcmp(s, "--step-control") == 0) {
			if (strcmp(val, "doubling") == 0)
				a->step_control = SART_STEP_DOUBLING;
			else if (strcmp(val, "prediction") == 0)
				a->step_control = SART_STEP_PREDICTION;
			else
				return usage_error("--step-control: '%s' is neither doubling nor "
				                   "prediction%s", val, "");
		} else if (strcmp(s, "--tolerance") == 0 || strcmp(s, "--min-step") == 0 ||
		           strcmp(s, "--max-step") == 0) {
			double v;
			if (!parse_double(val, &v) || !(v > 0))
				return usage_error("%s: '%s' is not a positive number", s, val);
			if (s[2] == 't')
				a->tolerance = v;
			else if (s[3] == 'i')
				a->min_step = v;
			else
				a->max_step = v;
		} else if (strcmp(s, "--step-timeout") == 0) {
			double v;
			if (!parse_double(val, &v) || !(v > 0) || v > 1e6)
				return usage_error("%s: '%s' is not a positive number of seconds", s, val);
			a->step_timeout = v;
		} else if (strcmp(s, "--loop-tolerance") == 0) {
			double v;
			if (!parse_double(val, &v) || !(v > 0))
				return usage_error("%s: '%s' is not a positive number", s, val);
			a->loop_tolerance = v;
		} else if (strcmp(s, "--record") == 0) {
			a->records[a->nrecords++] = val;
		} else if (strcmp(s, "--set") == 0) {
			a->sets[a->nsets++] = val;
		} else if (strcmp(s, "--explain") == 0) {
			a->explain = true;
		} else if (s[0] == '-' && s[1]) {
			return usage_error("unknown option '%s'%s", s, "");
		} else if (a->target) {
			return usage_error("one TARGET only ('%s', then '%s')", a->target, s);
		} else {
			a->target = s;
		}
	}
	if (!a->target)
		return usage_error("no TARGET (an .fmu or a scenario module)%s%s", "", "");
	return 0;
}

/* ---- the scenario ------------------------------------------------------------------------- */

/* One FMU instance of the scenario, with the SartVar table made from its description. */
typedef struct SimFmu {
	const char *name;
	FmuInfo *info;
	Loc where;
	char *dir;      /* where it is extracted, malloc'd */
	SartVar *vars;
} SimFmu;

typedef struct Sim {
	Compilation *c;
	SimArgs *args;
	SimFmu *fmus;
	int nfmus;
	SartFmu *sfmus;
	SartConnection *conns;
	int nconns;
	SartStart *starts;
	int nstarts;
	SartRef *records;
	int nrecords, caprecords;
	char *tmpdir;
	FILE *out;
	bool out_failed;
	long rows;        /* communication points written */
	double last_t;    /* the last one's time */
} Sim;

static SartType sart_type(FmuType t)
{
	switch (t) {
	case FT_REAL: return SART_REAL;
	case FT_INTEGER:
	case FT_ENUMERATION: return SART_INTEGER;
	case FT_BOOLEAN: return SART_BOOLEAN;
	default: return SART_OTHER;
	}
}

static SartCausality sart_causality(FmuCausality c)
{
	switch (c) {
	case CAUS_INPUT: return SART_CAUS_INPUT;
	case CAUS_OUTPUT: return SART_CAUS_OUTPUT;
	case CAUS_PARAMETER: return SART_CAUS_PARAMETER;
	default: return SART_CAUS_OTHER;
	}
}

static int add_fmu(Sim *s, const char *name, FmuInfo *info, Loc where)
{
	SimFmu *f = &s->fmus[s->nfmus++];
	f->name = name;
	f->info = info;
	f->where = where;
	f->vars = calloc((size_t)info->nvars + 1, sizeof *f->vars);
	if (!f->vars)
		return 1;
	for (int i = 0; i < info->nvars; i++) {
		const FmuVar *v = &info->vars[i];
		f->vars[i] = (SartVar){v->name, v->vr, sart_type(v->type), sart_causality(v->causality),
		                       NULL, v->causality == CAUS_OUTPUT ? -1 : 0};
	}
	for (int k = 0; k < info->noutputs; k++) {
		const FmuOutputDep *o = &info->outputs[k];
		if (o->var < 0 || o->var >= info->nvars || !o->deps_given)
			continue;
		f->vars[o->var].deps = o->deps;
		f->vars[o->var].ndeps = o->ndeps;
	}
	return 0;
}

static int var_index(const FmuInfo *info, const char *name)
{
	const FmuVar *v = fmu_find_var(info, name);
	return v ? (int)(v - info->vars) : -1;
}

/* Finds the FMU file of an `fmu` declaration the checker did not open (no connection
 * uses it), the way the checker looks: beside the script, then in each -L directory. */
static const char *find_decl_file(Sim *s, Module *m, const char *path)
{
	const char *p;
	if (path[0] == '/')
		return access(path, R_OK) == 0 ? path : NULL;
	p = arena_printf(s->c->arena, "%s/%s", m->dir, path);
	if (access(p, R_OK) == 0)
		return p;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (int i = 0; i < s->c->nfmu_dirs; i++) {
		p = arena_printf(s->c->arena, "%s/%s", s->c->fmu_dirs[i], path);
		if (access(p, R_OK) == 0)
			return p;
		p = arena_printf(s->c->arena, "%s/%s", s->c->fmu_dirs[i], base);
		if (access(p, R_OK) == 0)
			return p;
	}
	return NULL;
}

static int find_instance(const Sim *s, const char *name)
{
	for (int f = 0; f < s->nfmus; f++)
		if (strcmp(s->fmus[f].name, name) == 0)
			return f;
	return -1;
}

/* A scenario module: its fmu declarations (in order) and connections. */
static int load_scenario(Sim *s, int *nerr)
{
	Compilation *c = s->c;
	Module *m = drv_load(c, s->args->target);
	if (!m || !m->root)
		return 1;
	drv_check(c, m);
	if (diag_errors(c->diag))
		return 1;
	int ndecl = 0;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind == ND_ADAPTATION) {
			diag_error(c->diag, e->loc, "'%s' is an adaptation: sacc simulate runs a scenario "
			           "module (fmu declarations and connections) or an .fmu", e->name);
			diag_note(c->diag, e->loc, "build it with sacc build and simulate the .fmu, or "
			          "declare that .fmu in a scenario");
			return 1;
		}
		ndecl += e->kind == ND_FMU_DECL;
		s->nconns += e->kind == ND_CONNECTION;
	}
	s->fmus = calloc((size_t)ndecl + 1, sizeof *s->fmus);
	s->conns = calloc((size_t)s->nconns + 1, sizeof *s->conns);
	if (!s->fmus || !s->conns)
		return 1;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_FMU_DECL)
			continue;
		FmuInfo *info = e->info;
		if (!info) {
			const char *file = find_decl_file(s, m, e->str);
			if (!file) {
				diag_error(c->diag, e->loc, "cannot find fmu '%s' at \"%s\"", e->name, e->str);
				continue;
			}
			info = drv_open_fmu(c, file, e->loc);
			if (!info)
				continue;
		}
		if (add_fmu(s, e->name, info, e->loc))
			return 1;
	}
	if (diag_errors(c->diag))
		return 1;
	if (s->nfmus == 0) {
		diag_error(c->diag, (Loc){m->path, 0, 0, 0}, "no fmu declared: nothing to simulate");
		return 1;
	}
	int k = 0;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_CONNECTION)
			continue;
		int fs = find_instance(s, e->lhs->owner), fd = find_instance(s, e->rhs->owner);
		if (fs < 0 || fd < 0) {
			Node *end = fs < 0 ? e->lhs : e->rhs;
			diag_error(c->diag, end->loc, "'%s' is not an fmu declared in this module: "
			           "connections to adaptations or to fmus of imported modules are not "
			           "implemented yet", end->owner);
			(*nerr)++;
			continue;
		}
		int vs = var_index(s->fmus[fs].info, e->lhs->name);
		int vd = var_index(s->fmus[fd].info, e->rhs->name);
		if (vs < 0 || vd < 0)
			return 1; /* the checker reported it */
		s->conns[k++] = (SartConnection){{fs, vs}, {fd, vd},
		                                 e->converts ? e->scale : 1.0,
		                                 e->converts ? e->offset : 0.0};
	}
	s->nconns = k;
	return *nerr ? 1 : 0;
}

/* INST.VAR: the instance is the part before the first '.'. */
static int parse_ref(const Sim *s, const char *what, const char *text, size_t len,
                     SartRef *r)
{
	char buf[512];
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	char *dot = strchr(buf, '.');
	if (!dot || dot == buf || !dot[1])
		return usage_error("%s: '%s' is not INSTANCE.VARIABLE", what, buf);
	*dot = '\0';
	r->fmu = find_instance(s, buf);
	if (r->fmu < 0) {
		fprintf(stderr, "sacc simulate: %s: no fmu instance '%s'; the instances are:", what,
		        buf);
		for (int f = 0; f < s->nfmus; f++)
			fprintf(stderr, " %s", s->fmus[f].name);
		fputc('\n', stderr);
		return 2;
	}
	r->var = var_index(s->fmus[r->fmu].info, dot + 1);
	if (r->var < 0) {
		fprintf(stderr, "sacc simulate: %s: fmu '%s' has no variable '%s'\n", what, buf,
		        dot + 1);
		return 2;
	}
	return 0;
}

static int add_record(Sim *s, SartRef r)
{
	if (s->nrecords == s->caprecords) {
		int cap = s->caprecords ? 2 * s->caprecords : 16;
		SartRef *v = realloc(s->records, (size_t)cap * sizeof *v);
		if (!v)
			return 1;
		s->records = v;
		s->caprecords = cap;
	}
	s->records[s->nrecords++] = r;
	return 0;
}

static int collect_records(Sim *s)
{
	if (s->args->nrecords == 0) {
		for (int f = 0; f < s->nfmus; f++)
			for (int i = 0; i < s->fmus[f].info->nvars; i++)
				if (s->fmus[f].vars[i].causality == SART_CAUS_OUTPUT &&
				    s->fmus[f].vars[i].type != SART_OTHER && add_record(s, (SartRef){f, i}))
					return 1;
		return 0;
	}
	for (int k = 0; k < s->args->nrecords; k++) {
		const char *p = s->args->records[k];
		while (*p) {
			size_t len = strcspn(p, ",");
			SartRef r;
			int rc = parse_ref(s, "--record", p, len, &r);
			if (rc)
				return rc;
			if (s->fmus[r.fmu].vars[r.var].type == SART_OTHER)
				return usage_error("--record: %s has a type that cannot be recorded "
				                   "(strings and FMI 3.0 sized types are not yet)%s",
				                   s->fmus[r.fmu].vars[r.var].name, "");
			if (add_record(s, r))
				return 1;
			p += len;
			if (*p == ',')
				p++;
		}
	}
	return 0;
}

static int collect_sets(Sim *s)
{
	s->starts = calloc((size_t)s->args->nsets + 1, sizeof *s->starts);
	if (!s->starts)
		return 1;
	for (int k = 0; k < s->args->nsets; k++) {
		const char *a = s->args->sets[k];
		const char *eq = strchr(a, '=');
		if (!eq)
			return usage_error("--set: '%s' is not INSTANCE.VARIABLE=VALUE%s", a, "");
		SartRef r;
		int rc = parse_ref(s, "--set", a, (size_t)(eq - a), &r);
		if (rc)
			return rc;
		const FmuVar *v = &s->fmus[r.fmu].info->vars[r.var];
		const char *val = eq + 1;
		bool settable = v->causality == CAUS_INPUT || v->causality == CAUS_PARAMETER ||
		                (v->causality != CAUS_INDEPENDENT && v->variability != VAR_CONSTANT &&
		                 (v->initial == INIT_EXACT || v->initial == INIT_APPROX));
		if (!settable)
			return usage_error("--set: %s cannot be set (a constant, a computed variable "
			                   "or the independent variable)%s", a, "");
		double x;
		switch (sart_type(v->type)) {
		case SART_REAL:
			if (!parse_double(val, &x))
				return usage_error("--set %s: not a finite number%s", a, "");
			break;
		case SART_INTEGER: {
			char *end;
			errno = 0;
			long l = strtol(val, &end, 10);
			if (!*val || *end || errno || l < -2147483647L - 1 || l > 2147483647L)
				return usage_error("--set %s: not an Integer%s", a, "");
			x = (double)l;
			break;
		}
		case SART_BOOLEAN:
			if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
				x = 1;
			else if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
				x = 0;
			else
				return usage_error("--set %s: a Boolean is true, false, 1 or 0%s", a, "");
			break;
		default:
			return usage_error("--set %s: only Real, Integer and Boolean variables can be set "
			                   "yet%s", a, "");
		}
		s->starts[s->nstarts++] = (SartStart){r, x};
	}
	return 0;
}

/* ---- running ----------------------------------------------------------------------------- */

static void sim_log(void *env, SartStatus st, const char *category, const char *message)
{
	(void)env;
	(void)category;
	/* Discards are what step rejection handles; the summary counts them. */
	if (st == SART_WARNING || st == SART_ERROR || st == SART_FATAL)
		fprintf(stderr, "sacc simulate: %s\n", message);
}

static int write_point(void *env, double t, const double values[], int n)
{
	Sim *s = env;
	int bad = fprintf(s->out, "%.17g", t) < 0;
	for (int i = 0; i < n; i++)
		bad |= fprintf(s->out, ",%.17g", values[i]) < 0;
	bad |= fputc('\n', s->out) == EOF;
	bad |= fflush(s->out) != 0;
	if (bad)
		s->out_failed = true;
	s->rows++;
	s->last_t = t;
	return bad || sim_interrupted; /* the row is written first: the summary agrees */
}

/* Arms the watchdog before a doStep (the message it would print made now: nothing is
 * formatted in the handler), disarms it after. */
static void watch_step(void *env, int f, double t, double h, int done)
{
	Sim *s = env;
	struct itimerval it;
	memset(&it, 0, sizeof it);
	if (!done) {
		int n = snprintf(watchdog_msg, sizeof watchdog_msg,
		                 "sacc simulate: [%s] %s(t = %.17g, h = %.17g) did not return within "
		                 "--step-timeout %g s; a call cannot be abandoned safely, so the run "
		                 "stops\n"
		                 "sacc simulate: stopped at t = %.17g: %ld steps accepted (the result "
		                 "holds each)\n",
		                 s->fmus[f].name,
		                 s->fmus[f].info->version == FMI_V3 ? "fmi3DoStep" : "fmi2DoStep", t,
		                 h, s->args->step_timeout, s->last_t, s->rows > 0 ? s->rows - 1 : 0);
		watchdog_len = n < 0 ? 0 : (size_t)n < sizeof watchdog_msg ? (size_t)n
		                                                            : sizeof watchdog_msg - 1;
		double whole = floor(s->args->step_timeout);
		it.it_value.tv_sec = (time_t)whole;
		it.it_value.tv_usec = (suseconds_t)((s->args->step_timeout - whole) * 1e6);
		if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
			it.it_value.tv_usec = 1;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

static int write_header(Sim *s)
{
	fputs("time", s->out);
	for (int r = 0; r < s->nrecords; r++)
		fprintf(s->out, ",%s.%s", s->fmus[s->records[r].fmu].name,
		        s->fmus[s->records[r].fmu].vars[s->records[r].var].name);
	fputc('\n', s->out);
	return fflush(s->out) != 0 || ferror(s->out);
}

static int extract_all(Sim *s)
{
	const char *tmp = getenv("TMPDIR");
	char *templ = malloc(strlen(tmp && *tmp ? tmp : "/tmp") + 32);
	if (!templ)
		return 1;
	sprintf(templ, "%s/sacc-simulate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		fprintf(stderr, "sacc simulate: cannot make a temporary directory %s: %s\n", templ,
		        strerror(errno));
		free(templ);
		return 1;
	}
	s->tmpdir = templ;
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		fm->dir = malloc(strlen(templ) + strlen(fm->name) + 16);
		if (!fm->dir)
			return 1;
		sprintf(fm->dir, "%s/%d-%s", templ, f, fm->name);
		if (pkg_extract_fmu(fm->info->path, fm->dir, fm->info->model_identifier,
		                    (int)fm->info->version, s->c->diag))
			return 1;
	}
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The SartScenario over the FMUs' descriptions (their dir NULL until extracted). */
static SartScenario scenario(Sim *s)
{
	for (int f = 0; f < s->nfmus; f++) {
		const FmuInfo *in = s->fmus[f].info;
		unsigned caps = (in->can_get_and_set_fmu_state ? SART_CAP_GET_SET_STATE : 0u) |
		                (in->can_serialize_fmu_state ? SART_CAP_SERIALIZE : 0u) |
		                (in->can_interpolate_inputs ? SART_CAP_INPUT_DERIVATIVES : 0u);
		s->sfmus[f] = (SartFmu){s->fmus[f].name, s->fmus[f].dir, in->model_identifier,
		                        in->guid, in->version == FMI_V3 ? SART_FMI3 : SART_FMI2, caps,
		                        s->fmus[f].vars, in->nvars};
	}
	return (SartScenario){s->sfmus, s->nfmus, s->conns, s->nconns, s->starts, s->nstarts,
	                      s->records, s->nrecords};
}

static int run(Sim *s)
{
	SimArgs *a = s->args;
	s->sfmus = calloc((size_t)s->nfmus + 1, sizeof *s->sfmus);
	if (!s->sfmus)
		return 1;
	SartScenario sc = scenario(s);

	if (a->explain) {
		char err[512];
		SartAnalysis *an;
		if (sart_analyse(&sc, &an, err, sizeof err)) {
			fprintf(stderr, "sacc simulate: %s\n", err);
			return 1;
		}
		sart_analysis_print(stdout, &sc, an);
		sart_analysis_free(an);
		return 0;
	}

	if (!a->has_stop) {
		a->stop = 1;
		for (int f = 0; f < s->nfmus; f++)
			if (isfinite(s->fmus[f].info->default_stop)) {
				a->stop = s->fmus[f].info->default_stop;
				break;
			}
	}
	if (!(a->stop >= a->start))
		return usage_error("the stop time is before the start time%s%s", "", "");
	if (!a->has_step)
		a->step = a->stop > a->start ? (a->stop - a->start) / 500 : 1;
	if (!(a->step > 0))
		return usage_error("--step must be positive%s%s", "", "");

	if (extract_all(s))
		return 1;
	sc = scenario(s);
	if (a->probe) {
		char msg[1024];
		int pr = sart_probe_state(&sc, 0, a->start, a->step, NULL, NULL, msg, sizeof msg);
		if (pr == 0) {
			printf("%s: %s\n", s->fmus[0].name, msg);
			return 0;
		}
		fprintf(stderr, "sacc inspect: %s%s\n", pr < 0 ? "cannot tell whether restoring "
		        "the state works: " : "state restore does not work: ", msg);
		return 1;
	}
	if (a->out) {
		s->out = fopen(a->out, "w");
		if (!s->out) {
			fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a->out, strerror(errno));
			return 1;
		}
	} else {
		s->out = stdout;
	}
	if (write_header(s)) {
		fprintf(stderr, "sacc simulate: cannot write the result: %s\n", strerror(errno));
		return 1;
	}

	SartMasterOptions o = {.start = a->start, .stop = a->stop, .step = a->step,
	                       .algorithm = a->algorithm, .approx = a->approx,
	                       .iterations = a->iterations, .logger = sim_log, .logger_env = s,
	                       .on_point = write_point, .point_env = s,
	                       .loop_solver = a->loop_solver,
	                       .anderson_memory = a->anderson_memory,
	                       .loop_tolerance = a->loop_tolerance,
	                       .loop_max_iterations = a->loop_max_iterations,
	                       .step_control = a->step_control, .tolerance = a->tolerance,
	                       .min_step = a->min_step, .max_step = a->max_step};
	SartMasterResult res;
	struct sigaction sa, old_int, old_term, old_alrm;
	if (a->step_timeout > 0) {
		o.on_step = watch_step;
		o.step_env = s;
		watchdog_argv[0] = "sh";
		watchdog_argv[1] = "-c";
		watchdog_argv[2] = "rm -rf -- \"$1\"; exit 1";
		watchdog_argv[3] = "sh";
		watchdog_argv[4] = s->tmpdir;
		watchdog_argv[5] = NULL;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_watchdog;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, &old_alrm);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	double t0 = now_seconds();
	int rc = sart_master_run(&sc, &o, &res);
	double wall = now_seconds() - t0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (a->step_timeout > 0) {
		struct itimerval off;
		memset(&off, 0, sizeof off);
		setitimer(ITIMER_REAL, &off, NULL);
		sigaction(SIGALRM, &old_alrm, NULL);
	}
	if (s->out_failed)
		fprintf(stderr, "sacc simulate: cannot write the result%s%s: %s\n",
		        a->out ? " to " : "", a->out ? a->out : "", strerror(errno));
	else if (sim_interrupted)
		fputs("sacc simulate: interrupted\n", stderr);
	char loops[160] = "", steps[120] = "";
	if (a->step_control != SART_STEP_FIXED && res.accepted)
		snprintf(steps, sizeof steps, " (H from %.3g to %.3g)", res.h_min, res.h_max);
	if (res.loop_solves)
		snprintf(loops, sizeof loops, ", %ld loop solves (%ld iterations, %ld loop passes)",
		         res.loop_solves, res.loop_iterations, res.loop_evaluations);
	fprintf(stderr, "sacc simulate: %s at t = %.17g: %ld steps accepted, %ld rejected, "
	        "%ld iterations, %ld rollbacks%s%s, %.3f s wall time\n",
	        rc ? "stopped" : "done", res.t, res.accepted, res.rejected, res.iterations,
	        res.rollbacks, steps, loops, wall);
	return rc ? 1 : 0;
}

static int sim_entry(int argc, char **argv, bool probe);

int sim_main(int argc, char **argv)
{
	return sim_entry(argc, argv, false);
}

int sim_probe_main(int argc, char **argv)
{
	return sim_entry(argc, argv, true);
}

static int sim_entry(int argc, char **argv, bool probe)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			sim_usage(stdout);
			return 0;
		}
	Compilation *c = drv_new(stderr);
	SimArgs a;
	Sim s;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	int rc = 1;
	if (!c)
		goto oom;
	s.c = c;
	s.args = &a;
	a.records = calloc((size_t)argc + 1, sizeof *a.records);
	a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
	if (!a.records || !a.sets)
		goto oom;
	rc = parse_sim_args(c, argc, argv, &a);
	a.probe = probe;
	if (rc == 0 && probe && (strlen(a.target) <= 4 ||
	                         strcmp(a.target + strlen(a.target) - 4, ".fmu") != 0))
		rc = usage_error("--probe-state: '%s' is not an .fmu%s", a.target, "");
	if (rc) {
		if (rc == 2)
			fputs("(sacc simulate --help for the options)\n", stderr);
		goto done;
	}
	rc = 1;
	size_t tl = strlen(a.target);
	if (tl > 4 && strcmp(a.target + tl - 4, ".fmu") == 0) {
		FmuInfo *info = drv_open_fmu(c, a.target, (Loc){a.target, 0, 0, 0});
		s.fmus = calloc(2, sizeof *s.fmus);
		if (!info || !s.fmus || add_fmu(&s, info->model_identifier, info,
		                                (Loc){a.target, 0, 0, 0}))
			goto done;
	} else {
		int nerr = 0;
		if (load_scenario(&s, &nerr))
			goto done;
	}
	if ((rc = collect_records(&s)) != 0 || (rc = collect_sets(&s)) != 0)
		goto done;
	rc = run(&s);
	goto done;
oom:
	fputs("sacc simulate: out of memory\n", stderr);
	rc = 1;
done:
	if (s.out && s.out != stdout && fclose(s.out) != 0 && rc == 0) {
		fprintf(stderr, "sacc simulate: cannot write %s: %s\n", a.out, strerror(errno));
		rc = 1;
	}
	if (s.tmpdir && zip_rmtree(s.tmpdir) != 0)
		fprintf(stderr, "sacc simulate: cannot remove %s: %s\n", s.tmpdir, strerror(errno));
	free(s.tmpdir);
	for (int f = 0; f < s.nfmus; f++) {
		free(s.fmus[f].vars);
		free(s.fmus[f].dir);
	}
	free(s.fmus);
	free(s.sfmus);
	free(s.conns);
	free(s.starts);
	free(s.records);
	free(a.records);
	free(a.sets);
	drv_free(c);
	return rc;
}
