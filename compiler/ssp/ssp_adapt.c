/* ssp_adapt.c — an SSP system written as an adaptation script (see ssp_adapt.h), parsed like
 * any script, its nodes then moved to the SSD places they come from.
 *
 * What maps onto what:
 *   component (nested ones flattened, "sub.comp" named sub_comp) -> for inner fmu
 *   connection between components                                  -> coupled as a.p -> b.q,
 *     with what the link's conversion adds to the FMUs' units'      -> (map (..), factor, offset)
 *   top input connector -> component input                         -> input port bound to it,
 *     a conversion a binding would not make, or a second input      -> in rule assignment
 *   component output -> top output connector                       -> output port bound from it,
 *     a conversion a binding would not make                         -> out rule assignment
 *   a parameter binding's value for a parameter                     -> with param NAME := value
 *   a component input nothing feeds                                 -> held at its start value
 * Every conversion comes from ssp_flatten (SspFlat's links, inputs and outputs), the one
 * description of a connection that `sacc simulate` runs too, so that the composite and
 * the simulation cannot disagree.  Only a factor or offset into a Boolean, String or
 * Binary input has no form in the language: it is refused at the connection. */
#include "ssp_adapt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numfmt.h"
#include "parse.h"
#include "ssp.h"
#include "ssp_internal.h"
#include "units.h"
#include "util.h"

typedef struct Gen {
	Compilation *c;
	SspModel *m;
	SspFlat *f;
	const char *name;       /* the adaptation's */
	const char **inst;      /* per flat component: its instance name */
	bool **fed;             /* per flat component and variable: an input something feeds */
	StrBuf sb;
	Loc *lines;             /* the SSD place of each generated line (index line - 1) */
	int nlines, caplines;
	StrBuf in_rules;        /* the in rules' output function */
	bool failed;
} Gen;

/* ---- names ------------------------------------------------------------------------------------ */

/* A name as an identifier: other characters become '_', a leading digit gets one before it. */
static const char *sanitize(Gen *g, const char *s)
{
	StrBuf sb;
	sb_init(&sb);
	if (!*s || (*s >= '0' && *s <= '9'))
		sb_putc(&sb, '_');
	for (; *s; s++)
		sb_putc(&sb, lex_is_identifier((char[2]){*s, 0}) || (*s >= '0' && *s <= '9') ? *s : '_');
	const char *r = arena_strdup(g->c->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* How the script writes an identifier: a reserved word takes a '^'. */
static const char *spell(Gen *g, const char *id)
{
	return lex_is_keyword(id) ? arena_printf(g->c->arena, "^%s", id) : id;
}

/* A component variable the script names: refused when it is no identifier. */
static const char *var_name(Gen *g, int comp, int var, Loc where)
{
	const char *v = g->f->comps[comp].info->vars[var].name;
	if (lex_is_identifier(v))
		return spell(g, v);
	diag_error(g->c->diag, where, "variable '%s' of component '%s' is not a name an "
	           "adaptation can write: the composite FMU cannot reach it", v,
	           g->f->comps[comp].name);
	g->failed = true;
	return "_";
}

/* ---- text with places ------------------------------------------------------------------------- */

static void line(Gen *g, Loc where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(Gen *g, Loc where, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sb_puts(&g->sb, buf);
	sb_putc(&g->sb, '\n');
	if (g->nlines == g->caplines) {
		g->caplines = g->caplines ? 2 * g->caplines : 64;
		Loc *v = arena_alloc(g->c->arena, (size_t)g->caplines * sizeof *v);
		if (g->nlines)
			memcpy(v, g->lines, (size_t)g->nlines * sizeof *v);
		g->lines = v;
	}
	g->lines[g->nlines++] = where;
}

static const char *literal(Gen *g, FmuType t, double v)
{
	if (t == FT_BOOLEAN)
		return v != 0 ? "true" : "false";
	if (t != FT_REAL && t != FT_FLOAT32)
		return arena_printf(g->c->arena, "%lld", (long long)v);
	char buf[FMT_REAL_MAX];
	fmt_real(buf, v == 0 ? 0.0 : v);
	/* The lexer reads "2" as an Integer: a Real literal shows its point or exponent. */
	bool real = strpbrk(buf, ".e") != NULL;
	return arena_printf(g->c->arena, "%s%s", buf, real ? "" : ".0");
}

static const char *type_word(FmuType t)
{
	switch (t) {
	case FT_REAL: case FT_FLOAT32: return "Real";
	case FT_BOOLEAN: return "Bool";
	case FT_STRING: case FT_BINARY: case FT_CLOCK: return NULL;
	default: return "Integer";
	}
}

/* target := conv(source) as statements; the map first (a value equal to from[k] becomes
 * to[k]), then scale and offset. */
static void assignment(Gen *g, StrBuf *out, const char *target, const char *source, FmuType t,
                       const SspConvert *cv, Loc where)
{
	bool linear = cv->scale != 1 || cv->offset != 0;
	if ((linear && t == FT_BOOLEAN) || ((cv->nmap || linear) && !type_word(t))) {
		diag_error(g->c->diag, where, "a transformation of a %s value cannot be expressed in "
		           "an adaptation yet", fmu_type_name(t));
		g->failed = true;
		return;
	}
	const char *ind = "\t\t";
	for (int k = 0; k < cv->nmap; k++) {
		sb_printf(out, "%s%sif (%s == %s) {\n", ind, k ? "} else " : "", source,
		          literal(g, t, cv->from[k]));
		sb_printf(out, "%s\t%s := %s;\n", ind, target,
		          literal(g, t, cv->scale * cv->to[k] + cv->offset));
	}
	if (cv->nmap)
		sb_printf(out, "%s} else {\n%s\t", ind, ind);
	else
		sb_puts(out, ind);
	if (!linear)
		sb_printf(out, "%s := %s;\n", target, source);
	else if (cv->offset == 0)
		sb_printf(out, "%s := %s * %s;\n", target, literal(g, FT_REAL, cv->scale), source);
	else
		sb_printf(out, "%s := %s * %s %c %s;\n", target, literal(g, FT_REAL, cv->scale),
		          source, cv->offset < 0 ? '-' : '+', literal(g, FT_REAL, fabs(cv->offset)));
	if (cv->nmap)
		sb_printf(out, "%s}\n", ind);
}

/* ---- conversions the language makes ----------------------------------------------------------- */

/* What a binding or coupling between ports of units a and b converts by, as the checker
 * makes it (chk_coupling, the bindings): 1 and 0 unless both are known and differ. */
static void language_conversion(Gen *g, const char *a, const char *b, double *scale,
                                double *offset)
{
	*scale = 1;
	*offset = 0;
	UnitSystem *us = a && b && strcmp(a, b) != 0 ? drv_units(g->c) : NULL;
	if (us && units_conversion(us, a, b, scale, offset) != UNITS_OK) {
		*scale = 1;
		*offset = 0;
	}
}

/* Whether a binding between units a and b does what cv does: no map, and the same
 * conversion. */
static bool binding_does(Gen *g, const SspConvert *cv, const char *a, const char *b)
{
	double s, o;
	language_conversion(g, a, b, &s, &o);
	return !cv->nmap && cv->scale == s && cv->offset == o;
}

/* A unit of the system's connector for a port of the composite: what the unit system
 * knows (a unit only the SSD defines is left off: the values are converted already). */
static const char *port_unit(Gen *g, const char *unit)
{
	UnitSystem *us = unit ? drv_units(g->c) : NULL;
	return us && units_known(us, unit) ? unit : NULL;
}

/* ---- the script ------------------------------------------------------------------------------- */

/* Ends the last line with a comma: another item of its list follows. */
static void comma(Gen *g)
{
	g->sb.len--; /* its newline */
	sb_puts(&g->sb, ",\n");
}

static void write_inner(Gen *g, int k)
{
	const SspFlatComponent *fc = &g->f->comps[k];
	Loc at = fc->elem->loc;
	line(g, at, "\tfor inner fmu %s %s", lex_is_identifier(fc->info->model_name) ?
	     spell(g, fc->info->model_name) : "Component", g->inst[k]);
	/* Absolute: the script's directory is not necessarily the SSD's. */
	char cwd[4096];
	const char *fmu = fc->fmu_path;
	if (fmu[0] != '/' && getcwd(cwd, sizeof cwd))
		fmu = arena_printf(g->c->arena, "%s/%s", cwd, fmu);
	line(g, at, "\t\tat \"%s\"", fmu);
	bool first = true;
	for (int i = 0; i < g->f->nstarts; i++) {
		const SspFlatStart *s = &g->f->starts[i];
		if (s->comp != k)
			continue;
		const FmuVar *v = &fc->info->vars[s->var];
		Loc where = s->origin ? s->origin->loc : at;
		if (v->causality != CAUS_PARAMETER)
			continue; /* inputs: held at it (write_held_inputs) */
		if (!type_word(v->type)) {
			diag_error(g->c->diag, where, "parameter '%s' of '%s' is a %s: only Real, "
			           "Integer and Boolean parameters can be bound in a composite FMU yet",
			           v->name, fc->name, fmu_type_name(v->type));
			g->failed = true;
			continue;
		}
		if (!first)
			comma(g);
		line(g, where, "\t\t%s %s := %s", first ? "with param" : "          ",
		     var_name(g, k, s->var, where), literal(g, v->type, s->value));
		first = false;
	}
	/* an FMU offering only Model Exchange is run so without being told */
	if (fc->elem->implementation == SSP_IMPL_ME && !fmu_me_by_default(fc->info))
		line(g, at, "\t\twith model exchange");
}

/* One item of a list on a line of its own: "HEAD item" first, "\titem" after. */
static void list_item(Gen *g, Loc where, bool first, const char *head, const char *text)
{
	if (!first)
		comma(g);
	line(g, where, "%s%s", first ? head : "\t", text);
}

/* The literal of a map's value for a port of type t. */
static const char *map_literal(Gen *g, FmuType t, double v)
{
	return literal(g, t == FT_BOOLEAN ? FT_BOOLEAN : t == FT_REAL || t == FT_FLOAT32 ? FT_REAL
	               : FT_INTEGER, v);
}

/* `a.p -> b.q` with what the coupling must add to the conversion the checker makes from
 * the FMUs' units (md_scale, md_offset) to do what cv does: cv's map, then a factor and
 * offset such that factor (md_scale x + md_offset) + offset = cv->scale x + cv->offset. */
static const char *coupling_text(Gen *g, const SspFlatLink *l, const char *text)
{
	const FmuVar *a = &g->f->comps[l->src_comp].info->vars[l->src_var];
	const FmuVar *b = &g->f->comps[l->dst_comp].info->vars[l->dst_var];
	const SspConvert *cv = &l->cv;
	double ms, mo;
	language_conversion(g, a->unit, b->unit, &ms, &mo);
	double factor = cv->scale / ms, offset = cv->offset - factor * mo;
	if (!cv->nmap && factor == 1 && offset == 0)
		return text;
	StrBuf sb;
	sb_init(&sb);
	sb_puts(&sb, text);
	const char *sep = " (";
	if (cv->nmap) {
		sb_puts(&sb, " (map (");
		/* cv's map comes before its conversion, as a coupling's does */
		for (int k = 0; k < cv->nmap; k++)
			sb_printf(&sb, "%s%s -> %s", k ? ", " : "", map_literal(g, a->type, cv->from[k]),
			          map_literal(g, b->type, cv->to[k]));
		sb_putc(&sb, ')');
		sep = ", ";
	}
	if (factor != 1) {
		sb_printf(&sb, "%sfactor %s", sep, literal(g, FT_REAL, factor));
		sep = ", ";
	}
	if (offset != 0)
		sb_printf(&sb, "%soffset %s", sep, literal(g, FT_REAL, offset));
	sb_putc(&sb, ')');
	const char *r = arena_strdup(g->c->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

static void write_couplings(Gen *g)
{
	bool first = true;
	for (int i = 0; i < g->f->nlinks; i++) {
		const SspFlatLink *l = &g->f->links[i];
		Loc where = l->last ? l->last->loc : g->m->root->loc;
		g->fed[l->dst_comp][l->dst_var] = true;
		const FmuVar *b = &g->f->comps[l->dst_comp].info->vars[l->dst_var];
		if ((l->cv.scale != 1 || l->cv.offset != 0) && (b->type == FT_BOOLEAN ||
		                                                !type_word(b->type))) {
			diag_error(g->c->diag, where, "a conversion into a %s input cannot be expressed "
			           "in an adaptation", fmu_type_name(b->type));
			g->failed = true;
			continue;
		}
		const char *text = arena_printf(g->c->arena, "%s.%s -> %s.%s",
		          g->inst[l->src_comp], var_name(g, l->src_comp, l->src_var, where),
		          g->inst[l->dst_comp], var_name(g, l->dst_comp, l->dst_var, where));
		list_item(g, where, first, "coupled as ", coupling_text(g, l, text));
		first = false;
	}
}

/* Each input connector of the top system is an input port, bound to the first FMU input
 * it feeds when a binding converts as the system does; every other input it feeds is an
 * assignment in an in rule, with the conversion ssp_flatten made. */
static void write_inputs(Gen *g)
{
	const SspElement *root = g->m->root;
	bool first = true;
	for (int i = 0; i < root->nconnectors; i++) {
		const SspConnector *k = &root->connectors[i];
		if (k->kind != SSP_INPUT)
			continue;
		const char *port = spell(g, sanitize(g, k->name));
		const char *unit = port_unit(g, k->unit);
		const char *bound = NULL;
		const char *type = k->type == SSP_T_INTEGER || k->type == SSP_T_ENUMERATION
		                   ? "Integer" : k->type == SSP_T_BOOLEAN ? "Bool" : "Real";
		for (int j = 0; j < g->f->ninputs; j++) {
			const SspFlatInput *in = &g->f->inputs[j];
			if (in->k != k)
				continue;
			const FmuVar *v = &g->f->comps[in->comp].info->vars[in->var];
			Loc where = in->last ? in->last->loc : k->loc;
			const char *target = arena_printf(g->c->arena, "%s.%s", g->inst[in->comp],
			                                  var_name(g, in->comp, in->var, where));
			g->fed[in->comp][in->var] = true;
			if (k->type == SSP_T_NONE && type_word(v->type))
				type = type_word(v->type); /* no type element: the FMU's */
			if (!bound && binding_does(g, &in->cv, unit, v->unit)) {
				bound = target;
				continue;
			}
			assignment(g, &g->in_rules, target, arena_printf(g->c->arena, "%s.%s", g->name,
			           port), v->type, &in->cv, where);
		}
		StrBuf t;
		sb_init(&t);
		sb_printf(&t, "%s %s", type, port);
		if (unit)
			sb_printf(&t, " (%s)", unit);
		if (bound)
			sb_printf(&t, " -> %s", bound);
		list_item(g, k->loc, first, "input ports ", sb_str(&t));
		sb_free(&t);
		first = false;
	}
}

static void write_outputs(Gen *g, StrBuf *out_rules)
{
	bool first = true;
	for (int i = 0; i < g->f->noutputs; i++) {
		const SspFlatOutput *o = &g->f->outputs[i];
		const SspConnector *k = ssp_connector(g->m->root, o->name);
		Loc where = k ? k->loc : g->m->root->loc;
		const FmuVar *v = &g->f->comps[o->comp].info->vars[o->var];
		const char *type = type_word(v->type);
		if (!type) {
			diag_error(g->c->diag, where, "output '%s' is a %s: the composite FMU's ports are "
			           "Real, Integer or Bool", o->name, fmu_type_name(v->type));
			g->failed = true;
			continue;
		}
		const char *port = spell(g, sanitize(g, o->name));
		const char *source = arena_printf(g->c->arena, "%s.%s", g->inst[o->comp],
		                                  var_name(g, o->comp, o->var, where));
		StrBuf t;
		sb_init(&t);
		sb_printf(&t, "%s %s", type, port);
		const char *unit = port_unit(g, k ? k->unit : NULL);
		if (unit)
			sb_printf(&t, " (%s)", unit);
		if (binding_does(g, &o->cv, v->unit, unit))
			sb_printf(&t, " <- %s", source);
		else
			assignment(g, out_rules, arena_printf(g->c->arena, "%s.%s", g->name, port), source,
			           v->type, &o->cv, where);
		list_item(g, where, first, "output ports ", sb_str(&t));
		sb_free(&t);
		first = false;
	}
}

/* Inputs that nothing feeds keep their start value (the binding's, else the model
 * description's), as they do when sacc simulate runs the system. */
static void write_held_inputs(Gen *g)
{
	for (int k = 0; k < g->f->ncomps; k++) {
		const FmuInfo *info = g->f->comps[k].info;
		for (int i = 0; i < info->nvars; i++) {
			const FmuVar *v = &info->vars[i];
			if (v->causality != CAUS_INPUT || g->fed[k][i] || !type_word(v->type) ||
			    v->ndims != 0)
				continue;
			double x = v->start ? strtod(v->start, NULL) : 0;
			if (v->type == FT_BOOLEAN && v->start)
				x = strcmp(v->start, "true") == 0 || strcmp(v->start, "1") == 0;
			for (int s = 0; s < g->f->nstarts; s++)
				if (g->f->starts[s].comp == k && g->f->starts[s].var == i)
					x = g->f->starts[s].value;
			sb_printf(&g->in_rules, "\t\t%s.%s := %s;\n", g->inst[k],
			          var_name(g, k, i, g->f->comps[k].elem->loc), literal(g, v->type, x));
		}
	}
}

static void write_rules(Gen *g, const char *kind, StrBuf *body)
{
	if (!body->len)
		return;
	Loc at = g->m->root->loc;
	line(g, at, "%s rules {", kind);
	line(g, at, "\ttrue -> { } --> {");
	const char *p = sb_str(body);
	while (*p) {
		const char *nl = strchr(p, '\n');
		line(g, at, "%.*s", (int)(nl - p), p);
		p = nl + 1;
	}
	line(g, at, "\t};");
	line(g, at, "}");
}

static void write_script(Gen *g)
{
	Loc at = g->m->root->loc;
	line(g, at, "module %s", g->name);
	line(g, at, "semantic adaptation %s", g->name);
	line(g, at, "at \"%s.fmu\"", g->name);
	for (int k = 0; k < g->f->ncomps; k++)
		write_inner(g, k);
	write_couplings(g);
	write_inputs(g);
	StrBuf out_rules;
	sb_init(&out_rules);
	write_outputs(g, &out_rules);
	write_held_inputs(g);
	write_rules(g, "in", &g->in_rules);
	write_rules(g, "out", &out_rules);
	sb_free(&out_rules);
}

/* ---- places ----------------------------------------------------------------------------------- */

/* Every node made from generated line L takes the SSD place recorded for L; list children
 * are walked through `next`, single children alone. */
static void relocate(const Gen *g, Node *n, bool list)
{
	for (; n; n = list ? n->next : NULL) {
		if (n->loc.line >= 1 && n->loc.line <= g->nlines && g->lines[n->loc.line - 1].file)
			n->loc = g->lines[n->loc.line - 1];
		for (int i = 0; i < AST_NCHILDREN; i++)
			relocate(g, ast_child(n, i), ast_children[i].is_list);
	}
}

/* Each component's instance name in the script: its name made an identifier, with _2, _3
 * ... when that is the adaptation's name, a reserved word or an earlier instance's. */
static void name_instances(Gen *g)
{
	NameIndex taken = {0}; /* the earlier instances' names: not a search through them all */
	for (int k = 0; k < g->f->ncomps; k++) {
		const char *base = sanitize(g, g->f->comps[k].name);
		const char *n = base;
		for (int again = 2;; again++) {
			bool clash = strcmp(n, g->name) == 0 || lex_is_keyword(n) ||
			             name_index_find(&taken, n) >= 0;
			if (!clash)
				break;
			n = arena_printf(g->c->arena, "%s_%d", base, again);
		}
		g->inst[k] = n;
		if (name_index_add(&taken, n, k) != 0)
			diag_error(g->c->diag, g->f->comps[k].elem->loc, "out of memory");
		g->fed[k] = arena_alloc(g->c->arena, (size_t)(g->f->comps[k].info->nvars + 1) *
		                        sizeof(bool));
	}
	name_index_free(&taken);
}

Module *ssp_adaptation_module(Compilation *c, const char *path)
{
	/* One module per system, however its path is spelled ("sys.ssp", "./sys.ssp") */
	for (Module *m = c->modules; m; m = m->next)
		if (m->ssp_path && drv_same_file(m->ssp_path, path))
			return m;
	const char *name = arena_printf(c->arena, "%s.sa", path);
	SspModel *model = ssp_read(c, path);
	if (!model)
		return NULL;
	drv_keep_ssp(c, model);
	SspFlat *flat = arena_alloc(c->arena, sizeof *flat);
	if (ssp_flatten(model, false, flat) != 0)
		return NULL;
	Gen g = {.c = c, .m = model, .f = flat};
	const char *sys = model->root && model->root->name ? model->root->name : model->name;
	g.name = sanitize(&g, sys ? sys : "system");
	if (lex_is_keyword(g.name))
		g.name = arena_printf(c->arena, "%s_system", g.name);
	g.inst = arena_alloc(c->arena, (size_t)(flat->ncomps + 1) * sizeof *g.inst);
	g.fed = arena_alloc(c->arena, (size_t)(flat->ncomps + 1) * sizeof *g.fed);
	sb_init(&g.sb);
	sb_init(&g.in_rules);
	name_instances(&g);
	write_script(&g);
	Module *m = NULL;
	if (!g.failed) {
		m = drv_load_text(c, name, sb_str(&g.sb), g.sb.len);
		if (m)
			m->ssp_path = arena_strdup(c->arena, path);
		if (m && m->root)
			relocate(&g, m->root, false);
	}
	sb_free(&g.sb);
	sb_free(&g.in_rules);
	return m;
}
