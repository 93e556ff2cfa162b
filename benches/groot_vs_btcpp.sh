#!/usr/bin/env bash
# Groot XML import/export time against BehaviorTree.CPP's own XML load time on the same tree.
# BehaviorTree.CPP: `btcpp_oracle bench`'s `create_ms` (createTreeFromText: parse and
# instantiate) on `affect gen-tree --size 10000 --seed 1`. affect: `cargo bench --bench groot`.
# Usage: benches/groot_vs_btcpp.sh   (from the workspace; installs the oracle if missing:
# tools/btcpp-oracle/setup.sh, into .tools/btcpp)
set -euo pipefail
cd "$(dirname "$0")/.."
ORACLE=.tools/btcpp/bin/btcpp_oracle
[ -x "$ORACLE" ] || bash tools/btcpp-oracle/setup.sh .tools/btcpp
cargo build --release --quiet --bin affect
AFFECT=target/release/affect
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$AFFECT" gen-tree --size 10000 --seed 1 -o "$TMP/t.xml"
# shellcheck disable=SC2046
"$ORACLE" bench "$TMP/t.xml" --seconds 1 $("$AFFECT" gen-tree --size 10000 --seed 1 --bb-args) >"$TMP/b.json"
python3 - "$TMP/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
c = b["create_ms"]
print(f"BehaviorTree.CPP {b['btcpp']} load (create_ms) of {b['nodes']} nodes: "
      f"min {c['min']:.2f} / median {c['median']:.2f} / max {c['max']:.2f} ms")
PY
cargo bench --bench groot -- gen-tree-10000 2>/dev/null | grep -E "^gen-tree|time:" | paste - - | sed 's/  */ /g'
