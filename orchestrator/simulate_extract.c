/* simulate_extract.c — where `sacc simulate` puts its FMUs (simulate.h): each FMU file
 * extracted once into the run's private temporary directory, and its library loaded once,
 * for all the instances that use it; what --explain says of it.
 *
 * Why once: a scenario of thousands of instances of one FMU spent most of its set-up
 * extracting and loading thousands of copies of one library, and most of a step fetching
 * thousands of copies of the same code into the caches.  The standard lets one library
 * hold several instances unless the description says canBeInstantiatedOnlyOncePerProcess;
 * such an FMU gets a copy of its own per instance, extracted apart, since dlopen of a path
 * already open returns the handle already open (a hard link would too: the same inode).
 * The seam opens the shared copy once per instance, and the dynamic loader counts the
 * handles; an isolated instance (--isolate) loads it in its own host process.
 *
 * Like simulate_cli.c, not part of libsacc.a: it sees runtime/ headers. */
#include "simulate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "package.h"

/* Whether the instance must have a library of its own: the interface it runs through
 * says so. */
static bool needs_own_copy(const SimFmu *f)
{
	return f->me ? f->info->me.can_be_instantiated_only_once_per_process
	             : f->info->can_be_instantiated_only_once_per_process;
}

/* The library an instance loads: its file, and the model identifier of its interface (an
 * FMU offering both may name two libraries, and one instance may run through each). */
static char *library_key(const SimFmu *f)
{
	const char *id = fmu_identifier(f->info, f->me);
	char *key = malloc(strlen(f->info->path) + strlen(id) + 2);
	if (key)
		sprintf(key, "%s\n%s", f->info->path, id);
	return key;
}

/* owner[f]: the instance whose extraction instance f uses, the first of its FMU file
 * (itself for the first), except that an FMU that needs its own copy owns one unless
 * by_file (then owner[f] is just the first instance of f's file).  One look-up per
 * instance in a table of the files.  Returns the malloc'd array, or NULL when out of
 * memory. */
static int *share_owners(const Sim *s, bool by_file)
{
	NameIndex files = {0};
	int *owner = malloc(((size_t)s->nfmus + 1) * sizeof *owner);
	char **keys = calloc((size_t)s->nfmus + 1, sizeof *keys);
	bool failed = !owner || !keys;
	for (int f = 0; !failed && f < s->nfmus; f++) {
		owner[f] = f;
		if (!by_file && needs_own_copy(&s->fmus[f]))
			continue;
		const char *key = s->fmus[f].info->path;
		if (!by_file && !(key = keys[f] = library_key(&s->fmus[f]))) {
			failed = true;
			break;
		}
		int first = name_index_find(&files, key);
		if (first >= 0)
			owner[f] = first;
		else if (name_index_add(&files, key, f))
			failed = true;
	}
	name_index_free(&files);
	for (int f = 0; keys && f < s->nfmus; f++)
		free(keys[f]);
	free(keys);
	if (failed) {
		free(owner);
		return NULL;
	}
	return owner;
}

/* The archive is read once per FMU file and interface, not once per instance (a scenario
 * may hold thousands of instances of one file). */
void sim_choose_wine(Sim *s, const char *wine)
{
	int *owner = share_owners(s, true);
	unsigned *has = calloc((size_t)s->nfmus + 1, sizeof *has);
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		int o = owner && has ? owner[f] : f;
		unsigned h = o != f && s->fmus[o].me == fm->me ? has[o]
		           : pkg_archive_platforms(fm->info->path, fmu_identifier(fm->info, fm->me),
		                                   (int)fm->info->version);
		if (has)
			has[f] = h;
		fm->wine = (h & PKG_WIN64) && (!(h & PKG_LINUX64) || sim_isolate_covers(wine, fm->name));
	}
	free(owner);
	free(has);
}

bool sim_is_isolated(const Sim *s, int f, const char *isolate)
{
	return s->fmus[f].wine || sim_isolate_covers(isolate, s->fmus[f].name);
}

int sim_extract_all(Sim *s)
{
	const char *tmp = getenv("TMPDIR");
	char *templ = malloc(strlen(tmp && *tmp ? tmp : "/tmp") + 32);
	if (!templ)
		return 1;
	sprintf(templ, "%s/sacc-simulate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		cli_error("cannot make a temporary directory %s: %s", templ, strerror(errno));
		free(templ);
		return 1;
	}
	s->tmpdir = templ;
	int *owner = share_owners(s, false);
	if (!owner)
		return 1;
	int rc = 1;
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		if (owner[f] != f) {
			fm->dir = strdup(s->fmus[owner[f]].dir);
			if (!fm->dir)
				goto done;
			continue;
		}
		fm->dir = malloc(strlen(templ) + strlen(fm->name) + 16);
		if (!fm->dir)
			goto done;
		sprintf(fm->dir, "%s/%d-%s", templ, f, fm->name);
		if (pkg_extract_inner_for(fm->info->path, fm->dir, fmu_identifier(fm->info, fm->me),
		                          (int)fm->info->version, fm->me ? PKG_CAP_MODEL_EXCHANGE : 0,
		                          fm->wine ? PKG_WIN64 : PKG_LINUX64, s->c->diag))
			goto done;
	}
	rc = 0;
done:
	free(owner);
	return rc;
}

/* At most this many instance names on a line of --explain's; the rest are counted. */
#define NAMES_SHOWN 5

/* Which instances a line of --explain's names. */
typedef enum Which { IN_PROCESS, ISOLATED, WINE, MODEL_EXCHANGE } Which;

static bool is_one_of(const Sim *s, int f, const char *isolate, Which which)
{
	if (which == MODEL_EXCHANGE)
		return s->fmus[f].me;
	if (which == WINE)
		return s->fmus[f].wine;
	if (which == ISOLATED)
		return !s->fmus[f].wine && sim_isolate_covers(isolate, s->fmus[f].name);
	return !sim_is_isolated(s, f, isolate);
}

/* The instances of a file from the first, o, along next (-1 ends), that are which (isolate:
 * --isolate's list), on one line after lead, if there are any. */
static void print_names(const Sim *s, const int *next, int o, const char *isolate,
                        Which which, const char *lead)
{
	int n = 0;
	for (int f = o; f >= 0; f = next[f]) {
		if (!is_one_of(s, f, isolate, which))
			continue;
		if (n == 0)
			printf("%s", lead);
		if (n < NAMES_SHOWN)
			printf("%s%s", n ? ", " : "", s->fmus[f].name);
		n++;
	}
	if (n > NAMES_SHOWN)
		printf(" and %d more", n - NAMES_SHOWN);
	if (n)
		putchar('\n');
}

int sim_print_sharing(const Sim *s, const char *isolate)
{
	int *owner = share_owners(s, false), *file = share_owners(s, true);
	/* next[f]: the next instance of f's file; last[o]: the last one yet of file o */
	int *next = malloc(((size_t)s->nfmus + 1) * sizeof *next);
	int *last = malloc(((size_t)s->nfmus + 1) * sizeof *last);
	int rc = 1;
	if (!owner || !file || !next || !last)
		goto done;
	int files = 0, copies = 0;
	for (int f = 0; f < s->nfmus; f++) {
		copies += owner[f] == f;
		files += file[f] == f;
		next[f] = -1;
		if (file[f] != f)
			next[last[file[f]]] = f;
		last[file[f]] = f;
	}
	printf("fmu files: %d, extracted %d time%s\n", files, copies, copies == 1 ? "" : "s");
	for (int o = 0; o < s->nfmus; o++) {
		if (file[o] != o)
			continue;
		const FmuInfo *info = s->fmus[o].info;
		const char *base = strrchr(info->path, '/') ? strrchr(info->path, '/') + 1
		                                            : info->path;
		printf("  %s:\n", base);
		print_names(s, next, o, isolate, IN_PROCESS, needs_own_copy(&s->fmus[o])
		            ? "    a copy of its own each (canBeInstantiatedOnlyOncePerProcess): "
		            : "    one library in this process for: ");
		print_names(s, next, o, isolate, ISOLATED,
		            "    a process of its own each (--isolate): ");
		unsigned has = pkg_archive_platforms(info->path, fmu_identifier(info, s->fmus[o].me),
		                                     (int)info->version);
		print_names(s, next, o, isolate, WINE, has & PKG_LINUX64
		            ? "    its Windows library, in a process of its own each under Wine "
		              "(--wine): "
		            : "    its Windows library (it has no Linux one), in a process of its own "
		              "each under Wine: ");
		char lead[256];
		snprintf(lead, sizeof lead, "    run as Model Exchange (%.120s), integrated by sacc: ",
		         fmu_identifier(info, true));
		print_names(s, next, o, isolate, MODEL_EXCHANGE, lead);
	}
	rc = 0;
done:
	free(owner);
	free(file);
	free(next);
	free(last);
	return rc;
}
