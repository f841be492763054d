" vim-lsp.vim — the vim-lsp plugin (github.com/prabirshrestha/vim-lsp) on semantic
" adaptation scripts: `sacc lsp` over stdio for the filetype sa.  Source it from your vimrc
" after putting editors/vim on the runtime path:
"
"   set runtimepath^=/path/to/sacc/editors/vim
"   source /path/to/sacc/editors/vim/lsp/vim-lsp.vim
"
" g:sacc_path names the program when sacc is not in PATH; g:sacc_args adds arguments
" after `sacc lsp`.  :LspDocumentFormat formats the buffer through sacc fmt.
augroup sacc_lsp
  autocmd!
  autocmd User lsp_setup call lsp#register_server({
        \ 'name': 'sacc',
        \ 'cmd': {server_info -> [get(g:, 'sacc_path', 'sacc'), 'lsp'] + get(g:, 'sacc_args', [])},
        \ 'allowlist': ['sa'],
        \ })
augroup END
