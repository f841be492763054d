/* lsp_check.c — a document checked for the language server (see lsp.h).
 *
 * Each check is a Compilation of its own over the buffer, freed when the next edit is
 * checked; what outlives it is the server's LspEnv, handed to the checker as the
 * providers of compilation.h: model descriptions kept by path while the file's mtime and
 * size stay the same (an edit re-reads no FMU), and the unit system opened once. */
#include "lsp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "driver.h"
#include "ssp_adapt.h"

void lsp_env_add_dir(char ***dirs, int *n, const char *dir)
{
	char **v = realloc(*dirs, (size_t)(*n + 1) * sizeof *v);
	if (!v)
		return;
	*dirs = v;
	if ((v[*n] = strdup(dir)))
		(*n)++;
}

void lsp_env_free(LspEnv *env)
{
	for (int i = 0; i < env->ninclude; i++)
		free(env->include_dirs[i]);
	for (int i = 0; i < env->nfmu_dirs; i++)
		free(env->fmu_dirs[i]);
	for (int i = 0; i < env->nfmus; i++) {
		free(env->fmus[i].path);
		fmu_free(env->fmus[i].fmu);
	}
	free(env->include_dirs);
	free(env->fmu_dirs);
	free(env->fmus);
	units_close(env->units);
	memset(env, 0, sizeof *env);
}

/* The model description at path, from the cache while the file is unchanged.  An entry
 * whose file changed is kept (not freed) but no longer found: another document's check may
 * still point into it, and is checked again before it is asked anything new. */
static FmuInfo *env_open_fmu(Compilation *c, const char *path, Loc where)
{
	LspEnv *env = c->env_data;
	struct stat st;
	bool known = stat(path, &st) == 0;
	for (int i = env->nfmus - 1; known && i >= 0; i--) {
		LspFmuEntry *e = &env->fmus[i];
		if (e->path && strcmp(e->path, path) == 0) {
			if (e->mtime == st.st_mtim.tv_sec && e->mtime_ns == st.st_mtim.tv_nsec &&
			    e->size == st.st_size)
				return e->fmu;
			break;
		}
	}
	for (int i = 0; i < env->nfmus; i++)
		if (env->fmus[i].path && strcmp(env->fmus[i].path, path) == 0) {
			free(env->fmus[i].path);
			env->fmus[i].path = NULL; /* retired */
		}
	FmuInfo *f = drv_read_fmu(c->diag, path, where);
	env->fmu_reads++;
	if (!f)
		return NULL;
	if (!known) /* read, yet not statted: kept under a time no file has, read again next */
		memset(&st, 0, sizeof st);
	if (env->nfmus == env->capfmus) {
		int cap = env->capfmus ? 2 * env->capfmus : 8;
		LspFmuEntry *v = realloc(env->fmus, (size_t)cap * sizeof *v);
		if (!v) {
			fmu_free(f);
			return NULL;
		}
		env->fmus = v;
		env->capfmus = cap;
	}
	env->fmus[env->nfmus++] = (LspFmuEntry){strdup(path), st.st_mtim.tv_sec,
		st.st_mtim.tv_nsec, st.st_size, f};
	return f;
}

static UnitSystem *env_units(Compilation *c)
{
	LspEnv *env = c->env_data;
	if (!env->units && !env->units_error) {
		env->units = units_open(&env->units_error);
		if (!env->units && !env->units_error)
			env->units_error = "unknown reason";
	}
	if (!env->units && !c->units_error) {
		c->units_error = env->units_error; /* reported once per check */
		diag_error(c->diag, (Loc){0}, "cannot load the UDUNITS-2 unit database: %s",
			   env->units_error);
	}
	return env->units;
}

static int env_reduce(Compilation *c, SaInfo *info)
{
	return drv_reduce(c, info, NULL);
}

static char *env_module_text(Compilation *c, const char *path, size_t *len)
{
	LspEnv *env = c->env_data;
	for (const LspDoc *d = env->open_docs ? *env->open_docs : NULL; d; d = d->next) {
		if (!d->text || !drv_same_file(d->path, path))
			continue;
		char *t = malloc(d->len + 1);
		if (t) {
			memcpy(t, d->text, d->len + 1);
			*len = d->len;
		}
		return t;
	}
	return NULL;
}

static const CheckEnv lsp_check_env = {
	.find_fmu_file = drv_find_fmu_file,
	.fmu_dirs_searched = drv_fmu_dirs_searched,
	.open_fmu = env_open_fmu,
	.units = env_units,
	.reduce = env_reduce,
	.system_module = ssp_adaptation_module,
	.module_text = env_module_text,
};

static void collect(void *user, DiagLevel level, Loc loc, const char *msg)
{
	LspCheck *k = user;
	if (k->ndiags == k->capdiags) {
		int cap = k->capdiags ? 2 * k->capdiags : 16;
		LspDiag *v = realloc(k->diags, (size_t)cap * sizeof *v);
		if (!v)
			return;
		k->diags = v;
		k->capdiags = cap;
	}
	LspDiag *d = &k->diags[k->ndiags];
	d->level = level;
	d->loc = loc;
	d->msg = strdup(msg);
	d->file = loc.file ? strdup(loc.file) : NULL;
	d->loc.file = d->file;
	if (d->msg)
		k->ndiags++;
	else
		free(d->file);
}

LspCheck *lsp_check(LspEnv *env, const char *path, const char *text, size_t len)
{
	LspCheck *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->c = drv_new(NULL);
	if (!k->c) {
		free(k);
		return NULL;
	}
	k->c->env = &lsp_check_env;
	k->c->env_data = env;
	for (int i = 0; i < env->ninclude; i++)
		drv_add_include_dir(k->c, env->include_dirs[i]);
	for (int i = 0; i < env->nfmu_dirs; i++)
		drv_add_fmu_dir(k->c, env->fmu_dirs[i]);
	diag_set_listener(k->c->diag, collect, k);
	k->m = drv_load_text(k->c, path, text, len);
	if (k->m && k->m->root)
		drv_check(k->c, k->m);
	return k;
}

void lsp_check_free(LspCheck *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->ndiags; i++) {
		free(k->diags[i].msg);
		free(k->diags[i].file);
	}
	free(k->diags);
	drv_free(k->c);
	free(k);
}

/* A message about another file (an imported module, a model description) shown in this
 * document says where it is. */
static void put_message(StrBuf *sb, const LspDiag *g, bool here)
{
	if (here || !g->file) {
		json_put_string(sb, g->msg);
		return;
	}
	StrBuf m;
	sb_init(&m);
	if (g->loc.line > 0)
		sb_printf(&m, "%s:%d:%d: %s", g->file, g->loc.line, g->loc.col, g->msg);
	else
		sb_printf(&m, "%s: %s", g->file, g->msg);
	json_put_string(sb, sb_str(&m));
	sb_free(&m);
}

void lsp_put_diagnostics(StrBuf *sb, const LspDoc *d)
{
	const LspCheck *k = d->check;
	const char *path = k && k->m ? k->m->path : d->path;
	sb_puts(sb, "{\"uri\":");
	json_put_string(sb, d->uri);
	sb_printf(sb, ",\"version\":%lld,\"diagnostics\":[", d->version);
	bool first = true;
	for (int i = 0; k && i < k->ndiags;) {
		const LspDiag *g = &k->diags[i];
		bool here = g->file && strcmp(g->file, path) == 0;
		if (!first)
			sb_putc(sb, ',');
		first = false;
		sb_puts(sb, "{\"range\":");
		lsp_put_range(sb, here ? d->text : "", here ? d->len : 0,
			      here ? g->loc : (Loc){0});
		sb_printf(sb, ",\"severity\":%d,\"source\":\"sacc\",\"message\":",
			  g->level == DIAG_ERROR ? 1 : g->level == DIAG_WARNING ? 2 : 3);
		put_message(sb, g, here);
		/* The notes that follow an error or warning belong to it. */
		int j = i + 1;
		if (g->level != DIAG_NOTE && j < k->ndiags && k->diags[j].level == DIAG_NOTE) {
			sb_puts(sb, ",\"relatedInformation\":[");
			for (; j < k->ndiags && k->diags[j].level == DIAG_NOTE; j++) {
				const LspDiag *n = &k->diags[j];
				Loc at = n->file ? n->loc : g->loc;
				if (!at.file)
					at.file = path;
				if (j > i + 1)
					sb_putc(sb, ',');
				sb_puts(sb, "{\"location\":");
				lsp_put_location(sb, k, at);
				sb_puts(sb, ",\"message\":");
				json_put_string(sb, n->msg);
				sb_putc(sb, '}');
			}
			sb_putc(sb, ']');
		}
		sb_putc(sb, '}');
		i = j;
	}
	sb_puts(sb, "]}");
}
