#!/usr/bin/env python3
"""hostile_sizes.py: time and peak memory of every hostile-input class of issue 11, measured
through the `affect` binary, at the sizes the issue names.

    python3 scripts/hostile_sizes.py [--affect PATH] [--only SUBSTRING] [--markdown]

Each class (10,000 levels of every construct, 30 KB of closers, 50,000 declarations, 200,000
attributes, 1 MB tokens, a node with 10,000 children, a 20,000-line program, chains, memory
files) is generated into a temporary directory and given to every command that reads it:
check, fmt, run, build --emit groot, import, convert, memory show, and the language server
(open the document, wait for its diagnostics, change it, wait again, ask for its symbols).
Many errors: 2,000 and 20,000 small trees with a syntax error each, and the same files
fixed. Every command runs as a child process under a 4 GiB address-space limit, started by GNU
time (`/usr/bin/time`), which reports the kernel's account of it: peak resident memory
(`ru_maxrss`) and CPU time; memory is measured, not estimated. (The command is not forked
from this script directly because a child forked from a large process inherits the
parent's resident size in `ru_maxrss`.) A row's verdict is `ok` when the command ended by itself
(any exit status: a coded diagnostic is a result) within 2 s of CPU time and 200 MB, the
bounds of the issue's Done-when; else `SLOW`, `BIG`, `KILLED` (a signal: a crash) or
`TIMEOUT` (60 s of wall time). The wall time is printed too; the verdict uses the CPU time
(user + system, `wait4`'s `ru_utime` + `ru_stime`) because on a shared machine the wall time
measures the other processes as much as the command. For the language server the seconds
are the slowest answer and the CPU time is the whole session's.

The binary is target/release/affect (build it with
`cargo build --release --no-default-features --bin affect`). The exit status is 1 when any
row is not `ok`. docs/reliability.md quotes the table. Python standard library only.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AFFECT = os.path.join(ROOT, "target", "release", "affect")
MAX_SECONDS = 2.0
MAX_MB = 200.0
TIMEOUT = 60.0
ADDRESS_LIMIT = 4 << 30
GNU_TIME = "/usr/bin/time"

# ---------------------------------------------------------------- generated inputs


def nested(construct, n):
    """A program nesting one construct `n` deep (as tests/hostile/depth.rs)."""
    def expr(e):
        return f"agent A {{\n    var x = 0;\n    main {{\n        do {{ x = {e} }}\n    }}\n}}\n"

    def cond(e):
        return f"agent A {{\n    var x = 0;\n    main {{\n        check {e}\n    }}\n}}\n"

    if construct == "sequence":
        return ("agent A {\n    main {\n" + "sequence { " * n + "succeed" + " }" * n
                + "\n    }\n}\n")
    if construct == "not":
        return cond("not " * n + "true")
    if construct == "parentheses":
        return expr("(" * n + "1" + ")" * n)
    if construct == "minus":
        return expr("-" * n + "1")
    if construct == "plus":
        return expr(" + ".join(["1"] * n))
    if construct == "and":
        return cond(" and ".join(["true"] * n))
    if construct == "list":
        return expr("[" * n + "1" + "]" * n)
    if construct == "ternary":
        return expr("true ? 1 : " * n + "1")
    if construct == "else_if":
        return ("agent A {\n    var x = 0;\n    main {\n        do { if x > 0 { x = 1 } "
                + "else if x > 0 { x = 1 } " * n + "else { x = 2 } }\n    }\n}\n")
    if construct == "calls":
        s = "".join(f"tree T{i}() {{ T{i + 1}() }}\n" for i in range(n))
        return s + f"tree T{n}() {{ succeed }}\nagent A {{ main {{ T0() }} }}\n"
    if construct == "types":
        return ("agent A {\n    var x: " + "[" * n + "num" + "]" * n
                + " = [];\n    main { succeed }\n}\n")
    raise ValueError(construct)


DEPTH_CONSTRUCTS = ["sequence", "not", "parentheses", "minus", "plus", "and", "list",
                    "ternary", "else_if", "calls", "types"]


def xml_tree(body, models=""):
    return (f'<root BTCPP_format="4"><BehaviorTree ID="Main">{body}</BehaviorTree>'
            f'{models}</root>\n')


def long_program(units):
    """A valid program of about 12 lines per unit (as benches/hostile.rs)."""
    parts = []
    for i in range(units):
        parts.append(
            f"enum Mode{i} {{ Idle, Busy }}\nconst LIMIT{i} = {i} + 10;\n"
            f"action Work{i}(in amount: num);\ntree Task{i}(in level: num) {{\n"
            f"    var mode: Mode{i} = Idle;\n    sequence {{\n        check level < LIMIT{i}\n"
            f"        Work{i}(amount: level * 2)\n        do {{ mode = Busy }}\n    }}\n}}\n")
    parts.append("agent Robot {\n    var level: num = 1;\n    main {\n        sequence {\n")
    parts.extend(f"            Task{i}(level: level)\n" for i in range(units))
    parts.append("        }\n    }\n}\n")
    return "".join(parts)


def small_trees(n, broken):
    """`n` small trees calling one action; with `broken`, each call is a syntax error."""
    value = "_" if broken else "true"
    return "action Go(in reached: bool);\n\n" + "".join(
        f"tree T{i}() {{\n    Go(reached: {value})\n}}\n" for i in range(n))


def lines_to_units(lines):
    return max(1, lines // 12)


def action_declarations(n):
    decls = "".join(f"action A{i}(in x: num);\n" for i in range(n))
    calls = "".join(f"        A{i}(x: 1)\n" for i in range(0, n, 1000))
    return decls + "\nmain tree Main {\n    sequence {\n" + calls + "    }\n}\n"


def tree_declarations(n):
    trees = "".join(f"tree T{i}() {{\n    succeed\n}}\n" for i in range(n))
    calls = "".join(f"        T{i}()\n" for i in range(n))
    return trees + "\nmain tree Main {\n    sequence {\n" + calls + "    }\n}\n"


def xml_declarations(n):
    models = "".join(f'<Action ID="A{i}"><input_port name="x"/></Action>' for i in range(n))
    calls = "".join(f'<A{i} x="1"/>' for i in range(0, n, 1000))
    return xml_tree(f"<Sequence>{calls}</Sequence>", f"<TreeNodesModel>{models}</TreeNodesModel>")


def xml_attributes(n):
    attrs = "".join(f' p{i}="{i}"' for i in range(n))
    return xml_tree(f"<Wide{attrs}/>")


def affect_ports(n):
    """An action with `n` ports, called with every one: the exporter writes `n` attributes."""
    ports = ", ".join(f"in p{i}: num" for i in range(n))
    args = ", ".join(f"p{i}: {i}" for i in range(n))
    return f"action Wide({ports});\nmain tree Main {{\n    Wide({args})\n}}\n"


def wide(n):
    return ("agent A {\n    var x = 0;\n    main {\n        sequence {\n"
            + "            do { x = x + 1 }\n" * n + "        }\n    }\n}\n")


def xml_wide(n):
    return xml_tree("<Sequence>" + "<AlwaysSuccess/>" * n + "</Sequence>")


def const_chain(n):
    return ("const C0 = 1;\n" + "".join(f"const C{i} = C{i - 1} + 1;\n" for i in range(1, n))
            + f"agent A {{\n    var x = C{n - 1};\n    main {{ succeed }}\n}}\n")


def tree_chain(n):
    s = "".join(f"tree T{i}() {{\n    T{i + 1}()\n}}\n" for i in range(n))
    return s + f"tree T{n}() {{\n    succeed\n}}\nmain tree Main {{\n    T0()\n}}\n"


def memory_file(traces, key_bytes=0):
    """A version-3 long-term memory file (runtime/src/affect/persist.rs) of `traces` traces
    linked in a chain; a key of `key_bytes` bytes when given (over the 1,024 allowed)."""
    out = ["affect long-term memory v3\n", "memory feelings\n"]
    if key_bytes:
        out.append("k" * key_bytes + "\t50\t20\n")
    out.extend(f"place{i}\t50\t20\n" for i in range(traces))
    out.extend(f"place{i - 1}\tplace{i}\n" for i in range(1, traces))
    body = "".join(out).encode()
    return body + f"end\t{len(body)}\t{zlib.crc32(body):08x}\n".encode()


MB = 1 << 20
AFFECT_COMMANDS = ["check", "fmt", "run", "build", "lsp"]
XML_COMMANDS = ["import", "run", "convert"]


def cases():
    """(class, size, file name, text, commands)."""
    for c in DEPTH_CONSTRUCTS:
        yield ("depth/" + c, "10,000 levels", f"{c}.affect", nested(c, 10_000), AFFECT_COMMANDS)
    n = 10_000
    yield ("depth/xml elements", "10,000 levels", "deep.xml",
           xml_tree("<Sequence>" * n + "<AlwaysSuccess/>" + "</Sequence>" * n), XML_COMMANDS)
    yield ("depth/xml script ( )", "10,000 levels", "parens.xml",
           xml_tree(f'<Script code="x := {"(" * n}1{")" * n}"/>'), XML_COMMANDS)
    yield ("depth/xml script -", "10,000 levels", "minus.xml",
           xml_tree(f'<Script code="x := {"-" * n}1"/>'), XML_COMMANDS)
    yield ("depth/xml precondition", "10,000 levels", "pre.xml",
           xml_tree(f'<AlwaysSuccess _skipIf="{"(" * n}x{")" * n}"/>'), XML_COMMANDS)
    closers_kb = 30 * 1024
    yield ("closers/one line", "30 KB", "closers1.affect",
           "tree T() {\n    succeed\n}\n" + "}" * closers_kb + "\n", AFFECT_COMMANDS)
    yield ("closers/lines of })]", "30 KB", "closers2.affect",
           "tree T() {\n    succeed\n}\n" + ("})]" * 33 + "\n") * (closers_kb // 100),
           AFFECT_COMMANDS)
    yield ("declarations/actions", "50,000", "actions.affect", action_declarations(50_000),
           AFFECT_COMMANDS + ["build-v3"])
    yield ("declarations/trees", "50,000", "trees.affect", tree_declarations(50_000),
           AFFECT_COMMANDS + ["build-v3"])
    yield ("declarations/xml models", "50,000", "models.xml", xml_declarations(50_000),
           XML_COMMANDS)
    yield ("attributes/xml element", "200,000", "attrs.xml", xml_attributes(200_000),
           XML_COMMANDS)
    yield ("attributes/affect ports", "200,000", "ports.affect", affect_ports(200_000),
           AFFECT_COMMANDS)
    tok = MB
    yield ("token/identifier", "1 MB", "ident.affect",
           f"tree {'n' * tok}() {{\n    succeed\n}}\n", AFFECT_COMMANDS)
    yield ("token/string", "1 MB", "string.affect",
           f'const S = "{"s" * tok}";\nmain tree Main {{\n    succeed\n}}\n', AFFECT_COMMANDS)
    yield ("token/comment", "1 MB", "comment.affect",
           f"// {'c' * tok}\nmain tree Main {{\n    succeed\n}}\n", AFFECT_COMMANDS)
    yield ("token/block comment", "1 MB", "block.affect",
           f"/* {'*' * tok} */\nmain tree Main {{\n    succeed\n}}\n", AFFECT_COMMANDS)
    yield ("token/unterminated string", "1 MB", "unterminated.affect",
           f'const S = "{"s" * tok}\n', AFFECT_COMMANDS)
    yield ("token/number", "1 MB", "number.affect",
           f"const N = {'9' * tok};\nmain tree Main {{\n    succeed\n}}\n", AFFECT_COMMANDS)
    yield ("token/xml attribute value", "1 MB", "value.xml",
           xml_tree(f'<SetBlackboard output_key="k" value="{"v" * tok}"/>'), XML_COMMANDS)
    yield ("token/xml element name", "1 MB", "name.xml",
           xml_tree(f"<{'N' * tok}/>"), XML_COMMANDS)
    yield ("wide node", "10,000 children", "wide.affect", wide(10_000),
           ["check", "fmt", "run-interp", "run", "build", "lsp"])
    yield ("wide node/xml", "10,000 children", "wide.xml", xml_wide(10_000), XML_COMMANDS)
    yield ("long program", "20,000 lines", "long.affect",
           long_program(lines_to_units(20_000)), AFFECT_COMMANDS)
    doc = long_program(5 * MB // len(long_program(1)))
    yield ("long program", f"{len(doc) / MB:.0f} MB ({doc.count(chr(10)):,} lines)",
           "long5mb.affect", doc, ["check", "lsp"])
    yield ("chain/constants", "30,000", "consts.affect", const_chain(30_000),
           ["check", "run", "build"])
    yield ("chain/tree calls", "30,000", "tcalls.affect", tree_chain(30_000),
           ["check", "fmt", "run", "build"])
    # An error in each of 2,000 small trees: recovery, the filtering of its cascades and
    # every diagnostic in JSON (and in the language server) stay linear in the file.
    for n in (2_000, 20_000):
        yield ("many errors", f"{n:,} trees", f"errors{n}.affect", small_trees(n, True),
               ["check", "check-json", "fmt", "lsp"])
        yield ("many errors/fixed", f"{n:,} trees", f"fixed{n}.affect", small_trees(n, False),
               ["check", "check-json"])
    yield ("memory file", "100,000 traces", "big.eltm", memory_file(100_000), ["memory"])
    yield ("memory file/1 MB key", "1 MB key", "key.eltm", memory_file(10, key_bytes=MB),
           ["memory"])


def argv(command, f):
    return {
        "check": ["check", f],
        "check-json": ["check", "--format", "json", f],
        "fmt": ["fmt", "--stdout", f],
        "run": ["run", f, "--ticks", "10", "--quiet", "--no-persist"],
        "run-interp": ["run", f, "--ticks", "10", "--quiet", "--no-persist", "--engine",
                       "interp"],
        "build": ["build", "--emit", "groot", f],
        "build-v3": ["build", "--emit", "groot-v3", f],
        "import": ["import", f],
        "convert": ["convert", "--to", "v3", f],
        "memory": ["memory", "show", f],
    }[command]


# ---------------------------------------------------------------- measuring


def limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def spawn(args, cwd, stdin, stdout, stderr):
    """`affect ARGS` under GNU time, which writes its account to `cwd/time`."""
    account = os.path.join(cwd, "time")
    if os.path.exists(account):
        os.remove(account)
    return subprocess.Popen([GNU_TIME, "-o", account, "-f", "%M %U %S", AFFECT] + args,
                            cwd=cwd, stdin=stdin, stdout=stdout, stderr=stderr,
                            preexec_fn=limit_address_space, start_new_session=True,
                            env=dict(os.environ, NO_COLOR="1"))


def account(cwd, status, usage):
    """(status, peak MB, CPU seconds) of the command, from GNU time's account; the status
    says `signal N` when it was killed by one."""
    try:
        lines = open(os.path.join(cwd, "time")).read().splitlines()
        kb, user, system = lines[-1].split()
        mb, cpu = int(kb) / 1024.0, float(user) + float(system)
    except (OSError, IndexError, ValueError):
        # GNU time itself was killed (a timeout): the kernel's account of it and its child.
        return status, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime
    for line in lines:
        if line.startswith("Command terminated by signal"):
            return ("signal", int(line.split()[-1])), mb, cpu
    return status, mb, cpu


def reap(proc, deadline, cwd):
    """Waits for `proc` until `deadline` (killing it then): (status, peak MB, CPU seconds,
    timed out)."""
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            # The whole group: GNU time and the command under it.
            os.killpg(proc.pid, 9)
            timed_out = True
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.002)
    proc.returncode = 0  # reaped here: keep Popen from waiting again
    status, mb, cpu = account(cwd, status, usage)
    return status, mb, cpu, timed_out


def measure_command(args, cwd):
    out_path = os.path.join(cwd, "out")
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        start = time.monotonic()
        proc = spawn(args, cwd, subprocess.DEVNULL, out, err)
        status, mb, cpu, timed_out = reap(proc, start + TIMEOUT, cwd)
        seconds = time.monotonic() - start
    output = os.path.getsize(out_path) + os.path.getsize(out_path + ".err")
    return seconds, cpu, mb, status, timed_out, f"exit {exit_text(status)}, {output:,} B out"


def signalled(status):
    return isinstance(status, tuple) or os.WIFSIGNALED(status)


def exit_text(status):
    if isinstance(status, tuple):
        return f"signal {status[1]}"
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return str(os.WEXITSTATUS(status))


class Lsp:
    """The language server as a child process, its answers read on a thread."""

    def __init__(self, cwd):
        self.proc = spawn(["lsp"], cwd, subprocess.PIPE, subprocess.PIPE, subprocess.DEVNULL)
        self.messages = []
        self.cv = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()
        self.next_id = 0

    def read(self):
        r = self.proc.stdout
        while True:
            length = None
            while True:
                line = r.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(r.read(length))
            with self.cv:
                self.messages.append(msg)
                self.cv.notify_all()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        want = self.next_id
        return self.wait(lambda m: m.get("id") == want and "method" not in m)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, pred, deadline=None):
        deadline = deadline or time.monotonic() + TIMEOUT
        with self.cv:
            while True:
                for i, m in enumerate(self.messages):
                    if pred(m):
                        return self.messages.pop(i)
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.cv.wait(min(left, 0.5))

    def diagnostics(self, uri, version):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri
                         and m["params"].get("version", version) == version)


def measure_lsp(path, cwd):
    """Open the document, wait for its diagnostics; change it (one more line), wait again;
    ask for its symbols. The seconds are the slowest of the three answers."""
    text = open(path, encoding="utf-8", errors="replace").read()
    uri = "file://" + path
    start = time.monotonic()
    lsp = Lsp(cwd)
    notes = []
    worst = 0.0
    try:
        lsp.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        lsp.notify("initialized", {})
        t = time.monotonic()
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "affect", "version": 1, "text": text}})
        d = lsp.diagnostics(uri, 1)
        worst = max(worst, time.monotonic() - t)
        notes.append(f"{len(d['params']['diagnostics'])} diags" if d else "no diagnostics")
        t = time.monotonic()
        lsp.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": text + "\n"}]})
        d = lsp.diagnostics(uri, 2)
        worst = max(worst, time.monotonic() - t)
        if not d:
            notes.append("no diagnostics after change")
        t = time.monotonic()
        a = lsp.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        worst = max(worst, time.monotonic() - t)
        notes.append("symbols answered" if a else "symbols unanswered")
        lsp.request("shutdown", None)
        lsp.notify("exit", None)
        lsp.proc.stdin.close()
    except (BrokenPipeError, OSError) as e:
        notes.append(f"pipe: {e}")
    status, mb, cpu, timed_out = reap(lsp.proc, start + TIMEOUT, cwd)
    return worst, cpu, mb, status, timed_out, f"exit {exit_text(status)}, " + ", ".join(notes)


def verdict(seconds, mb, status, timed_out):
    """`seconds` is the CPU time: on a shared machine the wall time measures the others'
    load as much as the command."""
    if timed_out:
        return "TIMEOUT"
    if signalled(status):
        return "KILLED"
    bad = []
    if seconds > MAX_SECONDS:
        bad.append("SLOW")
    if mb > MAX_MB:
        bad.append("BIG")
    return "+".join(bad) or "ok"


def print_matrix(rows, load, end_load):
    commands = []
    for r in rows:
        if r[2] not in commands:
            commands.append(r[2])
    print(f"Load average {load:.1f} at the start, {end_load:.1f} at the end. Each cell: CPU "
          "seconds / peak MB; **bold** is over 2 s or 200 MB; - is not applicable.\n")
    print("| class | size | " + " | ".join(commands) + " |")
    print("|---|---|" + "---:|" * len(commands))
    classes = []
    for r in rows:
        if (r[0], r[1]) not in classes:
            classes.append((r[0], r[1]))
    for cls, size in classes:
        cells = []
        for c in commands:
            hit = [r for r in rows if (r[0], r[1], r[2]) == (cls, size, c)]
            if not hit:
                cells.append("-")
                continue
            _, _, _, wall, cpu, mb, v, _ = hit[0]
            text = "timeout" if v == "TIMEOUT" else f"{cpu:.2f} / {mb:.0f}"
            cells.append(text if v == "ok" else f"**{text}**")
        print(f"| {cls} | {size} | " + " | ".join(cells) + " |")


def main():
    global AFFECT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--affect", default=AFFECT, help="the affect binary (release)")
    ap.add_argument("--only", default="", help="only classes containing this text")
    ap.add_argument("--markdown", action="store_true",
                    help="print a markdown table: one row per run")
    ap.add_argument("--matrix", action="store_true",
                    help="print a markdown table: one row per class, one column per command, "
                         "each cell CPU seconds / peak MB (docs/reliability.md)")
    args = ap.parse_args()
    AFFECT = os.path.abspath(args.affect)
    if not os.path.exists(GNU_TIME):
        sys.exit(f"no {GNU_TIME}: install GNU time (Debian: apt-get install time)")
    if not os.path.exists(AFFECT):
        sys.exit(f"no {AFFECT}: cargo build --release --no-default-features --bin affect")
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="hostile_sizes.") as tmp:
        for cls, size, name, text, commands in cases():
            if args.only not in cls:
                continue
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode())
            for command in commands:
                if command == "lsp":
                    r = measure_lsp(path, tmp)
                else:
                    r = measure_command(argv(command, name), tmp)
                wall, cpu, mb, status, timed_out, note = r
                row = (cls, size, command, wall, cpu, mb, verdict(cpu, mb, status, timed_out),
                       note)
                rows.append(row)
                print(f"{cls:<28} {size:<18} {command:<10} {wall:7.2f} s {cpu:7.2f} s CPU "
                      f"{mb:8.1f} MB {row[6]:<8} {note}", file=sys.stderr, flush=True)
            os.remove(path)
    if args.markdown:
        end_load = os.getloadavg()[0]
        print(f"Load average {load:.1f} at the start, {end_load:.1f} at the end.\n")
        print("| class | size | command | wall s | CPU s | peak MB | verdict | result |")
        print("|---|---|---|---:|---:|---:|---|---|")
        for cls, size, command, wall, cpu, mb, v, note in rows:
            print(f"| {cls} | {size} | {command} | {wall:.2f} | {cpu:.2f} | {mb:.0f} | {v} "
                  f"| {note} |")
    if args.matrix:
        print_matrix(rows, load, os.getloadavg()[0])
    bad = [r for r in rows if r[6] != "ok"]
    print(f"{len(rows)} runs, {len(bad)} over {MAX_SECONDS:g} s / {MAX_MB:g} MB or not ended "
          "by themselves", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
