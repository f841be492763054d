#!/bin/sh
# tests/srcfmu/run.sh — source wrappers (`make check-srcfmu`): every wrapper sacc builds
# carries its library's complete sources and how to build them, and an importer that knows
# nothing of sacc can compile it from the archive alone and get the same numbers.
#
# For each wrapper below: sacc builds it; its build description is checked against the
# structure the standard's schema gives it (FMI 3.0 sources/buildDescription.xml, FMI 2.0
# <SourceFiles>: written out here by hand, since the schema files are not part of the
# suite) and lists exactly the library's sources in the archive; build_from_sources.sh
# rebuilds the library from the description alone, with every binary of the archive
# removed; the rebuilt library exports the same FMI functions (all the standard declares);
# and `sacc simulate` of the rebuilt FMU writes the same CSV as of the original, byte for
# byte (shortest round-trip numbers: the same bits).
#
#   w2, w3    a plain wrapper (docs' window_fix, over the window FMU), FMI 2.0 and 3.0, fed
#             by an input table
#   a3        a wrapper with array ports (tests/e2e3/array3_sa: SART_ARRAYS), FMI 3.0 only:
#             FMI 2.0 has no arrays
#   m2, m3    a wrapper over a Model Exchange inner (osc_sa.sa over melinear, integrated by
#             the wrapper), FMI 2.0 and 3.0
#   iso       w2 with its inner out of process: the library and the host program built
#             with the commands of sources/README, run as they are written
#   nosrc     w2 with --no-sources: no sources/, no <SourceFiles>, the same library bytes
#
# Called by make as: SACC=build/sacc BUILD=build sh tests/srcfmu/run.sh
set -u
BUILD=${BUILD:-build}
SACC=${SACC:-$BUILD/sacc}
OUT=$BUILD/srcfmu
HERE=tests/srcfmu
rm -rf "$OUT" && mkdir -p "$OUT"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "srcfmu: FAIL $*"; }

# check NAME COMMAND...: one assertion, the command's success.
check() {
	what=$1
	shift
	if "$@" > "$OUT/last.log" 2>&1; then ok; else bad "$what"; sed 's/^/  /' "$OUT/last.log" | head -30; fi
}

xcount() { xmllint --xpath "count($1)" "$2"; }
# zero NAME XPATH FILE: no node matches.
zero() { check "$1" test "$(xcount "$2" "$3")" = 0; }

# The top-level .c files under sources/ of an unpacked FMU, one per line, sorted.
archive_sources() { (cd "$1/sources" && ls -- *.c) | LC_ALL=C sort; }

# The FMI 3.0 build description's structure, as fmi3BuildDescription.xsd has it: the
# elements, their order, their attributes, the required ones.
check_build_description() {
	d=$1
	check "$d: root" test "$(xmllint --xpath 'name(/*)' "$d")" = fmiBuildDescription
	check "$d: fmiVersion" sh -c "xmllint --xpath 'string(/*/@fmiVersion)' '$d' |
		grep -Eqx '3[.](0|[1-9][0-9]*)([.](0|[1-9][0-9]*))?(-.+)?'"
	check "$d: a BuildConfiguration" test "$(xcount '/*/BuildConfiguration' "$d")" -ge 1
	zero "$d: root's children" '/*/*[not(self::BuildConfiguration or self::Annotations)]' "$d"
	zero "$d: root's attributes" '/*/@*[name() != "fmiVersion"]' "$d"
	bc=/*/BuildConfiguration
	zero "$d: modelIdentifier" "$bc[not(@modelIdentifier)]" "$d"
	zero "$d: BuildConfiguration's attributes" \
		"$bc/@*[not(name() = 'modelIdentifier' or name() = 'platform' or name() = 'description')]" "$d"
	zero "$d: BuildConfiguration's children" \
		"$bc/*[not(self::SourceFileSet or self::Library or self::Annotations)]" "$d"
	zero "$d: SourceFileSet before Library" "$bc/Library/following-sibling::SourceFileSet" "$d"
	fs=$bc/SourceFileSet
	zero "$d: SourceFileSet's attributes" \
		"$fs/@*[not(name() = 'name' or name() = 'language' or name() = 'compiler' or name() = 'compilerOptions')]" "$d"
	zero "$d: a SourceFile per set" "$fs[not(SourceFile)]" "$d"
	zero "$d: SourceFileSet's children" \
		"$fs/*[not(self::SourceFile or self::PreprocessorDefinition or self::IncludeDirectory or self::Annotations)]" "$d"
	zero "$d: SourceFile, PreprocessorDefinition, IncludeDirectory in order" \
		"$fs/PreprocessorDefinition/following-sibling::SourceFile | $fs/IncludeDirectory/following-sibling::*[self::SourceFile or self::PreprocessorDefinition]" "$d"
	zero "$d: names" "$fs/*[not(self::Annotations)][not(@name)] | $bc/Library[not(@name)]" "$d"
	zero "$d: SourceFile's attributes" "$fs/SourceFile/@*[name() != 'name']" "$d"
	zero "$d: PreprocessorDefinition's attributes" \
		"$fs/PreprocessorDefinition/@*[not(name() = 'name' or name() = 'optional' or name() = 'value' or name() = 'description')]" "$d"
	zero "$d: Library's attributes" \
		"$bc/Library/@*[not(name() = 'name' or name() = 'version' or name() = 'external' or name() = 'description')]" "$d"
	zero "$d: booleans" "$bc/Library/@external[not(. = 'true' or . = 'false' or . = '1' or . = '0')]" "$d"
}

# rejects NAME FILE: the structure check above finds FILE wrong (its own failures not
# counted: the check of the check is one assertion).
rejects() {
	p0=$pass f0=$fail
	check_build_description "$2" > /dev/null
	found=$((fail - f0))
	pass=$p0 fail=$f0
	check "the structure check rejects $1" test "$found" -gt 0
}

# The FMI 2.0 <SourceFiles>, as fmi2ModelDescription.xsd has it: the only child of
# CoSimulation, File elements with a name and nothing else.
check_source_files() {
	m=$1
	cs=/fmiModelDescription/CoSimulation
	zero "$m: CoSimulation's children" "$cs/*[not(self::SourceFiles)]" "$m"
	check "$m: one SourceFiles" test "$(xcount "$cs/SourceFiles" "$m")" = 1
	zero "$m: SourceFiles' children" "$cs/SourceFiles/*[not(self::File)]" "$m"
	zero "$m: File's attributes" "$cs/SourceFiles/File[not(@name) or @*[name() != 'name']]" "$m"
}

# The names an FMU's build description lists, one per line, sorted.
listed() {
	if [ -f "$1/sources/buildDescription.xml" ]; then
		xmllint --xpath '/*/BuildConfiguration[1]/SourceFileSet/SourceFile/@name' \
			"$1/sources/buildDescription.xml"
	else
		xmllint --xpath '//CoSimulation/SourceFiles/File/@name' "$1/modelDescription.xml"
	fi | tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p' | LC_ALL=C sort
}

# The FMI functions a library defines, sorted.
fmi_exports() { nm -D --defined-only "$1" | awk '$3 ~ /^fmi[23]/ { print $3 }' | LC_ALL=C sort; }

# sim FMU CSV [OPTIONS]: sacc simulate of FMU into CSV.
sim() {
	f=$1
	o=$2
	shift 2
	"$SACC" simulate "$@" -o "$o" "$f" 2> "$o.err"
}

# case NAME FMU PLATFORM NEXPORTS [SIMULATE OPTIONS]: the checks above for one wrapper.
one_case() {
	name=$1 fmu=$2 plat=$3 nexports=$4
	shift 4
	u=$OUT/$name.unpacked
	unzip -q "$fmu" -d "$u"
	if [ -f "$u/sources/buildDescription.xml" ]; then
		check_build_description "$u/sources/buildDescription.xml"
	else
		check_source_files "$u/modelDescription.xml"
	fi
	listed "$u" > "$OUT/$name.listed"
	archive_sources "$u" > "$OUT/$name.archived"
	check "$name: lists exactly the sources/*.c of the archive" \
		cmp "$OUT/$name.listed" "$OUT/$name.archived"
	check "$name: rebuilt from the description" \
		sh "$HERE/build_from_sources.sh" "$fmu" "$OUT/$name.rebuilt.fmu"
	r=$OUT/$name.rebuilt
	unzip -q "$OUT/$name.rebuilt.fmu" -d "$r" 2> /dev/null
	id=$(basename "$fmu" .fmu)
	fmi_exports "$u/binaries/$plat/$id.so" > "$OUT/$name.exports"
	fmi_exports "$r/binaries/$plat/$id.so" > "$OUT/$name.rebuilt.exports"
	check "$name: the original exports $nexports FMI functions" \
		test "$(wc -l < "$OUT/$name.exports")" = "$nexports"
	check "$name: the rebuilt library exports the same" \
		cmp "$OUT/$name.exports" "$OUT/$name.rebuilt.exports"
	check "$name: simulate the original" sim "$fmu" "$OUT/$name.csv" "$@"
	check "$name: simulate the rebuilt" sim "$OUT/$name.rebuilt.fmu" "$OUT/$name.rebuilt.csv" "$@"
	check "$name: more than the initial row" test "$(wc -l < "$OUT/$name.csv")" -gt 3
	check "$name: the same results, bit for bit" cmp "$OUT/$name.csv" "$OUT/$name.rebuilt.csv"
}

WINDOW=docs/examples/tutorial/window_fix.sa
printf 'time,displacement,speed\n0,0,0\n1,2,1.5\n2,-1,0.5\n' > "$OUT/window.csv"
printf 'time,u[1],u[2],u[3]\n0,1,0,-1\n1,2,0.5,0\n' > "$OUT/arrays.csv"
WIN_RUN="--input $OUT/window.csv --stop 2 --step 0.01"

build() {
	dir=$1
	shift
	check "sacc build $*" "$SACC" build -o "$OUT/$dir" "$@"
}
build w2 -L "$BUILD/fmus" "$WINDOW"
build w3 --fmi 3 -L "$BUILD/fmus" "$WINDOW"
build a3 --fmi 3 -L "$BUILD/fmus3" tests/e2e3/array3_sa.sa
build m2 -L "$BUILD/fmus_me/fmi2" "$HERE/osc_sa.sa"
build m3 --fmi 3 -L "$BUILD/fmus_me/fmi3" "$HERE/osc_sa.sa"
build iso --isolate all -L "$BUILD/fmus" "$WINDOW"
build nosrc --no-sources -L "$BUILD/fmus" "$WINDOW"

# shellcheck disable=SC2086 # WIN_RUN is words
one_case w2 "$OUT/w2/window_fix.fmu" linux64 44 $WIN_RUN
# shellcheck disable=SC2086
one_case w3 "$OUT/w3/window_fix.fmu" x86_64-linux 75 $WIN_RUN
# The structure check fails on descriptions the schema refuses (each one checked against
# fmi3BuildDescription.xsd by hand once): no modelIdentifier, a boolean that is not one, an
# element the schema does not have, a SourceFile after an IncludeDirectory.
good=$OUT/w3.unpacked/sources/buildDescription.xml
sed 's/ modelIdentifier="[^"]*"//' "$good" > "$OUT/bad1.xml"
sed 's/external="true"/external="yes"/' "$good" > "$OUT/bad2.xml"
sed 's|<IncludeDirectory name="."/>|<IncludeDir name="."/>|' "$good" > "$OUT/bad3.xml"
sed 's|<IncludeDirectory name="."/>|&<SourceFile name="x.c"/>|' "$good" > "$OUT/bad4.xml"
check "the bad descriptions differ from the good one" sh -c "! cmp -s '$good' '$OUT/bad1.xml' &&
	! cmp -s '$good' '$OUT/bad2.xml' && ! cmp -s '$good' '$OUT/bad3.xml' && ! cmp -s '$good' '$OUT/bad4.xml'"
rejects "a missing modelIdentifier" "$OUT/bad1.xml"
rejects "external=\"yes\"" "$OUT/bad2.xml"
rejects "an unknown element" "$OUT/bad3.xml"
rejects "a SourceFile after an IncludeDirectory" "$OUT/bad4.xml"

one_case a3 "$OUT/a3/array3_sa.fmu" x86_64-linux 75 --input "$OUT/arrays.csv" --stop 1 --step 0.125
check "a3: SART_ARRAYS in the description" \
	test "$(xcount '//PreprocessorDefinition[@name="SART_ARRAYS"]' "$OUT/a3.unpacked/sources/buildDescription.xml")" = 1
check "w3: no definition without arrays" \
	test "$(xcount '//PreprocessorDefinition' "$OUT/w3.unpacked/sources/buildDescription.xml")" = 0
one_case m2 "$OUT/m2/osc_sa.fmu" linux64 44 --stop 2 --step 0.05
one_case m3 "$OUT/m3/osc_sa.fmu" x86_64-linux 75 --stop 2 --step 0.05
# The oscillator's exact solution (tests/fmus_me/melinear: x1'' + c x1' + k x1 = 0, k = 4,
# c = 0.4, x1(0) = 1000, x1'(0) = 0): x1 = e^(-t/5) (1000 cos(w t) + (200 / w) sin(w t)),
# w = sqrt(3.96); at t = 2 within 1e-5 (the wrapper integrates with rtol 1e-10): the numbers
# compared above are the right ones, in both versions.
for v in m2 m3; do
	check "$v: x1(2) is the exact solution's" awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "osc_sa.x1") c = i }
		NR > 1 && $1 == 2 { w = sqrt(3.96); x = exp(-0.4) * (1000 * cos(2 * w) + 200 / w * sin(2 * w))
			found = 1; d = $c - x; exit !(c && d < 1e-5 && d > -1e-5) }
		END { if (!found) exit 1 }' "$OUT/$v.csv"
done

# iso: the README's commands, its lines indented by four spaces (joined at "\"), run in
# sources/ as a user would paste them; the host program must come out of them too.
u=$OUT/iso.unpacked
unzip -q "$OUT/iso/window_fix.fmu" -d "$u"
check "iso: the archive carries the host's sources" test -f "$u/sources/host/sacc_fmu_host.c"
rm -rf "$u/binaries"
sed -n '/^    /p' "$u/sources/README" | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' > "$OUT/iso.commands"
abs=$(cd "$OUT" && pwd)
check "iso: the README's commands build" sh -c "cd '$u/sources' && sh -e '$abs/iso.commands'"
check "iso: the host program was built" test -x "$u/binaries/linux64/sacc-fmu-host"
(cd "$u" && zip -q -r -X "$abs/iso.rebuilt.fmu" .)
# shellcheck disable=SC2086
check "iso: simulate the original" sim "$OUT/iso/window_fix.fmu" "$OUT/iso.csv" $WIN_RUN
# shellcheck disable=SC2086
check "iso: simulate the rebuilt" sim "$OUT/iso.rebuilt.fmu" "$OUT/iso.rebuilt.csv" $WIN_RUN
check "iso: the same results as in process" cmp "$OUT/w2.csv" "$OUT/iso.rebuilt.csv"
check "iso: the same results as the original" cmp "$OUT/iso.csv" "$OUT/iso.rebuilt.csv"

# nosrc: nothing of the sources, the same library.
check "nosrc: no sources/ in the archive" sh -c "! unzip -Z1 '$OUT/nosrc/window_fix.fmu' | grep -q '^sources/'"
check "nosrc: no <SourceFiles>" sh -c "! unzip -p '$OUT/nosrc/window_fix.fmu' modelDescription.xml | grep -q SourceFiles"
unzip -p "$OUT/nosrc/window_fix.fmu" binaries/linux64/window_fix.so > "$OUT/nosrc.so"
check "nosrc: the same library as with sources" cmp "$OUT/nosrc.so" "$OUT/w2.unpacked/binaries/linux64/window_fix.so"

echo "srcfmu: $pass passed, $fail failed"
[ "$fail" = 0 ]
