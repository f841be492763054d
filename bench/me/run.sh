#!/bin/sh
# run.sh — `make bench-me`: the runtime's ODE solvers against GSL's at equal accuracy
# (odebench, built by make; every sweep point in $BUILD/bench/me/sweep.csv).
#
#   BUILD=build SACC=build/sacc sh bench/me/run.sh
#
# BENCH_QUICK=1: tolerances in whole decades and one timed run each (odebench reads it).
set -eu
BENCH=bench-me
. bench/bench.sh
BUILD=${BUILD:-build}
OUT=$BUILD/bench/me
mkdir -p "$OUT"

"$OUT/odebench" "$OUT/sweep.csv" || bench_fail "odebench could not compute every figure"
