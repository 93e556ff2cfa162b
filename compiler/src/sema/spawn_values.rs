//! A world's spawn values (`spawn Rover at (2, 2) wait 10s;`) held against the types of the
//! variables they set, as a declaration's initial value is: a duration takes a time with its
//! unit (already in milliseconds, `ir::units::quantity`), a plain `num` no unit, an enum one
//! of its variants. Without this a `wait 10` would start a duration at 10 ms.

use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{AgentProgram, Program, Slot, ValueKind};
use crate::ir::value::{kind_noun, measure_of};
use crate::ir::world::{InitValue, NameRef, SpawnSpec};
use crate::span::Span;

impl Checker {
    /// Every value of `spawn` for a variable of `agent` (unknown names are reported apart).
    pub(super) fn check_spawn_values(
        &mut self,
        spawn: &SpawnSpec,
        agent: &AgentProgram,
        program: &Program,
    ) {
        for (name, value) in &spawn.init {
            let Some(slot) = agent
                .slots
                .iter()
                .find(|s| s.scope == 0 && s.visible && s.name == name.name)
            else {
                continue;
            };
            if let Some(d) = self.spawn_value(name, value, slot, agent, program) {
                self.diags.push(d);
            }
        }
    }

    /// What is wrong with one value, if anything. Names and strings a variable takes are
    /// interned, so the run can hold them.
    fn spawn_value(
        &mut self,
        name: &NameRef,
        value: &InitValue,
        slot: &Slot,
        agent: &AgentProgram,
        program: &Program,
    ) -> Option<Diagnostic> {
        let want = kind_noun(program, slot.kind);
        let mismatch = |code: &'static str, found: &str, span: Span| {
            Diagnostic::error(
                code,
                format!(
                    "`{}` of `{}` is {want}, found {found}",
                    name.name, agent.name
                ),
                span,
            )
            .with_label(format!("this should be {want}"))
        };
        match value {
            InitValue::Num {
                value,
                measure,
                span,
            } => {
                let found = match measure {
                    Some(m) => m.noun(),
                    None => "a plain number",
                };
                if slot.any {
                    return None;
                }
                let want_measure = measure_of(slot.kind);
                let plain = matches!(slot.kind, ValueKind::Num | ValueKind::Int);
                if want_measure.is_some() || plain {
                    if *measure == want_measure {
                        if slot.kind == ValueKind::Int && value.fract() != 0.0 {
                            return Some(mismatch("E0301", "a fraction", *span));
                        }
                        return None;
                    }
                    let d = mismatch("E0303", found, *span);
                    return Some(match (want_measure, measure) {
                        (Some(m), None) => d.with_help(format!(
                            "{} carries its unit ({}): write it like `{}`",
                            m.noun(),
                            m.units(),
                            m.example()
                        )),
                        (Some(m), Some(_)) => {
                            d.with_help(format!("write it like `{}`", m.example()))
                        }
                        (None, _) => d.with_help(format!(
                            "`{}` is a plain number: write it without a unit",
                            name.name
                        )),
                    });
                }
                Some(mismatch("E0301", found, *span))
            }
            InitValue::Bool(_) => (!slot.any && slot.kind != ValueKind::Bool)
                .then(|| mismatch("E0301", "a bool", name.span)),
            InitValue::Point(_) => (!slot.any && slot.kind != ValueKind::List)
                .then(|| mismatch("E0301", "a point", name.span)),
            InitValue::Str(s) | InitValue::Name(s) => match slot.kind {
                ValueKind::Enum(e) => {
                    let info = program.enums.get(e as usize)?;
                    if info.variants.contains(s) {
                        return None;
                    }
                    Some(
                        mismatch("E0301", &format!("`{s}`"), name.span).with_help(format!(
                            "`{}` is one of {}",
                            info.name,
                            info.variants.join(", ")
                        )),
                    )
                }
                _ if slot.any || slot.kind == ValueKind::Str => {
                    self.strings.intern(s);
                    None
                }
                _ => Some(mismatch("E0301", &format!("`{s}`"), name.span)),
            },
        }
    }
}
