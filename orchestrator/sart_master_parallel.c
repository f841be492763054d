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
 * FMU's step tens of nanoseconds.  So the first SART_PAR_WARMUP + SART_PAR_SAMPLES steps
 * of every FMU run on the calling thread and are timed (the median of the last
 * SART_PAR_SAMPLES); then each group's threads are assigned (largest measured cost first,
 * to the least loaded thread; SART_CAP_SERIAL FMUs to the calling thread), and a group
 * whose summed cost exceeds the largest thread's load by 5 us tries parallel passes.  The
 * pool is only made then.  Those passes are timed in turn (after TRIAL_WARMUP of them, the
 * median of SART_PAR_SAMPLES), and the group stays parallel only when they beat the
 * median of its timed one-thread passes by 5 us: what dispatching, waiting and a machine
 * busy with other work cost is measured, not guessed.
 * When no group stays parallel the pool is freed.
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

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NSAMPLES = SART_PAR_SAMPLES, WARMUP = SART_PAR_WARMUP };

/* Parallel passes not timed at first: fresh threads take a while to be scheduled well. */
enum { TRIAL_WARMUP = 8 };

/* The least a group must save per pass, besides twice the dispatch time (seconds). */
#define MIN_GAIN 5e-6

typedef struct MasterPar {
	SartPool *pool;
	int nthreads;        /* the pool's, or what it would have */
	int decided;         /* the costs are measured and the groups set */
	int ngroups;
	int *group_first;    /* FMU order position of each group's first FMU (Gauss-Seidel), or
	                        0 for the one group (Jacobi) */
	int *group_len;
	int *group_par;      /* the group steps in parallel */
	int *pos_group;      /* execution-order position -> its group (Gauss-Seidel) */
	int *all;            /* 0 .. nfmus - 1 (Jacobi's group) */
	int *owner;          /* FMU -> its thread */
	int *task_owner;     /* the current phase's items -> threads */
	double *samples;     /* FMU -> NSAMPLES step times */
	double *serial_time; /* group -> the median time of its passes on one thread */
	int *seq_passes;     /* group -> passes on one thread timed or skipped so far */
	double *seq_samples; /* group -> NSAMPLES times of those passes */
	int *trials;         /* group -> parallel passes timed or skipped so far */
	double *trial_samples; /* group -> NSAMPLES times of its parallel passes */
	int *steps;          /* FMU -> steps timed or skipped so far */
	/* the phase in progress */
	const int *cur;
	double t, h;
	SartStatus *st;
	double *r;
} MasterPar;

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

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
	p->group_par = calloc(nn, sizeof *p->group_par);
	p->pos_group = calloc(nn, sizeof *p->pos_group);
	p->all = calloc(nn, sizeof *p->all);
	p->owner = calloc(nn, sizeof *p->owner);
	p->task_owner = calloc(nn, sizeof *p->task_owner);
	p->samples = calloc(nn * NSAMPLES, sizeof *p->samples);
	p->steps = calloc(nn, sizeof *p->steps);
	p->st = calloc(nn, sizeof *p->st);
	p->r = calloc(nn, sizeof *p->r);
	p->serial_time = calloc(nn, sizeof *p->serial_time);
	p->trials = calloc(nn, sizeof *p->trials);
	p->trial_samples = calloc(nn * NSAMPLES, sizeof *p->trial_samples);
	p->seq_passes = calloc(nn, sizeof *p->seq_passes);
	p->seq_samples = calloc(nn * NSAMPLES, sizeof *p->seq_samples);
	if (!p->seq_passes || !p->seq_samples || !p->serial_time || !p->trials || !p->trial_samples || !p->group_first ||
	    !p->group_len || !p->group_par || !p->pos_group || !p->all || !p->owner ||
	    !p->task_owner || !p->samples || !p->steps || !p->st || !p->r)
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
	free(p->group_par);
	free(p->pos_group);
	free(p->all);
	free(p->owner);
	free(p->task_owner);
	free(p->samples);
	free(p->steps);
	free(p->st);
	free(p->r);
	free(p->serial_time);
	free(p->trials);
	free(p->trial_samples);
	free(p->seq_passes);
	free(p->seq_samples);
	free(p);
	m->par = NULL;
}

/* The FMUs of group g (FMU indices, in the order they step). */
static const int *group_fmus(const Master *m, const MasterPar *p, int g)
{
	return m->alg->fresh_inputs ? m->an->fmu_order + p->group_first[g] : p->all;
}

/* FMU f's measured cost: the median of its timed steps. */
static double cost_of(const MasterPar *p, int f)
{
	double s[NSAMPLES];
	memcpy(s, p->samples + (size_t)f * NSAMPLES, sizeof s);
	qsort(s, NSAMPLES, sizeof s[0], cmp_double);
	return s[NSAMPLES / 2];
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
		sum += cost_of(p, f);
		p->owner[f] = -1;
		if (m->sc->fmus[f].caps & SART_CAP_SERIAL) {
			p->owner[f] = 0;
			load[0] += cost_of(p, f);
		}
	}
	for (;;) {
		int best = -1;
		for (int j = 0; j < len; j++)
			if (p->owner[fm[j]] < 0 && (best < 0 || cost_of(p, fm[j]) > cost_of(p, fm[best])))
				best = j;
		if (best < 0)
			break;
		int th = 0;
		for (int k = 1; k < p->nthreads; k++)
			if (load[k] < load[th])
				th = k;
		p->owner[fm[best]] = th;
		load[th] += cost_of(p, fm[best]);
	}
	for (int k = 0; k < p->nthreads; k++)
		most = load[k] > most ? load[k] : most;
	return sum - most;
}

/* Every FMU has been timed: the groups that could pay try stepping in parallel (their
 * passes are timed again, see keep_or_drop). */
static void decide(Master *m, MasterPar *p)
{
	int any = 0, always = m->o->threads_always;
	p->decided = 1;
	for (int g = 0; g < p->ngroups; g++) {
		double *seq = p->seq_samples + (size_t)g * NSAMPLES;
		qsort(seq, NSAMPLES, sizeof seq[0], cmp_double);
		p->serial_time[g] = seq[NSAMPLES / 2];
		double gain = p->group_len[g] > 1 ? assign(m, p, g) : 0;
		p->group_par[g] = p->group_len[g] > 1 && (always || gain > MIN_GAIN);
		any |= p->group_par[g];
	}
	if (any)
		p->pool = sart_pool_new(p->nthreads);
	if (!p->pool) {
		memset(p->group_par, 0, (size_t)p->ngroups * sizeof *p->group_par);
		return;
	}
	m->res->threads = sart_pool_threads(p->pool);
}

/* Group g has had its trial of parallel passes: it stays parallel when their median beats
 * its one-thread time by MIN_GAIN (dispatching, waiting, and a machine busy with other work
 * show there); the pool goes when no group keeps it. */
static void keep_or_drop(Master *m, MasterPar *p, int g)
{
	double *s = p->trial_samples + (size_t)g * NSAMPLES;
	qsort(s, NSAMPLES, sizeof s[0], cmp_double);
	if (m->o->threads_always || s[NSAMPLES / 2] < p->serial_time[g] - MIN_GAIN)
		return;
	p->group_par[g] = 0;
	for (int k = 0; k < p->ngroups; k++)
		if (p->group_par[k])
			return;
	sart_pool_free(p->pool);
	p->pool = NULL;
	m->res->threads = 1; /* what the summary reports: the run goes on on one */
}

static void step_task(void *env, int i)
{
	Master *m = env;
	MasterPar *p = m->par;
	int f = p->cur[i];
	p->st[f] = master_step_raw(m, f, p->t, p->h, &p->r[f]);
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
	for (int i = 0; i < n; i++)
		m->log[fmus[i]].buffering = 1;
	p->t = t;
	p->h = h;
	if (p->decided && p->group_par[group_of(m, p, fmus)]) {
		for (int i = 0; i < n; i++)
			p->task_owner[i] = p->owner[fmus[i]];
		int g = group_of(m, p, fmus), k = p->trials[g];
		double t0 = k < TRIAL_WARMUP + NSAMPLES ? seconds() : 0;
		p->cur = fmus;
		sart_pool_run(p->pool, step_task, m, n, p->task_owner);
		m->res->parallel_steps += n;
		if (k >= TRIAL_WARMUP + NSAMPLES)
			return;
		p->trials[g]++;
		if (k >= TRIAL_WARMUP)
			p->trial_samples[(size_t)g * NSAMPLES + (size_t)(k - TRIAL_WARMUP)] =
				seconds() - t0;
		if (k + 1 == TRIAL_WARMUP + NSAMPLES)
			keep_or_drop(m, p, g);
		return;
	}
	int timed_all = 1;
	double pass0 = p->decided ? 0 : seconds();
	for (int i = 0; i < n; i++) {
		int f = fmus[i];
		double t0 = p->decided ? 0 : seconds();
		p->st[f] = master_step_raw(m, f, t, h, &p->r[f]);
		if (p->decided)
			continue;
		int k = p->steps[f]++;
		if (k >= WARMUP && k < WARMUP + NSAMPLES)
			p->samples[(size_t)f * NSAMPLES + (size_t)(k - WARMUP)] = seconds() - t0;
	}
	if (p->decided)
		return;
	int mine = group_of(m, p, fmus), k = p->seq_passes[mine]++;
	if (k >= WARMUP && k < WARMUP + NSAMPLES)
		p->seq_samples[(size_t)mine * NSAMPLES + (size_t)(k - WARMUP)] = seconds() - pass0;
	for (int g = 0; g < p->ngroups; g++)
		for (int j = 0; p->group_len[g] > 1 && j < p->group_len[g]; j++)
			timed_all &= p->steps[group_fmus(m, p, g)[j]] >= WARMUP + NSAMPLES;
	if (timed_all)
		decide(m, p);
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
	return master_step_finish(m, f, t, h, m->par->st[f], m->par->r[f], reached);
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
	if (p->decided && !p->group_par[0]) {
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
	if (p->decided && !p->group_par[g])
		return 1;
	return p->group_len[g];
}
