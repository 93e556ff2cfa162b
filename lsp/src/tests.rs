//! Unit tests of the features on small documents; `tests/lsp.rs` in the root package drives
//! the built server over standard I/O.

use crate::documents::Document;
use crate::{completion, definition, formatting, hover, symbols};
use lsp_types::Uri;
use std::collections::HashMap;
use std::str::FromStr;

/// A document from a text with one `|` marking the cursor; returns it and the offset.
fn doc_at(marked: &str) -> (Document, usize) {
    let offset = marked.find('|').expect("a cursor mark");
    let text = format!("{}{}", &marked[..offset], &marked[offset + 1..]);
    (doc(&text), offset)
}

fn doc(text: &str) -> Document {
    Document::new(
        Uri::from_str("untitled:test").unwrap(),
        1,
        text.to_string(),
        &HashMap::new(),
        false,
    )
}

fn hover_text(marked: &str) -> String {
    let (d, o) = doc_at(marked);
    match hover::hover(&d, o).map(|h| h.contents) {
        Some(lsp_types::HoverContents::Markup(m)) => m.value,
        other => panic!("no markdown hover: {other:?}"),
    }
}

fn labels(marked: &str) -> Vec<String> {
    let (d, o) = doc_at(marked);
    completion::completion(&d, o)
        .into_iter()
        .map(|c| c.label)
        .collect()
}

const NAV: &str = "
enum Dir { Up, Down }
/// Moves one cell.
action Move(in d: Dir, in speed: num = 1);
tree Walk(in d: Dir) {
    var steps: int = 0;
    sequence {
        Move(d: d)
        do { steps += 1 }
    }
}
agent R {
    var heading: Dir = Dir::Up;
    sensor place: Label = camera_label();
    memory feelings keyed by place { threshold 25; }
    main {
        sequence {
            Walk(d: heading)
            check feelings.recent() > 50
        }
    }
}
";

fn at(text: &str, needle: &str, extra: usize) -> String {
    let i = text.find(needle).expect("needle") + extra;
    format!("{}|{}", &text[..i], &text[i..])
}

#[test]
fn hover_on_declarations_uses_and_builtins() {
    let h = hover_text(&at(NAV, "Move(d: d)", 1));
    assert!(
        h.contains("action Move(in d: Dir, in speed: num = 1)"),
        "{h}"
    );
    assert!(h.contains("Moves one cell."), "{h}");
    let h = hover_text(&at(NAV, "steps += 1", 1));
    assert!(h.contains("var steps: int = 0"), "{h}");
    assert!(h.contains("tree variable of tree `Walk`"), "{h}");
    let h = hover_text(&at(NAV, "sequence {\n        Move", 2));
    assert!(h.contains("BehaviorTree.CPP `Sequence`"), "{h}");
    let h = hover_text(&at(NAV, "recent()", 2));
    assert!(h.contains("memory.recent()"), "{h}");
    let h = hover_text(&at(NAV, "camera_label", 2));
    assert!(h.contains("device driver"), "{h}");
    let h = hover_text(&at(NAV, "threshold 25", 2));
    assert!(h.contains("setting of a `memory` block"), "{h}");
    let h = hover_text(&at(NAV, "Dir::Up;", 6));
    assert!(h.contains("Dir::Up"), "{h}");
}

#[test]
fn definition_of_calls_ports_and_members() {
    let (d, o) = doc_at(&at(NAV, "Walk(d: heading)", 10));
    let loc = definition::definition(&d, o).expect("a definition");
    let decl = NAV.find("var heading").unwrap() + 4;
    assert_eq!(loc.range.start, d.lines.position(&d.text, decl));
    let (d, o) = doc_at(&at(NAV, "Walk(d: heading)", 5));
    let loc = definition::definition(&d, o).expect("a port");
    let port = NAV.find("tree Walk(in d").unwrap() + 13;
    assert_eq!(loc.range.start, d.lines.position(&d.text, port));
}

#[test]
fn completion_contexts() {
    let l = labels(&at(NAV, "            check", 12));
    assert!(l.contains(&"Walk".to_string()) && l.contains(&"retry".to_string()));
    assert!(l.contains(&"Move".to_string()));
    let call =
        "enum Dir { Up }\naction Move(in d: Dir, in speed: num);\ntree T { Move(d: Dir::Up, |) }\n";
    let l = labels(call);
    assert!(
        l.contains(&"speed".to_string()) && !l.contains(&"d".to_string()),
        "{l:?}"
    );
    let l = labels("action Move(in d: num, in speed: num);\ntree T { Move(|, speed: 2) }\n");
    assert!(
        l.contains(&"d".to_string()) && !l.contains(&"speed".to_string()),
        "{l:?}"
    );
    let l = labels(&at(NAV, "Move(d: d)", 8));
    assert_eq!(l.first().map(String::as_str), Some("Dir::Down"), "{l:?}");
    let l = labels(&at(NAV, "Dir::Up;", 5));
    assert_eq!(l, ["Down", "Up"]);
    let l = labels(&at(NAV, "recent()", 0));
    assert!(l.contains(&"remember".to_string()), "{l:?}");
    let l = labels(&at(NAV, "threshold 25", 0));
    assert!(l.contains(&"short_term".to_string()), "{l:?}");
    let l = labels(&at(NAV, "    var heading", 4));
    assert!(l.contains(&"sensor".to_string()), "{l:?}");
    let l = labels("enum E { A, B }\ntree T(in x: E) {\n    switch x {\n        A => succeed\n        |\n    }\n}\n");
    assert!(
        l.contains(&"B".to_string()) && l.contains(&"_".to_string()),
        "{l:?}"
    );
    assert!(labels("// a comment |\n").is_empty());
    assert!(labels("const S = \"a |b\";\n").is_empty());
}

#[test]
fn symbols_are_hierarchical() {
    let d = doc(NAV);
    let syms = symbols::document_symbols(&d);
    let names: Vec<&str> = syms.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Dir", "Move", "Walk", "R"]);
    let walk = &syms[2];
    let kids: Vec<&str> = walk
        .children
        .iter()
        .flatten()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(kids, ["d", "steps", "sequence"]);
}

#[test]
fn a_wide_node_lists_its_first_ports_and_counts_the_rest() {
    let n = symbols::MAX_CHILDREN + 500;
    let ports: Vec<String> = (0..n).map(|i| format!("in p{i}: num")).collect();
    let args: Vec<String> = (0..n).map(|i| format!("p{i}: {i}")).collect();
    let text = format!(
        "action Wide({});\nmain tree Main {{\n    Wide({})\n}}\n",
        ports.join(", "),
        args.join(", ")
    );
    let d = doc(&text);
    let syms = symbols::document_symbols(&d);
    let kids = syms[0].children.as_ref().expect("the ports");
    assert_eq!(kids.len(), symbols::MAX_CHILDREN + 1);
    assert_eq!(
        kids[symbols::MAX_CHILDREN - 1].name,
        format!("p{}", symbols::MAX_CHILDREN - 1)
    );
    let more = kids.last().unwrap();
    assert_eq!(more.name, "(500 more ports)");
    // It spans the ports it stands for: from the first left out to the last.
    let first_left = text
        .find(&format!("in p{}:", symbols::MAX_CHILDREN))
        .unwrap();
    assert_eq!(more.range.start, d.lines.position(&d.text, first_left));
    // The call's detail names its first arguments and counts the others.
    let call = &syms[1].children.as_ref().expect("the call")[0];
    let detail = call.detail.as_deref().unwrap();
    assert!(detail.starts_with("(p0: 0, p1: 1,"), "{detail}");
    assert!(
        detail.ends_with(&format!("p99: 99, {} more)", n - 100)),
        "{detail}"
    );
    // So does the node's signature in a hover.
    let hover = hover_text(&format!("{}|{}", &text[..7], &text[7..]));
    assert!(
        hover.contains(&format!("in p99: num, ... {} more)", n - 100)),
        "{hover}"
    );
}

#[test]
fn formatting_edits_only_when_it_parses() {
    let d = doc("tree  T {succeed}\n");
    let edits = formatting::format(&d).expect("formats");
    assert_eq!(edits.len(), 1);
    let d = doc("tree T { succeed\n");
    assert!(formatting::format(&d).is_none());
    let d = doc("tree T {\n    succeed\n}\n");
    assert_eq!(formatting::format(&d).map(|e| e.len()), Some(0));
}

/// Formatting keeps the document's final-newline state (and its line endings): an editor
/// that adds the final newline on write (Vim's `'fixeol'`) must not get a second one.
#[test]
fn formatting_keeps_the_final_newline_state() {
    let apply = |text: &str| {
        let d = doc(text);
        let edits = formatting::format(&d).expect("formats");
        let mut out = text.to_string();
        for e in edits.iter().rev() {
            let s = d.offset(e.range.start);
            let t = d.offset(e.range.end);
            out.replace_range(s..t, &e.new_text);
        }
        out
    };
    assert_eq!(apply("tree  T {succeed}"), "tree T {\n    succeed\n}");
    assert_eq!(apply("tree  T {succeed}\n"), "tree T {\n    succeed\n}\n");
    assert_eq!(
        apply("tree  T {succeed}\n\n\n"),
        "tree T {\n    succeed\n}\n"
    );
    assert_eq!(
        apply("// a tree\r\ntree  T {\r\nsucceed}"),
        "// a tree\r\ntree T {\r\n    succeed\r\n}"
    );
    assert_eq!(
        formatting::format(&doc("tree T {\n    succeed\n}")).map(|e| e.len()),
        Some(0),
        "formatted but for the final newline: no edit"
    );
}

/// Formatting edits the text the editor has, also when the analysis is behind it: not done
/// yet after opening, or made for the text before the last change.
#[test]
fn formatting_edits_the_newest_text() {
    let apply = |text: &str, edits: Vec<lsp_types::TextEdit>| {
        let lines = crate::documents::Lines::new(text);
        let mut out = text.to_string();
        for e in edits.iter().rev() {
            let s = lines.offset(text, e.range.start);
            let t = lines.offset(text, e.range.end);
            out.replace_range(s..t, &e.new_text);
        }
        out
    };
    let newest = "tree  T {sequence{succeed fail}}\n";
    let expected = "tree T {\n    sequence {\n        succeed\n        fail\n    }\n}\n";
    // No analysis yet.
    let edits = formatting::format_newest(None, Some(newest)).expect("edits");
    assert_eq!(apply(newest, edits), expected);
    // An analysis of the text before the last change.
    let old = doc("tree  T {succeed}\n");
    let edits = formatting::format_newest(Some(&old), Some(newest)).expect("edits");
    assert_eq!(apply(newest, edits), expected);
    // The newest text does not parse: no edit, whatever the old analysis says.
    assert!(formatting::format_newest(Some(&old), Some("tree T {")).is_none());
    // Up to date: the analysis's own parse.
    let current = doc(newest);
    let edits = formatting::format_newest(Some(&current), Some(newest)).expect("edits");
    assert_eq!(apply(newest, edits), expected);
}

/// Every feature at many offsets of broken and truncated texts: nothing may panic.
#[test]
fn no_panics_on_broken_text() {
    let sources = [
        NAV.to_string(),
        include_str!("../../examples/waiter.affect").to_string(),
    ];
    for src in &sources {
        let cuts: Vec<usize> = (0..12).map(|k| src.len() * k / 11).collect();
        for cut in cuts {
            let mut cut = cut.min(src.len());
            while !src.is_char_boundary(cut) {
                cut -= 1;
            }
            for text in [
                src[..cut].to_string(),
                format!("{}(({{ `x{}", &src[..cut], &src[cut..]),
            ] {
                let d = doc(&text);
                let _ = symbols::document_symbols(&d);
                let _ = formatting::format(&d);
                let _ = crate::diagnostics::for_document(&d);
                for o in (0..=text.len()).step_by(97) {
                    let _ = hover::hover(&d, o);
                    let _ = definition::definition(&d, o);
                    let _ = completion::completion(&d, o);
                }
            }
        }
    }
}

/// A point's fields: hover names the field and its unit's type, and completion after `p.`
/// offers `x` and `y` with their types.
#[test]
fn point_fields_hover_and_complete() {
    let src = "action Go(in to: Point);\ntree T {\n    var p: Point = (1m, 2m);\n    sequence {\n        do { p.x += 1m; p.y = p.x }\n        Go(to: p)\n    }\n}\n";
    let h = hover_text(&at(src, "x += 1m", 0));
    assert!(
        h.contains("x: length") && h.contains("first coordinate"),
        "{h}"
    );
    let h = hover_text(&at(src, "y = p.x", 0));
    assert!(h.contains("y: length"), "{h}");
    let h = hover_text(&at(src, "x }", 0));
    assert!(h.contains("x: length"), "read: {h}");
    let (d, o) = doc_at(&at(src, "x += 1m", 0));
    let items = completion::completion(&d, o);
    let fields: Vec<(String, Option<String>)> =
        items.into_iter().map(|c| (c.label, c.detail)).collect();
    assert_eq!(
        fields,
        [
            ("x".to_string(), Some("p.x: length".to_string())),
            ("y".to_string(), Some("p.y: length".to_string()))
        ]
    );
}
