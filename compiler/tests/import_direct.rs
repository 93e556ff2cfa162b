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

/// The import places what it makes in the XML: a node at its element, a script's parts at
/// the script's attribute, and the syntax of `.affect` text carried in `_affect` at its byte
/// of the attribute as written (entities and all), so a diagnostic about any of them is shown
/// where the file says it.
#[test]
fn every_part_of_an_import_is_placed_in_the_xml() {
    use affect_compiler::groot::{self, Dialect};
    use affect_compiler::syntax::ast::{ItemKind, MemberKind, NodeKind};
    let src = "action Dock(in goal: num);\nagent A {\n    var level: num = 0;\n    let twice = level * 2;\n    main {\n        sequence {\n            do { level = level + 1; }\n            Dock(goal: level)\n        }\n    }\n}\n";
    let parsed = affect_compiler::syntax::parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let xml = groot::export(&parsed.file, Dialect::V4).xml;
    let imported = groot::import_str(&xml);
    assert!(!imported.has_errors(), "{:?}", imported.diagnostics);
    let text = |s: affect_compiler::Span| &xml[s.range()];
    let agent = imported
        .file
        .items
        .iter()
        .find_map(|i| match &i.kind {
            ItemKind::Agent(a) => Some(a),
            _ => None,
        })
        .expect("the agent");
    // Carried text: `let twice = level * 2;` is inside `_affect="agent A {&#10; ..."`.
    let members = agent.members.as_ref().expect("members");
    let (name, value) = members
        .iter()
        .find_map(|m| match &m.kind {
            MemberKind::Let { name, value, .. } => Some((name, value)),
            _ => None,
        })
        .expect("the let");
    assert_eq!(text(name.span), "twice", "{xml}");
    assert_eq!(text(value.span), "level * 2", "{xml}");
    let affect_attr = xml.find("_affect=\"agent").expect("carried agent");
    assert!(name.span.start as usize > affect_attr, "{xml}");
    // The tree: each node at its element, the script's parts in its `code`, the port's
    // value at the attribute's value.
    let main = members
        .iter()
        .find_map(|m| match &m.kind {
            MemberKind::Main(b) => Some(b),
            _ => None,
        })
        .expect("main");
    let seq = &main.nodes[0];
    assert!(
        text(seq.span).starts_with("<Sequence"),
        "{}",
        text(seq.span)
    );
    let NodeKind::Call {
        children: Some(kids),
        ..
    } = &seq.kind
    else {
        panic!("a sequence: {:?}", seq.kind)
    };
    let NodeKind::Script(block) = &kids.nodes[0].kind else {
        panic!("a script: {:?}", kids.nodes[0].kind)
    };
    assert_eq!(text(block.stmts[0].span), "level := level + 1", "{xml}");
    let NodeKind::Call { args: Some(a), .. } = &kids.nodes[1].kind else {
        panic!("a call: {:?}", kids.nodes[1].kind)
    };
    assert_eq!(text(a.args[0].value.span), "{level}", "{xml}");
    assert_eq!(text(a.args[0].name.as_ref().expect("named").span), "goal");
}
