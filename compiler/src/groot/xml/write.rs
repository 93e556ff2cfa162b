//! The writer: quick-xml's [`Writer`] writes the markup; this layer lays it out (four-space
//! indentation, one element per line, attributes in their order, an XML declaration first)
//! and escapes values so that any XML reader gives them back exactly: `& < > " '` as
//! entities, and line breaks and tabs in attribute values as character references, because
//! a conforming reader turns raw ones into spaces (quick-xml's own escaping keeps them raw).
//! Deterministic: the same document gives the same bytes.

use super::{Document, Element, XmlNode};
use quick_xml::events::{BytesEnd, BytesPI, BytesStart, BytesText, Event};
use quick_xml::writer::Writer;

/// Escapes an attribute value (see the module comment).
pub fn escape_attr(s: &str, out: &mut String) {
    // Every character escaped is ASCII, so the text between them is copied in runs (a push
    // per character was a twentieth of a 10,000-node XML import, which writes each node's
    // start tag to compare it with the file's).
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        let Some(entity) = attr_entity(b) else {
            continue;
        };
        out.push_str(&s[from..i]);
        out.push_str(entity);
        from = i + 1;
    }
    out.push_str(&s[from..]);
}

/// Whether `escape_attr` writes this byte as an entity.
pub fn escaped(b: u8) -> bool {
    attr_entity(b).is_some()
}

/// The entity `escape_attr` writes for a byte, if it writes one.
fn attr_entity(b: u8) -> Option<&'static str> {
    Some(match b {
        b'&' => "&amp;",
        b'<' => "&lt;",
        b'>' => "&gt;",
        b'"' => "&quot;",
        b'\'' => "&apos;",
        b'\n' => "&#10;",
        b'\r' => "&#13;",
        b'\t' => "&#9;",
        _ => return None,
    })
}

/// Escapes character data.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Writes a document (see the module comment).
pub fn write(doc: &Document) -> String {
    let mut w = Writer::new(Vec::new());
    let has_decl = doc
        .nodes
        .iter()
        .any(|n| matches!(n, XmlNode::Instruction(t, _) if t.starts_with("xml ")));
    if !has_decl {
        event(
            &mut w,
            Event::PI(BytesPI::new(r#"xml version="1.0" encoding="UTF-8""#)),
        );
        w.get_mut().push(b'\n');
    }
    // Nodes to write, with their depth; `None` closes the element at that depth.
    let mut todo: Vec<(Option<&XmlNode>, &Element, usize)> = Vec::new();
    let top = Element::default();
    for n in doc.nodes.iter().rev() {
        todo.push((Some(n), &top, 0));
    }
    while let Some((node, parent, depth)) = todo.pop() {
        indent(&mut w, depth);
        let Some(node) = node else {
            event(&mut w, Event::End(BytesEnd::new(parent.name.as_str())));
            w.get_mut().push(b'\n');
            continue;
        };
        match node {
            XmlNode::Element(e) => {
                let start = start_tag(e);
                if e.children.is_empty() {
                    event(&mut w, Event::Empty(start));
                } else if e.children.iter().all(|c| matches!(c, XmlNode::Text(..))) {
                    event(&mut w, Event::Start(start));
                    let text = escape_text(e.text().trim());
                    event(&mut w, Event::Text(BytesText::from_escaped(text)));
                    event(&mut w, Event::End(BytesEnd::new(e.name.as_str())));
                } else {
                    event(&mut w, Event::Start(start));
                    w.get_mut().push(b'\n');
                    todo.push((None, e, depth));
                    for c in e.children.iter().rev() {
                        todo.push((Some(c), e, depth + 1));
                    }
                    continue;
                }
            }
            XmlNode::Comment(c, _) => {
                // Written as read: XML forbids `--` inside a comment, yet BehaviorTree.CPP's
                // reader (tinyxml2) and ours take it, and files have it (`--bb`); only a
                // `-->` would end the comment early.
                let body = c.replace("-->", "- ->");
                event(&mut w, Event::Comment(BytesText::from_escaped(body)));
            }
            XmlNode::Text(t, _) => {
                event(
                    &mut w,
                    Event::Text(BytesText::from_escaped(escape_text(t.trim()))),
                );
            }
            XmlNode::Instruction(t, _) => event(&mut w, Event::PI(BytesPI::new(t.as_str()))),
        }
        w.get_mut().push(b'\n');
    }
    String::from_utf8(w.into_inner()).expect("the writer writes the UTF-8 it is given")
}

fn start_tag(e: &Element) -> BytesStart<'_> {
    let mut content = e.name.clone();
    for a in &e.attrs {
        // Escaped, or as its file spelled it (in the quotes it needs).
        content.push(' ');
        content.push_str(&a.name);
        content.push('=');
        content.push_str(&a.quoted());
    }
    BytesStart::from_content(content, e.name.len())
}

fn event(w: &mut Writer<Vec<u8>>, e: Event<'_>) {
    w.write_event(e).expect("writing into memory cannot fail");
}

fn indent(w: &mut Writer<Vec<u8>>, depth: usize) {
    for _ in 0..depth {
        w.get_mut().extend_from_slice(b"    ");
    }
}
