#!/usr/bin/env bash
# The Python clients the live-view tests use, in their own venv (idempotent):
#   btview (PyPI), a terminal monitor for BehaviorTree.CPP's Groot2Publisher, and
#   pyzmq + msgpack for tests/live/groot2_client.py.
# Usage: tests/live/setup.sh [DIR]   (default .tools/live)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${1:-$root/.tools/live}"
want="btview==0.2.0 pyzmq==27.3.0 msgpack==1.2.4"
stamp="$dir/.installed"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$dir/bin/btview" ]]; then
  exit 0
fi
"${PYTHON:-python3}" -m venv "$dir"
# shellcheck disable=SC2086
"$dir/bin/pip" install --quiet --disable-pip-version-check $want
echo "$want" >"$stamp"
