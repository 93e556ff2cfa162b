//! Timing the tick program (`affect bench`): ticks of the main tree, repeated, with the
//! minimum, median and maximum per tick and per node tick. Benchmarks measure; tests never
//! time anything.

use crate::interp::Machine;
use crate::jit::tier::Pending;
use crate::jit::CompileStats;
use crate::leaf::{LeafTable, StandIn};
use affect_compiler::ir::program::{AgentProgram, NodeKind, Program, Status};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(mut xs: Vec<f64>) -> Stats {
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let median = if n == 0 {
            f64::NAN
        } else if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        Stats {
            min: xs.first().copied().unwrap_or(f64::NAN),
            median,
            max: xs.last().copied().unwrap_or(f64::NAN),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({"min": round(self.min), "median": round(self.median), "max": round(self.max)})
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[derive(Clone, Debug)]
pub struct BenchResult {
    pub nodes: usize,
    /// Node ticks per root tick, measured (every node of a benchmark tree ticks once).
    pub node_ticks_per_tick: f64,
    pub ticks: u64,
    pub state_bytes: usize,
    pub ns_per_tick: Stats,
    pub ns_per_node: Stats,
    /// The root blackboard at the end: (name, value).
    pub blackboard: Vec<(String, f64)>,
    /// When the first tick ended.
    pub first_tick_done: Instant,
}

/// Something that ticks the main tree: the interpreter, or JIT-compiled code.
pub trait Engine {
    fn tick(&mut self);
    fn state_bytes(&self) -> usize;
    fn node_ticks(&self) -> u64;
    fn slots(&self) -> Vec<f64>;
    fn set_slot(&mut self, slot: usize, v: f64);
    /// Called after the warm-up, before the timed ticks: an engine that is still changing
    /// (the tiered engine, before its code is ready) settles.
    fn settle(&mut self) {}
    /// What the tiered engine did: `None` for the others.
    fn tier_report(&self) -> Option<TierReport> {
        None
    }
}

/// When the tiered engine's compiled code took over, and what it was.
#[derive(Clone, Debug)]
pub struct TierReport {
    pub ready_at: Option<Instant>,
    pub stats: Option<CompileStats>,
    /// What the code cache said, if there is one.
    pub cache: Option<&'static str>,
    /// Why the JIT never took over, if it did not.
    pub fallback: Option<String>,
}

/// The interpreter as an engine; foreign nodes succeed.
pub fn interpreter<'p>(program: &'p Program, agent: &'p AgentProgram) -> Machine<'p> {
    let mut leaves = LeafTable::new(agent.nodes.len());
    for (i, n) in agent.nodes.iter().enumerate() {
        if let NodeKind::Foreign { .. } = n.kind {
            leaves.set(i as u32, Box::new(StandIn::new(vec![Status::Success])));
        }
    }
    let mut m = Machine::new(program, agent, leaves);
    m.record = false;
    m
}

impl Engine for Machine<'_> {
    fn tick(&mut self) {
        self.process();
        self.tick_tree();
        self.transitions.clear();
    }

    fn state_bytes(&self) -> usize {
        Machine::state_bytes(self)
    }

    fn node_ticks(&self) -> u64 {
        self.node_ticks
    }

    fn slots(&self) -> Vec<f64> {
        self.slots.clone()
    }

    fn set_slot(&mut self, slot: usize, v: f64) {
        self.write(slot as u32, v);
    }
}

/// Ticks an engine `ticks` times (after a warm-up), per repeat; returns the statistics. The
/// blackboard is read from `agent`'s root slots at the end.
pub fn measure(
    engine: &mut dyn Engine,
    agent: &AgentProgram,
    ticks: u64,
    repeats: u32,
) -> BenchResult {
    // Warm-up, and node ticks per tick measured on it.
    let warm = (ticks / 10).max(10);
    let before = engine.node_ticks();
    engine.tick();
    let first_tick_done = Instant::now();
    for _ in 1..warm {
        engine.tick();
    }
    engine.settle();
    let per_tick = (engine.node_ticks() - before) as f64 / warm as f64;
    let mut per_tick_ns = Vec::new();
    for _ in 0..repeats.max(1) {
        let t0 = Instant::now();
        for _ in 0..ticks {
            engine.tick();
        }
        per_tick_ns.push(t0.elapsed().as_nanos() as f64 / ticks as f64);
    }
    let per_node: Vec<f64> = per_tick_ns.iter().map(|t| t / per_tick.max(1.0)).collect();
    let slots = engine.slots();
    let blackboard = agent
        .slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.scope == 0 && s.visible)
        .map(|(i, s)| (s.name.clone(), slots[i]))
        .collect();
    BenchResult {
        nodes: agent.nodes.len(),
        node_ticks_per_tick: per_tick,
        ticks: warm + ticks * repeats.max(1) as u64,
        state_bytes: engine.state_bytes(),
        ns_per_tick: Stats::of(per_tick_ns),
        ns_per_node: Stats::of(per_node),
        blackboard,
        first_tick_done,
    }
}

/// The tiered engine: the interpreter ticks while the JIT compiles on a background thread
/// (`jit::tier`), and the compiled code takes over at the first tick boundary after it is
/// ready. The compiler thread starts right after the first tick: the first tick needs no
/// compiled code, and starting a thread, and sharing the two cores of a small machine with
/// Cranelift, would only delay it.
pub struct Tiered<'p> {
    pub machine: Machine<'p>,
    program: &'p Program,
    agent: &'p AgentProgram,
    /// What the compiler thread needs, until it starts.
    start: Option<(Arc<Program>, usize, Option<std::path::PathBuf>)>,
    pending: Option<Pending>,
    report: TierReport,
}

impl<'p> Tiered<'p> {
    /// `program` is shared with the compiler thread; `agent` is its agent number `k`.
    pub fn new(
        program: &'p Arc<Program>,
        k: usize,
        cache: Option<std::path::PathBuf>,
    ) -> Tiered<'p> {
        let agent = &program.agents[k];
        let machine = interpreter(program, agent);
        Tiered {
            machine,
            program,
            agent,
            start: Some((program.clone(), k, cache)),
            pending: None,
            report: TierReport {
                ready_at: None,
                stats: None,
                cache: None,
                fallback: None,
            },
        }
    }

    /// Starts the compiler thread, once.
    fn start(&mut self) {
        if let Some((program, k, cache)) = self.start.take() {
            let record = self.machine.record;
            self.pending = Some(crate::jit::tier::spawn(program, k, record, cache));
        }
    }

    /// Installs the code if it is ready (or, `wait`ing, once it is).
    fn adopt(&mut self, wait: bool) {
        let Some(p) = &mut self.pending else { return };
        let Some(ready) = (if wait { Some(p.wait()) } else { p.poll() }) else {
            return;
        };
        self.pending = None;
        self.report.cache = ready.cache;
        let linked = (ready.code)
            .and_then(|c| crate::jit::tier::link(self.program, self.agent, c))
            .and_then(|c| {
                let c = Rc::new(c);
                self.machine.install_jit(c.clone()).map(|_| c)
            });
        match linked {
            Ok(c) => {
                self.report.ready_at = Some(Instant::now());
                self.report.stats = Some(c.stats);
            }
            Err(e) => self.report.fallback = Some(e.to_string()),
        }
    }
}

impl Engine for Tiered<'_> {
    fn tick(&mut self) {
        self.adopt(false);
        Engine::tick(&mut self.machine);
        self.start();
    }

    fn state_bytes(&self) -> usize {
        self.machine.state_bytes()
    }

    fn node_ticks(&self) -> u64 {
        self.machine.node_ticks
    }

    fn slots(&self) -> Vec<f64> {
        self.machine.slots.clone()
    }

    fn set_slot(&mut self, slot: usize, v: f64) {
        self.machine.write(slot as u32, v);
    }

    fn settle(&mut self) {
        self.start();
        self.adopt(true);
    }

    fn tier_report(&self) -> Option<TierReport> {
        Some(self.report.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats() {
        let s = Stats::of(vec![3.0, 1.0, 2.0]);
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        assert_eq!(Stats::of(vec![4.0, 1.0]).median, 2.5);
    }
}
