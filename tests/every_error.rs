//! One error does not hide others: a file with mistakes in several declarations, found by
//! several phases (the parser, the settings' shapes, names, types), reports every one in one
//! run, through `affect check --format json` (every diagnostic, no cap) and the human output;
//! and fixing any one of them reveals no error that was not reported before.
//! (The language server's side is in tests/lsp/every_error.rs.)

mod support;

use affect_compiler::sema::NoFiles;
use serde_json::Value;
use support::{affect, stderr, workspace};

const FIXTURE: &str = "tests/fixtures/cli/every_error.affect";

/// Each mistake of the fixture and its fix (the text as written, the text fixed), in the
/// order of the file.
const MISTAKES: &[(&str, &str)] = &[
    ("Go(reached: _)", "Go(reached: false)"),
    ("Explroe()", "succeed"),
    ("Go(reached: 3)", "Go(reached: true)"),
    ("var speed: num = \"fast\";", "var speed: num = 1;"),
    ("retrospecton sigmoid", "retrospection sigmoid"),
];

/// `CODE line:column` of each error of a check, in order.
fn errors_of(src: &str) -> Vec<String> {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let index = affect_compiler::span::LineIndex::new(src);
    analysis
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let (line, col) = index.line_col(src, d.primary.span.start as usize);
            format!("{} {line}:{col}", d.code)
        })
        .collect()
}

#[test]
fn every_independent_error_is_reported_by_check_in_json() {
    let out = affect(&["check", "--format", "json", FIXTURE]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let found: Vec<String> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{} {}:{} {}",
                d["code"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    insta::assert_snapshot!(found.join("\n"), @r"
    E0101 8:17 unexpected `_`
    E0204 14:9 unknown node `Explroe`
    E0301 19:17 port `reached` must be a `bool`, found an `int`
    E0301 24:22 `speed` is a `num` but starts as a `str`
    E0112 27:9 unknown setting `retrospecton` in a `memory` block
    ");
    assert_eq!(doc["summary"]["errors"], 5);
    let human = affect(&["check", FIXTURE]);
    assert!(
        stderr(&human).contains("affect: 5 errors and 0 warnings in 1 file"),
        "{}",
        stderr(&human)
    );
}

#[test]
fn fixing_one_error_reveals_no_other() {
    let src = std::fs::read_to_string(workspace().join(FIXTURE)).unwrap();
    let all = errors_of(&src);
    assert_eq!(all.len(), MISTAKES.len(), "{all:?}");
    for (k, (wrong, right)) in MISTAKES.iter().enumerate() {
        assert_eq!(src.matches(wrong).count(), 1, "{wrong}");
        let fixed = src.replacen(wrong, right, 1);
        let left = errors_of(&fixed);
        // The same errors but the fixed one, at the same places (the fixes keep the lines).
        let line_of = |e: &str| e.split([' ', ':']).nth(1).unwrap().to_string();
        let expected: Vec<String> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, e)| format!("{} {}", &e[..5], line_of(e)))
            .collect();
        let left: Vec<String> = left
            .iter()
            .map(|e| format!("{} {}", &e[..5], line_of(e)))
            .collect();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort();
        let mut left_sorted = left.clone();
        left_sorted.sort();
        assert_eq!(left_sorted, expected_sorted, "after fixing `{wrong}`");
    }
}
