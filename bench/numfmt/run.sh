#!/bin/sh
# run.sh — the number-formatting benchmark (`make bench-numfmt`): what one value's text
# costs with the shortest formatter sacc uses (runtime/sart_numfmt.c), beside snprintf's
# "%.17g", the "%.17g" formatter sacc used before (old_numfmt.c) and the shortest text by
# snprintf "%.*g" + strtod attempts.
#
#   BUILD=build sh bench/numfmt/run.sh
#
# Time: ns per value, best of five passes (numfmt_bench time).  Instructions per value:
# callgrind, counting only inside each formatter's function (--toggle-collect).  Under
# valgrind the old formatter leaves every value to snprintf (valgrind's x87 keeps 53 bits),
# so its count there is snprintf's; its time is its own.  Without valgrind, or when a count
# cannot be had, it ends with status 1.  BENCH_QUICK=1: 4096 values timed (numfmt_bench
# reads it too), 2000 counted.
set -eu
BENCH=bench-numfmt
BENCH_PACKAGE=valgrind
. bench/bench.sh
BUILD=${BUILD:-build}
OUT=$BUILD/bench/numfmt
PROG=$OUT/numfmt_bench
if bench_quick; then
	N=${N:-2000}
else
	N=${N:-20000}
fi

bench_need valgrind callgrind_annotate
"$PROG" time
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
		cg=$OUT/cg.$f.$set
		bench_run "$cg.log" valgrind --tool=callgrind --callgrind-out-file="$cg" \
			--toggle-collect="fmt_$f" "$PROG" count "$f" "$set" "$n" >/dev/null
		bench_run "$cg.annotate.log" callgrind_annotate "$cg" >"$cg.annotate"
		ir=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' "$cg.annotate")
		bench_number "instructions of fmt_$f on $set ($cg.annotate)" "$ir"
		[ "$ir" -gt 0 ] || bench_fail "callgrind counted nothing in fmt_$f ($cg.annotate)"
		printf '  %12s' "$((ir / n))"
	done
	echo
done
