/* test_explicit_out.c — the output side of the reduction to explicit form (explicit.c),
 * rules 6 to 10: AddOutPorts, AddOutParams, AddOutVars, AddOutRule, RemoveOutBindings. */
#include "explicit_test.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};
	return cmocka_run_group_tests_name("explicit", tests, NULL, NULL);
}
