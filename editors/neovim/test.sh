#!/usr/bin/env bash
# Tests the Neovim language-server recipe of docs/editors.md end to end: headless Neovim with
# the recipe for its version as init.lua (0.10 and newer: the first recipe; 0.7 to 0.9: the
# older-version one) opens a file, attaches `affect lsp`, formats through the server and
# writes the file, which must then be exactly what `affect fmt` writes. Four files: LF and
# CRLF line endings, each with and without a final newline (Neovim keeps that newline outside
# the buffer and adds it on write, so a newline added by the server's edit became a blank
# last line).
#
# Needs Neovim 0.7 or newer (Debian 12 ships 0.7.2; installed with apt-get when missing) and
# the `affect` binary: $AFFECT_BIN, else target/debug/affect (built when missing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if ! command -v nvim >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
    echo "neovim test: installing neovim"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
  fi
fi
if ! command -v nvim >/dev/null 2>&1; then
  echo "neovim test: no nvim (install neovim)" >&2
  exit 2
fi

affect="${AFFECT_BIN:-}"
if [[ -z "$affect" ]]; then
  target_dir=$(cd "$root" && cargo metadata -q --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
  affect="$target_dir/debug/affect"
  if [[ ! -x "$affect" ]]; then
    (cd "$root" && cargo build -q --bin affect)
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$affect" "$work/bin/affect"
export PATH="$work/bin:$PATH"

version="$(nvim --version | head -1)"
minor="$(sed -E 's/^NVIM v0\.([0-9]+).*/\1/' <<<"$version")"
if [[ "$version" =~ ^NVIM\ v0\. ]] && ((minor < 10)); then
  recipe="**Neovim 0.7 to 0.9**"
else
  recipe="**Neovim 0.10 or newer**"
fi
# The first ```lua block after the recipe's heading, as the page gives it.
python3 - "$root/docs/editors.md" "$recipe" "$work/init.lua" <<'PY'
import re, sys
page, heading, out = sys.argv[1:]
text = open(page, encoding="utf-8").read()
start = text.index(heading)
block = re.search(r"```lua\n(.*?)```", text[start:], re.S)
open(out, "w", encoding="utf-8").write(block.group(1))
PY
echo "neovim: $version, the recipe under $recipe"

cat >"$work/format.lua" <<'LUA'
-- Waits for the client, formats through it, writes the file and quits (status 3: no client).
local attached = vim.wait(10000, function()
  return #vim.lsp.buf_get_clients(0) > 0
end, 50)
if not attached then
  io.stderr:write("the affect language server did not attach\n")
  vim.cmd("cquit 3")
end
if vim.lsp.buf.format then
  vim.lsp.buf.format({ timeout_ms = 5000 })
else
  vim.lsp.buf.formatting_sync(nil, 5000)
end
vim.cmd("write")
vim.cmd("qall")
LUA

failed=0
passed=0
check() {
  local name="$1" text="$2"
  local file="$work/$name.affect"
  printf '%b' "$text" >"$file"
  printf '%b' "$text" >"$work/$name.orig.affect"
  "$affect" fmt --stdout "$work/$name.orig.affect" >"$work/$name.expected"
  if ! timeout 60 nvim --headless -u "$work/init.lua" -c "luafile $work/format.lua" "$file" \
    </dev/null >"$work/$name.log" 2>&1; then
    echo "FAIL $name: nvim failed: $(cat "$work/$name.log")"
    failed=$((failed + 1))
  elif cmp -s "$file" "$work/$name.expected"; then
    echo "ok   $name: format and write give affect fmt's text"
    passed=$((passed + 1))
  else
    echo "FAIL $name: the written file is not affect fmt's text"
    diff <(od -c "$work/$name.expected") <(od -c "$file") | head -10
    failed=$((failed + 1))
  fi
}
program='tree  T {sequence{succeed fail}}'
check lf_final_newline "$program\n"
check lf_no_final_newline "$program"
check crlf_final_newline 'tree  T {\r\nsequence{succeed fail}}\r\n'
check crlf_no_final_newline 'tree  T {\r\nsequence{succeed fail}}'

echo "neovim: $passed passed, $failed failed"
((failed == 0))
