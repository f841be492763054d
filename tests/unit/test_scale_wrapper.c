/* test_scale_wrapper.c — wrappers over many inners of one FMU: their Ctrl and fast step
 * written as a table (compiler/emit/emit_c_fast.c, table_form; runtime SartStepTable),
 * built by `sacc build` and run by `sacc simulate` (the SACC_BUILD binary, as a user runs
 * them).  The references are independent of the table: the same chain of FMUs run by
 * `sacc simulate` as a scenario, and the same wrapper built with its Ctrl as statements.
 *
 * The FMU is tests/fmus/integrator (x' = u, explicit Euler; x0, and fail_at / nan_at make
 * a step fail or its output NaN): in a chain i1.x -> i2.u -> ..., each stage integrates the
 * one before it, so that every value depends on every earlier stage's, rounding included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "simulate_test.h"

/* Inners of the large wrapper: above the table form's threshold of 64, small enough for the
 * suite (its build is some seconds). */
enum { MANY = 300 };

static int setup(void **state)
{
	return sim_setup(state, "test_scale_wrapper");
}

/* The adaptation wchainN over n inners in a chain, its input u into the first, its outputs
 * y1, ymid and yn the first's, the middle one's (n / 2) and the last one's.  Integrators
 * i1..in (ports u, x), or with affine an integrator i1 and then affine instances a2..an
 * (y = gain u + offset + w; ports u, w, y), i1.x into every one's w too. */
static void write_wrapper(Ctx *c, const char *file, int n, int affine)
{
	FILE *f = fopen(path_in(c, file), "w");
	assert_non_null(f);
	fprintf(f, "module wchain%d\nsemantic adaptation reactive mealy wchain%d\n"
	           "at \"wchain%d.fmu\"\n", n, n, n);
	for (int i = 1; i <= n; i++)
		fprintf(f, "\tfor inner fmu %s%d at \"%s.fmu\"\n",
		        i > 1 && affine ? "Affine a" : "Integrator i", i,
		        i > 1 && affine ? "affine" : "integrator");
	fprintf(f, "\tcoupled as ");
	for (int i = 1; i < n; i++)
		fprintf(f, "%s%s%d.%s -> %s%d.u", i > 1 ? ",\n\t\t" : "",
		        i > 1 && affine ? "a" : "i", i, i > 1 && affine ? "y" : "x", affine ? "a" : "i",
		        i + 1);
	for (int i = 2; i <= n && affine; i++)
		fprintf(f, ",\n\t\ti1.x -> a%d.w", i);
	const char *p = affine ? "a" : "i", *y = affine ? "y" : "x";
	fprintf(f, "\ninput ports Real u -> i1.u\n"
	           "output ports Real y1 <- i1.x, Real ymid <- %s%d.%s, Real yn <- %s%d.%s\n",
	        p, n / 2, y, p, n, y);
	assert_int_equal(fclose(f), 0);
}

/* `sacc build` of file into the directory out (env before it: variables for sacc). */
static void build(Ctx *c, const char *env, const char *file, const char *out)
{
	const char *b = test_build_dir();
	snprintf(c->cmd, sizeof c->cmd, "mkdir -p '%s/%s' && TMPDIR='%s' %s '%s/sacc' build "
	         "-L '%s/fmus' -o '%s/%s' '%s/%s' 2>'%s/err.txt'", c->dir, out, c->tmp, env, b, b,
	         c->dir, out, c->dir, file, c->dir);
	if (system(c->cmd) != 0) {
		char *err = file_in(c, "err.txt");
		fail_msg("sacc build of %s failed:\n%s", file, err);
	}
}

/* Whether the wrapper's sources in the archive fmu have Ctrl as a table. */
static int has_table(Ctx *c, const char *fmu)
{
	snprintf(c->cmd, sizeof c->cmd, "unzip -p '%s/%s' 'sources/wchain*.c' | "
	         "grep -q 'static const SartStepRow step_rows'", c->dir, fmu);
	return system(c->cmd) == 0;
}

/* The rows of the CSV at path after its header, each row's text as written. */
static char **rows_of(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char **rows = NULL;
	char line[4096];
	*n = 0;
	for (int k = 0; fgets(line, sizeof line, f); k++) {
		if (k == 0)
			continue; /* the header: the names differ */
		rows = realloc(rows, (size_t)(*n + 1) * sizeof *rows);
		assert_non_null(rows);
		rows[(*n)++] = strdup(line);
	}
	fclose(f);
	return rows;
}

static void free_rows(char **rows, int n)
{
	for (int i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
}

/* The values the wrapper's affine instances give when i1.x is x, as the FMU computes them
 * (y = gain u + offset + w), one after the other: a2 with gain 1.1, the middle one with
 * offset 0.3; *mid and *last the middle and the last one's. */
static void affine_chain(double x, double *mid, double *last)
{
	double y = 1.1 * x + 0.0 + x;
	for (int k = 3; k <= MANY; k++) {
		y = 1.0 * y + (k == MANY / 2 ? 0.3 : 0.0) + x;
		if (k == MANY / 2)
			*mid = y;
	}
	*last = y;
}

/* A wrapper over an integrator and MANY - 1 affine instances, in table form by default:
 * at every step the integrator's value is the one the same chain run by `sacc simulate` as
 * a scenario gives (Gauss-Seidel) and the affine ones are those of a hand computation from
 * it, bit for bit; the chain's agree with them to 1e-12 (the affine FMU interpolates its
 * inputs, and the master hands it the value at t_n with a slope where the wrapper sets the
 * new value: a unit in the last place here and there).  The integrator makes the values
 * change from step to step, a gain of 1.1 and an offset of 0.3 make them round. */
static void table_form__many_inners__equal_the_chain_run_by_simulate(void **state)
{
	Ctx *c = *state;
	char name[64];
	snprintf(name, sizeof name, "wchain%d", MANY);
	write_wrapper(c, "wchain.sa", MANY, 1);
	build(c, "", "wchain.sa", "out");
	char fmu[96];
	snprintf(fmu, sizeof fmu, "out/%s.fmu", name);
	assert_true(has_table(c, fmu));

	FILE *f = fopen(path_in(c, "chain.sa"), "w");
	assert_non_null(f);
	fprintf(f, "module chain\nfmu Integrator i1 at \"integrator.fmu\"\n");
	for (int i = 2; i <= MANY; i++)
		fprintf(f, "fmu Affine a%d at \"affine.fmu\"\n", i);
	fprintf(f, "i1.x -> a2.u\n");
	for (int i = 2; i < MANY; i++)
		fprintf(f, "a%d.y -> a%d.u\n", i, i + 1);
	for (int i = 2; i <= MANY; i++)
		fprintf(f, "i1.x -> a%d.w\n", i);
	assert_int_equal(fclose(f), 0);

	char args[1024];
	snprintf(args, sizeof args, "'%s/%s' --start 0 --step 0.1 --stop 3 --set %s.u=1 "
	         "--set %s.i1.x0=0.5 --set %s.a2.gain=1.1 --set %s.a%d.offset=0.3 "
	         "-o '%s/wrapper.csv'", c->dir, fmu, name, name, name, name, MANY / 2, c->dir);
	if (simulate(c, args) != 0)
		fail_msg("the wrapper's run failed:\n%s", file_in(c, "err.txt"));
	snprintf(args, sizeof args, "'%s/chain.sa' --master gauss-seidel --start 0 --step 0.1 "
	         "--stop 3 --set i1.u=1 --set i1.x0=0.5 --set a2.gain=1.1 --set a%d.offset=0.3 "
	         "--record i1.x,a%d.y,a%d.y -o '%s/chain.csv'", c->dir, MANY / 2, MANY / 2, MANY,
	         c->dir);
	if (simulate(c, args) != 0)
		fail_msg("the chain's run failed:\n%s", file_in(c, "err.txt"));

	int nw, nc;
	char **w = rows_of(path_in(c, "wrapper.csv"), &nw);
	char **ch = rows_of(path_in(c, "chain.csv"), &nc);
	assert_int_equal(nw, 31); /* t = 0, then 30 steps */
	assert_int_equal(nc, nw);
	/* from the first step on (at t = 0 the wrapper's outputs are its Init's, the chain's
	 * the instances' own) */
	for (int i = 1; i < nw; i++) {
		double v[4], r[4], mid, last;
		assert_int_equal(sscanf(w[i], "%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3]), 4);
		assert_int_equal(sscanf(ch[i], "%lf,%lf,%lf,%lf", &r[0], &r[1], &r[2], &r[3]), 4);
		affine_chain(v[1], &mid, &last);
		if (v[0] != r[0] || v[1] != r[1] || v[2] != mid || v[3] != last)
			fail_msg("row %d: the wrapper gives %sthe chain %sby hand ...,%.17g,%.17g", i,
			         w[i], ch[i], mid, last);
		for (int k = 2; k < 4; k++)
			assert_true(v[k] > r[k] * (1 - 1e-12) && v[k] < r[k] * (1 + 1e-12));
	}
	/* and by hand at t = 3: i1.x = 0.5 + 30 steps of 0.1 */
	double t, x;
	assert_int_equal(sscanf(w[nw - 1], "%lf,%lf", &t, &x), 2);
	assert_true(t == 3.0);
	assert_true(x > 3.5 - 1e-12 && x < 3.5 + 1e-12);
	free_rows(w, nw);
	free_rows(ch, nc);
}

/* The same wrapper of a few inners built as statements (the default) and as a table
 * (SACC_TABLE_INNERS=2) runs alike: every row and every message the same, when all goes
 * well and when an inner's step fails or gives NaN half-way along the chain (the fast
 * step's hand-over to the rest of Ctrl, sart_step_rows). */
static void table_form__few_inners__equals_the_statements_even_when_a_step_fails(void **state)
{
	Ctx *c = *state;
	write_wrapper(c, "wchain.sa", 5, 0);
	build(c, "", "wchain.sa", "stmts");
	build(c, "SACC_TABLE_INNERS=2", "wchain.sa", "table");
	assert_false(has_table(c, "stmts/wchain5.fmu"));
	assert_true(has_table(c, "table/wchain5.fmu"));
	static const char *const sets[] = {
		"--set wchain5.i2.x0=0.25",
		"--set wchain5.i3.fail_at=0.35",
		"--set wchain5.i4.nan_at=0.25",
		"--set wchain5.i1.fail_at=0.15",
	};
	for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
		char *out[2], *err[2];
		int rc[2];
		for (int form = 0; form < 2; form++) {
			char args[1024];
			snprintf(args, sizeof args, "'%s/%s/wchain5.fmu' --start 0 --step 0.1 --stop 0.6 "
			         "--set wchain5.u=1 %s -o '%s/r.csv'", c->dir, form ? "table" : "stmts",
			         sets[k], c->dir);
			rc[form] = simulate(c, args);
			out[form] = file_in(c, "r.csv");
			err[form] = file_in(c, "err.txt");
			/* the wall time of the last line differs from run to run */
			char *wall = strstr(err[form], " s wall time");
			while (wall && wall > err[form] && wall[-1] != ',')
				wall--;
			if (wall)
				*wall = '\0';
		}
		if (rc[0] != rc[1] || strcmp(out[0], out[1]) != 0 || strcmp(err[0], err[1]) != 0)
			fail_msg("%s: statements (exit %d):\n%s%s\ntable (exit %d):\n%s%s", sets[k],
			         rc[0], out[0], err[0], rc[1], out[1], err[1]);
		if (k == 0)
			assert_int_equal(rc[0], 0);
		else
			assert_int_not_equal(rc[0], 0); /* the failures did happen */
		for (int form = 0; form < 2; form++) {
			free(out[form]);
			free(err[form]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			table_form__many_inners__equal_the_chain_run_by_simulate, setup, teardown),
		cmocka_unit_test_setup_teardown(
			table_form__few_inners__equals_the_statements_even_when_a_step_fails, setup,
			teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
