/* emit_c.c — the wrapper FMU's model-specific C: config.h and <modelIdentifier>.c.
 *
 * Pipeline position: explicit form -> emit_layout (emit.c) -> *here* (and emit_md.c beside
 * it) -> package.  What is written is the model.c of a Reference FMU for the runtime's
 * contract, runtime/sart_wrapper.h: value-reference enums and the Storage struct in
 * config.h; the inner FMUs' tables, a table per type of the external variables (offset in
 * the Storage, who may set it: the runtime's gets and sets are one loop over it) and
 * one function per rule part (In, MapIn, Ctrl, MapOut, Out, plus the internal couplings
 * for Init and G) in the .c, which ends with `const SartModel sart_model`.
 * tests/e2e/manual/window_sa.c is the hand-written reference for the shape.  Expressions are
 * emit_c_expr.c's, the fast step emit_c_fast.c's, batched do_steps emit_c_batch.c's, the
 * inner FMUs' slots and table emit_c_inners.c's.
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
 *     the flagged rules (the language's semantics: "evaluate every condition ..., record the
 *     flags, then run ...").  A flag is 1 for `true` and for an assignment rule, the
 *     condition itself when it is already 0 or 1 in C (a comparison, and, or, not,
 *     is_close, is_set), `(cond) != 0` otherwise.
 *   - A Bool value set by the importer is stored as 0 or 1 (by the runtime).
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

#include "emit_c_impl.h"
#include "explicit.h"
#include "version.h"

const char *const type_word[T_N] = {"real", "integer", "boolean", "string"};
const char *const type_fmi[T_N] = {"Real", "Integer", "Boolean", "String"};
const char *const type_sart[T_N] = {"SART_REAL", "SART_INTEGER", "SART_BOOLEAN", "SART_STRING"};

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
	"round_digits", "inners", "order", "real_inputs", "fast_step", "step_rows",
	"step_couplings", "step_copies", "step_table",
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
const char *ec_ident_part(Arena *a, const char *s)
{
	char *r = arena_strdup(a, s && *s ? s : "_");
	for (char *p = r; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	return r;
}

/* The C name of a local or loop variable. */
const char *ec_local_c(Ec *e, const char *name)
{
	bool taken = c_taken(name) ||
	             in_list(name, function_words, sizeof function_words / sizeof function_words[0]);
	/* the enumerators of config.h */
	for (int i = 0; i < e->l->nvars && !taken; i++)
		taken = starts_with(name, "vr_") && strcmp(name + 3, e->l->vars[i].cname) == 0;
	for (int i = 0; i < e->ninners && !taken; i++) {
		const InnerC *ic = &e->inners[i];
		taken = strcmp(name, ic->enumc) == 0;
		for (int k = 0; k < ic->in->nports && !taken; k++)
			taken = ic->slots[k].enumc && strcmp(name, ic->slots[k].enumc) == 0;
	}
	return taken ? arena_printf(e->c->arena, "%s_", name) : name;
}

/* The Storage's fields are found by name and by declaration through tables (Ec.fields_by_c,
 * fields_by_name, own_fields), not by a search through every field for each: a wrapper of
 * thousands of inners has tens of thousands of fields, and the searches made emitting it
 * quadratic. */
static bool field_exists(const Ec *e, const char *c)
{
	return name_index_find(&e->fields_by_c, c) >= 0;
}

/* The emitter's own Storage fields: flags and inner buffers, made into a table the first
 * time (0, or -1 when out of memory). */
static int own_fields(Ec *e)
{
	if (e->own_ready)
		return 0;
	e->own_ready = true;
	Arena *a = e->c->arena;
	int rc = name_index_add(&e->own_fields, "in_rule", 0) | name_index_add(&e->own_fields,
	                                                                        "out_rule", 0);
	for (int t = 0; t < T_N; t++)
		rc |= name_index_add(&e->own_fields, arena_printf(a, "inner_param_%s", type_word[t]), 0);
	for (int i = 0; i < e->ninners; i++)
		for (int dir = 0; dir < 2; dir++)
			for (int t = 0; t < T_N; t++) {
				const char *c = arena_printf(a, "%s_%s_%s", e->inners[i].cname,
				                             dir ? "out" : "in", type_word[t]);
				rc |= name_index_add(&e->own_fields, c, 0);
				if (!dir)
					rc |= name_index_add(&e->own_fields,
					                     arena_printf(a, "%s_assigned", c), 0);
			}
	return rc;
}

static bool emitter_field(Ec *e, const char *c)
{
	return name_index_find(&e->own_fields, c) >= 0;
}

static const char *add_field(Ec *e, const Node *decl)
{
	const char *c = strchr(decl->name, '[') ? ec_ident_part(e->c->arena, decl->name) : decl->name;
	if (own_fields(e) != 0)
		ec_error(e, decl->loc, "out of memory");
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
	if (name_index_add(&e->fields_by_c, c, e->nfields) != 0 ||
	    name_index_add(&e->fields_by_name, decl->name, e->nfields) != 0)
		ec_error(e, decl->loc, "out of memory");
	e->fields[e->nfields++] = (Field){decl, c};
	return c;
}

const char *ec_field_of(const Ec *e, const Node *decl)
{
	/* the first field of decl's name is decl's, unless two declarations share a name */
	int i = decl && decl->name ? name_index_find(&e->fields_by_name, decl->name) : -1;
	if (i >= 0 && e->fields[i].decl == decl)
		return e->fields[i].c;
	for (i = 0; i < e->nfields; i++)
		if (e->fields[i].decl == decl)
			return e->fields[i].c;
	return NULL;
}

/* A Storage field by the script's name, for nodes a rule made without a declaration. */
const char *ec_field_named(const Ec *e, const char *name)
{
	int i = name_index_find(&e->fields_by_name, name);
	return i >= 0 ? e->fields[i].c : NULL;
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

const char *ec_real_text(Ec *e, double v)
{
	char buf[48];
	fmt_real(buf, sizeof buf, v);
	return arena_strdup(e->c->arena, buf);
}

/* A C string literal's contents. */
const char *ec_c_string(Arena *a, const char *s)
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

void ec_put_list(StrBuf *o, const char *prefix, const char **items, int n, const char *suffix)
{
	put_list_sp(o, prefix, items, n, suffix, false);
}

void ec_error(Ec *e, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(e->c->diag, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

int ec_sart_type(SaType t)
{
	switch (t) {
	case TY_INTEGER: return T_INTEGER;
	case TY_BOOL: return T_BOOLEAN;
	case TY_STRING: return T_STRING;
	default: return T_REAL;
	}
}

static const char *c_type(SaType t)
{
	return t == TY_INTEGER || t == TY_BOOL ? "int" : t == TY_STRING ? "char" : "double";
}

/* What follows a field's or a local's name in its declaration: a String's bytes. */
static const char *c_dims(SaType t)
{
	return t == TY_STRING ? "[SART_STRING_CAP]" : "";
}

const char *ec_base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
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
			line(e, "(void)(%s);", ec_expr(e, b->lhs, P_LOW));
	}
	e->depth--;
}

static void assign(Ec *e, const Node *lhs, const char *value)
{
	if (lhs->kind == ND_PORT_REF && lhs->sym == SYM_INNER_IN) {
		InnerC *ic;
		const InnerPort *p = ec_inner_port_of(e, lhs, &ic);
		const Slot *sl = p ? &ic->slots[p - ic->in->ports] : NULL;
		if (!sl || sl->type < 0) {
			if (!p)
				ec_error(e, lhs->loc, "cannot emit C for '%s.%s': no such inner port",
				      lhs->owner ? lhs->owner : "", lhs->name);
			return;
		}
		e->uses |= U_S;
		const char *dst = arena_printf(e->c->arena, "s->%s_in_%s[%s]", ic->cname,
		                               type_word[sl->type], sl->enumc);
		if (sl->type == T_STRING)
			line(e, "%s", ec_string_assign(e, dst, value, arena_printf(e->c->arena, "%s.%s",
			                                                           ic->in->name, p->name)));
		else
			line(e, "%s = %s;", dst, value);
		line(e, "s->%s_in_%s_assigned[%s] = 1;", ic->cname, type_word[sl->type], sl->enumc);
		return;
	}
	if (lhs->kind == ND_PORT_REF && lhs->sym == SYM_INNER_OUT) {
		ec_error(e, lhs->loc, "cannot emit C for an assignment to inner output '%s.%s'",
		      lhs->owner, lhs->name);
		return;
	}
	if (ec_is_string(e, lhs))
		line(e, "%s", ec_string_assign(e, ec_expr(e, lhs, P_LOW), value, lhs->name));
	else
		line(e, "%s = %s;", ec_expr(e, lhs, P_LOW), value);
}

static void var_decl(Ec *e, const Node *d)
{
	const char *name = ec_local_c(e, d->name);
	if (d->type == TY_STRING) {
		/* initialized: a failed call before it leaves the assignment undone (sart_wrapper.h,
		 * "Failures"), and the String must still end */
		line(e, "char %s[SART_STRING_CAP] = \"\";", name);
		line(e, "%s", ec_string_assign(e, name, d->init ? ec_expr(e, d->init, P_LOW) : "\"\"",
		                               d->name));
		return;
	}
	const char *init = d->init ? ec_expr(e, d->init, P_LOW) : d->type == TY_REAL || d->type == TY_NONE
	                                                        ? "0.0" : "0";
	line(e, "%s %s = %s;", c_type(d->type), name, init);
	if (!reads(e->root, d))
		line(e, "(void)%s;", name);
}

static void if_stmt(Ec *e, const Node *s)
{
	line(e, "if (%s) {", ec_expr(e, s->cond, P_LOW));
	block(e, s->then);
	const Node *els = s->els;
	for (; els && els->kind == ND_IF; els = els->els) {
		line(e, "} else if (%s) {", ec_expr(e, els->cond, P_LOW));
		block(e, els->then);
	}
	if (els) {
		line(e, "} else {");
		block(e, els);
	}
	line(e, "}");
}

void ec_stmt(Ec *e, const Node *s)
{
	switch (s->kind) {
	case ND_VAR:
		for (const Node *d = s->list1; d; d = d->next)
			var_decl(e, d);
		break;
	case ND_ASSIGN:
		assign(e, s->lhs, ec_expr(e, s->rhs, P_LOW));
		break;
	case ND_CALL_STMT:
		line(e, "%s;", ec_expr(e, s->lhs, P_LOW));
		break;
	case ND_IF:
		if_stmt(e, s);
		break;
	case ND_FOR: {
		const char *i = ec_local_c(e, s->name);
		line(e, "for (int %s = %s, sart_end_%s = %s; %s < sart_end_%s; %s++) {", i,
		     ec_expr(e, s->lhs, P_LOW), i, ec_expr(e, s->rhs, P_LOW), i, i, i);
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
		line(e, "return %s;", ec_expr(e, s->lhs, P_LOW));
		break;
	default:
		ec_error(e, s->loc, "cannot emit C for %s in a block", ast_kind_name(s->kind));
		break;
	}
}

static void stmts(Ec *e, const Node *list)
{
	for (const Node *s = list, *b; s; s = s->next) /* a run of do_steps may be one batch */
		if ((b = ec_batch(e, s)) != NULL)
			s = b;
		else
			ec_stmt(e, s);
}

/* ---- functions -------------------------------------------------------------------------------- */

enum { FN_RULE, FN_MAP, FN_CTRL, FN_COND, FN_COND_MAP };
enum { PART_IN, PART_MAP_IN, PART_MAP_OUT, PART_OUT };

/* Starts a function body: output goes to body until end_fn. */
void ec_begin_fn(Ec *e, StrBuf *body, bool map, const Node *root)
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

Node *ec_rules_of(Ec *e, bool in)
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
	ec_error(e, loc, "cannot emit C for the declarative form '%s': it must be lowered to "
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
			ec_error(e, f->loc, "cannot emit C for an output function written as an "
			      "expression; write it as a block of assignments");
		else if (f->list1 && ast_last(f->list1)->kind == ND_RETURN)
			ec_error(e, ast_last(f->list1)->loc, "cannot emit C for an output function "
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
	Node *rules = ec_rules_of(e, in);
	const char *flags = in ? "in_rule" : "out_rule";
	bool map_flags = !in;  /* MapOut records the out rules' flags */
	int i = 0;
	StrBuf body;
	/* condition blocks become helpers */
	for (const Node *r = rules ? rules->list3 : NULL; r; r = r->next, i++) {
		if (r->op != RULE_COND || !r->cond || r->cond->kind != ND_BLOCK)
			continue;
		e->cond_blocks = true;
		ec_begin_fn(e, &body, map_flags, r->cond);
		stmts(e, r->cond->list1);
		const char *name = arena_printf(e->c->arena, "%s_%d_condition", flags, i);
		end_fn(e, out, arena_printf(e->c->arena, "The condition of %s rule %d.",
					    in ? "in" : "out", i),
		       map_flags ? FN_COND_MAP : FN_COND, name, &body);
	}

	/* In / MapOut: the flags, then the `->` parts of the flagged rules */
	ec_begin_fn(e, &body, map_flags, rules);
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
			if (ec_is_truth(r->cond))
				line(e, "s->%s[%d] = %s;", flags, i, ec_expr(e, r->cond, P_LOW));
			else
				line(e, "s->%s[%d] = %s != 0;", flags, i, ec_expr(e, r->cond, P_REL));
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
	ec_begin_fn(e, &body, in, rules);
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
	if (e->table) {
		ec_emit_table_ctrl(e, out);
		return;
	}
	ec_begin_fn(e, &body, false, ctrl ? ctrl->body : NULL);
	if (ctrl && ctrl->kind == ND_CTRL && ctrl->body) {
		stmts(e, ctrl->body->list1);
		const Node *last = ast_last(ctrl->body->list1);
		if (!last || last->kind != ND_RETURN)
			ec_error(e, ctrl->loc, "cannot emit C for control rules without a final return");
	} else if (ctrl) {
		static const char *const forms[] = {"implied", "triggered by", "periodic", "multiplied"};
		int k = ctrl->kind - ND_CTRL_IMPLIED;
		not_lowered(e, ctrl->loc, k >= 0 && k < 4 ? forms[k] : "control");
	} else {
		ec_error(e, e->sa->loc, "cannot emit C for '%s': it has no control rules", e->sa->name);
	}
	end_fn(e, out, "Ctrl: the control rules; returns the step taken.", FN_CTRL, "ctrl", &body);
}

/* The declarations that statements under n assign (in blocks, ifs and fors), added to
 * *set (n_set of them, room for cap), unsorted. */
static void collect_assigned(const Node *n, const Node ***set, int *n_set, int *cap)
{
	for (; n; n = n->next) {
		if (n->kind == ND_ASSIGN && n->lhs && n->lhs->kind == ND_NAME && n->lhs->decl) {
			if (*n_set == *cap) {
				*cap = *cap ? 2 * *cap : 16;
				const Node **grown = realloc(*set, (size_t)*cap * sizeof **set);
				if (!grown)
					abort();
				*set = grown;
			}
			(*set)[(*n_set)++] = n->lhs->decl;
		}
		if (n->kind == ND_BLOCK)
			collect_assigned(n->list1, set, n_set, cap);
		if (n->kind == ND_IF || n->kind == ND_FOR) {
			collect_assigned(n->then, set, n_set, cap);
			collect_assigned(n->els, set, n_set, cap);
		}
	}
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const Node *const *)a, y = (uintptr_t)*(const Node *const *)b;
	return x < y ? -1 : x > y;
}

/* Whether the returned expression r is only an inner FMU's step passed up: a var of the
 * control block initialised by do_step(...) and never assigned again, or the min of such
 * (what CreateCtrlRules writes).  The assigned vars are gathered once and searched, not
 * looked for through the whole block per argument of the min: a min over ten thousand
 * inners' steps made that quadratic. */
bool ec_passes_steps_up(const Node *body, const Node *r)
{
	const Node **set = NULL;
	int n = 0, cap = 0;
	collect_assigned(body->list1, &set, &n, &cap);
	if (n)
		qsort(set, (size_t)n, sizeof *set, cmp_ptr);
	bool ok = true;
	int nargs = 0;
	const Node *one = r->kind == ND_BUILTIN && r->op == BI_MIN ? NULL : r;
	for (const Node *a = one ? one : r->list1; a && ok; a = one ? NULL : a->next, nargs++) {
		if (a->kind == ND_BUILTIN && a->op == BI_MIN) {
			ok = ec_passes_steps_up(body, a);
			continue;
		}
		const Node *d = a->kind == ND_NAME ? a->decl : NULL;
		ok = d && d->kind == ND_VARDECL && d->init && d->init->kind == ND_BUILTIN &&
		     d->init->op == BI_DO_STEP &&
		     !(n && bsearch(&d, set, (size_t)n, sizeof *set, cmp_ptr));
	}
	free(set);
	return ok && nargs > 0;
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
	return !ec_passes_steps_up(body, last->lhs);
}

static void emit_initial(Ec *e, StrBuf *out, const Group *groups, int ngroups)
{
	StrBuf body;
	ec_begin_fn(e, &body, false, NULL);
	for (int g = 0; g < ngroups; g++)
		for (const Node *d = groups[g].list; d; d = d->next) {
			const char *f = ec_field_of(e, d);
			if (!f)
				continue;
			const char *v = d->init ? ec_expr(e, d->init, P_LOW)
			                        : d->type == TY_STRING ? "\"\""
			                        : d->type == TY_INTEGER || d->type == TY_BOOL ? "0" : "0.0";
			e->uses |= U_S;
			if (d->type == TY_STRING)
				line(e, "%s", ec_string_assign(e, arena_printf(e->c->arena, "s->%s", f), v,
				                               d->name));
			else
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
	case TY_STRING:
		return arena_printf(e->c->arena, "\"%s\"",
		                    ec_c_string(e->c->arena, v->start.s ? v->start.s : ""));
	default: return ec_real_text(e, v->start.r);
	}
}

/* The Storage slot of an inner's parameter: inner_param_<type>[slot]. */
const char *ec_inner_param_field(Ec *e, SaType type, int slot)
{
	return arena_printf(e->c->arena, "inner_param_%s[%d]", type_word[ec_sart_type(type)], slot);
}

static void emit_defaults(Ec *e, StrBuf *out)
{
	sb_puts(out, "/* The inputs' and params' start values. */\n");
	sb_puts(out, "static void defaults(void *sp)\n{\n");
	bool any = false;
	for (int i = 0; i < e->l->nvars; i++)
		any |= e->l->vars[i].has_start && ec_sart_type(e->l->vars[i].type) >= 0;
	any |= ec_binary_defaults_any(e);
	sb_puts(out, any ? "\tStorage *s = sp;\n" : "\t(void)sp;\n");
	for (int i = 0; i < e->l->nvars; i++) {
		const EmitVar *v = &e->l->vars[i];
		const char *f = v->inner ? ec_inner_param_field(e, v->type, v->slot)
		                         : ec_field_of(e, v->decl);
		if (v->has_start && f && v->type == TY_STRING)
			sb_printf(out, "\tsart_init_string(s->%s, %s);\n", f, value_text(e, v));
		else if (v->has_start && f && ec_sart_type(v->type) >= 0)
			sb_printf(out, "\ts->%s = %s;\n", f, value_text(e, v));
	}
	ec_emit_binary_defaults(e, out);
	sb_puts(out, "}\n\n");
}

/* The external variables of type t as the runtime's table (SartVar, sart_wrapper.h), by
 * value reference: where each lives in the Storage, who may set it, and its name for the
 * runtime's messages.  The importer's gets and sets are then one loop in the runtime.  Nothing when
 * the adaptation has no variable of the type. */
static void emit_vars(Ec *e, StrBuf *out, int t)
{
	const EmitLayout *l = e->l;
	uint32_t n = ec_nvr(l, t);
	uint32_t count = 0;
	if (!n)
		return;
	sb_printf(out, "/* The %s variables by value reference: where each lives in the Storage "
		  "and who may set\n * it (sart_wrapper.h). */\n", type_fmi[t]);
	sb_printf(out, "static const SartVar %s_vars[%u] = {\n", type_word[t], (unsigned)n);
	for (int i = 0; i < l->nvars; i++) {
		const EmitVar *v = &l->vars[i];
		if (ec_sart_type(v->type) != t)
			continue;
		const char *kind = v->causality == CAUS_OUTPUT ? "SART_VAR_OUTPUT"
				   : v->causality != CAUS_PARAMETER ? "SART_VAR_INPUT"
				   : v->variability == VAR_FIXED ? "SART_VAR_FIXED" : "SART_VAR_TUNABLE";
		sb_printf(out, "\t[vr_%s] = {offsetof(Storage, %s), %s, \"%s\"},\n", v->cname,
			  v->inner ? ec_inner_param_field(e, v->type, v->slot) : ec_field_of(e, v->decl),
			  kind, ec_c_string(e->c->arena, v->name));
		count++;
	}
	sb_puts(out, "};\n\n");
	if (count != n)
		ec_error(e, l->sa->loc, "cannot emit C for '%s': its %s value references are not 0..%u",
		      l->model_identifier, type_word[t], (unsigned)n - 1);
}

/* A coupling with a map (rw_coupled's if chain, for Init and G): a value the map lists
 * becomes its target, converted; any other value is converted as it is (value). */
static void emit_couple_map(Ec *e, StrBuf *out, const Node *cp, const char *src,
                            const char *target, bool real, const char *value)
{
	for (const Node *m = cp->list1; m; m = m->next) {
		double from = ast_number(m->lhs);
		double to = ast_number(m->rhs);
		if (cp->converts)
			to = cp->scale * to + cp->offset;
		/* the checker allows Integer and Bool sources only */
		sb_printf(out, "\t\t%sif (%s == %lld) {\n", m == cp->list1 ? "" : "} else ", src,
		          (long long)from);
		if (real)
			sb_printf(out, "\t\t\t%s = %s;\n", target, ec_real_text(e, to));
		else
			sb_printf(out, "\t\t\t%s = %lld;\n", target, (long long)to);
	}
	sb_printf(out, "\t\t} else {\n\t\t\t%s = %s;\n\t\t}\n", target, value);
}

static void emit_couple(Ec *e, StrBuf *out)
{
	StrBuf body;
	sb_init(&body);
	bool any = false;
	/* The couplings by the inner they feed, each inner's in the script's order: a search
	 * of every coupling per inner made a wrapper of thousands of inners quadratic. */
	int ncp = ast_count(e->sa->a_couplings);
	const Node **by_dst = arena_alloc(e->c->arena, ((size_t)ncp + 1) * sizeof *by_dst);
	int *first_of = arena_alloc(e->c->arena, ((size_t)e->ninners + 2) * sizeof *first_of);
	for (const Node *cp = e->sa->a_couplings; cp; cp = cp->next) {
		const InnerC *dst = cp->rhs->owner ? ec_inner_c(e, cp->rhs->owner) : NULL;
		if (dst)
			first_of[dst - e->inners + 2]++;
	}
	for (int k = 0; k < e->ninners; k++)
		first_of[k + 2] += first_of[k + 1];
	for (const Node *cp = e->sa->a_couplings; cp; cp = cp->next) {
		const InnerC *dst = cp->rhs->owner ? ec_inner_c(e, cp->rhs->owner) : NULL;
		if (dst)
			by_dst[first_of[dst - e->inners + 1]++] = cp;
	}
	/* first_of[k] .. first_of[k + 1] are inner k's now */
	for (int k = 0; k < e->ninners; k++) {
		const InnerC *dst = &e->inners[k];
		bool first = true;
		for (int j = first_of[k]; j < first_of[k + 1]; j++) {
			const Node *cp = by_dst[j];
			InnerC *sic, *dic;
			const InnerPort *sp = cp->lhs->sym == SYM_INNER_OUT ? ec_inner_port_of(e, cp->lhs, &sic)
			                                                    : NULL;
			const InnerPort *dp = cp->rhs->sym == SYM_INNER_IN ? ec_inner_port_of(e, cp->rhs, &dic)
			                                                   : NULL;
			if (!sp || !dp) {
				ec_error(e, cp->loc, "cannot emit C for the coupling %s.%s -> %s.%s: it does "
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
			const char *src = arena_printf(e->c->arena, "s->%s_out_%s[%s]", sic->cname,
			                               type_word[ss->type], ss->enumc);
			if (cp->converts && cp->scale != 1.0)
				sb_printf(&v, "%s * ", ec_real_text(e, cp->scale));
			sb_puts(&v, src);
			if (cp->converts && cp->offset != 0.0)
				sb_printf(&v, " %s %s", cp->offset < 0 ? "-" : "+",
					  ec_real_text(e, cp->offset < 0 ? -cp->offset : cp->offset));
			const char *target = arena_printf(e->c->arena, "s->%s_in_%s[%s]", dic->cname,
			                               type_word[ds->type], ds->enumc);
			if (ds->type == T_STRING)
				sb_printf(&body, "\t\t%s\n", ec_string_assign(e, target, sb_str(&v),
				          arena_printf(e->c->arena, "%s.%s", dic->in->name, dp->name)));
			else if (cp->list1)
				emit_couple_map(e, &body, cp, src, target, ds->type == T_REAL, sb_str(&v));
			else
				sb_printf(&body, "\t\t%s = %s;\n", target, sb_str(&v));
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
	rules_translatable(e, ec_rules_of(e, true));
	rules_translatable(e, ec_rules_of(e, false));
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
	if (ec_uses_strings(e) || e->l->nbinaries)
		sb_puts(o, ec_uses_strings(e) ? "#include \"sart_wrapper.h\" /* SART_STRING_CAP */\n\n"
		                              : "#include \"sart_wrapper.h\" /* SartBinary */\n\n");

	sb_puts(o, "/* ---- value references (modelDescription.xml) ---- */\n");
	int nlive = 0;
	for (int i = 0; i < l->nvars; i++)
		nlive += ec_sart_type(l->vars[i].type) >= 0;
	if (nlive == 0) {
		sb_puts(o, "/* none */\n");
	} else {
		sb_puts(o, "enum {\n");
		int k = 0;
		for (int i = 0; i < l->nvars; i++) {
			const EmitVar *v = &l->vars[i];
			if (ec_sart_type(v->type) < 0)
				continue;
			const char *caus = v->causality == CAUS_INPUT ? "input"
			                   : v->causality == CAUS_OUTPUT ? "output"
			                   : v->variability == VAR_FIXED ? "parameter, fixed"
			                                                 : "parameter, tunable";
			sb_printf(o, "\tvr_%s = %u%s /* %s %s */\n", v->cname, (unsigned)v->vr,
				  ++k < nlive ? "," : "", type_fmi[ec_sart_type(v->type)], caus);
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
			n += ec_field_of(e, d) != NULL;
		if (n == 0) {
			sb_printf(o, "\t/* %s: none */\n", groups[g].comment);
			continue;
		}
		sb_printf(o, "\t/* %s */\n", groups[g].comment);
		for (const Node *d = groups[g].list; d; d = d->next) {
			const char *f = ec_field_of(e, d);
			if (f)
				sb_printf(o, "\t%s %s%s;\n", c_type(d->type == TY_NONE ? TY_REAL : d->type), f,
				          c_dims(d->type));
		}
	}
	for (int t = 0; t < T_N; t++)
		if (l->nslots[t])
			sb_printf(o, "\t%s inner_param_%s[%d]%s; /* the inners' parameters */\n",
			          t == T_REAL ? "double" : t == T_STRING ? "char" : "int", type_word[t],
			          l->nslots[t], t == T_STRING ? "[SART_STRING_CAP]" : "");
	sb_puts(o, "\t/* rule flags */\n");
	if (e->nin_rules)
		sb_printf(o, "\tint in_rule[%d];\n", e->nin_rules);
	if (e->nout_rules)
		sb_printf(o, "\tint out_rule[%d];\n", e->nout_rules);
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		sb_printf(o, "\t/* inner %s */\n", ic->in->name);
		for (int t = 0; t < T_N; t++) {
			const char *ct = t == T_REAL ? "double" : t == T_STRING ? "char" : "int";
			const char *dims = t == T_STRING ? "[SART_STRING_CAP]" : "";
			if (ic->n[0][t]) {
				sb_printf(o, "\t%s %s_in_%s[%d]%s;\n", ct, ic->cname, type_word[t], ic->n[0][t],
				          dims);
				sb_printf(o, "\tunsigned char %s_in_%s_assigned[%d];\n", ic->cname, type_word[t],
					  ic->n[0][t]);
			}
			if (ic->n[1][t])
				sb_printf(o, "\t%s %s_out_%s[%d]%s;\n", ct, ic->cname, type_word[t],
				          ic->n[1][t], dims);
		}
		ec_emit_binary_storage(e, ic, o);
	}
	sb_puts(o, "} Storage;\n\n#endif\n");
}

/* The inners' parameters the wrapper sets on them (sart_wrapper.h, SartInnerParam): the
 * exposed ones, then the bound ones, whose values bind_params computes from the params. */
static void emit_inner_param_table(Ec *e, StrBuf *out)
{
	const EmitLayout *l = e->l;
	int n = l->ninner_params + l->nbindings;
	if (!n)
		return;
	StrBuf body;
	ec_begin_fn(e, &body, false, NULL);
	for (int i = 0; i < l->nbindings; i++) {
		const EmitBinding *b = &l->bindings[i];
		e->uses |= U_S;
		const char *dst = arena_printf(e->c->arena, "s->%s", ec_inner_param_field(e, b->type,
		                                                                      b->slot));
		if (b->type == TY_STRING)
			line(e, "%s", ec_string_assign(e, dst, ec_expr(e, b->value, P_LOW), b->name));
		else
			line(e, "%s = %s;", dst, ec_expr(e, b->value, P_LOW));
	}
	end_fn(e, out, "The bound inner parameters' values, from the params.", FN_RULE,
	       "bind_params", &body);
	sb_printf(out, "static const SartInnerParam inner_params[%d] = {\n", n);
	for (int i = 0; i < l->ninner_params; i++) {
		const EmitVar *v = &emit_inner_params(l)[i];
		sb_printf(out, "\t{%s, %s, %u, offsetof(Storage, %s), 1, vr_%s},\n",
		          e->inners[v->inner_index].enumc, type_sart[ec_sart_type(v->type)],
		          (unsigned)ec_inner_vr(e, v->inner, v->type, v->inner_vr),
		          ec_inner_param_field(e, v->type, v->slot), v->cname);
	}
	for (int i = 0; i < l->nbindings; i++) {
		const EmitBinding *b = &l->bindings[i];
		sb_printf(out, "\t{%s, %s, %u, offsetof(Storage, %s), 0, 0},\n",
		          e->inners[b->inner_index].enumc, type_sart[ec_sart_type(b->type)],
		          (unsigned)ec_inner_vr(e, b->inner, b->type, b->inner_vr),
		          ec_inner_param_field(e, b->type, b->slot));
	}
	sb_puts(out, "};\n\n");
}

/* The model itself (SartModel), which the runtime reads: everything above by name. */
/* Whether a Real input is discrete: the runtime then holds it over the step, whatever
 * derivative the importer gives (held_inputs[], beside real_inputs[]). */
static bool held_inputs(const EmitLayout *l)
{
	for (int i = 0; i < l->ninputs; i++)
		if (l->vars[i].type == TY_REAL && l->vars[i].variability == VAR_DISCRETE)
			return true;
	return false;
}

static void emit_model(Ec *e, StrBuf *o, int nreal_in, bool fast)
{
	Arena *a = e->c->arena;
	const EmitLayout *l = e->l;
	sb_puts(o, "const SartModel sart_model = {\n");
	sb_printf(o, "\t.identifier = \"%s\",\n", ec_c_string(a, l->model_identifier));
	sb_printf(o, "\t.guid = \"%s\",\n", l->guid);
	sb_puts(o, "\t.storage_size = sizeof(Storage),\n");
	sb_puts(o, "\t.inners = inners,\n\t.ninners = NINNERS,\n");
	sb_puts(o, "\t.order = order,\n\t.norder = NINNERS,\n");
	/* (the String entries only when there are Strings: the other tables read as before) */
	int ntypes = l->nstring || l->nbinaries ? T_N : T_STRING;
	sb_puts(o, "\t.nvr = {");
	for (int t = 0; t < ntypes; t++)
		sb_printf(o, "%s%u", t ? ", " : "", (unsigned)ec_nvr(l, t));
	sb_puts(o, l->nbinaries ? arena_printf(a, ", %d},\n", l->nbinaries) : "},\n");
	sb_puts(o, "\t.vars = {");
	for (int t = 0; t < ntypes; t++) {
		uint32_t n = ec_nvr(l, t);
		sb_printf(o, "%s%s%s", t ? ", " : "", n ? type_word[t] : "NULL", n ? "_vars" : "");
	}
	sb_puts(o, l->nbinaries ? ", binary_vars},\n\t.binary_max = binary_max,\n" : "},\n");
	sb_printf(o, "\t.real_offset = %s,\n", l->nreal ? "real_offset" : "NULL");
	sb_printf(o, "\t.mealy = %d,\n", l->mealy ? 1 : 0);
	sb_printf(o, "\t.may_reject = %d,\n", may_reject(e) ? 1 : 0);
	if (nreal_in)
		sb_printf(o, "\t.real_inputs = real_inputs,\n\t.nreal_inputs = %d,\n", nreal_in);
	else
		sb_puts(o, "\t.real_inputs = NULL,\n\t.nreal_inputs = 0,\n");
	if (held_inputs(l))
		sb_puts(o, "\t.held_inputs = held_inputs,\n");
	sb_puts(o, "\t.defaults = defaults,\n\t.initial = initial,\n");
	sb_puts(o, "\t.in = in,\n\t.map_in = map_in,\n\t.ctrl = ctrl,\n\t.map_out = map_out,\n"
		   "\t.out = out,\n\t.couple = couple,\n");
	sb_printf(o, "\t.fast_step = %d,\n", fast ? 1 : 0);
	if (l->ninner_params + l->nbindings)
		sb_printf(o, "\t.inner_params = inner_params,\n\t.ninner_params = %d,\n"
		          "\t.bind_params = bind_params,\n", l->ninner_params + l->nbindings);
	ec_batch_model(e, o);
	ec_emit_spans_ref(e, o);
	sb_printf(o, "\t.set_real = %s,\n\t.get_real = %s,\n\t.do_step = %s,\n};\n",
		  nreal_in ? "set_real" : "sart_core_set_real",
		  l->nreal ? "get_real" : "sart_core_get_real", fast ? "do_step" : "sart_core_do_step");
}

static void emit_source(Ec *e, StrBuf *o, const Group *groups, int ngroups)
{
	Arena *a = e->c->arena;
	const EmitLayout *l = e->l;
	StrBuf fns;
	sb_init(&fns);
	int nreal_in = 0;
	for (int i = 0; i < l->ninputs; i++)
		nreal_in += l->vars[i].type == TY_REAL;

	e->table = ec_table_form(e);
	/* the functions first: they decide whether round_digits is needed */
	emit_defaults(e, &fns);
	emit_initial(e, &fns, groups, ngroups);
	for (int t = 0; t < T_N; t++)
		emit_vars(e, &fns, t);
	ec_emit_binary_vars(e, &fns);
	emit_rules(e, &fns, true);
	emit_ctrl(e, &fns);
	emit_rules(e, &fns, false);
	emit_couple(e, &fns);
	emit_inner_param_table(e, &fns);
	bool fast = ec_emit_fast_step(e, &fns);
	ec_emit_entries(e, &fns, fast, nreal_in);

	banner(e, o);
	sb_printf(o, "/* %s.c — the model-specific part of the wrapper FMU %s:\n * its inner FMUs, "
		  "variable tables and rule parts, for the runtime (sart_wrapper.h). */\n",
		  l->model_identifier, l->model_identifier);
	sb_puts(o, "#include <math.h>\n#include <stddef.h>\n#include <stdlib.h>\n\n");
	sb_puts(o, "#include \"config.h\"\n#include \"sart_wrapper.h\"\n");
	if (fast)
		sb_puts(o, "#include \"sart_fast_step.h\"\n");
	sb_putc(o, '\n');

	ec_emit_port_tables(e, o);
	ec_emit_inner_table(e, o);
	int *order = ec_inner_order(e);
	const char **items = arena_alloc(a, (size_t)(e->ninners + 1) * sizeof *items);
	for (int i = 0; i < e->ninners; i++)
		items[i] = e->inners[order[i]].enumc;
	ec_put_list(o, "static const unsigned order[NINNERS] = ", items, e->ninners, ";");

	if (nreal_in) {
		items = arena_alloc(a, (size_t)nreal_in * sizeof *items);
		int k = 0;
		for (int i = 0; i < l->ninputs; i++)
			if (l->vars[i].type == TY_REAL)
				items[k++] = arena_printf(a, "vr_%s", l->vars[i].cname);
		sb_putc(o, '\n');
		ec_put_list(o, arena_printf(a, "static const SartVr real_inputs[%d] = ", nreal_in), items,
			 nreal_in, ";");
	}
	if (held_inputs(l)) {
		items = arena_alloc(a, (size_t)nreal_in * sizeof *items);
		int k = 0;
		for (int i = 0; i < l->ninputs; i++)
			if (l->vars[i].type == TY_REAL)
				items[k++] = l->vars[i].variability == VAR_DISCRETE ? "1" : "0";
		sb_putc(o, '\n');
		ec_put_list(o, arena_printf(a, "static const unsigned char held_inputs[%d] = ",
		                            nreal_in), items, nreal_in, ";");
	}
	sb_putc(o, '\n');

	if (e->round_digits)
		sb_puts(o, "/* round(x, n): x rounded to n decimals. */\n"
			   "static double round_digits(double x, double n)\n{\n"
			   "\tdouble scale = pow(10.0, n);\n"
			   "\treturn round(x * scale) / scale;\n}\n\n");

	sb_puts(o, sb_str(&fns));
	sb_free(&fns);

	emit_model(e, o, nreal_in, fast);
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
		ec_setup_inner(e, &e->inners[i], e->info->inners[i]);
	for (int i = 0; i < e->ninners; i++)
		if (name_index_add(&e->inner_names, e->inners[i].in->name, i) != 0) {
			name_index_free(&e->inner_names);
			diag_error(c->diag, l->sa->loc, "out of memory");
			return false;
		}

	Node *in_rules = ec_rules_of(e, true), *out_rules = ec_rules_of(e, false);
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
			add_field(e, d);
	ec_check_string_starts(e);
	ec_check_binary_starts(e);
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
	name_index_free(&e->inner_names);
	name_index_free(&e->fields_by_c);
	name_index_free(&e->fields_by_name);
	name_index_free(&e->own_fields);
	ec_table_free(e);
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
