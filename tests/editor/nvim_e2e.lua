-- Run by tests/editor.rs in a headless Neovim (`nvim --headless -u NONE`): loads the README's
-- Neovim snippet, opens a fixture, and records what Neovim's own LSP client received and did
-- into a JSON file for the Rust test to check. Paths come from the environment:
-- BANKLINT_SNIPPET (the snippet, cut from README.md), BANKLINT_FIXTURE (the file to open),
-- BANKLINT_OUT (where the record goes).
local out = { steps = {} }
local function finish()
  local f = assert(io.open(os.getenv("BANKLINT_OUT"), "w"))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end
local ok, err = pcall(function()
  vim.cmd("filetype on") -- `-u NONE` leaves filetype detection off
  dofile(os.getenv("BANKLINT_SNIPPET"))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("BANKLINT_FIXTURE")))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype

  local function diagnostics()
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      table.insert(list, {
        lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
        severity = d.severity, code = d.code, source = d.source, message = d.message,
      })
    end
    return list
  end

  -- 1. The diagnostics of the file as opened.
  table.insert(out.steps, "open")
  out.received = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.opened = diagnostics()
  if #out.opened == 0 then return end
  local first = out.opened[1]
  local uri = vim.uri_from_bufnr(buf)

  -- 2. Hover on the first diagnostic's access.
  table.insert(out.steps, "hover")
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = uri },
    position = { line = first.lnum, character = first.col + 1 },
  }, 10000)
  for _, response in pairs(hover or {}) do
    if response.result then out.hover = response.result.contents.value end
  end

  -- 3. The code actions there; the preferred one applied through Neovim's own edit code.
  table.insert(out.steps, "code actions")
  local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = {
      start = { line = first.lnum, character = first.col },
      ["end"] = { line = first.end_lnum, character = first.end_col },
    },
    context = { diagnostics = {} },
  }, 10000)
  out.actions = {}
  local preferred
  for _, response in pairs(actions or {}) do
    for _, action in ipairs(response.result or {}) do
      table.insert(out.actions, action.title)
      if action.isPreferred then preferred = action end
    end
  end
  if not preferred then return end
  table.insert(out.steps, "apply")
  vim.lsp.util.apply_workspace_edit(preferred.edit, "utf-16")
  out.edited_lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

  -- 4. The client sends the change; the diagnostics it then receives.
  out.cleared = vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
  out.after_fix = diagnostics()
  out.modified = vim.bo[buf].modified
end)
if not ok then out.error = tostring(err) end
finish()
