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
# that fails (e.g. a NaN once a scheme is unstable) shows as "failed", and the script then
# exits 1 after the table: a figure that cannot be computed is a failure, not a result.
# Every CSV is kept in $BUILD/bench/two_mass/.
set -eu
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
DRIVER=${DRIVER:-sacc}
HS=${HS:-"0.1 0.05 0.025 0.0125 0.00625"}
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

failed=0
echo "H $SCHEMES"
for h in $HS; do
	"$OUT/reference" --start 0 --stop "$STOP" --step "$h" -o "$OUT/reference_$h.csv"
	row=$h
	for s in $SCHEMES; do
		csv=$OUT/${s}_$h.csv
		if simulate "$s" "$h" "$csv" 2>"$csv.log" &&
			err=$(awk -f "$HERE/compare.awk" "$OUT/reference_$h.csv" "$csv" 2>>"$csv.log"); then
			echo "$err" >"$OUT/${s}_$h.err"
			row="$row $(printf '%.3e' "$err")"
		else
			echo "nan" >"$OUT/${s}_$h.err"
			row="$row failed"
			failed=$((failed + 1))
			sed 's/^/  /' "$csv.log" | head -n 3 >&2
		fi
	done
	echo "$row"
done

# The order between the last two step sizes.
set -- $HS
while [ $# -gt 2 ]; do shift; done
row="order"
for s in $SCHEMES; do
	row="$row $(awk -v a="$(cat "$OUT/${s}_$1.err")" -v b="$(cat "$OUT/${s}_$2.err")" 'BEGIN {
		if (a == "nan" || b == "nan" || a <= 0 || b <= 0) print "-"
		else printf "%.2f", log(a / b) / log(2) }')"
done
echo "$row"
if [ "$failed" -gt 0 ]; then
	echo "run.sh: $failed figure(s) could not be computed (see $OUT/*.log)" >&2
	exit 1
fi
