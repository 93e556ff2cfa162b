//! Frames: the variables visible in a tree or an agent, and where each one lives. A tree's
//! frame holds its ports and locals; an agent's frame holds its members. Code refers to
//! frame entries by index; instantiation maps them onto real slots.

use super::ty::Ty;
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
