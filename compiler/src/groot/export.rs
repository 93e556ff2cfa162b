//! affect syntax tree → Groot / BehaviorTree.CPP XML (v4 like BehaviorTree.CPP's own writer,
//! or v3 like Groot 1), syntax-directed: names resolve to built-ins (`builtins::by_name`),
//! declared leaves and trees of the same file.
//!
//! Every v4 element is checked by reading it back with the importer; where that would not give
//! the source's syntax tree, the element carries the source text in `_affect` (see `carry`), so
//! `.affect → XML → .affect` gives the same tree. Output is deterministic: model entries are
//! sorted by ID, everything else follows the source order.

use super::carry::{self, Entry, XmlItem};
use super::import::{self, Reader};
use super::infer::{self, Unknown};
use super::model;
use super::names;
use super::script::{self, Writer};
use super::xml::{self, Document, Element, XmlNode};
use super::{Dialect, LeafSig, Scope};
use crate::builtins::{self, ArgType, Builtin};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::token::Unit;
use std::collections::{HashMap, HashSet};

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
    x.checker.scope = x.scope.clone();
    let doc = x.document(file);
    let mut diagnostics = x.st.diags;
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    diagnostics.dedup();
    Exported {
        xml: xml::write(&doc),
        diagnostics,
    }
}

// ------------------------------------------------------------------------------ host entries

fn fnv1a(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The blackboard entry that stands for an expression BehaviorTree.CPP cannot evaluate
/// (`feelings.recent()` → `_affect_feelings_recent_…`): readable, valid in scripts and as
/// `{key}`, and the same for the same text.
/// The elements of a list or point literal as port text (`(3m, 4m)` is `3.0;4.0`, units in SI
/// base units), when every element is a literal that text can hold.
fn literal_elements(xs: &[Expr]) -> Option<Vec<String>> {
    if xs.is_empty() {
        return None;
    }
    xs.iter()
        .map(|x| match &x.kind {
            ExprKind::Num(n) => Some(script::number_text(n)),
            ExprKind::Unary(UnOp::Neg, y) => match &y.kind {
                ExprKind::Num(n) => Some(format!("-{}", script::number_text(n))),
                _ => None,
            },
            ExprKind::Bool(b) => Some(b.to_string()),
            ExprKind::Str(t) if !t.is_empty() && !t.contains([';', '{', '}']) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

pub fn host_name(text: &str) -> String {
    let mut body = String::new();
    let mut lossy = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            body.push(c);
        } else {
            // Any character left out would let two texts share a name: a hash tells them apart.
            lossy = true;
            if !body.ends_with('_') {
                body.push('_');
            }
        }
    }
    let mut body = body.trim_matches('_').to_string();
    if body.len() > 32 {
        body.truncate(32);
        lossy = true;
    }
    if lossy {
        format!("_affect_{body}_{:06x}", fnv1a(text) & 0xff_ffff)
    } else {
        format!("_affect_{body}")
    }
}

// ------------------------------------------------------------------------------ element heads

/// Builds the XML for one node (without its children). Shared by the exporter and by the
/// importer, which regenerates an element from its carried text to see whether it still holds.
pub(crate) struct Heads<'a> {
    pub dialect: Dialect,
    pub scope: &'a Scope,
    pub st: &'a mut HeadState,
}

/// What writing node heads accumulates.
#[derive(Default)]
pub(crate) struct HeadState {
    pub diags: Vec<Diagnostic>,
    /// Types of the variables in reach (tree `var`s, agent `var`s): picks the Loop node.
    pub var_types: HashMap<String, Type>,
    /// Nodes and trees used without a real declaration (none, or `#[inferred]`), in the order
    /// of their first use, with what an import would infer for them.
    pub uses: Vec<Unknown>,
    /// Names declared `#[inferred]`.
    pub inferred: HashSet<String>,
    /// Undeclared callees called with `..` (trees defined nowhere), in first-use order.
    pub undeclared_trees: Vec<(String, Span)>,
}

/// The element for a node head; `None` when it cannot be written (errors).
pub(crate) fn node_element(n: &Node, scope: &Scope, dialect: Dialect) -> Option<Element> {
    let mut st = HeadState::default();
    let el = Heads {
        dialect,
        scope,
        st: &mut st,
    }
    .head(n);
    (!crate::diagnostic::has_errors(&st.diags)).then_some(el)
}

fn is_status_word(s: &str) -> Option<&'static str> {
    Some(match s {
        "success" => "SUCCESS",
        "failure" => "FAILURE",
        "running" => "RUNNING",
        "skipped" => "SKIPPED",
        "idle" => "IDLE",
        _ => return None,
    })
}

fn single_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(p) if p.segments.len() == 1 => Some(&p.segments[0].name),
        _ => None,
    }
}

fn duration_ms(n: &crate::syntax::token::NumLit) -> Option<f64> {
    let f = match n.unit {
        None | Some(Unit::Ms) => 1.0,
        Some(Unit::S) => 1000.0,
        Some(Unit::Min) => 60_000.0,
        Some(Unit::H) => 3_600_000.0,
        _ => return None,
    };
    Some(n.value * f)
}

impl Heads<'_> {
    fn error(&mut self, code: &'static str, msg: impl Into<String>, span: Span) -> &mut Diagnostic {
        self.st.diags.push(Diagnostic::error(code, msg, span));
        self.st.diags.last_mut().expect("pushed")
    }

    fn warn(&mut self, code: &'static str, msg: impl Into<String>, span: Span) -> &mut Diagnostic {
        self.st.diags.push(Diagnostic::warning(code, msg, span));
        self.st.diags.last_mut().expect("pushed")
    }

    fn amend(&mut self, f: impl FnOnce(Diagnostic) -> Diagnostic) {
        if let Some(d) = self.st.diags.pop() {
            self.st.diags.push(f(d));
        }
    }

    fn host(&mut self, text: &str, span: Span) -> String {
        let name = host_name(text);
        let short: String = text.chars().take(60).collect();
        self.warn(
            "W0451",
            format!("BehaviorTree.CPP cannot evaluate `{short}`"),
            span,
        );
        let n = name.clone();
        self.amend(|d| {
            d.with_label(format!("written as the blackboard entry `{n}`"))
                .with_note("the affect runtime provides that entry when the tree runs inside BehaviorTree.CPP; scripts hold only names, literals and operators")
        });
        name
    }

    /// A script from statements or an expression, with host entries for what scripts lack.
    fn script_block(&mut self, b: &Block) -> String {
        let mut hosts: Vec<(String, Span)> = Vec::new();
        let scope = self.scope;
        let variant = |p: &Path| {
            scope
                .enum_variant(p)
                .or_else(|| (p.segments.len() == 2).then(|| p.last().name.clone()))
        };
        let mut host = |t: &str, s: Span| {
            hosts.push((t.to_string(), s));
            host_name(t)
        };
        let text = Writer {
            host: &mut host,
            enum_variant: &variant,
        }
        .block(b);
        for (t, s) in hosts {
            self.host(&t, s);
        }
        text
    }

    fn script_expr(&mut self, e: &Expr) -> String {
        let mut hosts: Vec<(String, Span)> = Vec::new();
        let scope = self.scope;
        let variant = |p: &Path| {
            scope
                .enum_variant(p)
                .or_else(|| (p.segments.len() == 2).then(|| p.last().name.clone()))
        };
        let mut host = |t: &str, s: Span| {
            hosts.push((t.to_string(), s));
            host_name(t)
        };
        let text = Writer {
            host: &mut host,
            enum_variant: &variant,
        }
        .top(e);
        for (t, s) in hosts {
            self.host(&t, s);
        }
        text
    }

    /// A port value: `{entry}`, `{@entry}` or a literal. `bare` for v3 SubTree remaps.
    fn value(&mut self, e: &Expr, bare: bool) -> String {
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => {
                if bare {
                    p.segments[0].name.clone()
                } else {
                    format!("{{{}}}", p.segments[0].name)
                }
            }
            ExprKind::Root(id) => format!("{{@{}}}", id.name),
            ExprKind::Str(s) => {
                if model::blackboard_key(s).is_some() {
                    self.error(
                        "E0453",
                        "this string would be read as a blackboard entry",
                        e.span,
                    );
                    self.amend(|d| {
                        d.with_label("BehaviorTree.CPP reads `{...}` in a port as an entry name")
                            .with_help("there is no way to escape braces in a port value; choose another text")
                    });
                }
                s.clone()
            }
            ExprKind::Num(n) => script::number_text(n),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Unary(UnOp::Neg, x) if matches!(x.kind, ExprKind::Num(_)) => {
                let ExprKind::Num(n) = &x.kind else {
                    unreachable!()
                };
                format!("-{}", script::number_text(n))
            }
            ExprKind::Name(p) if p.segments.len() == 2 => p.last().name.clone(),
            // BehaviorTree.CPP reads vectors (and hosts read points) from `;`-separated text.
            ExprKind::List(xs) | ExprKind::Tuple(xs) if literal_elements(xs).is_some() => {
                literal_elements(xs).unwrap_or_default().join(";")
            }
            _ => {
                let text = crate::fmt::format_expr(e);
                format!("{{{}}}", self.host(&text, e.span))
            }
        }
    }

    fn builtin_value(&mut self, e: &Expr, port: &str, ty: ArgType) -> String {
        match ty {
            ArgType::Duration => match &e.kind {
                ExprKind::Num(n) => match duration_ms(n) {
                    Some(ms) => {
                        if ms.fract() != 0.0 || ms < 0.0 {
                            self.warn(
                                "W0452",
                                "BehaviorTree.CPP counts whole milliseconds",
                                e.span,
                            );
                            self.amend(|d| {
                                d.with_label(format!("written as {}", ms.round().max(0.0)))
                            });
                        }
                        format!("{}", ms.round().max(0.0) as u64)
                    }
                    None => {
                        self.error("E0453", "expected a duration", e.span);
                        self.amend(|d| {
                            d.with_label("write it with a time unit: `500ms`, `2s`, `1min`")
                        });
                        String::new()
                    }
                },
                _ => self.value(e, false),
            },
            ArgType::Status => match single_name(e).and_then(is_status_word) {
                Some(s) => s.to_string(),
                None => self.value(e, false),
            },
            ArgType::Condition => self.script_expr(e),
            ArgType::Variable if port == "output_key" => match single_name(e) {
                Some(n) => n.to_string(),
                None => self.value(e, false),
            },
            _ => self.value(e, false),
        }
    }

    /// The element of a node, without children.
    pub fn head(&mut self, n: &Node) -> Element {
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
                let ty = match &queue.kind {
                    ExprKind::Name(p) if p.segments.len() == 1 => {
                        self.st.var_types.get(&p.segments[0].name).cloned()
                    }
                    _ => None,
                }
                .and_then(|t| match t.kind {
                    TypeKind::List(inner) => Some(*inner),
                    _ => None,
                })
                .or_else(|| self.st.var_types.get(&var.name).cloned());
                let id = match ty.as_ref().map(crate::fmt::format_type).as_deref() {
                    Some("int") => "LoopInt",
                    Some("bool") => "LoopBool",
                    Some("str") => "LoopString",
                    _ => "LoopDouble",
                };
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
        for a in &n.attrs {
            let v = attr_value(a);
            el.set(&a.name.name, v);
        }
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

    fn v4_only(&mut self, what: &str, span: Span) {
        if self.dialect == Dialect::V3 {
            self.error("E0451", format!("{what} needs BehaviorTree.CPP 4"), span);
            self.amend(|d| {
                d.with_label("not available in BehaviorTree.CPP 3 / Groot 1")
                    .with_help("export with `--emit groot` (v4), or rewrite it with v3 nodes")
            });
        }
    }

    fn call(
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
                infer::note_unknown(
                    &mut self.st.uses,
                    id,
                    LeafKind::Action,
                    true,
                    &[],
                    name.span,
                );
            }
            return self.subtree(n, id, &ports, args);
        }
        if import::is_bt_builtin(id, self.dialect) {
            let mut el = Element::new(id);
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
                el.set(&port.name, v);
            }
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
        let mut el = match self.dialect {
            Dialect::V4 if names::is_xml_name(id) => Element::new(id),
            // An ID that is no XML name (`Pick All`) needs the explicit form.
            _ => Element::new(kind_tag(kind)).with("ID", id),
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
            let v = self.value(&a.value, false);
            el.set(&port, v);
        }
        if sig.is_none() || self.st.inferred.contains(id) {
            // What an import of this element would infer: v4 is compact, so the kind comes
            // from the children; v3 names it in the explicit tag.
            let seen = match (self.dialect, sig.is_some()) {
                (Dialect::V3, _) => kind,
                (Dialect::V4, _) => match children.map(|c| c.nodes.len()) {
                    None | Some(0) => LeafKind::Action,
                    Some(1) => LeafKind::Decorator,
                    _ => LeafKind::Control,
                },
            };
            infer::note_unknown(&mut self.st.uses, id, seen, false, &used, name.span);
        }
        el
    }

    fn builtin(&mut self, b: &'static Builtin, args: &ArgList, span: Span) -> Element {
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

    fn subtree(&mut self, n: &Node, id: &str, ports: &[PortDecl], args: &ArgList) -> Element {
        // v3's plain SubTree is the only way to share the parent's blackboard.
        let shared = n.attrs.iter().any(|a| a.name.name == "__shared_blackboard");
        let (tag, bare, autoremap) = match self.dialect {
            Dialect::V4 => ("SubTree", false, "_autoremap"),
            Dialect::V3 if shared => ("SubTree", true, ""),
            Dialect::V3 => ("SubTreePlus", false, "__autoremap"),
        };
        let mut el = Element::new(tag).with("ID", id);
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
            el.set(&names::xml_port(&port), v);
        }
        if args.rest.is_some() && !autoremap.is_empty() {
            el.set(autoremap, "true");
        }
        el
    }

    fn switch(&mut self, subject: &Expr, arms: &[SwitchArm], span: Span) -> Element {
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
fn switch_children(arms: &[SwitchArm], mut child: impl FnMut(&Node) -> Element) -> Vec<Element> {
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

fn kind_tag(k: LeafKind) -> &'static str {
    match k {
        LeafKind::Action => "Action",
        LeafKind::Condition => "Condition",
        LeafKind::Control => "Control",
        LeafKind::Decorator => "Decorator",
    }
}

/// The XML text of an `#[name = value]` attribute.
fn attr_value(a: &Attr) -> String {
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
fn default_text(e: &Expr) -> String {
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

fn port_element(p: &PortDecl) -> Element {
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

fn is_reserved_item_attr(a: &Attr) -> bool {
    a.name.name == carry::INFERRED
        || a.name.name == carry::MODEL
        || import::root_attr_name(&a.name.name).is_some()
}

/// The `<TreeNodesModel>` entry of a leaf declaration.
pub(crate) fn leaf_model(item: &Item) -> Option<Element> {
    let ItemKind::Leaf(l) = &item.kind else {
        return None;
    };
    let mut el = Element::new(kind_tag(l.kind)).with("ID", &l.name.name);
    for a in item.attrs.iter().filter(|a| !is_reserved_item_attr(a)) {
        el.set(&a.name.name, attr_value(a));
    }
    if let Some(d) = &item.doc {
        el.set("_description", d.lines.join("\n"));
    }
    el.children = l
        .ports
        .iter()
        .map(|p| XmlNode::Element(port_element(p)))
        .collect();
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
        for a in item.attrs.iter().filter(|a| !is_reserved_item_attr(a)) {
            el.set(&a.name.name, attr_value(a));
        }
        if let Some(d) = &item.doc {
            el.set("_description", d.lines.join("\n"));
        }
    }
    el.children = t
        .ports
        .iter()
        .map(|p| XmlNode::Element(port_element(p)))
        .collect();
    Some(el)
}

fn has_body(t: &TreeDecl) -> bool {
    !t.body.nodes.is_empty() || !t.locals.is_empty()
}

// ------------------------------------------------------------------------------ document

struct Exporter {
    dialect: Dialect,
    scope: Scope,
    st: HeadState,
    checker: Reader,
    verify: bool,
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

impl Exporter {
    fn new(file: &File, dialect: Dialect) -> Exporter {
        let scope = scope_of(file);
        let mut checker = Reader::new(Dialect::V4);
        checker.scope = scope.clone();
        checker.shallow = true;
        Exporter {
            dialect,
            scope,
            st: HeadState::default(),
            checker,
            verify: dialect == Dialect::V4,
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
        if self.verify {
            let back = self.checker.node(&el, vec![]);
            self.checker.diags.clear();
            self.checker.unknown.clear();
            let head = carry::head(n);
            if let Some(text) = carry::differs(head, back) {
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
        for p in &t.ports {
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
                    || import::is_bt_builtin(name, Dialect::V4))
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
        let dialect = self.dialect;
        let trees: Vec<&TreeDecl> = file
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Tree(t) if has_body(t) => Some(t),
                _ => None,
            })
            .collect();
        let agent_main = |a: &AgentDecl| -> Option<usize> {
            a.members
                .as_ref()?
                .iter()
                .position(|m| matches!(m.kind, MemberKind::Main(_)))
        };
        let main_name: Option<String> = trees
            .iter()
            .find(|t| t.is_main)
            .map(|t| t.name.name.clone())
            .or_else(|| {
                file.items.iter().find_map(|i| match &i.kind {
                    ItemKind::Agent(a) if agent_main(a).is_some() => Some(a.name.name.clone()),
                    _ => None,
                })
            });

        let mut root = Element::new("root");
        if dialect == Dialect::V4 {
            root.set("BTCPP_format", "4");
        }
        if let Some(m) = &main_name {
            root.set("main_tree_to_execute", m);
        }
        for item in &file.items {
            for a in &item.attrs {
                if let Some(n) = import::root_attr_name(&a.name.name) {
                    root.set(n, attr_value(a));
                }
            }
        }

        let mut includes: Vec<Element> = Vec::new();
        let mut behavior_trees: Vec<Element> = Vec::new();
        let mut models: Vec<Element> = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        // Where `#[inferred]` declarations stand: decided once every use has been seen.
        let mut inferred_at: Vec<usize> = Vec::new();
        // The order an import reads XML-held declarations in without help: includes, leaf
        // models by ID, inferred declarations by first use, trees, bodiless trees by ID.
        let mut uses: Vec<XmlItem> = Vec::new();
        let mut leaves: Vec<XmlItem> = Vec::new();
        let mut bts: Vec<XmlItem> = Vec::new();
        let mut externals: Vec<XmlItem> = Vec::new();
        let sole_tree = trees.len()
            + file
                .items
                .iter()
                .filter(|i| matches!(&i.kind, ItemKind::Agent(a) if agent_main(a).is_some()))
                .count()
            == 1;
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

        for item in &file.items {
            if is_inferred(item) && matches!(item.kind, ItemKind::Leaf(_) | ItemKind::Tree(_)) {
                inferred_at.push(entries.len());
                entries.push(Entry::Item(item.clone()));
                continue;
            }
            match &item.kind {
                ItemKind::Use(UseDecl {
                    target: UseTarget::File(path, _),
                }) => {
                    let xml_path = match path.strip_suffix(".affect") {
                        Some(stem) => format!("{stem}.xml"),
                        None => path.clone(),
                    };
                    let mut el = Element::new("include").with("path", xml_path);
                    for a in item.attrs.iter().filter(|a| !is_reserved_item_attr(a)) {
                        el.set(&a.name.name, attr_value(a));
                    }
                    includes.push(el);
                    let key = XmlItem::Use(path.clone());
                    if item.doc.is_some() {
                        // An include has nowhere to keep a doc comment.
                        entries.push(Entry::Item(item.clone()));
                    } else {
                        entries.push(Entry::Xml(key.clone()));
                        uses.push(key);
                    }
                }
                ItemKind::Leaf(l) => {
                    let mut el = leaf_model(item).expect("a leaf");
                    if self.verify {
                        let kind = Some(l.kind);
                        let back = self.checker.model_item_pub(&el, kind, &l.name.name);
                        if !carry::same_item(item, &back) {
                            el.set(carry::AFFECT, carry::format_item(item).trim_end());
                        }
                    }
                    models.push(el);
                    let key = XmlItem::Leaf(l.name.name.clone());
                    entries.push(Entry::Xml(key.clone()));
                    leaves.push(key);
                }
                ItemKind::Tree(t) if has_body(t) => {
                    let is_main_on_import = match &main_name {
                        Some(m) => *m == t.name.name,
                        None => sole_tree,
                    };
                    let (bt, model) = self.tree(item, t, is_main_on_import);
                    behavior_trees.push(bt);
                    models.extend(model);
                    let key = XmlItem::Tree(t.name.name.clone());
                    entries.push(Entry::Xml(key.clone()));
                    bts.push(key);
                }
                ItemKind::Tree(t) => {
                    let mut el = subtree_model(item, true).expect("a tree");
                    if self.verify {
                        let back = self.checker.model_item_pub(&el, None, &t.name.name);
                        if !carry::same_item(item, &back) {
                            el.set(carry::AFFECT, carry::format_item(item).trim_end());
                        }
                    }
                    models.push(el);
                    let key = XmlItem::Tree(t.name.name.clone());
                    entries.push(Entry::Xml(key.clone()));
                    externals.push(key);
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

        let seen = std::mem::take(&mut self.st.uses);
        // An `#[inferred]` declaration that an import would infer again from the XML is held
        // by the XML; any other is carried as text.
        let mut inferred_keys = Vec::new();
        for u in &seen {
            let Some(&at) = inferred_at.iter().find(|&&i| match &entries[i] {
                Entry::Item(item) => item_name(item) == Some(u.name.as_str()),
                _ => false,
            }) else {
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
        // Nodes used without any declaration get a model inferred from their uses.
        let undeclared: Vec<&Unknown> = seen
            .iter()
            .filter(|u| !u.tree && !self.scope.leaves.contains_key(&u.name))
            .collect();
        for u in undeclared {
            let name = &u.name;
            let kind = u.kind;
            self.heads().warn(
                "W0454",
                format!("`{name}` is not declared: its model is inferred from its uses"),
                u.span,
            );
            self.heads().amend(|d| {
                d.with_label("no `action`/`condition` declaration in this file")
                    .with_help(format!("declare it, e.g. `{} {name}(...);`, to give its ports directions and types", kind.keyword()))
            });
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
        models.sort_by(|a, b| a.attr("ID").cmp(&b.attr("ID")));

        let mut default_order = uses;
        let model_order: Vec<&str> = models.iter().filter_map(|m| m.attr("ID")).collect();
        let mut sorted_leaves = leaves;
        sorted_leaves.sort_by_key(|k| match k {
            XmlItem::Leaf(n) => model_order.iter().position(|m| m == n),
            _ => None,
        });
        default_order.extend(sorted_leaves);
        default_order.extend(inferred_keys);
        default_order.extend(bts);
        let mut sorted_ext = externals;
        sorted_ext.sort_by_key(|k| match k {
            XmlItem::Tree(n) => model_order.iter().position(|m| m == n),
            _ => None,
        });
        default_order.extend(sorted_ext);
        let actual: Vec<XmlItem> = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Xml(k) => Some(k.clone()),
                Entry::Item(_) => None,
            })
            .collect();
        let carried_any = entries.iter().any(|e| matches!(e, Entry::Item(_)));
        if carried_any || default_order != actual {
            root.set(carry::AFFECT, carry::write_root(&entries).trim_end());
        }

        for e in includes {
            root.children.push(XmlNode::Element(e));
        }
        for e in behavior_trees {
            root.children.push(XmlNode::Element(e));
        }
        if !models.is_empty() {
            let mut list = Element::new("TreeNodesModel");
            list.children = models.into_iter().map(XmlNode::Element).collect();
            root.children.push(XmlNode::Element(list));
        }
        Document {
            nodes: vec![XmlNode::Element(root)],
        }
    }

    fn tree(
        &mut self,
        item: &Item,
        t: &TreeDecl,
        is_main_on_import: bool,
    ) -> (Element, Option<Element>) {
        self.var_types_of_tree(t);
        let init = self.init(t);
        let mut bt = Element::new("BehaviorTree").with("ID", &t.name.name);
        if let Some(d) = &item.doc {
            bt.set("_description", d.lines.join("\n"));
        }
        for a in item.attrs.iter().filter(|a| !is_reserved_item_attr(a)) {
            bt.set(&a.name.name, attr_value(a));
        }
        if let Some(body) = self.body(&t.body.nodes, init, t.body.span) {
            bt.children.push(XmlNode::Element(body));
        }
        let model = subtree_model(item, false);
        if self.verify {
            // What an import makes of the tree's head, from the XML alone.
            let ports = match &model {
                Some(m) => match self.checker.model_item_pub(m, None, &t.name.name).kind {
                    ItemKind::Tree(back) => back.ports,
                    _ => vec![],
                },
                None => vec![],
            };
            let mut scope = self.checker.scope.clone();
            scope.trees.insert(t.name.name.clone(), ports.clone());
            let mut back_attrs: Vec<Attr> = bt
                .attrs
                .iter()
                .filter(|a| !matches!(a.name.as_str(), "ID" | "_description" | carry::AFFECT))
                .map(|a| Attr {
                    name: Ident::new(&a.name, Span::DUMMY),
                    value: Some(Expr {
                        kind: ExprKind::Str(a.value.clone()),
                        span: Span::DUMMY,
                    }),
                    span: Span::DUMMY,
                })
                .collect();
            if model
                .as_ref()
                .is_some_and(|m| m.elements().next().is_none())
            {
                back_attrs.push(Attr {
                    name: Ident::new(carry::MODEL, Span::DUMMY),
                    value: None,
                    span: Span::DUMMY,
                });
            }
            let placeholders: Vec<Node> =
                t.body.nodes.iter().map(|_| carry::placeholder()).collect();
            let back = Item {
                doc: bt.attr("_description").map(|d| Doc {
                    lines: d.split('\n').map(str::to_string).collect(),
                    span: Span::DUMMY,
                }),
                attrs: back_attrs,
                kind: ItemKind::Tree(TreeDecl {
                    is_main: is_main_on_import,
                    name: t.name.clone(),
                    ports,
                    locals: super::infer::locals(&t.body.nodes, &t.ports, &scope),
                    body: NodeBlock {
                        nodes: placeholders.clone(),
                        span: Span::DUMMY,
                    },
                }),
                span: Span::DUMMY,
            };
            let mut original = item.clone();
            if let ItemKind::Tree(o) = &mut original.kind {
                o.body.nodes = placeholders;
            }
            if !carry::same_item(&original, &back) {
                if let ItemKind::Tree(o) = &mut original.kind {
                    o.body.nodes.clear();
                }
                bt.set(carry::AFFECT, carry::format_item(&original).trim_end());
            }
        }
        (bt, model)
    }

    fn agent(&mut self, item: &Item, a: &AgentDecl, main_index: usize) -> Option<Element> {
        let members = a.members.as_ref()?;
        self.st.var_types.clear();
        for m in members {
            if let MemberKind::Var {
                name, ty: Some(t), ..
            } = &m.kind
            {
                self.st.var_types.insert(name.name.clone(), t.clone());
            }
        }
        let MemberKind::Main(block) = &members[main_index].kind else {
            return None;
        };
        let mut bt = Element::new("BehaviorTree").with("ID", &a.name.name);
        // The agent's state starts as declared when the tree runs in BehaviorTree.CPP.
        let vars: Vec<(&Ident, Option<&Type>, Option<&Expr>, Span)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Var { name, ty, init } => {
                    Some((name, ty.as_ref(), init.as_ref(), m.span))
                }
                _ => None,
            })
            .collect();
        let init = self.init_vars(&vars, true);
        if let Some(body) = self.body(&block.nodes, init, block.span) {
            bt.children.push(XmlNode::Element(body));
        }
        // The agent itself, with its `main` emptied: the nodes are in the XML.
        let mut shadow = item.clone();
        if let ItemKind::Agent(sa) = &mut shadow.kind {
            if let Some(MemberKind::Main(b)) = sa
                .members
                .as_mut()
                .and_then(|m| m.get_mut(main_index))
                .map(|m| &mut m.kind)
            {
                b.nodes.clear();
            }
        }
        bt.set(carry::AFFECT, carry::format_item(&shadow).trim_end());
        Some(bt)
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
