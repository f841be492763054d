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
args=""     # the compiler's arguments, each a word without blanks (checked below)
files=""
libs=""
add() {
	case $1 in *[[:space:]]*) fail "'$1' has a blank, which this script does not quote" ;; esac
	args="$args $1"
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
	C89 | C90) add -std=c90 ;;
	C99 | C11 | C17) add "-std=$(echo "$lang" | tr C c)" ;;
	*) fail "language '$lang' is not C" ;;
	esac
	i=1
	n=$(nodes "$fs/PreprocessorDefinition" "$desc")
	while [ "$i" -le "$n" ]; do
		name=$(xpath "$fs/PreprocessorDefinition[$i]/@name" "$desc")
		if [ "$(nodes "$fs/PreprocessorDefinition[$i]/@value" "$desc")" = 1 ]; then
			add "-D$name=$(xpath "$fs/PreprocessorDefinition[$i]/@value" "$desc")"
		else
			add "-D$name"
		fi
		i=$((i + 1))
	done
	i=1
	n=$(nodes "$fs/IncludeDirectory" "$desc")
	while [ "$i" -le "$n" ]; do
		add "-I$(xpath "$fs/IncludeDirectory[$i]/@name" "$desc")"
		i=$((i + 1))
	done
	i=1
	n=$(nodes "$fs/SourceFile" "$desc")
	while [ "$i" -le "$n" ]; do
		files="$files $(xpath "$fs/SourceFile[$i]/@name" "$desc")"
		i=$((i + 1))
	done
	i=1
	n=$(nodes "$bc/Library" "$desc")
	while [ "$i" -le "$n" ]; do
		libs="$libs -l$(xpath "$bc/Library[$i]/@name" "$desc")"
		i=$((i + 1))
	done
	plat="$arch-linux"
	;;
2.0)
	cs=/fmiModelDescription/CoSimulation
	id=$(xpath "$cs/@modelIdentifier" "$md")
	add -I.
	i=1
	n=$(nodes "$cs/SourceFiles/File" "$md")
	while [ "$i" -le "$n" ]; do
		files="$files $(xpath "$cs/SourceFiles/File[$i]/@name" "$md")"
		i=$((i + 1))
	done
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
