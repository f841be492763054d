/* sart_inner_backend.h — the contract between the version-independent front of the
 * inner-FMU seam (sart_inner.c) and its per-version back ends (sart_inner_fmi2.c, and later
 * sart_inner_fmi3.c).  Private to those files: callers include sart_inner.h only.
 *
 * The front owns what every version shares: the SartInner itself, argument and life-cycle
 * checks, the library path and dlopen/dlclose, the resource directory, and message
 * reporting.  A back end owns the function table it resolves from the library, its
 * instance handle, and the translation of each call into its FMI version, including the
 * names its messages use ("fmi2DoStep").
 *
 * Adding a version: write its back end defining a `const SartInnerOps`, declare it below
 * and add it to the version table in sart_inner.c.  No caller of sart_inner.h changes.
 * FMI 3.0's (sart_inner_fmi3.c) also reads the config's value types (in->vr_types) to
 * choose each value's getter and setter. */
#ifndef SART_INNER_BACKEND_H
#define SART_INNER_BACKEND_H

#include "sart_inner.h"

#define SART_MESSAGE_MAX 1024 /* bytes of one message, prefix included; longer is cut */

/* For the out-of-line handling of a status other than OK: kept apart from the hot calls so
 * that their usual path stays a few instructions without a stack frame. */
#if defined(__GNUC__) || defined(__clang__)
#define SART_COLD __attribute__((noinline, cold))
#else
#define SART_COLD
#endif

typedef struct SartInnerOps SartInnerOps;

struct SartInner {
	const SartInnerOps *ops;
	void *impl;         /* the back end's: function table and instance handle */
	void *lib;          /* dlopen handle */
	char *name;
	char *lib_path;     /* absolute */
	char *resource_dir; /* absolute path of <dir>/resources (need not exist) */
	unsigned caps;
	SartVrType *vr_types; /* the config's, sorted by value reference */
	size_t nvr_types;
	SartVrElement *elements; /* the config's, sorted by their own reference */
	size_t nelements;
	int instantiated;
	int fatal;          /* a call returned SART_FATAL: no further calls into the FMU */
	int fatal_as_error; /* a contained inner (SartIsolation.contained): a fatal outcome is
	                     * remembered as fatal but returned and logged as SART_ERROR */
	int callable;       /* instantiated && !fatal: the hot calls' one test */
	const SartInnerDirect *direct; /* the back end's, or NULL: set at bind, closed through
	                               * ops->close_direct whenever callable becomes 0 */
	SartLogger logger;
	void *logger_env;
	char message[SART_MESSAGE_MAX];
};

/* One FMI version.  Every function but bind may assume in->impl is bound, and every one
 * but bind, unbind and instantiate that the instance exists and no call was fatal; each
 * reports its own non-OK outcomes through sart_inner_report. */
struct SartInnerOps {
	const char *fmi_version; /* for messages: "2.0" */
	const char *platform;    /* the binaries/ subdirectory */
	/* Resolves the library's functions (in->lib, named in->lib_path) into in->impl,
	 * requiring those in->caps needs.  On failure in->impl stays NULL. */
	SartStatus (*bind)(SartInner *in);
	void (*unbind)(SartInner *in);
	SartStatus (*instantiate)(SartInner *in, const char *guid, int logging_on);
	void (*free_instance)(SartInner *in);
	SartStatus (*enter_init)(SartInner *in, const SartExperiment *ex);
	SartStatus (*exit_init)(SartInner *in);
	SartStatus (*get_real)(SartInner *in, const SartVr vr[], size_t n, double v[]);
	SartStatus (*get_integer)(SartInner *in, const SartVr vr[], size_t n, int v[]);
	SartStatus (*get_boolean)(SartInner *in, const SartVr vr[], size_t n, int v[]);
	SartStatus (*get_string)(SartInner *in, const SartVr vr[], size_t n, const char *v[]);
	SartStatus (*set_real)(SartInner *in, const SartVr vr[], size_t n, const double v[]);
	SartStatus (*set_integer)(SartInner *in, const SartVr vr[], size_t n, const int v[]);
	SartStatus (*set_boolean)(SartInner *in, const SartVr vr[], size_t n, const int v[]);
	SartStatus (*set_string)(SartInner *in, const SartVr vr[], size_t n,
	                         const char *const v[]);
	SartStatus (*set_real_input_derivatives)(SartInner *in, const SartVr vr[], size_t n,
	                                         const int order[], const double value[]);
	SartStatus (*get_real_output_derivatives)(SartInner *in, const SartVr vr[], size_t n,
	                                          const int order[], double value[]);
	/* Sets *reached as sart_inner_do_step documents; never NULL here. */
	SartStatus (*do_step)(SartInner *in, double t, double h, int no_set_state_prior,
	                      double *reached);
	SartStatus (*get_state)(SartInner *in, void **state);
	SartStatus (*set_state)(SartInner *in, void *state);
	SartStatus (*free_state)(SartInner *in, void **state);
	SartStatus (*serialized_size)(SartInner *in, void *state, size_t *size);
	SartStatus (*serialize)(SartInner *in, void *state, unsigned char *buf, size_t size);
	SartStatus (*deserialize)(SartInner *in, const unsigned char *buf, size_t size,
	                          void **state);
	SartStatus (*terminate)(SartInner *in);
	SartStatus (*reset)(SartInner *in);
	/* Marks the direct route as no longer callable (NULL when there is no route). */
	void (*close_direct)(SartInner *in);
	/* sart_inner_direct_status for this version (NULL when it fills no direct route). */
	SartStatus (*direct_status)(SartInner *in, SartDirectCall call, int status, double t,
	                            double h, double *reached);
	/* The version's name of the Real getter, for messages about what it gave ("fmi2GetReal");
	 * NULL reads as a version-free phrase. */
	const char *get_real_name;
	/* Binaries (FMI 3.0): sizes and pointers, valid as strings got are; NULL for a back end
	 * that has no Binary type (the front then reports the call). */
	SartStatus (*get_binary)(SartInner *in, const SartVr vr[], size_t n, size_t sizes[],
	                         const unsigned char *v[]);
	SartStatus (*set_binary)(SartInner *in, const SartVr vr[], size_t n, const size_t sizes[],
	                         const unsigned char *const v[]);
};

extern const SartInnerOps sart_inner_fmi2_ops;
extern const SartInnerOps sart_inner_fmi3_ops;

/* The FMI 3.0 type of value reference vr (dflt when the config did not list it). */
SartValueType sart_inner_vr_type(const SartInner *in, SartVr vr, SartValueType dflt,
                                 const char **name);

/* The array element that vr stands for (SartVrElement), or NULL for a variable's own
 * reference. */
const SartVrElement *sart_inner_element(const SartInner *in, SartVr vr);

/* Records "[name] <fmt...>" as the instance's message and sends it to the logger with the
 * category for st; returns st, so a back end can `return sart_inner_report(...)`.  A
 * SART_FATAL reported here is remembered (no further call reaches the FMU): every outcome
 * but SART_OK passes through this function, which lets the hot calls (values, steps) skip
 * any bookkeeping on their SART_OK path. */
SartStatus sart_inner_report(SartInner *in, SartStatus st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Hands an inner FMU's already formatted message to the logger, prefixed "[name] ". */
void sart_inner_forward(SartInner *in, SartStatus st, const char *category, const char *text);

#endif
