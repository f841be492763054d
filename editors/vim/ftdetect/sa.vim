" .sa files are semantic adaptation scripts (editors/vim/syntax/sa.vim).  Vim's own
" filetype.vim takes .sa for Sather; `set filetype`, unlike `setfiletype`, overrides that.
autocmd BufRead,BufNewFile *.sa set filetype=sa
