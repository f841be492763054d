#!/bin/sh
# bench-powerwindow — the cost of the power window's co-simulation against the monolithic
# reference at comparable accuracy (make bench-powerwindow).
#
# Truth: the monolithic reference (GSL's BDF stepper) at rtol 1e-11.  Against it: the reference at looser rtol, and
# the co-simulation at several contact steps (rate_sa's H_CONTACT) and macro steps.  Each
# row: wall time (the program's own), detection-time error, largest height error; and for
# the co-simulation the accepted and rejected steps, which is where its time goes (a 1 ms
# step costs the motor ten RK4 substeps, rate_sa five loop_sa evaluations of two passes
# each; every step in contact or near it is first tried at 1 ms and rejected).
#
# A run that fails, a figure that cannot be computed (no detection, no wall time, valgrind
# missing) ends it with status 1.  BENCH_QUICK=1: one reference row (rtol 1e-6), one
# co-simulation row (H = 1 ms, H_CONTACT = 2e-5), and the profile of a 1 s run.
set -eu
BENCH=bench-powerwindow
BENCH_PACKAGE=valgrind
. bench/bench.sh
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
OUT=$BUILD/bench/powerwindow
REF=$BUILD/reference/powerwindow_ref
CMP=$BUILD/bench/powerwindow/pw_compare
if bench_quick; then
	RTOLS="1e-6"
	HCS="2e-5"
	HS="0.001"
	PROFILE_STOP=1
else
	RTOLS="1e-6 1e-8 1e-10"
	HCS="2e-5 1e-5 5e-6 2e-6"
	HS="0.001 0.0005"
	PROFILE_STOP=10
fi
bench_need valgrind
mkdir -p "$OUT"
bench_run "$OUT/truth.log" "$REF" --rtol 1e-11 -o "$OUT/truth.csv"

# wall LOG: the wall time of a run's summary line in LOG
wall() {
	w=$(sed -n 's/.*, \([0-9.]*\) s wall time.*/\1/p' "$1" | tail -n 1)
	bench_number "wall time in $1" "$w"
	echo "$w"
}

row() { # name csv wall extra
	bench_run "$OUT/row.log" "$CMP" "$2" "$OUT/truth.csv" --json "$OUT/row.json" >/dev/null
	awk -v name="$1" -v wall="$3" -v extra="$4" '
		function num(s) { return s ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ }
		/"cosim"/ { match($0, /"detection_time": [^,]*/); d = substr($0, RSTART + 18, RLENGTH - 18) }
		/"reference"/ { match($0, /"detection_time": [^,]*/); r = substr($0, RSTART + 18, RLENGTH - 18) }
		/max_height_diff"/ { gsub(/[",]/, ""); m = $2 }
		END {
			if (!num(d) || !num(r) || !num(m)) {
				printf "bench-powerwindow: %s: detection times %s and %s, max dh %s in %s\n",
					name, d, r, m, FILENAME > "/dev/stderr"
				exit 1
			}
			printf "%-34s %9s %12.2e %12.2e   %s\n", name, wall, d - r, m, extra
		}' "$OUT/row.json"
}

printf "%-34s %9s %12s %12s   %s\n" "run" "wall (s)" "detect err" "max dh (m)" "steps"
for rtol in $RTOLS; do
	bench_run "$OUT/ref.log" "$REF" --rtol "$rtol" -o "$OUT/ref.csv"
	w=$(wall "$OUT/ref.log")
	row "reference BDF rtol $rtol" "$OUT/ref.csv" "$w" ""
done
for hc in $HCS; do
	for H in $HS; do
		bench_run "$OUT/co.log" "$SACC" simulate -L "$BUILD/fmus" -L "$BUILD/powerwindow" \
			adaptations/powerwindow/scenario/powerwindow.sa --stop 10 --step "$H" \
			--set "window.H_CONTACT=$hc" -o "$OUT/co.csv"
		w=$(wall "$OUT/co.log")
		steps=$(tail -n 1 "$OUT/co.log" |
			sed -n 's/.*: \([0-9]*\) steps accepted, \([0-9]*\) rejected.*/\1 accepted, \2 rejected/p')
		[ -n "$steps" ] || bench_fail "no step counts in $OUT/co.log"
		row "co-sim H=$H H_CONTACT=$hc" "$OUT/co.csv" "$w" "$steps"
	done
done

# Where the time goes: the instructions of the 10 s run (1 s in quick mode) at H = 1 ms
# (valgrind's callgrind, repeatable whatever else the machine does), per FMU and per
# adaptation layer, each object's own instructions plus the libc/libm calls it makes
# (formatting, memcpy, malloc).
# The objects of the stack are told apart by file (callgrind_self.awk): every wrapper has an
# fmi2DoStep of its own.
echo
bench_run "$OUT/callgrind.log" valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
	"$SACC" simulate -L "$BUILD/fmus" -L "$BUILD/powerwindow" \
	adaptations/powerwindow/scenario/powerwindow.sa --stop "$PROFILE_STOP" --step 0.001 \
	-o "$OUT/profiled.csv" >/dev/null
awk -f bench/powerwindow/callgrind_self.awk "$OUT/callgrind.out" > "$OUT/self.txt"
awk -v stop="$PROFILE_STOP" '
	{ own[$3] = $1; lib[$3] = $2; total += $1 }
	function row(label, kind, obj,   n) {
		n = own[obj] + lib[obj]
		printf "%-28s %-13s %8.1f %8.1f %8.1f %6.1f%%\n", label, kind, own[obj] / 1e6,
			lib[obj] / 1e6, n / 1e6, 100 * n / total
		done[obj] = 1
	}
	END {
		if (!(total > 0)) {
			print "bench-powerwindow: no instructions in the callgrind profile" > "/dev/stderr"
			exit 1
		}
		printf "where the time goes: %s s at H = 1 ms, %.0f M instructions (callgrind)\n", stop,
			total / 1e6
		printf "%-28s %-13s %8s %8s %8s %7s\n", "part (nesting)", "kind", "own M", "libc M", "total M", "share"
		row("sacc simulate", "orchestrator", "sacc")
		row("env", "FMU", "environment.so")
		row("power_sa", "adaptation", "power_sa.so")
		row("  power", "FMU", "power.so")
		row("controller_sa", "adaptation", "controller_sa.so")
		row("  lazy_sa", "adaptation", "lazy_sa.so")
		row("    controller", "FMU", "controller.so")
		row("rate_sa (window)", "adaptation", "rate_sa.so")
		row("  loop_sa", "adaptation", "loop_sa.so")
		row("    window_sa", "adaptation", "window_sa.so")
		row("      window", "FMU", "window.so")
		row("    obstacle", "FMU", "obstacle.so")
		for (o in own)
			if (!done[o] && o !~ /^lib(c|m)\.so/) {
				rest += own[o] + lib[o]
			}
		printf "%-28s %-13s %8s %8s %8.1f %6.1f%%\n", "start-up (unzip, XML, ld.so)", "", "", "",
			rest / 1e6, 100 * rest / total
	}' "$OUT/self.txt"
