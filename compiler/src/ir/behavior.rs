//! The behaviour arbiter's part of the tick program (EGO, seed 004, LANGUAGE.md §4.7): an
//! agent's behaviour modules and its top `behaviors` block. The runtime evaluates every module
//! each tick, hands out execution keys top-down by behaviour value and ticks the trees of the
//! modules that run (docs/affect.md). Re-exported by `program`.

use super::code::{Arg, NodeId};

/// A tree instantiated as a root of its own: its root node and the nodes it spans (an
/// instance is numbered in pre-order, so its nodes are `root..end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeRoot {
    pub root: NodeId,
    pub end: NodeId,
}

/// An agent's behaviour modules and its top `behaviors` block.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Behaviors {
    /// Every module instance; a parent comes before its children.
    pub modules: Vec<BehaviorModule>,
    /// The top modules (`behaviors { modules .. }`), indices into `modules`.
    pub top: Vec<u32>,
    /// How the top modules share the keys.
    pub policy: BehaviorPolicy,
    /// Lateral inhibition: a running module lowers its siblings' values by this share of its
    /// own, at every level of the module tree.
    pub inhibition: f64,
    /// Execution key names; modules refer to keys by index (at most 64).
    pub keys: Vec<String>,
}

/// One behaviour module: its evaluation part (the expressions of `Bv = β·Mv + (1 − β)·Rv`,
/// `Rv = α·ΔS + (1 − α)(S + ΔS)`, and its keys) and its execution part (its children).
#[derive(Clone, Debug, PartialEq)]
pub struct BehaviorModule {
    /// The path in the module tree: `Soccer`, `Soccer/SearchBall`.
    pub name: String,
    pub parent: Option<u32>,
    /// `Mv`, `S` and `ΔS`.
    pub motivation: Arg,
    pub satisfaction: Arg,
    pub expected: Arg,
    /// `α` and `β`, constants in 0..1.
    pub alpha: f64,
    pub beta: f64,
    /// The keys the module needs to run (indices into `Behaviors::keys`).
    pub keys: Vec<u32>,
    pub policy: BehaviorPolicy,
    /// Trees and nested modules, in written order (`run` first).
    pub children: Vec<BehaviorChild>,
}

/// How a parent activates its children (seed 004, section V.C).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BehaviorPolicy {
    /// All children or none; one stopping stops the subtree.
    Simultaneous,
    /// As many as the keys allow, by value; active while any child is.
    #[default]
    Parallel,
    /// Like `Parallel`, but the subtree's result is this child's (an index into `children`),
    /// and when it finishes the others stop.
    Main(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BehaviorChild {
    /// A nested module (an index into `Behaviors::modules`).
    Module(u32),
    /// A tree (an index into `AgentProgram::roots`); it runs with its module's keys.
    Tree(u32),
}
