//! Model entries: `<Action ID=..>` and friends with their ports, and `<SubTree ID=..>` models.

use super::super::carry;
use super::super::names;
use super::super::vocab;
use super::super::xml::{Element, XmlNode};
use crate::btcpp::model;
use crate::btcpp::script::{self};
use crate::span::Span;
use crate::syntax::ast::*;

pub(crate) fn kind_tag(k: LeafKind) -> &'static str {
    match k {
        LeafKind::Action => "Action",
        LeafKind::Condition => "Condition",
        LeafKind::Control => "Control",
        LeafKind::Decorator => "Decorator",
    }
}

/// The XML text of an `#[name = value]` attribute.
pub(crate) fn attr_value(a: &Attr) -> String {
    match &a.value {
        None => String::new(),
        Some(Expr {
            kind: ExprKind::Str(s),
            ..
        }) => s.clone(),
        Some(e) => crate::fmt::format_expr(e),
    }
}

// ------------------------------------------------------------------------------ models

/// The text of a port default.
pub(crate) fn default_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(p) if p.segments.len() == 1 => format!("{{{}}}", p.segments[0].name),
        ExprKind::Root(id) => format!("{{@{}}}", id.name),
        ExprKind::Str(s) => s.clone(),
        ExprKind::Num(n) => script::number_text(n),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Unary(UnOp::Neg, x) => match &x.kind {
            ExprKind::Num(n) => format!("-{}", script::number_text(n)),
            _ => crate::fmt::format_expr(e),
        },
        ExprKind::Name(p) => p.last().name.clone(),
        _ => crate::fmt::format_expr(e),
    }
}

/// A port of a model entry: the XML comments its doc starts with, then its element.
fn port_nodes(p: &PortDecl) -> Vec<XmlNode> {
    let Some(doc) = &p.doc else {
        return vec![XmlNode::Element(port_element(p))];
    };
    let (comments, rest) = super::super::comments::leading(&doc.lines);
    let mut nodes: Vec<XmlNode> = comments
        .into_iter()
        .map(|c| XmlNode::Comment(c, Span::DUMMY))
        .collect();
    let mut described = p.clone();
    described.doc = (!rest.is_empty()).then(|| {
        Box::new(Doc {
            lines: rest,
            span: doc.span,
        })
    });
    nodes.push(XmlNode::Element(port_element(&described)));
    nodes
}

pub(crate) fn port_element(p: &PortDecl) -> Element {
    let tag = match p.dir {
        PortDir::In => "input_port",
        PortDir::Out => "output_port",
        PortDir::InOut => "inout_port",
    };
    let mut el = Element::new(tag).with("name", names::xml_port(&p.name.name));
    if let Some(t) = p.ty.as_ref().and_then(model::type_to_cpp) {
        el.set("type", t);
    }
    if let Some(d) = &p.default {
        el.set("default", default_text(d));
    }
    if let Some(doc) = &p.doc {
        el.children
            .push(XmlNode::Text(doc.lines.join("\n"), Span::DUMMY));
    }
    el
}

pub(crate) fn is_reserved_item_attr(a: &Attr) -> bool {
    a.name.name == carry::INFERRED
        || a.name.name == carry::MODEL
        || a.name.name == vocab::COMPACT
        || a.name.name == vocab::EXPLICIT
        || a.name.name == vocab::UNNAMED
        || vocab::root_attr_name(&a.name.name).is_some()
        || a.name.name.starts_with(vocab::METADATA_PREFIX)
        || super::super::kept::is_kept(&a.name.name)
}

/// `<MetadataFields>` from the declaration's `#[metadata:k = "v"]` attributes, if any.
fn metadata_fields(item: &Item) -> Option<XmlNode> {
    let fields: Vec<XmlNode> = item
        .attrs
        .iter()
        .filter_map(|a| {
            let key = a.name.name.strip_prefix(vocab::METADATA_PREFIX)?;
            Some(XmlNode::Element(
                Element::new("Metadata").with(key, attr_value(a)),
            ))
        })
        .collect();
    (!fields.is_empty()).then(|| {
        let mut el = Element::new("MetadataFields");
        el.children = fields;
        XmlNode::Element(el)
    })
}

/// The `<TreeNodesModel>` entry of one of affect's own built-ins (`Builtin::own`), from its
/// row, marked `_affect_node` so the import skips it (the node is the built-in).
pub(crate) fn builtin_model(b: &crate::builtins::Builtin) -> Element {
    use crate::builtins::ArgType;
    let mut el = Element::new(b.class.xml_tag())
        .with("ID", b.v4.or(b.v3).unwrap_or(b.name))
        .with(carry::NODE, "true")
        .with("_description", b.summary);
    for a in b.args {
        let mut p = Element::new("input_port").with("name", a.port);
        let ty = match a.ty {
            ArgType::Int => Some("int"),
            ArgType::Bool => Some("bool"),
            // BehaviorTree.CPP's own timers (Timeout, Delay) read milliseconds so.
            ArgType::Duration => Some("unsigned int"),
            ArgType::Status => Some("BT::NodeStatus"),
            ArgType::Condition | ArgType::Str => Some("std::string"),
            ArgType::Variable | ArgType::Any => None,
        };
        if let Some(t) = ty {
            p.set("type", t);
        }
        if let Some(d) = a.default {
            p.set("default", d);
        }
        el.children.push(XmlNode::Element(p));
    }
    el
}

/// The `<TreeNodesModel>` entry of a leaf declaration.
pub(crate) fn leaf_model(item: &Item) -> Option<Element> {
    let ItemKind::Leaf(l) = &item.kind else {
        return None;
    };
    let mut el = Element::new(kind_tag(l.kind)).with("ID", &l.name.name);
    el.set_all(
        item.attrs
            .iter()
            .filter(|a| !is_reserved_item_attr(a))
            .map(|a| (a.name.name.as_str(), attr_value(a))),
    );
    if let Some(d) = &item.doc {
        el.set("_description", d.lines.join("\n"));
    }
    el.children = l.ports.iter().flat_map(port_nodes).collect();
    el.children.extend(metadata_fields(item));
    Some(el)
}

/// The `<SubTree>` model entry of a tree: written when the tree has ports, carries
/// `#[model]`, or has no body (`external`: the model is all the XML has of it).
pub(crate) fn subtree_model(item: &Item, external: bool) -> Option<Element> {
    let ItemKind::Tree(t) = &item.kind else {
        return None;
    };
    let marked = item.attrs.iter().any(|a| a.name.name == carry::MODEL);
    if t.ports.is_empty() && !marked && !external {
        return None;
    }
    let mut el = Element::new("SubTree").with("ID", &t.name.name);
    if external {
        el.set_all(
            item.attrs
                .iter()
                .filter(|a| !is_reserved_item_attr(a))
                .map(|a| (a.name.name.as_str(), attr_value(a))),
        );
        if let Some(d) = &item.doc {
            el.set("_description", d.lines.join("\n"));
        }
    }
    el.children = t.ports.iter().flat_map(port_nodes).collect();
    if external {
        el.children.extend(metadata_fields(item));
    }
    Some(el)
}

pub(crate) fn has_body(t: &TreeDecl) -> bool {
    !t.body.nodes.is_empty() || !t.locals.is_empty()
}
