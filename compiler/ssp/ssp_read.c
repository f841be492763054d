/* ssp_read.c — reading an SSP (stub: the interface of ssp.h, filled in next). */
#include "ssp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

bool ssp_is_path(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && (strcmp(path + n - 4, ".ssp") == 0 || strcmp(path + n - 4, ".ssd") == 0);
}

SspModel *ssp_read(Compilation *c, const char *path)
{
	diag_error(c->diag, (Loc){path, 0, 0, 0}, "reading SSP systems is not implemented yet");
	return NULL;
}

void ssp_free(SspModel *m)
{
	if (!m)
		return;
	if (m->tmpdir)
		zip_rmtree(m->tmpdir);
	free(m->tmpdir);
	m->tmpdir = NULL;
}

const SspUnit *ssp_find_unit(const SspModel *m, const char *name)
{
	for (int i = 0; name && i < m->nunits; i++)
		if (strcmp(m->units[i].name, name) == 0)
			return &m->units[i];
	return NULL;
}

int ssp_flatten(SspModel *m, bool no_unit_conversion, SspFlat *f)
{
	(void)no_unit_conversion;
	memset(f, 0, sizeof *f);
	diag_error(m->c->diag, (Loc){m->path, 0, 0, 0}, "flattening SSP systems is not "
	           "implemented yet");
	return 1;
}

double ssp_convert(const SspConvert *cv, double x)
{
	for (int k = 0; k < cv->nmap; k++)
		if (x == cv->from[k]) {
			x = cv->to[k];
			break;
		}
	return cv->scale * x + cv->offset;
}
