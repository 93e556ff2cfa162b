//! `affect run --hardware` and `--realtime`: the wall clock, Ctrl-C and SIGTERM, the
//! watchdog, and what the run tells about devices it simulates: the runtime's
//! `affect_runtime::robot`, which a user's own binary uses the same way.

use crate::observers::Fanout;
use affect_compiler::ir::program::Program;
use affect_runtime::realtime::WallClock;
use affect_runtime::robot::{self, RobotOptions};
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
    let options = RobotOptions { watchdog_ms, quiet };
    let (clock, guard) = robot::prepare(file, program, config, &options)?;
    observers.add(guard);
    Ok(clock)
}
