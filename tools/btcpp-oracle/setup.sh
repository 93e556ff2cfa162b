#!/usr/bin/env bash
# tools/btcpp-oracle/setup.sh [DIR]: installs the project's BehaviorTree.CPP 4.8.2 oracle into
# DIR (default .tools/btcpp, relative to the repository root). Idempotent: a second run only
# checks what is there (well under a second).
#
# BehaviorTree.CPP is never compiled. The PyPI package behaviortreepy 0.1.4 ships it:
#   - its manylinux wheel holds the compiled library (the extension module exports every BT::
#     symbol), installed with pip into a venv at DIR;
#   - its sdist holds the matching headers. pip can only download an sdist after asking its
#     build backend (scikit-build-core) for metadata, so the backend is installed into a
#     scratch directory and told not to look for CMake; nothing is built. The sdist's sha256
#     is checked and only the headers are kept.
# oracle.cpp (beside this script) is then compiled against those headers and linked to the
# wheel's library with a relative rpath, so DIR/bin/btcpp_oracle runs from anywhere.
#
# Needs: Linux, python3 (>= 3.9, with venv), g++ (C++17), nm, tar, and pip access to the
# package index (pip's own configuration is used; no host is named here).
# Environment: PYTHON (python3), CXX (g++), FORCE=1 to recompile the oracle.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${1:-$repo/.tools/btcpp}"
python="${PYTHON:-python3}"
cxx="${CXX:-g++}"

readonly WHEEL_PKG="behaviortreepy"
readonly WHEEL_VERSION="0.1.4"
readonly LIB_VERSION="4.8.2"
readonly SDIST_FILE="$WHEEL_PKG-$WHEEL_VERSION.tar.gz"
readonly SDIST_SHA256="a312b6bc71d5da8b97b684fddd640337c509e095fb82bbfd934553523d30d7e6"
readonly BACKEND="scikit-build-core==1.1.2"
pip_quiet=(--disable-pip-version-check --no-input --progress-bar off -q)

note() { printf 'btcpp-oracle setup: %s\n' "$*" >&2; }
fail() {
  printf 'btcpp-oracle setup: error: %s\n' "$*" >&2
  exit 1
}
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 is missing ($2)"; }

scratch=""
trap '[[ -z "$scratch" ]] || rm -rf "$scratch"' EXIT

[[ "$(uname -s)" == Linux ]] || fail "Linux only: the library comes from a manylinux wheel"
need "$python" "Python 3.9 or newer, or set PYTHON"
need "$cxx" "a C++17 compiler, or set CXX (Debian: apt-get install g++)"
need nm "binutils"
need tar "tar"
"$python" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' 2>/dev/null ||
  fail "$python must be 3.9 or newer and able to make venvs (Debian: apt-get install python3-venv)"

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
py="$dir/bin/python"
share="$dir/share/btcpp-oracle"
mkdir -p "$share"

sha256() { "$py" -c 'import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; }

# 1. The venv and the wheel (the library).
if ! "$py" -c '' 2>/dev/null; then
  note "making a Python venv in $dir"
  "$python" -m venv "$dir" || fail "$python -m venv $dir failed"
fi
installed="$("$py" -c "import importlib.metadata as m; print(m.version('$WHEEL_PKG'))" 2>/dev/null || true)"
if [[ "$installed" != "$WHEEL_VERSION" ]]; then
  note "installing the $WHEEL_PKG $WHEEL_VERSION wheel (BehaviorTree.CPP $LIB_VERSION, prebuilt) into $dir"
  "$py" -m pip install "${pip_quiet[@]}" --only-binary=:all: "$WHEEL_PKG==$WHEEL_VERSION" ||
    fail "pip could not install the $WHEEL_PKG $WHEEL_VERSION wheel"
fi
moddir="$("$py" -c "import os, $WHEEL_PKG as m; print(os.path.dirname(os.path.realpath(m.__file__)))")" ||
  fail "$WHEEL_PKG does not import"
module="$(find "$moddir" -maxdepth 1 -name "_$WHEEL_PKG*.so" | head -n 1)"
[[ -f "$module" ]] || fail "no compiled module in $moddir"
bundled="$(dirname "$moddir")/$WHEEL_PKG.libs"

# 2. The sdist (for the headers only).
sdist="$share/$SDIST_FILE"
if [[ ! -f "$sdist" || "$(sha256 "$sdist")" != "$SDIST_SHA256" ]]; then
  note "downloading the $WHEEL_PKG $WHEEL_VERSION sdist for its headers (nothing is compiled)"
  scratch="$(mktemp -d)"
  "$py" -m pip install "${pip_quiet[@]}" --only-binary=:all: --target "$scratch/backend" "$BACKEND" ||
    fail "pip could not install $BACKEND (used only to read the sdist's metadata)"
  PYTHONPATH="$scratch/backend" SKBUILD_WHEEL_CMAKE=false \
    "$py" -m pip download "${pip_quiet[@]}" --no-deps --no-binary=:all: --no-build-isolation \
    -d "$scratch/sdist" "$WHEEL_PKG==$WHEEL_VERSION" ||
    fail "pip could not download the $WHEEL_PKG $WHEEL_VERSION sdist"
  got="$(sha256 "$scratch/sdist/$SDIST_FILE")" || fail "pip gave no $SDIST_FILE"
  [[ "$got" == "$SDIST_SHA256" ]] || fail "$SDIST_FILE has sha256 $got, not $SDIST_SHA256"
  mv "$scratch/sdist/$SDIST_FILE" "$sdist"
fi

# 3. The headers, checked to be the library's version.
headers="$share/btcpp-$LIB_VERSION"
if [[ "$(cat "$headers/.sdist-sha256" 2>/dev/null)" != "$SDIST_SHA256" ]]; then
  note "unpacking the BehaviorTree.CPP $LIB_VERSION headers"
  rm -rf "$headers" "$headers.part"
  mkdir -p "$headers.part"
  inner="$WHEEL_PKG-$WHEEL_VERSION/BehaviorTree.CPP"
  tar -xzf "$sdist" -C "$headers.part" --strip-components=2 \
    "$inner/include" "$inner/3rdparty/tinyxml2/tinyxml2.h" "$inner/package.xml" "$inner/LICENSE" ||
    fail "the sdist has no headers where expected"
  grep -q "<version>$LIB_VERSION</version>" "$headers.part/package.xml" ||
    fail "the sdist's headers are not BehaviorTree.CPP $LIB_VERSION"
  echo "$SDIST_SHA256" >"$headers.part/.sdist-sha256"
  mv "$headers.part" "$headers"
fi

# 4. The oracle, which registers affect's own nodes with cpp/affect_bt.hpp as docs/groot.md
# tells a C++ user to. The wheel is built with the old std::string ABI, hence the macro. The module
# is a CPython extension that references Python's C API, which the oracle never calls: each
# such symbol gets a definition that aborts, so nothing links libpython.
oracle="$dir/bin/btcpp_oracle"
rpath="$("$py" -c 'import os,sys;print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$moddir" "$dir/bin")"
flags=(-std=c++17 -O2 -pthread -D_GLIBCXX_USE_CXX11_ABI=0
  -isystem "$headers/include" -isystem "$headers/3rdparty/tinyxml2" -I "$repo/cpp")
link=(-L"$moddir" -l:"$(basename "$module")" "-Wl,-rpath,\$ORIGIN/$rpath" "-Wl,-rpath-link,$bundled")
stamp="$share/oracle.stamp"
want="$(cat "$here"/*.cpp "$repo"/cpp/*.hpp 2>/dev/null | "$py" -c 'import hashlib,sys;print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())') $("$cxx" --version | head -n 1) ${flags[*]} ${link[*]} $(sha256 "$module")"
if [[ "${FORCE:-0}" == 1 || ! -x "$oracle" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  note "compiling $oracle (about 15 s)"
  stubs="$share/python_stubs.cpp"
  {
    echo '// Generated by tools/btcpp-oracle/setup.sh: the Python C API the module references.'
    echo '#include <cstdio>'
    echo '#include <cstdlib>'
    echo 'extern "C" {'
    echo 'static void btcpp_oracle_no_python(const char* s) { std::fprintf(stderr, "btcpp_oracle: Python symbol %s called\n", s); std::abort(); }'
    nm -D --undefined-only "$module" | awk '{print $NF}' | sed 's/@.*//' | grep -E '^_?Py' | sort -u |
      while read -r sym; do echo "void $sym() { btcpp_oracle_no_python(\"$sym\"); }"; done
    echo '}'
  } >"$stubs"
  "$cxx" "${flags[@]}" "$here"/*.cpp "$stubs" -o "$oracle.part" "${link[@]}" 2>"$share/compile.log" || {
    cat "$share/compile.log" >&2
    fail "compiling the oracle failed"
  }
  mv "$oracle.part" "$oracle"
  echo "$want" >"$stamp"
fi

# 5. It runs, and it is the library we asked for.
version="$("$oracle" version 2>&1)" || fail "the oracle does not run: $version"
[[ "$version" == "$LIB_VERSION" ]] || fail "the oracle reports BehaviorTree.CPP $version, not $LIB_VERSION"
