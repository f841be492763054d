/* fmu_print.c — `sacc inspect`: an FmuInfo as a readable summary or as JSON.
 *
 * Both forms show the same facts in the same order: identity, the paper's classification,
 * the Co-Simulation capabilities, variables, units and output dependencies.  The JSON keys
 * never change order and absent values are null, so scripts and golden files can rely on
 * the shape. */
#include "fmu.h"
#include "arena.h"
#include "util.h"
#include "numfmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The shortest text that reads back as x (integral values as integers below 1e17). */
static void fmt_double(char *buf, size_t size, double x)
{
	char text[FMT_REAL_MAX];
	fmt_real(text, x);
	snprintf(buf, size, "%s", text);
}

/* ---- the table -------------------------------------------------------------------------- */

/* Display width of a UTF-8 string: code points, not bytes. */
static int text_width(const char *s)
{
	int w = 0;
	for (; s && *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Writes s with control characters blanked (descriptions may hold new lines), padded to
 * width columns. */
static void put_cell(FILE *out, const char *s, int width)
{
	int w = 0;
	for (const char *p = s ? s : ""; *p; p++) {
		unsigned char c = (unsigned char)*p;
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, out);
		w += (c & 0xC0) != 0x80;
	}
	for (; w < width; w++)
		fputc(' ', out);
}

static void put_field(FILE *out, const char *key, const char *value)
{
	fprintf(out, "  %-21s", key);
	put_cell(out, value, 0);
	fputc('\n', out);
}

static const char *kind_name(const FmuInfo *f)
{
	static const char *const kinds[2][2] = {
		{"delayed moore", "delayed mealy"},
		{"reactive moore", "reactive mealy"},
	};
	return kinds[f->is_reactive][f->is_mealy];
}

typedef struct Cap {
	const char *name;
	int value; /* 0/1 for flags; for maxOutputDerivativeOrder the order */
	bool is_flag;
	const char *json; /* its JSON key when not name (a count the XML has no attribute for) */
} Cap;

/* The capabilities the FMU's version defines, under the names its XML uses. */
static int capabilities(const FmuInfo *f, Cap *caps)
{
	int n = 0;
#define CAP(nm, v) (caps[n++] = (Cap){nm, (v), true, NULL})
	CAP("canHandleVariableCommunicationStepSize", f->can_handle_variable_step);
	CAP("canInterpolateInputs", f->can_interpolate_inputs);
	caps[n++] = (Cap){"maxOutputDerivativeOrder", f->max_output_derivative_order, false, NULL};
	if (f->version == FMI_V2) {
		CAP("canRunAsynchronuously", f->can_run_asynchronously);
		CAP("canBeInstantiatedOnlyOncePerProcess", f->can_be_instantiated_only_once_per_process);
		CAP("canNotUseMemoryManagementFunctions", f->can_not_use_memory_management_functions);
		CAP("canGetAndSetFMUstate", f->can_get_and_set_fmu_state);
		CAP("canSerializeFMUstate", f->can_serialize_fmu_state);
		CAP("providesDirectionalDerivative", f->provides_directional_derivative);
		CAP("needsExecutionTool", f->needs_execution_tool);
	} else {
		CAP("canBeInstantiatedOnlyOncePerProcess", f->can_be_instantiated_only_once_per_process);
		CAP("canGetAndSetFMUState", f->can_get_and_set_fmu_state);
		CAP("canSerializeFMUState", f->can_serialize_fmu_state);
		CAP("providesDirectionalDerivatives", f->provides_directional_derivative);
		CAP("providesAdjointDerivatives", f->provides_adjoint_derivatives);
		CAP("providesIntermediateUpdate", f->provides_intermediate_update);
		CAP("mightReturnEarlyFromDoStep", f->might_return_early_from_do_step);
		CAP("canReturnEarlyAfterIntermediateUpdate",
		    f->can_return_early_after_intermediate_update);
		CAP("hasEventMode", f->has_event_mode);
		CAP("needsExecutionTool", f->needs_execution_tool);
	}
#undef CAP
	return n;
}

/* The Model Exchange element's, then its sizes (numbers, not flags). */
static int me_capabilities(const FmuInfo *f, Cap *caps)
{
	const FmuMe *m = &f->me;
	int n = 0;
#define CAP(nm, v) (caps[n++] = (Cap){nm, (v), true, NULL})
	caps[n++] = (Cap){"continuous states", (int)m->nstate_elems, false, "continuousStates"};
	caps[n++] = (Cap){"event indicators", (int)m->nevent_indicators, false, "eventIndicators"};
	CAP("canBeInstantiatedOnlyOncePerProcess", m->can_be_instantiated_only_once_per_process);
	if (f->version == FMI_V2) {
		CAP("completedIntegratorStepNotNeeded", !m->needs_completed_integrator_step);
		CAP("canNotUseMemoryManagementFunctions", m->can_not_use_memory_management_functions);
		CAP("canGetAndSetFMUstate", m->can_get_and_set_fmu_state);
		CAP("canSerializeFMUstate", m->can_serialize_fmu_state);
		CAP("providesDirectionalDerivative", m->provides_directional_derivative);
	} else {
		CAP("needsCompletedIntegratorStep", m->needs_completed_integrator_step);
		CAP("providesEvaluateDiscreteStates", m->provides_evaluate_discrete_states);
		CAP("canGetAndSetFMUState", m->can_get_and_set_fmu_state);
		CAP("canSerializeFMUState", m->can_serialize_fmu_state);
		CAP("providesDirectionalDerivatives", m->provides_directional_derivative);
		CAP("providesAdjointDerivatives", m->provides_adjoint_derivatives);
	}
	CAP("needsExecutionTool", m->needs_execution_tool);
#undef CAP
	return n;
}

#define MAX_CAPS 16

/* The Scheduled Execution element's. */
static int se_capabilities(const FmuInfo *f, Cap *caps)
{
	const FmuSe *e = &f->se;
	int n = 0;
#define CAP(nm, v) (caps[n++] = (Cap){nm, (v), true, NULL})
	CAP("canBeInstantiatedOnlyOncePerProcess", e->can_be_instantiated_only_once_per_process);
	CAP("canGetAndSetFMUState", e->can_get_and_set_fmu_state);
	CAP("canSerializeFMUState", e->can_serialize_fmu_state);
	CAP("providesDirectionalDerivatives", e->provides_directional_derivative);
	CAP("providesAdjointDerivatives", e->provides_adjoint_derivatives);
	CAP("needsExecutionTool", e->needs_execution_tool);
#undef CAP
	return n;
}

/* A capabilities block of the table: its title, then one aligned line per capability
 * (lead, when not NULL, a first line naming the element's model identifier). */
static void print_caps(FILE *out, const char *title, const Cap *caps, int n, const char *lead)
{
	int w = lead ? (int)strlen("modelIdentifier") : 0;
	for (int i = 0; i < n; i++)
		if ((int)strlen(caps[i].name) > w)
			w = (int)strlen(caps[i].name);
	fprintf(out, "\n%s\n", title);
	if (lead)
		fprintf(out, "  %-*s  %s\n", w, "modelIdentifier", lead);
	for (int i = 0; i < n; i++) {
		if (caps[i].is_flag)
			fprintf(out, "  %-*s  %s\n", w, caps[i].name, caps[i].value ? "true" : "false");
		else
			fprintf(out, "  %-*s  %d\n", w, caps[i].name, caps[i].value);
	}
}

/* Which interface sacc runs the FMU through, and what chooses the other: NULL for an FMU
 * it cannot run. */
static const char *runs_as(const FmuInfo *f)
{
	if (f->unusable)
		return NULL;
	if (fmu_se_by_default(f))
		return "Scheduled Execution, its partitions activated by sacc at their clocks' ticks";
	if (!f->has_model_exchange)
		return "Co-Simulation";
	if (!f->has_cosim)
		return "Model Exchange, integrated by sacc (--solver, --me-tolerance)";
	return "Co-Simulation; Model Exchange with `sacc simulate --interface me`, or `with "
	       "model exchange` on its inner fmu in a script";
}

/* "kg.m.s-2", "rad.s-1": the nonzero base-unit exponents, positive ones first, each group
 * in FMI's attribute order. */
static void base_units(char *buf, size_t size, const FmuUnit *u)
{
	const struct {
		const char *name;
		int exp;
	} e[] = {{"kg", u->kg}, {"m", u->m},     {"s", u->s},   {"A", u->A},
	         {"K", u->K},   {"mol", u->mol}, {"cd", u->cd}, {"rad", u->rad}};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < 2 * (sizeof e / sizeof e[0]); k++) {
		size_t i = k % (sizeof e / sizeof e[0]);
		bool positive_pass = k < sizeof e / sizeof e[0];
		if (e[i].exp == 0 || (e[i].exp > 0) != positive_pass || len >= size)
			continue;
		int n = e[i].exp == 1 ? snprintf(buf + len, size - len, "%s%s", len ? "." : "", e[i].name)
		                      : snprintf(buf + len, size - len, "%s%s%d", len ? "." : "",
		                                 e[i].name, e[i].exp);
		if (n > 0)
			len += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, size, "1");
}

enum { C_NAME, C_VR, C_TYPE, C_CAUS, C_VARIAB, C_INIT, C_START, C_UNIT, NCOLS };

/* The type cell: FMI 3 arrays show their sizes, "Float64[3]" ("[?]" when unknown). */
static const char *type_cell(const FmuInfo *f, const FmuVar *v, char *buf, size_t size)
{
	const char *name = fmu_type_name_for(v->type, f->version);
	if (v->ndims == 0)
		return name;
	size_t n = (size_t)snprintf(buf, size, "%s[", name);
	for (int k = 0; k < v->ndims && n < size; k++) {
		if (v->dims[k].size >= 0)
			n += (size_t)snprintf(buf + n, size - n, "%s%lld", k ? "," : "", v->dims[k].size);
		else
			n += (size_t)snprintf(buf + n, size - n, "%s?", k ? "," : "");
	}
	if (n < size)
		snprintf(buf + n, size - n, "]");
	return buf;
}

static void var_cells(const FmuInfo *f, const FmuVar *v, const char *cells[NCOLS], char *vr,
                      size_t vrsize)
{
	/* vr holds the value reference and, after it, the type cell of an array */
	int used = snprintf(vr, vrsize, "%u", (unsigned)v->vr) + 1;
	cells[C_NAME] = v->name;
	cells[C_VR] = vr;
	cells[C_TYPE] = type_cell(f, v, vr + used, vrsize - (size_t)used);
	cells[C_CAUS] = fmu_causality_name(v->causality);
	cells[C_VARIAB] = fmu_variability_name(v->variability);
	cells[C_INIT] = fmu_initial_name(v->initial);
	cells[C_START] = v->start ? v->start : "";
	cells[C_UNIT] = v->unit ? v->unit : "";
}

static void print_vars(FILE *out, const FmuInfo *f)
{
	static const char *const heads[NCOLS] = {"name",        "vr",      "type",  "causality",
	                                         "variability", "initial", "start", "unit"};
	int width[NCOLS];
	for (int c = 0; c < NCOLS; c++)
		width[c] = text_width(heads[c]);
	for (int i = 0; i < f->nvars; i++) {
		const char *cells[NCOLS];
		char vr[96];
		var_cells(f, &f->vars[i], cells, vr, sizeof vr);
		for (int c = 0; c < NCOLS; c++)
			if (text_width(cells[c]) > width[c])
				width[c] = text_width(cells[c]);
	}
	fprintf(out, "\nvariables (%d)\n", f->nvars);
	for (int i = -1; i < f->nvars; i++) {
		const char *cells[NCOLS];
		char vr[96];
		if (i < 0)
			memcpy(cells, heads, sizeof cells);
		else
			var_cells(f, &f->vars[i], cells, vr, sizeof vr);
		int ncells = NCOLS; /* no padding after the last nonempty cell */
		while (ncells > 1 && !cells[ncells - 1][0])
			ncells--;
		fputs("  ", out);
		for (int c = 0; c < ncells; c++) {
			bool last = c == ncells - 1;
			if (c == C_VR) { /* numbers align right */
				fprintf(out, "%*s", width[c] - text_width(cells[c]), "");
				put_cell(out, cells[c], 0);
			} else {
				put_cell(out, cells[c], last ? 0 : width[c]);
			}
			if (!last)
				fputs("  ", out);
		}
		fputc('\n', out);
	}
}

static void print_units(FILE *out, const FmuInfo *f)
{
	if (f->nunits == 0)
		return;
	int wname = 4, wbase = 4, wfactor = 6;
	for (int i = 0; i < f->nunits; i++) {
		const FmuUnit *u = &f->units[i];
		char base[128], factor[32];
		base_units(base, sizeof base, u);
		fmt_double(factor, sizeof factor, u->factor);
		if (text_width(u->name) > wname)
			wname = text_width(u->name);
		if (u->has_base && text_width(base) > wbase)
			wbase = text_width(base);
		if (u->has_base && text_width(factor) > wfactor)
			wfactor = text_width(factor);
	}
	fprintf(out, "\nunits (%d)\n  ", f->nunits);
	put_cell(out, "name", wname);
	fputs("  ", out);
	put_cell(out, "base", wbase);
	fputs("  ", out);
	put_cell(out, "factor", wfactor);
	fputs("  offset\n", out);
	for (int i = 0; i < f->nunits; i++) {
		const FmuUnit *u = &f->units[i];
		fputs("  ", out);
		put_cell(out, u->name, wname);
		fputs("  ", out);
		if (!u->has_base) {
			fputs("(no base unit)\n", out);
			continue;
		}
		char base[128], factor[32], offset[32];
		base_units(base, sizeof base, u);
		fmt_double(factor, sizeof factor, u->factor);
		fmt_double(offset, sizeof offset, u->offset);
		put_cell(out, base, wbase);
		fputs("  ", out);
		put_cell(out, factor, wfactor);
		fprintf(out, "  %s\n", offset);
	}
}

static const char *var_name(const FmuInfo *f, int i)
{
	return i >= 0 && i < f->nvars && f->vars[i].name ? f->vars[i].name : "?";
}

/* A clock's interval or shift for people: seconds, "?" when the FMU tells it at run time. */
static void clock_time_cell(char *buf, size_t size, double x)
{
	if (isnan(x))
		snprintf(buf, size, "?");
	else
		fmt_double(buf, size, x);
}

enum { K_NAME, K_CAUS, K_IV, K_INTERVAL, K_SHIFT, K_PRIO, NKCOLS };

static void clock_cells(const FmuVar *v, char cells[NKCOLS][64])
{
	snprintf(cells[K_NAME], 64, "%s", v->name ? v->name : "?");
	snprintf(cells[K_CAUS], 64, "%s", fmu_causality_name(v->causality));
	snprintf(cells[K_IV], 64, "%s", fmu_interval_variability_name(v->clock.interval_variability));
	if (fmu_clock_periodic(&v->clock)) {
		clock_time_cell(cells[K_INTERVAL], 64, fmu_clock_interval(&v->clock));
		clock_time_cell(cells[K_SHIFT], 64, fmu_clock_shift(&v->clock));
	} else {
		snprintf(cells[K_INTERVAL], 64, "-");
		snprintf(cells[K_SHIFT], 64, "-");
	}
	if (v->clock.has_priority)
		snprintf(cells[K_PRIO], 64, "%u", v->clock.priority);
	else
		snprintf(cells[K_PRIO], 64, "-");
}

/* The Clock variables: how each ticks, and the variables computed at its ticks. */
static void print_clocks(FILE *out, const FmuInfo *f)
{
	if (f->nclocks == 0)
		return;
	static const char *const heads[NKCOLS] = {"name",     "causality", "intervalVariability",
	                                          "interval", "shift",     "priority"};
	int width[NKCOLS];
	for (int c = 0; c < NKCOLS; c++)
		width[c] = text_width(heads[c]);
	for (int i = 0; i < f->nvars; i++) {
		char cells[NKCOLS][64];
		if (f->vars[i].type != FT_CLOCK)
			continue;
		clock_cells(&f->vars[i], cells);
		for (int c = 0; c < NKCOLS; c++)
			if (text_width(cells[c]) > width[c])
				width[c] = text_width(cells[c]);
	}
	fprintf(out, "\nclocks (%d)\n  ", f->nclocks);
	for (int c = 0; c < NKCOLS; c++) {
		put_cell(out, heads[c], width[c]);
		fputs("  ", out);
	}
	fputs("variables\n", out);
	for (int i = 0; i < f->nvars; i++) {
		char cells[NKCOLS][64];
		if (f->vars[i].type != FT_CLOCK)
			continue;
		clock_cells(&f->vars[i], cells);
		fputs("  ", out);
		for (int c = 0; c < NKCOLS; c++) {
			put_cell(out, cells[c], width[c]);
			fputs("  ", out);
		}
		int n = 0;
		for (int k = 0; k < f->nvars; k++)
			for (int j = 0; j < f->vars[k].nclocks; j++)
				if (f->vars[k].clocks[j] == i) {
					fputs(n++ ? ", " : "", out);
					put_cell(out, var_name(f, k), 0);
				}
		fputs(n ? "\n" : "(none)\n", out);
	}
}

static void print_deps(FILE *out, const FmuInfo *f)
{
	fprintf(out, "\noutput dependencies\n");
	if (f->noutputs == 0) {
		fprintf(out, "  (no outputs)\n");
		return;
	}
	int w = 0;
	for (int i = 0; i < f->noutputs; i++)
		if (text_width(var_name(f, f->outputs[i].var)) > w)
			w = text_width(var_name(f, f->outputs[i].var));
	for (int i = 0; i < f->noutputs; i++) {
		const FmuOutputDep *o = &f->outputs[i];
		fputs("  ", out);
		put_cell(out, var_name(f, o->var), w);
		fputs(" -> ", out);
		if (!o->deps_given)
			fputs("(all, not declared)", out);
		else if (o->ndeps == 0)
			fputs("(none)", out);
		for (int k = 0; o->deps_given && k < o->ndeps; k++) {
			if (k)
				fputs(", ", out);
			put_cell(out, var_name(f, o->deps[k]), 0);
		}
		fputc('\n', out);
	}
}

const char *fmu_element_name(Arena *a, const FmuVar *v, long long k)
{
	long long sub[64];
	int nd = v->ndims < 64 ? v->ndims : 64;
	for (int d = nd - 1; d >= 0; d--) {
		long long size = v->dims[d].size > 0 ? v->dims[d].size : 1;
		sub[d] = k % size;
		k /= size;
	}
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "%s[", v->name);
	for (int d = 0; d < nd; d++)
		sb_printf(&b, "%s%lld", d ? "," : "", sub[d] + 1);
	sb_putc(&b, ']');
	const char *name = arena_strdup(a, sb_str(&b));
	sb_free(&b);
	return name;
}

void fmu_print_table(FILE *out, const FmuInfo *f)
{
	char buf[64];
	put_field(out, "file", f->path);
	put_field(out, "model name", f->model_name);
	put_field(out, "model identifier", f->model_identifier);
	put_field(out, "FMI version", f->fmi_version);
	put_field(out, f->version == FMI_V2 ? "GUID" : "instantiation token", f->guid);
	if (f->generation_tool)
		put_field(out, "generation tool", f->generation_tool);
	if (f->description)
		put_field(out, "description", f->description);
	put_field(out, "kind", kind_name(f));
	char ifs[64];
	snprintf(ifs, sizeof ifs, "%s%s%s%s%s", f->has_cosim ? "Co-Simulation" : "",
	         f->has_cosim && f->has_model_exchange ? ", " : "",
	         f->has_model_exchange ? "Model Exchange" : "",
	         (f->has_cosim || f->has_model_exchange) && f->has_scheduled_execution ? ", " : "",
	         f->has_scheduled_execution ? "Scheduled Execution" : "");
	put_field(out, "interfaces", ifs[0] ? ifs : "none");
	if (runs_as(f))
		put_field(out, "sacc runs it as", runs_as(f));
	if (f->nclocks) {
		snprintf(buf, sizeof buf, "%d", f->nclocks);
		put_field(out, "clocks", buf);
	}
	const struct {
		const char *key;
		double v;
	} exp[] = {{"start", f->default_start}, {"stop", f->default_stop},
	           {"step", f->default_step},   {"tolerance", f->default_tolerance}};
	char line[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < sizeof exp / sizeof exp[0]; i++) {
		if (isnan(exp[i].v) || len >= sizeof line)
			continue;
		fmt_double(buf, sizeof buf, exp[i].v);
		int n = snprintf(line + len, sizeof line - len, "%s%s %s", len ? ", " : "", exp[i].key,
		                 buf);
		if (n > 0)
			len += (size_t)n;
	}
	if (len)
		put_field(out, "default experiment", line);

	if (f->has_cosim) {
		Cap caps[MAX_CAPS];
		int n = capabilities(f, caps);
		print_caps(out, "co-simulation capabilities", caps, n, NULL);
		if (f->version == FMI_V3 && f->fixed_internal_step_size > 0) {
			int w = 0;
			for (int i = 0; i < n; i++)
				if ((int)strlen(caps[i].name) > w)
					w = (int)strlen(caps[i].name);
			fmt_double(buf, sizeof buf, f->fixed_internal_step_size);
			fprintf(out, "  %-*s  %s\n", w, "fixedInternalStepSize", buf);
		}
	}
	if (f->has_model_exchange) {
		Cap caps[MAX_CAPS];
		int n = me_capabilities(f, caps);
		print_caps(out, "model exchange", caps, n, f->me.model_identifier);
	}
	if (f->has_scheduled_execution) {
		Cap caps[MAX_CAPS];
		int n = se_capabilities(f, caps);
		print_caps(out, "scheduled execution", caps, n, f->se.model_identifier);
	}
	print_vars(out, f);
	print_clocks(out, f);
	print_units(out, f);
	print_deps(out, f);
	if (f->unusable)
		fprintf(out, "\nsacc cannot simulate or wrap this FMU: %s\n", f->unusable);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static void json_num(FILE *out, double x)
{
	if (!isfinite(x)) {
		fputs("null", out);
		return;
	}
	char buf[64];
	fmt_double(buf, sizeof buf, x);
	fputs(buf, out);
}

static void json_key(FILE *out, int indent, const char *key, bool *first)
{
	fprintf(out, "%s\n%*s", *first ? "" : ",", indent, "");
	*first = false;
	json_str(out, key);
	fputs(": ", out);
}

static void json_kv_str(FILE *out, int indent, const char *key, const char *v, bool *first)
{
	json_key(out, indent, key, first);
	json_str(out, v);
}

static void json_kv_bool(FILE *out, int indent, const char *key, bool v, bool *first)
{
	json_key(out, indent, key, first);
	fputs(v ? "true" : "false", out);
}

static void json_kv_num(FILE *out, int indent, const char *key, double v, bool *first)
{
	json_key(out, indent, key, first);
	json_num(out, v);
}

static void json_clock(FILE *out, const FmuVar *v, bool *first)
{
	const FmuClock *c = &v->clock;
	bool cfirst = true;
	json_key(out, 6, "clock", first);
	fputs("{", out);
	json_kv_str(out, 8, "intervalVariability",
	            fmu_interval_variability_name(c->interval_variability), &cfirst);
	json_kv_num(out, 8, "interval", fmu_clock_interval(c), &cfirst);
	json_kv_num(out, 8, "shift", fmu_clock_shift(c), &cfirst);
	json_kv_num(out, 8, "resolution", c->resolution ? (double)c->resolution : NAN, &cfirst);
	json_kv_bool(out, 8, "supportsFraction", c->supports_fraction, &cfirst);
	json_kv_bool(out, 8, "canBeDeactivated", c->can_be_deactivated, &cfirst);
	json_kv_num(out, 8, "priority", c->has_priority ? c->priority : NAN, &cfirst);
	fputs("\n      }", out);
}

static void json_var(FILE *out, const FmuInfo *f, const FmuVar *v)
{
	bool first = true;
	fputs("{", out);
	json_kv_str(out, 6, "name", v->name, &first);
	json_kv_num(out, 6, "valueReference", v->vr, &first);
	json_kv_str(out, 6, "type", fmu_type_name_for(v->type, f->version), &first);
	json_kv_str(out, 6, "causality", fmu_causality_name(v->causality), &first);
	json_kv_str(out, 6, "variability", fmu_variability_name(v->variability), &first);
	json_kv_str(out, 6, "initial", v->initial == INIT_UNSET ? NULL : fmu_initial_name(v->initial),
	            &first);
	json_kv_str(out, 6, "start", v->start, &first);
	json_kv_str(out, 6, "unit", v->unit, &first);
	json_kv_str(out, 6, "declaredType", v->declared_type, &first);
	json_kv_str(out, 6, "description", v->description, &first);
	json_kv_str(out, 6, "derivativeOf", v->derivative_of ? var_name(f, v->derivative_of - 1) : NULL,
	            &first);
	json_kv_num(out, 6, "line", v->line, &first);
	if (v->ndims > 0) { /* FMI 3 arrays only, so other descriptions print as before */
		json_key(out, 6, "dimensions", &first);
		fputs("[", out);
		for (int k = 0; k < v->ndims; k++) {
			if (k)
				fputs(", ", out);
			if (v->dims[k].size >= 0)
				json_num(out, (double)v->dims[k].size);
			else
				fputs("null", out);
		}
		fputs("]", out);
	}
	if (v->type == FT_CLOCK) /* FMI 3 clocks only, so other descriptions print as before */
		json_clock(out, v, &first);
	if (v->nclocks) {
		json_key(out, 6, "clocks", &first);
		fputs("[", out);
		for (int k = 0; k < v->nclocks; k++) {
			fputs(k ? ", " : "", out);
			json_str(out, var_name(f, v->clocks[k]));
		}
		fputs("]", out);
	}
	fputs("\n    }", out);
}

static void json_unit(FILE *out, const FmuUnit *u)
{
	bool first = true;
	fputs("{", out);
	json_kv_str(out, 6, "name", u->name, &first);
	json_key(out, 6, "baseUnit", &first);
	if (u->has_base) {
		const struct {
			const char *name;
			int exp;
		} e[] = {{"kg", u->kg}, {"m", u->m},     {"s", u->s},   {"A", u->A},
		         {"K", u->K},   {"mol", u->mol}, {"cd", u->cd}, {"rad", u->rad}};
		bool bfirst = true;
		fputs("{", out);
		for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
			json_kv_num(out, 8, e[i].name, e[i].exp, &bfirst);
		fputs("\n      }", out);
	} else {
		fputs("null", out);
	}
	json_kv_num(out, 6, "factor", u->factor, &first);
	json_kv_num(out, 6, "offset", u->offset, &first);
	fputs("\n    }", out);
}

void fmu_print_json(FILE *out, const FmuInfo *f)
{
	bool first = true;
	fputs("{", out);
	json_kv_str(out, 2, "path", f->path, &first);
	json_kv_str(out, 2, "fmiVersion", f->fmi_version, &first);
	json_kv_str(out, 2, "modelName", f->model_name, &first);
	json_kv_str(out, 2, "modelIdentifier", f->model_identifier, &first);
	json_kv_str(out, 2, "guid", f->guid, &first);
	json_kv_str(out, 2, "description", f->description, &first);
	json_kv_str(out, 2, "generationTool", f->generation_tool, &first);
	json_kv_str(out, 2, "kind", kind_name(f), &first);
	json_kv_bool(out, 2, "mealy", f->is_mealy, &first);
	json_kv_bool(out, 2, "reactive", f->is_reactive, &first);
	json_kv_bool(out, 2, "modelExchange", f->has_model_exchange, &first);
	json_kv_bool(out, 2, "scheduledExecution", f->has_scheduled_execution, &first);
	json_kv_num(out, 2, "clocks", f->nclocks, &first);
	json_kv_str(out, 2, "unusable", f->unusable, &first);

	json_key(out, 2, "coSimulation", &first);
	if (f->has_cosim) {
		Cap caps[MAX_CAPS];
		int n = capabilities(f, caps);
		bool cfirst = true;
		fputs("{", out);
		for (int i = 0; i < n; i++) {
			if (caps[i].is_flag)
				json_kv_bool(out, 4, caps[i].name, caps[i].value, &cfirst);
			else
				json_kv_num(out, 4, caps[i].name, caps[i].value, &cfirst);
		}
		if (f->version == FMI_V3)
			json_kv_num(out, 4, "fixedInternalStepSize",
			            f->fixed_internal_step_size > 0 ? f->fixed_internal_step_size : NAN,
			            &cfirst);
		fputs("\n  }", out);
	} else {
		fputs("null", out);
	}

	json_key(out, 2, "modelExchangeInterface", &first);
	if (f->has_model_exchange) {
		Cap caps[MAX_CAPS];
		int n = me_capabilities(f, caps);
		bool mfirst = true;
		fputs("{", out);
		json_kv_str(out, 4, "modelIdentifier", f->me.model_identifier, &mfirst);
		for (int i = 0; i < n; i++) {
			if (caps[i].is_flag)
				json_kv_bool(out, 4, caps[i].name, caps[i].value, &mfirst);
			else
				json_kv_num(out, 4, caps[i].json ? caps[i].json : caps[i].name,
				            caps[i].value, &mfirst);
		}
		fputs("\n  }", out);
	} else {
		fputs("null", out);
	}
	json_key(out, 2, "scheduledExecutionInterface", &first);
	if (f->has_scheduled_execution) {
		Cap caps[MAX_CAPS];
		int n = se_capabilities(f, caps);
		bool sfirst = true;
		fputs("{", out);
		json_kv_str(out, 4, "modelIdentifier", f->se.model_identifier, &sfirst);
		for (int i = 0; i < n; i++)
			json_kv_bool(out, 4, caps[i].name, caps[i].value, &sfirst);
		fputs("\n  }", out);
	} else {
		fputs("null", out);
	}
	json_kv_str(out, 2, "runsAs", !runs_as(f) ? NULL : fmu_se_by_default(f) ? "Scheduled Execution"
	                                             : f->has_cosim ? "Co-Simulation"
	                                                             : "Model Exchange", &first);

	json_key(out, 2, "defaultExperiment", &first);
	bool efirst = true;
	fputs("{", out);
	json_kv_num(out, 4, "startTime", f->default_start, &efirst);
	json_kv_num(out, 4, "stopTime", f->default_stop, &efirst);
	json_kv_num(out, 4, "stepSize", f->default_step, &efirst);
	json_kv_num(out, 4, "tolerance", f->default_tolerance, &efirst);
	fputs("\n  }", out);

	json_key(out, 2, "variables", &first);
	fputs("[", out);
	for (int i = 0; i < f->nvars; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_var(out, f, &f->vars[i]);
	}
	fputs(f->nvars ? "\n  ]" : "]", out);

	json_key(out, 2, "units", &first);
	fputs("[", out);
	for (int i = 0; i < f->nunits; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_unit(out, &f->units[i]);
	}
	fputs(f->nunits ? "\n  ]" : "]", out);

	json_key(out, 2, "typeDefinitions", &first);
	fputs("[", out);
	for (int i = 0; i < f->ntypes; i++) {
		const FmuTypeDef *t = &f->types[i];
		bool tfirst = true;
		fputs(i ? ",\n    {" : "\n    {", out);
		json_kv_str(out, 6, "name", t->name, &tfirst);
		json_kv_str(out, 6, "type", fmu_type_name_for(t->type, f->version), &tfirst);
		json_kv_str(out, 6, "quantity", t->quantity, &tfirst);
		json_kv_str(out, 6, "unit", t->unit, &tfirst);
		fputs("\n    }", out);
	}
	fputs(f->ntypes ? "\n  ]" : "]", out);

	json_key(out, 2, "outputs", &first);
	fputs("[", out);
	for (int i = 0; i < f->noutputs; i++) {
		const FmuOutputDep *o = &f->outputs[i];
		bool ofirst = true;
		fputs(i ? ",\n    {" : "\n    {", out);
		json_kv_str(out, 6, "name", var_name(f, o->var), &ofirst);
		json_kv_bool(out, 6, "dependenciesDeclared", o->deps_given, &ofirst);
		json_key(out, 6, "dependencies", &ofirst);
		if (!o->deps_given) {
			fputs("null", out);
		} else {
			fputs("[", out);
			for (int k = 0; k < o->ndeps; k++) {
				if (k)
					fputs(", ", out);
				json_str(out, var_name(f, o->deps[k]));
			}
			fputs("]", out);
		}
		fputs("\n    }", out);
	}
	fputs(f->noutputs ? "\n  ]" : "]", out);
	fputs("\n}\n", out);
}
