//! Checking behaviour trees: node names, arguments, children, modifiers, switches and
//! subtree calls. A tree becomes a template whose code refers to its own frame (ports, then
//! locals); each call site instantiates it (see `lower`).

use super::error::{Scope, SemaError};
use super::expr::{article, Cx};
use super::frame::{Frame, FrameVar, VarKind, ROOT_FLAG};
use super::ty::Ty;
use super::{Checker, Global};
use crate::builtins::{self, ArgType, Builtin, NodeClass};
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Arg, CaseValue, Code, Conditions, NodeKind, Op, PortBinding, Status};
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{
    self, Expr, ExprKind, LeafKind, ModifierKind, NodeKind as AstKind, PortDir,
};

/// A checked tree (or agent main block) ready to instantiate.
#[derive(Clone, Debug, Default)]
pub struct Template {
    pub frame: Frame,
    pub code: Vec<Op>,
    pub root: Option<TNode>,
    pub pending: Vec<(String, Span)>,
    /// An agent's behaviour module trees, each instantiated as a root of its own
    /// (`BehaviorChild::Tree` indexes this).
    pub roots: Vec<TNode>,
    /// An agent's behaviour arbiter, its codes relative to this template's code.
    pub behaviors: Option<crate::ir::program::Behaviors>,
    /// The agent's `tendencies` tables by machine name, for `tendencies(machine)` nodes.
    pub tendencies: Vec<(String, Vec<ast::TendencyArm>)>,
}

#[derive(Clone, Debug)]
pub struct TNode {
    pub kind: TKind,
    pub conds: Conditions,
    /// BehaviorTree.CPP's registration ID.
    pub id: String,
    pub label: Option<String>,
    pub children: Vec<TNode>,
    /// Where the node is written; kept for diagnostics about lowered nodes.
    #[allow(dead_code)]
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TKind {
    Node(NodeKind),
    SubTree {
        tree: u32,
        bindings: Vec<TBinding>,
        name_span: Span,
    },
}

/// How a subtree call binds one of the tree's ports.
#[derive(Clone, Copy, Debug)]
pub enum TBinding {
    /// The caller's variable (a frame operand, possibly `ROOT_FLAG`ged).
    Var(u32),
    /// A literal: the instance gets its own slot holding it.
    Const(f64),
    /// Not bound: the instance gets its own slot with the port's default.
    Default,
    /// An `in` port given as an expression of the caller: computed into the instance's own
    /// slot when the subtree starts.
    Expr(Code),
}

pub struct TreeCx<'a> {
    pub c: &'a mut Checker,
    pub t: &'a mut Template,
    pub traits: &'a [(String, f64)],
    /// Statement blocks `do { }` may call `tendencies(machine)` and similar agent-only nodes.
    pub in_agent: bool,
}

impl<'a> TreeCx<'a> {
    /// Checking inside an agent: its members and personality traits are in scope, and
    /// agent-only nodes (`tendencies(machine)`) may be called.
    pub fn agent(c: &'a mut Checker, t: &'a mut Template, traits: &'a [(String, f64)]) -> Self {
        TreeCx {
            c,
            t,
            traits,
            in_agent: true,
        }
    }

    /// Checking a tree: only its ports and locals are in scope.
    pub fn tree(c: &'a mut Checker, t: &'a mut Template) -> Self {
        TreeCx {
            c,
            t,
            traits: &[],
            in_agent: false,
        }
    }
}

impl TreeCx<'_> {
    fn cx(&mut self) -> Cx<'_> {
        Cx {
            g: &self.c.g,
            frame: &mut self.t.frame,
            code: &mut self.t.code,
            diags: &mut self.c.diags,
            strings: &mut self.c.strings,
            lists: &mut self.c.lists,
            traits: self.traits,
            pending: &mut self.t.pending,
        }
    }

    fn err(&mut self, d: Diagnostic) {
        self.c.diags.push(d);
    }

    /// Compiles an expression into its own code range.
    pub fn code_expr(&mut self, e: &Expr, want: &Ty, what: &str) -> (Code, Ty) {
        let start = self.t.code.len() as u32;
        let ty = self.cx().expect(e, want, what);
        (
            Code {
                start,
                len: self.t.code.len() as u32 - start,
            },
            ty,
        )
    }

    /// Checks a block meant to hold one root node (`owner` names it in errors).
    pub fn one_root(&mut self, b: &ast::NodeBlock, owner: &str) -> Option<TNode> {
        let mut nodes: Vec<TNode> = b.nodes.iter().map(|n| self.node(n)).collect();
        if nodes.len() != 1 {
            self.c.report(SemaError::Roots {
                owner: owner.to_string(),
                found: nodes.len(),
                span: b.span,
            });
        }
        nodes.truncate(1);
        nodes.pop()
    }

    /// Compiles an expression with no expectation, returning its type.
    pub fn cx_expr(&mut self, e: &Expr) -> Ty {
        self.cx().expr(e, None)
    }

    pub fn code_block(&mut self, b: &ast::Block) -> Code {
        let start = self.t.code.len() as u32;
        self.cx().block(b);
        Code {
            start,
            len: self.t.code.len() as u32 - start,
        }
    }

    /// An argument as BehaviorTree.CPP reads it: a constant when it folds, else code.
    fn arg(&mut self, e: &Expr, want: &Ty, what: &str) -> Arg {
        let (code, _) = self.code_expr(e, want, what);
        let ops = &self.t.code[code.start as usize..(code.start + code.len) as usize];
        match crate::ir::eval::eval_const(ops) {
            Some(v) => Arg::Const(v),
            None => Arg::Expr(code),
        }
    }

    /// A variable argument (`skip_unless_updated(place)`): its frame operand.
    fn variable(&mut self, e: &Expr, what: &str) -> Option<(u32, Ty)> {
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => {
                let name = &p.segments[0].name;
                match self.t.frame.get(name) {
                    Some(i) => {
                        self.t.frame.vars[i as usize].used = true;
                        Some((i, self.t.frame.vars[i as usize].ty.clone()))
                    }
                    None => {
                        // Unknown names are reported as such; a constant or an enum variant
                        // is a value, not a variable.
                        let before = self.c.diags.len();
                        self.scratch_expr(e);
                        if self.c.diags.len() == before {
                            self.not_a_variable(e, what);
                        }
                        None
                    }
                }
            }
            ExprKind::Root(id) => Some((self.t.frame.root_ref(&id.name, id.span), Ty::Any)),
            _ => {
                self.scratch_expr(e);
                self.not_a_variable(e, what);
                None
            }
        }
    }

    /// An `out` or `inout` port bound to a variable writes it: it must be assignable.
    fn check_writable(&mut self, slot: u32, port: &str, span: Span) {
        if slot & ROOT_FLAG != 0 || self.t.frame.vars[slot as usize].kind.assignable() {
            return;
        }
        let v = &self.t.frame.vars[slot as usize];
        let (vn, vkind, decl) = (v.name.clone(), v.kind, v.span);
        let help = match vkind {
            VarKind::Let => "a `let` is recomputed every tick: write into a `var` instead",
            VarKind::Sensor | VarKind::Event => {
                "devices are written by the runtime: write into a `var` instead"
            }
            VarKind::Port(PortDir::In) => {
                "`in` ports are read-only: declare the tree's port `inout` or `out`"
            }
            _ => "write into a `var` instead",
        };
        self.err(
            Diagnostic::error(
                "E0311",
                format!("{port} would write `{vn}`, a {}", vkind.describe()),
                span,
            )
            .with_label("not writable")
            .with_secondary(decl, format!("`{vn}` is declared here"))
            .with_help(help),
        );
    }

    fn not_a_variable(&mut self, e: &Expr, what: &str) {
        let writes = what.contains("`out` port") || what.contains("`inout` port");
        let help = if writes {
            "the node writes this port: bind it to a `var` (or a port of the tree) that receives the value"
        } else {
            "write the name of a `var`, a port or a sensor"
        };
        self.err(
            Diagnostic::error("E0307", format!("{what} must be a variable"), e.span)
                .with_label("not a variable")
                .with_help(help),
        );
    }

    pub fn node(&mut self, n: &ast::Node) -> TNode {
        if let Some(t) = self.xml_id_node(n) {
            return t;
        }
        let conds = self.conditions(n);
        let label = n.label.as_ref().map(|l| l.text.clone());
        let (kind, id, children) = match &n.kind {
            AstKind::Call {
                name,
                args,
                children,
            } => self.call(n, name, args.as_ref(), children.as_ref()),
            AstKind::Script(b) => {
                let code = self.code_block(b);
                (
                    TKind::Node(NodeKind::Script { code }),
                    builtins::SCRIPT_ID.to_string(),
                    vec![],
                )
            }
            AstKind::Check(e) => {
                let (cond, _) = self.code_expr(e, &Ty::Bool, "a `check` condition");
                (
                    TKind::Node(NodeKind::ScriptCondition { cond }),
                    builtins::SCRIPT_CONDITION_ID.to_string(),
                    vec![],
                )
            }
            AstKind::Switch { subject, arms } => self.switch(n.span, subject, arms),
            AstKind::For { var, queue, body } => {
                let q = self.variable(queue, "the queue");
                // `for x in q` declares `x` when it is not a variable yet.
                if self.t.frame.get(&var.name).is_none() {
                    let elem = match &q {
                        Some((_, Ty::List(e))) => (**e).clone(),
                        _ => Ty::Any,
                    };
                    self.t.frame.add(FrameVar {
                        name: var.name.clone(),
                        ty: elem,
                        kind: VarKind::Local,
                        init: 0.0,
                        range: None,
                        span: var.span,
                        used: true,
                        doc: None,
                    });
                }
                let value =
                    self.variable(&Expr::name(var.name.clone(), var.span), "the loop variable");
                if let Some((slot, _)) = value {
                    self.check_writable(slot, "`for`", var.span);
                }
                let children = self.children(body, 1, 1, "for");
                let (queue, elem) = match q {
                    Some((s, Ty::List(elem))) => (s, *elem),
                    Some((s, t)) => {
                        if !t.is_error() && t != Ty::Any {
                            let shown = self.c.g.show(&t);
                            self.err(
                                Diagnostic::error(
                                    "E0301",
                                    format!("`for` needs a list, found {}", article(&shown)),
                                    queue.span,
                                )
                                .with_label("not a list")
                                .with_help("`for x in queue` pops each element of a list variable"),
                            );
                        }
                        (s, Ty::Any)
                    }
                    None => (0, Ty::Error),
                };
                if let Some((_, vt)) = &value {
                    if !elem.fits(vt) {
                        let (se, sv) = (self.c.g.show(&elem), self.c.g.show(vt));
                        self.err(Diagnostic::error(
                            "E0301",
                            format!(
                                "the queue holds {} but `{}` is {}",
                                article(&se),
                                var.name,
                                article(&sv)
                            ),
                            var.span,
                        ));
                    }
                }
                let id = match elem {
                    Ty::Int => "LoopInt",
                    Ty::Bool => "LoopBool",
                    Ty::Str => "LoopString",
                    _ => "LoopDouble",
                };
                let kind = NodeKind::Loop {
                    queue,
                    value: value.map(|v| v.0).unwrap_or(0),
                    if_empty: Status::Success,
                };
                (TKind::Node(kind), id.to_string(), children)
            }
            AstKind::Error => (
                TKind::Node(NodeKind::AlwaysFailure),
                "AlwaysFailure".into(),
                vec![],
            ),
        };
        TNode {
            kind,
            conds,
            id,
            label,
            children,
            span: n.span,
        }
    }

    /// A call of a BehaviorTree.CPP built-in by its XML ID (`Script(code: "..")`,
    /// `RetryUntilSuccessful(num_attempts: 3) { .. }`), when no declaration has that name:
    /// checked as the affect node it is, keeping the ID for traces.
    fn xml_id_node(&mut self, n: &ast::Node) -> Option<TNode> {
        let AstKind::Call { name, children, .. } = &n.kind else {
            return None;
        };
        let text = name.to_string_path();
        if builtins::by_name(&text).is_some()
            || self.c.g.names.contains_key(&text)
            || !super::xml_ids::is_xml_id(&text)
        {
            return None;
        }
        match super::xml_ids::desugar(n, &text)? {
            super::xml_ids::Desugared::Node(new) => {
                let mut t = self.node(&new);
                t.id = text;
                Some(t)
            }
            super::xml_ids::Desugared::StandIn(kind) => {
                let conds = self.conditions(n);
                let leaf = self.stand_in_leaf(&text, kind);
                let children = match (kind, children) {
                    (LeafKind::Action | LeafKind::Condition, c) => {
                        self.no_children(c.as_ref(), &text);
                        vec![]
                    }
                    (LeafKind::Decorator, Some(c)) => self.children(c, 1, 1, &text),
                    (_, Some(c)) => self.children(c, 1, usize::MAX, &text),
                    (_, None) => vec![],
                };
                Some(TNode {
                    kind: TKind::Node(NodeKind::Foreign {
                        leaf,
                        ports: vec![],
                    }),
                    conds,
                    id: text,
                    label: n.label.as_ref().map(|l| l.text.clone()),
                    children,
                    span: n.span,
                })
            }
            super::xml_ids::Desugared::Error(d) => {
                self.err(d);
                Some(TNode {
                    kind: TKind::Node(NodeKind::AlwaysFailure),
                    conds: Conditions::default(),
                    id: text,
                    label: None,
                    children: vec![],
                    span: n.span,
                })
            }
        }
    }

    /// The stand-in leaf for a BehaviorTree.CPP built-in affect cannot run as written: a
    /// foreign node of that ID, without ports (stand-ins never read them).
    fn stand_in_leaf(&mut self, id: &str, kind: LeafKind) -> u32 {
        let found = self
            .c
            .g
            .leaves
            .iter()
            .position(|l| l.name == id && l.kind == kind && l.span == Span::DUMMY);
        match found {
            Some(i) => i as u32,
            None => {
                self.c.g.leaves.push(super::LeafDef {
                    name: id.to_string(),
                    kind,
                    ports: vec![],
                    span: Span::DUMMY,
                    doc: None,
                });
                self.c.g.leaves.len() as u32 - 1
            }
        }
    }

    fn conditions(&mut self, n: &ast::Node) -> Conditions {
        let mut c = Conditions::default();
        for m in &n.modifiers {
            match &m.kind {
                ModifierKind::SkipIf(e) => {
                    c.skip_if = Some(self.code_expr(e, &Ty::Bool, "a `skip_if` condition").0)
                }
                ModifierKind::SuccessIf(e) => {
                    c.success_if = Some(self.code_expr(e, &Ty::Bool, "a `success_if` condition").0)
                }
                ModifierKind::FailureIf(e) => {
                    c.failure_if = Some(self.code_expr(e, &Ty::Bool, "a `failure_if` condition").0)
                }
                ModifierKind::While(e) => {
                    c.while_ = Some(self.code_expr(e, &Ty::Bool, "a `while` condition").0)
                }
                ModifierKind::OnSuccess(b) => c.on_success = Some(self.code_block(b)),
                ModifierKind::OnFailure(b) => c.on_failure = Some(self.code_block(b)),
                ModifierKind::OnHalted(b) => c.on_halted = Some(self.code_block(b)),
                ModifierKind::After(b) => c.post = Some(self.code_block(b)),
            }
        }
        c
    }

    fn children(
        &mut self,
        block: &ast::NodeBlock,
        min: usize,
        max: usize,
        what: &str,
    ) -> Vec<TNode> {
        let out: Vec<TNode> = block.nodes.iter().map(|n| self.node(n)).collect();
        let n = out.len();
        if n < min || n > max {
            let want = match (min, max) {
                (a, b) if a == b => format!("exactly {a} child{}", if a == 1 { "" } else { "ren" }),
                (a, usize::MAX) => format!("at least {a} child{}", if a == 1 { "" } else { "ren" }),
                (a, b) => format!("{a} to {b} children"),
            };
            let help = match (what, min) {
                (_, 1) if max == 1 => Some("wrap several nodes in `sequence { .. }`".to_string()),
                ("if_then_else", _) => Some(
                    "write the condition, the `then` branch and optionally the `else` branch"
                        .to_string(),
                ),
                ("while_do_else", _) => Some(
                    "write the condition, the `do` branch and optionally the `else` branch"
                        .to_string(),
                ),
                _ => None,
            };
            let mut d = Diagnostic::error(
                "E0312",
                format!("`{what}` takes {want}, found {n}"),
                block.span,
            )
            .with_label(format!("{n} child{} here", if n == 1 { "" } else { "ren" }));
            if let Some(h) = help {
                d = d.with_help(h);
            }
            self.err(d);
        }
        out
    }

    fn no_children(&mut self, children: Option<&ast::NodeBlock>, what: &str) {
        if let Some(c) = children {
            self.err(
                Diagnostic::error("E0312", format!("`{what}` takes no children"), c.span)
                    .with_label("remove this block")
                    .with_help(format!(
                        "`{what}` is a leaf: it is ticked, it does not tick other nodes"
                    )),
            );
        }
    }

    /// `tendencies(machine)`: the one argument names an emotion machine of the agent.
    fn tendencies_machine(
        &mut self,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
    ) -> Option<String> {
        let machines: Vec<String> = self
            .t
            .frame
            .vars
            .iter()
            .filter(|v| v.kind == VarKind::Machine)
            .map(|v| v.name.clone())
            .collect();
        let arg = match args.map(|a| a.args.as_slice()) {
            Some([a]) => a,
            _ => {
                let at = args.map_or(name.span, |a| a.span);
                self.err(
                    Diagnostic::error("E0310", "`tendencies` takes one emotion machine", at)
                        .with_label("one argument expected")
                        .with_help(match machines.first() {
                            Some(m) => format!("write `tendencies({m})`"),
                            None => {
                                "declare an `emotions` machine and its `tendencies` table first"
                                    .to_string()
                            }
                        }),
                );
                return None;
            }
        };
        let found = match &arg.value.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => {
                let n = &p.segments[0].name;
                match self.t.frame.get(n) {
                    Some(i) => {
                        self.t.frame.vars[i as usize].used = true;
                        (self.t.frame.vars[i as usize].kind == VarKind::Machine).then(|| n.clone())
                    }
                    None => None,
                }
            }
            _ => None,
        };
        if found.is_none() {
            let shown = crate::fmt::format_expr(&arg.value);
            let mut d = Diagnostic::error(
                "E0201",
                format!("`{shown}` is not an emotion machine of this agent"),
                arg.value.span,
            )
            .with_label("not an `emotions` member");
            d = match closest(&shown, machines.iter().map(String::as_str)) {
                Some(b) => d.with_help(format!("did you mean `{b}`?")),
                None if machines.is_empty() => {
                    d.with_help("declare an `emotions` machine and its `tendencies` table first")
                }
                None => d.with_help(format!("the machines are `{}`", machines.join("`, `"))),
            };
            self.err(d);
        }
        found
    }

    fn call(
        &mut self,
        node: &ast::Node,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        children: Option<&ast::NodeBlock>,
    ) -> (TKind, String, Vec<TNode>) {
        let text = name.to_string_path();
        if let Some(b) = builtins::by_name(&text) {
            return self.builtin(b, name, args, children);
        }
        if text == "tendencies" && !self.in_agent && !self.c.g.names.contains_key(&text) {
            self.err(
                Diagnostic::error(
                    "E0204",
                    "`tendencies(..)` runs an agent's tendency table",
                    name.span,
                )
                .with_label("not available in a tree")
                .with_help(
                    "call it in the agent's `main`, which sees the agent's emotion machines",
                ),
            );
            return (
                TKind::Node(NodeKind::AlwaysFailure),
                "Tendencies".into(),
                vec![],
            );
        }
        if text == "tendencies" && self.in_agent {
            self.no_children(children, "tendencies");
            if let Some(machine) = self.tendencies_machine(name, args) {
                if let Some(lowered) = self.tendencies_switch(node.span, &machine) {
                    return lowered;
                }
            }
            return (
                TKind::Node(NodeKind::AlwaysFailure),
                "Tendencies".into(),
                vec![],
            );
        }
        match self.c.g.names.get(&text).map(|(g, _)| *g) {
            Some(Global::Leaf(i)) => {
                self.c.used_globals.insert(text.clone());
                self.leaf(i, name, args, children)
            }
            Some(Global::Tree(i)) => {
                self.c.used_globals.insert(text.clone());
                self.no_children(children, &text);
                let bindings = self.subtree_bindings(i, name, args);
                (
                    TKind::SubTree {
                        tree: i,
                        bindings,
                        name_span: name.span,
                    },
                    builtins::SUBTREE_ID.to_string(),
                    vec![],
                )
            }
            Some(other) => {
                self.err(
                    Diagnostic::error("E0204", format!("`{text}` is not a tree node"), name.span)
                        .with_label(format!("this is {}", other.describe()))
                        .with_help("a node is a built-in, a declared `action`/`condition`/`control`/`decorator`, or a `tree`"),
                );
                (TKind::Node(NodeKind::AlwaysFailure), text, vec![])
            }
            None => {
                let mut candidates: Vec<&str> = builtins::BUILTINS.iter().map(|b| b.name).collect();
                candidates.extend(self.c.g.leaves.iter().map(|l| l.name.as_str()));
                candidates.extend(self.c.g.trees.iter().map(|t| t.name.as_str()));
                let best = closest(&text, candidates).map(str::to_string);
                self.c.used_globals.extend(best.clone());
                let looks_builtin = builtins::BUILTINS
                    .iter()
                    .find(|b| b.v4.is_some_and(|id| id.eq_ignore_ascii_case(&text)));
                let mut d = Diagnostic::error("E0204", format!("unknown node `{text}`"), name.span)
                    .with_label("no built-in, declaration or tree has this name");
                d = if let Some(b) = looks_builtin {
                    d.with_help(format!(
                        "BehaviorTree.CPP's `{}` is written `{}` in affect",
                        b.v4.unwrap_or_default(),
                        b.name
                    ))
                } else if let Some(b) = best {
                    d.with_help(format!("did you mean `{b}`?"))
                } else {
                    d.with_help(format!("declare it: `action {text}();`"))
                };
                self.err(d);
                if let Some(c) = children {
                    let _ = self.children(c, 0, usize::MAX, &text);
                }
                (TKind::Node(NodeKind::AlwaysFailure), text, vec![])
            }
        }
    }

    /// Matches call arguments to parameters by position, then by name.
    fn match_args<'e>(
        &mut self,
        what: &str,
        params: &[(&str, &str)],
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
        for (i, a) in args.args.iter().enumerate() {
            let slot = match &a.name {
                Some(n) => {
                    named = true;
                    let found = params
                        .iter()
                        .position(|(nm, port)| *nm == n.name || *port == n.name);
                    match found {
                        Some(j) => j,
                        None => {
                            let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
                            let mut d = Diagnostic::error(
                                "E0305",
                                format!("`{what}` has no argument `{}`", n.name),
                                n.span,
                            )
                            .with_label("unknown argument");
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
                            unknown = true;
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
    fn scratch_expr(&mut self, e: &Expr) {
        let start = self.t.code.len();
        self.cx().expr(e, None);
        self.t.code.truncate(start);
    }

    fn builtin(
        &mut self,
        b: &'static Builtin,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        children: Option<&ast::NodeBlock>,
    ) -> (TKind, String, Vec<TNode>) {
        let children_block = children;
        let params: Vec<(&str, &str)> = b.args.iter().map(|a| (a.name, a.port)).collect();
        let (given, unknown_arg) = self.match_args(b.name, &params, args, false);
        let mut vals: Vec<Option<Arg>> = Vec::new();
        let mut vars: Vec<Option<u32>> = Vec::new();
        let mut statuses: Vec<Option<Status>> = Vec::new();
        let mut conds: Vec<Option<Code>> = Vec::new();
        for (spec, e) in b.args.iter().zip(&given) {
            let (mut v, mut var, mut st, mut cond) = (None, None, None, None);
            match (e, spec.default) {
                (None, None) if unknown_arg => {}
                (None, None) => {
                    let at = args.map(|a| a.span).unwrap_or(name.span);
                    self.err(
                        Diagnostic::error(
                            "E0306",
                            format!("`{}` needs its `{}` argument", b.name, spec.name),
                            at,
                        )
                        .with_label("missing")
                        .with_help(format!("for example `{}`", example_call(b))),
                    );
                }
                (None, Some(d)) => {
                    v = Some(Arg::Const(parse_default(d)));
                    st = status_of(d);
                }
                (Some(e), _) => match spec.ty {
                    ArgType::Int => v = Some(self.arg(e, &Ty::Int, &format!("`{}`", spec.name))),
                    ArgType::Bool => v = Some(self.arg(e, &Ty::Bool, &format!("`{}`", spec.name))),
                    ArgType::Duration => {
                        v = Some(self.arg(e, &Ty::Duration, &format!("`{}`", spec.name)))
                    }
                    ArgType::Any | ArgType::Str => {
                        v = Some(self.arg(e, &Ty::Any, &format!("`{}`", spec.name)))
                    }
                    ArgType::Status => {
                        match self.arg(e, &Ty::Status, &format!("`{}`", spec.name)) {
                            Arg::Const(x) => st = Some(Status::from_index(x as u8)),
                            Arg::Expr(_) => self.err(
                                Diagnostic::error(
                                    "E0304",
                                    format!("`{}` must be a status written out", spec.name),
                                    e.span,
                                )
                                .with_label("not known before the tree runs")
                                .with_help("write `success`, `failure`, `running` or `skipped`"),
                            ),
                        }
                    }
                    ArgType::Condition => {
                        cond = Some(self.code_expr(e, &Ty::Bool, &format!("`{}`", spec.name)).0)
                    }
                    ArgType::Variable => {
                        var = self.variable(e, &format!("`{}`", spec.name)).map(|x| x.0);
                        // These are written by the node.
                        let writes = matches!(
                            (b.name, spec.name),
                            ("set_blackboard", "output_key") | ("loop", "value")
                        );
                        if let (true, Some(slot)) = (writes, var) {
                            let what = format!("`{}` of `{}`", spec.name, b.name);
                            self.check_writable(slot, &what, e.span);
                        }
                    }
                },
            }
            vals.push(v);
            vars.push(var);
            statuses.push(st);
            conds.push(cond);
        }
        let val = |i: usize| vals.get(i).copied().flatten().unwrap_or(Arg::Const(0.0));
        let boolean =
            |i: usize| matches!(vals.get(i).copied().flatten(), Some(Arg::Const(x)) if x != 0.0);
        let kind = match b.name {
            "sequence" => NodeKind::Sequence,
            "sequence_with_memory" => NodeKind::SequenceWithMemory,
            "reactive_sequence" => NodeKind::ReactiveSequence,
            "async_sequence" => NodeKind::AsyncSequence,
            "fallback" => NodeKind::Fallback,
            "reactive_fallback" => NodeKind::ReactiveFallback,
            "async_fallback" => NodeKind::AsyncFallback,
            "parallel" => NodeKind::Parallel {
                success: val(0),
                failure: val(1),
            },
            "parallel_all" => NodeKind::ParallelAll {
                max_failures: val(0),
            },
            "if_then_else" => NodeKind::IfThenElse,
            "while_do_else" => NodeKind::WhileDoElse,
            "try_catch" => NodeKind::TryCatch {
                catch_on_halt: boolean(0),
            },
            "invert" => NodeKind::Inverter,
            "force_success" => NodeKind::ForceSuccess,
            "force_failure" => NodeKind::ForceFailure,
            "repeat" => NodeKind::Repeat { cycles: val(0) },
            "retry" => NodeKind::Retry { attempts: val(0) },
            "keep_running_until_failure" => NodeKind::KeepRunningUntilFailure,
            "timeout" => NodeKind::Timeout { ms: val(0) },
            "delay" => NodeKind::Delay { ms: val(0) },
            "run_once" => NodeKind::RunOnce {
                then_skip: boolean(0),
            },
            "precondition" => NodeKind::Precondition {
                cond: conds.first().copied().flatten().unwrap_or_default(),
                otherwise: statuses
                    .get(1)
                    .copied()
                    .flatten()
                    .unwrap_or(Status::Failure),
            },
            "skip_unless_updated" => NodeKind::EntryUpdated {
                slot: vars[0].unwrap_or(0),
                if_not_updated: Status::Skipped,
            },
            "wait_update" => NodeKind::EntryUpdated {
                slot: vars[0].unwrap_or(0),
                if_not_updated: Status::Running,
            },
            "loop" => NodeKind::Loop {
                queue: vars[0].unwrap_or(0),
                value: vars[1].unwrap_or(0),
                if_empty: statuses
                    .get(2)
                    .copied()
                    .flatten()
                    .unwrap_or(Status::Success),
            },
            "succeed" => NodeKind::AlwaysSuccess,
            "fail" => NodeKind::AlwaysFailure,
            "sleep" => NodeKind::Sleep { ms: val(0) },
            "was_updated" => NodeKind::WasEntryUpdated {
                slot: vars[0].unwrap_or(0),
            },
            "set_blackboard" => {
                // SetBlackboard is a one-assignment script.
                let code = match (
                    given.first().copied().flatten(),
                    vars.get(1).copied().flatten(),
                ) {
                    (Some(value), Some(slot)) => {
                        let start = self.t.code.len() as u32;
                        let want = self.slot_ty(slot);
                        self.cx().expect(value, &want, "the value");
                        self.t.code.push(Op::Store(slot));
                        Code {
                            start,
                            len: self.t.code.len() as u32 - start,
                        }
                    }
                    _ => Code::default(),
                };
                NodeKind::Script { code }
            }
            // v3's BlackboardCheck*: the child runs when the values are equal, else the node
            // returns `return_on_mismatch` (BehaviorTree.CPP 4 removed it; it runs as a
            // precondition, see docs/groot.md).
            "blackboard_check" => {
                let cond = match (
                    given.first().copied().flatten(),
                    given.get(1).copied().flatten(),
                ) {
                    (Some(a), Some(b)) => {
                        let eq = Expr {
                            kind: ExprKind::Binary(
                                ast::BinOp::Eq,
                                Box::new(a.clone()),
                                Box::new(b.clone()),
                            ),
                            span: a.span.to(b.span),
                        };
                        self.code_expr(&eq, &Ty::Bool, "the comparison").0
                    }
                    _ => Code::default(),
                };
                NodeKind::Precondition {
                    cond,
                    otherwise: statuses
                        .get(2)
                        .copied()
                        .flatten()
                        .unwrap_or(Status::Failure),
                }
            }
            other => {
                self.t
                    .pending
                    .push((format!("the node `{other}`"), name.span));
                NodeKind::AlwaysSuccess
            }
        };
        let id = match (&kind, b.v4) {
            (NodeKind::Loop { .. }, _) => "LoopDouble".to_string(),
            (_, Some(id)) => id.to_string(),
            (_, None) => b.v3.unwrap_or(b.name).to_string(),
        };
        let children = match b.class {
            NodeClass::Action | NodeClass::Condition => {
                self.no_children(children, b.name);
                vec![]
            }
            NodeClass::Control | NodeClass::Decorator => match children {
                Some(block) => self.children(block, b.children.0, b.children.1, b.name),
                None => {
                    self.err(
                        Diagnostic::error(
                            "E0312",
                            format!("`{}` needs children", b.name),
                            name.span,
                        )
                        .with_label("no `{ .. }` block")
                        .with_help(format!("for example `{}`", example_call(b))),
                    );
                    vec![]
                }
            },
        };
        if let (NodeKind::Parallel { success, failure }, Some(block)) = (&kind, children_block) {
            // BehaviorTree.CPP refuses thresholds above the number of children when it ticks.
            let n = children.len();
            for (arg, what, plural) in [
                (success, "success", "successes"),
                (failure, "failure", "failures"),
            ] {
                if let Arg::Const(v) = arg {
                    if *v > n as f64 {
                        self.err(
                            Diagnostic::error(
                                "E0302",
                                format!("`parallel` needs {v} {plural} but has {n} children"),
                                block.span,
                            )
                            .with_label(format!("{n} children here"))
                            .with_help(format!(
                                "`{what}` is at most the number of children; `-1` means all of them"
                            )),
                        );
                    }
                }
            }
        }
        (TKind::Node(kind), id, children)
    }

    fn slot_ty(&self, operand: u32) -> Ty {
        if operand & ROOT_FLAG != 0 {
            Ty::Any
        } else {
            self.t.frame.vars[operand as usize].ty.clone()
        }
    }

    pub(crate) fn leaf(
        &mut self,
        i: u32,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        children: Option<&ast::NodeBlock>,
    ) -> (TKind, String, Vec<TNode>) {
        let def = self.c.g.leaves[i as usize].clone();
        let params: Vec<(&str, &str)> = def
            .ports
            .iter()
            .map(|p| (p.name.as_str(), p.name.as_str()))
            .collect();
        let (given, unknown_arg) = self.match_args(&def.name, &params, args, false);
        let mut ports = Vec::new();
        for (p, e) in def.ports.iter().zip(&given) {
            let binding = match (e, p.dir) {
                // `default="{key}"`: the port reads or writes that entry, when the caller has it.
                (None, dir) if p.default_key.is_some() => {
                    let key = p.default_key.clone().unwrap_or_default();
                    match self.t.frame.get(&key) {
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
                            .with_secondary(p.span, "declared here"),
                        );
                    }
                    match p.default {
                        Some(d) => PortBinding::In(Arg::Const(d)),
                        None => PortBinding::Absent,
                    }
                }
                (Some(e), PortDir::In) => {
                    PortBinding::In(self.arg(e, &p.ty, &format!("port `{}`", p.name)))
                }
                (Some(e), dir) => {
                    match self.variable(e, &format!("`{}` port `{}`", dir.keyword(), p.name)) {
                        Some((slot, vt)) => {
                            let ok = match dir {
                                PortDir::Out => p.ty.fits(&vt),
                                _ => p.ty.fits(&vt) && vt.fits(&p.ty),
                            };
                            if !ok {
                                let (sp, sv) = (self.c.g.show(&p.ty), self.c.g.show(&vt));
                                self.err(
                                    Diagnostic::error(
                                        super::expr::mismatch_code(&p.ty, &vt),
                                        format!(
                                            "port `{}` writes {} into {}",
                                            p.name,
                                            article(&sp),
                                            article(&sv)
                                        ),
                                        e.span,
                                    )
                                    .with_label(format!("this variable is {}", article(&sv)))
                                    .with_secondary(p.span, format!("declared {}", article(&sp))),
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

    pub(crate) fn subtree_bindings(
        &mut self,
        tree: u32,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
    ) -> Vec<TBinding> {
        let sig = self.c.g.trees[tree as usize].clone();
        let params: Vec<(&str, &str)> = sig
            .ports
            .iter()
            .map(|p| (p.name.as_str(), p.name.as_str()))
            .collect();
        let rest = args.and_then(|a| a.rest).is_some();
        let (given, unknown_arg) = self.match_args(&sig.name, &params, args, true);
        let mut out = Vec::new();
        for (p, e) in sig.ports.iter().zip(given) {
            let b = match e {
                Some(e) => {
                    let is_var = matches!(&e.kind, ExprKind::Root(_))
                        || matches!(&e.kind, ExprKind::Name(path) if path.segments.len() == 1 && self.t.frame.get(&path.segments[0].name).is_some());
                    if is_var {
                        match self.variable(e, &format!("port `{}`", p.name)) {
                            Some((slot, vt)) => {
                                let ok = match p.dir {
                                    PortDir::In => vt.fits(&p.ty),
                                    PortDir::Out => p.ty.fits(&vt),
                                    PortDir::InOut => vt.fits(&p.ty) && p.ty.fits(&vt),
                                };
                                if !ok {
                                    let (sp, sv) = (self.c.g.show(&p.ty), self.c.g.show(&vt));
                                    self.err(
                                        Diagnostic::error(
                                            super::expr::mismatch_code(&vt, &p.ty),
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
                                        .with_secondary(p.span, "the port is declared here"),
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
                        let (code, _) = self.code_expr(e, &p.ty, &format!("port `{}`", p.name));
                        let ops =
                            &self.t.code[code.start as usize..(code.start + code.len) as usize];
                        match crate::ir::eval::eval_const(ops) {
                            Some(v) => TBinding::Const(v),
                            None => TBinding::Expr(code),
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
                        let help = if rest {
                            format!(
                                "`..` binds a port to the variable of the same name, and there is no variable `{0}` here: pass it, `{0}: value`",
                                p.name
                            )
                        } else {
                            format!("pass it: `{}: value`, or end the call with `..` to bind variables of the same names", p.name)
                        };
                        self.err(
                            Diagnostic::error(
                                "E0306",
                                format!("`{}` needs its `{}` port", sig.name, p.name),
                                args.map(|a| a.span).unwrap_or(name.span),
                            )
                            .with_label("not given")
                            .with_secondary(p.span, "declared here, without a default")
                            .with_help(help),
                        );
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

    fn switch(
        &mut self,
        span: Span,
        subject: &Expr,
        arms: &[ast::SwitchArm],
    ) -> (TKind, String, Vec<TNode>) {
        let start = self.t.code.len() as u32;
        let sty = self.cx().expr(subject, None);
        let code = Code {
            start,
            len: self.t.code.len() as u32 - start,
        };
        let mut cases: Vec<CaseValue> = Vec::new();
        let mut children = Vec::new();
        let mut default: Option<TNode> = None;
        let mut seen: Vec<(String, Span)> = Vec::new();
        // A case already reported makes the coverage check guess: it is skipped then.
        let mut bad_case = false;
        for arm in arms {
            match &arm.pattern {
                ast::Pattern::Wildcard(ws) => {
                    if default.is_some() {
                        self.err(
                            Diagnostic::error("E0314", "a switch has one `_` arm", *ws)
                                .with_label("second default"),
                        );
                    }
                    default = Some(self.node(&arm.node));
                    continue;
                }
                ast::Pattern::Expr(e) => {
                    if default.is_some() {
                        self.err(
                            Diagnostic::error(
                                "E0314",
                                "this arm comes after `_` and is never chosen",
                                e.span,
                            )
                            .with_label("unreachable")
                            .with_help("put `_ => ..` last"),
                        );
                    }
                    let pstart = self.t.code.len();
                    let before = self.c.diags.len();
                    let pty = self.cx().expr(e, Some(&sty));
                    let folded = crate::ir::eval::eval_const(&self.t.code[pstart..]);
                    self.t.code.truncate(pstart);
                    let mut arm_bad = false;
                    if self.c.diags.len() > before {
                        arm_bad = true;
                    } else if folded.is_none() {
                        arm_bad = true;
                        self.err(
                            Diagnostic::error("E0314", "a switch case must be a constant", e.span)
                                .with_label("computed while the tree runs")
                                .with_help("write a literal, a constant or an enum variant; test other values with `if_then_else` and `check`"),
                        );
                    }
                    let value = folded.unwrap_or(0.0);
                    if !pty.fits(&sty) && !sty.is_error() {
                        arm_bad = true;
                        let (sp, ss) = (self.c.g.show(&pty), self.c.g.show(&sty));
                        self.err(
                            Diagnostic::error(
                                "E0314",
                                format!(
                                    "this case is {} but the switch is on {}",
                                    article(&sp),
                                    article(&ss)
                                ),
                                e.span,
                            )
                            .with_label("wrong type"),
                        );
                    }
                    let text = match (&e.kind, &sty) {
                        (_, Ty::Enum(ei)) => self.c.g.enums[*ei as usize]
                            .variants
                            .get(value as usize)
                            .cloned()
                            .unwrap_or_default(),
                        (ExprKind::Str(s), _) => s.clone(),
                        (ExprKind::Num(n), _) => n.text.clone(),
                        _ => crate::fmt::format_expr(e),
                    };
                    bad_case |= arm_bad;
                    let earlier = seen.iter().find(|(t, _)| *t == text).filter(|_| !arm_bad);
                    if let Some((_, first)) = earlier {
                        self.err(
                            Diagnostic::error(
                                "E0314",
                                format!("case `{text}` appears twice"),
                                e.span,
                            )
                            .with_label("again here")
                            .with_secondary(*first, "first here"),
                        );
                    }
                    if !arm_bad {
                        seen.push((text.clone(), e.span));
                    }
                    cases.push(CaseValue { text, value });
                    children.push(self.node(&arm.node));
                }
            }
        }
        if let Ty::Enum(ei) = &sty {
            if default.is_none() {
                let missing: Vec<String> = self.c.g.enums[*ei as usize]
                    .variants
                    .iter()
                    .filter(|v| !seen.iter().any(|(t, _)| t == *v))
                    .cloned()
                    .collect();
                if !missing.is_empty() && !bad_case {
                    let name = self.c.g.enums[*ei as usize].name.clone();
                    self.err(
                        Diagnostic::error(
                            "E0308",
                            format!("this switch does not cover every `{name}`"),
                            subject.span,
                        )
                        .with_label(format!("missing {}", missing.join(", ")))
                        .with_help("add arms for them, or a default arm `_ => ..`"),
                    );
                }
            }
        } else if default.is_none() && !sty.is_error() {
            self.err(
                Diagnostic::error(
                    "E0308",
                    "a switch on a value that is not an enum needs a default arm",
                    span,
                )
                .with_label("no `_ => ..` arm")
                .with_help("add `_ => fail` (or another node) as the last arm"),
            );
        }
        if cases.is_empty() || cases.len() > 6 {
            let (label, help) = if cases.is_empty() {
                (
                    "no case to choose",
                    "a switch with only `_` always ticks that node: write the node alone",
                )
            } else {
                (
                    "BehaviorTree.CPP's Switch2..Switch6 allow at most 6",
                    "split it into nested switches, or use `if_then_else`",
                )
            };
            self.err(
                Diagnostic::error(
                    "E0315",
                    format!(
                        "a switch takes 1 to 6 cases besides `_`, found {}",
                        cases.len()
                    ),
                    span,
                )
                .with_label(label)
                .with_help(help),
            );
        }
        // BehaviorTree.CPP's Switch always has a default child: the last.
        children.push(default.unwrap_or_else(|| TNode {
            kind: TKind::Node(NodeKind::AlwaysFailure),
            conds: Conditions::default(),
            id: "AlwaysFailure".into(),
            label: None,
            children: vec![],
            span,
        }));
        let id = builtins::switch_id(cases.len().max(2)).unwrap_or_else(|| "Switch6".into());
        let kind = NodeKind::Switch {
            subject: code,
            subject_kind: sty.value_kind(),
            cases,
        };
        (TKind::Node(kind), id, children)
    }
}

fn parse_default(d: &str) -> f64 {
    match d {
        "true" => 1.0,
        "false" => 0.0,
        _ => match status_of(d) {
            Some(s) => s as u8 as f64,
            None => d.parse().unwrap_or(0.0),
        },
    }
}

fn status_of(d: &str) -> Option<Status> {
    Some(match d {
        "SUCCESS" => Status::Success,
        "FAILURE" => Status::Failure,
        "RUNNING" => Status::Running,
        "SKIPPED" => Status::Skipped,
        "IDLE" => Status::Idle,
        _ => return None,
    })
}

fn example_call(b: &Builtin) -> String {
    let args: Vec<String> = b
        .args
        .iter()
        .filter(|a| a.default.is_none())
        .map(|a| match a.ty {
            ArgType::Int => "3".to_string(),
            ArgType::Duration => "2s".to_string(),
            ArgType::Condition => format!("{}: battery > 20", a.name),
            ArgType::Variable => "place".to_string(),
            _ => format!("{}: ..", a.name),
        })
        .collect();
    let args = if args.is_empty() {
        String::new()
    } else {
        format!("({})", args.join(", "))
    };
    match b.class {
        NodeClass::Action | NodeClass::Condition => format!("{}{args}", b.name),
        _ => format!("{}{args} {{ .. }}", b.name),
    }
}

/// Builds a tree's frame: its ports, then its locals.
pub fn tree_frame(c: &mut Checker, tree: &ast::TreeDecl, sig_ports: &[super::PortSig]) -> Frame {
    let mut frame = Frame {
        tree: Some(tree.name.name.clone()),
        ..Frame::default()
    };
    for p in sig_ports {
        frame.add(FrameVar {
            name: p.name.clone(),
            ty: p.ty.clone(),
            kind: VarKind::Port(p.dir),
            init: p.default.unwrap_or(0.0),
            range: None,
            span: p.span,
            used: true,
            doc: p.doc.clone(),
        });
    }
    c.runtime_names = sig_ports
        .iter()
        .map(|p| p.name.clone())
        .chain(tree.locals.iter().map(|v| v.name.name.clone()))
        .collect();
    for v in &tree.locals {
        if let Some(prev) = frame.get(&v.name.name) {
            c.report(SemaError::DeclaredTwice {
                name: v.name.name.clone(),
                span: v.name.span,
                first: Some(frame.vars[prev as usize].span),
                scope: Scope::Tree(tree.name.name.clone()),
            });
            continue;
        }
        let (ty, init, range) = c.var_type_and_init(&v.name, v.ty.as_ref(), v.init.as_ref());
        frame.add(FrameVar {
            name: v.name.name.clone(),
            ty,
            kind: VarKind::Local,
            init,
            range,
            span: v.name.span,
            used: false,
            doc: v.doc.as_ref().map(|d| d.text()),
        });
    }
    frame
}
