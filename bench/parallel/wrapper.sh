#!/bin/sh
# wrapper.sh — `make bench-parallel-wrapper`: what `sacc build --threads 2` gains for a
# wrapper over costly inner FMUs, and what it costs over trivial ones.
#
#   SACC=build/sacc BUILD=build sh bench/parallel/wrapper.sh
#
# four_sa.sa is four.sa's ring of burn FMUs inside one wrapper, its four do_steps one batch.
# It is built with --threads 1 and --threads 2 and run by `sacc simulate` (one FMU, so the
# master adds nothing parallel of its own):
#
#   1. costly: work = 20000 iterations per step (a few hundred microseconds on current
#      machines), 500 steps, best of three runs each; wrapper_parallel_speedup is one
#      thread's wall time over two's;
#   2. trivial: work = 0, 100000 steps; wrapper_trivial_ratio is two threads' time over
#      one's (the wrapper measures its inners' steps and keeps trivial ones on one thread).
#
# The result files of one thread and of two must be the same, byte for byte.  With two
# cores the second thread needs a free one: other load on the machine lowers the speedup.
set -eu
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/bench/parallel-wrapper
mkdir -p "$OUT"
for n in 1 2; do
	"$SACC" build -L "$BUILD/fmus" -o "$OUT/t$n" --threads "$n" bench/parallel/four_sa.sa
done

# wall WORK STOP THREADS: the wall time of one run (seconds, from sacc's summary)
wall() {
	"$SACC" simulate "$OUT/t$3/four_sa.fmu" --stop "$2" --step 0.001 \
		--set four_sa.a.work="$1" --set four_sa.b.work="$1" --set four_sa.c.work="$1" \
		--set four_sa.d.work="$1" -o "$OUT/r$3.csv" 2>&1 |
		sed -n 's/.* \([0-9.]*\) s wall time.*/\1/p'
}

# best WORK STOP THREADS: the smallest wall time of three runs
best() {
	b=
	for i in 1 2 3; do
		w=$(wall "$1" "$2" "$3")
		b=$(awk -v a="$w" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	echo "$b"
}

same() {
	cmp -s "$OUT/r1.csv" "$OUT/r2.csv" || {
		echo "bench-parallel-wrapper: the results of one thread and of two differ ($1)" >&2
		exit 1
	}
}

t1=$(best 20000 0.5 1)
t2=$(best 20000 0.5 2)
same costly
z1=$(best 0 100 1)
z2=$(best 0 100 2)
same trivial

echo "parallel stepping inside a wrapper: four burn FMUs, one batch, best of three runs"
printf '%-44s %12s\n' "run" "wall (s)"
printf '%-44s %12s\n' "costly (work 20000, 500 steps), 1 thread" "$t1"
printf '%-44s %12s\n' "costly, --threads 2" "$t2"
printf '%-44s %12s\n' "trivial (work 0, 100000 steps), 1 thread" "$z1"
printf '%-44s %12s\n' "trivial, --threads 2" "$z2"
awk -v a="$z1" -v b="$z2" 'BEGIN { printf "wrapper_trivial_ratio %.3f\n", b / a }'
awk -v a="$t1" -v b="$t2" 'BEGIN { printf "wrapper_parallel_speedup %.2f\n", a / b }'
