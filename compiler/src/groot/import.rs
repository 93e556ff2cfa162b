//! Groot / BehaviorTree.CPP XML → affect syntax tree.
//!
//! Lenient where BehaviorTree.CPP is lenient (compact, explicit and mixed forms, both dialects,
//! tinyxml2's relaxed attribute values, unknown attributes), strict with positioned diagnostics
//! where it refuses a file. Nothing is lost: attributes affect has no syntax for become
//! `#[name = "value"]` attributes, scripts affect cannot spell stay as they are, nodes without
//! an affect form become calls by their BehaviorTree.CPP ID. See `docs/groot.md`.

use super::carry::{self, Entry, XmlItem};
use super::infer::{self, Unknown};
use super::model::{self, ValueKind};
use super::names::PRE_POST;
use super::script;
use super::xml::{self, Attribute, Element, XmlNode};
use super::{export, Dialect, IncludeLoader, LeafSig, NoIncludes, Scope};
use crate::builtins::{self, ArgType, Builtin};
use crate::diagnostic::{has_errors, Diagnostic};
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::token::{NumLit, Unit};
use std::collections::HashMap;

/// The result of an import: the syntax tree (print it with `fmt::format_file`), the dialect
/// the file was written in, and every diagnostic (spans are byte offsets into the XML text).
#[derive(Debug)]
pub struct Imported {
    pub file: File,
    pub dialect: Dialect,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics about included files, each with the file's name and text to render them.
    pub included: Vec<IncludedFile>,
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
    };
    if has_errors(&out.diagnostics) {
        return out;
    }
    let Some(root) = parsed.document.root() else {
        return out;
    };
    let mut reader = Reader::new(Dialect::V4);
    reader.newlines = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(|(i, _)| i as u32)
        .collect();
    // Comments before `<root>` describe the file: they document its main tree.
    for n in &parsed.document.nodes {
        match n {
            XmlNode::Comment(c, _) => reader.prologue.extend(doc_lines(c)),
            XmlNode::Element(_) => break,
            _ => {}
        }
    }
    let file = reader.document(root, name, loader, &mut out.included);
    out.dialect = reader.dialect;
    out.diagnostics.extend(reader.diags);
    out.diagnostics
        .sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    out.file = file;
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

fn named_arg(name: &str, value: Expr) -> Arg {
    Arg {
        name: Some(ident(name)),
        value,
        span: Span::DUMMY,
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
    pub span: Span,
}

pub(crate) struct Reader {
    pub dialect: Dialect,
    pub scope: Scope,
    pub diags: Vec<Diagnostic>,
    pub unknown: Vec<Unknown>,
    /// Convert only one element: children become placeholders (the exporter's check).
    pub shallow: bool,
    /// Offsets of the text's line breaks (a comment on the line of an element documents it).
    newlines: Vec<u32>,
    /// The comments before `<root>`.
    prologue: Vec<String>,
}

impl Reader {
    pub fn new(dialect: Dialect) -> Reader {
        Reader {
            dialect,
            scope: Scope::default(),
            diags: Vec::new(),
            unknown: Vec::new(),
            shallow: false,
            newlines: Vec::new(),
            prologue: Vec::new(),
        }
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

    // ------------------------------------------------------------------------ document

    fn document(
        &mut self,
        root: &Element,
        name: &str,
        loader: &mut dyn IncludeLoader,
        included: &mut Vec<IncludedFile>,
    ) -> File {
        let empty = File {
            items: vec![],
            span: Span::DUMMY,
        };
        if root.name != "root" {
            self.error(
                "E0407",
                format!("the root element is `<{}>`, not `<root>`", root.name),
                root.name_span,
            );
            self.amend(|d| {
                d.with_label("BehaviorTree.CPP reads only files whose first element is `<root>`")
                    .with_help("wrap the trees in `<root BTCPP_format=\"4\"> ... </root>`")
            });
            return empty;
        }
        self.dialect = match root.attribute("BTCPP_format") {
            None => Dialect::V3,
            Some(a) => match a.value.trim() {
                "4" => Dialect::V4,
                "3" => Dialect::V3,
                other => {
                    let other = other.to_string();
                    self.error(
                        "E0408",
                        format!("unsupported BTCPP_format `{other}`"),
                        a.value_span,
                    );
                    self.amend(|d| {
                        d.with_label("expected \"4\" (BehaviorTree.CPP 4, Groot 2) or \"3\"")
                            .with_help("write BTCPP_format=\"4\", or leave it out for a BehaviorTree.CPP 3 file")
                    });
                    return empty;
                }
            },
        };

        // The children of <root>, by kind, with the comments before each.
        let mut includes: Vec<(&Element, Vec<String>)> = Vec::new();
        let mut trees: Vec<(&Element, Vec<String>)> = Vec::new();
        let mut models: Option<&Element> = None;
        let mut comments: Vec<String> = Vec::new();
        let element_count = root.elements().count();
        for child in &root.children {
            match child {
                XmlNode::Comment(c, _) => comments.extend(doc_lines(c)),
                XmlNode::Element(e) => {
                    let docs = std::mem::take(&mut comments);
                    match e.name.as_str() {
                        "include" => includes.push((e, docs)),
                        "BehaviorTree" => trees.push((e, docs)),
                        "TreeNodesModel" => {
                            if let Some(first) = models {
                                self.error(
                                    "E0409",
                                    "more than one `<TreeNodesModel>`",
                                    e.name_span,
                                );
                                let first = first.name_span;
                                self.amend(|d| {
                                    d.with_label("second model list")
                                        .with_secondary(first, "the first one")
                                        .with_help("BehaviorTree.CPP refuses a file with two; merge their entries into one")
                                });
                            } else {
                                models = Some(e);
                            }
                        }
                        other => {
                            let other = other.to_string();
                            self.warn("W0402", format!("`<{other}>` is ignored"), e.name_span);
                            self.amend(|d| {
                                let d = d.with_label(
                                    "BehaviorTree.CPP ignores unknown elements in `<root>`",
                                );
                                if other == "TreeNodeModel" {
                                    d.with_help("the model list is spelled `<TreeNodesModel>`")
                                } else {
                                    d
                                }
                            });
                        }
                    }
                }
                XmlNode::Text(t, span) => {
                    let t = t.trim().chars().take(30).collect::<String>();
                    self.warn("W0402", format!("text `{t}` in `<root>` is ignored"), *span);
                }
                XmlNode::Instruction(..) => {}
            }
        }
        if has_errors(&self.diags) {
            return empty;
        }

        // Tree IDs: unique; an ID may be left out only when the tree is alone in <root>.
        let mut tree_ids: Vec<String> = Vec::new();
        let mut seen: HashMap<String, Span> = HashMap::new();
        for (i, (bt, _)) in trees.iter().enumerate() {
            let id = match bt.attribute("ID") {
                Some(a) if !self.spellable(&a.value, a.value_span, "tree ID") => String::new(),
                Some(a) => {
                    if let Some(first) = seen.get(&a.value) {
                        let first = *first;
                        self.error(
                            "E0410",
                            format!("two trees are called `{}`", a.value),
                            a.value_span,
                        );
                        self.amend(|d| {
                            d.with_label("second tree with this ID")
                                .with_secondary(first, "the first one")
                                .with_help("tree IDs must be unique; rename one of them")
                        });
                    }
                    seen.insert(a.value.clone(), a.value_span);
                    a.value.clone()
                }
                None if element_count == 1 => "MainTree".to_string(),
                None if self.dialect == Dialect::V3 => format!("BehaviorTree_{i}"),
                None => {
                    self.error("E0410", "`<BehaviorTree>` without an `ID`", bt.name_span);
                    self.amend(|d| {
                        d.with_label("an ID is required when `<root>` holds more than one element")
                            .with_help("write `<BehaviorTree ID=\"MainTree\">`")
                    });
                    String::new()
                }
            };
            tree_ids.push(id);
        }

        // Models, then everything included, make up the scope.
        let model_entries = models.map(|m| self.models(m)).unwrap_or_default();
        for (el, _) in &includes {
            self.include(el, name, loader, included, &mut vec![name.to_string()]);
        }
        if has_errors(&self.diags) {
            return empty;
        }
        for m in &model_entries {
            match &m.item.kind {
                ItemKind::Leaf(l) => {
                    self.scope.leaves.insert(
                        m.id.clone(),
                        LeafSig {
                            kind: l.kind,
                            ports: l.ports.clone(),
                        },
                    );
                }
                ItemKind::Tree(t) => {
                    self.scope.trees.insert(m.id.clone(), t.ports.clone());
                }
                _ => {}
            }
        }
        for id in &tree_ids {
            self.scope.trees.entry(id.clone()).or_default();
        }

        // The carried declarations of <root _affect>.
        let carried = root
            .attribute(carry::AFFECT)
            .and_then(|a| match carry::read_root(&a.value) {
                Some(entries) => Some(entries),
                None => {
                    let span = a.name_span;
                    self.warn(
                        "W0404",
                        "the `_affect` text of `<root>` does not parse; it is ignored",
                        span,
                    );
                    None
                }
            })
            .unwrap_or_default();
        for e in &carried {
            let Entry::Item(item) = e else { continue };
            match &item.kind {
                ItemKind::Enum(en) => {
                    self.scope.enums.insert(
                        en.name.name.clone(),
                        en.variants.iter().map(|v| v.name.name.clone()).collect(),
                    );
                }
                // Declarations the XML does not hold (inferred ones) are known all the same.
                ItemKind::Leaf(l) => {
                    self.scope
                        .leaves
                        .entry(l.name.name.clone())
                        .or_insert(LeafSig {
                            kind: l.kind,
                            ports: l.ports.clone(),
                        });
                }
                ItemKind::Tree(t) => {
                    self.scope
                        .trees
                        .entry(t.name.name.clone())
                        .or_insert(t.ports.clone());
                }
                _ => {}
            }
        }

        let main_attr = root.attr("main_tree_to_execute").map(str::to_string);
        if let Some(main) = &main_attr {
            if !tree_ids.contains(main) && includes.is_empty() {
                let span = root
                    .attribute("main_tree_to_execute")
                    .map(|a| a.value_span)
                    .unwrap_or_default();
                self.warn(
                    "W0405",
                    format!(
                        "`main_tree_to_execute` names `{main}`, which is not a tree of this file"
                    ),
                    span,
                );
            }
        }
        let sole = tree_ids.len() == 1;

        // The XML-held declarations, in the default order.
        let mut xml_items: Vec<(XmlItem, Item)> = Vec::new();
        for (el, docs) in &includes {
            if let Some(item) = self.use_item(el, docs.clone()) {
                if let ItemKind::Use(UseDecl {
                    target: UseTarget::File(p, _),
                }) = &item.kind
                {
                    xml_items.push((XmlItem::Use(p.clone()), item));
                }
            }
        }
        let mut leaf_items = Vec::new();
        let mut signature_items = Vec::new();
        for m in model_entries {
            match &m.item.kind {
                ItemKind::Leaf(_) if !m.inferred => {
                    leaf_items.push((XmlItem::Leaf(m.id.clone()), m.item))
                }
                ItemKind::Tree(_) if !tree_ids.contains(&m.id) && !m.inferred => {
                    signature_items.push((XmlItem::Tree(m.id.clone()), m.item))
                }
                _ => {}
            }
        }
        let mut tree_items = Vec::new();
        for ((bt, docs), id) in trees.iter().zip(&tree_ids) {
            let is_main = match &main_attr {
                Some(m) => m == id,
                None => sole,
            };
            let item = self.tree(bt, id, docs.clone(), is_main, main_attr.as_deref(), models);
            let key = match &item.kind {
                ItemKind::Agent(_) => XmlItem::Agent(id.clone()),
                _ => XmlItem::Tree(id.clone()),
            };
            tree_items.push((key, item));
        }
        // Nodes without a model, met while reading the trees: inferred declarations.
        let unknown = std::mem::take(&mut self.unknown);
        let mut inferred_items = Vec::new();
        for u in &unknown {
            if u.tree {
                self.warn(
                    "W0401",
                    format!(
                        "no tree `{}` is defined here or in an included file",
                        u.name
                    ),
                    u.span,
                );
                self.amend(|d| {
                    d.with_label("called as a SubTree")
                        .with_note("the import declares `#[inferred] tree` for it, so the call stays a SubTree")
                });
                inferred_items.push((XmlItem::Tree(u.name.clone()), infer::declaration(u)));
                continue;
            }
            self.warn(
                "W0401",
                format!(
                    "`{}` has no model: its declaration is inferred from its use",
                    u.name
                ),
                u.span,
            );
            let kind = u.kind.keyword();
            self.amend(|d| {
                d.with_label("not a built-in node and not in `<TreeNodesModel>`")
                    .with_note(format!(
                        "the import declares it as `#[inferred] {kind}` with the ports it is given here; \
                         BehaviorTree.CPP needs it registered in C++"
                    ))
            });
            inferred_items.push((XmlItem::Leaf(u.name.clone()), infer::declaration(u)));
        }
        xml_items.extend(leaf_items);
        xml_items.extend(inferred_items);
        xml_items.extend(tree_items);
        xml_items.extend(signature_items);

        if !self.prologue.is_empty() {
            let main = xml_items
                .iter_mut()
                .find(|(_, item)| matches!(&item.kind, ItemKind::Tree(t) if t.is_main));
            if let Some((_, item)) = main {
                if item.doc.is_none() {
                    item.doc = node_doc(std::mem::take(&mut self.prologue));
                }
            }
        }
        let mut items = Vec::new();
        let mut used = vec![false; xml_items.len()];
        for e in carried {
            match e {
                Entry::Item(item) => items.push(item),
                Entry::Xml(key) => {
                    if let Some(i) = xml_items.iter().position(|(k, _)| *k == key) {
                        if !used[i] {
                            used[i] = true;
                            items.push(xml_items[i].1.clone());
                        }
                    }
                }
            }
        }
        for (i, (_, item)) in xml_items.into_iter().enumerate() {
            if !used[i] {
                items.push(item);
            }
        }
        // Attributes of <root> that are neither the format nor the main tree.
        let extra: Vec<&Attribute> = root
            .attrs
            .iter()
            .filter(|a| {
                !matches!(
                    a.name.as_str(),
                    "BTCPP_format" | "main_tree_to_execute" | carry::AFFECT
                )
            })
            .collect();
        if !extra.is_empty() {
            if let Some(first) = items
                .iter_mut()
                .find(|i| matches!(i.kind, ItemKind::Tree(_) | ItemKind::Agent(_)))
            {
                for a in extra {
                    first
                        .attrs
                        .push(attr(&format!("{ROOT_PREFIX}{}", a.name), &a.value));
                }
            }
        }
        File {
            items,
            span: Span::DUMMY,
        }
    }

    // ------------------------------------------------------------------------ includes

    fn use_item(&mut self, el: &Element, docs: Vec<String>) -> Option<Item> {
        let Some(path) = el.attr("path") else {
            self.error("E0415", "`<include>` without `path`", el.name_span);
            self.amend(|d| {
                d.with_label("which file?")
                    .with_help("write `<include path=\"other.xml\"/>`")
            });
            return None;
        };
        let affect_path = match path.strip_suffix(".xml") {
            Some(stem) => format!("{stem}.affect"),
            None => path.to_string(),
        };
        let attrs = el
            .attrs
            .iter()
            .filter(|a| a.name != "path")
            .map(|a| attr(&a.name, &a.value))
            .collect();
        Some(Item {
            doc: node_doc(docs),
            attrs,
            kind: ItemKind::Use(UseDecl {
                target: UseTarget::File(affect_path, Span::DUMMY),
            }),
            span: Span::DUMMY,
        })
    }

    /// Reads an included file's models and tree names into the scope (recursively).
    fn include(
        &mut self,
        el: &Element,
        from: &str,
        loader: &mut dyn IncludeLoader,
        included: &mut Vec<IncludedFile>,
        chain: &mut Vec<String>,
    ) {
        let Some(path) = el.attr("path") else { return };
        let span = el
            .attribute("path")
            .map(|a| a.value_span)
            .unwrap_or(el.name_span);
        if el.attr("ros_pkg").is_some() {
            self.warn(
                "W0403",
                format!("`{path}` is found through a ROS package; its nodes are not read"),
                span,
            );
            return;
        }
        let (name, text) = match loader.load(from, path) {
            Ok(x) => x,
            Err(e) => {
                self.warn(
                    "W0403",
                    format!("cannot read the included file `{path}`"),
                    span,
                );
                self.amend(|d| {
                    d.with_label(e).with_note(
                        "its trees and models are unknown, so nodes it declares are inferred",
                    )
                });
                return;
            }
        };
        if chain.contains(&name) || chain.len() > 16 {
            self.error("E0415", format!("`{path}` includes itself"), span);
            let chain_text = chain.join(" → ");
            self.amend(|d| {
                d.with_label("include cycle")
                    .with_note(format!("through {chain_text}"))
            });
            return;
        }
        let parsed = xml::parse(&text);
        let mut sub = Reader::new(self.dialect);
        let mut diags = parsed.diagnostics;
        if !has_errors(&diags) {
            if let Some(root) = parsed.document.root() {
                if let Some(m) = root.elements().find(|e| e.name == "TreeNodesModel") {
                    for entry in sub.models(m) {
                        match entry.item.kind {
                            ItemKind::Leaf(l) if !entry.inferred => {
                                self.scope.leaves.entry(entry.id).or_insert(LeafSig {
                                    kind: l.kind,
                                    ports: l.ports,
                                });
                            }
                            ItemKind::Tree(t) => {
                                self.scope.trees.entry(entry.id).or_insert(t.ports);
                            }
                            _ => {}
                        }
                    }
                }
                for bt in root.elements().filter(|e| e.name == "BehaviorTree") {
                    if let Some(id) = bt.attr("ID") {
                        self.scope.trees.entry(id.to_string()).or_default();
                    }
                }
                chain.push(name.clone());
                for inc in root.elements().filter(|e| e.name == "include") {
                    sub.include(inc, &name, loader, included, chain);
                }
                chain.pop();
                for (k, v) in sub.scope.leaves.drain() {
                    self.scope.leaves.entry(k).or_insert(v);
                }
                for (k, v) in sub.scope.trees.drain() {
                    self.scope.trees.entry(k).or_insert(v);
                }
            }
        }
        diags.extend(sub.diags);
        if !diags.is_empty() {
            included.push(IncludedFile {
                name,
                text,
                diagnostics: diags,
            });
        }
    }

    // ------------------------------------------------------------------------ models

    pub(crate) fn models(&mut self, list: &Element) -> Vec<ModelEntry> {
        let mut out: Vec<ModelEntry> = Vec::new();
        let mut docs: Vec<String> = Vec::new();
        for child in &list.children {
            let e = match child {
                XmlNode::Element(e) => e,
                XmlNode::Comment(c, _) => {
                    docs.extend(doc_lines(c));
                    continue;
                }
                _ => continue,
            };
            let comment_docs = std::mem::take(&mut docs);
            let kind = match e.name.as_str() {
                "Action" => Some(LeafKind::Action),
                "Condition" => Some(LeafKind::Condition),
                "Control" => Some(LeafKind::Control),
                "Decorator" => Some(LeafKind::Decorator),
                "SubTree" => None,
                other => {
                    let other = other.to_string();
                    self.warn(
                        "W0402",
                        format!("model entry `<{other}>` is ignored"),
                        e.name_span,
                    );
                    self.amend(|d| {
                        d.with_label(
                            "model entries are Action, Condition, Control, Decorator or SubTree",
                        )
                    });
                    continue;
                }
            };
            let Some(id_attr) = e.attribute("ID") else {
                self.error(
                    "E0416",
                    format!("model entry `<{}>` without `ID`", e.name),
                    e.name_span,
                );
                self.amend(|d| d.with_label("which node does it describe?"));
                continue;
            };
            if !self.spellable(&id_attr.value, id_attr.value_span, "model ID") {
                continue;
            }
            let id = id_attr.value.as_str();
            if let Some(prev) = out.iter().find(|m| m.id == id) {
                let prev = prev.span;
                self.warn(
                    "W0402",
                    format!("`{id}` has a second model entry; it is ignored"),
                    e.name_span,
                );
                self.amend(|d| d.with_secondary(prev, "the first entry"));
                continue;
            }
            let natural = self.model_item(e, kind, id, comment_docs);
            let item = match e.attribute(carry::AFFECT) {
                Some(a) => match carry::parse_item(&a.value) {
                    Some(shadow) if self.model_shadow_holds(&shadow, e) => shadow,
                    _ => {
                        let span = a.name_span;
                        self.warn("W0404", format!("the `_affect` text of model `{id}` no longer matches it; it is ignored"), span);
                        self.amend(|d| d.with_note("the entry was edited after the export; its attributes are read instead"));
                        natural
                    }
                },
                None => natural,
            };
            out.push(ModelEntry {
                id: id.to_string(),
                item,
                inferred: e.attr(carry::INFERRED_XML) == Some("true"),
                span: e.name_span,
            });
        }
        out
    }

    fn model_shadow_holds(&self, shadow: &Item, el: &Element) -> bool {
        let regenerated = match &shadow.kind {
            ItemKind::Leaf(_) => export::leaf_model(shadow),
            ItemKind::Tree(_) => export::subtree_model(shadow, true),
            _ => None,
        };
        regenerated.is_some_and(|r| same_element(&r, el))
    }

    /// A model entry read back as a declaration (the exporter's check).
    pub(crate) fn model_item_pub(&mut self, e: &Element, kind: Option<LeafKind>, id: &str) -> Item {
        let item = self.model_item(e, kind, id, vec![]);
        self.diags.clear();
        item
    }

    fn model_item(
        &mut self,
        e: &Element,
        kind: Option<LeafKind>,
        id: &str,
        comment_docs: Vec<String>,
    ) -> Item {
        let mut ports = Vec::new();
        for p in e.elements() {
            let dir = match p.name.as_str() {
                "input_port" => PortDir::In,
                "output_port" => PortDir::Out,
                "inout_port" => PortDir::InOut,
                // nav2's spelling, not BehaviorTree.CPP's: the same as inout.
                "bidirectional_port" => PortDir::InOut,
                "MetadataFields" | "description" => continue,
                other => {
                    let other = other.to_string();
                    self.warn(
                        "W0402",
                        format!("`<{other}>` in a model entry is ignored"),
                        p.name_span,
                    );
                    self.amend(|d| d.with_label("ports are input_port, output_port or inout_port"));
                    continue;
                }
            };
            let Some(name_attr) = p.attribute("name") else {
                self.error(
                    "E0416",
                    format!("`<{}>` without `name`", p.name),
                    p.name_span,
                );
                self.amend(|d| d.with_label("every port needs a name"));
                continue;
            };
            if !self.spellable(&name_attr.value, name_attr.value_span, "port name") {
                continue;
            }
            let name = name_attr.value.as_str();
            let mut ty = p.attr("type").map(model::type_from_cpp);
            let default = p.attr("default").map(|v| {
                match model::blackboard_key(v).and_then(model::key_expr) {
                    Some(e) => e,
                    None => model::literal(v, model::value_kind(ty.as_ref())),
                }
            });
            // A default BehaviorTree.CPP could not read as the port's number or boolean
            // (nav2's `numeric_limits<double>::infinity()`): the port keeps its C++ spelling
            // as a foreign type, which takes any text as its default.
            if let (
                Some(cpp),
                Some(Expr {
                    kind: ExprKind::Str(_),
                    ..
                }),
            ) = (p.attr("type"), &default)
            {
                if matches!(
                    model::value_kind(ty.as_ref()),
                    model::ValueKind::Number | model::ValueKind::Bool
                ) {
                    ty = Some(Type {
                        kind: TypeKind::Foreign(cpp.to_string()),
                        span: Span::DUMMY,
                    });
                }
            }
            let text = p.text();
            let desc = if text.trim().is_empty() {
                p.attr("description").unwrap_or("").to_string()
            } else {
                text
            };
            ports.push(PortDecl {
                doc: node_doc(doc_lines_keep(&desc)),
                dir,
                name: ident(name),
                ty,
                default,
                span: Span::DUMMY,
            });
        }
        let mut doc = comment_docs;
        let mut attrs = Vec::new();
        for a in &e.attrs {
            match a.name.as_str() {
                "ID" | carry::AFFECT | carry::INFERRED_XML => {}
                "_description" => doc = description_lines(&a.value),
                _ => attrs.push(attr(&a.name, &a.value)),
            }
        }
        let name = ident(id);
        let kind_ = match kind {
            Some(k) => ItemKind::Leaf(LeafDecl {
                kind: k,
                name,
                ports,
            }),
            None => {
                if ports.is_empty() {
                    attrs.push(Attr {
                        name: ident(carry::MODEL),
                        value: None,
                        span: Span::DUMMY,
                    });
                }
                ItemKind::Tree(TreeDecl {
                    is_main: false,
                    name,
                    ports,
                    locals: vec![],
                    body: NodeBlock {
                        nodes: vec![],
                        span: Span::DUMMY,
                    },
                })
            }
        };
        Item {
            doc: node_doc(doc),
            attrs,
            kind: kind_,
            span: Span::DUMMY,
        }
    }

    // ------------------------------------------------------------------------ trees

    fn tree(
        &mut self,
        bt: &Element,
        id: &str,
        comment_docs: Vec<String>,
        is_main: bool,
        main_attr: Option<&str>,
        models: Option<&Element>,
    ) -> Item {
        let body_el: Vec<&Element> = bt.elements().collect();
        if body_el.len() != 1 {
            let msg = if body_el.is_empty() {
                format!("tree `{id}` has no node")
            } else {
                format!("tree `{id}` has {} root nodes", body_el.len())
            };
            self.error("E0411", msg, bt.name_span);
            let extra = body_el.get(1).map(|e| e.name_span);
            self.amend(|d| {
                let d = d
                    .with_label("a `<BehaviorTree>` holds exactly one node")
                    .with_help("put the nodes in a `<Sequence>` (or another control node)");
                match extra {
                    Some(s) => d.with_secondary(s, "a second root node"),
                    None => d,
                }
            });
        }
        // Comments inside <BehaviorTree> before its node document that node.
        let mut pre_docs = Vec::new();
        for c in &bt.children {
            match c {
                XmlNode::Comment(t, _) => pre_docs.extend(doc_lines(t)),
                XmlNode::Element(_) => break,
                _ => {}
            }
        }
        let mut nodes = match body_el.first() {
            None => vec![],
            Some(el) if is_body_sequence(el) => self.children(el),
            Some(el) => vec![self.node(el, pre_docs)],
        };
        // The exporter's initialisation of `var`s is part of the declarations, not the tree.
        if nodes.first().is_some_and(is_init_placeholder) {
            nodes.remove(0);
        }

        let shadow = bt.attribute(carry::AFFECT).and_then(|a| {
            let item = carry::parse_item(&a.value);
            let ok = match &item {
                Some(Item {
                    kind: ItemKind::Tree(t),
                    ..
                }) => {
                    t.name.name == id
                        && (t.is_main == is_main || (main_attr.is_none() && !t.is_main))
                        && self.subtree_model_holds(item.as_ref().expect("some"), models)
                }
                Some(Item {
                    kind: ItemKind::Agent(ag),
                    ..
                }) => ag.name.name == id && ag.members.is_some(),
                _ => false,
            };
            if !ok {
                let span = a.name_span;
                self.warn(
                    "W0404",
                    format!(
                        "the `_affect` text of tree `{id}` no longer matches it; it is ignored"
                    ),
                    span,
                );
                self.amend(|d| {
                    d.with_note("the tree was edited after the export; its XML is read instead")
                });
                return None;
            }
            item
        });
        if let Some(mut item) = shadow {
            match &mut item.kind {
                ItemKind::Tree(t) => t.body.nodes = nodes,
                ItemKind::Agent(ag) => {
                    if let Some(main) =
                        ag.members
                            .iter_mut()
                            .flatten()
                            .find_map(|m| match &mut m.kind {
                                MemberKind::Main(b) => Some(b),
                                _ => None,
                            })
                    {
                        main.nodes = nodes;
                    }
                }
                _ => {}
            }
            return item;
        }

        let mut doc = comment_docs;
        let mut attrs = Vec::new();
        for a in &bt.attrs {
            match a.name.as_str() {
                "ID" | carry::AFFECT => {}
                "_description" => doc = description_lines(&a.value),
                _ => attrs.push(attr(&a.name, &a.value)),
            }
        }
        let ports = self.scope.trees.get(id).cloned().unwrap_or_default();
        let has_empty_model = models
            .map(|m| {
                m.elements().any(|e| {
                    e.name == "SubTree" && e.attr("ID") == Some(id) && e.elements().next().is_none()
                })
            })
            .unwrap_or(false);
        if has_empty_model {
            attrs.push(Attr {
                name: ident(carry::MODEL),
                value: None,
                span: Span::DUMMY,
            });
        }
        let locals = infer::locals(&nodes, &ports, &self.scope);
        Item {
            doc: node_doc(doc),
            attrs,
            kind: ItemKind::Tree(TreeDecl {
                is_main,
                name: ident(id),
                ports,
                locals,
                body: NodeBlock {
                    nodes,
                    span: Span::DUMMY,
                },
            }),
            span: Span::DUMMY,
        }
    }

    fn subtree_model_holds(&self, shadow: &Item, models: Option<&Element>) -> bool {
        let ItemKind::Tree(t) = &shadow.kind else {
            return true;
        };
        let actual = models.and_then(|m| {
            m.elements()
                .find(|e| e.name == "SubTree" && e.attr("ID") == Some(&t.name.name))
        });
        let expected = export::subtree_model(shadow, false);
        match (actual, expected) {
            (None, None) => true,
            (Some(a), Some(e)) => same_element(&e, a),
            _ => false,
        }
    }

    // ------------------------------------------------------------------------ nodes

    /// The child nodes of an element, with comments before a child as its doc.
    pub(crate) fn children(&mut self, el: &Element) -> Vec<Node> {
        let mut out: Vec<Node> = Vec::new();
        let mut docs = Vec::new();
        let mut prev: Option<Span> = None;
        for c in &el.children {
            match c {
                // `<Node/> <!-- about it -->`: a comment on the line of the node before it.
                XmlNode::Comment(t, span)
                    if !self.shallow && prev.is_some_and(|p| self.same_line(p, *span)) =>
                {
                    if let Some(last) = out.last_mut() {
                        let lines = doc_lines(t);
                        if !lines.is_empty() {
                            last.doc
                                .get_or_insert_with(Doc::default)
                                .lines
                                .extend(lines);
                        }
                    }
                }
                XmlNode::Comment(t, _) => docs.extend(doc_lines(t)),
                // A pad fills a switch case BehaviorTree.CPP needs; it is not a node of ours.
                XmlNode::Element(e) if e.attr(carry::PAD) == Some("true") => {}
                XmlNode::Element(e) => {
                    let d = std::mem::take(&mut docs);
                    prev = Some(e.span);
                    if self.shallow {
                        out.push(carry::placeholder());
                    } else {
                        out.push(self.node(e, d));
                    }
                }
                XmlNode::Text(t, span) => {
                    let t = t.trim().chars().take(30).collect::<String>();
                    self.warn(
                        "W0402",
                        format!("text `{t}` inside `<{}>` is ignored", el.name),
                        *span,
                    );
                }
                XmlNode::Instruction(..) => {}
            }
        }
        out
    }

    /// Children of a decorator-like element whose body may be a marked sequence of several
    /// nodes (a `for` body).
    fn body_children(&mut self, el: &Element) -> Vec<Node> {
        let elements: Vec<&Element> = el.elements().collect();
        match elements.as_slice() {
            [only] if is_body_sequence(only) => {
                if self.shallow {
                    only.elements().map(|_| carry::placeholder()).collect()
                } else {
                    self.children(only)
                }
            }
            _ => self.children(el),
        }
    }

    pub(crate) fn node(&mut self, el: &Element, comment_docs: Vec<String>) -> Node {
        let natural = |this: &mut Self| {
            let mut n = this.natural(el);
            if n.doc.is_none() {
                n.doc = node_doc(comment_docs.clone());
            }
            n
        };
        let Some(a) = el.attribute(carry::AFFECT) else {
            return natural(self);
        };
        let Some(shadow) = carry::parse_node(&a.value) else {
            let span = a.name_span;
            self.warn(
                "W0404",
                "this `_affect` text does not parse; it is ignored",
                span,
            );
            return natural(self);
        };
        // The carried text counts only while the element still says what it says.
        let regenerated = export::node_element(&carry::head(&shadow), &self.scope, self.dialect)
            .map(|mut r| {
                // The Loop variant follows the variable's type, which one element does not show.
                if is_loop(&r) && is_loop(el) {
                    r.name = el.name.clone();
                }
                r
            });
        let holds = regenerated.is_some_and(|r| same_element(&r, el));
        let kids = if holds {
            if is_loop(el) {
                self.body_children(el)
            } else if el.attr(carry::TRY) == Some("true") {
                let mut v = Vec::new();
                for part in el.elements() {
                    v.extend(self.children(part));
                }
                v
            } else {
                self.children(el)
            }
        } else {
            vec![]
        };
        if holds {
            if let Some(n) = carry::fill(shadow, kids) {
                return n;
            }
        }
        let span = a.name_span;
        self.warn(
            "W0404",
            format!(
                "the `_affect` text of this `<{}>` no longer matches it; it is ignored",
                el.name
            ),
            span,
        );
        self.amend(|d| {
            d.with_note("the element was edited after the export; its attributes are read instead")
        });
        natural(self)
    }

    /// A node from its element alone.
    fn natural(&mut self, el: &Element) -> Node {
        let mut node = Node {
            doc: None,
            attrs: vec![],
            label: None,
            kind: NodeKind::Error,
            modifiers: vec![],
            span: Span::DUMMY,
        };
        // What the node is: explicit form, SubTree, or compact.
        let (id, explicit_tag) = match el.name.as_str() {
            "Action" | "Condition" | "Control" | "Decorator" => match el.attribute("ID") {
                Some(a) if !self.spellable(&a.value, a.value_span, "node ID") => return node,
                Some(a) => (a.value.clone(), Some(el.name.as_str())),
                None => {
                    self.error(
                        "E0414",
                        format!("`<{}>` without `ID`", el.name),
                        el.name_span,
                    );
                    self.amend(|d| d.with_label("the explicit form names the node in `ID`"));
                    return node;
                }
            },
            _ => (el.name.clone(), None),
        };
        if explicit_tag.is_none()
            && self.dialect == Dialect::V4
            && el.attribute("ID").is_some()
            && !is_subtree_tag(&el.name)
        {
            let span = el
                .attribute("ID")
                .map(|a| a.name_span)
                .unwrap_or(el.name_span);
            self.error(
                "E0414",
                format!("attribute `ID` is not allowed in `<{}>`", el.name),
                span,
            );
            self.amend(|d| {
                d.with_label("BehaviorTree.CPP 4 refuses it")
                    .with_help("the compact form names the node by its tag; remove `ID`")
            });
            return node;
        }

        // Attributes every node may have.
        let mut rest: Vec<&Attribute> = Vec::new();
        for a in &el.attrs {
            match a.name.as_str() {
                "name" => node.label = Some(label(&a.value)),
                "_description" => node.doc = node_doc(description_lines(&a.value)),
                "ID" if explicit_tag.is_some() || is_subtree_tag(&el.name) => {}
                carry::AFFECT | carry::TRY => {}
                n if self.dialect == Dialect::V4 && PRE_POST.contains(&n) => match self.modifier(a)
                {
                    Some(m) => node.modifiers.push(m),
                    None => node.attrs.push(attr(&a.name, &a.value)),
                },
                _ => rest.push(a),
            }
        }

        if is_subtree_tag(&el.name) {
            node.kind = self.subtree(el, &rest, &mut node.attrs);
            return node;
        }
        let builtin = match self.dialect {
            Dialect::V4 => builtins::BUILTINS
                .iter()
                .find(|b| b.v4 == Some(id.as_str())),
            Dialect::V3 => builtins::BUILTINS
                .iter()
                .find(|b| b.v3 == Some(id.as_str())),
        };
        // Nodes with a syntax of their own.
        let special = match (self.dialect, id.as_str()) {
            (Dialect::V4, builtins::SCRIPT_ID) => {
                self.script_node(el, &rest, &mut node.attrs, false)
            }
            (Dialect::V4, builtins::SCRIPT_CONDITION_ID) => {
                self.script_node(el, &rest, &mut node.attrs, true)
            }
            (_, sw) if switch_cases(sw).is_some() => self.switch(el, sw, &rest, &mut node.attrs),
            (Dialect::V4, "LoopInt" | "LoopBool" | "LoopDouble" | "LoopString") => {
                self.for_loop(el, &rest, &mut node.attrs)
            }
            _ => None,
        };
        let special = special.or_else(|| self.try_catch(el, &id, &rest));
        if let Some(kind) = special {
            node.kind = kind;
            return node;
        }
        match builtin {
            Some(b) if b.name != "blackboard_check" && b.name != "loop" => {
                node.kind = self.builtin(el, b, &rest, &mut node.attrs);
            }
            _ => {
                node.kind = self.custom(el, &id, explicit_tag, &rest, &mut node.attrs);
            }
        }
        node
    }

    fn modifier(&mut self, a: &Attribute) -> Option<Modifier> {
        let stmts = self.script(a, false)?;
        let kind = match a.name.as_str() {
            "_skipIf" => ModifierKind::SkipIf(script::condition(&stmts).ok()?),
            "_successIf" => ModifierKind::SuccessIf(script::condition(&stmts).ok()?),
            "_failureIf" => ModifierKind::FailureIf(script::condition(&stmts).ok()?),
            "_while" => ModifierKind::While(script::condition(&stmts).ok()?),
            "_onSuccess" => ModifierKind::OnSuccess(script::block(&stmts).ok()?),
            "_onFailure" => ModifierKind::OnFailure(script::block(&stmts).ok()?),
            "_onHalted" => ModifierKind::OnHalted(script::block(&stmts).ok()?),
            "_post" => ModifierKind::After(script::block(&stmts).ok()?),
            _ => return None,
        };
        Some(Modifier {
            kind,
            span: Span::DUMMY,
        })
    }

    /// Parses a script attribute. A broken script is an error (BehaviorTree.CPP refuses the
    /// file); an empty pre/post-condition is not a script at all (`None`, kept as written).
    fn script(&mut self, a: &Attribute, required: bool) -> Option<Vec<script::Raw>> {
        if !required && a.value.trim().is_empty() {
            return None;
        }
        match script::parse(&a.value) {
            Ok(s) => Some(s),
            Err(e) => {
                let span = if a.verbatim && e.end <= a.value.len() {
                    let start = a.value_span.start as usize + e.start;
                    let end = a.value_span.start as usize
                        + e.end.max(e.start + 1).min(a.value.len().max(e.start + 1));
                    Span::new(start, end.min(a.value_span.end as usize).max(start))
                } else {
                    a.value_span
                };
                // An empty value: point at the whole attribute.
                let span = if span.is_empty() {
                    Span {
                        start: a.name_span.start,
                        end: a.value_span.end + 1,
                    }
                } else {
                    span
                };
                let name = a.name.clone();
                self.error(
                    "E0413",
                    format!("broken script in `{name}`: {}", e.message),
                    span,
                );
                let help = e.help.clone();
                self.amend(|d| {
                    let d = d.with_label(e.message.clone()).with_note(
                        "BehaviorTree.CPP refuses the file when it loads a script it cannot parse",
                    );
                    match help {
                        Some(h) => d.with_help(h),
                        None => d,
                    }
                });
                None
            }
        }
    }

    fn script_node(
        &mut self,
        el: &Element,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
        condition: bool,
    ) -> Option<NodeKind> {
        let code = rest.iter().find(|a| a.name == "code")?;
        if el.elements().next().is_some() {
            return None;
        }
        let stmts = self.script(code, true)?;
        let kind = if condition {
            NodeKind::Check(script::condition(&stmts).ok()?)
        } else {
            NodeKind::Script(script::block(&stmts).ok()?)
        };
        for a in rest.iter().filter(|a| a.name != "code") {
            attrs.push(attr(&a.name, &a.value));
        }
        Some(kind)
    }

    fn switch(
        &mut self,
        el: &Element,
        id: &str,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> Option<NodeKind> {
        let n = switch_cases(id)?;
        let variable = rest.iter().find(|a| a.name == "variable")?;
        let subject = match model::blackboard_key(&variable.value) {
            Some(k) => model::key_expr(k)?,
            None => expr(ExprKind::Str(variable.value.clone())),
        };
        let mut cases = Vec::new();
        for i in 1..=n {
            let c = rest.iter().find(|a| a.name == format!("case_{i}"))?;
            if model::blackboard_key(&c.value).is_some() {
                return None;
            }
            cases.push(model::literal(&c.value, ValueKind::Unknown));
        }
        let elements: Vec<&Element> = el.elements().collect();
        if elements.len() != n + 1 || el.children.iter().any(|c| matches!(c, XmlNode::Text(..))) {
            return None;
        }
        let known = |a: &&&Attribute| {
            a.name == "variable"
                || (a.name.starts_with("case_")
                    && a.name[5..]
                        .parse::<usize>()
                        .is_ok_and(|i| (1..=n).contains(&i)))
        };
        for a in rest.iter().filter(|a| !known(a)) {
            attrs.push(attr(&a.name, &a.value));
        }
        // Children with the comments before them as docs; pads (the exporter's filling of a
        // switch with fewer than two cases) are dropped with their cases.
        let mut arms = Vec::new();
        let mut docs = Vec::new();
        let mut i = 0;
        for c in &el.children {
            match c {
                XmlNode::Comment(t, _) => docs.extend(doc_lines(t)),
                XmlNode::Element(child) => {
                    let d = std::mem::take(&mut docs);
                    let pattern = match cases.get(i) {
                        Some(c) => Pattern::Expr(c.clone()),
                        None => Pattern::Wildcard(Span::DUMMY),
                    };
                    i += 1;
                    if child.attr(carry::PAD) == Some("true") {
                        continue;
                    }
                    let node = if self.shallow {
                        carry::placeholder()
                    } else {
                        self.node(child, d)
                    };
                    arms.push(SwitchArm {
                        doc: None,
                        pattern,
                        node,
                        span: Span::DUMMY,
                    });
                }
                _ => {}
            }
        }
        Some(NodeKind::Switch { subject, arms })
    }

    /// `<Fallback _affect_try="true"><Sequence>try..</Sequence><ForceFailure>catch</ForceFailure>`:
    /// the exporter's `try_catch`.
    fn try_catch(&mut self, el: &Element, id: &str, rest: &[&Attribute]) -> Option<NodeKind> {
        if id != "Fallback" || el.attr(carry::TRY) != Some("true") || !rest.is_empty() {
            return None;
        }
        let kids: Vec<&Element> = el.elements().collect();
        let [seq, force] = kids.as_slice() else {
            return None;
        };
        let catch: Vec<&Element> = force.elements().collect();
        if seq.name != "Sequence"
            || !seq.attrs.is_empty()
            || force.name != "ForceFailure"
            || !force.attrs.is_empty()
            || catch.len() != 1
        {
            return None;
        }
        let mut nodes = self.children(seq);
        nodes.extend(self.children(force));
        Some(call("try_catch", None, false, Some(nodes)))
    }

    fn for_loop(
        &mut self,
        el: &Element,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> Option<NodeKind> {
        let value = rest.iter().find(|a| a.name == "value")?;
        let var = model::blackboard_key(&value.value).and_then(model::key_expr)?;
        let ExprKind::Name(p) = &var.kind else {
            return None;
        };
        let var = p.segments[0].clone();
        let queue_attr = rest.iter().find(|a| a.name == "queue")?;
        let queue = match model::blackboard_key(&queue_attr.value) {
            Some(k) => model::key_expr(k)?,
            None => expr(ExprKind::Str(queue_attr.value.clone())),
        };
        let body = self.body_children(el);
        for a in rest
            .iter()
            .filter(|a| a.name != "value" && a.name != "queue")
        {
            attrs.push(attr(&a.name, &a.value));
        }
        Some(NodeKind::For {
            var,
            queue,
            body: NodeBlock {
                nodes: body,
                span: Span::DUMMY,
            },
        })
    }

    fn builtin(
        &mut self,
        el: &Element,
        b: &'static Builtin,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> NodeKind {
        let mut args = Vec::new();
        for a in rest {
            let arg = b.args.iter().find(|x| match self.dialect {
                Dialect::V4 => x.port == a.name,
                Dialect::V3 => x.port_v3.unwrap_or(x.port) == a.name,
            });
            let value = arg.and_then(|x| self.builtin_value(a, x.port, x.ty));
            match (arg, value) {
                (Some(x), Some(v)) => args.push((x.name, v)),
                _ => attrs.push(attr(&a.name, &a.value)),
            }
        }
        // `retry(3)`, `timeout(2s)`, `skip_unless_updated(place)`: a lone argument reads best
        // without its name (a flag or a status keeps it: `run_once(then_skip: false)`).
        let positional = b.args.len() == 1
            && !matches!(b.args[0].ty, ArgType::Bool | ArgType::Status)
            && args.len() == 1;
        let arg_list: Vec<Arg> = args
            .into_iter()
            .map(|(n, v)| Arg {
                name: (!positional).then(|| ident(n)),
                value: v,
                span: Span::DUMMY,
            })
            .collect();
        let children = match b.class {
            builtins::NodeClass::Control | builtins::NodeClass::Decorator => {
                Some(self.children(el))
            }
            _ => {
                let kids = self.children(el);
                (!kids.is_empty()).then_some(kids)
            }
        };
        let args = (!arg_list.is_empty()).then_some(arg_list);
        call(b.name, args, false, children)
    }

    fn builtin_value(&mut self, a: &Attribute, port: &str, ty: ArgType) -> Option<Expr> {
        let v = a.value.as_str();
        // SetBlackboard's `output_key` names the entry directly; braces would read another
        // entry to get the name.
        if port == "output_key" {
            if model::blackboard_key(v).is_some() {
                return None;
            }
            return model::key_expr(v.trim()).filter(|_| !v.trim().is_empty() && v.trim() == v);
        }
        if let Some(key) = model::blackboard_key(v) {
            return match key {
                "=" => model::key_expr(port),
                k => model::key_expr(k),
            };
        }
        match ty {
            ArgType::Int => match model::literal(v, ValueKind::Number).kind {
                ExprKind::Str(_) => None,
                k => Some(expr(k)),
            },
            ArgType::Duration => {
                let ms: u64 = v.parse().ok().filter(|_| {
                    v.bytes().all(|b| b.is_ascii_digit()) && !v.starts_with('0') || v == "0"
                })?;
                let (value, unit) = if ms >= 1000 && ms.is_multiple_of(1000) {
                    (ms / 1000, Unit::S)
                } else {
                    (ms, Unit::Ms)
                };
                Some(expr(ExprKind::Num(NumLit {
                    value: value as f64,
                    integer: true,
                    unit: Some(unit),
                    text: format!("{value}{}", unit.as_str()),
                })))
            }
            ArgType::Bool => match v {
                "true" => Some(expr(ExprKind::Bool(true))),
                "false" => Some(expr(ExprKind::Bool(false))),
                _ => None,
            },
            ArgType::Status => match v {
                "SUCCESS" | "FAILURE" | "RUNNING" | "SKIPPED" | "IDLE" => {
                    Some(Expr::name(v.to_lowercase(), Span::DUMMY))
                }
                _ => None,
            },
            ArgType::Condition => {
                let stmts = self.script(a, true)?;
                script::condition(&stmts).ok()
            }
            ArgType::Variable | ArgType::Str => Some(expr(ExprKind::Str(v.to_string()))),
            ArgType::Any => Some(model::literal(v, ValueKind::Unknown)),
        }
    }

    fn subtree(&mut self, el: &Element, rest: &[&Attribute], attrs: &mut Vec<Attr>) -> NodeKind {
        let Some(id_attr) = el.attribute("ID") else {
            self.error(
                "E0414",
                format!("`<{}>` without `ID`", el.name),
                el.name_span,
            );
            self.amend(|d| d.with_label("which tree does it call?"));
            return NodeKind::Error;
        };
        if !self.spellable(&id_attr.value, id_attr.value_span, "tree ID") {
            return NodeKind::Error;
        }
        let id = id_attr.value.as_str();
        if let Some(child) = el.elements().next() {
            self.error(
                "E0414",
                format!("`<{}>` cannot have children", el.name),
                child.name_span,
            );
            let hint = if child.name == "remap" {
                "`<remap>` children are gone: write remappings as attributes, `port=\"{key}\"`"
            } else {
                "a SubTree's nodes are in the `<BehaviorTree>` it names"
            };
            self.amend(|d| d.with_label("not allowed here").with_help(hint));
            return NodeKind::Error;
        }
        // v3's plain SubTree remaps with bare keys; SubTreePlus and v4's SubTree use {key}.
        let bare = self.dialect == Dialect::V3 && el.name == "SubTree";
        let autoremap = match (self.dialect, el.name.as_str()) {
            (Dialect::V4, _) => "_autoremap",
            (Dialect::V3, "SubTreePlus") => "__autoremap",
            _ => "",
        };
        if !self.scope.trees.contains_key(id) {
            infer::note_unknown(
                &mut self.unknown,
                id,
                LeafKind::Action,
                true,
                &[],
                el.name_span,
            );
        }
        let ports = self.scope.trees.get(id).cloned().unwrap_or_default();
        let mut args = Vec::new();
        let mut rest_flag = false;
        for a in rest {
            if !autoremap.is_empty() && a.name == autoremap && a.value == "true" && !rest_flag {
                rest_flag = true;
                continue;
            }
            if a.name.starts_with('_') {
                attrs.push(attr(&a.name, &a.value));
                continue;
            }
            let value = if bare {
                model::key_expr(&a.value)
                    .filter(|_| !a.value.trim().is_empty() && a.value.trim() == a.value)
            } else {
                match model::blackboard_key(&a.value) {
                    Some("=") => model::key_expr(&a.name),
                    Some(k) => {
                        if k.matches('@').count() > 1 {
                            self.error(
                                "E0412",
                                format!("`{}` names the root blackboard twice", a.value),
                                a.value_span,
                            );
                            self.amend(|d| {
                                d.with_label("at most one `@`").with_help("write `{@key}`")
                            });
                            None
                        } else {
                            model::key_expr(k)
                        }
                    }
                    None => {
                        let kind = model::value_kind(
                            Scope::port(&ports, &a.name).and_then(|p| p.ty.as_ref()),
                        );
                        Some(model::literal(&a.value, kind))
                    }
                }
            };
            match value {
                Some(v) => args.push(named_arg(&a.name, v)),
                None => attrs.push(attr(&a.name, &a.value)),
            }
        }
        call(id, Some(args), rest_flag, None)
    }

    fn custom(
        &mut self,
        el: &Element,
        id: &str,
        explicit_tag: Option<&str>,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> NodeKind {
        let sig = self.scope.leaves.get(id).cloned();
        let raw_builtin = is_bt_builtin(id, self.dialect);
        let mut args = Vec::new();
        let mut unknown_ports = Vec::new();
        for a in rest {
            // In v4 attributes that cannot be ports are metadata; in v3 every attribute but
            // `name` and `ID` is a port.
            let is_port = match self.dialect {
                Dialect::V4 => super::names::is_port_attr(&a.name),
                Dialect::V3 => !a.name.starts_with('_'),
            };
            if !is_port {
                attrs.push(attr(&a.name, &a.value));
                continue;
            }
            let ty = sig
                .as_ref()
                .and_then(|s| Scope::port(&s.ports, &a.name))
                .and_then(|p| p.ty.as_ref());
            let value = match model::blackboard_key(&a.value) {
                Some("=") => model::key_expr(&a.name),
                Some(k) if k.matches('@').count() > 1 => {
                    self.error(
                        "E0412",
                        format!("`{}` names the root blackboard twice", a.value),
                        a.value_span,
                    );
                    self.amend(|d| d.with_label("at most one `@`").with_help("write `{@key}`"));
                    None
                }
                Some(k) => model::key_expr(k),
                None if raw_builtin => Some(expr(ExprKind::Str(a.value.clone()))),
                None => Some(model::literal(&a.value, model::value_kind(ty))),
            };
            match value {
                Some(v) => {
                    unknown_ports.push((a.name.clone(), model::blackboard_key(&a.value).is_some()));
                    args.push(named_arg(&a.name, v));
                }
                None => attrs.push(attr(&a.name, &a.value)),
            }
        }
        let child_count = el
            .elements()
            .filter(|e| e.attr(carry::PAD) != Some("true"))
            .count();
        let kind = match (&sig, explicit_tag) {
            (Some(s), _) => s.kind,
            (None, Some("Condition")) => LeafKind::Condition,
            (None, Some("Control")) => LeafKind::Control,
            (None, Some("Decorator")) => LeafKind::Decorator,
            (None, Some(_)) => LeafKind::Action,
            (None, None) => match child_count {
                0 => LeafKind::Action,
                1 => LeafKind::Decorator,
                _ => LeafKind::Control,
            },
        };
        // A compact element named like a tree is not a SubTree: BehaviorTree.CPP looks it up
        // as a registered node ("Node not recognized" without one).
        if sig.is_none() && !raw_builtin {
            infer::note_unknown(
                &mut self.unknown,
                id,
                kind,
                false,
                &unknown_ports,
                el.name_span,
            );
        }
        // Children after the node itself: unknown nodes are noted in document order.
        let kids = self.children(el);
        let leaf = matches!(kind, LeafKind::Action | LeafKind::Condition);
        let children = if leaf && kids.is_empty() {
            None
        } else {
            Some(kids)
        };
        let args = if args.is_empty() && children.is_some() {
            None
        } else {
            Some(args)
        };
        call(id, args, false, children)
    }
}

const ROOT_PREFIX: &str = "root:";

/// Item attributes named `root:x` are attributes of `<root>` (kept from an imported file).
pub fn root_attr_name(name: &str) -> Option<&str> {
    name.strip_prefix(ROOT_PREFIX)
}

fn label(text: &str) -> Label {
    let hard = crate::syntax::token::Kw::from_word(text).is_some_and(|k| k.is_hard());
    Label {
        text: text.to_string(),
        quoted: !crate::fmt::is_plain_ident(text) || hard,
        span: Span::DUMMY,
    }
}

fn is_subtree_tag(tag: &str) -> bool {
    tag == "SubTree" || tag == "SubTreePlus"
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

/// `Switch2`..`Switch6` → the number of cases.
pub fn switch_cases(id: &str) -> Option<usize> {
    let n: usize = id.strip_prefix("Switch")?.parse().ok()?;
    (2..=6).contains(&n).then_some(n)
}

/// IDs of BehaviorTree.CPP's own nodes that a file may use by name (`Script(code: "...")`
/// when a script has no affect spelling): written back as they are, never given a model.
pub fn is_bt_builtin(id: &str, dialect: Dialect) -> bool {
    const V4_EXTRA: &[&str] = &[
        "Script",
        "ScriptCondition",
        "LoopInt",
        "LoopBool",
        "LoopDouble",
        "LoopString",
        "SubTree",
        "Switch2",
        "Switch3",
        "Switch4",
        "Switch5",
        "Switch6",
        "ManualSelector",
        "SequenceStar",
    ];
    const V3_EXTRA: &[&str] = &[
        "BlackboardCheckInt",
        "BlackboardCheckDouble",
        "BlackboardCheckString",
        "BlackboardCheckBool",
        "SubTree",
        "SubTreePlus",
        "Switch2",
        "Switch3",
        "Switch4",
        "Switch5",
        "Switch6",
        "ManualSelector",
    ];
    match dialect {
        Dialect::V4 => {
            V4_EXTRA.contains(&id) || builtins::BUILTINS.iter().any(|b| b.v4 == Some(id))
        }
        Dialect::V3 => {
            V3_EXTRA.contains(&id) || builtins::BUILTINS.iter().any(|b| b.v3 == Some(id))
        }
    }
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
