/* powerwindow_ref — the power window as one system, the monolithic reference the
 * co-simulation is judged against.
 *
 *   powerwindow_ref [--stop T] [--out-step DT] [--rtol R] [-o FILE.csv]
 *
 * One state vector x = (armature current i, shaft speed w, shaft angle th), one right-hand
 * side with the motor, the window's friction and the obstacle's spring written together:
 *
 *   L i'  = V - R i - K w
 *   J w'  = K i - b w - tau,   tau = r F + b_w r w,   F = c (r th - p) if r th > p, else 0
 *   th'   = w
 *
 * integrated by GSL's odeiv2 BDF stepper (msbdf, with the exact Jacobian): the contact makes
 * the system stiff (c r^2 / J = 1.4e9 s^-2) and the error control resolves every bounce.
 * GSL is what the two-mass FMUs already link, so the reference costs no further library.
 * The control logic is a hybrid layer around it, written from the specification, not from
 * the FMUs: the integrator stops at every button instant and at the emergency's expiry,
 * and finds two roots: the armature current rising through the 5 A threshold (the obstacle
 * detection, in Normal operation only) and the window reaching the obstacle (r th = p, both
 * ways, so that the kink of the contact force is never stepped over).  odeiv2 has no root
 * finding: after every step the roots' signs are compared with the step's start, and a
 * change is located by bisection, integrating again from the step's start (see locate).
 * At each event the chart reacts to the button levels, as the controller does, and the
 * stepper restarts (its multistep history would span the event).
 *
 * Output: CSV with the columns named as the co-simulation's result names them and their
 * units in the header (`time [s]`, `window.height [m]`, `power.armature_current [A]`,
 * `power.speed [rad/s]`, `controller.u`, `controller.d`), a row every DT (the integrator
 * stops on each output time; its steps are capped at 1 ms whatever DT is) and at every
 * event, where the row carries the commands after the event.  Summary on stderr: contact
 * and detection times, chart events, steps, wall time.
 *
 * Shares nothing with the co-simulation path but the model constants
 * (powerwindow_constants.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "powerwindow_constants.h"

/* The driver's buttons (the passenger presses nothing): [from, to) intervals. */
enum { B_DRIVER_UP, B_DRIVER_DOWN, B_DRIVER_STOP, B_PASSENGER_UP, B_PASSENGER_DOWN,
       B_PASSENGER_STOP, NBUTTONS };
static const struct {
	int button;
	double from, to;
} presses[] = {
	{B_DRIVER_UP, 0.01, 4.59},
	{B_DRIVER_STOP, 4.59, 5.0},
	{B_DRIVER_DOWN, 6.7, 7.1},
	{B_DRIVER_STOP, 7.1, 8.5},
};
#define NPRESSES (sizeof presses / sizeof presses[0])

/* The chart's leaf states. */
typedef enum { NEUTRAL, PASSENGER_DOWN, DRIVER_UP, DRIVER_DOWN, PASSENGER_UP, EMERGENCY } Chart;

typedef struct Model {
	Chart chart;
	double emergency_until;
	double contact_time, detection_time; /* first of each, or -1 */
} Model;

static void levels_at(double t, int held[NBUTTONS])
{
	memset(held, 0, NBUTTONS * sizeof held[0]);
	for (size_t k = 0; k < NPRESSES; k++)
		if (presses[k].from <= t && t < presses[k].to)
			held[presses[k].button] = 1;
}

/* One reaction of the chart at time now to the held buttons and the detection event. */
static void react(Model *m, double now, int detected)
{
	int held[NBUTTONS];
	levels_at(now, held);
	if (m->chart == EMERGENCY) {
		if (now < m->emergency_until)
			return;
		m->chart = NEUTRAL; /* the timer's transition, then the buttons at the same instant */
	}
	if (detected) {
		m->chart = EMERGENCY;
		m->emergency_until = now + PW_EMERGENCY_DURATION;
		return;
	}
	int any_stop = held[B_DRIVER_STOP] || held[B_PASSENGER_STOP];
	switch (m->chart) {
	case NEUTRAL:
	case PASSENGER_DOWN:
		if (held[B_DRIVER_UP])
			m->chart = DRIVER_UP;
		else if (held[B_DRIVER_DOWN])
			m->chart = DRIVER_DOWN;
		else if (m->chart == NEUTRAL && held[B_PASSENGER_UP])
			m->chart = PASSENGER_UP;
		else if (m->chart == NEUTRAL && held[B_PASSENGER_DOWN])
			m->chart = PASSENGER_DOWN;
		else if (m->chart == PASSENGER_DOWN && any_stop)
			m->chart = NEUTRAL;
		break;
	case DRIVER_UP:
	case DRIVER_DOWN:
	case PASSENGER_UP:
		if (any_stop)
			m->chart = NEUTRAL;
		break;
	case EMERGENCY:
		break;
	}
}

static int cmd_up(const Model *m)
{
	return m->chart == DRIVER_UP || m->chart == PASSENGER_UP;
}

static int cmd_down(const Model *m)
{
	return m->chart == DRIVER_DOWN || m->chart == PASSENGER_DOWN || m->chart == EMERGENCY;
}

static double voltage(const Model *m)
{
	return cmd_up(m) ? PW_V_ABS : cmd_down(m) ? -PW_V_ABS : 0.0;
}

static double contact_force(double th)
{
	double h = PW_WINDOW_R * th;
	return h > PW_OBSTACLE_POSITION ? PW_OBSTACLE_C * (h - PW_OBSTACLE_POSITION) : 0.0;
}


static int rhs(double t, const double x[], double dx[], void *data)
{
	const Model *m = data;
	(void)t;
	double tau = PW_WINDOW_R * contact_force(x[2]) + PW_WINDOW_B * PW_WINDOW_R * x[1];
	dx[0] = (voltage(m) - PW_R * x[0] - PW_K * x[1]) / PW_L;
	dx[1] = (PW_K * x[0] - PW_B * x[1] - tau) / PW_J;
	dx[2] = x[1];
	return GSL_SUCCESS;
}

/* d(rhs)/dx row by row, and d(rhs)/dt = 0: msbdf's Newton iteration needs both. */
static int jacobian(double t, const double x[], double *dfdx, double dfdt[], void *data)
{
	(void)t, (void)data;
	double spring = PW_WINDOW_R * x[2] > PW_OBSTACLE_POSITION ? PW_OBSTACLE_C * PW_WINDOW_R : 0.0;
	const double rows[3][3] = {
		{-PW_R / PW_L, -PW_K / PW_L, 0.0},
		{PW_K / PW_J, -(PW_B + PW_WINDOW_B * PW_WINDOW_R) / PW_J, -PW_WINDOW_R * spring / PW_J},
		{0.0, 1.0, 0.0},
	};
	memcpy(dfdx, rows, sizeof rows);
	dfdt[0] = dfdt[1] = dfdt[2] = 0.0;
	return GSL_SUCCESS;
}

/* The roots as bits: the current rising through the threshold, the window crossing the
 * obstacle's position either way. */
enum { ROOT_THRESHOLD = 1, ROOT_CONTACT = 2 };

static int root_signs(const double x[])
{
	return (x[0] - PW_THRESHOLD >= 0.0 ? ROOT_THRESHOLD : 0) |
	       (PW_WINDOW_R * x[2] - PW_OBSTACLE_POSITION >= 0.0 ? ROOT_CONTACT : 0);
}

/* The roots crossed between two sets of signs (the threshold counts rising only). */
static int roots_crossed(int before, int after)
{
	return (after & ~before & ROOT_THRESHOLD) | ((after ^ before) & ROOT_CONTACT);
}

enum { DIM = 3 };
#define MAX_STEP 1e-3      /* no step spans more than a millisecond of the buttons' story */
#define RESTART_STEP 1e-6  /* the first step after a restart; the error control grows it */
#define ROOT_TOL 1e-13     /* a root's bracket, relative to max(1, t) */

typedef struct Integrator {
	gsl_odeiv2_system sys;
	gsl_odeiv2_driver *d; /* owns the stepper, its error control and the evolve object */
	double h;             /* the step the error control proposes next */
	long steps;           /* accepted steps, the root location's included */
} Integrator;

/* Forgets the multistep history, which must not span an event. */
static void restart(Integrator *in, double h)
{
	gsl_odeiv2_driver_reset(in->d);
	in->h = h;
}

/* One accepted step from *t towards t1 (never past it; exactly t1 when it gets there). */
static int advance(Integrator *in, double *t, double t1, double x[])
{
	in->h = fmin(in->h, MAX_STEP);
	in->steps++;
	return gsl_odeiv2_evolve_apply(in->d->e, in->d->c, in->d->s, &in->sys, t, t1, &in->h, x);
}

/* The earliest instant in (t_lo, *t_hi] by which a root crossed in the step from (t_lo, x_lo)
 * has its new sign, to ROOT_TOL: the bracket is halved by integrating afresh from its lower
 * end, which moves up to the midpoint when nothing was crossed by then.  On return
 * (*t_hi, x_hi) is the upper end, where the crossed roots (*found) have their new signs. */
static int locate(Integrator *in, double t_lo, const double x_lo[], double *t_hi, double x_hi[],
                  int *found)
{
	int before = root_signs(x_lo);
	double lo[DIM];
	memcpy(lo, x_lo, sizeof lo);
	while (*t_hi - t_lo > ROOT_TOL * fmax(1.0, fabs(*t_hi))) {
		double mid = t_lo + 0.5 * (*t_hi - t_lo), t = t_lo, x[DIM];
		memcpy(x, lo, sizeof x);
		restart(in, mid - t_lo);
		while (t < mid) {
			int rc = advance(in, &t, mid, x);
			if (rc != GSL_SUCCESS)
				return rc;
		}
		if (roots_crossed(before, root_signs(x))) {
			*t_hi = mid;
			memcpy(x_hi, x, sizeof x);
		} else {
			t_lo = mid;
			memcpy(lo, x, sizeof lo);
		}
	}
	*found = roots_crossed(before, root_signs(x_hi));
	return GSL_SUCCESS;
}

/* Steps from *t to t1, or to the first root crossed on the way (*found says which; 0 when
 * t1 was reached). */
static int integrate_until(Integrator *in, double *t, double t1, double x[], int *found)
{
	*found = 0;
	while (*t < t1) {
		double t0 = *t, x0[DIM];
		memcpy(x0, x, sizeof x0);
		int rc = advance(in, t, t1, x);
		if (rc != GSL_SUCCESS)
			return rc;
		if (roots_crossed(root_signs(x0), root_signs(x)))
			return locate(in, t0, x0, t, x, found);
	}
	return GSL_SUCCESS;
}

static void row(FILE *out, const Model *m, double t, const double *x)
{
	fprintf(out, "%.17g,%.17g,%.17g,%.17g,%d,%d\n", t, PW_WINDOW_R * x[2], x[0], x[1],
	        cmd_up(m), cmd_down(m) && !cmd_up(m));
}

/* The next instant the chart must look at: a button change or the emergency's expiry. */
static double next_instant(const Model *m, double t)
{
	double next = INFINITY;
	for (size_t k = 0; k < NPRESSES; k++) {
		if (presses[k].from > t && presses[k].from < next)
			next = presses[k].from;
		if (presses[k].to > t && presses[k].to < next)
			next = presses[k].to;
	}
	if (m->chart == EMERGENCY && m->emergency_until > t && m->emergency_until < next)
		next = m->emergency_until;
	return next;
}

/* The whole run from rest at t = 0 to stop: a row every out_step and at every event. */
static int simulate(Integrator *in, Model *m, double stop, double out_step, FILE *out,
                    long *events)
{
	double t = 0.0, x[DIM] = {0.0, 0.0, 0.0};
	fprintf(out, "time [s],window.height [m],power.armature_current [A],power.speed [rad/s],"
	        "controller.u,controller.d\n");
	react(m, 0.0, 0);
	row(out, m, 0.0, x);
	long k = 1;
	while (t < stop) {
		/* grid points an event landed on, or too close after it, are skipped */
		while ((double)k * out_step <= t + 1e-6 * out_step)
			k++;
		double instant = next_instant(m, t);
		double tout = fmin((double)k * out_step, stop);
		int stopped_at_instant = instant <= tout + 1e-6 * out_step;
		if (stopped_at_instant)
			tout = instant;
		int found;
		if (integrate_until(in, &t, tout, x, &found) != GSL_SUCCESS) {
			fprintf(stderr, "powerwindow_ref: the integration failed at t = %.17g\n", t);
			return 1;
		}
		if (found) {
			if ((found & ROOT_CONTACT) && (root_signs(x) & ROOT_CONTACT) && m->contact_time < 0)
				m->contact_time = t;
			if ((found & ROOT_THRESHOLD) && m->chart != EMERGENCY) {
				if (m->detection_time < 0)
					m->detection_time = t;
				react(m, t, 1);
				(*events)++;
			}
			restart(in, RESTART_STEP); /* the kink of the contact force, or the new voltage */
		} else if (stopped_at_instant) {
			react(m, t, 0);
			(*events)++;
			restart(in, RESTART_STEP);
		}
		row(out, m, t, x);
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: powerwindow_ref [--stop T] [--out-step DT] [--rtol R] "
	        "[-o FILE.csv]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double stop = 10.0, out_step = 1e-4, rtol = 1e-9;
	const char *path = NULL;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--stop") && a + 1 < argc)
			stop = atof(argv[++a]);
		else if (!strcmp(argv[a], "--out-step") && a + 1 < argc)
			out_step = atof(argv[++a]);
		else if (!strcmp(argv[a], "--rtol") && a + 1 < argc)
			rtol = atof(argv[++a]);
		else if (!strcmp(argv[a], "-o") && a + 1 < argc)
			path = argv[++a];
		else
			return usage();
	}
	if (!(stop > 0) || !(out_step > 0) || !(rtol > 0))
		return usage();
	FILE *out = path ? fopen(path, "w") : stdout;
	if (!out) {
		perror(path);
		return 1;
	}
	struct timespec w0, w1;
	clock_gettime(CLOCK_MONOTONIC, &w0);

	gsl_set_error_handler_off(); /* failures come back as codes, reported with the time */
	Model m = {NEUTRAL, 0.0, -1.0, -1.0};
	Integrator in = {{rhs, jacobian, DIM, &m}, NULL, RESTART_STEP, 0};
	/* absolute tolerances: current (A), speed (rad/s), angle (rad); the angle's is far
	 * below the contact's penetration (about 5e-6 rad at stall).  The error allowed on x_i
	 * is abs_tol[i] + rtol * |x_i|. */
	const double abs_tol[DIM] = {1e-9, 1e-9, 1e-12};
	in.d = gsl_odeiv2_driver_alloc_scaled_new(&in.sys, gsl_odeiv2_step_msbdf, RESTART_STEP,
	                                          1.0, rtol, 1.0, 0.0, abs_tol);
	if (!in.d) {
		fprintf(stderr, "powerwindow_ref: cannot set up the integrator\n");
		return 1;
	}
	long events = 0;
	int rc = simulate(&in, &m, stop, out_step, out, &events);
	gsl_odeiv2_driver_free(in.d);
	clock_gettime(CLOCK_MONOTONIC, &w1);
	double wall = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
	if (rc == 0)
		fprintf(stderr, "powerwindow_ref: done at t = %g: contact at %.9g s, detection at "
		        "%.9g s, %ld chart events, %ld steps, %.3f s wall time\n", stop,
		        m.contact_time, m.detection_time, events, in.steps, wall);
	if (path && fclose(out)) {
		perror(path);
		return 1;
	}
	return rc;
}
