#!/bin/sh
# run.sh — benchmark 3 (`make bench-master`): the orchestrator's overhead per
# macro step over three trivial FMUs, against a hand-written loop calling the same FMUs, and
# against the same scenario packed as one wrapper FMU (ring_sa.sa) stepped by a driver.
#
#   SACC=build/sacc BUILD=build sh bench/master/run.sh
#                                   (after make builds $SACC and $BUILD/bench/master/throughput)
#
# Instructions come from valgrind's callgrind (repeatable whatever else the machine does):
# each loop runs N1 and N2 macro steps, and the difference divided by N2 - N1 is the cost of
# one macro step with loading, initialization and shut-down cancelled out.  Time per macro
# step comes from runs without valgrind of TIME_N1 and TIME_N2 steps, the same way.
# The last line, instructions_per_fmu_step, is (master - hand loop) / 3: what the master
# and the seam add to each FMU's set/doStep/get, with no_rollback (the same FMU calls as the
# hand loop); the line "states saved" shows the default, which also saves every FMU's state
# before each step so that a discarded step can be redone.  The wrapper's lines are its
# emitted fast step (the usual one for these rules) and, built with -DSART_NO_FAST_STEP, its
# general step.  A figure that cannot be computed (a run fails, the loops disagree, a count
# is not a number) ends it with status 1.  BENCH_QUICK=1: 200 and 1200 steps under
# callgrind, 10000 and 110000 timed.
set -eu
BENCH=bench-master
BENCH_PACKAGE=valgrind
. bench/bench.sh
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
if bench_quick; then
	N1=${N1:-200}
	N2=${N2:-1200}
	TIME_N1=${TIME_N1:-10000}
	TIME_N2=${TIME_N2:-110000}
else
	N1=${N1:-20000}
	N2=${N2:-120000}
	TIME_N1=${TIME_N1:-100000}
	TIME_N2=${TIME_N2:-1100000}
fi
OUT=$BUILD/bench/master
BIN=$OUT/throughput

bench_need valgrind callgrind_annotate

# The scenario as one wrapper FMU, unpacked where throughput's `wrapper` mode looks for it,
# and built again with the fast step compiled out (sacc build compiles with $CC) for its
# `wrapper-nofast` mode.
rm -rf "$OUT/ring_sa" "$OUT/ring_sa.fmu" "$OUT/nofast" "$OUT/ring_sa-nofast"
"$SACC" build -L "$BUILD/fmus" -o "$OUT" bench/master/ring_sa.sa
"$SACC" unpack "$OUT/ring_sa.fmu" "$OUT/ring_sa"
mkdir -p "$OUT/nofast"
CC="${CC:-cc} -DSART_NO_FAST_STEP" "$SACC" build -L "$BUILD/fmus" -o "$OUT/nofast" bench/master/ring_sa.sa
"$SACC" unpack "$OUT/nofast/ring_sa.fmu" "$OUT/ring_sa-nofast"

# The loops must compute the same thing, bit for bit.
m_sum=$(bench_output checksum "$OUT/check.log" "$BIN" master "$BUILD" 1000 check)
h_sum=$(bench_output checksum "$OUT/check.log" "$BIN" hand "$BUILD" 1000)
if [ "$m_sum" != "$h_sum" ]; then
	echo "bench-master: the master's values differ from the hand loop's ($m_sum != $h_sum)" >&2
	exit 1
fi
for who in wrapper wrapper-nofast; do
	w_sum=$(bench_output checksum "$OUT/check.log" "$BIN" "$who" "$BUILD" 1000)
	if [ "$w_sum" != "$h_sum" ]; then
		echo "bench-master: the wrapper's values ($who) differ from the hand loop's" \
			"($w_sum != $h_sum)" >&2
		exit 1
	fi
done

# instructions WHO N: total instructions of one run, from callgrind.
instructions() {
	f=$OUT/callgrind.$1.$2
	bench_run "$f.log" valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$BIN" "$1" "$BUILD" "$2" >/dev/null
	total=$(sed -n 's/^summary: *//p' "$f" | head -n 1)
	bench_number "callgrind's total in $f" "$total"
	echo "$total"
}

per_step() {
	a=$(instructions "$1" "$N1") || exit 1
	b=$(instructions "$1" "$N2") || exit 1
	echo $(( (b - a) / (N2 - N1) ))
}

# seam N: instructions spent in the seam's own code (runtime/sart_inner*.c, self cost) in
# the master run of N steps.
seam() {
	f=$OUT/callgrind.master.$1
	bench_run "$f.annotate.log" callgrind_annotate --inclusive=no --threshold=100 --auto=no \
		"$f" >"$f.annotate"
	awk '/runtime\/sart_inner/ { gsub(",", "", $1); s += $1; seen = 1 }
		END { if (!seen) exit 1; printf "%d", s }' "$f.annotate" ||
		bench_fail "no function of runtime/sart_inner*.c in $f.annotate (built without -g?)"
}

# fast_step_ran WHO: whether the wrapper's fast step took the steps in the WHO run of N2
# steps: the emitted fast step is inlined into the adaptation's do_step, so what shows is
# that the general step (sart_do_step) never ran.
fast_step_ran() {
	callgrind_annotate --inclusive=no --threshold=100 --auto=no "$OUT/callgrind.$1.$N2" \
		2>/dev/null | grep -q ':sart_do_step \[.*ring_sa\.so\]' && echo no || echo yes
}

# ns WHO: wall time per macro step, start-up cancelled the same way.
ns() {
	a=$(bench_output ns_per_step "$OUT/time.log" "$BIN" "$1" "$BUILD" "$TIME_N1") || exit 1
	b=$(bench_output ns_per_step "$OUT/time.log" "$BIN" "$1" "$BUILD" "$TIME_N2") || exit 1
	awk -v a="$a" -v b="$b" -v n1="$TIME_N1" -v n2="$TIME_N2" \
		'BEGIN { printf "%.1f", (b * n2 - a * n1) / (n2 - n1) }'
}

master=$(per_step master)
save=$(per_step master-save)
hand=$(per_step hand)
wrap=$(per_step wrapper)
wrap_slow=$(per_step wrapper-nofast)
master_ns=$(ns master)
save_ns=$(ns master-save)
hand_ns=$(ns hand)
wrap_ns=$(ns wrapper)
wrap_slow_ns=$(ns wrapper-nofast)
if [ "$(fast_step_ran wrapper)" != yes ] || [ "$(fast_step_ran wrapper-nofast)" != no ]; then
	echo "bench-master: ring_sa's fast step is not what was measured (fast run:" \
		"$(fast_step_ran wrapper), -DSART_NO_FAST_STEP run: $(fast_step_ran wrapper-nofast))" >&2
	exit 1
fi

echo "master overhead: three integrator FMUs in a ring, Jacobi, held inputs, nothing recorded"
printf '%-34s %14s %12s\n' "per macro step" "instructions" "ns"
printf '%-34s %14s %12s\n' "hand-written loop (the floor)" "$hand" "$hand_ns"
printf '%-34s %14s %12s\n' "one wrapper FMU (ring_sa), fast" "$wrap" "$wrap_ns"
printf '%-34s %14s %12s\n' "one wrapper FMU, SART_NO_FAST_STEP" "$wrap_slow" "$wrap_slow_ns"
printf '%-34s %14s %12s\n' "sart_master_run, no_rollback" "$master" "$master_ns"
printf '%-34s %14s %12s\n' "sart_master_run, states saved" "$save" "$save_ns"
seam2=$(seam "$N2")
seam1=$(seam "$N1")
seam_step=$(( (seam2 - seam1) / (N2 - N1) ))
echo "of which in the seam (runtime/sart_inner*.c): $seam_step per macro step," \
	"$((seam_step / 3)) per FMU step"
echo "instructions_per_fmu_step $(( (master - hand) / 3 ))"
