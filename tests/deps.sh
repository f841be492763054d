#!/bin/sh
# deps.sh — the one place that knows which Debian packages building and testing sacc needs.
#
#   sh tests/deps.sh [demo]
#
# Run by `make check`, `make fuzz` and the benchmarks (everything) and by `make demo` (with
# `demo`: what building and running the case study needs, no test or fuzzing tools) before
# anything else, so it must be silent and quick when everything is installed.  As root it
# installs what is missing (CI runs on a fresh Debian 12 with only the Debian mirror
# reachable); otherwise it says what to install.
set -eu

# Generators, libraries the compiler links, GSL (the two-mass benchmark's FMUs and
# reference integrate exactly with its matrix exponential, the power window's monolithic
# reference with its BDF stepper) and gnuplot for `sacc plot`.
PACKAGES="
gcc
make
pkg-config
re2c
lemon
libxml2-dev
libminizip-dev
zlib1g-dev
libudunits2-dev
libgsl-dev
gnuplot-nox
"
# The test framework, the checkers of the suite, clang's runtime for libFuzzer and its
# sanitizers; a single-node Slurm and munge for `sacc ensemble --slurm`'s test and bench
# (tests/slurm/, started without systemd: no recommends wanted); vim and neovim, which load
# the editor support headless (tests/editors/run.sh); unzip, zip and xmllint for the
# importer that rebuilds source wrappers knowing nothing of sacc (tests/srcfmu/).
if [ "${1:-}" != demo ]; then
	PACKAGES="$PACKAGES
libcmocka-dev
valgrind
unzip
zip
libxml2-utils
clang
libclang-rt-14-dev
slurmctld
slurmd
slurm-client
munge
vim
neovim
"
fi

# One dpkg-query for all of them (it runs at every `make check`); a package dpkg has never
# heard of is simply absent from its output.
missing_packages() {
	# shellcheck disable=SC2086
	installed=" $(dpkg-query -W -f='${Package} ${Status}\n' $PACKAGES 2>/dev/null |
		awk '$NF == "installed" { printf "%s ", $1 }')"
	for p in $PACKAGES; do
		case $installed in
		*" $p "*) ;;
		*) printf '%s\n' "$p" ;;
		esac
	done
}

missing=$(missing_packages | tr '\n' ' ' | sed 's/ $//')
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "sacc: missing Debian packages: $missing" >&2
	echo "run as root: apt-get install -y $missing" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
# $missing is a list of package names: split it into words on purpose.
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $missing

still=$(missing_packages | tr '\n' ' ' | sed 's/ $//')
if [ -n "$still" ]; then
	echo "sacc: could not install Debian packages: $still" >&2
	exit 1
fi
