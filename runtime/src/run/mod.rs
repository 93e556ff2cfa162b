//! Running a program: agents tick at their rates on a clock (sense → process → act →
//! write), foreign nodes are bound to implementations, and everything observable goes to
//! the run's observers. The same program, world and seed give the same trace, bit for bit.
//!
//! A run is a [`Run`] made in steps: [`Run::new`] sets it up (`setup.rs`), [`Run::start`]
//! writes the initial state, each [`Run::step`] ticks the agent instance due next
//! (`tick.rs`) and reports what changed (`report.rs`), and [`Run::finish`] saves memories and
//! summarises. Between two steps the caller holds the run: that tick boundary is where a
//! driver stops on a signal, or hands over to a run of a new program. [`run`] does all the
//! steps on the simulated clock.

mod carry;
/// Public to the crate so the wall clock (`crate::realtime`) implements [`Clock`] without
/// importing the run.
pub(crate) mod clock;
mod config;
mod observer;
mod reload;
mod report;
mod scripted;
mod setup;
mod stand_ins;
mod tick;
mod timing;
mod values;

pub use clock::{Clock, SimClock};
pub use config::{parse_status, parse_statuses, LeafOut, LeafScript, Pacing, RunConfig};
pub use observer::{Flow, Observer, TickView};
pub use reload::{NotReloaded, Reloaded};
pub use setup::check_runnable;
pub use values::show_value;

use crate::affect::behavior::Arbiter;
use crate::affect::persist;
use crate::devices::sim::SharedWorld;
use crate::jit::EngineKind;
use crate::network::{Exchange, Network};
use crate::sim::mail::SharedMail;
use crate::sim::team::{SharedTeam, Team};
use crate::sim::{SenseErrors, SimAgent};
use crate::trace::{Event, TraceSink};
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::{AgentProgram, Program, Status};
use affect_compiler::span::Span;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What one agent did, for the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSummary {
    pub agent: String,
    pub ticks: u64,
    /// Transitions into IDLE, RUNNING, SUCCESS, FAILURE, SKIPPED.
    pub statuses: [u64; 5],
    pub root: Status,
    /// The root blackboard at the end: (name, value as text).
    pub variables: Vec<(String, String)>,
    /// Foreign nodes that ran as stand-ins, by declared name.
    pub stand_ins: Vec<String>,
    /// Out ports of stand-ins that the program reads and nothing wrote during the run.
    pub unwritten: Vec<UnwrittenOutput>,
    /// The engine that ran the agent.
    pub engine: EngineKind,
    /// Why the JIT was asked for but the interpreter ran, if it was.
    pub fallback: Option<String>,
    /// The run-time error that stopped the agent's tree, if one did: a read of a variable
    /// that holds no value (the trace's `error` event).
    pub error: Option<String>,
}

/// A stand-in's out port that the program reads and nothing wrote during the run: a check
/// on its variable never sees a new value (`--leaf-out` gives the stand-in one to write).
#[derive(Clone, Debug, PartialEq)]
pub struct UnwrittenOutput {
    /// The declared name of the foreign node.
    pub leaf: String,
    pub port: String,
    /// The variable the port is bound to.
    pub variable: String,
}

/// Runs a program on the simulated clock and writes its trace; returns one summary per
/// agent instance. `progress` hears the percentage of agent ticks made.
pub fn run(
    program: &Program,
    config: &RunConfig,
    sink: &mut dyn TraceSink,
    progress: impl FnMut(u64),
) -> Result<Vec<AgentSummary>, Vec<Diagnostic>> {
    let mut observer = SinkWithProgress { sink, progress };
    Run::new(program, config)?.run_to_end(&mut SimClock, &mut observer)
}

/// Runs one agent (`config.agent`) of a program as one robot of a team spread over
/// processes: `clock` paces its ticks on the wall clock (the team's, see
/// [`crate::realtime::WallClock::at`]) and `net` carries its messages (see [`Network`]).
/// The program runs exactly as in [`run`]; only the clock and the transport differ.
/// `observer` watches it as it watches any run (the trace, Groot 2, a `.btlog`, a record).
pub fn run_networked(
    program: &Program,
    config: &RunConfig,
    observer: &mut dyn Observer,
    net: Box<dyn Network>,
    clock: &mut dyn Clock,
) -> Result<Vec<AgentSummary>, Vec<Diagnostic>> {
    Run::build(program, config, Some(net))?.run_to_end(clock, observer)
}

/// A plain trace sink as an observer, with a progress callback.
struct SinkWithProgress<'s, F> {
    sink: &'s mut dyn TraceSink,
    progress: F,
}

impl<F: FnMut(u64)> TraceSink for SinkWithProgress<'_, F> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> std::io::Result<()> {
        self.sink.line(tick, t_ms, agent, ev)
    }
}

impl<F: FnMut(u64)> Observer for SinkWithProgress<'_, F> {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        (self.progress)(t.done * 100 / t.total.max(1));
        Flow::Continue
    }
}

/// One agent instance being run.
struct Live<'p> {
    agent: SimAgent<'p>,
    /// When its next tick is due.
    next_ms: f64,
    ticks: u64,
    statuses: [u64; 5],
    root: Status,
    /// Slot values after the previous tick, to report changes; NaN for a variable that had
    /// no value (a `var` without an initial value, before tick 0), so its first value is
    /// reported whatever it is.
    last: Vec<f64>,
    /// The contents of each visible list variable after the previous tick (empty for the
    /// other slots), to report lists changed in place.
    lists: Vec<Vec<f64>>,
    /// The behaviour arbiter, when the agent has behaviour modules (seed 004).
    behavior: Option<Arbiter<'p>>,
    /// The write counter of each of the stand-ins' outputs nothing sets
    /// (`SimAgent::quiet_outputs`) when this instance started, to tell those never written.
    quiet_at_start: Vec<u32>,
    /// The run-time error that stopped this agent, if one did.
    error: Option<String>,
}

impl<'p> Live<'p> {
    fn new(agent: SimAgent<'p>, unset: &[bool]) -> Live<'p> {
        let program = agent.program;
        let last = (agent.machine.slots.iter().enumerate())
            .map(|(i, &v)| {
                if unset.get(i) == Some(&true) {
                    f64::NAN
                } else {
                    v
                }
            })
            .collect();
        let quiet_at_start = (agent.quiet_outputs.iter())
            .map(|q| agent.machine.writes_of(q.slot))
            .collect();
        let mut live = Live {
            quiet_at_start,
            error: None,
            last,
            lists: Vec::new(),
            next_ms: 0.0,
            ticks: 0,
            statuses: [0; 5],
            root: Status::Idle,
            behavior: program
                .behaviors
                .as_ref()
                .map(|b| Arbiter::new(b, &program.roots)),
            agent,
        };
        live.lists = tick::list_contents(&live);
        live
    }
}

/// A run in progress: its world, its agent instances and where each one is.
pub struct Run<'p> {
    program: &'p Program,
    config: &'p RunConfig,
    world: Option<SharedWorld>,
    /// Commands between robots (`SendCommand`, the world's `send`).
    mail: SharedMail,
    /// Recruitment and components.
    team: SharedTeam,
    /// A networked run's link to the rest of its team.
    net: Option<Box<dyn Network>>,
    live: Vec<Live<'p>>,
    /// Why the JIT was asked for but the interpreter runs, if it does.
    fallback: Option<String>,
    /// The tiered engine: the agent programs whose code is still being compiled.
    tiers: Vec<setup::Tier>,
    /// Agent ticks made, and how many the run makes in all.
    done: u64,
    total: u64,
    /// Device failures of the tick being made (reused, so a tick does not allocate).
    sense_errors: SenseErrors,
    /// The robot's devices, when the run is on hardware.
    hardware: Option<crate::hardware::Opened>,
    /// Wall-clock measurements of the ticks, when asked for.
    timer: Option<timing::TickTimer>,
    /// The instances with ticks left, by when their next tick is due: finding the next one
    /// costs log n instead of a scan of every instance, so a run's time stays linear in
    /// robots × ticks (10,000 robots).
    queue: BinaryHeap<Reverse<Due>>,
    /// The memory files read before the first tick, with the places each held: told at
    /// the start.
    memory_read: Vec<(std::path::PathBuf, usize)>,
    /// When the memories were last saved during the run, and what was saved
    /// (`RunConfig::memory_checkpoint`).
    /// (`None`: a checkpoint failed; only the end saves then.)
    checkpoint: (
        Option<std::time::Instant>,
        Vec<(String, Vec<persist::Stored>)>,
    ),
}

/// An instance's place in the schedule: when its next tick is due; ties go to the instance
/// spawned first.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Due {
    ms: f64,
    k: usize,
}

impl Eq for Due {}

impl Ord for Due {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.ms.total_cmp(&other.ms).then(self.k.cmp(&other.k))
    }
}

impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<'p> Run<'p> {
    /// Sets a run up: refuses what cannot run, builds the world and every instance that
    /// runs, compiles them when the JIT is asked for, and applies `--bb`. Nothing is
    /// written yet.
    pub fn new(program: &'p Program, config: &'p RunConfig) -> Result<Run<'p>, Vec<Diagnostic>> {
        Run::build(program, config, None)
    }

    fn build(
        program: &'p Program,
        config: &'p RunConfig,
        mut net: Option<Box<dyn Network>>,
    ) -> Result<Run<'p>, Vec<Diagnostic>> {
        check_runnable(program, config.agent.as_deref())?;
        let misfits = config.nodes.check(program);
        if !misfits.is_empty() {
            return Err(misfits);
        }
        let world = setup::build_world(program, config)?;
        let instances = setup::instances(program, config, world.as_ref());
        // Memory files are read, each once, before anything runs: damage, or a file that
        // could not be written back, stops the run now rather than after it.
        let memory_files = match &config.persist_dir {
            Some(dir) => Some(persist::check_files(
                instances.iter().map(|i| i.program),
                dir,
                &config.memories_read,
            )?),
            None => None,
        };
        let mut hardware = match &config.hardware {
            Some(h) => Some(crate::hardware::open_for_run(
                program,
                config.agent.as_deref(),
                h,
                world.is_some(),
                instances.iter().map(|i| i.program),
                config.recording.as_ref(),
            )?),
            None => None,
        };
        let mut sources: Vec<&dyn crate::leaf::LeafSource> = vec![&config.nodes];
        if let Some(h) = &hardware {
            sources.push(h);
        }
        let mut setup = setup::shared(program, config, &sources, memory_files.as_ref())?;
        // Networked: the recruitment protocol goes through the network's radio.
        if let (Some(n), Some(w)) = (&mut net, &world) {
            setup.team = Team::with_radio(config.seed, Some(n.radio(&w.borrow())));
            if let Some(calls) = n.calls() {
                setup.team.borrow_mut().set_calls(calls);
            }
        }
        let engines = setup::compile(program, config, &instances);
        let mut sims = Vec::new();
        for instance in instances {
            sims.push(setup::bind(
                program,
                config,
                &setup,
                world.as_ref(),
                instance,
                &engines,
            )?);
        }
        let mail = setup.mail;
        let team = setup.team;
        drop(sources);
        let mut live = Vec::new();
        for (mut sim, unset) in sims {
            // The robot's devices take the place of simulated ones.
            if let Some(h) = &mut hardware {
                h.attach(&mut sim);
            }
            live.push(Live::new(sim, &unset));
        }
        if live.is_empty() {
            return Err(setup::nothing_to_run(program, config, world.as_ref()));
        }
        // Networked: the world's other robots run elsewhere, and components beat over the
        // network.
        if let (Some(n), Some(w)) = (&net, &world) {
            for a in w.borrow().agents() {
                let p = program.agents.iter().find(|p| p.name == a.program);
                if let (Some(p), true) = (p, n.remote(&a.name)) {
                    mail.borrow_mut().register_remote(program, p, &a.name);
                }
            }
            team.borrow_mut().observe_components();
        }
        // With `--agent`, the others do not run, and messages to them are dropped.
        if let (Some(w), None) = (&world, &config.agent) {
            let undeliverable = scripted::undeliverable_sends(program, &w.borrow(), &mail.borrow());
            if !undeliverable.is_empty() {
                return Err(undeliverable);
            }
        }
        let queue = (0..live.len())
            .filter(|_| config.ticks > 0)
            .map(|k| {
                Reverse(Due {
                    ms: live[k].next_ms,
                    k,
                })
            })
            .collect();
        let memory_read = (memory_files.iter().flat_map(|f| f.read()))
            .map(|(p, n)| (p.to_path_buf(), n))
            .collect();
        Ok(Run {
            program,
            config,
            memory_read,
            checkpoint: (Some(std::time::Instant::now()), Vec::new()),
            world,
            mail,
            team,
            net,
            queue,
            total: config.ticks * live.len() as u64,
            fallback: engines.fallback,
            tiers: engines.tiers,
            done: 0,
            sense_errors: SenseErrors::new(),
            timer: config.timing.then(|| {
                let rate = live.first().map_or(10.0, |l| l.agent.program.rate_hz);
                let ticks = config.ticks.saturating_mul(live.len() as u64);
                timing::TickTimer::new(crate::sim::env::period_ms(rate), ticks)
            }),
            hardware,
            live,
        })
    }

    /// The instances that run, in spawn order: `UGV#2` for the second `UGV` a world spawns.
    pub fn agents(&self) -> impl Iterator<Item = &str> {
        self.live.iter().map(|l| l.agent.name.as_str())
    }

    /// The run's commands between robots. A driver that runs one agent per process hands
    /// it, between steps, what the other processes sent (`Mail::send_scripted`), and sends on
    /// what this agent sent (the `msg` events its observer hears).
    pub fn mail(&self) -> &SharedMail {
        &self.mail
    }

    /// Writes what a trace starts with: a warning when the JIT was asked for and the
    /// interpreter runs, then every visible root variable's initial value.
    pub fn start(&mut self, obs: &mut dyn Observer) {
        if let (Some(reason), Some(first)) = (&self.fallback, self.live.first()) {
            let _ = obs.line(
                0,
                0.0,
                &first.agent.name,
                &Event::Log {
                    level: "warn",
                    text: format!("the JIT is not available ({reason}); running the interpreter"),
                },
            );
        }
        // On the robot, what is not read from hardware is said at the start of the trace.
        if let (Some(h), Some(first)) = (&self.hardware, self.live.first()) {
            let world = self.world.as_ref().map_or(String::new(), |w| {
                format!(" in world {}", w.borrow().spec().name)
            });
            let devices = h.simulated.iter().filter(|(_, w)| w != "leaf");
            let devices = devices.map(|(n, w)| (n.as_str(), w.as_str()));
            let leaves = first.agent.simulated_leaves.iter();
            for text in &h.warnings {
                let _ = obs.line(
                    0,
                    0.0,
                    &first.agent.name,
                    &Event::Log {
                        level: "warn",
                        text: text.clone(),
                    },
                );
            }
            for (name, what) in devices.chain(leaves.map(|n| (n.as_str(), "leaf"))) {
                let _ = obs.line(
                    0,
                    0.0,
                    &first.agent.name,
                    &Event::Log {
                        level: "warn",
                        text: format!(
                            "`{name}` ({what}) is simulated{world} (--sim-device), not hardware"
                        ),
                    },
                );
            }
        }
        for (path, places) in &self.memory_read {
            obs.memory_read(path, *places);
        }
        for l in &self.live {
            report::initial_values(self.program, l, obs);
        }
    }

    /// The instance that ticks next and when its tick is due (ms since the start), or
    /// `None` when every instance has made its ticks. Agents tick in time order; ties go
    /// to the agent spawned first.
    pub fn next_due(&self) -> Option<(usize, f64)> {
        self.queue.peek().map(|Reverse(d)| (d.k, d.ms))
    }

    /// Ticks the instance due next and reports what changed, then asks the observer how to
    /// go on. `None` when the run has made all its ticks.
    pub fn step(&mut self, clock: &mut dyn Clock, obs: &mut dyn Observer) -> Option<Flow> {
        let (k, due) = self.next_due()?;
        self.adopt_code();
        let now = clock.wait_until(due);
        if let Some(n) = &mut self.net {
            let mut w = self.world.as_ref().map(|w| w.borrow_mut());
            let go = n.before_tick(
                now,
                Exchange {
                    world: w.as_deref_mut(),
                    team: &mut self.team.borrow_mut(),
                    mail: &mut self.mail.borrow_mut(),
                },
            );
            if !go {
                return Some(Flow::Stop);
            }
        }
        let tick = self.live[k].ticks;
        if let Some(w) = &self.world {
            tick::step_world(
                self.program,
                &mut w.borrow_mut(),
                &self.mail,
                tick,
                now,
                obs,
            );
        }
        let l = &mut self.live[k];
        let root_before = l.root;
        let began = std::time::Instant::now();
        let mut marks = timing::PhaseMarks::default();
        tick::tick_agent(
            self.program,
            l,
            self.world.as_ref(),
            &self.mail,
            now,
            &mut self.sense_errors,
            self.timer.as_ref().map(|_| &mut marks),
        );
        if let Some(h) = &mut self.hardware {
            h.write_outputs(&l.agent.machine.slots);
        }
        let late = timing::Lateness {
            ms: clock.late_ms(),
            skipped: tick::skipped_periods(l, due, now, self.config.pacing),
        };
        let timing = self
            .timer
            .as_mut()
            .map(|t| t.record(late, began, marks, std::time::Instant::now()));
        // A read of an unset variable stopped the tick where it happened.
        let fault = l.agent.machine.take_fault();
        if fault.is_some() {
            // The tree did not return.
            l.root = root_before;
        }
        let next = tick::schedule_next(l, due, now, self.config.pacing);
        report::tick_events(
            self.program,
            l,
            &self.sense_errors,
            &self.mail,
            tick,
            now,
            obs,
        );
        if let Some(h) = &self.hardware {
            report::device_faults(l, h, tick, now, obs);
        }
        if let Some(t) = timing {
            let _ = obs.line(tick, now, &l.agent.name, &Event::Timing(t));
        }
        if let Some(n) = &mut self.net {
            let mut w = self.world.as_ref().map(|w| w.borrow_mut());
            n.after_tick(
                tick,
                now,
                &l.agent.name,
                Exchange {
                    world: w.as_deref_mut(),
                    team: &mut self.team.borrow_mut(),
                    mail: &mut self.mail.borrow_mut(),
                },
                obs,
            );
        }
        if let Some(f) = fault {
            let text = report::fault(l, &f, tick, now, obs);
            l.error = Some(text);
        }
        l.ticks += 1;
        l.next_ms = next;
        self.queue.pop();
        if l.ticks < self.config.ticks && l.error.is_none() {
            self.queue.push(Reverse(Due { ms: next, k }));
        }
        self.done += 1;
        self.checkpoint_memories(tick, now, obs);
        let l = &self.live[k];
        Some(obs.tick_done(&TickView {
            index: k,
            agent: &l.agent.name,
            program: l.agent.program,
            tick,
            t_ms: now,
            root: l.root,
            machine: &l.agent.machine,
            done: self.done,
            total: self.total,
        }))
    }

    /// The tiered engine, at a tick boundary: installs each agent program's code in every
    /// instance of it once the background compiler has it (waiting for it at
    /// `RunConfig::tier_at`). Code that failed leaves the interpreter running, as it was.
    fn adopt_code(&mut self) {
        if self.tiers.is_empty() {
            return;
        }
        let wait = self.config.tier_at == Some(self.done);
        let mut k = 0;
        while k < self.tiers.len() {
            let pending = &mut self.tiers[k].pending;
            let Some(ready) = (if wait {
                Some(pending.wait())
            } else {
                pending.poll()
            }) else {
                k += 1;
                continue;
            };
            let tier = self.tiers.remove(k);
            let mine = |p: &AgentProgram| std::ptr::eq(p, tier.agent);
            let Some(agent) = self.live.iter().map(|l| l.agent.program).find(|p| mine(p)) else {
                continue;
            };
            let Ok(code) = ready
                .code
                .and_then(|c| crate::jit::tier::link(self.program, agent, c))
            else {
                continue;
            };
            let code = std::rc::Rc::new(code);
            for l in self.live.iter_mut().filter(|l| mine(l.agent.program)) {
                // The code was linked for this very program: installing cannot fail.
                let _ = l.agent.machine.install_jit(code.clone());
            }
        }
    }

    /// Saves the memories that persist, writes each instance's summary line and returns
    /// the summaries.
    pub fn finish(mut self, obs: &mut dyn Observer) -> Result<Vec<AgentSummary>, Vec<Diagnostic>> {
        self.stop_hardware(obs);
        self.save_memories(obs)?;
        if let (Some(t), Some(l)) = (&self.timer, self.live.first()) {
            let s = t.summary();
            let _ = obs.line(l.ticks, l.next_ms, &l.agent.name, &Event::TimingSummary(s));
        }
        Ok(self
            .live
            .iter()
            .map(|l| report::summary(self.program, l, &self.fallback, obs))
            .collect())
    }

    /// Every step, from the first tick until all are made or the observer stops the run.
    pub fn run_to_end(
        mut self,
        clock: &mut dyn Clock,
        obs: &mut dyn Observer,
    ) -> Result<Vec<AgentSummary>, Vec<Diagnostic>> {
        self.start(obs);
        while let Some(Flow::Continue) = self.step(clock, obs) {}
        self.finish(obs)
    }

    /// On the robot, the end of a run (its last tick, a signal, a stop by an observer) halts
    /// the running nodes (a `Move` stops its motors) and sets every actuator to its safe
    /// value; the halts are reported like any other transitions.
    fn stop_hardware(&mut self, obs: &mut dyn Observer) {
        let Some(h) = &mut self.hardware else { return };
        for l in &mut self.live {
            let (tick, now) = (l.ticks, l.next_ms);
            let m = &mut l.agent.machine;
            if let Some(root) = l.agent.program.root {
                m.halt_root(root);
            }
            for r in &l.agent.program.roots {
                m.halt_root(r.root);
            }
            h.safe_stop();
            report::halts(l, tick, now, obs);
            report::device_faults(l, h, tick, now, obs);
        }
    }

    /// The memories that persist, by file (a later instance's memory of the same name
    /// replacing an earlier's).
    fn stored_files(&self) -> Vec<(String, Vec<persist::Stored>)> {
        let mut files: Vec<(String, Vec<persist::Stored>)> = Vec::new();
        for l in &self.live {
            for (file, stored) in l.agent.stored_memories(self.program) {
                match files.iter_mut().find(|(f, _)| *f == file) {
                    Some((_, all)) => all.push(stored),
                    None => files.push((file, vec![stored])),
                }
            }
        }
        files
    }

    /// During the run, every `memory_checkpoint` of wall time: the memories that persist
    /// are saved when they changed since last saved (atomically, as at the end: a process
    /// killed meanwhile leaves the file before or after, never torn). A file that cannot be
    /// written is told once in the trace; the end of the run reports it as an error.
    fn checkpoint_memories(&mut self, tick: u64, now: f64, obs: &mut dyn Observer) {
        let (Some(every), Some(dir)) = (self.config.memory_checkpoint, &self.config.persist_dir)
        else {
            return;
        };
        if self.checkpoint.0.is_none_or(|t| t.elapsed() < every) {
            return;
        }
        self.checkpoint.0 = Some(std::time::Instant::now());
        let files = self.stored_files();
        if files == self.checkpoint.1 {
            return;
        }
        for (file, stored) in &files {
            if self
                .checkpoint
                .1
                .iter()
                .any(|(f, s)| f == file && s == stored)
            {
                continue;
            }
            if let Err(e) = persist::save(&dir.join(file), stored.clone()) {
                let agent = self.live.first().map_or("", |l| l.agent.name.as_str());
                let text = format!("memories not saved during the run: {e}");
                let _ = obs.line(
                    tick,
                    now,
                    agent,
                    &Event::Log {
                        level: "warn",
                        text,
                    },
                );
                self.checkpoint.0 = None;
                return;
            }
        }
        self.checkpoint.1 = files;
    }

    /// Long-term memories that persist are saved at the end of the run, each file read and
    /// written once (a later instance's memory of the same name replacing an earlier's).
    fn save_memories(&self, obs: &mut dyn Observer) -> Result<(), Vec<Diagnostic>> {
        let Some(dir) = &self.config.persist_dir else {
            return Ok(());
        };
        let files = self.stored_files();
        for (file, stored) in files {
            let path = dir.join(&file);
            // Keeps what other memories in the same file hold.
            match persist::save(&path, stored) {
                Ok(places) => obs.memory_written(&path, places),
                Err(e) => {
                    // At the `persist` that names the file, as before the run.
                    let spec = (self.program.agents.iter().flat_map(|a| &a.memories))
                        .find(|m| m.persist.as_deref() == Some(file.as_str()));
                    let at = spec.map_or(Span::DUMMY, |m| m.persist_span);
                    let mut d = Diagnostic::error("E0603", e, at);
                    if let Some(m) = spec {
                        d = d.with_label(format!("memory `{}` is kept here", m.name));
                    }
                    return Err(vec![d]);
                }
            }
        }
        Ok(())
    }
}
