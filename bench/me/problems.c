/* problems.c — the four problems of `make bench-me` (problems.h): two non-stiff ones
 * (Arenstorf's periodic orbit, Van der Pol with mu = 1) and two stiff ones (Robertson's
 * chemical kinetics, Van der Pol with mu = 1000), the classic test problems of Hairer,
 * Nørsett and Wanner's "Solving Ordinary Differential Equations" I and II. */
#include "problems.h"

#include <math.h>

/* ---- Arenstorf orbit: a satellite's periodic orbit about the Earth and the Moon, the
 * closed curve of the restricted three-body problem; states y1, y2, y1', y2'.  Its steps
 * must shrink by orders of magnitude near the Earth: what step control is tested on. */
static const double ar_mu = 0.012277471;

static void ar_f(const double x[], double dx[])
{
	double mu = ar_mu, mup = 1 - ar_mu;
	double a = (x[0] + mu) * (x[0] + mu) + x[1] * x[1];
	double b = (x[0] - mup) * (x[0] - mup) + x[1] * x[1];
	double d1 = a * sqrt(a), d2 = b * sqrt(b);
	dx[0] = x[2];
	dx[1] = x[3];
	dx[2] = x[0] + 2 * x[3] - mup * (x[0] + mu) / d1 - mu * (x[0] - mup) / d2;
	dx[3] = x[1] - 2 * x[2] - mup * x[1] / d1 - mu * x[1] / d2;
}

/* The orbit is periodic: after one period it is back where it started. */
static const double ar_x0[] = {0.994, 0, 0, -2.00158510637908252240537862224};
static const double ar_one[] = {1, 1, 1, 1};

const MeProblem me_arenstorf = {
	.name = "arenstorf",
	.label = "Arenstorf orbit, non-stiff, n = 4, one period: t = 0 .. 17.0652165601579625",
	.stiff = 0,
	.n = 4,
	.t0 = 0,
	.t1 = 17.0652165601579625588917206249,
	.x0 = ar_x0,
	.nominal = ar_one,
	.f = ar_f,
	.jac = 0,
	.published = ar_x0,
	.published_source = "the orbit's initial state (it is periodic; Hairer, Norsett, Wanner I, II.0)",
};

/* ---- Van der Pol's oscillator, x1'' = mu (1 - x1^2) x1' - x1, from (2, 0); with mu = 1
 * its limit cycle has period 6.66, smooth and non-stiff; with mu = 1000 it crawls along
 * the slow branches (period about 1614) and jumps between them: the stiff classic. */
static void vdp_f(double mu, const double x[], double dx[])
{
	dx[0] = x[1];
	dx[1] = mu * (1 - x[0] * x[0]) * x[1] - x[0];
}

static void vdp_jac(double mu, const double x[], double J[])
{
	J[0] = 0;
	J[1] = 1;
	J[2] = -2 * mu * x[0] * x[1] - 1;
	J[3] = mu * (1 - x[0] * x[0]);
}

static void vdp1_f(const double x[], double dx[])
{
	vdp_f(1, x, dx);
}

static void vdp1000_f(const double x[], double dx[])
{
	vdp_f(1000, x, dx);
}

static void vdp1000_jac(const double x[], double J[])
{
	vdp_jac(1000, x, J);
}

static const double vdp_x0[] = {2, 0};

const MeProblem me_vdp1 = {
	.name = "vdp1",
	.label = "Van der Pol mu = 1, non-stiff, n = 2, three periods: t = 0 .. 20",
	.stiff = 0,
	.n = 2,
	.t0 = 0,
	.t1 = 20,
	.x0 = vdp_x0,
	.nominal = ar_one,
	.f = vdp1_f,
	.jac = 0,
	.published = 0,
	.published_source = 0,
};

const MeProblem me_vdp1000 = {
	.name = "vdp1000",
	.label = "Van der Pol mu = 1000, stiff, n = 2, 1.9 periods: t = 0 .. 3000",
	.stiff = 1,
	.n = 2,
	.t0 = 0,
	.t1 = 3000,
	.x0 = vdp_x0,
	.nominal = ar_one,
	.f = vdp1000_f,
	.jac = vdp1000_jac,
	.published = 0,
	.published_source = 0,
};

/* ---- Robertson's reactions A -> B, 2B -> B + C, B + C -> A + C: rates 0.04, 3e7 and 1e4,
 * eigenvalues down to -1e4 while the solution drifts for 1e5 s.  y2 lives near 1e-5,
 * its nominal. */
static void rob_f(const double x[], double dx[])
{
	dx[0] = -0.04 * x[0] + 1e4 * x[1] * x[2];
	dx[2] = 3e7 * x[1] * x[1];
	dx[1] = -dx[0] - dx[2];
}

static void rob_jac(const double x[], double J[])
{
	J[0] = -0.04;
	J[1] = 1e4 * x[2];
	J[2] = 1e4 * x[1];
	J[6] = 0;
	J[7] = 6e7 * x[1];
	J[8] = 0;
	J[3] = -J[0] - J[6];
	J[4] = -J[1] - J[7];
	J[5] = -J[2] - J[8];
}

static const double rob_x0[] = {1, 0, 0};
static const double rob_nominal[] = {1, 1e-5, 1};

const MeProblem me_robertson = {
	.name = "robertson",
	.label = "Robertson kinetics, stiff, n = 3: t = 0 .. 1e5",
	.stiff = 1,
	.n = 3,
	.t0 = 0,
	.t1 = 1e5,
	.x0 = rob_x0,
	.nominal = rob_nominal,
	.f = rob_f,
	.jac = rob_jac,
	.published = 0,
	.published_source = 0,
};
