/* test_sart_ode.c — the runtime's ODE solvers (runtime/sart_ode.c) against solutions known
 * independently of them:
 *   - x' = -x and the harmonic oscillator: exact solutions, at two tolerances, every method
 *     (DOP853 at 1e-12 too);
 *   - DOP853's order conditions: polynomials of degree 7 integrated exactly, the error of
 *     fixed steps falling as h^8 and that of its dense output as h^8 mid-step; the Arenstorf
 *     orbit back at its start after its published period; its stiffness test on Robertson;
 *     its dense output's 3 evaluations spent only on a step with an event;
 *   - state events: a falling ball (root sqrt(2 h0 / g)), the oscillator's zeros (pi/2,
 *     located on the dense output), indicators that depend on t only (exact roots), the
 *     lowest index at a tie, an indicator starting at zero (FMI's domains z > 0, z <= 0);
 *   - stiff problems: Robertson to t = 40 and Van der Pol (eps = 1e-6) to t = 2 against the
 *     published reference values of Hairer & Wanner's test set; AUTO's switch; analytic
 *     and finite-difference Jacobians;
 *   - nominals, t_end hit bit for bit without f past it, failures (NaN, blow-up, callback
 *     codes, accepted() stopping), memo continuation bit for bit, f counted as called. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "assert_close.h"
#include "sart_ode.h"

static const double PI = 3.14159265358979323846;

/* What every test problem counts and watches, whatever its equations. */
typedef struct Env {
	long f_calls, g_calls, jac_calls, acc_calls;
	double t_max;     /* the largest t f was called with */
	double nan_after; /* f gives NaN in state 1 past this time (0: never) */
	double fail_after; /* f returns fail_code past this time (0: never) */
	int fail_code;
	int g_code, jac_code, acc_code; /* returned by g, jac, accepted when nonzero */
	int stop_at;      /* accepted() asks to stop at this call (0: never) */
	double last_acc_t;
	double lambda;    /* f_decay: the second state's decay rate (0: one state) */
	double widest;    /* on_accepted_gap: the widest step seen */
	double t_root;    /* g_mid: where its indicator crosses zero */
} Env;

static void watch(Env *e, double t)
{
	e->f_calls++;
	if (t > e->t_max)
		e->t_max = t;
}

/* x' = -x (and more states decaying at rates 1, 2, ...) */
static int f_decay(void *env, double t, const double x[], double dx[])
{
	Env *e = env;
	watch(e, t);
	dx[0] = -x[0];
	if (e->lambda > 0.0)
		dx[1] = -e->lambda * x[1];
	if (e->nan_after > 0.0 && t > e->nan_after)
		dx[1] = NAN;
	if (e->fail_after > 0.0 && t > e->fail_after)
		return e->fail_code;
	return 0;
}

/* x1' = x2, x2' = -x1: x = (cos t, -sin t) from (1, 0) */
static int f_osc(void *env, double t, const double x[], double dx[])
{
	watch(env, t);
	dx[0] = x[1];
	dx[1] = -x[0];
	return 0;
}

static int g_first(void *env, double t, const double x[], double z[])
{
	Env *e = env;
	(void)t;
	e->g_calls++;
	z[0] = x[0];
	return e->g_code;
}

/* a falling ball: height, velocity */
static int f_ball(void *env, double t, const double x[], double dx[])
{
	watch(env, t);
	dx[0] = x[1];
	dx[1] = -9.81;
	return 0;
}

/* Robertson's chemical reactions */
static int f_rober(void *env, double t, const double y[], double dy[])
{
	watch(env, t);
	dy[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
	dy[2] = 3e7 * y[1] * y[1];
	dy[1] = -dy[0] - dy[2];
	return 0;
}

static int jac_rober(void *env, double t, const double y[], const double fy[], double J[])
{
	Env *e = env;
	(void)t, (void)fy;
	e->jac_calls++;
	J[0 + 3 * 0] = -0.04;
	J[0 + 3 * 1] = 1e4 * y[2];
	J[0 + 3 * 2] = 1e4 * y[1];
	J[2 + 3 * 0] = 0.0;
	J[2 + 3 * 1] = 6e7 * y[1];
	J[2 + 3 * 2] = 0.0;
	for (int j = 0; j < 3; j++)
		J[1 + 3 * j] = -J[0 + 3 * j] - J[2 + 3 * j];
	return e->jac_code;
}

/* Van der Pol in Hairer's scaling: y1' = y2, y2' = ((1 - y1^2) y2 - y1) / eps */
static const double VDP_EPS = 1e-6;

static int f_vdp(void *env, double t, const double y[], double dy[])
{
	watch(env, t);
	dy[0] = y[1];
	dy[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / VDP_EPS;
	return 0;
}

static int jac_vdp(void *env, double t, const double y[], const double fy[], double J[])
{
	Env *e = env;
	(void)t, (void)fy;
	e->jac_calls++;
	J[0] = 0.0;
	J[1] = (-2.0 * y[0] * y[1] - 1.0) / VDP_EPS;
	J[2] = 1.0;
	J[3] = (1.0 - y[0] * y[0]) / VDP_EPS;
	return 0;
}

/* Van der Pol with mu = 1: y1' = y2, y2' = (1 - y1^2) y2 - y1, not stiff */
static int f_vdp1(void *env, double t, const double y[], double dy[])
{
	watch(env, t);
	dy[0] = y[1];
	dy[1] = (1.0 - y[0] * y[0]) * y[1] - y[0];
	return 0;
}

/* x' = -k (x - cos t): x = (k^2 cos t + k sin t) / (k^2 + 1) + C e^(-k t), stiff for
 * large k and explicitly time-dependent (RODAS's df/dt terms) */
static const double FORCED_K = 1000.0;

static int f_forced(void *env, double t, const double x[], double dx[])
{
	watch(env, t);
	dx[0] = -FORCED_K * (x[0] - cos(t));
	return 0;
}

static double forced_particular(double t)
{
	double k = FORCED_K;
	return (k * k * cos(t) + k * sin(t)) / (k * k + 1.0);
}

static double forced_exact(double t, double t0, double x0)
{
	return forced_particular(t) + (x0 - forced_particular(t0)) * exp(-FORCED_K * (t - t0));
}

/* x' = -x, defined for x >= 0 only (NaN below): the solution e^-t never leaves it, a
 * long trial step does */
static int f_sqrt_domain(void *env, double t, const double x[], double dx[])
{
	watch(env, t);
	dx[0] = x[0] >= 0.0 ? -x[0] : NAN;
	return 0;
}

/* x' = x^2 from 1: x = 1 / (1 - t), infinite at t = 1 */
static int f_blowup(void *env, double t, const double x[], double dx[])
{
	watch(env, t);
	dx[0] = x[0] * x[0];
	return 0;
}

static int on_accepted(void *env, double t, const double x[], int *stop)
{
	Env *e = env;
	(void)x;
	e->acc_calls++;
	e->last_acc_t = t;
	if (e->stop_at > 0 && e->acc_calls == e->stop_at)
		*stop = 1;
	return e->acc_code;
}

/* A solver at (0, x0) with steps no longer than h_max (0: any), its first step h0 when
 * positive (else the initial step's guess). */
static SartOde *make_capped(SartOdeProblem *p, Env *e, SartOdeMethod m, double rtol,
			    double h_max, double h0, const double *x0)
{
	p->env = e;
	SartOdeSettings s = {.method = m, .rtol = rtol, .h_max = h_max};
	SartOde *o = sart_ode_new(p, &s);
	assert_non_null(o);
	sart_ode_restart(o, 0.0, x0, 1);
	if (h0 > 0.0) {
		SartOdeMemo memo = {.h = h0, .method = m};
		sart_ode_set_memo(o, &memo);
		sart_ode_restart(o, 0.0, x0, 0);
	}
	return o;
}

static SartOde *make(SartOdeProblem *p, Env *e, SartOdeMethod m, double rtol, const double *x0)
{
	return make_capped(p, e, m, rtol, 0.0, 0.0, x0);
}

static double rel_err(double a, double b)
{
	return fabs(a - b) / fabs(b);
}

static const SartOdeMethod methods[] = {SART_ODE_DOPRI5, SART_ODE_RODAS, SART_ODE_DOP853};
enum { NMETHODS = sizeof methods / sizeof methods[0] };

/* ---- accuracy on exact solutions --------------------------------------------------- */

static void decay__two_tolerances__error_near_rtol(void **state)
{
	(void)state;
	static const double tols[] = {1e-6, 1e-10};
	for (int mi = 0; mi < NMETHODS; mi++)
		for (int ti = 0; ti < 2; ti++) {
			Env e = {0};
			SartOdeProblem p = {.n = 1, .f = f_decay};
			double x0 = 1.0;
			SartOde *o = make(&p, &e, methods[mi], tols[ti], &x0);
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
			assert_true(out.t == 2.0);
			double exact = exp(-2.0);
			/* global error of a few local tolerances, relative to the solution's
			 * size (the weight nominal + |x| is about 1.1 here) */
			assert_close(sart_ode_state(o)[0], exact, 10.0 * tols[ti]);
			sart_ode_free(o);
		}
}

static void oscillator__two_tolerances__error_near_rtol(void **state)
{
	(void)state;
	static const double tols[] = {1e-6, 1e-10};
	for (int mi = 0; mi < NMETHODS; mi++)
		for (int ti = 0; ti < 2; ti++) {
			Env e = {0};
			SartOdeProblem p = {.n = 2, .f = f_osc};
			double x0[2] = {1.0, 0.0};
			SartOde *o = make(&p, &e, methods[mi], tols[ti], x0);
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, 10.0, &out), SART_ODE_REACHED);
			/* over 1.6 periods the error grows about linearly with time */
			assert_close(sart_ode_state(o)[0], cos(10.0), 40.0 * tols[ti]);
			assert_close(sart_ode_state(o)[1], -sin(10.0), 40.0 * tols[ti]);
			sart_ode_free(o);
		}
}

/* ---- events ------------------------------------------------------------------------ */

static void ball__first_impact__at_sqrt_2h_over_g(void **state)
{
	(void)state;
	static const double tols[] = {1e-6, 1e-8};
	static const double want[] = {1e-6, 1e-9};
	double h0 = 10.0, g = 9.81;
	double exact = sqrt(2.0 * h0 / g);
	for (int mi = 0; mi < NMETHODS; mi++)
		for (int ti = 0; ti < 2; ti++) {
			Env e = {0};
			SartOdeProblem p = {.n = 2, .nz = 1, .f = f_ball, .g = g_first};
			double x0[2] = {h0, 0.0};
			SartOde *o = make(&p, &e, methods[mi], tols[ti], x0);
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_STATE_EVENT);
			assert_int_equal(out.which, 0);
			assert_close(out.t, exact, want[ti]);
			assert_true(sart_ode_time(o) == out.t);
			/* stopped where the indicator has changed sign */
			assert_true(sart_ode_state(o)[0] <= 0.0);
			assert_close(sart_ode_state(o)[1], -g * exact, 10.0 * want[ti] * g);
			sart_ode_free(o);
		}
}

/* A model that reverses the ball at the impact but leaves h where the event was found
 * (<= 0, FMI's lower domain) and not lifted above the ground: the rise back through 0 is an
 * event of its own, just after the impact, and the one after it is the next impact, at
 * t1 + 2 e v1 / g.  So the flight goes on, with no endless run of events at the ground. */
static void ball__rebound_from_at_or_below_zero__one_event_then_next_impact(void **state)
{
	(void)state;
	const double h0 = 10.0, g = 9.81, e = 0.5;
	const double t1 = sqrt(2.0 * h0 / g), v1 = g * t1;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env env = {0};
		SartOdeProblem p = {.n = 2, .nz = 1, .f = f_ball, .g = g_first};
		double x[2] = {h0, 0.0};
		/* a parabola is integrated exactly, so steps would grow past a whole flight, up
		 * and down again, and miss both crossings: bounded */
		SartOdeSettings st = {.method = methods[mi], .rtol = 1e-8, .h_max = 0.1};
		p.env = &env;
		SartOde *o = sart_ode_new(&p, &st);
		assert_non_null(o);
		sart_ode_restart(o, 0.0, x, 1);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_STATE_EVENT);
		memcpy(x, sart_ode_state(o), sizeof x);
		assert_true(x[0] <= 0.0);
		x[1] = -e * x[1];
		double t_impact = out.t;
		sart_ode_restart(o, t_impact, x, 0);
		assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_STATE_EVENT);
		assert_true(out.t > t_impact && out.t - t_impact <= 1e-11);
		assert_true(sart_ode_state(o)[0] > 0.0);
		memcpy(x, sart_ode_state(o), sizeof x);
		sart_ode_restart(o, out.t, x, 0);
		assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_STATE_EVENT);
		assert_close(out.t, t1 + 2.0 * e * v1 / g, 1e-8);
		sart_ode_free(o);
	}
}

/* cos t has its zeros at pi/2 and 3 pi/2: the second after a restart at the first; the
 * root lies inside a step, so the dense output is what finds it. */
static void oscillator__zeros__located_on_dense_output(void **state)
{
	(void)state;
	static const double tols[] = {1e-6, 1e-10};
	for (int mi = 0; mi < NMETHODS; mi++)
		for (int ti = 0; ti < 2; ti++) {
			Env e = {0};
			SartOdeProblem p = {.n = 2, .nz = 1, .f = f_osc, .g = g_first};
			double x0[2] = {1.0, 0.0};
			SartOde *o = make(&p, &e, methods[mi], tols[ti], x0);
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, 10.0, &out), SART_ODE_STATE_EVENT);
			assert_close(out.t, PI / 2.0, 20.0 * tols[ti]);
			/* the state there is the dense output's: x2 = -sin t */
			assert_close(sart_ode_state(o)[1], -sin(out.t), 20.0 * tols[ti]);
			double x[2];
			memcpy(x, sart_ode_state(o), sizeof x);
			sart_ode_restart(o, out.t, x, 0);
			assert_int_equal(sart_ode_advance(o, 10.0, &out), SART_ODE_STATE_EVENT);
			assert_close(out.t, 1.5 * PI, 40.0 * tols[ti]);
			assert_true(sart_ode_state(o)[0] >= 0.0);
			sart_ode_free(o);
		}
}

static int g_times(void *env, double t, const double x[], double z[])
{
	(void)x;
	((Env *)env)->g_calls++;
	z[0] = t - 0.7; /* crosses later */
	z[1] = 0.5 - t; /* crosses first ... */
	z[2] = 0.5 - t; /* ... together with this one */
	return 0;
}

static void indicators__earliest_crossing__lowest_index_right_of_root(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .nz = 3, .f = f_decay, .g = g_times};
		double x0 = 1.0;
		SartOde *o = make(&p, &e, methods[mi], 1e-6, &x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_STATE_EVENT);
		assert_int_equal(out.which, 1);
		/* the bracket's right end, no further than t_tol (default 1e-12) */
		assert_true(out.t >= 0.5);
		assert_true(out.t - 0.5 <= 1e-12);
		/* on to the next one */
		double x = sart_ode_state(o)[0];
		sart_ode_restart(o, out.t, &x, 0);
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_STATE_EVENT);
		assert_int_equal(out.which, 0);
		assert_true(out.t >= 0.7 && out.t - 0.7 <= 1e-12);
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_REACHED);
		assert_true(out.t == 1.0);
		sart_ode_free(o);
	}
}

static int g_close(void *env, double t, const double x[], double z[])
{
	(void)x;
	((Env *)env)->g_calls++;
	z[0] = t - 0.52;
	z[1] = 0.51 - t;
	return 0;
}

/* two crossings 0.01 apart inside one long step: the earlier first, whatever its index */
static void indicators__two_crossings_in_one_step__earlier_first(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .nz = 2, .f = f_decay, .g = g_close,
				    .accepted = on_accepted};
		double x0 = 1.0;
		SartOde *o = make(&p, &e, methods[mi], 1e-3, &x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_STATE_EVENT);
		assert_int_equal(out.which, 1);
		assert_true(out.t >= 0.51 && out.t - 0.51 <= 1e-12);
		/* the step that holds them starts before both (at rtol 1e-3 the steps around
		 * t = 0.5 are 0.4 to 0.5 long, so it holds both) */
		assert_true(e.last_acc_t < 0.51);
		double x = sart_ode_state(o)[0];
		sart_ode_restart(o, out.t, &x, 0);
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_STATE_EVENT);
		assert_int_equal(out.which, 0);
		/* at 0.52 the indicator is 0, still its first domain: the bracket's right end lies
		 * after it by at most t_tol, 1e-12 max(1, |t|) for the step's end t (below 2) */
		assert_true(out.t > 0.52 && out.t - 0.52 <= 2e-12);
		sart_ode_free(o);
	}
}

/* sin t starts at 0, which is FMI's domain z <= 0: rising from it is an event at once (just
 * after 0, where sin t > 0), and the next is at pi.  -sin t starting at 0 stays in z <= 0 as
 * it falls: its first event is the rise at pi. */
static void indicator__starting_at_zero__event_only_when_rising(void **state)
{
	(void)state;
	for (int down = 0; down <= 1; down++) {
		Env e = {0};
		SartOdeProblem p = {.n = 2, .nz = 1, .f = f_osc, .g = g_first};
		double x0[2] = {0.0, down ? -1.0 : 1.0}; /* x1 = sin t or -sin t */
		SartOde *o = make(&p, &e, SART_ODE_DOPRI5, 1e-8, x0);
		SartOdeOutcome out;
		if (!down) {
			assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_STATE_EVENT);
			assert_true(out.t > 0.0 && out.t <= 1e-11);
			assert_true(sart_ode_state(o)[0] > 0.0);
			sart_ode_restart(o, out.t, sart_ode_state(o), 0);
		}
		assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_STATE_EVENT);
		assert_close(out.t, PI, 1e-7);
		assert_true(down ? sart_ode_state(o)[0] > 0.0 : sart_ode_state(o)[0] <= 0.0);
		sart_ode_free(o);
	}
}

/* ---- stiff problems ---------------------------------------------------------------- */

static const double ROBER_40[3] = {0.7158270687193e0, 0.9185534764e-5, 0.2841637457e0};

static SartOde *rober(Env *e, SartOdeMethod m, double rtol, int analytic)
{
	static const double nominal[3] = {1.0, 1e-4, 1.0};
	SartOdeProblem p = {.n = 3, .f = f_rober, .jac = analytic ? jac_rober : NULL, .env = e};
	SartOdeSettings s = {.method = m, .rtol = rtol, .nominal = nominal};
	SartOde *o = sart_ode_new(&p, &s);
	assert_non_null(o);
	double y0[3] = {1.0, 0.0, 0.0};
	sart_ode_restart(o, 0.0, y0, 1);
	return o;
}

static void robertson__rodas_and_auto__meet_reference(void **state)
{
	(void)state;
	long steps[3];
	static const SartOdeMethod ms[3] = {SART_ODE_RODAS, SART_ODE_AUTO, SART_ODE_DOPRI5};
	for (int mi = 0; mi < 3; mi++) {
		Env e = {0};
		SartOde *o = rober(&e, ms[mi], 1e-7, 0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 40.0, &out), SART_ODE_REACHED);
		const double *y = sart_ode_state(o);
		/* the reference values carry 10 digits for y2 and y3 */
		assert_true(rel_err(y[0], ROBER_40[0]) < 1e-5);
		assert_true(rel_err(y[1], ROBER_40[1]) < 1e-5);
		assert_true(rel_err(y[2], ROBER_40[2]) < 1e-5);
		const SartOdeStats *st = sart_ode_stats(o);
		steps[mi] = st->steps + st->rejected;
		assert_int_equal(st->switched, ms[mi] == SART_ODE_AUTO);
		assert_int_equal(st->f_evals, e.f_calls);
		sart_ode_free(o);
	}
	/* the explicit method crawls along its stability border */
	assert_true(steps[0] * 20 < steps[2]);
	assert_true(steps[1] * 10 < steps[2]);
}

static void robertson__analytic_and_difference_jacobians__agree(void **state)
{
	(void)state;
	Env ea = {0}, ed = {0};
	SartOde *a = rober(&ea, SART_ODE_RODAS, 1e-8, 1);
	SartOde *d = rober(&ed, SART_ODE_RODAS, 1e-8, 0);
	SartOdeOutcome out;
	assert_int_equal(sart_ode_advance(a, 40.0, &out), SART_ODE_REACHED);
	assert_int_equal(sart_ode_advance(d, 40.0, &out), SART_ODE_REACHED);
	for (int i = 0; i < 3; i++) {
		assert_true(rel_err(sart_ode_state(a)[i], ROBER_40[i]) < 1e-6);
		assert_true(rel_err(sart_ode_state(a)[i], sart_ode_state(d)[i]) < 1e-6);
	}
	assert_true(ea.jac_calls > 0);
	assert_int_equal(ea.jac_calls, sart_ode_stats(a)->jac_evals);
	assert_int_equal(ed.jac_calls, 0);
	sart_ode_free(a);
	sart_ode_free(d);
}

static void van_der_pol__rodas_and_auto__meet_reference(void **state)
{
	(void)state;
	static const double ref[2] = {0.1706167732170483e1, -0.8928097010247975e0};
	static const SartOdeMethod ms[2] = {SART_ODE_RODAS, SART_ODE_AUTO};
	for (int mi = 0; mi < 2; mi++)
		for (int analytic = 0; analytic < 2; analytic++) {
			Env e = {0};
			SartOdeProblem p = {.n = 2, .f = f_vdp, .jac = analytic ? jac_vdp : NULL};
			double y0[2] = {2.0, 0.0};
			SartOde *o = make(&p, &e, ms[mi], 1e-8, y0);
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
			assert_true(rel_err(sart_ode_state(o)[0], ref[0]) < 1e-6);
			assert_true(rel_err(sart_ode_state(o)[1], ref[1]) < 1e-6);
			assert_int_equal(sart_ode_stats(o)->switched, ms[mi] == SART_ODE_AUTO);
			sart_ode_free(o);
		}
}

static void forced__time_dependent_stiff__rodas_matches_exact(void **state)
{
	(void)state;
	static const double tols[] = {1e-5, 1e-8};
	for (int ti = 0; ti < 2; ti++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .f = f_forced};
		/* from t = 0, and from t = 1e6 s, where df/dt's difference quotient must
		 * still be accurate */
		for (int late = 0; late < 2; late++) {
			double t0 = late ? 1e6 : 0.0;
			double x0 = 0.0;
			SartOde *o = make(&p, &e, SART_ODE_RODAS, tols[ti], &x0);
			sart_ode_restart(o, t0, &x0, 1);
			SartOdeOutcome out;
			/* at 0.5 past the start (after the transient) and at 3 */
			assert_int_equal(sart_ode_advance(o, t0 + 0.5, &out), SART_ODE_REACHED);
			assert_close(sart_ode_state(o)[0], forced_exact(t0 + 0.5, t0, x0),
				     10.0 * tols[ti]);
			assert_int_equal(sart_ode_advance(o, t0 + 3.0, &out), SART_ODE_REACHED);
			assert_close(sart_ode_state(o)[0], forced_exact(t0 + 3.0, t0, x0),
				     10.0 * tols[ti]);
			/* stiff: far fewer steps than the explicit method's 1000 t / 3.3 */
			assert_true(sart_ode_stats(o)->steps < 300);
			sart_ode_free(o);
		}
	}
}

/* The stiffness test must not fire on problems that are not stiff, at any tolerance. */
static void auto__non_stiff_problems__never_switch(void **state)
{
	(void)state;
	int (*const fs[2])(void *, double, const double *, double *) = {f_osc, f_vdp1};
	for (int k = 0; k < 2; k++)
		for (double rtol = 1e-2; rtol > 1e-11; rtol /= 10.0) {
			Env e = {0};
			SartOdeProblem p = {.n = 2, .f = fs[k]};
			double x0[2] = {2.0, 0.0};
			SartOde *o = make(&p, &e, SART_ODE_AUTO, rtol, x0);
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, 20.0, &out), SART_ODE_REACHED);
			assert_int_equal(sart_ode_stats(o)->switched, 0);
			sart_ode_free(o);
		}
}

/* x' = 40 x, whose Jacobian makes W = I/(h gamma) - J zero for h = 0.1 (gamma = 1/4) */
static int f_growth(void *env, double t, const double x[], double dx[])
{
	watch(env, t);
	dx[0] = 40.0 * x[0];
	return 0;
}

static int jac_growth(void *env, double t, const double x[], const double fx[], double J[])
{
	(void)env, (void)t, (void)x, (void)fx;
	J[0] = 40.0;
	return 0;
}

/* a Jacobian whose elimination overflows, whatever the step */
static int jac_overflow(void *env, double t, const double x[], const double fx[], double J[])
{
	(void)env, (void)t, (void)x, (void)fx;
	J[0] = 1e308, J[1] = 1e308, J[2] = 1e308, J[3] = -1e308;
	return 0;
}

static void rodas__singular_matrix__halves_step_then_gives_up(void **state)
{
	(void)state;
	/* singular at the step the memo gives: halved once, then on to the exact value */
	Env e = {0};
	SartOdeProblem p = {.n = 1, .f = f_growth, .jac = jac_growth};
	double x0 = 1.0;
	SartOde *o = make(&p, &e, SART_ODE_RODAS, 1e-8, &x0);
	SartOdeMemo m = {.h = 0.1, .method = SART_ODE_RODAS};
	sart_ode_set_memo(o, &m);
	sart_ode_restart(o, 0.0, &x0, 0);
	SartOdeOutcome out;
	assert_int_equal(sart_ode_advance(o, 0.2, &out), SART_ODE_REACHED);
	assert_true(rel_err(sart_ode_state(o)[0], exp(8.0)) < 1e-6);
	assert_true(sart_ode_stats(o)->rejected >= 1);
	sart_ode_free(o);

	/* singular at every step */
	Env e2 = {0};
	SartOdeProblem p2 = {.n = 2, .f = f_osc, .jac = jac_overflow};
	double x2[2] = {1.0, 0.0};
	o = make(&p2, &e2, SART_ODE_RODAS, 1e-6, x2);
	assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_SINGULAR);
	assert_true(out.t == 0.0 && sart_ode_time(o) == 0.0);
	assert_true(out.h > 0.0);
	assert_memory_equal(sart_ode_state(o), x2, sizeof x2);
	sart_ode_free(o);
}

/* ---- nominals ---------------------------------------------------------------------- */

static void nominals__large_and_small_states__both_relative(void **state)
{
	(void)state;
	static const double nominal[2] = {1e6, 1e-6};
	double rtol = 1e-6;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {.lambda = 2.0};
		SartOdeProblem p = {.n = 2, .f = f_decay, .env = &e};
		SartOdeSettings s = {.method = methods[mi], .rtol = rtol, .nominal = nominal};
		SartOde *o = sart_ode_new(&p, &s);
		assert_non_null(o);
		double x0[2] = {1e6, 1e-6};
		sart_ode_restart(o, 0.0, x0, 1);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_REACHED);
		assert_true(rel_err(sart_ode_state(o)[0], 1e6 * exp(-1.0)) < 10.0 * rtol);
		assert_true(rel_err(sart_ode_state(o)[1], 1e-6 * exp(-2.0)) < 10.0 * rtol);
		sart_ode_free(o);
	}
}

/* ---- reaching t_end ---------------------------------------------------------------- */

static void advance__awkward_end_times__hit_exactly_never_past(void **state)
{
	(void)state;
	static const double ends[] = {0.1, 0.3, 0.7000000000000001, 1.1, 1.3};
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 2, .f = f_osc};
		double x0[2] = {1.0, 0.0};
		SartOde *o = make(&p, &e, methods[mi], 1e-6, x0);
		for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
			SartOdeOutcome out;
			assert_int_equal(sart_ode_advance(o, ends[k], &out), SART_ODE_REACHED);
			assert_true(out.t == ends[k]);
			assert_true(sart_ode_time(o) == ends[k]);
			assert_true(e.t_max <= ends[k]);
			/* restart as the seam does after each communication point */
			double x[2];
			memcpy(x, sart_ode_state(o), sizeof x);
			sart_ode_restart(o, ends[k], x, 0);
		}
		assert_close(sart_ode_state(o)[0], cos(1.3), 1e-5);
		sart_ode_free(o);
	}
}

static int on_accepted_gap(void *env, double t, const double x[], int *stop)
{
	Env *e = env;
	(void)x, (void)stop;
	if (e->acc_calls > 0 && t - e->last_acc_t > e->widest)
		e->widest = t - e->last_acc_t;
	e->acc_calls++;
	e->last_acc_t = t;
	return 0;
}

static void settings__h_max_and_empty_interval__respected(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .f = f_decay, .accepted = on_accepted_gap};
		double x0 = 1.0;
		SartOde *o = make_capped(&p, &e, methods[mi], 1e-3, 0.05, 0.0, &x0);
		SartOdeOutcome out;
		/* nothing to do: nothing evaluated */
		assert_int_equal(sart_ode_advance(o, 0.0, &out), SART_ODE_REACHED);
		assert_int_equal(e.f_calls, 0);
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
		/* x' = -x at rtol 1e-3 would take steps of about 0.5; the last one may be
		 * stretched by 1% to reach the end */
		assert_true(e.widest > 0.0 && e.widest <= 0.05 * 1.01);
		assert_true(sart_ode_stats(o)->steps >= 40);
		sart_ode_free(o);
	}
}

static void restart__with_reset__auto_back_to_explicit(void **state)
{
	(void)state;
	Env e = {0};
	SartOde *o = rober(&e, SART_ODE_AUTO, 1e-6, 0);
	SartOdeOutcome out;
	assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_REACHED);
	SartOdeMemo m;
	sart_ode_get_memo(o, &m);
	assert_int_equal(m.method, SART_ODE_RODAS);
	double y[3];
	memcpy(y, sart_ode_state(o), sizeof y);
	sart_ode_restart(o, 1.0, y, 0);
	sart_ode_get_memo(o, &m);
	assert_int_equal(m.method, SART_ODE_RODAS);
	/* back to the explicit method for the tolerance: DOP853 at 1e-6 */
	sart_ode_restart(o, 1.0, y, 1);
	sart_ode_get_memo(o, &m);
	assert_int_equal(m.method, SART_ODE_DOP853);
	assert_true(m.h == 0.0 && m.stiff_count == 0);
	sart_ode_free(o);
}

/* ---- DOP853 ------------------------------------------------------------------------ */

/* x' = (k + 1) t^k from 0: x = t^(k+1) */
static int f_power(void *env, double t, const double x[], double dx[])
{
	Env *e = env;
	(void)x;
	watch(e, t);
	dx[0] = (e->lambda + 1.0) * pow(t, e->lambda);
	return 0;
}

/* The 8th-order weights integrate polynomials of degree 7 exactly, whatever the steps
 * (the order conditions sum_i b_i c_i^k = 1/(k+1), k <= 7); degree 8 is the first they
 * miss, by (sum_i b_i c_i^8 - 1/9) h^9 per step. */
static void dop853__polynomials__exact_to_degree_7(void **state)
{
	(void)state;
	for (int k = 0; k <= 8; k++) {
		Env e = {.lambda = k};
		SartOdeProblem p = {.n = 1, .f = f_power};
		double x0 = 0.0;
		SartOde *o = make_capped(&p, &e, SART_ODE_DOP853, 1e-3, 0.25, 0.0, &x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
		double exact = pow(2.0, k + 1);
		double err = fabs(sart_ode_state(o)[0] - exact) / exact;
		if (k <= 7)
			assert_true(err < 1e-14);
		else
			assert_true(err > 1e-11);
		sart_ode_free(o);
	}
}

/* x' = -x from 1 to t = 4 in fixed steps (h_max, a tolerance loose enough never to cut
 * them): halving the step divides the global error by 2^8. */
static double decay_fixed_step_error(SartOdeMethod method, double h)
{
	Env e = {0};
	SartOdeProblem p = {.n = 1, .f = f_decay};
	double x0 = 1.0;
	/* the first step h too, not the initial step's guess */
	SartOde *o = make_capped(&p, &e, method, 1.0, h, h, &x0);
	SartOdeOutcome out;
	assert_int_equal(sart_ode_advance(o, 4.0, &out), SART_ODE_REACHED);
	const SartOdeStats *st = sart_ode_stats(o);
	/* every step h_max long: the fixed-step premise of the ratio */
	assert_int_equal(st->rejected, 0);
	assert_int_equal(st->steps, (long)(4.0 / h + 0.5));
	double err = fabs(sart_ode_state(o)[0] - exp(-4.0));
	sart_ode_free(o);
	return err;
}

static void dop853__fixed_steps__error_order_8(void **state)
{
	(void)state;
	double e1 = decay_fixed_step_error(SART_ODE_DOP853, 1.0);
	double e2 = decay_fixed_step_error(SART_ODE_DOP853, 0.5);
	double e3 = decay_fixed_step_error(SART_ODE_DOP853, 0.25);
	/* 2^8 = 256, the next-order terms still visible at h = 1; at h = 0.25 the error
	 * (1e-13) is still 500 times the rounding's */
	assert_true(e1 / e2 > 180.0 && e1 / e2 < 330.0);
	assert_true(e2 / e3 > 220.0 && e2 / e3 < 300.0);
	/* and DOPRI5 beside it: 2^5 */
	double d1 = decay_fixed_step_error(SART_ODE_DOPRI5, 0.25);
	double d2 = decay_fixed_step_error(SART_ODE_DOPRI5, 0.125);
	assert_true(d1 / d2 > 25.0 && d1 / d2 < 40.0);
}

/* t - tm, for tm in the middle of the first step */
static int g_mid(void *env, double t, const double x[], double z[])
{
	Env *e = env;
	(void)x;
	e->g_calls++;
	z[0] = t - e->t_root;
	return 0;
}

/* The dense output is of order 7: in the middle of a fixed step h its error falls as h^8
 * (a wrong coefficient among the 64 of its four highest terms would leave a lower
 * power). */
static void dop853__dense_output__error_order_7(void **state)
{
	(void)state;
	double err[3];
	for (int k = 0; k < 3; k++) {
		double h = ldexp(1.0, -k);
		Env e = {.t_root = 0.5 * h};
		SartOdeProblem p = {.n = 2, .nz = 1, .f = f_osc, .g = g_mid};
		double x0[2] = {1.0, 0.0};
		SartOde *o = make_capped(&p, &e, SART_ODE_DOP853, 1.0, h, h, x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 3.0, &out), SART_ODE_STATE_EVENT);
		assert_int_equal(sart_ode_stats(o)->steps, 1);
		assert_close(out.t, 0.5 * h, 1e-12);
		err[k] = fabs(sart_ode_state(o)[0] - cos(out.t));
		sart_ode_free(o);
	}
	assert_true(err[0] / err[1] > 220.0 && err[0] / err[1] < 300.0);
	assert_true(err[1] / err[2] > 220.0 && err[1] / err[2] < 300.0);
}

/* Exact solutions at tight tolerances, where DOP853 is what runs: within a small factor of
 * rtol (the error weight is about rtol there, as nominal + |x| is about 1). */
static void dop853__exact_solutions__three_tolerances(void **state)
{
	(void)state;
	static const double tols[] = {1e-6, 1e-10, 1e-12};
	for (int ti = 0; ti < 3; ti++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .f = f_decay};
		double x0 = 1.0;
		SartOde *o = make(&p, &e, SART_ODE_DOP853, tols[ti], &x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
		assert_close(sart_ode_state(o)[0], exp(-2.0), 10.0 * tols[ti]);
		sart_ode_free(o);

		SartOdeProblem q = {.n = 2, .f = f_osc};
		double y0[2] = {1.0, 0.0};
		o = make(&q, &e, SART_ODE_DOP853, tols[ti], y0);
		assert_int_equal(sart_ode_advance(o, 10.0, &out), SART_ODE_REACHED);
		assert_close(sart_ode_state(o)[0], cos(10.0), 40.0 * tols[ti]);
		assert_close(sart_ode_state(o)[1], -sin(10.0), 40.0 * tols[ti]);
		sart_ode_free(o);
	}
}

/* The restricted three-body problem's periodic orbit (Arenstorf; Hairer, Norsett &
 * Wanner I, II.0): after one published period the state is the initial one again. */
static const double ARENSTORF_T = 17.0652165601579625588917206249;

static int f_arenstorf(void *env, double t, const double y[], double dy[])
{
	watch(env, t);
	const double mu = 0.012277471, mp = 1.0 - mu;
	double r1 = (y[0] + mu) * (y[0] + mu) + y[1] * y[1];
	double r2 = (y[0] - mp) * (y[0] - mp) + y[1] * y[1];
	double d1 = r1 * sqrt(r1), d2 = r2 * sqrt(r2);
	dy[0] = y[2];
	dy[1] = y[3];
	dy[2] = y[0] + 2.0 * y[3] - mp * (y[0] + mu) / d1 - mu * (y[0] - mp) / d2;
	dy[3] = y[1] - 2.0 * y[2] - mp * y[1] / d1 - mu * y[1] / d2;
	return 0;
}

static void dop853__arenstorf__back_at_start_after_one_period(void **state)
{
	(void)state;
	static const double y0[4] = {0.994, 0.0, 0.0, -2.00158510637908252240537862224};
	static const double tols[] = {1e-8, 1e-10, 1e-12};
	double prev = INFINITY;
	for (int ti = 0; ti < 3; ti++) {
		Env e = {0};
		SartOdeProblem p = {.n = 4, .f = f_arenstorf};
		SartOde *o = make(&p, &e, SART_ODE_DOP853, tols[ti], y0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, ARENSTORF_T, &out), SART_ODE_REACHED);
		double err = 0.0;
		for (int i = 0; i < 4; i++) {
			double d = fabs(sart_ode_state(o)[i] - y0[i]) / (1.0 + fabs(y0[i]));
			if (d > err)
				err = d;
		}
		/* the two close approaches to the smaller body amplify local errors about
		 * 1e4-fold over the period (GSL's rk8pd ends as far off at equal work) */
		assert_true(err < 1e5 * tols[ti]);
		/* and the error falls with the tolerance */
		assert_true(err < 0.2 * prev);
		prev = err;
		sart_ode_free(o);
	}
}

/* A dense output is computed only for a step with an event inside it: a run without
 * events costs 12 evaluations per accepted step and 11 per rejected one (plus f at the
 * start), and a located event 3 more, once. */
static void dop853__dense_output__only_for_a_step_with_an_event(void **state)
{
	(void)state;
	for (int with_event = 0; with_event < 2; with_event++) {
		Env e = {0};
		SartOdeProblem p = {.n = 2, .nz = with_event, .f = f_osc,
				    .g = with_event ? g_first : NULL};
		double x0[2] = {1.0, 0.0};
		SartOde *o = make_capped(&p, &e, SART_ODE_DOP853, 1e-8, 0.0, 0.01, x0);
		SartOdeOutcome out;
		sart_ode_advance(o, 3.0, &out);
		assert_int_equal(out.result, with_event ? SART_ODE_STATE_EVENT : SART_ODE_REACHED);
		const SartOdeStats *st = sart_ode_stats(o);
		assert_true(st->steps >= 4);
		assert_int_equal(e.f_calls, 1 + 12 * st->steps + 11 * st->rejected +
						    3 * with_event);
		if (with_event) {
			/* cos t's zero, found on the interpolant, whose error constant is larger
			 * than the step's (below: 8e-7 h^8 in the middle of a step) */
			assert_close(out.t, PI / 2.0, 2e-8);
			assert_close(sart_ode_state(o)[1], -1.0, 5e-8);
		}
		sart_ode_free(o);
	}
}

/* The stiffness test runs after DOP853's steps as after DOPRI5's: on Robertson's problem
 * it fires (the counter saturates at 15) and AUTO, which starts with DOP853 at these
 * tolerances, switches to RODAS early. */
static void dop853__robertson__stiffness_detected(void **state)
{
	(void)state;
	static const double tols[] = {1e-6, 1e-8, 1e-10};
	for (int ti = 0; ti < 3; ti++) {
		Env e = {0};
		SartOde *o = rober(&e, SART_ODE_DOP853, tols[ti], 0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_REACHED);
		SartOdeMemo m;
		sart_ode_get_memo(o, &m);
		assert_int_equal(m.stiff_count, 15);
		/* a method named explicitly stays itself */
		assert_int_equal(m.method, SART_ODE_DOP853);
		assert_int_equal(sart_ode_stats(o)->switched, 0);
		long explicit_steps = sart_ode_stats(o)->steps;
		sart_ode_free(o);

		Env ea = {0};
		o = rober(&ea, SART_ODE_AUTO, tols[ti], 0);
		sart_ode_get_memo(o, &m);
		assert_int_equal(m.method, SART_ODE_DOP853);
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_REACHED);
		sart_ode_get_memo(o, &m);
		assert_int_equal(m.method, SART_ODE_RODAS);
		assert_int_equal(sart_ode_stats(o)->switched, 1);
		assert_true(sart_ode_stats(o)->steps * 2 < explicit_steps);
		sart_ode_free(o);
	}
}

/* Which explicit method AUTO starts with: DOPRI5 above SART_ODE_DOP853_RTOL, DOP853 at
 * and below it. */
static void explicit_method__by_tolerance(void **state)
{
	(void)state;
	assert_int_equal(sart_ode_explicit_method(1e-2), SART_ODE_DOPRI5);
	assert_int_equal(sart_ode_explicit_method(1e-4), SART_ODE_DOPRI5);
	assert_int_equal(sart_ode_explicit_method(SART_ODE_DOP853_RTOL), SART_ODE_DOP853);
	assert_int_equal(sart_ode_explicit_method(1e-12), SART_ODE_DOP853);
	static const double tols[] = {1e-4, 1e-8};
	for (int ti = 0; ti < 2; ti++) {
		Env e = {0};
		SartOdeProblem p = {.n = 2, .f = f_osc};
		double x0[2] = {1.0, 0.0};
		SartOde *o = make(&p, &e, SART_ODE_AUTO, tols[ti], x0);
		SartOdeMemo m;
		sart_ode_get_memo(o, &m);
		assert_int_equal(m.method, ti == 0 ? SART_ODE_DOPRI5 : SART_ODE_DOP853);
		/* a front end's "explicit" resolves the same way, once, at creation */
		SartOde *ex = make(&p, &e, SART_ODE_EXPLICIT, tols[ti], x0);
		SartOdeMemo mx;
		sart_ode_get_memo(ex, &mx);
		assert_int_equal(mx.method, m.method);
		sart_ode_free(ex);
		/* a memo naming the other explicit method does not override the choice */
		m.method = ti == 0 ? SART_ODE_DOP853 : SART_ODE_DOPRI5;
		sart_ode_set_memo(o, &m);
		sart_ode_get_memo(o, &m);
		assert_int_equal(m.method, ti == 0 ? SART_ODE_DOPRI5 : SART_ODE_DOP853);
		sart_ode_free(o);
	}
}

/* ---- failures ---------------------------------------------------------------------- */

static void nan_derivative__not_finite__at_last_accepted_point(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {.lambda = 1.0, .nan_after = 0.5};
		SartOdeProblem p = {.n = 2, .f = f_decay};
		double x0[2] = {1.0, 1.0};
		SartOde *o = make(&p, &e, methods[mi], 1e-6, x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_NOT_FINITE);
		assert_int_equal(out.which, 1);
		/* the failing stages made the steps shorter down to the smallest: the solver
		 * stops just before the model's domain ends */
		assert_true(out.t <= 0.5 && out.t > 0.5 - 1e-9);
		assert_true(sart_ode_time(o) == out.t);
		/* the state is that accepted point's, not a half step's */
		assert_close(sart_ode_state(o)[0], exp(-out.t), 1e-5);
		sart_ode_free(o);
	}
}

static void nan_in_trial_stage__shorter_step__recovers(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .f = f_sqrt_domain};
		double x0 = 1.0;
		SartOde *o = make(&p, &e, methods[mi], 1e-6, &x0);
		/* a step size guess far too long for the domain */
		SartOdeMemo m = {.h = 20.0, .method = methods[mi]};
		sart_ode_set_memo(o, &m);
		sart_ode_restart(o, 0.0, &x0, 0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 5.0, &out), SART_ODE_REACHED);
		assert_true(rel_err(sart_ode_state(o)[0], exp(-5.0)) < 1e-4);
		assert_true(sart_ode_stats(o)->rejected > 0);
		sart_ode_free(o);
	}
}

static void blowup__step_too_small__before_the_pole(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 1, .f = f_blowup};
		double x0 = 1.0;
		SartOde *o = make(&p, &e, methods[mi], 1e-6, &x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_STEP_TOO_SMALL);
		/* the numerical solution's pole is the exact one moved by the accumulated
		 * relative error, a few rtol: the solver stops there, not at t = 2 */
		assert_close(out.t, 1.0, 1e-4);
		assert_true(out.h > 0.0 && out.h < 1e-13);
		assert_true(sart_ode_state(o)[0] > 1e10);
		assert_true(e.t_max < 1.0001);
		sart_ode_free(o);
	}
}

static void callbacks__failure_codes__passed_on(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		SartOdeOutcome out;
		double x0[2] = {1.0, 1.0};
		/* f */
		Env ef = {.fail_after = 0.3, .fail_code = 7};
		SartOdeProblem pf = {.n = 1, .f = f_decay};
		SartOde *o = make(&pf, &ef, methods[mi], 1e-6, x0);
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_MODEL_FAILED);
		assert_int_equal(out.code, 7);
		assert_true(out.t <= 0.3);
		sart_ode_free(o);
		/* g, from its first call at the start */
		Env eg = {.g_code = 3};
		SartOdeProblem pg = {.n = 2, .nz = 1, .f = f_osc, .g = g_first};
		o = make(&pg, &eg, methods[mi], 1e-6, x0);
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_MODEL_FAILED);
		assert_int_equal(out.code, 3);
		assert_true(out.t == 0.0);
		sart_ode_free(o);
		/* accepted */
		Env ea = {.acc_code = 9};
		SartOdeProblem pa = {.n = 2, .f = f_osc, .accepted = on_accepted};
		o = make(&pa, &ea, methods[mi], 1e-6, x0);
		assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_MODEL_FAILED);
		assert_int_equal(out.code, 9);
		assert_int_equal(ea.acc_calls, 1);
		assert_true(out.t == ea.last_acc_t && out.t > 0.0);
		sart_ode_free(o);
	}
	/* jac, RODAS only */
	Env ej = {.jac_code = 5};
	SartOde *o = rober(&ej, SART_ODE_RODAS, 1e-6, 1);
	SartOdeOutcome out;
	assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_MODEL_FAILED);
	assert_int_equal(out.code, 5);
	sart_ode_free(o);
}

static void accepted__asks_to_stop__step_event_there(void **state)
{
	(void)state;
	for (int mi = 0; mi < NMETHODS; mi++) {
		Env e = {.stop_at = 3};
		SartOdeProblem p = {.n = 2, .f = f_osc, .accepted = on_accepted};
		double x0[2] = {1.0, 0.0};
		SartOde *o = make(&p, &e, methods[mi], 1e-6, x0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 10.0, &out), SART_ODE_STEP_EVENT);
		assert_int_equal(e.acc_calls, 3);
		assert_true(out.t == e.last_acc_t);
		assert_true(sart_ode_time(o) == out.t);
		assert_int_equal(sart_ode_stats(o)->steps, 3);
		assert_close(sart_ode_state(o)[0], cos(out.t), 1e-5);
		sart_ode_free(o);
	}
}

/* ---- memo -------------------------------------------------------------------------- */

static void memo__restored_at_same_point__continuation_bit_identical(void **state)
{
	(void)state;
	static const SartOdeMethod ms[4] = {SART_ODE_DOPRI5, SART_ODE_RODAS, SART_ODE_AUTO,
					    SART_ODE_DOP853};
	for (int mi = 0; mi < 4; mi++) {
		Env e = {0};
		SartOde *o = rober(&e, ms[mi], 1e-6, 0);
		SartOdeOutcome out;
		assert_int_equal(sart_ode_advance(o, 0.3, &out), SART_ODE_REACHED);
		SartOdeMemo m;
		sart_ode_get_memo(o, &m);
		double x1[3], xa[3];
		memcpy(x1, sart_ode_state(o), sizeof x1);
		sart_ode_restart(o, 0.3, x1, 0);
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
		memcpy(xa, sart_ode_state(o), sizeof xa);
		long fa = sart_ode_stats(o)->f_evals;

		/* the same solver, on from where it was saved */
		sart_ode_set_memo(o, &m);
		sart_ode_restart(o, 0.3, x1, 0);
		assert_int_equal(sart_ode_advance(o, 2.0, &out), SART_ODE_REACHED);
		assert_memory_equal(sart_ode_state(o), xa, sizeof xa);
		long fb = sart_ode_stats(o)->f_evals;

		/* a new solver given the memo */
		Env e2 = {0};
		SartOde *o2 = rober(&e2, ms[mi], 1e-6, 0);
		sart_ode_set_memo(o2, &m);
		sart_ode_restart(o2, 0.3, x1, 0);
		assert_int_equal(sart_ode_advance(o2, 2.0, &out), SART_ODE_REACHED);
		assert_memory_equal(sart_ode_state(o2), xa, sizeof xa);
		/* the same work each time */
		assert_int_equal(sart_ode_stats(o2)->f_evals, fb - fa);
		sart_ode_free(o2);
		sart_ode_free(o);
	}
}

/* ---- counting ---------------------------------------------------------------------- */

static void stats__evaluations__counted_as_called(void **state)
{
	(void)state;
	static const SartOdeMethod ms[3] = {SART_ODE_DOPRI5, SART_ODE_RODAS, SART_ODE_AUTO};
	for (int mi = 0; mi < 3; mi++) {
		Env e = {0};
		SartOdeProblem p = {.n = 2, .nz = 1, .f = f_osc, .g = g_first,
				    .accepted = on_accepted};
		double x0[2] = {1.0, 0.0};
		SartOde *o = make(&p, &e, ms[mi], 1e-6, x0);
		SartOdeOutcome out;
		while (sart_ode_advance(o, 20.0, &out) == SART_ODE_STATE_EVENT) {
			double x[2];
			memcpy(x, sart_ode_state(o), sizeof x);
			sart_ode_restart(o, out.t, x, 0);
		}
		assert_int_equal(out.result, SART_ODE_REACHED);
		const SartOdeStats *st = sart_ode_stats(o);
		assert_int_equal(st->f_evals, e.f_calls);
		assert_int_equal(st->g_evals, e.g_calls);
		/* accepted() is called for each step that does not end at an event */
		assert_true(e.acc_calls < st->steps && e.acc_calls > 0);
		sart_ode_free(o);
	}
	/* DOPRI5 from a known step size: one f at the start, then 6 per attempt (FSAL) */
	Env e = {0};
	SartOdeProblem p = {.n = 2, .f = f_osc};
	double x0[2] = {1.0, 0.0};
	SartOde *o = make(&p, &e, SART_ODE_DOPRI5, 1e-6, x0);
	SartOdeMemo m = {.h = 0.01, .method = SART_ODE_DOPRI5};
	sart_ode_set_memo(o, &m);
	sart_ode_restart(o, 0.0, x0, 0);
	SartOdeOutcome out;
	assert_int_equal(sart_ode_advance(o, 1.0, &out), SART_ODE_REACHED);
	const SartOdeStats *st = sart_ode_stats(o);
	assert_int_equal(e.f_calls, 1 + 6 * (st->steps + st->rejected));
	sart_ode_free(o);
}

static void new__bad_settings__refused(void **state)
{
	(void)state;
	SartOdeProblem p = {.n = 1, .f = f_decay};
	SartOdeSettings s = {.rtol = 1e-6};
	SartOde *o = sart_ode_new(&p, &s);
	assert_non_null(o);
	sart_ode_free(o);
	s.rtol = 0.0;
	assert_null(sart_ode_new(&p, &s));
	s.rtol = NAN;
	assert_null(sart_ode_new(&p, &s));
	s.rtol = 1e-6;
	p.n = 0;
	assert_null(sart_ode_new(&p, &s));
	p.n = 1;
	p.nz = 1; /* indicators without g */
	assert_null(sart_ode_new(&p, &s));
	p.nz = 0;
	double bad = -1.0;
	s.nominal = &bad;
	assert_null(sart_ode_new(&p, &s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decay__two_tolerances__error_near_rtol),
		cmocka_unit_test(oscillator__two_tolerances__error_near_rtol),
		cmocka_unit_test(ball__first_impact__at_sqrt_2h_over_g),
		cmocka_unit_test(ball__rebound_from_at_or_below_zero__one_event_then_next_impact),
		cmocka_unit_test(oscillator__zeros__located_on_dense_output),
		cmocka_unit_test(indicators__earliest_crossing__lowest_index_right_of_root),
		cmocka_unit_test(indicators__two_crossings_in_one_step__earlier_first),
		cmocka_unit_test(indicator__starting_at_zero__event_only_when_rising),
		cmocka_unit_test(robertson__rodas_and_auto__meet_reference),
		cmocka_unit_test(robertson__analytic_and_difference_jacobians__agree),
		cmocka_unit_test(van_der_pol__rodas_and_auto__meet_reference),
		cmocka_unit_test(forced__time_dependent_stiff__rodas_matches_exact),
		cmocka_unit_test(auto__non_stiff_problems__never_switch),
		cmocka_unit_test(rodas__singular_matrix__halves_step_then_gives_up),
		cmocka_unit_test(nominals__large_and_small_states__both_relative),
		cmocka_unit_test(advance__awkward_end_times__hit_exactly_never_past),
		cmocka_unit_test(settings__h_max_and_empty_interval__respected),
		cmocka_unit_test(restart__with_reset__auto_back_to_explicit),
		cmocka_unit_test(dop853__polynomials__exact_to_degree_7),
		cmocka_unit_test(dop853__fixed_steps__error_order_8),
		cmocka_unit_test(dop853__dense_output__error_order_7),
		cmocka_unit_test(dop853__exact_solutions__three_tolerances),
		cmocka_unit_test(dop853__arenstorf__back_at_start_after_one_period),
		cmocka_unit_test(dop853__dense_output__only_for_a_step_with_an_event),
		cmocka_unit_test(dop853__robertson__stiffness_detected),
		cmocka_unit_test(explicit_method__by_tolerance),
		cmocka_unit_test(nan_derivative__not_finite__at_last_accepted_point),
		cmocka_unit_test(nan_in_trial_stage__shorter_step__recovers),
		cmocka_unit_test(blowup__step_too_small__before_the_pole),
		cmocka_unit_test(callbacks__failure_codes__passed_on),
		cmocka_unit_test(accepted__asks_to_stop__step_event_there),
		cmocka_unit_test(memo__restored_at_same_point__continuation_bit_identical),
		cmocka_unit_test(stats__evaluations__counted_as_called),
		cmocka_unit_test(new__bad_settings__refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
