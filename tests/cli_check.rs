//! End-to-end tests of `affect check` through the built binary: exit statuses, the human and
//! JSON outputs, `--version` and `--help`.

mod support;

use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;
use support::{affect, stderr};

fn fixture(name: &str) -> String {
    let path = PathBuf::from("tests/fixtures").join(name);
    assert!(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(&path)
            .exists(),
        "missing fixture {}",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "--format json printed invalid JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn clean_file_exits_0_with_a_summary_line() {
    let out = affect(&["check", &fixture("cli/clean.affect")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!(stderr(&out).trim_end(), @"affect: 1 file checked, no errors");
    let two = affect(&[
        "check",
        &fixture("cli/clean.affect"),
        &fixture("cli/clean.affect"),
    ]);
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
    insta::assert_snapshot!(stderr(&two).trim_end(), @"affect: 2 files checked, no errors");
    let json = affect(&["check", "--format", "json", &fixture("cli/clean.affect")]);
    assert!(
        json.stderr.is_empty(),
        "JSON mode prints only JSON: {}",
        stderr(&json)
    );
}

#[test]
fn errors_exit_1_with_coded_positioned_reports() {
    let file = fixture("cli/two_errors.affect");
    let out = affect(&["check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("[E0109] Error: expected `;`"), "{err}");
    assert!(
        err.contains("[E0112] Error: unknown setting `halflife`"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{file}:5:")),
        "positions name file and line: {err}"
    );
    assert!(
        err.contains("affect: 2 errors and 0 warnings in 1 file"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn every_fail_fixture_exits_1() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syntax/fail");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "affect") {
            continue;
        }
        let out = affect(&["check", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", path.display());
        assert!(stderr(&out).contains("] Error: "), "{}", path.display());
    }
}

#[test]
fn warnings_only_exit_0() {
    let out = affect(&["check", &fixture("cli/warning_only.affect")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("[W0101] Warning: this doc comment documents nothing"),
        "{err}"
    );
    assert!(
        err.contains("affect: 0 errors and 1 warning in 1 file"),
        "{err}"
    );
}

#[test]
fn missing_file_exits_2() {
    let out = affect(&["check", "tests/fixtures/does_not_exist.affect"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("cannot read `tests/fixtures/does_not_exist.affect`"),
        "{err}"
    );
}

#[test]
fn missing_file_wins_over_errors_in_other_files() {
    let out = affect(&[
        "check",
        &fixture("cli/two_errors.affect"),
        "tests/fixtures/does_not_exist.affect",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // The readable file is still checked.
    assert!(stderr(&out).contains("[E0109]"));
}

#[test]
fn no_files_is_a_usage_error() {
    let out = affect(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).to_lowercase().contains("usage"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_format_is_valid_and_complete() {
    let file = fixture("cli/two_errors.affect");
    let out = affect(&["check", "--format", "json", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "JSON mode prints nothing else: {}",
        stderr(&out)
    );
    let doc = json(&out);
    let diags = doc["diagnostics"].as_array().expect("a diagnostics array");
    assert_eq!(diags.len(), 2);
    for d in diags {
        for key in ["code", "severity", "message", "file"] {
            assert!(d[key].is_string(), "`{key}` is a string in {d}");
        }
        for key in ["line", "column", "end_line", "end_column"] {
            assert!(
                d[key].as_u64().is_some_and(|n| n >= 1),
                "`{key}` is 1-based in {d}"
            );
        }
        assert_eq!(d["file"], file.as_str());
        assert_eq!(d["severity"], "error");
        let labels = d["labels"].as_array().expect("labels");
        assert!(!labels.is_empty());
        assert_eq!(labels[0]["primary"], true);
        for l in labels {
            assert!(l["message"].is_string());
            assert!(l["line"].as_u64().is_some());
            assert!(l["end_column"].as_u64().is_some());
        }
        assert!(d["notes"].is_array());
    }
    let first = &diags[0];
    assert_eq!(first["code"], "E0109");
    assert_eq!(first["message"], "expected `;`");
    assert_eq!(first["line"], 5);
    assert_eq!(first["column"], 34);
    let second = &diags[1];
    assert_eq!(second["code"], "E0112");
    assert_eq!(
        (second["line"].as_u64(), second["column"].as_u64()),
        (Some(7), Some(32))
    );
    assert_eq!(second["end_column"], 40);
    assert_eq!(second["help"], "did you mean `half_life`?");

    assert_eq!(doc["summary"]["files"], 1);
    assert_eq!(doc["summary"]["errors"], 2);
    assert_eq!(doc["summary"]["warnings"], 0);
}

#[test]
fn json_format_for_a_clean_file_and_a_warning() {
    let out = affect(&[
        "check",
        "--format",
        "json",
        &fixture("cli/clean.affect"),
        &fixture("cli/warning_only.affect"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc = json(&out);
    let diags = doc["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0]["code"], "W0101");
    assert_eq!(diags[0]["severity"], "warning");
    assert_eq!(doc["summary"]["files"], 2);
    assert_eq!(doc["summary"]["warnings"], 1);
}

#[test]
fn version_is_printed() {
    let out = affect(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.trim(), format!("affect {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn check_help_mentions_the_exit_statuses() {
    let out = affect(&["check", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Exit status"), "{text}");
    assert!(text.contains("0 when no errors"), "{text}");
    assert!(text.contains("1 when any error"), "{text}");
    assert!(text.contains("2 when a file could not be read"), "{text}");
    assert!(text.contains("--format"), "{text}");
}

/// `affect fmt --check` accepts a formatted file written with CRLF line endings, and
/// `affect fmt` keeps them (issue 18).
#[test]
fn fmt_accepts_and_keeps_crlf_line_endings() {
    let dir = support::scratch("cli_check", "crlf");
    let lf = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/soccer.affect"),
    )
    .unwrap();
    let crlf = lf.replace('\n', "\r\n");
    let formatted = support::write_temp(&dir, "formatted.affect", &crlf);
    let out = affect(&["fmt", "--check", formatted.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // An unformatted CRLF file is reformatted with CRLF endings throughout.
    let messy = support::write_temp(
        &dir,
        "messy.affect",
        "action Kick();\r\ntree Play {\r\n        Kick()\r\n}\r\n",
    );
    let out = affect(&["fmt", "--check", messy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = affect(&["fmt", messy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&messy).unwrap();
    assert!(text.contains("    Kick()\r\n"), "{text:?}");
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "{text:?}"
    );
    let out = affect(&["fmt", "--check", messy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
