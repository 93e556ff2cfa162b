//! Derived values: hormones and `let`s, compiled into the process phase in the order their
//! dependencies need (a cycle is reported), and a hormone's baseline and half-life.

use super::expr::article;
use super::frame::{FrameVar, VarKind};
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::functions::Function;
use crate::ir::program::Op;
use crate::syntax::ast::{self, Expr, ExprKind, MemberKind, SettingEntry};

impl Checker {
    /// Hormones and `let`s, in the order their dependencies need.
    pub(super) fn derived_values(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
        dt_ms: f64,
    ) {
        let derived: Vec<(&ast::Ident, &ast::Member)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Let { name, .. } | MemberKind::Hormone { name, .. } => Some((name, m)),
                _ => None,
            })
            .collect();
        // The first value of each name (a duplicate is reported elsewhere).
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, (n, _)) in derived.iter().enumerate() {
            index.entry(n.name.as_str()).or_insert(i);
        }
        let deps: Vec<Vec<usize>> = derived
            .iter()
            .map(|(_, m)| {
                let mut found = Vec::new();
                let e = match &m.kind {
                    MemberKind::Let { value, .. } | MemberKind::Hormone { value, .. } => value,
                    _ => unreachable!("filtered above"),
                };
                names_in(e, &mut found);
                found
                    .iter()
                    .filter_map(|n| index.get(n.as_str()).copied())
                    .collect()
            })
            .collect();
        // Depth-first topological order; a cycle is reported once, with its members.
        let mut cycle: Option<Vec<usize>> = None;
        let order = crate::graph::depth_first(
            &deps,
            |&d| d,
            |_, members| {
                cycle.get_or_insert_with(|| members.to_vec());
            },
        );
        if let Some(members) = cycle {
            let first = derived[members[0]].0;
            let message = match members.as_slice() {
                [_] => format!("`{}` depends on itself", first.name),
                [_, second] => format!(
                    "`{}` and `{}` depend on each other",
                    first.name, derived[*second].0.name
                ),
                _ => format!("`{}` depends on itself through other values", first.name),
            };
            let chain: Vec<&str> = members
                .iter()
                .chain(std::iter::once(&members[0]))
                .map(|&i| derived[i].0.name.as_str())
                .collect();
            let mut d = Diagnostic::error("E0210", message, first.span)
                .with_label("part of a cycle of derived values")
                .with_help("a `let` or hormone is computed from others each tick; break the cycle with a `var` updated in `update { }`");
            for &i in &members[1..] {
                d = d.with_secondary(derived[i].0.span, "also in the cycle");
            }
            if members.len() > 1 {
                d = d.with_note(format!("the cycle: {}", chain.join(" -> ")));
            }
            self.diags.push(d);
            // The values are not computed, but the names they read are used.
            for (_, m) in &derived {
                if let MemberKind::Let { value, .. } | MemberKind::Hormone { value, .. } = &m.kind {
                    let mut names = Vec::new();
                    names_in(value, &mut names);
                    for n in names {
                        if let Some(i) = t.frame.get(&n) {
                            t.frame.vars[i as usize].used = true;
                        }
                    }
                }
            }
            return;
        }
        for i in order {
            let (name, m) = derived[i];
            let slot = t.frame.get(&name.name).expect("declared in pass 1");
            match &m.kind {
                MemberKind::Let { value, ty, .. } => {
                    let want = t.frame.vars[slot as usize].ty.clone();
                    let mut tc = TreeCx::agent(self, t, traits);
                    let got = if ty.is_some() {
                        tc.code_expr(value, &want, &format!("`{}`", name.name)).1
                    } else {
                        let start = tc.t.code.len();
                        let g = tc.cx_expr(value);
                        let _ = start;
                        g
                    };
                    if ty.is_none() {
                        t.frame.vars[slot as usize].ty = got;
                    }
                    t.code.push(Op::Store(slot));
                }
                MemberKind::Hormone {
                    value, settings, ..
                } => {
                    let (baseline, half_life) = self.hormone_settings(settings.as_ref());
                    t.frame.vars[slot as usize].init = baseline;
                    let mut tc = TreeCx::agent(self, t, traits);
                    // Secretion is fast, recovery slow: a stimulus further from the baseline
                    // than the level (on its side) sets the level at once; otherwise the level
                    // relaxes toward the stimulus, by k per tick from the half-life. With a
                    // neutral stimulus that is decay toward the baseline.
                    match half_life {
                        Some(hl) if hl > 0.0 => {
                            let k = 1.0 - libm::pow(0.5, dt_ms / hl);
                            let stimulus = tc.t.frame.add(FrameVar {
                                name: format!("{}.stimulus", tc.t.frame.vars[slot as usize].name),
                                ty: Ty::Num,
                                kind: VarKind::Temp,
                                init: baseline,
                                range: None,
                                span: tc.t.frame.vars[slot as usize].span,
                                used: true,
                                doc: None,
                            });
                            tc.code_expr(value, &Ty::Num, "a hormone's stimulus");
                            let b = baseline;
                            tc.t.code.extend([
                                Op::Store(stimulus),
                                // same side: (s - b) * (level - b) >= 0
                                Op::Load(stimulus),
                                Op::Const(b),
                                Op::Sub,
                                Op::Load(slot),
                                Op::Const(b),
                                Op::Sub,
                                Op::Mul,
                                Op::Const(0.0),
                                Op::Ge,
                                // further out: |s - b| >= |level - b|
                                Op::Load(stimulus),
                                Op::Const(b),
                                Op::Sub,
                                Op::Call(Function::Abs, 1),
                                Op::Load(slot),
                                Op::Const(b),
                                Op::Sub,
                                Op::Call(Function::Abs, 1),
                                Op::Ge,
                                Op::BitAnd,
                                Op::JumpIfFalse(2),
                                Op::Load(stimulus),
                                Op::Jump(7),
                                Op::Load(slot),
                                Op::Load(stimulus),
                                Op::Load(slot),
                                Op::Sub,
                                Op::Const(k),
                                Op::Mul,
                                Op::Add,
                            ]);
                        }
                        _ => {
                            tc.code_expr(value, &Ty::Num, "a hormone's stimulus");
                        }
                    }
                    t.code.push(Op::StoreClamped(slot, 0.0, 100.0));
                }
                _ => {}
            }
        }
    }

    pub(super) fn hormone_settings(
        &mut self,
        settings: Option<&ast::SettingBlock>,
    ) -> (f64, Option<f64>) {
        let (mut baseline, mut half_life) = (50.0, None);
        let Some(block) = settings else {
            return (baseline, half_life);
        };
        for e in &block.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let Some(arg) = s.args.first() else { continue };
            match s.key.name.as_str() {
                "baseline" => {
                    if let Some((v, t)) = self.const_value_hint(arg, Some(&Ty::Num)) {
                        if !t.fits(&Ty::Num) || !(0.0..=100.0).contains(&v) {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0302",
                                    "a hormone's baseline is a level in 0..100",
                                    arg.span,
                                )
                                .with_label("not in 0..100"),
                            );
                        }
                        baseline = v;
                    }
                }
                "half_life" => {
                    if let Some((v, t)) = self.const_value_hint(arg, Some(&Ty::Duration)) {
                        if t != Ty::Duration {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0303",
                                    format!(
                                        "a half-life is a duration, found {}",
                                        article(&self.g.show(&t))
                                    ),
                                    arg.span,
                                )
                                .with_label("not a duration")
                                .with_help("write it with a unit: `30s`"),
                            );
                        } else {
                            half_life = Some(v);
                        }
                    }
                }
                _ => {}
            }
        }
        (baseline, half_life)
    }
}

/// Collects the plain names an expression mentions (for dependency order).
fn names_in(e: &Expr, out: &mut Vec<String>) {
    struct Names<'a>(&'a mut Vec<String>);
    impl crate::syntax::visit::Visitor for Names<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Name(p) = &e.kind {
                if p.segments.len() == 1 {
                    self.0.push(p.segments[0].name.clone());
                }
            }
            crate::syntax::visit::walk_expr(self, e);
        }
    }
    let mut v = Names(out);
    crate::syntax::visit::Visitor::visit_expr(&mut v, e);
}
