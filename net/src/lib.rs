//! affect robots on a real network (docs/network.md): one process per robot or component
//! host, Zenoh between them, every payload signed by its sender and verified by its
//! receivers, and `affect launch` starting, supervising and faulting a whole team.
//!
//! The in-process simulator stays the default: this crate only plugs a
//! [`affect_runtime::network::Network`] into the ordinary run loop.

pub mod accept;
pub mod call;
pub mod clock;
pub mod faults;
pub mod host;
pub mod key_modes;
pub mod keys;
pub mod launch;
pub mod merge;
pub mod node;
pub mod peers;
pub mod progress;
pub mod refusals;
pub mod robot;
pub mod script;
pub mod startup;
pub mod wire;

use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::Program;
use affect_compiler::ir::world::WorldSpec;
use affect_runtime::run::{self, AgentSummary, Observer, RunConfig, TickView};
use affect_runtime::trace::{Event, TraceSink};
use keys::{Identity, TeamKeys};
use node::{Endpoints, Node};
use std::path::PathBuf;
use std::time::Duration;

/// How a process joins its team.
#[derive(Clone, Debug, Default)]
pub struct NetOptions {
    /// The team's name (default: the world's name): the third chunk of every key.
    pub team: Option<String>,
    /// The team's key directory (`affect keys`).
    pub keys: Option<PathBuf>,
    /// Neither sign nor verify (a team on a trusted link only).
    pub unsigned: bool,
    pub endpoints: Endpoints,
    /// World time runs this many times faster than the wall clock.
    pub speed: f64,
    /// World time 0 in Unix milliseconds (default: when the process starts ticking).
    pub epoch: Option<f64>,
    /// Launched: wait for every member and the launcher's `start`.
    pub await_start: bool,
    /// Message loss instead of the world's.
    pub loss: Option<f64>,
    /// The teammates' liveliness lease, wall time (`peers::DEFAULT_LEASE` when not given).
    pub lease: Option<Duration>,
    /// The freshness window in wall-clock milliseconds (default
    /// [`accept::DEFAULT_WINDOW_MS`]).
    pub freshness_ms: Option<f64>,
}

impl NetOptions {
    /// Whether the launcher started this process (it then stops when its input closes).
    fn launched(&self) -> bool {
        self.await_start || self.epoch.is_some()
    }
}

/// Why a networked run did not run.
#[derive(Debug)]
pub enum NetError {
    /// The program cannot run (as `affect run` reports it).
    Program(Vec<Diagnostic>),
    /// The network, the keys or the arguments.
    Setup(String),
}

impl From<String> for NetError {
    fn from(e: String) -> NetError {
        NetError::Setup(e)
    }
}

/// The world a networked run needs.
pub fn world_of<'p>(program: &'p Program, name: Option<&str>) -> Result<&'p WorldSpec, String> {
    match name {
        Some(n) => program
            .worlds
            .iter()
            .find(|w| w.name == n)
            .ok_or_else(|| format!("--world {n}: no such world")),
        None => match program.worlds.as_slice() {
            [only] => Ok(only),
            [] => Err("a networked run needs a world: this program has none".into()),
            _ => Err("this program has several worlds: name one with --world".into()),
        },
    }
}

/// Opens the session and joins the team as `me`.
fn join(opts: &NetOptions, team: &str, me: &str) -> Result<Node, String> {
    let (identity, keys) = match (&opts.keys, opts.unsigned) {
        (Some(dir), _) => (Some(Identity::load(dir, me)?), Some(TeamKeys::load(dir)?)),
        (None, true) => (None, None),
        (None, false) => {
            return Err(
                "a networked run signs its messages: give --keys DIR (`affect keys` writes one) or --unsigned"
                    .into(),
            )
        }
    };
    if let Some(k) = &keys {
        if k.team != team {
            return Err(format!(
                "the keys are team `{}`'s, not team `{team}`'s",
                k.team
            ));
        }
    }
    let session = node::open(&opts.endpoints)?;
    let mut node = Node::join(session, team, me, identity, keys)?;
    if let Some(w) = opts.freshness_ms {
        node.acceptance.window_ms = w;
    }
    // Given its launch's epoch, the process belongs to that launch from the start.
    if let Some(e) = opts.epoch {
        node.learn_launch(e);
    }
    Ok(node)
}

/// `affect run FILE --agent NAME --net`: runs one robot of the world as this process,
/// watched by `observer` (its trace and whatever else watches it: Groot 2, a `.btlog`).
pub fn run_robot(
    program: &Program,
    config: &RunConfig,
    opts: &NetOptions,
    observer: &mut dyn Observer,
) -> Result<Vec<AgentSummary>, NetError> {
    let world = world_of(program, config.world.as_deref())?;
    let Some(agent) = config.agent.as_deref() else {
        return Err(NetError::Setup(
            "a networked run runs one robot: name it with --agent".into(),
        ));
    };
    let instances = host::instances(world, program)?;
    if !instances.iter().any(|(n, _)| n == agent) {
        let names: Vec<&str> = instances.iter().map(|(n, _)| n.as_str()).collect();
        return Err(NetError::Setup(format!(
            "--agent {agent}: world `{}` has no robot of that name (robots: {})",
            world.name,
            names.join(", ")
        )));
    }
    let team = opts.team.clone().unwrap_or_else(|| world.name.clone());
    let stop = clock::stop_flag(opts.launched());
    let mut epoch = opts.epoch.unwrap_or_else(clock::unix_ms);
    let node = join(opts, &team, agent)?;
    // Started with the team's epoch already past (the launcher restarting it, or a robot
    // started again on its own): it runs the world time it missed at once, cut off.
    let catch_up_ms = match (opts.epoch, opts.await_start) {
        (Some(e), false) => Some((clock::unix_ms() - e) * opts.speed).filter(|t| *t > 0.0),
        _ => None,
    };
    let peers = instances
        .iter()
        .filter(|(n, _)| n != agent)
        .map(|(n, p)| {
            let rate = (program.agents.iter().find(|a| a.name == *p)).map_or(1.0, |a| a.rate_hz);
            (n.clone(), 1000.0 / rate)
        })
        .collect();
    let mut robot = robot::Robot::new(
        node,
        stop.clone(),
        agent,
        program.enums.clone(),
        robot::RobotOptions {
            loss: opts.loss,
            seed: config.seed,
            speed: opts.speed,
            peers,
            lease: opts.lease.unwrap_or(peers::DEFAULT_LEASE),
            catch_up_ms,
            ticks: config.ticks,
        },
    )?;
    let _ready = if opts.await_start {
        let expected = startup::members(program, world)?;
        let (start, token) = robot.await_start(&expected, &stop, Duration::from_secs(120))?;
        epoch = start;
        Some(token)
    } else {
        None
    };
    let config = RunConfig {
        world: Some(world.name.clone()),
        ..config.clone()
    };
    let mut clock = clock::team_clock(epoch, opts.speed, stop);
    let mut resumed = Resumed {
        inner: observer,
        from_ms: catch_up_ms,
        restored: restored(program, agent, &instances, config.persist_dir.as_deref()),
    };
    run::run_networked(program, &config, &mut resumed, Box::new(robot), &mut clock)
        .map_err(NetError::Program)
}

/// What a robot starts with of the long-term memories it persists (its earlier process's,
/// when it was restarted), for its trace: each file found, with its memories' places. `None`
/// when it persists nothing, or found nothing.
fn restored(
    program: &Program,
    agent: &str,
    instances: &[(String, String)],
    dir: Option<&std::path::Path>,
) -> Option<String> {
    let dir = dir?;
    let kind = &instances.iter().find(|(n, _)| n == agent)?.1;
    let spec = program.agents.iter().find(|a| a.name == *kind)?;
    let mut told = Vec::new();
    for file in spec.memories.iter().filter_map(|m| m.persist.as_deref()) {
        let path = dir.join(file);
        // A damaged file stops the run before it starts (its own error says so).
        let Ok(Some(stored)) = affect_runtime::affect::persist::load(&path) else {
            continue;
        };
        for m in stored
            .iter()
            .filter(|m| spec.memories.iter().any(|s| s.name == m.name))
        {
            let keys: Vec<&str> = m.traces.iter().map(|t| t.0.as_str()).collect();
            let shown = keys.iter().take(20).copied().collect::<Vec<_>>().join(", ");
            let more = match keys.len() {
                n if n > 20 => format!(" and {} more", n - 20),
                _ => String::new(),
            };
            told.push(format!(
                "memory `{}` from {}: {} places ({shown}{more})",
                m.name,
                path.display(),
                keys.len()
            ));
        }
    }
    (!told.is_empty()).then(|| {
        format!(
            "{agent} restored its long-term memories: {}",
            told.join("; ")
        )
    })
}

/// The trace of a robot started late: what it ran while catching up (cut off, from its
/// spawn) is not what the team saw, so its trace starts where it joined, with a line saying
/// so; the run's summary at the end is kept. A robot that found memories it persisted (its
/// earlier process's) says what they hold in its first line.
struct Resumed<'o> {
    inner: &'o mut dyn Observer,
    /// World time it catches up to; `None` once told (or never started late).
    from_ms: Option<f64>,
    /// The memories it started with, until told.
    restored: Option<String>,
}

impl TraceSink for Resumed<'_> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> std::io::Result<()> {
        if let Some(from) = self.from_ms {
            if t_ms < from && !matches!(ev, Event::Summary { .. }) {
                return Ok(());
            }
            self.from_ms = None;
            let text = format!(
                "{agent} started again: a new process, which ran the {:.1} s of world time it missed at once from its spawn, cut off, and rejoins its team now",
                from / 1000.0
            );
            self.inner.line(
                tick,
                t_ms,
                agent,
                &Event::Log {
                    level: "info",
                    text,
                },
            )?;
        }
        if let Some(text) = self.restored.take() {
            self.inner.line(
                tick,
                t_ms,
                agent,
                &Event::Log {
                    level: "info",
                    text,
                },
            )?;
        }
        self.inner.line(tick, t_ms, agent, ev)
    }
}

impl Observer for Resumed<'_> {
    fn tick_done(&mut self, tick: &TickView) -> run::Flow {
        self.inner.tick_done(tick)
    }

    fn memory_read(&mut self, path: &std::path::Path, places: usize) {
        self.inner.memory_read(path, places);
    }

    fn memory_written(&mut self, path: &std::path::Path, places: usize) {
        self.inner.memory_written(path, places);
    }
}

/// `affect host FILE --host NAME`: runs the components the world places on a host (or only
/// `only`) as this process, until stopped.
pub fn run_host(
    program: &Program,
    world: Option<&str>,
    host: &str,
    only: &[String],
    seed: Option<u64>,
    opts: &NetOptions,
    sink: &mut dyn TraceSink,
) -> Result<(), NetError> {
    let world = world_of(program, world)?;
    let served = host::served_on(program, world, host, only)?;
    let team = opts.team.clone().unwrap_or_else(|| world.name.clone());
    let stop = clock::stop_flag(opts.launched());
    let mut epoch = opts.epoch.unwrap_or_else(clock::unix_ms);
    let mut node = join(opts, &team, host)?;
    if !only.is_empty() {
        node.set_part(&only.join(","));
    }
    let _ready = if opts.await_start {
        let expected = startup::members(program, world)?;
        let (start, token) =
            startup::await_start(&mut node, &expected, &stop, Duration::from_secs(120))?;
        epoch = start;
        Some(token)
    } else {
        None
    };
    let options = host::HostOptions {
        loss: opts.loss.unwrap_or(world.messages.loss),
        seed: seed.unwrap_or(world.seed),
        // Launched after the start: the launcher restarts components this way.
        restart: opts.launched() && !opts.await_start,
    };
    let clock = clock::team_clock(epoch, opts.speed, stop);
    let script = script::Script::new(world, options.seed, clock.now_ms())?;
    host::run(node, clock, &served, (program, script), options, sink)?;
    Ok(())
}
