/* sart_master.c — sart_master_run: the options checked, the run set up (signals, per-FMU
 * tables, loops), the FMUs instantiated and initialized (values propagated in the port
 * graph's order, loops solved), then the macro-step loop; and the values in and out of
 * the FMUs that every path shares: signals read, inputs computed (held, extrapolated,
 * interpolated) and set, one FMU stepped, failures reported.  sart_master_internal.h
 * says which other file holds what. */
#include "sart_master_internal.h"
#include "sart_numfmt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void flush_pending(Master *m)
{
	if (m->has_pending && m->o->logger)
		m->o->logger(m->o->logger_env, m->pending_status, m->pending_category, m->pending);
	m->has_pending = 0;
}

/* A message as the run's logger gets it.  Messages with an error status are held back one
 * message: when the seam's report of a failed call becomes the run's own message, it is
 * not said twice. */
void master_log_now(Master *m, SartStatus st, const char *category, const char *message)
{
	flush_pending(m);
	if (st >= SART_ERROR) {
		snprintf(m->pending, sizeof m->pending, "%s", message);
		snprintf(m->pending_category, sizeof m->pending_category, "%s", category);
		m->pending_status = st;
		m->has_pending = 1;
		return;
	}
	if (m->o->logger)
		m->o->logger(m->o->logger_env, st, category, message);
}

/* Copies s, or NULL. */
static char *copy_text(const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	char *c = malloc(n);
	if (c)
		memcpy(c, s ? s : "", n);
	return c;
}

/* Every FMU's logger.  While its FMU steps on the worker pool, a message is kept in the
 * FMU's own list (only that FMU's thread writes it), to be replayed in FMU order. */
static void master_log(void *env, SartStatus st, const char *category, const char *message)
{
	FmuLog *lg = env;
	if (!lg->buffering) {
		master_log_now(lg->m, st, category, message);
		return;
	}
	if (lg->n == lg->cap) {
		int cap = lg->cap ? 2 * lg->cap : 8;
		LogEntry *e = realloc(lg->e, (size_t)cap * sizeof *e);
		if (!e) {
			lg->lost++;
			return;
		}
		lg->e = e;
		lg->cap = cap;
	}
	LogEntry *e = &lg->e[lg->n];
	e->status = st;
	e->category = copy_text(category);
	e->message = copy_text(message);
	if (!e->category || !e->message) {
		free(e->category);
		free(e->message);
		lg->lost++;
		return;
	}
	lg->n++;
}

/* The run's failure: the first one only is kept, and logged. */
int master_fail(Master *m, const char *fmt, ...)
{
	va_list ap;
	flush_pending(m);
	if (m->failed)
		return 1;
	m->failed = 1;
	va_start(ap, fmt);
	vsnprintf(m->res->message, sizeof m->res->message, fmt, ap);
	va_end(ap);
	if (m->o->logger)
		m->o->logger(m->o->logger_env, SART_ERROR, "logStatusError", m->res->message);
	return 1;
}

/* A failed FMU call: the seam's message (FMU, call, and for steps the time), with the
 * master's time when the call itself does not carry it. */
int master_fail_call(Master *m, int f, double t)
{
	const char *msg = sart_inner_message(m->f[f].in);
	if (m->has_pending && strcmp(m->pending, msg) == 0)
		m->has_pending = 0;
	if (strstr(msg, "DoStep(t = ")) /* the seam's report of a step names its time */
		return master_fail(m, "%s", msg);
	return master_fail(m, "at t = %s: %s", SART_NUM(t), msg);
}

/* The first FMU that cannot get and set its state, or -1 when every one can. */
static int stateless_fmu(const SartScenario *sc)
{
	for (int f = 0; f < sc->nfmus; f++)
		if (!(sc->fmus[f].caps & SART_CAP_GET_SET_STATE))
			return f;
	return -1;
}

/* The signal of variable r, made when r has none yet.  slot[vbase[f] + var] is the signal
 * of each variable (-1: none yet), so that ten thousand FMUs' signals are found in
 * constant time; a reference to no variable (the analysis and the checks before refuse
 * them) would be looked for in the list, as before. */
static int sig_index(Master *m, SartRef r, int *slot, const int *vbase)
{
	int *p = valid_ref(m->sc, r) ? &slot[vbase[r.fmu] + r.var] : NULL;
	if (p && *p >= 0)
		return *p;
	for (int s = 0; !p && s < m->nsig; s++)
		if (m->sig[s].fmu == r.fmu && m->sig[s].var == r.var)
			return s;
	if (p)
		*p = m->nsig;
	m->sig[m->nsig] = r;
	return m->nsig++;
}

/* A signal's place in the order the FMUs read them: by FMU, then by type (a type that is
 * no signal's, refused before a run gets here, goes with the last). */
static int sig_key(const Master *m, SartRef r)
{
	int ty = (int)var_of(m->sc, r)->type;
	return r.fmu * NTYPES + (ty >= 0 && ty < NTYPES ? ty : NTYPES - 1);
}

/* prepare_signals' first part: the signal of every connection's source, recorded variable
 * and event indicator (sig_index over slot and vbase); the String connections checked. */
static int signals_found(Master *m, int *slot, const int *vbase)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	for (int c = 0; c < sc->nconns; c++) {
		m->conn_sig[c] = sig_index(m, sc->conns[c].src, slot, vbase);
		m->sig_exchanged[m->conn_sig[c]] = 1;
	}
	for (int r = 0; r < sc->nrecords; r++) {
		if (!valid_ref(sc, sc->records[r]))
			return master_fail(m, "recorded variable %d does not exist", r + 1);
		const SartVar *v = var_of(sc, sc->records[r]);
		if (v->type == SART_OTHER)
			return master_fail(m, "%s.%s cannot be recorded: only Real, Integer and Boolean "
			                   "variables are", sc->fmus[sc->records[r].fmu].name, v->name);
		m->rec_sig[r] = sig_index(m, sc->records[r], slot, vbase);
	}
	for (int c = 0; c < o->nstring_conns; c++) {
		const SartConnection *cn = &o->string_conns[c];
		if (!valid_ref(sc, cn->src) || !valid_ref(sc, cn->dst) ||
		    var_of(sc, cn->src)->causality != SART_CAUS_OUTPUT ||
		    var_of(sc, cn->dst)->causality != SART_CAUS_INPUT)
			return master_fail(m, "String connection %d does not go from an output to an "
			                   "input", c + 1);
		for (int d = 0; d < c; d++)
			if (o->string_conns[d].dst.fmu == cn->dst.fmu &&
			    o->string_conns[d].dst.var == cn->dst.var)
				return master_fail(m, "input %s.%s is fed by more than one connection",
				                   sc->fmus[cn->dst.fmu].name, var_of(sc, cn->dst)->name);
	}
	m->ind_sig = m->o->locate_events ? sig_index(m, m->o->event_indicator, slot, vbase) : -1;
	return 0;
}

/* prepare_signals' second part: the signals numbered by FMU, then by type, so each FMU
 * reads a consecutive range, in the order they were found within each (a counting sort:
 * linear in the signals, however many FMUs). */
static int number_signals(Master *m)
{
	const SartScenario *sc = m->sc;
	int nkeys = sc->nfmus * NTYPES;
	int *newidx = malloc(((size_t)m->nsig + 1) * sizeof *newidx);
	SartRef *sig2 = malloc(((size_t)m->nsig + 1) * sizeof *sig2);
	int *exch2 = malloc(((size_t)m->nsig + 1) * sizeof *exch2);
	int *at = calloc((size_t)nkeys + 1, sizeof *at);
	if (!newidx || !sig2 || !exch2 || !at) {
		free(newidx);
		free(sig2);
		free(exch2);
		free(at);
		return master_fail(m, "out of memory");
	}
	for (int s = 0; s < m->nsig; s++)
		at[sig_key(m, m->sig[s]) + 1]++;
	for (int key = 0; key < nkeys; key++)
		at[key + 1] += at[key];
	for (int s = 0; s < m->nsig; s++) {
		int k = at[sig_key(m, m->sig[s])]++;
		newidx[s] = k;
		sig2[k] = m->sig[s];
		exch2[k] = m->sig_exchanged[s];
	}
	free(at);
	memcpy(m->sig, sig2, (size_t)m->nsig * sizeof *sig2);
	memcpy(m->sig_exchanged, exch2, (size_t)m->nsig * sizeof *exch2);
	for (int c = 0; c < sc->nconns; c++)
		m->conn_sig[c] = newidx[m->conn_sig[c]];
	for (int r = 0; r < sc->nrecords; r++)
		m->rec_sig[r] = newidx[m->rec_sig[r]];
	if (m->ind_sig >= 0)
		m->ind_sig = newidx[m->ind_sig];
	free(newidx);
	free(sig2);
	free(exch2);
	return 0;
}

/* The signals: every connection's source, every recorded variable and the event
 * indicator, numbered by FMU, then by type, so that each FMU reads a consecutive range;
 * the arrays of their values. */
static int prepare_signals(Master *m)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	int maxsig = sc->nconns + sc->nrecords + 1; /* + the event indicator */
	m->f = calloc((size_t)sc->nfmus + 1, sizeof *m->f);
	m->sig = malloc(((size_t)maxsig + 1) * sizeof *m->sig);
	m->sig_exchanged = calloc((size_t)maxsig + 1, sizeof *m->sig_exchanged);
	m->prev = calloc((size_t)maxsig + 1, sizeof *m->prev);
	m->prev2 = calloc((size_t)maxsig + 1, sizeof *m->prev2);
	m->dnow = calloc((size_t)maxsig + 1, sizeof *m->dnow);
	m->dnext = calloc((size_t)maxsig + 1, sizeof *m->dnext);
	m->now = calloc((size_t)maxsig + 1, sizeof *m->now);
	m->next = calloc((size_t)maxsig + 1, sizeof *m->next);
	m->conn_sig = malloc(((size_t)sc->nconns + 1) * sizeof *m->conn_sig);
	m->rec_sig = malloc(((size_t)sc->nrecords + 1) * sizeof *m->rec_sig);
	m->row = calloc((size_t)sc->nrecords + 1, sizeof *m->row);
	m->srow = calloc((size_t)o->nstring_records + 1, sizeof *m->srow);
	/* vbase[f]: where FMU f's variables start in slot (sig_index) */
	int *vbase = malloc(((size_t)sc->nfmus + 1) * sizeof *vbase);
	size_t nvars = 0;
	for (int f = 0; vbase && f < sc->nfmus; f++) {
		vbase[f] = (int)nvars;
		nvars += (size_t)sc->fmus[f].nvars;
	}
	int *slot = vbase && nvars < INT_MAX ? malloc((nvars + 1) * sizeof *slot) : NULL;
	if (!m->f || !m->sig || !m->sig_exchanged || !m->prev || !m->now || !m->next ||
	    !m->prev2 || !m->dnow || !m->dnext ||
	    !m->conn_sig || !m->rec_sig || !m->row || !m->srow || !slot) {
		free(vbase);
		free(slot);
		return master_fail(m, "out of memory");
	}
	for (size_t i = 0; i < nvars; i++)
		slot[i] = -1;
	int rc = signals_found(m, slot, vbase);
	free(vbase);
	free(slot);
	return rc ? rc : number_signals(m);
}

/* Where each FMU's signals and connections are, so that preparing ten thousand FMUs
 * does not look through every signal and connection for each: the signals of FMU f and
 * type ty are sig_first[f * NTYPES + ty] .. sig_first[f * NTYPES + ty + 1] - 1 (numbered
 * so by number_signals), the connections into f are by_dst[dst_first[f] ..
 * dst_first[f + 1] - 1], in their order. */
typedef struct FmuIndex {
	int *sig_first;
	int *dst_first;
	int *by_dst;
} FmuIndex;

static void fmu_index_free(FmuIndex *ix)
{
	free(ix->sig_first);
	free(ix->dst_first);
	free(ix->by_dst);
}

static int fmu_index(Master *m, FmuIndex *ix)
{
	const SartScenario *sc = m->sc;
	int nkeys = sc->nfmus * NTYPES;
	ix->sig_first = calloc((size_t)nkeys + 2, sizeof *ix->sig_first);
	ix->dst_first = calloc((size_t)sc->nfmus + 2, sizeof *ix->dst_first);
	ix->by_dst = malloc(((size_t)sc->nconns + 1) * sizeof *ix->by_dst);
	int *at = malloc(((size_t)sc->nfmus + 1) * sizeof *at);
	if (!ix->sig_first || !ix->dst_first || !ix->by_dst || !at) {
		free(at);
		return master_fail(m, "out of memory");
	}
	for (int s = 0; s < m->nsig; s++)
		ix->sig_first[sig_key(m, m->sig[s]) + 1]++;
	for (int key = 0; key < nkeys; key++)
		ix->sig_first[key + 1] += ix->sig_first[key];
	for (int c = 0; c < sc->nconns; c++)
		ix->dst_first[sc->conns[c].dst.fmu + 1]++;
	for (int f = 0; f < sc->nfmus; f++) {
		ix->dst_first[f + 1] += ix->dst_first[f];
		at[f] = ix->dst_first[f];
	}
	for (int c = 0; c < sc->nconns; c++)
		ix->by_dst[at[sc->conns[c].dst.fmu]++] = c;
	free(at);
	return 0;
}

/* FMU f's counts of signals read and inputs set, per type (calloc'd to zero before). */
static void count_fmu(Master *m, int f, const FmuIndex *ix)
{
	const SartScenario *sc = m->sc;
	FmuRun *fr = &m->f[f];
	for (int ty = 0; ty < NTYPES; ty++) {
		fr->nread[ty] = ix->sig_first[f * NTYPES + ty + 1] - ix->sig_first[f * NTYPES + ty];
		for (int i = ix->dst_first[f]; i < ix->dst_first[f + 1]; i++)
			fr->nset[ty] += var_of(sc, sc->conns[ix->by_dst[i]].dst)->type == (SartType)ty;
	}
}

/* The length of FMU f's buffers: its most values of one type read or set, at least 1. */
static size_t fmu_nbuf(const FmuRun *fr)
{
	size_t nbuf = 1;
	for (int ty = 0; ty < NTYPES; ty++) {
		if ((size_t)fr->nread[ty] > nbuf)
			nbuf = (size_t)fr->nread[ty];
		if ((size_t)fr->nset[ty] > nbuf)
			nbuf = (size_t)fr->nset[ty];
	}
	return nbuf;
}

/* What FMU f's tables and buffers take of each pool (Master.pool_vr, pool_int,
 * pool_dbl), added to the three counts. */
static void fmu_pool_share(const FmuRun *fr, size_t *nvr, size_t *nint, size_t *ndbl)
{
	size_t nbuf = fmu_nbuf(fr);
	/* no slot for an empty table: one per type would spread a single-input FMU's data over
	 * several cache lines */
	for (int ty = 0; ty < NTYPES; ty++) {
		size_t nr = (size_t)fr->nread[ty], ns = (size_t)fr->nset[ty];
		*nvr += nr + ns;    /* read_vr, set_vr */
		*nint += 2 * ns;    /* set_conn, set_sig */
		*ndbl += 2 * ns;    /* set_scale, set_offset */
	}
	*nint += 3 * nbuf;      /* ibuf, order1, order2 */
	*ndbl += 3 * nbuf;      /* rbuf, dval, d2val */
}

/* FMU f's tables: what it reads after a step and what is set into it, per type, as
 * parallel arrays for the hot loop; its buffers.  Each is carved from the pools at *vr,
 * *in and *db (which move past it): FMU f's arrays lie together, after FMU f - 1's. */
static void prepare_fmu(Master *m, int f, const FmuIndex *ix, SartVr **vr, int **in,
                        double **db)
{
	const SartScenario *sc = m->sc;
	FmuRun *fr = &m->f[f];
	size_t nbuf = fmu_nbuf(fr);
	fr->interpolates = (sc->fmus[f].caps & SART_CAP_INPUT_DERIVATIVES) != 0;
	for (int ty = 0; ty < NTYPES; ty++) {
		int s0 = ix->sig_first[f * NTYPES + ty], s1 = ix->sig_first[f * NTYPES + ty + 1];
		size_t nr = (size_t)fr->nread[ty], ns = (size_t)fr->nset[ty];
		fr->read_vr[ty] = *vr;
		fr->set_vr[ty] = *vr + nr;
		*vr += nr + ns;
		fr->set_conn[ty] = *in;
		fr->set_sig[ty] = *in + ns;
		*in += 2 * ns;
		fr->set_scale[ty] = *db;
		fr->set_offset[ty] = *db + ns;
		*db += 2 * ns;
		int k = 0;
		fr->read_base[ty] = s1 > s0 ? s0 : 0;
		for (int s = s0; s < s1; s++)
			fr->read_vr[ty][k++] = var_of(sc, m->sig[s])->vr;
		k = 0;
		for (int i = ix->dst_first[f]; i < ix->dst_first[f + 1]; i++) {
			int c = ix->by_dst[i];
			if (var_of(sc, sc->conns[c].dst)->type == (SartType)ty) {
				fr->set_vr[ty][k] = var_of(sc, sc->conns[c].dst)->vr;
				fr->set_sig[ty][k] = m->conn_sig[c];
				fr->set_scale[ty][k] = sc->conns[c].scale;
				fr->set_offset[ty][k] = sc->conns[c].offset;
				fr->set_conn[ty][k++] = c;
			}
		}
		if (ty != SART_REAL)
			fr->has_other |= fr->nread[ty] > 0 || fr->nset[ty] > 0;
	}
	fr->ibuf = *in;
	fr->order1 = *in + nbuf;
	fr->order2 = *in + 2 * nbuf;
	*in += 3 * nbuf;
	fr->rbuf = *db;
	fr->dval = *db + nbuf;
	fr->d2val = *db + 2 * nbuf;
	*db += 3 * nbuf;
	for (size_t i = 0; i < nbuf; i++) {
		fr->order1[i] = 1;
		fr->order2[i] = 2;
	}
	fr->takes_order2 = (sc->fmus[f].caps & SART_CAP_INPUT_ORDER2) != 0;
	fr->derivs = m->o->approx == SART_HERMITE &&
	             (sc->fmus[f].caps & SART_CAP_OUTPUT_DERIVATIVES) && fr->nread[SART_REAL] > 0;
}

/* Every FMU's tables and buffers, in three blocks (one per element type) laid out in FMU
 * order: the passes of a step go through the FMUs in order, and ten allocations of their
 * own per FMU, scattered over the heap, cost about six cache misses per FMU step once ten
 * thousand FMUs' data outgrew the cache. */
static int prepare_fmus(Master *m, const FmuIndex *ix)
{
	size_t nvr = 0, nint = 0, ndbl = 0;
	for (int f = 0; f < m->sc->nfmus; f++) {
		count_fmu(m, f, ix);
		fmu_pool_share(&m->f[f], &nvr, &nint, &ndbl);
	}
	m->pool_vr = malloc((nvr + 1) * sizeof *m->pool_vr);
	m->pool_int = malloc((nint + 1) * sizeof *m->pool_int);
	m->pool_dbl = malloc((ndbl + 1) * sizeof *m->pool_dbl);
	if (!m->pool_vr || !m->pool_int || !m->pool_dbl)
		return master_fail(m, "out of memory");
	SartVr *vr = m->pool_vr;
	int *in = m->pool_int;
	double *db = m->pool_dbl;
	for (int f = 0; f < m->sc->nfmus; f++)
		prepare_fmu(m, f, ix, &vr, &in, &db);
	return 0;
}

/* Signals, per-FMU read and set tables, buffers, the fast path's tables. */
static int prepare(Master *m)
{
	if (prepare_signals(m))
		return 1;
	m->log = calloc((size_t)m->sc->nfmus, sizeof *m->log);
	if (!m->log)
		return master_fail(m, "out of memory");
	for (int f = 0; f < m->sc->nfmus; f++)
		m->log[f] = (FmuLog){.m = m, .f = f};
	FmuIndex ix;
	int rc = fmu_index(m, &ix);
	if (!rc)
		rc = prepare_fmus(m, &ix);
	fmu_index_free(&ix);
	return rc ? rc : master_prepare_fast(m);
}

/* The first non-finite value of FMU f's signals vals[s0 .. s0 + n - 1]: the error. */
int master_nonfinite_signal(Master *m, int f, double t, const double *vals, int s0, int n)
{
	for (int s = s0; s < s0 + n; s++)
		if (!isfinite(vals[s]))
			return master_fail(m, "at t = %s: %s.%s is %s, and it %s", SART_NUM(t),
			                   m->sc->fmus[f].name,
			                   var_of(m->sc, m->sig[s])->name, SART_NUM(vals[s]),
			                   m->sig_exchanged[s] ? "feeds a connection" : "is recorded");
	return 0;
}

/* Hermite: the first derivatives of FMU f's Real signals at t into dvals (by signal). */
static int read_derivatives(Master *m, int f, double t, double *dvals)
{
	FmuRun *fr = &m->f[f];
	int n = fr->nread[SART_REAL], s0 = fr->read_base[SART_REAL];
	if (!ok(sart_inner_get_real_output_derivatives(fr->in, fr->read_vr[SART_REAL], (size_t)n,
	                                               fr->order1, dvals + s0)))
		return master_fail_call(m, f, t);
	for (int s = s0; s < s0 + n; s++)
		if (!isfinite(dvals[s]))
			return master_fail(m, "at t = %s: the derivative of %s.%s is %s",
			                   SART_NUM(t), m->sc->fmus[f].name,
			                   var_of(m->sc, m->sig[s])->name, SART_NUM(dvals[s]));
	return 0;
}

/* Reads FMU f's signals into vals; a NaN or infinity (on a connection or recorded) is an
 * error: the step that produced it is not accepted.  Reals are got straight into vals. */
int master_read_signals(Master *m, int f, double t, double *vals)
{
	FmuRun *fr = &m->f[f];
	int n = fr->nread[SART_REAL];
	if (n > 0) {
		double *v = vals + fr->read_base[SART_REAL];
		int bad = 0;
		if (!ok(sart_inner_get_real(fr->in, fr->read_vr[SART_REAL], (size_t)n, v)))
			return master_fail_call(m, f, t);
		for (int k = 0; k < n; k++)
			bad |= !isfinite(v[k]);
		if (bad)
			return master_nonfinite_signal(m, f, t, vals, fr->read_base[SART_REAL], n);
		if (fr->derivs && read_derivatives(m, f, t, vals == m->now ? m->dnow : m->dnext))
			return 1;
	}
	if (!fr->has_other)
		return 0;
	for (int ty = SART_INTEGER; ty <= SART_BOOLEAN; ty++) {
		n = fr->nread[ty];
		if (n == 0)
			continue;
		if (!ok(get_values(fr->in, (SartType)ty, fr->read_vr[ty], (size_t)n, fr->rbuf,
		                   fr->ibuf)))
			return master_fail_call(m, f, t);
		for (int k = 0; k < n; k++)
			vals[fr->read_base[ty] + k] = (double)fr->ibuf[k];
	}
	return 0;
}

/* The value an input gets at t_n, its slope over the step and (quadratic, to an FMU that
 * takes second derivatives) its second derivative (see sart_master.h). */
static void input_for(Master *m, int c, int pass, double h, int interp, double *val,
                      double *slope, double *curv)
{
	const SartConnection *cn = &m->sc->conns[c];
	int s = m->conn_sig[c];
	if (m->o->held_conns && m->o->held_conns[c])
		interp = 0; /* a discrete value: the freshest one, held */
	int fresh = !m->an->delayed[cn->dst.fmu] &&
	            (pass > 0 || (m->alg->fresh_inputs && m->f[cn->src.fmu].stepped));
	double v = m->now[s], d = 0, d2 = 0;
	if (fresh) {
		/* linear from the value at t_n to the end value of this pass or the last one */
		if (interp)
			d = (m->next[s] - m->now[s]) / h;
		else
			v = m->next[s];
	} else if (interp && m->o->approx == SART_HERMITE && m->f[cn->src.fmu].derivs) {
		/* y(t_n) + y'(t_n) (t - t_n), from the source's own derivative */
		d = m->dnow[s];
	} else if (interp && m->o->approx == SART_QUADRATIC && m->have_prev2) {
		/* the parabola through the last three communication points (Newton's divided
		 * differences): p(t) = y_n + d1 (t - t_n) + dd (t - t_n) (t - t_n-1) */
		double h1 = m->t_prev_span, h2 = m->t_prev2_span;
		double d1 = (m->now[s] - m->prev[s]) / h1, d0 = (m->prev[s] - m->prev2[s]) / h2;
		double dd = (d1 - d0) / (h1 + h2);
		if (m->f[cn->dst.fmu].takes_order2) {
			d = d1 + dd * h1; /* p'(t_n) */
			d2 = 2 * dd;
		} else {
			d = d1 + dd * (h + h1); /* the chord to p(t_n + h) */
		}
	} else if (interp && m->o->approx != SART_HOLD && m->have_prev) {
		/* linear extrapolation from the last two communication points (and the fallback
		 * of quadratic with a short history, of Hermite without source derivatives) */
		d = (m->now[s] - m->prev[s]) / (m->t_prev_span);
	}
	*val = sart_conn_value(cn, v);
	*slope = cn->nmap ? 0 : cn->scale * d; /* a mapped value is discrete */
	*curv = cn->nmap ? 0 : cn->scale * d2;
}

double sart_conn_value(const SartConnection *cn, double x)
{
	for (int k = 0; k < cn->nmap; k++)
		if (x == cn->map_from[k]) {
			x = cn->map_to[k];
			break;
		}
	return cn->scale * x + cn->offset;
}

/* An input that would be NaN or infinite: the error, naming it and its source. */
int master_bad_input(Master *m, int f, int c, double t, double v, double d)
{
	const SartConnection *cn = &m->sc->conns[c];
	return master_fail(m, "at t = %s: the input %s.%s would be %s (slope %s), fed by %s.%s",
	                   SART_NUM(t), m->sc->fmus[f].name, var_of(m->sc, cn->dst)->name,
	                   SART_NUM(v), SART_NUM(d),
	                   m->sc->fmus[cn->src.fmu].name, var_of(m->sc, cn->src)->name);
}

static int is_binary(const Master *m, SartRef r);

/* External input k, a String or a Binary: its text (or bytes) at t from external_text. */
static int set_external_text(Master *m, int k, double t)
{
	const SartMasterOptions *o = m->o;
	SartRef r = o->external[k];
	const SartVar *v = var_of(m->sc, r);
	size_t size = 0;
	const char *text = o->external_text(o->external_env, k, t, &size);
	const unsigned char *bytes = (const unsigned char *)text;
	if (!ok(is_binary(m, r) ? sart_inner_set_binary(m->f[r.fmu].in, &v->vr, 1, &bytes, &size)
	                        : sart_inner_set_string(m->f[r.fmu].in, &v->vr, 1, &text)))
		return master_fail_call(m, r.fmu, t);
	return 0;
}

/* The ticks an input clock fed from outside gets: those of the start time at
 * initialization (init), else those of the step's end, (t, t + h] (the seam ticks a clock
 * set before a step at its end). */
static double external_ticks(const Master *m, int k, double t, double h, int init)
{
	const SartMasterOptions *o = m->o;
	if (!o->external_tick)
		return 0;
	if (init)
		return o->external_tick(o->external_env, k, t - 1e-9 * (fabs(t) + 1.0), t);
	return o->external_tick(o->external_env, k, t, t + h);
}

/* FMU f's inputs fed from outside the scenario, at t (sart_master.h); with their slopes
 * when f interpolates inputs, but not at initialization (init); clocks for the step to
 * t + h. */
static int set_external(Master *m, int f, double t, double h, int init)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	FmuRun *fr = &m->f[f];
	for (int k = 0; k < o->nexternal; k++) {
		if (o->external[k].fmu != f)
			continue;
		const SartVar *v = var_of(sc, o->external[k]);
		if (v->type == SART_OTHER) {
			if (set_external_text(m, k, t))
				return 1;
			continue;
		}
		double x = 0, d = 0;
		/* a Scheduled Execution FMU's partitions run at the step's end (steps end at its
		 * ticks): that is when its inputs are read */
		double at = !init && ((sc->fmus[f].caps & SART_CAP_SCHEDULED_EXECUTION) || v->clocked)
		                    ? t + h
		                    : t;
		if (v->is_clock)
			x = external_ticks(m, k, t, h, init);
		else
			o->external_value(o->external_env, k, at, &x, &d);
		int iv = to_int(v->type, x), order = 1;
		if (!ok(set_values(fr->in, v->type, &v->vr, 1, &x, &iv)))
			return master_fail_call(m, f, t);
		if (!init && v->type == SART_REAL && fr->interpolates &&
		    !ok(sart_inner_set_real_input_derivatives(fr->in, &v->vr, 1, &order, &d)))
			return master_fail_call(m, f, t);
	}
	return 0;
}

/* Whether r is a Binary (SartMasterOptions.binaries), else a String. */
static int is_binary(const Master *m, SartRef r)
{
	for (int i = 0; i < m->o->nbinaries; i++)
		if (m->o->binaries[i].fmu == r.fmu && m->o->binaries[i].var == r.var)
			return 1;
	return 0;
}

/* FMU f's String inputs, each its source's String as it stands now (SartScenario). */
static int set_string_inputs(Master *m, int f, double t)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	for (int c = 0; c < o->nstring_conns; c++) {
		const SartConnection *cn = &o->string_conns[c];
		if (cn->dst.fmu != f)
			continue;
		const char *text = NULL;
		const SartVar *sv = var_of(sc, cn->src), *dv = var_of(sc, cn->dst);
		if (is_binary(m, cn->src) != is_binary(m, cn->dst))
			return master_fail(m, "%s.%s -> %s.%s: a Binary connects to a Binary only",
			                   sc->fmus[cn->src.fmu].name, sv->name,
			                   sc->fmus[cn->dst.fmu].name, dv->name);
		if (is_binary(m, cn->src)) {
			const unsigned char *bytes = NULL;
			size_t size = 0;
			if (!ok(sart_inner_get_binary(m->f[cn->src.fmu].in, &sv->vr, 1, &bytes, &size)))
				return master_fail_call(m, cn->src.fmu, t);
			if (!ok(sart_inner_set_binary(m->f[f].in, &dv->vr, 1, &bytes, &size)))
				return master_fail_call(m, f, t);
			continue;
		}
		if (!ok(sart_inner_get_string(m->f[cn->src.fmu].in, &sv->vr, 1, &text)))
			return master_fail_call(m, cn->src.fmu, t);
		if (!text)
			return master_fail(m, "at t = %s: %s.%s is a NULL String, on a connection",
			                   SART_NUM(t), sc->fmus[cn->src.fmu].name, sv->name);
		if (!ok(sart_inner_set_string(m->f[f].in, &dv->vr, 1, &text)))
			return master_fail_call(m, f, t);
	}
	return 0;
}

int master_set_inputs(Master *m, int f, int pass, double t, double h)
{
	FmuRun *fr = &m->f[f];
	int n = fr->nset[SART_REAL];
	if (m->o->nstring_conns && set_string_inputs(m, f, t))
		return 1;
	if (m->o->nexternal && set_external(m, f, t, h, 0))
		return 1;
	if (n > 0) {
		const int *conn = fr->set_conn[SART_REAL];
		double *v = fr->rbuf;
		int interp = fr->interpolates && m->derivatives, curved = 0;
		/* (held Real inputs of a first Jacobi pass with nothing else to do go through
		 * plain_pass's flat table instead) */
		for (int k = 0; k < n; k++) {
			double d, d2;
			input_for(m, conn[k], pass, h, interp, &v[k], &d, &d2);
			if (!isfinite(v[k]) || !isfinite(d) || !isfinite(d2))
				return master_bad_input(m, f, conn[k], t, v[k], d);
			fr->dval[k] = d;
			fr->d2val[k] = d2;
			curved |= d2 != 0;
			m->pred[conn[k]] = interp ? v[k] + d * h + d2 * h * h / 2 : v[k];
		}
		if (!ok(sart_inner_set_real(fr->in, fr->set_vr[SART_REAL], (size_t)n, v)))
			return master_fail_call(m, f, t);
		if (interp && !ok(sart_inner_set_real_input_derivatives(fr->in, fr->set_vr[SART_REAL],
		                                                        (size_t)n, fr->order1,
		                                                        fr->dval)))
			return master_fail_call(m, f, t);
		if (curved && !ok(sart_inner_set_real_input_derivatives(fr->in, fr->set_vr[SART_REAL],
		                                                        (size_t)n, fr->order2,
		                                                        fr->d2val)))
			return master_fail_call(m, f, t);
	}
	if (!fr->has_other)
		return 0;
	for (int ty = SART_INTEGER; ty <= SART_BOOLEAN; ty++) {
		n = fr->nset[ty];
		if (n == 0)
			continue;
		for (int k = 0; k < n; k++) {
			int c = fr->set_conn[ty][k];
			double v, d, d2;
			input_for(m, c, pass, h, 0, &v, &d, &d2);
			if (!isfinite(v))
				return master_bad_input(m, f, c, t, v, d);
			fr->ibuf[k] = to_int((SartType)ty, v);
			m->pred[c] = v;
		}
		if (!ok(set_values(fr->in, (SartType)ty, fr->set_vr[ty], (size_t)n, fr->rbuf,
		                   fr->ibuf)))
			return master_fail_call(m, f, t);
	}
	return 0;
}

/* What FMU f's doStep from t by h returning st means.  Returns 0 (stepped), 1 (discarded:
 * *reached is where it stands, r) or -1 (failed, reported). */
int master_step_outcome(Master *m, int f, double t, SartStatus st, double r,
                        double *reached)
{
	if (ok(st))
		return 0;
	if (st == SART_DISCARD) {
		*reached = r;
		if (m->discard_fmu < 0 || r < m->discard_at) {
			m->discard_fmu = f;
			m->discard_at = r;
		}
		if (m->o->no_rollback) {
			master_fail(m, "%s discarded the step from t = %s at t = %s; redoing it shorter "
			            "needs the FMUs' states saved before each step, and the run was told to "
			            "save none (no rollback)", m->sc->fmus[f].name, SART_NUM(t),
			            SART_NUM(r));
			return -1;
		}
		if (!m->can_rollback) {
			master_fail(m, "%s discarded the step from t = %s at t = %s; redoing it shorter "
			            "needs every FMU to get and set its state, and %s cannot",
			            m->sc->fmus[f].name, SART_NUM(t), SART_NUM(r),
			            m->sc->fmus[stateless_fmu(m->sc)].name);
			return -1;
		}
		return 1;
	}
	master_fail_call(m, f, t);
	return -1;
}

/* FMU f's doStep from t by h, repeated while it stops early at t (the calls of
 * master_step_one); *r is where it stands.  Touches FMU f and on_step only, so it may run
 * on a worker thread. */
SartStatus master_step_raw(Master *m, int f, double t, double h, double *r)
{
	SartStatus st;
	*r = t + h;
	for (int again = 0;; again++) {
		if (m->o->on_step)
			m->o->on_step(m->o->step_env, f, t, h, 0);
		st = sart_inner_do_step(m->f[f].in, t, h, 1, r);
		if (m->o->on_step)
			m->o->on_step(m->o->step_env, f, t, h, 1);
		if (!ok(st) || !(*r <= t) || again == MASTER_EARLY_AT_START)
			break;
	}
	return st;
}

/* What FMU f's step from t by h (master_step_raw: st, r) means: master_step_one's
 * return. */
int master_step_finish(Master *m, int f, double t, double h, SartStatus st, double r,
                       double *reached)
{
	if (ok(st) && r < t + h) {
		/* an early return: like a discard, the macro step ends where the FMU stopped */
		if (!(r > t)) {
			master_fail(m, "%s returned early at t = %s %d times without getting "
			            "anywhere", m->sc->fmus[f].name, SART_NUM(t),
			            MASTER_EARLY_AT_START + 1);
			return -1;
		}
		*reached = r;
		if (m->discard_fmu < 0 || r < m->discard_at) {
			m->discard_fmu = f;
			m->discard_at = r;
		}
		return 1;
	}
	return master_step_outcome(m, f, t, st, r, reached);
}

/* Steps FMU f from t by h.  Returns 0 (stepped), 1 (discarded, or returned early: *reached
 * is where it stands, and the macro step is redone that short) or -1 (failed, reported). */
int master_step_one(Master *m, int f, double t, double h, double *reached)
{
	double r;
	SartStatus st = master_step_raw(m, f, t, h, &r);
	return master_step_finish(m, f, t, h, st, r, reached);
}

/* Initialization's pass over the ports in the initialization order: each output's value
 * set on the inputs it feeds.  An algebraic loop is solved when its first port comes,
 * before its consumers are set; connections inside it are then left as the solution set
 * them.  The connections from each port are found through from_first and from (compressed
 * rows over the ports, each port's in their order), not by looking through all of them
 * for each port. */
static int init_connections(Master *m, double t0)
{
	const SartScenario *sc = m->sc;
	int np = m->an->nports, rc = 1;
	int *from_first = calloc((size_t)np + 2, sizeof *from_first);
	int *from = malloc(((size_t)sc->nconns + 1) * sizeof *from);
	if (!from_first || !from) {
		master_fail(m, "out of memory");
		goto done;
	}
	for (int c = 0; c < sc->nconns; c++)
		from_first[m->conn_src_port[c] + 2]++;
	for (int v = 0; v < np; v++)
		from_first[v + 2] += from_first[v + 1];
	for (int c = 0; c < sc->nconns; c++)
		from[from_first[m->conn_src_port[c] + 1]++] = c;
	for (int k = 0; k < np; k++) {
		int node = m->an->order[k];
		SartRef src = m->an->ports[node];
		const SartVar *sv = var_of(sc, src);
		for (int i = 0; i < m->nloops; i++)
			if (m->loops[i].comp == m->an->comp[node] && !m->loops[i].have_solution &&
			    master_solve_loop(m, &m->loops[i], t0, 1))
				goto done;
		double x = 0;
		int iv = 0, got = 0;
		for (int j = from_first[node]; j < from_first[node + 1]; j++) {
			int c = from[j];
			const SartConnection *cn = &sc->conns[c];
			if (m->an->comp[m->conn_dst_port[c]] == m->an->comp[node])
				continue; /* inside a loop (a component with both ends is one) */
			if (!got) {
				if (!ok(get_values(m->f[src.fmu].in, sv->type, &sv->vr, 1, &x, &iv))) {
					master_fail_call(m, src.fmu, t0);
					goto done;
				}
				if (sv->type != SART_REAL)
					x = iv;
				if (!isfinite(x)) {
					master_fail(m, "at t = %s (initialization): %s.%s is %s, on a "
					            "connection", SART_NUM(t0), sc->fmus[src.fmu].name,
					            sv->name, SART_NUM(x));
					goto done;
				}
				got = 1;
			}
			const SartVar *dv = var_of(sc, cn->dst);
			double y = sart_conn_value(cn, x);
			int jy = to_int(dv->type, y);
			if (!ok(set_values(m->f[cn->dst.fmu].in, dv->type, &dv->vr, 1, &y, &jy))) {
				master_fail_call(m, cn->dst.fmu, t0);
				goto done;
			}
		}
	}
	rc = 0;
done:
	free(from_first);
	free(from);
	return rc;
}

/* Instantiation, start values, initialization with values propagated in the port graph's
 * topological order; then the signals at the start. */
static int initialize(Master *m)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	double t0 = o->start;
	for (int f = 0; f < sc->nfmus; f++) {
		const SartFmu *fm = &sc->fmus[f];
		unsigned caps = fm->caps & SEAM_CAPS;
		if (m->snapshots && (fm->caps & SART_CAP_EARLY_RETURN))
			caps |= SART_CAP_EARLY_RETURN;
		const SartFmuTypes *ty = o->fmu_types ? &o->fmu_types[f] : NULL;
		const SartMeConfig none = {0};
		const SartSeConfig no_clocks = {0};
		SartInnerConfig cfg = {fm->name, fm->dir, fm->model_identifier, fm->version,
		                       caps, master_log, &m->log[f], ty ? ty->types : NULL,
		                       ty ? ty->n : 0, ty ? ty->elements : NULL,
		                       ty ? ty->nelements : 0, o->fmu_me ? o->fmu_me[f] : none,
		                       o->fmu_se ? o->fmu_se[f] : no_clocks};
		SartStatus st = o->load_inner ? o->load_inner(o->load_env, &cfg, &m->f[f].in)
		                               : sart_inner_load(&cfg, &m->f[f].in);
		if (ok(st) && ty && ty->nintermediate && !(caps & SART_CAP_MODEL_EXCHANGE))
			st = sart_inner_set_intermediate_inputs(m->f[f].in, ty->intermediate,
			                                        ty->nintermediate);
		if (!ok(st)) {
			flush_pending(m);
			return master_fail(m, "%s: cannot load the FMU", fm->name);
		}
	}
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_instantiate(m->f[f].in, sc->fmus[f].guid, o->logging_on)))
			return master_fail_call(m, f, t0);
	for (int i = 0; i < sc->nstarts; i++) {
		SartRef r = sc->starts[i].ref;
		if (!valid_ref(sc, r))
			return master_fail(m, "start value %d names a variable that does not exist", i + 1);
		const SartVar *v = var_of(sc, r);
		double x = sc->starts[i].value;
		int iv = to_int(v->type, x);
		if (v->type == SART_OTHER)
			return master_fail(m, "%s.%s: only Real, Integer and Boolean values can be set",
			                   sc->fmus[r.fmu].name, v->name);
		if (!ok(set_values(m->f[r.fmu].in, v->type, &v->vr, 1, &x, &iv)))
			return master_fail_call(m, r.fmu, t0);
	}
	for (int i = 0; i < o->nstring_starts; i++) {
		SartRef r = o->string_starts[i].ref;
		const char *text = o->string_starts[i].text;
		if (!valid_ref(sc, r) || !text)
			return master_fail(m, "String start value %d names no variable or no text", i + 1);
		const SartVar *v = var_of(sc, r);
		const unsigned char *bytes = (const unsigned char *)text;
		if (!ok(is_binary(m, r) ? sart_inner_set_binary(m->f[r.fmu].in, &v->vr, 1, &bytes,
		                                          &o->string_starts[i].size)
		                  : sart_inner_set_string(m->f[r.fmu].in, &v->vr, 1, &text)))
			return master_fail_call(m, r.fmu, t0);
	}
	SartExperiment ex = {0, 0.0, t0, 1, o->stop};
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_enter_init(m->f[f].in, &ex)) || set_external(m, f, t0, 0, 1))
			return m->failed ? 1 : master_fail_call(m, f, t0);
	if (init_connections(m, t0))
		return 1;
	/* String connections: as many rounds as FMUs, so that a chain of them settles */
	for (int round = 0; o->nstring_conns && round < sc->nfmus; round++)
		for (int f = 0; f < sc->nfmus; f++)
			if (set_string_inputs(m, f, t0))
				return 1;
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_exit_init(m->f[f].in)))
			return master_fail_call(m, f, t0);
	for (int f = 0; f < sc->nfmus; f++)
		if (master_read_signals(m, f, t0, m->now))
			return 1;
	return 0;
}

/* The recorded Strings at t, read from their FMUs (which stand at t), to on_strings. */
static int emit_strings(Master *m, double t)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	for (int r = 0; r < o->nstring_records; r++) {
		SartRef ref = o->string_records[r];
		if (!valid_ref(sc, ref))
			return master_fail(m, "recorded String %d does not exist", r + 1);
		const SartVar *v = var_of(sc, ref);
		int binary = is_binary(m, ref);
		const char *text = NULL;
		const unsigned char *bytes = NULL;
		size_t n = 0;
		if (!ok(binary ? sart_inner_get_binary(m->f[ref.fmu].in, &v->vr, 1, &bytes, &n)
		                  : sart_inner_get_string(m->f[ref.fmu].in, &v->vr, 1, &text)))
			return master_fail_call(m, ref.fmu, t);
		if (!text && !bytes && !(binary && n == 0))
			return master_fail(m, "at t = %s: %s.%s is a NULL %s", SART_NUM(t),
			                   sc->fmus[ref.fmu].name, v->name, binary ? "Binary" : "String");
		if (text)
			n = strlen(text);
		size_t len = binary ? 2 * n : n;
		char *copy = len + 1 > n ? realloc(m->srow[r], len + 1) : NULL;
		if (!copy)
			return master_fail(m, "out of memory");
		if (binary)
			for (size_t k = 0; k < n; k++) {
				copy[2 * k] = "0123456789abcdef"[bytes[k] >> 4];
				copy[2 * k + 1] = "0123456789abcdef"[bytes[k] & 15];
			}
		else
			memcpy(copy, text, n);
		copy[len] = '\0';
		m->srow[r] = copy;
	}
	if (o->on_strings(o->point_env, (const char *const *)m->srow, o->nstring_records))
		return master_fail(m, "at t = %s: the run was stopped by its caller",
		                   SART_NUM(t));
	return 0;
}

int master_emit_point(Master *m, double t)
{
	m->res->t = t;
	if (!m->o->on_point)
		return 0;
	for (int r = 0; r < m->sc->nrecords; r++)
		m->row[r] = m->now[m->rec_sig[r]];
	if (m->o->nstring_records && m->o->on_strings && emit_strings(m, t))
		return 1;
	if (m->o->on_point(m->o->point_env, t, m->row, m->sc->nrecords))
		return master_fail(m, "at t = %s: the run was stopped by its caller", SART_NUM(t));
	return 0;
}

static int check_options(Master *m)
{
	const SartMasterOptions *o = m->o;
	if (!isfinite(o->start) || !isfinite(o->stop) || !(o->stop >= o->start))
		return master_fail(m, "the stop time %s is before the start time %s", SART_NUM(o->stop),
		                   SART_NUM(o->start));
	if (!isfinite(o->step) || !(o->step > 0))
		return master_fail(m, "the step size %s is not positive", SART_NUM(o->step));
	if (o->iterations < 0)
		return master_fail(m, "the number of iterations %d is negative", o->iterations);
	if ((int)o->approx < SART_HOLD || o->approx > SART_HERMITE)
		return master_fail(m, "unknown input approximation %d", (int)o->approx);
	int nalgorithms = 0;
	while (sart_algorithms[nalgorithms].name)
		nalgorithms++;
	if ((int)o->algorithm < 0 || (int)o->algorithm >= nalgorithms)
		return master_fail(m, "unknown master algorithm %d", (int)o->algorithm);
	m->alg = &sart_algorithms[o->algorithm];
	if (o->step_control == SART_STEP_DOUBLING &&
	    (o->approx == SART_QUADRATIC || o->approx == SART_HERMITE))
		return master_fail(m, "step doubling works with hold and linear extrapolation only, not "
		                   "with %s", o->approx == SART_QUADRATIC ? "quadratic" : "Hermite");
	if (m->sc->nfmus < 1)
		return master_fail(m, "the scenario has no FMU");
	if ((int)o->loop_solver < SART_LOOP_ANDERSON || o->loop_solver > SART_LOOP_NEWTON)
		return master_fail(m, "unknown loop solver %d", (int)o->loop_solver);
	if (o->anderson_memory < 0 || o->anderson_memory > 100)
		return master_fail(m, "the Anderson memory %d is not in 1..100", o->anderson_memory);
	if (!(o->loop_tolerance >= 0) || !isfinite(o->loop_tolerance))
		return master_fail(m, "the loop tolerance %s is not positive",
		                   SART_NUM(o->loop_tolerance));
	if (o->loop_max_iterations < 0)
		return master_fail(m, "the loop iteration bound %d is negative", o->loop_max_iterations);
	if ((int)o->step_control < SART_STEP_FIXED || o->step_control > SART_STEP_PREDICTION)
		return master_fail(m, "unknown step control %d", (int)o->step_control);
	if (o->threads < 0 || o->threads > SART_MAX_THREADS)
		return master_fail(m, "the thread count %d is not in 1..%d", o->threads,
		                   SART_MAX_THREADS);
	m->tol = o->tolerance > 0 ? o->tolerance : 1e-3;
	m->min_step = o->min_step > 0 ? o->min_step : 1e-6 * o->step;
	m->max_step = o->max_step > 0 ? o->max_step : o->stop - o->start;
	m->safety = o->safety > 0 ? o->safety : 0.9;
	m->shrink = o->shrink > 0 ? o->shrink : 0.2;
	m->grow = o->grow > 0 ? o->grow : 2;
	m->h_next = o->step;
	if (!(o->tolerance >= 0) || !isfinite(o->tolerance) || !(o->min_step >= 0) ||
	    !(o->max_step >= 0) || !isfinite(o->min_step) || !isfinite(o->max_step))
		return master_fail(m, "the tolerance and the step bounds must be positive numbers");
	if (o->step_control != SART_STEP_FIXED && m->max_step > 0 && m->min_step > m->max_step)
		return master_fail(m, "the minimum step %s exceeds the maximum step %s",
		                   SART_NUM(m->min_step), SART_NUM(m->max_step));
	if (!(m->shrink <= 1) || !(m->grow >= 1) || !(m->safety <= 1) || !isfinite(m->grow))
		return master_fail(m, "the controller needs 0 < safety <= 1, 0 < shrink <= 1 <= grow");
	m->anderson_m = o->anderson_memory ? o->anderson_memory : 1;
	m->loop_tol = o->loop_tolerance > 0 ? o->loop_tolerance : 1e-10;
	m->loop_maxit = o->loop_max_iterations ? o->loop_max_iterations : 100;
	return 0;
}

/* Event location's needs: an indicator that is a Real or Integer output, a tolerance,
 * states saved before each step (so not with no rollback or step doubling, which moves
 * t_n's signals) and every FMU able to get and set its state, shown by the probe. */
static int check_events(Master *m, int stateless)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	SartRef z = o->event_indicator;
	const SartVar *zv = valid_ref(sc, z) ? var_of(sc, z) : NULL;
	if (!zv)
		return master_fail(m, "the event indicator (FMU %d, variable %d) does not exist",
		                   z.fmu + 1, z.var + 1);
	if (zv->causality != SART_CAUS_OUTPUT ||
	    (zv->type != SART_REAL && zv->type != SART_INTEGER))
		return master_fail(m, "the event indicator %s.%s must be a Real or Integer output",
		                   sc->fmus[z.fmu].name, zv->name);
	if (!isfinite(o->event_tolerance) || o->event_tolerance < 0)
		return master_fail(m, "the event tolerance %s is not a positive number",
		                   SART_NUM(o->event_tolerance));
	if (o->step_control == SART_STEP_DOUBLING || o->no_rollback)
		return master_fail(m, "event location needs the states saved and does not work "
		                   "with %s", o->no_rollback ? "no rollback" : "step doubling");
	if (stateless >= 0)
		return master_fail(m, "event location on %s.%s redoes the step across the crossing "
		                   "shorter from every FMU's state at its start, and %s cannot get "
		                   "and set its state", sc->fmus[z.fmu].name, zv->name,
		                   sc->fmus[stateless].name);
	m->event_tol = o->event_tolerance > 0 ? o->event_tolerance : 1e-6 * o->step;
	return master_probe_all(m, "event location rolls every FMU back to the step's start");
}

/* Inputs fed from outside: inputs of a type exchanged, fed by no connection, with a
 * function giving their values. */
static int check_external(Master *m)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	if (o->nexternal > 0 && !o->external_value)
		return master_fail(m, "the run has external inputs and no function gives them");
	for (int k = 0; k < o->nexternal; k++) {
		SartRef r = o->external[k];
		if (!valid_ref(sc, r))
			return master_fail(m, "external input %d names a variable that does not exist",
			                   k + 1);
		const SartVar *v = var_of(sc, r);
		if (v->causality != SART_CAUS_INPUT)
			return master_fail(m, "external input %s.%s is not an input",
			                   sc->fmus[r.fmu].name, v->name);
		if (v->type == SART_OTHER && !o->external_text)
			return master_fail(m, "external input %s.%s is a String or Binary and no "
			                   "function gives its text", sc->fmus[r.fmu].name, v->name);
		for (int c = 0; c < sc->nconns; c++)
			if (sc->conns[c].dst.fmu == r.fmu && sc->conns[c].dst.var == r.var)
				return master_fail(m, "external input %s.%s is connected already",
				                   sc->fmus[r.fmu].name, v->name);
	}
	return 0;
}

/* What the options ask of the FMUs' states and of the event indicator, checked against
 * the scenario; the state probe of every FMU before a run that rolls back. */
static int check_run(Master *m)
{
	const SartScenario *sc = m->sc;
	const SartMasterOptions *o = m->o;
	int stateless = stateless_fmu(sc);
	m->can_rollback = stateless < 0;
	if (o->step_control != SART_STEP_FIXED && stateless >= 0)
		return master_fail(m, "step-size control rejects steps by rolling every FMU back, and "
		                   "%s cannot get and set its state", sc->fmus[stateless].name);
	if (o->iterations > 0 && stateless >= 0)
		return master_fail(m, "iterations roll every FMU back to the step's start, and %s "
		                   "cannot get and set its state", sc->fmus[stateless].name);
	if (o->no_rollback && (o->iterations > 0 || o->step_control != SART_STEP_FIXED))
		return master_fail(m, "with no rollback there is no state to go back to, and %s "
		                   "roll%s every FMU back",
		                   o->iterations > 0 ? "iterations" : "step-size control",
		                   o->iterations > 0 ? "" : "s");
	if (o->locate_events && check_events(m, stateless))
		return 1;
	if (o->iterations > 0 &&
	    master_probe_all(m, "iterations roll every FMU back to the step's start"))
		return 1;
	if (o->step_control != SART_STEP_FIXED &&
	    master_probe_all(m, "step-size control rejects steps by rolling every FMU back"))
		return 1;
	return 0;
}

/* The step from t: with step-size control the controller's, within the bounds and landing
 * on the stop time; with fixed steps the next point start + (k + 1) H.  Taken; on return
 * *end is where it ended.  *k follows the grid: after a step that ended short of its
 * plan (a rejection, an event) the next one aims back at the grid, at the first
 * start + k H beyond where it ended (a gap under 1e-9 H joins the following step), so
 * that events on the grid are seen on time.  The last step ends exactly on stop (a
 * remainder under 1e-9 H joins it). */
/* The next clock tick after t that a step must end on: a Scheduled Execution FMU's next
 * scheduled tick, a clock input's next row holding a tick; +infinity when none. */
static double next_clock_time(const Master *m, double t)
{
	const SartMasterOptions *o = m->o;
	double next = INFINITY;
	for (int f = 0; m->clocked && f < m->sc->nfmus; f++) {
		double c = sart_inner_next_clock_time(m->f[f].in);
		next = c < next ? c : next;
	}
	for (int k = 0; o->external_next_tick && k < o->nexternal; k++)
		if (var_of(m->sc, o->external[k])->is_clock) {
			double c = o->external_next_tick(o->external_env, k, t);
			next = c < next ? c : next;
		}
	return next;
}

static int next_step(Master *m, double t, long *k, double *end)
{
	const SartMasterOptions *o = m->o;
	double planned;
	/* a clock tick inside the step ends it there, so that each tick has its row */
	double tick = m->clocked ? next_clock_time(m, t) : INFINITY;
	if (o->step_control != SART_STEP_FIXED) {
		double h = m->h_next < m->max_step ? m->h_next : m->max_step;
		h = h > m->min_step ? h : m->min_step;
		*end = t + h >= o->stop - 1e-9 * h ? o->stop : t + h;
		planned = *end;
		if (tick > t && tick < *end - 1e-9 * h)
			*end = tick;
		if (master_controlled_step(m, t, end))
			return 1;
	} else {
		*end = o->start + (double)(*k + 1) * o->step;
		if (*end >= o->stop - 1e-9 * o->step)
			*end = o->stop;
		planned = *end;
		if (tick > t && tick < *end - 1e-9 * o->step)
			*end = tick;
		if (master_macro_step(m, t, end))
			return 1;
	}
	if (*end < planned) {
		double kk = floor((*end - o->start) / o->step);
		*k = kk > 0 ? (long)kk : 0;
		while (o->start + (double)(*k + 1) * o->step <= *end + 1e-9 * o->step)
			(*k)++;
	} else {
		(*k)++;
	}
	return 0;
}

/* The step from t to end accepted: the signal arrays rotate (t_n+1 becomes t_n), the
 * statistics are kept, the point goes to on_point. */
static int accept_step(Master *m, double t, double end)
{
	SartMasterResult *res = m->res;
	double *tmp = m->prev2;
	m->prev2 = m->prev;
	m->prev = m->now;
	m->now = m->next;
	m->next = tmp; /* every pass reads every signal before any is used */
	tmp = m->dnow;
	m->dnow = m->dnext;
	m->dnext = tmp;
	m->t_prev2_span = m->t_prev_span;
	m->have_prev2 = m->have_prev;
	m->t_prev_span = m->last_span > 0 ? m->last_span : end - t;
	m->have_prev = 1;
	if (res->accepted == 0 || end - t < res->h_min)
		res->h_min = end - t;
	if (end - t > res->h_max)
		res->h_max = end - t;
	res->accepted++;
	return master_emit_point(m, end);
}

/* Everything a run holds, released (the FMUs freed through the seam). */
static void free_run(Master *m)
{
	for (int f = 0; m->f && f < m->sc->nfmus; f++) {
		FmuRun *fr = &m->f[f];
		if (fr->snap)
			sart_inner_free_state(fr->in, &fr->snap);
		sart_inner_free(fr->in);
	}
	free(m->pool_vr);
	free(m->pool_int);
	free(m->pool_dbl);
	master_par_free(m);
	for (int f = 0; m->log && f < m->sc->nfmus; f++)
		free(m->log[f].e);
	free(m->log);
	for (int i = 0; m->loops && i < m->nloops; i++)
		master_free_loop(&m->loops[i]);
	free(m->loops);
	free(m->port_conn);
	free(m->conn_src_port);
	free(m->conn_dst_port);
	free(m->conn_tear);
	free(m->pval);
	free(m->pred);
	free(m->plain_src);
	free(m->plain_conn);
	free(m->plain_scale);
	free(m->plain_offset);
	free(m->plain_buf);
	free(m->gs_fmus);
	free(m->gs_inputs);
	free(m->gs_buf);
	free(m->yfull);
	free(m->save_now);
	free(m->save_prev);
	free(m->adj_first);
	free(m->adj_edge);
	free(m->f);
	free(m->sig);
	free(m->sig_exchanged);
	free(m->prev);
	free(m->prev2);
	free(m->dnow);
	free(m->dnext);
	free(m->now);
	free(m->next);
	free(m->conn_sig);
	free(m->rec_sig);
	free(m->row);
	for (int r = 0; m->srow && r < m->o->nstring_records; r++)
		free(m->srow[r]);
	free(m->srow);
	sart_analysis_free(m->an);
}

int sart_master_run(const SartScenario *sc, const SartMasterOptions *o, SartMasterResult *res)
{
	char err[512];
	Master mm;
	Master *m = &mm;
	memset(m, 0, sizeof *m);
	memset(res, 0, sizeof *res);
	m->sc = sc;
	m->o = o;
	m->res = res;
	m->discard_fmu = -1;
	res->t = o->start;
	res->threads = 1;

	if (check_options(m))
		goto done;
	if (sart_analyse(sc, &m->an, err, sizeof err)) {
		master_fail(m, "%s", err);
		goto done;
	}
	if (check_external(m) || check_run(m))
		goto done;
	m->want_pred = o->step_control == SART_STEP_PREDICTION;
	m->snapshots = m->can_rollback && !o->no_rollback;
	m->derivatives = o->approx != SART_HOLD || m->alg->fresh_inputs || o->iterations > 0;
	if (prepare(m) || master_prepare_loops(m) || master_par_prepare(m))
		goto done;
	for (int f = 0; f < sc->nfmus; f++)
		m->early_returns |= m->snapshots && (sc->fmus[f].caps & SART_CAP_EARLY_RETURN);
	m->plain = m->alg->fast_path && !o->no_fast_path && !m->derivatives && m->nloops == 0 &&
	           !m->early_returns && o->nexternal == 0 && o->nstring_conns == 0;
	for (int f = 0; f < sc->nfmus; f++)
		m->plain &= !m->f[f].has_other;
	for (int f = 0; f < sc->nfmus; f++)
		m->clocked |= (sc->fmus[f].caps & (SART_CAP_SCHEDULED_EXECUTION | SART_CAP_CLOCKS)) != 0;
	for (int k = 0; k < o->nexternal; k++)
		m->clocked |= var_of(sc, o->external[k])->is_clock;
	m->plain &= !m->clocked;
	m->plain_gs = master_plain_gs(m);
	if (initialize(m) || master_emit_point(m, o->start))
		goto done;

	double t = o->start;
	long k = 0;
	if (master_fast_run(m, &t))
		goto done;
	while (t < o->stop) {
		double end;
		if (next_step(m, t, &k, &end) || accept_step(m, t, end))
			goto done;
		t = end;
	}
	for (int f = 0; f < sc->nfmus; f++)
		if (!ok(sart_inner_terminate(m->f[f].in))) {
			master_fail_call(m, f, t);
			goto done;
		}
done:
	flush_pending(m);
	free_run(m);
	return m->failed ? 1 : 0;
}
