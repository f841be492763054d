#!/bin/sh
# The main job, for now: check every adaptation script against its inner FMUs, show its
# explicit form (the In / MapIn / Ctrl / MapOut / Out rules the wrapper FMU runs), and show
# the wrapper FMUs `make` built from them (nested: loop_sa carries window_sa inside).
# Running the scenario comes with `sacc simulate`.
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
echo "==== the wrapper FMUs, built by: $SACC build -L $BUILD/fmus -I adaptations/powerwindow -o $BUILD/powerwindow adaptations/powerwindow/*.sa"
ls -l "$BUILD"/powerwindow/*.fmu | sed 's/^/    /'
echo
echo "what loop_sa.fmu holds (window_sa.fmu nested in its resources/):"
rm -rf "$BUILD/demo/loop_sa"
mkdir -p "$BUILD/demo"
if "$SACC" unpack "$BUILD/powerwindow/loop_sa.fmu" "$BUILD/demo/loop_sa"; then
	(cd "$BUILD/demo/loop_sa" && find . -type f ! -path './sources/*' ! -path '*/sources/*' | sort | sed 's/^/    /')
else
	status=1
fi
echo
echo "and how any importer sees it:"
"$SACC" inspect "$BUILD/powerwindow/loop_sa.fmu" | sed 's/^/    /' || status=1
echo
if [ "$status" = 0 ]; then
	echo "demo: every adaptation checks cleanly, reduces to its explicit form and builds into an FMU."
else
	echo "demo: some adaptations do not check (see above)."
fi
exit "$status"
