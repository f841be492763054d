/* sart_master_probe.c — the state probe (sart_probe_state): whether setting an FMU's
 * state really restores it, tried on a fresh instance before a run that rolls back
 * (master_probe_all) and by `sacc inspect --probe-state`. */
#include "sart_master_internal.h"
#include "sart_numfmt.h"

#include <stdlib.h>
#include <string.h>

/* Reads every Real, Integer and Boolean output of in into v (nvars entries, NaN elsewhere). */
static SartStatus probe_outputs(SartInner *in, const SartFmu *fm, double *v)
{
	for (int i = 0; i < fm->nvars; i++) {
		const SartVar *x = &fm->vars[i];
		v[i] = NAN;
		if (x->causality != SART_CAUS_OUTPUT || x->type == SART_OTHER)
			continue;
		int iv = 0;
		SartStatus st = get_values(in, x->type, &x->vr, 1, &v[i], &iv);
		if (!ok(st))
			return st;
		if (x->type != SART_REAL)
			v[i] = iv;
	}
	return SART_OK;
}

static SartStatus probe_step(SartInner *in, int f, double t, double h,
                             void (*on_step)(void *, int, double, double, int), void *env)
{
	double r = t + h;
	if (on_step)
		on_step(env, f, t, h, 0);
	SartStatus st = sart_inner_do_step(in, t, h, 1, &r);
	if (on_step)
		on_step(env, f, t, h, 1);
	return st;
}

int sart_probe_state(const SartScenario *sc, int f, double start, double h,
                     const SartMasterOptions *o, char *msg, size_t size)
{
	void (*on_step)(void *, int, double, double, int) = o ? o->on_step : NULL;
	void *step_env = o ? o->step_env : NULL;
	const SartFmu *fm = &sc->fmus[f];
	SartInner *in = NULL;
	void *snap = NULL;
	double *a = calloc((size_t)fm->nvars + 1, sizeof *a);
	double *b = calloc((size_t)fm->nvars + 1, sizeof *b);
	double *a1 = calloc((size_t)fm->nvars + 1, sizeof *a1);
	double t1 = start + h, t2 = t1 + h;
	int rc = -1, compared = 0;
	if (!(fm->caps & SART_CAP_GET_SET_STATE)) {
		put(msg, size, "%s does not claim canGetAndSetFMUstate", fm->name);
		goto done;
	}
	if (!a || !b || !a1) {
		put(msg, size, "out of memory");
		goto done;
	}
	const SartFmuTypes *ty = o && o->fmu_types ? &o->fmu_types[f] : NULL;
	const SartMeConfig none = {0};
	const SartSeConfig no_clocks = {0};
	SartInnerConfig cfg = {fm->name, fm->dir, fm->model_identifier, fm->version,
	                       fm->caps & SEAM_CAPS,
	                       NULL, NULL, ty ? ty->types : NULL, ty ? ty->n : 0,
	                       ty ? ty->elements : NULL, ty ? ty->nelements : 0,
	                       o && o->fmu_me ? o->fmu_me[f] : none,
	                       o && o->fmu_se ? o->fmu_se[f] : no_clocks};
	/* the run's own loader: an FMU run out of process is probed out of process too, so
	 * that a crash in the probe is a failed call, as in the run */
	if (!ok(o && o->load_inner ? o->load_inner(o->load_env, &cfg, &in)
	                           : sart_inner_load(&cfg, &in))) {
		put(msg, size, "%s: cannot load the FMU", fm->name);
		goto done;
	}
	if (!ok(sart_inner_instantiate(in, fm->guid, 0)))
		goto call_failed;
	for (int i = 0; i < sc->nstarts; i++) {
		SartRef r = sc->starts[i].ref;
		if (r.fmu != f || !valid_ref(sc, r) || var_of(sc, r)->type == SART_OTHER)
			continue;
		const SartVar *v = var_of(sc, r);
		double x = sc->starts[i].value;
		int iv = to_int(v->type, x);
		if (!ok(set_values(in, v->type, &v->vr, 1, &x, &iv)))
			goto call_failed;
	}
	SartExperiment ex = {0, 0.0, start, 0, 0.0};
	if (!ok(sart_inner_enter_init(in, &ex)) || !ok(sart_inner_exit_init(in)))
		goto call_failed;
	if (!ok(probe_step(in, f, start, h, on_step, step_env)) ||
	    !ok(sart_inner_get_state(in, &snap)) || !ok(probe_outputs(in, fm, a1)) ||
	    !ok(probe_step(in, f, t1, h, on_step, step_env)) || !ok(probe_outputs(in, fm, a)))
		goto call_failed;
	rc = 1;
	if (!ok(sart_inner_set_state(in, snap)) || !ok(probe_outputs(in, fm, b)))
		goto call_failed;
	compared = 1;
	for (int i = 0; i < fm->nvars; i++) {
		if (memcmp(&a1[i], &b[i], sizeof a1[i]) == 0)
			continue;
		put(msg, size, "%s.%s is %s at t = %s when its state is got, but %s once "
		    "that state is set again (at t = %s): %s did not restore it",
		    fm->name, fm->vars[i].name, SART_NUM(a1[i]), SART_NUM(t1), SART_NUM(b[i]),
		    SART_NUM(t2),
		    master_set_state_call(fm->version));
		goto done;
	}
	compared = 0;
	if (!ok(probe_step(in, f, t1, h, on_step, step_env)) || !ok(probe_outputs(in, fm, b)))
		goto call_failed;
	compared = 1;
	for (int i = 0; i < fm->nvars; i++) {
		if (memcmp(&a[i], &b[i], sizeof a[i]) == 0)
			continue;
		put(msg, size, "%s.%s is %s at t = %s, but %s after its state at t = %s "
		    "was set and the step to t = %s redone: %s did not restore the state",
		    fm->name, fm->vars[i].name, SART_NUM(a[i]), SART_NUM(t2), SART_NUM(b[i]),
		    SART_NUM(t1), SART_NUM(t2),
		    master_set_state_call(fm->version));
		goto done;
	}
	rc = 0;
	put(msg, size, "state restore works: %s's outputs at t = %s are the same bit for bit "
	    "after its state at t = %s was set and the step redone", fm->name, SART_NUM(t2),
	    SART_NUM(t1));
	goto done;
call_failed:
	put(msg, size, "%s%s%s", rc == 1 ? "after its state was set: " : "", sart_inner_message(in),
	    rc == 1 ? "" : " (the probe is inconclusive)");
done:
	if (snap)
		sart_inner_free_state(in, &snap);
	if (in && compared)
		sart_inner_terminate(in);
	sart_inner_free(in);
	free(a);
	free(b);
	free(a1);
	return rc;
}
