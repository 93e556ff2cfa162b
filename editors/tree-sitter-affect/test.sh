#!/usr/bin/env bash
# Tests the tree-sitter grammar: generates the parser from grammar.js, runs the corpus and
# highlight tests (`tree-sitter test`), then parses every examples/*.affect and
# tests/fixtures/syntax/pass/*.affect file and fails if any tree has an ERROR or MISSING node.
#
# Needs the tree-sitter CLI (0.25 or newer: the grammar uses reserved words) and a C compiler.
# editors/test-all.sh installs the CLI into .tools/cargo when it is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [[ -x "$root/.tools/cargo/bin/tree-sitter" ]]; then
  ts="$root/.tools/cargo/bin/tree-sitter"
elif command -v tree-sitter >/dev/null 2>&1; then
  ts="$(command -v tree-sitter)"
else
  echo "test.sh: the tree-sitter CLI is not installed." >&2
  echo "  cargo install tree-sitter-cli --locked --root \"$root/.tools/cargo\"  (or run editors/test-all.sh)" >&2
  exit 2
fi
echo "tree-sitter-affect: using $("$ts" --version) ($ts)"

# A private CLI configuration, so that nothing in ~/.config/tree-sitter changes the result.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parsers"
printf '{"parser-directories": ["%s"]}\n' "$work/parsers" > "$work/config.json"
export TREE_SITTER_DIR="$work"

cd "$here"
"$ts" generate
"$ts" test --config-path "$work/config.json"

shopt -s nullglob
files=("$root"/examples/*.affect "$root"/tests/fixtures/syntax/pass/*.affect)
passed=0
failed=0
for f in "${files[@]}"; do
  rel="${f#"$root"/}"
  if ! out="$("$ts" parse --config-path "$work/config.json" "$f" 2>&1)"; then
    :
  fi
  if grep -qE '\((ERROR|MISSING)' <<<"$out"; then
    echo "FAIL $rel"
    grep -nE '\((ERROR|MISSING)' <<<"$out" | head -5 | sed 's/^/    /'
    failed=$((failed + 1))
  else
    echo "ok   $rel"
    passed=$((passed + 1))
  fi
done
echo "tree-sitter parse of the example files:"
echo "parse: $passed passed, $failed failed"
if ((failed > 0 || passed == 0)); then
  exit 1
fi
