//! Node ticks, emitted as the interpreter (`interp/`) runs them, statement for
//! statement (the order of status changes, resets and halts is what a trace shows). A node
//! is emitted into its parent's function; a node that roots another unit is a call. Every
//! node's tick ends by jumping to an `out` block with the status it returns.

use super::emit::Fx;
use super::plan::{bit, COMPLETED, F, I, K, R, S};
use super::JitError;
use crate::interp::families;
use crate::interp::nodes::WAITING;
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{Arg, DecoratorKind, NodeId, NodeKind, PortBinding, Status};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

impl Fx<'_, '_> {
    /// `execute_tick(n)`: returns the status (an i32).
    pub fn execute_tick(&mut self, n: NodeId) -> Result<Value, JitError> {
        let u = self.plan.unit_of[n as usize];
        let own = u.is_some() && u == self.unit && self.plan.units[u.unwrap_or(0) as usize] == n;
        if self.plan.unit_root[n as usize] && !own {
            let Some(u) = u else {
                return Err(JitError::Unsupported(format!("node {n} has no code")));
            };
            let f = self.callees.ticks[u as usize];
            let [dn, de, ds, dk] = self.unit_args(u);
            return Ok(self
                .call(f, &[self.at.view, dn, de, ds, dk])
                .expect("returns a status"));
        }
        self.count_tick();
        let node = &self.plan.agent.nodes[n as usize];
        let conditions = node
            .conditions
            .and_then(|c| self.plan.agent.conditions.get(c as usize))
            .filter(|c| !c.is_empty());
        let done = self.status_block();
        if let Some(c) = conditions {
            if c.has_pre() {
                self.pre_conditions(n, done)?;
            }
        }
        self.tick(n, done)?;
        self.b.switch_to_block(done);
        let possible = self.possible(n);
        let new = if possible.count_ones() == 1 {
            self.i32c(possible.trailing_zeros() as i64)
        } else {
            self.b.block_params(done)[0]
        };
        if let Some(c) = conditions {
            if (c.on_success.is_some() || c.on_failure.is_some() || c.post.is_some())
                && possible & COMPLETED != 0
            {
                self.post_conditions(n, new, possible)?;
            }
        }
        // SKIPPED is told to the parent, but the node itself stays as it was.
        if possible & K != 0 {
            let skipped = self.eq_imm(new, Status::Skipped as i64);
            let set = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(skipped, cont, &[], set, &[]);
            self.b.switch_to_block(set);
            self.set_status(n, new);
            self.b.ins().jump(cont, &[]);
            self.b.switch_to_block(cont);
        } else {
            self.set_status(n, new);
        }
        // `DecoratorNode::executeTick`: a completed child is reset after the parent's status.
        // (Not needed after Inverter, ForceSuccess and ForceFailure without pre-conditions
        // whose child always completes: their tick has reset it already.)
        let resets_itself = matches!(
            &self.plan.agent.nodes[n as usize].kind,
            NodeKind::Decorator(d) if matches!(
                d.kind,
                DecoratorKind::Invert | DecoratorKind::ForceSuccess | DecoratorKind::ForceFailure
            )
        ) && conditions.is_none_or(|c| !c.has_pre())
            && self
                .plan
                .children(n)
                .first()
                .is_some_and(|&c| self.possible(c) & !COMPLETED == 0);
        if self.plan.is_decorator(n) && !resets_itself {
            let c = self.plan.children(n)[0];
            let st = self.status_of(c);
            let completed = self.is_completed(st);
            let (_, cont) = self.if_then(completed);
            self.reset_status(c);
            self.end_if(cont);
        }
        Ok(new)
    }

    pub(super) fn pre_conditions(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let node = &self.plan.agent.nodes[n as usize];
        let c = &self.plan.agent.conditions[node.conditions.unwrap_or(0) as usize];
        let (failure_if, success_if, skip_if, while_) =
            (c.failure_if, c.success_if, c.skip_if, c.while_);
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let skipped = self.eq_imm(st, Status::Skipped as i64);
        let fresh = self.b.ins().bor(idle, skipped);
        let fresh_blk = self.b.create_block();
        let other = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(fresh, fresh_blk, &[], other, &[]);
        self.b.switch_to_block(fresh_blk);
        for (code, s) in [
            (failure_if, Status::Failure),
            (success_if, Status::Success),
            (skip_if, Status::Skipped),
        ] {
            if let Some(code) = code {
                let v = self.eval_bool(code)?;
                let (_, next) = self.if_then(v);
                self.exit(out, s);
                self.b.switch_to_block(next);
            }
        }
        if let Some(code) = while_ {
            let v = self.eval_bool(code)?;
            let miss = self.b.create_block();
            self.b.ins().brif(v, cont, &[], miss, &[]);
            self.b.switch_to_block(miss);
            self.exit(out, Status::Skipped);
        } else {
            self.b.ins().jump(cont, &[]);
        }
        self.b.switch_to_block(other);
        if let Some(code) = while_ {
            let running = self.eq_imm(st, Status::Running as i64);
            let run_blk = self.b.create_block();
            self.b.ins().brif(running, run_blk, &[], cont, &[]);
            self.b.switch_to_block(run_blk);
            let v = self.eval_bool(code)?;
            let halt = self.b.create_block();
            self.b.ins().brif(v, cont, &[], halt, &[]);
            self.b.switch_to_block(halt);
            self.halt_node(n)?;
            self.exit(out, Status::Skipped);
        } else {
            self.b.ins().jump(cont, &[]);
        }
        self.b.switch_to_block(cont);
        Ok(())
    }

    pub(super) fn post_conditions(
        &mut self,
        n: NodeId,
        s: Value,
        possible: u8,
    ) -> Result<(), JitError> {
        let node = &self.plan.agent.nodes[n as usize];
        let c = &self.plan.agent.conditions[node.conditions.unwrap_or(0) as usize];
        let (on_success, on_failure, post) = (c.on_success, c.on_failure, c.post);
        let cont = self.b.create_block();
        let succ = self.b.create_block();
        let fail = self.b.create_block();
        self.route(s, possible, &[(S, succ), (F, fail), (I | R | K, cont)]);
        for (blk, code) in [(succ, on_success), (fail, on_failure)] {
            self.b.switch_to_block(blk);
            if let Some(code) = code {
                self.run(code)?;
            }
            if let Some(code) = post {
                self.run(code)?;
            }
            self.b.ins().jump(cont, &[]);
        }
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The node's own `tick()`; every path ends at `out`.
    pub(super) fn tick(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let node = &self.plan.agent.nodes[n as usize];
        match &node.kind {
            NodeKind::Sequence => self.tick_sequence(n, true, false, out),
            NodeKind::AsyncSequence => self.tick_sequence(n, true, true, out),
            NodeKind::SequenceWithMemory => self.tick_sequence(n, false, true, out),
            NodeKind::Fallback => self.tick_fallback(n, false, out),
            NodeKind::AsyncFallback => self.tick_fallback(n, true, out),
            NodeKind::ReactiveSequence => self.tick_reactive(n, true, out),
            NodeKind::ReactiveFallback => self.tick_reactive(n, false, out),
            NodeKind::Parallel { success, failure } => {
                let s = self.node_arg(n, 0, *success)?;
                let f = self.node_arg(n, 1, *failure)?;
                let (s, f) = (self.int32_of(s), self.int32_of(f));
                self.tick_parallel(n, s, f, out)
            }
            NodeKind::ParallelAll { max_failures } => {
                let m = self.node_arg(n, 0, *max_failures)?;
                let m = self.int32_of(m);
                self.tick_parallel_all(n, m, out)
            }
            NodeKind::IfThenElse => self.tick_if_then_else(n, out),
            NodeKind::WhileDoElse => self.tick_while_do_else(n, out),
            NodeKind::TryCatch { .. } => self.tick_try_catch(n, out),
            NodeKind::Switch {
                subject,
                subject_kind,
                cases,
            } => self.tick_switch(n, *subject, *subject_kind, cases, out),
            NodeKind::Decorator(d) => families::emit(self, n, d, out),
            NodeKind::SubTree { inputs } => self.tick_subtree(n, inputs, out),
            NodeKind::AlwaysSuccess => {
                self.exit(out, Status::Success);
                Ok(())
            }
            NodeKind::AlwaysFailure => {
                self.exit(out, Status::Failure);
                Ok(())
            }
            NodeKind::Sleep { ms } => self.tick_sleep(n, *ms, out),
            NodeKind::Script { code } => {
                self.run(*code)?;
                self.exit(out, Status::Success);
                Ok(())
            }
            NodeKind::ScriptCondition { cond } => {
                let v = self.eval_bool(*cond)?;
                let s = self.status_c(Status::Success);
                let f = self.status_c(Status::Failure);
                let r = self.b.ins().select(v, s, f);
                self.jump_status(out, r);
                Ok(())
            }
            NodeKind::WasEntryUpdated { slot } => {
                let (current, previous) = self.swap_seen(n, *slot);
                let same = self.b.ins().icmp(IntCC::Equal, previous, current);
                let s = self.status_c(Status::Success);
                let f = self.status_c(Status::Failure);
                let r = self.b.ins().select(same, f, s);
                self.jump_status(out, r);
                Ok(())
            }
            NodeKind::Foreign { leaf, ports } => self.tick_foreign(n, *leaf, ports, out),
        }
    }

    /// A node implemented outside the program, by its class.
    fn tick_foreign(
        &mut self,
        n: NodeId,
        leaf: u32,
        ports: &[PortBinding],
        out: Block,
    ) -> Result<(), JitError> {
        match self.plan.leaf_class(leaf) {
            // The oracle's stand-in for a control node is BehaviorTree.CPP's Sequence.
            NodeClass::Control => self.tick_sequence(n, true, false, out),
            NodeClass::Decorator => {
                self.set_status_c(n, Status::Running);
                self.child_passthrough(n, out)
            }
            NodeClass::Action => {
                let st = self.status_of(n);
                let idle = self.eq_imm(st, Status::Idle as i64);
                let running = self.eq_imm(st, Status::Running as i64);
                let (start, again, other) = self.blocks3();
                let not_idle = self.b.create_block();
                self.b.ins().brif(idle, start, &[], not_idle, &[]);
                self.b.switch_to_block(not_idle);
                self.b.ins().brif(running, again, &[], other, &[]);
                self.b.switch_to_block(start);
                self.call_leaf(n, ports, true, out)?;
                self.b.switch_to_block(again);
                self.call_leaf(n, ports, false, out)?;
                self.b.switch_to_block(other);
                self.jump_status(out, st);
                Ok(())
            }
            NodeClass::Condition => self.call_leaf(n, ports, true, out),
        }
    }

    pub(super) fn blocks3(&mut self) -> (Block, Block, Block) {
        (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        )
    }

    /// Ticks the only child; a completed child is reset. Returns the child's status.
    /// Ticks a decorator's only child. A status other than success or failure goes out
    /// unchanged; the caller continues in the block where the child completed, with its
    /// status.
    pub(super) fn tick_only_child(&mut self, n: NodeId, out: Block) -> Result<Value, JitError> {
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(COMPLETED, done), (I | R | K, other)],
        );
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        self.b.switch_to_block(done);
        Ok(s)
    }

    pub(super) fn child_passthrough(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let s = self.tick_only_child(n, out)?;
        self.reset_child(n)?;
        self.jump_status(out, s);
        Ok(())
    }

    /// `seen[n] = seq[slot]`; returns (current, previous). A slot that can be unset and is
    /// counts as not updated (`Machine::entry_updated`).
    pub(super) fn swap_seen(&mut self, n: NodeId, slot: u32) -> (Value, Value) {
        let ((slots, slot_off), (seq, seq_off)) = self.slot_place(slot);
        let current = self
            .b
            .ins()
            .load(types::I32, super::emit::flags(), seq, seq_off);
        let previous =
            self.b
                .ins()
                .load(types::I32, super::emit::flags(), self.at.seen, n as i32 * 4);
        let current = if self.is_list(slot) {
            // A list that holds no value is marked in its list, not in the slot.
            let unset = self.list_is_unset(slot);
            self.b.ins().select(unset, previous, current)
        } else if self.plan.can_be_unset(slot) {
            let bits = self
                .b
                .ins()
                .load(types::I64, super::emit::flags(), slots, slot_off);
            let unset = self.b.ins().icmp_imm_s(
                IntCC::Equal,
                bits,
                affect_compiler::ir::program::UNSET_BITS as i64,
            );
            self.b.ins().select(unset, previous, current)
        } else {
            current
        };
        self.b
            .ins()
            .store(super::emit::flags(), current, self.at.seen, n as i32 * 4);
        (current, previous)
    }

    pub(super) fn tick_sleep(&mut self, n: NodeId, ms: Arg, out: Block) -> Result<(), JitError> {
        let st = self.status_of(n);
        let (idle_blk, run_blk, other) = self.blocks3();
        self.route(
            st,
            bit(Status::Idle) | R | S | F | K,
            &[(I, idle_blk), (R, run_blk), (S | F | K, other)],
        );
        self.b.switch_to_block(idle_blk);
        let ms = self.node_arg(n, 0, ms)?;
        let zero = self.f64c(0.0);
        let none = self.b.ins().fcmp(FloatCC::LessThanOrEqual, ms, zero);
        let (_, wait) = self.if_then(none);
        self.exit(out, Status::Success);
        self.b.switch_to_block(wait);
        self.set_status_c(n, Status::Running);
        self.flags_or(n, WAITING);
        let now = self.now();
        let d = self.b.ins().fadd(now, ms);
        self.store_deadline(n, d);
        self.exit(out, Status::Running);
        self.b.switch_to_block(run_blk);
        let waiting = self.flag_set(n, WAITING);
        let s = self.status_c(Status::Success);
        let r = self.status_c(Status::Running);
        let res = self.b.ins().select(waiting, r, s);
        self.jump_status(out, res);
        self.b.switch_to_block(other);
        self.jump_status(out, st);
        Ok(())
    }

    /// A foreign action or condition: ports in, the leaf ticked in Rust, outputs written.
    pub(super) fn call_leaf(
        &mut self,
        n: NodeId,
        ports: &[PortBinding],
        starting: bool,
        out: Block,
    ) -> Result<(), JitError> {
        let mut inputs = Vec::with_capacity(ports.len());
        for (k, p) in (0u16..).zip(ports) {
            let v = match p {
                PortBinding::In(a) => self.node_arg(n, k, *a)?,
                PortBinding::Slot(s) => self.read_slot(*s),
                PortBinding::Absent => self.f64c(f64::NAN),
            };
            inputs.push(v);
        }
        let count = ports.len();
        let inp = self.spill(&inputs);
        let size = (count.max(1) * 8) as u32;
        let outs = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                size,
                3,
            ));
        let written = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                count.max(1) as u32,
                0,
            ));
        let outs_ptr = self.b.ins().stack_addr(super::emit::P, outs, 0);
        let written_ptr = self.b.ins().stack_addr(super::emit::P, written, 0);
        let node = self.node_val(n);
        let start = self.i32c(i64::from(starting));
        let cnt = self.i32c(count as i64);
        let f = self.callees.leaf_tick;
        let s = self
            .call(
                f,
                &[self.at.view, node, start, inp, outs_ptr, written_ptr, cnt],
            )
            .expect("returns");
        for (k, p) in ports.iter().enumerate() {
            if let PortBinding::Slot(slot) = p {
                let w = self
                    .b
                    .ins()
                    .stack_load(super::emit::P, types::I8, written, k as i32);
                let (_, cont) = self.if_then(w);
                let v = self
                    .b
                    .ins()
                    .stack_load(super::emit::P, types::F64, outs, (k * 8) as i32);
                self.store_value(*slot, v);
                self.end_if(cont);
            }
        }
        self.jump_status(out, s);
        Ok(())
    }
}
