//! The language server publishes every diagnostic of a document (no cap, unlike `affect
//! check`'s human output), and one error does not hide the others: the errors of several
//! declarations, found by several phases, come in one publication.

use crate::client::Client;
use serde_json::Value;
use std::path::PathBuf;

fn summary(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            format!(
                "{} {}:{}",
                d["code"].as_str().unwrap(),
                d["range"]["start"]["line"],
                d["range"]["start"]["character"]
            )
        })
        .collect()
}

#[test]
fn errors_of_every_declaration_and_phase_are_published_together() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cli/every_error.affect");
    let text = std::fs::read_to_string(path).unwrap();
    let mut c = Client::start();
    let diags = c.open("untitled:every_error", &text);
    // Lines and characters are 0-based: the same places as `affect check` reports.
    insta::assert_snapshot!(summary(&diags).join("\n"), @r"
    E0101 7:16
    E0204 13:8
    E0301 18:16
    E0301 23:21
    E0112 26:8
    ");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn two_thousand_errors_are_all_published() {
    // A syntax error in each of 2,000 small trees, then the same file with 4,000: every one
    // is published, in the order of the file.
    let trees = |n: usize| -> String {
        let mut s = String::from("action Go(in reached: bool);\n\n");
        for i in 0..n {
            s.push_str(&format!("tree T{i}() {{\n    Go(reached: _)\n}}\n"));
        }
        s
    };
    let mut c = Client::start();
    let diags = c.open("untitled:many", &trees(2_000));
    assert_eq!(diags.len(), 2_000);
    assert!(diags.iter().all(|d| d["code"] == "E0101"));
    let lines: Vec<u64> = diags
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, (0..2_000).map(|i| 3 + 3 * i).collect::<Vec<u64>>());
    assert_eq!(c.shutdown(), 0);
}
