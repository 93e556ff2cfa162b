//! Halting (`halt_node`): one function per unit, taking the node to halt. Halts are rare
//! (a reactive node's other children, a timer, a `while` that turned false), so they are
//! calls, not inlined code; a child in the same unit is halted by a recursive call.

use super::emit::Fx;
use super::JitError;
use crate::interp::families;
use crate::interp::nodes::WAITING;
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{NodeId, NodeKind, Status};
use cranelift_codegen::ir::{InstBuilder, Value};

impl Fx<'_, '_> {
    /// The body of a unit's halt function: `n` is the node to halt (an i32 parameter).
    pub fn halt_function(&mut self, unit: u32, n: Value) -> Result<(), JitError> {
        let members = self.plan.halt_members(unit as usize);
        let generic = self.b.create_block();
        if members.is_empty() {
            self.b.ins().jump(generic, &[]);
        } else {
            // A switch on the members' ids (not one table over their range: a unit's
            // members can lie on both sides of a large subtree in another unit).
            let mut switch = cranelift_frontend::Switch::new();
            let mut cases = Vec::new();
            for &m in &members {
                let blk = self.b.create_block();
                switch.set_entry(m as u128, blk);
                cases.push((m, blk));
            }
            switch.emit(&mut self.b, n, generic);
            for (m, blk) in cases {
                self.b.switch_to_block(blk);
                self.halt(m)?;
                if let Some(code) = self.plan.on_halted(m) {
                    self.run(code)?;
                }
                self.b.ins().return_(&[]);
            }
        }
        // Nodes that are never halted while running (leaves that complete at once): a halt
        // is a reset.
        self.b.switch_to_block(generic);
        self.reset_status_dyn(n, false);
        self.b.ins().return_(&[]);
        Ok(())
    }

    /// The node's own `halt()`.
    fn halt(&mut self, n: NodeId) -> Result<(), JitError> {
        let node = &self.plan.agent.nodes[n as usize];
        match &node.kind {
            NodeKind::Sequence
            | NodeKind::AsyncSequence
            | NodeKind::Fallback
            | NodeKind::AsyncFallback
            | NodeKind::IfThenElse => {
                self.store_a_c(n, 0);
                self.store_b_c(n, 0);
                self.control_halt(n)
            }
            // SequenceWithMemory keeps its place across a halt.
            NodeKind::SequenceWithMemory | NodeKind::WhileDoElse | NodeKind::TryCatch { .. } => {
                self.control_halt(n)
            }
            NodeKind::ReactiveSequence | NodeKind::ReactiveFallback | NodeKind::Switch { .. } => {
                self.store_a_c(n, -1);
                self.control_halt(n)
            }
            NodeKind::Parallel { .. } | NodeKind::ParallelAll { .. } => {
                self.clear_done(n)?;
                self.store_a_c(n, 0);
                self.store_b_c(n, 0);
                self.control_halt(n)
            }
            NodeKind::Decorator(d) => families::emit_halt(self, n, d),
            NodeKind::SubTree { .. } => self.decorator_halt(n),
            NodeKind::Sleep { .. } => {
                let st = self.status_of(n);
                let running = self.eq_imm(st, Status::Running as i64);
                let (_, cont) = self.if_then(running);
                self.flags_clear(n, WAITING);
                self.disarm(n);
                self.end_if(cont);
                self.reset_status(n);
                Ok(())
            }
            NodeKind::Foreign { leaf, .. } => match self.plan.leaf_class(*leaf) {
                NodeClass::Control => {
                    self.store_a_c(n, 0);
                    self.store_b_c(n, 0);
                    self.control_halt(n)
                }
                NodeClass::Decorator => self.decorator_halt(n),
                NodeClass::Action => {
                    let st = self.status_of(n);
                    let running = self.eq_imm(st, Status::Running as i64);
                    let (_, cont) = self.if_then(running);
                    let id = self.node_val(n);
                    let f = self.callees.leaf_halt;
                    self.call(f, &[self.at.view, id]);
                    self.end_if(cont);
                    self.reset_status(n);
                    Ok(())
                }
                NodeClass::Condition => {
                    self.reset_status(n);
                    Ok(())
                }
            },
            NodeKind::AlwaysSuccess
            | NodeKind::AlwaysFailure
            | NodeKind::Script { .. }
            | NodeKind::ScriptCondition { .. }
            | NodeKind::WasEntryUpdated { .. } => {
                self.reset_status(n);
                Ok(())
            }
        }
    }

    fn control_halt(&mut self, n: NodeId) -> Result<(), JitError> {
        self.reset_children(n)?;
        self.reset_status(n);
        Ok(())
    }

    pub(super) fn decorator_halt(&mut self, n: NodeId) -> Result<(), JitError> {
        self.reset_child(n)?;
        self.reset_status(n);
        Ok(())
    }
}
