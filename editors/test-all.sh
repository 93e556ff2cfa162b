#!/usr/bin/env bash
# Installs what the editor tests need, when it is missing, and runs every editor test suite:
#
#   1. VS Code: the TextMate grammar's scope assertions and tokenizer snapshots (npm test)
#   2. tree-sitter: generate, corpus and highlight tests, parse of every example (test.sh)
#   3. Vim: the syntax-group snapshot (test.sh)
#   3b. Neovim: docs/editors.md's language-server recipe, format-and-write through `affect lsp`
#       (editors/neovim/test.sh)
#   4. the keyword drift test of the root package (cargo test --test editor_keywords)
#
# Installs, each only when missing: the npm packages (npm ci in editors/vscode), the
# tree-sitter CLI (cargo install into .tools/cargo), Vim, and through apt-get a C compiler or
# Node.js when there is none. Works from a clean clone. Exits non-zero when anything failed.
#
#   editors/test-all.sh                  install and test
#   UPDATE_SNAPSHOTS=1 editors/test-all.sh   also rewrite the VS Code and Vim snapshots
#   SKIP_CARGO=1 editors/test-all.sh     leave out the cargo drift test (step 4)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
tree_sitter_version="${TREE_SITTER_CLI_VERSION:-0.27.1}"
tools="$root/.tools/cargo"

log() { printf '\n=== %s\n' "$*"; }

apt_updated=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1 || [[ "$(id -u)" != 0 ]]; then
    echo "test-all: cannot install $* (needs apt-get as root); install it by hand" >&2
    return 1
  fi
  if ((apt_updated == 0)); then
    apt-get update -qq >/dev/null
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# ------------------------------------------------------------------ installs

install_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    log "installing Node.js and npm"
    apt_install nodejs npm
  fi
}

install_npm_packages() {
  local dir="$here/vscode"
  # npm ci when node_modules is missing or older than the lock file.
  if [[ ! -f "$dir/node_modules/.package-lock.json" || "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]]; then
    log "npm ci in editors/vscode"
    (cd "$dir" && npm ci --no-audit --no-fund)
  fi
}

install_c_compiler() {
  if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
    log "installing a C compiler (tree-sitter test compiles the parser)"
    apt_install gcc libc6-dev
  fi
}

install_tree_sitter() {
  local bin="$tools/bin/tree-sitter"
  if [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -qF "tree-sitter $tree_sitter_version"; then
    return
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    echo "test-all: cargo is needed to install the tree-sitter CLI" >&2
    return 1
  fi
  log "cargo install tree-sitter-cli $tree_sitter_version into ${tools#"$root"/} (takes a few minutes)"
  cargo install tree-sitter-cli --version "$tree_sitter_version" --locked --root "$tools"
}

install_vim() {
  if ! command -v vim >/dev/null 2>&1 || ! vim --version 2>/dev/null | grep -q '+syntax'; then
    log "installing vim-nox"
    apt_install vim-nox
  fi
}

# ------------------------------------------------------------------ tests

results=()
failed=0
passed=0
suite() {
  local name="$1"
  shift
  log "$name"
  if "$@"; then
    results+=("ok   $name")
    passed=$((passed + 1))
  else
    results+=("FAIL $name")
    failed=$((failed + 1))
  fi
}

vscode_tests() {
  install_node && install_npm_packages || return 1
  (cd "$here/vscode" && npm test)
}

tree_sitter_tests() {
  # `tree-sitter generate` runs Node.js on grammar.js; `tree-sitter test` compiles C.
  install_node && install_c_compiler && install_tree_sitter || return 1
  "$here/tree-sitter-affect/test.sh"
}

vim_tests() {
  install_vim || return 1
  "$here/vim/test.sh"
}

neovim_tests() {
  if ! command -v nvim >/dev/null 2>&1; then
    log "installing neovim"
    apt_install neovim || return 1
  fi
  "$here/neovim/test.sh"
}

drift_test() {
  (cd "$root" && cargo test --test editor_keywords)
}

suite "VS Code TextMate grammar (editors/vscode: npm test)" vscode_tests
suite "tree-sitter grammar (editors/tree-sitter-affect/test.sh)" tree_sitter_tests
suite "Vim syntax (editors/vim/test.sh)" vim_tests
suite "Neovim language-server recipe (editors/neovim/test.sh)" neovim_tests
if [[ "${SKIP_CARGO:-}" =~ ^(1|true|yes)$ ]]; then
  results+=("skip keyword drift test (SKIP_CARGO)")
else
  suite "keyword drift test (cargo test --test editor_keywords)" drift_test
fi

log "editor test suites"
printf '%s\n' "${results[@]}"
echo "editors: $passed passed, $failed failed"
((failed == 0))
