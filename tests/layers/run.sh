#!/bin/sh
# tests/layers/run.sh — `make check-layers`: the compiler's stages include only the headers
# of the stages before them (front <- check <- rewrite <- emit <- package/ssp <- lsp and the
# command line), as ../shared STYLE says: a stage that needs a later one is handed a
# provider (compilation.h's CheckEnv), it does not include it.
#
# Every `#include "X.h"` of compiler/<stage>/*.[ch] is looked up among the stage folders;
# an include of a header that lives in a later stage's folder is reported as
# file:line: error: and the script exits 1.
set -u
cd "$(dirname "$0")/../.." || exit 2

rank() {
	case $1 in
	front) echo 1 ;; check) echo 2 ;; rewrite) echo 3 ;; emit) echo 4 ;;
	package | ssp) echo 5 ;; lsp) echo 6 ;; top) echo 7 ;; *) echo 0 ;;
	esac
}

# The stage whose folder holds header $1: a stage folder's name, "top" for compiler/'s own
# headers other than those every stage shares, "shared" otherwise (generated/, util.h,
# and cli.h, the option-table parser that `sacc ssp`'s subcommand table in ssp/ uses too:
# it includes nothing of the compiler).
stage_of() {
	for d in compiler/*/; do
		d=${d%/}
		[ -f "$d/$1" ] && { echo "${d#compiler/}"; return; }
	done
	case $1 in
	util.h | numfmt.h | version.h | cli.h) echo shared ;;
	*) [ -f "compiler/$1" ] && echo top || echo shared ;;
	esac
}

fail=0
checked=0
for f in compiler/*/*.c compiler/*/*.h; do
	stage=$(basename "$(dirname "$f")")
	[ "$stage" = tools ] && continue
	mine=$(rank "$stage")
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' > "${TMPDIR:-/tmp}/layers.$$"
	while read -r line hdr; do
		checked=$((checked + 1))
		other=$(stage_of "$hdr")
		theirs=$(rank "$other")
		if [ "$theirs" -gt "$mine" ]; then
			echo "$f:$line: error: stage '$stage' includes '$hdr' of the later stage '$other'"
			fail=1
		fi
	done < "${TMPDIR:-/tmp}/layers.$$"
done
rm -f "${TMPDIR:-/tmp}/layers.$$"
[ "$fail" = 0 ] && echo "check-layers: $checked includes, none of a later stage's header"
exit $fail
