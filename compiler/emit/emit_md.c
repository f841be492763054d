/* emit_md.c — the wrapper FMU's modelDescription.xml (FMI 2.0 Co-Simulation, and its FMI 3.0
 * variant at the end), written with libxml2's xmlTextWriter from the layout emit.c computed
 * (emit.h).
 *
 * The elements come in the order the FMI 2.0 schema fixes: CoSimulation, UnitDefinitions,
 * TypeDefinitions (only the enumeration types carried from the inners: every other variable
 * carries its own unit), LogCategories, DefaultExperiment (the inners', emit.h),
 * ModelVariables, ModelStructure.  Attributes are written in one fixed order and numbers in the
 * shortest form that reads back as the same double, so the same layout always gives the
 * same bytes.
 *
 * ModelStructure: Outputs lists every output with the inputs it depends on directly,
 * "dependent" (the rules are arbitrary functions), as emit_deps.c found them: none in a
 * Moore wrapper.  InitialUnknowns lists the outputs again (initial="calculated") with the
 * inputs the Init sequence makes them depend on, and the params, all of which are
 * initial="exact" knowns, since the INIT_ params give the storage its initial values.  Its
 * dependenciesKind is left to the default, "dependent", the only kind that applies to
 * every entry there. */
#include "emit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "numfmt.h"
#include "version.h"

/* The shortest decimal that reads back as v, through sacc's one formatter (numfmt.h): "10",
 * "0.1", "1e-07" (%.17g would write 0.01 as 0.01000000000000000021, and the fewest digits
 * of %g 10 as 1e+01). */
static void md_real(char buf[FMT_REAL_MAX], double v)
{
	if (v == 0.0)
		v = 0.0; /* never "-0" */
	fmt_real(buf, v);
}

typedef struct Md {
	xmlTextWriterPtr w;
	bool failed;
} Md;

static void start(Md *md, const char *element)
{
	if (xmlTextWriterStartElement(md->w, BAD_CAST element) < 0)
		md->failed = true;
}

static void end(Md *md)
{
	if (xmlTextWriterEndElement(md->w) < 0)
		md->failed = true;
}

static void attr(Md *md, const char *name, const char *value)
{
	if (xmlTextWriterWriteAttribute(md->w, BAD_CAST name, BAD_CAST value) < 0)
		md->failed = true;
}

static void attr_bool(Md *md, const char *name, bool value)
{
	attr(md, name, value ? "true" : "false");
}

static void attr_int(Md *md, const char *name, long long value)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", value);
	attr(md, name, buf);
}

static void attr_real(Md *md, const char *name, double value)
{
	char buf[FMT_REAL_MAX];
	md_real(buf, value);
	attr(md, name, buf);
}

static void comment(Md *md, const char *text)
{
	if (xmlTextWriterWriteComment(md->w, BAD_CAST text) < 0)
		md->failed = true;
}

static void write_cosimulation(Md *md, const EmitLayout *l)
{
	start(md, "CoSimulation");
	attr(md, "modelIdentifier", l->model_identifier);
	attr_bool(md, "canHandleVariableCommunicationStepSize", true);
	attr_bool(md, "canInterpolateInputs", l->reactive);
	attr_bool(md, "canBeInstantiatedOnlyOncePerProcess",
		  l->can_be_instantiated_only_once_per_process);
	attr_bool(md, "canGetAndSetFMUstate", l->can_get_and_set_fmu_state);
	attr_bool(md, "canSerializeFMUstate", l->can_serialize_fmu_state);
	/* The runtime allocates with malloc (and so do the inner FMUs it loads): the importer's
	 * allocateMemory/freeMemory are never called. */
	attr_bool(md, "canNotUseMemoryManagementFunctions", true);
	/* A source FMU too: the files an importer compiles when it has no binary for its
	 * platform (FMI 3.0 lists them in sources/buildDescription.xml instead). */
	if (l->nsource_files > 0) {
		start(md, "SourceFiles");
		for (int i = 0; i < l->nsource_files; i++) {
			start(md, "File");
			attr(md, "name", l->source_files[i]);
			end(md);
		}
		end(md);
	}
	end(md);
}

static void write_units(Md *md, const EmitLayout *l)
{
	if (l->nunits == 0)
		return;
	start(md, "UnitDefinitions");
	for (int i = 0; i < l->nunits; i++) {
		const EmitUnit *u = &l->units[i];
		start(md, "Unit");
		attr(md, "name", u->name);
		if (u->has_base) {
			const UnitsBase *b = &u->base;
			const struct {
				const char *name;
				int exp;
			} exps[] = {{"kg", b->kg}, {"m", b->m},     {"s", b->s},   {"A", b->A},
			            {"K", b->K},   {"mol", b->mol}, {"cd", b->cd}, {"rad", b->rad}};
			start(md, "BaseUnit");
			for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++)
				if (exps[k].exp != 0)
					attr_int(md, exps[k].name, exps[k].exp);
			if (b->factor != 1.0)
				attr_real(md, "factor", b->factor);
			if (b->offset != 0.0)
				attr_real(md, "offset", b->offset);
			end(md);
		}
		end(md);
	}
	end(md);
}

/* The inners' common DefaultExperiment (emit.h), when they declare one: a stop before the
 * start is left out. */
static void write_default_experiment(Md *md, const EmitLayout *l)
{
	bool stop = !isnan(l->default_stop) &&
	            (isnan(l->default_start) || l->default_stop >= l->default_start);
	if (isnan(l->default_start) && !stop && isnan(l->default_step))
		return;
	start(md, "DefaultExperiment");
	if (!isnan(l->default_start))
		attr_real(md, "startTime", l->default_start);
	if (stop)
		attr_real(md, "stopTime", l->default_stop);
	if (!isnan(l->default_step))
		attr_real(md, "stepSize", l->default_step);
	end(md);
}

/* text with every "fmi2" (a function or status named in it) made the prefix of the FMI
 * version written, fmi ("fmi2" or "fmi3"). */
static const char *in_version(Compilation *c, const char *text, const char *fmi)
{
	char *out = arena_strdup(c->arena, text);
	for (char *p = strstr(out, "fmi2"); p; p = strstr(p + 4, "fmi2"))
		memcpy(p, fmi, 4);
	return out;
}

static void write_log_categories(Md *md, Compilation *c, const char *fmi)
{
	start(md, "LogCategories");
	for (const EmitLogCategory *k = emit_log_categories; k->name; k++) {
		start(md, "Category");
		attr(md, "name", k->name);
		attr(md, "description", in_version(c, k->description, fmi));
		end(md);
	}
	end(md);
}

/* The enumeration types the wrapper's variables carry from its inners: FMI 2.0's
 * SimpleType with an Enumeration child, FMI 3.0's EnumerationType, each with the inner's
 * items as they are. */
static void write_type_definitions(Md *md, const EmitLayout *l, bool fmi3)
{
	if (!l->nenums)
		return;
	start(md, "TypeDefinitions");
	for (int i = 0; i < l->nenums; i++) {
		const FmuTypeDef *td = l->enums[i].def;
		start(md, fmi3 ? "EnumerationType" : "SimpleType");
		attr(md, "name", l->enums[i].name);
		if (!fmi3)
			start(md, "Enumeration");
		if (td->quantity)
			attr(md, "quantity", td->quantity);
		for (int k = 0; k < td->nitems; k++) {
			start(md, "Item");
			attr(md, "name", td->items[k].name ? td->items[k].name : "");
			attr_int(md, "value", td->items[k].value);
			if (td->items[k].description)
				attr(md, "description", td->items[k].description);
			end(md);
		}
		if (!fmi3)
			end(md);
		end(md);
	}
	end(md);
}

/* The declared type of an Integer that carries an inner's Enumeration, else NULL. */
static const char *enum_of(const EmitLayout *l, const EmitVar *v)
{
	return v->enumeration ? l->enums[v->enumeration - 1].name : NULL;
}

static const char *type_element(SaType t)
{
	switch (t) {
	case TY_INTEGER: return "Integer";
	case TY_BOOL: return "Boolean";
	case TY_STRING: return "String";
	default: return "Real";
	}
}

static void write_variable(Md *md, const EmitLayout *l, const EmitVar *v)
{
	start(md, "ScalarVariable");
	attr(md, "name", v->name);
	attr_int(md, "valueReference", v->vr);
	if (v->description)
		attr(md, "description", v->description);
	attr(md, "causality", fmu_causality_name(v->causality));
	attr(md, "variability", fmu_variability_name(v->variability));
	if (v->initial != INIT_UNSET)
		attr(md, "initial", fmu_initial_name(v->initial));
	start(md, enum_of(l, v) ? "Enumeration" : type_element(v->type));
	if (enum_of(l, v))
		attr(md, "declaredType", enum_of(l, v));
	if (v->unit)
		attr(md, "unit", v->unit);
	if (v->has_start) {
		switch (v->type) {
		case TY_INTEGER: attr_int(md, "start", v->start.i); break;
		case TY_BOOL: attr_bool(md, "start", v->start.b); break;
		case TY_STRING: attr(md, "start", v->start.s ? v->start.s : ""); break;
		default: attr_real(md, "start", v->start.r); break;
		}
	}
	end(md);
	end(md);
}

/* The dependencies of one output: the inputs among ds in ScalarVariable order, then (for an
 * InitialUnknown) every param, and as many "dependent"s in kinds. */
static void index_list(StrBuf *deps, StrBuf *kinds, const EmitLayout *l, const EmitDeps *ds,
		       bool initial)
{
	for (int k = 0; k < ds->n; k++)
		if (ds->src[k] < l->ninputs) {
			sb_printf(deps, "%s%d", deps->len ? " " : "", emit_inputs(l)[ds->src[k]].index);
			sb_printf(kinds, "%sdependent", kinds->len ? " " : "");
		}
	for (int i = 0; initial && i < l->nparams; i++)
		sb_printf(deps, "%s%d", deps->len ? " " : "", emit_params(l)[i].index);
}

static void write_unknowns(Md *md, const EmitLayout *l, const char *element, bool initial)
{
	start(md, element);
	for (int i = 0; i < l->noutputs; i++) {
		const EmitVar *o = &emit_outputs(l)[i];
		StrBuf deps, kinds;
		sb_init(&deps);
		sb_init(&kinds);
		index_list(&deps, &kinds, l, initial ? &o->init_deps : &o->deps, initial);
		start(md, "Unknown");
		attr_int(md, "index", o->index);
		attr(md, "dependencies", sb_str(&deps));
		if (deps.len && !initial)
			attr(md, "dependenciesKind", sb_str(&kinds));
		end(md);
		sb_free(&deps);
		sb_free(&kinds);
	}
	end(md);
}

/* The FMI 2.0 document's root and everything in it. */
static void write_fmi2(Md *md, Compilation *c, const EmitLayout *l)
{
	start(md, "fmiModelDescription");
	attr(md, "fmiVersion", "2.0");
	attr(md, "modelName", l->model_name);
	attr(md, "guid", l->guid);
	attr(md, "description", l->description);
	attr(md, "generationTool", "sacc " SACC_VERSION);
	/* The inners' parameters are named "<inner>.<name>": a hierarchy. */
	attr(md, "variableNamingConvention", l->ninner_params ? "structured" : "flat");
	attr(md, "numberOfEventIndicators", "0");
	write_cosimulation(md, l);
	write_units(md, l);
	write_type_definitions(md, l, false);
	write_log_categories(md, c, "fmi2");
	write_default_experiment(md, l);
	start(md, "ModelVariables");
	for (int i = 0; i < l->nvars; i++) {
		char index[32];
		snprintf(index, sizeof index, " index %d ", l->vars[i].index);
		comment(md, index);
		write_variable(md, l, &l->vars[i]);
	}
	end(md);
	start(md, "ModelStructure");
	if (l->noutputs) {
		write_unknowns(md, l, "Outputs", false);
		write_unknowns(md, l, "InitialUnknowns", true);
	}
	end(md);
	end(md);
}

/* A model description: the XML declaration, the banner, what root writes, in malloc'd
 * memory; NULL after a report. */
static char *write_document(Compilation *c, const EmitLayout *l, size_t *len,
			    void (*root)(Md *md, Compilation *c, const EmitLayout *l))
{
	xmlBufferPtr buf = xmlBufferCreate();
	Md md = {buf ? xmlNewTextWriterMemory(buf, 0) : NULL, false};
	char *out = NULL;
	if (!md.w) {
		md.failed = true;
		goto done;
	}
	xmlTextWriterSetIndent(md.w, 1);
	xmlTextWriterSetIndentString(md.w, BAD_CAST "  ");
	if (xmlTextWriterStartDocument(md.w, "1.0", "UTF-8", NULL) < 0)
		md.failed = true;
	comment(&md, arena_printf(c->arena, " Generated by sacc " SACC_VERSION " from adaptation "
				  "%s (%s). Do not edit: run sacc emit again. ", l->model_name,
				  l->source));
	root(&md, c, l);
	if (xmlTextWriterEndDocument(md.w) < 0)
		md.failed = true;
	xmlFreeTextWriter(md.w); /* flushes into buf */
	md.w = NULL;
	if (!md.failed) {
		size_t n = (size_t)xmlBufferLength(buf);
		out = malloc(n + 1);
		if (out) {
			memcpy(out, xmlBufferContent(buf), n);
			out[n] = '\0';
			if (len)
				*len = n;
		}
	}
done:
	if (md.w)
		xmlFreeTextWriter(md.w);
	if (buf)
		xmlBufferFree(buf);
	if (!out)
		diag_error(c->diag, l->sa->loc, "cannot write the model description of '%s'",
			   l->model_name);
	return out;
}

char *emit_md_buffer(Compilation *c, const EmitLayout *l, size_t *len)
{
	if (l->narrays && emit_refuse_arrays_fmi2(c, l))
		return NULL;
	return write_document(c, l, len, write_fmi2);
}

static int write_file(Compilation *c, const char *path, char *xml, size_t len)
{
	if (!xml)
		return 1;
	int rc = 0;
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(xml, 1, len, f) != len) {
		diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write: %s", strerror(errno));
		rc = 1;
	}
	if (f && fclose(f) != 0 && rc == 0) {
		diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write: %s", strerror(errno));
		rc = 1;
	}
	free(xml);
	return rc;
}

int emit_md_to_file(Compilation *c, const EmitLayout *l, const char *path)
{
	size_t len = 0;
	char *xml = emit_md_buffer(c, l, &len);
	return write_file(c, path, xml, len);
}

/* ---- FMI 3.0 --------------------------------------------------------------------------------
 *
 * The same layout as FMI 3.0 wants it.  Value references are unique across all variables
 * there, where the layout numbers each type from 0: the Reals keep theirs (0..R-1), the
 * independent variable `time` is R, the Integers follow from R+1 and the Booleans after
 * them; the FMI 3.0 skin (runtime/sart_fmi3.c) takes the same offsets off.  Reals are
 * Float64, Integers Int32 (the runtime keeps them as int), Bools Boolean.  Dependencies
 * name value references, not indices.  The wrapper has no Event Mode; a step the control
 * rules cut short may end early (mightReturnEarlyFromDoStep). */

uint32_t emit_vr3(const EmitLayout *l, SaType type, uint32_t vr)
{
	switch (type) {
	case TY_INTEGER: return l->nreal + 1 + vr;
	case TY_BOOL: return l->nreal + 1 + l->ninteger + vr;
	case TY_STRING: return l->nreal + 1 + l->ninteger + l->nboolean + vr;
	default: return vr;
	}
}

/* The variable's FMI 3.0 value reference. */
static uint32_t vr3(const EmitLayout *l, const EmitVar *v)
{
	return emit_vr3(l, v->type, v->vr);
}

static void write_cosimulation3(Md *md, const EmitLayout *l)
{
	start(md, "CoSimulation");
	attr(md, "modelIdentifier", l->model_identifier);
	attr_bool(md, "canBeInstantiatedOnlyOncePerProcess",
		  l->can_be_instantiated_only_once_per_process);
	attr_bool(md, "canGetAndSetFMUState", l->can_get_and_set_fmu_state);
	attr_bool(md, "canSerializeFMUState", l->can_serialize_fmu_state);
	attr_bool(md, "canHandleVariableCommunicationStepSize", true);
	attr_bool(md, "mightReturnEarlyFromDoStep", true);
	attr_bool(md, "canReturnEarlyAfterIntermediateUpdate", false);
	attr_bool(md, "hasEventMode", false);
	end(md);
}

static const char *type_element3(SaType t)
{
	switch (t) {
	case TY_INTEGER: return "Int32";
	case TY_BOOL: return "Boolean";
	case TY_STRING: return "String";
	default: return "Float64";
	}
}

/* An array's start values, its elements' in row-major order (emit_arrays.c). */
static void attr_array_start(Md *md, const EmitVar *v)
{
	StrBuf b;
	sb_init(&b);
	for (int k = 0; k < v->elems; k++) {
		char buf[FMT_REAL_MAX > 40 ? FMT_REAL_MAX : 40];
		const EmitValue *x = &v[k].start;
		if (v->type == TY_REAL)
			md_real(buf, x->r);
		else if (v->type == TY_BOOL)
			snprintf(buf, sizeof buf, "%s", x->b ? "true" : "false");
		else
			snprintf(buf, sizeof buf, "%lld", x->i);
		sb_printf(&b, "%s%s", k ? " " : "", buf);
	}
	attr(md, "start", sb_str(&b));
	sb_free(&b);
}

static void write_variable3(Md *md, const EmitLayout *l, const EmitVar *v)
{
	if (v->elems < 0)
		return; /* declared with the array's first element */
	start(md, enum_of(l, v) ? "Enumeration" : type_element3(v->type));
	attr(md, "name", v->elems ? v->array_name : v->name);
	attr_int(md, "valueReference", vr3(l, v));
	if (v->description)
		attr(md, "description", v->description);
	if (enum_of(l, v))
		attr(md, "declaredType", enum_of(l, v));
	attr(md, "causality", fmu_causality_name(v->causality));
	attr(md, "variability", fmu_variability_name(v->variability));
	if (v->initial != INIT_UNSET)
		attr(md, "initial", fmu_initial_name(v->initial));
	if (v->unit && v->type == TY_REAL)
		attr(md, "unit", v->unit);
	if (v->has_start && v->elems > 0 && v->type != TY_STRING)
		attr_array_start(md, v);
	else if (v->has_start) {
		switch (v->type) {
		case TY_INTEGER: attr_int(md, "start", v->start.i); break;
		case TY_BOOL: attr_bool(md, "start", v->start.b); break;
		case TY_STRING: break; /* a child element, below */
		default: attr_real(md, "start", v->start.r); break;
		}
	}
	for (int d = 0; d < v->ndims; d++) {
		start(md, "Dimension");
		attr_int(md, "start", v->dims[d]);
		end(md);
	}
	/* FMI 3.0 gives a String's start as <Start value=".."/> children after its Dimensions,
	 * one per element of an array (row-major), not as an attribute */
	for (int k = 0; v->has_start && v->type == TY_STRING && k < (v->elems > 0 ? v->elems : 1);
	     k++) {
		start(md, "Start");
		attr(md, "value", v[k].start.s ? v[k].start.s : "");
		end(md);
	}
	end(md);
}

/* An inner's Binary port forwarded (EmitLayout.binaries): numbered after the Strings, with
 * the inner's mimeType and the wrapper's maxSize, an input's start in hexadecimal as the
 * inner gives it. */
static void write_binary3(Md *md, const EmitLayout *l, const EmitBinary *b)
{
	if (b->elem > 1)
		return; /* declared with the array's first element */
	start(md, "Binary");
	attr(md, "name", b->elem ? b->array_name : b->name);
	attr_int(md, "valueReference", emit_binary_vr3(l, b));
	char why[160];
	snprintf(why, sizeof why, "forwarded %s the Binary %s of inner fmu '%s'",
	         b->is_input ? "to" : "from", b->is_input ? "input" : "output", b->inner->name);
	attr(md, "description", b->var->description ? b->var->description : why);
	attr(md, "causality", b->is_input ? "input" : "output");
	attr(md, "variability", "discrete");
	if (b->var->mime_type)
		attr(md, "mimeType", b->var->mime_type);
	attr_int(md, "maxSize", b->max_size);
	for (int d = 0; b->elem && d < b->var->ndims; d++) {
		start(md, "Dimension");
		attr_int(md, "start", b->var->dims[d].size);
		end(md);
	}
	/* an array's start values one <Start> per element, after its Dimensions (as a String
	 * array's): all the elements' or none */
	int n = b->elem ? (int)b->var->nelems : 1;
	bool any = false;
	for (int k = 0; k < n; k++)
		any |= b[k].start != NULL;
	for (int k = 0; b->is_input && any && k < n; k++) {
		start(md, "Start");
		attr(md, "value", b[k].start ? b[k].start : "");
		end(md);
	}
	end(md);
}

/* Whether ds includes source k. */
static bool has_source(const EmitDeps *ds, int k)
{
	for (int j = 0; j < ds->n; j++)
		if (ds->src[j] == k)
			return true;
	return false;
}

/* The dependencies of one output (n elements from o, all of an array's; their deps, or
 * init_deps for an InitialUnknown) as value references in the order of ModelVariables:
 * inputs, parameters (an InitialUnknown's, every one), then the Binaries declared last;
 * and as many "dependent"s in kinds. */
static void vr_list3(StrBuf *deps, StrBuf *kinds, const EmitLayout *l, const EmitDeps *const *ds,
		     int n, bool initial)
{
	const EmitVar *in = emit_inputs(l);
	for (int i = 0; i < l->ninputs; i++) {
		if (in[i].elems < 0)
			continue; /* an array is named once, by its first element's reference */
		bool dep = false;
		for (int e = i; e < i + (in[i].elems > 0 ? in[i].elems : 1); e++)
			for (int k = 0; k < n && !dep; k++)
				dep = has_source(ds[k], e);
		if (!dep)
			continue;
		sb_printf(deps, "%s%u", deps->len ? " " : "", (unsigned)vr3(l, &in[i]));
		sb_printf(kinds, "%sdependent", kinds->len ? " " : "");
	}
	const EmitVar *p = emit_params(l);
	for (int i = 0; initial && i < l->nparams; i++)
		if (p[i].elems >= 0)
			sb_printf(deps, "%s%u", deps->len ? " " : "", (unsigned)vr3(l, &p[i]));
	int src = l->ninputs;
	for (int b = 0; b < l->nbinaries; b++) {
		const EmitBinary *x = &l->binaries[b];
		if (!x->is_input || x->elem > 1)
			continue; /* an array is named once, by its first element */
		int m = x->elem ? (int)x->var->nelems : 1;
		bool dep = false;
		for (int e = src; e < src + m; e++)
			for (int k = 0; k < n && !dep; k++)
				dep = has_source(ds[k], e);
		src += m;
		if (!dep)
			continue;
		sb_printf(deps, "%s%u", deps->len ? " " : "", (unsigned)emit_binary_vr3(l, x));
		sb_printf(kinds, "%sdependent", kinds->len ? " " : "");
	}
}

/* One <Output> or <InitialUnknown> per output (an array's once, with its elements'
 * dependencies together), the forwarded Binary outputs after the others; an
 * InitialUnknown's kinds left to the default, "dependent", as in FMI 2.0. */
static void write_unknowns3(Md *md, const EmitLayout *l, const char *element, bool initial)
{
	int most = 1;
	for (int i = 0; i < l->noutputs; i++)
		most = emit_outputs(l)[i].elems > most ? emit_outputs(l)[i].elems : most;
	for (int b = 0; b < l->nbinaries; b++)
		most = l->binaries[b].elem > most ? l->binaries[b].elem : most;
	const EmitDeps **ds = malloc((size_t)most * sizeof *ds);
	if (!ds) {
		md->failed = true;
		return;
	}
	for (int i = 0; i < l->noutputs + l->nbinaries; i++) {
		uint32_t vr;
		int n = 1;
		if (i < l->noutputs) {
			const EmitVar *o = &emit_outputs(l)[i];
			if (o->elems < 0)
				continue;
			n = o->elems > 0 ? o->elems : 1;
			for (int k = 0; k < n; k++)
				ds[k] = initial ? &o[k].init_deps : &o[k].deps;
			vr = vr3(l, o);
		} else {
			const EmitBinary *x = &l->binaries[i - l->noutputs];
			if (x->is_input || x->elem > 1)
				continue;
			n = x->elem ? (int)x->var->nelems : 1;
			for (int k = 0; k < n; k++)
				ds[k] = initial ? &x[k].init_deps : &x[k].deps;
			vr = emit_binary_vr3(l, x);
		}
		StrBuf deps, kinds;
		sb_init(&deps);
		sb_init(&kinds);
		vr_list3(&deps, &kinds, l, ds, n, initial);
		start(md, element);
		attr_int(md, "valueReference", vr);
		attr(md, "dependencies", sb_str(&deps));
		if (deps.len && !initial)
			attr(md, "dependenciesKind", sb_str(&kinds));
		end(md);
		sb_free(&deps);
		sb_free(&kinds);
	}
	free(ds);
}

static void write_fmi3(Md *md, Compilation *c, const EmitLayout *l)
{
	start(md, "fmiModelDescription");
	attr(md, "fmiVersion", "3.0");
	attr(md, "modelName", l->model_name);
	attr(md, "instantiationToken", l->guid);
	attr(md, "description", l->description);
	attr(md, "generationTool", "sacc " SACC_VERSION);
	/* The inners' parameters are named "<inner>.<name>": a hierarchy. */
	attr(md, "variableNamingConvention", l->ninner_params ? "structured" : "flat");
	write_cosimulation3(md, l);
	write_units(md, l);
	write_type_definitions(md, l, true);
	write_log_categories(md, c, "fmi3");
	write_default_experiment(md, l);
	start(md, "ModelVariables");
	start(md, "Float64");
	attr(md, "name", "time");
	attr_int(md, "valueReference", l->nreal);
	attr(md, "causality", "independent");
	attr(md, "variability", "continuous");
	end(md);
	for (int i = 0; i < l->nvars; i++)
		write_variable3(md, l, &l->vars[i]);
	for (int i = 0; i < l->nbinaries; i++)
		write_binary3(md, l, &l->binaries[i]);
	end(md);
	start(md, "ModelStructure");
	write_unknowns3(md, l, "Output", false);
	write_unknowns3(md, l, "InitialUnknown", true);
	end(md);
	if (l->reactive) {
		/* FMI 3.0 dropped canInterpolateInputs: a master that knows sacc reads the kind
		 * here (fmu_read.c); any other skips the annotation */
		start(md, "Annotations");
		start(md, "Annotation");
		attr(md, "type", SACC_KIND_ANNOTATION);
		start(md, "Kind");
		attr(md, "reactive", "true");
		end(md);
		end(md);
		end(md);
	}
	end(md);
}

char *emit_md3_buffer(Compilation *c, const EmitLayout *l, size_t *len)
{
	return write_document(c, l, len, write_fmi3);
}

int emit_md3_to_file(Compilation *c, const EmitLayout *l, const char *path)
{
	size_t len = 0;
	char *xml = emit_md3_buffer(c, l, &len);
	return write_file(c, path, xml, len);
}
