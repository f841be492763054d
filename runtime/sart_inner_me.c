/* sart_inner_me.c — Model Exchange inners behind the seam: an FMU that only computes
 * derivatives, event indicators and event updates, stepped as if it were Co-Simulation.
 *
 * sart_inner_load puts this layer in front of the back end of an inner loaded with
 * SART_CAP_MODEL_EXCHANGE (sart_inner_me_attach): the instance then gets a table of its
 * own (SartInnerMe.ops), the back end's with the entries below in place of the step, the
 * life cycle's end of initialization, the discrete sets, and the FMU states.  The back end
 * does every FMI call (SartInnerOps.me: fmi2GetDerivatives or
 * fmi3GetContinuousStateDerivatives, ...); this file does what every version shares:
 *
 *   - the end of initialization: the event iteration, Continuous-Time Mode, the states,
 *     their nominals and the next time event read, the solver (sart_ode.h) made;
 *   - each step from t to t + h: the solver advanced event to event, each time event hit
 *     exactly, each state event (an indicator crossing from z > 0 to z <= 0 or back, located on the dense output)
 *     and each step event (fmi*CompletedIntegratorStep) handled in Event Mode, and the FMU
 *     left at t + h with the final states, so that the outputs read next are t + h's;
 *   - inputs: Reals pass through in Continuous-Time Mode; a discrete set (Integer,
 *     Boolean, String, Binary, or a Real listed in SartMeConfig.event_vrs: a tunable
 *     parameter, a discrete input, or an element of such an FMI 3.0 array set through a
 *     reference of its own) enters Event Mode first, and the next step starts with
 *     an event iteration; after any set the indicators are checked at the step's start, as
 *     an input that jumps is a discontinuity; the solver is restarted at every step;
 *   - FMU states: the FMU's own, plus the solver's memo and this layer's data, so that a
 *     step after a restore is bit for bit the one taken the first time; serialized as a
 *     versioned, checksummed header followed by the FMU's bytes.
 * CS inners never come here: the seam's hot calls are unchanged for them. */
#include "sart_inner_backend.h"
#include "sart_numfmt.h"
#include "sart_ode.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Event iterations before the discrete states are declared never to settle. */
#define ME_MAX_EVENT_ITERATIONS 1000
/* Events in a row, each within ME_BURST_WINDOW (relative to t) of the one before, before
 * the model is declared chattering: its switching outruns any integration, as a bouncing
 * ball's impacts do when nothing stops them piling up (Zeno), or a relay that switches
 * back at once.  (An indicator that is not a function of time and states is chattering
 * too: check_indicators.) */
#define ME_MAX_BURST 100
#define ME_BURST_WINDOW 1e-10
/* Events in one step of the caller's before it is refused: events further apart than the
 * window above but still so dense that the step would not end in any useful time. */
#define ME_MAX_STEP_EVENTS 1000000L
/* A stretch shorter than this (relative to t) is crossed by one Euler step, exact to
 * rounding there: a time event a rounding error away from the step's end costs one
 * evaluation of the derivatives, not a solver step's six. */
#define ME_TINY 1e-12

typedef enum MeMode {
	ME_MODE_INIT = 0, /* instantiated or in initialization: sets go through */
	ME_MODE_EVENT,    /* in Event Mode between steps (a discrete input was set) */
	ME_MODE_CT,       /* in Continuous-Time Mode between steps */
	ME_MODE_DONE      /* terminated */
} MeMode;

/* What the next step reads besides the FMU's own state: saved with FMU states. */
typedef struct MeData {
	double t;           /* where the FMU stands: the end of the last step */
	double next_te;     /* the next time event, when te_defined */
	double burst_start; /* the first event of the current burst */
	double last_event;  /* the latest event */
	SartOdeMemo memo;   /* the solver's, as at the state's capture */
	int mode;           /* MeMode */
	int te_defined;
	int event_pending;  /* Event Mode entered for a discrete set: settle at the step's start */
	int inputs_set;     /* a value was set since the last step: check the indicators */
	int terminated;     /* the FMU asked to terminate the simulation at t */
	long burst;         /* events in the current burst */
} MeData;

struct SartInnerMe {
	SartInnerOps ops;          /* this instance's table: the back end's, with the layer's */
	const SartInnerOps *base;  /* the back end */
	const SartInnerMeOps *fmi; /* its Model Exchange calls */
	SartMeConfig cfg;          /* state_vrs, derivative_vrs and event_vrs (sorted, each
	                              once) copied into vrs, or event_vrs into event_elems */
	SartVr *vrs;
	SartVr *event_elems;       /* event_vrs with the array elements that share their mode */
	double tolerance;          /* relative; chosen at enter_init */
	size_t nx, nz;             /* the FMU's states and event indicators */
	int sized;                 /* the arrays below are allocated for nx, nz */
	double *x, *nominal, *z, *z2, *z_prev, *dx;
	SartOde *ode;
	int solver_stale;          /* the nominals changed: the solver is made again */
	MeData d;
	/* during a step */
	int no_set_prior;          /* for fmi*CompletedIntegratorStep */
	int step_event, step_terminate;
	long step_events;          /* events since the step began */
	SartStatus worst;          /* the worst status the solver's callbacks met */
	SartStatus failed;         /* the status of the callback that stopped the solver */
	/* the clocks layer's (sart_inner_se.c): run where the discrete states settled */
	SartStatus (*event_hook)(SartInner *in, double t);
};

/* A state handle of an ME inner: the FMU's state and the layer's data. */
typedef struct MeState {
	void *fmu;
	MeData d;
	size_t nz;
	double z[]; /* the indicators at d.t (z_prev) */
} MeState;

static SartStatus worse(SartStatus a, SartStatus b)
{
	return a > b ? a : b;
}

static SartInnerMe *me_of(SartInner *in)
{
	return in->me;
}

/* Whether the FMU may be called on after status s (a fatal one closed it). */
static int going(const SartInner *in, SartStatus s)
{
	return s <= SART_WARNING && !in->fatal;
}

/* ---- the problem the solver sees ---------------------------------------------------- */

/* The FMU set to (t, x): what each callback does first. */
static SartStatus put_point(SartInner *in, double t, const double x[])
{
	SartInnerMe *m = me_of(in);
	SartStatus s = m->fmi->set_time(in, t);
	if (going(in, s) && m->nx)
		s = worse(s, m->fmi->set_states(in, x, m->nx, t));
	return s;
}

/* A callback's outcome: 0 to go on (a warning is remembered), else the status, which the
 * solver passes back in SartOdeOutcome.code. */
static int callback_result(SartInner *in, SartStatus s)
{
	SartInnerMe *m = me_of(in);
	if (going(in, s)) {
		m->worst = worse(m->worst, s);
		return 0;
	}
	m->failed = s > SART_WARNING ? s : SART_ERROR;
	return (int)m->failed;
}

static int cb_f(void *env, double t, const double x[], double dx[])
{
	SartInner *in = env;
	SartInnerMe *m = me_of(in);
	SartStatus s = put_point(in, t, x);
	if (!m->nx)
		dx[0] = 0.0; /* the solver's one dummy state of an FMU without states */
	else if (going(in, s))
		s = worse(s, m->fmi->get_derivatives(in, dx, m->nx, t));
	return callback_result(in, s);
}

static int cb_g(void *env, double t, const double x[], double z[])
{
	SartInner *in = env;
	SartInnerMe *m = me_of(in);
	SartStatus s = put_point(in, t, x);
	if (going(in, s))
		s = worse(s, m->fmi->get_event_indicators(in, z, m->nz, t));
	return callback_result(in, s);
}

/* The Jacobian from the FMU's directional derivatives, one column per state. */
static int cb_jac(void *env, double t, const double x[], const double fx[], double J[])
{
	SartInner *in = env;
	SartInnerMe *m = me_of(in);
	const double one = 1.0;
	(void)fx;
	SartStatus s = put_point(in, t, x);
	for (size_t j = 0; j < m->nx && going(in, s); j++)
		s = worse(s, m->fmi->directional_derivative(in, m->cfg.derivative_vrs, m->nx,
		                                            &m->cfg.state_vrs[j], 1, &one,
		                                            J + j * m->nx, t));
	return callback_result(in, s);
}

static int cb_accepted(void *env, double t, const double x[], int *stop)
{
	SartInner *in = env;
	SartInnerMe *m = me_of(in);
	int event = 0, terminate = 0;
	SartStatus s = put_point(in, t, x);
	if (going(in, s))
		s = worse(s, m->fmi->completed_integrator_step(in, m->no_set_prior, &event,
		                                               &terminate, t));
	m->step_event = event;
	m->step_terminate = terminate;
	*stop = event || terminate;
	return callback_result(in, s);
}

/* ---- sizes, arrays and the solver --------------------------------------------------- */

static void free_arrays(SartInnerMe *m)
{
	free(m->x);
	free(m->nominal);
	free(m->z);
	free(m->z2);
	free(m->z_prev);
	free(m->dx);
	m->x = m->nominal = m->z = m->z2 = m->z_prev = m->dx = NULL;
	m->sized = 0;
}

/* The FMU's sizes (FMI 3.0 asks it, FMI 2.0 has them from the model description) and the
 * arrays for them. */
static SartStatus size_arrays(SartInner *in, double t)
{
	SartInnerMe *m = me_of(in);
	size_t nx = m->cfg.nstates, nz = m->cfg.nevent_indicators;
	if (m->fmi->get_sizes) {
		SartStatus s = m->fmi->get_sizes(in, &nx, &nz, t);
		if (!going(in, s))
			return s;
	}
	if (m->sized && nx == m->nx && nz == m->nz)
		return SART_OK;
	if (nx > ((size_t)1 << 24) || nz > ((size_t)1 << 24))
		return sart_inner_report(in, SART_ERROR, "the FMU declares %zu continuous states and "
		                         "%zu event indicators: too many", nx, nz);
	if (m->cfg.state_vrs && m->cfg.nstates != nx)
		return sart_inner_report(in, SART_ERROR, "the FMU has %zu continuous states, but %zu "
		                         "state value references were given", nx, m->cfg.nstates);
	sart_ode_free(m->ode);
	m->ode = NULL;
	free_arrays(m);
	size_t n = nx ? nx : 1;
	m->x = calloc(n, sizeof *m->x);
	m->dx = calloc(n, sizeof *m->dx);
	m->nominal = calloc(n, sizeof *m->nominal);
	m->z = calloc(nz ? nz : 1, sizeof *m->z);
	m->z2 = calloc(nz ? nz : 1, sizeof *m->z2);
	m->z_prev = calloc(nz ? nz : 1, sizeof *m->z_prev);
	if (!m->x || !m->dx || !m->nominal || !m->z || !m->z2 || !m->z_prev) {
		free_arrays(m);
		return sart_inner_report(in, SART_ERROR, "out of memory for %zu continuous states",
		                         nx);
	}
	for (size_t i = 0; i < n; i++)
		m->nominal[i] = 1.0;
	m->nx = nx;
	m->nz = nz;
	m->sized = 1;
	return SART_OK;
}

/* The nominals the FMU gives, each checked: one that is not a positive finite number
 * weighs as 1 (FMI requires them positive; a wrong one must not break error control). */
static SartStatus read_nominals(SartInner *in, double t)
{
	SartInnerMe *m = me_of(in);
	if (!m->nx)
		return SART_OK;
	SartStatus s = m->fmi->get_nominals(in, m->nominal, m->nx, t);
	for (size_t i = 0; i < m->nx; i++)
		if (!(m->nominal[i] > 0.0 && m->nominal[i] <= 1e300))
			m->nominal[i] = 1.0;
	m->solver_stale = 1;
	return s;
}

/* The solver for the current sizes and nominals, made again when they changed (the
 * memo, step size guess and method, carried over). */
static SartStatus make_solver(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	SartOdeMemo memo;
	int had = m->ode != NULL;
	if (had && !m->solver_stale)
		return SART_OK;
	if (had)
		sart_ode_get_memo(m->ode, &memo);
	sart_ode_free(m->ode);
	int jac = m->cfg.state_vrs && m->cfg.derivative_vrs && m->nx &&
	          m->fmi->has_directional_derivative(in);
	SartOdeProblem p = {m->nx ? m->nx : 1, m->nz, in, cb_f, m->nz ? cb_g : NULL,
	                    jac ? cb_jac : NULL, cb_accepted};
	SartOdeSettings st = {(SartOdeMethod)m->cfg.method, m->tolerance, m->nominal,
	                      m->cfg.max_step > 0 ? m->cfg.max_step : 0.0, 0.0, 0.0, 0};
	m->ode = sart_ode_new(&p, &st);
	if (!m->ode)
		return sart_inner_report(in, SART_ERROR, "cannot make the solver for %zu continuous "
		                         "states (method %d, relative tolerance %s): out of memory or "
		                         "invalid settings", m->nx, m->cfg.method,
		                         SART_NUM(m->tolerance));
	if (had)
		sart_ode_set_memo(m->ode, &memo);
	m->solver_stale = 0;
	return SART_OK;
}

/* ---- events ------------------------------------------------------------------------- */

/* One more event at t: a model whose events crowd together, each hard on the one before,
 * chatters. */
static SartStatus count_event(SartInner *in, double t)
{
	SartInnerMe *m = me_of(in);
	double window = ME_BURST_WINDOW * (fabs(t) > 1.0 ? fabs(t) : 1.0);
	int close = m->d.burst > 0 && t - m->d.last_event <= window;
	if (++m->step_events > ME_MAX_STEP_EVENTS)
		return sart_inner_report(in, SART_ERROR, "the model chatters at t = %s: more than "
		                         "%ld events within one step", SART_NUM(t),
		                         ME_MAX_STEP_EVENTS);
	m->d.last_event = t;
	if (close) {
		if (++m->d.burst > ME_MAX_BURST)
			return sart_inner_report(in, SART_ERROR, "the model chatters at t = %s: %d "
			                         "events since t = %s, each within %.2g s of the one "
			                         "before", SART_NUM(t), ME_MAX_BURST + 1,
			                         SART_NUM(m->d.burst_start), window);
		return SART_OK;
	}
	m->d.burst_start = t;
	m->d.burst = 1;
	return SART_OK;
}

/* At a state event at (t, x): the indicators asked twice must agree.  One that flips
 * whenever it is evaluated moves its events wherever the search for them happens to look
 * and drives the solver into an event at every step: the model chatters. */
static SartStatus check_indicators(SartInner *in, double t, const double x[])
{
	SartInnerMe *m = me_of(in);
	SartStatus s = put_point(in, t, x);
	if (going(in, s))
		s = worse(s, m->fmi->get_event_indicators(in, m->z, m->nz, t));
	if (going(in, s))
		s = worse(s, m->fmi->get_event_indicators(in, m->z2, m->nz, t));
	for (size_t i = 0; going(in, s) && i < m->nz; i++)
		if (memcmp(&m->z[i], &m->z2[i], sizeof m->z[i]) != 0)
			return sart_inner_report(in, SART_ERROR, "the model chatters at t = %s: event "
			                         "indicator %zu gives %s, then %s at the same time and "
			                         "states", SART_NUM(t), i + 1, SART_NUM(m->z[i]),
			                         SART_NUM(m->z2[i]));
	return s;
}

/* In Event Mode at t: the discrete states updated until they settle, then
 * Continuous-Time Mode, with the states and nominals read again when they changed (always
 * when first), and the next time event.  A request to terminate leaves the FMU in Event
 * Mode with d.terminated set. */
static SartStatus settle(SartInner *in, double t, int first)
{
	SartInnerMe *m = me_of(in);
	SartMeEventInfo info;
	SartStatus s = SART_OK;
	int values = first, nominals = first;
	for (int i = 0;; i++) {
		if (i == ME_MAX_EVENT_ITERATIONS)
			return sart_inner_report(in, SART_ERROR, "the event iteration at t = %s does "
			                         "not settle: the FMU still asks for new discrete states "
			                         "after %d iterations", SART_NUM(t),
			                         ME_MAX_EVENT_ITERATIONS);
		memset(&info, 0, sizeof info);
		s = worse(s, m->fmi->update_discrete_states(in, &info, t));
		if (!going(in, s))
			return s;
		values |= info.values_changed;
		nominals |= info.nominals_changed;
		if (info.terminate_simulation) {
			m->d.terminated = 1;
			return s;
		}
		if (!info.new_discrete_states_needed)
			break;
	}
	if (m->event_hook) {
		/* the clocks layer reads what ticked while the FMU is still in Event Mode */
		s = worse(s, m->event_hook(in, t));
		if (!going(in, s))
			return s;
	}
	m->d.te_defined = info.next_event_time_defined;
	m->d.next_te = info.next_event_time;
	if (m->d.te_defined && !isfinite(m->d.next_te))
		return sart_inner_report(in, SART_ERROR, "the event iteration at t = %s gives the "
		                         "next time event at %s", SART_NUM(t),
		                         SART_NUM(m->d.next_te));
	s = worse(s, m->fmi->enter_continuous_time_mode(in, t));
	if (!going(in, s))
		return s;
	m->d.mode = ME_MODE_CT;
	m->d.event_pending = 0;
	if (values && m->nx)
		s = worse(s, m->fmi->get_states(in, m->x, m->nx, t));
	if (going(in, s) && nominals)
		s = worse(s, read_nominals(in, t));
	return s;
}

/* An event at t with states x (NULL: those the FMU holds, already in Event Mode when
 * in_event_mode): the FMU set there, Event Mode, settled, and the solver restarted from
 * what the FMU then holds (m->x). */
static SartStatus handle_event(SartInner *in, double t, const double x[], int in_event_mode)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = count_event(in, t);
	if (!going(in, s))
		return s;
	if (x) {
		if (m->nx)
			memmove(m->x, x, m->nx * sizeof *m->x);
		s = worse(s, put_point(in, t, m->x));
	}
	if (going(in, s) && !in_event_mode) {
		s = worse(s, m->fmi->enter_event_mode(in, t));
		if (going(in, s))
			m->d.mode = ME_MODE_EVENT;
	}
	if (going(in, s))
		s = worse(s, settle(in, t, 0));
	if (going(in, s) && !m->d.terminated)
		s = worse(s, make_solver(in));
	if (going(in, s) && !m->d.terminated)
		sart_ode_restart(m->ode, t, m->x, 0);
	return s;
}

/* Whether an indicator went from zp to z across FMI's two domains, z > 0 and z <= 0: so
 * an input that moves it from -1 to 0 is no event, and one that moves it on from 0 to 1
 * is. */
static int crossed(double zp, double z)
{
	return (zp > 0.0) != (z > 0.0);
}

/* ---- the life cycle ----------------------------------------------------------------- */

static SartStatus me_enter_init(SartInner *in, const SartExperiment *ex)
{
	SartInnerMe *m = me_of(in);
	if (m->cfg.tolerance > 0)
		m->tolerance = m->cfg.tolerance;
	else if (ex->tolerance_defined && ex->tolerance > 0)
		m->tolerance = ex->tolerance;
	else if (m->cfg.default_tolerance > 0)
		m->tolerance = m->cfg.default_tolerance;
	else
		m->tolerance = 1e-6;
	m->d.t = ex->start_time;
	m->d.mode = ME_MODE_INIT;
	return m->base->enter_init(in, ex);
}

/* Initialization ends in Event Mode (FMI 2.0 and 3.0 alike): settled, then
 * Continuous-Time Mode, and the solver made at the start time. */
static SartStatus me_exit_init(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	double t = m->d.t;
	SartStatus s = m->base->exit_init(in);
	if (!going(in, s))
		return s;
	m->d.mode = ME_MODE_EVENT;
	s = worse(s, size_arrays(in, t));
	if (going(in, s))
		s = worse(s, settle(in, t, 1));
	if (going(in, s) && m->d.terminated)
		return sart_inner_report(in, SART_ERROR, "the FMU asked to terminate the simulation "
		                         "at the end of initialization (t = %s)", SART_NUM(t));
	if (going(in, s))
		s = worse(s, make_solver(in));
	if (!going(in, s))
		return s;
	sart_ode_restart(m->ode, t, m->x, 1);
	m->d.burst = 0;
	m->d.inputs_set = 0;
	if (m->nz) {
		s = worse(s, put_point(in, t, m->x));
		if (going(in, s))
			s = worse(s, m->fmi->get_event_indicators(in, m->z_prev, m->nz, t));
	}
	return s;
}

static SartStatus me_terminate(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = m->base->terminate(in);
	m->d.mode = ME_MODE_DONE;
	return s;
}

static SartStatus me_reset(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = m->base->reset(in);
	memset(&m->d, 0, sizeof m->d);
	return s;
}

static void me_unbind(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	const SartInnerOps *base = m->base;
	sart_ode_free(m->ode);
	free_arrays(m);
	free(m->vrs);
	free(m->event_elems);
	free(m);
	in->me = NULL;
	in->ops = base;
	base->unbind(in);
}

/* ---- values ------------------------------------------------------------------------- */

/* Before a discrete input is set between steps: Event Mode, as FMI allows such sets only
 * there, and the next step starts with the event iteration. */
static SartStatus before_discrete_set(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	if (m->d.mode != ME_MODE_CT)
		return SART_OK;
	SartStatus s = m->fmi->enter_event_mode(in, m->d.t);
	if (going(in, s)) {
		m->d.mode = ME_MODE_EVENT;
		m->d.event_pending = 1;
	}
	return s;
}

static void mark_set(SartInner *in)
{
	SartInnerMe *m = me_of(in);
	if (m->d.mode == ME_MODE_CT || m->d.mode == ME_MODE_EVENT)
		m->d.inputs_set = 1;
}

/* What a set of anything but continuous Reals does first: Event Mode when between steps. */
static SartStatus discrete_set(SartInner *in)
{
	SartStatus s = before_discrete_set(in);
	if (going(in, s))
		mark_set(in);
	return s;
}

/* Whether a Real set of vr[0..n) touches a variable FMI lets one set only in Event Mode. */
static int touches_event_vrs(const SartInnerMe *m, const SartVr vr[], size_t n)
{
	for (size_t i = 0; i < n && m->cfg.nevent_vrs; i++)
		if (bsearch(&vr[i], m->cfg.event_vrs, m->cfg.nevent_vrs, sizeof *vr, sart_vr_cmp))
			return 1;
	return 0;
}

static SartStatus me_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[])
{
	if (touches_event_vrs(me_of(in), vr, n)) {
		SartStatus s = discrete_set(in);
		return going(in, s) ? worse(s, me_of(in)->base->set_real(in, vr, n, v)) : s;
	}
	mark_set(in);
	return me_of(in)->base->set_real(in, vr, n, v);
}

static SartStatus me_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	SartStatus s = discrete_set(in);
	return going(in, s) ? worse(s, me_of(in)->base->set_integer(in, vr, n, v)) : s;
}

static SartStatus me_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	SartStatus s = discrete_set(in);
	return going(in, s) ? worse(s, me_of(in)->base->set_boolean(in, vr, n, v)) : s;
}

static SartStatus me_set_string(SartInner *in, const SartVr vr[], size_t n,
                                const char *const v[])
{
	SartStatus s = discrete_set(in);
	return going(in, s) ? worse(s, me_of(in)->base->set_string(in, vr, n, v)) : s;
}

static SartStatus me_set_binary(SartInner *in, const SartVr vr[], size_t n,
                                const unsigned char *const v[], const size_t sizes[])
{
	SartStatus s = discrete_set(in);
	return going(in, s) ? worse(s, me_of(in)->base->set_binary(in, vr, n, v, sizes)) : s;
}

static SartStatus me_set_real_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                const int order[], const double value[])
{
	(void)vr, (void)n, (void)order, (void)value;
	return sart_inner_report(in, SART_ERROR, "setting input derivatives: a Model Exchange "
	                         "FMU has none (its inputs are set at each step)");
}

static SartStatus me_get_real_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                 const int order[], double value[])
{
	(void)vr, (void)n, (void)order, (void)value;
	return sart_inner_report(in, SART_ERROR, "getting output derivatives: a Model Exchange "
	                         "FMU has none");
}

/* ---- the step ----------------------------------------------------------------------- */

/* What the solver's failure means, as a message naming the time and the cause. */
static SART_COLD SartStatus solver_failed(SartInner *in, const SartOdeOutcome *out, double t,
                                          double h)
{
	SartInnerMe *m = me_of(in);
	switch (out->result) {
	case SART_ODE_MODEL_FAILED:
		return m->failed > SART_WARNING ? m->failed : SART_ERROR; /* reported by the call */
	case SART_ODE_NOT_FINITE:
		if (m->cfg.state_vrs && out->which < m->nx)
			return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: the "
			                         "derivative of continuous state %zu (valueReference "
			                         "%u) is NaN or infinite in the solver's step after "
			                         "t = %s", SART_NUM(t), SART_NUM(h), out->which + 1,
			                         m->cfg.state_vrs[out->which], SART_NUM(out->t));
		return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: the derivative "
		                         "of continuous state %zu is NaN or infinite in the solver's "
		                         "step after t = %s", SART_NUM(t), SART_NUM(h),
		                         out->which + 1, SART_NUM(out->t));
	case SART_ODE_STEP_TOO_SMALL:
		return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: at t = %s the "
		                         "solver cannot meet the relative tolerance %s (%s; last "
		                         "step size tried %s)", SART_NUM(t), SART_NUM(h),
		                         SART_NUM(out->t), SART_NUM(m->tolerance),
		                         sart_ode_result_text(out->result), SART_NUM(out->h));
	default:
		return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: the solver "
		                         "stopped at t = %s: %s (relative tolerance %s)", SART_NUM(t),
		                         SART_NUM(h), SART_NUM(out->t),
		                         sart_ode_result_text(out->result), SART_NUM(m->tolerance));
	}
}

/* The solver from where it stands to target; a stretch too short for it is one Euler
 * step.  On return m->x holds the solver's state. */
static SartOdeResult advance(SartInner *in, double target, SartOdeOutcome *out)
{
	SartInnerMe *m = me_of(in);
	double tc = sart_ode_time(m->ode);
	size_t n = m->nx ? m->nx : 1;
	if (target - tc <= ME_TINY * (fabs(tc) > 1.0 ? fabs(tc) : 1.0)) {
		memset(out, 0, sizeof *out);
		memcpy(m->x, sart_ode_state(m->ode), n * sizeof *m->x);
		if (cb_f(in, tc, m->x, m->dx)) {
			out->result = SART_ODE_MODEL_FAILED;
			out->t = tc;
			return out->result;
		}
		for (size_t i = 0; i < n; i++) {
			if (!isfinite(m->dx[i])) {
				out->result = SART_ODE_NOT_FINITE;
				out->t = tc;
				out->which = i;
				return out->result;
			}
			m->x[i] += (target - tc) * m->dx[i];
		}
		sart_ode_restart(m->ode, target, m->x, 0);
		out->result = SART_ODE_REACHED;
		out->t = target;
		return out->result;
	}
	sart_ode_advance(m->ode, target, out);
	memcpy(m->x, sart_ode_state(m->ode), n * sizeof *m->x);
	return out->result;
}

/* The step's start at t: an event pending from a discrete set, an input jump that flips
 * an indicator, or a time event due, handled there; then the solver restarted from the
 * FMU's states, so that no input change rides through a value from before it. */
static SartStatus begin_step(SartInner *in, double t)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = SART_OK;
	if (m->nx)
		s = m->fmi->get_states(in, m->x, m->nx, t);
	if (!going(in, s))
		return s;
	if (m->d.event_pending) {
		s = worse(s, handle_event(in, t, NULL, 1));
	} else if (m->d.inputs_set && m->nz) {
		s = worse(s, put_point(in, t, m->x));
		if (going(in, s))
			s = worse(s, m->fmi->get_event_indicators(in, m->z, m->nz, t));
		int flipped = 0;
		for (size_t i = 0; going(in, s) && i < m->nz && !flipped; i++)
			flipped = crossed(m->z_prev[i], m->z[i]);
		if (going(in, s) && flipped)
			s = worse(s, handle_event(in, t, m->x, 0));
	}
	while (going(in, s) && !m->d.terminated && m->d.te_defined && m->d.next_te <= t)
		s = worse(s, handle_event(in, t, m->x, 0));
	m->d.inputs_set = 0;
	if (going(in, s) && !m->d.terminated)
		s = worse(s, make_solver(in));
	if (going(in, s) && !m->d.terminated)
		sart_ode_restart(m->ode, t, m->x, 0);
	return s;
}

/* The FMU at the step's end (t, m->x), its indicators kept for the next step's check. */
static SartStatus end_step(SartInner *in, double t)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = put_point(in, t, m->x);
	if (going(in, s) && m->nz)
		s = worse(s, m->fmi->get_event_indicators(in, m->z_prev, m->nz, t));
	m->d.t = t;
	return s;
}

static SartStatus me_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                             double *reached)
{
	SartInnerMe *m = me_of(in);
	const double end = t + h;
	*reached = NAN;
	if (m->d.mode != ME_MODE_CT && m->d.mode != ME_MODE_EVENT)
		return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: the FMU is %s",
		                         SART_NUM(t), SART_NUM(h), m->d.mode == ME_MODE_DONE ?
		                         "terminated" : "not initialized");
	if (m->d.terminated)
		return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: the FMU asked "
		                         "to terminate the simulation at t = %s", SART_NUM(t),
		                         SART_NUM(h), SART_NUM(m->d.t));
	double tol = 1e-9 * (fabs(t) > 1.0 ? fabs(t) : 1.0);
	if (!(h > 0.0) || !isfinite(end) || !(fabs(t - m->d.t) <= tol))
		return sart_inner_report(in, SART_ERROR, "step from t = %s by h = %s: the FMU stands "
		                         "at t = %s", SART_NUM(t), SART_NUM(h), SART_NUM(m->d.t));
	m->no_set_prior = no_set_state_prior;
	m->step_events = 0;
	m->worst = SART_OK;
	m->failed = SART_OK;
	double tc = m->d.t;
	SartStatus s = begin_step(in, tc);
	while (going(in, s) && !m->d.terminated && tc < end) {
		int time_event = m->d.te_defined && m->d.next_te <= end;
		double target = time_event ? m->d.next_te : end;
		SartOdeOutcome out;
		m->step_event = m->step_terminate = 0;
		SartOdeResult r = advance(in, target, &out);
		if (r == SART_ODE_REACHED) {
			tc = target;
			if (time_event)
				s = worse(s, handle_event(in, tc, m->x, 0));
		} else if (r == SART_ODE_STATE_EVENT ||
		           (r == SART_ODE_STEP_EVENT && !m->step_terminate)) {
			tc = out.t;
			if (r == SART_ODE_STATE_EVENT)
				s = worse(s, check_indicators(in, tc, m->x));
			if (going(in, s))
				s = worse(s, handle_event(in, tc, m->x, 0));
		} else if (r == SART_ODE_STEP_EVENT) {
			tc = out.t;
			m->d.terminated = 1;
		} else {
			s = solver_failed(in, &out, t, h);
		}
		while (going(in, s) && !m->d.terminated && m->d.te_defined && m->d.next_te <= tc)
			s = worse(s, handle_event(in, tc, m->x, 0));
	}
	s = worse(s, m->worst);
	if (!going(in, s))
		return s;
	if (m->d.terminated) {
		/* the FMU stands at tc; in Event Mode it takes no states */
		if (m->d.mode == ME_MODE_CT)
			s = worse(s, end_step(in, tc));
		m->d.t = tc;
		if (!going(in, s))
			return s;
		*reached = tc;
		return sart_inner_report(in, SART_DISCARD, "the FMU asked to terminate the "
		                         "simulation at t = %s (step from t = %s by h = %s)",
		                         SART_NUM(tc), SART_NUM(t), SART_NUM(h));
	}
	s = worse(s, end_step(in, end));
	if (going(in, s))
		*reached = end;
	return s;
}

/* ---- FMU states --------------------------------------------------------------------- */

static SartStatus me_get_state(SartInner *in, void **state)
{
	SartInnerMe *m = me_of(in);
	MeState *ms = *state, *fresh = NULL;
	if (!ms || ms->nz != m->nz) {
		/* a new handle, or one for another number of indicators (taken before the sizes
		 * were known): the FMU's state in it is overwritten in place all the same */
		fresh = calloc(1, sizeof *fresh + m->nz * sizeof *fresh->z);
		if (!fresh)
			return sart_inner_report(in, SART_ERROR, "getFMUstate: out of memory");
		fresh->nz = m->nz;
		fresh->fmu = ms ? ms->fmu : NULL;
	}
	MeState *use = fresh ? fresh : ms;
	SartStatus s = m->base->get_state(in, &use->fmu);
	if (fresh && ms)
		ms->fmu = fresh->fmu;
	if (!going(in, s)) {
		free(fresh);
		return s;
	}
	use->d = m->d;
	if (m->ode)
		sart_ode_get_memo(m->ode, &use->d.memo);
	if (m->nz)
		memcpy(use->z, m->z_prev, m->nz * sizeof *use->z);
	if (fresh) {
		free(ms);
		*state = fresh;
	}
	return s;
}

/* The layer made ready for a state of data d: sized and with a solver, which an instance
 * that never left initialization has not. */
static SartStatus ready_for(SartInner *in, const MeData *d, size_t nz)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = SART_OK;
	if (d->mode != ME_MODE_CT && d->mode != ME_MODE_EVENT)
		return SART_OK;
	if (!m->sized) {
		if (m->tolerance <= 0)
			m->tolerance = m->cfg.tolerance > 0 ? m->cfg.tolerance :
			               m->cfg.default_tolerance > 0 ? m->cfg.default_tolerance : 1e-6;
		s = size_arrays(in, d->t);
		if (going(in, s))
			s = worse(s, read_nominals(in, d->t));
	}
	if (going(in, s) && nz != m->nz)
		return sart_inner_report(in, SART_ERROR, "setFMUstate: the state holds %zu event "
		                         "indicators, the FMU has %zu", nz, m->nz);
	if (going(in, s))
		s = worse(s, make_solver(in));
	return s;
}

static SartStatus me_set_state(SartInner *in, void *state)
{
	SartInnerMe *m = me_of(in);
	MeState *ms = state;
	if (!ms)
		return sart_inner_report(in, SART_ERROR, "setFMUstate: no state given");
	SartStatus s = m->base->set_state(in, ms->fmu);
	if (!going(in, s))
		return s;
	s = worse(s, ready_for(in, &ms->d, ms->nz));
	if (!going(in, s))
		return s;
	m->d = ms->d;
	if (m->nz && ms->nz == m->nz) /* (a state from before initialization has none) */
		memcpy(m->z_prev, ms->z, m->nz * sizeof *m->z_prev);
	if (m->ode && ms->d.memo.method)
		sart_ode_set_memo(m->ode, &ms->d.memo);
	return s;
}

static SartStatus me_free_state(SartInner *in, void **state)
{
	MeState *ms = *state;
	SartStatus s = SART_OK;
	if (ms->fmu)
		s = me_of(in)->base->free_state(in, &ms->fmu);
	free(ms);
	*state = NULL;
	return s;
}

/* The serialized form: a header of the layer's data, then the FMU's own bytes.
 *   0  "SAME" and the format's version (uint32), the header's size (uint32), and the
 *      FNV-1a checksum (uint32) of the header's bytes from 16 on
 *  16  t, next_te, burst_start, last_event, memo.h (double)
 *  56  mode, te_defined, event_pending, inputs_set, terminated, memo.method,
 *      memo.stiff_count, memo.nonstiff_count (int32)
 *  88  burst, nz (uint64)
 * 104  the nz indicators at t (double)
 * Native byte order, as the FMU's own bytes are. */
#define ME_SER_VERSION 1u
#define ME_SER_FIXED 104u

static size_t header_size(size_t nz)
{
	return ME_SER_FIXED + nz * sizeof(double);
}

static uint32_t fnv1a(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

static SartStatus me_serialized_size(SartInner *in, void *state, size_t *size)
{
	MeState *ms = state;
	if (!ms)
		return sart_inner_report(in, SART_ERROR, "serializedFMUstateSize: no state given");
	size_t fmu = 0;
	SartStatus s = me_of(in)->base->serialized_size(in, ms->fmu, &fmu);
	if (!going(in, s))
		return s;
	if (fmu > SIZE_MAX - header_size(ms->nz))
		return sart_inner_report(in, SART_ERROR, "serializedFMUstateSize: %zu bytes is too "
		                         "large", fmu);
	*size = header_size(ms->nz) + fmu;
	return s;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static void put_i32(unsigned char *p, int v)
{
	int32_t w = (int32_t)v;
	memcpy(p, &w, sizeof w);
}

static SartStatus me_serialize(SartInner *in, void *state, unsigned char *buf, size_t size)
{
	MeState *ms = state;
	if (!ms)
		return sart_inner_report(in, SART_ERROR, "serializeFMUstate: no state given");
	size_t hs = header_size(ms->nz);
	if (!buf || size < hs)
		return sart_inner_report(in, SART_ERROR, "serializeFMUstate: %zu bytes cannot hold "
		                         "the %zu-byte header", size, hs);
	const MeData *d = &ms->d;
	memset(buf, 0, hs);
	memcpy(buf, "SAME", 4);
	put_u32(buf + 4, ME_SER_VERSION);
	put_u32(buf + 8, (uint32_t)hs);
	const double dv[5] = {d->t, d->next_te, d->burst_start, d->last_event, d->memo.h};
	memcpy(buf + 16, dv, sizeof dv);
	const int iv[8] = {d->mode, d->te_defined, d->event_pending, d->inputs_set,
	                   d->terminated, d->memo.method, d->memo.stiff_count,
	                   d->memo.nonstiff_count};
	for (int i = 0; i < 8; i++)
		put_i32(buf + 56 + 4 * i, iv[i]);
	const uint64_t uv[2] = {(uint64_t)d->burst, (uint64_t)ms->nz};
	memcpy(buf + 88, uv, sizeof uv);
	if (ms->nz)
		memcpy(buf + ME_SER_FIXED, ms->z, ms->nz * sizeof *ms->z);
	put_u32(buf + 12, fnv1a(buf + 16, hs - 16));
	return me_of(in)->base->serialize(in, ms->fmu, buf + hs, size - hs);
}

/* Refuses bytes that are not a header this layer wrote, naming what is wrong. */
static SART_COLD SartStatus bad_bytes(SartInner *in, const char *why)
{
	return sart_inner_report(in, SART_ERROR, "deSerializeFMUstate: the bytes are not a state "
	                         "of this Model Exchange inner: %s", why);
}

static int flag(int v)
{
	return v == 0 || v == 1;
}

/* A method a memo may hold: one sart_ode_get_memo gives (AUTO's 0 before any advance, or a
 * method in use; never EXPLICIT or IMPLICIT, which sart_ode_new resolves). */
static int memo_method(int64_t v)
{
	return v == SART_ODE_AUTO || v == SART_ODE_DOPRI5 || v == SART_ODE_RODAS ||
	       v == SART_ODE_DOP853 || v == SART_ODE_RODAS5;
}

static SartStatus me_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                 void **state)
{
	SartInnerMe *m = me_of(in);
	uint32_t version, hs, sum;
	uint64_t uv[2];
	int32_t iv[8];
	double dv[5];
	if (!buf || size < ME_SER_FIXED)
		return bad_bytes(in, "too short for the header");
	if (memcmp(buf, "SAME", 4) != 0)
		return bad_bytes(in, "no header");
	memcpy(&version, buf + 4, sizeof version);
	memcpy(&hs, buf + 8, sizeof hs);
	memcpy(&sum, buf + 12, sizeof sum);
	if (version != ME_SER_VERSION)
		return bad_bytes(in, "another version of the format");
	memcpy(uv, buf + 88, sizeof uv);
	if (uv[1] > (size - ME_SER_FIXED) / sizeof(double) || hs != header_size((size_t)uv[1]))
		return bad_bytes(in, "the header's size is wrong");
	if (fnv1a(buf + 16, hs - 16) != sum)
		return bad_bytes(in, "the header's checksum is wrong");
	memcpy(dv, buf + 16, sizeof dv);
	memcpy(iv, buf + 56, sizeof iv);
	if (!(iv[0] >= ME_MODE_INIT && iv[0] <= ME_MODE_DONE) || !flag(iv[1]) || !flag(iv[2]) ||
	    !flag(iv[3]) || !flag(iv[4]) || !memo_method(iv[5]) ||
	    !isfinite(dv[0]) || !(dv[4] >= 0 && dv[4] <= 1e300) || uv[0] > (uint64_t)LONG_MAX)
		return bad_bytes(in, "a value out of range");
	if (m->sized && uv[1] != m->nz)
		return bad_bytes(in, "another number of event indicators");
	size_t nz = (size_t)uv[1];
	MeState *ms = calloc(1, sizeof *ms + nz * sizeof *ms->z);
	if (!ms)
		return sart_inner_report(in, SART_ERROR, "deSerializeFMUstate: out of memory");
	ms->nz = nz;
	ms->d = (MeData){dv[0], dv[1], dv[2], dv[3], {dv[4], iv[5], iv[6], iv[7]}, iv[0], iv[1],
	                 iv[2], iv[3], iv[4], (long)uv[0]};
	if (nz)
		memcpy(ms->z, buf + ME_SER_FIXED, nz * sizeof *ms->z);
	SartStatus s = m->base->deserialize(in, buf + hs, size - hs, &ms->fmu);
	if (!going(in, s)) {
		free(ms);
		return s;
	}
	*state = ms;
	return s;
}

/* ---- attaching ---------------------------------------------------------------------- */

/* vr[0..n) sorted, each once, for the binary search of every Real set; the new count
 * (n > 0). */
static size_t sort_unique(SartVr vr[], size_t n)
{
	qsort(vr, n, sizeof *vr, sart_vr_cmp);
	size_t k = 1;
	for (size_t i = 1; i < n; i++)
		if (vr[i] != vr[k - 1])
			vr[k++] = vr[i];
	return k;
}

/* An FMI 3.0 array that takes sets only in Event Mode (a tunable array parameter) has one
 * value reference in event_vrs, but a caller sets its elements through references of
 * their own (SartInnerConfig.elements): those go into the set too, or a set of one
 * element would reach the FMU in Continuous-Time Mode, where it may refuse or ignore it.
 * m->cfg.event_vrs is sorted and unique; the result is too, in an array of its own. */
static SartStatus add_element_vrs(const SartInner *in, SartInnerMe *m)
{
	size_t extra = 0;
	for (size_t i = 0; i < in->nelements; i++)
		if (bsearch(&in->elements[i].array, m->cfg.event_vrs, m->cfg.nevent_vrs,
		            sizeof(SartVr), sart_vr_cmp))
			extra++;
	if (extra == 0)
		return SART_OK;
	size_t ne = m->cfg.nevent_vrs;
	SartVr *ev = malloc((ne + extra) * sizeof *ev);
	if (!ev)
		return SART_ERROR;
	memcpy(ev, m->cfg.event_vrs, ne * sizeof *ev);
	for (size_t i = 0; i < in->nelements; i++)
		if (bsearch(&in->elements[i].array, m->cfg.event_vrs, m->cfg.nevent_vrs,
		            sizeof(SartVr), sart_vr_cmp))
			ev[ne++] = in->elements[i].vr;
	m->event_elems = ev;
	m->cfg.event_vrs = ev;
	m->cfg.nevent_vrs = sort_unique(ev, ne);
	return SART_OK;
}

void sart_inner_me_set_event_hook(SartInner *in, SartStatus (*hook)(SartInner *in, double t))
{
	if (in->me)
		in->me->event_hook = hook;
}

SartStatus sart_inner_me_event(SartInner *in, double t,
                               SartStatus (*tick)(SartInner *in, void *env), void *env)
{
	SartInnerMe *m = me_of(in);
	SartStatus s = SART_OK;
	if (m->d.mode != ME_MODE_EVENT) {
		s = m->fmi->enter_event_mode(in, t);
		if (!going(in, s))
			return s;
		m->d.mode = ME_MODE_EVENT;
	}
	s = worse(s, tick(in, env));
	if (going(in, s))
		s = worse(s, handle_event(in, t, NULL, 1));
	if (going(in, s) && !m->d.terminated)
		s = worse(s, end_step(in, t));
	return s;
}

SartStatus sart_inner_me_attach(SartInner *in, const SartMeConfig *cfg)
{
	if (!in->ops->me)
		return sart_inner_report(in, SART_ERROR, "the FMI %s back end cannot drive a Model "
		                         "Exchange FMU", in->ops->fmi_version);
	if (cfg->method < SART_ODE_AUTO || cfg->method > SART_ODE_IMPLICIT)
		return sart_inner_report(in, SART_ERROR, "unknown solver method %d", cfg->method);
	SartInnerMe *m = calloc(1, sizeof *m);
	if (!m)
		return sart_inner_report(in, SART_ERROR, "out of memory");
	m->cfg = *cfg;
	m->cfg.state_vrs = m->cfg.derivative_vrs = m->cfg.event_vrs = NULL;
	m->cfg.nevent_vrs = 0;
	size_t ns = cfg->state_vrs && cfg->derivative_vrs ? cfg->nstates : 0;
	size_t ne = cfg->event_vrs ? cfg->nevent_vrs : 0;
	if (ns > SIZE_MAX / 2 / sizeof *m->vrs || ne > SIZE_MAX / sizeof *m->vrs - 2 * ns) {
		free(m);
		return sart_inner_report(in, SART_ERROR, "%zu states and %zu event-mode value "
		                         "references: too many", ns, ne);
	}
	if (ns + ne) {
		m->vrs = malloc((2 * ns + ne) * sizeof *m->vrs);
		if (!m->vrs) {
			free(m);
			return sart_inner_report(in, SART_ERROR, "out of memory");
		}
	}
	if (ns) {
		memcpy(m->vrs, cfg->state_vrs, ns * sizeof *m->vrs);
		memcpy(m->vrs + ns, cfg->derivative_vrs, ns * sizeof *m->vrs);
		m->cfg.state_vrs = m->vrs;
		m->cfg.derivative_vrs = m->vrs + ns;
	}
	if (ne) {
		SartVr *ev = m->vrs + 2 * ns;
		memcpy(ev, cfg->event_vrs, ne * sizeof *ev);
		m->cfg.event_vrs = ev;
		m->cfg.nevent_vrs = sort_unique(ev, ne);
		if (add_element_vrs(in, m) != SART_OK) {
			free(m->vrs);
			free(m);
			return sart_inner_report(in, SART_ERROR, "out of memory");
		}
	}
	m->base = in->ops;
	m->fmi = in->ops->me;
	m->ops = *in->ops;
	m->ops.unbind = me_unbind;
	m->ops.enter_init = me_enter_init;
	m->ops.exit_init = me_exit_init;
	m->ops.set_real = me_set_real;
	m->ops.set_integer = me_set_integer;
	m->ops.set_boolean = me_set_boolean;
	m->ops.set_string = me_set_string;
	if (m->ops.set_binary)
		m->ops.set_binary = me_set_binary;
	m->ops.set_real_input_derivatives = me_set_real_input_derivatives;
	m->ops.get_real_output_derivatives = me_get_real_output_derivatives;
	m->ops.do_step = me_do_step;
	m->ops.get_state = me_get_state;
	m->ops.set_state = me_set_state;
	m->ops.free_state = me_free_state;
	m->ops.serialized_size = me_serialized_size;
	m->ops.serialize = me_serialize;
	m->ops.deserialize = me_deserialize;
	m->ops.terminate = me_terminate;
	m->ops.reset = me_reset;
	m->ops.direct_status = NULL; /* no direct route: every call goes through the seam */
	m->ops.me = NULL;
	in->ops = &m->ops;
	in->me = m;
	in->direct = NULL;
	return SART_OK;
}
