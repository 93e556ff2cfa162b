//! Node ticks, emitted as the interpreter's `interp/nodes.rs` runs them, statement for
//! statement (the order of status changes, resets and halts is what a trace shows). A node
//! is emitted into its parent's function; a node that roots another unit is a call. Every
//! node's tick ends by jumping to an `out` block with the status it returns.

use super::emit::Fx;
use super::plan::{bit, COMPLETED};
use super::JitError;
use crate::interp::nodes::{CHILD_RUNNING, RAN_ONCE, STARTED, TIMER_DONE, WAITING};
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{
    Arg, CaseValue, Code, NodeId, NodeKind, PortBinding, Status, ValueKind,
};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

const R: u8 = bit(Status::Running);
const S: u8 = bit(Status::Success);
const F: u8 = bit(Status::Failure);
const K: u8 = bit(Status::Skipped);
const I: u8 = bit(Status::Idle);

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
            return Ok(self.call(f, &[self.at.view]).expect("returns a status"));
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
            self.plan.agent.nodes[n as usize].kind,
            NodeKind::Inverter | NodeKind::ForceSuccess | NodeKind::ForceFailure
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

    fn pre_conditions(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
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
                let hit = self.b.create_block();
                let next = self.b.create_block();
                self.b.ins().brif(v, hit, &[], next, &[]);
                self.b.switch_to_block(hit);
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

    fn post_conditions(&mut self, n: NodeId, s: Value, possible: u8) -> Result<(), JitError> {
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
    fn tick(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
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
                let (s, f) = (self.arg(*success)?, self.arg(*failure)?);
                let (s, f) = (self.int32_of(s), self.int32_of(f));
                self.tick_parallel(n, s, f, out)
            }
            NodeKind::ParallelAll { max_failures } => {
                let m = self.arg(*max_failures)?;
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
            NodeKind::Inverter => {
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
            NodeKind::ForceSuccess | NodeKind::ForceFailure => {
                let forced = if matches!(node.kind, NodeKind::ForceSuccess) {
                    Status::Success
                } else {
                    Status::Failure
                };
                self.set_status_c(n, Status::Running);
                let c = self.plan.children(n)[0];
                let s = self.execute_tick(c)?;
                let done = self.b.create_block();
                let other = self.b.create_block();
                self.route(
                    s,
                    self.possible(c),
                    &[(COMPLETED, done), (I | R | K, other)],
                );
                self.b.switch_to_block(done);
                self.reset_child(n)?;
                self.exit(out, forced);
                self.b.switch_to_block(other);
                self.jump_status(out, s);
                Ok(())
            }
            NodeKind::KeepRunningUntilFailure => {
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
            NodeKind::Repeat { cycles } => {
                let c = self.arg(*cycles)?;
                let c = self.int32_of(c);
                self.tick_repeat(n, c, out)
            }
            NodeKind::Retry { attempts } => self.tick_retry(n, *attempts, out),
            NodeKind::Timeout { ms } => {
                let ms = self.arg(*ms)?;
                self.tick_timeout(n, ms, out)
            }
            NodeKind::Delay { ms } => {
                let ms = self.arg(*ms)?;
                self.tick_delay(n, ms, out)
            }
            NodeKind::RunOnce { then_skip } => self.tick_run_once(n, *then_skip, out),
            NodeKind::Precondition { cond, otherwise } => {
                self.tick_precondition(n, *cond, *otherwise, out)
            }
            NodeKind::EntryUpdated {
                slot,
                if_not_updated,
            } => self.tick_entry_updated(n, *slot, *if_not_updated, out),
            NodeKind::Loop {
                queue,
                value,
                if_empty,
            } => self.tick_loop(n, *queue, *value, *if_empty, out),
            NodeKind::SubTree { inputs } => {
                let st = self.status_of(n);
                let idle = self.eq_imm(st, Status::Idle as i64);
                let (_, cont) = self.if_then(idle);
                for (slot, code) in inputs {
                    let v = self.eval(*code)?;
                    self.write_slot(*slot, v);
                }
                self.set_status_c(n, Status::Running);
                self.end_if(cont);
                self.child_passthrough(n, out)
            }
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
            NodeKind::Foreign { leaf, ports } => match self.plan.leaf_class(*leaf) {
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
            },
        }
    }

    fn blocks3(&mut self) -> (Block, Block, Block) {
        (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        )
    }

    /// Ticks the only child; a completed child is reset. Returns the child's status.
    fn child_passthrough(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(COMPLETED, done), (I | R | K, other)],
        );
        self.b.switch_to_block(done);
        self.reset_child(n)?;
        self.jump_status(out, s);
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        Ok(())
    }

    /// `seen[n] = seq[slot]`; returns (current, previous).
    fn swap_seen(&mut self, n: NodeId, slot: u32) -> (Value, Value) {
        let current = self.b.ins().load(
            types::I32,
            super::emit::flags(),
            self.at.seq,
            slot as i32 * 4,
        );
        let previous =
            self.b
                .ins()
                .load(types::I32, super::emit::flags(), self.at.seen, n as i32 * 4);
        self.b
            .ins()
            .store(super::emit::flags(), current, self.at.seen, n as i32 * 4);
        (current, previous)
    }

    // ------------------------------------------------------------------ controls

    fn tick_sequence(
        &mut self,
        n: NodeId,
        reset_on_failure: bool,
        yields: bool,
        out: Block,
    ) -> Result<(), JitError> {
        self.tick_ordered(n, true, reset_on_failure, yields, out)
    }

    fn tick_fallback(&mut self, n: NodeId, yields: bool, out: Block) -> Result<(), JitError> {
        self.tick_ordered(n, false, true, yields, out)
    }

    /// Sequence (`sequence`) and Fallback: the cursor `a` picks the child to resume.
    fn tick_ordered(
        &mut self,
        n: NodeId,
        sequence: bool,
        reset_on_failure: bool,
        yields: bool,
        out: Block,
    ) -> Result<(), JitError> {
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

    fn tick_reactive(&mut self, n: NodeId, sequence: bool, out: Block) -> Result<(), JitError> {
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
    fn threshold(&mut self, count: usize, t: Value) -> Value {
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

    fn clear_parallel(&mut self, n: NodeId) {
        let first = self.plan.agent.nodes[n as usize].children.0 as usize;
        for k in 0..self.plan.children(n).len() {
            self.set_done(first + k, false);
        }
        self.store_a_c(n, 0);
        self.store_b_c(n, 0);
    }

    fn tick_parallel(
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
                let bad_blk = self.b.create_block();
                let good = self.b.create_block();
                self.b.ins().brif(bad, bad_blk, &[], good, &[]);
                self.b.switch_to_block(bad_blk);
                self.exit(out, Status::Failure);
                self.b.switch_to_block(good);
            }
        }
        self.set_status_c(n, Status::Running);
        let s_neg = match self.const_int(success_t) {
            Some(t) => self.b.ins().iconst(types::I8, i64::from((t as i32) < 0)),
            None => self.b.ins().icmp_imm_s(IntCC::SignedLessThan, success_t, 0),
        };
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
            let a = self.load_a(n);
            let successes = self.b.ins().sextend(types::I64, a);
            let bb = self.load_b(n);
            let failures = self.b.ins().sextend(types::I64, bb);
            let reached = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, successes, need_s);
            let with_skipped = self.b.ins().iadd(successes, skipped);
            let reached2 =
                self.b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, with_skipped, need_s);
            let reached2 = self.b.ins().band(s_neg, reached2);
            let win = self.b.ins().bor(reached, reached2);
            let win_blk = self.b.create_block();
            let next = self.b.create_block();
            self.b.ins().brif(win, win_blk, &[], next, &[]);
            self.b.switch_to_block(win_blk);
            self.clear_parallel(n);
            self.reset_children(n)?;
            self.exit(out, Status::Success);
            self.b.switch_to_block(next);
            let left = self.b.ins().isub(cnt, failures);
            let lost = self.b.ins().icmp(IntCC::UnsignedLessThan, left, need_s);
            let lost2 = self.b.ins().icmp(IntCC::Equal, failures, need_f);
            let lose = self.b.ins().bor(lost, lost2);
            let lose_blk = self.b.create_block();
            let next2 = self.b.create_block();
            self.b.ins().brif(lose, lose_blk, &[], next2, &[]);
            self.b.switch_to_block(lose_blk);
            self.clear_parallel(n);
            self.reset_children(n)?;
            self.exit(out, Status::Failure);
            self.b.switch_to_block(next2);
        }
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, skipped, count as i64);
        let sk = self.status_c(Status::Skipped);
        let run = self.status_c(Status::Running);
        let r = self.b.ins().select(all, sk, run);
        self.jump_status(out, r);
        Ok(())
    }

    fn tick_parallel_all(
        &mut self,
        n: NodeId,
        max_failures: Value,
        out: Block,
    ) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let count = kids.len();
        let first = self.plan.agent.nodes[n as usize].children.0 as usize;
        let threshold = self.threshold(count, max_failures);
        let cnt = self.b.ins().iconst(types::I64, count as i64);
        let bad = self.b.ins().icmp(IntCC::UnsignedLessThan, cnt, threshold);
        let bad_blk = self.b.create_block();
        let good = self.b.create_block();
        self.b.ins().brif(bad, bad_blk, &[], good, &[]);
        self.b.switch_to_block(bad_blk);
        self.exit(out, Status::Failure);
        self.b.switch_to_block(good);
        self.set_status_c(n, Status::Running);
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
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, skipped, count as i64);
        let all_blk = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(all, all_blk, &[], cont, &[]);
        self.b.switch_to_block(all_blk);
        self.exit(out, Status::Skipped);
        self.b.switch_to_block(cont);
        let a = self.load_a(n);
        let a = self.b.ins().sextend(types::I64, a);
        let finished = self.b.ins().iadd(skipped, a);
        let finished = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, finished, cnt);
        let fin_blk = self.b.create_block();
        let running = self.b.create_block();
        self.b.ins().brif(finished, fin_blk, &[], running, &[]);
        self.b.switch_to_block(fin_blk);
        self.reset_children(n)?;
        for k in 0..count {
            self.set_done(first + k, false);
        }
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

    fn tick_if_then_else(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
        let kids = self.plan.children(n);
        let count = kids.len();
        self.set_status_c(n, Status::Running);
        let a = self.load_a(n);
        let first = self.eq_imm(a, 0);
        let cond_blk = self.b.create_block();
        let branch = self.b.create_block();
        self.b.ins().brif(first, cond_blk, &[], branch, &[]);
        self.b.switch_to_block(cond_blk);
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

    fn tick_while_do_else(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
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

    fn tick_try_catch(&mut self, n: NodeId, out: Block) -> Result<(), JitError> {
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

    fn tick_switch(
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
    fn switch_matches(&mut self, value: Value, kind: ValueKind, case: &CaseValue) -> Value {
        match kind {
            ValueKind::Num
            | ValueKind::Int
            | ValueKind::Duration
            | ValueKind::Rate
            | ValueKind::Length
            | ValueKind::Angle => {
                let mut hit = self.b.ins().iconst(types::I8, 0);
                if let Some(lead) = crate::interp::nodes::leading_int(&case.text) {
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

    // ------------------------------------------------------------------ decorators

    fn tick_repeat(&mut self, n: NodeId, cycles: Value, out: Block) -> Result<(), JitError> {
        let again = self.repeat_again(n, cycles);
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
        let (succ, fail, run) = self.blocks3();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(S, succ), (F, fail), (R, run), (I | K, other)],
        );
        self.b.switch_to_block(succ);
        self.incr(n, super::emit::STATE_A);
        let again = self.repeat_again(n, cycles);
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
        self.b.switch_to_block(fail);
        self.store_a_c(n, 0);
        self.reset_child(n)?;
        self.exit(out, Status::Failure);
        self.b.switch_to_block(run);
        self.exit(out, Status::Running);
        self.b.switch_to_block(other);
        self.reset_child(n)?;
        self.exit(out, Status::Skipped);
        self.b.switch_to_block(exit);
        self.store_a_c(n, 0);
        self.exit(out, Status::Success);
        Ok(())
    }

    /// `a < limit || limit == -1`.
    fn repeat_again(&mut self, n: NodeId, limit: Value) -> Value {
        let a = self.load_a(n);
        let below = self.b.ins().icmp(IntCC::SignedLessThan, a, limit);
        let forever = self.eq_imm(limit, -1);
        self.b.ins().bor(below, forever)
    }

    fn tick_retry(&mut self, n: NodeId, attempts: Arg, out: Block) -> Result<(), JitError> {
        let max = self.arg(attempts)?;
        let max = self.int32_of(max);
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
        let (succ, fail, run) = self.blocks3();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(S, succ), (F, fail), (R, run), (I | K, other)],
        );
        self.b.switch_to_block(succ);
        self.store_a_c(n, 0);
        self.reset_child(n)?;
        self.exit(out, Status::Success);
        self.b.switch_to_block(fail);
        self.incr(n, super::emit::STATE_A);
        // BehaviorTree.CPP reads the port again here.
        let max = self.arg(attempts)?;
        let max = self.int32_of(max);
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
        self.exit(out, Status::Failure);
        Ok(())
    }

    fn tick_timeout(&mut self, n: NodeId, ms: Value, out: Block) -> Result<(), JitError> {
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
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(COMPLETED, done), (I | R | K, other)],
        );
        self.b.switch_to_block(done);
        self.flags_clear(n, STARTED);
        self.disarm(n);
        self.reset_child(n)?;
        self.jump_status(out, s);
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        Ok(())
    }

    fn tick_delay(&mut self, n: NodeId, ms: Value, out: Block) -> Result<(), JitError> {
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
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(COMPLETED, done), (I | R | K, other)],
        );
        self.b.switch_to_block(done);
        self.flags_clear(n, STARTED | TIMER_DONE);
        self.reset_child(n)?;
        self.jump_status(out, s);
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        Ok(())
    }

    fn tick_run_once(&mut self, n: NodeId, then_skip: bool, out: Block) -> Result<(), JitError> {
        let ran = self.flag_set(n, RAN_ONCE);
        let ran_blk = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(ran, ran_blk, &[], go, &[]);
        self.b.switch_to_block(ran_blk);
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
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(COMPLETED, done), (I | R | K, other)],
        );
        self.b.switch_to_block(done);
        self.flags_or(n, RAN_ONCE);
        self.store_b(n, s);
        self.reset_child(n)?;
        self.jump_status(out, s);
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        Ok(())
    }

    fn tick_precondition(
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
        let c = self.plan.children(n)[0];
        let s = self.execute_tick(c)?;
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.route(
            s,
            self.possible(c),
            &[(COMPLETED, done), (I | R | K, other)],
        );
        self.b.switch_to_block(done);
        self.reset_child(n)?;
        self.flags_clear(n, CHILD_RUNNING);
        self.jump_status(out, s);
        self.b.switch_to_block(other);
        self.jump_status(out, s);
        Ok(())
    }

    fn tick_entry_updated(
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

    fn tick_loop(
        &mut self,
        n: NodeId,
        queue: u32,
        value: u32,
        if_empty: Status,
        out: Block,
    ) -> Result<(), JitError> {
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        self.flags_clear(n, CHILD_RUNNING);
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
        let got = self.call(f, &[self.at.view, list, ptr]).expect("returns");
        let popped = self.ne_imm(got, 0);
        let (_, cont) = self.if_then(popped);
        let v = self.b.ins().stack_load(super::emit::P, types::F64, ss, 0);
        self.write_slot(value, v);
        let off = queue as i32 * 4;
        let s = self
            .b
            .ins()
            .load(types::I32, super::emit::flags(), self.at.seq, off);
        let s = self.b.ins().iadd_imm_s(s, 1);
        self.b
            .ins()
            .store(super::emit::flags(), s, self.at.seq, off);
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

    fn tick_sleep(&mut self, n: NodeId, ms: Arg, out: Block) -> Result<(), JitError> {
        let st = self.status_of(n);
        let (idle_blk, run_blk, other) = self.blocks3();
        self.route(
            st,
            bit(Status::Idle) | R | S | F | K,
            &[(I, idle_blk), (R, run_blk), (S | F | K, other)],
        );
        self.b.switch_to_block(idle_blk);
        let ms = self.arg(ms)?;
        let zero = self.f64c(0.0);
        let none = self.b.ins().fcmp(FloatCC::LessThanOrEqual, ms, zero);
        let done = self.b.create_block();
        let wait = self.b.create_block();
        self.b.ins().brif(none, done, &[], wait, &[]);
        self.b.switch_to_block(done);
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
    fn call_leaf(
        &mut self,
        n: NodeId,
        ports: &[PortBinding],
        starting: bool,
        out: Block,
    ) -> Result<(), JitError> {
        let mut inputs = Vec::with_capacity(ports.len());
        for p in ports {
            let v = match p {
                PortBinding::In(a) => self.arg(*a)?,
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
        let node = self.i32c(n as i64);
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
                self.write_slot(*slot, v);
                self.end_if(cont);
            }
        }
        self.jump_status(out, s);
        Ok(())
    }
}
