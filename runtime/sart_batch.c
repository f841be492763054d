/* sart_batch.c — consecutive independent do_steps stepped at once (sart_do_step_batch, from
 * wrappers built with `sacc build --threads N`).
 *
 * What runs where.  A batch is do_step(f_k, t_k, h_k) for k = 0..n-1, inners the compiler
 * proved independent: no argument, and neither MapIn nor MapOut, reads what another of the
 * do_steps writes (compiler/emit/emit_c_batch.c).  In parallel, the calling thread first runs
 * each do_step up to its inner's step (MapIn, the inputs set) in order; then the inners'
 * own steps run on the pool, each inner on the thread its site assigned it (an inner marked
 * serial, SartInnerModel.serial, on the calling thread), so no instance ever gets two calls
 * at once; then, in order again on the calling thread, each inner's outcome is taken as
 * do_step takes it (a discard's partial step accepted, the outputs read, MapOut).  The
 * Storage and every inner end as after the do_steps in turn.
 *
 * Same messages, same order.  While a batch runs in parallel, every message (the wrapper's
 * own and each inner's, from whatever thread) is held in the segment of the inner it
 * belongs to, and afterwards the segments are replayed in program order.  A failure ends
 * the batch where do_steps in turn would have ended: the segments after it are dropped (the
 * inners after it may have stepped, or had their inputs set, but the wrapper is then in its
 * error state, from which only a reset, an earlier FMU state or the end go on).
 *
 * When it pays.  As `sacc simulate --threads` decides (orchestrator/sart_master_parallel.c):
 * the first WARMUP + NSAMPLES passes of a batch site run in turn and are timed, each
 * do_step and the whole pass; the site then tries parallel passes when its summed cost
 * exceeds the most loaded thread's by MIN_GAIN, times TRIAL_WARMUP + NSAMPLES of them, and
 * keeps them only when their median beats the timed one-thread passes by MIN_GAIN.  So a
 * wrapper over trivial inners steps them in turn after its first few dozen steps, and from
 * then on takes its emitted fast step, when it has one, as a wrapper built without threads
 * does (until then it has none: the batches are measured on the general path).  A wrapper compiled with -DSART_BATCH_ALWAYS (a test's build) steps every
 * batch in parallel from the first. */
#define _POSIX_C_SOURCE 200809L

#include "sart_core_impl.h"
#include "sart_pool.h"

#include <stdlib.h>

enum { WARMUP = 8, NSAMPLES = 16, TRIAL_WARMUP = 8, MAX_THREADS = 64 };

/* The least a pass must save to be run in parallel (seconds). */
#define MIN_GAIN 5e-6

typedef struct Held {
	SartStatus st;
	char *category;
	char *msg;
} Held;

typedef struct Segment {
	Held *m;
	unsigned n, cap;
	unsigned lost;
} Segment;

/* One batch site of Ctrl: its decision and measurements. */
typedef struct Site {
	int decided, par;
	unsigned passes, trials;
	double seq[NSAMPLES], trial[NSAMPLES];
	double serial_time;
	int *owner;          /* position -> thread */
} Site;

struct SartBatches {
	SartPool *pool;
	int threads;         /* what the pool has, or would have */
	Site *sites;
	double *samples;     /* inner -> NSAMPLES do_step times */
	unsigned *steps;     /* inner -> do_steps timed or skipped */
	Segment *seg;        /* inner -> its messages held */
	int fast;            /* the wrapper may take its fast step once no site is parallel */
	int holding;         /* a parallel batch is in progress: messages are held */
	int now;             /* the inner the calling thread is at */
	/* the parallel steps in progress, by position */
	SartWrapper *w;
	const unsigned *inners;
	const double *ti, *hi;
	SartStatus *st;
	double *reached;
};

int sart_batches_new(SartWrapper *w)
{
	const SartModel *m = &sart_model;
	if (m->threads <= 1 || !m->nbatches || m->ninners < 2)
		return 1;
	SartBatches *b = calloc(1, sizeof *b);
	if (!b)
		return 0;
	w->batches = b;
	size_t ni = m->ninners;
	b->threads = (int)(m->threads < ni ? m->threads : ni);
	if (b->threads > MAX_THREADS)
		b->threads = MAX_THREADS;
	b->sites = calloc(m->nbatches, sizeof *b->sites);
	b->samples = calloc(ni * NSAMPLES, sizeof *b->samples);
	b->steps = calloc(ni, sizeof *b->steps);
	b->seg = calloc(ni, sizeof *b->seg);
	b->st = calloc(ni, sizeof *b->st);
	b->reached = calloc(ni, sizeof *b->reached);
	if (!b->sites || !b->samples || !b->steps || !b->seg || !b->st || !b->reached)
		return 0;
	for (unsigned k = 0; k < m->nbatches; k++)
		if (!(b->sites[k].owner = calloc(ni, sizeof *b->sites[k].owner)))
			return 0;
	return 1;
}

void sart_batches_start(SartWrapper *w)
{
	if (!w->batches)
		return;
	w->batches->fast = w->fast;
	w->fast = 0;
}

/* Every site has chosen to step in turn: the fast step, when the wrapper has one, does
 * the same with less per step. */
static void fast_if_all_in_turn(SartWrapper *w)
{
	SartBatches *b = w->batches;
	for (unsigned k = 0; k < sart_model.nbatches; k++)
		if (!b->sites[k].decided || b->sites[k].par)
			return;
	w->fast = b->fast;
	sart_refresh_plain(w);
}

static void drop_segment(Segment *g)
{
	for (unsigned i = 0; i < g->n; i++) {
		free(g->m[i].category);
		free(g->m[i].msg);
	}
	g->n = 0;
	g->lost = 0;
}

void sart_batches_free(SartWrapper *w)
{
	SartBatches *b = w->batches;
	if (!b)
		return;
	sart_pool_free(b->pool);
	for (unsigned k = 0; b->sites && k < sart_model.nbatches; k++)
		free(b->sites[k].owner);
	for (unsigned f = 0; b->seg && f < sart_model.ninners; f++) {
		drop_segment(&b->seg[f]);
		free(b->seg[f].m);
	}
	free(b->sites);
	free(b->samples);
	free(b->steps);
	free(b->seg);
	free(b->st);
	free(b->reached);
	free(b);
	w->batches = NULL;
}

static char *copy(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Called on any thread: an inner's message (f >= 0) comes from the thread stepping it, which
 * alone touches that inner's segment; the wrapper's own (f < 0) only from the calling
 * thread, at the inner it is at. */
int sart_batch_hold(SartWrapper *w, int f, SartStatus st, const char *category, const char *msg)
{
	SartBatches *b = w->batches;
	if (!b->holding)
		return 0;
	Segment *g = &b->seg[f < 0 ? b->now : f];
	if (g->n == g->cap) {
		unsigned cap = g->cap ? 2 * g->cap : 8;
		Held *m = realloc(g->m, cap * sizeof *m);
		if (!m) {
			g->lost++;
			return 1;
		}
		g->m = m;
		g->cap = cap;
	}
	Held *h = &g->m[g->n];
	h->st = st;
	h->category = copy(category);
	h->msg = copy(msg);
	if (!h->category || !h->msg) {
		free(h->category);
		free(h->msg);
		g->lost++;
		return 1;
	}
	g->n++;
	return 1;
}

/* Inner f's held messages to the importer's logger, in the order they came. */
static void replay(SartWrapper *w, unsigned f)
{
	Segment *g = &w->batches->seg[f];
	for (unsigned i = 0; i < g->n; i++)
		sart_deliver(w, (int)f, g->m[i].st, g->m[i].category, g->m[i].msg);
	if (g->lost)
		sart_deliver(w, (int)f, SART_WARNING, "logStatusWarning",
		             "[wrapper] messages were lost (out of memory)");
	drop_segment(g);
}

static void step_task(void *env, int i)
{
	SartBatches *b = env;
	SartWrapper *w = b->w;
	b->st[i] = sart_inner_do_step(w->inner[b->inners[i]], b->ti[i], b->hi[i], 0,
	                              &b->reached[i]);
}

/* The batch with the inners' steps at once (see the top of this file). */
static void run_parallel(SartWrapper *w, unsigned char *s, Site *site, unsigned n,
                         const unsigned *inners, const double *ti, const double *hi,
                         double *taken)
{
	SartBatches *b = w->batches;
	SartStatus early = SART_OK; /* a failure before the steps, at position `ready` */
	unsigned ready = n, k;
	b->holding = 1;
	for (k = 0; k < n; k++) {
		b->now = (int)inners[k];
		taken[k] = 0.0;
		if (!sart_do_step_begin(w, s, inners[k], ti[k], hi[k])) {
			ready = k;
			early = w->fail_status;
			w->fail_status = SART_OK; /* the steps before it go on, as in turn */
			break;
		}
	}
	b->w = w;
	b->inners = inners;
	b->ti = ti;
	b->hi = hi;
	if (ready)
		sart_pool_run(b->pool, step_task, b, (int)ready, site->owner);
	for (k = 0; k < ready; k++) {
		b->now = (int)inners[k];
		taken[k] = sart_after_inner_step(w, s, inners[k], ti[k], hi[k], b->st[k],
		                                 b->reached[k]);
		if (sart_has_failed(w)) {
			taken[k] = 0.0;
			break;
		}
	}
	b->holding = 0;
	/* the segments as far as do_steps in turn would have come, the rest dropped */
	unsigned last = k < ready ? k : early ? ready : n;
	for (unsigned j = 0; j < n && j <= last; j++)
		replay(w, inners[j]);
	for (unsigned j = last + 1; j < n; j++)
		drop_segment(&b->seg[inners[j]]);
	if (k == ready && early)
		w->fail_status = early;
}

/* The site's threads: largest measured cost first to the least loaded thread (serial inners
 * to the calling thread); returns the time a pass would save, summed cost minus the most
 * loaded thread's. */
static double assign(SartBatches *b, Site *site, unsigned n, const unsigned *inners)
{
	double load[MAX_THREADS] = {0}, sum = 0, most = 0, cost[MAX_THREADS * 4];
	int placed[MAX_THREADS * 4] = {0};
	if (n > MAX_THREADS * 4)
		return 0; /* not worth the bookkeeping: in turn */
	for (unsigned k = 0; k < n; k++) {
		unsigned f = inners[k];
		cost[k] = sart_pool_median(b->samples + (size_t)f * NSAMPLES, NSAMPLES);
		sum += cost[k];
		site->owner[k] = 0;
		if (sart_model.inners[f].serial) {
			placed[k] = 1;
			load[0] += cost[k];
		}
	}
	for (;;) {
		int best = -1;
		for (unsigned k = 0; k < n; k++)
			if (!placed[k] && (best < 0 || cost[k] > cost[best]))
				best = (int)k;
		if (best < 0)
			break;
		int th = 0;
		for (int t = 1; t < b->threads; t++)
			if (load[t] < load[th])
				th = t;
		site->owner[best] = th;
		placed[best] = 1;
		load[th] += cost[best];
	}
	for (int t = 0; t < b->threads; t++)
		most = load[t] > most ? load[t] : most;
	return sum - most;
}

/* Whether some site still steps in parallel (else the pool goes). */
static void pool_if_needed(SartBatches *b)
{
	for (unsigned k = 0; k < sart_model.nbatches; k++)
		if (b->sites[k].par)
			return;
	sart_pool_free(b->pool);
	b->pool = NULL;
}

static void decide(SartBatches *b, Site *site, unsigned n, const unsigned *inners, int always)
{
	site->decided = 1;
	site->serial_time = sart_pool_median(site->seq, NSAMPLES);
	site->par = always || assign(b, site, n, inners) > MIN_GAIN;
	if (always)
		for (unsigned k = 0, t = 0; k < n; k++)
			site->owner[k] = sart_model.inners[inners[k]].serial ? 0 : (int)(t++ % (unsigned)b->threads);
	if (site->par && !b->pool)
		b->pool = sart_pool_new(b->threads);
	if (!b->pool)
		site->par = 0;
}

/* The do_steps in turn, timed while the site is measured. */
static void run_in_turn(SartWrapper *w, unsigned char *s, Site *site, unsigned n,
                        const unsigned *inners, const double *ti, const double *hi,
                        double *taken)
{
	SartBatches *b = w->batches;
	if (site->decided) {
		for (unsigned k = 0; k < n; k++)
			taken[k] = sart_do_step(w, s, inners[k], ti[k], hi[k]);
		return;
	}
	int all_timed = 1;
	double pass0 = sart_pool_clock();
	for (unsigned k = 0; k < n; k++) {
		unsigned f = inners[k];
		double t0 = sart_pool_clock();
		taken[k] = sart_do_step(w, s, f, ti[k], hi[k]);
		unsigned i = b->steps[f] < WARMUP + NSAMPLES ? b->steps[f]++ : b->steps[f];
		if (i >= WARMUP && i < WARMUP + NSAMPLES)
			b->samples[(size_t)f * NSAMPLES + (i - WARMUP)] = sart_pool_clock() - t0;
		all_timed &= b->steps[f] >= WARMUP + NSAMPLES;
	}
	unsigned i = site->passes++;
	if (i >= WARMUP && i < WARMUP + NSAMPLES)
		site->seq[i - WARMUP] = sart_pool_clock() - pass0;
	if (all_timed && site->passes >= WARMUP + NSAMPLES) {
		decide(b, site, n, inners, 0);
		fast_if_all_in_turn(w);
	}
}

void sart_do_step_batch(SartWrapper *w, void *s, unsigned batch, unsigned n,
                        const unsigned *inners, const double *ti, const double *hi,
                        double *taken)
{
	SartBatches *b = w->batches;
	if (!b || batch >= sart_model.nbatches || n < 2 || n > sart_model.ninners) {
		for (unsigned k = 0; k < n; k++)
			taken[k] = sart_do_step(w, s, inners[k], ti[k], hi[k]);
		return;
	}
	Site *site = &b->sites[batch];
	if (sart_has_failed(w)) {
		for (unsigned k = 0; k < n; k++)
			taken[k] = 0.0;
		return;
	}
#ifdef SART_BATCH_ALWAYS
	if (!site->decided)
		decide(b, site, n, inners, 1);
	site->trials = TRIAL_WARMUP + NSAMPLES; /* no trial: parallel stays */
#endif
	if (!site->par) {
		run_in_turn(w, s, site, n, inners, ti, hi, taken);
		return;
	}
	if (site->trials >= TRIAL_WARMUP + NSAMPLES) {
		run_parallel(w, s, site, n, inners, ti, hi, taken);
		return;
	}
	double t0 = sart_pool_clock();
	run_parallel(w, s, site, n, inners, ti, hi, taken);
	unsigned k = site->trials++;
	if (k >= TRIAL_WARMUP)
		site->trial[k - TRIAL_WARMUP] = sart_pool_clock() - t0;
	if (site->trials == TRIAL_WARMUP + NSAMPLES &&
	    sart_pool_median(site->trial, NSAMPLES) >= site->serial_time - MIN_GAIN) {
		site->par = 0;
		pool_if_needed(b);
		fast_if_all_in_turn(w);
	}
}
