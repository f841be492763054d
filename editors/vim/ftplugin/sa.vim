" Comments and indentation for semantic adaptation scripts: the layout `sacc fmt` writes
" indents with tabs; `gq` over a range formats through sacc fmt.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1
setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://
setlocal noexpandtab shiftwidth=0 tabstop=8
setlocal formatprg=sacc\ fmt\ -
let b:undo_ftplugin = "setlocal commentstring< comments< expandtab< shiftwidth< tabstop< formatprg<"
