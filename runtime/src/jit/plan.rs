//! What the code generator decides before it emits anything: which statuses each node can
//! return (so a parent tests only those), which nodes can still be RUNNING when a parent
//! halts them, how the tree is cut into native functions, and the tables of host and
//! function calls. Everything here is conservative: a status set may be too large, never too
//! small.

use super::JitError;
use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::functions::{Function, HostFn};
use affect_compiler::ir::program::{
    AgentProgram, Arg, Code, DecoratorArg, DecoratorKind, NodeId, NodeKind, Op, PortBinding,
    Program, SlotId,
};

/// Status sets, one bit per `Status` value (defined beside the decorator families, which
/// route by them too).
pub(crate) use crate::interp::families::compiled::{bit, StatusSet, ALL, COMPLETED, F, I, K, R, S};

/// Roughly how much code inlined nodes may add up to before a child gets its own function:
/// large functions save calls, small ones keep register allocation fast.
const UNIT_BUDGET: u32 = 320;

pub(crate) fn unit_budget() -> u32 {
    std::env::var("AFFECT_JIT_UNIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(UNIT_BUDGET)
}

pub(crate) struct Plan<'p> {
    pub program: &'p Program,
    pub agent: &'p AgentProgram,
    /// Statuses `execute_tick` of each node can return.
    pub possible: Vec<StatusSet>,
    /// Whether a node can be RUNNING when its parent halts it.
    pub may_run: Vec<bool>,
    /// For each node, whether it is the root of a native tick function.
    pub unit_root: Vec<bool>,
    /// The roots of native tick functions, in the order their functions are declared.
    pub units: Vec<NodeId>,
    /// The unit each node's code lives in (its index in `units`), if it is reachable.
    pub unit_of: Vec<Option<u32>>,
    /// The nodes whose code lives in each unit, in id order.
    pub members: Vec<Vec<NodeId>>,
    /// The trees the runtime ticks: `main`, then behaviour modules' roots.
    pub roots: Vec<NodeId>,
    pub host_fns: Vec<HostFn>,
    pub functions: Vec<Function>,
    /// Whether the code records status changes (`Machine::record`). Code for a machine
    /// that does not record has no recording paths at all.
    pub record: bool,
    /// Each slot that can hold `UNSET`: declared without an initial value, or the target of
    /// an `unset_blackboard` store.
    pub unsettable: Vec<bool>,
    /// For each wide node (`is_wide_kind`, more than [`WIDE`] children), the unit of its first
    /// child: every child roots its own unit, numbered in order, and the node's code loops
    /// over them through the view's unit table instead of being unrolled per child.
    pub wide: Vec<Option<u32>>,
    /// [`WIDE`], or its override.
    wide_above: usize,
    /// Which units share a function (`share.rs`).
    pub share: Sharing,
}

/// Above this many children a control node's code is a loop over its children's units (code
/// and compile-time memory linear in the width; unrolled code halts or resets all siblings
/// on each child's exit path, which is quadratic). Below it, unrolled code is faster: a
/// sequence of 128 scripts ticks in about 4 ns per node unrolled and 7 looped, and compiles
/// in 15 ms and 9 (docs/performance.md, *Wide nodes*).
pub(crate) const WIDE: usize = 128;

/// `AFFECT_JIT_WIDE=N` overrides [`WIDE`] (the differential tests set 0: every control
/// with children loops).
pub(crate) fn wide_threshold() -> usize {
    std::env::var("AFFECT_JIT_WIDE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(WIDE)
}

impl<'p> Plan<'p> {
    /// Whether a slot can hold `UNSET` (`unsettable`).
    pub fn can_be_unset(&self, slot: u32) -> bool {
        self.unsettable.get(slot as usize) == Some(&true)
    }

    pub fn new(
        program: &'p Program,
        agent: &'p AgentProgram,
        record: bool,
    ) -> Result<Plan<'p>, JitError> {
        let n = agent.nodes.len();
        let mut plan = Plan {
            program,
            agent,
            possible: vec![ALL; n],
            may_run: vec![true; n],
            unit_root: vec![false; n],
            units: Vec::new(),
            unit_of: vec![None; n],
            members: Vec::new(),
            roots: Vec::new(),
            host_fns: Vec::new(),
            functions: Vec::new(),
            record,
            unsettable: unsettable(agent),
            wide: vec![None; n],
            wide_above: wide_threshold(),
            share: Default::default(),
        };
        plan.validate()?;
        let mut roots: Vec<NodeId> = agent.root.into_iter().collect();
        for r in &agent.roots {
            if !roots.contains(&r.root) {
                roots.push(r.root);
            }
        }
        plan.roots = roots.clone();
        let mut computed = vec![false; n];
        for &r in &roots {
            plan.compute_possible(r, &mut computed);
        }
        for i in 0..n {
            plan.may_run[i] = sets_running(&agent.nodes[i].kind) && plan.possible[i] & (R | K) != 0;
        }
        for &r in &roots {
            plan.unit_root[r as usize] = true;
            plan.partition(r);
        }
        for &r in &roots {
            plan.assign_units(r);
        }
        plan.number_wide()?;
        plan.members = vec![Vec::new(); plan.units.len()];
        for (i, u) in plan.unit_of.iter().enumerate() {
            if let Some(u) = u {
                plan.members[*u as usize].push(i as NodeId);
            }
        }
        plan.collect_calls();
        Ok(plan)
    }

    pub fn children(&self, n: NodeId) -> &'p [NodeId] {
        let (first, count) = self.agent.nodes[n as usize].children;
        &self.agent.children[first as usize..(first + count) as usize]
    }

    pub fn leaf_class(&self, leaf: u32) -> NodeClass {
        self.program
            .leaves
            .get(leaf as usize)
            .map(|l| l.class)
            .unwrap_or(NodeClass::Action)
    }

    /// The interpreter's DECORATOR flag: a decorator with a child resets a completed child
    /// after its own status is set.
    pub fn is_decorator(&self, n: NodeId) -> bool {
        let node = &self.agent.nodes[n as usize];
        let decorator = match &node.kind {
            NodeKind::Foreign { leaf, .. } => self.leaf_class(*leaf) == NodeClass::Decorator,
            kind => kind.is_builtin_decorator(),
        };
        decorator && node.children.1 > 0
    }

    /// Refuses programs the interpreter would index out of bounds on (they do not come from
    /// the checker): the JIT then is not used, and the interpreter decides.
    fn validate(&self) -> Result<(), JitError> {
        let a = self.agent;
        let nodes = a.nodes.len() as u64;
        if nodes > (i32::MAX as u64) / 32 || a.slots.len() as u64 > (i32::MAX as u64) / 16 {
            return Err(JitError::Unsupported("the program is too large".into()));
        }
        let code_ok = |c: Code| (c.start as usize + c.len as usize) <= a.code.len();
        for (i, node) in a.nodes.iter().enumerate() {
            let (first, count) = node.children;
            if (first as usize + count as usize) > a.children.len() {
                return Err(JitError::Unsupported(format!(
                    "node {i}: children out of range"
                )));
            }
            for k in 0..count {
                if a.children[(first + k) as usize] as usize >= a.nodes.len() {
                    return Err(JitError::Unsupported(format!(
                        "node {i}: child out of range"
                    )));
                }
            }
            let need = match &node.kind {
                kind if loops_over_children(self.program, kind) => 0,
                NodeKind::IfThenElse | NodeKind::WhileDoElse => 2,
                NodeKind::TryCatch { .. } => 1,
                NodeKind::Switch { cases, .. } => cases.len() as u32 + 1,
                NodeKind::Foreign { leaf, .. } => match self.leaf_class(*leaf) {
                    NodeClass::Decorator => 1,
                    _ => 0,
                },
                NodeKind::AlwaysSuccess
                | NodeKind::AlwaysFailure
                | NodeKind::Sleep { .. }
                | NodeKind::Script { .. }
                | NodeKind::ScriptCondition { .. }
                | NodeKind::WasEntryUpdated { .. } => 0,
                _ => 1,
            };
            if count < need {
                return Err(JitError::Unsupported(format!(
                    "node {i} ({}) has {count} children, needs {need}",
                    node.id
                )));
            }
            if matches!(node.kind, NodeKind::IfThenElse | NodeKind::WhileDoElse) && count > 3 {
                return Err(JitError::Unsupported(format!(
                    "node {i}: more than 3 children"
                )));
            }
            let slot_ok = |s: u32| (s as usize) < a.slots.len();
            let ok = match &node.kind {
                NodeKind::WasEntryUpdated { slot } => slot_ok(*slot),
                NodeKind::Decorator(d) => d.args.iter().all(|x| match x {
                    DecoratorArg::Slot(s, _) => slot_ok(*s),
                    DecoratorArg::Code(c) | DecoratorArg::Value(Arg::Expr(c)) => code_ok(*c),
                    _ => true,
                }),
                NodeKind::SubTree { inputs } => {
                    inputs.iter().all(|(s, c)| slot_ok(*s) && code_ok(*c))
                }
                NodeKind::Foreign { ports, .. } => ports.iter().all(|p| match p {
                    PortBinding::Slot(s) => slot_ok(*s),
                    PortBinding::In(Arg::Expr(c)) => code_ok(*c),
                    _ => true,
                }),
                _ => true,
            };
            if !ok {
                return Err(JitError::Unsupported(format!(
                    "node {i}: a slot is out of range"
                )));
            }
        }
        for op in &a.code {
            let ok = match op {
                Op::Store(s) | Op::ListSet(s) | Op::ListSetAt(s) | Op::ListBuild(s, _) => {
                    (*s as usize) < a.slots.len()
                }
                // `f64::clamp` panics on such bounds; the interpreter would too.
                Op::StoreClamped(s, lo, hi) => (*s as usize) < a.slots.len() && lo <= hi,
                _ => true,
            };
            if !ok {
                return Err(JitError::Unsupported(format!("invalid instruction {op:?}")));
            }
        }
        Ok(())
    }

    /// The statuses a node's `execute_tick` can return, children first.
    fn compute_possible(&mut self, n: NodeId, computed: &mut Vec<bool>) -> StatusSet {
        let i = n as usize;
        if computed[i] {
            return self.possible[i];
        }
        computed[i] = true;
        // Guards against a cyclic table (never produced by the compiler) while it is computed.
        self.possible[i] = ALL;
        let kids: Vec<StatusSet> = self
            .children(n)
            .to_vec()
            .into_iter()
            .map(|c| self.compute_possible(c, computed))
            .collect();
        let any = |m: StatusSet| kids.iter().any(|k| k & m != 0);
        // Controls report SKIPPED when every child was skipped, vacuously so without children.
        let skipped_if_all = if kids.iter().all(|k| k & K != 0) {
            K
        } else {
            0
        };
        let node = &self.agent.nodes[i];
        let tick = match &node.kind {
            NodeKind::Script { .. } | NodeKind::AlwaysSuccess => S,
            NodeKind::AlwaysFailure => F,
            NodeKind::ScriptCondition { .. } | NodeKind::WasEntryUpdated { .. } => S | F,
            NodeKind::Decorator(d) if d.kind == DecoratorKind::Invert => {
                let c = kids[0];
                let mut s = c & (I | R | K);
                if c & S != 0 {
                    s |= F;
                }
                if c & F != 0 {
                    s |= S;
                }
                s
            }
            NodeKind::Decorator(d)
                if matches!(
                    d.kind,
                    DecoratorKind::ForceSuccess | DecoratorKind::ForceFailure
                ) =>
            {
                let forced = if d.kind == DecoratorKind::ForceSuccess {
                    S
                } else {
                    F
                };
                let c = kids[0];
                (c & (I | R | K)) | if c & COMPLETED != 0 { forced } else { 0 }
            }
            // A plain sequence or fallback returns RUNNING only for a running child; an
            // IDLE child reads as FAILURE.
            NodeKind::Sequence | NodeKind::Fallback => {
                (if any(R) { R } else { 0 }) | S | F | skipped_if_all
            }
            NodeKind::SequenceWithMemory | NodeKind::AsyncSequence | NodeKind::AsyncFallback => {
                R | S | F | skipped_if_all
            }
            NodeKind::ReactiveSequence | NodeKind::ReactiveFallback => {
                (if any(R) { R } else { 0 }) | S | F | skipped_if_all
            }
            // With "all must succeed" (a negative success threshold, constant) and children
            // that always complete or skip, a parallel node decides within its tick: after
            // the last child either the failures reached the threshold or successes and
            // skips make up the rest. Its state is then clean at every tick's start.
            NodeKind::Parallel {
                success: Arg::Const(s),
                failure: Arg::Const(_),
            } if (*s as i32) < 0 && !kids.is_empty() && !any(R | I) => S | F,
            NodeKind::Parallel { .. } | NodeKind::ParallelAll { .. } => R | S | F | K,
            _ => ALL,
        };
        let pre = match node
            .conditions
            .and_then(|c| self.agent.conditions.get(c as usize))
        {
            Some(c) => {
                (if c.failure_if.is_some() { F } else { 0 })
                    | (if c.success_if.is_some() { S } else { 0 })
                    | (if c.skip_if.is_some() || c.while_.is_some() {
                        K
                    } else {
                        0
                    })
            }
            None => 0,
        };
        let set = if tick == 0 { ALL } else { tick | pre };
        self.possible[i] = set;
        set
    }

    /// How much code a node adds when inlined (a rough measure).
    fn weight(&self, n: NodeId) -> u32 {
        let node = &self.agent.nodes[n as usize];
        let code = |c: &Code| c.len;
        let mut w = 4 + node.children.1 * 3;
        w += match &node.kind {
            NodeKind::Script { code: c } | NodeKind::ScriptCondition { cond: c } => code(c),
            NodeKind::Decorator(d) => d
                .args
                .iter()
                .map(|x| match x {
                    DecoratorArg::Code(c) => code(c),
                    _ => 0,
                })
                .sum(),
            NodeKind::Switch { subject, cases, .. } => code(subject) + 4 * cases.len() as u32,
            _ => 0,
        };
        if let Some(c) = node
            .conditions
            .and_then(|c| self.agent.conditions.get(c as usize))
        {
            for x in c.tick_blocks().into_iter().flatten() {
                w += 2 + x.len;
            }
        }
        w
    }

    /// Cuts the tree under `n` into functions: returns the inlined weight of `n`. A child
    /// whose inlined code would make its parent's too big becomes the root of a function.
    fn partition(&mut self, n: NodeId) -> u32 {
        let kids: Vec<NodeId> = self.children(n).to_vec();
        if self.is_wide_node(n) {
            // Every child its own function; the node itself is a small loop.
            for &c in &kids {
                self.partition(c);
                self.unit_root[c as usize] = true;
            }
            return 40;
        }
        let mut sizes: Vec<(u32, NodeId)> = Vec::with_capacity(kids.len());
        for &c in &kids {
            let w = self.partition(c);
            if !self.unit_root[c as usize] {
                sizes.push((w, c));
            }
        }
        let budget = unit_budget();
        let mut total: u32 = self.weight(n) + sizes.iter().map(|(w, _)| w).sum::<u32>();
        sizes.sort_by_key(|s| std::cmp::Reverse(s.0));
        for (w, c) in sizes {
            if total <= budget {
                break;
            }
            self.unit_root[c as usize] = true;
            total = total - w + 4;
        }
        total
    }

    /// Numbers the functions in pre-order and records where each node's code lives.
    fn assign_units(&mut self, root: NodeId) {
        let mut stack: Vec<(NodeId, u32)> = Vec::new();
        let u = self.units.len() as u32;
        self.units.push(root);
        stack.push((root, u));
        while let Some((n, unit)) = stack.pop() {
            if self.unit_of[n as usize].is_some() {
                continue;
            }
            self.unit_of[n as usize] = Some(unit);
            // Child units are numbered in child order (a wide node finds child k's unit at
            // its first child's plus k), then visited first child first.
            let at = stack.len();
            for &c in self.children(n) {
                if self.unit_root[c as usize] && self.unit_of[c as usize].is_none() {
                    let cu = self.units.len() as u32;
                    self.units.push(c);
                    stack.push((c, cu));
                } else {
                    stack.push((c, unit));
                }
            }
            stack[at..].reverse();
        }
    }

    /// The nodes of a unit its halt function has code for: those that can be running when
    /// halted or have an `on_halted` block. (Any other node's halt is a status reset.)
    pub fn halt_members(&self, unit: usize) -> Vec<NodeId> {
        self.members[unit]
            .iter()
            .copied()
            .filter(|&m| self.may_run[m as usize] || self.on_halted(m).is_some())
            .collect()
    }

    pub fn on_halted(&self, n: NodeId) -> Option<Code> {
        let node = &self.agent.nodes[n as usize];
        node.conditions
            .and_then(|c| self.agent.conditions.get(c as usize))
            .and_then(|c| c.on_halted)
    }

    /// Whether `n` is compiled as a loop over its children (see [`WIDE`]).
    pub fn is_wide_node(&self, n: NodeId) -> bool {
        let node = &self.agent.nodes[n as usize];
        node.children.1 as usize > self.wide_above && self.is_wide_kind(&node.kind)
    }

    pub fn is_wide_kind(&self, kind: &NodeKind) -> bool {
        loops_over_children(self.program, kind)
    }

    /// Records each reachable wide node's first child unit, checking that its children's
    /// units are consecutive (a child shared by two parents would break that; the program
    /// then runs in the interpreter).
    fn number_wide(&mut self) -> Result<(), JitError> {
        for n in 0..self.agent.nodes.len() as NodeId {
            if self.unit_of[n as usize].is_none() || !self.is_wide_node(n) {
                continue;
            }
            let kids = self.children(n);
            let base = self.unit_of[kids[0] as usize];
            let consecutive = base.is_some_and(|b| {
                kids.iter().enumerate().all(|(k, &c)| {
                    let u = b as usize + k;
                    self.unit_of[c as usize] == Some(u as u32) && self.units.get(u) == Some(&c)
                })
            });
            if !consecutive {
                return Err(JitError::Unsupported(format!(
                    "node {n}: its children's functions are not consecutive"
                )));
            }
            self.wide[n as usize] = base;
        }
        Ok(())
    }

    /// The host services and functions the code calls, numbered for the shims.
    fn collect_calls(&mut self) {
        for op in &self.agent.code {
            match op {
                Op::Host(f, _, _) if !self.host_fns.contains(f) => self.host_fns.push(*f),
                Op::Call(f, _) if !self.functions.contains(f) => self.functions.push(*f),
                _ => {}
            }
        }
    }

    pub fn host_index(&self, f: HostFn) -> u32 {
        self.host_fns.iter().position(|x| *x == f).unwrap_or(0) as u32
    }

    pub fn function_index(&self, f: Function) -> u32 {
        self.functions.iter().position(|x| *x == f).unwrap_or(0) as u32
    }
}

/// How far a unit's state lies from its shape's representative: nodes, edges, slots, and
/// entries of the parameter table.
pub(crate) type Delta = [i32; 4];

/// Where a constant of a unit's code sits: an instruction (by its index in the agent's
/// code) or a node's argument (`Arg::Const`, by node and argument number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Site {
    Op(u32),
    Arg(NodeId, u16),
    /// A wide node's first child unit (`Plan::wide`), an index into the unit table.
    Wide(NodeId),
}

/// What a function several units share reads from where its unit's state lives: slots moved
/// by the unit's slot offset, and the parameter table entries (from the function's table
/// base, moved by the unit's table offset) of the constants that differ between its units
/// and of the slots that are not one offset apart (a caller's variable bound to a port).
#[derive(Clone, Debug, Default)]
pub(crate) struct Params {
    /// Slots reached through the moved slot base, sorted.
    pub rel: Vec<SlotId>,
    /// Slots whose number is read from the table, with their entry.
    pub mapped: Vec<(SlotId, u32)>,
    /// Constants read from the table, with their entry.
    pub consts: Vec<(Site, u32)>,
}

/// The shapes of a plan's units (`share.rs` groups them; empty until it has).
#[derive(Default)]
pub(crate) struct Sharing {
    /// The unit whose function each unit runs (itself when it has its own).
    pub rep: Vec<u32>,
    /// Each unit's offsets from its representative (zero for a representative).
    pub delta: Vec<Delta>,
    /// For a representative whose function serves several units: what moves with the unit.
    /// `None` for a function that serves one unit.
    pub params: Vec<Option<Params>>,
    /// The parameter table: each entry a constant's bits or a slot's number.
    pub table: Vec<u64>,
}

impl Sharing {
    /// How many distinct tick functions the units need.
    pub fn shapes(&self) -> usize {
        self.rep
            .iter()
            .enumerate()
            .filter(|(u, r)| **r as usize == *u)
            .count()
    }
}

/// The controls whose code can loop over their children: the sequences, fallbacks and
/// parallels (and a foreign control, ticked as a sequence).
pub(crate) fn loops_over_children(program: &Program, kind: &NodeKind) -> bool {
    match kind {
        NodeKind::Sequence
        | NodeKind::SequenceWithMemory
        | NodeKind::AsyncSequence
        | NodeKind::Fallback
        | NodeKind::AsyncFallback
        | NodeKind::ReactiveSequence
        | NodeKind::ReactiveFallback
        | NodeKind::Parallel { .. }
        | NodeKind::ParallelAll { .. } => true,
        NodeKind::Foreign { leaf, .. } => {
            program.leaves.get(*leaf as usize).map(|l| l.class) == Some(NodeClass::Control)
        }
        _ => false,
    }
}

/// Node kinds that never set their own status to RUNNING: no parent ever finds them running.
fn sets_running(kind: &NodeKind) -> bool {
    !matches!(
        kind,
        NodeKind::Script { .. }
            | NodeKind::ScriptCondition { .. }
            | NodeKind::AlwaysSuccess
            | NodeKind::AlwaysFailure
            | NodeKind::WasEntryUpdated { .. }
    )
}

/// Which slots can hold `UNSET` (`Plan::unsettable`).
fn unsettable(agent: &AgentProgram) -> Vec<bool> {
    use affect_compiler::ir::program::is_unset;
    let mut u: Vec<bool> = agent.slots.iter().map(|s| is_unset(s.init)).collect();
    for w in agent.code.windows(2) {
        if let [Op::Const(v), Op::Store(s) | Op::ListSet(s)] = w {
            if is_unset(*v) {
                if let Some(x) = u.get_mut(*s as usize) {
                    *x = true;
                }
            }
        }
    }
    // A subtree's input may pass "no value" on (a plain read of an unset variable).
    for n in &agent.nodes {
        if let NodeKind::SubTree { inputs } = &n.kind {
            for (s, _) in inputs {
                if let Some(x) = u.get_mut(*s as usize) {
                    *x = true;
                }
            }
        }
    }
    u
}
