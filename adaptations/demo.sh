#!/bin/sh
# The main job: check every adaptation script against its inner FMUs, show its explicit
# form (the In / MapIn / Ctrl / MapOut / Out rules the wrapper FMU runs) and the wrapper
# FMUs `make` built from them (nested: loop_sa carries window_sa inside); then run the
# power-window case study end to end: the co-simulation (`sacc simulate` on
# adaptations/powerwindow/scenario/powerwindow.sa) and the monolithic reference, both CSVs,
# plots of both runs overlaid with their difference (sacc plot) and the comparison, in
# $BUILD/demo/; then the same scenario over the declarative adaptations, against the same
# reference.
# Called by `make demo` as: sh adaptations/demo.sh build/sacc build (FMI=3 in the
# environment adds the run over FMI 3.0 wrappers).
set -u
SACC=$1
BUILD=$2
status=0
echo "sacc demo: the power-window case study's adaptations, checked and reduced."
echo "The inner FMUs are built from C in tests/fmus/; this is what sacc reads from one:"
echo
"$SACC" inspect "$BUILD/fmus/window.fmu" | sed 's/^/    /'
for dir in adaptations/*/; do
	for f in "$dir"*.sa; do
		[ -f "$f" ] || continue
		printf '\n==== %s ' "$f"
		if "$SACC" check -L "$BUILD/fmus" -I "$dir" -I adaptations/powerwindow "$f" 2> "$BUILD/demo.err"; then
			echo "checks cleanly; its explicit form:"
			echo
			"$SACC" explicit -L "$BUILD/fmus" -I "$dir" -I adaptations/powerwindow "$f" | sed 's/^/    /'
		else
			echo "does not check:"
			cat "$BUILD/demo.err"
			status=1
		fi
	done
done
echo
echo "==== the wrapper FMUs, built by: $SACC build -L $BUILD/fmus -I adaptations/powerwindow -o $BUILD/powerwindow adaptations/powerwindow/*.sa"
ls -l "$BUILD"/powerwindow/*.fmu | sed 's/^/    /'
echo
echo "what loop_sa.fmu holds (window_sa.fmu nested in its resources/):"
rm -rf "$BUILD/demo/loop_sa"
mkdir -p "$BUILD/demo"
if "$SACC" unpack "$BUILD/powerwindow/loop_sa.fmu" "$BUILD/demo/loop_sa"; then
	(cd "$BUILD/demo/loop_sa" && find . -type f ! -path './sources/*' ! -path '*/sources/*' | sort | sed 's/^/    /')
else
	status=1
fi
echo
echo "and how any importer sees it:"
"$SACC" inspect "$BUILD/powerwindow/loop_sa.fmu" | sed 's/^/    /' || status=1
echo
if [ "$status" = 0 ]; then
	echo "demo: every adaptation checks cleanly, reduces to its explicit form and builds into an FMU."
else
	echo "demo: some adaptations do not check (see above)."
fi

# ---- the case study, end to end ----------------------------------------------------------
OUT=$BUILD/demo
STOP=10
STEP=0.001
now() { date +%s.%N; }
# timed COMMAND...: shows the command and runs it; $wall is then its wall time in seconds.
timed() {
	echo "$*"
	t0=$(now)
	"$@" || status=1
	wall=$(echo "$t0 $(now)" | awk '{ printf "%.4f", $2 - $1 }')
}
echo
echo "==== the power window, co-simulated and against its monolithic reference"
timed "$SACC" simulate -L "$BUILD/fmus" -L "$BUILD/powerwindow" \
	adaptations/powerwindow/scenario/powerwindow.sa --stop "$STOP" --step "$STEP" \
	-o "$OUT/cosim.csv"
wall_cosim=$wall
timed "$BUILD/reference/powerwindow_ref" --stop "$STOP" -o "$OUT/reference.csv"
wall_ref=$wall
echo
"$BUILD/bench/powerwindow/pw_compare" "$OUT/cosim.csv" "$OUT/reference.csv" \
	--wall-cosim "$wall_cosim" --wall-reference "$wall_ref" \
	--json "$OUT/comparison.json" || status=1
echo "(wall times of the whole processes; the same figures in $OUT/comparison.json)"

# The plot, by sacc plot: both runs over each other (the reference first, widest), a panel
# per quantity on one time axis, the co-simulation's height minus the reference's below,
# the reference's contact and detection instants marked; then the same around the contact,
# where the two instants, 11 ms apart, are told apart.
json_num() { sed -n "/\"reference\"/s/.*\"$1\": \([-0-9.e]*\).*/\1/p" "$OUT/comparison.json"; }
contact=$(json_num contact_time)
detection=$(json_num detection_time)
plot() { # OUTPUT.png [sacc plot options]
	png=$1
	shift
	"$SACC" plot "$OUT/reference.csv" "$OUT/cosim.csv" --labels reference,co-simulation \
		--vars window.height --vars power.armature_current --vars controller.u,controller.d \
		--diff window.height --mark "$contact:contact" --mark "$detection:detection" \
		--title "Power window: co-simulation (sacc simulate) against the monolithic reference" \
		-o "$png" "$@" && echo "plot: $png"
}
if [ -n "$contact" ] && [ -n "$detection" ]; then
	plot "$OUT/powerwindow.png" || status=1
	plot "$OUT/powerwindow-contact.png" \
		--xrange "$(echo "$contact" | awk '{ printf "%.2f:%.2f", $1 - 0.015, $1 + 0.085 }')" ||
		status=1
else
	echo "plot: skipped (no contact or detection in $OUT/comparison.json)"
	status=1
fi

# With FMI=3 (make demo FMI=3): the same scenario over the same adaptations built as FMI 3.0
# wrappers (sacc build --fmi 3).  The wrappers run the same code through the FMI 3.0 skin
# and the result is the FMI 2.0 run's bit for bit until the contact with the obstacle;
# there a wrapper that cuts its step returns early (FMI 3.0) where it discards (FMI 2.0),
# the master redoes the step differently, and the runs part within a stated tolerance:
# contact times within 1e-6 s, detection times within 1e-4 s, heights within 1e-5 m.
if [ "${FMI:-}" = 3 ]; then
	echo
	echo "==== the power window with FMI 3.0 wrappers ($BUILD/powerwindow-fmi3/, sacc build --fmi 3)"
	timed "$SACC" simulate -L "$BUILD/fmus" -L "$BUILD/powerwindow-fmi3" \
		adaptations/powerwindow/scenario/powerwindow.sa --stop "$STOP" --step "$STEP" \
		-o "$OUT/cosim-fmi3.csv"
	if cmp -s "$OUT/cosim.csv" "$OUT/cosim-fmi3.csv"; then
		echo "FMI 3.0 wrappers: the same result as FMI 2.0's, bit for bit"
	else
		line=$(cmp "$OUT/cosim.csv" "$OUT/cosim-fmi3.csv" | sed -n 's/.*line \([0-9]*\).*/\1/p')
		echo "FMI 3.0 wrappers: bit for bit the FMI 2.0 run's up to t = $(sed -n "$((line - 1))s/,.*//p" "$OUT/cosim.csv") s (line $line of $OUT/cosim.csv); then, against it:"
		"$BUILD/bench/powerwindow/pw_compare" "$OUT/cosim-fmi3.csv" "$OUT/cosim.csv" > "$OUT/fmi3-vs-fmi2.txt" ||
			status=1
		sed -n '/contact time/p;/detection time/p;/height difference/p' "$OUT/fmi3-vs-fmi2.txt" | sed 's/^/    /'
		if awk '
			function abs(x) { return x < 0 ? -x : x }
			/^contact time/ { ok = ok && abs($NF) <= 1e-6 }
			/^detection time/ { ok = ok && abs($NF) <= 1e-4 }
			/^height difference/ { ok = ok && $4 + 0 <= 1e-5 }
			BEGIN { ok = 1 } END { exit !ok }' "$OUT/fmi3-vs-fmi2.txt"; then
			echo "FMI 3.0 wrappers: within the tolerance (contact 1e-6 s, detection 1e-4 s, height 1e-5 m)"
		else
			echo "FMI 3.0 wrappers: outside the tolerance (contact 1e-6 s, detection 1e-4 s, height 1e-5 m)"
			status=1
		fi
	fi
fi

# The same case study over the declarative adaptations: the contact's step cutting, which
# no declarative form says, left to the orchestrator's step control.
echo
echo "==== the declarative power window (adaptations/powerwindow-declarative/), against the same reference"
timed "$SACC" simulate -L "$BUILD/powerwindow-declarative" -L "$BUILD/fmus" -L "$BUILD/powerwindow" \
	adaptations/powerwindow-declarative/scenario/powerwindow.sa --stop "$STOP" --step "$STEP" \
	--step-control prediction --tolerance 1e-3 --max-step "$STEP" -o "$OUT/declarative.csv"
echo
"$BUILD/bench/powerwindow/pw_compare" "$OUT/declarative.csv" "$OUT/reference.csv" \
	--wall-cosim "$wall" --wall-reference "$wall_ref" \
	--json "$OUT/declarative.json" || status=1
printf 'against the hand-written run: '
"$BUILD/bench/powerwindow/pw_compare" "$OUT/declarative.csv" "$OUT/cosim.csv" | tail -n 1 ||
	status=1
echo "results: $OUT/cosim.csv, $OUT/reference.csv, $OUT/comparison.json, $OUT/powerwindow.png, $OUT/powerwindow-contact.png, $OUT/declarative.csv, $OUT/declarative.json"
exit $status
