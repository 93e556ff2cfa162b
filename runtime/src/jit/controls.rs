//! Control nodes (sequences, fallbacks, reactive and parallel nodes, if/while/try,
//! switch), emitted as `interp/controls.rs` runs them; see `tick.rs`.

use super::emit::Fx;
use super::plan::{bit, F, I, K, R, S};
use super::JitError;
use affect_compiler::ir::program::{CaseValue, Code, NodeId, Status, ValueKind};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

impl Fx<'_, '_> {
    pub(super) fn tick_sequence(
        &mut self,
        n: NodeId,
        reset_on_failure: bool,
        yields: bool,
        out: Block,
    ) -> Result<(), JitError> {
        self.tick_ordered(n, true, reset_on_failure, yields, out)
    }

    pub(super) fn tick_fallback(
        &mut self,
        n: NodeId,
        yields: bool,
        out: Block,
    ) -> Result<(), JitError> {
        self.tick_ordered(n, false, true, yields, out)
    }

    /// Sequence (`sequence`) and Fallback: the cursor `a` picks the child to resume.
    pub(super) fn tick_ordered(
        &mut self,
        n: NodeId,
        sequence: bool,
        reset_on_failure: bool,
        yields: bool,
        out: Block,
    ) -> Result<(), JitError> {
        if self.plan.wide[n as usize].is_some() {
            return self.tick_ordered_wide(n, sequence, reset_on_failure, yields, out);
        }
        let kids = self.plan.children(n);
        let count = kids.len();
        // "Straight": no child can return RUNNING or IDLE, so every tick runs the children
        // from the first to a stop or the end, and the cursor is 0 at every tick's start
        // (every path that leaves it elsewhere returns RUNNING or follows an IDLE child).
        // The cursor then lives in the code's position rather than in memory.
        let straight = !yields
            && (!sequence || reset_on_failure)
            && kids.iter().all(|&c| self.possible(c) & (R | I) == 0);
        let any_skip = kids.iter().any(|&c| self.can(c, Status::Skipped));
        if !straight || any_skip {
            let st = self.status_of(n);
            let idle = self.eq_imm(st, Status::Idle as i64);
            let skipped = self.eq_imm(st, Status::Skipped as i64);
            let inactive = self.b.ins().bor(idle, skipped);
            let (_, cont) = self.if_then(inactive);
            self.store_b_c(n, 0);
            self.end_if(cont);
        }
        self.set_status_c(n, Status::Running);
        let blocks: Vec<Block> = (0..count).map(|_| self.b.create_block()).collect();
        let after = self.b.create_block();
        if straight {
            self.b
                .ins()
                .jump(blocks.first().copied().unwrap_or(after), &[]);
        } else {
            let a = self.load_a(n);
            self.br_table(a, &blocks, after);
        }
        // The status that ends the loop early (FAILURE in a sequence, SUCCESS in a fallback)
        // and the one that moves on.
        let (stop, go) = if sequence {
            (Status::Failure, Status::Success)
        } else {
            (Status::Success, Status::Failure)
        };
        for k in 0..count {
            self.b.switch_to_block(blocks[k]);
            let c = kids[k];
            let next = blocks.get(k + 1).copied().unwrap_or(after);
            let prev = if yields {
                Some(self.status_of(c))
            } else {
                None
            };
            let s = self.execute_tick(c)?;
            let (run, stop_blk, go_blk) = self.blocks3();
            let (skip_blk, idle_blk) = (self.b.create_block(), self.b.create_block());
            self.route(
                s,
                self.possible(c),
                &[
                    (R, run),
                    (bit(stop), stop_blk),
                    (bit(go), go_blk),
                    (K, skip_blk),
                    (I, idle_blk),
                ],
            );
            self.b.switch_to_block(run);
            self.exit(out, Status::Running);
            self.b.switch_to_block(stop_blk);
            if !sequence || reset_on_failure {
                self.reset_children(n)?;
                if !straight {
                    self.store_a_c(n, 0);
                }
            } else {
                for j in k..count {
                    self.halt_child(n, j)?;
                }
            }
            self.exit(out, stop);
            self.b.switch_to_block(go_blk);
            if !straight {
                self.store_a_c(n, k as i64 + 1);
            }
            match prev {
                Some(prev) if k + 1 < count => {
                    let was_idle = self.eq_imm(prev, Status::Idle as i64);
                    let y = self.b.create_block();
                    self.b.ins().brif(was_idle, y, &[], next, &[]);
                    self.b.switch_to_block(y);
                    self.wake();
                    self.exit(out, Status::Running);
                }
                _ => {
                    self.b.ins().jump(next, &[]);
                }
            }
            self.b.switch_to_block(skip_blk);
            if !straight {
                self.store_a_c(n, k as i64 + 1);
            }
            self.incr(n, super::emit::STATE_B);
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(idle_blk);
            self.exit(out, Status::Failure);
        }
        self.b.switch_to_block(after);
        let sk = self.status_c(Status::Skipped);
        let end = self.status_c(go);
        if straight {
            // Every child ran: the cursor is at the end.
            let all_skipped = if any_skip {
                let b = self.load_b(n);
                self.eq_imm(b, count as i64)
            } else {
                self.b.ins().iconst(types::I8, i64::from(count == 0))
            };
            self.reset_children(n)?;
            if any_skip {
                self.store_b_c(n, 0);
            }
            let r = self.b.ins().select(all_skipped, sk, end);
            self.jump_status(out, r);
            return Ok(());
        }
        let b = self.load_b(n);
        let all_skipped = self.eq_imm(b, count as i64);
        let a = self.load_a(n);
        let finished = self.eq_imm(a, count as i64);
        let (_, cont) = self.if_then(finished);
        self.reset_children(n)?;
        self.store_a_c(n, 0);
        self.store_b_c(n, 0);
        self.end_if(cont);
        let r = self.b.ins().select(all_skipped, sk, end);
        self.jump_status(out, r);
        Ok(())
    }

    pub(super) fn tick_reactive(
        &mut self,
        n: NodeId,
        sequence: bool,
        out: Block,
    ) -> Result<(), JitError> {
        if self.plan.wide[n as usize].is_some() {
            return self.tick_reactive_wide(n, sequence, out);
        }
        let kids = self.plan.children(n);
        let count = kids.len();
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        self.store_a_c(n, -1);
        self.end_if(cont);
        self.set_status_c(n, Status::Running);
        // Whether every child so far was skipped.
        let mut all_skipped = self.b.ins().iconst(types::I8, 1);
        let (stop, stop_set) = if sequence {
            (Status::Failure, F)
        } else {
            (Status::Success, S)
        };
        for (k, &c) in kids.iter().enumerate() {
            let s = self.execute_tick(c)?;
            if self.can(c, Status::Skipped) {
                let sk = self.eq_imm(s, Status::Skipped as i64);
                all_skipped = self.b.ins().band(all_skipped, sk);
            } else {
                all_skipped = self.b.ins().iconst(types::I8, 0);
            }
            let (run, stop_blk, skip_blk) = self.blocks3();
            let next = self.b.create_block();
            self.route(
                s,
                self.possible(c),
                &[
                    (R, run),
                    (stop_set, stop_blk),
                    (K, skip_blk),
                    (I | S | F, next),
                ],
            );
            self.b.switch_to_block(run);
            for j in 0..count {
                if j != k {
                    self.halt_child(n, j)?;
                }
            }
            let a = self.load_a(n);
            let none = self.eq_imm(a, -1);
            let (_, cont) = self.if_then(none);
            self.store_a_c(n, k as i64);
            self.end_if(cont);
            self.exit(out, Status::Running);
            self.b.switch_to_block(stop_blk);
            self.reset_children(n)?;
            self.exit(out, stop);
            self.b.switch_to_block(skip_blk);
            self.halt_child(n, k)?;
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
        self.reset_children(n)?;
        let sk = self.status_c(Status::Skipped);
        let end = self.status_c(if sequence {
            Status::Success
        } else {
            Status::Failure
        });
        let r = self.b.ins().select(all_skipped, sk, end);
        self.jump_status(out, r);
        Ok(())
    }

    /// Python-style thresholds: -1 means all children (i64 arithmetic, as `usize`).
    pub(super) fn threshold(&mut self, count: usize, t: Value) -> Value {
        if let Some(t) = self.const_int(t) {
            let t = t as i32 as i64;
            let v = if t < 0 {
                (count as i64 + t + 1).max(0)
            } else {
                t
            };
            return self.b.ins().iconst(types::I64, v);
        }
        let t = self.b.ins().sextend(types::I64, t);
        let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, t, 0);
        let from_end = self.b.ins().iadd_imm_s(t, count as i64 + 1);
        let zero = self.b.ins().iconst(types::I64, 0);
        let from_end = self.b.ins().smax(from_end, zero);
        self.b.ins().select(neg, from_end, t)
    }

    pub(super) fn clear_parallel(&mut self, n: NodeId) -> Result<(), JitError> {
        self.clear_done(n)?;
        self.store_a_c(n, 0);
        self.store_b_c(n, 0);
        Ok(())
    }

    /// Clears the done flag of each of a parallel node's edges.
    pub(super) fn clear_done(&mut self, n: NodeId) -> Result<(), JitError> {
        if self.plan.wide[n as usize].is_some() {
            return self.clear_done_wide(n);
        }
        let first = self.plan.agent.nodes[n as usize].children.0 as usize;
        for k in 0..self.plan.children(n).len() {
            self.set_done(first + k, false);
        }
        Ok(())
    }

    pub(super) fn tick_parallel(
        &mut self,
        n: NodeId,
        success_t: Value,
        failure_t: Value,
        out: Block,
    ) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let count = kids.len();
        let first = self.plan.agent.nodes[n as usize].children.0 as usize;
        let need_s = self.threshold(count, success_t);
        let need_f = self.threshold(count, failure_t);
        let cnt = self.b.ins().iconst(types::I64, count as i64);
        // `count < need`, compared as usize (a threshold is never negative here).
        match (self.const_int(need_s), self.const_int(need_f)) {
            (Some(s), Some(f)) => {
                if (count as i64) < s || (count as i64) < f {
                    self.exit(out, Status::Failure);
                    return Ok(());
                }
            }
            _ => {
                let bad_s = self.b.ins().icmp(IntCC::UnsignedLessThan, cnt, need_s);
                let bad_f = self.b.ins().icmp(IntCC::UnsignedLessThan, cnt, need_f);
                let bad = self.b.ins().bor(bad_s, bad_f);
                let (_, good) = self.if_then(bad);
                self.exit(out, Status::Failure);
                self.b.switch_to_block(good);
            }
        }
        self.set_status_c(n, Status::Running);
        let s_neg = match self.const_int(success_t) {
            Some(t) => self.b.ins().iconst(types::I8, i64::from((t as i32) < 0)),
            None => self.b.ins().icmp_imm_s(IntCC::SignedLessThan, success_t, 0),
        };
        if self.plan.wide[n as usize].is_some() {
            return self.tick_parallel_wide(n, (need_s, need_f), s_neg, out);
        }
        let mut skipped = self.b.ins().iconst(types::I64, 0);
        for (k, &c) in kids.iter().enumerate() {
            let e = first + k;
            let d = self.done_flag(e);
            let pending = self.eq_imm(d, 0);
            let tick_blk = self.b.create_block();
            let check = self.b.create_block();
            self.b.append_block_param(check, types::I64);
            self.b.ins().brif(
                pending,
                tick_blk,
                &[],
                check,
                &[cranelift_codegen::ir::BlockArg::Value(skipped)],
            );
            self.b.switch_to_block(tick_blk);
            let s = self.execute_tick(c)?;
            let (skip_blk, succ, fail) = self.blocks3();
            let other = self.b.create_block();
            self.route(
                s,
                self.possible(c),
                &[(K, skip_blk), (S, succ), (F, fail), (I | R, other)],
            );
            self.b.switch_to_block(skip_blk);
            let sk1 = self.b.ins().iadd_imm_s(skipped, 1);
            self.b
                .ins()
                .jump(check, &[cranelift_codegen::ir::BlockArg::Value(sk1)]);
            self.b.switch_to_block(succ);
            self.set_done(e, true);
            self.incr(n, super::emit::STATE_A);
            self.b
                .ins()
                .jump(check, &[cranelift_codegen::ir::BlockArg::Value(skipped)]);
            self.b.switch_to_block(fail);
            self.set_done(e, true);
            self.incr(n, super::emit::STATE_B);
            self.b
                .ins()
                .jump(check, &[cranelift_codegen::ir::BlockArg::Value(skipped)]);
            self.b.switch_to_block(other);
            self.b
                .ins()
                .jump(check, &[cranelift_codegen::ir::BlockArg::Value(skipped)]);
            self.b.switch_to_block(check);
            skipped = self.b.block_params(check)[0];
            self.parallel_decide(n, skipped, (need_s, need_f), s_neg, out)?;
        }
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, skipped, count as i64);
        let sk = self.status_c(Status::Skipped);
        let run = self.status_c(Status::Running);
        let r = self.b.ins().select(all, sk, run);
        self.jump_status(out, r);
        Ok(())
    }

    /// After each child of a `Parallel`: SUCCESS once the successes (with the skipped
    /// children, when all must succeed) reach the threshold, FAILURE once success is out of
    /// reach or the failures reach theirs; otherwise on to the next child.
    pub(super) fn parallel_decide(
        &mut self,
        n: NodeId,
        skipped: Value,
        need: (Value, Value),
        s_neg: Value,
        out: Block,
    ) -> Result<(), JitError> {
        let (need_s, need_f) = need;
        let cnt = self
            .b
            .ins()
            .iconst(types::I64, self.plan.children(n).len() as i64);
        let a = self.load_a(n);
        let successes = self.b.ins().sextend(types::I64, a);
        let bb = self.load_b(n);
        let failures = self.b.ins().sextend(types::I64, bb);
        let reached = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, successes, need_s);
        let with_skipped = self.b.ins().iadd(successes, skipped);
        let reached2 = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, with_skipped, need_s);
        let reached2 = self.b.ins().band(s_neg, reached2);
        let win = self.b.ins().bor(reached, reached2);
        let (_, next) = self.if_then(win);
        self.clear_parallel(n)?;
        self.reset_children(n)?;
        self.exit(out, Status::Success);
        self.b.switch_to_block(next);
        let left = self.b.ins().isub(cnt, failures);
        let lost = self.b.ins().icmp(IntCC::UnsignedLessThan, left, need_s);
        let lost2 = self.b.ins().icmp(IntCC::Equal, failures, need_f);
        let lose = self.b.ins().bor(lost, lost2);
        let (_, next2) = self.if_then(lose);
        self.clear_parallel(n)?;
        self.reset_children(n)?;
        self.exit(out, Status::Failure);
        self.b.switch_to_block(next2);
        Ok(())
    }

    pub(super) fn tick_parallel_all(
        &mut self,
        n: NodeId,
        max_failures: Value,
        out: Block,
    ) -> Result<(), JitError> {
        let count = self.plan.children(n).len();
        let threshold = self.threshold(count, max_failures);
        let cnt = self.b.ins().iconst(types::I64, count as i64);
        let bad = self.b.ins().icmp(IntCC::UnsignedLessThan, cnt, threshold);
        let (_, good) = self.if_then(bad);
        self.exit(out, Status::Failure);
        self.b.switch_to_block(good);
        self.set_status_c(n, Status::Running);
        let skipped = if self.plan.wide[n as usize].is_some() {
            self.parallel_all_loop_wide(n)?
        } else {
            self.parallel_all_loop(n)?
        };
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, skipped, count as i64);
        let (_, cont) = self.if_then(all);
        self.exit(out, Status::Skipped);
        self.b.switch_to_block(cont);
        let a = self.load_a(n);
        let a = self.b.ins().sextend(types::I64, a);
        let finished = self.b.ins().iadd(skipped, a);
        let finished = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, finished, cnt);
        let (_, running) = self.if_then(finished);
        self.reset_children(n)?;
        self.clear_done(n)?;
        self.store_a_c(n, 0);
        let bb = self.load_b(n);
        let bb = self.b.ins().sextend(types::I64, bb);
        let failed = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, bb, threshold);
        self.store_b_c(n, 0);
        let f = self.status_c(Status::Failure);
        let s = self.status_c(Status::Success);
        let r = self.b.ins().select(failed, f, s);
        self.jump_status(out, r);
        self.b.switch_to_block(running);
        self.exit(out, Status::Running);
        Ok(())
    }

    /// `ParallelAll`'s children, unrolled: returns how many were skipped (an i64).
    fn parallel_all_loop(&mut self, n: NodeId) -> Result<Value, JitError> {
        let kids = self.plan.children(n);
        let first = self.plan.agent.nodes[n as usize].children.0 as usize;
        let mut skipped = self.b.ins().iconst(types::I64, 0);
        use cranelift_codegen::ir::BlockArg::Value as Arg_;
        for (k, &c) in kids.iter().enumerate() {
            let e = first + k;
            let d = self.done_flag(e);
            let pending = self.eq_imm(d, 0);
            let tick_blk = self.b.create_block();
            let next = self.b.create_block();
            self.b.append_block_param(next, types::I64);
            self.b
                .ins()
                .brif(pending, tick_blk, &[], next, &[Arg_(skipped)]);
            self.b.switch_to_block(tick_blk);
            let s = self.execute_tick(c)?;
            let (succ, fail, skip_blk) = self.blocks3();
            let other = self.b.create_block();
            self.route(
                s,
                self.possible(c),
                &[(S, succ), (F, fail), (K, skip_blk), (I | R, other)],
            );
            self.b.switch_to_block(succ);
            self.set_done(e, true);
            self.incr(n, super::emit::STATE_A);
            self.b.ins().jump(next, &[Arg_(skipped)]);
            self.b.switch_to_block(fail);
            self.set_done(e, true);
            self.incr(n, super::emit::STATE_A);
            self.incr(n, super::emit::STATE_B);
            self.b.ins().jump(next, &[Arg_(skipped)]);
            self.b.switch_to_block(skip_blk);
            let sk1 = self.b.ins().iadd_imm_s(skipped, 1);
            self.b.ins().jump(next, &[Arg_(sk1)]);
            self.b.switch_to_block(other);
            self.b.ins().jump(next, &[Arg_(skipped)]);
            self.b.switch_to_block(next);
            skipped = self.b.block_params(next)[0];
        }
        Ok(skipped)
    }

    pub(super) fn tick_if_then_else(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let count = kids.len();
        self.set_status_c(n, Status::Running);
        let a = self.load_a(n);
        let first = self.eq_imm(a, 0);
        let (_, branch) = self.if_then(first);
        let c0 = kids[0];
        let s0 = self.execute_tick(c0)?;
        let (run, succ, fail) = self.blocks3();
        let other = self.b.create_block();
        self.route(
            s0,
            self.possible(c0),
            &[(R, run), (S, succ), (F, fail), (I | K, other)],
        );
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(succ);
        self.store_a_c(n, 1);
        self.b.ins().jump(branch, &[]);
        self.b.switch_to_block(fail);
        if count == 3 {
            self.store_a_c(n, 2);
            self.b.ins().jump(branch, &[]);
        } else {
            self.exit(out, Status::Failure);
        }
        // BehaviorTree.CPP throws on a skipped condition; failing is the safe reading.
        self.b.switch_to_block(other);
        self.exit(out, Status::Failure);
        self.b.switch_to_block(branch);
        let k = self.load_a(n);
        let finish = self.status_block();
        let blocks: Vec<Block> = (0..count).map(|_| self.b.create_block()).collect();
        // A cursor outside the children cannot occur; failing is the safe reading.
        let bad = self.b.create_block();
        self.br_table(k, &blocks, bad);
        self.b.switch_to_block(bad);
        self.exit(out, Status::Failure);
        for (j, blk) in blocks.into_iter().enumerate() {
            self.b.switch_to_block(blk);
            let s = self.execute_tick(kids[j])?;
            self.jump_status(finish, s);
        }
        self.b.switch_to_block(finish);
        let s = self.b.block_params(finish)[0];
        let running = self.eq_imm(s, Status::Running as i64);
        let run = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(running, run, &[], done, &[]);
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(done);
        self.reset_children(n)?;
        self.store_a_c(n, 0);
        self.jump_status(out, s);
        Ok(())
    }

    pub(super) fn tick_while_do_else(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let count = kids.len();
        self.set_status_c(n, Status::Running);
        let c0 = kids[0];
        let cond = self.execute_tick(c0)?;
        let (run, succ, fail) = self.blocks3();
        let other = self.b.create_block();
        let finish = self.status_block();
        self.route(
            cond,
            self.possible(c0),
            &[(R, run), (S, succ), (F, fail), (I | K, other)],
        );
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(succ);
        if count == 3 {
            self.halt_child(n, 2)?;
        }
        let s = self.execute_tick(kids[1])?;
        self.jump_status(finish, s);
        self.b.switch_to_block(fail);
        if count == 3 {
            self.halt_child(n, 1)?;
            let s = self.execute_tick(kids[2])?;
            self.jump_status(finish, s);
        } else {
            self.exit(finish, Status::Failure);
        }
        self.b.switch_to_block(other);
        self.exit(finish, Status::Idle);
        self.b.switch_to_block(finish);
        let s = self.b.block_params(finish)[0];
        let running = self.eq_imm(s, Status::Running as i64);
        let run = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(running, run, &[], done, &[]);
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(done);
        self.reset_children(n)?;
        let idle = self.eq_imm(s, Status::Idle as i64);
        let f = self.status_c(Status::Failure);
        let r = self.b.ins().select(idle, f, s);
        self.jump_status(out, r);
        Ok(())
    }

    pub(super) fn tick_try_catch(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let count = kids.len();
        let try_count = count - 1;
        self.set_status_c(n, Status::Running);
        let catch = self.b.create_block();
        let tries = self.b.create_block();
        let b = self.load_b(n);
        let trying = self.eq_imm(b, 0);
        self.b.ins().brif(trying, tries, &[], catch, &[]);
        self.b.switch_to_block(tries);
        let blocks: Vec<Block> = (0..try_count).map(|_| self.b.create_block()).collect();
        let after = self.b.create_block();
        let a = self.load_a(n);
        self.br_table(a, &blocks, after);
        for k in 0..try_count {
            self.b.switch_to_block(blocks[k]);
            let next = blocks.get(k + 1).copied().unwrap_or(after);
            let c = kids[k];
            let s = self.execute_tick(c)?;
            let (run, ok, bad) = self.blocks3();
            self.route(s, self.possible(c), &[(R, run), (S | K, ok), (I | F, bad)]);
            self.b.switch_to_block(run);
            self.exit(out, Status::Running);
            self.b.switch_to_block(ok);
            self.store_a_c(n, k as i64 + 1);
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(bad);
            for j in 0..try_count {
                self.halt_child(n, j)?;
            }
            self.store_a_c(n, 0);
            self.store_b_c(n, 1);
            self.b.ins().jump(catch, &[]);
        }
        self.b.switch_to_block(after);
        let b = self.load_b(n);
        let ok = self.eq_imm(b, 0);
        let ok_blk = self.b.create_block();
        self.b.ins().brif(ok, ok_blk, &[], catch, &[]);
        self.b.switch_to_block(ok_blk);
        self.reset_children(n)?;
        self.store_a_c(n, 0);
        self.exit(out, Status::Success);
        self.b.switch_to_block(catch);
        let c = kids[count - 1];
        let s = self.execute_tick(c)?;
        let running = self.eq_imm(s, Status::Running as i64);
        let run = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(running, run, &[], done, &[]);
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(done);
        self.reset_children(n)?;
        self.store_b_c(n, 0);
        self.exit(out, Status::Failure);
        Ok(())
    }

    pub(super) fn tick_switch(
        &mut self,
        n: NodeId,
        subject: Code,
        kind: ValueKind,
        cases: &[CaseValue],
        out: Block,
    ) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let ncases = cases.len();
        let value = self.eval(subject)?;
        let arms: Vec<Block> = (0..=ncases).map(|_| self.b.create_block()).collect();
        for (k, case) in cases.iter().enumerate() {
            let hit = self.switch_matches(value, kind, case);
            let next = self.b.create_block();
            self.b.ins().brif(hit, arms[k], &[], next, &[]);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(arms[ncases], &[]);
        for (m, arm) in arms.into_iter().enumerate() {
            self.b.switch_to_block(arm);
            let running = self.load_a(n);
            let some = self.ne_imm(running, -1);
            let other = self.ne_imm(running, m as i64);
            let halt = self.b.ins().band(some, other);
            let (_, cont) = self.if_then(halt);
            self.halt_child_dyn(n, running)?;
            self.end_if(cont);
            let c = kids[m];
            let s = self.execute_tick(c)?;
            let (skip, run, done) = self.blocks3();
            self.route(
                s,
                self.possible(c),
                &[(K, skip), (R, run), (I | S | F, done)],
            );
            self.b.switch_to_block(skip);
            self.store_a_c(n, -1);
            self.jump_status(out, s);
            self.b.switch_to_block(run);
            self.store_a_c(n, m as i64);
            self.jump_status(out, s);
            self.b.switch_to_block(done);
            self.reset_children(n)?;
            self.store_a_c(n, -1);
            self.jump_status(out, s);
        }
        Ok(())
    }

    /// `switch_matches`, with the case's text read at compile time.
    pub(super) fn switch_matches(
        &mut self,
        value: Value,
        kind: ValueKind,
        case: &CaseValue,
    ) -> Value {
        match kind {
            ValueKind::Num
            | ValueKind::Int
            | ValueKind::Duration
            | ValueKind::Rate
            | ValueKind::Length
            | ValueKind::Angle => {
                let mut hit = self.b.ins().iconst(types::I8, 0);
                if let Some(lead) = crate::interp::controls::leading_int(&case.text) {
                    // `value.is_finite() && value.trunc() == lead as f64`.
                    let abs = self.b.ins().fabs(value);
                    let inf = self.f64c(f64::INFINITY);
                    let finite = self.b.ins().fcmp(FloatCC::LessThan, abs, inf);
                    let t = self.b.ins().trunc(value);
                    let l = self.f64c(lead as f64);
                    let eq = self.b.ins().fcmp(FloatCC::Equal, t, l);
                    hit = self.b.ins().band(finite, eq);
                }
                if let Ok(b) = case.text.trim().parse::<f64>() {
                    let bv = self.f64c(b);
                    let d = self.b.ins().fsub(value, bv);
                    let d = self.b.ins().fabs(d);
                    let eps = self.f64c(f32::EPSILON as f64);
                    let near = self.b.ins().fcmp(FloatCC::LessThanOrEqual, d, eps);
                    hit = self.b.ins().bor(hit, near);
                }
                hit
            }
            _ => {
                let cv = self.f64c(case.value);
                self.b.ins().fcmp(FloatCC::Equal, value, cv)
            }
        }
    }
}
