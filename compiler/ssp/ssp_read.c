/* ssp_read.c — an SSP's documents into an SspModel (ssp.h): the archive unpacked with
 * zip_extract's checks, SystemStructure.ssd read (ssp_xml.c), every component's FMU
 * opened, every parameter set (.ssv, inline) and mapping (.ssm, inline) read, and each
 * element checked where it stands: kinds and types against the FMU's variables, connection
 * ends against the elements and connectors of their system, transformations against the
 * types they transform.  What needs the whole system (chains through nested systems,
 * units along them, parameter names) is ssp_flat.c's. */
#include "ssp_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "package.h"
#include "util.h"

/* ---- small helpers ------------------------------------------------------------------------- */

bool ssp_is_path(const char *path)
{
	return chk_is_system_path(path);
}

const SspUnit *ssp_find_unit(const SspModel *m, const char *name)
{
	for (int i = 0; name && i < m->nunits; i++)
		if (strcmp(m->units[i].name, name) == 0)
			return &m->units[i];
	return NULL;
}

void rd_error(Rd *r, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(r->c->diag, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
	r->errors++;
}

const char *rd_str(Rd *r, const char *s)
{
	return s ? arena_strdup(r->c->arena, s) : NULL;
}

/* A double attribute (whole text a finite number), def when absent; an error otherwise. */
double rd_double(Rd *r, const SspXml *x, const xmlNode *n, const char *attr, double def)
{
	const char *v = sx_attr(n, attr);
	if (!v)
		return def;
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	while (*end == ' ')
		end++;
	if (!*v || *end || errno == ERANGE || !isfinite(d)) {
		rd_error(r, sx_attr_loc(x, n, attr), "%s=\"%s\" is not a number", attr, v);
		return def;
	}
	return d;
}

static long long rd_int(Rd *r, const SspXml *x, const xmlNode *n, const char *attr,
                        long long def)
{
	const char *v = sx_attr(n, attr);
	if (!v)
		return def;
	char *end;
	errno = 0;
	long long k = strtoll(v, &end, 10);
	if (!*v || *end || errno == ERANGE) {
		rd_error(r, sx_attr_loc(x, n, attr), "%s=\"%s\" is not an integer", attr, v);
		return def;
	}
	return k;
}

/* xs:boolean: true, false, 1, 0.  -1 when it is none of them. */
int ssp_parse_bool(const char *v)
{
	if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
		return 1;
	if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
		return 0;
	return -1;
}

static bool rd_bool(Rd *r, const SspXml *x, const xmlNode *n, const char *attr, bool def)
{
	const char *v = sx_attr(n, attr);
	if (!v)
		return def;
	int b = ssp_parse_bool(v);
	if (b < 0) {
		rd_error(r, sx_attr_loc(x, n, attr), "%s=\"%s\" is not a boolean (true or false)",
		         attr, v);
		return def;
	}
	return b;
}

/* A required attribute, copied; an error at the element when absent. */
const char *rd_required(Rd *r, const SspXml *x, const xmlNode *n, const char *attr)
{
	const char *v = sx_attr(n, attr);
	if (!v) {
		rd_error(r, sx_loc(x, n), "<%s> has no %s attribute", (const char *)n->name, attr);
		return NULL;
	}
	return rd_str(r, v);
}

static int count_children(const xmlNode *n, const char *ns, const char *name)
{
	int k = 0;
	for (xmlNode *c = sx_first_elem(n); c; c = sx_next_elem(c))
		k += sx_is(c, ns, name);
	return k;
}

void *rd_array(Rd *r, int n, size_t size)
{
	return arena_alloc(r->c->arena, (size_t)(n > 0 ? n : 1) * size);
}

/* ---- types, units, enumerations, transformations ------------------------------------------- */

/* The SSP type an element name stands for (ssc:, ssv: share the names). */
SspType ssp_type_of(const char *name)
{
	static const struct {
		const char *name;
		SspType type;
	} types[] = {
		{"Real", SSP_T_REAL}, {"Float64", SSP_T_REAL}, {"Float32", SSP_T_REAL},
		{"Integer", SSP_T_INTEGER}, {"Int8", SSP_T_INTEGER}, {"UInt8", SSP_T_INTEGER},
		{"Int16", SSP_T_INTEGER}, {"UInt16", SSP_T_INTEGER}, {"Int32", SSP_T_INTEGER},
		{"UInt32", SSP_T_INTEGER}, {"Int64", SSP_T_INTEGER}, {"UInt64", SSP_T_INTEGER},
		{"Boolean", SSP_T_BOOLEAN}, {"String", SSP_T_STRING},
		{"Enumeration", SSP_T_ENUMERATION}, {"Binary", SSP_T_BINARY}, {"Clock", SSP_T_CLOCK},
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(types[i].name, name) == 0)
			return types[i].type;
	return SSP_T_NONE;
}

const char *ssp_type_word(SspType t)
{
	static const char *const words[] = {"untyped", "Real", "Integer", "Boolean", "String",
	                                    "Enumeration", "Binary", "Clock"};
	return words[t];
}

/* The type an FMU variable has, folded as SSP types are. */
SspType ssp_fmu_type(const FmuVar *v)
{
	switch (v->type) {
	case FT_REAL: case FT_FLOAT32:
		return SSP_T_REAL;
	case FT_BOOLEAN:
		return SSP_T_BOOLEAN;
	case FT_STRING:
		return SSP_T_STRING;
	case FT_ENUMERATION:
		return SSP_T_ENUMERATION;
	case FT_BINARY:
		return SSP_T_BINARY;
	case FT_CLOCK:
		return SSP_T_CLOCK;
	default:
		return SSP_T_INTEGER;
	}
}

/* ssc:Units (in an SSD or an SSV). */
void rd_units(Rd *r, const SspXml *x, const xmlNode *units, SspUnit **out, int *n)
{
	int cap = count_children(units, SSP_NS_SSC, "Unit");
	*out = rd_array(r, cap, sizeof **out);
	*n = 0;
	static const char *const exps[8] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
	for (xmlNode *u = sx_first_elem(units); u; u = sx_next_elem(u)) {
		if (!sx_is(u, SSP_NS_SSC, "Unit"))
			continue;
		SspUnit *su = &(*out)[(*n)++];
		su->name = rd_required(r, x, u, "name");
		su->loc = sx_loc(x, u);
		su->factor = 1;
		xmlNode *b = sx_child(u, SSP_NS_SSC, "BaseUnit");
		if (!b) {
			rd_error(r, su->loc, "unit '%s' has no <ssc:BaseUnit>", su->name ? su->name : "");
			continue;
		}
		for (int k = 0; k < 8; k++) {
			long long e = rd_int(r, x, b, exps[k], 0);
			if (e < INT_MIN || e > INT_MAX) {
				rd_error(r, sx_attr_loc(x, b, exps[k]), "%s=\"%lld\" is out of range for an "
				         "exponent", exps[k], e);
				e = 0;
			}
			su->exp[k] = (int)e;
		}
		su->factor = rd_double(r, x, b, "factor", 1);
		su->offset = rd_double(r, x, b, "offset", 0);
		if (su->factor == 0)
			rd_error(r, sx_attr_loc(x, b, "factor"), "a unit's factor cannot be 0");
		for (int k = 0; k + 1 < *n && su->name; k++)
			if ((*out)[k].name && strcmp((*out)[k].name, su->name) == 0) {
				rd_error(r, su->loc, "unit '%s' is defined twice", su->name);
				diag_note(r->c->diag, (*out)[k].loc, "first defined here");
			}
	}
}

static void read_enums(Rd *r, const SspXml *x, const xmlNode *enums)
{
	SspModel *m = r->m;
	int cap = count_children(enums, SSP_NS_SSC, "Enumeration");
	m->enums = rd_array(r, cap, sizeof *m->enums);
	for (xmlNode *e = sx_first_elem(enums); e; e = sx_next_elem(e)) {
		if (!sx_is(e, SSP_NS_SSC, "Enumeration"))
			continue;
		SspEnumeration *se = &m->enums[m->nenums++];
		se->name = rd_required(r, x, e, "name");
		se->loc = sx_loc(x, e);
		se->items = rd_array(r, count_children(e, SSP_NS_SSC, "Item"), sizeof *se->items);
		for (xmlNode *it = sx_first_elem(e); it; it = sx_next_elem(it))
			if (sx_is(it, SSP_NS_SSC, "Item")) {
				SspEnumItem *i = &se->items[se->nitems++];
				i->name = rd_required(r, x, it, "name");
				if (!sx_attr(it, "value"))
					rd_error(r, sx_loc(x, it), "<Item> has no value attribute");
				i->value = rd_int(r, x, it, "value", 0);
			}
	}
}

/* The transformation child of a Connection or MappingEntry, if any. */
void rd_transform(Rd *r, const SspXml *x, const xmlNode *parent, SspTransform *tr)
{
	static const struct {
		const char *name;
		SspTransformKind kind;
	} kinds[] = {
		{"LinearTransformation", SSP_TR_LINEAR},
		{"BooleanMappingTransformation", SSP_TR_BOOLEAN_MAP},
		{"IntegerMappingTransformation", SSP_TR_INTEGER_MAP},
		{"EnumerationMappingTransformation", SSP_TR_ENUM_MAP},
	};
	*tr = (SspTransform){SSP_TR_NONE, 1, 0, NULL, 0, sx_loc(x, parent)};
	for (xmlNode *n = sx_first_elem(parent); n; n = sx_next_elem(n)) {
		if (!n->ns || strcmp((const char *)n->ns->href, SSP_NS_SSC) != 0)
			continue;
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			if (strcmp((const char *)n->name, kinds[k].name) != 0)
				continue;
			if (tr->kind != SSP_TR_NONE) {
				rd_error(r, sx_loc(x, n), "a second transformation: one only is allowed");
				return;
			}
			tr->kind = kinds[k].kind;
			tr->loc = sx_loc(x, n);
			if (tr->kind == SSP_TR_LINEAR) {
				tr->factor = rd_double(r, x, n, "factor", 1);
				tr->offset = rd_double(r, x, n, "offset", 0);
				continue;
			}
			tr->map = rd_array(r, count_children(n, SSP_NS_SSC, "MapEntry"), sizeof *tr->map);
			for (xmlNode *e = sx_first_elem(n); e; e = sx_next_elem(e)) {
				if (!sx_is(e, SSP_NS_SSC, "MapEntry"))
					continue;
				SspMapEntry *me = &tr->map[tr->nmap++];
				me->loc = sx_loc(x, e);
				me->source = rd_required(r, x, e, "source");
				me->target = rd_required(r, x, e, "target");
				me->from = me->to = NAN;
				if (tr->kind == SSP_TR_BOOLEAN_MAP) {
					me->from = rd_bool(r, x, e, "source", false);
					me->to = rd_bool(r, x, e, "target", false);
				} else if (tr->kind == SSP_TR_INTEGER_MAP) {
					me->from = (double)rd_int(r, x, e, "source", 0);
					me->to = (double)rd_int(r, x, e, "target", 0);
				}
			}
			if (tr->nmap == 0)
				rd_error(r, tr->loc, "<%s> has no <ssc:MapEntry>", kinds[k].name);
		}
	}
}

/* ---- files --------------------------------------------------------------------------------- */

/* A relative URI of the SSD resolved to a file: no scheme, no absolute path, no '..'
 * (what the standard requires implementations to support, and nothing that could leave
 * the archive).  NULL after an error at where. */
const char *rd_resolve(Rd *r, const char *uri, Loc where, const char *what)
{
	if (!uri || !*uri) {
		rd_error(r, where, "the %s has an empty source", what);
		return NULL;
	}
	const char *p = uri;
	if (strncmp(p, "file:", 5) == 0 && p[5] != '/')
		p += 5;
	const char *colon = strchr(p, ':'), *slash = strchr(p, '/');
	bool scheme = colon && (!slash || colon < slash);
	bool up = strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 || strstr(p, "/../") ||
	          (strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0);
	if (scheme || p[0] == '/' || up || strchr(p, '\\')) {
		rd_error(r, where, "%s source \"%s\" is not a relative path inside the %s", what, uri,
		         r->m->tmpdir ? "archive" : "directory of the SSD");
		return NULL;
	}
	return arena_printf(r->c->arena, "%s/%s", r->m->dir, p);
}

/* What messages call a file of the system: "sys.ssp:resources/p.ssv" or the path. */
const char *rd_shown(Rd *r, const char *uri)
{
	if (r->m->tmpdir)
		return arena_printf(r->c->arena, "%s:%s", r->m->path, uri);
	return arena_printf(r->c->arena, "%s/%s", r->m->dir, uri);
}

/* Reads and parses file (shown as name) into x; the text lives in the arena.  On failure x
 * holds nothing to free. */
int rd_parse_file(Rd *r, SspXml *x, const char *file, const char *name, Loc where)
{
	size_t len;
	char *buf = read_file(file, SSP_XML_MAX_BYTES, &len);
	if (!buf) {
		rd_error(r, where, "cannot read %s: %s", name, errno == EFBIG
		         ? "larger than the limit for an SSP document" : strerror(errno));
		return 1;
	}
	char *text = arena_strndup(r->c->arena, buf, len);
	free(buf);
	if (sx_parse(x, name, text, len, r->c->diag)) {
		sx_free(x); /* what a refused parse still holds (its line table) */
		r->errors++;
		return 1;
	}
	return 0;
}

/* ---- the archive ----------------------------------------------------------------------------- */

static int unpack(Rd *r, const char *path)
{
	SspModel *m = r->m;
	const char *tmp = getenv("TMPDIR");
	char *templ = malloc(strlen(tmp && *tmp ? tmp : "/tmp") + 32);
	if (!templ)
		return 1;
	sprintf(templ, "%s/sacc-ssp-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		rd_error(r, (Loc){path, 0, 0, 0}, "cannot make a temporary directory: %s",
		         strerror(errno));
		free(templ);
		return 1;
	}
	m->tmpdir = templ;
	const char *dir = arena_printf(r->c->arena, "%s/ssp", templ);
	if (zip_extract(path, dir, NULL, r->c->diag)) {
		r->errors++;
		return 1;
	}
	m->dir = dir;
	return 0;
}

static int open_ssd(Rd *r, const char *path, SspXml *x)
{
	SspModel *m = r->m;
	struct stat st;
	if (stat(path, &st) != 0) {
		rd_error(r, (Loc){path, 0, 0, 0}, "cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	size_t n = strlen(path);
	const char *file;
	if (strcmp(path + n - 4, ".ssp") == 0) {
		if (unpack(r, path))
			return 1;
		file = arena_printf(r->c->arena, "%s/SystemStructure.ssd", m->dir);
		m->ssd_name = arena_printf(r->c->arena, "%s:SystemStructure.ssd", path);
		if (access(file, R_OK) != 0) {
			rd_error(r, (Loc){path, 0, 0, 0}, "the archive has no SystemStructure.ssd at its "
			         "root");
			return 1;
		}
	} else {
		const char *slash = strrchr(path, '/');
		m->dir = slash ? arena_strndup(r->c->arena, path, (size_t)(slash - path)) : ".";
		file = path;
		m->ssd_name = path;
	}
	return rd_parse_file(r, x, file, m->ssd_name, (Loc){path, 0, 0, 0});
}

static void read_version(Rd *r, const SspXml *x, const xmlNode *root)
{
	SspModel *m = r->m;
	m->version = rd_required(r, x, root, "version");
	m->name = rd_str(r, sx_attr(root, "name"));
	if (!m->version)
		return;
	if (strcmp(m->version, "1.0") == 0 || strncmp(m->version, "1.0.", 4) == 0)
		m->major = 1;
	else if (strncmp(m->version, "2.", 2) == 0)
		m->major = 2;
	else
		rd_error(r, sx_attr_loc(x, root, "version"), "SSP version \"%s\" is not supported "
		         "(1.0 and 2.0 are)", m->version);
}

static void read_experiment(Rd *r, const SspXml *x, const xmlNode *e)
{
	SspModel *m = r->m;
	m->start = rd_double(r, x, e, "startTime", NAN);
	m->stop = rd_double(r, x, e, "stopTime", NAN);
	if (!isnan(m->start) && !isnan(m->stop) && m->stop < m->start)
		rd_error(r, sx_loc(x, e), "the DefaultExperiment's stopTime is before its startTime");
}

SspModel *ssp_read(Compilation *c, const char *path)
{
	SspModel *m = arena_alloc(c->arena, sizeof *m);
	memset(m, 0, sizeof *m);
	m->c = c;
	m->path = arena_strdup(c->arena, path);
	m->start = m->stop = m->step = NAN;
	Rd r = {.c = c, .m = m};
	SspXml x;
	memset(&x, 0, sizeof x);
	if (open_ssd(&r, path, &x))
		goto fail;
	xmlNode *root = xmlDocGetRootElement(x.doc);
	if (!sx_is(root, SSP_NS_SSD, "SystemStructureDescription")) {
		rd_error(&r, sx_loc(&x, root), "the root element is <%s>, not "
		         "<ssd:SystemStructureDescription> (namespace %s)",
		         root ? (const char *)root->name : "", SSP_NS_SSD);
		goto fail;
	}
	read_version(&r, &x, root);
	xmlNode *n;
	if ((n = sx_child(root, SSP_NS_SSD, "Units")))
		rd_units(&r, &x, n, &m->units, &m->nunits);
	if ((n = sx_child(root, SSP_NS_SSD, "Enumerations")))
		read_enums(&r, &x, n);
	if ((n = sx_child(root, SSP_NS_SSD, "DefaultExperiment")))
		read_experiment(&r, &x, n);
	xmlNode *sys = sx_child(root, SSP_NS_SSD, "System");
	if (!sys) {
		rd_error(&r, sx_loc(&x, root), "the description has no <ssd:System>");
		goto fail;
	}
	m->root = arena_alloc(c->arena, sizeof *m->root);
	memset(m->root, 0, sizeof *m->root);
	rd_system(&r, &x, sys, m->root, NULL);
	if (!r.errors)
		rd_check_connections(&r, m->root);
	if (r.errors)
		goto fail;
	sx_free(&x);
	return m;
fail:
	sx_free(&x);
	ssp_free(m);
	return NULL;
}

void ssp_free(SspModel *m)
{
	if (!m)
		return;
	if (m->tmpdir && zip_rmtree(m->tmpdir) != 0 && errno != ENOENT)
		diag_warning(m->c->diag, (Loc){m->path, 0, 0, 0}, "cannot remove %s: %s", m->tmpdir,
		             strerror(errno));
	free(m->tmpdir);
	m->tmpdir = NULL;
	if (m->root)
		ssp_free_indexes(m->root);
}
