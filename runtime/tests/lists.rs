//! List and point values in both engines: literals anywhere an expression goes (constant ones
//! shared and never changed, computed ones rebuilt), assignment that copies, element
//! assignment, lists passed to subtrees and to leaves. Each program runs in the interpreter
//! and in the JIT; the final blackboards must be the expected values in both.

use affect_compiler::sema::NoFiles;
use affect_runtime::jit::EngineKind;
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::NoTrace;

/// The final root blackboard of the first agent, in one engine.
fn finish(source: &str, ticks: u64, engine: EngineKind) -> Vec<(String, String)> {
    let analysis = affect_compiler::check_source_with(source, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("does not compile: {:#?}", analysis.diagnostics));
    let config = RunConfig {
        ticks,
        engine,
        ..RunConfig::default()
    };
    let out = run::run(&program, &config, &mut NoTrace, |_| {}).expect("runs");
    if engine == EngineKind::Jit {
        assert_eq!(out[0].fallback, None, "the JIT ran the program");
    }
    out.into_iter().next().expect("one agent").variables
}

/// Runs in both engines and checks each named variable's final text.
fn expect(source: &str, ticks: u64, want: &[(&str, &str)]) {
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        let vars = finish(source, ticks, engine);
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
