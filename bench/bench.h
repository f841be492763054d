/* bench.h — what the benchmarks' C drivers share with bench/bench.sh: the quick mode
 * (BENCH_QUICK=1, what `make check-bench` sets: fewer repetitions and smaller sizes, every
 * figure still computed and printed).  A driver that cannot compute a figure says so on
 * standard error and exits with status 1, never printing nan. */
#ifndef BENCH_H
#define BENCH_H

#include <stdlib.h>
#include <string.h>

/* Whether BENCH_QUICK asks for the quick mode: set, and neither empty nor "0". */
static inline int bench_quick(void)
{
	const char *q = getenv("BENCH_QUICK");
	return q && *q && strcmp(q, "0") != 0;
}

#endif
