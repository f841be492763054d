#!/bin/sh
# bench/ensemble/run.sh — `make bench-ensemble`: runs per second of a small ensemble (the
# integrator FMU, 100 macro steps a run) with 1 and 2 local processes and as a Slurm job
# array on a single-node Slurm started for the benchmark (skipped when Slurm is absent),
# and what sacc itself costs per run beside the run's own work:
#
#   start     a sacc process started and ended (`sacc --version`, mean of 20)
#   run       the master's loop, as simulate's summary gives it ("N s wall time")
#   whole     a run as its worker sees it (fork, exec, FMU unpacked and loaded, the run,
#             the result written and renamed, the status recorded): the index's wall_time
#   load+write  whole - start - run
#
# Figures only: nothing here is asserted, but a run that fails or a figure that cannot be
# computed ends it with status 1.  RUNS=N changes the ensemble's size (default 40; 4 with
# BENCH_QUICK=1, which also starts sacc 5 times instead of 20).  The Slurm line is skipped,
# saying why, when Slurm is not installed or does not start (it needs root).
set -u
BENCH=bench-ensemble
. bench/bench.sh
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
case $SACC in /*) ;; *) SACC=$PWD/$SACC ;; esac
FMU=$PWD/$BUILD/fmus/integrator.fmu
if bench_quick; then
	RUNS=${RUNS:-4}
	STARTS=5
else
	RUNS=${RUNS:-40}
	STARTS=20
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sacc-bench-ensemble.XXXXXX")
chmod 755 "$T"
. tests/slurm/cluster.sh
trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

now() { date +%s.%N; }
rate() {
	awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { if (!(b > a)) exit 1
		printf "%8.1f runs/s  (%d runs in %.2f s)\n", n / (b - a), n, b - a }' ||
		bench_fail "no rate: the clock read $2, then $3"
}
SIM="--stop 1 --step 0.01"

# all_ok DIR: fails unless the index lists RUNS runs, all ok.
all_ok() {
	awk -F, 'NR > 1 { n++; if ($(NF - 3) != "ok") bad++ } END { exit !(n == runs && !bad) }' \
		runs="$RUNS" "$1/index.csv" 2>/dev/null ||
		bench_fail "not every run of $1 is ok ($(sed -n 2,4p "$1/index.csv" 2>/dev/null))"
}

echo "bench-ensemble: $RUNS runs of $FMU ($SIM: 100 macro steps each), $(nproc) cores"
for jobs in 1 2; do
	a=$(now)
	bench_run "$T/local$jobs.err" "$SACC" ensemble "$FMU" -o "$T/local$jobs" \
		--grid integrator.x0=0:1:$RUNS --jobs $jobs -- $SIM
	b=$(now)
	all_ok "$T/local$jobs"
	r=$(rate "$RUNS" "$a" "$b") || exit 1
	printf '  local, --jobs %d:  %s\n' $jobs "$r"
done

if ! slurm_need 2>/dev/null; then
	echo "  Slurm job array:  skipped (Slurm absent: $SLURM_PACKAGES)"
elif ! slurm_start "$T/slurm" 2>"$T/slurm.err"; then
	echo "  Slurm job array:  skipped (Slurm did not start: $(tail -n 1 "$T/slurm.err"))"
else
	a=$(now)
	bench_run "$T/cluster.err" "$SACC" ensemble "$FMU" -o "$T/cluster" \
		--grid integrator.x0=0:1:$RUNS --slurm -- $SIM
	n=0
	while :; do
		"$SACC" ensemble status "$T/cluster" 2>"$T/status.err"
		grep -q 'queued\|running\|not run' "$T/status.err" || break
		[ $n -lt 3000 ] || bench_fail "the Slurm job array did not end in 300 s" \
			"($(tail -n 1 "$T/status.err"))"
		sleep 0.1
		n=$((n + 1))
	done
	b=$(now)
	all_ok "$T/cluster"
	r=$(rate "$RUNS" "$a" "$b") || exit 1
	printf '  Slurm job array:  %s\n' "$r"
	echo "    (one node at 127.0.0.1, every core a slot; includes sbatch and the polling)"
fi

a=$(now)
i=0
while [ $i -lt $STARTS ]; do
	"$SACC" --version >/dev/null || bench_fail "$SACC --version failed"
	i=$((i + 1))
done
b=$(now)
start=$(awk -v a="$a" -v b="$b" -v n=$STARTS 'BEGIN { print (b - a) / n }')
whole=$(awk -F, 'NR > 1 && $(NF - 3) == "ok" { s += $(NF - 1); n++ } END { if (n) print s / n }' \
	"$T/local1/index.csv")
own=$(cat "$T"/local1/runs/*.log | sed -n 's/.*, \([0-9.e-]*\) s wall time.*/\1/p' |
	awk '{ s += $1; n++ } END { if (n) print s / n }')
bench_number "a whole run's wall_time in $T/local1/index.csv" "$whole"
bench_number "a run's own wall time in $T/local1/runs/*.log" "$own"
bench_number "the time of sacc --version" "$start"
awk -v w="$whole" 'BEGIN { exit !(w > 0) }' || bench_fail "a whole run took no time ($whole s)"
echo "  per run, one process at a time (means over $RUNS runs):"
awk -v w="$whole" -v s="$start" -v o="$own" 'BEGIN {
	printf "    whole run            %8.2f ms\n", 1000 * w
	printf "    the run itself       %8.2f ms  (%.0f%%)\n", 1000 * o, 100 * o / w
	printf "    sacc: start          %8.2f ms  (%.0f%%)\n", 1000 * s, 100 * s / w
	printf "    sacc: load + write   %8.2f ms  (%.0f%%)\n", 1000 * (w - s - o), 100 * (w - s - o) / w
}'
