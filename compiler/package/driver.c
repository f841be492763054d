/* driver.c — loading modules and running the stages over them (see driver.h). */
#include "driver.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "explicit.h"
#include "lower.h"
#include "parse.h"
#include "ssp.h"
#include "ssp_adapt.h"
#include "util.h"

#define MAX_SOURCE (16u << 20)

Compilation *drv_new(FILE *diag_out)
{
	Compilation *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->arena = arena_new();
	c->diag = diag_new(diag_out);
	c->env = &drv_check_env;
	return c;
}

void drv_free(Compilation *c)
{
	if (!c)
		return;
	for (Module *m = c->modules, *next; m; m = next) {
		next = m->next;
		free(m->text);
		free(m->imports);
		free(m);
	}
	for (int i = 0; i < c->nfmus; i++)
		fmu_free(c->fmus[i]);
	free(c->fmus);
	for (int i = 0; i < c->nssps; i++)
		ssp_free(c->ssps[i]);
	free(c->ssps);
	free(c->include_dirs);
	free(c->fmu_dirs);
	units_close(c->units);
	diag_free(c->diag);
	arena_free(c->arena);
	free(c);
}

static void push_dir(const char ***dirs, int *n, const char *dir)
{
	const char **d = realloc(*dirs, (size_t)(*n + 1) * sizeof *d);
	if (!d)
		return;
	d[(*n)++] = dir;
	*dirs = d;
}

void drv_keep_ssp(Compilation *c, struct SspModel *m)
{
	struct SspModel **v = realloc(c->ssps, (size_t)(c->nssps + 1) * sizeof *v);
	if (!v) {
		ssp_free(m);
		return;
	}
	v[c->nssps++] = m;
	c->ssps = v;
}

void drv_add_include_dir(Compilation *c, const char *dir) { push_dir(&c->include_dirs, &c->ninclude, dir); }
void drv_add_fmu_dir(Compilation *c, const char *dir) { push_dir(&c->fmu_dirs, &c->nfmu_dirs, dir); }

UnitSystem *drv_units(Compilation *c)
{
	if (!c->units && !c->units_error) {
		c->units = units_open(&c->units_error);
		if (!c->units) {
			if (!c->units_error)
				c->units_error = "unknown reason";
			diag_error(c->diag, (Loc){0}, "cannot load the UDUNITS-2 unit database: %s",
				   c->units_error);
		}
	}
	return c->units;
}

FmuInfo *drv_read_fmu(DiagSink *d, const char *path, Loc where)
{
	int before = diag_errors(d);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		diag_error(d, where, "'%s' is a directory, not an FMU (an FMU is one zip "
		           "archive, an .fmu file)", path);
		diag_note(d, where, "the fmu is named here");
		return NULL;
	}
	FmuInfo *f = fmu_open(path, d);
	if (!f) {
		if (diag_errors(d) == before)
			diag_error(d, where, "cannot read fmu '%s'", path);
		diag_note(d, where, "the fmu is named here");
	}
	return f;
}

FmuInfo *drv_open_fmu(Compilation *c, const char *path, Loc where)
{
	for (int i = 0; i < c->nfmus; i++)
		if (strcmp(c->fmus[i]->path, path) == 0)
			return c->fmus[i];
	FmuInfo *f = drv_read_fmu(c->diag, path, where);
	if (!f)
		return NULL;
	if (c->nfmus == c->capfmus) {
		int cap = c->capfmus ? 2 * c->capfmus : 8;
		FmuInfo **v = realloc(c->fmus, (size_t)cap * sizeof *v);
		if (!v) {
			fmu_free(f);
			return NULL;
		}
		c->fmus = v;
		c->capfmus = cap;
	}
	c->fmus[c->nfmus++] = f;
	return f;
}

/* The module already read from path: the same spelling, or another spelling of the same
 * file ("a.sa" and "./a.sa"), so that a file is never loaded twice. */
static Module *find_loaded(Compilation *c, const char *path)
{
	for (Module *m = c->modules; m; m = m->next)
		if (drv_same_file(m->path, path))
			return m;
	return NULL;
}

bool drv_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return strcmp(a, b) == 0 || (stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	                             sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

static void resolve_imports(Compilation *c, Module *m);

static Module *add_module(Compilation *c, const char *path, char *text, size_t len)
{
	Module *m = calloc(1, sizeof *m);
	if (!m) {
		free(text);
		return NULL;
	}
	m->path = arena_strdup(c->arena, path);
	m->dir = path_dir(c->arena, m->path);
	m->text = text;
	m->len = len;
	m->next = c->modules;
	c->modules = m;
	diag_add_source(c->diag, m->path, m->text, m->len);
	m->root = parse_source(c->arena, c->diag, m->path, m->text, m->len);
	return m;
}

const char *drv_find_fmu_file(Compilation *c, const char *script_dir, const char *path)
{
	if (path[0] == '/')
		return access(path, R_OK) == 0 ? path : NULL;
	const char *p = arena_printf(c->arena, "%s/%s", script_dir, path);
	if (access(p, R_OK) == 0)
		return p;
	for (int i = 0; i < c->nfmu_dirs; i++) {
		p = arena_printf(c->arena, "%s/%s", c->fmu_dirs[i], path);
		if (access(p, R_OK) == 0)
			return p;
		p = arena_printf(c->arena, "%s/%s", c->fmu_dirs[i], path_base(path));
		if (access(p, R_OK) == 0)
			return p;
	}
	return NULL;
}

const char *drv_fmu_dirs_searched(Compilation *c, const char *script_dir, const char *path)
{
	if (path[0] == '/')
		return "looked only at that path, as it is absolute";
	StrBuf sb;
	sb_init(&sb);
	sb_puts(&sb, "looked in ");
	sb_dirs_searched(&sb, script_dir, "the script's directory", "-L", c->fmu_dirs,
			 c->nfmu_dirs);
	const char *s = arena_strdup(c->arena, sb_str(&sb));
	sb_free(&sb);
	return s;
}

Module *drv_load_text(Compilation *c, const char *name, const char *text, size_t len)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return NULL;
	if (len)
		memcpy(copy, text, len); /* text may be NULL when len is 0 */
	copy[len] = '\0';
	Module *m = add_module(c, name, copy, len);
	if (m)
		resolve_imports(c, m);
	return m;
}

static Module *load_quiet(Compilation *c, const char *path, bool report)
{
	Module *m = find_loaded(c, path);
	if (m)
		return m;
	size_t len;
	char *text = c->env->module_text ? c->env->module_text(c, path, &len) : NULL;
	if (text)
		return add_module(c, path, text, len);
	struct stat st;
	bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	text = dir ? NULL : read_file(path, MAX_SOURCE, &len);
	if (!text) {
		if (report)
			diag_error(c->diag, (Loc){path, 0, 0, 0}, "cannot read: %s",
				   dir ? "a directory, not a file" : errno == EFBIG ? "file too large"
				       : strerror(errno));
		return NULL;
	}
	return add_module(c, path, text, len);
}

Module *drv_load(Compilation *c, const char *path)
{
	if (ssp_is_path(path))
		return ssp_adaptation_module(c, path);
	Module *m = load_quiet(c, path, true);
	if (m && m->state == 0)
		resolve_imports(c, m);
	return m;
}

Module *drv_parse(Compilation *c, const char *path)
{
	if (ssp_is_path(path))
		return ssp_adaptation_module(c, path);
	return load_quiet(c, path, true);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file that declares `module name`: looked for as name.sa first, then among every
 * .sa file of each directory (the importing file's, then -I ones), in sorted order. */
static Module *find_module(Compilation *c, const char *name, const char *from_dir)
{
	int ndirs = c->ninclude + 1;
	for (int d = 0; d < ndirs; d++) {
		const char *dir = d == 0 ? from_dir : c->include_dirs[d - 1];
		const char *guess = arena_printf(c->arena, "%s/%s.sa", dir, name);
		FILE *f = fopen(guess, "rb");
		if (f) {
			fclose(f);
			Module *m = load_quiet(c, guess, false);
			if (m && m->root && m->root->name && strcmp(m->root->name, name) == 0)
				return m;
		}
		DIR *dp = opendir(dir);
		if (!dp)
			continue;
		char **names = NULL;
		int n = 0;
		struct dirent *de;
		while ((de = readdir(dp))) {
			size_t l = strlen(de->d_name);
			if (l > 3 && strcmp(de->d_name + l - 3, ".sa") == 0) {
				char **v = realloc(names, (size_t)(n + 1) * sizeof *v);
				if (!v || !(v[n] = strdup(de->d_name))) {
					names = v ? v : names;
					break;
				}
				names = v;
				n++;
			}
		}
		closedir(dp);
		Module *found = NULL;
		if (n > 1)
			qsort(names, (size_t)n, sizeof *names, compare_names);
		for (int i = 0; i < n && !found; i++) {
			const char *path = arena_printf(c->arena, "%s/%s", dir, names[i]);
			/* Only read files that mention the module, so a broken neighbour does not
			 * report its errors here. */
			size_t len;
			char *text = read_file(path, MAX_SOURCE, &len);
			bool mentions = text && strstr(text, name) != NULL;
			free(text);
			if (!mentions)
				continue;
			Module *m = load_quiet(c, path, false);
			if (m && m->root && m->root->name && strcmp(m->root->name, name) == 0)
				found = m;
		}
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		if (found)
			return found;
	}
	return NULL;
}

static void resolve_imports(Compilation *c, Module *m)
{
	if (!m->root || m->state != 0)
		return;
	m->state = 1;
	int n = ast_count(m->root->list1);
	m->imports = calloc((size_t)n + 1, sizeof *m->imports);
	for (Node *imp = m->root->list1; imp; imp = imp->next) {
		Module *dep = find_module(c, imp->name, m->dir);
		if (!dep) {
			diag_error(c->diag, imp->loc, "cannot find module '%s'", imp->name);
			StrBuf where;
			sb_init(&where);
			sb_dirs_searched(&where, m->dir, "the importing file's directory", "-I",
					 c->include_dirs, c->ninclude);
			diag_note(c->diag, imp->loc, "looked for a file declaring 'module %s' in %s",
				  imp->name, sb_str(&where));
			sb_free(&where);
			continue;
		}
		if (dep == m || dep->state == 1) {
			diag_error(c->diag, imp->loc, "circular import of module '%s'", imp->name);
			continue;
		}
		resolve_imports(c, dep);
		if (m->imports)
			m->imports[m->nimports++] = dep;
	}
	m->state = 2;
}

int drv_check(Compilation *c, Module *m)
{
	int before = diag_errors(c->diag);
	if (!m->root)
		return diag_errors(c->diag) - before + 1;
	chk_module(c, m);
	return diag_errors(c->diag) - before;
}

int drv_explicit(Compilation *c, Module *m, const char *after)
{
	int errors = drv_check(c, m);
	if (errors)
		return errors;
	for (Node *e = m->root->list2; e; e = e->next) {
		if (e->kind != ND_ADAPTATION)
			continue;
		SaInfo *info = e->info;
		if (!info || !info->checked_ok)
			return 1;
		/* A dependency may have been reduced completely already; --after only applies
		 * to adaptations reduced here. */
		errors += drv_reduce(c, info, after);
	}
	return errors;
}

static int env_reduce(Compilation *c, SaInfo *info)
{
	return drv_reduce(c, info, NULL);
}

const CheckEnv drv_check_env = {
	.find_fmu_file = drv_find_fmu_file,
	.fmu_dirs_searched = drv_fmu_dirs_searched,
	.open_fmu = drv_open_fmu,
	.units = drv_units,
	.reduce = env_reduce,
	.system_module = ssp_adaptation_module,
};

int drv_reduce(Compilation *c, SaInfo *info, const char *after)
{
	if (info->explicit_done)
		return info->explicit_errors;
	int lowered = lw_lower(c, info, after && lw_is_rule(after) ? after : NULL);
	if (lowered || (after && lw_is_rule(after))) {
		/* Stopped in the lowering stage: no explicit-form rule runs. */
		info->explicit_done = true;
		info->explicit_errors = lowered;
		return lowered;
	}
	return rw_explicit(c, info, after);
}
