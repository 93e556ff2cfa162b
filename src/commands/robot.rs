//! `affect run --hardware` and `--realtime`: the wall clock, Ctrl-C and SIGTERM, the
//! watchdog, and what the run tells about devices it simulates.

use crate::observers::robot::{Heartbeat, StopOnSignal, TimingReport};
use crate::observers::Fanout;
use affect_compiler::ir::program::Program;
use affect_runtime::hardware::motor_board;
use affect_runtime::hardware::watchdog::{Watchdog, WatchdogSpec};
use affect_runtime::realtime::{stop_on_signals, Stamp, WallClock};
use affect_runtime::run::RunConfig;

/// Sets the wall-clock run up: signals, observers, the watchdog. Returns the clock. The run
/// is on hardware when `config.hardware` says so; `quiet` and `watchdog_ms` are `affect
/// run`'s `--quiet` and `--watchdog-ms`.
pub fn prepare(
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
    let watchdog = match romi_of(program, config) {
        Some(romi) if watchdog_ms > 0 => {
            let exe =
                std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
            let spec = WatchdogSpec {
                bound_ms: watchdog_ms,
                romi: Some(romi),
            };
            let w = Watchdog::spawn(&exe, &spec)
                .map_err(|e| format!("the watchdog did not start: {e}"))?;
            Some(w)
        }
        _ => None,
    };
    observers.add(Heartbeat(watchdog));
    Ok(WallClock::new(Stamp::Actual, Some(stop)))
}

/// The motor board of the agent that runs on hardware (bus, address), unless simulated.
fn romi_of(program: &Program, config: &RunConfig) -> Option<(u8, u8)> {
    let agent = match &config.agent {
        Some(a) => program.agents.iter().find(|p| p.name == *a)?,
        None => program.agents.first()?,
    };
    let simulated = config
        .hardware
        .as_ref()
        .map_or(&[][..], |h| &h.simulated[..]);
    motor_board(agent, simulated)
}
