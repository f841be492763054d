/* check_inner.c — inner FMUs: where each is found (an FMU file beside the script or in a
 * -L directory, or an adaptation of this build), and its ports, the script's declarations
 * checked against the model description or the inner adaptation's explicit form.
 *
 * Part of the checker (check.c); builds the Inner records of sema.h. */
#include "check_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* ---- sema lookups -------------------------------------------------------------------- */

Inner *sema_inner(const SaInfo *info, const char *name)
{
	if (!info->by_name) {
		for (int i = 0; i < info->ninners; i++)
			if (strcmp(info->inners[i]->name, name) == 0)
				return info->inners[i];
		return NULL;
	}
	/* the first of equal names is the first declared, as the search in order found */
	int lo = 0, hi = info->ninners;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strcmp(info->by_name[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < info->ninners && strcmp(info->by_name[lo].name, name) == 0)
		return info->inners[info->by_name[lo].index];
	return NULL;
}

static int compare_inner_keys(const void *pa, const void *pb)
{
	const SemaInnerKey *a = pa, *b = pb;
	int d = strcmp(a->name, b->name);
	return d ? d : (a->index > b->index) - (a->index < b->index);
}

void sema_index_inners(Arena *arena, SaInfo *info)
{
	info->by_name = arena_alloc(arena, (size_t)(info->ninners + 1) * sizeof *info->by_name);
	for (int i = 0; i < info->ninners; i++)
		info->by_name[i] = (SemaInnerKey){info->inners[i]->name, i};
	qsort(info->by_name, (size_t)info->ninners, sizeof *info->by_name, compare_inner_keys);
}

InnerPort *sema_inner_port(const Inner *in, const char *name)
{
	for (int i = 0; i < in->nports; i++)
		if (strcmp(in->ports[i].name, name) == 0)
			return &in->ports[i];
	return NULL;
}

bool sema_port_discrete(const SaInfo *info, const Node *port)
{
	if (port->type != TY_REAL && port->type != TY_NONE)
		return true;
	const Node *b = port->bound_to ? port->bound_to
	                : port->bind_dir != BIND_NONE ? port->bind : NULL;
	if (!info || !b || !b->owner || !b->name)
		return false;
	const Inner *in = sema_inner(info, b->owner);
	const InnerPort *ip = in ? sema_inner_port(in, b->name) : NULL;
	return ip && ip->discrete;
}

/* ---- inner FMUs ---------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

bool chk_is_system_path(const char *path)
{
	return str_ends_with(path, ".ssp") || str_ends_with(path, ".ssd");
}

/* Where a relative FMU path of the script is found (the environment's find_fmu_file). */
const char *chk_find_fmu_file(Ctx *x, const char *path)
{
	return x->c->env->find_fmu_file(x->c, x->m->dir, path);
}

const char *chk_fmu_dirs_searched(Ctx *x, const char *path)
{
	return x->c->env->fmu_dirs_searched(x->c, x->m->dir, path);
}

/* An adaptation in scope (this module or one it imports) whose FMU has the file name of
 * path: an inner FMU this build produces. */
static Node *find_producing_adaptation(Ctx *x, const char *path)
{
	const char *want = base_name(path);
	for (int k = -1; k < x->m->nimports; k++) {
		Module *m = k < 0 ? x->m : x->m->imports[k];
		if (!m || !m->root)
			continue;
		for (Node *e = m->root->list2; e; e = e->next)
			if (e->kind == ND_ADAPTATION && e != x->sa && e->str &&
			    strcmp(base_name(e->str), want) == 0)
				return e;
	}
	return NULL;
}

static Node *find_fmu_decl(Ctx *x, const char *name)
{
	for (int k = -1; k < x->m->nimports; k++) {
		Module *m = k < 0 ? x->m : x->m->imports[k];
		if (!m || !m->root)
			continue;
		for (Node *e = m->root->list2; e; e = e->next)
			if (e->kind == ND_FMU_DECL && strcmp(e->name, name) == 0)
				return e;
	}
	return NULL;
}

const char *chk_causality_words(FmuCausality c)
{
	switch (c) {
	case CAUS_INPUT: return "an input";
	case CAUS_OUTPUT: return "an output";
	case CAUS_PARAMETER: return "a parameter";
	case CAUS_CALCULATED_PARAMETER: return "a calculated parameter";
	case CAUS_INDEPENDENT: return "the independent variable";
	case CAUS_STRUCTURAL_PARAMETER: return "a structural parameter";
	default: return "a local variable";
	}
}

static Node *make_port_decl(Ctx *x, Loc loc, const char *name, SaType type, const char *unit)
{
	Node *p = ast_new(x->c->arena, ND_PORT, loc);
	p->name = name;
	p->type = type;
	p->origin = "model description";
	if (unit) {
		p->unit = ast_new(x->c->arena, ND_UNIT, loc);
		p->unit->str = unit;
	}
	return p;
}

/* Whether an inner's port is discrete (sema.h): from the FMU variable's variability, or
 * from the inner adaptation's own port of that name. */
static bool port_discrete(const Inner *in, const InnerPort *port)
{
	if (port->type != TY_REAL)
		return true;
	if (in->fmu && port->fmu_var >= 0)
		return in->fmu->vars[port->fmu_var].variability != VAR_CONTINUOUS;
	if (!in->adaptation)
		return false;
	const Node *sa = in->adaptation;
	for (const Node *r = port->is_input ? sa->a_inports : sa->a_outports; r; r = r->next)
		if (strcmp(r->name, port->var) == 0)
			return sema_port_discrete(sa->info, r);
	return false;
}

static void add_port(Ctx *x, Inner *in, InnerPort port)
{
	port.discrete = port_discrete(in, &port);
	InnerPort *ports = arena_alloc(x->c->arena, (size_t)(in->nports + 1) * sizeof *ports);
	if (in->nports)
		memcpy(ports, in->ports, (size_t)in->nports * sizeof *ports);
	ports[in->nports++] = port;
	in->ports = ports;
}

/* A script-declared inner port against what the FMU (or the inner adaptation) says;
 * source names that: "its model description" or "adaptation 'a'". */
static void check_declared_port(Ctx *x, Inner *in, Node *p, const char *source,
				SaType real_type, const char *real_unit)
{
	bool unit_ok = !p->unit || chk_unit_known(x, p->unit);
	if (p->type != TY_NONE && real_type != TY_NONE && p->type != real_type)
		diag_error(x->c->diag, p->loc,
			   "port '%s' of inner fmu '%s' is declared %s here but is %s in %s", p->name,
			   in->name, ast_type_name(p->type), ast_type_name(real_type), source);
	UnitSystem *us = x->c->env->units(x->c);
	if (p->unit && unit_ok && real_unit && us && strcmp(p->unit->str, real_unit) != 0) {
		/* Another spelling of the same unit is fine; a unit that needs converting, or
		 * does not convert at all, is not the inner fmu's. */
		double scale, offset;
		if (units_conversion(us, real_unit, p->unit->str, &scale, &offset) != UNITS_OK ||
		    scale != 1 || offset != 0)
			diag_error(x->c->diag, p->unit->loc,
				   "port '%s' of inner fmu '%s' is declared in '%s' here but is in '%s' "
				   "in %s", p->name, in->name, p->unit->str, real_unit, source);
	}
	if (p->bind_dir != BIND_NONE || p->init)
		diag_error(x->c->diag, p->bind_dir != BIND_NONE ? p->bind->loc : p->init->loc,
			   "inner fmu ports take no binding or start value; bind them on the "
			   "adaptation's own ports");
}

/* An FMI 3.0 array input or output the script does not name: one port per element, in
 * row-major order, which an FMI 3.0 wrapper forwards as one array variable of its own
 * (emit_arrays.c).  Sizes are those in effect (a structural parameter's start value); an
 * array whose size the description does not fix stays out, as before. */
static void add_element_ports(Ctx *x, Inner *in, const FmuVar *v, int idx, SaType t)
{
	if (v->nelems > SEMA_MAX_ELEMENTS)
		diag_error(x->c->diag, in->decl->loc, "port '%s' of inner fmu '%s' is an array of "
		           "%lld elements: a wrapper forwards at most %d", v->name, in->name,
		           v->nelems, SEMA_MAX_ELEMENTS);
	if (v->nelems <= 0 || v->nelems > SEMA_MAX_ELEMENTS)
		return;
	for (long long k = 0; k < v->nelems; k++) {
		const char *name = fmu_element_name(x->c->arena, v, k);
		Node *p = make_port_decl(x, in->decl->loc, name, t, v->unit);
		add_port(x, in, (InnerPort){p, name, v->name, t, v->unit, v->causality == CAUS_INPUT,
		                            idx, (int)k + 1, false});
	}
}

/* Builds an Inner from an FMU file: declared ports first, then the rest of its inputs
 * and outputs in model-description order. */
static void ports_from_fmu(Ctx *x, Inner *in, Node *decl_in, Node *decl_out)
{
	FmuInfo *fmu = in->fmu;
	Node **taken = arena_alloc(x->c->arena, (size_t)(fmu->nvars + 1) * sizeof *taken);
	for (int dir = 0; dir < 2; dir++) {
		bool want_input = dir == 0;
		FmuCausality want = want_input ? CAUS_INPUT : CAUS_OUTPUT;
		for (Node *p = want_input ? decl_in : decl_out; p; p = p->next) {
			const char *var = p->str ? p->str : p->name;
			const FmuVar *v = fmu_find_var(fmu, var);
			if (!v) {
				diag_error(x->c->diag, p->loc, "inner fmu '%s' has no %s named '%s'",
					   in->name, want_input ? "input" : "output", var);
				Suggestion sug;
				suggestion_init(&sug, var);
				for (int i = 0; i < fmu->nvars; i++)
					suggestion_offer(&sug, fmu->vars[i].name,
							 fmu->vars[i].causality == want);
				chk_did_you_mean(x, p->loc, &sug);
				continue;
			}
			int idx = (int)(v - fmu->vars);
			if (v->causality != want) {
				diag_error(x->c->diag, p->loc,
					   "'%s' of inner fmu '%s' is %s, not %s", var, in->name,
					   chk_causality_words(v->causality),
					   want_input ? "an input" : "an output");
				continue;
			}
			if (v->ndims > 0) {
				char why[96];
				diag_error(x->c->diag, p->loc, "port '%s' of inner fmu '%s' is %s: a "
					   "script names its elements, not the whole array", var, in->name,
					   fmu_var_unsupported(v, why, sizeof why));
				diag_note(x->c->diag, p->loc, "leave it undeclared: an FMI 3.0 wrapper "
					  "forwards it whole, and the rules name its elements ('%s.%s[1]')",
					  in->name, var);
				continue;
			}
			if (v->type == FT_BINARY) {
				diag_error(x->c->diag, p->loc, "port '%s' of inner fmu '%s' is a Binary, which "
					   "a script cannot declare or rename", var, in->name);
				diag_note(x->c->diag, p->loc, "an FMI 3.0 wrapper passes it through as it is");
				continue;
			}
			if (taken[idx]) {
				diag_error(x->c->diag, p->loc, "port '%s' of inner fmu '%s' declared twice",
					   var, in->name);
				diag_note(x->c->diag, taken[idx]->loc, "'%s' was first declared here", var);
				continue;
			}
			taken[idx] = p;
			SaType t = chk_fmu_sa_type(v->type);
			check_declared_port(x, in, p, "its model description", t, v->unit);
			if (p->type == TY_NONE)
				p->type = t;
			add_port(x, in, (InnerPort){p, p->name, v->name, t,
						    v->unit ? v->unit : p->unit ? p->unit->str : NULL,
						    want_input, idx, 0, false});
		}
	}
	for (int i = 0; i < fmu->nvars; i++) {
		const FmuVar *v = &fmu->vars[i];
		if (taken[i] || (v->causality != CAUS_INPUT && v->causality != CAUS_OUTPUT))
			continue;
		SaType t = chk_fmu_sa_type(v->type);
		/* a clock is an Integer port of its ticks in the inner's last step; an input one
		 * only when triggered (the runtime ticks the others by themselves) */
		if (v->type == FT_CLOCK && v->causality == CAUS_INPUT &&
		    v->clock.interval_variability != IV_TRIGGERED)
			continue;
		if (v->ndims > 0 && t != TY_NONE) {
			add_element_ports(x, in, v, i, t);
			continue;
		}
		if (v->ndims > 0)
			continue; /* Binary arrays: an FMI 3.0 wrapper forwards them (emit_binary.c) */
		if (t == TY_NONE)
			continue; /* Binary is not reachable from the language (an FMI 3.0 wrapper
			           * forwards Binary ports: emit_binary.c) */
		Node *p = make_port_decl(x, in->decl->loc, v->name, t, v->unit);
		add_port(x, in, (InnerPort){p, v->name, v->name, t, v->unit,
					    v->causality == CAUS_INPUT, i, 0, false});
	}
}

static const char *port_unit(const Node *p)
{
	return p->unit ? p->unit->str : NULL;
}

/* Builds an Inner from an adaptation of this build: its explicit-form external ports. */
static void ports_from_adaptation(Ctx *x, Inner *in, Node *decl_in, Node *decl_out)
{
	Node *sa = in->adaptation;
	for (int dir = 0; dir < 2; dir++) {
		bool want_input = dir == 0;
		Node *real = want_input ? sa->a_inports : sa->a_outports;
		Node *other = want_input ? sa->a_outports : sa->a_inports;
		for (Node *p = want_input ? decl_in : decl_out; p; p = p->next) {
			const char *var = p->str ? p->str : p->name;
			Node *r = real;
			while (r && strcmp(r->name, var) != 0)
				r = r->next;
			if (!r) {
				Node *o = other;
				while (o && strcmp(o->name, var) != 0)
					o = o->next;
				if (o) {
					diag_error(x->c->diag, p->loc, "'%s' of inner fmu '%s' is %s, not %s",
						   var, in->name, want_input ? "an output" : "an input",
						   want_input ? "an input" : "an output");
					continue;
				}
				diag_error(x->c->diag, p->loc, "inner fmu '%s' has no %s named '%s'",
					   in->name, want_input ? "input" : "output", var);
				Suggestion sug;
				suggestion_init(&sug, var);
				for (Node *q = real; q; q = q->next)
					suggestion_offer(&sug, q->name, true);
				for (Node *q = other; q; q = q->next)
					suggestion_offer(&sug, q->name, false);
				chk_did_you_mean(x, p->loc, &sug);
				continue;
			}
			check_declared_port(x, in, p,
					    arena_printf(x->c->arena, "adaptation '%s'", sa->name),
					    r->type, port_unit(r));
			if (p->type == TY_NONE)
				p->type = r->type;
		}
		for (Node *r = real; r; r = r->next) {
			Node *p = want_input ? decl_in : decl_out;
			while (p && strcmp(p->str ? p->str : p->name, r->name) != 0)
				p = p->next;
			const char *unit = port_unit(r) ? port_unit(r) : p ? port_unit(p) : NULL;
			Node *d = p ? p : make_port_decl(x, in->decl->loc, r->name, r->type, unit);
			add_port(x, in, (InnerPort){d, p ? p->name : r->name, r->name, r->type, unit,
						    want_input, -1, 0, false});
		}
	}
}

/* The solvers `with solver = NAME` chooses from, as SartOdeMethod numbers them
 * (runtime/sart_ode.h). */
static const char *const me_solvers[] = {"auto", "explicit", "implicit"};

/* A positive, finite number setting s gives (`relative tolerance = 1e-8`), or 0 after an
 * error at its value; a tolerance is also below 1. */
static double me_number(Ctx *x, const Node *s, const char *what)
{
	const Node *v = s->lhs;
	double d = v->kind == ND_REAL ? v->rval : v->kind == ND_INT ? (double)v->ival : NAN;
	bool tol = s->op == SET_REL_TOL;
	if (isnan(d)) {
		diag_error(x->c->diag, v->loc, "the %s of the Model Exchange solver is a number", what);
		return 0;
	}
	if (!(d > 0) || isinf(d) || (tol && !(d < 1))) {
		diag_error(x->c->diag, v->loc, "the %s of the Model Exchange solver must be %s, "
		           "not %g", what, tol ? "above 0 and below 1" : "positive", d);
		return 0;
	}
	return d;
}

/* Whether the inner runs as Model Exchange (its only interface, or `with model exchange`)
 * and the solver settings of me, the ND_INNER's body (NULL when the script says nothing):
 * refused on an inner that offers no Model Exchange or does not run as such, each setting
 * once, with a known solver and positive numbers. */
static void check_model_exchange(Ctx *x, Inner *in, const Node *me)
{
	in->me = in->fmu && fmu_me_by_default(in->fmu);
	if (in->me)
		in->reactive = false; /* its inputs are held over each step the wrapper integrates */
	if (!me || (!in->fmu && !in->adaptation))
		return; /* nothing said, or the inner was not found (already reported) */
	if (!in->fmu || !in->fmu->has_model_exchange) {
		diag_error(x->c->diag, me->loc, "inner fmu '%s' offers no Model Exchange interface: "
		           "%s to Model Exchange FMUs", in->name,
		           me->flags ? "'with model exchange' applies" : "solver settings apply");
		if (in->adaptation)
			diag_note(x->c->diag, in->adaptation->loc, "'%s' is adaptation '%s', which sacc "
			          "builds as a Co-Simulation FMU", in->name, in->adaptation->name);
		else
			diag_note(x->c->diag, me->loc, "'%s' offers Co-Simulation only", in->fmu->path);
		return;
	}
	if (me->flags) {
		in->me = true;
		in->reactive = false;
	}
	if (me->list1 && !in->me) {
		diag_error(x->c->diag, me->list1->loc, "the solver settings apply to an inner run as "
		           "Model Exchange, and inner fmu '%s' runs as Co-Simulation", in->name);
		diag_note(x->c->diag, me->list1->loc, "it offers both; 'with model exchange' runs it "
		          "as Model Exchange");
		return;
	}
	for (const Node *s = me->list1; s; s = s->next) {
		for (const Node *o = me->list1; o != s; o = o->next)
			if (o->op == s->op) {
				diag_error(x->c->diag, s->loc, "the Model Exchange solver's %s is given twice",
				           s->op == SET_ME_SOLVER ? "method" : s->op == SET_REL_TOL
				           ? "relative tolerance" : "max step");
				diag_note(x->c->diag, o->loc, "it is first given here");
			}
		if (s->op == SET_ME_SOLVER) {
			int k = 0;
			while (k < 3 && strcmp(me_solvers[k], s->str) != 0)
				k++;
			if (k < 3) {
				in->me_method = k;
				continue;
			}
			diag_error(x->c->diag, s->lhs->loc, "unknown solver '%s': auto, explicit or "
			           "implicit", s->str);
			Suggestion sug;
			suggestion_init(&sug, s->str);
			for (int i = 0; i < 3; i++)
				suggestion_offer(&sug, me_solvers[i], true);
			chk_did_you_mean(x, s->lhs->loc, &sug);
		} else if (s->op == SET_REL_TOL) {
			in->me_tolerance = me_number(x, s, "relative tolerance");
		} else if (s->op == SET_ME_MAX_STEP) {
			in->me_max_step = me_number(x, s, "max step");
		}
	}
}

Inner *chk_resolve_inner(Ctx *x, Node *decl)
{
	Arena *a = x->c->arena;
	Inner *in = arena_alloc(a, sizeof *in);
	in->decl = decl;
	in->name = decl->name;
	Node *decl_in = decl->list1, *decl_out = decl->list2;
	int kind = decl->flags;
	const char *path = decl->str;
	Loc where = decl->init ? decl->init->loc : decl->loc;

	if (decl->kind == ND_INNER_REF) {
		Node *f = find_fmu_decl(x, decl->name);
		if (!f) {
			diag_error(x->c->diag, decl->loc,
				   "no fmu '%s' is declared in this module or the modules it imports",
				   decl->name);
			return in;
		}
		in->decl = f;
		decl_in = f->list1;
		decl_out = f->list2;
		path = f->str;
		kind = 0;
		where = f->loc;
	}
	if (!path) {
		diag_error(x->c->diag, decl->loc, "inner fmu '%s' has no 'at' path", decl->name);
		return in;
	}

	const char *file = chk_find_fmu_file(x, path);
	Node *producer = find_producing_adaptation(x, path);
	if (chk_is_system_path(path) && !producer) {
		/* An SSP system: its composite wrapper, an adaptation this build makes. */
		if (!file) {
			diag_error(x->c->diag, where, "cannot find the SSP system of inner fmu '%s' at "
				   "\"%s\"", in->name, path);
			diag_note(x->c->diag, where, "%s", chk_fmu_dirs_searched(x, path));
			return in;
		}
		Module *sm = x->c->env->system_module ? x->c->env->system_module(x->c, file) : NULL;
		for (Node *e = sm && sm->root ? sm->root->list2 : NULL; e && !producer; e = e->next)
			if (e->kind == ND_ADAPTATION)
				producer = e;
		if (!producer) {
			diag_note(x->c->diag, where, "inner fmu '%s' is the SSP system '%s'", in->name,
				  path);
			return in;
		}
	}
	if (producer) {
		/* An adaptation of this build: its interface is its explicit form. */
		SaInfo *pi = chk_adaptation(x->c, NULL, producer);
		if (!pi || !pi->checked_ok || x->c->env->reduce(x->c, pi) != 0) {
			diag_note(x->c->diag, where, "inner fmu '%s' is built by adaptation '%s', "
				  "which has errors", in->name, producer->name);
			return in;
		}
		in->adaptation = producer;
		in->mealy = !(producer->flags & KIND_MOORE);
		in->reactive = !(producer->flags & KIND_DELAYED);
		ports_from_adaptation(x, in, decl_in, decl_out);
	} else if (file) {
		in->fmu = x->c->env->open_fmu(x->c, file, where);
		if (!in->fmu)
			return in;
		in->mealy = in->fmu->is_mealy;
		in->reactive = in->fmu->is_reactive;
		ports_from_fmu(x, in, decl_in, decl_out);
	} else {
		diag_error(x->c->diag, where, "cannot find inner fmu '%s' at \"%s\"", in->name, path);
		diag_note(x->c->diag, where, "%s; no adaptation in scope builds '%s' either",
			  chk_fmu_dirs_searched(x, path), base_name(path));
		return in;
	}
	in->isolated = (kind & KIND_ISOLATED) != 0;
	check_model_exchange(x, in, decl->kind == ND_INNER ? decl->body : NULL);
	if (kind & (KIND_MOORE | KIND_MEALY))
		in->mealy = (kind & KIND_MEALY) != 0;
	if (kind & (KIND_REACTIVE | KIND_DELAYED))
		in->reactive = (kind & KIND_REACTIVE) != 0;
	return in;
}

/* The type of inner parameter `name` (a parameter of the inner's model description, fixed
 * or tunable, or a param of an inner adaptation), TY_NONE when there is none; *cands
 * collects the names there are, for "did you mean". */
static SaType inner_param_type(const Inner *in, const char *name, const char **cands, int *n)
{
	if (in->fmu) {
		for (int k = 0; k < in->fmu->nvars; k++) {
			const FmuVar *v = &in->fmu->vars[k];
			if (v->causality != CAUS_PARAMETER ||
			    (v->variability != VAR_FIXED && v->variability != VAR_TUNABLE))
				continue;
			if (v->ndims > 0)
				continue; /* an array parameter cannot be bound (yet) */
			if (strcmp(v->name, name) == 0)
				return chk_fmu_sa_type(v->type);
			cands[(*n)++] = v->name;
		}
		return TY_NONE;
	}
	for (const Node *p = in->adaptation ? in->adaptation->a_params : NULL; p; p = p->next) {
		if (strcmp(p->name, name) == 0)
			return p->type != TY_NONE ? p->type : TY_REAL;
		cands[(*n)++] = p->name;
	}
	return TY_NONE;
}

static int inner_param_count(const Inner *in)
{
	return in->fmu ? in->fmu->nvars
	               : in->adaptation ? ast_count(in->adaptation->a_params) : 0;
}

void chk_inner_param_bindings(Ctx *x, Inner *in)
{
	if (!in->decl || in->decl->kind != ND_INNER || (!in->fmu && !in->adaptation))
		return;
	const char **cands = arena_alloc(x->c->arena, (size_t)(inner_param_count(in) + 1) *
	                                 sizeof *cands);
	Part saved = x->part;
	x->part = PART_PARAM;
	for (Node *b = in->decl->list3; b; b = b->next) {
		for (const Node *o = in->decl->list3; o != b; o = o->next)
			if (strcmp(o->name, b->name) == 0) {
				diag_error(x->c->diag, b->loc, "parameter '%s' of inner fmu '%s' is bound twice",
				           b->name, in->name);
				diag_note(x->c->diag, o->loc, "it is first bound here");
			}
		int n = 0;
		bool element = strchr(b->name, '[') != NULL;
		SaType want = element ? chk_param_element(x, in, b)
		                      : inner_param_type(in, b->name, cands, &n);
		SaType got = chk_expr(x, b->init);
		if (element && want == TY_NONE)
			continue; /* reported */
		const FmuVar *arr = want == TY_NONE && in->fmu ? fmu_find_var(in->fmu, b->name) : NULL;
		if (arr && arr->ndims > 0 && arr->causality == CAUS_PARAMETER) {
			char why[96];
			diag_error(x->c->diag, b->loc, "parameter '%s' of inner fmu '%s' is %s: array "
			           "parameters cannot be bound yet", b->name, in->name,
			           fmu_var_unsupported(arr, why, sizeof why));
			diag_note(x->c->diag, b->loc, "leave it unbound: the wrapper exposes it as its "
			          "own parameter '%s.%s', which the importer sets", in->name, b->name);
			continue;
		}
		if (arr && arr->causality == CAUS_STRUCTURAL_PARAMETER) {
			diag_error(x->c->diag, b->loc, "'%s' of inner fmu '%s' is a structural parameter, "
			           "which cannot be bound: it stays at its start value%s%s", b->name,
			           in->name, arr->start ? " " : "", arr->start ? arr->start : "");
			continue;
		}
		if (want == TY_NONE) {
			diag_error(x->c->diag, b->loc, "inner fmu '%s' has no parameter '%s'", in->name,
			           b->name);
			Suggestion sug;
			suggestion_init(&sug, b->name);
			for (int k = 0; k < n; k++)
				suggestion_offer(&sug, cands[k], true);
			chk_did_you_mean(x, b->loc, &sug);
			continue;
		}
		if (b->type != TY_NONE && b->type != want)
			diag_error(x->c->diag, b->loc, "parameter '%s' of inner fmu '%s' is %s, not %s",
			           b->name, in->name, ast_type_name(want), ast_type_name(b->type));
		else if (got != TY_NONE && !chk_assignable(want, got))
			diag_error(x->c->diag, b->init->loc, "parameter '%s' of inner fmu '%s' is %s; the "
			           "value is %s", b->name, in->name, ast_type_name(want),
			           ast_type_name(got));
	}
	x->part = saved;
}
