//! The document: `<root>`, its dialect, its children, the scope they make, and the order of the
//! declarations (the carried `_affect` order, else the default one).

use super::super::carry::{self, Entry, XmlItem};
use super::super::infer::{self};
use super::super::vocab;
use super::super::xml::{Attribute, Element, XmlNode};
use super::super::{Dialect, LeafSig};
use super::*;
use crate::diagnostic::has_errors;
use crate::span::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// The children of `<root>` by kind, each with the comments before it.
pub(super) struct RootParts<'a> {
    includes: Vec<(&'a Element, Vec<String>)>,
    trees: Vec<(&'a Element, Vec<String>)>,
    models: Option<&'a Element>,
}

impl Reader {
    pub(super) fn document(&mut self, root: &Element, name: &str, ctx: &mut Includes) -> File {
        let empty = File {
            items: vec![],
            span: Span::DUMMY,
        };
        let Some(dialect) = self.dialect_of(root) else {
            return empty;
        };
        self.dialect = dialect;
        let parts = self.root_parts(root);
        if has_errors(&self.diags) {
            return empty;
        }
        let tree_ids = self.tree_ids(&parts.trees, root.elements().count());
        // Models, then everything included, make up the scope.
        let model_entries = parts.models.map(|m| self.models(m)).unwrap_or_default();
        let model_order: Vec<(String, bool)> = model_entries
            .iter()
            .filter(|m| !m.inferred)
            .map(|m| (m.id.clone(), matches!(m.item.kind, ItemKind::Leaf(_))))
            .collect();
        for (el, _) in &parts.includes {
            self.include(el, name, ctx, "");
        }
        if has_errors(&self.diags) {
            return empty;
        }
        self.scope_of_models(&model_entries, &tree_ids);
        let carried = self.carried_root(root);
        let main_attr = self.main_tree(root, &tree_ids, !parts.includes.is_empty());
        let mut xml_items = self.xml_items(&parts, model_entries, &tree_ids, main_attr.as_deref());
        if !self.models_lead.is_empty() {
            let declaration = xml_items.iter().position(|(_, i)| {
                matches!(
                    i.kind,
                    ItemKind::Tree(_) | ItemKind::Agent(_) | ItemKind::Leaf(_)
                )
            });
            // A file of only `<include>`s (a Groot 2 project): on the last `use`.
            let at = declaration.or_else(|| {
                xml_items
                    .iter()
                    .rposition(|(_, i)| matches!(i.kind, ItemKind::Use(_)))
            });
            if let Some((_, item)) = at.map(|i| &mut xml_items[i]) {
                let mut lines = std::mem::take(&mut self.models_lead);
                lines.extend(item.doc.take().into_iter().flat_map(|d| d.lines));
                item.doc = node_doc(lines);
            }
        }
        let mut items = in_carried_order(carried, xml_items);
        root_attributes(root, &tree_ids, &mut items);
        self.transitive_uses(&mut items);
        if root.attr(carry::AFFECT).is_none() {
            let empty_list = parts.models.is_some_and(|m| m.elements().next().is_none());
            keep_model_order(&model_order, &tree_ids, empty_list, &mut items);
        }
        let mut file = File {
            items,
            span: root.span,
        };
        // What is left unplaced (the `use`s of files an included file includes, attributes
        // of `<root>` carried on a tree) is at `<root>`.
        crate::syntax::spans::file(&mut file, &mut crate::syntax::spans::fill(root.name_span));
        file
    }

    /// A `#[transitive] use` for each file an included file includes, after the file's own
    /// `use`s: BehaviorTree.CPP knows the trees of every file included on the way, affect
    /// those of the files a file `use`s itself. The export writes no `<include>` for them.
    fn transitive_uses(&mut self, items: &mut Vec<Item>) {
        let used = |items: &[Item], path: &str| {
            items.iter().any(|i| {
                matches!(&i.kind, ItemKind::Use(UseDecl { target: UseTarget::File(p, _) }) if p == path)
            })
        };
        let at = items
            .iter()
            .rposition(|i| matches!(i.kind, ItemKind::Use(_)))
            .map_or(0, |i| i + 1);
        let mut new = Vec::new();
        // `nested` stays: an included file's importer tells its includer what it includes.
        for path in self.nested.clone() {
            let affect_path = match path.strip_suffix(".xml") {
                Some(stem) => format!("{stem}.affect"),
                None => path,
            };
            if used(items, &affect_path) || used(&new, &affect_path) {
                continue;
            }
            new.push(Item {
                doc: None,
                attrs: vec![Attr {
                    name: ident(vocab::TRANSITIVE),
                    value: None,
                    span: Span::DUMMY,
                }],
                kind: ItemKind::Use(UseDecl {
                    target: UseTarget::File(affect_path, Span::DUMMY),
                }),
                span: Span::DUMMY,
            });
        }
        items.splice(at..at, new);
    }

    /// The dialect `BTCPP_format` names (none: v3); `None` for a document BehaviorTree.CPP
    /// refuses.
    fn dialect_of(&mut self, root: &Element) -> Option<Dialect> {
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
            return None;
        }
        let dialect = match root.attribute("BTCPP_format") {
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
                    return None;
                }
            },
        };

        Some(dialect)
    }

    fn root_parts<'a>(&mut self, root: &'a Element) -> RootParts<'a> {
        let mut includes: Vec<(&Element, Vec<String>)> = Vec::new();
        let mut trees: Vec<(&Element, Vec<String>)> = Vec::new();
        let mut models: Option<&Element> = None;
        let mut comments: Vec<&str> = Vec::new();
        for child in &root.children {
            match child {
                XmlNode::Comment(c, _) => comments.push(c),
                XmlNode::Element(e) => {
                    let texts = std::mem::take(&mut comments);
                    let carried = |place| {
                        let at = |c: &&str| super::super::comments::lines_at(c, place);
                        texts.iter().flat_map(at).collect::<Vec<String>>()
                    };
                    let docs = carried(super::super::comments::Place::Here);
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
                                self.models_lead = carried(super::super::comments::Place::Models);
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
        self.epilogue = comments
            .iter()
            .flat_map(|c| super::super::comments::lines_at(c, super::super::comments::Place::End))
            .collect();
        RootParts {
            includes,
            trees,
            models,
        }
    }

    /// Tree IDs: unique; an ID may be left out only when the tree is alone in `<root>`.
    fn tree_ids(&mut self, trees: &[(&Element, Vec<String>)], element_count: usize) -> Vec<String> {
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
                None if element_count == 1 => vocab::UNNAMED_TREE.to_string(),
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

        tree_ids
    }

    fn scope_of_models(&mut self, model_entries: &[ModelEntry], tree_ids: &[String]) {
        for m in model_entries {
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
        for id in tree_ids {
            self.scope.trees.entry(id.clone()).or_default();
        }
    }

    /// The carried declarations of `<root _affect>`, whose enums, constants and inferred
    /// declarations join the scope.
    fn carried_root(&mut self, root: &Element) -> Vec<Entry> {
        let carried = root
            .attribute(carry::AFFECT)
            .and_then(|a| match carry::read_root(&a.value) {
                Some(mut entries) => {
                    let place = &mut self.carried_place(a, 0);
                    for e in &mut entries {
                        if let Entry::Item(item) = e {
                            crate::syntax::spans::item(item, place);
                        }
                    }
                    Some(entries)
                }
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
                ItemKind::Const(c) => self.scope.add_const(&c.name.name, &c.value),
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

        carried
    }

    /// `main_tree_to_execute`, checked against the file's trees.
    fn main_tree(&mut self, root: &Element, tree_ids: &[String], includes: bool) -> Option<String> {
        let main_attr = root.attr("main_tree_to_execute").map(str::to_string);
        if let Some(main) = &main_attr {
            if !tree_ids.contains(main) && !includes {
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
        main_attr
    }

    /// The XML-held declarations, in the default order: includes, leaf models, inferred
    /// declarations, trees, tree signatures.
    fn xml_items(
        &mut self,
        parts: &RootParts,
        model_entries: Vec<ModelEntry>,
        tree_ids: &[String],
        main_attr: Option<&str>,
    ) -> Vec<(XmlItem, Item)> {
        let mut xml_items: Vec<(XmlItem, Item)> = Vec::new();
        for (el, docs) in &parts.includes {
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
        // Comments before `<TreeNodesModel>` whose first entry is the model of a tree defined
        // here: they ride on that tree (the entry is written from it).
        let mut models_lead: Vec<(String, Vec<String>)> = Vec::new();
        for mut m in model_entries {
            match &m.item.kind {
                ItemKind::Leaf(_) if !m.inferred => {
                    leaf_items.push((XmlItem::Leaf(m.id.clone()), m.item))
                }
                ItemKind::Tree(_) if !tree_ids.contains(&m.id) && !m.inferred => {
                    signature_items.push((XmlItem::Tree(m.id.clone()), m.item))
                }
                _ => {
                    if let Some(doc) = &mut m.item.doc {
                        let lead = super::super::comments::take_leading(
                            &mut doc.lines,
                            super::super::comments::Place::Models,
                        );
                        if !lead.is_empty() {
                            models_lead.push((m.id.clone(), lead));
                        }
                    }
                }
            }
        }
        let mut tree_items = Vec::new();
        for ((bt, docs), id) in parts.trees.iter().zip(tree_ids) {
            // Without `main_tree_to_execute` no tree is `main`: BehaviorTree.CPP runs the only
            // tree, as affect does, and the export then writes no attribute the file lacked.
            let is_main = main_attr == Some(id.as_str());
            let mut item = self.tree(bt, id, docs.clone(), is_main, main_attr, parts.models);
            if let Some(i) = models_lead.iter().position(|(t, _)| t == id) {
                let mut lines = models_lead.swap_remove(i).1;
                lines.extend(item.doc.take().into_iter().flat_map(|d| d.lines));
                item.doc = node_doc(lines);
            }
            let key = match &item.kind {
                ItemKind::Agent(_) => XmlItem::Agent(id.clone()),
                _ => XmlItem::Tree(id.clone()),
            };
            tree_items.push((key, item));
        }
        let inferred_items = self.inferred_items();
        xml_items.extend(leaf_items);
        xml_items.extend(inferred_items);
        xml_items.extend(tree_items);
        xml_items.extend(signature_items);

        if !self.prologue.is_empty() || !self.epilogue.is_empty() || !self.tail.is_empty() {
            // On the main tree, else the first tree (a file without `main_tree_to_execute`).
            let main = match xml_items
                .iter()
                .position(|(_, item)| matches!(&item.kind, ItemKind::Tree(t) if t.is_main))
            {
                Some(i) => Some(i),
                None => xml_items
                    .iter()
                    .position(|(_, item)| {
                        matches!(&item.kind, ItemKind::Tree(t) if !t.body.nodes.is_empty())
                            || matches!(item.kind, ItemKind::Agent(_))
                    })
                    // A file without trees (a Groot 2 project): the first model's declaration.
                    .or_else(|| {
                        xml_items.iter().position(|(_, item)| {
                            matches!(item.kind, ItemKind::Tree(_) | ItemKind::Leaf(_))
                        })
                    }),
            };
            if let Some((_, item)) = main.map(|i| &mut xml_items[i]) {
                // Before the tree's own doc: the file's comments come first.
                let mut doc = std::mem::take(&mut self.prologue);
                doc.extend(item.doc.take().into_iter().flat_map(|d| d.lines));
                doc.append(&mut self.epilogue);
                doc.append(&mut self.tail);
                item.doc = node_doc(doc);
            }
        }
        xml_items
    }

    /// Nodes without a model, met while reading the trees: inferred declarations.
    fn inferred_items(&mut self) -> Vec<(XmlItem, Item)> {
        let unknown = self.unknown.take();
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
                inferred_items.push((XmlItem::Tree(u.name.clone()), inferred(u)));
                continue;
            }
            if let Some(builtin) = near_builtin(&u.name, self.dialect) {
                // BehaviorTree.CPP refuses every ID nobody registered; a stand-in is right for
                // an application's own node, not for a misspelt built-in ("Sequnce").
                self.error(
                    "E0419",
                    format!("`{}` is not a node: a misspelt `{builtin}`?", u.name),
                    u.span,
                );
                let builtin = builtin.to_string();
                self.amend(|d| {
                    d.with_label("no built-in and no model has this name")
                        .with_help(format!("did you mean `{builtin}`?"))
                        .with_note(
                            "BehaviorTree.CPP refuses it (\"Node not recognized\"); a custom node \
                             named so close to a built-in needs a `<TreeNodesModel>` entry",
                        )
                });
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
            inferred_items.push((XmlItem::Leaf(u.name.clone()), inferred(u)));
        }
        inferred_items
    }
}

/// The declaration inferred for a node without a model, placed at its first use (an empty
/// span there: the use itself is the call's).
fn inferred(u: &infer::Unknown) -> Item {
    let mut item = infer::declaration(u);
    let at = Span::at(u.span.start as usize);
    crate::syntax::spans::item(&mut item, &mut crate::syntax::spans::fill(at));
    item
}

/// The built-in `name` misspells: one it differs from only in case, else the nearest within
/// two edits (Damerau–Levenshtein: `Sequnce`, `Fallbak`, `ReactiveSequnce`).
fn near_builtin(name: &str, dialect: Dialect) -> Option<&'static str> {
    let lower = name.to_lowercase();
    let ids = || vocab::bt_builtin_ids(dialect).filter(|b| *b != name);
    ids().find(|b| b.to_lowercase() == lower).or_else(|| {
        ids()
            .map(|b| (crate::suggest::edit_distance(name, b), b))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, b)| b)
    })
}

/// The declarations in the order the carried text gives, the others after them in the
/// default order.
fn in_carried_order(carried: Vec<Entry>, xml_items: Vec<(XmlItem, Item)>) -> Vec<Item> {
    let at: HashMap<&XmlItem, usize> = xml_items
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k, i))
        .rev()
        .collect();
    let mut items = Vec::new();
    let mut used = vec![false; xml_items.len()];
    for e in carried {
        match e {
            Entry::Item(item) => items.push(item),
            Entry::Xml(key) => {
                if let Some(&i) = at.get(&key) {
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
    items
}

/// The order of `<TreeNodesModel>`'s entries, kept on the first tree (`#[xml_models]`, see
/// `kept`) when the export would write them in another: it writes node models in declaration
/// order, then those of the trees in the order of their `<BehaviorTree>`s, then tree
/// signatures, all sorted by ID when each group is (`export::order_models`).
/// An empty `<TreeNodesModel>` (`empty_list`) is kept too, as an empty order.
fn keep_model_order(
    source: &[(String, bool)],
    tree_ids: &[String],
    empty_list: bool,
    items: &mut [Item],
) {
    let leaves = source.iter().filter(|(_, leaf)| *leaf).map(|(id, _)| id);
    let with_body = tree_ids
        .iter()
        .filter(|t| source.iter().any(|(id, leaf)| !leaf && id == *t));
    let signatures = source
        .iter()
        .filter(|(id, leaf)| !leaf && !tree_ids.contains(id))
        .map(|(id, _)| id);
    let mut written: Vec<&String> = leaves.chain(with_body).chain(signatures).collect();
    let sorted = |leaf: bool| {
        let ids: Vec<&String> = written
            .iter()
            .filter(|id| source.iter().any(|(s, l)| s == **id && *l == leaf))
            .copied()
            .collect();
        ids.windows(2).all(|w| w[0] <= w[1])
    };
    if sorted(true) && sorted(false) {
        written.sort();
    }
    if written.iter().copied().eq(source.iter().map(|(id, _)| id)) && !empty_list {
        return;
    }
    let order: Vec<&str> = source.iter().map(|(id, _)| id.as_str()).collect();
    let first = match items
        .iter()
        .position(|i| matches!(i.kind, ItemKind::Tree(_) | ItemKind::Agent(_)))
    {
        Some(i) => Some(i),
        // A file of only `<include>`s: on its last `use`.
        None => items
            .iter()
            .rposition(|i| matches!(i.kind, ItemKind::Use(_))),
    };
    if let Some(first) = first.map(|i| &mut items[i]) {
        first.attrs.push(super::super::kept::attr(
            super::super::kept::XML_MODELS,
            order.join("\n"),
        ));
    }
}

/// Attributes of `<root>` that are neither the format nor the main tree travel on the first
/// tree, else the first declaration (as `root:name`).
fn root_attributes(root: &Element, tree_ids: &[String], items: &mut [Item]) {
    // `main_tree_to_execute` naming no tree of this file (one an included file defines, or
    // none) travels as written: the checker looks for it in the whole program.
    let main_here = root
        .attr("main_tree_to_execute")
        .is_some_and(|m| tree_ids.iter().any(|t| t == m));
    let extra: Vec<&Attribute> = root
        .attrs
        .iter()
        .filter(|a| match a.name.as_str() {
            "main_tree_to_execute" => !main_here,
            name => !matches!(name, "BTCPP_format" | carry::AFFECT | carry::ENUMS),
        })
        .collect();
    if !extra.is_empty() {
        // A file without trees (a Groot 2 `.btproj`: includes and models) keeps them on its
        // first declaration: every declaration's `root:` attributes go back to `<root>`.
        let tree = items
            .iter()
            .position(|i| matches!(i.kind, ItemKind::Tree(_) | ItemKind::Agent(_)));
        if let Some(first) = tree
            .or((!items.is_empty()).then_some(0))
            .map(|i| &mut items[i])
        {
            for a in extra {
                let mut kept = attr(&format!("{}{}", vocab::ROOT_PREFIX, a.name), &a.value);
                // At the value in the XML, for the checker's diagnostics about it.
                if let Some(v) = kept.value.as_mut() {
                    v.span = a.value_span;
                }
                first.attrs.push(kept);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_near_a_builtin_are_misspellings() {
        let v4 = Dialect::V4;
        assert_eq!(near_builtin("Sequnce", v4), Some("Sequence"));
        assert_eq!(near_builtin("sequence", v4), Some("Sequence"));
        assert_eq!(
            near_builtin("REACTIVEFALLBACK", v4),
            Some("ReactiveFallback")
        );
        assert_eq!(near_builtin("Fallbcak", v4), Some("Fallback"));
        assert_eq!(
            near_builtin("RetryUntilSucessfull", v4),
            Some("RetryUntilSuccessful")
        );
        // Navigation2's own nodes, which its trees use without models, are not.
        for nav2 in [
            "RecoveryNode",
            "PipelineSequence",
            "RateController",
            "RoundRobin",
        ] {
            assert_eq!(near_builtin(nav2, v4), None, "{nav2}");
        }
        assert_eq!(near_builtin("Sequence", v4), None);
        // Each dialect's own names: v3's SequenceStar, v4's Script.
        assert_eq!(
            near_builtin("SequenceStr", Dialect::V3),
            Some("SequenceStar")
        );
        assert_eq!(near_builtin("Scrip", v4), Some("Script"));
    }

    #[test]
    fn a_misspelt_builtin_is_refused_unless_modelled() {
        let tree = |models: &str| {
            format!(
                r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequnce><AlwaysSuccess/><AlwaysSuccess/></Sequnce></BehaviorTree>{models}</root>"#
            )
        };
        let refused = crate::groot::import_str(&tree(""));
        let e = refused.diagnostics.iter().find(|d| d.code == "E0419");
        let e = e.expect("E0419");
        assert_eq!(e.help.as_deref(), Some("did you mean `Sequence`?"));
        let modelled = tree(r#"<TreeNodesModel><Control ID="Sequnce"/></TreeNodesModel>"#);
        let accepted = crate::groot::import_str(&modelled);
        assert!(!accepted.has_errors(), "{:?}", accepted.diagnostics);
    }
}
