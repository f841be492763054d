/* sart_core.c — the wrapper core's instance: logging and failures, creation with the inner
 * FMUs' life cycle, the phase checks, and the life cycle of the instance itself (experiment,
 * Init, terminate, reset), with the Init sequence and the Mealy output function G.  The
 * rule-level API is in sart_rules.c, values in sart_values.c, the step in sart_step.c and
 * sart_fast_step.c, FMU states in sart_state.c; sart_core_impl.h says what they share. */
#include "sart_core_impl.h"
#include "sart_numfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const struct {
	const char *name;
	unsigned bit;
} categories[] = {
	{"logStatusWarning", CAT_WARNING}, {"logStatusDiscard", CAT_DISCARD},
	{"logStatusError", CAT_ERROR},     {"logStatusFatal", CAT_FATAL},
	{"logFmiCalls", CAT_CALLS},        {"logInner", CAT_INNER},
};

/* The instance's first members are SartView's, which the emitted entry points read and write
 * through it: each at the same offset with the same size (a negative array size otherwise). */
#define SAME_AS_VIEW(m)                                                                        \
	typedef char view_##m[offsetof(SartWrapper, m) == offsetof(SartView, m) &&              \
	                      sizeof ((SartWrapper *)0)->m == sizeof ((SartView *)0)->m ? 1 : -1]
SAME_AS_VIEW(magic);
SAME_AS_VIEW(direct_reals);
SAME_AS_VIEW(fast_ok);
SAME_AS_VIEW(g_dirty);
SAME_AS_VIEW(g_valid);
SAME_AS_VIEW(time);
SAME_AS_VIEW(last_ok);
SAME_AS_VIEW(scratch);
SAME_AS_VIEW(route);

/* ---- logging ------------------------------------------------------------------------------ */

static const char *status_category(SartStatus st)
{
	switch (st) {
	case SART_WARNING: return "logStatusWarning";
	case SART_DISCARD: return "logStatusDiscard";
	case SART_ERROR: return "logStatusError";
	case SART_FATAL: return "logStatusFatal";
	default: return "logFmiCalls";
	}
}

static void vlog_to(const SartHost *host, const char *name, SartStatus st, const char *category,
                    const char *fmt, va_list ap)
{
	char msg[1024];
	if (!host->log)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	host->log(host, name ? name : "?", st, category, msg);
}

static void log_to(const SartHost *host, const char *name, SartStatus st, const char *fmt, ...)
	SART_PRINTF(4, 5);

static void log_to(const SartHost *host, const char *name, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_to(host, name, st, status_category(st), fmt, ap);
	va_end(ap);
}

void sart_deliver(SartWrapper *w, int f, SartStatus st, const char *category, const char *msg)
{
	if (w->batches && sart_batch_hold(w, f, st, category, msg))
		return;
	if (w->host.log)
		w->host.log(&w->host, w->name ? w->name : "?", st, category, msg);
}

/* The wrapper's own messages, through sart_deliver. */
static void vlog_w(SartWrapper *w, SartStatus st, const char *category, const char *fmt,
                   va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	sart_deliver(w, -1, st, category, msg);
}

void sart_wlog(SartWrapper *w, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_w(w, st, status_category(st), fmt, ap);
	va_end(ap);
}

void sart_core_log(SartWrapper *w, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_to(&w->host, w->name, st, status_category(st), fmt, ap);
	va_end(ap);
}

int sart_core_calls_logged(const SartWrapper *w)
{
	return w->logging && (w->log_mask & CAT_CALLS);
}

void sart_core_log_call(SartWrapper *w, const char *fmt, ...)
{
	va_list ap;
	if (!sart_core_calls_logged(w))
		return;
	va_start(ap, fmt);
	vlog_to(&w->host, w->name, SART_OK, "logFmiCalls", fmt, ap);
	va_end(ap);
}

/* The inner FMUs' messages and the seam's own, under logInner. */
static void inner_logger(void *env, SartStatus st, const char *category, const char *message)
{
	InnerEnv *ie = env;
	SartWrapper *w = ie->w;
	(void)category;
	if (st == SART_OK && !(w->logging && (w->log_mask & CAT_INNER)))
		return;
	sart_deliver(w, (int)ie->f, st, "logInner", message);
}

SartStatus sart_core_set_logging(SartWrapper *w, int on, size_t ncats,
                                 const char *const cats[], const SartCall *call)
{
	unsigned mask = ncats ? 0 : CAT_ALL;
	if (ncats && !cats) {
		sart_wlog(w, SART_ERROR, "%s: categories is NULL", call->name);
		return SART_ERROR;
	}
	for (size_t i = 0; i < ncats; i++) {
		size_t j = 0;
		while (j < sizeof categories / sizeof categories[0] &&
		       !(cats[i] && strcmp(cats[i], categories[j].name) == 0))
			j++;
		if (j == sizeof categories / sizeof categories[0]) {
			sart_wlog(w, SART_ERROR, "%s: unknown log category '%s'", call->name,
			          cats[i] ? cats[i] : "(null)");
			return SART_ERROR;
		}
		mask |= categories[j].bit;
	}
	w->logging = on;
	w->log_mask = mask;
	sart_refresh_plain(w);
	return SART_OK;
}

/* ---- failures inside rule parts (sart_core_impl.h) ------------------------------------------ */

void sart_fail(SartWrapper *w, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	if (st < SART_ERROR)
		st = SART_ERROR;
	va_start(ap, fmt);
	vlog_w(w, st, status_category(st), fmt, ap);
	va_end(ap);
	if (st > w->fail_status)
		w->fail_status = st;
}

void sart_inner_failed(SartWrapper *w, SartStatus st, unsigned f, const char *what)
{
	sart_fail(w, st, "[wrapper] %s of '%s' failed: %s", what, sart_model.inners[f].name,
	          sart_inner_message(w->inner[f]));
}

SartStatus sart_guarded(SartWrapper *w, void (*body)(SartWrapper *w))
{
	w->fail_status = SART_OK;
	w->warned = 0;
	body(w);
	w->in_map = 0;
	return sart_run_outcome(w);
}

/* ---- phase checks ------------------------------------------------------------------------- */

static SART_COLD SartWrapper *refuse(SartWrapper *w, const SartCall *call)
{
	if (w && w->magic == WRAPPER_MAGIC)
		sart_wlog(w, SART_ERROR, "%s is not allowed in state %s", call->name,
		          w->host.skin->phase_name(w->phase));
	return NULL;
}

SartWrapper *sart_core_enter(void *instance, const SartCall *call)
{
	SartWrapper *w = instance;
	if (w && w->magic == WRAPPER_MAGIC && (w->phase & call->allowed))
		return w;
	return refuse(w, call);
}

SartPhase sart_core_phase(const SartWrapper *w)
{
	return w->phase;
}

SartStatus sart_settle(SartWrapper *w, SartStatus st)
{
	if (st == SART_ERROR)
		sart_set_phase(w, SART_PHASE_ERROR);
	else if (st == SART_FATAL)
		sart_set_phase(w, SART_PHASE_FATAL);
	return st;
}

static SartStatus worst(SartStatus a, SartStatus b)
{
	return a > b ? a : b;
}

/* ---- creation ----------------------------------------------------------------------------- */

/* An instance lies in one allocation after its is_set marks and its Storage, as
 * sart_wrapper.h has them (sart_marks_of), so that an emitted entry point reaches them at
 * constant offsets from the handle. */
static unsigned marks_count(void)
{
	unsigned nmarks = 0;
	for (int t = 0; t < SART_NTYPES; t++)
		nmarks += sart_model.nvr[t];
	return nmarks;
}

static size_t instance_offset(void)
{
	return sart_marks_space(marks_count()) + sart_storage_space(sart_model.storage_size);
}

static SartWrapper *new_instance(void)
{
	unsigned char *block = calloc(1, instance_offset() + sizeof(SartWrapper));
	if (!block)
		return NULL;
	SartWrapper *w = (SartWrapper *)(void *)(block + instance_offset());
	w->storage = sart_storage_of(w, sart_model.storage_size);
	w->is_set = sart_marks_of(w, sart_model.storage_size, marks_count());
	return w;
}

static void *instance_block(SartWrapper *w)
{
	return (unsigned char *)w - instance_offset();
}

static void free_states(SartWrapper *w)
{
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartInner *in = w->inner ? w->inner[f] : NULL;
		if (w->stacks) {
			for (unsigned k = 0; k < w->stacks[f].cap; k++)
				if (w->stacks[f].items[k].state)
					sart_inner_free_state(in, &w->stacks[f].items[k].state);
			free(w->stacks[f].items);
		}
		if (w->snap_inner && w->snap_inner[f])
			sart_inner_free_state(in, &w->snap_inner[f]);
		if (w->slot && w->slot[f])
			sart_inner_free_state(in, &w->slot[f]);
	}
}

static void wrapper_free(SartWrapper *w)
{
	if (!w)
		return;
	free_states(w);
	sart_batches_free(w);
	if (w->inner)
		for (unsigned f = 0; f < sart_model.ninners; f++)
			sart_inner_free(w->inner[f]);
	w->magic = 0;
	free(w->inner);
	free(w->plan);
	free(w->direct);
	free(w->stacks);
	free(w->snap_inner);
	free(w->slot);
	free(w->name);
	free(w->scratch);
	free(w->snap_storage);
	free(w->last);
	free(w->snap_last);
	free(w->snap_is_set);
	free(w->du);
	free(w->du_set);
	free(w->vrbuf);
	free(w->rbuf);
	free(w->ibuf);
	free(w->sbuf);
	free(w->inner_env);
	free(instance_block(w));
}

void sart_core_free(void *instance)
{
	SartWrapper *w = instance;
	if (w && w->magic == WRAPPER_MAGIC)
		wrapper_free(w);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* The Storage as after instantiation. */
static void storage_defaults(SartWrapper *w)
{
	memset(w->storage, 0, sart_model.storage_size);
	sart_model.defaults(w->storage);
}

static size_t mark_blocks(size_t n)
{
	return n / MARK_BLOCK + 1;
}

/* Every per-instance array, sized from the model; 0 when memory ran out. */
static int allocate(SartWrapper *w)
{
	const SartModel *m = &sart_model;
	unsigned nvr_total = 0, maxports = 1;
	for (int t = 0; t < SART_NTYPES; t++) {
		w->is_set_off[t] = nvr_total;
		nvr_total += m->nvr[t];
	}
	w->is_set_off[SART_NTYPES] = nvr_total;
	for (unsigned f = 0; f < m->ninners; f++)
		for (int t = 0; t < SART_NTYPES; t++)
			if (m->inners[f].in[t].n > maxports)
				maxports = m->inners[f].in[t].n;
	/* (String outputs are got into sbuf too) */
	for (unsigned f = 0; f < m->ninners; f++)
		if (m->inners[f].out[SART_STRING].n > maxports)
			maxports = m->inners[f].out[SART_STRING].n;
	size_t ssize = m->storage_size ? m->storage_size : 1;
	size_t ni = m->ninners ? m->ninners : 1;
	w->scratch = calloc(1, ssize);
	w->snap_storage = calloc(1, ssize);
	w->inner = calloc(ni, sizeof *w->inner);
	w->last = calloc(ni, sizeof *w->last);
	w->snap_last = calloc(ni, sizeof *w->snap_last);
	w->snap_inner = calloc(ni, sizeof *w->snap_inner);
	w->slot = calloc(ni, sizeof *w->slot);
	w->stacks = calloc(ni, sizeof *w->stacks);
	w->plan = calloc(ni, sizeof *w->plan);
	w->direct = calloc(ni, sizeof *w->direct);
	w->snap_is_set = calloc(mark_blocks(nvr_total), MARK_BLOCK);
	w->du = calloc(m->nreal_inputs + 1, sizeof *w->du);
	w->du_set = calloc(m->nreal_inputs + 1, 1);
	w->vrbuf = calloc(maxports, sizeof *w->vrbuf);
	w->rbuf = calloc(maxports, sizeof *w->rbuf);
	w->ibuf = calloc(maxports, sizeof *w->ibuf);
	w->sbuf = calloc(maxports, sizeof *w->sbuf);
	w->inner_env = calloc(ni, sizeof *w->inner_env);
	for (unsigned f = 0; w->inner_env && f < m->ninners; f++)
		w->inner_env[f] = (InnerEnv){w, f};
	return w->inner_env && w->sbuf && w->scratch && w->snap_storage && w->inner && w->plan &&
	       w->direct && w->last && w->snap_last && w->snap_inner && w->slot && w->stacks &&
	       w->snap_is_set && w->du && w->du_set && w->vrbuf && w->rbuf && w->ibuf;
}

SartWrapper *sart_core_new(const char *instance, const char *guid, const SartHost *host,
                           int logging_on, const SartCall *call)
{
	const SartModel *m = &sart_model;
	if (!guid || strcmp(guid, m->guid) != 0) {
		log_to(host, instance, SART_ERROR, "%s: GUID %s does not match %s's %s", call->name,
		       guid ? guid : "(null)", m->identifier, m->guid);
		return NULL;
	}
	SartWrapper *w = new_instance();
	if (!w) {
		log_to(host, instance, SART_ERROR, "%s: out of memory", call->name);
		return NULL;
	}
	w->host = *host;
	w->logging = logging_on;
	w->log_mask = CAT_ALL;
	sart_set_phase(w, SART_PHASE_INSTANTIATED);
	w->name = dup_str(instance);
	if (!w->name) {
		log_to(host, instance, SART_ERROR, "%s: out of memory", call->name);
		wrapper_free(w);
		return NULL;
	}
	w->early_t = NAN;
	w->magic = WRAPPER_MAGIC;
	return w;
}

/* Which of inner f's port groups a step visits. */
static void plan_inner(SartWrapper *w, unsigned f)
{
	const SartInnerModel *im = &sart_model.inners[f];
	Plan *pl = &w->plan[f];
	for (int t = 0; t < SART_NTYPES; t++) {
		if (im->in[t].n)
			pl->in[pl->nin++] = (unsigned char)t;
		if (im->out[t].n)
			pl->out[pl->nout++] = (unsigned char)t;
	}
	pl->only_real = !im->in[SART_INTEGER].n && !im->in[SART_BOOLEAN].n &&
	                !im->out[SART_INTEGER].n && !im->out[SART_BOOLEAN].n &&
	                !im->in[SART_STRING].n && !im->out[SART_STRING].n &&
	                !im->in[SART_BINARY].n && !im->out[SART_BINARY].n;
	pl->rin = im->in[SART_REAL].n ? &im->in[SART_REAL] : NULL;
	pl->rout = im->out[SART_REAL].n ? &im->out[SART_REAL] : NULL;
}

/* Loads inner f from <resource_dir>/<its dir or name>/ and instantiates it.  Instances of
 * one FMU file name one directory, so dlopen hands them one library (it counts the
 * references to a path it has loaded). */
static SartStatus load_inner(SartWrapper *w, const char *resource_dir, unsigned f,
                             const SartCall *call)
{
	const SartInnerModel *im = &sart_model.inners[f];
	const char *sub = im->dir ? im->dir : im->name;
	size_t len = strlen(resource_dir) + 1 + strlen(sub) + 1;
	char *inner_dir = malloc(len);
	if (!inner_dir) {
		sart_wlog(w, SART_ERROR, "%s: out of memory", call->name);
		return SART_ERROR;
	}
	snprintf(inner_dir, len, "%s/%s", resource_dir, sub);
	/* early return only when the wrapper may itself end a step early (the emitted caps say
	 * whether its rules can keep a shortened step at all) */
	unsigned caps = w->stop_early ? im->caps : im->caps & ~(unsigned)SART_CAP_EARLY_RETURN;
	SartInnerConfig cfg = {im->name, inner_dir, im->model_identifier, im->version,
	                       caps, inner_logger, &w->inner_env[f], im->vr_types, im->nvr_types,
	                       im->elements, im->nelements, im->me, im->se};
	SartStatus st = im->isolated || sart_inner_windows_only(&cfg)
	                        ? sart_load_isolated_inner(&cfg, &w->inner[f])
	                        : sart_inner_load(&cfg, &w->inner[f]);
	if ((st == SART_OK || st == SART_WARNING) && im->nintermediate_inputs > 0)
		st = sart_inner_set_intermediate_inputs(w->inner[f], im->intermediate_inputs,
		                                        im->nintermediate_inputs);
	free(inner_dir);
	if (st != SART_OK && st != SART_WARNING) {
		sart_wlog(w, SART_ERROR, "%s: cannot load inner FMU '%s'", call->name, im->name);
		return SART_ERROR;
	}
	st = sart_inner_instantiate(w->inner[f], im->guid, w->logging);
	if (st != SART_OK && st != SART_WARNING) {
		sart_wlog(w, SART_ERROR, "%s: cannot instantiate inner FMU '%s'", call->name,
		          im->name);
		return SART_ERROR;
	}
	w->direct[f] = sart_inner_direct(w->inner[f]);
	return SART_OK;
}

SartStatus sart_core_load_inners(SartWrapper *w, const char *resource_dir,
                                 const SartCall *call)
{
	const SartModel *m = &sart_model;
	if (!allocate(w) || !sart_batches_new(w)) {
		sart_wlog(w, SART_ERROR, "%s: out of memory", call->name);
		return SART_ERROR;
	}
	w->can_snapshot = m->may_reject != 0;
	for (unsigned f = 0; f < m->ninners; f++) {
		if (!(m->inners[f].caps & SART_CAP_GET_SET_STATE))
			w->can_snapshot = 0;
		plan_inner(w, f);
		if (load_inner(w, resource_dir, f, call) != SART_OK)
			return SART_ERROR;
	}
	storage_defaults(w);
	w->fast = sart_fast_step_enabled();
	/* the emitted fast step calls each inner through its direct route; the emitter gives
	 * none to a wrapper with an isolated inner, and this guards hand-written models */
	for (unsigned f = 0; f < m->ninners; f++)
		if (!w->direct[f])
			w->fast = 0;
	w->route.direct = w->direct;
	w->route.last = w->last;
	sart_batches_start(w);
	sart_refresh_plain(w);
	return SART_OK;
}

/* ---- the life cycle ----------------------------------------------------------------------- */

SartStatus sart_core_setup_experiment(SartWrapper *w, const SartExperiment *ex,
                                      const SartCall *call)
{
	if (!isfinite(ex->start_time) || (ex->stop_time_defined && !(ex->stop_time >= ex->start_time))) {
		sart_wlog(w, SART_ERROR, "%s: invalid start time %s or stop time %s", call->name,
		          SART_NUM(ex->start_time), SART_NUM(ex->stop_time));
		return SART_ERROR;
	}
	w->ex = *ex;
	w->time = ex->start_time;
	w->last_ok = ex->start_time;
	return SART_OK;
}

SartStatus sart_core_enter_init(SartWrapper *w, const SartCall *call)
{
	SartStatus st = sart_guarded(w, sart_push_inner_params);
	if (st >= SART_ERROR)
		return sart_settle(w, st);
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus s = sart_inner_enter_init(w->inner[f], &w->ex);
		if (s >= SART_ERROR)
			sart_wlog(w, s, "%s: inner FMU '%s' failed: %s", call->name,
			          sart_model.inners[f].name, sart_inner_message(w->inner[f]));
		st = worst(st, s);
	}
	if (st >= SART_ERROR)
		return sart_settle(w, st);
	for (unsigned f = 0; f < sart_model.ninners; f++)
		w->last[f] = w->time;
	w->g_dirty = 0;
	w->g_valid = 0;
	sart_set_phase(w, SART_PHASE_INIT);
	return st;
}

/* The Init sequence (sart_wrapper.h), then the inners leave initialization mode and their
 * outputs are read again (many FMUs compute them only on leaving it: an integrator's state
 * from its start parameter, an FMU whose initial event changes them), then Out. */
static void init_body(SartWrapper *w)
{
	unsigned char *s = w->storage;
	w->step_t = w->time;
	w->step_H = 0.0;
	/* Again: the importer may have set params in initialization mode. */
	sart_push_inner_params(w);
	if (!sart_has_failed(w))
		sart_model.initial(w, s, w->time, 0.0);
	if (!sart_has_failed(w))
		sart_model.in(w, s, w->time, 0.0);
	sart_visit_inners(w, s);
	for (unsigned f = 0; f < sart_model.ninners && !sart_has_failed(w); f++)
		sart_check_inner(w, sart_inner_exit_init(w->inner[f]), f,
		                 "leaving initialization mode");
	sart_visit_inners(w, s);
	if (!sart_has_failed(w))
		sart_model.out(w, s, w->time, 0.0);
}

SartStatus sart_core_exit_init(SartWrapper *w, const SartCall *call)
{
	(void)call;
	SartStatus st = sart_guarded(w, init_body);
	if (st >= SART_ERROR)
		return sart_settle(w, st);
	sart_clear_marks(w);
	w->g_dirty = 0;
	w->g_valid = 0;
	sart_set_phase(w, SART_PHASE_STEP);
	return st;
}

SartStatus sart_core_terminate(SartWrapper *w, const SartCall *call)
{
	SartStatus st = SART_OK;
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus s = sart_inner_terminate(w->inner[f]);
		if (s >= SART_ERROR)
			sart_wlog(w, s, "%s: inner FMU '%s' failed: %s", call->name,
			          sart_model.inners[f].name, sart_inner_message(w->inner[f]));
		st = worst(st, s);
	}
	if (st >= SART_ERROR)
		return sart_settle(w, st);
	sart_set_phase(w, SART_PHASE_TERMINATED);
	return st;
}

SartStatus sart_core_reset(SartWrapper *w, const SartCall *call)
{
	SartStatus st = SART_OK;
	for (unsigned f = 0; f < sart_model.ninners; f++) {
		SartStatus s = sart_inner_reset(w->inner[f]);
		if (s >= SART_ERROR)
			sart_wlog(w, s, "%s: inner FMU '%s' failed: %s", call->name,
			          sart_model.inners[f].name, sart_inner_message(w->inner[f]));
		st = worst(st, s);
		w->stacks[f].n = 0;
		w->last[f] = 0.0;
	}
	if (st >= SART_ERROR)
		return sart_settle(w, st);
	storage_defaults(w);
	memset(&w->ex, 0, sizeof w->ex);
	sart_clear_marks(w);
	memset(w->du, 0, sart_model.nreal_inputs * sizeof *w->du);
	memset(w->du_set, 0, sart_model.nreal_inputs);
	w->time = 0.0;
	w->last_ok = 0.0;
	w->g_dirty = 0;
	w->g_valid = 0;
	sart_set_phase(w, SART_PHASE_INSTANTIATED);
	return st;
}

/* ---- G ------------------------------------------------------------------------------------ */

/* G (Mealy only): In, the inners in order, Out, on the scratch copy. */
static void g_body(SartWrapper *w)
{
	memcpy(w->scratch, w->storage, sart_model.storage_size);
	w->step_t = w->time;
	w->step_H = 0.0;
	sart_model.in(w, w->scratch, w->time, 0.0);
	sart_visit_inners(w, w->scratch);
	if (!sart_has_failed(w))
		sart_model.out(w, w->scratch, w->time, 0.0);
}

/* In initialization mode the outputs are the Init sequence's, run on the scratch copy with
 * the initial values computed from the params as they are now: an importer (or an outer
 * wrapper running its own Init) reads calculated initial outputs, not defaults. */
static void init_g_body(SartWrapper *w)
{
	sart_push_inner_params(w);
	memcpy(w->scratch, w->storage, sart_model.storage_size);
	w->step_t = w->time;
	w->step_H = 0.0;
	if (!sart_has_failed(w))
		sart_model.initial(w, w->scratch, w->time, 0.0);
	if (!sart_has_failed(w))
		sart_model.in(w, w->scratch, w->time, 0.0);
	sart_visit_inners(w, w->scratch);
	if (!sart_has_failed(w))
		sart_model.out(w, w->scratch, w->time, 0.0);
}

SartStatus sart_run_g(SartWrapper *w, const SartCall *call)
{
	SartStatus st = sart_guarded(w, w->phase == SART_PHASE_INIT ? init_g_body : g_body);
	if (st >= SART_ERROR) {
		w->g_valid = 0;
		sart_wlog(w, st, "%s: computing the outputs from the new inputs failed", call->name);
		return sart_settle(w, st);
	}
	w->g_dirty = 0;
	w->g_valid = 1;
	return st;
}

double sart_core_last_successful_time(const SartWrapper *w)
{
	return w->last_ok;
}

void sart_core_set_stop_early(SartWrapper *w, int on)
{
	w->stop_early = on;
}
