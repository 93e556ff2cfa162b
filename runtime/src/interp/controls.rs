//! Control nodes, step by step as BehaviorTree.CPP 4.8 ticks them: the sequences and
//! fallbacks (plain, reactive, with memory, yielding), the parallels, IfThenElse,
//! WhileDoElse, TryCatch and Switch.

use super::Machine;
use affect_compiler::ir::program::{NodeId, NodeKind, Status, ValueKind};

impl<'p> Machine<'p> {
    // ------------------------------------------------------------------ controls

    /// Sequence, AsyncSequence and (with `reset_on_failure` false) SequenceWithMemory.
    /// `yields`: return RUNNING after a child that succeeded from IDLE, waking the tree (every
    /// tree BehaviorTree.CPP builds has a wake-up signal).
    #[inline(always)]
    pub(super) fn tick_sequence(
        &mut self,
        n: NodeId,
        reset_on_failure: bool,
        yields: bool,
    ) -> Status {
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
    pub(super) fn tick_fallback(&mut self, n: NodeId, yields: bool) -> Status {
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
    pub(super) fn tick_reactive(&mut self, n: NodeId, sequence: bool) -> Status {
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

    pub(super) fn edge(&self, n: NodeId, k: usize) -> usize {
        self.hot[n as usize].first_child as usize + k
    }

    /// The `done` flags of `n`'s children (one per edge, in child order).
    #[inline]
    pub(super) fn done_range(&self, n: NodeId) -> std::ops::Range<usize> {
        let h = &self.hot[n as usize];
        h.first_child as usize..h.first_child as usize + h.children as usize
    }

    pub(super) fn clear_parallel(&mut self, n: NodeId) {
        let i = n as usize;
        let r = self.done_range(n);
        self.done[r].fill(false);
        self.state[i].a = 0;
        self.state[i].b = 0;
    }

    /// Python-style thresholds: -1 means all children.
    pub(super) fn threshold(count: usize, t: i32) -> usize {
        if t < 0 {
            (count as i32 + t + 1).max(0) as usize
        } else {
            t as usize
        }
    }

    /// Parallel: its thresholds, then its tick.
    #[inline(always)]
    pub(super) fn tick_parallel_node(&mut self, n: NodeId) -> Status {
        let NodeKind::Parallel { success, failure } = self.prog.nodes[n as usize].kind else {
            return Status::Failure;
        };
        let s = self.arg(success) as i32;
        let f = self.arg(failure) as i32;
        self.tick_parallel(n, s, f)
    }

    #[inline(always)]
    pub(super) fn tick_parallel(&mut self, n: NodeId, success_t: i32, failure_t: i32) -> Status {
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

    pub(super) fn tick_parallel_all(&mut self, n: NodeId, max_failures: i32) -> Status {
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

    pub(super) fn tick_if_then_else(&mut self, n: NodeId) -> Status {
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

    pub(super) fn tick_while_do_else(&mut self, n: NodeId) -> Status {
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
    pub(super) fn tick_try_catch(&mut self, n: NodeId) -> Status {
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

    pub(super) fn tick_switch(&mut self, n: NodeId) -> Status {
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
