//! Many errors: a file with a syntax error in each of 20,000 small trees (ten times the
//! issue's 2,000), and the same file with mistakes found by the checker too. Every error is
//! reported (all of them in JSON, 100 in the human output), each once, in bounded output.
//! (The time, linear in the file whatever the number of errors, is measured in
//! benches/hostile.rs, `many_errors`.)

use super::*;

/// `n` small trees calling one action; with `broken`, each call is a syntax error.
fn small_trees(n: usize, broken: bool) -> String {
    let value = if broken { "_" } else { "true" };
    let mut s = String::from("action Go(in reached: bool);\n\n");
    for i in 0..n {
        s.push_str(&format!("tree T{i}() {{\n    Go(reached: {value})\n}}\n"));
    }
    s
}

#[test]
fn twenty_thousand_syntax_errors_are_each_reported_once() {
    let dir = scratch("errors_syntax");
    let n = 20_000;
    write(&dir, "broken.affect", small_trees(n, true));
    let (st, codes) = check(&dir, "broken.affect");
    assert_eq!(st, 1);
    assert_eq!(codes.len(), n, "one error per tree, none hidden");
    assert!(codes.iter().all(|c| c == "E0101"), "{:?}", &codes[..5]);
    let out = affect_in(&dir, &["check", "broken.affect"]);
    let err = stderr(&out);
    assert_eq!(
        err.matches("[E0101]").count(),
        100,
        "the human output keeps its cap"
    );
    assert!(
        err.contains(&format!("and {} more diagnostics", n - 100)),
        "{}",
        &err[err.len().saturating_sub(500)..]
    );
    write(&dir, "fixed.affect", small_trees(n, false));
    assert_eq!(check(&dir, "fixed.affect"), (0, vec![]));
}

#[test]
fn syntax_and_checker_errors_in_alternate_trees_are_all_reported() {
    // Even trees have a syntax error, odd ones a type error (a number for a `bool`): the
    // checker's errors in the trees that parse are reported with the syntax errors.
    let dir = scratch("errors_mixed");
    let n = 10_000;
    let mut s = String::from("action Go(in reached: bool);\n\n");
    for i in 0..n {
        let value = if i % 2 == 0 { "_" } else { "3" };
        s.push_str(&format!("tree T{i}() {{\n    Go(reached: {value})\n}}\n"));
    }
    write(&dir, "mixed.affect", s);
    let (st, codes) = check(&dir, "mixed.affect");
    assert_eq!(st, 1);
    assert_eq!(codes.len(), n);
    for (i, c) in codes.iter().enumerate() {
        assert_eq!(c, if i % 2 == 0 { "E0101" } else { "E0301" }, "tree {i}");
    }
}

#[test]
fn twenty_thousand_openers_closed_by_the_wrong_kind_are_each_reported() {
    // Each `]` meets a `(` opened on its line: a mismatched closer (E0108), taken as the one
    // meant; the nesting is past the limit (E0118). Finding the opener a closer matches
    // scanned the open delimiters for each closer (n²: 6 minutes at 50,000 in a debug build).
    let dir = scratch("errors_mismatched");
    let n = 20_000;
    write(
        &dir,
        "mismatched.affect",
        format!("const C = {}1{};\n", "(".repeat(n), "]".repeat(n)),
    );
    let (st, codes) = check(&dir, "mismatched.affect");
    assert_eq!(st, 1);
    assert_eq!(codes.iter().filter(|c| *c == "E0108").count(), n);
    assert_eq!(codes.iter().filter(|c| *c == "E0118").count(), 1);
}
