/* sart_fast_step.h — what an emitted fast step (SartModel.fast_step, sart_wrapper.h) and the
 * emitted step around it (SartModel.do_step) use besides the rule-level API: whether a step
 * may take the fast step (sart_fast_step_view), its end when it went whole
 * (sart_fast_commit), and an inner's direct route, whose calls (sart_direct_ready,
 * sart_direct_set_real, sart_direct_do_step, sart_direct_get_real, each returning a
 * SartStatus) the back end of the inner's FMI version defines inline.  Only FMI 2.0 inners
 * have a direct route; the emitter writes no fast step for others. */
#ifndef SART_FAST_STEP_H
#define SART_FAST_STEP_H

#include <float.h>

#include "sart_inner_fmi2_direct.h"
#include "sart_wrapper.h"

#ifdef SART_STEP_STATS
/* Counts a step that entered the fast step (the test build's counts, sart_fast_step.c). */
void sart_count_fast_step(void *instance);
#endif

/* The view of a handle whose step from t by H may be the fast step: a valid instance whose
 * fast step is on (SartView.fast_ok), t its time within the tolerance, 0 < H <= DBL_MAX;
 * t and H are then recorded in its route.  NULL otherwise, and the runtime's step
 * (sart_core_do_step) checks and reports it all. */
static inline SartView *sart_fast_step_view(void *instance, double t, double H)
{
	SartView *v = instance;
	if (!(v && v->magic == SART_INSTANCE_MAGIC && v->fast_ok && sart_at_time(v->time, t) &&
	      H > 0.0 && H <= DBL_MAX))
		return NULL;
#ifdef SART_STEP_STATS
	sart_count_fast_step(instance);
#endif
	v->route.t = t;
	v->route.H = H;
	return v;
}

/* The fast step's end when the whole step went with SART_OK (Out has run): the new time,
 * where its inners now stand (end, their route.last: t + H), the is_set marks cleared (the
 * Storage has storage_size bytes, the model nmarks external value references), G's result
 * no longer current.  Nothing else: a fast step's adaptation has no runtime call besides
 * do_step (fast_step_form's first precondition), so its save_state stacks are empty.
 * Returns SART_OK. */
static inline SartStatus sart_fast_commit(void *instance, double end, size_t storage_size,
                                          unsigned nmarks)
{
	SartView *v = instance;
	v->time = end;
	v->last_ok = end;
	sart_clear_is_set(sart_marks_of(instance, storage_size, nmarks), nmarks);
	v->g_dirty = 0;
	v->g_valid = 0;
	return SART_OK;
}

/* do_step(f, t, H) of a fast step in table form (SartStepTable), after MapIn: what the
 * emitter writes as fast_do_step_<inner> for each inner of a smaller wrapper, from the
 * model's tables; 1 when it went with SART_OK, else what sart_fast_rest returns (0). */
int sart_fast_do_step(SartWrapper *w, void *s, SartFastRoute *route, unsigned f);

#endif
