//! The JIT: the whole tick program of an agent — tree ticks with their expressions and
//! conditions, halts, and the process phase (hormones, lets, update, handlers, drives) —
//! compiled to native code with Cranelift (x86_64 and aarch64).
//!
//! Compiled code works on the interpreter's own state (`Machine`'s arrays, seen through the
//! `#[repr(C)]` [`View`]), so installing it into a machine switches the engine and nothing
//! else: the run loop, timers between ticks, traces and the blackboard stay the machine's.
//! It calls into Rust only for foreign leaves, runtime host calls (memory, world, lists)
//! and math functions without a machine instruction. Node semantics follow
//! `interp/` (nodes, controls, the decorator families, halt) statement for statement; the interpreter is the reference, and
//! `tests/jit_differential.rs` compares the two on random programs.
//!
//! Files: `plan` (analysis and the cut into functions), `emit` (shared builder helpers),
//! `tick` (execute_tick, conditions, leaves), `controls` and `decorators` (the other nodes),
//! `wide` (controls with many children, as loops), `share` (units of one shape sharing a
//! function), `halt` (halts), `expr` (expressions),
//! `view` (the state view), `host` (the Rust functions compiled code calls), `compile` (the
//! driver), `tier` (the background compiler), `cache` (the on-disk code cache) and `key`
//! (what of a program its key covers).

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub mod cache;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod compile;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod controls;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod emit;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod expr;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod families;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod halt;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod host;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod key;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod plan;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod share;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod subtree;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod tick;
pub mod tier;
mod view;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod wide;

use crate::interp::{Machine, Native};
use affect_compiler::ir::functions::{Function, HostFn};
use affect_compiler::ir::program::{AgentProgram, NodeId, NodeKind, Program, Status};
use std::rc::Rc;
pub(crate) use view::{UnitEntry, View};

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub use compile::Artifact;
/// Generated code before linking; there is none where Cranelift has no backend.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub enum Artifact {}

/// Why a program could not be compiled; the runtime then runs the interpreter.
#[derive(Clone, Debug, PartialEq)]
pub enum JitError {
    /// No JIT for this machine or this program.
    Unsupported(String),
    /// Cranelift refused the generated code (a bug in the JIT).
    Codegen(String),
}

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JitError::Unsupported(s) => write!(f, "{s}"),
            JitError::Codegen(s) => write!(f, "code generation failed: {s}"),
        }
    }
}

impl std::error::Error for JitError {}

/// Which engine runs a machine's program. A machine runs `Interp` or `Jit`; `Tiered` is a
/// choice for a run: the interpreter from the first tick while the JIT compiles in the
/// background, then the JIT from the tick boundary after its code is ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    Interp,
    Jit,
    Tiered,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Interp => "interp",
            EngineKind::Jit => "jit",
            EngineKind::Tiered => "tiered",
        }
    }
}

pub(crate) type TickFn = unsafe extern "C" fn(*mut View) -> i32;
/// A unit's halt function: the node, then the unit's node, edge, slot and table offsets
/// from the representative of its shape (`share.rs`).
pub(crate) type HaltFn = unsafe extern "C" fn(*mut View, i32, i32, i32, i32, i32);
pub(crate) type ProcessFn = unsafe extern "C" fn(*mut View);

/// What compiling took and produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CompileStats {
    /// Native functions generated.
    pub functions: usize,
    /// Units (the tree's cut into pieces of native code).
    pub units: usize,
    /// Distinct unit tick functions: units of the same shape share one (`share.rs`).
    pub shapes: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
    /// Plan, code generation and linking, in milliseconds.
    pub compile_ms: f64,
}

/// An agent's compiled program. Share it between machines of the same agent with `Rc`.
pub struct Compiled {
    /// Owns the executable memory; freed on drop.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    module: Option<cranelift_jit::JITModule>,
    /// Which program it was compiled from (address and sizes), checked on install.
    agent_id: (usize, usize, usize, usize),
    /// Whether the code records status changes; a machine whose `record` differs runs the
    /// interpreter instead (the code has no recording paths, or has them).
    record: bool,
    /// The entry of each tree root: ticks it once and resets it when it completes.
    roots: Vec<(NodeId, TickFn)>,
    /// The halt function of each node's unit, with the unit's offsets.
    halts: Vec<Option<(HaltFn, [i32; 4])>>,
    process: Option<ProcessFn>,
    /// Every unit's functions and root, which wide nodes read through the view.
    units: Vec<UnitEntry>,
    /// The parameter table of functions several units share (`share.rs`).
    table: Vec<u64>,
    host_fns: Vec<HostFn>,
    functions: Vec<Function>,
    pub stats: CompileStats,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        if let Some(m) = self.module.take() {
            // SAFETY: every function pointer into this memory lives in `self`, and machines
            // hold the `Compiled` through an `Rc`, so no code can run after this drop.
            unsafe { m.free_memory() };
        }
    }
}

fn identity(agent: &AgentProgram) -> (usize, usize, usize, usize) {
    (
        agent as *const AgentProgram as usize,
        agent.nodes.len(),
        agent.slots.len(),
        agent.code.len(),
    )
}

/// Whether this build has a JIT for the machine it runs on.
pub fn supported() -> Result<(), JitError> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        cranelift_native::builder().map(|_| ()).map_err(|e| {
            JitError::Unsupported(format!("no Cranelift backend for this machine: {e}"))
        })
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Err(JitError::Unsupported(format!(
            "Cranelift has no backend for {}",
            std::env::consts::ARCH
        )))
    }
}

/// Compiles an agent's tick program for machines that record status changes (as `run`'s
/// machines do).
pub fn compile(program: &Program, agent: &AgentProgram) -> Result<Compiled, JitError> {
    compile_with(program, agent, true)
}

/// Compiles an agent's tick program; `record` says whether the machines it runs on record
/// status changes (`Machine::record`; benchmarks do not).
pub fn compile_with(
    program: &Program,
    agent: &AgentProgram,
    record: bool,
) -> Result<Compiled, JitError> {
    preflight(program, agent)?;
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        compile::compile(program, agent, record)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (program, agent, record);
        supported().map(|_| unreachable!("no backend"))
    }
}

/// Compiles an agent's tick program through the code cache in `cache` (loads it when an
/// entry checks; otherwise generates it and stores it); also says what the cache found
/// (`None` without a cache).
pub fn compile_cached(
    program: &Program,
    agent: &AgentProgram,
    record: bool,
    cache: Option<std::path::PathBuf>,
) -> (Result<Compiled, JitError>, Option<&'static str>) {
    if cache.is_none() {
        return (compile_with(program, agent, record), None);
    }
    let t0 = std::time::Instant::now();
    let ready = tier::generate(
        program,
        agent,
        record,
        cache,
        &std::sync::atomic::AtomicBool::new(false),
    );
    let code = ready.code.and_then(|c| tier::link(program, agent, c));
    let code = code.map(|mut c| {
        c.stats.compile_ms = t0.elapsed().as_secs_f64() * 1000.0;
        c
    });
    (code, ready.cache)
}

/// The code cache's default directory (`cache::default_dir`); none where there is no JIT.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        cache::default_dir()
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}

/// What is refused before any code is generated: a JIT made to fail (`AFFECT_JIT_FAIL`, for
/// tests of the fallback), no backend, nodes too wide.
pub(crate) fn preflight(program: &Program, agent: &AgentProgram) -> Result<(), JitError> {
    if std::env::var_os("AFFECT_JIT_FAIL").is_some() {
        // Lets tests see the fallback to the interpreter on a machine that has a JIT.
        return Err(JitError::Unsupported("AFFECT_JIT_FAIL is set".into()));
    }
    supported()?;
    too_wide(program, agent)
}

/// The most children of one node the JIT compiles for the nodes it unrolls (if/while, try,
/// switch, decorators: their code grows with the square of their width), and the most ports
/// one call binds (a call binding 200,000 ports took 500 MB to compile); a wider program
/// runs in the interpreter. Sequences, fallbacks and parallels of any width compile, as
/// loops over their children (`plan::WIDE`).
pub const MAX_CHILDREN: usize = 256;

fn too_wide(program: &Program, agent: &AgentProgram) -> Result<(), JitError> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    let loops = |k: &NodeKind| plan::loops_over_children(program, k);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let loops = |_: &NodeKind| {
        let _ = program;
        true
    };
    let widest = agent
        .nodes
        .iter()
        .filter(|n| !loops(&n.kind))
        .map(|n| n.children.1 as usize)
        .max()
        .unwrap_or(0);
    if widest > MAX_CHILDREN {
        return Err(JitError::Unsupported(format!(
            "a node has {widest} children, and the JIT compiles nodes of this kind with at \
             most {MAX_CHILDREN} (its memory grows with the square of their width)"
        )));
    }
    let ports = agent
        .nodes
        .iter()
        .map(|n| match &n.kind {
            NodeKind::Foreign { ports, .. } => ports.len(),
            NodeKind::SubTree { inputs } => inputs.len(),
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    if ports > MAX_CHILDREN {
        return Err(JitError::Unsupported(format!(
            "a call binds {ports} ports, and the JIT compiles calls of at most {MAX_CHILDREN} \
             (its memory grows with every port)"
        )));
    }
    Ok(())
}

/// Each entry declines when the machine's `record` differs from the code's.
impl Native for Compiled {
    fn process(&self, m: &mut Machine) -> bool {
        if m.record != self.record {
            return false;
        }
        let Some(f) = self.process else { return true };
        m.with_view(&self.host_fns, &self.functions, |v| {
            // SAFETY: `f` is this module's process function (see `compile`), the module is
            // alive while `self` is, and `v` is a view of `m` valid for the call; the unit
            // table lives as long as `self`.
            unsafe {
                (*v).units = self.units.as_ptr();
                (*v).table = self.table.as_ptr();
                f(v)
            }
        });
        true
    }

    /// `None` also when the root was not compiled as one.
    fn tick_root(&self, m: &mut Machine, root: NodeId) -> Option<Status> {
        if m.record != self.record {
            return None;
        }
        let f = self.roots.iter().find(|(r, _)| *r == root)?.1;
        let s = m.with_view(&self.host_fns, &self.functions, |v| {
            // SAFETY: as in `process`.
            unsafe {
                (*v).units = self.units.as_ptr();
                (*v).table = self.table.as_ptr();
                f(v)
            }
        });
        Some(Status::from_index(s as u8))
    }

    /// False also when the node has no compiled code.
    fn halt(&self, m: &mut Machine, n: NodeId) -> bool {
        if m.record != self.record {
            return false;
        }
        let Some(Some((f, [dn, de, ds, dk]))) = self.halts.get(n as usize).copied() else {
            return false;
        };
        m.with_view(&self.host_fns, &self.functions, |v| {
            // SAFETY: as in `process`; `n` is a node of the compiled program.
            unsafe {
                (*v).units = self.units.as_ptr();
                (*v).table = self.table.as_ptr();
                f(v, n as i32, dn, de, ds, dk)
            }
        });
        true
    }
}

impl Machine<'_> {
    /// Runs this machine's program with compiled code from now on. The code must have been
    /// compiled from this machine's agent program.
    pub fn install_jit(&mut self, code: Rc<Compiled>) -> Result<(), JitError> {
        if code.agent_id != identity(self.prog) {
            return Err(JitError::Unsupported(
                "the code was compiled from another program".into(),
            ));
        }
        self.native = Some(code as Rc<dyn Native>);
        Ok(())
    }

    /// Compiles this machine's program and installs it.
    pub fn compile_jit(&mut self, program: &Program) -> Result<Rc<Compiled>, JitError> {
        let code = Rc::new(compile_with(program, self.prog, self.record)?);
        self.install_jit(code.clone())?;
        Ok(code)
    }

    /// Which engine runs the program.
    pub fn engine(&self) -> EngineKind {
        if self.native.is_some() {
            EngineKind::Jit
        } else {
            EngineKind::Interp
        }
    }
}
