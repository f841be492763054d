/* ast.h — the syntax tree of adaptation scripts.
 *
 * One Node shape for everything (as chibicc does): a kind, a location, the name of the
 * reduction rule that made it (NULL when the user wrote it), a `next` link for lists, and
 * named fields whose use per kind is given below.  Lists are singly linked through `next`
 * and never share their cells between two lists; subtrees hanging off a field may be
 * shared.  All nodes live in the compilation's arena. */
#ifndef SACC_AST_H
#define SACC_AST_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"
#include "util.h"

typedef enum SaType { TY_NONE, TY_REAL, TY_INTEGER, TY_BOOL, TY_STRING } SaType;

typedef enum NodeKind {
	/* ---- structure ---- */
	ND_FILE,        /* str: path; name: module or NULL; list1: imports; list2: elements */
	ND_IMPORT,      /* name */
	ND_FMU_DECL,    /* tname, name, str: path; list1: in ports; list2: out ports; list3: composed-of names */
	ND_CONNECTION,  /* lhs, rhs: ND_PORT_REF; a coupling's transformation (`(factor F, offset O,
	                 * map (A -> B, ...))`): then: F, els: O (literals or NULL), list1: the map's
	                 * entries, each an ND_CONNECTION of two literals */
	ND_ADAPTATION,  /* see the a_* fields; flags: KIND_*; tname: the older header's type name;
	                 * ival: the FMI version its `fmi N` clause asks for, 0 without one */
	ND_INNER,       /* flags: KIND_*; tname, name, str: path or NULL; list1: in ports; list2: out ports;
	                 * list3: bound parameters (ND_VARDECL, `with param k := EXPR`); body:
	                 * `with model exchange` (ND_MODEL_EXCHANGE) or NULL */
	ND_INNER_REF,   /* name: an FMU declared with `fmu` elsewhere (`for fmu a, b`) */
	ND_PORT,        /* type, name, str: FMI name or NULL, init, unit, bind_dir, bind, mult_lo/hi */
	ND_UNIT,        /* str: the unit as written, normalised (no blanks) */
	ND_VARDECL,     /* type, name, init; op: DECL_* says where it was declared */

	/* ---- declarative forms (section 7) ---- */
	ND_SUBST,       /* successive substitution: list1: ports; list2: settings */
	ND_DELAY,       /* list1: ports */
	ND_MULTIRATE,   /* lhs: rate expr; op: interpolation order (-1 = default); flags: 1 when `of order` */
	ND_DERIV,       /* op: DERIV_WITH / DERIV_EXTRACT; flags: DERIV_DIRECTIONAL | DERIV_TIME */
	ND_SETTING,     /* op: SET_ABS_TOL / SET_REL_TOL; lhs: value */
	ND_CROSSING,    /* a `crossing` setting group: list1: settings */
	ND_MODEL_EXCHANGE, /* an inner's body: flags 1 for `with model exchange`; list1: the
	                    * solver's settings (ND_SETTING: SET_ME_SOLVER, SET_REL_TOL,
	                    * SET_ME_MAX_STEP) of `with solver = ... and ...` */
	ND_HOLD,        /* op: HOLD_NO / HOLD_ZERO / HOLD_FIRST; flags: 1 when abbreviated (ZOH, FOH) */

	ND_CTRL,        /* control rules: body (ND_BLOCK ending in ND_RETURN); flags: 1 for `control {` */
	ND_CTRL_IMPLIED,
	ND_CTRL_TRIGGERED, /* cond */
	ND_CTRL_PERIODIC,  /* lhs: start time or NULL; rhs: period */
	ND_CTRL_MULTIPLIED,/* lhs: count */

	ND_RULES,       /* op: 'i' for in rules, 'o' for out rules; list1: settings (ND_CROSSING or
	                 * output functions); list2: block vars (ND_VARDECL); list3: rules */
	ND_RULE,        /* a data rule: op: RULE_*; cond: condition expr or ND_BLOCK;
	                 * list1: condition settings; then: transition (ND_BLOCK);
	                 * els: output function (ND_BLOCK or ND_HOLD or expr) or NULL;
	                 * lhs: the quantize / loop form for RULE_QUANTIZE and RULE_LOOP */
	ND_QUANTIZE,    /* op: QUANT_ZONES / QUANT_FUNCTION / QUANT_EVERY; lhs: the signal (port ref);
	                 * list1: zones and limits in order (QUANT_ZONES); rhs: function or step;
	                 * els: offset or NULL */

	/* ---- statements ---- */
	ND_BLOCK,       /* list1: statements; for output functions a final ND_RETURN may end it */
	ND_VAR,         /* list1: ND_VARDECL */
	ND_ASSIGN,      /* lhs: ND_NAME or ND_PORT_REF; rhs */
	ND_CALL_STMT,   /* lhs: ND_BUILTIN (do_step, save_state, rollback, discard) */
	ND_IF,          /* cond, then (ND_BLOCK), els (ND_BLOCK, ND_IF or NULL) */
	ND_FOR,         /* name: loop variable; lhs: from; rhs: to; then: body (ND_BLOCK) */
	ND_BREAK,
	ND_RETURN,      /* lhs */

	/* ---- expressions ---- */
	ND_INT,         /* ival */
	ND_REAL,        /* rval; str: the spelling, kept so printing round-trips */
	ND_STRING,      /* str */
	ND_BOOL,        /* ival 0/1 */
	ND_ARRAY,       /* list1: literals (port start values only) */
	ND_NAME,        /* name */
	ND_PORT_REF,    /* owner (NULL when bare in a binding), name */
	ND_KEYVAR,      /* op: KV_* (t, H, h, dt, e, MAX) */
	ND_SIGNAL,      /* op: SIG_NOW / SIG_PREV / SIG_INDEX / SIG_PLAIN; ival: index (<= 0) */
	ND_OTHERWISE,
	ND_UNARY,       /* op: OP_NEG / OP_NOT; lhs */
	ND_BINARY,      /* op: OP_*; lhs, rhs */
	ND_BUILTIN,     /* op: BI_*; name: FMU argument for FMU functions; list1: arguments */
	ND_KIND_COUNT
} NodeKind;

/* Adaptation and inner-FMU kinds, as flags: both axes optional in the script. */
enum {
	KIND_REACTIVE = 1, KIND_DELAYED = 2, KIND_MOORE = 4, KIND_MEALY = 8,
	KIND_WITHOUT_MASTER = 16,
	KIND_ISOLATED = 32, /* an inner FMU: `for isolated inner fmu` */
};

enum { BIND_NONE, BIND_TO /* -> */, BIND_FROM /* <- */ };

enum { DECL_LOCAL, DECL_PARAM, DECL_IN, DECL_OUT, DECL_CONTROL, DECL_RULES /* block var */ };

enum {
	SET_ABS_TOL,
	SET_REL_TOL,
	SET_ME_SOLVER,   /* `solver = NAME`: str the name as written (checked by the checker) */
	SET_ME_MAX_STEP, /* `max step = H` */
};
enum { HOLD_NO, HOLD_ZERO, HOLD_FIRST };
enum { DERIV_WITH, DERIV_EXTRACT };
enum { DERIV_DIRECTIONAL = 1, DERIV_TIME = 2 };
enum { RULE_COND, RULE_ASSIGN, RULE_QUANTIZE, RULE_LOOP };
enum { QUANT_ZONES, QUANT_FUNCTION, QUANT_EVERY };
enum { KV_T, KV_BIG_H, KV_H, KV_DT, KV_E, KV_MAX };
enum { SIG_PLAIN, SIG_NOW, SIG_PREV, SIG_INDEX };

typedef enum Op {
	OP_NONE,
	OP_OR, OP_AND, OP_NOT,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_CROSS_UP /* >! */, OP_CROSS_DOWN /* <! */,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG,
} Op;

typedef enum Builtin {
	BI_FLOOR, BI_CEIL, BI_ROUND, BI_ABS, BI_MAX, BI_MIN, BI_IS_CLOSE, BI_IS_SET,
	BI_DO_STEP, BI_SAVE_STATE, BI_ROLLBACK, BI_DISCARD, BI_GET_NEXT_TIME_STEP,
	BI_ELAPSED, BI_LAST_EXECUTION_TIME,
} Builtin;

typedef struct Node Node;
struct Node {
	NodeKind kind;
	Loc loc;
	const char *origin; /* reduction rule that created the node; NULL if user-written */
	Node *next;

	int op;
	int flags;
	SaType type;
	const char *name;
	const char *owner;
	const char *tname;
	const char *str;
	long long ival;
	double rval;

	Node *lhs, *rhs;
	Node *cond, *then, *els;
	Node *init;
	Node *unit;
	Node *bind;
	Node *body;
	int bind_dir;
	int mult_lo, mult_hi; /* -1 when absent */
	Node *list1, *list2, *list3;

	/* ND_ADAPTATION */
	Node *a_inners, *a_couplings, *a_inports, *a_outports, *a_params, *a_general;
	Node *a_ctrl_vars, *a_ctrl, *a_in_vars, *a_in_rules, *a_out_vars, *a_out_rules;

	/* Filled by the checker: the declaration a name or port reference resolves to, with
	 * `sym` saying what kind of thing it is (SYM_*); for ports with a binding and for
	 * couplings and scenario connections, the unit conversion value_to = scale *
	 * value_from + offset; per ND_INNER / ND_ADAPTATION the semantic record (Inner *,
	 * SaInfo * of sema.h); per ND_FMU_DECL that a scenario connection uses, its FmuInfo *. */
	Node *decl;
	int sym;
	double scale, offset;
	bool converts;
	void *info;
	/* ND_PORT: the inner port its binding named, kept when the explicit form removes the
	 * binding, so that the emitter can declare a port that carries an inner's Enumeration
	 * as one.  Not a child: it points into the tree. */
	Node *bound_to;
};

/* The child fields of a Node, in source order.  Every walk over a whole tree (the copier,
 * the parser's depth bound, the tests' tree comparisons) goes through this one table, so
 * a new child field is added here and in ast.c's table, nowhere else.  A list child is
 * chained through `next`; the others hold one subtree each. */
typedef struct AstChild {
	const char *name;
	size_t offset;  /* offsetof(Node, the field) */
	bool is_list;
} AstChild;

enum { AST_NCHILDREN = 24 };
extern const AstChild ast_children[AST_NCHILDREN];

/* Child i of n, as ast_children[i] describes it. */
static inline Node *ast_child(const Node *n, int i)
{
	return *(Node *const *)(const void *)((const char *)n + ast_children[i].offset);
}

static inline Node **ast_child_slot(Node *n, int i)
{
	return (Node **)(void *)((char *)n + ast_children[i].offset);
}

/* Construction. */
Node *ast_new(Arena *a, NodeKind kind, Loc loc);
Node *ast_name(Arena *a, Loc loc, const char *name);
Node *ast_port_ref(Arena *a, Loc loc, const char *owner, const char *name);
Node *ast_binary(Arena *a, Loc loc, Op op, Node *lhs, Node *rhs);
Node *ast_unary(Arena *a, Loc loc, Op op, Node *operand);
Node *ast_int(Arena *a, Loc loc, long long v);
Node *ast_real(Arena *a, Loc loc, double v);
Node *ast_bool(Arena *a, Loc loc, bool v);
Node *ast_string(Arena *a, Loc loc, const char *s);
Node *ast_assign(Arena *a, Loc loc, Node *lhs, Node *rhs);
Node *ast_block(Arena *a, Loc loc, Node *stmts);

/* A deep copy of one node and everything below it (not its `next`). */
Node *ast_clone(Arena *a, const Node *n);

/* List helpers: lists are NULL-terminated chains through `next`. */
Node *ast_append(Node *list, Node *item);   /* returns the (possibly new) head */
Node *ast_prepend(Node *list, Node *item);
int ast_count(const Node *list);
Node *ast_last(Node *list);

/* A list built at its end: ast_append walks to the end for every item, which made rules
 * that append one declaration or statement per inner quadratic in the inners.  `last` is
 * the list's last node (NULL while it is empty), `head` the slot its first is kept in. */
typedef struct AstTail {
	Node **head;
	Node *last;
} AstTail;

/* The end of the list in *head, found once. */
AstTail ast_tail(Node **head);
/* Appends item (one node or a chain) at the end, in constant time for one node. */
void ast_tail_append(AstTail *t, Node *item);

const char *ast_kind_name(NodeKind k);
const char *ast_type_name(SaType t);  /* "Real", ... ; "" for TY_NONE */
/* The number a literal stands for: a Real's value, an Integer's or a Bool's (0, 1) as a
 * double (a coupling's map and factor, read by the checker, the rewrite and the emitter). */
double ast_number(const Node *lit);
const char *ast_op_spelling(Op op);
const char *ast_builtin_name(Builtin b);
const char *ast_keyvar_name(int kv);

/* Printing as source text in this same language (the canonical layout: `sacc explicit`). */
void ast_print_file(StrBuf *out, const Node *file);
void ast_print_adaptation(StrBuf *out, const Node *sa);
void ast_print_expr(StrBuf *out, const Node *e);

#endif
