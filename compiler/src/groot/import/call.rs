//! Calls: BehaviorTree.CPP built-ins by their IDs and ports, SubTrees with their remappings, and
//! custom nodes (declared, or inferred from their use).

use super::super::carry::{self};
use super::super::vocab;
use super::super::xml::{Attribute, Element};
use super::super::{Dialect, PortsByName};
use super::*;
use crate::btcpp::model::{self, ValueKind};
use crate::btcpp::script;
use crate::builtins::{self, ArgType, Builtin};
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::token::{NumLit, Unit};

impl Reader {
    pub(super) fn builtin(
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
                (Some(x), Some(v)) => args.push((x.name, *a, v)),
                _ => attrs.push(attr_of(a)),
            }
        }
        // `retry(3)`, `timeout(2s)`, `skip_unless_updated(place)`: a lone argument reads best
        // without its name (a flag or a status keeps it: `run_once(then_skip: false)`).
        let positional = b.args.len() == 1
            && !matches!(b.args[0].ty, ArgType::Bool | ArgType::Status)
            && args.len() == 1;
        let arg_list: Vec<Arg> = args
            .into_iter()
            .map(|(n, a, v)| {
                let mut arg = named_arg(a, v);
                match &mut arg.name {
                    Some(_) if positional => arg.name = None,
                    Some(name) => name.name = n.to_string(),
                    None => {}
                }
                arg
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

    pub(super) fn builtin_value(&mut self, a: &Attribute, port: &str, ty: ArgType) -> Option<Expr> {
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

    pub(super) fn subtree(
        &mut self,
        el: &Element,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> NodeKind {
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
            self.unknown
                .note(id, LeafKind::Action, true, &[], el.name_span);
        }
        let ports = self.scope.trees.get(id).cloned().unwrap_or_default();
        let ports = PortsByName::new(&ports);
        let mut args = Vec::new();
        let mut rest_flag = false;
        for a in rest {
            if !autoremap.is_empty() && a.name == autoremap && a.value == "true" && !rest_flag {
                rest_flag = true;
                continue;
            }
            if a.name.starts_with('_') {
                attrs.push(attr_of(a));
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
                    // A literal on an `out`/`inout` port stays as written (see `custom`).
                    None if ports.get(&a.name).is_some_and(|p| p.dir != PortDir::In) => None,
                    None => {
                        let kind =
                            model::value_kind(ports.get(&a.name).and_then(|p| p.ty.as_ref()));
                        Some(model::literal(&a.value, kind))
                    }
                }
            };
            match value {
                Some(v) => args.push(named_arg(a, v)),
                None => attrs.push(attr_of(a)),
            }
        }
        let plus = el.name == "SubTreePlus";
        let kind = call(id, Some(args), rest_flag, None);
        if plus && self.dialect == Dialect::V3 {
            if let NodeKind::Call { args: Some(a), .. } = &kind {
                if vocab::v3_plain_subtree(a, false, false) {
                    attrs.push(Attr {
                        name: ident(vocab::SUBTREE_PLUS),
                        value: None,
                        span: Span::DUMMY,
                    });
                }
            }
        }
        kind
    }

    pub(super) fn custom(
        &mut self,
        el: &Element,
        id: &str,
        explicit_tag: Option<&str>,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> NodeKind {
        let sig = self.scope.leaves.get(id).cloned();
        let ports = sig.as_ref().map(|s| PortsByName::new(&s.ports));
        let raw_builtin = vocab::is_bt_builtin(id, self.dialect);
        let mut args = Vec::with_capacity(rest.len());
        // Only a node nothing declares is noted with its ports (the exporter's read-back of a
        // declared call with 200,000 ports copied every name for nothing).
        let note_ports = sig.is_none() && !raw_builtin;
        let mut unknown_ports = Vec::new();
        for a in rest {
            // In v4 attributes that cannot be ports are metadata; in v3 every attribute but
            // `name` and `ID` is a port.
            let is_port = match self.dialect {
                Dialect::V4 => super::super::names::is_port_attr(&a.name),
                Dialect::V3 => !a.name.starts_with('_'),
            };
            if !is_port {
                attrs.push(attr_of(a));
                continue;
            }
            let port = ports.as_ref().and_then(|ps| ps.get(&a.name));
            let ty = port.and_then(|p| p.ty.as_ref());
            // A literal on an `out`/`inout` port: BehaviorTree.CPP loads it (the node's write
            // then fails), affect has no such argument; it stays as written on the node.
            if port.is_some_and(|p| p.dir != PortDir::In)
                && model::blackboard_key(&a.value).is_none()
            {
                attrs.push(attr_of(a));
                continue;
            }
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
                    if note_ports {
                        let key = model::blackboard_key(&a.value).is_some();
                        unknown_ports.push((a.name.clone(), key));
                    }
                    args.push(named_arg(a, v));
                }
                None => attrs.push(attr_of(a)),
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
        if note_ports {
            self.unknown
                .note(id, kind, false, &unknown_ports, el.name_span);
        }
        // A node in the other form than its tree's custom nodes (a mixed tree) says its own.
        let compact = explicit_tag.is_none();
        if !raw_builtin
            && compact != vocab::writes_compact(self.form, self.dialect)
            && (compact || super::super::names::is_xml_name(id))
        {
            let marker = if compact {
                vocab::COMPACT
            } else {
                vocab::EXPLICIT
            };
            attrs.push(Attr {
                name: ident(marker),
                value: None,
                span: Span::DUMMY,
            });
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
