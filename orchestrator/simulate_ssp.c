/* simulate_ssp.c — an SSP system as the scenario `sacc simulate` runs (simulate.h): read
 * and flattened by compiler/ssp/ (ssp.h), its instances become SimFmus as a scenario
 * module's fmu declarations do, its links SartConnections (the unit conversion and the
 * transformations of a chain folded into scale, offset and a value map), its parameter
 * bindings start values, and its top system's outputs columns of their own.  From there
 * the run is a scenario module's: --explain, loops, every master algorithm.
 *
 * Like simulate_scenario.c, not part of libsacc.a: it sees runtime/ headers. */
#include "simulate.h"

#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

static SartConnection conn_of(SartRef src, SartRef dst, const SspConvert *cv)
{
	return (SartConnection){src, dst, cv->scale, cv->offset, cv->from, cv->to, cv->nmap};
}

/* An array variable where a scalar is needed (what names the use): links between arrays
 * are element by element, parameter values and the system's outputs scalars.  Returns 1
 * after the error. */
static int array_refused(Sim *s, int comp, int var, const char *what)
{
	const SimFmu *fm = &s->fmus[comp];
	if (!fm->info->vars[var].ndims)
		return 0;
	char why[96];
	diag_error(s->c->diag, s->flat->comps[comp].elem->loc, "%s of '%s' names '%s', which is "
	           "%s: only links carry arrays (element by element)", what, fm->name,
	           fm->info->vars[var].name, sim_unsupported(&fm->info->vars[var], why, sizeof why));
	return 1;
}

int sim_load_ssp(Sim *s, const char *path, bool no_unit_conversion)
{
	Compilation *c = s->c;
	s->ssp = ssp_read(c, path);
	if (!s->ssp)
		return 1;
	SspFlat *f = arena_alloc(c->arena, sizeof *f);
	if (ssp_flatten(s->ssp, no_unit_conversion, f))
		return 1;
	s->flat = f;
	if (f->ncomps == 0) {
		diag_error(c->diag, s->ssp->root->loc, "system '%s' has no component: nothing to "
		           "simulate", s->ssp->root->name);
		return 1;
	}
	s->fmus = calloc((size_t)f->ncomps + 1, sizeof *s->fmus);
	s->conns = calloc((size_t)f->nlinks + 1, sizeof *s->conns);
	s->string_conns = calloc((size_t)f->nlinks + 1, sizeof *s->string_conns);
	s->starts = calloc((size_t)f->nstarts + 1, sizeof *s->starts);
	s->outputs = calloc((size_t)f->noutputs + 1, sizeof *s->outputs);
	if (!s->fmus || !s->conns || !s->string_conns || !s->starts || !s->outputs)
		return 1;
	for (int i = 0; i < f->ncomps; i++)
		if (sim_add_fmu(s, f->comps[i].name, f->comps[i].info, f->comps[i].elem->loc))
			return 1;
	for (int i = 0; i < f->nlinks; i++) {
		const SspFlatLink *l = &f->links[i];
		if (sim_add_conn(s, conn_of((SartRef){l->src_comp, l->src_var},
		                            (SartRef){l->dst_comp, l->dst_var}, &l->cv),
		                 l->last ? l->last->loc : f->comps[l->dst_comp].elem->loc))
			return 1;
	}
	for (int i = 0; i < f->nstarts; i++) {
		if (array_refused(s, f->starts[i].comp, f->starts[i].var, "a parameter binding"))
			return 1;
		s->starts[s->nstarts++] = (SartStart){{f->starts[i].comp, f->starts[i].var},
		                                      f->starts[i].value};
	}
	for (int i = 0; i < f->noutputs; i++) {
		const SspFlatOutput *o = &f->outputs[i];
		SartRef r = {o->comp, o->var};
		if (array_refused(s, o->comp, o->var, "the system's output connector"))
			return 1;
		s->outputs[s->noutputs++] = (SimColumn){o->name, r, conn_of(r, r, &o->cv),
		                                         o->cv.converts_units ? o->cv.dst_unit : NULL};
	}
	return 0;
}

static void print_convert(const SspConvert *cv, bool not_applied)
{
	if (cv->converts_units)
		printf(" [%s] -> [%s]", cv->src_unit, cv->dst_unit);
	if (cv->nmap) {
		printf(": map");
		for (int k = 0; k < cv->nmap; k++)
			printf("%s %s -> %s", k ? "," : "", FMT_REAL(cv->from[k]), FMT_REAL(cv->to[k]));
	}
	if (cv->scale != 1 || cv->offset != 0) {
		printf("%s x %s", cv->nmap ? ", then" : ":", FMT_REAL(cv->scale));
		if (cv->offset != 0)
			printf(" %s%s", cv->offset > 0 ? "+" : "", FMT_REAL(cv->offset));
	}
	if (not_applied && cv->converts_units)
		printf(" (units not converted: --no-unit-conversion)");
	putchar('\n');
}

void sim_print_ssp_conversions(const Sim *s, bool not_applied)
{
	const SspFlat *f = s->flat;
	int n = 0;
	for (int i = 0; i < f->nlinks; i++) {
		const SspFlatLink *l = &f->links[i];
		const SspConvert *cv = &l->cv;
		if (!cv->nmap && cv->scale == 1 && cv->offset == 0 && !cv->converts_units)
			continue;
		if (n++ == 0)
			printf("conversions and transformations:\n");
		printf("  %s.%s -> %s.%s", f->comps[l->src_comp].name,
		       f->comps[l->src_comp].info->vars[l->src_var].name, f->comps[l->dst_comp].name,
		       f->comps[l->dst_comp].info->vars[l->dst_var].name);
		print_convert(cv, not_applied);
	}
	for (int i = 0; i < f->noutputs; i++) {
		const SspFlatOutput *o = &f->outputs[i];
		if (!o->cv.nmap && o->cv.scale == 1 && o->cv.offset == 0 && !o->cv.converts_units)
			continue;
		if (n++ == 0)
			printf("conversions and transformations:\n");
		printf("  %s.%s -> output %s", f->comps[o->comp].name,
		       f->comps[o->comp].info->vars[o->var].name, o->name);
		print_convert(&o->cv, not_applied);
	}
	if (n == 0)
		printf("conversions and transformations: none\n");
	for (int i = 0; i < f->nstarts; i++)
		printf("%s  %s.%s := %s\n", i ? "" : "parameters:\n", f->comps[f->starts[i].comp].name,
		       f->comps[f->starts[i].comp].info->vars[f->starts[i].var].name,
		       FMT_REAL(f->starts[i].value));
}
