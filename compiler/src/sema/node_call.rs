//! Calls of declared nodes and trees: arguments matched to ports by position and name, and
//! each port bound to the caller's variable, a value, or its default.

use super::index::Target;
use super::tree::{TBinding, TKind, TNode, TreeCx};
use super::wording::article;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Arg, Code, NodeKind, Op, PortBinding};
use crate::suggest::closest;
use crate::syntax::ast::{self, Expr, ExprKind, LeafKind, PortDir};
use std::collections::HashMap;

impl TreeCx<'_> {
    /// Matches call arguments to parameters by position, then by name. A name that matches
    /// a parameter is a use of `targets[i]` (the port or argument it names).
    pub(super) fn match_args<'e>(
        &mut self,
        what: &str,
        params: &[(&str, &str)],
        targets: &[Option<Target>],
        args: Option<&'e ast::ArgList>,
        allow_rest: bool,
    ) -> (Vec<Option<&'e Expr>>, bool) {
        let mut out: Vec<Option<&Expr>> = vec![None; params.len()];
        let mut unknown = false;
        let Some(args) = args else {
            return (out, unknown);
        };
        if let (Some(rest), false) = (args.rest, allow_rest) {
            self.err(
                Diagnostic::error("E0117", "`..` only binds the ports of a tree call", rest)
                    .with_label(format!("`{what}` is not a tree"))
                    .with_help("remove `..`"),
            );
        }
        let mut named = false;
        // A use of a port per argument (reserved for the same reason as the ports' definitions).
        self.c.index.refs.reserve(args.args.len());
        let by_name = ParamIndex::new(params);
        for (i, a) in args.args.iter().enumerate() {
            let slot = match &a.name {
                Some(n) => {
                    named = true;
                    let found = by_name.find(params, &n.name);
                    match found {
                        Some(j) => {
                            if let Some(t) = targets.get(j).copied().flatten() {
                                self.c.index.refer(n.span, t);
                            }
                            j
                        }
                        None => {
                            let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
                            // A tree call (the calls `..` may end) is BehaviorTree.CPP's
                            // `<SubTree>`, which remaps any attribute: naming no port of the
                            // tree, the argument binds nothing, as the remapping of an entry
                            // the subtree never uses.
                            let mut d = if allow_rest {
                                Diagnostic::warning(
                                    "W0206",
                                    format!("`{what}` has no port `{}`", n.name),
                                    n.span,
                                )
                                .with_label("binds nothing")
                            } else {
                                Diagnostic::error(
                                    "E0305",
                                    format!("`{what}` has no argument `{}`", n.name),
                                    n.span,
                                )
                                .with_label("unknown argument")
                            };
                            d = match closest(&n.name, names.iter().copied()) {
                                Some(b) => d.with_help(format!("did you mean `{b}`?")),
                                None if names.is_empty() => {
                                    d.with_help(format!("`{what}` takes no arguments"))
                                }
                                None => d.with_help(format!(
                                    "its arguments are `{}`",
                                    names.join("`, `")
                                )),
                            };
                            self.err(d);
                            unknown |= !allow_rest;
                            self.scratch_expr(&a.value);
                            continue;
                        }
                    }
                }
                None if named => continue,
                None => {
                    if i >= params.len() {
                        let takes = match params.len() {
                            0 => "no arguments".to_string(),
                            1 => "1 argument".to_string(),
                            n => format!("{n} arguments"),
                        };
                        self.err(
                            Diagnostic::error(
                                "E0310",
                                format!("`{what}` takes {takes}, found {}", args.args.len()),
                                a.span,
                            )
                            .with_label("extra argument"),
                        );
                        self.scratch_expr(&a.value);
                        continue;
                    }
                    i
                }
            };
            if out[slot].is_some() {
                self.err(
                    Diagnostic::error(
                        "E0309",
                        format!("`{}` is given twice", params[slot].0),
                        a.span,
                    )
                    .with_label("again here"),
                );
                self.scratch_expr(&a.value);
                continue;
            }
            out[slot] = Some(&a.value);
        }
        (out, unknown)
    }

    /// Checks an expression that is not used (a misplaced argument): its names count as used
    /// and its own mistakes are reported, but it compiles to nothing.
    pub(super) fn scratch_expr(&mut self, e: &Expr) {
        let start = self.t.code.len();
        self.cx().expr(e, None);
        self.t.code.truncate(start);
    }

    pub(crate) fn leaf(
        &mut self,
        i: u32,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        children: Option<&ast::NodeBlock>,
    ) -> (TKind, String, Vec<TNode>) {
        let def = self.c.g.leaves[i as usize].clone();
        let params: Vec<(&str, &str)> = def.ports.iter().map(|p| (&*p.name, &*p.name)).collect();
        let targets = port_targets(&def.ports);
        let (given, unknown_arg) = self.match_args(&def.name, &params, &targets, args, false);
        let mut ports = Vec::with_capacity(def.ports.len());
        for (p, e) in def.ports.iter().zip(&given) {
            let pty = p.ty(&self.c.index);
            let binding = match (e, p.dir) {
                // `default="{key}"`: the port reads or writes that entry, when the caller has it.
                (None, dir) if p.default_key.is_some() => {
                    let key = p.default_key.as_deref().unwrap_or_default();
                    match self.t.frame.get(key) {
                        Some(slot) => {
                            self.t.frame.vars[slot as usize].used = true;
                            match dir {
                                PortDir::In => {
                                    let start = self.t.code.len() as u32;
                                    self.t.code.push(Op::Load(slot));
                                    PortBinding::In(Arg::Expr(Code { start, len: 1 }))
                                }
                                _ => PortBinding::Slot(slot),
                            }
                        }
                        None => PortBinding::Absent,
                    }
                }
                (None, _) => {
                    if p.default.is_none() && p.dir == PortDir::In && !unknown_arg {
                        self.err(
                            Diagnostic::warning(
                                "W0204",
                                format!("`{}` is called without its `{}` port", def.name, p.name),
                                name.span,
                            )
                            .with_label(format!("`{}` is not given and has no default", p.name))
                            .with_secondary(p.span(&self.c.index), "declared here"),
                        );
                    }
                    match p.default {
                        Some(d) => PortBinding::In(Arg::Const(d)),
                        None => PortBinding::Absent,
                    }
                }
                (Some(e), PortDir::In) => {
                    self.btcpp_text(e, &pty, &def.name, &p.name);
                    PortBinding::In(self.arg(e, &pty, &format!("port `{}`", p.name)))
                }
                // BehaviorTree.CPP loads a literal on an output or inout port (a write to it
                // fails only when it happens): in an imported file such a literal binds
                // nothing, as the import keeps it when it sees the model in the same file
                // (`#[port = "text"]`); here a model of an including file declared the port.
                (Some(e), _) if self.c.behavior_tree_xml && !self.names_variable(e) => {
                    self.scratch_expr(e);
                    PortBinding::Absent
                }
                (Some(e), dir) => {
                    match self.variable(e, &format!("`{}` port `{}`", dir.keyword(), p.name)) {
                        Some((slot, vt)) => {
                            let ok = match dir {
                                PortDir::Out => pty.fits(&vt),
                                _ => pty.fits(&vt) && vt.fits(&pty),
                            };
                            if !ok {
                                let (sp, sv) = (self.c.g.show(&pty), self.c.g.show(&vt));
                                self.err(
                                    Diagnostic::error(
                                        super::wording::mismatch_code(&pty, &vt),
                                        format!(
                                            "port `{}` writes {} into {}",
                                            p.name,
                                            article(&sp),
                                            article(&sv)
                                        ),
                                        e.span,
                                    )
                                    .with_label(format!("this variable is {}", article(&sv)))
                                    .with_secondary(
                                        p.span(&self.c.index),
                                        format!("declared {}", article(&sp)),
                                    ),
                                );
                            }
                            let port = format!("`{}` port `{}`", dir.keyword(), p.name);
                            self.check_writable(slot, &port, e.span);
                            PortBinding::Slot(slot)
                        }
                        None => PortBinding::Absent,
                    }
                }
            };
            ports.push(binding);
        }
        let children = match def.kind {
            LeafKind::Action | LeafKind::Condition => {
                self.no_children(children, &def.name);
                vec![]
            }
            LeafKind::Decorator => match children {
                Some(c) => self.children(c, 1, 1, &def.name),
                None => {
                    self.err(
                        Diagnostic::error(
                            "E0312",
                            format!("decorator `{}` needs one child", def.name),
                            name.span,
                        )
                        .with_label("no `{ .. }` block"),
                    );
                    vec![]
                }
            },
            LeafKind::Control => match children {
                Some(c) => self.children(c, 1, usize::MAX, &def.name),
                None => {
                    self.err(
                        Diagnostic::error(
                            "E0312",
                            format!("control node `{}` needs children", def.name),
                            name.span,
                        )
                        .with_label("no `{ .. }` block"),
                    );
                    vec![]
                }
            },
        };
        (
            TKind::Node(NodeKind::Foreign { leaf: i, ports }),
            def.name.clone(),
            children,
        )
    }

    /// E0421 for XML text on a port of a C++ type that BehaviorTree.CPP cannot convert it to
    /// when it creates the tree (`speed="fast"` on a `float` port): the import reports it
    /// where it sees the model, and this where the model is another file's (a node an
    /// including file models, used in the included one).
    fn btcpp_text(&mut self, e: &ast::Expr, pty: &super::ty::Ty, node: &str, port: &str) {
        let (true, ast::ExprKind::Str(text), super::ty::Ty::Foreign(cpp)) =
            (self.c.behavior_tree_xml, &e.kind, pty)
        else {
            return;
        };
        let Some(conv) = crate::btcpp::model::Conversion::of_cpp(cpp) else {
            return;
        };
        if conv.reads(text.as_str()) {
            return;
        }
        self.err(
            Diagnostic::error(
                "E0421",
                format!("BehaviorTree.CPP cannot read `{text}` as the `{cpp}` of `{node}` port `{port}`"),
                e.span,
            )
            .with_label(format!("not {} {}", conv.article(), conv.name()))
            .with_note(
                "BehaviorTree.CPP converts the text when it creates the tree and refuses the file",
            ),
        );
    }

    pub(crate) fn subtree_bindings(
        &mut self,
        tree: u32,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
    ) -> Vec<TBinding> {
        let sig = self.c.g.trees[tree as usize].clone();
        let params: Vec<(&str, &str)> = sig.ports.iter().map(|p| (&*p.name, &*p.name)).collect();
        let rest = args.and_then(|a| a.rest).is_some();
        let targets = port_targets(&sig.ports);
        let (given, unknown_arg) = self.match_args(&sig.name, &params, &targets, args, true);
        let mut out = Vec::with_capacity(sig.ports.len());
        for (p, e) in sig.ports.iter().zip(given) {
            let pty = p.ty(&self.c.index);
            let b = match e {
                Some(e) => {
                    let is_var = matches!(&e.kind, ExprKind::Root(_))
                        || matches!(&e.kind, ExprKind::Name(path) if path.segments.len() == 1 && self.t.frame.get(&path.segments[0].name).is_some());
                    if is_var {
                        match self.variable(e, &format!("port `{}`", p.name)) {
                            Some((slot, vt)) => {
                                let ok = match p.dir {
                                    PortDir::In => vt.fits(&pty),
                                    PortDir::Out => pty.fits(&vt),
                                    PortDir::InOut => vt.fits(&pty) && pty.fits(&vt),
                                };
                                if !ok {
                                    let (sp, sv) = (self.c.g.show(&pty), self.c.g.show(&vt));
                                    self.err(
                                        Diagnostic::error(
                                            super::wording::mismatch_code(&vt, &pty),
                                            format!(
                                                "port `{}` of `{}` is {}, but this variable is {}",
                                                p.name,
                                                sig.name,
                                                article(&sp),
                                                article(&sv)
                                            ),
                                            e.span,
                                        )
                                        .with_label("wrong type")
                                        .with_secondary(
                                            p.span(&self.c.index),
                                            "the port is declared here",
                                        ),
                                    );
                                }
                                if p.dir != PortDir::In {
                                    let port = format!("`{}` port `{}`", p.dir.keyword(), p.name);
                                    self.check_writable(slot, &port, e.span);
                                }
                                TBinding::Var(slot)
                            }
                            None => TBinding::Default,
                        }
                    } else if p.dir != PortDir::In {
                        self.scratch_expr(e);
                        self.err(
                            Diagnostic::error(
                                "E0307",
                                format!(
                                    "`{}` port `{}` must be bound to a variable",
                                    p.dir.keyword(),
                                    p.name
                                ),
                                e.span,
                            )
                            .with_label("a value cannot receive what the tree writes")
                            .with_help(format!("pass a variable: `{}: some_var`", p.name)),
                        );
                        TBinding::Default
                    } else {
                        let (code, ty) = self.code_expr(e, &pty, &format!("port `{}`", p.name));
                        let ops =
                            &self.t.code[code.start as usize..(code.start + code.len) as usize];
                        let b = match crate::ir::eval::eval_const(ops) {
                            Some(v) => TBinding::Const(v),
                            None => TBinding::Expr(code),
                        };
                        let list = ty.value_kind() == crate::ir::program::ValueKind::List;
                        if pty == super::ty::Ty::Any && list {
                            TBinding::List(Box::new(b), ty)
                        } else {
                            b
                        }
                    }
                }
                None => {
                    if rest {
                        if let Some(i) = self.t.frame.get(&p.name) {
                            self.t.frame.vars[i as usize].used = true;
                            out.push(TBinding::Var(i));
                            continue;
                        }
                    }
                    if let Some(i) = p.default_key.as_ref().and_then(|k| self.t.frame.get(k)) {
                        self.t.frame.vars[i as usize].used = true;
                        out.push(TBinding::Var(i));
                        continue;
                    }
                    if p.default.is_none()
                        && p.default_key.is_none()
                        && p.dir == PortDir::In
                        && !unknown_arg
                    {
                        let at = args.map(|a| a.span).unwrap_or(name.span);
                        let declared = p.span(&self.c.index);
                        self.err(if rest {
                            // BehaviorTree.CPP's `_autoremap` makes no port mandatory: the
                            // subtree finds no entry, and a read of it fails when it runs.
                            Diagnostic::warning(
                                "W0204",
                                format!("`{}` is called without its `{}` port", sig.name, p.name),
                                at,
                            )
                            .with_label(format!("`..` finds no variable `{}` here", p.name))
                            .with_secondary(declared, "declared here, without a default")
                            .with_help(format!("pass it, `{0}: value`, or declare a variable `{0}`: the tree reads a port that holds no value", p.name))
                        } else {
                            Diagnostic::error(
                                "E0306",
                                format!("`{}` needs its `{}` port", sig.name, p.name),
                                at,
                            )
                            .with_label("not given")
                            .with_secondary(declared, "declared here, without a default")
                            .with_help(format!("pass it: `{}: value`, or end the call with `..` to bind variables of the same names", p.name))
                        });
                    }
                    match p.default {
                        Some(d) => TBinding::Const(d),
                        None => TBinding::Default,
                    }
                }
            };
            out.push(b);
        }
        out
    }
}

/// What naming each port in a call refers to.
fn port_targets(ports: &[super::PortSig]) -> Vec<Option<Target>> {
    ports.iter().map(|p| Some(Target::Def(p.def))).collect()
}

/// Finds a parameter by either of its names. A node or tree with a few ports is searched in
/// order; one with many (an XML element with 200,000 attributes becomes a call with as many
/// arguments) through a map, so matching arguments stays linear.
enum ParamIndex<'p> {
    Few,
    Many(HashMap<&'p str, usize>),
}

impl<'p> ParamIndex<'p> {
    const FEW: usize = 16;

    fn new(params: &[(&'p str, &'p str)]) -> Self {
        if params.len() <= Self::FEW {
            return ParamIndex::Few;
        }
        let mut map = HashMap::with_capacity(params.len());
        for (j, (name, port)) in params.iter().enumerate() {
            map.entry(*name).or_insert(j);
            if port != name {
                map.entry(*port).or_insert(j);
            }
        }
        ParamIndex::Many(map)
    }

    /// The first parameter either of whose names is `name`.
    fn find(&self, params: &[(&str, &str)], name: &str) -> Option<usize> {
        match self {
            ParamIndex::Few => params
                .iter()
                .position(|(nm, port)| *nm == name || *port == name),
            ParamIndex::Many(map) => map.get(name).copied(),
        }
    }
}
