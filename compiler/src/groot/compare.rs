//! Semantic equality of two Groot / BehaviorTree.CPP documents: the same trees, nodes, ports
//! and attribute values, remappings and models, ignoring what BehaviorTree.CPP ignores or
//! what only spells the same thing differently:
//! - attribute order, whitespace, comments, the XML declaration;
//! - compact vs explicit form (`<Action ID="X">` = `<X>`);
//! - v3 SubTree spellings: `<SubTree port="key">` (bare remap) = `<SubTreePlus port="{key}">`,
//!   `__autoremap` on SubTreePlus;
//! - `{=}` = `{port}`, spaces inside braces;
//! - scripts compared by their meaning as affect reads them (`:=` = `=`, quotes, generated
//!   parentheses: `a := (b * 2) + 1` = `a = b*2+1`);
//! - `bidirectional_port` = `inout_port` (nav2's spelling);
//! - the main tree: `main_tree_to_execute`, or the only tree; an ID-less only tree;
//! - the metadata this toolchain writes (`_affect`, `_affect_body`, `_affect_init`,
//!   `_inferred`), and a `_description` the second document adds where the first had an XML
//!   comment before the element (the importer turns comments into doc comments).

use super::carry;
use super::names::PRE_POST as SCRIPT_ATTRS;
use super::xml::{self, Element, XmlNode};
use crate::btcpp::script;
use std::collections::BTreeMap;

#[derive(Debug, PartialEq)]
struct Doc {
    v4: bool,
    main: Option<String>,
    includes: Vec<BTreeMap<String, String>>,
    trees: BTreeMap<String, Node>,
    models: BTreeMap<String, Model>,
}

#[derive(Debug, PartialEq, Clone)]
struct Node {
    id: String,
    attrs: BTreeMap<String, String>,
    /// Preceded by an XML comment (a `_description` may stand for it).
    commented: bool,
    children: Vec<Node>,
}

#[derive(Debug, PartialEq)]
struct Model {
    tag: String,
    attrs: BTreeMap<String, String>,
    commented: bool,
    ports: BTreeMap<String, (String, BTreeMap<String, String>, String)>,
}

const OURS: &[&str] = &[carry::AFFECT, carry::BODY, carry::INIT, carry::INFERRED_XML];

/// A script by its meaning: the affect text it reads as, or the text itself if it does not.
fn script_meaning(s: &str) -> String {
    match script::parse(s)
        .map_err(|_| ())
        .and_then(|raw| script::block(&raw).map_err(|_| ()))
    {
        Ok(b) => b
            .stmts
            .iter()
            .map(script::stmt_text)
            .collect::<Vec<_>>()
            .join("; "),
        Err(()) => s.to_string(),
    }
}

fn ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn normal_value(port: &str, v: &str) -> String {
    match crate::btcpp::model::blackboard_key(v) {
        Some("=") => format!("{{{port}}}"),
        Some(k) => format!("{{{k}}}"),
        None => v.to_string(),
    }
}

/// Whether two values of attribute `attr` of a node `id` mean the same, by the rules above
/// (scripts by their meaning, `{=}` as `{port}`); instance names and `_` attributes by text.
pub(crate) fn same_value(id: &str, attr: &str, a: &str, b: &str, v4: bool) -> bool {
    if a == b {
        return true;
    }
    let script = v4
        && ((matches!(id, "Script" | "ScriptCondition") && attr == "code")
            || SCRIPT_ATTRS.contains(&attr)
            || (id == "Precondition" && attr == "if"));
    if script {
        return script_meaning(a) == script_meaning(b);
    }
    if attr == "name" || attr.starts_with('_') {
        return false;
    }
    // A literal queue's pieces: BehaviorTree.CPP drops an empty last one (`a;b;`).
    if id.starts_with("Loop") && attr == "queue" {
        let pieces = |v: &str| {
            let v = v.strip_suffix(';').unwrap_or(v);
            v.split(';').map(str::to_string).collect::<Vec<_>>()
        };
        if model_key(a).is_none() && model_key(b).is_none() && pieces(a) == pieces(b) {
            return true;
        }
    }
    normal_value(attr, a) == normal_value(attr, b)
}

fn model_key(v: &str) -> Option<&str> {
    crate::btcpp::model::blackboard_key(v)
}

fn node(el: &Element, v4: bool, commented: bool) -> Node {
    let (mut id, explicit) = match el.name.as_str() {
        "Action" | "Condition" | "Control" | "Decorator" => {
            (el.attr("ID").unwrap_or("").to_string(), true)
        }
        other => (other.to_string(), false),
    };
    let mut attrs = BTreeMap::new();
    let subtree = el.name == "SubTree" || el.name == "SubTreePlus";
    let bare = !v4 && el.name == "SubTree";
    let script_node = v4 && matches!(id.as_str(), "Script" | "ScriptCondition");
    for a in &el.attrs {
        let n = a.name.as_str();
        if OURS.contains(&n) || (explicit && n == "ID") {
            continue;
        }
        let v = if subtree && n == "ID" {
            a.value.clone()
        } else if subtree && (n == "__autoremap" || n == "_autoremap") {
            attrs.insert("autoremap".to_string(), a.value.clone());
            continue;
        } else if (script_node && n == "code")
            || (v4 && (SCRIPT_ATTRS.contains(&n) || (id == "Precondition" && n == "if")))
        {
            script_meaning(&a.value)
        } else if bare && n != "name" && !n.starts_with('_') {
            format!("{{{}}}", a.value)
        } else if n == "name" || n.starts_with('_') {
            a.value.clone()
        } else {
            normal_value(n, &a.value)
        };
        attrs.insert(n.to_string(), v);
    }
    if subtree {
        id = "SubTree".into();
    }
    let mut children: Vec<Node> = Vec::new();
    let mut pending_comment = false;
    for c in &el.children {
        match c {
            XmlNode::Comment(..) => {
                pending_comment = true;
                // A comment after a node may document it too (`<Node/> <!-- about it -->`).
                if let Some(last) = children.last_mut() {
                    last.commented = true;
                }
            }
            XmlNode::Element(e) => {
                children.push(node(e, v4, pending_comment));
                pending_comment = false;
            }
            _ => {}
        }
    }
    Node {
        id,
        attrs,
        commented,
        children,
    }
}

fn model(el: &Element, commented: bool) -> Model {
    let attrs = el
        .attrs
        .iter()
        .filter(|a| a.name != "ID" && !OURS.contains(&a.name.as_str()))
        .map(|a| (a.name.clone(), a.value.clone()))
        .collect();
    let mut ports = BTreeMap::new();
    for p in el.elements() {
        let tag = match p.name.as_str() {
            "bidirectional_port" => "inout_port".to_string(),
            t if t.ends_with("_port") => t.to_string(),
            _ => continue,
        };
        let mut pa: BTreeMap<String, String> = p
            .attrs
            .iter()
            .filter(|a| a.name != "name")
            .map(|a| (a.name.clone(), a.value.clone()))
            .collect();
        let mut text = ws(&p.text());
        if text.is_empty() {
            if let Some(d) = pa.remove("description") {
                text = ws(&d);
            }
        }
        ports.insert(p.attr("name").unwrap_or("").to_string(), (tag, pa, text));
    }
    Model {
        tag: el.name.clone(),
        attrs,
        commented,
        ports,
    }
}

fn doc(text: &str) -> Result<Doc, String> {
    let parsed = xml::parse(text);
    if crate::diagnostic::has_errors(&parsed.diagnostics) {
        return Err(format!(
            "does not parse: {}",
            parsed
                .diagnostics
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let root = parsed.document.root().ok_or("no root element")?;
    let v4 = root.attr("BTCPP_format").map(str::trim) == Some("4");
    let mut d = Doc {
        v4,
        main: root.attr("main_tree_to_execute").map(str::to_string),
        includes: vec![],
        trees: BTreeMap::new(),
        models: BTreeMap::new(),
    };
    let mut pending_comment = false;
    for c in &root.children {
        let e = match c {
            XmlNode::Comment(..) => {
                pending_comment = true;
                continue;
            }
            XmlNode::Element(e) => e,
            _ => continue,
        };
        let commented = std::mem::take(&mut pending_comment);
        match e.name.as_str() {
            "include" => d.includes.push(
                e.attrs
                    .iter()
                    .map(|a| (a.name.clone(), a.value.clone()))
                    .collect(),
            ),
            "BehaviorTree" => {
                // An ID-less tree is the only one: it is the main tree, whatever it is called.
                let id = e.attr("ID").unwrap_or("").to_string();
                let mut attrs = BTreeMap::new();
                for a in &e.attrs {
                    if a.name != "ID" && !OURS.contains(&a.name.as_str()) {
                        attrs.insert(a.name.clone(), a.value.clone());
                    }
                }
                let mut children: Vec<Node> = Vec::new();
                let mut pc = false;
                for c in &e.children {
                    match c {
                        XmlNode::Comment(..) => {
                            pc = true;
                            if let Some(last) = children.last_mut() {
                                last.commented = true;
                            }
                        }
                        XmlNode::Element(n) => {
                            children.push(node(n, v4, pc));
                            pc = false;
                        }
                        _ => {}
                    }
                }
                d.trees.insert(
                    id.clone(),
                    Node {
                        id,
                        attrs,
                        commented,
                        children,
                    },
                );
            }
            "TreeNodesModel" => {
                let mut pc = false;
                for c in &e.children {
                    match c {
                        XmlNode::Comment(..) => pc = true,
                        XmlNode::Element(m) => {
                            d.models
                                .insert(m.attr("ID").unwrap_or("").to_string(), model(m, pc));
                            pc = false;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if d.main.is_none() && d.trees.len() == 1 {
        d.main = d.trees.keys().next().cloned();
    }
    // Comments before `<root>` may become the main tree's description.
    let prologue = parsed
        .document
        .nodes
        .iter()
        .take_while(|n| !matches!(n, XmlNode::Element(_)))
        .any(|n| matches!(n, XmlNode::Comment(..)));
    if prologue {
        if let Some(t) = d.main.as_ref().and_then(|m| d.trees.get_mut(m)) {
            t.commented = true;
        }
    }
    Ok(d)
}

/// Whether `b` says what `a` says; `Err` gives the first difference, as a path.
pub fn compare(a: &str, b: &str) -> Result<(), String> {
    let mut x = doc(a).map_err(|e| format!("first document {e}"))?;
    let mut y = doc(b).map_err(|e| format!("second document {e}"))?;
    if x.v4 != y.v4 {
        return Err(format!("dialect: {} vs {}", dialect(x.v4), dialect(y.v4)));
    }
    // An ID-less only tree matches the other document's only tree.
    if x.trees.len() == 1
        && y.trees.len() == 1
        && (x.trees.contains_key("") || y.trees.contains_key(""))
    {
        let mut tx = x.trees.pop_first().expect("one").1;
        let mut ty = y.trees.pop_first().expect("one").1;
        tx.id.clear();
        ty.id.clear();
        x.trees.insert(String::new(), tx);
        y.trees.insert(String::new(), ty);
        x.main = Some(String::new());
        y.main = Some(String::new());
    }
    if x.main != y.main {
        return Err(format!("main tree: {:?} vs {:?}", x.main, y.main));
    }
    if x.includes != y.includes {
        return Err(format!("includes: {:?} vs {:?}", x.includes, y.includes));
    }
    let keys = |m: &BTreeMap<String, Node>| m.keys().cloned().collect::<Vec<_>>();
    if keys(&x.trees) != keys(&y.trees) {
        return Err(format!(
            "trees: {:?} vs {:?}",
            keys(&x.trees),
            keys(&y.trees)
        ));
    }
    for (id, t) in &x.trees {
        same_node(t, &y.trees[id], &format!("tree {id}"))?;
    }
    let mk = |m: &BTreeMap<String, Model>| m.keys().cloned().collect::<Vec<_>>();
    if mk(&x.models) != mk(&y.models) {
        return Err(format!(
            "models: {:?} vs {:?}",
            mk(&x.models),
            mk(&y.models)
        ));
    }
    for (id, m) in &x.models {
        let n = &y.models[id];
        if m.tag != n.tag {
            return Err(format!("model {id}: <{}> vs <{}>", m.tag, n.tag));
        }
        same_attrs(&m.attrs, &n.attrs, m.commented, &format!("model {id}"))?;
        if m.ports != n.ports {
            return Err(format!("model {id}: ports {:?} vs {:?}", m.ports, n.ports));
        }
    }
    Ok(())
}

fn dialect(v4: bool) -> &'static str {
    if v4 {
        "v4"
    } else {
        "v3"
    }
}

fn same_attrs(
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
    commented: bool,
    at: &str,
) -> Result<(), String> {
    let mut b = b.clone();
    if commented && !a.contains_key("_description") {
        b.remove("_description");
    }
    if *a != b {
        return Err(format!("{at}: attributes {a:?} vs {b:?}"));
    }
    Ok(())
}

fn same_node(a: &Node, b: &Node, at: &str) -> Result<(), String> {
    if a.id != b.id {
        return Err(format!("{at}: node {} vs {}", a.id, b.id));
    }
    let here = format!("{at}/{}", a.attrs.get("name").unwrap_or(&a.id));
    same_attrs(&a.attrs, &b.attrs, a.commented, &here)?;
    if a.children.len() != b.children.len() {
        return Err(format!(
            "{here}: {} children vs {}",
            a.children.len(),
            b.children.len()
        ));
    }
    for (i, (x, y)) in a.children.iter().zip(&b.children).enumerate() {
        same_node(x, y, &format!("{here}[{i}]"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_modulo_spelling() {
        let a = r#"<root main_tree_to_execute="M"><!-- c --><BehaviorTree ID="M"><Sequence><Action ID="A" x="{k}"/><SubTree ID="S" p="key"/></Sequence></BehaviorTree></root>"#;
        let b = r#"<?xml version="1.0"?><root main_tree_to_execute="M"><BehaviorTree ID="M" _description="c"><Sequence><A x="{ k }"/><SubTreePlus ID="S" p="{key}"/></Sequence></BehaviorTree></root>"#;
        assert_eq!(compare(a, b), Ok(()));
        let c = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Script code="a:=(b*2)+1"/></BehaviorTree></root>"#;
        let d = r#"<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><Script code="a = b * 2 + 1"/></BehaviorTree></root>"#;
        assert_eq!(compare(c, d), Ok(()));
        let e = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Script code="a:=1"/></BehaviorTree></root>"#;
        assert!(compare(c, e).is_err());
    }
}
