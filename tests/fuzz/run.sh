#!/bin/sh
# run.sh — builds the libFuzzer harnesses and runs each for FUZZ_SECONDS.
#
#   FUZZ_SECONDS=300 sh tests/fuzz/run.sh      (`make fuzz FUZZ_SECONDS=300` does this)
#
#   fuzz_check   the input as a script: parse, check against the test FMUs, explicit
#   fuzz_md      the input as a modelDescription.xml: fmu_parse_md and the inspect printers
#   fuzz_zip     the input as an FMU archive: fmu_open and zip_extract/pkg_extract_fmu into a
#                temporary directory (nothing may land outside it)
#   fuzz_state   the input as a serialized FMU state of the window_sa wrapper
#                (tests/e2e/manual/window_sa.c + runtime/): fmi2DeSerializeFMUstate, then
#                fmi2SetFMUstate and a step when it is accepted
#   fuzz_csv     the input as a result table: csv_parse (csv_read's reader, for `sacc plot`
#                and `sacc simulate --reference`), then csv_column, csv_at and csv_interp
#   fuzz_ssp     the input as an SSP system: an .ssp archive, or SystemStructure.ssd and its
#                .ssv/.ssm files separated by lines "%%", through ssp_read and ssp_flatten
#   fuzz_channel the input as what an isolated inner's host child answers on the shared
#                slot, through the parent's back end (runtime/sart_inner_isolated.c) and the
#                sart_inner.h calls a wrapper or `sacc simulate` makes (no child runs: fork
#                and the channel's wait are replaced at link time, --wrap)
#
#   FUZZ_ONLY="zip state" sh tests/fuzz/run.sh    runs only those harnesses
#   FUZZ_MERGE=1 sh tests/fuzz/run.sh   instead of fuzzing, merges what the runs learned
#                ($BUILD/fuzz/corpus/NAME) into tests/fuzz/corpus/NAME, keeping the fewest
#                inputs that cover every edge (a few dozen files): how the committed corpora
#                are refreshed
#
# Run from the repository root.  The harnesses are built with clang straight from the
# compiler's sources (not through the Makefile: libFuzzer needs its own instrumentation).
# Each run starts from the committed seeds in tests/fuzz/corpus/NAME/ plus, for fuzz_check,
# every .sa file of the project (fuzz_md: every model description; fuzz_zip: every test FMU
# archive; fuzz_state: states the harness serializes itself; fuzz_csv: only the committed
# tables, the project holding no CSV file; fuzz_ssp: every .ssd of tests/ssp, the cases with
# parameter files as multi-document inputs, and .ssp archives packed here from them with
# FMUs that hold only their model descriptions; fuzz_channel: only the committed inputs);
# what it learns goes to $BUILD/fuzz/corpus/NAME/
# (kept between runs, never in the repository), and a crashing, leaking or hanging input is
# written to $BUILD/fuzz/NAME-crash-* (or -leak-, -timeout-, -oom-).  Exits non-zero when a
# harness found something.
set -u

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
BUILD=${BUILD:-build}
FUZZ_CC=${FUZZ_CC:-clang}
OUT=$BUILD/fuzz
HERE=tests/fuzz

CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
        -fno-omit-frame-pointer -DARENA_DEBUG -std=c11 -D_POSIX_C_SOURCE=200809L
        -Icompiler -Icompiler/front -Icompiler/check -Icompiler/rewrite -Icompiler/emit
        -Icompiler/package -Icompiler/ssp -Iorchestrator -Igenerated -I/usr/include/libxml2 -I/usr/include/minizip"
LDFLAGS="-fsanitize=fuzzer,address,undefined"
LIBS="-lxml2 -lminizip -ludunits2 -lm"

mkdir -p "$OUT/obj" || exit 1

# ---- build ----------------------------------------------------------------------------
# One object per source, rebuilt when the source or any header is newer than it.
objs=""
# (of orchestrator/, only the result tables: fuzz_csv's target; of runtime/, only the number
# formatter that compiler/numfmt.c calls)
for src in compiler/*.c compiler/front/*.c compiler/check/*.c compiler/rewrite/*.c \
           compiler/emit/*.c compiler/package/*.c compiler/ssp/*.c orchestrator/csv.c runtime/sart_numfmt.c generated/sa_*.c; do
	case $src in compiler/main.c) continue ;; esac
	obj=$OUT/obj/$(basename "$src" .c).o
	if [ ! -f "$obj" ] || [ -n "$(find "$src" compiler/*.h compiler/*/*.h orchestrator/*.h runtime/sart_numfmt*.h generated/*.h -newer "$obj")" ]; then
		# shellcheck disable=SC2086
		if ! $FUZZ_CC $CFLAGS -c -o "$obj" "$src"; then
			echo "fuzz: cannot compile $src" >&2
			exit 1
		fi
	fi
	objs="$objs $obj"
done
# package.c (which fuzz_zip reaches) links the table of embedded runtime files.
make --no-print-directory BUILD="$BUILD" "$BUILD/gen/runtime_files.c" >/dev/null ||
	{ echo "fuzz: cannot generate $BUILD/gen/runtime_files.c" >&2; exit 1; }
# shellcheck disable=SC2086
if [ ! -f "$OUT/obj/runtime_files.o" ] ||
   [ "$BUILD/gen/runtime_files.c" -nt "$OUT/obj/runtime_files.o" ]; then
	$FUZZ_CC $CFLAGS -c -o "$OUT/obj/runtime_files.o" "$BUILD/gen/runtime_files.c" ||
		{ echo "fuzz: cannot compile runtime_files.c" >&2; exit 1; }
fi
objs="$objs $OUT/obj/runtime_files.o"
for h in fuzz_check fuzz_md fuzz_zip fuzz_csv fuzz_ssp; do
	# shellcheck disable=SC2086
	if ! $FUZZ_CC $CFLAGS -c -o "$OUT/obj/$h.o" "$HERE/$h.c" ||
	   ! $FUZZ_CC $LDFLAGS -o "$OUT/$h" "$OUT/obj/$h.o" $objs $LIBS; then
		echo "fuzz: cannot build $h" >&2
		exit 1
	fi
done

# fuzz_state: the wrapper window_sa and the runtime, instrumented, in the harness itself;
# its inner FMU (the test FMU window, not instrumented) comes from the e2e-manual build.
RT_CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
           -fno-omit-frame-pointer -std=c99 -Iruntime -Iruntime/fmi2"
sobjs=""
for src in runtime/*.c tests/e2e/manual/window_sa.c; do
	obj=$OUT/obj/rt-$(basename "$src" .c).o
	if [ ! -f "$obj" ] || [ -n "$(find "$src" runtime/*.h runtime/fmi2/*.h -newer "$obj")" ]; then
		# shellcheck disable=SC2086
		if ! $FUZZ_CC $RT_CFLAGS -c -o "$obj" "$src"; then
			echo "fuzz: cannot compile $src" >&2
			exit 1
		fi
	fi
	sobjs="$sobjs $obj"
done
# shellcheck disable=SC2086
if ! $FUZZ_CC $RT_CFLAGS -c -o "$OUT/obj/fuzz_state.o" "$HERE/fuzz_state.c" ||
   ! $FUZZ_CC $LDFLAGS -o "$OUT/fuzz_state" "$OUT/obj/fuzz_state.o" $sobjs -lm -ldl; then
	echo "fuzz: cannot build fuzz_state" >&2
	exit 1
fi
# fuzz_channel: the isolated back end with the same runtime objects; fork and the wait for
# the child's answer are the harness's (ld --wrap), so no child runs.
# shellcheck disable=SC2086
if ! $FUZZ_CC $RT_CFLAGS -c -o "$OUT/obj/fuzz_channel.o" "$HERE/fuzz_channel.c" ||
   ! $FUZZ_CC $LDFLAGS -Wl,--wrap=fork,--wrap=sart_chan_call -o "$OUT/fuzz_channel" \
	"$OUT/obj/fuzz_channel.o" $sobjs -lm -ldl; then
	echo "fuzz: cannot build fuzz_channel" >&2
	exit 1
fi
WSA_RES=$BUILD/e2e-manual/window_sa/resources
make --no-print-directory BUILD="$BUILD" "$WSA_RES/window/modelDescription.xml" >/dev/null ||
	{ echo "fuzz: cannot build $WSA_RES" >&2; exit 1; }

# fuzz_check finds its inner FMUs in $BUILD/fmus; fuzz_ssp links those and $BUILD/fmus3.
fmus=""
for md in tests/fmus/*/modelDescription.xml; do
	[ -f "$md" ] && fmus="$fmus $BUILD/fmus/$(basename "$(dirname "$md")").fmu"
done
fmus3=""
for md in tests/fmus3/*/modelDescription.xml; do
	[ -f "$md" ] && fmus3="$fmus3 $BUILD/fmus3/$(basename "$(dirname "$md")").fmu"
done
# shellcheck disable=SC2086
[ -z "$fmus$fmus3" ] || make --no-print-directory BUILD="$BUILD" $fmus $fmus3 "$BUILD/tools/fmu_pack" >/dev/null ||
	{ echo "fuzz: cannot build the test FMUs" >&2; exit 1; }

# Every script of the project seeds fuzz_check (copied: libFuzzer reads directories).
rm -rf "$OUT/seeds" && mkdir -p "$OUT/seeds/check" "$OUT/seeds/md" "$OUT/seeds/zip" \
	"$OUT/seeds/state" "$OUT/seeds/csv" "$OUT/seeds/ssp" "$OUT/seeds/channel"
i=0
for f in adaptations/*/*.sa tests/golden/*/*.sa tests/golden/*/*/*.sa; do
	[ -f "$f" ] || continue
	i=$((i + 1))
	cp "$f" "$OUT/seeds/check/$i-$(basename "$f")"
done
for f in tests/fmus/*/modelDescription.xml tests/unit/data/*.xml; do
	[ -f "$f" ] || continue
	i=$((i + 1))
	cp "$f" "$OUT/seeds/md/$i-$(basename "$f")"
done

for f in $fmus; do
	i=$((i + 1))
	cp "$f" "$OUT/seeds/zip/$i-$(basename "$f")"
done
# fuzz_ssp: each SSD alone; the cases with parameter files as documents separated by "%%"
# (the harness's order: SystemStructure.ssd, resources/b.ssv, b.ssm, parameters.ssv, a.ssm);
# and archives of the cases whose FMUs hold only their model descriptions (all ssp_read
# reads of them), packed small.
for f in tests/ssp/*/*.ssd tests/ssp/errors/*.ssd; do
	[ -f "$f" ] || continue
	i=$((i + 1))
	cp "$f" "$OUT/seeds/ssp/$i-$(basename "$f")"
done
if [ -f tests/ssp/chain/resources/b.ssv ]; then
	{ cat tests/ssp/chain/SystemStructure.ssd; printf '\n%%%%\n'
	  cat tests/ssp/chain/resources/b.ssv; printf '\n%%%%\n'
	  cat tests/ssp/chain/resources/b.ssm; } >"$OUT/seeds/ssp/chain-docs"
fi
if [ -f tests/ssp/build/parameters.ssv ]; then
	{ cat tests/ssp/build/chain.ssd; printf '\n%%%%\n\n%%%%\n\n%%%%\n'
	  cat tests/ssp/build/parameters.ssv; } >"$OUT/seeds/ssp/build-docs"
fi
pack=$OUT/pack
packer=$(cd "$BUILD/tools" && pwd)/fmu_pack
for case in twomass chain maps; do
	[ -d "tests/ssp/$case" ] || continue
	rm -rf "$pack" && mkdir -p "$pack/sys/resources" || exit 1
	cp -r "tests/ssp/$case/." "$pack/sys/"
	grep -o 'resources/[a-z0-9_]*\.fmu' "tests/ssp/$case/SystemStructure.ssd" | sort -u |
	while read -r fmu; do
		name=$(basename "$fmu" .fmu)
		md=tests/fmus/$name/modelDescription.xml
		[ -f "$md" ] || md=tests/fmus3/$name/modelDescription.xml
		mkdir -p "$pack/$name" && cp "$md" "$pack/$name/" &&
			"$packer" "$pack/sys/$fmu" "$pack/$name" >/dev/null || exit 1
	done || exit 1
	(cd "$pack/sys" && "$packer" ../sys.ssp . >/dev/null) || exit 1
	cp "$pack/sys.ssp" "$OUT/seeds/ssp/$case.ssp"
done
rm -rf "$pack"
SACC_FUZZ_WSA_RESOURCES=$WSA_RES SACC_FUZZ_WRITE_SEEDS=$OUT/seeds/state "$OUT/fuzz_state" \
	>/dev/null 2>&1 || { echo "fuzz: fuzz_state cannot write its seeds" >&2; exit 1; }

# ---- run ------------------------------------------------------------------------------
status=0
for h in ${FUZZ_ONLY:-check md zip state csv ssp channel}; do
	dict=""
	[ -f "$HERE/$h.dict" ] && dict="-dict=$HERE/$h.dict"
	mkdir -p "$HERE/corpus/$h"
	mkdir -p "$OUT/corpus/$h"
	if [ -n "${FUZZ_MERGE:-}" ]; then
		# the committed corpus and what was learned, through libFuzzer's merge (edges only);
		# then, since the merge keeps every input that adds an edge to the smaller ones before
		# it, the edges each kept input covers on its own (a merge of it alone), and the
		# fewest of them that cover every edge, chosen greedily: the committed corpus
		rm -rf "$OUT/merged" "$OUT/chosen" && mkdir -p "$OUT/merged" "$OUT/chosen" || exit 1
		SACC_FUZZ_FMUS=$BUILD/fmus SACC_FUZZ_FMUS3=$BUILD/fmus3 \
		SACC_FUZZ_WSA_RESOURCES=$WSA_RES "$OUT/fuzz_$h" -merge=1 -use_value_profile=0 \
			-use_counters=0 -max_len=65536 -timeout=10 -rss_limit_mb=2048 "$OUT/merged" \
			"$HERE/corpus/$h" "$OUT/corpus/$h" >"$OUT/fuzz_$h.merge.log" 2>&1 ||
			{ echo "fuzz: merging fuzz_$h failed (log $OUT/fuzz_$h.merge.log)"; status=1; continue; }
		: >"$OUT/cover.txt"
		for f in "$OUT/merged"/*; do
			rm -rf "$OUT/one" "$OUT/one.out" "$OUT/one.ctl" && mkdir -p "$OUT/one" "$OUT/one.out" &&
				cp "$f" "$OUT/one/" || exit 1
			SACC_FUZZ_FMUS=$BUILD/fmus SACC_FUZZ_FMUS3=$BUILD/fmus3 \
			SACC_FUZZ_WSA_RESOURCES=$WSA_RES "$OUT/fuzz_$h" -merge=1 -use_value_profile=0 \
				-use_counters=0 -merge_control_file="$OUT/one.ctl" -timeout=10 \
				-rss_limit_mb=2048 "$OUT/one.out" "$OUT/one" >/dev/null 2>&1
			sed -n "s|^COV 0|$f|p" "$OUT/one.ctl" >>"$OUT/cover.txt"
		done
		awk '{ pcs[$1] = $0 }
		     END {
		         for (;;) {
		             best = ""; most = 0
		             for (f in pcs) {
		                 if (f in taken) continue
		                 k = split(pcs[f], pc, " "); m = 0
		                 for (i = 2; i <= k; i++) if (!(pc[i] in covered)) m++
		                 if (m > most) { most = m; best = f }
		             }
		             if (best == "") break
		             taken[best] = 1
		             print best
		             k = split(pcs[best], pc, " ")
		             for (i = 2; i <= k; i++) covered[pc[i]] = 1
		         }
		     }' "$OUT/cover.txt" | while read -r f; do cp "$f" "$OUT/chosen/"; done
		rm -f "$HERE/corpus/$h"/* && cp "$OUT/chosen"/* "$HERE/corpus/$h/"
		echo "fuzz: fuzz_$h corpus merged: $(find "$HERE/corpus/$h" -type f | wc -l) files"
		continue
	fi
	echo "fuzz: fuzz_$h for $FUZZ_SECONDS s (corpus $OUT/corpus/$h, log $OUT/fuzz_$h.log)"
	# shellcheck disable=SC2086
	SACC_FUZZ_FMUS=$BUILD/fmus SACC_FUZZ_FMUS3=$BUILD/fmus3 SACC_FUZZ_WSA_RESOURCES=$WSA_RES \
	"$OUT/fuzz_$h" -max_total_time="$FUZZ_SECONDS" \
		-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		$dict -artifact_prefix="$OUT/$h-" \
		"$OUT/corpus/$h" "$HERE/corpus/$h" "$OUT/seeds/$h" >"$OUT/fuzz_$h.log" 2>&1
	rc=$?
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE' \
		"$OUT/fuzz_$h.log" |
		sed "s/^/fuzz: fuzz_$h /"
	if [ "$rc" -ne 0 ]; then
		status=1
		echo "fuzz: fuzz_$h FOUND A PROBLEM (exit $rc); the input is in $OUT/$h-*:"
		grep -E 'ERROR|SUMMARY|fuzz_(check|md|zip|state|csv|ssp|channel):|Test unit written' "$OUT/fuzz_$h.log" | head -n 10
	fi
done
[ "$status" -eq 0 ] && [ -z "${FUZZ_MERGE:-}" ] && echo "fuzz: nothing found"
exit $status
