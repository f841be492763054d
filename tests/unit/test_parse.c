/* test_parse.c — the Lemon grammar (grammar/sa_grammar.y) with its glue (compiler/front/parse.c)
 * and the printer (ast_print_file in compiler/front/ast.c): the declarations.
 *
 * The file structure, adaptation headers and inner FMUs, ports, params and storage
 * variables are parsed and the tree checked field by field; every accepted text is then
 * printed, the print parsed again, and both the second print and the second tree must
 * equal the first (parse_ok).  Rules are in test_parse_rules.c, expressions in
 * test_parse_expr.c, whole scripts in test_parse_scripts.c, syntax errors and robustness
 * in test_parse_errors.c. */
#include "parse_test.h"

/* ---- file structure --------------------------------------------------------------------- */

static void parse__empty_file__gives_an_empty_file_node(void **state)
{
	(void)state;
	Parsed *p = parse_ok("");
	assert_int_equal(p->root->kind, ND_FILE);
	assert_string_equal(p->root->str, "t.sa");
	assert_null(p->root->name);
	assert_null(p->root->list1);
	assert_null(p->root->list2);
	assert_string_equal(p->printed, "");
	parsed_free(p);

	p = parse_ok("  // only a comment\n/* and another */\n");
	assert_null(p->root->list2);
	parsed_free(p);
}

static void parse__imports_and_module__fill_the_file_node(void **state)
{
	(void)state;
	Parsed *p = parse_ok("import window_sa\nimport ^rate\nmodule loop_sa\n");
	assert_int_equal(ast_count(p->root->list1), 2);
	assert_int_equal(p->root->list1->kind, ND_IMPORT);
	assert_string_equal(p->root->list1->name, "window_sa");
	assert_string_equal(nth(p->root->list1, 1)->name, "rate");
	assert_string_equal(p->root->name, "loop_sa");
	assert_int_equal(p->root->list1->loc.line, 1);
	assert_int_equal(p->root->list1->loc.col, 1);
	assert_int_equal(p->root->list1->loc.len, 16);
	assert_string_equal(p->printed, "import window_sa\nimport ^rate\nmodule loop_sa\n");
	parsed_free(p);

	/* Either may be left out. */
	p = parse_ok("module m");
	assert_string_equal(p->root->name, "m");
	assert_null(p->root->list1);
	parsed_free(p);
	p = parse_ok("import a");
	assert_null(p->root->name);
	assert_int_equal(ast_count(p->root->list1), 1);
	parsed_free(p);
}

static void parse__fmu_declaration__type_instance_path_and_ports(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu Window window at \"fmus/window.fmu\"\n"
			     "\tinput ports Real displacement (rad), speed\n"
			     "\toutput ports Real height (cm)\n"
			     "fmu Obstacle obstacle at 'obstacle.fmu'\n");
	Node *f = p->root->list2;
	assert_int_equal(ast_count(f), 2);
	assert_int_equal(f->kind, ND_FMU_DECL);
	assert_string_equal(f->tname, "Window");
	assert_string_equal(f->name, "window");
	assert_string_equal(f->str, "fmus/window.fmu");
	assert_int_equal(f->loc.line, 1);
	assert_int_equal(f->loc.col, 12);
	assert_int_equal(ast_count(f->list1), 2);
	assert_int_equal(ast_count(f->list2), 1);
	assert_null(f->list3);
	assert_string_equal(f->list1->name, "displacement");
	assert_string_equal(f->list1->unit->str, "rad");
	assert_string_equal(nth(f->list1, 1)->name, "speed");
	assert_string_equal(f->list2->name, "height");
	Node *g = f->next;
	assert_string_equal(g->tname, "Obstacle");
	assert_string_equal(g->str, "obstacle.fmu");
	assert_null(g->list1);
	assert_null(g->list2);
	assert_string_equal(p->printed, "fmu Window window at \"fmus/window.fmu\"\n"
					"\tinput ports Real displacement (rad),\n"
					"\t\tspeed\n"
					"\toutput ports Real height (cm)\n"
					"\n"
					"fmu Obstacle obstacle at \"obstacle.fmu\"\n");
	parsed_free(p);
}

static void parse__fmu_composed_of__lists_the_parts(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu Plant plant at \"plant.fmu\" composed of motor, window, obstacle\n"
			     "\toutput ports Real tau\n");
	Node *f = p->root->list2;
	assert_int_equal(ast_count(f->list3), 3);
	assert_int_equal(f->list3->kind, ND_NAME);
	assert_string_equal(f->list3->name, "motor");
	assert_string_equal(nth(f->list3, 2)->name, "obstacle");
	assert_int_equal(ast_count(f->list2), 1);
	assert_string_equal(p->printed, "fmu Plant plant at \"plant.fmu\"\n"
					"\tcomposed of motor, window, obstacle\n"
					"\toutput ports Real tau\n");
	parsed_free(p);

	/* `of` is checked by spelling; anything else is an error at that word. */
	p = parse_bad("fmu Plant plant at \"plant.fmu\" composed off motor\n");
	assert_string_equal(p->diag, "t.sa:1:41: error: expected 'of' after 'composed'\n"
				     "     1 | fmu Plant plant at \"plant.fmu\" composed off motor\n"
				     "       |                                         ^~~\n");
	parsed_free(p);
}

static void parse__top_level_connections__with_and_without_owner(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu A a at \"a.fmu\"\n"
			     "a.y -> b.u\n"
			     "b.y->a.u\n"
			     "source -> a.v\n");
	Node *c = p->root->list2->next;
	assert_int_equal(ast_count(c), 3);
	assert_int_equal(c->kind, ND_CONNECTION);
	assert_int_equal(c->lhs->kind, ND_PORT_REF);
	assert_string_equal(c->lhs->owner, "a");
	assert_string_equal(c->lhs->name, "y");
	assert_string_equal(c->rhs->owner, "b");
	assert_string_equal(c->rhs->name, "u");
	assert_int_equal(c->loc.line, 2);
	assert_int_equal(c->loc.len, 10);
	Node *bare = nth(c, 2);
	assert_null(bare->lhs->owner);
	assert_string_equal(bare->lhs->name, "source");
	/* Consecutive connections print without a blank line between them. */
	assert_string_equal(p->printed, "fmu A a at \"a.fmu\"\n"
					"\n"
					"a.y -> b.u\n"
					"b.y -> a.u\n"
					"source -> a.v\n");
	parsed_free(p);
}

static void parse__several_elements__keep_their_order(void **state)
{
	(void)state;
	Parsed *p = parse_ok("module scenario\n"
			     "fmu A a at \"a.fmu\"\n"
			     HEAD
			     "a.y -> s.u\n"
			     "semantic adaptation t2 at \"t2.fmu\" for fmu a\n");
	Node *e = p->root->list2;
	assert_int_equal(ast_count(e), 4);
	assert_int_equal(e->kind, ND_FMU_DECL);
	assert_int_equal(nth(e, 1)->kind, ND_ADAPTATION);
	assert_int_equal(nth(e, 2)->kind, ND_CONNECTION);
	assert_int_equal(nth(e, 3)->kind, ND_ADAPTATION);
	assert_string_equal(nth(e, 3)->name, "t2");
	parsed_free(p);
}

/* ---- adaptation header and inner FMUs --------------------------------------------------- */

static void parse__adaptation_header__every_kind_combination(void **state)
{
	(void)state;
	static const struct {
		const char *word;
		int flag;
	} rd[] = {{"", 0}, {"reactive ", KIND_REACTIVE}, {"delayed ", KIND_DELAYED}},
	  mm[] = {{"", 0}, {"moore ", KIND_MOORE}, {"mealy ", KIND_MEALY}},
	  wm[] = {{"", 0}, {" without master", KIND_WITHOUT_MASTER}};
	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < 3; j++) {
			for (size_t k = 0; k < 2; k++) {
				char text[256];
				snprintf(text, sizeof text,
					 "semantic adaptation %s%sname_sa%s\nat \"./name.fmu\"\n\n"
					 "\tfor inner fmu W w\n",
					 rd[i].word, mm[j].word, wm[k].word);
				Parsed *p = parse_ok(text);
				Node *sa = first_adaptation(p);
				assert_int_equal(sa->flags, rd[i].flag | mm[j].flag | wm[k].flag);
				assert_string_equal(sa->name, "name_sa");
				assert_null(sa->tname);
				assert_string_equal(sa->str, "./name.fmu");
				/* The canonical layout is the one written here. */
				assert_string_equal(p->printed, text);
				parsed_free(p);
			}
		}
	}
}

static void parse__adaptation_header__fields_and_location(void **state)
{
	(void)state;
	Parsed *p = parse_ok("semantic adaptation reactive mealy window_sa\nat \"window_sa.fmu\"\n"
			     "\tfor inner fmu Window window\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(sa->kind, ND_ADAPTATION);
	assert_int_equal(sa->loc.line, 1);
	assert_int_equal(sa->loc.col, 36);
	assert_int_equal(sa->loc.len, 9);
	assert_int_equal(ast_count(sa->a_inners), 1);
	assert_null(sa->a_couplings);
	assert_null(sa->a_inports);
	assert_null(sa->a_outports);
	assert_null(sa->a_params);
	assert_null(sa->a_general);
	assert_null(sa->a_ctrl);
	assert_null(sa->a_ctrl_vars);
	assert_null(sa->a_in_rules);
	assert_null(sa->a_out_rules);
	parsed_free(p);
}

static void parse__older_two_name_header__warns_and_keeps_the_instance(void **state)
{
	(void)state;
	Parsed *p = parse_text("semantic adaptation reactive mealy WindowSA windowSA\n"
			       "at \"./WindowSA.fmu\"\n"
			       "\tfor inner fmu Window window\n");
	assert_non_null(p->root);
	assert_string_equal(p->diag,
			    "t.sa:1:36: warning: adaptation header names a type and an instance; "
			    "the type name 'WindowSA' is ignored and 'windowSA' names the adaptation\n"
			    "     1 | semantic adaptation reactive mealy WindowSA windowSA\n"
			    "       |                                    ^~~~~~~~~~~~~~~~~\n");
	Node *sa = first_adaptation(p);
	assert_string_equal(sa->tname, "WindowSA");
	assert_string_equal(sa->name, "windowSA");
	assert_int_equal(sa->flags, KIND_REACTIVE | KIND_MEALY);
	assert_int_equal(sa->loc.col, 45);
	/* Printed in the current form: one name, and no warning when read again. */
	char *printed = round_trip(p->root, 0);
	assert_string_equal(printed, "semantic adaptation reactive mealy windowSA\n"
				     "at \"./WindowSA.fmu\"\n"
				     "\n"
				     "\tfor inner fmu Window window\n");
	free(printed);
	parsed_free(p);

	/* Also with no kind and with `without master`. */
	p = parse_text("semantic adaptation T i without master at \"x.fmu\" for fmu a\n");
	assert_non_null(p->root);
	assert_non_null(strstr(p->diag, "warning: adaptation header names a type and an instance"));
	sa = first_adaptation(p);
	assert_string_equal(sa->name, "i");
	assert_int_equal(sa->flags, KIND_WITHOUT_MASTER);
	parsed_free(p);
}

static void parse__inner_fmu__kinds_path_and_port_lists(void **state)
{
	(void)state;
	static const char *const kinds[] = {"", "reactive ", "delayed ", "moore ", "mealy ",
					    "reactive moore ", "reactive mealy ", "delayed moore ",
					    "delayed mealy "};
	static const int flags[] = {0, KIND_REACTIVE, KIND_DELAYED, KIND_MOORE, KIND_MEALY,
				    KIND_REACTIVE | KIND_MOORE, KIND_REACTIVE | KIND_MEALY,
				    KIND_DELAYED | KIND_MOORE, KIND_DELAYED | KIND_MEALY};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char text[256];
		snprintf(text, sizeof text,
			 "semantic adaptation s\nat \"s.fmu\"\n\n\tfor inner fmu %sWindow window\n",
			 kinds[i]);
		Parsed *p = parse_ok(text);
		Node *in = first_adaptation(p)->a_inners;
		assert_int_equal(in->kind, ND_INNER);
		assert_int_equal(in->flags, flags[i]);
		assert_string_equal(in->tname, "Window");
		assert_string_equal(in->name, "window");
		assert_null(in->str);
		assert_null(in->list1);
		assert_null(in->list2);
		assert_string_equal(p->printed, text);
		parsed_free(p);
	}

	Parsed *p = parse_ok("semantic adaptation s at \"s.fmu\"\n"
			     "\tfor inner fmu Window window at \"w.fmu\"\n"
			     "\t\twith input ports Real displacement (rad), speed (rad/s), force\n"
			     "\t\twith output ports height (cm)\n"
			     "\tfor inner fmu delayed Obstacle obstacle\n"
			     "\t\twith output ports Real reaction_force (N)\n"
			     "\t\twith input ports disp\n");
	Node *w = first_adaptation(p)->a_inners;
	assert_int_equal(ast_count(w), 2);
	assert_string_equal(w->str, "w.fmu");
	assert_non_null(w->init);
	assert_int_equal(w->init->kind, ND_STRING);
	assert_int_equal(w->init->loc.line, 2);
	assert_int_equal(ast_count(w->list1), 3);
	assert_int_equal(ast_count(w->list2), 1);
	assert_string_equal(nth(w->list1, 2)->name, "force");
	Node *o = w->next;
	assert_int_equal(o->flags, KIND_DELAYED);
	assert_null(o->str);
	/* Output ports written first still land in list2. */
	assert_int_equal(ast_count(o->list1), 1);
	assert_string_equal(o->list1->name, "disp");
	assert_string_equal(o->list2->name, "reaction_force");
	assert_string_equal(p->printed,
			    "semantic adaptation s\nat \"s.fmu\"\n\n"
			    "\tfor inner fmu Window window\n"
			    "\t\tat \"w.fmu\"\n"
			    "\t\twith input ports Real displacement (rad),\n"
			    "\t\t\tspeed (rad/s),\n"
			    "\t\t\tforce\n"
			    "\t\twith output ports height (cm)\n"
			    "\n"
			    "\tfor inner fmu delayed Obstacle obstacle\n"
			    "\t\twith input ports disp\n"
			    "\t\twith output ports Real reaction_force (N)\n");
	parsed_free(p);
}

static void parse__inner_fmu__second_port_clause_of_a_kind_is_an_error(void **state)
{
	(void)state;
	Parsed *p = parse_bad(HEAD "\t\twith input ports a\n\t\twith input ports b\n");
	assert_string_equal(p->diag, "t.sa:4:8: error: inner fmu 'w' already has input ports\n"
				     "     4 | \t\twith input ports b\n"
				     "       | \t\t     ^~~~~\n");
	parsed_free(p);
}

/* `isolated` marks an inner only between `for` and `inner`; elsewhere it is a name. */
static void parse__isolated__a_word_before_inner_and_a_name_elsewhere(void **state)
{
	(void)state;
	Parsed *p = parse_ok("semantic adaptation s at \"s.fmu\"\n"
			     "\tfor isolated inner fmu mealy W isolated\n"
			     "\t\twith output ports isolated\n"
			     "\tfor inner fmu V v\n"
			     "input ports Real isolated -> isolated.u\n");
	Node *sa = first_adaptation(p);
	Node *iso = sa->a_inners;
	assert_int_equal(iso->flags, KIND_ISOLATED | KIND_MEALY);
	assert_string_equal(iso->name, "isolated");
	assert_string_equal(iso->list2->name, "isolated");
	assert_int_equal(iso->next->flags, 0);
	assert_string_equal(sa->a_inports->name, "isolated");
	assert_non_null(strstr(p->printed, "\tfor isolated inner fmu mealy W isolated\n"));
	assert_non_null(strstr(p->printed, "input ports Real isolated -> isolated.u\n"));
	parsed_free(p);

	p = parse_bad("semantic adaptation s at \"s.fmu\"\n\tfor isolate inner fmu W w\n");
	assert_string_equal(p->diag, "t.sa:2:6: error: expected 'inner' or 'isolated inner' after "
				     "'for'\n"
				     "     2 | \tfor isolate inner fmu W w\n"
				     "       | \t    ^~~~~~~\n");
	parsed_free(p);
}

static void parse__for_fmu__refers_to_fmus_declared_elsewhere(void **state)
{
	(void)state;
	Parsed *p = parse_ok("fmu A a at \"a.fmu\"\nfmu B b at \"b.fmu\"\n"
			     "semantic adaptation s at \"s.fmu\"\n"
			     "\tfor fmu a, b\n"
			     "\tfor inner fmu C c\n"
			     "\tfor fmu d\n");
	Node *in = first_adaptation(p)->a_inners;
	assert_int_equal(ast_count(in), 4);
	assert_int_equal(in->kind, ND_INNER_REF);
	assert_string_equal(in->name, "a");
	assert_int_equal(nth(in, 1)->kind, ND_INNER_REF);
	assert_string_equal(nth(in, 1)->name, "b");
	assert_int_equal(nth(in, 2)->kind, ND_INNER);
	assert_int_equal(nth(in, 3)->kind, ND_INNER_REF);
	assert_int_equal(nth(in, 1)->loc.col, 13);
	/* One `for fmu` a name in the print. */
	assert_non_null(strstr(p->printed, "\tfor fmu a\n\n\tfor fmu b\n\n\tfor inner fmu C c\n"));
	parsed_free(p);
}

static void parse__coupled_as__gives_the_connection_list(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "\tfor inner fmu O o\n"
			     "\tcoupled as w.y -> o.u, o.y -> w.u,\n\t\tw.z -> o.v\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_couplings), 3);
	Node *c = sa->a_couplings;
	assert_int_equal(c->kind, ND_CONNECTION);
	assert_string_equal(c->lhs->owner, "w");
	assert_string_equal(c->rhs->owner, "o");
	assert_string_equal(nth(c, 2)->lhs->name, "z");
	assert_non_null(strstr(p->printed, "\tcoupled as w.y -> o.u,\n\t\to.y -> w.u,\n\t\tw.z -> o.v\n"));
	parsed_free(p);
}

static void parse__older_with_couplings__become_the_adaptation_couplings(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "\t\twith input ports u\n"
			     "\tfor inner fmu O o\n"
			     "\t\twith output ports y\n"
			     "\twith o.y -> w.u\n"
			     "\twith w.y -> o.u\n"
			     "output ports r <- o.y\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_inners), 2);
	assert_int_equal(ast_count(sa->a_inners->list1), 1);
	assert_int_equal(ast_count(sa->a_inners->next->list2), 1);
	assert_int_equal(ast_count(sa->a_couplings), 2);
	assert_string_equal(sa->a_couplings->lhs->owner, "o");
	assert_string_equal(sa->a_couplings->next->lhs->owner, "w");
	assert_null(sa->a_general);
	assert_int_equal(ast_count(sa->a_outports), 1);
	/* Printed as `coupled as`. */
	assert_non_null(strstr(p->printed, "\tcoupled as o.y -> w.u,\n\t\tw.y -> o.u\n"));
	parsed_free(p);

	/* Mixed with `coupled as`, every coupling is kept. */
	p = parse_ok(HEAD "\twith w.y -> w.u\n\tcoupled as w.z -> w.v\n");
	assert_int_equal(ast_count(first_adaptation(p)->a_couplings), 2);
	parsed_free(p);
}

/* ---- ports ------------------------------------------------------------------------------ */

static void parse__ports__every_part_in_order(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD
			     "input ports Real a \"a.fmi[1]\" := 1.5 [3] (m/s) -> w.a,\n"
			     "\tInteger b := -2,\n"
			     "\tBool c := true,\n"
			     "\tString d := 'x',\n"
			     "\te_ := -0.25 (N),\n"
			     "\tf := [1, -2, 3.5] [1..3],\n"
			     "\tg [0..4] <- w.g,\n"
			     "\th_ -> other\n"
			     "output ports Real o (rad) <- w.o, plain, Bool flag := false\n");
	Node *sa = first_adaptation(p);
	assert_int_equal(ast_count(sa->a_inports), 8);
	assert_int_equal(ast_count(sa->a_outports), 3);

	Node *a = sa->a_inports;
	assert_int_equal(a->kind, ND_PORT);
	assert_int_equal(a->type, TY_REAL);
	assert_string_equal(a->name, "a");
	assert_string_equal(a->str, "a.fmi[1]");
	assert_int_equal(a->init->kind, ND_REAL);
	assert_true(a->init->rval == 1.5);
	assert_int_equal(a->mult_lo, 1);
	assert_int_equal(a->mult_hi, 3);
	assert_int_equal(a->unit->kind, ND_UNIT);
	assert_string_equal(a->unit->str, "m/s");
	assert_int_equal(a->bind_dir, BIND_TO);
	assert_int_equal(a->bind->kind, ND_PORT_REF);
	assert_string_equal(a->bind->owner, "w");
	assert_string_equal(a->bind->name, "a");

	Node *b = nth(sa->a_inports, 1);
	assert_int_equal(b->type, TY_INTEGER);
	assert_int_equal(b->init->kind, ND_INT);
	assert_int_equal(b->init->ival, -2);
	assert_null(b->str);
	assert_null(b->unit);
	assert_int_equal(b->bind_dir, BIND_NONE);
	assert_null(b->bind);
	assert_int_equal(b->mult_lo, -1);
	assert_int_equal(b->mult_hi, -1);

	Node *c = nth(sa->a_inports, 2);
	assert_int_equal(c->type, TY_BOOL);
	assert_int_equal(c->init->kind, ND_BOOL);
	assert_int_equal(c->init->ival, 1);
	Node *d = nth(sa->a_inports, 3);
	assert_int_equal(d->type, TY_STRING);
	assert_int_equal(d->init->kind, ND_STRING);
	assert_string_equal(d->init->str, "x");
	Node *e = nth(sa->a_inports, 4);
	assert_int_equal(e->type, TY_NONE);
	assert_true(e->init->rval == -0.25);
	assert_string_equal(e->init->str, "-0.25");
	Node *f = nth(sa->a_inports, 5);
	assert_int_equal(f->init->kind, ND_ARRAY);
	assert_int_equal(ast_count(f->init->list1), 3);
	assert_int_equal(f->init->list1->ival, 1);
	assert_int_equal(nth(f->init->list1, 1)->ival, -2);
	assert_int_equal(nth(f->init->list1, 2)->kind, ND_REAL);
	assert_int_equal(f->mult_lo, 1);
	assert_int_equal(f->mult_hi, 3);
	Node *g = nth(sa->a_inports, 6);
	assert_int_equal(g->mult_lo, 0);
	assert_int_equal(g->mult_hi, 4);
	assert_int_equal(g->bind_dir, BIND_FROM);
	Node *h = nth(sa->a_inports, 7);
	assert_int_equal(h->bind_dir, BIND_TO);
	assert_null(h->bind->owner);
	assert_string_equal(h->bind->name, "other");

	Node *o = sa->a_outports;
	assert_int_equal(o->bind_dir, BIND_FROM);
	assert_string_equal(o->bind->owner, "w");
	assert_string_equal(nth(sa->a_outports, 1)->name, "plain");
	assert_int_equal(nth(sa->a_outports, 1)->type, TY_NONE);
	assert_int_equal(nth(sa->a_outports, 2)->init->ival, 0);

	/* `[1..3]` is `[3]`: the print uses the short form. */
	assert_string_equal(p->printed,
			    "semantic adaptation s\nat \"s.fmu\"\n\n\tfor inner fmu W w\n\n"
			    "input ports Real a \"a.fmi[1]\" := 1.5 [3] (m/s) -> w.a,\n"
			    "\tInteger b := -2,\n"
			    "\tBool c := true,\n"
			    "\tString d := \"x\",\n"
			    "\te_ := -0.25 (N),\n"
			    "\tf := [1, -2, 3.5] [3],\n"
			    "\tg [0..4] <- w.g,\n"
			    "\th_ -> other\n"
			    "output ports Real o (rad) <- w.o,\n"
			    "\tplain,\n"
			    "\tBool flag := false\n");
	parsed_free(p);
}

static void parse__port_units__are_kept_without_blanks(void **state)
{
	(void)state;
	static const struct {
		const char *src, *str, *printed;
	} units[] = {
		{"rad/s", "rad/s", ""},
		{"N.m", "N.m", ""},
		{"N.mm", "N.mm", ""},
		{"m/s^2", "m/s^2", ""},
		{"s^-1", "s^-1", ""},
		{"1/s", "1/s", ""},
		{"kg.m^2/s^2", "kg.m^2/s^2", ""},
		{" m / s ", "m/s", "m/s"},
		{"kg . m", "kg.m", "kg.m"},
		{"m ^ -2", "m^-2", "m^-2"},
		{"degC", "degC", ""},
		{"cm", "cm", ""},
		{"1", "1", ""},
		/* Unit symbols that are reserved words: hour, tonne, henry, minute. */
		{"h", "h", ""},
		{"t", "t", ""},
		{"H", "H", ""},
		{"min", "min", ""},
		{"km/h", "km/h", ""},
		{"t.m/min^2", "t.m/min^2", ""},
		/* Any other reserved word needs the escape, and keeps it in the print. */
		{"^in", "in", "^in"},
		{"^rate/s", "rate/s", "^rate/s"},
		{"rad/^e", "rad/e", "rad/^e"},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, HEAD "input ports Real x (%s)\n", units[i].src);
		Parsed *p = parse_ok(text);
		Node *port = first_adaptation(p)->a_inports;
		assert_non_null(port->unit);
		assert_string_equal(port->unit->str, units[i].str);
		char want[128];
		snprintf(want, sizeof want, "input ports Real x (%s)\n",
			 *units[i].printed ? units[i].printed : units[i].src);
		if (!strstr(p->printed, want))
			fail_msg("unit '%s' printed as\n%s", units[i].src, p->printed);
		parsed_free(p);
	}

	/* The location covers the text between the parentheses. */
	Parsed *p = parse_ok(HEAD "input ports speed (rad/s)\n");
	Node *u = first_adaptation(p)->a_inports->unit;
	assert_int_equal(u->loc.line, 3);
	assert_int_equal(u->loc.col, 20);
	assert_int_equal(u->loc.len, 5);
	parsed_free(p);

	/* Any other reserved word is rejected.  (No note suggests the escape for the
	 * structural words, module .. otherwise: where one of them stands, a missing name
	 * is the likelier mistake.) */
	p = parse_bad(HEAD "input ports x (in)\n");
	assert_string_equal(p->diag,
			    "t.sa:3:16: error: syntax error: unexpected 'in'; expected identifier, "
			    "integer, 'H', 'h', 't' or 'min'\n"
			    "     3 | input ports x (in)\n"
			    "       |                ^~\n");
	parsed_free(p);
	p = parse_bad(HEAD "input ports x (rate)\n");
	assert_non_null(strstr(p->diag, "t.sa:3:16: note: 'rate' is a reserved word; write '^rate' "
					"to use it as a name\n"));
	parsed_free(p);
}

/* ---- params and variables --------------------------------------------------------------- */

static void parse__params__comma_lists_with_optional_types(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD "param MAXITER := 10, Real REL_TOL := 1e-05, ABS := -1;\n"
			     "param Integer N := 2 * 3, Bool ON := true, String NAME := \"n\";\n");
	Node *pa = first_adaptation(p)->a_params;
	assert_int_equal(ast_count(pa), 6);
	for (Node *v = pa; v; v = v->next) {
		assert_int_equal(v->kind, ND_VARDECL);
		assert_int_equal(v->op, DECL_PARAM);
		assert_non_null(v->init);
	}
	assert_string_equal(pa->name, "MAXITER");
	assert_int_equal(pa->type, TY_NONE);
	assert_int_equal(pa->init->ival, 10);
	assert_int_equal(nth(pa, 1)->type, TY_REAL);
	assert_string_equal(nth(pa, 1)->init->str, "1e-05");
	char *neg = sx_str(nth(pa, 2)->init);
	assert_string_equal(neg, "(neg 1)");
	free(neg);
	assert_int_equal(nth(pa, 3)->type, TY_INTEGER);
	assert_int_equal(nth(pa, 3)->init->kind, ND_BINARY);
	assert_int_equal(nth(pa, 4)->type, TY_BOOL);
	assert_int_equal(nth(pa, 5)->type, TY_STRING);
	/* One declaration a line in the print. */
	assert_non_null(strstr(p->printed, "\nparam MAXITER := 10;\n"
					   "param Real REL_TOL := 1e-05;\n"
					   "param ABS := -1;\n"
					   "param Integer N := 2 * 3;\n"
					   "param Bool ON := true;\n"
					   "param String NAME := \"n\";\n"));
	parsed_free(p);
}

static void parse__storage_variables__control_in_and_out(void **state)
{
	(void)state;
	Parsed *p = parse_ok(HEAD
			     "control var c1 := 0.0, Integer c2;\n"
			     "control var Bool c3 := false;\n"
			     "control rules { return H; }\n"
			     "in var i1 := 1, i2;\n"
			     "in var Real i3 := 2.5;\n"
			     "in rules { }\n"
			     "out var o1 := i1 + 1;\n"
			     "out rules { }\n");
	Node *sa = first_adaptation(p);
	static const struct {
		const char *name;
		int type;
		int has_init;
	} cv[] = {{"c1", TY_NONE, 1}, {"c2", TY_INTEGER, 0}, {"c3", TY_BOOL, 1}},
	  iv[] = {{"i1", TY_NONE, 1}, {"i2", TY_NONE, 0}, {"i3", TY_REAL, 1}};
	assert_int_equal(ast_count(sa->a_ctrl_vars), 3);
	assert_int_equal(ast_count(sa->a_in_vars), 3);
	assert_int_equal(ast_count(sa->a_out_vars), 1);
	for (int i = 0; i < 3; i++) {
		Node *c = nth(sa->a_ctrl_vars, i), *v = nth(sa->a_in_vars, i);
		assert_int_equal(c->kind, ND_VARDECL);
		assert_int_equal(c->op, DECL_CONTROL);
		assert_string_equal(c->name, cv[i].name);
		assert_int_equal(c->type, cv[i].type);
		assert_int_equal(c->init != NULL, cv[i].has_init);
		assert_int_equal(v->op, DECL_IN);
		assert_string_equal(v->name, iv[i].name);
		assert_int_equal(v->type, iv[i].type);
		assert_int_equal(v->init != NULL, iv[i].has_init);
	}
	assert_int_equal(sa->a_out_vars->op, DECL_OUT);
	assert_int_equal(sa->a_in_rules->op, 'i');
	assert_int_equal(sa->a_out_rules->op, 'o');
	assert_null(sa->a_in_rules->list3);
	assert_non_null(strstr(p->printed, "\ncontrol var c1 := 0.0;\ncontrol var Integer c2;\n"
					   "control var Bool c3 := false;\ncontrol rules {\n"));
	assert_non_null(strstr(p->printed, "\nin var i1 := 1;\nin var i2;\nin var Real i3 := 2.5;\n"
					   "in rules {\n}\n"));
	assert_non_null(strstr(p->printed, "\nout var o1 := i1 + 1;\nout rules {\n}\n"));
	parsed_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__empty_file__gives_an_empty_file_node),
		cmocka_unit_test(parse__imports_and_module__fill_the_file_node),
		cmocka_unit_test(parse__fmu_declaration__type_instance_path_and_ports),
		cmocka_unit_test(parse__fmu_composed_of__lists_the_parts),
		cmocka_unit_test(parse__top_level_connections__with_and_without_owner),
		cmocka_unit_test(parse__several_elements__keep_their_order),
		cmocka_unit_test(parse__adaptation_header__every_kind_combination),
		cmocka_unit_test(parse__adaptation_header__fields_and_location),
		cmocka_unit_test(parse__older_two_name_header__warns_and_keeps_the_instance),
		cmocka_unit_test(parse__inner_fmu__kinds_path_and_port_lists),
		cmocka_unit_test(parse__inner_fmu__second_port_clause_of_a_kind_is_an_error),
		cmocka_unit_test(parse__isolated__a_word_before_inner_and_a_name_elsewhere),
		cmocka_unit_test(parse__for_fmu__refers_to_fmus_declared_elsewhere),
		cmocka_unit_test(parse__coupled_as__gives_the_connection_list),
		cmocka_unit_test(parse__older_with_couplings__become_the_adaptation_couplings),
		cmocka_unit_test(parse__ports__every_part_in_order),
		cmocka_unit_test(parse__port_units__are_kept_without_blanks),
		cmocka_unit_test(parse__params__comma_lists_with_optional_types),
		cmocka_unit_test(parse__storage_variables__control_in_and_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
