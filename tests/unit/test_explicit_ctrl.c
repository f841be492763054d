/* test_explicit_ctrl.c — the reduction to explicit form (explicit.c), rules 11 to 13:
 * CreateCtrlRules (the stepping order, algebraic loops), ImplementInternalBinding and
 * ReplacePortsRefsByVars. */
#include "explicit_test.h"

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

static void implement_internal_binding__one_statement_steps_two__couplings_in_script_order(void **state)
{
	Fx *f = *state;
	/* the statement steps the obstacle first; the coupling into the window comes first */
	reduce(f, HEAD WINDOW OBSTACLE
	       "\tcoupled as obstacle.reaction_force -> window.reaction_force, "
	       "window.height -> obstacle.disp\n"
	       "input ports Real v\n"
	       "control rules {\n"
	       "\tvar step := min(do_step(obstacle, t, H), do_step(window, t, H));\n"
	       "\tobstacle.disp := 0.0;\n"
	       "\tdo_step(obstacle, t, H);\n"
	       "\treturn step;\n"
	       "}\n", "ImplementInternalBinding");
	assert_string_equal(section(f, "control rules {"),
			    "control rules {\n"
			    "\twindow.reaction_force := obstacle.reaction_force;\n"
			    "\tobstacle.disp := 0.01 * window.height;\n"
			    "\tvar Real step := min(do_step(obstacle, t, H), do_step(window, t, H));\n"
			    "\tobstacle.disp := 0.0;\n"
			    "\tdo_step(obstacle, t, H);\n"
			    "\treturn step;\n"
			    "}\n");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		T(implement_internal_binding__one_statement_steps_two__couplings_in_script_order),
		T(implement_internal_binding__units_differ__converted_then_stored),
		T(replace_ports_refs_by_vars__map_in__inputs_become_stored),
		T(replace_ports_refs_by_vars__control_rules__inner_outputs_become_stored),
		T(replace_ports_refs_by_vars__out_parts__inner_outputs_become_stored),
		T(replace_ports_refs_by_vars__local_hides_stored__error_at_user_declaration),
		T(replace_ports_refs_by_vars__loop_var_hides_stored__error),
		T(replace_ports_refs_by_vars__local_in_map_in_hides_stored__error),
	};
	return cmocka_run_group_tests_name("explicit", tests, NULL, NULL);
}
