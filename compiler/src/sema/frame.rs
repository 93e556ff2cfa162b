//! Frames: the variables visible in a tree or an agent, and where each one lives. A tree's
//! frame holds its ports and locals; an agent's frame holds its members. Code refers to
//! frame entries by index; instantiation maps them onto real slots.

use super::ty::Ty;
use crate::ir::program::Op;
use crate::span::Span;
use std::collections::HashMap;

/// Marks an operand that names a root-blackboard entry (`@key`) rather than a frame slot:
/// the low bits index `Frame::root_refs`.
pub const ROOT_FLAG: u32 = 1 << 31;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Var,
    Let,
    Sensor,
    Event,
    Hormone,
    /// A tree port (with its direction).
    Port(crate::syntax::ast::PortDir),
    /// A tree-local `var`.
    Local,
    Drive,
    Intention,
    /// An emotion machine's current state.
    Machine,
    /// An emotion machine's intensity (`machine.intensity`).
    Intensity,
    /// A temporary of the compiler (never shown).
    Temp,
    /// A component (seed 001); not a value, named by `failed(x)`.
    Component,
}

impl VarKind {
    pub fn describe(self) -> &'static str {
        match self {
            VarKind::Var => "variable",
            VarKind::Let => "derived value (`let`)",
            VarKind::Sensor => "sensor",
            VarKind::Event => "event",
            VarKind::Hormone => "hormone",
            VarKind::Port(_) => "port",
            VarKind::Local => "tree variable",
            VarKind::Drive => "drive",
            VarKind::Intention => "intention",
            VarKind::Machine => "emotion machine",
            VarKind::Intensity => "emotion intensity",
            VarKind::Temp => "temporary",
            VarKind::Component => "component",
        }
    }

    /// Whether statements may assign it.
    pub fn assignable(self) -> bool {
        use crate::syntax::ast::PortDir;
        matches!(
            self,
            VarKind::Var
                | VarKind::Intention
                | VarKind::Local
                | VarKind::Temp
                | VarKind::Port(PortDir::Out | PortDir::InOut)
        )
    }
}

#[derive(Clone, Debug)]
pub struct FrameVar {
    pub name: String,
    pub ty: Ty,
    pub kind: VarKind,
    pub init: f64,
    pub range: Option<(f64, f64)>,
    pub span: Span,
    pub used: bool,
    pub doc: Option<String>,
    /// The declaration in the semantic index (none for the compiler's temporaries).
    pub def: Option<crate::sema::index::DefId>,
}

impl FrameVar {
    /// A temporary of the compiler: never shown, never reported unused.
    pub fn temp(name: String, ty: Ty, init: f64, span: Span) -> FrameVar {
        FrameVar {
            name,
            ty,
            kind: VarKind::Temp,
            init,
            range: None,
            span,
            used: true,
            doc: None,
            def: None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub vars: Vec<FrameVar>,
    pub by_name: HashMap<String, u32>,
    /// `@key` references, resolved against the root blackboard when instantiated.
    pub root_refs: Vec<(String, Span)>,
    /// The tree this frame belongs to (`None` in an agent), for messages.
    pub tree: Option<String>,
    /// The assignments of the tree's code (`x = v`, `@x = @y`): where each stores (its
    /// index in the template's code) and where it is written, for the diagnostics about a
    /// value a variable is given once the program is lowered (E0322).
    pub stores: Vec<(usize, Span)>,
}

impl Frame {
    pub fn add(&mut self, var: FrameVar) -> u32 {
        let i = self.vars.len() as u32;
        self.by_name.insert(var.name.clone(), i);
        self.vars.push(var);
        i
    }

    /// Records an assignment that stores at `at` in the tree's code. Code a check compiled
    /// and then dropped (`truncate`) leaves entries at or past `at`: they go, so each entry
    /// names the op now at its index and the entries stay in code order.
    pub fn stored(&mut self, at: usize, span: Span) {
        while self.stores.last().is_some_and(|&(i, _)| i >= at) {
            self.stores.pop();
        }
        self.stores.push((at, span));
    }

    /// The assignments whose stores are still in `code` (see `stored`), in code order.
    pub fn stores_in<'c>(&'c self, code: &'c [Op]) -> impl Iterator<Item = (usize, Span)> + 'c {
        self.stores.iter().copied().filter(|&(i, _)| {
            matches!(
                code.get(i),
                Some(Op::Store(_) | Op::StoreClamped(..) | Op::ListSet(_))
            )
        })
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    pub fn root_ref(&mut self, name: &str, span: Span) -> u32 {
        let i = match self.root_refs.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.root_refs.push((name.to_string(), span));
                self.root_refs.len() - 1
            }
        };
        ROOT_FLAG | i as u32
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars
            .iter()
            .filter(|v| v.kind != VarKind::Temp)
            .map(|v| v.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An assignment compiled where dropped code was replaces what that code recorded, and
    /// only entries at a store of the code are handed on.
    #[test]
    fn dropped_code_leaves_no_assignment_behind() {
        let (a, b, c) = (Span::new(1, 2), Span::new(3, 4), Span::new(5, 6));
        let mut f = Frame::default();
        f.stored(1, a);
        f.stored(4, b); // compiled, then its code was truncated to 3 ops
        f.stored(3, c);
        assert_eq!(f.stores, [(1, a), (3, c)]);
        let code = [Op::Load(0), Op::Store(0), Op::Load(1), Op::ListSet(1)];
        assert_eq!(f.stores_in(&code).collect::<Vec<_>>(), [(1, a), (3, c)]);
        // Truncated again, and the place taken by an op that stores nothing.
        let code = [Op::Load(0), Op::Store(0), Op::Load(1), Op::Load(2)];
        assert_eq!(f.stores_in(&code).collect::<Vec<_>>(), [(1, a)]);
    }
}
