//! What a run is asked to do: how many ticks, which world and agents, the seed, what foreign
//! leaves return, the engine, and how simulated time advances between ticks.

use crate::jit::EngineKind;
use affect_compiler::ir::program::Status;

/// How the run's schedule advances between ticks. The schedule decides when each tick is
/// due; a [`Clock`](super::Clock) decides how the run waits for that moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pacing {
    /// Every agent ticks at its own rate.
    Fixed,
    /// BehaviorTree.CPP's `tree.sleep(ms)` between ticks: a timer that fires wakes the tree
    /// early. Used to compare traces with the real library.
    SleepBetweenTicks { ms: f64 },
}

#[derive(Clone, Debug)]
pub struct RunConfig {
    pub ticks: u64,
    /// Seeds every random stream of the run: the world's (guests, random events) and the
    /// agents'. The CLI passes the world's `seed` unless `--seed` is given.
    pub seed: u64,
    /// Run only this agent (a program's name or an instance name like `UGV#2`); the others
    /// do not run, and messages to them are dropped.
    pub agent: Option<String>,
    /// What foreign leaves without an override return.
    pub leaf_default: Status,
    /// `--leaf KEY=S1,S2,..` and `--leaf-cycle KEY=S1,S2,..`: KEY is a node path, a label
    /// or a declared leaf name; each instance plays the statuses one per call, repeating
    /// the last (or, cycling, starting over).
    pub leaves: Vec<LeafScript>,
    /// `--leaf-out NODE.PORT=VALUE`: what the stand-ins write to their out ports.
    pub leaf_outs: Vec<LeafOut>,
    /// `--bb KEY=VALUE` on the root blackboard.
    pub bb: Vec<(String, String)>,
    pub pacing: Pacing,
    /// The world to run in (default: the program's only world).
    pub world: Option<String>,
    /// Where memories' `persist` files are read and written; `None` keeps them in memory.
    pub persist_dir: Option<std::path::PathBuf>,
    /// Also save the memories that persist while the run goes on, when they changed, at
    /// most this often (wall time): a process killed mid-run loses no more than that much
    /// learning. `None`: only at the end.
    pub memory_checkpoint: Option<std::time::Duration>,
    /// Memory files already read (by `--record`, which keeps their bytes): the run takes
    /// them from these bytes instead of reading them again.
    pub memories_read: crate::affect::persist::ReadAhead,
    /// The engine that runs the tick program. `Jit` falls back to the interpreter where
    /// there is no JIT (32-bit ARM) or compiling fails, and says so in the trace (a `log`
    /// event) and in each summary's `fallback`. The interpreter is the reference.
    pub engine: EngineKind,
    /// The code cache's directory (`jit::cache`), for `Jit` and `Tiered`; `None` compiles
    /// every time (`--no-code-cache`, and the default of a run built in code).
    pub code_cache: Option<std::path::PathBuf>,
    /// `Tiered` only, for tests: wait for the compiled code before the run's agent tick of
    /// this number (counted from 0 over all instances), so the switch from the interpreter
    /// happens exactly there. `None` switches at the first tick boundary after the code is
    /// ready, whenever that is; a run's results are the same either way.
    pub tier_at: Option<u64>,
    /// Wraps each foreign node's implementation as agents are built (Groot 2 hooks).
    pub wrap_leaves: Option<crate::leaf::LeafWrap>,
    /// Hooks around the other nodes' ticks (Groot 2 hooks on controls, decorators,
    /// SubTrees, scripts). Set, the run ticks in the interpreter (`node_hooks`).
    pub hook_nodes: Option<crate::node_hooks::NodeHookFn>,
    /// Leaves implemented in Rust by the user's own crate (docs/custom-nodes.md).
    pub nodes: crate::nodes::NodeRegistry,
    /// Run one agent on its robot's devices (`--hardware`; docs/raspberry-pi.md).
    pub hardware: Option<crate::hardware::HardwareConfig>,
    /// Measure every tick on the wall clock and write `timing` events (`--hardware`,
    /// `--realtime`).
    pub timing: bool,
    /// The robot's device calls recorded (`--record`) or replayed (`affect replay`).
    pub recording: Option<crate::tape::Recording>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            ticks: 100,
            seed: 0,
            agent: None,
            leaf_default: Status::Success,
            leaves: Vec::new(),
            leaf_outs: Vec::new(),
            bb: Vec::new(),
            pacing: Pacing::Fixed,
            world: None,
            persist_dir: None,
            memory_checkpoint: None,
            memories_read: Default::default(),
            engine: EngineKind::Interp,
            code_cache: None,
            tier_at: None,
            wrap_leaves: None,
            hook_nodes: None,
            nodes: crate::nodes::NodeRegistry::default(),
            hardware: None,
            timing: false,
            recording: None,
        }
    }
}

pub use crate::leaf::{LeafOut, LeafScript};

/// Parses `running,success` as `--leaf` takes it.
pub fn parse_statuses(s: &str) -> Option<Vec<Status>> {
    s.split(',').map(|p| parse_status(p.trim())).collect()
}

/// Parses a status name as `--leaf` and `--leaf-default` take it.
pub fn parse_status(s: &str) -> Option<Status> {
    Some(match s.to_ascii_lowercase().as_str() {
        "success" => Status::Success,
        "failure" => Status::Failure,
        "running" => Status::Running,
        _ => return None,
    })
}
