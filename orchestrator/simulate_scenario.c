/* simulate_scenario.c — what `sacc simulate` runs, made from its TARGET (simulate.h): the
 * FMU instances with the SartVar tables of their descriptions, a scenario module's
 * connections (with their unit conversions), and the INST.VAR references of --record,
 * --set and --event resolved against them.
 *
 * Like simulate_cli.c, not part of libsacc.a: it sees runtime/ headers. */
#include "simulate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static SartCausality sart_causality(FmuCausality c)
{
	switch (c) {
	case CAUS_INPUT: return SART_CAUS_INPUT;
	case CAUS_OUTPUT: return SART_CAUS_OUTPUT;
	case CAUS_PARAMETER: return SART_CAUS_PARAMETER;
	default: return SART_CAUS_OTHER;
	}
}

int sim_add_fmu(Sim *s, const char *name, FmuInfo *info, Loc where)
{
	if (name_index_add(&s->instances, name, s->nfmus))
		return 1;
	SimFmu *f = &s->fmus[s->nfmus++];
	f->name = name;
	f->info = info;
	f->where = where;
	if (sim_expand_arrays(s, f))
		return 1;
	info = f->info;
	f->vars = calloc((size_t)info->nvars + 1, sizeof *f->vars);
	if (!f->vars || sim_vr_types(info, &f->vr_types, &f->nvr_types))
		return 1;
	/* the seam gives these the FMU inside a step when it asks; the expanded elements of
	 * arrays (after the description's own nown) are not among them */
	f->intermediate = fmu_intermediate_inputs(info, f->nown, &f->nintermediate);
	for (int i = 0; i < info->nvars; i++) {
		const FmuVar *v = &info->vars[i];
		f->vars[i] = (SartVar){v->name, v->vr, sim_sart_type(v), sart_causality(v->causality),
		                       NULL, v->causality == CAUS_OUTPUT ? -1 : 0,
		                       v->type == FT_CLOCK, v->nclocks > 0};
		/* an expanded array's ports are its elements */
		if (i < f->nown && f->first_elem && f->first_elem[i] >= 0)
			f->vars[i].causality = SART_CAUS_OTHER;
	}
	for (int i = 0; i < info->nvars; i++) {
		if (info->vars[i].type != FT_BINARY || info->vars[i].ndims)
			continue;
		SartRef *b = realloc(s->binaries, ((size_t)s->nbinaries + 1) * sizeof *b);
		if (!b)
			return 1;
		s->binaries = b;
		s->binaries[s->nbinaries++] = (SartRef){s->nfmus - 1, i};
	}
	for (int k = 0; k < info->noutputs; k++) {
		const FmuOutputDep *o = &info->outputs[k];
		if (o->var < 0 || o->var >= info->nvars || !o->deps_given)
			continue;
		f->vars[o->var].deps = o->deps;
		f->vars[o->var].ndeps = o->ndeps;
	}
	return 0;
}

/* What v is, for messages: "a scalar", "an array of 3 Float64", "an array of 2x3 Int32". */
static const char *shape_text(const FmuVar *v, int count, char *buf, size_t size)
{
	if (!v->ndims)
		return "a scalar";
	size_t used = (size_t)snprintf(buf, size, "an array of ");
	for (int d = 0; d < v->ndims && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? "x" : "",
		                         v->dims[d].size);
	if (used < size)
		snprintf(buf + used, size - used, " %s%s", fmu_type_name_for(v->type, FMI_V3),
		         count ? "" : " (not exchanged)");
	return buf;
}

static bool same_shape(const FmuVar *a, const FmuVar *b)
{
	if (a->ndims != b->ndims)
		return false;
	for (int d = 0; d < a->ndims; d++)
		if (a->dims[d].size != b->dims[d].size)
			return false;
	return true;
}

/* Whether v is a String or a Binary: outside the signals (SartMasterOptions' string_*). */
static bool is_text(const FmuVar *v)
{
	return v->type == FT_STRING || v->type == FT_BINARY;
}

/* A connection between two String or two Binary scalars (elements included). */
static int add_text_conn(Sim *s, SartConnection cn)
{
	SartConnection *v = realloc(s->string_conns, ((size_t)s->nstring_conns + 2) * sizeof *v);
	if (!v)
		return 1;
	s->string_conns = v;
	s->string_conns[s->nstring_conns++] = (SartConnection){cn.src, cn.dst, 1.0, 0.0, NULL,
	                                                        NULL, 0};
	return 0;
}

/* Array to array: one connection per element, each with the conversion of the whole. */
static int add_array_conn(Sim *s, SartConnection cn, Loc where)
{
	const SimFmu *fs = &s->fmus[cn.src.fmu], *fd = &s->fmus[cn.dst.fmu];
	int s0, ns, d0, nd;
	sim_array_span(fs, cn.src.var, &s0, &ns);
	sim_array_span(fd, cn.dst.var, &d0, &nd);
	const FmuVar *src = &fs->info->vars[cn.src.var], *dst = &fd->info->vars[cn.dst.var];
	if (ns == 0 || nd == 0 || !same_shape(src, dst)) {
		char a[96], b[96];
		diag_error(s->c->diag, where, "connection %s.%s -> %s.%s: %s is %s and %s is %s: "
		           "arrays connect element by element, to an array of the same dimensions",
		           fs->name, src->name, fd->name, dst->name, src->name,
		           shape_text(src, ns, a, sizeof a), dst->name, shape_text(dst, nd, b, sizeof b));
		return 2;
	}
	SartConnection *v = realloc(s->conns, ((size_t)s->nconns + (size_t)ns + 1) * sizeof *v);
	if (!v)
		return 1;
	s->conns = v;
	for (int k = 0; k < ns; k++) {
		SartConnection e = cn;
		e.src.var = s0 + k;
		e.dst.var = d0 + k;
		if (is_text(src)) {
			if (add_text_conn(s, e))
				return 1;
		} else {
			s->conns[s->nconns++] = e;
		}
	}
	return 0;
}

int sim_add_conn(Sim *s, SartConnection cn, Loc where)
{
	const FmuVar *src = &s->fmus[cn.src.fmu].info->vars[cn.src.var];
	const FmuVar *dst = &s->fmus[cn.dst.fmu].info->vars[cn.dst.var];
	if ((is_text(src) || is_text(dst)) && src->type != dst->type) {
		diag_error(s->c->diag, where, "connection %s.%s -> %s.%s: a %s connects to a %s "
		           "only, and %s is a %s", s->fmus[cn.src.fmu].name, src->name,
		           s->fmus[cn.dst.fmu].name, dst->name,
		           fmu_type_name(is_text(src) ? src->type : dst->type),
		           fmu_type_name(is_text(src) ? src->type : dst->type),
		           is_text(src) ? dst->name : src->name,
		           fmu_type_name(is_text(src) ? dst->type : src->type));
		return 2;
	}
	if (is_text(src) && !src->ndims && !dst->ndims)
		return add_text_conn(s, cn);
	else if (src->ndims || dst->ndims)
		return add_array_conn(s, cn, where);
	else
		s->conns[s->nconns++] = cn;
	return 0;
}

int sim_var_index(const FmuInfo *info, const char *name)
{
	const FmuVar *v = fmu_find_var(info, name);
	return v ? (int)(v - info->vars) : -1;
}

int sim_find_instance(const Sim *s, const char *name)
{
	return name_index_find(&s->instances, name);
}

/* A scenario module: its fmu declarations (in order) and connections. */
int sim_load_scenario(Sim *s, const char *path, bool no_unit_conversion)
{
	Compilation *c = s->c;
	int nerr = 0;
	Module *m = drv_load(c, path);
	if (!m || !m->root)
		return 1;
	s->module = m;
	drv_check(c, m);
	if (diag_errors(c->diag))
		return 1;
	int ndecl = 0;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind == ND_ADAPTATION) {
			diag_error(c->diag, e->loc, "'%s' is an adaptation: sacc simulate runs a scenario "
			           "module (fmu declarations and connections) or an .fmu", e->name);
			diag_note(c->diag, e->loc, "build it with sacc build and simulate the .fmu, or "
			          "declare that .fmu in a scenario");
			return 1;
		}
		ndecl += e->kind == ND_FMU_DECL;
		s->nconns += e->kind == ND_CONNECTION;
	}
	s->fmus = calloc((size_t)ndecl + 1, sizeof *s->fmus);
	s->conns = calloc((size_t)s->nconns + 1, sizeof *s->conns);
	s->string_conns = calloc((size_t)s->nconns + 1, sizeof *s->string_conns);
	if (!s->fmus || !s->conns || !s->string_conns)
		return 1;
	s->nconns = 0; /* counted for the room; sim_add_conn fills it */
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_FMU_DECL)
			continue;
		FmuInfo *info = e->info;
		if (!info) {
			const char *file = drv_find_fmu_file(c, m->dir, e->str);
			if (!file) {
				diag_error(c->diag, e->loc, "cannot find fmu '%s' at \"%s\"", e->name, e->str);
				diag_note(c->diag, e->loc, "%s", drv_fmu_dirs_searched(c, m->dir, e->str));
				continue;
			}
			info = drv_open_fmu(c, file, e->loc);
			if (!info)
				continue;
		}
		if (sim_add_fmu(s, e->name, info, e->loc))
			return 1;
	}
	if (diag_errors(c->diag))
		return 1;
	if (s->nfmus == 0) {
		diag_error(c->diag, (Loc){m->path, 0, 0, 0}, "no fmu declared: nothing to simulate");
		return 1;
	}
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_CONNECTION)
			continue;
		int fs = sim_find_instance(s, e->lhs->owner), fd = sim_find_instance(s, e->rhs->owner);
		if (fs < 0 || fd < 0) {
			Node *end = fs < 0 ? e->lhs : e->rhs;
			diag_error(c->diag, end->loc, "'%s' is not an fmu declared in this module: "
			           "connections to adaptations or to fmus of imported modules are not "
			           "implemented yet", end->owner);
			nerr++;
			continue;
		}
		int vs = sim_var_index(s->fmus[fs].info, e->lhs->name);
		int vd = sim_var_index(s->fmus[fd].info, e->rhs->name);
		if (vs < 0 || vd < 0)
			return 1; /* the checker reported it */
		bool convert = e->converts && !no_unit_conversion;
		int rc = sim_add_conn(s, (SartConnection){{fs, vs}, {fd, vd}, convert ? e->scale : 1.0,
		                                          convert ? e->offset : 0.0, NULL, NULL, 0},
		                      e->loc);
		if (rc == 1)
			return 1;
		nerr += rc != 0;
	}
	return nerr ? 1 : 0;
}

/* INST.VAR: the instance is the part before the first '.'. */
int sim_parse_ref(const Sim *s, const char *what, const char *text, size_t len, SartRef *r)
{
	char buf[512];
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	char *dot = strchr(buf, '.');
	if (!dot || dot == buf || !dot[1])
		return cli_usage_error("%s: '%s' is not INSTANCE.VARIABLE", what, buf);
	/* an instance of a nested SSP system has dots in its name: the longest that fits */
	size_t best = 0;
	for (int f = 0; f < s->nfmus; f++) {
		size_t n = strlen(s->fmus[f].name);
		if (n > best && n < len && buf[n] == '.' && strncmp(buf, s->fmus[f].name, n) == 0)
			best = n;
	}
	if (best)
		dot = buf + best;
	*dot = '\0';
	r->fmu = sim_find_instance(s, buf);
	if (r->fmu < 0) {
		fprintf(stderr, "%s: %s: no fmu instance '%s'; the instances are:", cli_prog(), what,
		        buf);
		for (int f = 0; f < s->nfmus; f++)
			fprintf(stderr, " %s", s->fmus[f].name);
		fputc('\n', stderr);
		return 2;
	}
	r->var = sim_var_index(s->fmus[r->fmu].info, dot + 1);
	if (r->var < 0) {
		cli_error("%s: fmu '%s' has no variable '%s'", what, buf, dot + 1);
		return 2;
	}
	return 0;
}

/* Records r; col names its column and converts its value (an SSP system's output), NULL
 * for INST.VAR as it is.  s->cols is kept only for an SSP target. */
static int add_record(Sim *s, SartRef r, const SimColumn *col)
{
	if (s->nrecords == s->caprecords) {
		int cap = s->caprecords ? 2 * s->caprecords : 16;
		SartRef *v = realloc(s->records, (size_t)cap * sizeof *v);
		if (!v)
			return 1;
		s->records = v;
		if (s->ssp) {
			SimColumn *c = realloc(s->cols, (size_t)cap * sizeof *c);
			if (!c)
				return 1;
			s->cols = c;
		}
		s->caprecords = cap;
	}
	if (s->ssp)
		s->cols[s->nrecords] = col ? *col : (SimColumn){NULL, r, {r, r, 1, 0, NULL, NULL, 0},
		                                            NULL};
	s->records[s->nrecords++] = r;
	return 0;
}

static int add_string_record(Sim *s, SartRef r);

/* Records every element of array r (none when r is no expanded array), String and Binary
 * ones after the others. */
static int add_elements(Sim *s, SartRef r)
{
	int first, count;
	sim_array_span(&s->fmus[r.fmu], r.var, &first, &count);
	bool text = count && is_text(&s->fmus[r.fmu].info->vars[r.var]);
	for (int k = 0; k < count; k++)
		if (text ? add_string_record(s, (SartRef){r.fmu, first + k})
		         : add_record(s, (SartRef){r.fmu, first + k}, NULL))
			return 1;
	return 0;
}

/* An SSP system's output called name (len characters), or NULL. */
static const SimColumn *find_output(const Sim *s, const char *name, size_t len)
{
	for (int k = 0; k < s->noutputs; k++)
		if (strlen(s->outputs[k].name) == len && strncmp(s->outputs[k].name, name, len) == 0)
			return &s->outputs[k];
	return NULL;
}

/* Whether variable r is a String or Binary that can be recorded (not an array). */
static bool is_string(const Sim *s, SartRef r)
{
	const FmuVar *v = &s->fmus[r.fmu].info->vars[r.var];
	return is_text(v) && v->ndims == 0;
}

/* A String or Binary column, after the others. */
static int add_string_record(Sim *s, SartRef r)
{
	SartRef *v = realloc(s->string_records, ((size_t)s->nstring_records + 1) * sizeof *v);
	if (!v)
		return 1;
	s->string_records = v;
	s->string_records[s->nstring_records++] = r;
	return 0;
}

int sim_collect_records(Sim *s, const CliList *records)
{
	if (records->n == 0) {
		for (int f = 0; f < s->nfmus; f++)
			for (int i = 0; i < s->fmus[f].nown; i++) {
				SartRef r = {f, i};
				const FmuVar *v = &s->fmus[f].info->vars[i];
				/* every output, Strings and Binaries too (their columns after the
				 * others), and every clock: its ticks */
				if (v->causality != CAUS_OUTPUT &&
				    !(v->type == FT_CLOCK && v->causality == CAUS_INPUT))
					continue;
				if (add_elements(s, r))
					return 1;
				if (s->fmus[f].vars[i].type != SART_OTHER ? add_record(s, r, NULL)
				    : is_string(s, r) && add_string_record(s, r))
					return 1;
			}
		for (int k = 0; k < s->noutputs; k++)
			if (add_record(s, s->outputs[k].ref, &s->outputs[k]))
				return 1;
		return 0;
	}
	for (int k = 0; k < records->n; k++) {
		const char *p = records->items[k];
		while (*p) {
			size_t len = csv_list_item(p);
			SartRef r;
			const SimColumn *out = find_output(s, p, len);
			if (out) {
				if (add_record(s, out->ref, out))
					return 1;
				p += len + (p[len] == ',');
				continue;
			}
			int rc = sim_parse_ref(s, "--record", p, len, &r);
			if (rc)
				return rc;
			char why[96];
			int first, count;
			sim_array_span(&s->fmus[r.fmu], r.var, &first, &count);
			if (count) {
				if (add_elements(s, r))
					return 1;
			} else if (is_string(s, r)) {
				if (add_string_record(s, r))
					return 1;
			} else if (s->fmus[r.fmu].vars[r.var].type == SART_OTHER)
				return cli_usage_error("--record: %s is %s, which cannot be recorded yet",
				                       s->fmus[r.fmu].vars[r.var].name,
				                       sim_unsupported(&s->fmus[r.fmu].info->vars[r.var], why,
				                                       sizeof why));
			else if (add_record(s, r, NULL))
				return 1;
			p += len;
			if (*p == ',')
				p++;
		}
	}
	return 0;
}

/* A --set value of type ty (a the whole option, for messages).  Returns 0, or 2 after a
 * report. */
static int parse_start(const char *a, SartType ty, const char *val, double *x)
{
	switch (ty) {
	case SART_REAL:
		if (!csv_number(val, x))
			return cli_usage_error("--set %s: not a finite number", a);
		return 0;
	case SART_INTEGER: {
		char *end;
		errno = 0;
		long long l = strtoll(val, &end, 10);
		if (!*val || *end)
			return cli_usage_error("--set %s: not an Integer", a);
		if (errno || l < -2147483647LL - 1 || l > 2147483647LL)
			return cli_usage_error("--set %s: %s does not fit a 32-bit Integer, which sacc "
			                       "exchanges integers as", a, val);
		*x = (double)l;
		return 0;
	}
	case SART_BOOLEAN:
		if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
			*x = 1;
		else if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
			*x = 0;
		else
			return cli_usage_error("--set %s: a Boolean is true, false, 1 or 0", a);
		return 0;
	default:
		return cli_usage_error("--set %s: only Real, Integer, Boolean and String variables "
		                       "can be set yet", a);
	}
}

/* --set INST.ARRAY=[v1,v2,...]: every element, in row-major order.  Returns 0, 1 when out
 * of memory, or 2 after a report. */
static int set_array(Sim *s, const char *a, SartRef r, int first, int count, const char *val)
{
	size_t n = strlen(val);
	if (n < 2 || val[0] != '[' || val[n - 1] != ']')
		return cli_usage_error("--set %s: %s is an array of %d: give every element, "
		                       "[v1,v2,...], or one, %s[i]=v", a, s->fmus[r.fmu].vars[r.var].name,
		                       count, s->fmus[r.fmu].vars[r.var].name);
	SartStart *st = realloc(s->starts, ((size_t)s->nstarts + (size_t)count + 1) * sizeof *st);
	if (!st)
		return 1;
	s->starts = st;
	char *list = strndup(val + 1, n - 2);
	if (!list)
		return 1;
	int k = 0, rc = 0;
	for (char *p = list, *next; !rc; p = next + 1) {
		next = p + strcspn(p, ",");
		bool last = *next == '\0';
		*next = '\0';
		p += strspn(p, " ");
		for (char *e = p + strlen(p); e > p && e[-1] == ' '; e--)
			e[-1] = '\0';
		if (k == count) {
			k++;
			break;
		}
		SartRef er = {r.fmu, first + k};
		double x;
		rc = parse_start(a, s->fmus[r.fmu].vars[er.var].type, p, &x);
		if (!rc)
			s->starts[s->nstarts++] = (SartStart){er, x};
		k++;
		if (last)
			break;
	}
	free(list);
	if (!rc && k != count)
		rc = cli_usage_error("--set %s: %s has %d elements, not %s%d", a,
		                     s->fmus[r.fmu].vars[r.var].name, count,
		                     k > count ? "more than " : "", k > count ? count : k);
	return rc;
}

/* --set of a String (val as it is) or a Binary (val in hex digits, a the whole option for
 * messages).  Returns 0, 1 when out of memory, or 2 after a report. */
static int add_text_start(Sim *s, const char *a, SartRef r, const FmuVar *v, const char *val)
{
	if (v->type == FT_STRING) {
		s->string_starts[s->nstring_starts++] = (SartStringStart){r, val, strlen(val)};
		return 0;
	}
	unsigned char *bytes;
	size_t size;
	int rc = sim_hex_decode(val, &bytes, &size);
	if (rc < 0)
		return cli_usage_error("--set %s: a Binary is given as hex digits, two per byte "
		                       "(0a1b)", a);
	if (rc)
		return 1;
	char *copy = arena_alloc(s->c->arena, size + 1);
	memcpy(copy, bytes, size);
	free(bytes);
	s->string_starts[s->nstring_starts++] = (SartStringStart){r, copy, size};
	return 0;
}

int sim_collect_sets(Sim *s, const CliList *sets)
{
	/* after the SSP's own start values, if any: the options win */
	SartStart *st = realloc(s->starts, ((size_t)s->nstarts + (size_t)sets->n + 1) * sizeof *st);
	if (!st)
		return 1;
	s->starts = st;
	s->string_starts = calloc((size_t)sets->n + 1, sizeof *s->string_starts);
	if (!s->string_starts)
		return 1;
	for (int k = 0; k < sets->n; k++) {
		const char *a = sets->items[k];
		const char *eq = strchr(a, '=');
		if (!eq)
			return cli_usage_error("--set: '%s' is not INSTANCE.VARIABLE=VALUE", a);
		SartRef r;
		int rc = sim_parse_ref(s, "--set", a, (size_t)(eq - a), &r);
		if (rc)
			return rc;
		const FmuVar *v = &s->fmus[r.fmu].info->vars[r.var];
		const char *val = eq + 1;
		bool settable = v->causality == CAUS_INPUT || v->causality == CAUS_PARAMETER ||
		                (v->causality != CAUS_INDEPENDENT && v->variability != VAR_CONSTANT &&
		                 (v->initial == INIT_EXACT || v->initial == INIT_APPROX));
		if (v->causality == CAUS_STRUCTURAL_PARAMETER)
			return cli_usage_error("--set: %s cannot be set: a structural parameter, which "
			                       "sacc keeps at its start value", a);
		if (!settable)
			return cli_usage_error("--set: %s cannot be set (a constant, a computed variable "
			                       "or the independent variable)", a);
		if (is_text(v) && v->ndims == 0) {
			if ((rc = add_text_start(s, a, r, v, val)) != 0)
				return rc;
			continue;
		}
		int first, count;
		sim_array_span(&s->fmus[r.fmu], r.var, &first, &count);
		if (count && is_text(v))
			return cli_usage_error("--set %s: %s is an array of %d %ss: set its elements one "
			                       "by one, %s[i]=%s", a, v->name, count,
			                       fmu_type_name(v->type), v->name,
			                       v->type == FT_BINARY ? "HEX" : "TEXT");
		if (count) {
			if ((rc = set_array(s, a, r, first, count, val)) != 0)
				return rc;
			/* room for the options still to come */
			st = realloc(s->starts, ((size_t)s->nstarts + (size_t)sets->n + 1) * sizeof *st);
			if (!st)
				return 1;
			s->starts = st;
			continue;
		}
		double x;
		if ((rc = parse_start(a, sim_sart_type(v), val, &x)) != 0)
			return rc;
		s->starts[s->nstarts++] = (SartStart){r, x};
	}
	return 0;
}
