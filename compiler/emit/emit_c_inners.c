/* emit_c_inners.c — the inner FMUs in the wrapper's C (emit_c.c writes the rest): each
 * inner's C names, port slots and value references, its version and capabilities, read from
 * its model description or from the inner adaptation's layout; the order the inners are
 * stepped in; and the inner table (SartInnerModel) that the runtime loads them from. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_impl.h"
#include "explicit.h"

/* ---- inner FMUs ------------------------------------------------------------------------------- */

/* By name through a table made once (emit_c_buffers): each port reference looks its inner
 * up, and a search through a list made a wrapper of many inners quadratic to emit. */
InnerC *ec_inner_c(Ec *e, const char *name)
{
	int i = name_index_find(&e->inner_names, name);
	return i >= 0 ? &e->inners[i] : NULL;
}

static const EmitVar *layout_var(const EmitLayout *l, const char *name)
{
	for (int i = 0; l && i < l->nvars; i++)
		if (strcmp(l->vars[i].name, name) == 0)
			return &l->vars[i];
	return NULL;
}

/* The value reference in inner `in` of its variable numbered vr among those of its type:
 * an inner adaptation's FMU built as FMI 3.0 numbers them as emit_vr3 says. */
uint32_t ec_inner_vr(Ec *e, const Inner *in, SaType type, uint32_t vr)
{
	if (in->fmu || !in->adaptation || in->built_fmi != 3)
		return vr;
	const EmitLayout *sub = emit_layout(e->c, in->adaptation->info);
	return sub ? emit_vr3(sub, type, vr) : vr;
}

/* Whether inner in must have a library loaded for it alone. */
static bool once_per_process(Compilation *c, const Inner *in)
{
	if (in->fmu)
		return fmu_abilities(in->fmu, in->me).can_be_instantiated_only_once_per_process;
	const EmitLayout *sub = in->adaptation ? emit_layout(c, in->adaptation->info) : NULL;
	return !sub || sub->can_be_instantiated_only_once_per_process;
}

int *emit_inner_homes(Compilation *c, const SaInfo *info)
{
	Arena *a = c->arena;
	int n = info ? info->ninners : 0;
	int *homes = arena_alloc(a, (size_t)(n + 1) * sizeof *homes);
	NameIndex seen = {0};
	for (int i = 0; i < n; i++) {
		const Inner *in = info->inners[i];
		homes[i] = i;
		if (once_per_process(c, in))
			continue;
		/* the key names the file and the interface (a Model Exchange inner checks for
		 * its own identifier's library) or the adaptation that makes it */
		const char *key = in->fmu ? arena_printf(a, "f%d:%s", in->me ? 1 : 0, in->fmu->path)
		                          : arena_printf(a, "a:%p", (void *)in->adaptation);
		int first = name_index_find(&seen, key);
		if (first >= 0)
			homes[i] = first;
		else if (name_index_add(&seen, key, i) != 0)
			homes = NULL;
		if (!homes)
			break;
	}
	name_index_free(&seen);
	return homes;
}

bool ec_setup_inner(Ec *e, InnerC *ic, const Inner *in)
{
	Arena *a = e->c->arena;
	ic->in = in;
	ic->cname = ec_ident_part(a, in->name);
	ic->enumc = arena_printf(a, "inner_%s", ic->cname);
	ic->slots = arena_alloc(a, (size_t)(in->nports + 1) * sizeof *ic->slots);
	const EmitLayout *sub = NULL;
	if (in->fmu && fmu_se_by_default(in->fmu)) {
		/* its partitions activated by the runtime: only its own element's state handling */
		ic->model_identifier = in->fmu->se.model_identifier;
		ic->guid = in->fmu->guid ? in->fmu->guid : "";
		ic->version = 3;
		ic->caps = (in->fmu->se.can_get_and_set_fmu_state ? 1u : 0u) |
		           (in->fmu->se.can_serialize_fmu_state ? 2u : 0u) | 64u;
	} else if (in->fmu && in->me) {
		/* integrated by the runtime: only its own element's state handling counts */
		ic->model_identifier = fmu_identifier(in->fmu, true);
		ic->guid = in->fmu->guid ? in->fmu->guid : "";
		ic->version = in->fmu->version == FMI_V3 ? 3 : 2;
		ic->caps = (in->fmu->me.can_get_and_set_fmu_state ? 1u : 0u) |
		           (in->fmu->me.can_serialize_fmu_state ? 2u : 0u) | 32u |
		           (in->fmu->nclocks > 0 ? 128u : 0u); /* clocks ticked in Event Mode */
	} else if (in->fmu) {
		ic->model_identifier = in->fmu->model_identifier ? in->fmu->model_identifier : in->name;
		ic->guid = in->fmu->guid ? in->fmu->guid : "";
		ic->version = in->fmu->version == FMI_V3 ? 3 : 2;
		ic->caps = (in->fmu->can_get_and_set_fmu_state ? 1u : 0u) |
		           (in->fmu->can_serialize_fmu_state ? 2u : 0u) |
		           (in->fmu->can_interpolate_inputs ? 4u : 0u) |
		           (ic->version == 3 && in->fmu->has_event_mode ? 8u : 0u) | /* events handled */
		           (ic->version == 3 && in->fmu->might_return_early_from_do_step ? 16u : 0u) |
		           (fmu_cs_clocks(in->fmu) ? 128u : 0u); /* clocks ticked in Event Mode */
	} else if (in->adaptation && in->adaptation->info) {
		sub = emit_layout(e->c, in->adaptation->info);
		if (!sub) {
			ec_error(e, in->decl->loc, "cannot emit C for inner fmu '%s': adaptation '%s' "
			      "cannot be laid out", in->name, in->adaptation->name);
			return false;
		}
		ic->model_identifier = sub->model_identifier;
		ic->guid = arena_strdup(a, sub->guid);
		ic->version = in->built_fmi == 3 ? 3 : 2;
		ic->caps = (sub->can_get_and_set_fmu_state ? 1u : 0u) |
		           (sub->can_serialize_fmu_state ? 2u : 0u) | (sub->reactive ? 4u : 0u) |
		           (ic->version == 3 ? 16u : 0u); /* sacc's FMI 3.0 wrappers may end early */
	} else {
		ec_error(e, in->decl->loc, "cannot emit C for inner fmu '%s': it was not read", in->name);
		return false;
	}
	bool ok = true;
	int nelem = 0;
	for (int k = 0; k < in->nports; k++) {
		const InnerPort *p = &in->ports[k];
		Slot *sl = &ic->slots[k];
		sl->type = ec_sart_type(p->type);
		Loc at = p->decl ? p->decl->loc : in->decl->loc;
		if (p->type == TY_NONE) {
			ec_error(e, at, "cannot emit C for port '%s' of inner fmu '%s': its type has no "
			      "counterpart in the language", p->name, in->name);
			sl->type = -1;
			ok = false;
			continue;
		}
		if (p->decl && p->decl->mult_hi >= 0) {
			ec_error(e, at, "cannot emit C for port '%s' of inner fmu '%s': array ports are "
			      "not supported yet", p->name, in->name);
			sl->type = -1;
			ok = false;
			continue;
		}
		int dir = p->is_input ? 0 : 1;
		sl->index = ic->n[dir][sl->type]++;
		sl->enumc = arena_printf(a, "%s_%s_%s", ic->cname, dir ? "out" : "in",
					 ec_ident_part(a, p->name));
		if (in->fmu) {
			sl->vr = p->elem ? ec_element_vr(in->fmu, nelem++)
			         : p->fmu_var >= 0 && p->fmu_var < in->fmu->nvars
			             ? in->fmu->vars[p->fmu_var].vr : 0;
		} else {
			const EmitVar *v = layout_var(sub, p->var);
			if (!v) {
				ec_error(e, at, "cannot emit C for port '%s' of inner fmu '%s': adaptation "
				      "'%s' has no such variable", p->name, in->name, sub->model_name);
				sl->type = -1;
				ok = false;
				continue;
			}
			sl->vr = v->elems ? ec_element_vr3(sub, nelem++) : ec_inner_vr(e, in, v->type, v->vr);
		}
	}
	return ok;
}

/* Inners in topological order of the couplings whose target is Mealy (CreateCtrlRules'
 * order); all inners in declaration order when there is a cycle. */
int *ec_inner_order(Ec *e)
{
	int n = e->ninners;
	Arena *a = e->c->arena;
	bool *done = arena_alloc(a, (size_t)(n + 1) * sizeof *done);
	int *order = arena_alloc(a, (size_t)(n + 1) * sizeof *order);
	if (rw_inner_order(a, e->info, order, done) < n)
		for (int i = 0; i < n; i++)
			order[i] = i;
	return order;
}

/* Whether the one inner FMU may return early (SART_CAP_EARLY_RETURN, when the wrapper's own
 * importer allows early return too): only when the control rules return its step as it
 * came, so that a shortened inner step is the wrapper's shortened step and nothing of the
 * wrapper stands at another time.  Rules that compute their step, or several inners that
 * would stop at different times, have their inners stepped on through events instead. */
static bool inner_may_return_early(const Ec *e)
{
	if (e->ninners != 1)
		return false; /* before the walk to Ctrl's end, which is asked once per inner */
	const Node *ctrl = e->sa->a_ctrl;
	const Node *body = ctrl && ctrl->kind == ND_CTRL ? ctrl->body : NULL;
	const Node *last = body ? ast_last(body->list1) : NULL;
	return last && last->kind == ND_RETURN && last->lhs &&
	       ec_passes_steps_up(body, last->lhs);
}

/* Whether the runtime may take a Model Exchange inner's Jacobian from its directional
 * derivatives: it provides them, and each state is one scalar with one value reference. */
static bool me_jacobian_by_vrs(const Inner *in)
{
	const FmuMe *m = &in->fmu->me;
	return m->provides_directional_derivative && m->scalar_states && m->nstates > 0;
}

/* Value references as C text, taking vrs (malloc'd, k of them; freed here); *n = k. */
static const char **vrs_text(Ec *e, uint32_t *vrs, size_t k, int *n)
{
	Arena *a = e->c->arena;
	const char **text = arena_alloc(a, (k + 1) * sizeof *text);
	for (size_t j = 0; j < k; j++)
		text[j] = arena_printf(a, "%u", (unsigned)vrs[j]);
	free(vrs);
	*n = (int)k;
	return text;
}

/* A Model Exchange inner's Reals that it takes only in Event Mode, sorted; *n = 0 when
 * none (or out of memory, when the runtime then passes their sets through as it did). */
static const char **me_event_vrs(Ec *e, const Inner *in, int *n)
{
	size_t k = 0;
	uint32_t *vrs = fmu_me_event_vrs(in->fmu, &k);
	return vrs_text(e, vrs, k, n);
}

/* The arrays of value references the Model Exchange inners' `.me` points to: those that
 * take only in Event Mode, and the states' and derivatives' when the Jacobian comes from
 * directional derivatives. */
static void emit_me_arrays(Ec *e, StrBuf *o)
{
	Arena *a = e->c->arena;
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		if (!ic->in->fmu || !ic->in->me)
			continue;
		int nev = 0;
		const char **ev = me_event_vrs(e, ic->in, &nev);
		if (nev > 0) {
			ec_put_list(o, arena_printf(a, "static const SartVr %s_event_vrs[%d] = ",
			                            ic->cname, nev), ev, nev, ";");
			sb_putc(o, '\n');
		}
		if (!me_jacobian_by_vrs(ic->in))
			continue;
		const FmuInfo *f = ic->in->fmu;
		int n = f->me.nstates;
		const char **st = arena_alloc(a, (size_t)n * sizeof *st);
		const char **de = arena_alloc(a, (size_t)n * sizeof *de);
		for (int k = 0; k < n; k++) {
			st[k] = arena_printf(a, "%u", (unsigned)f->vars[f->me.states[k].state].vr);
			de[k] = arena_printf(a, "%u", (unsigned)f->vars[f->me.states[k].derivative].vr);
		}
		ec_put_list(o, arena_printf(a, "static const SartVr %s_states[%d] = ", ic->cname, n),
		            st, n, ";");
		ec_put_list(o, arena_printf(a, "static const SartVr %s_derivatives[%d] = ", ic->cname,
		                            n), de, n, ";");
		sb_putc(o, '\n');
	}
}

/* A Model Exchange inner's `.me` (SartMeConfig): the script's solver settings, the
 * experiment's tolerance and, for FMI 2.0, the sizes of its description; the fields left
 * out are zero, the runtime's defaults. */
static void emit_me_config(Ec *e, const InnerC *ic, StrBuf *o)
{
	/* the script's choices, by their SartOdeMethod (runtime/sart_ode.h) */
	static const int method_of[] = {0, 4, 6};
	static const char *const methods[] = {"auto", "explicit (Dormand-Prince)",
	                                      "implicit (Rosenbrock)"};
	const Inner *in = ic->in;
	const FmuInfo *f = in->fmu;
	if (!f || !in->me)
		return;
	sb_puts(o, "\t\t.me = {\n");
	if (in->me_method > 0 && in->me_method < 3)
		sb_printf(o, "\t\t\t.method = %d, /* %s */\n", method_of[in->me_method],
		          methods[in->me_method]);
	if (in->me_tolerance > 0)
		sb_printf(o, "\t\t\t.tolerance = %s,\n", ec_real_text(e, in->me_tolerance));
	if (f->default_tolerance > 0)
		sb_printf(o, "\t\t\t.default_tolerance = %s,\n",
		          ec_real_text(e, f->default_tolerance));
	if (in->me_max_step > 0)
		sb_printf(o, "\t\t\t.max_step = %s,\n", ec_real_text(e, in->me_max_step));
	if (f->me.nstate_elems > 0)
		sb_printf(o, "\t\t\t.nstates = %lld,\n", f->me.nstate_elems);
	if (f->me.nevent_indicators > 0)
		sb_printf(o, "\t\t\t.nevent_indicators = %lld,\n", f->me.nevent_indicators);
	if (me_jacobian_by_vrs(in))
		sb_printf(o, "\t\t\t.state_vrs = %s_states,\n\t\t\t.derivative_vrs = %s_derivatives,\n",
		          ic->cname, ic->cname);
	int nev = 0;
	me_event_vrs(e, in, &nev);
	if (nev > 0)
		sb_printf(o, "\t\t\t.event_vrs = %s_event_vrs,\n\t\t\t.nevent_vrs = %d,\n",
		          ic->cname, nev);
	sb_puts(o, "\t\t},\n");
}

/* An FMI 3.0 Co-Simulation inner's intermediate inputs (fmu_intermediate_inputs), as text;
 * *n = 0 when none. */
static const char **intermediate_inputs(Ec *e, const Inner *in, int *n)
{
	size_t k = 0;
	uint32_t *vrs = in->fmu && !in->me ? fmu_intermediate_inputs(in->fmu, in->fmu->nvars, &k)
	                                   : NULL;
	return vrs_text(e, vrs, k, n);
}

/* The arrays `.intermediate_inputs` points to: the inputs the runtime gives an inner inside
 * its steps when it asks for them. */
static void emit_intermediate_arrays(Ec *e, StrBuf *o)
{
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		int n = 0;
		const char **vrs = intermediate_inputs(e, ic->in, &n);
		if (n == 0)
			continue;
		ec_put_list(o, arena_printf(e->c->arena, "static const SartVr %s_intermediate[%d] = ",
		                            ic->cname, n), vrs, n, ";");
		sb_putc(o, '\n');
	}
}

/* The clocks the runtime schedules for a Scheduled Execution inner, or ticks in Event Mode
 * for a Co-Simulation one: its input and output clocks (a local one is its own business). */
static bool se_clock(const FmuVar *v)
{
	return v->type == FT_CLOCK && v->causality != CAUS_LOCAL;
}

static int se_nclocks(const Inner *in)
{
	int n = 0;
	for (int k = 0; k < in->fmu->nvars; k++)
		n += se_clock(&in->fmu->vars[k]);
	return n;
}

/* A Scheduled Execution inner's clocks (SartClock), each with its kind, interval, shift
 * and priority from the description; an interval the description leaves open is 0, asked
 * of the FMU by the runtime. */
static void emit_se_arrays(Ec *e, StrBuf *o)
{
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		if (!(ic->caps & (64u | 128u)))
			continue;
		const FmuInfo *f = ic->in->fmu;
		sb_printf(o, "static const SartClock %s_clocks[%d] = {\n", ic->cname,
		          se_nclocks(ic->in) > 0 ? se_nclocks(ic->in) : 1);
		for (int k = 0; k < f->nvars; k++) {
			const FmuVar *v = &f->vars[k];
			if (!se_clock(v))
				continue;
			const FmuClock *c = &v->clock;
			const char *kind = v->causality == CAUS_OUTPUT     ? "SART_CLOCK_OUTPUT"
			                   : fmu_clock_periodic(c)            ? "SART_CLOCK_PERIODIC"
			                   : c->interval_variability == IV_COUNTDOWN ? "SART_CLOCK_COUNTDOWN"
			                                                         : "SART_CLOCK_TRIGGERED";
			double iv = fmu_clock_interval(c), shift = fmu_clock_shift(c);
			sb_printf(o, "\t{%u, %s, %s, %s, %u}, /* %s */\n", (unsigned)v->vr, kind,
			          ec_real_text(e, fmu_clock_periodic(c) && iv > 0 ? iv : 0.0),
			          ec_real_text(e, fmu_clock_periodic(c) ? shift : 0.0), c->priority,
			          ec_c_string(e->c->arena, v->name));
		}
		sb_puts(o, "};\n\n");
	}
}

/* The inner FMUs' table (SartInnerModel): library, GUID, version, capabilities and each
 * port group's place in the Storage. */
void ec_emit_inner_table(Ec *e, StrBuf *o)
{
	Arena *a = e->c->arena;
	emit_me_arrays(e, o);
	emit_intermediate_arrays(e, o);
	emit_se_arrays(e, o);
	int *homes = emit_inner_homes(e->c, e->info);
	sb_puts(o, "static const SartInnerModel inners[NINNERS] = {\n");
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		sb_printf(o, "\t[%s] = {\n", ic->enumc);
		sb_printf(o, "\t\t.name = \"%s\",\n", ec_c_string(a, ic->in->name));
		/* the same FMU as an inner before it: its directory, its library */
		if (homes && homes[i] != i)
			sb_printf(o, "\t\t.dir = \"%s\",\n",
			          ec_c_string(a, e->inners[homes[i]].in->name));
		sb_printf(o, "\t\t.model_identifier = \"%s\",\n", ec_c_string(a, ic->model_identifier));
		sb_printf(o, "\t\t.guid = \"%s\",\n", ec_c_string(a, ic->guid));
		sb_printf(o, "\t\t.version = %s,\n", ic->version == 3 ? "SART_FMI3" : "SART_FMI2");
		StrBuf caps;
		sb_init(&caps);
		static const char *const cap_names[] = {"SART_CAP_GET_SET_STATE", "SART_CAP_SERIALIZE",
		                                        "SART_CAP_INPUT_DERIVATIVES", "SART_CAP_EVENT_MODE",
		                                        "SART_CAP_EARLY_RETURN",
		                                        "SART_CAP_MODEL_EXCHANGE",
		                                        "SART_CAP_SCHEDULED_EXECUTION",
		                                        "SART_CAP_CLOCKS"};
		unsigned ic_caps = ic->caps & (inner_may_return_early(e) ? ~0u : ~16u);
		for (int b = 0; b < 8; b++)
			if (ic_caps & (1u << b))
				sb_printf(&caps, "%s%s", caps.len ? " | " : "", cap_names[b]);
		sb_printf(o, "\t\t.caps = %s,\n", caps.len ? sb_str(&caps) : "0");
		sb_free(&caps);
		if (ic->in->isolated)
			sb_puts(o, "\t\t.isolated = 1,\n");
		ec_emit_vr_types_ref(e, ic, o);
		ec_emit_elements_ref(e, ic, o);
		{
			int nim = 0;
			intermediate_inputs(e, ic->in, &nim);
			if (nim > 0)
				sb_printf(o, "\t\t.intermediate_inputs = %s_intermediate,\n"
				          "\t\t.nintermediate_inputs = %d,\n", ic->cname, nim);
		}
		emit_me_config(e, ic, o);
		if (ic->caps & (64u | 128u))
			sb_printf(o, "\t\t.se = {%s_clocks, %d},\n", ic->cname, se_nclocks(ic->in));
		ec_batch_inner(e, o, ic);
		for (int dir = 0; dir < 2; dir++) {
			bool any = ec_binary_ports(e, i, dir) > 0;
			for (int t = 0; t < T_N; t++)
				any |= ic->n[dir][t] > 0;
			if (!any)
				continue;
			sb_printf(o, "\t\t.%s = {\n", dir ? "out" : "in");
			for (int t = 0; t < T_N; t++) {
				int n = ic->n[dir][t];
				if (!n)
					continue;
				const char *arr = arena_printf(a, "%s_%s_%s", ic->cname, dir ? "out" : "in",
							       type_word[t]);
				sb_printf(o, "\t\t\t[%s] = {%d, %s_vr, %s_names,\n", type_sart[t], n, arr, arr);
				if (dir)
					sb_printf(o, "\t\t\t\toffsetof(Storage, %s), 0},\n", arr);
				else
					sb_printf(o, "\t\t\t\toffsetof(Storage, %s), offsetof(Storage, %s_assigned)},\n",
						  arr, arr);
			}
			ec_emit_binary_group(e, o, ic, dir);
			sb_puts(o, "\t\t},\n");
		}
		sb_puts(o, "\t},\n");
	}
	sb_puts(o, "};\n\n");

}
