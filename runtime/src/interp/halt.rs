//! Halting nodes as BehaviorTree.CPP does (`haltNode`, `resetChildren`, `haltChild`,
//! `resetChild`), and each kind's own `halt()`: running children are halted child first,
//! timers disarmed, cursors reset, and `_onHalted` scripts run.

use super::nodes::WAITING;
use super::{families, Machine};
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{AgentProgram, NodeId, NodeKind, Status};

impl<'p> Machine<'p> {
    // ------------------------------------------------------------------ halting

    /// `TreeNode::haltNode`: the node's `halt()`, then its `_onHalted` script.
    pub(crate) fn halt_node(&mut self, n: NodeId) {
        // With compiled code installed, halts (between ticks: timers, a behaviour module
        // stopping) run the compiled halt, so both engines never mix within one program.
        if let Some(native) = self.native.clone() {
            if native.halt(self, n) {
                return;
            }
        }
        self.halt(n);
        if let Some(ci) = self.prog.nodes[n as usize].conditions {
            if let Some(code) = self.prog.conditions[ci as usize].on_halted {
                self.run(code);
            }
        }
    }

    /// `ControlNode::resetChildren`.
    #[inline(always)]
    pub(super) fn reset_children(&mut self, n: NodeId) {
        for &c in self.kids(n) {
            self.halt_node_child(c);
        }
    }

    /// `ControlNode::haltChild`.
    #[inline]
    pub(super) fn halt_child(&mut self, n: NodeId, k: usize) {
        let c = self.child(n, k);
        self.halt_node_child(c);
    }

    /// `ControlNode::haltChild` of the child `c`.
    #[inline(always)]
    pub(super) fn halt_node_child(&mut self, c: NodeId) {
        match self.status[c as usize] {
            // Resetting an idle node changes and records nothing.
            Status::Idle => {}
            Status::Running => {
                self.halt_node(c);
                self.reset_status(c);
            }
            _ => self.reset_status(c),
        }
    }

    /// `DecoratorNode::resetChild`.
    #[inline(always)]
    pub(super) fn reset_child(&mut self, n: NodeId) {
        if let Some(&c) = self.kids(n).first() {
            self.halt_node_child(c);
        }
    }

    /// The node's own `halt()`.
    pub(super) fn halt(&mut self, n: NodeId) {
        let i = n as usize;
        let prog: &'p AgentProgram = self.prog;
        match &prog.nodes[i].kind {
            NodeKind::Sequence
            | NodeKind::AsyncSequence
            | NodeKind::Fallback
            | NodeKind::AsyncFallback
            | NodeKind::IfThenElse => {
                self.state[i].a = 0;
                self.state[i].b = 0;
                self.control_halt(n);
            }
            // SequenceWithMemory keeps its place across a halt.
            NodeKind::SequenceWithMemory | NodeKind::WhileDoElse | NodeKind::TryCatch { .. } => {
                self.control_halt(n)
            }
            NodeKind::ReactiveSequence | NodeKind::ReactiveFallback | NodeKind::Switch { .. } => {
                self.state[i].a = -1;
                self.control_halt(n);
            }
            NodeKind::Parallel { .. } | NodeKind::ParallelAll { .. } => {
                self.clear_parallel(n);
                self.control_halt(n);
            }
            NodeKind::Decorator(d) => families::halt(self, n, d),
            NodeKind::SubTree { .. } => self.decorator_halt(n),
            NodeKind::Sleep { .. } => {
                if self.status[i] == Status::Running {
                    self.state[i].flags &= !WAITING;
                    self.disarm(n);
                }
                self.reset_status(n);
            }
            NodeKind::Foreign { leaf, .. } => match self.leaf_class(*leaf) {
                NodeClass::Control => {
                    self.state[i].a = 0;
                    self.state[i].b = 0;
                    self.control_halt(n);
                }
                NodeClass::Decorator => self.decorator_halt(n),
                NodeClass::Action => {
                    if self.status[i] == Status::Running {
                        let now = self.now_ms;
                        if let Some(l) = self.leaves.get_mut(n) {
                            l.halt(now);
                        }
                    }
                    self.reset_status(n);
                }
                NodeClass::Condition => self.reset_status(n),
            },
            NodeKind::AlwaysSuccess
            | NodeKind::AlwaysFailure
            | NodeKind::Script { .. }
            | NodeKind::ScriptCondition { .. }
            | NodeKind::WasEntryUpdated { .. } => self.reset_status(n),
        }
    }

    pub(super) fn control_halt(&mut self, n: NodeId) {
        self.reset_children(n);
        self.reset_status(n);
    }

    pub(crate) fn decorator_halt(&mut self, n: NodeId) {
        self.reset_child(n);
        self.reset_status(n);
    }
}
