/* sart_fmi3_arrays.h — array variables in the value calls of the FMI 3.0 skin, private to
 * sart_fmi3.c, which includes it only when compiled with SART_ARRAYS (sacc build defines it
 * for a wrapper with array ports), so that every other wrapper's value calls stay as they
 * are.
 *
 * An FMI 3.0 array variable is gotten and set whole: one value reference, and its values
 * in row-major order among the call's nValues values.  The core keeps each element as a
 * variable of its own, value references in a row from the array's (SartModel.spans says
 * how many values each reference holds).  A call's value references are expanded into the
 * elements' before the scalar path runs on them, after two checks: each names a variable
 * of the model description (not an element after an array's first), and nValues is the
 * number of values they hold.  Either failing is fmi3Error with a message naming the call,
 * the reference or the counts. */
#ifndef SART_FMI3_ARRAYS_H
#define SART_FMI3_ARRAYS_H

#include <stdlib.h>

#include "fmi3/fmi3Functions.h"
#include "sart_core.h"

/* The scalar path a call takes once its value references are expanded. */
typedef fmi3Status SartFmi3Values(fmi3Instance instance, const SartCall *call, SartType t,
                                  const fmi3ValueReference vr[], size_t nvr, void *values,
                                  size_t nValues);

/* vr[0..nvr-1] (the description's, of type t, which starts at base) with each array's
 * expanded into its elements', into *out: buf when nValues fits its nbuf, else malloc'd
 * memory the caller frees.  SART_ERROR, logged, when they are not what nValues says. */
static SartStatus sart_fmi3_expand(fmi3Instance instance, const SartCall *call, SartType t,
                                   unsigned base, const fmi3ValueReference vr[], size_t nvr,
                                   size_t nValues, fmi3ValueReference *buf, size_t nbuf,
                                   fmi3ValueReference **out)
{
	const unsigned *span = sart_model.spans[t];
	size_t held = 0;
	*out = buf;
	if (nvr && !vr)
		return SART_OK; /* the scalar path reports it */
	for (size_t i = 0; i < nvr; i++) {
		unsigned k = vr[i] - base;
		/* a reference of no variable of this type is the scalar path's to report */
		unsigned n = vr[i] < base || k >= sart_model.nvr[t] || !span ? 1 : span[k];
		if (n == 0) {
			SartWrapper *w = sart_core_enter(instance, call);
			if (w)
				sart_core_log(w, SART_ERROR, "%s: unknown value reference %u (it lies "
				              "inside an array)", call->name, (unsigned)vr[i]);
			return SART_ERROR;
		}
		held += n;
	}
	if (held != nValues) {
		SartWrapper *w = sart_core_enter(instance, call);
		if (w)
			sart_core_log(w, SART_ERROR, "%s: %lu values for %lu value references that "
			              "hold %lu (an array's values are all its elements, row-major)",
			              call->name, (unsigned long)nValues, (unsigned long)nvr,
			              (unsigned long)held);
		return SART_ERROR;
	}
	if (held > nbuf) {
		*out = malloc(held * sizeof **out);
		if (!*out) {
			SartWrapper *w = sart_core_enter(instance, call);
			if (w)
				sart_core_log(w, SART_ERROR, "%s: out of memory", call->name);
			return SART_ERROR;
		}
	}
	size_t at = 0;
	for (size_t i = 0; i < nvr; i++) {
		unsigned k = vr[i] - base;
		unsigned n = vr[i] < base || k >= sart_model.nvr[t] || !span ? 1 : span[k];
		for (unsigned e = 0; e < n; e++)
			(*out)[at++] = vr[i] + e;
	}
	return SART_OK;
}

/* The call through fn with its value references expanded (nvr becomes nValues). */
static fmi3Status sart_fmi3_arrays(fmi3Instance instance, const SartCall *call, SartType t,
                                   unsigned base, const fmi3ValueReference vr[], size_t nvr,
                                   void *values, size_t nValues, SartFmi3Values *fn)
{
	fmi3ValueReference buf[64], *all;
	buf[0] = 0; /* a call with no value references passes it on unread */
	if (sart_fmi3_expand(instance, call, t, base, vr, nvr, nValues, buf, 64, &all) != SART_OK)
		return fmi3Error;
	fmi3Status st = fn(instance, call, t, nvr && !vr ? vr : all, nvr && !vr ? nvr : nValues,
	                   values, nValues);
	if (all != buf)
		free(all);
	return st;
}

#endif
