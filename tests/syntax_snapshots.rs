//! Snapshot tests of the syntax diagnostics. Every file in `fixtures/syntax/fail` must report
//! at least one coded, positioned error; every file in `fixtures/syntax/pass` must parse
//! clean. Each snapshot shows the source with line numbers and the diagnostics as `affect
//! check` prints them (without colour), so a reviewer sees both together.
//!
//! The fixtures test the syntax layer (lexer, parser, shape checks), so they are checked with
//! `syntax::parse`: later phases (name resolution, types) have fixtures of their own, and the
//! small files here do not declare every node and type they use.

mod support;

use affect_compiler::syntax::parse;
use affect_compiler::{codes, render, Diagnostic};
use std::path::Path;
use support::snapshots::{self, display_name, read_fixture, Source};

/// Zero-width spans are allowed only where they mark an insertion point: the place a missing
/// `;` or closing delimiter goes, or the end of the file.
fn is_insertion_point(d: &Diagnostic, src: &str) -> bool {
    matches!(d.code, "E0109" | "E0102") || d.primary.span.start as usize == src.len()
}

fn check_positions(name: &str, src: &str, d: &Diagnostic) {
    snapshots::check_positions(name, src, d, |d| is_insertion_point(d, src));
}

fn snapshot_text(name: &str, src: &str, diags: &[Diagnostic]) -> String {
    snapshots::snapshot_text(name, src, diags, &[], Source::All)
}

fn read(path: &Path) -> String {
    read_fixture(path, "//")
}

#[test]
fn fail_fixtures() {
    insta::glob!("fixtures/syntax/fail/*.affect", |path| {
        let name = display_name(path);
        let src = read(path);
        let diags = parse(&src).diagnostics;
        assert!(
            diags.iter().any(Diagnostic::is_error),
            "{name}: expected at least one error, got {diags:#?}"
        );
        for d in &diags {
            check_positions(&name, &src, d);
        }
        insta::assert_snapshot!(snapshot_text(&name, &src, &diags));
    });
}

#[test]
fn pass_fixtures() {
    insta::glob!("fixtures/syntax/pass/*.affect", |path| {
        let name = display_name(path);
        let src = std::fs::read_to_string(path).unwrap();
        let diags = parse(&src).diagnostics;
        let rendered: String = diags
            .iter()
            .map(|d| render::human(d, &name, &src, false))
            .collect();
        assert!(
            diags.is_empty(),
            "{name}: expected no diagnostics, got:\n{rendered}"
        );
        insta::assert_snapshot!(snapshot_text(&name, &src, &diags));
    });
}

/// The fixtures cover every syntax code (E01xx, W01xx).
#[test]
fn fail_fixtures_cover_every_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syntax/fail");
    let mut seen: Vec<&str> = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "affect") {
            files += 1;
            let src = std::fs::read_to_string(&path).unwrap();
            seen.extend(parse(&src).diagnostics.iter().map(|d| d.code));
        }
    }
    assert!(files >= 70, "only {files} failing fixtures");
    let syntax_codes = codes::CODES
        .iter()
        .filter(|c| c.code.starts_with("E01") || c.code.starts_with("W01"));
    for c in syntax_codes {
        assert!(
            seen.contains(&c.code),
            "no failing fixture reports {} ({})",
            c.code,
            c.title
        );
    }
}
