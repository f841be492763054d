/* sart_step.c — the general external step: every check of t and H, the call log, the
 * snapshot a rejected step returns to, input derivatives, and what a step that was not
 * accepted whole comes to (a failure, an invalid step, a rejection).  The plain step that
 * most steps are, and the emitted fast step, are in sart_fast_step.c; the step itself (In;
 * Ctrl; Out) is sart_run_step in sart_core_impl.h, which both inline. */
#include "sart_core_impl.h"
#include "sart_numfmt.h"

/* The pending input derivatives: u + du H, for a reactive wrapper reads its inputs at the
 * end of the step. */
static SartStatus apply_derivatives(SartWrapper *w, double H, const SartCall *call)
{
	if (!w->du_pending)
		return SART_OK;
	for (unsigned k = 0; k < sart_model.nreal_inputs; k++) {
		SartVr vr = sart_model.real_inputs[k];
		if (!w->du_set[k])
			continue;
		if (vr >= sart_model.nvr[SART_REAL]) {
			sart_wlog(w, SART_ERROR, "%s: Real input %u is not a Real variable", call->name,
			          vr);
			return SART_ERROR;
		}
		*sart_reals(w->storage, sart_model.vars[SART_REAL][vr].offset) += w->du[k] * H;
	}
	return SART_OK;
}

/* The snapshot a rejected step returns to: Storage, runtime data and the inner states. */
static SartStatus snapshot(SartWrapper *w, const SartCall *call)
{
	memcpy(w->snap_storage, w->storage, sart_model.storage_size);
	memcpy(w->snap_last, w->last, sart_model.ninners * sizeof *w->last);
	memcpy(w->snap_is_set, w->is_set, w->is_set_off[SART_NTYPES]);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_get_state(w->inner[f], &w->snap_inner[f]);
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: cannot save the state of inner FMU '%s': %s", call->name,
			          sart_model.inners[f].name, sart_inner_message(w->inner[f]));
			return st;
		}
	}
	return SART_OK;
}

static SartStatus restore(SartWrapper *w, const SartCall *call)
{
	memcpy(w->storage, w->snap_storage, sart_model.storage_size);
	memcpy(w->last, w->snap_last, sart_model.ninners * sizeof *w->last);
	memcpy(w->is_set, w->snap_is_set, w->is_set_off[SART_NTYPES]);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus st = sart_inner_set_state(w->inner[f], w->snap_inner[f]);
		if (st >= SART_ERROR) {
			sart_wlog(w, st, "%s: cannot restore the state of inner FMU '%s': %s",
			          call->name, sart_model.inners[f].name,
			          sart_inner_message(w->inner[f]));
			return st;
		}
	}
	return SART_OK;
}

static SartStatus end_other(SartWrapper *w, double t, double H, SartStatus st, double Ht,
                            int snap, const SartCall *call)
{
	sart_clear_stacks(w);
	if (st >= SART_ERROR) {
		sart_wlog(w, st, "%s: the step from t = %s failed", call->name, SART_NUM(t));
		return sart_settle(w, st);
	}
	if (!sart_valid_step(Ht, t, H)) {
		sart_wlog(w, SART_ERROR, "%s: the control rules returned the step %s, not in "
		          "(0, H = %s]", call->name, SART_NUM(Ht), SART_NUM(H));
		return sart_settle(w, SART_ERROR);
	}
	w->last_ok = t + Ht;
	if (snap) {
		SartStatus rs = restore(w, call);
		if (rs >= SART_ERROR)
			return sart_settle(w, rs);
		w->g_dirty = w->snap_g_dirty;
		w->g_valid = w->snap_g_valid;
		sart_wlog(w, SART_DISCARD, "%s: the control rules took %s of the step %s "
		          "from t = %s; the state at t is kept", call->name, SART_NUM(Ht),
		          SART_NUM(H), SART_NUM(t));
	} else {
		sart_set_phase(w, SART_PHASE_STEP_FAILED);
		sart_wlog(w, SART_DISCARD, "%s: the control rules took %s of the step %s "
		          "from t = %s; the inner FMUs cannot return to t", call->name,
		          SART_NUM(Ht), SART_NUM(H), SART_NUM(t));
	}
	return SART_DISCARD;
}

/* For sart_core_do_step_early: a rejected step from t, back at t, is taken again by the step
 * the rules took, once, when the instance may stop early: with the same inputs, that step
 * ends where they found their instant.  When the cut depends on the inputs (a crossing of
 * an input, which the importer set for t + H), the retry may be cut again; the rejection
 * then stands, at t, with the new last successful time.  Then *early and *last. */
static SartStatus cut(SartWrapper *w, double t, SartStatus st)
{
	bool *early = w->cut_early;
	double *last = w->cut_last;
	w->cut_early = NULL;
	w->cut_last = NULL;
	if (st == SART_DISCARD && w->stop_early && w->phase == SART_PHASE_STEP) {
		st = sart_core_do_step(w, t, w->last_ok - t, 0);
		*early = st <= SART_WARNING;
	}
	*last = w->last_ok;
	return st;
}

/* The step the one inner ended early at t + Ht (w->early_t): the wrapper ends there too,
 * as its rules passed that step up (see inner_may_return_early in the emitter), and
 * answers an early return.  Out runs for the shorter step, as it would for a whole one. */
static SartStatus keep_early(SartWrapper *w, double t, double Ht)
{
	bool *early = w->cut_early;
	double *last = w->cut_last;
	w->cut_early = NULL;
	w->cut_last = NULL;
	w->early_t = NAN;
	sart_model.out(w, w->storage, t, Ht);
	w->in_map = 0;
	SartStatus st = sart_run_outcome(w);
	if (st >= SART_ERROR)
		return sart_settle(w, st);
	sart_commit_step(w, t, Ht);
	if (fabs(w->early_at - w->time) <= sart_time_tolerance(w->time))
		w->time = w->last_ok = w->early_at; /* where the inner stands, not t + Ht rounded */
	*early = true;
	*last = w->time;
	return st;
}

SART_COLD SartStatus sart_step_other(SartWrapper *w, double t, double H, SartStatus st,
                                     double Ht, int snap, const SartCall *call)
{
	if (w->early_t == t && w->cut_last && st < SART_ERROR && sart_valid_step(Ht, t, H))
		return keep_early(w, t, Ht);
	w->early_t = NAN;
	st = end_other(w, t, H, st, Ht, snap, call);
	return w->cut_last ? cut(w, t, st) : st;
}

SART_COLD SartStatus sart_do_step_full(void *instance, double t, double H, int no_set_prior)
{
	SartWrapper *w = instance;
	const SartCall *call = w && w->magic == WRAPPER_MAGIC ? w->host.skin->do_step : NULL;
	w = call ? sart_core_enter(instance, call) : NULL;
	if (!w)
		return SART_ERROR;
	if (sart_core_calls_logged(w))
		sart_core_log_call(w, "%s(t = %s, H = %s, noSetFMUStatePriorToCurrentPoint = "
		                   "%d)", call->name, SART_NUM(t), SART_NUM(H), no_set_prior);
	if (!isfinite(t) || !isfinite(H) || !(H > 0.0)) {
		sart_wlog(w, SART_ERROR, "%s: invalid communication point %s or step size %s",
		          call->name, SART_NUM(t), SART_NUM(H));
		return SART_ERROR;
	}
	if (fabs(t - w->time) > sart_time_tolerance(w->time)) {
		sart_wlog(w, SART_ERROR, "%s: communication point %s is not the instance's "
		          "time %s", call->name, SART_NUM(t), SART_NUM(w->time));
		return SART_ERROR;
	}
	/* The importer's t is the time from now on: kept as the sum of its own steps, the
	 * instance's could drift from it by rounding (after retries that land on proposed
	 * times), and a rejection's last successful time t + H~ would then lie past the
	 * importer's t + H. */
	w->time = t;
	int snap = w->can_snapshot;
	if (snap) {
		w->snap_g_dirty = w->g_dirty;
		w->snap_g_valid = w->g_valid;
		SartStatus st = snapshot(w, call);
		if (st >= SART_ERROR)
			return sart_settle(w, st);
	}
	if (apply_derivatives(w, H, call) >= SART_ERROR)
		return sart_settle(w, SART_ERROR);
#ifdef SART_STEP_STATS
	w->steps_general++;
#endif
	return sart_run_step(w, t, H, snap, call);
}
