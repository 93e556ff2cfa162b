//! Decorators (inverter, forcing, keep-running, subtrees, repeat, retry, timers, run-once,
//! preconditions, entry watching, loops), emitted as `interp/decorators.rs` runs them; see
//! `tick.rs`.

use super::emit::Fx;
use super::plan::{F, I, K, R, S};
use super::JitError;
use crate::interp::nodes::{CHILD_RUNNING, RAN_ONCE, STARTED, TIMER_DONE};
use affect_compiler::ir::program::{Arg, Code, NodeId, SlotId, Status};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

impl Fx<'_, '_> {
    /// Inverter: SUCCESS and FAILURE swapped.
    pub(super) fn tick_inverter(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        self.set_status_c(n, Status::Running);
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let (succ, fail, other) = self.blocks3();
        self.route(
            s,
            self.possible(c),
            &[(S, succ), (F, fail), (I | R | K, other)],
        );
        self.b.switch_to_block(succ);
        self.reset_child(n)?;
        self.exit(out, Status::Failure);
        self.b.switch_to_block(fail);
        self.reset_child(n)?;
        self.exit(out, Status::Success);
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        Ok(())
    }

    /// ForceSuccess and ForceFailure: a completed child gives `forced`.
    pub(super) fn tick_force(
        &mut self,
        n: NodeId,
        forced: Status,
        out: Block,
    ) -> Result<(), JitError> {
        self.set_status_c(n, Status::Running);
        self.tick_only_child(n, out)?;
        self.reset_child(n)?;
        self.exit(out, forced);
        Ok(())
    }

    /// KeepRunningUntilFailure: RUNNING while the child succeeds.
    pub(super) fn tick_keep_running(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        self.set_status_c(n, Status::Running);
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let (fail, succ, run) = self.blocks3();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(F, fail), (S, succ), (R, run), (I | K, other)],
        );
        self.b.switch_to_block(fail);
        self.reset_child(n)?;
        self.exit(out, Status::Failure);
        self.b.switch_to_block(succ);
        self.reset_child(n)?;
        self.exit(out, Status::Running);
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(other);
        let st = self.status_of(n);
        self.jump_status(out, st);
        Ok(())
    }

    /// A subtree instance: its `in` ports are computed when it starts, then its root runs.
    pub(super) fn tick_subtree(
        &mut self,
        n: NodeId,
        inputs: &[(SlotId, Code)],
        out: Block,
    ) -> Result<(), JitError> {
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        for (slot, code) in inputs {
            let v = self.eval(*code)?;
            self.store_value(*slot, v);
        }
        self.set_status_c(n, Status::Running);
        self.end_if(cont);
        self.child_passthrough(n, out)
    }

    /// `repeat` and `retry`: tick the child again while it ends with `again_on` (success for
    /// repeat, failure for retry) and the count allows; the other outcome ends the loop.
    /// Retry reads its port again after each failure, as BehaviorTree.CPP does; repeat reads
    /// it once per tick.
    pub(super) fn tick_repeat_retry(
        &mut self,
        n: NodeId,
        limit: Arg,
        again_on: Status,
        out: Block,
    ) -> Result<(), JitError> {
        let retry = again_on == Status::Failure;
        let done = if retry {
            Status::Failure
        } else {
            Status::Success
        };
        let other_end = if retry {
            Status::Success
        } else {
            Status::Failure
        };
        let max = self.node_arg(n, 0, limit)?;
        let mut max = self.int32_of(max);
        let again = self.repeat_again(n, max);
        self.set_status_c(n, Status::Running);
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I8);
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b
            .ins()
            .jump(head, &[cranelift_codegen::ir::BlockArg::Value(again)]);
        self.b.switch_to_block(head);
        let again = self.b.block_params(head)[0];
        self.b.ins().brif(again, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let c = self.plan.children(n)[0];
        let prev = self.status_of(c);
        let s = self.execute_tick(c)?;
        let (repeat, stop, run) = self.blocks3();
        let other = self.b.create_block();
        let (rb, sb) = if retry { (F, S) } else { (S, F) };
        self.route(
            s,
            self.possible(c),
            &[(rb, repeat), (sb, stop), (R, run), (I | K, other)],
        );
        self.b.switch_to_block(stop);
        self.store_a_c(n, 0);
        self.reset_child(n)?;
        self.exit(out, other_end);
        self.b.switch_to_block(repeat);
        self.incr(n, super::emit::STATE_A);
        if retry {
            let m = self.node_arg(n, 0, limit)?;
            max = self.int32_of(m);
        }
        let again = self.repeat_again(n, max);
        self.reset_child(n)?;
        let was_idle = self.eq_imm(prev, Status::Idle as i64);
        let yield_ = self.b.ins().band(was_idle, again);
        let y = self.b.create_block();
        self.b.ins().brif(
            yield_,
            y,
            &[],
            head,
            &[cranelift_codegen::ir::BlockArg::Value(again)],
        );
        self.b.switch_to_block(y);
        self.wake();
        self.exit(out, Status::Running);
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(other);
        self.reset_child(n)?;
        self.exit(out, Status::Skipped);
        self.b.switch_to_block(exit);
        self.store_a_c(n, 0);
        self.exit(out, done);
        Ok(())
    }

    /// `a < limit || limit == -1`.
    pub(super) fn repeat_again(&mut self, n: NodeId, limit: Value) -> Value {
        let a = self.load_a(n);
        let below = self.b.ins().icmp(IntCC::SignedLessThan, a, limit);
        let forever = self.eq_imm(limit, -1);
        self.b.ins().bor(below, forever)
    }

    pub(super) fn tick_timeout(
        &mut self,
        n: NodeId,
        ms: Value,
        out: Block,
    ) -> Result<(), JitError> {
        let started = self.flag_set(n, STARTED);
        let not_started = self.eq_imm(started, 0);
        let (_, cont) = self.if_then(not_started);
        self.flags_or(n, STARTED);
        self.flags_clear(n, TIMER_DONE);
        self.set_status_c(n, Status::Running);
        let zero = self.f64c(0.0);
        let positive = self.b.ins().fcmp(FloatCC::GreaterThan, ms, zero);
        let (_, cont2) = self.if_then(positive);
        let now = self.now();
        let d = self.b.ins().fadd(now, ms);
        self.store_deadline(n, d);
        self.end_if(cont2);
        self.end_if(cont);
        let fired = self.flag_set(n, TIMER_DONE);
        let fired_blk = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(fired, fired_blk, &[], go, &[]);
        self.b.switch_to_block(fired_blk);
        self.flags_clear(n, STARTED | TIMER_DONE);
        self.exit(out, Status::Failure);
        self.b.switch_to_block(go);
        let s = self.tick_only_child(n, out)?;
        self.flags_clear(n, STARTED);
        self.disarm(n);
        self.reset_child(n)?;
        self.jump_status(out, s);
        Ok(())
    }

    pub(super) fn tick_delay(&mut self, n: NodeId, ms: Value, out: Block) -> Result<(), JitError> {
        let started = self.flag_set(n, STARTED);
        let not_started = self.eq_imm(started, 0);
        let (_, cont) = self.if_then(not_started);
        self.flags_or(n, STARTED);
        self.flags_clear(n, TIMER_DONE);
        self.set_status_c(n, Status::Running);
        // `now + ms.max(0.0)`: a NaN or negative delay is no delay.
        let zero = self.f64c(0.0);
        let positive = self.b.ins().fcmp(FloatCC::GreaterThan, ms, zero);
        let m = self.b.ins().select(positive, ms, zero);
        let now = self.now();
        let d = self.b.ins().fadd(now, m);
        self.store_deadline(n, d);
        self.end_if(cont);
        let fired = self.flag_set(n, TIMER_DONE);
        let fired_blk = self.b.create_block();
        let wait = self.b.create_block();
        self.b.ins().brif(fired, fired_blk, &[], wait, &[]);
        self.b.switch_to_block(wait);
        self.exit(out, Status::Running);
        self.b.switch_to_block(fired_blk);
        let s = self.tick_only_child(n, out)?;
        self.flags_clear(n, STARTED | TIMER_DONE);
        self.reset_child(n)?;
        self.jump_status(out, s);
        Ok(())
    }

    pub(super) fn tick_run_once(
        &mut self,
        n: NodeId,
        then_skip: bool,
        out: Block,
    ) -> Result<(), JitError> {
        let ran = self.flag_set(n, RAN_ONCE);
        let (_, go) = self.if_then(ran);
        if then_skip {
            self.exit(out, Status::Skipped);
        } else {
            // `Status::from_index(b as u8)`: 1..=4 are statuses, anything else IDLE.
            let b = self.load_b(n);
            let low = self.b.ins().band_imm_s(b, 0xff);
            let above = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, low, 4);
            let zero = self.i32c(0);
            let r = self.b.ins().select(above, zero, low);
            self.jump_status(out, r);
        }
        self.b.switch_to_block(go);
        self.set_status_c(n, Status::Running);
        let s = self.tick_only_child(n, out)?;
        self.flags_or(n, RAN_ONCE);
        self.store_b(n, s);
        self.reset_child(n)?;
        self.jump_status(out, s);
        Ok(())
    }

    pub(super) fn tick_precondition(
        &mut self,
        n: NodeId,
        cond: Code,
        otherwise: Status,
        out: Block,
    ) -> Result<(), JitError> {
        let running = self.flag_set(n, CHILD_RUNNING);
        let go = self.b.create_block();
        let check = self.b.create_block();
        self.b.ins().brif(running, go, &[], check, &[]);
        self.b.switch_to_block(check);
        let v = self.eval_bool(cond)?;
        let no = self.b.create_block();
        self.b.ins().brif(v, go, &[], no, &[]);
        self.b.switch_to_block(no);
        self.exit(out, otherwise);
        self.b.switch_to_block(go);
        self.flags_or(n, CHILD_RUNNING);
        let s = self.tick_only_child(n, out)?;
        self.reset_child(n)?;
        self.flags_clear(n, CHILD_RUNNING);
        self.jump_status(out, s);
        Ok(())
    }

    pub(super) fn tick_entry_updated(
        &mut self,
        n: NodeId,
        slot: u32,
        otherwise: Status,
        out: Block,
    ) -> Result<(), JitError> {
        let running = self.flag_set(n, CHILD_RUNNING);
        let go = self.b.create_block();
        let check = self.b.create_block();
        self.b.ins().brif(running, go, &[], check, &[]);
        self.b.switch_to_block(check);
        let (current, previous) = self.swap_seen(n, slot);
        let same = self.b.ins().icmp(IntCC::Equal, previous, current);
        let no = self.b.create_block();
        self.b.ins().brif(same, no, &[], go, &[]);
        self.b.switch_to_block(no);
        self.exit(out, otherwise);
        self.b.switch_to_block(go);
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let is_running = self.eq_imm(s, Status::Running as i64);
        self.flags_set_to(n, CHILD_RUNNING, is_running);
        self.jump_status(out, s);
        Ok(())
    }

    pub(super) fn tick_loop(
        &mut self,
        n: NodeId,
        (queue, value): (u32, u32),
        if_empty: Status,
        fill: Option<Code>,
        out: Block,
    ) -> Result<(), JitError> {
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        self.flags_clear(n, CHILD_RUNNING);
        // A literal queue starts full each time (BehaviorTree.CPP's static queue).
        if let Some(code) = fill {
            let v = self.eval(code)?;
            self.store_value(queue, v);
        }
        self.end_if(cont);
        let running = self.flag_set(n, CHILD_RUNNING);
        let take = self.b.create_block();
        let after = self.b.create_block();
        self.b.append_block_param(after, types::I8);
        let no = self.b.ins().iconst(types::I8, 0);
        self.b.ins().brif(
            running,
            after,
            &[cranelift_codegen::ir::BlockArg::Value(no)],
            take,
            &[],
        );
        self.b.switch_to_block(take);
        let list = self.read_slot(queue);
        let ss = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                8,
                3,
            ));
        let ptr = self.b.ins().stack_addr(super::emit::P, ss, 0);
        let f = self.callees.list_pop_front;
        let slot = self.slot_number(queue);
        let got = self
            .call(f, &[self.at.view, list, ptr, slot])
            .expect("returns");
        let popped = self.ne_imm(got, 0);
        let (_, cont) = self.if_then(popped);
        let v = self.b.ins().stack_load(super::emit::P, types::F64, ss, 0);
        self.write_slot(value, v);
        self.count_write(queue);
        self.end_if(cont);
        self.b
            .ins()
            .jump(after, &[cranelift_codegen::ir::BlockArg::Value(popped)]);
        self.b.switch_to_block(after);
        let popped = self.b.block_params(after)[0];
        let running = self.flag_set(n, CHILD_RUNNING);
        let either = self.b.ins().bor(popped, running);
        let empty = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(either, go, &[], empty, &[]);
        self.b.switch_to_block(empty);
        self.exit(out, if_empty);
        self.b.switch_to_block(go);
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        self.set_status_c(n, Status::Running);
        self.end_if(cont);
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let is_running = self.eq_imm(s, Status::Running as i64);
        self.flags_set_to(n, CHILD_RUNNING, is_running);
        let completed = self.is_completed(s);
        let (_, cont) = self.if_then(completed);
        self.reset_child(n)?;
        self.end_if(cont);
        let failed = self.eq_imm(s, Status::Failure as i64);
        let f = self.status_c(Status::Failure);
        let r = self.status_c(Status::Running);
        let res = self.b.ins().select(failed, f, r);
        self.jump_status(out, res);
        Ok(())
    }
}
