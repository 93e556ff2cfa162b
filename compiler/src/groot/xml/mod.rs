//! Groot / BehaviorTree.CPP XML on quick-xml: its low-level reader and writer under a thin
//! layer that keeps what BehaviorTree.CPP's tinyxml2 does and what the importer needs.
//!
//! The reader ([`read`]) is lenient exactly where tinyxml2 is, so every file BehaviorTree.CPP
//! loads can be imported: an attribute value runs to its closing quote and may hold raw `<`,
//! `>` and `&&`; an `&` that does not start a known entity stays literal; raw newlines in
//! attribute values stay newlines (tinyxml2 does not normalise them to spaces). It is strict
//! where BehaviorTree.CPP refuses a file (unclosed or mismatched tags, duplicate attributes,
//! junk in tags), and refuses `<!DOCTYPE>` outright: no entity is ever declared or expanded,
//! so no entity trick (external entities, entity expansion bombs) can apply.
//!
//! Every element, attribute and comment keeps its byte span in the text, so diagnostics render
//! at XML line and column. Nothing recurses on the input (a stack of open elements), so no
//! input can overflow the call stack; nesting and attribute sizes have limits with
//! diagnostics; duplicate attributes are found with a hash set (quick-xml's own check compares
//! each name with every earlier one, quadratic in the number of attributes, so it is off).
//!
//! The writer ([`write`]) lays documents out the same way every time: four-space indentation,
//! one element per line, attributes in their order.

mod read;
mod write;

pub use read::parse;
pub use write::{escape_attr, escape_text, escaped, write};

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use std::collections::HashMap;

/// Elements may nest this deep (BehaviorTree.CPP's own limit is 256 tree levels, plus the
/// `<root>` and `<BehaviorTree>` around them).
pub const MAX_DEPTH: usize = 300;
/// The largest attribute value accepted: far above any real script, far below what could
/// exhaust memory through copies.
pub const MAX_ATTRIBUTE: usize = 1 << 20;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Document {
    /// Everything at the top level, in order: the declaration, comments, the root element.
    pub nodes: Vec<XmlNode>,
}

impl Document {
    /// The first element at the top level (tinyxml2's `RootElement()`).
    pub fn root(&self) -> Option<&Element> {
        self.nodes.iter().find_map(|n| match n {
            XmlNode::Element(e) => Some(e),
            _ => None,
        })
    }

    pub fn root_mut(&mut self) -> Option<&mut Element> {
        self.nodes.iter_mut().find_map(|n| match n {
            XmlNode::Element(e) => Some(e),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum XmlNode {
    Element(Element),
    /// `<!-- text -->`: the text between the markers.
    Comment(String, Span),
    /// Character data (entities decoded, CDATA included). Whitespace-only runs are dropped.
    Text(String, Span),
    /// `<?xml ... ?>` and other processing instructions, kept verbatim (without `<?` `?>`).
    Instruction(String, Span),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Element {
    pub name: String,
    pub name_span: Span,
    /// From `<` to the end of the closing tag (or of `/>`).
    pub span: Span,
    pub attrs: Vec<Attribute>,
    pub children: Vec<XmlNode>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attribute {
    pub name: String,
    pub name_span: Span,
    /// The value with entities decoded.
    pub value: String,
    /// The value's bytes in the text, between the quotes.
    pub value_span: Span,
    /// True when the value was written without entities, so offset `i` of `value` is byte
    /// `value_span.start + i` of the text (lets script diagnostics point inside the value).
    pub verbatim: bool,
    /// The value as its file spelled it, when the writer's escaping would spell it otherwise
    /// (`'` rather than `&apos;`, `&#10;`, a raw `>`): the writer gives that text back while
    /// the value is still the one it spells (see [`Raw`]).
    pub raw: Option<Box<Raw>>,
}

/// An attribute value's text as written in a file, with the value it spells: the writer uses
/// `text` only while the attribute's value is still `value`, so an edited value is escaped
/// anew and a kept one comes back byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Raw {
    pub value: String,
    pub text: String,
}

impl Attribute {
    /// The value's text as the writer writes it: as written in the file where that is known
    /// and still spells the value, else escaped.
    pub fn text(&self) -> String {
        self.spelled().into_owned()
    }

    /// [`Attribute::text`], borrowed where the text is already there (a kept spelling, or a
    /// value with nothing to escape).
    pub fn spelled(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        match &self.raw {
            Some(r) if r.value == self.value => Cow::Borrowed(r.text.as_str()),
            _ if !self.value.bytes().any(escaped) => Cow::Borrowed(self.value.as_str()),
            _ => {
                let mut out = String::with_capacity(self.value.len());
                escape_attr(&self.value, &mut out);
                Cow::Owned(out)
            }
        }
    }

    /// The value's text in quotes: `'` around a kept spelling that holds a `"` (as its file
    /// quoted it), else `"`.
    pub fn quoted(&self) -> String {
        let text = self.text();
        if text.contains('"') {
            if text.contains('\'') {
                format!("\"{}\"", text.replace('"', "&quot;"))
            } else {
                format!("'{text}'")
            }
        } else {
            format!("\"{text}\"")
        }
    }

    /// Keeps `text` as the spelling of the current value (when it differs from the escaping).
    pub fn keep_spelling(&mut self, text: &str) {
        let mut escaped = String::with_capacity(self.value.len());
        escape_attr(&self.value, &mut escaped);
        self.raw = (escaped != text).then(|| {
            Box::new(Raw {
                value: self.value.clone(),
                text: text.to_string(),
            })
        });
    }
}

impl Element {
    pub fn new(name: impl Into<String>) -> Element {
        Element {
            name: name.into(),
            ..Element::default()
        }
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }

    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// Sets an attribute, replacing an existing one of the same name in place.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.attrs.iter_mut().find(|a| a.name == name) {
            Some(a) => a.value = value,
            None => {
                if self.attrs.len() == self.attrs.capacity() && self.attrs.len() < 4 {
                    // Most elements written have one to three attributes (`<input_port
                    // name=".." type=".."/>`): room for each as it comes, not the four a
                    // first push makes (a model of 200,000 ports wrote 29 MB of empty room).
                    self.attrs.reserve_exact(1);
                }
                self.attrs.push(Attribute {
                    name: name.to_string(),
                    value,
                    ..Attribute::default()
                })
            }
        }
    }

    /// Sets attributes as [`Element::set`] would one after the other, with the names hashed
    /// once: setting a call's 200,000 ports one by one searched the list for each
    /// (quadratic). The names are borrowed while each pair's place is found, not copied
    /// into the map (that copy was a fifth of exporting such a call).
    pub fn set_all<N: AsRef<str>>(&mut self, pairs: impl IntoIterator<Item = (N, String)>) {
        let pairs: Vec<(N, String)> = pairs.into_iter().collect();
        // Where each pair goes: an attribute already there (the first of its name, the one
        // `set` replaces), or the end of the list as it will be when the pair comes.
        let mut places = Vec::with_capacity(pairs.len());
        let end = {
            let mut at: HashMap<&str, usize> =
                HashMap::with_capacity(self.attrs.len() + pairs.len());
            for (i, a) in self.attrs.iter().enumerate() {
                at.entry(a.name.as_str()).or_insert(i);
            }
            let mut len = self.attrs.len();
            for (name, _) in &pairs {
                let place = *at.entry(name.as_ref()).or_insert_with(|| {
                    len += 1;
                    len - 1
                });
                places.push(place);
            }
            len
        };
        self.attrs.reserve_exact(end - self.attrs.len());
        for ((name, value), place) in pairs.into_iter().zip(places) {
            if place < self.attrs.len() {
                self.attrs[place].value = value;
            } else {
                self.attrs.push(Attribute {
                    name: name.as_ref().to_string(),
                    value,
                    ..Attribute::default()
                });
            }
        }
    }

    pub fn with(mut self, name: &str, value: impl Into<String>) -> Element {
        self.set(name, value);
        self
    }

    pub fn remove(&mut self, name: &str) -> Option<Attribute> {
        let i = self.attrs.iter().position(|a| a.name == name)?;
        Some(self.attrs.remove(i))
    }

    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            XmlNode::Element(e) => Some(e),
            _ => None,
        })
    }

    pub fn elements_mut(&mut self) -> impl Iterator<Item = &mut Element> {
        self.children.iter_mut().filter_map(|n| match n {
            XmlNode::Element(e) => Some(e),
            _ => None,
        })
    }

    /// The character data directly inside the element, concatenated.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for c in &self.children {
            if let XmlNode::Text(t, _) = c {
                out.push_str(t);
            }
        }
        out
    }

    /// The span of the start tag `<name ...>` (used for diagnostics about the element).
    pub fn tag_span(&self) -> Span {
        let end = self
            .attrs
            .last()
            .map(|a| a.value_span.end + 1)
            .unwrap_or(self.name_span.end)
            .max(self.name_span.end);
        Span {
            start: self.span.start,
            end: end.min(self.span.end.max(end)),
        }
    }
}

pub struct Parsed {
    pub document: Document,
    pub diagnostics: Vec<Diagnostic>,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80
}

fn is_name_char(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'.' || b == b'-'
}

/// Decodes the predefined entities and character references. Anything else after `&` is kept
/// as written, as tinyxml2 does. Returns the value and whether it had no entity at all.
pub fn decode(raw: &str) -> (String, bool) {
    if !raw.contains('&') {
        return (raw.to_string(), true);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match entity(rest) {
            Some((c, used)) => {
                out.push(c);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    (out, false)
}

/// The character an entity or character reference at the start of `rest` (at its `&`) stands
/// for, and its length; `None` when the `&` is kept as written.
fn entity(rest: &str) -> Option<(char, usize)> {
    let semi = rest.as_bytes()[..rest.len().min(12)]
        .iter()
        .position(|&b| b == b';')?;
    let ent = &rest[1..semi];
    let ch = match ent {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        _ => {
            let num = ent.strip_prefix('#')?;
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse::<u32>().ok()?,
            };
            char::from_u32(code).filter(|&c| c != '\0')?
        }
    };
    Some((ch, semi + 1))
}

/// Where each byte of an attribute's value (as [`Attribute::value`] holds it: entities
/// decoded, line breaks made `\n`) is in its text as written, `raw`; one more entry for the
/// end. A diagnostic about a part of the value (a name in carried `.affect` text, a script's
/// operand) is placed with it in the file.
pub fn value_offsets(raw: &str) -> Vec<u32> {
    let mut out = Vec::with_capacity(raw.len() + 1);
    let mut i = 0;
    while i < raw.len() {
        let rest = &raw[i..];
        let (c, used) = match rest.as_bytes()[0] {
            b'&' => entity(rest).unwrap_or(('&', 1)),
            // tinyxml2's line breaks: `\r\n` and a lone `\r` are one `\n`.
            b'\r' if rest.as_bytes().get(1) == Some(&b'\n') => ('\n', 2),
            _ => {
                let c = rest.chars().next().expect("not at the end");
                (c, c.len_utf8())
            }
        };
        let c = if c == '\r' { '\n' } else { c };
        for _ in 0..c.len_utf8() {
            out.push(i as u32);
        }
        i += used;
    }
    out.push(raw.len() as u32);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_offsets_follow_the_decoding() {
        let raw = "a&amp;b&#10;c\r\nd&x";
        let (value, _) = decode(raw);
        let value = value.replace("\r\n", "\n");
        let at = value_offsets(raw);
        assert_eq!(at.len(), value.len() + 1);
        // `b` is after `&amp;`, `c` after `&#10;`, `d` after the line break, `x` after `&`.
        let raw_of = |c: char| at[value.find(c).unwrap()] as usize;
        assert_eq!(&raw[raw_of('b')..raw_of('b') + 1], "b");
        assert_eq!(&raw[raw_of('c')..raw_of('c') + 1], "c");
        assert_eq!(&raw[raw_of('d')..raw_of('d') + 1], "d");
        assert_eq!(&raw[raw_of('x')..raw_of('x') + 1], "x");
        assert_eq!(at[value.len()] as usize, raw.len());
    }

    fn ok(text: &str) -> Document {
        let p = parse(text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        p.document
    }

    fn codes(text: &str) -> Vec<&'static str> {
        parse(text).diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn set_all_sets_as_set_would_one_after_the_other() {
        let mut a = Element::new("A").with("x", "1").with("y", "2");
        let mut b = a.clone();
        let pairs = [("z", "3"), ("x", "4"), ("z", "5"), ("w", "6")];
        for (n, v) in pairs {
            a.set(n, v);
        }
        b.set_all(pairs.iter().map(|&(n, v)| (n, v.to_string())));
        assert_eq!(a, b);
        let got: Vec<(&str, &str)> = b.attrs.iter().map(|t| (&*t.name, &*t.value)).collect();
        assert_eq!(got, [("x", "4"), ("y", "2"), ("z", "5"), ("w", "6")]);
    }

    #[test]
    fn lenient_attribute_values_like_tinyxml2() {
        let d = ok(
            r#"<root><Precondition if="A>B && color!=BLUE" x='a<b' y="&amp;&foo;&#65;"/></root>"#,
        );
        let p = d.root().unwrap().elements().next().unwrap();
        assert_eq!(p.attr("if"), Some("A>B && color!=BLUE"));
        assert_eq!(p.attr("x"), Some("a<b"));
        assert_eq!(p.attr("y"), Some("&&foo;A"));
    }

    #[test]
    fn comments_text_and_spans() {
        let src = "<?xml version=\"1.0\"?>\n<!-- top -->\n<root a=\"1\">\n <!-- c -->\n <p name=\"x\">Desc &lt;1&gt;</p>\n</root>\n";
        let d = ok(src);
        assert_eq!(d.nodes.len(), 3);
        let root = d.root().unwrap();
        assert_eq!(&src[root.name_span.range()], "root");
        let p = root.elements().next().unwrap();
        assert_eq!(p.text(), "Desc <1>");
        let a = p.attribute("name").unwrap();
        assert_eq!(&src[a.value_span.range()], "x");
    }

    #[test]
    fn strict_errors() {
        assert_eq!(codes("<root><a></root>"), vec!["E0403"]);
        assert_eq!(codes("<root><a>"), vec!["E0402"]);
        assert_eq!(codes("<root a=\"1\" a=\"2\"/>"), vec!["E0405"]);
        assert_eq!(
            codes("<!DOCTYPE x [<!ENTITY a \"b\">]><root/>"),
            vec!["E0404"]
        );
        assert_eq!(codes("<root a=1/>"), vec!["E0401"]);
        assert_eq!(codes(""), vec!["E0407"]);
        assert_eq!(codes("<root/><root/>"), vec!["W0402"]);
        assert_eq!(codes("<root><a b=\"x></root>"), vec!["E0402"]);
    }

    #[test]
    fn text_outside_the_root_is_marked_on_character_boundaries() {
        // 37 ASCII bytes, then a 4-byte character across the 40-byte cap of the mark.
        let text = format!("{}\u{10000}tail<root/>", "x".repeat(37));
        let p = parse(&text);
        assert_eq!(p.diagnostics.len(), 1);
        let span = p.diagnostics[0].primary.span;
        assert_eq!(p.diagnostics[0].code, "E0401");
        assert_eq!(&text[span.range()], "x".repeat(37));
    }

    #[test]
    fn huge_attribute_is_refused() {
        let text = format!("<root a=\"{}\"/>", "x".repeat(MAX_ATTRIBUTE + 1));
        assert_eq!(codes(&text), vec!["E0406"]);
        let ok = format!("<root a=\"{}\"/>", "x".repeat(1000));
        assert!(codes(&ok).is_empty());
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let mut s = String::new();
        for _ in 0..100_000 {
            s.push_str("<a>");
        }
        assert_eq!(codes(&s), vec!["E0406"]);
    }

    #[test]
    fn writer_escapes_and_round_trips() {
        let mut e = Element::new("Script").with("code", "a := 'x' & b\n<c>\"");
        e.children.clear();
        let doc = Document {
            nodes: vec![XmlNode::Element(e.clone())],
        };
        let text = write(&doc);
        assert!(text.contains("&apos;x&apos; &amp; b&#10;&lt;c&gt;&quot;"));
        let back = ok(&text);
        assert_eq!(back.root().unwrap().attr("code"), e.attr("code"));
    }
}
