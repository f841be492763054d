/* ssp_flat.c — an SspModel as a master sees it (SspFlat, ssp.h).
 *
 * Every FMU input (and parameter) is traced back through the connections to what feeds
 * it: through a nested system's output connector into that system, through a system's own
 * input connector out to its parent, until an FMU output (a link) or a system connector
 * that a parameter binding gives a value (a start value).  Along the way each hop's unit
 * conversion (between the units of its two connectors, unless suppressUnitConversion) and
 * transformation are folded into one SspConvert, in the order the value travels.
 *
 * Parameter bindings are applied deepest first and, on one level, in document order, so
 * that a later binding and a higher level win, as the standard says.  A name is prefixed,
 * mapped (ssm), then resolved: on a component, an FMU variable; on a system, its own
 * connector or ELEMENT.NAME inside one of its elements. */
#include "ssp_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"

enum { MAX_HOPS = 256 };

typedef struct Scope {
	SspElement *sys;
	const char *prefix;   /* "" for the top system, "sub." inside sub */
	const struct Scope *parent;
} Scope;

/* A value bound to a system's connector. */
typedef struct SysValue {
	const SspElement *sys;
	const SspConnector *k;
	double value;
	const char *text;
	const SspParam *origin;
} SysValue;

typedef struct Hop {
	const SspConnection *cn;
	const SspElement *from_owner, *to_owner; /* NULL: the system's own connector */
	const SspConnector *from, *to;
} Hop;

/* Where a traced value comes from. */
/* SRC_TOP: an input connector of the top system, which the composite FMU's input feeds. */
typedef enum SrcKind { SRC_NONE, SRC_FMU, SRC_SYSVALUE, SRC_TOP } SrcKind;

typedef struct Source {
	SrcKind kind;
	int comp, var;
	const SysValue *sv;
	const SspConnector *top; /* SRC_TOP */
} Source;

typedef struct Fl {
	Rd r;
	SspModel *m;
	bool no_unit_conversion;
	SspFlat *f;
	int capcomps, caplinks, capstarts, capouts, capins;
	SysValue *svals;
	int nsvals, capsvals;
} Fl;

/* ---- growing arrays (in the arena: the old copy is left there) ------------------------------ */

static void *grow(Fl *x, void *v, int n, int *cap, size_t size)
{
	if (n < *cap)
		return v;
	int nc = *cap ? 2 * *cap : 16;
	void *nv = arena_alloc(x->r.c->arena, (size_t)nc * size);
	if (n)
		memcpy(nv, v, (size_t)n * size);
	*cap = nc;
	return nv;
}

/* ---- components ------------------------------------------------------------------------------ */

static void collect_components(Fl *x, const Scope *sc)
{
	for (int i = 0; i < sc->sys->nelements; i++) {
		SspElement *e = &sc->sys->elements[i];
		if (e->kind == SSP_SYSTEM) {
			Scope sub = {e, arena_printf(x->r.c->arena, "%s%s.", sc->prefix, e->name), sc};
			collect_components(x, &sub);
			continue;
		}
		SspFlat *f = x->f;
		f->comps = grow(x, f->comps, f->ncomps, &x->capcomps, sizeof *f->comps);
		f->comps[f->ncomps++] = (SspFlatComponent){
			arena_printf(x->r.c->arena, "%s%s", sc->prefix, e->name), e, e->info,
			e->fmu_path};
	}
}

static int comp_of(const Fl *x, const SspElement *e)
{
	for (int i = 0; i < x->f->ncomps; i++)
		if (x->f->comps[i].elem == e)
			return i;
	return -1;
}

/* ---- units ----------------------------------------------------------------------------------- */

/* The unit of a connector: its own, else its FMU variable's; NULL when neither says. */
static const char *unit_of(const SspElement *owner, const SspConnector *k, const FmuInfo **md)
{
	*md = NULL;
	if (k->unit)
		return k->unit;
	const FmuVar *v = owner ? ssp_connector_var(owner, k) : NULL;
	if (v && v->unit) {
		*md = owner->info;
		return v->unit;
	}
	return NULL;
}

/* A unit name as SI base exponents, factor and offset: the SSD's definition, else the
 * model description's, else UDUNITS-2's.  false when nothing knows it. */
static bool unit_base(Fl *x, const char *name, const FmuInfo *md, const SspUnit *extra,
                      int nextra, int exp[8], double *factor, double *offset)
{
	const SspUnit *u = ssp_find_unit(x->m, name);
	for (int i = 0; !u && i < nextra; i++)
		if (strcmp(extra[i].name, name) == 0)
			u = &extra[i];
	if (u) {
		memcpy(exp, u->exp, sizeof u->exp);
		*factor = u->factor;
		*offset = u->offset;
		return true;
	}
	for (int i = 0; md && i < md->nunits; i++) {
		const FmuUnit *fu = &md->units[i];
		if (strcmp(fu->name, name) != 0 || !fu->has_base)
			continue;
		int e[8] = {fu->kg, fu->m, fu->s, fu->A, fu->K, fu->mol, fu->cd, fu->rad};
		memcpy(exp, e, sizeof e);
		*factor = fu->factor;
		*offset = fu->offset;
		return true;
	}
	UnitsBase b;
	UnitSystem *us = drv_units(x->r.c);
	if (us && units_base(us, name, &b) == UNITS_OK) {
		int e[8] = {b.kg, b.m, b.s, b.A, b.K, b.mol, b.cd, b.rad};
		memcpy(exp, e, sizeof e);
		*factor = b.factor;
		*offset = b.offset;
		return true;
	}
	return false;
}

/* The conversion from unit a to unit b: *scale and *offset.  A pair neither of which the
 * SSD defines converts as UDUNITS-2 converts it (as a scenario module's connection does);
 * otherwise through the base units.  Returns 0, or 1 after an error at where. */
static int unit_conversion(Fl *x, const char *a, const FmuInfo *amd, const char *b,
                           const FmuInfo *bmd, const SspUnit *extra, int nextra, Loc where,
                           double *scale, double *offset)
{
	UnitSystem *us = drv_units(x->r.c);
	bool ssd = ssp_find_unit(x->m, a) || ssp_find_unit(x->m, b);
	for (int i = 0; i < nextra; i++)
		ssd |= strcmp(extra[i].name, a) == 0 || strcmp(extra[i].name, b) == 0;
	if (!ssd && us) {
		UnitsResult ur = units_conversion(us, a, b, scale, offset);
		if (ur == UNITS_OK)
			return 0;
		if (ur == UNITS_INCOMMENSURABLE) {
			rd_error(&x->r, where, "incommensurable units: '%s' cannot be converted to '%s'",
			         a, b);
			return 1;
		}
	}
	int ea[8], eb[8];
	double fa, oa, fb, ob;
	if (!unit_base(x, a, amd, extra, nextra, ea, &fa, &oa) ||
	    !unit_base(x, b, bmd, extra, nextra, eb, &fb, &ob)) {
		rd_error(&x->r, where, "unknown unit '%s': define it under <ssd:Units>",
		         unit_base(x, a, amd, extra, nextra, ea, &fa, &oa) ? b : a);
		return 1;
	}
	if (memcmp(ea, eb, sizeof ea) != 0) {
		rd_error(&x->r, where, "incommensurable units: '%s' cannot be converted to '%s'", a, b);
		return 1;
	}
	*scale = fa / fb;
	*offset = (oa - ob) / fb;
	return 0;
}

/* ---- conversions ------------------------------------------------------------------------------ */

static void cv_linear(SspConvert *cv, double a, double b)
{
	cv->scale = a * cv->scale;
	cv->offset = a * cv->offset + b;
}

/* The enumeration value of item name in the enumeration of connector k (in any of the
 * SSD's enumerations when k names none); false when unknown. */
static bool enum_value(Fl *x, const SspConnector *k, const char *name, double *v)
{
	const char *which = k ? k->enumeration : NULL;
	for (int i = 0; i < x->m->nenums; i++) {
		const SspEnumeration *e = &x->m->enums[i];
		if (which && (!e->name || strcmp(e->name, which) != 0))
			continue;
		for (int j = 0; j < e->nitems; j++)
			if (e->items[j].name && strcmp(e->items[j].name, name) == 0) {
				*v = (double)e->items[j].value;
				return true;
			}
	}
	return false;
}

/* Folds a mapping transformation into cv: cv's map then tr's.  from/to are the connectors
 * it maps between (for enumeration items). */
static int cv_map(Fl *x, SspConvert *cv, const SspTransform *tr, const SspConnector *from,
                  const SspConnector *to)
{
	if (cv->scale != 1 || cv->offset != 0) {
		rd_error(&x->r, tr->loc, "a mapping after a linear transformation or a unit "
		         "conversion along one chain of connections is not supported");
		return 1;
	}
	int n = tr->nmap;
	double *mf = arena_alloc(x->r.c->arena, (size_t)n * sizeof *mf);
	double *mt = arena_alloc(x->r.c->arena, (size_t)n * sizeof *mt);
	for (int k = 0; k < n; k++) {
		const SspMapEntry *me = &tr->map[k];
		mf[k] = me->from;
		mt[k] = me->to;
		if (tr->kind != SSP_TR_ENUM_MAP)
			continue;
		if (!enum_value(x, from, me->source, &mf[k]) || !enum_value(x, to, me->target, &mt[k])) {
			bool src = !enum_value(x, from, me->source, &mf[k]);
			const SspConnector *kk = src ? from : to;
			rd_error(&x->r, me->loc, "enumeration item '%s' is not an item of %s%s%s",
			         src ? me->source : me->target, kk && kk->enumeration ? "enumeration '" :
			         "the connector's enumeration", kk && kk->enumeration ? kk->enumeration : "",
			         kk && kk->enumeration ? "'" : " (its connector names none)");
			return 1;
		}
	}
	/* compose: a value cv maps goes through both; any other through tr alone */
	int total = cv->nmap + n;
	double *cf = arena_alloc(x->r.c->arena, (size_t)total * sizeof *cf);
	double *ct = arena_alloc(x->r.c->arena, (size_t)total * sizeof *ct);
	int m = 0;
	for (int k = 0; k < cv->nmap; k++) {
		double t = cv->to[k];
		for (int j = 0; j < n; j++)
			if (mf[j] == t) {
				t = mt[j];
				break;
			}
		cf[m] = cv->from[k];
		ct[m++] = t;
	}
	for (int j = 0; j < n; j++) {
		bool shadowed = false;
		for (int k = 0; k < cv->nmap; k++)
			shadowed |= cv->from[k] == mf[j];
		if (!shadowed) {
			cf[m] = mf[j];
			ct[m++] = mt[j];
		}
	}
	cv->from = cf;
	cv->to = ct;
	cv->nmap = m;
	return 0;
}

double ssp_convert(const SspConvert *cv, double x)
{
	for (int k = 0; k < cv->nmap; k++)
		if (x == cv->from[k]) {
			x = cv->to[k];
			break;
		}
	return cv->scale * x + cv->offset;
}

/* ---- tracing ---------------------------------------------------------------------------------- */

static const SysValue *sys_value(const Fl *x, const SspElement *sys, const SspConnector *k)
{
	const SysValue *found = NULL;
	for (int i = 0; i < x->nsvals; i++)
		if (x->svals[i].sys == sys && x->svals[i].k == k)
			found = &x->svals[i]; /* the last assignment wins */
	return found;
}

static int trace_into(Fl *x, const Scope *sc, const SspElement *owner, const SspConnector *k,
                      Hop *hops, int *nhops, Source *src);

/* What feeds the start (owner, k) of a connection inside sc. */
static int trace_source(Fl *x, const Scope *sc, const SspElement *owner,
                        const SspConnector *k, Hop *hops, int *nhops, Source *src)
{
	if (!owner) { /* the system's own connector */
		const SysValue *sv = sys_value(x, sc->sys, k);
		if (sv || !sc->parent) {
			bool top = !sv && (k->kind == SSP_INPUT || k->kind == SSP_INOUT);
			*src = (Source){sv ? SRC_SYSVALUE : top ? SRC_TOP : SRC_NONE, -1, -1, sv,
			                top ? k : NULL};
			return 0;
		}
		return trace_into(x, sc->parent, sc->sys, k, hops, nhops, src);
	}
	if (owner->kind == SSP_COMPONENT) {
		const FmuVar *v = ssp_connector_var(owner, k);
		*src = (Source){SRC_FMU, comp_of(x, owner), v ? (int)(v - owner->info->vars) : -1, NULL,
		                NULL};
		return 0;
	}
	Scope sub = {(SspElement *)owner, arena_printf(x->r.c->arena, "%s%s.", sc->prefix,
	             owner->name), sc};
	return trace_into(x, &sub, NULL, k, hops, nhops, src);
}

/* What feeds the sink (owner, k) inside sc (owner NULL: the system's own output). */
static int trace_into(Fl *x, const Scope *sc, const SspElement *owner, const SspConnector *k,
                      Hop *hops, int *nhops, Source *src)
{
	/* the search starts at the first connection into k, when it is one of this list's */
	const SspConnection *first = k->into, *list = sc->sys->connections;
	int start = first && first >= list && first < list + sc->sys->nconnections
	                    ? (int)(first - list) : 0;
	for (int i = start; i < sc->sys->nconnections; i++) {
		const SspConnection *cn = &sc->sys->connections[i];
		bool here = owner ? cn->end_element && strcmp(cn->end_element, owner->name) == 0
		                  : !cn->end_element;
		if (!here || cn->end != k)
			continue;
		if (*nhops == MAX_HOPS) {
			rd_error(&x->r, cn->loc, "a chain of more than %d connections (a cycle through "
			         "system connectors?)", MAX_HOPS);
			return 1;
		}
		const SspElement *from = cn->start_element ? ssp_element(sc->sys, cn->start_element)
		                                           : NULL;
		hops[(*nhops)++] = (Hop){cn, from, owner, cn->start, k};
		return trace_source(x, sc, from, cn->start, hops, nhops, src);
	}
	*src = (Source){SRC_NONE, -1, -1, NULL, NULL};
	return 0;
}

/* The conversion along hops (collected from the sink back), starting in unit *unit
 * (updated to the unit at the sink). */
static int fold_hops(Fl *x, const Hop *hops, int nhops, const char *unit, const FmuInfo *umd,
                     SspConvert *cv)
{
	*cv = (SspConvert){NULL, NULL, 0, 1, 0, false, 1, 0, NULL, NULL};
	const char *first_unit = unit;
	for (int i = nhops - 1; i >= 0; i--) {
		const Hop *h = &hops[i];
		const FmuInfo *smd, *emd;
		const char *us = unit_of(h->from_owner, h->from, &smd);
		const char *ue = unit_of(h->to_owner, h->to, &emd);
		if (!us) {
			us = unit;
			smd = umd;
		}
		if (us && ue && strcmp(us, ue) != 0 && !h->cn->suppress_unit_conversion &&
		    !x->no_unit_conversion) {
			double a, b;
			if (unit_conversion(x, us, smd, ue, emd, NULL, 0, h->cn->loc, &a, &b))
				return 1;
			cv_linear(cv, a, b);
			if (!cv->converts_units)
				first_unit = us; /* where the first conversion starts, for --explain */
			cv->converts_units = true;
			cv->unit_scale = a * cv->unit_scale;
			cv->unit_offset = a * cv->unit_offset + b;
		}
		if (ue) {
			unit = ue;
			umd = emd;
		} else if (us) {
			unit = us;
			umd = smd;
		}
		const SspTransform *tr = &h->cn->tr;
		if (tr->kind == SSP_TR_LINEAR)
			cv_linear(cv, tr->factor, tr->offset);
		else if (tr->kind != SSP_TR_NONE && cv_map(x, cv, tr, h->from, h->to))
			return 1;
	}
	if (cv->converts_units) {
		cv->src_unit = first_unit;
		cv->dst_unit = unit;
	}
	return 0;
}

/* ---- the flat system's parts ------------------------------------------------------------------- */

static void add_start(Fl *x, int comp, int var, double value, const char *text,
                      const SspParam *origin)
{
	SspFlat *f = x->f;
	for (int i = 0; i < f->nstarts; i++)
		if (f->starts[i].comp == comp && f->starts[i].var == var) {
			f->starts[i] = (SspFlatStart){comp, var, value, text, origin};
			return;
		}
	f->starts = grow(x, f->starts, f->nstarts, &x->capstarts, sizeof *f->starts);
	f->starts[f->nstarts++] = (SspFlatStart){comp, var, value, text, origin};
}

/* One sink: an FMU's input or parameter connector, traced to what feeds it. */
static int flatten_sink(Fl *x, const Scope *sc, const SspElement *e, const SspConnector *k)
{
	Hop hops[MAX_HOPS];
	int nhops = 0;
	Source src;
	if (trace_into(x, sc, e, k, hops, &nhops, &src))
		return 1;
	if (src.kind == SRC_NONE)
		return 0;
	int dc = comp_of(x, e);
	const FmuVar *dv = ssp_connector_var(e, k);
	if (dc < 0 || !dv)
		return 0;
	int dvar = (int)(dv - e->info->vars);
	SspConvert cv;
	if (src.kind == SRC_SYSVALUE) {
		const FmuInfo *md;
		if (fold_hops(x, hops, nhops, unit_of(NULL, src.sv->k, &md), NULL, &cv))
			return 1;
		add_start(x, dc, dvar, ssp_convert(&cv, src.sv->value), src.sv->text, src.sv->origin);
		return 0;
	}
	if (src.kind == SRC_TOP) {
		if (dv->causality != CAUS_INPUT)
			return 0; /* a parameter fed by a top input: a master sets it once, at its start */
		if (fold_hops(x, hops, nhops, src.top->unit, NULL, &cv))
			return 1;
		SspFlat *f = x->f;
		f->inputs = grow(x, f->inputs, f->ninputs, &x->capins, sizeof *f->inputs);
		f->inputs[f->ninputs++] = (SspFlatInput){src.top, dc, dvar, cv, hops[0].cn};
		return 0;
	}
	const SspFlatComponent *sc_comp = &x->f->comps[src.comp];
	const FmuVar *sv = &sc_comp->info->vars[src.var];
	const FmuInfo *md;
	const SspConnector *sk = hops[nhops - 1].from;
	const char *u = unit_of(sc_comp->elem, sk, &md);
	if (fold_hops(x, hops, nhops, u, md, &cv))
		return 1;
	if (dv->causality != CAUS_INPUT || sv->causality != CAUS_OUTPUT) {
		rd_error(&x->r, hops[0].cn->loc, "%s '%s.%s' is fed by %s '%s.%s': sacc exchanges "
		         "values from FMU outputs to FMU inputs only", fmu_causality_name(dv->causality),
		         x->f->comps[dc].name, dv->name, fmu_causality_name(sv->causality),
		         sc_comp->name, sv->name);
		return 1;
	}
	SspFlat *f = x->f;
	f->links = grow(x, f->links, f->nlinks, &x->caplinks, sizeof *f->links);
	f->links[f->nlinks++] = (SspFlatLink){src.comp, src.var, dc, dvar, cv, hops[0].cn};
	return 0;
}

static int flatten_scope(Fl *x, const Scope *sc)
{
	int bad = 0;
	for (int i = 0; i < sc->sys->nelements; i++) {
		SspElement *e = &sc->sys->elements[i];
		if (e->kind == SSP_SYSTEM) {
			Scope sub = {e, arena_printf(x->r.c->arena, "%s%s.", sc->prefix, e->name), sc};
			bad |= flatten_scope(x, &sub);
			continue;
		}
		for (int j = 0; j < e->nconnectors; j++) {
			SspKind kd = e->connectors[j].kind;
			if (kd == SSP_INPUT || kd == SSP_PARAMETER || kd == SSP_STRUCTURAL_PARAMETER ||
			    kd == SSP_INOUT || kd == SSP_UNSPECIFIED)
				bad |= flatten_sink(x, sc, e, &e->connectors[j]);
		}
	}
	return bad;
}

static int flatten_outputs(Fl *x, const Scope *top)
{
	SspElement *s = top->sys;
	for (int j = 0; j < s->nconnectors; j++) {
		const SspConnector *k = &s->connectors[j];
		if (k->kind != SSP_OUTPUT)
			continue;
		Hop hops[MAX_HOPS];
		int nhops = 0;
		Source src;
		if (trace_into(x, top, NULL, k, hops, &nhops, &src))
			return 1;
		if (src.kind != SRC_FMU || src.var < 0) {
			diag_warning(x->r.c->diag, k->loc, "output '%s' of the top system is fed by no "
			             "FMU output: it is not recorded", k->name);
			continue;
		}
		const SspFlatComponent *c = &x->f->comps[src.comp];
		const FmuInfo *md;
		SspConvert cv;
		const char *u = unit_of(c->elem, hops[nhops - 1].from, &md);
		if (fold_hops(x, hops, nhops, u, md, &cv))
			return 1;
		SspFlat *f = x->f;
		f->outputs = grow(x, f->outputs, f->noutputs, &x->capouts, sizeof *f->outputs);
		f->outputs[f->noutputs++] = (SspFlatOutput){k->name, src.comp, src.var, cv};
	}
	return 0;
}

/* ---- parameter bindings ----------------------------------------------------------------------- */

/* The value text of p as a number for a target of type t; false after an error. */
static bool param_number(Fl *x, const SspParam *p, SspType t, const SspConnector *k,
                         double *v)
{
	char *end;
	errno = 0;
	switch (t) {
	case SSP_T_REAL:
		*v = strtod(p->value, &end);
		if (*p->value && !*end && errno != ERANGE && isfinite(*v))
			return true;
		break;
	case SSP_T_INTEGER: {
		long long k2 = strtoll(p->value, &end, 10);
		*v = (double)k2;
		if (*p->value && !*end && errno != ERANGE)
			return true;
		break;
	}
	case SSP_T_BOOLEAN: {
		int b = ssp_parse_bool(p->value);
		*v = b;
		if (b >= 0)
			return true;
		break;
	}
	case SSP_T_ENUMERATION: {
		long long k2 = strtoll(p->value, &end, 10);
		*v = (double)k2;
		if ((*p->value && !*end) || enum_value(x, k, p->value, v))
			return true;
		break;
	}
	default:
		break;
	}
	rd_error(&x->r, p->loc, "parameter '%s': \"%s\" is not a%s %s value", p->name, p->value,
	         t == SSP_T_INTEGER || t == SSP_T_ENUMERATION ? "n" : "", ssp_type_word(t));
	return false;
}

/* The element of system s that name begins with, followed by a '.': the first of s's
 * elements when several do (an element's name may hold dots).  Looked up by each prefix
 * that ends before a dot, not by comparing name with every element: a parameter set for
 * ten thousand components would otherwise be quadratic. */
static SspElement *element_before_dot(const SspElement *s, const char *name)
{
	int best = -1;
	if (!s->element_index.cap) { /* no table (out of memory when reading): in order */
		for (int i = 0; i < s->nelements && best < 0; i++) {
			size_t n = strlen(s->elements[i].name);
			if (strncmp(name, s->elements[i].name, n) == 0 && name[n] == '.')
				best = i;
		}
		return best >= 0 ? &s->elements[best] : NULL;
	}
	char *prefix = strdup(name);
	if (!prefix)
		return NULL;
	for (char *dot = strchr(prefix, '.'); dot; dot = strchr(dot + 1, '.')) {
		*dot = '\0';
		int i = name_index_find(&s->element_index, prefix);
		*dot = '.';
		if (i >= 0 && (best < 0 || i < best))
			best = i;
	}
	free(prefix);
	return best >= 0 ? &s->elements[best] : NULL;
}

/* Applies parameter p, named name (prefixed and mapped; tr the mapping's transformation,
 * or NULL) to element e of scope sc. */
static void apply_param(Fl *x, SspElement *e, const char *name, const SspParam *p,
                        const SspMapping *mp, const SspBinding *b)
{
	SspElement *target = e;
	const char *rest = name;
	/* ELEMENT.NAME inside a system, as deep as it goes */
	while (target->kind == SSP_SYSTEM && !ssp_connector(target, rest)) {
		SspElement *in = element_before_dot(target, rest);
		if (!in)
			break;
		rest += strlen(in->name) + 1;
		target = in;
	}
	const SspConnector *k = target->kind == SSP_SYSTEM ? ssp_connector(target, rest) : NULL;
	const FmuVar *v = target->kind == SSP_COMPONENT && target->info
	                  ? fmu_find_var(target->info, rest) : NULL;
	if (!k && !v) {
		rd_error(&x->r, mp ? mp->loc : p->loc, "parameter '%s' is for no connector: %s '%s' "
		         "has no %s '%s'", name, target->kind == SSP_SYSTEM ? "system" : "component",
		         target->name, target->kind == SSP_SYSTEM ? "connector" : "variable", rest);
		Suggestion s;
		suggestion_init(&s, rest);
		for (int i = 0; i < target->nconnectors; i++)
			suggestion_offer(&s, target->connectors[i].name, true);
		for (int i = 0; target->info && i < target->info->nvars; i++)
			suggestion_offer(&s, target->info->vars[i].name, true);
		if (s.best)
			diag_note(x->r.c->diag, mp ? mp->loc : p->loc, "did you mean '%s'?", s.best);
		return;
	}
	if (!k && v)
		k = ssp_connector(target, rest);
	SspType t = v ? ssp_fmu_type(v) : k->type;
	if (t == SSP_T_STRING || t == SSP_T_BINARY || t == SSP_T_CLOCK) {
		diag_warning(x->r.c->diag, p->loc, "parameter '%s' is not set: sacc sets Real, "
		             "Integer, Boolean and Enumeration values only", name);
		return;
	}
	if (v) {
		bool settable = v->causality == CAUS_INPUT || v->causality == CAUS_PARAMETER ||
		                v->causality == CAUS_STRUCTURAL_PARAMETER ||
		                (v->causality != CAUS_INDEPENDENT && v->variability != VAR_CONSTANT &&
		                 (v->initial == INIT_EXACT || v->initial == INIT_APPROX));
		if (!settable) {
			rd_error(&x->r, p->loc, "parameter '%s': '%s.%s' cannot be set (a constant, a "
			         "computed variable or the independent variable)", name, target->name,
			         v->name);
			return;
		}
	}
	double value;
	if (!param_number(x, p, t == SSP_T_NONE ? p->type : t, k, &value))
		return;
	/* the parameter's unit into the target's, then the mapping's transformation */
	const FmuInfo *md = NULL;
	const char *tu = k ? unit_of(target->kind == SSP_COMPONENT ? target : NULL, k, &md)
	                   : (v->unit ? (md = target->info, v->unit) : NULL);
	if (p->unit && tu && strcmp(p->unit, tu) != 0 && !(mp && mp->suppress_unit_conversion) &&
	    !x->no_unit_conversion) {
		double a, bb;
		if (unit_conversion(x, p->unit, NULL, tu, md, b->units, b->nunits, p->loc, &a, &bb))
			return;
		value = a * value + bb;
	}
	if (mp && mp->tr.kind == SSP_TR_LINEAR) {
		value = mp->tr.factor * value + mp->tr.offset;
	} else if (mp && mp->tr.kind != SSP_TR_NONE) {
		SspConvert cv = {NULL, NULL, 0, 1, 0, false, 1, 0, NULL, NULL};
		if (cv_map(x, &cv, &mp->tr, k, k))
			return;
		value = ssp_convert(&cv, value);
	}
	if (v) {
		int comp = comp_of(x, target);
		add_start(x, comp, (int)(v - target->info->vars), value, p->value, p);
		return;
	}
	x->svals = grow(x, x->svals, x->nsvals, &x->capsvals, sizeof *x->svals);
	x->svals[x->nsvals++] = (SysValue){target, k, value, p->value, p};
}

static void apply_binding(Fl *x, SspElement *e, const SspBinding *b)
{
	for (int i = 0; i < b->nparams; i++) {
		const SspParam *p = &b->params[i];
		if (!p->name || !p->value)
			continue;
		const char *name = arena_printf(x->r.c->arena, "%s%s", b->prefix, p->name);
		const SspMapping *mp = NULL;
		for (int j = 0; j < b->nmappings; j++)
			if (b->mappings[j].source && strcmp(b->mappings[j].source, name) == 0)
				mp = &b->mappings[j];
		apply_param(x, e, mp ? mp->target : name, p, mp, b);
	}
}

/* Deepest first, then this element's own bindings in order: later and higher win. */
static int bind_parameters(Fl *x, const Scope *sc, SspElement *e)
{
	if (e->kind == SSP_SYSTEM)
		for (int i = 0; i < e->nelements; i++) {
			SspElement *in = &e->elements[i];
			Scope sub = {in, arena_printf(x->r.c->arena, "%s%s.", sc->prefix, in->name), sc};
			bind_parameters(x, in->kind == SSP_SYSTEM ? &sub : sc, in);
		}
	for (int i = 0; i < e->nbindings; i++)
		apply_binding(x, e, &e->bindings[i]);
	return 0;
}

int ssp_flatten(SspModel *m, bool no_unit_conversion, SspFlat *f)
{
	memset(f, 0, sizeof *f);
	Fl x = {.r = {.c = m->c, .m = m}, .m = m, .no_unit_conversion = no_unit_conversion,
	        .f = f};
	Scope top = {m->root, "", NULL};
	collect_components(&x, &top);
	bind_parameters(&x, &top, m->root);
	if (!x.r.errors)
		flatten_scope(&x, &top);
	if (!x.r.errors)
		flatten_outputs(&x, &top);
	return x.r.errors ? 1 : 0;
}
