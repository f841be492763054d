#!/bin/sh
# tests/slurm/run.sh — `sacc ensemble --slurm` through a real single-node Slurm started
# for the test (tests/slurm/cluster.sh) and stopped after it, whatever happens (`make
# check-slurm`): the same design run locally and as a job array gives bit-identical
# results; a failed run is recorded with its message; a cancelled array shows its runs as
# cancelled, and they alone are submitted again.  Skipped, saying which packages to
# install, when Slurm is absent and cannot be installed (not root).
#
# Called by make as: SACC=build/sacc BUILD=build sh tests/slurm/run.sh
set -u
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
case $SACC in /*) ;; *) SACC=$PWD/$SACC ;; esac
FMU=$PWD/$BUILD/fmus/integrator.fmu
. tests/slurm/cluster.sh
slurm_need || { echo "slurm: 0 passed, 0 failed, 1 skipped"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sacc-slurm-test.XXXXXX")
chmod 755 "$T"
trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}
check() {
	what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
field() {
	awk -F, -v run="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == run { print $c[col] }' "$1"
}
# Polls `sacc ensemble status DIR` until no run is queued or running (at most $2 s).
wait_done() {
	n=0
	while [ $n -lt $(($2 * 10)) ]; do
		"$SACC" ensemble status "$1" 2>"$T/status.err"
		grep -q 'queued\|running\|not run' "$T/status.err" || return 0
		sleep 0.1
		n=$((n + 1))
	done
	cat "$T/status.err" >&2
	return 1
}

# Waits until Slurm itself holds no task of job $1 that waits, runs or is being ended (at
# most $2 s): scancel only asks the controller, which ends the tasks after it returns.
wait_left_queue() {
	n=0
	while [ $n -lt $(($2 * 10)) ]; do
		squeue -h -r -j "$1" -o '%T' 2>/dev/null >"$T/queue.txt"
		grep -q 'PENDING\|RUNNING\|COMPLETING\|CONFIGURING\|SIGNALING\|REQUEUE' \
			"$T/queue.txt" || return 0
		sleep 0.1
		n=$((n + 1))
	done
	cat "$T/queue.txt" >&2
	return 1
}

if ! slurm_start "$T/slurm"; then
	echo "slurm: 0 passed, 1 failed"
	exit 1
fi
cd "$T" || exit 1

# ---- the same design locally and through Slurm: bit-identical results ---------------------
printf 'run,integrator.x0,integrator.u,integrator.fail_at\n' >design.csv
for i in 1 2 3 4 5 6; do
	printf 'r%d,%d.%d,%d,-1\n' $i $i $i $((i * 3)) >>design.csv
done
printf 'r7,7,1,0.25\n' >>design.csv
"$SACC" ensemble "$FMU" -o local --design design.csv --jobs 2 -- --stop 1 --step 0.1 \
	2>/dev/null
"$SACC" ensemble "$FMU" -o cluster --design design.csv --slurm --throttle 4 \
	--time-limit 5 -- --stop 1 --step 0.1 2>submit.err
check "submitted" [ $? -eq 0 ]
check "one job array" grep -q 'submitted in 1 job array' submit.err
check "its job recorded" [ -s cluster/slurm.jobs ]
check "the array finishes" wait_done cluster 60
for i in 1 2 3 4 5 6; do
	check "run r$i ok through Slurm" [ "$(field cluster/index.csv r$i status)" = ok ]
	check "run r$i bit-identical" cmp -s local/runs/r$i.csv cluster/runs/r$i.csv
done
check "the failure recorded through Slurm" [ "$(field cluster/index.csv r7 status)" = failed ]
check "with its message" grep -q '^r7,.*fail_at = 0.25 reached' cluster/index.csv
check "each task's output kept" [ -n "$(ls cluster/slurm/*.out 2>/dev/null)" ]
"$SACC" ensemble collect cluster 2>/dev/null
check "statistics of the Slurm runs" [ "$(grep -c '^integrator.x,' cluster/stats.csv)" = 11 ]

# ---- cancelled: a running task records itself, a waiting one shows as cancelled ----------
# two runs of about 3 s of wall time each (--realtime), one at a time
"$SACC" ensemble "$FMU" -o cancel --grid integrator.x0=1,2 --slurm --throttle 1 \
	-- --stop 3 --step 0.1 --realtime 1 2>/dev/null
job=$(cut -d' ' -f1 cancel/slurm.jobs)
n=0
while [ ! -e cancel/runs/1.csv.part ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
check "the first task started" [ -e cancel/runs/1.csv.part ]
scancel "$job"
check "Slurm ended the array" wait_left_queue "$job" 30
check "the cancel shows" wait_done cancel 30
check "the running task recorded as cancelled" [ "$(field cancel/index.csv 1 status)" = cancelled ]
check "the waiting task shown as cancelled" [ "$(field cancel/index.csv 2 status)" = cancelled ]
"$SACC" ensemble cancel --slurm --throttle 2 2>resubmit.err
check "resubmitted" [ $? -eq 0 ]
check "the cancelled runs alone" [ "$(tail -n 1 cancel/slurm.jobs | cut -d' ' -f3)" = 0-1 ]
check "they finish" wait_done cancel 40
check "both ok now" [ "$(grep -c ',ok,' cancel/index.csv)" = 2 ]
"$SACC" ensemble cancel --slurm 2>again.err
check "nothing left to submit" grep -q 'nothing to run' again.err

echo "slurm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
