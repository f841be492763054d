/* emit_binary.c — the inners' Binary ports a wrapper forwards.  Binary is no type of the
 * language (bytes have no arithmetic, comparison or literal), so such a port never reaches
 * the explicit form; where the explicit form would pass an inner port through (an input
 * nothing feeds, an output when the script declares no outputs), an FMI 3.0 inner's Binary
 * port becomes a Binary variable of the wrapper of the same name, forwarded whole: the
 * runtime sets every Binary input on its inner before each of the inner's steps and reads
 * every Binary output after it (runtime/sart_binary.c).  In the Storage the inner's port
 * group IS the wrapper's variable, a SartBinary.  Only an FMI 3.0 wrapper can carry one: an
 * FMI 2.0 build is an error naming the port and the inner.
 *
 * An FMI 3.0 inner's Binary array is forwarded whole as well: one Binary array variable of
 * the wrapper (its Dimensions, one <Start> per element, emit_md.c), made of one EmitBinary
 * per element in a row, each a SartBinary in the Storage and given a value reference of its
 * own for the seam (the element table, emit_c_arrays.c), which gets and sets the inner's
 * array whole; the FMI 3.0 skin expands the array's value reference into the elements'
 * (SartModel.spans).  An inner adaptation's forwarded Binaries, arrays included, are
 * forwarded again by a wrapper over it, as its FMI 3.0 model description declares them. */
#include "emit_c_impl.h"

#include <string.h>

/* The runtime's SART_BINARY_CAP (runtime/sart_wrapper.h): the most bytes a wrapper's
 * Binary holds, and its maxSize where the inner gives none or a larger one. */
enum { BINARY_CAP = 4096 };

/* The most elements of a Binary array a wrapper forwards: each is a SartBinary of its own
 * in the Storage (BINARY_CAP bytes), which FMU states and G's scratch copy carry. */
enum { MAX_ELEMENTS = 1024 };

/* Whether the explicit form passed the inners' outputs through (rule AddOutPorts): the
 * script declares no output port. */
static bool outputs_passed_through(const Node *sa)
{
	if (!sa->a_outports)
		return true;
	for (const Node *p = sa->a_outports; p; p = p->next)
		if (p->origin && strcmp(p->origin, "AddOutPorts") == 0)
			return true;
	return false;
}

/* The wrapper variable or port named name, if any (a forwarded Binary may not take it). */
static bool name_taken(const EmitLayout *l, const char *name, int nbinaries)
{
	for (int i = 0; i < l->nvars; i++)
		if (strcmp(l->vars[i].name, name) == 0)
			return true;
	for (int i = 0; i < nbinaries; i++)
		if (strcmp(l->binaries[i].name, name) == 0)
			return true;
	return false;
}

uint32_t emit_binary_vr3(const EmitLayout *l, const EmitBinary *b)
{
	return l->nreal + 1 + l->ninteger + l->nboolean + l->nstring + b->vr;
}

/* An inner adaptation's forwarded Binary array whose first element is b (the elements in a
 * row from there), as an FMU's variable: its name, Dimensions (fixed sizes) and start
 * values those of that adaptation's FMI 3.0 model description. */
static void adaptation_array(Arena *a, const EmitBinary *b, FmuVar *var)
{
	var->name = (char *)b->array_name;
	var->dims = arena_alloc(a, (size_t)(b->var->ndims + 1) * sizeof *var->dims);
	for (int d = 0; d < b->var->ndims; d++)
		var->dims[d] = (FmuDim){b->var->dims[d].size, -1, b->var->dims[d].size};
	var->nstarts = 0;
	var->start = NULL;
	if (!b->is_input)
		return;
	size_t len = 0; /* the elements' <Start> values, each NUL-ended (FmuVar.nstarts) */
	for (long long e = 0; e < b->var->nelems; e++)
		len += (b[e].start ? strlen(b[e].start) : 0) + 1;
	char *at = arena_alloc(a, len + 1);
	var->start = at;
	for (long long e = 0; e < b->var->nelems; e++) {
		const char *start = b[e].start ? b[e].start : "";
		memcpy(at, start, strlen(start) + 1);
		at += strlen(start) + 1;
	}
	var->nstarts = (int)b->var->nelems;
}

/* The Binary variables of inner adaptation in (built in the same run: its forwarded ports
 * and arrays, as its FMI 3.0 model description gives them), as an FMU's variables; *n how
 * many. */
static const FmuVar *adaptation_binaries(Compilation *c, const Inner *in, int *n)
{
	const EmitLayout *sub = in->adaptation ? emit_layout(c, in->adaptation->info) : NULL;
	*n = sub ? sub->nbinaries : 0;
	if (!*n)
		return NULL;
	FmuVar *vars = arena_alloc(c->arena, (size_t)*n * sizeof *vars);
	int m = 0;
	for (int i = 0; i < *n; i++) {
		const EmitBinary *b = &sub->binaries[i];
		if (b->elem > 1) /* its array came whole with the first element */
			continue;
		FmuVar *var = &vars[m++];
		*var = *b->var;
		var->name = (char *)b->name;
		var->vr = emit_binary_vr3(sub, b);
		var->max_size = b->max_size;
		if (b->elem)
			adaptation_array(c->arena, b, var);
		else
			var->start = b->is_input ? b->var->start : NULL;
	}
	*n = m;
	return vars;
}

/* The k-th (0-based) of an FMI 3.0 Binary array's <Start> values (FmuVar.nstarts), NULL
 * when it has none. */
static const char *nth_start(const FmuVar *v, int k)
{
	const char *s = v->start;
	if (!s || k >= v->nstarts)
		return NULL;
	for (int i = 0; i < k; i++)
		s += strlen(s) + 1;
	return s;
}

/* How many Binary array elements of inner f are forwarded so far: each one's reference
 * for the seam comes after the inner's element ports' (emit_c.c). */
static int elements_before(const EmitLayout *l, int f)
{
	int n = 0;
	for (int i = 0; i < l->nbinaries; i++)
		n += l->binaries[i].inner_index == f && l->binaries[i].elem > 0;
	return n;
}

/* The reference the wrapper gives inner in's k-th element (emit_c_arrays.c): past the
 * inner FMU's own, or past those of the inner adaptation's FMI 3.0 wrapper. */
static uint32_t element_vr(Compilation *c, const Inner *in, int k)
{
	if (in->fmu)
		return ec_element_vr(in->fmu, k);
	return ec_element_vr3(emit_layout(c, in->adaptation->info), k);
}

/* One pass: inputs (want_input) or outputs of every inner (an FMI 3.0 FMU, or an adaptation
 * of the same build that forwards Binaries itself), in declaration order. */
static void find_direction(Compilation *c, EmitLayout *l, bool want_input)
{
	const SaInfo *info = l->info;
	for (int f = 0; f < info->ninners; f++) {
		const Inner *in = info->inners[f];
		int nvars = in->fmu ? in->fmu->nvars : 0;
		const FmuVar *vars = in->fmu ? in->fmu->vars : adaptation_binaries(c, in, &nvars);
		int index = 0;
		for (int k = 0; vars && k < nvars; k++) {
			const FmuVar *v = &vars[k];
			if (v->type != FT_BINARY ||
			    v->causality != (want_input ? CAUS_INPUT : CAUS_OUTPUT))
				continue;
			if (name_taken(l, v->name, l->nbinaries)) {
				diag_error(c->diag, in->decl->loc, "the Binary %s '%s' of inner fmu '%s' "
				           "needs a wrapper %s of that name, which is already taken",
				           want_input ? "input" : "output", v->name, in->name,
				           want_input ? "input" : "output");
				continue;
			}
			long long max = v->max_size >= 0 && v->max_size < BINARY_CAP ? v->max_size
			                                                             : BINARY_CAP;
			long long n = v->ndims > 0 ? v->nelems : 1;
			if (n <= 0 || n > MAX_ELEMENTS) {
				diag_error(c->diag, in->decl->loc, "the Binary array %s '%s' of inner fmu "
				           "'%s' has %lld elements: a wrapper forwards 1 to %d",
				           want_input ? "input" : "output", v->name, in->name, n,
				           MAX_ELEMENTS);
				continue;
			}
			if (v->ndims > 0)
				l->narrays++;
			int before = elements_before(l, f);
			for (long long e = 0; e < n; e++) {
				EmitBinary *b = &l->binaries[l->nbinaries];
				*b = (EmitBinary){v->name, in, f, v, want_input, (uint32_t)l->nbinaries,
				                  index++, max, 0, NULL, v->start, v->vr, {NULL, 0}, {NULL, 0}};
				if (v->ndims > 0) {
					b->name = fmu_element_name(c->arena, v, e);
					b->elem = (int)e + 1;
					b->array_name = v->name;
					b->start = nth_start(v, (int)e);
					b->inner_vr = element_vr(c, in, in->nports + before + (int)e);
				}
				l->nbinaries++;
			}
		}
	}
}

void emit_find_binaries(Compilation *c, EmitLayout *l)
{
	int n = 0;
	for (int f = 0; f < l->info->ninners; f++) {
		const Inner *in = l->info->inners[f];
		const EmitLayout *sub = in->adaptation ? emit_layout(c, in->adaptation->info) : NULL;
		for (int k = 0; in->fmu && k < in->fmu->nvars; k++)
			if (in->fmu->vars[k].type == FT_BINARY)
				n += in->fmu->vars[k].ndims > 0 && in->fmu->vars[k].nelems > 0 &&
				     in->fmu->vars[k].nelems <= MAX_ELEMENTS
				     ? (int)in->fmu->vars[k].nelems : 1;
		n += sub ? sub->nbinaries : 0;
	}
	l->binaries = arena_alloc(c->arena, (size_t)(n + 1) * sizeof *l->binaries);
	l->nbinaries = 0;
	if (!n)
		return;
	find_direction(c, l, true);
	if (outputs_passed_through(l->sa))
		find_direction(c, l, false);
}

int emit_binaries_refused(Compilation *c, const EmitLayout *l, int fmi_version)
{
	int errors = 0;
	for (int i = 0; i < l->nbinaries && fmi_version != 3; i++) {
		const EmitBinary *b = &l->binaries[i];
		if (b->elem > 1)
			continue; /* an array is named once */
		diag_error(c->diag, b->inner->decl->loc, "the Binary %s%s '%s' of inner fmu '%s' is "
		           "passed through, but an FMI 2.0 wrapper cannot carry it: FMI 2.0 has no "
		           "Binary type", b->elem ? "array " : "", b->is_input ? "input" : "output",
		           b->elem ? b->array_name : b->name, b->inner->name);
		if (i == 0)
			diag_note(c->diag, b->inner->decl->loc, "build the wrapper as FMI 3.0 "
			          "(`sacc build --fmi 3`, or `fmi 3` in the script)");
		errors++;
	}
	return errors;
}

/* The bytes of a start value given as hexadecimal digits, as a C string literal ("\xca\xfe")
 * and its size; "" and 0 when there is none or it is not hexadecimal bytes. */
static const char *start_bytes(Arena *a, const char *hex, size_t *size)
{
	StrBuf sb;
	size_t n = hex ? strlen(hex) : 0;
	*size = 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", hex[i]))
			return "\"\"";
	if (n % 2 || n / 2 > BINARY_CAP)
		return "\"\"";
	sb_init(&sb);
	sb_putc(&sb, '"');
	for (size_t i = 0; i < n; i += 2)
		sb_printf(&sb, "\\x%c%c", hex[i], hex[i + 1]);
	sb_putc(&sb, '"');
	const char *s = arena_strdup(a, sb_str(&sb));
	sb_free(&sb);
	*size = n / 2;
	return s;
}

/* How many of inner f's Binary ports go in direction dir (0 in, 1 out). */
static int count_dir(const EmitLayout *l, int f, int dir)
{
	int n = 0;
	for (int i = 0; i < l->nbinaries; i++)
		n += l->binaries[i].inner_index == f && l->binaries[i].is_input == (dir == 0);
	return n;
}

int ec_binary_ports(const Ec *e, int f, int dir)
{
	return count_dir(e->l, f, dir);
}

static const char *group_name(const Ec *e, const EmitBinary *b)
{
	return arena_printf(e->c->arena, "%s_%s_binary", e->inners[b->inner_index].cname,
	                    b->is_input ? "in" : "out");
}

void ec_emit_binary_storage(const Ec *e, const InnerC *ic, StrBuf *o)
{
	int f = (int)(ic - e->inners);
	for (int dir = 0; dir < 2; dir++) {
		int n = count_dir(e->l, f, dir);
		if (n)
			sb_printf(o, "\tSartBinary %s_%s_binary[%d]; /* forwarded whole */\n", ic->cname,
			          dir ? "out" : "in", n);
	}
}

void ec_emit_binary_port_tables(Ec *e, StrBuf *o)
{
	Arena *a = e->c->arena;
	for (int f = 0; f < e->ninners; f++)
		for (int dir = 0; dir < 2; dir++) {
			int n = count_dir(e->l, f, dir);
			if (!n)
				continue;
			const char **vrs = arena_alloc(a, (size_t)n * sizeof *vrs);
			const char **names = arena_alloc(a, (size_t)n * sizeof *names);
			const char *arr = NULL;
			for (int i = 0; i < e->l->nbinaries; i++) {
				const EmitBinary *b = &e->l->binaries[i];
				if (b->inner_index != f || b->is_input != (dir == 0))
					continue;
				arr = group_name(e, b);
				vrs[b->index] = arena_printf(a, "%u", (unsigned)b->inner_vr);
				names[b->index] = arena_printf(a, "\"%s\"", ec_c_string(a, b->name));
			}
			ec_put_list(o, arena_printf(a, "static const SartVr %s_vr[%d] = ", arr, n), vrs, n,
			            ";");
			ec_put_list(o, arena_printf(a, "static const char *const %s_names[%d] = ", arr, n),
			            names, n, ";");
		}
}

void ec_emit_binary_group(const Ec *e, StrBuf *o, const InnerC *ic, int dir)
{
	int f = (int)(ic - e->inners), n = count_dir(e->l, f, dir);
	if (!n)
		return;
	const char *arr = arena_printf(e->c->arena, "%s_%s_binary", ic->cname, dir ? "out" : "in");
	sb_printf(o, "\t\t\t[SART_BINARY] = {%d, %s_vr, %s_names,\n\t\t\t\toffsetof(Storage, %s), 0},\n",
	          n, arr, arr, arr);
}

bool ec_binary_defaults_any(const Ec *e)
{
	for (int i = 0; i < e->l->nbinaries; i++)
		if (e->l->binaries[i].is_input && e->l->binaries[i].start)
			return true;
	return false;
}

void ec_emit_binary_defaults(Ec *e, StrBuf *o)
{
	for (int i = 0; i < e->l->nbinaries; i++) {
		const EmitBinary *b = &e->l->binaries[i];
		size_t size;
		if (!b->is_input || !b->start)
			continue;
		const char *bytes = start_bytes(e->c->arena, b->start, &size);
		sb_printf(o, "\tsart_init_binary(&s->%s[%d], %s, %lu);\n", group_name(e, b), b->index,
		          bytes, (unsigned long)size);
	}
}

/* The start values must be hexadecimal bytes that fit: checked here, where the inner's
 * model description is at hand, rather than cut at run time. */
void ec_check_binary_starts(Ec *e)
{
	for (int i = 0; i < e->l->nbinaries; i++) {
		const EmitBinary *b = &e->l->binaries[i];
		size_t size, n = b->start ? strlen(b->start) : 0;
		if (!b->is_input || !n)
			continue;
		start_bytes(e->c->arena, b->start, &size);
		if (!size || (long long)size > b->max_size)
			ec_error(e, b->inner->decl->loc, "the start value of the Binary input '%s' of "
			         "inner fmu '%s' is not hexadecimal bytes of at most %lld", b->name,
			         b->inner->name, b->max_size);
	}
}

void ec_emit_binary_vars(Ec *e, StrBuf *o)
{
	const EmitLayout *l = e->l;
	Arena *a = e->c->arena;
	if (!l->nbinaries)
		return;
	const char **items = arena_alloc(a, (size_t)l->nbinaries * sizeof *items);
	const char **max = arena_alloc(a, (size_t)l->nbinaries * sizeof *max);
	for (int i = 0; i < l->nbinaries; i++) {
		const EmitBinary *b = &l->binaries[i];
		items[i] = arena_printf(a, "{offsetof(Storage, %s[%d]), %s, \"%s\"}", group_name(e, b),
		                        b->index, b->is_input ? "SART_VAR_INPUT" : "SART_VAR_OUTPUT",
		                        ec_c_string(a, b->name));
		max[i] = arena_printf(a, "%lld", b->max_size);
	}
	sb_puts(o, "/* The Binary variables by value reference (the inners' forwarded), and the most\n"
	           " * bytes each may hold. */\n");
	ec_put_list(o, arena_printf(a, "static const SartVar binary_vars[%d] = ", l->nbinaries),
	            items, l->nbinaries, ";");
	ec_put_list(o, arena_printf(a, "static const size_t binary_max[%d] = ", l->nbinaries), max,
	            l->nbinaries, ";");
	sb_putc(o, '\n');
}
