//! affect syntax tree → Groot / BehaviorTree.CPP XML (v4 like BehaviorTree.CPP's own writer,
//! or v3 like Groot 1), syntax-directed: names resolve to built-ins (`builtins::by_name`),
//! declared leaves and trees of the same file.
//!
//! Every v4 element is checked by reading it back with the importer; where that would not give
//! the source's syntax tree, the element carries the source text in `_affect` (see `carry`), so
//! `.affect → XML → .affect` gives the same tree. Output is deterministic: model entries are
//! sorted by ID when the declarations are (else in their order), everything else follows the
//! source order.
//!
//! Files: `mod.rs` (the document), `tree` (trees and agents), `program` (a program with the
//! files it uses), `readback` (the check that reads each written element back with the
//! importer).

mod modules;
mod program;
mod readback;
mod tendencies;
mod tree;

pub use program::{export_program, ExportedFile, ExportedProgram};

use super::carry::{self, Entry, XmlItem};
use super::element::entry::{
    attr_value, has_body, is_reserved_item_attr, kind_tag, leaf_model, subtree_model,
};
use super::element::node::switch_children;
use super::element::{HeadState, Heads};
use super::infer::{self, Unknown};
use super::kept;
use super::names;
use super::vocab;
use super::xml::{self, Document, Element, XmlNode};
use super::{Dialect, LeafSig, Scope};
use crate::btcpp::script::{self, Writer};
use crate::builtins;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// The XML text and the diagnostics (spans into the `.affect` source). With errors, `xml` is
/// what could be written and should not be used.
#[derive(Debug)]
pub struct Exported {
    pub xml: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// Writes a checked syntax tree as XML in the given dialect.
pub fn export(file: &File, dialect: Dialect) -> Exported {
    export_with(file, dialect, &[])
}

/// Like [`export`], with the files the program `use`s: their trees and declared nodes are
/// called by name (a `<SubTree>`, no model entry), as BehaviorTree.CPP finds them through
/// `<include>`.
pub fn export_with(file: &File, dialect: Dialect, used: &[&File]) -> Exported {
    let (doc, diagnostics) = document_with(file, dialect, used);
    Exported {
        xml: xml::write(&doc),
        diagnostics,
    }
}

/// Like [`export`], the document as elements rather than text (for `affect run --groot2`,
/// which adds `_uid`s to it).
pub fn export_document(file: &File, dialect: Dialect) -> (Document, Vec<Diagnostic>) {
    document_with(file, dialect, &[])
}

fn document_with(file: &File, dialect: Dialect, used: &[&File]) -> (Document, Vec<Diagnostic>) {
    let mut x = Exporter::new(file, dialect);
    for u in used {
        let other = scope_of(u);
        for (k, v) in other.leaves {
            x.scope.leaves.entry(k).or_insert(v);
        }
        for (k, v) in other.trees {
            x.scope.trees.entry(k).or_insert(v);
        }
        for (k, v) in other.enums {
            x.scope.enums.entry(k).or_insert(v);
        }
    }
    x.readback.set_scope(x.scope.clone());
    let doc = x.document(file);
    let mut diagnostics = x.st.diags;
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    diagnostics.dedup();
    (doc, diagnostics)
}

// ------------------------------------------------------------------------------ document

struct Exporter {
    dialect: Dialect,
    scope: Scope,
    st: HeadState,
    readback: readback::ReadBack,
    verify: bool,
    /// Nodes of `cpp/affect_bt.hpp` were written: their model entries go in.
    affect_nodes: bool,
    /// The action-tendency tables of the agent being written: machine → its state's enum
    /// type and the arms (`tendencies.rs`).
    tendencies: HashMap<String, (Type, Vec<TendencyArm>)>,
}

fn scope_of(file: &File) -> Scope {
    let mut scope = Scope::default();
    for item in &file.items {
        match &item.kind {
            ItemKind::Leaf(l) => {
                scope.leaves.insert(
                    l.name.name.clone(),
                    LeafSig {
                        kind: l.kind,
                        ports: l.ports.clone(),
                    },
                );
            }
            ItemKind::Tree(t) => {
                scope.trees.insert(t.name.name.clone(), t.ports.clone());
            }
            ItemKind::Const(c) => scope.add_const(&c.name.name, &c.value),
            ItemKind::Enum(e) => {
                scope.enums.insert(
                    e.name.name.clone(),
                    e.variants.iter().map(|v| v.name.name.clone()).collect(),
                );
            }
            _ => {}
        }
    }
    scope
}

/// The file's enums as the scripting enums a host registers (`cpp/affect_bt.hpp` reads them):
/// `Enum::Variant=value;..`. Scripts name a variant without its enum, so a variant name has one
/// value in the file (its explicit value, else numbered in order of first appearance), and the
/// variants of one enum differ.
fn scripting_enums(file: &File) -> Option<String> {
    let mut values: HashMap<&str, i64> = HashMap::new();
    let mut parts = Vec::new();
    for item in &file.items {
        let ItemKind::Enum(e) = &item.kind else {
            continue;
        };
        for v in &e.variants {
            let explicit = match v.value.as_ref().map(|x| &x.kind) {
                Some(ExprKind::Num(n)) if n.integer => Some(n.value as i64),
                Some(ExprKind::Unary(UnOp::Neg, x)) => match &x.kind {
                    ExprKind::Num(n) if n.integer => Some(-(n.value as i64)),
                    _ => None,
                },
                _ => None,
            };
            let next = values.len() as i64;
            let value = match explicit {
                Some(x) => x,
                None => *values.entry(v.name.name.as_str()).or_insert(next),
            };
            parts.push(format!("{}::{}={value}", e.name.name, v.name.name));
        }
    }
    (!parts.is_empty()).then(|| parts.join(";"))
}

impl Exporter {
    fn new(file: &File, dialect: Dialect) -> Exporter {
        let scope = scope_of(file);
        let readback = readback::ReadBack::new(scope.clone());
        Exporter {
            dialect,
            scope,
            st: HeadState::default(),
            readback,
            verify: dialect == Dialect::V4,
            affect_nodes: false,
            tendencies: HashMap::new(),
        }
    }

    fn heads(&mut self) -> Heads<'_> {
        Heads {
            dialect: self.dialect,
            scope: &self.scope,
            st: &mut self.st,
        }
    }
}

impl Exporter {
    /// A node and its children, with `_affect` where reading the element back would differ.
    fn node(&mut self, n: &Node) -> Element {
        if let Some(switch) = self.tendencies_switch(n) {
            let mut el = self.node(&switch);
            el.set(carry::AFFECT, carry::format_node(n).trim_end());
            el.set(carry::TENDENCIES, "true");
            return el;
        }
        let mut el = self.heads().head(n);
        let lowered_try = matches!(&n.kind, NodeKind::Call { name, args, .. }
            if name.segments.len() == 1 && name.segments[0].name == "try_catch" && args.as_ref().is_none_or(|a| a.args.is_empty() && a.rest.is_none()));
        let children: Vec<Element> = match &n.kind {
            NodeKind::Call {
                children: Some(c), ..
            } if lowered_try && !c.nodes.is_empty() => {
                let mut kids: Vec<Element> = c.nodes.iter().map(|c| self.node(c)).collect();
                let catch = kids.pop().expect("not empty");
                let mut try_block = Element::new("Sequence");
                try_block.children = kids.into_iter().map(XmlNode::Element).collect();
                let mut force = Element::new("ForceFailure");
                force.children.push(XmlNode::Element(catch));
                vec![try_block, force]
            }
            NodeKind::Call {
                children: Some(c), ..
            } => c.nodes.iter().map(|c| self.node(c)).collect(),
            NodeKind::Switch { arms, .. } => switch_children(arms, |c| self.node(c)),
            NodeKind::For { body, .. } => {
                let nodes: Vec<Element> = body.nodes.iter().map(|c| self.node(c)).collect();
                if nodes.is_empty() {
                    self.heads()
                        .error("E0454", "a `for` loop needs a body", body.span);
                }
                body_elements(nodes)
            }
            _ => vec![],
        };
        el.children = children.into_iter().map(XmlNode::Element).collect();
        if let Some(k) = kept::of(&n.attrs, kept::XML) {
            kept::merge_head(&mut el, &k, self.dialect == Dialect::V4);
        }
        if self.verify {
            if let Some(text) = self.readback.node(&el, n, self.st.form) {
                el.set(carry::AFFECT, text);
            }
        }
        el
    }

    fn var_types_of_tree(&mut self, t: &TreeDecl) {
        self.st.var_types.clear();
        for v in &t.locals {
            if let Some(ty) = &v.ty {
                self.st.var_types.insert(v.name.name.clone(), ty.clone());
            }
        }
        for p in t.ports.iter() {
            if let Some(ty) = &p.ty {
                self.st.var_types.insert(p.name.name.clone(), ty.clone());
            }
        }
    }

    /// The `var`s' initial values, set once per tree instance (RunOnce + Script).
    fn init(&mut self, t: &TreeDecl) -> Option<Element> {
        let vars: Vec<(&Ident, Option<&Type>, Option<&Expr>, Span)> = t
            .locals
            .iter()
            .map(|v| (&v.name, v.ty.as_ref(), v.init.as_ref(), v.span))
            .collect();
        self.init_vars(&vars, false)
    }

    /// Sets variables to their initial values once per tree instance (`RunOnce` + `Script`).
    /// `quiet` (an agent's state): values a script cannot hold, and v3, are left to the
    /// affect runtime without a diagnostic.
    fn init_vars(
        &mut self,
        vars: &[(&Ident, Option<&Type>, Option<&Expr>, Span)],
        quiet: bool,
    ) -> Option<Element> {
        let mut parts = Vec::new();
        for (name, ty, init, span) in vars {
            let Some(init) = init else { continue };
            if self.dialect == Dialect::V3 {
                if !quiet {
                    self.heads().error(
                        "E0451",
                        "an initialised `var` needs BehaviorTree.CPP 4",
                        *span,
                    );
                    self.heads()
                        .amend(|d| d.with_label("v3 has no scripts to set it"));
                }
                continue;
            }
            let num = ty.is_some_and(|t| {
                let base = match &t.kind {
                    TypeKind::Range(b, ..) => b.as_ref(),
                    _ => t,
                };
                crate::fmt::format_type(base) == "num"
            });
            let mut hosted = false;
            let scope = &self.scope;
            let variant = |p: &Path| scope.enum_variant(p);
            let constant = |n: &str| scope.constant(n);
            let mut host = |_: &str, _: Span| {
                hosted = true;
                String::new()
            };
            let text = match (&init.kind, num) {
                // A `num` starts as a double, so later arithmetic never meets an integer entry.
                (ExprKind::Num(n), true) if n.integer && n.unit.is_none() => {
                    script::format_f64(n.value, false)
                }
                _ => Writer {
                    host: &mut host,
                    enum_variant: &variant,
                    constant: &constant,
                }
                .top(init),
            };
            if hosted {
                if !quiet {
                    let name = name.name.clone();
                    self.heads().warn(
                        "W0451",
                        format!("BehaviorTree.CPP cannot compute the initial value of `{name}`"),
                        init.span,
                    );
                    self.heads().amend(|d| d.with_label("not set by the exported tree").with_note("scripts hold only names, literals and operators; the affect runtime sets it"));
                }
                continue;
            }
            parts.push(format!("{} := {text}", name.name));
        }
        if parts.is_empty() {
            return None;
        }
        let script = Element::new(builtins::SCRIPT_ID).with("code", parts.join("; "));
        let mut once = Element::new("RunOnce")
            .with("then_skip", "true")
            .with(carry::INIT, "true");
        once.children.push(XmlNode::Element(script));
        Some(once)
    }

    fn body(&mut self, nodes: &[Node], init: Option<Element>, span: Span) -> Option<Element> {
        let mut els: Vec<Element> = init.into_iter().collect();
        els.extend(nodes.iter().map(|n| self.node(n)));
        match els.len() {
            0 => {
                self.heads()
                    .error("E0454", "an empty tree cannot be written", span);
                self.heads()
                    .amend(|d| d.with_label("a `<BehaviorTree>` holds exactly one node"));
                None
            }
            _ => body_elements(els).into_iter().next(),
        }
    }

    fn check_names(&mut self, file: &File) {
        if self.dialect != Dialect::V4 {
            return;
        }
        let check_model = |h: &mut Heads, name: &str, span: Span, what: &str| {
            if let Some(e) = names::model_name_error(name) {
                h.error("E0452", format!("{what} `{name}`: {e}"), span);
            } else if what != "node"
                && (builtins::BUILTINS.iter().any(|b| b.v4 == Some(name))
                    || vocab::is_bt_builtin(name, Dialect::V4))
            {
                h.error(
                    "E0452",
                    format!("{what} `{name}` has the ID of a BehaviorTree.CPP node"),
                    span,
                );
                h.amend(|d| {
                    d.with_label("BehaviorTree.CPP refuses a tree or model with a built-in's ID")
                        .with_help("rename it")
                });
            } else if let Some(c) = names::forbidden_char(name) {
                h.warn(
                    "W0453",
                    format!("{what} `{name}` contains `{}`", c.escape_debug()),
                    span,
                );
                h.amend(|d| {
                    d.with_label("BehaviorTree.CPP 4.8.4 and later refuse this character in IDs")
                        .with_note("older versions and Groot 2 before the same release accept it")
                });
            }
        };
        let check_port = |h: &mut Heads, p: &PortDecl| {
            let name = &p.name.name;
            if let Some(e) = names::port_name_error(name) {
                let written = names::xml_port(name).into_owned();
                h.warn(
                    "W0453",
                    format!("port `{name}` is written `{written}` in XML"),
                    p.name.span,
                );
                h.amend(|d| d.with_label(e).with_note("calls bind it by its affect name; the `_affect` text keeps the declaration exact"));
            } else if let Some(c) = names::forbidden_char(name)
                .or_else(|| name.chars().next().filter(char::is_ascii_digit))
            {
                h.warn(
                    "W0453",
                    format!(
                        "port `{name}` contains or starts with `{}`",
                        c.escape_debug()
                    ),
                    p.name.span,
                );
                h.amend(|d| d.with_label("BehaviorTree.CPP 4.8.4 and later refuse this port name"));
            }
        };
        for item in file.items.iter().filter(|i| !is_inferred(i)) {
            match &item.kind {
                ItemKind::Leaf(l) => {
                    check_model(&mut self.heads(), &l.name.name, l.name.span, "node");
                    l.ports
                        .iter()
                        .for_each(|p| check_port(&mut self.heads(), p));
                }
                ItemKind::Tree(t) => {
                    check_model(&mut self.heads(), &t.name.name, t.name.span, "tree");
                    t.ports
                        .iter()
                        .for_each(|p| check_port(&mut self.heads(), p));
                }
                ItemKind::Agent(a) if a.members.is_some() => {
                    check_model(&mut self.heads(), &a.name.name, a.name.span, "agent")
                }
                _ => {}
            }
        }
    }

    fn document(&mut self, file: &File) -> Document {
        self.check_names(file);
        let main_name = main_of(file, self.dialect);
        let mut root = self.root_element(file, main_name.as_deref());
        self.st.inferred = file
            .items
            .iter()
            .filter(|i| is_inferred(i))
            .filter_map(|i| match &i.kind {
                ItemKind::Leaf(l) => Some(l.name.name.clone()),
                ItemKind::Tree(t) => Some(t.name.name.clone()),
                _ => None,
            })
            .collect();
        let mut parts = Parts::default();
        for item in &file.items {
            self.declaration(item, &mut parts, main_name.as_deref());
            if let ItemKind::Agent(a) = &item.kind {
                if agent_main(a).is_none() && modules::has_modules(a) && self.dialect == Dialect::V4
                {
                    let bt = self.agent_modules(file, item, a);
                    parts.behavior_trees.push(bt);
                    let key = XmlItem::Agent(a.name.name.clone());
                    parts.entries.push(Entry::Xml(key.clone()));
                    parts.bts.push(key);
                }
            }
        }
        let seen = self.st.uses.take();
        let inferred_keys = held_inferred(&seen, &mut parts);
        self.inferred_models(&seen, &mut parts.models);
        order_models(&mut parts.models);
        kept::order_models(&file.items, &mut parts.models);
        if self.affect_nodes {
            parts.models.extend(modules::models());
        }
        // affect's own built-ins the trees use: `cpp/affect_bt.hpp` registers them.
        let own = std::mem::take(&mut self.st.own_nodes);
        parts
            .models
            .extend(own.into_iter().map(super::element::entry::builtin_model));
        let default_order = parts.default_order(inferred_keys);
        let actual: Vec<XmlItem> = parts
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Xml(k) => Some(k.clone()),
                Entry::Item(_) => None,
            })
            .collect();
        let carried_any = parts.entries.iter().any(|e| matches!(e, Entry::Item(_)));
        if carried_any || default_order != actual {
            root.set(carry::AFFECT, carry::write_root(&parts.entries).trim_end());
        }
        for e in parts.includes.into_iter().chain(parts.behavior_trees) {
            root.children.push(XmlNode::Element(e));
        }
        let kept_list = file
            .items
            .iter()
            .any(|i| i.attrs.iter().any(|a| a.name.name == kept::XML_MODELS));
        if !parts.models.is_empty() || kept_list {
            let mut list = Element::new("TreeNodesModel");
            list.children = parts.models.into_iter().map(XmlNode::Element).collect();
            root.children.push(XmlNode::Element(list));
        }
        let mut doc = Document {
            nodes: vec![XmlNode::Element(root)],
        };
        super::comments::restore(&mut doc);
        doc
    }

    /// `<root>` with its format, main tree and the attributes items carry for it.
    fn root_element(&self, file: &File, main_name: Option<&str>) -> Element {
        let mut root = Element::new("root");
        if self.dialect == Dialect::V4 {
            root.set("BTCPP_format", "4");
        }
        if let Some(m) = main_name {
            root.set("main_tree_to_execute", m);
        }
        if self.dialect == Dialect::V4 {
            if let Some(enums) = scripting_enums(file) {
                root.set(carry::ENUMS, enums);
            }
        }
        for item in &file.items {
            for a in &item.attrs {
                if let Some(n) = vocab::root_attr_name(&a.name.name) {
                    root.set(n, attr_value(a));
                }
            }
        }
        root
    }

    /// One declaration: its element (an include, a model entry, a tree) or carried text.
    fn declaration(&mut self, item: &Item, parts: &mut Parts, main_name: Option<&str>) {
        let Parts {
            includes,
            behavior_trees,
            models,
            entries,
            inferred_at,
            uses,
            leaves,
            bts,
            externals,
        } = parts;
        if is_inferred(item) && matches!(item.kind, ItemKind::Leaf(_) | ItemKind::Tree(_)) {
            inferred_at.push(entries.len());
            entries.push(Entry::Item(item.clone()));
            return;
        }
        match &item.kind {
            // Included by an included file: BehaviorTree.CPP reads it through that one.
            ItemKind::Use(_) if item.attrs.iter().any(|a| a.name.name == vocab::TRANSITIVE) => {}
            ItemKind::Use(UseDecl {
                target: UseTarget::File(path, _),
            }) => {
                let xml_path = match path.strip_suffix(".affect") {
                    Some(stem) => format!("{stem}.xml"),
                    None => path.clone(),
                };
                let mut el = Element::new("include").with("path", xml_path);
                el.set_all(
                    item.attrs
                        .iter()
                        .filter(|a| !is_reserved_item_attr(a))
                        .map(|a| (a.name.name.as_str(), attr_value(a))),
                );
                if let Some(k) = kept::of(&item.attrs, kept::XML) {
                    kept::merge_head(&mut el, &k, self.dialect == Dialect::V4);
                }
                let key = XmlItem::Use(path.clone());
                // XML comments before (or after) the include, or before `<TreeNodesModel>`
                // in a file of only includes: as a tree's, restored from `_description`.
                let comments = item
                    .doc
                    .as_ref()
                    .filter(|d| super::comments::only_comments(&d.lines));
                if let Some(d) = comments {
                    el.set("_description", d.lines.join("\n"));
                }
                includes.push(el);
                if item.doc.is_some() && comments.is_none() {
                    // An include has nowhere to keep a description.
                    entries.push(Entry::Item(item.clone()));
                } else {
                    entries.push(Entry::Xml(key.clone()));
                    uses.push(key);
                }
            }
            ItemKind::Leaf(l) => {
                let mut el = leaf_model(item).expect("a leaf");
                match self.kept_entry(item, Some(l.kind), &l.name.name) {
                    Some(k) => el = kept::entry(&el, k),
                    None if self.verify => {
                        self.readback
                            .carry_model(&mut el, item, Some(l.kind), &l.name.name)
                    }
                    None => {}
                }
                models.push(el);
                let key = XmlItem::Leaf(l.name.name.clone());
                entries.push(Entry::Xml(key.clone()));
                leaves.push(key);
            }
            ItemKind::Tree(t) if has_body(t) => {
                let is_main_on_import = main_name == Some(t.name.name.as_str());
                let (bt, model) = self.tree(item, t, is_main_on_import);
                behavior_trees.push(bt);
                models.extend(model);
                let key = XmlItem::Tree(t.name.name.clone());
                entries.push(Entry::Xml(key.clone()));
                bts.push(key);
            }
            ItemKind::Tree(t) => {
                let mut el = subtree_model(item, true).expect("a tree");
                match self.kept_entry(item, None, &t.name.name) {
                    Some(k) => el = kept::entry(&el, k),
                    None if self.verify => {
                        self.readback.carry_model(&mut el, item, None, &t.name.name)
                    }
                    None => {}
                }
                models.push(el);
                let key = XmlItem::Tree(t.name.name.clone());
                entries.push(Entry::Xml(key.clone()));
                externals.push(key);
            }
            ItemKind::Agent(a)
                if agent_main(a).is_none()
                    && modules::has_modules(a)
                    && self.dialect == Dialect::V4 =>
            {
                // Written by `document` (it needs the file for shared modules).
            }
            ItemKind::Agent(a) if agent_main(a).is_some() => {
                let bt = self.agent(item, a, agent_main(a).expect("checked"));
                behavior_trees.extend(bt);
                let key = XmlItem::Agent(a.name.name.clone());
                entries.push(Entry::Xml(key.clone()));
                bts.push(key);
            }
            ItemKind::Error => {
                self.heads()
                    .error("E0454", "the file has syntax errors", item.span);
            }
            _ => entries.push(Entry::Item(item.clone())),
        }
    }

    /// The model entry a declaration keeps as written (`#[xml]`, see `kept`), while it still
    /// reads as the declaration says.
    fn kept_entry(&mut self, item: &Item, kind: Option<LeafKind>, id: &str) -> Option<Element> {
        let k = kept::of(&item.attrs, kept::XML)?;
        let tag = kind.map_or("SubTree", super::element::entry::kind_tag);
        if k.name != tag || k.attr("ID") != Some(id) {
            return None;
        }
        let bare = |i: &Item| {
            let mut i = i.clone();
            // What does not go on the entry: kept text, `<root>`'s attributes.
            i.attrs.retain(|a| {
                !kept::is_kept(&a.name.name) && vocab::root_attr_name(&a.name.name).is_none()
            });
            i.doc = None;
            i
        };
        let back = self.readback.model(&k, kind, id);
        carry::same_item(&bare(item), &bare(&back)).then_some(k)
    }

    /// Nodes used without any declaration get a model inferred from their uses; trees called
    /// with `..` and defined nowhere get a SubTree model.
    fn inferred_models(&mut self, seen: &[Unknown], models: &mut Vec<Element>) {
        // Nodes used without any declaration get a model inferred from their uses.
        let undeclared: Vec<&Unknown> = seen
            .iter()
            .filter(|u| !u.tree && !self.scope.leaves.contains_key(&u.name))
            .collect();
        for u in undeclared {
            let name = &u.name;
            let kind = u.kind;
            if name == "tendencies" {
                // affect's own node: declaring it is no fix, so say what BehaviorTree.CPP gets.
                self.heads().warn(
                    "W0454",
                    "BehaviorTree.CPP has no tendency table: `tendencies` is exported as an action it must register",
                    u.span,
                );
                self.heads().amend(|d| {
                    d.with_label("affect's built-in: the agent's action tendencies")
                        .with_note("the affect runtime runs it; a BehaviorTree.CPP host registers an action `tendencies`")
                });
            } else {
                self.heads().warn(
                    "W0454",
                    format!("`{name}` is not declared: its model is inferred from its uses"),
                    u.span,
                );
                self.heads().amend(|d| {
                    d.with_label("no `action`/`condition` declaration in this file")
                        .with_help(format!("declare it, e.g. `{} {name}(...);`, to give its ports directions and types", kind.keyword()))
                });
            }
            let mut el = Element::new(kind_tag(kind))
                .with("ID", name)
                .with(carry::INFERRED_XML, "true");
            for (p, bound) in &u.ports {
                let tag = if *bound { "inout_port" } else { "input_port" };
                el.children
                    .push(XmlNode::Element(Element::new(tag).with("name", p)));
            }
            models.push(el);
        }
        for (name, span) in std::mem::take(&mut self.st.undeclared_trees) {
            self.heads()
                .warn("W0454", format!("tree `{name}` is not declared"), span);
            self.heads().amend(|d| {
                d.with_label("called with `..`, so written as a SubTree")
                    .with_note("BehaviorTree.CPP needs the tree from an included file")
            });
            models.push(
                Element::new("SubTree")
                    .with("ID", name)
                    .with(carry::INFERRED_XML, "true"),
            );
        }
    }
}

/// What the document is made of, gathered declaration by declaration.
#[derive(Default)]
struct Parts {
    includes: Vec<Element>,
    behavior_trees: Vec<Element>,
    models: Vec<Element>,
    entries: Vec<Entry>,
    /// Where `#[inferred]` declarations stand: decided once every use has been seen.
    inferred_at: Vec<usize>,
    // The order an import reads XML-held declarations in without help: includes, leaf
    // models by ID, inferred declarations by first use, trees, bodiless trees by ID.
    uses: Vec<XmlItem>,
    leaves: Vec<XmlItem>,
    bts: Vec<XmlItem>,
    externals: Vec<XmlItem>,
}

impl Parts {
    /// The order an import would give the XML-held declarations (models sorted by ID).
    fn default_order(&mut self, inferred_keys: Vec<XmlItem>) -> Vec<XmlItem> {
        let mut position: HashMap<&str, usize> = HashMap::new();
        for (i, id) in self.models.iter().filter_map(|m| m.attr("ID")).enumerate() {
            position.entry(id).or_insert(i);
        }
        let by_model = |k: &XmlItem| match k {
            XmlItem::Leaf(n) | XmlItem::Tree(n) => position.get(n.as_str()).copied(),
            _ => None,
        };
        let mut order = std::mem::take(&mut self.uses);
        let mut leaves = std::mem::take(&mut self.leaves);
        leaves.sort_by_key(|k| by_model(k));
        order.extend(leaves);
        order.extend(inferred_keys);
        order.append(&mut self.bts);
        let mut externals = std::mem::take(&mut self.externals);
        externals.sort_by_key(|k| by_model(k));
        order.extend(externals);
        order
    }
}

/// The tree `main_tree_to_execute` names: the `main tree`, else the first agent with a
/// `main` or behaviour modules. None for a file without either (BehaviorTree.CPP then runs its only tree).
fn main_of(file: &File, dialect: Dialect) -> Option<String> {
    let main_tree = file.items.iter().find_map(|i| match &i.kind {
        ItemKind::Tree(t) if has_body(t) && t.is_main => Some(t.name.name.clone()),
        _ => None,
    });
    main_tree.or_else(|| {
        file.items.iter().find_map(|i| match &i.kind {
            ItemKind::Agent(a) if runs_in_xml(a, dialect) => Some(a.name.name.clone()),
            _ => None,
        })
    })
}

/// An agent written as a `<BehaviorTree>`: one with a `main`, or in v4 one whose behaviour
/// modules run (its tree is then their arbiter; v3 has no scripts for their values).
fn runs_in_xml(a: &AgentDecl, dialect: Dialect) -> bool {
    agent_main(a).is_some() || (dialect == Dialect::V4 && modules::has_modules(a))
}

/// The index of an agent's `main` member.
fn agent_main(a: &AgentDecl) -> Option<usize> {
    a.members
        .as_ref()?
        .iter()
        .position(|m| matches!(m.kind, MemberKind::Main(_)))
}

/// An `#[inferred]` declaration that an import would infer again from the XML is held by the
/// XML; any other is carried as text. Returns the keys of those held.
fn held_inferred(seen: &[Unknown], parts: &mut Parts) -> Vec<XmlItem> {
    let entries = &mut parts.entries;
    let mut at_name: HashMap<String, usize> = HashMap::new();
    for &i in &parts.inferred_at {
        if let Entry::Item(item) = &entries[i] {
            if let Some(name) = item_name(item) {
                at_name.entry(name.to_string()).or_insert(i);
            }
        }
    }
    let mut inferred_keys = Vec::new();
    for u in seen {
        let Some(&at) = at_name.get(&u.name) else {
            continue;
        };
        let Entry::Item(item) = &entries[at] else {
            continue;
        };
        if carry::same_item(item, &infer::declaration(u)) {
            let key = if u.tree {
                XmlItem::Tree(u.name.clone())
            } else {
                XmlItem::Leaf(u.name.clone())
            };
            entries[at] = Entry::Xml(key.clone());
            inferred_keys.push(key);
        }
    }
    inferred_keys
}

/// Model entries sorted by ID, as BehaviorTree.CPP and Groot 2 write them, when the
/// declarations are (node models among themselves, tree models among themselves); else in
/// declaration order, which is the order of an imported file's own `<TreeNodesModel>`.
/// Inferred entries come last then.
fn order_models(models: &mut [Element]) {
    let sorted = |tree: bool| {
        let ids: Vec<Option<&str>> = models
            .iter()
            .filter(|m| m.attr(carry::INFERRED_XML).is_none() && (m.name == "SubTree") == tree)
            .map(|m| m.attr("ID"))
            .collect();
        ids.windows(2).all(|w| w[0] <= w[1])
    };
    if sorted(false) && sorted(true) {
        models.sort_by(|a, b| a.attr("ID").cmp(&b.attr("ID")));
    }
}

/// Several nodes in a place that holds one: a sequence marked as a body.
fn body_elements(mut nodes: Vec<Element>) -> Vec<Element> {
    if nodes.len() <= 1 {
        return nodes;
    }
    let mut seq = Element::new("Sequence").with(carry::BODY, "true");
    seq.children = nodes.drain(..).map(XmlNode::Element).collect();
    vec![seq]
}

fn is_inferred(item: &Item) -> bool {
    item.attrs.iter().any(|a| a.name.name == carry::INFERRED)
}

fn item_name(item: &Item) -> Option<&str> {
    match &item.kind {
        ItemKind::Leaf(l) => Some(&l.name.name),
        ItemKind::Tree(t) => Some(&t.name.name),
        _ => None,
    }
}
