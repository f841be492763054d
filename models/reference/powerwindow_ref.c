/* powerwindow_ref — the power window as one system (POWERWINDOW.md), the monolithic
 * reference the co-simulation is judged against.
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
 * integrated by SUNDIALS CVODE (BDF, dense Newton): the contact makes the system stiff
 * (c r^2 / J = 1.4e9 s^-2) and CVODE's error control resolves every bounce.  The control
 * logic is a hybrid layer around it, written from the specification, not from the FMUs:
 * the integrator stops at every button instant and at the emergency's expiry
 * (CVodeSetStopTime), and finds two roots: the armature current rising through the 5 A
 * threshold (the obstacle detection, in Normal operation only) and the window reaching the
 * obstacle (r th = p, both ways, so that the kink of the contact force is never stepped
 * over).  At each event the chart reacts to the button levels, as the controller does, and
 * CVODE restarts (CVodeReInit).
 *
 * Output: CSV `time,height,armature_current,speed,u,d` every DT (CVODE's interpolant, so
 * the step taken does not depend on DT) and at every event, where the row carries the
 * commands after the event.  Summary on stderr: contact and detection times, wall time.
 *
 * Shares nothing with the co-simulation path but the model constants
 * (powerwindow_constants.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

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

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data)
{
	const Model *m = data;
	const sunrealtype *x = N_VGetArrayPointer(y);
	sunrealtype *dx = N_VGetArrayPointer(ydot);
	(void)t;
	double tau = PW_WINDOW_R * contact_force(x[2]) + PW_WINDOW_B * PW_WINDOW_R * x[1];
	dx[0] = (voltage(m) - PW_R * x[0] - PW_K * x[1]) / PW_L;
	dx[1] = (PW_K * x[0] - PW_B * x[1] - tau) / PW_J;
	dx[2] = x[1];
	return 0;
}

/* g[0]: the current through the threshold (rising only, set by CVodeSetRootDirection);
 * g[1]: the window at the obstacle. */
static int roots(sunrealtype t, N_Vector y, sunrealtype *g, void *data)
{
	const sunrealtype *x = N_VGetArrayPointer(y);
	(void)t, (void)data;
	g[0] = x[0] - PW_THRESHOLD;
	g[1] = PW_WINDOW_R * x[2] - PW_OBSTACLE_POSITION;
	return 0;
}

static void row(FILE *out, const Model *m, double t, const sunrealtype *x)
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

	SUNContext ctx;
	if (SUNContext_Create(NULL, &ctx))
		return 1;
	N_Vector y = N_VNew_Serial(3, ctx), abstol = N_VNew_Serial(3, ctx);
	sunrealtype *x = N_VGetArrayPointer(y), *at = N_VGetArrayPointer(abstol);
	x[0] = x[1] = x[2] = 0.0;
	/* absolute tolerances: current (A), speed (rad/s), angle (rad); the angle's is far
	 * below the contact's penetration (about 5e-6 rad at stall) */
	at[0] = 1e-9;
	at[1] = 1e-9;
	at[2] = 1e-12;
	Model m = {NEUTRAL, 0.0, -1.0, -1.0};
	void *cv = CVodeCreate(CV_BDF, ctx);
	SUNMatrix A = SUNDenseMatrix(3, 3, ctx);
	SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
	int dir[2] = {+1, 0};
	if (!cv || !A || !LS || CVodeInit(cv, rhs, 0.0, y) || CVodeSVtolerances(cv, rtol, abstol) ||
	    CVodeSetUserData(cv, &m) || CVodeSetLinearSolver(cv, LS, A) ||
	    CVodeSetMaxNumSteps(cv, 1000000) || CVodeSetMaxStep(cv, 1e-3) ||
	    CVodeRootInit(cv, 2, roots) || CVodeSetRootDirection(cv, dir)) {
		fprintf(stderr, "powerwindow_ref: cannot set up CVODE\n");
		return 1;
	}

	fprintf(out, "time,height,armature_current,speed,u,d\n");
	react(&m, 0.0, 0);
	row(out, &m, 0.0, x);
	double t = 0.0;
	long k = 1, events = 0;
	while (t < stop) {
		/* grid points an event landed on, or too close after it for CVODE, are skipped */
		while ((double)k * out_step <= t + 1e-6 * out_step)
			k++;
		double instant = next_instant(&m, t);
		double tout = fmin((double)k * out_step, stop);
		int stopped_at_instant = instant <= tout + 1e-6 * out_step;
		if (stopped_at_instant)
			tout = instant;
		CVodeSetStopTime(cv, tout);
		sunrealtype tret;
		int flag = CVode(cv, tout, y, &tret, CV_NORMAL);
		if (flag < 0) {
			fprintf(stderr, "powerwindow_ref: CVODE failed at t = %.17g (flag %d)\n", t, flag);
			return 1;
		}
		t = tret;
		int reinit = 0;
		if (flag == CV_ROOT_RETURN) {
			int found[2];
			CVodeGetRootInfo(cv, found);
			if (found[1] && m.contact_time < 0 && found[1] > 0)
				m.contact_time = t;
			if (found[0] > 0 && m.chart != EMERGENCY) {
				if (m.detection_time < 0)
					m.detection_time = t;
				react(&m, t, 1);
				events++;
			}
			reinit = 1; /* the kink of the contact force, or the new voltage */
		} else if (stopped_at_instant && t >= tout) {
			react(&m, t, 0);
			events++;
			reinit = 1;
		}
		row(out, &m, t, x);
		if (reinit && CVodeReInit(cv, t, y)) {
			fprintf(stderr, "powerwindow_ref: CVodeReInit failed at t = %.17g\n", t);
			return 1;
		}
	}
	long nsteps = 0;
	clock_gettime(CLOCK_MONOTONIC, &w1);
	double wall = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
	fprintf(stderr, "powerwindow_ref: done at t = %g: contact at %.9g s, detection at %.9g s, "
	        "%ld chart events, %.3f s wall time\n", t, m.contact_time, m.detection_time, events,
	        wall);
	(void)nsteps;
	if (path && fclose(out)) {
		perror(path);
		return 1;
	}
	SUNLinSolFree(LS);
	SUNMatDestroy(A);
	N_VDestroy(y);
	N_VDestroy(abstol);
	CVodeFree(&cv);
	SUNContext_Free(&ctx);
	return 0;
}
