/* test_emit_c.c — the wrapper's model-specific C (emit_c.c): config.h and <id>.c.
 *
 * Each script here is reduced to its explicit form, laid out (emit_layout) and emitted with
 * emit_c_buffers; the tests look for the exact C lines the emitter must write, and every
 * emitted pair is also written with emit_c_to_dir and compiled with
 * `cc -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only` against the runtime header.
 * What the emitter must refuse is asserted by its exact message.
 *
 * Run from the repository root with SACC_BUILD naming the build directory: the inner FMUs
 * come from $SACC_BUILD/fmus; scratch files go to $SACC_BUILD/emit_c_test/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>

#include "sacc_test.h"

#include "emit.h"
#include "version.h"

#define SCRIPT "tests/unit/data/emit_c_test.sa"

typedef struct Emitted {
	TestRun *t;
	EmitLayout *l;
	char *config;
	char *source;
} Emitted;

static void emitted_free(Emitted *e)
{
	free(e->config);
	free(e->source);
	if (e->t)
		tr_free(e->t);
	*e = (Emitted){0};
}

static Node *adaptation_named(Module *m, const char *name)
{
	for (Node *n = m->root->list2; n; n = n->next)
		if (n->kind == ND_ADAPTATION && strcmp(n->name, name) == 0)
			return n;
	fail_msg("no adaptation '%s'", name);
	return NULL;
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		fail_msg("cannot create %s: %s", path, strerror(errno));
}

/* Writes the emitted files with emit_c_to_dir and compiles the .c warning-free. */
static void assert_compiles(Emitted *e)
{
	char dir[512], cmd[2048];
	snprintf(dir, sizeof dir, "%s/emit_c_test", test_build_dir());
	make_dir(dir);
	snprintf(dir, sizeof dir, "%s/emit_c_test/%s", test_build_dir(), e->l->model_identifier);
	make_dir(dir);
	assert_int_equal(emit_c_to_dir(e->t->c, e->l, dir), 0);
	snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only "
		 "-Iruntime -Iruntime/fmi2 -I%s %s/%s.c", getenv("CC") ? getenv("CC") : "cc", dir,
		 dir, e->l->model_identifier);
	if (system(cmd) != 0)
		fail_msg("the emitted C does not compile:\n%s\n%s", cmd, e->source);
}

/* Reduces, lays out and emits the adaptation called name; fails on any diagnostic. */
static void emit_text(Emitted *e, const char *text, const char *name)
{
	*e = (Emitted){tr_new(), NULL, NULL, NULL};
	Module *m = tr_load(e->t, SCRIPT, text);
	assert_non_null(m);
	if (drv_explicit(e->t->c, m, NULL) != 0 || diag_errors(e->t->c->diag))
		fail_msg("the script does not reduce:\n%s", tr_diag(e->t));
	e->l = emit_layout(e->t->c, adaptation_named(m, name)->info);
	if (!e->l)
		fail_msg("emit_layout failed:\n%s", tr_diag(e->t));
	if (!emit_c_buffers(e->t->c, e->l, &e->config, &e->source))
		fail_msg("emit_c_buffers failed:\n%s", tr_diag(e->t));
	assert_string_equal(tr_diag(e->t), "");
	assert_compiles(e);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("did not expect \"%s\" in:\n%s", needle, hay);
}

#define WINDOW "\tfor inner fmu Window window\n\t\tat \"window.fmu\"\n"
#define OBSTACLE "\tfor inner fmu Obstacle obstacle\n\t\tat \"obstacle.fmu\"\n"

/* ---- names and expressions ------------------------------------------------------------ */

static const char s_names[] =
	"semantic adaptation reactive mealy names_sa\nat \"names_sa.fmu\"\n" WINDOW
	"input ports Real x, Integer k\n"
	"output ports Real y\n"
	"param Real int := 1.5, Integer N := 3, Real sart_gain := 2.0;\n"
	"control var Real static := 0.0;\n"
	"control rules {\n"
	"\tvar Integer a := k;\n"
	"\tvar Real double := int / 2;\n"
	"\tvar Real d := a / 2;\n"
	"\tvar Real q := N / a;\n"
	"\tvar Real w := sart_gain * double + d + q;\n"
	"\tstatic := w;\n"
	"\tfor (var i in 0 .. N) {\n"
	"\t\tdo_step(window, t, H / N);\n"
	"\t}\n"
	"\treturn H;\n"
	"}\n"
	"out rules {\n"
	"\ttrue -> { } --> { names_sa.y := static; };\n"
	"}\n";

static void emit_c__keywords_and_prefixes__trailing_underscore(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_names, "names_sa");
	assert_contains(e.config, "\tdouble int_;\n");
	assert_contains(e.config, "\tdouble sart_gain_;\n");
	assert_contains(e.config, "\tdouble static_;\n");
	assert_contains(e.config, "\tvr_int = "); /* enumerators keep the script's name */
	assert_contains(e.source, "\tdouble double_ = s->int_ / 2;\n");
	/* w is the wrapper pointer in every function: a local of that name is renamed */
	assert_contains(e.source, "\tdouble w_ = s->sart_gain_ * double_ + d + q;\n");
	assert_contains(e.source, "\ts->static_ = w_;\n");
	assert_contains(e.source, "\t\ts->y = s->static_;\n");
	/* the variable table reaches the renamed field; messages keep the script's name */
	assert_contains(e.source, "\t[vr_int] = {offsetof(Storage, int_), SART_VAR_");
	assert_contains(e.source, ", \"int\"},\n");
	emitted_free(&e);
}

static void emit_c__division__always_real(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_names, "names_sa");
	assert_contains(e.source, "\tdouble d = (double)a / 2;\n");
	assert_contains(e.source, "\tdouble q = (double)s->N / a;\n");
	/* a Real left operand needs no cast */
	assert_contains(e.source, "sart_do_step(w, s, inner_window, t, H / s->N);\n");
	emitted_free(&e);
}

static void emit_c__for_loop__bound_evaluated_once(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_names, "names_sa");
	assert_contains(e.source, "\tfor (int i = 0, sart_end_i = s->N; i < sart_end_i; i++) {\n"
				  "\t\tif (sart_failed(w))\n\t\t\tbreak;\n"
				  "\t\tsart_do_step(w, s, inner_window, t, H / s->N);\n\t}\n");
	emitted_free(&e);
}

/* fmi2Get/SetX are one loop in the runtime over a table per type, indexed by value
 * reference: the offset of each variable in the Storage and who may set it. */
static void emit_c__vars__one_table_per_type_by_value_reference(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_names, "names_sa");
	/* every kind: inputs (the unfed inner inputs became external ones), outputs, the
	 * params read in rules (tunable), the generated INIT_ params (fixed) and window's
	 * parameters r and b */
	assert_contains(e.source, "static const SartVar real_vars[15] = {\n"
				  "\t[vr_x] = {offsetof(Storage, x), SART_VAR_INPUT, \"x\"},\n");
	assert_contains(e.source, "\t[vr_y] = {offsetof(Storage, y), SART_VAR_OUTPUT, \"y\"},\n"
				  "\t[vr_int] = {offsetof(Storage, int_), SART_VAR_TUNABLE, \"int\"},\n");
	assert_contains(e.source, "static const SartVar integer_vars[3] = {\n"
				  "\t[vr_k] = {offsetof(Storage, k), SART_VAR_INPUT, \"k\"},\n"
				  "\t[vr_N] = {offsetof(Storage, N), SART_VAR_TUNABLE, \"N\"},\n"
				  "\t[vr_INIT_NAMES_SA_K] = {offsetof(Storage, INIT_NAMES_SA_K), "
				  "SART_VAR_FIXED, \"INIT_NAMES_SA_K\"},\n};\n");
	assert_contains(e.source, "\t.nvr = {15, 3, 0},\n\t.vars = {real_vars, integer_vars, NULL},\n");
	assert_lacks(e.source, "boolean_vars");
	assert_lacks(e.source, "switch (vr)");
	emitted_free(&e);
}

static const char s_builtins[] =
	"semantic adaptation reactive mealy bi_sa\nat \"bi_sa.fmu\"\n" WINDOW
	"input ports Real x, Integer k, Bool flag\n"
	"output ports Real y\n"
	"control rules {\n"
	"\tvar Integer a := floor(x);\n"
	"\tvar Integer b := ceil(x) + round(x) + floor(k);\n"
	"\tvar Real r := round(x, 2);\n"
	"\tvar Real q := abs(x) + abs(k) + max(x, 1, 2.5) + min(x, 2.0);\n"
	"\tvar Integer m := max(k, 1, 2) + min(k, 3);\n"
	"\tvar Bool c1 := is_close(x, 1.0);\n"
	"\tvar Bool c2 := is_close(x, 1.0, 0.1, 0.2);\n"
	"\tvar Bool set := is_set(x) and is_set(k) and is_set(flag);\n"
	"\tdiscard(k);\n"
	"\tsave_state(window);\n"
	"\tvar Real st := do_step(window, t, H);\n"
	"\trollback(window);\n"
	"\tvar Real nx := get_next_time_step(window) + elapsed(window) + "
	"last_execution_time(window) + e + MAX;\n"
	"\tif (not flag or a > 1 and b < 2) {\n"
	"\t\tst := -st;\n"
	"\t} else if (x == 1.0) {\n"
	"\t\tst := - -st;\n"
	"\t} else {\n"
	"\t\tst := st - -1.0;\n"
	"\t}\n"
	"\treturn st;\n"
	"}\n";

static void emit_c__builtins__runtime_calls(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_builtins, "bi_sa");
	const char *c = e.source;
	assert_contains(c, "\tint a = sart_to_int(w, floor(s->x), \"emit_c_test.sa:8:19\");\n");
	assert_contains(c, "\tint b = sart_to_int(w, ceil(s->x), \"emit_c_test.sa:9:19\")");
	assert_contains(c, " + sart_to_int(w, round(s->x), \"emit_c_test.sa:9:29\") + s->k;\n");
	/* floor of an Integer is itself: `+ s->k` above */
	assert_contains(c, "\tdouble r = round_digits(s->x, 2);\n");
	assert_contains(c, "static double round_digits(double x, double n)\n");
	assert_contains(c, "\tdouble q = fabs(s->x) + abs(s->k) + fmax(fmax(s->x, 1), 2.5) + "
			   "fmin(s->x, 2.0);\n");
	assert_contains(c, "\tint m = sart_imax(sart_imax(s->k, 1), 2) + sart_imin(s->k, 3);\n");
	assert_contains(c, "\tint c1 = sart_is_close(s->x, 1.0, 1e-5, 1e-8);\n");
	assert_contains(c, "\tint c2 = sart_is_close(s->x, 1.0, 0.1, 0.2);\n");
	assert_contains(c, "\tint set = sart_is_set(w, SART_REAL, vr_x) && "
			   "sart_is_set(w, SART_INTEGER, vr_k) && sart_is_set(w, SART_BOOLEAN, vr_flag);\n");
	assert_contains(c, "\tsart_discard(w, SART_INTEGER, vr_k);\n");
	assert_contains(c, "\tsart_save_state(w, inner_window);\n");
	assert_contains(c, "\tdouble st = sart_do_step(w, s, inner_window, t, H);\n");
	assert_contains(c, "\tsart_rollback(w, inner_window);\n");
	assert_contains(c, "\tdouble nx = sart_get_next_time_step(w, inner_window) + "
			   "sart_elapsed(w, inner_window, t) + sart_last_execution_time(w, inner_window) + "
			   "sart_e(w) + SART_MAX;\n");
	/* and/or/not, with the parentheses -Wparentheses wants */
	assert_contains(c, "\tif (!s->flag || (a > 1 && b < 2)) {\n");
	assert_contains(c, "\t} else if (s->x == 1.0) {\n");
	assert_contains(c, "\t\tst = -st;\n");
	assert_contains(c, "\t\tst = -(-st);\n");
	assert_contains(c, "\t\tst = st - -1.0;\n");
	/* locals never read are marked used; read ones are not */
	assert_contains(c, "\tdouble r = round_digits(s->x, 2);\n\t(void)r;\n");
	assert_contains(c, "\tint m = ");
	assert_lacks(c, "(void)a;");
	assert_lacks(c, "(void)st;");
	emitted_free(&e);
}

/* ---- rules ------------------------------------------------------------------------------ */

static const char s_rules[] =
	"semantic adaptation reactive mealy rules_sa\nat \"rules_sa.fmu\"\n" WINDOW
	"input ports Real x, Bool flag\n"
	"output ports Real y\n"
	"in var Real seen := 0.0;\n"
	"in rules {\n"
	"\t{ var Real lim := 2.0 * x; return lim > 1.0; } -> { seen := x; } --> {\n"
	"\t\twindow.speed := seen * h;\n"
	"\t};\n"
	"\tx > 0.0 -> { } --> { };\n"
	"\tflag -> { } --> { };\n"
	"}\n"
	"out rules {\n"
	"\twindow.height > 1.0 or dt > 0.0 -> { } --> { rules_sa.y := 1.0; };\n"
	"\tfalse -> { } --> { rules_sa.y := 0.0; };\n"
	"}\n";

static void emit_c__condition_block__helper_function(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_rules, "rules_sa");
	const char *c = e.source;
	/* in rule 0 is AddInRule's; the user's block condition is rule 1 */
	assert_contains(c, "/* The condition of in rule 1. */\n"
			   "static int in_rule_1_condition(SartWrapper *w, Storage *s, double t, double H)\n"
			   "{\n\t(void)w;\n\t(void)t;\n\t(void)H;\n"
			   "\tdouble lim = 2.0 * s->x;\n\treturn lim > 1.0;\n}\n");
	assert_contains(c, "\ts->in_rule[0] = 1;\n"
			   "\ts->in_rule[1] = in_rule_1_condition(w, s, t, H);\n"
			   "\ts->in_rule[2] = s->x > 0.0;\n"
			   "\ts->in_rule[3] = s->flag != 0;\n");
	assert_contains(c, "\tif (s->in_rule[1]) {\n\t\ts->seen = s->x;\n\t}\n");
	/* out conditions are evaluated in MapOut, where dt exists */
	assert_contains(c, "\ts->out_rule[1] = s->window_out_real[window_out_height] > 1.0 || "
			   "dt > 0.0;\n");
	assert_contains(c, "\ts->out_rule[2] = 0;\n");
	emitted_free(&e);
}

static void emit_c__inner_input_assignment__sets_assigned_flag(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_rules, "rules_sa");
	assert_contains(e.source, "\tif (s->in_rule[1]) {\n"
				  "\t\ts->window_in_real[window_in_speed] = s->seen * h;\n"
				  "\t\ts->window_in_real_assigned[window_in_speed] = 1;\n\t}\n");
	/* h is used by MapIn, dt is not */
	assert_contains(e.source, "static void map_in(SartWrapper *w, void *sp, double t, double H, "
				  "double h, double dt)\n{\n\tStorage *s = sp;\n\t(void)w;\n\t(void)t;\n"
				  "\t(void)H;\n\t(void)dt;\n");
	assert_contains(e.config, "\tdouble window_in_real[3];\n"
				  "\tunsigned char window_in_real_assigned[3];\n"
				  "\tdouble window_out_real[2];\n");
	emitted_free(&e);
}

/* ---- couplings, order, may_reject -------------------------------------------------------- */

/* window.height is in cm, obstacle.disp in m; obstacle is declared first, but Mealy and fed
 * by window, so window comes first. */
static const char s_coupled[] =
	"semantic adaptation reactive moore coupled_sa\nat \"coupled_sa.fmu\"\n" OBSTACLE WINDOW
	"\tcoupled as window.height -> obstacle.disp\n"
	"output ports Real y\n";

static void emit_c__couple__unit_conversion_and_assigned_flag(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_coupled, "coupled_sa");
	assert_contains(e.source, "static void couple(SartWrapper *w, void *sp, unsigned inner)\n{\n"
				  "\tStorage *s = sp;\n\t(void)w;\n\tswitch (inner) {\n"
				  "\tcase inner_obstacle:\n"
				  "\t\ts->obstacle_in_real[obstacle_in_disp] = 0.01 * "
				  "s->window_out_real[window_out_height];\n"
				  "\t\ts->obstacle_in_real_assigned[obstacle_in_disp] = 1;\n"
				  "\t\tbreak;\n\tdefault:\n\t\tbreak;\n\t}\n}\n");
	emitted_free(&e);
}

static void emit_c__order__topological(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_coupled, "coupled_sa");
	assert_contains(e.config, "enum { inner_obstacle = 0, inner_window = 1, NINNERS = 2 };\n");
	assert_contains(e.source, "static const unsigned order[NINNERS] = "
				  "{inner_window, inner_obstacle};\n");
	emitted_free(&e);
}

/* Both Mealy and coupled both ways: no topological order, so declaration order. */
static const char s_cycle[] =
	"semantic adaptation reactive moore cycle_sa\nat \"cycle_sa.fmu\"\n"
	"\tfor inner fmu reactive mealy Window window\n\t\tat \"window.fmu\"\n"
	"\tfor inner fmu reactive mealy Obstacle obstacle\n\t\tat \"obstacle.fmu\"\n"
	"\tcoupled as window.height -> obstacle.disp, obstacle.reaction_force -> "
	"window.reaction_force\n"
	"output ports Real y\n"
	"control rules {\n"
	"\tvar Real a := do_step(window, t, H);\n"
	"\tvar Real b := do_step(obstacle, t, H);\n"
	"\treturn min(a, b);\n"
	"}\n";

static void emit_c__order__cycle_gives_declaration_order(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_cycle, "cycle_sa");
	assert_contains(e.source, "static const unsigned order[NINNERS] = "
				  "{inner_window, inner_obstacle};\n");
	assert_contains(e.source, "\treturn fmin(a, b);\n");
	/* ImplementInternalBinding's assignments before each do_step, with the conversion */
	assert_contains(e.source, "\ts->obstacle_in_real[obstacle_in_disp] = 0.01 * "
				  "s->stored_window_height;\n");
	emitted_free(&e);
}

/* The rules' own step computations need the per-step snapshot; returning H, or only what
 * do_step gave (an inner discard passed up), does not. */
static const char s_computed[] =
	"semantic adaptation reactive moore computed_sa\nat \"computed_sa.fmu\"\n" WINDOW
	"output ports Real y\n"
	"control rules {\n"
	"\tvar Real a := do_step(window, t, H);\n"
	"\tif (a < H) {\n\t\ta := a / 2;\n\t}\n"
	"\treturn a;\n"
	"}\n";

static const char s_half[] =
	"semantic adaptation reactive moore half_sa\nat \"half_sa.fmu\"\n" WINDOW
	"output ports Real y\n"
	"control rules {\n"
	"\tdo_step(window, t, H / 2);\n"
	"\treturn H / 2;\n"
	"}\n";

static void emit_c__may_reject__only_for_steps_the_rules_compute(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_names, "names_sa"); /* return H */
	assert_contains(e.source, "\t.may_reject = 0,\n");
	assert_contains(e.source, "\t.mealy = 1,\n");
	emitted_free(&e);
	emit_text(&e, s_cycle, "cycle_sa"); /* return min(a, b), both from do_step */
	assert_contains(e.source, "\t.may_reject = 0,\n");
	assert_contains(e.source, "\t.mealy = 0,\n");
	emitted_free(&e);
	emit_text(&e, s_computed, "computed_sa"); /* a do_step result changed by the rules */
	assert_contains(e.source, "\t.may_reject = 1,\n");
	emitted_free(&e);
	emit_text(&e, s_half, "half_sa"); /* a step the rules compute */
	assert_contains(e.source, "\t.may_reject = 1,\n");
	emitted_free(&e);
}

/* ---- the fast step ------------------------------------------------------------------------ */

static const char s_pass[] =
	"semantic adaptation reactive mealy pass_sa\nat \"pass_sa.fmu\"\n" WINDOW;

static const char s_guarded[] =
	"semantic adaptation reactive mealy guarded_sa\nat \"guarded_sa.fmu\"\n" WINDOW
	"input ports Real v\n"
	"in var Real stored_v := 0.0;\n"
	"in rules {\n"
	"\tguarded_sa.v > 0.0 -> { stored_v := guarded_sa.v; } --> {\n"
	"\t\twindow.speed := stored_v;\n"
	"\t};\n"
	"}\n";

static const char s_pair[] =
	"semantic adaptation reactive moore pair_sa\nat \"pair_sa.fmu\"\n"
	"\tfor inner fmu reactive mealy Window window\n\t\tat \"window.fmu\"\n"
	"\tfor inner fmu reactive mealy Obstacle obstacle\n\t\tat \"obstacle.fmu\"\n"
	"\tcoupled as window.height -> obstacle.disp\n"
	"input ports Real x -> window.displacement, Real v -> window.speed, "
	"Real f -> window.reaction_force\n"
	"output ports Real g <- obstacle.reaction_force\n";

/* Control vars named as the fast step's locals would be without their sart_ prefix. */
static const char s_named_r[] =
	"semantic adaptation reactive mealy named_r_sa\nat \"named_r_sa.fmu\"\n" WINDOW
	"control rules {\n"
	"\tvar Real fast := do_step(window, t, H);\n"
	"\treturn fast;\n"
	"}\n";

static const char s_returns_h[] =
	"semantic adaptation reactive mealy returns_h_sa\nat \"returns_h_sa.fmu\"\n" WINDOW
	"control rules {\n"
	"\tvar Real taken := do_step(window, t, H);\n"
	"\treturn H;\n"
	"}\n";

static void emit_c__fast_step__only_for_the_simple_form(void **state)
{
	(void)state;
	Emitted e;
	/* pass-through: straight-line In, MapIn, one set/step/get through the direct route */
	emit_text(&e, s_pass, "pass_sa");
	assert_contains(e.source, "\t.fast_step = 1,\n");
	assert_contains(e.source, "#include \"sart_wrapper.h\"\n#include \"sart_fast_step.h\"\n");
	/* the Reals' offsets on their own, for the importer's gets and sets: the inputs first */
	assert_contains(e.source, "static const size_t real_offset[");
	assert_contains(e.source, " = {\n\t[vr_displacement] = offsetof(Storage, displacement),\n"
				  "\t[vr_speed] = offsetof(Storage, speed),\n");
	assert_contains(e.source, "\t.real_offset = real_offset,\n");
	assert_contains(e.source, "\tif (!sart_all_finite(s->window_in_real, 3) || "
				  "!sart_direct_ready(d))\n");
	assert_contains(e.source, "\tst = sart_direct_set_real(d, window_in_real_vr, 3, "
				  "s->window_in_real);\n");
	/* t and H read back from the route after the first call into the inner */
	assert_contains(e.source, "\tst = sart_direct_do_step(d, sart_route->t, sart_route->H);\n"
				  "\tif (st != SART_OK)\n");
	assert_contains(e.source, "\tst = sart_direct_get_real(d, window_out_real_vr, 2, "
				  "s->window_out_real);\n");
	assert_contains(e.source, "\tif (!sart_all_finite(s->window_out_real, 2))\n");
	/* the emitted C names no FMI type or status */
	assert_lacks(e.source, "fmi2");
	assert_lacks(e.source, "fmi3");
	assert_contains(e.source, "\ts->window_in_real_assigned[window_in_speed] = 0;\n");
	assert_contains(e.source, "\t\treturn sart_fast_rest(w, inner_window, 2, st);\n");
	/* the step ends in the commit (the new time where the inner stands, the is_set marks of
	 * all 12 external variables: 5 ports, 5 INIT params, 2 of window's), or its hand-over's
	 * end, as the last call */
	assert_contains(e.source, "\t\tout(w, s, t, H);\n\t\treturn sart_fast_commit(w, "
				  "sart_route->last[inner_window], sizeof(Storage), 12);\n");
	assert_contains(e.source, "\t} else {\n\t\tH_window = sart_route->taken;\n"
				  "\t\tsart_fast = 0;\n\t}\n");
	assert_contains(e.source, "\treturn sart_fast_end(w, H_window);\n");
	/* the importer's every-step calls, written for the adaptation: the 3 inputs and 12 Reals
	 * through real_offset, the step through the fast step when the instance allows it */
	assert_contains(e.source, "\treturn sart_set_reals(instance, vr, nvr, value, real_offset, 3, "
				  "sizeof(Storage), 12);\n");
	assert_contains(e.source, "\treturn sart_get_reals(instance, vr, nvr, value, real_offset, 12, "
				  "sizeof(Storage));\n");
	assert_contains(e.source, "\tSartView *v = sart_fast_step_view(instance, t, H);\n\tif (v)\n"
				  "\t\treturn fast_step(instance, sart_storage_of(instance, sizeof(Storage)), "
				  "&v->route, t, H);\n\treturn sart_core_do_step(instance, t, H, no_set_prior);\n");
	assert_contains(e.source, "\t.set_real = set_real,\n\t.get_real = get_real,\n"
				  "\t.do_step = do_step,\n};\n");
	emitted_free(&e);
	/* two inners stepped by H, coupled: the second through sart_do_step once the first fell
	 * back */
	emit_text(&e, s_pair, "pair_sa");
	assert_contains(e.source, "\t.fast_step = 1,\n");
	assert_contains(e.source, "\t} else {\n\t\tH_obstacle = sart_do_step(w, s, inner_obstacle, t, "
				  "H);\n");
	/* the coupling between the two steps, on either path, as Ctrl has it */
	assert_contains(e.source, "\t\tsart_fast = 0;\n\t}\n\ts->obstacle_in_real[obstacle_in_disp] = "
				  "0.01 * s->stored_window_height;\n");
	assert_contains(e.source, "\treturn sart_fast_end(w, fmin(H_window, H_obstacle));\n");
	/* both inners at t + H when the step went whole: the last one stepped gives the time */
	assert_contains(e.source, "\treturn sart_fast_commit(w, sart_route->last[inner_obstacle], ");
	emitted_free(&e);
	/* the fast step's own names are not hidden by the script's (emit_text compiles it) */
	emit_text(&e, s_named_r, "named_r_sa");
	assert_contains(e.source, "\tdouble fast = H;\n");
	assert_contains(e.source, "\treturn sart_fast_end(w, fast);\n");
	emitted_free(&e);
	/* a step the return does not read is not kept (no variable set and never used) */
	emit_text(&e, s_returns_h, "returns_h_sa");
	assert_contains(e.source, "\t.fast_step = 1,\n");
	assert_contains(e.source, "\tint sart_fast = 1;\n\tin(w, s, t, H);\n");
	assert_contains(e.source, "\t} else {\n\t\tsart_fast = 0;\n\t}\n");
	assert_contains(e.source, "\treturn sart_fast_end(w, H);\n");
	emitted_free(&e);
	/* a for loop (a runtime call), a conditional in rule: the general path only */
	emit_text(&e, s_names, "names_sa");
	assert_contains(e.source, "\t.fast_step = 0,\n");
	assert_lacks(e.source, "fast_do_step_");
	assert_lacks(e.source, "sart_fast_step.h");
	/* its Real gets and sets are still its own; the step is the runtime's */
	assert_contains(e.source, "\t.set_real = set_real,\n\t.get_real = get_real,\n"
				  "\t.do_step = sart_core_do_step,\n};\n");
	emitted_free(&e);
	emit_text(&e, s_guarded, "guarded_sa");
	assert_contains(e.source, "\t.fast_step = 0,\n");
	emitted_free(&e);
	emit_text(&e, s_half, "half_sa");
	assert_contains(e.source, "\t.fast_step = 0,\n");
	emitted_free(&e);
}

/* ---- whole files --------------------------------------------------------------------------- */

static void emit_c__banner_and_determinism(void **state)
{
	(void)state;
	Emitted a, b;
	emit_text(&a, s_builtins, "bi_sa");
	emit_text(&b, s_builtins, "bi_sa");
	assert_string_equal(a.config, b.config);
	assert_string_equal(a.source, b.source);
	const char *banner = "/* Generated by sacc " SACC_VERSION " from emit_c_test.sa: do not edit. */\n";
	assert_true(strncmp(a.config, banner, strlen(banner)) == 0);
	assert_true(strncmp(a.source, banner, strlen(banner)) == 0);
	assert_contains(a.source, "#include \"config.h\"\n#include \"sart_wrapper.h\"\n");
	assert_contains(a.source, "\t.guid = \"");
	assert_contains(a.source, a.l->guid);
	assert_lacks(a.source, "/tests/"); /* no paths */
	emitted_free(&a);
	emitted_free(&b);
}

static void emit_c__powerwindow_window_sa__matches_the_reference_shape(void **state)
{
	(void)state;
	Emitted e = {tr_new(), NULL, NULL, NULL};
	drv_add_include_dir(e.t->c, "adaptations/powerwindow");
	Module *m = drv_load(e.t->c, "adaptations/powerwindow/window_sa.sa");
	assert_non_null(m);
	assert_int_equal(drv_explicit(e.t->c, m, NULL), 0);
	e.l = emit_layout(e.t->c, adaptation_named(m, "window_sa")->info);
	assert_non_null(e.l);
	assert_true(emit_c_buffers(e.t->c, e.l, &e.config, &e.source));
	assert_contains(e.config, "enum { window_in_displacement = 0, window_in_speed = 1, "
				  "window_in_reaction_force = 2 };\n");
	assert_contains(e.source, "static const SartVr window_in_real_vr[3] = {0, 1, 2};\n");
	assert_contains(e.source, "\tdouble H_window = sart_do_step(w, s, inner_window, t, H);\n"
				  "\treturn H_window;\n");
	assert_contains(e.source, "\t\ts->disp = 0.01 * s->stored_window_height;\n");
	assert_contains(e.source, "\t\ts->tau = -s->stored_window_reaction_torque;\n");
	/* ten variables of its own, then window's parameters r and b */
	assert_contains(e.source, "\t.nvr = {12, 0, 0},\n");
	/* inputs always settable, outputs never, the INIT_ params only before initialization
	 * ends (fixed), the adaptation's own tunable params always */
	assert_contains(e.source, "\t[vr_tau] = {offsetof(Storage, tau), SART_VAR_OUTPUT, \"tau\"},\n");
	assert_contains(e.source, "\t[vr_INIT_WINDOW_HEIGHT] = {offsetof(Storage, INIT_WINDOW_HEIGHT), "
				  "SART_VAR_FIXED, \"INIT_WINDOW_HEIGHT\"},\n");
	emitted_free(&e);
}

/* ---- what cannot be emitted --------------------------------------------------------------- */

static const char strings_md[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<fmiModelDescription fmiVersion=\"2.0\" modelName=\"strs\" guid=\"{strs}\">\n"
	"<CoSimulation modelIdentifier=\"strs\"/>\n<ModelVariables>\n"
	"<ScalarVariable name=\"u\" valueReference=\"0\" causality=\"input\" "
	"variability=\"continuous\"><Real start=\"0\"/></ScalarVariable>\n"
	"<ScalarVariable name=\"label\" valueReference=\"0\" causality=\"output\" "
	"variability=\"discrete\" initial=\"calculated\"><String/></ScalarVariable>\n"
	"</ModelVariables>\n<ModelStructure><Outputs><Unknown index=\"2\" dependencies=\"\"/>"
	"</Outputs></ModelStructure>\n</fmiModelDescription>\n";

/* Emits what must fail and returns what was reported (malloc'd). */
static char *emit_fails(TestRun *t, Module *m, const char *name)
{
	EmitLayout *l = emit_layout(t->c, adaptation_named(m, name)->info);
	if (!l)
		fail_msg("emit_layout failed:\n%s", tr_diag(t));
	char *cfg = (char *)1, *src = (char *)1;
	assert_false(emit_c_buffers(t->c, l, &cfg, &src));
	assert_null(cfg);
	assert_null(src);
	return strdup(tr_diag(t));
}

/* A model description written as BUILD/emit_c_test/<name>, where the compilation's -L
 * finds it; the directory in dir. */
static void write_md(const char *name, const char *text, char dir[512])
{
	char path[600];
	snprintf(dir, 512, "%s/emit_c_test", test_build_dir());
	make_dir(dir);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void emit_c__string_port__stored_as_chars(void **state)
{
	(void)state;
	char dir[512];
	write_md("strings.xml", strings_md, dir);
	TestRun *t = tr_new();
	drv_add_fmu_dir(t->c, dir);
	Module *m = tr_load(t, SCRIPT,
			    "semantic adaptation reactive moore str_sa\nat \"str_sa.fmu\"\n"
			    "\tfor inner fmu Strs strs\n\t\tat \"strings.xml\"\n"
			    "output ports Real y\n"
			    "out rules {\n\ttrue -> { } --> { str_sa.y := 1.0; };\n}\n");
	assert_non_null(m);
	if (drv_explicit(t->c, m, NULL) != 0)
		fail_msg("the script does not reduce:\n%s", tr_diag(t));
	/* A String is a char array in the Storage, written only through sart_set_string */
	EmitLayout *l = emit_layout(t->c, adaptation_named(m, "str_sa")->info);
	assert_non_null(l);
	char *cfg = NULL, *src = NULL;
	if (!emit_c_buffers(t->c, l, &cfg, &src))
		fail_msg("emit_c_buffers failed:\n%s", tr_diag(t));
	assert_contains(cfg, "#include \"sart_wrapper.h\" /* SART_STRING_CAP */\n");
	assert_contains(cfg, "\tchar stored_strs_label[SART_STRING_CAP];\n");
	assert_contains(cfg, "\tchar strs_out_string[1][SART_STRING_CAP];\n");
	assert_contains(src, "\tsart_set_string(w, s->stored_strs_label, "
	                     "s->strs_out_string[strs_out_label], \"stored_strs_label\");\n");
	assert_contains(src, "\t\t\t[SART_STRING] = {1, strs_out_string_vr, strs_out_string_names,\n");
	free(cfg);
	free(src);
	tr_free(t);
}

/* ---- Model Exchange inners -------------------------------------------------------------- */

/* An oscillator offering both interfaces, each with its own library, the Model Exchange one
 * with directional derivatives; two states listed in <Derivatives> in the opposite order of
 * the variables, one event indicator, a DefaultExperiment tolerance. */
static const char me_md[] =
	"<fmiModelDescription fmiVersion='2.0' modelName='osc' guid='{osc}' "
	"numberOfEventIndicators='1'>\n"
	"<CoSimulation modelIdentifier='osc_cs' canGetAndSetFMUstate='false'/>\n"
	"<ModelExchange modelIdentifier='osc_me' canGetAndSetFMUstate='true' "
	"providesDirectionalDerivative='true'/>\n"
	"<DefaultExperiment tolerance='1e-7'/>\n"
	"<ModelVariables>\n"
	"<ScalarVariable name='x' valueReference='10' causality='output'><Real start='1'/>"
	"</ScalarVariable>\n"
	"<ScalarVariable name='v' valueReference='11' causality='output'><Real start='0'/>"
	"</ScalarVariable>\n"
	"<ScalarVariable name='der(v)' valueReference='12'><Real derivative='2'/></ScalarVariable>\n"
	"<ScalarVariable name='der(x)' valueReference='13'><Real derivative='1'/></ScalarVariable>\n"
	"<ScalarVariable name='k' valueReference='31' causality='parameter' variability='tunable'>"
	"<Real start='4'/></ScalarVariable>\n"
	"<ScalarVariable name='u' valueReference='30' causality='input' variability='discrete'>"
	"<Real start='0'/></ScalarVariable>\n"
	"<ScalarVariable name='m' valueReference='32' causality='parameter' variability='fixed'>"
	"<Real start='1'/></ScalarVariable>\n"
	"<ScalarVariable name='n' valueReference='33' causality='parameter' variability='tunable'>"
	"<Integer start='1'/></ScalarVariable>\n"
	"</ModelVariables>\n"
	"<ModelStructure><Outputs><Unknown index='1' dependencies=''/>"
	"<Unknown index='2' dependencies=''/></Outputs>\n"
	"<Derivatives><Unknown index='4'/><Unknown index='3'/></Derivatives></ModelStructure>\n"
	"</fmiModelDescription>\n";

/* Emits adaptation me_sa over osc.xml with the inner clauses given; the C compiles. */
static void emit_me(Emitted *e, const char *clauses)
{
	char dir[512], text[1024];
	write_md("osc.xml", me_md, dir);
	snprintf(text, sizeof text,
	         "semantic adaptation delayed moore me_sa\nat \"me_sa.fmu\"\n"
	         "\tfor inner fmu Osc osc\n\t\tat \"osc.xml\"\n%s"
	         "output ports Real y <- osc.x\n", clauses);
	*e = (Emitted){tr_new(), NULL, NULL, NULL};
	drv_add_fmu_dir(e->t->c, dir);
	Module *m = tr_load(e->t, SCRIPT, text);
	assert_non_null(m);
	if (drv_explicit(e->t->c, m, NULL) != 0 || diag_errors(e->t->c->diag))
		fail_msg("the script does not reduce:\n%s", tr_diag(e->t));
	e->l = emit_layout(e->t->c, adaptation_named(m, "me_sa")->info);
	assert_non_null(e->l);
	if (!emit_c_buffers(e->t->c, e->l, &e->config, &e->source))
		fail_msg("emit_c_buffers failed:\n%s", tr_diag(e->t));
	assert_compiles(e);
}

/* `with model exchange` and the solver's settings: the inner table names the Model
 * Exchange library and capability, its state abilities, and `.me` carries the settings,
 * the experiment's tolerance, the sizes and the states' value references in <Derivatives>
 * order; the wrapper can get and set its state as the Model Exchange element says. */
static void emit_c__model_exchange_inner__me_config_and_caps(void **state)
{
	(void)state;
	Emitted e;
	emit_me(&e, "\t\twith model exchange\n"
	            "\t\twith solver = implicit and relative tolerance = 1e-9 and max step = 0.01\n");
	/* the Reals it takes only in Event Mode: the tunable k and the discrete input u, sorted;
	 * not the fixed m nor the Integer n */
	assert_contains(e.source, "static const SartVr osc_event_vrs[2] = {30, 31};\n");
	assert_contains(e.source, "static const SartVr osc_states[2] = {10, 11};\n"
	                          "static const SartVr osc_derivatives[2] = {13, 12};\n");
	assert_contains(e.source, "\t\t.model_identifier = \"osc_me\",\n");
	assert_contains(e.source, "\t\t.caps = SART_CAP_GET_SET_STATE | SART_CAP_MODEL_EXCHANGE,\n");
	assert_contains(e.source, "\t\t.me = {\n"
	                          "\t\t\t.method = 2, /* implicit (Rosenbrock) */\n"
	                          "\t\t\t.tolerance = 1e-9,\n"
	                          "\t\t\t.default_tolerance = 1e-7,\n"
	                          "\t\t\t.max_step = 0.01,\n"
	                          "\t\t\t.nstates = 2,\n"
	                          "\t\t\t.nevent_indicators = 1,\n"
	                          "\t\t\t.state_vrs = osc_states,\n"
	                          "\t\t\t.derivative_vrs = osc_derivatives,\n"
	                          "\t\t\t.event_vrs = osc_event_vrs,\n"
	                          "\t\t\t.nevent_vrs = 2,\n"
	                          "\t\t},\n");
	assert_true(e.l->can_get_and_set_fmu_state);
	emitted_free(&e);

	/* the same FMU without the clause runs as Co-Simulation: its own library, no `.me`,
	 * and the Co-Simulation element's refusal to save its state */
	emit_me(&e, "");
	assert_contains(e.source, "\t\t.model_identifier = \"osc_cs\",\n");
	assert_lacks(e.source, "SART_CAP_MODEL_EXCHANGE");
	assert_lacks(e.source, ".me = {");
	assert_lacks(e.source, "osc_states");
	assert_false(e.l->can_get_and_set_fmu_state);
	emitted_free(&e);
}

static void emit_c__declarative_form_left__reported(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = tr_load(t, SCRIPT,
			    "semantic adaptation reactive moore hold_sa\nat \"hold_sa.fmu\"\n" WINDOW
			    "output ports Real y\n"
			    "out rules {\n\ttrue -> { } --> { hold_sa.y := 1.0; };\n}\n");
	assert_non_null(m);
	if (drv_explicit(t->c, m, NULL) != 0)
		fail_msg("the script does not reduce:\n%s", tr_diag(t));
	Node *sa = adaptation_named(m, "hold_sa");
	/* What a lowering stage that forgot its job would leave: a hold as an output function
	 * and a delay among the general rules. */
	Node *rule = ast_last(sa->a_out_rules->list3);
	Node *hold = ast_new(t->c->arena, ND_HOLD, rule->loc);
	hold->op = HOLD_ZERO;
	rule->els = hold;
	Node *delay = ast_new(t->c->arena, ND_DELAY, sa->loc);
	sa->a_general = delay;
	char *diag = emit_fails(t, m, "hold_sa");
	char expect[512];
	snprintf(expect, sizeof expect, SCRIPT ":%d:%d: error: cannot emit C for the declarative "
		 "form 'zero order hold': it must be lowered to control, in and out rules first\n",
		 rule->loc.line, rule->loc.col);
	assert_contains(diag, expect);
	snprintf(expect, sizeof expect, SCRIPT ":%d:%d: error: cannot emit C for the declarative "
		 "form 'delay': it must be lowered to control, in and out rules first\n",
		 sa->loc.line, sa->loc.col);
	assert_contains(diag, expect);
	free(diag);
	tr_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(emit_c__keywords_and_prefixes__trailing_underscore),
		cmocka_unit_test(emit_c__division__always_real),
		cmocka_unit_test(emit_c__for_loop__bound_evaluated_once),
		cmocka_unit_test(emit_c__vars__one_table_per_type_by_value_reference),
		cmocka_unit_test(emit_c__builtins__runtime_calls),
		cmocka_unit_test(emit_c__condition_block__helper_function),
		cmocka_unit_test(emit_c__inner_input_assignment__sets_assigned_flag),
		cmocka_unit_test(emit_c__couple__unit_conversion_and_assigned_flag),
		cmocka_unit_test(emit_c__order__topological),
		cmocka_unit_test(emit_c__order__cycle_gives_declaration_order),
		cmocka_unit_test(emit_c__may_reject__only_for_steps_the_rules_compute),
		cmocka_unit_test(emit_c__fast_step__only_for_the_simple_form),
		cmocka_unit_test(emit_c__banner_and_determinism),
		cmocka_unit_test(emit_c__powerwindow_window_sa__matches_the_reference_shape),
		cmocka_unit_test(emit_c__string_port__stored_as_chars),
		cmocka_unit_test(emit_c__model_exchange_inner__me_config_and_caps),
		cmocka_unit_test(emit_c__declarative_form_left__reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
