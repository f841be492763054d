/* explicit_test.h — what the tests of the reduction to explicit form (test_explicit*.c)
 * share: small scripts over the test FMUs window.fmu (inputs displacement (rad), speed
 * (rad/s), reaction_force (N); outputs height (cm), reaction_torque (N.m)) and
 * obstacle.fmu (input disp (m), output reaction_force (N)), both reactive Mealy; the
 * fixture; and the helpers that reduce a script up to a rule and look at the result.
 *
 * A test reduces its script with drv_explicit(..., "Rule"), which runs every rule up to
 * and including that one, then looks at the tree (ast.h) and at the module printed back
 * as source.  Run from the repository root with SACC_BUILD naming the build directory. */
#ifndef EXPLICIT_TEST_H
#define EXPLICIT_TEST_H

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

static inline int fx_setup(void **state)
{
	Fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	f->t = tr_new();
	*state = f;
	return 0;
}

static inline int fx_teardown(void **state)
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

static inline const char *keep(Fx *f, char *s)
{
	char **v = realloc(f->owned, (size_t)(f->nowned + 1) * sizeof *v);
	assert_non_null(v);
	f->owned = v;
	f->owned[f->nowned++] = s;
	return s;
}

static inline Node *adaptation_of(Module *m)
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
static inline int reduce_in(TestRun *t, Module **m, const char *name, const char *text,
			    const char *after)
{
	*m = tr_load(t, name, text);
	assert_non_null(*m);
	assert_non_null((*m)->root);
	return drv_explicit(t->c, *m, after);
}

/* Reduces and requires success; returns the adaptation. */
static inline Node *reduce(Fx *f, const char *text, const char *after)
{
	int errors = reduce_in(f->t, &f->m, "t.sa", text, after);
	if (errors)
		fail_msg("%d errors:\n%s", errors, tr_diag(f->t));
	return adaptation_of(f->m);
}

/* Reduces and requires errors; returns the diagnostics. */
static inline const char *reduce_fails(Fx *f, const char *text, const char *after)
{
	int errors = reduce_in(f->t, &f->m, "t.sa", text, after);
	if (!errors)
		fail_msg("no error; the tree is:\n%s", keep(f, tr_print(f->m)));
	return tr_diag(f->t);
}

static inline const char *printed(Fx *f)
{
	return keep(f, tr_print(f->m));
}

static inline const char *expr_text(Fx *f, const Node *e)
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

static inline Node *find(Node *list, const char *name)
{
	for (Node *n = list; n; n = n->next)
		if (n->name && strcmp(n->name, name) == 0)
			return n;
	return NULL;
}

static inline Node *nth(Node *list, int i)
{
	while (list && i-- > 0)
		list = list->next;
	assert_non_null(list);
	return list;
}

static inline int count_named(Node *list, const char *name)
{
	int k = 0;
	for (Node *n = list; n; n = n->next)
		k += n->name && strcmp(n->name, name) == 0;
	return k;
}

static inline int count_substr(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		k++;
	return k;
}

/* The names of a list, comma separated. */
static inline const char *names(Fx *f, Node *list)
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
static inline const char *section(Fx *f, const char *from)
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

static inline void assert_loc_eq(Loc a, Loc b)
{
	if (a.line != b.line || a.col != b.col)
		fail_msg("location %d:%d, expected %d:%d", a.line, a.col, b.line, b.col);
}

static const double deg = 3.14159265358979323846 / 180;

/* ---- scripts of single rules that the pipeline tests reduce again ----------------------- */

/* AddOutRule */
static const char s_out_rule[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
	"output ports Real hm (m) <- window.height, Real tau\n"
	"out rules {\n"
	"\ttrue -> { } --> { sa.tau := -window.reaction_torque; };\n"
	"}\n";

/* CreateCtrlRules */
static const char s_user_ctrl[] =
	HEAD WINDOW OBSTACLE
	"\tcoupled as obstacle.reaction_force -> window.reaction_force\n"
	"control rules {\n"
	"\tdo_step(window, t, H);\n"
	"\tdo_step(obstacle, t, H);\n"
	"\treturn H;\n"
	"}\n";

/* ImplementInternalBinding */
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

/* ReplacePortsRefsByVars */
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

/* A test entry with the fixture. */
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)

#endif
