//! Decorators, as BehaviorTree.CPP 4.8 ticks them: Inverter, ForceSuccess/Failure,
//! KeepRunningUntilFailure, RunOnce, Precondition, SkipUnlessUpdated, subtree instances,
//! Repeat, RetryUntilSuccessful, Timeout, Delay and LoopQueue.

use super::nodes::{CHILD_RUNNING, RAN_ONCE, STARTED, TIMER_DONE};
use super::Machine;
use affect_compiler::ir::program::{Arg, Code, NodeId, NodeKind, SlotId, Status};

impl<'p> Machine<'p> {
    #[inline(always)]
    pub(super) fn tick_inverter(&mut self, n: NodeId) -> Status {
        self.set_status(n, Status::Running);
        let c = self.child(n, 0);
        match self.execute_tick(c) {
            Status::Success => {
                self.reset_child(n);
                Status::Failure
            }
            Status::Failure => {
                self.reset_child(n);
                Status::Success
            }
            other => other,
        }
    }

    #[inline(always)]
    pub(super) fn tick_force(&mut self, n: NodeId, forced: Status) -> Status {
        self.set_status(n, Status::Running);
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.reset_child(n);
            forced
        } else {
            s
        }
    }

    /// KeepRunningUntilFailure: RUNNING while the child succeeds.
    pub(super) fn tick_keep_running(&mut self, n: NodeId) -> Status {
        self.set_status(n, Status::Running);
        let c = self.child(n, 0);
        match self.execute_tick(c) {
            Status::Failure => {
                self.reset_child(n);
                Status::Failure
            }
            Status::Success => {
                self.reset_child(n);
                Status::Running
            }
            Status::Running => Status::Running,
            _ => self.status[n as usize],
        }
    }

    /// RunOnce: the child's first completed status, then SKIPPED (`then_skip`) or that
    /// status again.
    pub(super) fn tick_run_once(&mut self, n: NodeId, then_skip: bool) -> Status {
        let i = n as usize;
        if self.state[i].flags & RAN_ONCE != 0 {
            return if then_skip {
                Status::Skipped
            } else {
                Status::from_index(self.state[i].b as u8)
            };
        }
        self.set_status(n, Status::Running);
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.state[i].flags |= RAN_ONCE;
            self.state[i].b = s as i32;
            self.reset_child(n);
        }
        s
    }

    /// Precondition: the child runs while the condition holds when it starts.
    pub(super) fn tick_precondition(&mut self, n: NodeId, cond: Code, otherwise: Status) -> Status {
        let i = n as usize;
        let running = self.state[i].flags & CHILD_RUNNING != 0;
        let go = running || self.eval_bool(cond);
        if !go {
            return otherwise;
        }
        self.state[i].flags |= CHILD_RUNNING;
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.reset_child(n);
            self.state[i].flags &= !CHILD_RUNNING;
        }
        s
    }

    /// SkipUnlessUpdated and WaitValueUpdate: the child runs when `slot` was written since
    /// the last look, and goes on running once started.
    pub(super) fn tick_entry_updated(
        &mut self,
        n: NodeId,
        slot: SlotId,
        otherwise: Status,
    ) -> Status {
        let c = self.child(n, 0);
        if self.state[n as usize].flags & CHILD_RUNNING != 0 {
            let s = self.execute_tick(c);
            self.set_flag(n, CHILD_RUNNING, s == Status::Running);
            return s;
        }
        if !self.entry_updated(n, slot) {
            return otherwise;
        }
        let s = self.execute_tick(c);
        self.set_flag(n, CHILD_RUNNING, s == Status::Running);
        s
    }

    /// A subtree instance: its `in` ports are computed when it starts, then its root runs.
    pub(super) fn tick_subtree(&mut self, n: NodeId) -> Status {
        let i = n as usize;
        if self.status[i] == Status::Idle {
            let prog = self.prog;
            if let NodeKind::SubTree { inputs } = &prog.nodes[i].kind {
                for &(slot, code) in inputs {
                    let v = self.eval(code);
                    self.store(slot, v);
                }
            }
            self.set_status(n, Status::Running);
        }
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.reset_child(n);
        }
        s
    }

    // ------------------------------------------------------------------ decorators

    pub(super) fn tick_repeat(&mut self, n: NodeId, cycles: i32) -> Status {
        let i = n as usize;
        let mut again = self.state[i].a < cycles || cycles == -1;
        self.set_status(n, Status::Running);
        while again {
            let c = self.child(n, 0);
            let prev = self.status[c as usize];
            match self.execute_tick(c) {
                Status::Success => {
                    self.state[i].a += 1;
                    again = self.state[i].a < cycles || cycles == -1;
                    self.reset_child(n);
                    if prev == Status::Idle && again {
                        self.woken = true;
                        return Status::Running;
                    }
                }
                Status::Failure => {
                    self.state[i].a = 0;
                    self.reset_child(n);
                    return Status::Failure;
                }
                Status::Running => return Status::Running,
                _ => {
                    self.reset_child(n);
                    return Status::Skipped;
                }
            }
        }
        self.state[i].a = 0;
        Status::Success
    }

    pub(super) fn tick_retry(&mut self, n: NodeId, attempts: Arg) -> Status {
        let i = n as usize;
        let mut max = self.arg(attempts) as i32;
        let mut again = self.state[i].a < max || max == -1;
        self.set_status(n, Status::Running);
        while again {
            let c = self.child(n, 0);
            let prev = self.status[c as usize];
            match self.execute_tick(c) {
                Status::Success => {
                    self.state[i].a = 0;
                    self.reset_child(n);
                    return Status::Success;
                }
                Status::Failure => {
                    self.state[i].a += 1;
                    // BehaviorTree.CPP reads the port again here.
                    max = self.arg(attempts) as i32;
                    again = self.state[i].a < max || max == -1;
                    self.reset_child(n);
                    if prev == Status::Idle && again {
                        self.woken = true;
                        return Status::Running;
                    }
                }
                Status::Running => return Status::Running,
                _ => {
                    self.reset_child(n);
                    return Status::Skipped;
                }
            }
        }
        self.state[i].a = 0;
        Status::Failure
    }

    pub(super) fn tick_timeout(&mut self, n: NodeId, ms: f64) -> Status {
        let i = n as usize;
        if self.state[i].flags & STARTED == 0 {
            self.state[i].flags |= STARTED;
            self.state[i].flags &= !TIMER_DONE;
            self.set_status(n, Status::Running);
            if ms > 0.0 {
                self.arm(n, self.now_ms + ms);
            }
        }
        if self.state[i].flags & TIMER_DONE != 0 {
            self.state[i].flags &= !(STARTED | TIMER_DONE);
            return Status::Failure;
        }
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.state[i].flags &= !STARTED;
            self.disarm(n);
            self.reset_child(n);
        }
        s
    }

    pub(super) fn tick_delay(&mut self, n: NodeId, ms: f64) -> Status {
        let i = n as usize;
        if self.state[i].flags & STARTED == 0 {
            self.state[i].flags |= STARTED;
            self.state[i].flags &= !TIMER_DONE;
            self.set_status(n, Status::Running);
            self.arm(n, self.now_ms + ms.max(0.0));
        }
        if self.state[i].flags & TIMER_DONE != 0 {
            let c = self.child(n, 0);
            let s = self.execute_tick(c);
            if s.is_completed() {
                self.state[i].flags &= !(STARTED | TIMER_DONE);
                self.reset_child(n);
            }
            return s;
        }
        Status::Running
    }

    pub(super) fn tick_loop(
        &mut self,
        n: NodeId,
        queue: u32,
        value: u32,
        if_empty: Status,
    ) -> Status {
        let i = n as usize;
        let mut popped = false;
        if self.status[i] == Status::Idle {
            self.state[i].flags &= !CHILD_RUNNING;
            // A literal queue starts full each time (BehaviorTree.CPP's static queue).
            let prog = self.prog;
            if let NodeKind::Loop {
                fill: Some(code), ..
            } = &prog.nodes[i].kind
            {
                let v = self.eval(*code);
                self.store(queue, v);
            }
        }
        if self.state[i].flags & CHILD_RUNNING == 0 {
            // A queue that holds no value stops the tick (BehaviorTree.CPP's LoopNode throws
            // casting the empty entry).
            let list = self.list_checked(queue);
            if let Some(v) = self.lists.pop_front(list) {
                self.write(value, v);
                self.seq[queue as usize] = self.seq[queue as usize].wrapping_add(1);
                popped = true;
            }
        }
        if !popped && self.state[i].flags & CHILD_RUNNING == 0 {
            return if_empty;
        }
        if self.status[i] == Status::Idle {
            self.set_status(n, Status::Running);
        }
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        self.set_flag(n, CHILD_RUNNING, s == Status::Running);
        if s.is_completed() {
            self.reset_child(n);
        }
        if s == Status::Failure {
            Status::Failure
        } else {
            Status::Running
        }
    }
}
