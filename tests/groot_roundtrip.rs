//! Groot XML both ways, proven on real files:
//! - every example and every syntax fixture that passes: `.affect → XML (v4) → .affect` gives
//!   the same syntax tree;
//! - every corpus file with trees: `XML → .affect → XML` says the same as the original in the
//!   original's dialect (compared semantically by `groot::compare`), and the `.affect` text the
//!   import prints parses clean;
//! - every corpus file imports without an error.
//!
//! The corpus lives outside the repository (`AFFECT_CORPUS`, or `../shared/corpus`) and is never
//! copied in; its tests are ignored without it (see `support::corpus`).

mod support;

use affect_compiler::groot::{self, Dialect};
use affect_compiler::syntax::{self, debug_without_spans};
use affect_compiler::{diagnostic::has_errors, render};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> PathBuf {
    support::corpus()
}

/// Corpus files that BehaviorTree.CPP itself refuses, so `affect import` refuses them too, with
/// the code it must give. Each entry says why; the tests check that the import fails exactly
/// so (an entry cannot hide another problem).
const REFUSED: &[(&str, &str, &str)] = &[
(
    "Groot@master/test_data/issue_3.xml",
    "E0411",
    "an empty `<BehaviorTree>` (Groot's test file for its issue 3): BehaviorTree.CPP 4.8.2 \
     refuses it (\"The tag <BehaviorTree> with ID 'ReceiveGuest' must have exactly 1 child\", \
     checked with the oracle), and 3.8's VerifyXML has the same rule",
),
(
    "navigation2@main/nav2_docking/opennav_docking_bt/behavior_trees/application_example.xml",
    "E0419",
    "`<inverter>`, a misspelt `Inverter` with no model: BehaviorTree.CPP 4.8.2 refuses it \
     (\"Node not recognized: inverter\", the oracle with its stand-ins for unmodelled nodes)",
),
(
    "navigation2@jazzy/nav2_docking/opennav_docking_bt/behavior_trees/application_example.xml",
    "E0419",
    "the same `<inverter>` as on main",
),
(
    "BehaviorTree.CPP@master/fuzzing/corpus/bt_corpus/corpus2.xml",
    "E0420",
    "`<Timeout timeout_ms=..>`, a port Timeout does not have: BehaviorTree.CPP 4.8.2 refuses it \
     (\"a port with name [timeout_ms] is found in the XML ... but not in the providedPorts()\")",
),
(
    "BehaviorTree.CPP@master/fuzzing/corpus/bt_corpus/corpus3.xml",
    "E0420",
    "`<SetBlackboard key=..>`, a port SetBlackboard does not have; BehaviorTree.CPP 4.8.2 \
     refuses the file already for its SubTree named like a registered node",
),
];

fn refused(path: &Path) -> Option<&'static str> {
    REFUSED
        .iter()
        .find(|(p, _, _)| path.ends_with(p))
        .map(|(_, code, _)| *code)
}

/// The corpus files with at least one tree (`trees > 0` in index.jsonl), with their dialect.
fn corpus_files(with_trees: bool) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for row in support::corpus_index(&corpus()) {
        if with_trees && row["trees"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        let path = corpus().join(row["corpus_path"].as_str().expect("a path"));
        out.push((path, row["version"].as_str().unwrap_or("").to_string()));
    }
    out
}

fn affect_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures/syntax/pass"] {
        for entry in std::fs::read_dir(root().join(dir)).expect("the directory") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "affect") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn render_all(name: &str, text: &str, diags: &[affect_compiler::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| render::human(d, name, text, false))
        .collect()
}

/// XML → .affect → XML: the same trees, nodes, ports, attribute values, remappings and models.
#[test]
#[ignore = "needs the public corpus (AFFECT_CORPUS or ../shared/corpus)"]
fn corpus_files_survive_import_and_export() {
    let files = corpus_files(true);
    assert!(
        files.len() >= 120,
        "expected the corpus, found {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for (path, version) in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("a corpus file");
        let imported = groot::import(&text, &name, &mut support::IncludeFiles);
        if let Some(code) = refused(path) {
            assert!(
                imported.has_errors() && imported.diagnostics.iter().any(|d| d.code == code),
                "{name} is listed as refused with {code}"
            );
            continue;
        }
        if imported.has_errors() {
            failures.push(format!(
                "{name}: import failed\n{}",
                render_all(&name, &text, &imported.diagnostics)
            ));
            continue;
        }
        let expected = if version == "v4" {
            Dialect::V4
        } else {
            Dialect::V3
        };
        assert_eq!(imported.dialect, expected, "{name}: dialect");
        let affect = imported.text();
        let parsed = syntax::parse(&affect);
        if has_errors(&parsed.diagnostics) {
            failures.push(format!(
                "{name}: the imported text does not parse\n{}\n{affect}",
                render_all("imported.affect", &affect, &parsed.diagnostics)
            ));
            continue;
        }
        // The files it `use`s are the included XML files, imported too.
        let loader = support::ImportedXml::beside(path);
        let exported = groot::export_program(&parsed.file, imported.dialect, &loader).main;
        if has_errors(&exported.diagnostics) {
            failures.push(format!(
                "{name}: export failed\n{}",
                render_all("imported.affect", &affect, &exported.diagnostics)
            ));
            continue;
        }
        if let Err(why) = groot::compare(&text, &exported.xml) {
            failures.push(format!("{name}: {why}\n--- exported\n{}", exported.xml));
        }
    }
    let checked = files.len() - REFUSED.len();
    println!(
        "{} of {checked} corpus files round-trip ({} refused by BehaviorTree.CPP too)",
        checked - failures.len(),
        REFUSED.len()
    );
    assert!(
        failures.is_empty(),
        "{} file(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Every corpus file, model-only ones included, imports without an error, and the text is
/// clean affect syntax.
#[test]
#[ignore = "needs the public corpus (AFFECT_CORPUS or ../shared/corpus)"]
fn every_corpus_file_imports_clean() {
    let mut failures = Vec::new();
    for (path, _) in corpus_files(false) {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("a corpus file");
        let imported = groot::import(&text, &name, &mut support::IncludeFiles);
        if refused(&path).is_some() {
            continue; // checked in `corpus_files_survive_import_and_export`
        }
        if imported.has_errors() {
            failures.push(format!(
                "{name}: {}",
                render_all(&name, &text, &imported.diagnostics)
            ));
            continue;
        }
        let affect = imported.text();
        let parsed = syntax::parse(&affect);
        if !parsed.diagnostics.is_empty() {
            failures.push(format!(
                "{name}: {}",
                render_all("out.affect", &affect, &parsed.diagnostics)
            ));
        }
        // The formatter's own layout: importing prints exactly what `affect fmt` would.
        let formatted = affect_compiler::fmt::format_source(&affect).expect("parses");
        if formatted != affect {
            failures.push(format!(
                "{name}: the imported text is not in the formatter's layout"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// .affect → XML (v4) → .affect gives the same syntax tree.
#[test]
fn affect_files_survive_export_and_import() {
    let files = affect_files();
    assert!(files.len() >= 5);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(path).expect("a source file");
        let parsed = syntax::parse(&src);
        assert!(!has_errors(&parsed.diagnostics), "{name} has syntax errors");
        let exported = groot::export(&parsed.file, Dialect::V4);
        if has_errors(&exported.diagnostics) {
            failures.push(format!(
                "{name}: export failed\n{}",
                render_all(&name, &src, &exported.diagnostics)
            ));
            continue;
        }
        let imported = groot::import_str(&exported.xml);
        if imported.has_errors() {
            failures.push(format!(
                "{name}: the export does not import\n{}\n{}",
                render_all("out.xml", &exported.xml, &imported.diagnostics),
                exported.xml
            ));
            continue;
        }
        let text = imported.text();
        let back = syntax::parse(&text);
        if has_errors(&back.diagnostics) {
            failures.push(format!("{name}: the import does not parse\n{text}"));
            continue;
        }
        let a = debug_without_spans(&parsed.file);
        let b = debug_without_spans(&back.file);
        if a != b {
            let first = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let context = |s: &str| {
                s.lines()
                    .skip(first.saturating_sub(12))
                    .take(24)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            failures.push(format!(
                "{name}: the syntax tree changed at line {first} of its debug form\n--- source\n{}\n--- back\n{}\n--- xml\n{}\n--- text\n{text}",
                context(&a),
                context(&b),
                exported.xml
            ));
        }
        // Deterministic: the same program gives the same bytes.
        assert_eq!(
            groot::export(&parsed.file, Dialect::V4).xml,
            exported.xml,
            "{name}: export is not deterministic"
        );
    }
    assert!(
        failures.is_empty(),
        "{} file(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
