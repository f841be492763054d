#!/bin/sh
# tests/ensemble/run.sh — `sacc ensemble` on this machine (`make check-ensemble`): designs,
# local runs on several processes, failures recorded per run, an ensemble killed and
# resumed without redoing finished runs, statistics against values computed by hand.
# The integrator FMU (tests/fmus/integrator) gives x(t) = x0 + u t exactly, so every
# result is known; its fail_at parameter makes a run fail on purpose.
#
# Called by make as: SACC=build/sacc BUILD=build sh tests/ensemble/run.sh
set -u
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
case $SACC in /*) ;; *) SACC=$PWD/$SACC ;; esac
FMU=$PWD/$BUILD/fmus/integrator.fmu
FMU3=$PWD/$BUILD/fmus3/alltypes3.fmu
T=$(mktemp -d "${TMPDIR:-/tmp}/sacc-ensemble.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
passed=0
failed=0

ok() {
	passed=$((passed + 1))
}
bad() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}
# check WHAT COMMAND...: the command must succeed
check() {
	what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
# field FILE RUN COLUMN: the named column of the row whose first field is RUN
field() {
	awk -F, -v run="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == run { print $c[col] }' "$1"
}
# near A B: |A - B| <= 1e-12 (1 + |B|)
near() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
		exit !(a != "" && d <= 1e-12 * (1 + m)) }'
}

# ---- a design table, two processes, a failure recorded while the others go on ----------
printf 'run,integrator.x0,integrator.fail_at\nr1,1,-1\nr2,2,-1\nr3,4,0.45\nr4,8,-1\nr5,16,-1\n' \
	>design.csv
"$SACC" ensemble "$FMU" -o e1 --design design.csv --jobs 2 -- --stop 1 --step 0.25 \
	--set integrator.u=1 2>e1.err
check "a failed run makes the ensemble exit 1" [ $? -eq 1 ]
for r in r1 r2 r4 r5; do
	check "run $r is ok" [ "$(field e1/index.csv $r status)" = ok ]
	check "run $r has its result" [ -f e1/runs/$r.csv ]
done
check "run r3 failed" [ "$(field e1/index.csv r3 status)" = failed ]
check "run r3's exit code" [ "$(field e1/index.csv r3 exit_code)" = 1 ]
check "run r3's message" grep -q '^r3,.*fail_at = 0.45 reached' e1/index.csv
check "run r3 left no result" [ ! -f e1/runs/r3.csv ]
check "the summary counts" grep -q '5 runs: 4 ok, 1 failed' e1.err
# x(1) = x0 + 1 for x0 = 8
check "a result's last row" [ "$(tail -n 1 e1/runs/r4.csv)" = "1,9" ]

# ---- statistics against values by hand ---------------------------------------------------
# at t = 1 the four successful runs give 2, 3, 9, 17: min 2, max 17, mean 31/4; the
# percentiles at rank (n - 1) p / 100 = 3 p / 100: p25 at 0.75 -> 2 + 0.75 (3 - 2) = 2.75,
# p50 at 1.5 -> 3 + 0.5 (9 - 3) = 6, p90 at 2.7 -> 9 + 0.7 (17 - 9) = 14.6
"$SACC" ensemble collect e1 --percentiles 25,50,90 --at 0.5,1 --stats s.csv 2>/dev/null
check "collect succeeds" [ $? -eq 0 ]
row=$(grep '^integrator.x,1,' s.csv)
set -- $(echo "$row" | tr ',' ' ')
check "runs counted at t = 1" [ "$3" = 4 ]
check "min" near "$4" 2
check "mean" near "$5" 7.75
check "max" near "$6" 17
check "p25" near "$7" 2.75
check "p50" near "$8" 6
check "p90" near "$9" 14.6
# at t = 0.5: 1.5, 2.5, 8.5, 16.5: mean 29/4
check "mean at t = 0.5" near "$(grep '^integrator.x,0.5,' s.csv | cut -d, -f5)" 7.25
check "the table's header" [ "$(head -n 1 s.csv)" = "variable,time,runs,min,mean,max,p25,p50,p90" ]
"$SACC" ensemble collect e1 2>/dev/null
check "every recorded time by default" [ "$(grep -c '^integrator.x,' e1/stats.csv)" = 5 ]
"$SACC" ensemble collect e1 --plot fan.svg --var integrator.x 2>/dev/null
check "a fan chart drawn" grep -q 'p5 to p95' fan.svg
"$SACC" ensemble collect e1 --plot fan.svg --var integrator.y 2>fan.err
check "a fan chart of an unknown variable" grep -q "no variable 'integrator.y'" fan.err

# ---- the same design on one process: bit-identical results --------------------------------
"$SACC" ensemble "$FMU" -o e2 --design design.csv -- --stop 1 --step 0.25 \
	--set integrator.u=1 2>/dev/null
for r in r1 r2 r4 r5; do
	check "run $r the same on 1 and 2 processes" cmp -s e1/runs/$r.csv e2/runs/$r.csv
done

# ---- resumed: nothing finished is redone; --resubmit failed redoes the failures -----------
ls -l --time-style=+%s.%N e1/status e1/runs >before.txt
"$SACC" ensemble e1 --jobs 2 2>resume.err
check "a resumed ensemble with a failure still exits 1" [ $? -eq 1 ]
ls -l --time-style=+%s.%N e1/status e1/runs >after.txt
check "nothing redone on resuming" cmp -s before.txt after.txt
check "nothing to run, it says" grep -q 'nothing to run' resume.err
r3_before=$(stat -c %y e1/status/r3)
r1_before=$(stat -c %y e1/status/r1)
sleep 0.01
"$SACC" ensemble e1 --resubmit failed 2>/dev/null
check "--resubmit failed runs r3 again" [ "$(stat -c %y e1/status/r3)" != "$r3_before" ]
check "r1 untouched by --resubmit" [ "$(stat -c %y e1/status/r1)" = "$r1_before" ]
"$SACC" ensemble "$FMU" -o e1 --design design.csv -- --stop 2 2>other.err
check "another ensemble in the same directory is refused" [ $? -eq 2 ]
check "it says so" grep -q 'holds another ensemble' other.err

# ---- killed with SIGKILL in the middle, then resumed ---------------------------------------
# each run paced to about 1 s of wall time (--realtime), six of them on one process: the
# kill comes at about 2 s, which leaves a loaded machine's polling below 4 s to spare
"$SACC" ensemble "$FMU" -o e3 --grid integrator.x0=1:6:6 --jobs 1 -- --stop 1 --step 0.1 \
	--realtime 1 2>/dev/null &
pid=$!
n=0
# killed once two runs are done and a third is under way
while { [ "$(ls e3/status 2>/dev/null | wc -l)" -lt 2 ] ||
	[ -z "$(ls e3/runs 2>/dev/null | grep '\.part$')" ]; } && [ $n -lt 200 ]; do
	sleep 0.02
	n=$((n + 1))
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
# its worker, told by the kernel that its parent died, stops its run and records it
# cancelled
n=0
while [ -n "$(ls e3/runs | grep '\.part$')" ] && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
finished=$(ls e3/status | wc -l)
check "killed before the end" [ "$finished" -lt 6 ]
check "the run under way recorded as cancelled" grep -q '^state cancelled' e3/status/*
done_before=$(grep -l '^state ok' e3/status/*)
check "a run finished before the kill" [ -n "$done_before" ]
stat -c '%n %y' $done_before >killed.txt
first=$(basename "$(echo "$done_before" | head -n 1)")
stamp=$(stat -c %y "e3/runs/$first.csv")
"$SACC" ensemble e3 2>/dev/null
check "the resumed ensemble succeeds" [ $? -eq 0 ]
check "all six done" [ "$(grep -c ',ok,' e3/index.csv)" = 6 ]
check "a run finished before the kill was not redone" [ "$(stat -c %y "e3/runs/$first.csv")" = "$stamp" ]
stat -c '%n %y' $done_before >resumed.txt
check "no finished run's status rewritten" cmp -s killed.txt resumed.txt
check "no partial result left" [ -z "$(ls e3/runs | grep '\.part$')" ]

# ---- interrupted (SIGTERM): the runs under way are recorded as cancelled, then redone -----
"$SACC" ensemble "$FMU" -o e4 --grid integrator.x0=1:4:4 --jobs 2 -- --stop 2 --step 0.1 \
	--realtime 1 2>e4.err &
pid=$!
n=0
while [ "$(ls e4/runs 2>/dev/null | grep -c '\.part$')" -lt 1 ] && [ $n -lt 200 ]; do
	sleep 0.05
	n=$((n + 1))
done
sleep 0.3
kill -TERM $pid
wait $pid
check "an interrupted ensemble exits 130" [ $? -eq 130 ]
check "a run recorded as cancelled" grep -q ',cancelled,' e4/index.csv
"$SACC" ensemble e4 --jobs 2 2>/dev/null
check "cancelled runs redone on resuming" [ "$(grep -c ',ok,' e4/index.csv)" = 4 ]

# ---- generated designs --------------------------------------------------------------------
"$SACC" ensemble "$FMU" -o g1 --grid integrator.x0=0:1:3 --grid integrator.u=5,7 \
	-- --stop 0.5 --step 0.25 2>/dev/null
check "a grid: the last parameter fastest" [ "$(cat g1/design.csv)" = "$(printf \
	'run,integrator.x0,integrator.u\n1,0,5\n2,0,7\n3,0.5,5\n4,0.5,7\n5,1,5\n6,1,7')" ]
check "x(0.5) = x0 + 0.5 u for run 4" [ "$(tail -n 1 g1/runs/4.csv)" = "0.5,4" ]
for m in monte-carlo latin-hypercube; do
	"$SACC" ensemble "$FMU" -o s1-$m --sample integrator.x0=normal:0:1 \
		--sample integrator.u=uniform:2:3 --samples 8 --method $m --seed 42 --reduce final \
		-- --stop 1 2>/dev/null
	"$SACC" ensemble "$FMU" -o s2-$m --sample integrator.x0=normal:0:1 \
		--sample integrator.u=uniform:2:3 --samples 8 --method $m --seed 42 --reduce final \
		-- --stop 1 2>/dev/null
	check "$m: the same seed, the same design" cmp -s s1-$m/design.csv s2-$m/design.csv
	check "$m: eight runs" [ "$(grep -c ',ok,' s1-$m/index.csv)" = 8 ]
	check "$m: --reduce final keeps one row" [ "$(wc -l <s1-$m/runs/1.csv)" = 2 ]
done
# a Latin hypercube puts one sample in each eighth of [2, 3]
strata=$(awk -F, 'NR > 1 { print int(($3 - 2) * 8) }' s1-latin-hypercube/design.csv |
	sort -n | tr '\n' ' ')
check "latin hypercube: one sample per stratum" [ "$strata" = "0 1 2 3 4 5 6 7 " ]
# (the same samples as s1-monte-carlo's, so that only the seed differs)
check "another seed, another design" sh -c "'$SACC' ensemble '$FMU' -o s3 \
	--sample integrator.x0=normal:0:1 --sample integrator.u=uniform:2:3 --samples 8 \
	--method monte-carlo --seed 43 --reduce final -- --stop 1 2>/dev/null;
	[ \"\$(head -n 1 s3/design.csv)\" = \"\$(head -n 1 s1-monte-carlo/design.csv)\" ] &&
	! cmp -s s3/design.csv s1-monte-carlo/design.csv"

# ---- Strings (alltypes3 passes each input to its output) ---------------------------------
# a design's quoted value reaches --set whole; the statistics leave the String columns out
printf 'run,alltypes3.f64_in,alltypes3.str_in\nr1,1,"a,b"\nr2,3,plain\n' >sdesign.csv
"$SACC" ensemble "$FMU3" -o st --design sdesign.csv -- --stop 1 --step 0.5 2>/dev/null
check "a quoted design value, comma and all" [ "$(grep -c ',"a,b",' st/runs/r1.csv)" = 3 ]
"$SACC" ensemble collect st 2>/dev/null
check "statistics of numbers only" [ "$(grep -c 'str_out\|bin_out' st/stats.csv)" = 0 ]
check "the mean of f64_out at t = 1 is (1 + 3) / 2" \
	[ "$(awk -F, '$1 == "alltypes3.f64_out" && $2 == 1 { print $5 }' st/stats.csv)" = 2 ]
# --reduce final keeps the last record whole, a String's line break and all
printf 'time,str_in\n0,"one\nline, two"\n' >strs.csv
printf 'run,alltypes3.f64_in\nr1,1\n' >d1.csv
"$SACC" ensemble "$FMU3" -o sr --design d1.csv --reduce final -- --stop 1 --step 0.5 \
	--input "$T/strs.csv" 2>/dev/null
check "--reduce final: the header and one record over two lines" \
	[ "$(wc -l <sr/runs/r1.csv)" = 3 ] && [ "$(sed -n 2p sr/runs/r1.csv | cut -d, -f1)" = 1 ]

# ---- usage errors ------------------------------------------------------------------------
printf 'run,integrator.x0\nr1,1\nr2\n' >short.csv
"$SACC" ensemble "$FMU" -o u1 --design short.csv 2>u1.err
check "a short design row is an error" [ $? -eq 1 ]
check "with its file and line" grep -q '^short.csv:3:1: 1 fields where the header has 2' u1.err
"$SACC" ensemble "$FMU" -o u2 --grid integrator.x0=1:2:2 -- --stop 1 --bogus 2>u2.err
check "a simulate option refused stops the ensemble" [ $? -eq 2 ]
check "naming the option" grep -q "unknown option '--bogus'" u2.err
check "before the other runs" sh -c '[ ! -e u2/status/2 ] && [ ! -e u2/runs/2.log ]'
"$SACC" ensemble "$FMU" -o u3 --grid integrator.x0=1:2:2 -- -o x.csv 2>u3.err
check "-o after -- is refused" [ $? -eq 2 ]
"$SACC" ensemble "$FMU" -o u4 --grid integrator.x0=1:2:2 --jbos 2 2>u4.err
check "did you mean" grep -q "did you mean '--jobs'" u4.err
"$SACC" ensemble "$FMU" -o u5 --sample integrator.x0=gauss:0:1 --samples 3 2>u5.err
check "an unknown distribution" grep -q "expected uniform:LO:HI" u5.err

echo "ensemble: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
