/* emit.c — the wrapper's external interface, computed once for every emitter (emit.h).
 *
 * From an adaptation in explicit form: the ScalarVariables (external inputs, external
 * outputs, params) with value references, start values from constant expressions, and
 * the params' variability; the units with their SI base units; the content-derived GUID;
 * the capabilities the inner FMUs allow.  `sacc emit` and `sacc build` write the files from it
 * through one path (compiler/package/package.c, pkg_emit and build_one). */
#include "emit.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "version.h"

const EmitLogCategory emit_log_categories[] = {
	{"logStatusWarning", "calls that return fmi2Warning, with why"},
	{"logStatusDiscard", "steps that return fmi2Discard: the control rules took a shorter "
	                     "step, or an inner FMU discarded"},
	{"logStatusError", "calls that return fmi2Error: a call in the wrong state, an unknown "
	                   "value reference, an error of an inner FMU"},
	{"logStatusFatal", "calls that return fmi2Fatal"},
	{"logFmiCalls", "every fmi2 function the importer calls, with its arguments"},
	{"logInner", "messages of the inner FMUs, prefixed with the inner instance name"},
	{NULL, NULL},
};

/* Inner adaptations nest through imports, which cannot be circular; this only bounds the
 * recursion should a broken tree ever say otherwise. */
enum { MAX_NESTING = 64 };

/* ---- SHA-1 (FIPS 180-4), for the name-based GUID ----------------------------------------- */

typedef struct Sha1 {
	uint32_t h[5];
	uint64_t bytes;
	unsigned char block[64];
	size_t nblock;
} Sha1;

static uint32_t rotl(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_init(Sha1 *s)
{
	static const uint32_t h0[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u,
	                               0xC3D2E1F0u};
	memcpy(s->h, h0, sizeof h0);
	s->bytes = 0;
	s->nblock = 0;
}

static void sha1_compress(Sha1 *s, const unsigned char *p)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5A827999u;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ED9EBA1u;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8F1BBCDCu;
		} else {
			f = b ^ c ^ d;
			k = 0xCA62C1D6u;
		}
		uint32_t t = rotl(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rotl(b, 30);
		b = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

static void sha1_update(Sha1 *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	s->bytes += n;
	while (n > 0) {
		size_t take = 64 - s->nblock < n ? 64 - s->nblock : n;
		memcpy(s->block + s->nblock, p, take);
		s->nblock += take;
		p += take;
		n -= take;
		if (s->nblock == 64) {
			sha1_compress(s, s->block);
			s->nblock = 0;
		}
	}
}

static void sha1_final(Sha1 *s, unsigned char out[20])
{
	uint64_t bits = s->bytes * 8;
	unsigned char pad = 0x80;
	sha1_update(s, &pad, 1);
	pad = 0;
	while (s->nblock != 56)
		sha1_update(s, &pad, 1);
	unsigned char len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_update(s, len, 8);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
}

/* ---- GUID and capabilities --------------------------------------------------------------- */

/* The namespace of sacc's name-based UUIDs (made up once; never change it). */
static const unsigned char guid_namespace[16] = {
	0x5a, 0xcc, 0x2b, 0x1e, 0x9f, 0x04, 0x4d, 0x6a,
	0x8e, 0x31, 0x7c, 0x52, 0xd0, 0x96, 0xa4, 0x1b,
};

static bool guid_at(Compilation *c, const SaInfo *info, char out[40], int depth)
{
	if (!info || !info->sa || depth > MAX_NESTING)
		return false;
	StrBuf sb;
	sb_init(&sb);
	sb_puts(&sb, "sacc " SACC_VERSION "\n");
	ast_print_adaptation(&sb, info->sa);
	bool ok = true;
	for (int i = 0; i < info->ninners && ok; i++) {
		const Inner *in = info->inners[i];
		char inner_guid[40];
		const char *g = NULL;
		if (in->fmu)
			g = in->fmu->guid ? in->fmu->guid : "";
		else if (in->adaptation && guid_at(c, in->adaptation->info, inner_guid, depth + 1))
			g = inner_guid;
		else
			ok = false;
		if (ok)
			sb_printf(&sb, "inner %s %s\n", in->name, g);
	}
	if (ok) {
		Sha1 s;
		unsigned char h[20];
		sha1_init(&s);
		sha1_update(&s, guid_namespace, sizeof guid_namespace);
		sha1_update(&s, sb_str(&sb), sb.len);
		sha1_final(&s, h);
		h[6] = (unsigned char)((h[6] & 0x0f) | 0x50); /* version 5: name-based, SHA-1 */
		h[8] = (unsigned char)((h[8] & 0x3f) | 0x80); /* the RFC 4122 variant */
		snprintf(out, 40,
			 "{%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
			 h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11],
			 h[12], h[13], h[14], h[15]);
	}
	sb_free(&sb);
	return ok;
}

bool emit_guid(Compilation *c, const SaInfo *info, char out[40])
{
	return guid_at(c, info, out, 0);
}

/* *acc := the larger (or smaller) of *acc and v, either NaN when absent. */
static void fold_experiment(double *acc, double v, bool larger)
{
	if (!isnan(v) && (isnan(*acc) || (larger ? v > *acc : v < *acc)))
		*acc = v;
}

/* Folds the capabilities and DefaultExperiments of every inner FMU, through inner
 * adaptations, into the layout. */
static void inner_caps(const SaInfo *info, EmitLayout *l, int depth)
{
	if (!info || depth > MAX_NESTING) {
		l->can_get_and_set_fmu_state = l->can_serialize_fmu_state = false;
		return;
	}
	for (int i = 0; i < info->ninners; i++) {
		const Inner *in = info->inners[i];
		if (in->fmu) {
			/* the element of the interface the wrapper runs it through */
			FmuAbilities ab = fmu_abilities(in->fmu, in->me);
			l->can_get_and_set_fmu_state &= ab.can_get_and_set_fmu_state;
			l->can_serialize_fmu_state &= ab.can_serialize_fmu_state;
			l->can_be_instantiated_only_once_per_process |=
				ab.can_be_instantiated_only_once_per_process;
			fold_experiment(&l->default_start, in->fmu->default_start, true);
			fold_experiment(&l->default_stop, in->fmu->default_stop, false);
			if (in->fmu->default_step > 0)
				fold_experiment(&l->default_step, in->fmu->default_step, false);
		} else if (in->adaptation) {
			inner_caps(in->adaptation->info, l, depth + 1);
		} else {
			l->can_get_and_set_fmu_state = l->can_serialize_fmu_state = false;
		}
	}
}

/* ---- constant expressions (start values) ------------------------------------------------- */

typedef struct CVal {
	SaType t;
	EmitValue v;
} CVal;

enum { PS_NEW, PS_BUSY, PS_DONE, PS_FAILED };

/* A param's read marks: where its name is used. */
enum { READ_IN_RULES = 1, READ_IN_INITIAL = 2 };

typedef struct Lay {
	Compilation *c;
	Node *sa;
	Node **params;
	int nparams;
	CVal *pval;
	int *pstate;
	int *reads;
	/* The first reason an expression is not constant, for the report. */
	const Node *why_node;
	const char *why;
	/* The params by name; the names INIT_<A>_<P> of start values (param_unit) with what
	 * each stands for and its unit: tables, as a wrapper of thousands of inners has
	 * thousands of each, and a search through all for each made its layout quadratic. */
	NameIndex pnames, inits;
	bool inits_ready;
	const char **init_what, **init_unit;
	/* The vars whose initial value is a name, by that name (param_purpose): the first of
	 * each, made on the first question. */
	NameIndex var_inits;
	bool var_inits_ready;
	const Node **var_init_decl;
	const char **var_init_what;
} Lay;

static int param_named(const Lay *y, const char *name)
{
	return name_index_find(&y->pnames, name);
}

static int param_index(const Lay *y, const Node *name)
{
	if (name->decl) {
		/* the first param of its name is it, unless two share a name */
		int i = name->decl->name ? param_named(y, name->decl->name) : -1;
		if (i >= 0 && y->params[i] == name->decl)
			return i;
		for (i = 0; i < y->nparams; i++)
			if (y->params[i] == name->decl)
				return i;
	}
	if (name->sym != SYM_NONE && name->sym != SYM_PARAM)
		return -1;
	return param_named(y, name->name);
}

static bool not_const(Lay *y, const Node *e, const char *why)
{
	if (!y->why) {
		y->why_node = e;
		y->why = why;
	}
	return false;
}

static bool is_number(SaType t)
{
	return t == TY_INTEGER || t == TY_REAL;
}

static double as_real(const CVal *v)
{
	return v->t == TY_INTEGER ? (double)v->v.i : v->v.r;
}

static bool eval(Lay *y, const Node *e, CVal *out);
static bool eval_param(Lay *y, int k);

/* A Real result must be finite; an Integer one comes from checked arithmetic. */
static bool real_result(Lay *y, const Node *e, double r, CVal *out)
{
	if (!isfinite(r))
		return not_const(y, e, "its value is not a finite number");
	*out = (CVal){TY_REAL, {.r = r}};
	return true;
}

static bool int_result(Lay *y, const Node *e, bool overflow, long long i, CVal *out)
{
	if (overflow)
		return not_const(y, e, "its value overflows a 64-bit integer");
	*out = (CVal){TY_INTEGER, {.i = i}};
	return true;
}

static bool eval_binary(Lay *y, const Node *e, CVal *out)
{
	CVal a, b;
	if (!eval(y, e->lhs, &a) || !eval(y, e->rhs, &b))
		return false;
	bool ints = a.t == TY_INTEGER && b.t == TY_INTEGER;
	bool nums = is_number(a.t) && is_number(b.t);
	switch (e->op) {
	case OP_OR:
	case OP_AND:
		if (a.t != TY_BOOL || b.t != TY_BOOL)
			break;
		*out = (CVal){TY_BOOL, {.b = e->op == OP_OR ? a.v.b || b.v.b : a.v.b && b.v.b}};
		return true;
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
	case OP_EQ:
	case OP_NE: {
		int cmp;
		if (nums && ints)
			cmp = (a.v.i > b.v.i) - (a.v.i < b.v.i);
		else if (nums)
			cmp = (as_real(&a) > as_real(&b)) - (as_real(&a) < as_real(&b));
		else if (a.t == TY_BOOL && b.t == TY_BOOL)
			cmp = (int)a.v.b - (int)b.v.b;
		else if (a.t == TY_STRING && b.t == TY_STRING)
			cmp = strcmp(a.v.s, b.v.s);
		else
			break;
		bool r = e->op == OP_LT ? cmp < 0 : e->op == OP_LE ? cmp <= 0 : e->op == OP_GT ? cmp > 0
		       : e->op == OP_GE ? cmp >= 0 : e->op == OP_EQ ? cmp == 0 : cmp != 0;
		*out = (CVal){TY_BOOL, {.b = r}};
		return true;
	}
	case OP_ADD:
	case OP_SUB:
	case OP_MUL: {
		if (!nums)
			break;
		if (ints) {
			long long r = 0;
			bool over = e->op == OP_ADD   ? __builtin_add_overflow(a.v.i, b.v.i, &r)
			            : e->op == OP_SUB ? __builtin_sub_overflow(a.v.i, b.v.i, &r)
			                              : __builtin_mul_overflow(a.v.i, b.v.i, &r);
			return int_result(y, e, over, r, out);
		}
		double x = as_real(&a), z = as_real(&b);
		return real_result(y, e, e->op == OP_ADD ? x + z : e->op == OP_SUB ? x - z : x * z,
				   out);
	}
	case OP_DIV: /* always Real in the language */
		if (!nums)
			break;
		if (as_real(&b) == 0.0)
			return not_const(y, e, "it divides by zero");
		return real_result(y, e, as_real(&a) / as_real(&b), out);
	default:
		break;
	}
	return not_const(y, e, "the operator has no constant value");
}

/* floor, ceil and one-argument round give Integers, as the checker types them. */
static bool eval_to_integer(Lay *y, const Node *e, double r, CVal *out)
{
	if (!(r >= -9.2e18 && r <= 9.2e18))
		return not_const(y, e, "its value does not fit an integer");
	return int_result(y, e, false, (long long)r, out);
}

static bool eval_builtin(Lay *y, const Node *e, CVal *out)
{
	int nargs = ast_count(e->list1);
	CVal a;
	switch (e->op) {
	case BI_FLOOR:
	case BI_CEIL:
	case BI_ABS:
		if (nargs != 1 || !eval(y, e->list1, &a))
			break;
		if (!is_number(a.t))
			break;
		if (e->op == BI_ABS) {
			if (a.t == TY_INTEGER)
				return int_result(y, e, a.v.i == LLONG_MIN, llabs(a.v.i), out);
			return real_result(y, e, fabs(a.v.r), out);
		}
		if (a.t == TY_INTEGER)
			return int_result(y, e, false, a.v.i, out);
		return eval_to_integer(y, e, e->op == BI_FLOOR ? floor(a.v.r) : ceil(a.v.r), out);
	case BI_ROUND:
		if (nargs != 1 || !eval(y, e->list1, &a) || !is_number(a.t))
			break;
		if (a.t == TY_INTEGER)
			return int_result(y, e, false, a.v.i, out);
		return eval_to_integer(y, e, round(a.v.r), out);
	case BI_MAX:
	case BI_MIN: {
		if (nargs < 1)
			break;
		CVal best = {TY_NONE, {0}};
		for (const Node *arg = e->list1; arg; arg = arg->next) {
			if (!eval(y, arg, &a))
				return false;
			if (!is_number(a.t))
				return not_const(y, arg, "the argument is not a number");
			if (best.t == TY_NONE) {
				best = a;
				continue;
			}
			bool take = e->op == BI_MAX ? as_real(&a) > as_real(&best)
			                            : as_real(&a) < as_real(&best);
			if (a.t == TY_INTEGER && best.t == TY_INTEGER)
				take = e->op == BI_MAX ? a.v.i > best.v.i : a.v.i < best.v.i;
			bool real = a.t == TY_REAL || best.t == TY_REAL;
			if (take)
				best = a;
			if (real && best.t == TY_INTEGER)
				best = (CVal){TY_REAL, {.r = (double)best.v.i}};
		}
		*out = best;
		return true;
	}
	default:
		break;
	}
	if (y->why)
		return false;
	if (e->op == BI_ROUND && nargs == 2)
		return not_const(y, e, "round to a number of digits is not evaluated at compile time");
	return not_const(y, e, arena_printf(y->c->arena, "%s has no value at compile time",
					    ast_builtin_name(e->op)));
}

static bool eval(Lay *y, const Node *e, CVal *out)
{
	switch (e->kind) {
	case ND_INT:
		*out = (CVal){TY_INTEGER, {.i = e->ival}};
		return true;
	case ND_REAL:
		return real_result(y, e, e->rval, out);
	case ND_BOOL:
		*out = (CVal){TY_BOOL, {.b = e->ival != 0}};
		return true;
	case ND_STRING:
		*out = (CVal){TY_STRING, {.s = e->str ? e->str : ""}};
		return true;
	case ND_NAME: {
		int k = param_index(y, e);
		if (k < 0)
			return not_const(y, e, arena_printf(y->c->arena, "'%s' is not a parameter",
							    e->name));
		if (!eval_param(y, k))
			return not_const(y, e, arena_printf(y->c->arena, "parameter '%s' has no "
							    "constant value", e->name));
		*out = y->pval[k];
		return true;
	}
	case ND_UNARY: {
		CVal a;
		if (!eval(y, e->lhs, &a))
			return false;
		if (e->op == OP_NOT && a.t == TY_BOOL) {
			*out = (CVal){TY_BOOL, {.b = !a.v.b}};
			return true;
		}
		if (e->op == OP_NEG && a.t == TY_INTEGER)
			return int_result(y, e, a.v.i == LLONG_MIN, -a.v.i, out);
		if (e->op == OP_NEG && a.t == TY_REAL)
			return real_result(y, e, -a.v.r, out);
		return not_const(y, e, "the operator has no constant value");
	}
	case ND_BINARY:
		return eval_binary(y, e, out);
	case ND_BUILTIN:
		return eval_builtin(y, e, out);
	default:
		return not_const(y, e, "it depends on the simulation");
	}
}

/* Converts a constant to type t (Integer widens to Real) and checks that a wrapper's 32-bit
 * Integer can hold it.  false after setting the reason. */
static bool convert_to(Lay *y, const Node *e, CVal *v, SaType t)
{
	if (t == TY_REAL && v->t == TY_INTEGER)
		*v = (CVal){TY_REAL, {.r = (double)v->v.i}};
	if (v->t != t)
		return not_const(y, e, arena_printf(y->c->arena, "its value is %s, not %s",
						    ast_type_name(v->t), ast_type_name(t)));
	if (t == TY_INTEGER && (v->v.i < INT32_MIN || v->v.i > INT32_MAX))
		return not_const(y, e, "a wrapper's Integer has 32 bits (FMI 2.0 Integer, FMI 3.0 Int32) and this value does not fit");
	return true;
}

static SaType param_type(const Node *p)
{
	return p->type != TY_NONE ? p->type : TY_REAL;
}

static bool eval_param(Lay *y, int k)
{
	switch (y->pstate[k]) {
	case PS_DONE:
		return true;
	case PS_FAILED:
		return false;
	case PS_BUSY:
		return not_const(y, y->params[k], "its value depends on itself");
	default:
		break;
	}
	Node *p = y->params[k];
	y->pstate[k] = PS_BUSY;
	CVal v;
	bool ok = p->init ? eval(y, p->init, &v) : not_const(y, p, "it has no value");
	if (ok)
		ok = convert_to(y, p->init, &v, param_type(p));
	y->pstate[k] = ok ? PS_DONE : PS_FAILED;
	if (ok)
		y->pval[k] = v;
	return ok;
}

/* ---- where params are read (fixed or tunable) -------------------------------------------- */

static void mark_reads(Lay *y, const Node *n, int how);

static void mark_list(Lay *y, const Node *list, int how)
{
	for (const Node *n = list; n; n = n->next)
		mark_reads(y, n, how);
}

static void mark_reads(Lay *y, const Node *n, int how)
{
	if (!n)
		return;
	if (n->kind == ND_NAME) {
		int k = param_index(y, n);
		if (k >= 0)
			y->reads[k] |= how;
		return;
	}
	const Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->body, n->bind};
	for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
		mark_reads(y, kids[i], how);
	mark_list(y, n->list1, how);
	/* A rules block's own vars are storage: their initialisers are initial values. */
	mark_list(y, n->list2, n->kind == ND_RULES ? READ_IN_INITIAL : how);
	mark_list(y, n->list3, how);
}

static void mark_decl_inits(Lay *y, const Node *decls)
{
	for (const Node *d = decls; d; d = d->next)
		mark_reads(y, d->init, READ_IN_INITIAL);
}

/* ---- the layout -------------------------------------------------------------------------- */

static char *upper(Arena *a, const char *s)
{
	char *u = arena_strdup(a, s);
	for (char *p = u; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return u;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

static EmitValue default_value(SaType t)
{
	EmitValue v = {0};
	if (t == TY_STRING)
		v.s = "";
	return v;
}

/* Reports why the constant for what (declared at `at`) could not be computed; false. */
static bool report(Lay *y, const Node *at, const char *what)
{
	const Node *where = y->why_node ? y->why_node : at;
	diag_error(y->c->diag, at->loc, "%s cannot be written to the model description", what);
	diag_note(y->c->diag, where->loc, "%s", y->why ? y->why : "it is not a constant");
	y->why = NULL;
	y->why_node = NULL;
	return false;
}

static uint32_t next_vr(EmitLayout *l, SaType t)
{
	switch (t) {
	case TY_INTEGER: return l->ninteger++;
	case TY_BOOL: return l->nboolean++;
	case TY_STRING: return l->nstring++;
	default: return l->nreal++;
	}
}

/* The storage var whose initial value is exactly the param: what the param is for. */
static const char *param_purpose(Lay *y, const Node *p)
{
	if (!y->var_inits_ready) {
		const struct {
			const Node *vars;
			const char *what;
		} groups[] = {{y->sa->a_in_vars, "in var"}, {y->sa->a_out_vars, "out var"},
			      {y->sa->a_ctrl_vars, "control var"}};
		int n = 0;
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
			n += ast_count(groups[g].vars);
		y->var_init_decl = arena_alloc(y->c->arena, ((size_t)n + 1) * sizeof *y->var_init_decl);
		y->var_init_what = arena_alloc(y->c->arena, ((size_t)n + 1) * sizeof *y->var_init_what);
		n = 0;
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
			for (const Node *d = groups[g].vars; d; d = d->next)
				if (d->init && d->init->kind == ND_NAME &&
				    name_index_find(&y->var_inits, d->init->name) < 0) {
					if (name_index_add(&y->var_inits, d->init->name, n) != 0)
						diag_error(y->c->diag, y->sa->loc, "out of memory");
					y->var_init_decl[n] = d;
					y->var_init_what[n++] = groups[g].what;
				}
		y->var_inits_ready = true;
	}
	int k = name_index_find(&y->var_inits, p->name);
	if (k < 0)
		return NULL;
	return arena_printf(y->c->arena, "initial value of %s %s", y->var_init_what[k],
			    y->var_init_decl[k]->name);
}

static bool add_port(Lay *y, EmitLayout *l, Node *p, bool input)
{
	Arena *a = y->c->arena;
	EmitVar *v = &l->vars[l->nvars];
	v->index = ++l->nvars;
	v->name = p->name;
	v->cname = p->name;
	v->decl = p;
	v->type = p->type != TY_NONE ? p->type : TY_REAL;
	v->causality = input ? CAUS_INPUT : CAUS_OUTPUT;
	/* a port that carries a discrete inner port is discrete too: an importer holds it */
	v->variability = sema_port_discrete(l->info, p) ? VAR_DISCRETE : VAR_CONTINUOUS;
	v->initial = input ? INIT_UNSET : INIT_CALCULATED;
	v->unit = v->type == TY_REAL && p->unit ? p->unit->str : NULL;
	v->vr = next_vr(l, v->type);
	if (p->origin)
		v->description = arena_printf(a, "added by %s for the inner %s of the same name",
					      p->origin, input ? "input" : "output");
	if (p->mult_hi >= 0) {
		diag_error(y->c->diag, p->loc, "port '%s' is an array, which an FMI 2.0 model "
			   "description cannot declare yet", p->name);
		return false;
	}
	if (!input)
		return true;
	/* The port's start value, else its INIT_ param's, else the type's zero. */
	v->has_start = true;
	v->start = default_value(v->type);
	CVal c;
	if (p->init && p->init->kind != ND_ARRAY) {
		if (!eval(y, p->init, &c) || !convert_to(y, p->init, &c, v->type))
			return report(y, p, arena_printf(a, "the start value of input '%s'",
							 p->name));
		v->start = c.v;
		return true;
	}
	int k = param_named(y, arena_printf(a, "INIT_%s_%s", upper(a, y->sa->name),
					    upper(a, p->name)));
	if (k >= 0 && eval_param(y, k)) {
		c = y->pval[k];
		if (convert_to(y, p, &c, v->type))
			v->start = c.v;
	}
	y->why = NULL;
	y->why_node = NULL;
	return true;
}

/* What an INIT_ param gives the start value of: the external input
 * INIT_<ADAPTATION>_<PORT>, or the inner output INIT_<INNER>_<PORT> (the explicit form's
 * names).  Its unit (NULL when it has none or the param is no INIT_ param), and in *what
 * the port in words. */
/* The names INIT_<A>_<P> of the start values rule CreateExternalInputPortVars and
 * CreateExternalOutputPortVars give params, each with what it stands for and its unit,
 * first one kept (the search through inputs, then inners' outputs, found it first). */
static void init_names(Lay *y, SaInfo *info)
{
	Arena *a = y->c->arena;
	int n = ast_count(y->sa->a_inports), k = 0;
	for (int f = 0; f < info->ninners; f++)
		n += info->inners[f]->nports;
	y->init_what = arena_alloc(a, (size_t)(n + 1) * sizeof *y->init_what);
	y->init_unit = arena_alloc(a, (size_t)(n + 1) * sizeof *y->init_unit);
	const char *sa_up = upper(a, y->sa->name);
	for (const Node *q = y->sa->a_inports; q; q = q->next, k++) {
		y->init_what[k] = arena_printf(a, "input '%s'", q->name);
		y->init_unit[k] = q->unit ? q->unit->str : NULL;
		if (name_index_add(&y->inits, arena_printf(a, "INIT_%s_%s", sa_up, upper(a, q->name)),
		                   k) != 0)
			diag_error(y->c->diag, y->sa->loc, "out of memory");
	}
	for (int f = 0; f < info->ninners; f++) {
		const Inner *in = info->inners[f];
		const char *in_up = upper(a, in->name);
		for (int i = 0; i < in->nports; i++) {
			if (in->ports[i].is_input)
				continue;
			y->init_what[k] = arena_printf(a, "inner output '%s.%s'", in->name, in->ports[i].name);
			y->init_unit[k] = in->ports[i].unit;
			if (name_index_add(&y->inits, arena_printf(a, "INIT_%s_%s", in_up,
			                                           upper(a, in->ports[i].name)), k) != 0)
				diag_error(y->c->diag, y->sa->loc, "out of memory");
			k++;
		}
	}
}

static const char *param_unit(Lay *y, SaInfo *info, const Node *p, const char **what)
{
	*what = NULL;
	if (strncmp(p->name, "INIT_", 5) != 0)
		return NULL;
	if (!y->inits_ready) {
		y->inits_ready = true;
		init_names(y, info);
	}
	int k = name_index_find(&y->inits, p->name);
	if (k < 0)
		return NULL;
	*what = y->init_what[k];
	return y->init_unit[k];
}

static bool add_param(Lay *y, EmitLayout *l, int k)
{
	Node *p = y->params[k];
	EmitVar *v = &l->vars[l->nvars];
	v->index = ++l->nvars;
	v->name = p->name;
	v->cname = p->name;
	v->decl = p;
	v->type = param_type(p);
	v->causality = CAUS_PARAMETER;
	v->variability = y->reads[k] == READ_IN_RULES ? VAR_TUNABLE : VAR_FIXED;
	v->initial = INIT_EXACT;
	v->vr = next_vr(l, v->type);
	v->description = param_purpose(y, p);
	const char *port = NULL;
	const char *unit = param_unit(y, l->info, p, &port);
	v->unit = v->type == TY_REAL ? unit : NULL;
	if (port)
		v->description = arena_printf(y->c->arena, "start value of %s%s%s%s", port,
		                              v->description ? " (" : "",
		                              v->description ? v->description : "",
		                              v->description ? ")" : "");
	v->has_start = true;
	if (!eval_param(y, k))
		return report(y, p, arena_printf(y->c->arena, "the value of param '%s'", p->name));
	v->start = y->pval[k].v;
	return true;
}

/* ---- the inners' parameters ----------------------------------------------------------------- */

const Node *emit_inner_binding(const Inner *in, const char *name)
{
	if (!in->decl || in->decl->kind != ND_INNER)
		return NULL;
	for (const Node *b = in->decl->list3; b; b = b->next)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

/* The language's type of an FMU parameter the wrapper can carry; TY_NONE otherwise. */
static SaType fmu_param_type(const FmuVar *v)
{
	if (v->causality != CAUS_PARAMETER ||
	    (v->variability != VAR_FIXED && v->variability != VAR_TUNABLE) || v->ndims > 0)
		return TY_NONE; /* an array parameter keeps its start values */
	switch (v->type) {
	case FT_REAL:
	case FT_FLOAT32: return TY_REAL;
	case FT_INTEGER: case FT_INT8: case FT_UINT8: case FT_INT16: case FT_UINT16:
	case FT_UINT32: case FT_INT64: case FT_UINT64:
	case FT_ENUMERATION: return TY_INTEGER;
	case FT_BOOLEAN: return TY_BOOL;
	case FT_STRING: return v->ndims > 0 ? TY_NONE : TY_STRING;
	default: return TY_NONE;
	}
}

/* A model description's start text as a value of type t (the type's zero when absent). */
static EmitValue fmu_start(const char *text, SaType t)
{
	EmitValue v = {0};
	if (t == TY_STRING)
		v.s = text ? text : "";
	if (!text)
		return v;
	if (t == TY_STRING)
		return v;
	if (t == TY_REAL)
		v.r = strtod(text, NULL);
	else if (t == TY_INTEGER)
		v.i = strtoll(text, NULL, 10);
	else
		v.b = strcmp(text, "true") == 0 || strcmp(text, "1") == 0;
	return v;
}

static int slot_type(SaType t)
{
	return t == TY_INTEGER ? 1 : t == TY_BOOL ? 2 : t == TY_STRING ? 3 : 0;
}

/* An identifier part for "<inner>.<name>": what is not a letter or digit becomes '_'. */
static const char *c_part(Arena *a, const char *inner, const char *name)
{
	char *s = arena_printf(a, "%s_%s", inner, name);
	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			*p = '_';
	return s;
}

static bool name_taken(const EmitLayout *l, const char *cname)
{
	for (int i = 0; i < l->nvars; i++)
		if (strcmp(l->vars[i].cname, cname) == 0)
			return true;
	return false;
}

/* One inner parameter exposed as "<inner>.<name>", at the end of l->vars. */
static void expose(Compilation *c, EmitLayout *l, int f, const char *name, const EmitVar *from)
{
	Arena *a = c->arena;
	const Inner *in = l->info->inners[f];
	EmitVar *v = &l->vars[l->nvars];
	*v = *from;
	v->name = arena_printf(a, "%s.%s", in->name, name);
	v->cname = c_part(a, in->name, name);
	while (name_taken(l, v->cname))
		v->cname = arena_printf(a, "%s_", v->cname);
	v->index = ++l->nvars;
	v->decl = NULL;
	v->causality = CAUS_PARAMETER;
	v->initial = INIT_EXACT;
	v->has_start = true;
	v->inner = in;
	v->inner_index = f;
	v->vr = next_vr(l, v->type);
	v->slot = l->nslots[slot_type(v->type)]++;
	l->ninner_params++;
}

void emit_expose_inner_param(Compilation *c, EmitLayout *l, int f, const char *name,
                             const EmitVar *from)
{
	expose(c, l, f, name, from);
}

static void bind(EmitLayout *l, int f, const Node *b, SaType type, uint32_t vr)
{
	EmitBinding *eb = &l->bindings[l->nbindings++];
	eb->name = b->name;
	eb->inner = l->info->inners[f];
	eb->inner_index = f;
	eb->inner_vr = vr;
	eb->type = type;
	eb->value = b->init;
	eb->slot = 0;
}

/* The parameters of inner f: exposed, or bound by the script.  An inner adaptation's come
 * from its own layout. */
static void add_inner_params(Compilation *c, EmitLayout *l, int f)
{
	const Inner *in = l->info->inners[f];
	if (in->fmu) {
		for (int k = 0; k < in->fmu->nvars; k++) {
			const FmuVar *fv = &in->fmu->vars[k];
			if (fv->ndims > 0 && fv->causality == CAUS_PARAMETER) {
				emit_add_array_param(c, l, f, fv);
				continue;
			}
			SaType t = fmu_param_type(fv);
			if (t == TY_NONE)
				continue;
			const Node *b = emit_inner_binding(in, fv->name);
			if (b) {
				bind(l, f, b, t, fv->vr);
				continue;
			}
			EmitValue start = fmu_start(fv->start, t);
			if (fv->type == FT_FLOAT32 && fv->start)
				start.r = strtof(fv->start, NULL); /* the inner's own start, exactly */
			if (t == TY_INTEGER && (start.i < INT_MIN || start.i > INT_MAX))
				continue; /* an Integer cannot hold it: the inner keeps its start value */
			EmitVar from = {.type = t, .variability = fv->variability,
			                .start = start, .inner_vr = fv->vr,
			                .unit = t == TY_REAL ? fv->unit : NULL,
			                .description = fv->description,
			                .enumeration = fv->type == FT_ENUMERATION ? k + 1 : 0};
			expose(c, l, f, fv->name, &from);
		}
		return;
	}
	const EmitLayout *sub = in->adaptation ? emit_layout(c, in->adaptation->info) : NULL;
	for (int k = 0; sub && k < sub->nvars; k++) {
		const EmitVar *sv = &sub->vars[k];
		if (sv->causality != CAUS_PARAMETER || sv->elems)
			continue; /* an inner adaptation's array parameter keeps its start values
			           * (an FMU inner's is exposed: emit_add_array_param) */
		const Node *b = emit_inner_binding(in, sv->name);
		if (b) {
			bind(l, f, b, sv->type, sv->vr);
			continue;
		}
		EmitVar from = *sv;
		from.inner_vr = sv->vr;
		expose(c, l, f, sv->name, &from);
	}
}

/* How many parameters inner f may bring (an upper bound, for the allocation). */
static int count_inner_params(Compilation *c, const Inner *in)
{
	if (in->fmu)
		return in->fmu->nvars + emit_array_param_elements(in->fmu);
	const EmitLayout *sub = in->adaptation ? emit_layout(c, in->adaptation->info) : NULL;
	return sub ? sub->nparams + sub->ninner_params : 0;
}

/* The bound parameters' slots come after the exposed ones of their type. */
static void place_bindings(EmitLayout *l)
{
	for (int i = 0; i < l->nbindings; i++)
		l->bindings[i].slot = l->nslots[slot_type(l->bindings[i].type)]++;
}

static bool add_units(Compilation *c, EmitLayout *l)
{
	int n = 0;
	for (int i = 0; i < l->nvars; i++)
		n += l->vars[i].unit != NULL;
	l->units = arena_alloc(c->arena, (size_t)(n + 1) * sizeof *l->units);
	UnitSystem *us = n ? c->env->units(c) : NULL;
	if (n && !us)
		return false;
	for (int i = 0; i < l->nvars; i++) {
		const char *name = l->vars[i].unit;
		bool seen = !name;
		for (int k = 0; k < l->nunits && !seen; k++)
			seen = strcmp(l->units[k].name, name) == 0;
		if (seen)
			continue;
		EmitUnit *u = &l->units[l->nunits++];
		u->name = name;
		UnitsResult r = units_base(us, name, &u->base);
		u->has_base = r == UNITS_OK;
		if (r == UNITS_UNKNOWN_FROM && l->vars[i].decl) {
			diag_error(c->diag, l->vars[i].decl->loc, "unknown unit '%s'", name);
			return false;
		}
	}
	return true;
}

/* ---- Enumerations passed through ---------------------------------------------------------- */

/* The enumeration type of an inner FMU's variable, or NULL. */
static const FmuTypeDef *var_enum(const FmuInfo *f, const FmuVar *v)
{
	if (!v || v->type != FT_ENUMERATION || !v->declared_type)
		return NULL;
	const FmuTypeDef *td = fmu_find_type(f, v->declared_type);
	return td && td->type == FT_ENUMERATION ? td : NULL;
}

/* The enumeration type of variable `name` of an inner adaptation's layout, or NULL. */
static const FmuTypeDef *layout_enum(const EmitLayout *sub, const char *name)
{
	for (int i = 0; sub && i < sub->nvars; i++)
		if (strcmp(sub->vars[i].name, name) == 0 && sub->vars[i].enumeration)
			return sub->enums[sub->vars[i].enumeration - 1].def;
	return NULL;
}

/* The Enumeration an Integer port is bound to (an inner's port of that type), or NULL. */
static const FmuTypeDef *bound_enum(Compilation *c, const EmitLayout *l, const Node *p,
                                    const Inner **from)
{
	const Node *b = p ? p->bound_to : NULL;
	if (!b || p->type != TY_INTEGER || !b->owner || !b->name)
		return NULL;
	const Inner *in = sema_inner(l->info, b->owner);
	const InnerPort *ip = in ? sema_inner_port(in, b->name) : NULL;
	*from = in;
	if (!ip)
		return NULL;
	if (in->fmu)
		return ip->fmu_var >= 0 ? var_enum(in->fmu, &in->fmu->vars[ip->fmu_var]) : NULL;
	return in->adaptation ? layout_enum(emit_layout(c, in->adaptation->info), ip->var) : NULL;
}

/* Whether two enumeration types have the same items (names and values, in order). */
static bool same_items(const FmuTypeDef *a, const FmuTypeDef *b)
{
	if (a->nitems != b->nitems)
		return false;
	for (int i = 0; i < a->nitems; i++)
		if (a->items[i].value != b->items[i].value || !a->items[i].name ||
		    !b->items[i].name || strcmp(a->items[i].name, b->items[i].name) != 0)
			return false;
	return true;
}

static bool enum_name_taken(const EmitLayout *l, const char *name)
{
	for (int i = 0; i < l->nenums; i++)
		if (strcmp(l->enums[i].name, name) == 0)
			return true;
	return false;
}

/* 1 + the index in l->enums of inner in's type td: one declared already with that name and
 * those items, else a new one under its own name or, when that is taken by a different
 * type, "<inner>.<name>". */
static int enum_index(Compilation *c, EmitLayout *l, const FmuTypeDef *td, const Inner *in)
{
	for (int i = 0; i < l->nenums; i++)
		if (strcmp(l->enums[i].def->name, td->name) == 0 && same_items(l->enums[i].def, td))
			return i + 1;
	const char *name = td->name;
	if (enum_name_taken(l, name))
		name = arena_printf(c->arena, "%s.%s", in ? in->name : "inner", td->name);
	while (enum_name_taken(l, name))
		name = arena_printf(c->arena, "%s_", name);
	l->enums[l->nenums] = (EmitEnum){name, td};
	return ++l->nenums;
}

/* The variables that carry an inner's Enumeration: ports bound to one, and the inners'
 * parameters of that type (noted by add_inner_params in .enumeration as 1 + the variable's
 * index in its FMU, or in its inner adaptation's layout, before this pass numbers them). */
static void find_enums(Compilation *c, EmitLayout *l)
{
	l->enums = arena_alloc(c->arena, (size_t)(l->nvars + 1) * sizeof *l->enums);
	for (int i = 0; i < l->nvars; i++) {
		EmitVar *v = &l->vars[i];
		const Inner *in = v->inner;
		const FmuTypeDef *td = NULL;
		if (v->causality != CAUS_PARAMETER)
			td = bound_enum(c, l, v->decl, &in);
		else if (in && v->enumeration && in->fmu)
			td = var_enum(in->fmu, &in->fmu->vars[v->enumeration - 1]);
		else if (in && v->enumeration && in->adaptation)
			td = layout_enum(emit_layout(c, in->adaptation->info),
			                 v->name + strlen(in->name) + 1);
		v->enumeration = td && td->nitems ? enum_index(c, l, td, in) : 0;
	}
}

static const char *describe(Compilation *c, const SaInfo *info)
{
	StrBuf sb;
	sb_init(&sb);
	int kind = info->sa->flags;
	sb_printf(&sb, "%s %s semantic adaptation of ", kind & KIND_DELAYED ? "delayed" : "reactive",
		  kind & KIND_MOORE ? "moore" : "mealy");
	for (int i = 0; i < info->ninners; i++)
		sb_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == info->ninners ? " and " : ", ",
			  info->inners[i]->name);
	if (info->ninners == 0)
		sb_puts(&sb, "no inner fmu");
	const char *s = arena_strdup(c->arena, sb_str(&sb));
	sb_free(&sb);
	return s;
}

EmitLayout *emit_layout(Compilation *c, SaInfo *info)
{
	if (!info || !info->sa || !info->checked_ok || !info->explicit_done ||
	    info->explicit_errors)
		return NULL;
	Arena *a = c->arena;
	Node *sa = info->sa;
	int before = diag_errors(c->diag);
	Lay y = {.c = c, .sa = sa};
	y.nparams = ast_count(sa->a_params);
	y.params = arena_alloc(a, (size_t)(y.nparams + 1) * sizeof *y.params);
	y.pval = arena_alloc(a, (size_t)(y.nparams + 1) * sizeof *y.pval);
	y.pstate = arena_alloc(a, (size_t)(y.nparams + 1) * sizeof *y.pstate);
	y.reads = arena_alloc(a, (size_t)(y.nparams + 1) * sizeof *y.reads);
	int k = 0;
	for (Node *p = sa->a_params; p; p = p->next) {
		if (name_index_add(&y.pnames, p->name, k) != 0)
			diag_error(c->diag, p->loc, "out of memory");
		y.params[k++] = p;
	}

	/* Reads in initial values make a param fixed; reads in the rules alone, tunable. */
	mark_decl_inits(&y, sa->a_params);
	mark_decl_inits(&y, sa->a_ctrl_vars);
	mark_decl_inits(&y, sa->a_in_vars);
	mark_decl_inits(&y, sa->a_out_vars);
	mark_decl_inits(&y, sa->a_inports);
	mark_decl_inits(&y, sa->a_outports);
	mark_list(&y, sa->a_general, READ_IN_INITIAL);
	mark_reads(&y, sa->a_ctrl, READ_IN_RULES);
	mark_reads(&y, sa->a_in_rules, READ_IN_RULES);
	mark_reads(&y, sa->a_out_rules, READ_IN_RULES);

	EmitLayout *l = arena_alloc(a, sizeof *l);
	l->info = info;
	l->sa = sa;
	l->model_name = sa->name;
	l->model_identifier = sa->name;
	l->description = describe(c, info);
	l->source = base_name(sa->loc.file);
	l->mealy = !(sa->flags & KIND_MOORE);
	l->reactive = !(sa->flags & KIND_DELAYED);
	l->can_get_and_set_fmu_state = l->can_serialize_fmu_state = true;
	l->default_start = l->default_stop = l->default_step = NAN;
	inner_caps(info, l, 0);

	l->ninputs = ast_count(sa->a_inports);
	l->noutputs = ast_count(sa->a_outports);
	l->nparams = y.nparams;
	int ninner = 0;
	for (int f = 0; f < info->ninners; f++)
		ninner += count_inner_params(c, info->inners[f]);
	l->vars = arena_alloc(a, (size_t)(l->ninputs + l->noutputs + l->nparams + ninner + 1) *
				 sizeof *l->vars);
	l->bindings = arena_alloc(a, (size_t)(ninner + 1) * sizeof *l->bindings);
	for (Node *p = sa->a_inports; p; p = p->next)
		add_port(&y, l, p, true);
	for (Node *p = sa->a_outports; p; p = p->next)
		add_port(&y, l, p, false);
	for (k = 0; k < y.nparams; k++)
		add_param(&y, l, k);
	for (int f = 0; f < info->ninners; f++)
		add_inner_params(c, l, f);
	place_bindings(l);
	emit_group_arrays(c, l);
	find_enums(c, l);
	emit_find_binaries(c, l);
	emit_find_deps(c, l);
	name_index_free(&y.pnames);
	name_index_free(&y.inits);
	name_index_free(&y.var_inits);
	if (diag_errors(c->diag) != before || !add_units(c, l))
		return NULL;
	if (!emit_guid(c, info, l->guid)) {
		diag_error(c->diag, sa->loc, "cannot derive the GUID of '%s': an inner adaptation "
			   "has errors", sa->name);
		return NULL;
	}
	return l;
}
