/* me_core.c — the Model Exchange test FMUs' version-free core (see me_core.h): variables,
 * the mode changes, event iteration bookkeeping, FMU states, and the fixed-step RK4 that
 * gives some models a Co-Simulation interface too.  The skins check each call's mode first. */
#include "me_core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char me_state_magic[8] = {'m', 'e', 'f', 'm', 'u', 's', 't', '1'};

const char *me_mode_name(int mode)
{
	switch (mode) {
	case ME_INSTANTIATED: return "Instantiated";
	case ME_INIT: return "Initialization Mode";
	case ME_EVENT: return "Event Mode";
	case ME_CONTINUOUS: return "Continuous-Time Mode";
	case ME_STEP: return "Step Mode";
	case ME_TERMINATED: return "Terminated";
	default: return "an unknown mode";
	}
}

void me_logf(MeInstance *m, MeStatus status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	/* Errors and warnings always reach the importer; information only when asked for. */
	if (!m->log || (status == ME_OK && !m->logging_on))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	m->log(m->skin_env, status, status == ME_OK ? "logEvents" : "logStatusError", msg);
}

int me_allowed(MeInstance *m, const char *fn, int allowed)
{
	if (m->d.mode & allowed)
		return 1;
	me_logf(m, ME_ERROR, "%s: not allowed in %s", fn, me_mode_name(m->d.mode));
	return 0;
}

static void me_start_values(MeInstance *m)
{
	const MeModel *md = m->model;
	for (size_t k = 0; k < md->n_reals; k++)
		m->d.r[md->reals[k].vr] = md->reals[k].start;
	for (size_t k = 0; k < md->n_ints; k++)
		m->d.i[md->ints[k].vr - ME_INT_BASE] = (int)md->ints[k].start;
}

MeInstance *me_new(const char *name, int is_cs, MeLogFn log, void *skin_env)
{
	MeInstance *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->name = malloc(strlen(name) + 1);
	if (!m->name) {
		free(m);
		return NULL;
	}
	strcpy(m->name, name);
	m->model = &me_model;
	m->log = log;
	m->skin_env = skin_env;
	m->d.is_cs = is_cs;
	me_reset(m);
	return m;
}

void me_free(MeInstance *m)
{
	if (!m)
		return;
	free(m->name);
	free(m);
}

void me_reset(MeInstance *m)
{
	int is_cs = m->d.is_cs;
	memset(&m->d, 0, sizeof m->d);
	m->d.is_cs = is_cs;
	m->d.mode = ME_INSTANTIATED;
	me_start_values(m);
}

int me_wrong_interface(MeInstance *m, const char *fn, int want_cs)
{
	if (m->d.is_cs == want_cs)
		return 0;
	me_logf(m, ME_ERROR, "%s: not a function of %s", fn,
	        m->d.is_cs ? "Co-Simulation" : "Model Exchange");
	return 1;
}

MeStatus me_no_such_type(MeInstance *m, const char *fn, size_t nvr, const unsigned vr[])
{
	if (nvr == 0)
		return ME_OK;
	me_logf(m, ME_ERROR, "%s: no variable of this type has value reference %u", fn, vr[0]);
	return ME_ERROR;
}

/* The model's evaluate, with its failure reported. */
static MeStatus me_evaluate(MeInstance *m, const char *fn)
{
	if (m->model->evaluate(m) != 0) {
		me_logf(m, ME_ERROR, "%s: the model failed to evaluate at t = %g", fn, m->d.time);
		return ME_ERROR;
	}
	return ME_OK;
}

MeStatus me_enter_init(MeInstance *m, const char *fn, double start_time)
{
	(void)fn;
	m->d.time = start_time;
	m->d.mode = ME_INIT;
	return ME_OK;
}

MeStatus me_exit_init(MeInstance *m, const char *fn)
{
	MeEventInfo e;
	memset(&e, 0, sizeof e);
	if (m->model->initialize)
		m->model->initialize(m, &e);
	m->d.last = e;
	m->d.mode = m->d.is_cs ? ME_STEP : ME_EVENT;
	return me_evaluate(m, fn);
}

MeStatus me_enter_event_mode(MeInstance *m, const char *fn)
{
	(void)fn;
	m->d.mode = ME_EVENT;
	return ME_OK;
}

/* The input clocks after an event iteration has seen them (all: on leaving Event Mode). */
static void deactivate_clocks(MeInstance *m, int all)
{
	for (size_t i = 0; i < m->model->n_clocks && i < ME_MAX_CLOCKS; i++)
		if (all || !m->model->clocks[i].output)
			m->d.clock_active[i] = 0;
}

MeStatus me_update_discrete(MeInstance *m, const char *fn, MeEventInfo *out)
{
	MeEventInfo e;
	MeStatus s = me_evaluate(m, fn);
	if (s != ME_OK)
		return s;
	memset(&e, 0, sizeof e);
	if (m->model->event_update)
		m->model->event_update(m, &e);
	deactivate_clocks(m, 0);
	m->d.last = e;
	if (e.terminate_simulation)
		me_logf(m, ME_OK, "%s: the model asks to terminate at t = %g", fn, m->d.time);
	*out = e;
	return me_evaluate(m, fn);
}

MeStatus me_enter_continuous(MeInstance *m, const char *fn)
{
	(void)fn;
	deactivate_clocks(m, 1);
	m->d.mode = ME_CONTINUOUS;
	return ME_OK;
}

MeStatus me_completed_step(MeInstance *m, const char *fn, int *enter_event, int *terminate)
{
	(void)fn;
	/* No step events: events come from indicators and nextEventTime only. */
	*enter_event = 0;
	*terminate = 0;
	(void)m;
	return ME_OK;
}

MeStatus me_set_time(MeInstance *m, const char *fn, double t)
{
	if (!isfinite(t)) {
		me_logf(m, ME_ERROR, "%s: time %g is not finite", fn, t);
		return ME_ERROR;
	}
	m->d.time = t;
	return ME_OK;
}

static MeStatus me_check_count(MeInstance *m, const char *fn, const char *what, size_t n,
                               size_t want)
{
	if (n == want)
		return ME_OK;
	me_logf(m, ME_ERROR, "%s: %zu %s given, the model has %zu", fn, n, what, want);
	return ME_ERROR;
}

MeStatus me_set_states(MeInstance *m, const char *fn, const double x[], size_t n)
{
	const MeModel *md = m->model;
	if (me_check_count(m, fn, "states", n, md->n_states) != ME_OK)
		return ME_ERROR;
	for (size_t k = 0; k < n; k++)
		m->d.r[md->state_vr[k]] = x[k];
	return ME_OK;
}

MeStatus me_get_states(MeInstance *m, const char *fn, double x[], size_t n)
{
	const MeModel *md = m->model;
	if (me_check_count(m, fn, "states", n, md->n_states) != ME_OK)
		return ME_ERROR;
	for (size_t k = 0; k < n; k++)
		x[k] = m->d.r[md->state_vr[k]];
	return ME_OK;
}

MeStatus me_get_derivatives(MeInstance *m, const char *fn, double dx[], size_t n)
{
	const MeModel *md = m->model;
	if (me_check_count(m, fn, "derivatives", n, md->n_states) != ME_OK)
		return ME_ERROR;
	if (me_evaluate(m, fn) != ME_OK)
		return ME_ERROR;
	for (size_t k = 0; k < n; k++)
		dx[k] = m->d.r[md->der_vr[k]];
	return ME_OK;
}

MeStatus me_get_indicators(MeInstance *m, const char *fn, double z[], size_t n)
{
	const MeModel *md = m->model;
	if (me_check_count(m, fn, "event indicators", n, md->n_indicators) != ME_OK)
		return ME_ERROR;
	if (n > 0)
		md->indicators(m, z);
	return ME_OK;
}

MeStatus me_get_nominals(MeInstance *m, const char *fn, double nom[], size_t n)
{
	const MeModel *md = m->model;
	if (me_check_count(m, fn, "nominals", n, md->n_states) != ME_OK)
		return ME_ERROR;
	if (md->nominals) {
		md->nominals(m, nom);
	} else {
		for (size_t k = 0; k < n; k++)
			nom[k] = 1.0;
	}
	return ME_OK;
}

MeStatus me_terminate(MeInstance *m, const char *fn)
{
	(void)fn;
	m->d.mode = ME_TERMINATED;
	return ME_OK;
}

/* ---- variables --------------------------------------------------------------------------- */

static const MeVar *me_find(const MeVar *vars, size_t n, unsigned vr)
{
	for (size_t k = 0; k < n; k++)
		if (vars[k].vr == vr)
			return &vars[k];
	return NULL;
}

/* May v be set in the current mode?  Logs why not. */
static int me_settable(MeInstance *m, const char *fn, const MeVar *v)
{
	int allowed = 0;
	switch (v->kind) {
	case ME_TIME:
	case ME_CALCULATED: allowed = 0; break;
	case ME_PARAMETER:
	case ME_STATE: allowed = ME_INSTANTIATED | ME_INIT; break;
	case ME_TUNABLE:
	case ME_DISCRETE_INPUT: allowed = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_STEP; break;
	case ME_INPUT:
		allowed = ME_INSTANTIATED | ME_INIT | ME_EVENT | ME_CONTINUOUS | ME_STEP;
		break;
	}
	if (m->d.mode & allowed)
		return 1;
	if (allowed == 0)
		me_logf(m, ME_ERROR, "%s: variable %s (value reference %u) cannot be set", fn,
		        v->name, v->vr);
	else
		me_logf(m, ME_ERROR, "%s: variable %s (value reference %u) cannot be set in %s", fn,
		        v->name, v->vr, me_mode_name(m->d.mode));
	return 0;
}

static MeStatus me_unknown_vr(MeInstance *m, const char *fn, unsigned vr)
{
	me_logf(m, ME_ERROR, "%s: no variable of this type has value reference %u", fn, vr);
	return ME_ERROR;
}

MeStatus me_get_real(MeInstance *m, const char *fn, const unsigned vr[], size_t n, double v[])
{
	const MeModel *md = m->model;
	/* Outputs and derivatives follow time, states and inputs; nothing is cached. */
	if (m->d.mode != ME_INSTANTIATED && me_evaluate(m, fn) != ME_OK)
		return ME_ERROR;
	for (size_t k = 0; k < n; k++) {
		if (!me_find(md->reals, md->n_reals, vr[k]))
			return me_unknown_vr(m, fn, vr[k]);
		v[k] = vr[k] == 0 ? m->d.time : m->d.r[vr[k]];
	}
	return ME_OK;
}

MeStatus me_set_real(MeInstance *m, const char *fn, const unsigned vr[], size_t n, const double v[])
{
	const MeModel *md = m->model;
	for (size_t k = 0; k < n; k++) {
		const MeVar *var = me_find(md->reals, md->n_reals, vr[k]);
		if (!var)
			return me_unknown_vr(m, fn, vr[k]);
		if (!me_settable(m, fn, var))
			return ME_ERROR;
		m->d.r[vr[k]] = v[k];
	}
	return ME_OK;
}

MeStatus me_get_int(MeInstance *m, const char *fn, const unsigned vr[], size_t n, int v[])
{
	const MeModel *md = m->model;
	for (size_t k = 0; k < n; k++) {
		if (!me_find(md->ints, md->n_ints, vr[k]))
			return me_unknown_vr(m, fn, vr[k]);
		v[k] = m->d.i[vr[k] - ME_INT_BASE];
	}
	return ME_OK;
}

MeStatus me_set_int(MeInstance *m, const char *fn, const unsigned vr[], size_t n, const int v[])
{
	const MeModel *md = m->model;
	for (size_t k = 0; k < n; k++) {
		const MeVar *var = me_find(md->ints, md->n_ints, vr[k]);
		if (!var)
			return me_unknown_vr(m, fn, vr[k]);
		if (!me_settable(m, fn, var))
			return ME_ERROR;
		m->d.i[vr[k] - ME_INT_BASE] = v[k];
	}
	return ME_OK;
}

MeStatus me_directional(MeInstance *m, const char *fn, const unsigned of[], size_t n_of,
                        const unsigned wrt[], size_t n_wrt, const double seed[], double out[])
{
	const MeModel *md = m->model;
	if (!md->partial) {
		me_logf(m, ME_ERROR, "%s: this model provides no directional derivatives", fn);
		return ME_ERROR;
	}
	for (size_t i = 0; i < n_of; i++) {
		out[i] = 0.0;
		for (size_t j = 0; j < n_wrt; j++) {
			double d;
			if (md->partial(m, of[i], wrt[j], &d) != 0) {
				me_logf(m, ME_ERROR,
				        "%s: no derivative of value reference %u with respect to %u", fn,
				        of[i], wrt[j]);
				return ME_ERROR;
			}
			out[i] += d * seed[j];
		}
	}
	return ME_OK;
}

/* ---- Co-Simulation ----------------------------------------------------------------------- */

/* f(t, x) through the model: states written in, derivatives read out. */
static int me_rhs(MeInstance *m, double t, const double x[], double dx[])
{
	const MeModel *md = m->model;
	m->d.time = t;
	for (size_t k = 0; k < md->n_states; k++)
		m->d.r[md->state_vr[k]] = x[k];
	if (md->evaluate(m) != 0)
		return 1;
	for (size_t k = 0; k < md->n_states; k++)
		dx[k] = m->d.r[md->der_vr[k]];
	return 0;
}

/* One classic RK4 step of size h from (t, x), into x. */
static int me_rk4(MeInstance *m, double t, double h, double x[])
{
	size_t n = m->model->n_states;
	double k1[ME_MAX_STATES], k2[ME_MAX_STATES], k3[ME_MAX_STATES], k4[ME_MAX_STATES];
	double y[ME_MAX_STATES];
	if (me_rhs(m, t, x, k1))
		return 1;
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] + 0.5 * h * k1[i];
	if (me_rhs(m, t + 0.5 * h, y, k2))
		return 1;
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] + 0.5 * h * k2[i];
	if (me_rhs(m, t + 0.5 * h, y, k3))
		return 1;
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] + h * k3[i];
	if (me_rhs(m, t + h, y, k4))
		return 1;
	for (size_t i = 0; i < n; i++)
		x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
	return 0;
}

MeStatus me_do_step(MeInstance *m, const char *fn, double t, double h, int *event_needed,
                    int *terminate)
{
	const MeModel *md = m->model;
	double x[ME_MAX_STATES];
	double end = t + h;
	*event_needed = 0;
	*terminate = 0;
	if (!(h > 0.0)) {
		me_logf(m, ME_ERROR, "%s: communication step size %g is not positive", fn, h);
		return ME_ERROR;
	}
	if (fabs(t - m->d.time) > 1e-9 * fmax(1.0, fabs(t))) {
		me_logf(m, ME_ERROR, "%s: the step starts at %g, the FMU stands at %g", fn, t,
		        m->d.time);
		return ME_ERROR;
	}
	for (size_t k = 0; k < md->n_states; k++)
		x[k] = m->d.r[md->state_vr[k]];
	/* Fixed internal steps of cs_step, the last one shortened to land on the end. */
	for (long k = 0;; k++) {
		double a = t + (double)k * md->cs_step;
		double b = fmin(a + md->cs_step, end);
		if (end - a <= 1e-12 * fmax(1.0, fabs(end)))
			break;
		if (me_rk4(m, a, b - a, x)) {
			me_logf(m, ME_ERROR, "%s: the model failed to evaluate at t = %g", fn, a);
			return ME_ERROR;
		}
	}
	for (size_t k = 0; k < md->n_states; k++)
		m->d.r[md->state_vr[k]] = x[k];
	m->d.time = end;
	return me_evaluate(m, fn);
}

/* ---- FMU states -------------------------------------------------------------------------- */

MeStatus me_get_state(MeInstance *m, const char *fn, void **state)
{
	MeData *copy;
	if (!state) {
		me_logf(m, ME_ERROR, "%s: no place for the state given", fn);
		return ME_ERROR;
	}
	/* An existing state is overwritten in place, as the standard allows. */
	copy = *state ? *state : malloc(sizeof *copy);
	if (!copy) {
		me_logf(m, ME_ERROR, "%s: out of memory", fn);
		return ME_ERROR;
	}
	memcpy(copy, &m->d, sizeof m->d); /* padding too: serialized bytes are all defined */
	*state = copy;
	return ME_OK;
}

MeStatus me_set_state(MeInstance *m, const char *fn, const void *state)
{
	if (!state) {
		me_logf(m, ME_ERROR, "%s: no state given", fn);
		return ME_ERROR;
	}
	memcpy(&m->d, state, sizeof m->d);
	return ME_OK;
}

MeStatus me_free_state(MeInstance *m, const char *fn, void **state)
{
	(void)m, (void)fn;
	if (state) {
		free(*state);
		*state = NULL;
	}
	return ME_OK;
}

size_t me_serialized_size(void)
{
	return sizeof me_state_magic + sizeof(MeData);
}

MeStatus me_serialize(MeInstance *m, const char *fn, const void *state, unsigned char *buf,
                      size_t size)
{
	if (!state || size != me_serialized_size()) {
		me_logf(m, ME_ERROR, "%s: %s", fn,
		        state ? "the buffer's size is not the serialized state's" : "no state given");
		return ME_ERROR;
	}
	memcpy(buf, me_state_magic, sizeof me_state_magic);
	memcpy(buf + sizeof me_state_magic, state, sizeof(MeData));
	return ME_OK;
}

MeStatus me_deserialize(MeInstance *m, const char *fn, const unsigned char *buf, size_t size,
                        void **state)
{
	MeData *copy;
	if (size != me_serialized_size() || memcmp(buf, me_state_magic, sizeof me_state_magic)) {
		me_logf(m, ME_ERROR, "%s: these %zu bytes are not a state of this FMU", fn, size);
		return ME_ERROR;
	}
	copy = *state ? *state : malloc(sizeof *copy);
	if (!copy) {
		me_logf(m, ME_ERROR, "%s: out of memory", fn);
		return ME_ERROR;
	}
	memcpy(copy, buf + sizeof me_state_magic, sizeof *copy);
	*state = copy;
	return ME_OK;
}

/* ---- clocks ------------------------------------------------------------------------------ */

static long clock_index(const MeInstance *m, unsigned vr)
{
	for (size_t i = 0; i < m->model->n_clocks && i < ME_MAX_CLOCKS; i++)
		if (m->model->clocks[i].vr == vr)
			return (long)i;
	return -1;
}

/* The clocks' indices for a call on vr[n], each checked; -1 after logging why not. */
static long checked_clock(MeInstance *m, const char *fn, unsigned vr, int want_input,
                          int want_periodic)
{
	long k = clock_index(m, vr);
	if (k < 0) {
		me_logf(m, ME_ERROR, "%s: value reference %u is not a clock", fn, vr);
		return -1;
	}
	const MeClock *c = &m->model->clocks[k];
	if (want_input && c->output) {
		me_logf(m, ME_ERROR, "%s: clock '%s' is an output clock", fn, c->name);
		return -1;
	}
	if (want_periodic && !(c->interval > 0)) {
		me_logf(m, ME_ERROR, "%s: clock '%s' is not periodic", fn, c->name);
		return -1;
	}
	return k;
}

MeStatus me_get_clock(MeInstance *m, const char *fn, const unsigned vr[], size_t n, int v[])
{
	for (size_t i = 0; i < n; i++)
		if (checked_clock(m, fn, vr[i], 0, 0) < 0)
			return ME_ERROR;
	for (size_t i = 0; i < n; i++) {
		long k = clock_index(m, vr[i]);
		v[i] = m->d.clock_active[k];
		if (m->model->clocks[k].output)
			m->d.clock_active[k] = 0; /* a tick is reported once */
	}
	return ME_OK;
}

MeStatus me_set_clock(MeInstance *m, const char *fn, const unsigned vr[], size_t n,
                      const int v[])
{
	for (size_t i = 0; i < n; i++)
		if (checked_clock(m, fn, vr[i], 1, 0) < 0)
			return ME_ERROR;
	for (size_t i = 0; i < n; i++)
		m->d.clock_active[clock_index(m, vr[i])] = v[i] != 0;
	return ME_OK;
}

MeStatus me_clock_timing(MeInstance *m, const char *fn, const unsigned vr[], size_t n,
                         double out[], int interval)
{
	for (size_t i = 0; i < n; i++)
		if (checked_clock(m, fn, vr[i], 1, 1) < 0)
			return ME_ERROR;
	for (size_t i = 0; i < n; i++) {
		const MeClock *c = &m->model->clocks[clock_index(m, vr[i])];
		out[i] = interval ? c->interval : c->shift;
	}
	return ME_OK;
}

int me_clock_active(const MeInstance *m, unsigned vr)
{
	long k = clock_index(m, vr);
	return k >= 0 && m->d.clock_active[k];
}

void me_clock_tick(MeInstance *m, unsigned vr)
{
	long k = clock_index(m, vr);
	if (k >= 0)
		m->d.clock_active[k] = 1;
}
