//! `tendencies` tables of an agent (seed 000): the arms must name states of their machine and
//! the targets trees, tendencies or declared nodes; every state must be covered.

use super::error::{SemaError, Table};
use super::frame::VarKind;
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{self, ExprKind};

impl Checker {
    pub(super) fn tendencies(
        &mut self,
        machine: &ast::Ident,
        arms: &[ast::TendencyArm],
        t: &mut Template,
        traits: &[(String, f64)],
        span: Span,
    ) {
        if t.tendencies.iter().any(|(m, _)| *m == machine.name) {
            self.diags.push(
                Diagnostic::error(
                    "E0202",
                    format!("a second `tendencies` table for `{}`", machine.name),
                    span,
                )
                .with_label("the first table is the one that runs")
                .with_help("merge the two tables into one"),
            );
        }
        t.tendencies.push((machine.name.clone(), arms.to_vec()));
        let ty = self.tendency_machine(machine, t);
        let mut covered = Vec::new();
        let mut wildcard = false;
        let mut bad_pattern = false;
        for arm in arms {
            match &arm.pattern {
                ast::Pattern::Wildcard(_) => wildcard = true,
                ast::Pattern::Expr(e) => match self.tendency_state(&ty, e) {
                    Some(v) => covered.push(v),
                    None => bad_pattern = true,
                },
            }
            for target in &arm.targets {
                self.tendency_target(target, t, traits);
            }
        }
        if let Ty::Enum(ei) = ty {
            let e = &self.g.enums[ei as usize];
            // One pass each way: tables of thousands of states stay linear.
            let mut is_covered = vec![false; e.variants.len()];
            for &v in &covered {
                if let Some(c) = is_covered.get_mut(v) {
                    *c = true;
                }
            }
            let missing: Vec<String> = e
                .variants
                .iter()
                .enumerate()
                .filter(|(i, _)| !is_covered[*i])
                .map(|(_, v)| v.clone())
                .collect();
            if !wildcard && !bad_pattern && !missing.is_empty() {
                self.report(SemaError::Uncovered {
                    table: Table::Tendencies(machine.name.clone()),
                    missing,
                    span,
                });
            }
        }
    }

    /// The emotion machine a table belongs to: its type (its states' enum).
    fn tendency_machine(&mut self, machine: &ast::Ident, t: &mut Template) -> Ty {
        let slot = t
            .frame
            .get(&machine.name)
            .filter(|&i| t.frame.vars[i as usize].kind == VarKind::Machine);
        let Some(i) = slot else {
            let machines: Vec<&str> = t
                .frame
                .vars
                .iter()
                .filter(|v| v.kind == VarKind::Machine)
                .map(|v| v.name.as_str())
                .collect();
            let mut d = Diagnostic::error(
                "E0201",
                format!("no emotion machine `{}` in this agent", machine.name),
                machine.span,
            )
            .with_label("not an `emotions` member");
            d = match crate::suggest::closest(&machine.name, machines.iter().copied()) {
                Some(b) => d.with_help(format!("did you mean `{b}`?")),
                None => d.with_help(format!(
                    "a `tendencies` table belongs to an emotion machine: declare it with `emotions {}: States = Initial {{ .. }}`",
                    machine.name
                )),
            };
            self.diags.push(d);
            return Ty::Error;
        };
        let v = &mut t.frame.vars[i as usize];
        v.used = true;
        self.index.refer_def(machine.span, v.def);
        v.ty.clone()
    }

    /// The state an arm names (its index), or `None` when it names none (reported).
    fn tendency_state(&mut self, ty: &Ty, e: &ast::Expr) -> Option<usize> {
        let ExprKind::Name(p) = &e.kind else {
            self.diags.push(
                Diagnostic::error(
                    "E0314",
                    "a tendency arm names a state of its machine",
                    e.span,
                )
                .with_label("not a state")
                .with_help("write a variant of the machine's enum, or `_` for the others"),
            );
            return None;
        };
        let id = p.last().clone();
        let before = self.diags.len();
        let v = self.variant_of(ty, &id);
        (self.diags.len() == before).then_some(v as usize)
    }

    /// A target of an arm: a tree or declared node (its arguments bind its ports like a call
    /// in `main`), or a tendency.
    fn tendency_target(
        &mut self,
        target: &ast::TendencyTarget,
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let n = target.name.to_string_path();
        self.index.refer_global(target.name.span, &n);
        match self.g.names.get(&n).map(|g| g.0) {
            Some(g @ (super::Global::Tree(_) | super::Global::Leaf(_))) => {
                self.used_globals.insert(n);
                let start = t.code.len();
                let mut tc = TreeCx::agent(self, t, traits);
                match g {
                    super::Global::Tree(i) => {
                        tc.subtree_bindings(i, &target.name, target.args.as_ref());
                    }
                    super::Global::Leaf(i) => {
                        tc.leaf(i, &target.name, target.args.as_ref(), None);
                    }
                    _ => {}
                }
                t.code.truncate(start);
            }
            Some(super::Global::Tendency) => {
                self.used_globals.insert(n);
            }
            _ => {
                let mut candidates: Vec<&str> =
                    self.g.trees.iter().map(|t| t.name.as_str()).collect();
                candidates.extend(self.g.leaves.iter().map(|l| l.name.as_str()));
                let best = crate::suggest::closest(&n, candidates).map(str::to_string);
                self.used_globals.extend(best.clone());
                let mut d = Diagnostic::error(
                    "E0201",
                    format!("unknown behaviour `{n}`"),
                    target.name.span,
                )
                .with_label("not a tree, tendency or node");
                d = match best {
                    Some(b) => d.with_help(format!("did you mean `{b}`?")),
                    None => d.with_help("a tendency selects a `tree` (or declared node) to run"),
                };
                self.diags.push(d);
            }
        }
    }
}
