/* sart_values.c — the external variables as a skin gets and sets them: one loop over the
 * model's table of the type, each value read or written at its offset in the Storage, G run
 * first when a set made it due; and the input derivatives of the next step.  The Real calls,
 * the importer's every step, read and write straight through the table when nothing else is
 * due (a valid instance between steps, G not due, no call log). */
#include "sart_core_impl.h"
#include "sart_numfmt.h"

#include <stdio.h>
#include <string.h>

static const char *const type_name[SART_NTYPES] = {"Real", "Integer", "Boolean", "String",
                                                            "Binary"};

/* Logs a get or set call with its value references and values (logFmiCalls). */
static void log_values(SartWrapper *w, const char *fn, SartType t, const SartVr vr[],
                       size_t nvr, const void *values)
{
	char buf[768];
	size_t used = 0;
	if (!sart_core_calls_logged(w))
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < nvr && vr && values && used + 64 < sizeof buf; i++) {
		int n;
		if (t == SART_REAL)
			n = snprintf(buf + used, sizeof buf - used, "%s#%u = %s", i ? ", " : "", vr[i],
			             SART_NUM(((const double *)values)[i]));
		else if (t == SART_STRING)
			n = snprintf(buf + used, sizeof buf - used, "%s#%u = \"%.40s\"", i ? ", " : "",
			             vr[i], ((const char *const *)values)[i]
			                        ? ((const char *const *)values)[i] : "(null)");
		else
			n = snprintf(buf + used, sizeof buf - used, "%s#%u = %d", i ? ", " : "", vr[i],
			             ((const int *)values)[i]);
		if (n < 0)
			break;
		used += (size_t)n;
		if (used >= sizeof buf)
			used = sizeof buf - 1;
	}
	sart_core_log_call(w, "%s(nvr = %lu: %s%s)", fn, (unsigned long)nvr, buf,
	                   used + 64 >= sizeof buf ? ", ..." : "");
}

/* A value reference outside the type's table, named in the message. */
static SART_COLD SartStatus unknown_vr(SartWrapper *w, const char *fn, SartType t, SartVr vr)
{
	if (!sart_model.nvr[t])
		sart_wlog(w, SART_ERROR, "%s: unknown value reference %u: %s has no %s variable", fn,
		          vr, sart_model.identifier, type_name[t]);
	else
		sart_wlog(w, SART_ERROR, "%s: unknown value reference %u", fn, vr);
	return SART_ERROR;
}

/* Why a set of value reference vr is refused (unknown, an output, a fixed parameter after
 * initialization). */
static SART_COLD SartStatus not_settable(SartWrapper *w, const char *fn, SartType t, SartVr vr)
{
	if (vr >= sart_model.nvr[t])
		return unknown_vr(w, fn, t, vr);
	const SartVar *v = &sart_model.vars[t][vr];
	if (v->kind == SART_VAR_OUTPUT)
		sart_wlog(w, SART_ERROR, "%s: '%s' is an output", fn, v->name);
	else
		sart_wlog(w, SART_ERROR, "%s: '%s' is a fixed parameter: it cannot be set after "
		          "initialization", fn, v->name);
	return SART_ERROR;
}

/* A String the importer sets, copied into the Storage when it fits. */
static SartStatus set_string(SartWrapper *w, const char *fn, const char *name, char *dst,
                             const char *v)
{
	size_t n = v ? strlen(v) : 0;
	if (!v) {
		sart_wlog(w, SART_ERROR, "%s: the value of '%s' is NULL", fn, name);
		return SART_ERROR;
	}
	if (n >= SART_STRING_CAP) {
		sart_wlog(w, SART_ERROR, "%s: the value of '%s' is a String of %lu bytes, longer than "
		          "the wrapper's %d", fn, name, (unsigned long)n, SART_STRING_CAP - 1);
		return SART_ERROR;
	}
	memcpy(dst, v, n + 1);
	return SART_OK;
}

/* Inline in each caller, where t is a constant. */
static HOT_INLINE SartStatus get_values(void *instance, SartType t, const SartVr vr[],
                                        size_t nvr, void *values, const SartCall *call)
{
	SartWrapper *w = sart_core_enter(instance, call);
	SartStatus st = SART_OK;
	if (!w)
		return SART_ERROR;
	if (nvr && (!vr || !values)) {
		sart_wlog(w, SART_ERROR, "%s: NULL value reference or value array", call->name);
		return SART_ERROR;
	}
	if ((sart_model.mealy && w->g_dirty && w->phase == SART_PHASE_STEP) ||
	    (w->phase == SART_PHASE_INIT && !w->g_valid)) {
		st = sart_run_g(w, call);
		if (st >= SART_ERROR)
			return st;
	}
	const unsigned char *s = w->g_valid ? w->scratch : w->storage;
	const SartVar *vars = sart_model.vars[t];
	const unsigned n = sart_model.nvr[t];
	for (size_t i = 0; i < nvr; i++) {
		SartVr r = vr[i];
		if (r >= n) {
			if (t == SART_REAL && r == n && w->host.skin->time_after_reals) {
				((double *)values)[i] = w->time;
				continue;
			}
			return unknown_vr(w, call->name, t, r);
		}
		const void *p = s + vars[r].offset;
		if (t == SART_REAL)
			((double *)values)[i] = *(const double *)p;
		else if (t == SART_STRING)
			((const char **)values)[i] = p;
		else
			((int *)values)[i] = *(const int *)p;
	}
	if (sart_core_calls_logged(w))
		log_values(w, call->name, t, vr, nvr, values);
	return st;
}

static HOT_INLINE SartStatus set_values(void *instance, SartType t, const SartVr vr[],
                                        size_t nvr, const void *values, const SartCall *call)
{
	SartWrapper *w = sart_core_enter(instance, call);
	if (!w)
		return SART_ERROR;
	if (nvr && (!vr || !values)) {
		sart_wlog(w, SART_ERROR, "%s: NULL value reference or value array", call->name);
		return SART_ERROR;
	}
	if (sart_core_calls_logged(w))
		log_values(w, call->name, t, vr, nvr, values);
	const SartVarKind least = w->phase & (SART_PHASE_INSTANTIATED | SART_PHASE_INIT)
	                                  ? SART_VAR_FIXED : SART_VAR_TUNABLE;
	unsigned char *s = w->storage;
	unsigned char *marks = w->is_set + w->is_set_off[t];
	const SartVar *vars = sart_model.vars[t];
	const unsigned n = sart_model.nvr[t];
	size_t i;
	SartStatus r = SART_OK;
	for (i = 0; i < nvr; i++) {
		SartVr k = vr[i];
		if (k >= n || vars[k].kind < least) {
			r = not_settable(w, call->name, t, k);
			break;
		}
		void *p = s + vars[k].offset;
		if (t == SART_STRING) {
			r = set_string(w, call->name, vars[k].name, p, ((const char *const *)values)[i]);
			if (r != SART_OK)
				break;
		} else if (t == SART_REAL)
			*(double *)p = ((const double *)values)[i];
		else if (t == SART_INTEGER)
			*(int *)p = ((const int *)values)[i];
		else
			*(int *)p = ((const int *)values)[i] != 0;
		marks[k] = 1;
		if (sart_model.ninner_params && w->phase == SART_PHASE_STEP &&
		    vars[k].kind == SART_VAR_TUNABLE) {
			r = sart_tune_inner_param(w, t, k);
			if (r >= SART_ERROR) {
				i++;
				break;
			}
		}
	}
	if (i) {
		/* Some value was set: the next get runs G. */
		w->g_dirty = 1;
		w->g_valid = 0;
	}
	return r;
}

static SART_COLD SartStatus get_real_full(void *instance, const SartVr vr[], size_t nvr,
                                          double value[], const SartCall *call)
{
	return get_values(instance, SART_REAL, vr, nvr, value, call);
}

/* The skin's call for a valid handle; NULL otherwise (nothing is then logged). */
static const SartCall *skin_call(const void *instance, int set)
{
	const SartWrapper *w = instance;
	if (!w || w->magic != WRAPPER_MAGIC)
		return NULL;
	return set ? w->host.skin->set_real : w->host.skin->get_real;
}

/* Between steps with no call log and G not due, Reals are read straight through the
 * model's offsets while each value reference is one; get_values does the whole call
 * otherwise (reporting the value reference that is not). */
SartStatus sart_core_get_real(void *instance, const SartVr vr[], size_t nvr, double value[])
{
	const SartWrapper *w = instance;
	if (w && w->magic == WRAPPER_MAGIC && w->direct_reals && !w->g_dirty && vr && value) {
		const unsigned char *s = w->g_valid ? w->scratch : w->storage;
		const size_t *off = sart_model.real_offset;
		const unsigned n = sart_model.nvr[SART_REAL];
		size_t i;
		for (i = 0; i < nvr && vr[i] < n; i++)
			value[i] = *(const double *)(const void *)(s + off[vr[i]]);
		if (i == nvr)
			return SART_OK;
	}
	const SartCall *call = skin_call(instance, 0);
	return call ? get_real_full(instance, vr, nvr, value, call) : SART_ERROR;
}

static SART_COLD SartStatus set_real_full(void *instance, const SartVr vr[], size_t nvr,
                                          const double value[], const SartCall *call)
{
	return set_values(instance, SART_REAL, vr, nvr, value, call);
}

/* Between steps with no call log, values are written straight through the model's offsets
 * while each value reference is an external Real input (0..nreal_inputs-1, one bound
 * check); set_values does the rest from the first that is not (a tunable parameter, or
 * one it refuses and reports), so that the values before it stay set. */
SartStatus sart_core_set_real(void *instance, const SartVr vr[], size_t nvr,
                              const double value[])
{
	SartWrapper *w = instance;
	if (w && w->magic == WRAPPER_MAGIC && w->direct_reals && vr && value) {
		unsigned char *s = w->storage;
		unsigned char *marks = w->is_set; /* Reals first */
		const size_t *off = sart_model.real_offset;
		const unsigned n = sart_model.nreal_inputs;
		size_t i;
		for (i = 0; i < nvr; i++) {
			SartVr k = vr[i];
			if (k >= n)
				break;
			*(double *)(void *)(s + off[k]) = value[i];
			marks[k] = 1;
		}
		if (i) {
			w->g_dirty = 1;
			w->g_valid = 0;
		}
		if (i == nvr)
			return SART_OK;
		return set_real_full(instance, vr + i, nvr - i, value + i, w->host.skin->set_real);
	}
	const SartCall *call = skin_call(instance, 1);
	return call ? set_real_full(instance, vr, nvr, value, call) : SART_ERROR;
}

SartStatus sart_core_get(void *instance, SartType t, const SartVr vr[], size_t n, int v[],
                         const SartCall *call)
{
	if (t == SART_INTEGER)
		return get_values(instance, SART_INTEGER, vr, n, v, call);
	return get_values(instance, SART_BOOLEAN, vr, n, v, call);
}

SartStatus sart_core_set(void *instance, SartType t, const SartVr vr[], size_t n,
                         const int v[], const SartCall *call)
{
	if (t == SART_INTEGER)
		return set_values(instance, SART_INTEGER, vr, n, v, call);
	return set_values(instance, SART_BOOLEAN, vr, n, v, call);
}

SartStatus sart_core_get_strings(void *instance, const SartVr vr[], size_t n, const char *v[],
                                 const SartCall *call)
{
	return get_values(instance, SART_STRING, vr, n, v, call);
}

SartStatus sart_core_set_strings(void *instance, const SartVr vr[], size_t n,
                                 const char *const v[], const SartCall *call)
{
	return set_values(instance, SART_STRING, vr, n, v, call);
}

/* Which of sart_model.real_inputs vr is; nreal_inputs when none. */
static unsigned real_input_index(SartVr vr)
{
	unsigned k = 0;
	while (k < sart_model.nreal_inputs && sart_model.real_inputs[k] != vr)
		k++;
	return k;
}

SartStatus sart_core_set_input_derivatives(SartWrapper *w, const SartVr vr[], size_t nvr,
                                           const int order[], const double value[],
                                           const SartCall *call)
{
	const char *fn = call->name;
	if (nvr && (!vr || !order || !value)) {
		sart_wlog(w, SART_ERROR, "%s: NULL argument", fn);
		return SART_ERROR;
	}
	log_values(w, fn, SART_REAL, vr, nvr, value);
	/* Checked first, stored after: a rejected call changes nothing. */
	for (size_t i = 0; i < nvr; i++) {
		if (real_input_index(vr[i]) == sart_model.nreal_inputs) {
			sart_wlog(w, SART_ERROR, "%s: value reference %u is not a Real input", fn, vr[i]);
			return SART_ERROR;
		}
		if (order[i] != 1) {
			sart_wlog(w, SART_ERROR, "%s: derivative order %d of value reference %u is not "
			          "supported (only 1)", fn, order[i], vr[i]);
			return SART_ERROR;
		}
		if (!isfinite(value[i])) {
			sart_wlog(w, SART_ERROR, "%s: the derivative of value reference %u is not finite",
			          fn, vr[i]);
			return SART_ERROR;
		}
	}
	for (size_t i = 0; i < nvr; i++) {
		unsigned k = real_input_index(vr[i]);
		if (sart_model.held_inputs && sart_model.held_inputs[k])
			continue; /* discrete: held over the step, never extrapolated */
		w->du[k] = value[i];
		w->du_set[k] = 1;
		w->du_pending = 1;
		sart_refresh_plain(w);
	}
	return SART_OK;
}
