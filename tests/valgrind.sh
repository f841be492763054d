#!/bin/sh
# valgrind.sh — the memcheck suite: every unit-test binary, and `sacc check` on every
# adaptation, under valgrind.
#
#   SACC=build/sacc BUILD=build sh tests/valgrind.sh build/tests/test_a build/tests/test_b ...
#
# A run passes when valgrind reports nothing and the program's own verdict is acceptable:
# unit tests must pass (exit 0); `sacc check` may also exit 1, meaning it printed
# diagnostics.  Valgrind's findings exit with 99, which no program of ours uses.  Leaks in
# third-party libraries that sacc cannot fix are listed, with reasons, in valgrind.supp.
set -u

SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
HERE=$(dirname "$0")
VG_ERROR=99
LOG=$BUILD/valgrind
mkdir -p "$LOG"

passed=0
failed=0

# run NAME ACCEPTED_EXITS COMMAND...: runs COMMAND under valgrind, logging to $LOG/NAME.log.
run() {
	name=$1
	accepted=$2
	shift 2
	log=$LOG/$(printf '%s' "$name" | tr '/ ' '__').log
	SACC_BUILD=$BUILD valgrind --error-exitcode=$VG_ERROR --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--track-origins=yes -q --suppressions="$HERE/valgrind.supp" \
		"$@" >"$log" 2>&1
	rc=$?
	case " $accepted " in
	*" $rc "*)
		passed=$((passed + 1))
		echo "valgrind: ok   $name"
		;;
	*)
		failed=$((failed + 1))
		if [ "$rc" -eq $VG_ERROR ]; then
			why="valgrind found errors"
		else
			why="exit status $rc"
		fi
		echo "valgrind: FAIL $name ($why; log in $log)"
		# The first lines valgrind wrote are usually enough to see what went wrong.
		grep '^==[0-9]*==' "$log" | head -n 20
		;;
	esac
}

for t in "$@"; do
	run "$t" 0 "$t"
done

for sa in adaptations/*/*.sa; do
	[ -e "$sa" ] || continue
	if [ ! -x "$SACC" ]; then
		failed=$((failed + 1))
		echo "valgrind: FAIL $sa (no sacc at $SACC)"
		continue
	fi
	run "$SACC check $sa" "0 1" "$SACC" check -L "$BUILD/fmus" "$sa"
done

echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
