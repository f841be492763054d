#!/bin/sh
# run.sh — the wrapper benchmark (`make bench-wrapper`): what a pass-through wrapper costs
# on top of calling its inner FMU directly, per set/doStep/get cycle.
#
#   SACC=build/sacc BUILD=build sh bench/wrapper/run.sh
#
# Instructions come from valgrind's callgrind (repeatable whatever else the machine does):
# each FMU runs N1 and N2 cycles, and the difference divided by N2 - N1 is the cost of one
# cycle with start-up and shut-down cancelled out.  Time per cycle is measured without
# valgrind over TIME_STEPS cycles.
set -eu
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
N1=${N1:-2000}
N2=${N2:-12000}
TIME_STEPS=${TIME_STEPS:-2000000}
OUT=$BUILD/bench/wrapper
rm -rf "$OUT"
mkdir -p "$OUT"

command -v valgrind >/dev/null || { echo "bench-wrapper: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }

${CC:-cc} -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iruntime/fmi2 \
	-o "$OUT/driver" bench/wrapper/driver.c -ldl
${CC:-cc} -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iruntime/fmi3 \
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

# instructions DIR ID GUID N: total instructions of one run of $DRIVER (driver, or driver3
# for an FMI 3.0 FMU), from callgrind.
DRIVER=driver
instructions() {
	f=$OUT/callgrind.$DRIVER.$2.$4
	valgrind --tool=callgrind --callgrind-out-file="$f" "$OUT/$DRIVER" "$1" "$2" "$3" "$4" \
		>/dev/null 2>"$f.log" || { cat "$f.log" >&2; exit 1; }
	sed -n 's/^summary: *//p' "$f" | head -n 1
}

per_cycle() {
	a=$(instructions "$1" "$2" "$3" "$N1")
	b=$(instructions "$1" "$2" "$3" "$N2")
	echo $(( (b - a) / (N2 - N1) ))
}

# The two must compute the same thing: the wrapper only forwards.
direct_sum=$("$OUT/driver" "$WINDOW_DIR" window "$WINDOW_GUID" 1000 | sed -n 's/^checksum //p')
wrap_sum=$("$OUT/driver" "$WRAP_DIR" passthrough_sa "$WRAP_GUID" 1000 | sed -n 's/^checksum //p')
floor_sum=$("$OUT/driver" "$FLOOR_DIR" passthrough_sa "$WRAP_GUID" 1000 | sed -n 's/^checksum //p')
if [ "$direct_sum" != "$wrap_sum" ] || [ "$direct_sum" != "$floor_sum" ]; then
	echo "bench-wrapper: the outputs differ from the inner FMU's (wrapper $wrap_sum, floor $floor_sum, direct $direct_sum)" >&2
	exit 1
fi

direct=$(per_cycle "$WINDOW_DIR" window "$WINDOW_GUID")
wrapped=$(per_cycle "$WRAP_DIR" passthrough_sa "$WRAP_GUID")
floor=$(per_cycle "$FLOOR_DIR" passthrough_sa "$WRAP_GUID")
direct_ns=$("$OUT/driver" "$WINDOW_DIR" window "$WINDOW_GUID" "$TIME_STEPS" | sed -n 's/^ns_per_step //p')
wrapped_ns=$("$OUT/driver" "$WRAP_DIR" passthrough_sa "$WRAP_GUID" "$TIME_STEPS" | sed -n 's/^ns_per_step //p')
floor_ns=$("$OUT/driver" "$FLOOR_DIR" passthrough_sa "$WRAP_GUID" "$TIME_STEPS" | sed -n 's/^ns_per_step //p')

echo "wrapper overhead: one set(3 Reals) / doStep / get(2 Reals) cycle on the window FMU"
printf '%-28s %14s %12s\n' "" "instructions" "ns/cycle"
printf '%-28s %14s %12s\n' "window, called directly" "$direct" "$direct_ns"
printf '%-28s %14s %12s\n' "passthrough_sa(window)" "$wrapped" "$wrapped_ns"
printf '%-28s %14s %12s\n' "hand-written floor(window)" "$floor" "$floor_ns"
echo "floor: the same checks and copies written by hand for this one wrapper (floor.c): $((floor - direct)) extra"
echo "extra_instructions_per_step $((wrapped - direct))"

# The same pass-through built as FMI 3.0, through driver3.c: what the FMI 3.0 skin costs.
if "$SACC" build --fmi 3 -L "$BUILD/fmus" -o "$OUT/fmi3" bench/wrapper/passthrough_sa.sa \
	>"$OUT/fmi3.log" 2>&1; then
	"$SACC" unpack "$OUT/fmi3/passthrough_sa.fmu" "$OUT/fmi3/passthrough_sa"
	WRAP3_DIR=$OUT/fmi3/passthrough_sa
	WRAP3_TOKEN=$(sed -n 's/.*instantiationToken="\([^"]*\)".*/\1/p' \
		"$WRAP3_DIR/modelDescription.xml" | head -n 1)
	wrap3_sum=$("$OUT/driver3" "$WRAP3_DIR" passthrough_sa "$WRAP3_TOKEN" 1000 |
		sed -n 's/^checksum //p')
	if [ "$direct_sum" != "$wrap3_sum" ]; then
		echo "bench-wrapper: the FMI 3.0 wrapper's outputs differ from the inner FMU's ($wrap3_sum, direct $direct_sum)" >&2
		exit 1
	fi
	DRIVER=driver3
	wrapped3=$(per_cycle "$WRAP3_DIR" passthrough_sa "$WRAP3_TOKEN")
	echo "extra_instructions_per_step_fmi3 $((wrapped3 - direct))"
else
	echo "extra_instructions_per_step_fmi3: not measured, sacc build --fmi 3 failed:" >&2
	cat "$OUT/fmi3.log" >&2
fi
