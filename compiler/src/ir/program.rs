//! The tick program's data types. Every value lives in a typed slot holding an `f64`
//! (booleans 0/1, enum variants by index, strings and labels by interned symbol, durations in
//! milliseconds), so a tick reads and writes plain numbers: no string look-ups, no
//! allocation.

pub use super::behavior::{BehaviorChild, BehaviorModule, BehaviorPolicy, Behaviors, TreeRoot};
pub use super::code::{Arg, Code, NodeId, SlotId, SymbolId};
use super::world::WorldSpec;
pub use crate::builtins::{Access, DecoratorKind};

/// How a slot's number is to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    Num,
    Int,
    Bool,
    /// An interned string (also labels and foreign values carried as text).
    Str,
    /// A variant index of `Program::enums[i]`.
    Enum(u32),
    Duration,
    Rate,
    Length,
    Angle,
    Status,
    /// A list id into the runtime's list store.
    List,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumInfo {
    pub name: String,
    pub variants: Vec<String>,
    /// Explicit integer values (BehaviorTree.CPP scripting enums), else the index.
    pub values: Vec<i64>,
}

/// What declared a slot, as the checker knows it: the story, the plot and the summary read
/// it here rather than going back to the syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An agent's `var` (or a main tree's).
    Var,
    /// A derived value (`let`), recomputed every tick.
    Let,
    Sensor,
    Event,
    Hormone,
    Drive,
    /// The intention a drive generates.
    Intention,
    /// An emotion machine's current state.
    Emotion,
    /// An emotion machine's intensity, 0..1.
    Intensity,
    /// An emotional memory; its value is its index in `AgentProgram::memories`.
    Memory,
    /// A component (seed 001): not a value; `failed(c)` asks the runtime about it.
    Component,
    /// A tree's port, with its direction.
    Port(PortDir),
    /// A tree's own `var`.
    Local,
    /// A temporary of the compiler, never shown.
    Temp,
}

/// Which way a port carries values, as the runtime reads it (the IR's own type, so the
/// engines never read the syntax tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDir {
    In,
    Out,
    InOut,
}

impl PortDir {
    /// How affect writes it: `in`, `out`, `inout`.
    pub fn keyword(self) -> &'static str {
        match self {
            PortDir::In => "in",
            PortDir::Out => "out",
            PortDir::InOut => "inout",
        }
    }
}

impl From<crate::syntax::ast::PortDir> for PortDir {
    fn from(d: crate::syntax::ast::PortDir) -> PortDir {
        use crate::syntax::ast::PortDir as Ast;
        match d {
            Ast::In => PortDir::In,
            Ast::Out => PortDir::Out,
            Ast::InOut => PortDir::InOut,
        }
    }
}

/// A blackboard entry. Subtree instances get their own slots, named by instance path.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    /// The name shown in traces: `score`, or `Dock::9/goal` inside a subtree instance.
    pub name: String,
    /// What declared it.
    pub role: Role,
    pub kind: ValueKind,
    /// The value before the first tick. NaN for an agent's `var` declared without one: the
    /// machine starts it at 0, and a trace shows it as `null` until something writes it.
    pub init: f64,
    /// `num in lo..hi`: assignments are clamped into the range.
    pub range: Option<(f64, f64)>,
    /// A variable the user declared and sees in traces (not a temporary).
    pub visible: bool,
    /// Which blackboard holds it: 0 is the root (the agent or the main tree), others are
    /// subtree instances (their index in `AgentProgram::scopes`).
    pub scope: u32,
    /// For a list or point: the kinds of its elements, outermost first (`[[Label]]` is
    /// `[List, Str]`), so traces can show labels and nested lists as such. Empty otherwise.
    pub elems: Vec<ValueKind>,
    /// Declared `any` (an untyped entry of an imported tree): it holds a number as a
    /// number, and takes other text from outside the program (`--bb`) as a string.
    pub any: bool,
}

impl Slot {
    /// How many levels of lists a list slot's elements are: 0 for `[int]` and points, 1 for
    /// `[[int]]`.
    pub fn list_depth(&self) -> u8 {
        let lists = self.elems.iter().take_while(|k| **k == ValueKind::List);
        lists.count().min(u8::MAX as usize) as u8
    }
}

/// The value of a slot that holds no value: a `var` declared without an initial value
/// before anything wrote it, or an entry `unset_blackboard` removed. A quiet NaN with a
/// payload no arithmetic produces (operations yield the default NaN, or propagate an
/// operand's, and a checked read never lets this one into arithmetic); traces show it as
/// `null` like every NaN.
pub const UNSET_BITS: u64 = 0x7ff8_00af_fec7_0001;
pub const UNSET: f64 = f64::from_bits(UNSET_BITS);

/// Whether a slot's value is [`UNSET`].
#[inline(always)]
pub fn is_unset(v: f64) -> bool {
    v.to_bits() == UNSET_BITS
}

/// A node status, numbered as BehaviorTree.CPP numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Status {
    Idle = 0,
    Running = 1,
    Success = 2,
    Failure = 3,
    Skipped = 4,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Idle => "IDLE",
            Status::Running => "RUNNING",
            Status::Success => "SUCCESS",
            Status::Failure => "FAILURE",
            Status::Skipped => "SKIPPED",
        }
    }

    /// The status a name of [`Status::name`] spells, if any.
    pub fn from_name(name: &str) -> Option<Status> {
        Some(match name {
            "SUCCESS" => Status::Success,
            "FAILURE" => Status::Failure,
            "RUNNING" => Status::Running,
            "SKIPPED" => Status::Skipped,
            "IDLE" => Status::Idle,
            _ => return None,
        })
    }

    pub fn from_index(i: u8) -> Status {
        match i {
            1 => Status::Running,
            2 => Status::Success,
            3 => Status::Failure,
            4 => Status::Skipped,
            _ => Status::Idle,
        }
    }

    pub fn is_completed(self) -> bool {
        matches!(self, Status::Success | Status::Failure)
    }

    pub fn is_active(self) -> bool {
        !matches!(self, Status::Idle | Status::Skipped)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Sequence,
    SequenceWithMemory,
    ReactiveSequence,
    AsyncSequence,
    Fallback,
    ReactiveFallback,
    AsyncFallback,
    Parallel {
        success: Arg,
        failure: Arg,
    },
    ParallelAll {
        max_failures: Arg,
    },
    IfThenElse,
    WhileDoElse,
    TryCatch {
        catch_on_halt: bool,
    },
    /// Switch2..6: `cases` are compared with the subject as BehaviorTree.CPP compares them
    /// (as strings, then integers, then reals); the last child is the default.
    Switch {
        subject: Code,
        subject_kind: ValueKind,
        cases: Vec<CaseValue>,
    },
    /// A built-in decorator of a family (`builtins::decorator_families!`): which one, and its
    /// arguments.
    Decorator(Decorator),
    /// A subtree instance. `inputs` are `in` ports given as expressions: each is computed
    /// into the instance's slot when the subtree starts (is ticked while idle).
    SubTree {
        inputs: Vec<(SlotId, Code)>,
    },
    AlwaysSuccess,
    AlwaysFailure,
    Sleep {
        ms: Arg,
    },
    Script {
        code: Code,
    },
    ScriptCondition {
        cond: Code,
    },
    WasEntryUpdated {
        slot: SlotId,
    },
    /// A node implemented outside the program: a declared action/condition, or a foreign
    /// control/decorator. The runtime binds an implementation (simulator, device, stand-in).
    Foreign {
        leaf: u32,
        ports: Vec<PortBinding>,
    },
}

impl NodeKind {
    /// A built-in decorator: it has one child, whose completion is reset after the
    /// decorator's own status is set. (A foreign node is one when its leaf's class says so.)
    pub fn is_builtin_decorator(&self) -> bool {
        matches!(self, NodeKind::Decorator(_) | NodeKind::SubTree { .. })
    }
}

/// A built-in decorator: its family and its arguments, in the order of its row's (so the
/// checker lowers every family the same way, and only the family's runtime file reads them).
#[derive(Clone, Debug, PartialEq)]
pub struct Decorator {
    pub kind: DecoratorKind,
    pub args: Vec<DecoratorArg>,
}

/// One argument of a decorator, lowered by its type (`builtins::ArgType`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DecoratorArg {
    /// A number, boolean or duration: a constant or an expression read when the node ticks.
    Value(Arg),
    /// A condition the node evaluates (Precondition's `if`).
    Code(Code),
    /// A variable, and whether the node reads or writes it.
    Slot(SlotId, Access),
    /// A status written out.
    Status(Status),
    /// A boolean the node reads once, when it is built (RunOnce's `then_skip`): an
    /// expression counts as false, as BehaviorTree.CPP's `getInput` of a missing key does.
    Flag(bool),
}

impl Decorator {
    /// The argument at `i` as a value (`Const(0)` when it is not one: never from the checker).
    pub fn value(&self, i: usize) -> Arg {
        match self.args.get(i) {
            Some(DecoratorArg::Value(a)) => *a,
            _ => Arg::Const(0.0),
        }
    }

    pub fn flag(&self, i: usize) -> bool {
        matches!(self.args.get(i), Some(DecoratorArg::Flag(true)))
    }

    pub fn code(&self, i: usize) -> Code {
        match self.args.get(i) {
            Some(DecoratorArg::Code(c)) => *c,
            _ => Code::default(),
        }
    }

    pub fn slot(&self, i: usize) -> SlotId {
        match self.args.get(i) {
            Some(DecoratorArg::Slot(s, _)) => *s,
            _ => 0,
        }
    }

    pub fn status(&self, i: usize) -> Status {
        match self.args.get(i) {
            Some(DecoratorArg::Status(s)) => *s,
            _ => Status::Idle,
        }
    }

    /// The slots it reads (`Access::Read` and `ReadWrite`), and those it writes.
    pub fn slots(&self, writes: bool) -> impl Iterator<Item = SlotId> + '_ {
        self.args.iter().filter_map(move |a| match a {
            DecoratorArg::Slot(s, access) => {
                let hit = match access {
                    Access::Read => !writes,
                    Access::Write => writes,
                    Access::ReadWrite => true,
                };
                hit.then_some(*s)
            }
            _ => None,
        })
    }
}

/// A Switch case literal, kept as the text BehaviorTree.CPP would compare.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseValue {
    pub text: String,
    /// The value in the subject's own terms (variant index, number, symbol).
    pub value: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PortBinding {
    /// An input computed from the blackboard or a constant.
    In(Arg),
    /// An output or in/out port written to a slot.
    Slot(SlotId),
    /// Not given: the declaration's default applies (or nothing).
    Absent,
}

/// Pre- and post-conditions (`_failureIf` … `_post`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Conditions {
    pub failure_if: Option<Code>,
    pub success_if: Option<Code>,
    pub skip_if: Option<Code>,
    pub while_: Option<Code>,
    pub on_success: Option<Code>,
    pub on_failure: Option<Code>,
    pub post: Option<Code>,
    pub on_halted: Option<Code>,
}

impl Conditions {
    pub fn has_pre(&self) -> bool {
        self.failure_if.is_some()
            || self.success_if.is_some()
            || self.skip_if.is_some()
            || self.while_.is_some()
    }

    pub fn is_empty(&self) -> bool {
        *self == Conditions::default()
    }

    /// The code blocks that run while the node ticks, in declaration order.
    pub fn tick_blocks(&self) -> [Option<Code>; 7] {
        [
            self.failure_if,
            self.success_if,
            self.skip_if,
            self.while_,
            self.on_success,
            self.on_failure,
            self.post,
        ]
    }

    /// Every code block: the tick's, then `on_halted`.
    pub fn blocks(&self) -> [Option<Code>; 8] {
        let [a, b, c, d, e, f, g] = self.tick_blocks();
        [a, b, c, d, e, f, g, self.on_halted]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    /// Children, as a range of `AgentProgram::children`.
    pub children: (u32, u32),
    /// Index into `AgentProgram::conditions`, when the node has any.
    pub conditions: Option<u32>,
    /// BehaviorTree.CPP's registration ID (`Sequence`, `RetryUntilSuccessful`, `MoveTo`).
    pub id: String,
    /// The instance name (the label, else the ID).
    pub name: String,
    /// `TreeNode::fullPath()`: subtree path + name, `ID::uid` when unnamed.
    pub path: String,
}

/// A declared foreign node: what `<TreeNodesModel>` would say.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafInfo {
    pub name: String,
    pub class: crate::builtins::NodeClass,
    pub ports: Vec<LeafPort>,
    /// The declaration (`action MoveTo(...)`), for the runtime's reports about it.
    pub span: crate::span::Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LeafPort {
    pub name: String,
    pub dir: PortDir,
    pub kind: Option<ValueKind>,
    pub default: Option<f64>,
}

/// One instruction of the expression machine: a stack of `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Const(f64),
    Load(SlotId),
    /// `Load` of a slot that may hold no value (`UNSET`): a `var` declared without an
    /// initial value, or one `unset_blackboard` removes. Reading it while unset is a
    /// run-time error that stops the tree, as BehaviorTree.CPP's "Variable not found".
    LoadChecked(SlotId),
    /// Pops a value and stores it.
    Store(SlotId),
    /// Pops a value, clamps it into the slot's range, stores it.
    StoreClamped(SlotId, f64, f64),
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    Not,
    /// Equality of numbers with BehaviorTree.CPP's tolerance for doubles.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    BitNot,
    /// Pops a condition; jumps forward by the offset when it is false (0).
    JumpIfFalse(u32),
    /// Jumps forward unconditionally.
    Jump(u32),
    /// Like `JumpIfFalse` but keeps the value on the stack when jumping (short-circuit).
    JumpIfFalseKeep(u32),
    JumpIfTrueKeep(u32),
    /// Calls a built-in function with `argc` arguments from the stack.
    Call(crate::ir::functions::Function, u8),
    Pop,
    /// Reads an index of a list: pops index and list id.
    Index,
    /// A list literal with computed elements: pops `n` values into the list the (hidden)
    /// slot owns and pushes that list's id. The slot's list is built once with room for
    /// `n`, so this never allocates.
    ListBuild(SlotId, u8),
    /// Assignment to a list or point slot: pops a list id and copies that list's elements
    /// into the list the slot owns (value semantics: the two never share elements after).
    /// The lowering turns every `Store` into a list slot into this.
    ListSet(SlotId),
    /// `xs[i] = v`: pops the value and the index; sets the element when the index is inside
    /// the slot's list (an index outside changes nothing).
    ListSetAt(SlotId),
    /// Calls the runtime with `argc` arguments; `arg` names what it works on (a memory, an
    /// enum, a list slot).
    Host(crate::ir::functions::HostFn, u32, u8),
}

/// A subtree instance: its path and its blackboard's slots (for traces and `--bb`).
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    pub path: String,
    pub tree: String,
}

/// One agent's tick program (or the main tree of a file without agents).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AgentProgram {
    pub name: String,
    /// Ticks per second.
    pub rate_hz: f64,
    pub slots: Vec<Slot>,
    pub scopes: Vec<Scope>,
    /// The node table in BehaviorTree.CPP uid order: node `i` has uid `i + 1`.
    pub nodes: Vec<Node>,
    pub children: Vec<NodeId>,
    pub conditions: Vec<Conditions>,
    pub code: Vec<Op>,
    /// The root of the main tree, if the agent has one.
    pub root: Option<NodeId>,
    /// The process phase, run every tick before the tree: hormones and `let`s in dependency
    /// order, `update`, `on` handlers, drives.
    pub process: Code,
    /// The devices the agent reads and drives.
    pub devices: Vec<Device>,
    /// Drives, so the runtime can report their changes.
    pub drives: Vec<DriveInfo>,
    /// Emotion machines, so the runtime can report their changes (their dynamics are part
    /// of `process`).
    pub machines: Vec<MachineInfo>,
    /// Emotional memories (`memory feelings keyed by place { .. }`).
    pub memories: Vec<MemorySpec>,
    /// Constructs this agent uses that have no run-time semantics yet: the runtime refuses
    /// to run them rather than ignore them.
    pub pending: Vec<(String, crate::span::Span)>,
    /// Recruitment blocks (seed 002), in written order.
    pub recruitments: Vec<RecruitSpec>,
    /// The agent's own components (seed 001), in written order; the file's top-level ones
    /// are `Program::components`.
    pub components: Vec<ComponentSpec>,
    /// Extra roots in the node table besides `root`: the trees behaviour modules run, each
    /// instantiated once for its module.
    pub roots: Vec<TreeRoot>,
    /// The behaviour arbiter (seed 004), when the agent has behaviour modules.
    pub behaviors: Option<Behaviors>,
}

/// How a recruitment block answers HELP (responder side) and chooses among ACCEPTs
/// (requester side), after seed 002.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Answer when SHAME exceeds the threshold; choose the least arrival time.
    Affective,
    /// Answer every HELP; choose the least arrival time.
    Greedy,
    /// Answer every HELP; choose any accepter at random.
    Random,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Affective => "affective",
            Strategy::Greedy => "greedy",
            Strategy::Random => "random",
        }
    }
}

/// `recruitment help { .. }`: the settings the requester's and the responders' sides of the
/// protocol use. Defaults are the seed's values.
#[derive(Clone, Debug, PartialEq)]
pub struct RecruitSpec {
    /// Blocks of the same name in different agents talk to each other.
    pub name: String,
    pub strategy: Strategy,
    /// `t`: SHAME must exceed it to answer.
    pub threshold: f64,
    /// `c + d(D)` as code over `distance` (empty: the seed's `0.2 + 0.5 / distance`).
    pub ignore_cost: Code,
    /// The slot the runtime writes `D` (world units) into before running `ignore_cost`.
    pub distance: Option<SlotId>,
    /// `k`: SHAME lost per millisecond between HELPs.
    pub decay_per_ms: f64,
    /// How often a requester repeats HELP while nobody accepts.
    pub resend_ms: f64,
    /// How long a responder owns the task after taking over.
    pub lease_ms: f64,
    /// The percept a responder must have: a sensor's name or its driver's.
    pub requires: Option<String>,
    /// Where `requires` names it, for diagnostics.
    pub requires_span: crate::span::Span,
}

impl RecruitSpec {
    /// The seed's parameters: affective, t = 0.75, k = 0.005/s, HELP every 3 s, a 30 s lease.
    pub fn seed_defaults(name: &str) -> RecruitSpec {
        RecruitSpec {
            name: name.to_string(),
            strategy: Strategy::Affective,
            threshold: 0.75,
            ignore_cost: Code::default(),
            distance: None,
            decay_per_ms: 0.005 / 1000.0,
            resend_ms: 3000.0,
            lease_ms: 30_000.0,
            requires: None,
            requires_span: crate::span::Span::DUMMY,
        }
    }
}

/// `component lidar { heartbeat 100ms; timeout 300ms; restart 3 within 10s; .. }` (seed 001).
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentSpec {
    pub name: String,
    pub heartbeat_ms: f64,
    /// Silence longer than this marks the component failed.
    pub timeout_ms: f64,
    /// Restarts allowed within `restart_window_ms` (0: never restarted).
    pub restarts: u32,
    pub restart_window_ms: f64,
    /// How long a restarted instance takes to come up on its new host before its first
    /// heartbeat (`startup 20s;`; seed 001: loading the speech models): 0 when not declared.
    pub startup_ms: f64,
    /// The registry's last call to an instance it has found silent before it takes it out and
    /// starts recovery (`confirm 1s;`; ADE: `isUp` with `DEF_RECOVERYTIMEOUT`): 0 when not
    /// declared.
    pub confirm_ms: f64,
    /// How long finding out that a host does not answer takes, for each such host the search
    /// for a host to restart on passes over (`lookup 1s;`; ADE: the ping of
    /// `ADEHostInfo.reachable`, given up after 1 s): 0 when not declared.
    pub lookup_ms: f64,
    /// Components that can take over, in preference order.
    pub redundant: Vec<String>,
    /// The hardware it uses.
    pub device: Option<String>,
    /// The declared leaves whose calls it serves (`serves Listen, ChatBot;`): a call of one
    /// fails while no instance serves the component's users, and over a network it goes to
    /// the host that runs the serving instance.
    pub serves: Vec<String>,
}

impl ComponentSpec {
    /// A component with only a name: a heartbeat a second, failed after three missed ones.
    pub fn named(name: &str) -> ComponentSpec {
        ComponentSpec {
            name: name.to_string(),
            heartbeat_ms: 1000.0,
            timeout_ms: 3000.0,
            restarts: 0,
            restart_window_ms: 0.0,
            startup_ms: 0.0,
            confirm_ms: 0.0,
            lookup_ms: 0.0,
            redundant: Vec::new(),
            device: None,
            serves: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceRole {
    Sensor,
    Event,
    Actuator,
}

/// `sensor light: num = ads1115(bus: 1, ...)`: a member bound to a driver.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    pub role: DeviceRole,
    /// The member's name.
    pub name: String,
    /// The slot a sensor or event writes (actuators have none).
    pub slot: Option<SlotId>,
    /// The driver: `ads1115`, `camera_label`, `gpio_edge`, ...
    pub driver: String,
    pub args: Vec<(String, DeviceArg)>,
    /// The driver call in the source (the member's name for an event without a source), so
    /// the runtime can say which declaration a device it cannot open belongs to.
    pub span: crate::span::Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeviceArg {
    Num(f64),
    Str(String),
    /// A bare name (`edge: rising`, `robot: refiller`).
    Name(String),
}

/// An emotional memory's configuration (LANGUAGE.md §4.6, seed 003).
#[derive(Clone, Debug, PartialEq)]
pub struct MemorySpec {
    pub name: String,
    /// The variable it is keyed by (`memory feelings keyed by place`), when the key is one.
    pub key: Option<SlotId>,
    /// Short-term capacity.
    pub size: usize,
    /// Weights of the short-term elements, most recent first.
    pub weights: Vec<f64>,
    /// Retrospection: scores drift by `2 / (1 + exp(-gain (s - center))) - 1`.
    pub gain: f64,
    pub center: f64,
    /// Familiarity (hot index) of a new trace, its gain on rehearsal and association, and
    /// its decay when new knowledge arrives.
    pub familiarity: f64,
    pub familiarity_gain: f64,
    pub familiarity_decay: f64,
    /// Path choice: a remembered path scoring below this is rejected.
    pub threshold: f64,
    /// The long-term store's file, kept across runs.
    pub persist: Option<String>,
    /// Where the program names that file (for errors about it).
    pub persist_span: crate::span::Span,
}

impl Default for MemorySpec {
    fn default() -> Self {
        MemorySpec {
            name: String::new(),
            key: None,
            size: 7,
            weights: vec![0.3, 0.21, 0.15, 0.12, 0.09, 0.06, 0.06],
            gain: 0.2,
            center: 50.0,
            familiarity: 22.0,
            familiarity_gain: 10.0,
            familiarity_decay: 1.0,
            threshold: 25.0,
            persist: None,
            persist_span: crate::span::Span::DUMMY,
        }
    }
}

/// An emotion machine (`emotions waiter: WaiterEmotion = Happy { .. }`).
#[derive(Clone, Debug, PartialEq)]
pub struct MachineInfo {
    pub name: String,
    /// The slot holding the current state (an enum variant index).
    pub state: SlotId,
    /// The slot holding the intensity, 0..1.
    pub intensity: SlotId,
    /// For each state (by variant index), the causal chain of the `emotion` declared with
    /// its name, if any.
    pub causes: Vec<Option<String>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DriveInfo {
    pub name: String,
    pub slot: SlotId,
    pub intention: Option<SlotId>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub agents: Vec<AgentProgram>,
    pub enums: Vec<EnumInfo>,
    pub leaves: Vec<LeafInfo>,
    pub worlds: Vec<WorldSpec>,
    /// Interned strings; symbol `i` is `strings[i]`. Symbol 0 is the empty string.
    pub strings: Vec<String>,
    /// Initial contents of list slots: a list slot's `init` indexes this.
    pub lists: Vec<Vec<f64>>,
    /// The tree a file without agents runs (its program is `agents[0]`).
    pub main_tree: Option<String>,
    /// Top-level components, shared by every agent of the file (seed 001).
    pub components: Vec<ComponentSpec>,
}

impl Program {
    /// The symbol of a string, if the program has it.
    pub fn symbol(&self, s: &str) -> Option<SymbolId> {
        self.strings
            .iter()
            .position(|x| x == s)
            .map(|i| i as SymbolId)
    }

    /// The symbol of a string, added to the program's strings if it has none: a value given
    /// on the command line (`--bb place=Z`, `--leaf-out`) that the program never spells.
    pub fn intern(&mut self, s: &str) -> SymbolId {
        match self.symbol(s) {
            Some(i) => i,
            None => {
                self.strings.push(s.to_string());
                (self.strings.len() - 1) as SymbolId
            }
        }
    }
}
