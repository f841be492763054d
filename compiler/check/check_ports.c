/* check_ports.c — what connects ports: the units they carry, the adaptation's own ports
 * and their bindings to inner ports, couplings between inner ports, and a scenario
 * module's connections between declared FMUs.  Each conversion between units is computed
 * here and stored on the binding, coupling or connection.
 *
 * Part of the checker (check.c). */
#include "check_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- units --------------------------------------------------------------------------- */

/* Checks that a unit spelled in the script is one UDUNITS-2 knows; false after reporting
 * it (so that the bindings using it are not reported again). */
bool chk_unit_known(Ctx *x, Node *unit)
{
	UnitSystem *us = x->c->env->units(x->c);
	if (us && !units_known(us, unit->str)) {
		diag_error(x->c->diag, unit->loc, "unknown unit '%s'", unit->str);
		return false;
	}
	return true;
}

/* Computes the conversion from unit `from` to unit `to` for a binding or coupling at loc.
 * Returns false after reporting when they do not convert. */
static bool conversion(Ctx *x, Loc loc, const char *what, const char *from, const char *to,
		       double *scale, double *offset)
{
	*scale = 1;
	*offset = 0;
	if (!from || !to || strcmp(from, to) == 0)
		return true;
	UnitSystem *us = x->c->env->units(x->c);
	if (!us)
		return false;
	switch (units_conversion(us, from, to, scale, offset)) {
	case UNITS_OK:
		return true;
	case UNITS_UNKNOWN_FROM:
		diag_error(x->c->diag, loc, "%s: unknown unit '%s'", what, from);
		return false;
	case UNITS_UNKNOWN_TO:
		diag_error(x->c->diag, loc, "%s: unknown unit '%s'", what, to);
		return false;
	case UNITS_INCOMMENSURABLE:
	default:
		diag_error(x->c->diag, loc, "%s: units '%s' and '%s' are not commensurable", what,
			   from, to);
		return false;
	}
}

/* ---- ports, bindings, couplings ------------------------------------------------------ */

void chk_external_port(Ctx *x, Node *p, bool input)
{
	bool unit_ok = !p->unit || chk_unit_known(x, p->unit);
	if (p->unit && p->type == TY_NONE)
		p->type = TY_REAL;
	if (p->unit && p->type != TY_REAL)
		diag_error(x->c->diag, p->unit->loc, "port '%s' has a unit, so it must be Real, not %s",
			   p->name, ast_type_name(p->type));
	if (p->bind_dir == (input ? BIND_FROM : BIND_TO)) {
		diag_error(x->c->diag, p->bind->loc,
			   input ? "input port '%s' cannot take its value from an inner output; bind "
				   "it with '->' to an inner input"
				 : "output port '%s' cannot feed an inner input; bind it with '<-' to "
				   "an inner output", p->name);
		return;
	}
	if (p->bind_dir != BIND_NONE) {
		SaType t = chk_port_ref(x, p->bind, input ? ACC_WRITE : ACC_READ);
		int want = input ? SYM_INNER_IN : SYM_INNER_OUT;
		if (p->bind->sym != SYM_NONE && p->bind->sym != want) {
			diag_error(x->c->diag, p->bind->loc, "%s port '%s' must be bound to an inner %s, "
				   "and '%s.%s' is %s %s", input ? "input" : "output", p->name,
				   input ? "input" : "output", p->bind->owner, p->bind->name,
				   chk_sym_article(p->bind->sym), chk_sym_words(p->bind->sym));
			return;
		}
		if (p->type == TY_NONE)
			p->type = t;
		else if (t != TY_NONE && !(input ? chk_assignable(t, p->type) : chk_assignable(p->type, t)))
			diag_error(x->c->diag, p->loc, "port '%s' is %s but '%s.%s' is %s", p->name,
				   ast_type_name(p->type), p->bind->owner, p->bind->name,
				   ast_type_name(t));
		Inner *in = p->bind->sym != SYM_NONE ? sema_inner(x->info, p->bind->owner) : NULL;
		InnerPort *ip = in ? sema_inner_port(in, p->bind->name) : NULL;
		if (ip && p->unit && unit_ok && ip->unit) {
			const char *what = arena_printf(x->c->arena, "binding of port '%s' to '%s.%s'",
							p->name, in->name, ip->name);
			const char *from = input ? p->unit->str : ip->unit;
			const char *to = input ? ip->unit : p->unit->str;
			double scale, offset;
			if (conversion(x, p->bind->loc, what, from, to, &scale, &offset)) {
				p->scale = scale;
				p->offset = offset;
				p->converts = scale != 1 || offset != 0;
			}
		}
	}
	SaType start = TY_NONE;
	if (p->init && p->init->kind != ND_ARRAY)
		start = chk_expr(x, p->init);
	if (p->type == TY_NONE)
		p->type = start != TY_NONE ? start : TY_REAL; /* an untyped port takes its start's */
	if (!chk_assignable(p->type, start))
		diag_error(x->c->diag, p->init->loc, "start value of %s port '%s' is %s",
			   ast_type_name(p->type), p->name, ast_type_name(start));
}

static void coupling_transform(Ctx *x, Node *c, const char *what, SaType from, SaType to);

void chk_coupling(Ctx *x, Node *c, Node **fed_by, Node **fed_port, int nfed)
{
	chk_port_ref(x, c->lhs, ACC_READ);
	chk_port_ref(x, c->rhs, ACC_WRITE);
	if (c->lhs->sym == SYM_NONE || c->rhs->sym == SYM_NONE)
		return;
	if (c->lhs->sym != SYM_INNER_OUT || c->rhs->sym != SYM_INNER_IN) {
		diag_error(x->c->diag, c->loc, "a coupling goes from an inner output to an inner "
			   "input, and '%s.%s -> %s.%s' does not", c->lhs->owner, c->lhs->name,
			   c->rhs->owner, c->rhs->name);
		return;
	}
	if (strcmp(c->lhs->owner, c->rhs->owner) == 0)
		diag_warning(x->c->diag, c->loc, "'%s' is coupled to itself", c->lhs->owner);
	for (int i = 0; i < nfed; i++)
		if (fed_port[i] == c->rhs->decl) {
			diag_error(x->c->diag, c->rhs->loc, "'%s.%s' is fed twice", c->rhs->owner,
				   c->rhs->name);
			diag_note(x->c->diag, fed_by[i]->loc, "it is already fed here");
			return;
		}
	Inner *a = sema_inner(x->info, c->lhs->owner), *b = sema_inner(x->info, c->rhs->owner);
	InnerPort *pa = sema_inner_port(a, c->lhs->name), *pb = sema_inner_port(b, c->rhs->name);
	if (!chk_assignable(pb->type, pa->type))
		diag_error(x->c->diag, c->loc, "coupling '%s.%s -> %s.%s' connects a %s output to a "
			   "%s input", a->name, pa->name, b->name, pb->name, ast_type_name(pa->type),
			   ast_type_name(pb->type));
	double scale, offset;
	const char *what = arena_printf(x->c->arena, "coupling '%s.%s -> %s.%s'", a->name, pa->name,
					b->name, pb->name);
	if (pa->unit && pb->unit && conversion(x, c->loc, what, pa->unit, pb->unit, &scale, &offset)) {
		c->scale = scale;
		c->offset = offset;
		c->converts = scale != 1 || offset != 0;
	}
	coupling_transform(x, c, what, pa->type, pb->type);
}

/* Whether literal l can stand for a value of type t in a coupling's map. */
static bool map_literal_fits(const Node *l, SaType t)
{
	return t == TY_BOOL ? l->kind == ND_BOOL
	       : t == TY_INTEGER ? l->kind == ND_INT
	       : t == TY_REAL && (l->kind == ND_INT || l->kind == ND_REAL);
}

/* A coupling's `(map (...), factor F, offset O)`: the map takes Integer or Bool values of
 * the output's type to values of the input's; factor and offset, which scale and shift
 * after the unit conversion, need a Real input.  They are folded into c->scale and
 * c->offset, so that every reader of a coupling's conversion applies them. */
static void coupling_transform(Ctx *x, Node *c, const char *what, SaType from, SaType to)
{
	for (const Node *m = c->list1; m; m = m->next) {
		if (from != TY_INTEGER && from != TY_BOOL) {
			diag_error(x->c->diag, m->loc, "%s: a map takes Integer or Bool values, and the "
				   "output is %s", what, ast_type_name(from));
			return;
		}
		if (!map_literal_fits(m->lhs, from) || !map_literal_fits(m->rhs, to)) {
			bool src = !map_literal_fits(m->lhs, from);
			diag_error(x->c->diag, src ? m->lhs->loc : m->rhs->loc, "%s: this map entry's %s "
				   "must be %s %s literal", what, src ? "source" : "target",
				   (src ? from : to) == TY_INTEGER ? "an" : "a",
				   ast_type_name(src ? from : to));
			return;
		}
		for (const Node *e = c->list1; e != m; e = e->next)
			if (ast_number(e->lhs) == ast_number(m->lhs)) {
				diag_error(x->c->diag, m->lhs->loc, "%s: the map takes this value twice",
					   what);
				diag_note(x->c->diag, e->lhs->loc, "first here");
				return;
			}
	}
	if (!c->then && !c->els)
		return;
	if (to != TY_REAL) {
		diag_error(x->c->diag, (c->then ? c->then : c->els)->loc, "%s: a factor or offset "
			   "needs a Real input, and the input is %s", what, ast_type_name(to));
		return;
	}
	const Node *lits[2] = {c->then, c->els};
	for (int i = 0; i < 2; i++)
		if (lits[i] && !map_literal_fits(lits[i], TY_REAL)) {
			diag_error(x->c->diag, lits[i]->loc, "%s: a %s is a number", what,
				   i ? "offset" : "factor");
			return;
		}
	double f = c->then ? ast_number(c->then) : 1, o = c->els ? ast_number(c->els) : 0;
	double s0 = c->converts ? c->scale : 1, o0 = c->converts ? c->offset : 0;
	c->scale = f * s0;
	c->offset = f * o0 + o;
	c->converts = c->scale != 1 || c->offset != 0;
}

/* ---- scenario connections ------------------------------------------------------------ */

/* The top-level element named name that a scenario connection can reach: an fmu or an
 * adaptation of this module or of one it imports. */
static Node *scenario_element(Ctx *x, const char *name)
{
	Module *m = x->m;
	if (x->element_nodes) {
		int i = name_index_find(&x->elements, name);
		return i >= 0 ? x->element_nodes[i] : NULL;
	}
	for (int k = -1; k < m->nimports; k++) {
		Module *mk = k < 0 ? m : m->imports[k];
		for (Node *el = mk && mk->root ? mk->root->list2 : NULL; el; el = el->next)
			if ((el->kind == ND_FMU_DECL || el->kind == ND_ADAPTATION) &&
			    strcmp(el->name, name) == 0)
				return el;
	}
	return NULL;
}

/* The array an element name ("y[2]", "A[1,2]", as the grammar writes it) points into, its
 * indices checked against the array's sizes; NULL when fmu has no such array (not
 * reported), or after a report naming the connection (what), *bad then set. */
static const FmuVar *element_port(Ctx *x, Node *e, const char *inst, const FmuInfo *fmu,
                                  const char *what, bool *bad)
{
	const char *open = strchr(e->name, '[');
	char *base = arena_printf(x->c->arena, "%.*s", (int)(open - e->name), e->name);
	const FmuVar *v = fmu_find_var(fmu, base);
	if (!v)
		return NULL;
	*bad = true;
	char size[64] = "";
	for (int d = 0, used = 0; d < v->ndims && used < (int)sizeof size - 24; d++)
		used += snprintf(size + used, sizeof size - (size_t)used, "%s%lld", d ? "x" : "",
		                 v->dims[d].size);
	if (v->ndims == 0) {
		diag_error(x->c->diag, e->loc, "%s: '%s.%s' is a scalar: it has no elements", what,
			   inst, base);
		return NULL;
	}
	const char *p = open + 1;
	for (int d = 0; *p && *p != ']'; d++) {
		char *end;
		long long k = strtoll(p, &end, 10);
		if (d >= v->ndims || (*end == ']' && d + 1 != v->ndims)) {
			diag_error(x->c->diag, e->loc, "%s: '%s.%s' is an array of %s: an element has "
				   "%d ind%s", what, inst, base, size, v->ndims,
				   v->ndims == 1 ? "ex" : "ices");
			return NULL;
		}
		if (k < 1 || v->dims[d].size < 0 || k > v->dims[d].size) {
			diag_error(x->c->diag, e->loc, "%s: index %lld of '%s.%s' is out of range: it is "
				   "an array of %s %s, indexed from 1", what, k, inst, base, size,
				   fmu_type_name_for(v->type, fmu->version));
			return NULL;
		}
		p = *end == ',' ? end + 1 : end;
	}
	*bad = false;
	return v;
}

/* One end of a scenario connection to a declared fmu: the variable it names (for an element
 * of an array, the array), which must be an output (the source) or an input (the target).
 * NULL after a report, or when the fmu could not be read (reported where it is declared). */
static const FmuVar *scenario_port(Ctx *x, Node *e, Node *decl, bool source, const char *what)
{
	FmuInfo *fmu = decl->info;
	if (!fmu)
		return NULL;
	bool bad = false;
	/* an FMI 2.0 scalar may itself be named "y[2]" (structured naming) */
	const FmuVar *v = fmu_find_var(fmu, e->name);
	if (!v && strchr(e->name, '['))
		v = element_port(x, e, decl->name, fmu, what, &bad);
	if (bad)
		return NULL;
	if (!v) {
		Loc at = chk_port_name_loc(e);
		diag_error(x->c->diag, at, "fmu '%s' has no port '%s'", decl->name, e->name);
		/* The source of a connection is an output, its target an input. */
		Suggestion sug;
		suggestion_init(&sug, e->name);
		for (int i = 0; i < fmu->nvars; i++)
			if (fmu->vars[i].causality == CAUS_INPUT || fmu->vars[i].causality == CAUS_OUTPUT)
				suggestion_offer(&sug, fmu->vars[i].name, fmu->vars[i].causality ==
								     (source ? CAUS_OUTPUT : CAUS_INPUT));
		chk_did_you_mean(x, at, &sug);
		return NULL;
	}
	if (v->causality != (source ? CAUS_OUTPUT : CAUS_INPUT)) {
		diag_error(x->c->diag, e->loc, "a connection goes from an output to an input, and "
			   "'%s.%s' is %s", decl->name, e->name, chk_causality_words(v->causality));
		return NULL;
	}
	return v;
}

/* A scenario module's top-level connections between declared FMUs: both ends exist, go
 * from an output to an input, and carry convertible units (the conversion is stored on
 * the connection, as for couplings).  Ports of adaptations are not looked into here. */
void chk_scenario_connection(Ctx *x, Node *conn)
{
	Node *ends[2] = {conn->lhs, conn->rhs};
	const FmuVar *vars[2] = {NULL, NULL};
	const char *what = arena_printf(x->c->arena, "connection '%s.%s -> %s.%s'",
					conn->lhs->owner ? conn->lhs->owner : "", conn->lhs->name,
					conn->rhs->owner ? conn->rhs->owner : "", conn->rhs->name);
	FmiVersion versions[2] = {FMI_V2, FMI_V2};
	for (int i = 0; i < 2; i++) {
		Node *e = ends[i];
		if (!e->owner) {
			diag_error(x->c->diag, e->loc, "a scenario connection names 'fmu.port', not '%s'",
				   e->name);
			continue;
		}
		Node *el = scenario_element(x, e->owner);
		if (!el)
			diag_error(x->c->diag, chk_owner_loc(e), "no fmu or adaptation named '%s' in this "
				   "scenario", e->owner);
		else if (el->kind == ND_FMU_DECL) {
			vars[i] = scenario_port(x, e, el, i == 0, what);
			versions[i] = vars[i] ? ((const FmuInfo *)el->info)->version : FMI_V2;
		}
	}
	if (!vars[0] || !vars[1])
		return;
	SaType from = chk_fmu_sa_type(vars[0]->type), to = chk_fmu_sa_type(vars[1]->type);
	if (!chk_assignable(to, from))
		diag_error(x->c->diag, conn->loc, "%s connects a %s output to a %s input", what,
			   ast_type_name(from), ast_type_name(to));
	else if ((vars[0]->type == FT_BINARY) != (vars[1]->type == FT_BINARY))
		/* the language has no Binary type: its bytes go to a Binary only */
		diag_error(x->c->diag, conn->loc, "%s: a Binary connects to a Binary only, and the "
			   "output is %s, the input %s", what,
			   fmu_type_name_for(vars[0]->type, versions[0]),
			   fmu_type_name_for(vars[1]->type, versions[1]));
	double scale, offset;
	if (vars[0]->unit && vars[1]->unit &&
	    conversion(x, conn->loc, what, vars[0]->unit, vars[1]->unit, &scale, &offset)) {
		conn->scale = scale;
		conn->offset = offset;
		conn->converts = scale != 1 || offset != 0;
	}
}

void chk_index_scenario_elements(Ctx *x)
{
	int n = 0;
	for (int k = -1; k < x->m->nimports; k++) {
		Module *mk = k < 0 ? x->m : x->m->imports[k];
		for (Node *el = mk && mk->root ? mk->root->list2 : NULL; el; el = el->next)
			n += el->kind == ND_FMU_DECL || el->kind == ND_ADAPTATION;
	}
	Node **nodes = malloc(((size_t)n + 1) * sizeof *nodes);
	n = 0;
	for (int k = -1; nodes && k < x->m->nimports; k++) {
		Module *mk = k < 0 ? x->m : x->m->imports[k];
		for (Node *el = mk && mk->root ? mk->root->list2 : NULL; el && nodes; el = el->next) {
			if (el->kind != ND_FMU_DECL && el->kind != ND_ADAPTATION)
				continue;
			nodes[n] = el;
			if (name_index_add(&x->elements, el->name, n++)) {
				/* out of memory: scenario_element searches the lists instead */
				free(nodes);
				nodes = NULL;
				name_index_free(&x->elements);
			}
		}
	}
	x->element_nodes = nodes;
}

void chk_free_scenario_elements(Ctx *x)
{
	free(x->element_nodes);
	x->element_nodes = NULL;
	name_index_free(&x->elements);
}

/* Opens, once, each fmu this module declares that its connections use: a missing or
 * unreadable one is reported at its declaration, not at every connection.  The owners
 * the connections name are gathered first, so that each declaration is one look-up. */
void chk_open_scenario_fmus(Ctx *x)
{
	NameIndex owners = {0};
	bool indexed = true;
	for (Node *e = x->m->root->list2; e && indexed; e = e->next)
		if (e->kind == ND_CONNECTION)
			indexed = (!e->lhs->owner || name_index_add(&owners, e->lhs->owner, 0) == 0) &&
			          (!e->rhs->owner || name_index_add(&owners, e->rhs->owner, 0) == 0);
	for (Node *d = x->m->root->list2; d; d = d->next) {
		if (d->kind != ND_FMU_DECL || d->info)
			continue;
		bool used = indexed && name_index_find(&owners, d->name) >= 0;
		for (Node *e = x->m->root->list2; !indexed && e && !used; e = e->next)
			used = e->kind == ND_CONNECTION &&
			       ((e->lhs->owner && strcmp(e->lhs->owner, d->name) == 0) ||
				(e->rhs->owner && strcmp(e->rhs->owner, d->name) == 0));
		if (!used)
			continue;
		const char *file = chk_find_fmu_file(x, d->str);
		if (!file) {
			diag_error(x->c->diag, d->loc, "cannot find fmu '%s' at \"%s\"", d->name, d->str);
			diag_note(x->c->diag, d->loc, "%s", chk_fmu_dirs_searched(x, d->str));
			continue;
		}
		d->info = x->c->env->open_fmu(x->c, file, d->loc);
	}
	name_index_free(&owners);
}
