//! `tendencies(machine)`: the agent's action-tendency table for the machine's current state,
//! written as BehaviorTree.CPP's `Switch` on the machine's entry (docs/affect.md, "Action
//! tendencies"): one case per state, an arm with several targets as a `ParallelAll` (the
//! emotion's suite of plans, failing when one fails), `_` as the default (else a failure).

use super::Exporter;
use crate::span::Span;
use crate::syntax::ast::*;

impl Exporter {
    /// Remembers the agent's tables, with the enum type of each machine's state.
    pub(super) fn tendency_tables(&mut self, members: &[Member]) {
        self.tendencies.clear();
        for m in members {
            let MemberKind::Tendencies { machine, arms } = &m.kind else {
                continue;
            };
            let ty = members.iter().find_map(|e| match &e.kind {
                MemberKind::Emotions { name, ty, .. } if name.name == machine.name => {
                    Some(ty.clone())
                }
                _ => None,
            });
            if let Some(ty) = ty {
                self.tendencies
                    .insert(machine.name.clone(), (ty, arms.clone()));
            }
        }
    }

    /// The `switch` a `tendencies(machine)` node stands for, when the agent has the table.
    pub(super) fn tendencies_switch(&self, n: &Node) -> Option<Node> {
        let NodeKind::Call {
            name,
            args: Some(args),
            children: None,
        } = &n.kind
        else {
            return None;
        };
        if name.segments.len() != 1 || name.segments[0].name != "tendencies" {
            return None;
        }
        let [Arg {
            name: None, value, ..
        }] = args.args.as_slice()
        else {
            return None;
        };
        let ExprKind::Name(machine) = &value.kind else {
            return None;
        };
        let (ty, arms) = self.tendencies.get(&machine.last().name)?;
        let enum_name = crate::fmt::format_type(ty);
        let arms: Vec<SwitchArm> = arms
            .iter()
            .map(|a| SwitchArm {
                doc: a.doc.clone(),
                pattern: match &a.pattern {
                    Pattern::Expr(Expr {
                        kind: ExprKind::Name(p),
                        span,
                    }) if p.segments.len() == 1 => Pattern::Expr(Expr {
                        kind: ExprKind::Name(Path {
                            segments: vec![
                                Ident::new(&enum_name, Span::DUMMY),
                                p.segments[0].clone(),
                            ],
                            span: *span,
                        }),
                        span: *span,
                    }),
                    other => other.clone(),
                },
                node: plans(&a.targets, a.span),
                span: a.span,
            })
            .collect();
        Some(chained(n, value, arms))
    }
}

/// BehaviorTree.CPP's largest Switch has six cases.
const MAX_CASES: usize = 6;

/// The switch on `subject` over `arms`; a table of more than six states is a chain of switches
/// on the same entry, each with the next one as its default (the last with the table's `_`).
fn chained(n: &Node, subject: &Expr, mut arms: Vec<SwitchArm>) -> Node {
    let default = match arms.last() {
        Some(SwitchArm {
            pattern: Pattern::Wildcard(_),
            ..
        }) => arms.pop(),
        _ => None,
    };
    let kind = |mut arms: Vec<SwitchArm>, default: Option<SwitchArm>| {
        arms.extend(default);
        NodeKind::Switch {
            subject: subject.clone(),
            arms,
        }
    };
    // Built from the last chunk of cases back to the first, each the next one's default; only
    // the first is the node written (its label, modifiers and attributes).
    let mut chunks: Vec<Vec<SwitchArm>> = Vec::new();
    while arms.len() > MAX_CASES {
        let rest = arms.split_off(MAX_CASES);
        chunks.push(std::mem::replace(&mut arms, rest));
    }
    let mut kind_ = kind(arms, default);
    for cases in chunks.into_iter().rev() {
        let rest = SwitchArm {
            doc: None,
            pattern: Pattern::Wildcard(n.span),
            node: Node {
                doc: None,
                attrs: Vec::new(),
                label: None,
                kind: kind_,
                modifiers: Vec::new(),
                span: n.span,
            },
            span: n.span,
        };
        kind_ = kind(cases, Some(rest));
    }
    Node {
        kind: kind_,
        ..n.clone()
    }
}

/// An arm's targets: the one call, or several side by side.
fn plans(targets: &[TendencyTarget], span: Span) -> Node {
    let call = |t: &TendencyTarget| Node {
        doc: None,
        attrs: Vec::new(),
        label: None,
        kind: NodeKind::Call {
            name: t.name.clone(),
            args: t.args.clone(),
            children: None,
        },
        modifiers: Vec::new(),
        span: t.span,
    };
    match targets {
        [one] => call(one),
        many => Node {
            doc: None,
            attrs: Vec::new(),
            label: None,
            kind: NodeKind::Call {
                name: Path::single(Ident::new("parallel_all", Span::DUMMY)),
                args: None,
                children: Some(NodeBlock {
                    nodes: many.iter().map(call).collect(),
                    span,
                }),
            },
            modifiers: Vec::new(),
            span,
        },
    }
}
