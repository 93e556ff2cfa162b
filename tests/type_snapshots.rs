//! Snapshot tests of the checker's diagnostics (names, types, units, structure). Every file in
//! `fixtures/types` must report at least one diagnostic with a registered code and a span
//! inside the file (a fixture named `warn_*` may report warnings only; any other must report
//! an error); every file in `fixtures/types/pass` must check clean, without even a warning.
//! Each snapshot shows the source with line numbers and the diagnostics as `affect check`
//! prints them (without colour), so a reviewer sees both together.
//!
//! Fixtures that `use` a file find it in `fixtures/types/modules` (paths are written relative
//! to `fixtures/types`, as `affect check` resolves them).

mod support;

use affect_compiler::sema::{Analysis, Loader};
use affect_compiler::source::SourceError;
use affect_compiler::{check_source_with, codes, Diagnostic};
use std::path::{Path, PathBuf};
use support::snapshots::{self, display_name, read_fixture, Source};

/// Reads `use`d files relative to `fixtures/types`, like `affect check` beside the fixture.
struct FixtureLoader(PathBuf);

impl Loader for FixtureLoader {
    fn load(&self, path: &str) -> Result<String, SourceError> {
        // Messages name the file as the fixture wrote it, not where the checkout is.
        let full = self.0.join(path);
        affect_files::read_source(&full).map_err(|mut e| {
            e.message = e.message.replace(&full.display().to_string(), path);
            e
        })
    }
}

fn check(path: &Path, src: &str) -> Analysis {
    let dir = path.parent().unwrap().to_path_buf();
    check_source_with(src, &FixtureLoader(dir))
}

fn check_positions(name: &str, src: &str, d: &Diagnostic) {
    snapshots::check_positions(name, src, d, |_| false);
}

fn snapshot_text(name: &str, src: &str, a: &Analysis) -> String {
    snapshots::snapshot_text(
        name,
        src,
        &a.diagnostics,
        &a.imported_diagnostics,
        Source::All,
    )
}

fn read(path: &Path) -> String {
    read_fixture(path, "//")
}

#[test]
fn fail_fixtures() {
    insta::glob!("fixtures/types/*.affect", |path| {
        let name = display_name(path);
        let src = read(path);
        let a = check(path, &src);
        let warn_only = path
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("warn_"));
        let all: Vec<&Diagnostic> = a
            .diagnostics
            .iter()
            .chain(a.imported_diagnostics.iter().map(|(_, _, d)| d))
            .collect();
        if warn_only {
            assert!(
                !all.is_empty() && all.iter().all(|d| !d.is_error()),
                "{name}: expected warnings only, got {all:#?}"
            );
        } else {
            assert!(
                all.iter().any(|d| d.is_error()),
                "{name}: expected at least one error, got {all:#?}"
            );
        }
        for d in &a.diagnostics {
            check_positions(&name, &src, d);
        }
        for (file, text, d) in &a.imported_diagnostics {
            check_positions(file, text, d);
        }
        // No syntax errors: these fixtures are about the later phases.
        assert!(
            !a.diagnostics.iter().any(|d| d.code.starts_with("E01")),
            "{name}: a type fixture must parse"
        );
        insta::assert_snapshot!(snapshot_text(&name, &src, &a));
    });
}

#[test]
fn pass_fixtures() {
    insta::glob!("fixtures/types/pass/*.affect", |path| {
        let name = display_name(path);
        let src = read(path);
        let a = check(path, &src);
        let rendered = snapshot_text(&name, &src, &a);
        assert!(
            a.diagnostics.is_empty() && a.imported_diagnostics.is_empty(),
            "{name}: expected no diagnostics, got:\n{rendered}"
        );
        assert!(
            a.program.is_some(),
            "{name}: checked clean but built no program"
        );
        insta::assert_snapshot!(rendered);
    });
}

/// The failing fixtures cover every code of names, modules, types and structure (E02xx,
/// W02xx, E03xx), each at least twice.
#[test]
fn fail_fixtures_cover_every_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/types");
    let mut seen: Vec<&str> = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "affect") {
            files += 1;
            let src = std::fs::read_to_string(&path).unwrap();
            let a = check(&path, &src);
            let mut codes: Vec<&str> = a
                .diagnostics
                .iter()
                .chain(a.imported_diagnostics.iter().map(|(_, _, d)| d))
                .map(|d| d.code)
                .collect();
            codes.sort_unstable();
            codes.dedup();
            seen.extend(codes);
        }
    }
    assert!(files >= 70, "only {files} failing fixtures");
    let checker_codes = codes::CODES.iter().filter(|c| {
        c.code.starts_with("E02") || c.code.starts_with("W02") || c.code.starts_with("E03")
    });
    for c in checker_codes {
        let n = seen.iter().filter(|s| **s == c.code).count();
        assert!(
            n >= 2,
            "only {n} failing fixture(s) report {} ({}); every code needs at least two",
            c.code,
            c.title
        );
    }
}
