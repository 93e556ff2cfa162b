//! XML comments through `.affect` and back, exactly.
//!
//! The import keeps each XML comment before an element as doc lines of the node it precedes,
//! spelled as the comment itself (`/// <!-- Patrol the corridor -->`): the reader of the
//! `.affect` file sees an XML comment, and the text is kept as written (no trimming or
//! dedenting, so the export gives it back byte for byte). The exporter writes doc lines as a
//! `_description`; [`restore`] then moves every leading `<!-- ... -->` of a `_description`
//! back out as XML comments before the element, and keeps the rest (a real `_description`)
//! as the attribute.
//!
//! Comments with no node after them are marked on their first line: those before `<root>`
//! ride on the main tree's doc as `/// (file) <!-- ... -->`, those before `<TreeNodesModel>`
//! on its first entry's as `/// (models) <!-- ... -->`, those at the end of `<root>` on the
//! main tree's as `/// (end) <!-- ... -->`, those after `</root>` on the main tree's as
//! `/// (tail) <!-- ... -->`, and a comment after a node (on its line, or last in its parent)
//! on that node's as `/// (after) <!-- ... -->`. Marked comments that go after
//! come last in a doc, after the node's own description.

use super::xml::{Document, XmlNode};

const OPEN: &str = "<!--";
const CLOSE: &str = "-->";

/// Where a carried comment goes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Before the element whose doc carries it.
    Here,
    /// Before `<root>`.
    File,
    /// Before `<TreeNodesModel>`.
    Models,
    /// After the element whose doc carries it.
    After,
    /// Last in `<root>`.
    End,
    /// After `</root>`.
    Tail,
}

impl Place {
    fn mark(self) -> &'static str {
        match self {
            Place::Here => "",
            Place::File => "(file) ",
            Place::Models => "(models) ",
            Place::After => "(after) ",
            Place::End => "(end) ",
            Place::Tail => "(tail) ",
        }
    }
}

/// The doc lines that carry one XML comment before an element (its text between `<!--` and
/// `-->`).
pub fn lines(text: &str) -> Vec<String> {
    lines_at(text, Place::Here)
}

/// The doc lines that carry one XML comment going back to `place`.
pub fn lines_at(text: &str, place: Place) -> Vec<String> {
    format!(
        "{}{OPEN}{}{CLOSE}",
        place.mark(),
        escape_line_ends(&text.replace("\r\n", "\n"))
    )
    .split('\n')
    .map(str::to_string)
    .collect()
}

/// A doc line ends where the comment's line does, and `///` lines lose trailing spaces (the
/// lexer and the formatter trim them): a line of the comment that ends in whitespace (or in
/// the escape itself) gets a `\` after it, which the export takes off again.
const ESCAPE: char = '\\';

fn escape_line_ends(text: &str) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let last = lines.len() - 1;
    for line in &mut lines[..last] {
        if line.ends_with(char::is_whitespace) || line.ends_with(ESCAPE) {
            line.push(ESCAPE);
        }
    }
    lines.join("\n")
}

fn unescape_line_ends(text: &str) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    for line in &mut lines[..last] {
        *line = line.strip_suffix(ESCAPE).unwrap_or(line);
    }
    lines.join("\n")
}

/// Takes the comments marked `place` off the start of carried doc lines (whole comments, as
/// [`lines_at`] spelled them).
pub fn take_leading(lines: &mut Vec<String>, place: Place) -> Vec<String> {
    let mark = format!("{}{OPEN}", place.mark());
    let mut end = 0;
    while lines.get(end).is_some_and(|l| l.starts_with(&mark)) {
        // The comment's last line is the first from here that closes it.
        match lines[end..].iter().position(|l| l.ends_with(CLOSE)) {
            Some(i) => end += i + 1,
            None => break,
        }
    }
    lines.drain(..end).collect()
}

/// Doc lines split into the XML comments they start with (unmarked: they go before the
/// element) and the rest.
pub fn leading(lines: &[String]) -> (Vec<String>, Vec<String>) {
    let text = lines.join("\n");
    let (comments, rest) = groups(&text, &[]);
    let rest = match rest {
        "" => vec![],
        r => r.split('\n').map(str::to_string).collect(),
    };
    (comments.into_iter().map(|(_, c)| c).collect(), rest)
}

/// A doc's text split into the XML comments it starts and ends with and the description
/// between them.
fn split(value: &str) -> (Vec<(Place, String)>, Option<String>) {
    let (mut comments, rest) = groups(value, &[Place::File, Place::Models]);
    // The comments that go after: from the first line marked so.
    let tail = [Place::After, Place::End, Place::Tail]
        .iter()
        .filter_map(|p| {
            let m = format!("{}{OPEN}", p.mark());
            (rest.starts_with(&m))
                .then_some(0)
                .or_else(|| rest.find(&format!("\n{m}")).map(|i| i + 1))
        })
        .min();
    let (desc, after) = match tail {
        Some(i) => {
            let (after, _) = groups(&rest[i..], &[Place::After, Place::End, Place::Tail]);
            (rest[..i].strip_suffix('\n').unwrap_or(&rest[..i]), after)
        }
        None => (rest, Vec::new()),
    };
    comments.extend(after);
    (comments, (!desc.is_empty()).then(|| desc.to_string()))
}

/// Whether a doc's lines are XML comments only (with their places), no description: what an
/// element that has no `_description` of its own (an `<include>`) can still carry.
pub fn only_comments(lines: &[String]) -> bool {
    let (comments, desc) = split(&lines.join("\n"));
    !comments.is_empty() && desc.is_none()
}

/// The comments at the start of `value` (unmarked, or marked with one of `marks`), and the
/// rest.
fn groups<'a>(value: &'a str, marks: &[Place]) -> (Vec<(Place, String)>, &'a str) {
    let mut comments = Vec::new();
    let mut rest = value;
    loop {
        let (place, r) = marks
            .iter()
            .copied()
            .find_map(|p| rest.strip_prefix(p.mark()).map(|r| (p, r)))
            .unwrap_or((Place::Here, rest));
        let Some(after) = r.strip_prefix(OPEN) else {
            break;
        };
        let Some(end) = after.find(CLOSE) else { break };
        comments.push((place, unescape_line_ends(&after[..end])));
        rest = &after[end + CLOSE.len()..];
        rest = rest.strip_prefix('\n').unwrap_or(rest);
    }
    (comments, rest)
}

/// Turns the comments carried in `_description`s back into XML comments before their
/// elements, everywhere in the document (iteratively: any depth).
pub fn restore(doc: &mut Document) {
    let mut file = Vec::new();
    let mut models = Vec::new();
    let mut end = Vec::new();
    let mut tail = Vec::new();
    let mut todo: Vec<&mut Vec<XmlNode>> = vec![&mut doc.nodes];
    while let Some(nodes) = todo.pop() {
        let mut out = Vec::with_capacity(nodes.len());
        for mut n in std::mem::take(nodes) {
            let mut after = Vec::new();
            if let XmlNode::Element(e) = &mut n {
                if let Some(i) = e.attrs.iter().position(|a| a.name == "_description") {
                    let (comments, rest) = split(&e.attrs[i].value);
                    for (place, c) in comments {
                        let c = XmlNode::Comment(c, Default::default());
                        match place {
                            Place::Here => out.push(c),
                            Place::File => file.push(c),
                            Place::Models => models.push(c),
                            Place::After => after.push(c),
                            Place::End => end.push(c),
                            Place::Tail => tail.push(c),
                        }
                    }
                    match rest {
                        Some(r) => e.attrs[i].value = r,
                        None => {
                            e.attrs.remove(i);
                        }
                    }
                }
            }
            out.push(n);
            out.extend(after);
        }
        *nodes = out;
        for n in nodes.iter_mut() {
            if let XmlNode::Element(e) = n {
                todo.push(&mut e.children);
            }
        }
    }
    if let Some(XmlNode::Element(root)) = doc
        .nodes
        .iter_mut()
        .find(|n| matches!(n, XmlNode::Element(_)))
    {
        let at = root
            .children
            .iter()
            .position(|n| matches!(n, XmlNode::Element(e) if e.name == "TreeNodesModel"))
            .unwrap_or(root.children.len());
        root.children.splice(at..at, models);
        root.children.extend(end);
    }
    let at = doc
        .nodes
        .iter()
        .position(|n| matches!(n, XmlNode::Element(_)))
        .unwrap_or(0);
    doc.nodes.splice(at..at, file);
    doc.nodes.extend(tail);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::groot::xml;

    #[test]
    fn comments_leave_the_description_in_order() {
        let mut doc = xml::parse(
            "<root><A _description=\"&lt;!-- one --&gt;\n&lt;!--\n  two\n--&gt;\nreal\"/><B _description=\"&lt;!--x--&gt;\"/></root>",
        )
        .document;
        restore(&mut doc);
        let back = xml::write(&doc);
        assert!(
            back.contains("<!-- one -->") && back.contains("<!--\n  two\n-->"),
            "{back}"
        );
        assert!(back.contains("_description=\"real\""), "{back}");
        assert!(back.contains("<!--x-->") && back.contains("<B/>"), "{back}");
        assert!(
            back.find("two").unwrap() < back.find("<A").unwrap(),
            "{back}"
        );
    }

    #[test]
    fn carried_lines_spell_the_comment() {
        assert_eq!(lines(" a\r\n  b "), vec!["<!-- a", "  b -->"]);
        assert_eq!(
            split(&lines(" a\n b").join("\n")).0,
            vec![(Place::Here, " a\n b".to_string())]
        );
        let carried = [
            lines_at("f", Place::File),
            lines_at("m", Place::Models),
            vec!["desc".into()],
            lines_at("a", Place::After),
            lines_at("e", Place::End),
            lines_at("t", Place::Tail),
        ]
        .concat();
        assert_eq!(
            split(&carried.join("\n")),
            (
                vec![
                    (Place::File, "f".into()),
                    (Place::Models, "m".into()),
                    (Place::After, "a".into()),
                    (Place::End, "e".into()),
                    (Place::Tail, "t".into())
                ],
                Some("desc".into())
            )
        );
        assert_eq!(split("plain"), (vec![], Some("plain".into())));
    }

    #[test]
    fn line_ends_the_formatter_would_trim_are_escaped() {
        let text = " a  \n b\\\n c \n d ";
        let carried = lines(text);
        assert_eq!(carried, vec!["<!-- a  \\", " b\\\\", " c \\", " d -->"]);
        assert!(carried.iter().all(|l| l.trim_end() == l));
        assert_eq!(
            split(&carried.join("\n")).0,
            vec![(Place::Here, text.to_string())]
        );
    }

    #[test]
    fn leading_marked_comments_come_off_whole() {
        let mut doc = [
            lines_at(" a\n b ", Place::Models),
            lines_at("c", Place::Models),
            lines("d"),
        ]
        .concat();
        let lead = take_leading(&mut doc, Place::Models);
        assert_eq!(lead, vec!["(models) <!-- a", " b -->", "(models) <!--c-->"]);
        assert_eq!(doc, vec!["<!--d-->"]);
        assert!(take_leading(&mut doc, Place::Models).is_empty());
        let (comments, rest) = leading(&[lines(" a\n b "), vec!["desc".into()]].concat());
        assert_eq!(comments, vec![" a\n b ".to_string()]);
        assert_eq!(rest, vec!["desc".to_string()]);
        assert_eq!(leading(&lines("x")), (vec!["x".to_string()], vec![]));
    }
}
