//! Wide controls: a sequence, fallback or parallel with more than `plan::WIDE` children is a
//! loop over its children rather than code per child. Every child roots its own unit, the
//! units of one node's children are consecutive, and the loop calls child `k` through the
//! view's unit table (`View::units`), so the node's code and Cranelift's memory stay the same
//! size at any width (unrolled, every child's exit path resets all its siblings: quadratic).
//! The statements and their order are those of the unrolled emitters in `controls.rs`.

use super::emit::{flags, Fx, P, STATE_A, STATE_B};
use super::plan::{StatusSet, F, I, K, R, S};
use super::view::{UnitEntry, View};
use super::JitError;
use affect_compiler::ir::program::{NodeId, Status};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, SigRef, Value};
use std::mem::{offset_of, size_of};

impl Fx<'_, '_> {
    /// The tick and halt signatures for indirect calls, imported once per function.
    fn unit_sigs(&mut self) -> (SigRef, SigRef) {
        if let Some(s) = self.unit_sigs {
            return s;
        }
        let tick = self.decls[self.callees.ticks[0].as_u32() as usize]
            .sig
            .clone();
        let halt = self.decls[self.callees.halts[0].as_u32() as usize]
            .sig
            .clone();
        let s = (self.b.import_signature(tick), self.b.import_signature(halt));
        self.unit_sigs = Some(s);
        s
    }

    /// The address of child `k`'s `UnitEntry` (`k` an i32 below the child count).
    fn child_entry(&mut self, n: NodeId, k: Value) -> Value {
        let base = self.wide_base(n);
        let table = self
            .b
            .ins()
            .load(P, flags(), self.at.view, offset_of!(View, units) as i32);
        let k = self.b.ins().uextend(P, k);
        let u = self.b.ins().iadd(k, base);
        let off = self.b.ins().imul_imm_s(u, size_of::<UnitEntry>() as i64);
        self.b.ins().iadd(table, off)
    }

    /// `execute_tick` of child `k`: a call of its unit.
    fn tick_child_at(&mut self, n: NodeId, k: Value) -> Value {
        let (sig, _) = self.unit_sigs();
        let e = self.child_entry(n, k);
        let f = self
            .b
            .ins()
            .load(P, flags(), e, offset_of!(UnitEntry, tick) as i32);
        let [dn, de, ds, dk] = self.entry_delta(e);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.at.view, dn, de, ds, dk]);
        self.b.inst_results(call)[0]
    }

    /// The offsets a unit's functions take, from its `UnitEntry` (`share.rs`).
    fn entry_delta(&mut self, e: Value) -> [Value; 4] {
        let at = offset_of!(UnitEntry, delta) as i32;
        [0, 4, 8, 12].map(|k| self.b.ins().load(types::I32, flags(), e, at + k))
    }

    /// The status byte of child `k`, read before it ticks.
    fn child_status_at(&mut self, n: NodeId, k: Value) -> Value {
        let e = self.child_entry(n, k);
        let c = self
            .b
            .ins()
            .load(types::I32, flags(), e, offset_of!(UnitEntry, node) as i32);
        let c = self.b.ins().uextend(P, c);
        let addr = self.b.ins().iadd(self.at.status_abs, c);
        self.b.ins().uload8(types::I32, flags(), addr, 0)
    }

    /// `halt_child` of child `k`: halts it if it is RUNNING (a child that can never run is
    /// never found so), then resets it.
    pub(super) fn halt_child_at(&mut self, n: NodeId, k: Value) {
        let (_, sig) = self.unit_sigs();
        let e = self.child_entry(n, k);
        let c = self
            .b
            .ins()
            .load(types::I32, flags(), e, offset_of!(UnitEntry, node) as i32);
        let c64 = self.b.ins().uextend(P, c);
        let addr = self.b.ins().iadd(self.at.status_abs, c64);
        let st = self.b.ins().uload8(types::I32, flags(), addr, 0);
        let running = self.eq_imm(st, Status::Running as i64);
        let (_, cont) = self.if_then(running);
        let h = self
            .b
            .ins()
            .load(P, flags(), e, offset_of!(UnitEntry, halt) as i32);
        let [dn, de, ds, dk] = self.entry_delta(e);
        self.b
            .ins()
            .call_indirect(sig, h, &[self.at.view, c, dn, de, ds, dk]);
        self.end_if(cont);
        self.reset_status_dyn(c, true);
    }

    /// Emits `for k in from..count { body(k) }` (`from` an i32); continues after the loop.
    fn for_children(
        &mut self,
        n: NodeId,
        from: Value,
        mut body: impl FnMut(&mut Self, Value) -> Result<(), JitError>,
    ) -> Result<(), JitError> {
        let count = self.plan.children(n).len() as i64;
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I32);
        let blk = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(from)]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, k, count);
        self.b.ins().brif(more, blk, &[], done, &[]);
        self.b.switch_to_block(blk);
        body(self, k)?;
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        self.b.ins().jump(head, &[BlockArg::Value(k1)]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// `halt_child` of every child from `from` on, in order.
    pub(super) fn halt_children_from(&mut self, n: NodeId, from: Value) -> Result<(), JitError> {
        self.for_children(n, from, |fx, k| {
            fx.halt_child_at(n, k);
            Ok(())
        })
    }

    /// Clears the done flag of every edge of a wide parallel node.
    pub(super) fn clear_done_wide(&mut self, n: NodeId) -> Result<(), JitError> {
        let first = self.plan.agent.nodes[n as usize].children.0 as i64;
        let zero = self.i32c(0);
        self.for_children(n, zero, |fx, k| {
            let k = fx.b.ins().uextend(P, k);
            let at = fx.b.ins().iadd(fx.at.done, k);
            let z = fx.i32c(0);
            fx.b.ins().istore8(flags(), z, at, first as i32);
            Ok(())
        })
    }

    /// The done flag of child `k` and its address.
    fn done_at(&mut self, n: NodeId, k: Value) -> (Value, Value) {
        let first = self.plan.agent.nodes[n as usize].children.0 as i64;
        let k = self.b.ins().uextend(P, k);
        let at = self.b.ins().iadd(self.at.done, k);
        let at = self.b.ins().iadd_imm_s(at, first);
        (self.b.ins().uload8(types::I32, flags(), at, 0), at)
    }

    /// A parallel node's child `k`, ticked unless its edge is done: returns its status, the
    /// address of its done flag, and the block where both paths meet, which takes the count
    /// of skipped children (`skipped` from the path that did not tick).
    fn tick_if_pending(&mut self, n: NodeId, k: Value, skipped: Value) -> (Value, Value, Block) {
        let (d, at) = self.done_at(n, k);
        let pending = self.eq_imm(d, 0);
        let tick_blk = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        self.b
            .ins()
            .brif(pending, tick_blk, &[], join, &[BlockArg::Value(skipped)]);
        self.b.switch_to_block(tick_blk);
        let s = self.tick_child_at(n, k);
        (s, at, join)
    }

    /// Every status any child can return.
    fn children_possible(&self, n: NodeId) -> StatusSet {
        self.plan
            .children(n)
            .iter()
            .fold(0, |acc, &c| acc | self.possible(c))
    }

    /// A loop head with the child index (and `extra` more i32/i64 values) as parameters.
    fn loop_head(&mut self, extra: &[types::Type]) -> (Block, Block, Block) {
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I32);
        for t in extra {
            self.b.append_block_param(head, *t);
        }
        (head, self.b.create_block(), self.b.create_block())
    }

    /// Sequence and fallback (`tick_ordered`) over a child table; the cursor is always in
    /// memory, as in the unrolled code's general form.
    pub(super) fn tick_ordered_wide(
        &mut self,
        n: NodeId,
        sequence: bool,
        reset_on_failure: bool,
        yields: bool,
        out: Block,
    ) -> Result<(), JitError> {
        let count = self.plan.children(n).len() as i64;
        let possible = self.children_possible(n);
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let skipped = self.eq_imm(st, Status::Skipped as i64);
        let inactive = self.b.ins().bor(idle, skipped);
        let (_, cont) = self.if_then(inactive);
        self.store_b_c(n, 0);
        self.end_if(cont);
        self.set_status_c(n, Status::Running);
        let (stop, go) = if sequence {
            (Status::Failure, Status::Success)
        } else {
            (Status::Success, Status::Failure)
        };
        let (head, body, after) = self.loop_head(&[]);
        let a = self.load_a(n);
        self.b.ins().jump(head, &[BlockArg::Value(a)]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        // The cursor read as unsigned, as the unrolled code's jump table reads it.
        let more = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, k, count);
        self.b.ins().brif(more, body, &[], after, &[]);
        self.b.switch_to_block(body);
        let prev = if yields {
            Some(self.child_status_at(n, k))
        } else {
            None
        };
        let s = self.tick_child_at(n, k);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        let (run, stop_blk, go_blk) = self.blocks3();
        let (skip_blk, idle_blk) = (self.b.create_block(), self.b.create_block());
        self.route(
            s,
            possible,
            &[
                (R, run),
                (super::plan::bit(stop), stop_blk),
                (super::plan::bit(go), go_blk),
                (K, skip_blk),
                (I, idle_blk),
            ],
        );
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(stop_blk);
        if !sequence || reset_on_failure {
            self.reset_children(n)?;
            self.store_a_c(n, 0);
        } else {
            self.halt_children_from(n, k)?;
        }
        self.exit(out, stop);
        self.b.switch_to_block(go_blk);
        self.store_a(n, k1);
        if let Some(prev) = prev {
            let was_idle = self.eq_imm(prev, Status::Idle as i64);
            let not_last = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, k1, count);
            let yield_now = self.b.ins().band(was_idle, not_last);
            let (_, next) = self.if_then(yield_now);
            self.wake();
            self.exit(out, Status::Running);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(head, &[BlockArg::Value(k1)]);
        self.b.switch_to_block(skip_blk);
        self.store_a(n, k1);
        self.incr(n, STATE_B);
        self.b.ins().jump(head, &[BlockArg::Value(k1)]);
        self.b.switch_to_block(idle_blk);
        self.exit(out, Status::Failure);
        self.b.switch_to_block(after);
        let b = self.load_b(n);
        let all_skipped = self.eq_imm(b, count);
        let a = self.load_a(n);
        let finished = self.eq_imm(a, count);
        let (_, cont) = self.if_then(finished);
        self.reset_children(n)?;
        self.store_a_c(n, 0);
        self.store_b_c(n, 0);
        self.end_if(cont);
        let sk = self.status_c(Status::Skipped);
        let end = self.status_c(go);
        let r = self.b.ins().select(all_skipped, sk, end);
        self.jump_status(out, r);
        Ok(())
    }

    /// Reactive sequence and fallback (`tick_reactive`) over a child table.
    pub(super) fn tick_reactive_wide(
        &mut self,
        n: NodeId,
        sequence: bool,
        out: Block,
    ) -> Result<(), JitError> {
        let count = self.plan.children(n).len() as i64;
        let possible = self.children_possible(n);
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        self.store_a_c(n, -1);
        self.end_if(cont);
        self.set_status_c(n, Status::Running);
        let (stop, stop_set) = if sequence {
            (Status::Failure, F)
        } else {
            (Status::Success, S)
        };
        let (head, body, end) = self.loop_head(&[types::I8]);
        let zero = self.i32c(0);
        let yes = self.b.ins().iconst(types::I8, 1);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(yes)]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        let all_skipped = self.b.block_params(head)[1];
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, k, count);
        self.b.ins().brif(more, body, &[], end, &[]);
        self.b.switch_to_block(body);
        let s = self.tick_child_at(n, k);
        let sk = self.eq_imm(s, Status::Skipped as i64);
        let all2 = self.b.ins().band(all_skipped, sk);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        let (run, stop_blk, skip_blk) = self.blocks3();
        let next = self.b.create_block();
        self.route(
            s,
            possible,
            &[
                (R, run),
                (stop_set, stop_blk),
                (K, skip_blk),
                (I | S | F, next),
            ],
        );
        self.b.switch_to_block(run);
        let zero = self.i32c(0);
        self.for_children(n, zero, |fx, j| {
            let other = fx.b.ins().icmp(IntCC::NotEqual, j, k);
            let (_, cont) = fx.if_then(other);
            fx.halt_child_at(n, j);
            fx.end_if(cont);
            Ok(())
        })?;
        let a = self.load_a(n);
        let none = self.eq_imm(a, -1);
        let (_, cont) = self.if_then(none);
        self.store_a(n, k);
        self.end_if(cont);
        self.exit(out, Status::Running);
        self.b.switch_to_block(stop_blk);
        self.reset_children(n)?;
        self.exit(out, stop);
        self.b.switch_to_block(skip_blk);
        self.halt_child_at(n, k);
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(k1), BlockArg::Value(all2)]);
        self.b.switch_to_block(end);
        self.reset_children(n)?;
        let sk = self.status_c(Status::Skipped);
        let end_s = self.status_c(if sequence {
            Status::Success
        } else {
            Status::Failure
        });
        let r = self.b.ins().select(all_skipped, sk, end_s);
        self.jump_status(out, r);
        Ok(())
    }

    /// `Parallel` (`tick_parallel`) over a child table, from the point where the node is
    /// RUNNING; `need_s`, `need_f` are the thresholds and `s_neg` whether success needs all.
    pub(super) fn tick_parallel_wide(
        &mut self,
        n: NodeId,
        need: (Value, Value),
        s_neg: Value,
        out: Block,
    ) -> Result<(), JitError> {
        let (need_s, need_f) = need;
        let count = self.plan.children(n).len() as i64;
        let possible = self.children_possible(n);
        let (head, body, end) = self.loop_head(&[types::I64]);
        let zero = self.i32c(0);
        let none = self.b.ins().iconst(types::I64, 0);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(none)]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        let skipped = self.b.block_params(head)[1];
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, k, count);
        self.b.ins().brif(more, body, &[], end, &[]);
        self.b.switch_to_block(body);
        let (s, at, check) = self.tick_if_pending(n, k, skipped);
        let (skip_blk, succ, fail) = self.blocks3();
        let other = self.b.create_block();
        self.route(
            s,
            possible,
            &[(K, skip_blk), (S, succ), (F, fail), (I | R, other)],
        );
        self.b.switch_to_block(skip_blk);
        let sk1 = self.b.ins().iadd_imm_s(skipped, 1);
        self.b.ins().jump(check, &[BlockArg::Value(sk1)]);
        for (blk, field) in [(succ, STATE_A), (fail, STATE_B)] {
            self.b.switch_to_block(blk);
            let one = self.i32c(1);
            self.b.ins().istore8(flags(), one, at, 0);
            self.incr(n, field);
            self.b.ins().jump(check, &[BlockArg::Value(skipped)]);
        }
        self.b.switch_to_block(other);
        self.b.ins().jump(check, &[BlockArg::Value(skipped)]);
        self.b.switch_to_block(check);
        let skipped = self.b.block_params(check)[0];
        self.parallel_decide(n, skipped, (need_s, need_f), s_neg, out)?;
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(k1), BlockArg::Value(skipped)]);
        self.b.switch_to_block(end);
        let skipped = self.b.block_params(head)[1];
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, skipped, count);
        let sk = self.status_c(Status::Skipped);
        let run = self.status_c(Status::Running);
        let r = self.b.ins().select(all, sk, run);
        self.jump_status(out, r);
        Ok(())
    }

    /// `ParallelAll`'s loop over its children (`tick_parallel_all`): returns how many were
    /// skipped (an i64).
    pub(super) fn parallel_all_loop_wide(&mut self, n: NodeId) -> Result<Value, JitError> {
        let count = self.plan.children(n).len() as i64;
        let possible = self.children_possible(n);
        let (head, body, end) = self.loop_head(&[types::I64]);
        let zero = self.i32c(0);
        let none = self.b.ins().iconst(types::I64, 0);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(none)]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        let skipped = self.b.block_params(head)[1];
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, k, count);
        self.b.ins().brif(more, body, &[], end, &[]);
        self.b.switch_to_block(body);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        let (s, at, next) = self.tick_if_pending(n, k, skipped);
        let (succ, fail, skip_blk) = self.blocks3();
        let other = self.b.create_block();
        self.route(
            s,
            possible,
            &[(S, succ), (F, fail), (K, skip_blk), (I | R, other)],
        );
        for (blk, failed) in [(succ, false), (fail, true)] {
            self.b.switch_to_block(blk);
            let one = self.i32c(1);
            self.b.ins().istore8(flags(), one, at, 0);
            self.incr(n, STATE_A);
            if failed {
                self.incr(n, STATE_B);
            }
            self.b.ins().jump(next, &[BlockArg::Value(skipped)]);
        }
        self.b.switch_to_block(skip_blk);
        let sk1 = self.b.ins().iadd_imm_s(skipped, 1);
        self.b.ins().jump(next, &[BlockArg::Value(sk1)]);
        self.b.switch_to_block(other);
        self.b.ins().jump(next, &[BlockArg::Value(skipped)]);
        self.b.switch_to_block(next);
        let skipped = self.b.block_params(next)[0];
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(k1), BlockArg::Value(skipped)]);
        self.b.switch_to_block(end);
        Ok(self.b.block_params(head)[1])
    }
}
