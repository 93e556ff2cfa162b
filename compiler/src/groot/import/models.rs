//! `<TreeNodesModel>`: model entries become declarations (`action`, `tree` signatures, ...).

use super::super::carry::{self};
use super::super::element;
use super::super::kept;
use super::super::vocab;
use super::super::xml::{Element, XmlNode};
use super::*;
use crate::btcpp::model::{self};
use crate::span::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// Keeps a model entry as written on its declaration (`#[xml]`, see `kept`) when the export
/// would write it otherwise; `lead` doc lines are the XML comments before the entry.
fn keep_entry(e: &Element, item: &mut Item, lead: usize) {
    let mut bare = item.clone();
    if let Some(d) = &mut bare.doc {
        d.lines.drain(..lead.min(d.lines.len()));
        if d.lines.is_empty() {
            bare.doc = None;
        }
    }
    let generated = match &bare.kind {
        ItemKind::Leaf(_) => element::entry::leaf_model(&bare),
        _ => element::entry::subtree_model(&bare, true),
    };
    if !generated.is_some_and(|g| kept::spelled_alike(&g, e, true)) {
        item.attrs.push(kept::attr(kept::XML, kept::fragment(e)));
    }
}

impl Reader {
    pub(crate) fn models(&mut self, list: &Element) -> Vec<ModelEntry> {
        let mut out: Vec<ModelEntry> = Vec::new();
        // Where each ID's first entry is (a search of `out` per entry was n²).
        let mut first: HashMap<String, Span> = HashMap::new();
        let lead: Vec<String> = std::mem::take(&mut self.models_lead);
        let mut docs = lead.clone();
        for child in &list.children {
            let e = match child {
                XmlNode::Element(e) => e,
                XmlNode::Comment(c, _) => {
                    docs.extend(super::super::comments::lines(c));
                    continue;
                }
                _ => continue,
            };
            if e.attr(carry::NODE).is_some() {
                continue; // the exporter's own node (`cpp/affect_bt.hpp`), not a declaration
            }
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
            if let Some(&prev) = first.get(id) {
                self.warn(
                    "W0402",
                    format!("`{id}` has a second model entry; it is ignored"),
                    e.name_span,
                );
                self.amend(|d| d.with_secondary(prev, "the first entry"));
                continue;
            }
            let lead = comment_docs.len();
            let natural = self.model_item(e, kind, id, comment_docs);
            let item = match e.attribute(carry::AFFECT) {
                Some(a) => match carry::parse_item(&a.value) {
                    Some(mut shadow) if self.model_shadow_holds(&shadow, e) => {
                        crate::syntax::spans::item(&mut shadow, &mut self.carried_place(a, 0));
                        shadow
                    }
                    _ => {
                        let span = a.name_span;
                        self.warn("W0404", format!("the `_affect` text of model `{id}` no longer matches it; it is ignored"), span);
                        self.amend(|d| d.with_note("the entry was edited after the export; its attributes are read instead"));
                        natural
                    }
                },
                None => {
                    let mut item = natural;
                    keep_entry(e, &mut item, lead);
                    item
                }
            };
            first.insert(id.to_string(), e.name_span);
            out.push(ModelEntry {
                id: id.to_string(),
                item,
                inferred: e.attr(carry::INFERRED_XML) == Some("true"),
            });
        }
        if out.is_empty() {
            // No entry to carry the comments before `<TreeNodesModel>`: the first tree does.
            self.models_lead = lead;
        }
        out
    }

    pub(super) fn model_shadow_holds(&self, shadow: &Item, el: &Element) -> bool {
        let regenerated = match &shadow.kind {
            ItemKind::Leaf(_) => element::entry::leaf_model(shadow),
            ItemKind::Tree(_) => element::entry::subtree_model(shadow, true),
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

    pub(super) fn model_item(
        &mut self,
        e: &Element,
        kind: Option<LeafKind>,
        id: &str,
        comment_docs: Vec<String>,
    ) -> Item {
        let mut ports = Vec::with_capacity(e.children.len());
        // Groot 2's `<MetadataFields><Metadata k="v"/>..`: `#[metadata:k = "v"]`, in order.
        let mut metadata: Vec<Attr> = Vec::new();
        // XML comments before a port ride on its doc, spelled as comments.
        let mut comments: Vec<String> = Vec::new();
        for child in &e.children {
            let p = match child {
                XmlNode::Element(p) => p,
                XmlNode::Comment(c, _) => {
                    comments.extend(super::super::comments::lines(c));
                    continue;
                }
                _ => continue,
            };
            let dir = match p.name.as_str() {
                "input_port" => PortDir::In,
                "output_port" => PortDir::Out,
                "inout_port" => PortDir::InOut,
                // nav2's spelling, not BehaviorTree.CPP's: the same as inout.
                "bidirectional_port" => PortDir::InOut,
                "MetadataFields" => {
                    for m in p.elements().filter(|m| m.name == "Metadata") {
                        for a in &m.attrs {
                            metadata.push(attr(
                                &format!("{}{}", vocab::METADATA_PREFIX, a.name),
                                &a.value,
                            ));
                        }
                    }
                    continue;
                }
                "description" => continue,
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
            ports.extend(self.model_port(p, dir, &mut comments));
        }
        let mut doc = comment_docs;
        let mut attrs = Vec::new();
        for a in &e.attrs {
            match a.name.as_str() {
                "ID" | carry::AFFECT | carry::INFERRED_XML => {}
                "_description" => doc.extend(description_lines(&a.value)),
                _ => attrs.push(attr_of(a)),
            }
        }
        attrs.extend(metadata);
        let name = ident(id);
        let kind_ = match kind {
            Some(k) => ItemKind::Leaf(LeafDecl {
                kind: k,
                name,
                ports: ports.into(),
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
                    ports: ports.into(),
                    locals: vec![],
                    body: NodeBlock {
                        nodes: vec![],
                        span: Span::DUMMY,
                    },
                })
            }
        };
        let mut item = Item {
            doc: node_doc(doc),
            attrs,
            kind: kind_,
            span: e.span,
        };
        let place = &mut crate::syntax::spans::fill(e.name_span);
        match &mut item.kind {
            ItemKind::Leaf(LeafDecl { name, .. }) | ItemKind::Tree(TreeDecl { name, .. }) => {
                name.span = e.attribute("ID").map_or(e.name_span, |a| a.value_span);
            }
            _ => {}
        }
        crate::syntax::spans::item(&mut item, place);
        item
    }

    /// A model entry's port element as a declaration (`None`, with a diagnostic, when it
    /// cannot be one); it takes `comments`, the XML comments before it.
    fn model_port(
        &mut self,
        p: &Element,
        dir: PortDir,
        comments: &mut Vec<String>,
    ) -> Option<PortDecl> {
        let Some(name_attr) = p.attribute("name") else {
            self.error(
                "E0416",
                format!("`<{}>` without `name`", p.name),
                p.name_span,
            );
            self.amend(|d| d.with_label("every port needs a name"));
            return None;
        };
        if !self.spellable(&name_attr.value, name_attr.value_span, "port name") {
            return None;
        }
        let name = name_attr.value.as_str();
        let mut ty = p.attr("type").map(model::type_from_cpp);
        let default =
            p.attr("default").map(
                |v| match model::blackboard_key(v).and_then(model::key_expr) {
                    Some(e) => e,
                    None => model::literal(v, model::value_kind(ty.as_ref())),
                },
            );
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
        let mut doc = std::mem::take(comments);
        doc.extend(doc_lines_keep(&desc));
        use crate::syntax::spans;
        let at = |name: &str| p.attribute(name).map_or(p.name_span, |a| a.value_span);
        if let Some(t) = &mut ty {
            spans::ty(t, &mut spans::fill(at("type")));
        }
        let mut port = PortDecl {
            doc: node_doc(doc).map(Box::new),
            dir,
            name: Ident::new(name, name_attr.value_span),
            ty,
            default: default.map(|mut d| {
                spans::expr(&mut d, &mut spans::fill(at("default")));
                Box::new(d)
            }),
            span: p.span,
        };
        spans::port(&mut port, &mut spans::fill(p.name_span));
        Some(port)
    }
}
