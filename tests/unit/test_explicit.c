/* test_explicit.c — the reduction to explicit form (explicit.c, LANGUAGE.md section 5).
 *
 * Each of the thirteen rules on small scripts over the test FMUs window.fmu (inputs
 * displacement (rad), speed (rad/s), reaction_force (N); outputs height (cm),
 * reaction_torque (N.m)) and obstacle.fmu (input disp (m), output reaction_force (N)),
 * both reactive Mealy: what the rule adds, what it leaves alone, the errors it reports at
 * the user's declaration, and the origin and location of every node it makes.  Then the
 * pipeline as a whole: `--after` stops where asked, and the explicit form of an explicit
 * form is the same text.
 *
 * A test reduces its script with drv_explicit(..., "Rule"), which runs every rule up to
 * and including that one, then looks at the tree (ast.h) and at the module printed back
 * as source.  Run from the repository root with SACC_BUILD naming the build directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sacc_test.h"

#include "explicit.h"
#include "sema.h"

/* ---- scripts ---------------------------------------------------------------------------- */

/* Two lines each, so that line numbers in expected diagnostics can be counted. */
#define HEAD "semantic adaptation reactive mealy sa\nat \"sa.fmu\"\n"
#define WINDOW "\tfor inner fmu Window window\n\t\tat \"window.fmu\"\n"
#define OBSTACLE "\tfor inner fmu Obstacle obstacle\n\t\tat \"obstacle.fmu\"\n"
#define OBSTACLE_MOORE "\tfor inner fmu reactive moore Obstacle obstacle\n\t\tat \"obstacle.fmu\"\n"

static const char s_window[] = HEAD WINDOW;

static const char s_force_to_window[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n";

/* (push keeps AddInPorts from making an input reaction_force, which would take the name
 * AddOutPorts needs for obstacle.reaction_force) */
static const char s_height_to_obstacle[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as window.height -> obstacle.disp\n"
	"input ports Real push (N) -> window.reaction_force\n";

static const char s_loop[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as window.height -> obstacle.disp, obstacle.reaction_force -> window.reaction_force\n";

static const char s_angle[] = HEAD WINDOW "input ports Real angle (deg) -> window.displacement\n";

/* ---- fixture and helpers ------------------------------------------------------------------ */

typedef struct Fx {
	TestRun *t;      /* the run under test */
	TestRun *again;  /* a second run, for an explicit form loaded back */
	Module *m;
	char **owned;    /* texts handed out by the helpers, freed at teardown */
	int nowned;
} Fx;

static int fx_setup(void **state)
{
	Fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	f->t = tr_new();
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	Fx *f = *state;
	for (int i = 0; i < f->nowned; i++)
		free(f->owned[i]);
	free(f->owned);
	tr_free(f->t);
	if (f->again)
		tr_free(f->again);
	free(f);
	return 0;
}

static const char *keep(Fx *f, char *s)
{
	char **v = realloc(f->owned, (size_t)(f->nowned + 1) * sizeof *v);
	assert_non_null(v);
	f->owned = v;
	f->owned[f->nowned++] = s;
	return s;
}

static Node *adaptation_of(Module *m)
{
	assert_non_null(m);
	assert_non_null(m->root);
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			return e;
	fail_msg("no adaptation in the module");
	return NULL;
}

/* Loads text as module t.sa and reduces it up to and including rule `after` (NULL: all);
 * returns the number of errors. */
static int reduce_in(TestRun *t, Module **m, const char *name, const char *text, const char *after)
{
	*m = tr_load(t, name, text);
	assert_non_null(*m);
	assert_non_null((*m)->root);
	return drv_explicit(t->c, *m, after);
}

/* Reduces and requires success; returns the adaptation. */
static Node *reduce(Fx *f, const char *text, const char *after)
{
	int errors = reduce_in(f->t, &f->m, "t.sa", text, after);
	if (errors)
		fail_msg("%d errors:\n%s", errors, tr_diag(f->t));
	return adaptation_of(f->m);
}

/* Reduces and requires errors; returns the diagnostics. */
static const char *reduce_fails(Fx *f, const char *text, const char *after)
{
	int errors = reduce_in(f->t, &f->m, "t.sa", text, after);
	if (!errors)
		fail_msg("no error; the tree is:\n%s", keep(f, tr_print(f->m)));
	return tr_diag(f->t);
}

static const char *printed(Fx *f)
{
	return keep(f, tr_print(f->m));
}

static const char *expr_text(Fx *f, const Node *e)
{
	StrBuf sb;
	sb_init(&sb);
	ast_print_expr(&sb, e);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return keep(f, s);
}

#define assert_contains(hay, needle)                                                        \
	do {                                                                                \
		const char *h_ = (hay), *n_ = (needle);                                     \
		if (!strstr(h_, n_))                                                        \
			fail_msg("expected to find\n%s\nin\n%s", n_, h_);                   \
	} while (0)

#define assert_lacks(hay, needle)                                                           \
	do {                                                                                \
		const char *h_ = (hay), *n_ = (needle);                                     \
		if (strstr(h_, n_))                                                         \
			fail_msg("did not expect\n%s\nin\n%s", n_, h_);                     \
	} while (0)

static Node *find(Node *list, const char *name)
{
	for (Node *n = list; n; n = n->next)
		if (n->name && strcmp(n->name, name) == 0)
			return n;
	return NULL;
}

static Node *nth(Node *list, int i)
{
	while (list && i-- > 0)
		list = list->next;
	assert_non_null(list);
	return list;
}

static int count_named(Node *list, const char *name)
{
	int k = 0;
	for (Node *n = list; n; n = n->next)
		k += n->name && strcmp(n->name, name) == 0;
	return k;
}

static int count_substr(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		k++;
	return k;
}

/* The names of a list, comma separated. */
static const char *names(Fx *f, Node *list)
{
	StrBuf sb;
	sb_init(&sb);
	for (Node *n = list; n; n = n->next)
		sb_printf(&sb, "%s%s", sb.len ? "," : "", n->name);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return keep(f, s);
}

/* The printed text from `from` up to and including the next line that is just "}". */
static const char *section(Fx *f, const char *from)
{
	const char *all = printed(f);
	const char *p = strstr(all, from);
	if (!p)
		fail_msg("no '%s' in\n%s", from, all);
	const char *end = strstr(p, "\n}\n");
	size_t n = end ? (size_t)(end - p) + 3 : strlen(p);
	char *s = strndup(p, n);
	return keep(f, s);
}

static void assert_loc_eq(Loc a, Loc b)
{
	if (a.line != b.line || a.col != b.col)
		fail_msg("location %d:%d, expected %d:%d", a.line, a.col, b.line, b.col);
}

static const double deg = 3.14159265358979323846 / 180;

/* ---- 1. AddInPorts ------------------------------------------------------------------------ */

static void add_in_ports__unfed_inner_inputs__become_bound_ports(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_window, "AddInPorts");
	assert_string_equal(names(f, sa->a_inports), "displacement,speed,reaction_force");
	const char *units[] = {"rad", "rad/s", "N"};
	int k = 0;
	for (Node *p = sa->a_inports; p; p = p->next, k++) {
		assert_string_equal(p->origin, "AddInPorts");
		assert_int_equal(p->type, TY_REAL);
		assert_non_null(p->unit);
		assert_string_equal(p->unit->str, units[k]);
		assert_int_equal(p->bind_dir, BIND_TO);
		assert_string_equal(p->bind->owner, "window");
		assert_string_equal(p->bind->name, p->name);
		assert_int_equal(p->bind->sym, SYM_INNER_IN);
		assert_string_equal(p->bind->origin, "AddInPorts");
		assert_loc_eq(p->loc, sa->a_inners->loc);
	}
	assert_null(sa->a_params); /* AddInParams has not run */
	/* The model description's start values (0) come along as the ports' start values. */
	assert_contains(printed(f), "input ports Real displacement := 0.0 (rad) -> window.displacement,\n"
				    "\tReal speed := 0.0 (rad/s) -> window.speed,\n"
				    "\tReal reaction_force := 0.0 (N) -> window.reaction_force\n");
}

static void add_in_ports__coupled_input__gets_no_port(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_force_to_window, "AddInPorts");
	assert_string_equal(names(f, sa->a_inports), "displacement,speed,disp");
	assert_string_equal(find(sa->a_inports, "disp")->bind->owner, "obstacle");
}

static void add_in_ports__bound_input__gets_no_second_port(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_angle, "AddInPorts");
	assert_string_equal(names(f, sa->a_inports), "angle,speed,reaction_force");
	assert_null(sa->a_inports->origin);
}

static void add_in_ports__input_set_by_control_rules__gets_no_port(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "control rules {\n"
			  "\tif (t > 1.0) {\n"
			  "\t\twindow.displacement := 0.5;\n"
			  "\t}\n"
			  "\tdo_step(window, t, H);\n"
			  "\treturn H;\n"
			  "}\n",
			  "AddInPorts");
	assert_string_equal(names(f, sa->a_inports), "speed,reaction_force");
}

static void add_in_ports__input_set_by_map_in__gets_no_port(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "input ports Real v\n"
			  "in rules {\n"
			  "\ttrue -> { } --> { window.speed := v; };\n"
			  "}\n",
			  "AddInPorts");
	assert_string_equal(names(f, sa->a_inports), "v,displacement,reaction_force");
}

static void add_in_ports__name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW "param speed := 1.0;\n", "AddInPorts");
	assert_string_equal(d,
		"t.sa:5:7: error: AddInPorts: inner input 'window.speed' has no source, and the "
		"input port it needs is blocked: 'speed' is already a parameter\n"
		"     5 | param speed := 1.0;\n"
		"       |       ^~~~~\n"
		"t.sa:5:7: note: bind 'window.speed' to an input port, or feed it in the in rules\n"
		"     5 | param speed := 1.0;\n"
		"       |       ^~~~~\n");
	Node *sa = adaptation_of(f->m);
	assert_string_equal(names(f, sa->a_inports), "displacement,reaction_force");
}

/* ---- 2. AddInParams ----------------------------------------------------------------------- */

static void add_in_params__each_input__init_param_with_default(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "input ports Real angle := 90 (deg) -> window.displacement, Integer n := 3,\n"
			  "\tInteger m, Bool b, String s\n",
			  "AddInParams");
	assert_string_equal(names(f, sa->a_params), "INIT_SA_ANGLE,INIT_SA_N,INIT_SA_M,INIT_SA_B,"
						     "INIT_SA_S,INIT_SA_SPEED,INIT_SA_REACTION_FORCE");
	for (Node *p = sa->a_params; p; p = p->next) {
		assert_string_equal(p->origin, "AddInParams");
		assert_string_equal(p->init->origin, "AddInParams");
		assert_int_equal(p->op, DECL_PARAM);
	}
	Node *angle = find(sa->a_params, "INIT_SA_ANGLE");
	assert_int_equal(angle->type, TY_REAL);
	assert_int_equal(angle->init->kind, ND_REAL); /* the Integer start value, widened */
	assert_true(angle->init->rval == 90.0);
	Node *n = find(sa->a_params, "INIT_SA_N");
	assert_int_equal(n->init->kind, ND_INT);
	assert_int_equal(n->init->ival, 3);
	assert_int_equal(find(sa->a_params, "INIT_SA_M")->init->ival, 0);
	assert_int_equal(find(sa->a_params, "INIT_SA_B")->init->kind, ND_BOOL);
	assert_int_equal(find(sa->a_params, "INIT_SA_B")->init->ival, 0);
	assert_string_equal(find(sa->a_params, "INIT_SA_S")->init->str, "");
	Node *speed = find(sa->a_params, "INIT_SA_SPEED");
	assert_int_equal(speed->init->kind, ND_REAL);
	assert_true(speed->init->rval == 0.0);
	assert_loc_eq(speed->loc, find(sa->a_inports, "speed")->loc);
	assert_null(sa->a_in_vars); /* AddInVars has not run */

	const char *text = printed(f);
	assert_contains(text, "param Integer INIT_SA_N := 3;\n"
			      "param Integer INIT_SA_M := 0;\n"
			      "param Bool INIT_SA_B := false;\n"
			      "param String INIT_SA_S := \"\";\n"
			      "param Real INIT_SA_SPEED := 0.0;\n");
}

static void add_in_params__adaptation_name__upper_cased(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, "semantic adaptation reactive mealy mySa\nat \"sa.fmu\"\n" WINDOW,
			  "AddInVars");
	assert_non_null(find(sa->a_params, "INIT_MYSA_SPEED"));
	assert_non_null(find(sa->a_in_vars, "stored_mysa_speed"));
}

static void add_in_params__existing_param__kept(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW "param INIT_SA_SPEED := 2.5;\n", "AddInVars");
	assert_int_equal(count_named(sa->a_params, "INIT_SA_SPEED"), 1);
	Node *p = find(sa->a_params, "INIT_SA_SPEED");
	assert_null(p->origin);
	assert_true(p->init->rval == 2.5);
	assert_ptr_equal(sa->a_params, p); /* the user's stays first */
	Node *v = find(sa->a_in_vars, "stored_sa_speed");
	assert_ptr_equal(v->init->decl, p);
	assert_string_equal(names(f, sa->a_params),
			    "INIT_SA_SPEED,INIT_SA_DISPLACEMENT,INIT_SA_REACTION_FORCE");
}

static void add_in_params__name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "in var INIT_SA_SPEED := 1.0;\n"
				     "in rules {\n"
				     "}\n",
				     "AddInParams");
	assert_string_equal(d,
		"t.sa:5:8: error: AddInParams: the name 'INIT_SA_SPEED' is needed for the initial "
		"value of input 'speed' but is already an in var\n"
		"     5 | in var INIT_SA_SPEED := 1.0;\n"
		"       |        ^~~~~~~~~~~~~\n"
		"t.sa:5:8: note: rename this declaration\n"
		"     5 | in var INIT_SA_SPEED := 1.0;\n"
		"       |        ^~~~~~~~~~~~~\n");
}

static void add_in_params__names_differ_in_case__error_not_shared(void **state)
{
	Fx *f = *state;
	/* both would be INIT_SA_SPEED: sharing it would start `speed` at 2.0 */
	const char *d = reduce_fails(f, HEAD WINDOW
				     "input ports Real SPEED := 2.0, Real speed := 1.0 -> window.speed\n",
				     "AddInParams");
	assert_string_equal(d,
		"t.sa:5:37: error: AddInParams: the name 'INIT_SA_SPEED' is needed for the initial "
		"value of input 'speed', but AddInParams made it for another port already\n"
		"     5 | input ports Real SPEED := 2.0, Real speed := 1.0 -> window.speed\n"
		"       |                                     ^~~~~\n"
		"t.sa:5:18: note: the other port is declared here; rename one of them\n"
		"     5 | input ports Real SPEED := 2.0, Real speed := 1.0 -> window.speed\n"
		"       |                  ^~~~~\n");
}

/* ---- 3. AddInVars ------------------------------------------------------------------------- */

static void add_in_vars__each_input__stored_var_from_its_param(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_angle, "AddInVars");
	assert_string_equal(names(f, sa->a_in_vars),
			    "stored_sa_angle,stored_sa_speed,stored_sa_reaction_force");
	for (Node *v = sa->a_in_vars; v; v = v->next) {
		assert_string_equal(v->origin, "AddInVars");
		assert_int_equal(v->op, DECL_IN);
		assert_int_equal(v->type, TY_REAL);
		assert_int_equal(v->init->kind, ND_NAME);
		assert_int_equal(v->init->sym, SYM_PARAM);
		assert_string_equal(v->init->origin, "AddInVars");
	}
	Node *angle = find(sa->a_in_vars, "stored_sa_angle");
	assert_string_equal(angle->init->name, "INIT_SA_ANGLE");
	assert_ptr_equal(angle->init->decl, find(sa->a_params, "INIT_SA_ANGLE"));
	assert_null(sa->a_in_rules); /* AddInRule has not run */
}

static void add_in_vars__existing_in_var__kept(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "in var stored_sa_speed := 7.0;\n"
			  "in rules {\n"
			  "}\n",
			  "AddInVars");
	assert_int_equal(count_named(sa->a_in_vars, "stored_sa_speed"), 1);
	Node *v = find(sa->a_in_vars, "stored_sa_speed");
	assert_null(v->origin);
	assert_true(v->init->rval == 7.0);
	assert_string_equal(names(f, sa->a_in_vars),
			    "stored_sa_speed,stored_sa_displacement,stored_sa_reaction_force");
}

static void add_in_vars__name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW "param stored_sa_speed := 1.0;\n", "AddInVars");
	assert_string_equal(d,
		"t.sa:5:7: error: AddInVars: the name 'stored_sa_speed' is needed for the stored "
		"value of input 'speed' but is already a parameter\n"
		"     5 | param stored_sa_speed := 1.0;\n"
		"       |       ^~~~~~~~~~~~~~~\n"
		"t.sa:5:7: note: rename this declaration\n"
		"     5 | param stored_sa_speed := 1.0;\n"
		"       |       ^~~~~~~~~~~~~~~\n");
}

/* ---- 4. AddInRule ------------------------------------------------------------------------- */

static void add_in_rule__inputs__true_rule_prepended(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "input ports Real angle (deg) -> window.displacement, Real v\n"
			  "in rules {\n"
			  "\tv > 1.0 -> { } --> { window.speed := v; };\n"
			  "}\n",
			  "AddInRule");
	assert_int_equal(ast_count(sa->a_in_rules->list3), 2);
	Node *r = sa->a_in_rules->list3;
	assert_string_equal(r->origin, "AddInRule");
	assert_int_equal(r->cond->kind, ND_BOOL);
	assert_int_equal(r->cond->ival, 1);
	assert_int_equal(ast_count(r->then->list1), 3);
	Node *store = r->then->list1;
	assert_string_equal(store->origin, "AddInRule");
	assert_int_equal(store->lhs->kind, ND_NAME);
	assert_int_equal(store->lhs->sym, SYM_IN_VAR);
	assert_ptr_equal(store->lhs->decl, find(sa->a_in_vars, "stored_sa_angle"));
	assert_int_equal(store->rhs->kind, ND_PORT_REF);
	assert_string_equal(store->rhs->owner, "sa");
	assert_int_equal(store->rhs->sym, SYM_INPORT);
	assert_null(nth(sa->a_in_rules->list3, 1)->origin);
	assert_string_equal(section(f, "in rules {"),
		"in rules {\n"
		"\ttrue -> {\n"
		"\t\tstored_sa_angle := sa.angle;\n"
		"\t\tstored_sa_v := sa.v;\n"
		"\t\tstored_sa_reaction_force := sa.reaction_force;\n"
		"\t} --> {\n"
		"\t\twindow.displacement := 0.017453292519943295 * stored_sa_angle;\n"
		"\t\twindow.reaction_force := stored_sa_reaction_force;\n"
		"\t};\n"
		"\tv > 1.0 -> { } --> {\n"
		"\t\twindow.speed := v;\n"
		"\t};\n"
		"}\n");
}

static void add_in_rule__deg_input_bound_to_rad__scaled_by_pi_over_180(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_angle, "AddInRule");
	Node *map = sa->a_in_rules->list3->els->list1;
	assert_int_equal(map->lhs->kind, ND_PORT_REF);
	assert_string_equal(map->lhs->owner, "window");
	assert_string_equal(map->lhs->name, "displacement");
	Node *e = map->rhs;
	assert_int_equal(e->kind, ND_BINARY);
	assert_int_equal(e->op, OP_MUL);
	assert_string_equal(e->origin, "AddInRule");
	assert_int_equal(e->lhs->kind, ND_REAL);
	assert_close(e->lhs->rval, deg, 1e-17);
	assert_string_equal(e->lhs->origin, "AddInRule");
	assert_int_equal(e->rhs->kind, ND_NAME);
	assert_string_equal(e->rhs->name, "stored_sa_angle");
	assert_string_equal(expr_text(f, e), "0.017453292519943295 * stored_sa_angle");
	/* the ports bound to inputs of the same unit are copied unscaled */
	assert_string_equal(expr_text(f, nth(map, 1)->rhs), "stored_sa_speed");
}

static void add_in_rule__kn_input_bound_to_n__scaled_by_1000(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW "input ports Real f (kN) -> window.reaction_force\n", NULL);
	Node *map = sa->a_in_rules->list3->els->list1;
	assert_string_equal(map->lhs->name, "reaction_force");
	assert_int_equal(map->rhs->kind, ND_BINARY);
	assert_close(map->rhs->lhs->rval, 1000.0, 1e-12);
	assert_string_equal(expr_text(f, map->rhs->rhs), "stored_sa_f");
}

static void add_in_rule__stored_already__not_repeated(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "input ports Real v -> window.speed\n"
			  "in var stored_sa_v := 0.0;\n"
			  "in rules {\n"
			  "\ttrue -> { stored_sa_v := sa.v; } --> { };\n"
			  "}\n",
			  "AddInRule");
	Node *gen = sa->a_in_rules->list3;
	assert_string_equal(gen->origin, "AddInRule");
	const char *in = section(f, "in rules {");
	assert_int_equal(count_substr(in, "stored_sa_v := sa.v;"), 1);
	assert_contains(in, "\t\tstored_sa_displacement := sa.displacement;\n"
			    "\t\tstored_sa_reaction_force := sa.reaction_force;\n"
			    "\t} --> {\n"
			    "\t\twindow.speed := stored_sa_v;\n");
}

static void add_in_rule__no_external_input__no_rule(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "control rules {\n"
			  "\twindow.displacement := 0.0;\n"
			  "\twindow.speed := 0.0;\n"
			  "\twindow.reaction_force := 0.0;\n"
			  "\tdo_step(window, t, H);\n"
			  "\treturn H;\n"
			  "}\n",
			  NULL);
	assert_null(sa->a_inports);
	assert_null(sa->a_in_vars);
	assert_null(sa->a_in_rules);
	assert_lacks(printed(f), "in rules");
}

static void add_in_rule__rules_var_hides_stored__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "in rules {\n"
				     "\tvar stored_sa_speed := 0.0;\n"
				     "}\n",
				     "AddInRule");
	assert_string_equal(d,
		"t.sa:6:6: error: AddInRule: the name 'stored_sa_speed' is needed for the stored "
		"value of input 'speed' but is already a local var\n"
		"     6 | \tvar stored_sa_speed := 0.0;\n"
		"       | \t    ^~~~~~~~~~~~~~~\n"
		"t.sa:6:6: note: rename this declaration\n"
		"     6 | \tvar stored_sa_speed := 0.0;\n"
		"       | \t    ^~~~~~~~~~~~~~~\n");
}

/* ---- 5. RemoveInBindings ------------------------------------------------------------------ */

static void remove_in_bindings__bound_ports__binding_dropped_unit_kept(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_angle, "RemoveInBindings");
	for (Node *p = sa->a_inports; p; p = p->next) {
		assert_int_equal(p->bind_dir, BIND_NONE);
		assert_null(p->bind);
		assert_non_null(p->unit);
	}
	assert_string_equal(sa->a_inports->unit->str, "deg");
	const char *text = printed(f);
	assert_contains(text, "input ports Real angle (deg),\n"
			      "\tReal speed := 0.0 (rad/s),\n"
			      "\tReal reaction_force := 0.0 (N)\n");
	/* what the bindings did is in the in rule now */
	assert_contains(text, "window.displacement := 0.017453292519943295 * stored_sa_angle;\n");
}

static void remove_in_bindings__before_it__bindings_still_there(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_angle, "AddInRule");
	assert_int_equal(sa->a_inports->bind_dir, BIND_TO);
	assert_contains(printed(f), "input ports Real angle (deg) -> window.displacement,\n");
}

/* ---- 6. AddOutPorts ----------------------------------------------------------------------- */

static void add_out_ports__none_declared__one_bound_port_per_inner_output(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_window, "AddOutPorts");
	assert_string_equal(names(f, sa->a_outports), "height,reaction_torque");
	const char *units[] = {"cm", "N.m"};
	int k = 0;
	for (Node *p = sa->a_outports; p; p = p->next, k++) {
		assert_string_equal(p->origin, "AddOutPorts");
		assert_int_equal(p->type, TY_REAL);
		assert_string_equal(p->unit->str, units[k]);
		assert_int_equal(p->bind_dir, BIND_FROM);
		assert_string_equal(p->bind->owner, "window");
		assert_string_equal(p->bind->name, p->name);
		assert_int_equal(p->bind->sym, SYM_INNER_OUT);
		assert_loc_eq(p->loc, sa->a_inners->loc);
	}
	assert_null(sa->a_out_vars);
	assert_contains(printed(f), "output ports Real height (cm) <- window.height,\n"
				    "\tReal reaction_torque (N.m) <- window.reaction_torque\n");
}

static void add_out_ports__output_feeding_coupling__gets_no_port(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_height_to_obstacle, "AddOutPorts");
	assert_string_equal(names(f, sa->a_outports), "reaction_torque,reaction_force");
	assert_string_equal(nth(sa->a_outports, 1)->bind->owner, "obstacle");
}

static void add_out_ports__name_taken_by_generated_input__error(void **state)
{
	Fx *f = *state;
	/* window.reaction_force becomes an input port; obstacle.reaction_force would need
	 * the same name as an output */
	const char *d = reduce_fails(f, HEAD WINDOW OBSTACLE
				     "\tcoupled as window.height -> obstacle.disp\n",
				     "AddOutPorts");
	assert_contains(d, "t.sa:3:23: error: AddOutPorts: inner output 'obstacle.reaction_force' "
			   "needs an output port named 'reaction_force', which is already an input "
			   "port\n");
}

static void add_out_ports__ports_declared__none_added(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW "output ports Real tau <- window.reaction_torque\n",
			  "AddOutPorts");
	assert_string_equal(names(f, sa->a_outports), "tau");
	assert_null(sa->a_outports->origin);
}

static void add_out_ports__name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW "param height := 1.0;\n", "AddOutPorts");
	assert_string_equal(d,
		"t.sa:5:7: error: AddOutPorts: inner output 'window.height' needs an output port "
		"named 'height', which is already a parameter\n"
		"     5 | param height := 1.0;\n"
		"       |       ^~~~~~\n");
	assert_string_equal(names(f, adaptation_of(f->m)->a_outports), "reaction_torque");
}

/* ---- 7. AddOutParams ---------------------------------------------------------------------- */

static void add_out_params__every_inner_output__init_param(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW OBSTACLE
			  "\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
			  "output ports Real tau <- window.reaction_torque\n",
			  "AddOutParams");
	/* also for the outputs that are neither bound nor external: coupled, or unused */
	assert_string_equal(names(f, sa->a_params),
			    "INIT_SA_DISPLACEMENT,INIT_SA_SPEED,INIT_SA_DISP,INIT_WINDOW_HEIGHT,"
			    "INIT_WINDOW_REACTION_TORQUE,INIT_OBSTACLE_REACTION_FORCE");
	for (Node *p = nth(sa->a_params, 3); p; p = p->next) {
		assert_string_equal(p->origin, "AddOutParams");
		assert_int_equal(p->op, DECL_PARAM);
		assert_int_equal(p->type, TY_REAL);
		assert_int_equal(p->init->kind, ND_REAL);
		assert_true(p->init->rval == 0.0);
	}
	assert_loc_eq(find(sa->a_params, "INIT_OBSTACLE_REACTION_FORCE")->loc,
		      nth(sa->a_inners, 1)->loc);
	assert_null(sa->a_out_vars);
}

static void add_out_params__existing_param__kept(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW "param INIT_WINDOW_HEIGHT := 12.0;\n", "AddOutVars");
	assert_int_equal(count_named(sa->a_params, "INIT_WINDOW_HEIGHT"), 1);
	Node *p = find(sa->a_params, "INIT_WINDOW_HEIGHT");
	assert_null(p->origin);
	assert_true(p->init->rval == 12.0);
	assert_ptr_equal(find(sa->a_out_vars, "stored_window_height")->init->decl, p);
}

static void add_out_params__name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "in var INIT_WINDOW_HEIGHT := 0.0;\n"
				     "in rules {\n"
				     "}\n",
				     "AddOutParams");
	assert_string_equal(d,
		"t.sa:5:8: error: AddOutParams: the name 'INIT_WINDOW_HEIGHT' is needed for the "
		"initial value of 'window.height' but is already an in var\n"
		"     5 | in var INIT_WINDOW_HEIGHT := 0.0;\n"
		"       |        ^~~~~~~~~~~~~~~~~~\n"
		"t.sa:5:8: note: rename this declaration\n"
		"     5 | in var INIT_WINDOW_HEIGHT := 0.0;\n"
		"       |        ^~~~~~~~~~~~~~~~~~\n");
}

/* ---- 8. AddOutVars ------------------------------------------------------------------------ */

static void add_out_vars__every_inner_output__stored_var_from_its_param(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_force_to_window, "AddOutVars");
	assert_string_equal(names(f, sa->a_out_vars), "stored_window_height,"
			    "stored_window_reaction_torque,stored_obstacle_reaction_force");
	for (Node *v = sa->a_out_vars; v; v = v->next) {
		assert_string_equal(v->origin, "AddOutVars");
		assert_int_equal(v->op, DECL_OUT);
		assert_int_equal(v->init->kind, ND_NAME);
		assert_int_equal(v->init->sym, SYM_PARAM);
	}
	Node *v = find(sa->a_out_vars, "stored_obstacle_reaction_force");
	assert_ptr_equal(v->init->decl, find(sa->a_params, "INIT_OBSTACLE_REACTION_FORCE"));
	assert_null(sa->a_out_rules); /* AddOutRule has not run */
}

static void add_out_vars__existing_out_var__kept(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "out var stored_window_height := 1.5;\n"
			  "out rules {\n"
			  "}\n",
			  "AddOutVars");
	assert_int_equal(count_named(sa->a_out_vars, "stored_window_height"), 1);
	Node *v = find(sa->a_out_vars, "stored_window_height");
	assert_null(v->origin);
	assert_true(v->init->rval == 1.5);
	assert_string_equal(names(f, sa->a_out_vars),
			    "stored_window_height,stored_window_reaction_torque");
}

static void add_out_vars__name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW "param stored_window_height := 0.0;\n",
				     "AddOutVars");
	assert_string_equal(d,
		"t.sa:5:7: error: AddOutVars: the name 'stored_window_height' is needed for the "
		"stored value of 'window.height' but is already a parameter\n"
		"     5 | param stored_window_height := 0.0;\n"
		"       |       ^~~~~~~~~~~~~~~~~~~~\n"
		"t.sa:5:7: note: rename this declaration\n"
		"     5 | param stored_window_height := 0.0;\n"
		"       |       ^~~~~~~~~~~~~~~~~~~~\n");
}

/* An adaptation without inputs whose one output is named `port`. */
#define NO_INPUTS(name, port)                                                             \
	"semantic adaptation reactive mealy " name "\nat \"" name ".fmu\"\n" WINDOW            \
	"output ports Real " port " <- window.height\n"                                     \
	"control rules {\n"                                                                 \
	"\twindow.displacement := 0.0;\n"                                                   \
	"\twindow.speed := 0.0;\n"                                                          \
	"\twindow.reaction_force := 0.0;\n"                                                 \
	"\tdo_step(window, t, H);\n"                                                        \
	"\treturn H;\n"                                                                     \
	"}\n"

static void add_out_vars__same_name_for_two_outputs__error_not_shared(void **state)
{
	Fx *f = *state;
	/* w.x_height and w_x.height would both be stored in stored_w_x_height */
	const char *d = reduce_fails(f, NO_INPUTS("p", "x_height") NO_INPUTS("q", "height")
				     "semantic adaptation reactive mealy sa\nat \"sa.fmu\"\n"
				     "\tfor inner fmu P w\n\t\tat \"p.fmu\"\n"
				     "\tfor inner fmu Q w_x\n\t\tat \"q.fmu\"\n",
				     "AddOutVars");
	assert_contains(d, "t.sa:29:18: error: AddOutParams: the name 'INIT_W_X_HEIGHT' is needed "
			   "for the initial value of 'w_x.height', but AddOutParams made it for "
			   "another port already\n");
	assert_contains(d, "t.sa:29:18: error: AddOutVars: the name 'stored_w_x_height' is needed "
			   "for the stored value of 'w_x.height', but AddOutVars made it for another "
			   "port already\n");
	assert_contains(d, "t.sa:27:18: note: the other port is declared here; rename one of "
			   "them\n");
	assert_int_equal(count_substr(d, "error:"), 2);
}

/* ---- 9. AddOutRule ------------------------------------------------------------------------ */

static const char s_out_rule[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
	"output ports Real hm (m) <- window.height, Real tau\n"
	"out rules {\n"
	"\ttrue -> { } --> { sa.tau := -window.reaction_torque; };\n"
	"}\n";

static void add_out_rule__inner_outputs__true_rule_prepended(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_out_rule, "AddOutRule");
	assert_int_equal(ast_count(sa->a_out_rules->list3), 2);
	Node *r = sa->a_out_rules->list3;
	assert_string_equal(r->origin, "AddOutRule");
	assert_int_equal(r->cond->kind, ND_BOOL);
	assert_int_equal(r->cond->ival, 1);
	Node *store = r->then->list1;
	assert_int_equal(store->lhs->sym, SYM_OUT_VAR);
	assert_int_equal(store->rhs->kind, ND_PORT_REF);
	assert_int_equal(store->rhs->sym, SYM_INNER_OUT);
	Node *out = r->els->list1;
	assert_int_equal(out->lhs->kind, ND_PORT_REF);
	assert_string_equal(out->lhs->owner, "sa");
	assert_int_equal(out->lhs->sym, SYM_OUTPORT);
	assert_null(nth(sa->a_out_rules->list3, 1)->origin);
	assert_string_equal(section(f, "out rules {"),
		"out rules {\n"
		"\ttrue -> {\n"
		"\t\tstored_window_height := window.height;\n"
		"\t\tstored_window_reaction_torque := window.reaction_torque;\n"
		"\t\tstored_obstacle_reaction_force := obstacle.reaction_force;\n"
		"\t} --> {\n"
		"\t\tsa.hm := 0.01 * stored_window_height;\n"
		"\t};\n"
		"\ttrue -> { } --> {\n"
		"\t\tsa.tau := -window.reaction_torque;\n"
		"\t};\n"
		"}\n");
}

static void add_out_rule__cm_output_bound_to_m__scaled_by_0_01(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_out_rule, "AddOutRule");
	Node *out = sa->a_out_rules->list3->els->list1;
	Node *e = out->rhs;
	assert_int_equal(e->kind, ND_BINARY);
	assert_int_equal(e->op, OP_MUL);
	assert_int_equal(e->lhs->kind, ND_REAL);
	assert_close(e->lhs->rval, 0.01, 1e-18);
	assert_string_equal(e->lhs->origin, "AddOutRule");
	assert_int_equal(e->rhs->kind, ND_NAME);
	assert_string_equal(e->rhs->name, "stored_window_height");
	assert_int_equal(e->rhs->sym, SYM_OUT_VAR);
	assert_ptr_equal(e->rhs->decl, find(sa->a_out_vars, "stored_window_height"));
}

static void add_out_rule__stored_already__not_repeated(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW
			  "out var stored_window_height := 0.0;\n"
			  "out rules {\n"
			  "\ttrue -> { stored_window_height := window.height; } --> { };\n"
			  "}\n",
			  "AddOutRule");
	assert_string_equal(sa->a_out_rules->list3->origin, "AddOutRule");
	const char *out = section(f, "out rules {");
	assert_int_equal(count_substr(out, "stored_window_height := window.height;"), 1);
	assert_contains(out, "\ttrue -> {\n"
			     "\t\tstored_window_reaction_torque := window.reaction_torque;\n"
			     "\t} --> {\n"
			     "\t\tsa.height := stored_window_height;\n"
			     "\t\tsa.reaction_torque := stored_window_reaction_torque;\n"
			     "\t};\n");
}

static void add_out_rule__rules_var_hides_stored__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "output ports Real tau\n"
				     "out rules {\n"
				     "\tvar stored_window_height := 0.0;\n"
				     "}\n",
				     "AddOutRule");
	assert_string_equal(d,
		"t.sa:7:6: error: AddOutRule: the name 'stored_window_height' is needed for the "
		"stored value of 'window.height' but is already a local var\n"
		"     7 | \tvar stored_window_height := 0.0;\n"
		"       | \t    ^~~~~~~~~~~~~~~~~~~~\n"
		"t.sa:7:6: note: rename this declaration\n"
		"     7 | \tvar stored_window_height := 0.0;\n"
		"       | \t    ^~~~~~~~~~~~~~~~~~~~\n");
}

/* ---- 10. RemoveOutBindings ---------------------------------------------------------------- */

static void remove_out_bindings__bound_ports__binding_dropped_unit_kept(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_out_rule, "AddOutRule");
	assert_int_equal(sa->a_outports->bind_dir, BIND_FROM);
	tr_free(f->t);
	f->t = tr_new();
	sa = reduce(f, s_out_rule, "RemoveOutBindings");
	for (Node *p = sa->a_outports; p; p = p->next) {
		assert_int_equal(p->bind_dir, BIND_NONE);
		assert_null(p->bind);
	}
	assert_string_equal(sa->a_outports->unit->str, "m");
	assert_contains(printed(f), "output ports Real hm (m),\n\tReal tau\n");
}

/* ---- 11. CreateCtrlRules ------------------------------------------------------------------ */

static void create_ctrl_rules__one_inner__steps_it_and_returns_its_step(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_window, "CreateCtrlRules");
	Node *ctrl = sa->a_ctrl;
	assert_non_null(ctrl);
	assert_int_equal(ctrl->kind, ND_CTRL);
	assert_string_equal(ctrl->origin, "CreateCtrlRules");
	Node *var = ctrl->body->list1;
	assert_int_equal(var->kind, ND_VAR);
	Node *d = var->list1;
	assert_string_equal(d->name, "H_window");
	assert_int_equal(d->type, TY_REAL);
	assert_int_equal(d->init->kind, ND_BUILTIN);
	assert_int_equal(d->init->op, BI_DO_STEP);
	assert_string_equal(d->init->name, "window");
	assert_int_equal(d->init->list1->kind, ND_KEYVAR);
	assert_int_equal(d->init->list1->op, KV_T);
	assert_int_equal(d->init->list1->next->op, KV_BIG_H);
	Node *ret = var->next;
	assert_int_equal(ret->kind, ND_RETURN);
	assert_int_equal(ret->lhs->kind, ND_NAME);
	assert_ptr_equal(ret->lhs->decl, d);
	assert_null(ret->next);
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\tvar Real H_window := do_step(window, t, H);\n"
			    "\treturn H_window;\n"
			    "}\n");
}

static void create_ctrl_rules__mealy_target__source_stepped_first(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_force_to_window, "CreateCtrlRules");
	Node *ret = ast_last(sa->a_ctrl->body->list1);
	assert_int_equal(ret->lhs->kind, ND_BUILTIN);
	assert_int_equal(ret->lhs->op, BI_MIN);
	assert_int_equal(ast_count(ret->lhs->list1), 2);
	/* window is declared first, but the obstacle feeds it */
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
			    "\tvar Real H_window := do_step(window, t, H);\n"
			    "\treturn min(H_obstacle, H_window);\n"
			    "}\n");
}

static void create_ctrl_rules__moore_target__coupling_does_not_order(void **state)
{
	Fx *f = *state;
	/* obstacle first in the script; window feeds it: a Mealy obstacle must wait ... */
	reduce(f, HEAD OBSTACLE WINDOW "\tcoupled as window.height -> obstacle.disp\n"
	       "input ports Real push (N) -> window.reaction_force\n",
	       "CreateCtrlRules");
	assert_contains(section(f, "control rules {"),
			"\tvar Real H_window := do_step(window, t, H);\n"
			"\tvar Real H_obstacle := do_step(obstacle, t, H);\n");
	/* ... a Moore one need not, and declaration order stands */
	tr_free(f->t);
	f->t = tr_new();
	reduce(f, HEAD OBSTACLE_MOORE WINDOW "\tcoupled as window.height -> obstacle.disp\n"
	       "input ports Real push (N) -> window.reaction_force\n",
	       "CreateCtrlRules");
	assert_contains(section(f, "control rules {"),
			"\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
			"\tvar Real H_window := do_step(window, t, H);\n");
	/* and a Moore obstacle breaks the loop with the window */
	tr_free(f->t);
	f->t = tr_new();
	reduce(f, HEAD WINDOW OBSTACLE_MOORE
	       "\tcoupled as window.height -> obstacle.disp, "
	       "obstacle.reaction_force -> window.reaction_force\n",
	       "CreateCtrlRules");
	assert_contains(section(f, "control rules {"),
			"\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
			"\tvar Real H_window := do_step(window, t, H);\n");
}

static const char s_user_ctrl[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
	"control rules {\n"
	"\tdo_step(window, t, H);\n"
	"\tdo_step(obstacle, t, H);\n"
	"\treturn H;\n"
	"}\n";

static void create_ctrl_rules__control_rules_written__left_alone(void **state)
{
	Fx *f = *state;
	Module *m = tr_load(f->t, "t.sa", s_user_ctrl);
	assert_int_equal(drv_check(f->t->c, m), 0);
	Node *sa = adaptation_of(m);
	Node *ctrl = sa->a_ctrl, *first = ctrl->body->list1;
	assert_int_equal(drv_explicit(f->t->c, m, "CreateCtrlRules"), 0);
	f->m = m;
	assert_ptr_equal(sa->a_ctrl, ctrl);
	assert_ptr_equal(ctrl->body->list1, first);
	assert_int_equal(ast_count(ctrl->body->list1), 3);
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\tdo_step(window, t, H);\n"
			    "\tdo_step(obstacle, t, H);\n"
			    "\treturn H;\n"
			    "}\n");
}

static void create_ctrl_rules__algebraic_loop__error_names_the_cycle(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, s_loop, NULL);
	assert_string_equal(d,
		"t.sa:7:13: error: CreateCtrlRules: the inner fmus of 'sa' form an algebraic loop "
		"and cannot be ordered: window.height -> obstacle.disp, obstacle.reaction_force -> "
		"window.reaction_force\n"
		"     7 | \tcoupled as window.height -> obstacle.disp, obstacle.reaction_force -> "
		"window.reaction_force\n"
		"       | \t           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
		"t.sa:7:13: note: write control rules that solve the loop, or wrap it in a loop "
		"adaptation (successive substitution with save_state and rollback)\n"
		"     7 | \tcoupled as window.height -> obstacle.disp, obstacle.reaction_force -> "
		"window.reaction_force\n"
		"       | \t           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
	/* the later rules find no control rules and leave them alone */
	assert_null(adaptation_of(f->m)->a_ctrl);
}

static void create_ctrl_rules__loop_and_downstream_inner__names_only_the_cycle(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD
		"\tfor inner fmu Window w1\n\t\tat \"window.fmu\"\n"
		"\tfor inner fmu Window w2\n\t\tat \"window.fmu\"\n"
		OBSTACLE
		"\tcoupled as obstacle.reaction_force -> w2.reaction_force, w1.height -> obstacle.disp,\n"
		"\t\tobstacle.reaction_force -> w1.reaction_force\n"
		"input ports Real d1 -> w1.displacement, Real s1 -> w1.speed,\n"
		"\tReal d2 -> w2.displacement, Real s2 -> w2.speed\n"
		"output ports Real tq <- w2.reaction_torque\n",
		"CreateCtrlRules");
	assert_contains(d, "t.sa:9:59: error: CreateCtrlRules: the inner fmus of 'sa' form an "
			   "algebraic loop and cannot be ordered: w1.height -> obstacle.disp, "
			   "obstacle.reaction_force -> w1.reaction_force\n");
	assert_lacks(d, "-> w2.reaction_force\n");
	assert_int_equal(count_substr(d, "error:"), 1);
}

static void create_ctrl_rules__step_name_taken__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW "param H_window := 1.0;\n", "CreateCtrlRules");
	assert_string_equal(d,
		"t.sa:5:7: error: CreateCtrlRules: the name 'H_window' is needed for the step "
		"taken by 'window' but is already a parameter\n"
		"     5 | param H_window := 1.0;\n"
		"       |       ^~~~~~~~\n"
		"t.sa:5:7: note: rename this declaration\n"
		"     5 | param H_window := 1.0;\n"
		"       |       ^~~~~~~~\n");
	assert_null(adaptation_of(f->m)->a_ctrl);
}

/* ---- 12. ImplementInternalBinding --------------------------------------------------------- */

static void implement_internal_binding__generated_steps__assignment_before_step(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_force_to_window, "ImplementInternalBinding");
	Node *as = nth(sa->a_ctrl->body->list1, 1);
	assert_int_equal(as->kind, ND_ASSIGN);
	assert_string_equal(as->origin, "ImplementInternalBinding");
	assert_int_equal(as->lhs->sym, SYM_INNER_IN);
	assert_int_equal(as->rhs->kind, ND_PORT_REF); /* ReplacePortsRefsByVars has not run */
	assert_int_equal(as->rhs->sym, SYM_INNER_OUT);
	assert_string_equal(as->rhs->origin, "ImplementInternalBinding");
	assert_loc_eq(as->loc, sa->a_couplings->loc);
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
			    "\twindow.reaction_force := obstacle.reaction_force;\n"
			    "\tvar Real H_window := do_step(window, t, H);\n"
			    "\treturn min(H_obstacle, H_window);\n"
			    "}\n");
}

static const char s_nested_steps[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
	"input ports Real v\n"
	"control rules {\n"
	"\tif (v > 0.0) {\n"
	"\t\tdo_step(window, t, H);\n"
	"\t} else if (v < -1.0) {\n"
	"\t\twindow.reaction_force := 0.0;\n"
	"\t\tdo_step(window, t, H);\n"
	"\t} else {\n"
	"\t\tdo_step(obstacle, t, H);\n"
	"\t}\n"
	"\tfor (var i in 0 .. 2) {\n"
	"\t\tdo_step(obstacle, t, H / 2);\n"
	"\t\tdo_step(window, t, H / 2);\n"
	"\t}\n"
	"\twindow.reaction_force := 1.0;\n"
	"\tdo_step(window, t, H);\n"
	"\tdo_step(window, t, H);\n"
	"\treturn H;\n"
	"}\n";

static void implement_internal_binding__steps_in_if_and_for__assignment_inserted_there(void **state)
{
	Fx *f = *state;
	reduce(f, s_nested_steps, "ImplementInternalBinding");
	const char *ctrl = section(f, "control rules {");
	assert_contains(ctrl, "\tif (v > 0.0) {\n"
			      "\t\twindow.reaction_force := obstacle.reaction_force;\n"
			      "\t\tdo_step(window, t, H);\n");
	assert_contains(ctrl, "\tfor (var i in 0 .. 2) {\n"
			      "\t\tdo_step(obstacle, t, H / 2);\n"
			      "\t\twindow.reaction_force := obstacle.reaction_force;\n"
			      "\t\tdo_step(window, t, H / 2);\n"
			      "\t}\n");
	/* nothing before steps of the obstacle, which no coupling feeds */
	assert_contains(ctrl, "\t} else {\n\t\tdo_step(obstacle, t, H);\n\t}\n");
}

static void implement_internal_binding__assignment_precedes__nothing_inserted(void **state)
{
	Fx *f = *state;
	reduce(f, s_nested_steps, "ImplementInternalBinding");
	const char *ctrl = section(f, "control rules {");
	assert_contains(ctrl, "\t} else if (v < -1.0) {\n"
			      "\t\twindow.reaction_force := 0.0;\n"
			      "\t\tdo_step(window, t, H);\n"
			      "\t} else {\n");
	assert_contains(ctrl, "\t}\n"
			      "\twindow.reaction_force := 1.0;\n"
			      "\tdo_step(window, t, H);\n"
			      "\tdo_step(window, t, H);\n"
			      "\treturn H;\n");
	assert_int_equal(count_substr(ctrl, ":= obstacle.reaction_force;"), 2);
}

static void implement_internal_binding__units_differ__converted_then_stored(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_height_to_obstacle, "ImplementInternalBinding");
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\tvar Real H_window := do_step(window, t, H);\n"
			    "\tobstacle.disp := 0.01 * window.height;\n"
			    "\tvar Real H_obstacle := do_step(obstacle, t, H);\n"
			    "\treturn min(H_window, H_obstacle);\n"
			    "}\n");
	Node *e = nth(sa->a_ctrl->body->list1, 1)->rhs;
	assert_int_equal(e->kind, ND_BINARY);
	assert_int_equal(e->op, OP_MUL);
	assert_close(e->lhs->rval, 0.01, 1e-18);
	assert_string_equal(e->lhs->origin, "ImplementInternalBinding");

	tr_free(f->t);
	f->t = tr_new();
	sa = reduce(f, s_height_to_obstacle, "ReplacePortsRefsByVars");
	assert_contains(section(f, "control rules {"),
			"\tobstacle.disp := 0.01 * stored_window_height;\n");
	e = nth(sa->a_ctrl->body->list1, 1)->rhs;
	assert_close(e->lhs->rval, 0.01, 1e-18);
	assert_int_equal(e->rhs->kind, ND_NAME);
	assert_int_equal(e->rhs->sym, SYM_OUT_VAR);
	assert_string_equal(e->rhs->origin, "ReplacePortsRefsByVars");
}

/* ---- 13. ReplacePortsRefsByVars ----------------------------------------------------------- */

static const char s_map_in[] =
	HEAD WINDOW
	"input ports Real v, Real f\n"
	"in var last_v := 0.0;\n"
	"in rules {\n"
	"\tv > 1.0 -> { last_v := sa.v; } --> {\n"
	"\t\twindow.speed := v;\n"
	"\t\twindow.reaction_force := sa.f + v;\n"
	"\t};\n"
	"}\n";

static void replace_ports_refs_by_vars__map_in__inputs_become_stored(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_map_in, "ImplementInternalBinding");
	assert_contains(section(f, "in rules {"), "\t\twindow.speed := v;\n"
						  "\t\twindow.reaction_force := sa.f + v;\n");
	tr_free(f->t);
	f->t = tr_new();
	sa = reduce(f, s_map_in, "ReplacePortsRefsByVars");
	Node *user = nth(sa->a_in_rules->list3, 1);
	Node *speed = user->els->list1;
	assert_int_equal(speed->rhs->kind, ND_NAME);
	assert_string_equal(speed->rhs->name, "stored_sa_v");
	assert_int_equal(speed->rhs->sym, SYM_IN_VAR);
	assert_ptr_equal(speed->rhs->decl, find(sa->a_in_vars, "stored_sa_v"));
	assert_string_equal(speed->rhs->origin, "ReplacePortsRefsByVars");
	/* the sa.port form too */
	assert_string_equal(expr_text(f, speed->next->rhs), "stored_sa_f + stored_sa_v");
	/* the condition and the In part (`->`) still read the inputs themselves */
	assert_contains(section(f, "in rules {"), "\tv > 1.0 -> {\n"
						  "\t\tlast_v := sa.v;\n"
						  "\t} --> {\n"
						  "\t\twindow.speed := stored_sa_v;\n"
						  "\t\twindow.reaction_force := stored_sa_f + stored_sa_v;\n"
						  "\t};\n");
	assert_contains(printed(f), "\t\tstored_sa_v := sa.v;\n");
}

static const char s_stored_outputs[] =
	HEAD WINDOW
	"output ports Real hh, Real tq\n"
	"control var peak := 0.0;\n"
	"control rules {\n"
	"\tdo_step(window, t, H);\n"
	"\tif (window.height > peak) {\n"
	"\t\tpeak := window.height;\n"
	"\t}\n"
	"\treturn H;\n"
	"}\n"
	"out var last := 0.0;\n"
	"out rules {\n"
	"\twindow.height > 10.0 -> { last := window.reaction_torque; } --> {\n"
	"\t\tsa.hh := window.height;\n"
	"\t\tsa.tq := last;\n"
	"\t};\n"
	"}\n";

static void replace_ports_refs_by_vars__control_rules__inner_outputs_become_stored(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_stored_outputs, NULL);
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\tdo_step(window, t, H);\n"
			    "\tif (stored_window_height > peak) {\n"
			    "\t\tpeak := stored_window_height;\n"
			    "\t}\n"
			    "\treturn H;\n"
			    "}\n");
	Node *cond = nth(sa->a_ctrl->body->list1, 1)->cond;
	assert_int_equal(cond->lhs->kind, ND_NAME);
	assert_int_equal(cond->lhs->sym, SYM_OUT_VAR);
	assert_ptr_equal(cond->lhs->decl, find(sa->a_out_vars, "stored_window_height"));
}

static void replace_ports_refs_by_vars__out_parts__inner_outputs_become_stored(void **state)
{
	Fx *f = *state;
	reduce(f, s_stored_outputs, NULL);
	/* the condition and MapOut (`->`) read the inner outputs; Out (`-->`) the stored ones */
	assert_contains(section(f, "out rules {"),
			"\twindow.height > 10.0 -> {\n"
			"\t\tlast := window.reaction_torque;\n"
			"\t} --> {\n"
			"\t\tsa.hh := stored_window_height;\n"
			"\t\tsa.tq := last;\n"
			"\t};\n");
}

static void replace_ports_refs_by_vars__local_hides_stored__error_at_user_declaration(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "control rules {\n"
				     "\tvar stored_window_height := 1.0;\n"
				     "\tdo_step(window, t, H);\n"
				     "\twindow.displacement := stored_window_height + window.height;\n"
				     "\twindow.speed := window.height;\n"
				     "\treturn H;\n"
				     "}\n",
				     NULL);
	assert_string_equal(d,
		"t.sa:6:6: error: ReplacePortsRefsByVars: the name 'stored_window_height' is needed "
		"for the stored value of 'window.height' but is already a local var\n"
		"     6 | \tvar stored_window_height := 1.0;\n"
		"       | \t    ^~~~~~~~~~~~~~~~~~~~\n"
		"t.sa:6:6: note: rename this declaration\n"
		"     6 | \tvar stored_window_height := 1.0;\n"
		"       | \t    ^~~~~~~~~~~~~~~~~~~~\n");
}

static void replace_ports_refs_by_vars__loop_var_hides_stored__error(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "control rules {\n"
				     "\tfor (var stored_window_height in 0 .. 2) {\n"
				     "\t\tdo_step(window, t, H);\n"
				     "\t\twindow.speed := window.height;\n"
				     "\t}\n"
				     "\treturn H;\n"
				     "}\n",
				     NULL);
	assert_contains(d, "t.sa:6:11: error: ReplacePortsRefsByVars: the name "
			   "'stored_window_height' is needed for the stored value of 'window.height' "
			   "but is already a local var\n");
}

static void replace_ports_refs_by_vars__local_in_map_in_hides_stored__error(void **state)
{
	Fx *f = *state;
	const char *d = reduce_fails(f, HEAD WINDOW
				     "input ports Real v\n"
				     "in rules {\n"
				     "\ttrue -> { } --> {\n"
				     "\t\tif (v > 0.0) { var stored_sa_v := 2.0; }\n"
				     "\t\twindow.speed := v;\n"
				     "\t};\n"
				     "}\n",
				     NULL);
	assert_contains(d, "t.sa:8:22: error: ReplacePortsRefsByVars: the name 'stored_sa_v' is "
			   "needed for the stored value of input 'v' but is already a local var\n");
	assert_int_equal(count_substr(d, "error:"), 1);
}

/* ---- the pipeline --------------------------------------------------------------------------- */

static void explicit__after_rule__later_rules_not_run(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, s_force_to_window, "AddInVars");
	assert_int_equal(ast_count(sa->a_in_vars), 3);
	assert_null(sa->a_in_rules);
	assert_null(sa->a_outports);
	assert_null(sa->a_ctrl);
	assert_int_equal(sa->a_inports->bind_dir, BIND_TO);

	tr_free(f->t);
	f->t = tr_new();
	sa = reduce(f, s_force_to_window, "ImplementInternalBinding");
	assert_contains(printed(f), "\twindow.reaction_force := obstacle.reaction_force;\n");

	assert_true(rw_is_rule("AddInVars"));
	assert_true(rw_is_rule("ReplacePortsRefsByVars"));
	assert_false(rw_is_rule("addinvars"));
	int n = 0;
	while (rw_rules[n].name)
		n++;
	assert_int_equal(n, 13);
	assert_string_equal(rw_rules[0].name, "AddInPorts");
	assert_string_equal(rw_rules[12].name, "ReplacePortsRefsByVars");
}

/* Every node reachable from n (through children and lists, not `decl`). */
typedef struct NodeSet {
	const Node **v;
	int n, cap;
} NodeSet;

static bool ns_has(const NodeSet *s, const Node *n)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == n)
			return true;
	return false;
}

static void ns_collect(NodeSet *s, const Node *list);

/* n and everything below it, not its `next`. */
static void ns_visit(NodeSet *s, const Node *n)
{
	if (!n || ns_has(s, n))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
		assert_non_null(s->v);
	}
	s->v[s->n++] = n;
	const Node *kids[] = {
		n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->unit, n->bind, n->body,
		n->list1, n->list2, n->list3, n->a_inners, n->a_couplings, n->a_inports,
		n->a_outports, n->a_params, n->a_general, n->a_ctrl_vars, n->a_ctrl,
		n->a_in_vars, n->a_in_rules, n->a_out_vars, n->a_out_rules,
	};
	for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
		ns_collect(s, kids[i]);
}

static void ns_collect(NodeSet *s, const Node *list)
{
	for (const Node *n = list; n; n = n->next)
		ns_visit(s, n);
}

/* Applies the rules one by one and checks that whatever is new after a rule names it.
 * Sets made[i] when rule i made a node. */
static void check_origins(Fx *f, const char *text, bool *made)
{
	Module *m = tr_load(f->t, "t.sa", text);
	if (drv_check(f->t->c, m) != 0)
		fail_msg("%s", tr_diag(f->t));
	Node *sa = adaptation_of(m);
	SaInfo *info = sa->info;
	NodeSet user = {0}, before = {0}, after = {0};
	ns_visit(&user, sa);
	ns_visit(&before, sa);
	for (int i = 0; i < user.n; i++)
		assert_null(user.v[i]->origin);
	for (int r = 0; rw_rules[r].name; r++) {
		rw_apply(&rw_rules[r], f->t->c, info);
		after.n = 0;
		ns_visit(&after, sa);
		for (int i = 0; i < after.n; i++) {
			const Node *n = after.v[i];
			if (ns_has(&before, n))
				continue;
			made[r] = true;
			if (!n->origin || strcmp(n->origin, rw_rules[r].name) != 0)
				fail_msg("%s made a %s node with origin %s", rw_rules[r].name,
					 ast_kind_name(n->kind), n->origin ? n->origin : "NULL");
		}
		NodeSet t = before;
		before = after;
		after = t;
	}
	for (int i = 0; i < user.n; i++)
		assert_null(user.v[i]->origin);
	free(user.v);
	free(before.v);
	free(after.v);
	assert_int_equal(diag_errors(f->t->c->diag), 0);
}

static void explicit__each_rule__its_new_nodes_name_it(void **state)
{
	Fx *f = *state;
	bool made[16] = {false};
	/* generated ports, in and out conversions, a converting coupling, generated steps */
	check_origins(f, HEAD WINDOW OBSTACLE
		      "\tcoupled as window.height -> obstacle.disp\n"
		      "input ports Real angle (deg) -> window.displacement,\n"
		      "\tReal push (N) -> window.reaction_force\n"
		      "in rules {\n"
		      "\ttrue -> { } --> { window.speed := angle; };\n"
		      "}\n",
		      made);
	tr_free(f->t);
	f->t = tr_new();
	check_origins(f, HEAD WINDOW OBSTACLE
		      "\tcoupled as window.height -> obstacle.disp\n"
		      "input ports Real v\n"
		      "output ports Real hm (m) <- window.height, Real tq\n"
		      "control rules {\n"
		      "\tif (v > 0.0) { do_step(window, t, H); }\n"
		      "\tdo_step(obstacle, t, H);\n"
		      "\treturn H;\n"
		      "}\n"
		      "out rules {\n"
		      "\ttrue -> { } --> { sa.tq := window.reaction_torque; };\n"
		      "}\n",
		      made);
	for (int r = 0; rw_rules[r].name; r++) {
		bool removes = strncmp(rw_rules[r].name, "Remove", 6) == 0;
		if (made[r] == removes)
			fail_msg("%s %s nodes", rw_rules[r].name, made[r] ? "made" : "made no");
	}
}

static void explicit__new_nodes__located_at_their_source(void **state)
{
	Fx *f = *state;
	Node *sa = reduce(f, HEAD WINDOW OBSTACLE
			  "\tcoupled as window.height -> obstacle.disp\n"
			  "input ports Real angle (deg) -> window.displacement\n",
			  "AddInRule");
	Node *angle = sa->a_inports;
	Loc bind = angle->bind->loc;
	Node *rule = sa->a_in_rules->list3;
	assert_loc_eq(rule->then->list1->loc, angle->loc);     /* stored_sa_angle := sa.angle */
	assert_loc_eq(rule->els->list1->loc, bind);            /* window.displacement := ... */
	assert_loc_eq(find(sa->a_params, "INIT_SA_ANGLE")->loc, angle->loc);
	assert_loc_eq(find(sa->a_in_vars, "stored_sa_angle")->loc, angle->loc);
	assert_loc_eq(find(sa->a_inports, "speed")->loc, sa->a_inners->loc);

	tr_free(f->t);
	f->t = tr_new();
	sa = reduce(f, s_height_to_obstacle, NULL);
	Node *stmts = sa->a_ctrl->body->list1;
	assert_loc_eq(stmts->loc, sa->a_inners->loc);                 /* var H_window */
	assert_loc_eq(nth(stmts, 1)->loc, sa->a_couplings->loc);      /* obstacle.disp := */
	assert_loc_eq(nth(stmts, 2)->loc, nth(sa->a_inners, 1)->loc); /* var H_obstacle */
	assert_loc_eq(find(sa->a_out_vars, "stored_obstacle_reaction_force")->loc,
		      nth(sa->a_inners, 1)->loc);
}

/* No node anywhere under n came from a rule. */
static void assert_no_origin(const Node *sa)
{
	NodeSet s = {0};
	ns_visit(&s, sa);
	for (int i = 0; i < s.n; i++)
		if (s.v[i]->origin) {
			const char *o = s.v[i]->origin;
			NodeKind k = s.v[i]->kind;
			free(s.v);
			fail_msg("%s made a %s node in an explicit form", o, ast_kind_name(k));
		}
	free(s.v);
}

static const char *const idempotent_scripts[] = {
	s_window,
	s_force_to_window,
	s_height_to_obstacle,
	s_angle,
	s_out_rule,
	s_user_ctrl,
	s_nested_steps,
	s_map_in,
	s_stored_outputs,
	HEAD WINDOW OBSTACLE_MOORE
	"\tcoupled as window.height -> obstacle.disp, "
	"obstacle.reaction_force -> window.reaction_force\n",
	HEAD WINDOW
	"input ports Real angle := 90 (deg) -> window.displacement, Integer n := 3, Bool b,\n"
	"\tString s, Real f (kN) -> window.reaction_force\n"
	"output ports Real torque (kN.m) <- window.reaction_torque\n"
	"param INIT_SA_N := 4;\n"
	"in var stored_sa_b := true;\n"
	"in rules {\n"
	"\tn > 2 -> { stored_sa_b := b; } --> { window.speed := n; };\n"
	"}\n",
	/* FMUs declared apart, a rules-block var */
	"fmu Window window at \"window.fmu\"\n"
	"fmu Obstacle obstacle at \"obstacle.fmu\"\n"
	HEAD
	"\tfor fmu window, obstacle\n"
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
	"input ports Real v\n"
	"in rules {\n"
	"\tvar k := 2.0;\n"
	"\ttrue -> { } --> { window.speed := k * v; };\n"
	"}\n",
};

static void explicit__explicit_form__reduces_to_the_same_text(void **state)
{
	Fx *f = *state;
	for (size_t i = 0; i < sizeof idempotent_scripts / sizeof idempotent_scripts[0]; i++) {
		tr_free(f->t);
		f->t = tr_new();
		reduce(f, idempotent_scripts[i], NULL);
		const char *once = printed(f);

		if (f->again)
			tr_free(f->again);
		f->again = tr_new();
		Module *m;
		int errors = reduce_in(f->again, &m, "t.explicit.sa", once, NULL);
		if (errors)
			fail_msg("script %zu: its explicit form has %d errors:\n%s\n%s", i, errors,
				 tr_diag(f->again), once);
		const char *twice = keep(f, tr_print(m));
		if (strcmp(once, twice) != 0)
			fail_msg("script %zu: explicit form\n%s\nreduces to\n%s", i, once, twice);
		assert_no_origin(adaptation_of(m));
	}
}

static Module *module_at(TestRun *t, const char *path)
{
	for (Module *m = t->c->modules; m; m = m->next)
		if (strcmp(m->path, path) == 0)
			return m;
	fail_msg("no module %s", path);
	return NULL;
}

#define WINDOW_SA "adaptations/powerwindow/window_sa.sa"
#define LOOP_SA "adaptations/powerwindow/loop_sa.sa"

static void explicit__imported_adaptation__explicit_forms_reduce_to_the_same_text(void **state)
{
	Fx *f = *state;
	Module *loop = drv_load(f->t->c, LOOP_SA);
	assert_non_null(loop);
	if (drv_explicit(f->t->c, loop, NULL) != 0)
		fail_msg("%s", tr_diag(f->t));
	const char *window_once = keep(f, tr_print(module_at(f->t, WINDOW_SA)));
	const char *loop_once = keep(f, tr_print(loop));
	assert_contains(loop_once, "\t\twindow_sa.reaction_force := stored_obstacle_reaction_force;\n"
				   "\t\tdo_step(window_sa, t, H);\n");

	/* The same paths, so that the import finds the explicit window_sa loaded first. */
	f->again = tr_new();
	Module *w2 = tr_load(f->again, WINDOW_SA, window_once);
	Module *l2 = tr_load(f->again, LOOP_SA, loop_once);
	if (drv_explicit(f->again->c, l2, NULL) != 0 || drv_explicit(f->again->c, w2, NULL) != 0)
		fail_msg("%s", tr_diag(f->again));
	assert_ptr_equal(l2->imports[0], w2);
	assert_string_equal(keep(f, tr_print(w2)), window_once);
	assert_string_equal(keep(f, tr_print(l2)), loop_once);
	assert_no_origin(adaptation_of(w2));
	assert_no_origin(adaptation_of(l2));
}

static void explicit__reduced_twice__second_time_changes_nothing(void **state)
{
	Fx *f = *state;
	reduce(f, s_force_to_window, NULL);
	const char *once = printed(f);
	assert_int_equal(drv_explicit(f->t->c, f->m, NULL), 0);
	assert_string_equal(printed(f), once);
	assert_string_equal(tr_diag(f->t), "");
}

/* ---- main ------------------------------------------------------------------------------------ */

#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(add_in_ports__unfed_inner_inputs__become_bound_ports),
		T(add_in_ports__coupled_input__gets_no_port),
		T(add_in_ports__bound_input__gets_no_second_port),
		T(add_in_ports__input_set_by_control_rules__gets_no_port),
		T(add_in_ports__input_set_by_map_in__gets_no_port),
		T(add_in_ports__name_taken__error_at_user_declaration),
		T(add_in_params__each_input__init_param_with_default),
		T(add_in_params__adaptation_name__upper_cased),
		T(add_in_params__existing_param__kept),
		T(add_in_params__name_taken__error_at_user_declaration),
		T(add_in_params__names_differ_in_case__error_not_shared),
		T(add_in_vars__each_input__stored_var_from_its_param),
		T(add_in_vars__existing_in_var__kept),
		T(add_in_vars__name_taken__error_at_user_declaration),
		T(add_in_rule__inputs__true_rule_prepended),
		T(add_in_rule__deg_input_bound_to_rad__scaled_by_pi_over_180),
		T(add_in_rule__kn_input_bound_to_n__scaled_by_1000),
		T(add_in_rule__stored_already__not_repeated),
		T(add_in_rule__no_external_input__no_rule),
		T(add_in_rule__rules_var_hides_stored__error_at_user_declaration),
		T(remove_in_bindings__bound_ports__binding_dropped_unit_kept),
		T(remove_in_bindings__before_it__bindings_still_there),
		T(add_out_ports__none_declared__one_bound_port_per_inner_output),
		T(add_out_ports__output_feeding_coupling__gets_no_port),
		T(add_out_ports__name_taken_by_generated_input__error),
		T(add_out_ports__ports_declared__none_added),
		T(add_out_ports__name_taken__error_at_user_declaration),
		T(add_out_params__every_inner_output__init_param),
		T(add_out_params__existing_param__kept),
		T(add_out_params__name_taken__error_at_user_declaration),
		T(add_out_vars__every_inner_output__stored_var_from_its_param),
		T(add_out_vars__existing_out_var__kept),
		T(add_out_vars__name_taken__error_at_user_declaration),
		T(add_out_vars__same_name_for_two_outputs__error_not_shared),
		T(add_out_rule__inner_outputs__true_rule_prepended),
		T(add_out_rule__cm_output_bound_to_m__scaled_by_0_01),
		T(add_out_rule__stored_already__not_repeated),
		T(add_out_rule__rules_var_hides_stored__error_at_user_declaration),
		T(remove_out_bindings__bound_ports__binding_dropped_unit_kept),
		T(create_ctrl_rules__one_inner__steps_it_and_returns_its_step),
		T(create_ctrl_rules__mealy_target__source_stepped_first),
		T(create_ctrl_rules__moore_target__coupling_does_not_order),
		T(create_ctrl_rules__control_rules_written__left_alone),
		T(create_ctrl_rules__algebraic_loop__error_names_the_cycle),
		T(create_ctrl_rules__loop_and_downstream_inner__names_only_the_cycle),
		T(create_ctrl_rules__step_name_taken__error_at_user_declaration),
		T(implement_internal_binding__generated_steps__assignment_before_step),
		T(implement_internal_binding__steps_in_if_and_for__assignment_inserted_there),
		T(implement_internal_binding__assignment_precedes__nothing_inserted),
		T(implement_internal_binding__units_differ__converted_then_stored),
		T(replace_ports_refs_by_vars__map_in__inputs_become_stored),
		T(replace_ports_refs_by_vars__control_rules__inner_outputs_become_stored),
		T(replace_ports_refs_by_vars__out_parts__inner_outputs_become_stored),
		T(replace_ports_refs_by_vars__local_hides_stored__error_at_user_declaration),
		T(replace_ports_refs_by_vars__loop_var_hides_stored__error),
		T(replace_ports_refs_by_vars__local_in_map_in_hides_stored__error),
		T(explicit__after_rule__later_rules_not_run),
		T(explicit__each_rule__its_new_nodes_name_it),
		T(explicit__new_nodes__located_at_their_source),
		T(explicit__explicit_form__reduces_to_the_same_text),
		T(explicit__imported_adaptation__explicit_forms_reduce_to_the_same_text),
		T(explicit__reduced_twice__second_time_changes_nothing),
	};
	return cmocka_run_group_tests_name("explicit", tests, NULL, NULL);
}
