/* power — the power window's DC motor and its up/down switch (docs/powerwindow.md), an ODE
 * integrated by the FMU's own solver.
 *
 *   V = +V_abs if u > 0.5, else -V_abs if d > 0.5, else 0
 *   J speed'             = K armature_current - b speed - tau
 *   L armature_current'  = V - R armature_current - K speed
 *   displacement'        = speed
 *
 * fmi2DoStep(t, h) holds the inputs set before it over the whole step (the FMU does not
 * interpolate inputs) and integrates with classical fourth-order Runge-Kutta on an even
 * subdivision of h into n substeps of at most MAX_SUBSTEP.  The outputs are the three states
 * (Moore: nothing feeds through).  A step longer than MAX_SUBSTEPS substeps is integrated as
 * far as that and discarded there, so that a probe with a huge h answers instead of
 * hanging. */
#include <math.h>
#include <stddef.h>

#include "fmu_kit.h"

#define POWER_GUID "{c41a7e93-2f6d-4b58-8d0c-5e9a3b7f1d26}"

#define MAX_SUBSTEP 1e-4      /* s, the longest internal step */
#define MAX_SUBSTEPS 1000000  /* per fmi2DoStep: 100 s of motor time */

enum {
	VR_U = 0,
	VR_D = 1,
	VR_TAU = 2,
	VR_ARMATURE_CURRENT = 3,
	VR_SPEED = 4,
	VR_DISPLACEMENT = 5,
	VR_J = 6,
	VR_B = 7,
	VR_K = 8,
	VR_R = 9,
	VR_L = 10,
	VR_V_ABS = 11,
};

typedef struct Power {
	fmi2Real u;                /* > 0.5: drive up */
	fmi2Real d;                /* > 0.5 (and u not): drive down */
	fmi2Real tau;              /* N.m, load torque resisting the motor */
	fmi2Real armature_current; /* A */
	fmi2Real speed;            /* rad/s */
	fmi2Real displacement;     /* rad */
	fmi2Real J;                /* kg.m2, rotor inertia */
	fmi2Real b;                /* N.m.s/rad, viscous friction */
	fmi2Real K;                /* N.m/A, torque and back-EMF constant */
	fmi2Real R;                /* Ohm, armature resistance */
	fmi2Real L;                /* H, armature inductance */
	fmi2Real V_abs;            /* V, supply voltage */
} Power;

static const Power start = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.085, 5.0, 7.45, 0.15, 0.036, 12.0};

static const KitVar vars[] = {
	{"u", VR_U, KIT_REAL, KIT_INPUT, offsetof(Power, u)},
	{"d", VR_D, KIT_REAL, KIT_INPUT, offsetof(Power, d)},
	{"tau", VR_TAU, KIT_REAL, KIT_INPUT, offsetof(Power, tau)},
	{"armature_current", VR_ARMATURE_CURRENT, KIT_REAL, KIT_OUTPUT,
	 offsetof(Power, armature_current)},
	{"speed", VR_SPEED, KIT_REAL, KIT_OUTPUT, offsetof(Power, speed)},
	{"displacement", VR_DISPLACEMENT, KIT_REAL, KIT_OUTPUT, offsetof(Power, displacement)},
	{"J", VR_J, KIT_REAL, KIT_PARAMETER, offsetof(Power, J)},
	{"b", VR_B, KIT_REAL, KIT_PARAMETER, offsetof(Power, b)},
	{"K", VR_K, KIT_REAL, KIT_PARAMETER, offsetof(Power, K)},
	{"R", VR_R, KIT_REAL, KIT_PARAMETER, offsetof(Power, R)},
	{"L", VR_L, KIT_REAL, KIT_PARAMETER, offsetof(Power, L)},
	{"V_abs", VR_V_ABS, KIT_REAL, KIT_PARAMETER, offsetof(Power, V_abs)},
};

/* The state vector: armature current, speed, displacement. */
enum { X_I, X_W, X_TH, NX };

static void derivatives(const Power *p, double v, const double x[NX], double dx[NX])
{
	dx[X_I] = (v - p->R * x[X_I] - p->K * x[X_W]) / p->L;
	dx[X_W] = (p->K * x[X_I] - p->b * x[X_W] - p->tau) / p->J;
	dx[X_TH] = x[X_W];
}

static void rk4(const Power *p, double v, double x[NX], double dt)
{
	double k1[NX], k2[NX], k3[NX], k4[NX], y[NX];
	derivatives(p, v, x, k1);
	for (int i = 0; i < NX; i++)
		y[i] = x[i] + 0.5 * dt * k1[i];
	derivatives(p, v, y, k2);
	for (int i = 0; i < NX; i++)
		y[i] = x[i] + 0.5 * dt * k2[i];
	derivatives(p, v, y, k3);
	for (int i = 0; i < NX; i++)
		y[i] = x[i] + dt * k3[i];
	derivatives(p, v, y, k4);
	for (int i = 0; i < NX; i++)
		x[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

static fmi2Status initialize(KitInstance *k, void *state)
{
	const Power *p = state;
	if (!(p->J > 0 && p->L > 0 && isfinite(p->J) && isfinite(p->L) && isfinite(p->b) &&
	      isfinite(p->K) && isfinite(p->R) && isfinite(p->V_abs))) {
		kit_log(k, fmi2Error, "parameters must be finite, with J > 0 and L > 0 "
		        "(J = %g, L = %g)", p->J, p->L);
		return fmi2Error;
	}
	return fmi2OK;
}

static fmi2Status calculate(KitInstance *k, void *state)
{
	(void)k, (void)state;
	return fmi2OK; /* the outputs are the states themselves */
}

static fmi2Status do_step(KitInstance *k, void *state, double t, double h, double *reached)
{
	Power *p = state;
	if (!isfinite(p->u) || !isfinite(p->d) || !isfinite(p->tau)) {
		kit_log(k, fmi2Error, "inputs must be finite (u = %g, d = %g, tau = %g)", p->u, p->d,
		        p->tau);
		return fmi2Error;
	}
	if (h == 0)
		return fmi2OK;
	double v = p->u > 0.5 ? p->V_abs : p->d > 0.5 ? -p->V_abs : 0.0;
	double want = ceil(h / MAX_SUBSTEP * (1.0 - 1e-12));
	long n = want < 1 ? 1 : want > MAX_SUBSTEPS ? MAX_SUBSTEPS : (long)want;
	double dt = want > MAX_SUBSTEPS ? MAX_SUBSTEP : h / (double)n;
	double x[NX] = {p->armature_current, p->speed, p->displacement};
	for (long i = 0; i < n; i++)
		rk4(p, v, x, dt);
	p->armature_current = x[X_I];
	p->speed = x[X_W];
	p->displacement = x[X_TH];
	if (want > MAX_SUBSTEPS) {
		*reached = t + (double)n * dt;
		kit_log(k, fmi2OK, "a step of %g s is longer than %d substeps of %g s", h,
		        MAX_SUBSTEPS, MAX_SUBSTEP);
		return fmi2Discard;
	}
	return fmi2OK;
}

const KitModel kit_model = {
	"power",
	POWER_GUID,
	sizeof(Power),
	&start,
	vars,
	sizeof vars / sizeof vars[0],
	calculate,
	initialize,
	do_step,
};
