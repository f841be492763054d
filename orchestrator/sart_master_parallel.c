/* sart_master_parallel.c — FMUs stepped at once on a worker pool (SartMasterOptions.threads,
 * `sacc simulate --threads N`).
 *
 * Groups.  FMUs that do not depend on each other within a pass may step at once: under an
 * algorithm whose inputs are all from t_n (Jacobi) every FMU is one group; under one with
 * fresh inputs (Gauss-Seidel) a group is a generation, the longest run of the execution
 * order in which no FMU feeds another whose inputs are fresh (a delayed FMU takes its
 * inputs at t_n) and no algebraic loop is solved before its end.  Everything else a pass
 * does (inputs set, signals read, loops solved, states saved and restored, the step-size
 * controller, event location) stays on the calling thread, in the order of one thread.
 *
 * When it pays.  Dispatching to a thread and waiting for it costs microseconds, a trivial
 * FMU's step tens of nanoseconds, and a second core is only there when the machine is not
 * busy with other work; all of this changes along a run.  So each group is timed all along
 * (GroupRule): its passes in the mode it is in, one thread or parallel, go into a window of
 * the last NSAMPLES, judged by their median.  The first WARMUP + NSAMPLES passes run on the
 * calling thread, each FMU timed; then, and whenever the rule says so, the group tries the
 * other mode (parallel passes only when the FMUs' costs shared out over the threads, see
 * assign, would save MIN_GAIN), and switches when the trial's median beats its mode's by
 * margin().  A lost trial is not repeated before the run has spent PROBE_SPACING times what
 * it lost, doubling in a row; a mode whose window mostly loses to the other's last median
 * tries the other at once (a machine that got busy).  The pool is made at the first trial
 * of parallel passes and kept to the end (its threads sleep when unused).  docs/design.md
 * says why.
 *
 * Same results, same order.  An FMU's step only touches that FMU (master_step_raw); the
 * messages it logs meanwhile are held in its FmuLog, and afterwards, in the group's order,
 * each FMU's messages are replayed and its outcome taken (master_step_finish): the same
 * messages, statuses and failures, in the same order, as one thread gives.  An FMU after
 * the one whose outcome ends the pass (a failure; a discard under Gauss-Seidel) has
 * stepped, but its messages are dropped: a failed run ends, and a discarded step restores
 * every FMU before it is redone. */
#define _POSIX_C_SOURCE 200809L

#include "sart_master_internal.h"
#include "sart_pool.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NSAMPLES = SART_PAR_SAMPLES, WARMUP = SART_PAR_WARMUP };

/* Parallel passes not timed at the first trial: fresh threads take a while to be scheduled
 * well.  Later trials find the threads made and skip WARMUP passes only. */
enum { TRIAL_WARMUP = 8 };

/* The least a mode must save per pass to be switched to, besides 1/32 of the pass
 * (seconds): the band between the two thresholds keeps a group from going back and forth
 * when both modes cost the same. */
#define MIN_GAIN 5e-6

/* A trial of the other mode that loses is not repeated before the run has spent
 * PROBE_SPACING times what it lost (doubling with each trial lost in a row, up to 64
 * times), so trials cost at most about 1/PROBE_SPACING of the run. */
#define PROBE_SPACING 32.0
enum { MAX_BACKOFF = 6 };

/* One-thread passes of a group cheaper than this are timed one in SAMPLE_STRIDE: reading
 * the clock costs tens of nanoseconds, a trivial FMU's step as much. */
#define CHEAP_PASS 20e-6
enum { SAMPLE_STRIDE = 64 };

enum { SERIAL = 0, PARALLEL = 1 };

/* What the rule knows of one group. */
typedef struct GroupRule {
	int mode;          /* SERIAL or PARALLEL: how the group steps outside trials */
	int trying;        /* a trial of the other mode is on */
	int passes;        /* passes since the mode or the trial began (warm-up, windows) */
	int stride;        /* passes until the next timed one-thread pass */
	int fresh[2];      /* timed passes in each mode's window since the phase began */
	int head[2];
	double win[2][NSAMPLES]; /* the last timed passes in each mode (seconds) */
	double median[2];  /* each mode's last full window's median, 0 before one */
	double trial_sum;  /* what the trial's timed passes took */
	int trial_worse;   /* the trial's timed passes that did not beat the mode */
	int worse;         /* the window's passes that lost to the other mode's median */
	double next_trial; /* no trial starts before (seconds) */
	int lost;          /* trials lost in a row */
	int timed;         /* this pass is timed */
	int flips;         /* passes since the last forced switch (threads_flip) */
} GroupRule;

/* One FMU's outcome, alone on its cache line: FMUs stepped on different threads do not
 * share one. */
typedef struct StepSlot {
	double r;
	SartStatus st;
	char pad[64 - sizeof(double) - sizeof(SartStatus)];
} StepSlot;

typedef struct MasterPar {
	SartPool *pool;
	int nthreads;        /* the pool's, or what it would have */
	int no_pool;         /* the pool could not be made: one thread for good */
	int pool_warm;       /* a trial has run on the pool since it was made */
	int ngroups;
	int *group_first;    /* FMU order position of each group's first FMU (Gauss-Seidel), or
	                        0 for the one group (Jacobi) */
	int *group_len;
	GroupRule *rule;     /* group -> its rule */
	int *pos_group;      /* execution-order position -> its group (Gauss-Seidel) */
	int *all;            /* 0 .. nfmus - 1 (Jacobi's group) */
	int *owner;          /* FMU -> its thread */
	int *task_owner;     /* the current phase's items -> threads */
	double *cost;        /* FMU -> its cost when last shared out */
	double *samples;     /* FMU -> NSAMPLES step times (a ring) */
	int *steps;          /* FMU -> timed steps so far */
	/* the phase in progress */
	const int *cur;
	double t, h;
	StepSlot *out;       /* FMU -> its outcome */
} MasterPar;

/* Whether FMU f's inputs take this pass's values from FMU src (Gauss-Seidel). */
static int feeds(const Master *m, int src, int f)
{
	if (m->an->delayed[f])
		return 0;
	for (int c = 0; c < m->sc->nconns; c++)
		if (m->sc->conns[c].src.fmu == src && m->sc->conns[c].dst.fmu == f)
			return 1;
	/* a String connection feeds as a numeric one does (set_string_inputs) */
	for (int c = 0; c < m->o->nstring_conns; c++)
		if (m->o->string_conns[c].src.fmu == src && m->o->string_conns[c].dst.fmu == f)
			return 1;
	return 0;
}

/* Gauss-Seidel's generations over the execution order. */
static void make_generations(Master *m, MasterPar *p)
{
	int n = m->sc->nfmus;
	const int *order = m->an->fmu_order;
	p->ngroups = 0;
	for (int k = 0; k < n;) {
		int len = 1;
		for (; k + len < n; len++) {
			int ends = 0, f = order[k + len];
			for (int i = 0; i < m->nloops; i++)
				ends |= m->loops[i].last_pos == k + len - 1;
			for (int j = 0; j < len && !ends; j++)
				ends = feeds(m, order[k + j], f);
			if (ends)
				break;
		}
		p->group_first[p->ngroups] = k;
		p->group_len[p->ngroups] = len;
		for (int j = 0; j < len; j++)
			p->pos_group[k + j] = p->ngroups;
		p->ngroups++;
		k += len;
	}
}

int master_par_prepare(Master *m)
{
	int n = m->sc->nfmus;
	if (m->o->threads <= 1 || n < 2)
		return 0;
	MasterPar *p = calloc(1, sizeof *p);
	m->par = p;
	if (!p)
		return master_fail(m, "out of memory");
	size_t nn = (size_t)n;
	p->group_first = calloc(nn, sizeof *p->group_first);
	p->group_len = calloc(nn, sizeof *p->group_len);
	p->rule = calloc(nn, sizeof *p->rule);
	p->pos_group = calloc(nn, sizeof *p->pos_group);
	p->all = calloc(nn, sizeof *p->all);
	p->owner = calloc(nn, sizeof *p->owner);
	p->task_owner = calloc(nn, sizeof *p->task_owner);
	p->samples = calloc(nn * NSAMPLES, sizeof *p->samples);
	p->steps = calloc(nn, sizeof *p->steps);
	p->cost = calloc(nn, sizeof *p->cost);
	p->out = calloc(nn, sizeof *p->out);
	if (!p->group_first || !p->group_len || !p->rule || !p->pos_group || !p->all ||
	    !p->owner || !p->task_owner || !p->samples || !p->steps || !p->cost || !p->out)
		return master_fail(m, "out of memory");
	for (int f = 0; f < n; f++)
		p->all[f] = f;
	if (m->alg->fresh_inputs) {
		make_generations(m, p);
	} else {
		p->ngroups = 1;
		p->group_len[0] = n;
	}
	int widest = 0;
	for (int g = 0; g < p->ngroups; g++)
		widest = p->group_len[g] > widest ? p->group_len[g] : widest;
	p->nthreads = m->o->threads < widest ? m->o->threads : widest;
	if (p->nthreads < 2)
		master_par_free(m); /* nothing can step at once: the passes' own loops */
	return 0;
}

void master_par_free(Master *m)
{
	MasterPar *p = m->par;
	if (!p)
		return;
	sart_pool_free(p->pool);
	free(p->group_first);
	free(p->group_len);
	free(p->rule);
	free(p->pos_group);
	free(p->all);
	free(p->owner);
	free(p->task_owner);
	free(p->samples);
	free(p->steps);
	free(p->cost);
	free(p->out);
	free(p);
	m->par = NULL;
}

/* The FMUs of group g (FMU indices, in the order they step). */
static const int *group_fmus(const Master *m, const MasterPar *p, int g)
{
	return m->alg->fresh_inputs ? m->an->fmu_order + p->group_first[g] : p->all;
}

/* FMU f's measured cost: the median of its last timed steps. */
static double cost_of(const MasterPar *p, int f)
{
	int n = p->steps[f] < NSAMPLES ? p->steps[f] : NSAMPLES;
	return n ? sart_pool_median(p->samples + (size_t)f * NSAMPLES, n) : 0;
}

/* Group g's threads, largest cost first to the least loaded (SART_CAP_SERIAL FMUs to the
 * calling thread); returns the time it saves per pass, summed cost minus the largest
 * load. */
static double assign(Master *m, MasterPar *p, int g)
{
	const int *fm = group_fmus(m, p, g);
	int len = p->group_len[g];
	double load[SART_MAX_THREADS] = {0}, sum = 0, most = 0;
	for (int j = 0; j < len; j++) {
		int f = fm[j];
		p->cost[f] = cost_of(p, f);
		sum += p->cost[f];
		p->owner[f] = -1;
		if (m->sc->fmus[f].caps & SART_CAP_SERIAL) {
			p->owner[f] = 0;
			load[0] += p->cost[f];
		}
	}
	for (;;) {
		int best = -1;
		for (int j = 0; j < len; j++)
			if (p->owner[fm[j]] < 0 && (best < 0 || p->cost[fm[j]] > p->cost[fm[best]]))
				best = j;
		if (best < 0)
			break;
		int th = 0;
		for (int k = 1; k < p->nthreads; k++)
			if (load[k] < load[th])
				th = k;
		p->owner[fm[best]] = th;
		load[th] += p->cost[fm[best]];
	}
	for (int k = 0; k < p->nthreads; k++)
		most = load[k] > most ? load[k] : most;
	return sum - most;
}

/* What one mode must beat the other by to be switched to (a and b: their pass times). */
static double margin(double a, double b)
{
	return MIN_GAIN + (a > b ? a : b) / 32;
}

/* The mode group g steps in this pass. */
static int pass_mode(const GroupRule *gr)
{
	return gr->trying ? !gr->mode : gr->mode;
}

/* The pool, made at the first trial of parallel passes; 0 when it cannot be (the run then
 * stays on one thread). */
static int have_pool(Master *m, MasterPar *p)
{
	if (!p->pool && !p->no_pool) {
		p->pool = sart_pool_new(p->nthreads);
		p->no_pool = !p->pool;
		if (p->pool)
			m->res->threads = sart_pool_threads(p->pool);
	}
	return p->pool != NULL;
}

/* Group g begins a phase in mode (its mode's, or a trial's). */
static void begin_phase(GroupRule *gr)
{
	gr->passes = 0;
	gr->fresh[SERIAL] = gr->fresh[PARALLEL] = 0;
	gr->trial_sum = 0;
	gr->trial_worse = 0;
	gr->worse = 0;
}

/* Group g tries its other mode (parallel passes only when they could pay). */
static void start_trial(Master *m, MasterPar *p, int g)
{
	GroupRule *gr = &p->rule[g];
	if (gr->mode == SERIAL &&
	    (!(assign(m, p, g) > MIN_GAIN || m->o->threads_always) || !have_pool(m, p)))
		return;
	gr->trying = 1;
	begin_phase(gr);
}

/* A trial is over: the group switches when the trial's median (med; INFINITY when it was
 * cut short) beats its mode's by margin(), and otherwise waits before the next trial
 * PROBE_SPACING times what this one lost, doubled for each trial lost in a row. */
static void end_trial(Master *m, MasterPar *p, int g, double med, double now)
{
	GroupRule *gr = &p->rule[g];
	int other = !gr->mode, timed = gr->fresh[other];
	double base = gr->median[gr->mode], passes = WARMUP + NSAMPLES, sum = gr->trial_sum;
	gr->trying = 0;
	begin_phase(gr);
	if (med < base - margin(base, med) || (other == PARALLEL && m->o->threads_always)) {
		gr->mode = other;
		gr->median[other] = med;
		gr->lost = 0;
		/* a trial back would lose about this */
		gr->next_trial = now + PROBE_SPACING * passes * (base - med > 0 ? base - med : 0);
		return;
	}
	/* cut short: its mean, no better than base, keeps the trigger in record() quiet */
	gr->median[other] = med < INFINITY ? med : timed ? sum / timed : base;
	double loss = timed ? (sum / timed - base) * (timed + WARMUP) : 0;
	if (loss < passes * MIN_GAIN)
		loss = passes * MIN_GAIN;
	gr->next_trial = now + PROBE_SPACING * loss * (double)(1 << gr->lost);
	gr->lost += gr->lost < MAX_BACKOFF;
}

/* The median of the last n passes in mode k (n <= NSAMPLES). */
static double recent_median(const GroupRule *gr, int k, int n)
{
	double v[NSAMPLES];
	for (int i = 0; i < n; i++)
		v[i] = gr->win[k][(gr->head[k] + NSAMPLES - 1 - i) % NSAMPLES];
	return sart_pool_median(v, n);
}

/* Group g's pass took `took` seconds (timed), ending at now: into its mode's window; a
 * trial is judged once its window is full, or cut short once more than half of it has
 * not beaten the mode; outside a trial, a full window may start one. */
static void record(Master *m, MasterPar *p, int g, double took, double now)
{
	GroupRule *gr = &p->rule[g];
	int k = pass_mode(gr);
	gr->win[k][gr->head[k]] = took;
	gr->head[k] = (gr->head[k] + 1) % NSAMPLES;
	gr->fresh[k]++;
	if (m->o->threads_flip > 0)
		return;
	if (gr->trying) {
		double base = gr->median[gr->mode];
		gr->trial_sum += took;
		gr->trial_worse += !(took < base - margin(base, took));
		if (k == PARALLEL && !p->pool_warm)
			p->pool_warm = 1;
		if (gr->fresh[k] == NSAMPLES)
			end_trial(m, p, g, recent_median(gr, k, NSAMPLES), now);
		else if (gr->trial_worse > NSAMPLES / 2 && !m->o->threads_always)
			end_trial(m, p, g, INFINITY, now);
		return;
	}
	/* outside a trial: a full window, or one whose passes mostly lose to the other
	 * mode's last median (a machine that got busy is seen within a few passes) */
	double other = gr->median[!k];
	if (other > 0 && took > other + margin(other, took))
		gr->worse++;
	if (gr->fresh[k] < NSAMPLES && gr->worse <= NSAMPLES / 2)
		return;
	gr->median[k] = recent_median(gr, k, gr->fresh[k] < NSAMPLES ? gr->fresh[k] : NSAMPLES);
	gr->fresh[k] = 0;
	gr->worse = 0;
	if (m->o->threads_always ? k == SERIAL
	                         : now >= gr->next_trial ||
	                               (other > 0 && gr->median[k] > other + margin(other, gr->median[k])))
		start_trial(m, p, g);
}

/* Group g begins a pass: whether it goes through master_par_step (on the pool, or timed
 * on one thread) rather than the passes' own one-thread loop. */
static int begin_pass(Master *m, MasterPar *p, int g)
{
	GroupRule *gr = &p->rule[g];
	int flip = m->o->threads_flip;
	if (flip > 0 && gr->passes >= WARMUP + NSAMPLES && ++gr->flips >= flip) {
		/* the tests' forced switches */
		gr->flips = 0;
		if (gr->mode == PARALLEL || (have_pool(m, p) && (assign(m, p, g), 1)))
			gr->mode = !gr->mode;
	}
	int mode = pass_mode(gr);
	int warm = mode == PARALLEL && !p->pool_warm ? TRIAL_WARMUP : WARMUP;
	int timed = gr->passes >= warm;
	gr->passes += gr->passes < INT_MAX;
	if (timed && mode == SERIAL && !gr->trying && gr->median[SERIAL] > 0 &&
	    gr->median[SERIAL] < CHEAP_PASS) {
		timed = ++gr->stride >= SAMPLE_STRIDE;
		gr->stride = timed ? 0 : gr->stride;
	}
	gr->timed = timed;
	return mode == PARALLEL || timed;
}

static void step_task(void *env, int i)
{
	Master *m = env;
	MasterPar *p = m->par;
	int f = p->cur[i];
	p->out[f].st = master_step_raw(m, f, p->t, p->h, &p->out[f].r);
}

/* The group of the FMUs fmus[0 .. n-1]. */
static int group_of(const Master *m, const MasterPar *p, const int *fmus)
{
	if (!m->alg->fresh_inputs)
		return 0;
	return p->pos_group[fmus - m->an->fmu_order];
}

void master_par_step(Master *m, const int *fmus, int n, double t, double h)
{
	MasterPar *p = m->par;
	int g = group_of(m, p, fmus);
	GroupRule *gr = &p->rule[g];
	for (int i = 0; i < n; i++)
		m->log[fmus[i]].buffering = 1;
	p->t = t;
	p->h = h;
	if (pass_mode(gr) == PARALLEL) {
		for (int i = 0; i < n; i++)
			p->task_owner[i] = p->owner[fmus[i]];
		double t0 = gr->timed ? sart_pool_clock() : 0;
		p->cur = fmus;
		sart_pool_run(p->pool, step_task, m, n, p->task_owner);
		m->res->parallel_steps += n;
		if (gr->timed) {
			double t1 = sart_pool_clock();
			record(m, p, g, t1 - t0, t1);
		}
		return;
	}
	/* one thread: each FMU timed (the costs that assign() shares out) when the pass is */
	double pass0 = gr->timed ? sart_pool_clock() : 0, t0 = pass0;
	for (int i = 0; i < n; i++) {
		int f = fmus[i];
		p->out[f].st = master_step_raw(m, f, t, h, &p->out[f].r);
		if (!gr->timed)
			continue;
		double t1 = sart_pool_clock();
		p->samples[(size_t)f * NSAMPLES + (size_t)(p->steps[f] % NSAMPLES)] = t1 - t0;
		p->steps[f] += p->steps[f] < INT_MAX - NSAMPLES ? 1 : 1 - NSAMPLES;
		t0 = t1;
	}
	if (gr->timed)
		record(m, p, g, t0 - pass0, t0);
}

/* FMU f's held messages, to the run's logger in the order they came. */
static void replay(Master *m, int f)
{
	FmuLog *lg = &m->log[f];
	lg->buffering = 0;
	for (int i = 0; i < lg->n; i++) {
		master_log_now(m, lg->e[i].status, lg->e[i].category, lg->e[i].message);
		free(lg->e[i].category);
		free(lg->e[i].message);
	}
	if (lg->lost)
		master_log_now(m, SART_WARNING, "logStatusWarning",
		               lg->lost == 1 ? "a message was lost (out of memory)"
		                             : "messages were lost (out of memory)");
	lg->n = 0;
	lg->lost = 0;
}

int master_par_outcome(Master *m, int f, double t, double h, double *reached)
{
	replay(m, f);
	return master_step_finish(m, f, t, h, m->par->out[f].st, m->par->out[f].r, reached);
}

void master_par_drop(Master *m, const int *fmus, int n)
{
	for (int i = 0; i < n; i++) {
		FmuLog *lg = &m->log[fmus[i]];
		for (int k = 0; k < lg->n; k++) {
			free(lg->e[k].category);
			free(lg->e[k].message);
		}
		lg->n = 0;
		lg->lost = 0;
		lg->buffering = 0;
	}
}

int master_par_all(Master *m, double t, double h, double *short_end)
{
	MasterPar *p = m->par;
	int n = m->sc->nfmus, discarded = 0;
	if (!begin_pass(m, p, 0)) {
		/* one thread's loop, as jacobi_pass has it */
		for (int f = 0; f < n; f++) {
			double r;
			int st = master_step_one(m, f, t, h, &r);
			if (st < 0)
				return -1;
			if (st > 0 && (!discarded || r < *short_end))
				*short_end = r;
			discarded |= st > 0;
		}
		return discarded;
	}
	master_par_step(m, p->all, n, t, h);
	for (int f = 0; f < n; f++) {
		double r;
		int st = master_par_outcome(m, f, t, h, &r);
		if (st < 0) {
			master_par_drop(m, p->all + f + 1, n - f - 1);
			return -1;
		}
		if (st > 0 && (!discarded || r < *short_end))
			*short_end = r;
		discarded |= st > 0;
	}
	return discarded;
}

int master_par_generation(Master *m, int k)
{
	MasterPar *p = m->par;
	if (!p)
		return 1;
	int g = p->pos_group[k];
	if (p->group_len[g] < 2 || k != p->group_first[g] || !begin_pass(m, p, g))
		return 1;
	return p->group_len[g];
}
