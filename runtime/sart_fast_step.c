/* sart_fast_step.c — the wrapper's fast paths for the step: the plain step, taken whenever a
 * step needs nothing but In; Ctrl; Out (a valid instance between steps, no snapshot, no
 * input derivatives, no call log, t the instance's time within the tolerance the general
 * step accepts, 0 < H <= DBL_MAX), and the runtime side of the emitted fast step
 * (SartModel.fast_step), which the emitted do_step runs when it may (sart_fast_step.h):
 * sart_fast_rest, where it hands over to the general handling at the point where anything
 * but SART_OK appears, with its end (sart_fast_end), and the plain step's fast-path check
 * (sart_fast_step.h, SartView.fast_ok).  Everything else goes to sart_do_step_full (sart_step.c).
 *
 * Build options, for comparing the paths (the wrapper's C is compiled with them; `sacc
 * build` passes what $CC holds, so CC="cc -DSART_NO_FAST_STEP" works):
 *   -DSART_NO_FAST_STEP  plain steps run the table-driven step even when the emitter wrote
 *                        a fast step: the general path, with the same results bit for bit.
 *   -DSART_STEP_STATS    counts the steps that entered the fast step and those that took
 *                        any other path, read with sart_step_stats (exported, for tests);
 *                        without it the counting costs nothing, as it is not there. */
#include "sart_core_impl.h"
#include "sart_fast_step.h"

int sart_fast_step_enabled(void)
{
#ifdef SART_NO_FAST_STEP
	return 0;
#else
	return sart_model.fast_step;
#endif
}

#ifdef SART_STEP_STATS
#define COUNT(w, which) ((w)->which++)
void sart_count_fast_step(void *instance)
{
	SartWrapper *w = instance;
	COUNT(w, steps_fast);
}

/* The counts since instantiation: counts[0] fast steps entered, counts[1] other steps. */
__attribute__((visibility("default"))) void sart_step_stats(void *instance,
                                                            unsigned long counts[2]);
void sart_step_stats(void *instance, unsigned long counts[2])
{
	const SartWrapper *w = instance;
	counts[0] = w->steps_fast;
	counts[1] = w->steps_general;
}
#else
#define COUNT(w, which) ((void)0)
#endif

/* A fast step's do_step from the point where something other than SART_OK appeared: the rest
 * of do_step(f, t, H) as sart_do_step would run it, MapIn having run and f's Real input
 * flags cleared (flush_real clears them all before it checks the values).  stage 0: nothing
 * called yet (a non-finite input, or no direct route); 1: the set gave status; 2: the step
 * gave status; 3: the step was OK and the get gave status (0: an output not finite).
 * Returns the step f took, as sart_do_step does. */
static SART_COLD double fast_rest(SartWrapper *w, unsigned char *s, unsigned f, double t,
                                  double H, int stage, int status)
{
	const SartPorts *pi = &sart_model.inners[f].in[SART_REAL];
	const SartPorts *po = &sart_model.inners[f].out[SART_REAL];
	SartInner *in = w->inner[f];
	double reached = t + H;
	SartStatus st = SART_OK;
	w->map_e = t - w->last[f];
	switch (stage) {
	case 0: {
		const double *u = sart_reals(s, pi->values);
		if (!sart_all_finite(u, pi->n)) {
			sart_bad_input(w, f, pi, u);
			return 0.0;
		}
		if (pi->n)
			sart_check_inner(w, sart_inner_set_real(in, pi->vr, pi->n, u), f,
			                 "setting the inputs");
		if (sart_has_failed(w))
			return 0.0;
		st = sart_inner_do_step(in, t, H, 0, &reached);
		break;
	}
	case 1:
		sart_check_inner(w, sart_inner_direct_status(in, SART_DIRECT_SET_REAL, status, t, H, NULL),
		                 f, "setting the inputs");
		if (sart_has_failed(w))
			return 0.0;
		st = sart_inner_do_step(in, t, H, 0, &reached);
		break;
	case 2:
		st = sart_inner_direct_status(in, SART_DIRECT_DO_STEP, status, t, H, &reached);
		break;
	default: {
		const double *y = sart_reals(s, po->values);
		if (status) {
			sart_check_inner(w, sart_inner_direct_status(in, SART_DIRECT_GET_REAL, status, t, H,
			                                             NULL), f, "reading the outputs");
			if (sart_has_failed(w))
				return 0.0;
		}
		if (!sart_all_finite(y, po->n)) {
			sart_bad_output(w, f, po, y);
			return 0.0;
		}
		sart_step_map_out(w, s, f, t, H, reached);
		return H;
	}
	}
	return sart_after_inner_step(w, s, f, t, H, st, reached);
}

/* The fast step sets nothing of the step before it hands over (the usual step has no use
 * for it): the importer's t and the step's start are set here, as the plain step sets them
 * before the general path's In. */
int sart_fast_rest(SartWrapper *w, unsigned f, int stage, int status)
{
	double t = w->route.t, H = w->route.H;
	unsigned char *s = w->storage;
	w->time = t;
	sart_begin_step(w, t, H);
	w->route.taken = fast_rest(w, s, f, t, H, stage, status);
	return 0;
}

SartStatus sart_fast_end(SartWrapper *w, double taken)
{
	return sart_end_step(w, w->route.t, w->route.H, taken, 0, w->host.skin->do_step);
}

/* The emitted fast_do_step_<inner> for any inner f, from the model's tables (the fast step
 * in table form, which writes no function per inner): f's Real input flags cleared (MapIn
 * has run), then the same calls and checks in the same order. */
int sart_fast_do_step(SartWrapper *w, void *sp, SartFastRoute *route, unsigned f)
{
	const SartPorts *pi = &sart_model.inners[f].in[SART_REAL];
	const SartPorts *po = &sart_model.inners[f].out[SART_REAL];
	const SartInnerDirect *d = route->direct[f];
	unsigned char *s = sp;
	SartStatus st;
	if (pi->n)
		memset(s + pi->assigned, 0, pi->n);
	if (!sart_all_finite(sart_reals(s, pi->values), pi->n) || !sart_direct_ready(d))
		return sart_fast_rest(w, f, 0, 0);
	if (pi->n) {
		st = sart_direct_set_real(d, pi->vr, pi->n, sart_reals(s, pi->values));
		if (st != SART_OK)
			return sart_fast_rest(w, f, 1, st);
	}
	st = sart_direct_do_step(d, route->t, route->H);
	if (st != SART_OK)
		return sart_fast_rest(w, f, 2, st);
	if (po->n) {
		st = sart_direct_get_real(d, po->vr, po->n, sart_reals(s, po->values));
		if (st != SART_OK)
			return sart_fast_rest(w, f, 3, st);
		if (!sart_all_finite(sart_reals(s, po->values), po->n))
			return sart_fast_rest(w, f, 3, 0);
	}
	route->last[f] = route->t + route->H;
	return 1;
}

/* The usual step without the emitted fast step (none, -DSART_NO_FAST_STEP, or an emitted
 * step that left it to this), checked with a few comparisons (see the top of this file):
 * the table-driven step.  Anything else takes sart_do_step_full, which checks and reports it
 * all.  The importer's t is the time from now on, as on the general path. */
SartStatus sart_core_do_step(void *instance, double t, double H, int no_set_prior)
{
	SartWrapper *w = instance;
	if (w && w->magic == WRAPPER_MAGIC && w->plain &&
	    sart_at_time(w->time, t) && H > 0.0 && H <= DBL_MAX) {
		w->time = t;
		COUNT(w, steps_general);
		return sart_run_step(w, t, H, 0, w->host.skin->do_step);
	}
	return sart_do_step_full(instance, t, H, no_set_prior);
}

/* The outcome of a whole step written first (the instance's time is then the importer's t
 * plus H, bit for bit), so that the usual step is a jump into the model's step (the emitted
 * one, or sart_core_do_step); a step that does not end whole reaches sart_step_other, which
 * writes the rest through the pointers kept in the instance for this call. */
SartStatus sart_core_do_step_early(void *instance, double t, double H, bool no_set_prior,
                                   bool *events, bool *stop, bool *early, double *last)
{
	SartWrapper *w = instance;
	*events = false;
	*stop = false;
	*early = false;
	*last = t + H;
	if (w && w->magic == WRAPPER_MAGIC) {
		w->cut_early = early;
		w->cut_last = last;
	}
	return sart_model.do_step(instance, t, H, no_set_prior);
}
