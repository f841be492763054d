#!/bin/sh
# valgrind.sh — the memcheck suite: every unit-test binary, and `sacc check` on every
# adaptation, under valgrind.
#
#   JOBS=2 SACC=build/sacc BUILD=build sh tests/valgrind.sh build/tests/test_a build/tests/test_b ...
#
# Runs JOBS (default 2) at a time; each run's log is in $BUILD/valgrind/, and the verdicts
# are printed once all have ended.
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

# memcheck [VALGRIND_OPTION...] -- COMMAND...: COMMAND under valgrind's memcheck, the
# suite's options and suppressions.
memcheck() {
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # opts holds whole options, none with spaces
	SACC_BUILD=$BUILD valgrind --error-exitcode=$VG_ERROR --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		-q --suppressions="$HERE/valgrind.supp" $opts "$@"
}

# run NAME ACCEPTED_EXITS COMMAND...: runs COMMAND under valgrind, logging to $LOG/NAME.log.
# The first run goes without --track-origins, which slows valgrind down a lot and finds
# nothing more; only a run that fails is repeated with it, so that its log says where each
# uninitialised value came from.
run() {
	name=$1
	accepted=$2
	shift 2
	log=$LOG/$(printf '%s' "$name" | tr '/ ' '__').log
	t0=$(date +%s)
	memcheck -- "$@" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	case " $accepted " in
	*" $rc "*)
		passed=$((passed + 1))
		echo "valgrind: ok   $name (${secs} s)"
		;;
	*)
		failed=$((failed + 1))
		if [ "$rc" -eq $VG_ERROR ]; then
			why="valgrind found errors"
			memcheck --track-origins=yes -- "$@" >"$log" 2>&1
		else
			why="exit status $rc"
		fi
		echo "valgrind: FAIL $name ($why; log in $log)"
		# The first lines valgrind wrote are usually enough to see what went wrong.
		grep '^==[0-9]*==' "$log" | head -n 20
		;;
	esac
}

# One item, run by the parallel loop below: a unit-test binary, or check:FILE for `sacc
# check FILE`.  Prints its verdict line and exits 0 when it passed.
if [ "${1:-}" = --one ]; then
	case $2 in
	check:*)
		sa=${2#check:}
		if [ ! -x "$SACC" ]; then
			echo "valgrind: FAIL $sa (no sacc at $SACC)"
			exit 1
		fi
		run "$SACC check $sa" "0 1" "$SACC" check -L "$BUILD/fmus" "$sa"
		;;
	*) run "$2" 0 "$2" ;;
	esac
	[ "$failed" -eq 0 ]
	exit
fi

# Every item, JOBS at a time (the test binaries in the order given: the slowest first).
{
	for t in "$@"; do
		printf '%s\n' "$t"
	done
	for sa in adaptations/*/*.sa; do
		[ -e "$sa" ] && printf 'check:%s\n' "$sa"
	done
} | xargs -P "${JOBS:-2}" -n 1 sh "$0" --one >"$LOG/verdicts.txt"
cat "$LOG/verdicts.txt"
passed=$(grep -c '^valgrind: ok' "$LOG/verdicts.txt")
failed=$(grep -c '^valgrind: FAIL' "$LOG/verdicts.txt")
echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
