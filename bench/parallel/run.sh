#!/bin/sh
# run.sh — `make bench-parallel`: what stepping FMUs at once (`sacc simulate --threads N`)
# gains when the FMUs are costly, and what it costs when they are trivial.
#
#   SACC=build/sacc BUILD=build sh bench/parallel/run.sh
#
# The scenario, four.sa, is four burn FMUs (tests/fmus/burn) in a ring under Jacobi, so all
# four may step at once.  Each does `work` iterations of a recurrence per step:
#
#   1. calibration: one run with work = 20000 on one thread, --profile giving the time per
#      doStep; work is then scaled so that a step takes about 100 us;
#   2. costly: 2000 steps on one thread and on two (best of three runs each, the wall time
#      of sacc's summary); parallel_speedup is the ratio;
#   3. trivial: work = 0 (a step is a few tens of nanoseconds), 200000 steps on one thread
#      and on two; trivial_ratio is two threads' time over one's (the measured step times
#      keep such FMUs on the calling thread, so it stays near 1).
#
# The result files of one thread and of two must be the same, byte for byte.  Other load on
# the machine lowers the speedup: with two cores, a second thread needs a free one.
set -eu
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/bench/parallel
mkdir -p "$OUT"
SCN=bench/parallel/four.sa

# wall WORK STEPS THREADS CSV: the wall time of one run (seconds, from sacc's summary)
wall() {
	"$SACC" simulate -L "$BUILD/fmus" "$SCN" --master jacobi --stop "$2" --step 0.001 \
		--set a.work="$1" --set b.work="$1" --set c.work="$1" --set d.work="$1" \
		--set a.x0=1 --threads "$3" -o "$4" 2>&1 |
		sed -n 's/.* \([0-9.]*\) s wall time.*/\1/p'
}

# best WORK STEPS THREADS: the smallest wall time of three runs
best() {
	b=
	for i in 1 2 3; do
		w=$(wall "$1" "$2" "$3" "$OUT/t$3.csv")
		b=$(awk -v a="$w" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	echo "$b"
}

per_step=$("$SACC" simulate -L "$BUILD/fmus" "$SCN" --master jacobi --stop 0.2 --step 0.001 \
	--set a.work=20000 --set b.work=20000 --set c.work=20000 --set d.work=20000 \
	--profile -o /dev/null 2>&1 |
	sed -n 's/.*profile: a: \([0-9.]*\) s in doStep.*, \([0-9]*\) calls/\1 \2/p' |
	awk '{ printf "%.9f", $1 / $2 }')
work=$(awk -v s="$per_step" 'BEGIN { printf "%d", 20000 * 100e-6 / s }')

t1=$(best "$work" 2 1)
t2=$(best "$work" 2 2)
cmp -s "$OUT/t1.csv" "$OUT/t2.csv" || {
	echo "bench-parallel: the results of one thread and of two differ" >&2
	exit 1
}
z1=$(best 0 200 1)
z2=$(best 0 200 2)
cmp -s "$OUT/t1.csv" "$OUT/t2.csv" || {
	echo "bench-parallel: the results of one thread and of two differ (trivial FMUs)" >&2
	exit 1
}

echo "parallel stepping: four burn FMUs in a ring, Jacobi, best of three runs"
printf '%-44s %12s\n' "run" "wall (s)"
printf '%-44s %12s\n' "costly ($work iterations, ~100 us/step), 1 thread" "$t1"
printf '%-44s %12s\n' "costly, 2 threads" "$t2"
printf '%-44s %12s\n' "trivial (work 0, 200000 steps), 1 thread" "$z1"
printf '%-44s %12s\n' "trivial, 2 threads" "$z2"
awk -v a="$z1" -v b="$z2" 'BEGIN { printf "trivial_ratio %.3f\n", b / a }'
awk -v a="$t1" -v b="$t2" 'BEGIN { printf "parallel_speedup %.2f\n", a / b }'
