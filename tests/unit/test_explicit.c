/* test_explicit.c — the reduction to explicit form (explicit.c) as a whole: `--after`
 * stops where asked, every node a rule makes names that rule and sits at its source, and
 * the explicit form of an explicit form is the same text.  Each rule on its own is tested
 * in test_explicit_in.c (rules 1-5), test_explicit_out.c (6-10) and
 * test_explicit_ctrl.c (11-13). */
#include "explicit_test.h"

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
	for (int i = 0; i < AST_NCHILDREN; i++)
		ns_collect(s, ast_child(n, i));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(explicit__after_rule__later_rules_not_run),
		T(explicit__each_rule__its_new_nodes_name_it),
		T(explicit__new_nodes__located_at_their_source),
		T(explicit__explicit_form__reduces_to_the_same_text),
		T(explicit__imported_adaptation__explicit_forms_reduce_to_the_same_text),
		T(explicit__reduced_twice__second_time_changes_nothing),
	};
	return cmocka_run_group_tests_name("explicit", tests, NULL, NULL);
}
