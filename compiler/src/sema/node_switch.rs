//! `switch subject { value => node ... }`: BehaviorTree.CPP's `Switch2`..`Switch6`, with the
//! cases checked against the subject's type.

use super::tree::{TKind, TNode, TreeCx};
use super::ty::Ty;
use super::wording::article;
use crate::builtins;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{CaseValue, Code, Conditions, NodeKind};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind};

impl TreeCx<'_> {
    pub(super) fn switch(
        &mut self,
        span: Span,
        subject: &Expr,
        arms: &[ast::SwitchArm],
    ) -> (TKind, String, Vec<TNode>) {
        let start = self.t.code.len() as u32;
        let mut sty = self.cx().expr(subject, None);
        // An entry nothing types, switched on with a word as a case, holds text: BehaviorTree.CPP
        // reads a Switch's variable as a string and compares the cases with it as text.
        let word = |a: &ast::SwitchArm| matches!(&a.pattern, ast::Pattern::Expr(Expr { kind: ExprKind::Str(s), .. }) if s.trim().parse::<f64>().is_err());
        if sty == Ty::Any && arms.iter().any(word) {
            sty = Ty::Str;
        }
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
                }
                ast::Pattern::Expr(e) => {
                    let (case, ok) = self.switch_case(e, &sty, default.is_some(), &seen);
                    bad_case |= !ok;
                    if ok {
                        seen.push((case.text.clone(), e.span));
                    }
                    cases.push(case);
                    children.push(self.node(&arm.node));
                }
            }
        }
        self.switch_coverage(span, subject, &sty, default.is_some(), &seen, bad_case);
        self.switch_size(span, cases.len());
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

    /// One case: a constant of the subject's type, not seen before. Returns the case and
    /// whether it is sound (a reported case is left out of the coverage check).
    fn switch_case(
        &mut self,
        e: &Expr,
        sty: &Ty,
        after_default: bool,
        seen: &[(String, Span)],
    ) -> (CaseValue, bool) {
        if after_default {
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
        let pty = match (&e.kind, sty) {
            // BehaviorTree.CPP compares a Switch's cases with its variable as text
            // (`CheckStringEquality`): on a `str` subject a number is the string it is spelt as.
            (ExprKind::Num(n), Ty::Str) if n.unit.is_none() => {
                let sym = self.c.strings.intern(&n.text);
                self.t.code.push(crate::ir::program::Op::Const(sym as f64));
                Ty::Str
            }
            _ => self.cx().expr(e, Some(sty)),
        };
        let folded = crate::ir::eval::eval_const(&self.t.code[pstart..]);
        self.t.code.truncate(pstart);
        let mut ok = true;
        if self.c.diags.len() > before {
            ok = false;
        } else if folded.is_none() {
            ok = false;
            self.err(
                Diagnostic::error("E0314", "a switch case must be a constant", e.span)
                    .with_label("computed while the tree runs")
                    .with_help("write a literal, a constant or an enum variant; test other values with `if_then_else` and `check`"),
            );
        }
        let value = folded.unwrap_or(0.0);
        if !pty.fits(sty) && !sty.is_error() {
            ok = false;
            let (sp, ss) = (self.c.g.show(&pty), self.c.g.show(sty));
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
        let text = match (&e.kind, sty) {
            (_, Ty::Enum(ei)) => self.c.g.enums[*ei as usize]
                .variants
                .get(value as usize)
                .cloned()
                .unwrap_or_default(),
            (ExprKind::Str(s), _) => s.clone(),
            (ExprKind::Num(n), _) => n.text.clone(),
            _ => crate::fmt::format_expr(e),
        };
        let earlier = seen.iter().find(|(t, _)| *t == text).filter(|_| ok);
        if let Some((_, first)) = earlier {
            // BehaviorTree.CPP loads a Switch with a repeated case and takes the first that
            // matches: the later arm is dead, not wrong.
            self.err(
                Diagnostic::warning("W0205", format!("case `{text}` appears twice"), e.span)
                    .with_label("never chosen")
                    .with_secondary(*first, "the first arm with this case is chosen")
                    .with_help("remove this arm, or give it the case you meant"),
            );
        }
        (CaseValue { text, value }, ok)
    }

    /// Every value of an enum subject has a case, or there is a default.
    fn switch_coverage(
        &mut self,
        span: Span,
        subject: &Expr,
        sty: &Ty,
        has_default: bool,
        seen: &[(String, Span)],
        bad_case: bool,
    ) {
        if has_default {
            return;
        }
        let Ty::Enum(ei) = sty else {
            if !sty.is_error() {
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
            return;
        };
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

    /// BehaviorTree.CPP's Switch2..Switch6: 1 to 6 cases.
    fn switch_size(&mut self, span: Span, cases: usize) {
        if (1..=6).contains(&cases) {
            return;
        }
        let (label, help) = if cases == 0 {
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
                format!("a switch takes 1 to 6 cases besides `_`, found {cases}"),
                span,
            )
            .with_label(label)
            .with_help(help),
        );
    }
}
