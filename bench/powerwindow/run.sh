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
set -u
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
OUT=$BUILD/bench/powerwindow
REF=$BUILD/reference/powerwindow_ref
CMP=$BUILD/bench/powerwindow/pw_compare
mkdir -p "$OUT"
"$REF" --rtol 1e-11 -o "$OUT/truth.csv" 2>/dev/null || exit 1

row() { # name csv wall extra
	"$CMP" "$2" "$OUT/truth.csv" --json "$OUT/row.json" > /dev/null || exit 1
	awk -v name="$1" -v wall="$3" -v extra="$4" '
		/"cosim"/ { match($0, /"detection_time": [^,]*/); d = substr($0, RSTART + 18, RLENGTH - 18) }
		/"reference"/ { match($0, /"detection_time": [^,]*/); r = substr($0, RSTART + 18, RLENGTH - 18) }
		/max_height_diff"/ { gsub(/[",]/, ""); m = $2 }
		END { printf "%-34s %9s %12.2e %12.2e   %s\n", name, wall, d - r, m, extra }' "$OUT/row.json"
}

printf "%-34s %9s %12s %12s   %s\n" "run" "wall (s)" "detect err" "max dh (m)" "steps"
for rtol in 1e-6 1e-8 1e-10; do
	w=$("$REF" --rtol "$rtol" -o "$OUT/ref.csv" 2>&1 | sed -n 's/.*, \([0-9.]*\) s wall time.*/\1/p')
	row "reference BDF rtol $rtol" "$OUT/ref.csv" "$w" ""
done
for hc in 2e-5 1e-5 5e-6 2e-6; do
	for H in 0.001 0.0005; do
		s=$("$SACC" simulate -L "$BUILD/fmus" -L "$BUILD/powerwindow" \
			adaptations/powerwindow/scenario/powerwindow.sa --stop 10 --step "$H" \
			--set "window.H_CONTACT=$hc" -o "$OUT/co.csv" 2>&1 | tail -1)
		w=$(echo "$s" | sed -n 's/.*, \([0-9.]*\) s wall time.*/\1/p')
		steps=$(echo "$s" | sed -n 's/.*: \([0-9]*\) steps accepted, \([0-9]*\) rejected.*/\1 accepted, \2 rejected/p')
		row "co-sim H=$H H_CONTACT=$hc" "$OUT/co.csv" "$w" "$steps"
	done
done

# Where the time goes: the instructions of the 10 s run at H = 1 ms (valgrind's callgrind,
# repeatable whatever else the machine does), per FMU and per adaptation layer, each
# object's own instructions plus the libc/libm calls it makes (formatting, memcpy, malloc).
# The objects of the stack are told apart by file (callgrind_self.awk): every wrapper has an
# fmi2DoStep of its own.
echo
if ! command -v valgrind > /dev/null 2>&1; then
	echo "where the time goes: valgrind is needed (apt-get install valgrind)"
	exit 0
fi
valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
	"$SACC" simulate -L "$BUILD/fmus" -L "$BUILD/powerwindow" \
	adaptations/powerwindow/scenario/powerwindow.sa --stop 10 --step 0.001 \
	-o "$OUT/profiled.csv" > /dev/null 2> "$OUT/callgrind.log" || { cat "$OUT/callgrind.log" >&2; exit 1; }
awk -f bench/powerwindow/callgrind_self.awk "$OUT/callgrind.out" > "$OUT/self.txt"
awk '
	{ own[$3] = $1; lib[$3] = $2; total += $1 }
	function row(label, kind, obj,   n) {
		n = own[obj] + lib[obj]
		printf "%-28s %-13s %8.1f %8.1f %8.1f %6.1f%%\n", label, kind, own[obj] / 1e6,
			lib[obj] / 1e6, n / 1e6, 100 * n / total
		done[obj] = 1
	}
	END {
		printf "where the time goes: 10 s at H = 1 ms, %.0f M instructions (callgrind)\n", total / 1e6
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
