/* sart_inner_fmi2_direct.h — the FMI 2.0 back end's direct route (sart_inner.h,
 * sart_inner_direct): an inner FMU's own fmi2SetReal, fmi2DoStep and fmi2GetReal with its
 * instance, and the inline calls through them that a wrapper's emitted fast step makes.
 *
 * The emitted C reaches these through sart_fast_step.h and names no FMI type: it tests
 * sart_direct_ready, calls sart_direct_set_real / sart_direct_do_step / sart_direct_get_real
 * and compares their SartStatus with SART_OK.  Each call is one indirect call, as calling the
 * library directly would be; the status values are fmi2Status's (sart_inner.h). */
#ifndef SART_INNER_FMI2_DIRECT_H
#define SART_INNER_FMI2_DIRECT_H

#include <stddef.h>

#include "fmi2/fmi2FunctionTypes.h"
#include "sart_inner.h"

/* c is non-NULL exactly when the instance may be called: the back end fills it at
 * instantiate and clears it when the instance goes or a call was fatal. */
struct SartInnerDirect {
	fmi2Component c;
	fmi2SetRealTYPE *set_real;
	fmi2GetRealTYPE *get_real;
	fmi2DoStepTYPE *do_step;
};

static inline int sart_direct_ready(const SartInnerDirect *d)
{
	return d->c != NULL;
}

static inline SartStatus sart_direct_set_real(const SartInnerDirect *d, const SartVr vr[],
                                              size_t n, const double v[])
{
	return (SartStatus)d->set_real(d->c, vr, n, v);
}

static inline SartStatus sart_direct_get_real(const SartInnerDirect *d, const SartVr vr[],
                                              size_t n, double v[])
{
	return (SartStatus)d->get_real(d->c, vr, n, v);
}

/* A step from t by h; the wrapper may always set an earlier state again. */
static inline SartStatus sart_direct_do_step(const SartInnerDirect *d, double t, double h)
{
	return (SartStatus)d->do_step(d->c, t, h, fmi2False);
}

/* A step from t by h saying whether the caller may set an earlier state again (FMI's
 * noSetFMUStatePriorToCurrentPoint): what sacc simulate's master says, as the seam's
 * sart_inner_do_step passes it on. */
static inline SartStatus sart_direct_do_step_prior(const SartInnerDirect *d, double t, double h,
                                                   int no_set_state_prior)
{
	return (SartStatus)d->do_step(d->c, t, h, no_set_state_prior ? fmi2True : fmi2False);
}

#endif
