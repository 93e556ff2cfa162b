//! `affect convert`: BehaviorTree.CPP 3 XML ↔ 4 XML, element by element, keeping everything
//! else (comments, order, unknown attributes) as it is. Towards v4, explicit-form nodes
//! (`<Action ID="X">`) become compact (`<X>`), as BehaviorTree.CPP 4 writes them: 4.8 refuses
//! explicit-form children of `ReactiveSequence`/`ReactiveFallback` ("Unknown node type").
//!
//! Compared with BehaviorTree.CPP's own `convert_v3_to_v4.py`:
//! - `SequenceStar` becomes `SequenceWithMemory` in the explicit form too (the script writes
//!   the old name back into `ID`);
//! - a v3 `<SubTree>` wraps only its remappings in braces, never `name`, `ID` or
//!   `__shared_blackboard` (which becomes `_autoremap`, with a warning: a shared blackboard
//!   has no exact v4 equivalent);
//! - `Parallel`'s `success_threshold`/`failure_threshold` (and 3.0–3.5's `threshold`) become
//!   `success_count`/`failure_count`;
//! - `BlackboardCheckInt/Double/String/Bool` become `Precondition` with a script;
//! - `<TreeNodesModel>` entries are converted too.
//!
//! The other direction refuses what v3 cannot run (scripts, pre/post conditions, v4-only nodes)
//! with a diagnostic at each place.

use super::names::PRE_POST;
use super::xml::{self, Attribute, Element, XmlNode};
use super::Dialect;
use crate::diagnostic::{has_errors, Diagnostic};
use crate::span::Span;

#[derive(Debug)]
pub struct Converted {
    pub xml: String,
    /// Spans are byte offsets into the input text.
    pub diagnostics: Vec<Diagnostic>,
    /// The dialect the input was written in.
    pub from: Dialect,
}

/// The renames between the dialects: node IDs (v3, v4), and ports of a node (node, v3, v4).
/// Public so that what checks the converter (the generator of `tests/groot_generated.rs`)
/// reads the same table.
pub const NODE_RENAMES: &[(&str, &str)] = &[("SequenceStar", "SequenceWithMemory")];
pub const PORT_RENAMES: &[(&str, &str, &str)] = &[
    ("Parallel", "success_threshold", "success_count"),
    ("Parallel", "failure_threshold", "failure_count"),
];

/// Built-ins of BehaviorTree.CPP 4 that 3.x does not have.
pub const V4_ONLY: &[&str] = &[
    "Script",
    "ScriptCondition",
    "Precondition",
    "Sleep",
    "RunOnce",
    "UnsetBlackboard",
    "ParallelAll",
    "AsyncSequence",
    "AsyncFallback",
    "LoopInt",
    "LoopBool",
    "LoopDouble",
    "LoopString",
    "WasEntryUpdated",
    "SkipUnlessUpdated",
    "WaitValueUpdate",
    "TryCatch",
];

pub fn convert(text: &str, to: Dialect) -> Converted {
    let parsed = xml::parse(text);
    let mut c = Converter {
        diags: parsed.diagnostics,
        to,
    };
    let mut doc = parsed.document;
    let mut from = Dialect::V3;
    if !has_errors(&c.diags) {
        match doc.root_mut() {
            Some(root) if root.name == "root" => {
                from = match root.attr("BTCPP_format").map(str::trim) {
                    Some("4") => Dialect::V4,
                    _ => Dialect::V3,
                };
                if from == to {
                    c.diags.push(
                        Diagnostic::warning(
                            "W0461",
                            format!("the file is already BehaviorTree.CPP {}", to.name()),
                            root.name_span,
                        )
                        .with_label("nothing to convert"),
                    );
                } else {
                    c.root(root);
                }
            }
            Some(root) => {
                let span = root.name_span;
                let name = root.name.clone();
                c.diags.push(
                    Diagnostic::error(
                        "E0407",
                        format!("the root element is `<{name}>`, not `<root>`"),
                        span,
                    )
                    .with_label("not a BehaviorTree.CPP file"),
                );
            }
            None => {}
        }
    }
    c.diags
        .sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    Converted {
        xml: xml::write(&doc),
        diagnostics: c.diags,
        from,
    }
}

/// A node ID's spelling in `to`, where the dialects spell it differently.
fn renamed(id: &str, to: Dialect) -> Option<&'static str> {
    NODE_RENAMES.iter().find_map(|(v3, v4)| match to {
        Dialect::V4 => (*v3 == id).then_some(*v4),
        Dialect::V3 => (*v4 == id).then_some(*v3),
    })
}

/// A port's name in `to`, where the dialects name it differently (3.0–3.5's Parallel
/// `threshold` is the v4 `success_count` too).
fn renamed_port(node: &str, port: &str, to: Dialect) -> Option<&'static str> {
    if to == Dialect::V4 && node == "Parallel" && port == "threshold" {
        return Some("success_count");
    }
    PORT_RENAMES.iter().find_map(|(n, v3, v4)| match to {
        _ if *n != node => None,
        Dialect::V4 => (*v3 == port).then_some(*v4),
        Dialect::V3 => (*v4 == port).then_some(*v3),
    })
}

/// Renames `el`'s ports that the dialects name differently.
fn rename_ports(el: &mut Element, node: &str, to: Dialect) {
    for a in &mut el.attrs {
        if let Some(new) = renamed_port(node, &a.name, to) {
            a.name = new.to_string();
        }
    }
}

struct Converter {
    diags: Vec<Diagnostic>,
    to: Dialect,
}

fn rename_attr(el: &mut Element, from: &str, to: &str) {
    if let Some(a) = el.attrs.iter_mut().find(|a| a.name == from) {
        a.name = to.to_string();
    }
}

/// The node ID an element stands for, and whether it is written in the explicit form.
fn node_id(el: &Element) -> (String, bool) {
    match el.name.as_str() {
        "Action" | "Condition" | "Control" | "Decorator" => {
            (el.attr("ID").unwrap_or("").to_string(), true)
        }
        other => (other.to_string(), false),
    }
}

fn set_id(el: &mut Element, explicit: bool, id: &str) {
    if explicit {
        el.set("ID", id);
    } else {
        el.name = id.to_string();
    }
}

/// A port value as a script operand: `{key}` → `key`, a literal → a literal.
fn operand(value: &str, string: bool) -> Option<String> {
    if let Some(key) = crate::btcpp::model::blackboard_key(value) {
        return crate::btcpp::script::is_script_ident(key.trim_start_matches('@'))
            .then(|| key.to_string());
    }
    if !string
        && crate::btcpp::script::parse(value)
            .is_ok_and(|s| matches!(s.as_slice(), [crate::btcpp::script::Raw::Num(_)]))
    {
        return Some(value.to_string());
    }
    if !string && (value == "true" || value == "false") {
        return Some(value.to_string());
    }
    (!value.contains('\'')).then(|| format!("'{value}'"))
}

impl Converter {
    fn root(&mut self, root: &mut Element) {
        match self.to {
            Dialect::V4 => {
                root.remove("BTCPP_format");
                root.attrs.insert(
                    0,
                    Attribute {
                        name: "BTCPP_format".into(),
                        value: "4".into(),
                        ..Attribute::default()
                    },
                );
            }
            Dialect::V3 => {
                root.remove("BTCPP_format");
            }
        }
        for child in root.elements_mut() {
            match child.name.as_str() {
                "BehaviorTree" => {
                    for n in child.elements_mut() {
                        self.node(n);
                    }
                }
                "TreeNodesModel" => {
                    let mut kept = Vec::new();
                    for n in child.children.drain(..) {
                        match n {
                            XmlNode::Element(mut e) => {
                                if self.model(&mut e) {
                                    kept.push(XmlNode::Element(e));
                                }
                            }
                            other => kept.push(other),
                        }
                    }
                    child.children = kept;
                }
                _ => {}
            }
        }
    }

    /// Converts a model entry; `false` drops it (it describes a node the target lacks).
    fn model(&mut self, e: &mut Element) -> bool {
        let Some(id) = e.attr("ID").map(str::to_string) else {
            return true;
        };
        if let Some(to) = renamed(&id, self.to) {
            e.set("ID", to);
        }
        match (self.to, id.as_str()) {
            (Dialect::V4, b) if b.starts_with("BlackboardCheck") => return false,
            (Dialect::V3, v4) if V4_ONLY.contains(&v4) => return false,
            _ => {}
        }
        for p in e.elements_mut() {
            let name = p.attr("name").unwrap_or_default().to_string();
            if let Some(to) = renamed_port(&id, &name, self.to) {
                p.set("name", to);
            }
        }
        true
    }

    fn node(&mut self, el: &mut Element) {
        match self.to {
            Dialect::V4 => self.node_v4(el),
            Dialect::V3 => self.node_v3(el),
        }
        for c in el.elements_mut() {
            self.node(c);
        }
    }

    fn node_v4(&mut self, el: &mut Element) {
        let (id, explicit) = node_id(el);
        // BehaviorTree.CPP 4 writes the compact form, and 4.8 refuses explicit-form children of
        // ReactiveSequence/ReactiveFallback ("Unknown node type: Action").
        if explicit && super::names::is_xml_name(&id) {
            el.remove("ID");
            el.name = id.clone();
        }
        let explicit = explicit && el.name != id;
        if let Some(to) = renamed(&id, Dialect::V4) {
            set_id(el, explicit, to);
        }
        rename_ports(el, &id, Dialect::V4);
        match id.as_str() {
            "SubTreePlus" => {
                el.name = "SubTree".into();
                rename_attr(el, "__autoremap", "_autoremap");
            }
            "SubTree" => {
                // v3 remaps with bare keys; v4 needs braces, and only remappings get them.
                let mut shared = None;
                for a in &mut el.attrs {
                    match a.name.as_str() {
                        "ID" | "name" => {}
                        "__shared_blackboard" => shared = Some((a.value.clone(), a.name_span)),
                        n if n.starts_with('_') => {}
                        _ => {
                            if crate::btcpp::model::blackboard_key(&a.value).is_none()
                                && !a.value.is_empty()
                            {
                                a.value = format!("{{{}}}", a.value);
                            }
                        }
                    }
                }
                if let Some((value, span)) = shared {
                    el.remove("__shared_blackboard");
                    if value == "true" {
                        el.set("_autoremap", "true");
                        self.diags.push(
                            Diagnostic::warning("W0461", "`__shared_blackboard` becomes `_autoremap`", span)
                                .with_label("v4 has no shared blackboard for a subtree")
                                .with_note("with `_autoremap` the subtree reads and writes the parent's entries of the same name, except those starting with `_`; entries it creates stay its own"),
                        );
                    }
                }
            }
            b if b.starts_with("BlackboardCheck") => self.blackboard_check(el, b, explicit),
            _ => {}
        }
    }

    fn blackboard_check(&mut self, el: &mut Element, id: &str, explicit: bool) {
        let string = id == "BlackboardCheckString";
        let a = el.attr("value_A").unwrap_or("").to_string();
        let b = el.attr("value_B").unwrap_or("").to_string();
        let (Some(x), Some(y)) = (operand(&a, string), operand(&b, string)) else {
            let span = el.name_span;
            self.diags.push(
                Diagnostic::error(
                    "E0461",
                    format!("`{id}` cannot be written as a script"),
                    span,
                )
                .with_label("a value holds a `'`, which v4 scripts cannot quote")
                .with_help("replace the node by hand with `<Precondition if=\"...\">`"),
            );
            return;
        };
        let mismatch = el.attr("return_on_mismatch").unwrap_or("").to_string();
        let mut pre = Element::new(if explicit {
            "Decorator"
        } else {
            "Precondition"
        });
        pre.span = el.span;
        pre.name_span = el.name_span;
        if explicit {
            pre.set("ID", "Precondition");
        }
        if let Some(n) = el.attr("name") {
            pre.set("name", n);
        }
        pre.set("if", format!("{x} == {y}"));
        if !mismatch.is_empty() {
            pre.set("else", mismatch);
        }
        for a in &el.attrs {
            if !matches!(
                a.name.as_str(),
                "ID" | "name" | "value_A" | "value_B" | "return_on_mismatch"
            ) {
                pre.set(&a.name, a.value.clone());
            }
        }
        pre.children = std::mem::take(&mut el.children);
        let span = el.name_span;
        self.diags.push(
            Diagnostic::warning("W0461", format!("`{id}` becomes `Precondition`"), span)
                .with_label("v4 has no BlackboardCheck")
                .with_note("BlackboardCheck re-compares on every tick and halts a running child on a mismatch; Precondition checks only when its child starts"),
        );
        *el = pre;
    }

    fn node_v3(&mut self, el: &mut Element) {
        let (id, explicit) = node_id(el);
        for a in &el.attrs {
            if PRE_POST.contains(&a.name.as_str()) {
                self.diags.push(
                    Diagnostic::error(
                        "E0461",
                        format!("`{}` needs BehaviorTree.CPP 4", a.name),
                        a.name_span,
                    )
                    .with_label("v3 has no pre/post-condition attributes")
                    .with_help("wrap the node in nodes v3 has, or keep the file in v4"),
                );
            }
        }
        if let Some(to) = renamed(&id, Dialect::V3) {
            set_id(el, explicit, to);
        }
        rename_ports(el, &id, Dialect::V3);
        match id.as_str() {
            // v4's default; v3 requires the port.
            "Parallel" if el.attr("success_threshold").is_none() => {
                el.set("success_threshold", "-1");
            }
            "SubTree" => {
                el.name = "SubTreePlus".into();
                rename_attr(el, "_autoremap", "__autoremap");
            }
            v4 if V4_ONLY.contains(&v4) => {
                let span = el.name_span;
                self.diags.push(
                    Diagnostic::error("E0461", format!("`{v4}` needs BehaviorTree.CPP 4"), span)
                        .with_label("not a v3 node")
                        .with_help(
                            "rewrite this part of the tree with v3 nodes, or keep the file in v4",
                        ),
                );
            }
            _ => {}
        }
    }
}

#[allow(dead_code)]
fn unused(_: Span) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v3_to_v4_fixes_the_script_bugs() {
        let src = r#"<root main_tree_to_execute="M">
  <BehaviorTree ID="M">
    <Sequence>
      <Control ID="SequenceStar" name="s"><AlwaysSuccess/></Control>
      <SubTree ID="X" name="inst" goal="target" __shared_blackboard="false"/>
      <Parallel success_threshold="2" failure_threshold="1"><AlwaysSuccess/><AlwaysSuccess/></Parallel>
      <BlackboardCheckInt value_A="{a}" value_B="3" return_on_mismatch="SUCCESS"><AlwaysSuccess/></BlackboardCheckInt>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel><Control ID="SequenceStar"/></TreeNodesModel>
</root>"#;
        let c = convert(src, Dialect::V4);
        assert!(!has_errors(&c.diagnostics), "{:?}", c.diagnostics);
        let x = &c.xml;
        assert!(
            x.contains("<root BTCPP_format=\"4\" main_tree_to_execute=\"M\">"),
            "{x}"
        );
        assert!(x.contains("<SequenceWithMemory name=\"s\">"), "{x}");
        assert!(
            x.contains("<SubTree ID=\"X\" name=\"inst\" goal=\"{target}\"/>"),
            "{x}"
        );
        assert!(x.contains("success_count=\"2\" failure_count=\"1\""), "{x}");
        assert!(
            x.contains("<Precondition if=\"a == 3\" else=\"SUCCESS\">"),
            "{x}"
        );
        assert!(x.contains("<Control ID=\"SequenceWithMemory\"/>"), "{x}");
    }

    #[test]
    fn v4_to_v3_refuses_scripts() {
        let src = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Script code="a := 1"/><SubTree ID="X" a="{b}" _autoremap="true"/></Sequence></BehaviorTree></root>"#;
        let c = convert(src, Dialect::V3);
        assert_eq!(c.diagnostics.iter().filter(|d| d.is_error()).count(), 1);
        assert!(c
            .xml
            .contains("<SubTreePlus ID=\"X\" a=\"{b}\" __autoremap=\"true\"/>"));
    }
}
