#!/bin/sh
# run.sh — the editor support's tests (make check-editors):
#
#   1. the reserved words of grammar/sa_lexer.re's keyword() are exactly those the VS Code
#      grammar (its "keywords" rules) and the Vim syntax file (its `syn keyword` lines)
#      highlight as such;
#   2. Debian's vim, headless, loads editors/vim (ftdetect, syntax) without an error and
#      gives the words of highlight.test.sa the expected groups (vim_syntax.vim); so does
#      Neovim when it is installed, which also loads the LSP client configuration;
#   3. vscode-tmgrammar-test tokenizes highlight.test.sa with the VS Code grammar and checks
#      the scopes its comment lines assert.  The tool comes from npm's registry, installed
#      by `npm ci` from this folder's package.json and package-lock.json into
#      $BUILD/editors-npm; without npm or the network this part says so and is skipped.
#
# Run from the repository root: BUILD=build sh tests/editors/run.sh
set -u
BUILD=${BUILD:-build}
here=tests/editors
fail=0
skipped=
say() { echo "check-editors: $*"; }

# ---- 1. keyword sets ----
sed -n '/^static int keyword/,/^}/p' grammar/sa_lexer.re |
	sed -n 's/^[[:space:]]*"\([A-Za-z_]*\)"[[:space:]]*{ return whole_word.*/\1/p' |
	sort >"$BUILD/editors-lexer.words"
grep '^syn keyword' editors/vim/syntax/sa.vim | grep -vw contained |
	awk '{ for (i = 4; i <= NF; i++) print $i }' | sort >"$BUILD/editors-vim.words"
if [ "$(wc -l <"$BUILD/editors-lexer.words")" -lt 50 ]; then
	say "FAIL: found only $(wc -l <"$BUILD/editors-lexer.words") reserved words in grammar/sa_lexer.re"
	fail=1
fi
if ! diff -u "$BUILD/editors-lexer.words" "$BUILD/editors-vim.words" >"$BUILD/editors-vim.diff"; then
	say "FAIL: the reserved words (-) and editors/vim/syntax/sa.vim's keywords (+) differ:"
	cat "$BUILD/editors-vim.diff"
	fail=1
fi
if command -v node >/dev/null 2>&1; then
	node -e '
		const g = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		for (const p of g.repository.keywords.patterns) {
			const m = /^\\b\(\?:(.*)\)\\b$/.exec(p.match);
			if (!m) { console.error("not a word list: " + p.match); process.exit(1); }
			for (const w of m[1].split("|")) console.log(w);
		}' editors/vscode/syntaxes/sa.tmLanguage.json | sort >"$BUILD/editors-tm.words" ||
		fail=1
	if ! diff -u "$BUILD/editors-lexer.words" "$BUILD/editors-tm.words" >"$BUILD/editors-tm.diff"; then
		say "FAIL: the reserved words (-) and the VS Code grammar's keywords (+) differ:"
		cat "$BUILD/editors-tm.diff"
		fail=1
	fi
	# what package.json names exists
	node -e '
		const fs = require("fs"), dir = "editors/vscode/";
		const p = JSON.parse(fs.readFileSync(dir + "package.json", "utf8"));
		const files = [p.main, ...p.contributes.languages.map(l => l.configuration),
		               ...p.contributes.grammars.map(g => g.path)];
		for (const f of files) if (!fs.existsSync(dir + f)) { console.error("missing " + f); process.exit(1); }
		JSON.parse(fs.readFileSync(dir + "language-configuration.json", "utf8"));
		if (p.contributes.grammars[0].scopeName !== "source.sa") process.exit(1);' ||
		{ say "FAIL: editors/vscode/package.json names a file that is not there"; fail=1; }
else
	say "node is not installed: the VS Code grammar's keywords not compared (skipped)"
fi

# ---- 2. Vim ----
# vim_syntax.vim in the editor $1 (vim or nvim), headless.
try_syntax() {
	rm -f "$BUILD/editors-$1.out"
	if ! SA_VIM_OUT="$BUILD/editors-$1.out" timeout 60 "$1" -Nu NONE -i NONE -es \
		-S "$here/vim_syntax.vim" </dev/null >/dev/null 2>&1; then
		say "FAIL: editors/vim in $1:"
		cat "$BUILD/editors-$1.out" 2>/dev/null || echo "($1 wrote no report)"
		fail=1
	fi
}
if command -v vim >/dev/null 2>&1; then
	try_syntax vim
else
	say "FAIL: vim is not installed (sh tests/deps.sh installs it)"
	fail=1
fi

# The same in Neovim when it is installed, and its LSP client configuration loads and
# gives .sa files the filetype sa (the language server itself is tested elsewhere).
if command -v nvim >/dev/null 2>&1; then
	try_syntax nvim
	# a stand-in for sacc that notes how it was started
	fake="$BUILD/editors-fake-sacc"
	printf '#!/bin/sh\necho "$@" >"%s.args"\n' "$fake" >"$fake"
	chmod +x "$fake"
	rm -f "$fake.args"
	if ! timeout 60 nvim --headless -u NONE -i NONE -c 'filetype on' \
		-c "let g:sacc_path = '$fake'" -c "let g:sacc_args = ['-L', 'fmus']" \
		-c 'luafile editors/vim/lsp/sacc.lua' -c "edit $here/highlight.test.sa" \
		-c 'if &filetype !=# "sa" || v:errmsg != "" | cquit! | endif' \
		-c "for i in range(100) | if filereadable('$fake.args') | break | endif | sleep 100m | endfor" \
		-c 'qall!' </dev/null >"$BUILD/editors-nvim-lsp.out" 2>&1 ||
	   [ "$(cat "$fake.args" 2>/dev/null)" != "lsp -L fmus" ]; then
		say "FAIL: editors/vim/lsp/sacc.lua in nvim (the server started as: $(cat "$fake.args" 2>/dev/null)):"
		cat "$BUILD/editors-nvim-lsp.out"
		fail=1
	fi
else
	say "nvim is not installed: editors/vim not tried in Neovim (skipped)"
fi

# ---- 3. the VS Code grammar's scopes ----
npmdir="$BUILD/editors-npm"
tool="$npmdir/node_modules/.bin/vscode-tmgrammar-test"
if ! command -v npm >/dev/null 2>&1; then
	say "npm is not installed: the VS Code grammar's scopes not tested (skipped)"
	skipped=" (the VS Code grammar's scopes not tested)"
elif ! { [ -x "$tool" ] && cmp -s "$here/package-lock.json" "$npmdir/package-lock.json"; } &&
	! { mkdir -p "$npmdir" && cp "$here/package.json" "$here/package-lock.json" "$npmdir/" &&
	    (cd "$npmdir" && timeout 180 npm ci --no-audit --no-fund --loglevel=error --fetch-retries=1 --fetch-timeout=30000) \
		>"$BUILD/editors-npm.log" 2>&1; }; then
	say "npm ci failed (no network?): the VS Code grammar's scopes not tested (skipped):"
	tail -n 3 "$BUILD/editors-npm.log"
	skipped=" (the VS Code grammar's scopes not tested)"
	rm -f "$npmdir/package-lock.json"
elif ! "$tool" -c -g editors/vscode/syntaxes/sa.tmLanguage.json "$here/highlight.test.sa" \
	>"$BUILD/editors-tm.out" 2>&1; then
	say "FAIL: the VS Code grammar's scopes:"
	cat "$BUILD/editors-tm.out"
	fail=1
elif grep -q ERROR "$BUILD/editors-tm.out"; then
	cat "$BUILD/editors-tm.out"
	fail=1
fi

[ $fail = 0 ] && say "keywords, vim and the VS Code grammar agree$skipped"
exit $fail
