/* emit_c.c — the wrapper FMU's model-specific C: config.h and <modelIdentifier>.c.
 *
 * Pipeline position: explicit form -> emit_layout (emit.c) -> *here* (and emit_md.c beside
 * it) -> package.  What is written is the model.c of a Reference FMU for the runtime's
 * contract, runtime/sart_wrapper.h: value-reference enums and the Storage struct in
 * config.h; the inner FMUs' tables, a table per type of the external variables (offset in
 * the Storage, who may set it: the runtime's fmi2GetX/fmi2SetX are one loop over it) and
 * one function per rule part (In, MapIn, Ctrl, MapOut, Out, plus the internal couplings
 * for Init and G) in the .c,
 * which ends with `const SartModel sart_model`.  tests/e2e/manual/window_sa.c is the
 * hand-written reference for the shape.
 *
 * Decisions (where the contract leaves a choice):
 *   - External variables are those of the EmitLayout, with its value references: the C
 *     and the model description cannot disagree.
 *   - Storage fields and C locals keep the script's names; a name that C or the emitted
 *     code already uses (a keyword, a reserved identifier, a macro of the headers the .c
 *     includes, a name starting with sart_/Sart/SART_, or for locals a name the function
 *     itself uses such as w, s or fmax) gets a trailing '_', repeated until the Storage
 *     field is unique.
 *   - In and MapOut first record every rule's flag, in order, then run the `->` parts of
 *     the flagged rules (LANGUAGE.md section 4: "evaluate every condition ..., record the
 *     flags, then run ...").  A flag is 1 for `true` and for an assignment rule, the
 *     condition itself when it is already 0 or 1 in C (a comparison, and, or, not,
 *     is_close, is_set), `(cond) != 0` otherwise.
 *   - A Bool value set through fmi2SetBoolean is stored as 0 or 1 (by the runtime).
 *   - An inner's port buffers hold every port the checker knows of (declared in the
 *     script or only in the inner's model description), per direction and type in the
 *     checker's order.
 *   - Anything the runtime cannot carry (String variables and ports, array ports, the
 *     declarative forms, an output function that gives a value) is an error at its node,
 *     never dropped. */
#include "emit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explicit.h"
#include "version.h"

enum { T_REAL, T_INTEGER, T_BOOLEAN, T_N }; /* SartType's order */

static const char *const type_word[T_N] = {"real", "integer", "boolean"};
static const char *const type_fmi[T_N] = {"Real", "Integer", "Boolean"};
static const char *const type_sart[T_N] = {"SART_REAL", "SART_INTEGER", "SART_BOOLEAN"};

/* What a rule-part function uses, so that the rest gets a (void) line. */
enum { U_W = 1, U_S = 2, U_T = 4, U_BIGH = 8, U_H = 16, U_DT = 32 };

typedef struct Field {
	const Node *decl;
	const char *c;
} Field;

typedef struct Slot {
	int type;          /* T_*, -1 when the port cannot be emitted */
	int index;         /* in its direction's array of that type */
	const char *enumc; /* <inner>_in_<port> */
	uint32_t vr;
} Slot;

typedef struct InnerC {
	const Inner *in;
	const char *cname;  /* the inner's name as a C identifier part */
	const char *enumc;  /* inner_<name> */
	Slot *slots;        /* parallel to in->ports */
	int n[2][T_N];      /* [0 in, 1 out][type] */
	const char *model_identifier, *guid;
	int version;        /* 2 or 3 */
	unsigned caps;
} InnerC;

typedef struct Ec {
	Compilation *c;
	const EmitLayout *l;
	Node *sa;
	SaInfo *info;
	const char *file;   /* the script's base name */
	int before;         /* errors before emitting */
	Field *fields;
	int nfields, capfields;
	InnerC *inners;
	int ninners;
	int nin_rules, nout_rules;
	bool round_digits;  /* the helper for round(x, n) is needed */
	/* What the rule parts In, MapIn, MapOut and Out use (U_*), and whether a rule has a
	 * condition block: fast_step_form's tests. */
	unsigned part_uses[4];
	bool cond_blocks;
	/* the function being written */
	StrBuf *o;
	int depth;
	unsigned uses;
	bool map;           /* h and dt are parameters */
	const Node *root;   /* where a local's reads are looked for */
} Ec;

/* ---- names --------------------------------------------------------------------------------- */

static const char *const c_words[] = {
	/* C99 and C11 keywords */
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
	"enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
	"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
	"typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
	"_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn",
	"_Static_assert", "_Thread_local",
	/* macros of <math.h>, <stddef.h>, <stdlib.h> and the usual extensions */
	"NULL", "offsetof", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "FP_NAN",
	"FP_INFINITE", "FP_ZERO", "FP_SUBNORMAL", "FP_NORMAL", "FP_ILOGB0", "FP_ILOGBNAN",
	"MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling", "EXIT_SUCCESS", "EXIT_FAILURE",
	"RAND_MAX", "MB_CUR_MAX", "errno", "bool", "true", "false", "asm", "typeof",
	/* the emitted code's own file-scope names */
	"Storage", "NINNERS",
};

/* Names a function of the emitted code uses besides the Storage: a local must not hide them. */
static const char *const function_words[] = {
	"w", "s", "sp", "t", "H", "h", "dt", "v", "vr", "initialized", "inner",
	"floor", "ceil", "round", "fabs", "fmax", "fmin", "abs", "pow",
	"defaults", "initial", "get_real", "set_real", "get_integer", "set_integer",
	"get_boolean", "set_boolean", "in", "map_in", "ctrl", "map_out", "out", "couple",
	"round_digits", "inners", "order", "real_inputs", "fast_step",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A C keyword, reserved identifier, macro, or one of the runtime's prefixes. */
static bool c_taken(const char *name)
{
	return in_list(name, c_words, sizeof c_words / sizeof c_words[0]) ||
	       (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) ||
	       starts_with(name, "sart_") || starts_with(name, "Sart") ||
	       starts_with(name, "SART_");
}

/* A name from a model description as part of a C identifier: other characters become '_'. */
static const char *ident_part(Arena *a, const char *s)
{
	char *r = arena_strdup(a, s && *s ? s : "_");
	for (char *p = r; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	return r;
}

/* The C name of a local or loop variable. */
static const char *local_c(Ec *e, const char *name)
{
	bool taken = c_taken(name) ||
	             in_list(name, function_words, sizeof function_words / sizeof function_words[0]);
	/* the enumerators of config.h */
	for (int i = 0; i < e->l->nvars && !taken; i++)
		taken = starts_with(name, "vr_") && strcmp(name + 3, e->l->vars[i].name) == 0;
	for (int i = 0; i < e->ninners && !taken; i++) {
		const InnerC *ic = &e->inners[i];
		taken = strcmp(name, ic->enumc) == 0;
		for (int k = 0; k < ic->in->nports && !taken; k++)
			taken = ic->slots[k].enumc && strcmp(name, ic->slots[k].enumc) == 0;
	}
	return taken ? arena_printf(e->c->arena, "%s_", name) : name;
}

static bool field_exists(const Ec *e, const char *c)
{
	for (int i = 0; i < e->nfields; i++)
		if (strcmp(e->fields[i].c, c) == 0)
			return true;
	return false;
}

/* The emitter's own Storage fields: flags and inner buffers. */
static bool emitter_field(const Ec *e, const char *c)
{
	if (strcmp(c, "in_rule") == 0 || strcmp(c, "out_rule") == 0)
		return true;
	for (int i = 0; i < e->ninners; i++)
		for (int dir = 0; dir < 2; dir++)
			for (int t = 0; t < T_N; t++) {
				char buf[512];
				snprintf(buf, sizeof buf, "%s_%s_%s", e->inners[i].cname,
					 dir ? "out" : "in", type_word[t]);
				if (strcmp(c, buf) == 0)
					return true;
				if (!dir && strlen(buf) + 9 < sizeof buf) {
					strcat(buf, "_assigned");
					if (strcmp(c, buf) == 0)
						return true;
				}
			}
	return false;
}

static const char *add_field(Ec *e, const Node *decl)
{
	const char *c = decl->name;
	if (c_taken(c) || emitter_field(e, c) || field_exists(e, c)) {
		c = arena_printf(e->c->arena, "%s_", c);
		while (emitter_field(e, c) || field_exists(e, c))
			c = arena_printf(e->c->arena, "%s_", c);
	}
	if (e->nfields == e->capfields) {
		int cap = e->capfields ? 2 * e->capfields : 32;
		Field *f = arena_alloc(e->c->arena, (size_t)cap * sizeof *f);
		if (e->nfields)
			memcpy(f, e->fields, (size_t)e->nfields * sizeof *f);
		e->fields = f;
		e->capfields = cap;
	}
	e->fields[e->nfields++] = (Field){decl, c};
	return c;
}

static const char *field_of(const Ec *e, const Node *decl)
{
	for (int i = 0; i < e->nfields; i++)
		if (e->fields[i].decl == decl)
			return e->fields[i].c;
	return NULL;
}

/* A Storage field by the script's name, for nodes a rule made without a declaration. */
static const char *field_named(const Ec *e, const char *name)
{
	for (int i = 0; i < e->nfields; i++)
		if (strcmp(e->fields[i].decl->name, name) == 0)
			return e->fields[i].c;
	return NULL;
}

/* ---- text helpers ---------------------------------------------------------------------------- */

/* The shortest decimal that reads back as v, always with a '.' or an exponent. */
static void fmt_real(char *buf, size_t n, double v)
{
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, n, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	char *exp = strchr(buf, 'e');
	if (exp) { /* 1e-09 -> 1e-9 */
		char *digits = exp + 1 + (exp[1] == '-' || exp[1] == '+');
		if (exp[1] == '+')
			memmove(exp + 1, exp + 2, strlen(exp + 2) + 1), digits--;
		while (digits[0] == '0' && digits[1])
			memmove(digits, digits + 1, strlen(digits + 1) + 1);
	}
	if (!strpbrk(buf, ".en"))
		strncat(buf, ".0", n - strlen(buf) - 1);
}

static const char *real_text(Ec *e, double v)
{
	char buf[48];
	fmt_real(buf, sizeof buf, v);
	return arena_strdup(e->c->arena, buf);
}

/* A C string literal's contents. */
static const char *c_string(Arena *a, const char *s)
{
	StrBuf sb;
	sb_init(&sb);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(&sb, "\\%c", *p);
		else if (*p == '\n')
			sb_puts(&sb, "\\n");
		else if (*p < 0x20 || *p == 0x7f || *p == '?')
			sb_printf(&sb, "\\%03o", *p);
		else
			sb_putc(&sb, (char)*p);
	}
	const char *r = arena_strdup(a, sb_str(&sb));
	sb_free(&sb);
	return r;
}

static void line(Ec *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Ec *e, const char *fmt, ...)
{
	for (int i = 0; i < e->depth; i++)
		sb_putc(e->o, '\t');
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof small) {
		sb_puts(e->o, small);
	} else if (n >= 0) {
		char *big = malloc((size_t)n + 1);
		if (!big)
			abort();
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb_puts(e->o, big);
		free(big);
	}
	sb_putc(e->o, '\n');
}

/* `prefix{a, b, c}suffix` on one line when it fits in 100 columns, else one item a line. */
static void put_list_sp(StrBuf *o, const char *prefix, const char **items, int n,
                        const char *suffix, bool spaced)
{
	size_t len = strlen(prefix) + strlen(suffix) + 4;
	for (int i = 0; i < n; i++)
		len += strlen(items[i]) + 2;
	if (len <= 100) {
		sb_printf(o, "%s{%s", prefix, spaced ? " " : "");
		for (int i = 0; i < n; i++)
			sb_printf(o, "%s%s", i ? ", " : "", items[i]);
		sb_printf(o, "%s}%s\n", spaced ? " " : "", suffix);
		return;
	}
	sb_printf(o, "%s{\n", prefix);
	for (int i = 0; i < n; i++)
		sb_printf(o, "\t%s%s\n", items[i], i + 1 < n ? "," : "");
	sb_printf(o, "}%s\n", suffix);
}

static void put_list(StrBuf *o, const char *prefix, const char **items, int n, const char *suffix)
{
	put_list_sp(o, prefix, items, n, suffix, false);
}

static void error(Ec *e, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error(Ec *e, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(e->c->diag, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

static int sart_type(SaType t)
{
	switch (t) {
	case TY_INTEGER: return T_INTEGER;
	case TY_BOOL: return T_BOOLEAN;
	case TY_STRING: return -1;
	default: return T_REAL;
	}
}

static const char *c_type(SaType t)
{
	return t == TY_INTEGER || t == TY_BOOL ? "int" : "double";
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

/* ---- inner FMUs ------------------------------------------------------------------------------- */

static InnerC *inner_c(Ec *e, const char *name)
{
	for (int i = 0; i < e->ninners; i++)
		if (strcmp(e->inners[i].in->name, name) == 0)
			return &e->inners[i];
	return NULL;
}

static const EmitVar *layout_var(const EmitLayout *l, const char *name)
{
	for (int i = 0; l && i < l->nvars; i++)
		if (strcmp(l->vars[i].name, name) == 0)
			return &l->vars[i];
	return NULL;
}

static bool setup_inner(Ec *e, InnerC *ic, const Inner *in)
{
	Arena *a = e->c->arena;
	ic->in = in;
	ic->cname = ident_part(a, in->name);
	ic->enumc = arena_printf(a, "inner_%s", ic->cname);
	ic->slots = arena_alloc(a, (size_t)(in->nports + 1) * sizeof *ic->slots);
	const EmitLayout *sub = NULL;
	if (in->fmu) {
		ic->model_identifier = in->fmu->model_identifier ? in->fmu->model_identifier : in->name;
		ic->guid = in->fmu->guid ? in->fmu->guid : "";
		ic->version = in->fmu->version == FMI_V3 ? 3 : 2;
		ic->caps = (in->fmu->can_get_and_set_fmu_state ? 1u : 0u) |
		           (in->fmu->can_serialize_fmu_state ? 2u : 0u) |
		           (in->fmu->can_interpolate_inputs ? 4u : 0u);
	} else if (in->adaptation && in->adaptation->info) {
		sub = emit_layout(e->c, in->adaptation->info);
		if (!sub) {
			error(e, in->decl->loc, "cannot emit C for inner fmu '%s': adaptation '%s' "
			      "cannot be laid out", in->name, in->adaptation->name);
			return false;
		}
		ic->model_identifier = sub->model_identifier;
		ic->guid = arena_strdup(a, sub->guid);
		ic->version = 2;
		ic->caps = (sub->can_get_and_set_fmu_state ? 1u : 0u) |
		           (sub->can_serialize_fmu_state ? 2u : 0u) | (sub->reactive ? 4u : 0u);
	} else {
		error(e, in->decl->loc, "cannot emit C for inner fmu '%s': it was not read", in->name);
		return false;
	}
	bool ok = true;
	for (int k = 0; k < in->nports; k++) {
		const InnerPort *p = &in->ports[k];
		Slot *sl = &ic->slots[k];
		sl->type = sart_type(p->type);
		Loc at = p->decl ? p->decl->loc : in->decl->loc;
		if (sl->type < 0) {
			error(e, at, "cannot emit C for port '%s' of inner fmu '%s': String ports are "
			      "not supported yet", p->name, in->name);
			ok = false;
			continue;
		}
		if (p->decl && p->decl->mult_hi >= 0) {
			error(e, at, "cannot emit C for port '%s' of inner fmu '%s': array ports are "
			      "not supported yet", p->name, in->name);
			sl->type = -1;
			ok = false;
			continue;
		}
		int dir = p->is_input ? 0 : 1;
		sl->index = ic->n[dir][sl->type]++;
		sl->enumc = arena_printf(a, "%s_%s_%s", ic->cname, dir ? "out" : "in",
					 ident_part(a, p->name));
		if (in->fmu) {
			sl->vr = p->fmu_var >= 0 && p->fmu_var < in->fmu->nvars
			             ? in->fmu->vars[p->fmu_var].vr : 0;
		} else {
			const EmitVar *v = layout_var(sub, p->var);
			if (!v) {
				error(e, at, "cannot emit C for port '%s' of inner fmu '%s': adaptation "
				      "'%s' has no such variable", p->name, in->name, sub->model_name);
				sl->type = -1;
				ok = false;
				continue;
			}
			sl->vr = v->vr;
		}
	}
	return ok;
}

/* Inners in topological order of the couplings whose target is Mealy (CreateCtrlRules'
 * order); all inners in declaration order when there is a cycle. */
static int *inner_order(Ec *e)
{
	int n = e->ninners;
	Arena *a = e->c->arena;
	bool *done = arena_alloc(a, (size_t)(n + 1) * sizeof *done);
	int *order = arena_alloc(a, (size_t)(n + 1) * sizeof *order);
	if (rw_inner_order(a, e->info, order, done) < n)
		for (int i = 0; i < n; i++)
			order[i] = i;
	return order;
}

/* ---- expressions ------------------------------------------------------------------------------ */

enum { P_LOW, P_OR, P_AND, P_EQ, P_REL, P_ADD, P_MUL, P_UNARY, P_POSTFIX };

static SaType type_of(Ec *e, const Node *n);

static SaType decl_type(const Node *d)
{
	return d && d->type != TY_NONE ? d->type : TY_REAL;
}

static const InnerPort *inner_port_of(Ec *e, const Node *ref, InnerC **icp)
{
	InnerC *ic = ref->owner ? inner_c(e, ref->owner) : NULL;
	if (icp)
		*icp = ic;
	return ic ? sema_inner_port(ic->in, ref->name) : NULL;
}

static SaType type_of(Ec *e, const Node *n)
{
	switch (n->kind) {
	case ND_INT: return TY_INTEGER;
	case ND_REAL: return TY_REAL;
	case ND_BOOL: return TY_BOOL;
	case ND_STRING: return TY_STRING;
	case ND_KEYVAR: return TY_REAL;
	case ND_NAME: return decl_type(n->decl);
	case ND_PORT_REF: {
		if (n->sym == SYM_INNER_IN || n->sym == SYM_INNER_OUT) {
			const InnerPort *p = inner_port_of(e, n, NULL);
			return p && p->type != TY_NONE ? p->type : TY_REAL;
		}
		return decl_type(n->decl);
	}
	case ND_UNARY: return n->op == OP_NOT ? TY_BOOL : type_of(e, n->lhs);
	case ND_BINARY:
		switch (n->op) {
		case OP_ADD:
		case OP_SUB:
		case OP_MUL:
			return type_of(e, n->lhs) == TY_REAL || type_of(e, n->rhs) == TY_REAL ? TY_REAL
			                                                                      : TY_INTEGER;
		case OP_DIV: return TY_REAL;
		default: return TY_BOOL;
		}
	case ND_BUILTIN:
		switch (n->op) {
		case BI_FLOOR:
		case BI_CEIL: return TY_INTEGER;
		case BI_ROUND: return ast_count(n->list1) == 1 ? TY_INTEGER : TY_REAL;
		case BI_ABS: return n->list1 ? type_of(e, n->list1) : TY_REAL;
		case BI_MAX:
		case BI_MIN:
			for (const Node *a = n->list1; a; a = a->next)
				if (type_of(e, a) == TY_REAL)
					return TY_REAL;
			return TY_INTEGER;
		case BI_IS_CLOSE:
		case BI_IS_SET: return TY_BOOL;
		default: return TY_REAL;
		}
	default: return TY_NONE;
	}
}

static int prec_of(const Node *n)
{
	switch (n->kind) {
	case ND_INT: return n->ival < 0 ? P_UNARY : P_POSTFIX;
	case ND_REAL: return signbit(n->rval) ? P_UNARY : P_POSTFIX;
	case ND_UNARY: return P_UNARY;
	case ND_BINARY:
		switch (n->op) {
		case OP_OR: return P_OR;
		case OP_AND: return P_AND;
		case OP_EQ:
		case OP_NE: return P_EQ;
		case OP_LT:
		case OP_LE:
		case OP_GT:
		case OP_GE: return P_REL;
		case OP_ADD:
		case OP_SUB: return P_ADD;
		case OP_DIV:
			return P_MUL;
		default: return P_MUL;
		}
	default: return P_POSTFIX;
	}
}

/* Whether the C value of n is already 0 or 1. */
static bool is_truth(const Node *n)
{
	if (n->kind == ND_UNARY)
		return n->op == OP_NOT;
	if (n->kind == ND_BINARY)
		return prec_of(n) <= P_REL;
	if (n->kind == ND_BUILTIN)
		return n->op == BI_IS_CLOSE || n->op == BI_IS_SET;
	return n->kind == ND_BOOL;
}

static void put_expr(Ec *e, StrBuf *o, const Node *n, int min_prec);

static void put_args(Ec *e, StrBuf *o, const Node *args)
{
	for (const Node *a = args; a; a = a->next) {
		if (a != args)
			sb_puts(o, ", ");
		put_expr(e, o, a, P_LOW);
	}
}

static const char *where(Ec *e, const Node *n)
{
	return arena_printf(e->c->arena, "%s:%d:%d", base_name(n->loc.file), n->loc.line,
			    n->loc.col);
}

/* The inner FMU a builtin names (do_step(f, ...), save_state(f), ...). */
static const char *fmu_arg(Ec *e, const Node *n)
{
	InnerC *ic = n->name ? inner_c(e, n->name) : NULL;
	if (!ic) {
		error(e, n->loc, "cannot emit C for %s: '%s' is not an inner fmu of '%s'",
		      ast_builtin_name(n->op), n->name ? n->name : "", e->sa->name);
		return "0";
	}
	e->uses |= U_W;
	return ic->enumc;
}

/* is_set(x) / discard(x): x's type and value reference. */
static void put_input_vr(Ec *e, StrBuf *o, const Node *n)
{
	const Node *x = n->list1;
	const EmitVar *v = NULL;
	if (x && x->sym == SYM_INPORT)
		for (int i = 0; i < e->l->ninputs; i++)
			if (e->l->vars[i].decl == x->decl || strcmp(e->l->vars[i].name, x->name) == 0)
				v = &e->l->vars[i];
	if (!v) {
		error(e, n->loc, "cannot emit C for %s: its argument is not an input port of '%s'",
		      ast_builtin_name(n->op), e->sa->name);
		sb_puts(o, "SART_REAL, 0");
		return;
	}
	int t = sart_type(v->type);
	sb_printf(o, "%s, vr_%s", type_sart[t < 0 ? 0 : t], v->name);
}

/* fmax(fmax(a, b), c) or sart_imax(sart_imax(a, b), c). */
static void put_fold(Ec *e, StrBuf *o, const Node *args, const char *fn, int count)
{
	if (count == 1) {
		put_expr(e, o, args, P_LOW);
		return;
	}
	const Node *last = args;
	for (int i = 1; i < count; i++)
		last = last->next;
	sb_printf(o, "%s(", fn);
	/* the first count - 1 arguments, folded */
	if (count - 1 == 1) {
		put_expr(e, o, args, P_LOW);
	} else {
		put_fold(e, o, args, fn, count - 1);
	}
	sb_puts(o, ", ");
	put_expr(e, o, last, P_LOW);
	sb_putc(o, ')');
}

static void put_builtin(Ec *e, StrBuf *o, const Node *n)
{
	int nargs = ast_count(n->list1);
	const Node *a = n->list1;
	switch (n->op) {
	case BI_FLOOR:
	case BI_CEIL:
	case BI_ROUND:
		if (n->op == BI_ROUND && nargs == 2) {
			e->round_digits = true;
			sb_puts(o, "round_digits(");
			put_args(e, o, a);
			sb_putc(o, ')');
			return;
		}
		if (nargs != 1)
			break;
		if (type_of(e, a) == TY_INTEGER) { /* already whole */
			put_expr(e, o, a, P_LOW);
			return;
		}
		e->uses |= U_W;
		sb_printf(o, "sart_to_int(w, %s(", ast_builtin_name(n->op));
		put_expr(e, o, a, P_LOW);
		sb_printf(o, "), \"%s\")", c_string(e->c->arena, where(e, n)));
		return;
	case BI_ABS:
		if (nargs != 1)
			break;
		sb_puts(o, type_of(e, a) == TY_INTEGER ? "abs(" : "fabs(");
		put_expr(e, o, a, P_LOW);
		sb_putc(o, ')');
		return;
	case BI_MAX:
	case BI_MIN: {
		if (nargs < 1)
			break;
		bool real = type_of(e, n) == TY_REAL;
		const char *fn = n->op == BI_MAX ? (real ? "fmax" : "sart_imax")
		                                 : (real ? "fmin" : "sart_imin");
		put_fold(e, o, a, fn, nargs);
		return;
	}
	case BI_IS_CLOSE:
		if (nargs != 2 && nargs != 4)
			break;
		sb_puts(o, "sart_is_close(");
		put_args(e, o, a);
		if (nargs == 2)
			sb_puts(o, ", 1e-5, 1e-8");
		sb_putc(o, ')');
		return;
	case BI_IS_SET:
	case BI_DISCARD:
		e->uses |= U_W;
		sb_printf(o, "%s(w, ", n->op == BI_IS_SET ? "sart_is_set" : "sart_discard");
		put_input_vr(e, o, n);
		sb_putc(o, ')');
		return;
	case BI_DO_STEP: {
		if (nargs != 2)
			break;
		const char *f = fmu_arg(e, n);
		e->uses |= U_W | U_S;
		sb_printf(o, "sart_do_step(w, s, %s, ", f);
		put_args(e, o, a);
		sb_putc(o, ')');
		return;
	}
	case BI_SAVE_STATE:
	case BI_ROLLBACK:
	case BI_GET_NEXT_TIME_STEP:
	case BI_LAST_EXECUTION_TIME:
		sb_printf(o, "sart_%s(w, %s)", ast_builtin_name(n->op), fmu_arg(e, n));
		return;
	case BI_ELAPSED:
		e->uses |= U_T;
		sb_printf(o, "sart_elapsed(w, %s, t)", fmu_arg(e, n));
		return;
	default:
		break;
	}
	error(e, n->loc, "cannot emit C for %s with %d argument%s", ast_builtin_name(n->op), nargs,
	      nargs == 1 ? "" : "s");
	sb_puts(o, "0");
}

/* A name or port reference as a C lvalue or value. */
static void put_ref(Ec *e, StrBuf *o, const Node *n)
{
	if (n->kind == ND_PORT_REF && (n->sym == SYM_INNER_IN || n->sym == SYM_INNER_OUT)) {
		InnerC *ic;
		const InnerPort *p = inner_port_of(e, n, &ic);
		const Slot *sl = p ? &ic->slots[p - ic->in->ports] : NULL;
		if (!sl || sl->type < 0) {
			if (!p)
				error(e, n->loc, "cannot emit C for '%s.%s': no such inner port",
				      n->owner ? n->owner : "", n->name);
			sb_puts(o, "0");
			return;
		}
		e->uses |= U_S;
		sb_printf(o, "s->%s_%s_%s[%s]", ic->cname, p->is_input ? "in" : "out",
			  type_word[sl->type], sl->enumc);
		return;
	}
	bool local = n->kind == ND_NAME &&
	             (n->sym == SYM_LOOP_VAR ||
	              (n->sym == SYM_LOCAL && !(n->decl && n->decl->op == DECL_RULES)));
	if (local) {
		sb_puts(o, local_c(e, n->name));
		return;
	}
	const char *f = n->decl ? field_of(e, n->decl) : NULL;
	if (!f && (n->kind == ND_NAME || (n->owner && strcmp(n->owner, e->sa->name) == 0)))
		f = field_named(e, n->name);
	if (!f) {
		error(e, n->loc, "cannot emit C for '%s': it names nothing the wrapper stores",
		      n->name);
		sb_puts(o, "0");
		return;
	}
	e->uses |= U_S;
	sb_printf(o, "s->%s", f);
}

static void put_binary(Ec *e, StrBuf *o, const Node *n)
{
	int p = prec_of(n);
	int lmin = p, rmin = p + 1;
	if (n->op == OP_OR || n->op == OP_AND) {
		/* a && b inside || gets its parentheses (-Wparentheses) */
		lmin = rmin = P_EQ;
		if (n->lhs->kind == ND_BINARY && n->lhs->op == n->op)
			lmin = p;
	} else if (p == P_EQ || p == P_REL) {
		lmin = rmin = P_ADD; /* a chain of comparisons keeps the script's grouping */
	}
	const char *op;
	switch (n->op) {
	case OP_OR: op = "||"; break;
	case OP_AND: op = "&&"; break;
	case OP_LT: op = "<"; break;
	case OP_LE: op = "<="; break;
	case OP_GT: op = ">"; break;
	case OP_GE: op = ">="; break;
	case OP_EQ: op = "=="; break;
	case OP_NE: op = "!="; break;
	case OP_ADD: op = "+"; break;
	case OP_SUB: op = "-"; break;
	case OP_MUL: op = "*"; break;
	case OP_DIV: op = "/"; break;
	default:
		error(e, n->loc, "cannot emit C for the crossing operator '%s': the declarative "
		      "form 'crossing' was not lowered", ast_op_spelling(n->op));
		sb_puts(o, "0");
		return;
	}
	if (n->op == OP_DIV && type_of(e, n->lhs) != TY_REAL) {
		sb_puts(o, "(double)"); /* '/' is always real division */
		put_expr(e, o, n->lhs, P_UNARY);
	} else {
		put_expr(e, o, n->lhs, lmin);
	}
	sb_printf(o, " %s ", op);
	put_expr(e, o, n->rhs, rmin);
}

static void put_expr(Ec *e, StrBuf *o, const Node *n, int min_prec)
{
	bool paren = prec_of(n) < min_prec;
	if (paren)
		sb_putc(o, '(');
	switch (n->kind) {
	case ND_INT:
		if (n->ival < -2147483647LL || n->ival > 2147483647LL)
			error(e, n->loc, "cannot emit C for %lld: an Integer has 32 bits", n->ival);
		sb_printf(o, "%lld", n->ival);
		break;
	case ND_REAL:
		sb_puts(o, real_text(e, n->rval));
		break;
	case ND_BOOL:
		sb_puts(o, n->ival ? "1" : "0");
		break;
	case ND_STRING:
		error(e, n->loc, "cannot emit C for a String value: String variables are not "
		      "supported yet");
		sb_puts(o, "0");
		break;
	case ND_NAME:
	case ND_PORT_REF:
		put_ref(e, o, n);
		break;
	case ND_KEYVAR:
		switch (n->op) {
		case KV_T:
			e->uses |= U_T;
			sb_puts(o, "t");
			break;
		case KV_BIG_H:
			e->uses |= U_BIGH;
			sb_puts(o, "H");
			break;
		case KV_H:
		case KV_DT:
			if (!e->map) {
				error(e, n->loc, "cannot emit C for '%s' outside MapIn and MapOut",
				      ast_keyvar_name(n->op));
				sb_puts(o, "0.0");
				break;
			}
			e->uses |= n->op == KV_H ? U_H : U_DT;
			sb_puts(o, n->op == KV_H ? "h" : "dt");
			break;
		case KV_E:
			e->uses |= U_W;
			sb_puts(o, "sart_e(w)");
			break;
		default:
			sb_puts(o, "SART_MAX");
			break;
		}
		break;
	case ND_UNARY: {
		sb_puts(o, n->op == OP_NOT ? "!" : "-");
		const Node *x = n->lhs;
		bool inner_paren = n->op == OP_NEG && prec_of(x) == P_UNARY &&
		                   (x->kind != ND_UNARY || x->op == OP_NEG);
		if (inner_paren)
			sb_putc(o, '(');
		put_expr(e, o, x, inner_paren ? P_LOW : P_UNARY);
		if (inner_paren)
			sb_putc(o, ')');
		break;
	}
	case ND_BINARY:
		put_binary(e, o, n);
		break;
	case ND_BUILTIN:
		put_builtin(e, o, n);
		break;
	case ND_SIGNAL:
		error(e, n->loc, "cannot emit C for 'signal': the declarative form 'quantize' was "
		      "not lowered");
		sb_puts(o, "0");
		break;
	case ND_OTHERWISE:
		error(e, n->loc, "cannot emit C for the declarative form 'otherwise': it must be "
		      "lowered to control, in and out rules first");
		sb_puts(o, "0");
		break;
	default:
		error(e, n->loc, "cannot emit C for %s in an expression", ast_kind_name(n->kind));
		sb_puts(o, "0");
		break;
	}
	if (paren)
		sb_putc(o, ')');
}

/* The expression as C text (arena). */
static const char *X(Ec *e, const Node *n, int min_prec)
{
	StrBuf sb;
	sb_init(&sb);
	put_expr(e, &sb, n, min_prec);
	const char *r = arena_strdup(e->c->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* ---- statements ------------------------------------------------------------------------------- */

static bool reads_list(const Node *n, const Node *decl);

/* Whether decl is read (not only assigned) anywhere under n. */
static bool reads(const Node *n, const Node *decl)
{
	if (!n)
		return false;
	if (n->kind == ND_NAME)
		return n->decl == decl;
	if (n->kind == ND_ASSIGN)
		return (n->lhs && n->lhs->kind != ND_NAME && reads(n->lhs, decl)) ||
		       reads(n->rhs, decl);
	const Node *one[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->body};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
		if (reads(one[i], decl))
			return true;
	return reads_list(n->list1, decl) || reads_list(n->list2, decl) ||
	       reads_list(n->list3, decl);
}

static bool reads_list(const Node *n, const Node *decl)
{
	for (; n; n = n->next)
		if (reads(n, decl))
			return true;
	return false;
}

static void stmts(Ec *e, const Node *list);

static void block(Ec *e, const Node *b)
{
	e->depth++;
	if (b) {
		stmts(e, b->list1);
		if (b->lhs) /* a transition written as an expression */
			line(e, "(void)(%s);", X(e, b->lhs, P_LOW));
	}
	e->depth--;
}

static void assign(Ec *e, const Node *lhs, const char *value)
{
	if (lhs->kind == ND_PORT_REF && lhs->sym == SYM_INNER_IN) {
		InnerC *ic;
		const InnerPort *p = inner_port_of(e, lhs, &ic);
		const Slot *sl = p ? &ic->slots[p - ic->in->ports] : NULL;
		if (!sl || sl->type < 0) {
			if (!p)
				error(e, lhs->loc, "cannot emit C for '%s.%s': no such inner port",
				      lhs->owner ? lhs->owner : "", lhs->name);
			return;
		}
		e->uses |= U_S;
		line(e, "s->%s_in_%s[%s] = %s;", ic->cname, type_word[sl->type], sl->enumc, value);
		line(e, "s->%s_in_%s_assigned[%s] = 1;", ic->cname, type_word[sl->type], sl->enumc);
		return;
	}
	if (lhs->kind == ND_PORT_REF && lhs->sym == SYM_INNER_OUT) {
		error(e, lhs->loc, "cannot emit C for an assignment to inner output '%s.%s'",
		      lhs->owner, lhs->name);
		return;
	}
	line(e, "%s = %s;", X(e, lhs, P_LOW), value);
}

static void var_decl(Ec *e, const Node *d)
{
	if (d->type == TY_STRING) {
		error(e, d->loc, "cannot emit C for var '%s': String variables are not supported yet",
		      d->name);
		return;
	}
	const char *name = local_c(e, d->name);
	const char *init = d->init ? X(e, d->init, P_LOW) : d->type == TY_REAL || d->type == TY_NONE
	                                                        ? "0.0" : "0";
	line(e, "%s %s = %s;", c_type(d->type), name, init);
	if (!reads(e->root, d))
		line(e, "(void)%s;", name);
}

static void if_stmt(Ec *e, const Node *s)
{
	line(e, "if (%s) {", X(e, s->cond, P_LOW));
	block(e, s->then);
	const Node *els = s->els;
	for (; els && els->kind == ND_IF; els = els->els) {
		line(e, "} else if (%s) {", X(e, els->cond, P_LOW));
		block(e, els->then);
	}
	if (els) {
		line(e, "} else {");
		block(e, els);
	}
	line(e, "}");
}

static void stmt(Ec *e, const Node *s)
{
	switch (s->kind) {
	case ND_VAR:
		for (const Node *d = s->list1; d; d = d->next)
			var_decl(e, d);
		break;
	case ND_ASSIGN:
		assign(e, s->lhs, X(e, s->rhs, P_LOW));
		break;
	case ND_CALL_STMT:
		line(e, "%s;", X(e, s->lhs, P_LOW));
		break;
	case ND_IF:
		if_stmt(e, s);
		break;
	case ND_FOR: {
		const char *i = local_c(e, s->name);
		line(e, "for (int %s = %s, sart_end_%s = %s; %s < sart_end_%s; %s++) {", i,
		     X(e, s->lhs, P_LOW), i, X(e, s->rhs, P_LOW), i, i, i);
		/* After a failed runtime call the remaining iterations could do nothing
		 * (sart_wrapper.h, "Failures"): leave the loop. */
		e->uses |= U_W;
		e->depth++;
		line(e, "if (sart_failed(w))");
		e->depth++;
		line(e, "break;");
		e->depth -= 2;
		block(e, s->then);
		line(e, "}");
		break;
	}
	case ND_BREAK:
		line(e, "break;");
		break;
	case ND_RETURN:
		line(e, "return %s;", X(e, s->lhs, P_LOW));
		break;
	default:
		error(e, s->loc, "cannot emit C for %s in a block", ast_kind_name(s->kind));
		break;
	}
}

static void stmts(Ec *e, const Node *list)
{
	for (const Node *s = list; s; s = s->next)
		stmt(e, s);
}

/* ---- functions -------------------------------------------------------------------------------- */

enum { FN_RULE, FN_MAP, FN_CTRL, FN_COND, FN_COND_MAP };
enum { PART_IN, PART_MAP_IN, PART_MAP_OUT, PART_OUT };

/* Starts a function body: output goes to body until end_fn. */
static void begin_fn(Ec *e, StrBuf *body, bool map, const Node *root)
{
	sb_init(body);
	e->o = body;
	e->depth = 1;
	e->uses = 0;
	e->map = map;
	e->root = root;
}

/* Writes `comment`, the signature of kind, the prologue (Storage, (void) lines) and body. */
static void end_fn(Ec *e, StrBuf *out, const char *comment, int kind, const char *name,
                   StrBuf *body)
{
	if (comment)
		sb_printf(out, "/* %s */\n", comment);
	switch (kind) {
	case FN_RULE:
		sb_printf(out, "static void %s(SartWrapper *w, void *sp, double t, double H)\n", name);
		break;
	case FN_MAP:
		sb_printf(out, "static void %s(SartWrapper *w, void *sp, double t, double H, double h, "
			  "double dt)\n", name);
		break;
	case FN_CTRL:
		sb_printf(out, "static double %s(SartWrapper *w, void *sp, double t, double H)\n", name);
		break;
	case FN_COND:
		sb_printf(out, "static int %s(SartWrapper *w, Storage *s, double t, double H)\n", name);
		break;
	default:
		sb_printf(out, "static int %s(SartWrapper *w, Storage *s, double t, double H, double h, "
			  "double dt)\n", name);
		break;
	}
	sb_puts(out, "{\n");
	bool cond = kind == FN_COND || kind == FN_COND_MAP;
	if (!cond)
		sb_puts(out, e->uses & U_S ? "\tStorage *s = sp;\n" : "\t(void)sp;\n");
	if (!(e->uses & U_W))
		sb_puts(out, "\t(void)w;\n");
	if (cond && !(e->uses & U_S))
		sb_puts(out, "\t(void)s;\n");
	if (!(e->uses & U_T))
		sb_puts(out, "\t(void)t;\n");
	if (!(e->uses & U_BIGH))
		sb_puts(out, "\t(void)H;\n");
	if (kind == FN_MAP || kind == FN_COND_MAP) {
		if (!(e->uses & U_H))
			sb_puts(out, "\t(void)h;\n");
		if (!(e->uses & U_DT))
			sb_puts(out, "\t(void)dt;\n");
	}
	sb_puts(out, sb_str(body));
	sb_puts(out, "}\n\n");
	sb_free(body);
	e->o = NULL;
}

static Node *rules_of(Ec *e, bool in)
{
	Node *r = in ? e->sa->a_in_rules : e->sa->a_out_rules;
	return r && r->kind == ND_RULES ? r : NULL;
}

static const char *hold_name(const Node *h)
{
	static const char *const names[] = {"no hold", "zero order hold", "first order hold"};
	return h->op >= 0 && h->op <= 2 ? names[h->op] : "hold";
}

static void not_lowered(Ec *e, Loc loc, const char *form)
{
	error(e, loc, "cannot emit C for the declarative form '%s': it must be lowered to "
	      "control, in and out rules first", form);
}

/* Reports the forms of a rules block that the runtime cannot run; false when there is one. */
static bool rules_translatable(Ec *e, Node *rules)
{
	int before = diag_errors(e->c->diag);
	if (!rules)
		return true;
	for (const Node *s = rules->list1; s; s = s->next)
		not_lowered(e, s->loc, s->kind == ND_CROSSING ? "crossing"
		                       : s->kind == ND_HOLD ? hold_name(s) : "rule settings");
	for (const Node *r = rules->list3; r; r = r->next) {
		if (r->op == RULE_QUANTIZE)
			not_lowered(e, r->loc, "quantize");
		else if (r->op == RULE_LOOP)
			not_lowered(e, r->loc, "loop rule");
		else if (r->list1)
			not_lowered(e, r->list1->loc, "crossing");
		if (r->cond && r->cond->kind == ND_OTHERWISE)
			not_lowered(e, r->cond->loc, "otherwise");
		const Node *f = r->els;
		if (!f)
			continue;
		if (f->kind == ND_HOLD)
			not_lowered(e, f->loc, hold_name(f));
		else if (f->kind != ND_BLOCK)
			error(e, f->loc, "cannot emit C for an output function written as an "
			      "expression; write it as a block of assignments");
		else if (f->list1 && ast_last(f->list1)->kind == ND_RETURN)
			error(e, ast_last(f->list1)->loc, "cannot emit C for an output function "
			      "that returns a value; write it as a block of assignments");
	}
	return diag_errors(e->c->diag) == before;
}

static bool block_empty(const Node *b)
{
	return !b || (b->kind == ND_BLOCK && !b->list1 && !b->lhs);
}

/* Condition helpers, the flags function (In or MapOut) and the output-function function
 * (MapIn or Out) of one rules block. */
static void emit_rules(Ec *e, StrBuf *out, bool in)
{
	Node *rules = rules_of(e, in);
	const char *flags = in ? "in_rule" : "out_rule";
	bool map_flags = !in;  /* MapOut records the out rules' flags */
	int i = 0;
	StrBuf body;
	/* condition blocks become helpers */
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next, i++) {
		if (r->op != RULE_COND || !r->cond || r->cond->kind != ND_BLOCK)
			continue;
		e->cond_blocks = true;
		begin_fn(e, &body, map_flags, r->cond);
		stmts(e, r->cond->list1);
		const char *name = arena_printf(e->c->arena, "%s_%d_condition", flags, i);
		end_fn(e, out, arena_printf(e->c->arena, "The condition of %s rule %d.",
					    in ? "in" : "out", i),
		       map_flags ? FN_COND_MAP : FN_COND, name, &body);
	}

	/* In / MapOut: the flags, then the `->` parts of the flagged rules */
	begin_fn(e, &body, map_flags, rules);
	i = 0;
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next, i++) {
		e->uses |= U_S;
		if (r->op == RULE_ASSIGN || (r->cond && r->cond->kind == ND_BOOL)) {
			line(e, "s->%s[%d] = %d;", flags, i,
			     r->op == RULE_ASSIGN || r->cond->ival ? 1 : 0);
		} else if (r->cond && r->cond->kind == ND_BLOCK) {
			e->uses |= U_W | U_T | U_BIGH | (map_flags ? U_H | U_DT : 0);
			line(e, "s->%s[%d] = %s_%d_condition(w, s, t, H%s);", flags, i, flags, i,
			     map_flags ? ", h, dt" : "");
		} else if (r->cond) {
			if (is_truth(r->cond))
				line(e, "s->%s[%d] = %s;", flags, i, X(e, r->cond, P_LOW));
			else
				line(e, "s->%s[%d] = %s != 0;", flags, i, X(e, r->cond, P_REL));
		}
	}
	i = 0;
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next, i++) {
		if (block_empty(r->then))
			continue;
		e->root = r->then;
		line(e, "if (s->%s[%d]) {", flags, i);
		block(e, r->then);
		line(e, "}");
	}
	e->part_uses[in ? PART_IN : PART_MAP_OUT] = e->uses;
	end_fn(e, out, in ? "In: the in rules' conditions, then the `->` parts of the flagged rules."
	                  : "MapOut: the out rules' conditions, then the `->` parts of the "
	                    "flagged rules.",
	       in ? FN_RULE : FN_MAP, in ? "in" : "map_out", &body);

	/* MapIn / Out: the `-->` parts of the flagged rules */
	begin_fn(e, &body, in, rules);
	i = 0;
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next, i++) {
		if (!r->els || r->els->kind != ND_BLOCK || block_empty(r->els))
			continue;
		e->uses |= U_S;
		e->root = r->els;
		line(e, "if (s->%s[%d]) {", flags, i);
		block(e, r->els);
		line(e, "}");
	}
	e->part_uses[in ? PART_MAP_IN : PART_OUT] = e->uses;
	end_fn(e, out, in ? "MapIn: the `-->` parts of the flagged in rules."
	                  : "Out: the `-->` parts of the flagged out rules.",
	       in ? FN_MAP : FN_RULE, in ? "map_in" : "out", &body);
}

static void emit_ctrl(Ec *e, StrBuf *out)
{
	Node *ctrl = e->sa->a_ctrl;
	StrBuf body;
	begin_fn(e, &body, false, ctrl ? ctrl->body : NULL);
	if (ctrl && ctrl->kind == ND_CTRL && ctrl->body) {
		stmts(e, ctrl->body->list1);
		const Node *last = ast_last(ctrl->body->list1);
		if (!last || last->kind != ND_RETURN) {
			error(e, ctrl->loc, "cannot emit C for control rules without a final return");
		}
	} else if (ctrl) {
		static const char *const forms[] = {"implied", "triggered by", "periodic",
		                                    "multiplied"};
		int k = ctrl->kind - ND_CTRL_IMPLIED;
		not_lowered(e, ctrl->loc, k >= 0 && k < 4 ? forms[k] : "control");
	} else {
		error(e, e->sa->loc, "cannot emit C for '%s': it has no control rules", e->sa->name);
	}
	end_fn(e, out, "Ctrl: the control rules; returns the step taken.", FN_CTRL, "ctrl", &body);
}

/* Whether any statement under n assigns the variable declared by decl. */
static bool assigns(const Node *n, const Node *decl)
{
	for (; n; n = n->next) {
		if (n->kind == ND_ASSIGN && n->lhs && n->lhs->kind == ND_NAME && n->lhs->decl == decl)
			return true;
		if (n->kind == ND_BLOCK && assigns(n->list1, decl))
			return true;
		if ((n->kind == ND_IF || n->kind == ND_FOR) &&
		    (assigns(n->then, decl) || assigns(n->els, decl)))
			return true;
	}
	return false;
}

/* Whether the returned expression r is only an inner FMU's step passed up: a var of the
 * control block initialised by do_step(...) and never assigned again, or the min of such
 * (what CreateCtrlRules writes). */
static bool passes_steps_up(const Node *body, const Node *r)
{
	if (r->kind == ND_BUILTIN && r->op == BI_MIN) {
		for (const Node *a = r->list1; a; a = a->next)
			if (!passes_steps_up(body, a))
				return false;
		return r->list1 != NULL;
	}
	const Node *d = r->kind == ND_NAME ? r->decl : NULL;
	return d && d->kind == ND_VARDECL && d->init && d->init->kind == ND_BUILTIN &&
	       d->init->op == BI_DO_STEP && !assigns(body->list1, d);
}

/* Whether the wrapper must snapshot itself at each step start (SartModel.may_reject): the
 * control rules can return less than H by a computation of their own.  Returning H never
 * rejects; returning only what do_step gave passes an inner FMU's discard up, which the
 * wrapper reports as that FMU would (README, "Rejected steps"), without a snapshot. */
static bool may_reject(const Ec *e)
{
	const Node *ctrl = e->sa->a_ctrl;
	const Node *body = ctrl && ctrl->kind == ND_CTRL ? ctrl->body : NULL;
	const Node *last = body ? ast_last(body->list1) : NULL;
	if (!last || last->kind != ND_RETURN || !last->lhs)
		return true;
	if (last->lhs->kind == ND_KEYVAR && last->lhs->op == KV_BIG_H)
		return false;
	return !passes_steps_up(body, last->lhs);
}

/* ---- the fast step --------------------------------------------------------------------------- */

/* Whether n is the key variable kv (t, H). */
static bool is_keyvar(const Node *n, int kv)
{
	return n && n->kind == ND_KEYVAR && n->op == kv;
}

/* The inner stepped by `var x := do_step(f, t, H)`, or NULL when d is not that. */
static InnerC *plain_do_step(Ec *e, const Node *d)
{
	const Node *c = d->kind == ND_VARDECL ? d->init : NULL;
	if (!c || c->kind != ND_BUILTIN || c->op != BI_DO_STEP || ast_count(c->list1) != 2 ||
	    !is_keyvar(c->list1, KV_T) || !is_keyvar(c->list1->next, KV_BIG_H) || !c->name)
		return NULL;
	return inner_c(e, c->name);
}

/* Whether st assigns inner port p of ic. */
static bool assigns_port(Ec *e, const Node *st, const InnerC *ic, const InnerPort *p)
{
	const Node *l = st->kind == ND_ASSIGN ? st->lhs : NULL;
	InnerC *lic;
	return l && l->kind == ND_PORT_REF && l->sym == SYM_INNER_IN &&
	       inner_port_of(e, l, &lic) == p && lic == ic;
}

/* Whether every Real input of ic is assigned by a statement at the top level of an in
 * rule's `-->` part (every in rule's flag being 1, each runs on every do_step) or by one of
 * the control rules before `upto` (an internal coupling). */
static bool map_in_assigns_all(Ec *e, const InnerC *ic, const Node *upto)
{
	const Node *rules = rules_of(e, true);
	for (int k = 0; k < ic->in->nports; k++) {
		const InnerPort *p = &ic->in->ports[k];
		if (!p->is_input || ic->slots[k].type != T_REAL)
			continue;
		bool found = false;
		for (const Node *r = rules ? rules->list3 : NULL; r && !found; r = r->next) {
			if (!r->els || r->els->kind != ND_BLOCK)
				continue;
			for (const Node *st = r->els->list1; st && !found; st = st->next)
				found = assigns_port(e, st, ic, p);
		}
		for (const Node *st = e->sa->a_ctrl->body->list1; st != upto && !found; st = st->next)
			found = assigns_port(e, st, ic, p);
		if (!found)
			return false;
	}
	return true;
}

/* The preconditions of the fast step (SartModel.fast_step), cited where they fail:
 *   1. no rule part calls the runtime (In, MapIn, MapOut, Out use no `w`), no condition
 *      blocks: the fast step leaves the runtime's bookkeeping (e, in_map) alone;
 *   2. every in rule's flag is the constant 1 (an assignment rule or `true`);
 *   3. Ctrl is `var x_i := do_step(f_i, t, H)` for distinct inners f_i, and assignments of
 *      inner inputs that call nothing (the internal couplings), then `return` of H, one
 *      x_i, or a min of x_i: an all-OK step returns H, so Out runs;
 *   4. each f_i has Real ports only, and MapIn assigns every one of its Real inputs at
 *      the top level of a `-->` part (so the whole port array goes in one set call);
 *   5. each f_i is an FMI 2.0 FMU: only that back end of the seam has a direct route.
 * Returns the stepped inners in Ctrl's order (n of them), or NULL. */
static InnerC **fast_step_form(Ec *e, int *n)
{
	const Node *ctrl = e->sa->a_ctrl;
	const Node *rules = rules_of(e, true);
	*n = 0;
	for (int p = 0; p < 4; p++)
		if (e->part_uses[p] & U_W)
			return NULL; /* 1 */
	if (e->cond_blocks)
		return NULL; /* 1 */
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next)
		if (!(r->op == RULE_ASSIGN || (r->cond && r->cond->kind == ND_BOOL && r->cond->ival)))
			return NULL; /* 2 */
	if (!ctrl || ctrl->kind != ND_CTRL || !ctrl->body || !ctrl->body->list1)
		return NULL; /* 3 */
	InnerC **stepped = arena_alloc(e->c->arena, (size_t)(e->ninners + 1) * sizeof *stepped);
	const Node **at = arena_alloc(e->c->arena, (size_t)(e->ninners + 1) * sizeof *at);
	const Node *st = ctrl->body->list1;
	for (; st && st->next; st = st->next) {
		if (st->kind == ND_ASSIGN && st->lhs && st->lhs->kind == ND_PORT_REF &&
		    st->lhs->sym == SYM_INNER_IN) {
			unsigned uses = e->uses;
			e->uses = 0;
			(void)X(e, st->rhs, P_LOW);
			bool calls = e->uses & U_W;
			e->uses = uses;
			if (calls)
				return NULL; /* 3 */
			continue;
		}
		if (st->kind != ND_VAR || !st->list1)
			return NULL; /* 3 */
		for (const Node *d = st->list1; d; d = d->next) {
			InnerC *ic = plain_do_step(e, d);
			if (!ic)
				return NULL; /* 3 */
			for (int i = 0; i < *n; i++)
				if (stepped[i] == ic)
					return NULL; /* 3 */
			if (*n >= e->ninners)
				return NULL;
			at[*n] = st;
			stepped[(*n)++] = ic;
		}
	}
	if (!*n || st->kind != ND_RETURN || !st->lhs ||
	    !(is_keyvar(st->lhs, KV_BIG_H) || passes_steps_up(ctrl->body, st->lhs)))
		return NULL; /* 3 */
	for (int i = 0; i < *n; i++) {
		const InnerC *ic = stepped[i];
		for (int dir = 0; dir < 2; dir++)
			if (ic->n[dir][T_INTEGER] || ic->n[dir][T_BOOLEAN])
				return NULL; /* 4 */
		for (int k = 0; k < ic->in->nports; k++)
			if (ic->slots[k].type < 0)
				return NULL; /* 4 */
		if (!map_in_assigns_all(e, ic, at[i]))
			return NULL; /* 4 */
		if (ic->version != 2)
			return NULL; /* 5 */
	}
	return stepped;
}

/* do_step(f, t, H) of the fast step for inner ic: the inputs checked finite and set with one
 * call, the step, the outputs read with one call and checked finite, through the seam's
 * direct route (runtime/sart_fast_step.h); anything but SART_OK goes to sart_fast_rest at
 * that point, saying how far it got (0 nothing called, 1 set, 2 step, 3 get). */
static void emit_fast_do_step(Ec *e, StrBuf *out, const InnerC *ic)
{
	Arena *a = e->c->arena;
	int nin = ic->n[0][T_REAL], nout = ic->n[1][T_REAL];
	const char *in = arena_printf(a, "%s_in_real", ic->cname);
	const char *outs = arena_printf(a, "%s_out_real", ic->cname);
	const char *rest = arena_printf(a, "return sart_fast_rest(w, s, %s, t, H, ", ic->enumc);
	sb_printf(out, "/* do_step(%s, t, H) in the fast step (sart_fast_rest when not SART_OK). */\n",
		  ic->in->name);
	sb_printf(out, "static int fast_do_step_%s(SartWrapper *w, Storage *s, "
		  "const SartFastRoute *sart_route,\n%*sdouble t, double H, double *sart_taken)\n{\n",
		  ic->cname, (int)(strlen("static int fast_do_step_(") + strlen(ic->cname)), "");
	sb_printf(out, "\tconst SartInnerDirect *d = sart_route->direct[%s];\n", ic->enumc);
	sb_puts(out, "\tSartStatus st;\n");
	if (nin)
		sb_printf(out, "\tif (!sart_all_finite(s->%s, %d) || !sart_direct_ready(d))\n", in, nin);
	else
		sb_puts(out, "\tif (!sart_direct_ready(d))\n");
	sb_printf(out, "\t\t%s0, 0, sart_taken);\n", rest);
	if (nin) {
		sb_printf(out, "\tst = sart_direct_set_real(d, %s_vr, %d, s->%s);\n", in, nin, in);
		sb_printf(out, "\tif (st != SART_OK)\n\t\t%s1, st, sart_taken);\n", rest);
	}
	sb_puts(out, "\tst = sart_direct_do_step(d, t, H);\n");
	sb_printf(out, "\tif (st != SART_OK)\n\t\t%s2, st, sart_taken);\n", rest);
	if (nout) {
		sb_printf(out, "\tst = sart_direct_get_real(d, %s_vr, %d, s->%s);\n", outs, nout, outs);
		sb_printf(out, "\tif (st != SART_OK)\n\t\t%s3, st, sart_taken);\n", rest);
		sb_printf(out, "\tif (!sart_all_finite(s->%s, %d))\n\t\t%s3, 0, sart_taken);\n", outs,
			  nout, rest);
	}
	sb_printf(out, "\tsart_route->last[%s] = t + H;\n", ic->enumc);
	sb_puts(out, "\treturn 1;\n}\n\n");
}

/* The fast step, when the adaptation has its form: the general path's In, Ctrl and Out in
 * the same order on the same Storage, with the rule parts called directly (static in this
 * file, the compiler inlines them) and each do_step through the seam's direct route.  After a
 * do_step that did not go with SART_OK, the rest is Ctrl as written (sart_do_step), so the
 * state is the general path's.  Returns whether it was written. */
static bool emit_fast_step(Ec *e, StrBuf *out)
{
	int n;
	InnerC **stepped = fast_step_form(e, &n);
	if (!stepped)
		return false;
	const Node *ctrl = e->sa->a_ctrl;
	const Node *ret = ast_last(ctrl->body->list1);
	StrBuf body;
	for (int k = 0; k < n; k++)
		emit_fast_do_step(e, out, stepped[k]);
	begin_fn(e, &body, false, ctrl->body);
	sb_puts(out, "/* The fast step (sart_wrapper.h): In, Ctrl and Out of a plain step, straight "
		     "through. */\n");
	sb_puts(out, "static int fast_step(SartWrapper *w, void *sp, const SartFastRoute *sart_route,\n"
		     "                     double t, double H, double *sart_taken)\n{\n");
	sb_puts(out, "\tStorage *s = sp;\n\tint sart_fast = 1;\n");
	int i = 0;
	for (const Node *st = ctrl->body->list1; st != ret; st = st->next)
		for (const Node *d = st->kind == ND_VAR ? st->list1 : NULL; d; d = d->next)
			sb_printf(out, "\tdouble %s = H;\n", local_c(e, d->name));
	sb_puts(out, "\tin(w, s, t, H);\n");
	for (const Node *st = ctrl->body->list1; st != ret; st = st->next) {
		if (st->kind == ND_ASSIGN) {
			/* an internal coupling: on either path, as Ctrl runs it */
			e->o = out;
			e->depth = 1;
			stmt(e, st);
			continue;
		}
		for (const Node *d = st->list1; d; d = d->next, i++) {
			const InnerC *ic = stepped[i];
			const char *x = local_c(e, d->name);
			const char *ind = i ? "\t\t" : "\t";
			sb_printf(out, "\t/* do_step(%s, t, H) */\n", ic->in->name);
			if (i)
				sb_puts(out, "\tif (sart_fast) {\n");
			sb_printf(out, "%smap_in(w, s, t, H, H, 0.0);\n", ind);
			for (int k = 0; k < ic->in->nports; k++)
				if (ic->in->ports[k].is_input)
					sb_printf(out, "%ss->%s_in_real_assigned[%s] = 0;\n", ind, ic->cname,
						  ic->slots[k].enumc);
			sb_printf(out, "%sif (fast_do_step_%s(w, s, sart_route, t, H, &%s))\n", ind,
				  ic->cname, x);
			sb_printf(out, "%s\tmap_out(w, s, t, H, H, 0.0);\n", ind);
			sb_printf(out, "%selse\n%s\tsart_fast = 0;\n", ind, ind);
			if (i) {
				sb_puts(out, "\t} else {\n");
				sb_printf(out, "\t\t%s = sart_do_step(w, s, %s, t, H);\n", x, ic->enumc);
				sb_puts(out, "\t}\n");
			}
		}
	}
	sb_puts(out, "\tif (sart_fast) {\n\t\tout(w, s, t, H);\n\t\treturn 1;\n\t}\n");
	sb_printf(out, "\t*sart_taken = %s;\n\treturn 0;\n}\n\n", X(e, ret->lhs, P_LOW));
	sb_free(&body);
	e->o = NULL;
	return true;
}

/* The storage var groups, in Storage order. */
typedef struct Group {
	const char *comment;
	const Node *list;
} Group;

static void emit_initial(Ec *e, StrBuf *out, const Group *groups, int ngroups)
{
	StrBuf body;
	begin_fn(e, &body, false, NULL);
	for (int g = 0; g < ngroups; g++)
		for (const Node *d = groups[g].list; d; d = d->next) {
			const char *f = field_of(e, d);
			if (!f)
				continue;
			const char *v = d->init ? X(e, d->init, P_LOW)
			                        : d->type == TY_INTEGER || d->type == TY_BOOL ? "0" : "0.0";
			e->uses |= U_S;
			line(e, "s->%s = %s;", f, v);
		}
	end_fn(e, out, "The in, out and control vars' initial values, from the params.", FN_RULE,
	       "initial", &body);
}

static const char *value_text(Ec *e, const EmitVar *v)
{
	switch (v->type) {
	case TY_INTEGER: return arena_printf(e->c->arena, "%lld", v->start.i);
	case TY_BOOL: return v->start.b ? "1" : "0";
	default: return real_text(e, v->start.r);
	}
}

static void emit_defaults(Ec *e, StrBuf *out)
{
	sb_puts(out, "/* The inputs' and params' start values. */\n");
	sb_puts(out, "static void defaults(void *sp)\n{\n");
	bool any = false;
	for (int i = 0; i < e->l->nvars; i++)
		any |= e->l->vars[i].has_start && sart_type(e->l->vars[i].type) >= 0;
	sb_puts(out, any ? "\tStorage *s = sp;\n" : "\t(void)sp;\n");
	for (int i = 0; i < e->l->nvars; i++) {
		const EmitVar *v = &e->l->vars[i];
		const char *f = field_of(e, v->decl);
		if (v->has_start && f && sart_type(v->type) >= 0)
			sb_printf(out, "\ts->%s = %s;\n", f, value_text(e, v));
	}
	sb_puts(out, "}\n\n");
}

/* The external variables of type t as the runtime's table (SartVar, sart_wrapper.h), by
 * value reference: where each lives in the Storage, who may set it, and its name for the
 * runtime's messages.  fmi2GetX/fmi2SetX are then one loop in the runtime.  Nothing when
 * the adaptation has no variable of the type. */
static void emit_vars(Ec *e, StrBuf *out, int t)
{
	const EmitLayout *l = e->l;
	uint32_t n = t == T_REAL ? l->nreal : t == T_INTEGER ? l->ninteger : l->nboolean;
	uint32_t count = 0;
	if (!n)
		return;
	sb_printf(out, "/* The %s variables by value reference: where each lives in the Storage "
		  "and who may set\n * it (sart_wrapper.h). */\n", type_fmi[t]);
	sb_printf(out, "static const SartVar %s_vars[%u] = {\n", type_word[t], (unsigned)n);
	for (int i = 0; i < l->nvars; i++) {
		const EmitVar *v = &l->vars[i];
		if (sart_type(v->type) != t)
			continue;
		const char *kind = v->causality == CAUS_OUTPUT ? "SART_VAR_OUTPUT"
				   : v->causality != CAUS_PARAMETER ? "SART_VAR_INPUT"
				   : v->variability == VAR_FIXED ? "SART_VAR_FIXED" : "SART_VAR_TUNABLE";
		sb_printf(out, "\t[vr_%s] = {offsetof(Storage, %s), %s, \"%s\"},\n", v->name,
			  field_of(e, v->decl), kind, c_string(e->c->arena, v->name));
		count++;
	}
	sb_puts(out, "};\n\n");
	if (count != n)
		error(e, l->sa->loc, "cannot emit C for '%s': its %s value references are not 0..%u",
		      l->model_identifier, type_word[t], (unsigned)n - 1);
}

static void emit_couple(Ec *e, StrBuf *out)
{
	StrBuf body;
	sb_init(&body);
	bool any = false;
	for (int k = 0; k < e->ninners; k++) {
		const InnerC *dst = &e->inners[k];
		bool first = true;
		for (const Node *cp = e->sa->a_couplings; cp; cp = cp->next) {
			if (!cp->rhs->owner || strcmp(cp->rhs->owner, dst->in->name) != 0)
				continue;
			InnerC *sic, *dic;
			const InnerPort *sp = cp->lhs->sym == SYM_INNER_OUT ? inner_port_of(e, cp->lhs, &sic)
			                                                    : NULL;
			const InnerPort *dp = cp->rhs->sym == SYM_INNER_IN ? inner_port_of(e, cp->rhs, &dic)
			                                                   : NULL;
			if (!sp || !dp) {
				error(e, cp->loc, "cannot emit C for the coupling %s.%s -> %s.%s: it does "
				      "not join an inner output to an inner input",
				      cp->lhs->owner ? cp->lhs->owner : "", cp->lhs->name,
				      cp->rhs->owner ? cp->rhs->owner : "", cp->rhs->name);
				continue;
			}
			const Slot *ss = &sic->slots[sp - sic->in->ports];
			const Slot *ds = &dic->slots[dp - dic->in->ports];
			if (ss->type < 0 || ds->type < 0)
				continue;
			if (first)
				sb_printf(&body, "\tcase %s:\n", dst->enumc);
			first = false;
			any = true;
			StrBuf v;
			sb_init(&v);
			if (cp->converts && cp->scale != 1.0)
				sb_printf(&v, "%s * ", real_text(e, cp->scale));
			sb_printf(&v, "s->%s_out_%s[%s]", sic->cname, type_word[ss->type], ss->enumc);
			if (cp->converts && cp->offset != 0.0)
				sb_printf(&v, " %s %s", cp->offset < 0 ? "-" : "+",
					  real_text(e, cp->offset < 0 ? -cp->offset : cp->offset));
			sb_printf(&body, "\t\ts->%s_in_%s[%s] = %s;\n", dic->cname, type_word[ds->type],
				  ds->enumc, sb_str(&v));
			sb_printf(&body, "\t\ts->%s_in_%s_assigned[%s] = 1;\n", dic->cname,
				  type_word[ds->type], ds->enumc);
			sb_free(&v);
		}
		if (!first)
			sb_puts(&body, "\t\tbreak;\n");
	}
	sb_puts(out, "/* Internal couplings into an inner FMU (Init and G), with their unit "
		"conversions. */\n");
	sb_puts(out, "static void couple(SartWrapper *w, void *sp, unsigned inner)\n{\n");
	if (!any) {
		sb_puts(out, "\t(void)w;\n\t(void)sp;\n\t(void)inner;\n}\n\n");
	} else {
		sb_puts(out, "\tStorage *s = sp;\n\t(void)w;\n\tswitch (inner) {\n");
		sb_puts(out, sb_str(&body));
		sb_puts(out, "\tdefault:\n\t\tbreak;\n\t}\n}\n\n");
	}
	sb_free(&body);
}

/* ---- checks before writing -------------------------------------------------------------------- */

static void check_forms(Ec *e)
{
	for (const Node *g = e->sa->a_general; g; g = g->next) {
		const char *form = g->kind == ND_SUBST ? "successive substitution"
		                   : g->kind == ND_DELAY ? "delay"
		                   : g->kind == ND_MULTIRATE ? "multiply rate"
		                   : g->kind == ND_DERIV ? (g->op == DERIV_WITH ? "with derivatives"
		                                                              : "extract")
		                   : ast_kind_name(g->kind);
		not_lowered(e, g->loc, form);
	}
	rules_translatable(e, rules_of(e, true));
	rules_translatable(e, rules_of(e, false));
}

static void check_storage_types(Ec *e, const Group *groups, int ngroups)
{
	for (int i = 0; i < e->l->nvars; i++)
		if (e->l->vars[i].type == TY_STRING)
			error(e, e->l->vars[i].decl->loc, "cannot emit C for %s '%s': String variables "
			      "are not supported yet",
			      e->l->vars[i].causality == CAUS_PARAMETER ? "param"
			      : e->l->vars[i].causality == CAUS_INPUT ? "input" : "output",
			      e->l->vars[i].name);
	for (int g = 0; g < ngroups; g++)
		for (const Node *d = groups[g].list; d; d = d->next)
			if (d->type == TY_STRING)
				error(e, d->loc, "cannot emit C for var '%s': String variables are not "
				      "supported yet", d->name);
}

/* ---- the two files ---------------------------------------------------------------------------- */

static void banner(Ec *e, StrBuf *o)
{
	sb_printf(o, "/* Generated by sacc " SACC_VERSION " from %s: do not edit. */\n", e->file);
}

static void put_enum(StrBuf *o, const char **items, int n)
{
	if (n == 0)
		return;
	put_list_sp(o, "enum ", items, n, ";", true);
}

static void emit_config(Ec *e, StrBuf *o, const Group *groups, int ngroups)
{
	Arena *a = e->c->arena;
	const EmitLayout *l = e->l;
	banner(e, o);
	sb_printf(o, "/* config.h — the value references, inner FMUs and Storage of the wrapper FMU "
		  "%s:\n * the declarations of %s.c (see sart_wrapper.h). */\n", l->model_identifier,
		  l->model_identifier);
	sb_puts(o, "#ifndef SART_CONFIG_H\n#define SART_CONFIG_H\n\n");

	sb_puts(o, "/* ---- value references (modelDescription.xml) ---- */\n");
	int nlive = 0;
	for (int i = 0; i < l->nvars; i++)
		nlive += sart_type(l->vars[i].type) >= 0;
	if (nlive == 0) {
		sb_puts(o, "/* none */\n");
	} else {
		sb_puts(o, "enum {\n");
		int k = 0;
		for (int i = 0; i < l->nvars; i++) {
			const EmitVar *v = &l->vars[i];
			if (sart_type(v->type) < 0)
				continue;
			const char *caus = v->causality == CAUS_INPUT ? "input"
			                   : v->causality == CAUS_OUTPUT ? "output"
			                   : v->variability == VAR_FIXED ? "parameter, fixed"
			                                                 : "parameter, tunable";
			sb_printf(o, "\tvr_%s = %u%s /* %s %s */\n", v->name, (unsigned)v->vr,
				  ++k < nlive ? "," : "", type_fmi[sart_type(v->type)], caus);
		}
		sb_puts(o, "};\n");
	}

	sb_puts(o, "\n/* ---- inner FMUs and their ports ---- */\n");
	const char **items = arena_alloc(a, (size_t)(e->ninners + 1) * sizeof *items);
	for (int i = 0; i < e->ninners; i++)
		items[i] = arena_printf(a, "%s = %d", e->inners[i].enumc, i);
	items[e->ninners] = arena_printf(a, "NINNERS = %d", e->ninners);
	put_enum(o, items, e->ninners + 1);
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		for (int dir = 0; dir < 2; dir++) {
			items = arena_alloc(a, (size_t)(ic->in->nports + 1) * sizeof *items);
			int n = 0;
			for (int k = 0; k < ic->in->nports; k++) {
				const Slot *sl = &ic->slots[k];
				if (sl->type >= 0 && ic->in->ports[k].is_input == (dir == 0))
					items[n++] = arena_printf(a, "%s = %d", sl->enumc, sl->index);
			}
			put_enum(o, items, n);
		}
	}

	sb_puts(o, "\ntypedef struct Storage {\n");
	for (int g = 0; g < ngroups; g++) {
		int n = 0;
		for (const Node *d = groups[g].list; d; d = d->next)
			n += field_of(e, d) != NULL;
		if (n == 0) {
			sb_printf(o, "\t/* %s: none */\n", groups[g].comment);
			continue;
		}
		sb_printf(o, "\t/* %s */\n", groups[g].comment);
		for (const Node *d = groups[g].list; d; d = d->next) {
			const char *f = field_of(e, d);
			if (f)
				sb_printf(o, "\t%s %s;\n", c_type(d->type == TY_NONE ? TY_REAL : d->type), f);
		}
	}
	sb_puts(o, "\t/* rule flags */\n");
	if (e->nin_rules)
		sb_printf(o, "\tint in_rule[%d];\n", e->nin_rules);
	if (e->nout_rules)
		sb_printf(o, "\tint out_rule[%d];\n", e->nout_rules);
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		sb_printf(o, "\t/* inner %s */\n", ic->in->name);
		for (int t = 0; t < T_N; t++) {
			const char *ct = t == T_REAL ? "double" : "int";
			if (ic->n[0][t]) {
				sb_printf(o, "\t%s %s_in_%s[%d];\n", ct, ic->cname, type_word[t], ic->n[0][t]);
				sb_printf(o, "\tunsigned char %s_in_%s_assigned[%d];\n", ic->cname, type_word[t],
					  ic->n[0][t]);
			}
			if (ic->n[1][t])
				sb_printf(o, "\t%s %s_out_%s[%d];\n", ct, ic->cname, type_word[t], ic->n[1][t]);
		}
	}
	sb_puts(o, "} Storage;\n\n#endif\n");
}

static void emit_source(Ec *e, StrBuf *o, const Group *groups, int ngroups)
{
	Arena *a = e->c->arena;
	const EmitLayout *l = e->l;
	StrBuf fns;
	sb_init(&fns);

	/* the functions first: they decide whether round_digits is needed */
	emit_defaults(e, &fns);
	emit_initial(e, &fns, groups, ngroups);
	for (int t = 0; t < T_N; t++)
		emit_vars(e, &fns, t);
	emit_rules(e, &fns, true);
	emit_ctrl(e, &fns);
	emit_rules(e, &fns, false);
	emit_couple(e, &fns);
	bool fast = emit_fast_step(e, &fns);

	banner(e, o);
	sb_printf(o, "/* %s.c — the model-specific part of the wrapper FMU %s:\n * its inner FMUs, "
		  "variable tables and rule parts, for the runtime (sart_wrapper.h). */\n",
		  l->model_identifier, l->model_identifier);
	sb_puts(o, "#include <math.h>\n#include <stddef.h>\n#include <stdlib.h>\n\n");
	sb_puts(o, "#include \"config.h\"\n#include \"sart_wrapper.h\"\n");
	if (fast)
		sb_puts(o, "#include \"sart_fast_step.h\"\n");
	sb_putc(o, '\n');

	/* value references and names of the inners' ports */
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		for (int t = 0; t < T_N; t++)
			for (int dir = 0; dir < 2; dir++) {
				int n = ic->n[dir][t];
				if (!n)
					continue;
				const char **vrs = arena_alloc(a, (size_t)n * sizeof *vrs);
				const char **names = arena_alloc(a, (size_t)n * sizeof *names);
				for (int k = 0; k < ic->in->nports; k++) {
					const Slot *sl = &ic->slots[k];
					if (sl->type != t || ic->in->ports[k].is_input != (dir == 0))
						continue;
					vrs[sl->index] = arena_printf(a, "%u", (unsigned)sl->vr);
					names[sl->index] = arena_printf(a, "\"%s\"",
									c_string(a, ic->in->ports[k].name));
				}
				const char *arr = arena_printf(a, "%s_%s_%s", ic->cname, dir ? "out" : "in",
							       type_word[t]);
				put_list(o, arena_printf(a, "static const SartVr %s_vr[%d] = ", arr, n), vrs,
					 n, ";");
				put_list(o, arena_printf(a, "static const char *const %s_names[%d] = ", arr,
							 n), names, n, ";");
			}
	}
	if (e->ninners)
		sb_putc(o, '\n');

	sb_puts(o, "static const SartInnerModel inners[NINNERS] = {\n");
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		sb_printf(o, "\t[%s] = {\n", ic->enumc);
		sb_printf(o, "\t\t.name = \"%s\",\n", c_string(a, ic->in->name));
		sb_printf(o, "\t\t.model_identifier = \"%s\",\n", c_string(a, ic->model_identifier));
		sb_printf(o, "\t\t.guid = \"%s\",\n", c_string(a, ic->guid));
		sb_printf(o, "\t\t.version = %s,\n", ic->version == 3 ? "SART_FMI3" : "SART_FMI2");
		StrBuf caps;
		sb_init(&caps);
		static const char *const cap_names[] = {"SART_CAP_GET_SET_STATE", "SART_CAP_SERIALIZE",
		                                        "SART_CAP_INPUT_DERIVATIVES"};
		for (int b = 0; b < 3; b++)
			if (ic->caps & (1u << b))
				sb_printf(&caps, "%s%s", caps.len ? " | " : "", cap_names[b]);
		sb_printf(o, "\t\t.caps = %s,\n", caps.len ? sb_str(&caps) : "0");
		sb_free(&caps);
		for (int dir = 0; dir < 2; dir++) {
			bool any = false;
			for (int t = 0; t < T_N; t++)
				any |= ic->n[dir][t] > 0;
			if (!any)
				continue;
			sb_printf(o, "\t\t.%s = {\n", dir ? "out" : "in");
			for (int t = 0; t < T_N; t++) {
				int n = ic->n[dir][t];
				if (!n)
					continue;
				const char *arr = arena_printf(a, "%s_%s_%s", ic->cname, dir ? "out" : "in",
							       type_word[t]);
				sb_printf(o, "\t\t\t[%s] = {%d, %s_vr, %s_names,\n", type_sart[t], n, arr, arr);
				if (dir)
					sb_printf(o, "\t\t\t\toffsetof(Storage, %s), 0},\n", arr);
				else
					sb_printf(o, "\t\t\t\toffsetof(Storage, %s), offsetof(Storage, %s_assigned)},\n",
						  arr, arr);
			}
			sb_puts(o, "\t\t},\n");
		}
		sb_puts(o, "\t},\n");
	}
	sb_puts(o, "};\n\n");

	int *order = inner_order(e);
	const char **items = arena_alloc(a, (size_t)(e->ninners + 1) * sizeof *items);
	for (int i = 0; i < e->ninners; i++)
		items[i] = e->inners[order[i]].enumc;
	put_list(o, "static const unsigned order[NINNERS] = ", items, e->ninners, ";");

	int nreal_in = 0;
	for (int i = 0; i < l->ninputs; i++)
		nreal_in += l->vars[i].type == TY_REAL;
	if (nreal_in) {
		items = arena_alloc(a, (size_t)nreal_in * sizeof *items);
		int k = 0;
		for (int i = 0; i < l->ninputs; i++)
			if (l->vars[i].type == TY_REAL)
				items[k++] = arena_printf(a, "vr_%s", l->vars[i].name);
		sb_putc(o, '\n');
		put_list(o, arena_printf(a, "static const SartVr real_inputs[%d] = ", nreal_in), items,
			 nreal_in, ";");
	}
	sb_putc(o, '\n');

	if (e->round_digits)
		sb_puts(o, "/* round(x, n): x rounded to n decimals. */\n"
			   "static double round_digits(double x, double n)\n{\n"
			   "\tdouble scale = pow(10.0, n);\n"
			   "\treturn round(x * scale) / scale;\n}\n\n");

	sb_puts(o, sb_str(&fns));
	sb_free(&fns);

	sb_puts(o, "const SartModel sart_model = {\n");
	sb_printf(o, "\t.identifier = \"%s\",\n", c_string(a, l->model_identifier));
	sb_printf(o, "\t.guid = \"%s\",\n", l->guid);
	sb_puts(o, "\t.storage_size = sizeof(Storage),\n");
	sb_puts(o, "\t.inners = inners,\n\t.ninners = NINNERS,\n");
	sb_puts(o, "\t.order = order,\n\t.norder = NINNERS,\n");
	sb_printf(o, "\t.nvr = {%u, %u, %u},\n", (unsigned)l->nreal, (unsigned)l->ninteger,
		  (unsigned)l->nboolean);
	sb_puts(o, "\t.vars = {");
	for (int t = 0; t < T_N; t++) {
		uint32_t n = t == T_REAL ? l->nreal : t == T_INTEGER ? l->ninteger : l->nboolean;
		sb_printf(o, "%s%s%s", t ? ", " : "", n ? type_word[t] : "NULL", n ? "_vars" : "");
	}
	sb_puts(o, "},\n");
	sb_printf(o, "\t.mealy = %d,\n", l->mealy ? 1 : 0);
	sb_printf(o, "\t.may_reject = %d,\n", may_reject(e) ? 1 : 0);
	if (nreal_in)
		sb_printf(o, "\t.real_inputs = real_inputs,\n\t.nreal_inputs = %d,\n", nreal_in);
	else
		sb_puts(o, "\t.real_inputs = NULL,\n\t.nreal_inputs = 0,\n");
	sb_puts(o, "\t.defaults = defaults,\n\t.initial = initial,\n");
	sb_puts(o, "\t.in = in,\n\t.map_in = map_in,\n\t.ctrl = ctrl,\n\t.map_out = map_out,\n"
		   "\t.out = out,\n\t.couple = couple,\n");
	sb_printf(o, "\t.fast_step = %s,\n};\n", fast ? "fast_step" : "NULL");
}

bool emit_c_buffers(Compilation *c, const EmitLayout *l, char **config_h, char **model_c)
{
	*config_h = *model_c = NULL;
	if (!l || !l->info || !l->sa)
		return false;
	Ec ec = {.c = c, .l = l, .sa = l->sa, .info = l->info};
	Ec *e = &ec;
	e->before = diag_errors(c->diag);
	e->file = l->source && *l->source ? l->source : "(unknown)";
	Node *sa = e->sa;

	e->ninners = e->info->ninners;
	e->inners = arena_alloc(c->arena, (size_t)(e->ninners + 1) * sizeof *e->inners);
	for (int i = 0; i < e->ninners; i++)
		setup_inner(e, &e->inners[i], e->info->inners[i]);

	Node *in_rules = rules_of(e, true), *out_rules = rules_of(e, false);
	e->nin_rules = in_rules ? ast_count(in_rules->list3) : 0;
	e->nout_rules = out_rules ? ast_count(out_rules->list3) : 0;
	/* Storage order: the sample's, see emit_config */
	Group groups[] = {
		{"external inputs", sa->a_inports},
		{"external outputs", sa->a_outports},
		{"params", sa->a_params},
		{"control vars", sa->a_ctrl_vars},
		{"in vars", sa->a_in_vars},
		{"out vars", sa->a_out_vars},
		{"in rules block vars", in_rules ? in_rules->list2 : NULL},
		{"out rules block vars", out_rules ? out_rules->list2 : NULL},
	};
	int ngroups = (int)(sizeof groups / sizeof groups[0]);
	for (int g = 0; g < ngroups; g++)
		for (const Node *d = groups[g].list; d; d = d->next)
			if (d->type != TY_STRING)
				add_field(e, d);
	check_storage_types(e, groups + 3, ngroups - 3);
	check_forms(e);

	StrBuf cfg, src;
	sb_init(&cfg);
	sb_init(&src);
	emit_config(e, &cfg, groups, ngroups);
	/* init values are emitted from the storage var groups only (ports have none) */
	emit_source(e, &src, groups + 3, ngroups - 3);
	bool ok = diag_errors(c->diag) == e->before;
	if (ok) {
		*config_h = strdup(sb_str(&cfg));
		*model_c = strdup(sb_str(&src));
		if (!*config_h || !*model_c) {
			free(*config_h);
			free(*model_c);
			*config_h = *model_c = NULL;
			ok = false;
		}
	}
	sb_free(&cfg);
	sb_free(&src);
	return ok;
}

static int write_text(Compilation *c, const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write the file: %s", strerror(errno));
		return 1;
	}
	size_t n = strlen(text);
	bool ok = fwrite(text, 1, n, f) == n;
	ok &= fclose(f) == 0;
	if (!ok) {
		diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot write the file: %s", strerror(errno));
		return 1;
	}
	return 0;
}

int emit_c_to_dir(Compilation *c, const EmitLayout *l, const char *dir)
{
	char *config_h, *model_c;
	if (!emit_c_buffers(c, l, &config_h, &model_c)) {
		if (l && l->sa && diag_errors(c->diag) == 0)
			diag_error(c->diag, l->sa->loc, "cannot emit the C of '%s'", l->model_name);
		return 1;
	}
	int rc = write_text(c, arena_printf(c->arena, "%s/config.h", dir), config_h);
	if (!rc)
		rc = write_text(c, arena_printf(c->arena, "%s/%s.c", dir, l->model_identifier), model_c);
	free(config_h);
	free(model_c);
	return rc;
}
