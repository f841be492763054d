#!/bin/sh
# run.sh — the wrapper benchmark (`make bench-wrapper`): what a pass-through wrapper costs
# on top of calling its inner FMU directly, per set/doStep/get cycle.
#
#   SACC=build/sacc BUILD=build sh bench/wrapper/run.sh
#
# Instructions come from valgrind's callgrind (repeatable whatever else the machine does):
# each FMU runs N1 and N2 cycles, and the difference divided by N2 - N1 is the cost of one
# cycle with start-up and shut-down cancelled out.  Time per cycle is measured without
# valgrind over TIME_STEPS cycles.  A figure that cannot be computed (a run fails, the
# outputs differ, a count is not a number, the FMI 3.0 build fails) ends it with status 1.
# BENCH_QUICK=1: 200 and 1200 cycles under callgrind, 20000 timed.
set -eu
BENCH=bench-wrapper
BENCH_PACKAGE=valgrind
. bench/bench.sh
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
if bench_quick; then
	N1=${N1:-200}
	N2=${N2:-1200}
	TIME_STEPS=${TIME_STEPS:-20000}
else
	N1=${N1:-2000}
	N2=${N2:-12000}
	TIME_STEPS=${TIME_STEPS:-2000000}
fi
OUT=$BUILD/bench/wrapper
rm -rf "$OUT"
mkdir -p "$OUT"

bench_need valgrind callgrind_annotate

${CC:-cc} -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iruntime/fmi2 \
	-o "$OUT/driver" bench/wrapper/driver.c -ldl
${CC:-cc} -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iruntime/fmi3 -Itests/unit \
	-o "$OUT/driver3" bench/wrapper/driver3.c -ldl
"$SACC" build -L "$BUILD/fmus" -o "$OUT" bench/wrapper/passthrough_sa.sa
"$SACC" unpack "$OUT/passthrough_sa.fmu" "$OUT/passthrough_sa"
# The hand-written floor (floor.c) beside the same inner FMU: the wrapper's unpacked tree
# with floor.c's library in place of the generated one.
cp -R "$OUT/passthrough_sa" "$OUT/floor"
${CC:-cc} -std=c99 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror \
	-Iruntime/fmi2 -o "$OUT/floor/binaries/linux64/passthrough_sa.so" bench/wrapper/floor.c -ldl

guid() { sed -n 's/.*guid="\([^"]*\)".*/\1/p' "$1/modelDescription.xml" | head -n 1; }
WINDOW_DIR=$BUILD/fmus/window
WRAP_DIR=$OUT/passthrough_sa
FLOOR_DIR=$OUT/floor
WINDOW_GUID=$(guid "$WINDOW_DIR")
WRAP_GUID=$(guid "$WRAP_DIR")

# instructions DIR ID GUID N [ih]: the instructions of one run of $DRIVER (driver, or
# driver3 for an FMI 3.0 FMU) spent outside the importer's own code, from callgrind: the
# FMU's libraries, and what they call.  The importer's loop is left out, so that the FMI 3.0
# driver's longer calls (more arguments, four out-arguments) are not counted as the
# wrapper's.
DRIVER=driver
instructions() {
	f=$OUT/callgrind.$DRIVER.$2.$4${5:+.$5}
	bench_run "$f.log" valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$OUT/$DRIVER" "$1" "$2" "$3" "$4" ${5:-} >/dev/null
	total=$(sed -n 's/^summary: *//p' "$f" | head -n 1)
	bench_number "callgrind's total in $f" "$total"
	bench_run "$f.annotate.log" callgrind_annotate --threshold=100 "$f" >"$f.annotate"
	importer=$(awk -v exe="/$DRIVER]" 'index($0, exe) == length($0) - length(exe) + 1 {
			gsub(",", "", $1); n += $1; seen = 1 } END { if (seen) print n }' "$f.annotate")
	bench_number "the importer's own instructions in $f.annotate" "$importer"
	echo $((total - importer))
}

# per_cycle DIR ID GUID [ih]: instructions per cycle, start-up and shut-down cancelled out.
per_cycle() {
	a=$(instructions "$1" "$2" "$3" "$N1" ${4:-}) || exit 1
	b=$(instructions "$1" "$2" "$3" "$N2" ${4:-}) || exit 1
	echo $(( (b - a) / (N2 - N1) ))
}

# driven FIELD DRIVER DIR ID GUID N [ih]: FIELD (checksum, ns_per_step) from one run.
driven() {
	bench_output "$1" "$OUT/$2.log" "$OUT/$2" "$3" "$4" "$5" "$6" ${7:-}
}

# The two must compute the same thing: the wrapper only forwards.
direct_sum=$(driven checksum driver "$WINDOW_DIR" window "$WINDOW_GUID" 1000)
wrap_sum=$(driven checksum driver "$WRAP_DIR" passthrough_sa "$WRAP_GUID" 1000)
floor_sum=$(driven checksum driver "$FLOOR_DIR" passthrough_sa "$WRAP_GUID" 1000)
if [ "$direct_sum" != "$wrap_sum" ] || [ "$direct_sum" != "$floor_sum" ]; then
	echo "bench-wrapper: the outputs differ from the inner FMU's (wrapper $wrap_sum, floor $floor_sum, direct $direct_sum)" >&2
	exit 1
fi
direct_sum=$(driven checksum driver "$WINDOW_DIR" window "$WINDOW_GUID" 1000 ih)
wrap_sum=$(driven checksum driver "$WRAP_DIR" passthrough_sa "$WRAP_GUID" 1000 ih)
floor_sum=$(driven checksum driver "$FLOOR_DIR" passthrough_sa "$WRAP_GUID" 1000 ih)
if [ "$direct_sum" != "$wrap_sum" ] || [ "$direct_sum" != "$floor_sum" ]; then
	echo "bench-wrapper: with t = i h the outputs differ from the inner FMU's (wrapper $wrap_sum, floor $floor_sum, direct $direct_sum)" >&2
	exit 1
fi

# Two importers: one passing t += h (t is then the time the FMU reached, bit for bit) and
# one passing t = i h (t then differs from it by rounding, within the tolerance).
direct=$(per_cycle "$WINDOW_DIR" window "$WINDOW_GUID")
wrapped=$(per_cycle "$WRAP_DIR" passthrough_sa "$WRAP_GUID")
floor=$(per_cycle "$FLOOR_DIR" passthrough_sa "$WRAP_GUID")
direct_ih=$(per_cycle "$WINDOW_DIR" window "$WINDOW_GUID" ih)
wrapped_ih=$(per_cycle "$WRAP_DIR" passthrough_sa "$WRAP_GUID" ih)
floor_ih=$(per_cycle "$FLOOR_DIR" passthrough_sa "$WRAP_GUID" ih)
direct_ns=$(driven ns_per_step driver "$WINDOW_DIR" window "$WINDOW_GUID" "$TIME_STEPS")
wrapped_ns=$(driven ns_per_step driver "$WRAP_DIR" passthrough_sa "$WRAP_GUID" "$TIME_STEPS")
floor_ns=$(driven ns_per_step driver "$FLOOR_DIR" passthrough_sa "$WRAP_GUID" "$TIME_STEPS")

echo "wrapper overhead: one set(3 Reals) / doStep / get(2 Reals) cycle on the window FMU"
echo "(instructions outside the importer per cycle; ns/cycle with t += h)"
printf '%-28s %12s %12s %12s\n' "" "t += h" "t = i h" "ns/cycle"
printf '%-28s %12s %12s %12s\n' "window, called directly" "$direct" "$direct_ih" "$direct_ns"
printf '%-28s %12s %12s %12s\n' "passthrough_sa(window)" "$wrapped" "$wrapped_ih" "$wrapped_ns"
printf '%-28s %12s %12s %12s\n' "hand-written floor(window)" "$floor" "$floor_ih" "$floor_ns"
echo "floor: the same checks and copies written by hand for this one wrapper (floor.c):" \
	"$((floor - direct)) extra with t += h, $((floor_ih - direct_ih)) with t = i h"
echo "extra_instructions_per_step $((wrapped - direct))"
echo "extra_instructions_per_step_ih $((wrapped_ih - direct_ih))"

# The same pass-through built as FMI 3.0, through driver3.c: what the FMI 3.0 skin costs.
bench_run "$OUT/fmi3.log" "$SACC" build --fmi 3 -L "$BUILD/fmus" -o "$OUT/fmi3" \
	bench/wrapper/passthrough_sa.sa
"$SACC" unpack "$OUT/fmi3/passthrough_sa.fmu" "$OUT/fmi3/passthrough_sa"
WRAP3_DIR=$OUT/fmi3/passthrough_sa
WRAP3_TOKEN=$(sed -n 's/.*instantiationToken="\([^"]*\)".*/\1/p' \
	"$WRAP3_DIR/modelDescription.xml" | head -n 1)
wrap3_sum=$(driven checksum driver3 "$WRAP3_DIR" passthrough_sa "$WRAP3_TOKEN" 1000)
if [ "$direct_sum" != "$wrap3_sum" ]; then
	echo "bench-wrapper: the FMI 3.0 wrapper's outputs differ from the inner FMU's ($wrap3_sum, direct $direct_sum)" >&2
	exit 1
fi
DRIVER=driver3
wrapped3=$(per_cycle "$WRAP3_DIR" passthrough_sa "$WRAP3_TOKEN")
# over the window FMU called directly through driver.c (the importer's own loop is
# left out of both)
echo "extra_instructions_per_step_fmi3 $((wrapped3 - direct))"
