//! Node semantics, written to follow BehaviorTree.CPP 4.8's own code step by step: the
//! order of `setStatus`, child resets and halts decides the status transitions a logger
//! sees, and the equivalence suite compares them one to one with the real library.
//! Deliberate differences are listed in docs/semantics.md.

use super::{op, Hot, Machine, Transition, DECORATOR, HAS_CONDITIONS};
use crate::leaf::LeafCall;
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{
    AgentProgram, Arg, NodeId, NodeKind, PortBinding, Status, ValueKind,
};

/// A timer's node has started it (timeout, delay).
pub(crate) const STARTED: u8 = 1;
/// Timeout: the timer halted the child. Delay: the delay is over.
pub(crate) const TIMER_DONE: u8 = 2;
/// Sleep: the timer is still waiting.
pub(crate) const WAITING: u8 = 4;
/// RunOnce has run its child to completion.
pub(crate) const RAN_ONCE: u8 = 8;
/// Precondition, SkipUnlessUpdated and Loop: the child is still running.
pub(crate) const CHILD_RUNNING: u8 = 16;

impl<'p> Machine<'p> {
    // ------------------------------------------------------------------ statuses

    #[inline(always)]
    fn set_status(&mut self, n: NodeId, s: Status) {
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
    fn record_transition(&mut self, node: NodeId, from: Status, to: Status) {
        self.transitions.push(Transition { node, from, to });
    }

    /// The children of `n`, borrowed from the program rather than the machine, so the
    /// machine stays free to tick them.
    #[inline(always)]
    fn kids(&self, n: NodeId) -> &'p [NodeId] {
        let prog: &'p AgentProgram = self.prog;
        let h = &self.hot[n as usize];
        let first = h.first_child as usize;
        &prog.children[first..first + h.children as usize]
    }

    #[inline]
    fn child(&self, n: NodeId, i: usize) -> NodeId {
        self.prog.children[self.hot[n as usize].first_child as usize + i]
    }

    #[inline]
    fn child_count(&self, n: NodeId) -> usize {
        self.hot[n as usize].children as usize
    }

    fn arg(&mut self, a: Arg) -> f64 {
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
            op::PARALLEL => return self.node_parallel(n),
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
    fn finish(&mut self, n: NodeId, new: Status) -> Status {
        // SKIPPED is told to the parent, but the node itself stays as it was.
        if new != Status::Skipped {
            self.set_status(n, new);
        }
        new
    }

    #[inline(never)]
    fn node_sequence(&mut self, n: NodeId) -> Status {
        let s = self.tick_sequence(n, true, false);
        self.finish(n, s)
    }

    #[inline(never)]
    fn node_fallback(&mut self, n: NodeId) -> Status {
        let s = self.tick_fallback(n, false);
        self.finish(n, s)
    }

    #[inline(never)]
    fn node_reactive(&mut self, n: NodeId, sequence: bool) -> Status {
        let s = self.tick_reactive(n, sequence);
        self.finish(n, s)
    }

    #[inline(never)]
    fn node_parallel(&mut self, n: NodeId) -> Status {
        let s = self.tick_parallel_node(n);
        self.finish(n, s)
    }

    #[inline(never)]
    fn node_inverter(&mut self, n: NodeId) -> Status {
        let s = self.tick_inverter(n);
        self.finish(n, s)
    }

    #[inline(never)]
    fn node_force(&mut self, n: NodeId, forced: Status) -> Status {
        let s = self.tick_force(n, forced);
        self.finish(n, s)
    }

    /// `execute_tick` of the other nodes without conditions.
    #[inline(never)]
    fn execute_tick_inner(&mut self, n: NodeId, h: Hot) -> Status {
        let new = self.tick_op(n, h);
        self.finish(n, new)
    }

    /// The node's tick through its opcode. The leaf arms repeat `execute_tick`'s on purpose:
    /// there they are inlined into the parent's loop (each short-script arm with its opcode
    /// constant), here they serve the out-of-line path.
    #[inline(always)]
    fn tick_op(&mut self, n: NodeId, h: Hot) -> Status {
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
            op::PARALLEL => self.tick_parallel_node(n),
            op::INVERTER => self.tick_inverter(n),
            op::FORCE_SUCCESS => self.tick_force(n, Status::Success),
            op::FORCE_FAILURE => self.tick_force(n, Status::Failure),
            _ => self.tick(n),
        }
    }

    /// `execute_tick` of a node with conditions or a decorator's child reset.
    #[inline(never)]
    fn execute_tick_general(&mut self, n: NodeId, h: Hot) -> Status {
        let conditions = if h.flags & HAS_CONDITIONS != 0 {
            self.prog.nodes[n as usize].conditions
        } else {
            None
        };
        let pre = match conditions {
            Some(ci) => self.pre_conditions(n, ci),
            None => None,
        };
        let new = match pre {
            Some(s) => s,
            None => self.tick_op(n, h),
        };
        if new.is_completed() {
            if let Some(ci) = conditions {
                self.post_conditions(ci, new);
            }
        }
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

    #[inline(always)]
    fn tick_inverter(&mut self, n: NodeId) -> Status {
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
    fn tick_force(&mut self, n: NodeId, forced: Status) -> Status {
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

    fn leaf_class(&self, leaf: u32) -> NodeClass {
        self.leaf_classes
            .get(leaf as usize)
            .copied()
            .unwrap_or(NodeClass::Action)
    }

    fn pre_conditions(&mut self, n: NodeId, ci: u32) -> Option<Status> {
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

    fn post_conditions(&mut self, ci: u32, s: Status) {
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
    fn tick(&mut self, n: NodeId) -> Status {
        let i = n as usize;
        match &self.prog.nodes[i].kind {
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
            NodeKind::Inverter => {
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
            NodeKind::ForceSuccess | NodeKind::ForceFailure => {
                let forced = if matches!(self.prog.nodes[i].kind, NodeKind::ForceSuccess) {
                    Status::Success
                } else {
                    Status::Failure
                };
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
            NodeKind::KeepRunningUntilFailure => {
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
                    _ => self.status[i],
                }
            }
            NodeKind::Repeat { cycles } => {
                let c = *cycles;
                let c = self.arg(c) as i32;
                self.tick_repeat(n, c)
            }
            NodeKind::Retry { attempts } => {
                let a = *attempts;
                self.tick_retry(n, a)
            }
            NodeKind::Timeout { ms } => {
                let ms = *ms;
                let ms = self.arg(ms);
                self.tick_timeout(n, ms)
            }
            NodeKind::Delay { ms } => {
                let ms = *ms;
                let ms = self.arg(ms);
                self.tick_delay(n, ms)
            }
            NodeKind::RunOnce { then_skip } => {
                let skip = *then_skip;
                if self.state[i].flags & RAN_ONCE != 0 {
                    return if skip {
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
            NodeKind::Precondition { cond, otherwise } => {
                let (cond, otherwise) = (*cond, *otherwise);
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
            NodeKind::EntryUpdated {
                slot,
                if_not_updated,
            } => {
                let (slot, otherwise) = (*slot, *if_not_updated);
                let c = self.child(n, 0);
                if self.state[i].flags & CHILD_RUNNING != 0 {
                    let s = self.execute_tick(c);
                    self.set_flag(n, CHILD_RUNNING, s == Status::Running);
                    return s;
                }
                let current = self.seq[slot as usize];
                let previous = self.seen[i];
                self.seen[i] = current;
                if previous == current {
                    return otherwise;
                }
                let s = self.execute_tick(c);
                self.set_flag(n, CHILD_RUNNING, s == Status::Running);
                s
            }
            NodeKind::Loop {
                queue,
                value,
                if_empty,
            } => {
                let (queue, value, if_empty) = (*queue, *value, *if_empty);
                self.tick_loop(n, queue, value, if_empty)
            }
            NodeKind::SubTree { inputs } => {
                if self.status[i] == Status::Idle {
                    for k in 0..inputs.len() {
                        let (slot, code) = match &self.prog.nodes[i].kind {
                            NodeKind::SubTree { inputs } => inputs[k],
                            _ => unreachable!("matched above"),
                        };
                        let v = self.eval(code);
                        self.store(slot, v);
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
            NodeKind::AlwaysSuccess => Status::Success,
            NodeKind::AlwaysFailure => Status::Failure,
            NodeKind::Sleep { ms } => {
                let ms = *ms;
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
                let current = self.seq[slot as usize];
                let previous = self.seen[i];
                self.seen[i] = current;
                if previous == current {
                    Status::Failure
                } else {
                    Status::Success
                }
            }
            NodeKind::Foreign { leaf, .. } => {
                let leaf = *leaf;
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
                    NodeClass::Action => match self.status[i] {
                        Status::Idle => self.call_leaf(n, true),
                        Status::Running => self.call_leaf(n, false),
                        done => done,
                    },
                    NodeClass::Condition => self.call_leaf(n, true),
                }
            }
        }
    }

    fn set_flag(&mut self, n: NodeId, flag: u8, on: bool) {
        let f = &mut self.state[n as usize].flags;
        if on {
            *f |= flag;
        } else {
            *f &= !flag;
        }
    }

    fn arm(&mut self, n: NodeId, deadline: f64) {
        self.state[n as usize].deadline = deadline;
    }

    fn disarm(&mut self, n: NodeId) {
        self.state[n as usize].deadline = f64::NAN;
    }

    /// A timer expired: what BehaviorTree.CPP's timer callback does. Returns whether it woke
    /// the tree up.
    pub(crate) fn fire_timer(&mut self, n: NodeId) -> bool {
        let i = n as usize;
        self.state[i].deadline = f64::NAN;
        match self.prog.nodes[i].kind {
            NodeKind::Timeout { .. } => {
                let c = self.child(n, 0);
                if self.status[c as usize] == Status::Running {
                    self.state[i].flags |= TIMER_DONE;
                    self.reset_child(n);
                    true
                } else {
                    false
                }
            }
            NodeKind::Delay { .. } => {
                self.state[i].flags |= TIMER_DONE;
                true
            }
            NodeKind::Sleep { .. } => {
                self.state[i].flags &= !WAITING;
                true
            }
            _ => false,
        }
    }

    fn call_leaf(&mut self, n: NodeId, starting: bool) -> Status {
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

    // ------------------------------------------------------------------ halting

    /// `TreeNode::haltNode`: the node's `halt()`, then its `_onHalted` script.
    pub(crate) fn halt_node(&mut self, n: NodeId) {
        // With compiled code installed, halts (between ticks: timers, a behaviour module
        // stopping) run the compiled halt, so both engines never mix within one program.
        if let Some(jit) = self.jit.clone() {
            if jit.halt(self, n) {
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
    fn reset_children(&mut self, n: NodeId) {
        for &c in self.kids(n) {
            self.halt_node_child(c);
        }
    }

    /// `ControlNode::haltChild`.
    #[inline]
    fn halt_child(&mut self, n: NodeId, k: usize) {
        let c = self.child(n, k);
        self.halt_node_child(c);
    }

    /// `ControlNode::haltChild` of the child `c`.
    #[inline(always)]
    fn halt_node_child(&mut self, c: NodeId) {
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
    fn reset_child(&mut self, n: NodeId) {
        if let Some(&c) = self.kids(n).first() {
            self.halt_node_child(c);
        }
    }

    /// The node's own `halt()`.
    fn halt(&mut self, n: NodeId) {
        let i = n as usize;
        match &self.prog.nodes[i].kind {
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
            NodeKind::Repeat { .. } | NodeKind::Retry { .. } => {
                self.state[i].a = 0;
                self.decorator_halt(n);
            }
            NodeKind::Timeout { .. } | NodeKind::Delay { .. } => {
                self.state[i].flags &= !(STARTED | TIMER_DONE);
                self.disarm(n);
                self.decorator_halt(n);
            }
            // BehaviorTree.CPP's EntryUpdatedDecorator::halt only forgets the running child:
            // it neither halts the child nor resets itself (its parent resets it).
            NodeKind::EntryUpdated { .. } => self.state[i].flags &= !CHILD_RUNNING,
            NodeKind::Inverter
            | NodeKind::ForceSuccess
            | NodeKind::ForceFailure
            | NodeKind::KeepRunningUntilFailure
            | NodeKind::RunOnce { .. }
            | NodeKind::Precondition { .. }
            | NodeKind::Loop { .. }
            | NodeKind::SubTree { .. } => self.decorator_halt(n),
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

    fn control_halt(&mut self, n: NodeId) {
        self.reset_children(n);
        self.reset_status(n);
    }

    fn decorator_halt(&mut self, n: NodeId) {
        self.reset_child(n);
        self.reset_status(n);
    }

    // ------------------------------------------------------------------ controls

    /// Sequence, AsyncSequence and (with `reset_on_failure` false) SequenceWithMemory.
    /// `yields`: return RUNNING after a child that succeeded from IDLE, waking the tree (every
    /// tree BehaviorTree.CPP builds has a wake-up signal).
    #[inline(always)]
    fn tick_sequence(&mut self, n: NodeId, reset_on_failure: bool, yields: bool) -> Status {
        let i = n as usize;
        let kids = self.kids(n);
        let count = kids.len();
        if !self.status[i].is_active() {
            self.state[i].b = 0;
        }
        self.set_status(n, Status::Running);
        while let Some(&c) = kids.get(self.state[i].a as usize) {
            let k = self.state[i].a as usize;
            let prev = self.status[c as usize];
            match self.execute_tick(c) {
                Status::Running => return Status::Running,
                Status::Failure => {
                    if reset_on_failure {
                        self.reset_children(n);
                        self.state[i].a = 0;
                    } else {
                        for j in k..count {
                            self.halt_child(n, j);
                        }
                    }
                    return Status::Failure;
                }
                Status::Success => {
                    self.state[i].a += 1;
                    if yields && prev == Status::Idle && (self.state[i].a as usize) < count {
                        self.woken = true;
                        return Status::Running;
                    }
                }
                Status::Skipped => {
                    self.state[i].a += 1;
                    self.state[i].b += 1;
                }
                Status::Idle => return Status::Failure,
            }
        }
        let all_skipped = self.state[i].b as usize == count;
        if self.state[i].a as usize == count {
            self.reset_children(n);
            self.state[i].a = 0;
            self.state[i].b = 0;
        }
        if all_skipped {
            Status::Skipped
        } else {
            Status::Success
        }
    }

    #[inline(always)]
    fn tick_fallback(&mut self, n: NodeId, yields: bool) -> Status {
        let i = n as usize;
        let kids = self.kids(n);
        let count = kids.len();
        if !self.status[i].is_active() {
            self.state[i].b = 0;
        }
        self.set_status(n, Status::Running);
        while let Some(&c) = kids.get(self.state[i].a as usize) {
            let prev = self.status[c as usize];
            match self.execute_tick(c) {
                Status::Running => return Status::Running,
                Status::Success => {
                    self.reset_children(n);
                    self.state[i].a = 0;
                    return Status::Success;
                }
                Status::Failure => {
                    self.state[i].a += 1;
                    if yields && prev == Status::Idle && (self.state[i].a as usize) < count {
                        self.woken = true;
                        return Status::Running;
                    }
                }
                Status::Skipped => {
                    self.state[i].a += 1;
                    self.state[i].b += 1;
                }
                Status::Idle => return Status::Failure,
            }
        }
        let all_skipped = self.state[i].b as usize == count;
        if self.state[i].a as usize == count {
            self.reset_children(n);
            self.state[i].a = 0;
            self.state[i].b = 0;
        }
        if all_skipped {
            Status::Skipped
        } else {
            Status::Failure
        }
    }

    /// ReactiveSequence (`sequence` true) and ReactiveFallback.
    #[inline(always)]
    fn tick_reactive(&mut self, n: NodeId, sequence: bool) -> Status {
        let i = n as usize;
        let kids = self.kids(n);
        let mut all_skipped = true;
        if self.status[i] == Status::Idle {
            self.state[i].a = -1;
        }
        self.set_status(n, Status::Running);
        for (k, &c) in kids.iter().enumerate() {
            let s = self.execute_tick(c);
            all_skipped &= s == Status::Skipped;
            match s {
                Status::Running => {
                    for (j, &other) in kids.iter().enumerate() {
                        if j != k {
                            self.halt_node_child(other);
                        }
                    }
                    if self.state[i].a == -1 {
                        self.state[i].a = k as i32;
                    }
                    return Status::Running;
                }
                Status::Failure if sequence => {
                    self.reset_children(n);
                    return Status::Failure;
                }
                Status::Success if !sequence => {
                    self.reset_children(n);
                    return Status::Success;
                }
                Status::Skipped => self.halt_node_child(c),
                _ => {}
            }
        }
        self.reset_children(n);
        if all_skipped {
            Status::Skipped
        } else if sequence {
            Status::Success
        } else {
            Status::Failure
        }
    }

    fn edge(&self, n: NodeId, k: usize) -> usize {
        self.hot[n as usize].first_child as usize + k
    }

    /// The `done` flags of `n`'s children (one per edge, in child order).
    #[inline]
    fn done_range(&self, n: NodeId) -> std::ops::Range<usize> {
        let h = &self.hot[n as usize];
        h.first_child as usize..h.first_child as usize + h.children as usize
    }

    fn clear_parallel(&mut self, n: NodeId) {
        let i = n as usize;
        let r = self.done_range(n);
        self.done[r].fill(false);
        self.state[i].a = 0;
        self.state[i].b = 0;
    }

    /// Python-style thresholds: -1 means all children.
    fn threshold(count: usize, t: i32) -> usize {
        if t < 0 {
            (count as i32 + t + 1).max(0) as usize
        } else {
            t as usize
        }
    }

    /// Parallel: its thresholds, then its tick.
    #[inline(always)]
    fn tick_parallel_node(&mut self, n: NodeId) -> Status {
        let NodeKind::Parallel { success, failure } = self.prog.nodes[n as usize].kind else {
            return Status::Failure;
        };
        let s = self.arg(success) as i32;
        let f = self.arg(failure) as i32;
        self.tick_parallel(n, s, f)
    }

    #[inline(always)]
    fn tick_parallel(&mut self, n: NodeId, success_t: i32, failure_t: i32) -> Status {
        let i = n as usize;
        let count = self.child_count(n);
        let need_success = Self::threshold(count, success_t);
        let need_failure = Self::threshold(count, failure_t);
        if count < need_success || count < need_failure {
            // BehaviorTree.CPP throws here; the checker rejects such trees, so this is a
            // program built by hand.
            return Status::Failure;
        }
        self.set_status(n, Status::Running);
        let mut skipped = 0usize;
        let kids = self.kids(n);
        let first = self.hot[i].first_child as usize;
        for (k, &c) in kids.iter().enumerate() {
            let e = first + k;
            if !self.done[e] {
                match self.execute_tick(c) {
                    Status::Skipped => skipped += 1,
                    Status::Success => {
                        self.done[e] = true;
                        self.state[i].a += 1;
                    }
                    Status::Failure => {
                        self.done[e] = true;
                        self.state[i].b += 1;
                    }
                    _ => {}
                }
            }
            let successes = self.state[i].a as usize;
            let failures = self.state[i].b as usize;
            if successes >= need_success || (success_t < 0 && successes + skipped >= need_success) {
                self.clear_parallel(n);
                self.reset_children(n);
                return Status::Success;
            }
            if count - failures < need_success || failures == need_failure {
                self.clear_parallel(n);
                self.reset_children(n);
                return Status::Failure;
            }
        }
        if skipped == count {
            Status::Skipped
        } else {
            Status::Running
        }
    }

    fn tick_parallel_all(&mut self, n: NodeId, max_failures: i32) -> Status {
        let i = n as usize;
        let count = self.child_count(n);
        let threshold = Self::threshold(count, max_failures);
        if count < threshold {
            return Status::Failure;
        }
        self.set_status(n, Status::Running);
        let mut skipped = 0usize;
        for k in 0..count {
            let e = self.edge(n, k);
            if self.done[e] {
                continue;
            }
            let c = self.child(n, k);
            match self.execute_tick(c) {
                Status::Success => {
                    self.done[e] = true;
                    self.state[i].a += 1;
                }
                Status::Failure => {
                    self.done[e] = true;
                    self.state[i].a += 1;
                    self.state[i].b += 1;
                }
                Status::Skipped => skipped += 1,
                _ => {}
            }
        }
        if skipped == count {
            return Status::Skipped;
        }
        if skipped + self.state[i].a as usize >= count {
            self.reset_children(n);
            for k in 0..count {
                let e = self.edge(n, k);
                self.done[e] = false;
            }
            self.state[i].a = 0;
            let failed = self.state[i].b as usize >= threshold;
            self.state[i].b = 0;
            return if failed {
                Status::Failure
            } else {
                Status::Success
            };
        }
        Status::Running
    }

    fn tick_if_then_else(&mut self, n: NodeId) -> Status {
        let i = n as usize;
        let count = self.child_count(n);
        self.set_status(n, Status::Running);
        if self.state[i].a == 0 {
            let c0 = self.child(n, 0);
            match self.execute_tick(c0) {
                Status::Running => return Status::Running,
                Status::Success => self.state[i].a = 1,
                Status::Failure if count == 3 => self.state[i].a = 2,
                Status::Failure => return Status::Failure,
                // BehaviorTree.CPP throws on a skipped condition; failing is the safe reading.
                _ => return Status::Failure,
            }
        }
        let k = self.state[i].a as usize;
        let c = self.child(n, k);
        let s = self.execute_tick(c);
        if s == Status::Running {
            return Status::Running;
        }
        self.reset_children(n);
        self.state[i].a = 0;
        s
    }

    fn tick_while_do_else(&mut self, n: NodeId) -> Status {
        let count = self.child_count(n);
        self.set_status(n, Status::Running);
        let c0 = self.child(n, 0);
        let cond = self.execute_tick(c0);
        if cond == Status::Running {
            return Status::Running;
        }
        let s = match cond {
            Status::Success => {
                if count == 3 {
                    self.halt_child(n, 2);
                }
                let c1 = self.child(n, 1);
                self.execute_tick(c1)
            }
            Status::Failure => {
                if count == 3 {
                    self.halt_child(n, 1);
                    let c2 = self.child(n, 2);
                    self.execute_tick(c2)
                } else {
                    Status::Failure
                }
            }
            _ => Status::Idle,
        };
        if s == Status::Running {
            return Status::Running;
        }
        self.reset_children(n);
        if s == Status::Idle {
            Status::Failure
        } else {
            s
        }
    }

    /// TryCatch (BehaviorTree.CPP 4.9): the first children as a sequence; on failure the last
    /// child runs and the node fails.
    fn tick_try_catch(&mut self, n: NodeId) -> Status {
        let i = n as usize;
        let count = self.child_count(n);
        let try_count = count - 1;
        self.set_status(n, Status::Running);
        // `b` = 1 while the catch branch runs.
        if self.state[i].b == 0 {
            while (self.state[i].a as usize) < try_count {
                let k = self.state[i].a as usize;
                let c = self.child(n, k);
                match self.execute_tick(c) {
                    Status::Running => return Status::Running,
                    Status::Success | Status::Skipped => self.state[i].a += 1,
                    _ => {
                        for j in 0..try_count {
                            self.halt_child(n, j);
                        }
                        self.state[i].a = 0;
                        self.state[i].b = 1;
                        break;
                    }
                }
            }
            if self.state[i].b == 0 {
                self.reset_children(n);
                self.state[i].a = 0;
                return Status::Success;
            }
        }
        let c = self.child(n, count - 1);
        let s = self.execute_tick(c);
        if s == Status::Running {
            return Status::Running;
        }
        self.reset_children(n);
        self.state[i].b = 0;
        Status::Failure
    }

    fn tick_switch(&mut self, n: NodeId) -> Status {
        let i = n as usize;
        let NodeKind::Switch {
            subject,
            subject_kind,
            cases,
        } = &self.prog.nodes[i].kind
        else {
            return Status::Failure;
        };
        let (subject, kind, ncases) = (*subject, *subject_kind, cases.len());
        let value = self.eval(subject);
        let mut matched = ncases;
        for k in 0..ncases {
            let NodeKind::Switch { cases, .. } = &self.prog.nodes[i].kind else {
                break;
            };
            if switch_matches(value, kind, &cases[k]) {
                matched = k;
                break;
            }
        }
        let running = self.state[i].a;
        if running != -1 && running as usize != matched {
            self.halt_child(n, running as usize);
        }
        let c = self.child(n, matched);
        let s = self.execute_tick(c);
        match s {
            Status::Skipped => self.state[i].a = -1,
            Status::Running => self.state[i].a = matched as i32,
            _ => {
                self.reset_children(n);
                self.state[i].a = -1;
            }
        }
        s
    }

    // ------------------------------------------------------------------ decorators

    fn tick_repeat(&mut self, n: NodeId, cycles: i32) -> Status {
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

    fn tick_retry(&mut self, n: NodeId, attempts: Arg) -> Status {
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

    fn tick_timeout(&mut self, n: NodeId, ms: f64) -> Status {
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

    fn tick_delay(&mut self, n: NodeId, ms: f64) -> Status {
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

    fn tick_loop(&mut self, n: NodeId, queue: u32, value: u32, if_empty: Status) -> Status {
        let i = n as usize;
        let mut popped = false;
        if self.status[i] == Status::Idle {
            self.state[i].flags &= !CHILD_RUNNING;
        }
        if self.state[i].flags & CHILD_RUNNING == 0 {
            let list = self.slots[queue as usize];
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

/// Does a switch case match the subject? Enums, booleans and strings match by value;
/// numbers as BehaviorTree.CPP compares the subject's text (`%ld`, or `%f` for a double)
/// with the case's: equal text, then equal leading integers, then reals within a float
/// epsilon. Equal text implies one of the other two, so no text is built.
fn switch_matches(
    value: f64,
    kind: ValueKind,
    case: &affect_compiler::ir::program::CaseValue,
) -> bool {
    match kind {
        ValueKind::Num
        | ValueKind::Int
        | ValueKind::Duration
        | ValueKind::Rate
        | ValueKind::Length
        | ValueKind::Angle => {
            // `%f` and `%ld` both start with the integer part, truncated toward zero.
            if value.is_finite() {
                if let Some(b) = leading_int(&case.text) {
                    if value.trunc() == b as f64 {
                        return true;
                    }
                }
            }
            match case.text.trim().parse::<f64>() {
                Ok(b) => (value - b).abs() <= f32::EPSILON as f64,
                Err(_) => false,
            }
        }
        _ => value == case.value,
    }
}

/// `std::from_chars` for an int: an optional minus and at least one digit, the rest ignored.
pub(crate) fn leading_int(s: &str) -> Option<i64> {
    let bytes = s.as_bytes();
    let mut end = usize::from(bytes.first() == Some(&b'-'));
    let digits_start = end;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    if end == digits_start {
        return None;
    }
    s[..end].parse().ok()
}
