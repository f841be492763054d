#!/bin/sh
# Golden tests: the exact output of sacc for files whose right output is committed.
#
#   tests/golden/parse/X.sa     `sacc parse X.sa` must print X.out (and parsing that
#                               output again must print it unchanged)
#   tests/golden/diag/X.sa      `sacc check X.sa` must fail with exactly X.err on stderr
#                               (modules they import live in tests/golden/diag/lib/)
#   tests/golden/explicit-diag/X.sa
#                               `sacc explicit X.sa` must fail with exactly X.err on
#                               stderr: the errors of the reduction rules
#   tests/golden/lowered/X.sa   `sacc explicit --after Lower X.sa` must print X.lowered:
#                               the declarative forms lowered, before the explicit-form
#                               rules (modules they import live in tests/golden/diag/lib/)
#   adaptations/D/X.sa          `sacc explicit X.sa` must print
#                               tests/golden/explicit/D/X.explicit, and the explicit form
#                               of that output must be the same text
#   adaptations/D/X.sa          `sacc emit X.sa -o DIR` must write exactly
#                               generated/D/X/{modelDescription.xml,config.h,X.c}, and
#                               X.c must compile with -std=c99 -Wall -Wextra -Wpedantic
#                               -Werror against runtime/sart_wrapper.h
#
# Run from the repository root with SACC and BUILD set (the Makefile does).  UPDATE=1
# rewrites the golden files from the current output instead of comparing.
set -u
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
UPDATE=${UPDATE:-0}
OUT=$BUILD/golden
rm -rf "$OUT" && mkdir -p "$OUT"
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "golden: FAIL $1"; [ -f "$2" ] && [ -f "$3" ] && diff -u "$2" "$3" | head -40; }

# compare NAME EXPECTED ACTUAL
compare() {
	if [ "$UPDATE" = 1 ]; then
		mkdir -p "$(dirname "$2")"
		cp "$3" "$2"
		ok
	elif [ -f "$2" ] && cmp -s "$2" "$3"; then
		ok
	else
		bad "$1" "$2" "$3"
	fi
}

for f in tests/golden/parse/*.sa; do
	[ -f "$f" ] || continue
	base=${f%.sa}
	name=$(basename "$base")
	"$SACC" parse "$f" > "$OUT/$name.out" 2> "$OUT/$name.perr"
	compare "parse $f" "$base.out" "$OUT/$name.out"
	# The printed form reads back as itself.
	cp "$OUT/$name.out" "$OUT/$name.round.sa"
	"$SACC" parse "$OUT/$name.round.sa" > "$OUT/$name.round.out" 2>/dev/null
	if cmp -s "$OUT/$name.out" "$OUT/$name.round.out"; then ok; else bad "round trip $f" "$OUT/$name.out" "$OUT/$name.round.out"; fi
done

for f in tests/golden/diag/*.sa; do
	[ -f "$f" ] || continue
	base=${f%.sa}
	name=$(basename "$base")
	"$SACC" check -L "$BUILD/fmus" -I tests/golden/diag/lib "$f" > /dev/null 2> "$OUT/$name.err"
	rc=$?
	# Notes name the -L directory searched: the same text from every build directory.
	[ "$BUILD" = build ] || sed -i "s#'$BUILD/fmus'#'build/fmus'#g" "$OUT/$name.err"
	if [ "$rc" != 1 ]; then
		bad "diag $f exited $rc, not 1" /dev/null /dev/null
		continue
	fi
	compare "diag $f" "$base.err" "$OUT/$name.err"
done

for f in tests/golden/explicit-diag/*.sa; do
	[ -f "$f" ] || continue
	base=${f%.sa}
	name=explicit-$(basename "$base")
	"$SACC" explicit -L "$BUILD/fmus" "$f" > /dev/null 2> "$OUT/$name.err"
	rc=$?
	if [ "$rc" != 1 ]; then
		bad "explicit-diag $f exited $rc, not 1" /dev/null /dev/null
		continue
	fi
	compare "explicit-diag $f" "$base.err" "$OUT/$name.err"
done

for f in tests/golden/lowered/*.sa; do
	[ -f "$f" ] || continue
	base=${f%.sa}
	name=lowered-$(basename "$base")
	"$SACC" explicit --after Lower -L "$BUILD/fmus" -I tests/golden/diag/lib "$f" > "$OUT/$name.out" 2> "$OUT/$name.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		bad "lowered $f exited $rc" /dev/null /dev/null
		cat "$OUT/$name.err"
		continue
	fi
	compare "lowered $f" "$base.lowered" "$OUT/$name.out"
done

# The declarative power-window scripts import the hand-written ones they do not replace
# (powerwindow-declarative/loop_sa wraps powerwindow/window_sa): -I adaptations/powerwindow.
for f in adaptations/*/*.sa; do
	[ -f "$f" ] || continue
	dir=$(basename "$(dirname "$f")")
	name=$(basename "${f%.sa}")
	mkdir -p "$OUT/explicit/$dir" "$OUT/again/$dir"
	exp="tests/golden/explicit/$dir/$name.explicit"
	got="$OUT/explicit/$dir/$name.sa"
	if ! "$SACC" explicit -L "$BUILD/fmus" -I "$(dirname "$f")" -I adaptations/powerwindow "$f" > "$got" 2> "$OUT/explicit/$dir/$name.err"; then
		bad "explicit $f: sacc failed" /dev/null /dev/null
		cat "$OUT/explicit/$dir/$name.err"
		continue
	fi
	compare "explicit $f" "$exp" "$got"
done
# Idempotence, once every explicit form exists (they import each other).
for got in "$OUT"/explicit/*/*.sa; do
	[ -f "$got" ] || continue
	dir=$(basename "$(dirname "$got")")
	name=$(basename "${got%.sa}")
	again="$OUT/again/$dir/$name.sa"
	"$SACC" explicit -L "$BUILD/fmus" -I "$OUT/explicit/$dir" -I "$OUT/explicit/powerwindow" "$got" > "$again" 2>&1
	if cmp -s "$got" "$again"; then ok; else bad "explicit form of the explicit form of $dir/$name" "$got" "$again"; fi
done

# The wrapper FMUs' model descriptions (generated/ holds what sacc emits for adaptations/).
for f in adaptations/*/*.sa; do
	[ -f "$f" ] || continue
	dir=$(basename "$(dirname "$f")")
	name=$(basename "${f%.sa}")
	mkdir -p "$OUT/emit/$dir"
	if ! "$SACC" emit -L "$BUILD/fmus" -I "$(dirname "$f")" -I adaptations/powerwindow "$f" -o "$OUT/emit/$dir" 2> "$OUT/emit/$dir/$name.err"; then
		bad "emit $f: sacc failed" /dev/null /dev/null
		cat "$OUT/emit/$dir/$name.err"
		continue
	fi
	for file in modelDescription.xml config.h "$name.c"; do
		compare "emit $f: $file" "generated/$dir/$name/$file" "$OUT/emit/$dir/$name/$file"
	done
	# The emitted C compiles warning-free against the runtime's header.
	if ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -Iruntime -Iruntime/fmi2 \
		-I"$OUT/emit/$dir/$name" "$OUT/emit/$dir/$name/$name.c" 2> "$OUT/emit/$dir/$name.cc.err"; then
		ok
	else
		bad "emit $f: $name.c does not compile" /dev/null /dev/null
		cat "$OUT/emit/$dir/$name.cc.err"
	fi
done

echo "golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
