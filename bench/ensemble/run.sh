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
# Figures only: nothing here is asserted.  RUNS=N changes the ensemble's size (default 40).
set -u
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
case $SACC in /*) ;; *) SACC=$PWD/$SACC ;; esac
FMU=$PWD/$BUILD/fmus/integrator.fmu
RUNS=${RUNS:-40}
T=$(mktemp -d "${TMPDIR:-/tmp}/sacc-bench-ensemble.XXXXXX")
chmod 755 "$T"
. tests/slurm/cluster.sh
trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%8.1f runs/s  (%d runs in %.2f s)\n", n / (b - a), n, b - a }'; }
SIM="--stop 1 --step 0.01"

echo "bench-ensemble: $RUNS runs of $FMU ($SIM: 100 macro steps each), $(nproc) cores"
for jobs in 1 2; do
	a=$(now)
	"$SACC" ensemble "$FMU" -o "$T/local$jobs" --grid integrator.x0=0:1:$RUNS --jobs $jobs \
		-- $SIM 2>/dev/null
	b=$(now)
	printf '  local, --jobs %d:  ' $jobs
	rate "$RUNS" "$a" "$b"
done

if slurm_need 2>/dev/null && slurm_start "$T/slurm" 2>/dev/null; then
	a=$(now)
	"$SACC" ensemble "$FMU" -o "$T/cluster" --grid integrator.x0=0:1:$RUNS --slurm \
		-- $SIM 2>/dev/null
	n=0
	while [ $n -lt 3000 ]; do
		"$SACC" ensemble status "$T/cluster" 2>"$T/status.err"
		grep -q 'queued\|running\|not run' "$T/status.err" || break
		sleep 0.1
		n=$((n + 1))
	done
	b=$(now)
	printf '  Slurm job array:  '
	rate "$RUNS" "$a" "$b"
	echo "    (one node at 127.0.0.1, every core a slot; includes sbatch and the polling)"
else
	echo "  Slurm job array:  skipped (Slurm absent: $SLURM_PACKAGES)"
fi

a=$(now)
i=0
while [ $i -lt 20 ]; do
	"$SACC" --version >/dev/null
	i=$((i + 1))
done
b=$(now)
start=$(awk -v a="$a" -v b="$b" 'BEGIN { print (b - a) / 20 }')
whole=$(awk -F, 'NR > 1 && $(NF - 3) == "ok" { s += $(NF - 1); n++ } END { print s / n }' \
	"$T/local1/index.csv")
own=$(cat "$T"/local1/runs/*.log | sed -n 's/.*, \([0-9.e-]*\) s wall time.*/\1/p' |
	awk '{ s += $1; n++ } END { print s / n }')
echo "  per run, one process at a time (means over $RUNS runs):"
awk -v w="$whole" -v s="$start" -v o="$own" 'BEGIN {
	printf "    whole run            %8.2f ms\n", 1000 * w
	printf "    the run itself       %8.2f ms  (%.0f%%)\n", 1000 * o, 100 * o / w
	printf "    sacc: start          %8.2f ms  (%.0f%%)\n", 1000 * s, 100 * s / w
	printf "    sacc: load + write   %8.2f ms  (%.0f%%)\n", 1000 * (w - s - o), 100 * (w - s - o) / w
}'
