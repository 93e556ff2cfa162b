//! The values a reload carries from one program's machine to the next (`affect run
//! --watch`): variables whose name and type did not change, and emotional memories of the
//! same name and key type. Both programs number things their own way (interned strings,
//! enum variants, list ids), so each value is re-expressed in the new program's numbers;
//! a value the new program cannot express (a string it no longer has, a variant that was
//! removed) is not carried and the variable starts from its initial value.

use crate::affect::Memory;
use crate::interp::{Lists, Machine};
use crate::sim::host::AgentAffect;
use affect_compiler::ir::program::{AgentProgram, Program, Role, Slot, ValueKind};
use std::collections::HashMap;

/// The old program's numbers in the new one's terms.
pub(super) struct Translate<'a> {
    old: &'a Program,
    new: &'a Program,
    /// The new symbol of each old symbol, by text.
    symbols: Vec<Option<u32>>,
}

impl<'a> Translate<'a> {
    pub fn new(old: &'a Program, new: &'a Program) -> Translate<'a> {
        let by_text: HashMap<&str, u32> = new
            .strings
            .iter()
            .enumerate()
            .rev()
            .map(|(i, s)| (s.as_str(), i as u32))
            .collect();
        Translate {
            old,
            new,
            symbols: old
                .strings
                .iter()
                .map(|s| by_text.get(s.as_str()).copied())
                .collect(),
        }
    }

    pub fn symbol(&self, s: u32) -> Option<u32> {
        self.symbols.get(s as usize).copied().flatten()
    }

    /// Whether two kinds are the same type: enums by name, everything else as is.
    fn same_kind(&self, a: ValueKind, b: ValueKind) -> bool {
        match (a, b) {
            (ValueKind::Enum(x), ValueKind::Enum(y)) => {
                let name = |p: &Program, e: u32| p.enums.get(e as usize).map(|e| e.name.clone());
                name(self.old, x).is_some_and(|n| Some(n) == name(self.new, y))
            }
            _ => a == b,
        }
    }

    /// Whether a slot of the old program and one of the new hold the same type.
    fn same_type(&self, old: &Slot, new: &Slot) -> bool {
        self.same_kind(old.kind, new.kind)
            && old.elems.len() == new.elems.len()
            && old
                .elems
                .iter()
                .zip(&new.elems)
                .all(|(&a, &b)| self.same_kind(a, b))
    }

    /// A scalar value in the new program's numbers.
    fn scalar(&self, old: ValueKind, new: ValueKind, v: f64) -> Option<f64> {
        match (old, new) {
            (ValueKind::Str, _) => self.symbol(v as u32).map(f64::from),
            (ValueKind::Enum(x), ValueKind::Enum(y)) => {
                let variant = self.old.enums.get(x as usize)?.variants.get(v as usize)?;
                let at = self.new.enums.get(y as usize)?.variants.iter();
                at.clone().position(|w| w == variant).map(|i| i as f64)
            }
            _ => Some(v),
        }
    }

    /// The elements of list `id` in the new program's numbers; inner lists are made anew
    /// in `to`. `None` when an element cannot be expressed.
    fn list(
        &self,
        old: &[ValueKind],
        new: &[ValueKind],
        id: f64,
        from: &Lists,
        to: &mut Lists,
    ) -> Option<Vec<f64>> {
        let (Some((&o, o_rest)), Some((&n, n_rest))) = (old.split_first(), new.split_first())
        else {
            // A point, or a list of plain numbers.
            return Some(from.values(id).to_vec());
        };
        let mut out = Vec::with_capacity(from.len_of(id));
        for &x in from.values(id) {
            out.push(match o {
                ValueKind::List => {
                    let inner = self.list(o_rest, n_rest, x, from, to)?;
                    to.alloc(&inner)
                }
                _ => self.scalar(o, n, x)?,
            });
        }
        Some(out)
    }
}

/// What carrying the variables did, by slot of the new program: the variables that came
/// over, those among them clamped into a new range, and those that start from their initial
/// value (new, or changed in type).
#[derive(Debug, Default)]
pub(super) struct Carried {
    pub values: Vec<usize>,
    pub clamped: Vec<usize>,
    pub fresh: Vec<usize>,
}

/// Copies every variable of `old` (not the compiler's temporaries) into the variable of
/// the same name and type of `new`, with its write count. A value outside a variable's
/// new range is clamped into it.
pub(super) fn variables(
    t: &Translate,
    old: (&AgentProgram, &Machine),
    new: (&AgentProgram, &mut Machine),
) -> Carried {
    let (old_p, old_m) = old;
    let (new_p, new_m) = new;
    let by_name: HashMap<&str, usize> = old_p
        .slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.role != Role::Temp)
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut carried = Carried::default();
    for (j, s) in new_p.slots.iter().enumerate() {
        if s.role == Role::Temp {
            continue;
        }
        let Some(&i) = by_name.get(s.name.as_str()) else {
            carried.fresh.push(j);
            continue;
        };
        let o = &old_p.slots[i];
        let v = old_m.slots[i];
        let done = t.same_type(o, s)
            && match s.kind {
                ValueKind::List => {
                    match t.list(&o.elems, &s.elems, v, &old_m.lists, &mut new_m.lists) {
                        Some(items) => {
                            new_m.lists.set(new_m.slots[j], &items);
                            true
                        }
                        None => false,
                    }
                }
                _ => match t.scalar(o.kind, s.kind, v) {
                    Some(x) => {
                        let y = s.range.map_or(x, |(lo, hi)| x.clamp(lo, hi));
                        if y.to_bits() != x.to_bits() {
                            carried.clamped.push(j);
                        }
                        new_m.slots[j] = y;
                        true
                    }
                    None => false,
                },
            };
        if done {
            new_m.seq[j] = old_m.seq[i];
            carried.values.push(j);
        } else {
            carried.fresh.push(j);
        }
    }
    carried
}

/// Moves the emotional memories over: each memory of the new program takes the old one of
/// the same name whose key has the same type (else it keeps what it loaded); the places the
/// agent visited come too.
pub(super) fn memories(
    t: &Translate,
    old: (&AgentProgram, &AgentAffect),
    new: (&AgentProgram, &mut AgentAffect),
) -> usize {
    let (old_p, old_a) = old;
    let (new_p, new_a) = new;
    let key_kind = |p: &AgentProgram, k: Option<u32>| k.map(|s| p.slots[s as usize].kind);
    let mut moved = 0;
    for (k, spec) in new_p.memories.iter().enumerate() {
        let found = old_a.memories.iter().find(|m| {
            m.spec.name == spec.name
                && match (key_kind(old_p, m.spec.key), key_kind(new_p, spec.key)) {
                    (Some(a), Some(b)) => t.same_kind(a, b),
                    (a, b) => a.is_none() && b.is_none(),
                }
        });
        if let (Some(m), Some(slot)) = (found, new_a.memories.get_mut(k)) {
            *slot = Memory::renumbered(m, spec.clone(), |s| t.symbol(s));
            moved += 1;
        }
    }
    new_a.visited = old_a.visited.iter().filter_map(|&s| t.symbol(s)).collect();
    moved
}
