//! Snapshot tests of the syntax diagnostics. Every file in `fixtures/syntax/fail` must report
//! at least one coded, positioned error; every file in `fixtures/syntax/pass` must parse
//! clean. Each snapshot shows the source with line numbers and the diagnostics as `affect
//! check` prints them (without colour), so a reviewer sees both together.
//!
//! The fixtures test the syntax layer (lexer, parser, shape checks), so they are checked with
//! `syntax::parse`: later phases (name resolution, types) have fixtures of their own, and the
//! small files here do not declare every node and type they use.

use affect_compiler::syntax::parse;
use affect_compiler::{codes, render, Diagnostic, Severity};
use std::fmt::Write;
use std::path::Path;

/// The file name used in rendered diagnostics (`fail/unclosed_sequence_block.affect`).
fn display_name(path: &Path) -> String {
    let dir = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = path.file_name().unwrap().to_string_lossy();
    format!("{dir}/{file}")
}

/// Header, numbered source, then every diagnostic rendered. Trailing spaces are trimmed from
/// each line so the snapshots survive editors that strip them.
fn snapshot_text(name: &str, src: &str, diags: &[Diagnostic]) -> String {
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let mut out = String::new();
    writeln!(out, "=== {name}: {errors} error(s), {warnings} warning(s)").unwrap();
    writeln!(out, "--- source").unwrap();
    for (i, line) in src.lines().enumerate() {
        writeln!(out, "{:>3} | {line}", i + 1).unwrap();
    }
    writeln!(out, "--- diagnostics").unwrap();
    if diags.is_empty() {
        writeln!(out, "(none)").unwrap();
    }
    for d in diags {
        out.push_str(&render::human(d, name, src, false));
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Zero-width spans are allowed only where they mark an insertion point: the place a missing
/// `;` or closing delimiter goes, or the end of the file.
fn is_insertion_point(d: &Diagnostic, src: &str) -> bool {
    matches!(d.code, "E0109" | "E0102") || d.primary.span.start as usize == src.len()
}

fn check_positions(name: &str, src: &str, d: &Diagnostic) {
    let known = codes::CODES.iter().any(|c| c.code == d.code);
    assert!(
        known,
        "{name}: diagnostic code {} is not in codes::CODES",
        d.code
    );
    let span = d.primary.span;
    assert!(
        span.start <= span.end && span.end as usize <= src.len(),
        "{name}: {} has span {span:?} outside the file ({} bytes)",
        d.code,
        src.len()
    );
    assert!(
        src.is_char_boundary(span.start as usize) && src.is_char_boundary(span.end as usize),
        "{name}: {} has a span that splits a character",
        d.code
    );
    assert!(
        !span.is_empty() || is_insertion_point(d, src),
        "{name}: {} `{}` has an empty span at {} that is not an insertion point",
        d.code,
        d.message,
        span.start
    );
    assert!(!d.message.is_empty(), "{name}: {} has no message", d.code);
    for l in &d.secondary {
        assert!(
            l.span.start <= l.span.end && l.span.end as usize <= src.len(),
            "{name}: {} has a secondary label outside the file",
            d.code
        );
    }
}

fn read(path: &Path) -> String {
    let src = std::fs::read_to_string(path).unwrap();
    assert!(
        src.starts_with("//"),
        "{}: a fixture starts with a `//` comment saying what it tests",
        path.display()
    );
    src
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
