/* test_parse_scripts.c — the parser on whole scripts: the language description's example
 * and the original adaptation scripts of the power-window case, alone and in one file. */
#include "parse_test.h"

/* ---- whole scripts ---------------------------------------------------------------------- */

/* docs/language.md, section 17's example, as printed there. */
static const char torque_sensor[] =
	"semantic adaptation reactive moore sensor_sa\n"
	"at \"./SensorSA.fmu\"\n"
	"\tfor inner fmu TorqueSensor sensor\n"
	"\t\tat \"./TorqueSensor.fmu\"\n"
	"\t\twith input ports Real shaft_angle (rad)\n"
	"\t\twith output ports Real torque (N.mm)\n"
	"\n"
	"input ports Real angle (deg) -> sensor.shaft_angle\n"
	"output ports Real torque (N.m) <- sensor.torque, Real reaction\n"
	"\n"
	"param RATE := 4;\n"
	"\n"
	"control rules {\n"
	"\tvar inner_t := t;\n"
	"\tfor (var k in 0 .. RATE) {\n"
	"\t\tdo_step(sensor, inner_t, H / RATE);\n"
	"\t\tinner_t := inner_t + H / RATE;\n"
	"\t}\n"
	"\treturn H;\n"
	"}\n"
	"\n"
	"out rules {\n"
	"\ttrue -> { } --> { sensor_sa.reaction := -0.001 * sensor.torque; };\n"
	"}\n";

static void parse__spec_torque_sensor_example__parses_unchanged(void **state)
{
	(void)state;
	Parsed *p = parse_ok(torque_sensor);
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(p->root->list2), 1);
	assert_string_equal(sa->name, "sensor_sa");
	assert_int_equal(sa->flags, KIND_REACTIVE | KIND_MOORE);
	assert_string_equal(sa->str, "./SensorSA.fmu");
	Node *in = sa->a_inners;
	assert_string_equal(in->tname, "TorqueSensor");
	assert_string_equal(in->name, "sensor");
	assert_string_equal(in->str, "./TorqueSensor.fmu");
	assert_string_equal(in->list1->unit->str, "rad");
	assert_string_equal(in->list2->unit->str, "N.mm");
	assert_string_equal(sa->a_inports->unit->str, "deg");
	assert_int_equal(sa->a_inports->bind_dir, BIND_TO);
	assert_int_equal(ast_count(sa->a_outports), 2);
	assert_int_equal(sa->a_outports->bind_dir, BIND_FROM);
	assert_null(nth(sa->a_outports, 1)->unit);
	assert_int_equal(ast_count(sa->a_params), 1);
	Node *body = sa->a_ctrl->body->list1;
	assert_int_equal(ast_count(body), 3);
	assert_int_equal(body->next->kind, ND_FOR);
	assert_int_equal(ast_count(body->next->then->list1), 2);
	Node *rule = sa->a_out_rules->list3;
	assert_int_equal(ast_count(rule), 1);
	char *e = sx_str(rule->els->list1->rhs);
	assert_string_equal(e, "(* (neg 0.001) sensor.torque)");
	free(e);
	parsed_free(p);
}

/* Scripts in the syntax of the original baseSA tool: two-name headers, untyped ports with
 * units, `with a.p -> b.q` couplings, `in var` after the control rules.  Written for these
 * tests; the power-window case study's shape. */
static const char orig_window[] =
	"semantic adaptation reactive mealy WindowAdapt window_adapt\n"
	"at \"./out/WindowAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu PowerWindow pw\n"
	"\t\tat \"./fmus/PowerWindow.fmu\"\n"
	"\t\twith input ports displacement (rad), speed (rad/s), reaction_force (N)\n"
	"\t\twith output ports height (cm), reaction_torque (N.m)\n"
	"\n"
	"output ports disp (m)  <- pw.height, tau\n"
	"\n"
	"out rules {\n"
	"\ttrue -> {} --> {\n"
	"\t\twindow_adapt.tau := - pw.reaction_torque;\n"
	"\t};\n"
	"}\n";

static const char orig_loop[] =
	"semantic adaptation reactive moore LoopAdapt loop_adapt\n"
	"at \"./out/LoopAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu WindowAdapt win\n"
	"\t\tat \"./out/WindowAdapt.fmu\"\n"
	"\t\twith input ports displacement (rad), speed (rad/s), reaction_force (N)\n"
	"\t\twith output ports disp (m), tau (N.m)\n"
	"\n"
	"\tfor inner fmu Obstacle obst\n"
	"\t\tat \"./fmus/Obstacle.fmu\"\n"
	"\t\twith input ports disp (m)\n"
	"\t\twith output ports reaction_force (N)\n"
	"\n"
	"\twith win.disp -> obst.disp\n"
	"\twith obst.reaction_force -> win.reaction_force\n"
	"\n"
	"output ports tau <- win.tau\n"
	"\n"
	"param MAX_ITER := 20, RTOL := 0.0001, ATOL := 1e-8;\n"
	"\n"
	"control var last_disp := 0;\n"
	"control rules {\n"
	"\tvar done := false;\n"
	"\tfor (var k in 0 .. MAX_ITER) {\n"
	"\t\tsave_state(obst);\n"
	"\t\tsave_state(win);\n"
	"\t\tobst.disp := last_disp;\n"
	"\t\tdo_step(obst,t,H);\n"
	"\t\tdo_step(win,t,H);\n"
	"\n"
	"\t\tdone := is_close(last_disp, win.disp, RTOL, ATOL);\n"
	"\t\tlast_disp := win.disp;\n"
	"\t\tif (done) {\n"
	"\t\t\tbreak;\n"
	"\t\t} else {\n"
	"\t\t\trollback(obst);\n"
	"\t\t\trollback(win);\n"
	"\t\t}\n"
	"\t}\n"
	"\treturn H;\n"
	"}\n";

static const char orig_rate[] =
	"semantic adaptation reactive moore RateAdapt rate_adapt\n"
	"at \"./out/RateAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu LoopAdapt inner_loop\n"
	"\t\tat \"./out/LoopAdapt.fmu\"\n"
	"\t\twith input ports displacement (rad), speed (rad/s)\n"
	"\t\twith output ports tau (N.m)\n"
	"\n"
	"input ports displacement (rad) -> inner_loop.displacement,\n"
	"\tspeed (rad/s)\n"
	"output ports tau <- inner_loop.tau\n"
	"\n"
	"param STEPS := 8;\n"
	"\n"
	"control rules {\n"
	"\tvar local_t := t, micro := H/STEPS;\n"
	"\tfor (var n in 0 .. STEPS) {\n"
	"\t\tdo_step(inner_loop, local_t, micro);\n"
	"\t\tlocal_t := local_t + micro;\n"
	"\t}\n"
	"\tbefore_speed := now_speed;\n"
	"\treturn H;\n"
	"}\n"
	"\n"
	"in var now_speed := 0, before_speed := 0;\n"
	"in rules {\n"
	"\ttrue -> {\n"
	"\t\tnow_speed := rate_adapt.speed;\n"
	"\t} --> {\n"
	"\t\tinner_loop.speed := before_speed + (now_speed - before_speed)*(dt + h)/H;\n"
	"\t};\n"
	"}\n";

static const char orig_lazy[] =
	"semantic adaptation reactive moore LazyAdapt lazy_adapt\n"
	"at \"./out/LazyAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu Controller ctrl\n"
	"\t\tat \"./fmus/Controller.fmu\"\n"
	"\t\twith input ports obj_detected, passenger_up, passenger_down, driver_up, driver_down\n"
	"\t\twith output ports up, down, stop\n"
	"\n"
	"input ports obj_detected -> ctrl.obj_detected,\n"
	"\tpassenger_up -> ctrl.passenger_up,\n"
	"\tpassenger_down -> ctrl.passenger_down,\n"
	"\tdriver_up -> ctrl.driver_up,\n"
	"\tdriver_down -> ctrl.driver_down\n"
	"\n"
	"output ports up <- ctrl.up, down <- ctrl.down, stop <- ctrl.stop\n"
	"\n"
	"control var next_due := 0,\n"
	"\tlast_t := 0,\n"
	"\tseen_obj := false,\n"
	"\tseen_up := false;\n"
	"control rules {\n"
	"\tvar step := H;\n"
	"\tif (lazy_adapt.obj_detected != seen_obj or\n"
	"\t\t\tlazy_adapt.passenger_up != seen_up or\n"
	"\t\t\t(t + H) >= next_due) {\n"
	"\t\tvar taken := do_step(ctrl, last_t, t + H - last_t);\n"
	"\t\tnext_due := last_t + taken + get_next_time_step(ctrl);\n"
	"\t\tstep := last_t + taken - t;\n"
	"\t\tlast_t := last_t + taken;\n"
	"\t}\n"
	"\tseen_obj := lazy_adapt.obj_detected;\n"
	"\tseen_up := lazy_adapt.passenger_up;\n"
	"\treturn step;\n"
	"}\n";

static const char orig_threshold[] =
	"semantic adaptation reactive moore ControllerAdapt ctrl_adapt\n"
	"at \"./out/ControllerAdapt.fmu\"\n"
	"\n"
	"\tfor inner fmu LazyAdapt lazy\n"
	"\t\tat \"./out/LazyAdapt.fmu\"\n"
	"\t\twith input ports obj_detected, passenger_up, driver_up\n"
	"\t\twith output ports up, down, stop\n"
	"\n"
	"input ports armature_current,\n"
	"\tpassenger_up -> lazy.passenger_up,\n"
	"\tdriver_up -> lazy.driver_up\n"
	"\n"
	"output ports u, d\n"
	"\n"
	"param REL := 0.0001, ABS := 1e-8, LIMIT := 5, START := 0;\n"
	"\n"
	"control var hit := false,\n"
	"\tbefore := START;\n"
	"control rules {\n"
	"\tvar h_taken := H;\n"
	"\tvar passed := false;\n"
	"\thit := false;\n"
	"\tif ((not is_close(before, LIMIT, REL, ABS)) and before < LIMIT\n"
	"\t\tand (not is_close(after, LIMIT, REL, ABS)) and after > LIMIT) {\n"
	"\t\tpassed := true;\n"
	"\t\tvar lo := before - LIMIT;\n"
	"\t\tvar hi := after - LIMIT;\n"
	"\t\th_taken := H * (-lo / (hi - lo));\n"
	"\t} else {\n"
	"\t\tif ((not is_close(before, LIMIT, REL, ABS)) and before < LIMIT\n"
	"\t\t\tand is_close(after, LIMIT, REL, ABS)) {\n"
	"\t\t\thit := true;\n"
	"\t\t}\n"
	"\t}\n"
	"\tif (not passed) {\n"
	"\t\th_taken := do_step(lazy, t, H);\n"
	"\t}\n"
	"\tif (is_close(h_taken, H, REL, ABS)) {\n"
	"\t\tbefore := after;\n"
	"\t}\n"
	"\treturn h_taken;\n"
	"}\n"
	"\n"
	"in var after := START;\n"
	"in rules {\n"
	"\ttrue -> {\n"
	"\t\tafter := ctrl_adapt.armature_current;\n"
	"\t} --> {\n"
	"\t\tlazy.obj_detected := hit;\n"
	"\t};\n"
	"}\n"
	"\n"
	"out rules {\n"
	"\tlazy.up -> {} --> {ctrl_adapt.u := 1;};\n"
	"\tnot lazy.up -> {} --> {ctrl_adapt.u := 0;};\n"
	"\n"
	"\tlazy.down -> {} --> {ctrl_adapt.d := 1;};\n"
	"\tnot lazy.down -> {} --> {ctrl_adapt.d := 0;};\n"
	"\n"
	"\tlazy.stop -> {} --> {ctrl_adapt.u := 0; ctrl_adapt.d := 0; };\n"
	"}\n";

/* Parses an original-style script through the driver (as `sacc check --syntax` would):
 * no error, one warning, the two-name header's. */
static Node *load_original(TestRun *t, const char *name, const char *text)
{
	Module *m = tr_load(t, name, text);
	assert_non_null(m);
	if (!m->root || diag_errors(t->c->diag) != 0)
		fail_msg("%s did not parse:\n%s", name, tr_diag(t));
	assert_int_equal(diag_warnings(t->c->diag), 1);
	assert_non_null(strstr(tr_diag(t), "warning: adaptation header names a type and an "
					   "instance"));
	/* And its print reads back as itself. */
	free(round_trip(m->root, 0));
	return m->root->list2;
}

static void parse__original_window_script__parses_without_error(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_window.sa", orig_window);
	assert_string_equal(sa->tname, "WindowAdapt");
	assert_string_equal(sa->name, "window_adapt");
	assert_int_equal(sa->flags, KIND_REACTIVE | KIND_MEALY);
	Node *in = sa->a_inners;
	assert_int_equal(ast_count(in->list1), 3);
	assert_int_equal(in->list1->type, TY_NONE);
	assert_string_equal(in->list1->unit->str, "rad");
	assert_int_equal(ast_count(sa->a_outports), 2);
	assert_int_equal(sa->a_outports->bind_dir, BIND_FROM);
	assert_string_equal(sa->a_outports->unit->str, "m");
	assert_string_equal(nth(sa->a_outports, 1)->name, "tau");
	assert_null(nth(sa->a_outports, 1)->unit);
	char *e = sx_str(sa->a_out_rules->list3->els->list1->rhs);
	assert_string_equal(e, "(neg pw.reaction_torque)");
	free(e);
	tr_free(t);
}

static void parse__original_loop_script__with_couplings_parse(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_loop.sa", orig_loop);
	assert_int_equal(ast_count(sa->a_inners), 2);
	assert_int_equal(ast_count(sa->a_couplings), 2);
	assert_string_equal(sa->a_couplings->lhs->owner, "win");
	assert_string_equal(sa->a_couplings->rhs->owner, "obst");
	assert_int_equal(ast_count(sa->a_params), 3);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 1);
	Node *loop = sa->a_ctrl->body->list1->next;
	assert_int_equal(loop->kind, ND_FOR);
	assert_int_equal(ast_count(loop->then->list1), 8);
	tr_free(t);
}

static void parse__original_rate_script__in_vars_after_control_parse(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_rate.sa", orig_rate);
	assert_int_equal(ast_count(sa->a_inports), 2);
	assert_int_equal(sa->a_inports->bind_dir, BIND_TO);
	assert_int_equal(nth(sa->a_inports, 1)->bind_dir, BIND_NONE);
	assert_int_equal(ast_count(sa->a_in_vars), 2);
	assert_non_null(sa->a_ctrl);
	char *e = sx_str(sa->a_in_rules->list3->els->list1->rhs);
	assert_string_equal(e, "(+ before_speed (/ (* (- now_speed before_speed) (+ #dt #h)) #H))");
	free(e);
	tr_free(t);
}

static void parse__original_lazy_script__parses_without_error(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_lazy.sa", orig_lazy);
	assert_int_equal(ast_count(sa->a_inports), 5);
	assert_int_equal(ast_count(sa->a_outports), 3);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 4);
	Node *ifs = sa->a_ctrl->body->list1->next;
	assert_int_equal(ifs->kind, ND_IF);
	assert_int_equal(ifs->cond->op, OP_OR);
	Node *taken = ifs->then->list1->list1;
	assert_int_equal(taken->init->op, BI_DO_STEP);
	tr_free(t);
}

static void parse__original_threshold_script__parses_without_error(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Node *sa = load_original(t, "orig_threshold.sa", orig_threshold);
	assert_int_equal(ast_count(sa->a_params), 4);
	assert_int_equal(ast_count(sa->a_ctrl_vars), 2);
	assert_int_equal(ast_count(sa->a_in_vars), 1);
	assert_int_equal(ast_count(sa->a_out_rules->list3), 5);
	Node *ifs = nth(sa->a_ctrl->body->list1, 3);
	assert_int_equal(ifs->kind, ND_IF);
	assert_int_equal(ifs->els->kind, ND_BLOCK);
	char *e = sx_str(nth(ifs->then->list1, 3)->rhs);
	assert_string_equal(e, "(* #H (/ (neg lo) (- hi lo)))");
	free(e);
	tr_free(t);
}

static void parse__several_original_scripts__in_one_file(void **state)
{
	(void)state;
	size_t n = strlen(orig_window) + strlen(orig_loop) + strlen(orig_rate) + 8;
	char *all = malloc(n);
	snprintf(all, n, "%s\n%s\n%s", orig_window, orig_loop, orig_rate);
	Parsed *p = parse_text(all);
	assert_non_null(p->root);
	assert_int_equal(ast_count(p->root->list2), 3);
	/* Each adaptation got its own couplings. */
	assert_null(p->root->list2->a_couplings);
	assert_int_equal(ast_count(p->root->list2->next->a_couplings), 2);
	assert_null(p->root->list2->next->next->a_couplings);
	free(round_trip(p->root, 0));
	parsed_free(p);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__spec_torque_sensor_example__parses_unchanged),
		cmocka_unit_test(parse__original_window_script__parses_without_error),
		cmocka_unit_test(parse__original_loop_script__with_couplings_parse),
		cmocka_unit_test(parse__original_rate_script__in_vars_after_control_parse),
		cmocka_unit_test(parse__original_lazy_script__parses_without_error),
		cmocka_unit_test(parse__original_threshold_script__parses_without_error),
		cmocka_unit_test(parse__several_original_scripts__in_one_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
