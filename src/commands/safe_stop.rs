//! `affect safe-stop FILE`: every actuator of the robot's agent to its safe state (motors
//! stopped, each output at its `safe:` level), on handles of its own, then exit. It is what
//! systemd runs after the robot's unit stopped for any reason (`ExecStopPost=`, written by
//! `affect install-service`: after a crash, an out-of-memory kill, a systemd watchdog kill)
//! and what the run's watchdog does for the actuators besides the motor board.

use super::{FAILED, OK, USAGE};
use affect_runtime::hardware::{DeviceRegistry, HardwareConfig};
use affect_runtime::robot;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct SafeStopArgs {
    /// The program the robot runs.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The agent that runs on the robot (as `affect run --agent`; default: the first).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// A device the robot's run simulates (as `affect run --sim-device`): not touched.
    #[arg(long = "sim-device", value_name = "NAME")]
    pub sim_device: Vec<String>,
}

pub fn run(args: &SafeStopArgs) -> u8 {
    let mut stop = match actuators(&args.file, args.agent.as_deref(), &args.sim_device) {
        Ok(stop) => stop,
        Err(status) => return status,
    };
    match stop() {
        Ok(n) => {
            eprintln!("{}", robot::safe_stop_said(n, &args.file));
            OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            FAILED
        }
    }
}

/// `affect __watchdog ARGS` (started by `affect run --hardware`): the runtime's watchdog
/// (`affect_runtime::robot::serve_watchdog`), stopping the program's actuators as `safe-stop`
/// does when the spec names the program.
pub fn watchdog(args: &[String]) -> u8 {
    robot::serve_watchdog(args, &DeviceRegistry::new(), |file| {
        let loaded =
            super::source::load(file).map_err(|_| format!("cannot read `{}`", file.display()))?;
        loaded.analysis.program.ok_or_else(|| {
            format!(
                "`{}` does not check (`affect check` shows why)",
                file.display()
            )
        })
    })
}

/// Reads and checks `file` once; the function it returns opens the agent's actuators on fresh
/// handles and sets each to its safe state, as often as it is called (each call opens them
/// anew: a handle held since the start could be the broken one). `Ok(n)`: the number of
/// actuators; `Err`: which could not be opened or set. `Err` of this function is the exit
/// status, the problem told.
pub fn actuators(
    file: &Path,
    agent: Option<&str>,
    simulated: &[String],
) -> Result<impl FnMut() -> Result<usize, String>, u8> {
    let loaded = super::source::load(file)?;
    let Some(program) = loaded.analysis.program else {
        eprintln!(
            "error: `{}` does not check (`affect check` shows why)",
            file.display()
        );
        return Err(FAILED);
    };
    if robot::agent_of(&program, agent).is_none() {
        eprintln!(
            "error: `{}` has no agent{}",
            file.display(),
            agent.map_or(String::new(), |a| format!(" `{a}`"))
        );
        return Err(USAGE);
    }
    let cfg = HardwareConfig {
        simulated: simulated.to_vec(),
        ..Default::default()
    };
    let agent = agent.map(str::to_string);
    Ok(move || robot::safe_stop(&program, agent.as_deref(), &cfg))
}
