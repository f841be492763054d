" vim_syntax.vim — editors/vim in Debian's vim, headless (tests/editors/run.sh runs it):
" the runtime path takes editors/vim, the .sa file gets filetype sa through ftdetect, the
" syntax file and the vim-lsp snippet load without an error, and words of highlight.test.sa
" get the expected syntax groups.  Failures go to the file named by $SA_VIM_OUT, one a line; exits with
" status 1 on any.
set nocompatible
let s:root = fnamemodify(expand('<sfile>:p'), ':h:h:h')
let &runtimepath = s:root . '/editors/vim,' . &runtimepath
filetype plugin on
syntax on
let v:errmsg = ''
execute 'edit ' . fnameescape(s:root . '/tests/editors/highlight.test.sa')
let s:failures = []
if v:errmsg != ''
  call add(s:failures, 'loading: ' . v:errmsg)
endif
" the vim-lsp snippet loads and registers at vim-lsp's lsp_setup
execute 'source ' . fnameescape(s:root . '/editors/vim/lsp/vim-lsp.vim')
if v:errmsg != '' || !exists('#sacc_lsp#User#lsp_setup')
  call add(s:failures, 'editors/vim/lsp/vim-lsp.vim: ' . v:errmsg)
endif
if &filetype != 'sa'
  call add(s:failures, 'filetype is "' . &filetype . '", not "sa"')
endif
if get(b:, 'current_syntax', '') != 'sa'
  call add(s:failures, 'syntax/sa.vim did not load')
endif

" The group at the count-th (from 1) occurrence of word in the first line that starts with
" line_start, the word matched whole when it is one.
function! s:group(line_start, word, count) abort
  let l:lnum = search('^\V' . escape(a:line_start, '\'), 'nw')
  if l:lnum == 0
    return 'no line "' . a:line_start . '"'
  endif
  let l:pat = a:word =~ '^\w' ? '\V\<' . escape(a:word, '\') . '\>' : '\V' . escape(a:word, '\')
  let l:col = -1
  for l:i in range(a:count)
    let l:col = match(getline(l:lnum), l:pat, l:col + 1)
  endfor
  if l:col < 0
    return 'no "' . a:word . '" in line ' . l:lnum
  endif
  return synIDattr(synID(l:lnum, l:col + 1, 1), 'name')
endfunction

function! s:expect(line_start, word, group, ...) abort
  let l:got = s:group(a:line_start, a:word, a:0 ? a:1 : 1)
  if l:got !=# a:group
    call add(s:failures, printf('%s ... %s: %s, expected %s', a:line_start, a:word, l:got, a:group))
  endif
endfunction

call s:expect('module', 'module', 'saKeyword')
call s:expect('module', 'window_fix', 'saModuleName')
call s:expect('import', 'helpers', 'saModuleName')
call s:expect('import', 'why', 'saLineComment')
call s:expect('/* a block', 'block', 'saBlockComment')
call s:expect('   comment */', 'comment', 'saBlockComment')
call s:expect('semantic', 'adaptation', 'saKeyword')
call s:expect('semantic', 'reactive', 'saStorageClass')
call s:expect('semantic', 'window_sa', 'saAdaptationName')
call s:expect('at "window_sa', 'window_sa.fmu', 'saString')
call s:expect('at "window_sa', 'fmi', 'saContextual')
call s:expect('at "window_sa', '3', 'saNumber')
call s:expect('  for isolated', 'isolated', 'saContextual')
call s:expect('  for isolated', 'inner', 'saKeyword')
call s:expect('  for isolated', 'delayed', 'saStorageClass')
call s:expect('  for isolated', 'Window', 'saFmuType')
call s:expect('  for isolated', 'window', 'saInstance')
call s:expect('    with input', 'Real', 'saType')
call s:expect('    with input', 'rad', 'saUnit')
call s:expect('    with input', 'model', '')
call s:expect('    with output', 'N.m^-2', 'saUnit')
call s:expect('    with output', ':=', 'saOperator')
call s:expect('    with output', '0.5', 'saFloat')
call s:expect('    with model', 'model', 'saContextual')
call s:expect('    with model', 'exchange', 'saContextual')
call s:expect('    with solver', 'solver', 'saContextual')
call s:expect('    with solver', 'implicit', 'saSolver')
call s:expect('    with solver', 'relative', 'saDeclarative')
call s:expect('    with solver', '1e-8', 'saFloat')
call s:expect('    with solver', 'step', 'saContextual')
call s:expect('  coupled', 'factor', 'saContextual')
call s:expect('  coupled', '->', 'saOperator')
call s:expect('  coupled', '100.0', 'saFloat')
call s:expect('input ports', 'rad/s', 'saUnit')
call s:expect('input ports', '^in', 'saEscapedName')
call s:expect('input ports', '^in', 'saUnit', 2)
call s:expect('output ports', '<-', 'saOperator')
call s:expect('param', '4', 'saNumber')
call s:expect('  for (var', '0', 'saNumber')
call s:expect('  for (var', '..', 'saOperator')
call s:expect('    if (flag)', 'if', 'saConditional')
call s:expect('    if (flag)', 'flag', 'saNoUnit')
call s:expect('    if (flag)', 'do_step', 'saFunction')
call s:expect('    if (flag)', 'H', 'saKeyVar')
call s:expect('    if (flag)', 'break', 'saStatement')
call s:expect('  return', 'return', 'saStatement')
call s:expect('out rules', 'crossing', 'saDeclarative')
call s:expect('  not (window', 'not', 'saOperatorWord')
call s:expect('  not (window', 'window', 'saNoUnit')
call s:expect('  not (window', '>!', 'saOperator')
call s:expect('  not (window', 'true', 'saBoolean')
call s:expect('  not (window', 'prev', 'saKeyVar')
call s:expect('  quantize', 'floor', 'saFunction')
call s:expect('  quantize', 'ZOH', 'saDeclarative')
call s:expect('  otherwise', 'done', 'saString')
call s:expect('fmu Window', 'Window', 'saFmuType')
call s:expect('fmu Window', 'w', 'saInstance')
call s:expect('  composed', 'of', 'saContextual')

call writefile(s:failures, $SA_VIM_OUT)
execute (empty(s:failures) ? 'qall!' : 'cquit!')
