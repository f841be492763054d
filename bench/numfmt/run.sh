#!/bin/sh
# run.sh — the number-formatting benchmark (`make bench-numfmt`): what one value's text
# costs with the shortest formatter sacc uses (runtime/sart_numfmt.c), beside snprintf's
# "%.17g", the "%.17g" formatter sacc used before (old_numfmt.c) and the shortest text by
# snprintf "%.*g" + strtod attempts.
#
#   BUILD=build sh bench/numfmt/run.sh
#
# Time: ns per value, best of five passes (numfmt_bench time).  Instructions per value:
# callgrind, counting only inside each formatter's function (--toggle-collect), when
# valgrind is installed.  Under valgrind the old formatter leaves every value to snprintf
# (valgrind's x87 keeps 53 bits), so its count there is snprintf's; its time is its own.
set -eu
BUILD=${BUILD:-build}
OUT=$BUILD/bench/numfmt
BENCH=$OUT/numfmt_bench
N=${N:-20000}

"$BENCH" time
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
	echo "(valgrind not installed: no instruction counts)"
	exit 0
}
echo
echo "instructions per value (callgrind, $N values; %.*g+strtod: $((N / 10)))"
printf '%-8s' set
for f in shortest printf17 old loop; do printf '  %12s' "$f"; done
echo
for set in times values bits; do
	printf '%-8s' "$set"
	for f in shortest printf17 old loop; do
		n=$N
		[ "$f" = loop ] && n=$((N / 10))
		valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$f.$set" \
			--toggle-collect="fmt_$f" "$BENCH" count "$f" "$set" "$n" >/dev/null 2>&1
		ir=$(callgrind_annotate "$OUT/cg.$f.$set" 2>/dev/null |
			awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
		printf '  %12s' "$((ir / n))"
	done
	echo
done
