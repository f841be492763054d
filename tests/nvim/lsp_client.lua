-- lsp_client.lua — Neovim's own LSP client (0.7's vim.lsp.start_client and
-- buf_attach_client, as editors/vim/lsp/sacc.lua calls them) driving `sacc lsp`: a script with an error opened, its diagnostics
-- awaited and asserted; hover, definition, completion after `window.` (typed into the
-- buffer, so that Neovim sends its incremental didChange), formatting through Neovim's
-- own edit application; then shutdown and exit.  Run by tests/nvim/run.sh:
--
--   SACC=build/sacc FMUS=build/fmus WORK=DIR REPO=. nvim --headless --clean -u NONE \
--       -c 'luafile tests/nvim/lsp_client.lua'
--
-- Exits nvim with status 0 when every check passed, 1 after printing the first failure.

local sacc, fmus, work, repo = os.getenv('SACC'), os.getenv('FMUS'), os.getenv('WORK'),
  os.getenv('REPO')

local function fail(msg)
  io.stderr:write('nvim lsp test: ' .. msg .. '\n')
  os.exit(1)
end

local function check(cond, msg)
  if not cond then fail(msg) end
end

local script = table.concat({
  'module window_fix  // the tutorial\'s wrapper',
  'semantic adaptation reactive mealy window_fix',
  'at "window_fix.fmu"',
  '\tfor inner fmu Window window',
  '\t\tat "window.fmu"',
  '\t\twith output ports Real height (cm), Real reaction_torque (N.m)',
  'input ports Real displacement (rad) -> window.displacement,',
  '\tReal speed (rad/s) -> window.speed',
  'output ports Real height (m) <- window.height,',
  '\tReal load_torque (N.m)',
  'out rules {',
  '\ttrue -> { } --> { window_fix.load_torque := -window.reaction_torqu; };',
  '}',
  '',
}, '\n')

local path = work .. '/window_fix.sa'
local f = assert(io.open(path, 'w'))
f:write(script)
f:close()

local ok, err = pcall(function()
  -- The configuration users load (editors/vim/lsp/sacc.lua: start_client and
  -- buf_attach_client on every .sa buffer), pointed at this build.
  vim.g.sacc_path = sacc
  vim.g.sacc_args = { '-L', fmus }
  dofile(repo .. '/editors/vim/lsp/sacc.lua')
  vim.cmd('edit ' .. path)
  local buf = vim.api.nvim_get_current_buf()
  check(vim.bo[buf].filetype == 'sa', 'filetype: ' .. vim.bo[buf].filetype)
  local client
  check(vim.wait(10000, function()
    client = vim.lsp.buf_get_clients(buf)[next(vim.lsp.buf_get_clients(buf)) or 0]
    return client ~= nil
  end, 20), 'no client attached to the buffer')
  local id = client.id

  -- 1. Diagnostics: the misspelled port on line 12 (0-based 11), where it is written.
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20),
        'no diagnostics within 10 s')
  local d = vim.diagnostic.get(buf)[1]
  check(d.message == "inner fmu 'window' has no port 'reaction_torqu'",
        'diagnostic message: ' .. d.message)
  local line12 = vim.api.nvim_buf_get_lines(buf, 11, 12, true)[1]
  local col = line12:find('reaction_torqu;', 1, true) - 1
  check(d.lnum == 11 and d.col == col, ('diagnostic at %d:%d, expected 11:%d'):format(d.lnum, d.col, col))
  check(d.severity == vim.diagnostic.severity.ERROR, 'not an error')

  local uri = vim.uri_from_bufnr(buf)
  local function request(method, line, character)
    local r = client.request_sync(method, {
      textDocument = { uri = uri },
      position = { line = line, character = character },
    }, 5000, buf)
    check(r and not r.err, method .. ' failed: ' .. vim.inspect(r))
    return r.result
  end

  -- 2. Hover on window.height (line 9): the variable as the model description says.
  local l9 = vim.api.nvim_buf_get_lines(buf, 8, 9, true)[1]
  local h = request('textDocument/hover', 8, l9:find('window.height', 1, true) + 7)
  check(h and h.contents.value:find('unit `cm`', 1, true), 'hover: ' .. vim.inspect(h))

  -- 3. Definition of `window` in window.speed: the inner declaration on line 4.
  local l8 = vim.api.nvim_buf_get_lines(buf, 7, 8, true)[1]
  local def = request('textDocument/definition', 7, l8:find('window.speed', 1, true))
  local loc = def[1] or def
  check(loc.uri == uri and loc.range.start.line == 3, 'definition: ' .. vim.inspect(def))

  -- 4. Fix the error by editing the buffer (Neovim sends the change), then complete
  --    after `window.` typed at the end of line 8's port list.
  vim.api.nvim_buf_set_text(buf, 11, col + 14, 11, col + 14, { 'e' })
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20),
        'the fix did not clear the diagnostics: ' .. vim.inspect(vim.diagnostic.get(buf)))
  local l11 = vim.api.nvim_buf_get_lines(buf, 11, 12, true)[1]
  local at = l11:find('-window', 1, true)
  vim.api.nvim_buf_set_text(buf, 11, at, 11, at, { 'window.' })
  local c = request('textDocument/completion', 11, at + 7)
  local labels = {}
  for _, item in ipairs(c.items or c) do labels[item.label] = true end
  for _, want in ipairs({ 'height', 'reaction_torque', 'displacement', 'speed', 'reaction_force' }) do
    check(labels[want], 'completion lacks ' .. want .. ': ' .. vim.inspect(labels))
  end
  vim.api.nvim_buf_set_text(buf, 11, at, 11, at + 7, { '' })

  -- 5. Formatting: Neovim applies the server's edits; the comment stays, the layout is
  --    the canonical one (`sacc fmt` on the same text, run beside).
  vim.lsp.buf.formatting_sync(nil, 5000)
  local got = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n') .. '\n'
  local tmp = work .. '/expected.sa'
  local e = assert(io.open(tmp, 'w'))
  e:write((script:gsub('reaction_torqu;', 'reaction_torque;')))
  e:close()
  local want = vim.fn.system({ sacc, 'fmt', tmp })
  check(vim.v.shell_error == 0, 'sacc fmt failed: ' .. want)
  check(got == want, 'formatted buffer:\n' .. got .. '\nsacc fmt:\n' .. want)
  check(got:find("// the tutorial's wrapper", 1, true), 'the comment was lost')

  -- 6. Shutdown and exit.
  vim.lsp.stop_client(id)
  check(vim.wait(5000, function() return client.is_stopped() end, 20), 'the server did not stop')
end)
if not ok then fail(tostring(err)) end
io.stdout:write('nvim lsp test: diagnostics, hover, definition, completion, formatting: ok\n')
os.exit(0)
