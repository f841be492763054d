/* test_rewrite.c — the rewrite framework (rewrite.c) that the lowering and the explicit
 * form share: the runner's preamble (which form a rule gets, when it is skipped, the
 * control part it refuses to overwrite), `after`, the error count, the node builders'
 * origin and place, and the two rule tables.
 *
 * The rules under test are this file's own, recording what the runner handed them, run
 * on checked scripts over the test FMU integrator.fmu (input u, output x).  Run from the
 * repository root with SACC_BUILD naming the build directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sacc_test.h"

#include "explicit.h"
#include "lower.h"
#include "rewrite.h"

#define HEAD "semantic adaptation reactive moore sa\nat \"sa.fmu\"\n"
#define INTEG "\tfor inner fmu Integrator integ\n\t\tat \"integrator.fmu\"\n"

/* ---- recording rules -------------------------------------------------------------------- */

typedef struct Seen {
	int calls;
	const char *rule;
	Node *form;
	Loc at;
} Seen;

static Seen seen[4];

static void record(int i, Rewrite *w)
{
	seen[i].calls++;
	seen[i].rule = w->rule;
	seen[i].form = w->form;
	seen[i].at = w->at;
}

static void rule_a(Rewrite *w) { record(0, w); }
static void rule_b(Rewrite *w) { record(1, w); }
static void rule_c(Rewrite *w) { record(2, w); }

static void rule_reporting(Rewrite *w)
{
	record(3, w);
	diag_error(w->c->diag, w->sa->loc, "%s: reported", w->rule);
	diag_error(w->c->diag, w->sa->loc, "%s: reported again", w->rule);
}

/* ---- fixture ------------------------------------------------------------------------------ */

typedef struct Fx {
	TestRun *t;
	SaInfo *info;
} Fx;

static int fx_setup(void **state)
{
	Fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	f->t = tr_new();
	memset(seen, 0, sizeof seen);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	Fx *f = *state;
	tr_free(f->t);
	free(f);
	return 0;
}

/* Loads and checks text; the adaptation's info. */
static SaInfo *checked(Fx *f, const char *text)
{
	Module *m = tr_load(f->t, "t.sa", text);
	if (!m || drv_check(f->t->c, m) != 0)
		fail_msg("%s", tr_diag(f->t));
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			return f->info = e->info;
	fail_msg("no adaptation");
	return NULL;
}

/* ---- the runner ------------------------------------------------------------------------------- */

static void runner__whole_rules__run_in_order_until_after(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG);
	const RwRule rules[] = {
		{.name = "A", .apply = rule_a},
		{.name = "B", .apply = rule_b},
		{.name = "C", .apply = rule_c},
		{.name = NULL},
	};
	assert_int_equal(rw_run(rules, f->t->c, info, "B"), 0);
	assert_int_equal(seen[0].calls, 1);
	assert_int_equal(seen[1].calls, 1);
	assert_int_equal(seen[2].calls, 0);
	assert_string_equal(seen[1].rule, "B");
	assert_null(seen[1].form);
	assert_int_equal(seen[1].at.line, 0); /* no form: no place until the rule sets one */
	assert_int_equal(rw_run(rules, f->t->c, info, NULL), 0);
	assert_int_equal(seen[2].calls, 1);
}

static void runner__rule_reports__errors_counted(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG);
	const RwRule rules[] = {
		{.name = "A", .apply = rule_a},
		{.name = "Loud", .apply = rule_reporting},
		{.name = NULL},
	};
	assert_int_equal(rw_run(rules, f->t->c, info, NULL), 2);
	assert_non_null(strstr(tr_diag(f->t), "error: Loud: reported again"));
}

static void runner__general_form__found_or_rule_skipped(void **state)
{
	Fx *f = *state;
	const RwRule rules[] = {
		{"Rate", rule_a, RW_GENERAL_FORM, ND_MULTIRATE, "multiply rate"},
		{"Subst", rule_b, RW_GENERAL_FORM, ND_SUBST, "successive substitution"},
		{.name = NULL},
	};
	SaInfo *info = checked(f, HEAD INTEG "multiply rate 3 times\n");
	assert_int_equal(rw_run(rules, f->t->c, info, NULL), 0);
	assert_int_equal(seen[0].calls, 1);
	assert_non_null(seen[0].form);
	assert_int_equal(seen[0].form->kind, ND_MULTIRATE);
	assert_int_equal(seen[0].at.line, 5); /* the form's line */
	assert_int_equal(seen[0].at.col, seen[0].form->loc.col);
	assert_int_equal(seen[1].calls, 0); /* no successive substitution */
}

static void runner__general_form_over_own_control_rules__refused(void **state)
{
	Fx *f = *state;
	const RwRule rules[] = {
		{"Rate", rule_a, RW_GENERAL_FORM, ND_MULTIRATE, "multiply rate"},
		{.name = NULL},
	};
	SaInfo *info = checked(f, HEAD INTEG "multiply rate 3 times\n"
			       "control rules {\n\tdo_step(integ, t, H);\n\treturn H;\n}\n");
	assert_int_equal(rw_run(rules, f->t->c, info, NULL), 1);
	assert_int_equal(seen[0].calls, 0);
	assert_non_null(strstr(tr_diag(f->t), "t.sa:5:1: error: Rate: 'multiply rate' "
			       "generates the control rules, and this adaptation has its own"));
	assert_non_null(strstr(tr_diag(f->t), "t.sa:6:1: note: the control rules are here"));
}

static void runner__control_form__only_its_kind(void **state)
{
	Fx *f = *state;
	const RwRule rules[] = {
		{"Periodic", rule_a, RW_CONTROL_FORM, ND_CTRL_PERIODIC, NULL},
		{"Triggered", rule_b, RW_CONTROL_FORM, ND_CTRL_TRIGGERED, NULL},
		{.name = NULL},
	};
	SaInfo *info = checked(f, HEAD INTEG "input ports Real level\ntriggered by sa.level > 0.5\n");
	assert_int_equal(rw_run(rules, f->t->c, info, NULL), 0);
	assert_int_equal(seen[0].calls, 0);
	assert_int_equal(seen[1].calls, 1);
	assert_ptr_equal(seen[1].form, info->sa->a_ctrl);
	assert_int_equal(seen[1].at.line, 6);
}

static void rw_apply__one_rule__with_its_preamble(void **state)
{
	Fx *f = *state;
	const RwRule rate = {"Rate", rule_a, RW_GENERAL_FORM, ND_MULTIRATE, "multiply rate"};
	SaInfo *info = checked(f, HEAD INTEG);
	rw_apply(&rate, f->t->c, info);
	assert_int_equal(seen[0].calls, 0); /* no form */
	const RwRule whole = {.name = "Whole", .apply = rule_c};
	rw_apply(&whole, f->t->c, info);
	assert_int_equal(seen[2].calls, 1);
	assert_string_equal(seen[2].rule, "Whole");
}

/* ---- builders ----------------------------------------------------------------------------------- */

static void builders__new_nodes__carry_the_rule_and_the_place(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG "input ports Real level\n");
	Rewrite w = {f->t->c, info, info->sa, "Builder", {0}, NULL, false, NULL};
	w.at = info->sa->a_inports->loc;
	Node *level = info->sa->a_inports;
	Node *as = rw_assign(&w, rw_port(&w, "integ", "u", NULL, SYM_INNER_IN),
			     rw_binary(&w, OP_ADD, rw_ref(&w, level, SYM_INPORT), rw_real(&w, 1.0)));
	const Node *nodes[] = {as, as->lhs, as->rhs, as->rhs->lhs, as->rhs->rhs};
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		assert_string_equal(nodes[i]->origin, "Builder");
		assert_int_equal(nodes[i]->loc.line, level->loc.line);
		assert_int_equal(nodes[i]->loc.col, level->loc.col);
	}
	/* a name resolves as the checker would have resolved it */
	assert_ptr_equal(as->rhs->lhs->decl, level);
	assert_int_equal(as->rhs->lhs->sym, SYM_INPORT);
	assert_int_equal(as->rhs->lhs->type, TY_REAL);
	assert_string_equal(as->rhs->lhs->name, "level");
}

static void builders__converted__constants_at_the_value_and_written_as_by_hand(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG "input ports Real level\n");
	Rewrite w = {f->t->c, info, info->sa, "Builder", {0}, NULL, false, NULL};
	Node *level = info->sa->a_inports;
	w.at = level->loc;
	Node *x = rw_ref(&w, level, SYM_INPORT);
	w.at = info->sa->loc; /* elsewhere: the conversion stays at x */
	Node *same = rw_converted(&w, x, 1, 0);
	assert_ptr_equal(same, x);
	Node *e = rw_converted(&w, x, 2.5, -3);
	assert_int_equal(e->kind, ND_BINARY);
	assert_int_equal(e->op, OP_SUB); /* a negative offset subtracted */
	assert_int_equal(e->loc.line, level->loc.line);
	assert_int_equal(e->rhs->kind, ND_REAL);
	assert_true(e->rhs->rval == 3.0);
	assert_int_equal(e->lhs->op, OP_MUL);
	assert_true(e->lhs->lhs->rval == 2.5);
	assert_int_equal(e->lhs->lhs->loc.line, level->loc.line);
	assert_int_equal(w.at.line, info->sa->loc.line); /* the rule's place restored */
}

static void inner_input_fed__binding_or_assignment__fed(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG);
	Rewrite w = {f->t->c, info, info->sa, "Q", {0}, NULL, false, NULL};
	Inner *in = info->inners[0];
	InnerPort *u = sema_inner_port(in, "u");
	assert_non_null(u);
	assert_false(rw_inner_input_fed(&w, in, u));

	tr_free(f->t);
	f->t = tr_new();
	info = checked(f, HEAD INTEG "input ports Real v -> integ.u\n");
	w = (Rewrite){f->t->c, info, info->sa, "Q", {0}, NULL, false, NULL};
	assert_true(rw_inner_input_fed(&w, info->inners[0], sema_inner_port(info->inners[0], "u")));

	tr_free(f->t);
	f->t = tr_new();
	info = checked(f, HEAD INTEG "input ports Real v\n"
		       "in rules {\n\ttrue -> { } --> { if (v > 0.0) { integ.u := v; } };\n}\n");
	w = (Rewrite){f->t->c, info, info->sa, "Q", {0}, NULL, false, NULL};
	assert_true(rw_inner_input_fed(&w, info->inners[0], sema_inner_port(info->inners[0], "u")));
}

/* ---- rw_lookup ---------------------------------------------------------------------------- */

/* Asks rw_lookup what rw_find_decl answers, before and after a declaration is added; run
 * through rw_apply, which frees the table. */
static void rule_looking_up(Rewrite *w)
{
	const char *names[] = {"level", "y", "K", "integ", "absent"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int sym = -1, want = -2;
		Node *d = rw_lookup(w, names[i], &sym);
		assert_ptr_equal(d, rw_find_decl(w->sa, names[i], &want));
		if (d)
			assert_int_equal(sym, want);
	}
	assert_null(rw_lookup(w, "absent", NULL));
	/* a declaration added after the table was made is found through it */
	Node *d = rw_decl(w, "INIT_LEVEL", TY_REAL, rw_real(w, 0.0), DECL_PARAM);
	AstTail params = ast_tail(&w->sa->a_params);
	ast_tail_append(&params, d);
	rw_declared(w, d, SYM_PARAM);
	int sym = -1;
	assert_ptr_equal(rw_lookup(w, "INIT_LEVEL", &sym), d);
	assert_int_equal(sym, SYM_PARAM);
	assert_ptr_equal(ast_last(w->sa->a_params), d);
	/* one that takes a name declared already leaves the first found, as the lists do */
	Node *again = rw_decl(w, "level", TY_REAL, NULL, DECL_IN);
	rw_declared(w, again, SYM_IN_VAR);
	assert_ptr_equal(rw_lookup(w, "level", &sym), w->sa->a_inports);
	assert_int_equal(sym, SYM_INPORT);
	seen[0].calls++;
}

static void lookup__table__answers_as_the_lists(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG "input ports Real level\n"
				"output ports Real y <- integ.x\nparam K := 2.0;\n");
	const RwRule rule = {.name = "Lookup", .apply = rule_looking_up};
	rw_apply(&rule, f->t->c, info);
	assert_int_equal(seen[0].calls, 1);
}

/* ---- AstTail ---------------------------------------------------------------------------- */

static void ast_tail__appends__in_order_after_what_was_there(void **state)
{
	Fx *f = *state;
	SaInfo *info = checked(f, HEAD INTEG "input ports Real a, b\n");
	Rewrite w = {f->t->c, info, info->sa, "Q", {0}, NULL, false, NULL};
	Node *empty = NULL;
	AstTail t = ast_tail(&empty);
	assert_null(t.last);
	ast_tail_append(&t, NULL); /* nothing appended */
	assert_null(empty);
	Node *one = rw_real(&w, 1.0), *two = rw_real(&w, 2.0), *three = rw_real(&w, 3.0);
	ast_tail_append(&t, one);
	assert_ptr_equal(empty, one);
	two->next = three; /* a chain appended whole, its end the new end */
	ast_tail_append(&t, two);
	assert_ptr_equal(t.last, three);
	assert_int_equal(ast_count(empty), 3);
	AstTail ports = ast_tail(&info->sa->a_inports);
	assert_string_equal(ports.last->name, "b");
	Node *c = rw_real(&w, 4.0);
	ast_tail_append(&ports, c);
	assert_ptr_equal(info->sa->a_inports->next->next, c);
}

/* ---- the two tables ------------------------------------------------------------------------------ */

static void tables__lowering_and_explicit__names_distinct_and_found(void **state)
{
	(void)state;
	int nl = 0, nr = 0;
	for (const RwRule *l = lw_rules; l->name; l++, nl++) {
		assert_null(rw_rule_named(rw_rules, l->name));
		assert_ptr_equal(rw_rule_named(lw_rules, l->name), l);
		assert_true(rw_is_rule(l->name));
	}
	for (const RwRule *r = rw_rules; r->name; r++, nr++)
		assert_true(rw_is_rule(r->name));
	assert_int_equal(nl, 12);
	assert_int_equal(nr, 13);
	assert_true(rw_is_rule(LW_STAGE));
	assert_null(rw_rule_named(lw_rules, "multiplyrate"));
	assert_false(rw_is_rule("Nothing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(runner__whole_rules__run_in_order_until_after,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(runner__rule_reports__errors_counted,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(runner__general_form__found_or_rule_skipped,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(runner__general_form_over_own_control_rules__refused,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(runner__control_form__only_its_kind,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(rw_apply__one_rule__with_its_preamble,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(builders__new_nodes__carry_the_rule_and_the_place,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			builders__converted__constants_at_the_value_and_written_as_by_hand,
			fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(inner_input_fed__binding_or_assignment__fed,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(lookup__table__answers_as_the_lists,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(ast_tail__appends__in_order_after_what_was_there,
						fx_setup, fx_teardown),
		cmocka_unit_test(tables__lowering_and_explicit__names_distinct_and_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
