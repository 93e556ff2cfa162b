//! Snapshot tests of the diagnostics `affect import` gives for broken and doubtful XML. Every
//! file in `fixtures/xml/fail` must report at least one positioned error (a place where
//! BehaviorTree.CPP refuses the file); every file in `fixtures/xml/warn` imports with warnings
//! only. Each snapshot shows the XML with line numbers and the diagnostics as the command
//! prints them (XML line and column), so a reviewer sees both together.

use affect_compiler::groot::{self, IncludeLoader};
use affect_compiler::{codes, render, Diagnostic, Severity};
use std::fmt::Write;
use std::path::Path;

/// Reads includes relative to the including fixture; names stay relative to
/// `tests/fixtures/xml`, so snapshots do not depend on where the repository is.
struct Files;

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/xml")
}

impl IncludeLoader for Files {
    fn load(&mut self, from: &str, path: &str) -> Result<(String, String), groot::IncludeError> {
        let rel = Path::new(from).parent().unwrap_or(Path::new("")).join(path);
        // As the command line's loader: only regular files (`/dev/zero` would never end).
        let full = fixtures().join(&rel);
        if std::fs::metadata(&full).is_ok_and(|m| !m.is_file()) {
            return Err(groot::IncludeError::Refused(format!(
                "`{}` is not a regular file",
                rel.display()
            )));
        }
        let text = std::fs::read_to_string(full).map_err(|e| e.kind().to_string())?;
        Ok((rel.display().to_string(), text))
    }
}

fn display_name(path: &Path) -> String {
    let dir = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{dir}/{}", path.file_name().unwrap().to_string_lossy())
}

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
    let lines: Vec<&str> = src.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        // The nesting fixture is long; its middle says nothing.
        if lines.len() > 40 && (12..lines.len() - 6).contains(&i) {
            if i == 12 {
                writeln!(out, "... | ({} lines)", lines.len() - 18).unwrap();
            }
            continue;
        }
        writeln!(out, "{:>3} | {line}", i + 1).unwrap();
    }
    writeln!(out, "--- diagnostics").unwrap();
    for d in diags {
        out.push_str(&render::human(d, name, src, false));
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn check(name: &str, src: &str, d: &Diagnostic) {
    assert!(
        codes::lookup(d.code).is_some(),
        "{name}: unknown code {}",
        d.code
    );
    let s = d.primary.span;
    assert!(
        s.start <= s.end && s.end as usize <= src.len(),
        "{name}: {} span {s:?} outside the file",
        d.code
    );
    assert!(
        src.is_char_boundary(s.start as usize) && src.is_char_boundary(s.end as usize),
        "{name}: {} span splits a character",
        d.code
    );
    assert!(
        !s.is_empty() || s.start as usize == src.len(),
        "{name}: {} has an empty span",
        d.code
    );
}

fn import(path: &Path) -> (String, Vec<Diagnostic>) {
    let src = std::fs::read_to_string(path).unwrap();
    assert!(
        src.starts_with("<!--"),
        "{}: a fixture starts with a comment saying what it tests",
        path.display()
    );
    let imported = groot::import(&src, &display_name(path), &mut Files);
    let mut diags = imported.diagnostics;
    // An include cycle is reported in the included file (here: the same file).
    for f in imported.included {
        diags.extend(f.diagnostics);
    }
    (src, diags)
}

#[test]
fn xml_fail_fixtures() {
    insta::glob!("fixtures/xml/fail/*.xml", |path| {
        let name = display_name(path);
        let (src, diags) = import(path);
        assert!(
            diags.iter().any(Diagnostic::is_error),
            "{name}: expected an error, got {diags:#?}"
        );
        diags.iter().for_each(|d| check(&name, &src, d));
        insta::assert_snapshot!(snapshot_text(&name, &src, &diags));
    });
}

#[test]
fn xml_warn_fixtures() {
    insta::glob!("fixtures/xml/warn/*.xml", |path| {
        let name = display_name(path);
        let (src, diags) = import(path);
        assert!(
            !diags.iter().any(Diagnostic::is_error),
            "{name}: expected no error, got {diags:#?}"
        );
        assert!(!diags.is_empty(), "{name}: expected a warning");
        diags.iter().for_each(|d| check(&name, &src, d));
        insta::assert_snapshot!(snapshot_text(&name, &src, &diags));
    });
}

/// The fixtures cover every import code (E04xx and W04xx below 50; the others are the
/// exporter's and the converter's, tested in `groot_cli.rs`).
#[test]
fn xml_fixtures_cover_every_import_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/xml");
    let mut seen = Vec::new();
    let mut failing = 0;
    for dir in ["fail", "warn"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if dir == "fail" {
                failing += 1;
            }
            seen.extend(import(&path).1.iter().map(|d| d.code));
        }
    }
    assert!(failing >= 25, "only {failing} failing XML fixtures");
    for c in codes::CODES
        .iter()
        .filter(|c| c.code[1..].starts_with("04") && c.code[3..].parse::<u32>().unwrap_or(99) < 50)
    {
        assert!(
            seen.contains(&c.code),
            "no XML fixture reports {} ({})",
            c.code,
            c.title
        );
    }
}
