#!/bin/sh
# tests/wine/run.sh — win64 wrappers under Wine, beside the same wrappers on Linux.
#
#   sh tests/wine/run.sh        (make check-wine; BUILD names the build directory)
#
# Cross-builds two test FMUs for win64 as well (the integrator, FMI 2.0; noevent3, FMI 3.0),
# builds tests/wine/wine_sa.sa over them with `sacc build --platform linux64,win64` as FMI
# 2.0 and as FMI 3.0 wrappers, and steps the bare FMUs and the wrappers with the suite's
# strict importers (wine_import.c) built for Linux and, with mingw-w64, for Windows: the
# Windows run, under Wine, must print the Linux run's numbers bit for bit (the integrator's
# arithmetic is exact; noevent3's exp() comes from two C libraries, and they agree on these
# inputs — a difference would show here first).  The wrappers must also give what their
# bare inners give (wine_int's y is 2 x).  The same wrappers with their inners isolated
# (`--isolate all`, FMI 2.0 and 3.0) run them in sacc-fmu-host on Linux and in
# sacc-fmu-host.exe on Windows, with the same numbers as the wrappers in process; a win64
# wrapper over the fault-injection FMU (wine_crash.sa) crashes its host, and the importer
# must get an error naming the access violation, and no host may be left; one that hangs
# (wine_hang) must end with its importer when that is killed.  One Wine run for everything, in a private
# WINEPREFIX under the build directory, made afresh and shut down (wineserver -k) on every
# way out, so that nothing is left running.  The platform choice's errors and notes are
# checked too.  Without mingw-w64 or Wine it says which Debian packages it needs and skips.
set -eu
BUILD=${BUILD:-${SACC_BUILD:-build}}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/wine
MINGW=x86_64-w64-mingw32-gcc
WINE=${WINE:-$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)}
WINESERVER=${WINESERVER:-$(command -v wineserver || echo /usr/lib/wine/wineserver)}

if ! command -v $MINGW >/dev/null 2>&1 || ! [ -x "$WINE" ]; then
	echo "check-wine: SKIP: needs mingw-w64 and Wine (Debian packages gcc-mingw-w64-x86-64 wine64)"
	exit 0
fi

fail() {
	echo "check-wine: FAIL: $*" >&2
	exit 1
}

rm -rf "$OUT"
mkdir -p "$OUT/fmus" "$OUT/bare"
PREFIX="$(cd "$OUT" && pwd)/prefix"
export WINEPREFIX="$PREFIX" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# On every way out, this prefix's wineserver (and so its processes) is shut down.
trap 'WINEPREFIX="$PREFIX" "$WINESERVER" -k 2>/dev/null || true' EXIT INT TERM

# The test FMUs with a Windows library beside the Linux one, packed as the build packs them.
W_CFLAGS="-std=c99 -O2 -shared -D__USE_MINGW_ANSI_STDIO=1 -Wall -Wextra -Wpedantic -Werror"
W_LDFLAGS="-static -Wl,--no-insert-timestamp -lm -lpthread"
cp -r "$BUILD/fmus/integrator" "$OUT/bare/integrator"
mkdir -p "$OUT/bare/integrator/binaries/win64"
# shellcheck disable=SC2086
$MINGW $W_CFLAGS -Itests/fmus/kit -Iruntime/fmi2 -Itests/fmus/integrator \
	-o "$OUT/bare/integrator/binaries/win64/integrator.dll" \
	tests/fmus/integrator/model.c tests/fmus/kit/fmu_kit.c $W_LDFLAGS
cp -r "$BUILD/fmus3/noevent3" "$OUT/bare/noevent3"
mkdir -p "$OUT/bare/noevent3/binaries/x86_64-windows"
# shellcheck disable=SC2086
$MINGW $W_CFLAGS -Itests/fmus3/kit -Iruntime/fmi3 -Itests/fmus3/noevent3 \
	-o "$OUT/bare/noevent3/binaries/x86_64-windows/noevent3.dll" \
	tests/fmus3/noevent3/model.c tests/fmus3/kit/fmu3_kit.c $W_LDFLAGS
"$BUILD/tools/fmu_pack" "$OUT/fmus/integrator.fmu" "$OUT/bare/integrator"
"$BUILD/tools/fmu_pack" "$OUT/fmus/noevent3.fmu" "$OUT/bare/noevent3"

# The wrappers: both platforms by default (every inner ships both), FMI 2.0 and 3.0.
"$SACC" build -L "$OUT/fmus" -o "$OUT/fmi2" tests/wine/wine_sa.sa
"$SACC" build -L "$OUT/fmus" --fmi 3 --platform x86_64-linux,x86_64-windows -o "$OUT/fmi3" \
	tests/wine/wine_sa.sa
# The same wrappers with their inners out of process, on both platforms: the win64 wrapper
# ships the host built for Windows beside its DLL.
"$SACC" build -L "$OUT/fmus" --isolate all -o "$OUT/iso" tests/wine/wine_sa.sa 2>"$OUT/err.txt" ||
	fail "the isolated build failed: $(cat "$OUT/err.txt")"
[ ! -s "$OUT/err.txt" ] || fail "the isolated build said: $(cat "$OUT/err.txt")"
"$SACC" build -L "$OUT/fmus" --fmi 3 --isolate all --platform x86_64-linux,x86_64-windows \
	-o "$OUT/iso3" tests/wine/wine_sa.sa || fail "the isolated FMI 3.0 build failed"
for f in fmi2/wine_int fmi2/wine_decay fmi3/wine_int fmi3/wine_decay iso/wine_int iso/wine_decay \
	iso3/wine_int iso3/wine_decay; do
	mkdir -p "$OUT/$f"
	(cd "$OUT/$f" && unzip -q "../$(basename "$f").fmu")
done
for exe in iso/wine_int/binaries/win64/sacc-fmu-host.exe \
	iso3/wine_decay/binaries/x86_64-windows/sacc-fmu-host.exe \
	iso/wine_decay/binaries/linux64/sacc-fmu-host; do
	[ -f "$OUT/$exe" ] || fail "the isolated wrapper has no $exe"
done
# Without the host built for Windows, an isolated win64 wrapper is an error naming it.
SACC_FMU_HOST_EXE=/nonexistent/sacc-fmu-host.exe "$SACC" build -L "$OUT/fmus" --isolate all \
	--platform win64 -o "$OUT/nohost" tests/wine/wine_sa.sa 2>"$OUT/err.txt" &&
	fail "an isolated win64 build without the Windows host succeeded"
grep -q "cannot be built for win64: its isolated inners run in the host built for Windows, sacc-fmu-host.exe, which is not beside sacc" \
	"$OUT/err.txt" || fail "unexpected error without the Windows host: $(cat "$OUT/err.txt")"
for lib in fmi2/wine_int/binaries/linux64/wine_int.so fmi2/wine_int/binaries/win64/wine_int.dll \
	fmi3/wine_decay/binaries/x86_64-linux/wine_decay.so \
	fmi3/wine_decay/binaries/x86_64-windows/wine_decay.dll; do
	[ -f "$OUT/$lib" ] || fail "the archive has no $lib"
done
# The DLL needs nothing Windows does not have (winpthreads and libgcc are linked in).
deps=$(x86_64-w64-mingw32-objdump -p "$OUT/fmi2/wine_int/binaries/win64/wine_int.dll" |
	awk '/DLL Name/ { print $3 }' | sort | tr '\n' ' ')
[ "$deps" = "KERNEL32.dll msvcrt.dll " ] || fail "wine_int.dll imports $deps"

# The platform choice: over a Linux-only inner, --platform win64 is an error naming it, and
# the default builds linux64 alone without a word.
if "$SACC" build -L "$BUILD/fmus" -L "$OUT/fmus" --platform win64 -o "$OUT/linux-only" \
	tests/e2e/lower_hold_zoh.sa 2>"$OUT/err.txt"; then
	fail "--platform win64 over a Linux-only inner succeeded"
fi
grep -q "cannot be built for win64: inner fmu 'integ' has no binaries/win64/integrator.dll" \
	"$OUT/err.txt" || fail "unexpected error: $(cat "$OUT/err.txt")"
"$SACC" build -L "$BUILD/fmus" -o "$OUT/linux-only" tests/e2e/lower_hold_zoh.sa 2>"$OUT/err.txt"
[ ! -s "$OUT/err.txt" ] || fail "the default build said: $(cat "$OUT/err.txt")"
unzip -l "$OUT/linux-only/lower_hold_zoh.fmu" | grep -q 'binaries/win64' &&
	fail "a wrapper over a Linux-only inner carries binaries/win64"
"$SACC" build -L "$OUT/fmus" --platform linux64,macos -o "$OUT/bad" tests/wine/wine_sa.sa \
	2>"$OUT/err.txt" && fail "--platform macos was accepted"
grep -q "'macos' is not a platform sacc builds for" "$OUT/err.txt" ||
	fail "unexpected error: $(cat "$OUT/err.txt")"

# Without the cross compiler (a PATH that lacks it), --platform win64 names its package.
if PATH=/nonexistent "$SACC" build -L "$OUT/fmus" --platform win64 -o "$OUT/nocc" \
	tests/wine/wine_sa.sa 2>"$OUT/err.txt"; then
	fail "--platform win64 without mingw-w64 succeeded"
fi
grep -q "its cross compiler x86_64-w64-mingw32-gcc is not installed (Debian package gcc-mingw-w64-x86-64)" \
	"$OUT/err.txt" || fail "unexpected error without mingw-w64: $(cat "$OUT/err.txt")"

# By default, the same build leaves win64 out with a note naming the package (a PATH with
# the Linux compiler and binutils only).
mkdir -p "$OUT/path"
for t in cc as ld; do ln -s "$(command -v $t)" "$OUT/path/$t"; done
PATH="$(cd "$OUT/path" && pwd)" "$SACC" build -L "$OUT/fmus" -o "$OUT/nocc" \
	tests/wine/wine_sa.sa 2>"$OUT/err.txt" || fail "the build without mingw-w64 failed: $(cat "$OUT/err.txt")"
grep -q "is built without win64: its cross compiler x86_64-w64-mingw32-gcc is not installed (Debian package gcc-mingw-w64-x86-64)" \
	"$OUT/err.txt" || fail "no note on win64 left out: $(cat "$OUT/err.txt")"
unzip -l "$OUT/nocc/wine_int.fmu" | grep -q "binaries/win64/wine_int.dll" &&
	fail "a build without mingw-w64 has a win64 library"

# FMUs that ship a Windows library only: sacc simulate runs each instance in the host built
# for Windows under Wine (an FMI 2.0 and an FMI 3.0 FMU, three hosts at once), and must give
# what the Linux builds of the same FMUs give in process, bit for bit.  Every sacc run shares
# the one prefix of this test (SACC_WINEPREFIX), as the importers' run below does.
# (given to each command, not exported: the check for Wine processes left running below
# looks for the prefix in every process's environment)
sacc_wine() { env SACC_WINEPREFIX="$PREFIX" "$SACC" "$@"; }
mkdir -p "$OUT/winonly/integrator/binaries" "$OUT/winonly/noevent3/binaries" "$OUT/winfmus"
cp -r "$OUT/bare/integrator/binaries/win64" "$OUT/winonly/integrator/binaries/"
cp "$OUT/bare/integrator/modelDescription.xml" "$OUT/winonly/integrator/"
cp -r "$OUT/bare/noevent3/binaries/x86_64-windows" "$OUT/winonly/noevent3/binaries/"
cp "$OUT/bare/noevent3/modelDescription.xml" "$OUT/winonly/noevent3/"
"$BUILD/tools/fmu_pack" "$OUT/winfmus/integrator.fmu" "$OUT/winonly/integrator"
"$BUILD/tools/fmu_pack" "$OUT/winfmus/noevent3.fmu" "$OUT/winonly/noevent3"
sacc_wine simulate -L "$OUT/winfmus" tests/wine/wine_pair.sa --explain >"$OUT/explain.txt" ||
	fail "--explain over Windows-only FMUs failed"
grep -q "its Windows library (it has no Linux one), in a process of its own each under Wine: d$" \
	"$OUT/explain.txt" && grep -q "under Wine: i1, i2$" "$OUT/explain.txt" ||
	fail "--explain does not say the FMUs run under Wine: $(cat "$OUT/explain.txt")"
SIM="--stop 2 --step 0.05 --set d.x0=3"
SIM_WRAP="--stop 2 --step 0.05 --set wine_int.u=1.5"
# shellcheck disable=SC2086
sacc_wine simulate -L "$BUILD/fmus" -L "$BUILD/fmus3" tests/wine/wine_pair.sa $SIM \
	-o "$OUT/pair-linux.csv" 2>"$OUT/err.txt" || fail "the Linux run failed: $(cat "$OUT/err.txt")"
# Two such runs at once, in the one prefix (the first of them makes it: the other waits):
# six hosts, and when both are over, nothing of Wine is left.
# (in a subshell without WINEPREFIX, so that the commands looking do not find themselves)
hosts() {
	(
		unset WINEPREFIX
		grep -l -s -F -x -z "WINEPREFIX=$PREFIX" /proc/[0-9]*/environ |
			grep -v -e '^/proc/self/' -e '^/proc/thread-self/' || true
	)
}
start=$(date +%s)
# shellcheck disable=SC2086
sacc_wine simulate -L "$OUT/winfmus" tests/wine/wine_pair.sa $SIM -o "$OUT/pair-wine2.csv" \
	2>"$OUT/err2.txt" &
other=$!
# shellcheck disable=SC2086
sacc_wine simulate -L "$OUT/winfmus" tests/wine/wine_pair.sa $SIM -o "$OUT/pair-wine.csv" \
	2>"$OUT/err.txt" || fail "the run under Wine failed: $(cat "$OUT/err.txt")"
wait $other || fail "the second run under Wine failed: $(cat "$OUT/err2.txt")"
wine_s=$(($(date +%s) - start))
[ -z "$(hosts)" ] || fail "Wine processes left after two runs: $(hosts | tr '\n' ' ')"
for f in pair-wine pair-wine2; do
	cmp -s "$OUT/pair-linux.csv" "$OUT/$f.csv" ||
		fail "win64 under Wine and linux64 differ: $(diff "$OUT/pair-linux.csv" "$OUT/$f.csv" | head -5)"
done
# the numbers are the FMUs' own: x = 3 exp(-2 t) drives i1 (x' = u), i1 drives i2
awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
	{ n++; last = $0; t = $1; d = $col["d.x"]; i1 = $col["i1.x"] }
	END { if (n != 41 || t != 2 || d < 0.0549 || d > 0.0550 || i1 < 1.4 || i1 > 1.5) {
		print "unexpected: " n " rows, last " last; exit 1 } }' "$OUT/pair-wine.csv" ||
	fail "the run under Wine gave unexpected numbers"
# the state probe of sacc inspect runs such an FMU under Wine too
sacc_wine inspect --probe-state "$OUT/winfmus/integrator.fmu" >"$OUT/probe.txt" 2>&1 ||
	fail "the state probe under Wine failed: $(cat "$OUT/probe.txt")"
grep -q "^integrator: state restore works" "$OUT/probe.txt" ||
	fail "unexpected state probe under Wine: $(cat "$OUT/probe.txt")"
# --wine forces the Windows library of an FMU that has both
# shellcheck disable=SC2086
sacc_wine simulate -L "$OUT/fmus" tests/wine/wine_pair.sa $SIM --wine d,i2 -o "$OUT/forced.csv" \
	--explain >"$OUT/explain.txt" || fail "--wine --explain failed"
grep -q "its Windows library, in a process of its own each under Wine (--wine): i2$" \
	"$OUT/explain.txt" && grep -q "one library in this process for: i1$" "$OUT/explain.txt" ||
	fail "--explain does not say what --wine chose: $(cat "$OUT/explain.txt")"
# shellcheck disable=SC2086
sacc_wine simulate -L "$OUT/fmus" tests/wine/wine_pair.sa $SIM --wine d,i2 -o "$OUT/forced.csv" \
	2>"$OUT/err.txt" || fail "the run with --wine failed: $(cat "$OUT/err.txt")"
cmp -s "$OUT/pair-linux.csv" "$OUT/forced.csv" || fail "--wine d,i2 differs from the Linux run"
# A Linux wrapper over inners with Windows libraries only: sacc build ships the host built
# for Windows beside the wrapper's library, with a note, and the wrapper runs its inners
# under Wine; stepped by sacc simulate, it gives what the same wrapper over the Linux
# builds of the inners gives in process, bit for bit.
sacc_wine build -L "$OUT/winfmus" -o "$OUT/winwrap" tests/wine/wine_sa.sa 2>"$OUT/err.txt" ||
	fail "the wrapper over Windows-only inners failed to build: $(cat "$OUT/err.txt")"
grep -q "note: inner fmu 'integ' ships a library for 64-bit Windows only: the linux64 wrapper runs it out of process, under Wine (binaries/linux64/sacc-fmu-host.exe)" \
	"$OUT/err.txt" || fail "no note on the inner run under Wine: $(cat "$OUT/err.txt")"
unzip -l "$OUT/winwrap/wine_int.fmu" | grep -q " binaries/linux64/sacc-fmu-host.exe$" ||
	fail "the wrapper does not ship the host built for Windows"
# shellcheck disable=SC2086
sacc_wine simulate "$OUT/winwrap/wine_int.fmu" $SIM_WRAP -o "$OUT/wrap-wine.csv" \
	2>"$OUT/err.txt" || fail "the wrapper over a Windows-only inner failed: $(cat "$OUT/err.txt")"
# shellcheck disable=SC2086
"$SACC" simulate "$OUT/fmi2/wine_int.fmu" $SIM_WRAP -o "$OUT/wrap-linux.csv" 2>"$OUT/err.txt" ||
	fail "the wrapper over a Linux inner failed: $(cat "$OUT/err.txt")"
cmp -s "$OUT/wrap-linux.csv" "$OUT/wrap-wine.csv" ||
	fail "the wrapper's inner under Wine and in process differ: $(diff "$OUT/wrap-linux.csv" "$OUT/wrap-wine.csv" | head -5)"
awk -F, 'END { if ($1 != 2 || $2 < 6 - 1e-12 || $2 > 6 + 1e-12) exit 1 }' "$OUT/wrap-wine.csv" ||
	fail "the wrapper's y at t = 2 is not 2 x = 2 (1.5 t) = 6: $(tail -n 1 "$OUT/wrap-wine.csv")"

# the errors: an instance --wine names that has no Windows library, Wine missing
sacc_wine simulate -L "$BUILD/fmus" -L "$BUILD/fmus3" tests/wine/wine_pair.sa --wine i1 \
	-o "$OUT/x.csv" 2>"$OUT/err.txt" && fail "--wine over Linux-only FMUs succeeded"
grep -q "sacc simulate: --wine: none of these FMUs has a Windows library" "$OUT/err.txt" ||
	fail "unexpected error for --wine without a Windows library: $(cat "$OUT/err.txt")"
SACC_WINE=/nonexistent/wine64 "$SACC" simulate -L "$OUT/winfmus" tests/wine/wine_pair.sa \
	-o "$OUT/x.csv" 2>"$OUT/err.txt" && fail "a run without Wine succeeded"
grep -q "sacc simulate: instance 'd' runs its FMU's Windows library under Wine: cannot run Wine's loader /nonexistent/wine64 (from SACC_WINE)" \
	"$OUT/err.txt" || fail "unexpected error without Wine: $(cat "$OUT/err.txt")"

# The importers, for both platforms.
INC="-Itests/unit -Iruntime/fmi2 -Iruntime/fmi3"
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -D_GNU_SOURCE -O2 -Wall -Wextra -Wpedantic -Werror $INC \
	-o "$OUT/wine_import" tests/wine/wine_import.c -ldl
# shellcheck disable=SC2086
$MINGW -std=c99 -O2 -D__USE_MINGW_ANSI_STDIO=1 -Wall -Wextra -Wpedantic -Werror \
	-Itests/wine/compat $INC -o "$OUT/wine_import.exe" tests/wine/wine_import.c -static

# The wrappers in process, then the same wrappers with isolated inners: on Linux in the
# host, on Windows in sacc-fmu-host.exe, which the wrapper starts under Wine as on Windows.
set -- 0.05 40 \
	"$OUT/bare/integrator" 2 integrator u x \
	"$OUT/bare/noevent3" 3 noevent3 u x \
	"$OUT/fmi2/wine_int" 2 wine_int u y \
	"$OUT/fmi2/wine_decay" 2 wine_decay u x \
	"$OUT/fmi3/wine_int" 3 wine_int u y \
	"$OUT/fmi3/wine_decay" 3 wine_decay u x \
	"$OUT/iso/wine_int" 2 wine_int u y \
	"$OUT/iso/wine_decay" 2 wine_decay u x \
	"$OUT/iso3/wine_int" 3 wine_int u y \
	"$OUT/iso3/wine_decay" 3 wine_decay u x
"$OUT/wine_import" "$@" >"$OUT/linux.txt" || fail "the Linux importer failed"
[ "$(wc -l <"$OUT/linux.txt")" -eq 400 ] || fail "expected 400 lines of results"
sed -n 81,240p "$OUT/linux.txt" >"$OUT/inprocess.txt"
sed -n 241,400p "$OUT/linux.txt" | cmp -s - "$OUT/inprocess.txt" ||
	fail "the isolated wrappers differ from the wrappers in process"
start=$(date +%s)
"$WINE" "$OUT/wine_import.exe" "$@" >"$OUT/windows.raw" 2>"$OUT/wine.err" ||
	fail "the Windows importer failed under Wine: $(cat "$OUT/wine.err")"
importers_s=$(($(date +%s) - start))
tr -d '\r' <"$OUT/windows.raw" >"$OUT/windows.txt"
cmp -s "$OUT/linux.txt" "$OUT/windows.txt" ||
	fail "win64 and linux64 differ: $(diff "$OUT/linux.txt" "$OUT/windows.txt" | head -5)"
# the isolated win64 wrappers freed their instances: their hosts quit
# (hosts of this test's prefix only: other runs of the suite may have their own)
exe_hosts() {
	grep -l -s "sacc-fmu-host[.]exe" /proc/[0-9]*/cmdline | while read -r c; do
		grep -q -s -F -x -z "WINEPREFIX=$PREFIX" "${c%/cmdline}/environ" && echo "$c"
	done | wc -l
}
# fails with $1 unless every such host is gone within 5 s
no_exe_hosts() {
	i=0
	while [ "$(exe_hosts)" -ne 0 ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || fail "$1"
		sleep 0.1
	done
}
no_exe_hosts "hosts of the isolated win64 wrappers left after the importer"

# The wrappers against their bare inners: wine_int's y is 2 x, wine_decay's x is x.
awk '$1 == "integrator" { x[$2] = $5 } $1 == "noevent3" { d[$2] = $4 }
     $1 == "wine_int" { n++; if ($5 + 0 != 2 * x[$2]) bad = bad " int@" $2 }
     $1 == "wine_decay" { n++; if ($4 != d[$2]) bad = bad " decay@" $2 }
     END { if (bad != "" || n != 320) { print "mismatch:" bad " (" n " lines)"; exit 1 } }' \
	"$OUT/linux.txt" || fail "the wrappers do not give what their inners give"

# A win64 wrapper whose isolated inner's host crashes (an access violation in the FMU): the
# importer gets an error naming it, in seconds, and no host is left (the other inner's,
# alive when the importer exits without freeing, dies with the importer's job).
cp -r "$BUILD/fmus/faulty" "$OUT/bare/faulty"
mkdir -p "$OUT/bare/faulty/binaries/win64"
# shellcheck disable=SC2086
$MINGW $W_CFLAGS -Wno-pedantic -Itests/fmus/kit -Iruntime/fmi2 -Itests/fmus/faulty \
	-o "$OUT/bare/faulty/binaries/win64/faulty.dll" tests/fmus/faulty/model.c $W_LDFLAGS
"$BUILD/tools/fmu_pack" "$OUT/fmus/faulty.fmu" "$OUT/bare/faulty"
"$SACC" build -L "$OUT/fmus" --isolate all --platform win64 -o "$OUT/crash" tests/wine/wine_crash.sa ||
	fail "the crashing wrapper failed to build"
for f in wine_crash wine_hang; do
	mkdir -p "$OUT/crash/$f"
	(cd "$OUT/crash/$f" && unzip -q "../$f.fmu")
done
rc=0
timeout 60 "$WINE" "$OUT/wine_import.exe" 0.05 40 "$OUT/crash/wine_crash" 2 wine_crash u x \
	>"$OUT/crash.txt" 2>"$OUT/crash.err" || rc=$?
[ $rc -eq 1 ] || fail "the importer over a crashing host: exit status $rc (124: a hang), $(cat "$OUT/crash.err")"
tr -d '\r' <"$OUT/crash.err" | grep -q "\[faulty\] doStep(t = 0.15.*the FMU's process died of exception 0xc0000005 (access violation)" ||
	fail "no error naming the crash: $(cat "$OUT/crash.err")"
grep -q "step [0-9]* failed" "$OUT/crash.err" || fail "the step did not fail: $(cat "$OUT/crash.err")"
[ "$(wc -l <"$OUT/crash.txt")" -eq 3 ] || fail "the 3 steps before the crash did not run"
no_exe_hosts "hosts left after the importer over a crashed host exited"
# An importer killed while an isolated inner hangs in its step takes both hosts with it.
"$WINE" "$OUT/wine_import.exe" 0.05 40 "$OUT/crash/wine_hang" 2 wine_hang u x \
	>"$OUT/hang.txt" 2>"$OUT/hang.err" &
victim=$!
i=0
until [ "$(exe_hosts)" -ge 2 ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the importer over a hanging host did not reach the hang in 30 s: $(cat "$OUT/hang.err")"
	sleep 0.1
done
# (the three steps before the hang take milliseconds; the importer's output, a file, is
# not flushed before it ends)
sleep 1
kill -KILL $victim
wait $victim 2>/dev/null || true
no_exe_hosts "hosts left after their importer was killed"
# A win64 wrapper whose host is not beside its DLL fails its instantiation, naming the file.
rm "$OUT/crash/wine_crash/binaries/win64/sacc-fmu-host.exe"
timeout 60 "$WINE" "$OUT/wine_import.exe" 0.05 40 "$OUT/crash/wine_crash" 2 wine_crash u x \
	>"$OUT/crash.txt" 2>"$OUT/crash.err" && fail "the wrapper without its host instantiated"
tr -d '\r' <"$OUT/crash.err" | grep -q "cannot run the FMU host '.*sacc-fmu-host.exe': No such file or directory" ||
	fail "no error naming the missing host: $(cat "$OUT/crash.err")"

# Nothing of Wine is left running: the private prefix's wineserver is shut down and waited
# for, and no process still has that prefix in its environment.
"$WINESERVER" -k 2>/dev/null || true
"$WINESERVER" -w 2>/dev/null || true
# (the variable is unset first, so that the commands looking do not find themselves)
unset WINEPREFIX
left=$(grep -l -s -F -z "WINEPREFIX=$PREFIX" /proc/[0-9]*/environ |
	grep -v -e '^/proc/self/' -e '^/proc/thread-self/' | tr '\n' ' ' || true)
[ -z "$left" ] || fail "Wine processes left running: $left"
# Nothing is left running when a run is stopped: SIGTERM stops it after the step, and sacc,
# the prefix's last user, shuts the wineserver down before it exits; SIGKILL ends sacc
# outright, its hosts die with it, and the wineserver, with no process left, ends on its
# own within seconds.
for sig in TERM KILL; do
	env SACC_WINEPREFIX="$PREFIX" "$SACC" simulate -L "$OUT/winfmus" tests/wine/wine_pair.sa \
		--stop 1000 --realtime -o "$OUT/stopped.csv" 2>"$OUT/err.txt" &
	victim=$!
	i=0
	# (a pattern that does not match itself in the cmdline of the grep that looks)
	until [ "$(grep -l -s "sacc-fmu-host[.]exe" /proc/[0-9]*/cmdline | wc -l)" -ge 3 ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "the three Wine hosts did not start in 30 s"
		sleep 0.1
	done
	kill -$sig $victim
	rc=0
	wait $victim 2>/dev/null || rc=$?
	if [ $sig = TERM ]; then
		[ $rc -eq 1 ] && grep -q "sacc simulate: interrupted" "$OUT/err.txt" ||
			fail "SIGTERM: exit status $rc, $(cat "$OUT/err.txt")"
		[ -z "$(hosts)" ] || fail "Wine processes left after SIGTERM: $(hosts | tr '\n' ' ')"
		continue
	fi
	i=0
	while [ -n "$(hosts)" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "Wine processes left 20 s after SIGKILL: $(hosts | tr '\n' ' ')"
		sleep 0.1
	done
done

echo "check-wine: ok: 8 wrappers and 2 FMUs, 400 results bit-identical on win64 (Wine, $importers_s s) and linux64, in process and isolated on both; a crashing Windows host reported, hosts gone with a killed importer; 2 Windows-only FMUs in 3 Wine hosts at once, in 2 runs at once, from sacc simulate equal to linux64 ($wine_s s), in a Linux wrapper too, none left after SIGTERM or SIGKILL"
