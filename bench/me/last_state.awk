# last_state.awk — the last row's s1.y1, s1.y2, s1.y3 of a sacc simulate result, for
# bench/me/run.sh; loaded after bench/columns.awk:
#   awk -F, -f bench/columns.awk -f bench/me/last_state.awk RESULT.csv
# Exits 1 when a column is missing or the file has no row after its header.
NR == 1 {
	for (i = 1; i <= NF; i++)
		col[bench_column($i)] = i
	next
}
{ last = $0 }
END {
	if (!("s1.y1" in col) || !("s1.y2" in col) || !("s1.y3" in col) || last == "")
		exit 1
	split(last, v, ",")
	print v[col["s1.y1"]], v[col["s1.y2"]], v[col["s1.y3"]]
}
