//! Emotion machines (seed 000): the `emotions` member's intensity and transitions,
//! compiled into the process phase.

use super::frame::FrameVar;
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::ir::functions::Function;
use crate::ir::program::{MachineInfo, Op};
use crate::syntax::ast::{self, Expr, SettingEntry};

/// Intensity gained per unit of bad progress when a machine gives no `rise`.
const DEFAULT_RISE: f64 = 0.1;
/// Intensity lost per unit of good progress when a machine gives no `fall`.
const DEFAULT_FALL: f64 = 0.1;

impl Checker {
    /// An emotion machine (seed 000), compiled into the process phase. Each tick:
    ///
    /// ```text
    /// p = progress
    /// intensity = clamp(intensity + rise * max(-p, 0) - fall * max(p, 0), 0, 1)
    /// the first transition out of the current state whose guard holds is taken
    /// ```
    ///
    /// Inside the machine, `intensity` names its own intensity and personality traits are
    /// in scope (`rise 0.1 * (1 + caution)`).
    pub(super) fn machine(
        &mut self,
        name: &ast::Ident,
        body: &ast::SettingBlock,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Option<MachineInfo> {
        let slot = t.frame.get(&name.name)?;
        let ty = t.frame.vars[slot as usize].ty.clone();
        let intensity = t.frame.get(&format!("{}.intensity", name.name))?;
        // States that are not an enum are reported where the initial state is resolved.
        let enum_index = match ty {
            Ty::Enum(e) => Some(e),
            _ => None,
        };
        let shadow = t.frame.by_name.get("intensity").copied();
        t.frame.by_name.insert("intensity".into(), intensity);
        let progress = t.frame.add(FrameVar::temp(
            format!("{}.progress", name.name),
            Ty::Num,
            0.0,
            name.span,
        ));
        let setting = |key: &str| {
            body.entries.iter().find_map(|e| match e {
                SettingEntry::Setting(s) if s.key.name == key => s.args.first(),
                _ => None,
            })
        };
        let (from, rise, fall) = (setting("from"), setting("rise"), setting("fall"));
        // Without `from`, progress is 0 and the intensity stays where it is.
        self.num_or(t, traits, from, 0.0, "the progress (`from`)");
        t.code.push(Op::Store(progress));
        t.code.push(Op::Load(intensity));
        self.num_or(t, traits, rise, DEFAULT_RISE, "`rise`");
        t.code.extend([
            Op::Const(0.0),
            Op::Load(progress),
            Op::Sub,
            Op::Const(0.0),
            Op::Call(Function::Max, 2),
            Op::Mul,
            Op::Add,
        ]);
        self.num_or(t, traits, fall, DEFAULT_FALL, "`fall`");
        t.code.extend([
            Op::Load(progress),
            Op::Const(0.0),
            Op::Call(Function::Max, 2),
            Op::Mul,
            Op::Sub,
            Op::StoreClamped(intensity, 0.0, 1.0),
        ]);
        // The first transition out of the current state whose guard holds.
        let mut ends = Vec::new();
        for e in &body.entries {
            let SettingEntry::Transition(tr) = e else {
                continue;
            };
            if enum_index.is_none() {
                break;
            }
            let from_v = self.variant_of(&ty, &tr.from);
            let to_v = self.variant_of(&ty, &tr.to);
            t.code.extend([Op::Load(slot), Op::Const(from_v), Op::Eq]);
            let skip_state = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            let mut tc = TreeCx::agent(self, t, traits);
            tc.code_expr(&tr.guard, &Ty::Bool, "a transition's guard");
            let skip_guard = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            t.code.extend([Op::Const(to_v), Op::Store(slot)]);
            ends.push(t.code.len());
            t.code.push(Op::Jump(0));
            for at in [skip_state, skip_guard] {
                let off = (t.code.len() - at - 1) as u32;
                t.code[at] = Op::JumpIfFalse(off);
            }
        }
        for at in ends {
            let off = (t.code.len() - at - 1) as u32;
            t.code[at] = Op::Jump(off);
        }
        match shadow {
            Some(s) => {
                t.frame.by_name.insert("intensity".into(), s);
            }
            None => {
                t.frame.by_name.remove("intensity");
            }
        }
        let variants = enum_index
            .map(|e| self.g.enums[e as usize].variants.clone())
            .unwrap_or_default();
        let causes = variants
            .iter()
            .map(|v| self.g.emotions.get(v).and_then(|d| d.causal_chain.clone()))
            .collect();
        Some(MachineInfo {
            name: name.name.clone(),
            state: slot,
            intensity,
            causes,
        })
    }

    /// Code for a numeric setting, or its default when the setting is absent.
    pub(super) fn num_or(
        &mut self,
        t: &mut Template,
        traits: &[(String, f64)],
        e: Option<&Expr>,
        default: f64,
        what: &str,
    ) {
        match e {
            Some(e) => {
                let mut tc = TreeCx::agent(self, t, traits);
                tc.code_expr(e, &Ty::Num, what);
            }
            None => t.code.push(Op::Const(default)),
        }
    }
}
