//! Behaviour modules (seed 004) as BehaviorTree.CPP nodes. An agent without `main` whose
//! modules run is written as a tree whose root is the arbiter `<AffectBehaviors>`, each module
//! an `<AffectModule>` over its trees and child modules, in the source's order. The C++ side
//! of both is `cpp/affect_bt.hpp`; their `<TreeNodesModel>` entries (marked `_affect_node`)
//! let Groot show them and the import skip them: the agent itself travels in `_affect`.

use super::super::carry;
use super::super::xml::{Element, XmlNode};
use super::Exporter;
use crate::span::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;

pub(super) const ARBITER: &str = "AffectBehaviors";
pub(super) const MODULE: &str = "AffectModule";

/// Every behaviour module a name can mean: the agent's, the file's top-level ones and every
/// nested one (a module has one place in the tree, E0202, so names do not clash).
fn modules_by_name<'a>(
    file: &'a File,
    members: &'a [Member],
) -> HashMap<&'a str, &'a BehaviorDecl> {
    fn add<'a>(d: &'a BehaviorDecl, out: &mut HashMap<&'a str, &'a BehaviorDecl>) {
        out.entry(d.name.name.as_str()).or_insert(d);
        for e in &d.body.entries {
            if let SettingEntry::Behavior(b, _) = e {
                add(b, out);
            }
        }
    }
    let mut out = HashMap::new();
    for m in members {
        if let MemberKind::Behavior(d) = &m.kind {
            add(d, &mut out);
        }
    }
    for item in &file.items {
        if let ItemKind::Behavior(d) = &item.kind {
            add(d, &mut out);
        }
    }
    out
}

/// Whether the agent's modules run: it has a `behaviors` block or modules of its own.
pub(super) fn has_modules(a: &AgentDecl) -> bool {
    a.members
        .iter()
        .flatten()
        .any(|m| matches!(m.kind, MemberKind::Behavior(_) | MemberKind::Behaviors(_)))
}

/// The settings of a block by key (the first of each).
fn setting<'a>(block: &'a SettingBlock, key: &str) -> Option<&'a Setting> {
    block.entries.iter().find_map(|e| match e {
        SettingEntry::Setting(s) if s.key.name == key => Some(s),
        _ => None,
    })
}

/// The name a child or `main(..)` names: `Kick`, `Kick()`, `Kick(x: 1)`.
fn target(e: &Expr) -> Option<(&Path, Option<&ArgList>)> {
    match &e.kind {
        ExprKind::Name(p) => Some((p, None)),
        ExprKind::Call(f, args) => match &f.kind {
            ExprKind::Name(p) => Some((p, Some(args))),
            _ => None,
        },
        _ => None,
    }
}

/// The model entries of the nodes `cpp/affect_bt.hpp` registers: the arbiter, the module,
/// and the queue initialisers of the agent's state (`tree.rs`).
pub(super) fn models() -> Vec<Element> {
    let port = |name: &str, ty: &str, default: &str, doc: &str| {
        let mut p = Element::new("input_port")
            .with("name", name)
            .with("type", ty)
            .with("default", default);
        p.children.push(XmlNode::Text(doc.to_string(), Span::DUMMY));
        XmlNode::Element(p)
    };
    let mut arbiter = Element::new("Control")
        .with("ID", ARBITER)
        .with(carry::NODE, "true");
    arbiter.children = vec![
        port(
            "policy",
            "std::string",
            "parallel",
            "the policy among the top modules",
        ),
        port("inhibition", "double", "0", "lateral inhibition, 0..1"),
    ];
    let mut module = Element::new("Control")
        .with("ID", MODULE)
        .with(carry::NODE, "true");
    module.children = vec![
        port("motivation", "std::string", "0", "Mv: a script"),
        port("satisfaction", "std::string", "0", "S: a script"),
        port("expected", "std::string", "0", "dS: a script"),
        port("alpha", "double", "0.5", "weight of dS against S + dS"),
        port(
            "beta",
            "double",
            "0.5",
            "weight of Mv against the releasing value",
        ),
        port("keys", "std::string", "", "execution keys, `;`-separated"),
        port(
            "policy",
            "std::string",
            "parallel",
            "parallel, simultaneous or main",
        ),
        port("main", "std::string", "", "the main child, for policy main"),
    ];
    let mut out = vec![arbiter, module];
    for (id, ty) in [
        ("AffectQueueBool", "bool"),
        ("AffectQueueDouble", "double"),
        ("AffectQueueInt", "int"),
        ("AffectQueueString", "std::string"),
    ] {
        let mut q = Element::new("Action")
            .with("ID", id)
            .with(carry::NODE, "true");
        let mut out_port = Element::new("output_port")
            .with("name", "queue")
            .with("type", format!("std::shared_ptr<std::deque<{ty}>>"));
        out_port.children.push(XmlNode::Text(
            "the list a loop pops, as the agent starts it".into(),
            Span::DUMMY,
        ));
        q.children = vec![
            XmlNode::Element(out_port),
            port("items", "std::string", "", "its elements, `;`-separated"),
        ];
        out.push(q);
    }
    out
}

impl Exporter {
    /// The arbiter of an agent's modules: its `behaviors` block, else its own modules
    /// (`parallel`, no inhibition).
    pub(super) fn arbiter(&mut self, file: &File, members: &[Member]) -> Element {
        let by_name = modules_by_name(file, members);
        let saved = self.scope.push_lets(members);
        let mut el = Element::new(ARBITER).with(carry::NODE, "true");
        let block = members.iter().find_map(|m| match &m.kind {
            MemberKind::Behaviors(b) => Some(b),
            _ => None,
        });
        let top: Vec<&BehaviorDecl> = match block {
            Some(b) => {
                if let Some(p) = setting(b, "policy").and_then(|s| s.args.first()) {
                    el.set("policy", crate::fmt::format_expr(p));
                }
                if let Some(i) = setting(b, "inhibition").and_then(|s| s.args.first()) {
                    let v = self.heads().value(i, false);
                    el.set("inhibition", v);
                }
                setting(b, "modules")
                    .map(|s| {
                        s.args
                            .iter()
                            .filter_map(|a| {
                                target(a)
                                    .and_then(|(p, _)| by_name.get(p.last().name.as_str()).copied())
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            }
            None => members
                .iter()
                .filter_map(|m| match &m.kind {
                    MemberKind::Behavior(d) => Some(d),
                    _ => None,
                })
                .collect(),
        };
        for d in top {
            let m = self.module(d, &by_name);
            el.children.push(XmlNode::Element(m));
        }
        self.scope.pop_lets(saved);
        el
    }

    fn module(&mut self, d: &BehaviorDecl, by_name: &HashMap<&str, &BehaviorDecl>) -> Element {
        let mut el = Element::new(MODULE).with("name", &d.name.name);
        for key in ["motivation", "satisfaction", "expected"] {
            if let Some(e) = setting(&d.body, key).and_then(|s| s.args.first()) {
                let code = self.heads().script_expr(e);
                el.set(key, code);
            }
        }
        for key in ["alpha", "beta"] {
            if let Some(e) = setting(&d.body, key).and_then(|s| s.args.first()) {
                let v = self.heads().value(e, false);
                el.set(key, v);
            }
        }
        if let Some(s) = setting(&d.body, "keys") {
            let keys: Vec<String> = s.args.iter().map(crate::fmt::format_expr).collect();
            el.set("keys", keys.join(";"));
        }
        if let Some(p) = setting(&d.body, "policy").and_then(|s| s.args.first()) {
            match target(p) {
                Some((name, Some(args))) if name.last().name == "main" => {
                    el.set("policy", "main");
                    if let Some(a) = args.args.first().and_then(|a| target(&a.value)) {
                        el.set("main", &a.0.last().name);
                    }
                }
                _ => el.set("policy", crate::fmt::format_expr(p)),
            }
        }
        let run = setting(&d.body, "run").and_then(|s| s.args.first());
        let children = setting(&d.body, "children")
            .map(|s| s.args.as_slice())
            .unwrap_or(&[]);
        for c in run.into_iter().chain(children) {
            let Some((path, args)) = target(c) else {
                continue;
            };
            let child = match by_name.get(path.last().name.as_str()) {
                Some(m) if args.is_none() && path.segments.len() == 1 => self.module(m, by_name),
                _ => self.node(&Node {
                    doc: None,
                    attrs: Vec::new(),
                    label: None,
                    kind: NodeKind::Call {
                        name: path.clone(),
                        args: args.cloned(),
                        children: None,
                    },
                    modifiers: Vec::new(),
                    span: c.span,
                }),
            };
            el.children.push(XmlNode::Element(child));
        }
        el
    }
}

#[cfg(test)]
mod tests {
    use crate::groot::{export, Dialect};

    const SRC: &str = "tree T { succeed }\nagent A {\n    let keen = 2 > 1;\n    behavior M {\n        expected keen ? 3 : 0;\n        keys legs;\n        run T;\n    }\n}\n";

    #[test]
    fn an_agent_of_modules_is_a_main_tree_of_the_arbiter_in_v4_only() {
        let file = crate::syntax::parse(SRC).file;
        let v4 = export(&file, Dialect::V4).xml;
        assert!(v4.contains(r#"main_tree_to_execute="A""#), "{v4}");
        assert!(
            v4.contains(r#"<AffectModule name="M" expected="(2 &gt; 1) ? 3 : 0" keys="legs">"#),
            "{v4}"
        );
        assert!(
            v4.contains(r#"<Control ID="AffectBehaviors" _affect_node="true">"#),
            "{v4}"
        );
        let v3 = export(&file, Dialect::V3).xml;
        assert!(!v3.contains("main_tree_to_execute"), "{v3}");
        assert!(!v3.contains("Affect"), "{v3}");
    }
}
