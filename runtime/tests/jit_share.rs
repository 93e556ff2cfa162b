//! Units of the same shape share one compiled function (runtime/src/jit/share.rs): many
//! calls of one subtree, with other constants, variables and expressions on their ports,
//! compile to as many functions as one call does, and run exactly as the interpreter runs
//! them — timers, halts, parallel nodes' edges and the subtrees' own variables included —
//! in the JIT, the tiered engine, from the code cache, and under a wide node.

#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use affect_compiler::ir::program::Program;
use affect_compiler::sema::NoFiles;
use affect_runtime::jit::{self, EngineKind};
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::JsonLines;
use std::fmt::Write as _;

/// A subtree of about 30 nodes that keeps state of its own (variables, timers, a retry's
/// count, a parallel node's edges) and writes a variable of its caller.
const LEG: &str = r#"tree Leg(in speed: num, inout total: num) {
    var pos: num = 0;
    var laps: int = 0;
    var wait: num = 1;
    sequence {
        do { pos = pos + speed; laps += 1 }
        reactive_fallback {
            check pos > 40
            parallel(success: 2, failure: 1) {
                sequence { do { total = total + pos } sleep(20ms) }
                delay(10ms) { do { wait = wait * 1.5 } }
                retry(2) { check laps > 2 } on_failure { laps += 1 }
            }
        }
        if_then_else {
            check total > 10
            timeout(30ms) { sleep(50ms) } on_halted { total = total - 1 }
            repeat(2) { do { pos = pos / 2 } }
        }
        fallback {
            check laps > 3 skip_if wait > 100
            do { laps = 0 }
        }
        parallel_all(max_failures: 1) {
            sequence { do { wait = wait + total / 100 } check wait < 50 }
            retry(3) { sequence { do { laps += 1 } check laps > 5 } }
            force_success { timeout(15ms) { sleep(10ms) } }
        }
        reactive_sequence {
            check speed >= 0
            repeat(3) { sequence { do { pos = pos + 1; total = total + 0.25 } sleep(5ms) } }
        } on_halted { wait = wait + 1 }
    }
}
"#;

/// `Leg` with other constants: thresholds, durations, counts, a parallel node's thresholds.
fn leg2() -> String {
    LEG.replace("tree Leg(", "tree Leg2(")
        .replace("pos > 40", "pos > 45")
        .replace("sleep(20ms)", "sleep(25ms)")
        .replace("retry(2)", "retry(4)")
        .replace("timeout(30ms)", "timeout(35ms)")
        .replace("total + 0.25", "total + 0.75")
        .replace(
            "parallel(success: 2, failure: 1)",
            "parallel(success: 1, failure: 2)",
        )
}

/// `calls` calls of `Leg`, with constants, both variables and (with `exprs`) expressions
/// for ports, under a reactive sequence whose condition turns false now and then (halting
/// the running call).
fn program_text(calls: usize, exprs: bool) -> String {
    let mut body = String::new();
    for k in 0..calls {
        let speed = match k % 3 {
            0 => format!("{}", 1 + k % 7),
            1 if exprs => format!("a / 10 + {k}"),
            1 => "a".to_string(),
            _ => format!("{}.5", k % 5),
        };
        let total = if k % 2 == 0 { "a" } else { "b" };
        let _ = writeln!(body, "            Leg(speed: {speed}, total: {total})");
    }
    main_text(&body)
}

/// `calls` calls that differ only in constants and in the caller's variable bound to
/// `total`: `Leg` and `Leg2` in turn (with `varied`), ports `a / 10 + k` and `total` bound
/// to `a`, `b` or `c`; without `varied`, every call is the first.
fn varied_text(calls: usize, varied: bool) -> String {
    let mut body = String::new();
    for k in 0..calls {
        let k = if varied { k } else { 0 };
        let leg = if k % 2 == 0 { "Leg" } else { "Leg2" };
        let total = ["a", "b", "c"][k % 3];
        let _ = writeln!(
            body,
            "            {leg}(speed: a / 10 + {}, total: {total})",
            k % 5 + 1
        );
    }
    main_text(&body)
}

fn main_text(body: &str) -> String {
    let leg2 = leg2();
    format!(
        "{LEG}
{leg2}
main tree Main {{
    var a: num = 0;
    var b: num = 5;
    var c: num = 2;
    var n: int = 0;
    reactive_sequence {{
        check n - (n / 7) * 7 != 6
        sequence {{
            do {{ n += 1 }}
{body}        }}
    }} on_halted {{ n += 1 }}
}}
"
    )
}

fn program(calls: usize, exprs: bool) -> Program {
    compile(&program_text(calls, exprs))
}

fn compile(source: &str) -> Program {
    let analysis = affect_compiler::check_source_with(source, &NoFiles);
    match analysis.program {
        Some(p) => p,
        None => panic!(
            "does not compile: {:?}\n{source}",
            analysis
                .diagnostics
                .iter()
                .map(|d| format!("{} {}", d.code, d.message))
                .collect::<Vec<_>>()
        ),
    }
}

fn config(engine: EngineKind) -> RunConfig {
    RunConfig {
        ticks: 120,
        engine,
        pacing: run::Pacing::SleepBetweenTicks { ms: 7.0 },
        // The tiered engine switches in the middle of the run.
        tier_at: Some(37),
        ..RunConfig::default()
    }
}

fn trace(program: &Program, config: &RunConfig) -> (String, EngineKind) {
    let mut sink = JsonLines::new(Vec::new());
    let s = run::run(program, config, &mut sink, |_| {}).expect("runs");
    assert!(
        s[0].fallback.is_none(),
        "the JIT fell back: {:?}",
        s[0].fallback
    );
    (String::from_utf8(sink.into_inner()).unwrap(), s[0].engine)
}

/// Fails at the first line where trace `t` differs from the interpreter's.
fn same_trace(reference: &str, t: &str, what: &str) {
    if t != reference {
        let i = t
            .lines()
            .zip(reference.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{what}: the trace differs at line {}:\n  interp: {}\n  jit:    {}",
            i + 1,
            reference.lines().nth(i).unwrap_or("(end)"),
            t.lines().nth(i).unwrap_or("(end)")
        );
    }
}

fn stats(program: &Program) -> jit::CompileStats {
    assert!(
        std::env::var_os("AFFECT_JIT_SHARE").is_none(),
        "AFFECT_JIT_SHARE turns sharing off"
    );
    jit::compile_with(program, &program.agents[0], true)
        .expect("compiles")
        .stats
}

/// Many calls compile to the functions of one: the units grow with the calls, the
/// distinct functions do not.
#[test]
fn calls_of_one_subtree_share_their_functions() {
    // From 6 calls on every kind of binding is there: constants, `a` for `speed`, and
    // `a` and `b` for `total`, which is a variable of the caller's (its slot number comes
    // from the parameter table).
    let few = stats(&program(8, false));
    let many = stats(&program(40, false));
    assert!(
        many.units >= 4 * few.units,
        "40 calls make more units than 8: {few:?} {many:?}"
    );
    assert_eq!(
        many.shapes, few.shapes,
        "40 calls need no more distinct functions than 8: {few:?} {many:?}"
    );
    assert_eq!(
        many.functions, few.functions,
        "40 calls compile as many functions as 8: {few:?} {many:?}"
    );
    assert!(
        many.shapes * 5 < many.units,
        "most units share a function: {many:?}"
    );
}

/// Calls that differ in constants (of their ports' expressions, and of two subtrees alike
/// but for thresholds, durations, counts and a parallel node's thresholds) and in the
/// caller's variable bound to a port compile to as many functions as identical calls:
/// what differs is read from the parameter table.
#[test]
fn calls_differing_in_constants_and_bindings_share() {
    for calls in [6, 30] {
        let same = stats(&compile(&varied_text(calls, false)));
        let varied = stats(&compile(&varied_text(calls, true)));
        assert_eq!(varied.units, same.units, "{same:?} {varied:?}");
        assert_eq!(
            varied.shapes, same.shapes,
            "{calls} varied calls need as many distinct functions as identical ones: \
             {same:?} {varied:?}"
        );
        assert_eq!(
            varied.functions, same.functions,
            "{calls} varied calls compile as many functions as identical ones: \
             {same:?} {varied:?}"
        );
        assert!(
            varied.shapes * 3 < varied.units,
            "most units share a function: {varied:?}"
        );
    }
}

/// The shared code runs every call on its own state: the JIT's trace and blackboard are
/// the interpreter's, and so are the tiered engine's, which switches in the middle.
#[test]
fn shared_functions_run_as_the_interpreter() {
    let programs = [
        (program_text(2, false), "2 calls"),
        (program_text(5, true), "5 calls with expressions"),
        (program_text(17, false), "17 calls"),
        (program_text(17, true), "17 calls with expressions"),
        (varied_text(7, true), "7 varied calls"),
        (varied_text(16, true), "16 varied calls"),
    ];
    for (text, calls) in programs {
        let p = compile(&text);
        let (reference, _) = trace(&p, &config(EngineKind::Interp));
        for engine in [EngineKind::Jit, EngineKind::Tiered] {
            let (t, e) = trace(&p, &config(engine));
            assert_eq!(e, EngineKind::Jit, "{engine:?} ends in compiled code");
            same_trace(&reference, &t, &format!("{calls}, {engine:?}"));
        }
    }
}

/// Code with shared functions stored in the cache loads and runs as the interpreter (the
/// parameter table is made again from the program, not stored).
#[test]
fn shared_functions_load_from_the_code_cache() {
    for (k, text) in [program_text(9, true), varied_text(11, true)]
        .iter()
        .enumerate()
    {
        from_the_cache(&compile(text), k);
    }
}

fn from_the_cache(p: &Program, k: usize) {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("affect-share-cache-{k}-"))
        .tempdir()
        .unwrap();
    let dir = tmp.path().join("cache");
    let (reference, _) = trace(p, &config(EngineKind::Interp));
    let lookup = || {
        let (code, said) = jit::compile_cached(p, &p.agents[0], true, Some(dir.clone()));
        let code = code.expect("compiles");
        assert!(code.stats.shapes < code.stats.units, "{:?}", code.stats);
        said
    };
    assert_eq!(lookup(), Some("miss"));
    assert_eq!(lookup(), Some("hit"));
    let cfg = RunConfig {
        code_cache: Some(dir.clone()),
        ..config(EngineKind::Jit)
    };
    let (t, _) = trace(p, &cfg);
    assert!(t == reference, "from the cache: the trace differs");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Under a sequence too wide to unroll, each call is a unit the loop calls through the
/// unit table, which carries the unit's offsets.
#[test]
fn shared_functions_under_a_wide_node() {
    let p = program(140, false);
    let s = stats(&p);
    assert!(s.shapes * 20 < s.units, "{s:?}");
    let cfg = RunConfig {
        ticks: 40,
        ..config(EngineKind::Interp)
    };
    let (reference, _) = trace(&p, &cfg);
    let (t, _) = trace(
        &p,
        &RunConfig {
            engine: EngineKind::Jit,
            ..cfg
        },
    );
    assert!(
        t == reference,
        "a wide node's shared children: the trace differs"
    );
}

/// A subtree whose nodes name its node or slots to Rust or to a table: a foreign action
/// (its stand-in is found by the node's id), `was_updated`, `skip_unless_updated`,
/// `wait_update` (each node's last seen write), a `for` loop and a list push (the list's
/// slot).
const TOOL: &str = r#"action Grab(in force: num, out got: num);
tree Tool(in level: num, inout total: num) {
    var q: [int] = [1];
    var item: int = 0;
    var got: num = 0;
    var n: int = 0;
    sequence {
        do { n += 1; q.push(n) }
        for item in q { do { total = total + item / 10 } }
        fallback { was_updated(total) do { got = got + 1 } }
        skip_unless_updated(got) { do { total = total + 0.5 } }
        force_success { wait_update(n) { Grab(force: level * 2, got: got) } }
        fallback { Grab(force: level + 1, got: got) do { n = 0 } }
    }
}
"#;

fn tool_text(calls: usize) -> String {
    let mut body = String::new();
    for k in 0..calls {
        let total = ["a", "b", "c"][k % 3];
        let _ = writeln!(body, "        Tool(level: a / 10 + {k}, total: {total})");
    }
    format!(
        "{TOOL}
main tree Main {{
    var a: num = 0;
    var b: num = 5;
    var c: num = 2;
    parallel_all(max_failures: 99) {{
{body}    }}
}}
"
    )
}

/// Units with foreign leaves, watchers of writes, loops and list pushes share functions
/// too, and run as the interpreter runs them, the stand-ins' statuses included.
#[test]
fn calls_with_leaves_watchers_and_loops_share() {
    let few = stats(&compile(&tool_text(10)));
    let many = stats(&compile(&tool_text(30)));
    assert!(few.units >= 10, "each call is a unit: {few:?}");
    assert_eq!(many.shapes, few.shapes, "{few:?} {many:?}");
    assert!(many.shapes * 3 < many.units, "{many:?}");
    let p = compile(&tool_text(7));
    let with_leaves = |engine| RunConfig {
        ticks: 60,
        leaves: vec![run::LeafScript {
            key: "Grab".into(),
            statuses: run::parse_statuses("running,success,failure,running,running,success")
                .expect("valid"),
            cycle: true,
        }],
        ..config(engine)
    };
    let (reference, _) = trace(&p, &with_leaves(EngineKind::Interp));
    for engine in [EngineKind::Jit, EngineKind::Tiered] {
        let (t, _) = trace(&p, &with_leaves(engine));
        same_trace(&reference, &t, &format!("{engine:?}"));
    }
}

/// Calls of a subtree with a sequence too wide to unroll: its loop finds its children's
/// units through the unit table from a first child that is a parameter of the shared code.
/// `level` reads `a`, which every third call also binds to `total`: the representative
/// must be a call that does not.
fn wide_text(calls: usize) -> String {
    let mut steps = String::new();
    for k in 0..140 {
        let _ = writeln!(steps, "        do {{ x = x + level / {} }}", k % 9 + 1);
    }
    let mut body = String::new();
    for k in 0..calls {
        let total = ["a", "b", "c"][k % 3];
        let _ = writeln!(body, "        Many(level: a / 10 + {k}, total: {total})");
    }
    format!(
        "tree Many(in level: num, inout total: num) {{
    var x: num = 0;
    sequence {{
        reactive_sequence {{
{steps}        check x < 10000
        }}
        do {{ total = total + x / 1000 }}
        sleep(15ms)
    }} on_halted {{ total = total - 1 }}
}}
main tree Main {{
    var a: num = 0;
    var b: num = 5;
    var c: num = 2;
    var n: int = 0;
    reactive_sequence {{
        check n - (n / 5) * 5 != 4
        parallel_all(max_failures: 99) {{
            do {{ n += 1 }}
{body}        }}
    }}
}}
"
    )
}

#[test]
fn calls_with_a_wide_node_share() {
    // From 4 calls on, calls are units of their own (the first ones are inlined).
    let few = stats(&compile(&wide_text(9)));
    let many = stats(&compile(&wide_text(18)));
    assert_eq!(many.shapes, few.shapes, "{few:?} {many:?}");
    assert!(many.units > 2 * few.units, "{few:?} {many:?}");
    let p = compile(&wide_text(5));
    let (reference, _) = trace(&p, &config(EngineKind::Interp));
    for engine in [EngineKind::Jit, EngineKind::Tiered] {
        let (t, _) = trace(&p, &config(engine));
        same_trace(&reference, &t, &format!("{engine:?}"));
    }
}
