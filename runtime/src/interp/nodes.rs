//! Node semantics, written to follow BehaviorTree.CPP 4.8's own code step by step: the
//! order of `setStatus`, child resets and halts decides the status transitions a logger
//! sees, and the equivalence suite compares them one to one with the real library.
//! Deliberate differences are listed in docs/semantics.md.

use super::{families, op, Hot, Machine, Transition, DECORATOR, HAS_CONDITIONS, HOOKED};
use crate::leaf::LeafCall;
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{
    AgentProgram, Arg, NodeId, NodeKind, PortBinding, SlotId, Status,
};

/// Sleep: the timer is still waiting. (The decorators' flags are in `families/mod.rs`; the
/// bits differ.)
pub(crate) const WAITING: u8 = 4;

impl<'p> Machine<'p> {
    // ------------------------------------------------------------------ statuses

    #[inline(always)]
    pub(super) fn set_status(&mut self, n: NodeId, s: Status) {
        let prev = std::mem::replace(&mut self.status[n as usize], s);
        if prev != s && self.record {
            self.record_transition(n, prev, s);
        }
    }

    #[inline(always)]
    pub(crate) fn reset_status(&mut self, n: NodeId) {
        let prev = std::mem::replace(&mut self.status[n as usize], Status::Idle);
        if prev != Status::Idle && self.record {
            self.record_transition(n, prev, Status::Idle);
        }
    }

    // Out of line: benchmarks and most ticks do not record, and the push would bloat every
    // caller.
    #[cold]
    #[inline(never)]
    pub(super) fn record_transition(&mut self, node: NodeId, from: Status, to: Status) {
        self.transitions.push(Transition { node, from, to });
    }

    /// The children of `n`, borrowed from the program rather than the machine, so the
    /// machine stays free to tick them.
    #[inline(always)]
    pub(super) fn kids(&self, n: NodeId) -> &'p [NodeId] {
        let prog: &'p AgentProgram = self.prog;
        let h = &self.hot[n as usize];
        let first = h.first_child as usize;
        &prog.children[first..first + h.children as usize]
    }

    #[inline]
    pub(super) fn child(&self, n: NodeId, i: usize) -> NodeId {
        self.prog.children[self.hot[n as usize].first_child as usize + i]
    }

    #[inline]
    pub(super) fn child_count(&self, n: NodeId) -> usize {
        self.hot[n as usize].children as usize
    }

    pub(super) fn arg(&mut self, a: Arg) -> f64 {
        match a {
            Arg::Const(v) => v,
            Arg::Expr(code) => self.eval(code),
        }
    }

    // ------------------------------------------------------------------ ticking

    /// `TreeNode::executeTick`: pre-conditions, the tick, post-conditions, the status.
    /// Inlined into the parents' loops: a leaf without conditions (most nodes) then costs
    /// no call of its own.
    #[inline(always)]
    pub(crate) fn execute_tick(&mut self, n: NodeId) -> Status {
        self.node_ticks += 1;
        let h = self.hot[n as usize];
        if h.flags != 0 {
            return self.execute_tick_general(n, h);
        }
        let new = match h.op {
            op::SCRIPT => {
                self.exec_fast(h.code);
                Status::Success
            }
            op::SCRIPT_CONDITION => {
                if self.exec_fast(h.code) != 0.0 {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            op::SET_ADDK => self.tick_short(op::SET_ADDK, h.code),
            op::SET_SUBK => self.tick_short(op::SET_SUBK, h.code),
            op::COND_GE_ADDK => self.tick_short(op::COND_GE_ADDK, h.code),
            op::COND_GT_ADDK => self.tick_short(op::COND_GT_ADDK, h.code),
            op::COND_LT_ADDK => self.tick_short(op::COND_LT_ADDK, h.code),
            op::COND_LE_ADDK => self.tick_short(op::COND_LE_ADDK, h.code),
            op::ALWAYS_SUCCESS => Status::Success,
            op::ALWAYS_FAILURE => Status::Failure,
            // The common controls and decorators: one call, their tick and status in it.
            op::SEQUENCE => return self.node_sequence(n),
            op::FALLBACK => return self.node_fallback(n),
            op::REACTIVE_SEQUENCE => return self.node_reactive(n, true),
            op::REACTIVE_FALLBACK => return self.node_reactive(n, false),
            op::PARALLEL => return self.node_parallel(n, h),
            op::INVERTER => return self.node_inverter(n),
            op::FORCE_SUCCESS => return self.node_force(n, Status::Success),
            op::FORCE_FAILURE => return self.node_force(n, Status::Failure),
            _ => return self.execute_tick_inner(n, h),
        };
        self.set_status(n, new);
        new
    }

    /// The status a node without conditions ends its `execute_tick` with.
    #[inline(always)]
    pub(super) fn finish(&mut self, n: NodeId, new: Status) -> Status {
        // SKIPPED is told to the parent, but the node itself stays as it was.
        if new != Status::Skipped {
            self.set_status(n, new);
        }
        new
    }

    #[inline(never)]
    pub(super) fn node_sequence(&mut self, n: NodeId) -> Status {
        let s = self.tick_sequence(n, true, false);
        self.finish(n, s)
    }

    #[inline(never)]
    pub(super) fn node_fallback(&mut self, n: NodeId) -> Status {
        let s = self.tick_fallback(n, false);
        self.finish(n, s)
    }

    #[inline(never)]
    pub(super) fn node_reactive(&mut self, n: NodeId, sequence: bool) -> Status {
        let s = self.tick_reactive(n, sequence);
        self.finish(n, s)
    }

    #[inline(never)]
    pub(super) fn node_parallel(&mut self, n: NodeId, h: Hot) -> Status {
        let s = self.tick_parallel(n, h.code.start as i32, h.code.len as i32);
        self.finish(n, s)
    }

    #[inline(never)]
    pub(super) fn node_inverter(&mut self, n: NodeId) -> Status {
        let s = self.tick_inverter(n);
        self.finish(n, s)
    }

    #[inline(never)]
    pub(super) fn node_force(&mut self, n: NodeId, forced: Status) -> Status {
        let s = self.tick_force(n, forced);
        self.finish(n, s)
    }

    /// `execute_tick` of the other nodes without conditions.
    #[inline(never)]
    pub(super) fn execute_tick_inner(&mut self, n: NodeId, h: Hot) -> Status {
        let new = self.tick_op(n, h);
        self.finish(n, new)
    }

    /// The node's tick through its opcode. The leaf arms repeat `execute_tick`'s on purpose:
    /// there they are inlined into the parent's loop (each short-script arm with its opcode
    /// constant), here they serve the out-of-line path.
    #[inline(always)]
    pub(super) fn tick_op(&mut self, n: NodeId, h: Hot) -> Status {
        match h.op {
            op::SCRIPT => {
                self.exec_fast(h.code);
                Status::Success
            }
            op::SCRIPT_CONDITION => {
                if self.exec_fast(h.code) != 0.0 {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            op::SET_ADDK..=op::COND_LE_ADDK => self.tick_short(h.op, h.code),
            op::ALWAYS_SUCCESS => Status::Success,
            op::ALWAYS_FAILURE => Status::Failure,
            op::SEQUENCE => self.tick_sequence(n, true, false),
            op::FALLBACK => self.tick_fallback(n, false),
            op::REACTIVE_SEQUENCE => self.tick_reactive(n, true),
            op::REACTIVE_FALLBACK => self.tick_reactive(n, false),
            op::PARALLEL => self.tick_parallel(n, h.code.start as i32, h.code.len as i32),
            op::INVERTER => self.tick_inverter(n),
            op::FORCE_SUCCESS => self.tick_force(n, Status::Success),
            op::FORCE_FAILURE => self.tick_force(n, Status::Failure),
            _ => self.tick(n),
        }
    }

    /// `execute_tick` of a node with conditions or a decorator's child reset.
    #[inline(never)]
    pub(super) fn execute_tick_general(&mut self, n: NodeId, h: Hot) -> Status {
        let conditions = if h.flags & HAS_CONDITIONS != 0 {
            self.prog.nodes[n as usize].conditions
        } else {
            None
        };
        let pre = match conditions {
            Some(ci) => self.pre_conditions(n, ci),
            None => None,
        };
        let hooked = h.flags & HOOKED != 0;
        let new = match pre {
            Some(s) => s,
            None => match hooked.then(|| self.pre_hook(n)).flatten() {
                Some(s) => s,
                None => self.tick_op(n, h),
            },
        };
        if new.is_completed() {
            if let Some(ci) = conditions {
                self.post_conditions(ci, new);
            }
        }
        let new = match hooked.then(|| self.post_hook(n, new)).flatten() {
            Some(s) => s,
            None => new,
        };
        // SKIPPED is told to the parent, but the node itself stays as it was.
        if new != Status::Skipped {
            self.set_status(n, new);
        }
        // `DecoratorNode::executeTick`: a completed child is reset after the parent's status.
        if h.flags & DECORATOR != 0 {
            let c = self.prog.children[h.first_child as usize];
            if self.status[c as usize].is_completed() {
                self.reset_status(c);
            }
        }
        new
    }

    /// The pre-tick hook, asked only when the node is not completed (BehaviorTree.CPP's
    /// order). A forced result ends a running node: what runs under it is halted, as the
    /// hooked action underneath is (`Hooked`), or it would go on from where it stood.
    #[cold]
    fn pre_hook(&mut self, n: NodeId) -> Option<Status> {
        if self.status[n as usize].is_completed() {
            return None;
        }
        let forced = self.node_hooks.as_ref()?.pre(n)?;
        if self.status[n as usize] == Status::Running {
            self.halt_node(n);
        }
        Some(forced)
    }

    #[cold]
    fn post_hook(&mut self, n: NodeId, status: Status) -> Option<Status> {
        let forced = self.node_hooks.as_ref()?.post(n, status)?;
        if status == Status::Running {
            self.halt_node(n);
        }
        Some(forced)
    }

    pub(super) fn leaf_class(&self, leaf: u32) -> NodeClass {
        self.leaf_classes
            .get(leaf as usize)
            .copied()
            .unwrap_or(NodeClass::Action)
    }

    pub(super) fn pre_conditions(&mut self, n: NodeId, ci: u32) -> Option<Status> {
        let c = &self.prog.conditions[ci as usize];
        let (failure_if, success_if, skip_if, while_) =
            (c.failure_if, c.success_if, c.skip_if, c.while_);
        let st = self.status[n as usize];
        if st == Status::Idle || st == Status::Skipped {
            if let Some(code) = failure_if {
                if self.eval_bool(code) {
                    return Some(Status::Failure);
                }
            }
            if let Some(code) = success_if {
                if self.eval_bool(code) {
                    return Some(Status::Success);
                }
            }
            if let Some(code) = skip_if {
                if self.eval_bool(code) {
                    return Some(Status::Skipped);
                }
            }
            if let Some(code) = while_ {
                if !self.eval_bool(code) {
                    return Some(Status::Skipped);
                }
            }
        } else if st == Status::Running {
            if let Some(code) = while_ {
                if !self.eval_bool(code) {
                    self.halt_node(n);
                    return Some(Status::Skipped);
                }
            }
        }
        None
    }

    pub(super) fn post_conditions(&mut self, ci: u32, s: Status) {
        let c = &self.prog.conditions[ci as usize];
        let (on_success, on_failure, post) = (c.on_success, c.on_failure, c.post);
        if s == Status::Success {
            if let Some(code) = on_success {
                self.run(code);
            }
        } else if s == Status::Failure {
            if let Some(code) = on_failure {
                self.run(code);
            }
        }
        if let Some(code) = post {
            self.run(code);
        }
    }

    /// The node's own `tick()`.
    pub(super) fn tick(&mut self, n: NodeId) -> Status {
        let prog: &'p AgentProgram = self.prog;
        match &prog.nodes[n as usize].kind {
            NodeKind::Sequence => self.tick_sequence(n, true, false),
            NodeKind::AsyncSequence => self.tick_sequence(n, true, true),
            // SequenceWithMemory yields after every child that succeeds from IDLE.
            NodeKind::SequenceWithMemory => self.tick_sequence(n, false, true),
            NodeKind::Fallback => self.tick_fallback(n, false),
            NodeKind::AsyncFallback => self.tick_fallback(n, true),
            NodeKind::ReactiveSequence => self.tick_reactive(n, true),
            NodeKind::ReactiveFallback => self.tick_reactive(n, false),
            NodeKind::Parallel { .. } => self.tick_parallel_node(n),
            NodeKind::ParallelAll { max_failures } => {
                let m = *max_failures;
                let m = self.arg(m) as i32;
                self.tick_parallel_all(n, m)
            }
            NodeKind::IfThenElse => self.tick_if_then_else(n),
            NodeKind::WhileDoElse => self.tick_while_do_else(n),
            NodeKind::TryCatch { .. } => self.tick_try_catch(n),
            NodeKind::Switch { .. } => self.tick_switch(n),
            NodeKind::Decorator(d) => families::tick(self, n, d),
            NodeKind::SubTree { .. } => self.tick_subtree(n),
            NodeKind::AlwaysSuccess => Status::Success,
            NodeKind::AlwaysFailure => Status::Failure,
            NodeKind::Sleep { ms } => {
                let ms = *ms;
                self.tick_sleep(n, ms)
            }
            NodeKind::Script { code } => {
                let code = *code;
                self.run(code);
                Status::Success
            }
            NodeKind::ScriptCondition { cond } => {
                let cond = *cond;
                if self.eval_bool(cond) {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            NodeKind::WasEntryUpdated { slot } => {
                let slot = *slot;
                if self.entry_updated(n, slot) {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            NodeKind::Foreign { leaf, .. } => {
                let leaf = *leaf;
                self.tick_foreign(n, leaf)
            }
        }
    }

    /// Whether `slot` was written since node `n` last looked (BehaviorTree.CPP's entry
    /// sequence ids); notes that it looked.
    /// An entry that holds no value is not there for BehaviorTree.CPP: not updated, and the
    /// node's last look stays as it was.
    pub(super) fn entry_updated(&mut self, n: NodeId, slot: SlotId) -> bool {
        let current = if self.holds_no_value(slot) {
            self.seen[n as usize]
        } else {
            self.seq[slot as usize]
        };
        let previous = std::mem::replace(&mut self.seen[n as usize], current);
        previous != current
    }

    /// Sleep: RUNNING until its timer fires (`fire_timer`), then SUCCESS.
    fn tick_sleep(&mut self, n: NodeId, ms: Arg) -> Status {
        let i = n as usize;
        match self.status[i] {
            Status::Idle => {
                let ms = self.arg(ms);
                if ms <= 0.0 {
                    return Status::Success;
                }
                self.set_status(n, Status::Running);
                self.state[i].flags |= WAITING;
                self.arm(n, self.now_ms + ms);
                Status::Running
            }
            Status::Running => {
                if self.state[i].flags & WAITING != 0 {
                    Status::Running
                } else {
                    Status::Success
                }
            }
            other => other,
        }
    }

    /// A node implemented outside the program, by its class.
    fn tick_foreign(&mut self, n: NodeId, leaf: u32) -> Status {
        match self.leaf_class(leaf) {
            // The oracle's stand-in for a control node is BehaviorTree.CPP's Sequence.
            NodeClass::Control => self.tick_sequence(n, true, false),
            // A decorator passes its child's status through, like ForceSuccess does.
            NodeClass::Decorator => {
                self.set_status(n, Status::Running);
                let c = self.child(n, 0);
                let s = self.execute_tick(c);
                if s.is_completed() {
                    self.reset_child(n);
                }
                s
            }
            NodeClass::Action => match self.status[n as usize] {
                Status::Idle => self.call_leaf(n, true),
                Status::Running => self.call_leaf(n, false),
                done => done,
            },
            NodeClass::Condition => self.call_leaf(n, true),
        }
    }

    pub(super) fn set_flag(&mut self, n: NodeId, flag: u8, on: bool) {
        let f = &mut self.state[n as usize].flags;
        if on {
            *f |= flag;
        } else {
            *f &= !flag;
        }
    }

    pub(super) fn arm(&mut self, n: NodeId, deadline: f64) {
        self.state[n as usize].deadline = deadline;
    }

    pub(super) fn disarm(&mut self, n: NodeId) {
        self.state[n as usize].deadline = f64::NAN;
    }

    /// A timer expired: what BehaviorTree.CPP's timer callback does. Returns whether it woke
    /// the tree up.
    pub(crate) fn fire_timer(&mut self, n: NodeId) -> bool {
        let i = n as usize;
        self.state[i].deadline = f64::NAN;
        let prog: &'p AgentProgram = self.prog;
        match &prog.nodes[i].kind {
            NodeKind::Decorator(d) => families::fire_timer(self, n, d),
            NodeKind::Sleep { .. } => {
                self.state[i].flags &= !WAITING;
                true
            }
            _ => false,
        }
    }

    pub(super) fn call_leaf(&mut self, n: NodeId, starting: bool) -> Status {
        let NodeKind::Foreign { ports, .. } = &self.prog.nodes[n as usize].kind else {
            return Status::Failure;
        };
        let count = ports.len();
        self.ports.clear();
        self.outputs.clear();
        for k in 0..count {
            let b = match &self.prog.nodes[n as usize].kind {
                NodeKind::Foreign { ports, .. } => ports[k],
                _ => unreachable!("checked above"),
            };
            let v = match b {
                PortBinding::In(a) => self.arg(a),
                PortBinding::Slot(s) => self.slots[s as usize],
                PortBinding::Absent => f64::NAN,
            };
            self.ports.push(v);
            self.outputs.push(None);
        }
        let now = self.now_ms;
        let default = self.default_leaf;
        let status = match self.leaves.get_mut(n) {
            // After a read of an unset variable the tick has stopped (BehaviorTree.CPP threw):
            // no leaf acts on the world any more.
            _ if self.fault.is_some() => Status::Failure,
            Some(leaf) => {
                let mut call = LeafCall {
                    now_ms: now,
                    starting,
                    inputs: &self.ports,
                    outputs: &mut self.outputs,
                    lists: &mut self.lists,
                };
                leaf.tick(&mut call)
            }
            None => default,
        };
        for k in 0..count {
            if let Some(v) = self.outputs[k] {
                if let NodeKind::Foreign { ports, .. } = &self.prog.nodes[n as usize].kind {
                    if let PortBinding::Slot(s) = ports[k] {
                        self.store(s, v);
                    }
                }
            }
        }
        match status {
            Status::Idle | Status::Skipped => Status::Failure,
            s => s,
        }
    }
}
