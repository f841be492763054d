# columns.awk — a result column's name as the benchmarks look it up, loaded before a
# script that reads result CSVs (awk -f bench/columns.awk -f SCRIPT.awk ...).
#
# sacc simulate's header has carried units ("time [s]", "m2.x [m]") and may name the
# columns plainly ("time", "m2.x"), as the benchmarks' references do: the name without a
# trailing " [unit]" (and without a CR from a file written on Windows) matches both.
function bench_column(header) {
	sub(/\r$/, "", header)
	sub(/ \[[^]]*\]$/, "", header)
	return header
}
