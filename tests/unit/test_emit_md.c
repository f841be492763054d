/* test_emit_md.c — the wrapper's modelDescription.xml (emit.c, emit_md.c) and the base-unit
 * decomposition behind its UnitDefinitions (units_base in units.c).
 *
 * Every description emitted here is read back with fmu_parse_md, which must accept it
 * without a word, and goes through md_violation: a validator of the FMI 2.0 rules written
 * for this test (the causality/variability/initial table, start values, value references,
 * ModelStructure), itself tested on broken descriptions first.  Then what each power-window
 * adaptation must say, and small scripts for units, params, capabilities and the GUID.
 *
 * Run from the repository root with SACC_BUILD naming the build directory: the inner FMUs
 * come from $SACC_BUILD/fmus, the bare-description inner from tests/unit/data/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "sacc_test.h"

#include "emit.h"
#include "fmu.h"
#include "units.h"
#include "version.h"

#define PW "adaptations/powerwindow"

static const double pi = 3.14159265358979323846;

/* ---- the FMI 2.0 validator --------------------------------------------------------------- */

/* The FMI 2.0 table of causality against variability (section 2.2.7): which combinations
 * exist, and for each the initial values allowed and the default. */
typedef struct Combination {
	bool valid;
	unsigned initials;   /* bit per FmuInitial allowed; bit INIT_UNSET alone: none allowed */
	FmuInitial fallback; /* the default when the attribute is absent */
} Combination;

#define BIT(i) (1u << (i))
#define NONE {true, BIT(INIT_UNSET), INIT_UNSET}
#define EXACT {true, BIT(INIT_UNSET) | BIT(INIT_EXACT), INIT_EXACT}
#define CALC_APPROX                                                                         \
	{true, BIT(INIT_UNSET) | BIT(INIT_CALCULATED) | BIT(INIT_APPROX), INIT_CALCULATED}
#define ANY {true, BIT(INIT_UNSET) | BIT(INIT_CALCULATED) | BIT(INIT_APPROX) | BIT(INIT_EXACT), \
             INIT_CALCULATED}
#define NO {false, 0, INIT_UNSET}

/* [causality][variability], in the enums' order (fmu.h). */
static const Combination fmi2_table[][5] = {
	/*                 continuous   constant fixed        tunable      discrete */
	[CAUS_LOCAL] = {ANY, EXACT, CALC_APPROX, CALC_APPROX, ANY},
	[CAUS_PARAMETER] = {NO, NO, EXACT, EXACT, NO},
	[CAUS_CALCULATED_PARAMETER] = {NO, NO, CALC_APPROX, CALC_APPROX, NO},
	[CAUS_INPUT] = {NONE, NO, NO, NO, NONE},
	[CAUS_OUTPUT] = {ANY, EXACT, NO, NO, ANY},
	[CAUS_INDEPENDENT] = {NONE, NO, NO, NO, NO},
};

static char violation[512];

static const char *say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(violation, sizeof violation, fmt, ap);
	va_end(ap);
	return violation;
}

static FmuInitial effective_initial(const FmuVar *v)
{
	if (v->causality > CAUS_INDEPENDENT || v->variability > VAR_DISCRETE)
		return INIT_UNSET;
	return v->initial != INIT_UNSET ? v->initial
	                                : fmi2_table[v->causality][v->variability].fallback;
}

static bool is_known_at_init(const FmuVar *v)
{
	return v->causality == CAUS_INPUT || effective_initial(v) == INIT_EXACT;
}

static xmlNode *child(xmlNode *n, const char *name)
{
	for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
			return c;
	return NULL;
}

static int count_words(const char *s)
{
	int n = 0;
	for (const char *p = s; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n++;
		while (*p && *p != ' ')
			p++;
	}
	return n;
}

/* Whether variable i belongs in ModelStructure's list: Outputs holds every output;
 * InitialUnknowns (Co-Simulation) the outputs with initial approx or calculated and the
 * calculatedParameters. */
static bool belongs(const FmuInfo *f, bool initial_unknowns, int i)
{
	const FmuVar *v = &f->vars[i];
	if (!initial_unknowns)
		return v->causality == CAUS_OUTPUT;
	return (v->causality == CAUS_OUTPUT && effective_initial(v) != INIT_EXACT) ||
	       v->causality == CAUS_CALCULATED_PARAMETER;
}

/* The raw ModelStructure checks that need the XML itself (FmuInfo fills in an absent
 * Outputs list, and keeps neither dependenciesKind nor InitialUnknowns): each list holds
 * exactly the variables that belong in it, ascending; dependenciesKind values are FMI's and
 * as many as the dependencies; InitialUnknowns depend on knowns (inputs, exact variables). */
static const char *check_raw(const FmuInfo *f, const char *xml, size_t len)
{
	static const char *const kinds[] = {"dependent", "constant", "fixed", "tunable", "discrete"};
	static const char *const lists[] = {"Outputs", "InitialUnknowns"};
	const char *bad = NULL;
	xmlDoc *doc = xmlReadMemory(xml, (int)len, "md.xml", NULL, XML_PARSE_NONET);
	if (!doc)
		return say("libxml2 cannot parse the description");
	xmlNode *structure = child(xmlDocGetRootElement(doc), "ModelStructure");
	for (int l = 0; l < 2 && !bad; l++) {
		const char *list = lists[l];
		bool init = l == 1;
		int expect = 0; /* the next variable that must be listed */
		for (xmlNode *u = child(child(structure, list), "Unknown"); u && !bad; u = u->next) {
			if (u->type != XML_ELEMENT_NODE)
				continue;
			xmlChar *kind = xmlGetProp(u, BAD_CAST "dependenciesKind");
			xmlChar *deps = xmlGetProp(u, BAD_CAST "dependencies");
			xmlChar *index = xmlGetProp(u, BAD_CAST "index");
			int ix = index ? atoi((const char *)index) : 0;
			while (expect < f->nvars && !belongs(f, init, expect))
				expect++;
			if (ix != expect + 1)
				bad = say("%s lists index %d where index %d belongs", list, ix, expect + 1);
			expect++;
			if (kind && !bad) {
				if (!deps || count_words((const char *)kind) != count_words((const char *)deps))
					bad = say("%s: unknown %d has dependenciesKind without as many "
						  "dependencies", list, ix);
				for (char *p = strtok((char *)kind, " "); p && !bad; p = strtok(NULL, " ")) {
					bool known = false;
					for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
						known |= strcmp(p, kinds[k]) == 0;
					if (!known)
						bad = say("%s: unknown %d has dependenciesKind '%s'", list, ix, p);
				}
			}
			for (char *p = init && deps ? strtok((char *)deps, " ") : NULL; p && !bad;
			     p = strtok(NULL, " ")) {
				int d = atoi(p);
				if (d < 1 || d > f->nvars || !is_known_at_init(&f->vars[d - 1]))
					bad = say("InitialUnknowns: index %d depends on %d, which is not an "
						  "input or an exact variable", ix, d);
			}
			xmlFree(kind);
			xmlFree(deps);
			xmlFree(index);
		}
		while (!bad && expect < f->nvars && !belongs(f, init, expect))
			expect++;
		if (!bad && expect < f->nvars)
			bad = say("%s does not list index %d ('%s')", list, expect + 1,
				  f->vars[expect].name);
	}
	xmlFreeDoc(doc);
	return bad;
}

/* NULL when the description obeys the FMI 2.0 rules this test knows, else what it breaks. */
static const char *md_violation(const char *xml, size_t len)
{
	FILE *sink = fopen("/dev/null", "w");
	DiagSink *d = diag_new(sink);
	FmuInfo *f = fmu_parse_md(xml, len, "md.xml", d);
	int errors = diag_errors(d);
	diag_free(d);
	fclose(sink);
	if (!f || errors) {
		fmu_free(f);
		return say("fmu_parse_md rejects it (%d errors)", errors);
	}
	const char *bad = NULL;
	if (f->version != FMI_V2 || strcmp(f->fmi_version, "2.0") != 0)
		bad = say("fmiVersion is not 2.0");
	else if (!f->has_cosim || !f->model_identifier || !*f->model_identifier)
		bad = say("no CoSimulation element with a modelIdentifier");
	else if (!f->guid || !*f->guid)
		bad = say("no guid");
	for (int i = 0; i < f->nvars && !bad; i++) {
		const FmuVar *v = &f->vars[i];
		if (v->causality > CAUS_INDEPENDENT || v->variability > VAR_DISCRETE) {
			bad = say("'%s': not an FMI 2.0 causality or variability", v->name);
			break;
		}
		Combination k = fmi2_table[v->causality][v->variability];
		FmuInitial init = effective_initial(v);
		if (!k.valid)
			bad = say("'%s': causality %s with variability %s", v->name,
				  fmu_causality_name(v->causality), fmu_variability_name(v->variability));
		else if (!(k.initials & BIT(v->initial)))
			bad = say("'%s': initial=\"%s\" with causality %s and variability %s", v->name,
				  fmu_initial_name(v->initial), fmu_causality_name(v->causality),
				  fmu_variability_name(v->variability));
		else if (v->variability == VAR_CONTINUOUS && v->type != FT_REAL)
			bad = say("'%s': continuous but not Real", v->name);
		else if ((v->causality == CAUS_INPUT || init == INIT_EXACT || init == INIT_APPROX) &&
			 !v->start)
			bad = say("'%s' (%s, initial %s) has no start value", v->name,
				  fmu_causality_name(v->causality), fmu_initial_name(init));
		else if ((init == INIT_CALCULATED || v->causality == CAUS_INDEPENDENT) && v->start)
			bad = say("'%s' (%s, initial %s) has a start value", v->name,
				  fmu_causality_name(v->causality), fmu_initial_name(init));
		for (int j = 0; j < i && !bad; j++) {
			if (f->vars[j].type == v->type && f->vars[j].vr == v->vr)
				bad = say("'%s' and '%s' share %s value reference %u", f->vars[j].name,
					  v->name, fmu_type_name(v->type), v->vr);
			if (strcmp(f->vars[j].name, v->name) == 0)
				bad = say("two variables are called '%s'", v->name);
		}
		if (v->unit && !bad) {
			bool defined = false;
			for (int u = 0; u < f->nunits; u++)
				defined |= strcmp(f->units[u].name, v->unit) == 0;
			if (!defined)
				bad = say("'%s' has unit '%s', which UnitDefinitions does not define",
					  v->name, v->unit);
		}
	}
	/* Outputs: exactly the outputs, in ScalarVariable order, depending on inputs only. */
	int k = 0;
	for (int i = 0; i < f->nvars && !bad; i++) {
		if (f->vars[i].causality != CAUS_OUTPUT)
			continue;
		if (k >= f->noutputs || f->outputs[k].var != i) {
			bad = say("ModelStructure/Outputs does not list output '%s' in its place",
				  f->vars[i].name);
			break;
		}
		for (int j = 0; j < f->outputs[k].ndeps && !bad; j++) {
			int dep = f->outputs[k].deps[j];
			if (dep < 0 || dep >= f->nvars || f->vars[dep].causality != CAUS_INPUT)
				bad = say("output '%s' depends on index %d, which is not an input",
					  f->vars[i].name, dep + 1);
		}
		k++;
	}
	if (!bad && k != f->noutputs)
		bad = say("ModelStructure/Outputs lists %d unknowns for %d outputs", f->noutputs, k);
	if (!bad)
		bad = check_raw(f, xml, len);
	fmu_free(f);
	return bad;
}

#define assert_valid_md(xml, len)                                                           \
	do {                                                                                \
		const char *why_ = md_violation((xml), (len));                              \
		if (why_)                                                                   \
			fail_msg("invalid model description: %s", why_);                    \
	} while (0)

/* ---- emitting ---------------------------------------------------------------------------- */

typedef struct Emitted {
	TestRun *t;
	EmitLayout *l;
	char *xml;
	size_t len;
	FmuInfo *md; /* the description read back */
} Emitted;

static void emitted_free(Emitted *e)
{
	fmu_free(e->md);
	free(e->xml);
	if (e->t)
		tr_free(e->t);
	*e = (Emitted){0};
}

/* Reduces the module, lays out the adaptation called name and emits its description;
 * fails the test on any diagnostic. */
static void emit_module_sa(Emitted *e, Module *m, const char *name)
{
	assert_non_null(m);
	if (drv_explicit(e->t->c, m, NULL) != 0 || diag_errors(e->t->c->diag))
		fail_msg("the script does not reduce:\n%s", tr_diag(e->t));
	Node *sa = NULL;
	for (Node *n = m->root->list2; n; n = n->next)
		if (n->kind == ND_ADAPTATION && strcmp(n->name, name) == 0)
			sa = n;
	assert_non_null(sa);
	e->l = emit_layout(e->t->c, sa->info);
	if (!e->l)
		fail_msg("emit_layout failed:\n%s", tr_diag(e->t));
	e->xml = emit_md_buffer(e->t->c, e->l, &e->len);
	assert_non_null(e->xml);
	assert_int_equal(e->len, strlen(e->xml));
	assert_string_equal(tr_diag(e->t), "");
	assert_valid_md(e->xml, e->len);
	DiagSink *d = diag_new(e->t->stream);
	e->md = fmu_parse_md(e->xml, e->len, "emitted", d);
	diag_free(d);
	assert_non_null(e->md);
}

/* One of the power-window scripts, by adaptation name. */
static void emit_pw(Emitted *e, const char *name)
{
	*e = (Emitted){tr_new(), NULL, NULL, 0, NULL};
	drv_add_include_dir(e->t->c, PW);
	char path[256];
	snprintf(path, sizeof path, PW "/%s.sa", name);
	emit_module_sa(e, drv_load(e->t->c, path), name);
}

/* A script held here; it sits in tests/unit/data/ so that inners at "x.xml" are found there. */
static void emit_text(Emitted *e, const char *text, const char *name)
{
	*e = (Emitted){tr_new(), NULL, NULL, 0, NULL};
	emit_module_sa(e, tr_load(e->t, "tests/unit/data/emit_test.sa", text), name);
}

/* Lays out a script that must fail, and returns what was reported (malloc'd). */
static char *emit_text_fails(const char *text, const char *name)
{
	TestRun *t = tr_new();
	Module *m = tr_load(t, "tests/unit/data/emit_test.sa", text);
	assert_non_null(m);
	if (drv_explicit(t->c, m, NULL) != 0)
		fail_msg("the script does not reduce:\n%s", tr_diag(t));
	Node *sa = NULL;
	for (Node *n = m->root->list2; n; n = n->next)
		if (n->kind == ND_ADAPTATION && strcmp(n->name, name) == 0)
			sa = n;
	assert_non_null(sa);
	assert_null(emit_layout(t->c, sa->info));
	char *diag = strdup(tr_diag(t));
	tr_free(t);
	return diag;
}

static const FmuVar *md_var(const FmuInfo *f, const char *name)
{
	const FmuVar *v = fmu_find_var(f, name);
	if (!v)
		fail_msg("no variable '%s' in the emitted description", name);
	return v;
}

static const FmuUnit *md_unit(const FmuInfo *f, const char *name)
{
	for (int i = 0; i < f->nunits; i++)
		if (strcmp(f->units[i].name, name) == 0)
			return &f->units[i];
	fail_msg("no unit '%s' in the emitted description", name);
	return NULL;
}

static const EmitVar *layout_var(const EmitLayout *l, const char *name)
{
	for (int i = 0; i < l->nvars; i++)
		if (strcmp(l->vars[i].name, name) == 0)
			return &l->vars[i];
	fail_msg("no variable '%s' in the layout", name);
	return NULL;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

/* The outputs' dependencies, as ScalarVariable indices, are exactly the inputs (mealy) or
 * nothing (moore). */
static void assert_output_deps(const FmuInfo *f, bool mealy)
{
	int ninputs = 0;
	for (int i = 0; i < f->nvars; i++)
		ninputs += f->vars[i].causality == CAUS_INPUT;
	assert_true(f->noutputs > 0);
	for (int k = 0; k < f->noutputs; k++) {
		const FmuOutputDep *o = &f->outputs[k];
		assert_true(o->deps_given);
		assert_int_equal(o->ndeps, mealy ? ninputs : 0);
		for (int j = 0; j < o->ndeps; j++)
			assert_int_equal(f->vars[o->deps[j]].causality, CAUS_INPUT);
	}
}

/* Output `out` of f depends directly on exactly the inputs named (a NULL-ended list, in
 * ScalarVariable order); list says which: f->outputs, or f->initial_unknowns (there the
 * parameters every initial unknown depends on are left out of the comparison). */
static void assert_deps_in(const FmuOutputDep *list, int n, const FmuInfo *f, const char *out,
			   va_list ap)
{
	const FmuOutputDep *o = NULL;
	for (int k = 0; k < n; k++)
		if (strcmp(f->vars[list[k].var].name, out) == 0)
			o = &list[k];
	if (!o)
		fail_msg("output '%s' is not listed", out);
	assert_true(o->deps_given);
	int j = 0;
	for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {
		while (j < o->ndeps && f->vars[o->deps[j]].causality != CAUS_INPUT)
			j++;
		if (j == o->ndeps)
			fail_msg("output '%s' does not depend on '%s'", out, name);
		assert_string_equal(f->vars[o->deps[j]].name, name);
		j++;
	}
	for (; j < o->ndeps; j++)
		if (f->vars[o->deps[j]].causality == CAUS_INPUT)
			fail_msg("output '%s' also depends on '%s'", out, f->vars[o->deps[j]].name);
}

static void assert_deps(const FmuInfo *f, const char *out, ...)
{
	va_list ap;
	va_start(ap, out);
	assert_deps_in(f->outputs, f->noutputs, f, out, ap);
	va_end(ap);
}

static void assert_init_deps(const FmuInfo *f, const char *out, ...)
{
	va_list ap;
	va_start(ap, out);
	assert_deps_in(f->initial_unknowns, f->ninitial_unknowns, f, out, ap);
	va_end(ap);
}

/* ---- scripts ----------------------------------------------------------------------------- */

#define WINDOW "\tfor inner fmu Window window\n\t\tat \"window.fmu\"\n"

static const char s_units[] =
	"semantic adaptation reactive mealy units_sa\nat \"units_sa.fmu\"\n" WINDOW
	"input ports Real angle (deg) -> window.displacement,\n"
	"\tReal speed (rad/s) -> window.speed,\n"
	"\tReal push (N) -> window.reaction_force\n"
	"output ports Real height (cm) <- window.height,\n"
	"\tReal torque (N.m) <- window.reaction_torque,\n"
	"\tReal temp (degC), Real current (A), Real volts (V), Real turns (rpm), Real plain\n"
	"out rules {\n"
	"\ttrue -> { } --> { units_sa.temp := 20.0; units_sa.current := 1.0;\n"
	"\t\tunits_sa.volts := 12.0; units_sa.turns := 60.0; units_sa.plain := 1.0; };\n"
	"}\n";

/* A reads B's initial value (fixed), B is read only by the rules (tunable), C and S are
 * never read (fixed), FLAG only by the rules; push has no start, so INIT_PARAMS_SA_PUSH
 * gives it one. */
static const char s_params[] =
	"semantic adaptation reactive moore params_sa\nat \"params_sa.fmu\"\n" WINDOW
	"input ports Real push (N) -> window.reaction_force\n"
	"param A := 2.0, B := A * 3, C := 1 + 2 * 3, Integer N := -7, Bool FLAG := true,\n"
	"\tS := \"hi <&> \\\"there\\\"\", E := floor(2.7) + max(1, 2.5), INIT_PARAMS_SA_PUSH := 2.5;\n"
	"control rules {\n"
	"\tvar step := H;\n"
	"\tif (FLAG and B > 0.0) {\n"
	"\t\tstep := do_step(window, t, H);\n"
	"\t}\n"
	"\treturn step;\n"
	"}\n";

/* inner_sa wraps a bare model description without canGetAndSetFMUstate; outer_sa wraps
 * inner_sa and window.fmu (which has it), and inherits the missing capability. */
static const char s_nested[] =
	"semantic adaptation reactive moore inner_sa\nat \"inner_sa.fmu\"\n"
	"\tfor inner fmu M m\n\t\tat \"fmi2_moore.xml\"\n"
	"param K := 1.0;\n"
	"\n"
	"semantic adaptation delayed mealy outer_sa\nat \"outer_sa.fmu\"\n"
	"\tfor inner fmu InnerSA inner_sa\n\t\tat \"inner_sa.fmu\"\n"
	WINDOW;

/* ---- the validator itself ---------------------------------------------------------------- */

#define MD_HEAD                                                                             \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                      \
	"<fmiModelDescription fmiVersion=\"2.0\" modelName=\"x\" guid=\"{x}\">\n"           \
	"<CoSimulation modelIdentifier=\"x\"/>\n<ModelVariables>\n"
#define MD_IN "<ScalarVariable name=\"u\" valueReference=\"0\" causality=\"input\" "  \
	      "variability=\"continuous\"><Real start=\"0\"/></ScalarVariable>\n"
#define MD_OUT "<ScalarVariable name=\"y\" valueReference=\"1\" causality=\"output\" " \
	       "variability=\"continuous\" initial=\"calculated\"><Real/></ScalarVariable>\n"
#define MD_PAR "<ScalarVariable name=\"p\" valueReference=\"2\" causality=\"parameter\" " \
	       "variability=\"fixed\" initial=\"exact\"><Real start=\"1\"/></ScalarVariable>\n"
#define MD_VARS_END "</ModelVariables>\n"
#define MD_TAIL "</fmiModelDescription>\n"
#define MD_STRUCT(outputs, initial)                                                         \
	"<ModelStructure><Outputs>" outputs "</Outputs><InitialUnknowns>" initial           \
	"</InitialUnknowns></ModelStructure>\n"
#define MD_GOOD_STRUCT                                                                      \
	MD_STRUCT("<Unknown index=\"2\" dependencies=\"1\" dependenciesKind=\"dependent\"/>",     \
		  "<Unknown index=\"2\" dependencies=\"1 3\"/>")

static const char *violation_of(const char *xml)
{
	return md_violation(xml, strlen(xml));
}

static void validator__well_formed_description__accepted(void **state)
{
	(void)state;
	const char *why = violation_of(MD_HEAD MD_IN MD_OUT MD_PAR MD_VARS_END MD_GOOD_STRUCT MD_TAIL);
	if (why)
		fail_msg("%s", why);
}

static void validator__broken_descriptions__each_rejected(void **state)
{
	(void)state;
	static const struct {
		const char *xml;
		const char *expect;
	} cases[] = {
		{MD_HEAD "<ScalarVariable name=\"u\" valueReference=\"0\" causality=\"input\" "
		 "variability=\"continuous\" initial=\"exact\"><Real start=\"0\"/></ScalarVariable>\n"
		 MD_OUT MD_PAR MD_VARS_END MD_GOOD_STRUCT MD_TAIL, "initial=\"exact\" with causality input"},
		{MD_HEAD "<ScalarVariable name=\"u\" valueReference=\"0\" causality=\"input\" "
		 "variability=\"continuous\"><Real/></ScalarVariable>\n"
		 MD_OUT MD_PAR MD_VARS_END MD_GOOD_STRUCT MD_TAIL, "'u' (input, initial ) has no start"},
		{MD_HEAD MD_IN "<ScalarVariable name=\"y\" valueReference=\"1\" causality=\"output\" "
		 "variability=\"continuous\"><Real start=\"2\"/></ScalarVariable>\n"
		 MD_PAR MD_VARS_END MD_GOOD_STRUCT MD_TAIL, "'y' (output, initial calculated) has a start"},
		{MD_HEAD MD_IN MD_OUT "<ScalarVariable name=\"p\" valueReference=\"2\" "
		 "causality=\"parameter\" variability=\"continuous\"><Real start=\"1\"/></ScalarVariable>\n"
		 MD_VARS_END MD_GOOD_STRUCT MD_TAIL, "causality parameter with variability continuous"},
		{MD_HEAD MD_IN MD_OUT "<ScalarVariable name=\"p\" valueReference=\"2\" "
		 "causality=\"parameter\" variability=\"tunable\" initial=\"calculated\"><Real/>"
		 "</ScalarVariable>\n" MD_VARS_END MD_GOOD_STRUCT MD_TAIL,
		 "initial=\"calculated\" with causality parameter"},
		{MD_HEAD MD_IN MD_OUT "<ScalarVariable name=\"p\" valueReference=\"1\" "
		 "causality=\"parameter\" variability=\"fixed\"><Real start=\"1\"/></ScalarVariable>\n"
		 MD_VARS_END MD_GOOD_STRUCT MD_TAIL, "share Real value reference 1"},
		{MD_HEAD MD_IN MD_OUT MD_PAR MD_VARS_END
		 "<ModelStructure><InitialUnknowns><Unknown index=\"2\"/></InitialUnknowns>"
		 "</ModelStructure>\n" MD_TAIL, "Outputs does not list index 2 ('y')"},
		{MD_HEAD MD_IN MD_OUT MD_PAR MD_VARS_END
		 MD_STRUCT("<Unknown index=\"2\" dependencies=\"3\"/>", "<Unknown index=\"2\"/>")
		 MD_TAIL, "depends on index 3, which is not an input"},
		{MD_HEAD MD_IN MD_OUT MD_PAR MD_VARS_END
		 MD_STRUCT("<Unknown index=\"2\" dependencies=\"1\" dependenciesKind=\"linear\"/>",
			   "<Unknown index=\"2\"/>") MD_TAIL, "dependenciesKind 'linear'"},
		{MD_HEAD MD_IN MD_OUT MD_PAR MD_VARS_END
		 MD_STRUCT("<Unknown index=\"2\" dependencies=\"\"/>", "") MD_TAIL,
		 "InitialUnknowns does not list index 2"},
		{MD_HEAD MD_IN MD_OUT MD_PAR MD_VARS_END
		 MD_STRUCT("<Unknown index=\"2\" dependencies=\"\"/>",
			   "<Unknown index=\"2\" dependencies=\"2\"/>") MD_TAIL,
		 "depends on 2, which is not an input or an exact variable"},
		{MD_HEAD "<ScalarVariable name=\"u\" valueReference=\"0\" causality=\"input\" "
		 "variability=\"continuous\"><Real unit=\"cm\" start=\"0\"/></ScalarVariable>\n"
		 MD_OUT MD_PAR MD_VARS_END MD_GOOD_STRUCT MD_TAIL, "which UnitDefinitions does not define"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *why = violation_of(cases[i].xml);
		if (!why)
			fail_msg("case %zu was accepted; expected \"%s\"", i, cases[i].expect);
		if (!strstr(why, cases[i].expect))
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, why, cases[i].expect);
	}
}


/* ---- dependencies ------------------------------------------------------------------------ */

#define FEEDTHROUGH "\tfor inner fmu Feedthrough f\n\t\tat \"feedthrough.fmu\"\n"

/* A pass-through of the feedthrough FMU: each output on its own input, as the inner
 * declares, and the discrete ports stay discrete. */
static void emit_md__pass_through__inner_dependencies_port_by_port(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, "semantic adaptation reactive mealy pass_sa\nat \"pass_sa.fmu\"\n"
		  FEEDTHROUGH, "pass_sa");
	const FmuInfo *f = e.md;
	assert_deps(f, "Float64_continuous_output", "Float64_continuous_input", NULL);
	assert_deps(f, "Float64_discrete_output", "Float64_discrete_input", NULL);
	assert_deps(f, "Int32_output", "Int32_input", NULL);
	assert_deps(f, "Boolean_output", "Boolean_input", NULL);
	assert_init_deps(f, "Int32_output", "Int32_input", NULL);
	assert_int_equal(md_var(f, "Float64_continuous_input")->variability, VAR_CONTINUOUS);
	assert_int_equal(md_var(f, "Float64_continuous_output")->variability, VAR_CONTINUOUS);
	assert_int_equal(md_var(f, "Float64_discrete_input")->variability, VAR_DISCRETE);
	assert_int_equal(md_var(f, "Float64_discrete_output")->variability, VAR_DISCRETE);
	emitted_free(&e);
}

/* Out rules: one reads an input (directly, and through a condition), one an inner
 * output with no dependencies (the integrator's state), one a constant. */
static void emit_md__out_rules__inputs_read_are_dependencies(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, "semantic adaptation reactive mealy rules_sa\nat \"rules_sa.fmu\"\n"
		  "\tfor inner fmu Integrator integ\n\t\tat \"integrator.fmu\"\n"
		  "input ports Real u -> integ.u, Real v, Real w\n"
		  "output ports Real twice, Real x, Real sign, Real one\n"
		  "out rules {\n"
		  "\ttrue -> { } --> { rules_sa.twice := 2.0 * rules_sa.v; rules_sa.x := integ.x; };\n"
		  "\trules_sa.w > 0.0 -> { } --> { rules_sa.sign := 1.0; };\n"
		  "\ttrue -> { } --> { rules_sa.one := 1.0; };\n"
		  "}\n", "rules_sa");
	const FmuInfo *f = e.md;
	assert_deps(f, "twice", "v", NULL);
	assert_deps(f, "x", NULL); /* the integrator's x depends on no input */
	assert_deps(f, "sign", "w", NULL);
	assert_deps(f, "one", NULL);
	emitted_free(&e);
}

/* In rules feed an in var; an out rule reads it: a dependency.  The control rules feed
 * the inner from another in var before its step: not a dependency, since G does not run
 * them (an output after the step sees that input through the step only). */
static void emit_md__control_rules_input__through_the_step_only(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, "semantic adaptation reactive mealy ctrl_sa\nat \"ctrl_sa.fmu\"\n"
		  FEEDTHROUGH
		  "input ports Real a, Real b\n"
		  "output ports Real ya, Real yb\n"
		  "control rules {\n"
		  "\tf.Float64_continuous_input := sb;\n"
		  "\tvar step := do_step(f, t, H);\n"
		  "\treturn step;\n"
		  "}\n"
		  "in var sa := 0.0, sb := 0.0;\n"
		  "in rules { true -> { sa := ctrl_sa.a; sb := ctrl_sa.b; } --> { }; }\n"
		  "out rules {\n"
		  "\ttrue -> { } --> { ctrl_sa.ya := 3.0 * sa; ctrl_sa.yb := f.Float64_continuous_output; };\n"
		  "}\n", "ctrl_sa");
	const FmuInfo *f = e.md;
	assert_deps(f, "ya", "a", NULL);
	assert_deps(f, "yb", NULL);
	emitted_free(&e);
}

/* A Moore wrapper: no output depends on an input between steps, but the Init sequence
 * (In, the inners, Out) makes a pass-through's initial outputs follow its inputs. */
static void emit_md__moore__no_dependencies_but_initial_ones(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, "semantic adaptation reactive moore moore_sa\nat \"moore_sa.fmu\"\n"
		  FEEDTHROUGH, "moore_sa");
	const FmuInfo *f = e.md;
	assert_false(f->is_mealy);
	assert_deps(f, "Int32_output", NULL);
	assert_init_deps(f, "Int32_output", "Int32_input", NULL);
	assert_init_deps(f, "Boolean_output", "Boolean_input", NULL);
	emitted_free(&e);
}

/* A wrapper over a wrapper (an adaptation of this build) and an internal coupling: the
 * inner adaptation's dependencies are its own analysis's, through the coupling into a
 * second inner; its discrete port is discrete in the outer wrapper too. */
static void emit_md__nested__dependencies_compose(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, "semantic adaptation reactive mealy in_sa\nat \"in_sa.fmu\"\n" FEEDTHROUGH
		  "\n"
		  "semantic adaptation reactive mealy out_sa\nat \"out_sa.fmu\"\n"
		  "\tfor inner fmu InSA a\n\t\tat \"in_sa.fmu\"\n" FEEDTHROUGH
		  "\tcoupled as a.Int32_output -> f.Int32_input\n"
		  "input ports Real u -> a.Float64_continuous_input, Real d -> a.Float64_discrete_input,\n"
		  "\tInteger i -> a.Int32_input, Bool p -> a.Boolean_input,\n"
		  "\tReal fu -> f.Float64_continuous_input, Real fd -> f.Float64_discrete_input,\n"
		  "\tBool fp -> f.Boolean_input\n"
		  "output ports Integer k <- f.Int32_output, Real y <- f.Float64_continuous_output,\n"
		  "\tReal ad <- a.Float64_discrete_output\n", "out_sa");
	const FmuInfo *f = e.md;
	assert_deps(f, "k", "i", NULL);
	assert_deps(f, "y", "fu", NULL);
	assert_deps(f, "ad", "d", NULL);
	assert_int_equal(md_var(f, "d")->variability, VAR_DISCRETE);
	assert_int_equal(md_var(f, "ad")->variability, VAR_DISCRETE);
	assert_int_equal(md_var(f, "u")->variability, VAR_CONTINUOUS);
	emitted_free(&e);
}

/* The same dependencies in an FMI 3.0 description: value references, not indices. */
static void emit_md3__pass_through__dependencies_by_value_reference(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, "semantic adaptation reactive mealy pass_sa\nat \"pass_sa.fmu\"\n"
		  FEEDTHROUGH, "pass_sa");
	size_t len = 0;
	char *xml = emit_md3_buffer(e.t->c, e.l, &len);
	assert_non_null(xml);
	uint32_t in = emit_vr3(e.l, TY_INTEGER, layout_var(e.l, "Int32_input")->vr);
	uint32_t out = emit_vr3(e.l, TY_INTEGER, layout_var(e.l, "Int32_output")->vr);
	char want[160];
	snprintf(want, sizeof want, "<Output valueReference=\"%u\" dependencies=\"%u\" "
		 "dependenciesKind=\"dependent\"/>", (unsigned)out, (unsigned)in);
	assert_contains(xml, want);
	assert_contains(xml, "<Float64 name=\"Float64_discrete_input\"");
	assert_non_null(strstr(strstr(xml, "name=\"Float64_discrete_input\""),
			       "variability=\"discrete\""));
	free(xml);
	emitted_free(&e);
}

/* ---- the power-window adaptations -------------------------------------------------------- */

static void emit_md__window_sa__reactive_mealy_over_three_inputs(void **state)
{
	(void)state;
	Emitted e;
	emit_pw(&e, "window_sa");
	const FmuInfo *f = e.md;
	assert_string_equal(f->fmi_version, "2.0");
	assert_string_equal(f->model_name, "window_sa");
	assert_string_equal(f->model_identifier, "window_sa");
	assert_string_equal(f->generation_tool, "sacc " SACC_VERSION);
	assert_true(f->can_handle_variable_step);
	assert_true(f->can_interpolate_inputs);
	assert_true(f->can_get_and_set_fmu_state); /* window.fmu has both */
	assert_true(f->can_not_use_memory_management_functions); /* the runtime mallocs */
	assert_true(f->can_serialize_fmu_state);
	assert_true(f->is_mealy);
	assert_true(f->is_reactive);
	assert_int_equal(f->noutputs, 2);
	assert_string_equal(f->vars[f->outputs[0].var].name, "disp");
	assert_string_equal(f->vars[f->outputs[1].var].name, "tau");
	/* window.fmu's own: height from the displacement, the torque from speed and force */
	assert_deps(f, "disp", "displacement", NULL);
	assert_deps(f, "tau", "speed", "reaction_force", NULL);
	/* inputs first, then outputs, then params, then the inner's parameters */
	static const char *const order[] = {
		"displacement", "speed", "reaction_force", "disp", "tau",
		"INIT_WINDOW_SA_DISPLACEMENT", "INIT_WINDOW_SA_SPEED", "INIT_WINDOW_SA_REACTION_FORCE",
		"INIT_WINDOW_HEIGHT", "INIT_WINDOW_REACTION_TORQUE", "window.r", "window.b",
	};
	assert_int_equal(f->nvars, 12);
	for (int i = 0; i < 12; i++) {
		assert_string_equal(f->vars[i].name, order[i]);
		assert_int_equal(f->vars[i].vr, (uint32_t)i); /* all Real: 0..11 */
	}
	const FmuVar *disp = md_var(f, "disp");
	assert_int_equal(disp->causality, CAUS_OUTPUT);
	assert_int_equal(disp->initial, INIT_CALCULATED);
	assert_null(disp->start);
	assert_string_equal(disp->unit, "m");
	const FmuVar *speed = md_var(f, "speed");
	assert_int_equal(speed->variability, VAR_CONTINUOUS);
	assert_string_equal(speed->start, "0");
	assert_string_equal(speed->unit, "rad/s");
	const FmuVar *init = md_var(f, "INIT_WINDOW_HEIGHT");
	assert_int_equal(init->variability, VAR_FIXED);
	assert_int_equal(init->initial, INIT_EXACT);
	/* the banner, and nothing time-dependent */
	assert_contains(e.xml, "<!-- Generated by sacc " SACC_VERSION " from adaptation "
			       "window_sa (window_sa.sa). Do not edit");
	assert_null(strstr(e.xml, "generationDateAndTime"));
	emitted_free(&e);
}

static void emit_md__loop_sa__moore_outputs_without_dependencies(void **state)
{
	(void)state;
	Emitted e;
	emit_pw(&e, "loop_sa");
	const FmuInfo *f = e.md;
	assert_false(f->is_mealy);
	assert_true(f->can_interpolate_inputs);
	assert_output_deps(f, false);
	assert_contains(e.xml, "<Unknown index=\"3\" dependencies=\"\"/>");
	/* window_sa (an adaptation) and obstacle.fmu both allow state handling */
	assert_true(f->can_get_and_set_fmu_state);
	assert_true(f->can_serialize_fmu_state);
	/* read only by the control rules: tunable; MAXITER is the one Integer */
	assert_int_equal(md_var(f, "MAXITER")->variability, VAR_TUNABLE);
	assert_int_equal(md_var(f, "MAXITER")->type, FT_INTEGER);
	assert_int_equal(md_var(f, "MAXITER")->vr, 0);
	assert_string_equal(md_var(f, "MAXITER")->start, "10");
	assert_int_equal(md_var(f, "REL_TOL")->variability, VAR_TUNABLE);
	assert_string_equal(md_var(f, "REL_TOL")->start, "1e-05");
	assert_int_equal(md_var(f, "INIT_LOOP_SA_SPEED")->variability, VAR_FIXED);
	/* inputs without a start of their own take their INIT_ param's */
	assert_string_equal(md_var(f, "displacement")->start, "0");
	emitted_free(&e);
}

static void emit_md__controller_sa__bool_inputs_discrete_with_own_references(void **state)
{
	(void)state;
	Emitted e;
	emit_pw(&e, "controller_sa");
	const FmuInfo *f = e.md;
	assert_false(f->is_mealy);
	assert_output_deps(f, false);
	const FmuVar *up = md_var(f, "passenger_up");
	assert_int_equal(up->type, FT_BOOLEAN);
	assert_int_equal(up->variability, VAR_DISCRETE);
	assert_string_equal(up->start, "false");
	assert_int_equal(up->vr, 0); /* the first Boolean */
	assert_int_equal(md_var(f, "armature_current")->vr, 0); /* the first Real */
	assert_string_equal(md_var(f, "armature_current")->unit, "A");
	assert_int_equal(md_var(f, "u")->vr, 1);
	assert_null(md_var(f, "u")->unit);
	/* RTOL, ATOL and T only in the control rules; INIT_V is p_v's and f_v's initial value */
	assert_int_equal(md_var(f, "RTOL")->variability, VAR_TUNABLE);
	assert_int_equal(md_var(f, "T")->variability, VAR_TUNABLE);
	assert_int_equal(md_var(f, "INIT_V")->variability, VAR_FIXED);
	assert_string_equal(md_var(f, "ATOL")->start, "0.0005");
	/* lazy_sa is an adaptation over controller.fmu, which has the state functions */
	assert_true(f->can_get_and_set_fmu_state);
	const FmuUnit *a = md_unit(f, "A");
	assert_true(a->has_base);
	assert_int_equal(a->A, 1);
	assert_int_equal(a->kg + a->m + a->s + a->K + a->mol + a->cd + a->rad, 0);
	emitted_free(&e);
}

static void emit_md__power_sa__delayed_cannot_interpolate(void **state)
{
	(void)state;
	Emitted e;
	emit_pw(&e, "power_sa");
	assert_false(e.md->can_interpolate_inputs);
	assert_false(e.l->reactive);
	assert_output_deps(e.md, false);
	assert_string_equal(md_var(e.md, "tau")->unit, "N.m");
	emitted_free(&e);
}

static void emit_md__every_powerwindow_script__valid(void **state)
{
	(void)state;
	static const char *const names[] = {"window_sa", "loop_sa", "rate_sa", "lazy_sa",
	                                    "controller_sa", "power_sa"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		Emitted e;
		emit_pw(&e, names[i]); /* validates */
		emitted_free(&e);
	}
}

/* ---- reproducibility and the GUID -------------------------------------------------------- */

static void emit_md__same_input_twice__byte_identical(void **state)
{
	(void)state;
	Emitted a, b;
	emit_pw(&a, "loop_sa");
	emit_pw(&b, "loop_sa");
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.xml, b.xml, a.len);
	emitted_free(&a);
	emitted_free(&b);
}

static void emit_md__guid__name_based_uuid(void **state)
{
	(void)state;
	Emitted e;
	emit_pw(&e, "window_sa");
	const char *g = e.md->guid;
	assert_int_equal(strlen(g), 38);
	assert_int_equal(g[0], '{');
	assert_int_equal(g[37], '}');
	for (int i = 1; i < 37; i++) {
		if (i == 9 || i == 14 || i == 19 || i == 24)
			assert_int_equal(g[i], '-');
		else
			assert_non_null(strchr("0123456789abcdef", g[i]));
	}
	assert_int_equal(g[15], '5');                    /* version 5 */
	assert_non_null(strchr("89ab", g[20]));         /* RFC 4122 variant */
	assert_string_equal(g, e.l->guid);
	emitted_free(&e);
}

static void emit_md__different_script__different_guid(void **state)
{
	(void)state;
	Emitted a, b, c;
	emit_text(&a, s_params, "params_sa");
	/* one constant changed */
	char *changed = strdup(s_params);
	char *at = strstr(changed, "A := 2.0");
	at[5] = '3';
	emit_text(&b, changed, "params_sa");
	emit_pw(&c, "window_sa");
	assert_string_not_equal(a.md->guid, b.md->guid);
	assert_string_not_equal(a.md->guid, c.md->guid);
	free(changed);
	emitted_free(&a);
	emitted_free(&b);
	emitted_free(&c);
}

static void emit_md__inner_adaptation_changes__outer_guid_changes(void **state)
{
	(void)state;
	Emitted a, b;
	emit_text(&a, s_nested, "outer_sa");
	char *changed = strdup(s_nested);
	char *at = strstr(changed, "K := 1.0");
	at[5] = '2';
	emit_text(&b, changed, "outer_sa");
	/* outer_sa's own text is the same; only its inner adaptation differs */
	assert_string_not_equal(a.md->guid, b.md->guid);
	free(changed);
	emitted_free(&a);
	emitted_free(&b);
}

/* ---- capabilities ------------------------------------------------------------------------ */

static void emit_md__inner_without_state__no_state_capabilities(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_nested, "inner_sa");
	assert_false(e.md->can_get_and_set_fmu_state); /* fmi2_moore.xml says nothing */
	assert_false(e.md->can_serialize_fmu_state);
	assert_true(e.md->can_interpolate_inputs);
	emitted_free(&e);
}

static void emit_md__nested_without_state__inherits_through_adaptation(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_nested, "outer_sa");
	/* window.fmu has state functions, but inner_sa's fmi2_moore.xml has not */
	assert_false(e.md->can_get_and_set_fmu_state);
	assert_false(e.md->can_serialize_fmu_state);
	assert_false(e.md->can_interpolate_inputs); /* delayed */
	assert_true(e.md->is_mealy);
	/* the Moore inner adaptation's outputs depend on no input, the window's on its own */
	assert_deps(e.md, "y", NULL);
	assert_deps(e.md, "z", NULL);
	assert_deps(e.md, "height", "displacement", NULL);
	assert_deps(e.md, "reaction_torque", "speed", "reaction_force", NULL);
	emitted_free(&e);
}

/* ---- DefaultExperiment ------------------------------------------------------------------- */

static const char s_experiment[] =
	"semantic adaptation reactive mealy experiment_sa\nat \"experiment_sa.fmu\"\n"
	"\tfor inner fmu F full\n\t\tat \"fmi2_full.xml\"\n" WINDOW;

/* The inners' largest start, smallest stop and smallest step: fmi2_full.xml declares 0.5,
 * 20 and 0.01, window.fmu 0, 10 and 0.001; through an inner adaptation too (inner_sa's
 * fmi2_moore.xml declares none, so outer_sa's is window's). */
static void emit_md__default_experiment__folded_from_the_inners(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_experiment, "experiment_sa");
	assert_contains(e.xml, "<DefaultExperiment startTime=\"0.5\" stopTime=\"10\" "
	                       "stepSize=\"0.001\"/>");
	assert_true(e.md->default_start == 0.5 && e.md->default_stop == 10 &&
	            e.md->default_step == 0.001);
	emitted_free(&e);
	emit_text(&e, s_nested, "outer_sa");
	assert_contains(e.xml, "<DefaultExperiment startTime=\"0\" stopTime=\"10\" "
	                       "stepSize=\"0.001\"/>");
	emitted_free(&e);
	emit_text(&e, s_nested, "inner_sa");
	assert_null(strstr(e.xml, "DefaultExperiment"));
	emitted_free(&e);
}

/* ---- units ------------------------------------------------------------------------------- */

static void assert_base(const FmuUnit *u, int kg, int m, int s, int A, int K, int rad)
{
	assert_true(u->has_base);
	if (u->kg != kg || u->m != m || u->s != s || u->A != A || u->K != K || u->rad != rad ||
	    u->mol != 0 || u->cd != 0)
		fail_msg("unit '%s': kg=%d m=%d s=%d A=%d K=%d rad=%d mol=%d cd=%d", u->name, u->kg,
			 u->m, u->s, u->A, u->K, u->rad, u->mol, u->cd);
}

static void emit_md__declared_units__base_units_and_factors(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_units, "units_sa");
	const FmuInfo *f = e.md;
	const FmuUnit *cm = md_unit(f, "cm");
	assert_base(cm, 0, 1, 0, 0, 0, 0);
	assert_true(cm->factor == 0.01);
	assert_contains(e.xml, "<BaseUnit m=\"1\" factor=\"0.01\"/>");
	const FmuUnit *n = md_unit(f, "N");
	assert_base(n, 1, 1, -2, 0, 0, 0);
	assert_true(n->factor == 1.0 && n->offset == 0.0);
	assert_base(md_unit(f, "N.m"), 1, 2, -2, 0, 0, 0);
	assert_base(md_unit(f, "rad/s"), 0, 0, -1, 0, 0, 1);
	const FmuUnit *deg = md_unit(f, "deg");
	assert_base(deg, 0, 0, 0, 0, 0, 1);
	assert_close(deg->factor, pi / 180, 1e-17);
	const FmuUnit *degc = md_unit(f, "degC");
	assert_base(degc, 0, 0, 0, 0, 1, 0);
	assert_true(degc->factor == 1.0 && degc->offset == 273.15);
	assert_contains(e.xml, "<BaseUnit K=\"1\" offset=\"273.15\"/>");
	assert_base(md_unit(f, "A"), 0, 0, 0, 1, 0, 0);
	assert_base(md_unit(f, "V"), 1, 2, -3, -1, 0, 0);
	const FmuUnit *rpm = md_unit(f, "rpm");
	assert_base(rpm, 0, 0, -1, 0, 0, 1);
	assert_close(rpm->factor, 2 * pi / 60, 1e-16);
	/* every unit once, in order of first use (window.r's m among them); a port without a
	 * unit has none */
	assert_int_equal(f->nunits, 10);
	assert_string_equal(f->units[0].name, "deg");
	assert_null(md_var(f, "plain")->unit);
	emitted_free(&e);
}

typedef struct BaseCase {
	const char *spelling;
	int kg, m, s, A, K, mol, cd, rad;
	double factor, offset;
} BaseCase;

static void units_base__spellings__fmi_base_units(void **state)
{
	(void)state;
	static const BaseCase cases[] = {
		{"N", 1, 1, -2, 0, 0, 0, 0, 0, 1, 0},
		{"rad/s", 0, 0, -1, 0, 0, 0, 0, 1, 1, 0},
		{"Hz", 0, 0, -1, 0, 0, 0, 0, 0, 1, 0}, /* rad counts, cycles do not */
		{"rad", 0, 0, 0, 0, 0, 0, 0, 1, 1, 0},
		{"radians", 0, 0, 0, 0, 0, 0, 0, 1, 1, 0},
		{"mrad", 0, 0, 0, 0, 0, 0, 0, 1, 0.001, 0},
		{"sr", 0, 0, 0, 0, 0, 0, 0, 2, 1, 0},
		{"lm", 0, 0, 0, 0, 0, 0, 1, 2, 1, 0},
		{"cm", 0, 1, 0, 0, 0, 0, 0, 0, 0.01, 0},
		{"km/h", 0, 1, -1, 0, 0, 0, 0, 0, 1 / 3.6, 0},
		{"degC", 0, 0, 0, 0, 1, 0, 0, 0, 1, 273.15},
		{"degF", 0, 0, 0, 0, 1, 0, 0, 0, 5.0 / 9, 459.67 * 5 / 9},
		{"N.m", 1, 2, -2, 0, 0, 0, 0, 0, 1, 0},
		{"A", 0, 0, 0, 1, 0, 0, 0, 0, 1, 0},
		{"V", 1, 2, -3, -1, 0, 0, 0, 0, 1, 0},
		{"mol/l", 0, -3, 0, 0, 0, 1, 0, 0, 1000, 0},
		{"deg", 0, 0, 0, 0, 0, 0, 0, 1, pi / 180, 0},
		{"\xc2\xb0/s", 0, 0, -1, 0, 0, 0, 0, 1, pi / 180, 0},
		{"rpm", 0, 0, -1, 0, 0, 0, 0, 1, 2 * pi / 60, 0},
		{"rev/min", 0, 0, -1, 0, 0, 0, 0, 1, 2 * pi / 60, 0},
		{"kg.m2", 1, 2, 0, 0, 0, 0, 0, 0, 1, 0},
		{"m.s-1", 0, 1, -1, 0, 0, 0, 0, 0, 1, 0},
		{"1", 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
		{"%", 0, 0, 0, 0, 0, 0, 0, 0, 0.01, 0},
		{"h", 0, 0, 1, 0, 0, 0, 0, 0, 3600, 0},
	};
	const char *why = NULL;
	UnitSystem *us = units_open(&why);
	assert_non_null(us);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const BaseCase *c = &cases[i];
		UnitsBase b;
		if (units_base(us, c->spelling, &b) != UNITS_OK)
			fail_msg("'%s' has no base units", c->spelling);
		if (b.kg != c->kg || b.m != c->m || b.s != c->s || b.A != c->A || b.K != c->K ||
		    b.mol != c->mol || b.cd != c->cd || b.rad != c->rad)
			fail_msg("'%s': kg=%d m=%d s=%d A=%d K=%d mol=%d cd=%d rad=%d", c->spelling,
				 b.kg, b.m, b.s, b.A, b.K, b.mol, b.cd, b.rad);
		assert_close(b.factor, c->factor, 1e-15 * fabs(c->factor));
		assert_close(b.offset, c->offset, 1e-12);
	}
	/* decimal factors exact, as in units_conversion */
	UnitsBase b;
	assert_int_equal(units_base(us, "cm", &b), UNITS_OK);
	assert_true(b.factor == 0.01);
	assert_int_equal(units_base(us, "degC", &b), UNITS_OK);
	assert_true(b.offset == 273.15);
	/* the checker's system still treats the radian as the number 1 */
	double scale, offset;
	assert_int_equal(units_conversion(us, "rad/s", "Hz", &scale, &offset), UNITS_OK);
	assert_true(scale == 1.0);
	units_close(us);
}

static void units_base__not_affine_or_unknown__reported(void **state)
{
	(void)state;
	const char *why = NULL;
	UnitSystem *us = units_open(&why);
	assert_non_null(us);
	UnitsBase b;
	assert_int_equal(units_base(us, "lg(re mW)", &b), UNITS_INCOMMENSURABLE);
	assert_int_equal(units_base(us, "s since 2000-01-01", &b), UNITS_INCOMMENSURABLE);
	assert_int_equal(units_base(us, "bogus", &b), UNITS_UNKNOWN_FROM);
	assert_int_equal(units_base(us, "", &b), UNITS_UNKNOWN_FROM);
	assert_int_equal(units_base(NULL, "m", &b), UNITS_UNKNOWN_FROM);
	units_close(us);
}

/* ---- params ------------------------------------------------------------------------------ */

static void emit_md__params__constant_values_and_variability(void **state)
{
	(void)state;
	Emitted e;
	emit_text(&e, s_params, "params_sa");
	const FmuInfo *f = e.md;
	assert_int_equal(md_var(f, "A")->variability, VAR_FIXED);   /* in B's value */
	assert_int_equal(md_var(f, "B")->variability, VAR_TUNABLE); /* in the rules only */
	assert_int_equal(md_var(f, "C")->variability, VAR_FIXED);   /* never read */
	assert_int_equal(md_var(f, "FLAG")->variability, VAR_TUNABLE);
	assert_string_equal(md_var(f, "A")->start, "2");
	assert_string_equal(md_var(f, "B")->start, "6");
	assert_string_equal(md_var(f, "C")->start, "7");
	assert_int_equal(md_var(f, "C")->type, FT_INTEGER);
	assert_string_equal(md_var(f, "N")->start, "-7");
	assert_string_equal(md_var(f, "FLAG")->start, "true");
	assert_int_equal(md_var(f, "FLAG")->type, FT_BOOLEAN);
	assert_string_equal(md_var(f, "S")->start, "hi <&> \"there\"");
	assert_string_equal(md_var(f, "E")->start, "4.5");
	/* push has no start of its own: its INIT_ param's */
	assert_string_equal(md_var(f, "push")->start, "2.5");
	const EmitVar *b = layout_var(e.l, "B");
	assert_true(b->has_start);
	assert_true(b->start.r == 6.0);
	/* value references: Reals push, outputs (height, reaction_torque), A, B, E, INIT...;
	 * Integers C, N; Booleans FLAG; Strings S */
	assert_int_equal(md_var(f, "push")->vr, 0);
	assert_int_equal(md_var(f, "C")->vr, 0);
	assert_int_equal(md_var(f, "N")->vr, 1);
	assert_int_equal(md_var(f, "FLAG")->vr, 0);
	assert_int_equal(md_var(f, "S")->vr, 0);
	assert_int_equal(e.l->ninteger, 2);
	assert_int_equal(e.l->nboolean, 1);
	assert_int_equal(e.l->nstring, 1);
	emitted_free(&e);
}

static void emit_md__param_not_constant__error_at_param(void **state)
{
	(void)state;
	char *d = emit_text_fails(
		"semantic adaptation reactive moore bad_sa\nat \"bad_sa.fmu\"\n" WINDOW
		"param Q := round(2.5, 1), Integer BIG := 3000000000, D := 1.0 / 0.0, R := Q + 1.0;\n",
		"bad_sa");
	assert_contains(d, "emit_test.sa:5:7: error: the value of param 'Q' cannot be written "
			   "to the model description");
	assert_contains(d, "note: round to a number of digits is not evaluated at compile time");
	assert_contains(d, "error: the value of param 'BIG' cannot be written");
	assert_contains(d, "note: a wrapper's Integer has 32 bits (FMI 2.0 Integer, FMI 3.0 Int32) and this value does not fit");
	assert_contains(d, "error: the value of param 'D' cannot be written");
	assert_contains(d, "note: it divides by zero");
	assert_contains(d, "error: the value of param 'R' cannot be written");
	assert_contains(d, "note: parameter 'Q' has no constant value");
	free(d);
}

/* ---- files ------------------------------------------------------------------------------- */

static void emit_md__to_file__same_bytes_as_buffer(void **state)
{
	(void)state;
	Emitted e;
	emit_pw(&e, "window_sa");
	char dir[] = "/tmp/sacc_emit_md_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	assert_int_equal(emit_md_to_file(e.t->c, e.l, path), 0);
	size_t len;
	char *text = read_file(path, 1 << 20, &len);
	assert_non_null(text);
	assert_int_equal(len, e.len);
	assert_memory_equal(text, e.xml, len);
	free(text);
	/* read back through fmu_open, as an inner `at "modelDescription.xml"` would be */
	DiagSink *d = diag_new(e.t->stream);
	FmuInfo *f = fmu_open(path, d);
	diag_free(d);
	assert_non_null(f);
	assert_string_equal(f->guid, e.l->guid);
	fmu_free(f);
	remove(path);
	assert_int_equal(emit_md_to_file(e.t->c, e.l, "/nonexistent-dir/x.xml"), 1);
	assert_contains(tr_diag(e.t), "/nonexistent-dir/x.xml: error: cannot write");
	rmdir(dir);
	emitted_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(validator__well_formed_description__accepted),
		cmocka_unit_test(validator__broken_descriptions__each_rejected),
		cmocka_unit_test(emit_md__window_sa__reactive_mealy_over_three_inputs),
		cmocka_unit_test(emit_md__loop_sa__moore_outputs_without_dependencies),
		cmocka_unit_test(emit_md__pass_through__inner_dependencies_port_by_port),
		cmocka_unit_test(emit_md__out_rules__inputs_read_are_dependencies),
		cmocka_unit_test(emit_md__control_rules_input__through_the_step_only),
		cmocka_unit_test(emit_md__moore__no_dependencies_but_initial_ones),
		cmocka_unit_test(emit_md__nested__dependencies_compose),
		cmocka_unit_test(emit_md3__pass_through__dependencies_by_value_reference),
		cmocka_unit_test(emit_md__controller_sa__bool_inputs_discrete_with_own_references),
		cmocka_unit_test(emit_md__power_sa__delayed_cannot_interpolate),
		cmocka_unit_test(emit_md__every_powerwindow_script__valid),
		cmocka_unit_test(emit_md__same_input_twice__byte_identical),
		cmocka_unit_test(emit_md__guid__name_based_uuid),
		cmocka_unit_test(emit_md__different_script__different_guid),
		cmocka_unit_test(emit_md__inner_adaptation_changes__outer_guid_changes),
		cmocka_unit_test(emit_md__inner_without_state__no_state_capabilities),
		cmocka_unit_test(emit_md__nested_without_state__inherits_through_adaptation),
		cmocka_unit_test(emit_md__default_experiment__folded_from_the_inners),
		cmocka_unit_test(emit_md__declared_units__base_units_and_factors),
		cmocka_unit_test(units_base__spellings__fmi_base_units),
		cmocka_unit_test(units_base__not_affine_or_unknown__reported),
		cmocka_unit_test(emit_md__params__constant_values_and_variability),
		cmocka_unit_test(emit_md__param_not_constant__error_at_param),
		cmocka_unit_test(emit_md__to_file__same_bytes_as_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
