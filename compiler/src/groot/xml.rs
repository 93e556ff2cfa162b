//! A small XML reader and writer for Groot / BehaviorTree.CPP files.
//!
//! The reader is lenient exactly where tinyxml2 (BehaviorTree.CPP's parser) is lenient, so every
//! file BehaviorTree.CPP loads can be imported: an attribute value runs to its closing quote and
//! may hold raw `<`, `>` and `&&`; an `&` that does not start a known entity stays literal; raw
//! newlines in attribute values stay newlines (tinyxml2 does not normalise them to spaces). It is
//! strict where BehaviorTree.CPP refuses a file (unclosed or mismatched tags, duplicate
//! attributes, junk in tags), and refuses `<!DOCTYPE>` outright: no entity is ever declared or
//! expanded, so no entity trick (external entities, entity expansion bombs) can apply.
//!
//! Every element, attribute and comment keeps its byte span in the text, so diagnostics render
//! at XML line and column. The reader never recurses (a stack of open elements), so no input
//! can overflow the call stack; nesting and attribute sizes have limits with diagnostics.

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
            None => self.attrs.push(Attribute {
                name: name.to_string(),
                value,
                ..Attribute::default()
            }),
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

/// Reads an XML text. On an error the document holds what was read before it; callers check
/// the diagnostics for errors before trusting it.
pub fn parse(text: &str) -> Parsed {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        diags: Vec::new(),
    };
    let document = r.document();
    Parsed {
        document,
        diagnostics: r.diags,
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    diags: Vec<Diagnostic>,
}

/// A failed read: the diagnostic is already recorded.
struct Fatal;

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80
}

fn is_name_char(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'.' || b == b'-'
}

impl<'a> Reader<'a> {
    fn error(&mut self, code: &'static str, msg: impl Into<String>, span: Span) -> Fatal {
        self.diags.push(Diagnostic::error(code, msg, span));
        Fatal
    }

    fn push(&mut self, d: Diagnostic) -> Fatal {
        self.diags.push(d);
        Fatal
    }

    fn starts(&self, s: &str) -> bool {
        self.bytes[self.pos..].starts_with(s.as_bytes())
    }

    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// The character at the current position, for messages.
    fn here(&self) -> String {
        match self.text[self.pos..].chars().next() {
            Some(c) => format!("`{}`", c.escape_debug()),
            None => "the end of the file".to_string(),
        }
    }

    fn here_span(&self) -> Span {
        let len = self.text[self.pos..]
            .chars()
            .next()
            .map(char::len_utf8)
            .unwrap_or(0);
        Span::new(self.pos, self.pos + len)
    }

    fn document(&mut self) -> Document {
        let mut doc = Document::default();
        if self.starts("\u{feff}") {
            self.pos += 3;
        }
        // Open elements: the element being filled is the last one.
        let mut stack: Vec<Element> = Vec::new();
        let mut seen_root = false;
        loop {
            if stack.is_empty() {
                self.skip_ws();
            }
            if self.pos >= self.bytes.len() {
                break;
            }
            let step = if self.bytes[self.pos] == b'<' {
                self.markup(&mut stack, &mut doc, &mut seen_root)
            } else {
                self.text_run(&mut stack, seen_root)
            };
            if step.is_err() {
                return doc;
            }
        }
        if let Some(open) = stack.last() {
            let span = open.name_span;
            let name = open.name.clone();
            self.push(
                Diagnostic::error("E0402", format!("element `<{name}>` is never closed"), span)
                    .with_label("opened here")
                    .with_help(format!("close it with `</{name}>`, or write `<{name} ... />` if it has no children")),
            );
            return doc;
        }
        if !seen_root {
            let end = self.text.len();
            self.push(
                Diagnostic::error("E0407", "the file has no root element", Span::new(end, end))
                    .with_label("expected `<root BTCPP_format=\"4\">` with the trees inside")
                    .with_help("a Groot / BehaviorTree.CPP file is one `<root>` element holding `<BehaviorTree>` elements"),
            );
        }
        doc
    }

    /// Character data between tags.
    fn text_run(&mut self, stack: &mut [Element], seen_root: bool) -> Result<(), Fatal> {
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'<' {
            self.pos += 1;
        }
        let raw = &self.text[start..self.pos];
        let span = Span::new(start, self.pos);
        if raw.trim().is_empty() {
            return Ok(());
        }
        match stack.last_mut() {
            Some(parent) => {
                let (value, _) = decode(raw);
                parent.children.push(XmlNode::Text(value, span));
                Ok(())
            }
            None => {
                let trimmed = raw.trim_start();
                let at = start + (raw.len() - trimmed.len());
                let what = if seen_root { "after" } else { "before" };
                Err(self.push(
                    Diagnostic::error(
                        "E0401",
                        format!("text {what} the root element"),
                        Span::new(at, at + trimmed.trim_end().len().min(40)),
                    )
                    .with_label("not inside any element")
                    .with_help("everything except the XML declaration and comments belongs inside `<root>`"),
                ))
            }
        }
    }

    fn markup(
        &mut self,
        stack: &mut Vec<Element>,
        doc: &mut Document,
        seen_root: &mut bool,
    ) -> Result<(), Fatal> {
        let start = self.pos;
        if self.starts("<!--") {
            let Some(len) = self.text[start + 4..].find("-->") else {
                return Err(self.push(
                    Diagnostic::error(
                        "E0402",
                        "comment is never closed",
                        Span::new(start, start + 4),
                    )
                    .with_label("this comment has no `-->`"),
                ));
            };
            let body = self.text[start + 4..start + 4 + len].to_string();
            self.pos = start + 4 + len + 3;
            let node = XmlNode::Comment(body, Span::new(start, self.pos));
            match stack.last_mut() {
                Some(p) => p.children.push(node),
                None => doc.nodes.push(node),
            }
            return Ok(());
        }
        if self.starts("<![CDATA[") {
            let Some(len) = self.text[start + 9..].find("]]>") else {
                return Err(self.push(
                    Diagnostic::error(
                        "E0402",
                        "CDATA section is never closed",
                        Span::new(start, start + 9),
                    )
                    .with_label("this section has no `]]>`"),
                ));
            };
            let body = self.text[start + 9..start + 9 + len].to_string();
            self.pos = start + 9 + len + 3;
            match stack.last_mut() {
                Some(p) => p
                    .children
                    .push(XmlNode::Text(body, Span::new(start, self.pos))),
                None => {
                    return Err(self.error(
                        "E0401",
                        "CDATA outside the root element",
                        Span::new(start, start + 9),
                    ))
                }
            }
            return Ok(());
        }
        if self.starts("<!") {
            let word: String = self.text[start + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            let span = Span::new(start, start + 2 + word.len());
            if word.eq_ignore_ascii_case("DOCTYPE") || word.eq_ignore_ascii_case("ENTITY") {
                return Err(self.push(
                    Diagnostic::error("E0404", format!("`<!{word}>` is not accepted"), span)
                        .with_label("document type declarations are refused")
                        .with_help("BehaviorTree.CPP files need no DTD; remove it (entities are never declared or expanded, so they cannot be used either)"),
                ));
            }
            return Err(self.error("E0401", format!("unknown markup `<!{word}`"), span));
        }
        if self.starts("<?") {
            let Some(len) = self.text[start + 2..].find("?>") else {
                return Err(self.push(
                    Diagnostic::error(
                        "E0402",
                        "processing instruction is never closed",
                        Span::new(start, start + 2),
                    )
                    .with_label("no `?>` follows"),
                ));
            };
            let body = self.text[start + 2..start + 2 + len].to_string();
            self.pos = start + 2 + len + 2;
            let node = XmlNode::Instruction(body, Span::new(start, self.pos));
            match stack.last_mut() {
                Some(p) => p.children.push(node),
                None => doc.nodes.push(node),
            }
            return Ok(());
        }
        if self.starts("</") {
            return self.close_tag(stack, doc);
        }
        // A start tag.
        self.pos += 1;
        if self.pos >= self.bytes.len() || !is_name_start(self.bytes[self.pos]) {
            let here = self.here();
            let span = Span::new(start, self.here_span().end as usize);
            return Err(self.push(
                Diagnostic::error(
                    "E0401",
                    format!("expected an element name after `<`, found {here}"),
                    span,
                )
                .with_label("not a tag")
                .with_help("a literal `<` in text is written `&lt;`"),
            ));
        }
        if stack.is_empty() && *seen_root {
            // tinyxml2 reads it and BehaviorTree.CPP ignores it (it uses the first element).
            let name_end = self.name_end();
            let name = self.text[self.pos..name_end].to_string();
            self.diags.push(
                Diagnostic::warning(
                    "W0402",
                    format!("a second top-level element `<{name}>` is ignored"),
                    Span::new(self.pos, name_end),
                )
                .with_label("BehaviorTree.CPP reads only the first element")
                .with_help("put every `<BehaviorTree>` inside the one `<root>` element"),
            );
        }
        let name_start = self.pos;
        self.pos = self.name_end();
        let mut el = Element::new(&self.text[name_start..self.pos]);
        el.name_span = Span::new(name_start, self.pos);
        el.span = Span::new(start, self.pos);
        // Attribute names seen so far (index into `el.attrs`): duplicates are found in
        // constant time, so an element with many attributes is read in linear time.
        let mut seen: HashMap<String, usize> = HashMap::new();
        loop {
            let before_ws = self.pos;
            self.skip_ws();
            if self.pos >= self.bytes.len() {
                let name = el.name.clone();
                return Err(self.push(
                    Diagnostic::error(
                        "E0402",
                        format!("the tag `<{name}` is never closed"),
                        el.name_span,
                    )
                    .with_label("this start tag has no `>`"),
                ));
            }
            match self.bytes[self.pos] {
                b'>' => {
                    self.pos += 1;
                    el.span.end = self.pos as u32;
                    if stack.len() >= MAX_DEPTH {
                        return Err(self.push(
                            Diagnostic::error("E0406", "elements nest too deeply", el.name_span)
                                .with_label(format!("more than {MAX_DEPTH} levels"))
                                .with_help("BehaviorTree.CPP refuses trees deeper than 256 levels"),
                        ));
                    }
                    stack.push(el);
                    if stack.len() == 1 {
                        *seen_root = true;
                    }
                    return Ok(());
                }
                b'/' if self.bytes.get(self.pos + 1) == Some(&b'>') => {
                    self.pos += 2;
                    el.span.end = self.pos as u32;
                    match stack.last_mut() {
                        Some(p) => p.children.push(XmlNode::Element(el)),
                        None => {
                            *seen_root = true;
                            doc.nodes.push(XmlNode::Element(el));
                        }
                    }
                    return Ok(());
                }
                b if is_name_start(b) => {
                    if before_ws == self.pos {
                        let here = self.here();
                        let span = self.here_span();
                        return Err(self.push(
                            Diagnostic::error(
                                "E0401",
                                format!("expected a space before the attribute, found {here}"),
                                span,
                            )
                            .with_label("attributes are separated by whitespace"),
                        ));
                    }
                    let attr = self.attribute(&el, &seen)?;
                    seen.insert(attr.name.clone(), el.attrs.len());
                    el.attrs.push(attr);
                }
                _ => {
                    let here = self.here();
                    let span = self.here_span();
                    let name = el.name.clone();
                    return Err(self.push(
                        Diagnostic::error(
                            "E0401",
                            format!("unexpected {here} in the tag `<{name}>`"),
                            span,
                        )
                        .with_label("expected an attribute name, `>` or `/>`"),
                    ));
                }
            }
        }
    }

    fn name_end(&self) -> usize {
        let mut end = self.pos;
        while end < self.bytes.len() && is_name_char(self.bytes[end]) {
            end += 1;
        }
        // Never stop inside a UTF-8 sequence: name chars include every byte >= 0x80.
        end
    }

    fn attribute(
        &mut self,
        el: &Element,
        seen: &HashMap<String, usize>,
    ) -> Result<Attribute, Fatal> {
        let name_start = self.pos;
        self.pos = self.name_end();
        let name = self.text[name_start..self.pos].to_string();
        let name_span = Span::new(name_start, self.pos);
        if let Some(&prev) = seen.get(&name) {
            let prev_span = el.attrs[prev].name_span;
            return Err(self.push(
                Diagnostic::error(
                    "E0405",
                    format!("attribute `{name}` is given twice"),
                    name_span,
                )
                .with_label("second value")
                .with_secondary(prev_span, "first value")
                .with_help("an XML element has each attribute at most once; keep one of them"),
            ));
        }
        self.skip_ws();
        if self.pos >= self.bytes.len() || self.bytes[self.pos] != b'=' {
            let here = self.here();
            let span = self.here_span();
            return Err(self.push(
                Diagnostic::error(
                    "E0401",
                    format!("attribute `{name}` has no value"),
                    name_span,
                )
                .with_secondary(span, format!("expected `=` here, found {here}"))
                .with_help(format!("write `{name}=\"...\"`")),
            ));
        }
        self.pos += 1;
        self.skip_ws();
        let quote = match self.bytes.get(self.pos) {
            Some(q @ (b'"' | b'\'')) => *q,
            _ => {
                let here = self.here();
                let span = self.here_span();
                return Err(self.push(
                    Diagnostic::error(
                        "E0401",
                        format!("the value of `{name}` is not quoted"),
                        span,
                    )
                    .with_label(format!("expected `\"` or `'`, found {here}"))
                    .with_help(format!("write `{name}=\"...\"`")),
                ));
            }
        };
        let open = self.pos;
        let value_start = open + 1;
        let Some(len) = self.bytes[value_start..].iter().position(|&b| b == quote) else {
            return Err(self.push(
                Diagnostic::error(
                    "E0402",
                    format!("the value of `{name}` is never closed"),
                    Span::new(open, open + 1),
                )
                .with_label("this quote has no partner")
                .with_help("close the value with the same quote it opened with"),
            ));
        };
        let value_span = Span::new(value_start, value_start + len);
        if len > MAX_ATTRIBUTE {
            return Err(self.push(
                Diagnostic::error(
                    "E0406",
                    format!("the value of `{name}` is too large ({len} bytes)"),
                    name_span,
                )
                .with_label(format!(
                    "attribute values are limited to {MAX_ATTRIBUTE} bytes"
                )),
            ));
        }
        let raw = &self.text[value_start..value_start + len];
        // tinyxml2 turns \r\n into \n in attribute values and keeps everything else,
        // raw `<`, `>` and unknown `&...` included.
        let (mut value, verbatim) = decode(raw);
        let mut verbatim = verbatim;
        if value.contains('\r') {
            value = value.replace("\r\n", "\n").replace('\r', "\n");
            verbatim = false;
        }
        self.pos = value_start + len + 1;
        Ok(Attribute {
            name,
            name_span,
            value,
            value_span,
            verbatim,
        })
    }

    fn close_tag(&mut self, stack: &mut Vec<Element>, doc: &mut Document) -> Result<(), Fatal> {
        let start = self.pos;
        self.pos += 2;
        let name_start = self.pos;
        self.pos = self.name_end();
        let name = self.text[name_start..self.pos].to_string();
        let name_span = Span::new(name_start, self.pos);
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b'>') {
            let here = self.here();
            let span = self.here_span();
            return Err(self.push(
                Diagnostic::error(
                    "E0401",
                    format!("expected `>` to end the closing tag, found {here}"),
                    span,
                )
                .with_label("a closing tag holds only the element name"),
            ));
        }
        self.pos += 1;
        let Some(mut el) = stack.pop() else {
            return Err(self.push(
                Diagnostic::error(
                    "E0403",
                    format!("closing tag `</{name}>` without an open element"),
                    Span::new(start, self.pos),
                )
                .with_label("nothing is open here"),
            ));
        };
        if el.name != name {
            let open = el.name_span;
            let open_name = el.name.clone();
            return Err(self.push(
                Diagnostic::error(
                    "E0403",
                    format!("`</{name}>` closes `<{open_name}>`"),
                    name_span,
                )
                .with_label(format!("expected `</{open_name}>`"))
                .with_secondary(open, "the element still open here"),
            ));
        }
        el.span.end = self.pos as u32;
        match stack.last_mut() {
            Some(p) => p.children.push(XmlNode::Element(el)),
            None => doc.nodes.push(XmlNode::Element(el)),
        }
        Ok(())
    }
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
        let semi = rest.as_bytes()[..rest.len().min(12)]
            .iter()
            .position(|&b| b == b';');
        let decoded = semi.and_then(|s| {
            let ent = &rest[1..s];
            let ch = match ent {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let num = ent.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse::<u32>().ok()?,
                    };
                    char::from_u32(code).filter(|&c| c != '\0')
                }
            };
            ch.map(|c| (c, s + 1))
        });
        match decoded {
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

// ---------------------------------------------------------------------------------- writer

/// Escapes an attribute value: `& < > " '` as entities, and line breaks and tabs as character
/// references, because a conforming XML reader turns raw ones into spaces.
pub fn escape_attr(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
}

pub fn escape_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// Writes a document with four-space indentation, one element per line, attributes in their
/// order, an XML declaration first. Deterministic: the same document gives the same bytes.
pub fn write(doc: &Document) -> String {
    let mut out = String::new();
    let has_decl = doc
        .nodes
        .iter()
        .any(|n| matches!(n, XmlNode::Instruction(t, _) if t.starts_with("xml ")));
    if !has_decl {
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }
    for n in &doc.nodes {
        write_node(n, 0, &mut out);
    }
    out
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn write_node(n: &XmlNode, depth: usize, out: &mut String) {
    match n {
        XmlNode::Element(e) => write_element(e, depth, out),
        XmlNode::Comment(c, _) => {
            indent(depth, out);
            out.push_str("<!--");
            // `--` may not appear inside a comment.
            out.push_str(&c.replace("--", "- -"));
            out.push_str("-->\n");
        }
        XmlNode::Text(t, _) => {
            indent(depth, out);
            escape_text(t.trim(), out);
            out.push('\n');
        }
        XmlNode::Instruction(t, _) => {
            indent(depth, out);
            out.push_str("<?");
            out.push_str(t);
            out.push_str("?>\n");
        }
    }
}

pub fn write_element(e: &Element, depth: usize, out: &mut String) {
    indent(depth, out);
    out.push('<');
    out.push_str(&e.name);
    for a in &e.attrs {
        out.push(' ');
        out.push_str(&a.name);
        out.push_str("=\"");
        escape_attr(&a.value, out);
        out.push('"');
    }
    if e.children.is_empty() {
        out.push_str("/>\n");
        return;
    }
    let only_text = e.children.iter().all(|c| matches!(c, XmlNode::Text(..)));
    if only_text {
        out.push('>');
        escape_text(e.text().trim(), out);
        out.push_str("</");
        out.push_str(&e.name);
        out.push_str(">\n");
        return;
    }
    out.push_str(">\n");
    for c in &e.children {
        write_node(c, depth + 1, out);
    }
    indent(depth, out);
    out.push_str("</");
    out.push_str(&e.name);
    out.push_str(">\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Document {
        let p = parse(text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        p.document
    }

    fn codes(text: &str) -> Vec<&'static str> {
        parse(text).diagnostics.iter().map(|d| d.code).collect()
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
