/* ssp_import.c — `sacc ssp import SYSTEM.ssp -o DIR`: the system's flat form (ssp_flat.c)
 * written as a scenario module, DIR/<system>.sa, with its FMUs beside it, so that `sacc
 * simulate DIR/<system>.sa` runs what `sacc simulate SYSTEM.ssp` runs.
 *
 * A scenario module says FMUs and plain connections, whose units it converts from the FMUs'
 * declared units.  What it cannot say is refused, naming the place in the SSP: a
 * transformation (linear or mapping) and a unit conversion other than the one the FMUs'
 * units give.  What only changes the run's settings, not its structure, is written as
 * comments the run's options reproduce: the parameter values (as --set options), the
 * DefaultExperiment (--start, --stop) and the top system's outputs.  Nested instances are
 * named with '_' for '.' (sub.B is sub_B). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "numfmt.h"
#include "parse.h"
#include "ssp_cli.h"
#include "ssp_internal.h"
#include "units.h"
#include "util.h"

/* A name the module can write as it is: an identifier and no reserved word. */
static bool is_identifier(const char *s)
{
	return lex_is_identifier(s) && !lex_is_keyword(s);
}

/* The instance name in the module: dots become underscores. */
static const char *instance_name(Compilation *c, const char *flat)
{
	char *s = arena_strdup(c->arena, flat);
	for (char *p = s; *p; p++)
		if (*p == '.')
			*p = '_';
	return s;
}

/* Whether the link says no more than a plain scenario connection between the two
 * variables says: no map, and scale/offset what the FMUs' units give. */
static bool plain_link(Compilation *c, const SspFlat *f, const SspFlatLink *l)
{
	if (l->cv.nmap)
		return false;
	const FmuVar *s = &f->comps[l->src_comp].info->vars[l->src_var];
	const FmuVar *d = &f->comps[l->dst_comp].info->vars[l->dst_var];
	double scale = 1, offset = 0;
	if (s->unit && d->unit && strcmp(s->unit, d->unit) != 0) {
		UnitSystem *us = drv_units(c);
		if (!us || units_conversion(us, s->unit, d->unit, &scale, &offset) != UNITS_OK)
			return false;
	}
	return l->cv.scale == scale && l->cv.offset == offset;
}

/* Copies file from to to.  0, or 1 after a message. */
static int import_file(const char *from, const char *to)
{
	int rc = copy_file(from, to);
	if (rc == -1)
		cli_error("import: cannot read %s: %s", from, strerror(errno));
	else if (rc == -2)
		cli_error("import: cannot write %s: %s", to, strerror(errno));
	return rc != 0;
}

/* The FMU file names in DIR: each source's base name, the instance's when an earlier
 * source of another path has that base name.  By name tables, not by comparing each
 * component with all before it (quadratic over ten thousand).  NULL when out of memory. */
static const char **fmu_files(Compilation *c, const SspFlat *f)
{
	const char **names = arena_alloc(c->arena, (size_t)(f->ncomps + 1) * sizeof *names);
	NameIndex by_base = {0}; /* a base name -> the first component that has it */
	bool ok = true;
	for (int i = 0; ok && i < f->ncomps; i++) {
		const char *p = f->comps[i].fmu_path, *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		names[i] = base;
		int j = name_index_find(&by_base, base);
		if (j < 0)
			ok = name_index_add(&by_base, base, i) == 0;
		else if (strcmp(f->comps[j].fmu_path, p) != 0)
			names[i] = arena_printf(c->arena, "%s.fmu", instance_name(c, f->comps[i].name));
	}
	name_index_free(&by_base);
	return ok ? names : NULL;
}

/* Refuses (errors at the SSP's places) what a scenario module cannot say. */
static int check_expressible(Compilation *c, const SspFlat *f)
{
	int bad = 0;
	NameIndex seen = {0}; /* the module's instance names so far */
	for (int i = 0; i < f->ncomps; i++) {
		const char *n = instance_name(c, f->comps[i].name);
		if (!is_identifier(n)) {
			diag_error(c->diag, f->comps[i].elem->loc, "cannot import: instance name '%s' is "
			           "not an identifier of the scenario language", n);
			bad = 1;
		}
		int j = name_index_find(&seen, n);
		if (j >= 0) {
			diag_error(c->diag, f->comps[i].elem->loc, "cannot import: instances '%s' and "
			           "'%s' would both be named '%s'", f->comps[j].name, f->comps[i].name,
			           n);
			bad = 1;
		} else if (name_index_add(&seen, n, i) != 0) {
			diag_error(c->diag, f->comps[i].elem->loc, "out of memory");
			bad = 1;
			break;
		}
	}
	name_index_free(&seen);
	for (int i = 0; i < f->nlinks; i++) {
		const SspFlatLink *l = &f->links[i];
		const char *sv = f->comps[l->src_comp].info->vars[l->src_var].name;
		const char *dv = f->comps[l->dst_comp].info->vars[l->dst_var].name;
		if (!is_identifier(sv) || !is_identifier(dv)) {
			diag_error(c->diag, l->last->loc, "cannot import: variable '%s' is not an "
			           "identifier of the scenario language", is_identifier(sv) ? dv : sv);
			bad = 1;
		} else if (!plain_link(c, f, l)) {
			diag_error(c->diag, l->last->loc, "cannot import: the connection into '%s.%s' "
			           "%s, which a scenario module cannot say", f->comps[l->dst_comp].name, dv,
			           l->cv.nmap ? "maps values"
			           : l->cv.scale != l->cv.unit_scale || l->cv.offset != l->cv.unit_offset
			           ? "transforms values (a LinearTransformation)"
			           : "converts units other than as the FMUs' declared units do");
			diag_note(c->diag, l->last->loc, "sacc simulate runs the SSP as it is");
			bad = 1;
		}
	}
	return bad;
}

static void write_module(FILE *out, Compilation *c, const SspModel *m, const SspFlat *f,
                         const char **files, const char *module)
{
	fprintf(out, "// %s: imported from %s by sacc ssp import.\n", module, m->path);
	if (!isnan(m->start) || !isnan(m->stop))
		fprintf(out, "//\n// The SSD's DefaultExperiment: run with%s%s%s%s.\n",
		        isnan(m->start) ? "" : " --start ", isnan(m->start) ? "" : FMT_REAL(m->start),
		        isnan(m->stop) ? "" : " --stop ", isnan(m->stop) ? "" : FMT_REAL(m->stop));
	if (f->nstarts) {
		fprintf(out, "//\n// The parameter values the SSP binds: run with\n//  ");
		for (int i = 0; i < f->nstarts; i++)
			fprintf(out, " --set %s.%s=%s", instance_name(c, f->comps[f->starts[i].comp].name),
			        f->comps[f->starts[i].comp].info->vars[f->starts[i].var].name,
			        FMT_REAL(f->starts[i].value));
		fputc('\n', out);
	}
	/* a module cannot choose an interface: the command line does (an FMU offering only
	 * Model Exchange runs so anyway) */
	bool any_me = false;
	for (int i = 0; i < f->ncomps; i++) {
		if (f->comps[i].elem->implementation != SSP_IMPL_ME || fmu_me_by_default(f->comps[i].info))
			continue;
		fprintf(out, "%s --interface %s=me", any_me ? "" : "//\n// The components the SSP runs "
		        "as Model Exchange: run with\n//  ", instance_name(c, f->comps[i].name));
		any_me = true;
	}
	if (any_me)
		fputc('\n', out);
	for (int i = 0; i < f->noutputs; i++)
		fprintf(out, "%s//   output %s is %s.%s\n", i ? "" : "//\n// The top system's outputs:\n",
		        f->outputs[i].name, instance_name(c, f->comps[f->outputs[i].comp].name),
		        f->comps[f->outputs[i].comp].info->vars[f->outputs[i].var].name);
	fprintf(out, "module %s\n\n", module);
	for (int i = 0; i < f->ncomps; i++) {
		const char *type = f->comps[i].info->model_identifier;
		fprintf(out, "fmu %s %s at \"%s\"\n", is_identifier(type) ? type : "FMU",
		        instance_name(c, f->comps[i].name), files[i]);
	}
	if (f->nlinks)
		fputc('\n', out);
	for (int i = 0; i < f->nlinks; i++) {
		const SspFlatLink *l = &f->links[i];
		fprintf(out, "%s.%s -> %s.%s\n", instance_name(c, f->comps[l->src_comp].name),
		        f->comps[l->src_comp].info->vars[l->src_var].name,
		        instance_name(c, f->comps[l->dst_comp].name),
		        f->comps[l->dst_comp].info->vars[l->dst_var].name);
	}
}

int ssp_import_main(Compilation *c, SspArgs *a)
{
	if (a->noperands != 1)
		return cli_usage_error("import: expected one SYSTEM.ssp or SYSTEM.ssd, got %d",
		                       a->noperands);
	if (!a->out)
		return cli_usage_error("import: -o DIR is required");
	if (a->sets.n)
		return cli_usage_error("import: --set belongs to export");
	const char *path = a->operands[0];
	if (!ssp_is_path(path))
		return cli_usage_error("import: '%s' is neither an .ssp nor an .ssd", path);
	SspModel *m = ssp_read(c, path);
	SspFlat f;
	int rc = 1;
	if (!m || ssp_flatten(m, false, &f) || check_expressible(c, &f))
		goto done;
	if (mkdir(a->out, 0777) != 0 && errno != EEXIST) {
		cli_error("import: cannot make %s: %s", a->out, strerror(errno));
		goto done;
	}
	const char *module = instance_name(c, m->root->name);
	if (!is_identifier(module))
		module = "system";
	const char **files = fmu_files(c, &f);
	if (!files) {
		cli_error("import: out of memory");
		goto done;
	}
	NameIndex copied = {0}; /* the files written to DIR */
	bool copied_all = true;
	for (int i = 0; copied_all && i < f.ncomps; i++) {
		if (name_index_find(&copied, files[i]) >= 0)
			continue;
		if (name_index_add(&copied, files[i], i) != 0) {
			cli_error("import: out of memory");
			copied_all = false;
		} else {
			copied_all = !import_file(f.comps[i].fmu_path,
			                          arena_printf(c->arena, "%s/%s", a->out, files[i]));
		}
	}
	name_index_free(&copied);
	if (!copied_all)
		goto done;
	const char *sa = arena_printf(c->arena, "%s/%s.sa", a->out, module);
	FILE *out = fopen(sa, "w");
	if (!out) {
		cli_error("import: cannot write %s: %s", sa, strerror(errno));
		goto done;
	}
	write_module(out, c, m, &f, files, module);
	if (fclose(out) != 0) {
		cli_error("import: cannot write %s: %s", sa, strerror(errno));
		goto done;
	}
	if (f.nstarts || f.noutputs || !isnan(m->start) || !isnan(m->stop))
		fprintf(stderr, "%s: import: %s: the parameter values, the DefaultExperiment and the "
		        "top system's outputs are in its opening comment (run options, not "
		        "scenario)\n", cli_prog(), sa);
	rc = 0;
done:
	ssp_free(m);
	return rc;
}
