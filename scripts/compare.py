#!/usr/bin/env python3
"""compare.py: affect's JIT and interpreter against BehaviorTree.CPP 4.8 and py_trees, in one run.

    python3 scripts/compare.py [--sizes 100,1000,10000] [--seconds 3] [--out FILE.md]
                               [--startup-only] [--rounds 5] [--treegen PATH]
                               [--binary AFFECT] [--earlier AFFECT]

On a fresh machine it installs what it needs first, saying so before each step: the
BehaviorTree.CPP oracle (tools/btcpp-oracle/setup.sh: a Python venv in .tools/btcpp with the
behaviortreepy wheel, its sdist's headers, and the compiled bin/btcpp_oracle), py_trees (pip,
into the same venv) and the release build of `affect` (target/release). Then, for each size,
the benchmark tree of `affect gen-tree --size N --seed 1` is
  - ticked by `affect bench` (the XML imported) with the JIT and with the interpreter,
  - ticked by `btcpp_oracle bench` (BehaviorTree.CPP 4.8.2, single-threaded),
  - ticked by py_trees (scripts/bench_pytrees.py, the same tree built from the XML),
each for 7 repeats; every run's blackboard is checked against the generator's reference
(`affect gen-tree --check-bench`), and all four (and affect's tiered engine) are also run for
exactly the same number of ticks and must end with bit-identical blackboards. Start-up is
measured too: `first_tick_ms` of the default, tiered engine (reading the file to the end of
the first tick, with a cold code cache) next to BehaviorTree.CPP's XML load, when the JIT's
code was ready (cold and warm cache), and the start of `--engine jit` with a warm cache (its
first tick runs compiled code loaded from the cache); 11 starts each, medians. The first tick
and BehaviorTree.CPP's load are compared twice, like for like: each in a fresh process, and
each repeated inside one process (`affect bench --starts`, BehaviorTree.CPP's `create_ms`). The code cache
is a temporary directory (AFFECT_CODE_CACHE). The result is two markdown tables on stdout
(min / median / max ns per node tick, and ratios of medians; then start-up).

A third table compares restarts in one process on two tree shapes: gen-tree's and the kit's
`treegen.py` (../shared/tools/btcpp/treegen.py, or --treegen; the shape differs: other
controls at the top, longer scripts). For each shape and size, the tree's XML and its
`.affect` text (`affect import`) are each started 11 times in one `affect bench --starts`
process, and BehaviorTree.CPP creates the XML tree repeatedly in one `btcpp_oracle bench`
process (`create_ms`, the median of 5 creations); the three alternate for --rounds rounds,
so a burst of load falls on all of them alike. Each cell: the median of the rounds' medians
and their range. Every run's blackboard is checked against its generator's reference.
`--startup-only` runs only this table (a few minutes instead of ten or more); `--earlier
AFFECT` adds another build's starts to each round (before and after in one run); `--binary
AFFECT` measures that build instead of building target/release/affect.

Environment: PYTHON and CXX for the oracle's setup.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

import startup_order

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETUP = os.path.join(ROOT, "tools", "btcpp-oracle", "setup.sh")
TOOLS = os.path.join(ROOT, ".tools", "btcpp")
ORACLE = os.path.join(TOOLS, "bin", "btcpp_oracle")
VENV_PY = os.path.join(TOOLS, "bin", "python")
AFFECT = os.path.join(ROOT, "target", "release", "affect")
REPEATS = 7
# Ticks of the cross-check: `affect bench --ticks 100 --repeats 1` runs 10 warm-up ticks first.
EXACT_TICKS = 110


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}{r.stdout}")
    return r.stdout


def setup(build=True):
    if not os.access(ORACLE, os.X_OK):
        log(f"compare.py will install the BehaviorTree.CPP 4.8.2 oracle into {TOOLS}: a Python "
            f"venv, the behaviortreepy 0.1.4 wheel and sdist headers from PyPI (pip, about 35 MB), "
            f"and {ORACLE} compiled with the C++ compiler ({SETUP}) ...")
    # Every time: the script is idempotent and recompiles the oracle when its source changed.
    run(["bash", SETUP, TOOLS])
    if subprocess.run([VENV_PY, "-c", "import py_trees"], capture_output=True).returncode != 0:
        log(f"compare.py will install py_trees from PyPI into the venv {TOOLS} (pip) ...")
        run([VENV_PY, "-m", "pip", "install", "--quiet", "py_trees"])
    if build:
        log(f"compare.py builds affect in release mode into {AFFECT} (cargo) ...")
        # The build startup.order is made from (without the `net` feature: no Zenoh).
        startup_order.build()
    settle_binary()
    found, listed = startup_order.coverage(AFFECT)
    if found < 0.9 * listed:
        log(f"compare.py: only {found} of the {listed} functions of startup.order are in the "
            f"binary, so its start-up code is spread out; scripts/startup_order.py makes the list "
            f"again")
    return found, listed


def settle_binary():
    """A binary the linker has just written sits in the page cache in small pieces, and a
    fresh process then pays a page fault for nearly every 4 KB of code it runs: first ticks
    of 100 nodes took 2 ms instead of 0.55. Dropping it from the cache and reading it back
    once, as the kernel reads an installed program (in large pieces, ahead), gives the state
    every later start of an installed binary sees, whether or not it was just built."""
    fd = os.open(AFFECT, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    run([AFFECT, "--version"])


def treegen(size, *args):
    return run([AFFECT, "gen-tree", "--size", str(size), "--seed", "1", *args])


def check(size, path):
    out = treegen(size, "--check-bench", path)
    res = json.loads(out.strip().splitlines()[-1])
    if not res.get("ok"):
        sys.exit(f"compare.py: {path} does not match the generator's reference: {res}")


def save(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def ours(xml, bb, engine, ticks, repeats, cache=None, starts=0, binary=None):
    args = [binary or AFFECT, "bench", xml, "--engine", engine, "--ticks", str(ticks),
            "--repeats", str(repeats), "--starts", str(starts)]
    if cache is None:
        args.append("--no-code-cache")
    for kv in bb:
        args += ["--bb", kv]
    env = dict(os.environ)
    if cache is not None:
        env["AFFECT_CODE_CACHE"] = cache
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"compare.py: {' '.join(args)} failed ({r.returncode}):\n{r.stderr}{r.stdout}")
    return json.loads(r.stdout)


# Fresh processes vary by more than repeated runs do (BehaviorTree.CPP's first creation
# sometimes takes twice its usual time): 11 of each, so one slow start cannot move a median.
STARTS = 11


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def starts(tmp, size, xml, bb):
    """Start-up, STARTS times each: the tiered engine with a cold cache (a fresh directory
    each time), then with a warm one, and `--engine jit` with a warm one; BehaviorTree.CPP's
    first creation in a fresh process; and both restarted inside one process (ours: `affect
    bench --starts`; BehaviorTree.CPP: the median of its repeated creations, `create_ms`)."""
    cold_first, cold_ready, warm_ready, warm_jit, bt_first = [], [], [], [], []
    for _ in range(STARTS):
        bt_first.append(btcpp(xml, bb, 0.05)["create_first_ms"])
    again = ours(xml, bb, "tiered", 20, 1, starts=STARTS)["restart_first_tick_ms"]["median"]
    for k in range(STARTS):
        cache = os.path.join(tmp, f"cache-cold-{size}-{k}")
        r = ours(xml, bb, "tiered", 20, 1, cache=cache)
        if r["code_cache"] != "miss":
            sys.exit(f"compare.py: a cold cache said {r['code_cache']}")
        cold_first.append(r["first_tick_ms"])
        cold_ready.append(r["jit_ready_ms"])
    warm = os.path.join(tmp, f"cache-warm-{size}")
    ours(xml, bb, "jit", 20, 1, cache=warm)
    for _ in range(STARTS):
        r = ours(xml, bb, "tiered", 20, 1, cache=warm)
        j = ours(xml, bb, "jit", 20, 1, cache=warm)
        for x in (r, j):
            if x["code_cache"] != "hit" or x["engine"] != "jit":
                sys.exit(f"compare.py: a warm cache did not serve the JIT: {x}")
        warm_ready.append(r["jit_ready_ms"])
        warm_jit.append(j["first_tick_ms"])
    return {"first": median(cold_first), "ready": median(cold_ready),
            "bt_first": median(bt_first), "again": again,
            "warm_ready": median(warm_ready), "warm_jit": median(warm_jit),
            "first_all": cold_first}


def btcpp(xml, bb, seconds):
    args = [ORACLE, "bench", xml, "--seconds", str(seconds), "--repeats", str(REPEATS)]
    for kv in bb:
        args += ["--bb", kv]
    return json.loads(run(args))


def btcpp_exact(xml, bb, ticks):
    args = [ORACLE, "trace", xml, "--ticks", str(ticks), "--no-idle"]
    for kv in bb:
        args += ["--bb", kv]
    last = run(args).strip().splitlines()[-1]
    return json.loads(last)["blackboard"]


def pytrees(xml, bb, seconds, exact=None):
    args = [VENV_PY, os.path.join(ROOT, "scripts", "bench_pytrees.py"), xml,
            "--seconds", str(seconds), "--repeats", str(REPEATS)]
    if exact is not None:
        args += ["--exact-ticks", str(exact)]
    for kv in bb:
        args += [f"--bb={kv}"]
    return json.loads(run(args))


def restarts_interleaved(tmp, shape, size, rounds, earlier=None):
    """The third table's row: `rounds` rounds of (affect from XML, affect from `.affect`,
    BehaviorTree.CPP's creations, and the same two of an `earlier` affect when given), each
    a process of its own, alternating."""
    gen, xml, bb = shape_tree(tmp, shape, size)
    src = xml[:-len(".xml")] + ".affect"
    run([AFFECT, "import", xml, "-o", src])
    got = {"xml": [], "affect": [], "btcpp": [], "earlier xml": [], "earlier affect": []}
    runs = [("xml", xml, None), ("affect", src, None)]
    if earlier:
        runs += [("earlier xml", xml, earlier), ("earlier affect", src, earlier)]
    for _ in range(rounds):
        for kind, path, binary in runs:
            r = ours(path, bb, "tiered", 20, 1, starts=STARTS, binary=binary)
            gen.check(save(tmp, f"{shape}-{kind.replace(' ', '-')}{size}.json", json.dumps(r)))
            got[kind].append(r["restart_first_tick_ms"]["median"])
        b = btcpp(xml, bb, 0.5)
        gen.check(save(tmp, f"{shape}-btcpp{size}.json", json.dumps(b)))
        got["btcpp"].append(b["create_ms"]["median"])
    return got


class GenTree:
    """`affect gen-tree`: the trees of the tables above."""
    name = "gen-tree"

    def __init__(self, size):
        self.size = size

    def xml(self):
        return treegen(self.size)

    def bb(self):
        return [b for b in treegen(self.size, "--bb-args").split() if b != "--bb"]

    def check(self, path):
        check(self.size, path)


class KitTreegen:
    """The BehaviorTree.CPP kit's own generator (`treegen.py`), another shape of tree."""
    name = "treegen.py"
    path = None

    def __init__(self, size):
        self.size = size

    def gen(self, *args):
        return run([sys.executable, self.path, "--size", str(self.size), "--seed", "1", *args])

    def xml(self):
        return self.gen()

    def bb(self):
        return [b for b in self.gen("--bb-args").split() if b != "--bb"]

    def check(self, path):
        res = json.loads(self.gen("--check-bench", path).strip().splitlines()[-1])
        if not res.get("ok"):
            sys.exit(f"compare.py: {path} does not match treegen.py's reference: {res}")


SHAPES = {"gen-tree": GenTree, "treegen": KitTreegen}


def shape_tree(tmp, shape, size):
    gen = SHAPES[shape](size)
    return gen, save(tmp, f"{shape}{size}.xml", gen.xml()), gen.bb()


def spread(xs):
    return f"{ms(median(xs))} ({ms(min(xs))}–{ms(max(xs))})"


def stats(d):
    return d["min"], d["median"], d["max"]


def ms(x):
    """Milliseconds as the start-up table shows them: to 0.01 ms below 10 ms, where 0.1 ms
    is a large part of a start (and two starts rounding alike need not be alike)."""
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def fmt3(t):
    return " / ".join(f"{x:,.1f}" if x < 100 else f"{x:,.0f}" for x in t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="about how long each timed run takes (per engine and size)")
    ap.add_argument("--out", help="also write the markdown to this file")
    ap.add_argument("--startup-only", action="store_true",
                    help="only the table of restarts in one process on both tree shapes")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternating rounds of that table (each: 11 starts of ours, 5 of its)")
    ap.add_argument("--binary", help="measure this `affect` (for example an earlier build, "
                    "to compare two in one run) instead of building target/release/affect")
    ap.add_argument("--earlier", help="also start the trees of the restart table with this "
                    "`affect` in each round (before / after in one run)")
    ap.add_argument("--treegen", default=os.path.join(os.path.dirname(ROOT), "shared", "tools",
                                                      "btcpp", "treegen.py"),
                    help="the kit's treegen.py (the second tree shape)")
    a = ap.parse_args()
    shapes = ["gen-tree"]
    if os.path.isfile(a.treegen):
        KitTreegen.path = a.treegen
        shapes.append("treegen")
    else:
        log(f"compare.py: {a.treegen} is missing: restarts are compared on gen-tree's trees only")
    global AFFECT
    if a.binary:
        AFFECT = os.path.abspath(a.binary)
    placed, listed = setup(build=not a.binary)
    sizes = [int(s) for s in a.sizes.split(",")]
    rows, compile_rows, restart_rows = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            for size in sizes:
                log(f"{shape}, {size} nodes: restarts in one process, {a.rounds} rounds ...")
                restart_rows.append((shape, size, restarts_interleaved(
                    tmp, shape, size, a.rounds, a.earlier and os.path.abspath(a.earlier))))
        for size in ([] if a.startup_only else sizes):
            log(f"{size} nodes ...")
            xml = save(tmp, f"t{size}.xml", treegen(size))
            bb = [b for b in treegen(size, "--bb-args").split() if b != "--bb"]
            # The same number of ticks everywhere: the blackboards must be bit-identical.
            exact = {
                "jit": ours(xml, bb, "jit", 100, 1),
                "interp": ours(xml, bb, "interp", 100, 1),
                "tiered": ours(xml, bb, "tiered", 100, 1),
            }
            for k, v in exact.items():
                if v["total_ticks"] != EXACT_TICKS:
                    sys.exit(f"compare.py: {k} ran {v['total_ticks']} ticks, not {EXACT_TICKS}")
            reference = btcpp_exact(xml, bb, EXACT_TICKS)
            py_exact = pytrees(xml, bb, a.seconds, exact=EXACT_TICKS)["blackboard"]
            for name, got in [("jit", exact["jit"]["blackboard"]),
                              ("interp", exact["interp"]["blackboard"]),
                              ("tiered", exact["tiered"]["blackboard"]), ("py_trees", py_exact)]:
                if got != reference:
                    sys.exit(f"compare.py: {size} nodes, {EXACT_TICKS} ticks: {name}'s blackboard "
                             f"{got} differs from BehaviorTree.CPP's {reference}")
            # Timed runs: about `seconds` each, in REPEATS repeats.
            per_repeat_ns = a.seconds / REPEATS * 1e9
            j = ours(xml, bb, "jit", max(20, int(per_repeat_ns / (5.0 * size))), REPEATS)
            i = ours(xml, bb, "interp", max(10, int(per_repeat_ns / (60.0 * size))), REPEATS)
            b = btcpp(xml, bb, a.seconds)
            p = pytrees(xml, bb, a.seconds)
            for name, res in [("jit", j), ("interp", i), ("btcpp", b), ("py_trees", p)]:
                check(size, save(tmp, f"{name}{size}.json", json.dumps(res)))
            if j["engine"] != "jit":
                sys.exit(f"compare.py: the JIT did not run ({j.get('fallback')})")
            js, is_, bs, ps = (stats(j["ns_per_node"]), stats(i["ns_per_node"]),
                               stats(b["ns_per_node_tick"]), stats(p["ns_per_node_tick"]))
            st = starts(tmp, size, xml, bb)
            rows.append((size, js, is_, bs, ps))
            compile_rows.append((size, j, i, b, p, st))
    lines = []
    if not a.startup_only:
        lines += tick_tables(rows, compile_rows, placed, listed)
    lines.append(f"Restarted in one process, on two tree shapes; load average "
                 f"{os.getloadavg()[0]:.2f} at the end. Each cell: the median of {a.rounds} "
                 f"rounds' medians (affect: {STARTS} starts of `affect bench --starts`, the "
                 f"first tick from reading the file; BehaviorTree.CPP: `create_ms`, 5 "
                 f"creations of the XML already read) and their range, ms; the three "
                 f"alternate.")
    lines.append("")
    earlier = ["earlier xml", "earlier affect"] if a.earlier else []
    head = ["affect from XML", "affect from `.affect`", "BT.CPP XML load", "BT.CPP / XML",
            "BT.CPP / `.affect`"]
    if earlier:
        head += [f"{os.path.basename(a.earlier)} from XML", f"{os.path.basename(a.earlier)} "
                 "from `.affect`", "BT.CPP / its XML", "BT.CPP / its `.affect`"]
    lines.append("| shape | nodes | " + " | ".join(head) + " |")
    lines.append("|---|---|" + "---|" * len(head))
    for shape, size, got in restart_rows:
        bt = median(got["btcpp"])
        cells = [spread(got["xml"]), spread(got["affect"]), spread(got["btcpp"]),
                 f"{bt / median(got['xml']):.2f}×", f"{bt / median(got['affect']):.2f}×"]
        if earlier:
            cells += [spread(got[k]) for k in earlier]
            cells += [f"{bt / median(got[k]):.2f}×" for k in earlier]
        lines.append(f"| {SHAPES[shape].name} | {size:,} | " + " | ".join(cells) + " |")
    lines.append("")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


def tick_tables(rows, compile_rows, placed, listed):
    lines = []
    lines.append(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
                 f"{platform.release()}; load average {os.getloadavg()[0]:.2f} at the end. "
                 f"Trees: affect gen-tree --seed 1. Each cell: min / median / max over {REPEATS} "
                 f"repeats, ns per node tick. All four ended every run with the blackboard "
                 f"of the generator's reference, and bit-identical blackboards after "
                 f"{EXACT_TICKS} ticks.")
    lines.append("")
    lines.append("| nodes | affect JIT | affect interpreter | BehaviorTree.CPP 4.8.2 | py_trees | "
                 "BT.CPP / JIT | py_trees / JIT | BT.CPP / interp | interp / JIT |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for size, js, is_, bs, ps in rows:
        lines.append(f"| {size:,} | {fmt3(js)} | {fmt3(is_)} | {fmt3(bs)} | {fmt3(ps)} | "
                     f"{bs[1] / js[1]:,.0f}× | {ps[1] / js[1]:,.0f}× | {bs[1] / is_[1]:,.1f}× | "
                     f"{is_[1] / js[1]:,.1f}× |")
    lines.append("")
    lines.append("| nodes | affect first tick ms (fresh process, tiered, cold cache) | BT.CPP XML "
                 "load ms (fresh process, create_first_ms) | BT.CPP / affect | affect first tick "
                 "ms (restart in process, `--starts`) | BT.CPP XML load ms (repeated in process, "
                 "create_ms) | BT.CPP / affect | JIT ready ms (cold) | JIT ready ms (warm cache) "
                 "| start with a warm cache ms (`--engine jit`) | check + lower ms | JIT compile "
                 "ms | py_trees build ms | state bytes / node | JIT code bytes / node |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size, j, i, b, p, st in compile_rows:
        load = b["create_ms"]["median"]
        lines.append(
            f"| {size:,} | {ms(st['first'])} | {ms(st['bt_first'])} | "
            f"{st['bt_first'] / st['first']:.2f}× | {ms(st['again'])} | {ms(load)} | "
            f"{load / st['again']:.2f}× | "
            f"{st['ready']:.1f} | {st['warm_ready']:.1f} | {st['warm_jit']:.1f} | "
            f"{j['check_ms']:.1f} | {j['jit_ms']:.1f} | {p['create_ms']:.1f} | "
            f"{j['state_bytes'] / size:.1f} | {(j['code_bytes'] or 0) / size:.0f} |")
    lines.append("")
    lines.append(f"Start-up columns: medians of {STARTS} starts; the first tick of the tiered "
                 "engine runs in the interpreter, from reading the XML file (import, check, "
                 "lower, machine) to the end of that tick. A fresh process meets its code and "
                 "heap for the first time (page faults); BehaviorTree.CPP's fresh-process load "
                 "is its first creation after its factory is set up, not counting reading the "
                 "file. Restarts in one process are what a hot reload or a test suite of many "
                 "programs waits. The release build placed "
                 f"{placed} of the {listed} functions startup.order lists side by side "
                 "(build.rs).")
    lines.append("")
    return lines


if __name__ == "__main__":
    main()
