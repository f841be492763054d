-- sacc.lua — Neovim's built-in LSP client for semantic adaptation scripts: `sacc lsp` over
-- stdio on every .sa buffer (diagnostics as you type, hover, go to definition, completion,
-- formatting through sacc fmt with vim.lsp.buf.format(), vim.lsp.buf.formatting() in 0.7).
--
-- Works with Neovim 0.7 (Debian 12's) and later.  Put editors/vim on the runtime path for
-- the filetype and the syntax, and load this file, e.g. in init.lua:
--
--   vim.opt.runtimepath:prepend("/path/to/sacc/editors/vim")
--   dofile("/path/to/sacc/editors/vim/lsp/sacc.lua")
--
-- vim.g.sacc_path names the program when sacc is not in PATH; vim.g.sacc_args adds
-- arguments after `sacc lsp`.

local group = vim.api.nvim_create_augroup("sacc_lsp", { clear = true })

-- Neovim's own table takes .sa for Sather; an autocommand (not vim.filetype.add, which 0.7
-- applies only with g:do_filetype_lua) overrides that in every version.
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
  group = group,
  pattern = "*.sa",
  command = "set filetype=sa",
})
local client_id -- one server for every .sa buffer (Neovim 0.7 has no vim.lsp.start)

vim.api.nvim_create_autocmd("FileType", {
  group = group,
  pattern = "sa",
  callback = function(args)
    local cmd = { vim.g.sacc_path or "sacc", "lsp" }
    vim.list_extend(cmd, vim.g.sacc_args or {})
    local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h")
    -- the project is the nearest folder holding .git, else the script's folder
    local git = vim.fn.finddir(".git", dir .. ";")
    local root = git ~= "" and vim.fn.fnamemodify(git, ":p:h:h") or dir
    if not client_id or vim.lsp.client_is_stopped(client_id) then
      client_id = vim.lsp.start_client({ name = "sacc", cmd = cmd, root_dir = root })
    end
    if client_id then
      vim.lsp.buf_attach_client(args.buf, client_id)
    end
  end,
})
