//! `<BehaviorTree>`: a tree (or an agent, with its carried head) and the children of elements.

use super::super::carry::{self};
use super::super::element;
use super::super::infer::{self};
use super::super::kept;
use super::super::vocab;
use super::super::xml::{Element, XmlNode};
use super::*;
use crate::span::Span;
use crate::syntax::ast::*;

/// The valueless markers of a tree's head: `#[model]` (an empty `<SubTree>` model entry),
/// `#[unnamed]` (no `ID`), and the form of its custom nodes when it is not the dialect's usual
/// one.
fn markers(
    bt: &Element,
    id: &str,
    models: Option<&Element>,
    form: Option<&'static str>,
) -> Vec<Attr> {
    let has_empty_model = models.is_some_and(|m| {
        m.elements().any(|e| {
            e.name == "SubTree"
                && e.attr("ID") == Some(id)
                && e.elements().all(|p| !p.name.ends_with("_port"))
        })
    });
    let unnamed = bt.attribute("ID").is_none() && id == vocab::UNNAMED_TREE;
    [
        has_empty_model.then_some(carry::MODEL),
        unnamed.then_some(vocab::UNNAMED),
        form,
    ]
    .into_iter()
    .flatten()
    .map(|name| Attr {
        name: ident(name),
        value: None,
        span: Span::DUMMY,
    })
    .collect()
}

impl Reader {
    pub(super) fn tree(
        &mut self,
        bt: &Element,
        id: &str,
        comment_docs: Vec<String>,
        is_main: bool,
        main_attr: Option<&str>,
        models: Option<&Element>,
    ) -> Item {
        let (nodes, form) = self.tree_nodes(bt, id);
        let shadow = bt.attribute(carry::AFFECT).and_then(|a| {
            let item = self.carried_item(a);
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
            return self.place_tree(bt, item);
        }

        let mut doc = comment_docs;
        let mut attrs = Vec::new();
        for a in &bt.attrs {
            match a.name.as_str() {
                "ID" | carry::AFFECT => {}
                "_description" => doc.extend(description_lines(&a.value)),
                _ => attrs.push(attr_of(a)),
            }
        }
        attrs.extend(markers(bt, id, models, form));
        let ports = self.scope.trees.get(id).cloned().unwrap_or_default();
        let locals = infer::locals(&nodes, &ports, &self.scope);
        let mut item = Item {
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
        };
        if kept::spelled_otherwise(bt) {
            item.attrs.push(kept::attr(kept::XML, kept::start_tag(bt)));
        }
        // The tree's `<SubTree>` model entry as written, when the export would write it
        // otherwise (Groot 2's `<MetadataFields>`, attributes, elements it does not model).
        let entry = models.and_then(|m| {
            m.elements()
                .find(|e| e.name == "SubTree" && e.attr("ID") == Some(id))
        });
        if let Some(entry) = entry {
            let generated = element::entry::subtree_model(&item, false);
            if !generated.is_some_and(|g| kept::spelled_alike(&g, entry, true)) {
                item.attrs
                    .push(kept::attr(kept::XML_MODEL, kept::fragment(entry)));
            }
        }
        self.place_tree(bt, item)
    }

    /// The nodes of a `<BehaviorTree>`: its one root node (a marked body sequence's nodes),
    /// the comments before it as its doc, without the exporter's initialisation of `var`s and
    /// an agent's generated arbiter; and the form marker of its custom nodes.
    fn tree_nodes(&mut self, bt: &Element, id: &str) -> (Vec<Node>, Option<&'static str>) {
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
                XmlNode::Comment(t, _) => pre_docs.extend(super::super::comments::lines(t)),
                XmlNode::Element(_) => break,
                _ => {}
            }
        }
        let form = vocab::tree_form(bt, self.dialect);
        self.form = form;
        // An agent's `let`s are written out in its nodes: regenerating a node's carried text
        // needs them (`Scope::push_lets`).
        let agent_members = bt
            .attribute(carry::AFFECT)
            .and_then(|a| self.carried_item(a))
            .and_then(|i| match i.kind {
                ItemKind::Agent(a) => a.members,
                _ => None,
            })
            .unwrap_or_default();
        let saved = self.scope.push_lets(&agent_members);
        let mut nodes = match body_el.first() {
            None => vec![],
            // An agent's behaviour modules, generated from its carried text.
            Some(el) if generated(el) => vec![],
            Some(el) if is_body_sequence(el) => self.children(el),
            Some(el) => vec![self.node(el, pre_docs)],
        };
        self.form = None;
        self.scope.pop_lets(saved);
        // The exporter's initialisation of `var`s is part of the declarations, not the tree.
        if nodes.first().is_some_and(is_init_placeholder) {
            nodes.remove(0);
        }

        (nodes, form)
    }

    /// A declaration's carried `.affect` text (`_affect`) read, placed where it is in the file.
    pub(super) fn carried_item(&self, a: &xml::Attribute) -> Option<Item> {
        let mut item = carry::parse_item(&a.value)?;
        crate::syntax::spans::item(&mut item, &mut self.carried_place(a, 0));
        Some(item)
    }

    /// Places a tree read from `<BehaviorTree>`: its name at its `ID`, the rest its reading
    /// left unplaced (inferred variables, the body's braces) at the element's name. The
    /// nodes were placed as they were read.
    fn place_tree(&self, bt: &Element, mut item: Item) -> Item {
        if item.span == Span::DUMMY {
            item.span = bt.span;
        }
        if let ItemKind::Tree(t) = &mut item.kind {
            if t.name.span == Span::DUMMY {
                t.name.span = bt.attribute("ID").map_or(bt.name_span, |a| a.value_span);
            }
        }
        crate::syntax::spans::item(&mut item, &mut crate::syntax::spans::fill(bt.name_span));
        item
    }

    pub(super) fn subtree_model_holds(&self, shadow: &Item, models: Option<&Element>) -> bool {
        let ItemKind::Tree(t) = &shadow.kind else {
            return true;
        };
        let actual = models.and_then(|m| {
            m.elements()
                .find(|e| e.name == "SubTree" && e.attr("ID") == Some(&t.name.name))
        });
        let expected = element::entry::subtree_model(shadow, false);
        match (actual, expected) {
            (None, None) => true,
            (Some(a), Some(e)) => same_element(&e, a),
            _ => false,
        }
    }

    // ------------------------------------------------------------------------ nodes

    /// The child nodes of an element, with comments before a child as its doc.
    pub(crate) fn children(&mut self, el: &Element) -> Vec<Node> {
        use super::super::comments::{lines_at, Place};
        // Room for every child element at once: a node is large, and growing by doubling
        // copied each list's nodes several times.
        let mut out: Vec<Node> = Vec::with_capacity(
            el.children
                .iter()
                .filter(|c| matches!(c, XmlNode::Element(_)))
                .count(),
        );
        let mut pending: Vec<&str> = Vec::new();
        let carried = |texts: &[&str], place| -> Vec<String> {
            texts.iter().flat_map(|t| lines_at(t, place)).collect()
        };
        let mut prev: Option<Span> = None;
        for c in &el.children {
            match c {
                // `<Node/> <!-- about it -->`: a comment on the line of the node before it.
                XmlNode::Comment(t, span)
                    if !self.shallow && prev.is_some_and(|p| self.same_line(p, *span)) =>
                {
                    if let Some(last) = out.last_mut() {
                        let lines = lines_at(t, Place::After);
                        if !lines.is_empty() {
                            last.doc
                                .get_or_insert_with(Doc::default)
                                .lines
                                .extend(lines);
                        }
                    }
                }
                XmlNode::Comment(t, _) => pending.push(t),
                // A pad fills a switch case BehaviorTree.CPP needs; it is not a node of ours.
                XmlNode::Element(e) if e.attr(carry::PAD) == Some("true") => {}
                XmlNode::Element(e) => {
                    let d = carried(&std::mem::take(&mut pending), Place::Here);
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
        // Comments after the last node go back after it.
        if let (Some(last), false) = (out.last_mut(), pending.is_empty()) {
            last.doc
                .get_or_insert_with(Doc::default)
                .lines
                .extend(carried(&pending, Place::After));
        }
        out
    }

    /// Children of a decorator-like element whose body may be a marked sequence of several
    /// nodes (a `for` body).
    pub(super) fn body_children(&mut self, el: &Element) -> Vec<Node> {
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
}

/// The exporter's arbiter of an agent's modules (`_affect_node`), alone or after the
/// initialisation of the agent's state.
fn generated(el: &Element) -> bool {
    el.attr(carry::NODE).is_some()
        || (is_body_sequence(el) && el.elements().any(|c| c.attr(carry::NODE).is_some()))
}
