#!/bin/sh
# run.sh — Benchmark 1 (`make bench-two-mass`): two coupled masses, each an FMU
# that is exact for inputs linear over a step, so the error measured is coupling error only.
#
#   SACC=build/sacc BUILD=build sh bench/two_mass/run.sh
#   DRIVER=handloop ... the same table from bench/two_mass/handloop.c instead of sacc simulate
#
# Six schemes at five step sizes over 0 <= t <= 10 s; error = the largest absolute position
# error of either mass over the communication points, against the exact monolithic
# solution ($BUILD/bench/two_mass/reference at the same points, compared by compare.awk).
# Then the observed order log2(err(H) / err(H/2)) between the last two step sizes.  A run
# that fails (e.g. a NaN once a scheme is unstable), or an error that is not a positive
# number, ends the benchmark with a message and status 1.  Every CSV is kept in
# $BUILD/bench/two_mass/.  BENCH_QUICK=1: the first two step sizes only.
set -eu
BENCH=bench-two-mass
. bench/bench.sh
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
DRIVER=${DRIVER:-sacc}
if bench_quick; then
	HS=${HS:-"0.1 0.05"}
else
	HS=${HS:-"0.1 0.05 0.025 0.0125 0.00625"}
fi
# shellcheck disable=SC2086  # HS is a list of words
[ "$(set -- $HS; echo $#)" -ge 2 ] || bench_fail "HS needs two step sizes at least for the order"
STOP=10
HERE=bench/two_mass
OUT=$BUILD/bench/two_mass
SCHEMES="jacobi gauss-seidel jacobi+extrap gauss-seidel+extrap jacobi+1iter jacobi+3iter"

args() {
	case $1 in
	jacobi) echo "--master jacobi --approx hold" ;;
	gauss-seidel) echo "--master gauss-seidel --approx hold" ;;
	jacobi+extrap) echo "--master jacobi --approx linear" ;;
	gauss-seidel+extrap) echo "--master gauss-seidel --approx linear" ;;
	jacobi+1iter) echo "--master jacobi --iterations 1" ;;
	jacobi+3iter) echo "--master jacobi --iterations 3" ;;
	esac
}

# simulate SCHEME H CSV: one run of the scenario.
simulate() {
	# shellcheck disable=SC2046  # args gives words on purpose
	case $DRIVER in
	sacc)
		"$SACC" simulate -L "$BUILD/fmus" "$HERE/two_mass.sa" --start 0 --stop "$STOP" \
			--step "$2" $(args "$1") --record m1.x,m1.v,m2.x,m2.v -o "$3" ;;
	handloop)
		"$OUT/handloop" -L "$BUILD/fmus" --start 0 --stop "$STOP" --step "$2" $(args "$1") \
			-o "$3" ;;
	*) echo "run.sh: DRIVER is sacc or handloop, not $DRIVER" >&2; exit 2 ;;
	esac
}

echo "H $SCHEMES"
for h in $HS; do
	bench_run "$OUT/reference_$h.log" "$OUT/reference" --start 0 --stop "$STOP" --step "$h" \
		-o "$OUT/reference_$h.csv"
	row=$h
	for s in $SCHEMES; do
		csv=$OUT/${s}_$h.csv
		bench_run "$csv.log" simulate "$s" "$h" "$csv"
		err=$(awk -f bench/columns.awk -f "$HERE/compare.awk" "$OUT/reference_$h.csv" "$csv" \
			2>>"$csv.log") || {
			tail -n 3 "$csv.log" >&2
			bench_fail "$s at H = $h: no error against the reference (log: $csv.log)"
		}
		bench_number "$s at H = $h" "$err"
		echo "$err" >"$OUT/${s}_$h.err"
		row="$row $(printf '%.3e' "$err")"
	done
	echo "$row"
done

# The order between the last two step sizes.
set -- $HS
while [ $# -gt 2 ]; do shift; done
row="order"
for s in $SCHEMES; do
	order=$(awk -v a="$(cat "$OUT/${s}_$1.err")" -v b="$(cat "$OUT/${s}_$2.err")" 'BEGIN {
		if (!(a > 0 && b > 0)) exit 1
		printf "%.2f", log(a / b) / log(2) }') ||
		bench_fail "$s: no order from the errors at H = $1 and $2 (one is not positive)"
	row="$row $order"
done
echo "$row"
