/* sart_master_stepping.c — how one macro step is taken: every pass over it (iterations
 * with rollback: every FMU restored to t_n between passes), a discarded step redone
 * shorter from the saved states, step-size control (an error estimate by step doubling or
 * by prediction, the controller, rejection and retry) and event location (regula falsi on
 * the step size over a sign change of the event indicator).  sart_master_run calls
 * master_macro_step (fixed steps) or master_controlled_step for each step. */
#include "sart_master_internal.h"
#include "sart_numfmt.h"

#include <string.h>

/* A step redone shorter until it has no length: the FMU whose discard ended it where it
 * began cannot advance from there. */
static int stuck(Master *m, double t)
{
	if (m->discard_fmu >= 0)
		return master_fail(m, "at t = %s: %s discarded the step at its start (its last "
		                   "successful time is t); the simulation cannot advance",
		                   SART_NUM(t),
		                   m->sc->fmus[m->discard_fmu].name);
	return master_fail(m, "at t = %s: an FMU discarded the step at its start; the simulation "
	                   "cannot advance", SART_NUM(t));
}

static int snapshot_all(Master *m, double t)
{
	for (int f = 0; f < m->sc->nfmus; f++)
		if (!ok(sart_inner_get_state(m->f[f].in, &m->f[f].snap)))
			return master_fail_call(m, f, t);
	return 0;
}

static int restore_all(Master *m, double t)
{
	m->res->rollbacks++;
	for (int f = 0; f < m->sc->nfmus; f++)
		if (!ok(sart_inner_set_state(m->f[f].in, m->f[f].snap)))
			return master_fail_call(m, f, t);
	return 0;
}

/* One pass over the macro step: the fast path's when the run allows it (m->plain, set
 * only for algorithms whose row has fast_path; m->plain_gs, Gauss-Seidel's), else the
 * algorithm's.  Returns 0, 1 (some
 * FMU discarded; *short_end is the smallest time reached) or -1 (failed). */
static int run_pass(Master *m, int pass, double t, double h, double *short_end)
{
	if (pass == 0 && m->plain)
		return master_plain_pass(m, t, h, short_end);
	if (pass == 0 && m->plain_gs)
		return master_plain_gs_pass(m, t, h, short_end);
	return m->alg->pass(m, pass, t, h, short_end);
}

/* Every pass over one step from t by h.  Returns 0, 1 (an FMU discarded: *short_end is
 * the smallest time reached) or -1 (failed, reported). */
static int all_passes(Master *m, double t, double h, double *short_end)
{
	int st = 0;
	for (int pass = 0; pass <= m->o->iterations && st == 0; pass++) {
		if (pass > 0) {
			m->res->iterations++;
			if (restore_all(m, t))
				return -1;
		}
		st = run_pass(m, pass, t, h, short_end);
	}
	return st;
}

double sart_step_propose(double h, double err, double tol, int p, double safety,
                         double shrink, double grow)
{
	if (isnan(err))
		return h * shrink;
	if (!(err > 0))
		return h * grow;
	double f = safety * pow(tol / err, 1.0 / (p + 1));
	if (!(f >= shrink)) /* NaN too */
		f = shrink;
	if (f > grow)
		f = grow;
	return h * f;
}

/* The error measure of sart_master.h between two values of a connection. */
static double deviation(double a, double b)
{
	return fabs(a - b) / (fabs(b) > 1 ? fabs(b) : 1);
}

static void swap_arrays(double **a, double **b)
{
	double *tmp = *a;
	*a = *b;
	*b = tmp;
}

static int step_event(Master *m, double t, double *end);

/* One step with step-size control from t towards *end (the proposal, already clamped to
 * the bounds and the stop time): attempts, error estimates, rejections; on return *end
 * is where the accepted step ended. */
int master_controlled_step(Master *m, double t, double *end)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	int p = o->approx == SART_QUADRATIC ? 3 : o->approx == SART_HOLD ? 1 : 2;
	int doubling = o->step_control == SART_STEP_DOUBLING;
	size_t bytes = (size_t)m->nsig * sizeof *m->now;
	double h = *end - t;
	if (snapshot_all(m, t))
		return 1;
	int have_prev = m->have_prev;
	double span = m->t_prev_span;
	for (int attempt = 0;; attempt++) {
		double short_end = t + h, err = 0;
		if (!(h > 0))
			return stuck(m, t);
		m->discard_fmu = -1;
		if (attempt > 1000)
			return master_fail(m, "at t = %s: the step was rejected %d times",
			                   SART_NUM(t), attempt);
		int st = all_passes(m, t, h, &short_end);
		if (st == 0 && doubling) {
			memcpy(m->yfull, m->next, bytes);
			memcpy(m->save_now, m->now, bytes);
			memcpy(m->save_prev, m->prev, bytes);
			if (restore_all(m, t))
				return 1;
			st = all_passes(m, t, h / 2, &short_end);
			if (st == 0) {
				/* t + H/2 becomes a communication point the second half extrapolates from */
				swap_arrays(&m->prev, &m->now);
				swap_arrays(&m->now, &m->next);
				memcpy(m->next, m->now, bytes);
				m->t_prev_span = h / 2;
				m->have_prev = 1;
				st = all_passes(m, t + h / 2, h / 2, &short_end);
			}
			for (int c = 0; st == 0 && c < sc->nconns; c++) {
				int sg = m->conn_sig[c];
				double d = deviation(m->yfull[sg], m->next[sg]);
				err = d > err || isnan(d) ? d : err;
			}
		} else if (st == 0) {
			for (int c = 0; c < sc->nconns; c++) {
				const SartConnection *cn = &sc->conns[c];
				double d = deviation(m->pred[c],
				                     sart_conn_value(cn, m->next[m->conn_sig[c]]));
				err = d > err || isnan(d) ? d : err;
			}
		}
		if (st < 0)
			return 1;
		int small = h <= m->min_step * (1 + 1e-9);
		if (st == 0 && (err <= m->tol || small)) {
			m->res->forced += err > m->tol;
			*end = t + h;
			m->last_span = doubling ? h / 2 : h;
			m->h_next = sart_step_propose(h, err, m->tol, p, m->safety, m->shrink, m->grow);
			if (m->ind_sig >= 0 && !doubling) {
				/* event location (prediction control only: doubling has moved t_n's
				 * signals); the steps of the search are shorter than the accepted one */
				int ev = step_event(m, t, end);
				if (ev < 0)
					return 1;
				if (ev > 0)
					m->last_span = *end - t;
			}
			return 0;
		}
		/* rejected: every FMU and every signal back to t_n */
		m->res->rejected++;
		if (restore_all(m, t))
			return 1;
		if (doubling) {
			memcpy(m->now, m->save_now, bytes);
			memcpy(m->prev, m->save_prev, bytes);
			m->have_prev = have_prev;
			m->t_prev_span = span;
		}
		if (st == 1)
			h = short_end - t;
		else
			h = sart_step_propose(h, err, m->tol, p, m->safety, m->shrink, m->grow);
		if (h < m->min_step && st == 0)
			h = m->min_step;
	}
}

/* The state probe of every FMU (sart_probe_state), once per run, before the first
 * rollback: an FMU whose state is shown not to be restored when set is refused,
 * since every rolled-back step would silently be wrong.  An inconclusive probe (a call
 * before the restore failed) passes: the run itself reports such a call. */
int master_probe_all(Master *m, const char *why)
{
	char msg[768];
	if (m->probed)
		return 0;
	m->probed = 1;
	for (int f = 0; f < m->sc->nfmus; f++)
		if (sart_probe_state(m->sc, f, m->o->start, m->o->step, m->o, msg, sizeof msg) == 1)
			return master_fail(m, "%s claims canGetAndSetFMUstate, but its state cannot be "
			                   "restored (state probe: %s); %s", m->sc->fmus[f].name, msg, why);
	return 0;
}

/* Every FMU from t towards *end (from the saved states when it is redone); on return *end
 * is where the step ended, shorter when an FMU discarded. */
static int attempt_step(Master *m, double t, double *end)
{
	for (int attempt = 0;; attempt++) {
		double h = *end - t, short_end = *end;
		if (!(h > 0))
			return stuck(m, t);
		m->discard_fmu = -1;
		if (attempt > 100)
			return master_fail(m, "at t = %s: the step was rejected %d times",
			                   SART_NUM(t), attempt);
		int st = all_passes(m, t, h, &short_end);
		if (st < 0)
			return 1;
		if (st == 0)
			return 0;
		/* rejected: every FMU back to t_n, redo with H := the smallest step taken */
		m->res->rejected++;
		if (master_probe_all(m, "redoing a discarded step shorter needs it"))
			return 1;
		if (restore_all(m, t))
			return 1;
		*end = short_end;
	}
}

/* Whether the indicator's sign changed from z0 to z1 (a zero at z1 is the crossing itself;
 * a zero at z0 was the last one, located already). */
static int crossed(double z0, double z1)
{
	return (z0 < 0 && z1 >= 0) || (z0 > 0 && z1 <= 0);
}

/* Event location over the step from t to *end, whose end value z1 of the indicator has
 * another sign than its value z0 at t: regula falsi on the step size with the Illinois
 * modification (the end kept twice in a row has its value halved), each trial a step from
 * t after every FMU was restored, each trial at least tol/2 inside the bracket, until the
 * bracket [a, b] around the crossing is at most tol long.  The step accepted ends at b, the
 * first point known to lie after the crossing (or on it), and so within tol of it. */
static int locate_event(Master *m, double t, double z0, double z1, double *end)
{
	double tol = m->event_tol;
	double a = 0, za = z0, b = *end - t, zb = z1;
	int side = 0, at_b = 1;
	for (int trial = 0; b - a > tol; trial++) {
		if (trial >= 200)
			return master_fail(m, "at t = %s: the crossing of %s.%s was not bracketed within "
			                   "%s in %d trials (last bracket [%s, %s])", SART_NUM(t),
			                   m->sc->fmus[m->o->event_indicator.fmu].name,
			                   var_of(m->sc, m->o->event_indicator)->name, SART_NUM(tol),
			                   trial,
			                   SART_NUM(t + a), SART_NUM(t + b));
		double c = a - za * (b - a) / (zb - za);
		if (!(c > a && c < b))
			c = (a + b) / 2;
		if (c < a + tol / 2)
			c = a + tol / 2;
		if (c > b - tol / 2)
			c = b - tol / 2;
		double tc = t + c;
		m->res->event_trials++;
		if (restore_all(m, t) || attempt_step(m, t, &tc))
			return 1;
		c = tc - t; /* shorter if an FMU discarded */
		double zc = m->next[m->ind_sig];
		if (zc == 0) {
			b = c;
			at_b = 1;
			break;
		}
		if ((zc < 0) == (za < 0)) {
			/* no crossing before c: the bracket's start moves up */
			a = c;
			za = zc;
			if (side < 0)
				zb /= 2;
			side = -1;
			at_b = 0;
		} else {
			b = c;
			zb = zc;
			if (side > 0)
				za /= 2;
			side = 1;
			at_b = 1;
		}
	}
	if (!at_b) {
		double tb = t + b;
		m->res->event_trials++;
		if (restore_all(m, t) || attempt_step(m, t, &tb))
			return 1;
		b = tb - t;
	}
	m->res->events++;
	*end = t + b;
	return 0;
}

/* The event indicator over the step just taken from t to *end: an event when it ended on
 * the crossing; located (locate_event, *end moved just after the crossing) when the sign
 * changed.  Returns 0 (nothing located), 1 (located) or -1 (failed, reported). */
static int step_event(Master *m, double t, double *end)
{
	double z0 = m->now[m->ind_sig], z1 = m->next[m->ind_sig];
	if (z1 == 0 && z0 != 0) {
		m->res->events++; /* the step ended on the crossing */
		return 0;
	}
	if (!crossed(z0, z1))
		return 0;
	return locate_event(m, t, z0, z1, end) ? -1 : 1;
}

/* One macro step from t towards *end; on return *end is where it ended (shorter after a
 * rejection, or just after an event located in it). */
int master_macro_step(Master *m, double t, double *end)
{
	if (m->snapshots && snapshot_all(m, t))
		return 1;
	m->last_span = 0;
	if (attempt_step(m, t, end))
		return 1;
	return m->ind_sig >= 0 && step_event(m, t, end) < 0;
}

