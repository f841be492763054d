/* pw_compare — the power window's co-simulation against its monolithic reference.
 *
 *   pw_compare COSIM.csv REFERENCE.csv [--wall-cosim S] [--wall-reference S] [--json OUT]
 *
 * Reads the two result files by column name (the part after the last '.', so `sacc
 * simulate`'s window.height and a plain height are both `height`; a unit in the header,
 * `window.height [m]`, is left out): time, height, armature_current, u, d.  For each run:
 *   contact_time        first time the height reaches the obstacle (linear between rows)
 *   detection_time      first time after contact the down command comes on
 *   reversal_duration   from detection to the first row where the down command is off
 *   peak_current        the largest armature current
 *   current_at_detection  the armature current on the detection row (the threshold crossing)
 * and over the co-simulation's rows: the largest and the RMS (time-weighted, trapezoid)
 * difference of the height from the reference's, the reference interpolated linearly.
 * Prints a table; --json writes the same figures, one object per run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "powerwindow_constants.h"

enum { C_TIME, C_HEIGHT, C_CURRENT, C_U, C_D, NC };
static const char *const wanted[NC] = {"time", "height", "armature_current", "u", "d"};

typedef struct Run {
	size_t n;
	double *v[NC];
	double contact, detection, reversal, peak, at_detection, wall;
} Run;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "pw_compare: %s: %s\n", path, what);
	exit(2);
}

static void load(const char *path, Run *r)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open", path);
	static char line[1 << 16];
	if (!fgets(line, sizeof line, f))
		die("empty file", path);
	int col[NC];
	for (int c = 0; c < NC; c++)
		col[c] = -1;
	int k = 0;
	for (char *tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n"), k++) {
		char *unit = strstr(tok, " [");
		if (unit)
			*unit = '\0';
		const char *dot = strrchr(tok, '.');
		const char *name = dot ? dot + 1 : tok;
		for (int c = 0; c < NC; c++)
			if (col[c] < 0 && strcmp(name, wanted[c]) == 0)
				col[c] = k;
	}
	for (int c = 0; c < NC; c++)
		if (col[c] < 0) {
			fprintf(stderr, "pw_compare: %s: no column named %s\n", path, wanted[c]);
			exit(2);
		}
	size_t cap = 1024;
	memset(r, 0, sizeof *r);
	for (int c = 0; c < NC; c++)
		r->v[c] = malloc(cap * sizeof(double));
	while (fgets(line, sizeof line, f)) {
		if (r->n == cap) {
			cap *= 2;
			for (int c = 0; c < NC; c++)
				r->v[c] = realloc(r->v[c], cap * sizeof(double));
		}
		double vals[64];
		int nv = 0;
		for (char *tok = strtok(line, ",\r\n"); tok && nv < 64; tok = strtok(NULL, ",\r\n"))
			vals[nv++] = strtod(tok, NULL);
		for (int c = 0; c < NC; c++) {
			if (col[c] >= nv)
				die("short row", path);
			r->v[c][r->n] = vals[col[c]];
		}
		r->n++;
	}
	fclose(f);
	if (r->n < 2)
		die("fewer than two rows", path);
}

static void events(Run *r)
{
	const double *t = r->v[C_TIME], *h = r->v[C_HEIGHT], *i = r->v[C_CURRENT],
	             *d = r->v[C_D];
	r->contact = r->detection = r->reversal = r->at_detection = NAN;
	r->peak = -INFINITY;
	size_t k;
	for (k = 0; k < r->n; k++)
		if (i[k] > r->peak)
			r->peak = i[k];
	for (k = 1; k < r->n; k++)
		if (h[k] >= PW_OBSTACLE_POSITION) {
			double a = h[k - 1], b = h[k];
			r->contact = b > a ? t[k - 1] + (t[k] - t[k - 1]) * (PW_OBSTACLE_POSITION - a) / (b - a)
			                   : t[k];
			break;
		}
	for (; k < r->n; k++)
		if (d[k] > 0.5) {
			r->detection = t[k];
			r->at_detection = i[k];
			break;
		}
	for (; k < r->n; k++)
		if (!(d[k] > 0.5)) {
			r->reversal = t[k] - r->detection;
			break;
		}
}

/* The reference's height at time x, linear between its rows (the last row at x wins). */
static double height_at(const Run *r, double x)
{
	const double *t = r->v[C_TIME], *h = r->v[C_HEIGHT];
	size_t lo = 0, hi = r->n - 1;
	if (x <= t[0])
		return h[0];
	if (x >= t[hi])
		return h[hi];
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	if (t[hi] == t[lo])
		return h[hi];
	return h[lo] + (h[hi] - h[lo]) * (x - t[lo]) / (t[hi] - t[lo]);
}

static void put_run(FILE *j, const char *name, const Run *r, int last)
{
	fprintf(j, "  \"%s\": {\"contact_time\": %.9g, \"detection_time\": %.9g, "
	        "\"reversal_duration\": %.9g, \"peak_current\": %.9g, \"current_at_detection\": %.9g, "
	        "\"wall_time\": %.6g}%s\n", name, r->contact, r->detection, r->reversal, r->peak,
	        r->at_detection, r->wall, last ? "" : ",");
}

int main(int argc, char **argv)
{
	const char *json = NULL;
	double wall[2] = {NAN, NAN};
	const char *paths[2] = {NULL, NULL};
	int np = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--json") && a + 1 < argc)
			json = argv[++a];
		else if (!strcmp(argv[a], "--wall-cosim") && a + 1 < argc)
			wall[0] = atof(argv[++a]);
		else if (!strcmp(argv[a], "--wall-reference") && a + 1 < argc)
			wall[1] = atof(argv[++a]);
		else if (np < 2 && argv[a][0] != '-')
			paths[np++] = argv[a];
		else
			np = 3;
	}
	if (np != 2) {
		fprintf(stderr, "usage: pw_compare COSIM.csv REFERENCE.csv [--wall-cosim S] "
		        "[--wall-reference S] [--json OUT]\n");
		return 2;
	}
	Run co, ref;
	load(paths[0], &co);
	load(paths[1], &ref);
	co.wall = wall[0];
	ref.wall = wall[1];
	events(&co);
	events(&ref);
	double maxd = 0, at = 0, sq = 0;
	for (size_t k = 0; k < co.n; k++) {
		double e = fabs(co.v[C_HEIGHT][k] - height_at(&ref, co.v[C_TIME][k]));
		if (e > maxd) {
			maxd = e;
			at = co.v[C_TIME][k];
		}
		if (k > 0) {
			double ep = co.v[C_HEIGHT][k - 1] - height_at(&ref, co.v[C_TIME][k - 1]);
			sq += 0.5 * (ep * ep + e * e) * (co.v[C_TIME][k] - co.v[C_TIME][k - 1]);
		}
	}
	double span = co.v[C_TIME][co.n - 1] - co.v[C_TIME][0];
	double rms = span > 0 ? sqrt(sq / span) : 0;

	printf("%-28s %16s %16s %12s\n", "", "co-simulation", "reference", "difference");
	const char *names[] = {"contact time (s)", "detection time (s)", "reversal duration (s)",
	                       "peak armature current (A)", "current at detection (A)",
	                       "wall time (s)"};
	double a[] = {co.contact, co.detection, co.reversal, co.peak, co.at_detection, co.wall};
	double b[] = {ref.contact, ref.detection, ref.reversal, ref.peak, ref.at_detection,
	              ref.wall};
	for (int k = 0; k < 6; k++)
		printf("%-28s %16.9f %16.9f %12.3g\n", names[k], a[k], b[k], a[k] - b[k]);
	printf("height difference: max %.3g m (at t = %.6g s), RMS %.3g m, over %zu co-simulation "
	       "rows\n", maxd, at, rms, co.n);
	if (json) {
		FILE *j = fopen(json, "w");
		if (!j)
			die("cannot write", json);
		fprintf(j, "{\n");
		put_run(j, "cosim", &co, 0);
		put_run(j, "reference", &ref, 0);
		fprintf(j, "  \"max_height_diff\": %.9g,\n  \"max_height_diff_time\": %.9g,\n"
		        "  \"rms_height_diff\": %.9g\n}\n", maxd, at, rms);
		if (fclose(j))
			die("cannot write", json);
	}
	for (int c = 0; c < NC; c++) {
		free(co.v[c]);
		free(ref.v[c]);
	}
	return 0;
}
