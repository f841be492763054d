#!/bin/sh
# run.sh — `make bench-parallel`: what stepping FMUs at once (`sacc simulate --threads N`)
# gains when the FMUs are costly, and what it costs when they are trivial.
#
#   SACC=build/sacc BUILD=build sh bench/parallel/run.sh
#
# The scenario, four.sa, is four burn FMUs (tests/fmus/burn) in a ring under Jacobi, so all
# four may step at once.  Each does `work` iterations of a recurrence per step:
#
#   1. calibration: the CPU time (not the wall time, which a busy machine stretches) of
#      1000 steps with work = 20000 less that of 1000 steps with work = 0 gives the cost of
#      an iteration; work is set so that a step costs about 100 us;
#   2. costly: 2000 steps on one thread and on two, in turns (a change of load hits both),
#      five runs each; the best wall time of each (sacc's summary) gives parallel_speedup;
#   3. trivial: work = 0 (a step is a few tens of nanoseconds), 200000 steps, the same way;
#      trivial_ratio is two threads' best over one's (the measured step times keep such
#      FMUs on the calling thread, so it stays near 1).
#
# Beside each best run: its CPU time, and for two threads the share of FMU steps taken in
# parallel (what the when-it-pays rule chose: near 1 for the costly FMUs, 0 for the
# trivial ones).  The load average before and after, and the CPU share of the one-thread
# runs, say whether the machine was quiet: the speedup needs a second free core.
#
# The result files of one thread and of two must be the same, byte for byte.  A run that
# fails, or a figure that cannot be computed, ends it with status 1.  BENCH_QUICK=1: one
# run each, 200 costly steps and 20000 trivial ones.
set -eu
BENCH=bench-parallel
. bench/bench.sh
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/bench/parallel
mkdir -p "$OUT"
SCN=bench/parallel/four.sa
if bench_quick; then
	RUNS=${RUNS:-1}
	COSTLY_STEPS=200
	TRIVIAL_STEPS=20000
else
	RUNS=${RUNS:-5}
	COSTLY_STEPS=2000
	TRIVIAL_STEPS=200000
fi

load() {
	cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*load average: //'
}

# run WORK STEPS THREADS CSV: one run; prints "wall cpu parallel_steps" (wall from sacc's
# summary, cpu the user + system time of the run, from the shell's `times`)
run() {
	(
		"$SACC" simulate -L "$BUILD/fmus" "$SCN" --master jacobi --stop "$2" --step 0.001 \
			--set a.work="$1" --set b.work="$1" --set c.work="$1" --set d.work="$1" \
			--set a.x0=1 --threads "$3" -o "$4" 2>"$OUT/err.txt" || {
			cat "$OUT/err.txt" >&2
			exit 1
		}
		times
	) | awk -v err="$OUT/err.txt" '
		function sec(s) { sub(/s$/, "", s); split(s, a, "m"); return a[1] * 60 + a[2] }
		NR == 2 { cpu = sec($1) + sec($2) }
		END {
			while ((getline line < err) > 0) {
				if (match(line, /[0-9.]+ s wall time/))
					wall = substr(line, RSTART, RLENGTH - 12)
				if (match(line, /[0-9]+ FMU steps in parallel/))
					par = substr(line, RSTART, RLENGTH - 22)
			}
			if (wall == "")
				exit 1
			printf "%s %.3f %d\n", wall, cpu, par + 0
		}' || bench_fail "no wall time from sacc simulate (work $1, stop $2, $3 threads; $OUT/err.txt)"
}

# pair WORK STEPS NAME: RUNS runs on one thread and on two in turns; sets NAME1 and NAME2
# to the best runs' "wall cpu parallel_steps"
pair() {
	b1=
	b2=
	i=0
	while [ $i -lt $RUNS ]; do
		r1=$(run "$1" "$2" 1 "$OUT/t1.csv") || exit 1
		r2=$(run "$1" "$2" 2 "$OUT/t2.csv") || exit 1
		cmp -s "$OUT/t1.csv" "$OUT/t2.csv" || {
			echo "bench-parallel: the results of one thread and of two differ" >&2
			exit 1
		}
		b1=$(printf '%s\n%s\n' "$r1" "$b1" | awk 'NF { print }' | sort -n | head -n 1)
		b2=$(printf '%s\n%s\n' "$r2" "$b2" | awk 'NF { print }' | sort -n | head -n 1)
		i=$((i + 1))
	done
	eval "$3"1=\"\$b1\"
	eval "$3"2=\"\$b2\"
}

load_before=$(load)

# the CPU seconds of 1000 steps of four FMUs with work WORK
cpu_of() {
	r=$(run "$1" 1 1 /dev/null) || exit 1
	echo "$r" | awk '{ print $2 }'
}
c1=$(cpu_of 20000)
c0=$(cpu_of 0)
bench_number "calibration's CPU time" "$c1" "$c0"
work=$(awk -v a="$c1" -v b="$c0" 'BEGIN {
	per = (a - b) / 4000 / 20000; if (per <= 0) per = 2.5e-9; printf "%d", 100e-6 / per }')

pair "$work" "$(awk -v n=$COSTLY_STEPS 'BEGIN { print n / 1000 }')" costly
pair 0 "$(awk -v n=$TRIVIAL_STEPS 'BEGIN { print n / 1000 }')" trivial
load_after=$(load)

steps_costly=$((4 * COSTLY_STEPS))   # four FMUs
steps_trivial=$((4 * TRIVIAL_STEPS))
echo "parallel stepping: four burn FMUs in a ring, Jacobi, best of $RUNS runs each (in turns)"
printf '%-46s %9s %9s %14s\n' "run" "wall (s)" "cpu (s)" "in parallel"
line() {
	set -- "$1" $2 "$3"
	share=$(bench_ratio "$1: share in parallel" "%.3f" "$4" "$5")
	printf '%-46s %9s %9s %14s\n' "$1" "$2" "$3" "$share"
}
line "costly ($work iterations, ~100 us/step), 1 thread" "$costly1" $steps_costly
line "costly, 2 threads" "$costly2" $steps_costly
line "trivial (work 0, $TRIVIAL_STEPS steps), 1 thread" "$trivial1" $steps_trivial
line "trivial, 2 threads" "$trivial2" $steps_trivial
echo "load average before: $load_before, after: $load_after (2 cores)"
set -- $costly1
s=$(bench_ratio "one-thread cpu share" "%.6f" "$2" "$1")
awk -v s="$s" 'BEGIN { printf "one-thread cpu share %.2f", s
	if (s < 0.9) printf " (the machine was busy: the speedup is less than a quiet one gives)"
	printf "\n" }'
set -- $costly2
share=$(bench_ratio parallel_share "%.3f" "$3" "$steps_costly")
echo "parallel_share $share"
set -- $trivial1
z1=$1
set -- $trivial2
ratio=$(bench_ratio trivial_ratio "%.3f" "$1" "$z1")
echo "trivial_ratio $ratio"
set -- $costly1
t1=$1
set -- $costly2
speedup=$(bench_ratio parallel_speedup "%.2f" "$t1" "$1")
echo "parallel_speedup $speedup"
