//! The `tendencies(machine)` node (seed 000): the agent's tendency table for an emotion
//! machine, lowered to BehaviorTree.CPP's `Switch` on the machine's state. Each arm runs its
//! target; an arm with several targets runs them side by side (`ParallelAll`, failing when
//! one fails), the emotion's suite of plans. More than six emotions chain switches through
//! the default child.

use super::frame::VarKind;
use super::tree::{TKind, TNode, TreeCx};
use super::ty::Ty;
use super::Global;
use crate::builtins;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Arg, CaseValue, Code, Conditions, NodeKind, Op};
use crate::span::Span;
use crate::syntax::ast::{self, ExprKind};

/// BehaviorTree.CPP's largest switch (`Switch6`).
const MAX_CASES: usize = 6;

impl TreeCx<'_> {
    /// Lowers `tendencies(machine)`; `None` when the table cannot be built (already
    /// reported where the table is declared, or reported here).
    pub(super) fn tendencies_switch(
        &mut self,
        span: Span,
        machine: &str,
    ) -> Option<(TKind, String, Vec<TNode>)> {
        let slot = self
            .t
            .frame
            .get(machine)
            .filter(|&i| self.t.frame.vars[i as usize].kind == VarKind::Machine)?;
        let Ty::Enum(ei) = self.t.frame.vars[slot as usize].ty else {
            return None;
        };
        let Some(arms) = self
            .t
            .tendencies
            .iter()
            .find(|(m, _)| m == machine)
            .map(|(_, a)| a.clone())
        else {
            self.c.diags.push(
                Diagnostic::error(
                    "E0204",
                    format!("agent has no `tendencies` table for `{machine}`"),
                    span,
                )
                .with_label("nothing to run")
                .with_help(format!(
                    "declare one in the agent: `tendencies {machine} {{ State => Tree; ... }}`"
                )),
            );
            return None;
        };
        // Each switch of the chain nests the next one level deeper, and every later phase
        // walks the tree recursively: the chain obeys the syntax's depth limit.
        let max = crate::syntax::depth::MAX_DEPTH;
        if arms.len() > max * (MAX_CASES - 1) {
            self.c.diags.push(
                Diagnostic::error("E0118", format!("nested deeper than {max} levels"), span)
                    .with_label(format!(
                        "the table for `{machine}` has {} arms: a chain of {} switches",
                        arms.len(),
                        arms.len().div_ceil(MAX_CASES - 1)
                    ))
                    .with_help(format!(
                        "a tendency table runs at most {} arms: give the machine fewer states, or share targets through `_`",
                        max * (MAX_CASES - 1)
                    )),
            );
            return None;
        }
        // The table was checked where it is declared; lowering its targets again here must
        // not report the same problems twice.
        let reported = self.c.diags.len();
        let variants = self.c.g.enums[ei as usize].variants.clone();
        let mut cases = Vec::new();
        let mut children = Vec::new();
        let mut default = None;
        for arm in &arms {
            let node = self.tendency_arm(arm);
            match &arm.pattern {
                ast::Pattern::Wildcard(_) => default = default.or(Some(node)),
                ast::Pattern::Expr(e) => {
                    let ExprKind::Name(p) = &e.kind else { continue };
                    let name = &p.last().name;
                    let Some(v) = variants.iter().position(|x| x == name) else {
                        continue;
                    };
                    cases.push(CaseValue {
                        text: name.clone(),
                        value: v as f64,
                    });
                    children.push(node);
                }
            }
        }
        self.c.diags.truncate(reported);
        let default =
            default.unwrap_or_else(|| leaf_node(NodeKind::AlwaysFailure, "AlwaysFailure", span));
        let arms: Vec<(CaseValue, TNode)> = cases.into_iter().zip(children).collect();
        Some(self.switch_chain(arms, default, slot, ei, span))
    }

    /// A switch over the arms; more than six arms chain into the default child, since
    /// BehaviorTree.CPP's largest switch is `Switch6`.
    fn switch_chain(
        &mut self,
        mut arms: Vec<(CaseValue, TNode)>,
        default: TNode,
        slot: u32,
        ei: u32,
        span: Span,
    ) -> (TKind, String, Vec<TNode>) {
        let start = self.t.code.len() as u32;
        self.t.code.push(Op::Load(slot));
        let subject = Code { start, len: 1 };
        let default = if arms.len() > MAX_CASES {
            let rest = arms.split_off(MAX_CASES - 1);
            let (kind, id, children) = self.switch_chain(rest, default, slot, ei, span);
            TNode {
                kind,
                conds: Conditions::default(),
                id,
                label: None,
                children,
                span,
            }
        } else {
            default
        };
        let (cases, mut children): (Vec<CaseValue>, Vec<TNode>) = arms.into_iter().unzip();
        children.push(default);
        let id = builtins::switch_id(cases.len().max(2)).unwrap_or_else(|| "Switch6".into());
        (
            TKind::Node(NodeKind::Switch {
                subject,
                subject_kind: Ty::Enum(ei).value_kind(),
                cases,
            }),
            id,
            children,
        )
    }

    /// One arm: its target, or its targets side by side.
    fn tendency_arm(&mut self, arm: &ast::TendencyArm) -> TNode {
        let mut nodes: Vec<TNode> = arm
            .targets
            .iter()
            .map(|t| self.tendency_target(t))
            .collect();
        if nodes.len() == 1 {
            return nodes.remove(0);
        }
        TNode {
            kind: TKind::Node(NodeKind::ParallelAll {
                max_failures: Arg::Const(1.0),
            }),
            conds: Conditions::default(),
            id: "ParallelAll".into(),
            label: None,
            children: nodes,
            span: arm.span,
        }
    }

    fn tendency_target(&mut self, target: &ast::TendencyTarget) -> TNode {
        let n = target.name.to_string_path();
        let (kind, id, children) = match self.c.g.names.get(&n).map(|g| g.0) {
            Some(Global::Tree(i)) => {
                let bindings = self.subtree_bindings(i, &target.name, target.args.as_ref());
                (
                    TKind::SubTree {
                        tree: i,
                        bindings,
                        name_span: target.name.span,
                        autoremap: false,
                    },
                    builtins::SUBTREE_ID.to_string(),
                    vec![],
                )
            }
            Some(Global::Leaf(i)) => self.leaf(i, &target.name, target.args.as_ref(), None),
            Some(Global::Tendency) => {
                // A tendency's behaviours are listed per role (seed 000's Table 2); which role
                // this agent plays is not said, so there is nothing to run yet.
                self.t.pending.push((
                    "a `tendency` as the target of a tendency arm".into(),
                    target.span,
                ));
                (
                    TKind::Node(NodeKind::AlwaysFailure),
                    "AlwaysFailure".into(),
                    vec![],
                )
            }
            _ => (
                TKind::Node(NodeKind::AlwaysFailure),
                "AlwaysFailure".into(),
                vec![],
            ),
        };
        TNode {
            kind,
            conds: Conditions::default(),
            id,
            label: None,
            children,
            span: target.span,
        }
    }
}

fn leaf_node(kind: NodeKind, id: &str, span: Span) -> TNode {
    TNode {
        kind: TKind::Node(kind),
        conds: Conditions::default(),
        id: id.into(),
        label: None,
        children: vec![],
        span,
    }
}
