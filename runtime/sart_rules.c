/* sart_rules.c — what the emitted rule parts call (sart_wrapper.h): do_step with the
 * setting of an inner's inputs and the reading of its outputs through the seam, the
 * save_state stacks, the probe get_next_time_step, elapsed time, is_set and discard, and the
 * small helpers; plus Init's and G's pass over the inners.  A call that fails records the
 * failure (sart_core_impl.h) and returns a harmless value. */
#include "sart_core_impl.h"
#include "sart_numfmt.h"

#include <limits.h>
#include <stdlib.h>

SART_COLD void sart_bad_input(SartWrapper *w, unsigned f, const SartPorts *p, const double *v)
{
	unsigned k = 0;
	while (k + 1 < p->n && isfinite(v[k]))
		k++;
	sart_fail(w, SART_ERROR, "[wrapper] rule sets %s.%s to %s", sart_model.inners[f].name,
	          p->names[k], isnan(v[k]) ? "nan" : v[k] > 0 ? "inf" : "-inf");
}

/* flush_real when some Real input was not assigned: the assigned ones are gathered into
 * the wrapper's buffers (k0 of them, before the first gap, already taken by the caller). */
static SART_COLD void flush_real_some(SartWrapper *w, unsigned char *s, unsigned f,
                                      unsigned k0)
{
	const SartPorts *p = &sart_model.inners[f].in[SART_REAL];
	unsigned char *assigned = s + p->assigned;
	const double *v = sart_reals(s, p->values);
	unsigned n = 0;
	for (unsigned k = 0; k < p->n; k++) {
		if (k >= k0 && !assigned[k])
			continue;
		assigned[k] = 0;
		if (!isfinite(v[k])) {
			sart_bad_input(w, f, p, v);
			return;
		}
		w->vrbuf[n] = p->vr[k];
		w->rbuf[n] = v[k];
		n++;
	}
	if (n)
		sart_check_inner(w, sart_inner_set_real(w->inner[f], w->vrbuf, n, w->rbuf), f,
		                 "setting the inputs");
}

/* Sets the Real inputs of inner f that rules assigned, clearing their flags as it takes them
 * (a failure from here on fails the whole call, so no flag has to survive it).  Every input
 * assigned is the usual case, and then the Storage's own array goes as it is, checked to be
 * finite in one pass of multiplications by zero (0 * x is 0 exactly for every finite x, NaN
 * for NaN and the infinities): a single branch for the whole group. */
static HOT_INLINE int flush_real(SartWrapper *w, unsigned char *s, unsigned f,
                                 const SartPorts *p)
{
	const unsigned np = p->n;
	unsigned char *assigned = s + p->assigned;
	const double *v = sart_reals(s, p->values);
	double zero = 0.0;
	unsigned k;
	for (k = 0; k < np && assigned[k]; k++) {
		assigned[k] = 0;
		zero += 0.0 * v[k];
	}
	if (k < np) {
		flush_real_some(w, s, f, k);
		return !sart_has_failed(w);
	}
	if (zero != 0.0) {
		sart_bad_input(w, f, p, v);
		return 0;
	}
	SartStatus st = sart_inner_set_real(w->inner[f], p->vr, np, v);
	if (st != SART_OK) {
		sart_check_inner(w, st, f, "setting the inputs");
		return !sart_has_failed(w);
	}
	return 1;
}

/* The same for Integer and Boolean inputs (Booleans normalised to 0 or 1), always gathered:
 * they are rare. */
static SART_COLD void flush_ints(SartWrapper *w, unsigned char *s, unsigned f, int t)
{
	const SartPorts *p = &sart_model.inners[f].in[t];
	unsigned char *assigned = s + p->assigned;
	const int *v = sart_ints(s, p->values);
	unsigned n = 0;
	SartStatus st;
	for (unsigned k = 0; k < p->n; k++) {
		if (!assigned[k])
			continue;
		assigned[k] = 0;
		w->vrbuf[n] = p->vr[k];
		w->ibuf[n] = t == SART_BOOLEAN ? v[k] != 0 : v[k];
		n++;
	}
	if (!n)
		return;
	if (t == SART_INTEGER)
		st = sart_inner_set_integer(w->inner[f], w->vrbuf, n, w->ibuf);
	else
		st = sart_inner_set_boolean(w->inner[f], w->vrbuf, n, w->ibuf);
	sart_check_inner(w, st, f, "setting the inputs");
}

/* Sets the inputs of inner f that rules assigned, then clears their flags: one set call per
 * type.  Returns 0 when that failed. */
static int flush_inputs(SartWrapper *w, unsigned char *s, unsigned f)
{
	const Plan *pl = &w->plan[f];
	for (unsigned i = 0; i < pl->nin; i++) {
		if (pl->in[i] == SART_REAL)
			flush_real(w, s, f, &sart_model.inners[f].in[SART_REAL]);
		else if (pl->in[i] == SART_STRING)
			sart_flush_strings(w, s, f);
		else if (pl->in[i] == SART_BINARY)
			sart_flush_binaries(w, s, f);
		else
			flush_ints(w, s, f, pl->in[i]);
	}
	return !sart_has_failed(w);
}

/* An inner FMU gave a NaN or an infinity as an output: an error at this step, naming the
 * port (docs/simulate.md, "Status handling": where it first appears).  Out of line. */
SART_COLD void sart_bad_output(SartWrapper *w, unsigned f, const SartPorts *p,
                                 const double *v)
{
	unsigned k = 0;
	while (k + 1 < p->n && isfinite(v[k]))
		k++;
	sart_fail(w, SART_ERROR, "[wrapper] reading the outputs of '%s': %s gave %s for %s.%s",
	          sart_model.inners[f].name, sart_inner_get_real_name(w->inner[f]),
	          isnan(v[k]) ? "nan" : v[k] > 0 ? "inf" : "-inf",
	          sart_model.inners[f].name, p->names[k]);
}


/* Reads the Real outputs p of inner f into the Storage with one get call, each checked to be
 * finite as flush_real checks inputs.  Returns 0 when that failed. */
static HOT_INLINE int read_real(SartWrapper *w, unsigned char *s, unsigned f,
                                const SartPorts *p)
{
	double *v = sart_reals(s, p->values);
	const unsigned n = p->n;
	SartStatus st = sart_inner_get_real(w->inner[f], p->vr, n, v);
	if (st != SART_OK) {
		sart_check_inner(w, st, f, "reading the outputs");
		if (sart_has_failed(w))
			return 0;
	}
	if (!sart_all_finite(v, n)) {
		sart_bad_output(w, f, p, v);
		return 0;
	}
	return 1;
}

/* Reads every output of inner f into the Storage, one get call per type.  Returns 0 when
 * that failed. */
static int read_outputs(SartWrapper *w, unsigned char *s, unsigned f)
{
	const Plan *pl = &w->plan[f];
	for (unsigned i = 0; i < pl->nout; i++) {
		int t = pl->out[i];
		const SartPorts *p = &sart_model.inners[f].out[t];
		SartStatus st;
		if (t == SART_REAL) {
			if (!read_real(w, s, f, p))
				return 0;
			continue;
		} else if (t == SART_STRING || t == SART_BINARY) {
			if (!(t == SART_STRING ? sart_read_strings : sart_read_binaries)(w, s, f))
				return 0;
			continue;
		} else if (t == SART_INTEGER)
			st = sart_inner_get_integer(w->inner[f], p->vr, p->n, sart_ints(s, p->values));
		else
			st = sart_inner_get_boolean(w->inner[f], p->vr, p->n, sart_ints(s, p->values));
		sart_check_inner(w, st, f, "reading the outputs");
		if (sart_has_failed(w))
			return 0;
	}
	return 1;
}

/* Sets one inner parameter from the Storage on its inner; the inner's status. */
static SartStatus set_inner_param(SartWrapper *w, const SartInnerParam *p)
{
	const void *v = w->storage + p->offset;
	SartInner *in = w->inner[p->inner];
	if (p->type == SART_REAL)
		return sart_inner_set_real(in, &p->vr, 1, v);
	if (p->type == SART_INTEGER)
		return sart_inner_set_integer(in, &p->vr, 1, v);
	if (p->type == SART_STRING) {
		const char *text = v;
		return sart_inner_set_string(in, &p->vr, 1, &text);
	}
	return sart_inner_set_boolean(in, &p->vr, 1, v);
}

void sart_push_inner_params(SartWrapper *w)
{
	if (!sart_model.ninner_params)
		return;
	sart_model.bind_params(w, w->storage, w->time, 0.0);
	for (unsigned k = 0; k < sart_model.ninner_params && !sart_has_failed(w); k++) {
		const SartInnerParam *p = &sart_model.inner_params[k];
		sart_check_inner(w, set_inner_param(w, p), p->inner, "setting a parameter");
	}
}

SartStatus sart_tune_inner_param(SartWrapper *w, SartType t, SartVr vr)
{
	for (unsigned k = 0; k < sart_model.ninner_params; k++) {
		const SartInnerParam *p = &sart_model.inner_params[k];
		if (!p->exposed || p->type != t || p->ext_vr != vr)
			continue;
		SartStatus st = set_inner_param(w, p);
		if (st >= SART_ERROR)
			sart_wlog(w, st, "inner FMU '%s' refused the parameter: %s",
			          sart_model.inners[p->inner].name, sart_inner_message(w->inner[p->inner]));
		return st;
	}
	return SART_OK;
}

/* Init's and G's pass over the inners in topological order (outside a step: H, h, dt 0). */
void sart_visit_inners(SartWrapper *w, unsigned char *s)
{
	for (unsigned i = 0; i < sart_model.norder && !sart_has_failed(w); i++) {
		unsigned f = sart_model.order[i];
		sart_model.map_in(w, s, w->time, 0.0, 0.0, 0.0);
		sart_model.couple(w, s, f);
		if (sart_has_failed(w) || !flush_inputs(w, s, f) || !read_outputs(w, s, f))
			return;
		sart_model.map_out(w, s, w->time, 0.0, 0.0, 0.0);
	}
}

/* ---- rule-level API (sart_wrapper.h) ---------------------------------------------------- */

/* Whether a rule-level call on inner f may go ahead: no earlier failure, and f exists. */
static inline int may_call(SartWrapper *w, unsigned f, const char *fn)
{
	if (sart_has_failed(w))
		return 0;
	if (f < sart_model.ninners)
		return 1;
	sart_fail(w, SART_ERROR, "[wrapper] %s: no inner FMU %u", fn, f);
	return 0;
}

/* do_step(f, ti, hi)'s MapIn, with e as f's time since its last step. */
static HOT_INLINE void step_map_in(SartWrapper *w, unsigned char *s, unsigned f, double ti,
                                   double hi)
{
	w->map_e = ti - w->last[f];
	w->in_map = 1;
	sart_model.map_in(w, s, w->step_t, w->step_H, hi, ti - w->step_t);
	w->in_map = 0;
}


/* do_step's outcomes other than SART_OK.  A discard is not a failure: f stands at
 * `*reached`; its partial step is accepted when it can get and set its state (setting it
 * takes f from stepFailed back to stepComplete).  Returns 0 on a failure. */
static SART_COLD int step_not_ok(SartWrapper *w, unsigned f, SartStatus st, double ti,
                                 double hi, double *reached)
{
	if (st == SART_DISCARD) {
		if (sart_model.inners[f].caps & SART_CAP_GET_SET_STATE) {
			sart_check_inner(w, sart_inner_get_state(w->inner[f], &w->slot[f]), f,
			                 "getting the state after a discard");
			if (!sart_has_failed(w))
				sart_check_inner(w, sart_inner_set_state(w->inner[f], w->slot[f]), f,
				                 "accepting the partial step");
		}
	} else {
		sart_check_inner(w, st, f, "do_step");
		*reached = ti + hi;
	}
	return !sart_has_failed(w);
}

/* The part of do_step after inner f stepped (status st, standing at reached): its outputs
 * read, MapOut.  Returns the step f took. */
double sart_after_inner_step(SartWrapper *w, unsigned char *s, unsigned f, double ti,
                               double hi, SartStatus st, double reached)
{
	double taken = hi;
	if (st != SART_OK) {
		if (!step_not_ok(w, f, st, ti, hi, &reached))
			return 0.0;
		if (st == SART_DISCARD)
			taken = reached - ti;
	} else if (reached != ti + hi) { /* an early return: f stands at reached */
		taken = reached - ti;
		w->early_t = w->step_t;
		w->early_at = reached;
	}
	if (!read_outputs(w, s, f))
		return 0.0;
	sart_step_map_out(w, s, f, ti, hi, reached);
	return taken;
}

/* do_step of an inner with Integer or Boolean ports. */
static SART_COLD double do_step_general(SartWrapper *w, unsigned char *s, unsigned f,
                                        double ti, double hi)
{
	double reached;
	step_map_in(w, s, f, ti, hi);
	if (!flush_inputs(w, s, f))
		return 0.0;
	SartStatus st = sart_inner_do_step(w->inner[f], ti, hi, 0, &reached);
	return sart_after_inner_step(w, s, f, ti, hi, st, reached);
}

int sart_do_step_begin(SartWrapper *w, unsigned char *s, unsigned f, double ti, double hi)
{
	if (!may_call(w, f, "do_step"))
		return 0;
	step_map_in(w, s, f, ti, hi);
	return flush_inputs(w, s, f);
}

/* The usual do_step: Real ports only, and the inner steps with SART_OK; anything else is
 * handed on at the point where it appears. */
double sart_do_step(SartWrapper *w, void *s, unsigned f, double ti, double hi)
{
	unsigned char *st_ = s;
	double reached;
	if (!may_call(w, f, "do_step"))
		return 0.0;
	const Plan *pl = &w->plan[f];
	if (!pl->only_real)
		return do_step_general(w, st_, f, ti, hi);
	step_map_in(w, st_, f, ti, hi);
	if (pl->rin && !flush_real(w, st_, f, pl->rin))
		return 0.0;
	SartStatus st = sart_inner_do_step(w->inner[f], ti, hi, 0, &reached);
	if (st != SART_OK || reached != ti + hi)
		return sart_after_inner_step(w, st_, f, ti, hi, st, reached);
	if (pl->rout && !read_real(w, st_, f, pl->rout))
		return 0.0;
	sart_step_map_out(w, st_, f, ti, hi, reached);
	return hi;
}

/* A fast step's do_step from the point where something other than SART_OK appeared: the rest
 * of do_step(f, t, H) as sart_do_step would run it, MapIn having run and f's Real input
 * flags cleared (flush_real clears them all before it checks the values).  stage 0: nothing
 * called yet (a non-finite input, or no direct route); 1: the set gave status; 2: the step
 * gave status; 3: the step was OK and the get gave status (0: an output not finite).
 * Returns the step f took, as sart_do_step does. */

static void stack_push(SartWrapper *w, unsigned f)
{
	Stack *k = &w->stacks[f];
	if (k->n == k->cap) {
		unsigned cap = k->cap ? 2 * k->cap : 4;
		Saved *items = realloc(k->items, cap * sizeof *items);
		if (!items) {
			sart_fail(w, SART_ERROR, "[wrapper] save_state(%s): out of memory",
			          sart_model.inners[f].name);
			return;
		}
		memset(items + k->cap, 0, (cap - k->cap) * sizeof *items);
		k->items = items;
		k->cap = cap;
	}
	sart_check_inner(w, sart_inner_get_state(w->inner[f], &k->items[k->n].state), f, "save_state");
	if (sart_has_failed(w))
		return;
	k->items[k->n].last = w->last[f];
	k->n++;
	w->stacked = 1;
}

void sart_save_state(SartWrapper *w, unsigned f)
{
	if (!may_call(w, f, "save_state"))
		return;
	if (!(sart_model.inners[f].caps & SART_CAP_GET_SET_STATE)) {
		sart_fail(w, SART_ERROR, "[wrapper] save_state(%s): the FMU cannot get and set its state",
		          sart_model.inners[f].name);
		return;
	}
	stack_push(w, f);
}

void sart_rollback(SartWrapper *w, unsigned f)
{
	if (!may_call(w, f, "rollback"))
		return;
	Stack *k = &w->stacks[f];
	if (!k->n) {
		sart_fail(w, SART_ERROR, "[wrapper] rollback(%s): no state was saved in this step",
		          sart_model.inners[f].name);
		return;
	}
	sart_check_inner(w, sart_inner_set_state(w->inner[f], k->items[k->n - 1].state), f, "rollback");
	if (sart_has_failed(w))
		return;
	w->last[f] = k->items[k->n - 1].last;
	k->n--;
}

double sart_get_next_time_step(SartWrapper *w, unsigned f)
{
	double reached = NAN, from;
	if (!may_call(w, f, "get_next_time_step"))
		return 0.0;
	if (!(sart_model.inners[f].caps & SART_CAP_GET_SET_STATE)) {
		sart_fail(w, SART_ERROR, "[wrapper] get_next_time_step(%s): the FMU cannot get and set its "
		          "state", sart_model.inners[f].name);
		return 0.0;
	}
	from = w->last[f];
	sart_check_inner(w, sart_inner_get_state(w->inner[f], &w->slot[f]), f, "get_next_time_step");
	if (sart_has_failed(w))
		return 0.0;
	SartStatus st = sart_inner_do_step(w->inner[f], from, SART_MAX, 0, &reached);
	if (st != SART_DISCARD)
		sart_check_inner(w, st, f, "get_next_time_step's probe step");
	if (sart_has_failed(w))
		return 0.0;
	sart_check_inner(w, sart_inner_set_state(w->inner[f], w->slot[f]), f,
	                 "get_next_time_step's restore");
	if (sart_has_failed(w))
		return 0.0;
	return st == SART_DISCARD ? reached - from : SART_MAX;
}

double sart_elapsed(SartWrapper *w, unsigned f, double t)
{
	if (!may_call(w, f, "elapsed"))
		return 0.0;
	return t - w->last[f];
}

double sart_last_execution_time(SartWrapper *w, unsigned f)
{
	if (!may_call(w, f, "last_execution_time"))
		return 0.0;
	return w->last[f];
}

double sart_e(SartWrapper *w)
{
	return w->in_map ? w->map_e : 0.0;
}

static unsigned char *is_set_mark(SartWrapper *w, SartType type, SartVr vr)
{
	if ((unsigned)type >= SART_NTYPES || vr >= sart_model.nvr[type])
		return NULL;
	return &w->is_set[w->is_set_off[type] + vr];
}

int sart_is_set(SartWrapper *w, SartType type, SartVr vr)
{
	unsigned char *m = is_set_mark(w, type, vr);
	return m ? *m : 0;
}

void sart_discard(SartWrapper *w, SartType type, SartVr vr)
{
	unsigned char *m = is_set_mark(w, type, vr);
	if (m)
		*m = 0;
}

int sart_failed(const SartWrapper *w)
{
	return sart_has_failed(w);
}

int sart_is_close(double a, double b, double rtol, double atol)
{
	double d = fabs(a - b);
	if (!(d < atol))
		return 0;
	return a == 0.0 || d / fabs(a) < rtol;
}

int sart_imin(int a, int b)
{
	return a < b ? a : b;
}

int sart_imax(int a, int b)
{
	return a > b ? a : b;
}

int sart_to_int(SartWrapper *w, double x, const char *where)
{
	if (sart_has_failed(w))
		return 0;
	if (!(x >= (double)INT_MIN && x <= (double)INT_MAX)) {
		sart_fail(w, SART_ERROR, "%s: %s does not fit an Integer", where ? where : "?",
		          SART_NUM(x));
		return 0;
	}
	return (int)x;
}

