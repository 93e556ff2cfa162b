#!/usr/bin/env bash
# Exploratory fuzzing: every cargo-fuzz target (fuzz/fuzz_targets) for SECONDS each, starting
# from the committed corpora (fuzz/corpus). New inputs that find new paths go to fuzz/work
# (not committed); with MERGE=1 they are merged, minimised, into the committed corpora.
#
#   scripts/fuzz.sh 60                # all targets, one minute each
#   scripts/fuzz.sh 300 check fmt     # some targets
#
# Every crash, timeout or out-of-memory input is copied into the target's committed corpus
# (named by its SHA-1, as libFuzzer names them) and listed; the script then exits 1. The test
# command replays the committed corpora (tests/fuzz_corpus.rs), so a finding stays a failing
# test until it is fixed. Installs cargo-fuzz when it is missing; runs on the stable toolchain
# (RUSTC_BOOTSTRAP=1 lets it take libFuzzer's flags). SANITIZER=address turns on ASan.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
secs="${1:-60}"
shift || true
all=(parse check fmt import_xml memory_file lsp_messages)
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")

corpus_of() {
  case "$1" in
    parse | check | fmt) echo affect ;;
    lsp_messages) echo lsp ;;
    *) echo "$1" ;;
  esac
}

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1

findings=()
for t in "${targets[@]}"; do
  corpus="fuzz/corpus/$(corpus_of "$t")"
  work="fuzz/work/$t"
  artifacts="fuzz/artifacts/$t"
  mkdir -p "$work" "$artifacts" "$corpus"
  extra=()
  [[ "$t" == import_xml ]] && extra+=(-dict=fuzz/xml.dict)
  printf '\n=== fuzz %s for %ss (corpus %s)\n' "$t" "$secs" "$corpus"
  set +e
  cargo fuzz run --fuzz-dir fuzz --sanitizer "${SANITIZER:-none}" "$t" "$work" "$corpus" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=200000 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${extra[@]}"
  status=$?
  set -e
  for f in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/slow-unit-*; do
    [[ -f "$f" ]] || continue
    sum="$(sha1sum "$f" | cut -d' ' -f1)"
    cp "$f" "$corpus/$sum"
    findings+=("$t: $(basename "$f") -> $corpus/$sum")
    rm "$f"
  done
  if ((status != 0)) && ((${#findings[@]} == 0)); then
    findings+=("$t: cargo fuzz exited $status without an artifact (see above)")
  fi
  if [[ "${MERGE:-0}" == 1 ]]; then
    cargo fuzz run --fuzz-dir fuzz --sanitizer "${SANITIZER:-none}" "$t" "$corpus" "$work" -- -merge=1
  fi
done

if ((${#findings[@]})); then
  printf '\nfindings (now in the committed corpora; replayed by tests/fuzz_corpus.rs):\n' >&2
  printf '  %s\n' "${findings[@]}" >&2
  exit 1
fi
printf '\nno findings\n'
