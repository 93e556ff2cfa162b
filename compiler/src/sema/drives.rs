//! Drives and intentions (seed 003): rules in order, the first that holds sets the drive;
//! a change of drive generates a new intention.

use super::error::{SemaError, Table};
use super::frame::FrameVar;
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{DriveInfo, Op};
use crate::syntax::ast::{self, ExprKind};

impl Checker {
    /// Drives: rules in order, the first that holds sets the drive; a change sets the
    /// intention (seed 003).
    pub(super) fn drive(
        &mut self,
        d: &ast::DriveDecl,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Option<DriveInfo> {
        let slot = t.frame.get(&d.name.name)?;
        let ty = t.frame.vars[slot as usize].ty.clone();
        let intention = d.intention().and_then(|i| t.frame.get(&i.name.name));
        // previous = drive
        let prev = t.frame.add(FrameVar::temp(
            format!("{}.previous", d.name.name),
            ty.clone(),
            -1.0,
            d.name.span,
        ));
        let mut ends = Vec::new();
        for r in d.rules() {
            let target = self.variant_of(&ty, &r.target);
            let mut tc = TreeCx::agent(self, t, traits);
            tc.code_expr(&r.guard, &Ty::Bool, "a drive rule");
            let jf = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            t.code.extend([Op::Const(target), Op::Store(slot)]);
            ends.push(t.code.len());
            t.code.push(Op::Jump(0));
            let off = (t.code.len() - jf - 1) as u32;
            t.code[jf] = Op::JumpIfFalse(off);
        }
        for at in ends {
            let off = (t.code.len() - at - 1) as u32;
            t.code[at] = Op::Jump(off);
        }
        if let (Some(i), Some(islot)) = (d.intention(), intention) {
            let ity = t.frame.vars[islot as usize].ty.clone();
            // A new drive (or the first tick) generates a new intention.
            t.code.extend([Op::Load(slot), Op::Load(prev), Op::Ne]);
            let jf = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            let mut arm_ends = Vec::new();
            let mut covered = Vec::new();
            let mut wildcard = false;
            for arm in &i.arms {
                // if drive == p1 or drive == p2 { intention = value }
                for (tests, p) in arm.patterns.iter().enumerate() {
                    match p {
                        ast::Pattern::Wildcard(_) => {
                            wildcard = true;
                            t.code.push(Op::Const(1.0));
                        }
                        ast::Pattern::Expr(e) => {
                            let before = self.diags.len();
                            let v = match &e.kind {
                                ExprKind::Name(path) => self.variant_of(&ty, path.last()),
                                _ => {
                                    self.diags.push(
                                        Diagnostic::error(
                                            "E0314",
                                            "an intention arm names drive values",
                                            e.span,
                                        )
                                        .with_label("not a drive value")
                                        .with_help("write values of the drive's enum, or `_` for the others"),
                                    );
                                    0.0
                                }
                            };
                            if self.diags.len() == before {
                                covered.push(v as usize);
                            } else {
                                // Reported: not every value is then listed on top of it.
                                wildcard = true;
                            }
                            t.code.extend([Op::Load(slot), Op::Const(v), Op::Eq]);
                        }
                    }
                    if tests > 0 {
                        t.code.push(Op::BitOr);
                    }
                }
                let af = t.code.len();
                t.code.push(Op::JumpIfFalse(0));
                let mut tc = TreeCx::agent(self, t, traits);
                tc.code_expr(&arm.value, &ity, "the intention");
                t.code.push(Op::Store(islot));
                arm_ends.push(t.code.len());
                t.code.push(Op::Jump(0));
                let off = (t.code.len() - af - 1) as u32;
                t.code[af] = Op::JumpIfFalse(off);
            }
            for at in arm_ends {
                let off = (t.code.len() - at - 1) as u32;
                t.code[at] = Op::Jump(off);
            }
            let off = (t.code.len() - jf - 1) as u32;
            t.code[jf] = Op::JumpIfFalse(off);
            if let Ty::Enum(ei) = ty {
                let e = &self.g.enums[ei as usize];
                let missing: Vec<&str> = e
                    .variants
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !covered.contains(i))
                    .map(|(_, v)| v.as_str())
                    .collect();
                if !wildcard && !missing.is_empty() {
                    self.report(SemaError::Uncovered {
                        table: Table::Intention(d.name.name.clone()),
                        missing: missing.iter().map(|m| m.to_string()).collect(),
                        span: i.span,
                    });
                }
            }
        }
        // Remember this tick's drive: a change next tick generates a new intention (and the
        // first tick, whose `previous` starts at -1, generates the first one).
        t.code.extend([Op::Load(slot), Op::Store(prev)]);
        Some(DriveInfo {
            name: d.name.name.clone(),
            slot,
            intention,
        })
    }
}
