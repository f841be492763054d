/* sart_binary.c — the wrapper's Binaries: an FMI 3.0 inner's Binary port that the script
 * passes through, forwarded whole between the importer and the inner.  A Binary lives in the
 * Storage as a SartBinary (its size and SART_BINARY_CAP bytes; sart_wrapper.h says why), so
 * that G's scratch copy, snapshots and FMU states carry it; a value too long for its
 * variable is an error naming the variable and the size, never cut short.  The importer's
 * gets hand out pointers into the wrapper's copy, valid until the next call on the instance,
 * as FMI 3.0 asks of fmi3GetBinary. */
#include "sart_core_impl.h"

#include <string.h>

void sart_init_binary(SartBinary *dst, const void *src, size_t size)
{
	if (size > SART_BINARY_CAP)
		size = SART_BINARY_CAP;
	if (size)
		memcpy(dst->data, src, size);
	dst->size = size;
}

static SartBinary *binary_at(unsigned char *s, size_t off, unsigned k)
{
	return (SartBinary *)(void *)(s + off) + k;
}

/* The most bytes the wrapper's Binary vr may hold. */
static size_t binary_max(SartVr vr)
{
	size_t max = sart_model.binary_max ? sart_model.binary_max[vr] : 0;
	return max && max < SART_BINARY_CAP ? max : SART_BINARY_CAP;
}

/* Every Binary input of inner f, one set call a port: the importer may have set any of them
 * since the last step, and the rules never assign one. */
int sart_flush_binaries(SartWrapper *w, unsigned char *s, unsigned f)
{
	const SartPorts *p = &sart_model.inners[f].in[SART_BINARY];
	for (unsigned k = 0; k < p->n && !sart_has_failed(w); k++) {
		const SartBinary *b = binary_at(s, p->values, k);
		const unsigned char *data = b->data;
		if (b->size > SART_BINARY_CAP) { /* only a forged FMU state can hold one */
			sart_fail(w, SART_ERROR, "[wrapper] setting the inputs of '%s': %s.%s holds a "
			          "size of %lu bytes", sart_model.inners[f].name, sart_model.inners[f].name,
			          p->names[k], (unsigned long)b->size);
			return 0;
		}
		sart_check_inner(w, sart_inner_set_binary(w->inner[f], &p->vr[k], 1, &data, &b->size),
		                 f, "setting the inputs");
	}
	return !sart_has_failed(w);
}

int sart_read_binaries(SartWrapper *w, unsigned char *s, unsigned f)
{
	const SartPorts *p = &sart_model.inners[f].out[SART_BINARY];
	for (unsigned k = 0; k < p->n; k++) {
		size_t size = 0;
		const unsigned char *data = NULL;
		sart_check_inner(w, sart_inner_get_binary(w->inner[f], &p->vr[k], 1, &data, &size),
		                 f, "reading the outputs");
		if (sart_has_failed(w))
			return 0;
		/* The inner's bytes are valid until its next call: copied at once. */
		if ((!data && size) || size > SART_BINARY_CAP) {
			sart_fail(w, SART_ERROR, "[wrapper] reading the outputs of '%s': %s.%s is %s "
			          "Binary of %lu bytes, longer than the wrapper's %d",
			          sart_model.inners[f].name, sart_model.inners[f].name, p->names[k],
			          data ? "a" : "a NULL", (unsigned long)size, SART_BINARY_CAP);
			return 0;
		}
		SartBinary *b = binary_at(s, p->values, k);
		if (size)
			memcpy(b->data, data, size);
		b->size = size;
	}
	return 1;
}

/* The importer's gets: pointers into the Storage G left (or the scratch copy G ran on). */
SartStatus sart_core_get_binaries(void *instance, const SartVr vr[], size_t n, size_t sizes[],
                                  const unsigned char *v[], const SartCall *call)
{
	SartWrapper *w = sart_core_enter(instance, call);
	SartStatus st = SART_OK;
	if (!w)
		return SART_ERROR;
	if (n && (!vr || !sizes || !v)) {
		sart_wlog(w, SART_ERROR, "%s: NULL value reference, size or value array", call->name);
		return SART_ERROR;
	}
	if ((sart_model.mealy && w->g_dirty && w->phase == SART_PHASE_STEP) ||
	    (w->phase == SART_PHASE_INIT && !w->g_valid)) {
		st = sart_run_g(w, call);
		if (st >= SART_ERROR)
			return st;
	}
	unsigned char *s = w->g_valid ? w->scratch : w->storage;
	for (size_t i = 0; i < n; i++) {
		if (vr[i] >= sart_model.nvr[SART_BINARY]) {
			sart_wlog(w, SART_ERROR, "%s: unknown value reference %u", call->name, vr[i]);
			return SART_ERROR;
		}
		const SartBinary *b = (const SartBinary *)(const void *)
			(s + sart_model.vars[SART_BINARY][vr[i]].offset);
		sizes[i] = b->size <= SART_BINARY_CAP ? b->size : 0;
		v[i] = b->data;
	}
	if (sart_core_calls_logged(w))
		sart_core_log_call(w, "%s(nvr = %lu)", call->name, (unsigned long)n);
	return st;
}

/* The importer's sets: each value copied when it fits its variable (values before a refused
 * one stay set, as with Strings). */
SartStatus sart_core_set_binaries(void *instance, const SartVr vr[], size_t n,
                                  const size_t sizes[], const unsigned char *const v[],
                                  const SartCall *call)
{
	SartWrapper *w = sart_core_enter(instance, call);
	if (!w)
		return SART_ERROR;
	if (n && (!vr || !sizes || !v)) {
		sart_wlog(w, SART_ERROR, "%s: NULL value reference, size or value array", call->name);
		return SART_ERROR;
	}
	if (sart_core_calls_logged(w))
		sart_core_log_call(w, "%s(nvr = %lu)", call->name, (unsigned long)n);
	const SartVar *vars = sart_model.vars[SART_BINARY];
	unsigned char *marks = w->is_set + w->is_set_off[SART_BINARY];
	SartStatus r = SART_OK;
	size_t i;
	for (i = 0; i < n; i++) {
		SartVr k = vr[i];
		if (k >= sart_model.nvr[SART_BINARY]) {
			sart_wlog(w, SART_ERROR, "%s: unknown value reference %u", call->name, k);
			r = SART_ERROR;
			break;
		}
		if (vars[k].kind == SART_VAR_OUTPUT) {
			sart_wlog(w, SART_ERROR, "%s: value reference %u ('%s') is an output", call->name,
			          k, vars[k].name);
			r = SART_ERROR;
			break;
		}
		if (sizes[i] > binary_max(k) || (!v[i] && sizes[i])) {
			if (v[i])
				sart_wlog(w, SART_ERROR, "%s: the value of '%s' is a Binary of %lu bytes, "
				          "longer than its maxSize %lu", call->name, vars[k].name,
				          (unsigned long)sizes[i], (unsigned long)binary_max(k));
			else
				sart_wlog(w, SART_ERROR, "%s: the value of '%s' is NULL", call->name,
				          vars[k].name);
			r = SART_ERROR;
			break;
		}
		sart_init_binary((SartBinary *)(void *)(w->storage + vars[k].offset), v[i], sizes[i]);
		marks[k] = 1;
	}
	if (i) {
		/* Some value was set: the next get runs G. */
		w->g_dirty = 1;
		w->g_valid = 0;
	}
	return r;
}
