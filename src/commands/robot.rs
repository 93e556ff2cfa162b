//! `affect run --hardware` and `--realtime`: the wall clock, Ctrl-C and SIGTERM, the
//! watchdog, and what the run tells about devices it simulates.

use crate::observers::robot::{Heartbeat, StopOnSignal, TimingReport};
use crate::observers::Fanout;
use affect_compiler::ir::program::{AgentProgram, Program};
use affect_runtime::hardware::watchdog::{ProgramOf, Watchdog, WatchdogSpec};
use affect_runtime::hardware::{has_actuators, motor_board};
use affect_runtime::realtime::{stop_on_signals, Stamp, WallClock};
use affect_runtime::run::RunConfig;

/// Sets the wall-clock run up: signals, observers, the watchdog. Returns the clock. The run
/// is on hardware when `config.hardware` says so; `quiet` and `watchdog_ms` are `affect
/// run`'s `--quiet` and `--watchdog-ms`.
pub fn prepare(
    file: &std::path::Path,
    program: &Program,
    config: &RunConfig,
    quiet: bool,
    watchdog_ms: u64,
    observers: &mut Fanout,
) -> Result<WallClock, String> {
    let stop = stop_on_signals().map_err(|e| e.to_string())?;
    observers.add(StopOnSignal(stop.clone()));
    observers.add(TimingReport::default());
    let Some(hardware) = &config.hardware else {
        return Ok(WallClock::new(Stamp::Due, Some(stop)));
    };
    // The story says it (the trace's `log` lines); quiet, it is said here.
    if quiet {
        for name in &hardware.simulated {
            eprintln!("note: `{name}` is simulated in the program's world (--sim-device), not read from hardware");
        }
    }
    // The watchdog guards every actuator on the robot: the motor board on a handle it holds
    // from the start, the others opened fresh when it must stop them.
    let agent = agent_of(program, config);
    let guarded = agent.is_some_and(|a| has_actuators(a, &hardware.simulated));
    let watchdog = if guarded && watchdog_ms > 0 {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let spec = WatchdogSpec {
            bound_ms: watchdog_ms,
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
    observers.add(Heartbeat::new(watchdog));
    Ok(WallClock::new(Stamp::Actual, Some(stop)))
}

/// The agent that runs on hardware.
fn agent_of<'p>(program: &'p Program, config: &RunConfig) -> Option<&'p AgentProgram> {
    match &config.agent {
        Some(a) => program.agents.iter().find(|p| p.name == *a),
        None => program.agents.first(),
    }
}
