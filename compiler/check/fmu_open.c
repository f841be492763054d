/* fmu_open.c — finds an FMU's modelDescription.xml (in the archive's root, or a bare .xml
 * file), reads it into memory under FMU_MD_MAX_BYTES and hands it to fmu_parse_md
 * (fmu_read.c); frees what that builds, and answers the queries on it (see fmu.h).
 *
 * The archive is opened with minizip; its entry's declared size is checked before any
 * byte is read, and a truncated or corrupt entry is reported as such.  Every failure is
 * a diagnostic on the archive's (or the file's) path. */
#include "fmu.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unzip.h>

#define MD_ENTRY "modelDescription.xml"

/* ---- files and archives ----------------------------------------------------------------- */

/* Reads a whole file of at most FMU_MD_MAX_BYTES. */
static char *read_md_file(const char *path, size_t *len, DiagSink *d)
{
	Loc loc = {path, 0, 0, 0};
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		diag_error(d, loc, "cannot open: %s", strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			if (cap > FMU_MD_MAX_BYTES) {
				diag_error(d, loc, "the model description is larger than the limit of "
				           "%u bytes", FMU_MD_MAX_BYTES);
				free(buf);
				buf = NULL;
				break;
			}
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, fp);
		n += got;
		if (got == 0) {
			if (ferror(fp)) {
				diag_error(d, loc, "cannot read: %s", strerror(errno));
				free(buf);
				buf = NULL;
			}
			break;
		}
	}
	fclose(fp);
	if (buf && n > FMU_MD_MAX_BYTES) {
		diag_error(d, loc, "the model description is larger than the limit of %u bytes",
		           FMU_MD_MAX_BYTES);
		free(buf);
		return NULL;
	}
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

/* Extracts modelDescription.xml from the archive's root into memory. */
static char *read_md_entry(const char *path, size_t *len, DiagSink *d)
{
	Loc loc = {path, 0, 0, 0};
	FILE *probe = fopen(path, "rb");
	if (!probe) {
		diag_error(d, loc, "cannot open: %s", strerror(errno));
		return NULL;
	}
	fclose(probe);
	char *buf = NULL;
	unzFile uf = unzOpen64(path);
	if (!uf) {
		diag_error(d, loc, "not a zip archive (an FMU is a zip file)");
		return NULL;
	}
	if (unzLocateFile(uf, MD_ENTRY, 1) != UNZ_OK) {
		diag_error(d, loc, "the archive has no " MD_ENTRY " at its root");
		goto done;
	}
	unz_file_info64 info;
	if (unzGetCurrentFileInfo64(uf, &info, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK) {
		diag_error(d, loc, "damaged zip archive: cannot read the entry " MD_ENTRY);
		goto done;
	}
	if (info.uncompressed_size > FMU_MD_MAX_BYTES) {
		diag_error(d, loc, MD_ENTRY " is too large (%llu bytes; the limit is %u)",
		           (unsigned long long)info.uncompressed_size, FMU_MD_MAX_BYTES);
		goto done;
	}
	size_t size = (size_t)info.uncompressed_size;
	if (unzOpenCurrentFile(uf) != UNZ_OK) {
		diag_error(d, loc, "cannot read " MD_ENTRY " (encrypted, or an unsupported "
		           "compression method)");
		goto done;
	}
	buf = malloc(size + 1);
	size_t n = 0;
	int rc = 0;
	while (buf && n < size) {
		unsigned chunk = size - n > (1u << 20) ? 1u << 20 : (unsigned)(size - n);
		rc = unzReadCurrentFile(uf, buf + n, chunk);
		if (rc <= 0)
			break;
		n += (size_t)rc;
	}
	int close_rc = unzCloseCurrentFile(uf);
	if (!buf) {
		diag_error(d, loc, "out of memory");
	} else if (rc < 0 || n < size) {
		diag_error(d, loc, "damaged zip archive: " MD_ENTRY " is truncated or corrupt");
	} else if (close_rc == UNZ_CRCERROR) {
		diag_error(d, loc, "damaged zip archive: " MD_ENTRY " fails its CRC check");
	} else {
		buf[n] = '\0';
		*len = n;
		goto done;
	}
	free(buf);
	buf = NULL;
done:
	unzClose(uf);
	return buf;
}

static FmuInfo *open_md(const char *path, DiagSink *d, bool any)
{
	bool bare = str_ends_with(path, ".xml");
	size_t len = 0;
	char *xml = bare ? read_md_file(path, &len, d) : read_md_entry(path, &len, d);
	if (!xml)
		return NULL;
	char *name = NULL;
	if (!bare) {
		size_t n = strlen(path) + sizeof ":" MD_ENTRY;
		name = malloc(n);
		if (!name) {
			free(xml);
			diag_error(d, (Loc){path, 0, 0, 0}, "out of memory");
			return NULL;
		}
		snprintf(name, n, "%s:" MD_ENTRY, path);
	}
	FmuInfo *f = any ? fmu_parse_md_any(xml, len, bare ? path : name, d)
	                 : fmu_parse_md(xml, len, bare ? path : name, d);
	free(xml);
	free(name);
	if (f && !bare) {
		char *p = strdup(path);
		if (!p) {
			diag_error(d, (Loc){path, 0, 0, 0}, "out of memory");
			fmu_free(f);
			return NULL;
		}
		free(f->path);
		f->path = p;
	}
	return f;
}

FmuInfo *fmu_open(const char *path, DiagSink *d)
{
	return open_md(path, d, false);
}

FmuInfo *fmu_open_any(const char *path, DiagSink *d)
{
	return open_md(path, d, true);
}

void fmu_free(FmuInfo *f)
{
	if (!f)
		return;
	free(f->fmi_version);
	free(f->model_name);
	free(f->model_identifier);
	free(f->guid);
	free(f->description);
	free(f->generation_tool);
	free(f->path);
	free(f->md_name);
	for (int i = 0; i < f->nvars; i++) {
		FmuVar *v = &f->vars[i];
		free(v->name);
		free(v->start);
		free(v->unit);
		free(v->declared_type);
		free(v->mime_type);
		free(v->description);
		free(v->dims);
		free(v->clocks);
	}
	free(f->vars);
	for (int i = 0; i < f->nunits; i++)
		free(f->units[i].name);
	free(f->units);
	for (int i = 0; i < f->ntypes; i++) {
		free(f->types[i].name);
		free(f->types[i].quantity);
		free(f->types[i].unit);
		for (int k = 0; k < f->types[i].nitems; k++) {
			free(f->types[i].items[k].name);
			free(f->types[i].items[k].description);
		}
		free(f->types[i].items);
	}
	free(f->types);
	for (int i = 0; i < f->noutputs; i++)
		free(f->outputs[i].deps);
	free(f->outputs);
	for (int i = 0; i < f->ninitial_unknowns; i++)
		free(f->initial_unknowns[i].deps);
	free(f->initial_unknowns);
	free(f->me.model_identifier);
	free(f->se.model_identifier);
	free(f->me.states);
	free(f->me.event_indicators);
	free(f);
}

/* ---- queries ---------------------------------------------------------------------------- */

bool fmu_me_by_default(const FmuInfo *f)
{
	return f->has_model_exchange && !f->has_cosim;
}

bool fmu_se_by_default(const FmuInfo *f)
{
	return f->has_scheduled_execution && !f->has_cosim && !f->has_model_exchange;
}

bool fmu_cs_clocks(const FmuInfo *f)
{
	return f->nclocks > 0 && f->has_cosim && f->has_event_mode;
}

const char *fmu_identifier(const FmuInfo *f, bool me)
{
	return me && f->me.model_identifier ? f->me.model_identifier : f->model_identifier;
}

/* The value references of the first nvars variables that keep says yes to, sorted and each
 * once (FMI 2.0 aliases share one); NULL and *n = 0 when there are none or out of memory. */
static uint32_t *vrs_where(const FmuInfo *f, int nvars, bool (*keep)(const FmuVar *v),
                           size_t *n)
{
	uint32_t *vrs = NULL;
	size_t k = 0;
	*n = 0;
	for (int i = 0; i < nvars && i < f->nvars; i++) {
		const FmuVar *v = &f->vars[i];
		if (!keep(v))
			continue;
		uint32_t *grown = realloc(vrs, (k + 1) * sizeof *vrs);
		if (!grown) {
			free(vrs);
			return NULL;
		}
		vrs = grown;
		size_t at = k;
		while (at > 0 && vrs[at - 1] > v->vr)
			at--;
		if (at > 0 && vrs[at - 1] == v->vr)
			continue;
		memmove(vrs + at + 1, vrs + at, (k - at) * sizeof *vrs);
		vrs[at] = v->vr;
		k++;
	}
	*n = k;
	return vrs;
}

/* Set only in Event Mode among what a Model Exchange run sets between steps: tunable Real
 * parameters, discrete Real inputs.  An FMI 3.0 array is one reference here: the runtime
 * adds the references its caller gives the elements (sart_inner_me.c), which the
 * description does not know. */
static bool me_event_only(const FmuVar *v)
{
	bool real = v->type == FT_REAL || v->type == FT_FLOAT32;
	return real && ((v->causality == CAUS_PARAMETER && v->variability == VAR_TUNABLE) ||
	                (v->causality == CAUS_INPUT && v->variability == VAR_DISCRETE));
}

uint32_t *fmu_me_event_vrs(const FmuInfo *f, size_t *n)
{
	return vrs_where(f, f->nvars, me_event_only, n);
}

static bool intermediate_input(const FmuVar *v)
{
	return v->intermediate_update && v->type == FT_REAL && v->causality == CAUS_INPUT &&
	       !v->ndims;
}

uint32_t *fmu_intermediate_inputs(const FmuInfo *f, int nvars, size_t *n)
{
	*n = 0;
	return f->version == FMI_V3 ? vrs_where(f, nvars, intermediate_input, n) : NULL;
}

FmuAbilities fmu_abilities(const FmuInfo *f, bool me)
{
	if (me)
		return (FmuAbilities){f->me.can_get_and_set_fmu_state, f->me.can_serialize_fmu_state,
		                      f->me.can_be_instantiated_only_once_per_process,
		                      f->me.needs_execution_tool, false};
	if (fmu_se_by_default(f)) /* its partitions take their inputs where they run */
		return (FmuAbilities){f->se.can_get_and_set_fmu_state, f->se.can_serialize_fmu_state,
		                      f->se.can_be_instantiated_only_once_per_process,
		                      f->se.needs_execution_tool, false};
	return (FmuAbilities){f->can_get_and_set_fmu_state, f->can_serialize_fmu_state,
	                      f->can_be_instantiated_only_once_per_process,
	                      f->needs_execution_tool, f->can_interpolate_inputs};
}

const FmuVar *fmu_find_var(const FmuInfo *f, const char *name)
{
	for (int i = 0; f && name && i < f->nvars; i++)
		if (f->vars[i].name && strcmp(f->vars[i].name, name) == 0)
			return &f->vars[i];
	return NULL;
}

bool fmu_output_depends_on(const FmuInfo *f, int out, int in)
{
	for (int i = 0; f && i < f->noutputs; i++) {
		const FmuOutputDep *o = &f->outputs[i];
		if (o->var != out)
			continue;
		if (!o->deps_given)
			return in >= 0 && in < f->nvars;
		for (int k = 0; k < o->ndeps; k++)
			if (o->deps[k] == in)
				return true;
		return false;
	}
	return false;
}
