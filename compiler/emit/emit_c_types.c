/* emit_c_types.c — the inners' port tables the emitted C gives the runtime: each port
 * group's value references and names, and for an FMI 3.0 inner the variables whose type is
 * not the seam's default (Float64 for Reals, Int32 for Integers), so that the runtime's FMI
 * 3.0 back end converts each value at the boundary and range-checks it (runtime/sart_inner.h,
 * SartVrType) instead of calling fmi3GetInt32 on an Int8. */
#include "emit_c_impl.h"

#include <string.h>

/* The runtime's name of an FMI 3.0 variable's type where it is not the default of the
 * language type it maps to, else NULL.  Enumerations are Int64 in FMI 3.0. */
static const char *vt_name(FmuType t)
{
	switch (t) {
	case FT_FLOAT32: return "SART_VT_FLOAT32";
	case FT_INT8: return "SART_VT_INT8";
	case FT_UINT8: return "SART_VT_UINT8";
	case FT_INT16: return "SART_VT_INT16";
	case FT_UINT16: return "SART_VT_UINT16";
	case FT_UINT32: return "SART_VT_UINT32";
	case FT_INT64: return "SART_VT_INT64";
	case FT_UINT64: return "SART_VT_UINT64";
	case FT_ENUMERATION: return "SART_VT_INT64";
	default: return NULL;
	}
}

/* Whether the wrapper may reach v through the seam: a port (an array's through its
 * elements), or a parameter (an array one through its elements). */
static bool reachable(const FmuVar *v)
{
	switch (v->causality) {
	case CAUS_INPUT: case CAUS_OUTPUT:
		return true;
	case CAUS_PARAMETER:
		return true; /* an array parameter through its elements */
	case CAUS_CALCULATED_PARAMETER:
		return v->ndims == 0;
	default:
		return false;
	}
}

/* How many of the inner's variables need a SartVrType: 0 unless it is an FMI 3.0 FMU. */
static int count_vr_types(const InnerC *ic)
{
	const FmuInfo *f = ic->in->fmu;
	int n = 0;
	if (!f || f->version != FMI_V3)
		return 0;
	for (int i = 0; i < f->nvars; i++)
		n += reachable(&f->vars[i]) && vt_name(f->vars[i].type);
	return n;
}

static void emit_vr_types(Ec *e, const InnerC *ic, StrBuf *o)
{
	Arena *a = e->c->arena;
	const FmuInfo *f = ic->in->fmu;
	int n = count_vr_types(ic), k = 0;
	if (!n)
		return;
	const char **items = arena_alloc(a, (size_t)n * sizeof *items);
	for (int i = 0; i < f->nvars; i++) {
		const FmuVar *v = &f->vars[i];
		if (reachable(v) && vt_name(v->type))
			items[k++] = arena_printf(a, "{%u, %s, \"%s\"}", (unsigned)v->vr,
			                          vt_name(v->type), ec_c_string(a, v->name));
	}
	ec_put_list(o, arena_printf(a, "static const SartVrType %s_vr_types[%d] = ", ic->cname, n),
	            items, n, ";");
}

void ec_emit_vr_types_ref(Ec *e, const InnerC *ic, StrBuf *o)
{
	(void)e;
	int n = count_vr_types(ic);
	if (n)
		sb_printf(o, "\t\t.vr_types = %s_vr_types,\n\t\t.nvr_types = %d,\n", ic->cname, n);
}

/* The value references and names of the inners' ports, one array each per port group. */
void ec_emit_port_tables(Ec *e, StrBuf *o)
{
	Arena *a = e->c->arena;
	for (int i = 0; i < e->ninners; i++) {
		const InnerC *ic = &e->inners[i];
		for (int t = 0; t < T_N; t++)
			for (int dir = 0; dir < 2; dir++) {
				int n = ic->n[dir][t];
				if (!n)
					continue;
				const char **vrs = arena_alloc(a, (size_t)n * sizeof *vrs);
				const char **names = arena_alloc(a, (size_t)n * sizeof *names);
				for (int k = 0; k < ic->in->nports; k++) {
					const Slot *sl = &ic->slots[k];
					if (sl->type != t || ic->in->ports[k].is_input != (dir == 0))
						continue;
					vrs[sl->index] = arena_printf(a, "%u", (unsigned)sl->vr);
					names[sl->index] = arena_printf(a, "\"%s\"",
								ec_c_string(a, ic->in->ports[k].name));
				}
				const char *arr = arena_printf(a, "%s_%s_%s", ic->cname, dir ? "out" : "in",
							       type_word[t]);
				ec_put_list(o, arena_printf(a, "static const SartVr %s_vr[%d] = ", arr, n), vrs,
					 n, ";");
				ec_put_list(o, arena_printf(a, "static const char *const %s_names[%d] = ", arr,
							 n), names, n, ";");
			}
	}
	ec_emit_binary_port_tables(e, o);
	for (int i = 0; i < e->ninners; i++)
		emit_vr_types(e, &e->inners[i], o);
	ec_emit_array_tables(e, o);
	if (e->ninners)
		sb_putc(o, '\n');
}

