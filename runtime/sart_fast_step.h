/* sart_fast_step.h — what an emitted fast step (SartModel.fast_step, sart_wrapper.h) calls
 * besides the rule-level API: sart_all_finite, and an inner's direct route, whose calls
 * (sart_direct_ready, sart_direct_set_real, sart_direct_do_step, sart_direct_get_real, each
 * returning a SartStatus) the back end of the inner's FMI version defines inline.  Only
 * FMI 2.0 inners have a direct route; the emitter writes no fast step for others. */
#ifndef SART_FAST_STEP_H
#define SART_FAST_STEP_H

#include "sart_inner_fmi2_direct.h"
#include "sart_wrapper.h"

#endif
