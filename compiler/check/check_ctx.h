/* check_ctx.h — what the checker's files share: scopes, the part of an adaptation being
 * checked, the context that carries both, and the checks one file asks of another.
 *
 * Private to the checker (check.c, check_inner.c, check_forms.c, check_ports.c); the rest of
 * the compiler sees check.h and sema.h only. */
#ifndef SACC_CHECK_CTX_H
#define SACC_CHECK_CTX_H

#include "check.h"
#include "util.h"

typedef struct Sym {
	const char *name;
	Node *decl;
	int kind;
} Sym;

/* A level of names: syms in declaration order (what "did you mean" goes through), and
 * once there are more than a few, a hash table over them (slots: index + 1, 0 empty; a
 * power of two of them), so that a declaration or a look-up does not search all the
 * names before it: an adaptation over ten thousand inners declares tens of thousands. */
typedef struct Scope {
	struct Scope *parent;
	Sym *syms;
	int n, cap;
	int *slots;
	int nslots;
} Scope;

/* Where in an adaptation an expression sits: decides what it may read and write. */
typedef enum Part {
	PART_PARAM, PART_VARINIT, PART_CTRL, PART_IN_COND, PART_IN_TRANS, PART_IN_MAP,
	PART_OUT_COND, PART_OUT_TRANS, PART_OUT_MAP, PART_GENERAL, PART_QUANTIZE,
} Part;

/* Whether a reference reads a value or writes one: what is legal there, and so which names
 * a "did you mean" offers first (inner outputs and the adaptation's input ports are read;
 * inner inputs and its output ports are written).  A cut of a loop names either. */
typedef enum Access { ACC_READ, ACC_WRITE, ACC_EITHER } Access;

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
	/* a scenario module's fmus and adaptations by name (chk_module, for its connections):
	 * element_nodes[name_index_find(&elements, name)]; empty when not made */
	NameIndex elements;
	Node **element_nodes;
} Ctx;

/* ---- check.c: scopes, types, expressions, statements ---------------------------------- */

Scope *chk_scope_new(Ctx *x, Scope *parent);
/* Declares name in s; a second declaration at one level is an error showing both. */
void chk_declare(Ctx *x, Scope *s, const char *name, Node *decl, int kind);
/* The "did you mean" note at loc for the name s chose, if it chose one. */
void chk_did_you_mean(Ctx *x, Loc loc, const Suggestion *s);
SaType chk_fmu_sa_type(FmuType t);
/* Whether a value of type from may be stored where to is expected (Integer widens). */
bool chk_assignable(SaType to, SaType from);
/* What a resolved symbol kind is called in messages, and its article ("a" or "an"). */
const char *chk_sym_words(int sym);
const char *chk_sym_article(int sym);
/* Where the port name, and the owner, of an owner.port reference are written. */
Loc chk_port_name_loc(const Node *e);
/* check_arrays.c: reports why e ("a.y[5]") names no element port of inner in, when it
 * names an element at all; false (nothing reported) otherwise. */
bool chk_element_error(Ctx *x, const Inner *in, const Node *e);
/* check_arrays.c: the type of the element of an inner's array parameter that binding b
 * names ("K[2] := ..."), TY_NONE after reporting why it names none (no such parameter, no
 * array, the wrong number of subscripts, one out of range). */
SaType chk_param_element(Ctx *x, const Inner *in, const Node *b);
Loc chk_owner_loc(const Node *e);
SaType chk_expr(Ctx *x, Node *e);
/* owner.port: an inner FMU's port, or the adaptation's own, read or written. */
SaType chk_port_ref(Ctx *x, Node *e, Access acc);
void chk_expect_numeric(Ctx *x, Node *e, SaType t, const char *what);
void chk_vardecl(Ctx *x, Node *d, int sym);
void chk_block(Ctx *x, Node *block);
void chk_stmt(Ctx *x, Node *s);
void chk_stmts(Ctx *x, Node *stmts);

/* ---- check_inner.c: inner FMUs and their ports ---------------------------------------- */

/* Where a relative FMU path of a script is found, or NULL. */
const char *chk_find_fmu_file(Ctx *x, const char *path);
/* Where chk_find_fmu_file looked for path, for the note of an FMU not found. */
const char *chk_fmu_dirs_searched(Ctx *x, const char *path);
const char *chk_causality_words(FmuCausality c);
/* The Inner an ND_INNER or ND_INNER_REF declares, its ports read from the FMU or from the
 * explicit form of the adaptation of this build that produces it. */
Inner *chk_resolve_inner(Ctx *x, Node *decl);
/* The script's `with param NAME := EXPR` bindings of an inner's parameters: each names a
 * parameter of the inner, once, and its value is an expression over the adaptation's
 * params of the parameter's type.  Run once the params are declared. */
void chk_inner_param_bindings(Ctx *x, Inner *in);

/* ---- check_forms.c: declarative forms ------------------------------------------------- */

void chk_general(Ctx *x, Node *g, bool in_rules);
void chk_control(Ctx *x, Node *ctrl);
void chk_rules(Ctx *x, Node *rules, bool in);

/* ---- check_ports.c: units, bindings, couplings, scenario connections ------------------ */

/* Whether a unit spelled in the script is one UDUNITS-2 knows; false after reporting it. */
bool chk_unit_known(Ctx *x, Node *unit);
void chk_external_port(Ctx *x, Node *p, bool input);
void chk_coupling(Ctx *x, Node *c, Node **fed_by, Node **fed_port, int nfed);
void chk_open_scenario_fmus(Ctx *x);
/* x->elements over the module's fmus and adaptations and its imports' (the first of a
 * name), for chk_scenario_connection's look-ups; chk_free_scenario_elements frees it.
 * Out of memory, the look-ups search the lists as before. */
void chk_index_scenario_elements(Ctx *x);
void chk_free_scenario_elements(Ctx *x);
void chk_scenario_connection(Ctx *x, Node *conn);

#endif
