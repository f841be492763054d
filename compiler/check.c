/* check.c — the checks of LANGUAGE.md section 3: names and scopes, types, inner ports
 * against the inner FMUs' model descriptions, units and their conversions.
 *
 * Runs after parsing and before the explicit-form rules.  It resolves every name and
 * port reference (Node.decl / Node.sym), gives every declaration its type, builds the
 * Inner records of sema.h, and stores unit conversions on bound ports and couplings.
 * An inner FMU that is itself an adaptation of this build is first checked and reduced,
 * so that its external ports are known. */
#include "check.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explicit.h"
#include "util.h"

/* ---- scopes -------------------------------------------------------------------------- */

typedef struct Sym {
	const char *name;
	Node *decl;
	int kind;
} Sym;

typedef struct Scope {
	struct Scope *parent;
	Sym *syms;
	int n, cap;
} Scope;

/* Where in an adaptation an expression sits: decides what it may read and write. */
typedef enum Part {
	PART_PARAM, PART_VARINIT, PART_CTRL, PART_IN_COND, PART_IN_TRANS, PART_IN_MAP,
	PART_OUT_COND, PART_OUT_TRANS, PART_OUT_MAP, PART_GENERAL, PART_QUANTIZE,
} Part;

static const char *const part_names[] = {
	"a parameter", "a storage variable's initial value", "control rules",
	"the condition of an in rule", "the '->' part of an in rule",
	"the '-->' part of an in rule", "the condition of an out rule",
	"the '->' part of an out rule", "the '-->' part of an out rule", "a general rule",
	"a quantize rule",
};

typedef struct Ctx {
	Compilation *c;
	Module *m;
	SaInfo *info;
	Node *sa;
	Scope *top;     /* the adaptation's own names */
	Scope *scope;   /* innermost */
	Part part;
	int loops;      /* enclosing for loops (break is legal inside one) */
	bool quantized; /* the rules block has a quantize rule: zone names are conditions */
	Node *rules;    /* the rules block being checked (its quantize rules declare zones) */
} Ctx;

static Scope *scope_new(Ctx *x, Scope *parent)
{
	Scope *s = arena_alloc(x->c->arena, sizeof *s);
	s->parent = parent;
	return s;
}

static Sym *scope_find_here(Scope *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->syms[i].name, name) == 0)
			return &s->syms[i];
	return NULL;
}

static Sym *scope_find(Scope *s, const char *name)
{
	for (; s; s = s->parent) {
		Sym *y = scope_find_here(s, name);
		if (y)
			return y;
	}
	return NULL;
}

/* Declares name in s; a second declaration at one level is an error showing both. */
static void declare(Ctx *x, Scope *s, const char *name, Node *decl, int kind)
{
	Sym *old = scope_find_here(s, name);
	if (old) {
		diag_error(x->c->diag, decl->loc, "redefinition of '%s'", name);
		diag_note(x->c->diag, old->decl->loc, "'%s' was first declared here", name);
		return;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		Sym *syms = arena_alloc(x->c->arena, (size_t)cap * sizeof *syms);
		if (s->n)
			memcpy(syms, s->syms, (size_t)s->n * sizeof *syms);
		s->syms = syms;
		s->cap = cap;
	}
	s->syms[s->n++] = (Sym){name, decl, kind};
}

/* The closest of the candidates to name, or NULL. */
static const char *nearest(const char *name, const char **cands, int n)
{
	const char *best = NULL;
	int best_d = INT_MAX;
	for (int i = 0; i < n; i++) {
		if (!cands[i] || strcmp(cands[i], name) == 0 || !is_near_name(name, cands[i]))
			continue;
		int d = edit_distance(name, cands[i], 8);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

static void suggest_in_scope(Ctx *x, Loc loc, const char *name)
{
	const char *cands[256];
	int n = 0;
	for (Scope *s = x->scope; s; s = s->parent)
		for (int i = 0; i < s->n && n < 256; i++)
			if (s->syms[i].kind != SYM_INNER)
				cands[n++] = s->syms[i].name;
	const char *best = nearest(name, cands, n);
	if (best) {
		diag_note(x->c->diag, loc, "did you mean '%s'?", best);
		return;
	}
	/* Inner ports are never reached by a bare name (LANGUAGE.md section 3). */
	for (int i = 0; i < x->info->ninners; i++)
		if (sema_inner_port(x->info->inners[i], name)) {
			diag_note(x->c->diag, loc, "an inner fmu's port is named with its fmu: '%s.%s'",
				  x->info->inners[i]->name, name);
			return;
		}
}

/* ---- sema lookups -------------------------------------------------------------------- */

Inner *sema_inner(const SaInfo *info, const char *name)
{
	for (int i = 0; i < info->ninners; i++)
		if (strcmp(info->inners[i]->name, name) == 0)
			return info->inners[i];
	return NULL;
}

InnerPort *sema_inner_port(const Inner *in, const char *name)
{
	for (int i = 0; i < in->nports; i++)
		if (strcmp(in->ports[i].name, name) == 0)
			return &in->ports[i];
	return NULL;
}

bool sema_depends(const Inner *in, const InnerPort *out, const InnerPort *inp)
{
	if (!in->mealy)
		return false;
	if (!in->fmu || out->fmu_var < 0 || inp->fmu_var < 0)
		return true; /* an adaptation: Mealy means every output may see every input */
	return fmu_output_depends_on(in->fmu, out->fmu_var, inp->fmu_var);
}

/* ---- types --------------------------------------------------------------------------- */

static SaType fmu_sa_type(FmuType t)
{
	switch (t) {
	case FT_REAL: case FT_FLOAT32: return TY_REAL;
	case FT_BOOLEAN: return TY_BOOL;
	case FT_STRING: return TY_STRING;
	case FT_BINARY: case FT_CLOCK: return TY_NONE;
	default: return TY_INTEGER;
	}
}

static bool numeric(SaType t) { return t == TY_REAL || t == TY_INTEGER; }

/* Whether a value of type from may be stored where to is expected (Integer widens). */
static bool assignable(SaType to, SaType from)
{
	return to == from || (to == TY_REAL && from == TY_INTEGER) || to == TY_NONE ||
	       from == TY_NONE;
}

/* ---- units --------------------------------------------------------------------------- */

/* Checks that a unit spelled in the script is one UDUNITS-2 knows; false after reporting
 * it (so that the bindings using it are not reported again). */
static bool check_unit_known(Ctx *x, Node *unit)
{
	UnitSystem *us = drv_units(x->c);
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
	UnitSystem *us = drv_units(x->c);
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

/* ---- inner FMUs ---------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Where a relative FMU path of a script is found: beside the script, then in each -L
 * directory (by the path, then by its file name). */
static const char *find_fmu_file(Ctx *x, const char *path)
{
	Arena *a = x->c->arena;
	if (path[0] == '/')
		return access(path, R_OK) == 0 ? path : NULL;
	const char *p = arena_printf(a, "%s/%s", x->m->dir, path);
	if (access(p, R_OK) == 0)
		return p;
	for (int i = 0; i < x->c->nfmu_dirs; i++) {
		p = arena_printf(a, "%s/%s", x->c->fmu_dirs[i], path);
		if (access(p, R_OK) == 0)
			return p;
		p = arena_printf(a, "%s/%s", x->c->fmu_dirs[i], base_name(path));
		if (access(p, R_OK) == 0)
			return p;
	}
	return NULL;
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

static const char *causality_words(FmuCausality c)
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

static void add_port(Ctx *x, Inner *in, InnerPort port)
{
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
	bool unit_ok = !p->unit || check_unit_known(x, p->unit);
	if (p->type != TY_NONE && real_type != TY_NONE && p->type != real_type)
		diag_error(x->c->diag, p->loc,
			   "port '%s' of inner fmu '%s' is declared %s here but is %s in %s", p->name,
			   in->name, ast_type_name(p->type), ast_type_name(real_type), source);
	UnitSystem *us = drv_units(x->c);
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
				const char *cands[512];
				int n = 0;
				for (int i = 0; i < fmu->nvars && n < 512; i++)
					if (fmu->vars[i].causality == want)
						cands[n++] = fmu->vars[i].name;
				const char *best = nearest(var, cands, n);
				if (!best) {
					n = 0;
					for (int i = 0; i < fmu->nvars && n < 512; i++)
						cands[n++] = fmu->vars[i].name;
					best = nearest(var, cands, n);
				}
				if (best)
					diag_note(x->c->diag, p->loc, "did you mean '%s'?", best);
				continue;
			}
			int idx = (int)(v - fmu->vars);
			if (v->causality != want) {
				diag_error(x->c->diag, p->loc,
					   "'%s' of inner fmu '%s' is %s, not %s", var, in->name,
					   causality_words(v->causality),
					   want_input ? "an input" : "an output");
				continue;
			}
			if (taken[idx]) {
				diag_error(x->c->diag, p->loc, "port '%s' of inner fmu '%s' declared twice",
					   var, in->name);
				diag_note(x->c->diag, taken[idx]->loc, "'%s' was first declared here", var);
				continue;
			}
			taken[idx] = p;
			SaType t = fmu_sa_type(v->type);
			check_declared_port(x, in, p, "its model description", t, v->unit);
			if (p->type == TY_NONE)
				p->type = t;
			add_port(x, in, (InnerPort){p, p->name, v->name, t,
						    v->unit ? v->unit : p->unit ? p->unit->str : NULL,
						    want_input, idx});
		}
	}
	for (int i = 0; i < fmu->nvars; i++) {
		const FmuVar *v = &fmu->vars[i];
		if (taken[i] || (v->causality != CAUS_INPUT && v->causality != CAUS_OUTPUT))
			continue;
		SaType t = fmu_sa_type(v->type);
		if (t == TY_NONE)
			continue; /* Binary and Clock ports are not reachable from the language */
		Node *p = make_port_decl(x, in->decl->loc, v->name, t, v->unit);
		add_port(x, in, (InnerPort){p, v->name, v->name, t, v->unit,
					    v->causality == CAUS_INPUT, i});
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
				const char *cands[256];
				int n = 0;
				for (Node *q = real; q && n < 256; q = q->next)
					cands[n++] = q->name;
				const char *best = nearest(var, cands, n);
				if (best)
					diag_note(x->c->diag, p->loc, "did you mean '%s'?", best);
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
						    want_input, -1});
		}
	}
}

static Inner *resolve_inner(Ctx *x, Node *decl)
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

	const char *file = find_fmu_file(x, path);
	Node *producer = find_producing_adaptation(x, path);
	if (producer) {
		/* An adaptation of this build: its interface is its explicit form. */
		SaInfo *pi = chk_adaptation(x->c, NULL, producer);
		if (!pi || !pi->checked_ok || drv_reduce(x->c, pi, NULL) != 0) {
			diag_note(x->c->diag, where, "inner fmu '%s' is built by adaptation '%s', "
				  "which has errors", in->name, producer->name);
			return in;
		}
		in->adaptation = producer;
		in->mealy = !(producer->flags & KIND_MOORE);
		in->reactive = !(producer->flags & KIND_DELAYED);
		ports_from_adaptation(x, in, decl_in, decl_out);
	} else if (file) {
		in->fmu = drv_open_fmu(x->c, file, where);
		if (!in->fmu)
			return in;
		in->mealy = in->fmu->is_mealy;
		in->reactive = in->fmu->is_reactive;
		ports_from_fmu(x, in, decl_in, decl_out);
	} else {
		diag_error(x->c->diag, where, "cannot find inner fmu '%s' at \"%s\"", in->name, path);
		diag_note(x->c->diag, where, "looked beside the script and in %d -L director%s; no "
			  "adaptation in scope builds '%s' either", x->c->nfmu_dirs,
			  x->c->nfmu_dirs == 1 ? "y" : "ies", base_name(path));
		return in;
	}
	if (kind & (KIND_MOORE | KIND_MEALY))
		in->mealy = (kind & KIND_MEALY) != 0;
	if (kind & (KIND_REACTIVE | KIND_DELAYED))
		in->reactive = (kind & KIND_REACTIVE) != 0;
	return in;
}

/* ---- expressions --------------------------------------------------------------------- */

static SaType check_expr(Ctx *x, Node *e);

static const char *sym_words(int sym)
{
	switch (sym) {
	case SYM_INPORT: return "input port";
	case SYM_OUTPORT: return "output port";
	case SYM_PARAM: return "parameter";
	case SYM_IN_VAR: return "in var";
	case SYM_OUT_VAR: return "out var";
	case SYM_CTRL_VAR: return "control var";
	case SYM_LOOP_VAR: return "loop variable";
	case SYM_INNER_IN: return "inner input";
	case SYM_INNER_OUT: return "inner output";
	case SYM_INNER: return "inner fmu";
	default: return "variable";
	}
}

/* "a" or "an", for the words of sym_words. */
static const char *sym_article(int sym)
{
	return strchr("aeiou", sym_words(sym)[0]) ? "an" : "a";
}

static SaType decl_type(const Node *d)
{
	return d ? d->type : TY_NONE;
}

/* Where the port name of an owner.port reference is written (the whole reference when it
 * spans lines), so that a caret points at the part that is wrong. */
static Loc port_name_loc(const Node *e)
{
	Loc l = e->loc;
	int n = (int)strlen(e->name);
	if (e->owner && l.len >= n + (int)strlen(e->owner) + 1) {
		l.col += l.len - n;
		l.len = n;
	}
	return l;
}

static Loc owner_loc(const Node *e)
{
	Loc l = e->loc;
	int n = (int)strlen(e->owner);
	if (l.len > n)
		l.len = n;
	return l;
}

/* owner.port: an inner FMU's port, or the adaptation's own. */
static SaType check_port_ref(Ctx *x, Node *e)
{
	if (!e->owner) {
		diag_error(x->c->diag, e->loc, "expected 'fmu.port' here, not '%s'", e->name);
		return TY_NONE;
	}
	if (strcmp(e->owner, x->sa->name) == 0) {
		Sym *y = scope_find_here(x->top, e->name);
		if (!y || (y->kind != SYM_INPORT && y->kind != SYM_OUTPORT)) {
			Loc at = port_name_loc(e);
			diag_error(x->c->diag, at, "adaptation '%s' has no port '%s'", x->sa->name,
				   e->name);
			const char *cands[256];
			int n = 0;
			for (int i = 0; i < x->top->n && n < 256; i++)
				if (x->top->syms[i].kind == SYM_INPORT || x->top->syms[i].kind == SYM_OUTPORT)
					cands[n++] = x->top->syms[i].name;
			const char *best = nearest(e->name, cands, n);
			if (best)
				diag_note(x->c->diag, at, "did you mean '%s'?", best);
			return TY_NONE;
		}
		e->decl = y->decl;
		e->sym = y->kind;
		return decl_type(y->decl);
	}
	Inner *in = sema_inner(x->info, e->owner);
	if (!in) {
		Loc at = owner_loc(e);
		diag_error(x->c->diag, at, "'%s' is neither an inner fmu of '%s' nor '%s' itself",
			   e->owner, x->sa->name, x->sa->name);
		const char *cands[256];
		int n = 0;
		for (int i = 0; i < x->info->ninners && n < 255; i++)
			cands[n++] = x->info->inners[i]->name;
		cands[n++] = x->sa->name;
		const char *best = nearest(e->owner, cands, n);
		if (x->sa->tname && strcmp(e->owner, x->sa->tname) == 0)
			diag_note(x->c->diag, at, "'%s' is the type name of the older header; the "
				  "adaptation itself is '%s'", e->owner, x->sa->name);
		else if (best)
			diag_note(x->c->diag, at, "did you mean '%s'?", best);
		return TY_NONE;
	}
	if (!in->ports && !in->fmu && !in->adaptation)
		return TY_NONE; /* the inner could not be read: reported already */
	InnerPort *p = sema_inner_port(in, e->name);
	if (!p) {
		Loc at = port_name_loc(e);
		diag_error(x->c->diag, at, "inner fmu '%s' has no port '%s'", in->name, e->name);
		const char *cands[512];
		int n = 0;
		for (int i = 0; i < in->nports && n < 512; i++)
			cands[n++] = in->ports[i].name;
		const char *best = nearest(e->name, cands, n);
		if (best)
			diag_note(x->c->diag, at, "did you mean '%s'?", best);
		return TY_NONE;
	}
	e->decl = p->decl;
	e->sym = p->is_input ? SYM_INNER_IN : SYM_INNER_OUT;
	return p->type;
}

static SaType check_name(Ctx *x, Node *e)
{
	Sym *y = scope_find(x->scope, e->name);
	if (!y || y->kind == SYM_INNER) {
		if (y)
			diag_error(x->c->diag, e->loc,
				   "'%s' is an inner fmu; name one of its ports as '%s.port'", e->name,
				   e->name);
		else {
			diag_error(x->c->diag, e->loc, "unknown name '%s'", e->name);
			suggest_in_scope(x, e->loc, e->name);
		}
		return TY_NONE;
	}
	if (x->part == PART_PARAM && y->kind != SYM_PARAM) {
		diag_error(x->c->diag, e->loc, "a parameter's value may only use other parameters, "
			   "not the %s '%s'", sym_words(y->kind), e->name);
		return TY_NONE;
	}
	if (x->part == PART_VARINIT && y->kind != SYM_PARAM) {
		diag_error(x->c->diag, e->loc, "an initial value may only use parameters, not the "
			   "%s '%s'", sym_words(y->kind), e->name);
		return TY_NONE;
	}
	e->decl = y->decl;
	e->sym = y->kind;
	return decl_type(y->decl);
}

static Inner *check_fmu_arg(Ctx *x, Node *call)
{
	Inner *in = sema_inner(x->info, call->name);
	if (!in) {
		Loc loc = call->lhs ? call->lhs->loc : call->loc;
		diag_error(x->c->diag, loc, "'%s' is not an inner fmu of '%s'", call->name,
			   x->sa->name);
		const char *cands[256];
		int n = 0;
		for (int i = 0; i < x->info->ninners && n < 256; i++)
			cands[n++] = x->info->inners[i]->name;
		const char *best = nearest(call->name, cands, n);
		if (best)
			diag_note(x->c->diag, loc, "did you mean '%s'?", best);
		return NULL;
	}
	if (call->lhs) {
		call->lhs->sym = SYM_INNER;
		call->lhs->decl = in->decl;
	}
	return in;
}

static void expect_numeric(Ctx *x, Node *e, SaType t, const char *what)
{
	if (t != TY_NONE && !numeric(t))
		diag_error(x->c->diag, e->loc, "%s must be a number, not %s", what, ast_type_name(t));
}

static SaType check_builtin(Ctx *x, Node *e)
{
	int nargs = ast_count(e->list1);
	const char *name = ast_builtin_name(e->op);
	switch (e->op) {
	case BI_FLOOR:
	case BI_CEIL:
	case BI_ABS: {
		SaType t = check_expr(x, e->list1);
		expect_numeric(x, e->list1, t, arena_printf(x->c->arena, "the argument of %s", name));
		return e->op != BI_ABS ? TY_INTEGER : numeric(t) ? t : TY_NONE;
	}
	case BI_ROUND: {
		if (nargs > 2) {
			diag_error(x->c->diag, e->loc, "round takes one or two arguments, not %d", nargs);
			return TY_NONE;
		}
		for (Node *a = e->list1; a; a = a->next)
			expect_numeric(x, a, check_expr(x, a),
				       arena_printf(x->c->arena, "an argument of %s", name));
		return nargs == 1 ? TY_INTEGER : TY_REAL;
	}
	case BI_MAX:
	case BI_MIN: {
		SaType t = TY_INTEGER;
		for (Node *a = e->list1; a; a = a->next) {
			SaType at = check_expr(x, a);
			expect_numeric(x, a, at, arena_printf(x->c->arena, "an argument of %s", name));
			if (at == TY_REAL)
				t = TY_REAL;
		}
		return t;
	}
	case BI_IS_CLOSE:
		if (nargs != 2 && nargs != 4) {
			diag_error(x->c->diag, e->loc,
				   "is_close takes 2 or 4 arguments (a, b, rtol, atol), not %d", nargs);
			return TY_BOOL;
		}
		for (Node *a = e->list1; a; a = a->next)
			expect_numeric(x, a, check_expr(x, a),
				       arena_printf(x->c->arena, "an argument of %s", name));
		return TY_BOOL;
	case BI_IS_SET:
	case BI_DISCARD: {
		Node *v = e->list1;
		SaType t = v->kind == ND_NAME || v->kind == ND_PORT_REF ? check_expr(x, v) : TY_NONE;
		if (t != TY_NONE && v->sym != SYM_INPORT)
			diag_error(x->c->diag, v->loc, "%s needs an input port of '%s', not %s %s", name,
				   x->sa->name, sym_article(v->sym), sym_words(v->sym));
		else if (v->kind != ND_NAME && v->kind != ND_PORT_REF)
			diag_error(x->c->diag, v->loc, "%s needs an input port of '%s'", name,
				   x->sa->name);
		return e->op == BI_IS_SET ? TY_BOOL : TY_NONE;
	}
	case BI_DO_STEP:
		if (x->part != PART_CTRL)
			diag_error(x->c->diag, e->loc, "do_step is only allowed in control rules, not "
				   "in %s", part_names[x->part]);
		check_fmu_arg(x, e);
		expect_numeric(x, e->list1, check_expr(x, e->list1), "do_step's start time");
		expect_numeric(x, e->list1->next, check_expr(x, e->list1->next), "do_step's step size");
		return TY_REAL;
	case BI_SAVE_STATE:
	case BI_ROLLBACK:
		if (x->part != PART_CTRL)
			diag_error(x->c->diag, e->loc, "%s is only allowed in control rules, not in %s",
				   name, part_names[x->part]);
		check_fmu_arg(x, e);
		return TY_NONE;
	case BI_GET_NEXT_TIME_STEP:
	case BI_ELAPSED:
	case BI_LAST_EXECUTION_TIME:
		check_fmu_arg(x, e);
		return TY_REAL;
	default:
		return TY_NONE;
	}
}

static SaType check_binary(Ctx *x, Node *e)
{
	SaType l = check_expr(x, e->lhs), r = check_expr(x, e->rhs);
	const char *op = ast_op_spelling(e->op);
	switch (e->op) {
	case OP_OR:
	case OP_AND:
		if (l != TY_NONE && l != TY_BOOL)
			diag_error(x->c->diag, e->lhs->loc, "operands of '%s' must be Bool, not %s", op,
				   ast_type_name(l));
		if (r != TY_NONE && r != TY_BOOL)
			diag_error(x->c->diag, e->rhs->loc, "operands of '%s' must be Bool, not %s", op,
				   ast_type_name(r));
		return TY_BOOL;
	case OP_EQ:
	case OP_NE:
		if (l != TY_NONE && r != TY_NONE && l != r && !(numeric(l) && numeric(r)))
			diag_error(x->c->diag, e->loc, "cannot compare %s with %s", ast_type_name(l),
				   ast_type_name(r));
		return TY_BOOL;
	case OP_CROSS_UP:
	case OP_CROSS_DOWN:
		if (x->part != PART_IN_COND && x->part != PART_OUT_COND)
			diag_error(x->c->diag, e->loc, "the crossing operator '%s' is only allowed in "
				   "a rule's condition, in a rules block with crossing settings", op);
		/* fall through */
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
		if (l != TY_NONE && !numeric(l))
			diag_error(x->c->diag, e->lhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(l));
		if (r != TY_NONE && !numeric(r))
			diag_error(x->c->diag, e->rhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(r));
		return TY_BOOL;
	default: /* + - * / */
		if (l != TY_NONE && !numeric(l)) {
			diag_error(x->c->diag, e->lhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(l));
			return TY_NONE;
		}
		if (r != TY_NONE && !numeric(r)) {
			diag_error(x->c->diag, e->rhs->loc, "operands of '%s' must be numbers, not %s", op,
				   ast_type_name(r));
			return TY_NONE;
		}
		if (l == TY_NONE || r == TY_NONE)
			return TY_NONE;
		/* '/' is always real division: 1/2 is 0.5, as a modeller expects. */
		return e->op == OP_DIV || l == TY_REAL || r == TY_REAL ? TY_REAL : TY_INTEGER;
	}
}

static SaType check_expr(Ctx *x, Node *e)
{
	switch (e->kind) {
	case ND_INT: return TY_INTEGER;
	case ND_REAL: return TY_REAL;
	case ND_STRING: return TY_STRING;
	case ND_BOOL: return TY_BOOL;
	case ND_NAME: return check_name(x, e);
	case ND_PORT_REF: return check_port_ref(x, e);
	case ND_KEYVAR:
		/* MapIn runs the '-->' parts of in rules; MapOut evaluates the out rules'
		 * conditions and runs their '->' parts (LANGUAGE.md section 4). */
		if ((e->op == KV_H || e->op == KV_DT) && x->part != PART_IN_MAP &&
		    x->part != PART_OUT_COND && x->part != PART_OUT_TRANS) {
			diag_error(x->c->diag, e->loc, "'%s' is only defined in the '-->' part of in "
				   "rules and in the condition and '->' part of out rules, not in %s",
				   ast_keyvar_name(e->op), part_names[x->part]);
			return TY_NONE;
		}
		if (x->part == PART_PARAM || x->part == PART_VARINIT) {
			diag_error(x->c->diag, e->loc, "'%s' has no value in %s", ast_keyvar_name(e->op),
				   part_names[x->part]);
			return TY_NONE;
		}
		return TY_REAL;
	case ND_SIGNAL:
		if (x->part != PART_QUANTIZE) {
			diag_error(x->c->diag, e->loc,
				   "'signal' is only defined inside quantize and crossing settings");
			return TY_NONE;
		}
		return TY_REAL;
	case ND_OTHERWISE:
		diag_error(x->c->diag, e->loc, "'otherwise' can only be a rule's whole condition");
		return TY_BOOL;
	case ND_UNARY: {
		SaType t = check_expr(x, e->lhs);
		if (e->op == OP_NOT) {
			if (t != TY_NONE && t != TY_BOOL)
				diag_error(x->c->diag, e->loc, "operand of 'not' must be Bool, not %s",
					   ast_type_name(t));
			return TY_BOOL;
		}
		if (t != TY_NONE && !numeric(t)) {
			diag_error(x->c->diag, e->loc, "operand of '-' must be a number, not %s",
				   ast_type_name(t));
			return TY_NONE;
		}
		return t;
	}
	case ND_BINARY: return check_binary(x, e);
	case ND_BUILTIN: return check_builtin(x, e);
	default:
		diag_error(x->c->diag, e->loc, "unexpected %s in an expression", ast_kind_name(e->kind));
		return TY_NONE;
	}
}

/* ---- statements ---------------------------------------------------------------------- */

static bool may_assign(Part part, int sym)
{
	switch (sym) {
	case SYM_LOCAL: return true;
	case SYM_OUTPORT: return part == PART_OUT_MAP;
	case SYM_IN_VAR: return part == PART_IN_TRANS;
	case SYM_OUT_VAR: return part == PART_OUT_TRANS;
	case SYM_CTRL_VAR: return part == PART_CTRL;
	case SYM_INNER_IN: return part == PART_CTRL || part == PART_IN_MAP;
	default: return false;
	}
}

static const char *where_writable(int sym)
{
	switch (sym) {
	case SYM_OUTPORT: return "output ports are set by the '-->' part of out rules";
	case SYM_IN_VAR: return "in vars are written by the '->' part of in rules";
	case SYM_OUT_VAR: return "out vars are written by the '->' part of out rules";
	case SYM_CTRL_VAR: return "control vars are written by control rules";
	case SYM_INNER_IN: return "inner inputs are set by control rules and the '-->' part of in rules";
	case SYM_PARAM: return "parameters are fixed; declare a var to change a value";
	case SYM_INPORT: return "input ports are set by the importer; copy the value into an in var";
	case SYM_INNER_OUT: return "inner outputs are computed by the inner fmu";
	case SYM_LOOP_VAR: return "the loop advances its variable itself";
	default: return NULL;
	}
}

static void check_assign(Ctx *x, Node *s)
{
	SaType t = s->lhs->kind == ND_NAME ? check_name(x, s->lhs) : check_port_ref(x, s->lhs);
	SaType v = check_expr(x, s->rhs);
	int sym = s->lhs->sym;
	if (t == TY_NONE && sym == SYM_NONE)
		return;
	const char *name = s->lhs->owner ? arena_printf(x->c->arena, "%s.%s", s->lhs->owner,
							s->lhs->name)
					 : s->lhs->name;
	if (!may_assign(x->part, sym)) {
		diag_error(x->c->diag, s->lhs->loc, "cannot assign to %s '%s' in %s", sym_words(sym),
			   name, part_names[x->part]);
		const char *why = where_writable(sym);
		if (why)
			diag_note(x->c->diag, s->lhs->loc, "%s", why);
		return;
	}
	if (!assignable(t, v))
		diag_error(x->c->diag, s->rhs->loc, "cannot assign a %s value to %s '%s' of type %s",
			   ast_type_name(v), sym_words(sym), name, ast_type_name(t));
}

static void check_vardecl(Ctx *x, Node *d, int sym)
{
	if (d->init) {
		SaType t = check_expr(x, d->init);
		if (d->type == TY_NONE)
			d->type = t;
		else if (!assignable(d->type, t))
			diag_error(x->c->diag, d->init->loc, "cannot initialise %s '%s' of type %s with a "
				   "%s value", sym_words(sym), d->name, ast_type_name(d->type),
				   ast_type_name(t));
	}
	if (d->type == TY_NONE)
		d->type = TY_REAL;
}

static void check_stmts(Ctx *x, Node *stmts);

static void check_block(Ctx *x, Node *block)
{
	Scope *saved = x->scope;
	x->scope = scope_new(x, saved);
	check_stmts(x, block->list1);
	if (block->lhs)
		check_expr(x, block->lhs);
	x->scope = saved;
}

static void check_stmt(Ctx *x, Node *s)
{
	switch (s->kind) {
	case ND_VAR:
		for (Node *d = s->list1; d; d = d->next) {
			check_vardecl(x, d, SYM_LOCAL);
			declare(x, x->scope, d->name, d, SYM_LOCAL);
		}
		break;
	case ND_ASSIGN:
		check_assign(x, s);
		break;
	case ND_CALL_STMT:
		check_expr(x, s->lhs);
		break;
	case ND_IF: {
		SaType t = check_expr(x, s->cond);
		if (t != TY_NONE && t != TY_BOOL)
			diag_error(x->c->diag, s->cond->loc, "condition must be Bool, not %s",
				   ast_type_name(t));
		check_block(x, s->then);
		if (s->els) {
			if (s->els->kind == ND_IF)
				check_stmt(x, s->els);
			else
				check_block(x, s->els);
		}
		break;
	}
	case ND_FOR: {
		SaType a = check_expr(x, s->lhs), b = check_expr(x, s->rhs);
		if (a != TY_NONE && a != TY_INTEGER)
			diag_error(x->c->diag, s->lhs->loc, "loop bounds must be Integer, not %s",
				   ast_type_name(a));
		if (b != TY_NONE && b != TY_INTEGER)
			diag_error(x->c->diag, s->rhs->loc, "loop bounds must be Integer, not %s",
				   ast_type_name(b));
		Scope *saved = x->scope;
		x->scope = scope_new(x, saved);
		Node *var = s->init;
		var->type = TY_INTEGER;
		declare(x, x->scope, s->name, var, SYM_LOOP_VAR);
		x->loops++;
		check_block(x, s->then);
		x->loops--;
		x->scope = saved;
		break;
	}
	case ND_BREAK:
		if (!x->loops)
			diag_error(x->c->diag, s->loc, "'break' outside a for loop");
		break;
	case ND_RETURN: {
		SaType t = check_expr(x, s->lhs);
		if (x->part == PART_CTRL && t != TY_NONE && !numeric(t))
			diag_error(x->c->diag, s->lhs->loc,
				   "control rules must return the step taken, a number, not %s",
				   ast_type_name(t));
		break;
	}
	default:
		diag_error(x->c->diag, s->loc, "unexpected %s in a block", ast_kind_name(s->kind));
	}
}

static void check_stmts(Ctx *x, Node *stmts)
{
	for (Node *s = stmts; s; s = s->next)
		check_stmt(x, s);
}

/* ---- declarative forms --------------------------------------------------------------- */

/* A declarative form the lowering stage (lower.c) does not handle is checked for its names
 * and then refused by name: never silently ignored. */
static void not_lowered(Ctx *x, Loc loc, const char *form)
{
	diag_error(x->c->diag, loc, "the declarative form '%s' cannot be lowered yet", form);
	diag_note(x->c->diag, loc, "write it out as control, in and out rules for now");
}

static void check_settings(Ctx *x, Node *settings)
{
	Part saved = x->part;
	for (Node *s = settings; s; s = s->next) {
		x->part = PART_QUANTIZE;
		expect_numeric(x, s->lhs, check_expr(x, s->lhs), "a tolerance");
	}
	x->part = saved;
}

/* in_rules: the form is a loop rule inside a rules block, which is not lowered; at the
 * adaptation's level, multiply rate, successive substitution and delay are. */
static void check_general(Ctx *x, Node *g, bool in_rules)
{
	Part saved = x->part;
	x->part = PART_GENERAL;
	switch (g->kind) {
	case ND_SUBST:
		for (Node *p = g->list1; p; p = p->next)
			check_port_ref(x, p);
		check_settings(x, g->list2);
		if (in_rules)
			not_lowered(x, g->loc, "successive substitution");
		break;
	case ND_DELAY:
		for (Node *p = g->list1; p; p = p->next)
			check_port_ref(x, p);
		if (in_rules)
			not_lowered(x, g->loc, "delay");
		break;
	case ND_MULTIRATE:
		expect_numeric(x, g->lhs, check_expr(x, g->lhs), "the rate");
		break;
	case ND_DERIV:
		not_lowered(x, g->loc, g->op == DERIV_WITH ? "with derivatives" : "extract");
		break;
	default:
		break;
	}
	x->part = saved;
}

static const char *const hold_names[] = {"no hold", "zero order hold", "first order hold"};

/* where: NULL for a hold on an out rules block (lowered: lower.c, Hold), else why the
 * hold is not lowered. */
static void check_output_fn(Ctx *x, Node *f, const char *where)
{
	if (f->kind == ND_HOLD) {
		if (where)
			not_lowered(x, f->loc, arena_printf(x->c->arena, "%s (%s)", hold_names[f->op],
							    where));
	} else if (f->kind == ND_BLOCK) {
		check_block(x, f);
	} else {
		check_expr(x, f);
	}
}

/* The quantize rule of the rules block being checked that declares zone `name`, or NULL. */
static const Node *zone_declaration(Ctx *x, const char *name)
{
	for (Node *r = x->rules ? x->rules->list3 : NULL; r; r = r->next)
		if (r->op == RULE_QUANTIZE && r->lhs->op == QUANT_ZONES)
			for (Node *z = r->lhs->list1; z; z = z->next)
				if (z->kind == ND_STRING && strcmp(z->str, name) == 0)
					return z;
	return NULL;
}

/* The number of quantize rules of the rules block being checked whose zones are numbers
 * (`every` and `= expr`): an integer literal condition names a zone of the one there is. */
static int numbered_quantizers(Ctx *x)
{
	int n = 0;
	for (Node *r = x->rules ? x->rules->list3 : NULL; r; r = r->next)
		n += r->op == RULE_QUANTIZE && r->lhs->op != QUANT_ZONES;
	return n;
}

/* A zone condition: a zone name (a string literal) that a quantize rule of the block
 * declares (lower.c, Quantize, makes it the event of entering that zone). */
static void check_zone_condition(Ctx *x, Node *value)
{
	if (value->kind != ND_STRING) {
		diag_error(x->c->diag, value->loc, "a zone condition must be a zone's name, a string "
			   "literal");
		return;
	}
	if (zone_declaration(x, value->str))
		return;
	diag_error(x->c->diag, value->loc, "zone \"%s\" is used but no quantize rule of this "
		   "rules block declares it", value->str);
	StrBuf names;
	sb_init(&names);
	for (Node *r = x->rules->list3; r; r = r->next)
		if (r->op == RULE_QUANTIZE && r->lhs->op == QUANT_ZONES)
			for (Node *z = r->lhs->list1; z; z = z->next)
				if (z->kind == ND_STRING)
					sb_printf(&names, "%s\"%s\"", names.len ? ", " : "", z->str);
	if (names.len)
		diag_note(x->c->diag, value->loc, "the zones declared are %s", sb_str(&names));
	sb_free(&names);
}

static void check_condition(Ctx *x, Node *c)
{
	if (c->kind == ND_OTHERWISE)
		return; /* lowered (lower.c, Otherwise) */
	SaType t;
	Node *value = c; /* where the condition's value is written */
	if (c->kind == ND_BLOCK) {
		Scope *saved = x->scope;
		x->scope = scope_new(x, saved);
		Node *ret = ast_last(c->list1);
		for (Node *s = c->list1; s && s != ret; s = s->next)
			check_stmt(x, s);
		value = ret && ret->kind == ND_RETURN ? ret->lhs : NULL;
		t = value ? check_expr(x, value) : TY_NONE;
		x->scope = saved;
	} else {
		t = check_expr(x, c);
	}
	if (t == TY_STRING && x->quantized) {
		check_zone_condition(x, value);
		return;
	}
	if (t == TY_INTEGER && x->quantized && numbered_quantizers(x) &&
	    (value->kind == ND_INT || (value->kind == ND_UNARY && value->op == OP_NEG &&
				       value->lhs->kind == ND_INT))) {
		if (numbered_quantizers(x) > 1)
			diag_error(x->c->diag, value->loc, "a zone number could be of any of the %d "
				   "quantize rules (`every` or `= expr`) of this rules block",
				   numbered_quantizers(x));
		return; /* lowered (lower.c, Quantize): the event of entering that zone */
	}
	if (t != TY_NONE && t != TY_BOOL)
		diag_error(x->c->diag, value->loc, "a rule's condition must be Bool, not %s%s",
			   ast_type_name(t),
			   t == TY_STRING ? " (zone names need a quantize rule in the block)" :
			   t == TY_INTEGER && x->quantized && numbered_quantizers(x)
				   ? " (a zone number is an integer literal)" : "");
}

static bool has_crossing(const Node *e)
{
	if (!e)
		return false;
	if (e->kind == ND_BINARY && (e->op == OP_CROSS_UP || e->op == OP_CROSS_DOWN))
		return true;
	return has_crossing(e->lhs) || has_crossing(e->rhs);
}

static bool crossing_in_block(const Node *b)
{
	const Node *ret = ast_last(b->list1);
	return ret && ret->kind == ND_RETURN && has_crossing(ret->lhs);
}

/* Whether a condition (an expression or a block's `return e`) has a crossing. */
static bool cond_has_crossing(const Node *c)
{
	return c->kind == ND_BLOCK ? crossing_in_block(c) : has_crossing(c);
}

static const Node *first_crossing(const Node *e)
{
	if (!e)
		return NULL;
	if (e->kind == ND_BINARY && (e->op == OP_CROSS_UP || e->op == OP_CROSS_DOWN))
		return e;
	const Node *l = first_crossing(e->lhs);
	return l ? l : first_crossing(e->rhs);
}

/* A crossing operator in a block without crossing settings: it has no tolerance. */
static void no_crossing_settings(Ctx *x, const Node *cond)
{
	const Node *e = cond->kind == ND_BLOCK ? first_crossing(ast_last(cond->list1)->lhs)
					       : first_crossing(cond);
	if (!e)
		e = cond;
	diag_error(x->c->diag, e->loc, "the crossing operator '%s' needs crossing settings on "
		   "its rules block", ast_op_spelling(e->op));
	diag_note(x->c->diag, e->loc, "write `%s rules with crossing absolute tolerance = X and "
		  "relative tolerance = Y { ... }`, or the settings after the condition",
		  x->part == PART_OUT_COND ? "out" : "in");
}

/* A quantize rule's zones: names (strings) between limits (numbers), each name once in
 * the rules block. */
static void check_zones(Ctx *x, Node *q)
{
	SaType ts = check_expr(x, q->lhs);
	expect_numeric(x, q->lhs, ts, "the quantized signal");
	int i = 0;
	for (Node *z = q->list1; z; z = z->next, i++) {
		if (i % 2 == 0 && z->kind != ND_STRING) {
			diag_error(x->c->diag, z->loc, "a quantize rule names its zones with strings, "
				   "between limits: \"zone\", limit, \"zone\", ...");
			return;
		}
		if (i % 2 == 1) {
			expect_numeric(x, z, check_expr(x, z), "a zone's limit");
			continue;
		}
		const Node *first = zone_declaration(x, z->str);
		if (first != z) {
			diag_error(x->c->diag, z->loc, "zone \"%s\" is declared twice in this rules "
				   "block", z->str);
			diag_note(x->c->diag, first->loc, "first declared here");
		}
	}
	if (i % 2 == 0)
		diag_error(x->c->diag, q->loc, "a quantize rule ends with a zone, after its last "
			   "limit");
}

static void check_rules(Ctx *x, Node *rules, bool in)
{
	Scope *saved = x->scope;
	x->scope = scope_new(x, saved);
	x->quantized = false;
	x->rules = rules;
	for (Node *r = rules->list3; r; r = r->next)
		if (r->op == RULE_QUANTIZE)
			x->quantized = true;
	bool crossing = false;
	for (Node *s = rules->list1; s; s = s->next) {
		if (s->kind == ND_CROSSING) {
			check_settings(x, s->list1);
			crossing = true; /* lowered (lower.c, Crossing and CrossingOut) */
		} else {
			x->part = in ? PART_IN_MAP : PART_OUT_MAP;
			check_output_fn(x, s, in ? "on in rules" : NULL);
		}
	}
	for (Node *v = rules->list2; v; v = v->next) {
		x->part = PART_VARINIT;
		check_vardecl(x, v, SYM_LOCAL);
		declare(x, x->scope, v->name, v, SYM_LOCAL);
	}
	for (Node *r = rules->list3; r; r = r->next) {
		switch (r->op) {
		case RULE_COND:
			x->part = in ? PART_IN_COND : PART_OUT_COND;
			check_condition(x, r->cond);
			if (r->list1 && !cond_has_crossing(r->cond)) {
				diag_error(x->c->diag, r->list1->loc, "tolerance settings on a condition "
					   "without a crossing operator ('>!' or '<!') have nothing to set");
			} else if (cond_has_crossing(r->cond) && !crossing && !r->list1) {
				no_crossing_settings(x, r->cond);
			}
			check_settings(x, r->list1);
			x->part = in ? PART_IN_TRANS : PART_OUT_TRANS;
			check_block(x, r->then);
			break;
		case RULE_ASSIGN:
			x->part = in ? PART_IN_TRANS : PART_OUT_TRANS;
			check_block(x, r->then);
			break;
		case RULE_QUANTIZE: {
			Node *q = r->lhs;
			x->part = PART_QUANTIZE;
			if (q->op == QUANT_ZONES) {
				check_zones(x, q); /* lowered (lower.c, Quantize) */
				break;
			}
			expect_numeric(x, q->lhs, check_expr(x, q->lhs), "the quantized signal");
			for (Node *z = q->list1; z; z = z->next)
				check_expr(x, z);
			if (q->op == QUANT_EVERY) {
				expect_numeric(x, q->rhs, check_expr(x, q->rhs), "the quantum");
				if (q->els)
					expect_numeric(x, q->els, check_expr(x, q->els), "the offset");
			} else if (q->rhs) {
				SaType tf = check_expr(x, q->rhs);
				if (tf == TY_STRING)
					not_lowered(x, q->rhs->loc, "quantize (P, = expr) with a String zone");
			}
			/* lowered (lower.c, Quantize) */
			break;
		}
		case RULE_LOOP:
			check_general(x, r->lhs, true);
			break;
		}
		if (r->els) {
			x->part = in ? PART_IN_MAP : PART_OUT_MAP;
			check_output_fn(x, r->els, "on one rule");
		}
	}
	x->scope = saved;
}

static void check_control(Ctx *x, Node *ctrl)
{
	x->part = PART_CTRL;
	switch (ctrl->kind) {
	case ND_CTRL: {
		Scope *saved = x->scope;
		x->scope = scope_new(x, saved);
		check_stmts(x, ctrl->body->list1);
		x->scope = saved;
		break;
	}
	case ND_CTRL_IMPLIED:
		break; /* the default: CreateCtrlRules writes it out */
	case ND_CTRL_TRIGGERED:
	{
		SaType t = check_expr(x, ctrl->cond); /* lowered (lower.c, Triggered) */
		if (t != TY_NONE && t != TY_BOOL)
			diag_error(x->c->diag, ctrl->cond->loc, "the trigger of 'triggered by' must "
				   "be Bool, not %s", ast_type_name(t));
		break;
	}
	case ND_CTRL_PERIODIC:
		if (ctrl->lhs)
			expect_numeric(x, ctrl->lhs, check_expr(x, ctrl->lhs), "the start time");
		expect_numeric(x, ctrl->rhs, check_expr(x, ctrl->rhs), "the period");
		/* lowered (lower.c, Periodic) */
		break;
	case ND_CTRL_MULTIPLIED:
		expect_numeric(x, ctrl->lhs, check_expr(x, ctrl->lhs), "the count");
		/* lowered (lower.c, Multiplied) */
		break;
	default:
		break;
	}
}

/* ---- ports, bindings, couplings ------------------------------------------------------ */

static void check_external_port(Ctx *x, Node *p, bool input)
{
	bool unit_ok = !p->unit || check_unit_known(x, p->unit);
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
		SaType t = check_port_ref(x, p->bind);
		int want = input ? SYM_INNER_IN : SYM_INNER_OUT;
		if (p->bind->sym != SYM_NONE && p->bind->sym != want) {
			diag_error(x->c->diag, p->bind->loc, "%s port '%s' must be bound to an inner %s, "
				   "and '%s.%s' is %s %s", input ? "input" : "output", p->name,
				   input ? "input" : "output", p->bind->owner, p->bind->name,
				   sym_article(p->bind->sym), sym_words(p->bind->sym));
			return;
		}
		if (p->type == TY_NONE)
			p->type = t;
		else if (t != TY_NONE && !(input ? assignable(t, p->type) : assignable(p->type, t)))
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
		start = check_expr(x, p->init);
	if (p->type == TY_NONE)
		p->type = start != TY_NONE ? start : TY_REAL; /* an untyped port takes its start's */
	if (!assignable(p->type, start))
		diag_error(x->c->diag, p->init->loc, "start value of %s port '%s' is %s",
			   ast_type_name(p->type), p->name, ast_type_name(start));
}

static void check_coupling(Ctx *x, Node *c, Node **fed_by, Node **fed_port, int nfed)
{
	check_port_ref(x, c->lhs);
	check_port_ref(x, c->rhs);
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
	if (!assignable(pb->type, pa->type))
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
}

/* ---- the adaptation ------------------------------------------------------------------ */

static void declare_vars(Ctx *x, Node *vars, int sym)
{
	for (Node *v = vars; v; v = v->next) {
		x->part = PART_VARINIT;
		check_vardecl(x, v, sym);
		declare(x, x->top, v->name, v, sym);
	}
}

SaInfo *chk_adaptation(Compilation *c, Module *m, Node *sa)
{
	if (sa->info) {
		SaInfo *done = sa->info;
		if (!done->checked_ok && !done->dir) {
			diag_error(c->diag, sa->loc, "adaptation '%s' depends on itself through its "
				   "inner fmus", sa->name);
			return NULL;
		}
		return done;
	}
	if (!m) {
		/* Called for a dependency: find its module. */
		for (Module *k = c->modules; k && !m; k = k->next)
			for (Node *e = k->root ? k->root->list2 : NULL; e; e = e->next)
				if (e == sa)
					m = k;
		if (!m)
			return NULL;
	}
	Arena *a = c->arena;
	SaInfo *info = arena_alloc(a, sizeof *info);
	info->sa = sa;
	sa->info = info; /* marks "being checked" until dir is set */
	int errors_before = diag_errors(c->diag);

	Ctx x = {.c = c, .m = m, .info = info, .sa = sa};
	x.top = x.scope = scope_new(&x, NULL);

	/* Inner FMUs: names first, then their ports. */
	for (Node *d = sa->a_inners; d; d = d->next) {
		if (strcmp(d->name, sa->name) == 0)
			diag_error(c->diag, d->loc, "inner fmu '%s' has the adaptation's own name",
				   d->name);
		declare(&x, x.top, d->name, d, SYM_INNER);
		info->ninners++;
	}
	info->inners = arena_alloc(a, (size_t)(info->ninners + 1) * sizeof *info->inners);
	int k = 0;
	for (Node *d = sa->a_inners; d; d = d->next) {
		Inner *in = resolve_inner(&x, d);
		d->info = in;
		info->inners[k++] = in;
	}

	/* The adaptation's own names. */
	for (Node *p = sa->a_inports; p; p = p->next)
		declare(&x, x.top, p->name, p, SYM_INPORT);
	for (Node *p = sa->a_outports; p; p = p->next)
		declare(&x, x.top, p->name, p, SYM_OUTPORT);
	x.part = PART_GENERAL;
	for (Node *p = sa->a_inports; p; p = p->next)
		check_external_port(&x, p, true);
	for (Node *p = sa->a_outports; p; p = p->next)
		check_external_port(&x, p, false);
	for (Node *p = sa->a_params; p; p = p->next) {
		x.part = PART_PARAM;
		check_vardecl(&x, p, SYM_PARAM);
		declare(&x, x.top, p->name, p, SYM_PARAM);
	}
	declare_vars(&x, sa->a_ctrl_vars, SYM_CTRL_VAR);
	declare_vars(&x, sa->a_in_vars, SYM_IN_VAR);
	declare_vars(&x, sa->a_out_vars, SYM_OUT_VAR);

	/* Couplings, and that no inner input is fed twice (by couplings or bindings). */
	int nfed = 0, cap = ast_count(sa->a_couplings) + ast_count(sa->a_inports) + 1;
	Node **fed_by = arena_alloc(a, (size_t)cap * sizeof *fed_by);
	Node **fed_port = arena_alloc(a, (size_t)cap * sizeof *fed_port);
	for (Node *p = sa->a_inports; p; p = p->next)
		if (p->bind_dir == BIND_TO && p->bind->sym == SYM_INNER_IN) {
			for (int i = 0; i < nfed; i++)
				if (fed_port[i] == p->bind->decl) {
					diag_error(c->diag, p->bind->loc, "'%s.%s' is fed twice",
						   p->bind->owner, p->bind->name);
					diag_note(c->diag, fed_by[i]->loc, "it is already fed here");
				}
			fed_by[nfed] = p;
			fed_port[nfed++] = p->bind->decl;
		}
	for (Node *cp = sa->a_couplings; cp; cp = cp->next) {
		check_coupling(&x, cp, fed_by, fed_port, nfed);
		if (cp->rhs->sym == SYM_INNER_IN) {
			fed_by[nfed] = cp;
			fed_port[nfed++] = cp->rhs->decl;
		}
	}

	for (Node *g = sa->a_general; g; g = g->next)
		check_general(&x, g, false);
	if (sa->a_ctrl)
		check_control(&x, sa->a_ctrl);
	if (sa->a_in_rules)
		check_rules(&x, sa->a_in_rules, true);
	if (sa->a_out_rules)
		check_rules(&x, sa->a_out_rules, false);

	info->dir = m->dir;
	info->checked_ok = diag_errors(c->diag) == errors_before;
	return info;
}

/* The top-level element named name that a scenario connection can reach: an fmu or an
 * adaptation of this module or of one it imports. */
static Node *scenario_element(Module *m, const char *name)
{
	for (int k = -1; k < m->nimports; k++) {
		Module *mk = k < 0 ? m : m->imports[k];
		for (Node *el = mk && mk->root ? mk->root->list2 : NULL; el; el = el->next)
			if ((el->kind == ND_FMU_DECL || el->kind == ND_ADAPTATION) &&
			    strcmp(el->name, name) == 0)
				return el;
	}
	return NULL;
}

/* One end of a scenario connection to a declared fmu: the variable it names, which must
 * be an output (the source) or an input (the target).  NULL after a report, or when the
 * fmu could not be read (reported where it is declared). */
static const FmuVar *scenario_port(Ctx *x, Node *e, Node *decl, bool source)
{
	FmuInfo *fmu = decl->info;
	if (!fmu)
		return NULL;
	const FmuVar *v = fmu_find_var(fmu, e->name);
	if (!v) {
		Loc at = port_name_loc(e);
		diag_error(x->c->diag, at, "fmu '%s' has no port '%s'", decl->name, e->name);
		const char *cands[512];
		int n = 0;
		for (int i = 0; i < fmu->nvars && n < 512; i++)
			if (fmu->vars[i].causality == CAUS_INPUT || fmu->vars[i].causality == CAUS_OUTPUT)
				cands[n++] = fmu->vars[i].name;
		const char *best = nearest(e->name, cands, n);
		if (best)
			diag_note(x->c->diag, at, "did you mean '%s'?", best);
		return NULL;
	}
	if (v->causality != (source ? CAUS_OUTPUT : CAUS_INPUT)) {
		diag_error(x->c->diag, e->loc, "a connection goes from an output to an input, and "
			   "'%s.%s' is %s", decl->name, e->name, causality_words(v->causality));
		return NULL;
	}
	return v;
}

/* A scenario module's top-level connections between declared FMUs: both ends exist, go
 * from an output to an input, and carry convertible units (the conversion is stored on
 * the connection, as for couplings).  Ports of adaptations are not looked into here. */
static void check_scenario_connection(Ctx *x, Node *conn)
{
	Node *ends[2] = {conn->lhs, conn->rhs};
	const FmuVar *vars[2] = {NULL, NULL};
	for (int i = 0; i < 2; i++) {
		Node *e = ends[i];
		if (!e->owner) {
			diag_error(x->c->diag, e->loc, "a scenario connection names 'fmu.port', not '%s'",
				   e->name);
			continue;
		}
		Node *el = scenario_element(x->m, e->owner);
		if (!el)
			diag_error(x->c->diag, owner_loc(e), "no fmu or adaptation named '%s' in this "
				   "scenario", e->owner);
		else if (el->kind == ND_FMU_DECL)
			vars[i] = scenario_port(x, e, el, i == 0);
	}
	if (!vars[0] || !vars[1])
		return;
	const char *what = arena_printf(x->c->arena, "connection '%s.%s -> %s.%s'", conn->lhs->owner,
					conn->lhs->name, conn->rhs->owner, conn->rhs->name);
	SaType from = fmu_sa_type(vars[0]->type), to = fmu_sa_type(vars[1]->type);
	if (!assignable(to, from))
		diag_error(x->c->diag, conn->loc, "%s connects a %s output to a %s input", what,
			   ast_type_name(from), ast_type_name(to));
	double scale, offset;
	if (vars[0]->unit && vars[1]->unit &&
	    conversion(x, conn->loc, what, vars[0]->unit, vars[1]->unit, &scale, &offset)) {
		conn->scale = scale;
		conn->offset = offset;
		conn->converts = scale != 1 || offset != 0;
	}
}

/* Opens, once, each fmu this module declares that its connections use: a missing or
 * unreadable one is reported at its declaration, not at every connection. */
static void open_scenario_fmus(Ctx *x)
{
	for (Node *d = x->m->root->list2; d; d = d->next) {
		if (d->kind != ND_FMU_DECL || d->info)
			continue;
		bool used = false;
		for (Node *e = x->m->root->list2; e && !used; e = e->next)
			used = e->kind == ND_CONNECTION &&
			       ((e->lhs->owner && strcmp(e->lhs->owner, d->name) == 0) ||
				(e->rhs->owner && strcmp(e->rhs->owner, d->name) == 0));
		if (!used)
			continue;
		const char *file = find_fmu_file(x, d->str);
		if (!file) {
			diag_error(x->c->diag, d->loc, "cannot find fmu '%s' at \"%s\"", d->name, d->str);
			diag_note(x->c->diag, d->loc, "looked beside the script and in %d -L director%s",
				  x->c->nfmu_dirs, x->c->nfmu_dirs == 1 ? "y" : "ies");
			continue;
		}
		d->info = drv_open_fmu(x->c, file, d->loc);
	}
}

int chk_module(Compilation *c, Module *m)
{
	int before = diag_errors(c->diag);
	if (!m->root)
		return 1;
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			chk_adaptation(c, m, e);
	Ctx x = {.c = c, .m = m};
	open_scenario_fmus(&x);
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_CONNECTION)
			check_scenario_connection(&x, e);
	return diag_errors(c->diag) - before;
}
