//! Checking behaviour trees: node names, arguments, children, modifiers, switches and
//! subtree calls. A tree becomes a template whose code refers to its own frame (ports, then
//! locals); each call site instantiates it (see `lower`).

use super::error::{Scope, SemaError, Write};
use super::expr::Cx;
use super::frame::{Frame, FrameVar, VarKind, ROOT_FLAG};
use super::index::{Decl, DefKind, Target, Visibility};
use super::signature;
use super::ty::Ty;
use super::wording::article;
use super::{Checker, Global};
use crate::builtins::{self};
use crate::diagnostic::Diagnostic;
use crate::ir::program::{
    Access, Arg, Code, Conditions, Decorator, DecoratorArg, DecoratorKind, NodeKind, Op, Status,
    UNSET,
};
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
        /// BehaviorTree.CPP's `_autoremap` (`..` in an imported file): every entry of the
        /// tree's own that the caller has is the caller's, not only its ports.
        autoremap: bool,
    },
}

/// How a subtree call binds one of the tree's ports.
#[derive(Clone, Debug)]
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
    /// An `in` port of type `any` given a list (a literal or an expression, `Const` or
    /// `Expr` inside): the instance's slot is a list variable of the argument's type, so it
    /// gets a copy of the list as every list-typed `in` port does.
    List(Box<TBinding>, super::ty::Ty),
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
    pub(super) fn cx(&mut self) -> Cx<'_> {
        Cx {
            g: &self.c.g,
            frame: &mut self.t.frame,
            code: &mut self.t.code,
            diags: &mut self.c.diags,
            strings: &mut self.c.strings,
            lists: &mut self.c.lists,
            traits: self.traits,
            pending: &mut self.t.pending,
            index: &mut self.c.index,
            initial: None,
        }
    }

    pub(super) fn err(&mut self, d: Diagnostic) {
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
    pub(super) fn arg(&mut self, e: &Expr, want: &Ty, what: &str) -> Arg {
        let (code, _) = self.code_expr(e, want, what);
        let ops = &self.t.code[code.start as usize..(code.start + code.len) as usize];
        match crate::ir::eval::eval_const(ops) {
            Some(v) => Arg::Const(v),
            None => Arg::Expr(code),
        }
    }

    /// A variable argument (`skip_unless_updated(place)`): its frame operand.
    pub(super) fn variable(&mut self, e: &Expr, what: &str) -> Option<(u32, Ty)> {
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => {
                let name = &p.segments[0].name;
                match self.t.frame.get(name) {
                    Some(i) => {
                        self.t.frame.vars[i as usize].used = true;
                        let def = self.t.frame.vars[i as usize].def;
                        self.c.index.refer_def(p.segments[0].span, def);
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

    /// A `for` loop's queue: a list variable the loop pops, or a list literal (BehaviorTree.CPP's
    /// `queue="1;2;3"`), which gets a hidden list of its own, filled with a copy of the literal
    /// each time the loop starts (the code returned), as BehaviorTree.CPP's static queue.
    fn queue(&mut self, e: &Expr) -> (Option<(u32, Ty)>, Option<Code>) {
        if !matches!(e.kind, ExprKind::List(_)) {
            return (self.variable(e, "the queue"), None);
        }
        let start = self.t.code.len() as u32;
        let ty = self.cx_expr(e);
        let code = Code {
            start,
            len: self.t.code.len() as u32 - start,
        };
        let name = format!("for queue {}", self.t.frame.vars.len());
        let slot = self
            .t
            .frame
            .add(super::frame::FrameVar::temp(name, ty.clone(), 0.0, e.span));
        (Some((slot, ty)), Some(code))
    }

    /// Whether `e` names a variable of the frame (or a root entry), as a port binding.
    pub(super) fn names_variable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Root(_) => true,
            ExprKind::Name(p) => {
                p.segments.len() == 1 && self.t.frame.get(&p.segments[0].name).is_some()
            }
            _ => false,
        }
    }

    /// An `out` or `inout` port bound to a variable writes it: it must be assignable.
    pub(super) fn check_writable(&mut self, slot: u32, port: &str, span: Span) {
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
        self.c.report(SemaError::NotAssignable {
            name: vn,
            what: vkind.describe().to_string(),
            write: Write::Port(port.to_string()),
            span,
            decl,
            help,
        });
    }

    pub(super) fn not_a_variable(&mut self, e: &Expr, what: &str) {
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
                let (q, fill) = self.queue(queue);
                // `for x in q` declares `x` when it is not a variable yet.
                if self.t.frame.get(&var.name).is_none() {
                    let elem = match &q {
                        Some((_, Ty::List(e))) => (**e).clone(),
                        _ => Ty::Any,
                    };
                    let sig = format!("for {} in {}", var.name, crate::fmt::format_expr(queue));
                    let decl =
                        Decl::new(var.span, sig, Visibility::Within(body.span)).ty(elem.clone());
                    let def = self.c.index.define(var, DefKind::LoopVar, decl);
                    self.t.frame.add(FrameVar {
                        name: var.name.clone(),
                        ty: elem,
                        kind: VarKind::Local,
                        init: 0.0,
                        range: None,
                        span: var.span,
                        used: true,
                        doc: None,
                        def: Some(def),
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
                // `for` has no syntax for BehaviorTree.CPP's `if_empty`: an imported loop
                // carries it as `#[if_empty = "FAILURE"]`.
                let if_empty = n
                    .attrs
                    .iter()
                    .find(|a| a.name.name == "if_empty")
                    .and_then(|a| match a.value.as_ref().map(|v| &v.kind) {
                        Some(ExprKind::Str(s)) => Status::from_name(s),
                        _ => None,
                    })
                    .unwrap_or(Status::Success);
                // The loop family's node, its arguments in its row's order; a literal queue
                // adds the code that fills its hidden list when the loop starts.
                let mut args = vec![
                    DecoratorArg::Slot(queue, Access::ReadWrite),
                    DecoratorArg::Slot(value.map(|v| v.0).unwrap_or(0), Access::Write),
                    DecoratorArg::Status(if_empty),
                ];
                args.extend(fill.map(DecoratorArg::Code));
                let kind = NodeKind::Decorator(Decorator {
                    kind: DecoratorKind::Loop,
                    args,
                });
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
    pub(super) fn xml_id_node(&mut self, n: &ast::Node) -> Option<TNode> {
        let AstKind::Call { name, children, .. } = &n.kind else {
            return None;
        };
        let text = name.text();
        if builtins::by_name(&text).is_some()
            || self.c.g.names.contains_key(&*text)
            || !super::xml_ids::is_xml_id(&text)
        {
            return None;
        }
        let text = text.into_owned();
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
    pub(super) fn stand_in_leaf(&mut self, id: &str, kind: LeafKind) -> u32 {
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
                    ports: Default::default(),
                    span: Span::DUMMY,
                    doc: None,
                });
                self.c.g.leaves.len() as u32 - 1
            }
        }
    }

    pub(super) fn conditions(&mut self, n: &ast::Node) -> Conditions {
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

    pub(super) fn children(
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

    pub(super) fn no_children(&mut self, children: Option<&ast::NodeBlock>, what: &str) {
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
    pub(super) fn tendencies_machine(
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
                        let def = self.t.frame.vars[i as usize].def;
                        self.c.index.refer_def(p.segments[0].span, def);
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

    pub(super) fn call(
        &mut self,
        node: &ast::Node,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        children: Option<&ast::NodeBlock>,
    ) -> (TKind, String, Vec<TNode>) {
        let text = name.text();
        if let Some(b) = builtins::by_name(&text) {
            self.c.index.refer(name.span, Target::Builtin(b));
            return self.builtin(b, name, args, children);
        }
        let text = text.into_owned();
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
            self.c.index.refer(name.span, Target::TendenciesNode);
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
        self.c.index.refer_global(name.span, &text);
        match self.c.g.names.get(&text).map(|(g, _)| *g) {
            Some(Global::Leaf(i)) => {
                self.c.used_globals.insert(text.clone());
                self.leaf(i, name, args, children)
            }
            Some(Global::Tree(i)) => {
                self.c.used_globals.insert(text.clone());
                self.no_children(children, &text);
                let bindings = self.subtree_bindings(i, name, args);
                let autoremap = self.c.behavior_tree_xml && args.and_then(|a| a.rest).is_some();
                (
                    TKind::SubTree {
                        tree: i,
                        bindings,
                        name_span: name.span,
                        autoremap,
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
}

/// Builds a tree's frame: its ports, then its locals.
pub fn tree_frame(c: &mut Checker, tree: &ast::TreeDecl, sig_ports: &[super::PortSig]) -> Frame {
    let mut frame = Frame {
        tree: Some(tree.name.name.clone()),
        ..Frame::default()
    };
    for p in sig_ports {
        let def = c.index.def(p.def);
        frame.add(FrameVar {
            name: p.name.to_string(),
            ty: p.ty(&c.index),
            kind: VarKind::Port(p.dir),
            init: p.default.unwrap_or(0.0),
            range: None,
            span: def.name_span,
            used: true,
            doc: def.doc.as_deref().map(str::to_string),
            def: Some(p.def),
        });
    }
    c.runtime_names = sig_ports
        .iter()
        .map(|p| p.name.to_string())
        .chain(tree.locals.iter().map(|v| v.name.name.clone()))
        .collect();
    let owner = c.index.declared_at(tree.name.span);
    let inside = Visibility::Within(tree.name.span.to(tree.body.span));
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
        // No initial value: an input (`--bb`, a caller's port), unset until written.
        let init = if v.init.is_none() { UNSET } else { init };
        let doc = v.doc.as_ref().map(|d| d.text());
        let sig = signature::var(&v.name, v.ty.as_ref(), v.init.as_ref());
        let mut decl = Decl::new(v.span, sig, inside)
            .doc(doc.clone())
            .ty(ty.clone());
        decl.parent = owner;
        let def = c.index.define(&v.name, DefKind::Local, decl);
        frame.add(FrameVar {
            name: v.name.name.clone(),
            ty,
            kind: VarKind::Local,
            init,
            range,
            span: v.name.span,
            used: false,
            doc,
            def: Some(def),
        });
    }
    frame
}
