//! The interpreter: runs one agent's tick program with BehaviorTree.CPP v4's node semantics.
//! Every node's status, child cursor and timer lives in flat arrays indexed by node id; a
//! steady-state tick allocates nothing.

pub(crate) mod controls;
mod eval;
pub(crate) mod families;
mod fast;
mod halt;
pub(crate) mod nodes;
mod roots;
mod subtree;

/// What the runtime provides to compiled code: emotional memory, world questions. The
/// interpreter calls it for `Op::Host`; so does JIT-compiled code.
pub trait Host {
    fn call(
        &mut self,
        f: affect_compiler::ir::functions::HostFn,
        arg: u32,
        args: &[f64],
        lists: &mut Lists,
    ) -> f64;
}

use crate::leaf::{Leaf, LeafTable};
pub use crate::lists::Lists;
use affect_compiler::ir::program::{AgentProgram, Arg, Code, NodeId, Program, SlotId, Status};

/// Native code that runs a machine's program in the interpreter's place, on the machine's
/// own state (the JIT implements it). Each call may decline, and the interpreter then runs
/// that part itself.
pub trait Native {
    /// Runs the process phase; false when the interpreter must.
    fn process(&self, m: &mut Machine) -> bool;
    /// Ticks a root; `None` when the interpreter must.
    fn tick_root(&self, m: &mut Machine, root: NodeId) -> Option<Status>;
    /// Halts a node; false when the interpreter must.
    fn halt(&self, m: &mut Machine, n: NodeId) -> bool;
}

/// A status change of a node, as BehaviorTree.CPP's StatusChangeLogger reports it.
/// `repr(C)`: JIT-compiled code appends transitions itself (`jit::View`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Transition {
    pub node: NodeId,
    pub from: Status,
    pub to: Status,
}

/// Per-node state beyond the status: a child cursor or counter, a second counter, a timer
/// deadline and flags. 24 bytes; `repr(C)` because JIT-compiled code addresses the fields.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct NodeState {
    /// Current child (sequences), running child (reactive, switch; -1 none), repeat/retry
    /// count, completed children (parallel).
    pub a: i32,
    /// Skipped children, failures (parallel).
    pub b: i32,
    /// Deadline of the node's timer in ms (timeout, delay, sleep); `NaN` when none.
    pub deadline: f64,
    /// Started / halted / ran-once flags.
    pub flags: u8,
}

/// The hot part of a node, packed for the tick loop: what it is, whether it has conditions
/// or is a decorator, its children and its code. Built once from the program.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Hot {
    pub op: u8,
    pub flags: u8,
    pub first_child: u32,
    pub children: u32,
    pub code: Code,
}

pub(crate) const HAS_CONDITIONS: u8 = 1;
pub(crate) const DECORATOR: u8 = 2;
/// Groot 2 hooks act on this node (`node_hooks`): it takes the general path.
pub(crate) const HOOKED: u8 = 4;

/// Opcodes of the kinds the tick loop dispatches directly; the rest go through `NodeKind`.
pub(crate) mod op {
    pub const OTHER: u8 = 0;
    pub const SEQUENCE: u8 = 1;
    pub const FALLBACK: u8 = 2;
    pub const SCRIPT: u8 = 3;
    pub const SCRIPT_CONDITION: u8 = 4;
    pub const ALWAYS_SUCCESS: u8 = 5;
    pub const ALWAYS_FAILURE: u8 = 6;
    pub const INVERTER: u8 = 7;
    pub const FORCE_SUCCESS: u8 = 8;
    pub const FORCE_FAILURE: u8 = 9;
    pub const REACTIVE_SEQUENCE: u8 = 10;
    pub const REACTIVE_FALLBACK: u8 = 11;
    /// A parallel node with constant thresholds, in `Hot::code` (`start` success, `len`
    /// failure, each an `i32`); one with computed thresholds is `OTHER`.
    pub const PARALLEL: u8 = 12;
    // Scripts and conditions of one shape, run without the expression machine's loop
    // (`fast.rs`, `Machine::tick_short`); `Hot::code` is still their translated range.
    /// `t := a + k`: `[SAddK(a, k), Store(t)]`.
    pub const SET_ADDK: u8 = 13;
    /// `t := a - k`: `[SSubK(a, k), Store(t)]`.
    pub const SET_SUBK: u8 = 14;
    /// `a >= b + k`: `[Load(a), SAddK(b, k), Ge]`; likewise the next three.
    pub const COND_GE_ADDK: u8 = 15;
    pub const COND_GT_ADDK: u8 = 16;
    pub const COND_LT_ADDK: u8 = 17;
    pub const COND_LE_ADDK: u8 = 18;
}

/// A timer that fired between ticks, for the caller's clock (BehaviorTree.CPP's timers wake
/// the tree up early).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wakeup {
    pub at_ms: f64,
}

pub struct Machine<'p> {
    pub(crate) prog: &'p AgentProgram,
    pub(crate) hot: Vec<Hot>,
    pub slots: Vec<f64>,
    /// Write counter of each slot (BehaviorTree.CPP's entry sequence ids).
    pub(crate) seq: Vec<u32>,
    pub(crate) status: Vec<Status>,
    pub(crate) state: Vec<NodeState>,
    /// Parallel nodes' completed children, per edge of `prog.children`.
    pub(crate) done: Vec<bool>,
    /// Last sequence id each entry-watching node saw.
    pub(crate) seen: Vec<u32>,
    pub(crate) stk: Option<Box<eval::Stack>>,
    /// Translated code of scripts, script conditions and the process phase (`fast.rs`);
    /// `Hot::code` of a `SCRIPT` or `SCRIPT_CONDITION` node is a range of it.
    pub(crate) fops: Vec<fast::Fop>,
    /// Bounds of the translated clamped stores.
    pub(crate) clamps: Vec<(f64, f64)>,
    /// The fast machine's stack.
    pub(crate) fstack: [f64; 32],
    /// The process phase, translated, when it could be.
    pub(crate) process_fast: Option<Code>,
    pub(crate) ports: Vec<f64>,
    pub(crate) outputs: Vec<Option<f64>>,
    pub lists: Lists,
    pub(crate) leaves: LeafTable,
    /// Class of each declared foreign node (by leaf index).
    pub(crate) leaf_classes: Vec<affect_compiler::builtins::NodeClass>,
    /// What a foreign action or condition without an implementation returns.
    pub default_leaf: Status,
    /// Simulated time in milliseconds.
    pub now_ms: f64,
    /// Status changes since the caller last drained them.
    pub transitions: Vec<Transition>,
    pub record: bool,
    /// A node signalled BehaviorTree.CPP's wake-up during the tick (a yielding sequence,
    /// repeat or retry): a tree sleeping between ticks is ticked again at once.
    pub woken: bool,
    /// The runtime services compiled code calls.
    pub host: Option<Box<dyn Host + 'p>>,
    /// Nodes ticked so far (`executeTick` calls), for benchmarks.
    pub node_ticks: u64,
    /// Native code for this program, when installed (the JIT's `install_jit`): the process
    /// phase, tree ticks and halts then run natively on this machine's state.
    pub(crate) native: Option<std::rc::Rc<dyn Native>>,
    /// The first read of an unset variable in this tick, if any: BehaviorTree.CPP throws
    /// there, and the tree stops. The run loop rolls the tick back to that point.
    pub fault: Option<Fault>,
    /// Hooks around built-in nodes' ticks (`--groot2-hooks`), when set.
    pub(crate) node_hooks: Option<std::rc::Rc<dyn crate::node_hooks::NodeHooks>>,
}

/// A read of a variable that holds no value (BehaviorTree.CPP's "Variable not found"), and
/// the machine's state at that moment: what the rest of the tick did is undone, as if it
/// had stopped there as BehaviorTree.CPP's exception stops it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub slot: SlotId,
    /// How many transitions had been recorded.
    pub transitions: usize,
    pub slots: Vec<f64>,
    pub seq: Vec<u32>,
    /// The lists then: list writes after the read are undone too.
    pub lists: Lists,
}

/// A slot's write count after writing `v` into it (`Machine::write`): one more, or 0 when
/// `v` is `UNSET`, which removes the entry.
#[inline(always)]
fn next_seq(seq: u32, v: f64) -> u32 {
    if affect_compiler::ir::program::is_unset(v) {
        0
    } else {
        seq.wrapping_add(1)
    }
}

impl Fault {
    /// Keeps the first fault of a tick (`fault` still empty) with the state at that
    /// moment; returns what the read yields, 0. Cold: only a read of an unset variable
    /// gets here.
    #[cold]
    #[inline(never)]
    pub(crate) fn note(
        fault: &mut Option<Fault>,
        slot: SlotId,
        transitions: usize,
        slots: &[f64],
        seq: &[u32],
        lists: &Lists,
    ) -> f64 {
        if fault.is_none() {
            *fault = Some(Fault {
                slot,
                transitions,
                slots: slots.to_vec(),
                seq: seq.to_vec(),
                lists: lists.clone(),
            });
        }
        0.0
    }
}

/// A node's entry in the hot table: its opcode, flags, children and translated code.
fn hot_node(
    program: &Program,
    n: &affect_compiler::ir::program::Node,
    translate: &mut impl FnMut(Code) -> Option<Code>,
) -> Hot {
    use affect_compiler::ir::program::{DecoratorKind, NodeKind as K};
    // Scripts whose code cannot be translated go the general way.
    let (o, code) = match &n.kind {
        K::Sequence => (op::SEQUENCE, Code::default()),
        K::Fallback => (op::FALLBACK, Code::default()),
        K::Script { code } => match translate(*code) {
            Some(f) => (op::SCRIPT, f),
            None => (op::OTHER, Code::default()),
        },
        K::ScriptCondition { cond } => match translate(*cond) {
            Some(f) => (op::SCRIPT_CONDITION, f),
            None => (op::OTHER, Code::default()),
        },
        K::AlwaysSuccess => (op::ALWAYS_SUCCESS, Code::default()),
        K::AlwaysFailure => (op::ALWAYS_FAILURE, Code::default()),
        // The commonest decorators get an opcode of their own: one call, no dispatch by kind.
        K::Decorator(d) => match d.kind {
            DecoratorKind::Invert => (op::INVERTER, Code::default()),
            DecoratorKind::ForceSuccess => (op::FORCE_SUCCESS, Code::default()),
            DecoratorKind::ForceFailure => (op::FORCE_FAILURE, Code::default()),
            _ => (op::OTHER, Code::default()),
        },
        K::ReactiveSequence => (op::REACTIVE_SEQUENCE, Code::default()),
        K::ReactiveFallback => (op::REACTIVE_FALLBACK, Code::default()),
        // Constant thresholds (as `tick_parallel_node` converts them) are kept in
        // `Hot::code`: the tick loop then never looks at the node's kind.
        K::Parallel {
            success: Arg::Const(s),
            failure: Arg::Const(f),
        } => (
            op::PARALLEL,
            Code {
                start: *s as i32 as u32,
                len: *f as i32 as u32,
            },
        ),
        _ => (op::OTHER, Code::default()),
    };
    let decorator = match &n.kind {
        K::Foreign { leaf, .. } => program
            .leaves
            .get(*leaf as usize)
            .is_some_and(|l| l.class == affect_compiler::builtins::NodeClass::Decorator),
        kind => kind.is_builtin_decorator(),
    };
    let mut flags = 0;
    if n.conditions.is_some() {
        flags |= HAS_CONDITIONS;
    }
    // Inverter and the forcing decorators reset a completed child themselves, so
    // the generic reset after their status would find it idle: skip it.
    let resets_itself = matches!(o, op::INVERTER | op::FORCE_SUCCESS | op::FORCE_FAILURE);
    if decorator && n.children.1 > 0 && !resets_itself {
        flags |= DECORATOR;
    }
    Hot {
        op: o,
        flags,
        first_child: n.children.0,
        children: n.children.1,
        code,
    }
}

impl<'p> Machine<'p> {
    pub fn new(program: &'p Program, agent: &'p AgentProgram, leaves: LeafTable) -> Machine<'p> {
        let n = agent.nodes.len();
        let lists = Lists::new(&program.lists);
        let mut fops = Vec::new();
        let mut clamps = Vec::new();
        let mut translate = |c: Code| {
            let ops = agent
                .code
                .get(c.start as usize..c.start as usize + c.len as usize)?;
            // A checked read of a list looks at its list, not at the slot: the general
            // machine runs it (`Machine::list_checked`).
            let list_read = ops.iter().any(|op| {
                matches!(op, affect_compiler::ir::program::Op::LoadChecked(s) if agent.slots.get(*s as usize)
                    .is_some_and(|x| x.kind == affect_compiler::ir::program::ValueKind::List))
            });
            if list_read {
                return None;
            }
            fast::translate(ops, &mut fops, &mut clamps)
        };
        let process_fast = translate(agent.process);
        let mut hot: Vec<Hot> = (agent.nodes.iter())
            .map(|n| hot_node(program, n, &mut translate))
            .collect();
        for h in &mut hot {
            h.op = fast::short_op(&fops, h.op, h.code);
        }
        let mut m = Machine {
            prog: agent,
            hot,
            slots: Vec::new(),
            seq: vec![1; agent.slots.len()],
            status: vec![Status::Idle; n],
            state: vec![
                NodeState {
                    a: 0,
                    b: 0,
                    deadline: f64::NAN,
                    flags: 0
                };
                n
            ],
            done: vec![false; agent.children.len()],
            seen: vec![0; n],
            stk: Some(Box::default()),
            fops,
            clamps,
            fstack: [0.0; 32],
            process_fast,
            ports: Vec::with_capacity(16),
            outputs: Vec::with_capacity(16),
            lists,
            leaves,
            leaf_classes: program.leaves.iter().map(|l| l.class).collect(),
            default_leaf: Status::Success,
            now_ms: 0.0,
            transitions: Vec::with_capacity(4 * n + 16),
            record: true,
            woken: false,
            host: None,
            node_ticks: 0,
            native: None,
            fault: None,
            node_hooks: None,
        };
        // A `var` without an initial value starts unset (`UNSET`), its entry never written
        // (sequence id 0, as BehaviorTree.CPP's entry a port declared and nothing set).
        m.slots = agent.slots.iter().map(|s| s.init).collect();
        for (i, s) in agent.slots.iter().enumerate() {
            if affect_compiler::ir::program::is_unset(s.init) {
                m.seq[i] = 0;
            }
        }
        // Every list slot gets its own copy of its initial list.
        for (i, s) in agent.slots.iter().enumerate() {
            if s.kind == affect_compiler::ir::program::ValueKind::List {
                m.slots[i] = m.lists.instantiate_nested(s.init, s.list_depth());
            }
        }
        for (i, node) in agent.nodes.iter().enumerate() {
            if matches!(
                node.kind,
                affect_compiler::ir::program::NodeKind::Switch { .. }
                    | affect_compiler::ir::program::NodeKind::ReactiveSequence
                    | affect_compiler::ir::program::NodeKind::ReactiveFallback
            ) {
                m.state[i].a = -1;
            }
        }
        m
    }

    /// Puts hooks around the ticks of the nodes they cover (Groot 2's hooks on controls,
    /// decorators, SubTrees and scripts): those nodes take `execute_tick_general`, which asks
    /// them. The interpreter only: a run with node hooks does not install native code.
    pub fn set_node_hooks(&mut self, hooks: std::rc::Rc<dyn crate::node_hooks::NodeHooks>) {
        for (i, h) in self.hot.iter_mut().enumerate() {
            if hooks.covers(i as NodeId) {
                h.flags |= HOOKED;
            }
        }
        self.node_hooks = Some(hooks);
    }

    pub fn program(&self) -> &AgentProgram {
        self.prog
    }

    pub fn status_of(&self, node: NodeId) -> Status {
        self.status[node as usize]
    }

    /// How many times a slot was written (both engines count every write).
    pub(crate) fn writes_of(&self, slot: SlotId) -> u32 {
        self.seq[slot as usize]
    }

    /// A checked read found `slot` unset: the first such read of a tick is the fault, and
    /// the state then is kept to roll back to. The read yields 0; nothing after it counts.
    #[cold]
    #[inline(never)]
    pub(crate) fn unset_read(&mut self, slot: SlotId) -> f64 {
        Fault::note(
            &mut self.fault,
            slot,
            self.transitions.len(),
            &self.slots,
            &self.seq,
            &self.lists,
        )
    }

    /// A checked read of list slot `slot` (a list variable that `unset_blackboard` can
    /// empty): its list's id, after reporting the read as `unset_read` does when the list
    /// holds no value (the id stays, so what runs after the fault cannot touch another list).
    pub(crate) fn list_checked(&mut self, slot: SlotId) -> f64 {
        let id = self.slots.get(slot as usize).copied().unwrap_or(f64::NAN);
        if self.lists.is_unset(id) {
            self.unset_read(slot);
        }
        id
    }

    /// Whether `slot` holds no value: `UNSET`, or a list variable's list marked unset.
    pub(crate) fn holds_no_value(&self, slot: SlotId) -> bool {
        let v = self.slots[slot as usize];
        affect_compiler::ir::program::is_unset(v)
            || (self.prog.slots[slot as usize].kind
                == affect_compiler::ir::program::ValueKind::List
                && self.lists.is_unset(v))
    }

    /// Undoes what the tick did after its fault (transitions, writes) and returns the
    /// fault, leaving the machine as BehaviorTree.CPP's exception leaves its tree.
    pub fn take_fault(&mut self) -> Option<Fault> {
        let f = self.fault.take()?;
        self.transitions.truncate(f.transitions);
        self.slots.copy_from_slice(&f.slots);
        self.seq.copy_from_slice(&f.seq);
        self.lists.clone_from(&f.lists);
        Some(f)
    }

    /// Writes a slot and counts the write. Writing `UNSET` (`unset_blackboard`) removes the
    /// entry, as BehaviorTree.CPP's `unset` erases it: its count starts again from 0, so
    /// the next write is the new entry's first (a `was_updated` that saw the old entry's
    /// first write sees no update).
    pub fn write(&mut self, slot: SlotId, v: f64) {
        let s = slot as usize;
        self.slots[s] = v;
        self.seq[s] = next_seq(self.seq[s], v);
    }

    /// Assigns list `from` to a list slot: copies its elements into the slot's own list and
    /// counts the write.
    pub fn copy_list(&mut self, slot: SlotId, from: f64) {
        let s = slot as usize;
        if let Some(&to) = self.slots.get(s) {
            self.lists.copy(from, to);
            self.seq[s] = next_seq(self.seq[s], from);
        }
    }

    /// Writes a value the runtime produced (a subtree's input, a leaf's output): a list
    /// slot gets a copy of the list, so it keeps owning its own.
    pub(crate) fn store(&mut self, slot: SlotId, v: f64) {
        if self.prog.slots[slot as usize].kind == affect_compiler::ir::program::ValueKind::List {
            self.copy_list(slot, v);
        } else {
            self.write(slot, v);
        }
    }

    /// Writes a slot only if the value changes (devices: a sensor reading the same value is
    /// not an update).
    pub fn write_if_changed(&mut self, slot: SlotId, v: f64) {
        if !crate::trace::same_value(self.slots[slot as usize], v) {
            self.write(slot, v);
        }
    }

    /// The process phase: hormones, lets, update, handlers, drives.
    pub fn process(&mut self) {
        if let Some(native) = self.native.clone() {
            if native.process(self) {
                return;
            }
        }
        let code = self.prog.process;
        if code.len > 0 {
            match self.process_fast {
                Some(f) => {
                    self.exec_fast(f);
                }
                None => self.run(code),
            }
        }
    }

    /// Ticks the main tree once, as `Tree::tickExactlyOnce` does; the root is reset when it
    /// completes. Returns the root's status (IDLE when there is no tree).
    pub fn tick_tree(&mut self) -> Status {
        let Some(root) = self.prog.root else {
            return Status::Idle;
        };
        if let Some(native) = self.native.clone() {
            if let Some(s) = native.tick_root(self, root) {
                return s;
            }
        }
        let s = self.execute_tick(root);
        if s.is_completed() {
            self.reset_status(root);
        }
        s
    }

    /// Advances the clock to `to_ms`, firing the timers that expire on the way in deadline
    /// order (a timeout halts its running child then, as BehaviorTree.CPP's timer thread
    /// does). Returns the first wake-up a timer signalled, if any; with `stop_at_wakeup` the
    /// clock stops there (the tree is woken and ticks next at that time).
    pub fn advance(&mut self, to_ms: f64, stop_at_wakeup: bool) -> Option<Wakeup> {
        let mut first: Option<Wakeup> = None;
        loop {
            let mut next: Option<(usize, f64)> = None;
            for (i, st) in self.state.iter().enumerate() {
                let d = st.deadline;
                if d.is_nan() || d > to_ms {
                    continue;
                }
                if next.is_none_or(|(_, best)| d < best) {
                    next = Some((i, d));
                }
            }
            let Some((i, at)) = next else { break };
            if let Some(w) = first {
                // Timers due at the same instant all fire; later ones wait for the next tick.
                if stop_at_wakeup && at > w.at_ms {
                    return first;
                }
            }
            self.now_ms = self.now_ms.max(at);
            if self.fire_timer(i as NodeId) && first.is_none() {
                first = Some(Wakeup { at_ms: at });
            }
        }
        if first.is_none() || !stop_at_wakeup {
            self.now_ms = self.now_ms.max(to_ms);
        }
        first
    }

    /// The earliest pending timer deadline, if any (for a clock that wakes on timers).
    pub fn next_deadline(&self) -> Option<f64> {
        self.state
            .iter()
            .filter(|st| !st.deadline.is_nan())
            .map(|st| st.deadline)
            .fold(None, |acc: Option<f64>, d| {
                Some(acc.map_or(d, |a| a.min(d)))
            })
    }

    /// Bytes of run-time state this machine keeps for its program (slots, statuses, node
    /// state, cursors), not counting the program itself.
    pub fn state_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.len() * size_of::<f64>()
            + self.seq.len() * size_of::<u32>()
            + self.status.len() * size_of::<Status>()
            + self.state.len() * size_of::<NodeState>()
            + self.done.len() * size_of::<bool>()
            + self.seen.len() * size_of::<u32>()
    }

    pub fn leaf_mut(&mut self, node: NodeId) -> Option<&mut dyn Leaf> {
        self.leaves.get_mut(node)
    }
}
