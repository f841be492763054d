/* ssp_export.c — `sacc ssp export` (see ssp_export.h): a checked scenario module written as
 * an SSP 1.0 archive.
 *
 * The SSD's element order is the one the SSP 1.0 schema fixes: the description holds System,
 * Units, DefaultExperiment; the system holds ParameterBindings, Elements, Connections; a
 * connector holds its type element (ssc:Real, ssc:Integer, ssc:Boolean, ssc:String), which
 * is left out for a type SSP 1.0 cannot name without more definitions (enumerations).
 * Attributes come in one fixed order and numbers in their shortest exact form, so the same
 * scenario always gives the same bytes; the archive is zipped reproducibly by zip.c. */
#include "ssp_export.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/xmlwriter.h>

#include "cli.h"
#include "numfmt.h"
#include "package.h"
#include "ssp_cli.h"
#include "units.h"
#include "util.h"
#include "version.h"

#define NS_SSD "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define NS_SSC "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define NS_SSV "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
#define SSV_ENTRY "resources/parameters.ssv"

typedef struct XComp {
	Node *decl;            /* its fmu declaration */
	FmuInfo *info;
	const char *resource;  /* "resources/<file>.fmu" */
} XComp;

typedef struct XSet {
	int comp;
	const FmuVar *var;
	const char *value;     /* as the ssv writes it */
} XSet;

typedef struct XUnit {
	const char *name;
	UnitsBase base;
	bool defined;          /* a definition was found: the connectors may name it */
} XUnit;

typedef struct Export {
	Compilation *c;
	Module *m;
	XComp *comps;
	int ncomps;
	/* the components by instance name, by FMU path and by resource, each to the first
	 * that has it: a look-up per connection end and per component, not a search through
	 * them all (quadratic over ten thousand) */
	NameIndex by_name, by_path, by_resource;
	XSet *sets;
	int nsets;
	XUnit *units;
	int nunits;
	xmlTextWriterPtr w;
	bool failed;
} Export;

/* ---- the scenario --------------------------------------------------------------------------- */

static int find_comp(const Export *x, const char *name)
{
	return name_index_find(&x->by_name, name);
}

/* Each FMU goes to resources/ under its file name; two different files of one name are
 * told apart by the instance that uses the second.  NULL when out of memory. */
static const char *resource_name(Export *x, int k)
{
	const char *file = x->comps[k].info->path;
	int same = name_index_find(&x->by_path, file);
	if (same >= 0)
		return x->comps[same].resource;
	const char *r = arena_printf(x->c->arena, "resources/%s", path_base(file));
	if (name_index_find(&x->by_resource, r) >= 0)
		r = arena_printf(x->c->arena, "resources/%s_%s", x->comps[k].decl->name,
		                 path_base(file));
	if (name_index_add(&x->by_path, file, k) != 0 ||
	    name_index_add(&x->by_resource, r, k) != 0)
		return NULL;
	return r;
}

static int load_scenario(Export *x, const char *path)
{
	Compilation *c = x->c;
	x->m = drv_load(c, path);
	if (!x->m || !x->m->root)
		return 1;
	drv_check(c, x->m);
	if (diag_errors(c->diag))
		return 1;
	int n = 0;
	for (Node *e = x->m->root->list2; e; e = e->next) {
		if (e->kind == ND_ADAPTATION) {
			diag_error(c->diag, e->loc, "'%s' is an adaptation: sacc ssp export writes a "
			           "scenario module (fmu declarations and connections)", e->name);
			diag_note(c->diag, e->loc, "build it with 'sacc build' and declare its .fmu in "
			          "a scenario");
			return 1;
		}
		n += e->kind == ND_FMU_DECL;
	}
	if (n == 0) {
		diag_error(c->diag, (Loc){x->m->path, 0, 0, 0}, "no fmu declared: nothing to export");
		return 1;
	}
	x->comps = arena_alloc(c->arena, (size_t)n * sizeof *x->comps);
	for (Node *e = x->m->root->list2; e; e = e->next) {
		if (e->kind != ND_FMU_DECL)
			continue;
		FmuInfo *info = e->info;
		if (!info) {
			const char *file = drv_find_fmu_file(x->c, x->m->dir, e->str);
			if (!file) {
				diag_error(c->diag, e->loc, "cannot find fmu '%s' at \"%s\"", e->name,
				           e->str);
				continue;
			}
			info = drv_open_fmu(c, file, e->loc);
			if (!info)
				continue;
		}
		if (strlen(info->path) < 4 || strcmp(info->path + strlen(info->path) - 4, ".fmu")) {
			diag_error(c->diag, e->loc, "fmu '%s' is a bare model description ('%s'); an "
			           "SSP carries the .fmu archive", e->name, info->path);
			continue;
		}
		x->comps[x->ncomps] = (XComp){e, info, NULL};
		x->comps[x->ncomps].resource = resource_name(x, x->ncomps);
		if (!x->comps[x->ncomps].resource ||
		    name_index_add(&x->by_name, e->name, x->ncomps) != 0) {
			diag_error(c->diag, e->loc, "out of memory");
			return 1;
		}
		x->ncomps++;
	}
	for (Node *e = x->m->root->list2; e; e = e->next) {
		if (e->kind != ND_CONNECTION)
			continue;
		Node *ends[2] = {e->lhs, e->rhs};
		for (int k = 0; k < 2; k++) {
			if (find_comp(x, ends[k]->owner) < 0 && !diag_errors(c->diag))
				diag_error(c->diag, ends[k]->loc, "'%s' is not an fmu declared in this "
				           "module: an SSP system connects its own components only",
				           ends[k]->owner);
			else if (strchr(ends[k]->name, '['))
				/* an SSP connection joins whole connectors */
				diag_error(c->diag, ends[k]->loc, "'%s.%s' is one element of an array: an "
				           "SSP system connects whole arrays only", ends[k]->owner,
				           ends[k]->name);
		}
	}
	return diag_errors(c->diag) ? 1 : 0;
}

/* ---- --set ---------------------------------------------------------------------------------- */

static bool settable(const FmuVar *v)
{
	return (v->causality == CAUS_PARAMETER || v->causality == CAUS_INPUT) &&
	       v->variability != VAR_CONSTANT && v->ndims == 0;
}

/* The value as the parameter set writes it, or NULL when it is not one of the type's. */
static const char *set_value(Export *x, const FmuVar *v, const char *val)
{
	char *end;
	switch (v->type) {
	case FT_REAL:
	case FT_FLOAT32: {
		errno = 0;
		double d = strtod(val, &end);
		if (!*val || *end || !isfinite(d))
			return NULL;
		char buf[FMT_REAL_MAX];
		fmt_real(buf, d == 0 ? 0.0 : d);
		return arena_strdup(x->c->arena, buf);
	}
	case FT_INTEGER: case FT_INT8: case FT_UINT8: case FT_INT16: case FT_UINT16:
	case FT_UINT32: case FT_INT64: case FT_UINT64: {
		errno = 0;
		long long l = strtoll(val, &end, 10);
		if (!*val || *end || errno)
			return NULL;
		return arena_printf(x->c->arena, "%lld", l);
	}
	case FT_BOOLEAN:
		if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
			return "true";
		if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
			return "false";
		return NULL;
	case FT_STRING:
		return val;
	default:
		return NULL;
	}
}

static int collect_sets(Export *x, const SspExportOptions *o)
{
	x->sets = arena_alloc(x->c->arena, (size_t)(o->nsets + 1) * sizeof *x->sets);
	for (int k = 0; k < o->nsets; k++) {
		const char *a = o->sets[k];
		const char *eq = strchr(a, '='), *dot = strchr(a, '.');
		if (!eq || !dot || dot > eq || dot == a || dot + 1 == eq)
			return cli_usage_error("--set: '%s' is not INSTANCE.VARIABLE=VALUE", a);
		const char *inst = arena_strndup(x->c->arena, a, (size_t)(dot - a));
		const char *var = arena_strndup(x->c->arena, dot + 1, (size_t)(eq - dot - 1));
		int f = find_comp(x, inst);
		if (f < 0)
			return cli_usage_error("--set %s: no fmu instance '%s' in the scenario", a, inst);
		const FmuVar *v = fmu_find_var(x->comps[f].info, var);
		if (!v)
			return cli_usage_error("--set %s: fmu '%s' has no variable '%s'", a, inst, var);
		if (!settable(v))
			return cli_usage_error("--set %s: '%s' is neither a parameter nor an input",
			                       a, var);
		const char *value = set_value(x, v, eq + 1);
		if (!value && (v->type == FT_ENUMERATION || v->type == FT_BINARY))
			return cli_usage_error("--set %s: only Real, Integer, Boolean and String "
			                       "values can be exported", a);
		if (!value)
			return cli_usage_error("--set %s: not a value of type %s", a,
			                       fmu_type_name(v->type));
		int at = x->nsets; /* a variable set twice takes the last value */
		for (int i = 0; i < x->nsets; i++)
			if (x->sets[i].comp == f && x->sets[i].var == v)
				at = i;
		x->sets[at] = (XSet){f, v, value};
		x->nsets += at == x->nsets;
	}
	return 0;
}

/* ---- units ---------------------------------------------------------------------------------- */

static XUnit *unit_of(Export *x, const char *name)
{
	for (int i = 0; i < x->nunits; i++)
		if (strcmp(x->units[i].name, name) == 0)
			return &x->units[i];
	return NULL;
}

/* The model description's BaseUnit where one of the FMUs defines the unit, else the
 * unit system's decomposition; a unit neither knows is left off its connectors. */
static void define_unit(Export *x, const char *name, const XComp *by)
{
	if (unit_of(x, name))
		return;
	XUnit *u = &x->units[x->nunits++];
	*u = (XUnit){name, {0}, false};
	for (int k = 0; k < x->ncomps && !u->defined; k++)
		for (int i = 0; i < x->comps[k].info->nunits; i++) {
			const FmuUnit *f = &x->comps[k].info->units[i];
			if (strcmp(f->name, name) != 0 || !f->has_base)
				continue;
			u->base = (UnitsBase){f->kg, f->m, f->s, f->A, f->K, f->mol, f->cd, f->rad,
			                      f->factor, f->offset};
			u->defined = true;
			break;
		}
	UnitSystem *us = u->defined ? NULL : drv_units(x->c);
	if (us && units_base(us, name, &u->base) == UNITS_OK)
		u->defined = true;
	if (!u->defined)
		diag_warning(x->c->diag, by->decl->loc, "unit '%s' of fmu '%s' has no base-unit "
		             "definition in its model description and is not known to the unit "
		             "system: its connectors are exported without a unit", name,
		             by->decl->name);
}

static bool exported(const FmuVar *v)
{
	if (v->ndims != 0)
		return false; /* SSP 1.0 connectors are scalars */
	switch (v->causality) {
	case CAUS_INPUT: case CAUS_OUTPUT: case CAUS_PARAMETER: case CAUS_CALCULATED_PARAMETER:
		return v->type != FT_CLOCK && v->type != FT_BINARY;
	default:
		return false;
	}
}

static void collect_units(Export *x)
{
	int cap = 0;
	for (int k = 0; k < x->ncomps; k++)
		cap += x->comps[k].info->nvars;
	x->units = arena_alloc(x->c->arena, (size_t)(cap + 1) * sizeof *x->units);
	for (int k = 0; k < x->ncomps; k++)
		for (int i = 0; i < x->comps[k].info->nvars; i++) {
			const FmuVar *v = &x->comps[k].info->vars[i];
			if (exported(v) && v->unit && (v->type == FT_REAL || v->type == FT_FLOAT32))
				define_unit(x, v->unit, &x->comps[k]);
		}
}

/* ---- writing XML ---------------------------------------------------------------------------- */

static void start(Export *x, const char *element)
{
	if (xmlTextWriterStartElement(x->w, BAD_CAST element) < 0)
		x->failed = true;
}

static void end(Export *x)
{
	if (xmlTextWriterEndElement(x->w) < 0)
		x->failed = true;
}

static void attr(Export *x, const char *name, const char *value)
{
	if (xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0)
		x->failed = true;
}

static void attr_real(Export *x, const char *name, double value)
{
	char buf[FMT_REAL_MAX];
	fmt_real(buf, value == 0 ? 0.0 : value);
	attr(x, name, buf);
}

static const char *kind_name(FmuCausality c)
{
	switch (c) {
	case CAUS_INPUT: return "input";
	case CAUS_OUTPUT: return "output";
	case CAUS_CALCULATED_PARAMETER: return "calculatedParameter";
	default: return "parameter";
	}
}

/* The connector's type element (SSP 1.0's ssc:TypeChoice), or NULL to leave it out. */
static const char *type_element(FmuType t)
{
	switch (t) {
	case FT_REAL: case FT_FLOAT32:
		return "ssc:Real";
	case FT_INTEGER: case FT_INT8: case FT_UINT8: case FT_INT16: case FT_UINT16:
	case FT_UINT32: case FT_INT64: case FT_UINT64:
		return "ssc:Integer";
	case FT_BOOLEAN:
		return "ssc:Boolean";
	case FT_STRING:
		return "ssc:String";
	default:
		return NULL;
	}
}

static void write_component(Export *x, const XComp *k)
{
	start(x, "ssd:Component");
	attr(x, "name", k->decl->name);
	attr(x, "type", "application/x-fmu-sharedlibrary");
	attr(x, "source", k->resource);
	/* the interface sacc runs the FMU through by default: a scenario module cannot choose */
	attr(x, "implementation", fmu_me_by_default(k->info) ? "ModelExchange" : "CoSimulation");
	start(x, "ssd:Connectors");
	for (int i = 0; i < k->info->nvars; i++) {
		const FmuVar *v = &k->info->vars[i];
		if (!exported(v))
			continue;
		start(x, "ssd:Connector");
		attr(x, "name", v->name);
		attr(x, "kind", kind_name(v->causality));
		if (v->description)
			attr(x, "description", v->description);
		const char *type = type_element(v->type);
		if (type) {
			start(x, type);
			XUnit *u = v->unit && !strcmp(type, "ssc:Real") ? unit_of(x, v->unit) : NULL;
			if (u && u->defined)
				attr(x, "unit", u->name);
			end(x);
		}
		end(x);
	}
	end(x);
	end(x);
}

static void write_connections(Export *x)
{
	bool any = false;
	for (Node *e = x->m->root->list2; e; e = e->next) {
		if (e->kind != ND_CONNECTION)
			continue;
		if (!any)
			start(x, "ssd:Connections");
		any = true;
		start(x, "ssd:Connection");
		attr(x, "startElement", e->lhs->owner);
		attr(x, "startConnector", e->lhs->name);
		attr(x, "endElement", e->rhs->owner);
		attr(x, "endConnector", e->rhs->name);
		end(x);
	}
	if (any)
		end(x);
}

static void write_units(Export *x)
{
	bool any = false;
	for (int i = 0; i < x->nunits; i++) {
		const XUnit *u = &x->units[i];
		if (!u->defined)
			continue;
		if (!any)
			start(x, "ssd:Units");
		any = true;
		start(x, "ssc:Unit");
		attr(x, "name", u->name);
		start(x, "ssc:BaseUnit");
		const char *names[8] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
		const int exps[8] = {u->base.kg, u->base.m, u->base.s, u->base.A, u->base.K,
		                     u->base.mol, u->base.cd, u->base.rad};
		for (int k = 0; k < 8; k++)
			if (exps[k] != 0)
				attr(x, names[k], arena_printf(x->c->arena, "%d", exps[k]));
		if (u->base.factor != 1)
			attr_real(x, "factor", u->base.factor);
		if (u->base.offset != 0)
			attr_real(x, "offset", u->base.offset);
		end(x);
		end(x);
	}
	if (any)
		end(x);
}

static const char *system_name(const Export *x)
{
	if (x->m->root->name)
		return x->m->root->name;
	const char *b = path_base(x->m->path);
	const char *dot = strrchr(b, '.');
	return dot && dot != b ? arena_strndup(x->c->arena, b, (size_t)(dot - b)) : b;
}

static void write_ssd(Export *x, const SspExportOptions *o)
{
	const char *name = system_name(x);
	start(x, "ssd:SystemStructureDescription");
	attr(x, "xmlns:ssd", NS_SSD);
	attr(x, "xmlns:ssc", NS_SSC);
	attr(x, "version", "1.0");
	attr(x, "name", name);
	attr(x, "generationTool", "sacc " SACC_VERSION);
	start(x, "ssd:System");
	attr(x, "name", name);
	if (x->nsets) {
		start(x, "ssd:ParameterBindings");
		start(x, "ssd:ParameterBinding");
		attr(x, "source", SSV_ENTRY);
		end(x);
		end(x);
	}
	start(x, "ssd:Elements");
	for (int k = 0; k < x->ncomps; k++)
		write_component(x, &x->comps[k]);
	end(x);
	write_connections(x);
	end(x);
	write_units(x);
	if (!isnan(o->start) || !isnan(o->stop)) {
		start(x, "ssd:DefaultExperiment");
		if (!isnan(o->start))
			attr_real(x, "startTime", o->start);
		if (!isnan(o->stop))
			attr_real(x, "stopTime", o->stop);
		end(x);
	}
	end(x);
}

static void write_ssv(Export *x, const SspExportOptions *o)
{
	(void)o;
	start(x, "ssv:ParameterSet");
	attr(x, "xmlns:ssv", NS_SSV);
	attr(x, "version", "1.0");
	attr(x, "name", "parameters");
	start(x, "ssv:Parameters");
	for (int i = 0; i < x->nsets; i++) {
		const XSet *s = &x->sets[i];
		start(x, "ssv:Parameter");
		attr(x, "name", arena_printf(x->c->arena, "%s.%s", x->comps[s->comp].decl->name,
		                             s->var->name));
		const char *type = type_element(s->var->type);
		start(x, arena_printf(x->c->arena, "ssv:%s", type + 4));
		attr(x, "value", s->value);
		end(x);
		end(x);
	}
	end(x);
	end(x);
}

/* One XML document written by body into the file path.  Returns 0, or 1 after a report. */
static int write_xml(Export *x, const SspExportOptions *o, const char *path,
                     void (*body)(Export *x, const SspExportOptions *o))
{
	xmlBufferPtr buf = xmlBufferCreate();
	x->w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	x->failed = !x->w;
	int rc = 1;
	if (x->w) {
		xmlTextWriterSetIndent(x->w, 1);
		xmlTextWriterSetIndentString(x->w, BAD_CAST "  ");
		if (xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL) < 0)
			x->failed = true;
		body(x, o);
		if (xmlTextWriterEndDocument(x->w) < 0)
			x->failed = true;
		xmlFreeTextWriter(x->w); /* flushes into buf */
	}
	x->w = NULL;
	FILE *f = x->failed ? NULL : fopen(path, "wb");
	if (f) {
		size_t n = (size_t)xmlBufferLength(buf);
		bool ok = fwrite(xmlBufferContent(buf), 1, n, f) == n;
		rc = fclose(f) == 0 && ok ? 0 : 1;
	}
	if (rc)
		diag_error(x->c->diag, (Loc){path, 0, 0, 0}, "cannot write: %s",
		           x->failed ? "out of memory" : strerror(errno));
	if (buf)
		xmlBufferFree(buf);
	return rc;
}

/* ---- the archive ---------------------------------------------------------------------------- */

/* A component's FMU into the archive.  0, or 1 after a message. */
static int copy_into_archive(Export *x, const char *from, const char *to)
{
	if (copy_file(from, to) == 0)
		return 0;
	diag_error(x->c->diag, (Loc){from, 0, 0, 0}, "cannot copy into the archive: %s",
	           strerror(errno));
	return 1;
}

static int write_archive(Export *x, const SspExportOptions *o)
{
	Arena *a = x->c->arena;
	const char *parent = path_dir(a, o->out);
	char *work = arena_printf(a, "%s/.sacc-ssp-XXXXXX", parent);
	if (!mkdtemp(work)) {
		diag_error(x->c->diag, (Loc){parent, 0, 0, 0}, "cannot make a work directory here: %s",
		           strerror(errno));
		return 1;
	}
	const char *tree = arena_printf(a, "%s/ssp", work);
	const char *zip = arena_printf(a, "%s/out.ssp", work);
	int rc = 1;
	if (mkdir(tree, 0755) != 0 || mkdir(arena_printf(a, "%s/resources", tree), 0755) != 0) {
		diag_error(x->c->diag, (Loc){work, 0, 0, 0}, "cannot create the directory: %s",
		           strerror(errno));
		goto done;
	}
	for (int k = 0; k < x->ncomps; k++) {
		const char *to = arena_printf(a, "%s/%s", tree, x->comps[k].resource);
		if (access(to, F_OK) != 0 && copy_into_archive(x, x->comps[k].info->path, to) != 0)
			goto done;
	}
	if (write_xml(x, o, arena_printf(a, "%s/SystemStructure.ssd", tree), write_ssd) != 0)
		goto done;
	if (x->nsets && write_xml(x, o, arena_printf(a, "%s/" SSV_ENTRY, tree), write_ssv) != 0)
		goto done;
	if (zip_write_dir(tree, zip, x->c->diag) != 0)
		goto done;
	if (rename(zip, o->out) != 0) {
		diag_error(x->c->diag, (Loc){o->out, 0, 0, 0}, "cannot write: %s", strerror(errno));
		goto done;
	}
	rc = 0;
done:
	if (zip_rmtree(work) != 0)
		diag_warning(x->c->diag, (Loc){work, 0, 0, 0}, "cannot remove the work directory: %s",
		             strerror(errno));
	return rc;
}

int ssp_export(Compilation *c, const char *path, const SspExportOptions *o)
{
	Export x = {.c = c};
	int rc = 1;
	if (load_scenario(&x, path) != 0)
		goto done;
	rc = collect_sets(&x, o);
	if (rc)
		goto done;
	collect_units(&x);
	rc = write_archive(&x, o) != 0 || diag_errors(c->diag) ? 1 : 0;
done:
	name_index_free(&x.by_name);
	name_index_free(&x.by_path);
	name_index_free(&x.by_resource);
	return rc;
}

int ssp_export_main(Compilation *c, SspArgs *a)
{
	if (a->noperands != 1)
		return cli_usage_error("export: expected one scenario module (SCENARIO.sa)");
	if (!a->out)
		return cli_usage_error("export: -o SYSTEM.ssp is required");
	SspExportOptions o = {a->out, a->sets.items, a->sets.n, a->start, a->stop};
	return ssp_export(c, a->operands[0], &o);
}
