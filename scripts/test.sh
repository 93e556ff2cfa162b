#!/usr/bin/env bash
# The one test command (the README's, and what .ci/run calls). It installs what the tests
# need, each only when missing, then runs every suite:
#
#   1. the real BehaviorTree.CPP 4.8 oracle (../shared/tools/btcpp/setup.sh into .tools/btcpp)
#   2. formatting and lints of the Rust code (cargo fmt --check, cargo clippy -D warnings)
#   3. every Rust test of the workspace (unit, snapshot, property, equivalence with
#      BehaviorTree.CPP, end-to-end through the binary)
#   4. `affect check` and `affect fmt --check` over the examples and passing fixtures
#   5. the editor suites: VS Code grammar, tree-sitter, Vim (editors/test-all.sh installs
#      npm packages, the tree-sitter CLI and Vim when they are missing)
#
# Environment: AFFECT_SHARED (default ../shared), SKIP_EDITORS=1, SKIP_LINT=1.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
shared="${AFFECT_SHARED:-$(cd "$root/.." && pwd)/shared}"
export AFFECT_SHARED="$shared"
failed=()

step() { printf '\n=== %s\n' "$*"; }
run() {
  local name="$1"
  shift
  if ! "$@"; then
    failed+=("$name")
  fi
}

step "BehaviorTree.CPP oracle"
if [[ ! -x .tools/btcpp/bin/btcpp_oracle ]]; then
  "$shared/tools/btcpp/setup.sh" .tools/btcpp
fi

step "live-view clients (btview, pyzmq) and headless Chromium"
# tests/groot2_live.rs talks to `affect run --groot2` with btview and a pyzmq script from this
# venv; tests/html_report.rs opens reports in Debian's chromium. Each installs only if missing.
tests/live/setup.sh .tools/live
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi

if [[ "${SKIP_LINT:-0}" != 1 ]]; then
  step "cargo fmt --check"
  run fmt cargo fmt --all -- --check
  step "cargo clippy"
  run clippy cargo clippy --workspace --all-targets --locked -- -D warnings
fi

step "cargo test"
run cargo-test cargo test --workspace --locked

step "affect check and fmt --check over the examples"
run examples-check cargo run -q --locked -- check examples/*.affect
run examples-fmt cargo run -q --locked -- fmt --check examples/*.affect tests/fixtures/syntax/pass/*.affect

if [[ "${SKIP_EDITORS:-0}" != 1 ]]; then
  step "editor suites"
  run editors env SKIP_CARGO=1 editors/test-all.sh
fi

if ((${#failed[@]})); then
  printf '\nFAILED: %s\n' "${failed[*]}" >&2
  exit 1
fi
printf '\nall test suites passed\n'
