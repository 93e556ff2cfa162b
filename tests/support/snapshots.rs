//! The layout of the diagnostic snapshots (syntax, types, Groot import): a fixture's name, its
//! source with line numbers and its diagnostics as `affect check` prints them (without
//! colour), so a reviewer sees both together; and the checks every diagnostic's position
//! must pass.

use affect_compiler::{codes, render, Diagnostic, Severity};
use std::fmt::Write;
use std::path::Path;

/// The name a fixture is shown by: its folder and file (`fail/unclosed_sequence_block.affect`).
pub fn display_name(path: &Path) -> String {
    let dir = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{dir}/{}", path.file_name().unwrap().to_string_lossy())
}

/// A fixture's text, which starts with a comment (`comment`: `//`, `<!--`) saying what it
/// tests.
pub fn read_fixture(path: &Path, comment: &str) -> String {
    let src = std::fs::read_to_string(path).unwrap();
    assert!(
        src.starts_with(comment),
        "{}: a fixture starts with a `{comment}` comment saying what it tests",
        path.display()
    );
    src
}

/// How much of a fixture's source a snapshot shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Source {
    All,
    /// Over 40 lines, the middle is left out (it says nothing in long nesting fixtures).
    ElideLong,
}

/// Header, numbered source, then every diagnostic rendered: those of the fixture, then those
/// of the files it uses (`imported`: file, text, diagnostic), against their own text.
/// Trailing spaces are trimmed from each line so the snapshots survive editors that strip
/// them.
pub fn snapshot_text(
    name: &str,
    src: &str,
    diags: &[Diagnostic],
    imported: &[(String, String, Diagnostic)],
    source: Source,
) -> String {
    let all = diags.iter().chain(imported.iter().map(|(_, _, d)| d));
    let (mut errors, mut warnings) = (0, 0);
    for d in all {
        match d.severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
            Severity::Note => {}
        }
    }
    let mut out = String::new();
    writeln!(out, "=== {name}: {errors} error(s), {warnings} warning(s)").unwrap();
    writeln!(out, "--- source").unwrap();
    let lines: Vec<&str> = src.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if source == Source::ElideLong && lines.len() > 40 && (12..lines.len() - 6).contains(&i) {
            if i == 12 {
                writeln!(out, "... | ({} lines)", lines.len() - 18).unwrap();
            }
            continue;
        }
        writeln!(out, "{:>3} | {line}", i + 1).unwrap();
    }
    writeln!(out, "--- diagnostics").unwrap();
    if diags.is_empty() && imported.is_empty() {
        writeln!(out, "(none)").unwrap();
    }
    for d in diags {
        out.push_str(&render::human(d, name, src, false));
    }
    for (file, text, d) in imported {
        out.push_str(&render::human(d, file, text, false));
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A diagnostic has a registered code, a message, and spans inside the file on character
/// boundaries; its primary span is empty only where `may_be_empty` allows (an insertion
/// point).
pub fn check_positions(
    name: &str,
    src: &str,
    d: &Diagnostic,
    may_be_empty: impl Fn(&Diagnostic) -> bool,
) {
    assert!(
        codes::lookup(d.code).is_some(),
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
        !span.is_empty() || may_be_empty(d),
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
