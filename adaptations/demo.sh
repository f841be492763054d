#!/bin/sh
# The main job, for now: check every adaptation script against its inner FMUs and show
# its explicit form (the In / MapIn / Ctrl / MapOut / Out rules the wrapper FMU will run).
# Called by `make demo` as: sh adaptations/demo.sh build/sacc build
set -u
SACC=$1
BUILD=$2
status=0
echo "sacc demo: the power-window case study's adaptations, checked and reduced."
echo "The inner FMUs are built from C in tests/fmus/; this is what sacc reads from one:"
echo
"$SACC" inspect "$BUILD/fmus/window.fmu" | sed 's/^/    /'
for dir in adaptations/*/; do
	for f in "$dir"*.sa; do
		[ -f "$f" ] || continue
		printf '\n==== %s ' "$f"
		if "$SACC" check -L "$BUILD/fmus" -I "$dir" "$f" 2> "$BUILD/demo.err"; then
			echo "checks cleanly; its explicit form:"
			echo
			"$SACC" explicit -L "$BUILD/fmus" -I "$dir" "$f" | sed 's/^/    /'
		else
			echo "does not check:"
			cat "$BUILD/demo.err"
			status=1
		fi
	done
done
echo
if [ "$status" = 0 ]; then
	echo "demo: every adaptation checks cleanly and reduces to its explicit form."
else
	echo "demo: some adaptations do not check (see above)."
fi
exit "$status"
