//! Snapshot tests of the diagnostics `affect import` gives for broken and doubtful XML. Every
//! file in `fixtures/xml/fail` must report at least one positioned error (a place where
//! BehaviorTree.CPP refuses the file); every file in `fixtures/xml/warn` imports with warnings
//! only. Each snapshot shows the XML with line numbers and the diagnostics as the command
//! prints them (XML line and column), so a reviewer sees both together.

mod support;

use affect_compiler::groot::{self, IncludeLoader};
use affect_compiler::{codes, Diagnostic};
use std::path::Path;
use support::snapshots::{self, display_name, read_fixture, Source};

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

fn snapshot_text(name: &str, src: &str, diags: &[Diagnostic]) -> String {
    snapshots::snapshot_text(name, src, diags, &[], Source::ElideLong)
}

/// An empty span only at the end of the file.
fn check(name: &str, src: &str, d: &Diagnostic) {
    snapshots::check_positions(name, src, d, |d| d.primary.span.start as usize == src.len());
}

fn import(path: &Path) -> (String, Vec<Diagnostic>) {
    let src = read_fixture(path, "<!--");
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
    // Codes the checker reports about XML as BehaviorTree.CPP has it (E0421 on a port another
    // file models, E0422): `fixtures/xml/check`, through `affect check`.
    for entry in std::fs::read_dir(root.join("check")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "xml") {
            let out = support::affect(&["check", "--format", "json", path.to_str().unwrap()]);
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            for d in doc["diagnostics"].as_array().into_iter().flatten() {
                let code = d["code"].as_str().unwrap_or_default();
                if let Some(c) = codes::CODES.iter().find(|c| c.code == code) {
                    seen.push(c.code);
                }
            }
        }
    }
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

/// `affect check FILE.xml` through the binary: the checker's diagnostics of XML checked as
/// imported, each at the XML file, line and attribute it is about (an included file's in that
/// file), never in `.affect` text the import would print.
#[test]
fn xml_check_fixtures() {
    let workspace = support::workspace();
    insta::glob!("fixtures/xml/check/*.xml", |path| {
        let rel = path.strip_prefix(&workspace).expect("in the workspace");
        let rel = rel.to_str().expect("a UTF-8 path");
        let out = support::affect(&["check", rel]);
        let err = support::stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{rel}: {err}");
        // Every diagnostic's place names an XML file.
        let places: Vec<&str> = err.lines().filter(|l| l.contains(",-[ ")).collect();
        assert!(!places.is_empty(), "{rel}: {err}");
        for p in places {
            assert!(
                p.contains(".xml:"),
                "{rel}: a place outside the XML: {p}\n{err}"
            );
        }
        assert!(!err.contains("(imported)"), "{rel}: {err}");
        insta::assert_snapshot!(err);
    });
}
