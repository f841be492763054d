/* emit.h — the back end: from a checked adaptation in explicit form, the wrapper FMU's files.
 *
 * Pipeline position: load -> parse -> check -> explicit -> *emit* (-> package).  The model
 * description and the generated C must agree on every detail of the wrapper's external
 * interface, so that interface is computed once, by emit_layout, into an EmitLayout that
 * both emitters read: the variables in ScalarVariable order with their value references,
 * types, causality/variability/initial and start values; the units with their SI base
 * units; the GUID; the Co-Simulation capabilities.  emit_md.c writes modelDescription.xml
 * from it, emit_c.c the C (config.h and <modelIdentifier>.c) from the same table.
 *
 * Decisions (docs/fmu.md, "The model description"):
 *   - Variables come in a stable order: external inputs, then external outputs, then
 *     params, each group in declaration order of the explicit form, then the inners'
 *     parameters (causality parameter, fixed or tunable, Real, Integer, Boolean or
 *     Enumeration) that the script does not bind, as "<inner>.<name>" with the inner's
 *     variability, start value, unit and description, inner by inner in declaration order
 *     (an FMI 3.0 inner's array parameter as a run of element parameters, emit_arrays.c).
 *     An inner adaptation's parameters are its own and, through it, its inners'
 *     ("outer.vdp.mu").  ScalarVariable index i is vars[i - 1].
 *   - Value references are dense per type, counted from 0 in that same order: the Reals
 *     are 0..nreal-1, the Integers 0..ninteger-1, and so on, so that the generated code can
 *     index one array per type.  FMI 2.0 only asks them to be unique per type.
 *   - A param is tunable when it is read in the rules (control, in and out rules) and
 *     nowhere else; a param read in an initial value (another param's, a storage var's, a
 *     rules block var's, a declarative setting) or never read at all is fixed, since
 *     changing it after initialisation would leave what was computed from it stale.
 *   - The GUID is a name-based UUID (RFC 4122 version 5, SHA-1) in a namespace of sacc's
 *     own, over the compiler version, the adaptation's explicit form as `sacc explicit`
 *     prints it, and the inner FMUs' GUIDs (an inner adaptation's computed the same way):
 *     the same inputs give the same GUID, and any change to the interface, the rules or an
 *     inner FMU gives another.  No time, no randomness.
 *   - canGetAndSetFMUstate / canSerializeFMUstate hold when every inner FMU has them, an
 *     inner adaptation when all of its inners have them (recursively);
 *     canBeInstantiatedOnlyOncePerProcess when any inner has it.  canInterpolateInputs
 *     holds for a reactive adaptation. */
#ifndef SACC_EMIT_H
#define SACC_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "compilation.h"
#include "fmu.h"
#include "sema.h"
#include "units.h"

/* A start value of the variable's type (the field its SaType names). */
typedef struct EmitValue {
	double r;
	long long i;   /* Integer; fits in 32 bits (FMI 2.0's fmi2Integer) */
	bool b;
	const char *s;
} EmitValue;

/* The inputs an output depends on directly (emit_deps.c): sources, ascending, each an
 * input's place in EmitLayout.vars (0..ninputs-1) or ninputs + a forwarded Binary input's
 * place in EmitLayout.binaries. */
typedef struct EmitDeps {
	int *src;
	int n;
} EmitDeps;

typedef struct EmitVar {
	const char *name;        /* as in the script */
	const char *description; /* NULL when there is nothing useful to say */
	SaType type;             /* TY_REAL, TY_INTEGER, TY_BOOL, TY_STRING */
	FmuCausality causality;  /* CAUS_INPUT, CAUS_OUTPUT or CAUS_PARAMETER */
	FmuVariability variability;
	FmuInitial initial;      /* INIT_UNSET for inputs (FMI 2.0 forbids the attribute) */
	uint32_t vr;             /* unique among the variables of its type */
	int index;               /* 1-based ScalarVariable index */
	bool has_start;          /* inputs and params; never outputs */
	EmitValue start;
	const char *unit;        /* the declared unit as written, NULL when none */
	Node *decl;              /* ND_PORT for ports, ND_VARDECL for params; NULL for an
	                          * inner's parameter */
	const char *cname;       /* the name as a C identifier part (value-reference enums) */
	const Inner *inner;      /* an inner's parameter exposed as "<inner>.<name>": that
	                          * inner (NULL for the adaptation's own variables) */
	int inner_index;         /* its index in info->inners */
	uint32_t inner_vr;       /* its value reference in the inner */
	int slot;                /* its place in the Storage's inner_param_<type> array */
	int enumeration;         /* an Integer that only carries an inner's Enumeration (a port
	                          * bound to one, an inner's parameter): 1 + its type's index
	                          * in the layout's enums, declared as that Enumeration; else 0 */
	/* An element of an FMI 3.0 array an inner's array port became ("y[2]", row-major, one
	 * variable each in the Storage and the value-reference tables): on the first element,
	 * the number of elements, and the array as the FMI 3.0 wrapper declares it (its name,
	 * its dimensions); -1 on the others, which the FMI 3.0 model description leaves out;
	 * 0 on a scalar (emit_arrays.c) */
	int elems;
	const char *array_name;
	const long long *dims;
	int ndims;
	/* An element of an FMI 3.0 inner's array parameter exposed whole (emit.c): that array
	 * variable of the inner and the element's 0-based row-major index; inner_vr is then
	 * the element's own reference for the seam (the element table, emit_c_arrays.c).
	 * NULL for every other variable. */
	const FmuVar *param_array;
	int param_index;
	/* An output's direct dependencies on the inputs between steps (none in a Moore
	 * wrapper) and during initialization (emit_deps.c) */
	EmitDeps deps, init_deps;
} EmitVar;

/* An inner's enumeration type that the wrapper declares for the variables carrying it:
 * its name in the wrapper's model description (the inner's, prefixed "<inner>." when
 * two inners' types of that name differ) and the inner's definition (items). */
typedef struct EmitEnum {
	const char *name;
	const FmuTypeDef *def;
} EmitEnum;

/* An inner's parameter the script binds (`with param k := 2 * K`): set on the inner from
 * the expression, over the adaptation's params, before the inner's initialization. */
typedef struct EmitBinding {
	const char *name;        /* the inner's variable */
	const Inner *inner;
	int inner_index;
	uint32_t inner_vr;
	SaType type;
	const Node *value;       /* the expression */
	int slot;                /* its place in the Storage's inner_param_<type> array */
	/* An element of an FMI 3.0 inner's array parameter (`with param K[2] := ...`), as in
	 * EmitVar; NULL otherwise. */
	const FmuVar *param_array;
	int param_index;
} EmitBinding;

/* An FMI 3.0 inner's Binary port the wrapper forwards whole (emit_binary.c): an input the
 * script does not feed, an output when the script declares no output ports, as the
 * explicit form passes other ports through.  Not a language variable: rules cannot name
 * it, and only an FMI 3.0 wrapper can carry it. */
typedef struct EmitBinary {
	const char *name;        /* the wrapper's variable: the inner's port name */
	const Inner *inner;
	int inner_index;         /* in info->inners */
	const FmuVar *var;       /* the inner's variable (vr, start, mimeType, maxSize) */
	bool is_input;
	uint32_t vr;             /* 0..nbinaries-1: the wrapper's Binary value references */
	int index;               /* in the inner's Binary port group of its direction */
	long long max_size;      /* the wrapper variable's maxSize (at most the runtime's cap) */
	/* An element of an FMI 3.0 Binary array (emit_binary.c): 1-based, row-major, 0 for a
	 * scalar; the elements of one array come in a row, the first one names the array. */
	int elem;
	const char *array_name;  /* the array's name (the inner's), NULL for a scalar */
	const char *start;       /* the start value as hexadecimal digits, NULL when none */
	uint32_t inner_vr;       /* the reference the seam takes: the inner's, or the element's */
	EmitDeps deps, init_deps; /* an output's, as EmitVar's */
} EmitBinary;

typedef struct EmitUnit {
	const char *name;        /* as written in the script */
	bool has_base;           /* false for units with no affine map onto SI (logarithmic) */
	UnitsBase base;
} EmitUnit;

typedef struct EmitLayout {
	SaInfo *info;
	Node *sa;
	const char *model_name;        /* the adaptation's name */
	const char *model_identifier;  /* the same: a C identifier, the .so's base name */
	const char *description;
	const char *source;            /* the script's file name, for the banner */
	char guid[40];                 /* "{xxxxxxxx-xxxx-5xxx-yxxx-xxxxxxxxxxxx}" */

	EmitVar *vars;                 /* inputs, outputs, params, inner parameters */
	int nvars;
	int ninputs, noutputs, nparams;
	int ninner_params;             /* the inners' parameters the wrapper exposes */
	EmitBinding *bindings;         /* the inners' parameters the script binds */
	int nbindings;
	int nslots[4];                 /* Storage slots of inner parameters (exposed and bound)
	                                * per type: Real, Integer, Boolean, String */
	uint32_t nreal, ninteger, nboolean, nstring; /* value references used per type */
	int narrays;                   /* array variables among vars (emit_arrays.c) */

	EmitUnit *units;               /* in order of first use by a variable */
	int nunits;
	EmitEnum *enums;               /* in order of first use by a variable */
	int nenums;
	EmitBinary *binaries;          /* the inners' Binary ports forwarded, inputs first */
	int nbinaries;

	bool mealy;                    /* outputs depend directly on the inputs */
	bool reactive;                 /* stepped with the inputs of the end of the step */
	bool can_get_and_set_fmu_state;
	bool can_serialize_fmu_state;
	bool can_be_instantiated_only_once_per_process;
	/* the DefaultExperiment, from the inner FMUs' (through inner adaptations): the largest
	 * start, the smallest stop and the smallest step declared; NaN where none is */
	double default_start, default_stop, default_step;
	/* the files under sources/ an importer compiles into the library, set by `sacc build`
	 * (pkg_source_files) for the FMI 2.0 <SourceFiles>; none (sacc emit, --no-sources): no
	 * such element */
	const char *const *source_files;
	int nsource_files;
} EmitLayout;

/* The first input, output and param of a layout. */
static inline EmitVar *emit_inputs(const EmitLayout *l) { return l->vars; }
static inline EmitVar *emit_outputs(const EmitLayout *l) { return l->vars + l->ninputs; }
static inline EmitVar *emit_params(const EmitLayout *l)
{
	return l->vars + l->ninputs + l->noutputs;
}
static inline EmitVar *emit_inner_params(const EmitLayout *l)
{
	return l->vars + l->ninputs + l->noutputs + l->nparams;
}

/* The log categories the runtime logs under, declared in every model description:
 * logStatusWarning, logStatusDiscard, logStatusError, logStatusFatal (calls that return
 * that status, with why), logFmiCalls (every fmi2 call the importer makes, with its
 * arguments), logInner (messages of the inner FMUs, forwarded with the inner instance
 * name prefixed).  Ends with {NULL, NULL}. */
typedef struct EmitLogCategory {
	const char *name;
	const char *description;
} EmitLogCategory;
extern const EmitLogCategory emit_log_categories[];

/* Computes the layout of a checked adaptation reduced to explicit form (drv_explicit).
 * Everything lives in the compilation's arena.  NULL after reporting through c->diag:
 * a param whose value is not a constant expression, a value FMI 2.0 cannot hold (an
 * Integer beyond 32 bits, a Real that is not finite), an array port. */
EmitLayout *emit_layout(Compilation *c, SaInfo *info);

/* Where each inner of info finds its FMU in the wrapper's resources/: homes[i] is the index
 * of the inner whose directory (resources/<its name>/) inner i loads, i itself or the first
 * inner of the same FMU file (the same archive and interface, or the same inner
 * adaptation), so that the archive holds one copy of each FMU and the process one library.
 * An FMU declaring canBeInstantiatedOnlyOncePerProcess keeps a directory per instance: a
 * copy of its library is loaded apart from the others.  In the arena; NULL when out of
 * memory. */
int *emit_inner_homes(Compilation *c, const SaInfo *info);

/* The inners' Binary ports the wrapper forwards, into l->binaries (emit_binary.c; a port
 * whose name a wrapper variable has already is reported).  emit_binaries_refused reports
 * each as an error when the wrapper is built as FMI `fmi_version` and that cannot carry it
 * (FMI 2.0), and returns how many. */
void emit_find_binaries(Compilation *c, EmitLayout *l);
int emit_binaries_refused(Compilation *c, const EmitLayout *l, int fmi_version);
/* The FMI 3.0 value reference of a forwarded Binary: after the Strings. */
uint32_t emit_binary_vr3(const EmitLayout *l, const EmitBinary *b);
/* Arrays (emit_arrays.c).  Marks the runs of l's variables that are the elements of an
 * inner's array port ("y[1]" ... "y[3]", consecutive, one type) as one array each and gives
 * every element a C name of its own; called once by emit_layout. */
void emit_group_arrays(Compilation *c, EmitLayout *l);
/* Reports each array variable of l (naming the port and its inner) when the wrapper is
 * built as FMI 2.0, which has no array variables; true when there is one. */
bool emit_refuse_arrays_fmi2(Compilation *c, const EmitLayout *l);

/* An FMI 3.0 inner's array parameter (emit_arrays.c): unless the wrapper leaves it at its
 * start values, its elements exposed as parameters "<inner>.K[1]" ... of l (each through
 * emit_expose_inner_param, which emit.c defines), which emit_group_arrays then declares as
 * one array.  emit_array_param_elements: how many elements f's array parameters have at
 * most, for the allocation. */
void emit_add_array_param(Compilation *c, EmitLayout *l, int f, const FmuVar *fv);
int emit_array_param_elements(const FmuInfo *f);
/* The script's binding of an inner's parameter or of one element of it (`with param NAME :=
 * EXPR`, `with param K[2] := EXPR`), or NULL (emit.c). */
const Node *emit_inner_binding(const Inner *in, const char *name);
void emit_expose_inner_param(Compilation *c, EmitLayout *l, int f, const char *name,
                             const EmitVar *from);

/* The FMI 3.0 value reference of l's variable numbered vr among those of its type: an FMI
 * 3.0 wrapper numbers all its variables in one sequence (emit_md.c says how), where an FMI
 * 2.0 one numbers each type from 0. */
uint32_t emit_vr3(const EmitLayout *l, SaType type, uint32_t vr);

/* The direct dependencies of l's outputs and forwarded Binary outputs on its inputs
 * (EmitVar.deps, init_deps), from the explicit form's in and out rules, the internal
 * couplings and the inners' own dependencies (an inner adaptation's computed the same
 * way); called once by emit_layout, after the Binaries are found (docs/fmu.md). */
void emit_find_deps(Compilation *c, EmitLayout *l);

/* The wrapper's GUID (see above) into out; false when an inner adaptation has errors. */
bool emit_guid(Compilation *c, const SaInfo *info, char out[40]);

/* modelDescription.xml for the layout, NUL-terminated in malloc'd memory that the caller
 * frees; *len (when not NULL) gets its length.  NULL only when libxml2 fails (reported). */
char *emit_md_buffer(Compilation *c, const EmitLayout *l, size_t *len);

/* Writes modelDescription.xml to path.  Returns 0, or 1 after a report. */
int emit_md_to_file(Compilation *c, const EmitLayout *l, const char *path);
/* The FMI 3.0 model description of the same layout (emit_md.c says how its value
 * references are numbered), and the file; as the two above.  An adaptation with String
 * ports is refused (reported). */
char *emit_md3_buffer(Compilation *c, const EmitLayout *l, size_t *len);
int emit_md3_to_file(Compilation *c, const EmitLayout *l, const char *path);

/* The wrapper's model-specific C (emit_c.c): config.h (value-reference enums, inner port
 * enums, the Storage struct) and <modelIdentifier>.c (the inner FMUs' tables, the external
 * variables' tables, one function per rule part and `const SartModel sart_model`), for the runtime contract
 * runtime/sart_wrapper.h.  Both NUL-terminated in malloc'd memory the caller frees.
 * false, with both NULL, after reporting at the node what cannot be translated (String
 * variables and ports, array ports, declarative forms still present, ...). */
bool emit_c_buffers(Compilation *c, const EmitLayout *l, char **config_h, char **model_c);

/* Writes dir/config.h and dir/<modelIdentifier>.c (dir must exist): for the packager's
 * `sacc emit` and `sacc build`.  Returns 0, or 1 after a report. */
int emit_c_to_dir(Compilation *c, const EmitLayout *l, const char *dir);

#endif
