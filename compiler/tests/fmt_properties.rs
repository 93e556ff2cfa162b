//! Formatter properties over every example and passing syntax fixture: formatting is
//! idempotent, keeps the syntax tree (spans aside) and keeps every comment.

use affect_compiler::fmt::format_source;
use affect_compiler::syntax::{debug_without_spans, parse};
use std::path::{Path, PathBuf};

fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures/syntax/pass"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "affect") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no example or pass fixture found");
    files
}

fn comment_texts(src: &str) -> Vec<String> {
    let mut v: Vec<String> = parse(src).comments.into_iter().map(|c| c.text).collect();
    v.sort();
    v
}

#[test]
fn formatting_is_idempotent_and_keeps_the_tree_and_comments() {
    let mut failures = Vec::new();
    for path in sources() {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let once = match format_source(&src) {
            Ok(f) => f,
            Err(d) => {
                failures.push(format!("{name}: does not parse: {:?}", d[0].message));
                continue;
            }
        };
        let twice = format_source(&once).expect("formatted text parses");
        if once != twice {
            failures.push(format!("{name}: not idempotent"));
        }
        let (a, b) = (
            debug_without_spans(&parse(&src).file),
            debug_without_spans(&parse(&once).file),
        );
        if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
            failures.push(format!(
                "{name}: the syntax tree changed: `{}` became `{}`",
                x.trim(),
                y.trim()
            ));
        } else if a.lines().count() != b.lines().count() {
            failures.push(format!("{name}: the syntax tree changed in length"));
        }
        if comment_texts(&src) != comment_texts(&once) {
            failures.push(format!("{name}: comments changed"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tree_printed_without_source_reparses_to_the_same_tree() {
    // The importer prints trees it built in code; the printer must not rely on source text.
    for path in sources() {
        let src = std::fs::read_to_string(&path).unwrap();
        let parsed = parse(&src);
        let printed = affect_compiler::fmt::format_file(&parsed.file, &[], None);
        let reparsed = parse(&printed);
        assert!(
            reparsed.diagnostics.iter().all(|d| !d.is_error()),
            "{}: printed tree does not parse:\n{printed}",
            path.display()
        );
        let a = debug_without_spans(&parsed.file);
        let b = debug_without_spans(&reparsed.file);
        if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
            panic!(
                "{}: tree changed when printed without source: `{}` became `{}`",
                path.display(),
                x.trim(),
                y.trim()
            );
        }
        assert_eq!(a.lines().count(), b.lines().count(), "{}", path.display());
    }
}
