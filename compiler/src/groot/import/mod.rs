//! Groot / BehaviorTree.CPP XML → affect syntax tree.
//!
//! Lenient where BehaviorTree.CPP is lenient (compact, explicit and mixed forms, both dialects,
//! tinyxml2's relaxed attribute values, unknown attributes), strict with positioned diagnostics
//! where it refuses a file. Nothing is lost: attributes affect has no syntax for become
//! `#[name = "value"]` attributes, scripts affect cannot spell stay as they are, nodes without
//! an affect form become calls by their BehaviorTree.CPP ID. See `docs/groot.md`.
//!
//! Files: `mod.rs` (the entry point, the reader's state and small builders), `root` (the
//! document: `<root>` and the order of its declarations), `include`, `models`
//! (`<TreeNodesModel>`), `tree` (`<BehaviorTree>`), `node` (one element: modifiers, scripts,
//! switches, loops), `call` (built-ins, SubTrees, custom nodes).

mod call;
mod include;
mod models;
mod node;
mod ports;
mod root;
mod tree;

use super::carry::{self};
use super::xml::{self, Attribute, Element, XmlNode};
use super::{Dialect, IncludeLoader, LeafSig, NoIncludes, Scope};
use crate::diagnostic::{has_errors, Diagnostic};
use crate::span::Span;
use crate::syntax::ast::Ports;
use crate::syntax::ast::*;

/// The result of an import: the syntax tree (print it with `fmt::format_file`), the dialect
/// the file was written in, and every diagnostic (spans are byte offsets into the XML text).
#[derive(Debug)]
pub struct Imported {
    pub file: File,
    pub dialect: Dialect,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics about included files, each with the file's name and text to render them.
    pub included: Vec<IncludedFile>,
    /// The XML document the syntax tree was read from: kept, so that the caller chooses when
    /// to free it (`affect bench` does after the first tick, which needs none of it).
    pub document: xml::Document,
    /// Every file the document includes (directly or through included files), each read and
    /// imported once: what its `use`s name, to check without reading it again.
    pub modules: Vec<ImportedModule>,
}

/// An included file, imported whole as `affect import` imports a file alone.
#[derive(Debug)]
pub struct ImportedModule {
    /// Its name as the [`IncludeLoader`] gave it.
    pub name: String,
    /// Its XML text: the syntax tree's spans are byte offsets into it.
    pub text: String,
    pub file: File,
    pub dialect: Dialect,
    /// The models and trees it and the files it includes declare.
    leaves: std::collections::HashMap<String, LeafSig>,
    trees: std::collections::HashMap<String, Ports>,
    /// The files it includes, relative to it, each followed by those that one includes.
    includes: Vec<String>,
}

/// What the import of one document shares with the imports of the files it includes.
pub(super) struct Includes<'l> {
    loader: &'l mut dyn IncludeLoader,
    /// The included files with diagnostics.
    files: Vec<IncludedFile>,
    modules: Vec<ImportedModule>,
    /// The files being imported, the top file first (an include of one is a cycle).
    chain: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct IncludedFile {
    pub name: String,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl Imported {
    /// The `.affect` text.
    pub fn text(&self) -> String {
        crate::fmt::format_file(&self.file, &[], None)
    }

    pub fn has_errors(&self) -> bool {
        has_errors(&self.diagnostics) || self.included.iter().any(|f| has_errors(&f.diagnostics))
    }
}

/// Imports XML text that includes nothing (or whose includes need not be read).
pub fn import_str(text: &str) -> Imported {
    import(text, "input.xml", &mut NoIncludes)
}

/// Imports XML text. `name` names the file for the loader (includes are relative to it).
pub fn import(text: &str, name: &str, loader: &mut dyn IncludeLoader) -> Imported {
    let parsed = xml::parse(text);
    let mut out = Imported {
        file: File {
            items: vec![],
            span: Span::DUMMY,
        },
        dialect: Dialect::V4,
        diagnostics: parsed.diagnostics,
        included: vec![],
        document: xml::Document::default(),
        modules: vec![],
    };
    if has_errors(&out.diagnostics) {
        return out;
    }
    let Some(root) = parsed.document.root() else {
        return out;
    };
    let mut reader = Reader::new(Dialect::V4);
    reader.start(text, &parsed.document);
    let mut ctx = Includes {
        loader,
        files: vec![],
        modules: vec![],
        chain: vec![name.to_string()],
    };
    let file = reader.document(root, name, &mut ctx);
    out.included = ctx.files;
    out.modules = ctx.modules;
    out.dialect = reader.dialect;
    out.diagnostics.extend(reader.diags);
    out.diagnostics
        .sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    out.file = file;
    out.document = parsed.document;
    out
}

/// An unknown node seen in a tree, for the inferred declaration.
fn node_doc(lines: Vec<String>) -> Option<Doc> {
    (!lines.is_empty()).then_some(Doc {
        lines,
        span: Span::DUMMY,
    })
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::DUMMY,
    }
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::DUMMY)
}

fn attr(name: &str, value: &str) -> Attr {
    Attr {
        name: ident(name),
        value: Some(expr(ExprKind::Str(value.to_string()))),
        span: Span::DUMMY,
    }
}

/// `#[name = "value"]` for an attribute affect has no syntax for, placed where it is written.
fn attr_of(a: &Attribute) -> Attr {
    Attr {
        name: Ident::new(a.name.clone(), a.name_span),
        value: Some(Expr {
            kind: ExprKind::Str(a.value.clone()),
            span: a.value_span,
        }),
        span: a.name_span.to(a.value_span),
    }
}

/// The argument an attribute gives a port: its name at the attribute's name, its value (every
/// part the value's reading left unplaced) at the attribute's value.
fn named_arg(a: &Attribute, mut value: Expr) -> Arg {
    crate::syntax::spans::expr(&mut value, &mut crate::syntax::spans::fill(a.value_span));
    Arg {
        name: Some(Ident::new(a.name.clone(), a.name_span)),
        value,
        span: a.name_span.to(a.value_span),
    }
}

fn call(name: &str, args: Option<Vec<Arg>>, rest: bool, children: Option<Vec<Node>>) -> NodeKind {
    NodeKind::Call {
        name: Path::single(ident(name)),
        args: args.map(|args| ArgList {
            args,
            rest: rest.then_some(Span::DUMMY),
            span: Span::DUMMY,
        }),
        children: children.map(|nodes| NodeBlock {
            nodes,
            span: Span::DUMMY,
        }),
    }
}

/// Lines of documentation from an XML comment or a `_description`: trailing spaces trimmed,
/// empty lines at both ends dropped. Separator comments (`<!-- ////// -->`) say nothing.
pub fn doc_lines(text: &str) -> Vec<String> {
    if !text.chars().any(char::is_alphanumeric) {
        return vec![];
    }
    let mut lines: Vec<String> = text
        .replace("\r\n", "\n")
        .split('\n')
        .map(|l| l.trim_end().to_string())
        .collect();
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    // A comment's common indentation is layout, not text.
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|l| {
            if l.len() >= indent {
                l[indent..].to_string()
            } else {
                l.trim().to_string()
            }
        })
        .collect()
}

/// The doc lines a `_description` gives (exactly its lines: the exporter writes docs there).
fn description_lines(text: &str) -> Vec<String> {
    text.replace("\r\n", "\n")
        .split('\n')
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// A model entry of `<TreeNodesModel>`.
#[derive(Clone, Debug)]
pub(crate) struct ModelEntry {
    pub id: String,
    pub item: Item,
    pub inferred: bool,
}

pub(crate) struct Reader {
    pub dialect: Dialect,
    pub scope: Scope,
    pub diags: Vec<Diagnostic>,
    pub unknown: super::infer::Unknowns,
    /// Convert only one element: children become placeholders (the exporter's check).
    pub shallow: bool,
    /// Offsets of the text's line breaks (a comment on the line of an element documents it).
    newlines: Vec<u32>,
    /// The comments before `<root>`.
    prologue: Vec<String>,
    /// The comments at the end of `<root>`.
    epilogue: Vec<String>,
    /// The comments after `</root>`.
    tail: Vec<String>,
    /// The comments before `<TreeNodesModel>`, for its first entry to carry.
    models_lead: Vec<String>,
    /// The form marker of the tree being read (`vocab::tree_form`): a custom node in the
    /// other form gets its own marker.
    pub form: Option<&'static str>,
    /// Files included by included files, relative to the top file (`include`).
    pub nested: Vec<String>,
    /// The XML text: where carried `.affect` text is, to place its syntax tree in the file.
    source: String,
}

impl Reader {
    pub fn new(dialect: Dialect) -> Reader {
        Reader {
            dialect,
            scope: Scope::default(),
            diags: Vec::new(),
            unknown: super::infer::Unknowns::default(),
            shallow: false,
            newlines: Vec::new(),
            prologue: Vec::new(),
            models_lead: Vec::new(),
            epilogue: Vec::new(),
            tail: Vec::new(),
            form: None,
            nested: Vec::new(),
            source: String::new(),
        }
    }

    /// Takes in the text being read: where its lines break, and the comments before `<root>`,
    /// which describe the file (they document its main tree).
    fn start(&mut self, text: &str, document: &xml::Document) {
        self.source = text.to_string();
        self.newlines = text
            .bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i as u32)
            .collect();
        use super::comments::{lines_at, Place};
        let mut place = Place::File;
        for n in &document.nodes {
            match (n, place) {
                (XmlNode::Comment(c, _), Place::File) => {
                    self.prologue.extend(lines_at(c, Place::File))
                }
                (XmlNode::Comment(c, _), _) => self.tail.extend(lines_at(c, Place::Tail)),
                (XmlNode::Element(_), _) => place = Place::Tail,
                _ => {}
            }
        }
    }

    /// Places what was read from attribute `a`'s `.affect` text (parsed with `shift` bytes
    /// of wrapping before it) where that text is in the file: each span at its byte of the
    /// value as written, entities and all.
    pub(super) fn carried_place(&self, a: &Attribute, shift: u32) -> impl FnMut(&mut Span) {
        let whole = a.value_span;
        let map = self
            .source
            .get(whole.range())
            .map(xml::value_offsets)
            .filter(|m| m.len() == a.value.len() + 1)
            .unwrap_or_default();
        move |s: &mut Span| {
            if map.is_empty() {
                *s = whole;
                return;
            }
            let at = |o: u32| {
                let d = (o.saturating_sub(shift) as usize).min(map.len() - 1);
                whole.start + map[d]
            };
            let (start, end) = (at(s.start), at(s.end));
            *s = Span {
                start,
                end: end.max(start),
            };
        }
    }

    /// Places a node read from `el`: its own span is the element's; every part its reading
    /// left unplaced is at the element's name. Its children were placed when they were read.
    pub(super) fn place_node(el: &Element, mut n: Node) -> Node {
        if n.span == Span::DUMMY {
            n.span = el.span;
        }
        crate::syntax::spans::node(&mut n, false, &mut crate::syntax::spans::fill(el.name_span));
        n
    }

    /// Whether nothing but spaces lies between two offsets of the text on one line.
    fn same_line(&self, from: Span, to: Span) -> bool {
        let (a, b) = (from.end, to.start);
        a <= b
            && self.newlines.partition_point(|&n| n < a)
                == self.newlines.partition_point(|&n| n < b)
    }

    fn warn(&mut self, code: &'static str, msg: impl Into<String>, span: Span) -> &mut Diagnostic {
        self.diags.push(Diagnostic::warning(code, msg, span));
        self.diags.last_mut().expect("pushed")
    }

    fn error(&mut self, code: &'static str, msg: impl Into<String>, span: Span) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, msg, span));
        self.diags.last_mut().expect("pushed")
    }

    fn amend(&mut self, f: impl FnOnce(Diagnostic) -> Diagnostic) {
        if let Some(d) = self.diags.pop() {
            self.diags.push(f(d));
        }
    }

    /// Whether affect can spell a name: in backticks it may hold anything but a backtick
    /// or a line break.
    fn spellable(&mut self, name: &str, span: Span, what: &str) -> bool {
        if !name.is_empty() && !name.contains(['`', '\n', '\r']) {
            return true;
        }
        let shown = name.escape_debug().to_string();
        self.error(
            "E0417",
            format!("{what} `{shown}` cannot be written in affect"),
            span,
        );
        self.amend(|d| {
            d.with_label("an empty name, or one with a backtick or a line break")
                .with_help(
                    "rename it: affect names may hold any other character (quoted in backticks)",
                )
        });
        false
    }
}

fn label(text: &str) -> Label {
    let hard = crate::syntax::token::Kw::from_word(text).is_some_and(|k| k.is_hard());
    Label {
        text: text.to_string(),
        quoted: !crate::fmt::is_plain_ident(text) || hard,
        span: Span::DUMMY,
    }
}

fn is_loop(el: &Element) -> bool {
    matches!(
        el.name.as_str(),
        "LoopInt" | "LoopBool" | "LoopDouble" | "LoopString"
    )
}

fn is_body_sequence(el: &Element) -> bool {
    el.name == "Sequence" && el.attr(carry::BODY) == Some("true") && el.attrs.len() == 1
}

fn is_init_placeholder(n: &Node) -> bool {
    n.attrs.iter().any(|a| a.name.name == carry::INIT)
}

fn doc_lines_keep(text: &str) -> Vec<String> {
    let lines = doc_lines(text);
    if lines.is_empty() && !text.trim().is_empty() {
        return vec![text.trim().to_string()];
    }
    lines
}

/// Two elements say the same: same tag, same attributes (in any order; `_affect` aside),
/// same port children for model entries.
pub fn same_element(a: &Element, b: &Element) -> bool {
    if a.name != b.name {
        return false;
    }
    let attrs = |e: &Element| {
        let mut v: Vec<(String, String)> = e
            .attrs
            .iter()
            .filter(|x| x.name != carry::AFFECT)
            .map(|x| (x.name.clone(), x.value.clone()))
            .collect();
        v.sort();
        v
    };
    if attrs(a) != attrs(b) {
        return false;
    }
    let ports = |e: &Element| {
        e.elements()
            .filter(|p| p.name.ends_with("_port"))
            .map(|p| {
                let mut v: Vec<(String, String)> = p
                    .attrs
                    .iter()
                    .map(|x| (x.name.clone(), x.value.clone()))
                    .collect();
                v.sort();
                (p.name.clone(), v, p.text().trim().to_string())
            })
            .collect::<Vec<_>>()
    };
    ports(a) == ports(b)
}

/// The scope of names an XML document declares (for tests and tools).
pub fn scope_of(dialect: Dialect, root: &Element) -> Scope {
    let mut r = Reader::new(dialect);
    if let Some(m) = root.elements().find(|e| e.name == "TreeNodesModel") {
        for entry in r.models(m) {
            match entry.item.kind {
                ItemKind::Leaf(l) => {
                    r.scope.leaves.insert(
                        entry.id,
                        LeafSig {
                            kind: l.kind,
                            ports: l.ports,
                        },
                    );
                }
                ItemKind::Tree(t) => {
                    r.scope.trees.insert(entry.id, t.ports);
                }
                _ => {}
            }
        }
    }
    r.scope
}
