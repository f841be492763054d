/* test_explicit_in.c — the input side of the reduction to explicit form (explicit.c),
 * rules 1 to 5: AddInPorts, AddInParams, AddInVars, AddInRule, RemoveInBindings.  What
 * each rule adds, what it leaves alone, the errors it reports at the user's declaration. */
#include "explicit_test.h"

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
	};
	return cmocka_run_group_tests_name("explicit", tests, NULL, NULL);
}
