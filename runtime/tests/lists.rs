//! List and point values in both engines: literals anywhere an expression goes (constant ones
//! shared and never changed, computed ones rebuilt), assignment that copies, element
//! assignment, lists passed to subtrees and to leaves. Each program runs in the interpreter
//! and in the JIT; the final blackboards must be the expected values in both.

use affect_compiler::sema::NoFiles;
use affect_runtime::jit::EngineKind;
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::{JsonLines, NoTrace};

/// The final root blackboard of the first agent and the trace's `error` line (the variable
/// whose read stopped the tree, "" when none did), in one engine.
fn finish(source: &str, ticks: u64, engine: EngineKind) -> (Vec<(String, String)>, String) {
    let analysis = affect_compiler::check_source_with(source, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("does not compile: {:#?}", analysis.diagnostics));
    let config = RunConfig {
        ticks,
        engine,
        ..RunConfig::default()
    };
    let mut sink = JsonLines::new(Vec::new());
    let out = run::run(&program, &config, &mut sink, |_| {}).expect("runs");
    if engine == EngineKind::Jit {
        assert_eq!(out[0].fallback, None, "the JIT ran the program");
    }
    let text = String::from_utf8(sink.into_inner()).unwrap();
    let error = text
        .lines()
        .find(|l| l.contains("\"ev\":\"error\""))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["var"].as_str().unwrap_or_default().to_string()
        })
        .unwrap_or_default();
    (out.into_iter().next().expect("one agent").variables, error)
}

/// Runs in both engines and checks each named variable's final text; no read stops the tree.
fn expect(source: &str, ticks: u64, want: &[(&str, &str)]) {
    expect_stop(source, ticks, "", want);
}

/// Runs in both engines: each named variable's final text, and the variable whose read
/// stopped the tree ("" when none did).
fn expect_stop(source: &str, ticks: u64, stopped_at: &str, want: &[(&str, &str)]) {
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        let (vars, error) = finish(source, ticks, engine);
        assert_eq!(error, stopped_at, "{engine:?}: {vars:?}");
        for (name, value) in want {
            let got = vars
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no variable `{name}` in {vars:?}"));
            assert_eq!(got.1, *value, "`{name}` with {engine:?}: {vars:?}");
        }
    }
}

#[test]
fn list_literal_in_a_script_is_a_real_list() {
    expect(
        r#"
main tree Main {
    var xs: [num] = [1, 2, 3];
    var a: num = 0;
    var b: num = 0;
    sequence {
        do { a = xs[1] + len(xs) }
        do { xs = [7, 8]; b = xs[0] + len(xs) * 100 }
    }
}
"#,
        1,
        &[("a", "5"), ("b", "207"), ("xs", "[7.0, 8.0]")],
    );
}

#[test]
fn assignment_copies_and_later_changes_stay_apart() {
    expect(
        r#"
main tree Main {
    var xs: [num] = [1, 2, 3];
    var ys: [num] = [];
    var zs: [num] = [];
    sequence {
        do { ys = xs; ys.push(4); xs[0] = 10; xs[1] += 5 }
        do { zs = [7, 8]; zs.push(9); zs[0] = 70 }
        // The literal is a constant shared by every use: changing `zs` did not change it.
        do { ys = [7, 8] }
    }
}
"#,
        1,
        &[
            ("xs", "[10.0, 7.0, 3.0]"),
            ("ys", "[7.0, 8.0]"),
            ("zs", "[70.0, 8.0, 9.0]"),
        ],
    );
}

#[test]
fn computed_literals_are_rebuilt_each_time() {
    expect(
        r#"
main tree Main {
    var n: num = 0;
    var p: Point = (0m, 0m);
    var xs: [num] = [];
    var s: num = 0;
    do { n += 1; p = (n * 1m, 2m); xs = [n, n * 10]; s = s + [n, 5][0] + len([n, n, n]) }
}
"#,
        3,
        &[
            ("p", "[3.0, 2.0]"),
            ("xs", "[3.0, 30.0]"),
            // (1 + 3) + (2 + 3) + (3 + 3)
            ("s", "15"),
        ],
    );
}

#[test]
fn element_assignment_outside_the_list_changes_nothing() {
    expect(
        r#"
main tree Main {
    var xs: [int] = [1, 2];
    var miss: num = 0;
    do { xs[5] = 9; xs[-1] = 9; xs[1] = 20; miss = xs[5] }
}
"#,
        1,
        &[("xs", "[1, 20]"), ("miss", "NaN")],
    );
}

#[test]
fn lists_passed_to_subtrees_arrive_as_values() {
    expect(
        r#"
tree Sum(in xs: [num], out total: num, out count: num) {
    var mine: [num] = [];
    do { mine = xs; mine.push(100); total = mine[0] + mine[1] + mine[2]; count = len(xs) }
}

main tree Main {
    var a: num = 1;
    var xs: [num] = [4, 5];
    var t1: num = 0;
    var t2: num = 0;
    var t3: num = 0;
    var c: num = 0;
    sequence {
        Sum(xs: [a + 1, 2], total: t1, count: c)
        Sum(xs: [10, 20], total: t2, count: c)
        Sum(xs: xs, total: t3, count: c)
    }
}
"#,
        1,
        &[
            ("t1", "104"),
            ("t2", "130"),
            ("t3", "109"),
            ("c", "2"),
            // The subtree pushed onto its own copy.
            ("xs", "[4.0, 5.0]"),
        ],
    );
}

#[test]
fn lets_and_conditions_take_literals() {
    expect(
        r#"
agent A {
    rate 10Hz;
    var n: num = 0;
    var hits: num = 0;
    let pair = (n * 1m, 1m);
    let firsts = [n, n + 1];
    update { n += 1; }
    main { sequence { check [1, 2, 3][2] == 3 and len(firsts) == 2  do { hits += firsts[1] } } }
}
"#,
        2,
        // Lets are computed before `update`: the second tick sees n = 1.
        &[
            ("hits", "3"),
            ("pair", "[1.0, 1.0]"),
            ("firsts", "[1.0, 2.0]"),
        ],
    );
}

/// A list of lists copies at every depth: after `g = [q, q]`, `h = g`, `h[0] = q`,
/// `h.push(q)` and `k[1] = [n, n]`, changing `q` (or one copy) changes no other list; a
/// copy whose source names the destination's own inner lists (`h = [h[1], h[0]]`) swaps
/// them; `for` pops inner lists whole.
#[test]
fn lists_of_lists_copy_at_every_depth() {
    expect(
        r#"
main tree Main {
    var q: [int] = [1, 2];
    var g: [[int]] = [];
    var h: [[int]] = [[7], [8, 9]];
    var k: [[int]] = [];
    var item: [int] = [];
    var n: int = 0;
    sequence {
        do { g = [q, q]; q.push(3); h = [h[1], h[0]]; k = h; h[0] = q; q[0] = 10 }
        do { h.push(q); k[1] = [n, 5]; q.push(4) }
        for item in k { do { n += len(item) } }
    }
}
"#,
        1,
        &[
            ("q", "[10, 2, 3, 4]"),
            ("g", "[[1, 2], [1, 2]]"),
            ("h", "[[1, 2, 3], [7], [10, 2, 3]]"),
            ("k", "[[0, 5]]"),
            ("item", "[8, 9]"),
            ("n", "2"),
        ],
    );
}

/// Three levels deep: the copy's innermost lists are its own too.
#[test]
fn three_levels_copy_deeply() {
    expect(
        r#"
main tree Main {
    var a: [[[int]]] = [[[1], [2]], [[3]]];
    var b: [[[int]]] = [];
    var inner: [[int]] = [];
    sequence {
        do { b = a; inner = a[0]; inner[1] = [20]; a[0] = inner; inner.push([5]) }
    }
}
"#,
        1,
        &[
            ("a", "[[[1], [20]], [[3]]]"),
            ("b", "[[[1], [2]], [[3]]]"),
            ("inner", "[[1], [20], [5]]"),
        ],
    );
}

/// A variable of type `any` (an entry of an imported tree nothing types) given a list,
/// directly or as a root key from a subtree (`@a = @b`), gets a copy in a list of its own:
/// later changes of the source do not reach it, and copies of it are copies too.
#[test]
fn any_variables_given_lists_hold_copies() {
    expect(
        r#"
tree Sub() {
    do { @a = @b; @c = @a }
}

main tree Main {
    var a: any;
    var b: [int] = [1, 2];
    var c: any;
    var d: any;
    sequence {
        Sub()
        do { b.push(9); d = b; b[0] = 5; c = [7] }
    }
}
"#,
        1,
        &[
            ("a", "[1, 2]"),
            ("b", "[5, 2, 9]"),
            // A constant list's element kinds are not known here: numbers.
            ("c", "[7.0]"),
            ("d", "[1, 2, 9]"),
        ],
    );
}

/// `unset_blackboard` of a list takes its value away (BehaviorTree.CPP's UnsetBlackboard): it
/// shows as `null`, a later write gives it a fresh value, and copying it elsewhere before
/// that is a read that stops the tree, after the writes that came before it in the script.
#[test]
fn an_unset_list_holds_no_value_until_written() {
    expect_stop(
        r#"
main tree Main {
    var xs: [num] = [1, 2];
    var ys: [num] = [5];
    var zs: [num] = [];
    var n: num = 0;
    sequence {
        do { ys = xs }
        unset_blackboard("xs")
        do { xs = [7, 8, 9]; zs = xs }
        unset_blackboard("xs")
        do { n = 1; zs = [4]; ys = xs; n = 2 }
    }
}
"#,
        1,
        "xs",
        &[
            ("xs", "null"),
            ("ys", "[1.0, 2.0]"),
            ("zs", "[4.0]"),
            ("n", "1"),
        ],
    );
    // Written again, it holds the new value; a list of lists too.
    expect_stop(
        r#"
main tree Main {
    var g: [[int]] = [[1], [2, 3]];
    var q: [int] = [4];
    var n: int = 0;
    sequence {
        unset_blackboard("g")
        do { g = [q, q]; g[1] = [4, 5] }
        do { n = len(g) + len(g[1]) }
    }
}
"#,
        1,
        "",
        &[("g", "[[4], [4, 5]]"), ("n", "4")],
    );
}

/// A list `var` declared without an initial value is an input like any other: it holds no
/// value until written, so growing it first is a read that stops the tree, and assigning
/// it first gives it one.
#[test]
fn a_list_declared_without_a_value_holds_none_until_written() {
    expect_stop(
        r#"
main tree Main {
    var xs: [num];
    var n: num = 0;
    sequence { do { n = 1; xs.push(3); n = 2 } }
}
"#,
        1,
        "xs",
        &[("xs", "null"), ("n", "1")],
    );
    expect_stop(
        r#"
main tree Main {
    var xs: [num];
    var n: num = 0;
    sequence {
        do { xs = [1]; xs.push(3); n = len(xs) }
        unset_blackboard("xs")
        do { n = len(xs) }
    }
}
"#,
        1,
        "xs",
        &[("xs", "null"), ("n", "2")],
    );
}

/// Growing, changing or looping over an unset list reads it: each stops the tree there.
#[test]
fn changing_an_unset_list_in_place_is_a_read() {
    for (stmt, changed) in [
        ("xs.push(3)", "n = 1"),
        ("xs[0] = 3", "n = 1"),
        ("n = len(xs)", "n = 1"),
        ("n = xs[0]", "n = 1"),
    ] {
        let source = format!(
            "main tree Main {{\n    var xs: [num] = [1, 2];\n    var n: num = 0;\n    sequence {{ unset_blackboard(\"xs\") do {{ {changed}; {stmt}; n = 5 }} }}\n}}\n"
        );
        expect_stop(&source, 2, "xs", &[("xs", "null"), ("n", "1")]);
    }
    expect_stop(
        r#"
main tree Main {
    var xs: [num] = [1, 2];
    var item: num = 0;
    var n: num = 0;
    sequence { unset_blackboard("xs") for item in xs { do { n += 1 } } }
}
"#,
        2,
        "xs",
        &[("xs", "null"), ("n", "0")],
    );
}

/// A subtree's `in` port given an unset list receives no value (as a BehaviorTree.CPP
/// remapped entry that is missing): reading the port in the subtree stops the tree.
#[test]
fn an_unset_list_passed_to_a_subtree_has_no_value_there() {
    expect_stop(
        r#"
tree Sum(in xs: [num], out total: num) {
    do { total = len(xs) }
}

main tree Main {
    var xs: [num] = [1, 2];
    var ys: [num] = [];
    var t: num = 0;
    sequence {
        Sum(xs: ys, total: t)
        do { ys = xs }
        unset_blackboard("ys")
        Sum(xs: ys, total: t)
    }
}
"#,
        1,
        "ys",
        &[("t", "0"), ("ys", "null")],
    );
}

/// Writes after a read that stopped the tree are undone, list writes too (BehaviorTree.CPP
/// throws at the read, so nothing after it happens): the copies, pushes and element
/// assignments after it in the same script, at every depth; those before it stay.
#[test]
fn list_writes_after_a_stop_are_undone() {
    expect_stop(
        r#"
main tree Main {
    var u: num;
    var x: num = 0;
    var ys: [num] = [1];
    var zs: [num] = [2, 3];
    var g: [[num]] = [[1]];
    sequence {
        do { ys.push(4) }
        do { x = 1; ys = zs; ys.push(5); ys[0] = 9; x = u + 1; g = [zs, zs]; g[0] = [8]; zs.push(1) }
    }
}
"#,
        2,
        "u",
        &[
            ("x", "1"),
            ("ys", "[9.0, 3.0, 5.0]"),
            ("zs", "[2.0, 3.0]"),
            ("g", "[[1.0]]"),
        ],
    );
}

/// A subtree's `in` port of type `any` given a list (a literal, or an element of a list of
/// lists) holds a copy: the caller changing its list while the subtree runs reaches neither
/// the port nor the copies the subtree made of it.
#[test]
fn an_any_port_given_a_list_holds_a_copy() {
    let source = r#"
action Slow();

tree Sub(in p: any, out q: [num], out r: [num]) {
    var mine: any;
    sequence {
        do { mine = p }
        Slow()
        do { q = mine; r = p }
    }
}

main tree Main {
    var g: [[num]] = [[1, 2], [3]];
    var q: [num] = [];
    var r: [num] = [];
    var q2: [num] = [];
    var r2: [num] = [];
    var a: num = 4;
    parallel {
        Sub(p: g[0], q: q, r: r)
        Sub(p: [a, 5], q: q2, r: r2)
        do { g[0] = [9]; a = 7 }
    }
}
"#;
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        let analysis = affect_compiler::check_source_with(source, &NoFiles);
        let program = analysis.program.expect("compiles");
        let config = RunConfig {
            ticks: 2,
            engine,
            leaves: vec![run::LeafScript {
                key: "Slow".into(),
                statuses: run::parse_statuses("RUNNING,SUCCESS").unwrap(),
                cycle: false,
            }],
            ..RunConfig::default()
        };
        let out = run::run(&program, &config, &mut NoTrace, |_| {}).expect("runs");
        let vars = &out[0].variables;
        let get = |n: &str| vars.iter().find(|(k, _)| k == n).unwrap().1.clone();
        assert_eq!(get("g"), "[[9.0], [3.0]]", "{engine:?}");
        for (k, want) in [
            ("q", "[1.0, 2.0]"),
            ("r", "[1.0, 2.0]"),
            ("q2", "[4.0, 5.0]"),
            ("r2", "[4.0, 5.0]"),
        ] {
            assert_eq!(get(k), want, "`{k}` with {engine:?}: {vars:?}");
        }
    }
}
