//! Robots as a library: what `affect run --hardware` does around a [`Run`](crate::run::Run),
//! so that a user's own binary (one with its own nodes and device drivers, docs/custom-nodes.md)
//! runs a program on the robot exactly as the command line does: the wall clock, Ctrl-C and
//! SIGTERM stopping at a tick boundary, the watchdog process guarding every actuator (and
//! watched in turn), systemd's notifications, the timing report, and `--record`.
//!
//! ```text
//! fn main() {
//!     let args: Vec<String> = std::env::args().skip(1).collect();
//!     let devices = my_devices();                       // a DeviceRegistry
//!     // The watchdog is this binary again: serve it when asked, and nothing else.
//!     if let Some(status) = robot::watchdog_command(&args, &devices, load) { exit(status) }
//!     let (mut clock, mut guard) = robot::prepare(file, &program, &config, &options)?;
//!     let mut both = robot::Both(&mut guard, &mut my_trace);
//!     let result = Run::new(&program, &config)?.run_to_end(&mut clock, &mut both);
//!     guard.finish()?;
//! }
//! ```
//!
//! The watchdog is started as `current_exe() __watchdog ...`: a binary that calls [`prepare`]
//! must call [`watchdog_command`] first thing, with the same device drivers. Its
//! [`safe_stop_command`] (`BINARY safe-stop FILE`) sets every actuator, its own devices' too,
//! to its safe state, and [`service::install_service_command`] writes the systemd unit that
//! runs the binary at boot and that safe stop after every stop of the unit.

mod observers;
pub mod service;

pub use observers::{describe, Heartbeat, StopOnSignal, TimingReport};

use crate::affect::persist;
use crate::hardware::watchdog::{self, ProgramOf, Watchdog, WatchdogSpec};
use crate::hardware::HardwareConfig;
use crate::hardware::{has_actuators, motor_board, open_actuators, DeviceRegistry};
use crate::realtime::{stop_on_signals, Stamp, WallClock};
use crate::record::{Header, Recorder, Recording, Tape};
use crate::run::{Flow, Observer, RunConfig, TickView};
use crate::trace::{Event, TraceSink};
use affect_compiler::ir::program::{AgentProgram, Program};
use std::io;
use std::path::{Path, PathBuf};

/// How a run on the robot is guarded (`affect run`'s `--watchdog-ms` and `--quiet`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RobotOptions {
    /// How long the run may go without finishing a tick before the watchdog stops the
    /// actuators; 0 runs without a watchdog.
    pub watchdog_ms: u64,
    /// Say nothing on stderr but errors (the devices bound to the simulator are told here).
    pub quiet: bool,
}

impl Default for RobotOptions {
    fn default() -> Self {
        RobotOptions {
            watchdog_ms: 500,
            quiet: false,
        }
    }
}

/// The observers of a wall-clock run, in the order they act: the stop request (a signal),
/// the timing report, the heartbeat (the watchdog and systemd).
pub struct RobotObservers {
    stop: StopOnSignal,
    timing: TimingReport,
    heartbeat: Option<Heartbeat>,
}

impl RobotObservers {
    /// The run is over: prints the timing line, says goodbye to the watchdog and systemd.
    /// `Err` when the run was stopped because it was no longer guarded (the watchdog gone).
    pub fn finish(&mut self) -> Result<(), String> {
        self.timing.finish();
        match &mut self.heartbeat {
            Some(h) => h.finish(),
            None => Ok(()),
        }
    }

    /// The watchdog's process id, when one guards the run.
    pub fn watchdog_pid(&self) -> Option<u32> {
        self.heartbeat.as_ref().and_then(Heartbeat::watchdog_pid)
    }
}

impl TraceSink for RobotObservers {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        self.timing.line(tick, t_ms, agent, ev)
    }
}

impl Observer for RobotObservers {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        let mut flow = self.stop.tick_done(t);
        if let Some(h) = &mut self.heartbeat {
            if h.tick_done(t) == Flow::Stop {
                flow = Flow::Stop;
            }
        }
        flow
    }
}

/// Two observers as one: every event to both, in order; the run stops when either says so.
pub struct Both<'a, A: Observer + ?Sized, B: Observer + ?Sized>(pub &'a mut A, pub &'a mut B);

impl<A: Observer + ?Sized, B: Observer + ?Sized> TraceSink for Both<'_, A, B> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        let a = self.0.line(tick, t_ms, agent, ev);
        let b = self.1.line(tick, t_ms, agent, ev);
        a.and(b)
    }
}

impl<A: Observer + ?Sized, B: Observer + ?Sized> Observer for Both<'_, A, B> {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        let a = self.0.tick_done(t);
        let b = self.1.tick_done(t);
        if a == Flow::Stop || b == Flow::Stop {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    fn memory_read(&mut self, path: &Path, places: usize) {
        self.0.memory_read(path, places);
        self.1.memory_read(path, places);
    }

    fn memory_written(&mut self, path: &Path, places: usize) {
        self.0.memory_written(path, places);
        self.1.memory_written(path, places);
    }
}

/// Sets a wall-clock run up (`config.hardware` for the robot, else `--realtime`): Ctrl-C and
/// SIGTERM stop it at the next tick boundary; on the robot, when its agent drives an
/// actuator, the watchdog starts (`current_exe() __watchdog`, see [`watchdog_command`]) and
/// guards it. `file` is the program's file, which the watchdog reads again. Returns the clock
/// to run on and the observers to add.
pub fn prepare(
    file: &Path,
    program: &Program,
    config: &RunConfig,
    options: &RobotOptions,
) -> Result<(WallClock, RobotObservers), String> {
    let stop = stop_on_signals().map_err(|e| e.to_string())?;
    let mut observers = RobotObservers {
        stop: StopOnSignal(stop.clone()),
        timing: TimingReport::default(),
        heartbeat: None,
    };
    let Some(hardware) = &config.hardware else {
        return Ok((WallClock::new(Stamp::Due, Some(stop)), observers));
    };
    // The story says it (the trace's `log` lines); quiet, it is said here.
    if options.quiet {
        for name in &hardware.simulated {
            eprintln!("note: `{name}` is simulated in the program's world (--sim-device), not read from hardware");
        }
    }
    // The watchdog guards every actuator on the robot: the motor board on a handle it holds
    // from the start, the others opened fresh when it must stop them.
    let agent = agent_of(program, config.agent.as_deref());
    let guarded = agent.is_some_and(|a| has_actuators(a, &hardware.simulated));
    let watchdog = if guarded && options.watchdog_ms > 0 {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let spec = WatchdogSpec {
            bound_ms: options.watchdog_ms,
            romi: agent.and_then(|a| motor_board(a, &hardware.simulated)),
            program: Some(ProgramOf {
                file: std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()),
                agent: config.agent.clone(),
                simulated: hardware.simulated.clone(),
            }),
        };
        let w =
            Watchdog::spawn(&exe, &spec).map_err(|e| format!("the watchdog did not start: {e}"))?;
        Some(w)
    } else {
        None
    };
    observers.heartbeat = Some(Heartbeat::new(watchdog));
    Ok((WallClock::new(Stamp::Actual, Some(stop)), observers))
}

/// The watchdog's entry: `args` are the binary's arguments (without its name). When they ask
/// for the watchdog (`__watchdog ...`, as [`prepare`] starts it) this serves it until it is
/// done and returns its exit status; otherwise `None`. `devices` are the drivers of the
/// user's devices (the watchdog sets their safe states too), `load` reads and checks the
/// program file the run names.
pub fn watchdog_command(
    args: &[String],
    devices: &DeviceRegistry,
    load: impl FnOnce(&Path) -> Result<Program, String>,
) -> Option<u8> {
    match args.split_first() {
        Some((first, rest)) if first == "__watchdog" => Some(serve_watchdog(rest, devices, load)),
        _ => None,
    }
}

/// The watchdog process (`__watchdog ARGS`): stops the motor board on its own handle, and
/// every other actuator as [`safe_stop`] does, whenever the run stops ticking, dies or it is
/// told to stop. Returns the exit status.
pub fn serve_watchdog(
    args: &[String],
    devices: &DeviceRegistry,
    load: impl FnOnce(&Path) -> Result<Program, String>,
) -> u8 {
    let spec = match WatchdogSpec::from_args(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("affect watchdog: {e}");
            return 2;
        }
    };
    let actuators = match &spec.program {
        Some(p) => {
            let program = match load(&p.file) {
                Ok(program) => program,
                Err(e) => {
                    eprintln!("affect watchdog: {e}");
                    return 1;
                }
            };
            if agent_of(&program, p.agent.as_deref()).is_none() {
                eprintln!("affect watchdog: the program has no agent to guard");
                return 2;
            }
            let cfg = HardwareConfig {
                simulated: p.simulated.clone(),
                devices: devices.clone(),
            };
            let agent = p.agent.clone();
            let stop = move || safe_stop(&program, agent.as_deref(), &cfg).map(drop);
            Some(Box::new(stop) as watchdog::StopActuators)
        }
        None => None,
    };
    watchdog::serve(&spec, actuators).clamp(0, 255) as u8
}

/// `safe-stop FILE [--agent A] [--sim-device NAME]...` of a user's binary, as `affect
/// safe-stop` (what the unit [`service::install_service_command`] writes runs after every
/// stop): every actuator of the robot's agent, the ones `devices` drive included, to its safe
/// state on handles of its own. `args` are the binary's arguments (without its name); `None`
/// when they do not ask for it, else the exit status (0; 1 naming what could not be set; 2
/// for a usage error).
pub fn safe_stop_command(
    args: &[String],
    devices: &DeviceRegistry,
    load: impl FnOnce(&Path) -> Result<Program, String>,
) -> Option<u8> {
    let ("safe-stop", rest) = args.split_first().map(|(a, r)| (a.as_str(), r))? else {
        return None;
    };
    let mut file = None;
    let mut cfg = HardwareConfig {
        simulated: Vec::new(),
        devices: devices.clone(),
    };
    let mut agent = None;
    const USAGE: &str = "safe-stop FILE [--agent A] [--sim-device NAME]...";
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--agent" | "--sim-device" => {
                let Some(v) = it.next() else {
                    eprintln!("error: {a} needs a value ({USAGE})");
                    return Some(2);
                };
                if a == "--agent" {
                    agent = Some(v.clone());
                } else {
                    cfg.simulated.push(v.clone());
                }
            }
            f if file.is_none() && !f.starts_with('-') => file = Some(PathBuf::from(f)),
            other => {
                eprintln!("error: safe-stop: unexpected {other} ({USAGE})");
                return Some(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("error: {USAGE}");
        return Some(2);
    };
    let program = match load(&file) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Some(1);
        }
    };
    Some(match safe_stop(&program, agent.as_deref(), &cfg) {
        Ok(n) => {
            eprintln!("{}", safe_stop_said(n, &file));
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    })
}

/// What a safe stop that set `n` actuators says.
pub fn safe_stop_said(n: usize, file: &Path) -> String {
    format!(
        "safe: {n} actuator{} of `{}` at {} safe state{}",
        if n == 1 { "" } else { "s" },
        file.display(),
        if n == 1 { "its" } else { "their" },
        if n == 1 { "" } else { "s" },
    )
}

/// The agent a run on the robot runs: `--agent`'s, else the first.
pub fn agent_of<'p>(program: &'p Program, agent: Option<&str>) -> Option<&'p AgentProgram> {
    match agent {
        Some(a) => program.agents.iter().find(|p| p.name == a),
        None => program.agents.first(),
    }
}

/// Opens the actuators of the robot's agent on fresh handles and sets each to its safe state
/// (`affect safe-stop`, the watchdog). `Ok(n)`: the number of actuators; `Err`: which could
/// not be opened or set.
pub fn safe_stop(
    program: &Program,
    agent: Option<&str>,
    cfg: &HardwareConfig,
) -> Result<usize, String> {
    let agent = agent_of(program, agent).ok_or("the program has no such agent")?;
    let mut opened = open_actuators(program, agent, cfg).map_err(|diags| {
        diags
            .iter()
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    opened.safe_stop();
    let failed: Vec<String> = opened
        .faults
        .drain()
        .into_iter()
        .map(|f| format!("`{}`: {}", f.device, f.error))
        .collect();
    if failed.is_empty() {
        Ok(opened.actuators())
    } else {
        Err(failed.join("; "))
    }
}

/// Records the run into `path` (`--record`): the header names the program `file` and
/// `sha256`, the SHA-256 (hex) of the texts its check read, and keeps the long-term memory
/// files as they are now (the run then starts from those very bytes); from now on every device
/// call of the run goes to the record. Returns the recorder, an observer whose `finish` must
/// be called when the run is over, and a warning to show (a torn end cut off).
pub fn record(
    path: &Path,
    file: &Path,
    sha256: &str,
    program: &Program,
    config: &mut RunConfig,
) -> Result<(Recorder, Option<String>), String> {
    let named = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let memories = memory_snapshot(program, config);
    let header = Header::of_run(&named.display().to_string(), sha256, config, memories);
    let tape = Tape::default();
    let (recorder, warning) = Recorder::create(path, header, tape.clone())
        .map_err(|e| format!("[{}] {}", e.code, e.message))?;
    config.recording = Some(Recording::Record(tape));
    Ok((recorder, warning))
}

/// The SHA-256 (hex) a record names its program by: of the texts the program's check read,
/// in the order read (the file, then each file it `use`s), each preceded by its length (a u64,
/// little-endian), so that two texts never hash as their concatenation. `affect replay`
/// refuses (E0613) a program whose texts give another.
pub fn program_sha256<'t>(texts: impl IntoIterator<Item = &'t str>) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for text in texts {
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The long-term memory files of the agents this run runs, each once, in declaration order.
pub fn memory_files(program: &Program, config: &RunConfig) -> Vec<PathBuf> {
    let Some(dir) = &config.persist_dir else {
        return Vec::new();
    };
    // `--agent UGV#2` runs the instances of `UGV`.
    let wanted = config
        .agent
        .as_deref()
        .map(|a| a.split('#').next().unwrap_or(a));
    let mut files: Vec<PathBuf> = Vec::new();
    for agent in &program.agents {
        if wanted.is_some_and(|w| w != agent.name) {
            continue;
        }
        for file in agent.memories.iter().filter_map(|m| m.persist.as_ref()) {
            let path = dir.join(file);
            if !files.contains(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// The memory files of the run as they are before it, by `persist` name (`None`: not there
/// yet), for its record; `None` when the run keeps its memories in memory (`--no-persist`).
/// Each file is read once, here: the run is handed the same bytes (`config.memories_read`),
/// so the record holds exactly what the run starts from.
pub fn memory_snapshot(
    program: &Program,
    config: &mut RunConfig,
) -> Option<Vec<(String, Option<Vec<u8>>)>> {
    let dir = config.persist_dir.clone()?;
    let ahead = persist::ReadAhead::read(memory_files(program, config));
    let files = ahead.files().filter_map(|(path, bytes)| {
        let name = path.strip_prefix(&dir).ok()?.to_str()?.to_string();
        // A file that cannot be read stops the run (E0603) before its first tick.
        Some((name, bytes.as_ref().ok().cloned().flatten()))
    });
    let files = files.collect();
    config.memories_read = ahead;
    Some(files)
}
