/* rewrite.h — the rewrite framework: what the lowering of the declarative layer (lower.c
 * and its families lower_*.c) and the reduction to explicit form (explicit.c) share.
 *
 * A rewrite is a table of rules (RwRule), each one function, run by rw_run in the table's
 * order on a checked adaptation, changing its tree in place.  The runner does what every
 * rule would otherwise begin with: it makes the rule's context (Rewrite) and, for a rule
 * that lowers one declarative form, finds that form and checks the preconditions all such
 * forms share, skipping the rule when the form is absent.  Rules build nodes with the
 * rw_* builders, which give each node the rule's name (Node.origin) and the place it comes
 * from (Rewrite.at), so that an error in generated code can say which rule made it. */
#ifndef SACC_REWRITE_H
#define SACC_REWRITE_H

#include "compilation.h"
#include "sema.h"

/* The context of one rule applied to one adaptation. */
typedef struct Rewrite {
	Compilation *c;
	SaInfo *info;
	Node *sa;          /* the adaptation rewritten */
	const char *rule;  /* the rule's name: the origin of every node it makes */
	Loc at;            /* where the nodes made next come from */
	Node *form;        /* the declarative form the runner found for the rule, or NULL */
	bool failed;       /* the rule reported an error */
	struct RwDecls *decls; /* rw_lookup's table, made on its first call, freed with the
				* context */
} Rewrite;

/* What the runner looks for before it applies a rule (the rule is skipped without it). */
typedef enum RwFinds {
	RW_WHOLE,        /* nothing: the rule looks at the whole adaptation itself */
	RW_GENERAL_FORM, /* a general form of the rule's kind (before the control part), which
			  * generates the control rules: the runner checks that there are none
			  * yet, the user's or another form's */
	RW_CONTROL_FORM, /* the adaptation's control form, when it is of the rule's kind */
} RwFinds;

typedef struct RwRule {
	const char *name;
	void (*apply)(Rewrite *w);
	RwFinds finds;
	NodeKind kind;        /* RW_GENERAL_FORM, RW_CONTROL_FORM: the form's node kind */
	const char *spelling; /* RW_GENERAL_FORM: the form as written, for messages */
} RwRule;

/* Applies rules (ending with a NULL name) in order to a checked adaptation; with after
 * set to a rule's name, stops after it.  Returns the number of errors reported. */
int rw_run(const RwRule *rules, Compilation *c, SaInfo *info, const char *after);

/* Applies one rule, with the runner's preamble (what rw_run does for each). */
void rw_apply(const RwRule *rule, Compilation *c, SaInfo *info);

/* The rule of that name in a table, or NULL. */
const RwRule *rw_rule_named(const RwRule *rules, const char *name);

/* ---- node builders: each node at w->at, its origin w->rule ----------------------------- */

Node *rw_node(Rewrite *w, NodeKind kind);
Node *rw_ref(Rewrite *w, Node *decl, int sym);   /* a name resolved to decl */
Node *rw_port(Rewrite *w, const char *owner, const char *name, Node *decl, int sym);
Node *rw_real(Rewrite *w, double v);
Node *rw_int(Rewrite *w, long long v);
Node *rw_bool(Rewrite *w, bool v);
Node *rw_string(Rewrite *w, const char *s);
Node *rw_keyvar(Rewrite *w, int kv);             /* t, H, dt, h */
Node *rw_binary(Rewrite *w, Op op, Node *l, Node *r);
Node *rw_not(Rewrite *w, Node *x);
Node *rw_assign(Rewrite *w, Node *lhs, Node *rhs);
Node *rw_block(Rewrite *w, Node *stmts);
/* if (cond) { then } else { els }; an els that is an `if` is chained as `else if`. */
Node *rw_if(Rewrite *w, Node *cond, Node *then, Node *els);
Node *rw_builtin(Rewrite *w, Builtin op, Node *args);
/* An FMU builtin: do_step(f, t, h), save_state(f), rollback(f), last_execution_time(f). */
Node *rw_fmu_call(Rewrite *w, Builtin op, const Inner *in, Node *args);
Node *rw_call_stmt(Rewrite *w, Node *call);
Node *rw_return(Rewrite *w, Node *e);
Node *rw_decl(Rewrite *w, const char *name, SaType type, Node *init, int where);
/* `var name := init;`; *decl gets the declaration. */
Node *rw_local(Rewrite *w, const char *name, SaType type, Node *init, Node **decl);
/* `for (var name in from .. to) { }`; *var gets the loop variable's declaration. */
Node *rw_for(Rewrite *w, const char *name, Node *from, Node *to, Node **var);
/* A rule `true -> then --> els` (then, els: blocks, els may be NULL). */
Node *rw_true_rule(Rewrite *w, Node *then, Node *els);
/* The rules block in *slot ('i' in rules, 'o' out rules), made when there is none. */
Node *rw_rules_block(Rewrite *w, Node **slot, int which);
/* An external port named and typed as inner port p of in and bound to it (dir: BIND_TO
 * for an inner input, BIND_FROM for an output). */
Node *rw_bound_port(Rewrite *w, const Inner *in, const InnerPort *p, int dir);
/* scale * x + offset, written the way a person would (the constants at x's place). */
Node *rw_converted(Rewrite *w, Node *x, double scale, double offset);
/* The statement by which coupling cp gives its input the value x: `b.q := conv(x);`, or
 * with a map an if chain that assigns b.q in every branch (the map, then the conversion:
 * units, factor, offset).  The one place couplings become statements. */
Node *rw_coupled(Rewrite *w, Node *cp, Node *x);
/* A copy of a user's expression (keeping its origin, its place). */
Node *rw_clone(Rewrite *w, const Node *n);
/* a, b as a list of two. */
Node *rw_list2(Node *a, Node *b);
/* A name made in the arena. */
const char *rw_printf(Rewrite *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- what rules ask of the adaptation ----------------------------------------------------- */

/* A declaration at the adaptation's level named `name` (*sym: what it is), or NULL. */
Node *rw_find_decl(Node *sa, const char *name, int *sym);
/* rw_find_decl(w->sa, ...) through a table of the declarations, made on the first call of
 * the rule: a rule that looks up a name per inner stays linear in the inners.  A rule
 * that adds a declaration to the adaptation after its first look-up tells the table with
 * rw_declared (rules add only names that no declaration takes, so the first one found is
 * still rw_find_decl's). */
Node *rw_lookup(Rewrite *w, const char *name, int *sym);
void rw_declared(Rewrite *w, Node *decl, int sym);
/* "an input port", "a parameter", ... */
const char *rw_sym_noun(int sym);
/* Whether a statement anywhere under stmts assigns owner.name. */
bool rw_assigns(Node *stmts, const char *owner, const char *name);
/* Whether inner input p of in is fed: by a coupling, a binding, or an assignment in the
 * control rules or an in rule's MapIn part. */
bool rw_inner_input_fed(Rewrite *w, const Inner *in, const InnerPort *p);
/* The model-description start value of inner port p as a literal of its type, or NULL. */
Node *rw_start_literal(Rewrite *w, const Inner *in, const InnerPort *p);

/* ---- the control part --------------------------------------------------------------------- */

/* Whether the rule may generate the control rules: the user wrote none (or `implied`) and
 * no other form generated them; reports it otherwise (form: as written). */
bool rw_control_free(Rewrite *w, const char *form);
/* Makes stmts the adaptation's control rules. */
void rw_set_control(Rewrite *w, Node *stmts);
/* Removes the general form the runner found from the adaptation: it is lowered. */
void rw_consume_form(Rewrite *w);

#endif
