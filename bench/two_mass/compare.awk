# compare.awk — the largest absolute position error of either mass over the communication
# points: awk -f bench/columns.awk -f compare.awk REFERENCE.csv RESULT.csv prints it (%.17g).
#
# Both files are CSVs with a header naming the columns (time, m1.x, m2.x among them, in
# any order; a unit in brackets after a name is ignored: bench/columns.awk, loaded
# first).  Rows are matched by position and their times must agree (within 1e-9
# relative); a different number of rows is an error (exit 1), as is a result with NaN.
BEGIN { FS = ","; max = 0; bad = 0 }
FNR == 1 {
	file++
	for (i = 1; i <= NF; i++)
		col[file, bench_column($i)] = i
	for (n = split("time m1.x m2.x", need, " "); n > 0; n--)
		if (!((file, need[n]) in col)) {
			printf "compare.awk: %s has no column %s\n", FILENAME, need[n] > "/dev/stderr"
			bad = 1
			exit 1
		}
	next
}
file == 1 { rows++; t[rows] = $col[1, "time"]; x1[rows] = $col[1, "m1.x"]; x2[rows] = $col[1, "m2.x"]; next }
{
	r = FNR - 1
	if (r > rows) { printf "compare.awk: %s has more rows than %s\n", FILENAME, ARGV[1] > "/dev/stderr"; bad = 1; exit 1 }
	tt = $col[2, "time"] + 0
	scale = t[r] < 0 ? -t[r] : t[r]; if (scale < 1) scale = 1
	d = tt - t[r]; if (d < 0) d = -d
	if (d > 1e-9 * scale) { printf "compare.awk: row %d is at t = %s, the reference at %s\n", r, tt, t[r] > "/dev/stderr"; bad = 1; exit 1 }
	a = $col[2, "m1.x"]; b = $col[2, "m2.x"]
	if (a !~ /^[-+0-9.eE]+$/ || b !~ /^[-+0-9.eE]+$/) { printf "compare.awk: row %d holds %s, %s\n", r, a, b > "/dev/stderr"; bad = 1; exit 1 }
	e = a - x1[r]; if (e < 0) e = -e; if (e > max) max = e
	e = b - x2[r]; if (e < 0) e = -e; if (e > max) max = e
	seen = r
}
END {
	if (bad) exit 1
	if (seen != rows) { printf "compare.awk: %s has %d rows, %s has %d\n", ARGV[2], seen, ARGV[1], rows > "/dev/stderr"; exit 1 }
	printf "%.17g\n", max
}
