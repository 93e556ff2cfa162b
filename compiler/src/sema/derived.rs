//! Derived values: hormones and `let`s, compiled into the process phase in the order their
//! dependencies need (a cycle is reported), and a hormone's baseline and half-life.

use super::frame::FrameVar;
use super::order::{dependency_order, names_in};
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::wording::article;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::functions::Function;
use crate::ir::program::Op;
use crate::syntax::ast::{self, Expr, MemberKind, SettingEntry};
use std::collections::HashMap;

impl Checker {
    /// Hormones and `let`s, in the order their dependencies need.
    pub(super) fn derived_values(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
        dt_ms: f64,
    ) {
        let derived: Vec<(&ast::Ident, &ast::Member, &Expr)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Let { name, value, .. } | MemberKind::Hormone { name, value, .. } => {
                    Some((name, m, value))
                }
                _ => None,
            })
            .collect();
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, (n, _, _)) in derived.iter().enumerate() {
            by_name.entry(n.name.as_str()).or_insert(i);
        }
        let deps: Vec<Vec<usize>> = derived
            .iter()
            .map(|(_, _, e)| {
                names_in(e)
                    .iter()
                    .filter_map(|n| by_name.get(n.as_str()).copied())
                    .collect()
            })
            .collect();
        let order = dependency_order(&deps);
        if let Some(cycle) = order.first_cycle {
            let names: Vec<&ast::Ident> = cycle.iter().map(|&i| derived[i].0).collect();
            self.report_derived_cycle(&names);
            // The values are not computed, but the names they read are used.
            for (_, _, value) in &derived {
                for n in names_in(value) {
                    if let Some(i) = t.frame.get(&n) {
                        t.frame.vars[i as usize].used = true;
                    }
                }
            }
            return;
        }
        for i in order.order {
            let (name, m, _) = derived[i];
            let slot = t.frame.get(&name.name).expect("declared in pass 1");
            match &m.kind {
                MemberKind::Let { value, ty, .. } => {
                    let want = t.frame.vars[slot as usize].ty.clone();
                    let mut tc = TreeCx::agent(self, t, traits);
                    let got = if ty.is_some() {
                        tc.code_expr(value, &want, &format!("`{}`", name.name)).1
                    } else {
                        tc.cx_expr(value)
                    };
                    if ty.is_none() {
                        let def = t.frame.vars[slot as usize].def;
                        self.index.set_type(def, &got);
                        t.frame.vars[slot as usize].ty = got;
                    }
                    t.code.push(Op::Store(slot));
                }
                MemberKind::Hormone {
                    value, settings, ..
                } => self.hormone(slot, value, settings.as_ref(), t, traits, dt_ms),
                _ => {}
            }
        }
    }

    /// A cycle of derived values, reported once with its members.
    fn report_derived_cycle(&mut self, members: &[&ast::Ident]) {
        let first = members[0];
        let message = match members {
            [_] => format!("`{}` depends on itself", first.name),
            [_, second] => format!(
                "`{}` and `{}` depend on each other",
                first.name, second.name
            ),
            _ => format!("`{}` depends on itself through other values", first.name),
        };
        let chain: Vec<&str> = members
            .iter()
            .chain(std::iter::once(&first))
            .map(|i| i.name.as_str())
            .collect();
        let mut d = Diagnostic::error("E0210", message, first.span)
            .with_label("part of a cycle of derived values")
            .with_help("a `let` or hormone is computed from others each tick; break the cycle with a `var` updated in `update { }`");
        for m in &members[1..] {
            d = d.with_secondary(m.span, "also in the cycle");
        }
        if members.len() > 1 {
            d = d.with_note(format!("the cycle: {}", chain.join(" -> ")));
        }
        self.diags.push(d);
    }

    /// A hormone's level each tick. Secretion is fast, recovery slow: a stimulus further from
    /// the baseline than the level (on its side) sets the level at once; otherwise the level
    /// relaxes toward the stimulus, by k per tick from the half-life. With a neutral stimulus
    /// that is decay toward the baseline.
    fn hormone(
        &mut self,
        slot: u32,
        value: &Expr,
        settings: Option<&ast::SettingBlock>,
        t: &mut Template,
        traits: &[(String, f64)],
        dt_ms: f64,
    ) {
        let (baseline, half_life) = self.hormone_settings(settings);
        t.frame.vars[slot as usize].init = baseline;
        let mut tc = TreeCx::agent(self, t, traits);
        match half_life {
            Some(hl) if hl > 0.0 => {
                let k = 1.0 - libm::pow(0.5, dt_ms / hl);
                let level = &tc.t.frame.vars[slot as usize];
                let name = format!("{}.stimulus", level.name);
                let stimulus = FrameVar::temp(name, Ty::Num, baseline, level.span);
                let stimulus = tc.t.frame.add(stimulus);
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
