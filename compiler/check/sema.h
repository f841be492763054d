/* sema.h — what the checker learns about an adaptation, for the rewrite rules and the
 * emitter: every inner FMU with all of its ports (declared in the script or only in its
 * model description), their types and units, its kind, and the adaptation's symbol kinds.
 * Records live in the compilation's arena; FmuInfo records are owned by the Compilation. */
#ifndef SACC_SEMA_H
#define SACC_SEMA_H

#include <stdbool.h>

#include "ast.h"
#include "fmu.h"

/* What a resolved name or port reference denotes (Node.sym). */
enum {
	SYM_NONE,
	SYM_INPORT,     /* an external input port of the adaptation */
	SYM_OUTPORT,    /* an external output port */
	SYM_PARAM,
	SYM_IN_VAR,
	SYM_OUT_VAR,
	SYM_CTRL_VAR,
	SYM_LOCAL,      /* a `var` in a block, or a rules block's own var */
	SYM_LOOP_VAR,
	SYM_INNER_IN,   /* an input port of an inner FMU */
	SYM_INNER_OUT,  /* an output port of an inner FMU */
	SYM_INNER,      /* an inner FMU itself (do_step's first argument) */
};

/* The most elements of one array port a wrapper forwards (each is a value in its storage). */
#define SEMA_MAX_ELEMENTS 65536

typedef struct InnerPort {
	Node *decl;        /* ND_PORT: the script's, or one made from the model description */
	const char *name;  /* as the script names it */
	const char *var;   /* the FMU variable's name */
	SaType type;
	const char *unit;  /* NULL when neither the script nor the FMU gives one */
	bool is_input;
	int fmu_var;       /* index into FmuInfo.vars, -1 when the inner is an adaptation */
	int elem;          /* one element of an FMI 3.0 array, named "y[2]" or "A[1,2]" (1-based
	                    * subscripts): 1 + its 0-based row-major position; 0 for a whole
	                    * variable (docs/fmu.md, "Arrays") */
	bool discrete;     /* changes only at communication points: every non-Real port, and a
	                    * Real the model description declares discrete (or an inner
	                    * adaptation's port that passes such a port on); never interpolated */
} InnerPort;

typedef struct Inner {
	Node *decl;           /* ND_INNER, or the ND_FMU_DECL behind an ND_INNER_REF */
	const char *name;
	FmuInfo *fmu;         /* NULL when the inner is another adaptation of this build */
	Node *adaptation;     /* that adaptation, or NULL */
	int built_fmi;        /* that adaptation's FMU as `sacc build` found it: its FMI version
	                       * (2 or 3); 0 before the build resolves it */
	InnerPort *ports;
	int nports;
	bool mealy, reactive;
	bool isolated;        /* run out of process: `for isolated inner fmu`, or sacc build
	                       * --isolate naming it (set by the packager before emission) */
	/* Run as Model Exchange, integrated by the wrapper within each step: the FMU offers
	 * only that, or the script says `with model exchange`.  The solver's settings from
	 * `with solver = ... and ...`, each 0 when not given (the runtime's defaults). */
	bool me;
	int me_method;        /* a SartOdeMethod: 0 auto, 1 explicit (DOPRI5), 2 implicit */
	double me_tolerance;  /* relative */
	double me_max_step;
} Inner;

/* An inner's name and declaration index, for finding it by name (SaInfo.by_name). */
typedef struct SemaInnerKey {
	const char *name;
	int index;
} SemaInnerKey;

typedef struct SaInfo {
	Node *sa;
	Inner **inners;      /* in declaration order */
	int ninners;
	/* the inners sorted by name, then declaration index, for sema_inner: a look-up per port
	 * reference, not a search through ten thousand inners; NULL until the inners are read */
	SemaInnerKey *by_name;
	const char *dir;     /* the script's directory, for relative paths */
	bool checked_ok;
	bool explicit_done;
	int explicit_errors;
	int threads;         /* sacc build --threads: the most threads its batched do_steps
	                      * step inners on (set by the packager before emission; 0: one) */
} SaInfo;

/* Lookups used by the rules and the emitter. */
Inner *sema_inner(const SaInfo *info, const char *name);
/* Sorts info's inners by name into info->by_name (the checker, once they are read). */
void sema_index_inners(Arena *arena, SaInfo *info);
InnerPort *sema_inner_port(const Inner *in, const char *name);
/* Whether an adaptation's own port (ND_PORT, in info's adaptation) is discrete: not a Real,
 * or bound (its binding, or the one the explicit form removed, Node.bound_to) to a discrete
 * inner port.  A wrapper declares such a port discrete and holds it over a step. */
bool sema_port_discrete(const SaInfo *info, const Node *port);

#endif
