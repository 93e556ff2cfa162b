#!/usr/bin/env python3
"""Writes `startup.order`: the functions a start of `affect` runs, which the linker places side
by side in release builds for x86_64 Linux (see `build.rs`).

Usage: scripts/startup_order.py [--binary PATH] [--out PATH] [--check]

Runs a release `affect` (built here first, as `scripts/compare.py` builds it, unless `--binary`
names one) under valgrind's callgrind and lists every function it executes, in this order:

  1. what `affect bench` times on a 100-node benchmark tree: reading the file to the first
     tick (and the ticks after it), on the interpreter;
  2. the rest of that process: the command line, the report;
  3. a start on the default, tiered engine (Cranelift compiling on its own thread), `affect run`
     and `affect check` of the README's example;

each group sorted by name (where in its group a function lies matters little, and so the list
made again differs only by the functions that came or went).

A function's name carries a hash that changes when its crate is built with other features,
other dependency versions or another compiler. The linker skips names it does not find, so a
stale list still builds and only places fewer functions: make it again after such changes.
`--check` says how many of the list's names a binary has (`scripts/compare.py` prints it).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = os.path.join(ROOT, "startup.order")
EXAMPLE = os.path.join(ROOT, "examples", "navigator.affect")


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"startup_order.py: {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def executed(tmp, name, args, toggle=None):
    """The functions a run executes (under `toggle` only, if given), in the order callgrind's
    profile first names them."""
    out = os.path.join(tmp, f"{name}.callgrind")
    cmd = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}"]
    if toggle:
        cmd += ["--collect-atstart=no", f"--toggle-collect={toggle}"]
    run(cmd + args, env=dict(os.environ, AFFECT_CODE_CACHE=os.path.join(tmp, "cache")))
    seen, names = set(), []
    with open(out) as f:
        for line in f:
            m = re.match(r"^c?fn=\(\d+\) (\S+)", line)
            if m and m.group(1) not in seen:
                seen.add(m.group(1))
                names.append(m.group(1))
    return names


def symbols(binary):
    """The binary's function symbols, as the linker names them (mangled)."""
    out = run(["nm", "--defined-only", binary])
    return {p[2] for p in (l.split() for l in out.splitlines()) if len(p) == 3 and p[1] in "tTwW"}


def coverage(binary, order=ORDER):
    """(names of `order` the binary has, names in `order`)."""
    with open(order) as f:
        listed = [l.strip() for l in f if l.strip()]
    have = symbols(binary)
    return sum(1 for s in listed if s in have), len(listed)


def build():
    """The release binary, built as the list is made from it and as compare.py measures it
    (which calls this): without the `net` feature, which benchmarks need not build (Zenoh)."""
    run(["cargo", "build", "--release", "--quiet", "--no-default-features", "--bin", "affect"],
        cwd=ROOT)
    return os.path.join(ROOT, "target", "release", "affect")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", help="the release `affect` to profile (default: build one)")
    ap.add_argument("--out", default=ORDER, help="where to write the list")
    ap.add_argument("--check", action="store_true",
                    help="only say how many names of the list the binary has")
    a = ap.parse_args()
    if a.binary is None:
        print("startup_order.py: building affect in release mode (cargo) ...", file=sys.stderr)
    binary = a.binary or build()
    if a.check:
        found, listed = coverage(binary, a.out)
        print(f"{found} of {listed} names in {a.out} are in {binary}")
        return
    if shutil.which("valgrind") is None:
        sys.exit("startup_order.py: needs valgrind (Debian: apt-get install valgrind)")
    have = symbols(binary)
    timed = next((s for s in have if s.startswith("_ZN6affect8commands5bench3run17h")), None)
    if timed is None:
        sys.exit(f"startup_order.py: {binary} has no `affect::commands::bench::run`")
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "bench.xml")
        run([binary, "gen-tree", "--size", "100", "--seed", "1", "-o", xml])
        bb = run([binary, "gen-tree", "--size", "100", "--seed", "1", "--bb-args"]).split()
        bench = [binary, "bench", xml, "--ticks", "20", "--repeats", "1", *bb]
        interp = bench + ["--engine", "interp", "--no-code-cache"]
        lists = [
            executed(tmp, "start", interp, toggle=timed),
            executed(tmp, "process", interp),
            executed(tmp, "tiered", bench + ["--engine", "tiered"]),
            executed(tmp, "run", [binary, "run", EXAMPLE]),
            executed(tmp, "check", [binary, "check", EXAMPLE]),
        ]
    order, seen = [], set()
    for names in lists:
        # Only the binary's own functions (callgrind also names the C library's), new to the
        # list; sorted within each group, where their order matters little, so that making
        # the list again changes only the lines of functions that came or went.
        new = sorted({s for s in names if s in have and s not in seen})
        seen.update(new)
        order += new
    with open(a.out + ".tmp", "w") as f:
        f.write("".join(s + "\n" for s in order))
    os.replace(a.out + ".tmp", a.out)
    print(f"startup_order.py: {len(order)} functions in {a.out}")


if __name__ == "__main__":
    main()
