#!/usr/bin/env bash
# The one test command (the README's, and what .ci/run calls). It installs what the tests
# need, each only when missing, then runs every suite:
#
#   1. the real BehaviorTree.CPP 4.8 oracle (tools/btcpp-oracle/setup.sh into .tools/btcpp)
#   2. formatting and lints of the Rust code (cargo fmt --check, cargo clippy -D warnings)
#   3. every Rust test of the workspace (unit, snapshot, property, equivalence with
#      BehaviorTree.CPP, end-to-end through the binary; the hardware path through rppal and
#      the I2C shim; examples/custom-node; the Romi firmware in simavr, whose tools gcc-avr,
#      avr-libc and libsimavr-dev it installs when missing)
#   3b. the Pi cross builds (scripts/cross.sh): aarch64 and armv7 under qemu-user; a
#      "did not run" line when the cross tools cannot be installed (SKIP_CROSS=1 skips it)
#   4. the corpus suites: tests over the public Groot / BehaviorTree.CPP corpus, which is not
#      in the repository (AFFECT_CORPUS, default ../shared/corpus). They are #[ignore]d tests
#      with `corpus` in their names; with the corpus they run here, without it each is named
#      in a "did not run" line (never counted as passed)
#   5. `affect check` and `affect fmt --check` over the examples and passing fixtures
#   6. the editor suites: VS Code grammar, tree-sitter, Vim (editors/test-all.sh installs
#      npm packages, the tree-sitter CLI and Vim when they are missing)
#   7. the network: the build without the `net` feature, and Python on an affect team's
#      Zenoh network (the eclipse-zenoh, cryptography and pytest packages in the venv
#      .tools/netpy, made when missing)
#
# Every suite runs with TMPDIR set to a new empty folder, and a file the tests write into the
# checkout is a failure (see "Tests own their state" below).
#
# Environment: AFFECT_CORPUS (default ../shared/corpus), SKIP_EDITORS=1, SKIP_LINT=1,
# SKIP_CROSS=1, SKIP_NET=1.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
failed=()

# Each step's wall time and the disk left when it starts, printed again at the end (CI shows
# only the tail of the output): CI once ran out of disk in the cross builds, and its time budget
# is 60 minutes.
step_names=()
step_starts=()
step() {
  step_names+=("$*")
  step_starts+=("$SECONDS")
  printf '\n=== %s (%s s in; disk free: %s)\n' "$*" "$SECONDS" \
    "$(df -h --output=avail "$root" 2>/dev/null | tail -n 1 | tr -d ' ')"
}
step_times() {
  local i n=${#step_names[@]} end
  printf '\ntime per step (s), total %d s:\n' "$SECONDS"
  for ((i = 0; i < n; i++)); do
    end=$SECONDS
    ((i + 1 < n)) && end=${step_starts[i + 1]}
    printf '%6d  %s\n' $((end - step_starts[i])) "${step_names[i]}"
  done
}
run() {
  local name="$1"
  shift
  if ! "$@"; then
    failed+=("$name")
  fi
}

step "BehaviorTree.CPP oracle (tools/btcpp-oracle)"
tools/btcpp-oracle/setup.sh .tools/btcpp

step "live-view clients (btview, pyzmq) and headless Chromium"
# tests/groot2_live.rs talks to `affect run --groot2` with btview and a pyzmq script from this
# venv; tests/html_report.rs opens reports and tests/plot_render.rs renders --plot SVGs in
# Debian's chromium. Each installs only if missing.
tests/live/setup.sh .tools/live
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi

step "the Romi firmware's tools: gcc-avr, avr-libc, simavr's library"
# tests/firmware.rs builds firmware/ with avr-gcc and runs it in simavr; installed if missing.
if ! command -v avr-gcc >/dev/null 2>&1 || [[ ! -f /usr/lib/avr/include/avr/io.h ]] ||
  [[ ! -f /usr/include/simavr/sim_avr.h ]]; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-avr avr-libc libsimavr-dev >/dev/null
  fi
fi

# Tests own their state: the suites run with TMPDIR set to a new empty folder, so nothing an
# earlier run left in the temporary folder can make a test pass (each test makes its own
# folder in it: tests/support `scratch`, the tempfile crate; the `affect` runs of the tests
# keep their JIT code cache there too). It is removed at the end when every suite passed, and
# kept for a look when one failed. A file the tests write into the checkout (outside target/
# and .tools/) is a failure too: it would be there for the next run to find.
# CI builds everything once: the incremental caches (about half of target/, 6.9 of 13 GB
# measured) only cost disk and time there. A developer's own builds keep theirs.
export CARGO_INCREMENTAL=0
run_tmp="$(mktemp -d "${TMPDIR:-/tmp}/affect-test-run.XXXXXX")"
export TMPDIR="$run_tmp"
# Caches too (the JIT's code cache of every `affect` a test starts, tree-sitter's grammars):
# a test must not pass on code an earlier run compiled.
export XDG_CACHE_HOME="$run_tmp/cache"
written_marker="$run_tmp/.started"
touch "$written_marker"
sleep 1 # file times have a resolution: what the tests write is newer than the marker
echo "TMPDIR=$TMPDIR"

if [[ "${SKIP_LINT:-0}" != 1 ]]; then
  step "cargo fmt --check"
  run fmt cargo fmt --all -- --check
  step "cargo clippy"
  run clippy cargo clippy --workspace --all-targets --locked -- -D warnings
fi

step "cargo test"
run cargo-test cargo test --workspace --locked

# --- Pi cross builds (pi): aarch64 (JIT) and armv7 (interpreter) built and linted, the device
# tests and the navigator and waiter examples run under qemu-user with traces byte-identical to
# x86_64's, `--hardware` through rppal and the I2C shim. It installs the cross compilers and
# qemu-user when missing; exit 2 means it could not run (it says why), not that it passed.
step "Pi cross builds under qemu (scripts/cross.sh)"
if [[ "${SKIP_CROSS:-0}" == 1 ]]; then
  echo "did not run: the Pi cross builds, because SKIP_CROSS=1 (not counted as passed)"
else
  cross_status=0
  scripts/cross.sh || cross_status=$?
  case "$cross_status" in
    0) ;;
    2) echo "did not run: scripts/cross.sh (it said why above); not counted as passed" ;;
    *) failed+=(cross) ;;
  esac
fi

# --- corpus suites (xml-bridge): run with the public corpus, else say that they did not run.
corpus="${AFFECT_CORPUS:-$root/../shared/corpus}"
if [[ -f "$corpus/index.jsonl" ]]; then
  AFFECT_CORPUS="$(cd "$corpus" && pwd)"
  export AFFECT_CORPUS
  step "corpus suites (the public corpus at $AFFECT_CORPUS)"
  run corpus-suites cargo test --workspace --locked -- --ignored corpus
else
  step "corpus suites"
  # Every #[ignore]d test with `corpus` in its name, by test binary.
  cargo test --workspace --locked -- --ignored --list corpus 2>&1 |
    awk -v dir="$corpus" '
      /Running / { suite = $2; sub(/^.*\//, "", suite); sub(/\.rs$/, "", suite) }
      / test$/ { name = $1; sub(/:$/, "", name)
        printf "did not run: %s::%s, because the public corpus is not at %s (set AFFECT_CORPUS to run it)\n", suite, name, dir }'
fi

step "the tests wrote nothing into the checkout"
written=$(find . \( -path ./target -o -path ./.tools -o -path ./.git -o -path ./fuzz/target \
  -o -name node_modules \) -prune -o -type f -newer "$written_marker" -print | sort)
if [[ -n "$written" ]]; then
  echo "written into the checkout by the tests (a test must write only under its own folder):"
  echo "$written"
  failed+=(checkout-written)
else
  echo "nothing"
fi

step "affect check and fmt --check over the examples"
run examples-check cargo run -q --locked -- check examples/*.affect
run examples-fmt cargo run -q --locked -- fmt --check examples/*.affect tests/fixtures/syntax/pass/*.affect stdlib/*.affect

if [[ "${SKIP_NET:-0}" != 1 ]]; then
  step "network: affect without the net feature"
  run net-optional cargo check -q --locked -p affect --no-default-features
  step "network: Python talks to affect robots over Zenoh (tests/net)"
  netpy=.tools/netpy
  if ! "$netpy/bin/python" -c 'import zenoh, cryptography, pytest' 2>/dev/null; then
    python3 -m venv "$netpy"
    "$netpy/bin/pip" install -q eclipse-zenoh==1.10.2 cryptography pytest
  fi
  target_dir=$(cargo metadata -q --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
  run net-python env AFFECT_BIN="$target_dir/debug/affect" \
    "$netpy/bin/python" -m pytest -q -p no:cacheprovider tests/net
fi

if [[ "${SKIP_EDITORS:-0}" != 1 ]]; then
  step "editor suites"
  run editors env SKIP_CARGO=1 editors/test-all.sh
fi

step_times
if ((${#failed[@]})); then
  printf '\nFAILED: %s\n' "${failed[*]}" >&2
  printf "the tests' temporary files are kept in %s\n" "$run_tmp" >&2
  exit 1
fi
rm -rf "$run_tmp"
printf '\nall test suites passed\n'
