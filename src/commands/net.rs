//! The network commands (docs/network.md), built with the `net` feature (on by default):
//! `affect run --net` (one robot as its own process), `affect host` (a component host),
//! `affect launch` (a whole team, one process each, supervised) and `affect keys` (a team's
//! signing keys).

use super::{FAILED, OK, USAGE};
use crate::files;
use affect_compiler::ir::program::Program;
use affect_net::faults;
use affect_net::launch::{self, LaunchConfig};
use affect_net::node::Endpoints;
use affect_net::{NetError, NetOptions};
use affect_runtime::run::{AgentSummary, RunConfig};
use affect_runtime::trace::{JsonLines, NoTrace, TraceSink};
use std::path::{Path, PathBuf};

/// `--speed` when not given: world time runs as fast as the wall clock.
const REAL_TIME: f64 = 1.0;

/// How a process joins its team on the network.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LinkArgs {
    /// The team's name, the third chunk of every Zenoh key (default: the world's name).
    #[arg(long, value_name = "NAME")]
    pub team: Option<String>,
    /// The team's key directory (`affect keys` writes it): this member's secret key and
    /// every member's public key. Every message is signed and verified.
    #[arg(long, value_name = "DIR")]
    pub keys: Option<PathBuf>,
    /// Neither sign nor verify messages (only on a link nobody else can reach).
    #[arg(long, conflicts_with = "keys")]
    pub unsigned: bool,
    /// A Zenoh endpoint to listen on, like tcp/127.0.0.1:7447 (repeatable).
    #[arg(long, value_name = "ENDPOINT")]
    pub listen: Vec<String>,
    /// A Zenoh endpoint (peer or router) to connect to (repeatable). Multicast scouting is
    /// off: peers find each other only through the endpoints given.
    #[arg(long, value_name = "ENDPOINT")]
    pub connect: Vec<String>,
    /// A Zenoh configuration file (JSON5) to start from: TLS certificates and the like.
    #[arg(long, value_name = "FILE")]
    pub zenoh_config: Option<PathBuf>,
    /// World time runs K times faster than the wall clock.
    #[arg(long, value_name = "K", default_value_t = REAL_TIME)]
    pub speed: f64,
    /// World time 0, in milliseconds since the Unix epoch (default: now).
    #[arg(long, value_name = "UNIX_MS")]
    pub epoch: Option<f64>,
    /// Wait for every member and the launcher's start (`affect launch` passes this).
    #[arg(long, hide = true)]
    pub await_start: bool,
    /// Message loss 0..1 instead of the world's `messages .. loss`.
    #[arg(long, value_name = "P")]
    pub loss: Option<f64>,
    /// Refuse a message sent longer ago than MS milliseconds of wall time by this clock, or
    /// stamped that far ahead of it (default 10000; docs/network.md, section 4).
    #[arg(long, value_name = "MS")]
    pub freshness: Option<f64>,
    /// The liveliness lease, in wall time (`3s`, `1500ms`): a teammate silent for longer is
    /// found lost (default 3s; docs/network.md).
    #[arg(long, value_name = "TIME")]
    pub lease: Option<String>,
}

/// A robot's memories on the network (`affect run --net` only, not `affect host`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MemoryArgs {
    /// Where this robot's long-term memory files (`persist`) are read and written, instead
    /// of beside the program (`affect launch` gives each robot its own folder).
    #[arg(long, value_name = "DIR", conflicts_with = "no_persist")]
    pub memory_dir: Option<PathBuf>,
    /// Save the memories that persist while running, when they changed, at most this often
    /// in wall time (default 1s): a robot killed mid-run loses no more learning than that.
    #[arg(long, value_name = "TIME")]
    pub save_every: Option<String>,
}

impl MemoryArgs {
    /// The first of these flags given, by its name (they apply to `--net` only).
    pub fn given(&self) -> Option<&'static str> {
        if self.memory_dir.is_some() {
            Some("--memory-dir")
        } else if self.save_every.is_some() {
            Some("--save-every")
        } else {
            None
        }
    }
}

/// A robot on the network saves its memories at least this often (wall time) while it runs.
pub const SAVE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// A wall-clock duration from the command line (`3s`, `500ms`, a bare number of seconds).
fn wall_duration(flag: &str, text: &str) -> Result<std::time::Duration, String> {
    match faults::parse_duration(text) {
        Some(ms) if ms.is_finite() && ms > 0.0 => {
            Ok(std::time::Duration::from_secs_f64(ms / 1000.0))
        }
        _ => Err(format!(
            "{flag} {text}: give a positive time, like 3s or 1500ms"
        )),
    }
}

impl LinkArgs {
    /// The first of these flags given on the command line, by its name: they mean something
    /// only to a process on the network, so `affect run` without `--net` refuses them rather
    /// than ignoring them.
    pub fn given(&self) -> Option<&'static str> {
        [
            ("--team", self.team.is_some()),
            ("--keys", self.keys.is_some()),
            ("--unsigned", self.unsigned),
            ("--listen", !self.listen.is_empty()),
            ("--connect", !self.connect.is_empty()),
            ("--zenoh-config", self.zenoh_config.is_some()),
            ("--speed", self.speed != REAL_TIME),
            ("--epoch", self.epoch.is_some()),
            ("--loss", self.loss.is_some()),
            ("--lease", self.lease.is_some()),
            ("--freshness", self.freshness.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, set)| set.then_some(flag))
    }

    fn options(&self) -> Result<NetOptions, String> {
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err("--speed takes a positive number".into());
        }
        if let Some(l) = self.loss {
            if !(0.0..=1.0).contains(&l) {
                return Err("--loss takes a probability from 0 to 1".into());
            }
        }
        check_freshness(self.freshness)?;
        Ok(NetOptions {
            team: self.team.clone(),
            keys: self.keys.clone(),
            unsigned: self.unsigned,
            endpoints: Endpoints {
                listen: self.listen.clone(),
                connect: self.connect.clone(),
                config: self.zenoh_config.clone(),
            },
            speed: self.speed,
            epoch: self.epoch,
            await_start: self.await_start,
            loss: self.loss,
            lease: self
                .lease
                .as_deref()
                .map(|l| wall_duration("--lease", l))
                .transpose()?,
            freshness_ms: self.freshness,
        })
    }
}

/// A robot's trace file on the network, for `affect run --net`'s observers: each line says
/// which process wrote it and is written at once.
pub struct PidTrace(Box<dyn TraceSink>);

impl TraceSink for PidTrace {
    fn line(
        &mut self,
        tick: u64,
        t_ms: f64,
        agent: &str,
        ev: &affect_runtime::trace::Event,
    ) -> std::io::Result<()> {
        self.0.line(tick, t_ms, agent, ev)
    }
}

impl affect_runtime::run::Observer for PidTrace {}

impl crate::observers::RunObserver for PidTrace {}

/// The trace file of `affect run --net` (none without --trace).
pub fn pid_trace(path: Option<&Path>) -> Result<Option<PidTrace>, String> {
    Ok(path.map(|p| trace_file(Some(p))).transpose()?.map(PidTrace))
}

/// `--freshness` is a positive number of milliseconds.
fn check_freshness(ms: Option<f64>) -> Result<(), String> {
    match ms {
        Some(w) if !(w.is_finite() && w > 0.0) => {
            Err("--freshness takes a positive number of milliseconds".into())
        }
        _ => Ok(()),
    }
}

/// A trace file whose lines say which process wrote them, written line by line so that a
/// process killed mid-run loses at most the line it was writing.
fn trace_file(path: Option<&Path>) -> Result<Box<dyn TraceSink>, String> {
    Ok(match path {
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| format!("cannot write `{}`: {e}", p.display()))?;
            Box::new(JsonLines::with_pid(
                std::io::LineWriter::new(f),
                std::process::id(),
            ))
        }
        None => Box::new(NoTrace),
    })
}

/// `affect run FILE --agent NAME --net`, watched by `observer` (its trace, Groot 2, ...).
pub fn run_robot(
    (link, memory): (&LinkArgs, &MemoryArgs),
    program: &Program,
    config: &RunConfig,
    observer: &mut dyn affect_runtime::run::Observer,
    quiet: bool,
) -> Result<Vec<AgentSummary>, NetError> {
    let opts = link.options()?;
    let mut config = config.clone();
    if let Some(dir) = &memory.memory_dir {
        config.persist_dir = Some(dir.clone());
    }
    if config.persist_dir.is_some() {
        config.memory_checkpoint = Some(match &memory.save_every {
            Some(t) => wall_duration("--save-every", t)?,
            None => SAVE_EVERY,
        });
    }
    let summaries = affect_net::run_robot(program, &config, &opts, observer)?;
    if !quiet {
        for s in &summaries {
            eprintln!(
                "{}: {} ticks on the network, root {}",
                s.agent,
                s.ticks,
                s.root.name()
            );
        }
    }
    Ok(summaries)
}

/// Reads and checks the program as `affect run` does (the processes a launch starts run it
/// so); prints its diagnostics.
fn load(file: &Path) -> Result<Program, u8> {
    let loaded = super::source::load(file)?;
    loaded.reporter().finish(1);
    loaded.analysis.program.ok_or(FAILED)
}

#[derive(clap::Args)]
pub struct HostArgs {
    /// The program whose world places components on hosts (`host NAME runs [...]`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The host this process is.
    #[arg(long, value_name = "NAME")]
    pub host: String,
    /// Run only this component (repeatable; default: every one the world places here).
    #[arg(long = "component", value_name = "C")]
    pub components: Vec<String>,
    #[arg(long, value_name = "W")]
    pub world: Option<String>,
    /// Seed of the host's draws of message loss for its answers to component calls
    /// (default: the world's `seed`).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Write the host's trace (JSON Lines with `pid`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub link: LinkArgs,
}

pub fn host(args: &HostArgs) -> u8 {
    let program = match load(&args.file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let result = (|| -> Result<(), NetError> {
        let opts = args.link.options()?;
        let mut sink = trace_file(args.trace.as_deref())?;
        affect_net::run_host(
            &program,
            args.world.as_deref(),
            &args.host,
            &args.components,
            args.seed,
            &opts,
            sink.as_mut(),
        )
    })();
    report(result.map(|_| ()))
}

fn report(result: Result<(), NetError>) -> u8 {
    match result {
        Ok(()) => OK,
        Err(NetError::Setup(e)) => {
            eprintln!("error: {e}");
            USAGE
        }
        Err(NetError::Program(diags)) => {
            for d in diags {
                eprintln!("error[{}]: {}", d.code, d.message);
            }
            FAILED
        }
    }
}

#[derive(clap::Args)]
pub struct LaunchArgs {
    /// The program: its world's robots and component hosts each become a process.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[arg(long, value_name = "W")]
    pub world: Option<String>,
    /// Ticks per robot (default: the world's `ticks`).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    /// Seed of the random generators (default: the world's `seed`).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// World time runs K times faster than the wall clock.
    #[arg(long, value_name = "K", default_value_t = REAL_TIME)]
    pub speed: f64,
    /// Message loss 0..1 instead of the world's.
    #[arg(long, value_name = "P")]
    pub loss: Option<f64>,
    /// Merge every process's trace into one JSON Lines file (each line with its `pid`); a
    /// name ending in `.zst` is compressed with Zstandard (`affect report` reads it).
    #[arg(long, value_name = "OUT.jsonl")]
    pub trace: Option<PathBuf>,
    /// The team's key directory (default: fresh keys for this launch only).
    #[arg(long, value_name = "DIR")]
    pub keys: Option<PathBuf>,
    /// Every process's freshness window in milliseconds of wall time (default 10000).
    #[arg(long, value_name = "MS")]
    pub freshness: Option<f64>,
    /// Kill a process (SIGKILL) at a world time: `--kill laptop2@40s`.
    #[arg(long, value_name = "NAME@TIME")]
    pub kill: Vec<String>,
    /// Pause a process (SIGSTOP, then SIGCONT): `--pause UGV#3@60s+10s`.
    #[arg(long, value_name = "NAME@TIME+DURATION")]
    pub pause: Vec<String>,
    /// Cut a process off from the others for a while: `--partition UAV@90s+20s`.
    #[arg(long, value_name = "NAME@TIME+DURATION")]
    pub partition: Vec<String>,
    /// A fault script: one `kill`, `pause` or `partition` a line (docs/network.md).
    #[arg(long, value_name = "FILE")]
    pub faults: Option<PathBuf>,
    /// The robots' engine (`tiered`, `jit` or `interp`).
    #[arg(long, value_enum)]
    pub engine: Option<super::bench::EngineKind>,
    /// Print only the outcome: no progress lines, robots' summaries or files written.
    #[arg(long)]
    pub quiet: bool,
    /// The robots' liveliness lease, wall time: a robot silent for longer is found lost by
    /// its team (default 3s).
    #[arg(long, value_name = "TIME")]
    pub lease: Option<String>,
    /// Serve one robot to Groot 2 and btview on PORT (and PORT+1): `--groot2 UGV#3=1667`
    /// (repeatable).
    #[arg(long, value_name = "ROBOT=PORT")]
    pub groot2: Vec<String>,
    /// Record one robot's tree for Groot 2's log replay: `--btlog UGV#3=ugv3.btlog`.
    #[arg(long, value_name = "ROBOT=FILE.btlog")]
    pub btlog: Vec<String>,
    /// Record one robot's run (`affect replay`): `--record UAV=uav.rec`.
    #[arg(long, value_name = "ROBOT=FILE")]
    pub record: Vec<String>,
}

/// The per-robot options (`--groot2 UGV#3=1667`) as (robot, flag, value); files are made
/// absolute, since the robots do not run in this folder's name.
fn per_robot(
    args: &LaunchArgs,
    robots: &[String],
) -> Result<Vec<(String, String, String)>, String> {
    let mut out = Vec::new();
    for (flag, list) in [
        ("--groot2", &args.groot2),
        ("--btlog", &args.btlog),
        ("--record", &args.record),
    ] {
        for spec in list {
            let Some((robot, value)) = spec.split_once('=') else {
                return Err(format!(
                    "{flag} {spec}: name the robot, as in {flag} UGV#3={}",
                    if flag == "--groot2" { "1667" } else { "FILE" }
                ));
            };
            if !robots.iter().any(|r| r == robot) {
                return Err(format!(
                    "{flag} {spec}: no robot `{robot}` (robots: {})",
                    robots.join(", ")
                ));
            }
            let value = if flag == "--groot2" {
                value
                    .parse::<u16>()
                    .map_err(|_| format!("{flag} {spec}: `{value}` is not a port"))?
                    .to_string()
            } else {
                std::path::absolute(value)
                    .map_err(|e| format!("{flag} {spec}: {e}"))?
                    .display()
                    .to_string()
            };
            out.push((robot.to_string(), flag.to_string(), value));
        }
    }
    Ok(out)
}

fn faults_of(args: &LaunchArgs) -> Result<Vec<faults::Fault>, String> {
    let mut out = Vec::new();
    for (kind, list) in [
        ("kill", &args.kill),
        ("pause", &args.pause),
        ("partition", &args.partition),
    ] {
        for spec in list {
            out.push(faults::parse(kind, spec)?);
        }
    }
    if let Some(path) = &args.faults {
        let text = files::read_source(path).map_err(|e| e.to_string())?;
        out.extend(faults::parse_script(&text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    Ok(out)
}

pub fn launch(args: &LaunchArgs) -> u8 {
    let program = match load(&args.file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let setup = (|| -> Result<(affect_compiler::ir::world::WorldSpec, LaunchConfig), String> {
        let world = affect_net::world_of(&program, args.world.as_deref())?.clone();
        if !(args.speed.is_finite() && args.speed > 0.0) {
            return Err("--speed takes a positive number".into());
        }
        let exe = std::env::current_exe().map_err(|e| format!("cannot find `affect`: {e}"))?;
        if let Some(l) = &args.lease {
            wall_duration("--lease", l)?;
        }
        let robots: Vec<String> = affect_net::host::instances(&world, &program)?
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        Ok((
            world.clone(),
            LaunchConfig {
                exe,
                file: args.file.clone(),
                world: Some(world.name.clone()),
                ticks: args.ticks,
                seed: args.seed,
                speed: args.speed,
                loss: args.loss,
                trace: args.trace.clone(),
                keys: args.keys.clone(),
                freshness_ms: {
                    check_freshness(args.freshness)?;
                    args.freshness
                },
                faults: faults_of(args)?,
                engine: args.engine.map(|e| {
                    match e {
                        super::bench::EngineKind::Tiered => "tiered",
                        super::bench::EngineKind::Jit => "jit",
                        super::bench::EngineKind::Interp => "interp",
                    }
                    .to_string()
                }),
                quiet: args.quiet,
                lease: args.lease.clone(),
                per_robot: per_robot(args, &robots)?,
            },
        ))
    })();
    let (world, config) = match setup {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    let stop = affect_net::clock::stop_flag(false);
    let outcome = match launch::run(&program, &world, &config, stop) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return FAILED;
        }
    };
    if !args.quiet {
        tell_summaries(&outcome, args.speed);
    }
    eprintln!(
        "affect launch: {} processes ({} robots, {} component restarts, {} robot restarts){}",
        outcome.processes.len(),
        outcome.robots.len(),
        outcome.restarts.len(),
        outcome.robot_restarts.len(),
        if outcome.interrupted {
            ", interrupted"
        } else {
            ""
        }
    );
    tell_recovery(&outcome);
    let failed: Vec<&(String, Option<i32>)> = outcome
        .robots
        .iter()
        .filter(|(_, c)| *c != Some(0))
        .collect();
    for (name, code) in &failed {
        eprintln!(
            "  {name} did not finish ({})",
            code.map_or("killed".to_string(), |c| format!("exit status {c}"))
        );
    }
    if let Some(path) = args.trace.as_deref().filter(|_| !args.quiet) {
        files::tell_written(path);
    }
    if outcome.interrupted || !failed.is_empty() {
        FAILED
    } else {
        OK
    }
}

/// The restarts (components and robots), the deaths nobody asked for, and how soon each
/// fault was found and repaired.
fn tell_recovery(outcome: &launch::Outcome) {
    for (host, component) in &outcome.restarts {
        eprintln!("  restarted {component} on {host}");
    }
    if !outcome.robot_restarts.is_empty() {
        let each: Vec<String> = (outcome.robot_restarts.iter())
            .map(|(r, t)| format!("{r} at {:.1}s", t / 1000.0))
            .collect();
        eprintln!(
            "  {} robot restart{}: {}",
            each.len(),
            if each.len() == 1 { "" } else { "s" },
            each.join(", ")
        );
    }
    for (name, t, how) in &outcome.deaths {
        eprintln!(
            "  {name} died at {:.1}s ({how}), not by a fault of this launch",
            t / 1000.0
        );
    }
    for m in outcome
        .measures
        .iter()
        .filter(|m| m.component == affect_net::merge::ROBOT)
    {
        let ms = |v: Option<f64>| v.map_or("never".to_string(), |x| format!("{:.0} ms", x));
        eprintln!(
            "  {}: {} found lost by its team after {}, {} {} later",
            m.fault,
            m.owner,
            ms(m.detected_after_ms),
            m.how.as_deref().unwrap_or("not back"),
            ms(m.recovered_after_ms)
        );
    }
    for m in outcome
        .measures
        .iter()
        .filter(|m| m.component != affect_net::merge::ROBOT)
    {
        let ms = |v: Option<f64>| v.map_or("never".to_string(), |x| format!("{:.0} ms", x));
        eprintln!(
            "  {}: {} of {}: detected after {} (heartbeat {} ms), {} {} later",
            m.fault,
            m.component,
            m.owner,
            ms(m.detected_after_ms),
            m.heartbeat_ms,
            m.how.as_deref().unwrap_or("not recovered"),
            ms(m.recovered_after_ms)
        );
    }
}

/// Each robot's end as `affect run` tells an agent's (its ticks, the root's status and
/// transitions), then one line for the whole launch: the world time it reached, how long
/// it took, and what the traces told.
fn tell_summaries(outcome: &launch::Outcome, speed: f64) {
    for s in &outcome.summaries {
        eprintln!(
            "{}: {} tick{}, root {}; transitions: {} RUNNING, {} SUCCESS, {} FAILURE, {} IDLE",
            s.name,
            s.ticks,
            if s.ticks == 1 { "" } else { "s" },
            s.root,
            s.statuses[1],
            s.statuses[2],
            s.statuses[3],
            s.statuses[0]
        );
    }
    let c = &outcome.counts;
    let mut told = Vec::new();
    if c.handed_over > 0 {
        told.push(format!("{} handed over", c.handed_over));
    }
    if c.failed > 0 {
        told.push(format!(
            "{} components found failed, {} back",
            c.failed, c.back
        ));
    }
    if c.refused > 0 {
        told.push(format!("{} messages refused", c.refused));
    }
    eprintln!(
        "ran {} robot{} to {:.1}s of world time (speed {speed}), in {:.1}s{}",
        outcome.robots.len(),
        if outcome.robots.len() == 1 { "" } else { "s" },
        outcome.world_ms / 1000.0,
        outcome.wall.as_secs_f64(),
        if told.is_empty() {
            String::new()
        } else {
            format!("; {}", told.join(", "))
        }
    );
}

#[derive(clap::Args)]
pub struct KeysArgs {
    /// The program whose world names the team: a key for every robot, every component
    /// host and the launcher.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[arg(long, value_name = "W")]
    pub world: Option<String>,
    /// The directory to write (`team.pub` and one `NAME.key` per member).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// A further member (a process in another language, say); repeatable.
    #[arg(long, value_name = "NAME")]
    pub member: Vec<String>,
    /// The team's name (default: the world's name).
    #[arg(long, value_name = "NAME")]
    pub team: Option<String>,
}

pub fn keys(args: &KeysArgs) -> u8 {
    let program = match load(&args.file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let result = (|| -> Result<Vec<String>, String> {
        let world = affect_net::world_of(&program, args.world.as_deref())?;
        let mut members = affect_net::startup::members(&program, world)?;
        members.extend(args.member.iter().cloned());
        members.dedup();
        let team = args.team.clone().unwrap_or_else(|| world.name.clone());
        let created = affect_net::keys::generate(&args.out, &team, &members)?;
        eprintln!(
            "team `{team}`: {} members in `{}` ({} new keys); give every machine `{}` and each member its own `NAME.key`",
            members.len(),
            args.out.display(),
            created.len(),
            affect_net::keys::TEAM_FILE
        );
        Ok(created)
    })();
    match result {
        Ok(_) => OK,
        Err(e) => {
            eprintln!("error: {e}");
            USAGE
        }
    }
}
