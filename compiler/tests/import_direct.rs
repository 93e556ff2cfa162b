//! Imported XML checked as the syntax tree the import made (what `affect bench` does, to
//! spare printing the tree as `.affect` text and parsing it again) gives the very program
//! its text gives, spans aside (the import's nodes have no place in a text): every XML file
//! of `examples/xml/` and of the workplace's corpus, when it is present.

use affect_compiler::sema::NoFiles;
use std::path::{Path, PathBuf};

const CORPUS: &str = "/work/shared/corpus";

fn walk(d: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(d) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out)
        } else if p.extension().is_some_and(|x| x == "xml") {
            out.push(p);
        }
    }
}

/// A program's `Debug` text with every span made equal.
fn without_spans(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("Span { start: ") {
        out.push_str(&rest[..i]);
        let j = rest[i..].find('}').map_or(rest.len(), |j| i + j + 1);
        out.push_str("Span");
        rest = &rest[j..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_imported_tree_checked_directly_is_the_program_of_its_text() {
    let mut files = vec![];
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/xml"),
        &mut files,
    );
    let examples = files.len();
    if Path::new(CORPUS).is_dir() {
        walk(Path::new(CORPUS), &mut files);
    } else {
        eprintln!("the corpus ({CORPUS}) is absent: only examples/xml is checked");
    }
    assert!(examples >= 2, "examples/xml has {examples} XML files");
    let mut compared = 0;
    for path in files {
        let xml = std::fs::read_to_string(&path).unwrap_or_default();
        let imported = affect_compiler::groot::import_str(&xml);
        if imported.has_errors() {
            continue;
        }
        let by_text = affect_compiler::check_source_with(&imported.text(), &NoFiles);
        let direct = affect_compiler::sema::analyze(&imported.file, &NoFiles);
        let (a, b) = (
            without_spans(&format!("{:?}", by_text.program)),
            without_spans(&format!("{:?}", direct.program)),
        );
        assert!(a == b, "{}: the programs differ", path.display());
        let errors = |d: &[affect_compiler::diagnostic::Diagnostic]| {
            d.iter().filter(|d| d.is_error()).count()
        };
        assert_eq!(
            errors(&by_text.diagnostics),
            errors(&direct.diagnostics),
            "{}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= examples, "only {compared} files were compared");
}
