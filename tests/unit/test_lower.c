/* test_lower.c — the lowering of the declarative layer (lower.c, docs/language.md, section 14).
 *
 * Two kinds of test.  In process: each form lowered on a small script, with the origin and
 * location of what it makes, the errors where it cannot apply, and `--after` stopping in
 * the stage.  End to end: the lowered forms built into wrapper FMUs and stepped with the
 * suite's importer, checking the numbers —
 *   tests/e2e/lower_rate{0,2,4}.sa   multiply rate over the integrator (x' = u, stepped
 *                                    with u constant over each inner step): interpolation
 *                                    of order K is exact for inputs polynomial of degree K,
 *                                    with variable external steps, and of lower order
 *                                    while the history is short;
 *   tests/e2e/lower_subst.sa         successive substitution over window and obstacle: the
 *                                    fixed point is the contact force;
 *   tests/e2e/lower_delay.sa         delay: the obstacle sees the previous step's height;
 *   tests/e2e/lower_triggered.sa     triggered by: skipped time covered in one inner step;
 *   tests/e2e/lower_periodic.sa      periodic: steps past an instant rejected, landing on it;
 *   tests/e2e/lower_multiplied.sa    multiplied: N inner steps of H/N, inputs held;
 *   tests/e2e/lower_hold_{zoh,foh,no}.sa   output holds between triggered inner steps:
 *                                    the last value, the line (exact for a linear x), 0;
 *   tests/e2e/lower_quantize.sa      quantize zones: a zone condition fires on entering it;
 *   tests/e2e/lower_quantize_every.sa   quantize every D: its output function likewise;
 *   tests/e2e/lower_quantize_prev.sa    quantize(P, = expr) over signal[prev];
 *   tests/e2e/lower_crossing_block.sa   a crossing in a condition block, located as well;
 *   tests/e2e/lower_crossing_out.sa  crossing settings on out rules, over an inner output;
 *   tests/e2e/lower_otherwise_block.sa  otherwise after condition blocks;
 *   tests/e2e/lower_crossing.sa      crossing settings (`>!`, `<!`, `otherwise`) over a
 *                                    ramp from another integrator, stepped with steps that
 *                                    overshoot: rejected, and located within tolerance;
 *   adaptations/powerwindow-declarative/{loop_sa,rate_sa,controller_sa,lazy_triggered_sa}.sa
 *                                    the same results as the hand-written scripts.
 * The window: height = 100 r displacement (cm), torque -(r F + b r speed), r = 0.11,
 * b = 10; the obstacle: F = c (disp - 0.45) above 0.45, c = 1e10.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (whose e2e/
 * holds the tests/e2e FMUs; the declarative power-window FMUs are built here, into
 * BUILD/powerwindow-declarative/, when older than their scripts). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <sys/stat.h>

#include "sacc_test.h"
#include "fmi2_importer.h"

#include "lower.h"
#include "sema.h"

#define R 0.11
#define B 10.0
#define C_OBST 1e10
#define POS_OBST 0.45

/* ---- in process ---------------------------------------------------------------------------- */

#define HEAD "semantic adaptation reactive moore sa\nat \"sa.fmu\"\n"
#define INTEG "\tfor inner fmu Integrator integ\n\t\tat \"integrator.fmu\"\n"
#define WINDOW "\tfor inner fmu Window window\n\t\tat \"window.fmu\"\n"
#define OBSTACLE "\tfor inner fmu Obstacle obstacle\n\t\tat \"obstacle.fmu\"\n"
#define LOOP "\tcoupled as window.height -> obstacle.disp, " \
	     "obstacle.reaction_force -> window.reaction_force\n"

typedef struct Run {
	TestRun *t;
	Module *m;
	char *text;
} Run;

static int run_setup(void **state)
{
	Run *r = calloc(1, sizeof *r);
	r->t = tr_new();
	*state = r;
	return 0;
}

static int run_teardown(void **state)
{
	Run *r = *state;
	free(r->text);
	tr_free(r->t);
	free(r);
	return 0;
}

static int lower_in(Run *r, const char *text, const char *after)
{
	r->m = tr_load(r->t, "t.sa", text);
	assert_non_null(r->m);
	assert_non_null(r->m->root);
	return drv_explicit(r->t->c, r->m, after);
}

static const char *lowered(Run *r, const char *text, const char *after)
{
	int errors = lower_in(r, text, after);
	if (errors)
		fail_msg("%d errors:\n%s", errors, tr_diag(r->t));
	free(r->text);
	r->text = tr_print(r->m);
	return r->text;
}

static const char *fails(Run *r, const char *text)
{
	int errors = lower_in(r, text, NULL);
	if (!errors)
		fail_msg("no error; the result is:\n%s", r->text = tr_print(r->m));
	return tr_diag(r->t);
}

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("expected to find\n%s\nin\n%s", want, text);
}

static Node *adaptation(Run *r)
{
	for (Node *e = r->m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			return e;
	fail_msg("no adaptation");
	return NULL;
}

/* Every node under n made by a rule has one of the given origins (or NULL: the user's). */
static int count_origin(const Node *n, const char *origin)
{
	int k = 0;
	for (; n; n = n->next) {
		if (n->origin && strcmp(n->origin, origin) == 0)
			k++;
		const Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->body,
				      n->list1, n->list2, n->list3};
		for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
			if (kids[i] && !(n->kind == ND_FOR && kids[i] == n->init))
				k += count_origin(kids[i], origin);
	}
	return k;
}

static void multiply_rate__after_lower__control_and_in_rule_with_origin(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD INTEG "multiply rate 4 times with second order "
				"interpolation\n", LW_STAGE);
	/* the stage alone: the explicit-form rules have not run */
	assert_null(strstr(s, "stored_"));
	expect_in(s, "input ports Real u\n");
	expect_in(s, "\tfor (var micro in 0 .. 4) {\n\t\tdo_step(integ, inner_time, micro_step);\n");
	expect_in(s, "\tprevious_u_2 := previous_u_1;\n\tprevious_u_1 := current_u;\n");
	expect_in(s, "\trate_history := min(rate_history + 1, 2);\n\treturn H;\n");
	expect_in(s, "\t\tif (rate_history >= 2) {\n");
	expect_in(s, "\t\t} else if (rate_history >= 1) {\n");
	expect_in(s, "\t\t\tinteg.u := current_u;\n");
	Node *sa = adaptation(r);
	assert_null(sa->a_general);
	assert_string_equal(sa->a_ctrl->origin, "MultiplyRate");
	assert_int_equal(sa->a_ctrl->loc.line, 5); /* the form's line */
	assert_true(count_origin(sa->a_ctrl, "MultiplyRate") > 20);
	assert_string_equal(sa->a_in_rules->list3->origin, "MultiplyRate");
}

static void multiply_rate__no_interpolation__no_history(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD INTEG "multiply rate 3 times with no interpolation\n",
				LW_STAGE);
	assert_null(strstr(s, "previous_"));
	assert_null(strstr(s, "rate_history"));
	expect_in(s, "} --> {\n\t\tinteg.u := current_u;\n\t};\n");
}

static void multiply_rate__explicit_of_explicit__same_text(void **state)
{
	Run *r = *state;
	char *first = strdup(lowered(r, HEAD INTEG "multiply rate 2 times\n", NULL));
	TestRun *again = tr_new();
	Module *m = tr_load(again, "t.sa", first);
	assert_int_equal(drv_explicit(again->c, m, NULL), 0);
	char *second = tr_print(m);
	assert_string_equal(first, second);
	free(first);
	free(second);
	tr_free(again);
}

static void multiply_rate__own_control_rules__error_names_both(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG "multiply rate 2 times\n"
			      "control rules {\n\treturn H;\n}\n");
	expect_in(d, "t.sa:5:1: error: MultiplyRate: 'multiply rate' generates the control "
		  "rules, and this adaptation has its own");
	expect_in(d, "t.sa:6:1: note: the control rules are here");
}

static void multiply_rate__real_rate_or_order_5__errors(void **state)
{
	Run *r = *state;
	expect_in(fails(r, HEAD INTEG "multiply rate 2.5 times\n"),
		  "t.sa:5:15: error: MultiplyRate: the rate must be an Integer of at least 1");
	TestRun *t2 = tr_new();
	Module *m = tr_load(t2, "u.sa", HEAD INTEG "multiply rate 2 times with interpolation "
			    "of order 5\n");
	assert_true(drv_explicit(t2->c, m, NULL) > 0);
	expect_in(tr_diag(t2), "u.sa:5:1: error: MultiplyRate: interpolation of order 5: orders "
		  "0 to 4 are supported");
	tr_free(t2);
}

static void multiply_rate__generated_name_taken__error_at_user_declaration(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG "param rate_history := 1;\nmultiply rate 2 times\n");
	expect_in(d, "t.sa:5:7: error: MultiplyRate: the name 'rate_history' is needed for how "
		  "many earlier input samples are known but is already a parameter");
	expect_in(d, "t.sa:6:1: note: the declarative form that needs it");
}

static void successive_substitution__lowered__tears_and_rolls_back(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD WINDOW OBSTACLE LOOP
				"successive substitution starts at obstacle.disp with absolute "
				"tolerance = 1e-6 and relative tolerance = 1e-4\n", LW_STAGE);
	expect_in(s, "param Integer SUBSTITUTION_MAXITER := 10;\n");
	expect_in(s, "control var Real guess_window_height := 0.0;\n");
	expect_in(s, "\t\tsave_state(obstacle);\n\t\tsave_state(window);\n"
		  "\t\tobstacle.disp := 0.01 * guess_window_height;\n"
		  "\t\tdo_step(obstacle, t, H);\n\t\tdo_step(window, t, H);\n"
		  "\t\tconverged := is_close(guess_window_height, window.height, 1e-4, 1e-6);\n"
		  "\t\tguess_window_height := window.height;\n");
	expect_in(s, "\t\t} else {\n\t\t\trollback(obstacle);\n\t\t\trollback(window);\n");
	expect_in(s, "\tif (not converged) {\n\t\tstep := H / 2.0;\n\t}\n\treturn step;\n");
	assert_string_equal(adaptation(r)->a_ctrl->origin, "SuccessiveSubstitution");
}

static void successive_substitution__user_maxiter__used(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD WINDOW OBSTACLE LOOP "param SUBSTITUTION_MAXITER := 3;\n"
				"successive substitution starts at obstacle.disp with absolute "
				"tolerance = 1e-6 and relative tolerance = 1e-4\n", LW_STAGE);
	expect_in(s, "param Integer SUBSTITUTION_MAXITER := 3;\n\n");
	assert_null(strstr(s, ":= 10;"));
}

static void successive_substitution__no_rollback__error_names_the_fmu(void **state)
{
	Run *r = *state;
	/* passthrough.fmu (y = u) says it cannot get and set its state */
	const char *d = fails(r, HEAD INTEG "\tfor inner fmu Passthrough pass\n\t\tat "
			      "\"passthrough.fmu\"\n"
			      "\tcoupled as integ.x -> pass.u, pass.y -> integ.u\n"
			      "successive substitution starts at integ.u with absolute "
			      "tolerance = 1e-6 and relative tolerance = 1e-4\n");
	expect_in(d, "error: SuccessiveSubstitution: inner fmu 'pass' cannot save and restore "
		  "its state, and every iteration rolls the loop back");
	expect_in(d, "note: its model description says canGetAndSetFMUstate=\"false\"");
}

static void successive_substitution__port_not_coupled__error(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD WINDOW OBSTACLE LOOP
			      "successive substitution starts at window.speed with absolute "
			      "tolerance = 1e-6 and relative tolerance = 1e-4\n");
	expect_in(d, "t.sa:8:35: error: SuccessiveSubstitution: 'window.speed' must be an inner "
		  "port on a coupling (the loop is cut there)");
}

static void delay__lowered__previous_height(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD WINDOW OBSTACLE LOOP "delay at obstacle.disp\n", LW_STAGE);
	expect_in(s, "control var Real delayed_window_height := 0.0;\ncontrol rules {\n"
		  "\tobstacle.disp := 0.01 * delayed_window_height;\n"
		  "\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
		  "\tvar Real H_window := do_step(window, t, H);\n"
		  "\tdelayed_window_height := window.height;\n"
		  "\treturn min(H_obstacle, H_window);\n}\n");
}

static void delay__two_forms__cannot_combine(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD WINDOW OBSTACLE LOOP "successive substitution starts at "
			      "obstacle.disp with absolute tolerance = 1e-6 and relative tolerance "
			      "= 1e-4\ndelay at obstacle.disp\n");
	expect_in(d, "t.sa:9:1: error: Delay: 'delay' cannot be combined with "
		  "another control form in one adaptation");
}

static void delay__loop_remains__error(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD WINDOW OBSTACLE LOOP "delay at window.speed\n");
	expect_in(d, "error: Delay: 'window.speed' must be an inner port on a coupling");
}

#define LEVEL "input ports Real level\n"
#define CROSS_RULES "in rules with crossing absolute tolerance = 1e-6 and relative tolerance = 1e-6 {\n"

static void crossing__with_delay__wraps_its_control_rules_and_keeps_its_origin(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD WINDOW OBSTACLE LOOP LEVEL "delay at obstacle.disp\n"
				CROSS_RULES "\tsa.level <! 2.0 -> { } --> { window.speed := 1.0; };\n}\n",
				LW_STAGE);
	expect_in(s, "\tif (crossing_step >= H) {\n\t\tobstacle.disp := 0.01 * delayed_window_height;\n");
	expect_in(s, "\t\tcrossing_step := min(H_obstacle, H_window);\n\t}\n\treturn crossing_step;\n");
	expect_in(s, "crossing_1_left > crossing_1_right and not is_close(");
	Node *sa = adaptation(r);
	assert_string_equal(sa->a_ctrl->origin, "Delay");
	assert_true(count_origin(sa->a_ctrl, "Crossing") > 0);
	assert_true(count_origin(sa->a_in_rules, "Crossing") > 0);
	assert_null(sa->a_in_rules->list1); /* the settings are gone */
}

static void otherwise__first_after_assignment_and_after_two__true_false_not_or(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD INTEG LEVEL "in rules {\n"
				"\totherwise -> { } --> { integ.u := 1.0; };\n}\n"
				"out var Real y := 0.0;\nout rules {\n"
				"\tinteg.x > 1.0 -> { y := 1.0; };\n\tinteg.x < -1.0 -> { y := 2.0; };\n"
				"\totherwise -> { y := 3.0; };\n"
				"\ty := y + 1.0;\n\totherwise -> { y := 4.0; };\n}\n", LW_STAGE);
	expect_in(s, "in rules {\n\ttrue -> { } --> {\n");
	expect_in(s, "\tnot (integ.x > 1.0 or integ.x < -1.0) -> {\n\t\ty := 3.0;\n");
	expect_in(s, "\tfalse -> {\n\t\ty := 4.0;\n");
	assert_null(strstr(s, "otherwise"));
}

static void crossing__errors__integer_signal_delayed_name_taken(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG "input ports Integer n\n" CROSS_RULES
			      "\tsa.n >! 2 -> { } --> { integ.u := 1.0; };\n}\n");
	expect_in(d, "error: Crossing: the signal of '>!' must be Real, not Integer");
	run_teardown(state);
	run_setup(state);
	r = *state;
	d = fails(r, "semantic adaptation delayed moore sa\nat \"sa.fmu\"\n" INTEG LEVEL CROSS_RULES
		  "\tsa.level >! 2.0 -> { } --> { integ.u := 1.0; };\n}\n");
	expect_in(d, "error: Crossing: crossing settings need a reactive adaptation");
	run_teardown(state);
	run_setup(state);
	r = *state;
	d = fails(r, HEAD INTEG LEVEL "in var Bool crossing_known := true;\n" CROSS_RULES
		  "\tsa.level >! 2.0 -> { } --> { integ.u := 1.0; };\n}\n");
	expect_in(d, "error: Crossing: the name 'crossing_known' is needed for whether the "
		  "crossings' start values are known but is already an in var");
}

static void crossing__operator_without_settings__check_error(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG LEVEL "in rules {\n"
			      "\tsa.level >! 2.0 -> { } --> { integ.u := 1.0; };\n}\n");
	expect_in(d, "error: the crossing operator '>!' needs crossing settings on its rules block");
}

/* ---- control forms ---- */

static void triggered__lowered__steps_from_last_execution_time_when_the_trigger_holds(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD INTEG LEVEL "triggered by sa.level > 0.5\n", LW_STAGE);
	expect_in(s, "control rules {\n\tvar Real triggered_step := H;\n"
		  "\tif (sa.level > 0.5) {\n"
		  "\t\tvar Real from_integ := last_execution_time(integ);\n"
		  "\t\tvar Real H_integ := do_step(integ, from_integ, t + H - from_integ);\n"
		  "\t\tif (H_integ < t + H - from_integ) {\n"
		  "\t\t\ttriggered_step := min(triggered_step, from_integ + H_integ - t);\n"
		  "\t\t}\n"
		  "\t}\n\treturn triggered_step;\n}\n");
	Node *sa = adaptation(r);
	assert_string_equal(sa->a_ctrl->origin, "Triggered");
	assert_int_equal(sa->a_ctrl->loc.line, 6); /* the form's line */
}

static void triggered__number__error_and_bool_port_or_builtin__accepted(void **state)
{
	Run *r = *state;
	expect_in(fails(r, HEAD INTEG LEVEL "triggered by sa.level + 1.0\n"),
		  "t.sa:6:14: error: the trigger of 'triggered by' must be Bool, not Real");
	TestRun *t2 = tr_new();
	Module *m = tr_load(t2, "u.sa", HEAD INTEG "input ports Bool go, Real level\n"
			    "triggered by sa.go or is_set(level)\n");
	if (drv_explicit(t2->c, m, LW_STAGE))
		fail_msg("%s", tr_diag(t2));
	tr_free(t2);
}

static void periodic__lowered__counts_instants_and_rejects_past_the_next(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD INTEG "periodic every 0.5\n", LW_STAGE);
	expect_in(s, "control var Integer periodic_count := 0;\n");
	expect_in(s, "\tif (0.0 + periodic_count * 0.5 <= t + 1e-09 * 0.5) {\n"
		  "\t\tperiodic_count := floor((t - 0.0) / 0.5 + 1e-09) + 1;\n\t}\n"
		  "\tvar Real periodic_next := 0.0 + periodic_count * 0.5;\n"
		  "\tif (t + H > periodic_next + 1e-09 * 0.5) {\n"
		  "\t\tperiodic_step := periodic_next - t;\n"
		  "\t} else if (t + H >= periodic_next - 1e-09 * 0.5) {\n");
	expect_in(s, "\t\tperiodic_count := periodic_count + 1;\n\t}\n\treturn periodic_step;\n");
	assert_string_equal(adaptation(r)->a_ctrl->origin, "Periodic");
}

static void periodic__no_rollback_or_zero_period__errors(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD "\tfor inner fmu Passthrough pass\n\t\tat "
			      "\"passthrough.fmu\"\nperiodic at 1.0 every 0.5\n");
	expect_in(d, "t.sa:5:1: error: Periodic: inner fmu 'pass' cannot save and restore its "
		  "state, and the wrapper lands on each instant by rejecting the step that would "
		  "pass it");
	expect_in(d, "note: its model description says canGetAndSetFMUstate=\"false\"");
	TestRun *t2 = tr_new();
	Module *m = tr_load(t2, "u.sa", HEAD INTEG "periodic every 0\n");
	assert_true(drv_explicit(t2->c, m, NULL) > 0);
	expect_in(tr_diag(t2), "u.sa:5:16: error: Periodic: the period must be greater than 0");
	tr_free(t2);
}

static void multiplied__lowered__n_steps_of_h_over_n(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD INTEG "multiplied 3 times\n", LW_STAGE);
	expect_in(s, "control rules {\n\tvar Real micro_step := H / 3;\n"
		  "\tvar Real inner_time := t;\n\tfor (var micro in 0 .. 3) {\n"
		  "\t\tdo_step(integ, inner_time, micro_step);\n"
		  "\t\tinner_time := inner_time + micro_step;\n\t}\n\treturn H;\n}\n");
	assert_string_equal(adaptation(r)->a_ctrl->origin, "Multiplied");
	expect_in(fails(r, HEAD INTEG "multiplied 2.5 times\n"),
		  "t.sa:5:12: error: Multiplied: the count must be an Integer of at least 1");
}

static void implied__written_out__as_create_ctrl_rules_would(void **state)
{
	Run *r = *state;
	const char *s = lowered(r, HEAD WINDOW OBSTACLE "\tcoupled as window.height -> obstacle.disp\n"
				"implied\n", LW_STAGE);
	expect_in(s, "control rules {\n\tvar Real H_window := do_step(window, t, H);\n"
		  "\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
		  "\treturn min(H_window, H_obstacle);\n}\n");
	assert_string_equal(adaptation(r)->a_ctrl->origin, "Implied");
}

static void control_form__with_multiply_rate__error(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG "multiply rate 2 times\nmultiplied 2 times\n");
	expect_in(d, "t.sa:5:1: error: MultiplyRate: 'multiply rate' generates the control "
		  "rules, and this adaptation has its own");
	expect_in(d, "t.sa:6:1: note: the control rules are here");
}

static void quantize__zone_used_but_never_declared__check_error(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG LEVEL "in rules {\n"
			      "\tquantize(sa.level, \"low\", 1.0, \"high\");\n"
			      "\t\"middle\" -> { } --> { integ.u := 1.0; };\n}\n");
	expect_in(d, "t.sa:8:2: error: zone \"middle\" is used but no quantize rule of this "
		  "rules block declares it");
	expect_in(d, "t.sa:8:2: note: the zones declared are \"low\", \"high\"");
}

static void quantize__zone_number_with_two_numbered_quantizers__check_error(void **state)
{
	Run *r = *state;
	const char *d = fails(r, HEAD INTEG LEVEL "in rules {\n"
			      "\tquantize sa.level every 0.5;\n"
			      "\tquantize(sa.level, = floor(signal));\n"
			      "\t3 -> { } --> { integ.u := 1.0; };\n}\n");
	expect_in(d, "t.sa:9:2: error: a zone number could be of any of the 2 quantize rules "
		  "(`every` or `= expr`) of this rules block");
}

/* ---- end to end --------------------------------------------------------------------------- */

typedef struct Fmu {
	Fmi2Api api;
	char dir[PATH_MAX];
	char guid[64];
	char uri[PATH_MAX + 32];
	char id[64];
} Fmu;

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
		   fmi2String category, fmi2String message, ...)
{
	(void)env;
	if (status < fmi2Error)
		return;
	va_list ap;
	va_start(ap, message);
	fprintf(stderr, "[%s] %s: ", name, category);
	vfprintf(stderr, message, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static void read_attr(const char *dir, const char *key, char *out, size_t size)
{
	char path[PATH_MAX + 32], line[1024];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof line, f) && !out[0]) {
		char *g = strstr(line, key);
		if (g) {
			g += strlen(key);
			size_t n = strcspn(g, "\"");
			assert_true(n < size);
			memcpy(out, g, n);
			out[n] = '\0';
		}
	}
	fclose(f);
	assert_true(out[0] != '\0');
}

static void run(const char *cmd)
{
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* Unpacks BUILD/<sub>/<id>.fmu into BUILD/lower-unpacked/<sub>/<id>/ and loads it. */
static void load_fmu(Fmu *f, const char *sub, const char *id)
{
	char cmd[4 * PATH_MAX], rel[PATH_MAX];
	const char *b = test_build_dir();
	snprintf(rel, sizeof rel, "%s/lower-unpacked/%s/%s", b, sub, id);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/lower-unpacked/%s' && '%s/sacc' "
		 "unpack '%s/%s/%s.fmu' '%s'", rel, b, sub, b, b, sub, id, rel);
	run(cmd);
	assert_non_null(realpath(rel, f->dir));
	snprintf(f->id, sizeof f->id, "%s", id);
	read_attr(f->dir, "guid=\"", f->guid, sizeof f->guid);
	snprintf(f->uri, sizeof f->uri, "file://%s/resources", f->dir);
	char lib[PATH_MAX + 64];
	snprintf(lib, sizeof lib, "%s/binaries/linux64/%s.so", f->dir, id);
	fmi2_import(&f->api, lib);
}

/* An instance initialized and ready to step from t0. */
static fmi2Component start_fmu_at(Fmu *f, const char *instance, double t0)
{
	fmi2Component c = f->api.instantiate(instance, fmi2CoSimulation, f->guid, f->uri,
					     &callbacks, fmi2False, fmi2False);
	assert_non_null(c);
	assert_int_equal(f->api.setup(c, fmi2False, 0, t0, fmi2False, 0), fmi2OK);
	assert_int_equal(f->api.enter_init(c), fmi2OK);
	assert_int_equal(f->api.exit_init(c), fmi2OK);
	return c;
}

static fmi2Component start_fmu(Fmu *f, const char *instance)
{
	return start_fmu_at(f, instance, 0);
}

static void stop_fmu(Fmu *f, fmi2Component c)
{
	assert_int_equal(f->api.terminate(c), fmi2OK);
	f->api.free_instance(c);
	fmi2_unimport(&f->api);
}

static fmi2ValueReference vr_of(const Fmu *f, const char *name)
{
	char key[128], v[32];
	snprintf(key, sizeof key, "name=\"%s\" valueReference=\"", name);
	read_attr(f->dir, key, v, sizeof v);
	return (fmi2ValueReference)strtoul(v, NULL, 10);
}

static double get1(Fmu *f, fmi2Component c, fmi2ValueReference vr)
{
	double v = NAN;
	assert_int_equal(f->api.get_real(c, &vr, 1, &v), fmi2OK);
	return v;
}

static void set1(Fmu *f, fmi2Component c, fmi2ValueReference vr, double v)
{
	assert_int_equal(f->api.set_real(c, &vr, 1, &v), fmi2OK);
}

/* ---- multiply rate ---- */

typedef double (*Poly)(double);
static double p2(double t) { return 1.0 + 2.0 * t - 3.0 * t * t; }
static double p4(double t) { return 0.5 - t + 4.0 * t * t * t - 2.5 * t * t * t * t; }

/* Steps BUILD/e2e/<id> (integrator inside, `rate` inner steps) with u = p(t) over steps of
 * varying size; from step `exact_from` on, each step's increase of x must be the sum of
 * p at the inner steps' ends times the inner step: the interpolation is p itself. */
static void check_rate(const char *id, int rate, Poly p, int exact_from, int order)
{
	Fmu f;
	load_fmu(&f, "e2e", id);
	fmi2Component c = start_fmu(&f, id);
	fmi2ValueReference u = vr_of(&f, "u"), x = vr_of(&f, "x");
	static const double hs[] = {0.1, 0.05, 0.2, 0.1, 0.15, 0.1, 0.08, 0.3, 0.1, 0.12};
	double t = 0, before = get1(&f, c, x);
	for (int k = 0; k < 10; k++) {
		double H = hs[k];
		set1(&f, c, u, p(t + H)); /* reactive: the input at the step's end */
		assert_int_equal(f.api.do_step(c, t, H, fmi2True), fmi2OK);
		double after = get1(&f, c, x), want = 0;
		for (int i = 1; i <= rate; i++)
			want += p(t + i * H / rate) * H / rate;
		if (k == 0 && order > 0) {
			/* one earlier sample, the start value 0 at t = 0: linear from 0 */
			double lin = 0;
			for (int i = 1; i <= rate; i++)
				lin += p(t + H) * ((double)i / rate) * H / rate;
			assert_close(after - before, lin, 1e-12);
		}
		if (order == 0)
			want = p(t + H) * H;
		if (k >= exact_from)
			assert_close(after - before, want, 1e-11 * (1 + fabs(want)));
		before = after;
		t += H;
	}
	stop_fmu(&f, c);
}

static void multiply_rate__order_2__exact_for_parabolas(void **state)
{
	(void)state;
	check_rate("lower_rate2", 4, p2, 2, 2);
}

static void multiply_rate__order_4__exact_for_quartics(void **state)
{
	(void)state;
	check_rate("lower_rate4", 5, p4, 4, 4);
}

static void multiply_rate__no_interpolation__newest_value_held(void **state)
{
	(void)state;
	check_rate("lower_rate0", 3, p2, 0, 0);
}

/* A discrete inner input under second order interpolation: held at the newest sample
 * over the four inner steps (lower_rate_held, whose integrator sums what each inner step
 * saw), so each step adds p(t + H) H, where an interpolated input would add the sum of the
 * parabola's values at the inner steps' ends. */
static void multiply_rate__discrete_input__held_over_the_inner_steps(void **state)
{
	(void)state;
	check_rate("lower_rate_held", 4, p2, 0, 0);
}

/* The reactive pass-through of the feedthrough FMU (tests/e2e/feedthrough_pass.sa) given
 * the same input derivative for both Real inputs: the continuous one reaches the inner
 * extrapolated to the step's end, u + du H; the discrete one is held at u. */
static void input_derivatives__discrete_input__held_not_extrapolated(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "ft_pass_a");
	fmi2Component c = start_fmu(&f, "pass");
	fmi2ValueReference vr[2] = {vr_of(&f, "Float64_continuous_input"),
	                            vr_of(&f, "Float64_discrete_input")};
	const fmi2Integer order[2] = {1, 1};
	const fmi2Real du[2] = {4.0, 4.0};
	set1(&f, c, vr[0], 1.0);
	set1(&f, c, vr[1], 1.0);
	assert_int_equal(f.api.set_input_derivatives(c, vr, 2, order, du), fmi2OK);
	assert_int_equal(f.api.do_step(c, 0.0, 0.5, fmi2True), fmi2OK);
	assert_close(get1(&f, c, vr_of(&f, "Float64_continuous_output")), 1.0 + 4.0 * 0.5, 1e-15);
	assert_close(get1(&f, c, vr_of(&f, "Float64_discrete_output")), 1.0, 0.0);
	stop_fmu(&f, c);
}

/* ---- successive substitution and delay ---- */

static void successive_substitution__in_contact__converges_to_the_contact_force(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_subst");
	fmi2Component c = start_fmu(&f, "subst");
	fmi2ValueReference d = vr_of(&f, "displacement"), s = vr_of(&f, "speed"),
			   tau = vr_of(&f, "tau");
	double t = 0, h = 1e-3, sv = 0.2;
	for (int k = 0; k < 6; k++, t += h) {
		double dv = k < 3 ? 4.1 : 1.0;
		set1(&f, c, d, dv);
		set1(&f, c, s, sv);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
		double force = R * dv > POS_OBST ? C_OBST * (R * dv - POS_OBST) : 0.0;
		if (k == 0 || k == 3)
			continue; /* the guess is the previous step's: one step to settle */
		assert_close(get1(&f, c, tau), R * force + B * R * sv, 1e-9 * (R * force) + 1e-12);
	}
	stop_fmu(&f, c);
}

static void delay__each_step__obstacle_sees_previous_height(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_delay");
	fmi2Component c = start_fmu(&f, "delay");
	fmi2ValueReference d = vr_of(&f, "displacement"), s = vr_of(&f, "speed"),
			   tau = vr_of(&f, "tau");
	double t = 0, h = 1e-3, prev = 0.0;
	for (int k = 0; k < 8; k++, t += h) {
		double dv = 3.9 + 0.05 * k, sv = 0.01 * k;
		set1(&f, c, d, dv);
		set1(&f, c, s, sv);
		assert_int_equal(f.api.do_step(c, t, h, fmi2True), fmi2OK);
		double disp = R * prev; /* the height of the previous step, in m */
		double force = disp > POS_OBST ? C_OBST * (disp - POS_OBST) : 0.0;
		assert_close(get1(&f, c, tau), R * force + B * R * sv, 1e-12 * (1 + R * force));
		prev = dv;
	}
	stop_fmu(&f, c);
}

/* ---- the declarative power window against the hand-written one ---- */

static time_t mtime(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_mtime : 0;
}

/* Builds BUILD/powerwindow-declarative/{loop_sa,rate_sa}.fmu when missing or older than
 * their scripts or sacc (window_sa.fmu, which loop_sa wraps, is the hand-written one's). */
static void build_declarative(void)
{
	const char *b = test_build_dir();
	char fmu[PATH_MAX], sacc[PATH_MAX], cmd[4 * PATH_MAX];
	snprintf(fmu, sizeof fmu, "%s/powerwindow-declarative/rate_sa.fmu", b);
	snprintf(sacc, sizeof sacc, "%s/sacc", b);
	time_t built = mtime(fmu);
	if (built && built >= mtime(sacc) &&
	    built >= mtime("adaptations/powerwindow-declarative/loop_sa.sa") &&
	    built >= mtime("adaptations/powerwindow-declarative/rate_sa.sa") &&
	    built >= mtime("adaptations/powerwindow-declarative/controller_sa.sa") &&
	    built >= mtime("adaptations/powerwindow-declarative/lazy_triggered_sa.sa"))
		return;
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/powerwindow-declarative' && '%s' build -L '%s/fmus' "
		 "-L '%s/powerwindow' -I adaptations/powerwindow-declarative -I adaptations/powerwindow "
		 "-o '%s/powerwindow-declarative' adaptations/powerwindow-declarative/loop_sa.sa "
		 "adaptations/powerwindow-declarative/rate_sa.sa "
		 "adaptations/powerwindow-declarative/controller_sa.sa "
		 "adaptations/powerwindow-declarative/lazy_triggered_sa.sa", b, sacc, b, b, b);
	run(cmd);
}

/* Steps the declarative and the hand-written FMU <id> side by side with the same inputs,
 * through contact, and compares tau at every step. */
static void compare_with_hand_written(const char *id, double h, int steps, double rtol)
{
	build_declarative();
	Fmu dec, hand;
	load_fmu(&dec, "powerwindow-declarative", id);
	load_fmu(&hand, "powerwindow", id);
	fmi2Component cd = start_fmu(&dec, "declarative"), ch = start_fmu(&hand, "hand");
	fmi2ValueReference dd = vr_of(&dec, "displacement"), sd = vr_of(&dec, "speed"),
			   td = vr_of(&dec, "tau");
	fmi2ValueReference dh = vr_of(&hand, "displacement"), sh = vr_of(&hand, "speed"),
			   th = vr_of(&hand, "tau");
	double t = 0;
	int contacts = 0;
	for (int i = 0; i < steps; i++, t += h) {
		double dv = 3.0 + 1.2 * sin(0.02 * i), sv = 0.024 * cos(0.02 * i);
		set1(&dec, cd, dd, dv);
		set1(&dec, cd, sd, sv);
		set1(&hand, ch, dh, dv);
		set1(&hand, ch, sh, sv);
		assert_int_equal(dec.api.do_step(cd, t, h, fmi2True), fmi2OK);
		assert_int_equal(hand.api.do_step(ch, t, h, fmi2True), fmi2OK);
		double a = get1(&dec, cd, td), b = get1(&hand, ch, th);
		if (!(fabs(a - b) <= rtol * fabs(b) + 1e-12))
			fail_msg("%s step %d: declarative tau %.17g, hand-written %.17g", id, i, a, b);
		contacts += b > 1e3;
	}
	assert_true(contacts > 10); /* the run went through contact */
	stop_fmu(&dec, cd);
	stop_fmu(&hand, ch);
}

static void declarative_loop_sa__same_as_hand_written(void **state)
{
	(void)state;
	/* the same iteration in the same order: the same numbers */
	compare_with_hand_written("loop_sa", 1e-3, 300, 0.0);
}

/* The case study's rate_sa does more than multiply the rate: it hands out the torque
 * averaged over the next contact step and cuts steps near the obstacle, which no
 * declarative form expresses (in the declarative scenario the orchestrator's step control
 * does that: test_powerwindow).  So the declarative rate_sa is held against the
 * multi-rate rules alone, done here over the hand-written loop_sa: ten inner
 * steps, the inputs interpolated linearly from the previous external value (0 at the
 * start) to the current one. */
static void declarative_rate_sa__same_as_hand_written_rules(void **state)
{
	(void)state;
	build_declarative();
	Fmu dec, loop;
	load_fmu(&dec, "powerwindow-declarative", "rate_sa");
	load_fmu(&loop, "powerwindow", "loop_sa");
	fmi2Component cd = start_fmu(&dec, "declarative"), cl = start_fmu(&loop, "loop");
	fmi2ValueReference dd = vr_of(&dec, "displacement"), sd = vr_of(&dec, "speed"),
			   td = vr_of(&dec, "tau");
	fmi2ValueReference dl = vr_of(&loop, "displacement"), sl = vr_of(&loop, "speed"),
			   tl = vr_of(&loop, "tau");
	double t = 0, H = 1e-2, pd = 0, ps = 0;
	int contacts = 0;
	for (int i = 0; i < 200; i++, t += H) {
		double dv = 3.0 + 1.2 * sin(0.2 * i), sv = 0.24 * cos(0.2 * i);
		set1(&dec, cd, dd, dv);
		set1(&dec, cd, sd, sv);
		assert_int_equal(dec.api.do_step(cd, t, H, fmi2True), fmi2OK);
		double ti = t, h = H / 10;
		for (int k = 0; k < 10; k++, ti += h) {
			double w = (ti - t + h) / H;
			set1(&loop, cl, dl, pd + (dv - pd) * w);
			set1(&loop, cl, sl, ps + (sv - ps) * w);
			assert_int_equal(loop.api.do_step(cl, ti, h, fmi2True), fmi2OK);
		}
		pd = dv;
		ps = sv;
		double a = get1(&dec, cd, td), b = get1(&loop, cl, tl);
		/* the loop's tolerance is 1e-5 relative; the interpolation differs by rounding */
		if (!(fabs(a - b) <= 1e-5 * fabs(b) + 1e-9))
			fail_msg("step %d: declarative tau %.17g, by hand %.17g", i, a, b);
		contacts += b > 1e3;
	}
	assert_true(contacts > 10); /* the run went through contact */
	stop_fmu(&dec, cd);
	stop_fmu(&loop, cl);
}

/* Steps controller_sa (BUILD/<sub>/controller_sa) with the driver holding up and the
 * armature current the ramp i = 5 + slope (t - t_c), set at the end of each step tried,
 * retrying a rejected step with the step proposed; *rejected counts the rejections.
 * Returns the end of the step on which the motor command turned to down (the obstacle
 * event), or -1. */
static double controller_detects(const char *sub, double slope, double t_c, double H,
				 int *rejected)
{
	Fmu f;
	load_fmu(&f, sub, "controller_sa");
	fmi2Component c = start_fmu(&f, sub);
	fmi2ValueReference cur = vr_of(&f, "armature_current"), up_btn = vr_of(&f, "driver_up"),
			   d = vr_of(&f, "d");
	fmi2Boolean on = fmi2True;
	assert_int_equal(f.api.set_boolean(c, &up_btn, 1, &on), fmi2OK);
	double t = 0, detected_at = -1;
	*rejected = 0;
	for (int n = 0; n < 400 && t < t_c + 5 * H; n++) {
		double h = H;
		fmi2Status st;
		for (int tries = 0;; tries++) {
			assert_true(tries < 50);
			set1(&f, c, cur, 5.0 + slope * (t + h - t_c));
			st = f.api.do_step(c, t, h, fmi2True);
			if (st != fmi2Discard)
				break;
			double last = 0;
			assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
			assert_true(last > t && last < t + h);
			h = last - t;
			(*rejected)++;
		}
		assert_int_equal(st, fmi2OK);
		t += h;
		if (detected_at < 0 && get1(&f, c, d) > 0.5)
			detected_at = t;
	}
	stop_fmu(&f, c);
	return detected_at;
}

/* The declarative controller_sa against the hand-written one: ramps of the current through
 * T = 5 A at several slopes and crossing times, steps of 1 ms that overshoot: both reject
 * the same steps and locate the crossing at the same time, within the tolerance
 * (5e-4 A, i.e. 5e-4 / slope in time). */
static void declarative_controller_sa__same_detection_as_hand_written(void **state)
{
	(void)state;
	build_declarative();
	static const double slopes[] = {300.0, 800.0, 2000.0}, tcs[] = {0.0523, 0.0171, 0.04449};
	for (int i = 0; i < 3; i++) {
		int rd = 0, rh = 0;
		double dd = controller_detects("powerwindow-declarative", slopes[i], tcs[i], 1e-3, &rd);
		double dh = controller_detects("powerwindow", slopes[i], tcs[i], 1e-3, &rh);
		assert_true(dd > 0 && dh > 0);
		assert_true(rd >= 1);
		assert_int_equal(rd, rh);
		assert_true(fabs(slopes[i] * (dd - tcs[i])) < 5e-4);
		assert_true(fabs(slopes[i] * (dh - tcs[i])) < 5e-4);
		assert_close(dd, dh, 5e-4 / slopes[i]);
	}
}

/* ---- crossing ---- */

/* Steps BUILD/e2e/lower_crossing (crossings of `level` up through 1.0 and down through
 * 0.5) with `level` the output of another integrator, the ramp: u = 2 while t < 1, then
 * -2, so it rises through 1.0 at 0.5 and falls through 0.5 at 1.75.  As a master that
 * steps the ramp first, the importer sets `level` to the ramp at the end of each step it
 * tries, and on fmi2Discard restores the ramp and retries with the step the wrapper
 * proposes (its last successful time).  Steps of 0.3 overshoot both crossings: each is
 * rejected, and the step retried ends on the crossing within the tolerance (1e-6), where
 * the rule fires for that one step (x moves by +h, then -h); every other step
 * `otherwise` holds (x stays). */
static void crossing__ramp_overshoots__step_rejected_and_crossing_located(void **state)
{
	(void)state;
	Fmu f, g;
	load_fmu(&f, "e2e", "lower_crossing");
	load_fmu(&g, "fmus", "integrator");
	fmi2Component c = start_fmu(&f, "crossing"), ramp = start_fmu(&g, "ramp");
	fmi2ValueReference level = vr_of(&f, "level"), x = vr_of(&f, "x");
	fmi2ValueReference ru = vr_of(&g, "u"), rx = vr_of(&g, "x");
	const double H = 0.3, tol = 1e-6;
	double t = 0, x_before = get1(&f, c, x);
	double up_at = -1, down_at = -1, up_level = 0, down_level = 0;
	int rejected = 0, fired = 0;
	while (t < 2.5) {
		double h = H;
		fmi2FMUstate saved = NULL;
		assert_int_equal(g.api.get_state(ramp, &saved), fmi2OK);
		fmi2Status st;
		for (int tries = 0;; tries++) {
			assert_true(tries < 20);
			set1(&g, ramp, ru, t < 1 - 1e-12 ? 2.0 : -2.0);
			assert_int_equal(g.api.do_step(ramp, t, h, fmi2True), fmi2OK);
			set1(&f, c, level, get1(&g, ramp, rx));
			st = f.api.do_step(c, t, h, fmi2True);
			if (st != fmi2Discard)
				break;
			double last = 0;
			assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
			assert_true(last > t && last < t + h);
			h = last - t;
			rejected++;
			assert_int_equal(g.api.set_state(ramp, saved), fmi2OK);
		}
		assert_int_equal(g.api.free_state(ramp, &saved), fmi2OK);
		assert_int_equal(st, fmi2OK);
		t += h;
		double xw = get1(&f, c, x), lv = get1(&g, ramp, rx);
		if (xw > x_before + 1e-12) {
			assert_close(xw - x_before, h, 1e-12);
			up_at = t, up_level = lv;
			fired++;
		} else if (xw < x_before - 1e-12) {
			assert_close(x_before - xw, h, 1e-12);
			down_at = t, down_level = lv;
			fired++;
		}
		x_before = xw;
	}
	assert_int_equal(fired, 2);     /* each crossing fires once, on the step ending on it */
	assert_true(rejected >= 2);
	assert_true(fabs(up_level - 1.0) <= tol);
	assert_true(fabs(down_level - 0.5) <= tol);
	assert_close(up_at, 0.5, tol);
	assert_close(down_at, 1.95, tol);
	stop_fmu(&f, c);
	stop_fmu(&g, ramp);
}

/* ---- control forms ---- */

/* lower_triggered: x' = u stepped only when go > 0.5, over all the time since its last
 * step, with the u of that step; x holds in between. */
static void triggered__skipped_steps__covered_in_one_with_that_steps_input(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_triggered");
	fmi2Component c = start_fmu(&f, "triggered");
	fmi2ValueReference u = vr_of(&f, "u"), go = vr_of(&f, "go"), x = vr_of(&f, "x");
	const double H = 0.125;
	/* go, u per step; x after it: 3 skipped, then 4 H at u = 2, 1 skipped, 2 H at u = -1 */
	const double gos[] = {0, 0, 0, 1, 0, 1, 1};
	const double us[] = {1, 1, 1, 2, 5, -1, 4};
	const double xs[] = {0, 0, 0, 1.0, 1.0, 0.75, 1.25};
	for (int k = 0; k < 7; k++) {
		set1(&f, c, go, gos[k]);
		set1(&f, c, u, us[k]);
		assert_int_equal(f.api.do_step(c, k * H, H, fmi2True), fmi2OK);
		assert_close(get1(&f, c, x), xs[k], 1e-15);
	}
	stop_fmu(&f, c);
}

/* lower_triggered far from 0 with short steps: the inner's span t + H - from, recomputed as
 * from + H_f - t, rounds by ulps of t (at t = 8.5 and H = 1e-6, 7.5e-10 of H below it);
 * the step is still the whole step, not a rejection proposing that (it was, and an
 * orchestrator then retried every such step). */
static void triggered__short_steps_far_from_zero__whole_steps(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_triggered");
	fmi2Component c = start_fmu_at(&f, "triggered", 8.5);
	fmi2ValueReference u = vr_of(&f, "u"), go = vr_of(&f, "go"), x = vr_of(&f, "x");
	set1(&f, c, go, 1.0);
	set1(&f, c, u, 2.0);
	volatile double t = 8.5, H = 1e-6;
	assert_true((t + ((t + H) - t)) - t < H * (1 - 1e-10)); /* the premise */
	for (int k = 0; k < 3; k++) {
		assert_int_equal(f.api.do_step(c, t, H, fmi2True), fmi2OK);
		t = t + H;
	}
	assert_close(get1(&f, c, x), 2.0 * (t - 8.5), 1e-15);
	stop_fmu(&f, c);
}

/* lower_periodic: steps of 0.2 from 0; the integrator (u = 1) steps at 0.25, 0.75, 1.25:
 * each step that would pass one is rejected with the last successful time on it, the
 * retry ends there and x becomes the instant; between instants x holds. */
static void periodic__steps_past_an_instant__rejected_landing_on_it(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_periodic");
	fmi2Component c = start_fmu(&f, "periodic");
	fmi2ValueReference u = vr_of(&f, "u"), x = vr_of(&f, "x");
	const double instants[] = {0.25, 0.75, 1.25};
	int landed = 0, steps = 0;
	double t = 0, held = 0;
	while (t < 1.4) {
		double h = 0.2;
		set1(&f, c, u, 1.0);
		fmi2Status st = f.api.do_step(c, t, h, fmi2True);
		if (st == fmi2Discard) {
			double last = 0;
			assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
			assert_true(landed < 3);
			assert_close(last, instants[landed], 1e-15);
			assert_close(get1(&f, c, x), held, 0); /* the state at t is kept */
			h = last - t;
			set1(&f, c, u, 1.0);
			st = f.api.do_step(c, t, h, fmi2True);
			assert_int_equal(st, fmi2OK);
			t += h;
			held = instants[landed++];
			assert_close(get1(&f, c, x), held, 1e-15);
		} else {
			assert_int_equal(st, fmi2OK);
			t += h;
			assert_close(get1(&f, c, x), held, 0); /* no instant in this step */
		}
		steps++;
	}
	assert_int_equal(landed, 3);
	assert_int_equal(steps, 9);
	stop_fmu(&f, c);
}

/* lower_multiplied: x1' = u = 1, x2' = x1, four inner steps of H/4 = 0.25 with u held and
 * x2 taking x1 after each inner step of x1: x2 = 0.0625 (1 + 2 + 3 + 4) = 0.625 after the
 * first step, 0.625 + 0.0625 (5 + 6 + 7 + 8) = 2.25 after the second (one step: 1, 3). */
static void multiplied__four_inner_steps__riemann_sum_of_the_chain(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_multiplied");
	fmi2Component c = start_fmu(&f, "multiplied");
	fmi2ValueReference u = vr_of(&f, "u"), x2 = vr_of(&f, "x2");
	set1(&f, c, u, 1.0);
	assert_int_equal(f.api.do_step(c, 0.0, 1.0, fmi2True), fmi2OK);
	assert_close(get1(&f, c, x2), 0.625, 1e-15);
	set1(&f, c, u, 1.0);
	assert_int_equal(f.api.do_step(c, 1.0, 1.0, fmi2True), fmi2OK);
	assert_close(get1(&f, c, x2), 2.25, 1e-15);
	stop_fmu(&f, c);
}

/* ---- holds ---- */

/* lower_hold_{zoh,foh,no}: the integrator (x' = u, x from 0) triggered on steps 0, 1 and 4
 * of six steps of 0.25, with u = 2 on step 4 (which covers 0.75 s): x = 0.25, 0.5 and 2.0
 * at 0.25, 0.5, 1.25.  Between them ZOH holds the last value, FOH extends the line
 * through the last two (exact while x is linear: 0.75, 1.0 = t + H; after the slope
 * change 2.0 + 1.5 * 0.25 / 0.75 = 2.5), no hold gives 0. */
static void hold_run(const char *id, const double want[6])
{
	Fmu f;
	load_fmu(&f, "e2e", id);
	fmi2Component c = start_fmu(&f, id);
	fmi2ValueReference u = vr_of(&f, "u"), go = vr_of(&f, "go"), x = vr_of(&f, "x");
	const double H = 0.25, gos[] = {1, 1, 0, 0, 1, 0}, us[] = {1, 1, 1, 1, 2, 1};
	assert_close(get1(&f, c, x), 0.0, 0);
	for (int k = 0; k < 6; k++) {
		set1(&f, c, go, gos[k]);
		set1(&f, c, u, us[k]);
		assert_int_equal(f.api.do_step(c, k * H, H, fmi2True), fmi2OK);
		double got = get1(&f, c, x);
		if (fabs(got - want[k]) > 1e-15)
			fail_msg("%s, step %d: x = %.17g, not %.17g", id, k, got, want[k]);
	}
	stop_fmu(&f, c);
}

static void zero_order_hold__between_inner_steps__last_value(void **state)
{
	(void)state;
	const double want[] = {0.25, 0.5, 0.5, 0.5, 2.0, 2.0};
	hold_run("lower_hold_zoh", want);
}

static void first_order_hold__linear_signal__exact_between_inner_steps(void **state)
{
	(void)state;
	const double want[] = {0.25, 0.5, 0.75, 1.0, 2.0, 2.5};
	hold_run("lower_hold_foh", want);
}

static void no_hold__between_inner_steps__zero(void **state)
{
	(void)state;
	const double want[] = {0.25, 0.5, 0.0, 0.0, 2.0, 0.0};
	hold_run("lower_hold_no", want);
}

/* ---- quantize ---- */

/* Steps e2e FMU <id> from t = 0 by 1 with its input `level` at levels[k] in step k, and
 * checks its output `x` after each step against xs[k] exactly. */
static void step_levels(const char *id, const char *instance, const double levels[],
                        const double xs[], int n)
{
	Fmu f;
	load_fmu(&f, "e2e", id);
	fmi2Component c = start_fmu(&f, instance);
	fmi2ValueReference level = vr_of(&f, "level"), x = vr_of(&f, "x");
	for (int k = 0; k < n; k++) {
		set1(&f, c, level, levels[k]);
		assert_int_equal(f.api.do_step(c, k, 1.0, fmi2True), fmi2OK);
		double got = get1(&f, c, x);
		if (got != xs[k])
			fail_msg("%s step %d (level %g): x = %.17g, not %g", id, k, levels[k], got,
			         xs[k]);
	}
	stop_fmu(&f, c);
}

/* lower_quantize: level quantized into "low" (< 1), "mid" ([1, 2)), "high" (>= 2); the
 * step entering "mid" adds 1 to x, entering "high" 10 (steps of 1), staying adds nothing;
 * 1.0 exactly is "mid". */
static void quantize__zone_conditions__fire_on_entering_the_zone(void **state)
{
	(void)state;
	const double levels[] = {0.5, 1.5, 1.7, 2.5, 1.5, 0.2, 1.0, 3.0};
	const double xs[] = {0, 1, 1, 11, 12, 12, 13, 23};
	step_levels("lower_quantize", "quantize", levels, xs, 8);
}

/* ---- the case study: lazy_sa as `triggered by` ---- */

static bool get_bool(Fmu *f, fmi2Component c, fmi2ValueReference vr)
{
	fmi2Boolean v = fmi2False;
	assert_int_equal(f->api.get_boolean(c, &vr, 1, &v), fmi2OK);
	return v != fmi2False;
}

/* The declarative lazy_triggered_sa and the hand-written lazy_sa stepped side by side
 * with the same buttons (steps of 30 ms, the inputs those of each step's end): up pressed
 * 50-300 ms, an obstacle at 1-1.06 s (Emergency drives down for 1 s, a timer that expires
 * inside a step: both reject it, proposing the same step), down pressed at 2.4-2.5 s.
 * The outputs agree at every step, and so do the rejections and the times they propose. */
static void declarative_lazy_triggered_sa__same_as_hand_written_lazy_sa(void **state)
{
	(void)state;
	build_declarative();
	Fmu f[2];
	load_fmu(&f[0], "powerwindow-declarative", "lazy_triggered_sa");
	load_fmu(&f[1], "powerwindow", "lazy_sa");
	fmi2Component c[2] = {start_fmu(&f[0], "declarative"), start_fmu(&f[1], "hand")};
	static const char *const ins[] = {"driver_up", "obj_detected", "driver_down"};
	static const char *const outs[] = {"up", "down", "stop"};
	fmi2ValueReference in[2][3], out[2][3];
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++) {
			in[i][k] = vr_of(&f[i], ins[k]);
			out[i][k] = vr_of(&f[i], outs[k]);
		}
	double t = 0;
	int rejected = 0, ups = 0, downs = 0;
	while (t < 3.0) {
		double h = 0.03;
		for (int tries = 0;; tries++) {
			assert_true(tries < 5);
			double te = t + h;
			fmi2Boolean v[3] = {te > 0.05 && te <= 0.3, te > 1.0 && te <= 1.06,
					    te > 2.4 && te <= 2.5};
			fmi2Status st[2];
			double last[2] = {0, 0};
			for (int i = 0; i < 2; i++) {
				assert_int_equal(f[i].api.set_boolean(c[i], in[i], 3, v), fmi2OK);
				st[i] = f[i].api.do_step(c[i], t, h, fmi2True);
				if (st[i] == fmi2Discard)
					assert_int_equal(f[i].api.get_real_status(c[i], fmi2LastSuccessfulTime,
										  &last[i]), fmi2OK);
			}
			assert_int_equal(st[0], st[1]);
			if (st[0] != fmi2Discard)
				break;
			assert_close(last[0], last[1], 1e-12);
			assert_true(last[0] > t && last[0] < t + h);
			h = last[0] - t;
			rejected++;
		}
		t += h;
		for (int k = 0; k < 3; k++) {
			bool a = get_bool(&f[0], c[0], out[0][k]), b = get_bool(&f[1], c[1], out[1][k]);
			if (a != b)
				fail_msg("t = %.17g: %s is %d declarative, %d hand-written", t, outs[k], a, b);
		}
		ups += get_bool(&f[0], c[0], out[0][0]);
		downs += get_bool(&f[0], c[0], out[0][1]);
	}
	assert_true(rejected >= 1); /* the Emergency timer */
	assert_true(ups > 0 && downs > 30); /* up, then the emergency's second of down */
	stop_fmu(&f[0], c[0]);
	stop_fmu(&f[1], c[1]);
}

/* lower_crossing_block: a crossing in a condition block.  level is a ramp of slope 2
 * (another integrator, stepped first, restored on a rejection), rising through 1.0 at
 * 0.5; steps of 0.3 overshoot it: the step to 0.6 is rejected, proposing the step that
 * ends on 0.5 (regula falsi on a line: exact), on which the rule fires once (x = that
 * step's length); no other step moves x. */
static void crossing_in_condition_block__ramp__rejected_and_located(void **state)
{
	(void)state;
	Fmu f, g;
	load_fmu(&f, "e2e", "lower_crossing_block");
	load_fmu(&g, "fmus", "integrator");
	fmi2Component c = start_fmu(&f, "block"), ramp = start_fmu(&g, "ramp");
	fmi2ValueReference level = vr_of(&f, "level"), x = vr_of(&f, "x");
	fmi2ValueReference ru = vr_of(&g, "u"), rx = vr_of(&g, "x");
	double t = 0;
	int rejected = 0;
	while (t < 1.5) {
		double h = 0.3;
		fmi2FMUstate saved = NULL;
		assert_int_equal(g.api.get_state(ramp, &saved), fmi2OK);
		fmi2Status st;
		for (int tries = 0;; tries++) {
			assert_true(tries < 5);
			set1(&g, ramp, ru, 2.0);
			assert_int_equal(g.api.do_step(ramp, t, h, fmi2True), fmi2OK);
			set1(&f, c, level, get1(&g, ramp, rx));
			st = f.api.do_step(c, t, h, fmi2True);
			if (st != fmi2Discard)
				break;
			double last = 0;
			assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
			assert_close(last, 0.5, 1e-12);
			h = last - t;
			rejected++;
			assert_int_equal(g.api.set_state(ramp, saved), fmi2OK);
		}
		assert_int_equal(g.api.free_state(ramp, &saved), fmi2OK);
		assert_int_equal(st, fmi2OK);
		t += h;
		assert_close(get1(&f, c, x), t < 0.5 - 1e-9 ? 0.0 : 0.2, 1e-12);
	}
	assert_int_equal(rejected, 1);
	stop_fmu(&f, c);
	stop_fmu(&g, ramp);
}

/* lower_quantize_every: zones floor((level - 0.25) / 0.5); the quantize rule's output
 * function feeds u = 1 on each step entering a new zone (the start's zone, -1, at Init):
 * x counts the changes (steps of 1); the rule `-2 -> ...` feeds u = 100 on the step
 * entering zone -2 (and not on the next, still in it). */
static void quantize_every__output_function__runs_on_entering_a_new_zone(void **state)
{
	(void)state;
	/* zones -1, 0, 0, 1, 1, -2, -2 */
	const double levels[] = {0.1, 0.3, 0.7, 0.8, 1.2, -0.5, -0.5};
	const double xs[] = {0, 1, 1, 2, 2, 102, 102};
	step_levels("lower_quantize_every", "quantize_every", levels, xs, 7);
}

/* lower_crossing_out: x' = u = 2 from 0, steps of 0.3; the step to 0.6 carries x from 0.6
 * to 1.2, past 1.0: rejected after the integrator stepped, proposing 0.3 * 0.4 / 0.6 =
 * 0.2 (x is linear: the crossing exactly), with x back at 0.6; the retry ends on x = 1.0
 * and counts the one hit. */
static void crossing_on_out_rules__overshoot__rejected_after_the_step_and_located(void **state)
{
	(void)state;
	Fmu f;
	load_fmu(&f, "e2e", "lower_crossing_out");
	fmi2Component c = start_fmu(&f, "crossing_out");
	fmi2ValueReference u = vr_of(&f, "u"), x = vr_of(&f, "x"), hits = vr_of(&f, "hits");
	double t = 0;
	int rejected = 0;
	while (t < 1.5) {
		double h = 0.3;
		set1(&f, c, u, 2.0);
		fmi2Status st = f.api.do_step(c, t, h, fmi2True);
		if (st == fmi2Discard) {
			double last = 0;
			assert_int_equal(f.api.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
			assert_close(last, 0.5, 1e-12);
			assert_close(get1(&f, c, x), 2 * t, 1e-12); /* the state at t is kept */
			rejected++;
			h = last - t;
			set1(&f, c, u, 2.0);
			st = f.api.do_step(c, t, h, fmi2True);
		}
		assert_int_equal(st, fmi2OK);
		t += h;
		assert_close(get1(&f, c, x), 2 * t, 1e-12);
		assert_close(get1(&f, c, hits), t < 0.5 - 1e-9 ? 0.0 : 1.0, 0);
	}
	assert_int_equal(rejected, 1);
	stop_fmu(&f, c);
}

/* lower_otherwise_block: u is that of the last rule holding: level 0.25 none (otherwise,
 * u = 0), 2.0 both blocks (u = 1, the second's), -1 the condition (u = -1), 0.75 the second
 * block (u = 1), 0.25 none again (otherwise sets u back to 0); steps of 1. */
static void otherwise_after_condition_blocks__holds_only_when_none_does(void **state)
{
	(void)state;
	const double levels[] = {0.25, 2.0, -1.0, 0.75, 0.25};
	const double xs[] = {0, 1, 0, 1, 1};
	step_levels("lower_otherwise_block", "otherwise_block", levels, xs, 5);
}

/* lower_quantize_prev: zones floor(level one step before): 0, 0, 1, 1, 2 for the levels
 * 0.5, 1.5, 1.7, 2.5, 2.6 after the start's 0 (the zone at Init, 0, is entered then): the
 * output function (u = 1) runs on steps 2 and 4, a step after the level's own changes. */
static void quantize_signal_prev__zones_of_the_previous_value(void **state)
{
	(void)state;
	const double levels[] = {0.5, 1.5, 1.7, 2.5, 2.6};
	const double xs[] = {0, 0, 1, 1, 2};
	step_levels("lower_quantize_prev", "quantize_prev", levels, xs, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(multiply_rate__after_lower__control_and_in_rule_with_origin, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(multiply_rate__no_interpolation__no_history, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(multiply_rate__explicit_of_explicit__same_text, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(multiply_rate__own_control_rules__error_names_both, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(multiply_rate__real_rate_or_order_5__errors, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(multiply_rate__generated_name_taken__error_at_user_declaration, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(successive_substitution__lowered__tears_and_rolls_back, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(successive_substitution__user_maxiter__used, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(successive_substitution__no_rollback__error_names_the_fmu, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(successive_substitution__port_not_coupled__error, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(delay__lowered__previous_height, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(delay__two_forms__cannot_combine, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(delay__loop_remains__error, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(crossing__with_delay__wraps_its_control_rules_and_keeps_its_origin, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(otherwise__first_after_assignment_and_after_two__true_false_not_or, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(crossing__errors__integer_signal_delayed_name_taken, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(crossing__operator_without_settings__check_error, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(triggered__lowered__steps_from_last_execution_time_when_the_trigger_holds, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(triggered__number__error_and_bool_port_or_builtin__accepted, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(periodic__lowered__counts_instants_and_rejects_past_the_next, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(periodic__no_rollback_or_zero_period__errors, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(multiplied__lowered__n_steps_of_h_over_n, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(implied__written_out__as_create_ctrl_rules_would, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(control_form__with_multiply_rate__error, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(quantize__zone_used_but_never_declared__check_error, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(quantize__zone_number_with_two_numbered_quantizers__check_error, run_setup, run_teardown),
		cmocka_unit_test(multiply_rate__order_2__exact_for_parabolas),
		cmocka_unit_test(multiply_rate__order_4__exact_for_quartics),
		cmocka_unit_test(multiply_rate__no_interpolation__newest_value_held),
		cmocka_unit_test(multiply_rate__discrete_input__held_over_the_inner_steps),
		cmocka_unit_test(input_derivatives__discrete_input__held_not_extrapolated),
		cmocka_unit_test(successive_substitution__in_contact__converges_to_the_contact_force),
		cmocka_unit_test(delay__each_step__obstacle_sees_previous_height),
		cmocka_unit_test(declarative_loop_sa__same_as_hand_written),
		cmocka_unit_test(declarative_rate_sa__same_as_hand_written_rules),
		cmocka_unit_test(crossing__ramp_overshoots__step_rejected_and_crossing_located),
		cmocka_unit_test(declarative_controller_sa__same_detection_as_hand_written),
		cmocka_unit_test(triggered__skipped_steps__covered_in_one_with_that_steps_input),
		cmocka_unit_test(triggered__short_steps_far_from_zero__whole_steps),
		cmocka_unit_test(periodic__steps_past_an_instant__rejected_landing_on_it),
		cmocka_unit_test(multiplied__four_inner_steps__riemann_sum_of_the_chain),
		cmocka_unit_test(zero_order_hold__between_inner_steps__last_value),
		cmocka_unit_test(first_order_hold__linear_signal__exact_between_inner_steps),
		cmocka_unit_test(no_hold__between_inner_steps__zero),
		cmocka_unit_test(quantize__zone_conditions__fire_on_entering_the_zone),
		cmocka_unit_test(quantize_every__output_function__runs_on_entering_a_new_zone),
		cmocka_unit_test(quantize_signal_prev__zones_of_the_previous_value),
		cmocka_unit_test(crossing_in_condition_block__ramp__rejected_and_located),
		cmocka_unit_test(otherwise_after_condition_blocks__holds_only_when_none_does),
		cmocka_unit_test(crossing_on_out_rules__overshoot__rejected_after_the_step_and_located),
		cmocka_unit_test(declarative_lazy_triggered_sa__same_as_hand_written_lazy_sa),
	};
	return cmocka_run_group_tests_name("lower", tests, NULL, NULL);
}
