#!/bin/sh
# build_from_sources.sh — builds an FMU's library from the sources in its archive, as an
# importer on a platform without a binary would: it knows the FMI standard and nothing of
# the tool that made the FMU.
#
#   sh tests/srcfmu/build_from_sources.sh IN.fmu OUT.fmu
#
# It unzips IN.fmu, reads what to compile from the archive alone (FMI 3.0:
# sources/buildDescription.xml, its first BuildConfiguration: the source files, the
# preprocessor definitions, the include directories, the language, the libraries; FMI 2.0:
# the <SourceFiles> of the Co-Simulation element, compiled with sources/ as the include
# directory), removes every binary the archive carries, compiles the listed files with
# $CC (default cc) into binaries/<this platform>/<modelIdentifier>.so, and zips the result
# into OUT.fmu.  Needs unzip, zip and xmllint (libxml2-utils).
set -eu

in=$1
out=$2
cc=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/srcfmu.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fail() { echo "build_from_sources: $in: $*" >&2; exit 1; }

unzip -q "$in" -d "$work/fmu"
md="$work/fmu/modelDescription.xml"
[ -f "$md" ] || fail "no modelDescription.xml"

# xpath EXPR FILE: the string value of EXPR.
xpath() { xmllint --xpath "string($1)" "$2"; }
# nodes EXPR FILE: how many nodes EXPR selects.
nodes() { xmllint --xpath "count($1)" "$2"; }

version=$(xpath /fmiModelDescription/@fmiVersion "$md")
arch=$(uname -m)
args=""     # the compiler's options, its files and its libraries: words without blanks
files=""
libs=""
# add LIST WORD: WORD appended to the list named LIST (args, files or libs).
add() {
	case $2 in *[[:space:]]*) fail "'$2' has a blank, which this script does not quote" ;; esac
	eval "$1=\"\$$1 \$2\""
}
# add_names LIST XPATH FILE PREFIX: PREFIX and the @name of each node XPATH selects in
# FILE, each added to LIST.
add_names() {
	k=1
	n=$(nodes "$2" "$3")
	while [ "$k" -le "$n" ]; do
		add "$1" "$4$(xpath "($2)[$k]/@name" "$3")"
		k=$((k + 1))
	done
}
case $version in
3.*)
	desc="$work/fmu/sources/buildDescription.xml"
	[ -f "$desc" ] || fail "FMI $version without sources/buildDescription.xml"
	bc=/fmiBuildDescription/BuildConfiguration[1]
	id=$(xpath "$bc/@modelIdentifier" "$desc")
	fs=$bc/SourceFileSet[1]
	lang=$(xpath "$fs/@language" "$desc")
	case $lang in
	'') ;;
	C89 | C90) add args -std=c90 ;;
	C99 | C11 | C17) add args "-std=$(echo "$lang" | tr C c)" ;;
	*) fail "language '$lang' is not C" ;;
	esac
	i=1
	n=$(nodes "$fs/PreprocessorDefinition" "$desc")
	while [ "$i" -le "$n" ]; do
		def=$fs/PreprocessorDefinition[$i]
		name=$(xpath "$def/@name" "$desc")
		if [ "$(nodes "$def/@value" "$desc")" = 1 ]; then
			add args "-D$name=$(xpath "$def/@value" "$desc")"
		else
			add args "-D$name"
		fi
		i=$((i + 1))
	done
	add_names args "$fs/IncludeDirectory" "$desc" -I
	add_names files "$fs/SourceFile" "$desc" ""
	add_names libs "$bc/Library" "$desc" -l
	plat="$arch-linux"
	;;
2.0)
	cs=/fmiModelDescription/CoSimulation
	id=$(xpath "$cs/@modelIdentifier" "$md")
	add args -I.
	add_names files "$cs/SourceFiles/File" "$md" ""
	case $arch in
	x86_64) plat=linux64 ;;
	*) fail "FMI 2.0 has no platform name for $arch" ;;
	esac
	;;
*) fail "FMI version '$version'" ;;
esac
[ -n "$id" ] || fail "no model identifier"
[ -n "$files" ] || fail "no source files listed"
for f in $files; do
	case $f in /* | *..*) fail "source file '$f' is not inside sources/" ;; esac
	[ -f "$work/fmu/sources/$f" ] || fail "listed source file '$f' is not in the archive"
done

# Nothing the archive brought may be what runs: only the library compiled here.
rm -rf "$work/fmu/binaries"
mkdir -p "$work/fmu/binaries/$plat"
# shellcheck disable=SC2086 # the lists are words without blanks (add, and the checks above)
(cd "$work/fmu/sources" &&
	$cc -shared -fPIC -O2 $args -o "../binaries/$plat/$id.so" $files $libs) ||
	fail "the compiler failed"
rm -f "$out"
case $out in /*) abs=$out ;; *) abs=$PWD/$out ;; esac
(cd "$work/fmu" && zip -q -r -X "$abs" .)
