/* test_check.c — the checker (check.c) on clean scripts: what it resolves names and port
 * references to, the types it gives untyped declarations, the unit conversions it stores
 * on bindings and couplings, and the Inner records it builds from model descriptions and
 * from other adaptations.  What it reports on broken scripts is covered by the golden
 * files in tests/golden/diag/.
 *
 * Run from the repository root with SACC_BUILD naming the build directory (default
 * "build"): the inner FMUs come from $SACC_BUILD/fmus/ (window, obstacle).  Scripts that
 * import each other are written to a temporary directory, since imports are found on
 * disk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sacc_test.h"

static const double pi = 3.14159265358979323846;

static char tmpdir[64];

/* ---- helpers ---------------------------------------------------------------------------- */

/* Loads text as a module and checks it; fails the test, showing the messages, unless the
 * script is clean. */
static Module *load_clean(TestRun *t, const char *name, const char *text)
{
	Module *m = tr_load(t, name, text);
	assert_non_null(m);
	if (!m->root)
		fail_msg("%s did not parse:\n%s", name, tr_diag(t));
	int errors = drv_check(t->c, m);
	if (errors)
		fail_msg("%s has %d errors:\n%s", name, errors, tr_diag(t));
	return m;
}

static Node *adaptation(Module *m, const char *name)
{
	for (Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION && strcmp(e->name, name) == 0)
			return e;
	fail_msg("no adaptation '%s'", name);
	return NULL;
}

static Node *decl_in(Node *list, const char *name)
{
	for (Node *d = list; d; d = d->next)
		if (strcmp(d->name, name) == 0)
			return d;
	fail_msg("no declaration '%s'", name);
	return NULL;
}

/* Depth-first, in source order: the nth (from 0) node of the kind with the name. */
static Node *find_rec(Node *n, NodeKind kind, const char *name, int *nth)
{
	for (; n; n = n->next) {
		if (n->kind == kind && n->name && strcmp(n->name, name) == 0 && (*nth)-- == 0)
			return n;
		Node *kids[] = {
			n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->bind, n->body,
			n->list1, n->list2, n->list3, n->a_inports, n->a_outports, n->a_params,
			n->a_ctrl_vars, n->a_ctrl, n->a_in_vars, n->a_in_rules, n->a_out_vars,
			n->a_out_rules,
		};
		for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) {
			Node *f = find_rec(kids[i], kind, name, nth);
			if (f)
				return f;
		}
	}
	return NULL;
}

static Node *find_node(Node *root, NodeKind kind, const char *name, int nth)
{
	Node *first = root->next;
	root->next = NULL; /* only this subtree */
	Node *f = find_rec(root, kind, name, &nth);
	root->next = first;
	if (!f)
		fail_msg("no %s '%s' number %d", ast_kind_name(kind), name, nth);
	return f;
}

static Inner *inner_of(Node *sa, const char *name)
{
	SaInfo *info = sa->info;
	assert_non_null(info);
	Inner *in = sema_inner(info, name);
	if (!in)
		fail_msg("no inner '%s'", name);
	return in;
}

static InnerPort *port_of(Inner *in, const char *name)
{
	InnerPort *p = sema_inner_port(in, name);
	if (!p)
		fail_msg("inner '%s' has no port '%s'", in->name, name);
	return p;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

static char *write_tmp(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void remove_tmp(const char *name)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	unlink(path);
}

/* ---- names and scopes ------------------------------------------------------------------- */

static const char names_sa[] =
	"semantic adaptation reactive mealy names_sa\n"
	"at \"names_sa.fmu\"\n"
	"\tfor inner fmu Window window\n"
	"\t\tat \"window.fmu\"\n"
	"\t\twith input ports Real speed (rad/s)\n"
	"\t\twith output ports Real height (cm)\n"
	"input ports Real v (rad/s) -> window.speed\n"
	"output ports Real tau (N.m)\n"
	"param GAIN := 2.0;\n"
	"control var steps := 0;\n"
	"control rules {\n"
	"\tvar y := GAIN;\n"
	"\tif (true) {\n"
	"\t\tvar GAIN := 3.0;\n"
	"\t\ty := GAIN;\n"
	"\t}\n"
	"\tfor (var i in 0 .. 2) {\n"
	"\t\tsteps := steps + i;\n"
	"\t}\n"
	"\tdo_step(window, t, H);\n"
	"\treturn H;\n"
	"}\n"
	"in var seen := 0.0;\n"
	"in rules {\n"
	"\ttrue -> { seen := v; } --> { window.displacement := seen; };\n"
	"}\n"
	"out var last := 0.0;\n"
	"out rules {\n"
	"\ttrue -> { last := window.height; } --> {\n"
	"\t\tnames_sa.tau := window.reaction_torque * GAIN;\n"
	"\t};\n"
	"}\n";

static void check__bare_names__bound_to_adaptation_declarations(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "names.sa", names_sa);
	Node *sa = adaptation(m, "names_sa");
	Node *param = decl_in(sa->a_params, "GAIN");

	Node *gain = find_node(sa->a_ctrl, ND_NAME, "GAIN", 0);
	assert_int_equal(gain->sym, SYM_PARAM);
	assert_ptr_equal(gain->decl, param);

	Node *steps = find_node(sa->a_ctrl, ND_NAME, "steps", 0);
	assert_int_equal(steps->sym, SYM_CTRL_VAR);
	assert_ptr_equal(steps->decl, decl_in(sa->a_ctrl_vars, "steps"));

	Node *v = find_node(sa->a_in_rules, ND_NAME, "v", 0);
	assert_int_equal(v->sym, SYM_INPORT);
	assert_ptr_equal(v->decl, decl_in(sa->a_inports, "v"));

	Node *seen = find_node(sa->a_in_rules, ND_NAME, "seen", 1); /* the read in MapIn */
	assert_int_equal(seen->sym, SYM_IN_VAR);
	assert_ptr_equal(seen->decl, decl_in(sa->a_in_vars, "seen"));

	Node *last = find_node(sa->a_out_rules, ND_NAME, "last", 0);
	assert_int_equal(last->sym, SYM_OUT_VAR);
	assert_ptr_equal(last->decl, decl_in(sa->a_out_vars, "last"));

	Node *gain_out = find_node(sa->a_out_rules, ND_NAME, "GAIN", 0);
	assert_int_equal(gain_out->sym, SYM_PARAM);
	assert_ptr_equal(gain_out->decl, param);
	tr_free(t);
}

static void check__local_var__shadows_parameter_inside_its_block(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "names.sa", names_sa);
	Node *sa = adaptation(m, "names_sa");
	Node *local = find_node(sa->a_ctrl, ND_VARDECL, "GAIN", 0);
	Node *inner_read = find_node(sa->a_ctrl, ND_NAME, "GAIN", 1);
	assert_int_equal(inner_read->sym, SYM_LOCAL);
	assert_ptr_equal(inner_read->decl, local);
	assert_int_equal(local->type, TY_REAL);
	/* y is declared in the enclosing block, and assigned inside the if */
	Node *y_decl = find_node(sa->a_ctrl, ND_VARDECL, "y", 0);
	Node *y = find_node(sa->a_ctrl, ND_NAME, "y", 0);
	assert_int_equal(y->sym, SYM_LOCAL);
	assert_ptr_equal(y->decl, y_decl);
	tr_free(t);
}

/* The text of an adaptation over the window with n params p0 .. p<n-1>, each but the first
 * its predecessor plus one, then the declarations in extra; *buf to free. */
static char *many_params(int n, const char *extra)
{
	size_t cap = (size_t)n * 48 + 1024;
	char *buf = malloc(cap);
	assert_non_null(buf);
	int len = snprintf(buf, cap, "semantic adaptation reactive mealy many_sa\n"
	                              "at \"many_sa.fmu\"\n"
	                              "\tfor inner fmu Window window\n\t\tat \"window.fmu\"\n"
	                              "param Real p0 := 1.0;\n");
	for (int i = 1; i < n; i++)
		len += snprintf(buf + len, cap - (size_t)len, "param Real p%d := p%d + 1.0;\n", i, i - 1);
	snprintf(buf + len, cap - (size_t)len, "%s", extra);
	return buf;
}

/* A level of many names is searched through its table (check.c, Scope): with 300 params
 * (more than a table's first size), every read finds its own declaration, and a second
 * declaration of one of them is reported with the first's line, as with a few. */
static void check__many_declarations__names_found_and_redefinition_reported(void **state)
{
	(void)state;
	enum { N = 300 };
	TestRun *t = tr_new();
	char *text = many_params(N, "");
	Module *m = load_clean(t, "many.sa", text);
	Node *sa = adaptation(m, "many_sa");
	for (int i = 1; i < N; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		Node *d = decl_in(sa->a_params, name);
		snprintf(name, sizeof name, "p%d", i - 1);
		Node *read = find_node(d->init, ND_NAME, name, 0);
		assert_int_equal(read->sym, SYM_PARAM);
		assert_ptr_equal(read->decl, decl_in(sa->a_params, name));
	}
	free(text);
	tr_free(t);

	t = tr_new();
	text = many_params(N, "param Real p257 := 0.0;\n");
	m = tr_load(t, "many.sa", text);
	assert_non_null(m);
	assert_int_equal(drv_check(t->c, m), 1);
	/* p257 is declared on line 5 + 257, again on line 5 + N */
	char want[128];
	snprintf(want, sizeof want, "many.sa:%d:12: error: redefinition of 'p257'", 5 + N);
	if (!strstr(tr_diag(t), want))
		fail_msg("no '%s' in:\n%s", want, tr_diag(t));
	snprintf(want, sizeof want, "many.sa:%d:12: note: 'p257' was first declared here", 5 + 257);
	if (!strstr(tr_diag(t), want))
		fail_msg("no '%s' in:\n%s", want, tr_diag(t));
	free(text);
	tr_free(t);
}

static void check__loop_variable__integer_and_bound_in_body(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "names.sa", names_sa);
	Node *sa = adaptation(m, "names_sa");
	Node *loop = find_node(sa->a_ctrl, ND_FOR, "i", 0);
	Node *i = find_node(loop->then, ND_NAME, "i", 0);
	assert_int_equal(i->sym, SYM_LOOP_VAR);
	assert_ptr_equal(i->decl, loop->init);
	assert_int_equal(loop->init->type, TY_INTEGER);
	tr_free(t);
}

static void check__port_refs__bound_to_inner_and_own_ports(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "names.sa", names_sa);
	Node *sa = adaptation(m, "names_sa");
	Inner *window = inner_of(sa, "window");

	/* a declared inner output: its decl is the script's port */
	Node *height = find_node(sa->a_out_rules, ND_PORT_REF, "height", 0);
	assert_int_equal(height->sym, SYM_INNER_OUT);
	assert_ptr_equal(height->decl, window->decl->list2);
	assert_ptr_equal(height->decl, port_of(window, "height")->decl);

	/* an undeclared one: the port made from the model description */
	Node *torque = find_node(sa->a_out_rules, ND_PORT_REF, "reaction_torque", 0);
	assert_int_equal(torque->sym, SYM_INNER_OUT);
	assert_ptr_equal(torque->decl, port_of(window, "reaction_torque")->decl);

	Node *disp = find_node(sa->a_in_rules, ND_PORT_REF, "displacement", 0);
	assert_int_equal(disp->sym, SYM_INNER_IN);
	assert_ptr_equal(disp->decl, port_of(window, "displacement")->decl);

	/* the adaptation's own port, written sa.port */
	Node *tau = find_node(sa->a_out_rules, ND_PORT_REF, "tau", 0);
	assert_int_equal(tau->sym, SYM_OUTPORT);
	assert_ptr_equal(tau->decl, decl_in(sa->a_outports, "tau"));

	/* the binding of input v */
	Node *v = decl_in(sa->a_inports, "v");
	assert_int_equal(v->bind->sym, SYM_INNER_IN);
	assert_ptr_equal(v->bind->decl, port_of(window, "speed")->decl);

	/* do_step's fmu argument */
	Node *step = find_node(sa->a_ctrl, ND_NAME, "window", 0);
	assert_int_equal(step->sym, SYM_INNER);
	assert_ptr_equal(step->decl, window->decl);
	tr_free(t);
}

static void check__step_size_in_out_rule_condition__accepted(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	load_clean(t, "h.sa",
		   "semantic adaptation reactive mealy h_sa\n"
		   "at \"h_sa.fmu\"\n"
		   "\tfor inner fmu Window window\n"
		   "\t\tat \"window.fmu\"\n"
		   "output ports Real tau (N.m)\n"
		   "out var Real seen_dt := 0.0;\n"
		   "out rules {\n"
		   "\th > 0.0 and dt >= 0.0 -> { seen_dt := dt; } --> {\n"
		   "\t\th_sa.tau := window.reaction_torque;\n"
		   "\t};\n"
		   "}\n");
	tr_free(t);
}

/* ---- types ------------------------------------------------------------------------------ */

static void check__untyped_declarations__take_initialiser_types(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "types.sa",
			       "semantic adaptation reactive mealy types_sa\n"
			       "at \"types_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "input ports v (rad/s) -> window.speed, f -> window.reaction_force,\n"
			       "\tflag := false\n"
			       "output ports Real tau\n"
			       "param N := 0, X := 0.0, B := false, S := \"s\", HALF := N / 2,\n"
			       "\tSUM := N + 1, MIX := N + X;\n"
			       "control var k := 1, z;\n"
			       "control rules {\n"
			       "\tvar r := round(X), c := is_close(X, 1.0), m := max(N, 2);\n"
			       "\tdo_step(window, t, H);\n"
			       "\treturn H;\n"
			       "}\n");
	Node *sa = adaptation(m, "types_sa");
	assert_int_equal(decl_in(sa->a_params, "N")->type, TY_INTEGER);
	assert_int_equal(decl_in(sa->a_params, "X")->type, TY_REAL);
	assert_int_equal(decl_in(sa->a_params, "B")->type, TY_BOOL);
	assert_int_equal(decl_in(sa->a_params, "S")->type, TY_STRING);
	assert_int_equal(decl_in(sa->a_params, "HALF")->type, TY_REAL); /* '/' is real division */
	assert_int_equal(decl_in(sa->a_params, "SUM")->type, TY_INTEGER);
	assert_int_equal(decl_in(sa->a_params, "MIX")->type, TY_REAL);
	assert_int_equal(decl_in(sa->a_ctrl_vars, "k")->type, TY_INTEGER);
	assert_int_equal(decl_in(sa->a_ctrl_vars, "z")->type, TY_REAL); /* no initialiser */
	assert_int_equal(find_node(sa->a_ctrl, ND_VARDECL, "r", 0)->type, TY_INTEGER);
	assert_int_equal(find_node(sa->a_ctrl, ND_VARDECL, "c", 0)->type, TY_BOOL);
	assert_int_equal(find_node(sa->a_ctrl, ND_VARDECL, "m", 0)->type, TY_INTEGER);
	/* ports: a unit makes Real; a binding gives the inner port's type; else the start
	 * value's; the declared type stays */
	assert_int_equal(decl_in(sa->a_inports, "v")->type, TY_REAL);
	assert_int_equal(decl_in(sa->a_inports, "f")->type, TY_REAL);
	assert_int_equal(decl_in(sa->a_inports, "flag")->type, TY_BOOL);
	assert_int_equal(decl_in(sa->a_outports, "tau")->type, TY_REAL);
	tr_free(t);
}

static void check__inner_port_without_type__takes_model_description_type(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "itype.sa",
			       "semantic adaptation reactive mealy itype_sa\n"
			       "at \"itype_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "\t\twith input ports speed\n"
			       "\t\twith output ports height\n");
	Node *sa = adaptation(m, "itype_sa");
	Inner *window = inner_of(sa, "window");
	assert_int_equal(window->decl->list1->type, TY_REAL);
	assert_int_equal(window->decl->list2->type, TY_REAL);
	/* no unit in the script: the model description's counts */
	assert_string_equal(port_of(window, "height")->unit, "cm");
	tr_free(t);
}

/* ---- units ------------------------------------------------------------------------------ */

static void check__binding_cm_to_m__scale_hundredth(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "cm.sa",
			       "semantic adaptation reactive mealy cm_sa\n"
			       "at \"cm_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "output ports Real disp (m) <- window.height,\n"
			       "\tReal tau (N.m) <- window.reaction_torque\n");
	Node *sa = adaptation(m, "cm_sa");
	Node *disp = decl_in(sa->a_outports, "disp");
	assert_true(disp->converts);
	assert_close(disp->scale, 0.01, 1e-15);
	assert_close(disp->offset, 0, 0);
	Node *tau = decl_in(sa->a_outports, "tau");
	assert_false(tau->converts);
	assert_close(tau->scale, 1, 0);
	tr_free(t);
}

static void check__binding_deg_to_rad__scale_pi_over_180(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "deg.sa",
			       "semantic adaptation reactive mealy deg_sa\n"
			       "at \"deg_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "input ports Real angle (deg) -> window.displacement,\n"
			       "\tReal rpm (rev/min) -> window.speed\n");
	Node *sa = adaptation(m, "deg_sa");
	Node *angle = decl_in(sa->a_inports, "angle");
	assert_true(angle->converts);
	assert_close(angle->scale, pi / 180, 1e-15);
	assert_close(angle->offset, 0, 0);
	Node *rpm = decl_in(sa->a_inports, "rpm");
	assert_true(rpm->converts);
	assert_close(rpm->scale, 2 * pi / 60, 1e-14);
	tr_free(t);
}

/* An inner adaptation with ports in kelvin, wrapped by one whose ports are in degC. */
static const char thermo_sa[] =
	"semantic adaptation reactive mealy thermo_sa\n"
	"at \"thermo_sa.fmu\"\n"
	"\tfor inner fmu Obstacle obstacle\n"
	"\t\tat \"obstacle.fmu\"\n"
	"input ports Real temp_in (K)\n"
	"output ports Real force (N) <- obstacle.reaction_force, Real temp_out (K)\n"
	"out rules {\n"
	"\ttrue -> { } --> { thermo_sa.temp_out := 300.0; };\n"
	"}\n"
	"\n"
	"semantic adaptation reactive mealy celsius_sa\n"
	"at \"celsius_sa.fmu\"\n"
	"\tfor inner fmu ThermoSA thermo\n"
	"\t\tat \"thermo_sa.fmu\"\n"
	"input ports Real tc (degC) -> thermo.temp_in\n"
	"output ports Real tout (degC) <- thermo.temp_out, Real f (kN) <- thermo.force\n";

static void check__binding_degC_to_K__offset_273_15(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "thermo.sa", thermo_sa);
	Node *sa = adaptation(m, "celsius_sa");
	Node *tc = decl_in(sa->a_inports, "tc");
	assert_true(tc->converts);
	assert_close(tc->scale, 1, 1e-15);
	assert_close(tc->offset, 273.15, 1e-9);
	/* an output binding converts from the inner unit to the port's */
	Node *tout = decl_in(sa->a_outports, "tout");
	assert_true(tout->converts);
	assert_close(tout->scale, 1, 1e-15);
	assert_close(tout->offset, -273.15, 1e-9);
	Node *f = decl_in(sa->a_outports, "f");
	assert_true(f->converts);
	assert_close(f->scale, 0.001, 1e-18);
	assert_close(f->offset, 0, 0);
	tr_free(t);
}

static void check__coupling_units__conversion_stored_on_coupling(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "couple.sa",
			       "semantic adaptation reactive moore couple_sa\n"
			       "at \"couple_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "\tfor inner fmu Obstacle obstacle\n"
			       "\t\tat \"obstacle.fmu\"\n"
			       "\tcoupled as window.height -> obstacle.disp,\n"
			       "\t\tobstacle.reaction_force -> window.reaction_force\n"
			       "control rules {\n"
			       "\tdo_step(window, t, H);\n"
			       "\tdo_step(obstacle, t, H);\n"
			       "\treturn H;\n"
			       "}\n");
	Node *sa = adaptation(m, "couple_sa");
	Node *height = sa->a_couplings, *force = height->next;
	assert_int_equal(height->lhs->sym, SYM_INNER_OUT);
	assert_int_equal(height->rhs->sym, SYM_INNER_IN);
	assert_true(height->converts);
	assert_close(height->scale, 0.01, 1e-15);
	assert_false(force->converts);
	tr_free(t);
}

/* ---- inner FMUs ------------------------------------------------------------------------- */

static void check__inner_fmu__ports_from_model_description(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "ports.sa",
			       "semantic adaptation reactive mealy ports_sa\n"
			       "at \"ports_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "\t\twith output ports Real h_cm \"height\" (cm)\n");
	Node *sa = adaptation(m, "ports_sa");
	Inner *window = inner_of(sa, "window");
	assert_non_null(window->fmu);
	assert_null(window->adaptation);
	assert_true(ends_with(window->fmu->path, "fmus/window.fmu"));
	/* the declared port first (named as the script names it), then the rest of the
	 * inputs and outputs in model-description order; parameters are not ports */
	assert_int_equal(window->nports, 5);
	const char *names[] = {"h_cm", "displacement", "speed", "reaction_force", "reaction_torque"};
	const char *vars[] = {"height", "displacement", "speed", "reaction_force", "reaction_torque"};
	const char *units[] = {"cm", "rad", "rad/s", "N", "N.m"};
	const bool inputs[] = {false, true, true, true, false};
	for (int i = 0; i < 5; i++) {
		InnerPort *p = &window->ports[i];
		assert_string_equal(p->name, names[i]);
		assert_string_equal(p->var, vars[i]);
		assert_string_equal(p->unit, units[i]);
		assert_int_equal(p->type, TY_REAL);
		assert_int_equal(p->is_input, inputs[i]);
		assert_string_equal(window->fmu->vars[p->fmu_var].name, vars[i]);
		assert_non_null(p->decl);
	}
	assert_ptr_equal(window->ports[0].decl, window->decl->list2);
	assert_null(sema_inner_port(window, "r")); /* a parameter */
	assert_null(sema_inner_port(window, "height")); /* renamed by the script */
	tr_free(t);
}

static void check__inner_kinds__from_fmu_unless_script_says(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "kinds.sa",
			       "semantic adaptation reactive mealy kinds_sa\n"
			       "at \"kinds_sa.fmu\"\n"
			       "\tfor inner fmu Window window\n"
			       "\t\tat \"window.fmu\"\n"
			       "\tfor inner fmu delayed moore Obstacle obstacle\n"
			       "\t\tat \"obstacle.fmu\"\n"
			       "\tfor inner fmu moore Window window2\n"
			       "\t\tat \"window.fmu\"\n");
	Node *sa = adaptation(m, "kinds_sa");
	Inner *window = inner_of(sa, "window");
	/* window's outputs depend on its inputs and it can interpolate them */
	assert_true(window->fmu->is_mealy);
	assert_true(window->fmu->is_reactive);
	assert_true(window->mealy);
	assert_true(window->reactive);
	Inner *obstacle = inner_of(sa, "obstacle");
	assert_true(obstacle->fmu->is_mealy);
	assert_false(obstacle->mealy);
	assert_false(obstacle->reactive);
	/* one axis given, the other from the FMU */
	Inner *window2 = inner_of(sa, "window2");
	assert_false(window2->mealy);
	assert_true(window2->reactive);
	assert_ptr_equal(window2->fmu, window->fmu); /* read once */
	SaInfo *info = sa->info;
	assert_int_equal(info->ninners, 3);
	assert_ptr_equal(info->inners[0], window);
	assert_ptr_equal(info->inners[1], obstacle);
	assert_true(info->checked_ok);
	tr_free(t);
}

static void check__inner_adaptation_in_same_module__ports_from_explicit_form(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "thermo.sa", thermo_sa);
	Node *sa = adaptation(m, "celsius_sa");
	Inner *thermo = inner_of(sa, "thermo");
	assert_null(thermo->fmu);
	assert_ptr_equal(thermo->adaptation, adaptation(m, "thermo_sa"));
	InnerPort *in = port_of(thermo, "temp_in");
	assert_true(in->is_input);
	assert_int_equal(in->fmu_var, -1);
	assert_string_equal(in->unit, "K");
	/* obstacle's input disp, fed by nothing, became an input of thermo_sa (AddInPorts) */
	InnerPort *disp = port_of(thermo, "disp");
	assert_true(disp->is_input);
	assert_string_equal(disp->unit, "m");
	InnerPort *force = port_of(thermo, "force");
	assert_false(force->is_input);
	assert_string_equal(force->unit, "N");
	tr_free(t);
}

static const char window_sa_text[] =
	"module window_sa\n"
	"semantic adaptation reactive mealy window_sa\n"
	"at \"window_sa.fmu\"\n"
	"\tfor inner fmu Window window\n"
	"\t\tat \"window.fmu\"\n"
	"output ports Real disp (m) <- window.height, Real tau (N.m)\n"
	"out rules {\n"
	"\ttrue -> { } --> { window_sa.tau := -window.reaction_torque; };\n"
	"}\n";

static const char loop_sa_text[] =
	"import window_sa\n"
	"module loop_sa\n"
	"semantic adaptation reactive moore loop_sa\n"
	"at \"loop_sa.fmu\"\n"
	"\tfor inner fmu WindowSA window_sa\n"
	"\t\tat \"window_sa.fmu\"\n"
	"\t\twith input ports Real speed (rad/s)\n"
	"\tfor inner fmu Obstacle obstacle\n"
	"\t\tat \"obstacle.fmu\"\n"
	"\tcoupled as window_sa.disp -> obstacle.disp,\n"
	"\t\tobstacle.reaction_force -> window_sa.reaction_force\n"
	"output ports Real tau (N.m) <- window_sa.tau\n"
	"control rules {\n"
	"\tsave_state(window_sa);\n"
	"\tdo_step(obstacle, t, H);\n"
	"\tdo_step(window_sa, t, H);\n"
	"\treturn H;\n"
	"}\n";

static void check__imported_adaptation__is_inner_with_its_explicit_ports(void **state)
{
	(void)state;
	write_tmp("window_sa.sa", window_sa_text);
	const char *loop_path = write_tmp("loop_sa.sa", loop_sa_text);
	TestRun *t = tr_new();
	Module *m = drv_load(t->c, loop_path);
	assert_non_null(m);
	assert_non_null(m->root);
	int errors = drv_check(t->c, m);
	if (errors)
		fail_msg("%s", tr_diag(t));
	assert_int_equal(m->nimports, 1);
	Module *dep = m->imports[0];
	assert_string_equal(dep->root->name, "window_sa");

	Node *sa = adaptation(m, "loop_sa");
	Inner *w = inner_of(sa, "window_sa");
	assert_null(w->fmu);
	assert_ptr_equal(w->adaptation, adaptation(dep, "window_sa"));
	assert_true(w->mealy);
	assert_true(w->reactive);
	/* window's inputs became window_sa's, through AddInPorts; its declared outputs stay */
	const char *ins[] = {"displacement", "speed", "reaction_force"};
	for (int i = 0; i < 3; i++) {
		InnerPort *p = port_of(w, ins[i]);
		assert_true(p->is_input);
		assert_int_equal(p->fmu_var, -1);
	}
	assert_string_equal(port_of(w, "speed")->unit, "rad/s");
	assert_ptr_equal(port_of(w, "speed")->decl, w->decl->list1); /* declared here */
	assert_string_equal(port_of(w, "disp")->unit, "m");
	assert_false(port_of(w, "tau")->is_input);

	/* couplings through it: m to m and N to N convert nothing */
	Node *c1 = sa->a_couplings, *c2 = c1->next;
	assert_int_equal(c1->lhs->sym, SYM_INNER_OUT);
	assert_ptr_equal(c1->lhs->decl, port_of(w, "disp")->decl);
	assert_false(c1->converts);
	assert_int_equal(c2->rhs->sym, SYM_INNER_IN);
	assert_false(c2->converts);
	Node *out = decl_in(sa->a_outports, "tau");
	assert_int_equal(out->bind->sym, SYM_INNER_OUT);
	assert_false(out->converts);
	tr_free(t);
	remove_tmp("window_sa.sa");
	remove_tmp("loop_sa.sa");
}

static const char ref_text[] =
	"fmu Window window at \"window.fmu\"\n"
	"\toutput ports Real height (cm)\n"
	"fmu Obstacle obstacle at \"obstacle.fmu\"\n"
	"semantic adaptation reactive mealy ref_sa\n"
	"at \"ref_sa.fmu\"\n"
	"\tfor fmu window, obstacle\n"
	"output ports Real disp (m) <- window.height\n";

static void check__for_fmu__resolves_top_level_fmu_declaration(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "ref.sa", ref_text);
	Node *fdecl = m->root->list2;
	assert_int_equal(fdecl->kind, ND_FMU_DECL);
	Node *sa = adaptation(m, "ref_sa");
	assert_int_equal(sa->a_inners->kind, ND_INNER_REF);
	Inner *window = inner_of(sa, "window");
	assert_ptr_equal(window->decl, fdecl);
	assert_ptr_equal(sa->a_inners->info, window);
	assert_non_null(window->fmu);
	assert_true(window->mealy);
	/* ports declared on the fmu declaration come first and are its nodes */
	assert_ptr_equal(window->ports[0].decl, fdecl->list2);
	assert_string_equal(window->ports[0].name, "height");
	Inner *obstacle = inner_of(sa, "obstacle");
	assert_non_null(port_of(obstacle, "disp"));
	Node *disp = decl_in(sa->a_outports, "disp");
	assert_ptr_equal(disp->bind->decl, fdecl->list2);
	assert_close(disp->scale, 0.01, 1e-15);
	tr_free(t);
}

/* ---- finding inner FMUs ----------------------------------------------------------------- */

static const char find_text[] =
	"semantic adaptation reactive mealy find_sa\n"
	"at \"find_sa.fmu\"\n"
	"\tfor inner fmu Window window\n"
	"\t\tat \"some/dir/window.fmu\"\n";

static void check__fmu_path__found_in_fmu_dir_by_file_name(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "find.sa", find_text);
	Inner *window = inner_of(adaptation(m, "find_sa"), "window");
	assert_non_null(window->fmu);
	char want[512];
	snprintf(want, sizeof want, "%s/fmus/window.fmu", test_build_dir());
	assert_string_equal(window->fmu->path, want);
	tr_free(t);
}

static void check__fmu_path__not_found_without_fmu_dir(void **state)
{
	(void)state;
	TestRun t = {0};
	t.stream = open_memstream(&t.diag, &t.diaglen);
	t.c = drv_new(t.stream); /* no -L */
	Module *m = tr_load(&t, "find.sa", find_text);
	assert_int_equal(drv_check(t.c, m), 1);
	const char *d = tr_diag(&t);
	assert_non_null(strstr(d, "find.sa:4:6: error: cannot find inner fmu 'window' at "
				  "\"some/dir/window.fmu\""));
	assert_non_null(strstr(d, "note: looked in '.' (the script's directory) only, as no -L "
				  "directory was given; no adaptation in scope builds 'window.fmu' "
				  "either"));
	Inner *window = inner_of(adaptation(m, "find_sa"), "window");
	assert_null(window->fmu);
	assert_false(((SaInfo *)adaptation(m, "find_sa")->info)->checked_ok);
	drv_free(t.c);
	fclose(t.stream);
	free(t.diag);
}

static void check__fmu_path__found_beside_script_first(void **state)
{
	(void)state;
	/* a copy of window.fmu beside a script in the temporary directory */
	char src[512];
	snprintf(src, sizeof src, "%s/fmus/window.fmu", test_build_dir());
	size_t len;
	char *bytes = read_file(src, 1u << 24, &len);
	assert_non_null(bytes);
	char dst[128];
	snprintf(dst, sizeof dst, "%s/window.fmu", tmpdir);
	FILE *f = fopen(dst, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	fclose(f);
	free(bytes);
	const char *path = write_tmp("beside.sa",
				     "semantic adaptation reactive mealy beside_sa\n"
				     "at \"beside_sa.fmu\"\n"
				     "\tfor inner fmu Window window\n"
				     "\t\tat \"window.fmu\"\n");
	TestRun *t = tr_new();
	Module *m = drv_load(t->c, path);
	assert_non_null(m);
	if (drv_check(t->c, m))
		fail_msg("%s", tr_diag(t));
	Inner *window = inner_of(adaptation(m, "beside_sa"), "window");
	assert_string_equal(window->fmu->path, dst);
	tr_free(t);
	remove_tmp("beside.sa");
	remove_tmp("window.fmu");
}

/* ---- the checker's contract ------------------------------------------------------------- */

static void check__second_call__returns_first_result(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "names.sa", names_sa);
	Node *sa = adaptation(m, "names_sa");
	SaInfo *first = sa->info;
	assert_ptr_equal(chk_adaptation(t->c, m, sa), first);
	assert_ptr_equal(chk_adaptation(t->c, NULL, sa), first);
	assert_string_equal(first->dir, ".");
	assert_int_equal(diag_errors(t->c->diag), 0);
	tr_free(t);
}

static void check__scenario_connection__units_converted(void **state)
{
	(void)state;
	TestRun *t = tr_new();
	Module *m = load_clean(t, "scenario.sa",
			       "fmu Window window at \"window.fmu\"\n"
			       "fmu Obstacle obstacle at \"obstacle.fmu\"\n"
			       "window.height -> obstacle.disp\n"
			       "obstacle.reaction_force -> window.reaction_force\n");
	Node *c1 = m->root->list2->next->next, *c2 = c1->next;
	assert_int_equal(c1->kind, ND_CONNECTION);
	assert_true(c1->converts);
	assert_close(c1->scale, 0.01, 1e-15);
	assert_false(c2->converts);
	tr_free(t);
}

static void check__module_importing_itself__reported_and_loaded_once(void **state)
{
	(void)state;
	write_tmp("self.sa", "import self\nmodule self\n");
	char cwd[1024];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmpdir), 0);
	/* found again as "./self.sa": the same file, so the same module */
	TestRun *t = tr_new();
	Module *m = drv_load(t->c, "self.sa");
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(m);
	assert_ptr_equal(t->c->modules, m);
	assert_null(m->next);
	assert_string_equal(tr_diag(t), "self.sa:1:1: error: circular import of module 'self'\n"
					"     1 | import self\n"
					"       | ^~~~~~~~~~~\n");
	tr_free(t);
	remove_tmp("self.sa");
}

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sacc_test_check_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check__bare_names__bound_to_adaptation_declarations),
		cmocka_unit_test(check__local_var__shadows_parameter_inside_its_block),
		cmocka_unit_test(check__loop_variable__integer_and_bound_in_body),
		cmocka_unit_test(check__many_declarations__names_found_and_redefinition_reported),
		cmocka_unit_test(check__port_refs__bound_to_inner_and_own_ports),
		cmocka_unit_test(check__step_size_in_out_rule_condition__accepted),
		cmocka_unit_test(check__untyped_declarations__take_initialiser_types),
		cmocka_unit_test(check__inner_port_without_type__takes_model_description_type),
		cmocka_unit_test(check__binding_cm_to_m__scale_hundredth),
		cmocka_unit_test(check__binding_deg_to_rad__scale_pi_over_180),
		cmocka_unit_test(check__binding_degC_to_K__offset_273_15),
		cmocka_unit_test(check__coupling_units__conversion_stored_on_coupling),
		cmocka_unit_test(check__inner_fmu__ports_from_model_description),
		cmocka_unit_test(check__inner_kinds__from_fmu_unless_script_says),
		cmocka_unit_test(check__inner_adaptation_in_same_module__ports_from_explicit_form),
		cmocka_unit_test(check__imported_adaptation__is_inner_with_its_explicit_ports),
		cmocka_unit_test(check__for_fmu__resolves_top_level_fmu_declaration),
		cmocka_unit_test(check__fmu_path__found_in_fmu_dir_by_file_name),
		cmocka_unit_test(check__fmu_path__not_found_without_fmu_dir),
		cmocka_unit_test(check__fmu_path__found_beside_script_first),
		cmocka_unit_test(check__second_call__returns_first_result),
		cmocka_unit_test(check__scenario_connection__units_converted),
		cmocka_unit_test(check__module_importing_itself__reported_and_loaded_once),
	};
	return cmocka_run_group_tests_name("check", tests, make_tmpdir, remove_tmpdir);
}
