//! Node heads: the element of one node without its children.

use super::super::carry;
use super::super::names;
use super::super::vocab;
use super::super::xml::{self, Element};
use super::super::Dialect;
use super::entry::{attr_value, kind_tag};
use super::*;
use crate::builtins::{self, Builtin};
use crate::span::Span;
use crate::syntax::ast::*;

impl Heads<'_> {
    /// The element of a node, without children.
    pub(crate) fn head(&mut self, n: &Node) -> Element {
        let mut el = match &n.kind {
            NodeKind::Call {
                name,
                args,
                children,
            } => self.call(n, name, args.as_ref(), children.as_ref()),
            NodeKind::Script(b) => {
                self.v4_only("a script (`do { .. }`)", n.span);
                let code = self.script_block(b);
                Element::new(builtins::SCRIPT_ID).with("code", code)
            }
            NodeKind::Check(e) => {
                self.v4_only("a script condition (`check`)", n.span);
                let code = self.script_expr(e);
                Element::new(builtins::SCRIPT_CONDITION_ID).with("code", code)
            }
            NodeKind::Switch { subject, arms } => self.switch(subject, arms, n.span),
            NodeKind::For { var, queue, .. } => {
                self.v4_only("a loop (`for`)", n.span);
                let id = self.loop_id(Some(queue), Some(&var.name));
                let q = self.value(queue, false);
                Element::new(id)
                    .with("queue", q)
                    .with("value", format!("{{{}}}", var.name))
            }
            NodeKind::Error => {
                self.error("E0454", "this node has a syntax error", n.span);
                Element::new("AlwaysFailure")
            }
        };
        // The instance name goes first (after an `ID`), as BehaviorTree.CPP writes it.
        if let Some(l) = &n.label {
            let at = usize::from(el.attrs.first().is_some_and(|a| a.name == "ID"));
            el.attrs.insert(
                at,
                xml::Attribute {
                    name: "name".into(),
                    value: l.text.clone(),
                    ..Default::default()
                },
            );
        }
        if let Some(d) = &n.doc {
            el.set("_description", d.lines.join("\n"));
        }
        el.set_all(
            n.attrs
                .iter()
                // Markers that choose the element, not attributes of it.
                .filter(|a| {
                    !matches!(
                        a.name.name.as_str(),
                        vocab::SUBTREE_PLUS | vocab::COMPACT | vocab::EXPLICIT
                    ) && !super::super::kept::is_kept(&a.name.name)
                })
                .map(|a| (a.name.name.as_str(), attr_value(a))),
        );
        for m in &n.modifiers {
            if self.dialect == Dialect::V3 {
                self.error(
                    "E0451",
                    format!("`{}` needs BehaviorTree.CPP 4", m.kind.keyword()),
                    m.span,
                );
                self.amend(|d| d.with_label("v3 has no pre/post-condition attributes"));
                continue;
            }
            let (attr, text) = match &m.kind {
                ModifierKind::SkipIf(e) => ("_skipIf", self.script_expr(e)),
                ModifierKind::SuccessIf(e) => ("_successIf", self.script_expr(e)),
                ModifierKind::FailureIf(e) => ("_failureIf", self.script_expr(e)),
                ModifierKind::While(e) => ("_while", self.script_expr(e)),
                ModifierKind::OnSuccess(b) => ("_onSuccess", self.script_block(b)),
                ModifierKind::OnFailure(b) => ("_onFailure", self.script_block(b)),
                ModifierKind::OnHalted(b) => ("_onHalted", self.script_block(b)),
                ModifierKind::After(b) => ("_post", self.script_block(b)),
            };
            el.set(attr, text);
        }
        el
    }

    pub(crate) fn v4_only(&mut self, what: &str, span: Span) {
        if self.dialect == Dialect::V3 {
            self.error("E0451", format!("{what} needs BehaviorTree.CPP 4"), span);
            self.amend(|d| {
                d.with_label("not available in BehaviorTree.CPP 3 / Groot 1")
                    .with_help("export with `--emit groot` (v4), or rewrite it with v3 nodes")
            });
        }
    }

    pub(crate) fn call(
        &mut self,
        n: &Node,
        name: &Path,
        args: Option<&ArgList>,
        children: Option<&NodeBlock>,
    ) -> Element {
        if name.segments.len() != 1 {
            self.error(
                "E0454",
                format!("`{}` is not a node name", name.to_string_path()),
                name.span,
            );
            self.amend(|d| d.with_label("nodes are called by a single name"));
            return Element::new("AlwaysFailure");
        }
        let id = name.segments[0].name.as_str();
        let empty = ArgList {
            args: vec![],
            rest: None,
            span: Span::DUMMY,
        };
        let args = args.unwrap_or(&empty);
        if let Some(b) = builtins::by_name(id) {
            return self.builtin(b, args, n.span);
        }
        if let Some(ports) = self
            .scope
            .trees
            .get(id)
            .filter(|_| !self.scope.leaves.contains_key(id))
        {
            let ports = ports.clone();
            if self.st.inferred.contains(id) {
                self.st
                    .uses
                    .note(id, LeafKind::Action, true, &[], name.span);
            }
            return self.subtree(n, id, &ports, args);
        }
        if vocab::is_bt_builtin(id, self.dialect) {
            let mut el = Element::new(id);
            let mut set = Vec::with_capacity(args.args.len());
            for a in &args.args {
                let Some(port) = &a.name else {
                    self.error(
                        "E0454",
                        format!("arguments of `{id}` need port names"),
                        a.span,
                    );
                    continue;
                };
                let v = match &a.value.kind {
                    ExprKind::Str(s) => s.clone(),
                    _ => self.value(&a.value, false),
                };
                set.push((port.name.as_str(), v));
            }
            el.set_all(set);
            return el;
        }
        // A declared leaf, or a node used without a declaration.
        let scope = self.scope;
        let sig = scope.leaves.get(id);
        let kind = match &sig {
            Some(s) => s.kind,
            None => match children.map(|c| c.nodes.len()) {
                None | Some(0) if children.is_none() => LeafKind::Action,
                Some(1) => LeafKind::Decorator,
                _ => LeafKind::Control,
            },
        };
        if sig.is_none() && args.rest.is_some() {
            // `..` binds a tree's ports: an undeclared callee called so is a tree.
            if !self.st.undeclared_trees.iter().any(|(t, _)| t == id) {
                self.st.undeclared_trees.push((id.to_string(), name.span));
            }
            return self.subtree(n, id, &[], args);
        }
        // v4 writes the compact form, v3 the explicit one, unless the tree says otherwise (the
        // form its file used); an ID that is no XML name (`Pick All`) needs the explicit form.
        let node_form = n.attrs.iter().find_map(|a| match a.name.name.as_str() {
            vocab::COMPACT => Some(vocab::COMPACT),
            vocab::EXPLICIT => Some(vocab::EXPLICIT),
            _ => None,
        });
        let compact = vocab::writes_compact(node_form.or(self.st.form), self.dialect);
        let mut el = if compact && names::is_xml_name(id) {
            Element::new(id)
        } else {
            Element::new(kind_tag(kind)).with("ID", id)
        };
        if args.rest.is_some() {
            self.error(
                "E0454",
                "`..` binds the ports of a tree; this is not a tree",
                args.span,
            );
            self.amend(|d| d.with_label("not a tree call"));
        }
        let mut used = Vec::new();
        let mut set = Vec::with_capacity(args.args.len());
        for (i, a) in args.args.iter().enumerate() {
            let port = match (&a.name, &sig) {
                (Some(p), _) => p.name.clone(),
                (None, Some(s)) => match s.ports.get(i) {
                    Some(p) => p.name.name.clone(),
                    None => {
                        self.error(
                            "E0454",
                            format!(
                                "`{id}` has {} port(s); this is argument {}",
                                s.ports.len(),
                                i + 1
                            ),
                            a.span,
                        );
                        continue;
                    }
                },
                (None, None) => format!("arg{}", i + 1),
            };
            let port = names::xml_port(&port).into_owned();
            let bound = matches!(a.value.kind, ExprKind::Name(_) | ExprKind::Root(_));
            used.push((port.clone(), bound));
            set.push((port, self.value(&a.value, false)));
        }
        el.set_all(set);
        if sig.is_none() || self.st.inferred.contains(id) {
            // What an import of this element would infer: v4 is compact, so the kind comes
            // from the children; v3 names it in the explicit tag.
            let seen = match vocab::is_explicit_tag(&el.name) {
                true => kind,
                false => match children.map(|c| c.nodes.len()) {
                    None | Some(0) => LeafKind::Action,
                    Some(1) => LeafKind::Decorator,
                    _ => LeafKind::Control,
                },
            };
            self.st.uses.note(id, seen, false, &used, name.span);
        }
        el
    }

    /// The Loop node for a queue and the variable it pops into, by their declared types: the
    /// queue's element type, else the variable's (`LoopDouble` when neither says).
    fn loop_id(&self, queue: Option<&Expr>, value: Option<&str>) -> &'static str {
        // A literal queue: the type its elements are spelled in (as the import read them).
        if let Some(ExprKind::List(xs)) = queue.map(|q| &q.kind) {
            let first = xs.first().map(|x| match &x.kind {
                ExprKind::Unary(_, y) => &y.kind,
                k => k,
            });
            match first {
                Some(ExprKind::Num(n)) if n.integer => return "LoopInt",
                Some(ExprKind::Num(_)) => return "LoopDouble",
                Some(ExprKind::Bool(_)) => return "LoopBool",
                Some(ExprKind::Str(_)) => return "LoopString",
                _ => {}
            }
        }
        let ty = match queue.map(|q| &q.kind) {
            Some(ExprKind::Name(p)) if p.segments.len() == 1 => {
                self.st.var_types.get(&p.segments[0].name).cloned()
            }
            _ => None,
        }
        .and_then(|t| match t.kind {
            TypeKind::List(inner) => Some(*inner),
            _ => None,
        })
        .or_else(|| value.and_then(|v| self.st.var_types.get(v).cloned()));
        match ty.as_ref().map(crate::fmt::format_type).as_deref() {
            Some("int") => "LoopInt",
            Some("bool") => "LoopBool",
            Some("str") => "LoopString",
            _ => "LoopDouble",
        }
    }

    pub(crate) fn builtin(&mut self, b: &'static Builtin, args: &ArgList, span: Span) -> Element {
        // `TryCatch` came in BehaviorTree.CPP 4.9; the same behaviour out of older nodes loads
        // everywhere (the exporter puts the children in place, see `try_catch_children`).
        if b.name == "try_catch" && args.args.is_empty() && args.rest.is_none() {
            let el = Element::new("Fallback");
            return match self.dialect {
                Dialect::V4 => el.with(carry::TRY, "true"),
                Dialect::V3 => el,
            };
        }
        let id = match self.dialect {
            Dialect::V4 => b.v4,
            Dialect::V3 => b.v3,
        };
        let Some(id) = id else {
            let other = if self.dialect == Dialect::V4 {
                "3"
            } else {
                "4"
            };
            self.error(
                "E0451",
                format!("`{}` exists only in BehaviorTree.CPP {other}", b.name),
                span,
            );
            let dialect = self.dialect.name();
            self.amend(|d| d.with_label(format!("not available in the {dialect} dialect")));
            return Element::new("AlwaysFailure");
        };
        if b.own && !self.st.own_nodes.iter().any(|o| o.name == b.name) {
            self.st.own_nodes.push(b);
        }
        // `loop(queue: q, value: v)` pops the type `for v in q` would: one entry, one queue type.
        let id = if b.name == "loop" && self.dialect == Dialect::V4 {
            let arg = |name: &str, i: usize| {
                args.args
                    .iter()
                    .enumerate()
                    .find(|(j, a)| match &a.name {
                        Some(n) => n.name == name,
                        None => *j == i,
                    })
                    .map(|(_, a)| &a.value)
            };
            let value = arg("value", 1).and_then(|e| match &e.kind {
                ExprKind::Name(p) if p.segments.len() == 1 => Some(p.segments[0].name.as_str()),
                _ => None,
            });
            self.loop_id(arg("queue", 0), value)
        } else {
            id
        };
        let mut el = Element::new(id);
        if args.rest.is_some() {
            self.error(
                "E0454",
                format!("`..` is not an argument of `{}`", b.name),
                args.span,
            );
        }
        for (i, a) in args.args.iter().enumerate() {
            let spec = match &a.name {
                Some(n) => b.args.iter().find(|x| x.name == n.name),
                None => b.args.get(i),
            };
            let Some(spec) = spec else {
                let names: Vec<&str> = b.args.iter().map(|x| x.name).collect();
                self.error(
                    "E0454",
                    format!("`{}` has no such argument", b.name),
                    a.span,
                );
                self.amend(|d| {
                    if names.is_empty() {
                        d.with_label("it takes no arguments")
                    } else {
                        d.with_label(format!("its arguments are {}", names.join(", ")))
                    }
                });
                continue;
            };
            let port = match self.dialect {
                Dialect::V4 => spec.port,
                Dialect::V3 => spec.port_v3.unwrap_or(spec.port),
            };
            let v = self.builtin_value(&a.value, spec.port, spec.ty);
            el.set(port, v);
        }
        el
    }

    pub(crate) fn subtree(
        &mut self,
        n: &Node,
        id: &str,
        ports: &[PortDecl],
        args: &ArgList,
    ) -> Element {
        // v3: a plain SubTree (Groot 1's element, and the only way to share the parent's
        // blackboard) wherever it can say the call, SubTreePlus for literals and `..`.
        let has = |name: &str| n.attrs.iter().any(|a| a.name.name == name);
        let plain =
            vocab::v3_plain_subtree(args, has("__shared_blackboard"), has(vocab::SUBTREE_PLUS));
        let (tag, bare, autoremap) = match self.dialect {
            Dialect::V4 => ("SubTree", false, "_autoremap"),
            Dialect::V3 if plain => ("SubTree", true, ""),
            Dialect::V3 => ("SubTreePlus", false, "__autoremap"),
        };
        let mut el = Element::new(tag).with("ID", id);
        let mut set = Vec::with_capacity(args.args.len());
        for (i, a) in args.args.iter().enumerate() {
            let port = match &a.name {
                Some(p) => p.name.clone(),
                None => match ports.get(i) {
                    Some(p) => p.name.name.clone(),
                    None => {
                        self.error(
                            "E0454",
                            format!(
                                "tree `{id}` has {} port(s); this is argument {}",
                                ports.len(),
                                i + 1
                            ),
                            a.span,
                        );
                        continue;
                    }
                },
            };
            let v = self.value(&a.value, bare);
            set.push((names::xml_port(&port).into_owned(), v));
        }
        el.set_all(set);
        if args.rest.is_some() && !autoremap.is_empty() {
            el.set(autoremap, "true");
        }
        el
    }

    pub(crate) fn switch(&mut self, subject: &Expr, arms: &[SwitchArm], span: Span) -> Element {
        let cases: Vec<&SwitchArm> = arms
            .iter()
            .filter(|a| !matches!(a.pattern, Pattern::Wildcard(_)))
            .collect();
        if let Some(pos) = arms
            .iter()
            .position(|a| matches!(a.pattern, Pattern::Wildcard(_)))
        {
            if pos + 1 != arms.len() {
                self.error("E0454", "`_` must be the last arm", arms[pos].span);
                self.amend(|d| {
                    d.with_label(
                        "BehaviorTree.CPP's Switch ticks its last child when no case matches",
                    )
                });
            }
        }
        let n = cases.len();
        if n > 6 {
            self.error("E0454", format!("a switch with {n} cases"), span);
            self.amend(|d| {
                d.with_label(
                    "BehaviorTree.CPP has Switch2 to Switch6: at most 6 cases and a default",
                )
            });
        }
        let variable = self.value(subject, false);
        let mut el = Element::new(format!("Switch{}", n.clamp(2, 6))).with("variable", variable);
        let mut texts = Vec::new();
        for arm in &cases {
            let text = match &arm.pattern {
                Pattern::Expr(e) => match &e.kind {
                    ExprKind::Str(s) => s.clone(),
                    ExprKind::Name(p) => p.last().name.clone(),
                    _ => self.value(e, false),
                },
                Pattern::Wildcard(_) => continue,
            };
            texts.push(text);
        }
        // Fewer than two cases: the missing ones repeat the first (or are empty), so they
        // never match; their children are marked pads (see `switch_children`).
        while texts.len() < 2 {
            texts.push(texts.first().cloned().unwrap_or_default());
        }
        for (i, t) in texts.iter().enumerate().take(6) {
            el.set(&format!("case_{}", i + 1), t.clone());
        }
        el
    }
}

/// The children of a switch's element: one per case, pads up to two cases, the default.
pub(crate) fn switch_children(
    arms: &[SwitchArm],
    mut child: impl FnMut(&Node) -> Element,
) -> Vec<Element> {
    let mut out: Vec<Element> = arms
        .iter()
        .filter(|a| !matches!(a.pattern, Pattern::Wildcard(_)))
        .map(|a| child(&a.node))
        .collect();
    while out.len() < 2 {
        out.push(Element::new("AlwaysFailure").with(carry::PAD, "true"));
    }
    match arms
        .iter()
        .find(|a| matches!(a.pattern, Pattern::Wildcard(_)))
    {
        Some(a) => out.push(child(&a.node)),
        None => out.push(Element::new("AlwaysFailure")),
    }
    out
}
