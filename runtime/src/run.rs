//! Running a program: agents tick at their rates on a simulated clock (sense → process →
//! act → write), foreign nodes are bound to implementations, and everything observable goes
//! to the trace. The same program, world and seed give the same trace, bit for bit.

use crate::affect::behavior::Arbiter;
use crate::affect::persist;
use crate::devices::sim::SharedWorld;
use crate::interp::Machine;
use crate::jit::{self, EngineKind};
use crate::sim::{build_agent, Setup, SimAgent};
use crate::trace::{Event, TraceSink, Value};
use crate::world::{AgentId, World};
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::{AgentProgram, Program, Slot, Status, ValueKind};
use affect_compiler::ir::world::{EventAction, WorldSpec};
use affect_compiler::span::Span;
use std::cell::RefCell;
use std::rc::Rc;

/// How simulated time advances between ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
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
    pub agent: Option<String>,
    /// What foreign leaves without an override return.
    pub leaf_default: Status,
    /// `--leaf KEY=S1,S2,..`: KEY is a node path, a label or a declared leaf name; each
    /// instance plays the statuses one per call, repeating the last.
    pub leaves: Vec<(String, Vec<Status>)>,
    /// `--bb KEY=VALUE` on the root blackboard.
    pub bb: Vec<(String, String)>,
    pub clock: Clock,
    /// The world to run in (default: the program's only world).
    pub world: Option<String>,
    /// Where memories' `persist` files are read and written; `None` keeps them in memory.
    pub persist_dir: Option<std::path::PathBuf>,
    /// The engine that runs the tick program. `Jit` falls back to the interpreter where
    /// there is no JIT (32-bit ARM) or compiling fails, and says so in the trace (a `log`
    /// event) and in each summary's `fallback`. The interpreter is the reference.
    pub engine: EngineKind,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            ticks: 100,
            seed: 0,
            agent: None,
            leaf_default: Status::Success,
            leaves: Vec::new(),
            bb: Vec::new(),
            clock: Clock::Fixed,
            world: None,
            persist_dir: None,
            engine: EngineKind::Interp,
        }
    }
}

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
    /// The engine that ran the agent.
    pub engine: EngineKind,
    /// Why the JIT was asked for but the interpreter ran, if it was.
    pub fallback: Option<String>,
}

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

/// Refuses constructs without run-time semantics: each one becomes a coded diagnostic.
pub fn check_runnable(program: &Program, agent: Option<&str>) -> Result<(), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut seen: Vec<(String, Span)> = Vec::new();
    for a in program
        .agents
        .iter()
        .filter(|a| agent.is_none_or(|n| n == a.name))
    {
        for (what, span) in &a.pending {
            if seen.iter().any(|(w, s)| w == what && s == span) {
                continue;
            }
            seen.push((what.clone(), *span));
            diags.push(
                Diagnostic::error("E0601", format!("{what} cannot run yet"), *span)
                    .with_label(format!("agent `{}` uses {what} here", a.name))
                    .with_note("the checker accepts this construct, but the runtime does not implement it yet; it is refused rather than ignored"),
            );
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// `--bb AGENT.KEY`: the agent (an agent's name or an instance name like `UGV#2`) and the
/// key, unless the whole key names a root variable of `agent` (`refiller.intensity`).
fn bb_scope<'k>(
    program: &Program,
    agent: &AgentProgram,
    key: &'k str,
) -> Option<(&'k str, &'k str)> {
    let (who, rest) = key.split_once('.')?;
    if agent.slots.iter().any(|s| s.scope == 0 && s.name == key) {
        return None;
    }
    let names_agent = program.agents.iter().any(|a| {
        who == a.name
            || who
                .strip_prefix(a.name.as_str())
                .is_some_and(|n| n.starts_with('#'))
    });
    names_agent.then_some((who, rest))
}

/// Reads a `--bb` value as the slot's kind wants it.
fn parse_value(program: &Program, slot: &Slot, text: &str) -> Result<f64, String> {
    match slot.kind {
        ValueKind::Bool => match text {
            "true" | "1" => Ok(1.0),
            "false" | "0" => Ok(0.0),
            _ => Err(format!("`{}` is a bool: give true or false", slot.name)),
        },
        ValueKind::Str => Ok(program.symbol(text).map(f64::from).unwrap_or(-1.0)),
        ValueKind::Enum(e) => {
            let info = &program.enums[e as usize];
            info.variants
                .iter()
                .position(|v| v == text)
                .map(|i| i as f64)
                .ok_or_else(|| {
                    format!(
                        "`{}` is a `{}`: one of {}",
                        slot.name,
                        info.name,
                        info.variants.join(", ")
                    )
                })
        }
        ValueKind::Int => text
            .parse::<i64>()
            .map(|v| v as f64)
            .map_err(|_| format!("`{}` is an int", slot.name)),
        ValueKind::List => Err(format!(
            "`{}` is a list and cannot be set from the command line",
            slot.name
        )),
        _ => text
            .parse::<f64>()
            .map_err(|_| format!("`{}` is a number", slot.name)),
    }
}

/// Shows a slot's value in summaries.
pub fn show_value(program: &Program, m: &Machine, slot: usize) -> String {
    let s = &m.program().slots[slot];
    let v = m.slots[slot];
    show(&trace_value(program, m, s, v))
}

fn show(v: &Value) -> String {
    match v {
        Value::Num(x) => format!("{x}"),
        Value::Int(i) => format!("{i}"),
        Value::Bool(b) => format!("{b}"),
        Value::Str(t) => t.to_string(),
        Value::List(items) => format!("{items:?}"),
        Value::Items(items) => {
            let shown: Vec<String> = items.iter().map(show).collect();
            format!("[{}]", shown.join(", "))
        }
    }
}

fn trace_value<'a>(program: &'a Program, m: &Machine, s: &Slot, v: f64) -> Value<'a> {
    value_of(program, m, s.kind, &s.elems, v)
}

/// A value of the given kind; `elems` are a list's element kinds, outermost first.
fn value_of<'a>(
    program: &'a Program,
    m: &Machine,
    kind: ValueKind,
    elems: &[ValueKind],
    v: f64,
) -> Value<'a> {
    match kind {
        ValueKind::Int => Value::Int(v as i64),
        ValueKind::Bool => Value::Bool(v != 0.0),
        ValueKind::Str => Value::Str(
            program
                .strings
                .get(v as usize)
                .map(String::as_str)
                .unwrap_or(""),
        ),
        ValueKind::Enum(e) => Value::Str(
            program
                .enums
                .get(e as usize)
                .and_then(|en| en.variants.get(v as usize))
                .map(String::as_str)
                .unwrap_or("?"),
        ),
        ValueKind::Status => Value::Str(Status::from_index(v as u8).name()),
        ValueKind::List => {
            let items = m.lists.values(v);
            match elems.split_first() {
                // Numbers (and quantities, in SI units) stay a list of numbers.
                None
                | Some((
                    ValueKind::Num
                    | ValueKind::Duration
                    | ValueKind::Rate
                    | ValueKind::Length
                    | ValueKind::Angle,
                    _,
                )) => Value::List(items.to_vec()),
                Some((&inner, rest)) => Value::Items(
                    items
                        .iter()
                        .map(|&x| value_of(program, m, inner, rest, x))
                        .collect(),
                ),
            }
        }
        _ => Value::Num(v),
    }
}

/// One agent instance being run.
struct Live<'p> {
    agent: SimAgent<'p>,
    next_ms: f64,
    ticks: u64,
    statuses: [u64; 5],
    root: Status,
    /// Slot values after the previous tick, to report changes.
    last: Vec<f64>,
    /// The behaviour arbiter, when the agent has behaviour modules (seed 004).
    behavior: Option<Arbiter<'p>>,
}

/// The contents of each visible list variable (points too); empty for the others.
fn list_contents_of(l: &Live) -> Vec<Vec<f64>> {
    let m = &l.agent.machine;
    l.agent
        .program
        .slots
        .iter()
        .enumerate()
        .map(|(i, s)| match s.kind {
            ValueKind::List if s.visible => m.lists.values(m.slots[i]).to_vec(),
            _ => Vec::new(),
        })
        .collect()
}

/// A list variable changed in place (a position sensor, a leaf writing its output list)
/// keeps its list id; marks it so that the trace reports it as a `var` change like any
/// other. Reuses the copies, so a steady-state tick does not allocate.
fn note_lists_changed_in_place(l: &mut Live, seen: &mut [Vec<f64>]) {
    let m = &l.agent.machine;
    for (i, s) in l.agent.program.slots.iter().enumerate() {
        if s.kind != ValueKind::List || !s.visible {
            continue;
        }
        let now = m.lists.values(m.slots[i]);
        if seen[i].as_slice() != now {
            seen[i].clear();
            seen[i].extend_from_slice(now);
            if l.last[i].to_bits() == m.slots[i].to_bits() {
                l.last[i] = f64::NAN;
            }
        }
    }
}

/// Picks the world to run in: the one named, else the file's only world, else none.
fn choose_world<'p>(
    program: &'p Program,
    config: &RunConfig,
) -> Result<Option<&'p WorldSpec>, Vec<Diagnostic>> {
    match &config.world {
        Some(name) => match program.worlds.iter().find(|w| w.name == *name) {
            Some(w) => Ok(Some(w)),
            None => {
                let names: Vec<&str> = program.worlds.iter().map(|w| w.name.as_str()).collect();
                Err(vec![Diagnostic::error(
                    "E0602",
                    format!(
                        "--world {name}: no such world (this program has: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                    Span::DUMMY,
                )])
            }
        },
        None => Ok(match program.worlds.as_slice() {
            [only] => Some(only),
            _ => None,
        }),
    }
}

/// Runs a program and writes its trace; returns one summary per agent instance.
pub fn run(
    program: &Program,
    config: &RunConfig,
    sink: &mut dyn TraceSink,
    mut progress: impl FnMut(u64),
) -> Result<Vec<AgentSummary>, Vec<Diagnostic>> {
    check_runnable(program, config.agent.as_deref())?;
    let spec = choose_world(program, config)?;
    let world: Option<SharedWorld> = match spec {
        // The run's seed drives the world too (guests, scripted random events); it is the
        // world's own `seed` unless the command line gives another.
        Some(s) => match World::new(&WorldSpec {
            seed: config.seed,
            ..s.clone()
        }) {
            Ok(w) => Some(Rc::new(RefCell::new(w))),
            Err(e) => {
                return Err(vec![Diagnostic::error(
                    "E0602",
                    format!("world `{}` cannot be built: {e}", s.name),
                    Span::DUMMY,
                )])
            }
        },
        None => None,
    };
    let setup = Setup {
        leaf_default: config.leaf_default,
        leaves: &config.leaves,
        seed: config.seed,
        persist_dir: config.persist_dir.clone(),
        mail: crate::sim::mail::Mail::shared(),
        team: crate::sim::team::Team::shared(config.seed),
    };
    let setup_error = |e: String| vec![Diagnostic::error("E0603", e, Span::DUMMY)];
    let mut live: Vec<Live> = Vec::new();
    // In a world, the spawned instances run; without one, every agent once.
    let mut instances: Vec<(&AgentProgram, String, Option<AgentId>)> = Vec::new();
    match &world {
        Some(w) => {
            for a in w.borrow().agents() {
                if let Some(p) = program.agents.iter().find(|p| p.name == a.program) {
                    instances.push((p, a.name.clone(), Some(a.id)));
                }
            }
        }
        None => {
            for p in &program.agents {
                instances.push((p, p.name.clone(), None));
            }
        }
    }
    instances.retain(|(p, name, _)| {
        config
            .agent
            .as_deref()
            .is_none_or(|a| a == p.name || a == name)
    });
    // Memory files are checked before anything runs: damage, or a file that could not be
    // written back, stops the run now rather than after it.
    if let Some(dir) = &config.persist_dir {
        persist::check_files(instances.iter().map(|(a, _, _)| *a), dir)?;
    }
    // The JIT compiles each agent program once; its instances share the code. If any
    // program cannot be compiled, every agent runs in the interpreter.
    let mut compiled: Vec<(*const AgentProgram, Rc<jit::Compiled>)> = Vec::new();
    let mut fallback: Option<String> = None;
    if config.engine == EngineKind::Jit {
        for (agent, _, _) in &instances {
            if compiled.iter().any(|(p, _)| std::ptr::eq(*p, *agent)) {
                continue;
            }
            match jit::compile(program, agent) {
                Ok(code) => compiled.push((*agent, Rc::new(code))),
                Err(e) => {
                    fallback = Some(e.to_string());
                    compiled.clear();
                    break;
                }
            }
        }
    }
    for (agent, name, id) in instances {
        let bound = world.clone().zip(id);
        let mut sim = build_agent(program, agent, name, bound, &setup).map_err(setup_error)?;
        if let Some((_, code)) = compiled.iter().find(|(p, _)| std::ptr::eq(*p, agent)) {
            sim.machine
                .install_jit(code.clone())
                .map_err(|e| setup_error(e.to_string()))?;
        }
        for (key, text) in &config.bb {
            // `--bb Butler.refiller=Vonda` sets `refiller` on that agent only; a plain key
            // sets it on every agent that has it.
            let (key, scoped) = match bb_scope(program, agent, key) {
                Some((who, rest)) if who == sim.name || who == agent.name => (rest, true),
                Some(_) => continue,
                None => (key.as_str(), false),
            };
            let found = agent
                .slots
                .iter()
                .position(|s| s.scope == 0 && s.name == *key);
            match found {
                Some(i) => match parse_value(program, &agent.slots[i], text) {
                    Ok(v) => sim.machine.write(i as u32, v),
                    Err(e) => {
                        let mut d = Diagnostic::error(
                            "E0602",
                            format!("--bb {key}={text}: {e}"),
                            Span::DUMMY,
                        );
                        if !scoped && program.agents.len() > 1 {
                            d = d.with_help(format!(
                                "agent `{}` has it; to set another agent's `{key}` only, write --bb AGENT.{key}={text}",
                                sim.name
                            ));
                        }
                        return Err(vec![d]);
                    }
                },
                None if program.agents.len() == 1 || scoped => {
                    let names: Vec<&str> = agent
                        .slots
                        .iter()
                        .filter(|s| s.scope == 0 && s.visible)
                        .map(|s| s.name.as_str())
                        .collect();
                    let mut d = Diagnostic::error(
                        "E0602",
                        format!("--bb {key}: no variable `{key}` on the root blackboard"),
                        Span::DUMMY,
                    );
                    if let Some(b) = affect_compiler::suggest::closest(key, names.iter().copied()) {
                        d = d.with_help(format!("did you mean `{b}`?"));
                    }
                    return Err(vec![d]);
                }
                None => {}
            }
        }
        let last = sim.machine.slots.clone();
        live.push(Live {
            agent: sim,
            next_ms: 0.0,
            ticks: 0,
            statuses: [0; 5],
            root: Status::Idle,
            last,
            behavior: agent
                .behaviors
                .as_ref()
                .map(|b| Arbiter::new(b, &agent.roots)),
        });
    }
    if live.is_empty() {
        let names: Vec<&str> = program.agents.iter().map(|a| a.name.as_str()).collect();
        return Err(vec![Diagnostic::error(
            "E0602",
            match (&config.agent, &world) {
                (Some(a), _) => format!(
                    "no agent `{a}` in this program (agents: {})",
                    names.join(", ")
                ),
                (None, Some(_)) => "the world spawns none of this program's agents".to_string(),
                (None, None) => "this program has no agent and no main tree to run".to_string(),
            },
            Span::DUMMY,
        )]);
    }
    // With `--agent`, the others do not run, and messages to them are dropped.
    if let (Some(w), None) = (&world, &config.agent) {
        let undeliverable = undeliverable_sends(program, &w.borrow(), &setup.mail.borrow());
        if !undeliverable.is_empty() {
            return Err(undeliverable);
        }
    }
    if let (Some(reason), Some(first)) = (&fallback, live.first()) {
        let _ = sink.line(
            0,
            0.0,
            &first.agent.name,
            &Event::Log {
                level: "warn",
                text: format!("the JIT is not available ({reason}); running the interpreter"),
            },
        );
    }
    // Initial values, so a trace starts from a known state.
    for l in &live {
        let p = l.agent.program;
        for (i, s) in p.slots.iter().enumerate() {
            if s.visible && s.scope == 0 {
                let v = trace_value(program, &l.agent.machine, s, l.agent.machine.slots[i]);
                let _ = sink.line(
                    0,
                    0.0,
                    &l.agent.name,
                    &Event::Var {
                        name: &s.name,
                        value: v,
                    },
                );
            }
        }
    }
    let ticks = config.ticks;
    let total: u64 = ticks * live.len() as u64;
    let mut list_contents: Vec<Vec<Vec<f64>>> = live.iter().map(list_contents_of).collect();
    let mut done = 0u64;
    let mut sense_errors = Vec::new();
    // Agents tick in time order; ties go to the agent spawned first.
    while let Some(k) = (0..live.len())
        .filter(|&k| live[k].ticks < ticks)
        .min_by(|&a, &b| live[a].next_ms.total_cmp(&live[b].next_ms).then(a.cmp(&b)))
    {
        let l = &mut live[k];
        let tick = l.ticks;
        let now = l.next_ms;
        if let Some(w) = &world {
            let mut w = w.borrow_mut();
            let target = now.floor() as u64;
            // The first step (possibly of 0 ms) fires the events due at 0.
            if target > w.now_ms() || w.steps() == 0 {
                let dt = target - w.now_ms();
                w.step(dt);
                deliver_scripted_sends(program, &w, &setup.mail, tick, now, sink);
            }
        }
        let m = &mut l.agent.machine;
        m.advance(now, false);
        m.now_ms = now;
        // Commands other robots sent since this one's last tick (`SendCommand`).
        setup.mail.borrow_mut().deliver(&l.agent.name, m);
        sense_errors.clear();
        l.agent.sense(program, world.as_ref(), &mut sense_errors);
        // Messages, protocol timers and component supervision (seed 002, seed 001).
        l.agent.team.before_tick(&mut l.agent.machine);
        let m = &mut l.agent.machine;
        m.process();
        l.root = m.tick_tree();
        // The act phase goes on with the behaviour modules, after `main`.
        if let Some(b) = &mut l.behavior {
            b.tick(m);
        }
        let period = match config.clock {
            Clock::Fixed => 1000.0 / l.agent.program.rate_hz,
            Clock::SleepBetweenTicks { ms } => ms,
        };
        let mut next = now + period;
        let wake_early = matches!(config.clock, Clock::SleepBetweenTicks { .. });
        if wake_early && m.woken {
            // Woken during the tick: the sleep returns at once.
            next = now;
        } else if let Some(w) = m.advance(next - 1e-9, wake_early) {
            if wake_early {
                next = w.at_ms;
            }
        }
        m.woken = false;
        for (device, e) in &sense_errors {
            let _ = sink.line(
                tick,
                now,
                &l.agent.name,
                &Event::Log {
                    level: "warn",
                    text: format!("device `{device}` failed, keeping its last value: {e}"),
                },
            );
        }
        if let Some(b) = &mut l.behavior {
            let spec = b.spec();
            for c in b.changes.drain(..) {
                let _ = sink.line(
                    tick,
                    now,
                    &l.agent.name,
                    &Event::Behavior {
                        module: &spec.modules[c.module as usize].name,
                        from: c.from.name(),
                        to: c.to.name(),
                        value: c.value,
                    },
                );
            }
        }
        note_lists_changed_in_place(l, &mut list_contents[k]);
        // Component changes and protocol steps come first: they are what the handlers and
        // the tree of this tick reacted to.
        l.agent.team.flush(tick, now, sink);
        emit(program, l, tick, now, sink);
        setup
            .mail
            .borrow_mut()
            .flush(program, tick, now, &l.agent.name, sink);
        l.ticks += 1;
        l.next_ms = next;
        done += 1;
        progress(done * 100 / total.max(1));
    }
    // Long-term memories that persist are saved at the end of the run.
    if let Some(dir) = &config.persist_dir {
        for l in &live {
            for (file, stored) in l.agent.stored_memories(program) {
                // Keeps what other memories in the same file hold.
                if let Err(e) = persist::save(&dir.join(&file), stored) {
                    return Err(vec![Diagnostic::error("E0603", e, Span::DUMMY)]);
                }
            }
        }
    }
    let mut out = Vec::new();
    for l in &live {
        let root = match l.root {
            Status::Idle => "IDLE",
            s => s.name(),
        };
        let _ = sink.line(
            l.ticks,
            l.next_ms,
            &l.agent.name,
            &Event::Summary {
                ticks: l.ticks,
                statuses: l.statuses,
                root,
            },
        );
        let p = l.agent.program;
        let variables = p
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.visible && s.scope == 0)
            .map(|(i, s)| (s.name.clone(), show_value(program, &l.agent.machine, i)))
            .collect();
        out.push(AgentSummary {
            agent: l.agent.name.clone(),
            ticks: l.ticks,
            statuses: l.statuses,
            root: l.root,
            variables,
            stand_ins: l.agent.stand_ins.clone(),
            engine: l.agent.machine.engine(),
            fallback: fallback.clone(),
        });
    }
    Ok(out)
}

fn emit(program: &Program, l: &mut Live, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    let agent = &l.agent.name;
    let p = l.agent.program;
    let m = &mut l.agent.machine;
    for t in &m.transitions {
        l.statuses[t.to as usize] += 1;
        let node = &p.nodes[t.node as usize];
        let _ = sink.line(
            tick,
            now,
            agent,
            &Event::Node {
                uid: t.node + 1,
                path: &node.path,
                from: t.from.name(),
                to: t.to.name(),
            },
        );
    }
    m.transitions.clear();
    {
        let mut affect = l.agent.affect.borrow_mut();
        for mem in &mut affect.memories {
            for e in &mem.events {
                let key = program
                    .strings
                    .get(e.key as usize)
                    .map(String::as_str)
                    .unwrap_or("?");
                let _ = sink.line(
                    tick,
                    now,
                    agent,
                    &Event::Memory {
                        op: e.op.name(),
                        key,
                        score: e.score,
                    },
                );
            }
            mem.events.clear();
        }
        for text in affect.logs.drain(..) {
            let _ = sink.line(
                tick,
                now,
                agent,
                &Event::Log {
                    level: "info",
                    text,
                },
            );
        }
    }
    let m = &l.agent.machine;
    for d in &p.drives {
        let (old, new) = (l.last[d.slot as usize], m.slots[d.slot as usize]);
        if old.to_bits() != new.to_bits() {
            let s = &p.slots[d.slot as usize];
            let show = |v: f64| match trace_value(program, m, s, v) {
                Value::Str(t) => t,
                _ => "?",
            };
            let intention = d
                .intention
                .map(|i| trace_value(program, m, &p.slots[i as usize], m.slots[i as usize]));
            let _ = sink.line(
                tick,
                now,
                agent,
                &Event::Drive {
                    name: &d.name,
                    from: show(old),
                    to: show(new),
                    intention,
                },
            );
        }
    }
    for mc in &p.machines {
        let (old, new) = (l.last[mc.state as usize], m.slots[mc.state as usize]);
        if old.to_bits() != new.to_bits() {
            let s = &p.slots[mc.state as usize];
            let show = |v: f64| match trace_value(program, m, s, v) {
                Value::Str(t) => t,
                _ => "?",
            };
            let cause = mc
                .causes
                .get(new as usize)
                .and_then(|c| c.as_deref())
                .unwrap_or("");
            let _ = sink.line(
                tick,
                now,
                agent,
                &Event::Emotion {
                    machine: &mc.name,
                    from: show(old),
                    to: show(new),
                    intensity: m.slots[mc.intensity as usize],
                    cause,
                },
            );
        }
    }
    for (i, s) in p.slots.iter().enumerate() {
        let v = m.slots[i];
        if s.visible && l.last[i].to_bits() != v.to_bits() {
            let value = trace_value(program, m, s, v);
            let _ = sink.line(
                tick,
                now,
                agent,
                &Event::Var {
                    name: &s.name,
                    value,
                },
            );
        }
        l.last[i] = v;
    }
}

/// The world's scripted `send` events that fired in the step just made: each becomes a
/// command for the robots it addresses, delivered before their next tick, and a `msg` line
/// (from the `from` agent, or `world`).
fn deliver_scripted_sends(
    program: &Program,
    w: &World,
    mail: &crate::sim::mail::SharedMail,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    for ev in w.fired_events() {
        let EventAction::Send { message, from, to } = &ev.action else {
            continue;
        };
        let reached = mail.borrow_mut().send_scripted(
            to.as_ref().map(|t| t.name.as_str()),
            message,
            &program.enums,
        );
        let from = from.as_ref().map_or("world", |f| f.name.as_str());
        for robot in &reached {
            let _ = sink.line(
                tick,
                now,
                from,
                &Event::Msg {
                    from,
                    to: robot,
                    kind: message,
                },
            );
        }
    }
}

/// E0604 for each scripted `send` that no running robot can receive: a message is a variant
/// of the enum of the addressed robot's root variable `command`.
fn undeliverable_sends(
    program: &Program,
    w: &World,
    mail: &crate::sim::mail::Mail,
) -> Vec<Diagnostic> {
    w.spec()
        .events
        .iter()
        .filter_map(|ev| match &ev.action {
            EventAction::Send { message, to, .. } => Some((message, to, ev.span)),
            _ => None,
        })
        .filter(|(message, to, _)| {
            !mail.can_deliver_scripted(to.as_ref().map(|t| t.name.as_str()), message, &program.enums)
        })
        .map(|(message, to, event_span)| {
            let to_name = to.as_ref().map(|t| t.name.as_str());
            let span = to.as_ref().map_or(event_span, |t| t.span);
            let variants = mail.command_variants(to_name, &program.enums);
            let d = Diagnostic::error(
                "E0604",
                match to_name {
                    Some(t) => format!("the world sends `{message}`, but `{t}` cannot receive it"),
                    None => format!("the world sends `{message}`, but no robot can receive it"),
                },
                span,
            );
            if variants.is_empty() {
                d.with_label("has no root variable `command` of an enum type")
                    .with_help(format!(
                        "a message is a command: give the robot a root variable `command` of an enum with a variant `{message}`"
                    ))
            } else {
                d.with_label(format!("no robot's `command` has a variant `{message}`"))
                    .with_suggestion(message, variants.iter().copied(), || {
                        format!("its `command` takes `{}`", variants.join("`, `"))
                    })
            }
        })
        .collect()
}
