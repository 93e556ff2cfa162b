#!/usr/bin/env bash
# Tests the Vim syntax: runs Vim headless on tests/fixtures/syntax/pass/all_constructs.affect
# and on test/variants_worlds_akr.affect (enum variants after `::`, world verbs, AKR values)
# with only editors/vim on the runtimepath, dumps the highlight group of every token and
# compares each dump with its snapshot (test/navigator.syntax.txt,
# test/variants_worlds_akr.syntax.txt). Also checks that the file type is detected and that
# the ftplugin sets the comment settings.
#
#   editors/vim/test.sh                     compare
#   UPDATE_SNAPSHOTS=1 editors/vim/test.sh  write the snapshot anew
#
# Installs Vim (Debian's vim-nox) when no Vim with +syntax is found and apt-get can be used.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source_file="$root/tests/fixtures/syntax/pass/all_constructs.affect"
snapshot="$here/test/navigator.syntax.txt"

have_vim() { command -v vim >/dev/null 2>&1 && vim --version 2>/dev/null | grep -q '+syntax'; }
if ! have_vim; then
  if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
    echo "vim test: installing vim-nox"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq vim-nox >/dev/null
  fi
fi
if ! have_vim; then
  echo "vim test: no vim with +syntax (install vim or vim-nox)" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
info="$work/info.txt"

# Dumps the syntax groups of $1 into $2 (and the buffer's settings into $info).
# -N -u NONE -i NONE: no vimrc, no viminfo, no plugins; -es: silent Ex mode, no terminal.
dump_syntax() {
  vim -N -u NONE -i NONE -es \
    -c "set runtimepath^=$here" \
    -c 'filetype plugin on' \
    -c 'syntax on' \
    -c "edit $1" \
    -c "source $here/test/dump.vim" \
    -c "call writefile(['filetype=' . &filetype, 'commentstring=' . &commentstring, 'syntax=' . get(b:, 'current_syntax', '')], '$info')" \
    -c "call DumpSyntax('$2')" \
    -c 'qall!' </dev/null || true
}

failed=0
passed=0
expect() {
  if grep -qxF "$1" "$info" 2>/dev/null; then
    passed=$((passed + 1))
  else
    echo "FAIL expected '$1' in: $(tr '\n' ' ' <"$info" 2>/dev/null)"
    failed=$((failed + 1))
  fi
}

# Compares the dump of $1 with the snapshot $2.
compare() {
  local source="$1" snapshot="$2" dump="$work/dump.txt"
  rm -f "$dump"
  dump_syntax "$source" "$dump"
  if [[ ! -s "$dump" ]]; then
    echo "FAIL vim wrote no syntax dump of ${source#"$root"/}"
    failed=$((failed + 1))
  elif [[ "${UPDATE_SNAPSHOTS:-}" =~ ^(1|true|yes)$ ]]; then
    cp "$dump" "$snapshot"
    echo "updated ${snapshot#"$root"/}"
    passed=$((passed + 1))
  elif [[ ! -f "$snapshot" ]]; then
    echo "FAIL no snapshot ${snapshot#"$root"/} (run with UPDATE_SNAPSHOTS=1)"
    failed=$((failed + 1))
  elif diff -u "$snapshot" "$dump" >"$work/diff.txt"; then
    echo "ok   syntax groups of ${source#"$root"/} match ${snapshot#"$root"/}"
    passed=$((passed + 1))
  else
    echo "FAIL syntax groups differ from ${snapshot#"$root"/} (UPDATE_SNAPSHOTS=1 to accept):"
    head -40 "$work/diff.txt"
    failed=$((failed + 1))
  fi
}

compare "$source_file" "$snapshot"
expect 'filetype=affect'
expect 'commentstring=// %s'
expect 'syntax=affect'
compare "$here/test/variants_worlds_akr.affect" "$here/test/variants_worlds_akr.syntax.txt"

echo "vim: $passed passed, $failed failed"
((failed == 0))
