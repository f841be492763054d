# bench/bench.sh — what the benchmark scripts share, sourced after setting BENCH to the
# benchmark's make target:
#
#   BENCH=bench-wrapper
#   . bench/bench.sh
#
# A benchmark that cannot compute one of its figures (a run failed, a column or a tool is
# missing, a value is empty or not a number) says which and why and exits non-zero, so
# that `make check-bench` fails on it: a table with "failed" or "nan" in it and status 0
# would pass unnoticed.  BENCH_QUICK=1 asks for the quick mode: each script chooses few
# repetitions and small sizes, but still computes and prints every figure.

# bench_fail MESSAGE...: the benchmark cannot go on.  Inside $(...) it ends only the
# subshell; the assignment's status then ends the script under set -e.
bench_fail() {
	echo "$BENCH: $*" >&2
	exit 1
}

# bench_quick: whether BENCH_QUICK asks for the quick mode (set, and neither empty nor 0).
bench_quick() {
	[ "${BENCH_QUICK:-0}" != 0 ]
}

# bench_need TOOL...: fails, naming the Debian package, unless every TOOL is on the PATH
# (valgrind's callgrind_annotate comes with valgrind).
bench_need() {
	for bench_t in "$@"; do
		command -v "$bench_t" >/dev/null 2>&1 ||
			bench_fail "$bench_t is needed and not installed (apt-get install ${BENCH_PACKAGE:-$bench_t})"
	done
}

# bench_number WHAT VALUE...: fails unless each VALUE is a finite decimal number (an
# integer, or a float as printf writes it); WHAT names the figure in the message.
bench_number() {
	bench_what=$1
	shift
	[ $# -gt 0 ] || bench_fail "$bench_what: no value"
	for bench_v in "$@"; do
		case $bench_v in
		'' | *[!0-9.eE+-]* | *[eE]*[eE]* | [eE]* | *[!0-9])
			bench_fail "$bench_what: '$bench_v' is not a number" ;;
		esac
	done
}

# bench_run LOG COMMAND...: runs COMMAND with its standard error in LOG; on failure shows
# the log's end and fails naming the command.
bench_run() {
	bench_log=$1
	shift
	"$@" 2>"$bench_log" || {
		tail -n 20 "$bench_log" >&2
		bench_fail "this did not run: $* (log: $bench_log)"
	}
}

# bench_output FIELD LOG COMMAND...: runs COMMAND, its standard error in LOG, and prints
# what follows "FIELD " on the first such line of its output (the drivers print
# "checksum ...", "ns_per_step ..."); fails when the command fails, prints no such line,
# or the value is not one or more numbers.  Call it as x=$(bench_output ...) || exit 1.
bench_output() {
	bench_field=$1
	bench_log=$2
	shift 2
	bench_out=$("$@" 2>"$bench_log") || {
		tail -n 20 "$bench_log" >&2
		bench_fail "this did not run: $* (log: $bench_log)"
	}
	bench_value=$(printf '%s\n' "$bench_out" | sed -n "s/^$bench_field //p" | head -n 1)
	# shellcheck disable=SC2086  # a field may hold several numbers
	bench_number "$bench_field of $*" $bench_value
	printf '%s\n' "$bench_value"
}

# bench_ratio WHAT FORMAT A B: prints A / B with the printf FORMAT; fails unless A and B
# are numbers and B is positive (a run too short for the clock's resolution has a wall
# time of 0).
bench_ratio() {
	bench_number "$1" "$3" "$4"
	awk -v a="$3" -v b="$4" -v f="$2" 'BEGIN { if (!(b > 0)) exit 1; printf f, a / b }' ||
		bench_fail "$1: $3 / $4 has no value"
}
