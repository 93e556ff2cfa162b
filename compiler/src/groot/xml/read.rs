//! The reader: quick-xml's low-level [`Reader`] finds the markup (tags, comments, CDATA,
//! processing instructions, DOCTYPE) and its byte range, and quick-xml's [`Attributes`] splits
//! a tag into attributes. This layer builds the [`Document`] with byte spans, decodes text and
//! values the lenient way tinyxml2 does ([`decode`]), keeps the limits, finds duplicate
//! attributes with a hash set (quick-xml's own check is quadratic, so it is off), refuses any
//! DOCTYPE, and, where quick-xml or a check refuses a tag, says where and why in a positioned,
//! coded diagnostic.

use super::{
    decode, is_name_char, is_name_start, Attribute, Document, Element, Parsed, XmlNode,
    MAX_ATTRIBUTE, MAX_DEPTH,
};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use quick_xml::events::attributes::Attributes;
use quick_xml::events::Event;
use quick_xml::reader::Reader;
use std::collections::HashMap;

/// Reads an XML text. On an error the document holds what was read before it; callers check
/// the diagnostics for errors before trusting it.
pub fn parse(text: &str) -> Parsed {
    let mut layer = Layer {
        text,
        bytes: text.as_bytes(),
        diags: Vec::new(),
        doc: Document::default(),
        stack: Vec::new(),
        seen_root: false,
    };
    if layer.run().is_ok() {
        layer.finish();
    }
    Parsed {
        document: layer.doc,
        diagnostics: layer.diags,
    }
}

/// A failed read: the diagnostic is already recorded.
struct Fatal;

struct Layer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    diags: Vec<Diagnostic>,
    doc: Document,
    /// Open elements: the element being filled is the last one.
    stack: Vec<Element>,
    seen_root: bool,
}

/// Attribute names seen so far in one tag, with where: duplicates are found in constant time,
/// so an element with many attributes is read in linear time.
type Seen = HashMap<String, Span>;

/// Up to this many attributes, a tag's are searched in its list (most tags have one to
/// three, and a hash set per tag cost more than the search); beyond, they are hashed.
const FEW: usize = 8;

/// Whether a tag already has attribute `name`: `seen` holds its attributes once it has
/// [`FEW`] of them.
fn seen_before(attrs: &[Attribute], seen: &Seen, name: &str) -> bool {
    if attrs.len() < FEW {
        attrs.iter().any(|a| a.name == name)
    } else {
        seen.contains_key(name)
    }
}

impl<'a> Layer<'a> {
    fn push(&mut self, d: Diagnostic) -> Fatal {
        self.diags.push(d);
        Fatal
    }

    /// The character at `pos`, for messages.
    fn here(&self, pos: usize) -> String {
        match self.text[pos..].chars().next() {
            Some(c) => format!("`{}`", c.escape_debug()),
            None => "the end of the file".to_string(),
        }
    }

    fn here_span(&self, pos: usize) -> Span {
        let len = self.text[pos..]
            .chars()
            .next()
            .map(char::len_utf8)
            .unwrap_or(0);
        Span::new(pos, pos + len)
    }

    fn name_end(&self, mut pos: usize) -> usize {
        // Never stops inside a UTF-8 sequence: name chars include every byte >= 0x80.
        while pos < self.bytes.len() && is_name_char(self.bytes[pos]) {
            pos += 1;
        }
        pos
    }

    fn skip_ws(&self, mut pos: usize) -> usize {
        while pos < self.bytes.len() && self.bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        pos
    }

    fn add(&mut self, node: XmlNode) {
        match self.stack.last_mut() {
            Some(p) => p.children.push(node),
            None => self.doc.nodes.push(node),
        }
    }

    /// Runs quick-xml over the text. Each event's range is from the end of the previous one
    /// to the reader's position after it; text and entity references between two pieces of
    /// markup are one run, decoded here.
    fn run(&mut self) -> Result<(), Fatal> {
        let mut base = if self.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        'reader: loop {
            // quick-xml drops a byte order mark at the start of its input; only the file's
            // first one is that, any other is text.
            let mut run: Option<usize> = None;
            if self.text[base..].starts_with('\u{feff}') {
                run = Some(base);
                while self.text[base..].starts_with('\u{feff}') {
                    base += 3;
                }
            }
            let mut reader = Reader::from_str(&self.text[base..]);
            let config = reader.config_mut();
            // tinyxml2 keeps an `&` that starts no entity; names of end tags and whether they
            // match are checked here, with positions.
            config.allow_dangling_amp = true;
            config.allow_unmatched_ends = true;
            config.check_end_names = false;
            config.trim_markup_names_in_closing_tags = false;
            let mut at = base;
            loop {
                let event = reader.read_event();
                let end = base + reader.buffer_position() as usize;
                if !matches!(event, Ok(Event::Text(_) | Event::GeneralRef(_))) {
                    if let Some(start) = run.take() {
                        self.text_run(start, at)?;
                    }
                }
                match event {
                    Ok(Event::Text(_) | Event::GeneralRef(_)) => {
                        run.get_or_insert(at);
                    }
                    Ok(Event::Eof) => return Ok(()),
                    Ok(event) => self.markup(event, at, end)?,
                    Err(_) => match self.instruction_end(at) {
                        // `<?>...?>`: quick-xml ends a processing instruction at the `?` of its
                        // `<?`; tinyxml2 reads on to the next `?>`. Go on after it.
                        Some(end) => {
                            self.instruction(at, end);
                            base = end;
                            continue 'reader;
                        }
                        None => return Err(self.refused(at)),
                    },
                }
                at = end;
            }
        }
    }

    /// One piece of markup from `at` to `end`.
    fn markup(&mut self, event: Event<'_>, at: usize, end: usize) -> Result<(), Fatal> {
        match event {
            Event::Start(_) => self.start_tag(at, Some(end), false),
            Event::Empty(_) => self.start_tag(at, Some(end), true),
            Event::End(_) => self.close_tag(at, end),
            Event::Comment(_) => {
                let body = self.text[at + 4..end - 3].to_string();
                self.add(XmlNode::Comment(body, Span::new(at, end)));
                Ok(())
            }
            Event::CData(_) => {
                if self.stack.is_empty() {
                    return Err(self.push(Diagnostic::error(
                        "E0401",
                        "CDATA outside the root element",
                        Span::new(at, at + 9),
                    )));
                }
                let body = self.text[at + 9..end - 3].to_string();
                self.add(XmlNode::Text(body, Span::new(at, end)));
                Ok(())
            }
            Event::Decl(_) | Event::PI(_) => {
                self.instruction(at, end);
                Ok(())
            }
            Event::DocType(_) => Err(self.bang(at)),
            Event::Text(_) | Event::GeneralRef(_) | Event::Eof => Ok(()),
        }
    }

    /// `<?...?>` from `at` to `end`, kept verbatim (without `<?` `?>`).
    fn instruction(&mut self, at: usize, end: usize) {
        let body = self.text[at + 2..end - 2].to_string();
        self.add(XmlNode::Instruction(body, Span::new(at, end)));
    }

    /// Where a processing instruction at `at` ends, if there is one and it has a `?>`.
    fn instruction_end(&self, at: usize) -> Option<usize> {
        if !self.text[at..].starts_with("<?") {
            return None;
        }
        self.text[at + 2..].find("?>").map(|len| at + 2 + len + 2)
    }

    /// quick-xml refused the markup starting at `at` (it never closes, or is unknown).
    fn refused(&mut self, at: usize) -> Fatal {
        let rest = &self.text[at..];
        let unclosed = |what: &str, open: usize, label: &str| {
            Diagnostic::error(
                "E0402",
                format!("{what} is never closed"),
                Span::new(at, at + open),
            )
            .with_label(label.to_string())
        };
        if rest.starts_with("<!--") {
            self.push(unclosed("comment", 4, "this comment has no `-->`"))
        } else if rest.starts_with("<![CDATA[") {
            self.push(unclosed("CDATA section", 9, "this section has no `]]>`"))
        } else if rest.starts_with("<!") {
            self.bang(at)
        } else if rest.starts_with("<?") {
            self.push(unclosed("processing instruction", 2, "no `?>` follows"))
        } else if rest.starts_with("</") {
            let name_end = self.name_end(at + 2);
            self.close_tag_end(self.skip_ws(name_end))
                .err()
                .unwrap_or(Fatal)
        } else {
            match self.start_tag(at, None, false) {
                Err(fatal) => fatal,
                Ok(()) => self.push(Diagnostic::error(
                    "E0401",
                    "unreadable markup",
                    self.here_span(at),
                )),
            }
        }
    }

    /// `<!...` other than a comment or CDATA: a DOCTYPE (or ENTITY) is refused, anything else
    /// is unknown.
    fn bang(&mut self, start: usize) -> Fatal {
        let word: String = self.text[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        let span = Span::new(start, start + 2 + word.len());
        if word.eq_ignore_ascii_case("DOCTYPE") || word.eq_ignore_ascii_case("ENTITY") {
            return self.push(
                Diagnostic::error("E0404", format!("`<!{word}>` is not accepted"), span)
                    .with_label("document type declarations are refused")
                    .with_help("BehaviorTree.CPP files need no DTD; remove it (entities are never declared or expanded, so they cannot be used either)"),
            );
        }
        self.push(Diagnostic::error(
            "E0401",
            format!("unknown markup `<!{word}`"),
            span,
        ))
    }

    /// Character data between `start` and `end` (entities decoded). Whitespace-only runs are
    /// dropped; anything else outside the root element is an error.
    fn text_run(&mut self, start: usize, end: usize) -> Result<(), Fatal> {
        let raw = &self.text[start..end];
        // Indentation between tags is most runs: the byte test first, then Unicode's.
        if raw.bytes().all(|b| b.is_ascii_whitespace()) || raw.trim().is_empty() {
            return Ok(());
        }
        if !self.stack.is_empty() {
            let (value, _) = decode(raw);
            self.add(XmlNode::Text(value, Span::new(start, end)));
            return Ok(());
        }
        let trimmed = raw.trim_start();
        let at = start + (raw.len() - trimmed.len());
        let what = if self.seen_root { "after" } else { "before" };
        Err(self.push(
            Diagnostic::error(
                "E0401",
                format!("text {what} the root element"),
                // At most 40 bytes, ending on a character boundary.
                Span::new(
                    at,
                    at + trimmed.floor_char_boundary(trimmed.trim_end().len().min(40)),
                ),
            )
            .with_label("not inside any element")
            .with_help(
                "everything except the XML declaration and comments belongs inside `<root>`",
            ),
        ))
    }

    /// A start tag from `start` (`<`) to `end` (after `>` or `/>`), or, with `end` `None`,
    /// one quick-xml found no end for (the diagnostic then says what is wrong in it).
    fn start_tag(&mut self, start: usize, end: Option<usize>, empty: bool) -> Result<(), Fatal> {
        let name_start = start + 1;
        if !self
            .bytes
            .get(name_start)
            .is_some_and(|&b| is_name_start(b))
        {
            let here = self.here(name_start);
            let span = Span::new(start, self.here_span(name_start).end as usize);
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
        let name_end = self.name_end(name_start);
        if self.stack.is_empty() && self.seen_root {
            // tinyxml2 reads it and BehaviorTree.CPP ignores it (it uses the first element).
            let name = self.text[name_start..name_end].to_string();
            self.diags.push(
                Diagnostic::warning(
                    "W0402",
                    format!("a second top-level element `<{name}>` is ignored"),
                    Span::new(name_start, name_end),
                )
                .with_label("BehaviorTree.CPP reads only the first element")
                .with_help("put every `<BehaviorTree>` inside the one `<root>` element"),
            );
        }
        let mut el = Element::new(&self.text[name_start..name_end]);
        el.name_span = Span::new(name_start, name_end);
        let mut seen = Seen::new();
        let Some(end) = end else {
            return Err(self.tag_error(&el, &mut seen, name_end));
        };
        el.span = Span::new(start, end);
        let content_end = end - if empty { 2 } else { 1 };
        let content = &self.text[name_start..content_end];
        // After the last attribute read: where a diagnostic starts looking.
        let mut cursor = name_end;
        let mut attrs = Attributes::new(content, name_end - name_start);
        attrs.with_checks(false);
        for attr in attrs {
            let Ok(attr) = attr else {
                return Err(self.tag_error(&el, &mut seen, cursor));
            };
            // quick-xml hands out slices of `content`: their offsets are the spans.
            let offset = |s: &[u8]| name_start + (s.as_ptr() as usize - content.as_ptr() as usize);
            let key = attr.key.0.as_bytes();
            let key_start = offset(key);
            let key_end = key_start + key.len();
            let value_start = offset(attr.value.as_bytes());
            let value_end = value_start + attr.value.len();
            let well_formed = self.bytes[key_start - 1].is_ascii_whitespace()
                && is_name_start(key[0])
                && self.name_end(key_start) == key_end
                && matches!(attr.value, std::borrow::Cow::Borrowed(_))
                && !seen_before(&el.attrs, &seen, &self.text[key_start..key_end])
                && attr.value.len() <= MAX_ATTRIBUTE;
            if !well_formed {
                return Err(self.tag_error(&el, &mut seen, cursor));
            }
            let attr = self.attribute(key_start, key_end, value_start, value_end);
            if el.attrs.len() >= FEW {
                if seen.is_empty() {
                    seen.extend(el.attrs.iter().map(|a| (a.name.clone(), a.name_span)));
                }
                seen.insert(attr.name.clone(), attr.name_span);
            }
            if el.attrs.capacity() == 0 {
                // Most elements have one attribute (`code`, `ID`): room for it alone, not
                // the four a first push makes.
                el.attrs.reserve_exact(1);
            }
            el.attrs.push(attr);
            cursor = value_end + 1;
        }
        if empty {
            self.add(XmlNode::Element(el));
            self.seen_root = true;
            return Ok(());
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.push(
                Diagnostic::error("E0406", "elements nest too deeply", el.name_span)
                    .with_label(format!("more than {MAX_DEPTH} levels"))
                    .with_help("BehaviorTree.CPP refuses trees deeper than 256 levels"),
            ));
        }
        self.stack.push(el);
        self.seen_root = true;
        Ok(())
    }

    /// An attribute whose name and value (between the quotes) are at these byte ranges.
    fn attribute(&self, name: usize, name_end: usize, value: usize, value_end: usize) -> Attribute {
        // tinyxml2 turns \r\n into \n in attribute values and keeps everything else, raw `<`,
        // `>` and unknown `&...` included.
        let (mut decoded, mut verbatim) = decode(&self.text[value..value_end]);
        if decoded.contains('\r') {
            decoded = decoded.replace("\r\n", "\n").replace('\r', "\n");
            verbatim = false;
        }
        let mut a = Attribute {
            name: self.text[name..name_end].to_string(),
            name_span: Span::new(name, name_end),
            value: decoded,
            value_span: Span::new(value, value_end),
            verbatim,
            raw: None,
        };
        let written = &self.text[value..value_end];
        // Most values hold nothing the writer escapes: they are spelled as written already.
        if !verbatim || written.contains(['\'', '>', '<', '"', '\n', '\t']) {
            a.keep_spelling(written);
        }
        a
    }

    /// The diagnostic for a tag quick-xml refused or that a check failed: reads the tag on from
    /// `pos` (after the last attribute accepted) attribute by attribute, as tinyxml2 does,
    /// and reports the first thing wrong.
    fn tag_error(&mut self, el: &Element, seen: &mut Seen, mut pos: usize) -> Fatal {
        let name = el.name.clone();
        // A tag of few attributes has them in `el` only (`seen_before`).
        if seen.is_empty() {
            seen.extend(el.attrs.iter().map(|a| (a.name.clone(), a.name_span)));
        }
        loop {
            let before_ws = pos;
            pos = self.skip_ws(pos);
            let Some(&b) = self.bytes.get(pos) else {
                return self.push(
                    Diagnostic::error(
                        "E0402",
                        format!("the tag `<{name}` is never closed"),
                        el.name_span,
                    )
                    .with_label("this start tag has no `>`"),
                );
            };
            // (A `>` or `/>` here would end a well-formed tag, which never comes here.)
            if !is_name_start(b) {
                let here = self.here(pos);
                let span = self.here_span(pos);
                return self.push(
                    Diagnostic::error(
                        "E0401",
                        format!("unexpected {here} in the tag `<{name}>`"),
                        span,
                    )
                    .with_label("expected an attribute name, `>` or `/>`"),
                );
            }
            if before_ws == pos {
                let here = self.here(pos);
                let span = self.here_span(pos);
                return self.push(
                    Diagnostic::error(
                        "E0401",
                        format!("expected a space before the attribute, found {here}"),
                        span,
                    )
                    .with_label("attributes are separated by whitespace"),
                );
            }
            match self.attribute_error(seen, pos) {
                Ok(next) => pos = next,
                Err(fatal) => return fatal,
            }
        }
    }

    /// One attribute from `pos` (its name's first byte): the position after it, or the
    /// diagnostic for what is wrong with it.
    fn attribute_error(&mut self, seen: &mut Seen, pos: usize) -> Result<usize, Fatal> {
        let name_end = self.name_end(pos);
        let name = self.text[pos..name_end].to_string();
        let name_span = Span::new(pos, name_end);
        if let Some(&prev_span) = seen.get(&name) {
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
        let eq = self.skip_ws(name_end);
        if self.bytes.get(eq) != Some(&b'=') {
            let here = self.here(eq);
            let span = self.here_span(eq);
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
        let open = self.skip_ws(eq + 1);
        let quote = match self.bytes.get(open) {
            Some(q @ (b'"' | b'\'')) => *q,
            _ => {
                let here = self.here(open);
                let span = self.here_span(open);
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
        seen.insert(name, name_span);
        Ok(value_start + len + 1)
    }

    /// An end tag from `start` (`<`) to `end` (after `>`).
    fn close_tag(&mut self, start: usize, end: usize) -> Result<(), Fatal> {
        let name_start = start + 2;
        let name_end = self.name_end(name_start);
        let gt = self.skip_ws(name_end);
        if gt + 1 != end {
            return self.close_tag_end(gt);
        }
        let text = self.text;
        let name = &text[name_start..name_end];
        let name_span = Span::new(name_start, name_end);
        let Some(mut el) = self.stack.pop() else {
            return Err(self.push(
                Diagnostic::error(
                    "E0403",
                    format!("closing tag `</{name}>` without an open element"),
                    Span::new(start, end),
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
        el.span.end = end as u32;
        self.add(XmlNode::Element(el));
        Ok(())
    }

    /// An end tag holds only a name: the diagnostic for what stands at `pos` instead of `>`.
    fn close_tag_end(&mut self, pos: usize) -> Result<(), Fatal> {
        let here = self.here(pos);
        let span = self.here_span(pos);
        Err(self.push(
            Diagnostic::error(
                "E0401",
                format!("expected `>` to end the closing tag, found {here}"),
                span,
            )
            .with_label("a closing tag holds only the element name"),
        ))
    }

    /// At the end of the text: every element closed, and a root element read.
    fn finish(&mut self) {
        if let Some(open) = self.stack.last() {
            let span = open.name_span;
            let name = open.name.clone();
            self.push(
                Diagnostic::error("E0402", format!("element `<{name}>` is never closed"), span)
                    .with_label("opened here")
                    .with_help(format!("close it with `</{name}>`, or write `<{name} ... />` if it has no children")),
            );
            return;
        }
        if !self.seen_root {
            let end = self.text.len();
            self.push(
                Diagnostic::error("E0407", "the file has no root element", Span::new(end, end))
                    .with_label("expected `<root BTCPP_format=\"4\">` with the trees inside")
                    .with_help("a Groot / BehaviorTree.CPP file is one `<root>` element holding `<BehaviorTree>` elements"),
            );
        }
    }
}
