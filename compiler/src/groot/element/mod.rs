//! Element builders: affect syntax → Groot / BehaviorTree.CPP XML elements, one node head or
//! model entry at a time, with no reading back. The exporter builds documents from them; the
//! importer regenerates an element from carried `_affect` text to see whether it still holds.
//!
//! Files: `mod.rs` (host entries, values, scripts), `node` (node heads: calls, built-ins,
//! SubTrees, switches), `model` (model entries and their ports).

pub(crate) mod entry;
pub(crate) mod node;

use super::xml::Element;
use super::{Dialect, Scope};
use crate::btcpp::model;
use crate::btcpp::script::{self, Writer};
use crate::builtins::ArgType;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::token::Unit;
use std::collections::{HashMap, HashSet};

// ------------------------------------------------------------------------------ host entries

pub(crate) fn fnv1a(s: &str) -> u32 {
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
pub(crate) fn literal_elements(xs: &[Expr]) -> Option<Vec<String>> {
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
    pub uses: super::infer::Unknowns,
    /// Names declared `#[inferred]`.
    pub inferred: HashSet<String>,
    /// Undeclared callees called with `..` (trees defined nowhere), in first-use order.
    pub undeclared_trees: Vec<(String, Span)>,
    /// The form marker of the tree being written (`vocab::COMPACT`/`EXPLICIT`), if any.
    pub form: Option<&'static str>,
    /// affect's own built-ins the trees use (`Builtin::own`), in first-use order: the
    /// export declares them in `<TreeNodesModel>`.
    pub own_nodes: Vec<&'static crate::builtins::Builtin>,
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

pub(crate) fn is_status_word(s: &str) -> Option<&'static str> {
    Some(match s {
        "success" => "SUCCESS",
        "failure" => "FAILURE",
        "running" => "RUNNING",
        "skipped" => "SKIPPED",
        "idle" => "IDLE",
        _ => return None,
    })
}

pub(crate) fn single_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(p) if p.segments.len() == 1 => Some(&p.segments[0].name),
        _ => None,
    }
}

pub(crate) fn duration_ms(n: &crate::syntax::token::NumLit) -> Option<f64> {
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
    pub(crate) fn error(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Span,
    ) -> &mut Diagnostic {
        self.st.diags.push(Diagnostic::error(code, msg, span));
        self.st.diags.last_mut().expect("pushed")
    }

    pub(crate) fn warn(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Span,
    ) -> &mut Diagnostic {
        self.st.diags.push(Diagnostic::warning(code, msg, span));
        self.st.diags.last_mut().expect("pushed")
    }

    pub(crate) fn amend(&mut self, f: impl FnOnce(Diagnostic) -> Diagnostic) {
        if let Some(d) = self.st.diags.pop() {
            self.st.diags.push(f(d));
        }
    }

    pub(crate) fn host(&mut self, text: &str, span: Span) -> String {
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

    /// A script from statements, with host entries for what scripts lack.
    pub(crate) fn script_block(&mut self, b: &Block) -> String {
        self.script_with(|w| w.block(b))
    }

    /// A script from an expression, with host entries for what scripts lack.
    pub(crate) fn script_expr(&mut self, e: &Expr) -> String {
        self.script_with(|w| w.top(e))
    }

    /// Runs the script writer, then reports the host entries it had to name.
    fn script_with(&mut self, write: impl FnOnce(&mut Writer) -> String) -> String {
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
        let constant = |n: &str| scope.constant(n);
        let text = write(&mut Writer {
            host: &mut host,
            enum_variant: &variant,
            constant: &constant,
        });
        for (t, s) in hosts {
            self.host(&t, s);
        }
        text
    }

    /// A port value: `{entry}`, `{@entry}` or a literal. `bare` for v3 SubTree remaps.
    pub(crate) fn value(&mut self, e: &Expr, bare: bool) -> String {
        match &e.kind {
            ExprKind::Name(p)
                if p.segments.len() == 1 && self.scope.constant(&p.segments[0].name).is_some() =>
            {
                let c = self.scope.constant(&p.segments[0].name).expect("checked");
                self.value(&c, bare)
            }
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

    pub(crate) fn builtin_value(&mut self, e: &Expr, port: &str, ty: ArgType) -> String {
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
}
