#!/usr/bin/env python3
"""Prints a program with CALLS calls of one subtree of about NODES nodes (built-in nodes and
scripts only), for measuring how the JIT shares the code of units of the same shape
(docs/performance.md, *Subtrees of one shape*):

    python3 scripts/shared_calls.py 100 50 > calls.affect
    affect bench calls.affect --engine jit                         # shared
    AFFECT_JIT_SHARE=0 affect bench calls.affect --engine jit      # every unit its own code
"""
import sys

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 100
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 50

groups = []
# Each group is 5 nodes: a sequence, a script, a condition, a fallback with a script.
for g in range(max(1, (nodes - 2) // 5)):
    groups.append(
        f"        sequence {{ do {{ x = x * 0.5 + level + {g} }} check x > {g % 7} "
        f"fallback {{ check y < {g * 3} do {{ y = y + 1; total = total + x / 100 }} }} }}"
    )
body = "\n".join(groups)
print(f"""tree Part(in level: num, inout total: num) {{
    var x: num = 0;
    var y: num = 0;
    sequence {{
{body}
    }}
}}

main tree Main {{
    var a: num = 0;
    var b: num = 1;
    parallel_all(max_failures: {calls}) {{""")
for k in range(calls):
    print(f"        Part(level: {k % 10}, total: {'a' if k % 2 == 0 else 'b'})")
print("""    }
}""")
