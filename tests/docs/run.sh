#!/bin/sh
# tests/docs/run.sh — the documentation's examples and commands, run against the built sacc
# (`make check-docs`).  A document whose example does not run is a bug, so:
#
# 1. Every script under docs/examples/ says in its comments how it is run, as a transcript:
#
#        //   $ build/sacc explicit -L build/fmus docs/examples/language/ports.sa
#
#    runs that command from the repository root and wants exit status 0.  A command
#    followed by lines
#
#        //   > units 'cm' and 's' are not commensurable
#
#    must fail instead (exit status 1, a diagnostic) and its standard error must contain
#    each such text.  A script without any `$` line is an error: every example is run.
#
# 2. Every fenced block of docs/*.md whose info string is exactly `sh` is run: the blocks
#    of one document in order, as one `sh -e` script from the repository root, so a later
#    block sees what an earlier one made.  Blocks tagged `sh norun` are shown, not run
#    (make demo, make check, installation).
#
# 3. No document or example points outside the repository: relative links of docs/*.md
#    resolve, and docs/examples/ paths they name exist.
#
# `build/` in a command is the build directory: $BUILD when it is another one.
# Called by make as: SACC=build/sacc BUILD=build sh tests/docs/run.sh
set -u
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/docs-check
fail=0
ran=0

rm -rf "$OUT"
mkdir -p "$OUT" "$BUILD/docs"

# build/ at the start of a word becomes $BUILD/.
rebuild() {
	if [ "$BUILD" = build ]; then
		cat
	else
		sed "s#\(^\|[ =:]\)build/#\1$BUILD/#g"
	fi
}

bad() {
	echo "docs: $*" >&2
	fail=1
}

# run_command FILE LINE COMMAND EXPECT_FILE: runs one transcript command of an example.
run_command() {
	ran=$((ran + 1))
	cmd=$(printf '%s\n' "$3" | rebuild)
	sh -c "$cmd" < /dev/null > "$OUT/stdout" 2> "$OUT/stderr"
	rc=$?
	if [ -s "$4" ]; then
		if [ "$rc" -ne 1 ]; then
			bad "$1:$2: '$3' should fail with status 1, got $rc"
			cat "$OUT/stderr" >&2
			return
		fi
		while IFS= read -r want; do
			if ! grep -qF -- "$want" "$OUT/stderr"; then
				bad "$1:$2: '$3' did not say: $want"
				cat "$OUT/stderr" >&2
			fi
		done < "$4"
	elif [ "$rc" -ne 0 ]; then
		bad "$1:$2: '$3' failed with status $rc"
		cat "$OUT/stderr" >&2
	fi
}

# ---- 1. the example scripts ---------------------------------------------------------------
for f in $(find docs/examples -name '*.sa' | sort); do
	n=0
	cmd=
	cmd_line=0
	: > "$OUT/expect"
	lineno=0
	while IFS= read -r line; do
		lineno=$((lineno + 1))
		case $line in
		'//'*) ;;
		*) continue ;;
		esac
		rest=${line#//}
		rest=${rest#"${rest%%[! 	]*}"}
		case $rest in
		'$ '*)
			[ -n "$cmd" ] && run_command "$f" "$cmd_line" "$cmd" "$OUT/expect"
			cmd=${rest#\$ }
			cmd_line=$lineno
			n=$((n + 1))
			: > "$OUT/expect"
			;;
		'> '*)
			[ -n "$cmd" ] || bad "$f:$lineno: an expected message without a command before it"
			printf '%s\n' "${rest#> }" >> "$OUT/expect"
			;;
		esac
	done < "$f"
	[ -n "$cmd" ] && run_command "$f" "$cmd_line" "$cmd" "$OUT/expect"
	[ "$n" -gt 0 ] || bad "$f: no command says how to run it (a comment line '//   \$ build/sacc ...')"
done

# ---- 2. the sh blocks of the documents ----------------------------------------------------
for doc in docs/*.md; do
	script=$OUT/$(basename "$doc" .md).sh
	awk '
		/^```/ {
			if (inside) { inside = 0; next }
			info = substr($0, 4)
			sub(/[ \t]+$/, "", info)
			if (info == "sh") { inside = 1; printf "# %s:%d\n", FILENAME, NR }
			next
		}
		inside { print }
	' "$doc" | rebuild > "$script"
	[ -s "$script" ] || continue
	ran=$((ran + 1))
	if ! sh -e "$script" < /dev/null > "$OUT/stdout" 2> "$OUT/stderr"; then
		bad "$doc: a command of its sh blocks failed (the script is $script)"
		tail -n 20 "$OUT/stderr" >&2
	fi
done

# ---- 3. nothing points outside the repository ---------------------------------------------
for doc in docs/*.md; do
	# [text](target): relative targets must exist (anchors and URLs aside).
	for target in $(grep -o '](\([^)#]*\)[)#]' "$doc" | sed 's/^](//; s/[)#]$//' |
			grep -v '^[a-z]*:' | sort -u); do
		[ -e "docs/$target" ] || [ -e "$target" ] || bad "$doc: link to '$target', which does not exist"
	done
	for path in $(grep -o 'docs/examples/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$doc" | sort -u); do
		[ -e "$path" ] || bad "$doc: names $path, which does not exist"
	done
done
if grep -rlE '(LANGUAGE|MASTER|FMU|POWERWINDOW)\.md' docs; then
	bad "the files above cite documents that are not in the repository"
fi

if command -v groff > /dev/null 2>&1; then
	if groff -man -Tutf8 -ww -z docs/sacc.1 2>&1 | grep .; then
		bad "docs/sacc.1: groff warns (above)"
	fi
fi

if [ "$fail" = 0 ]; then
	echo "docs: $ran example commands and document scripts ran as documented"
fi
exit $fail
