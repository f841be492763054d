/* ssp_adapt.c — an SSP system written as an adaptation script (see ssp_adapt.h), parsed like
 * any script, its nodes then moved to the SSD places they come from.
 *
 * What maps onto what:
 *   component (nested ones flattened, "sub.comp" named sub_comp) -> for inner fmu
 *   connection between components, identity or units only        -> coupled as a.p -> b.q
 *   top input connector -> component input                         -> input port bound to it,
 *     a transformation, or a second input it feeds                  -> in rule assignment
 *   component output -> top output connector                       -> output port bound from it,
 *     a transformation                                              -> out rule assignment
 *   a parameter binding's value for a parameter                     -> with param NAME := value
 *   a component input nothing feeds                                 -> held at its start value
 * A transformation between two components has no form in the language (a coupling
 * converts units only): it is refused at the connection, as are mappings of types other
 * than Real and Integer. */
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
	if ((cv->nmap || linear) && (t == FT_BOOLEAN || !type_word(t))) {
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

/* ---- the top system's inputs ------------------------------------------------------------------ */

static int flat_index(const Gen *g, const char *name)
{
	for (int i = 0; i < g->f->ncomps; i++)
		if (strcmp(g->f->comps[i].name, name) == 0)
			return i;
	return -1;
}

/* One input of the composite: every component input its connector reaches (through nested
 * systems), each a binding when it takes the value as it is, else an in rule. */
static void feed_input(Gen *g, const SspElement *sys, const char *prefix, const char *conn,
                       const char *port, const SspConnector *top, double factor,
                       double offset, const char **bound)
{
	for (int i = 0; i < sys->nconnections; i++) {
		const SspConnection *k = &sys->connections[i];
		if (k->start_element || strcmp(k->start_connector, conn) != 0 || !k->end_element)
			continue;
		if (k->tr.kind != SSP_TR_NONE && k->tr.kind != SSP_TR_LINEAR) {
			diag_error(g->c->diag, k->loc, "a mapping transformation on an input of the "
			           "top system cannot be expressed in an adaptation yet");
			g->failed = true;
			continue;
		}
		double f2 = k->tr.kind == SSP_TR_LINEAR ? factor * k->tr.factor : factor;
		double o2 = k->tr.kind == SSP_TR_LINEAR ? k->tr.factor * offset + k->tr.offset
		                                        : offset;
		const SspElement *e = ssp_element(sys, k->end_element);
		if (!e)
			continue; /* the reader reported it */
		const char *name = arena_printf(g->c->arena, "%s%s", prefix, e->name);
		if (e->kind == SSP_SYSTEM) {
			feed_input(g, e, arena_printf(g->c->arena, "%s.", name), k->end_connector, port,
			           top, f2, o2, bound);
			continue;
		}
		int comp = flat_index(g, name);
		const FmuVar *v = comp < 0 ? NULL : fmu_find_var(g->f->comps[comp].info,
		                                                 k->end_connector);
		if (!v)
			continue;
		int var = (int)(v - g->f->comps[comp].info->vars);
		const char *target = arena_printf(g->c->arena, "%s.%s", g->inst[comp],
		                                  var_name(g, comp, var, k->loc));
		g->fed[comp][var] = true;
		if (f2 == 1 && o2 == 0 && !*bound && !k->suppress_unit_conversion) {
			*bound = target;
			continue;
		}
		/* The language converts units on bindings only: an assignment does it here. */
		SspConvert cv = {NULL, NULL, 0, f2, o2, false, 1, 0, NULL, NULL};
		UnitSystem *us = drv_units(g->c);
		double us_scale = 1, us_offset = 0;
		if (!k->suppress_unit_conversion && top->unit && v->unit && us &&
		    units_conversion(us, top->unit, v->unit, &us_scale, &us_offset) != UNITS_OK) {
			diag_error(g->c->diag, k->loc, "units '%s' and '%s' are not commensurable",
			           top->unit, v->unit);
			g->failed = true;
		}
		cv.scale = f2 * us_scale;
		cv.offset = f2 * us_offset + o2;
		assignment(g, &g->in_rules, target, arena_printf(g->c->arena, "%s.%s", g->name, port),
		           v->type, &cv, k->loc);
	}
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
}

/* One item of a list on a line of its own: "HEAD item" first, "\titem" after. */
static void list_item(Gen *g, Loc where, bool first, const char *head, const char *text)
{
	if (!first)
		comma(g);
	line(g, where, "%s%s", first ? head : "\t", text);
}

static bool units_only(const SspConvert *cv)
{
	if (cv->nmap)
		return false;
	if (!cv->converts_units)
		return cv->scale == 1 && cv->offset == 0;
	return cv->scale == cv->unit_scale && cv->offset == cv->unit_offset;
}

static void write_couplings(Gen *g)
{
	bool first = true;
	for (int i = 0; i < g->f->nlinks; i++) {
		const SspFlatLink *l = &g->f->links[i];
		Loc where = l->last ? l->last->loc : g->m->root->loc;
		g->fed[l->dst_comp][l->dst_var] = true;
		const FmuVar *a = &g->f->comps[l->src_comp].info->vars[l->src_var];
		const FmuVar *b = &g->f->comps[l->dst_comp].info->vars[l->dst_var];
		double s = 1, o = 0;
		UnitSystem *us = a->unit && b->unit && strcmp(a->unit, b->unit) ? drv_units(g->c)
		                                                                : NULL;
		bool md_converts = us && units_conversion(us, a->unit, b->unit, &s, &o) == UNITS_OK &&
		                   (s != 1 || o != 0);
		if (!units_only(&l->cv) || (md_converts && !l->cv.converts_units)) {
			diag_error(g->c->diag, where, "a transformation on a connection between two "
			           "components cannot be expressed in an adaptation: a coupling "
			           "converts units only");
			diag_note(g->c->diag, where, "sacc simulate runs this system as it is");
			g->failed = true;
			continue;
		}
		list_item(g, where, first, "coupled as ", arena_printf(g->c->arena, "%s.%s -> %s.%s",
		          g->inst[l->src_comp], var_name(g, l->src_comp, l->src_var, where),
		          g->inst[l->dst_comp], var_name(g, l->dst_comp, l->dst_var, where)));
		first = false;
	}
}

static void write_inputs(Gen *g)
{
	const SspElement *root = g->m->root;
	bool first = true;
	for (int i = 0; i < root->nconnectors; i++) {
		const SspConnector *k = &root->connectors[i];
		if (k->kind != SSP_INPUT)
			continue;
		const char *port = spell(g, sanitize(g, k->name));
		const char *bound = NULL;
		feed_input(g, root, "", k->name, port, k, 1, 0, &bound);
		const char *type = k->type == SSP_T_INTEGER ? "Integer" : k->type == SSP_T_BOOLEAN
		                   ? "Bool" : "Real";
		StrBuf t;
		sb_init(&t);
		sb_printf(&t, "%s %s", type, port);
		if (k->unit)
			sb_printf(&t, " (%s)", k->unit);
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
		const char *unit = k && k->unit ? k->unit : NULL;
		if (unit)
			sb_printf(&t, " (%s)", unit);
		if (units_only(&o->cv))
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
	for (int k = 0; k < g->f->ncomps; k++) {
		const char *base = sanitize(g, g->f->comps[k].name);
		const char *n = base;
		for (int again = 2;; again++) {
			bool clash = strcmp(n, g->name) == 0 || lex_is_keyword(n);
			for (int i = 0; i < k && !clash; i++)
				clash = strcmp(g->inst[i], n) == 0;
			if (!clash)
				break;
			n = arena_printf(g->c->arena, "%s_%d", base, again);
		}
		g->inst[k] = n;
		g->fed[k] = arena_alloc(g->c->arena, (size_t)(g->f->comps[k].info->nvars + 1) *
		                        sizeof(bool));
	}
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
