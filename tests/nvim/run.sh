#!/bin/sh
# tests/nvim/run.sh — `make check-nvim`: Neovim's built-in LSP client drives `sacc lsp`
# headless (lsp_client.lua says what it checks).  Skipped, saying so, when nvim is not
# installed (tests/deps.sh installs Debian's neovim).
set -u
SACC=${SACC:-build/sacc}
BUILD=${BUILD:-build}
if ! command -v nvim >/dev/null 2>&1; then
	echo "check-nvim: skipped: nvim is not installed (apt-get install neovim)"
	exit 0
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sacc-nvim.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
case $SACC in /*) ;; *) SACC=$(pwd)/$SACC ;; esac
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
# HOME and XDG dirs in the work directory: nothing of the user's Neovim is read or written.
HOME=$WORK XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data XDG_STATE_HOME=$WORK/state \
XDG_CACHE_HOME=$WORK/cache SACC=$SACC FMUS=$BUILD/fmus WORK=$WORK REPO=$(pwd) \
	timeout 60 nvim --headless --clean -u NONE -i NONE -n \
	-c "luafile $(dirname "$0")/lsp_client.lua" </dev/null
rc=$?
[ "$rc" = 0 ] || echo "check-nvim: FAILED (status $rc)"
exit $rc
