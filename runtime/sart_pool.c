/* sart_pool.c — the persistent worker pool of the master and of wrappers (sart_pool.h).
 *
 * A run is published by bumping a generation counter: a worker that sees it change does
 * the items given to it and counts itself off in `pending`; the caller, done with its own
 * items, waits for `pending` to reach 0.  Both sides wait in three stages: a spin on pause
 * instructions (a few tens of microseconds), then a spin that yields the core at each turn
 * (sched_yield: on an idle core it returns at once, on a busy one another thread runs
 * meanwhile), then sleep on a condition variable.  The first two cover the gaps of a run
 * of parallel passes: the sequential part between two passes, and the wait for the thread
 * that got the larger share of a pass.  Sleeping there would cost a wake-up per pass, and
 * waking a sleeping thread took 30 to 120 us on the 2-core virtual machine this was tuned
 * on (its idle core is halted), more than a pass of 100 us FMUs gains.  The generation is
 * bumped under the mutex, so a worker going to sleep cannot miss it.  The counters are
 * GCC/clang __atomic builtins (acquire/release): what the caller wrote before publishing a
 * run is seen by the workers, and what they wrote in their items is seen by the caller
 * once `pending` is 0.  The counter the workers poll and the one they count off in are on
 * separate cache lines, so counting off does not disturb the pollers. */
#define _POSIX_C_SOURCE 200809L

#include "sart_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Pause iterations before yielding: 2,000 took 36 us on the AMD EPYC this was tuned on. */
enum { SPIN = 2000 };

/* How long a waiter yields the core before it sleeps (seconds): a few wake-up latencies,
 * so a pass whose threads are unevenly loaded by up to this much costs no wake-up, while
 * a pool left idle (the run went back to one thread, or a long sequential phase) is
 * asleep within a fraction of a millisecond. */
#define YIELD_FOR 300e-6

/* A cache line: what one thread writes often is kept off what others poll. */
enum { LINE = 64 };

typedef struct Worker {
	SartPool *pool;
	int index; /* 1 .. nthreads - 1 */
	pthread_t thread;
} Worker;

struct SartPool {
	unsigned long generation; /* atomic; polled by the workers */
	char pad0[LINE - sizeof(unsigned long)];
	int pending;             /* atomic: workers still busy with this generation */
	char pad1[LINE - sizeof(int)];
	int nthreads;
	Worker *workers;
	pthread_mutex_t lock;
	pthread_cond_t work;     /* a new generation, or stop */
	pthread_cond_t done;     /* pending reached 0 */
	int sleepers;            /* under lock: workers waiting on work */
	int caller_sleeping;     /* under lock */
	int stop;                /* under lock, and atomic for the spinners */
	/* the run being done, written before the generation is published */
	SartPoolTask fn;
	void *env;
	int n;
	const int *owner;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The generation once it differs from seen, or stop is set, or seen when the spin gives
 * up (the worker then sleeps). */
static unsigned long spin_for_generation(SartPool *p, unsigned long seen)
{
	unsigned long g = seen;
	for (int spin = 0; spin < SPIN; spin++) {
		g = __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE);
		if (g != seen || __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
			return g;
		relax();
	}
	for (double until = seconds() + YIELD_FOR; seconds() < until;) {
		sched_yield();
		g = __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE);
		if (g != seen || __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
			return g;
	}
	return g;
}

/* Whether pending reached 0 before the spin gave up. */
static int spin_for_done(SartPool *p)
{
	for (int spin = 0; spin < SPIN; spin++) {
		if (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) == 0)
			return 1;
		relax();
	}
	for (double until = seconds() + YIELD_FOR; seconds() < until;) {
		sched_yield();
		if (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) == 0)
			return 1;
	}
	return 0;
}

static void do_items(SartPool *p, int me)
{
	for (int i = 0; i < p->n; i++) {
		int o = p->owner ? p->owner[i] : 0;
		if (o < 1 || o >= p->nthreads)
			o = 0;
		if (o == me)
			p->fn(p->env, i);
	}
}

static void *worker_main(void *arg)
{
	Worker *w = arg;
	SartPool *p = w->pool;
	unsigned long seen = 0;
	for (;;) {
		unsigned long g = spin_for_generation(p, seen);
		if (g == seen) {
			pthread_mutex_lock(&p->lock);
			p->sleepers++;
			while ((g = __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE)) == seen &&
			       !p->stop)
				pthread_cond_wait(&p->work, &p->lock);
			p->sleepers--;
			pthread_mutex_unlock(&p->lock);
		}
		if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
			return NULL;
		seen = g;
		do_items(p, w->index);
		if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_ACQ_REL) == 0) {
			pthread_mutex_lock(&p->lock);
			if (p->caller_sleeping)
				pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
	}
}

void sart_pool_run(SartPool *p, SartPoolTask fn, void *env, int n, const int owner[])
{
	p->fn = fn;
	p->env = env;
	p->n = n;
	p->owner = owner;
	__atomic_store_n(&p->pending, p->nthreads - 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&p->lock);
	__atomic_add_fetch(&p->generation, 1, __ATOMIC_RELEASE);
	if (p->sleepers)
		pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	do_items(p, 0);
	if (spin_for_done(p))
		return;
	pthread_mutex_lock(&p->lock);
	p->caller_sleeping = 1;
	while (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) != 0)
		pthread_cond_wait(&p->done, &p->lock);
	p->caller_sleeping = 0;
	pthread_mutex_unlock(&p->lock);
}

SartPool *sart_pool_new(int nthreads)
{
	if (nthreads < 2)
		return NULL;
	SartPool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->workers = calloc((size_t)nthreads, sizeof *p->workers);
	if (!p->workers) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->nthreads = 1;
	for (int i = 1; i < nthreads; i++) {
		Worker *w = &p->workers[i];
		w->pool = p;
		w->index = i;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
			sart_pool_free(p);
			return NULL;
		}
		p->nthreads = i + 1;
	}
	return p;
}

int sart_pool_threads(const SartPool *p)
{
	return p ? p->nthreads : 1;
}

void sart_pool_free(SartPool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (int i = 1; i < p->nthreads; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p->workers);
	free(p);
}

double sart_pool_clock(void)
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

double sart_pool_median(const double *v, int n)
{
	double s[64];
	if (n > 64)
		n = 64;
	memcpy(s, v, (size_t)n * sizeof s[0]);
	qsort(s, (size_t)n, sizeof s[0], cmp_double);
	return s[n / 2];
}
