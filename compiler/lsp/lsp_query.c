/* lsp_query.c — what an editor asks of a checked document (see lsp.h): hover, definition,
 * completion, document symbols, rename.
 *
 * Every question starts from the node under the cursor in the tree of the document's
 * last check that parsed (LspDoc.check, or the last good one while the text being typed
 * does not parse), and from what the checker resolved on it: Node.decl and Node.sym for
 * names and port references, the Inner and SaInfo records for inner FMUs and
 * adaptations, the FmuInfo of an inner's model description. */
#include "lsp.h"

#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "parse.h"
#include "sa_grammar.h"
#include "sema.h"

/* ---- positions ----------------------------------------------------------------------- */

void lsp_put_range(StrBuf *sb, const char *text, size_t len, Loc loc)
{
	LspPos a = {0, 0}, b = {0, 0};
	if (loc.line > 0) {
		int col = loc.col > 0 ? loc.col : 1;
		a = lsp_pos_of(text, len, loc.line, col);
		b = lsp_pos_of(text, len, loc.line, col + (loc.len > 1 ? loc.len : 1));
		if (!len) { /* a file not at hand: bytes are taken as characters */
			a = (LspPos){loc.line - 1, col - 1};
			b = (LspPos){loc.line - 1, col - 1 + (loc.len > 1 ? loc.len : 1)};
		}
	}
	sb_printf(sb, "{\"start\":{\"line\":%d,\"character\":%d},\"end\":{\"line\":%d,"
		  "\"character\":%d}}", a.line, a.character, b.line, b.character);
}

/* The module of the compilation that file is, for its text. */
static const Module *module_at(const LspCheck *k, const char *file)
{
	for (const Module *m = k->c->modules; m && file; m = m->next)
		if (strcmp(m->path, file) == 0)
			return m;
	return NULL;
}

/* {"uri":...,"range":...} of a place anywhere in the compilation (or a file, line 0). */
void lsp_put_location(StrBuf *sb, const LspCheck *k, Loc loc)
{
	const Module *m = module_at(k, loc.file);
	char *uri = lsp_path_uri(loc.file ? loc.file : "");
	sb_puts(sb, "{\"uri\":");
	json_put_string(sb, uri ? uri : "");
	sb_puts(sb, ",\"range\":");
	lsp_put_range(sb, m ? m->text : "", m ? m->len : 0, loc);
	sb_putc(sb, '}');
	free(uri);
}

/* ---- the node under the cursor ------------------------------------------------------- */

typedef struct Hit {
	Node *n;         /* the narrowest user-written node whose place holds the cursor */
	Node *sa;        /* the adaptation around it, or NULL */
	Node *inner;     /* the ND_INNER around it (a port it declares), or NULL */
	Node *parent;
	int width;
} Hit;

static bool holds(const Node *n, const char *file, int line, int col, int *width)
{
	if (!n->loc.file || n->loc.line != line || strcmp(n->loc.file, file) != 0)
		return false;
	int w = n->loc.len > 1 ? n->loc.len : 1;
	if (n->name && (n->kind == ND_NAME || n->kind == ND_VARDECL || n->kind == ND_PORT ||
			n->kind == ND_INNER || n->kind == ND_ADAPTATION || n->kind == ND_FMU_DECL ||
			n->kind == ND_INNER_REF) && (int)strlen(n->name) > w)
		w = (int)strlen(n->name);
	*width = w;
	return col >= n->loc.col && col <= n->loc.col + w; /* the end too: after a word */
}

static void find_at(Node *n, Node *parent, const char *file, int line, int col, Node *sa,
		    Node *inner, Hit *h)
{
	Node *s = n->kind == ND_ADAPTATION ? n : sa;
	Node *in = n->kind == ND_INNER ? n : inner;
	int w;
	if (!n->origin && holds(n, file, line, col, &w) && (!h->n || w <= h->width))
		*h = (Hit){n, s, in, parent, w};
	for (int i = 0; i < AST_NCHILDREN; i++) {
		Node *c = ast_child(n, i);
		if (c && ast_children[i].is_list)
			for (; c; c = c->next)
				find_at(c, n, file, line, col, s, in, h);
		else if (c)
			find_at(c, n, file, line, col, s, in, h);
	}
}

/* The tree to answer from: the last check whose text parsed. */
static const LspCheck *usable(const LspDoc *d)
{
	if (d->check && d->check->m && d->check->m->root)
		return d->check;
	return d->good && d->good->m && d->good->m->root ? d->good : NULL;
}

static const char *doc_text(const LspCheck *k, size_t *len)
{
	*len = k->m->len;
	return k->m->text;
}

static Hit hit_at(const LspCheck *k, LspPos pos)
{
	Hit h = {0};
	size_t len;
	const char *text = doc_text(k, &len);
	size_t off = lsp_offset(text, len, pos);
	size_t ls = off;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	find_at(k->m->root, NULL, k->m->path, pos.line + 1, (int)(off - ls) + 1, NULL, NULL, &h);
	return h;
}

/* Whether the cursor is on the owner of an owner.port reference. */
static bool on_owner(const Node *ref, const LspCheck *k, LspPos pos)
{
	if (!ref->owner)
		return false;
	size_t len;
	const char *text = doc_text(k, &len);
	LspPos end = lsp_pos_of(text, len, ref->loc.line, ref->loc.col + (int)strlen(ref->owner));
	return pos.character < end.character;
}

static SaInfo *info_of(const Node *sa)
{
	return sa ? sa->info : NULL;
}

/* The inner port a reference or an inner's port declaration names. */
static const InnerPort *inner_port(const Hit *h, const Inner **in_out)
{
	const Inner *in = NULL;
	const char *name = h->n->name;
	if (h->n->kind == ND_PORT_REF && h->n->owner)
		in = info_of(h->sa) ? sema_inner(info_of(h->sa), h->n->owner) : NULL;
	else if (h->n->kind == ND_PORT && h->inner)
		in = h->inner->info;
	*in_out = in;
	return in && name ? sema_inner_port(in, name) : NULL;
}

/* ---- hover --------------------------------------------------------------------------- */

static void describe_fmu_var(StrBuf *md, const FmuInfo *f, const FmuVar *v)
{
	sb_printf(md, "\n\n%s, %s, %s", fmu_type_name_for(v->type, f->version),
		  fmu_causality_name(v->causality), fmu_variability_name(v->variability));
	if (v->unit)
		sb_printf(md, ", unit `%s`", v->unit);
	if (v->start)
		sb_printf(md, ", start `%s`", v->start);
	if (v->description)
		sb_printf(md, "\n\n%s", v->description);
}

static void describe_inner_port(StrBuf *md, const Inner *in, const InnerPort *ip)
{
	sb_printf(md, "**%s.%s** — %s of inner fmu `%s`", in->name, ip->name,
		  ip->is_input ? "input" : "output", in->name);
	if (in->fmu && ip->fmu_var >= 0 && ip->fmu_var < in->fmu->nvars) {
		const FmuVar *v = &in->fmu->vars[ip->fmu_var];
		if (strcmp(v->name, ip->name) != 0)
			sb_printf(md, " (variable `%s`)", v->name);
		describe_fmu_var(md, in->fmu, v);
	} else {
		sb_printf(md, "\n\n%s", ast_type_name(ip->type));
		if (ip->unit)
			sb_printf(md, ", unit `%s`", ip->unit);
		if (in->adaptation)
			sb_printf(md, "\n\na port of adaptation `%s`", in->adaptation->name);
	}
}

static void describe_inner(StrBuf *md, const Inner *in)
{
	sb_printf(md, "**%s** — inner fmu", in->name);
	const FmuInfo *f = in->fmu;
	if (f) {
		sb_printf(md, " `%s`, FMI %s", f->model_name ? f->model_name : "?",
			  f->fmi_version ? f->fmi_version : "?");
		sb_printf(md, "\n\n%s, %s%s", in->mealy ? "mealy" : "moore",
			  in->reactive ? "reactive" : "delayed", in->me ? ", run as Model Exchange" : "");
		if (f->description)
			sb_printf(md, "\n\n%s", f->description);
		if (f->generation_tool)
			sb_printf(md, "\n\ngenerated by %s", f->generation_tool);
		sb_printf(md, "\n\n`%s`, %d variables", f->path, f->nvars);
	} else if (in->adaptation) {
		sb_printf(md, " built by adaptation `%s`", in->adaptation->name);
	}
}

static const char *decl_words(const Node *d)
{
	if (d->kind == ND_PORT)
		return "port";
	switch (d->op) {
	case DECL_PARAM: return "param";
	case DECL_IN: return "in var";
	case DECL_OUT: return "out var";
	case DECL_CONTROL: return "control var";
	case DECL_RULES: return "rules var";
	default: return "var";
	}
}

static void describe_decl(StrBuf *md, const Node *sa, const Node *d)
{
	if (d->kind == ND_ADAPTATION) {
		sb_printf(md, "**%s** — semantic adaptation at `%s`", d->name, d->str ? d->str : "");
		return;
	}
	if (d->kind == ND_INNER || d->kind == ND_FMU_DECL) {
		if (d->info && d->kind == ND_INNER)
			describe_inner(md, d->info);
		else
			sb_printf(md, "**%s** — fmu at `%s`", d->name, d->str ? d->str : "");
		return;
	}
	const char *dir = "";
	if (d->kind == ND_PORT && sa) {
		for (const Node *p = sa->a_inports; p; p = p->next)
			dir = p == d ? "input " : dir;
		for (const Node *p = sa->a_outports; p; p = p->next)
			dir = p == d ? "output " : dir;
	}
	sb_printf(md, "**%s** — %s%s", d->name, dir, decl_words(d));
	if (d->type != TY_NONE)
		sb_printf(md, " %s", ast_type_name(d->type));
	if (d->unit && d->unit->str)
		sb_printf(md, " (%s)", d->unit->str);
	if (d->kind == ND_PORT && d->bind_dir != BIND_NONE && d->bind && d->bind->name)
		sb_printf(md, "\n\n%s %s%s%s", d->bind_dir == BIND_TO ? "feeds" : "fed by",
			  d->bind->owner ? d->bind->owner : "", d->bind->owner ? "." : "",
			  d->bind->name);
	if (d->converts)
		sb_printf(md, " (converted: × %s + %s)", FMT_REAL(d->scale), FMT_REAL(d->offset));
	if (sa)
		sb_printf(md, "\n\nin adaptation `%s`", sa->name);
}

static void describe_unit(StrBuf *md, const LspCheck *k, const char *unit)
{
	sb_printf(md, "**(%s)** — unit", unit);
	LspEnv *env = k->c->env_data;
	UnitsBase b;
	if (!env || !env->units || units_base(env->units, unit, &b) != UNITS_OK) {
		sb_puts(md, ", not known to UDUNITS-2");
		return;
	}
	static const char *names[] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
	int exps[] = {b.kg, b.m, b.s, b.A, b.K, b.mol, b.cd, b.rad};
	StrBuf base;
	sb_init(&base);
	for (int pass = 0; pass < 2; pass++) /* rad.s^-1: the positive powers first */
		for (int i = 0; i < 8; i++) {
			if (!exps[i] || (exps[i] > 0) != (pass == 0))
				continue;
			if (base.len)
				sb_putc(&base, '.');
			sb_puts(&base, names[i]);
			if (exps[i] != 1)
				sb_printf(&base, "^%d", exps[i]);
		}
	sb_printf(md, "\n\n1 %s = %s %s", unit, FMT_REAL(b.factor + b.offset),
		  base.len ? sb_str(&base) : "(dimensionless)");
	if (b.offset != 0)
		sb_printf(md, " (offset %s)", FMT_REAL(b.offset));
	sb_free(&base);
}

static const Module *imported(const LspCheck *k, const char *name)
{
	for (const Module *m = k->c->modules; m; m = m->next)
		if (m->root && m->root->name && strcmp(m->root->name, name) == 0 && m != k->m)
			return m;
	return NULL;
}

static void describe_module(StrBuf *md, const LspCheck *k, const char *name)
{
	sb_printf(md, "**module %s**", name);
	const Module *m = imported(k, name);
	if (!m) {
		sb_puts(md, "\n\nnot found");
		return;
	}
	sb_printf(md, "\n\n`%s`", m->path);
	for (const Node *e = m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION)
			sb_printf(md, "\n\n- adaptation `%s` at `%s`", e->name, e->str ? e->str : "");
		else if (e->kind == ND_FMU_DECL)
			sb_printf(md, "\n\n- fmu `%s` at `%s`", e->name, e->str ? e->str : "");
}

/* The hover text of the hit as Markdown; false when there is nothing to say. */
static bool hover_text(StrBuf *md, const LspCheck *k, const Hit *h, LspPos pos)
{
	Node *n = h->n;
	const Inner *in;
	const InnerPort *ip;
	SaInfo *info = info_of(h->sa);
	switch (n->kind) {
	case ND_PORT_REF:
		if (on_owner(n, k, pos)) {
			const Inner *o = info ? sema_inner(info, n->owner) : NULL;
			if (o)
				describe_inner(md, o);
			else if (h->sa && strcmp(h->sa->name, n->owner) == 0)
				describe_decl(md, NULL, h->sa);
			else
				return false;
			return true;
		}
		if ((ip = inner_port(h, &in))) {
			describe_inner_port(md, in, ip);
			return true;
		}
		if (n->decl) {
			describe_decl(md, h->sa, n->decl);
			return true;
		}
		return false;
	case ND_PORT:
		if (h->inner && (ip = inner_port(h, &in))) {
			describe_inner_port(md, in, ip);
			return true;
		}
		describe_decl(md, h->sa, n);
		return true;
	case ND_NAME:
		if (!n->decl)
			return false;
		describe_decl(md, h->sa, n->decl);
		return true;
	case ND_VARDECL:
	case ND_ADAPTATION:
	case ND_FMU_DECL:
		describe_decl(md, h->sa, n);
		return true;
	case ND_INNER:
		if (!n->info)
			return false;
		describe_inner(md, n->info);
		return true;
	case ND_INNER_REF:
		if (!info || !(in = sema_inner(info, n->name)))
			return false;
		describe_inner(md, in);
		return true;
	case ND_UNIT:
		describe_unit(md, k, n->str);
		return true;
	case ND_IMPORT:
		describe_module(md, k, n->name);
		return true;
	case ND_STRING:
		if (h->parent && h->parent->kind == ND_INNER && h->parent->init == n &&
		    h->parent->info && ((const Inner *)h->parent->info)->fmu) {
			sb_printf(md, "`%s`", ((const Inner *)h->parent->info)->fmu->path);
			return true;
		}
		return false;
	default:
		return false;
	}
}

void lsp_hover(StrBuf *sb, const LspDoc *d, LspPos pos)
{
	const LspCheck *k = usable(d);
	Hit h = k ? hit_at(k, pos) : (Hit){0};
	StrBuf md;
	sb_init(&md);
	if (!h.n || !hover_text(&md, k, &h, pos)) {
		sb_puts(sb, "null");
		sb_free(&md);
		return;
	}
	size_t len;
	const char *text = doc_text(k, &len);
	sb_puts(sb, "{\"contents\":{\"kind\":\"markdown\",\"value\":");
	json_put_string(sb, sb_str(&md));
	sb_puts(sb, "},\"range\":");
	lsp_put_range(sb, text, len, h.n->loc);
	sb_putc(sb, '}');
	sb_free(&md);
}

/* ---- definition ---------------------------------------------------------------------- */

/* Where an inner port is declared: the script's port declaration, else the inner's own. */
static const Node *inner_port_decl(const Inner *in, const InnerPort *ip)
{
	const Node *decl = in->decl;
	for (const Node *p = decl ? decl->list1 : NULL; p; p = p->next)
		if (p == ip->decl)
			return p;
	for (const Node *p = decl ? decl->list2 : NULL; p; p = p->next)
		if (p == ip->decl)
			return p;
	return decl;
}

static void put_file(StrBuf *sb, const char *path)
{
	sb_puts(sb, "{\"uri\":");
	char *uri = lsp_path_uri(path);
	json_put_string(sb, uri ? uri : "");
	free(uri);
	sb_puts(sb, ",\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,"
		"\"character\":0}}}");
}

void lsp_definition(StrBuf *sb, const LspDoc *d, LspPos pos)
{
	const LspCheck *k = usable(d);
	Hit h = k ? hit_at(k, pos) : (Hit){0};
	Node *n = h.n;
	const Node *to = NULL;
	const Inner *in = NULL;
	const InnerPort *ip;
	SaInfo *info = info_of(h.sa);
	if (!n) {
	} else if (n->kind == ND_PORT_REF && on_owner(n, k, pos)) {
		in = info ? sema_inner(info, n->owner) : NULL;
		to = in ? in->decl : h.sa && strcmp(h.sa->name, n->owner) == 0 ? h.sa : NULL;
	} else if ((n->kind == ND_PORT_REF || n->kind == ND_PORT) && (ip = inner_port(&h, &in))) {
		to = inner_port_decl(in, ip);
		if (to == n && in->fmu) { /* from the declaration to the model description */
			put_file(sb, in->fmu->path);
			return;
		}
	} else if (n->kind == ND_PORT_REF || n->kind == ND_NAME) {
		to = n->decl;
	} else if (n->kind == ND_INNER_REF) {
		in = info ? sema_inner(info, n->name) : NULL;
		to = in ? in->decl : NULL;
	} else if (n->kind == ND_IMPORT) {
		const Module *m = imported(k, n->name);
		if (m) {
			put_file(sb, m->path);
			return;
		}
	} else if (n->kind == ND_STRING && h.parent && h.parent->kind == ND_INNER &&
		   h.parent->init == n && h.parent->info) {
		in = h.parent->info;
		if (in->fmu) {
			put_file(sb, in->fmu->path);
			return;
		}
		to = in->adaptation;
	} else if (n->kind == ND_INNER && n->info && ((const Inner *)n->info)->fmu) {
		put_file(sb, ((const Inner *)n->info)->fmu->path);
		return;
	}
	if (!to || !to->loc.file) {
		sb_puts(sb, "null");
		return;
	}
	lsp_put_location(sb, k, to->loc);
}

/* ---- completion ---------------------------------------------------------------------- */

enum { CK_FUNCTION = 3, CK_FIELD = 5, CK_VARIABLE = 6, CK_CLASS = 7, CK_MODULE = 9,
       CK_PROPERTY = 10, CK_UNIT = 11, CK_KEYWORD = 14, CK_CONSTANT = 21 };

typedef struct Items {
	StrBuf *sb;
	NameIndex seen;  /* labels offered, so that each is offered once */
	int n;
} Items;

static void item(Items *it, const char *label, int kind, const char *detail, const char *doc)
{
	if (!label || !*label || name_index_find(&it->seen, label) >= 0)
		return;
	name_index_add(&it->seen, label, 0);
	if (it->n++)
		sb_putc(it->sb, ',');
	sb_puts(it->sb, "{\"label\":");
	json_put_string(it->sb, label);
	sb_printf(it->sb, ",\"kind\":%d", kind);
	if (detail) {
		sb_puts(it->sb, ",\"detail\":");
		json_put_string(it->sb, detail);
	}
	if (doc) {
		sb_puts(it->sb, ",\"documentation\":");
		json_put_string(it->sb, doc);
	}
	sb_putc(it->sb, '}');
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The adaptation the cursor's line lies in (the last one starting at or before it). */
static const Node *adaptation_at(const LspCheck *k, int line)
{
	const Node *found = NULL;
	for (const Node *e = k->m->root->list2; e; e = e->next)
		if (e->kind == ND_ADAPTATION && (!found || e->loc.line <= line))
			found = e;
	return found;
}

static void inner_port_items(Items *it, const Inner *in)
{
	for (int i = 0; i < in->nports; i++) {
		const InnerPort *ip = &in->ports[i];
		StrBuf detail;
		sb_init(&detail);
		sb_printf(&detail, "%s %s", ip->is_input ? "input" : "output",
			  ast_type_name(ip->type));
		if (ip->unit)
			sb_printf(&detail, " (%s)", ip->unit);
		const char *doc = in->fmu && ip->fmu_var >= 0 && ip->fmu_var < in->fmu->nvars
				  ? in->fmu->vars[ip->fmu_var].description : NULL;
		item(it, ip->name, ip->is_input ? CK_FIELD : CK_PROPERTY, sb_str(&detail), doc);
		sb_free(&detail);
	}
}

static void port_items(Items *it, const Node *ports, const char *dir)
{
	for (const Node *p = ports; p; p = p->next) {
		StrBuf detail;
		sb_init(&detail);
		sb_printf(&detail, "%s %s", dir, ast_type_name(p->type));
		if (p->unit && p->unit->str)
			sb_printf(&detail, " (%s)", p->unit->str);
		item(it, p->name, CK_FIELD, sb_str(&detail), NULL);
		sb_free(&detail);
	}
}

/* The ports of owner: an inner fmu of the adaptation (or of any), the adaptation itself, or
 * an fmu a scenario declares. */
static void owner_items(Items *it, const LspCheck *k, const Node *sa, const char *owner)
{
	for (const Node *e = k->m->root->list2; e; e = e->next) {
		if (e->kind == ND_FMU_DECL && strcmp(e->name, owner) == 0 && e->info) {
			const FmuInfo *f = e->info;
			for (int i = 0; i < f->nvars; i++)
				if (f->vars[i].causality == CAUS_INPUT || f->vars[i].causality == CAUS_OUTPUT)
					item(it, f->vars[i].name, CK_FIELD,
					     fmu_causality_name(f->vars[i].causality), f->vars[i].description);
		}
		if (e->kind != ND_ADAPTATION || (e != sa && sa))
			continue;
		if (strcmp(e->name, owner) == 0) {
			port_items(it, e->a_inports, "input");
			port_items(it, e->a_outports, "output");
		}
		const Inner *in = e->info ? sema_inner(e->info, owner) : NULL;
		if (in)
			inner_port_items(it, in);
	}
}

static const char *const common_units[] = {
	"m", "cm", "mm", "km", "s", "ms", "min", "h", "kg", "g", "N", "N.m", "rad", "deg",
	"rad/s", "m/s", "m/s2", "A", "V", "W", "J", "Pa", "bar", "K", "degC", "Hz", "1", NULL,
};

/* Calls fn on n and every node below it. */
static void walk(const Node *n, void (*fn)(const Node *, void *), void *user)
{
	fn(n, user);
	for (int i = 0; i < AST_NCHILDREN; i++) {
		const Node *c = ast_child(n, i);
		if (c && ast_children[i].is_list)
			for (; c; c = c->next)
				walk(c, fn, user);
		else if (c)
			walk(c, fn, user);
	}
}

static void unit_of(const Node *n, void *user)
{
	if (n->kind == ND_UNIT && n->str)
		item(user, n->str, CK_UNIT, "unit in this file", NULL);
}

static void unit_items(Items *it, const LspCheck *k, const Node *sa)
{
	walk(k->m->root, unit_of, it);
	const SaInfo *info = sa ? sa->info : NULL;
	for (int i = 0; info && i < info->ninners; i++) {
		const FmuInfo *f = info->inners[i]->fmu;
		for (int u = 0; f && u < f->nunits; u++)
			item(it, f->units[u].name, CK_UNIT, "unit of an inner fmu", NULL);
	}
	for (int i = 0; common_units[i]; i++)
		item(it, common_units[i], CK_UNIT, "unit", NULL);
}

static void name_items(Items *it, const Node *list, int kind, const char *detail)
{
	for (const Node *d = list; d; d = d->next)
		if (!d->origin)
			item(it, d->name, kind, detail, NULL);
}

static void general_items(Items *it, const LspCheck *k, const Node *sa)
{
	if (sa) {
		item(it, sa->name, CK_CLASS, "this adaptation", NULL);
		name_items(it, sa->a_inners, CK_MODULE, "inner fmu");
		port_items(it, sa->a_inports, "input");
		port_items(it, sa->a_outports, "output");
		name_items(it, sa->a_params, CK_CONSTANT, "param");
		name_items(it, sa->a_ctrl_vars, CK_VARIABLE, "control var");
		name_items(it, sa->a_in_vars, CK_VARIABLE, "in var");
		name_items(it, sa->a_out_vars, CK_VARIABLE, "out var");
	}
	for (const Node *e = k->m->root->list2; e; e = e->next)
		if (e->kind == ND_FMU_DECL || e->kind == ND_ADAPTATION)
			item(it, e->name, e->kind == ND_FMU_DECL ? CK_MODULE : CK_CLASS,
			     e->kind == ND_FMU_DECL ? "fmu" : "adaptation", NULL);
	for (int code = TK_MODULE; code <= TK_TIMEDERIVATIVE; code++) {
		const char *q = lex_token_name(code);
		size_t n = strlen(q);
		if (n < 3 || q[0] != '\'')
			continue;
		char word[64];
		if (n - 2 >= sizeof word)
			continue;
		memcpy(word, q + 1, n - 2);
		word[n - 2] = '\0';
		item(it, word, CK_KEYWORD, "keyword", NULL);
	}
}

/* Whether the cursor at off is in a unit's parentheses: an open '(' on its line, right
 * after a port's name (an identifier or a ']' that is no function's or keyword's). */
static bool in_unit(const char *text, size_t off)
{
	size_t i = off;
	while (i > 0 && text[i - 1] != '\n' && text[i - 1] != '(' && text[i - 1] != ')' &&
	       (ident_char(text[i - 1]) || strchr("./^- ", text[i - 1])))
		i--;
	if (i == 0 || text[i - 1] != '(')
		return false;
	size_t j = i - 1;
	while (j > 0 && (text[j - 1] == ' ' || text[j - 1] == '\t'))
		j--;
	if (j == 0 || (!ident_char(text[j - 1]) && text[j - 1] != ']' && text[j - 1] != '"'))
		return false;
	size_t w = j;
	while (w > 0 && ident_char(text[w - 1]))
		w--;
	char word[32] = "";
	if (j - w < sizeof word) {
		memcpy(word, text + w, j - w);
		word[j - w] = '\0';
	}
	static const char *const calls[] = {"floor", "ceil", "round", "abs", "max", "min",
		"is_close", "is_set", "do_step", "save_state", "rollback", "discard",
		"get_next_time_step", "elapsed", "last_execution_time", "map", NULL};
	for (int k = 0; calls[k]; k++)
		if (strcmp(word, calls[k]) == 0)
			return false;
	return !lex_is_keyword(word);
}

void lsp_completion(StrBuf *sb, const LspDoc *d, LspPos pos)
{
	const LspCheck *k = usable(d);
	size_t off = lsp_offset(d->text, d->len, pos);
	size_t start = off;
	while (start > 0 && ident_char(d->text[start - 1]))
		start--;
	Items it = {sb, {0}, 0};
	sb_puts(sb, "{\"isIncomplete\":false,\"items\":[");
	const Node *sa = k ? adaptation_at(k, pos.line + 1) : NULL;
	if (start > 0 && d->text[start - 1] == '.' && !in_unit(d->text, off)) {
		size_t oe = start - 1, os = oe;
		while (os > 0 && ident_char(d->text[os - 1]))
			os--;
		char owner[256];
		if (k && oe > os && oe - os < sizeof owner) {
			memcpy(owner, d->text + os, oe - os);
			owner[oe - os] = '\0';
			owner_items(&it, k, sa, owner);
		}
	} else if (in_unit(d->text, off)) {
		if (k)
			unit_items(&it, k, sa);
		else
			for (int i = 0; common_units[i]; i++)
				item(&it, common_units[i], CK_UNIT, "unit", NULL);
	} else if (k) {
		general_items(&it, k, sa);
	}
	sb_puts(sb, "]}");
	name_index_free(&it.seen);
}

/* ---- document symbols ---------------------------------------------------------------- */

enum { SK_MODULE = 2, SK_CLASS = 5, SK_PROPERTY = 7, SK_FIELD = 8, SK_VARIABLE = 13,
       SK_CONSTANT = 14, SK_OBJECT = 19, SK_EVENT = 24 };

typedef struct Symbols {
	StrBuf *sb;
	const char *text;
	size_t len;
} Symbols;

/* Opens a DocumentSymbol; its children follow, then close_symbol. */
static void open_symbol(Symbols *s, bool *first, const Node *n, int kind, const char *detail)
{
	if (!*first)
		sb_putc(s->sb, ',');
	*first = false;
	sb_puts(s->sb, "{\"name\":");
	json_put_string(s->sb, n->name);
	if (detail) {
		sb_puts(s->sb, ",\"detail\":");
		json_put_string(s->sb, detail);
	}
	sb_printf(s->sb, ",\"kind\":%d,\"range\":", kind);
	lsp_put_range(s->sb, s->text, s->len, n->loc);
	sb_puts(s->sb, ",\"selectionRange\":");
	lsp_put_range(s->sb, s->text, s->len, n->loc);
	sb_puts(s->sb, ",\"children\":[");
}

static void close_symbol(Symbols *s)
{
	sb_puts(s->sb, "]}");
}

static void leaf_symbols(Symbols *s, bool *first, const Node *list, int kind, const char *what)
{
	for (const Node *n = list; n; n = n->next) {
		if (n->origin || !n->name)
			continue;
		const char *type = ast_type_name(n->type);
		StrBuf detail;
		sb_init(&detail);
		sb_printf(&detail, "%s%s%s", what, *type ? " " : "", type);
		open_symbol(s, first, n, kind, sb_str(&detail));
		close_symbol(s);
		sb_free(&detail);
	}
}

void lsp_document_symbols(StrBuf *sb, const LspDoc *d)
{
	const LspCheck *k = usable(d);
	if (!k) {
		sb_puts(sb, "[]");
		return;
	}
	Symbols s = {sb, k->m->text, k->m->len};
	bool first = true;
	sb_putc(sb, '[');
	for (const Node *e = k->m->root->list2; e; e = e->next) {
		if (e->kind == ND_FMU_DECL) {
			open_symbol(&s, &first, e, SK_OBJECT, e->str);
			close_symbol(&s);
			continue;
		}
		if (e->kind != ND_ADAPTATION)
			continue;
		open_symbol(&s, &first, e, SK_CLASS, "semantic adaptation");
		bool inner_first = true;
		for (const Node *in = e->a_inners; in; in = in->next) {
			open_symbol(&s, &inner_first, in, SK_MODULE, "inner fmu");
			bool port_first = true;
			leaf_symbols(&s, &port_first, in->list1, SK_FIELD, "input");
			leaf_symbols(&s, &port_first, in->list2, SK_FIELD, "output");
			close_symbol(&s);
		}
		leaf_symbols(&s, &inner_first, e->a_inports, SK_PROPERTY, "input port");
		leaf_symbols(&s, &inner_first, e->a_outports, SK_PROPERTY, "output port");
		leaf_symbols(&s, &inner_first, e->a_params, SK_CONSTANT, "param");
		leaf_symbols(&s, &inner_first, e->a_ctrl_vars, SK_VARIABLE, "control var");
		leaf_symbols(&s, &inner_first, e->a_in_vars, SK_VARIABLE, "in var");
		leaf_symbols(&s, &inner_first, e->a_out_vars, SK_VARIABLE, "out var");
		close_symbol(&s);
	}
	sb_putc(sb, ']');
}

/* ---- rename -------------------------------------------------------------------------- */

typedef struct Rename {
	const Node *target;  /* the declaration renamed */
	const char *file;
	Loc *edits;
	int n, cap;
} Rename;

static void add_edit(Rename *r, Loc at)
{
	for (int i = 0; i < r->n; i++)
		if (r->edits[i].line == at.line && r->edits[i].col == at.col)
			return; /* a node shared by two fields */
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 16;
		Loc *v = realloc(r->edits, (size_t)cap * sizeof *v);
		if (!v)
			return;
		r->edits = v;
		r->cap = cap;
	}
	r->edits[r->n++] = at;
}

/* Each reference to the target, and the target itself, gives the place of its name. */
static void rename_at(const Node *n, void *user)
{
	Rename *r = user;
	if (n->origin || !n->loc.file || strcmp(n->loc.file, r->file) != 0)
		return;
	const char *name = r->target->name;
	Loc at = n->loc;
	at.len = (int)strlen(name);
	if (n == r->target) {
		add_edit(r, at);
	} else if (n->decl == r->target && n->kind == ND_NAME) {
		add_edit(r, at);
	} else if (n->decl == r->target && n->kind == ND_PORT_REF && n->name &&
		   strcmp(n->name, name) == 0) {
		if (n->owner)
			at.col += (int)strlen(n->owner) + 1;
		add_edit(r, at);
	}
}

bool lsp_rename(StrBuf *sb, const LspDoc *d, LspPos pos, const char *new_name,
		const char **why)
{
	const LspCheck *k = d->check && d->check->m && d->check->m->root ? d->check : NULL;
	if (!k) {
		*why = "the document does not parse; fix it before renaming";
		return false;
	}
	if (!lex_is_identifier(new_name) || lex_is_keyword(new_name)) {
		*why = "the new name is no identifier (or is a reserved word)";
		return false;
	}
	Hit h = hit_at(k, pos);
	const Node *target = NULL;
	const Inner *in;
	if (!h.n) {
	} else if (h.n->kind == ND_PORT_REF && on_owner(h.n, k, pos)) {
		*why = "only a port or a variable can be renamed";
		return false;
	} else if ((h.n->kind == ND_PORT || h.n->kind == ND_PORT_REF) && inner_port(&h, &in)) {
		*why = "an inner fmu's port is named by its model description";
		return false;
	} else if (h.n->kind == ND_PORT || h.n->kind == ND_VARDECL) {
		target = h.n;
	} else if (h.n->kind == ND_NAME || h.n->kind == ND_PORT_REF) {
		target = h.n->decl;
	}
	if (!target || (target->kind != ND_PORT && target->kind != ND_VARDECL) || !target->name ||
	    strchr(target->name, '[')) {
		*why = "there is no port or variable of this document here";
		return false;
	}
	Rename r = {target, k->m->path, NULL, 0, 0};
	walk(k->m->root, rename_at, &r);
	sb_puts(sb, "{\"changes\":{");
	json_put_string(sb, d->uri);
	sb_puts(sb, ":[");
	for (int i = 0; i < r.n; i++) {
		if (i)
			sb_putc(sb, ',');
		sb_puts(sb, "{\"range\":");
		lsp_put_range(sb, k->m->text, k->m->len, r.edits[i]);
		sb_puts(sb, ",\"newText\":");
		json_put_string(sb, new_name);
		sb_putc(sb, '}');
	}
	sb_puts(sb, "]}}");
	free(r.edits);
	return true;
}
