//! Calls of the built-in nodes (`sequence`, `retry(3)`, `parallel(success: 2)`, ...): their
//! arguments checked against the node table, their children counted, and the node they are.

use super::frame::ROOT_FLAG;
use super::index::Target;
use super::tree::{TKind, TNode, TreeCx};
use super::ty::Ty;
use crate::builtins::{Access, ArgType, Builtin, NodeClass};
use crate::diagnostic::Diagnostic;
use crate::ir::program::{
    Arg, Code, Decorator, DecoratorArg, DecoratorKind, NodeKind, Op, Status, UNSET,
};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind};

/// A built-in's arguments as its node needs them (by position in the node table).
struct BuiltinArgs {
    vals: Vec<Option<Arg>>,
    vars: Vec<Option<u32>>,
    statuses: Vec<Option<Status>>,
    conds: Vec<Option<Code>>,
}

impl TreeCx<'_> {
    pub(super) fn builtin(
        &mut self,
        b: &'static Builtin,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        children: Option<&ast::NodeBlock>,
    ) -> (TKind, String, Vec<TNode>) {
        let params: Vec<(&str, &str)> = b.args.iter().map(|a| (a.name, a.port)).collect();
        let targets: Vec<Option<Target>> = (0..b.args.len())
            .map(|k| Some(Target::BuiltinArg(b, k)))
            .collect();
        let (given, unknown_arg) = self.match_args(b.name, &params, &targets, args, false);
        let values = self.builtin_args(b, name, args, &given, unknown_arg);
        let kind = match DecoratorKind::of(b) {
            Some(family) => NodeKind::Decorator(decorator(family, b, &values)),
            None => self.builtin_kind(b, name, &given, &values),
        };
        let id = match b.v4 {
            Some(id) => id.to_string(),
            None => b.v3.unwrap_or(b.name).to_string(),
        };
        let kids = self.builtin_children(b, name, children);
        if let (NodeKind::Parallel { success, failure }, Some(block)) = (&kind, children) {
            self.parallel_thresholds(*success, *failure, kids.len(), block.span);
        }
        (TKind::Node(kind), id, kids)
    }

    /// The arguments of a built-in, each as its type asks: a value, a variable, a status or
    /// a condition.
    fn builtin_args(
        &mut self,
        b: &'static Builtin,
        name: &ast::Path,
        args: Option<&ast::ArgList>,
        given: &[Option<&Expr>],
        unknown_arg: bool,
    ) -> BuiltinArgs {
        let mut vals: Vec<Option<Arg>> = Vec::new();
        let mut vars: Vec<Option<u32>> = Vec::new();
        let mut statuses: Vec<Option<Status>> = Vec::new();
        let mut conds: Vec<Option<Code>> = Vec::new();
        for (spec, e) in b.args.iter().zip(given) {
            let (mut v, mut var, mut st, mut cond) = (None, None, None, None);
            match (e, spec.default) {
                (None, None) if unknown_arg => {}
                // BehaviorTree.CPP loads a SetBlackboard without a key (`output_key=""`, which
                // the import keeps as written): it writes an entry no `{key}` can name.
                (None, None)
                    if self.c.behavior_tree_xml
                        && (b.name, spec.name) == ("set_blackboard", "output_key") => {}
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
                    st = Status::from_name(d);
                }
                (Some(e), _) => match spec.ty {
                    ArgType::Int => v = Some(self.arg(e, &Ty::Int, &format!("`{}`", spec.name))),
                    ArgType::Bool => v = Some(self.arg(e, &Ty::Bool, &format!("`{}`", spec.name))),
                    ArgType::Duration => {
                        // Not "`msec` must be a duration": the port's name reads as a unit.
                        let what = match b.args.len() {
                            1 => format!("the argument of `{}`", b.name),
                            _ => format!("the `{}` argument of `{}`", spec.name, b.name),
                        };
                        v = Some(self.arg(e, &Ty::Duration, &what))
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
                        let writes = spec.access == Access::Write;
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
        BuiltinArgs {
            vals,
            vars,
            statuses,
            conds,
        }
    }

    /// The node a built-in is, from its arguments.
    fn builtin_kind(
        &mut self,
        b: &'static Builtin,
        name: &ast::Path,
        given: &[Option<&Expr>],
        a: &BuiltinArgs,
    ) -> NodeKind {
        let (vals, vars, statuses) = (&a.vals, &a.vars, &a.statuses);
        let val = |i: usize| vals.get(i).copied().flatten().unwrap_or(Arg::Const(0.0));
        let boolean =
            |i: usize| matches!(vals.get(i).copied().flatten(), Some(Arg::Const(x)) if x != 0.0);
        match b.name {
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
            "unset_blackboard" => self.unset_blackboard(given.first().copied().flatten()),
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
                let otherwise = statuses.get(2).copied().flatten();
                NodeKind::Decorator(Decorator {
                    kind: DecoratorKind::Precondition,
                    args: vec![
                        DecoratorArg::Code(cond),
                        DecoratorArg::Status(otherwise.unwrap_or(Status::Failure)),
                    ],
                })
            }
            other => {
                self.t
                    .pending
                    .push((format!("the node `{other}`"), name.span));
                NodeKind::AlwaysSuccess
            }
        }
    }

    /// UnsetBlackboard is a one-store script: the variable the key names gets [`UNSET`], so
    /// reading it before the next write is BehaviorTree.CPP's "Variable not found". A key
    /// naming no variable removes nothing (BehaviorTree.CPP returns SUCCESS all the same).
    /// For a list variable the store becomes `ListSet` (`Builder::copy_code`), which marks
    /// the variable's list unset and keeps its storage for the next write.
    fn unset_blackboard(&mut self, key: Option<&Expr>) -> NodeKind {
        let name = match key.map(|e| (&e.kind, e.span)) {
            Some((ExprKind::Str(k), span)) => Some((k.clone(), span)),
            _ => None,
        };
        let Some((slot, span)) = name.and_then(|(k, span)| Some((self.t.frame.get(&k)?, span)))
        else {
            return NodeKind::Script {
                code: Code::default(),
            };
        };
        self.t.frame.vars[slot as usize].used = true;
        self.check_writable(slot, "`key` of `unset_blackboard`", span);
        let start = self.t.code.len() as u32;
        self.t.code.extend([Op::Const(UNSET), Op::Store(slot)]);
        NodeKind::Script {
            code: Code { start, len: 2 },
        }
    }

    /// The children of a built-in: none for actions and conditions, a block for the others.
    fn builtin_children(
        &mut self,
        b: &'static Builtin,
        name: &ast::Path,
        children: Option<&ast::NodeBlock>,
    ) -> Vec<TNode> {
        match b.class {
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
        }
    }

    /// BehaviorTree.CPP refuses thresholds above the number of children when it ticks.
    fn parallel_thresholds(&mut self, success: Arg, failure: Arg, n: usize, at: Span) {
        for (arg, what, plural) in [
            (&success, "success", "successes"),
            (&failure, "failure", "failures"),
        ] {
            if let Arg::Const(v) = arg {
                if *v > n as f64 {
                    self.err(
                        Diagnostic::error(
                            "E0302",
                            format!("`parallel` needs {v} {plural} but has {n} children"),
                            at,
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

    pub(super) fn slot_ty(&self, operand: u32) -> Ty {
        if operand & ROOT_FLAG != 0 {
            Ty::Any
        } else {
            self.t.frame.vars[operand as usize].ty.clone()
        }
    }
}

/// A decorator family's node: its arguments lowered by their types, in its row's order (a
/// missing one, already reported, as its default or a placeholder).
fn decorator(kind: DecoratorKind, b: &Builtin, a: &BuiltinArgs) -> Decorator {
    let args = b.args.iter().enumerate().map(|(i, spec)| match spec.ty {
        ArgType::Condition => DecoratorArg::Code(a.conds[i].unwrap_or_default()),
        ArgType::Variable => DecoratorArg::Slot(a.vars[i].unwrap_or(0), spec.access),
        ArgType::Status => DecoratorArg::Status(a.statuses[i].unwrap_or(Status::Idle)),
        ArgType::Bool => DecoratorArg::Flag(matches!(a.vals[i], Some(Arg::Const(x)) if x != 0.0)),
        _ => DecoratorArg::Value(a.vals[i].unwrap_or(Arg::Const(0.0))),
    });
    Decorator {
        kind,
        args: args.collect(),
    }
}

fn parse_default(d: &str) -> f64 {
    match d {
        "true" => 1.0,
        "false" => 0.0,
        _ => match Status::from_name(d) {
            Some(s) => s as u8 as f64,
            None => d.parse().unwrap_or(0.0),
        },
    }
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
