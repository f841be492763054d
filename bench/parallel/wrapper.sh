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
# A run that fails, or a figure that cannot be computed, ends it with status 1.
# BENCH_QUICK=1: one run each, 50 costly steps and 10000 trivial ones.
set -eu
BENCH=bench-parallel-wrapper
. bench/bench.sh
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/bench/parallel-wrapper
if bench_quick; then
	REPEAT=1
	COSTLY_STEPS=50
	TRIVIAL_STEPS=10000
else
	REPEAT=3
	COSTLY_STEPS=500
	TRIVIAL_STEPS=100000
fi
mkdir -p "$OUT"
for n in 1 2; do
	"$SACC" build -L "$BUILD/fmus" -o "$OUT/t$n" --threads "$n" bench/parallel/four_sa.sa
done

# wall WORK STEPS THREADS: the wall time of one run (seconds, from sacc's summary)
wall() {
	bench_run "$OUT/r$3.log" "$SACC" simulate "$OUT/t$3/four_sa.fmu" \
		--stop "$(awk -v n="$2" 'BEGIN { print n / 1000 }')" --step 0.001 \
		--set four_sa.a.work="$1" --set four_sa.b.work="$1" --set four_sa.c.work="$1" \
		--set four_sa.d.work="$1" -o "$OUT/r$3.csv"
	w=$(sed -n 's/.* \([0-9.]*\) s wall time.*/\1/p' "$OUT/r$3.log")
	bench_number "wall time in $OUT/r$3.log" "$w"
	echo "$w"
}

# best WORK STEPS THREADS: the smallest wall time of REPEAT runs
best() {
	b=
	i=0
	while [ $i -lt $REPEAT ]; do
		w=$(wall "$1" "$2" "$3") || exit 1
		b=$(awk -v a="$w" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
		i=$((i + 1))
	done
	echo "$b"
}

same() {
	cmp -s "$OUT/r1.csv" "$OUT/r2.csv" || {
		echo "bench-parallel-wrapper: the results of one thread and of two differ ($1)" >&2
		exit 1
	}
}

t1=$(best 20000 $COSTLY_STEPS 1)
t2=$(best 20000 $COSTLY_STEPS 2)
same costly
z1=$(best 0 $TRIVIAL_STEPS 1)
z2=$(best 0 $TRIVIAL_STEPS 2)
same trivial
ratio=$(bench_ratio wrapper_trivial_ratio "%.3f" "$z2" "$z1")
speedup=$(bench_ratio wrapper_parallel_speedup "%.2f" "$t1" "$t2")

runs=three
[ $REPEAT = 3 ] || runs=$REPEAT
echo "parallel stepping inside a wrapper: four burn FMUs, one batch, best of $runs runs"
printf '%-44s %12s\n' "run" "wall (s)"
printf '%-44s %12s\n' "costly (work 20000, $COSTLY_STEPS steps), 1 thread" "$t1"
printf '%-44s %12s\n' "costly, --threads 2" "$t2"
printf '%-44s %12s\n' "trivial (work 0, $TRIVIAL_STEPS steps), 1 thread" "$z1"
printf '%-44s %12s\n' "trivial, --threads 2" "$z2"
echo "wrapper_trivial_ratio $ratio"
echo "wrapper_parallel_speedup $speedup"
