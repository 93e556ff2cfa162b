#!/usr/bin/env python3
"""bench_pytrees.py: time a benchmark tree (`affect gen-tree`) (BehaviorTree.CPP v4 XML) in py_trees.

    .tools/btcpp/bin/python scripts/bench_pytrees.py tree.xml --bb x0=0.5 ... [--seconds 3]

The XML's nodes become their py_trees equivalents: Sequence -> Sequence(memory=True),
ReactiveSequence -> Sequence(memory=False), Fallback/ReactiveFallback -> Selector(memory=True/
False), Parallel(success -1, failure 1) -> Parallel(SuccessOnAll), Inverter -> Inverter,
ForceSuccess -> FailureIsSuccess, ForceFailure -> SuccessIsFailure, AlwaysSuccess/Failure ->
Success/Failure, Script and ScriptCondition -> behaviours running the script compiled to Python
bytecode once, on one dict as the blackboard (BehaviorTree.CPP's `==` within a float epsilon
kept). Only what `affect gen-tree` generates is supported.

Output: one JSON object with the field names `affect gen-tree --check-bench` reads (`nodes`,
`node_ticks_per_tick`, `total_ticks`, `blackboard`) and `ns_per_node_tick` as min/median/max
over the repeats.
"""
import argparse
import json
import re
import statistics
import sys
import time
import xml.etree.ElementTree as ET

try:
    import py_trees
    from py_trees.common import Status
except ImportError:
    sys.exit("bench_pytrees.py: py_trees is not installed (pip install py_trees)")

FLOAT_EPS = 1.1920928955078125e-07  # BehaviorTree.CPP compares doubles within float epsilon


def _eq(a, b):
    return abs(a - b) <= FLOAT_EPS


GLOBALS = {"_eq": _eq}


def script_to_python(code):
    """`x1 := (x1 * 0.75) + 2.0; x3 -= 1.0` -> Python statements."""
    out = []
    for stmt in code.split(";"):
        stmt = stmt.strip()
        if stmt:
            out.append(stmt.replace(":=", "="))
    return "\n".join(out)


ATOM = re.compile(r"^\s*(.+?)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$")


def condition_to_python(code):
    """`x4 != x1 || x4 == 2.0 && x0 < x0 + 1.0` -> a Python expression (epsilon equality)."""
    def atom(a):
        m = ATOM.match(a)
        if not m:
            raise ValueError(f"unsupported condition `{a}`")
        lhs, op, rhs = m.groups()
        if op == "==":
            return f"_eq({lhs}, {rhs})"
        if op == "!=":
            return f"(not _eq({lhs}, {rhs}))"
        return f"({lhs} {op} {rhs})"

    ors = []
    for disj in code.split("||"):
        ors.append(" and ".join(atom(a) for a in disj.split("&&")))
    return " or ".join(f"({o})" for o in ors)


class Script(py_trees.behaviour.Behaviour):
    def __init__(self, name, code, env):
        super().__init__(name)
        self.code = compile(script_to_python(code), name, "exec")
        self.env = env

    def update(self):
        exec(self.code, GLOBALS, self.env)
        return Status.SUCCESS


class ScriptCondition(py_trees.behaviour.Behaviour):
    def __init__(self, name, code, env):
        super().__init__(name)
        self.code = compile(condition_to_python(code), name, "eval")
        self.env = env

    def update(self):
        return Status.SUCCESS if eval(self.code, GLOBALS, self.env) else Status.FAILURE


def build(el, env, counter):
    counter[0] += 1
    name = f"{el.tag}::{counter[0]}"
    kids = [build(c, env, counter) for c in el]
    t = el.tag
    if t in ("Sequence", "ReactiveSequence"):
        return py_trees.composites.Sequence(name, memory=(t == "Sequence"), children=kids)
    if t in ("Fallback", "ReactiveFallback"):
        return py_trees.composites.Selector(name, memory=(t == "Fallback"), children=kids)
    if t == "Parallel":
        if el.get("success_count") != "-1" or el.get("failure_count") != "1":
            raise ValueError("only Parallel(success_count=-1, failure_count=1) is supported")
        policy = py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=False)
        return py_trees.composites.Parallel(name, policy=policy, children=kids)
    if t == "Inverter":
        return py_trees.decorators.Inverter(name, kids[0])
    if t == "ForceSuccess":
        return py_trees.decorators.FailureIsSuccess(name, kids[0])
    if t == "ForceFailure":
        return py_trees.decorators.SuccessIsFailure(name, kids[0])
    if t == "AlwaysSuccess":
        return py_trees.behaviours.Success(name)
    if t == "AlwaysFailure":
        return py_trees.behaviours.Failure(name)
    if t == "Script":
        return Script(name, el.get("code"), env)
    if t == "ScriptCondition":
        return ScriptCondition(name, el.get("code"), env)
    raise ValueError(f"unsupported node {t}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xml")
    ap.add_argument("--bb", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--exact-ticks", type=int, metavar="K",
                    help="tick exactly K times without timing; print the blackboard")
    a = ap.parse_args()

    env = {}
    for kv in a.bb:
        k, v = kv.split("=", 1)
        env[k] = float(v)
    t0 = time.perf_counter()
    doc = ET.parse(a.xml).getroot()
    main_id = doc.get("main_tree_to_execute")
    trees = {t.get("ID"): t for t in doc.findall("BehaviorTree")}
    tree_el = trees.get(main_id) or next(iter(trees.values()))
    counter = [0]
    root = build(list(tree_el)[0], env, counter)
    create_ms = (time.perf_counter() - t0) * 1000.0
    nodes = counter[0]

    if a.exact_ticks is not None:
        for _ in range(a.exact_ticks):
            root.tick_once()
        print(json.dumps({"total_ticks": a.exact_ticks, "blackboard": env}, sort_keys=True))
        return

    # Every node must be ticked once per root tick (the generator's invariant): count the nodes
    # that have a status after one tick.
    root.tick_once()
    ticked = sum(1 for b in root.iterate() if b.status != Status.INVALID)
    total = 1
    if root.status != Status.SUCCESS:
        sys.exit(f"root returned {root.status}")

    # Ticks per repeat: about seconds / repeats each.
    t = time.perf_counter()
    root.tick_once()
    total += 1
    one = max(time.perf_counter() - t, 1e-6)
    per_repeat = max(1, int(a.seconds / a.repeats / one))
    runs = []
    for _ in range(a.repeats):
        t = time.perf_counter()
        for _ in range(per_repeat):
            root.tick_once()
        runs.append((time.perf_counter() - t) * 1e9 / per_repeat / nodes)
        total += per_repeat
    print(json.dumps({
        "engine": "py_trees",
        "py_trees": "2.x",
        "nodes": nodes,
        "node_ticks_per_tick": float(ticked),
        "total_ticks": total,
        "ticks_per_repeat": per_repeat,
        "create_ms": round(create_ms, 3),
        "ns_per_node_tick": {"min": min(runs), "median": statistics.median(runs), "max": max(runs),
                             "n": len(runs)},
        "blackboard": env,
    }, sort_keys=True))


if __name__ == "__main__":
    main()
