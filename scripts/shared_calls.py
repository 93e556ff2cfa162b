#!/usr/bin/env python3
"""Prints a program with CALLS calls of one subtree of about NODES nodes (built-in nodes and
scripts only), for measuring how the JIT shares the code of units of the same shape
(docs/performance.md, *Subtrees of one shape*):

    python3 scripts/shared_calls.py 100 50 > calls.affect
    affect bench calls.affect --engine jit                         # shared
    AFFECT_JIT_SHARE=0 affect bench calls.affect --engine jit      # every unit its own code

With a third argument `varied`, the calls differ in constants and bindings: they call `Part`
or `Part2` (the same subtree with other constants in every script and condition) in turn,
give `level` an expression with another constant each (`a / 10 + k`), and bind `total` to
`a`, `b` or `c` in turn. Shared code reads what differs from a table (`share.rs`).
"""
import sys

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 100
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 50
varied = len(sys.argv) > 3 and sys.argv[3] == "varied"


def part(name, shift):
    groups = []
    # Each group is 5 nodes: a sequence, a script, a condition, a fallback with a script.
    for g in range(max(1, (nodes - 2) // 5)):
        k = g + shift
        groups.append(
            f"        sequence {{ do {{ x = x * 0.5 + level + {k} }} check x > {k % 7} "
            f"fallback {{ check y < {k * 3} do {{ y = y + 1; total = total + x / 100 }} }} }}"
        )
    body = "\n".join(groups)
    return f"""tree {name}(in level: num, inout total: num) {{
    var x: num = 0;
    var y: num = 0;
    sequence {{
{body}
    }}
}}
"""


print(part("Part", 0))
if varied:
    print(part("Part2", 1))
c = "\n    var c: num = 2;" if varied else ""
print(f"""main tree Main {{
    var a: num = 0;
    var b: num = 1;{c}
    parallel_all(max_failures: {calls}) {{""")
for k in range(calls):
    if varied:
        name = "Part2" if k % 2 else "Part"
        total = "abc"[k % 3]
        print(f"        {name}(level: a / 10 + {k}, total: {total})")
    else:
        print(f"        Part(level: {k % 10}, total: {'a' if k % 2 == 0 else 'b'})")
print("""    }
}""")
