/* emit_c_impl.h — what the files of the C emitter share, private to them: emit_c.c (names,
 * statements, rule parts, the two files), emit_c_inners.c (inner FMUs), emit_c_expr.c
 * (types and expressions) and emit_c_fast.c (the fast step), among others.  Functions
 * shared between them carry the ec_ prefix. */
#ifndef EMIT_C_IMPL_H
#define EMIT_C_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "emit.h"
#include "util.h"

enum { T_REAL, T_INTEGER, T_BOOLEAN, T_STRING, T_N }; /* SartType's order */

extern const char *const type_word[T_N]; /* "real", ... */
extern const char *const type_fmi[T_N];  /* "Real", ... */
extern const char *const type_sart[T_N]; /* "SART_REAL", ... */

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

/* Ctrl as a table, for wrappers of many inners (emit_c_fast.c). */
typedef struct EcTable EcTable;

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
	/* batched do_steps (emit_c_batch.c): how many were written, whether MapIn and MapOut
	 * commute (0 not known yet, 1 yes, -1 no), and what those two read and write */
	int nbatches;
	int batch_maps;
	const struct EcAccess *map_in_access, *map_out_access;
	/* Ctrl's table form (ec_table_form), or NULL: Ctrl and the fast step as statements */
	EcTable *table;
	/* the inners by name, for ec_inner_c; the fields by C name and by script name, and
	 * the emitter's own fields' names (emit_c.c, add_field) */
	NameIndex inner_names, fields_by_c, fields_by_name, own_fields;
	bool own_ready;
	/* the places (vars, then bindings) of the array-parameter elements, ascending, made
	 * once (emit_c_arrays.c): each inner's element table looked at every var */
	int *array_params, narray_params;
	bool array_params_ready;
} Ec;


/* The storage var groups, in Storage order. */
typedef struct Group {
	const char *comment;
	const Node *list;
} Group;

/* Operator precedence, lowest first: the C text of an expression gets parentheses only where
 * its context binds tighter. */
enum { P_LOW, P_OR, P_AND, P_EQ, P_REL, P_ADD, P_MUL, P_UNARY, P_POSTFIX };

const char *ec_base_name(const char *path);
const char *ec_c_string(Arena *a, const char *s);
void ec_error(Ec *e, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *ec_field_named(const Ec *e, const char *name);
const char *ec_field_of(const Ec *e, const Node *decl);
InnerC *ec_inner_c(Ec *e, const char *name);
const char *ec_local_c(Ec *e, const char *name);
const char *ec_real_text(Ec *e, double v);
int ec_sart_type(SaType t);
/* The C text that assigns the String value to the String lvalue dst (named what in the
 * runtime's message): sart_set_string, which fails on a String too long. */
uint32_t ec_nvr(const EmitLayout *l, int t); /* the layout's value references of type t */
bool ec_is_string(Ec *e, const Node *n);     /* whether expression n is a String */
const char *ec_string_assign(Ec *e, const char *dst, const char *value, const char *what);
bool ec_uses_strings(const Ec *e);      /* the Storage holds a String somewhere */
void ec_check_string_starts(Ec *e);     /* every String start value fits a wrapper's */
void ec_begin_fn(Ec *e, StrBuf *body, bool map, const Node *root);
bool ec_passes_steps_up(const Node *body, const Node *r);
Node *ec_rules_of(Ec *e, bool in);
void ec_stmt(Ec *e, const Node *s);
const char *ec_expr(Ec *e, const Node *n, int min_prec);
const InnerPort *ec_inner_port_of(Ec *e, const Node *ref, InnerC **icp);
bool ec_is_truth(const Node *n);
bool ec_emit_fast_step(Ec *e, StrBuf *out);
/* Ctrl's table form when the wrapper has many inners and Ctrl its simple shape, else NULL;
 * with it, emit_ctrl writes the table and Ctrl as a loop over it (ec_emit_table_ctrl). */
EcTable *ec_table_form(Ec *e);
void ec_emit_table_ctrl(Ec *e, StrBuf *out);
void ec_table_free(Ec *e);
bool ec_is_real(Ec *e, const Node *n);   /* whether expression n is a Real */
void ec_put_list(StrBuf *o, const char *prefix, const char **items, int n, const char *suffix);
/* emit_c_types.c: the inners' port tables, with the FMI 3.0 types of their ports that are
 * not the seam's defaults, and the inner table's reference to those types. */
void ec_emit_port_tables(Ec *e, StrBuf *o);
void ec_emit_vr_types_ref(Ec *e, const InnerC *ic, StrBuf *o);
/* emit_binary.c: the inners' Binary ports forwarded (EmitLayout.binaries): their Storage
 * fields (the wrapper's variables), port tables, inner-table groups, start values, the
 * model's Binary variables and their maxSizes. */
int ec_binary_ports(const Ec *e, int f, int dir);
void ec_emit_binary_storage(const Ec *e, const InnerC *ic, StrBuf *o);
void ec_emit_binary_port_tables(Ec *e, StrBuf *o);
void ec_emit_binary_group(const Ec *e, StrBuf *o, const InnerC *ic, int dir);
bool ec_binary_defaults_any(const Ec *e);
void ec_emit_binary_defaults(Ec *e, StrBuf *o);
void ec_check_binary_starts(Ec *e);
void ec_emit_binary_vars(Ec *e, StrBuf *o);
/* emit_c_arrays.c: array ports.  The value reference of an FMU inner's k-th element port;
 * the elements' and spans' tables; their references in the inner's and the model's table. */
uint32_t ec_element_vr(const FmuInfo *f, int k);
uint32_t ec_element_vr3(const EmitLayout *sub, int k);
void ec_emit_array_tables(Ec *e, StrBuf *o);
void ec_emit_elements_ref(Ec *e, const InnerC *ic, StrBuf *o);
void ec_emit_spans_ref(Ec *e, StrBuf *o);
/* With sacc build --threads: when statement s of Ctrl begins a run of independent do_steps,
 * writes them as one batch and returns the run's last statement; else NULL. */
const Node *ec_batch(Ec *e, const Node *s);
/* The inner table's `.serial` and the model's `.threads` and `.nbatches`, when they apply. */
void ec_batch_inner(Ec *e, StrBuf *o, const InnerC *ic);
void ec_batch_model(Ec *e, StrBuf *o);
/* The importer's every-step calls of the adaptation (SartModel.set_real, get_real and, with
 * a fast step, do_step) and the Real offsets they read; nreal_in: its external Real
 * inputs, value references 0..nreal_in-1 (emit_c_fast.c). */
void ec_emit_entries(Ec *e, StrBuf *out, bool fast, int nreal_in);
/* The Storage field of the inner parameter of that type in that slot. */
const char *ec_inner_param_field(Ec *e, SaType type, int slot);
/* A name from a model description as part of a C identifier: other characters become '_'. */
const char *ec_ident_part(Arena *a, const char *s);
/* emit_c_inners.c: an inner's C names, port slots, value references, version and
 * capabilities (false, with an error, when it cannot be emitted); the value reference in
 * inner `in` of its variable numbered vr among those of its type; the inners' step order;
 * the inner table (SartInnerModel). */
bool ec_setup_inner(Ec *e, InnerC *ic, const Inner *in);
uint32_t ec_inner_vr(Ec *e, const Inner *in, SaType type, uint32_t vr);
int *ec_inner_order(Ec *e);
void ec_emit_inner_table(Ec *e, StrBuf *o);

#endif
