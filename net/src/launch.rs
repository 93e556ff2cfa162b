//! `affect launch`: one process per robot and per component host of a world, on loopback
//! Zenoh, supervised. The launcher is a member of the team itself: it listens on the first
//! port, every process connects to it (gossip links the rest), it says `start` once every
//! process sees every other, injects the faults it was asked for, starts a component again
//! when a robot's supervisor asks (`restart`), and at the end merges the processes' traces.
//!
//! No process is left behind: each child's standard input is a pipe the launcher holds (a
//! child stops when it closes, so also when the launcher dies), the launcher stops every
//! child at the end or on Ctrl-C (SIGTERM, then SIGKILL after a grace period), and waits
//! for each one.

use crate::clock::{team_clock, unix_ms};
use crate::faults::{Fault, FaultKind};
use crate::keys::{self, Identity, TeamKeys, LAUNCHER};
use crate::node::{self, Endpoints, Node};
use crate::wire::{self, Alive, Body};
use affect_compiler::ir::program::Program;
use affect_compiler::ir::world::WorldSpec;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the processes may take to start and see each other.
const STARTUP_LIMIT: Duration = Duration::from_secs(120);
/// Wall time between `start` and world time 0.
const START_LEAD_MS: f64 = 300.0;
/// How long a stopped child may take to exit before it is killed.
const GRACE: Duration = Duration::from_secs(5);
/// A restart asked for again within this wall time of the last one is the same restart.
const RESTART_DEBOUNCE: Duration = Duration::from_secs(2);

#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// The `affect` binary the children run.
    pub exe: PathBuf,
    pub file: PathBuf,
    pub world: Option<String>,
    pub ticks: Option<u64>,
    pub seed: Option<u64>,
    pub speed: f64,
    /// Message loss instead of the world's.
    pub loss: Option<f64>,
    pub trace: Option<PathBuf>,
    /// The team's key directory; `None`: fresh keys for this launch, thrown away after.
    pub keys: Option<PathBuf>,
    /// Every process's freshness window, in wall-clock ms (`None`: the default).
    pub freshness_ms: Option<f64>,
    pub faults: Vec<Fault>,
    /// `--engine` for the robots.
    pub engine: Option<String>,
    pub quiet: bool,
    /// The robots' liveliness lease (`--lease`, passed on as given).
    pub lease: Option<String>,
    /// Options for one robot only: (robot, flag, value), such as `("UGV#3", "--groot2",
    /// "1667")` from `--groot2 UGV#3=1667`.
    pub per_robot: Vec<(String, String, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Robot,
    Host,
}

struct Proc {
    name: String,
    role: Role,
    child: Child,
    trace: PathBuf,
    exit: Option<ExitStatus>,
    /// Killed by a fault (its exit is expected).
    killed: bool,
    /// Paused by a fault until this world time.
    resume_at: Option<f64>,
    /// A robot that died and was started again (a newer `Proc` runs it now).
    replaced: bool,
}

/// What a launch did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Robots that ran to their end: (name, exit status code).
    pub robots: Vec<(String, Option<i32>)>,
    /// Component processes started again.
    pub restarts: Vec<(String, String)>,
    /// Robots that died and were started again, with the world time (ms) of each restart.
    pub robot_restarts: Vec<(String, f64)>,
    /// Children that died without a fault asking (an external `kill -9`, a crash): name,
    /// world ms, how.
    pub deaths: Vec<(String, f64, String)>,
    pub interrupted: bool,
    /// Processes that ran, with their pids.
    pub processes: Vec<(String, u32)>,
    /// Failure detection and recovery, per fault and component.
    pub measures: Vec<crate::merge::Measure>,
    /// What the traces told (tasks handed over, components failed and back, messages
    /// refused), the world time the launch reached and how long it took.
    pub counts: crate::progress::Counts,
    pub world_ms: f64,
    pub wall: Duration,
    /// Each robot's end, from its trace's `summary` line, in launch order.
    pub summaries: Vec<RobotSummary>,
}

/// How a robot's run ended, as `affect run` summarises an agent.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotSummary {
    pub name: String,
    pub ticks: u64,
    pub root: String,
    /// Transitions into IDLE, RUNNING, SUCCESS, FAILURE.
    pub statuses: [u64; 4],
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

fn endpoint(port: u16) -> String {
    format!("tcp/127.0.0.1:{port}")
}

#[cfg(unix)]
fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on a child we spawned and have not reaped (its pid is still ours).
    unsafe {
        libc::kill(child.id() as libc::pid_t, sig);
    }
}

/// A scratch directory for the children's traces (and fresh keys), removed at the end, and
/// by its reaper if the launcher dies first (`kill -9`): a shell whose standard input is a
/// pipe only the launcher holds. When the pipe closes, the reaper removes the directory
/// (again, while the children, which stop when their own pipes close, may still be writing
/// their last lines). It ignores the terminal's signals, so Ctrl-C does not take it first.
struct Scratch(PathBuf, Option<Child>);

impl Scratch {
    fn create(path: PathBuf) -> Result<Scratch, String> {
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
        Ok(Scratch(path.clone(), reaper(&path)?))
    }
}

#[cfg(unix)]
fn reaper(path: &Path) -> Result<Option<Child>, String> {
    Command::new("/bin/sh")
        .args([
            "-c",
            "trap '' INT TERM HUP; cat >/dev/null; \
                 for i in 1 2 3 4 5 6 7 8 9 10; do \
                 rm -rf \"$0\"; [ -e \"$0\" ] || exit 0; sleep 0.5; done",
        ])
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(Some)
        .map_err(|e| format!("cannot start the cleaner of `{}`: {e}", path.display()))
}

#[cfg(not(unix))]
fn reaper(_path: &Path) -> Result<Option<Child>, String> {
    Ok(None)
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        if let Some(mut reaper) = self.1.take() {
            drop(reaper.stdin.take());
            let _ = reaper.wait();
        }
    }
}

/// Runs a launch to its end (every robot done), or until `stop` is set (Ctrl-C).
pub fn run(
    program: &Program,
    world: &WorldSpec,
    config: &LaunchConfig,
    stop: Arc<AtomicBool>,
) -> Result<Outcome, String> {
    let team = world.name.clone();
    let scratch = Scratch::create(std::env::temp_dir().join(format!(
        "affect-launch-{}-{}",
        std::process::id(),
        unix_ms() as u64
    )))?;
    let members = crate::startup::members(program, world)?;
    let key_dir = match &config.keys {
        Some(d) => d.clone(),
        None => fresh_keys(&scratch.0, &team, &members)?,
    };
    check_faults(&config.faults, &members)?;
    let hub = free_port()?;
    let mut me = join_as_launcher(hub, &team, &key_dir, config)?;
    let restart_in = me.subscribe("restart")?;
    // Only the launcher says `start` and `partition`: one under its name from elsewhere (an
    // old launch's, replayed) is refused and told.
    let control_in = me.subscribe("control")?;
    let mut refusals = crate::refusals::Refusals::create(&scratch.0.join("launch.jsonl"))?;
    let alive_in = me.watch_alive()?;
    let ready_in = watch_ready(&me)?;

    let began = Instant::now();
    let mut progress = crate::progress::Progress::new(
        world_end_ms(program, world, config.ticks),
        program.agents.iter().any(|a| !a.recruitments.is_empty()),
        !world.hosts.is_empty(),
        config.quiet,
    );
    let mut procs: Vec<Proc> = Vec::new();
    let mut spawner = Spawner {
        config,
        key_dir: &key_dir,
        team: &team,
        hub,
        scratch: &scratch.0,
        world: &world.name,
        epoch: None,
        spawned: 0,
    };
    for (r, _) in crate::host::instances(world, program)? {
        procs.push(spawner.spawn(Role::Robot, &r, &[], None)?);
    }
    for h in &world.hosts {
        procs.push(spawner.spawn(Role::Host, &h.name, &[], None)?);
    }
    for p in &procs {
        progress.watch(&p.trace);
    }
    progress.watch(refusals.path());
    let mut outcome = Outcome::default();
    // Everyone up and linked, then start.
    let expected: BTreeSet<String> = members.iter().filter(|m| *m != LAUNCHER).cloned().collect();
    outcome.interrupted = !wait_ready(&mut procs, &ready_in, &team, &expected, &stop)?;
    let epoch = unix_ms() + START_LEAD_MS;
    let clock = team_clock(epoch, config.speed, stop.clone());
    // The launcher is of this launch before it says so: its `start` and everything after
    // are from a process no older than the epoch, which the others then hold to.
    me.learn_launch(epoch);
    if !outcome.interrupted {
        me.publish(0.0, None, Vec::new(), Body::Start { epoch_ms: epoch });
    }
    spawner.epoch = Some(epoch);
    let mut faults = config.faults.clone();
    faults.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    let mut fault_log: Vec<(Fault, f64)> = Vec::new();
    let mut restarts = Restarts::default();
    while !outcome.interrupted {
        if clock.stopped() {
            outcome.interrupted = true;
            break;
        }
        let now = clock.now_ms();
        while faults.first().is_some_and(|f| f.at_ms <= now) {
            let f = faults.remove(0);
            inject(&f, &mut procs, &mut me, now);
            fault_log.push((f, now));
        }
        for p in &mut procs {
            if p.resume_at.is_some_and(|t| t <= now) {
                p.resume_at = None;
                #[cfg(unix)]
                signal(&p.child, libc::SIGCONT);
            }
        }
        for (key, up) in alive_in.drain() {
            restarts.heard(&team, &key, up);
        }
        for raw in restart_in.drain() {
            if let Some(m) = me.accept(&raw) {
                restarts.ask(m.body, now, program, world);
            }
        }
        restarts.retry(now, program, world);
        for raw in control_in.drain() {
            me.accept(&raw);
        }
        refusals.take(&mut me, now);
        while let Some((host, component)) = restarts.due(now) {
            let p = spawner.spawn(
                Role::Host,
                &host,
                std::slice::from_ref(&component),
                Some(epoch),
            )?;
            progress.watch(&p.trace);
            procs.push(p);
            outcome.restarts.push((host, component));
        }
        for again in exits(&mut procs, now, &mut outcome, &mut fault_log) {
            let p = spawner.spawn(Role::Robot, &again, &[], Some(epoch))?;
            progress.watch(&p.trace);
            procs.push(p);
        }
        let robots = procs
            .iter()
            .filter(|p| p.role == Role::Robot && !p.replaced);
        let running = robots.clone().filter(|p| p.exit.is_none()).count();
        progress.tick(now, running, robots.count());
        outcome.world_ms = now.max(0.0);
        if running == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    shut_down(&mut procs);
    refusals.take(&mut me, clock.now_ms());
    progress.look();
    outcome.counts = progress.counts;
    outcome.wall = began.elapsed();
    conclude(
        &procs,
        refusals.path(),
        outcome,
        &fault_log,
        program,
        world,
        config,
    )
}

/// The launcher's own place in the team, listening on the hub port every process connects
/// to, with the launch's freshness window.
fn join_as_launcher(
    hub: u16,
    team: &str,
    key_dir: &Path,
    config: &LaunchConfig,
) -> Result<Node, String> {
    let session = node::open(&Endpoints {
        listen: vec![endpoint(hub)],
        ..Endpoints::default()
    })?;
    if !config.quiet {
        // Where another program (a monitor, a Python member) joins the team.
        eprintln!("launch: the team meets at {}", endpoint(hub));
    }
    let mut me = Node::join(
        session,
        team,
        LAUNCHER,
        Some(Identity::load(key_dir, LAUNCHER)?),
        Some(TeamKeys::load(key_dir)?),
    )?;
    if let Some(w) = config.freshness_ms {
        me.acceptance.window_ms = w;
    }
    Ok(me)
}

/// The world time the longest-running robot takes: its ticks (`--ticks`, else the world's,
/// else 100, as `affect run` counts them) at its rate.
fn world_end_ms(program: &Program, world: &WorldSpec, ticks: Option<u64>) -> Option<f64> {
    let ticks = ticks.or(world.ticks).unwrap_or(100) as f64;
    let robots = crate::host::instances(world, program).ok()?;
    robots
        .iter()
        .filter_map(|(_, p)| program.agents.iter().find(|a| a.name == *p))
        .map(|a| ticks / a.rate_hz * 1000.0)
        .filter(|ms| ms.is_finite())
        .max_by(f64::total_cmp)
}

/// A component: its owner (none for a host's own) and its name.
type ComponentId = (Option<String>, String);

/// The restarts hosts ask the launcher for: which components are alive, which restarts were
/// asked for lately (a restart is asked by every host that missed the heartbeats), and those
/// waiting for their component's `startup` time (world time) to pass: (due, who, host).
#[derive(Default)]
struct Restarts {
    live: BTreeSet<ComponentId>,
    asked: BTreeMap<ComponentId, Instant>,
    starting: Vec<(f64, ComponentId, String)>,
    /// Asked while its token was still up: asked again when the token goes (a host withdraws
    /// a silent component's token at its `timeout`, the moment its users ask), for a while.
    held: Vec<(Body, Instant)>,
}

/// How long a restart asked for a component whose token is still up waits for the token
/// to go.
const HOLD: Duration = Duration::from_secs(5);

impl Restarts {
    /// A liveliness token appeared (`up`) or went.
    fn heard(&mut self, team: &str, key: &str, up: bool) {
        if let Some(Alive::Component {
            owner, component, ..
        }) = wire::parse_alive(team, key)
        {
            if up {
                self.live.insert((owner, component));
            } else {
                self.live.remove(&(owner, component));
            }
        }
    }

    /// A host asks for a restart: granted unless the component is alive, already starting
    /// or was asked for within the debounce time, and only on a host that can take it.
    fn ask(&mut self, body: Body, now: f64, program: &Program, world: &WorldSpec) {
        let Body::Restart {
            owner,
            component,
            host,
        } = body
        else {
            return;
        };
        let id = (owner.clone(), component.clone());
        if self.live.contains(&id) {
            let body = Body::Restart {
                owner,
                component,
                host,
            };
            self.held.push((body, Instant::now()));
            return;
        }
        if self.starting.iter().any(|(_, w, _)| *w == id)
            || self
                .asked
                .get(&id)
                .is_some_and(|t| t.elapsed() < RESTART_DEBOUNCE)
        {
            return;
        }
        let Some(host) = restart_host(world, host, &component) else {
            return;
        };
        self.asked.insert(id.clone(), Instant::now());
        let due = now + startup_ms(program, owner.as_deref(), &component);
        self.starting.push((due, id, host));
    }

    /// The held restarts whose component's token has gone since, asked again.
    fn retry(&mut self, now: f64, program: &Program, world: &WorldSpec) {
        let held = std::mem::take(&mut self.held);
        for (body, at) in held {
            let Body::Restart {
                owner, component, ..
            } = &body
            else {
                continue;
            };
            if at.elapsed() > HOLD {
                continue;
            }
            if self.live.contains(&(owner.clone(), component.clone())) {
                self.held.push((body, at));
            } else {
                self.ask(body, now, program, world);
            }
        }
    }

    /// A restart whose start-up time has passed, as (host, component): its new process comes
    /// up now, as in simulation.
    fn due(&mut self, now: f64) -> Option<(String, String)> {
        let i = self.starting.iter().position(|(due, ..)| *due <= now)?;
        let (_, (_, component), host) = self.starting.remove(i);
        Some((host, component))
    }
}

/// After the launch: who ran, the merged trace and what it says about the faults.
fn conclude(
    procs: &[Proc],
    launcher_trace: &Path,
    mut outcome: Outcome,
    fault_log: &[(Fault, f64)],
    program: &Program,
    world: &WorldSpec,
    config: &LaunchConfig,
) -> Result<Outcome, String> {
    for p in procs {
        outcome.processes.push((p.name.clone(), p.child.id()));
        if p.role == Role::Robot && !p.killed && !p.replaced {
            outcome
                .robots
                .push((p.name.clone(), p.exit.and_then(|s| s.code())));
        }
    }
    let mut traces: Vec<&Path> = procs.iter().map(|p| p.trace.as_path()).collect();
    traces.push(launcher_trace);
    let merged = crate::merge::merge(&traces)?;
    outcome.measures = crate::merge::measure(&merged, fault_log, program, world);
    outcome.summaries = summaries(&merged, procs);
    if let Some(out) = &config.trace {
        crate::merge::write(&merged, out)?;
    }
    Ok(outcome)
}

/// Each robot's `summary` line, in launch order (a robot killed before its end has none).
fn summaries(merged: &[crate::merge::Line], procs: &[Proc]) -> Vec<RobotSummary> {
    let mut found: BTreeMap<String, RobotSummary> = BTreeMap::new();
    for v in merged
        .iter()
        .filter(|l| l.is("summary"))
        .filter_map(|l| l.value())
    {
        let (Some(name), Some(ticks)) = (v["agent"].as_str(), v["ticks"].as_u64()) else {
            continue;
        };
        let n = |k: &str| v["statuses"][k].as_u64().unwrap_or(0);
        found.insert(
            name.to_string(),
            RobotSummary {
                name: name.to_string(),
                ticks,
                root: v["root"].as_str().unwrap_or("?").to_string(),
                statuses: [n("IDLE"), n("RUNNING"), n("SUCCESS"), n("FAILURE")],
            },
        );
    }
    procs
        .iter()
        .filter(|p| p.role == Role::Robot && !p.replaced)
        .filter_map(|p| found.remove(&p.name))
        .collect()
}

/// The children that ended since the last look: a death nobody asked for (an external
/// `kill -9`, a crash) is logged as a kill at `now` is, so it is measured; the robots among
/// the dead are to be started again at once, as systemd's `Restart=` would (their names
/// are returned, their restarts noted).
fn exits(
    procs: &mut [Proc],
    now: f64,
    outcome: &mut Outcome,
    fault_log: &mut Vec<(Fault, f64)>,
) -> Vec<String> {
    let mut again = Vec::new();
    for p in procs.iter_mut().filter(|p| p.exit.is_none()) {
        let Ok(Some(status)) = p.child.try_wait() else {
            continue;
        };
        p.exit = Some(status);
        let died = died(status);
        if let (Some(how), false) = (&died, p.killed) {
            outcome.deaths.push((p.name.clone(), now, how.clone()));
            let fault = Fault {
                target: p.name.clone(),
                at_ms: now,
                kind: FaultKind::Kill,
            };
            fault_log.push((fault, now));
        }
        if p.role == Role::Robot && (died.is_some() || p.killed) {
            p.replaced = true;
            again.push(p.name.clone());
            outcome.robot_restarts.push((p.name.clone(), now));
        }
    }
    again
}

/// How a child died, when it did not exit by itself: killed by a signal.
fn died(status: ExitStatus) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal().map(|s| format!("killed by signal {s}"))
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// Keys for this launch only, in its scratch directory.
fn fresh_keys(scratch: &Path, team: &str, members: &[String]) -> Result<PathBuf, String> {
    let d = scratch.join("keys");
    keys::generate(&d, team, members)?;
    Ok(d)
}

/// Every fault names a process of the launch.
fn check_faults(faults: &[Fault], members: &[String]) -> Result<(), String> {
    for f in faults {
        if !members.contains(&f.target) || f.target == LAUNCHER {
            return Err(format!(
                "--{} {}: no robot or host of that name (processes: {})",
                f.kind.name(),
                f.target,
                members
                    .iter()
                    .filter(|m| *m != LAUNCHER)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(())
}

/// Where a component starts again: the host its supervisor chose, if the world has it, else
/// the host the world first placed it on.
/// A component's declared start-up time (`startup 25s;`, world ms): its owner's own
/// component of that name (the instance `UGV#2` runs `UGV`), else the file's shared one.
fn startup_ms(program: &Program, owner: Option<&str>, component: &str) -> f64 {
    let program_of = |o: &str| o.split_once('#').map_or(o, |(p, _)| p).to_string();
    let owner = owner.map(program_of);
    program
        .agents
        .iter()
        .filter(|a| owner.as_deref() == Some(a.name.as_str()))
        .flat_map(|a| &a.components)
        .chain(&program.components)
        .find(|c| c.name == component)
        .map_or(0.0, |c| c.startup_ms)
}

fn restart_host(world: &WorldSpec, chosen: Option<String>, component: &str) -> Option<String> {
    chosen
        .filter(|h| world.hosts.iter().any(|x| x.name == *h))
        .or_else(|| {
            world
                .hosts
                .iter()
                .find(|h| h.components.iter().any(|c| c.name == component))
                .map(|h| h.name.clone())
        })
}

/// Waits until every expected process is ready; false when interrupted meanwhile. A process
/// that exits before, or a start that takes too long, stops every process and fails.
fn wait_ready(
    procs: &mut [Proc],
    ready_in: &crate::node::LiveInbox,
    team: &str,
    expected: &BTreeSet<String>,
    stop: &AtomicBool,
) -> Result<bool, String> {
    let began = Instant::now();
    let mut ready: BTreeSet<String> = BTreeSet::new();
    while ready != *expected {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if began.elapsed() > STARTUP_LIMIT {
            let missing: Vec<String> = expected.difference(&ready).cloned().collect();
            shut_down(procs);
            return Err(format!(
                "the processes did not all start within {} s (not ready: {})",
                STARTUP_LIMIT.as_secs(),
                missing.join(", ")
            ));
        }
        for i in 0..procs.len() {
            if let Ok(Some(status)) = procs[i].child.try_wait() {
                let name = procs[i].name.clone();
                shut_down(procs);
                return Err(format!("`{name}` exited before the start ({status})"));
            }
        }
        for (key, up) in ready_in.drain() {
            if let Some(m) = ready_member(team, &key) {
                if up {
                    ready.insert(m);
                } else {
                    ready.remove(&m);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(true)
}

fn watch_ready(node: &Node) -> Result<crate::node::LiveInbox, String> {
    node.watch(wire::ready_all(&node.team))
}

fn ready_member(team: &str, key: &str) -> Option<String> {
    let prefix = format!("affect/v{}/{}/", wire::VERSION, wire::chunk(team));
    let member = key.strip_prefix(&prefix)?.strip_suffix("/ready")?;
    Some(wire::unchunk(member))
}

fn inject(f: &Fault, procs: &mut [Proc], me: &mut Node, now: f64) {
    for p in procs
        .iter_mut()
        .filter(|p| p.name == f.target && p.exit.is_none() && !p.killed)
    {
        match f.kind {
            FaultKind::Kill => {
                #[cfg(unix)]
                signal(&p.child, libc::SIGKILL);
                #[cfg(not(unix))]
                let _ = p.child.kill();
                p.killed = true;
            }
            FaultKind::Pause { for_ms } => {
                #[cfg(unix)]
                signal(&p.child, libc::SIGSTOP);
                p.resume_at = Some(now + for_ms);
            }
            FaultKind::Partition { .. } => {}
        }
    }
    if let FaultKind::Partition { for_ms } = f.kind {
        me.publish(
            now,
            Some(f.target.clone()),
            Vec::new(),
            Body::Partition { for_ms },
        );
    }
}

/// Stops every child still running: its input closes and it gets SIGTERM (a paused one
/// SIGCONT first); whatever is still there after the grace period is killed; all are
/// reaped.
fn shut_down(procs: &mut [Proc]) {
    for p in procs.iter_mut() {
        drop(p.child.stdin.take());
        if p.exit.is_none() {
            #[cfg(unix)]
            {
                signal(&p.child, libc::SIGCONT);
                signal(&p.child, libc::SIGTERM);
            }
        }
    }
    let until = Instant::now() + GRACE;
    loop {
        let mut running = false;
        for p in procs.iter_mut() {
            if p.exit.is_none() {
                match p.child.try_wait() {
                    Ok(Some(s)) => p.exit = Some(s),
                    Ok(None) => running = true,
                    Err(_) => {}
                }
            }
        }
        if !running {
            return;
        }
        if Instant::now() > until {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for p in procs.iter_mut().filter(|p| p.exit.is_none()) {
        let _ = p.child.kill();
        p.exit = p.child.wait().ok();
    }
}

/// Starts the children with what they share.
struct Spawner<'a> {
    config: &'a LaunchConfig,
    key_dir: &'a Path,
    team: &'a str,
    hub: u16,
    scratch: &'a Path,
    world: &'a str,
    epoch: Option<f64>,
    /// Processes started so far (names their trace files apart).
    spawned: u32,
}

impl Spawner<'_> {
    fn spawn(
        &mut self,
        role: Role,
        name: &str,
        only: &[String],
        epoch: Option<f64>,
    ) -> Result<Proc, String> {
        self.spawned += 1;
        let c = self.config;
        let trace = self.scratch.join(format!(
            "{}-{}-{}.jsonl",
            wire::chunk(name),
            self.spawned,
            unix_ms() as u64
        ));
        let mut cmd = Command::new(&c.exe);
        match role {
            Role::Robot => {
                cmd.arg("run")
                    .arg(&c.file)
                    .args(["--agent", name, "--net", "--quiet"]);
                // Its own memory folder in the launch's (the program's folder is not its to
                // write): it saves its memories there as it runs, and a process started
                // again for it reads them back.
                let memory = self.scratch.join("memory").join(wire::chunk(name));
                std::fs::create_dir_all(&memory)
                    .map_err(|e| format!("cannot make `{}`: {e}", memory.display()))?;
                cmd.arg("--memory-dir").arg(&memory);
                if let Some(t) = c.ticks {
                    cmd.args(["--ticks", &t.to_string()]);
                }
                if let Some(e) = &c.engine {
                    cmd.args(["--engine", e]);
                }
                if let Some(l) = &c.lease {
                    cmd.args(["--lease", l]);
                }
                for (_, flag, value) in c.per_robot.iter().filter(|(r, ..)| r == name) {
                    cmd.args([flag, value]);
                }
            }
            Role::Host => {
                cmd.arg("host").arg(&c.file).args(["--host", name]);
                for o in only {
                    cmd.args(["--component", o]);
                }
            }
        }
        cmd.args(["--world", self.world, "--team", self.team]);
        cmd.arg("--keys").arg(self.key_dir);
        cmd.args(["--connect", &endpoint(self.hub)]);
        // Port 0: the child binds a free port itself and gossip tells the others where it is.
        // A port picked here and bound later by the child could be taken in between (by an
        // outgoing connection of a test running beside it: "Address already in use").
        cmd.args(["--listen", &endpoint(0)]);
        cmd.args(["--speed", &c.speed.to_string()]);
        if let Some(s) = c.seed {
            cmd.args(["--seed", &s.to_string()]);
        }
        if let Some(l) = c.loss {
            cmd.args(["--loss", &l.to_string()]);
        }
        if let Some(w) = c.freshness_ms {
            cmd.args(["--freshness", &w.to_string()]);
        }
        match epoch.or(self.epoch) {
            Some(e) => {
                cmd.args(["--epoch", &format!("{e:.3}")]);
            }
            None => {
                cmd.arg("--await-start");
            }
        }
        cmd.arg("--trace").arg(&trace);
        cmd.stdin(Stdio::piped());
        if c.quiet {
            cmd.stdout(Stdio::null());
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", c.exe.display()))?;
        Ok(Proc {
            name: name.to_string(),
            role,
            child,
            trace,
            exit: None,
            killed: false,
            resume_at: None,
            replaced: false,
        })
    }
}
