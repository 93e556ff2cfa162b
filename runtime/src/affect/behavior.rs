//! The behaviour arbiter: EGO's tree of behaviour modules (seed 004, LANGUAGE.md §4.7,
//! docs/affect.md). Every tick, in the act phase after `main`:
//!
//! 1. stops begun on the previous tick complete, and their keys are released;
//! 2. evaluation, bottom-up: each module's behaviour value
//!    `Bv = β·Mv + (1 − β)·Rv` with `Rv = α·ΔS + (1 − α)(S + ΔS)`;
//! 3. the plan, top-down: from the `behaviors` block down, each parent hands the keys it was
//!    given to its children by priority (their value, lowered by lateral inhibition for a
//!    module that is not running), as its policy says; a module whose value is not above 0,
//!    or whose keys are taken, is left out;
//! 4. the statuses follow the plan: a running module left out is preempted (preparing to
//!    stop, its trees halted, then stopped with its state preserved); a module planned in
//!    prepares to run and runs as soon as no stopping module holds its keys;
//! 5. the trees of running modules tick, parents first;
//! 6. results are integrated bottom-up: a module finishes (stopped-initial) when its policy
//!    says its subtree is done, and its children stop with it.
//!
//! Everything is in index order (parents before children, written order among siblings), so
//! a run is deterministic.

use crate::interp::Machine;
use affect_compiler::ir::program::{
    Arg, BehaviorChild, BehaviorPolicy, Behaviors, Status, TreeRoot,
};

/// A module's status (seed 004, Fig. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleStatus {
    /// Stopped with its state initialised: it starts afresh.
    StoppedInitial,
    /// Stopped after preemption, its state kept: it resumes where it was.
    StoppedPreserved,
    /// Given its keys, waiting for a stopping module to release them.
    PreparingToRun,
    Running,
    /// Preempted this tick: its trees are halted and its keys are released on the next tick.
    PreparingToStop,
}

impl ModuleStatus {
    /// The name the trace uses.
    pub fn name(self) -> &'static str {
        match self {
            ModuleStatus::StoppedInitial => "stopped-initial",
            ModuleStatus::StoppedPreserved => "stopped-preserved",
            ModuleStatus::PreparingToRun => "preparing-to-run",
            ModuleStatus::Running => "running",
            ModuleStatus::PreparingToStop => "preparing-to-stop",
        }
    }

    fn is_active(self) -> bool {
        matches!(self, ModuleStatus::Running | ModuleStatus::PreparingToRun)
    }
}

/// A module's status change, for the trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModuleChange {
    pub module: u32,
    pub from: ModuleStatus,
    pub to: ModuleStatus,
    /// The module's behaviour value on this tick.
    pub value: f64,
}

/// Where one of a module's trees is in the module's current activation.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TreeState {
    /// To be ticked (not started yet, or halted and to resume).
    Ready,
    Running,
    /// Completed with this status; not ticked again until the module starts afresh.
    Done(Status),
}

pub struct Arbiter<'p> {
    spec: &'p Behaviors,
    roots: &'p [TreeRoot],
    status: Vec<ModuleStatus>,
    /// Where a stopping module goes when its stop completes.
    stop_to: Vec<ModuleStatus>,
    /// Where a module preparing to run came from (so it knows whether to start afresh, and
    /// where to go back to when the plan drops it before it runs).
    came_from: Vec<ModuleStatus>,
    value: Vec<f64>,
    /// Keys a module holds while it prepares, runs or stops.
    held: Vec<u64>,
    /// This tick's plan: in or out, and the keys taken.
    planned: Vec<bool>,
    taken: Vec<u64>,
    /// Planned modules in planning order, to undo a subtree that cannot run after all.
    marks: Vec<u32>,
    /// Static per module: its own keys, the keys it must get (its own, and with
    /// `simultaneous` its module children's), and every key its subtree may use.
    own: Vec<u64>,
    required: Vec<u64>,
    candidate: Vec<u64>,
    /// Module children of each module, in written order; and the top modules.
    kids: Vec<Vec<u32>>,
    has_trees: Vec<bool>,
    /// Scratch orders for sorting siblings by priority, one per module and one for the top
    /// (taken out while in use, so planning allocates nothing after the first tick).
    order: Vec<Vec<u32>>,
    top_order: Vec<u32>,
    trees: Vec<TreeState>,
    tree_done_now: Vec<bool>,
    /// The result of each module that finished on this tick.
    finished: Vec<Option<Status>>,
    /// Status changes since the caller last drained them.
    pub changes: Vec<ModuleChange>,
}

fn key_set(keys: &[u32]) -> u64 {
    keys.iter()
        .filter(|&&k| k < 64)
        .fold(0, |s, &k| s | 1u64 << k)
}

impl<'p> Arbiter<'p> {
    /// An arbiter for an agent's modules; `roots` are the agent's tree roots.
    pub fn new(spec: &'p Behaviors, roots: &'p [TreeRoot]) -> Arbiter<'p> {
        let n = spec.modules.len();
        let own: Vec<u64> = spec.modules.iter().map(|m| key_set(&m.keys)).collect();
        let kids: Vec<Vec<u32>> = spec
            .modules
            .iter()
            .map(|m| {
                m.children
                    .iter()
                    .filter_map(|c| match c {
                        BehaviorChild::Module(k) => Some(*k),
                        BehaviorChild::Tree(_) => None,
                    })
                    .collect()
            })
            .collect();
        let has_trees = spec
            .modules
            .iter()
            .map(|m| {
                m.children
                    .iter()
                    .any(|c| matches!(c, BehaviorChild::Tree(_)))
            })
            .collect();
        // Children come after their parent: fold the sets from the last module up.
        let mut required = own.clone();
        let mut candidate = own.clone();
        for i in (0..n).rev() {
            for &k in &kids[i] {
                candidate[i] |= candidate[k as usize];
                if spec.modules[i].policy == BehaviorPolicy::Simultaneous {
                    required[i] |= required[k as usize];
                }
            }
        }
        Arbiter {
            spec,
            roots,
            status: vec![ModuleStatus::StoppedInitial; n],
            stop_to: vec![ModuleStatus::StoppedPreserved; n],
            came_from: vec![ModuleStatus::StoppedInitial; n],
            value: vec![0.0; n],
            held: vec![0; n],
            planned: vec![false; n],
            taken: vec![0; n],
            marks: Vec::with_capacity(n),
            own,
            required,
            candidate,
            order: kids.clone(),
            kids,
            has_trees,
            top_order: spec.top.clone(),
            trees: vec![TreeState::Ready; roots.len()],
            tree_done_now: vec![false; roots.len()],
            finished: vec![None; n],
            changes: Vec::with_capacity(2 * n + 4),
        }
    }

    pub fn spec(&self) -> &'p Behaviors {
        self.spec
    }

    pub fn status(&self, module: u32) -> ModuleStatus {
        self.status[module as usize]
    }

    /// The module's behaviour value on the last tick.
    pub fn value(&self, module: u32) -> f64 {
        self.value[module as usize]
    }

    /// The keys a module holds (indices into the spec's key names), as a set.
    pub fn held(&self, module: u32) -> u64 {
        self.held[module as usize]
    }

    fn set(&mut self, i: usize, to: ModuleStatus) {
        let from = self.status[i];
        if from != to {
            self.status[i] = to;
            self.changes.push(ModuleChange {
                module: i as u32,
                from,
                to,
                value: self.value[i],
            });
        }
    }

    /// One tick of the arbiter (the act phase, after `main`).
    pub fn tick(&mut self, m: &mut Machine) {
        let n = self.status.len();
        // 1. Stops begun on the last tick complete: their keys are free again.
        for i in 0..n {
            if self.status[i] == ModuleStatus::PreparingToStop {
                let to = self.stop_to[i];
                self.set(i, to);
                self.held[i] = 0;
            }
        }
        // 2. Evaluation, bottom-up.
        for i in (0..n).rev() {
            self.value[i] = self.behaviour_value(i, m);
        }
        // 3. The plan, top-down.
        self.planned.fill(false);
        self.taken.fill(0);
        self.marks.clear();
        let mut top = std::mem::take(&mut self.top_order);
        self.plan_group(&mut top, self.spec.policy, u64::MAX);
        self.top_order = top;
        // 4. Statuses follow the plan. Modules left out stop first, so their keys are known
        // to be on their way back before anyone starts.
        let mut stopping = 0u64;
        for i in 0..n {
            if self.planned[i] {
                continue;
            }
            match self.status[i] {
                ModuleStatus::Running => {
                    self.begin_stop(i, m);
                    stopping |= self.held[i];
                }
                ModuleStatus::PreparingToRun => {
                    let back = self.came_from[i];
                    self.set(i, back);
                    self.held[i] = 0;
                }
                _ => {}
            }
        }
        for i in 0..n {
            if !self.planned[i] {
                continue;
            }
            if matches!(
                self.status[i],
                ModuleStatus::StoppedInitial | ModuleStatus::StoppedPreserved
            ) {
                self.came_from[i] = self.status[i];
                self.set(i, ModuleStatus::PreparingToRun);
            }
            self.held[i] = self.taken[i];
            let parent_runs = self.spec.modules[i]
                .parent
                .is_none_or(|p| self.status[p as usize] == ModuleStatus::Running);
            if self.status[i] == ModuleStatus::PreparingToRun
                && parent_runs
                && self.taken[i] & stopping == 0
            {
                if self.came_from[i] == ModuleStatus::StoppedInitial {
                    self.reset_trees(i, m);
                }
                self.set(i, ModuleStatus::Running);
            }
        }
        // 5. The trees of running modules tick, parents first.
        self.finished.fill(None);
        self.tree_done_now.fill(false);
        for i in 0..n {
            if self.status[i] != ModuleStatus::Running {
                continue;
            }
            for c in &self.spec.modules[i].children {
                let BehaviorChild::Tree(r) = *c else { continue };
                let r = r as usize;
                if matches!(self.trees[r], TreeState::Done(_)) {
                    continue;
                }
                let s = m.tick_root(self.roots[r].root);
                if s.is_completed() {
                    self.trees[r] = TreeState::Done(s);
                    self.tree_done_now[r] = true;
                } else {
                    self.trees[r] = TreeState::Running;
                }
            }
        }
        // 6. Results, bottom-up: children finish before their parents look at them.
        for i in (0..n).rev() {
            if self.status[i] == ModuleStatus::Running {
                if let Some(result) = self.outcome(i) {
                    self.finish(i, result, m);
                }
            }
        }
        // The top block never finishes, but its policy still stops the other top modules
        // when the main one (or, with `simultaneous`, any one) finishes.
        let ends = match self.spec.policy {
            BehaviorPolicy::Main(k) => self
                .spec
                .top
                .get(k as usize)
                .is_some_and(|&t| self.finished[t as usize].is_some()),
            BehaviorPolicy::Simultaneous => self
                .spec
                .top
                .iter()
                .any(|&t| self.finished[t as usize].is_some()),
            BehaviorPolicy::Parallel => false,
        };
        if ends {
            for k in 0..self.spec.top.len() {
                let t = self.spec.top[k] as usize;
                if self.status[t] != ModuleStatus::StoppedInitial {
                    self.stop_initial(t, m);
                }
            }
        }
    }

    fn arg(a: Arg, m: &mut Machine) -> f64 {
        match a {
            Arg::Const(v) => v,
            Arg::Expr(code) => m.eval(code),
        }
    }

    fn behaviour_value(&self, i: usize, m: &mut Machine) -> f64 {
        let d = &self.spec.modules[i];
        let mv = Self::arg(d.motivation, m);
        let s = Self::arg(d.satisfaction, m);
        let ds = Self::arg(d.expected, m);
        let rv = d.alpha * ds + (1.0 - d.alpha) * (s + ds);
        d.beta * mv + (1.0 - d.beta) * rv
    }

    /// A sibling's priority: its value, lowered by lateral inhibition unless it is running
    /// (`max_active` is the highest value among the running siblings).
    fn priority(&self, c: u32, max_active: f64) -> f64 {
        let c = c as usize;
        if self.status[c].is_active() {
            self.value[c]
        } else {
            self.value[c] - self.spec.inhibition * max_active.max(0.0)
        }
    }

    /// Plans a group of siblings that share `pool`; returns the keys they take, or `None`
    /// when a simultaneous group cannot run whole.
    fn plan_group(&mut self, group: &mut [u32], policy: BehaviorPolicy, pool: u64) -> Option<u64> {
        let mut free = pool;
        let mut taken = 0u64;
        match policy {
            BehaviorPolicy::Simultaneous => {
                for &c in group.iter() {
                    let t = self.plan_module(c as usize, free)?;
                    free &= !t;
                    taken |= t;
                }
            }
            BehaviorPolicy::Parallel | BehaviorPolicy::Main(_) => {
                let max_active = group
                    .iter()
                    .filter(|&&c| self.status[c as usize].is_active())
                    .map(|&c| self.value[c as usize])
                    .fold(f64::NEG_INFINITY, f64::max);
                // Highest priority first; ties in written order (siblings' indices grow in
                // written order). The group goes back to that order afterwards.
                group.sort_by(|&a, &b| {
                    self.priority(b, max_active)
                        .total_cmp(&self.priority(a, max_active))
                        .then(a.cmp(&b))
                });
                for &c in group.iter() {
                    // Not above 0 (or not a number): not worth running.
                    let p = self.priority(c, max_active);
                    if p.is_nan() || p <= 0.0 {
                        continue;
                    }
                    if let Some(t) = self.plan_module(c as usize, free) {
                        free &= !t;
                        taken |= t;
                    }
                }
                group.sort_unstable();
            }
        }
        Some(taken)
    }

    /// Plans one module with the keys `pool` offers; returns the keys it takes.
    fn plan_module(&mut self, i: usize, pool: u64) -> Option<u64> {
        if self.required[i] & !pool != 0 {
            return None;
        }
        let mark = self.marks.len();
        // A module that runs trees keeps its own keys for them; the rest of what it may use
        // goes to its module children.
        let kept = if self.has_trees[i] { self.own[i] } else { 0 };
        let child_pool = pool & self.candidate[i] & !kept;
        let mut group = std::mem::take(&mut self.order[i]);
        let planned = if group.is_empty() {
            Some(0)
        } else {
            self.plan_group(&mut group, self.spec.modules[i].policy, child_pool)
        };
        self.order[i] = group;
        let Some(children_take) = planned else {
            self.undo(mark);
            return None;
        };
        // A parent without trees runs only through its children.
        let any_child = self.kids[i].iter().any(|&k| self.planned[k as usize]);
        if !self.has_trees[i] && !any_child {
            self.undo(mark);
            return None;
        }
        let taken = self.own[i] | children_take;
        self.planned[i] = true;
        self.taken[i] = taken;
        self.marks.push(i as u32);
        Some(taken)
    }

    fn undo(&mut self, mark: usize) {
        for k in mark..self.marks.len() {
            let j = self.marks[k] as usize;
            self.planned[j] = false;
            self.taken[j] = 0;
        }
        self.marks.truncate(mark);
    }

    /// Preemption: the module prepares to stop, its trees halted (their state kept).
    fn begin_stop(&mut self, i: usize, m: &mut Machine) {
        self.halt_trees(i, m);
        self.stop_to[i] = ModuleStatus::StoppedPreserved;
        self.set(i, ModuleStatus::PreparingToStop);
    }

    fn halt_trees(&mut self, i: usize, m: &mut Machine) {
        for c in &self.spec.modules[i].children {
            let BehaviorChild::Tree(r) = *c else { continue };
            let r = r as usize;
            if self.trees[r] == TreeState::Running {
                m.halt_root(self.roots[r].root);
                self.trees[r] = TreeState::Ready;
            }
        }
    }

    /// Starting afresh: the module's trees forget what they kept.
    fn reset_trees(&mut self, i: usize, m: &mut Machine) {
        for c in &self.spec.modules[i].children {
            let BehaviorChild::Tree(r) = *c else { continue };
            let r = r as usize;
            let root = self.roots[r];
            if self.trees[r] == TreeState::Running {
                m.halt_root(root.root);
            }
            m.reset_nodes(root.root, root.end);
            self.trees[r] = TreeState::Ready;
        }
    }

    /// Whether a running module's subtree is done this tick, and its result.
    fn outcome(&self, i: usize) -> Option<Status> {
        let d = &self.spec.modules[i];
        let now = |c: &BehaviorChild| -> Option<Status> {
            match *c {
                BehaviorChild::Tree(r) => match self.trees[r as usize] {
                    TreeState::Done(s) if self.tree_done_now[r as usize] => Some(s),
                    _ => None,
                },
                BehaviorChild::Module(k) => self.finished[k as usize],
            }
        };
        match d.policy {
            // One child stopping stops the subtree: a failure fails it.
            BehaviorPolicy::Simultaneous => {
                let mut result = None;
                for c in &d.children {
                    match now(c) {
                        Some(Status::Failure) => return Some(Status::Failure),
                        Some(s) => result = Some(s),
                        None => {}
                    }
                }
                result
            }
            // The main child's result is the subtree's.
            BehaviorPolicy::Main(k) => d.children.get(k as usize).and_then(now),
            // Active while any child is.
            BehaviorPolicy::Parallel => {
                let active = d.children.iter().any(|c| match *c {
                    BehaviorChild::Tree(r) => !matches!(self.trees[r as usize], TreeState::Done(_)),
                    BehaviorChild::Module(k) => self.status[k as usize].is_active(),
                });
                if active {
                    return None;
                }
                let mut result = None;
                for c in &d.children {
                    match now(c) {
                        Some(Status::Success) => return Some(Status::Success),
                        Some(s) => result = Some(s),
                        None => {}
                    }
                }
                result
            }
        }
    }

    /// The module's subtree is done: it and everything under it stop, initialised.
    fn finish(&mut self, i: usize, result: Status, m: &mut Machine) {
        self.finished[i] = Some(result);
        self.stop_initial(i, m);
    }

    fn stop_initial(&mut self, i: usize, m: &mut Machine) {
        self.halt_trees(i, m);
        self.set(i, ModuleStatus::StoppedInitial);
        self.held[i] = 0;
        for k in 0..self.kids[i].len() {
            let c = self.kids[i][k] as usize;
            if self.status[c] != ModuleStatus::StoppedInitial {
                self.stop_initial(c, m);
            }
        }
    }
}

#[cfg(test)]
#[path = "behavior_tests.rs"]
mod tests;
