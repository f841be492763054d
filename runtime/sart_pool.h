/* sart_pool.h — a persistent worker pool: the one behind `sacc simulate --threads N`
 * (orchestrator/sart_master_parallel.c) and behind wrappers built with `sacc build --threads N`
 * (sart_batch.c).  It lives in runtime/ because a wrapper carries it.
 *
 * The pool is made once per run (or per wrapper instance): nthreads - 1 worker threads, the
 * caller being thread 0.  Between runs of work the workers spin briefly, then yield their
 * core for a few hundred microseconds (the sequential part between two parallel phases is
 * short, and waking a sleeping thread costs tens of microseconds), then sleep on a condition
 * variable, so no thread is created per step and an idle pool costs nothing.  Each item of a
 * run is given to one thread by the caller (owner[]), so an FMU is stepped by the thread
 * the caller names; the caller does its own items, then waits for the others.  sart_pool_run returns once every item is done, and
 * everything the items wrote is then visible to the caller. */
#ifndef SART_POOL_H
#define SART_POOL_H

typedef struct SartPool SartPool;

/* One item of work: item is an index in 0 .. n - 1 of sart_pool_run. */
typedef void (*SartPoolTask)(void *env, int item);

/* A pool of nthreads threads in all (the caller and nthreads - 1 workers), nthreads >= 2.
 * NULL when a thread cannot be created or memory runs out (nothing is left behind). */
SartPool *sart_pool_new(int nthreads);

/* The threads in all, the caller included. */
int sart_pool_threads(const SartPool *p);

/* Runs fn(env, i) for i in 0 .. n - 1, item i on thread owner[i] (0: the caller; values
 * outside 1 .. threads - 1 count as 0); returns when all are done.  Not reentrant: an
 * item must not call sart_pool_run. */
void sart_pool_run(SartPool *p, SartPoolTask fn, void *env, int n, const int owner[]);

/* Stops and joins the workers and frees the pool; NULL is fine. */
void sart_pool_free(SartPool *p);

/* What both users of the pool time their steps with, to decide whether stepping at once
 * pays: a monotonic clock in seconds, and the median of n times (1 <= n <= 64; v is left
 * as it is). */
double sart_pool_clock(void);
double sart_pool_median(const double *v, int n);

#endif
