//! A user's own binary that runs a program on the robot as `affect run --hardware` does, with
//! devices of its own (src/romi_devices.rs) next to affect's built-in ones: the wall clock,
//! Ctrl-C and SIGTERM stopping at a tick boundary, the watchdog (this very binary, started as
//! `rover __watchdog ...`) guarding every actuator, its own devices' safe states included,
//! systemd's notifications, the timing line and `--record`, all from `affect_runtime::robot`.
//!
//!     rover FILE.affect [--ticks N] [--sim-device NAME]... [--watchdog-ms MS]
//!                       [--trace FILE] [--record FILE]
//!     rover safe-stop FILE.affect [--sim-device NAME]...
//!     rover install-service FILE.affect [--user USER] [-o UNIT | --dry-run] [-- RUN OPTIONS]
//!
//! `safe-stop` sets every actuator, this crate's own included, to its safe state on handles
//! of its own; `install-service` writes the systemd unit that runs `rover FILE RUN OPTIONS` at
//! boot and `rover safe-stop FILE` after every stop of the unit.

mod romi_devices;

use affect_compiler::ir::program::Program;
use affect_runtime::hardware::HardwareConfig;
use affect_runtime::realtime::WallClock;
use affect_runtime::robot::{self, Both, RobotObservers, RobotOptions};
use affect_runtime::run::{Observer, Run, RunConfig};
use affect_runtime::trace::{JsonLines, NoTrace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The program file read and checked as the toolchain does (a regular file, bounded, UTF-8);
/// the diagnostics printed.
fn load(file: &Path) -> Result<(Program, String), String> {
    let src = affect_files::read_source(file).map_err(|e| e.to_string())?;
    let analysis = affect_compiler::check_source_with(&src, &affect_compiler::sema::NoFiles);
    let name = file.display().to_string();
    for d in &analysis.diagnostics {
        eprint!("{}", affect_compiler::render::human(d, &name, &src, false));
    }
    match analysis.program {
        Some(p) => Ok((p, src)),
        None => Err(format!("`{name}` does not check")),
    }
}

#[derive(Default)]
struct Options {
    file: PathBuf,
    ticks: u64,
    simulated: Vec<String>,
    watchdog_ms: Option<u64>,
    trace: Option<PathBuf>,
    record: Option<PathBuf>,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        ticks: 100,
        ..Options::default()
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--ticks" => o.ticks = value()?.parse().map_err(|_| "--ticks N")?,
            "--sim-device" => o.simulated.push(value()?.clone()),
            "--watchdog-ms" => {
                o.watchdog_ms = Some(value()?.parse().map_err(|_| "--watchdog-ms MS")?)
            }
            "--trace" => o.trace = Some(value()?.into()),
            "--record" => o.record = Some(value()?.into()),
            file if o.file.as_os_str().is_empty() && !file.starts_with('-') => o.file = file.into(),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.file.as_os_str().is_empty() {
        return Err("usage: rover FILE.affect [--ticks N] [--sim-device NAME]... [--watchdog-ms MS] [--trace FILE] [--record FILE]".into());
    }
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let devices = romi_devices::registry();
    let program = |f: &Path| load(f).map(|(p, _)| p);
    // The watchdog is this binary again: serve it when asked to, with the same drivers.
    if let Some(status) = robot::watchdog_command(&args, &devices, program) {
        return ExitCode::from(status);
    }
    // So is the safe stop systemd runs after every stop of the unit (`ExecStopPost=`), which
    // `rover install-service` writes.
    if let Some(status) = robot::safe_stop_command(&args, &devices, program) {
        return ExitCode::from(status);
    }
    if let Some(status) =
        robot::service::install_service_command(&args, "rover install-service", program)
    {
        return ExitCode::from(status);
    }
    match run(&args, devices) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String], devices: affect_runtime::hardware::DeviceRegistry) -> Result<(), String> {
    let o = options(args)?;
    let (program, src) = load(&o.file)?;
    let mut config = RunConfig {
        ticks: o.ticks,
        hardware: Some(HardwareConfig {
            simulated: o.simulated.clone(),
            devices,
        }),
        timing: true,
        ..RunConfig::default()
    };
    let mut recorder = match &o.record {
        Some(path) => {
            let sha256 = robot::program_sha256([src.as_str()]);
            let (r, warning) = robot::record(path, &o.file, &sha256, &program, &mut config)?;
            if let Some(w) = warning {
                eprintln!("warning: {w}");
            }
            Some(r)
        }
        None => None,
    };
    let mut options = RobotOptions {
        quiet: true,
        ..RobotOptions::default()
    };
    if let Some(ms) = o.watchdog_ms {
        options.watchdog_ms = ms;
    }
    let (mut clock, mut guard) = robot::prepare(&o.file, &program, &config, &options)?;
    let mut trace: Box<dyn Observer> = match &o.trace {
        Some(path) => {
            let file =
                std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Box::new(JsonLines::new(std::io::BufWriter::new(file)))
        }
        None => Box::new(NoTrace),
    };
    let result = run_on(
        &program,
        &config,
        &mut clock,
        &mut guard,
        &mut *trace,
        &mut recorder,
    );
    drop(trace);
    let completed = result.is_ok();
    let guarded = guard.finish();
    if let Some(r) = &mut recorder {
        r.finish(completed)
            .map_err(|e| format!("the record: {e}"))?;
    }
    let summaries = result?;
    guarded?;
    for s in summaries {
        eprintln!("{}: {} ticks, root {:?}", s.agent, s.ticks, s.root);
    }
    Ok(())
}

/// The run itself, every event to the robot's observers, the trace and the record.
fn run_on(
    program: &Program,
    config: &RunConfig,
    clock: &mut WallClock,
    guard: &mut RobotObservers,
    trace: &mut dyn Observer,
    recorder: &mut Option<affect_runtime::record::Recorder>,
) -> Result<Vec<affect_runtime::run::AgentSummary>, String> {
    let run = Run::new(program, config).map_err(|diags| describe(&diags))?;
    let mut both = Both(guard, trace);
    let result = match recorder {
        Some(r) => run.run_to_end(clock, &mut Both(&mut both, r)),
        None => run.run_to_end(clock, &mut both),
    };
    result.map_err(|diags| describe(&diags))
}

fn describe(diags: &[affect_compiler::diagnostic::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("[{}] {}", d.code, d.message))
        .collect::<Vec<_>>()
        .join("; ")
}
